/*
 * topo_api.c - creating and freeing virtual topologies.
 *
 * A topology is collective: every rank creates the same topologies in the
 * same order (they are numbered by creation).  Creation connects the rank
 * to its overlay neighbours and completes the connections (job.c, wire-up)
 * so the first operation does not pay for them; algorithms that need
 * other peers (the direct shift) connect them when their plan is first
 * built.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo_int.h"

static int rtopo__topo_new(rtopo_ctx_t *ctx, int kind, int a, int b, rtopo_topo_t **topo_p)
{
    rtopo_topo_t *t;
    rtopo__sched_t *probe;
    int st, i, n;

    if (!topo_p)
        return rtopo__error(RTOPO_ERR_INVAL, "result pointer is NULL");
    if ((st = rtopo__ctx_enter(ctx)))
        return st;
    t = calloc(1, sizeof(*t));
    if (!t) {
        rtopo__ctx_leave(ctx);
        return RTOPO_ERR_NOMEM;
    }
    st = rtopo__tdesc_init(&t->desc, kind, ctx->size, a, b);
    if (st)
        goto err;
    t->ctx = ctx;
    t->shift_algo = rtopo__shift_algo_parse(ctx->params.shift_algo);   /* checked at init */
    /* the variable is global: a topology it does not apply to keeps auto
     * (rtopo_topo_set_shift_algo, in contrast, refuses) */
    if (t->shift_algo != RTOPO_SHIFT_AUTO &&
        rtopo__sched_shift(&t->desc, t->shift_algo, 1, 0, &ctx->model, &probe) == RTOPO_OK)
        rtopo__sched_free(probe);
    else if (t->shift_algo != RTOPO_SHIFT_AUTO) {
        rtopo__info("RTOPO_SHIFT_ALGO=%s does not apply to a %s: auto", ctx->params.shift_algo,
                    rtopo__topo_name(kind));
        t->shift_algo = RTOPO_SHIFT_AUTO;
    }
    n = rtopo__topo_neighbors(&t->desc, ctx->rank, NULL, 0);
    t->nbr = calloc((size_t)n + 1, sizeof(int));
    if (!t->nbr) {
        st = RTOPO_ERR_NOMEM;
        goto err;
    }
    t->nnbr = rtopo__topo_neighbors(&t->desc, ctx->rank, t->nbr, n);
    for (i = 0; i < t->nnbr; i++)
        if ((st = rtopo__connect_peer(ctx, t->nbr[i])))
            goto err;
    if (ctx->next_topo_id >= ctx->ntopos_alloc) {
        uint32_t na = ctx->ntopos_alloc ? 2 * ctx->ntopos_alloc : 16;
        rtopo_topo_t **nt = realloc(ctx->topos, na * sizeof(*nt));
        struct rtopo__tlast *nl;

        if (nt)
            ctx->topos = nt;
        nl = nt ? realloc(ctx->tlast, na * sizeof(*nl)) : NULL;
        if (!nl) {
            st = RTOPO_ERR_NOMEM;
            goto err;
        }
        ctx->tlast = nl;
        memset(nt + ctx->ntopos_alloc, 0, (na - ctx->ntopos_alloc) * sizeof(*nt));
        memset(nl + ctx->ntopos_alloc, 0, (na - ctx->ntopos_alloc) * sizeof(*nl));
        ctx->ntopos_alloc = na;
    }
    t->id = ctx->next_topo_id++;
    ctx->topos[t->id] = t;
    if ((st = rtopo__wireup(t)) || (st = rtopo__handle_add(t, RTOPO__H_TOPO))) {
        ctx->topos[t->id] = NULL;
        goto err;
    }
    rtopo__ctx_leave(ctx);
    *topo_p = t;
    return RTOPO_OK;
err:
    free(t->nbr);
    free(t);
    rtopo__ctx_leave(ctx);
    return st;
}

int rtopo_topo_ring(rtopo_ctx_t *ctx, rtopo_topo_t **topo)
{
    return rtopo__topo_new(ctx, RTOPO__TOPO_RING, 0, 0, topo);
}

int rtopo_topo_mesh(rtopo_ctx_t *ctx, int rows, int cols, rtopo_topo_t **topo)
{
    return rtopo__topo_new(ctx, RTOPO__TOPO_MESH, rows, cols, topo);
}

int rtopo_topo_hypercube(rtopo_ctx_t *ctx, int dim, rtopo_topo_t **topo)
{
    return rtopo__topo_new(ctx, RTOPO__TOPO_HYPERCUBE, dim, 0, topo);
}

int rtopo_topo_otis_mesh(rtopo_ctx_t *ctx, int n, rtopo_topo_t **topo)
{
    return rtopo__topo_new(ctx, RTOPO__TOPO_OTIS_MESH, n, 0, topo);
}

int rtopo_topo_otis_hypercube(rtopo_ctx_t *ctx, int n, rtopo_topo_t **topo)
{
    return rtopo__topo_new(ctx, RTOPO__TOPO_OTIS_HYPERCUBE, n, 0, topo);
}

int rtopo_topo_set_shift_algo(rtopo_topo_t *t, rtopo_shift_algo_t algo)
{
    rtopo__sched_t *s;
    int st;

    if (!rtopo__handle_ok(t, RTOPO__H_TOPO))
        return rtopo__error(RTOPO_ERR_INVAL, "not a live topology");
    if (algo < RTOPO_SHIFT_AUTO || algo > RTOPO_SHIFT_DIRECT)
        return rtopo__error(RTOPO_ERR_INVAL, "unknown shift algorithm %d", (int)algo);
    if ((st = rtopo__ctx_enter(t->ctx)))
        return st;
    /* refuse now an algorithm that does not apply to this topology */
    st = rtopo__sched_shift(&t->desc, algo, 1, 0, &t->ctx->model, &s);
    if (st == RTOPO_OK) {
        rtopo__sched_free(s);
        t->shift_algo = algo;
    }
    rtopo__ctx_leave(t->ctx);
    return st;
}

void rtopo__topo_destroy(rtopo_topo_t *t)
{
    int i;

    for (i = 0; i < RTOPO__PLAN_CACHE; i++)
        rtopo__plan_put(t->cache[i]);
    t->ctx->topos[t->id] = NULL;
    rtopo__handle_del(t);
    free(t->nbr);
    free(t);
}

int rtopo_topo_free(rtopo_topo_t *t)
{
    rtopo_ctx_t *ctx;
    int st;

    if (!t)
        return rtopo__error(RTOPO_ERR_INVAL, "topology is NULL");
    if (!rtopo__handle_ok(t, RTOPO__H_TOPO))
        return rtopo__error(RTOPO_ERR_INVAL, "topology %p is not live (freed already, or "
                            "freed by rtopo_finalize)", (void *)t);
    ctx = t->ctx;
    if ((st = rtopo__ctx_enter(ctx)))
        return st;
    if (t->nreqs) {
        rtopo__ctx_leave(ctx);
        return rtopo__error(RTOPO_ERR_BUSY, "%d request(s) on this topology still exist: "
                            "rtopo_req_free them first", t->nreqs);
    }
    rtopo__topo_destroy(t);
    rtopo__ctx_leave(ctx);
    return RTOPO_OK;
}
