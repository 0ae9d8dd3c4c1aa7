#!/bin/sh
# tl_rcache_close over rtopo's shm, libfabric's tcp provider and the
# composite backend (its network side, between the two ranks), bounded:
# a write with the key of a registration the cache dropped (its buffer
# unmapped and mapped again, or its operation failed) must leave the
# target's memory as it was, and fail at the writer where the transport
# tells it (shm).  Exit 77 (skip) when none of the transports is usable
# or the kernel refuses userfaultfd.
prog="${TL_RCACHE_CLOSE:-./tests/tl/tl_rcache_close}"
ran=0
for tr in shm ofi:tcp multi:ofi:tcp; do
    timeout 120 "$prog" "$tr"
    rc=$?
    case $rc in
    0) ran=1 ;;
    77) echo "$tr: skipped" ;;
    *) echo "FAIL: $tr (exit $rc)"; exit 1 ;;
    esac
done
[ $ran = 1 ] || exit 77
exit 0
