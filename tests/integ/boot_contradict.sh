#!/bin/sh
# Settings that cannot be meant are errors, with a message, never a guess:
# a log level that is none of rtopo's, a job of one that RTOPO_SIZE or
# RTOPO_RANK says is larger, and an rtopo-run option given twice.
. "$(dirname "$0")/boot_lib.sh"

for lvl in verbose 5 "" "warn " warning debug2; do
    [ -n "$lvl" ] || continue
    RTOPO_LOG_LEVEL="$lvl" run "$CHECK" normal
    expect_rc 1
    expect_grep "RTOPO_ERR_INVAL.*RTOPO_LOG_LEVEL '$lvl' is not one of"
done
RTOPO_LOG_LEVEL=DEBUG run "$CHECK" normal
expect_rc 0

RTOPO_BOOT=single RTOPO_SIZE=4 run "$CHECK" normal
expect_rc 1
expect_grep 'RTOPO_ERR_INVAL.*single runs a job of 1 rank, but RTOPO_SIZE is 4'
RTOPO_BOOT=single RTOPO_RANK=2 run "$CHECK" normal
expect_rc 1
expect_grep 'RTOPO_ERR_INVAL.*RTOPO_RANK is 2'
# without rtopo-run, RTOPO_SIZE=4 alone would make the same job of one
RTOPO_SIZE=4 run "$CHECK" normal
expect_rc 1
expect_grep 'RTOPO_ERR_INVAL.*RTOPO_SIZE is 4'
RTOPO_BOOT=single RTOPO_SIZE=1 run "$CHECK" normal
expect_rc 0

for args in "-n 2 -n 3" "-n 2 --np 2" "--transport shm --transport shm -n 1" \
            "-n 1 --timeout 5 --timeout 6" "-n 1 --grace 1 --grace=1" \
            "-n 1 --hosts 1 --hosts 1" "-q -n 1 --quiet"; do
    # shellcheck disable=SC2086
    run "$RUN" $args "$CHECK" normal
    expect_rc 2
    expect_grep 'rtopo-run: --[a-z]*.* given more than once'
done
exit 0
