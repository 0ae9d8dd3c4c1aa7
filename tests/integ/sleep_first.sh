#!/bin/sh
# Completion (sleep_check): right after creating a ring every rank of 4
# shifts by +1, then the even ranks sleep outside rtopo until their odd
# receiver's first shift is done, which it cannot be if an even rank's
# rtopo_shift returned before its data had left (the sleeper gives up
# after 120 s and fails).  No time is checked: RTOPO_TIMEOUT_MS is 10
# minutes, a job is cut off at 300 s (a hang).  On every transport
# usable here (ofi:rxm, ofi:tcp, ofi:shm, verbs), 8 bytes and 64 KiB;
# 77 (skip) when none is.
. "$(dirname "$0")/common.sh"
SLEEPC="$top_builddir/tests/integ/sleep_check"
export RTOPO_TIMEOUT_MS=600000
out=$(mktemp)
flags=$(mktemp -d)
trap 'rm -rf "$out" "$flags"' EXIT
fails=0 runs=0
for tr in ofi:rxm ofi:tcp ofi:shm verbs; do
    if ! "$INFO" --check "$tr" >/dev/null 2>&1; then
        echo "$tr: not usable here, not checked"
        continue
    fi
    for bytes in 8 65536; do
        runs=$(( runs + 1 ))
        rm -f "$flags"/done.*
        timeout 330 "$RUN" -n 4 --transport "$tr" --quiet --timeout 300 \
            "$SLEEPC" "$bytes" "$flags" >"$out" 2>&1
        rc=$?
        npass=$(grep -c 'verdict: pass' "$out")
        if [ "$rc" -eq 0 ] && [ "$npass" -eq 2 ]; then
            echo "$tr, $bytes bytes: ok, the odd ranks' first shifts ended while their senders slept:"
            grep 'first shift' "$out" | sed 's/^/    /'
        else
            fails=$(( fails + 1 ))
            echo "$tr, $bytes bytes: FAILED (exit status $rc, $npass of 2 odd ranks passed):"
            sed 's/^/    /' "$out"
        fi
    done
done
if [ "$runs" -eq 0 ]; then
    echo "none of ofi:rxm, ofi:tcp, ofi:shm, verbs is usable here: nothing ran, skipped"
    exit 77
fi
echo "$fails of $runs jobs failed"
[ "$fails" -eq 0 ]
