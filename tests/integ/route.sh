#!/bin/sh
# Selection ranks, the OTIS-mesh routing operations (select_rank,
# concentrate, distribute, generalize) and BPC permutations on the
# transport named by
# $TRANSPORT (default ofi:tcp), every byte checked by route_check (the
# head of route_check.c says how):
#   16 ranks, OTIS-mesh n=4: every operation, records of 1, 13, 64 and
#      1000 bytes, blocking, nonblocking and persistent, six rounds of
#      inputs each (none selected, some, all, random prefixes); the
#      generalize under RTOPO_COLL_AUTO and RTOPO_COLL_TOPO
#   16 ranks over 4 emulated hosts (rtopo-run --hosts 4), OTIS-mesh n=4
#   8 ranks as a 3-cube, 4 and 6 as a ring: select_rank, the sort, and
#      the routing operations fail with RTOPO_ERR_UNSUPPORTED
#   BPC permutations on each of those (2^k ranks): the seed's example
#      and its table on 16 ranks, named and random vectors
#   wrong calls on 16 ranks: a destination beyond the last rank,
#      generalize destinations out of order (under both algorithms), a
#      generalize with RTOPO_COLL_TOPO on one rank only, a NULL got on
#      one rank, a record size of 0, RTOPO_COLL_GENERIC, one rank with
#      another record size, a BPC vector that is not one, one rank with
#      another vector: the expected code on every rank, with
#      RTOPO_TIMEOUT_MS=600000 (no code can come from a timeout)
# Ranks block in the transport (RTOPO_SPIN_US=0: two cores, no busy
# waiting).  A failing job prints the ranks' complaints and its command.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
CHECK="$top_builddir/tests/integ/route_check"
export RTOPO_SPIN_US=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fails=0 jobs=0
start=$(date +%s)

# job N [--hosts H] ARGS...
job() {
    n=$1; shift
    hosts=
    if [ "$1" = --hosts ]; then
        hosts="--hosts $2 --no-netns"; shift 2
    fi
    t0=$(date +%s%N)
    tmo=$RTOPO_TIMEOUT_MS
    case " $* " in *" --bad "*) tmo=600000 ;; esac
    # shellcheck disable=SC2086
    RTOPO_TIMEOUT_MS=$tmo timeout 600 "$RUN" -n "$n" $hosts --transport "$tr" --quiet "$CHECK" "$@" >"$out" 2>&1
    rc=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    jobs=$((jobs + 1))
    case " $* " in
    *" --bad "*)
        verdicts=$(grep -c -- '--bad .*: ' "$out")
        if [ "$rc" -ne 0 ] || [ "$verdicts" -ne "$n" ]; then
            rc=1
        fi ;;
    esac
    if [ "$rc" -ne 0 ]; then
        head -n 40 "$out" | sed 's/^/    /'
        echo "FAILED (exit $rc, $ms ms): rtopo-run -n $n $hosts --transport $tr route_check $*"
        fails=$((fails + 1))
    else
        echo "ok ($ms ms): rtopo-run -n $n $hosts --transport $tr route_check $* :" \
             "$(grep -m1 -e 'route_check ' -e '--bad' "$out" | sed 's/^\[[0-9]*\] //')"
    fi
}

job 16 --topo otis-mesh:4
job 16 --hosts 4 --topo otis-mesh:4 --records 24 --rounds 3 --modes blocking,persistent
job 16 --topo otis-hypercube:4 --rounds 3
job 8 --topo hypercube:3 --rounds 5
job 4 --topo ring --rounds 3 --modes blocking
job 6 --topo ring --rounds 2 --modes blocking,nonblocking
for b in dest-range dist-order dist-gap raw-range gen-order gen-order-topo mismatch-gen-algo \
         null-got recsize0 generic mismatch-recsize bpc-vector mismatch-bpc; do
    job 16 --topo otis-mesh:4 --bad "$b"
done
for b in dist-order dist-gap raw-range gen-order; do
    job 16 --topo otis-hypercube:4 --bad "$b"
done
echo "$jobs jobs, $fails failed, $(( $(date +%s) - start )) s"
[ "$fails" -eq 0 ]
