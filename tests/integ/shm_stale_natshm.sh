#!/bin/sh
# The native shm transport leaves no segment behind.  Each rank owns
# /dev/shm/rtopo-shm-<uid>-<job>-<rank>-<pid>, removed when the transport
# closes.
#  - 2-rank jobs in which rank 1 dies (SIGKILL, _exit(3), exit(0) without
#    rtopo_finalize) and rank 0, once told, waits until rtopo-run ends it
#    (SIGTERM; SIGKILL when it ignores SIGTERM): the job fails quickly with
#    the right status, rank 0 hears RTOPO_ERR_PEER, and rtopo-run removes
#    the segments of both ranks;
#  - segments a dead process left (its lock free, its pid gone) are
#    removed by the next rank (of any job of the user) that opens the
#    transport; one whose owner lives, and (as root) one of another user,
#    are kept;
#  - tl_check shm, whose dying ranks end with _exit: nothing left.
# Skipped (77) when shm is not usable here.
. "$(dirname "$0")/common.sh"
need_transport shm
CHECK="$top_builddir/tests/integ/shm_stale_check"
TLC="$top_builddir/tests/tl/tl_check"
uid=$(id -u)
out=$(mktemp)
keep=
trap 'rm -f "$out" $keep; [ -n "$live" ] && kill "$live" 2>/dev/null' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ms() { echo $(( $(date +%s%N) / 1000000 )); }
files_of() {
    for p in "$@"; do
        for f in /dev/shm/rtopo-shm-*-"$p"; do
            [ -e "$f" ] && echo "$f"
        done
    done
}
no_leftovers() {
    what=$1; shift
    if [ $# -eq 0 ]; then
        fail "$what: no pid of a rank found in the output"
        return
    fi
    left=$(files_of "$@")
    if [ -n "$left" ]; then
        fail "$what: left in /dev/shm:" $left
    else
        echo "$what: nothing of pids $* left in /dev/shm"
    fi
}

for how in kill exit3 exit0; do
    extra=
    case $how in
        kill)  want_rc=137 want='killed by signal 9 \(SIGKILL\)' extra=stubborn ;;
        exit3) want_rc=1 want='exited with status 3' ;;
        exit0) want_rc=1 want='exited with status 0 without calling rtopo_finalize' ;;
    esac
    echo "+ rtopo-run -n 2 --transport shm --grace 1 shm_stale_check die $how $extra"
    t0=$(ms)
    timeout 300 "$RUN" -n 2 --transport shm --grace 1 "$CHECK" die "$how" $extra >"$out" 2>&1
    rc=$?
    t=$(( $(ms) - t0 ))
    sed 's/^/    /' "$out"
    [ "$rc" -eq "$want_rc" ] || fail "$how: exit status $rc, expected $want_rc"
    echo "    ($how: the job took $t ms; its exit status, not its time, is checked)"
    grep -Eq "^rtopo-run: rank 1 \(pid [0-9]+\) $want\$" "$out" ||
        fail "$how: rtopo-run did not report rank 1 as $want"
    grep -q '^\[0\] shift: RTOPO_ERR_PEER' "$out" ||
        fail "$how: rank 0 was not told of rank 1's failure"
    for r in 0 1; do
        p=$(sed -n "s/^\\[$r\\] pid \\([0-9][0-9]*\\)\$/\\1/p" "$out")
        grep -Eq "^rtopo-run: removed 1 shared-memory region left by rank $r \(pid $p\): /dev/shm/rtopo-shm-$uid-[0-9]+-$r-[0-9]+-$p\$" "$out" ||
            fail "$how: rtopo-run did not report removing the segment of rank $r"
    done
    no_leftovers "$how" $(sed -n 's/^\[[01]\] pid \([0-9][0-9]*\)$/\1/p' "$out")
done

# segments of a process that has ended, of a live one, of another user
sh -c 'exit 0' & dead=$!
wait $dead
sleep 30 & live=$!
stale=/dev/shm/rtopo-shm-$uid-1-0-$dead
alive=/dev/shm/rtopo-shm-$uid-1-1-$live
: >"$stale"; : >"$alive"; chmod 600 "$stale" "$alive"
keep="$alive"
foreign=
if [ "$uid" -eq 0 ] && id nobody >/dev/null 2>&1; then
    foreign=/dev/shm/rtopo-shm-$(id -u nobody)-1-2-$dead
    : >"$foreign"; chown nobody "$foreign"
    keep="$keep $foreign"
fi
echo "+ RTOPO_LOG_LEVEL=info rtopo-run -n 2 --transport shm shift_check (a ring shift)"
RTOPO_LOG_LEVEL=info timeout 60 "$RUN" -n 2 --transport shm "$SHIFT" --topo ring \
    --sizes 8 --q 1 --modes blocking --mem reg >"$out" 2>&1
rc=$?
sed 's/^/    /' "$out"
[ "$rc" -eq 0 ] || fail "sweep: exit status $rc"
[ -e "$stale" ] && fail "sweep: $stale of an ended process kept"
# another job of this user on shm (make -j) may have swept it first
grep -q "removed $stale, left by a process that has ended" "$out" ||
    echo "sweep: $stale removed, by another job's rank"
[ -e "$alive" ] || fail "sweep: $alive of a live process removed"
[ -z "$foreign" ] || [ -e "$foreign" ] || fail "sweep: $foreign of another user removed"
kill "$live" 2>/dev/null
live=

echo "+ tl_check shm"
timeout 120 "$TLC" shm >"$out" 2>&1
rc=$?
grep -v '^PASS ' "$out" | sed 's/^/    /'
[ "$rc" -eq 0 ] || fail "tl_check: exit status $rc"
no_leftovers tl_check $(sed -n 's/^info rank [0-9]* pid \([0-9][0-9]*\)$/\1/p' "$out")

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "shm_stale_natshm: all passed"
exit 0
