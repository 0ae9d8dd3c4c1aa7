#!/bin/sh
# A rank that calls rtopo_init and then exits with status 0 without
# rtopo_finalize, while the others block in a shift: rtopo-run reports it
# as a failure and tells the others at once, who get RTOPO_ERR_PEER within
# 2 s although RTOPO_TIMEOUT_MS is 60 s.
. "$(dirname "$0")/boot_lib.sh"
LEAVE=$builddir/tests/integ/leave_check
[ -x "$LEAVE" ] || { echo "$LEAVE is not built"; exit 99; }
if ! "$builddir/tools/rtopo-info" --check ofi:tcp; then
    echo "ofi:tcp is not usable here: skipped"
    exit 77
fi

# 10 minutes: RTOPO_ERR_PEER came from rank 1 leaving, not from a timeout
export RTOPO_TIMEOUT_MS=600000
for tr in ofi:tcp ofi:rxm; do
    "$builddir/tools/rtopo-info" --check $tr || continue
    start=$(date +%s)
    run "$RUN" -n 4 --transport $tr --timeout 50 "$LEAVE" exit0
    expect_rc 1
    expect_grep '^rtopo-run: rank 1 \(pid [0-9]+\) exited with status 0 without calling rtopo_finalize$'
    expect_lines 1 '^\[1\] leaving without rtopo_finalize$'
    expect_lines 3 '^\[[023]\] shift: RTOPO_ERR_PEER within [0-9]+ ms of rank 1 leaving$'
    echo "($tr: the job took $(($(date +%s) - start)) s)"
done

# a rank that exits 0 after rtopo_finalize, or without joining, is no failure
run "$RUN" -n 3 sh -c 'exit 0'
expect_rc 0
[ ! -s "$out" ] || fail "rtopo-run printed something for a normal job"
exit 0
