#!/bin/sh
# tl_check over the native shm transport, bounded; exit 77 (skip) when it
# is not usable here (no cross-memory attach).  Then: no segment of its
# ranks stays in /dev/shm (rtopo-shm-<uid>-<job>-<rank>-<pid>).
uid=$(id -u)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
timeout 120 "${TL_CHECK:-./tests/tl/tl_check}" shm > "$log" 2>&1
rc=$?
cat "$log"
[ $rc -eq 0 ] || exit $rc
pids=$(sed -n 's/^info rank [0-9]* pid \([0-9]*\)$/\1/p' "$log")
[ -n "$pids" ] || { echo "FAIL: tl_check named no rank pids"; exit 1; }
left=
for p in $pids; do
    for f in /dev/shm/rtopo-shm-$uid-*-$p; do
        [ -e "$f" ] && left="$left $f"
    done
done
if [ -n "$left" ]; then
    echo "FAIL: segments of the ranks left in /dev/shm:$left"
    exit 1
fi
echo "no segment of the ranks left in /dev/shm"
exit 0
