#!/bin/sh
# Probes of the contract (probe_check, see probes.sh) in a user's MPI
# program: probe_check built with MPICC (default mpicc) and -DPROBE_MPI,
# rtopo bootstrapped over an allgather on MPI_COMM_WORLD, 16 ranks under
# Open MPI's mpirun over TRANSPORT (default ofi:tcp).  Cases (CASES
# overrides): fill-disp (a displacement that differs on one rank:
# RTOPO_ERR_MISMATCH on every rank whose part was not complete, right data
# on the others, RTOPO_ERR_MISMATCH from every rtopo_finalize), sub-keep
# (rtopo_topo_sub with another keep on one rank: RTOPO_ERR_MISMATCH, no
# hang), persist-kind (two persistent kinds started in one slot).  Each job
# runs with RTOPO_TIMEOUT_MS=600000 and is cut off at 150 s, so an error
# that came by the timeout shows as a hang.  Passes when mpirun exits 0
# and every rank printed one verdict, pass.  Skipped when mpirun or MPICC
# cannot be used (Debian: libopenmpi-dev).
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
prog="$top_builddir/tests/integ/probe_mpi"
src="$top_srcdir/tests/integ/probe_check.c"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
export OMPI_MCA_mpi_yield_when_idle=1 RTOPO_SPIN_US=${RTOPO_SPIN_US:-0}
export RTOPO_TIMEOUT_MS=600000 RTOPO_TRANSPORT="$tr"

mpi_prog "$prog" "$src" -DPROBE_MPI

fails=0
for c in ${CASES:-fill-disp sub-keep persist-kind}; do
    echo "+ RTOPO_TRANSPORT=$tr mpirun -n 16 probe_mpi $c"
    timeout 150 $mpirun -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS -x RTOPO_SPIN_US \
        -x OMPI_MCA_mpi_yield_when_idle -n 16 "$prog" "$c" >"$out" 2>&1
    rc=$?
    sed 's/^/    /' "$out"
    why=""
    [ "$rc" -eq 0 ] || why="$why; exit status $rc"
    r=0
    while [ "$r" -lt 16 ]; do
        nv=$(grep -c "\[$r\] rank $r: verdict: " "$out")
        np=$(grep -c "\[$r\] rank $r: verdict: pass" "$out")
        [ "$nv" -eq 1 ] && [ "$np" -eq 1 ] ||
            why="$why; rank $r: $nv verdict line(s), $np pass"
        r=$((r + 1))
    done
    if [ -n "$why" ]; then
        fails=$((fails + 1))
        echo "   => $c: FAILED$why"
    else
        echo "   => $c: ok"
    fi
done
echo "$fails case(s) failed"
[ "$fails" -eq 0 ]
