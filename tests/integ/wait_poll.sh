#!/bin/sh
# RTOPO_WAIT=poll: a waiting rank polls and never sleeps, and the
# libfabric transports keep no kernel wait object.  On 2 ranks, over
# ofi:tcp, ofi:rxm and rtopo's shm (where usable): shifts of every size up
# to 8 MiB are right (large ones need the polls to move the data: nothing
# wakes a rank); blocking shifts after a barrier complete on every rank
# (hang.sh); the completion queue is opened without a wait object,
# a rank that dies gives the other RTOPO_ERR_PEER, and a value other
# than block or poll fails rtopo_init, named.  Two ranks throughout:
# polling ranks must not outnumber the cores.
. "$(dirname "$0")/common.sh"
need_transport ofi:tcp
export RTOPO_WAIT=poll
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for tr in ofi:tcp ofi:rxm shm; do
    if ! "$INFO" --check "$tr" >/dev/null 2>&1; then
        echo "$tr is not usable here: left out"
        continue
    fi
    run 2 "$tr" --topo ring --sizes 0,8,8192,8193,1048579,8388608 --q all || exit 1
done
echo "+ barrier + blocking shift, repeated (hang.sh, 12 runs, 2 ranks, ofi:tcp)"
TRANSPORT=ofi:tcp NP=2 REPEAT=12 sh "$(dirname "$0")/hang.sh" || exit 1
echo "+ RTOPO_LOG_LEVEL=info: the ofi:tcp completion queue"
RTOPO_LOG_LEVEL=info run 2 ofi:tcp --topo ring --sizes 8 --q 1 --modes blocking >"$out" 2>&1
grep -q "completion queue without a wait object (RTOPO_WAIT=poll)" "$out" ||
    { cat "$out"; echo "FAIL: RTOPO_WAIT=poll left the wait object in place"; exit 1; }
echo "+ a rank dies (2 ranks, ofi:tcp)"
start=$(date +%s)
RTOPO_TIMEOUT_MS=600000 run 2 ofi:tcp --error die >"$out" 2>&1
rc=$?
[ $rc -ne 0 ] || { cat "$out"; echo "FAIL: rtopo-run exited 0 although rank 1 died"; exit 1; }
grep -q "rank 0: die -> RTOPO_ERR_PEER" "$out" ||
    { cat "$out"; echo "FAIL: rank 0 did not get RTOPO_ERR_PEER"; exit 1; }
echo "die: rank 0 got RTOPO_ERR_PEER, job ended after $(( $(date +%s) - start )) s"
echo "+ RTOPO_WAIT=bogus"
RTOPO_WAIT=bogus run 2 ofi:tcp --topo ring --sizes 8 --q 1 >"$out" 2>&1 &&
    { cat "$out"; echo "FAIL: RTOPO_WAIT=bogus was accepted"; exit 1; }
grep -q "RTOPO_WAIT=bogus is not one of block, poll" "$out" ||
    { cat "$out"; echo "FAIL: the bad value is not named"; exit 1; }
exit 0
