/*
 * topo_api.c - creating and freeing virtual topologies.
 *
 * A topology is collective: every rank creates the same topologies in the
 * same order (they are numbered by creation).  Creation connects the rank
 * to its overlay neighbours and completes the connections (job.c, wire-up)
 * so the first operation does not pay for them; algorithms that need
 * other peers (the direct shift) connect them when their plan is first
 * built.  A sub-topology (rtopo_topo_sub) is a piece of another: its
 * labels map to the parent's job ranks (t->rmap), every rank creates its
 * own piece under the same id, and its overlay neighbours, usually the
 * parent's, need no new connection.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "topo_api.h"
#include "calib.h"
#include "engine.h"
#include "job.h"
#include "exec.h"
#include "req.h"
#include "rtopo_place.h"

/* The descriptor and the labels of a hypercube fed by job rank `host`
 * (rtopo_topo_hypercube_host): with 2^dim + 1 ranks the host is outside
 * the cube (label 2^dim) and the nodes are the other ranks in order; with
 * 2^dim ranks the host is cube node `host`. */
static int rtopo__topo_host(rtopo_topo_t *t, int size, int rank, int dim, int host)
{
    int p, r, st;

    if (dim < 0 || dim > 30)
        return rtopo__error(RTOPO_ERR_INVAL, "hypercube dimension %d out of 0..30", dim);
    p = 1 << dim;
    if (host < 0 || host >= size)
        return rtopo__error(RTOPO_ERR_INVAL, "host rank %d out of 0..%d", host, size - 1);
    if (size != p && size != p + 1)
        return rtopo__error(RTOPO_ERR_TOPO, "a hypercube of dimension %d with a host needs "
                            "%d ranks (host outside the cube) or %d (host on a node); the "
                            "job has %d", dim, p + 1, p, size);
    if ((st = rtopo__tdesc_init(&t->desc, RTOPO__TOPO_HYPERCUBE, p, dim, 0)))
        return st;
    t->host = host;
    t->host_node = host;
    if (size == p)
        return RTOPO_OK;
    if ((st = rtopo__tdesc_add_host(&t->desc)))
        return st;
    t->host_node = -1;
    t->rmap = malloc((size_t)(p + 1) * sizeof(*t->rmap));
    if (!t->rmap)
        return RTOPO_ERR_NOMEM;
    for (r = 0; r < p; r++)
        t->rmap[r] = r < host ? r : r + 1;
    t->rmap[p] = host;
    t->me = rank == host ? p : rank < host ? rank : rank - 1;
    return RTOPO_OK;
}

/* The piece of `parent` that holds this rank when the dimensions in
 * `keep` are kept (rtopo_topo_sub): its descriptor, this rank's label in
 * it, and the job rank of every label. */
static int rtopo__topo_piece(rtopo_topo_t *t, const rtopo_topo_t *parent, unsigned keep)
{
    int mine, piece, r, lab, st;

    if ((st = rtopo__cart_sub(&parent->desc, keep, &t->desc)))
        return st;
    if ((lab = rtopo__cart_sub_label(&parent->desc, keep, parent->me, &mine)) < 0)
        return lab;
    t->me = lab;
    /* ranks that keep other dimensions may get pieces of the same shape:
     * the mask goes into the HELLO and every signature on the piece */
    t->piece = (uint16_t)(((keep ^ (keep >> 15) ^ (keep >> 30)) & 0x7fffu) | 0x8000u);
    t->rmap = malloc((size_t)t->desc.p * sizeof(*t->rmap));
    if (!t->rmap)
        return RTOPO_ERR_NOMEM;
    for (r = 0; r < parent->desc.p; r++) {
        if ((lab = rtopo__cart_sub_label(&parent->desc, keep, r, &piece)) < 0)
            return lab;
        if (piece == mine)
            t->rmap[lab] = rtopo__topo_job_rank(parent, r);
    }
    return RTOPO_OK;
}

/* The placement of a new topology's labels on the job's ranks by host
 * (RTOPO_PLACE, rtopo_set_place; the map is topo/place.c's, alike on
 * every rank): t->rmap, t->me and the host's node follow it.  Hosts of
 * uneven sizes keep the rank placement with a debug line, or fail with
 * RTOPO_ERR_INVAL when host placement was asked for. */
static int rtopo__topo_place(rtopo_topo_t *t, const rtopo_ctx_t *ctx, int mode)
{
    int p = t->desc.p, nh = 0, r, h, lab, st;
    int *hostof = malloc(sizeof(int) * (size_t)ctx->size), *map = malloc(sizeof(int) * (size_t)p);
    char why[256], line[512];
    size_t off;

    st = RTOPO_ERR_NOMEM;
    if (!hostof || !map)
        goto out;
    for (r = 0; r < ctx->size; r++) {
        for (h = 0; h < r && strcmp(ctx->peers[h].host, ctx->peers[r].host); h++)
            ;
        hostof[r] = h == r ? nh++ : hostof[h];
    }
    st = RTOPO_OK;
    if (nh < 2)
        goto out;
    if (mode == RTOPO__PLACE_AUTO) {
        rtopo__model_t m;

        rtopo__model_place(ctx, &m);
        st = rtopo__place_auto(&t->desc, t->rmap, hostof, &m, map, why, sizeof(why));
    } else {
        st = rtopo__place_map(&t->desc, t->rmap, hostof, mode, map, why, sizeof(why));
    }
    if (st < 0)
        goto out;
    if (st == 0) {
        if (mode != RTOPO__PLACE_RANK)
            rtopo__debug("%s over %d hosts: %s", rtopo__topo_name(t->desc.kind), nh, why);
        st = RTOPO_OK;
        goto out;
    }
    st = RTOPO_OK;
    for (lab = 0; lab < p && map[lab] == lab; lab++)
        ;
    free(t->rmap);
    t->rmap = NULL;
    if (lab < p) {
        t->rmap = map;
        map = NULL;
    }
    for (lab = 0; lab < p; lab++) {
        r = rtopo__topo_job_rank(t, lab);
        if (r == ctx->rank)
            t->me = lab;
        if (t->host_node >= 0 && r == t->host)
            t->host_node = lab;
    }
    off = (size_t)snprintf(line, sizeof(line), "%s over %d hosts placed by host, labels:",
                           rtopo__topo_name(t->desc.kind), nh);
    for (lab = 0; lab < p && off < sizeof(line); lab = r) {
        h = hostof[rtopo__topo_job_rank(t, lab)];
        for (r = lab + 1; r < p && hostof[rtopo__topo_job_rank(t, r)] == h; r++)
            ;
        off += (size_t)snprintf(line + off, sizeof(line) - off, " %d-%d:%s", lab, r - 1,
                                ctx->peers[rtopo__topo_job_rank(t, lab)].host);
    }
    rtopo__debug("%s", line);
out:
    free(hostof);
    free(map);
    return st;
}

static int rtopo__topo_make(rtopo_ctx_t *ctx, int kind, int a, int b, int host,
                            const rtopo_topo_t *parent, unsigned keep,
                            rtopo_topo_t **topo_p);

/* The host of every label, numbered by first appearance in job rank
 * order (alike on every rank); left empty when the job has one host. */
static int rtopo__topo_layout(rtopo_topo_t *t, const rtopo_ctx_t *ctx)
{
    int p = t->desc.p, r, j, k, nh = 0;
    uint32_t *hid = malloc(sizeof(uint32_t) * (size_t)ctx->size), *host;

    if (!hid)
        return RTOPO_ERR_NOMEM;
    for (r = 0; r < ctx->size; r++) {
        for (j = 0; j < r && strcmp(ctx->peers[j].host, ctx->peers[r].host); j++)
            ;
        hid[r] = j == r ? (uint32_t)nh++ : hid[j];
    }
    if (nh < 2) {
        free(hid);
        return RTOPO_OK;
    }
    if (!(host = malloc(sizeof(uint32_t) * (size_t)p))) {
        free(hid);
        return RTOPO_ERR_NOMEM;
    }
    for (k = 0; k < p; k++)
        host[k] = hid[rtopo__topo_job_rank(t, k)];
    free(hid);
    t->layout = (rtopo__layout_t){ (uint32_t)p, host };
    return RTOPO_OK;
}

static int rtopo__topo_new(rtopo_ctx_t *ctx, int kind, int a, int b, int host,
                           rtopo_topo_t **topo_p)
{
    return rtopo__topo_make(ctx, kind, a, b, host, NULL, 0, topo_p);
}

static int rtopo__topo_make(rtopo_ctx_t *ctx, int kind, int a, int b, int host,
                            const rtopo_topo_t *parent, unsigned keep,
                            rtopo_topo_t **topo_p)
{
    rtopo_topo_t *t;
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
    t->me = ctx->rank;
    t->host = -1;
    t->host_node = -1;
    t->scatter_x = -1;
    t->scatter_algo = rtopo__scatter_algo_parse(ctx->params.scatter_algo, &t->scatter_x);
    t->coll_algo = rtopo__coll_algo_parse(ctx->params.coll_algo);
    if (parent)
        st = rtopo__topo_piece(t, parent, keep);
    else if (host >= 0)
        st = rtopo__topo_host(t, ctx->size, ctx->rank, a, host);
    else
        st = rtopo__tdesc_init(&t->desc, kind, ctx->size, a, b);
    if (st == RTOPO_OK && !parent)
        st = rtopo__topo_place(t, ctx, ctx->place);
    if (st == RTOPO_OK)
        st = rtopo__topo_layout(t, ctx);
    if (st)
        goto err;
    t->ctx = ctx;
    t->shift_algo = rtopo__shift_algo_parse(ctx->params.shift_algo);   /* checked at init */
    /* the variable is global: a topology it does not apply to keeps auto
     * (rtopo_topo_set_shift_algo, in contrast, refuses) */
    if (t->desc.host)   /* no shift with a host outside the cube */
        t->shift_algo = RTOPO_SHIFT_AUTO;
    else if (t->shift_algo != RTOPO_SHIFT_AUTO &&
             rtopo__shift_check(&t->desc, t->shift_algo) == RTOPO_OK)
        ;   /* it applies: no schedule built before the first shift */
    else if (t->shift_algo != RTOPO_SHIFT_AUTO) {
        rtopo__info("RTOPO_SHIFT_ALGO=%s does not apply to a %s: auto", ctx->params.shift_algo,
                    rtopo__topo_name(t->desc.kind));
        t->shift_algo = RTOPO_SHIFT_AUTO;
    }
    n = rtopo__topo_neighbors(&t->desc, t->me, NULL, 0);
    t->nbr = calloc((size_t)n + 1, sizeof(int));
    if (!t->nbr) {
        st = RTOPO_ERR_NOMEM;
        goto err;
    }
    t->nnbr = rtopo__topo_neighbors(&t->desc, t->me, t->nbr, n);
    for (i = 0; i < t->nnbr; i++) {
        t->nbr[i] = rtopo__topo_job_rank(t, t->nbr[i]);
        if ((st = rtopo__connect_peer(ctx, t->nbr[i])))
            goto err;
    }
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
    /* the cost model of its auto choices: measuring it is collective; a
     * piece of a topology takes its parent's (the pieces would otherwise
     * each measure their own pairs, and not alike) */
    if (parent)
        t->model = parent->model;
    else if ((st = rtopo__topo_model(t))) {
        char why[256];

        /* The job failed during the measurement, for a reason other than
         * this creation: every neighbour created the same topology (the
         * wire-up is done), so the creation is complete and returns it;
         * the failure comes at the next call (rtopo(7), The failed
         * context).  A timeout of the measurement itself is reported here. */
        if (ctx->failed && ctx->failed != RTOPO_ERR_TIMEOUT &&
            !(ctx->fail_topo == t->id && ctx->fail_seq == RTOPO__NOSEQ)) {
            t->model = ctx->model;
            goto done;
        }

        /* the job has failed; a measurement still in flight keeps the
         * topology until rtopo_finalize frees it */
        snprintf(why, sizeof(why), "%s", rtopo_last_error());
        rtopo_topo_free(t);
        return rtopo__error_quiet(st, "%s", why);
    }
done:
    t->model.layout = t->layout.host ? &t->layout : NULL;
    *topo_p = t;
    return RTOPO_OK;
err:
    free(t->nbr);
    free((void *)t->layout.host);
    free(t->rmap);
    free(t);
    rtopo__ctx_leave(ctx);
    return st;
}

int rtopo_topo_ring(rtopo_ctx_t *ctx, rtopo_topo_t **topo)
{
    return rtopo__topo_new(ctx, RTOPO__TOPO_RING, 0, 0, -1, topo);
}

int rtopo_topo_mesh(rtopo_ctx_t *ctx, int rows, int cols, rtopo_topo_t **topo)
{
    return rtopo__topo_new(ctx, RTOPO__TOPO_MESH, rows, cols, -1, topo);
}

int rtopo_topo_hypercube(rtopo_ctx_t *ctx, int dim, rtopo_topo_t **topo)
{
    return rtopo__topo_new(ctx, RTOPO__TOPO_HYPERCUBE, dim, 0, -1, topo);
}

int rtopo_topo_hypercube_host(rtopo_ctx_t *ctx, int dim, int host, rtopo_topo_t **topo)
{
    if (host < 0)
        return rtopo__error(RTOPO_ERR_INVAL, "host rank %d is negative", host);
    return rtopo__topo_new(ctx, RTOPO__TOPO_HYPERCUBE, dim, 0, host, topo);
}

int rtopo_topo_otis_mesh(rtopo_ctx_t *ctx, int n, rtopo_topo_t **topo)
{
    return rtopo__topo_new(ctx, RTOPO__TOPO_OTIS_MESH, n, 0, -1, topo);
}

int rtopo_topo_otis_hypercube(rtopo_ctx_t *ctx, int n, rtopo_topo_t **topo)
{
    return rtopo__topo_new(ctx, RTOPO__TOPO_OTIS_HYPERCUBE, n, 0, -1, topo);
}

int rtopo_topo_sub(rtopo_topo_t *parent, unsigned keep, rtopo_topo_t **sub)
{
    if (!parent)
        return rtopo__error(RTOPO_ERR_INVAL, "topology is NULL");
    if (!rtopo__handle_ok(parent, RTOPO__H_TOPO))
        return rtopo__error(RTOPO_ERR_INVAL, "topology %p is not live (freed, or its "
                            "context finalized)", (void *)parent);
    return rtopo__topo_make(parent->ctx, 0, 0, 0, -1, parent, keep, sub);
}

int rtopo_set_place(rtopo_ctx_t *ctx, rtopo_place_t place)
{
    int st;

    if (place != RTOPO_PLACE_AUTO && place != RTOPO_PLACE_RANK && place != RTOPO_PLACE_HOST)
        return rtopo__error(RTOPO_ERR_INVAL, "unknown placement %d (RTOPO_PLACE_AUTO, "
                            "RTOPO_PLACE_RANK or RTOPO_PLACE_HOST)", (int)place);
    if ((st = rtopo__ctx_enter(ctx)))
        return st;
    ctx->place = (int)place;
    rtopo__ctx_leave(ctx);
    return RTOPO_OK;
}

int rtopo_topo_rank(const rtopo_topo_t *t)
{
    if (!rtopo__handle_ok(t, RTOPO__H_TOPO))
        return rtopo__error(RTOPO_ERR_INVAL, "not a live topology");
    return t->me;   /* a host outside the cube: 2^dim, one past the nodes */
}

int rtopo_topo_size(const rtopo_topo_t *t)
{
    if (!rtopo__handle_ok(t, RTOPO__H_TOPO))
        return rtopo__error(RTOPO_ERR_INVAL, "not a live topology");
    return t->desc.p - (t->desc.host ? 1 : 0);
}

int rtopo_topo_set_shift_algo(rtopo_topo_t *t, rtopo_shift_algo_t algo)
{
    int st;

    if (!rtopo__handle_ok(t, RTOPO__H_TOPO))
        return rtopo__error(RTOPO_ERR_INVAL, "not a live topology");
    if (algo < RTOPO_SHIFT_AUTO || algo > RTOPO_SHIFT_DIRECT)
        return rtopo__error(RTOPO_ERR_INVAL, "unknown shift algorithm %d", (int)algo);
    if (t->desc.host)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "no shift on a topology whose host is "
                            "outside the cube");
    if ((st = rtopo__ctx_enter(t->ctx)))
        return st;
    /* refuse now an algorithm that does not apply to this topology */
    st = rtopo__shift_check(&t->desc, algo);
    if (st == RTOPO_OK)
        t->shift_algo = algo;
    rtopo__ctx_leave(t->ctx);
    return st;
}

void rtopo__topo_destroy(rtopo_topo_t *t)
{
    int i;

    rtopo__req_release(t->spare);
    for (i = 0; i < RTOPO__PLAN_CACHE; i++)
        rtopo__plan_put(t->cache[i]);
    t->ctx->topos[t->id] = NULL;
    rtopo__handle_del(t);
    free(t->flow);
    free(t->nbr);
    free((void *)t->layout.host);
    free(t->rmap);
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
