#!/bin/sh
# Request and handle semantics (req_check, one job per case, 4 ranks)
# over TRANSPORT: BUSY on a second start, INVAL on overlapping receive
# buffers in flight, RTOPO_CHECK_BUFFERS, restarts with windows kept
# open, rtopo_topo_free with requests, stale handles after free and
# finalize, a second rtopo_init.  See req_check.c.  CASES overrides the list of cases.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:?set TRANSPORT}
need_transport "$tr"
REQ="$top_builddir/tests/integ/req_check"
# 2 minutes: only a hang reaches it
export RTOPO_TIMEOUT_MS=120000
cases=${CASES:-"busy overlap checkbuf restart topofree dereg2 reqfree2 finalize2 stale deadctx reinit"}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fails=0 summary=
for c in $cases; do
    echo "== case $c ($tr)"
    timeout 330 "$RUN" -n 4 --transport "$tr" --quiet --timeout 300 "$REQ" "$c" >"$out" 2>&1
    rc=$?
    sed 's/^/    /' "$out"
    npass=$(grep -c 'verdict: pass' "$out")
    nfail=$(grep -c 'verdict: FAIL' "$out")
    if [ "$rc" -eq 0 ] && [ "$npass" -eq 4 ]; then
        line="$c: ok"
    else
        fails=$(( fails + 1 ))
        line="$c: FAILED (exit status $rc; ranks: $npass passed, $nfail failed, $(( 4 - npass - nfail )) gave no verdict (crashed or cut off); $(grep -c ': FAIL' "$out") failed checks)"
    fi
    echo "   => $line"
    summary="$summary
  $line"
done
echo "== summary ($tr):$summary"
echo "$fails case(s) failed"
[ "$fails" -eq 0 ]
