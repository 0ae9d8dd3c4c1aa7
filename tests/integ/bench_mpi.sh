#!/bin/sh
# rtopo-bench-mpi under Open MPI's mpirun: 2 ranks, 8 bytes and 64 KiB,
# 20 iterations (two alternating blocks), over TRANSPORT (default
# ofi:tcp).  Every rtopo table has both sizes, with positive rtopo, MPI,
# raw and fabric times and ratios (the fabric column on the provider
# TRANSPORT names, opened directly); --json writes the same sizes.  Then
# the fabric column on libfabric's shm provider (--fabric shm), its
# absence with --no-fabric, and a provider that does not exist, which
# leaves the column out with one header line and no failure.  Then the scatter:
# 5 ranks (host outside a 2-cube), every strategy against MPI_Scatterv +
# halo exchange and MPI_Bcast + copy, each checked once.  Last the
# dimension shift on a 2x2 mesh (4 ranks): the row shift by 1 against
# MPI_Cart_shift + MPI_Sendrecv, and Cannon's skew in place against
# MPI_Sendrecv_replace, with the schedule's link hops.  Then bcast,
# allreduce and scan on 16 ranks (a 4-group OTIS-mesh), 2 iterations:
# the format of the tables, the summary and the JSON, and which
# algorithm ran, never the times.  Last the sort (1 and 64 records per
# rank, every algorithm, against MPI_Gather + qsort + MPI_Scatter) and the
# bit reversal (rtopo_bpc against MPI_Sendrecv) on the same 16 ranks,
# their results checked by the benchmark itself.  Skipped when
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
# bytes, rtopo median, rtopo min, MPI median, MPI min, MPI/rtopo, raw
# median, raw min, fabric median, fabric min, rtopo/fabric
awk '
    /^# rtopo = / { tables++; rows = 0; next }
    /^#/ && /rtopo med/ && /MPI med/ && /MPI\/rtopo/ && /raw med/ && /fabric med/ && /rtopo\/fabric/ { headers++; next }
    /^#/ || NF == 0 { next }
    {
        if (NF != 11) { print "bench_mpi: not 11 fields: " $0; bad = 1; next }
        for (i = 2; i <= 11; i++)
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
grep -q '^# fabric = \(fi_writedata\|ibv_post_send\) .* (\(from RTOPO_TRANSPORT=\|every rank on one host\)' "$out" ||
    { echo "bench_mpi: the header does not say what the fabric column is and why that provider"; exit 1; }
grep -q '^# rtopo/fabric = rtopo median / fabric median' "$out" ||
    { echo "bench_mpi: the header does not explain rtopo/fabric"; exit 1; }

for key in '"bytes":8,' '"bytes":65536,' '"mpi":{"median_us":' '"ratio_mpi_over_rtopo":' \
    '"fabric":{"median_us":' '"ratio_rtopo_over_fabric":' '"fabric_column":{"api":'; do
    grep -qF "$key" "$json" || { echo "bench_mpi: $key missing from the --json file:"; cat "$json"; exit 1; }
done
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); r = d["results"]
assert len(r) == 2 and all(x["fabric"]["median_us"] > 0 and x["raw"]["median_us"] > 0 for x in r)
assert all(e["ratio_rtopo_over_fabric"] > 0 for x in r for e in x["rtopo"])' "$json" ||
        { echo "bench_mpi: the --json file is not the expected JSON"; exit 1; }
fi
echo "bench_mpi: rtopo, MPI, raw and fabric columns measured over $tr"

# the fabric column on libfabric's shm provider, whatever rtopo runs on;
# then --no-fabric, and a provider that cannot be opened (the column left
# out, one line in the header, the run going on); 4 iterations each
fabric_run() {  # expected header line (a grep pattern), then the arguments
    want=$1; shift
    echo "+ RTOPO_TRANSPORT=$tr mpirun -n 2 rtopo-bench-mpi --sizes 8,65536 --iters 4 --block 2 --warmup 1 --modes blocking --buffers registered $*"
    RTOPO_TRANSPORT=$tr RTOPO_SPIN_US=0 timeout 120 $mpirun --mca mpi_yield_when_idle 1 \
        -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS -x RTOPO_SPIN_US -n 2 \
        "$BENCH" --sizes 8,65536 --iters 4 --block 2 --warmup 1 --modes blocking \
        --buffers registered "$@" --json "$json" >"$out" 2>&1
    rc=$?
    cat "$out"
    if [ "$rc" -ne 0 ]; then
        echo "bench_mpi: rtopo-bench-mpi $* exited with status $rc"
        exit 1
    fi
    [ "$(grep -c '^# fabric = ' "$out")" = 1 ] && grep -q "^# fabric = $want" "$out" ||
        { echo "bench_mpi: $*: no single header line '# fabric = $want'"; exit 1; }
}
fabric_run 'fi_writedata .* libfabric shm provider (--fabric shm)' --fabric shm
awk '
    /^#/ && /fabric med/ && /fabric min/ && /rtopo\/fabric/ { headers++; next }
    /^#/ || NF == 0 { next }
    {
        rows++
        if (NF != 11) { print "bench_mpi: --fabric shm: not 11 fields: " $0; bad = 1; next }
        for (i = 9; i <= 11; i++)
            if (!($i + 0 > 0)) { print "bench_mpi: --fabric shm: field " i " is not a positive number: " $0; bad = 1 }
    }
    END { if (headers != 1 || rows != 2) { print "bench_mpi: --fabric shm: " headers + 0 " headers, " rows + 0 " rows, expected 1 and 2"; bad = 1 }; exit bad }' "$out" || exit 1
grep -qF '"provider":"shm"' "$json" || { echo "bench_mpi: --fabric shm: the --json file does not name the shm provider"; exit 1; }
fabric_run 'not measured: --no-fabric or --fabric none' --no-fabric
if grep -q 'fabric med' "$out" || grep -qF '"fabric":{' "$json" || ! grep -qF '"fabric_not_measured":' "$json"; then
    echo "bench_mpi: --no-fabric: the fabric column is there"; exit 1
fi
fabric_run "not measured: provider 'no-such-provider' (--fabric no-such-provider) cannot be opened: rank 0: libfabric provider 'no-such-provider' .* not found" \
    --fabric no-such-provider
grep -q 'fabric med' "$out" && { echo "bench_mpi: a provider that cannot be opened left a fabric column"; exit 1; }
echo "bench_mpi: the fabric column on libfabric's shm provider, --no-fabric, and a missing provider"

# scatter: host rank 0 outside a 2-cube (5 ranks), windows of 64 and 4096
# elements of 8 bytes overlapping by M-1, ranks blocking rather than
# spinning; every method checks its windows once (a wrong byte aborts the
# job) and has a positive median for both sizes
echo "+ RTOPO_TRANSPORT=$tr mpirun -n 5 rtopo-bench-mpi scatter --sizes 64,4096 --overlap max --iters 10 --json FILE"
RTOPO_TRANSPORT=$tr RTOPO_SPIN_US=0 timeout 120 $mpirun --mca mpi_yield_when_idle 1 \
    -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS -x RTOPO_SPIN_US -n 5 \
    "$BENCH" scatter --sizes 64,4096 --overlap max --iters 10 --json "$json" >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" -ne 0 ]; then
    echo "bench_mpi: rtopo-bench-mpi scatter exited with status $rc"
    exit 1
fi
# per size: the strategies seq, binomial, seqscatter(x=..), decremental(x=..),
# auto->..., the two MPI methods and raw, each "NAME median min ratio"
awk '
    /^# M [0-9]+ elements/ { sizes++; next }
    /^#/ || NF == 0 { next }
    {
        name = $1; for (i = 2; i <= NF - 3; i++) name = name " " $i
        for (i = NF - 2; i <= NF; i++)
            if (!($i + 0 > 0)) { print "bench_mpi: scatter: field " i " is not a positive number: " $0; bad = 1 }
        seen[name]++
    }
    END {
        if (sizes != 2) { print "bench_mpi: scatter: " sizes + 0 " size tables, expected 2"; bad = 1 }
        n = split("seq binomial;MPI scatterv+halo;MPI bcast+copy", want, ";")
        for (k = 1; k <= n; k++) {
            m = split(want[k], w, " ")
            if (want[k] ~ /^MPI/) { if (seen[want[k]] != 2) { print "bench_mpi: scatter: no 2 rows of " want[k]; bad = 1 } }
            else for (j = 1; j <= m; j++) if (seen[w[j]] != 2) { print "bench_mpi: scatter: no 2 rows of " w[j]; bad = 1 }
        }
        auto = 0; for (x in seen) if (x ~ /^auto->/) auto += seen[x]
        if (auto != 2) { print "bench_mpi: scatter: no 2 rows of auto"; bad = 1 }
        exit bad
    }' "$out" || exit 1
for key in '"op":"scatter"' '"count":64,' '"count":4096,' '"method":"MPI scatterv+halo"' '"method":"MPI bcast+copy"'; do
    grep -qF "$key" "$json" || { echo "bench_mpi: scatter: $key missing from the --json file:"; cat "$json"; exit 1; }
done
echo "bench_mpi: rtopo scatter strategies and MPI scatter methods measured over $tr"

# shift-dim: a 2x2 mesh, 8 bytes and 64 KiB, ranks blocking rather than
# spinning, the raw and fabric columns writing to the line neighbour (in
# the skew, the ranks of row 0 copy locally).  The row shift by 1 moves
# every block over one row link (4 moves, 1 block per rank); the skew
# (row L by -L) in place moves the blocks of row 1 only (2 moves, 0.5 per
# rank).  Each column's data is
# checked by the benchmark itself (a wrong byte aborts the job).
dim_run() {  # expected moves, blocks per rank, then the arguments
    moves=$1; blocks=$2; shift 2
    echo "+ RTOPO_TRANSPORT=$tr mpirun -n 4 rtopo-bench-mpi shift-dim $* --json FILE"
    RTOPO_TRANSPORT=$tr RTOPO_SPIN_US=0 timeout 120 $mpirun --mca mpi_yield_when_idle 1 \
        -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS -x RTOPO_SPIN_US -n 4 \
        "$BENCH" shift-dim "$@" --json "$json" >"$out" 2>&1
    rc=$?
    cat "$out"
    if [ "$rc" -ne 0 ]; then
        echo "bench_mpi: rtopo-bench-mpi shift-dim exited with status $rc"
        exit 1
    fi
    # tables: bytes, rtopo med, rtopo min, MPI med, MPI min, MPI/rtopo, raw
    # med, raw min, fabric med, fabric min, rtopo/fabric, moves, blocks per
    # rank
    awk -v moves="$moves" -v blocks="$blocks" '
        /^# rtopo = / { tables++; next }
        /^#/ && /rtopo med/ && /MPI med/ && /fabric med/ && /moves/ { headers++; next }
        /^#/ || NF == 0 { next }
        {
            if (NF != 13) { print "bench_mpi: shift-dim: not 13 fields: " $0; bad = 1; next }
            for (i = 2; i <= 11; i++)
                if (!($i + 0 > 0)) { print "bench_mpi: shift-dim: field " i " is not a positive number: " $0; bad = 1 }
            if ($12 != moves || $13 != blocks) { print "bench_mpi: shift-dim: moves " $12 ", blocks per rank " $13 ", expected " moves ", " blocks; bad = 1 }
            if ($1 == 8) got8++
            else if ($1 == 65536) got64k++
            else { print "bench_mpi: shift-dim: unexpected size: " $0; bad = 1 }
        }
        END {
            if (tables != 2 || headers != 2) { print "bench_mpi: shift-dim: " tables + 0 " tables, " headers + 0 " headers, expected 2"; bad = 1 }
            if (got8 != 2 || got64k != 2) { print "bench_mpi: shift-dim: rows for 8 and 65536 bytes: " got8 + 0 ", " got64k + 0; bad = 1 }
            exit bad
        }' "$out" || exit 1
    for key in '"op":"shift-dim"' '"bytes":65536,' "\"link_moves\":$moves," '"ratio_mpi_over_rtopo":' \
        '"fabric":{"median_us":' '"ratio_rtopo_over_fabric":'; do
        grep -qF "$key" "$json" || { echo "bench_mpi: shift-dim: $key missing from the --json file:"; cat "$json"; exit 1; }
    done
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["results"]) == 2' "$json" ||
            { echo "bench_mpi: shift-dim: the --json file is not the expected JSON"; exit 1; }
    fi
}
dim_run 4 1.000 --topo mesh:2x2 --dim 1 --disp 1 --sizes 8,65536 --iters 10 \
    --modes blocking,persistent --buffers registered
grep -q '^# MPI   = MPI_Cart_create .*MPI_Sendrecv,' "$out" ||
    { echo "bench_mpi: shift-dim: the header does not say what the MPI column is"; exit 1; }
dim_run 2 0.500 --topo mesh:2x2 --dim 1 --rule -1,0 --inplace --sizes 8,65536 --iters 10 \
    --modes blocking,persistent --buffers unregistered
grep -q 'MPI_Sendrecv_replace' "$out" ||
    { echo "bench_mpi: shift-dim in place: the MPI column is not MPI_Sendrecv_replace"; exit 1; }
echo "bench_mpi: rtopo shift_dim and MPI_Cart_shift + MPI_Sendrecv(_replace) measured over $tr"

# bcast, allreduce, scan: 16 ranks of the OTIS-mesh with 4 groups, 8 bytes
# and 1 KiB, 2 iterations in one block after 1 warm-up, blocking and
# persistent on registered buffers, ranks blocking rather than spinning.
# Not a timing test: every rank checks every element of every result
# after each block (a wrong one aborts the job); here only the output's
# form is checked.  Six tables (2 modes x topo, generic, auto), each row
# "bytes, rtopo med, rtopo min, MPI med, MPI min, MPI/rtopo, [raw med, raw
# min,] ran, steps", the topo table having run the OTIS algorithm and the
# generic one the generic algorithm; then the summary, a row per size and
# table.
coll_run() {  # op, MPI call, then extra arguments
    op=$1; mpifn=$2; shift 2
    echo "+ RTOPO_TRANSPORT=$tr mpirun -n 16 rtopo-bench-mpi $op --topo otis-mesh:4 --sizes 8,1024 --iters 2 --block 2 --warmup 1 --modes blocking,persistent --buffers registered $* --json FILE"
    RTOPO_TRANSPORT=$tr RTOPO_SPIN_US=0 timeout 300 $mpirun --mca mpi_yield_when_idle 1 \
        -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS -x RTOPO_SPIN_US -n 16 \
        "$BENCH" "$op" --topo otis-mesh:4 --sizes 8,1024 --iters 2 --block 2 --warmup 1 \
        --modes blocking,persistent --buffers registered "$@" --json "$json" >"$out" 2>&1
    rc=$?
    cat "$out"
    if [ "$rc" -ne 0 ]; then
        echo "bench_mpi: rtopo-bench-mpi $op exited with status $rc"
        exit 1
    fi
    nf=8
    [ "$op" = bcast ] && nf=10
    awk -v nf="$nf" -v op="$op" '
        /^# rtopo = / {
            tables++; insum = 0
            algo = $0; sub(/.*RTOPO_COLL_/, "", algo); sub(/[;, ].*/, "", algo)
            if (algo != "TOPO" && algo != "GENERIC" && algo != "AUTO") { print "bench_mpi: " op ": no algorithm in: " $0; bad = 1 }
            next
        }
        /^# summary: / { insum = 1; next }
        /^#/ && /rtopo med/ && /MPI med/ && /MPI\/rtopo/ && / ran / && /steps/ { headers++; next }
        /^#/ || NF == 0 { next }
        insum {
            sumrows++
            if ($3 !~ /^(topo|generic|auto->(topo|generic))$/) { print "bench_mpi: " op ": summary algorithm " $3 ": " $0; bad = 1 }
            for (i = 4; i <= 6; i++)
                if (!($i + 0 > 0)) { print "bench_mpi: " op ": summary field " i " is not a positive number: " $0; bad = 1 }
            next
        }
        {
            if (NF != nf) { print "bench_mpi: " op ": not " nf " fields: " $0; bad = 1; next }
            for (i = 2; i <= nf - 2; i++)
                if (!($i + 0 > 0)) { print "bench_mpi: " op ": field " i " is not a positive number: " $0; bad = 1 }
            ran = $(nf - 1)
            if ((algo == "TOPO" && ran != "topo") || (algo == "GENERIC" && ran != "generic") ||
                (algo == "AUTO" && ran != "topo" && ran != "generic")) { print "bench_mpi: " op ": RTOPO_COLL_" algo " ran " ran ": " $0; bad = 1 }
            if (!($nf + 0 >= 1)) { print "bench_mpi: " op ": no steps: " $0; bad = 1 }
            if ($1 == 8) got8++
            else if ($1 == 1024) got1k++
            else { print "bench_mpi: " op ": unexpected size: " $0; bad = 1 }
        }
        END {
            if (tables != 6 || headers != 6) { print "bench_mpi: " op ": " tables + 0 " tables, " headers + 0 " headers, expected 6"; bad = 1 }
            if (got8 != 6 || got1k != 6) { print "bench_mpi: " op ": rows for 8 and 1024 bytes: " got8 + 0 ", " got1k + 0 " of 6"; bad = 1 }
            if (sumrows != 12) { print "bench_mpi: " op ": " sumrows + 0 " summary rows, expected 12"; bad = 1 }
            exit bad
        }' "$out" || exit 1
    grep -q "^# MPI   = $mpifn(.*MPI_COMM_WORLD)" "$out" ||
        { echo "bench_mpi: $op: the header does not say that the MPI column is $mpifn"; exit 1; }
    for key in "\"op\":\"$op\"" '"bytes":1024,' '"algo":"topo","ran":"topo"' '"algo":"generic","ran":"generic"' '"ratio_mpi_over_rtopo":'; do
        grep -qF "$key" "$json" || { echo "bench_mpi: $op: $key missing from the --json file:"; cat "$json"; exit 1; }
    done
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); r = d["results"]
assert len(r) == 2 and all(len(x["rtopo"]) == 6 and "mpi" in x for x in r)
assert sorted({e["algo"] for e in r[0]["rtopo"]}) == ["auto", "generic", "topo"]' "$json" ||
            { echo "bench_mpi: $op: the --json file is not the expected JSON"; exit 1; }
    fi
}
coll_run bcast MPI_Bcast --root 5
grep -q '^# raw   = the root writes' "$out" ||
    { echo "bench_mpi: bcast: the header does not say what the raw column is"; exit 1; }
coll_run allreduce MPI_Allreduce --dtype double
grep -q '^# raw   = none' "$out" ||
    { echo "bench_mpi: allreduce: the header does not say why there is no raw column"; exit 1; }
coll_run scan MPI_Scan
echo "bench_mpi: rtopo bcast, allreduce and scan and MPI_Bcast, MPI_Allreduce and MPI_Scan measured over $tr"

# sort: 16 ranks of the OTIS-mesh with 4 groups, 1 and 64 records of 16
# bytes per rank, 2 iterations in one block after 1 warm-up, blocking and
# persistent on registered buffers, every algorithm.  Every rank checks
# every record (key and origin) of every column against the whole sorted
# order, which it computes itself, before the timing and after each block
# (a wrong one aborts the job); here the output's form.  Six tables (2
# modes x topo, generic, auto), each row "records, rtopo med, rtopo min,
# MPI med, MPI min, MPI/rtopo, ran, steps, slots, moves, blk/rank"; the
# column sort lays the 16 ranks out as 2 rows of 8 (rtopo_sort(3)), each
# rank with count slots (1 divides 2, 64 is a multiple); so has the
# merge-split sort.  Then the summary.
echo "+ RTOPO_TRANSPORT=$tr mpirun -n 16 rtopo-bench-mpi sort --topo otis-mesh:4 --sizes 1,64 --iters 2 --block 2 --warmup 1 --modes blocking,persistent --buffers registered --json FILE"
RTOPO_TRANSPORT=$tr RTOPO_SPIN_US=0 timeout 300 $mpirun --mca mpi_yield_when_idle 1 \
    -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS -x RTOPO_SPIN_US -n 16 \
    "$BENCH" sort --topo otis-mesh:4 --sizes 1,64 --iters 2 --block 2 --warmup 1 \
    --modes blocking,persistent --buffers registered --json "$json" >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" -ne 0 ]; then
    echo "bench_mpi: rtopo-bench-mpi sort exited with status $rc"
    exit 1
fi
awk '
    /^# rtopo = / {
        tables++; insum = 0
        algo = $0; sub(/.*RTOPO_COLL_/, "", algo); sub(/[;, ].*/, "", algo)
        next
    }
    /^# summary: / { insum = 1; next }
    /^#/ && /records/ && /rtopo med/ && /MPI\/rtopo/ && / ran / && /slots/ && /blk\/rank/ { headers++; next }
    /^#/ || NF == 0 { next }
    insum { sumrows++; next }
    {
        if (NF != 11) { print "bench_mpi: sort: not 11 fields: " $0; bad = 1; next }
        for (i = 2; i <= 6; i++)
            if (!($i + 0 > 0)) { print "bench_mpi: sort: field " i " is not a positive number: " $0; bad = 1 }
        ran = $7
        if ((algo == "TOPO" && ran != "topo") || (algo == "GENERIC" && ran != "generic") ||
            (algo == "AUTO" && ran != "topo" && ran != "generic")) { print "bench_mpi: sort: RTOPO_COLL_" algo " ran " ran ": " $0; bad = 1 }
        if (!($8 + 0 >= 1) || !($10 + 0 >= 1)) { print "bench_mpi: sort: no steps or moves: " $0; bad = 1 }
        if ($9 != $1) { print "bench_mpi: sort: " ran " with " $9 " slots: " $0; bad = 1 }
        if ($1 == 1) got1++
        else if ($1 == 64) got64++
        else { print "bench_mpi: sort: unexpected size: " $0; bad = 1 }
    }
    END {
        if (tables != 6 || headers != 6) { print "bench_mpi: sort: " tables + 0 " tables, " headers + 0 " headers, expected 6"; bad = 1 }
        if (got1 != 6 || got64 != 6) { print "bench_mpi: sort: rows for 1 and 64 records: " got1 + 0 ", " got64 + 0 " of 6"; bad = 1 }
        if (sumrows != 12) { print "bench_mpi: sort: " sumrows + 0 " summary rows, expected 12"; bad = 1 }
        exit bad
    }' "$out" || exit 1
grep -q '^# MPI   = MPI_Gather .*qsort .*MPI_Scatter' "$out" ||
    { echo "bench_mpi: sort: the header does not say what the MPI column is"; exit 1; }
for key in '"op":"sort"' '"records":64,' '"algo":"topo","ran":"topo"' '"algo":"generic","ran":"generic"' '"slots":64,' '"ratio_mpi_over_rtopo":'; do
    grep -qF "$key" "$json" || { echo "bench_mpi: sort: $key missing from the --json file:"; cat "$json"; exit 1; }
done
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); r = d["results"]
assert d["record_bytes"] == 16 and len(r) == 2 and all(len(x["rtopo"]) == 6 and "mpi" in x for x in r)' "$json" ||
        { echo "bench_mpi: sort: the --json file is not the expected JSON"; exit 1; }
fi
echo "bench_mpi: rtopo sort and MPI_Gather + qsort + MPI_Scatter measured over $tr"

# bpc: the bit reversal of the 16 ranks of the OTIS-mesh with 4 groups, 8
# bytes and 1 KiB, blocking and persistent on registered buffers.  Every
# byte is checked against the source's data (a wrong one aborts the job).
# Twelve ranks move (0, 6, 9 and 15 keep their data), over 36 link hops
# in all: 2.25 blocks per rank.  Each row: bytes, rtopo med, rtopo min,
# MPI med, MPI min, MPI/rtopo, raw med, raw min, steps, moves, blk/rank.
echo "+ RTOPO_TRANSPORT=$tr mpirun -n 16 rtopo-bench-mpi bpc --topo otis-mesh:4 --sizes 8,1024 --iters 2 --block 2 --warmup 1 --modes blocking,persistent --buffers registered --json FILE"
RTOPO_TRANSPORT=$tr RTOPO_SPIN_US=0 timeout 300 $mpirun --mca mpi_yield_when_idle 1 \
    -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS -x RTOPO_SPIN_US -n 16 \
    "$BENCH" bpc --topo otis-mesh:4 --sizes 8,1024 --iters 2 --block 2 --warmup 1 \
    --modes blocking,persistent --buffers registered --json "$json" >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" -ne 0 ]; then
    echo "bench_mpi: rtopo-bench-mpi bpc exited with status $rc"
    exit 1
fi
awk '
    /^# rtopo = / { tables++; next }
    /^#/ && /rtopo med/ && /MPI med/ && /raw med/ && /moves/ { headers++; next }
    /^#/ || NF == 0 { next }
    {
        if (NF != 11) { print "bench_mpi: bpc: not 11 fields: " $0; bad = 1; next }
        for (i = 2; i <= 9; i++)
            if (!($i + 0 > 0)) { print "bench_mpi: bpc: field " i " is not a positive number: " $0; bad = 1 }
        if ($10 != 36 || $11 != "2.250") { print "bench_mpi: bpc: moves " $10 ", blocks per rank " $11 ", expected 36, 2.250"; bad = 1 }
        if ($1 == 8) got8++
        else if ($1 == 1024) got1k++
        else { print "bench_mpi: bpc: unexpected size: " $0; bad = 1 }
    }
    END {
        if (tables != 2 || headers != 2) { print "bench_mpi: bpc: " tables + 0 " tables, " headers + 0 " headers, expected 2"; bad = 1 }
        if (got8 != 2 || got1k != 2) { print "bench_mpi: bpc: rows for 8 and 1024 bytes: " got8 + 0 ", " got1k + 0 " of 2"; bad = 1 }
        exit bad
    }' "$out" || exit 1
grep -q '^# bpc(r) for r = 0..15: 0 8 4 12 2 10 6 14 1 9 5 13 3 11 7 15$' "$out" ||
    { echo "bench_mpi: bpc: the header does not list the bit reversal"; exit 1; }
grep -q '^# MPI   = MPI_Sendrecv to rtopo_bpc_dest' "$out" ||
    { echo "bench_mpi: bpc: the header does not say what the MPI column is"; exit 1; }
for key in '"op":"bpc"' '"vector":"reversal"' '"bytes":1024,' '"link_moves":36,' '"ratio_mpi_over_rtopo":'; do
    grep -qF "$key" "$json" || { echo "bench_mpi: bpc: $key missing from the --json file:"; cat "$json"; exit 1; }
done
echo "bench_mpi: rtopo bpc and MPI_Sendrecv measured over $tr"
