#!/bin/sh
# place-must-show.sh - an OTIS-mesh of 4 groups of 4 on 4 emulated hosts
# whose ranks are dealt round robin (rtopo-run --map-by host), under rank
# and under host placement: the bytes each collective sends across hosts
# (rtopo-sim with the same layout) and its measured time (place-time,
# median of rounds, over several jobs that alternate the placements).
#
#   tools/dev/place-must-show.sh [BUILDDIR] [JOBS] [RATE] [COUNT] [ALGO] [MODEL]
#
# BUILDDIR (default ./build), JOBS per placement (default 5), RATE the
# hosts' link rate (default 200mbit), COUNT int64 per rank (default
# 8192), ALGO the collectives' algorithm (RTOPO_COLL_ALGO, default topo:
# Wang and Sahni's), MODEL a cost list for the counting (rtopo-sim
# --cost, e.g. the figures the jobs' debug log says they measured: then
# the schedules are also cut into pieces as the runtime's are, --chunks
# 0, so that the counts are those of the algorithms auto picks in the
# jobs; default: the built-in constants, whole registers).  Needs root
# for the emulated hosts.
set -eu
b=${1:-build}
jobs=${2:-5}
rate=${3:-200mbit}
count=${4:-8192}
algo=${5:-topo}
model=${6:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
gcc -O2 -I"$src/include" -o "$bin/place-time" "$src/tools/dev/place-time.c" \
    -L"$b/.libs" -lrtopo -Wl,-rpath,"$(cd "$b/.libs" && pwd)"

extra=
[ -n "$model" ] && extra="--cost $model --chunks 0"
echo "# counted: rtopo-sim otis OP --topo otis-mesh:4 --algo $algo --dtype int64 --count $count --hosts 4 --map-by host --place P${extra:+ $extra (no --chunks for sort)} --json"
printf '%-11s %-5s %12s %12s %12s %12s\n' op place inter_moves inter_bytes otis_inter intra_bytes
for op in broadcast data_sum prefix_sum sort; do
    for pl in rank host; do
        x=$extra
        [ $op = sort ] && x=${extra% --chunks 0}
        # shellcheck disable=SC2086
        "$b/tools/rtopo-sim" otis $op --topo otis-mesh:4 --algo "$algo" --dtype int64 \
            --count "$count" --hosts 4 --map-by host --place $pl $x --json |
        python3 -c '
import json, sys
j = json.load(sys.stdin)["hosts"]
o = j["links"].get("otis", {"inter_moves": 0})
print("%-11s %-5s %12d %12d %12d %12d" % (sys.argv[1], sys.argv[2], j["inter_moves"],
      j["inter_bytes"], o["inter_moves"], j["intra_bytes"]))' $op $pl
    done
done

echo "# measured: RTOPO_PLACE=P RTOPO_COLL_ALGO=$algo rtopo-run -n 16 --hosts 4 --map-by host --link-rate $rate place-time 4 $count 15"
i=0
while [ $i -lt "$jobs" ]; do
    i=$((i + 1))
    for pl in rank host; do
        [ $((i % 2)) -eq 0 ] && pl=$([ $pl = rank ] && echo host || echo rank)
        RTOPO_PLACE=$pl RTOPO_COLL_ALGO=$algo timeout 300 "$b/tools/rtopo-run" -n 16 \
            --hosts 4 --map-by host --link-rate "$rate" --timeout 280 --quiet \
            "$bin/place-time" 4 "$count" 15 | sed "s/^/job $i: /"
    done
done
