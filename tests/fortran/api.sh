#!/bin/sh
# Every group of rtopo_f08 calls on 4 ranks under rtopo-run (api_check
# checks each result against its man page), and the default error
# handling: a failing call without ierror prints the error and stops the
# program with a non-zero status.
. "$top_srcdir/tests/fortran/common_f.sh"
CHK=$top_builddir/tests/fortran/api_check
timeout 300 "$RUN" -n 4 --quiet "$CHK" >"$out" 2>&1
check "rtopo-run -n 4 api_check" 1 '^\[0\] api_check: OK' $?
timeout 300 "$RUN" -n 4 --quiet "$CHK" fatal >"$out" 2>&1
st=$?
if [ $st = 0 ] || grep -q 'still running' "$out" ||
   ! grep -q 'rtopo_topo_mesh failed: RTOPO_ERR_TOPO: .*needs 9 ranks' "$out"; then
    cat "$out"
    echo "FAIL api_check fatal: exit $st, expected a message and a non-zero exit"
    fails=$((fails + 1))
else
    echo "ok   api_check fatal stops with: $(grep -m1 'rtopo_topo_mesh failed' "$out")"
fi
[ $fails = 0 ]
