# Sourced by the Fortran tests: skip without the binding, and run-and-count
# helpers.  Exit codes follow automake: 0 pass, 1 fail, 77 skip.
. "$top_srcdir/tests/integ/common.sh"
EX="$top_builddir/examples"
[ -x "$EX/cannon_f" ] || { echo "built without the Fortran binding: skipped"; exit 77; }
# many ranks on few cores: waiting ranks sleep instead of spinning
export RTOPO_SPIN_US=0
fails=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# check WHAT WANT PATTERN STATUS: the job exited 0 and printed WANT lines
# matching PATTERN
check() {
    got=$(grep -c -- "$3" "$out")
    if [ "$4" = 0 ] && [ "$got" = "$2" ]; then
        echo "ok   $1"
    else
        cat "$out"
        echo "FAIL $1 (exit $4, $got of $2 lines '$3')"
        fails=$((fails + 1))
    fi
}
