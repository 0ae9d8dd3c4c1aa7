#!/bin/sh
# tl_stress over the native shm transport: three processes, then four
# with small control messages and receivers that stall more; bounded; 77
# (skip) where shm is not usable.  The seed is drawn at random unless
# TL_STRESS_SEED gives it (the output names it, to run the same again).
T=${TL_STRESS:-./tests/tl/tl_stress}
seed=${TL_STRESS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
rc=0
timeout 300 "$T" shm --procs 3 --ops 6000 --ctrl 1024 --seed "$seed" || rc=$?
[ $rc -eq 0 ] || exit $rc
timeout 300 "$T" shm --procs 4 --ops 4000 --ctrl 256 --stall 50 --seed "$seed" || rc=$?
exit $rc
