#!/bin/sh
# Flow control on the transport named by $TRANSPORT (default ofi:tcp):
# 8 ranks run loops of collectives with no barrier, rank 0 never waiting
# but in the calls, while the other ranks nap now and then
# (tests/integ/flow_check.c): it runs ahead until the runtime holds it
# back.  Every job must finish, every byte arrive, and no rank's peak
# resident size grow by more than 4 MiB from a quarter of the loop to its
# end: a receiver keeps what rank 0 sends ahead, 64 operations at most
# (64 KiB of 1 KiB messages); kept without bound, the last three quarters
# of the loop alone would be 15 MiB.
#   blocking bcast and scatter of 1 KiB, ITERS times (default 20000, well
#     past the 1024 operations a peer may be kept ahead at most);
#   ibcast in batches of 200 posted then waited for, 1 KiB (eager) and
#     16 KiB (receive windows: the receivers run ahead while rank 0 naps);
#   ITERS/10 times a new topology, one bcast on it, and its free (a peer
#     may be kept at most 64 topologies ahead);
#   ITERS/50 bcasts of 512 KiB cut into 64 eager pieces (a cost model
#     that makes them so): thousands of hops kept from rank 0 at once,
#     within flow control's bound, never taken for a peer's other calls.
# Ranks block in the transport at once (RTOPO_SPIN_US=0: two cores).
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
FLOW="$top_builddir/tests/integ/flow_check"
iters=${ITERS:-20000}
export RTOPO_SPIN_US=${RTOPO_SPIN_US:-0}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
failed=0

flow() {
    cmd="rtopo-run -n 8 --transport $tr flow_check $*"
    t0=$(date +%s)
    timeout 600 "$RUN" -n 8 --transport "$tr" --quiet "$FLOW" "$@" >"$out" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ]; then
        head -n 40 "$out" | sed 's/^/    /'
        echo "FAILED (exit status $rc after $(( $(date +%s) - t0 )) s): $cmd"
        failed=1
        return 0
    fi
    grep -e ' rank [0-9]*: ' "$out" | sed 's/^/    /'
    echo "ok ($(( $(date +%s) - t0 )) s): $cmd"
}

flow --op bcast --iters "$iters" --bytes 1024
flow --op scatter --iters "$iters" --bytes 1024
flow --op ibcast --iters "$iters" --window 200 --bytes 1024
# (its 200 posted operations hold windows and staging of 16 KiB each, which
# the transport's and staging pools keep at the peak of the burst: the
# count of early messages checks the bound here, not the resident size)
flow --op ibcast --iters $(( iters / 10 )) --window 200 --bytes 16384 --slow root \
    --max-growth-kb 32768
flow --op topos --iters $(( iters / 10 )) --bytes 1024
# 512 KiB in 64 pipelined pieces of 8 KiB, each an eager hop (over ofi:shm
# two fragments each): 64 operations ahead make 4096 hops from rank 0
# kept at once, which the bound on early messages must allow
export RTOPO_MODEL=ts=0.1us,tw=1ns
flow --op bcast --iters $(( iters / 50 )) --bytes 524288 --nap-ms 1200 \
    --max-growth-kb 65536
unset RTOPO_MODEL
exit $failed
