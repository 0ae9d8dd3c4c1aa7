#!/bin/sh
# Inconsistent collective calls (mismatch_check, one job per case, 4
# ranks, RTOPO_TIMEOUT_MS=60000): every rank must return from the call
# and exit promptly (the job's wall time must stay under MAX_MS, default
# 5000 ms, for a 2 s target), with RTOPO_ERR_MISMATCH, RTOPO_OK and
# correct data, or a TIMEOUT naming a rank; at least one MISMATCH message
# must name the differing argument.  See mismatch_check.c for the cases.
# TRANSPORT (default ofi:tcp) for every case but "transport", which mixes
# ofi:tcp and ofi:rxm itself.  CASES overrides the list of cases.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
MM="$top_builddir/tests/integ/mismatch_check"
max_ms=${MAX_MS:-5000}
export RTOPO_TIMEOUT_MS=60000
cases=${CASES:-"q-8 q-1m bytes-8 bytes-64k algo-8 algo-64k order skip skip-finalize skip-barrier transport"}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

ms() { echo $(( $(date +%s%N) / 1000000 )); }

fails=0 worst=0 worst_case= summary=
for c in $cases; do
    run_tr=$tr
    case $c in
    q-*)      words="q=1 q=2" ;;
    bytes-*)  words="bytes" ;;
    algo-*)   words="algo" ;;
    order)    words="topology" ;;
    transport)
        words=""
        run_tr=ofi:rxm
        if ! "$INFO" --check ofi:tcp >/dev/null 2>&1 || ! "$INFO" --check ofi:rxm >/dev/null 2>&1; then
            echo "== $c: needs ofi:tcp and ofi:rxm: not run"
            continue
        fi ;;
    *)        words="" ;;
    esac
    echo "== case $c ($run_tr)"
    t0=$(ms)
    # the job is cut off at 7 s: it has failed by then anyway
    timeout 20 "$RUN" -n 4 --transport "$run_tr" --quiet --timeout 7 --grace 2 \
        "$MM" "$c" >"$out" 2>&1
    rc=$?
    wall=$(( $(ms) - t0 ))
    sed 's/^/    /' "$out"
    why=""
    [ "$rc" -eq 0 ] || why="$why; rtopo-run exit status $rc"
    npass=$(grep -c 'verdict: pass' "$out")
    nfail=$(grep -c 'verdict: FAIL' "$out")
    [ "$npass" -eq 4 ] || why="$why; $npass of 4 ranks passed ($nfail failed, $(( 4 - npass - nfail )) gave no verdict)"
    [ "$wall" -le "$max_ms" ] || why="$why; the job took $wall ms (limit $max_ms)"
    if [ -n "$words" ]; then
        found=0
        grep 'mismatch message:' "$out" >"$out.msg"
        for w in $words; do
            grep -i -F -e "$w" "$out.msg" >"$out.m2"
            mv "$out.m2" "$out.msg"
        done
        [ -s "$out.msg" ] && found=1
        rm -f "$out.msg"
        [ "$found" -eq 1 ] || why="$why; no MISMATCH message names the argument (looked for: $words)"
    fi
    # not failures, but worth seeing: time spent after the failed call
    grep -h 'rtopo_mem_deregister -> \|rtopo_finalize -> .* in [1-9][0-9.]* s' "$out" |
        sed 's/^/   note: /'
    if [ "$wall" -gt "$worst" ]; then worst=$wall; worst_case=$c; fi
    if [ -n "$why" ]; then
        fails=$(( fails + 1 ))
        line="$c: FAILED ($wall ms)${why}"
    else
        line="$c: ok ($wall ms)"
    fi
    echo "   => $line"
    summary="$summary
  $line"
done
echo "== summary ($tr):$summary"
echo "longest job: $worst ms ($worst_case), limit $max_ms ms"
echo "$fails case(s) failed"
[ "$fails" -eq 0 ]
