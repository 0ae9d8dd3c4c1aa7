#!/bin/sh
# The Fortran examples under rtopo-run: Cannon's multiplication on 4 and 9
# ranks (every rank checks its block of C against the formula) and the
# FIR filter's windowed scatter on 5 and 8 ranks (the host checks every
# output against a serial filter).
. "$top_srcdir/tests/fortran/common_f.sh"
for n in 4 9; do
    timeout 300 "$RUN" -n "$n" --quiet "$EX/cannon_f" >"$out" 2>&1
    check "rtopo-run -n $n cannon_f" "$n" ': C block correct after' $?
done
for n in 5 8; do
    timeout 300 "$RUN" -n "$n" --quiet "$EX/fir_filter_f" 1000 17 >"$out" 2>&1
    check "rtopo-run -n $n fir_filter_f" 1 '^\[0\] fir_filter_f: OK' $?
done
[ $fails = 0 ]
