#!/bin/sh
# check_man.sh - the man pages are lint-free and complete.
#
#  (a) mandoc -Tlint -Wwarning prints nothing for any page under man/man*;
#  (b) every rtopo_* function exported by librtopo.so has a page or an
#      alias under man/man3;
#  (c) every RTOPO_* variable that rtopo-info --params prints is in rtopo(7);
#  (d) every status code that rtopo-info --errors prints is in rtopo(7);
#  (e) every man/*.md has its nroff page, and every name in a NAME section
#      has a page or an alias.
# Needs top_srcdir and top_builddir (absolute) in the environment, as
# AM_TESTS_ENVIRONMENT exports them.  Prints what is missing and exits 1
# on any failure.  Without mandoc, (a) cannot run: the other checks still
# do, and the test exits 77 (skip) if they pass.

: "${top_srcdir:?top_srcdir is not set}"
: "${top_builddir:?top_builddir is not set}"

man=$top_srcdir/man
fail=0

problem() {
    echo "check_man: $*"
    fail=1
}

have_mandoc=1
command -v mandoc >/dev/null 2>&1 || have_mandoc=0

pages=$(cd "$man" && ls man1/*.1 man3/*.3 man7/*.7 2>/dev/null)
[ -n "$pages" ] || { echo "check_man: no pages under $man/man*"; exit 1; }

# (a) lint, from man/ so that ".so man3/x.3" resolves.  An alias page is
# one ".so" line (STYLE 13); mandoc warns about every ".so" ("fragile,
# better use ln(1)"), so that one message, on line 1 of a page that is
# exactly one well-formed ".so" line naming a real page, is the only
# output allowed.  The target's own content is linted through the alias
# too, and directly.
aliases=
[ $have_mandoc -eq 1 ] || echo "check_man: mandoc not found: not linting"
for f in $pages; do
    first=$(sed -n 1p "$man/$f")
    case $first in
    .so\ *)
        target=${first#.so }
        if [ "$(wc -l <"$man/$f")" -ne 1 ]; then
            problem "$f: an alias page must be the one line '.so $target'"
        elif ! echo "$target" | grep -q '^man[1-9]/[A-Za-z0-9_.-]*\.[1-9]$'; then
            problem "$f: '.so $target' must name man<sec>/<page>.<sec>"
        elif [ ! -f "$man/$target" ] || sed -n 1p "$man/$target" | grep -q '^\.so '; then
            problem "$f: '.so $target' does not name a page"
        fi
        aliases="$aliases $f"
        ;;
    esac
done
out=
[ $have_mandoc -eq 0 ] || out=$(cd "$man" && mandoc -Tlint -Wwarning $pages 2>&1)
for f in $aliases; do
    out=$(printf '%s\n' "$out" | grep -v -x -F "mandoc: $f:1:2: WARNING: .so is fragile, better use ln(1): so $(sed -n '1s/^\.so //p' "$man/$f")")
done
out=$(printf '%s\n' "$out" | sed '/^$/d')
if [ -n "$out" ]; then
    printf '%s\n' "$out"
    problem "mandoc -Tlint -Wwarning is not silent (above)"
fi

# (b) exported functions
lib=$top_builddir/.libs/librtopo.so
if [ -f "$lib" ]; then
    syms=$(nm -D --defined-only "$lib" | awk '{ sub(/@.*/, "", $3); if ($3 ~ /^rtopo_/) print $3 }' | sort -u)
    [ -n "$syms" ] || problem "no rtopo_ symbols found in $lib"
    for s in $syms; do
        [ -f "$man/man3/$s.3" ] || problem "exported function $s has no page man/man3/$s.3"
    done
else
    problem "$lib not found (build the library first)"
fi

# (c), (d) variables and status codes in rtopo(7)
info=$top_builddir/tools/rtopo-info
page7=$man/man7/rtopo.7
if [ ! -x "$info" ]; then
    problem "$info not found (build the tools first)"
elif [ ! -f "$page7" ]; then
    problem "$page7 is missing"
else
    vars=$("$info" --params | awk '$1 ~ /^RTOPO_/ { print $1 }')
    [ -n "$vars" ] || problem "rtopo-info --params printed no variables"
    for v in $vars; do
        grep -qw -- "$v" "$page7" || problem "variable $v is not in rtopo(7)"
    done
    codes=$("$info" --errors | awk '$1 ~ /^RTOPO_/ { print $1 }')
    [ -n "$codes" ] || problem "rtopo-info --errors printed no status codes"
    for c in $codes; do
        grep -qw -- "$c" "$page7" || problem "status code $c is not in rtopo(7)"
    done
fi

# (e) sources, pages and aliases agree
for md in "$man"/*.md; do
    [ -f "$md" ] || continue
    base=$(basename "$md" .md)
    sec=${base##*.}
    [ -f "$man/man$sec/$base" ] || problem "$md has no page man/man$sec/$base (run make man-pages)"
    names=$(awk '/^# NAME/ { n = 1; next } n && /^# / { exit }
                 n && NF { sub(/ +\\?- .*/, ""); print; exit }' "$md" |
            tr -d '\\*' | tr ',' ' ')
    for n in $names; do
        [ -f "$man/man$sec/$n.$sec" ] || problem "$n (NAME of $base.md) has no page or alias man/man$sec/$n.$sec"
    done
done

[ $fail -eq 0 ] || exit 1
if [ $have_mandoc -eq 0 ]; then
    echo "check_man: $(echo "$pages" | wc -l) pages complete; lint skipped (no mandoc)"
    exit 77
fi
echo "check_man: $(echo "$pages" | wc -l) pages lint-free and complete"
exit 0
