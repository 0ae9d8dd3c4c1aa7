# boot_lib.sh - sourced by the tests/integ/boot_*.sh tests.
# They run from the top of the build tree (as make check does); set
# top_builddir to run them from elsewhere.
builddir=${top_builddir:-.}
RUN=$builddir/tools/rtopo-run
CHECK=$builddir/tests/integ/boot_check
if [ ! -x "$RUN" ] || [ ! -x "$CHECK" ]; then
    echo "$RUN or $CHECK is not built (set top_builddir)"
    exit 99
fi
# the tests start their own jobs: nothing from an enclosing one
unset RTOPO_RANK RTOPO_SIZE RTOPO_BOOT_ADDR RTOPO_JOB_SECRET RTOPO_BOOT \
      RTOPO_HOST_ID RTOPO_TRANSPORT
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out

fail() {
    echo "FAIL: $*"
    echo "---- output of the last command"
    cat "$out"
    exit 1
}

# run CMD...: output (stdout and stderr) in $out, exit status in $rc,
# every job bounded by 60 s
run() {
    echo "+ $*"
    timeout 60 "$@" > "$out" 2>&1
    rc=$?
}

expect_rc() {
    [ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1"
}

# expect_lines COUNT REGEX: COUNT lines of $out match
expect_lines() {
    got=$(grep -cE -- "$2" "$out")
    [ "$got" -eq "$1" ] || fail "$got lines match '$2', expected $1"
}

expect_grep() {
    grep -qE -- "$1" "$out" || fail "no line matches '$1'"
}
