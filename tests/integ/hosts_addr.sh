#!/bin/sh
# Addresses that the other hosts cannot reach, on 2 emulated hosts of 2
# ranks (rtopo-run --hosts 2), hosts_coll_check mesh 2 2: each rank has
# its column's neighbour on the other host.  The ranks of rtopo-host1
# publish the address of an interface of a network of their own: before
# rtopo_init, a rank there makes a veth pair inside its host's network
# namespace (gone with the namespace at the job's end), gives rtx0
# 10.78.1.1/24 and sets FI_TCP_IFACE=rtx0 (and FI_NET_IFACE) for itself;
# the ranks of rtopo-host0 keep eth0.
#   noroute   rtopo-host0 has no route to 10.78.1.1;
#   both      rtopo-host0 too publishes an interface of its own network,
#             10.78.0.1/24: neither host has a route to the other's;
#   noanswer  rtopo-host0 routes 10.78.0.0/16 through the job's bridge
#             (10.77.0.1), which forwards nothing: the way exists, no
#             answer comes back, and libfabric would try to connect
#             again and again until RTOPO_TIMEOUT_MS.
# RTOPO_TIMEOUT_MS is 60 s (rtopo-run's --timeout, 90 s, only bounds a
# hang): every rank must fail its connection across the hosts with
# RTOPO_ERR_TRANSPORT, never RTOPO_ERR_TIMEOUT (what waiting for the
# provider's retries gives at 60 s): a rank of rtopo-host0 naming both ranks, both hosts and the
# address it cannot reach (and why), the rank of rtopo-host1 across from
# it naming both ranks, both hosts and the same address as its own.  The
# leftover check after each job.  REPEAT rounds (default 1).
. "$(dirname "$0")/hosts_lib.sh"
COLL=$builddir/tests/integ/hosts_coll_check
[ -x "$COLL" ] || { echo "$COLL is not built"; exit 99; }
repeat=${REPEAT:-1}
export RTOPO_TIMEOUT_MS=60000

# the wrapper each rank runs: HOW PROG ARGS...
wrap=$tmp/wrap.sh
cat > "$wrap" <<'EOF'
how=$1
shift
h=$(hostname)
case $h in
rtopo-host0)
    [ "$how" = noanswer ] && ip route add 10.78.0.0/16 via 10.77.0.1 2>/dev/null ;;
esac
if [ "$h" = rtopo-host1 ] || [ "$how" = both ]; then
    # the first rank of the host makes it; both wait until it is up
    a=10.78.${h#rtopo-host}.1
    ip link add rtx0 type veth peer name rtx1 2>/dev/null &&
        ip link set rtx1 up && ip addr add $a/24 dev rtx0 && ip link set rtx0 up
    i=0
    until ip -o -4 addr show dev rtx0 up 2>/dev/null | grep -q "inet $a/"; do
        i=$((i + 1))
        [ $i -gt 200 ] && { echo "rtx0 did not come up"; exit 1; }
        sleep 0.05
    done
    export FI_TCP_IFACE=rtx0 FI_NET_IFACE=rtx0
fi
if [ "$how" = noanswer ] && [ "$h" = rtopo-host0 ]; then
    ip route show | grep -q '^10\.78\.0\.0/16 via 10\.77\.0\.1' || { echo "no route"; exit 1; }
fi
exec "$@"
EOF

round=0
while [ "$round" -lt "$repeat" ]; do
    round=$((round + 1))
    for cfg in "noroute ofi:tcp" "noroute ofi:rxm" "both auto" "noanswer ofi:rxm" \
               "noanswer auto"; do
        set -- $cfg
        how=$1 tr=$2
        echo "+ round $round: $how, rtopo-run -n 4 --hosts 2 --transport $tr hosts_coll_check mesh 2 2"
        hosts_run 110 -n 4 --hosts 2 --transport "$tr" sh "$wrap" "$how" "$COLL" mesh 2 2
        [ "$rc" -ne 0 ] || fail "$how $tr: the job succeeded"
        grep -q '^rtopo-run: timeout' "$out" && fail "$how $tr: the job hung"
        grep -q 'RTOPO_ERR_TIMEOUT' "$out" && fail "$how $tr: a rank timed out"
        case $how in
        noroute | both) why="has no route from here \(Network is unreachable: " ;;
        noanswer) why="does not answer here within [0-9]+ ms \(" ;;
        esac
        if [ "$how" = both ]; then
            # every rank names the address of its peer across
            for r in 0 1 2 3; do
                p=$(( (r + 2) % 4 ))
                grep -Eq "^\[$r\] rank $r: rtopo_topo_mesh: RTOPO_ERR_TRANSPORT \(rank $r on rtopo-host$((r / 2)) cannot connect to rank $p on rtopo-host$((p / 2)): rank $p's address 10\.78\.$((p / 2))\.1:[0-9]+ $why" "$out" ||
                    fail "$how $tr: rank $r does not name both hosts and the address"
            done
            leftover
            echo "$how $tr: RTOPO_ERR_TRANSPORT on all 4 ranks, both hosts and the address named"
            continue
        fi
        for r in 0 1; do
            p=$((r + 2))
            line=$(grep -E "^\[$r\] rank $r: rtopo_topo_mesh: RTOPO_ERR_TRANSPORT \(rank $r on rtopo-host0 cannot connect to rank $p on rtopo-host1: rank $p's address 10\.78\.1\.1:[0-9]+ $why" "$out") ||
                fail "$how $tr: rank $r does not name both hosts and the address"
            addr=$(printf '%s\n' "$line" | sed -n "s/.*rank $p's address \(10\.78\.1\.1:[0-9]*\) .*/\1/p")
            grep -Eq "^\[$p\] rank $p: rtopo_topo_mesh: RTOPO_ERR_TRANSPORT \(rank $p on rtopo-host1 cannot connect to rank $r on rtopo-host0: rank $r found at start-up that it cannot reach the address $addr that this rank published" "$out" ||
                fail "$how $tr: rank $p does not name both hosts and its address $addr"
        done
        leftover
        echo "$how $tr: RTOPO_ERR_TRANSPORT on all 4 ranks, both hosts and the address named"
    done
    echo "round $round: ok"
done
echo "addresses the other hosts cannot reach: $repeat rounds ok"
