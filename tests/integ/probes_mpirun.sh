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
# and every rank printed one verdict, pass (common.sh, verdict_case).
# Skipped when mpirun or MPICC cannot be used (Debian: libopenmpi-dev).
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
prog="$top_builddir/tests/integ/probe_mpi"
src="$top_srcdir/tests/integ/probe_check.c"
export OMPI_MCA_mpi_yield_when_idle=1 RTOPO_SPIN_US=${RTOPO_SPIN_US:-0}
export RTOPO_TIMEOUT_MS=600000 RTOPO_TRANSPORT="$tr"

mpi_prog "$prog" "$src" -DPROBE_MPI

fails=0 summary=
for c in ${CASES:-fill-disp sub-keep persist-kind}; do
    verdict_case "$c (mpirun, $tr)" 16 0 150 \
        $mpirun -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS -x RTOPO_SPIN_US \
        -x OMPI_MCA_mpi_yield_when_idle -n 16 "$prog" "$c"
done
verdict_end
