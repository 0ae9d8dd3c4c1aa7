#!/bin/sh
# rtopo-run refuses --timeout and --grace values that are not a plain
# number of seconds (nan, inf, negative, hexadecimal, exponents) with a
# message naming the option, and exit status 2.
. "$(dirname "$0")/boot_lib.sh"

for opt in --timeout --grace; do
    for v in nan NaN inf -inf infinity -1 -0.5 1e3 0x10 " 1" "1 " "" . 1..2 \
             10000001 1e400; do
        run "$RUN" -n 1 "$opt" "$v" true
        expect_rc 2
        expect_grep "^rtopo-run: $opt '$v' is (not a number of seconds|out of range)"
    done
    run "$RUN" -n 1 "$opt" 0.5 true
    expect_rc 0
    run "$RUN" -n 1 "$opt" 10000000 true
    expect_rc 0
done
# a timeout that rounds to no time at all would be no timeout
for v in 0 0.0001; do
    run "$RUN" -n 1 --timeout "$v" true
    expect_rc 2
    expect_grep "^rtopo-run: --timeout '$v' is out of range"
done
run "$RUN" -n 1 --grace 0 true
expect_rc 0
exit 0
