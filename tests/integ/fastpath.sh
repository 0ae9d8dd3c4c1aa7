#!/bin/sh
# The short way of a plan of one eager send and one eager receive (a
# small shift, exec.c): fastpath_check on a ring of 2 ranks, one job per
# case, over rtopo's shm transport and libfabric tcp (skipped where not
# usable).  Every rank must print "verdict: pass":
#   stream          blocking shifts of 0, 1, 8, 128 bytes and the eager
#                   limit (and one byte past it), early and late messages,
#                   in place now and then, every byte checked, and the
#                   short way taken exactly below the eager limit;
#   flow            batches of 200 nonblocking shifts ahead of a napping
#                   peer: flow control keeps at most 64 early messages
#                   of them (one per operation; the topology's creation
#                   before is not counted);
#   mismatch        8 bytes against 16: RTOPO_ERR_MISMATCH on both ranks,
#   mismatch-early  ... with the 16-byte message waiting as early;
#   probe           q=1 against q=0 (no message at all): rank 0 hears of
#                   it from the probes, RTOPO_ERR_MISMATCH;
#   dead            rank 1 leaves without rtopo_finalize: rank 0's next
#                   shift gets RTOPO_ERR_PEER (rtopo-run exits 1).
# RTOPO_TIMEOUT_MS is 10 minutes: an error that came from a timeout would
# have taken that long (the job is cut off at 120 s).  CASES and
# TRANSPORTS override the lists.
. "$(dirname "$0")/common.sh"
FP="$top_builddir/tests/integ/fastpath_check"
export RTOPO_TIMEOUT_MS=600000
cases=${CASES:-"stream flow mismatch mismatch-early probe dead"}
transports=${TRANSPORTS:-"shm ofi:tcp"}
fails=0 summary=
for tr in $transports; do
    tr_usable "$tr" || continue
    for c in $cases; do
        want=0
        [ "$c" = dead ] && want=1
        # a differing call fails the job: rtopo-run reports the failed ranks
        case $c in mismatch*|probe) want=any ;; esac
        verdict_case "$c ($tr)" 2 "$want" 150 \
            "$RUN" -n 2 --transport "$tr" --quiet --timeout 120 "$FP" "$c"
    done
done
verdict_end
