#!/bin/sh
# The eager way of a plan whose every hop is eager (exec.c, plan->eager):
# eagerplan_check on hypercubes of 4 and 8 ranks with the generic
# algorithms, one job per case, over rtopo's shm transport.  Every rank
# must print "verdict: pass":
#   stream    blocking broadcasts (the root turning), allreduces and scans
#             of 8, 64 bytes and the eager limit (the eager way, every
#             call counted) and 8 bytes past it (the general way), one
#             rank late now and then (early messages at its peers), every
#             byte checked;
#   dead      the last rank leaves without rtopo_finalize in the middle of
#             8-byte allreduces: every other rank's next call gets
#             RTOPO_ERR_PEER (rtopo-run exits 1);
#   mismatch  8 bytes against 16: RTOPO_ERR_MISMATCH on every rank.
# RTOPO_TIMEOUT_MS is 10 minutes: an error that came from a timeout would
# have taken that long (the job is cut off at 150 s).  CASES, SIZES (of
# the jobs) and TRANSPORTS override the lists.
. "$(dirname "$0")/common.sh"
EP="$top_builddir/tests/integ/eagerplan_check"
export RTOPO_TIMEOUT_MS=600000
cases=${CASES:-"stream:4 stream:8 dead:4 mismatch:4"}
transports=${TRANSPORTS:-"shm"}
fails=0 summary=
for tr in $transports; do
    tr_usable "$tr" || continue
    for cn in $cases; do
        c=${cn%%:*} n=${cn#*:}
        iters=2000
        [ "$n" -gt 4 ] && iters=500
        want=0
        [ "$c" = dead ] && want=1
        [ "$c" = mismatch ] && want=any
        verdict_case "$c, $n ranks ($tr)" "$n" "$want" 180 \
            "$RUN" -n "$n" --transport "$tr" --quiet --timeout 150 "$EP" "$c" "$iters"
    done
done
verdict_end
