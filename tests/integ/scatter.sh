#!/bin/sh
# Windowed scatter from a host to a hypercube (rtopo_scatter), every byte
# checked by scatter_check, on the transport named by $TRANSPORT (default
# ofi:tcp):
#   - 1 host + 1, 2, 4 and 8 nodes (host outside the cube, as rank 0 and
#     as the last rank) and the host on a node (1, 4 and 8 ranks; host 0
#     and host 3), every strategy (seq, binomial, seqscatter and
#     decremental with every x and with the model's x, auto), overlaps 0,
#     1, count/2 and count-1, elements of 3, 8 and 12 bytes, windows of
#     21 B to 12 KiB (the eager limit, set to 8 KiB here on every transport
#     unless RTOPO_EAGER_LIMIT says otherwise, falls between 8192 and 8196),
#     blocking, nonblocking and persistent (started 3 times, new data each
#     time), registered and unregistered (odd address) buffers;
#   - windows of about 1 MiB on 2 and 8 nodes (host outside, and on
#     node 3 and node 0), every strategy, every mode and both kinds of
#     buffers on 2 nodes, a subset of modes, buffers and overlaps on 8.
# About 30 s per transport on an idle 2-core machine.
# Ranks block instead of spinning (RTOPO_SPIN_US=0): up to 9 ranks share
# the machine's cores.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
SC="$top_builddir/tests/integ/scatter_check"
export RTOPO_SPIN_US=${RTOPO_SPIN_US:-0}
export RTOPO_EAGER_LIMIT=${RTOPO_EAGER_LIMIT:-8192}
t_start=$(date +%s)

sc() {
    n=$1; shift
    echo "+ rtopo-run -n $n --transport $tr scatter_check $*"
    timeout 300 "$RUN" -n "$n" --transport "$tr" --quiet "$SC" "$@"
}

small="7x3,100x8,1024x8,683x12"
# n dim host: host outside the cube (n = 2^dim + 1), then on a node
for cfg in "2 0 0" "2 0 1" "3 1 0" "3 1 2" "5 2 0" "5 2 4" "9 3 0" "9 3 8" \
           "1 0 0" "4 2 0" "4 2 3" "8 3 0" "8 3 3"; do
    set -- $cfg
    sc "$1" --dim "$2" --host "$3" --algos all --windows "$small" \
        --overlaps 0,1,half,max --reps 3 --seed "$1$3" || exit 1
done

big1=87382x12    # 1 MiB + 24 B
big2=131072x8    # 1 MiB
sc 3 --dim 1 --host 2 --algos all --windows "$big1,$big2" --overlaps 0,half,max \
    --reps 2 || exit 1
sc 9 --dim 3 --host 8 --algos all --windows "$big1" --overlaps 0,1,half,max \
    --modes blocking,persistent --mem reg --reps 2 || exit 1
sc 9 --dim 3 --host 0 --algos all --windows "$big2" --overlaps 0,max \
    --modes nonblocking --mem unreg || exit 1
sc 8 --dim 3 --host 3 --algos all --windows "$big2" --overlaps 0,1,max \
    --modes blocking,persistent --mem unreg --reps 2 || exit 1
sc 8 --dim 3 --host 0 --algos all --windows "$big1" --overlaps half \
    --modes nonblocking --mem reg || exit 1
echo "scatter over $tr: all cases correct in $(( $(date +%s) - t_start )) s"
exit 0
