#!/bin/sh
# Hypercube shifts over the network, on the transport named by $TRANSPORT
# (default ofi:tcp): dimensions 1..4, every q in -(p+1)..2p+1, algorithms
# hypercube (Gray embedding), ecube (identity embedding), ring and direct.
# Sizes cross the eager limit (0, 1, 4096 eager; 8193 just above 8 KiB,
# eager only over ofi:tcp, whose limit is 64 KiB), rendezvous in one chunk
# (70000) and in several (1 MiB + 3): blocking with
# registered buffers for every size; blocking, nonblocking and persistent
# with registered and unregistered buffers on one size; 16 MiB for a few q
# on dimensions 1..3.  The algorithms of one set of sizes and modes run in
# one job, each on a topology of its own (shift_check --algo A,B: set by
# rtopo_topo_set_shift_algo); the 16 MiB persistent shift sets its one
# algorithm through RTOPO_SHIFT_ALGO.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
start=$(date +%s)
# The cases of one dimension run in one job (shift_check --then): a job's
# start costs a second or more over libfabric.  On dimensions 1..3 the
# job begins with the 16 MiB persistent shift whose one algorithm comes
# through RTOPO_SHIFT_ALGO (the other groups name theirs).
for d in 1 2 3 4; do
    p=$((1 << d))
    big=
    if [ $d -le 3 ]; then
        big="--topo hypercube:$d --algo ecube --sizes 16777216 --q $((p - 1)) --modes persistent --mem unreg
            --then --topo hypercube:$d --algo hypercube,ecube,ring,direct --sizes 16777216
            --q -1,1,$((p / 2)),$((p - 1)),$((p + 3)) --modes blocking --mem reg --then"
    fi
    # shellcheck disable=SC2086
    run $p "$tr" $big --topo hypercube:$d --algo hypercube,ecube,ring,direct \
        --sizes 0,1,4096,8193,70000,1048579 --q all --modes blocking --mem reg \
        --then --topo hypercube:$d --algo hypercube,ecube --sizes 1048579 --q all \
        --modes blocking,nonblocking,persistent --mem reg,unreg \
        --then --topo hypercube:$d --algo ring,direct --sizes 70000 --q all \
        --modes nonblocking,persistent --mem reg,unreg || exit 1
done
echo "shift_cube on $tr: all passed in $(( $(date +%s) - start )) s"
exit 0
