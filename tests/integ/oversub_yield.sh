#!/bin/sh
# More ranks on a machine than processors: waits yield the processor
# between polls.  Every rank runs on processors 0 and 1 (taskset), so 3
# ranks oversubscribe them and 2 do not.  Over rtopo's shm, ofi:shm and
# ofi:tcp (where usable), ring shifts of 8 B to 64 KiB must be right, and
# the info log must say "3 ranks on this machine, 2 processors: waits
# yield" on every rank with 3 ranks, and nothing of the kind with 2.
# Then 4 ranks on 2 emulated hosts (rtopo-run --hosts 2, 2 ranks each,
# auto per peer): the hosts share the machine's processors, so every
# rank yields; 2 ranks on 2 hosts do not.
# 77 when the host lacks processor 0 or 1, or no transport is usable.
. "$(dirname "$0")/common.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! taskset -c 0,1 true 2>/dev/null; then
    echo "processors 0 and 1 are not both available: skipped"
    exit 77
fi
said="ranks on this machine, 2 processors: waits yield the processor"
ran=0
for tr in shm ofi:shm ofi:tcp; do
    "$INFO" --check "$tr" || { echo "$tr: not usable here, skipped"; continue; }
    for n in 3 2; do
        echo "+ taskset -c 0,1 rtopo-run -n $n --transport $tr shift_check ..."
        RTOPO_LOG_LEVEL=info taskset -c 0,1 timeout 300 "$RUN" -n "$n" --transport "$tr" \
            "$SHIFT" --topo ring --sizes 8,4096,65536 --q 1,-1 \
            --modes blocking,persistent >"$out" 2>&1 ||
            { cat "$out"; echo "FAIL: $tr, $n ranks"; exit 1; }
        k=$(grep -c "$n $said" "$out")
        if [ "$n" -eq 3 ] && [ "$k" -ne 3 ]; then
            cat "$out"; echo "FAIL: $tr, 3 ranks on 2 processors: $k ranks said they yield"
            exit 1
        fi
        if [ "$n" -eq 2 ] && grep -q "$said" "$out"; then
            cat "$out"; echo "FAIL: $tr, 2 ranks on 2 processors: a rank yields"
            exit 1
        fi
        echo "$tr: $n ranks on 2 processors: right data, $k ranks yield"
    done
    ran=1
done
[ "$ran" -eq 1 ] || exit 77
# emulated hosts: one machine's processors for all of them
for n in 4 2; do
    echo "+ taskset -c 0,1 rtopo-run -n $n --hosts 2 shift_check ..."
    RTOPO_LOG_LEVEL=info taskset -c 0,1 timeout 300 "$RUN" -n "$n" --hosts 2 \
        "$SHIFT" --topo ring --sizes 8,65536 --q 1 --modes blocking,persistent >"$out" 2>&1 ||
        { cat "$out"; echo "FAIL: $n ranks on 2 emulated hosts"; exit 1; }
    k=$(grep -c "$n $said" "$out")
    if [ "$n" -eq 4 ] && [ "$k" -ne 4 ]; then
        cat "$out"; echo "FAIL: 4 ranks on 2 emulated hosts, 2 processors: $k ranks said they yield"
        exit 1
    fi
    if [ "$n" -eq 2 ] && grep -q "$said" "$out"; then
        cat "$out"; echo "FAIL: 2 ranks on 2 emulated hosts, 2 processors: a rank yields"
        exit 1
    fi
    echo "2 emulated hosts: $n ranks on 2 processors: right data, $k ranks yield"
done
