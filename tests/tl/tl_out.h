/*
 * tl_out.h - the line printer of the transport tests (tl_check, tl_stress).
 */
#ifndef RTOPO_TL_OUT_H
#define RTOPO_TL_OUT_H

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

/* one line on stdout, in one write: forked ranks' lines stay whole */
static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (n > (int)sizeof(line) - 2)
        n = sizeof(line) - 2;
    line[n++] = '\n';
    if (write(1, line, (size_t)n) < 0)
        return;
}

#endif
