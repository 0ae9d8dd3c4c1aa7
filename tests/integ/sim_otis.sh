#!/bin/sh
# rtopo-sim otis: Wang and Sahni's basic operations on the OTIS
# topologies under the model, no network.  Every operation runs on
# otis-mesh:4, otis-mesh:16 and otis-hypercube:4 with --check (random
# data against the serial reference; circular shifts against a direct
# serial shift) and must be correct; with the paper's algorithm, one
# element and whole registers the OTIS-mesh move counts must be SPEC
# 5.5's SIMD table (s = sqrt(N)): broadcast 4(s-1) electronic and 1 OTIS,
# window broadcast 4s-2w-2 and 2, prefix sum 7(s-1) and 2, data sum
# 8(s-1) and 1 (MIMD: 4s, s even here), zero-fill shift by S |S| and 0
# along P, |S| and 2 along G, circular shift s and 0 along P, s and 2
# along G, consecutive sum of blocks of M 4(M-1) and 0 along P, 2 along
# G; on the OTIS-hypercube (N = 2^d) the accumulation and the adjacent
# sum d and the consecutive sum log2 M electronic moves, 2 OTIS moves
# along G, none off the topology's links.  Rank, concentrate, distribute and generalize run on otis-mesh:4,
# :16 and :64 (rank also elsewhere) with --check (random selections,
# random increasing destinations for a prefix of random length; RECV and
# got against the reference) and must be correct, with rank 7(s-1) and
# 2 moves, distribute 7(s-1) (MIMD 4(s-1)) and 2, concentrate its rank
# then 7(s-1) (MIMD 4(s-1)) and 2, generalize with --algo topo (the
# paper's single routing, on several seeds) 7(s-1) (MIMD 4(s-1)) and 2,
# and with auto (two routings, checked) 14(s-1) (MIMD 8(s-1)) and 4.
# The JSON must parse (when python3 is there) and bad arguments exit 2.  The data come from SIM_OTIS_SEED
# (default: the clock), printed so that a failure can be replayed.
top_builddir=${top_builddir:-.}
SIM="$top_builddir/tools/rtopo-sim"
seed=${SIM_OTIS_SEED:-$(( $(date +%s) % 100000 + 1 ))}
fails=0
runs=0
start=$(date +%s)

fail() {
    echo "FAIL: $* (seed $seed)"
    fails=$((fails + 1))
}

# field NAME: a top-level number or string of the JSON object in $json
# (the hops object and the rounds come after the scalars)
field() {
    printf '%s\n' "${json%%,\"rounds\"*}" |
        sed -n "s/.*[{,]\"$1\":\(\"[^\"]*\"\|[^,}]*\).*/\1/p" | head -1 | tr -d '"'
}

# every object goes to $all, one per line; wellformed parses them all at
# the end (skipped without python3): one interpreter, not one per run
all=$(mktemp) || exit 99
trap 'rm -f "$all"' EXIT
wellformed() {
    command -v python3 >/dev/null 2>&1 || return 0
    python3 -c '
import json, sys
bad = 0
for i, line in enumerate(open(sys.argv[1])):
    try:
        json.loads(line)
    except ValueError as e:
        print("FAIL: run %d: not JSON: %s: %s" % (i + 1, e, line[:200]))
        bad += 1
sys.exit(1 if bad else 0)' "$all"
}

# run DESC ARGS...: rtopo-sim otis ARGS --check --json into $json (and
# $all); checks the exit status and correct=1
run() {
    desc=$1
    shift
    runs=$((runs + 1))
    json=$(timeout 900 "$SIM" otis "$@" --check --json --seed "$seed")
    rc=$?
    [ "$rc" = 0 ] || { fail "$desc: exit status $rc"; return 1; }
    printf '%s\n' "$json" >>"$all"
    [ "$(field correct)" = 1 ] || { fail "$desc: correct $(field correct)"; return 1; }
    return 0
}

# moves DESC ELECTRONIC OTIS: the counts of $json (electronic_moves is the
# model asked for: SIMD unless --model mimd)
moves() {
    if [ "$(field electronic_moves)" != "$2" ] || [ "$(field otis_moves)" != "$3" ]; then
        fail "$1: $(field electronic_moves) electronic and $(field otis_moves) OTIS moves, SPEC 5.5: $2 and $3"
    fi
}

paper="--algo topo --count 1 --chunks 1"
echo "sim_otis: seed $seed"

for t in otis-mesh:4 otis-mesh:16 otis-hypercube:4; do
    N=${t#*:}
    p=$((N * N))
    case $t in
    otis-mesh:*)
        mesh=1
        s=1
        while [ $((s * s)) -lt "$N" ]; do s=$((s + 1)); done
        gdims="gx gy"; pdims="px py"; E=$s
        ;;
    *)
        mesh=0
        gdims="g"; pdims="p"; E=$N
        ;;
    esac
    echo "+ $t"

    # broadcast: the root's data everywhere
    for root in 0 $((p - 1)) $((p / 2 + 1)); do
        # shellcheck disable=SC2086
        if run "$t broadcast root $root" broadcast --topo "$t" --root "$root" $paper &&
            [ "$mesh" = 1 ]; then
            moves "$t broadcast root $root" $((4 * (s - 1))) 1
        fi
        run "$t broadcast root $root, auto, 5 doubles" broadcast --topo "$t" --root "$root" \
            --count 5 --dtype double
    done

    # window broadcast: OTIS-mesh only, every w dividing s
    if [ "$mesh" = 1 ]; then
        w=1
        while [ "$w" -le "$s" ]; do
            if [ $((s % w)) = 0 ]; then
                for g in 0 $((N - 1)); do
                    # shellcheck disable=SC2086
                    run "$t window_broadcast w $w group $g" window_broadcast --topo "$t" \
                        --window "$w" --root "$g" $paper &&
                        moves "$t window_broadcast w $w group $g" $((4 * s - 2 * w - 2)) 2
                done
                run "$t window_broadcast w $w, auto, 3 int64" window_broadcast --topo "$t" \
                    --window "$w" --root 1 --count 3 --dtype int64
            fi
            w=$((w + 1))
        done
    fi

    # prefix sum and data sum, every datatype and operator once
    for dt in int32 int64 float double; do
        for op in sum prod min max; do
            # shellcheck disable=SC2086
            run "$t prefix_sum $dt $op" prefix_sum --topo "$t" --dtype "$dt" --op "$op" $paper &&
                [ "$mesh" = 1 ] && moves "$t prefix_sum $dt $op" $((7 * (s - 1))) 2
            # shellcheck disable=SC2086
            run "$t data_sum $dt $op" data_sum --topo "$t" --dtype "$dt" --op "$op" $paper &&
                [ "$mesh" = 1 ] && moves "$t data_sum $dt $op" $((8 * (s - 1))) 1
        done
        run "$t prefix_sum $dt, auto, 5 elements" prefix_sum --topo "$t" --dtype "$dt" --count 5 \
            --chunks 0
        run "$t data_sum $dt, auto, 5 elements" data_sum --topo "$t" --dtype "$dt" --count 5 \
            --chunks 0
    done
    if [ "$mesh" = 1 ]; then
        # shellcheck disable=SC2086
        run "$t data_sum MIMD" data_sum --topo "$t" --model mimd $paper &&
            moves "$t data_sum MIMD" $((s % 2 ? 4 * (s - 1) : 4 * s)) 1
    fi

    # shifts: every kind, every displacement inside the line
    for k in a b c d e f g h; do
        case $k in a|b|c|d) along=P ;; *) along=G ;; esac
        S=$((1 - E))
        while [ "$S" -lt "$E" ]; do
            # shellcheck disable=SC2086
            if run "$t shift ($k) by $S" shift --topo "$t" --kind "$k" --s "$S" $paper; then
                case $k in
                a|b|e|f)
                    [ "$(field circular)" = false ] || fail "$t shift ($k): not zero fill"
                    if [ "$mesh" = 1 ] && [ "$S" != 0 ]; then
                        abs=${S#-}
                        moves "$t shift ($k) by $S" "$abs" "$([ $along = G ] && echo 2 || echo 0)"
                    fi
                    ;;
                *)
                    [ "$(field circular)" = true ] || fail "$t shift ($k): not circular"
                    # SPEC 5.5 (c), (d), (g), (h): sqrt(N) SIMD moves
                    if [ "$mesh" = 1 ] && [ "$S" != 0 ]; then
                        moves "$t shift ($k) by $S" "$s" "$([ $along = G ] && echo 2 || echo 0)"
                    fi
                    ;;
                esac
            fi
            S=$((S + 1))
        done
        run "$t shift ($k) by $E, 7 elements" shift --topo "$t" --kind "$k" --s "$E" --count 7 \
            --dtype int32
    done

    # accumulate, adjacent sum along every dimension, every M; consecutive
    # sum for every M dividing the extent
    for X in $gdims $pdims; do
        M=1
        while [ "$M" -le "$E" ]; do
            # shellcheck disable=SC2086
            run "$t accumulate along $X M $M" accumulate --topo "$t" --along "$X" --m "$M" \
                --count 2 --chunks 0
            run "$t adjacent_sum along $X M $M" adjacent_sum --topo "$t" --along "$X" --m "$M" \
                --dtype float --op max --count 2
            if [ $((E % M)) = 0 ] &&
                run "$t consecutive_sum along $X M $M" consecutive_sum --topo "$t" --along "$X" \
                    --block "$M" --dtype int64 && [ "$mesh" = 1 ] && [ "$M" -gt 1 ]; then
                # SPEC 5.5: 4(M-1) SIMD moves, 2 OTIS moves when aligned with G
                # (M = 1 adds nothing: whether it moves is the generator's call)
                case $X in g*) o=2 ;; *) o=0 ;; esac
                moves "$t consecutive_sum along $X M $M" $((4 * (M - 1))) "$o"
            fi
            if [ "$mesh" = 0 ] && [ "$M" -gt 1 ]; then
                # the group's cube (d = log2 N): d moves for the accumulation
                # and the adjacent sum, log2 M for the consecutive sum, both
                # models; 2 OTIS moves along G; no DIRECT hop
                d=0
                while [ $((1 << d)) -lt "$N" ]; do d=$((d + 1)); done
                case $X in g*) o=2 ;; *) o=0 ;; esac
                for op in accumulate adjacent_sum consecutive_sum; do
                    want=$d
                    if [ $op = consecutive_sum ]; then
                        [ $((E % M)) = 0 ] || continue
                        want=0
                        while [ $((1 << want)) -lt "$M" ]; do want=$((want + 1)); done
                    fi
                    # shellcheck disable=SC2086
                    run "$t $op along $X M $M, the paper's terms" $op --topo "$t" --along "$X" \
                        --m "$M" $paper || continue
                    moves "$t $op along $X M $M" "$want" "$o"
                    [ "$(field other_moves)" = 0 ] && [ "$(field direct)" = 0 ] ||
                        fail "$t $op along $X M $M: $(field other_moves) moves off the topology's links"
                done
            fi
            M=$((M + 1))
        done
    done
done

# other topologies: broadcast, prefix sum, data sum, rank
for t in ring:7 mesh:3x4 hypercube:3; do
    for op in broadcast prefix_sum data_sum; do
        run "$t $op" "$op" --topo "$t" --count 3 --dtype double
    done
    for a in auto topo generic; do
        run "$t rank $a" rank --topo "$t" --algo "$a"
    done
done
run "otis-hypercube:4 rank" rank --topo otis-hypercube:4 --algo topo

# mimd DESC ELECTRONIC: the MIMD electronic count of $json (reported with
# either model)
mimd() {
    [ "$(field electronic)" = "$2" ] ||
        fail "$1: $(field electronic) MIMD electronic moves, expected $2"
}

# rank and the routing operations on the OTIS-mesh, the paper's algorithm
for N in 4 16 64; do
    t=otis-mesh:$N
    s=1
    while [ $((s * s)) -lt "$N" ]; do s=$((s + 1)); done
    s1=$((s - 1))
    echo "+ $t rank and routing"
    run "$t rank" rank --topo "$t" --algo topo && moves "$t rank" $((7 * s1)) 2
    run "$t rank, auto" rank --topo "$t"
    [ "$N" = 64 ] && records=8 || records="1 8 100"
    for R in $records; do
        if run "$t concentrate record $R" concentrate --topo "$t" --record "$R" --algo topo; then
            moves "$t concentrate record $R" $((14 * s1)) 4
            # the prefix sum is a rank, the routing the rest
            if [ "$(field rank_electronic_moves)" != $((7 * s1)) ] ||
                [ "$(field rank_otis_moves)" != 2 ]; then
                fail "$t concentrate: rank part $(field rank_electronic_moves) and $(field rank_otis_moves) moves, expected $((7 * s1)) and 2"
            fi
        fi
        run "$t distribute record $R" distribute --topo "$t" --record "$R" --algo topo && {
            moves "$t distribute record $R" $((7 * s1)) 2
            mimd "$t distribute record $R" $((4 * s1))
        }
        run "$t generalize record $R" generalize --topo "$t" --record "$R" && {
            [ "$(field algo)" = auto ] ||
                fail "$t generalize record $R: algorithm $(field algo), expected auto"
            moves "$t generalize record $R" $((14 * s1)) 4
            mimd "$t generalize record $R" $((8 * s1))
        }
    done
    # the paper's generalize, one routing: SIMD and MIMD counts, on inputs
    # of this seed and the next ones
    [ "$N" = 64 ] && gseeds=2 || gseeds=5
    for k in $(seq 0 $((gseeds - 1))); do
        for m in simd mimd; do
            d="$t generalize --algo topo --model $m, seed $((seed + k))"
            [ "$m" = simd ] && want=$((7 * s1)) || want=$((4 * s1))
            runs=$((runs + 1))
            json=$(timeout 900 "$SIM" otis generalize --topo "$t" --algo topo --model "$m" \
                   --record $((k % 2 ? 13 : 8)) --check --json --seed $((seed + k)))
            rc=$?
            if [ "$rc" != 0 ] || [ "$(field correct)" != 1 ]; then
                fail "$d: exit status $rc, correct $(field correct)"
                continue
            fi
            printf '%s\n' "$json" >>"$all"
            [ "$(field algo)" = topo ] || fail "$d: algorithm $(field algo), expected topo"
            moves "$d" "$want" 2
        done
    done
    # the routing part of the concentrate in the MIMD model
    if run "$t concentrate MIMD" concentrate --topo "$t" --model mimd; then
        e=$(field electronic_moves)
        re=$(field rank_electronic_moves)
        if [ $((e - re)) != $((4 * s1)) ] ||
            [ $(($(field otis_moves) - $(field rank_otis_moves))) != 2 ]; then
            fail "$t concentrate MIMD: $e electronic moves, $re of them the rank's, expected $((4 * s1)) for the routing"
        fi
    fi
done

# the routing operations on the OTIS-hypercube (groups of 2^d): a routing
# crosses the d bits of P, OTIS, those of G, OTIS: 2d electronic and 2 OTIS
# moves; the concentrate adds the rank's, the distribute and the
# generalize take two routings (the order checked first)
for N in 4 16 64; do
    t=otis-hypercube:$N
    d=0
    while [ $((1 << d)) -lt "$N" ]; do d=$((d + 1)); done
    echo "+ $t routing"
    [ "$N" = 64 ] && records=8 || records="1 8 100"
    for R in $records; do
        if run "$t concentrate record $R" concentrate --topo "$t" --record "$R" --algo topo; then
            e=$(($(field electronic_moves) - $(field rank_electronic_moves)))
            o=$(($(field otis_moves) - $(field rank_otis_moves)))
            [ "$e" = $((2 * d)) ] && [ "$o" = 2 ] ||
                fail "$t concentrate record $R: routing $e electronic and $o OTIS moves, expected $((2 * d)) and 2"
        fi
        for op in distribute generalize; do
            for a in topo auto; do
                run "$t $op record $R $a" "$op" --topo "$t" --record "$R" --algo "$a" &&
                    moves "$t $op record $R $a" $((4 * d)) 4
            done
        done
    done
    [ "$N" = 64 ] || {
        run "$t random_write" random_write --topo "$t" --record 24
        run "$t random_read" random_read --topo "$t" --record 1
    }
done

wellformed || fail "some JSON objects do not parse"

# the text report
out=$(timeout 600 "$SIM" otis data_sum --topo otis-mesh:16 --algo topo --check --seed "$seed") ||
    fail "text output: exit status $?"
printf '%s\n' "$out" | grep -q '^correct  *yes' || fail "text output: no 'correct yes'"
printf '%s\n' "$out" | grep -q '^moves (SIMD)  *24 electronic, 1 OTIS' ||
    fail "text output: no 'moves (SIMD) 24 electronic, 1 OTIS'"

# BPC, sort and random access against the reference on otis-mesh:4 and :16
# (random access on :64 too)
for n in 4 16; do
    run "bpc reversal n $n" bpc --topo "otis-mesh:$n" --count 3
    [ "$(field otis_moves)" -le 1 ] || fail "bpc reversal n $n: $(field otis_moves) OTIS moves"
    run "bpc [-0, 1, 2, -3] or shuffle n $n" bpc --topo "otis-mesh:$n" \
        --vector "$([ "$n" = 4 ] && echo '[-0, 1, 2, -3]' || echo shuffle)"
    run "sort int32 n $n" sort --topo "otis-mesh:$n" --count 5
    run "sort double desc n $n" sort --topo "otis-mesh:$n" --count 9 --dtype double \
        --desc --algo topo --record 20
    run "sort int64 generic n $n" sort --topo "otis-mesh:$n" --count 3 --dtype int64 \
        --algo generic
    run "random_write n $n" random_write --topo "otis-mesh:$n" --record 24
    run "random_read n $n" random_read --topo "otis-mesh:$n" --record 1
done
# and on 4096 ranks (otis-mesh:64): each whole schedule, sort included,
# simulated in one process (about 10 s and 2 GB for the read)
run "random_write n 64" random_write --topo otis-mesh:64 --record 8
run "random_read n 64" random_read --topo otis-mesh:64 --record 4

# bad arguments: exit status 2
for args in "bpc --topo otis-mesh:4 --vector '[0, 1]'" "bpc --topo ring:6" \
    "sort --topo otis-mesh:4 --record 2 --dtype int32" "sort --topo otis-mesh:4 --vector identity" \
    "random_read --topo otis-hypercube:4 --count 2" "random_write --topo otis-mesh:4 --count 2" \
    "sort --topo otis-mesh:4 --op max" \ "window_broadcast --topo otis-hypercube:4" \
    "window_broadcast --topo otis-mesh:16 --window 3" \
    "broadcast --topo otis-mesh:4 --root 16" "nosuchop --topo otis-mesh:4" \
    "shift --topo otis-mesh:4 --kind a" "shift --topo ring:4 --kind a --s 1" \
    "shift --topo otis-mesh:4 --kind i --s 1" "accumulate --topo otis-mesh:16 --dim 4 --m 1" \
    "consecutive_sum --topo otis-mesh:16 --along px --block 3" \
    "accumulate --topo otis-mesh:16 --dim 2 --m 5" "data_sum --topo otis-mesh:4 --model fast" \
    "data_sum --topo otis-mesh:4 --dtype char" "data_sum" "--topo otis-mesh:4" \
    "concentrate --topo otis-hypercube:4 --algo generic" "distribute --topo ring:4" \
    "generalize --topo otis-mesh:4 --algo generic" "distribute --topo otis-mesh:4 --record 0" \
    "concentrate --topo otis-mesh:4 --record 2G" "rank --topo otis-mesh:4 --record 8" \
    "distribute --topo otis-mesh:4 --count 2" "rank --topo otis-mesh:4 --dtype int64" \
    "generalize --topo otis-mesh:4 --dim 1 --m 1"; do
    # shellcheck disable=SC2086
    timeout 600 "$SIM" otis $args >/dev/null 2>&1
    rc=$?
    [ "$rc" = 2 ] || fail "'rtopo-sim otis $args' exited $rc, expected 2"
done

echo "sim_otis: $runs runs, $fails failure(s), $(( $(date +%s) - start )) s"
[ "$fails" = 0 ]
