/*
 * req.c - requests: one collective call's plan and buffers, started,
 * waited for, tested and freed through the public request API, whatever
 * the collective.  A request owns its plan (a reference) and the rank's
 * TMP scratch, kept across starts of a persistent request.
 *
 * Buffer rules (rtopo(7)): an operation reads SEND and writes RECV only
 * between its start and its observed completion; receive buffers of
 * operations in flight must not overlap; a SEND that overlaps RECV is
 * copied at start, since the schedule may write RECV before it reads SEND.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "req.h"
#include "mem.h"
#include "job.h"
#include "probe.h"

/* the request is in flight for the caller from its start until the caller
 * sees it complete; the context counts those */
static void rtopo__req_active(rtopo_req_t *req, int on)
{
    if (req->user_active != on)
        req->op.ctx->nuser_active += on ? 1 : -1;
    req->user_active = on;
}

/* the operation completed: the results outside the receive buffer */
static void rtopo__req_finished(rtopo__op_t *op)
{
    rtopo_req_t *req = rtopo__container_of(op, rtopo_req_t, op);

    if (req->aux_out_len)
        memcpy(req->aux_out, req->tmp + 8, req->aux_out_len);
}

/* a failed operation's last completion came: a request the caller freed
 * meanwhile goes now */
static void rtopo__req_reaped(rtopo__op_t *op)
{
    rtopo_req_t *req = rtopo__container_of(op, rtopo_req_t, op);

    if (req->orphan)
        rtopo__req_destroy(req);
}

static const struct rtopo__op_owner rtopo__req_owner = {
    .finished = rtopo__req_finished,
    .reaped = rtopo__req_reaped,
};

/* takes the topology's spare request (rtopo__req_new's comment says what
 * it is): what a call may have set and a start does not set anew is reset */
static void rtopo__req_reuse(rtopo_topo_t *t, rtopo_req_t *req)
{
    t->spare = NULL;
    t->spare_plan = NULL;
    req->started = 0;
    req->aux_in = NULL;
    req->aux_in_len = 0;
    req->aux_out = NULL;
    req->aux_out_len = 0;
    req->bad = 0;
    req->badmsg[0] = '\0';
}

/* the request's buffers, and on its context's list */
static void rtopo__req_link(rtopo_topo_t *t, rtopo_req_t *req, const void *sendbuf,
                            size_t sbytes, void *recvbuf, size_t rbytes)
{
    rtopo_ctx_t *ctx = t->ctx;

    req->sendbuf = sendbuf;
    req->recvbuf = recvbuf;
    req->sbytes = sbytes;
    req->rbytes = rbytes;
    req->next = ctx->reqs;
    if (ctx->reqs)
        ctx->reqs->prev = req;
    ctx->reqs = req;
    t->nreqs++;
}

int rtopo__req_new(rtopo_topo_t *t, rtopo__plan_t *plan, const void *sendbuf,
                    size_t sbytes, void *recvbuf, size_t rbytes, int how,
                    rtopo_req_t **req_p)
{
    rtopo_ctx_t *ctx = t->ctx;
    rtopo_req_t *req = t->spare;
    int persistent = how == RTOPO__CALL_INIT;

    if (req && !persistent && req->op.plan == plan) {
        /* The last blocking or nonblocking call's request on this plan, as
         * rtopo__req_destroy left it: completed without error, no zombie,
         * its scratch kept (the plan's size: the next start takes it
         * again), no in-place copy, on no list, its operation's
         * per-run arrays cleared.  What a call may have set and a start
         * does not set anew is reset here, field by field: clearing the
         * whole request costs more than the rest of a small call. */
        rtopo__req_reuse(t, req);
        rtopo__plan_put(plan);          /* the spare holds a reference */
    } else {
        req = calloc(1, sizeof(*req));
    }
    if (!req || (how != RTOPO__CALL_BLOCK && rtopo__handle_add(req, RTOPO__H_REQ))) {
        if (req)
            rtopo__op_release(&req->op);
        free(req);
        rtopo__plan_put(plan);
        return rtopo__error(RTOPO_ERR_NOMEM, "request");
    }
    req->listed = how != RTOPO__CALL_BLOCK;
    req->op.ctx = ctx;
    req->op.topo = t;
    req->op.plan = plan;
    req->op.owner = &rtopo__req_owner;
    req->persistent = persistent;
    rtopo__req_link(t, req, sendbuf, sbytes, recvbuf, rbytes);
    *req_p = req;
    return RTOPO_OK;
}

/* the caller has no more use of the request: stale from now on */
static void rtopo__req_unlist(rtopo_req_t *req)
{
    if (req->listed)
        rtopo__handle_del(req);
    req->listed = 0;
}

/* gives the request's scratch back */
static void rtopo__req_put_tmp(rtopo_req_t *req)
{
    if (!req->tmp_mem)
        return;
    /* a failed operation's peers may still write into it */
    req->tmp_mem->scratch = 0;
    if (req->op.status)
        req->tmp_mem->in_use = 2;
    else
        rtopo__stage_put(req->tmp_mem);
    req->tmp_mem = NULL;
    req->tmp = NULL;
}

/* frees what the request owns; its operation is neither active nor a
 * zombie */
void rtopo__req_destroy(rtopo_req_t *req)
{
    rtopo_ctx_t *ctx = req->op.ctx;
    int spare = !req->persistent && req->op.status == RTOPO_OK && !req->op.zombie;

    rtopo__req_active(req, 0);      /* (rtopo_finalize frees unwaited ones) */
    if (req->prev)
        req->prev->next = req->next;
    else
        ctx->reqs = req->next;
    if (req->next)
        req->next->prev = req->prev;
    req->op.topo->nreqs--;
    free(req->op.inplace_copy);
    if (!spare)
        rtopo__req_put_tmp(req);
    rtopo__req_unlist(req);
    if (spare) {
        /* kept for the next call on the same plan: a blocking call makes
         * and frees one request each time */
        rtopo_topo_t *t = req->op.topo;

        rtopo__req_release(t->spare);
        req->op.inplace_copy = NULL;
        t->spare = req;
        t->spare_plan = req->op.plan;
        return;
    }
    rtopo__req_release(req);
}

void rtopo__req_release(rtopo_req_t *req)
{
    if (!req)
        return;
    rtopo__req_put_tmp(req);        /* a spare's */
    rtopo__op_release(&req->op);
    rtopo__plan_put(req->op.plan);
    free(req);
}

int rtopo__req_sched(rtopo_topo_t *t, rtopo__sched_t *s, const rtopo__opdesc_t *d,
                     const void *sendbuf, size_t sbytes, void *recvbuf, size_t rbytes,
                     rtopo_req_t **req_p)
{
    rtopo__plan_t *plan;
    int st = rtopo__sched_validate(s);

    if (st) {
        rtopo__sched_free(s);
        return st;
    }
    st = rtopo__plan_new(t, s, d, &plan);
    if (st)
        return st;
    return rtopo__req_new(t, plan, sendbuf, sbytes, recvbuf, rbytes, RTOPO__CALL_INIT,
                          req_p);
}

static uint64_t rtopo__sum(const void *buf, size_t len)
{
    const uint8_t *b = buf;
    uint64_t h = 1469598103934665603ull, w;
    size_t i = 0;

    for (; i + 8 <= len; i += 8) {
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 1099511628211ull;
        h ^= h >> 29;
    }
    for (; i < len; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static int rtopo__overlaps(const void *a, size_t alen, const void *b, size_t blen)
{
    const uint8_t *x = a, *y = b;

    return alen && blen && x < y + blen && y < x + alen;
}

/* Sees the request's completion for the caller: it may be started again. */
static int rtopo__req_seen(rtopo_req_t *req)
{
    rtopo__op_t *op = &req->op;
    int st = op->status;

    rtopo__req_active(req, 0);
    if (st)
        return rtopo__report(st, op->errmsg);
    if (req->op.ctx->check_buffers && !op->inplace_copy && req->sbytes &&
        rtopo__sum(req->sendbuf, req->sbytes) != req->send_sum)
        return req->op.ctx->call_ran = 1,
               rtopo__error(RTOPO_ERR_INVAL, "the send buffer %p (%zu bytes) changed while "
                            "the operation was in flight (RTOPO_CHECK_BUFFERS)",
                            req->sendbuf, req->sbytes);
    return RTOPO_OK;
}

static int rtopo__req_start(rtopo_req_t *req)
{
    rtopo__op_t *op = &req->op;
    rtopo_ctx_t *ctx = op->ctx;
    const uint8_t *s, *r;
    rtopo_req_t *o;
    int st;

    if (req->user_active)
        return rtopo__error(RTOPO_ERR_BUSY, "request is still active: rtopo_wait for it "
                            "(or rtopo_test until done) before starting it again");
    if (req->started && !req->persistent)
        return rtopo__error(RTOPO_ERR_INVAL, "only persistent requests can be restarted");
    if (op->zombie && rtopo__op_drain(op, 1000))
        return RTOPO_ERR_BUSY;
    if (req->bad)   /* the others learn it from the failed call (req.h) */
        return rtopo__error(req->bad, "%s", req->badmsg);
    /* (a walk over every request only when some are in flight: each
     * costs a cache line) */
    for (o = ctx->nuser_active ? ctx->reqs : NULL; o; o = o->next)
        if (o->user_active && rtopo__overlaps(o->recvbuf, o->rbytes, req->recvbuf,
                                              req->rbytes))
            return rtopo__error(RTOPO_ERR_INVAL, "receive buffer %p (%zu bytes) overlaps "
                                "the receive buffer %p (%zu bytes) of an operation in "
                                "flight", req->recvbuf, req->rbytes, o->recvbuf, o->rbytes);
    s = req->sendbuf;
    r = req->recvbuf;
    op->bufs[RTOPO__BUF_SEND] = s;
    op->bufs[RTOPO__BUF_RECV] = r;
    if (op->plan->tmp && !req->tmp) {
        /* this rank's share only, registered: forwarding from it and
         * writing into it are zero-copy */
        if ((st = rtopo__stage_get(ctx, (size_t)op->plan->tmp, &req->tmp_mem)))
            return rtopo__error(st, "scratch of %llu bytes",
                                (unsigned long long)op->plan->tmp);
        req->tmp_mem->scratch = 1;
        req->tmp = req->tmp_mem->buf;
    }
    op->bufs[RTOPO__BUF_TMP] = req->tmp;
    if (req->aux_in_len)
        memcpy(req->tmp, req->aux_in, req->aux_in_len);
    /* the receive buffer may be written before the send buffer is read:
     * overlapping buffers get a private copy of the send data (when the
     * schedule moves data between ranks: steps, which a plan's share
     * keeps from the whole graph, as it may hold no hop itself) */
    if (op->inplace_copy) {
        free(op->inplace_copy);
        op->inplace_copy = NULL;
    }
    if (rtopo__overlaps(s, req->sbytes, r, req->rbytes) && op->plan->sched->nsteps > 0) {
        op->inplace_copy = malloc(req->sbytes);
        if (!op->inplace_copy)
            return rtopo__error(RTOPO_ERR_NOMEM, "in-place copy of %zu bytes", req->sbytes);
        memcpy(op->inplace_copy, s, req->sbytes);
        op->bufs[RTOPO__BUF_SEND] = op->inplace_copy;
    }
    if (ctx->check_buffers && req->sbytes)
        req->send_sum = rtopo__sum(s, req->sbytes);
    req->started = 1;
    rtopo__req_active(req, 1);
    if ((st = rtopo__op_start(op)))
        rtopo__req_active(req, 0);
    return st;
}

/* what rtopo_req_free does (context entered): a request whose
 * operation still has writes or messages out is freed when they are in */
void rtopo__req_free(rtopo_req_t *req)
{
    if (req->op.zombie) {
        req->orphan = 1;
        rtopo__req_unlist(req);
    } else {
        rtopo__req_destroy(req);
    }
}

int rtopo__req_call(rtopo_req_t *req, int how, rtopo_req_t **req_p)
{
    int st;

    if (how == RTOPO__CALL_INIT) {
        *req_p = req;
        return RTOPO_OK;
    }
    if ((st = rtopo__req_start(req))) {
        rtopo__req_free(req);
        if (how == RTOPO__CALL_START)
            *req_p = NULL;
        return st;
    }
    if (how == RTOPO__CALL_START) {
        *req_p = req;
        return RTOPO_OK;
    }
    /* blocking: what rtopo_wait and rtopo_req_free do, in one entry */
    rtopo__op_wait(&req->op);
    st = rtopo__req_seen(req);
    rtopo__req_free(req);
    return st;
}

int rtopo__req_spare_block(rtopo_topo_t *t, const void *sendbuf, size_t sbytes,
                           void *recvbuf, size_t rbytes)
{
    rtopo_req_t *req = t->spare;
    int st;

    /* rtopo__req_new with the spare, less what it holds already (its
     * context, topology, plan and reference, owner, not persistent, not
     * listed) */
    rtopo__req_reuse(t, req);
    rtopo__req_link(t, req, sendbuf, sbytes, recvbuf, rbytes);
    /* then rtopo__req_call's blocking way */
    if ((st = rtopo__req_start(req))) {
        rtopo__req_free(req);
        return st;
    }
    rtopo__op_wait(&req->op);
    st = rtopo__req_seen(req);
    rtopo__req_free(req);
    return st;
}

int rtopo__req_run(rtopo_req_t *req)
{
    int st = rtopo__req_start(req);

    if (st)
        return st;
    rtopo__op_wait(&req->op);
    return rtopo__req_seen(req);
}

#define RTOPO__REQ_ENTER(req)                                                 \
    do {                                                                      \
        if (!(req))                                                           \
            return rtopo__error(RTOPO_ERR_INVAL, "request is NULL");          \
        if (!rtopo__handle_ok((req), RTOPO__H_REQ))                           \
            return rtopo__error(RTOPO_ERR_INVAL, "request %p is not live "    \
                                "(freed already?)", (void *)(req));           \
        rtopo__ctx_lock((req)->op.ctx);                                       \
    } while (0)

int rtopo__call_failed(rtopo_topo_t *t, int st)
{
    char msg[256];
    rtopo_ctx_t *ctx;

    snprintf(msg, sizeof(msg), "%s", rtopo_last_error());
    if (!t || !rtopo__handle_ok(t, RTOPO__H_TOPO))
        return st;      /* no context to tell */
    ctx = t->ctx;
    rtopo__ctx_lock(ctx);
    /* failed after its start (the job has failed), or after it completed
     * (RTOPO_CHECK_BUFFERS): the call had its place already */
    if (!ctx->failed && !ctx->call_ran) {
        rtopo__probe_call_failed(ctx, t, st, msg);
        rtopo__flush_job(ctx, 200);     /* the news leaves before the caller goes on */
    }
    ctx->call_ran = 0;
    rtopo__ctx_leave(ctx);
    return rtopo__error_quiet(st, "%s", msg);
}

int rtopo_start(rtopo_req_t *req)
{
    char msg[256];
    int st;

    RTOPO__REQ_ENTER(req);
    st = rtopo__req_start(req);
    if (st && st != RTOPO_ERR_BUSY && !req->op.ctx->failed) {
        /* the operation did not start here: its place is taken, the
         * others hear of it */
        snprintf(msg, sizeof(msg), "%s", rtopo_last_error());
        rtopo__probe_call_failed(req->op.ctx, req->op.topo, st, msg);
        rtopo__flush_job(req->op.ctx, 200);
        rtopo__error_quiet(st, "%s", msg);
    }
    rtopo__ctx_leave(req->op.ctx);
    return st;
}

int rtopo_wait(rtopo_req_t *req)
{
    int st;

    RTOPO__REQ_ENTER(req);
    if (!req->user_active) {
        st = req->started ? RTOPO_OK : rtopo__error(RTOPO_ERR_INVAL, "request was never "
                                                      "started");
    } else {
        rtopo__op_wait(&req->op);
        st = rtopo__req_seen(req);
        req->op.ctx->call_ran = 0;
    }
    rtopo__ctx_leave(req->op.ctx);
    return st;
}

int rtopo_test(rtopo_req_t *req, int *done)
{
    int st = RTOPO_OK;

    if (!done)
        return rtopo__error(RTOPO_ERR_INVAL, "done pointer is NULL");
    RTOPO__REQ_ENTER(req);
    if (!req->started) {
        st = rtopo__error(RTOPO_ERR_INVAL, "request was never started");
    } else if (req->user_active) {
        rtopo__op_test(&req->op);
        if (!req->op.active)
            st = rtopo__req_seen(req);
        req->op.ctx->call_ran = 0;
    }
    *done = !req->user_active;
    rtopo__ctx_leave(req->op.ctx);
    return st;
}

int rtopo_req_free(rtopo_req_t *req)
{
    rtopo_ctx_t *ctx;

    if (!req)
        return RTOPO_OK;
    RTOPO__REQ_ENTER(req);
    ctx = req->op.ctx;
    if (req->user_active) {
        rtopo__ctx_leave(ctx);
        return rtopo__error(RTOPO_ERR_BUSY, "request is still active: wait for it first");
    }
    rtopo__req_free(req);
    rtopo__ctx_leave(ctx);
    return RTOPO_OK;
}

