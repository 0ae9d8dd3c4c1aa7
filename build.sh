#!/bin/sh
# build.sh - set up a Debian 12 machine, build rtopo, then run the demo or
# the test suite.
#
#   ./build.sh demo    packages, build, then 4 ranks shifting over libfabric tcp
#   ./build.sh check   packages, build, make check and make distcheck
#   ./build.sh build   packages and build only
#
# Packages are installed with apt-get when the script runs as root and
# something is missing; otherwise it only reports what is missing.
# configure runs again when the packages installed of those below differ
# from the ones its last run saw (check adds clang, which turns the fuzz
# harnesses on), recorded in BUILDDIR/build-packages.
set -eu
cd "$(dirname "$0")"
what=${1:-build}
jobs=${JOBS:-2}
builddir=${BUILDDIR:-build}

case $what in
demo|check|build) ;;
*)
    echo "$0: unknown command '$what'" >&2
    echo "usage: $0 demo|check|build" >&2
    exit 2
    ;;
esac

packages="autoconf automake libtool pkg-config make gcc libfabric-dev
  libfabric-bin librdmacm-dev libibverbs-dev ibverbs-providers nettle-dev
  libpmix-dev openmpi-bin libopenmpi-dev libcunit1-dev mandoc man-db gnuplot-nox
  gfortran"
# make check also builds and runs the libFuzzer harnesses: clang, its
# fuzzer and sanitizer runtimes, and llvm-symbolizer for their reports;
# cmake for the installed package test, xmllint for the drawn SVGs
check_packages="clang libclang-rt-dev llvm cmake libxml2-utils"
if [ "$what" = check ]; then
    packages="$packages $check_packages"
fi

missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "== installing:$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing >/dev/null
    else
        echo "missing Debian packages (run as root to install):$missing" >&2
        exit 1
    fi
fi

# each part's time, in seconds, in BUILDDIR/times (.ci/run prints them)
started=$(date +%s)
took() {  # PART: the time since the last call (or the start) for PART
    now=$(date +%s)
    echo "$1 $((now - started))" >>times
    started=$now
}
[ -x configure ] || ./autogen.sh
mkdir -p "$builddir"
cd "$builddir"
: >times
# the packages configure may find, installed now (one line)
# shellcheck disable=SC2086
seen=$(dpkg-query -W -f='${Package} ${Status}\n' $packages $check_packages 2>/dev/null |
    sed -n 's/ install ok installed$//p' | sort -u | tr '\n' ' ')
if [ -f Makefile ] && [ -f build-packages ] && [ "$(cat build-packages)" = "$seen" ]; then
    echo "== configure: already done with these packages"
else
    echo "== configure"
    ../configure --enable-werror
    echo "$seen" >build-packages
fi
echo "== build"
make -j"$jobs"
took configure+build

case $what in
build)
    ;;
demo)
    echo "== demo: 4 ranks, circular shifts on a ring, libfabric tcp on localhost"
    ./tools/rtopo-run -n 4 --transport ofi:tcp ./examples/ring_shift
    echo "== demo: rtopo-bench against raw RDMA writes, 2 ranks"
    ./tools/rtopo-run -n 2 --transport ofi:rxm ./tools/rtopo-bench shift \
        --sizes 8,65536,1048576,16777216 --iters 50
    ;;
check)
    echo "== make check"
    make -j"$jobs" check || { took "make-check(failed)"; cat test-suite.log; exit 1; }
    took make-check
    echo "== make distcheck (a smoke subset of the tests: CHECK_SUBSET=smoke)"
    if ! make -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror; then
        # the distcheck tree is left in place when it fails
        for log in rtopo-*/_build/*/test-suite.log rtopo-*/_build/test-suite.log; do
            [ -f "$log" ] || continue
            echo "== $log"
            cat "$log"
        done
        took "distcheck(failed)"
        exit 1
    fi
    took distcheck
    ;;
esac
