#!/bin/sh
# Faults across the emulated hosts of rtopo-run --hosts (namespaces).
# Ranks run hosts_check fault (64 KiB ring shifts until one fails) over
# ofi:tcp; once every rank is ready, one host is lost:
#   kill      every rank of the host is killed (SIGKILL), on 2 and 4 hosts;
#   linkdown  the host's link is set down from inside the job's network
#             namespace (nsenter into rtopo-run's, ip link set rth<h> down);
# every rank of the other hosts must get RTOPO_ERR_PEER (their
# RTOPO_TIMEOUT_MS, 30 s, is far longer), and the job must end.  Then
#   sigkill   rtopo-run itself is killed with SIGKILL mid-job.
# After each job, the leftover check: no namespace, interface or shared
# memory of the job remains.  REPEAT rounds (default 2).
. "$(dirname "$0")/hosts_lib.sh"
repeat=${REPEAT:-2}
n=8

# start H: the job in the background ($job), once every rank is ready
start() {
    rm -f "$info"
    : > "$out"
    timeout 120 "$RUN" -n $n --hosts "$1" --transport ofi:tcp --grace 30 \
        --timeout 100 --hosts-info "$info" "$CHECK" fault > "$out" 2>&1 &
    job=$!
    wait_lines '^\[[0-9]*\] ready$' $n 60 || fail "the ranks did not get ready"
    [ -s "$info" ] || fail "rtopo-run wrote no --hosts-info"
    ns_record
}

round=0
while [ "$round" -lt "$repeat" ]; do
    round=$((round + 1))
    for cfg in "kill 2 1" "kill 4 2" "linkdown 2 0"; do
        set -- $cfg
        how=$1 h=$2 lost=$3
        echo "+ round $round: $how host $lost of $h, $n ranks"
        start "$h"
        case $how in
        kill)
            kill -KILL $(awk -v h="$lost" '$1 == "rank" && $3 == h { print $4 }' "$info") ;;
        linkdown)
            nsenter --target "$(awk '$1 == "switch" { print $2 }' "$info")" --net \
                ip link set "rth$lost" down || fail "ip link set rth$lost down" ;;
        esac
        wait $job
        rc=$?
        [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "$how: exit status $rc"
        r=0 survivors=0
        while [ $r -lt $n ]; do
            if [ "$(host_of $n "$h" $r)" != "$lost" ]; then
                grep -Eq "^\[$r\] shift: RTOPO_ERR_PEER after [0-9]+ shifts$" "$out" ||
                    fail "$how: rank $r did not get RTOPO_ERR_PEER"
                survivors=$((survivors + 1))
            fi
            r=$((r + 1))
        done
        if [ "$how" = linkdown ]; then
            grep -q "^rtopo-run: the link of host rtopo-host$lost went down: killing its ranks" "$out" ||
                fail "linkdown: rtopo-run did not notice"
        fi
        leftover
        echo "$how: RTOPO_ERR_PEER on all $survivors survivors"
    done

    echo "+ round $round: rtopo-run killed with SIGKILL"
    start 2
    kill -KILL $(awk '$1 == "switch" { print $2 }' "$info")
    wait $job 2>/dev/null
    # the ranks and hosts die with rtopo-run; give the kernel a moment
    i=0
    while ! (leftover) > /dev/null 2>&1 && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    leftover
    echo "round $round: ok"
done
echo "faults across hosts: $repeat rounds ok"
