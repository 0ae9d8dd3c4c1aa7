#!/bin/sh
# Hand-built schedules whose later steps read what earlier steps wrote.
. "$(dirname "$0")/common.sh"
for tr in ofi:tcp ofi:shm; do
    "$INFO" --check $tr || continue
    for p in 1 2 3 5; do
        echo "+ $tr, $p ranks"
        timeout 120 "$RUN" -n $p --transport $tr --quiet "$top_builddir/tests/integ/sched_check" || exit 1
    done
done
