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
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fails=0 summary=
for tr in $transports; do
    if ! "$top_builddir/tools/rtopo-info" --check "$tr" >/dev/null 2>&1; then
        summary="$summary
  $tr: not usable here, skipped"
        continue
    fi
    for cn in $cases; do
        c=${cn%%:*} n=${cn#*:}
        iters=2000
        [ "$n" -gt 4 ] && iters=500
        echo "== case $c, $n ranks ($tr)"
        t0=$(date +%s)
        timeout 180 "$RUN" -n "$n" --transport "$tr" --quiet --timeout 150 "$EP" "$c" \
            "$iters" >"$out" 2>&1
        rc=$?
        sed 's/^/    /' "$out"
        npass=$(grep -c 'verdict: pass' "$out")
        want_rc=0
        [ "$c" = dead ] && want_rc=1
        [ "$c" = mismatch ] && want_rc=any
        if [ "$npass" -eq "$n" ] && { [ "$want_rc" = any ] || [ "$rc" -eq "$want_rc" ]; } &&
           [ "$rc" -ne 124 ]; then
            line="$c, $n ranks ($tr): ok ($(( $(date +%s) - t0 )) s)"
        else
            fails=$(( fails + 1 ))
            line="$c, $n ranks ($tr): FAILED (exit status $rc, want $want_rc; $npass of $n ranks passed)"
        fi
        echo "   => $line"
        summary="$summary
  $line"
    done
done
echo "== summary:$summary"
echo "$fails case(s) failed"
[ "$fails" -eq 0 ]
