#!/bin/sh
# mpi-hosts.sh - rtopo's collectives against Open MPI's in the same job, on
# emulated hosts: bcast, allreduce and scan (on the hypercube of the job's
# ranks) against MPI_Bcast/MPI_Allreduce/MPI_Scan, the windowed scatter against
# MPI_Scatterv of strides plus a halo exchange, the all-to-all by q-shifts
# against MPI_Alltoall; 8 ranks on 2 hosts of 4 and on 4 hosts of 2, with
# and without a rate limit on the hosts' links.
#
#   tools/dev/mpi-hosts.sh [BUILDDIR]
#
# Environment: CONFIGS (default "2x4 2x4@1gbit 4x2 4x2@1gbit": HOSTSxRANKS
# per host, @RATE the link rate of every host, tc units), OPS (default
# "bcast allreduce scan scatter alltoall"), ALGOS (the collectives'
# --algo, default auto), REPS (jobs per configuration and op, default 3),
# ITERS (default 10), OUT (directory of the JSON files, outputs and plots,
# default /tmp/mpi-hosts; a job whose JSON file is there is not run
# again, so that an interrupted run can be taken up), TRANSPORT (RTOPO_TRANSPORT, default auto: shm
# inside a host, tcp across), MODEL (RTOPO_MODEL of the jobs, default
# $RTOPO_MODEL or auto),
# SIZES (the collectives' sizes, default 8,1024,65536,1048576), EAGERS
# (RTOPO_EAGER_LIMIT of the jobs, a list taken in turn inside each
# repetition, so that the settings alternate; "default" leaves it unset;
# default "default"), RUNS (the build directories whose rtopo-run and
# rtopo-bench-mpi run the jobs, taken in turn like EAGERS, default the
# one build: before and after builds alternate job by job).
#
# A configuration 1xN is one emulated host of N ranks (shm only).
# Each (configuration, op, repetition) is one job, taken under the
# machine-wide lock of the emulated-host tests:
#   flock -w 900 /tmp/rtopo-hosts-tests.lock timeout 900 \
#     rtopo-run --hosts H [--link-rate R] --exec-launcher mpirun \
#       --allow-run-as-root --oversubscribe --bind-to none \
#       --host rtopo-host0:N,... --mca pml ob1 --mca btl vader,tcp,self \
#       --mca mpi_yield_when_idle 1 -x RTOPO_TRANSPORT -x RTOPO_MODEL \
#       [-x RTOPO_EAGER_LIMIT] -x RTOPO_LOG_LEVEL=info -n H*N \
#       rtopo-bench-mpi OP ... --json F [--plot F.png]
# (the log at info gives every rank's eager limit: the job's line counts
# them)
# The first repetition of each also draws its plot (gnuplot).  Only the
# ratio MPI median / rtopo median taken inside one job means anything on a
# shared machine; the table gives, per configuration, op and size, the
# median of these ratios over the jobs and their range.  For the scatter
# the ratio is MPI_Scatterv+halo / rtopo's auto strategy (and, in
# brackets, the better of the two MPI methods over it).
# Needs root (namespaces) and Open MPI.  Not part of make check.
set -eu
B=${1:-build}
CONFIGS=${CONFIGS:-"2x4 2x4@1gbit 4x2 4x2@1gbit"}
OPS=${OPS:-"bcast allreduce scan scatter alltoall"}
ALGOS=${ALGOS:-auto}
REPS=${REPS:-3}
ITERS=${ITERS:-10}
OUT=${OUT:-/tmp/mpi-hosts}
TRANSPORT=${TRANSPORT:-auto}
MODEL=${MODEL:-${RTOPO_MODEL:-auto}}
LOCK=/tmp/rtopo-hosts-tests.lock
. "$(dirname "$0")/hosts-bench.sh"
SIZES=${SIZES:-8,1024,65536,1048576}
EAGERS=${EAGERS:-default}
RUNS=${RUNS:-$B}
for b in $RUNS; do
    [ -x "$b/tools/rtopo-run" ] && [ -x "$b/tools/rtopo-bench-mpi" ] ||
        { echo "build $b first (rtopo-run, rtopo-bench-mpi)" >&2; exit 2; }
done
# the scatter's window sizes in elements of 8 bytes: the same bytes
SSIZES=1,128,8192,131072

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq 1 "$REPS"); do
    for cfg in $CONFIGS; do
        shape=${cfg%%@*}
        rate=
        case $cfg in *@*) rate=${cfg#*@} ;; esac
        H=${shape%x*}
        N=${shape#*x}
        hostlist=
        h=0
        while [ "$h" -lt "$H" ]; do
            hostlist=${hostlist:+$hostlist,}rtopo-host$h:$N
            h=$((h + 1))
        done
        # the hypercube of the job's ranks (a power of two)
        dim=0
        while [ $((1 << dim)) -lt $((H * N)) ]; do dim=$((dim + 1)); done
        for op in $OPS; do
            case $op in
                scatter) args="scatter --sizes $SSIZES --esize 8 --algo auto --no-raw" ;;
                alltoall) args="alltoall --topo hypercube:$dim --sizes $SIZES --modes persistent --buffers registered" ;;
                *) args="$op --topo hypercube:$dim --algo $ALGOS --sizes $SIZES --modes blocking --buffers registered --no-raw" ;;
            esac
            for b in $RUNS; do
            for eager in $EAGERS; do
            # the setting in the tag only where several are compared
            etag=
            [ "$EAGERS" = default ] || etag=-e$eager
            [ "$RUNS" = "$B" ] || etag=$etag-$(basename "$b")
            tag=$shape${rate:+-$rate}-$op$etag-$rep
            # a job whose results are there already (a run taken up again)
            [ -s "$OUT/$tag.json" ] && continue
            plot=
            [ "$rep" -eq 1 ] && plot="--plot $OUT/$shape${rate:+-$rate}-$op$etag.png"
            brun=$(cd "$b/tools" && pwd)/rtopo-run
            bbench=$(cd "$b/tools" && pwd)/rtopo-bench-mpi
            xeager=
            if [ "$eager" = default ]; then
                unset RTOPO_EAGER_LIMIT
            else
                RTOPO_EAGER_LIMIT=$eager
                export RTOPO_EAGER_LIMIT
                xeager="-x RTOPO_EAGER_LIMIT"
            fi
            echo "+ $tag: RTOPO_TRANSPORT=$TRANSPORT RTOPO_MODEL=$MODEL${xeager:+ RTOPO_EAGER_LIMIT=$eager} $b/tools/rtopo-run --hosts $H${rate:+ --link-rate $rate} --exec-launcher mpirun ... --host $hostlist -n $((H * N)) rtopo-bench-mpi $args --iters $ITERS"
            # shellcheck disable=SC2086
            RTOPO_TRANSPORT=$TRANSPORT RTOPO_MODEL=$MODEL flock -w 900 "$LOCK" timeout 900 "$brun" --hosts "$H" \
                ${rate:+--link-rate $rate} --exec-launcher mpirun --allow-run-as-root \
                --oversubscribe --bind-to none --host "$hostlist" --mca pml ob1 \
                --mca btl vader,tcp,self --mca mpi_yield_when_idle 1 -x RTOPO_TRANSPORT -x RTOPO_MODEL \
                $xeager -x RTOPO_LOG_LEVEL=info -n $((H * N)) "$bbench" $args --iters "$ITERS" --block 5 --warmup 2 \
                --json "$OUT/$tag.json" $plot > "$OUT/$tag.out" 2>&1 ||
                echo "  job failed ($?), see $OUT/$tag.out"
            # the limit every rank ran with (its init line)
            grep -o 'eager limit [0-9]* bytes' "$OUT/$tag.out" | sort | uniq -c | sed 's/^/  /'
            done
            done
        done
    done
done

python3 - "$OUT" "$CONFIGS" "$OPS" "$EAGERS" "$RUNS" "$B" <<'EOF'
import json, os, statistics, sys, glob
out, configs, ops = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
eagers, runs, b0 = sys.argv[4].split(), sys.argv[5].split(), sys.argv[6]
# the job tags' setting part, as the jobs were named
sets = []
for b in runs:
    for e in eagers:
        t = "" if eagers == ["default"] else f"-e{e}"
        if runs != [b0]:
            t += "-" + os.path.basename(b)
        sets.append(t)
print("| configuration | op | setting | algo (ran) | bytes | MPI/rtopo median | min-max | jobs | best MPI/rtopo |")
print("|---|---|---|---|---:|---:|---|---:|---:|")
for cfg in configs:
    tagc = cfg.replace("@", "-")
    for op in ops:
      for st in sets:
        rows = {}
        for f in sorted(glob.glob(f"{out}/{tagc}-{op}{st}-[0-9]*.json")):
            try:
                d = json.load(open(f))
            except Exception:
                continue
            for r in d["results"]:
                if op == "scatter":
                    m = {x["method"]: x["median_us"] for x in r["methods"]}
                    auto = [k for k in m if k.startswith("auto")]
                    sv = [k for k in m if "scatterv" in k]
                    mpi = [v for k, v in m.items() if k.startswith("MPI")]
                    if not auto or not sv:
                        continue
                    key = (auto[0].split("->")[-1], r["count"] * d.get("elem_size", 8))
                    rows.setdefault(key, []).append(
                        (m[sv[0]] / m[auto[0]], min(mpi) / m[auto[0]]))
                else:
                    for e in r["rtopo"]:
                        algo = e.get("algo", d.get("shift_algo", "?"))
                        ran = e.get("ran")
                        extra = ""
                        if "blocks_per_rank" in e:
                            extra = f", {e['blocks_per_rank']:.2f} blk/rank"
                        key = (f"{algo}" + (f" ({ran})" if ran else "") + extra, r["bytes"])
                        rows.setdefault(key, []).append((e["ratio_mpi_over_rtopo"], None))
        for (algo, b), v in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            a = [x[0] for x in v]
            best = "-" if v[0][1] is None else f"{statistics.median([x[1] for x in v]):.2f}"
            print(f"| {cfg} | {op} | {st.lstrip('-') or '-'} | {algo} | {b} | {statistics.median(a):.2f} | "
                  f"{min(a):.2f}-{max(a):.2f} | {len(a)} | {best} |")
EOF
