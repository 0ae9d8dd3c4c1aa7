/*
 * size.c - parsing byte counts (size.h).
 */
#include "config.h"
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include "rtopo.h"
#include "log.h"
#include "size.h"

int rtopo__parse_size(const char *name, const char *s, size_t *out)
{
    const char *t = s;
    unsigned long long v = 0;
    int shift = 0, digits = 0, big = 0;

    /* decimal only: a leading 0 (octal or 0x in C) is refused rather than
     * read in another base */
    if (t[0] == '0' && isdigit((unsigned char)t[1]))
        goto bad;
    if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
        goto bad;
    for (; isdigit((unsigned char)*t); t++, digits++) {
        unsigned d = (unsigned)(*t - '0');

        if (v > (ULLONG_MAX - d) / 10)
            big = 1;   /* keep scanning: the rest must still be well formed */
        else
            v = v * 10 + d;
    }
    if (!digits)
        goto bad;
    switch (tolower((unsigned char)*t)) {
    case 'g': shift += 10; /* fall through */
    case 'm': shift += 10; /* fall through */
    case 'k': shift += 10; t++; break;
    case '\0': break;
    default: goto bad;
    }
    if (shift && tolower((unsigned char)*t) == 'i')
        t++;    /* KiB, MiB, GiB */
    if (tolower((unsigned char)*t) == 'b')
        t++;
    if (*t != '\0')
        goto bad;
    if (big || v > (SIZE_MAX >> shift))
        return rtopo__error(RTOPO_ERR_INVAL, "%s: '%s' is too large", name, s);
    *out = (size_t)v << shift;
    return RTOPO_OK;
bad:
    return rtopo__error(RTOPO_ERR_INVAL, "%s: '%s' is not a size (decimal digits, "
                        "optionally followed by k, m or g)", name, s);
}
