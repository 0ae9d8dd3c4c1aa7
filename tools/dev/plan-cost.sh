#!/bin/sh
# plan-cost.sh - what one rank's plan costs at its first call, for every
# collective: rtopo-sim otis OP --plan R builds the schedule that rank R's
# plan holds (as the runtime does) and prints the build time, the bytes
# kept and the growth of the peak RSS.  One process per operation, so the
# peak is the operation's own.
#
#   tools/dev/plan-cost.sh SIM TOPO [RANK] [LIMIT] [OPTIONS]
#
# SIM: the rtopo-sim binary; TOPO: an otis-mesh:N or otis-hypercube:N;
# RANK: the rank whose plan is built (default: p/2); LIMIT: processor
# seconds per operation (default 300; a run cut off prints "cut off");
# OPTIONS: more rtopo-sim options for every operation (one word list,
# e.g. "--count 4096 --chunks 0").  PLAN_OPS, when set, names the
# operations to run (default: every collective).  A run that may pass
# 2 GB of memory (the sort's at 65,536 ranks) belongs under
# `flock /tmp/rtopo-bigmem.lock`.
# Each line ends with the process's processor time (user + system, from
# /usr/bin/time): on a loaded machine the build time rtopo-sim prints is
# wall time, the processor time is what the build cost.
set -u
sim=$1
topo=$2
rank=${3:-}
limit=${4:-300}
extra=${5:-}
n=${topo#*:}
p=$((n * n))
[ -n "$rank" ] || rank=$((p / 2))
case $topo in
otis-mesh:*) along=py ;;
*) along=p ;;
esac
ops=${PLAN_OPS:-"broadcast window_broadcast prefix_sum data_sum shift accumulate \
     adjacent_sum consecutive_sum rank concentrate distribute generalize \
     bpc sort random_write random_read"}
for op in $ops; do
    case $op in
    shift) args="--kind a --s 1" ;;
    accumulate|adjacent_sum) args="--along $along --m 2" ;;
    consecutive_sum) args="--along $along --block 2" ;;
    *) args= ;;
    esac
    tf=$(mktemp)
    out=$(ulimit -t "$limit"; timeout $((limit * 20)) /usr/bin/time -f "%U %S" -o "$tf" \
          "$sim" otis "$op" --topo "$topo" $args $extra --plan "$rank" 2>&1)
    rc=$?
    cpu=$(awk 'END { if (NF == 2) printf "%.2f", $1 + $2 }' "$tf")
    rm -f "$tf"
    if [ $rc -ne 0 ] && [ -z "$out" -o $rc -ge 124 ]; then
        echo "plan of rank $rank: $op on $p ranks: cut off after ${limit} s (exit $rc)"
    elif [ $rc -ne 0 ]; then
        echo "plan of rank $rank: $op on $p ranks: exit $rc: $out"
    else
        echo "$out, processor ${cpu} s"
    fi
done
