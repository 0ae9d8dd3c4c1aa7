#!/bin/sh
# Mesh shifts over the network, on the transport named by $TRANSPORT
# (default ofi:tcp): meshes 2x2, 3x3, 2x4 and 4x4, every q in
# -(p+1)..2p+1, algorithms mesh, ring and direct.  Sizes cross the eager
# limit (0, 1, 4096 eager; 8193 just above 8 KiB, eager only over ofi:tcp,
# whose limit is 64 KiB), rendezvous in one chunk
# (70000) and in several (1 MiB + 3, not a multiple of the chunk): blocking
# with registered buffers for every size; blocking, nonblocking and
# persistent with registered and unregistered buffers on one size; 16 MiB
# for a few q on the 4- and 8-rank meshes.  The algorithms of one set of
# sizes and modes run in one job, each on a topology of its own
# (shift_check --algo A,B: set by rtopo_topo_set_shift_algo); the 16 MiB
# persistent shifts set their one algorithm through RTOPO_SHIFT_ALGO.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
start=$(date +%s)
# The cases of one shape run in one job (shift_check --then): a job's
# start costs a second or more over libfabric.  On 2x2 and 2x4 the job
# begins with the 16 MiB persistent shift whose one algorithm comes
# through RTOPO_SHIFT_ALGO (the other groups name theirs).
for shape in 2x2 3x3 2x4 4x4; do
    p=$(( ${shape%x*} * ${shape#*x} ))
    big=
    case $shape in
    2x2|2x4)
        big="--topo mesh:$shape --algo mesh --sizes 16777216 --q 3,-3
            --modes persistent --mem unreg
            --then --topo mesh:$shape --algo mesh,ring,direct --sizes 16777216
            --q -1,1,2,3,$((p / 2 + 1)) --modes blocking --mem reg --then"
        ;;
    esac
    # every mode and buffer kind: multi-chunk pipelined routes for mesh,
    # one-chunk rendezvous for the others
    # shellcheck disable=SC2086
    run $p "$tr" $big --topo mesh:$shape --algo mesh,ring,direct \
        --sizes 0,1,4096,8193,70000,1048579 --q all --modes blocking --mem reg \
        --then --topo mesh:$shape --algo mesh --sizes 1048579 --q all \
        --modes blocking,nonblocking,persistent --mem reg,unreg \
        --then --topo mesh:$shape --algo ring,direct --sizes 70000 --q all \
        --modes nonblocking,persistent --mem reg,unreg || exit 1
done
echo "shift_mesh on $tr: all passed in $(( $(date +%s) - start )) s"
exit 0
