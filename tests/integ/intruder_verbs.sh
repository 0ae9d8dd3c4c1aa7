#!/bin/sh
# A process outside the job, without the job secret or the ranks' tokens,
# asks the ranks of a 4-rank verbs job for rdma_cm connections
# (intruder_verbs.c: no private data, the old unauthenticated format, a
# wrong MAC, a MAC over empty keys, the accept's format, impossible ranks)
# while the job shifts a ring 300 times (intruder_rank.c).
# Passes when:
#  - the job exits 0: every byte every rank received is right, every call
#    returned RTOPO_OK;
#  - the intruder sent every kind of request to every rank (MIN_ATTEMPTS,
#    default 24: the emulated guest manages about 25 a second), every one
#    was rejected, for the reason its kind calls for, none accepted (other
#    outcomes: timeouts, resolution errors);
#  - every rank logged a rejection, and at most one line per source;
#  - no rank's resident memory grew by 1 MB or more during the attack.
# Knobs: INTRUDER_SECONDS (3), INTRUDER_ITERS (300), INTRUDER_NAP_MS (10).
# 77 (skip) when verbs is not usable here or the intruder is not built.
. "$(dirname "$0")/common.sh"
RANKPROG="$top_builddir/tests/integ/intruder_rank"
INTRUDER="$top_builddir/tests/integ/intruder_verbs"
NP=4
ITERS=${INTRUDER_ITERS:-300}
NAP_MS=${INTRUDER_NAP_MS:-10}
SECS=${INTRUDER_SECONDS:-3}
MIN_ATTEMPTS=${INTRUDER_MIN_ATTEMPTS:-$((NP * 6))}
MAX_RSS_KB=1024

if [ ! -x "$INTRUDER" ]; then
    echo "the verbs transport is not built (no $INTRUDER): skipped"
    exit 77
fi
need_transport verbs
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtopo-intruder-verbs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

field() {
    printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

addrs="$tmp/addrs"
echo "== verbs: $NP ranks x $ITERS shifts, intruder for ${SECS} s"
INTRUDER_ADDRS="$addrs" timeout 120 "$RUN" -n $NP --transport verbs --timeout 100 \
    --quiet "$RANKPROG" --iters "$ITERS" --nap-ms "$NAP_MS" --wait-ms 60000 \
    >"$tmp/job" 2>&1 &
jpid=$!
env -u RTOPO_JOB_SECRET -u RTOPO_RANK -u RTOPO_SIZE -u RTOPO_BOOT_ADDR \
    timeout 100 "$INTRUDER" --seconds "$SECS" --wait-ms 60000 "$addrs" \
    >"$tmp/intruder" 2>&1 &
ipid=$!
wait $jpid
jrc=$?
[ -e "$addrs" ] || kill $ipid 2>/dev/null
wait $ipid
irc=$?
grep -v 'RESULT' "$tmp/job" | sed 's/^/    job: /' | head -n 40
sed 's/^/    /' "$tmp/intruder" | head -n 40

why=""
[ $jrc -eq 0 ] || why="$why job-exit-$jrc"
[ $irc -eq 0 ] || why="$why intruder-exit-$irc"
iline=$(grep '^INTRUDER_VERBS ' "$tmp/intruder" | tail -n 1)
att=$(field attempts "$iline"); att=${att:-0}
rej=$(field rejected "$iline"); rej=${rej:-0}
acc=$(field accepted "$iline"); acc=${acc:-1}
oth=$(field other "$iline"); oth=${oth:-0}
wr=$(field wrong_reason "$iline"); wr=${wr:-1}
[ "$att" -ge "$MIN_ATTEMPTS" ] || why="$why only-$att-attempts"
[ "$wr" -eq 0 ] || why="$why $wr-rejected-for-another-reason"
[ "$acc" -eq 0 ] || why="$why $acc-accepted"
[ "$rej" -eq "$att" ] || why="$why $((att - rej))-not-rejected"

growmax=0
for r in $(seq 0 $((NP - 1))); do
    line=$(grep "RESULT rank=$r " "$tmp/job" | tail -n 1)
    if [ -z "$line" ]; then
        why="$why no-report-rank-$r"
        continue
    fi
    echo "    $(printf '%s\n' "$line" | sed 's/^.*RESULT/RESULT/')"
    bad=$(field bad "$line"); bad=${bad:-1}
    fl=$(field fail "$line"); fl=${fl:-1}
    r0=$(field rss0_kb "$line"); r0=${r0:--1}
    r1=$(field rss1_kb "$line"); r1=${r1:--1}
    [ "$bad" -eq 0 ] || why="$why rank-$r-corrupted-$bad"
    [ "$fl" -eq 0 ] || why="$why rank-$r-failed-$fl"
    if [ "$r0" -lt 0 ] || [ "$r1" -lt 0 ]; then
        why="$why rank-$r-no-rss"
    else
        g=$((r1 - r0))
        [ $g -gt $growmax ] && growmax=$g
        [ $g -lt $MAX_RSS_KB ] || why="$why rank-$r-rss-grew-${g}kB"
    fi
    # rtopo-run prefixes a rank's lines with its rank: [r] or similar
    n=$(grep -c "rtopo\[$r .*connection request from .* rejected" "$tmp/job")
    [ "$n" -ge 1 ] || why="$why rank-$r-logged-no-rejection"
    [ "$n" -le 1 ] || why="$why rank-$r-logged-$n-rejections"
done

echo "    requests $att, rejected $rej (wrong reason $wr), accepted $acc, other $oth;" \
    "largest RSS growth of a rank ${growmax} kB (limit < $MAX_RSS_KB)"
if [ -z "$why" ]; then
    echo "    -> PASS"
    exit 0
fi
echo "    -> FAIL:$why"
exit 1
