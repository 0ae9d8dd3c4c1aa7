/*
 * plans_check.c - what plans a rank builds, and what they hold.
 *
 *   plans_check
 *
 * Every rank of the job (16 ranks: a power of two and a square) creates
 * a topology of each kind that fits it (ring, mesh 4 x 4, hypercube,
 * OTIS-mesh and OTIS-hypercube of 4 groups of 4, a hypercube with its host
 * on node 0) and checks that creating it built no plan (the job runs with
 * RTOPO_MODEL=default: no measurement, whose own plans are not counted
 * here).  Then, on each, a bcast, the same bcast again, an allreduce and
 * a shift: one plan for each new call and none for the repeated one, and
 * every plan holds this rank's share of its schedule alone: transfers
 * that touch it, kernels it runs, edges on it, fewer transfers than the
 * whole graph.  The bcast and allreduce results are checked.
 * It reads the count and the plans from the context: linked with the core.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "ctx.h"
#include "exec.h"

static int me = -1;

#define FAIL(...) do { fprintf(stderr, "[%d] FAIL: ", me); fprintf(stderr, __VA_ARGS__); \
                       fputc('\n', stderr); exit(1); } while (0)

/* every cached plan of t holds t's rank's share */
static void check_shares(rtopo_topo_t *t, const char *name)
{
    int i, n = 0;

    for (i = 0; i < RTOPO__PLAN_CACHE; i++) {
        const rtopo__plan_t *pl = t->cache[i];
        const rtopo__sched_t *s;
        uint32_t x, k;

        if (!pl)
            continue;
        n++;
        s = pl->sched;
        if (s->own != t->me + 1)
            FAIL("%s: a plan holds the share of %d, not of label %d", name, s->own - 1,
                 t->me);
        for (x = 0; x < s->nxfers; x++) {
            const rtopo__xfer_t xfv = rtopo__sched_xfer(s, x), *xf = &xfv;
            int hit = xf->src == t->me || xf->dst == t->me;

            for (k = 0; k < xf->nhops; k++)
                hit |= s->hops[xf->hop0 + k].to == t->me;
            if (!hit)
                FAIL("%s: transfer %u (%d -> %d) does not touch label %d", name, x,
                     xf->src, xf->dst, t->me);
            if (x && rtopo__sched_xid(s, x) <= rtopo__sched_xid(s, x - 1))
                FAIL("%s: transfer numbers do not increase", name);
        }
        for (k = 0; k < s->nkerns; k++)
            if (s->kerns[k].rank != t->me)
                FAIL("%s: kernel %u runs on %d", name, k, s->kerns[k].rank);
        for (k = 0; k < s->ndeps; k++)
            if (s->deps[k].rank != t->me)
                FAIL("%s: edge %u is on %d", name, k, s->deps[k].rank);
        if (s->nxfers > s->nxall || (s->topo.p > 4 && s->nxfers == s->nxall))
            FAIL("%s: %u of the whole graph's %u transfers kept", name, s->nxfers,
                 s->nxall);
    }
    if (n == 0)
        FAIL("%s: no plan cached", name);
}

static void run(rtopo_ctx_t *ctx, rtopo_topo_t *t, const char *name)
{
    int p = rtopo_topo_size(t), r = rtopo_topo_rank(t), st, i;
    uint64_t before = ctx->plans_built;
    int64_t v[4], sum[4];
    char sb[64], rb[64];

    if (r < 0)          /* the host outside the cube: no collectives */
        return;
    for (i = 0; i < 2; i++) {
        v[0] = r == p / 2 ? 4242 : -1;
        if ((st = rtopo_bcast(t, v, 1, RTOPO_INT64, p / 2)))
            FAIL("%s: bcast: %s: %s", name, rtopo_err_name(st), rtopo_last_error());
        if (v[0] != 4242)
            FAIL("%s: bcast gave %lld", name, (long long)v[0]);
        if (ctx->plans_built != before + 1)
            FAIL("%s: bcast %d: %llu plans built, expected 1", name, i,
                 (unsigned long long)(ctx->plans_built - before));
    }
    for (i = 0; i < 4; i++)
        v[i] = r + i;
    if ((st = rtopo_allreduce(t, v, sum, 4, RTOPO_INT64, RTOPO_SUM)))
        FAIL("%s: allreduce: %s: %s", name, rtopo_err_name(st), rtopo_last_error());
    for (i = 0; i < 4; i++)
        if (sum[i] != (int64_t)p * (p - 1) / 2 + (int64_t)p * i)
            FAIL("%s: allreduce element %d: %lld", name, i, (long long)sum[i]);
    memset(sb, r, sizeof sb);
    if ((st = rtopo_shift(t, sb, rb, sizeof sb, 1)))
        FAIL("%s: shift: %s: %s", name, rtopo_err_name(st), rtopo_last_error());
    if (rb[0] != (char)((r - 1 + p) % p))
        FAIL("%s: shift gave %d", name, rb[0]);
    if (ctx->plans_built != before + 3)
        FAIL("%s: %llu plans built for bcast, allreduce and shift, expected 3", name,
             (unsigned long long)(ctx->plans_built - before));
    check_shares(t, name);
}

int main(void)
{
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    uint64_t b;
    int st, k;
    static const char *const names[6] = { "ring", "mesh 4x4", "hypercube 4",
                                          "otis-mesh 4", "otis-hypercube 4",
                                          "hypercube 4 with host on node 0" };

    if ((st = rtopo_init(NULL, &ctx)))
        FAIL("rtopo_init: %s", rtopo_last_error());
    me = rtopo_rank(ctx);
    if (rtopo_size(ctx) != 16)
        FAIL("run on 16 ranks, not %d", rtopo_size(ctx));
    for (k = 0; k < 6; k++) {
        b = ctx->plans_built;
        st = k == 0 ? rtopo_topo_ring(ctx, &t) :
             k == 1 ? rtopo_topo_mesh(ctx, 4, 4, &t) :
             k == 2 ? rtopo_topo_hypercube(ctx, 4, &t) :
             k == 3 ? rtopo_topo_otis_mesh(ctx, 4, &t) :
             k == 4 ? rtopo_topo_otis_hypercube(ctx, 4, &t) :
                      rtopo_topo_hypercube_host(ctx, 4, 0, &t);
        if (st)
            FAIL("%s: %s: %s", names[k], rtopo_err_name(st), rtopo_last_error());
        if (ctx->plans_built != b)
            FAIL("%s: creating it built %llu plan(s)", names[k],
                 (unsigned long long)(ctx->plans_built - b));
        run(ctx, t, names[k]);
        if ((st = rtopo_topo_free(t)))
            FAIL("%s: free: %s", names[k], rtopo_last_error());
    }
    if ((st = rtopo_finalize(ctx)))
        FAIL("rtopo_finalize: %s", rtopo_last_error());
    printf("rank %d: ok\n", me);
    return 0;
}
