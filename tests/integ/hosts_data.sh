#!/bin/sh
# rtopo-run --hosts H: every host's ranks in namespaces of their own.
# On 2 and 4 emulated hosts of 8 ranks (ofi:tcp, and auto on 2 hosts):
# hosts_check data (ring shifts by every q of 8 bytes and 1 MiB, bcast,
# allreduce, every byte checked); every rank reports the hostname of its
# host (rtopo-host<h>, contiguous blocks); a file made in /dev/shm on one
# host is seen by that host's ranks only and never in the machine's; the
# leftover check after every job; --link-rate and --host-link put a tbf
# of the rate on each host's eth0; and, as nobody, the fallback to
# RTOPO_HOST_ID with a one-line reason.  REPEAT rounds (default 2).
. "$(dirname "$0")/hosts_lib.sh"
repeat=${REPEAT:-2}
n=8
tag=rtopo-hosts-test-$$

round=0
while [ "$round" -lt "$repeat" ]; do
    round=$((round + 1))
    for cfg in "2 ofi:tcp" "4 ofi:tcp" "2 auto"; do
        set -- $cfg
        h=$1 tr=$2
        echo "+ round $round: rtopo-run -n $n --hosts $h --transport $tr hosts_check data"
        rm -f "$info"
        : > "$out"
        timeout 120 "$RUN" -n $n --hosts "$h" --transport "$tr" --timeout 100 \
            --hosts-info "$info" "$CHECK" data > "$out" 2>&1 &
        job=$!
        wait_lines '^\[' 1 60
        [ -s "$info" ] || fail "rtopo-run wrote no --hosts-info"
        ns_record
        wait $job || fail "$h hosts, $tr: exit status $?"
        [ "$(grep -c '^\[[0-9]*\] data ok$' "$out")" -eq $n ] ||
            fail "$h hosts, $tr: not every rank checked its data"
        r=0
        while [ $r -lt $n ]; do
            want=rtopo-host$(host_of $n "$h" $r)
            grep -qx "\[$r\] rank $r on $want" "$out" ||
                fail "$h hosts, $tr: rank $r is not on $want"
            r=$((r + 1))
        done
        [ "$(sed -n 's/^\[[0-9]*\] rank [0-9]* on //p' "$out" | sort -u | wc -l)" -eq "$h" ] ||
            fail "$h hosts, $tr: not $h hostnames"
        leftover
    done

    # /dev/shm: each host has its own
    echo "+ round $round: rtopo-run -n 4 --hosts 2: a file in /dev/shm per rank"
    timeout 60 "$RUN" -n 4 --hosts 2 --timeout 50 --hosts-info "$info" sh -c '
        touch /dev/shm/'$tag'-$RTOPO_RANK
        peer=$((RTOPO_RANK ^ 1)) i=0
        while [ ! -e /dev/shm/'$tag'-$peer ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        echo "$(hostname):" $(cd /dev/shm && ls -d '$tag'-* | sed "s/.*-//")' > "$out" 2>&1 ||
        fail "/dev/shm job: exit status $?"
    for r in 0 1; do
        grep -qx "\[$r\] rtopo-host0: 0 1" "$out" || fail "/dev/shm of host 0 as rank $r sees it"
    done
    for r in 2 3; do
        grep -qx "\[$r\] rtopo-host1: 2 3" "$out" || fail "/dev/shm of host 1 as rank $r sees it"
    done
    ls /dev/shm/$tag-* > /dev/null 2>&1 && fail "a host's /dev/shm file is in the machine's"
    leftover
    echo "round $round: ok"
done
# link rates: the token bucket on both ends of each host's link
echo "+ rtopo-run -n 2 --hosts 2 --link-rate 100mbit --host-link 1:20mbit: tc qdisc show"
timeout 60 "$RUN" -n 2 --hosts 2 --link-rate 100mbit --host-link 1:20mbit --timeout 50 \
    --hosts-info "$info" sh -c 'tc qdisc show dev eth0' > "$out" 2>&1 ||
    fail "link rates: exit status $?"
grep -Eq '^\[0\] qdisc tbf .* rate 100Mbit ' "$out" || fail "host 0: no tbf of 100Mbit on eth0"
grep -Eq '^\[1\] qdisc tbf .* rate 20Mbit ' "$out" || fail "host 1: no tbf of 20Mbit on eth0"
leftover

# without the privileges: one line says why, RTOPO_HOST_ID emulates the hosts
drop="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all"
if command -v setpriv > /dev/null 2>&1 && $drop test -x "$RUN" 2>/dev/null; then
    echo "+ as nobody: rtopo-run -n 4 --hosts 2"
    timeout 60 $drop "$RUN" -n 4 --hosts 2 --timeout 50 sh -c 'echo "$RTOPO_HOST_ID"' > "$out" 2>&1 ||
        fail "without privileges: exit status $?"
    [ "$(grep -c '^rtopo-run: --hosts: .*; emulating the hosts by RTOPO_HOST_ID only$' "$out")" -eq 1 ] ||
        fail "without privileges: no one-line reason"
    for r in 0 1 2 3; do
        grep -qx "\[$r\] host$((r / 2))" "$out" || fail "without privileges: rank $r not on host$((r / 2))"
    done
else
    echo "(setpriv missing or the build tree closed to nobody: the fallback is not checked)"
fi
echo "emulated hosts: $repeat rounds ok"
