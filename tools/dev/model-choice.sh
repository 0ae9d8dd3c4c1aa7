#!/bin/sh
# model-choice.sh - does `auto` run the fastest candidate of bcast,
# allreduce and scan on emulated hosts?  Runs tools/dev/mpi-hosts.sh
# (rtopo against Open MPI in the same job) under four cost models, REPS
# times in turn:
#   before  auto,tq=0,lanes=0       quiet pairs alone (no oversubscription term)
#   after   auto                    quiet pairs, tq and lanes when oversubscribed
#   short   auto,tw=0,tq=0,lanes=0  recursive doubling / binomial tree, one piece
#   long    auto,lanes=1,tq=0       pipelined chain (scan), reduce-scatter +
#                                   allgather (allreduce), the pieces of quiet pairs
#   NAME=VALUE,...                  auto,NAME=VALUE,...: a measured model with
#                                   parameters of its own (tk=0.25ns: the
#                                   reductions at the built-in figure)
# then prints, per configuration, op and size, each model's steps (which
# tell the candidates apart) and median MPI/rtopo ratio, the candidate
# (steps) whose ratios have the best median, and whether before and after
# ran it (or one within 5% of its median); then the geometric mean of the
# ratios per op and configuration.
#
#   tools/dev/model-choice.sh [BUILDDIR]
#
# Environment: CONFIGS and OPS as mpi-hosts.sh, REPS (default 3), OUT
# (default /tmp/model-choice; jobs whose JSON is there are not run again),
# VARIANTS (default "before after short long"), SIZES (default
# 8,1024,16384,65536,262144,1048576), ITERS (default 20).  Needs root and
# Open MPI, as mpi-hosts.sh.  Not part of make check.
set -eu
B=${1:-build}
REPS=${REPS:-3}
OUT=${OUT:-/tmp/model-choice}
VARIANTS=${VARIANTS:-"before after short long"}
export CONFIGS="${CONFIGS:-2x4 2x4@1gbit 4x2 4x2@1gbit}"
export OPS="${OPS:-bcast allreduce scan}"
export SIZES="${SIZES:-8,1024,16384,65536,262144,1048576}"
export ITERS="${ITERS:-20}"
HERE=$(cd "$(dirname "$0")" && pwd)
for rep in $(seq 1 "$REPS"); do
    for v in $VARIANTS; do
        case $v in
            before) m="auto,tq=0,lanes=0" ;;
            after) m="auto" ;;
            short) m="auto,tw=0,tq=0,lanes=0" ;;
            long) m="auto,lanes=1,tq=0" ;;
            *=*) m="auto,$v" ;;
            *) echo "unknown variant $v" >&2; exit 2 ;;
        esac
        echo "+ rep $rep, $v: MODEL=$m REPS=1 OUT=$OUT/$v/r$rep tools/dev/mpi-hosts.sh $B"
        MODEL=$m REPS=1 OUT=$OUT/$v/r$rep sh "$HERE/mpi-hosts.sh" "$B" > "$OUT.$v.r$rep.log" 2>&1 ||
            echo "  failed, see $OUT.$v.r$rep.log"
    done
done

python3 - "$OUT" "$CONFIGS" "$OPS" "$VARIANTS" <<'PY'
import collections, glob, json, math, statistics, sys
out, cfgs, ops, variants = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split()
data = collections.defaultdict(lambda: collections.defaultdict(list))
for v in variants:
    for f in glob.glob(f"{out}/{v}/r*/*.json"):
        tag = f.split("/")[-1][:-5].split("-")
        cfg = tag[0] + ("@" + tag[1] if len(tag) == 4 else "")
        try:
            d = json.load(open(f))
        except Exception:
            continue
        for r in d["results"]:
            for e in r["rtopo"]:
                data[(cfg, tag[-2], r["bytes"])][v].append((e["ratio_mpi_over_rtopo"], e["steps"]))
def steps(xs):
    return collections.Counter(x[1] for x in xs).most_common(1)[0][0]
print("| config | op | bytes | " + " | ".join(f"{v} (steps: MPI/rtopo)" for v in variants) +
      " | fastest (steps) | before ok | after ok |")
print("|---|---|---:|" + "---|" * len(variants) + "---|---|---|")
score = collections.Counter()
for cfg in cfgs:
    for op in ops:
        for b in sorted({k[2] for k in data if k[0] == cfg and k[1] == op}):
            row, cand, cells = data[(cfg, op, b)], collections.defaultdict(list), []
            for v in variants:
                if not row[v]:
                    cells.append("-")
                    continue
                cand[steps(row[v])] += [x[0] for x in row[v]]
                cells.append(f"{steps(row[v])}: {statistics.median(x[0] for x in row[v]):.2f}")
            best = max(cand, key=lambda s: statistics.median(cand[s]))
            ok = {}
            for v in ("before", "after"):
                if row[v]:
                    s = steps(row[v])
                    ok[v] = s == best or statistics.median(cand[s]) >= 0.95 * statistics.median(cand[best])
                    score[v] += ok[v]
                    score[v + "_n"] += 1
            print(f"| {cfg} | {op} | {b} | " + " | ".join(cells) + f" | {best} | " +
                  " | ".join({True: "yes", False: "no", None: "-"}[ok.get(v)] for v in ("before", "after")) + " |")
print()
for v in ("before", "after"):
    if score[v + "_n"]:
        print(f"{v}: the fastest candidate (or within 5%) at {score[v]} of {score[v + '_n']} points")
print()
print("| op | config | before: geomean MPI/rtopo | after: geomean MPI/rtopo |")
print("|---|---|---:|---:|")
for op in ops:
    for cfg in cfgs + ["all"]:
        g = []
        for v in ("before", "after"):
            xs = [statistics.median(x[0] for x in row[v]) for (c, o, b), row in data.items()
                  if o == op and (cfg == "all" or c == cfg) and row[v]]
            g.append(f"{math.exp(sum(map(math.log, xs)) / len(xs)):.2f}" if xs else "-")
        print(f"| {op} | {cfg} | {g[0]} | {g[1]} |")
PY
