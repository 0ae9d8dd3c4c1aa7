#!/bin/sh
# Open MPI's mpirun across emulated hosts: rtopo-run --hosts 2
# --exec-launcher runs mpirun on the head node of 2 emulated hosts, whose
# daemons it starts with rtopo-host-exec; 4 ranks per host (mpirun --host
# rtopo-host0:4,rtopo-host1:4) bootstrap through PMIx and run hosts_check
# data over ofi:tcp.  Every rank must check its data, report its host's
# name and publish its host's address (10.77.0.2 + host, on eth0: its
# log); then the leftover check.  Then the same job with FI_TCP_IFACE=lo
# (and FI_NET_IFACE): every rank publishes loopback, and the ranks whose
# ring neighbour is on the other host fail at connection with
# RTOPO_ERR_TRANSPORT naming both ranks and hosts; mpirun ends the job.
# REPEAT runs (default 1).  Skipped without mpirun or PMIx.
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
    RTOPO_TRANSPORT=ofi:tcp RTOPO_LOG_LEVEL=info timeout 200 "$RUN" --hosts 2 \
        --hosts-info "$info" --exec-launcher mpirun --allow-run-as-root --oversubscribe \
        --host rtopo-host0:4,rtopo-host1:4 -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS \
        -x RTOPO_LOG_LEVEL -n 8 "$CHECK" data > "$out" 2>&1 &
    job=$!
    wait_lines . 1 100
    [ -s "$info" ] || fail "rtopo-run wrote no --hosts-info"
    ns_record
    wait $job || fail "exit status $?"
    [ "$(grep -c '^data ok$' "$out")" -eq 8 ] || fail "not every rank checked its data"
    for r in 0 1 2 3 4 5 6 7; do
        grep -qx "rank $r on rtopo-host$((r / 4))" "$out" ||
            fail "rank $r is not on rtopo-host$((r / 4))"
        grep -Eq "^rtopo\[$r [0-9]+\] info .*address 10\.77\.0\.$((r / 4 + 2)) on eth0 \(ranks in other network stacks\)$" "$out" ||
            fail "rank $r does not publish the address of rtopo-host$((r / 4))"
    done
    # mpirun's daemons leave the hosts a moment after mpirun
    k=0
    while ! (leftover) > /dev/null 2>&1 && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
    leftover

    echo "+ run $i: the same with FI_TCP_IFACE=lo: loopback published across the hosts"
    rm -f "$info"
    : > "$out"
    FI_TCP_IFACE=lo FI_NET_IFACE=lo RTOPO_TRANSPORT=ofi:tcp timeout 200 "$RUN" --hosts 2 \
        --hosts-info "$info" --exec-launcher mpirun --allow-run-as-root --oversubscribe \
        --host rtopo-host0:4,rtopo-host1:4 -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS \
        -x FI_TCP_IFACE -x FI_NET_IFACE -n 8 "$CHECK" data > "$out" 2>&1 &
    job=$!
    wait_lines . 1 100
    [ -s "$info" ] || fail "rtopo-run wrote no --hosts-info"
    ns_record
    st=0
    wait $job || st=$?
    [ $st -ne 0 ] || fail "loopback across hosts: the job succeeded"
    [ $st -ne 124 ] || fail "loopback across hosts: the job hung"
    # ranks 3 and 4, 7 and 0 are ring neighbours on different hosts; each
    # that gets to its connection before mpirun ends the job names both
    n=0
    for pair in "3 4" "4 3" "7 0" "0 7"; do
        set -- $pair
        if grep -q "^rank $1: rtopo_topo_ring: RTOPO_ERR_TRANSPORT (rank $1 on rtopo-host$(($1 / 4)) cannot connect to rank $2 on rtopo-host$(($2 / 4)): rank $2 published a loopback address" "$out"; then
            n=$((n + 1))
        fi
    done
    [ $n -ge 1 ] || fail "loopback across hosts: no rank names both hosts"
    grep -E '^rank [0-9]+: ' "$out" | grep -v 'RTOPO_ERR_TRANSPORT (rank [0-9]* on rtopo-host[01] cannot connect to rank [0-9]* on rtopo-host[01]: rank [0-9]* published a loopback address' |
        grep -v 'RTOPO_ERR_PEER' && fail "loopback across hosts: another error"
    k=0
    while ! (leftover) > /dev/null 2>&1 && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
    leftover
    echo "run $i: ok"
done
echo "mpirun across emulated hosts: $repeat runs ok"
