#!/bin/sh
# Early data in reused blocks (runtime/ctx.h, RTOPO__EBLK_SPARES): 8 ranks
# over rtopo's shm with a 64 KiB eager limit (the default where ranks
# outnumber the processors; its rings of 512 KiB let rank 0 run some 30
# broadcasts ahead), 2000 blocking broadcasts of 16 KiB from rank 0, the
# other ranks napping now and then (tests/integ/flow_check.c), so that
# they find the root's messages early, keep them, and take them when
# their broadcast starts.  Passes when every job ends with every byte
# right, no rank took a block from malloc more often than the most it
# held at once (flow_check), and some rank was handed at least twice as
# many blocks as it took from malloc: blocks came back and were used
# again, rather than each going back to the heap, whose top glibc hands
# back to the kernel, and the next faulting its pages in again (there
# 10 times the processor time of a 16 KiB limit).  77 when shm is not
# usable here.
. "$(dirname "$0")/common.sh"
need_transport shm
FLOW="$top_builddir/tests/integ/flow_check"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "+ RTOPO_EAGER_LIMIT=65536 rtopo-run -n 8 --transport shm flow_check --op bcast --iters 2000 --bytes 16384 --nap-ms 40"
RTOPO_EAGER_LIMIT=65536 timeout 300 "$RUN" -n 8 --transport shm --quiet "$FLOW" \
    --op bcast --iters 2000 --bytes 16384 --nap-ms 40 >"$out" 2>&1
rc=$?
grep -e 'early data blocks' "$out" | sed 's/^/    /'
if [ "$rc" -ne 0 ]; then
    head -n 40 "$out" | sed 's/^/    /'
    echo "FAIL: exit status $rc"
    exit 1
fi
reused=$(awk '/early data blocks/ {
        for (i = 2; i <= NF; i++) {
            if ($i == "handed") t = $(i - 1) + 0
            if ($i == "from") a = $(i - 1) + 0
        }
        if (a > 0 && t >= 2 * a) n++
    } END { print n + 0 }' "$out")
if [ "$reused" -lt 1 ]; then
    echo "FAIL: no rank was handed twice as many early data blocks as it took from malloc"
    exit 1
fi
echo "ok: $reused rank(s) used their early data blocks again"
exit 0
