#!/bin/sh
# RTOPO_PROGRESS=thread over the native shm transport: nonblocking shifts
# progress while their rank computes, and the thread sleeps in the
# transport's futex wait (progress_check.c; see progress_thread.sh).
. "$(dirname "$0")/common.sh"
PROG="$top_builddir/tests/integ/progress_check"
need_transport shm
echo "+ RTOPO_PROGRESS=thread rtopo-run -n 4 --transport shm progress_check"
RTOPO_PROGRESS=thread timeout 60 "$RUN" -n 4 --transport shm "$PROG" 4194304 ||
    { echo "FAIL: progress thread on shm"; exit 1; }
exit 0
