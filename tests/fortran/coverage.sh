#!/bin/sh
# Every function that librtopo.so exports has its Fortran form: a module
# procedure of the same name exported by librtopo_fortran.so, and a line
# in the SYNOPSIS of rtopo_f08(3).  Skipped without the binding.
: "${top_srcdir:?}" "${top_builddir:?}"
flib=$top_builddir/.libs/librtopo_fortran.so
[ -f "$flib" ] || { echo "built without the Fortran binding: skipped"; exit 77; }
syms() {  # exported rtopo_* names of library $1 with prefix $2 removed
    nm -D --defined-only "$1" | awk -v p="$2" '{ sub(/@.*/, "", $3); if (index($3, p) == 1) print substr($3, length(p) + 1) }' |
        grep '^rtopo_' | sort -u
}
c=$(syms "$top_builddir/.libs/librtopo.so" "")
f=$(syms "$flib" "__rtopo_f08_MOD_")
page=$top_srcdir/man/rtopo_f08.3.md
fail=0
for s in $c; do
    echo "$f" | grep -qx "$s" || { echo "no Fortran form of $s in rtopo_f08"; fail=1; }
    grep -Eq "^(call |str = )$s\(" "$page" || { echo "$s is not in the SYNOPSIS of rtopo_f08(3)"; fail=1; }
done
[ $fail = 0 ] && echo "all $(echo "$c" | wc -l) functions of librtopo have their Fortran form and page line"
exit $fail
