#!/bin/sh
# Ring shift for every q in -(p+1)..2p+1 on p = 1,2,3,4,5,8, every size,
# registered and unregistered buffers, blocking, nonblocking and
# persistent; on the transport named by $TRANSPORT (default ofi:tcp).
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
for p in 1 2 3 4 5 8; do
    run $p "$tr" --topo ring --sizes 0,1,4095,4096,1048579 --q all || exit 1
    # 16 MiB: every q for one mode, the other modes on a subset
    run $p "$tr" --topo ring --sizes 16777216 --q all --modes blocking --mem reg || exit 1
    run $p "$tr" --topo ring --sizes 16777216 --q -1,1,$p,$((p + 1)),$((p / 2)) \
        --modes nonblocking,persistent --mem reg,unreg || exit 1
done
for a in ring direct; do
    run 5 "$tr" --topo ring --algo $a --sizes 1,70000 --q all || exit 1
done
run 4 "$tr" --topo ring --sizes 1,100000 --q 1,2 --inplace --modes blocking || exit 1
exit 0
