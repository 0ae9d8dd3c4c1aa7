#!/bin/sh
# ofi:shm leaves no shared-memory region behind (issue 10).  libfabric's
# shm provider keeps an endpoint's queues in /dev/shm/<pid>:<uid>:<n>,
# 16 MiB, removed only when the endpoint closes; a later process with the
# same pid used to fail rtopo_init with EBUSY.
#  - 2-rank jobs in which rank 1 dies (SIGKILL, _exit(3), exit(0) without
#    rtopo_finalize) and rank 0, once told, waits until rtopo-run
#    terminates it: the job fails quickly with the right status, and
#    rtopo-run removes the regions of both ranks (a file of another user
#    named after rank 1's pid, made when run as root, is kept);
#  - ranks that find regions of their own pid left by a dead process: the
#    transport removes those it does not map, and retries once when the
#    endpoint fails with EBUSY (on a file it kept because it maps it);
#  - tl_check ofi:shm, whose ranks end with _exit: nothing left either.
# Skipped (77) when ofi:shm is not usable here.
. "$(dirname "$0")/common.sh"
need_transport ofi:shm
CHECK="$top_builddir/tests/integ/shm_stale_check"
TLC="$top_builddir/tests/tl/tl_check"
uid=$(id -u)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ms() { echo $(( $(date +%s%N) / 1000000 )); }
# files of the given pids in /dev/shm, whoever owns them
files_of() {
    for p in "$@"; do
        for f in /dev/shm/"$p":*; do
            [ -e "$f" ] && echo "$f"
        done
    done
}
# no_leftovers WHAT PIDS...
no_leftovers() {
    what=$1; shift
    if [ $# -eq 0 ]; then
        fail "$what: no pid of a rank found in the output"
        return
    fi
    left=$(files_of "$@")
    if [ -n "$left" ]; then
        fail "$what: left in /dev/shm:" $left
        ls -l $left
    else
        echo "$what: nothing of pids $* left in /dev/shm"
    fi
}

# kill: rank 0 ignores SIGTERM, so that rtopo-run kills it too
for how in kill exit3 exit0; do
    extra=
    case $how in
        kill)  want_rc=137 want='killed by signal 9 \(SIGKILL\)' extra=stubborn ;;
        exit3) want_rc=1 want='exited with status 3' ;;
        exit0) want_rc=1 want='exited with status 0 without calling rtopo_finalize' ;;
    esac
    echo "+ rtopo-run -n 2 --transport ofi:shm --grace 1 shm_stale_check die $how foreign $extra"
    t0=$(ms)
    timeout 300 "$RUN" -n 2 --transport ofi:shm --grace 1 "$CHECK" die "$how" foreign $extra \
        >"$out" 2>&1
    rc=$?
    t=$(( $(ms) - t0 ))
    sed 's/^/    /' "$out"
    [ "$rc" -eq "$want_rc" ] || fail "$how: exit status $rc, expected $want_rc"
    # rank 1 dies 200 ms after the first shift; rank 0 is terminated 1 s
    # later, killed 1 s after that
    echo "    ($how: the job took $t ms; its exit status, not its time, is checked)"
    grep -Eq "^rtopo-run: rank 1 \(pid [0-9]+\) $want\$" "$out" ||
        fail "$how: rtopo-run did not report rank 1 as $want"
    grep -q '^\[0\] shift: RTOPO_ERR_PEER' "$out" ||
        fail "$how: rank 0 was not told of rank 1's failure"
    grep -q '^rtopo-run: rank 0 still running 1 s after rank 1 failed: terminating it$' "$out" ||
        fail "$how: rtopo-run did not terminate rank 0"
    pids=$(sed -n 's/^\[[01]\] pid \([0-9][0-9]*\)$/\1/p' "$out")
    # the regions rtopo-run must have removed: rank 1's, and rank 0's when
    # SIGTERM did not end it (the provider's handler removes them then)
    removers=1
    if [ -n "$extra" ]; then
        removers="0 1"
        grep -q '^rtopo-run: killing rank 0$' "$out" ||
            fail "$how: rtopo-run did not kill rank 0"
    fi
    for r in $removers; do
        p=$(sed -n "s/^\\[$r\\] pid \\([0-9][0-9]*\\)\$/\\1/p" "$out")
        grep -Eq "^rtopo-run: removed 1 shared-memory region left by rank $r \(pid $p\): /dev/shm/$p:$uid:[0-9]+\$" "$out" ||
            fail "$how: rtopo-run did not report removing the region of rank $r"
    done
    foreign=$(sed -n 's/^\[1\] foreign \(.*\)$/\1/p' "$out")
    if [ -n "$foreign" ]; then
        if [ -e "$foreign" ]; then
            echo "$how: $foreign of another user kept"
            rm -f "$foreign"
        else
            fail "$how: rtopo-run removed $foreign, a file of another user"
        fi
    fi
    no_leftovers "$how" $pids
done

# a region of the rank's own pid that it maps: EBUSY, and one retry
echo "+ RTOPO_LOG_LEVEL=info rtopo-run -n 2 --transport ofi:shm shm_stale_check busy"
RTOPO_LOG_LEVEL=info timeout 60 "$RUN" -n 2 --transport ofi:shm "$CHECK" busy >"$out" 2>&1
rc=$?
sed 's/^/    /' "$out"
[ "$rc" -eq 0 ] || fail "busy: exit status $rc"
[ "$(grep -c '^\[[01]\] ok$' "$out")" -eq 2 ] || fail "busy: not every rank finished"
[ "$(grep -c 'endpoint set-up on shm: .*: retrying once' "$out")" -eq 2 ] ||
    fail "busy: not every rank retried its endpoint once"
no_leftovers busy $(sed -n 's/^\[[01]\] pid \([0-9][0-9]*\)$/\1/p' "$out")

# tl_check: ranks that end with _exit
echo "+ tl_check ofi:shm"
timeout 120 "$TLC" ofi:shm >"$out" 2>&1
rc=$?
grep -v '^ok ' "$out" | sed 's/^/    /'
[ "$rc" -eq 0 ] || fail "tl_check: exit status $rc"
no_leftovers tl_check $(sed -n 's/^info rank [0-9]* pid \([0-9][0-9]*\)$/\1/p' "$out")

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "shm_stale: all passed"
exit 0
