#!/bin/sh
# The Fortran programs under Open MPI's mpirun, without rtopo-run: the
# examples bootstrap rtopo through PMIx (Cannon on 4 and 9 ranks, the FIR
# filter on 5), and mpi_f08_check uses mpi_f08 and rtopo_f08 in one
# program, rtopo bootstrapping through an allgather over MPI_COMM_WORLD,
# and compares rtopo's collectives with MPI's.  Skipped without mpirun
# (the PMIx runs also without PMIx).
. "$top_srcdir/tests/fortran/common_f.sh"
command -v mpirun >/dev/null 2>&1 || { echo "no mpirun: skipped"; exit 77; }
mpirun="mpirun --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1 -x RTOPO_SPIN_US -x RTOPO_TIMEOUT_MS"
ran=0
if grep -q '^#define HAVE_PMIX 1' "$top_builddir/config.h"; then
    for n in 4 9; do
        timeout 300 $mpirun -n "$n" "$EX/cannon_f" >"$out" 2>&1
        check "mpirun -n $n cannon_f" "$n" ': C block correct after' $?
    done
    timeout 300 $mpirun -n 5 "$EX/fir_filter_f" 1000 17 >"$out" 2>&1
    check "mpirun -n 5 fir_filter_f" 1 '^fir_filter_f: OK' $?
    ran=1
fi
chk=$top_builddir/tests/fortran/mpi_f08_check
if [ -x "$chk" ]; then
    for n in 2 4; do
        timeout 300 $mpirun -n "$n" "$chk" >"$out" 2>&1
        check "mpirun -n $n mpi_f08_check" 1 '^mpi_f08_check: OK' $?
    done
    ran=1
fi
[ $ran = 1 ] || { echo "neither PMIx nor mpi_f08: skipped"; exit 77; }
[ $fails = 0 ]
