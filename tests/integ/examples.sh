#!/bin/sh
# The programs of examples/ run as their header comments show, each
# checking its own results (a wrong result exits non-zero): the shifts on
# a ring (rtopo's shm, and ofi:tcp), mesh and hypercube, Cannon's
# multiplication, the FIR filter's scatter, and on 16 ranks the OTIS
# prefix sums, routing and sort, the OTIS-mesh placed by host, and the
# OTIS-hypercube's accumulation, adjacent and consecutive sums (also over
# ofi:tcp, and built with mpicc -DRTOPO_EXAMPLE_MPI under Open MPI's
# mpirun, bootstrapped over MPI_Allgather, when mpicc and mpirun work).
. "$(dirname "$0")/common.sh"
EX="$top_builddir/examples"
fails=0
ex() {  # N TRANSPORT PROGRAM
    n=$1; t=$2; shift 2
    start=$(date +%s)
    if timeout 300 "$RUN" -n "$n" --transport "$t" --quiet "$EX/$1" >"$out" 2>&1; then
        echo "ok   -n $n $t $1 ($(( $(date +%s) - start )) s)"
    else
        cat "$out"; echo "FAIL -n $n $t $1"; fails=$((fails + 1))
    fi
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
ex 4 auto ring_shift
if "$INFO" --check ofi:tcp >/dev/null 2>&1; then ex 2 ofi:tcp ring_shift; fi
ex 4 auto mesh_shift
ex 4 auto hypercube_shift
ex 4 auto cannon
ex 5 auto fir_filter
ex 16 auto otis_prefix
ex 16 auto otis_route
ex 16 auto otis_sort
ex 16 auto place_demo
ex 16 auto otis_hypercube_sums
if "$INFO" --check ofi:tcp >/dev/null 2>&1; then ex 16 ofi:tcp otis_hypercube_sums; fi

# the MPI form: an MPI_Barrier between operations; waiting ranks, MPI's
# and rtopo's, sleep instead of spinning on a machine of few cores
MPICC=${MPICC:-mpicc}
mpiprog="$EX/otis_hypercube_sums_mpi"
if ! command -v mpirun >/dev/null 2>&1 || ! command -v "$MPICC" >/dev/null 2>&1; then
    echo "skip otis_hypercube_sums under mpirun: no mpirun or $MPICC"
elif ! "$top_builddir/libtool" --quiet --mode=link --tag=CC "$MPICC" -O1 \
        -DRTOPO_EXAMPLE_MPI -I"$top_srcdir/include" -o "$mpiprog" \
        "$top_srcdir/examples/otis_hypercube_sums.c" "$top_builddir/librtopo.la" >"$out" 2>&1; then
    cat "$out"; echo "skip otis_hypercube_sums under mpirun: cannot build with $MPICC"
elif ! timeout 60 mpirun --allow-run-as-root -n 1 /bin/true >"$out" 2>&1; then
    cat "$out"; echo "skip otis_hypercube_sums under mpirun: mpirun cannot start a job here"
else
    start=$(date +%s)
    if OMPI_MCA_mpi_yield_when_idle=1 RTOPO_SPIN_US=0 timeout 300 \
            mpirun --allow-run-as-root --oversubscribe -x RTOPO_TIMEOUT_MS \
            -x RTOPO_SPIN_US -x OMPI_MCA_mpi_yield_when_idle -n 16 "$mpiprog" \
            >"$out" 2>&1 && grep -q '^otis_hypercube_sums: OK' "$out"; then
        echo "ok   mpirun -n 16 otis_hypercube_sums_mpi ($(( $(date +%s) - start )) s)"
    else
        cat "$out"; echo "FAIL mpirun -n 16 otis_hypercube_sums_mpi"; fails=$((fails + 1))
    fi
fi
[ $fails = 0 ]
