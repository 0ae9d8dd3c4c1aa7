#!/bin/sh
# Dimension shifts, sub-topologies and Cannon's algorithm on 4, 9 and 16
# ranks, on the transport named by $TRANSPORT (default ofi:tcp); every
# byte checked by cart_check.  4 ranks: 2x2 mesh, 2-cube and ring, every
# displacement in -(E+1)..2E+1, the rules a*line+b, in place, sizes across
# the eager limit and the in-place piece size, blocking, nonblocking and
# persistent, registered and unregistered buffers.  9 and 16 ranks: 3x3
# and 4x4 meshes, 4-cube, OTIS-mesh and OTIS-hypercube of 16, on fewer
# sizes.  Sub-topologies (rows, columns, sub-cubes; on the OTIS ones,
# pieces whose links are new connections, wired up inside the piece) on
# each size, and
# Cannon blocking and persistent, in place.  Jobs of 9 and 16 ranks block
# in the transport at once (RTOPO_SPIN_US=0): two cores, no busy waiting.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
CART="$top_builddir/tests/integ/cart_check"
start=$(date +%s)

cart() {
    n=$1; shift
    echo "+ rtopo-run -n $n --transport $tr cart_check $*"
    timeout 300 "$RUN" -n "$n" --transport "$tr" --quiet "$CART" "$@" || exit 1
}

cart 4 --topo mesh:2x2 --sizes 0,1,8193,1048579 --disps all --rules --inplace \
    --modes blocking,nonblocking,persistent --mem reg,unreg
cart 4 --topo hypercube:2 --sizes 1,70000 --disps all --rules --inplace \
    --modes blocking,persistent --mem reg,unreg
cart 4 --topo ring --sizes 1,300000 --disps all --inplace --modes blocking --mem reg
cart 4 --topo mesh:2x2 --sub
cart 4 --topo hypercube:2 --sub
cart 4 --cannon 96 --modes blocking --mem reg,unreg
cart 4 --cannon 200 --modes persistent --mem reg

export RTOPO_SPIN_US=0
cart 9 --topo mesh:3x3 --sizes 1,70000 --disps all --rules --inplace \
    --modes blocking,persistent --mem reg,unreg
cart 9 --topo mesh:3x3 --sizes 1048579 --disps -1,1,2 --rules --inplace --modes blocking
cart 9 --topo mesh:3x3 --sub
cart 9 --cannon 96 --modes blocking --mem reg,unreg
cart 9 --cannon 200 --modes persistent --mem reg

cart 16 --topo mesh:4x4 --sizes 1,300000 --disps -1,1,2,3 --rules --inplace \
    --modes blocking --mem reg
cart 16 --topo hypercube:4 --sizes 1,70000 --disps 0,1,-1 --rules --inplace --modes blocking
cart 16 --topo otis-mesh:4 --sizes 1,70000 --disps 1,-1 --modes blocking
cart 16 --topo otis-hypercube:4 --sizes 1,70000 --disps 1,3 --modes blocking
cart 16 --topo mesh:4x4 --sub
cart 16 --topo hypercube:4 --sub
cart 16 --topo otis-mesh:4 --sub
cart 16 --topo otis-hypercube:4 --sub
cart 16 --cannon 64 --modes blocking,persistent --mem reg
echo "cart on $tr: all passed in $(( $(date +%s) - start )) s"
exit 0
