#!/bin/sh
# scatter-hosts.sh - the windowed scatter from a host to a 3-cube on
# emulated hosts, every strategy measured beside the calibrated model's
# prediction, and the two rankings held against each other.
#
#   tools/dev/scatter-hosts.sh [BUILDDIR]
#
# Environment: RATE (the host's link, tc units; default 100mbit), SIZES
# (window sizes M in elements of 8 bytes; default "8192 32768"), ITERS
# (iterations per strategy, the median is taken; default 9), HOSTS (emulated
# hosts for the 9 ranks; default 9: every rank on a host of its own, the
# host rank 8 on the last), TOL (relative gap under which two model times
# count as a tie; default 0.03).
#
# Each configuration is one job:
#   rtopo-run -n 9 --hosts $HOSTS --host-link $((HOSTS-1)):$RATE \
#     rtopo-bench scatter --d 3 --host 8 --sizes M --overlap 0|half|max
# The host (rank 8) sits alone on the last host, whose link is
# rate-limited; the nodes' links are not.  The job calibrates at topology
# creation (RTOPO_MODEL=auto): the host link, and the node pairs by reach;
# the model column of rtopo-bench is the topology's own model, the one its
# auto choice uses, with the schedules simulated event by event.  The
# calibrated figures are printed (from the debug log) with the rtopo-sim
# command that gives the same predictions without a network.
#
# Output: per configuration a table (strategy, measured median and min,
# model, measured rank, model rank), the winners, and the pairs the two
# rankings order alike among the pairs the model does not call a tie.
# Needs root for the namespaces (rtopo-run(1), EMULATED HOSTS); takes a
# few minutes.  Not part of make check.
set -eu
B=${1:-build}
RATE=${RATE:-100mbit}
SIZES=${SIZES:-"8192 32768"}
ITERS=${ITERS:-9}
HOSTS=${HOSTS:-9}
TOL=${TOL:-0.03}
RUN=$B/tools/rtopo-run
BENCH=$B/tools/rtopo-bench
[ -x "$RUN" ] && [ -x "$BENCH" ] || { echo "build $B first (rtopo-run, rtopo-bench)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "# scatter, host rank 8 + 3-cube on $HOSTS emulated hosts, host link $RATE, nodes' links unlimited"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for M in $SIZES; do
    for ov in 0 half max; do
        out=$tmp/run
        RTOPO_LOG_LEVEL=debug timeout 900 "$RUN" -n 9 --hosts "$HOSTS" \
            --host-link "$((HOSTS - 1)):$RATE" --timeout 880 \
            "$BENCH" scatter --d 3 --host 8 --sizes "$M" --overlap "$ov" \
            --iters "$ITERS" --no-baseline > "$out" 2>&1 || {
            echo "job failed (M $M, overlap $ov):"; tail -20 "$out"; exit 1; }
        echo
        sed -n 's/^\[0\] \(# M .*\)$/\1/p' "$out"
        sed -n 's/^\[0\] .*\(measured .* pair .*\)$/# calibrated: \1/p' "$out"
        model=$(sed -n 's/^\[0\] .*: model \(.*\) (measured now)$/\1/p' "$out" | head -1)
        echo "# model: $model"
        o=$(sed -n 's/^\[0\] # M .*overlap \([0-9]*\),.*/\1/p' "$out")
        echo "# same without a network: rtopo-sim scatter --d 3 --M $M --overlap $o --esize 8 --strategy auto --model '$model'"
        # strategy median min model (the auto row left out of the ranking)
        sed -n 's/^\[0\] \([a-z]*\(:[0-9]\)\{0,1\}\) *\([0-9.]*\) *\([0-9.]*\) *\([0-9.]*\) .*/\1 \3 \4 \5/p' \
            "$out" > "$tmp/rows"
        awk -v tol="$TOL" '
            { n++; name[n] = $1; med[n] = $2; mn[n] = $3; mod[n] = $4 }
            END {
                for (i = 1; i <= n; i++) {
                    rm = 1; rp = 1
                    for (j = 1; j <= n; j++) {
                        if (med[j] < med[i]) rm++
                        if (mod[j] < mod[i]) rp++
                    }
                    rankm[i] = rm; rankp[i] = rp
                }
                printf "| %-15s | %12s | %12s | %12s | %9s | %10s |\n", "strategy",
                       "median (us)", "min (us)", "model (us)", "measured#", "model#"
                printf "|-----------------|--------------|--------------|--------------|-----------|------------|\n"
                bm = 1; bp = 1
                for (i = 1; i <= n; i++) {
                    printf "| %-15s | %12.1f | %12.1f | %12.1f | %9d | %10d |\n", name[i],
                           med[i], mn[i], mod[i], rankm[i], rankp[i]
                    if (med[i] < med[bm]) bm = i
                    if (mod[i] < mod[bp]) bp = i
                }
                agree = 0; pairs = 0; ties = 0
                for (i = 1; i <= n; i++)
                    for (j = i + 1; j <= n; j++) {
                        lo = mod[i] < mod[j] ? mod[i] : mod[j]
                        hi = mod[i] < mod[j] ? mod[j] : mod[i]
                        if (hi - lo <= tol * lo) { ties++; continue }
                        pairs++
                        if ((mod[i] < mod[j]) == (med[i] < med[j])) agree++
                    }
                printf "# fastest measured: %s (%.1f us); model picks %s (%.1f us measured, %+.1f%%)\n",
                       name[bm], med[bm], name[bp], med[bp], 100 * (med[bp] / med[bm] - 1)
                printf "# rankings: %d of %d pairs ordered alike where the model sees a gap > %g%% (%d pairs within it: ties)\n",
                       agree, pairs, 100 * tol, ties
            }' "$tmp/rows"
    done
done
