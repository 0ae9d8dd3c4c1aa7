#!/bin/sh
# rtopo-bench-mpi under Open MPI's mpirun: 2 ranks, 8 bytes and 64 KiB,
# 20 iterations (two alternating blocks), over TRANSPORT (default
# ofi:tcp).  Every rtopo table has both sizes, with positive rtopo and
# MPI times and ratio; --json writes the same sizes.  Skipped when
# rtopo-bench-mpi was not built (configure found no MPI) or mpirun cannot
# start a job here.
. "$(dirname "$0")/common.sh"
BENCH="$top_builddir/tools/rtopo-bench-mpi"
[ -x "$BENCH" ] || { echo "rtopo-bench-mpi was not built (configure found no MPI): skipped"; exit 77; }
command -v mpirun >/dev/null 2>&1 || { echo "no mpirun: skipped"; exit 77; }
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
out=$(mktemp)
json=$(mktemp)
trap 'rm -f "$out" "$json"' EXIT
mpirun="mpirun --allow-run-as-root --oversubscribe"
if ! timeout 60 $mpirun -n 1 /bin/true >"$out" 2>&1; then
    cat "$out"
    echo "mpirun cannot start a job here: skipped"
    exit 77
fi

echo "+ RTOPO_TRANSPORT=$tr mpirun -n 2 rtopo-bench-mpi --sizes 8,65536 --iters 20 --json FILE"
RTOPO_TRANSPORT=$tr timeout 120 $mpirun -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS -n 2 \
    "$BENCH" --sizes 8,65536 --iters 20 --json "$json" >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" -ne 0 ]; then
    echo "bench_mpi: rtopo-bench-mpi exited with status $rc"
    exit 1
fi

# tables: a "# rtopo = ..." line, the column header, then one row per size:
# bytes, rtopo median, rtopo min, MPI median, MPI min, MPI/rtopo, ...
awk '
    /^# rtopo = / { tables++; rows = 0; next }
    /^#/ && /rtopo med/ && /MPI med/ && /MPI\/rtopo/ { headers++; next }
    /^#/ || NF == 0 { next }
    {
        if (NF < 6) { print "bench_mpi: short row: " $0; bad = 1; next }
        for (i = 2; i <= 6; i++)
            if (!($i + 0 > 0)) { print "bench_mpi: field " i " is not a positive number: " $0; bad = 1 }
        if ($1 == 8) got8++
        else if ($1 == 65536) got64k++
        else { print "bench_mpi: unexpected size: " $0; bad = 1 }
    }
    END {
        if (tables != 4) { print "bench_mpi: " tables + 0 " rtopo tables, expected 4"; bad = 1 }
        if (headers != tables) { print "bench_mpi: " headers + 0 " column headers for " tables + 0 " tables"; bad = 1 }
        if (got8 != tables || got64k != tables) { print "bench_mpi: rows for 8 and 65536 bytes: " got8 + 0 ", " got64k + 0 " of " tables + 0; bad = 1 }
        exit bad
    }' "$out" || exit 1
grep -q '^# MPI   = MPI_Sendrecv' "$out" || { echo "bench_mpi: the header does not say what the MPI column is"; exit 1; }

for key in '"bytes":8,' '"bytes":65536,' '"mpi":{"median_us":' '"ratio_mpi_over_rtopo":'; do
    grep -qF "$key" "$json" || { echo "bench_mpi: $key missing from the --json file:"; cat "$json"; exit 1; }
done
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["results"]) == 2' "$json" ||
        { echo "bench_mpi: the --json file is not the expected JSON"; exit 1; }
fi
echo "bench_mpi: rtopo and MPI columns measured over $tr"
