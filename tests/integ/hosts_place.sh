#!/bin/sh
# Placement of a topology's ranks by host across emulated hosts (rtopo-run
# --hosts, ranks given round robin with --map-by host, so that rank order
# puts neighbours on different hosts), checked by hosts_place_check:
#  - OTIS-mesh of 4 groups of 4 on 4 hosts: host placement makes each
#    group one host (from rtopo_topo_coords and the hostnames, here and in
#    the program); rank placement leaves every group on 4 hosts; bcast,
#    allreduce, scan and sort correct under both;
#  - a 2 x 4 mesh on 2 hosts by RTOPO_PLACE=host: a row per host;
#  - a hypercube of 8 on 2 hosts by the default (auto): two 2-sub-cubes;
#  - a 3 x 6 mesh on 6 hosts of 3 by the default (auto): round robin puts
#    each column on one host, 18 links between hosts (every row link) in
#    rank order against 24 with two rows per host (every column link;
#    rows wrap): auto keeps the rank placement, with a debug line giving
#    both counts, on every rank;
#  - 16 ranks on 3 hosts (6, 5, 5): host placement of the OTIS-mesh fails
#    with RTOPO_ERR_INVAL on every rank, auto keeps the rank placement with
#    a debug line, and the data stay right;
#  - rtopo_set_place refuses an unknown value and a NULL context, and
#    RTOPO_PLACE=hosts makes rtopo_init fail with RTOPO_ERR_INVAL.
# The leftover check after every job.  REPEAT rounds (default 1).
. "$(dirname "$0")/hosts_lib.sh"
PLACE=$builddir/tests/integ/hosts_place_check
[ -x "$PLACE" ] || { echo "$PLACE is not built"; exit 99; }
repeat=${REPEAT:-1}
unset RTOPO_PLACE RTOPO_COLL_ALGO

# place_job H N ARGS...: hosts_place_check ARGS on N ranks over H hosts,
# round robin; output in $out, exit status in $rc
place_job() {
    h=$1 n=$2
    shift 2
    echo "+ rtopo-run -n $n --hosts $h --map-by host hosts_place_check $*"
    hosts_run 150 -n "$n" --hosts "$h" --map-by host "$PLACE" "$@"
}

place_ok() {
    [ "$rc" -eq 0 ] || fail "exit status $rc"
    [ "$(grep -c '^\[[0-9]*\] place ok$' "$out")" -eq "$1" ] || fail "not every rank checked"
}

# every rank on host r % H
check_rr() {
    r=0
    while [ $r -lt "$2" ]; do
        grep -q "^\[$r\] rank $r on rtopo-host$((r % $1)) " "$out" ||
            fail "rank $r is not on rtopo-host$((r % $1))"
        r=$((r + 1))
    done
}

# hostnames per group: "G HOSTS" with the distinct hostnames of group G
group_hosts() {
    sed -n 's/^\[[0-9]*\] rank [0-9]* on \([^ ]*\) label [0-9]* group \([0-9]*\)$/\2 \1/p' "$out" |
        sort -u | awk '{ n[$1]++ } END { for (g in n) print g, n[g] }' | sort -n
}

round=0
while [ "$round" -lt "$repeat" ]; do
    round=$((round + 1))
    echo "round $round"

    place_job 4 16 host otis 4
    place_ok 16
    check_rr 4 16
    [ "$(grep -c '^\[[0-9]*\] placement host$' "$out")" -eq 16 ] || fail "otis: not placed by host"
    [ "$(group_hosts | awk '$2 == 1' | wc -l)" -eq 4 ] || fail "otis host: a group on several hosts: $(group_hosts)"
    [ "$(sed -n 's/^\[[0-9]*\] rank [0-9]* on \([^ ]*\) label [0-9]* group \([0-9]*\)$/\2 \1/p' "$out" |
        sort -u | awk '{ print $2 }' | sort -u | wc -l)" -eq 4 ] || fail "otis host: groups share a host"
    grep -q '^\[1\] rank 1 on rtopo-host1 label 4 group 1$' "$out" ||
        fail "otis host: rank 1 is not label 4 of group 1"
    leftover

    place_job 4 16 rank otis 4
    place_ok 16
    [ "$(grep -c '^\[[0-9]*\] placement rank$' "$out")" -eq 16 ] || fail "otis rank: placed by host"
    [ "$(group_hosts | awk '$2 == 4' | wc -l)" -eq 4 ] || fail "otis rank: a group not on 4 hosts: $(group_hosts)"
    leftover

    RTOPO_PLACE=host place_job 2 8 env mesh 2 4
    place_ok 8
    check_rr 2 8
    [ "$(grep -c '^\[[0-9]*\] placement host$' "$out")" -eq 8 ] || fail "mesh: not placed by host"
    [ "$(group_hosts | awk '$2 == 1' | wc -l)" -eq 2 ] || fail "mesh: a row on several hosts: $(group_hosts)"
    leftover

    place_job 2 8 env cube 3
    place_ok 8
    [ "$(grep -c '^\[[0-9]*\] placement host$' "$out")" -eq 8 ] || fail "cube: auto did not place by host"
    [ "$(group_hosts | wc -l)" -eq 2 ] && [ "$(group_hosts | awk '$2 == 1' | wc -l)" -eq 2 ] ||
        fail "cube: not two sub-cubes of one host each: $(group_hosts)"
    leftover

    RTOPO_LOG_LEVEL=debug place_job 6 18 env mesh 3 6
    place_ok 18
    check_rr 6 18
    [ "$(grep -c '^\[[0-9]*\] placement rank$' "$out")" -eq 18 ] ||
        fail "mesh 3x6 on 6 hosts: auto did not keep the rank placement (18 links between hosts against 24)"
    [ "$(grep -c 'debug .*mesh over 6 hosts: its links cost 18 by rank against 24 by host under the model: rank placement$' "$out")" -eq 18 ] ||
        fail "mesh 3x6 on 6 hosts: no debug line with both costs on every rank"
    leftover

    RTOPO_LOG_LEVEL=debug place_job 3 16 error otis 4
    place_ok 16
    [ "$(grep -c '^\[[0-9]*\] place refused: host placement of the otis-mesh of 16 ranks needs each host to hold whole groups of 4 ranks; its 3 hosts hold 6, 5, 5 ranks$' "$out")" -eq 16 ] ||
        fail "uneven hosts: not every rank refused host placement with the message"
    [ "$(grep -c 'debug .*otis-mesh over 3 hosts: hosts of uneven sizes (6, 5, 5 ranks; each would need whole groups of 4 ranks): rank placement$' "$out")" -eq 16 ] ||
        fail "uneven hosts: auto gave no debug line on every rank"
    leftover

    # a value of RTOPO_PLACE that is none of the three: rtopo_init refuses it
    echo "+ RTOPO_PLACE=hosts rtopo-run -n 2 hosts_place_check env otis 1"
    rc=0
    RTOPO_PLACE=hosts timeout 60 "$RUN" -n 2 --timeout 50 "$PLACE" env otis 1 > "$out" 2>&1 || rc=$?
    [ "$rc" -ne 0 ] || fail "RTOPO_PLACE=hosts: the job succeeded"
    [ "$(grep -c 'rtopo_init: RTOPO_ERR_INVAL (RTOPO_PLACE=hosts is not one of auto, rank, host)$' "$out")" -eq 2 ] ||
        fail "RTOPO_PLACE=hosts: not refused with the message on every rank"
    echo "round $round: ok"
done
echo "placement by host across emulated hosts: $repeat rounds ok"
