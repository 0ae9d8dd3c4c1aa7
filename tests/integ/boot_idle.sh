#!/bin/sh
# 100 idle connections to the launcher's rendezvous, opened before the
# ranks join, neither keep the ranks out nor stay open: every rank gets
# through rtopo_init and a shift, and rtopo-run closes the idle ones
# within a few seconds.
. "$(dirname "$0")/boot_lib.sh"
LEAVE=$builddir/tests/integ/leave_check
[ -x "$LEAVE" ] || { echo "$LEAVE is not built"; exit 99; }
if ! "$builddir/tools/rtopo-info" --check ofi:tcp; then
    echo "ofi:tcp is not usable here: skipped"
    exit 77
fi

run "$RUN" -n 4 --transport ofi:tcp --timeout 30 "$LEAVE" idle 100 "$tmp"
expect_rc 0
expect_lines 1 '^\[0\] 100 idle connections open$'
expect_lines 4 '^\[([0-9])\] rank \1: ok$'
expect_grep '^\[0\] the launcher closed all 100 idle connections within [0-9.]+ s$'
expect_grep '^rtopo-run: closed [0-9]+ bootstrap connections? that did not authenticate within 2 s$'
exit 0
