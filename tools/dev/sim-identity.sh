#!/bin/sh
# sim-identity.sh - run a fixed, broad set of rtopo-sim commands and keep
# each one's output, so that two builds can be held against each other
# byte for byte (a refactor of topo/ must not change a schedule).
#
#   tools/dev/sim-identity.sh list                 the commands, one a line
#   tools/dev/sim-identity.sh run RTOPO_SIM OUTDIR  run each, OUTDIR/NNNN
#   tools/dev/sim-identity.sh diff DIR1 DIR2        compare two runs
#
# Each output file holds the command, its exit status, its standard
# output and its standard error.  The commands cover every collective of
# `rtopo-sim otis` on the OTIS-mesh and the OTIS-hypercube (and, for those
# that run there, a ring, a mesh and a hypercube) under each algorithm,
# with pieces, --check, --json and --rounds, arguments each operation
# refuses, and some shifts, dimension shifts and scatters.
set -eu

list() {
    otis="otis-mesh:4 otis-mesh:9 otis-mesh:16 otis-hypercube:4 otis-hypercube:8"
    other="ring:6 mesh:3x4 hypercube:3"
    for t in $otis $other; do
        for algo in auto topo generic; do
            for op in broadcast prefix_sum data_sum; do
                for dt in "--dtype int32 --op sum" "--dtype double --op max"; do
                    echo "otis $op --topo $t --algo $algo --count 5 $dt --check --seed 3"
                done
                echo "otis $op --topo $t --algo $algo --count 4096 --chunks 0 --json"
                echo "otis $op --topo $t --algo $algo --count 3 --rounds"
            done
            echo "otis broadcast --topo $t --algo $algo --root 2 --count 7 --check"
            echo "otis rank --topo $t --algo $algo --check --seed 5"
            echo "otis sort --topo $t --algo $algo --count 6 --check --seed 2"
            echo "otis sort --topo $t --algo $algo --count 3 --record 20 --desc --dtype double --check --json"
        done
        echo "otis sort --topo $t --count 200 --dtype int64 --check"
        echo "otis sort --topo $t --count 2 --rounds"
        echo "otis accumulate --topo $t --dim 0 --m 2 --count 3 --check"
        echo "otis adjacent_sum --topo $t --dim 1 --m 2 --count 2 --op prod --check --json"
        echo "otis adjacent_sum --topo $t --dim 0 --m 1 --count 2 --chunks 0"
        echo "otis consecutive_sum --topo $t --dim 1 --m 2 --count 2 --check"
        echo "otis shift --topo $t --dim 0 --s 1 --count 4 --check"
        echo "otis shift --topo $t --dim 1 --s -1 --count 4 --rounds"
        echo "otis window_broadcast --topo $t"
        echo "otis bpc --topo $t --vector transpose"
        echo "otis concentrate --topo $t"
        echo "otis broadcast --topo $t --root 99"
        echo "otis accumulate --topo $t --dim 9 --m 1"
        echo "otis accumulate --topo $t --dim 0 --m 0"
        echo "otis consecutive_sum --topo $t --dim 0 --m 5"
    done
    for t in otis-mesh:4 otis-mesh:16 otis-hypercube:4 otis-hypercube:8 hypercube:4 ring:8 mesh:4x4; do
        for v in identity transpose reversal shuffle unshuffle; do
            echo "otis bpc --topo $t --vector $v --count 3 --check"
        done
        echo "otis bpc --topo $t --vector reversal --count 2 --json --rounds"
    done
    for t in otis-mesh:4 otis-mesh:9 otis-mesh:16 otis-hypercube:4 otis-hypercube:8; do
        for op in concentrate distribute generalize random_write random_read; do
            for algo in auto topo; do
                for rec in 1 8 20; do
                    echo "otis $op --topo $t --algo $algo --record $rec --check --seed 7"
                done
                echo "otis $op --topo $t --algo $algo --record 12 --json"
                echo "otis $op --topo $t --algo $algo --rounds"
            done
            echo "otis $op --topo $t --algo generic"
            echo "otis $op --topo $t --record 0"
            echo "otis $op --topo $t --record 2G"
            echo "otis $op --topo $t --record 1G --json"
        done
        echo "otis shift --topo $t --kind c --s 1 --count 2 --check"
        echo "otis shift --topo $t --kind e --s 1 --count 2 --json"
    done
    for t in otis-mesh:4 otis-mesh:16; do
        for w in 1 2 4; do
            echo "otis window_broadcast --topo $t --root 1 --window $w --count 3 --check"
            echo "otis window_broadcast --topo $t --root 0 --window $w --count 2048 --chunks 0 --json"
        done
        echo "otis window_broadcast --topo $t --window 3"
        echo "otis window_broadcast --topo $t --root 77"
        echo "otis accumulate --topo $t --along px --block 2 --count 2 --check"
        echo "otis consecutive_sum --topo $t --along gy --block 2 --count 3 --check --json"
    done
    for t in ring:8 mesh:4x4 hypercube:3 otis-mesh:4; do
        echo "shift --topo $t --all-q --bytes 64K"
        echo "shift --topo $t --q 3 --check --json"
    done
    for d in 2 3; do
        echo "scatter --d $d --check"
    done
    echo "shift-dim --topo mesh:4x4 --dim 0 --all-disp"
    echo "otis sort --topo ring:200 --algo generic --count 2"
    echo "otis sort --topo otis-mesh:4 --algo topo --count 2 --chunks 0 --json"
    echo "otis nosuchop --topo otis-mesh:4"
}

case ${1:-} in
list)
    list
    ;;
run)
    [ $# -eq 3 ] || { echo "usage: $0 run RTOPO_SIM OUTDIR" >&2; exit 2; }
    sim=$2
    out=$3
    mkdir -p "$out"
    i=0
    list | while IFS= read -r cmd; do
        i=$((i + 1))
        f=$(printf '%s/%04d' "$out" "$i")
        # shellcheck disable=SC2086
        rc=0
        timeout 300 "$sim" $cmd >"$f.out" 2>"$f.err" </dev/null || rc=$?
        { echo "\$ rtopo-sim $cmd"; echo "exit $rc"; cat "$f.out"; echo "-- stderr"; cat "$f.err"; } >"$f"
        rm -f "$f.out" "$f.err"
    done
    echo "$(list | wc -l) commands, outputs in $out"
    ;;
diff)
    [ $# -eq 3 ] || { echo "usage: $0 diff DIR1 DIR2" >&2; exit 2; }
    n=$(ls "$2" | wc -l)
    if diff -r "$2" "$3" >/dev/null; then
        echo "identical: $n outputs"
    else
        diff -r "$2" "$3" | head -n 60
        echo "DIFFERENT (of $n outputs)"
        exit 1
    fi
    ;;
*)
    echo "usage: $0 list | run RTOPO_SIM OUTDIR | diff DIR1 DIR2" >&2
    exit 2
    ;;
esac
