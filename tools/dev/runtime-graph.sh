#!/bin/sh
# runtime-graph.sh - the file-level call and include graph of runtime/
# (or of another folder's files).
#
# usage: tools/dev/runtime-graph.sh [BUILDDIR] [SRCDIR]    (defaults: build .)
#        LEVELS=FILE takes the levels from FILE instead of SRCDIR/DIR/README.md
#        (to hold an older tree against today's levels).
#        DIR=topo FILES='coll_*' draws the files of topo/ whose base names
#        match FILES instead (tools/dev/topo-graph.sh); DIR defaults to
#        runtime, FILES to every file.
#
# A file calls another when its object file leaves a symbol undefined that
# the other's object defines (nm); it includes another when it names a
# header of the same base name ("job.h" -> job.c).  Prints every edge, the
# circles (strongly connected components of more than one file), the edges
# that run up against the levels listed in runtime/README.md (lines
# "  L<n> <name>: file.c ..."; a file not listed there has no level), and
# the lines of each file.  Files: runtime/*.c but the bootstrap (boot*)
# and the settings (params.c), which sit below the whole runtime.
set -eu
b=${1:-build}
s=${2:-.}
dir=${DIR:-runtime}
files=${FILES:-*}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for c in "$s"/"$dir"/$files.c; do
    f=$(basename "$c" .c)
    case $dir/$f in runtime/boot*|runtime/params) continue ;; esac
    o=$(ls "$b"/"$dir"/.libs/*-"$f".o "$b"/"$dir"/*-"$f".o "$b"/"$dir"/"$f".o \
        2>/dev/null | head -n 1) || true
    [ -n "$o" ] || { echo "no object for $dir/$f.c under $b (build first)" >&2; exit 1; }
    echo "$f" >>"$tmp/files"
    nm -g --defined-only "$o" | awk -v f="$f" 'NF == 3 { print $3, f }' >>"$tmp/def"
    nm -g --undefined-only "$o" | awk -v f="$f" '{ print $NF, f }' >>"$tmp/und"
    sed -n 's/^#include "\([a-z_]*\)\.h".*/\1/p' "$c" | awk -v f="$f" '{ print f, $1 }' \
        >>"$tmp/inc"
    printf '%s %s\n' "$f" "$(wc -l <"$c")" >>"$tmp/lines"
done
hl=0
for h in "$s"/"$dir"/$files.h; do
    [ -f "$h" ] || continue
    case $dir/$(basename "$h") in runtime/boot*|runtime/params.h) continue ;; esac
    hl=$((hl + $(wc -l <"$h")))
    printf '  %6d %s\n' "$(wc -l <"$h")" "$(basename "$h")"
done >"$tmp/hdr"
# levels from the README block
lv=${LEVELS:-$s/$dir/README.md}
sed -n 's/^ *L\([0-9]*\) [^:]*: *\(.*\)$/\1 \2/p' "$lv" 2>/dev/null |
    awk '{ for (i = 2; i <= NF; i++) { sub(/\.c$/, "", $i); print $i, $1 } }' >"$tmp/lvl"

awk -v tmp="$tmp" '
FILENAME == tmp "/files" { file[$1] = 1; nf++; name[nf] = $1; next }
FILENAME == tmp "/def"   { def[$1] = $2; next }
FILENAME == tmp "/und"   { if ($1 in def && def[$1] != $2) { e[$2, def[$1]] = 1;
                               why[$2, def[$1]] = why[$2, def[$1]] " " $1 } next }
FILENAME == tmp "/inc"   { if ($2 in file && $2 != $1) { e[$1, $2] = 1;
                               why[$1, $2] = why[$1, $2] " #" $2 ".h" } next }
FILENAME == tmp "/lvl"   { lvl[$1] = $2; next }
FILENAME == tmp "/lines" { lines[$1] = $2; next }
END {
    n = nf
    for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
        r[i, j] = (i == j) || ((name[i], name[j]) in e)
    for (k = 1; k <= n; k++) for (i = 1; i <= n; i++) if (r[i, k])
        for (j = 1; j <= n; j++) if (r[k, j]) r[i, j] = 1
    print "edges (caller -> callee: symbols, #headers)"
    ne = 0
    for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) if ((name[i], name[j]) in e) {
        ne++; printf "  %s -> %s:%s\n", name[i], name[j], why[name[i], name[j]]
    }
    print "circles (files that reach each other)"
    nc = 0; big = 0
    for (i = 1; i <= n; i++) {
        if (seen[i]) continue
        m = 0; l = ""
        for (j = 1; j <= n; j++)
            if (r[i, j] && r[j, i]) { seen[j] = 1; m++; l = l " " name[j] }
        if (m > 1) { nc++; if (m > big) big = m; printf "  %d files:%s\n", m, l }
    }
    print "upward edges (from a lower level to a higher one)"
    nu = 0
    for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) {
        a = name[i]; c = name[j]
        if (!((a, c) in e) || !(a in lvl) || !(c in lvl)) continue
        if (lvl[a] + 0 < lvl[c] + 0) {
            nu++
            printf "  %s (L%d) -> %s (L%d):%s\n", a, lvl[a], c, lvl[c], why[a, c]
        }
    }
    print "lines per file (level)"
    tot = 0
    for (i = 1; i <= n; i++) {
        printf "  %6d %s.c (%s)\n", lines[name[i]], name[i],
            name[i] in lvl ? "L" lvl[name[i]] : "-"
        tot += lines[name[i]]
    }
    print "lines per internal header"
    while ((getline l < (tmp "/hdr")) > 0) print l
    printf "summary: %d files, %d lines, %d edges, %d circles, largest %d files, " \
        "%d upward edges\n", \
        n, tot, ne, nc, big, nu
}' "$tmp/files" "$tmp/def" "$tmp/und" "$tmp/inc" "$tmp/lvl" "$tmp/lines"
