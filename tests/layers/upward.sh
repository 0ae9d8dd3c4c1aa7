#!/bin/sh
# upward.sh - the layers' include rule holds: compiled with the flags of
# its layer (tests/layers/flags.sh, written by make from Makefile.am), a
# file cannot include a header of a layer above it or beside it, and can
# include its own layer's and those below.  A header that is not found is
# the only failure taken as "refused"; any other outcome of a compile that
# should fail, and any failure of one that should work, fails the test.
set -u
builddir=${top_builddir:-.}
srcdir=${top_srcdir:-.}
flags=$builddir/tests/layers/flags.sh
[ -f "$flags" ] || { echo "upward.sh: $flags missing (make check writes it)" >&2; exit 99; }
. "$flags"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtopo-layers.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0 checks=0

# compile LAYER HEADER: 0 when it compiles, 1 when the header is not
# found, 2 for anything else (its messages in $tmp/err)
compile() {
    eval "lflags=\$$1"
    printf '#include "config.h"\n#include "%s"\nint layers_probe;\n' "$2" > "$tmp/probe.c"
    # shellcheck disable=SC2086
    # from the build folder, as make runs the compiler (relative -I paths)
    if (cd "$builddir" && $CC $DEFS $lflags $CFLAGS -fsyntax-only "$tmp/probe.c") \
        > "$tmp/err" 2>&1; then
        return 0
    fi
    grep -q "$2: No such file or directory" "$tmp/err" && return 1
    return 2
}

# refused LAYER HEADER...: each must not be found
refused() {
    layer=$1
    shift
    for h in "$@"; do
        checks=$((checks + 1))
        compile "$layer" "$h"
        case $? in
        1) ;;
        0) echo "FAIL: $layer includes $h (a layer above or beside it)"; fails=$((fails + 1)) ;;
        *) echo "FAIL: $layer with $h: not the missing header:"; cat "$tmp/err"; fails=$((fails + 1)) ;;
        esac
    done
}

# allowed LAYER HEADER...: each must compile
allowed() {
    layer=$1
    shift
    for h in "$@"; do
        checks=$((checks + 1))
        if ! compile "$layer" "$h"; then
            echo "FAIL: $layer cannot include $h:"
            cat "$tmp/err"
            fails=$((fails + 1))
        fi
    done
}

# one header of each layer: base, topo, transports, bootstrap, engine, tool
allowed base rtopo.h log.h params.h
refused base rtopo_sched.h tl.h boot.h rtopo_int.h rtopo_tool.h
allowed topo log.h params.h rtopo_sched.h
refused topo tl.h boot.h rtopo_int.h rtopo_tool.h
allowed transports log.h params.h tl.h
refused transports rtopo_sched.h boot.h rtopo_int.h rtopo_tool.h
allowed boot log.h params.h boot.h boot_wire.h
refused boot rtopo_sched.h tl.h rtopo_int.h rtopo_tool.h
allowed engine rtopo_sched.h tl.h boot.h rtopo_int.h rtopo_tool.h
allowed tools log.h rtopo_sched.h tl.h boot_wire.h rtopo_tool.h
refused tools rtopo_int.h

# a quoted include with a path ("../runtime/rtopo_int.h") would find any
# header whatever the include paths: none in the library and the tools
checks=$((checks + 1))
paths=""
for f in $sources; do
    case $f in *.c|*.h) ;; *) continue ;; esac
    grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*/' "$srcdir/$f"
done > "$tmp/paths"
for f in "$srcdir"/tools/*.c "$srcdir"/tools/*.h "$srcdir"/runtime/tool/*.h; do
    grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*/' "$f"
done >> "$tmp/paths"
if [ -s "$tmp/paths" ]; then
    echo "FAIL: quoted includes with a path:"
    cat "$tmp/paths"
    fails=$((fails + 1))
fi

echo "upward.sh: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
