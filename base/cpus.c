/*
 * cpus.c - how many processors the ranks of this host share (cpus.h).
 */
#include "config.h"
#include <sched.h>
#include <unistd.h>
#include "cpus.h"

long rtopo__cpus_shared(void)
{
    cpu_set_t cpus;
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    if (!sched_getaffinity(0, sizeof(cpus), &cpus) && CPU_COUNT(&cpus) > 1)
        n = CPU_COUNT(&cpus);
    return n > 0 ? n : 0;
}
