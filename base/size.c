/*
 * size.c - parsing byte counts (size.h).
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "rtopo.h"
#include "log.h"
#include "size.h"

int rtopo__parse_size(const char *name, const char *s, size_t *out)
{
    const char *t = s;
    char *end;
    unsigned long long v;
    int shift = 0;

    while (isspace((unsigned char)*t))
        t++;
    if (*t == '-')    /* strtoull would accept and negate it */
        goto bad;
    errno = 0;
    v = strtoull(t, &end, 0);
    if (end == t)
        goto bad;
    switch (tolower((unsigned char)*end)) {
    case 'g': shift += 10; /* fall through */
    case 'm': shift += 10; /* fall through */
    case 'k': shift += 10; end++; break;
    case '\0': break;
    default: goto bad;
    }
    if (tolower((unsigned char)*end) == 'i')
        end++;    /* KiB, MiB, GiB */
    if (tolower((unsigned char)*end) == 'b')
        end++;
    if (*end != '\0')
        goto bad;
    if (errno == ERANGE || v > (SIZE_MAX >> shift))
        return rtopo__error(RTOPO_ERR_INVAL, "%s: '%s' is too large", name, s);
    if (errno)
        goto bad;
    *out = (size_t)v << shift;
    return RTOPO_OK;
bad:
    return rtopo__error(RTOPO_ERR_INVAL, "%s: '%s' is not a size", name, s);
}
