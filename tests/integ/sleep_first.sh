#!/bin/sh
# Completion, measured (sleep_check): right after creating a ring every
# rank of 4 shifts by +1, then the even ranks sleep 1 s outside rtopo.
# The odd ranks receive from even ones: their FIRST shift must take less
# than LIMIT_MS (default 100) ms, which it cannot if an even rank's
# rtopo_shift returned before its data had left.  On every transport
# usable here (ofi:rxm, ofi:tcp, ofi:shm, verbs), 8 bytes and 64 KiB;
# 77 (skip) when none is.
. "$(dirname "$0")/common.sh"
SLEEPC="$top_builddir/tests/integ/sleep_check"
limit=${LIMIT_MS:-100}
export RTOPO_TIMEOUT_MS=10000
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fails=0 runs=0
for tr in ofi:rxm ofi:tcp ofi:shm verbs; do
    if ! "$INFO" --check "$tr" >/dev/null 2>&1; then
        echo "$tr: not usable here, not checked"
        continue
    fi
    for bytes in 8 65536; do
        runs=$(( runs + 1 ))
        timeout 40 "$RUN" -n 4 --transport "$tr" --quiet --timeout 30 \
            "$SLEEPC" "$bytes" "$limit" >"$out" 2>&1
        rc=$?
        npass=$(grep -c 'verdict: pass' "$out")
        if [ "$rc" -eq 0 ] && [ "$npass" -eq 2 ]; then
            echo "$tr, $bytes bytes: ok, odd ranks' first shift under $limit ms:"
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
