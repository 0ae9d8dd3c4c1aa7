#!/bin/sh
# The broadcast's flat tree on a machine with more ranks than processors
# (rtopo_bcast(3)): 8 ranks on processors 0 and 1 (taskset) over rtopo's
# shm.  Passes when
#  - RTOPO_MODEL=auto: label 0 logs the pair's receiver's turn (tt) and
#    every broadcast and allreduce coll_check runs is right on every rank;
#  - RTOPO_MODEL=auto,ts=0.5us,tw=0.1ns,tt=50us: every rank's 8-byte and
#    1 KiB broadcast is the flat tree (2 steps: the root's sends, one
#    step), the 2 MiB one, past the eager limit, the binomial tree (3
#    rounds, 4 steps), every byte right.  tw set too: a stream timed
#    while other jobs load both processors can measure 30 ns/B, at which
#    the root's 7 KiB cost more than two more turns, and the binomial
#    tree is then the right choice for 1 KiB;
#  - RTOPO_MODEL=auto,tt=0: the binomial tree at 8 bytes too.
# 77 when processors 0 and 1 are not both available or shm is not usable.
. "$(dirname "$0")/common.sh"
COLL="$top_builddir/tests/integ/coll_check"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! taskset -c 0,1 true 2>/dev/null; then
    echo "processors 0 and 1 are not both available: skipped"
    exit 77
fi
"$INFO" --check shm || { echo "shm: not usable here, skipped"; exit 77; }
fail=0

# job MODEL COUNTS OPS: 8 ranks of coll_check on processors 0 and 1
job() {
    echo "+ RTOPO_MODEL=$1 taskset -c 0,1 rtopo-run -n 8 --transport shm coll_check --topo hypercube:3 --ops $3 --counts $2"
    RTOPO_MODEL=$1 RTOPO_LOG_LEVEL=debug taskset -c 0,1 timeout 300 "$RUN" -n 8 \
        --transport shm "$COLL" --topo hypercube:3 --algos auto --ops "$3" --counts "$2" \
        --modes blocking >"$out" 2>&1 ||
        { grep -v ' debug \| info ' "$out" | tail -n 20; echo "FAIL: RTOPO_MODEL=$1: exit"; fail=1; }
}

# plans COUNT STEPS: every rank's every broadcast of COUNT int64 (each
# root coll_check takes) was built in STEPS steps
plans() {
    all=$(grep -c "rtopo__coll_call_aux: .*bcast of $1 x 8 bytes: generic algorithm" "$out")
    n=$(grep -c "rtopo__coll_call_aux: .*bcast of $1 x 8 bytes: generic algorithm, [0-9]* transfers, 0 kernels, $2 steps" "$out")
    if [ "$all" -lt 8 ] || [ "$n" -ne "$all" ]; then
        grep "bcast of $1 x 8 bytes" "$out" | head -n 8
        echo "FAIL: RTOPO_MODEL=$model: $n of $all plans of the broadcast of $1 x 8 bytes in $2 steps"
        fail=1
    else
        echo "RTOPO_MODEL=$model: the broadcast of $1 x 8 bytes in $2 steps, $n plans"
    fi
}

# binomial COUNT: no plan of the broadcast of COUNT int64 is the flat
# tree's 2 steps (the binomial tree takes 4, more when cut into pieces)
binomial() {
    all=$(grep -c "rtopo__coll_call_aux: .*bcast of $1 x 8 bytes: generic algorithm" "$out")
    n=$(grep -c "rtopo__coll_call_aux: .*bcast of $1 x 8 bytes: generic algorithm, [0-9]* transfers, 0 kernels, 2 steps" "$out")
    if [ "$all" -lt 8 ] || [ "$n" -ne 0 ]; then
        grep "bcast of $1 x 8 bytes" "$out" | head -n 8
        echo "FAIL: RTOPO_MODEL=$model: $n of $all plans of the broadcast of $1 x 8 bytes are flat"
        fail=1
    else
        echo "RTOPO_MODEL=$model: the broadcast of $1 x 8 bytes on the binomial tree, $all plans"
    fi
}

model=auto
job $model 1,128 bcast,allreduce
if ! grep -q "rtopo\[0 .*more ranks than processors on their machine: ts .* the receiver's turn tt" "$out"; then
    grep "calib" "$out" | grep 'rtopo\[0 ' | head -n 10
    echo "FAIL: RTOPO_MODEL=auto: label 0 logged no receiver's turn"
    fail=1
fi
model=auto,ts=0.5us,tw=0.1ns,tt=50us
job $model 1,128,262144 bcast
plans 1 2
plans 128 2
binomial 262144
model=auto,tt=0
job $model 1 bcast
binomial 1
exit $fail
