#!/bin/sh
# Failures surface as status codes, never as hangs: mismatched arguments
# give RTOPO_ERR_MISMATCH, a rank that dies gives RTOPO_ERR_PEER on the
# others and rtopo-run names it.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for mode in mismatch-q mismatch-bytes; do
    RTOPO_TIMEOUT_MS=5000 run 4 "$tr" --error $mode >"$out" 2>&1
    cat "$out"
    grep -q 'rank 0: .* -> RTOPO_ERR_MISMATCH\|\[0\] rank 0: .* -> RTOPO_ERR_MISMATCH' "$out" ||
        grep -q 'RTOPO_ERR_MISMATCH' "$out" || { echo "FAIL: no MISMATCH for $mode"; exit 1; }
    if grep -q -- '-> RTOPO_OK' "$out" && grep -q 'rank [01]: .* -> RTOPO_OK' "$out"; then
        echo "FAIL: a rank next to the disagreement reported success"; exit 1
    fi
done
start=$(date +%s)
RTOPO_TIMEOUT_MS=10000 run 4 "$tr" --error die >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -ne 0 ] || { echo "FAIL: rtopo-run exited 0 although rank 1 died"; exit 1; }
grep -q 'rtopo-run: rank 1 .*exited with status 3' "$out" || { echo "FAIL: rtopo-run did not name rank 1"; exit 1; }
for r in 0 2; do
    grep -q "rank $r: die -> RTOPO_ERR_PEER" "$out" || { echo "FAIL: rank $r did not get RTOPO_ERR_PEER"; exit 1; }
done
# rank 3 receives from rank 2 only: its shift may complete
grep -q "rank 3: die -> RTOPO_ERR_PEER\|rank 3: die -> RTOPO_OK" "$out" || { echo "FAIL: rank 3"; exit 1; }
echo "die: survivors reported RTOPO_ERR_PEER, job ended after $(( $(date +%s) - start )) s"
exit 0
