/*
 * place-time - times bcast, allreduce, scan and sort on an OTIS-mesh
 * under the placement RTOPO_PLACE gives (tools/dev/place-must-show.sh
 * builds and runs it under rtopo-run --hosts).
 *
 *   place-time N COUNT ITERS
 *
 * An OTIS-mesh of N groups of N; each operation on COUNT int64 per rank
 * (sort: COUNT records of 8 bytes), ITERS timed rounds after 2 untimed.
 * A round is a barrier, then the operation; its time is the slowest
 * rank's.  Topology rank 0 prints per operation the median and the
 * smallest round in microseconds, and whether the topology's ranks are
 * the job's (placement rank|host).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rtopo.h>

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static void check(int st, const char *what)
{
    if (st) {
        fprintf(stderr, "%s: %s (%s)\n", what, rtopo_err_name(st), rtopo_last_error());
        exit(1);
    }
}

int main(int argc, char **argv)
{
    static const char *const ops[] = { "bcast", "allreduce", "scan", "sort" };
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    int n, iters, i, o, me, moved, all_moved;
    size_t count, k;
    int64_t *a, *b;
    double *dt, *mx;

    if (argc != 4)
        return fprintf(stderr, "usage: place-time N COUNT ITERS\n"), 2;
    n = atoi(argv[1]);
    count = (size_t)atol(argv[2]);
    iters = atoi(argv[3]);
    check(rtopo_init(NULL, &ctx), "rtopo_init");
    check(rtopo_topo_otis_mesh(ctx, n, &t), "rtopo_topo_otis_mesh");
    me = rtopo_topo_rank(t);
    moved = me != rtopo_rank(ctx);
    check(rtopo_allreduce(t, &moved, &all_moved, 1, RTOPO_INT32, RTOPO_MAX), "placement");
    a = calloc(count, 8);
    b = calloc(count, 8);
    dt = calloc((size_t)iters, sizeof(double));
    mx = calloc((size_t)iters, sizeof(double));
    if (!a || !b || !dt || !mx)
        return 1;
    for (o = 0; o < 4; o++) {
        for (i = -2; i < iters; i++) {
            double t0;
            int st;

            for (k = 0; k < count; k++)
                a[k] = (int64_t)((me * 2654435761u + k * 40503u) % 100000u);
            check(rtopo_barrier(ctx), "rtopo_barrier");
            t0 = now();
            st = o == 0 ? rtopo_bcast(t, a, count, RTOPO_INT64, 0) :
                 o == 1 ? rtopo_allreduce(t, a, b, count, RTOPO_INT64, RTOPO_SUM) :
                 o == 2 ? rtopo_scan(t, a, b, count, RTOPO_INT64, RTOPO_SUM) :
                          rtopo_sort(t, a, b, count, 8, RTOPO_INT64, 0);
            check(st, ops[o]);
            if (i >= 0)
                dt[i] = now() - t0;
        }
        check(rtopo_allreduce(t, dt, mx, (size_t)iters, RTOPO_DOUBLE, RTOPO_MAX), "times");
        qsort(mx, (size_t)iters, sizeof(double), cmpd);
        if (me == 0)
            printf("%-9s %8zu B  placement %s  median %10.1f us  min %10.1f us  (%d rounds)\n",
                   ops[o], count * 8, all_moved ? "host" : "rank", mx[iters / 2] * 1e6,
                   mx[0] * 1e6, iters);
        fflush(stdout);
    }
    free(a);
    free(b);
    free(dt);
    free(mx);
    check(rtopo_topo_free(t), "rtopo_topo_free");
    check(rtopo_finalize(ctx), "rtopo_finalize");
    return 0;
}
