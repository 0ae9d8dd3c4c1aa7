/*
 * bench_common.h - what rtopo-bench and rtopo-bench-mpi share besides the
 * raw baseline (bench_raw.h): the command-line helpers (integer options,
 * word lists, --sizes), the usage error, and small numeric helpers.
 */
#ifndef RTOPO_BENCH_COMMON_H
#define RTOPO_BENCH_COMMON_H

#include <stdarg.h>
#include <stdio.h>
#include "clock.h"
#include "rtopo_tool.h"

/* set by main before parsing: the program's name in messages, its usage
 * text (printed after a usage error), and quiet on the ranks that should
 * not print usage errors (all ranks exit with status 2 all the same) */
typedef struct bench_cli {
    const char *prog;
    void (*usage)(FILE *f);
    int quiet;
} bench_cli_t;
extern bench_cli_t bench_cli;

/* "PROG: message", the usage text on stderr, exit status 2 */
void bench_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* the same with another name than bench_cli.prog before the message */
void bench_usage_verror(const char *prog, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0), noreturn));
/* option opt's value s, an integer from lo to hi (strtol base 0) */
long bench_parse_long(const char *opt, const char *s, long lo, long hi);
/* --modes, --buffers: a comma-separated list of the words a and b, as a
 * bit mask (1: a, 2: b), a usage error otherwise */
int bench_parse_pair_opt(const char *opt, const char *s, const char *a, const char *b);

/* --sizes: a comma-separated list of counts, or MIN:MAX (MIN, then the
 * powers of two above it up to MAX), at most max of them into sizes[];
 * returns how many.  hi: the largest count (0: no limit but long's);
 * what and example name the counts in the message ("byte counts",
 * "8,1024,..."). */
int bench_parse_sizes(const char *s, long *sizes, int max, long hi, const char *what,
                      const char *example);

/* qsort's comparison of doubles, ascending */
int bench_cmp_double(const void *a, const void *b);
/* the context's run state (progress thread, waits, registration), for
 * the headers */
const rtopo__tool_state_t *bench_state(const rtopo_ctx_t *ctx);

#endif
