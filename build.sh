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
  libpmix-dev openmpi-bin libopenmpi-dev libcunit1-dev mandoc gnuplot-nox"
# make check also builds and runs the libFuzzer harnesses: clang, its
# fuzzer and sanitizer runtimes, and llvm-symbolizer for their reports
if [ "$what" = check ]; then
    packages="$packages clang libclang-rt-dev llvm"
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

echo "== configure"
[ -x configure ] || ./autogen.sh
mkdir -p "$builddir"
cd "$builddir"
[ -f Makefile ] || ../configure --enable-werror
echo "== build"
make -j"$jobs"

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
    make -j"$jobs" check || { cat test-suite.log; exit 1; }
    echo "== make distcheck"
    if ! make -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror; then
        # the distcheck tree is left in place when it fails
        for log in rtopo-*/_build/*/test-suite.log rtopo-*/_build/test-suite.log; do
            [ -f "$log" ] || continue
            echo "== $log"
            cat "$log"
        done
        exit 1
    fi
    ;;
esac
