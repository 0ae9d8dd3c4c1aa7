#!/bin/bash
# oversub-work.sh - what a collective costs the processors of a machine
# with more ranks than processors, before and after builds alternated:
# tools/dev/oversub-work.c (processor time of all ranks per operation,
# context switches, wall time) under rtopo-run, with the schedule rank 0
# ran (its debug line).
#
#   tools/dev/oversub-work.sh BUILD_A [BUILD_B ...]
#
# Each BUILD is a build tree (its .libs/librtopo.so and tools/rtopo-run).
# Environment: NPS (rank counts, default 8), OPS (default "allreduce
# bcast"), SIZES (default "16384 1048576"), ITERS (default 200), REPS
# (default 3), ENVS (NAME=VALUE pairs for every rank, default none).
# Every job:
#   RTOPO_LOG_LEVEL=debug [ENVS] rtopo-run -n N oversub-work OP BYTES ITERS
set -u
[ $# -ge 1 ] || { sed -n 2,15p "$0"; exit 2; }
NPS=${NPS:-8}
OPS=${OPS:-"allreduce bcast"}
SIZES=${SIZES:-"16384 1048576"}
ITERS=${ITERS:-200}
REPS=${REPS:-3}
ENVS=${ENVS:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
i=0
for b in "$@"; do
    lib=$(cd "$b/.libs" && pwd) || exit 2
    gcc -O2 -I"$src/include" -I"$b/include" -o "$bin/work$i" "$src/tools/dev/oversub-work.c" \
        -L"$lib" -lrtopo -Wl,-rpath,"$lib" || exit 2
    i=$((i + 1))
done
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq 1 "$REPS"); do
    for n in $NPS; do
        for op in $OPS; do
            for bytes in $SIZES; do
                i=0
                for b in "$@"; do
                    # shellcheck disable=SC2086
                    out=$(env $ENVS RTOPO_LOG_LEVEL=debug timeout 600 \
                          "$b/tools/rtopo-run" -n "$n" "$bin/work$i" "$op" "$bytes" "$ITERS" 2>&1)
                    sch=$(echo "$out" | grep "rtopo\[0 " | grep "coll.c" |
                          grep " of $((bytes / 8)) x 8" | sed 's/.*bytes: //' | head -1)
                    res=$(echo "$out" | grep "^\[0\] $op" | sed 's/^\[0\] //')
                    echo "job $rep $(basename "$(cd "$b" && pwd)"): $res | $sch"
                    i=$((i + 1))
                done
            done
        done
    done
done
