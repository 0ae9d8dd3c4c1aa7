#!/bin/sh
# Many nonblocking shifts in flight at once on two topologies (different
# q, sizes across the eager, rendezvous and multi-chunk paths, some
# receive buffers registered), waited for in reverse order or taken as
# rtopo_test reports them done; each source is overwritten as soon as its
# shift is done.  With --lag the last rank starts each round late, so
# that the others' messages to it pile up while their own shifts end.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
sizes=0,1,5000,9000,70000,1048579
run 3 "$tr" --topo ring --concurrent 12 --reps 10 --sizes $sizes || exit 1
run 5 "$tr" --topo ring --concurrent 16 --reps 5 --sizes $sizes || exit 1
run 3 "$tr" --topo ring --concurrent 256 --reps 2 --lag 200 --sizes 1,5000,65000,70000 || exit 1
run 3 "$tr" --topo ring --concurrent 256 --reps 2 --lag 200 --sizes 1,5000,65000,70000 \
    --inplace || exit 1
RTOPO_SHIFT_ALGO=mesh run 6 "$tr" --topo mesh:2x3 --concurrent 12 --reps 5 --sizes $sizes || exit 1
RTOPO_SHIFT_ALGO=hypercube run 8 "$tr" --topo hypercube:3 --concurrent 12 --reps 5 --sizes 1,9000,300000 || exit 1
RTOPO_SHIFT_ALGO=ecube run 8 "$tr" --topo hypercube:3 --concurrent 12 --reps 5 --sizes 1,9000,300000 || exit 1
exit 0
