#!/bin/sh
# rtopo-bench-mpi alltoall under Open MPI's mpirun: 4 ranks on a ring,
# blocks of 8 bytes and 4 KiB, blocking and persistent on registered
# buffers, the shifts routed along the ring (--algo ring), over TRANSPORT
# (default shm).  The benchmark checks every byte of every column's
# result itself (a wrong one aborts the job); here: both tables with both
# sizes and positive times, the traffic of the p - 1 shifts (q = 1 and 3
# one hop, q = 2 two: 16 link hops over the 4 ranks, 4 blocks per rank
# where MPI_Alltoall sends 3), the header, the JSON and, when gnuplot is
# there, the --plot file (a PNG).  Then --q, which the all-to-all does
# not take: usage error, status 2.  Last the scatter on 3 ranks (the host
# outside a 1-cube) with --plot: a PNG too.  Never the times.
# Skipped when rtopo-bench-mpi was not built or mpirun cannot start a job.
. "$(dirname "$0")/common.sh"
BENCH="$top_builddir/tools/rtopo-bench-mpi"
[ -x "$BENCH" ] || { echo "rtopo-bench-mpi was not built (configure found no MPI): skipped"; exit 77; }
command -v mpirun >/dev/null 2>&1 || { echo "no mpirun: skipped"; exit 77; }
tr=${TRANSPORT:-shm}
need_transport "$tr"
out=$(mktemp)
json=$(mktemp)
png=$(mktemp)
trap 'rm -f "$out" "$json" "$png"' EXIT
# the PNG signature, when gnuplot is there to draw one
plot_ok() {
    command -v gnuplot >/dev/null 2>&1 || return 0
    [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]
}
mpirun="mpirun --allow-run-as-root --oversubscribe"
if ! timeout 60 $mpirun -n 1 /bin/true >"$out" 2>&1; then
    cat "$out"
    echo "mpirun cannot start a job here: skipped"
    exit 77
fi

echo "+ RTOPO_TRANSPORT=$tr mpirun -n 4 rtopo-bench-mpi alltoall --algo ring --sizes 8,4096 --iters 2 --block 2 --warmup 1 --buffers registered --json FILE"
RTOPO_TRANSPORT=$tr RTOPO_SPIN_US=0 timeout 300 $mpirun --mca mpi_yield_when_idle 1 \
    -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS -x RTOPO_SPIN_US -n 4 \
    "$BENCH" alltoall --algo ring --sizes 8,4096 --iters 2 --block 2 --warmup 1 \
    --buffers registered --json "$json" --plot "$png" >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" -ne 0 ]; then
    echo "bench_mpi_a2a: rtopo-bench-mpi alltoall exited with status $rc"
    exit 1
fi
# each row: bytes, rtopo med, rtopo min, MPI med, MPI min, MPI/rtopo,
# steps, moves, blk/rank
awk '
    /^# rtopo = blocking: p-1 rtopo_shift one after another/ { tables++; next }
    /^# rtopo = persistent: p-1 rtopo_shift_init once per size/ { tables++; next }
    /^#/ && /rtopo med/ && /MPI med/ && /steps/ && /moves/ && /blk\/rank/ { headers++; next }
    /^#/ || NF == 0 || /^rtopo-bench-mpi: plot written to / { next }
    {
        if (NF != 9) { print "bench_mpi_a2a: not 9 fields: " $0; bad = 1; next }
        for (i = 2; i <= 7; i++)
            if (!($i + 0 > 0)) { print "bench_mpi_a2a: field " i " is not a positive number: " $0; bad = 1 }
        if ($8 != 16 || $9 != "4.000") { print "bench_mpi_a2a: moves " $8 ", blocks per rank " $9 ", expected 16, 4.000"; bad = 1 }
        if ($1 == 8) got8++
        else if ($1 == 4096) got4k++
        else { print "bench_mpi_a2a: unexpected size: " $0; bad = 1 }
    }
    END {
        if (tables != 2 || headers != 2) { print "bench_mpi_a2a: " tables + 0 " tables, " headers + 0 " headers, expected 2"; bad = 1 }
        if (got8 != 2 || got4k != 2) { print "bench_mpi_a2a: rows for 8 and 4096 bytes: " got8 + 0 ", " got4k + 0 " of 2"; bad = 1 }
        exit bad
    }' "$out" || exit 1
grep -q '^# MPI   = MPI_Alltoall of bytes MPI_BYTE per block' "$out" ||
    { echo "bench_mpi_a2a: the header does not say what the MPI column is"; exit 1; }
for key in '"op":"alltoall"' '"shift_algo":"ring"' '"bytes":4096,"bytes_per_rank":16384,' \
           '"link_moves":16,' '"blocks_per_rank":4.0000,' '"ratio_mpi_over_rtopo":'; do
    grep -qF "$key" "$json" || { echo "bench_mpi_a2a: $key missing from the --json file:"; cat "$json"; exit 1; }
done

plot_ok || { echo "bench_mpi_a2a: alltoall --plot wrote no PNG"; exit 1; }

echo "+ mpirun -n 1 rtopo-bench-mpi alltoall --q 1 (usage error)"
timeout 60 $mpirun -n 1 "$BENCH" alltoall --q 1 >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" -eq 2 ] || { echo "bench_mpi_a2a: --q: status $rc, expected 2"; exit 1; }
grep -q 'alltoall takes no --q' "$out" || { echo "bench_mpi_a2a: --q: no usage message"; exit 1; }

echo "+ RTOPO_TRANSPORT=$tr mpirun -n 3 rtopo-bench-mpi scatter --sizes 64 --iters 2 --block 2 --warmup 1 --plot FILE"
: >"$png"
RTOPO_TRANSPORT=$tr RTOPO_SPIN_US=0 timeout 300 $mpirun --mca mpi_yield_when_idle 1 \
    -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS -x RTOPO_SPIN_US -n 3 \
    "$BENCH" scatter --sizes 64 --iters 2 --block 2 --warmup 1 --plot "$png" >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" -eq 0 ] || { echo "bench_mpi_a2a: scatter exited with status $rc"; exit 1; }
grep -q '^  MPI scatterv+halo ' "$out" || { echo "bench_mpi_a2a: scatter: no MPI scatterv+halo row"; exit 1; }
plot_ok || { echo "bench_mpi_a2a: scatter --plot wrote no PNG"; exit 1; }
echo "bench_mpi_a2a: p-1 rtopo shifts and MPI_Alltoall measured over $tr, plots drawn"
