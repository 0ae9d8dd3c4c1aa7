#!/bin/sh
# Bootstrap without a launcher: single method, and the oob method over
# an allgather callback.
. "$(dirname "$0")/boot_lib.sh"

run "$CHECK" normal
expect_rc 0
expect_grep '^rank 0 size 1 host .* method single$'
expect_grep '^rank 0: ok$'

RTOPO_HOST_ID=node7 run "$CHECK" normal
expect_rc 0
expect_grep '^hosts: node7$'

run "$CHECK" oob
expect_rc 0
expect_grep '^oob: 4 threads'

RTOPO_BOOT=env run "$CHECK" normal
expect_rc 1
expect_grep 'RTOPO_ERR_BOOTSTRAP.*RTOPO_BOOT_ADDR'

RTOPO_BOOT=nonsense run "$CHECK" normal
expect_rc 1
expect_grep 'RTOPO_ERR_INVAL'
exit 0
