#!/bin/sh
# rtopo-sim at scale: every operation on thousands of ranks with --check
# (its data moved in memory and compared with the serial reference) must
# be correct and exit 0: on 16,384 ranks the shift and the dimension
# shift on mesh:128x128, the broadcast, prefix sum, data sum and rank on
# hypercube:14 and the scatter on a 14-cube with its host; on 4,096
# ranks (otis-mesh:64) the window broadcast, BPC permutation, circular
# and zero-fill shifts, the routings and the sort.  The progress line
# (--progress=1) says what the run is doing and changes nothing on
# stdout; a bad --progress is refused.  Times are not asserted: every
# run is only bounded, generously, against hangs.
top_builddir=${top_builddir:-.}
SIM="$top_builddir/tools/rtopo-sim"
fails=0
runs=0
start=$(date +%s)

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

out=$(mktemp) || exit 99
err=$(mktemp) || exit 99
out2=$(mktemp) || exit 99
trap 'rm -f "$out" "$err" "$out2"' EXIT

# check ARGS...: exits 0 and reports correct, text and JSON alike
check() {
    runs=$((runs + 1))
    rc=0
    timeout 600 "$SIM" "$@" --check >"$out" 2>"$err" || rc=$?
    if [ $rc -ne 0 ]; then
        fail "rtopo-sim $* --check: exit $rc: $(head -c 300 "$err")"
        return
    fi
    if ! grep -q '^correct *yes' "$out"; then
        fail "rtopo-sim $* --check: not correct: $(grep '^correct' "$out")"
    fi
}

for a in "shift --topo mesh:128x128 --q 5 --bytes 4K" \
         "shift --topo hypercube:14 --q -3 --bytes 64" \
         "shift-dim --topo mesh:128x128 --dim 1 --disp 3 --bytes 4K" \
         "otis broadcast --topo hypercube:14 --root 77 --count 3" \
         "otis prefix_sum --topo hypercube:14 --count 2" \
         "otis data_sum --topo hypercube:14 --dtype double --op max" \
         "otis rank --topo hypercube:14" \
         "scatter --d 14 --M 4 --overlap 1" \
         "otis window_broadcast --topo otis-mesh:64 --root 3 --window 2 --count 2" \
         "otis bpc --topo otis-mesh:64 --vector shuffle --count 2" \
         "otis shift --topo otis-mesh:64 --kind h --s 3 --count 2" \
         "otis shift --topo otis-mesh:64 --kind a --s -2 --count 2" \
         "otis consecutive_sum --topo otis-mesh:64 --dim 0 --m 2" \
         "otis concentrate --topo otis-mesh:64 --record 12" \
         "otis distribute --topo otis-mesh:64" \
         "otis generalize --topo otis-mesh:64 --seed 5" \
         "otis sort --topo otis-mesh:64 --count 3 --dtype int64"; do
    # shellcheck disable=SC2086
    check $a
done

# the routings' JSON agree: correct 1 and every rank's got compared
runs=$((runs + 1))
if timeout 600 "$SIM" otis distribute --topo otis-mesh:64 --check --json --seed 9 \
        >"$out" 2>"$err"; then
    grep -q '"correct":1' "$out" || fail "distribute --json: not correct"
else
    fail "distribute --json: $(head -c 300 "$err")"
fi

# the progress line: lines of the form "rtopo-sim: STAGE (N s)" only,
# at least one for a run of 3 s or more, and stdout as without it
runs=$((runs + 1))
t0=$(date +%s)
if timeout 600 "$SIM" otis sort --topo otis-mesh:64 --count 2 --check --progress=1 \
        >"$out" 2>"$err"; then
    t1=$(date +%s)
    if grep -v '^rtopo-sim: [a-z ,()]* ([0-9]* s)$' "$err" | grep -q .; then
        fail "--progress: unexpected stderr: $(head -c 300 "$err")"
    fi
    if [ $((t1 - t0)) -ge 3 ] && ! grep -q '^rtopo-sim: .* ([0-9]* s)$' "$err"; then
        fail "--progress=1: no progress line in a run of $((t1 - t0)) s"
    fi
    timeout 600 "$SIM" otis sort --topo otis-mesh:64 --count 2 --check >"$out2" 2>/dev/null
    cmp -s "$out" "$out2" || fail "--progress changed stdout"
else
    fail "sort --progress=1: $(head -c 300 "$err")"
fi
for bad in --progress=0 --progress=x --progress=3601; do
    runs=$((runs + 1))
    rc=0
    "$SIM" otis broadcast --topo otis-mesh:4 $bad >/dev/null 2>"$err" || rc=$?
    [ $rc -eq 2 ] && grep -q 'progress' "$err" || fail "$bad: exit $rc, $(cat "$err")"
done

echo "sim_scale: $runs runs, $fails failure(s), $(( $(date +%s) - start )) s"
[ "$fails" = 0 ]
