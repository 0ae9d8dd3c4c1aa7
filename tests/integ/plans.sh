#!/bin/sh
# plans_check on 16 ranks (tests/integ/plans_check.c): creating a
# topology of each kind builds no plan; a new call builds one, a repeated
# call none; every plan holds its rank's share of the schedule only.
# RTOPO_MODEL=default: no measurement at creation.  Transport: $TRANSPORT
# when set, else rtopo's shm (skipped when it is not usable).  A job is
# cut off at 10 minutes (a hang).
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-shm}
need_transport "$tr"
CHECK="$top_builddir/tests/integ/plans_check"
export RTOPO_MODEL=default
export RTOPO_SPIN_US=${RTOPO_SPIN_US:-0}
t0=$(date +%s)
echo "+ rtopo-run -n 16 --transport $tr plans_check"
timeout 600 "$RUN" -n 16 --transport "$tr" --quiet "$CHECK" || {
    echo "FAILED: $tr, 16 ranks (exit status $?)"
    exit 1
}
echo "  ($tr, 16 ranks: $(( $(date +%s) - t0 )) s)"
