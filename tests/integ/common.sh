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
