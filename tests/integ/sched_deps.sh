#!/bin/sh
# sched_check on 1, 2, 3, 4 and 5 ranks (and 8 over shm): shift
# schedules on the ring, a mesh and a hypercube, and hand-built schedules
# with read-after-write, write-after-read and write-after-write hazards,
# local kernels between hops, phase concatenation and a host endpoint,
# each run by the network executor and by the simulator and compared
# byte for byte.
# Transports: $TRANSPORT when set (skipped when it is not usable), else
# ofi:tcp and ofi:shm (skipped when neither is).  The 8-rank job (a
# 2x2x2 hypercube, a 2x4 mesh; 40-45 s a transport, more than the others
# together) runs over rtopo's shm only: what it adds to 4 and 5 ranks is
# longer routes through the same executor, while each transport's own
# paths (eager, rendezvous in one piece and in several, registered and
# unregistered buffers) are those of 2 to 5 ranks.  RANKS overrides the
# list of job sizes.  A job is cut off at 20 minutes (a hang).
. "$(dirname "$0")/common.sh"
CHECK="$top_builddir/tests/integ/sched_check"
if [ -n "${TRANSPORT:-}" ]; then
    need_transport "$TRANSPORT"
    transports=$TRANSPORT
else
    transports=""
    for tr in ofi:tcp ofi:shm; do
        if "$INFO" --check "$tr"; then
            transports="$transports $tr"
        else
            echo "transport $tr is not usable here (rtopo-info --check $tr)"
        fi
    done
    if [ -z "$transports" ]; then
        echo "neither ofi:tcp nor ofi:shm is usable here: skipped"
        exit 77
    fi
fi
start=$(date +%s)
for tr in $transports; do
    ranks="1 2 3 4 5"
    [ "$tr" = shm ] && ranks="$ranks 8"
    for p in ${RANKS:-$ranks}; do
        t0=$(date +%s)
        echo "+ rtopo-run -n $p --transport $tr sched_check"
        timeout 1200 "$RUN" -n $p --transport "$tr" --quiet "$CHECK" || {
            echo "FAILED: $tr, $p ranks (exit status $?)"
            exit 1
        }
        echo "  ($tr, $p ranks: $(( $(date +%s) - t0 )) s)"
    done
done
echo "all schedules correct ($(( $(date +%s) - start )) s)"
exit 0
