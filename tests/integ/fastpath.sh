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
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fails=0 summary=
for tr in $transports; do
    if ! "$top_builddir/tools/rtopo-info" --check "$tr" >/dev/null 2>&1; then
        summary="$summary
  $tr: not usable here, skipped"
        continue
    fi
    for c in $cases; do
        echo "== case $c ($tr)"
        t0=$(date +%s)
        timeout 150 "$RUN" -n 2 --transport "$tr" --quiet --timeout 120 "$FP" "$c" >"$out" 2>&1
        rc=$?
        sed 's/^/    /' "$out"
        npass=$(grep -c 'verdict: pass' "$out")
        want_rc=0
        [ "$c" = dead ] && want_rc=1
        # a differing call fails the job: rtopo-run reports the failed ranks
        case $c in mismatch*|probe) want_rc=any ;; esac
        if [ "$npass" -eq 2 ] && { [ "$want_rc" = any ] || [ "$rc" -eq "$want_rc" ]; } &&
           [ "$rc" -ne 124 ]; then
            line="$c ($tr): ok ($(( $(date +%s) - t0 )) s)"
        else
            fails=$(( fails + 1 ))
            line="$c ($tr): FAILED (exit status $rc, want $want_rc; $npass of 2 ranks passed)"
        fi
        echo "   => $line"
        summary="$summary
  $line"
    done
done
echo "== summary:$summary"
echo "$fails case(s) failed"
[ "$fails" -eq 0 ]
