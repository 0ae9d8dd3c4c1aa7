/*
 * ctx.c - rtopo_init/rtopo_finalize: bootstrap, transport, address
 * exchange, failure bookkeeping.
 */
#include "config.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rtopo_int.h"

#define RTOPO__CTRL_HDR 128
/* fields a caller compiled against an older rtopo.h did not have are
 * left at their defaults */
#define RTOPO__CFG_HAS(cfg, field)                                            \
    ((cfg) && (cfg)->size >= offsetof(rtopo_config_t, field) + sizeof((cfg)->field))

uint64_t rtopo__now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *rtopo_version(void)
{
    return PACKAGE_VERSION;
}

int rtopo_rank(const rtopo_ctx_t *ctx)
{
    return ctx ? ctx->rank : RTOPO_ERR_INVAL;
}

int rtopo_size(const rtopo_ctx_t *ctx)
{
    return ctx ? ctx->size : RTOPO_ERR_INVAL;
}

/* all ranks must agree on the settings that shape the wire protocol */
static int rtopo__check_uniform(rtopo_ctx_t *ctx)
{
    const rtopo__peer_info_t *me = &ctx->peers[ctx->rank];
    int i;

    for (i = 0; i < ctx->size; i++) {
        const rtopo__peer_info_t *p = &ctx->peers[i];
        if (strcmp(p->transport, me->transport))
            return rtopo__error(RTOPO_ERR_MISMATCH, "rank %d opened transport %s, rank %d "
                                "%s: set RTOPO_TRANSPORT alike on every rank", i,
                                p->transport, ctx->rank, me->transport);
        if (p->eager_limit != me->eager_limit || p->chunk_size != me->chunk_size ||
            p->pipeline_depth != me->pipeline_depth)
            return rtopo__error(RTOPO_ERR_MISMATCH,
                                "rank %d runs with RTOPO_EAGER_LIMIT=%llu "
                                "RTOPO_CHUNK_SIZE=%llu RTOPO_PIPELINE_DEPTH=%lld, rank %d "
                                "with %llu/%llu/%lld: set them alike on every rank",
                                i, (unsigned long long)p->eager_limit,
                                (unsigned long long)p->chunk_size,
                                (long long)p->pipeline_depth, ctx->rank,
                                (unsigned long long)me->eager_limit,
                                (unsigned long long)me->chunk_size,
                                (long long)me->pipeline_depth);
    }
    return RTOPO_OK;
}

static void rtopo__ctx_free(rtopo_ctx_t *ctx)
{
    rtopo__umsg_t *u;
    rtopo__pend_t *p;

    if (ctx->tl)
        ctx->tlops->close(ctx->tl);
    if (ctx->boot)
        rtopo__boot_close(ctx->boot);
    while ((u = ctx->unexp)) {
        ctx->unexp = u->next;
        free(u);
    }
    while ((p = ctx->pend)) {
        ctx->pend = p->next;
        free(p);
    }
    free(ctx->topos);
    free(ctx->peers);
    free(ctx->connected);
    free(ctx->slots);
    free(ctx->slot_free);
    free(ctx->msgbuf);
    free(ctx);
}

int rtopo_init(const rtopo_config_t *cfg, rtopo_ctx_t **ctx_p)
{
    rtopo__tl_params_t tp;
    rtopo__peer_info_t me;
    rtopo_ctx_t *ctx;
    const char *transport;
    size_t alen;
    uint32_t i;
    int st;

    if (ctx_p == NULL)
        return rtopo__error(RTOPO_ERR_INVAL, "ctx pointer is NULL");
    if (cfg && cfg->size < sizeof(size_t))
        return rtopo__error(RTOPO_ERR_INVAL, "cfg->size not set (use RTOPO_CONFIG_INIT)");
    ctx = calloc(1, sizeof(*ctx));
    if (!ctx)
        return RTOPO_ERR_NOMEM;
    st = rtopo__params_load(&ctx->params);
    if (st)
        goto err;
    rtopo__log_set_level(ctx->params.log_level);
    rtopo__params_warn_unknown();
    ctx->timeout_ms = (int)ctx->params.timeout_ms;
    if (RTOPO__CFG_HAS(cfg, timeout_ms) && cfg->timeout_ms > 0)
        ctx->timeout_ms = cfg->timeout_ms;
    if (ctx->timeout_ms <= 0) {
        st = rtopo__error(RTOPO_ERR_INVAL, "RTOPO_TIMEOUT_MS must be positive");
        goto err;
    }
    if (ctx->params.chunk_size < 4096 || ctx->params.pipeline_depth < 1 ||
        ctx->params.pipeline_depth > 64 || ctx->params.eager_limit > (1u << 20)) {
        st = rtopo__error(RTOPO_ERR_INVAL, "RTOPO_CHUNK_SIZE must be >= 4096, "
                          "RTOPO_PIPELINE_DEPTH in 1..64, RTOPO_EAGER_LIMIT <= 1 MiB");
        goto err;
    }
    rtopo__model_default(&ctx->model);
    ctx->model.chunk = ctx->params.chunk_size;

    st = rtopo__boot_open(cfg, ctx->params.boot, ctx->timeout_ms, &ctx->boot);
    if (st)
        goto err;
    ctx->rank = ctx->boot->rank;
    ctx->size = ctx->boot->size;
    rtopo__log_rank = ctx->rank;

    transport = RTOPO__CFG_HAS(cfg, transport) && cfg->transport ? cfg->transport
                                                                 : ctx->params.transport;
    ctx->ctrl_size = RTOPO__CTRL_HDR + ctx->params.eager_limit;
    tp.rank = ctx->rank;
    tp.nranks = ctx->size;
    tp.timeout_ms = ctx->timeout_ms;
    tp.ctrl_size = ctx->ctrl_size;
    if (!strcmp(transport, "auto")) {
        /* the first usable backend that also opens (a device may be
         * active yet unusable, e.g. without an IPv4 address) */
        const struct rtopo__tl_ops *ops;
        st = RTOPO_ERR_TRANSPORT;
        for (i = 0; (ops = rtopo__tl_get((int)i)) != NULL && st; i++) {
            if (!ops->available(NULL))
                continue;
            tp.name = ops->name;
            ctx->tlops = ops;
            st = ops->open(&tp, &ctx->tl);
            if (st)
                rtopo__info("transport %s is present but did not open: %s", ops->name,
                            rtopo_last_error());
        }
        if (st) {
            rtopo__error(st, "no transport could be opened (rtopo-info lists them)");
            ctx->tl = NULL;
            goto err;
        }
    } else {
        ctx->tlops = rtopo__tl_find(transport);
        if (!ctx->tlops) {
            st = rtopo__error(RTOPO_ERR_TRANSPORT, "no transport matches '%s'; "
                              "rtopo-info lists what is built and usable", transport);
            goto err;
        }
        tp.name = transport;
        st = ctx->tlops->open(&tp, &ctx->tl);
        if (st)
            goto err;
    }
    ctx->tlops->query(ctx->tl, &ctx->tlattr);

    memset(&me, 0, sizeof(me));
    alen = sizeof(me.addr);
    st = ctx->tlops->addr_get(ctx->tl, me.addr, &alen);
    if (st)
        goto err;
    me.addr_len = (uint32_t)alen;
    snprintf(me.host, sizeof(me.host), "%s", ctx->boot->host_id);
    snprintf(me.transport, sizeof(me.transport), "%s", ctx->tlops->name);
    me.eager_limit = ctx->params.eager_limit;
    me.chunk_size = ctx->params.chunk_size;
    me.pipeline_depth = ctx->params.pipeline_depth;

    st = RTOPO_ERR_NOMEM;
    ctx->peers = calloc((size_t)ctx->size, sizeof(*ctx->peers));
    ctx->connected = calloc((size_t)ctx->size, 1);
    ctx->slots = calloc(RTOPO__MAX_SLOTS, sizeof(*ctx->slots));
    ctx->slot_free = malloc(RTOPO__MAX_SLOTS * sizeof(*ctx->slot_free));
    ctx->msgbuf = malloc(ctx->ctrl_size);
    if (!ctx->peers || !ctx->connected || !ctx->slots || !ctx->slot_free || !ctx->msgbuf)
        goto err;
    for (i = 0; i < RTOPO__MAX_SLOTS; i++)
        ctx->slot_free[i] = RTOPO__MAX_SLOTS - 1 - i;
    ctx->nslot_free = RTOPO__MAX_SLOTS;

    st = rtopo__boot_allgather(ctx->boot, &me, ctx->peers, sizeof(me));
    if (st)
        goto err;
    st = rtopo__check_uniform(ctx);
    if (st)
        goto err;
    ctx->failed_rank = -1;
    rtopo__info("rank %d of %d on %s, transport %s", ctx->rank, ctx->size, me.host,
                ctx->tlattr.provider);
    *ctx_p = ctx;
    return RTOPO_OK;
err:
    rtopo__ctx_free(ctx);
    return st;
}

int rtopo_barrier(rtopo_ctx_t *ctx)
{
    if (!ctx)
        return rtopo__error(RTOPO_ERR_INVAL, "ctx is NULL");
    if (ctx->failed)
        return ctx->failed;
    return rtopo__boot_barrier(ctx->boot);
}

int rtopo_finalize(rtopo_ctx_t *ctx)
{
    uint32_t i;
    int st = RTOPO_OK;

    if (!ctx)
        return rtopo__error(RTOPO_ERR_INVAL, "ctx is NULL");
    if (ctx->active)
        return rtopo__error(RTOPO_ERR_BUSY, "operations still in flight: wait for "
                            "and free every request first");
    /* control messages still queued (an ABORT after a failure, say) leave
     * only while this rank drives the transport */
    rtopo__flush(ctx, 200);
    /* peers may still need this rank's progress for their last writes */
    if (!ctx->failed && ctx->size > 1)
        st = rtopo__boot_barrier(ctx->boot);
    for (i = 0; i < ctx->ntopos_alloc; i++)
        if (ctx->topos[i])
            rtopo_topo_free(ctx->topos[i]);
    rtopo__mem_release_all(ctx);
    rtopo__ctx_free(ctx);
    return st;
}

int rtopo__connect_peer(rtopo_ctx_t *ctx, int peer)
{
    int st;

    if (ctx->connected[peer])
        return RTOPO_OK;
    st = ctx->tlops->connect(ctx->tl, peer, ctx->peers[peer].addr,
                             ctx->peers[peer].addr_len);
    if (st == RTOPO_OK)
        ctx->connected[peer] = 1;
    return st;
}

/* A dead rank dooms every operation in flight and every later one: the
 * collectives involve all ranks of the job. */
void rtopo__peer_failed(rtopo_ctx_t *ctx, int peer, int status, const char *why)
{
    rtopo__op_t *op, *next;

    if (!ctx->failed) {
        ctx->failed = status;
        ctx->failed_rank = peer;
        rtopo__error(status, "rank %d failed (%s)", peer, why);
        rtopo__warn("rank %d failed (%s); operations in flight and later ones end "
                    "with %s", peer, why, rtopo_err_name(status));
    }
    for (op = ctx->active; op; op = next) {
        next = op->next;
        rtopo__op_fail(op, status);
    }
}

/* Asks the bootstrap whether the launcher reported a dead rank; cheap
 * enough to run every time the engine is about to block. */
int rtopo__check_failures(rtopo_ctx_t *ctx)
{
    int rank = -1, ret;

    ret = rtopo__boot_poll_failure(ctx->boot, &rank);
    if (ret > 0)
        rtopo__peer_failed(ctx, rank, RTOPO_ERR_PEER, "reported by the launcher");
    return ctx->failed;
}
