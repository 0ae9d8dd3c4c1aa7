#!/bin/sh
# Completion of blocking shifts (rtopo(7), COMPLETION AND PROGRESS): runs
# hang_check, 5 rounds of rtopo_barrier + rtopo_shift on 4 ranks, REPEAT
# times (default 40) over TRANSPORT, cycling through topologies (ring,
# 2x2 mesh, 2-cube), sizes (8 bytes, eager; 64 KiB, rendezvous), q and a
# warm-up shift or none.  RTOPO_TIMEOUT_MS=120000: a run that hangs
# fails after 2 minutes, a run on a busy machine is never cut short (a
# 4 s timeout failed bootstraps there).  Every run must pass; the output
# of each failed run is printed.  Runs stop being started after BUDGET
# seconds (default 45): a busy machine does fewer runs, not a failure.
# Environment: TRANSPORT (required), REPEAT, BUDGET, NP (ranks, default 4).
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:?set TRANSPORT}
need_transport "$tr"
HANG="$top_builddir/tests/integ/hang_check"
repeat=${REPEAT:-40}
budget=${BUDGET:-45}
np=${NP:-4}
export RTOPO_TIMEOUT_MS=120000
out=$(mktemp)
trap 'rm -f "$out"' EXIT

ms() { echo $(( $(date +%s%N) / 1000000 )); }
pick() { shift $(( $1 % ($# - 1) + 1 )); echo "$1"; }   # pick I A B C...: element I mod n

start=$(ms)
i=0 fails=0 ran=0
while [ "$i" -lt "$repeat" ]; do
    if [ $(( $(ms) - start )) -gt $(( budget * 1000 )) ]; then
        echo "time budget of $budget s used up: stopped after $ran of $repeat runs"
        break
    fi
    topo=$(pick "$i" ring mesh cube)
    bytes=$(pick $(( i / 3 )) 8 65536)
    q=$(pick $(( i / 6 )) 1 3 2 -1)
    warm=$(pick $(( i / 24 )) 0 1)
    t0=$(ms)
    timeout 330 "$RUN" -n "$np" --transport "$tr" --quiet --timeout 300 \
        "$HANG" "$topo" "$q" "$bytes" "$warm" >"$out" 2>&1
    rc=$?
    t1=$(ms)
    ran=$(( ran + 1 ))
    i=$(( i + 1 ))
    what="run $i/$repeat: $tr, $np ranks, $topo q=$q bytes=$bytes warm=$warm"
    if [ "$rc" -eq 0 ] && grep -q '^\[0\] ok' "$out"; then
        echo "$what: ok ($(( t1 - t0 )) ms)"
    else
        fails=$(( fails + 1 ))
        echo "$what: FAILED, exit status $rc after $(( t1 - t0 )) ms; its output:"
        sed 's/^/    /' "$out"
    fi
done
echo "$tr: $fails of $ran runs of barrier + shift failed ($(( ($(ms) - start) / 1000 )) s)"
[ "$fails" -eq 0 ] && [ "$ran" -gt 0 ]
