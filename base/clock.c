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
