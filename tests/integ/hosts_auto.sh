#!/bin/sh
# RTOPO_TRANSPORT=auto per peer across emulated hosts (rtopo-run --hosts,
# namespaces): shm to the ranks of the same host, the network backend to
# the others, through the composite backend.  8 ranks on 2 and on 4 hosts:
#   - shift_check: ring shifts by 1 and by every q, sizes from 0 B to
#     1 MiB + 3, registered and unregistered, every byte checked;
#   - coll_check: bcast and allreduce on a ring and a hypercube, topology
#     and generic algorithms, every element checked;
#   - the log: every rank counts shm for the other ranks of its host and
#     the network for the ranks of the other hosts, and its init line
#     names shm+<network>;
#   - a dead host: every rank of host 1 is killed (SIGKILL) while the
#     ranks shift 64 KiB (hosts_check fault); every rank of the other
#     hosts, those that reach it over shm from the same host as much as
#     those over the network, gets RTOPO_ERR_PEER.
# After each job, the leftover check.  REPEAT rounds (default 1).
. "$(dirname "$0")/hosts_lib.sh"
repeat=${REPEAT:-1}
SHIFT=$builddir/tests/integ/shift_check
COLL=$builddir/tests/integ/coll_check
[ -x "$SHIFT" ] && [ -x "$COLL" ] || { echo "shift_check or coll_check is not built"; exit 99; }
if ! "$builddir/tools/rtopo-info" --check shm > /dev/null 2>&1; then
    echo "shm is not usable here: skipped"
    exit 77
fi
n=8

# job H PROG ARGS...: one bounded job on H hosts under auto, log at info
job() {
    h=$1
    shift
    echo "+ round $round: rtopo-run -n $n --hosts $h --transport auto ${1##*/} ${*#"$1"}"
    RTOPO_LOG_LEVEL=info hosts_run 300 -n $n --hosts "$h" --transport auto "$@"
    [ "$rc" -eq 0 ] || fail "$h hosts: exit status $rc"
    # every rank: shm to the others of its host, the network to the rest
    loc=$((n / h - 1)) rem=$((n - n / h))
    got=$(grep -c "transport per peer: shm for $loc ranks\{0,1\} of this host, [a-z:;_]* for $rem ranks\{0,1\} of other hosts" "$out")
    [ "$got" -eq $n ] ||
        fail "$h hosts: $got of $n ranks logged shm for $loc and the network for $rem peers"
    [ "$(grep -c 'rtopo_init: rank [0-9]* of [0-9]* on rtopo-host[0-9]*, transport shm+' "$out")" -eq $n ] ||
        fail "$h hosts: not every init line names shm+<network> on an emulated host"
    leftover
}

round=0
while [ "$round" -lt "$repeat" ]; do
    round=$((round + 1))
    for h in 2 4; do
        job $h "$SHIFT" --topo ring --sizes 0,8,4096,65536,1048579 --q all
        job $h "$COLL" --topo ring --algos topo,generic --ops bcast,allreduce \
            --counts 1,7,300000
        job $h "$COLL" --topo hypercube:3 --algos topo,generic --ops bcast,allreduce \
            --counts 1,300000 --mem reg,unreg
    done

    # a dead host: every rank of host 1 of 2 killed mid-shift
    echo "+ round $round: rtopo-run -n $n --hosts 2 --transport auto hosts_check fault; host 1 killed"
    rm -f "$info"
    : > "$out"
    timeout 120 "$RUN" -n $n --hosts 2 --transport auto --grace 30 --timeout 100 \
        --hosts-info "$info" "$CHECK" fault > "$out" 2>&1 &
    pid=$!
    wait_lines '^\[[0-9]*\] ready$' $n 60 || fail "the ranks did not get ready"
    [ -s "$info" ] || fail "rtopo-run wrote no --hosts-info"
    ns_record
    kill -KILL $(awk '$1 == "rank" && $3 == 1 { print $4 }' "$info")
    wait $pid
    rc=$?
    [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "dead host: exit status $rc"
    r=0
    while [ $r -lt $n ]; do
        if [ "$(host_of $n 2 $r)" != 1 ]; then
            grep -Eq "^\[$r\] shift: RTOPO_ERR_PEER after [0-9]+ shifts$" "$out" ||
                fail "dead host: rank $r did not get RTOPO_ERR_PEER"
        fi
        r=$((r + 1))
    done
    leftover
    echo "round $round: ok"
done
echo "auto per peer across emulated hosts: $repeat rounds ok"
