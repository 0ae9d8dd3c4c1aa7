#!/bin/sh
# Ring shift for every q in -(p+1)..2p+1 on p = 1,2,3,4,5,8, every size,
# registered and unregistered buffers, blocking, nonblocking and
# persistent; on the transport named by $TRANSPORT (default ofi:tcp).
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
# The cases of one p run in one job (shift_check --then): a job's start
# costs a second or more over libfabric.
for p in 1 2 3 4 5 8; do
    # in place on 4 ranks
    inplace=
    [ $p = 4 ] && inplace="--then --topo ring --sizes 1,100000 --q 1,2 --inplace --modes blocking"
    # 16 MiB: every q for one mode, the other modes on a subset
    # shellcheck disable=SC2086
    run $p "$tr" --topo ring --sizes 0,1,4095,4096,1048579 --q all \
        --then --topo ring --sizes 16777216 --q all --modes blocking --mem reg \
        --then --topo ring --sizes 16777216 --q -1,1,$p,$((p + 1)),$((p / 2)) \
        --modes nonblocking,persistent --mem reg,unreg $inplace || exit 1
done
# each algorithm set through RTOPO_SHIFT_ALGO, a job each
for a in ring direct; do
    run 5 "$tr" --topo ring --algo $a --sizes 1,70000 --q all || exit 1
done
exit 0
