#!/bin/sh
# Open MPI's mpirun across emulated hosts: rtopo-run --hosts 2
# --exec-launcher runs mpirun on the head node of 2 emulated hosts, whose
# daemons it starts with rtopo-host-exec; 4 ranks per host (mpirun --host
# rtopo-host0:4,rtopo-host1:4) bootstrap through PMIx and run hosts_check
# data over ofi:tcp.  Every rank must check its data and report its host's
# name; then the leftover check.  REPEAT runs (default 1).  Skipped without
# mpirun or PMIx.
. "$(dirname "$0")/hosts_lib.sh"
command -v mpirun >/dev/null 2>&1 || { echo "no mpirun: skipped"; exit 77; }
grep -q '^#define HAVE_PMIX 1' "$builddir/config.h" ||
    { echo "built without PMIx: skipped"; exit 77; }
# the launch agent of the source tree (installed next to rtopo-run)
export RTOPORUN_HOST_EXEC="${srcdir:-.}/tools/rtopo-host-exec"
[ -x "$RTOPORUN_HOST_EXEC" ] || { echo "no $RTOPORUN_HOST_EXEC (set srcdir)"; exit 99; }
repeat=${REPEAT:-1}

i=0
while [ "$i" -lt "$repeat" ]; do
    i=$((i + 1))
    echo "+ run $i: rtopo-run --hosts 2 --exec-launcher mpirun --host rtopo-host0:4,rtopo-host1:4 -n 8 hosts_check data"
    rm -f "$info"
    : > "$out"
    RTOPO_TRANSPORT=ofi:tcp timeout 200 "$RUN" --hosts 2 --hosts-info "$info" \
        --exec-launcher mpirun --allow-run-as-root --oversubscribe \
        --host rtopo-host0:4,rtopo-host1:4 -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS \
        -n 8 "$CHECK" data > "$out" 2>&1 &
    job=$!
    wait_lines . 1 100
    [ -s "$info" ] || fail "rtopo-run wrote no --hosts-info"
    ns_record
    wait $job || fail "exit status $?"
    [ "$(grep -c '^data ok$' "$out")" -eq 8 ] || fail "not every rank checked its data"
    for r in 0 1 2 3 4 5 6 7; do
        grep -qx "rank $r on rtopo-host$((r / 4))" "$out" ||
            fail "rank $r is not on rtopo-host$((r / 4))"
    done
    # mpirun's daemons leave the hosts a moment after mpirun
    k=0
    while ! (leftover) > /dev/null 2>&1 && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
    leftover
    echo "run $i: ok"
done
echo "mpirun across emulated hosts: $repeat runs ok"
