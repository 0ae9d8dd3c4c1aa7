#!/bin/sh
# sim-scale.sh - rtopo-sim at scale: every operation on 65,536 ranks with
# --check, and broadcast, prefix sum and shift on 1,048,576 ranks without,
# each timed with /usr/bin/time -v (wall time, processor time: user +
# system, peak resident set) under `timeout`, one table row per command.
# On a machine shared with other work the wall time follows the load; the
# processor time is what the run cost.
#
#   tools/dev/sim-scale.sh list                    the commands, one a line
#   tools/dev/sim-scale.sh run RTOPO_SIM [LIMIT]    run each (LIMIT seconds,
#                                                  default 120), print the table
#   tools/dev/sim-scale.sh run RTOPO_SIM LIMIT PATTERN   only commands matching
#
# The big runs take gigabytes: each holds /tmp/rtopo-bigmem.lock while it
# runs, so that machines shared by several builds run one at a time;
# SIM_SCALE_VMEM=KB runs them without the lock under `ulimit -v KB`
# instead (a run that needs more fails).
set -eu

list() {
    t=otis-mesh:256
    for op in broadcast window_broadcast prefix_sum data_sum rank concentrate \
              distribute generalize random_write random_read sort; do
        echo "65536 otis $op --topo $t --check"
    done
    echo "65536 otis bpc --topo $t --vector reversal --check"
    echo "65536 otis shift --topo $t --kind a --s 1 --check"
    echo "65536 otis shift --topo $t --kind h --s 1 --check"
    echo "65536 otis accumulate --topo $t --dim 2 --m 2 --check"
    echo "65536 otis adjacent_sum --topo $t --dim 3 --m 2 --check"
    echo "65536 otis consecutive_sum --topo $t --dim 0 --m 2 --check"
    echo "65536 shift --topo mesh:256x256 --q 1 --check"
    echo "65536 shift-dim --topo mesh:256x256 --dim 0 --disp 1 --check"
    echo "65537 scatter --d 16 --check"
    echo "1048576 otis broadcast --topo otis-mesh:1024"
    echo "1048576 otis prefix_sum --topo otis-mesh:1024"
    echo "1048576 otis prefix_sum --topo otis-mesh:1024 --algo topo"
    echo "1048576 otis data_sum --topo otis-mesh:1024"
    echo "1048576 otis broadcast --topo hypercube:20"
    echo "1048576 otis prefix_sum --topo hypercube:20"
    echo "1048576 shift --topo mesh:1024x1024 --q 1"
    echo "1048576 shift --topo hypercube:20 --q 1"
}

case ${1:-} in
list)
    list
    ;;
run)
    [ $# -ge 2 ] || { echo "usage: $0 run RTOPO_SIM [LIMIT [PATTERN]]" >&2; exit 2; }
    sim=$2
    limit=${3:-120}
    pat=${4:-}
    tmp=$(mktemp -d) || exit 1
    trap 'rm -rf "$tmp"' EXIT
    printf '| ranks | command | exit | wall s | processor s | peak RSS MB |\n|---|---|---|---|---|---|\n'
    list | while read -r ranks cmd; do
        case $cmd in *$pat*) ;; *) continue ;; esac
        rc=0
        # shellcheck disable=SC2086
        if [ -n "${SIM_SCALE_VMEM:-}" ]; then
            (ulimit -v "$SIM_SCALE_VMEM" && /usr/bin/time -v -o "$tmp/time" \
                timeout "$limit" "$sim" $cmd >"$tmp/out" 2>"$tmp/err" </dev/null) || rc=$?
        else
            flock /tmp/rtopo-bigmem.lock /usr/bin/time -v -o "$tmp/time" \
                timeout "$limit" "$sim" $cmd >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
        fi
        wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time" |
               awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.1f", s }')
        cpu=$(sed -n 's/.*\(User\|System\) time (seconds): //p' "$tmp/time" |
              awk '{ s += $1 } END { printf "%.1f", s }')
        rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time" |
              awk '{ printf "%.0f", $1 / 1024 }')
        res=$(grep -m1 '^correct\|"correct"' "$tmp/out" | sed 's/.*correct[": ]*\([a-z0-9-]*\).*/\1/' || true)
        [ $rc -eq 124 ] && wall=">$limit"
        printf '| %s | `rtopo-sim %s` | %s%s | %s | %s | %s |\n' "$ranks" "$cmd" "$rc" \
            "${res:+ ($res)}" "$wall" "$cpu" "$rss"
    done
    ;;
*)
    echo "usage: $0 list | run RTOPO_SIM [LIMIT [PATTERN]]" >&2
    exit 2
    ;;
esac
