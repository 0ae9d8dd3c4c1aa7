#!/bin/sh
# rtopo's selection ranks, OTIS-mesh routing, BPC permutations and sort in
# a user's MPI program: mpi_route_check under Open MPI's mpirun on 16
# ranks, an OTIS-mesh n=4, rtopo bootstrapped over an allgather on
# MPI_COMM_WORLD.  rtopo_select_rank, rtopo_concentrate, rtopo_distribute,
# rtopo_generalize, rtopo_random_write and rtopo_random_read (blocking,
# nonblocking and persistent; records of 1, 13, 48 and 65536 bytes;
# rounds with no rank, every rank, about half, a fifth or one rank
# selected or sending; random targets of the writes and reads, with
# several writers to one rank, many readers of one record, and ranks that
# pass -1), compared with what MPI computes: MPI_Exscan for the ranks,
# MPI_Allgather of the flags, destinations, targets and records for the
# routing.  rtopo_bpc ("[-0, 1, 2, -3]",
# transpose, reversal, shuffle and a random signed vector; 1, 4096 and
# 100000 bytes; the three forms), compared with MPI_Sendrecv between the
# ranks rtopo_bpc_dest pairs, and rtopo_bpc_dest with the bits as
# rtopo_bpc(3) defines them.  rtopo_sort (1, 7 and 500 records of 24
# bytes per rank; int64 keys with many duplicates, double keys with NaN,
# +-inf and -0.0; ascending and descending; the auto, column and
# merge-split algorithms; the three forms, half of the runs in place),
# compared with qsort of MPI_Allgather of every record in the documented
# order.  An MPI_Barrier around each operation.  Then the BPC
# permutations and the sort on 8 ranks in a hypercube (bitonic
# merge-split, transpose refused for 2^3 ranks) and the sort on 6 ranks in
# a ring (odd-even transposition; rtopo_bpc refused, 6 not being a power
# of two).  When rtopo was built with PMIx, once more on 16 ranks
# bootstrapped from the launcher (rtopo_init(NULL)), blocking and
# persistent, records of 1 and 48 bytes, 4096-byte permutations, 7
# records per rank to sort.  The program is built here with MPICC
# (default mpicc), which needs the MPI development files (Debian:
# libopenmpi-dev).  Skipped when mpirun or mpicc cannot be used.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
prog="$top_builddir/tests/integ/mpi_route_check"
src="$top_srcdir/tests/integ/mpi_route_check.c"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# waiting MPI ranks yield the CPU instead of spinning on 2 cores
export OMPI_MCA_mpi_yield_when_idle=1 RTOPO_SPIN_US=${RTOPO_SPIN_US:-0}

mpi_prog "$prog" "$src"

fails=0
# mpi N ARGS...
mpi() {
    n=$1; shift
    t0=$(date +%s)
    echo "+ RTOPO_TRANSPORT=$tr mpirun -n $n mpi_route_check $*"
    RTOPO_TRANSPORT=$tr timeout 300 $mpirun -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS \
        -x RTOPO_SPIN_US -x OMPI_MCA_mpi_yield_when_idle -n "$n" "$prog" "$@" >"$out" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ] && grep -q '^ok' "$out"; then
        grep '^ok' "$out"
        echo "  ($(( $(date +%s) - t0 )) s)"
    else
        fails=$(( fails + 1 ))
        sed 's/^/    /' "$out"
        echo "FAILED: exit status $rc after $(( $(date +%s) - t0 )) s"
        echo "reproduce: RTOPO_TRANSPORT=$tr RTOPO_SPIN_US=0 OMPI_MCA_mpi_yield_when_idle=1" \
            "$mpirun -x RTOPO_TRANSPORT -x RTOPO_SPIN_US -x OMPI_MCA_mpi_yield_when_idle" \
            "-n $n $prog $*"
    fi
}

modes=blocking,nonblocking,persistent
mpi 16 --boot allgather --ops route,bpc,sort --modes $modes --recsizes 1,13,48,65536 \
    --bpc-sizes 1,4096,100000 --sort-counts 1,7,500
mpi 8 --boot allgather --topo hypercube --ops bpc,sort --modes $modes \
    --bpc-sizes 1,4096,100000 --sort-counts 1,7,500
mpi 6 --boot allgather --topo ring --ops bpc,sort --modes $modes --sort-counts 1,7,500
if grep -q '^#define HAVE_PMIX 1' "$top_builddir/config.h"; then
    mpi 16 --boot pmix --ops route,bpc,sort --modes blocking,persistent --recsizes 1,48 \
        --bpc-sizes 4096 --sort-counts 7
else
    echo "built without PMIx: the launcher's bootstrap not tried"
fi
[ "$fails" -eq 0 ]
