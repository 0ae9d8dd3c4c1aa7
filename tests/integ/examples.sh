#!/bin/sh
# The programs of examples/ run as their header comments show, each
# checking its own results (a wrong result exits non-zero): the shifts on
# a ring (rtopo's shm, and ofi:tcp), mesh and hypercube, Cannon's
# multiplication, the FIR filter's scatter, and on 16 ranks the OTIS
# prefix sums, routing and sort, and the OTIS-mesh placed by host.
. "$(dirname "$0")/common.sh"
EX="$top_builddir/examples"
fails=0
ex() {  # N TRANSPORT PROGRAM
    n=$1; t=$2; shift 2
    start=$(date +%s)
    if timeout 300 "$RUN" -n "$n" --transport "$t" --quiet "$EX/$1" >"$out" 2>&1; then
        echo "ok   -n $n $t $1 ($(( $(date +%s) - start )) s)"
    else
        cat "$out"; echo "FAIL -n $n $t $1"; fails=$((fails + 1))
    fi
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
ex 4 auto ring_shift
if "$INFO" --check ofi:tcp >/dev/null 2>&1; then ex 2 ofi:tcp ring_shift; fi
ex 4 auto mesh_shift
ex 4 auto hypercube_shift
ex 4 auto cannon
ex 5 auto fir_filter
ex 16 auto otis_prefix
ex 16 auto otis_route
ex 16 auto otis_sort
ex 16 auto place_demo
[ $fails = 0 ]
