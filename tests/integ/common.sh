# Sourced by the integration scripts: paths, transport checks, a bounded
# launcher.  Exit codes follow automake: 0 pass, 1 fail, 77 skip.
top_builddir=${top_builddir:-.}
RUN="$top_builddir/tools/rtopo-run"
INFO="$top_builddir/tools/rtopo-info"
SHIFT="$top_builddir/tests/integ/shift_check"
# 2 minutes unless set: an operation reaches it only when it hangs, never
# because a busy machine is slow
export RTOPO_TIMEOUT_MS=${RTOPO_TIMEOUT_MS:-120000}

# need_transport T: skip the script when transport T is not usable here
need_transport() {
    if ! "$INFO" --check "$1"; then
        echo "transport $1 is not usable here: skipped"
        exit 77
    fi
}

# run N TRANSPORT ARGS...: one bounded job of shift_check
run() {
    n=$1; tr=$2; shift 2
    echo "+ rtopo-run -n $n --transport $tr shift_check $*"
    timeout 300 "$RUN" -n "$n" --transport "$tr" --quiet "$SHIFT" "$@"
}

# mpi_prog PROG SRC [CFLAGS...]: builds the MPI program PROG from SRC with
# MPICC (default mpicc) against librtopo, and checks that mpirun starts a
# job; skips the script when either cannot be done.  Sets $mpirun.
mpi_prog() {
    _prog=$1 _src=$2
    shift 2
    mpirun="mpirun --allow-run-as-root --oversubscribe"
    MPICC=${MPICC:-mpicc}
    command -v mpirun >/dev/null 2>&1 || { echo "no mpirun: skipped"; exit 77; }
    command -v "$MPICC" >/dev/null 2>&1 || { echo "no $MPICC: skipped"; exit 77; }
    _log=$(mktemp)
    # -no-install: a program mpirun starts directly, not a libtool wrapper
    # script that each rank would run through a shell first
    if ! "$top_builddir/libtool" --quiet --mode=link --tag=CC "$MPICC" "$@" -g -O1 \
            -no-install -I"$top_srcdir/include" -I"$top_srcdir/tests/integ" -o "$_prog" "$_src" \
            "$top_builddir/librtopo.la" >"$_log" 2>&1; then
        cat "$_log"
        rm -f "$_log"
        echo "cannot build an MPI program with $MPICC (Debian: install libopenmpi-dev): skipped"
        exit 77
    fi
    if ! timeout 60 $mpirun -n 1 /bin/true >"$_log" 2>&1; then
        cat "$_log"
        rm -f "$_log"
        echo "mpirun cannot start a job here: skipped"
        exit 77
    fi
    rm -f "$_log"
}

# verdict_case LABEL RANKS WANT LIMIT CMD...: one job, cut off after LIMIT
# seconds.  RANKS is the job's size N (ranks 0..N-1) or the list of the
# ranks that print a verdict ("1 3"): each of them must print exactly one
# line "[R] rank R: verdict: ...", and it must say pass (no other line may
# say "verdict: pass"); the exit status must be WANT (a number, or any: an
# error a job reports may make rtopo-run exit 1 or not, depending on which
# rank saw it first; 124, the status of a job cut off by timeout or by
# rtopo-run --timeout, always fails).  When $verdict_check
# names a function, it is called with the output's file after these
# checks and adds its reasons to $why (then the case fails).  The output
# is shown indented, the case's line added to $summary, a failure counted
# in $fails (verdict_end prints both).
verdict_case() {
    _label=$1 _ranks=$2 _want=$3 _limit=$4
    shift 4
    case $_ranks in
    *[!0-9]*) ;;
    *) _ranks=$(seq 0 $(( _ranks - 1 ))) ;;
    esac
    echo "== case $_label"
    _t0=$(date +%s)
    _out=$(mktemp)
    timeout "$_limit" "$@" >"$_out" 2>&1
    _rc=$?
    _secs=$(( $(date +%s) - _t0 ))
    sed 's/^/    /' "$_out"
    why=
    if [ "$_rc" -eq 124 ]; then
        why="$why; exit status 124: the job was cut off (a hang)"
    elif [ "$_want" != any ] && [ "$_rc" -ne "$_want" ]; then
        why="$why; exit status $_rc, want $_want"
    fi
    _nr=0
    for _r in $_ranks; do
        _nr=$(( _nr + 1 ))
        _nv=$(grep -c "\[$_r\] rank $_r: verdict: " "$_out")
        if [ "$_nv" -ne 1 ]; then
            why="$why; rank $_r printed $_nv verdict lines, not 1"
        elif ! grep -q "\[$_r\] rank $_r: verdict: pass" "$_out"; then
            why="$why; rank $_r: $(grep "\[$_r\] rank $_r: verdict: " "$_out" | sed 's/.*verdict: //')"
        fi
    done
    _np=$(grep -c 'verdict: pass' "$_out")
    [ "$_np" -eq "$_nr" ] || why="$why; $_np lines say 'verdict: pass', want $_nr"
    [ -z "${verdict_check:-}" ] || "$verdict_check" "$_out"
    rm -f "$_out"
    if [ -z "$why" ]; then
        _line="$_label: ok ($_secs s)"
    else
        fails=$(( ${fails:-0} + 1 ))
        _line="$_label: FAILED ($_secs s)$why"
        echo "   reproduce: RTOPO_TIMEOUT_MS=$RTOPO_TIMEOUT_MS $*"
    fi
    echo "   => $_line"
    summary="${summary:-}
  $_line"
}

# tr_usable TRANSPORT: whether it can be used here (if not, a line in $summary)
tr_usable() {
    "$INFO" --check "$1" >/dev/null 2>&1 && return 0
    summary="${summary:-}
  $1: not usable here, skipped"
    return 1
}

# verdict_end: the cases' summary; exits 0 when every case passed
verdict_end() {
    echo "== summary:${summary:-}"
    echo "${fails:-0} case(s) failed"
    [ "${fails:-0}" -eq 0 ]
    exit
}
