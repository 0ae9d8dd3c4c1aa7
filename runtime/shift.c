/*
 * shift.c - circular q-shift: rank i's bytes reach rank (i+q) mod p.
 *
 * The schedule comes from topo/ (ring, mesh, hypercube, E-cube or direct,
 * chosen by the topology, RTOPO_SHIFT_ALGO, rtopo_topo_set_shift_algo, or
 * the cost model for "auto"); the executor runs it.  Requests own their
 * plan, so a persistent request skips building the schedule and this
 * rank's share of it on every start.  Each start still opens the receive
 * windows afresh (one small ready-to-receive message per hop): that
 * message is also the permission to write, which the buffer rules
 * require anew in every round.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo_int.h"

static int rtopo__req_new(rtopo_topo_t *t, rtopo__plan_t *plan, const void *sendbuf,
                          void *recvbuf, size_t bytes, int persistent,
                          rtopo_req_t **req_p)
{
    rtopo_req_t *req = calloc(1, sizeof(*req));

    if (!req) {
        rtopo__plan_put(plan);
        return RTOPO_ERR_NOMEM;
    }
    req->op.ctx = t->ctx;
    req->op.topo = t;
    req->op.plan = plan;
    req->persistent = persistent;
    req->sendbuf = sendbuf;
    req->recvbuf = recvbuf;
    req->bytes = bytes;
    *req_p = req;
    return RTOPO_OK;
}

static int rtopo__shift_req(rtopo_topo_t *t, const void *sendbuf, void *recvbuf,
                            size_t bytes, int q, int persistent, rtopo_req_t **req_p)
{
    rtopo__plan_t *plan;
    long qn;
    int st;

    if (!t || !req_p)
        return rtopo__error(RTOPO_ERR_INVAL, "topology and request pointer are required");
    if (bytes && (!sendbuf || !recvbuf))
        return rtopo__error(RTOPO_ERR_INVAL, "NULL buffer for a %zu-byte shift", bytes);
    if (bytes > ((size_t)1 << 46))
        return rtopo__error(RTOPO_ERR_INVAL, "shift of %zu bytes is too large", bytes);
    qn = (long)q % t->desc.p;
    if (qn < 0)
        qn += t->desc.p;
    st = rtopo__plan_get(t, qn, bytes, t->shift_algo, &plan);
    if (st)
        return st;
    return rtopo__req_new(t, plan, sendbuf, recvbuf, bytes, persistent, req_p);
}

int rtopo__req_sched(rtopo_topo_t *t, rtopo__sched_t *s, uint32_t sig,
                     const void *sendbuf, void *recvbuf, size_t bytes,
                     rtopo_req_t **req_p)
{
    rtopo__plan_t *plan;
    int st = rtopo__sched_validate(s);

    if (st) {
        rtopo__sched_free(s);
        return st;
    }
    st = rtopo__plan_new(t, s, sig, &plan);
    if (st)
        return st;
    return rtopo__req_new(t, plan, sendbuf, recvbuf, bytes, 1, req_p);
}

int rtopo_start(rtopo_req_t *req)
{
    rtopo__op_t *op;
    const uint8_t *s, *r;

    if (!req)
        return rtopo__error(RTOPO_ERR_INVAL, "request is NULL");
    op = &req->op;
    if (op->active)
        return rtopo__error(RTOPO_ERR_BUSY, "request is still in flight");
    if (op->zombie && rtopo__op_drain(op))
        return RTOPO_ERR_BUSY;
    if (req->started && !req->persistent)
        return rtopo__error(RTOPO_ERR_INVAL, "only persistent requests can be restarted");
    req->started = 1;
    s = req->sendbuf;
    r = req->recvbuf;
    op->bufs[RTOPO__BUF_SEND] = s;
    op->bufs[RTOPO__BUF_RECV] = r;
    if (op->plan->sched->tmp_bytes && !req->tmp) {
        req->tmp = malloc(op->plan->sched->tmp_bytes);
        if (!req->tmp)
            return rtopo__error(RTOPO_ERR_NOMEM, "scratch of %llu bytes",
                                (unsigned long long)op->plan->sched->tmp_bytes);
    }
    op->bufs[RTOPO__BUF_TMP] = req->tmp;
    /* the receive buffer may be written before the send buffer is read:
     * overlapping buffers get a private copy of the send data */
    if (req->bytes && s < r + req->bytes && r < s + req->bytes &&
        op->plan->sched->nhops > 0) {
        free(op->inplace_copy);
        op->inplace_copy = malloc(req->bytes);
        if (!op->inplace_copy)
            return RTOPO_ERR_NOMEM;
        memcpy(op->inplace_copy, s, req->bytes);
        op->bufs[RTOPO__BUF_SEND] = op->inplace_copy;
    }
    return rtopo__op_start(op);
}

int rtopo_wait(rtopo_req_t *req)
{
    if (!req)
        return rtopo__error(RTOPO_ERR_INVAL, "request is NULL");
    if (!req->started)
        return rtopo__error(RTOPO_ERR_INVAL, "request was never started");
    return rtopo__op_wait(&req->op);
}

int rtopo_test(rtopo_req_t *req, int *done)
{
    rtopo__op_t *op;
    int n;

    if (!req || !done)
        return rtopo__error(RTOPO_ERR_INVAL, "request and done pointer are required");
    if (!req->started)
        return rtopo__error(RTOPO_ERR_INVAL, "request was never started");
    op = &req->op;
    if (op->active) {
        n = rtopo__progress(op->ctx);
        if (n < 0)
            rtopo__op_fail(op, n);
        else if (op->active && rtopo__now_ns() >= op->deadline_ns) {
            rtopo__error(RTOPO_ERR_TIMEOUT, "operation did not complete within %d ms",
                         op->ctx->timeout_ms);
            rtopo__op_fail(op, RTOPO_ERR_TIMEOUT);
        } else if (op->active && rtopo__now_ns() >= op->ctx->next_boot_check_ns) {
            op->ctx->next_boot_check_ns = rtopo__now_ns() + 20000000ull;
            rtopo__check_failures(op->ctx);
        }
    }
    *done = !op->active;
    return op->active ? RTOPO_OK : op->status;
}

int rtopo_req_free(rtopo_req_t *req)
{
    if (!req)
        return RTOPO_OK;
    if (req->op.active)
        return rtopo__error(RTOPO_ERR_BUSY, "request is still in flight: wait for it first");
    if (req->op.zombie && rtopo__op_drain(&req->op)) {
        /* its state is still referenced by the transport: leave it */
        return RTOPO_ERR_BUSY;
    }
    free(req->op.inplace_copy);
    free(req->tmp);
    rtopo__plan_put(req->op.plan);
    free(req);
    return RTOPO_OK;
}

int rtopo_ishift(rtopo_topo_t *t, const void *sendbuf, void *recvbuf, size_t bytes,
                 int q, rtopo_req_t **req)
{
    int st = rtopo__shift_req(t, sendbuf, recvbuf, bytes, q, 0, req);

    if (st)
        return st;
    st = rtopo_start(*req);
    if (st) {
        rtopo_req_free(*req);
        *req = NULL;
    }
    return st;
}

int rtopo_shift_init(rtopo_topo_t *t, const void *sendbuf, void *recvbuf, size_t bytes,
                     int q, rtopo_req_t **req)
{
    return rtopo__shift_req(t, sendbuf, recvbuf, bytes, q, 1, req);
}

int rtopo_shift(rtopo_topo_t *t, const void *sendbuf, void *recvbuf, size_t bytes, int q)
{
    rtopo_req_t *req;
    int st = rtopo_ishift(t, sendbuf, recvbuf, bytes, q, &req);

    if (st)
        return st;
    st = rtopo_wait(req);
    rtopo_req_free(req);
    return st;
}
