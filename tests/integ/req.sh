#!/bin/sh
# Request and handle semantics (req_check, one job per case, 4 ranks)
# over TRANSPORT: BUSY on a second start, INVAL on overlapping receive
# buffers in flight, RTOPO_CHECK_BUFFERS, restarts with windows kept
# open, rtopo_topo_free with requests, stale handles after free and
# finalize, a second rtopo_init.  See req_check.c.  Every rank must
# print exactly one verdict, pass, and rtopo-run exit 0 (common.sh,
# verdict_case); a job is cut off at 300 s.  CASES overrides the list of
# cases.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:?set TRANSPORT}
need_transport "$tr"
REQ="$top_builddir/tests/integ/req_check"
# 2 minutes: only a hang reaches it
export RTOPO_TIMEOUT_MS=120000
cases=${CASES:-"busy overlap checkbuf restart topofree dereg2 reqfree2 finalize2 stale deadctx reinit"}
fails=0 summary=
for c in $cases; do
    verdict_case "$c ($tr)" 4 0 330 \
        "$RUN" -n 4 --transport "$tr" --quiet --timeout 300 "$REQ" "$c"
done
verdict_end
