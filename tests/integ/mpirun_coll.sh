#!/bin/sh
# rtopo's collectives in a user's MPI program: mpi_coll_check under Open
# MPI's mpirun on 16 ranks, an OTIS-mesh n=4, rtopo bootstrapped over an
# allgather on MPI_COMM_WORLD; rtopo_bcast, rtopo_allreduce and rtopo_scan
# (every algorithm; every datatype with every operator, counts 1, 7 and
# 100000) with an MPI_Barrier between operations, each result compared
# byte for byte with MPI_Bcast / MPI_Allreduce / MPI_Scan on the same
# data.  When rtopo was built with PMIx, once more bootstrapped from the
# launcher (rtopo_init(NULL)), counts 1 and 7.  The program is built here
# with MPICC (default mpicc), which needs the MPI development files
# (Debian: libopenmpi-dev).  Skipped when mpirun or mpicc cannot be used.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
prog="$top_builddir/tests/integ/mpi_coll_check"
src="$top_srcdir/tests/integ/mpi_coll_check.c"
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
    echo "+ RTOPO_TRANSPORT=$tr mpirun -n $n mpi_coll_check $*"
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

mpi 16 --boot allgather --algos auto,topo,generic --counts 1,7,100000
if grep -q '^#define HAVE_PMIX 1' "$top_builddir/config.h"; then
    mpi 16 --boot pmix --algos auto --counts 1,7
else
    echo "built without PMIx: the launcher's bootstrap not tried"
fi
[ "$fails" -eq 0 ]
