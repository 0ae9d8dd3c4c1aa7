#!/bin/sh
# Another user pre-creates, in /dev/shm, every name the shared-memory
# transport (TRANSPORT, default shm) would have given a rank's segment in
# the next few dozen jobs as the segments were once named
# (rtopo-shm-<uid>-<job>-<rank>-<pid>, job and pid the next pids), before
# each of SQUAT_JOBS (20) 4-rank jobs.  Passes when every job starts and
# shifts its ring right, and the squatter's files are still there (a job
# removes nothing of another user's).
# Needs root, to create the second user (useradd; removed at the end) and
# to run the squatter as that user (setpriv); skipped elsewhere, with the
# reason.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-shm}
JOBS=${SQUAT_JOBS:-20}
NP=4
AHEAD=200    # next job pids squatted
RANKPIDS=8   # rank pids after each job pid

if [ "$(id -u)" != 0 ]; then
    echo "not root: cannot create a second user to squat /dev/shm: skipped"
    exit 77
fi
for c in useradd userdel setpriv; do
    if ! command -v $c >/dev/null 2>&1; then
        echo "no $c here: cannot run a second user: skipped"
        exit 77
    fi
done
if [ ! -r /proc/sys/kernel/ns_last_pid ]; then
    echo "no /proc/sys/kernel/ns_last_pid: cannot tell the next pids: skipped"
    exit 77
fi
need_transport "$tr"

user=rtsquat$$
if ! useradd --system --no-create-home --shell /usr/sbin/nologin "$user" 2>/dev/null; then
    echo "useradd $user failed: skipped"
    exit 77
fi
cleanup() {
    find /dev/shm -maxdepth 1 -user "$user" -type f -delete 2>/dev/null
    userdel "$user" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM
uid=$(id -u)

started=0 failed=0 squatted=0
for j in $(seq 1 "$JOBS"); do
    last=$(cat /proc/sys/kernel/ns_last_pid)
    # the squatter: what the job's segments were called, for the next pids
    setpriv --reuid="$user" --regid="$user" --clear-groups sh -c '
        uid=$1 last=$2 ahead=$3 npid=$4 np=$5
        job=$((last + 1))
        while [ $job -le $((last + ahead)) ]; do
            p=$((job + 1))
            while [ $p -le $((job + npid)) ]; do
                r=0
                while [ $r -lt $np ]; do
                    : >"/dev/shm/rtopo-shm-$uid-$job-$r-$p" 2>/dev/null
                    r=$((r + 1))
                done
                p=$((p + 1))
            done
            job=$((job + 1))
        done' squat "$uid" "$last" $AHEAD $RANKPIDS $NP
    out=$(timeout 60 "$RUN" -n $NP --transport "$tr" --quiet "$SHIFT" --topo ring \
        --sizes 4096,100000 --q 1 2>&1)
    rc=$?
    n=$((AHEAD * RANKPIDS * NP))
    squatted=$n
    left=$(find /dev/shm -maxdepth 1 -user "$user" -type f 2>/dev/null | wc -l)
    if [ $rc -eq 0 ] && [ "$left" -eq "$n" ]; then
        started=$((started + 1))
    else
        failed=$((failed + 1))
        echo "job $j: exit $rc, squatter's files $n before, $left after"
        printf '%s\n' "$out" | head -n 5 | sed 's/^/    /'
    fi
    find /dev/shm -maxdepth 1 -user "$user" -type f -delete 2>/dev/null
done
echo "$tr: $started of $JOBS jobs started and shifted right with another user's" \
    "$squatted files squatting their segments' former names"
[ "$squatted" -gt 0 ] || { echo "the squatter created nothing"; exit 1; }
[ $failed -eq 0 ]
