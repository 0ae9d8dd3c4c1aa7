#!/bin/sh
# tl_check over ofi:shm, bounded; exit 77 (skip) when the transport is absent.
# Then: no shared-memory segment of its ranks stays in /dev/shm (the shm
# provider names them <pid>:<uid>:<n>, 16 MiB each; issue 10).
uid=$(id -u)
before=$(ls /dev/shm 2>/dev/null)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
timeout 120 "${TL_CHECK:-./tests/tl/tl_check}" ofi:shm > "$log" 2>&1
rc=$?
cat "$log"
[ $rc -eq 0 ] || exit $rc
pids=$(sed -n 's/^info rank [0-9]* pid \([0-9]*\)$/\1/p' "$log")
left=
if [ -n "$pids" ]; then
    for p in $pids; do
        for f in /dev/shm/$p:$uid:*; do
            [ -e "$f" ] && left="$left $f"
        done
    done
else
    # no pids printed: every new segment of a process that is gone
    for f in $(ls /dev/shm 2>/dev/null); do
        echo "$before" | grep -qx -F "$f" && continue
        p=${f%%:*}
        case $f in *:$uid:*) ;; *) continue ;; esac
        [ -d /proc/$p ] || left="$left /dev/shm/$f"
    done
fi
if [ -n "$left" ]; then
    echo "FAIL: segments of the ranks left in /dev/shm:$left"
    exit 1
fi
echo "no segment of the ranks left in /dev/shm"
exit 0
