#!/bin/sh
# Inconsistent collective calls (mismatch_check, one job per case, 4
# ranks, RTOPO_TIMEOUT_MS=600000): every rank must return from the call
# with RTOPO_ERR_MISMATCH, which it can only have found itself: the
# timeout is 10 minutes, the job is cut off at 300 s (only a hang takes
# that long; the job's time is printed, not checked).  Checked rank by rank, from the lines that
# rank printed ("[R] rank R: ..."):
#   - exactly one verdict line, and it says pass (mismatch_check: every
#     call ended in RTOPO_ERR_MISMATCH, or RTOPO_OK with correct data);
#   - at least one call returned RTOPO_ERR_MISMATCH, and no call returned
#     any other error (rtopo_mem_deregister, only noted, excepted: it may
#     be RTOPO_ERR_BUSY while a failed operation's window is still open);
#   - exactly one rtopo_finalize, which returned RTOPO_ERR_MISMATCH (the
#     context has failed job-wide by then); in the case "transport",
#     exactly one rtopo_init, which returned RTOPO_ERR_MISMATCH naming
#     the peer's transport and this rank's, one of them rxm, the other not.
#   - every MISMATCH message of the rank (rtopo_finalize's included)
#     names the differing argument with both values (e.g. "q=2 (mod 4),
#     this rank with q=1"), from this rank's point of view or quoting the
#     rank that found it ("rank S: ..."), never only the signature check
#     ("rank X sent data this rank's operation ... does not expect").
# TRANSPORT (default ofi:tcp) for every case but "transport", which mixes
# ofi:tcp and ofi:rxm itself.  CASES overrides the list of cases.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
MM="$top_builddir/tests/integ/mismatch_check"
export RTOPO_TIMEOUT_MS=600000
cases=${CASES:-"q-8 q-1m bytes-8 bytes-64k algo-8 algo-64k order skip skip-finalize skip-barrier transport"}

# names RE: the extended regexp a MISMATCH message matches when it names
# the differing argument (or call) of case $1 with both values
names_re() {
    case $1 in
    q-*)       echo 'called shift with q=(1 \(mod 4\), this rank with q=2|2 \(mod 4\), this rank with q=1) ' ;;
    bytes-8)   echo 'called shift with bytes=(8, this rank with bytes=16|16, this rank with bytes=8) ' ;;
    bytes-64k) echo 'called shift with bytes=(65536, this rank with bytes=131072|131072, this rank with bytes=65536) ' ;;
    algo-*)    echo 'called shift with algo=(ring, this rank with algo=direct|direct, this rank with algo=ring) ' ;;
    order)     echo 'on topology (ring of 4 ranks, this rank on topology mesh 2x2|mesh 2x2, this rank on topology ring of 4 ranks)' ;;
    # rank 2 made 2 shifts, the others 3; in skip-finalize it may also
    # get the 3rd shift's data (operation 2) while in rtopo_finalize
    skip*)     echo 'entered the barrier after (2 collective operations, this rank (after|has started) 3|3 collective operations, this rank (after|has started) 2):|is in rtopo_(barrier, this rank in rtopo_finalize|finalize, this rank in rtopo_barrier):|sent data for operation 2 on topology 0, which this rank completed without it' ;;
    esac
}

# check_rank R OUT: the lines of rank R in OUT (its verdict is checked by
# verdict_case); appends to $why, and R to $named when all its MISMATCH
# messages (one at least) match $re
check_rank() {
    r=$1
    grep "^\[$r\] rank $r: " "$2" >"$2.r"
    nmm=$(grep -c ' -> RTOPO_ERR_MISMATCH in ' "$2.r")
    nother=$(grep ' -> RTOPO_ERR_' "$2.r" | grep -v ': rtopo_mem_deregister -> ' |
             grep -c -v ' -> RTOPO_ERR_MISMATCH[: ]')
    [ "$nmm" -ge 1 ] || why="$why; no call of rank $r returned RTOPO_ERR_MISMATCH"
    [ "$nother" -eq 0 ] || why="$why; $nother call(s) of rank $r returned another error"
    if [ "$c" = transport ]; then
        ni=$(grep -c ': rtopo_init with RTOPO_TRANSPORT=[^ ]* -> ' "$2.r")
        nim=$(grep -c ': rtopo_init with RTOPO_TRANSPORT=[^ ]* -> RTOPO_ERR_MISMATCH in ' "$2.r")
        [ "$ni" -eq 1 ] && [ "$nim" -eq 1 ] ||
            why="$why; rank $r: $nim of $ni rtopo_init calls returned RTOPO_ERR_MISMATCH (want 1 of 1)"
        # rank 0 opened ofi:tcp, the others ofi:rxm (provider "tcp;ofi_rxm")
        if [ "$r" -eq 0 ]; then
            re="rank [1-3] opened transport ofi:[^ ,]*rxm[^ ,]*, this rank \\(0\\) ofi:[a-z0-9_]*: "
        else
            re="rank 0 opened transport ofi:[a-z0-9_]*, this rank \\($r\\) ofi:[^ ,]*rxm[^ ,]*: "
        fi
    else
        nf=$(grep -c ': rtopo_finalize -> ' "$2.r")
        nfm=$(grep -c ': rtopo_finalize -> RTOPO_ERR_MISMATCH in ' "$2.r")
        [ "$nf" -eq 1 ] && [ "$nfm" -eq 1 ] ||
            why="$why; rank $r: $nfm of $nf rtopo_finalize calls returned RTOPO_ERR_MISMATCH (want 1 of 1)"
    fi
    nmsg=$(grep -c ': mismatch message: ' "$2.r")
    nnamed=$(grep ': mismatch message: ' "$2.r" | grep -c -E -e "$re")
    if [ "$nmsg" -ge 1 ] && [ "$nnamed" -eq "$nmsg" ]; then
        named="$named $r"
    elif [ "$nmsg" -ge 1 ]; then
        why="$why; $(( nmsg - nnamed )) of $nmsg MISMATCH message(s) of rank $r do not name the differing argument with both values"
    fi
    rm -f "$2.r"
}

# check OUT: every rank's calls and messages (check_rank), the argument
# named by every rank; notes the time spent after the failed call
check() {
    named=""
    for r in 0 1 2 3; do
        check_rank "$r" "$1"
    done
    if [ "$c" = transport ]; then
        [ "$named" = " 0 1 2 3" ] ||
            why="$why; only rank(s)${named:- none} named both transports"
    else
        [ "$named" = " 0 1 2 3" ] ||
            why="$why; only rank(s)${named:- none} named the differing argument with both values in every MISMATCH message"
    fi
    # not failures, but worth seeing: time spent after the failed call
    grep -h 'rtopo_mem_deregister -> \|rtopo_finalize -> .* in [1-9][0-9.]* s' "$1" |
        sed 's/^/   note: /'
}

fails=0 ran=0 summary= verdict_check=check
for c in $cases; do
    run_tr=$tr
    case $c in
    q-* | bytes-* | algo-* | order | skip | skip-finalize | skip-barrier) ;;
    transport)
        run_tr=ofi:rxm
        if ! "$INFO" --check ofi:tcp >/dev/null 2>&1 || ! "$INFO" --check ofi:rxm >/dev/null 2>&1; then
            echo "== $c: needs ofi:tcp and ofi:rxm: not run"
            summary="$summary
  $c: not run (needs ofi:tcp and ofi:rxm)"
            continue
        fi ;;
    *)
        echo "mismatch.sh: unknown case '$c'" >&2
        exit 1 ;;
    esac
    re=$(names_re "$c")
    ran=$(( ran + 1 ))
    # the job is cut off at 300 s: only a hang takes that long
    verdict_case "$c ($run_tr)" 4 0 330 \
        "$RUN" -n 4 --transport "$run_tr" --quiet --timeout 300 --grace 2 "$MM" "$c"
done
if [ "$ran" -eq 0 ]; then
    echo "no case could run here: skipped"
    exit 77
fi
verdict_end
