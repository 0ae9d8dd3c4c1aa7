#!/bin/sh
# The CMake package: install the build in a temporary DESTDIR, configure
# tests/cmake with find_package(rtopo 0.1) against that tree (the Fortran
# program too when the binding is built), build, and run both programs
# on 2 ranks with the installed rtopo-run.  Also: a request for a version
# that is not installed must fail; and, with the binding, the installed
# cannon.f90 and fir_filter.f90 build with pkg-config rtopo-fortran as
# their headers say (-Wall -Werror) and run on 4 and 5 ranks.  Skipped
# without cmake.
: "${top_srcdir:?}" "${top_builddir:?}"
command -v cmake >/dev/null 2>&1 || { echo "no cmake: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
set -e
# a make of its own, not the parallel make check's job server
unset MAKEFLAGS MFLAGS MAKELEVEL
make -s -C "$top_builddir" install DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; exit 1; }
cfg=$(cd "$tmp/root" && find . -name rtopoConfig.cmake | head -1)
[ -n "$cfg" ] || { echo "rtopoConfig.cmake was not installed"; exit 1; }
cfg=${cfg#.}
prefix=$tmp/root${cfg%/lib*/cmake/rtopo/rtopoConfig.cmake}
echo "installed in DESTDIR: $prefix (config: $cfg)"
fortran=OFF
[ -x "$top_builddir/examples/cannon_f" ] && fortran=ON
if ! command -v "${FC:-gfortran}" >/dev/null 2>&1; then fortran=OFF; fi
cmake -S "$top_srcdir/tests/cmake" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DWITH_FORTRAN=$fortran >"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; exit 1; }
grep 'rtopo 0' "$tmp/cmake.log"
cmake --build "$tmp/build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
libdir=$(dirname "$(find "$prefix" -name 'librtopo.so' | head -1)")
run() {
    LD_LIBRARY_PATH="$libdir" RTOPO_SPIN_US=0 timeout 120 "$prefix/bin/rtopo-run" -n 2 \
        --quiet "$tmp/build/$1" >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; exit 1; }
    cat "$tmp/run.log"
    grep -q "$1: OK, 2 ranks" "$tmp/run.log"
}
run hello_c
[ $fortran = OFF ] || run hello_f
[ $fortran = ON ] || echo "Fortran project not built: no Fortran binding or compiler"
# a version that is not installed is refused
sed 's/find_package(rtopo 0.1 /find_package(rtopo 7.0 /' "$top_srcdir/tests/cmake/CMakeLists.txt" \
    >"$tmp/CMakeLists.txt"
cp "$top_srcdir/tests/cmake/hello.c" "$tmp/"
if cmake -S "$tmp" -B "$tmp/build7" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/cmake7.log" 2>&1; then
    echo "find_package(rtopo 7.0) did not fail"
    exit 1
fi
echo "find_package(rtopo 7.0 REQUIRED) fails as it should"
[ $fortran = ON ] || exit 0
command -v pkg-config >/dev/null 2>&1 || { echo "no pkg-config: not building cannon.f90"; exit 0; }
flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --define-prefix --cflags --libs rtopo-fortran)
echo "pkg-config rtopo-fortran: $flags"
exdir=$(dirname "$(find "$prefix" -name cannon.f90 | head -1)")
for name in cannon fir_filter; do
    "${FC:-gfortran}" -Wall -Werror -O2 "$exdir/$name.f90" $flags -o "$tmp/build/${name}_f"
done
# run N PROGRAM PATTERN COUNT [ARGS]: the installed rtopo-run, COUNT lines match
run_ex() {
    n=$1; prog=$2; pat=$3; want=$4; shift 4
    LD_LIBRARY_PATH="$libdir" RTOPO_SPIN_US=0 timeout 120 "$prefix/bin/rtopo-run" -n "$n" \
        --quiet "$tmp/build/$prog" "$@" >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; exit 1; }
    [ "$(grep -c "$pat" "$tmp/run.log")" = "$want" ] || { cat "$tmp/run.log"; exit 1; }
    echo "installed examples (pkg-config rtopo-fortran): $prog on $n ranks correct"
}
run_ex 4 cannon_f ': C block correct' 4
run_ex 5 fir_filter_f 'fir_filter_f: OK' 1 1000 17
