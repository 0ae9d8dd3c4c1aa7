/*
 * clock.h - the monotonic clock every layer measures time with.
 */
#ifndef RTOPO_CLOCK_H
#define RTOPO_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds: for intervals and deadlines only, its
 * origin is arbitrary. */
uint64_t rtopo__now_ns(void);

/* The same clock read from its coarse copy, a few times cheaper, plus the
 * coarse copy's tick (1-4 ms): not below rtopo__now_ns() at the time of
 * the call, about a tick above it.  For deadlines, which may then expire
 * a tick late but not early. */
uint64_t rtopo__now_ns_upper(void);

#endif
