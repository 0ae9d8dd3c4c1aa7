#!/bin/sh
# make check-sanitize: rtopo built again with UndefinedBehaviorSanitizer
# (-fsanitize=undefined -fno-sanitize-recover=undefined: the first
# undefined operation ends the process with a report), in its own build
# directory, then the unit tests and one integration script per
# collective run there: shift, scatter, cart (shift_dim), route and the
# collectives of coll_check (bcast, reduce, allreduce, gather, sort, ...),
# over rtopo's own shared memory, the cheapest transport.  A division by
# zero, an overflowing signed operation, a misaligned or out-of-bounds
# access the sanitizer sees fails the target.
#
#   tests/sanitize.sh SRCDIR BUILDDIR [TESTS...]
#
# BUILDDIR is configured the first time (configure --disable-fuzz, with
# the sanitizer in CFLAGS; without -Werror: -O1 with the sanitizer's checks
# makes gcc warn about code the normal -Werror build finds clean), and
# rebuilt as needed after.  SANITIZE_TESTS (or TESTS...) replaces the list; JOBS (2) is
# make's -j, and from 2 on the unit tests run beside the scripts.
set -u
src=$(cd "$1" && pwd)
dir=$2
shift 2
tests=${*:-${SANITIZE_TESTS:-tests/unit/test_unit tests/integ/shift_ring.sh
    tests/integ/scatter.sh tests/integ/coll.sh tests/integ/cart.sh
    tests/integ/route.sh}}
# the scripts' transport: rtopo's own shared memory; coll.sh on 4 and 8
# ranks (16 ranks of a sanitized build on a small machine take minutes)
TRANSPORT=${TRANSPORT:-shm}
RANKS=${RANKS:-4 8}
export TRANSPORT RANKS
flags="-O1 -g -fno-omit-frame-pointer -fsanitize=undefined -fno-sanitize-recover=undefined"
mkdir -p "$dir"
cd "$dir"
if [ ! -f Makefile ]; then
    echo "== check-sanitize: configure in $dir"
    "$src/configure" --disable-fuzz --disable-static \
        CFLAGS="$flags" LDFLAGS="-fsanitize=undefined" >configure.out 2>&1 ||
        { tail -n 30 configure.out; exit 1; }
fi
# every report ends the process (-fno-sanitize-recover) and says where
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export UBSAN_OPTIONS
# a script that is not in this tree is left out, with a word
present=""
for t in $tests; do
    [ -e "$src/$t" ] || [ "$t" = tests/unit/test_unit ] || {
        echo "== check-sanitize: no $t here: left out"
        continue
    }
    present="$present $t"
done
echo "== check-sanitize: build"
# the library, the tools and the test programs (TESTS empty: none runs)
make -j"${JOBS:-2}" check TESTS= >build.out 2>&1 || { tail -n 30 build.out; exit 1; }
mkdir -p sanitize-logs
# run_one TEST: runs TEST, says PASS, SKIP or FAIL; 1 when it failed
run_one() {
    name=$(echo "$1" | tr / _)
    log=sanitize-logs/$name.log
    start=$(date +%s)
    case $1 in
    *.sh) top_builddir=. timeout 900 sh "$src/$1" >"$log" 2>&1 ;;
    *) timeout 900 "./$1" >"$log" 2>&1 ;;
    esac
    rc=$?
    # a report that a script did not turn into a failure still fails here
    if [ $rc -ne 0 ] && [ $rc -ne 77 ] || grep -q 'runtime error:' "$log"; then
        echo "FAIL: $1 (exit $rc, $(( $(date +%s) - start )) s); $dir/$log:"
        grep -m 5 'runtime error:' "$log" || tail -n 20 "$log"
        return 1
    elif [ $rc -eq 77 ]; then
        echo "SKIP: $1 ($(tail -n 1 "$log"))"
    else
        echo "PASS: $1 ($(( $(date +%s) - start )) s)"
    fi
    return 0
}
# run_list TESTS...: each in turn; 1 when one failed
run_list() {
    _failed=0
    for _t in "$@"; do
        run_one "$_t" || _failed=1
    done
    return $_failed
}
# The programs (the unit tests: one process, one core) run beside the
# scripts (jobs of several ranks) when make may run 2 jobs or more: a
# 2-core machine is then busy on both cores from start to end, where one
# after the other it ran the unit tests on one core alone.
progs="" scripts=""
for t in $present; do
    case $t in
    *.sh) scripts="$scripts $t" ;;
    *) progs="$progs $t" ;;
    esac
done
failed=0
if [ "${JOBS:-2}" -ge 2 ] && [ -n "$progs" ] && [ -n "$scripts" ]; then
    # shellcheck disable=SC2086
    run_list $progs >sanitize-logs/progs.out 2>&1 &
    pid=$!
    # shellcheck disable=SC2086
    run_list $scripts || failed=1
    wait $pid || failed=1
    cat sanitize-logs/progs.out
else
    # shellcheck disable=SC2086
    run_list $progs $scripts || failed=1
fi
exit $failed
