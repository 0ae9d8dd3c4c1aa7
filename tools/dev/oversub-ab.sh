#!/bin/bash
# oversub-ab.sh - rtopo against Open MPI on one host with more ranks than
# processors, before and after builds alternated job by job: for each
# repetition, rank count and op, one mpirun job per build, in turn.
#
#   tools/dev/oversub-ab.sh BUILD_A BUILD_B ...
#
# Each BUILD is a directory holding rtopo-bench-mpi (a build tree's tools/
# or a copy of it).  Environment: NPS (rank counts, default "8"; each runs
# on hypercube:log2 N), OPS (default "allreduce bcast"), SIZES (default
# 8,16384,65536,1048576), REPS (jobs per build, default 3), ITERS (default
# 30), ENVS (extra NAME=VALUE pairs for every rank, default none).
# Every job:
#   mpirun --allow-run-as-root --oversubscribe --bind-to none -n N \
#     [-x NAME=VALUE ...] BUILD/rtopo-bench-mpi OP --topo hypercube:D \
#     --sizes SIZES --iters ITERS --modes blocking --buffers registered --algo auto
# Only the ratio MPI median / rtopo median inside one job means anything on
# a shared machine: each line is one job's ratio per size (> 1: rtopo
# faster), with the steps of rtopo's schedule; the summary gives per build,
# op, ranks and size the median ratio over the jobs and its range.
set -u
[ $# -ge 1 ] || { sed -n 2,21p "$0"; exit 2; }
NPS=${NPS:-8}
OPS=${OPS:-"allreduce bcast"}
SIZES=${SIZES:-8,16384,65536,1048576}
REPS=${REPS:-3}
ITERS=${ITERS:-30}
ENVS=${ENVS:-}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
xs=()
for e in $ENVS; do xs+=(-x "$e"); done
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq 1 "$REPS"); do
    for n in $NPS; do
        d=0
        while [ $((1 << d)) -lt "$n" ]; do d=$((d + 1)); done
        for op in $OPS; do
            for b in "$@"; do
                out=$(timeout 900 mpirun --allow-run-as-root --oversubscribe --bind-to none \
                      -n "$n" "${xs[@]}" "$b/rtopo-bench-mpi" "$op" --topo "hypercube:$d" \
                      --sizes "$SIZES" --iters "$ITERS" --modes blocking --buffers registered \
                      --algo auto 2>&1)
                echo "$out" | awk -v b="$b" -v op="$op" -v n="$n" -v rep="$rep" '
                    /RTOPO_COLL_AUTO/ { s = 1; next }
                    /^$/ { s = 0 }
                    s && /^ +[0-9]/ { print b, op, n, $1, $6, $NF, rep }' | tee -a "$log" |
                    awk '{ printf "job %s %-9s n=%s %8s B  MPI/rtopo %6s  steps %s\n", $7, $2, $3, $4, $5, $6 }' |
                    sed "s|$b|$(basename "$b")|"
            done
        done
    done
done
echo "# summary: median MPI/rtopo over the jobs [range] (> 1: rtopo faster)"
sort -k1,1 -k2,2 -k3,3n -k4,4n "$log" | awk '
    function flush() {
        if (!k) return
        for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        med = k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
        printf "%-40s %-9s n=%-2s %8s B  %6.3f [%.3f-%.3f] (%d jobs)\n", key1, key2, key3, key4, med, v[1], v[k], k
        k = 0
    }
    { key = $1 " " $2 " " $3 " " $4
      if (key != last) { flush(); last = key; key1 = $1; key2 = $2; key3 = $3; key4 = $4 }
      v[++k] = $5 }
    END { flush() }'
