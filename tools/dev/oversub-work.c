/*
 * oversub-work - what one collective costs the processors: per operation,
 * the processor time of all ranks together (user + system), their
 * voluntary and involuntary context switches, and the slowest rank's
 * wall time, from getrusage(2) around a loop of ITERS operations after
 * 3 untimed.  On a machine with more ranks than processors the job's
 * time is about its processor time over the processors, so this counts
 * the work a schedule costs there without the noise of a shared
 * machine's wall clock (tools/dev/oversub-work.sh builds and runs it).
 *
 *   oversub-work OP BYTES ITERS       (OP: allreduce, bcast)
 *
 * A hypercube of every rank (a ring where the count is not a power of
 * 2); int64 sum for the allreduce, root 0 for the broadcast.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <rtopo.h>

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check(int st, const char *what)
{
    if (st) {
        fprintf(stderr, "%s: %s (%s)\n", what, rtopo_err_name(st), rtopo_last_error());
        exit(1);
    }
}

static double cpu(const struct rusage *u)
{
    return (double)u->ru_utime.tv_sec + (double)u->ru_utime.tv_usec * 1e-6 +
           (double)u->ru_stime.tv_sec + (double)u->ru_stime.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    struct rusage u0, u1;
    size_t count, k;
    int iters, i, p, d, bcast;
    int64_t *a, *b;
    double t0 = 0, v[4], s[4];

    if (argc != 4 || (strcmp(argv[1], "allreduce") && strcmp(argv[1], "bcast")))
        return fprintf(stderr, "usage: oversub-work allreduce|bcast BYTES ITERS\n"), 2;
    bcast = !strcmp(argv[1], "bcast");
    count = (size_t)atol(argv[2]) / 8;
    iters = atoi(argv[3]);
    check(rtopo_init(NULL, &ctx), "rtopo_init");
    p = rtopo_size(ctx);
    for (d = 0; (1 << d) < p; d++)
        ;
    if ((1 << d) == p)
        check(rtopo_topo_hypercube(ctx, d, &t), "rtopo_topo_hypercube");
    else
        check(rtopo_topo_ring(ctx, &t), "rtopo_topo_ring");
    a = calloc(count ? count : 1, 8);
    b = calloc(count ? count : 1, 8);
    if (!a || !b)
        return 1;
    for (k = 0; k < count; k++)
        a[k] = (int64_t)k;
    for (i = -3; i < iters; i++) {
        if (i == 0) {
            check(rtopo_barrier(ctx), "rtopo_barrier");
            getrusage(RUSAGE_SELF, &u0);
            t0 = now();
        }
        check(bcast ? rtopo_bcast(t, a, count, RTOPO_INT64, 0)
                    : rtopo_allreduce(t, a, b, count, RTOPO_INT64, RTOPO_SUM), argv[1]);
    }
    v[3] = now() - t0;
    getrusage(RUSAGE_SELF, &u1);
    v[0] = cpu(&u1) - cpu(&u0);
    v[1] = (double)(u1.ru_nvcsw - u0.ru_nvcsw);
    v[2] = (double)(u1.ru_nivcsw - u0.ru_nivcsw);
    check(rtopo_allreduce(t, v, s, 3, RTOPO_DOUBLE, RTOPO_SUM), "sums");
    check(rtopo_allreduce(t, v + 3, s + 3, 1, RTOPO_DOUBLE, RTOPO_MAX), "max");
    if (rtopo_rank(ctx) == 0)
        printf("%-9s %8zu B  %d ranks  cpu %9.1f us/op  vcsw %8.1f/op  ivcsw %8.1f/op  "
               "wall %9.1f us/op\n", argv[1], count * 8, p, s[0] / iters * 1e6,
               s[1] / iters, s[2] / iters, s[3] / iters * 1e6);
    free(a);
    free(b);
    check(rtopo_topo_free(t), "rtopo_topo_free");
    check(rtopo_finalize(ctx), "rtopo_finalize");
    return 0;
}
