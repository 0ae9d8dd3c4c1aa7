/*
 * tool.c - the engine as the tools see it (rtopo_tool.h).
 */
#include "config.h"
#include "rtopo_int.h"
#include "rtopo_tool.h"

int rtopo__tool_rank(const rtopo_ctx_t *ctx)
{
    return ctx->rank;
}

int rtopo__tool_size(const rtopo_ctx_t *ctx)
{
    return ctx->size;
}

const rtopo__params_t *rtopo__tool_params(const rtopo_ctx_t *ctx)
{
    return &ctx->params;
}

const char *rtopo__tool_provider(const rtopo_ctx_t *ctx)
{
    return ctx->tlattr.provider;
}

void rtopo__tool_state(const rtopo_ctx_t *ctx, rtopo__tool_state_t *st)
{
    st->thread_on = ctx->thread_on;
    st->poll_only = ctx->poll_only;
    st->oversub = ctx->oversub;
    st->yield_idle = ctx->yield_idle;
    st->reg_op_min = ctx->reg_op_min;
    st->rcache_on = ctx->rcache.mon != NULL;
}

int rtopo__tool_barrier(rtopo_ctx_t *ctx)
{
    return rtopo__boot_barrier(ctx->boot);
}

int rtopo__tool_allgather(rtopo_ctx_t *ctx, const void *mine, void *all, size_t len)
{
    return rtopo__boot_allgather(ctx->boot, mine, all, len);
}

const rtopo__tdesc_t *rtopo__tool_desc(const rtopo_topo_t *t)
{
    return &t->desc;
}

const rtopo__model_t *rtopo__tool_model(const rtopo_topo_t *t)
{
    return &t->model;
}

int rtopo__tool_me(const rtopo_topo_t *t)
{
    return t->me;
}

int rtopo__tool_job_rank(const rtopo_topo_t *t, int r)
{
    return rtopo__topo_job_rank(t, r);
}

int rtopo__tool_sched_req(rtopo_topo_t *t, rtopo__sched_t *s, long tag, const void *sendbuf,
                          size_t sbytes, void *recvbuf, size_t rbytes, rtopo_req_t **req_p)
{
    rtopo__opdesc_t d;

    rtopo__opdesc_sched(&d, t, tag, sbytes);
    return rtopo__req_sched(t, s, &d, sendbuf, sbytes, recvbuf, rbytes, req_p);
}

const rtopo__sched_t *rtopo__tool_req_sched(const rtopo_req_t *req)
{
    return req->op.plan ? req->op.plan->sched : NULL;
}

void rtopo__tool_whole_plans(rtopo_topo_t *t)
{
    t->whole_plans = 1;
}

void rtopo__tool_raw(rtopo_ctx_t *ctx, rtopo__tool_raw_t *raw)
{
    raw->ops = ctx->tlops;
    raw->tl = ctx->tl;
    raw->attr = &ctx->tlattr;
    raw->spin_ns = (uint64_t)ctx->params.spin_us * 1000;
    raw->poll_only = ctx->poll_only;
    raw->yield_idle = ctx->yield_idle;
    raw->rank = ctx->rank;
    raw->size = ctx->size;
}

int rtopo__tool_connect(rtopo_ctx_t *ctx, int peer)
{
    return rtopo__connect_peer(ctx, peer);
}

uint8_t *rtopo__tool_mem_buf(const rtopo_mem_t *m)
{
    return m->buf;
}

struct rtopo__tl_mr *rtopo__tool_mem_mr(const rtopo_mem_t *m)
{
    return m->mr;
}

rtopo__rkey_t rtopo__tool_mem_rkey(const rtopo_mem_t *m)
{
    return m->rkey;
}
