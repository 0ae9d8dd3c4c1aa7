#!/bin/sh
# Completion under MPI: mpi_hang_check under Open MPI's mpirun (rtopo
# bootstraps through PMIx), MPI_Barrier between blocking rtopo_shift
# calls, REPEAT runs (default 20) on 4 ranks, cycling through ring, 2x2
# mesh and 2-cube, 8 bytes and 64 KiB; RTOPO_TIMEOUT_MS=120000 (a hang
# fails after 2 minutes; a busy machine never cuts a run short).  The
# program is built here with MPICC (default mpicc), which needs the MPI
# development files (Debian: libopenmpi-dev).  Skipped when mpirun or
# mpicc cannot be used, or rtopo was built without PMIx.
. "$(dirname "$0")/common.sh"
grep -q '^#define HAVE_PMIX 1' "$top_builddir/config.h" || { echo "built without PMIx: skipped"; exit 77; }
tr=${TRANSPORT:-ofi:rxm}
need_transport "$tr"
repeat=${REPEAT:-20}
budget=${BUDGET:-45}
prog="$top_builddir/tests/integ/mpi_hang_check"
src="$top_srcdir/tests/integ/mpi_hang_check.c"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# waiting MPI ranks yield the CPU instead of spinning on 2 cores
export OMPI_MCA_mpi_yield_when_idle=1

mpi_prog "$prog" "$src"

ms() { echo $(( $(date +%s%N) / 1000000 )); }
pick() { shift $(( $1 % ($# - 1) + 1 )); echo "$1"; }

start=$(ms)
i=0 fails=0 ran=0
while [ "$i" -lt "$repeat" ]; do
    if [ $(( $(ms) - start )) -gt $(( budget * 1000 )) ]; then
        echo "time budget of $budget s used up: stopped after $ran of $repeat runs"
        break
    fi
    topo=$(pick "$i" ring mesh cube)
    bytes=$(pick $(( i / 3 )) 8 65536)
    q=$(pick $(( i / 6 )) 1 3 2 -1)
    t0=$(ms)
    RTOPO_TRANSPORT=$tr RTOPO_TIMEOUT_MS=120000 timeout 300 $mpirun \
        -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS -x OMPI_MCA_mpi_yield_when_idle \
        -n 4 "$prog" "$topo" "$q" "$bytes" >"$out" 2>&1
    rc=$?
    t1=$(ms)
    ran=$(( ran + 1 ))
    i=$(( i + 1 ))
    what="run $i/$repeat: mpirun, $tr, $topo q=$q bytes=$bytes"
    if [ "$rc" -eq 0 ] && grep -q '^ok' "$out"; then
        echo "$what: ok ($(( t1 - t0 )) ms)"
    else
        fails=$(( fails + 1 ))
        echo "$what: FAILED, exit status $rc after $(( t1 - t0 )) ms; its output:"
        sed 's/^/    /' "$out"
    fi
done
echo "$tr under mpirun: $fails of $ran runs of MPI_Barrier + rtopo_shift failed"
[ "$fails" -eq 0 ] && [ "$ran" -gt 0 ]
