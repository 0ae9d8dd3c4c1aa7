#!/bin/sh
# RTOPO_PROGRESS=thread: nonblocking shifts progress while their rank
# computes, and the thread sleeps while it waits (progress_check.c), on
# ofi:tcp and ofi:shm; a bad value of the variable fails rtopo_init.
. "$(dirname "$0")/common.sh"
PROG="$top_builddir/tests/integ/progress_check"
for tr in ofi:tcp ofi:shm; do
    need_transport "$tr"
    echo "+ RTOPO_PROGRESS=thread rtopo-run -n 4 --transport $tr progress_check"
    RTOPO_PROGRESS=thread timeout 60 "$RUN" -n 4 --transport "$tr" "$PROG" 4194304 ||
        { echo "FAIL: progress thread on $tr"; exit 1; }
done
echo "+ RTOPO_PROGRESS=bogus"
out=$(RTOPO_PROGRESS=bogus timeout 60 "$RUN" -n 2 --transport ofi:tcp "$PROG" 2>&1)
echo "$out"
echo "$out" | grep -q "RTOPO_PROGRESS=bogus" || { echo "FAIL: bad value not named"; exit 1; }
exit 0
