#!/bin/sh
# Dimension shifts, sub-topologies and Cannon's algorithm on verbs (RoCE,
# InfiniBand, soft-RoCE), 4 and 9 ranks: the jobs of cart.sh of those
# sizes, every byte checked by cart_check.  RANKS picks the job sizes
# ("4 9" by default; the soft-RoCE suite runs each in its own step).
# Skipped without a usable verbs device.
. "$(dirname "$0")/common.sh"
tr=verbs
need_transport "$tr"
CART="$top_builddir/tests/integ/cart_check"
start=$(date +%s)

cart() {
    n=$1; shift
    echo "+ rtopo-run -n $n --transport $tr cart_check $*"
    timeout 300 "$RUN" -n "$n" --transport "$tr" --quiet "$CART" "$@" || exit 1
}

for n in ${RANKS:-4 9}; do
    case $n in
    4)
        cart 4 --topo mesh:2x2 --sizes 0,1,8193,1048579 --disps all --rules --inplace \
            --modes blocking,nonblocking,persistent --mem reg,unreg
        cart 4 --topo hypercube:2 --sizes 1,70000 --disps all --rules --inplace \
            --modes blocking,persistent --mem reg,unreg
        cart 4 --topo ring --sizes 1,300000 --disps all --inplace --modes blocking --mem reg
        cart 4 --topo mesh:2x2 --sub
        cart 4 --topo hypercube:2 --sub
        cart 4 --cannon 96 --modes blocking --mem reg,unreg
        cart 4 --cannon 200 --modes persistent --mem reg
        ;;
    9)
        # more ranks than cores: block in the transport at once
        RTOPO_SPIN_US=0; export RTOPO_SPIN_US
        cart 9 --topo mesh:3x3 --sizes 1,70000 --disps all --rules --inplace \
            --modes blocking,persistent --mem reg,unreg
        cart 9 --topo mesh:3x3 --sizes 1048579 --disps -1,1,2 --rules --inplace --modes blocking
        cart 9 --topo mesh:3x3 --sub
        cart 9 --cannon 96 --modes blocking --mem reg,unreg
        cart 9 --cannon 200 --modes persistent --mem reg
        ;;
    *)
        echo "cart_verbs: RANKS: 4 or 9, not $n"
        exit 99
        ;;
    esac
done
echo "cart on $tr (${RANKS:-4 9} ranks): all passed in $(( $(date +%s) - start )) s"
exit 0
