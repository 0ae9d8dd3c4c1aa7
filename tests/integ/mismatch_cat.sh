#!/bin/sh
# The catalogue of calls that disagree across ranks (mismatch_cat_check,
# one job per case, 4 ranks, random per-rank delays before the call where
# the ranks part).  RTOPO_TIMEOUT_MS is 600000: a rank that waits for the
# timeout makes the job outlive its limit (rtopo-run --timeout 120, the
# whole job under `timeout 150`), which fails the case.  Checked rank by
# rank, from the lines that rank printed:
#   - its first failed call returned the case's error (RTOPO_ERR_MISMATCH,
#     or RTOPO_ERR_INVAL for an argument error one rank finds), never
#     RTOPO_ERR_TIMEOUT, and its message matches the case's pattern (it
#     names the ranks or the argument and what differs);
#   - every call after it failed too, rtopo_finalize included (a failed
#     context stays failed);
#   - mesh-shape (ranks 0 and 1) and ring-mesh (ranks 0 to 2), each of
#     which has a neighbour that disagrees with it or never sends: the
#     first failure is the creation's (a rank whose neighbours all agree
#     may complete the creation and fail at its next call);
#   - after-barrier, after-create: the barrier or the creation, complete
#     on every rank when rank 0 raised the failure, returned RTOPO_OK.
# Printed, not checked: the time from the last rank's arrival to each
# rank's first failed call (the promptness).
# TRANSPORT (default ofi:tcp), CASES overrides the list of cases, REPS
# runs each case that many times (default 2; 20 by hand).
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
MM="$top_builddir/tests/integ/mismatch_cat_check"
export RTOPO_TIMEOUT_MS=600000
cases=${CASES:-"skip-bcast skip-barrier extra-bcast other-coll other-root other-count mesh-shape ring-mesh extra-create shift-null shift-huge after-barrier after-create"}
reps=${REPS:-2}
out=$(mktemp)
trap 'rm -f "$out" "$out.r"' EXIT

expect() {
    case $1 in
    shift-* | after-*) echo RTOPO_ERR_INVAL ;;
    *) echo RTOPO_ERR_MISMATCH ;;
    esac
}

# the extended regexp the first failure's message matches
names_re() {
    case $1 in
    skip-bcast | extra-bcast | other-coll)
        echo 'rank [0-3].*called (allreduce|bcast), this rank (allreduce|bcast)' ;;
    skip-barrier)
        echo 'rank [0-3].*(is in allreduce \(operation [0-9]+ on topology 0\), which this rank has not started: this rank is in rtopo_barrier|entered the barrier after [0-9]+ collective operations, this rank (after|has started) [0-9]+)' ;;
    other-root)   echo 'rank [0-3].*called bcast with root=(0|1), this rank with root=(0|1)' ;;
    other-count)  echo 'rank [0-3].*called allreduce with bytes=(8|16), this rank with bytes=(8|16)' ;;
    mesh-shape)   echo 'rank [0-3] (created topology 1 )?on topology mesh (1x4|4x1), this rank on topology mesh (1x4|4x1)' ;;
    ring-mesh)    echo 'rank [0-3] (created topology 1 )?on topology (ring of 4 ranks|mesh 2x2), this rank on topology (ring of 4 ranks|mesh 2x2)' ;;
    extra-create) echo 'rank [0-3].*entered the barrier after creating [0-9]+ topologies, this rank (after creating|has created) [0-9]+' ;;
    shift-null | after-*) echo 'NULL buffer for a 8-byte shift' ;;
    shift-huge)   echo 'shift of [0-9]+ bytes is too large' ;;
    esac
}

fails=0 table=
for c in $cases; do
    code=$(expect "$c")
    re=$(names_re "$c")
    [ -n "$re" ] || { echo "mismatch_cat.sh: unknown case '$c'" >&2; exit 1; }
    ok=0 worst=0 i=0
    while [ "$i" -lt "$reps" ]; do
        i=$(( i + 1 ))
        seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
        t0=$(date +%s%N)
        MM_SEED=$seed timeout 150 "$RUN" -n 4 --transport "$tr" --quiet --timeout 120 \
            --grace 2 "$MM" "$c" >"$out" 2>&1
        rc=$?
        wall=$(( ($(date +%s%N) - t0) / 1000000 ))
        why=""
        [ "$rc" -eq 0 ] || why="$why; rtopo-run exit status $rc"
        last=$(sed -n 's/^\[[0-9]*\] rank [0-9]*: arrive at \([0-9.]*\)$/\1/p' "$out" | sort -n | tail -n 1)
        [ -n "$last" ] || why="$why; no rank arrived"
        prompt=""
        for r in 0 1 2 3; do
            grep "^\[$r\] rank $r: " "$out" >"$out.r"
            verdict=$(awk -v code="$code" -v re="$re" -v c="$c" -v r="$r" -v last="${last:-0}" '
                / -> RTOPO_/ {
                    st = $0; sub(/.* -> /, "", st); sub(/ .*/, "", st)
                    t = $0; sub(/.* at /, "", t); sub(/:.*/, "", t)
                    call = $0; sub(/^\[[0-9]+\] rank [0-9]+: /, "", call); sub(/ ->.*/, "", call)
                    msg = $0; sub(/^[^"]*"/, "", msg); sub(/"$/, "", msg)
                    n++
                    if (st == "RTOPO_ERR_TIMEOUT") bad = bad "; " call " returned RTOPO_ERR_TIMEOUT"
                    if (!failed && st != "RTOPO_OK") {
                        failed = 1
                        first = call
                        ms = (t - last) * 1000
                        if (st != code) bad = bad "; first failure " call " -> " st ", not " code
                        if (msg !~ re) bad = bad "; message of " call " does not match: " msg
                        # the creation itself fails where a neighbour disagrees
                        if (((c == "mesh-shape" && r <= 1) || (c == "ring-mesh" && r <= 2)) &&
                            call !~ /^rtopo_topo_/)
                            bad = bad "; first failure in " call ", not in the creation"
                    } else if (failed && st == "RTOPO_OK") {
                        bad = bad "; " call " returned RTOPO_OK after the failure"
                    }
                    if ((c == "after-barrier" && call == "rtopo_barrier" && !nb++) ||
                        (c == "after-create" && call == "rtopo_topo_mesh"))
                        if (st != "RTOPO_OK") bad = bad "; " call " (complete on every rank) -> " st
                    if (call == "rtopo_finalize") fin = st
                }
                END {
                    if (!failed) bad = bad "; no call failed"
                    if (fin != code) bad = bad "; rtopo_finalize -> " (fin ? fin : "missing")
                    printf "%s|%d|%s\n", (bad ? bad : "ok"), (failed ? ms : -1), first
                }' "$out.r")
            v=${verdict%%|*}
            rest=${verdict#*|}
            ms=${rest%%|*}
            [ "$v" = ok ] || why="$why; rank $r$v"
            prompt="$prompt $r:${ms}ms(${rest#*|})"
            [ "$ms" -gt "$worst" ] && worst=$ms
        done
        if [ -n "$why" ]; then
            fails=$(( fails + 1 ))
            echo "== $c run $i ($tr, seed $seed): FAILED ($wall ms)$why"
            sed 's/^/    /' "$out"
        else
            ok=$(( ok + 1 ))
            echo "== $c run $i ($tr): ok ($wall ms; after the last arrival:$prompt)"
        fi
    done
    table="$table
  $c: $ok of $reps ok, slowest rank $worst ms after the last arrival"
done
echo "== summary ($tr, RTOPO_TIMEOUT_MS $RTOPO_TIMEOUT_MS):$table"
echo "$fails run(s) failed"
[ "$fails" -eq 0 ]
