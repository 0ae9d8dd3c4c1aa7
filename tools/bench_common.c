/*
 * bench_common.c - command-line and numeric helpers of rtopo-bench and
 * rtopo-bench-mpi (bench_common.h).
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "bench_common.h"
#include "bench_raw.h"

bench_cli_t bench_cli = { "rtopo-bench", NULL, 0 };

void bench_usage_verror(const char *prog, const char *fmt, va_list ap)
{
    if (!bench_cli.quiet) {
        fprintf(stderr, "%s: ", prog);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        if (bench_cli.usage)
            bench_cli.usage(stderr);
    }
    exit(2);
}

void bench_usage_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    bench_usage_verror(bench_cli.prog, fmt, ap);
}

long bench_parse_long(const char *opt, const char *s, long lo, long hi)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 0);
    if (errno || end == s || *end)
        bench_usage_error("%s '%s' is not an integer", opt, s);
    if (v < lo)
        bench_usage_error("%s must be at least %ld (got %ld)", opt, lo, v);
    if (v > hi)
        bench_usage_error("%s must be at most %ld (got %ld)", opt, hi, v);
    return v;
}

int bench_parse_pair_opt(const char *opt, const char *s, const char *a, const char *b)
{
    int mask = bench_parse_pair(s, a, b);

    if (mask <= 0)
        bench_usage_error("%s '%s': a comma-separated list of %s and %s", opt, s, a, b);
    return mask;
}

int bench_parse_sizes(const char *s, long *sizes, int max, long hi, const char *what,
                      const char *example)
{
    const char *arg = s;
    long lo, top, v;
    char *end;
    int n = 0;

    if (sscanf(s, "%ld:%ld", &lo, &top) == 2 && !strchr(s, ',')) {
        if (lo < 0 || top < lo || (hi > 0 && top > hi)) {
            if (hi > 0)
                bench_usage_error("--sizes %s: need 0 <= MIN <= MAX <= %ld", arg, hi);
            bench_usage_error("--sizes %s: need 0 <= MIN <= MAX", arg);
        }
        sizes[n++] = lo;
        for (v = lo ? lo * 2 : 1; v <= top && n < max; v *= 2)
            sizes[n++] = v;
        return n;
    }
    while (*s && n < max) {
        errno = 0;
        v = strtol(s, &end, 0);
        if (errno || end == s || v < 0 || (hi > 0 && v > hi) || (*end && *end != ',')) {
            if (hi > 0)
                bench_usage_error("--sizes '%s' is not a list of %s (%s) up to %ld, or "
                                  "MIN:MAX", arg, what, example, hi);
            bench_usage_error("--sizes '%s' is not a list of %s (%s) or MIN:MAX", arg, what,
                              example);
        }
        sizes[n++] = v;
        s = *end == ',' ? end + 1 : end;
    }
    if (n == 0)
        bench_usage_error("--sizes '%s' names no size", arg);
    return n;
}

int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

const rtopo__tool_state_t *bench_state(const rtopo_ctx_t *ctx)
{
    static rtopo__tool_state_t st;

    rtopo__tool_state(ctx, &st);
    return &st;
}
