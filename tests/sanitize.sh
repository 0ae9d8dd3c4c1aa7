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
# make's -j.
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
failed=0
for t in $present; do
    name=$(echo "$t" | tr / _)
    log=sanitize-logs/$name.log
    start=$(date +%s)
    case $t in
    *.sh) top_builddir=. timeout 900 sh "$src/$t" >"$log" 2>&1 ;;
    *) timeout 900 "./$t" >"$log" 2>&1 ;;
    esac
    rc=$?
    # a report that a script did not turn into a failure still fails here
    if [ $rc -ne 0 ] && [ $rc -ne 77 ] || grep -q 'runtime error:' "$log"; then
        echo "FAIL: $t (exit $rc, $(( $(date +%s) - start )) s); $dir/$log:"
        grep -m 5 'runtime error:' "$log" || tail -n 20 "$log"
        failed=1
    elif [ $rc -eq 77 ]; then
        echo "SKIP: $t ($(tail -n 1 "$log"))"
    else
        echo "PASS: $t ($(( $(date +%s) - start )) s)"
    fi
done
exit $failed
