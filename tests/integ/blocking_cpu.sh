#!/bin/sh
# 8 ranks on this machine; rank 0 sleeps 2 s before joining a shift.
# The waiting ranks must block, not spin: together under 10% of a core.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
run 8 "$tr" --error sleep >"$out" 2>&1 || { cat "$out"; exit 1; }
cat "$out"
awk '/waited .* wall, .* cpu/ && !/rank 0:/ { for (i = 1; i <= NF; i++) { if ($i == "wall,") w += $(i-2); if ($i == "cpu") c += $(i-2) } n++ }
     END { if (n != 7) { print "FAIL: expected 7 waiting ranks, saw " n; exit 1 }
           printf "7 waiting ranks: %.3f s cpu over %.3f s wall each on average = %.1f%% of one core\n", c, w / n, 100 * c / (w / n);
           exit (c / (w / n) < 0.10) ? 0 : 1 }' "$out"
