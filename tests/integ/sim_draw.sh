#!/bin/sh
# rtopo-sim --draw: pictures of the schedules of shift, shift-dim, scatter
# and the OTIS operations.  Each SVG must hold one arrowhead for every hop
# that --rounds lists for the same schedule, each PNG must be a PNG; a
# topology too large to draw node by node gives a summary whose link-class
# totals add up to the hops; bad --draw arguments exit 2, a missing
# gnuplot exits 1 with a hint.  Skipped without gnuplot.  No network;
# every run is bounded by timeout.
top_builddir=${top_builddir:-.}
SIM="$top_builddir/tools/rtopo-sim"
if ! command -v "${GNUPLOT:-gnuplot}" >/dev/null 2>&1; then
    echo "gnuplot is not installed: --draw not tested"
    exit 77
fi
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

sim() {
    timeout 120 "$SIM" "$@"
}

# hops listed by --rounds ("  FROM -> TO  LINK  (...)"); scatter has no
# --rounds: the sum of its moves line ("moves  local 4, host 1, cube-id 7")
# without the local copies, which are no hops
hops_of() {
    if [ "$1" = scatter ]; then
        sim "$@" | sed -n 's/^moves *//p' | tr ',' '\n' |
            awk '$1 != "local" { n += $NF } END { print n + 0 }'
    else
        sim "$@" --rounds | grep -c '^  [0-9]* -> [0-9]*  '
    fi
}

# arrowheads in the SVG: the filled polygons other than the nodes' discs
# (rgb(255, 248, 220)); edges, wraparound stubs and text are no polygons
arrows_of() {
    grep '<polygon' "$1" | grep -vc "fill = 'rgb(255, 248, 220)'"
}

is_png() {
    [ -s "$1" ] && [ "$(head -c 4 "$1" | tail -c 3)" = PNG ]
}

# one schedule: name, then rtopo-sim's arguments
check() {
    name=$1
    shift
    echo "+ rtopo-sim $* --draw $name.svg / .png"
    want=$(hops_of "$@")
    [ "$want" -gt 0 ] || fail "$name: --rounds lists no hop"
    sim "$@" --draw "$tmp/$name.svg" >/dev/null 2>"$tmp/err" ||
        { fail "$name: svg: exit status $? ($(cat "$tmp/err"))"; return; }
    [ ! -s "$tmp/err" ] || fail "$name: svg: messages: $(cat "$tmp/err")"
    got=$(arrows_of "$tmp/$name.svg")
    [ "$got" -eq "$want" ] || fail "$name: $got arrows drawn for $want hops"
    if command -v xmllint >/dev/null 2>&1; then
        xmllint --noout "$tmp/$name.svg" || fail "$name: the SVG does not parse"
    fi
    grep -q "fill = 'rgb(255, 248, 220)'" "$tmp/$name.svg" || fail "$name: no nodes in the SVG"
    sim "$@" --draw "$tmp/$name.png" >/dev/null || fail "$name: png: exit status $?"
    is_png "$tmp/$name.png" || fail "$name: not a PNG"
}

check mesh_shift5 shift --topo mesh:4x4 --q 5 --algo mesh --bytes 1K
check ring_shift shift --topo ring:8 --q 3 --algo ring --bytes 1K
check cube_shift shift --topo hypercube:3 --q 3 --algo hypercube --bytes 1K
check dim_rule shift-dim --topo mesh:4x4 --dim 1 --rule -1,0 --bytes 1K
check scatter scatter --d 3 --strategy binomial
check otis_bcast otis broadcast --topo otis-mesh:4 --algo topo
check otis_scan otis prefix_sum --topo otis-hypercube:4 --algo topo
check otis_shift otis shift --topo otis-mesh:4 --kind c --s 1
check otis_sum otis data_sum --topo otis-mesh:4 --algo topo
# many rounds: panels per phase, every hop still drawn once
check otis_sort otis sort --topo otis-mesh:4 --count 4

# too many ranks: a summary, its link-class totals are the hops
echo "+ rtopo-sim otis broadcast --topo otis-mesh:16 --draw (summary)"
want=$(hops_of otis broadcast --topo otis-mesh:16 --algo topo)
sim otis broadcast --topo otis-mesh:16 --algo topo --draw "$tmp/big.svg" >/dev/null \
    2>"$tmp/err" || fail "summary: exit status $?"
grep -q 'summary picture' "$tmp/err" || fail "summary: no note on stderr: $(cat "$tmp/err")"
grep -q 'summary (256 ranks' "$tmp/big.svg" || fail "summary: no summary title"
got=$(sed -n 's/.*<text>[a-z-]* (\([0-9]*\))<\/text>.*/\1/p' "$tmp/big.svg" |
      awk '{ n += $1 } END { print n + 0 }')
[ "$got" -eq "$want" ] || fail "summary: link classes add up to $got hops, not $want"
grep -q "fill = 'rgb(255, 248, 220)'" "$tmp/big.svg" && fail "summary: nodes drawn"
sim otis broadcast --topo otis-mesh:16 --algo topo --draw "$tmp/big.png" >/dev/null \
    2>&1 || fail "summary png: exit status $?"
is_png "$tmp/big.png" || fail "summary: not a PNG"

# bad arguments, one schedule per picture, gnuplot missing
for bad in "--draw" "--draw x.pdf" "--draw=" "--draw a.png --draw b.png"; do
    # shellcheck disable=SC2086
    sim shift --topo ring:4 --q 1 $bad >/dev/null 2>&1
    st=$?
    [ $st -eq 2 ] || fail "'$bad': exit status $st, not 2"
done
sim shift --topo ring:4 --all-q --draw "$tmp/all.png" >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 1 ] || fail "--all-q --draw: exit status $st, not 1"
grep -q 'one schedule' "$tmp/err" || fail "--all-q --draw: message '$(cat "$tmp/err")'"
GNUPLOT=/nonexistent/gnuplot sim shift --topo ring:4 --q 1 --draw "$tmp/none.png" \
    >/dev/null 2>"$tmp/err"
st=$?
[ $st -eq 1 ] || fail "missing gnuplot: exit status $st"
grep -q 'gnuplot-nox' "$tmp/err" || fail "missing gnuplot: no hint in '$(cat "$tmp/err")'"
[ ! -e "$tmp/none.png" ] || fail "a PNG without gnuplot"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all --draw checks passed"
exit 0
