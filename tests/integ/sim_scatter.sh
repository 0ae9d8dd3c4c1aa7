#!/bin/sh
# rtopo-sim scatter: every strategy moves real data to the right nodes
# (--check), its model time is its closed formula where the formula's
# assumptions hold, auto keeps the first of the fastest candidates, bad
# arguments exit 2, and --figure writes its CSV and, when gnuplot is
# installed, a PNG.  No network; every run is bounded by timeout.
top_builddir=${top_builddir:-.}
SIM="$top_builddir/tools/rtopo-sim"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
start=$(date +%s)
seed1="beta=800us,sigma=1.5,tau=8us"
seed2="beta=6500us,sigma=1.5,tau=8us"

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

sim() {
    timeout 120 "$SIM" scatter "$@"
}

# field NAME: a top-level field of the JSON object in $json
field() {
    printf '%s\n' "${json%%,\"candidates\"*}" |
        sed -n "s/.*[{,]\"$1\":\(\"[^\"]*\"\|[^,}]*\).*/\1/p" | tr -d '"'
}

# equal A B: equal within a relative 1e-9
equal() {
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d;
        m = a < 0 ? -a : a; exit !(d <= 1e-9 * m) }'
}

# best: "strategy x model_time" of the first candidate with the smallest
# model time (ties within 1e-12), from the candidates array in $json
best() {
    re='s/.*"strategy":"\([a-z]*\)","x":\([0-9a-z]*\),"model_time":\([^,]*\),.*/\1 \2 \3/p'
    printf '%s\n' "${json#*\"candidates\":\[}" | tr '{' '\n' | sed -n "$re" |
        awk 'NR == 1 || $3 < t * (1 - 1e-12) { s = $1; x = $2; t = $3 }
             END { print s, x, t }'
}

# run ARGS: one --check --json run that must place every window, and
# whose model time must be its formula when formula_exact says so
run() {
    echo "+ rtopo-sim scatter $* --check --json"
    json=$(sim "$@" --check --json) || { fail "exit status $? for: $*"; return 1; }
    [ "$(field correct)" = true ] || fail "windows misplaced: $*"
    if [ "$(field formula_exact)" = true ]; then
        equal "$(field model_time)" "$(field formula_time)" ||
            fail "model time $(field model_time), formula $(field formula_time): $*"
    fi
    return 0
}

# every strategy, with and without x, odd element size, overlaps 0, 1,
# M/2, M-1; cube dimensions 0, 1, 4 and 8
for d in 0 1 4 8; do
    for k in 0 1 6 11; do
        for s in seq binomial seqscatter decremental auto; do
            run --d $d --M 12 --overlap $k --esize 3 --strategy $s --model "$seed1"
        done
        run --d $d --M 12 --overlap $k --strategy seqscatter --x $((d / 2)) --model "$seed1"
        [ "$(field x)" = $((d / 2)) ] || fail "seqscatter ran x $(field x), not $((d / 2))"
        [ $d -gt 0 ] || continue
        run --d $d --M 12 --overlap $k --strategy decremental:$((d - 1)) --model "$seed1"
        [ "$(field x)" = $((d - 1)) ] || fail "decremental ran x $(field x), not $((d - 1))"
        [ "$(field formula_exact)" = true ] || fail "T4 not exact at d $d x $((d - 1))"
    done
done
# the host on a cube node: the folded schedule still places every window
for h in 0 5 15; do
    run --d 4 --M 7 --overlap 3 --esize 5 --host-node $h
    [ "$(field host_node)" = $h ] || fail "host node $(field host_node), not $h"
done

# auto: the first fastest candidate, every candidate listed; the seed's
# parameter sets favour decremental scattering from d 3 on
for set in 1 2; do
    if [ $set = 1 ]; then M=100; model=$seed1; else M=500; model=$seed2; fi
    for d in 3 6 10; do
        for k in 0 $((M / 2)) $((M - 1)); do
            run --d $d --M $M --overlap $k --model "$model" || continue
            b=$(best)
            got="$(field strategy) $(field x)"
            [ "$got" = "${b% *}" ] || fail "auto took $got, the first fastest is ${b% *}"
            equal "$(field model_time)" "${b##* }" || fail "auto's time is not its choice's"
            n=$(printf '%s\n' "$json" | grep -o '"strategy":' | wc -l)
            [ "$n" -eq $((2 * d + 3 + 1)) ] || fail "d $d: $((n - 1)) candidates"
            [ "$(field strategy)" = decremental ] ||
                fail "set $set d $d overlap $k: auto took $(field strategy)"
        done
    done
done
# ties go to the simpler strategy: cube links too dear, seq (= seqscatter x 0)
json=$(sim --d 3 --M 10 --model beta=1s,beta_h=1us,tau=1ns --json)
[ "$(field strategy)" = seq ] || fail "cube links dear: auto took $(field strategy)"
# a decremental x the model cannot beat: (9) is smallest at x 9 for d 10,
# M 500, overlap 499 under the second set
json=$(sim --d 10 --M 500 --overlap 499 --strategy decremental --model "$seed2" --json)
[ "$(field x)" = 9 ] || fail "decremental best x $(field x), expected 9"

# bad arguments
for a in "--d 3 --overlap 12 --M 12" "--d 3 --strategy seq --x 1" \
    "--d 3 --x 4 --strategy seqscatter" "--d 3 --strategy decremental:3" "--d 99" "--M 4" \
    "--d 2 --model sigma=2,beta_h=1" "--d 2 --strategy foo" "--d 2 --host-node 4" \
    "--figure 3 --csv x" "--figure 1"; do
    # shellcheck disable=SC2086
    sim $a >/dev/null 2>&1
    st=$?
    [ $st -eq 2 ] || fail "exit status $st, not 2, for: $a"
done

# figures: the CSV always; without gnuplot, a clear message and status 1
echo "+ rtopo-sim scatter --figure 2 --d 5 (no gnuplot)"
GNUPLOT=/nonexistent/gnuplot sim --figure 2 --d 5 --out "$tmp/none.png" \
    --csv "$tmp/f2.csv" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] || fail "missing gnuplot: exit status $st"
grep -q 'gnuplot-nox' "$tmp/err" || fail "missing gnuplot: no hint in '$(cat "$tmp/err")'"
[ ! -e "$tmp/none.png" ] || fail "a PNG without gnuplot"
[ "$(wc -l <"$tmp/f2.csv")" -eq 6 ] || fail "figure 2 CSV: $(wc -l <"$tmp/f2.csv") lines"
head -1 "$tmp/f2.csv" |
    grep -q '^d,seq,binomial,seqscatter,seqscatter_x,decremental_ov0,' ||
    fail "figure 2 CSV header: $(head -1 "$tmp/f2.csv")"
if command -v gnuplot >/dev/null 2>&1; then
    for f in 1 2; do
        echo "+ rtopo-sim scatter --figure $f --d 5"
        sim --figure $f --d 5 --out "$tmp/fig$f.png" --csv "$tmp/fig$f.csv" ||
            fail "figure $f: exit status $?"
        [ "$(head -c 4 "$tmp/fig$f.png" | tail -c 3)" = PNG ] || fail "figure $f: not a PNG"
    done
    n=$(wc -l <"$tmp/fig1.csv")
    [ "$n" -eq 101 ] || fail "figure 1 CSV: $n lines"
else
    echo "gnuplot is not installed: PNG figures not checked"
fi

echo "sim_scatter: $fails failure(s) in $(( $(date +%s) - start )) s"
[ $fails -eq 0 ]
