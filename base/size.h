/*
 * size.h - parsing byte counts written by people ("64k", "1MiB", "2gb").
 */
#ifndef RTOPO_SIZE_H
#define RTOPO_SIZE_H

#include <stddef.h>

/* Parses s into *out.  Decimal digits without a leading zero (except "0"
 * itself; octal and 0x hexadecimal are refused, not read in another
 * base), optionally followed by k, m or g, also written KiB/MiB/GiB or
 * kb/mb/gb (all powers of 1024, case-insensitive), or by b alone.  name
 * labels the value in the error detail (e.g. "RTOPO_CHUNK_SIZE").
 * Returns RTOPO_OK, or RTOPO_ERR_INVAL with *out unchanged when s is not
 * of that form (a sign, spaces, a fraction) or does not fit in a size_t. */
int rtopo__parse_size(const char *name, const char *s, size_t *out);

#endif
