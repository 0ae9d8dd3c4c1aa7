/*
 * integ_util.h - small helpers shared by the integration test programs
 * (hang_check, sleep_check, mismatch_check, req_check, mpi_hang_check):
 * clock, data patterns, a rank label usable before rtopo_init, naps, a
 * counted failure.
 * Header-only so that each program stays one translation unit.
 */
#ifndef RTOPO_INTEG_UTIL_H
#define RTOPO_INTEG_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline double iu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* a failed check of rank me: one line on stdout, counted in fails (the
 * program's verdict is pass while fails is 0) */
#define IU_FAIL(me, fails, ...)                                              \
    do {                                                                     \
        printf("rank %d: FAIL: ", (me));                                     \
        printf(__VA_ARGS__);                                                 \
        printf("\n");                                                        \
        fflush(stdout);                                                      \
        (fails)++;                                                           \
    } while (0)

/* sleep `ms` milliseconds: used between rtopo_test polls, never spin */
static inline void iu_nap_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* byte `off` of the data rank `src` sends in operation `tag` */
static inline uint8_t iu_pattern(int src, size_t off, unsigned tag)
{
    uint64_t x = ((uint64_t)(unsigned)src << 40) ^ ((uint64_t)tag << 24) ^ off;
    x ^= x >> 17;
    x *= 0x9e3779b97f4a7c15ull;
    return (uint8_t)(x >> 56);
}

static inline void iu_fill(void *buf, size_t n, int src, unsigned tag)
{
    uint8_t *b = buf;
    size_t i;
    for (i = 0; i < n; i++)
        b[i] = iu_pattern(src, i, tag);
}

/* index of the first byte that differs from src's pattern, or -1 */
static inline long iu_first_bad(const void *buf, size_t n, int src, unsigned tag)
{
    const uint8_t *b = buf;
    size_t i;
    for (i = 0; i < n; i++)
        if (b[i] != iu_pattern(src, i, tag))
            return (long)i;
    return -1;
}

/* index of the first byte of buf[0..n) that is not `val`, or -1 */
static inline long iu_first_not(const void *buf, size_t n, uint8_t val)
{
    const uint8_t *b = buf;
    size_t i;
    for (i = 0; i < n; i++)
        if (b[i] != val)
            return (long)i;
    return -1;
}

static inline int iu_mod(long a, int p)
{
    return (int)(((a % p) + p) % p);
}

/* "rank N" from RTOPO_RANK (rtopo-run) or OMPI_COMM_WORLD_RANK (mpirun)
 * when the library cannot tell us yet, else "pid N" */
static inline const char *iu_env_label(void)
{
    static char buf[64];
    const char *r = getenv("RTOPO_RANK");
    if (!r || !*r)
        r = getenv("OMPI_COMM_WORLD_RANK");
    if (r && *r)
        snprintf(buf, sizeof(buf), "rank %s", r);
    else
        snprintf(buf, sizeof(buf), "pid %ld", (long)getpid());
    return buf;
}

static inline int iu_env_rank(void)
{
    const char *r = getenv("RTOPO_RANK");
    if (!r || !*r)
        r = getenv("OMPI_COMM_WORLD_RANK");
    return r && *r ? atoi(r) : -1;
}

/* case-insensitive strstr */
static inline int iu_contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle), i;
    if (!hay)
        return 0;
    for (; *hay; hay++) {
        for (i = 0; i < n; i++) {
            char a = hay[i], b = needle[i];
            if (a >= 'A' && a <= 'Z')
                a = (char)(a - 'A' + 'a');
            if (b >= 'A' && b <= 'Z')
                b = (char)(b - 'A' + 'a');
            if (a != b)
                break;
        }
        if (i == n)
            return 1;
    }
    return 0;
}

#endif /* RTOPO_INTEG_UTIL_H */
