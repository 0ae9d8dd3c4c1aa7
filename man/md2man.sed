# md2man.sed - post-process pandoc's man output so that mandoc -Tlint
# -Wwarning has nothing to say and every formatter renders it alike.
#
# pandoc's preamble defines a V font with .ie/.ftr for inline code:
# mandoc knows neither the request nor the font.
/^\.\\" Define V font/,/^\.\\" that render this/d
/^\.ie "\\f\[CB\]x/,/^\.\\}$/d
/^\.el \\{\\$/,/^\.\\}$/d
# code blocks: the \f[C] line that opens them goes (the block is .nf in
# the regular font), inline code becomes bold, the man convention for
# literals
/^\\f\[C\]$/d
s/\\f\[\(V\|C\)[BI]*\]/\\f[B]/g
# a paragraph macro right after a section heading is redundant
/^\.S[HS] /{
n
/^\.PP$/d
}
# text lines: '-' is a hyphen to groff, '\-' the minus sign that options
# and code need
/^[.']/!s/-/\\-/g
