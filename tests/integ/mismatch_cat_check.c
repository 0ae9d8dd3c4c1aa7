/*
 * mismatch_cat_check - the catalogue of calls that disagree across ranks
 * and must fail on every rank without the timeout (rtopo(7), ERRORS
 * ACROSS RANKS).  One case per job, 4 ranks, run by mismatch_cat.sh with
 * RTOPO_TIMEOUT_MS=600000: a rank that waited for the timeout would hold
 * the job far beyond the script's limit.  Each rank sleeps a random time
 * (0 to 400 ms, seeded by MM_SEED and the rank) before the call where the
 * ranks part, so ranks arrive in every order.
 *
 *   rtopo-run -n 4 mismatch_cat_check CASE
 *
 * Every case starts with a ring and one correct allreduce on it.
 *   skip-bcast     rank 1 skips an allreduce, then every rank calls bcast
 *   skip-barrier   rank 1 skips an allreduce, then every rank calls
 *                  rtopo_barrier
 *   extra-bcast    rank 2 calls one allreduce more, then every rank calls
 *                  bcast
 *   other-coll     rank 3 calls bcast where the others call allreduce
 *   other-root     bcast, rank 2 with root 1, the others root 0
 *   other-count    allreduce, rank 0 with 2 elements, the others 1
 *   mesh-shape     rank 0 creates a 1x4 mesh, the others a 4x1 mesh, then
 *                  every rank shifts on it
 *   ring-mesh      rank 0 creates a ring, the others a 2x2 mesh
 *   extra-create   rank 0 creates a 2x2 mesh, then every rank calls
 *                  rtopo_barrier
 *   shift-null     rank 1 passes a NULL receive buffer to rtopo_shift
 *   shift-huge     rank 1 passes SIZE_MAX bytes to rtopo_shift
 *   after-barrier  every rank calls rtopo_barrier; rank 0 then at once
 *                  passes a NULL receive buffer to rtopo_shift, the
 *                  others shift correctly (the barrier completed on every
 *                  rank: it must return RTOPO_OK everywhere)
 *   after-create   every rank creates a 2x2 mesh; rank 0 then at once
 *                  passes a NULL receive buffer to rtopo_shift on it, the
 *                  others shift correctly (the creation returns RTOPO_OK)
 *
 * Output, per rank R, one line per call:
 *   "rank R: CALL -> STATUS at T: "MESSAGE""
 * with T the CLOCK_REALTIME seconds when the call returned, and
 *   "rank R: arrive at T" as the rank makes the call where ranks part
 * (before its delay's end for none: after it).  Every call after the first
 * failure is still made (a failed context must fail each of them), then
 * rtopo_finalize.  The script judges the lines; the program only reports.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rtopo.h>
#include "integ_util.h"

static int rank = -1;

static double real_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void report(const char *call, int st)
{
    printf("rank %d: %s -> %s at %.6f: \"%s\"\n", rank, call, rtopo_err_name(st), real_now(),
           st ? rtopo_last_error() : "");
    fflush(stdout);
}

static void arrive(int delay_ms)
{
    iu_nap_ms(delay_ms);
    printf("rank %d: arrive at %.6f\n", rank, real_now());
    fflush(stdout);
}

static int allreduce(rtopo_topo_t *t, size_t count)
{
    int64_t in[2] = { rank, rank }, out[2];
    int st = rtopo_allreduce(t, in, out, count, RTOPO_INT64, RTOPO_SUM);
    report("rtopo_allreduce", st);
    return st;
}

static int bcast(rtopo_topo_t *t, int root)
{
    int64_t v = rank;
    int st = rtopo_bcast(t, &v, 1, RTOPO_INT64, root);
    report("rtopo_bcast", st);
    return st;
}

static int shift(rtopo_topo_t *t, int null_recv, size_t bytes)
{
    char s[8] = { 0 }, r[8];
    int st = rtopo_shift(t, s, null_recv ? NULL : r, bytes, 1);
    report("rtopo_shift", st);
    return st;
}

static int barrier(rtopo_ctx_t *ctx)
{
    int st = rtopo_barrier(ctx);
    report("rtopo_barrier", st);
    return st;
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    const char *seed_env = getenv("MM_SEED");
    unsigned seed;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *ring = NULL, *t2 = NULL;
    int st, delay;

    if ((st = rtopo_init(NULL, &ctx)) != RTOPO_OK) {
        printf("%s: rtopo_init -> %s: \"%s\"\n", iu_env_label(), rtopo_err_name(st),
               rtopo_last_error());
        return 1;
    }
    rank = rtopo_rank(ctx);
    seed = seed_env ? (unsigned)strtoul(seed_env, NULL, 10) : (unsigned)time(NULL);
    srand(seed * 2654435761u + (unsigned)rank * 40503u);
    delay = rand() % 401;
    st = rtopo_topo_ring(ctx, &ring);
    report("rtopo_topo_ring", st);
    if (st == RTOPO_OK)
        allreduce(ring, 1);

    if (!strcmp(c, "skip-bcast") || !strcmp(c, "skip-barrier") || !strcmp(c, "extra-bcast")) {
        arrive(delay);
        if (!strcmp(c, "extra-bcast") ? rank == 2 : 0)
            allreduce(ring, 1);
        if (!(c[0] == 's' && rank == 1))
            allreduce(ring, 1);
        if (!strcmp(c, "skip-barrier"))
            barrier(ctx);
        else
            bcast(ring, 0);
    } else if (!strcmp(c, "other-coll")) {
        arrive(delay);
        if (rank == 3)
            bcast(ring, 0);
        else
            allreduce(ring, 1);
    } else if (!strcmp(c, "other-root")) {
        arrive(delay);
        bcast(ring, rank == 2 ? 1 : 0);
    } else if (!strcmp(c, "other-count")) {
        arrive(delay);
        allreduce(ring, rank == 0 ? 2 : 1);
    } else if (!strcmp(c, "mesh-shape") || !strcmp(c, "ring-mesh")) {
        arrive(delay);
        if (!strcmp(c, "mesh-shape")) {
            st = rtopo_topo_mesh(ctx, rank == 0 ? 1 : 4, rank == 0 ? 4 : 1, &t2);
            report("rtopo_topo_mesh", st);
        } else if (rank == 0) {
            st = rtopo_topo_ring(ctx, &t2);
            report("rtopo_topo_ring", st);
        } else {
            st = rtopo_topo_mesh(ctx, 2, 2, &t2);
            report("rtopo_topo_mesh", st);
        }
        shift(st == RTOPO_OK ? t2 : ring, 0, 8);
    } else if (!strcmp(c, "extra-create")) {
        arrive(delay);
        if (rank == 0) {
            st = rtopo_topo_mesh(ctx, 2, 2, &t2);
            report("rtopo_topo_mesh", st);
        }
        barrier(ctx);
    } else if (!strcmp(c, "shift-null") || !strcmp(c, "shift-huge")) {
        arrive(delay);
        if (rank == 1)
            shift(ring, c[6] == 'n', c[6] == 'n' ? 8 : SIZE_MAX);
        else
            shift(ring, 0, 8);
    } else if (!strcmp(c, "after-barrier")) {
        arrive(delay);
        barrier(ctx);
        shift(ring, rank == 0, 8);
    } else if (!strcmp(c, "after-create")) {
        arrive(delay);
        st = rtopo_topo_mesh(ctx, 2, 2, &t2);
        report("rtopo_topo_mesh", st);
        shift(st == RTOPO_OK ? t2 : ring, rank == 0, 8);
    } else {
        printf("rank %d: unknown case '%s'\n", rank, c);
    }
    /* a failed context fails every later call */
    barrier(ctx);
    st = rtopo_finalize(ctx);
    report("rtopo_finalize", st);
    return 0;
}
