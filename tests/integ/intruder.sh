#!/bin/sh
# A process outside the job, without the job secret, sends forged
# engine control messages (EAGER with its own bytes, ABORT with status 0 and
# RTOPO_ERR_PEER, RTR windows, a flood of far-future EAGER), RDMA
# writes under guessed keys, and window immediates as the CQ data of 0-byte
# messages (fi_senddata) and of 0-byte writes under guessed keys, to the
# ranks of a 4-rank job that shifts a ring 300 times, on ofi:tcp and
# ofi:rxm (TRANSPORT, or INTRUDER_TRANSPORTS, names others).
# Passes when, on every transport that is usable here:
#  - the job exits 0: every byte every rank received is right, every call
#    returned RTOPO_OK;
#  - the intruder handed more than 1000 messages to the provider, more
#    than 100 of them writes (20 on ofi:rxm, see below) and, unless INTRUDER_KINDS leaves them out,
#    more than 100 0-byte messages with an immediate;
#  - every rank counted forged messages (they arrived and were dropped);
#  - no rank's resident memory (VmRSS) grew by 1 MB or more (on ofi:rxm:
#    one chunk of rxm's buffer pool and 2 MB, see below) from the end of
#    the warm-up to the end of the attack.
# The table also shows the growth of malloc'd bytes in use (heap+), to tell
# new allocations from pages of existing ones being touched.  Knobs:
# INTRUDER_SECONDS (3), INTRUDER_ITERS (300), INTRUDER_NAP_MS (10).
# A transport that `rtopo-info --check` finds unusable is skipped; 77 when
# none could run (or the libfabric transport is not built).
. "$(dirname "$0")/common.sh"
RANKPROG="$top_builddir/tests/integ/intruder_rank"
INTRUDER=${INTRUDER:-"$top_builddir/tests/integ/intruder"}
NP=4
ITERS=${INTRUDER_ITERS:-300}
NAP_MS=${INTRUDER_NAP_MS:-10}
SECS=${INTRUDER_SECONDS:-3}
MIN_SENT=1000
MIN_WRITES=100
MAX_RSS_KB=1024

if [ ! -x "$INTRUDER" ]; then
    echo "the libfabric transport is not built (no $INTRUDER): skipped"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtopo-intruder.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# field NAME LINE: the value of NAME=value in LINE
field() {
    printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

rows=""
ran=0
failed=0
# ofi:tcp is the libfabric transport rtopo takes by default (ofi, auto).
# rxm keeps a message that finds no posted receive in a buffer of its pool
# (FI_OFI_RXM_BUFFER_SIZE, 16 KiB unless set, and a header), and grows
# the pool by a chunk of 1024 buffers at a time when the attack's backlog
# outgrows it: that happens when a rank stops polling for a while (a
# loaded machine), inside libfabric (1.17) whatever rtopo posts.  One more
# chunk (16.7 MB at the defaults: 16,740 kB of heap seen, 356 bytes of
# header per buffer; the attack's other growth is under 1 MB) and 2 MB
# pass there; a second chunk, or growth with the forged traffic, fails.
# rtopo(7) SECURITY says so.
# INTRUDER_TRANSPORTS (or TRANSPORT) selects the transports (INTRUDER_KINDS
# the kinds of forgery, as intruder --kinds).
for tr in ${INTRUDER_TRANSPORTS:-${TRANSPORT:-ofi:tcp ofi:rxm}}; do
    # rxm closes a connection whose write names an unknown key, and the
    # intruder gives each write that finds it closed 50 ms: fewer writes
    # get through there (40 to 80 in 3 s on a loaded machine)
    case $tr in
    ofi:rxm)
        rxm_buf=${FI_OFI_RXM_BUFFER_SIZE:-16384}
        max_rss_kb=$(( (1024 * (rxm_buf + 512)) / 1024 + 2048 )) min_writes=20 ;;
    *) max_rss_kb=$MAX_RSS_KB min_writes=$MIN_WRITES ;;
    esac
    if ! "$INFO" --check "$tr" >/dev/null 2>&1; then
        echo "== $tr: not usable here (rtopo-info --check): skipped"
        rows="$rows$tr skipped - - - - - - - -
"
        continue
    fi
    ran=1
    name=${tr#ofi:}
    addrs="$tmp/$name.addrs"
    echo "== $tr: $NP ranks x $ITERS shifts, intruder for ${SECS} s"
    INTRUDER_ADDRS="$addrs" timeout 60 "$RUN" -n $NP --transport "$tr" --timeout 50 \
        --quiet "$RANKPROG" --iters "$ITERS" --nap-ms "$NAP_MS" \
        >"$tmp/$name.job" 2>&1 &
    jpid=$!
    # the intruder is no part of the job: started here, not by rtopo-run,
    # and without anything the job's environment holds
    env -u RTOPO_JOB_SECRET -u RTOPO_RANK -u RTOPO_SIZE -u RTOPO_BOOT_ADDR \
        timeout 45 "$INTRUDER" --seconds "$SECS" --wait-ms 30000 ${INTRUDER_KINDS:+--kinds "$INTRUDER_KINDS"} "$addrs" \
        >"$tmp/$name.intruder" 2>&1 &
    ipid=$!
    wait $jpid
    jrc=$?
    # a job that never published its addresses: the intruder waits in vain
    [ -e "$addrs" ] || kill $ipid 2>/dev/null
    wait $ipid
    irc=$?
    sed 's/^/    job: /' "$tmp/$name.job" | grep -v 'RESULT' | head -n 40
    sed 's/^/    /' "$tmp/$name.intruder"

    why=""
    [ $jrc -eq 0 ] || why="$why job-exit-$jrc"
    [ $irc -eq 0 ] || why="$why intruder-exit-$irc"
    iline=$(grep '^INTRUDER ' "$tmp/$name.intruder" | tail -n 1)
    sent=$(field sent "$iline")
    sent=${sent:-0}
    [ "$sent" -gt $MIN_SENT ] || why="$why intruder-sent-only-$sent"
    writes=$(field write "$iline")
    ik=$(field immkey "$iline")
    writes=$((${writes:-0} + ${ik:-0}))
    [ "$writes" -gt $min_writes ] || why="$why intruder-wrote-only-$writes"
    # the immediates, when asked for (all kinds by default)
    case ${INTRUDER_KINDS:-senddata} in *senddata*)
        sd=$(field senddata "$iline")
        [ "${sd:-0}" -gt $MIN_WRITES ] || why="$why intruder-senddata-only-${sd:-0}" ;;
    esac

    nres=0 okall=0 badall=0 failall=0 forged="" growmax=0 heapmax=0
    for r in $(seq 0 $((NP - 1))); do
        line=$(grep "RESULT rank=$r " "$tmp/$name.job" | tail -n 1)
        if [ -z "$line" ]; then
            why="$why no-report-rank-$r"
            forged="$forged,?"
            continue
        fi
        echo "    $(printf '%s\n' "$line" | sed 's/^.*RESULT/RESULT/')"
        nres=$((nres + 1))
        ok=$(field ok "$line")
        ok=${ok:-0}
        bad=$(field bad "$line")
        bad=${bad:-1}
        fl=$(field fail "$line")
        fl=${fl:-1}
        fg=$(field forged "$line")
        fg=${fg:-0}
        r0=$(field rss0_kb "$line")
        r0=${r0:--1}
        r1=$(field rss1_kb "$line")
        r1=${r1:--1}
        h0=$(field heap0_kb "$line")
        h1=$(field heap1_kb "$line")
        h0=${h0:-0}
        h1=${h1:-0}
        [ $((h1 - h0)) -gt $heapmax ] && heapmax=$((h1 - h0))
        okall=$((okall + ok))
        badall=$((badall + bad))
        failall=$((failall + fl))
        forged="$forged,$fg"
        [ "$bad" -eq 0 ] || why="$why rank-$r-corrupted-$bad"
        [ "$fl" -eq 0 ] || why="$why rank-$r-failed-$fl"
        [ "$fg" -gt 0 ] || why="$why rank-$r-forged-0"
        if [ "$r0" -lt 0 ] || [ "$r1" -lt 0 ]; then
            why="$why rank-$r-no-rss"
        else
            g=$((r1 - r0))
            [ $g -gt $growmax ] && growmax=$g
            [ $g -lt $max_rss_kb ] || why="$why rank-$r-rss-grew-${g}kB"
        fi
    done
    forged=${forged#,}
    if [ -z "$why" ]; then
        verdict=PASS
    else
        verdict="FAIL:$why"
        failed=1
    fi
    echo "    -> $verdict"
    rows="$rows$tr $jrc $okall $badall $failall $forged $growmax $heapmax $sent $verdict
"
done

echo
echo "summary (shifts: all ranks; RSS+/heap+: the largest growth of one rank during"
echo "the attack, in kB; heap+: malloc'd bytes in use, to tell new allocations from"
echo "pages of existing ones; limit on RSS+: < $MAX_RSS_KB kB, on ofi:rxm one rxm pool chunk
and 2048 kB)"
printf '%-8s %-7s %-9s %-7s %-6s %-28s %-7s %-7s %-9s %s\n' transport "job rc" \
    "shifts ok" corrupt failed "forged dropped (per rank)" "RSS+" "heap+" "intr sent" \
    verdict
printf '%s' "$rows" | while read -r t j o b f fg g h s v; do
    [ -n "$t" ] || continue
    printf '%-8s %-7s %-9s %-7s %-6s %-28s %-7s %-7s %-9s %s\n' "$t" "$j" "$o" "$b" "$f" \
        "$fg" "$g" "$h" "$s" "$v"
done
[ $ran -eq 1 ] || exit 77
exit $failed
