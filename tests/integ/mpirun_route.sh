#!/bin/sh
# rtopo's selection ranks and OTIS-mesh routing in a user's MPI program:
# mpi_route_check under Open MPI's mpirun on 16 ranks, an OTIS-mesh n=4,
# rtopo bootstrapped over an allgather on MPI_COMM_WORLD; rtopo_select_rank,
# rtopo_concentrate, rtopo_distribute and rtopo_generalize (blocking,
# nonblocking and persistent; records of 1, 13, 48 and 65536 bytes; rounds
# with no rank, every rank, about half, a fifth or one rank selected or
# sending), an MPI_Barrier around each operation, each result compared
# with what MPI computes: MPI_Exscan for the ranks, MPI_Allgather of the
# flags, destinations and records for the routing.  When rtopo was built
# with PMIx, once more bootstrapped from the launcher (rtopo_init(NULL)),
# blocking and persistent, records of 1 and 48 bytes.  The program is
# built here with MPICC (default mpicc), which needs the MPI development
# files (Debian: libopenmpi-dev).  Skipped when mpirun or mpicc cannot be
# used.
. "$(dirname "$0")/common.sh"
command -v mpirun >/dev/null 2>&1 || { echo "no mpirun: skipped"; exit 77; }
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
MPICC=${MPICC:-mpicc}
prog="$top_builddir/tests/integ/mpi_route_check"
src="$top_srcdir/tests/integ/mpi_route_check.c"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
mpirun="mpirun --allow-run-as-root --oversubscribe"
# waiting MPI ranks yield the CPU instead of spinning on 2 cores
export OMPI_MCA_mpi_yield_when_idle=1 RTOPO_SPIN_US=${RTOPO_SPIN_US:-0}

command -v "$MPICC" >/dev/null 2>&1 || { echo "no $MPICC: skipped"; exit 77; }
if ! "$top_builddir/libtool" --quiet --mode=link --tag=CC "$MPICC" -g -O1 \
        -I"$top_srcdir/include" -I"$top_srcdir/tests/integ" -o "$prog" "$src" \
        "$top_builddir/librtopo.la" >"$out" 2>&1; then
    cat "$out"
    echo "cannot build an MPI program with $MPICC (Debian: install libopenmpi-dev): skipped"
    exit 77
fi
if ! timeout 60 $mpirun -n 1 /bin/true >"$out" 2>&1; then
    cat "$out"
    echo "mpirun cannot start a job here: skipped"
    exit 77
fi

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

mpi 16 --boot allgather --modes blocking,nonblocking,persistent --recsizes 1,13,48,65536
if grep -q '^#define HAVE_PMIX 1' "$top_builddir/config.h"; then
    mpi 16 --boot pmix --modes blocking,persistent --recsizes 1,48
else
    echo "built without PMIx: the launcher's bootstrap not tried"
fi
[ "$fails" -eq 0 ]
