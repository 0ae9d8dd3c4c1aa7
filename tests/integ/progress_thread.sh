#!/bin/sh
# RTOPO_PROGRESS=thread over $TRANSPORT (default ofi:tcp): nonblocking
# shifts progress while their rank computes, and the thread sleeps while
# it waits (progress_check.c); a bad value of the variable fails
# rtopo_init.
. "$(dirname "$0")/common.sh"
PROG="$top_builddir/tests/integ/progress_check"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
flags=$(mktemp -d)
trap 'rm -rf "$flags"' EXIT
echo "+ RTOPO_PROGRESS=thread rtopo-run -n 4 --transport $tr progress_check 4194304 DIR"
RTOPO_PROGRESS=thread timeout 300 "$RUN" -n 4 --transport "$tr" "$PROG" 4194304 "$flags" ||
    { echo "FAIL: progress thread on $tr"; exit 1; }
echo "+ RTOPO_PROGRESS=bogus"
out=$(RTOPO_PROGRESS=bogus timeout 60 "$RUN" -n 2 --transport "$tr" "$PROG" 2>&1)
echo "$out"
echo "$out" | grep -q "RTOPO_PROGRESS=bogus" || { echo "FAIL: bad value not named"; exit 1; }
exit 0
