/*
 * clock.c - the monotonic clock (clock.h).
 */
#include "config.h"
#include <stdint.h>
#include <time.h>
#include "clock.h"

uint64_t rtopo__now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t rtopo__now_ns_upper(void)
{
#ifdef CLOCK_MONOTONIC_COARSE
    static uint64_t tick;   /* the coarse clock's resolution, read once */
    struct timespec ts;

    if (!tick) {
        if (clock_getres(CLOCK_MONOTONIC_COARSE, &ts) == 0 && ts.tv_sec == 0 &&
            ts.tv_nsec > 0)
            __atomic_store_n(&tick, (uint64_t)ts.tv_nsec, __ATOMIC_RELAXED);
        else
            return rtopo__now_ns();
    }
    if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0)
        return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec +
               __atomic_load_n(&tick, __ATOMIC_RELAXED);
#endif
    return rtopo__now_ns();
}
