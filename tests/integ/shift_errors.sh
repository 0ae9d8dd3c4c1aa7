#!/bin/sh
# Failures surface as status codes, never as hangs: mismatched arguments
# give RTOPO_ERR_MISMATCH, a rank that dies gives RTOPO_ERR_PEER on the
# others and rtopo-run names it.  Over $TRANSPORT (default ofi:tcp).
# RTOPO_TIMEOUT_MS is 10 minutes: a call that returned MISMATCH or PEER
# found the failure itself, long before any timeout (the jobs are cut off
# at 300 s, which only catches a hang).
# On shm the die job runs without --quiet: there rank 3 may end its shift
# (its data does not pass rank 1) and exit before rtopo-run has reaped
# rank 1, and --quiet prints only the first failure.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for mode in mismatch-q mismatch-bytes; do
    RTOPO_TIMEOUT_MS=600000 run 4 "$tr" --error $mode >"$out" 2>&1
    cat "$out"
    grep -q 'RTOPO_ERR_MISMATCH' "$out" || { echo "FAIL: no MISMATCH for $mode"; exit 1; }
    if grep -q 'rank [01]: .* -> RTOPO_OK' "$out"; then
        echo "FAIL: a rank next to the disagreement reported success"; exit 1
    fi
    if grep 'rank [0-9]: .* -> RTOPO_ERR_' "$out" | grep -qv 'RTOPO_ERR_MISMATCH\|RTOPO_ERR_PEER'; then
        echo "FAIL: a rank saw neither MISMATCH nor PEER for $mode"; exit 1
    fi
done
start=$(date +%s)
quiet=--quiet
[ "$tr" != shm ] || quiet=
echo "+ rtopo-run -n 4 --transport $tr $quiet shift_check --error die"
RTOPO_TIMEOUT_MS=600000 timeout 300 "$RUN" -n 4 --transport "$tr" $quiet "$SHIFT" \
    --error die >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -ne 0 ] || { echo "FAIL: rtopo-run exited 0 although rank 1 died"; exit 1; }
grep -q 'rtopo-run: rank 1 .*exited with status 3' "$out" || { echo "FAIL: rtopo-run did not name rank 1"; exit 1; }
for r in 0 2; do
    grep -q "rank $r: die -> RTOPO_ERR_PEER" "$out" || { echo "FAIL: rank $r did not get RTOPO_ERR_PEER"; exit 1; }
done
grep -q "rank 3: die -> RTOPO_ERR_PEER\|rank 3: die -> RTOPO_OK" "$out" || { echo "FAIL: rank 3"; exit 1; }
echo "die: survivors reported RTOPO_ERR_PEER, job ended after $(( $(date +%s) - start )) s"
exit 0
