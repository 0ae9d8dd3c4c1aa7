#!/bin/sh
# Probes of the contract of rtopo(7) (ERRORS ACROSS RANKS) on the newer
# operations, written from the man pages (probe_check, one job per case;
# probe_check.c describes the cases).  Each job runs with
# RTOPO_TIMEOUT_MS=600000 and is cut off at 90 s, so an error can only
# have come from the rank that found it or from the job-wide failure,
# never from the timeout; a hang fails the case.  Checked rank by rank
# (common.sh, verdict_case):
#   - exactly one verdict line, and it says pass (probe_check checks the
#     codes every call returned, the data of every call that succeeded,
#     and what rtopo_finalize returned);
#   - rtopo-run exits 0 (for the kill-* cases, where one rank kills
#     itself, any status but the cut-off's).
# CASES overrides the list; TRANSPORT sets RTOPO_TRANSPORT (default: the
# library's choice).  The default list keeps the strongest probes that
# pass: line sums and shifts of the OTIS-hypercube checked element by
# element, mismatched arguments and kinds in one slot, a NULL buffer on
# one rank, a killed rank, persistent requests of five kinds restarted
# 400 times, rounds of two persistent kinds in one slot, a sort, a
# shift_fill, an adjacent_sum and a random read in flight together, 300
# nonblocking bcasts in flight, RTOPO_ERR_BUSY, the sort's float order,
# the random access write and read with changing targets, scatters that
# disagree.  probes_create.sh runs the cases of the defects
# these probes found at topology creation and in the sort's arguments.
. "$(dirname "$0")/common.sh"
PC="$top_builddir/tests/integ/probe_check"
export RTOPO_TIMEOUT_MS=600000
[ -n "$TRANSPORT" ] && need_transport "$TRANSPORT" && export RTOPO_TRANSPORT="$TRANSPORT"
cases=${CASES:-"fill-sweep fill-disp adj-m cons-kind fill-null-one kill-adj rw-persist
  loop-persist persist-kind mix-inflight ibcast-many busy-start sort-float scatter-count"}
# ranks CASE: the job's size;  args CASE: rtopo-run's options
ranks() {
    case $1 in
    sort-*) echo 8 ;;
    scatter-*) echo 5 ;;
    *) echo 16 ;;
    esac
}
args() {
    case $1 in
    place-*) echo "--hosts 4 --map-by host --no-netns" ;;
    esac
}

fails=0 summary=
for c in $cases; do
    n=$(ranks "$c")
    # a rank that kills itself makes the job's status anything (but the
    # cut-off's)
    want=0
    case $c in kill-*) want=any ;; esac
    # shellcheck disable=SC2046
    verdict_case "$c ($n ranks${TRANSPORT:+, $TRANSPORT})" "$n" "$want" 150 \
        "$RUN" -n "$n" $(args "$c") --quiet --timeout 90 --grace 2 "$PC" "$c"
done
verdict_end
