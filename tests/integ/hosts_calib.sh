#!/bin/sh
# Calibration per reach across emulated hosts (rtopo-run --hosts,
# namespaces).  8 ranks on 2 hosts of 4, every host link limited to
# 50mbit (tc tbf), RTOPO_MODEL=auto: creating a hypercube measures an
# intra-host pair (labels 0, 1: shared memory) and an inter-host pair
# (labels 0, 4: the rate-limited network) and gives the model both as its
# intra and inter reach parameters.  Checked from the debug log:
#   - every rank logs the same two measured pairs, the intra-host one
#     0<->1 and the inter-host one 0<->4, each once (the job measures a
#     reach once, however many topologies it creates);
#   - the inter-host per-byte time is far above the intra-host one (the
#     two measured classes compared, no wall-clock figure): the rate limit
#     is 6.25 MB/s, shared memory moves hundreds of MB/s even on a loaded
#     machine, so the test asks for a factor of 4 only;
#   - every rank's model line carries those figures as intra.* and inter.*;
#   - each pair's tw comes from the shortest run of its stream: rank 0
#     (label 0 times both pairs) logs the runs of each pair's stream
#     once, at least 5 of them (2, then 3 at least: a 50mbit link takes
#     a run of 1 MiB far over 50 ms), and the stream time it takes is the
#     shortest of them, and half the shortest round trip (at most a
#     fifth of the stream) + 1 MiB tw;
#   - RTOPO_MODEL=auto,inter.bw=1G measures the intra-host pair only and
#     the model takes inter.tw=1ns from the list;
#   - a machine with more ranks than processors (8 ranks, `nproc` below 8:
#     emulated hosts share the machine's processors): every rank logs the
#     burst once, with the same tq and tt, and every rank's model carries
#     them (the pairs have a turn: the burst fits tt, tq 0, even where
#     their round trips left no tt; each pair's ts at most half its
#     shortest round trip, ts + tt half its median round trip)
#     and lanes = nproc; with 8 processors or more, no burst and no tq;
#     RTOPO_MODEL=auto,tq=20us times no burst and every model has
#     tq=20us (and the lanes as before);
#   - the reduction kernel: every rank logs label 0's measured tk once,
#     the same on every rank, above 0, and every rank's model carries it;
#     RTOPO_MODEL=auto,tk=3ns times no kernel and every model has tk=3ns.
#   - the copy inside a rank (the local class): every rank logs label 0's
#     measured local ts and tw once, the same on every rank (tw above 0:
#     256 KiB take longer than 8 B), and every model line of every rank
#     carries them as local.ts and local.tw; rtopo-sim takes the logged
#     model back: a shift by p on a ring (every rank copies its bytes
#     locally) of 1 MiB costs local.ts + 1 MiB local.tw under it;
#     RTOPO_MODEL=auto,local.ts=1us,local.tw=0.5ns times no copy (the
#     kernel still) and every model has those figures; with tk=3ns in the
#     list the copy is still timed.
# After each job, the leftover check.  REPEAT rounds (default 1).
. "$(dirname "$0")/hosts_lib.sh"
repeat=${REPEAT:-1}
COLL=$builddir/tests/integ/coll_check
[ -x "$COLL" ] || { echo "coll_check is not built"; exit 99; }
if ! "$builddir/tools/rtopo-info" --check shm > /dev/null 2>&1; then
    echo "shm is not usable here: skipped"
    exit 77
fi
n=8

# job MODEL: one bounded job that creates a hypercube (and broadcasts on
# it), log at debug
job() {
    echo "+ round $round: RTOPO_MODEL=$1 rtopo-run -n $n --hosts 2 --link-rate 50mbit coll_check"
    RTOPO_MODEL=$1 RTOPO_LOG_LEVEL=debug hosts_run 300 -n $n --hosts 2 --link-rate 50mbit \
        --transport auto "$COLL" --topo hypercube:3 --algos auto --ops bcast --counts 1,7
    [ "$rc" -eq 0 ] || fail "exit status $rc"
    leftover
}

# fig REACH FIELD: rank 0's measured figure (tw in ns/B, ts in us)
fig() {
    sed -n "s/^\[0\] .*measured node pair [0-9<>-]* ($1): ts \([0-9.e+-]*\) us, tw \([0-9.e+-]*\) ns\/B.*/\1 \2/p" \
        "$out" | awk -v f="$2" '{ print f == "ts" ? $1 : $2 }'
}

ncpu=$(nproc)

# over MODEL_LINES: the burst lines and the models' tq and lanes, as the
# processors say (a machine with more ranks than processors or not)
over() {
    if [ "$ncpu" -lt "$n" ]; then
        r=0
        while [ $r -lt $n ]; do
            [ "$(grep -c "^\[$r\] .*measured burst (more ranks than the $ncpu processors" "$out")" -eq 1 ] ||
                fail "rank $r did not log the burst exactly once"
            r=$((r + 1))
        done
        tqs=$(sed -n 's/^\[[0-9]*\] .*measured burst.*: tq \([0-9.e+-]*\) us, tt [0-9.e+-]* us$/\1/p' "$out" | sort -u)
        tts=$(sed -n 's/^\[[0-9]*\] .*measured burst.*: tq [0-9.e+-]* us, tt \([0-9.e+-]*\) us$/\1/p' "$out" | sort -u)
        [ "$(printf '%s\n' "$tqs" | grep -c .)" -eq 1 ] || fail "the ranks' tq differ: $tqs"
        [ "$(printf '%s\n' "$tts" | grep -c .)" -eq 1 ] || fail "the ranks' tt differ: $tts"
        echo "  burst: tq $tqs us, tt $tts us on every rank ($ncpu processors, $n ranks)"
        # the pairs measured with their turn (a list that sets neither tt
        # nor tq): the burst's wait is tt, never tq, which holds senders
        case $2 in
            auto) [ "$tqs" = 0 ] || fail "the burst fitted tq $tqs us, not tt" ;;
        esac
        case $tqs in
            0) printf '%s\n' "$1" | grep -q ',tq=' && fail "tq 0 printed in the model" ;;
            *) printf '%s\n' "$1" | grep -q ",tq=" || fail "no tq in the model: $1" ;;
        esac
        # the pairs' turn (tt) on the shared processors: the burst fits tt
        # instead of tq, and the model carries it
        case $tts in
            0) ;;
            *) printf '%s\n' "$1" | grep -q ",tt=" || fail "no tt in the model: $1" ;;
        esac
        case $1 in
            *,lanes=$ncpu,*) ;;
            *) fail "lanes is not the $ncpu processors: $1" ;;
        esac
    else
        grep -q 'measured burst' "$out" && fail "a burst with $ncpu processors for $n ranks"
        printf '%s\n' "$1" | grep -q ',tq=' && fail "tq without more ranks than processors: $1"
    fi
}

# kern MODEL_LINE: every rank logs the kernel's tk once, the same, above
# 0, and the model carries it
kern() {
    r=0
    while [ $r -lt $n ]; do
        [ "$(grep -c "^\[$r\] .*measured the reduction kernel on label 0" "$out")" -eq 1 ] ||
            fail "rank $r did not log the kernel's tk exactly once"
        r=$((r + 1))
    done
    tks=$(sed -n 's/^\[[0-9]*\] .*measured the reduction kernel.*: tk \([0-9.e+-]*\) ns\/B$/\1/p' \
        "$out" | sort -u)
    [ "$(printf '%s\n' "$tks" | grep -c .)" -eq 1 ] || fail "the ranks' tk differ: $tks"
    awk -v k="$tks" 'BEGIN { exit !(k > 0) }' || fail "tk $tks is not above 0"
    echo "  reduction kernel: tk $tks ns/B on every rank"
    case $1 in
        *,tk=${tks}ns*) ;;
        *) fail "the model does not carry tk $tks: $1" ;;
    esac
}

# copy: every rank logs label 0's copy figures once, the same, tw above
# 0; every model line of every rank carries them; rtopo-sim under the
# logged model costs a local shift of 1 MiB at them
SIM=$builddir/tools/rtopo-sim
copy() {
    r=0
    while [ $r -lt $n ]; do
        [ "$(grep -c "^\[$r\] .*measured a copy inside a rank on label 0" "$out")" -eq 1 ] ||
            fail "rank $r did not log the copy's figures exactly once"
        r=$((r + 1))
    done
    cps=$(sed -n 's/^\[[0-9]*\] .*measured a copy inside a rank.*: local ts \([0-9.e+-]*\) us, tw \([0-9.e+-]*\) ns\/B$/\1 \2/p' \
        "$out" | sort -u)
    [ "$(printf '%s\n' "$cps" | grep -c .)" -eq 1 ] || fail "the ranks' copy figures differ: $cps"
    cts=${cps% *}
    ctw=${cps#* }
    awk -v w="$ctw" 'BEGIN { exit !(w > 0) }' || fail "local tw $ctw is not above 0"
    echo "  copy inside a rank: local ts $cts us, tw $ctw ns/B on every rank"
    nm=$(grep -c ': model ' "$out")
    [ "$nm" -ge "$n" ] || fail "$nm model lines for $n ranks"
    [ "$(grep -c ": model local.ts=${cts}us,local.tw=${ctw}ns," "$out")" -eq "$nm" ] ||
        fail "not every model carries local.ts=${cts}us,local.tw=${ctw}ns"
    # the logged model back into rtopo-sim (lanes lifted: 8 copies at once)
    simt=$(timeout 60 "$SIM" shift --topo ring:8 --q 8 --bytes 1M --model "$1,lanes=0" |
        sed -n 's/^model time *\([0-9.]*\) us.*/\1/p')
    [ -n "$simt" ] || fail "rtopo-sim did not take the logged model: $1"
    awk -v t="$simt" -v s="$cts" -v w="$ctw" 'BEGIN { e = s + 1048576 * w / 1000;
        d = t - e; if (d < 0) d = -d; exit !(d <= 0.002 + 1e-3 * e) }' ||
        fail "rtopo-sim's local shift of 1 MiB: $simt us, not local.ts + 1 MiB local.tw"
    echo "  rtopo-sim under the logged model: a local shift of 1 MiB $simt us"
}

round=0
while [ "$round" -lt "$repeat" ]; do
    round=$((round + 1))
    job auto
    r=0
    while [ $r -lt $n ]; do
        [ "$(grep -c "^\[$r\] .*measured node pair 0<->1 (intra-host)" "$out")" -eq 1 ] ||
            fail "rank $r did not log the intra-host pair 0<->1 exactly once"
        [ "$(grep -c "^\[$r\] .*measured node pair 0<->4 (inter-host)" "$out")" -eq 1 ] ||
            fail "rank $r did not log the inter-host pair 0<->4 exactly once"
        r=$((r + 1))
    done
    [ "$(grep -c 'measured node pair' "$out")" -eq $((2 * n)) ] ||
        fail "a pair measured more than once"
    for pr in 0:1:intra-host 0:4:inter-host; do
        a=${pr%%:*}
        b=${pr#*:}
        kind=${b#*:}
        b=${b%%:*}
        [ "$(grep -c "^\[0\] .*pair $a<->$b: stream runs" "$out")" -eq 1 ] ||
            fail "rank 0 did not log the stream runs of pair $a<->$b once"
        runs=$(sed -n "s/^\[0\] .*pair $a<->$b: stream runs (us, [0-9]* to warm up)://p" "$out")
        nr=$(printf '%s\n' $runs | grep -c .)
        [ "$nr" -ge 5 ] && [ "$nr" -le 28 ] || fail "pair $a<->$b: $nr stream runs: $runs"
        rs=$(sed -n "s/^\[0\] .*pair $a<->$b: 8 B round trip .*; the shortest \([0-9.e+-]*\) us), 4 x 256 KiB stream \([0-9.e+-]*\) us (the shortest of $nr runs)\$/\1 \2/p" "$out")
        [ -n "$rs" ] || fail "pair $a<->$b: no stream time over $nr runs in rank 0's log"
        ts=$(echo "$rs" | awk '{ print $1 / 2 }')
        took=${rs#* }
        tw=$(fig "$kind" tw)
        printf '%s\n' $runs | awk -v t="$took" -v s="$ts" -v w="$tw" '
            NR == 1 || $1 < m { m = $1 }
            END { a = s; if (a > t / 5) a = t / 5
                  e = a + 1048576 * w / 1000; d = t - e; if (d < 0) d = -d
                  g = m - t; if (g < 0) g = -g
                  exit !(g <= 0.5 + 1e-3 * t && d <= 0.01 + 2e-3 * t) }' ||
            fail "pair $a<->$b: stream $took us is not the shortest run ($runs) or half the shortest round trip, $ts us, + 1 MiB x tw $tw ns/B"
        echo "  pair $a<->$b ($kind): $nr stream runs, the shortest $took us"
        # more ranks than processors: ts is one eager send's cost, at most
        # half the shortest round trip, and tt the rest of half the median
        if [ "$ncpu" -lt "$n" ]; then
            rt=$(sed -n "s/^\[0\] .*pair $a<->$b: 8 B round trip \([0-9.e+-]*\) us (the median of [0-9]*; the shortest \([0-9.e+-]*\) us).*/\1 \2/p" "$out")
            st=$(sed -n "s/^\[0\] .*pair $a<->$b: more ranks than processors on their machine: ts \([0-9.e+-]*\) us .*, the receiver's turn tt \([0-9.e+-]*\) us .*/\1 \2/p" "$out")
            [ -n "$rt" ] && [ -n "$st" ] || fail "pair $a<->$b: no round trips or no turn in rank 0's log"
            echo "$rt $st" | awk '{ e = 1e-3 * $1 + 0.01; d = $3 + $4 - $1 / 2; if (d < 0) d = -d
                                    exit !($3 <= $2 / 2 + e && d <= e && $4 >= 0) }' ||
                fail "pair $a<->$b: ts and tt ($st us) against the round trips ($rt us)"
            echo "  pair $a<->$b: ts, tt $st us; round trips (median, shortest) $rt us"
        fi
    done
    intra=$(fig intra-host tw)
    inter=$(fig inter-host tw)
    [ -n "$intra" ] && [ -n "$inter" ] || fail "no figures in rank 0's log"
    echo "  measured tw: intra-host $intra ns/B, inter-host $inter ns/B (50mbit: 160 ns/B)"
    awk -v a="$intra" -v e="$inter" 'BEGIN { exit !(e > 4 * a && e > 0) }' ||
        fail "inter-host tw $inter ns/B is not clearly above intra-host tw $intra ns/B"
    # every rank's model holds the same reach figures
    models=$(sed -n 's/^\[[0-9]*\] .*: model \(.*\) (measured now)$/\1/p' "$out" | sort -u)
    [ "$(printf '%s\n' "$models" | grep -c .)" -eq 1 ] ||
        fail "the ranks' models differ: $models"
    case $models in
        *intra.ts=*,intra.tw=*,inter.ts=*,inter.tw=*) ;;
        *) fail "no intra/inter figures in the model: $models" ;;
    esac
    echo "  model: $models"
    over "$models" auto
    kern "$models"
    copy "$models"

    job auto,inter.bw=1G
    grep -q 'measured node pair .*(inter-host)' "$out" &&
        fail "inter-host pair measured although RTOPO_MODEL sets inter.bw"
    [ "$(grep -c 'measured node pair 0<->1 (intra-host)' "$out")" -eq $n ] ||
        fail "the intra-host pair was not measured on every rank"
    [ "$(grep -c ': model .*inter.tw=1ns' "$out")" -eq $n ] ||
        fail "not every rank's model took inter.tw=1ns from the list"

    job auto,tk=3ns
    grep -q 'measured the reduction kernel' "$out" &&
        fail "a kernel timed although RTOPO_MODEL sets tk"
    [ "$(grep -c ': model .*,tk=3ns' "$out")" -eq $n ] ||
        fail "not every rank's model took tk=3ns from the list"
    [ "$(grep -c 'measured a copy inside a rank on label 0' "$out")" -eq $n ] ||
        fail "the copy was not timed with tk set"

    job auto,local.ts=1us,local.tw=0.5ns
    grep -q 'measured a copy inside a rank' "$out" &&
        fail "a copy timed although RTOPO_MODEL sets local. keys"
    [ "$(grep -c 'measured the reduction kernel on label 0' "$out")" -eq $n ] ||
        fail "the kernel was not timed with local. keys set"
    nm=$(grep -c ': model ' "$out")
    [ "$nm" -ge "$n" ] || fail "$nm model lines for $n ranks"
    [ "$(grep -c ': model local.ts=1us,local.tw=0.5ns,' "$out")" -eq "$nm" ] ||
        fail "not every model took local.ts=1us,local.tw=0.5ns from the list"

    job auto,tq=20us
    grep -q 'measured burst' "$out" && fail "a burst although RTOPO_MODEL sets tq"
    [ "$(grep -c ': model .*,tq=20us,' "$out")" -eq $n ] ||
        fail "not every rank's model took tq=20us from the list"
    if [ "$ncpu" -lt "$n" ]; then
        [ "$(grep -c ": model .*,lanes=$ncpu," "$out")" -eq $n ] ||
            fail "not every rank's model has lanes $ncpu"
    fi
done
echo "PASS"
