#!/bin/sh
# Wrong calls of the windowed scatter (scatter_check --error CASE, one
# job per case, RTOPO_TIMEOUT_MS=600000 so that no code can come from a
# timeout): every rank must print exactly one verdict, "pass" (common.sh,
# verdict_case), rtopo-run exit 0; a job is
# cut off at 300 s (a hang).  What each case
# checks is in scatter_check.c; in short:
#   stride0, stride-gt-count  RTOPO_ERR_INVAL on every rank at once, no
#                             communication (a correct scatter follows)
#   short, null-send          the host's array too short / NULL: the host
#                             fails the job, RTOPO_ERR_INVAL on every rank
#   null-recv                 node 1's receive buffer NULL: likewise
#   count, stride, esize      one rank differs: RTOPO_ERR_MISMATCH naming
#                             the argument
#   topo                      a job size that does not fit the dimension:
#                             RTOPO_ERR_TOPO (and INVAL for bad host ranks)
#   shift                     rtopo_shift with the host outside the cube:
#                             RTOPO_ERR_UNSUPPORTED
#   setalgo                   bad strategies and block dimensions: INVAL,
#                             and TOPO without a host
# TRANSPORT (default ofi:tcp).
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
SC="$top_builddir/tests/integ/scatter_check"
# 10 minutes: an error code came from the check, not from a timeout
export RTOPO_TIMEOUT_MS=600000
export RTOPO_SPIN_US=${RTOPO_SPIN_US:-0}
fails=0 summary=
# case ranks dim host
while read -r c n d h; do
    [ -n "$c" ] || continue
    verdict_case "$c: $n ranks, dimension $d, host $h ($tr)" "$n" 0 330 \
        "$RUN" -n "$n" --transport "$tr" --quiet --timeout 300 --grace 2 \
        "$SC" --dim "$d" --host "$h" --error "$c"
done <<EOF_CASES
stride0 5 2 0
stride-gt-count 4 2 3
short 5 2 0
short 9 3 8
short 4 2 3
null-send 5 2 4
null-recv 5 2 0
null-recv 8 3 3
count 5 2 0
count 4 2 3
stride 5 2 2
esize 9 3 0
topo 6 2 0
topo 3 2 0
topo 4 1 1
shift 5 2 0
setalgo 5 2 2
EOF_CASES
verdict_end
