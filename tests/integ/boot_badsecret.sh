#!/bin/sh
# Connections with a wrong secret or a duplicate rank are refused, and the
# job goes on.
. "$(dirname "$0")/boot_lib.sh"

for n in 1 3 8; do
    run "$RUN" -n $n "$CHECK" badsecret
    expect_rc 0
    expect_lines 1 '^rtopo-run: refused a bootstrap connection: authentication failed$'
    expect_lines 1 '^rtopo-run: refused a bootstrap connection: rank 0 already connected$'
    expect_grep '^\[0\] wrong secret: refused with RTOPO_ERR_AUTH$'
    expect_grep '^\[0\] duplicate rank: refused with RTOPO_ERR_BOOTSTRAP$'
    expect_lines 1 "^rtopo-run: refused a bootstrap connection: rank 0 claims a job of $((n + 1)) ranks, this job has $n\$"
    expect_grep '^\[0\] wrong size: refused with RTOPO_ERR_BOOTSTRAP$'
    expect_lines $n '^\[([0-9]+)\] rank \1: ok$'
done
exit 0
