#!/bin/sh
# Topologies, collectives and addresses across emulated hosts (rtopo-run
# --hosts), every element checked by hosts_coll_check:
#  - 2 hosts of 4 ranks over ofi:tcp: a 2 x 4 mesh (one row per host),
#    shift_dim along both dimensions, bcast and allreduce; every rank
#    publishes its host's interface (eth0, 10.77.0.x), as its log says;
#  - 4 hosts of 4 ranks: an OTIS-mesh of 4 groups of 4 (a group per
#    host), shift_dim along its 4 dimensions, prefix sum, allreduce;
#  - 4 hosts, 5 ranks: the windowed scatter of a hypercube of 4 nodes
#    whose host (rank 4) runs alone on rtopo-host3;
#  - a wrong address: FI_TCP_IFACE=lo (and FI_NET_IFACE) on 2 hosts makes
#    every rank publish loopback; each rank's connection across the hosts
#    fails at once with RTOPO_ERR_TRANSPORT naming both ranks and both
#    hosts, and the job ends without rtopo-run's timeout;
#  - without --hosts, ofi:tcp and ofi:rxm publish loopback (log).
# The leftover check after every job on hosts.  REPEAT rounds (default 1).
. "$(dirname "$0")/hosts_lib.sh"
COLL=$builddir/tests/integ/hosts_coll_check
[ -x "$COLL" ] || { echo "$COLL is not built"; exit 99; }
repeat=${REPEAT:-1}

# hosts_job H N TRANSPORT ARGS...: runs hosts_coll_check ARGS on N ranks
# over H hosts; the ranks' output in $out, exit status in $rc
hosts_job() {
    h=$1 n=$2 tr=$3
    shift 3
    echo "+ rtopo-run -n $n --hosts $h${tr:+ --transport $tr} hosts_coll_check $*"
    hosts_run 150 -n "$n" --hosts "$h" ${tr:+--transport "$tr"} "$COLL" "$@"
}

# every rank on its host, H hostnames in all
check_hosts() {
    r=0
    while [ $r -lt "$2" ]; do
        grep -qx "\[$r\] rank $r on rtopo-host$(host_of "$2" "$1" $r)" "$out" ||
            fail "rank $r is not on rtopo-host$(host_of "$2" "$1" $r)"
        r=$((r + 1))
    done
    [ "$(sed -n 's/^\[[0-9]*\] rank [0-9]* on //p' "$out" | sort -u | wc -l)" -eq "$1" ] ||
        fail "not $1 hostnames"
}

coll_ok() {
    [ "$rc" -eq 0 ] || fail "exit status $rc"
    [ "$(grep -c '^\[[0-9]*\] coll ok$' "$out")" -eq "$1" ] ||
        fail "not every rank checked its data"
}

round=0
while [ "$round" -lt "$repeat" ]; do
    round=$((round + 1))
    echo "round $round"

    RTOPO_LOG_LEVEL=info hosts_job 2 8 ofi:tcp mesh 2 4
    coll_ok 8
    check_hosts 2 8
    for r in 0 1 2 3 4 5 6 7; do
        grep -Eq "^\[$r\] rtopo\[$r [0-9]+\] info .*address 10\.77\.0\.[0-9]+ on eth0 \(ranks in other network stacks\)$" "$out" ||
            fail "rank $r does not publish its host's eth0 address"
    done
    leftover

    hosts_job 4 16 "" otis 4
    coll_ok 16
    check_hosts 4 16
    leftover

    hosts_job 4 5 "" scatter 2 4
    coll_ok 5
    check_hosts 4 5
    [ "$(grep -c ' on rtopo-host3$' "$out")" -eq 1 ] || fail "the host rank is not alone on its host"
    grep -qx '\[4\] host of the scatter: topology rank 4 of 4 nodes' "$out" ||
        fail "rank 4 is not the host outside the cube"
    leftover

    # loopback published across hosts: a prompt, clear failure
    FI_TCP_IFACE=lo FI_NET_IFACE=lo hosts_job 2 4 ofi:tcp mesh 2 2
    [ "$rc" -ne 0 ] || fail "loopback across hosts: the job succeeded"
    grep -q 'rtopo-run: timeout' "$out" && fail "loopback across hosts: the job hung"
    for r in 0 1 2 3; do
        p=$(( (r + 2) % 4 ))    # the rank of the same column on the other host
        grep -Eq "^\[$r\] rank $r: rtopo_topo_mesh: RTOPO_ERR_TRANSPORT \(rank $r on rtopo-host$((r / 2)) cannot connect to rank $p on rtopo-host$((p / 2)): rank $p published a loopback address" "$out" ||
            fail "loopback across hosts: rank $r does not name both hosts"
    done
    leftover

    # one machine, one network stack: loopback
    for tr in ofi:tcp ofi:rxm; do
        echo "+ rtopo-run -n 2 --transport $tr hosts_coll_check mesh 1 2"
        RTOPO_LOG_LEVEL=info timeout 60 "$RUN" -n 2 --transport $tr --timeout 50 \
            "$COLL" mesh 1 2 > "$out" 2>&1 || fail "$tr on one machine: exit status $?"
        [ "$(grep -c '^\[[0-9]*\] coll ok$' "$out")" -eq 2 ] || fail "$tr: data"
        [ "$(grep -c 'info .*address 127\.0\.0\.1 on lo (every rank in this network stack)$' "$out")" -eq 2 ] ||
            fail "$tr on one machine: not loopback"
    done
    echo "round $round: ok"
done
echo "collectives across emulated hosts: $repeat rounds ok"
