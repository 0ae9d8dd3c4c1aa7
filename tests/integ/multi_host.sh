#!/bin/sh
# RTOPO_TRANSPORT=auto across 2 emulated hosts (rtopo-run --hosts 2, which
# sets RTOPO_HOST_ID): the composite backend serves the ranks of the same
# host over shm and the others over the network backend.  4 ranks (2+2)
# and 8 ranks (4+4): ring shift, bcast/allreduce (ring, hypercube and the
# OTIS-hypercube), scatter from a host to the cube, every byte checked by
# the check programs; the info log must count shm inside and the network
# across.  Then rank 1 dies: the survivors report RTOPO_ERR_PEER.
. "$(dirname "$0")/common.sh"
need_transport shm
if ! "$INFO" --check ofi:tcp >/dev/null 2>&1 && ! "$INFO" --check verbs >/dev/null 2>&1; then
    echo "no network transport usable here: skipped"; exit 77
fi
COLL="$top_builddir/tests/integ/coll_check"
SC="$top_builddir/tests/integ/scatter_check"
export RTOPO_SPIN_US=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# job N PROG ARGS...: one bounded job over 2 hosts under auto, log kept
job() {
    n=$1; shift
    echo "+ rtopo-run -n $n --hosts 2 --transport auto $*"
    RTOPO_LOG_LEVEL=info timeout 300 "$RUN" -n "$n" --hosts 2 --transport auto --quiet \
        "$@" >"$out" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        grep -v ' info ' "$out" | head -n 60; echo "FAIL: exit $rc"; exit 1
    fi
    # every rank: shm to the n/2 - 1 others of its host, the network to n/2
    local=$((n / 2 - 1)) remote=$((n / 2))
    got=$(grep -c "transport per peer: shm for $local ranks\? of this host, [a-z:;_]* for $remote ranks of other hosts" "$out")
    [ "$got" -eq "$n" ] || { grep 'per peer\|rtopo_init' "$out"; echo "FAIL: $got of $n ranks logged shm for $local and the network for $remote peers"; exit 1; }
    grep -q "transport shm+" "$out" || { echo "FAIL: the init line does not name shm+network"; exit 1; }
}

for n in 4 8; do
    job $n "$SHIFT" --topo ring --sizes 0,1,4096,65536,1048579 --q all
    job $n "$COLL" --topo ring --algos auto,topo --ops bcast,allreduce --counts 1,7,300000
    job $n "$SC" --dim $((n == 4 ? 2 : 3)) --host 0 --algos all --windows 7x3,1024x8,87382x12 \
        --overlaps 0,1 --reps 2
done
job 4 "$COLL" --topo otis-hypercube:2 --algos auto,topo,generic --counts 1,7,300000 \
    --modes blocking,nonblocking --mem reg,unreg
job 8 "$COLL" --topo hypercube:3 --algos auto,topo --ops bcast,allreduce --counts 1,300000

# rank 1 (host 0) dies: rank 0 (its host, shm) and rank 2 (the other host)
# report RTOPO_ERR_PEER
RTOPO_TIMEOUT_MS=10000 timeout 120 "$RUN" -n 4 --hosts 2 --transport auto --quiet \
    "$SHIFT" --error die >"$out" 2>&1
rc=$?
[ $rc -ne 0 ] || { cat "$out"; echo "FAIL: rtopo-run exited 0 although rank 1 died"; exit 1; }
for r in 0 2; do
    grep -q "rank $r: die -> RTOPO_ERR_PEER" "$out" ||
        { cat "$out"; echo "FAIL: rank $r did not get RTOPO_ERR_PEER"; exit 1; }
done
echo "die: survivors on both hosts reported RTOPO_ERR_PEER"
exit 0
