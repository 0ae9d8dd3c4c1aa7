#!/bin/sh
# The registration cache (RTOPO_REG_CACHE) against memory that changes
# under it: rcache_check frees, unmaps, discards, remaps and moves its
# unregistered buffers between shifts, and every shift must deliver the
# right bytes.  Over rtopo's shm and ofi:tcp (and ofi:shm where usable;
# TRANSPORTS=verbs in the soft-RoCE suite, where a stale registration
# would move the old pinned pages), with buffers registered for each
# operation from 4096 bytes.  Where the kernel lets rtopo watch memory
# (userfaultfd), the info log of each rank must show cache hits and
# registrations dropped as their memory left; RTOPO_REG_CACHE=off must
# show no cache, and bad values fail rtopo_init on every rank, named.
. "$(dirname "$0")/common.sh"
CHECK="$top_builddir/tests/integ/rcache_check"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
export RTOPO_REG_PER_OP=4096
# the unit suite tells whether the kernel lets a process watch memory
if "$top_builddir/tests/unit/test_unit" memmon 2>&1 | grep -q "memmon: SKIPPED"; then
    watch=0; echo "no userfaultfd here: data checks only, no cache expected"
else
    watch=1
fi
rc() {  # TRANSPORT SIZE [VALUE]
    echo "+ RTOPO_REG_CACHE=${3:-auto} rtopo-run -n 2 --transport $1 rcache_check --size $2"
    RTOPO_REG_CACHE=${3:-auto} RTOPO_LOG_LEVEL=info timeout 300 "$RUN" -n 2 --transport "$1" \
        --quiet "$CHECK" --size "$2" --rounds 60 >"$out" 2>&1 ||
        { cat "$out"; echo "FAIL: $1, $2 bytes, RTOPO_REG_CACHE=${3:-auto}"; exit 1; }
    grep "rounds of" "$out"
}
usable=
for tr in ${TRANSPORTS:-shm ofi:tcp ofi:shm}; do
    if ! "$INFO" --check "$tr" >/dev/null 2>&1; then
        echo "$tr is not usable here: left out"
        continue
    fi
    usable=$tr
    for size in 70000 1048579; do
        rc "$tr" $size
        n=$(grep -c "registration cache: [1-9][0-9]* hits, [0-9]* misses, [1-9][0-9]* dropped" "$out")
        if [ $watch = 1 ] && [ "$n" -ne 2 ]; then
            cat "$out"; echo "FAIL: $tr, $size bytes: hits and drops on $n of 2 ranks"; exit 1
        fi
        grep "registration cache: [0-9]* hits" "$out"
    done
    rc "$tr" 70000 off
    if grep -q "registration cache" "$out"; then
        cat "$out"; echo "FAIL: $tr: RTOPO_REG_CACHE=off kept a cache"; exit 1
    fi
    rc "$tr" 70000 8m
    n=$(grep -c "registration cache: up to 8388608 bytes" "$out")
    if [ $watch = 1 ] && [ "$n" -ne 2 ]; then
        cat "$out"; echo "FAIL: $tr: RTOPO_REG_CACHE=8m not in force on both ranks"; exit 1
    fi
done
[ -n "$usable" ] || { echo "none of the transports is usable: skipped"; exit 77; }
for v in bogus 0 -1 12q; do
    RTOPO_REG_CACHE=$v timeout 120 "$RUN" -n 2 --transport "$usable" --quiet "$CHECK" \
        --rounds 1 >"$out" 2>&1 &&
        { cat "$out"; echo "FAIL: RTOPO_REG_CACHE=$v was accepted"; exit 1; }
    n=$(grep -c "RTOPO_REG_CACHE=$v is not auto, off or a byte count" "$out")
    [ "$n" -eq 2 ] ||
        { cat "$out"; echo "FAIL: RTOPO_REG_CACHE=$v: named by $n of 2 ranks"; exit 1; }
    echo "RTOPO_REG_CACHE=$v: refused on both ranks"
done
exit 0
