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
# make's -j and the number of tests run at once (the unit tests' suites
# each on its own, beside the scripts).
set -u
src=$(cd "$1" && pwd)
dir=$2
shift 2
tests=${*:-${SANITIZE_TESTS:-tests/unit/test_unit tests/integ/shift_ring.sh
    tests/integ/coll.sh tests/integ/route.sh tests/integ/scatter.sh
    tests/integ/cart.sh}}
# the scripts' transport: rtopo's own shared memory; coll.sh on 4 and 8
# ranks (16 ranks of a sanitized build on a small machine take minutes)
TRANSPORT=${TRANSPORT:-shm}
RANKS=${RANKS:-4 8}
export TRANSPORT RANKS
flags="-O1 -g -fno-omit-frame-pointer -fsanitize=undefined -fno-sanitize-recover=undefined"
mkdir -p "$dir"
cd "$dir" || exit 1
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
# run_one TEST: runs TEST (a script, a program, or PROGRAM:SUITE, one
# suite of the unit tests), says PASS, SKIP or FAIL; 1 when it failed
run_one() {
    log=sanitize-logs/$(echo "$1" | tr /: __).log
    start=$(date +%s)
    case $1 in
    *.sh) top_builddir=. timeout 900 sh "$src/$1" >"$log" 2>&1 ;;
    *:*) timeout 900 "./${1%%:*}" "${1#*:}" >"$log" 2>&1 ;;
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
# The items, longest first: the unit tests (tests/unit/test_unit) one
# suite each, every suite that the sources register, the long ones
# (SANITIZE_LONG) first, then the scripts (jobs of several ranks), then
# the other suites.  JOBS lanes (2) take the next item as each frees
# itself: a 2-core machine is busy on both cores to the end, where the
# unit tests as one process (about 280 s there) outlasted the scripts by
# a minute and a half with one core idle.
unit=tests/unit/test_unit
suites=$(sed -n 's/.*CU_add_suite("\([^"]*\)".*/\1/p' "$src"/tests/unit/*.c | tr '\n' ' ')
long=${SANITIZE_LONG:-share4096 sim share coll formulas}
first="" scripts="" last=""
for t in $present; do
    case $t in
    "$unit")
        for s in $long; do
            case " $suites " in
            *" $s "*) first="$first $unit:$s" ;;
            esac
        done
        for s in $suites; do
            case " $long " in
            *" $s "*) ;;
            *) last="$last $unit:$s" ;;
            esac
        done
        [ -n "$suites" ] || last="$last $unit"
        ;;
    *.sh) scripts="$scripts $t" ;;
    *) first="$first $t" ;;
    esac
done
items="$first $scripts $last"
queue=sanitize-logs/queue
# shellcheck disable=SC2086
printf '%s\n' $items >"$queue"
# next_item: the queue's first line, taken off it (one lane at a time)
next_item() {
    flock 9
    head -n 1 "$queue"
    sed -i 1d "$queue"
} 9>"$queue.lock"
lane() {
    while item=$(next_item) && [ -n "$item" ]; do
        run_one "$item" >"sanitize-logs/$(echo "$item" | tr /: __).out" 2>&1
    done
}
lanes=${JOBS:-2}
[ "$lanes" -ge 1 ] || lanes=1
pids=""
while [ "$lanes" -gt 0 ]; do
    lane &
    pids="$pids $!"
    lanes=$(( lanes - 1 ))
done
# shellcheck disable=SC2086
wait $pids
failed=0
for t in $items; do
    out=sanitize-logs/$(echo "$t" | tr /: __).out
    if [ ! -f "$out" ]; then
        echo "FAIL: $t did not run"
        failed=1
        continue
    fi
    cat "$out"
    grep -q '^FAIL: ' "$out" && failed=1
done
exit $failed
