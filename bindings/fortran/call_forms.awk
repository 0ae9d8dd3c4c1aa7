# call_forms.awk - the three call forms of each collective of the Fortran
# binding from one definition (call_forms.def), as runtime/call_forms.h
# makes them for C: for each `forms NAME` block,
#
#   rtopo_NAME        blocking
#   rtopo_iNAME       nonblocking: request before the optional arguments
#   rtopo_NAME_init   persistent
#
#   awk -v part=c -f call_forms.awk call_forms.def   the C functions, for the
#                                                    module's interface block
#   awk -v part=f -f call_forms.awk call_forms.def   the module procedures
#
# A block:
#
#   forms NAME
#   c ARGS          the C function's arguments (the non-blocking forms add
#   DECLS           req); DECLS their declarations
#   f
#   SUBROUTINE      the module procedure, written once with these marks:
#   end               @N  the form's name (NAME, iNAME, NAME_init)
#                     @R  "request, " in the argument list, where it goes
#                     @D  a line of its own: the declaration of request
#                     @A  ", asynchronous" on the buffers (not blocking)
#                     @O  the intent of what the operation writes: out
#                         when blocking, inout otherwise (written later)
#                     @P  ", request%ptr" closing the C call's arguments
#
# '#' starts a comment line outside the blocks.  Lines longer than 92
# columns after the marks are replaced are continued (&) at a ", ".
# POSIX awk.

function form_name(base, k) {
    return k == 0 ? base : k == 1 ? "i" base : base "_init"
}

# line with the marks of form k replaced
function marks(l, base, k) {
    gsub(/@N/, form_name(base, k), l)
    gsub(/@R/, k ? "request, " : "", l)
    gsub(/@A/, k ? ", asynchronous" : "", l)
    gsub(/@O/, k ? "inout" : "out", l)
    gsub(/@P/, k ? ", request%ptr" : "", l)
    return l
}

# print l, continued at the last ", " outside a string before column 88
# while it is longer than 92 columns
function put(l,    ind, i, c, q, best) {
    match(l, /^ */)
    ind = RLENGTH
    while (length(l) > 92) {
        q = 0
        best = 0
        for (i = 1; i < 88; i++) {
            c = substr(l, i, 1)
            if (c == "'")
                q = !q
            else if (!q && c == "," && substr(l, i + 1, 1) == " ")
                best = i
        }
        if (!best)
            break
        print substr(l, 1, best) " &"
        l = sprintf("%" (ind + 4) "s", "") substr(l, best + 2)
    }
    print l
}

function flush(    k, i, name, a) {
    for (k = 0; k < 3; k++) {
        name = form_name(base, k)
        if (part == "c") {
            a = cargs (k ? ", req" : "")
            put("    function c_rtopo_" name "(" a ") &")
            print "        bind(c, name='rtopo_" name "')"
            print "      import"
            print "      integer(c_int) :: c_rtopo_" name
            for (i = 1; i <= nc; i++)
                print cl[i]
            if (k)
                print "      type(c_ptr) :: req"
            print "    end function"
            print ""
        } else {
            for (i = 1; i <= nf; i++) {
                if (fl[i] == "@D") {
                    if (k)
                        print "    type(rtopo_request), intent(out) :: request"
                } else {
                    put(marks(fl[i], base, k))
                }
            }
            print ""
        }
    }
}

BEGIN {
    if (part != "c" && part != "f") {
        print "call_forms.awk: part=c or part=f" > "/dev/stderr"
        exit 2
    }
    print "! generated from call_forms.def by call_forms.awk: edit those, not this"
    in_block = 0
}
!in_block && (/^#/ || /^[ \t]*$/) { next }
!in_block && $1 == "forms" { base = $2; in_block = 1; sect = ""; nc = nf = 0; next }
!in_block { print "call_forms.def:" NR ": not in a block: " $0 > "/dev/stderr"; bad = 1; exit 1 }
$0 == "end" { flush(); in_block = 0; next }
sect == "" && $1 == "c" { sect = "c"; cargs = substr($0, 3); next }
sect == "c" && $0 == "f" { sect = "f"; next }
sect == "c" { cl[++nc] = $0; next }
sect == "f" { fl[++nf] = $0; next }
{ print "call_forms.def:" NR ": expected c ARGS: " $0 > "/dev/stderr"; bad = 1; exit 1 }
END {
    if (bad)
        exit 1
    if (in_block) {
        print "call_forms.def: block " base " has no end" > "/dev/stderr"
        exit 1
    }
}
