#!/bin/sh
# Completion (sleep_check): right after creating a ring every rank of 4
# shifts by +1, then the even ranks sleep outside rtopo until their odd
# receiver's first shift is done, which it cannot be if an even rank's
# rtopo_shift returned before its data had left (the sleeper gives up
# after 120 s and fails).  No time is checked: RTOPO_TIMEOUT_MS is 10
# minutes, a job is cut off at 300 s (a hang).  On every transport
# usable here (ofi:rxm, ofi:tcp, ofi:shm, verbs), 8 bytes and 64 KiB;
# 77 (skip) when none is.  Ranks 1 and 3 must each print one verdict,
# pass, and rtopo-run exit 0 (common.sh, verdict_case).
. "$(dirname "$0")/common.sh"
SLEEPC="$top_builddir/tests/integ/sleep_check"
export RTOPO_TIMEOUT_MS=600000
flags=$(mktemp -d)
trap 'rm -rf "$flags"' EXIT
fails=0 summary= runs=0
for tr in ofi:rxm ofi:tcp ofi:shm verbs; do
    tr_usable "$tr" || continue
    for bytes in 8 65536; do
        runs=$(( runs + 1 ))
        rm -f "$flags"/done.*
        # the odd ranks print the verdicts
        verdict_case "$tr, $bytes bytes" "1 3" 0 330 \
            "$RUN" -n 4 --transport "$tr" --quiet --timeout 300 "$SLEEPC" "$bytes" "$flags"
    done
done
if [ "$runs" -eq 0 ]; then
    echo "none of ofi:rxm, ofi:tcp, ofi:shm, verbs is usable here: nothing ran, skipped"
    exit 77
fi
verdict_end
