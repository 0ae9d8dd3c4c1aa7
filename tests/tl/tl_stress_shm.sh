#!/bin/sh
# tl_stress over the native shm transport: three processes, then four
# with small control messages; bounded; 77 (skip) where shm is not usable.
T=${TL_STRESS:-./tests/tl/tl_stress}
rc=0
timeout 300 "$T" shm --procs 3 --ops 6000 --ctrl 1024 || rc=$?
[ $rc -eq 0 ] || exit $rc
timeout 300 "$T" shm --procs 4 --ops 4000 --ctrl 256 --stall 50 || rc=$?
exit $rc
