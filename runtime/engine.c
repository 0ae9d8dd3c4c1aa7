/*
 * engine.c - progress: transport events, control messages, waiting.
 *
 * Waiting spins on the completion queue for RTOPO_SPIN_US after the last
 * event, then sleeps in the transport's wait() in slices of at most 20 ms,
 * asking the bootstrap between slices whether a rank died.  Providers move
 * RMA data only while the target polls, so every wait keeps polling.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo_int.h"

#define RTOPO__EV_BATCH 32
#define RTOPO__WAIT_SLICE_MS 20

static void rtopo__pend_push(rtopo_ctx_t *ctx, int peer, const void *buf, size_t len)
{
    rtopo__pend_t *p = malloc(sizeof(*p) + len);

    if (!p) {
        rtopo__error(RTOPO_ERR_NOMEM, "dropping a control message to rank %d", peer);
        return;
    }
    p->next = NULL;
    p->peer = peer;
    p->len = len;
    memcpy(&p->msg, buf, len);
    if (ctx->pend_tail)
        ctx->pend_tail->next = p;
    else
        ctx->pend = p;
    ctx->pend_tail = p;
}

static int rtopo__pend_flush(rtopo_ctx_t *ctx)
{
    rtopo__pend_t *p;
    int st, n = 0;

    while ((p = ctx->pend)) {
        if (!(ctx->failed && p->peer == ctx->failed_rank)) {
            st = ctx->tlops->send(ctx->tl, p->peer, &p->msg, p->len, NULL);
            if (st == RTOPO_ERR_BUSY)
                break;
            if (st)
                rtopo__peer_failed(ctx, p->peer, st, "control message failed");
        }
        ctx->pend = p->next;
        if (!ctx->pend)
            ctx->pend_tail = NULL;
        free(p);
        n++;
    }
    return n;
}

/* Sends in order: once one message waits for resources, later ones queue
 * behind it. */
int rtopo__ctrl_send(rtopo_ctx_t *ctx, int peer, const rtopo__msg_t *msg,
                     const void *payload, size_t plen)
{
    size_t hlen = RTOPO__MSG_LEN(msg), len = hlen + plen;
    int st;

    memcpy(ctx->msgbuf, msg, hlen);
    ((rtopo__msg_t *)ctx->msgbuf)->src = ctx->rank;
    if (plen)
        memcpy(ctx->msgbuf + hlen, payload, plen);
    if (!ctx->pend) {
        st = ctx->tlops->send(ctx->tl, peer, ctx->msgbuf, len, NULL);
        if (st != RTOPO_ERR_BUSY)
            return st;
    }
    rtopo__pend_push(ctx, peer, ctx->msgbuf, len);
    return RTOPO_OK;
}

static rtopo__op_t *rtopo__op_lookup(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq)
{
    rtopo__op_t *op;

    for (op = ctx->active; op; op = op->next)
        if (op->topo->id == topo_id && op->seq == seq)
            return op;
    return NULL;
}

static void rtopo__on_ctrl(rtopo_ctx_t *ctx, const void *data, size_t len)
{
    const rtopo__msg_t *m = data;
    rtopo_topo_t *t;
    rtopo__umsg_t *u, **pp;
    rtopo__op_t *op;

    if (len < RTOPO__MSG_HDR || len < RTOPO__MSG_LEN(m)) {
        rtopo__warn("dropping a runt control message of %zu bytes", len);
        return;
    }
    op = rtopo__op_lookup(ctx, m->topo_id, m->seq);
    if (op) {
        rtopo__op_handle_msg(op, m, len);
        return;
    }
    /* stale: for an operation this rank already finished, or a freed topology */
    t = m->topo_id < ctx->ntopos_alloc ? ctx->topos[m->topo_id] : NULL;
    if ((t && m->seq < t->next_seq) || (!t && m->topo_id < ctx->next_topo_id)) {
        rtopo__debug("dropping stale message type %d from rank %d (topo %u seq %u)",
                     m->type, m->src, m->topo_id, m->seq);
        return;
    }
    u = malloc(sizeof(*u) + len);
    if (!u) {
        rtopo__error(RTOPO_ERR_NOMEM, "cannot keep an early message from rank %d", m->src);
        return;
    }
    u->next = NULL;
    u->len = len;
    memcpy(&u->msg, data, len);
    for (pp = &ctx->unexp; *pp; pp = &(*pp)->next)
        ;
    *pp = u;
}

/* hands the messages that arrived before op started over to it */
void rtopo__op_take_early(rtopo__op_t *op)
{
    rtopo_ctx_t *ctx = op->ctx;
    rtopo__umsg_t *u, **pp = &ctx->unexp;

    while ((u = *pp)) {
        if (u->msg.topo_id == op->topo->id && u->msg.seq == op->seq) {
            *pp = u->next;
            if (op->active)
                rtopo__op_handle_msg(op, &u->msg, u->len);
            free(u);
        } else {
            pp = &u->next;
        }
    }
}

static void rtopo__on_error(rtopo_ctx_t *ctx, const rtopo__tl_event_t *ev)
{
    if (ev->ctx)
        rtopo__op_write_failed(ev->ctx, ev->status, ev->peer, ev->msg);
    if (ev->peer >= 0 && ev->status == RTOPO_ERR_PEER)
        rtopo__peer_failed(ctx, ev->peer, RTOPO_ERR_PEER, ev->msg);
    else if (!ev->ctx)
        rtopo__warn("transport error (rank %d): %s", ev->peer, ev->msg);
}

int rtopo__progress(rtopo_ctx_t *ctx)
{
    rtopo__tl_event_t ev[RTOPO__EV_BATCH];
    rtopo__op_t *op, *next;
    int n, i, total = 0;
    uint32_t slot;

    n = ctx->tlops->poll(ctx->tl, ev, RTOPO__EV_BATCH);
    if (n < 0)
        return n;
    for (i = 0; i < n; i++) {
        switch (ev[i].type) {
        case RTOPO__TL_EV_IMM:
            slot = RTOPO__IMM_SLOT(ev[i].imm);
            if (ctx->slots[slot].op)
                rtopo__op_handle_imm(ctx->slots[slot].op, ctx->slots[slot].ridx, ev[i].imm);
            else
                rtopo__debug("write for closed window slot %u", slot);
            break;
        case RTOPO__TL_EV_RECV:
            rtopo__on_ctrl(ctx, ev[i].data, ev[i].len);
            break;
        case RTOPO__TL_EV_WRITE_DONE:
            rtopo__op_handle_write_done(ev[i].ctx);
            break;
        case RTOPO__TL_EV_SEND_DONE:
            break;
        case RTOPO__TL_EV_ERROR:
            rtopo__on_error(ctx, &ev[i]);
            break;
        }
    }
    total = n;
    if (ctx->pend)
        total += rtopo__pend_flush(ctx);
    for (op = ctx->active; op; op = next) {
        next = op->next;
        rtopo__op_advance(op);
    }
    return total;
}

int rtopo__op_wait(rtopo__op_t *op)
{
    rtopo_ctx_t *ctx = op->ctx;
    uint64_t spin_ns = (uint64_t)ctx->params.spin_us * 1000, now, last;
    int64_t left_ms;
    int n;

    last = rtopo__now_ns();
    while (op->active) {
        n = rtopo__progress(ctx);
        if (n < 0) {
            rtopo__op_fail(op, n);
            break;
        }
        if (!op->active)
            break;
        now = rtopo__now_ns();
        if (now >= op->deadline_ns) {
            rtopo__error(RTOPO_ERR_TIMEOUT, "operation on topology %u (seq %u) did "
                         "not complete within %d ms", op->topo->id, op->seq,
                         ctx->timeout_ms);
            rtopo__op_fail(op, RTOPO_ERR_TIMEOUT);
            break;
        }
        if (n > 0) {
            last = now;
            continue;
        }
        if (now >= ctx->next_boot_check_ns) {
            ctx->next_boot_check_ns = now + RTOPO__WAIT_SLICE_MS * 1000000ull;
            if (rtopo__check_failures(ctx))
                continue;
        }
        if (now - last < spin_ns)
            continue;
        left_ms = (int64_t)(op->deadline_ns - now) / 1000000 + 1;
        ctx->tlops->wait(ctx->tl, left_ms < RTOPO__WAIT_SLICE_MS ? (int)left_ms
                                                                 : RTOPO__WAIT_SLICE_MS);
        last = rtopo__now_ns();
        ctx->next_boot_check_ns = 0;   /* check right after a sleep */
        /* a slice with no event still counts as a sleep: go on blocking */
        last -= spin_ns;
    }
    return op->status;
}

/* Drives the transport until nothing is queued and it has been quiet for
 * a few milliseconds, for at most limit_ms. */
void rtopo__flush(rtopo_ctx_t *ctx, int limit_ms)
{
    uint64_t end = rtopo__now_ns() + (uint64_t)limit_ms * 1000000ull;
    uint64_t quiet = rtopo__now_ns();

    while (rtopo__now_ns() < end) {
        if (rtopo__progress(ctx) > 0 || ctx->pend)
            quiet = rtopo__now_ns();
        else if (rtopo__now_ns() - quiet > 5000000ull)
            break;
        else
            ctx->tlops->wait(ctx->tl, 1);
    }
}
