/*
 * clock.h - the monotonic clock every layer measures time with.
 */
#ifndef RTOPO_CLOCK_H
#define RTOPO_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds: for intervals and deadlines only, its
 * origin is arbitrary. */
uint64_t rtopo__now_ns(void);

#endif
