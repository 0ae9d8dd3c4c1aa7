#!/bin/sh
# a2a-choice.sh - which shift routing `auto` takes for the all-to-all by
# q-shifts on 2 emulated hosts of 4 ranks, job after job, and which is
# measured fastest: REPS rounds; each round runs one job per algorithm of
# ALGOS (default "auto direct ring hypercube"), in turn,
#   rtopo-run --hosts 2 --exec-launcher mpirun ... -n 8 rtopo-bench-mpi
#     alltoall --topo hypercube:3 --algo A --sizes SIZES --modes persistent
# (MPI_Alltoall in the same job), log at debug.  Per job: the calibrated
# intra-host and inter-host ts/tw (rank 0's log), and per size the rtopo
# median, MPI/rtopo and the schedule's fingerprint (steps, moves,
# bytes over links per rank and block); auto's fingerprint is named after
# the fixed algorithm that moves as much.  Then per algorithm and size the median
# MPI/rtopo over the rounds (the ratio taken inside a job is what compares
# across jobs on a shared machine).
#
#   tools/dev/a2a-choice.sh [BUILDDIR]
#
# Environment: REPS (default 6), ALGOS, SIZES (default 65536,1048576),
# RATE (tc rate of the hosts' links, default none), MODEL (default auto),
# ITERS (default 10), OUT (default /tmp/a2a-choice).  Needs root and Open
# MPI, as mpi-hosts.sh.  Not part of make check.
set -eu
B=${1:-build}
REPS=${REPS:-6}
ALGOS=${ALGOS:-"auto direct ring hypercube"}
SIZES=${SIZES:-65536,1048576}
RATE=${RATE:-}
MODEL=${MODEL:-auto}
ITERS=${ITERS:-10}
OUT=${OUT:-/tmp/a2a-choice}
. "$(dirname "$0")/hosts-bench.sh"
: > "$OUT/rows"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
     "RTOPO_MODEL=$MODEL${RATE:+, link rate $RATE}, build $B"
for rep in $(seq 1 "$REPS"); do
    for a in $ALGOS; do
        o=$OUT/$a-$rep.out
        # shellcheck disable=SC2086
        RTOPO_LOG_LEVEL=debug RTOPO_TRANSPORT=auto RTOPO_MODEL=$MODEL \
            flock -w 900 /tmp/rtopo-hosts-tests.lock timeout 600 "$RUN" --hosts 2 \
            ${RATE:+--link-rate $RATE} --exec-launcher mpirun --allow-run-as-root \
            --oversubscribe --bind-to none --host rtopo-host0:4,rtopo-host1:4 --mca pml ob1 \
            --mca btl vader,tcp,self --mca mpi_yield_when_idle 1 -x RTOPO_TRANSPORT \
            -x RTOPO_MODEL -x RTOPO_LOG_LEVEL -n 8 "$BENCH" alltoall --topo hypercube:3 \
            --algo "$a" --sizes "$SIZES" --modes persistent --buffers registered \
            --iters "$ITERS" --block 5 --warmup 2 > "$o" 2>&1 ||
            { echo "job $a $rep failed, see $o"; continue; }
        fig=$(sed -n 's/^rtopo\[0 [0-9]*\] .*measured node pair [0-9<>-]* (\(intra\|inter\)-host): ts \([0-9.e+-]*\) us, tw \([0-9.e+-]*\) ns\/B.*/\1 \2 \3/p' "$o" |
              awk '{ ts[$1] = $2; tw[$1] = $3 } END { printf "%s/%s %s/%s", ts["intra"], tw["intra"], ts["inter"], tw["inter"] }')
        # bytes rtopo_med rtopo_min mpi_med mpi_min ratio steps moves blk
        awk -v a="$a" -v r="$rep" -v f="$fig" '
            /^# rtopo = persistent/ { on = 1; next }
            on && /^ +[0-9]/ && NF >= 9 { print r, a, $1, $2, $6, $7 "/" $8 "/" $9, f }
            on && /^$/ { on = 0 }' "$o" >> "$OUT/rows"
    done
done
python3 - "$OUT/rows" "$ALGOS" <<'EOF'
import collections, statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
algos = sys.argv[2].split()
# a schedule's traffic (moves, bytes over links per rank and block)
# names it; the steps may differ (auto takes the cube's own link for a
# shift by a power of 2, which moves as direct does)
fp = {}
for r in rows:
    if r[1] != "auto":
        fp.setdefault((r[2], r[5].split("/", 1)[1]), r[1])
print("| round | bytes | " + " | ".join(f"{a}: rtopo med us (MPI/rtopo)" for a in algos) +
      " | auto ran | calibrated intra ts/tw, inter ts/tw (us/ns/B), auto's job |")
print("|---|---:|" + "---|" * len(algos) + "---|---|")
by = collections.defaultdict(dict)
for r in rows:
    by[(int(r[0]), r[2])][r[1]] = r
ratios = collections.defaultdict(list)
ran = collections.Counter()
for (rep, b) in sorted(by, key=lambda k: (int(k[1]), k[0])):
    d = by[(rep, b)]
    cells = []
    for a in algos:
        if a in d:
            cells.append(f"{float(d[a][3]):.0f} ({float(d[a][4]):.3f})")
            ratios[(a, b)].append(float(d[a][4]))
        else:
            cells.append("-")
    name = fp.get((b, d["auto"][5].split("/", 1)[1]), d["auto"][5]) if "auto" in d else "-"
    ran[(b, name)] += 1
    fig = " ".join(d["auto"][6:8]) if "auto" in d else "-"
    print(f"| {rep} | {b} | " + " | ".join(cells) + f" | {name} | {fig} |")
print()
print("| bytes | " + " | ".join(f"{a}: median MPI/rtopo (min-max)" for a in algos) + " | auto ran |")
print("|---:|" + "---|" * len(algos) + "---|")
for b in sorted({k[1] for k in ratios}, key=int):
    cells = []
    for a in algos:
        x = ratios.get((a, b), [])
        cells.append(f"{statistics.median(x):.3f} ({min(x):.3f}-{max(x):.3f}, {len(x)} jobs)" if x else "-")
    print(f"| {b} | " + " | ".join(cells) + " | " +
          ", ".join(f"{n} x{c}" for (bb, n), c in sorted(ran.items()) if bb == b) + " |")
EOF
