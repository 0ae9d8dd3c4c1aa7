#!/bin/sh
# A rank that fails: rtopo-run names it, tells the others (poll_failure),
# lets them finish, and exits non-zero.
. "$(dirname "$0")/boot_lib.sh"

for n in 3 8; do
    run "$RUN" -n $n "$CHECK" die
    expect_rc 1
    expect_grep '^rtopo-run: rank 1 \(pid [0-9]+\) exited with status 3$'
    expect_lines $((n - 1)) '^\[[0-9]+\] poll_failure reported rank 1 after [0-9]+ ms$'
    expect_lines $((n - 1)) '^\[[0-9]+\] barrier after the failure: RTOPO_ERR_PEER$'

    run "$RUN" -n $n "$CHECK" kill
    expect_rc 137
    expect_grep '^rtopo-run: rank 1 \(pid [0-9]+\) killed by signal 9 \(SIGKILL\)$'
    expect_lines $((n - 1)) '^\[[0-9]+\] poll_failure reported rank 1 after [0-9]+ ms$'
done
exit 0
