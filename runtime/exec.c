/*
 * exec.c - the schedule executor.
 *
 * A plan is one rank's share of a schedule (topo/rtopo_sched.h): the hops
 * it sends, receives and forwards, and the transfers it copies locally.
 * An operation runs a plan: it opens a window for every hop it receives
 * (RTR), writes pieces of every hop it sends as soon as the data, the
 * window and the credits allow, and forwards pieces of multi-hop routes
 * the moment they land.  The protocol is described in rtopo_int.h.
 *
 * Cost: a hop of L bytes in pieces of U over h hops takes about
 * ts + L*tw + (h-1)*(ts + U*tw) once the windows are open (one RTR round
 * trip, overlapped across hops since every rank opens its windows at start).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo_int.h"

enum { RTOPO__KIND_SHIFT = 1 };

uint32_t rtopo__sig(int kind, long q, size_t bytes, int algo, int p)
{
    uint64_t v[5] = { (uint64_t)kind, (uint64_t)q, (uint64_t)bytes, (uint64_t)algo,
                      (uint64_t)p };
    uint32_t h = 2166136261u;
    const uint8_t *b = (const uint8_t *)v;
    size_t i;

    for (i = 0; i < sizeof(v); i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

/* ---- plans ------------------------------------------------------------- */

static void rtopo__plan_free(rtopo__plan_t *plan)
{
    rtopo__sched_free(plan->sched);
    free(plan->send);
    free(plan->recv);
    free(plan->local);
    free(plan->peers);
    free(plan);
}

void rtopo__plan_put(rtopo__plan_t *plan)
{
    if (plan && --plan->refs == 0)
        rtopo__plan_free(plan);
}

static int rtopo__hop_from(const rtopo__sched_t *s, const rtopo__xfer_t *x, uint32_t k)
{
    return k == 1 ? x->src : s->hops[x->hop0 + k - 2].to;
}

static int rtopo__plan_build(rtopo_ctx_t *ctx, rtopo__sched_t *s, rtopo__plan_t *plan)
{
    int me = ctx->rank, ns = 0, nr = 0, nl = 0, i, j, from, to;
    uint32_t x, k;
    uint8_t *seen;

    for (x = 0; x < s->nxfers; x++) {
        const rtopo__xfer_t *xf = &s->xfers[x];
        if (xf->nhops == 0 && xf->src == me)
            nl++;
        for (k = 1; k <= xf->nhops; k++) {
            from = rtopo__hop_from(s, xf, k);
            to = s->hops[xf->hop0 + k - 1].to;
            ns += from == me;
            nr += to == me;
        }
    }
    plan->send = calloc((size_t)ns + 1, sizeof(*plan->send));
    plan->recv = calloc((size_t)nr + 1, sizeof(*plan->recv));
    plan->local = calloc((size_t)nl + 1, sizeof(*plan->local));
    plan->peers = calloc((size_t)(ns + nr) + 1, sizeof(*plan->peers));
    seen = calloc((size_t)ctx->size, 1);
    if (!plan->send || !plan->recv || !plan->local || !plan->peers || !seen) {
        free(seen);
        return RTOPO_ERR_NOMEM;
    }
    for (x = 0; x < s->nxfers; x++) {
        const rtopo__xfer_t *xf = &s->xfers[x];
        if (xf->nhops == 0 && xf->src == me)
            plan->local[plan->nlocal++] = x;
        for (k = 1; k <= xf->nhops; k++) {
            from = rtopo__hop_from(s, xf, k);
            to = s->hops[xf->hop0 + k - 1].to;
            if (from == me) {
                rtopo__send_ent_t *e = &plan->send[plan->nsend++];
                e->xfer = x;
                e->hop = k;
                e->peer = to;
                e->upstream = -1;
                if (k > 1)
                    e->upstream = plan->nrecv - 1;   /* recv (x, k-1) came just before */
                if (!seen[to]++)
                    plan->peers[plan->npeers++] = to;
            }
            if (to == me) {
                rtopo__recv_ent_t *e = &plan->recv[plan->nrecv++];
                e->xfer = x;
                e->hop = k;
                e->peer = from;
                e->fwd = k < xf->nhops ? plan->nsend : -1;   /* send (x, k+1) comes next */
                if (!seen[from]++)
                    plan->peers[plan->npeers++] = from;
            }
        }
    }
    free(seen);
    /* sanity: the links above assume consecutive generation */
    for (i = 0; i < plan->nsend; i++) {
        j = plan->send[i].upstream;
        if (j >= 0 && (plan->recv[j].xfer != plan->send[i].xfer ||
                       plan->recv[j].hop + 1 != plan->send[i].hop))
            return rtopo__error(RTOPO_ERR_INVAL, "schedule route revisits a rank");
    }
    return RTOPO_OK;
}

/* Takes ownership of s.  The plan has one reference, the caller's. */
int rtopo__plan_new(rtopo_topo_t *t, rtopo__sched_t *s, uint32_t sig,
                    rtopo__plan_t **plan_p)
{
    rtopo_ctx_t *ctx = t->ctx;
    rtopo__plan_t *plan;
    int i, st;

    plan = calloc(1, sizeof(*plan));
    if (!plan) {
        rtopo__sched_free(s);
        return RTOPO_ERR_NOMEM;
    }
    plan->sched = s;
    plan->sig = sig;
    plan->refs = 1;
    st = rtopo__plan_build(ctx, s, plan);
    for (i = 0; st == RTOPO_OK && i < plan->npeers; i++)
        st = rtopo__connect_peer(ctx, plan->peers[i]);
    if (st) {
        rtopo__plan_free(plan);
        return st;
    }
    *plan_p = plan;
    return RTOPO_OK;
}

int rtopo__plan_get(rtopo_topo_t *t, long q, size_t bytes, int algo,
                    rtopo__plan_t **plan_p)
{
    rtopo_ctx_t *ctx = t->ctx;
    rtopo__plan_t *plan;
    rtopo__sched_t *s;
    int i, st;

    for (i = 0; i < RTOPO__PLAN_CACHE; i++) {
        plan = t->cache[i];
        if (plan && plan->key_q == q && plan->key_bytes == bytes && plan->key_algo == algo) {
            plan->refs++;
            *plan_p = plan;
            return RTOPO_OK;
        }
    }
    st = rtopo__sched_shift(&t->desc, algo, q, bytes, &ctx->model, &s);
    if (st)
        return st;
    st = rtopo__plan_new(t, s, rtopo__sig(RTOPO__KIND_SHIFT, q, bytes, s->algo, ctx->size),
                         &plan);
    if (st)
        return st;
    plan->key_q = q;
    plan->key_bytes = bytes;
    plan->key_algo = algo;
    /* one reference for the cache, one for the caller */
    i = t->cache_next++ % RTOPO__PLAN_CACHE;
    rtopo__plan_put(t->cache[i]);
    t->cache[i] = plan;
    plan->refs = 2;
    *plan_p = plan;
    return RTOPO_OK;
}

/* ---- rings ------------------------------------------------------------- */

static int rtopo__ring_init(rtopo__ring_t *r, uint32_t k)
{
    r->k = k;
    r->head = r->tail = 0;
    r->released = calloc(k ? k : 1, 1);
    return r->released ? RTOPO_OK : RTOPO_ERR_NOMEM;
}

static void rtopo__ring_release(rtopo__ring_t *r, uint32_t piece)
{
    r->released[piece % r->k] = 1;
    while (r->tail < r->head && r->released[r->tail % r->k]) {
        r->released[r->tail % r->k] = 0;
        r->tail++;
    }
}

/* ---- operations -------------------------------------------------------- */

static uint64_t rtopo__unit(rtopo_ctx_t *ctx, uint64_t len)
{
    uint64_t u = ctx->params.chunk_size;

    if (len / u >= RTOPO__MAX_PIECES)
        u = (len + RTOPO__MAX_PIECES - 1) / RTOPO__MAX_PIECES;
    return u;
}

static inline uint32_t rtopo__npieces(uint64_t len, uint64_t unit)
{
    return len == 0 ? 1 : (uint32_t)((len + unit - 1) / unit);
}

static const rtopo__xfer_t *rtopo__xf(const rtopo__op_t *op, uint32_t x)
{
    return &op->plan->sched->xfers[x];
}

static void rtopo__entry_done(rtopo__op_t *op, int *done)
{
    if (*done)
        return;
    *done = 1;
    if (--op->remaining == 0)
        rtopo__op_finish(op);
}

static void rtopo__msg_init(rtopo__op_t *op, rtopo__msg_t *m, int type, uint32_t x,
                            uint32_t hop)
{
    memset(m, 0, sizeof(*m));
    m->type = (uint8_t)type;
    m->topo_id = op->topo->id;
    m->seq = op->seq;
    m->xfer = x;
    m->hop = hop;
    m->sig = op->plan->sig;
    m->len = rtopo__xf(op, x)->len;
}

/* After a failure a peer may still write to the old slot ids: those are
 * closed for good rather than handed to a later operation. */
static void rtopo__release_slots(rtopo__op_t *op, int reuse)
{
    rtopo_ctx_t *ctx = op->ctx;
    int i;

    for (i = 0; i < op->plan->nrecv; i++) {
        rtopo__rstate_t *r = &op->rs[i];
        if (r->mode && ctx->slots[r->slot].op == op) {
            ctx->slots[r->slot].op = NULL;
            if (reuse)
                ctx->slot_free[ctx->nslot_free++] = r->slot;
        }
    }
}

static void rtopo__op_free_state(rtopo__op_t *op, int keep_staging)
{
    int i;

    for (i = 0; op->ss && i < op->plan->nsend; i++) {
        free(op->ss[i].ring.released);
        free(op->ss[i].wctx);
        if (!keep_staging)
            rtopo__stage_put(op->ss[i].stage);
    }
    for (i = 0; op->rs && i < op->plan->nrecv; i++) {
        free(op->rs[i].ring.released);
        free(op->rs[i].slot_piece);
        free(op->rs[i].eager_copy);
        if (!keep_staging)
            rtopo__stage_put(op->rs[i].stage);
    }
    free(op->ss);
    free(op->rs);
    free(op->inplace_copy);
    op->ss = NULL;
    op->rs = NULL;
    op->inplace_copy = NULL;
}

static void rtopo__op_unlink(rtopo__op_t *op)
{
    rtopo_ctx_t *ctx = op->ctx;

    if (op->prev)
        op->prev->next = op->next;
    else
        ctx->active = op->next;
    if (op->next)
        op->next->prev = op->prev;
    op->next = op->prev = NULL;
    op->active = 0;
}

void rtopo__op_finish(rtopo__op_t *op)
{
    if (!op->active)
        return;
    rtopo__release_slots(op, 1);
    rtopo__op_unlink(op);
    rtopo__op_free_state(op, 0);
}

void rtopo__op_fail(rtopo__op_t *op, int status)
{
    rtopo_ctx_t *ctx = op->ctx;
    rtopo__msg_t m;
    int i;

    if (!op->active)
        return;
    op->status = status;
    /* tell the peers of this operation, so they fail now rather than at
     * their timeout */
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_ABORT;
    m.topo_id = op->topo->id;
    m.seq = op->seq;
    m.status = status == RTOPO_ERR_MISMATCH ? RTOPO_ERR_MISMATCH : RTOPO_ERR_PEER;
    for (i = 0; i < op->plan->npeers; i++)
        if (!(ctx->failed && op->plan->peers[i] == ctx->failed_rank))
            rtopo__ctrl_send(ctx, op->plan->peers[i], &m, NULL, 0);
    rtopo__release_slots(op, 0);
    rtopo__op_unlink(op);
    /* Peers may still write into staging blocks opened for this operation:
     * never hand them out again. */
    for (i = 0; i < op->plan->nsend; i++)
        if (op->ss[i].stage)
            op->ss[i].stage->in_use = 2;
    for (i = 0; i < op->plan->nrecv; i++)
        if (op->rs[i].stage)
            op->rs[i].stage->in_use = 2;
    if (op->inflight > 0)
        op->zombie = 1;   /* state freed when the last write completes */
    else
        rtopo__op_free_state(op, 1);
}

static int rtopo__send_rtr(rtopo__op_t *op, int ridx)
{
    rtopo_ctx_t *ctx = op->ctx;
    const rtopo__recv_ent_t *e = &op->plan->recv[ridx];
    rtopo__rstate_t *r = &op->rs[ridx];
    struct rtopo_mem *region = NULL;
    rtopo__msg_t m;
    uint32_t k;
    int st;

    if (ctx->nslot_free == 0)
        return rtopo__error(RTOPO_ERR_NOMEM, "more than %u windows open", RTOPO__MAX_SLOTS);
    r->slot = ctx->slot_free[--ctx->nslot_free];
    ctx->slots[r->slot].op = op;
    ctx->slots[r->slot].ridx = ridx;
    rtopo__msg_init(op, &m, RTOPO__MSG_RTR, e->xfer, e->hop);
    m.slot = r->slot;
    if (r->dst)
        region = rtopo__mem_find(ctx, r->dst, r->len);
    if (region) {
        r->mode = RTOPO__WIN_DIRECT;
        m.rkey = region->rkey;
        m.roff = (uint64_t)(r->dst - region->buf);
    } else {
        r->mode = RTOPO__WIN_STAGED;
        r->unit = rtopo__unit(ctx, r->len);
        r->npieces = rtopo__npieces(r->len, r->unit);
        k = (uint32_t)ctx->params.pipeline_depth;
        if (k > r->npieces)
            k = r->npieces;
        st = rtopo__stage_get(ctx, (size_t)(k * (r->len < r->unit ? r->len : r->unit)),
                              &r->stage);
        if (st)
            return st;
        if ((st = rtopo__ring_init(&r->ring, k)))
            return st;
        r->ring.head = r->npieces;   /* every piece is "acquired" by the sender */
        r->slot_piece = malloc(k * sizeof(*r->slot_piece));
        if (!r->slot_piece)
            return RTOPO_ERR_NOMEM;
        memset(r->slot_piece, 0xff, k * sizeof(*r->slot_piece));
        m.rkey = r->stage->rkey;
        m.roff = 0;
        m.unit = r->unit;
        m.nslots = k;
    }
    m.mode = (uint8_t)r->mode;
    return rtopo__ctrl_send(ctx, e->peer, &m, NULL, 0);
}

int rtopo__op_start(rtopo__op_t *op)
{
    rtopo_ctx_t *ctx = op->ctx;
    const rtopo__plan_t *plan = op->plan;
    const rtopo__sched_t *s = plan->sched;
    size_t eager = ctx->params.eager_limit;
    int i, st = RTOPO_OK;

    op->seq = op->topo->next_seq++;
    op->status = RTOPO_OK;
    op->zombie = 0;
    op->inflight = 0;
    if (ctx->failed) {
        op->status = ctx->failed;
        return rtopo__error(ctx->failed, "rank %d failed earlier; no further "
                            "operations can run", ctx->failed_rank);
    }
    op->deadline_ns = rtopo__now_ns() + (uint64_t)ctx->timeout_ms * 1000000ull;
    op->ss = calloc((size_t)plan->nsend + 1, sizeof(*op->ss));
    op->rs = calloc((size_t)plan->nrecv + 1, sizeof(*op->rs));
    if (!op->ss || !op->rs) {
        rtopo__op_free_state(op, 0);
        return op->status = RTOPO_ERR_NOMEM;
    }
    op->remaining = plan->nsend + plan->nrecv + 1;   /* +1: start in progress */
    op->active = 1;
    op->prev = NULL;
    op->next = ctx->active;
    if (ctx->active)
        ctx->active->prev = op;
    ctx->active = op;

    for (i = 0; i < plan->nlocal; i++) {
        const rtopo__xfer_t *x = &s->xfers[plan->local[i]];
        memmove((uint8_t *)op->bufs[x->dst_buf] + x->dst_off,
                op->bufs[x->src_buf] + x->src_off, x->len);
    }
    for (i = 0; i < plan->nrecv && op->active; i++) {
        const rtopo__recv_ent_t *e = &plan->recv[i];
        const rtopo__xfer_t *x = rtopo__xf(op, e->xfer);
        rtopo__rstate_t *r = &op->rs[i];

        r->len = x->len;
        r->dst = e->fwd < 0 ? (uint8_t *)op->bufs[x->dst_buf] + x->dst_off : NULL;
        if (x->len > eager && (st = rtopo__send_rtr(op, i)))
            goto fail;
    }
    for (i = 0; i < plan->nsend && op->active; i++) {
        const rtopo__send_ent_t *e = &plan->send[i];
        const rtopo__xfer_t *x = rtopo__xf(op, e->xfer);
        rtopo__sstate_t *ss = &op->ss[i];
        rtopo__msg_t m;

        ss->len = x->len;
        if (e->upstream >= 0)
            continue;
        ss->src = op->bufs[x->src_buf] + x->src_off;
        if (x->len > eager)
            ss->src_mem = rtopo__mem_find(ctx, ss->src, x->len);
        ss->blocked = x->src_buf != RTOPO__BUF_SEND;
        if (!ss->blocked && x->len <= eager) {
            rtopo__msg_init(op, &m, RTOPO__MSG_EAGER, e->xfer, e->hop);
            if ((st = rtopo__ctrl_send(ctx, e->peer, &m, ss->src, x->len)))
                goto fail;
            rtopo__entry_done(op, &ss->done);
        }
    }
    if (op->active)
        rtopo__op_take_early(op);
    if (op->active)
        rtopo__entry_done(op, &(int){ 0 });   /* drop the start reference */
    if (op->active)
        rtopo__op_advance(op);
    return RTOPO_OK;
fail:
    rtopo__op_fail(op, st);
    return st;
}

static void rtopo__abort_peer(rtopo__op_t *op, int peer, int status, const char *what,
                              const rtopo__msg_t *m)
{
    rtopo__error(status, "rank %d disagrees on %s (xfer %u hop %u, length %llu): "
                 "ranks must call the collective with the same arguments",
                 peer, what, m->xfer, m->hop, (unsigned long long)m->len);
    rtopo__op_fail(op, status);
}

/* binary search of entries sorted by (xfer, hop), both entry kinds
 * starting with those two fields */
static int rtopo__find_ent(const void *base, int n, size_t stride, uint32_t x, uint32_t hop)
{
    int lo = 0, hi = n - 1, mid;
    const uint32_t *e;

    while (lo <= hi) {
        mid = (lo + hi) / 2;
        e = (const uint32_t *)((const char *)base + (size_t)mid * stride);
        if (e[0] == x && e[1] == hop)
            return mid;
        if (e[0] < x || (e[0] == x && e[1] < hop))
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

#define rtopo__find_send(p, x, hop) \
    rtopo__find_ent((p)->send, (p)->nsend, sizeof(rtopo__send_ent_t), x, hop)
#define rtopo__find_recv(p, x, hop) \
    rtopo__find_ent((p)->recv, (p)->nrecv, sizeof(rtopo__recv_ent_t), x, hop)

static void rtopo__on_eager(rtopo__op_t *op, const rtopo__msg_t *m, size_t len)
{
    int ri = rtopo__find_recv(op->plan, m->xfer, m->hop), fi;
    const uint8_t *payload = (const uint8_t *)m + RTOPO__MSG_HDR;
    rtopo__rstate_t *r;
    rtopo__msg_t fm;

    if (ri < 0 || op->plan->recv[ri].peer != m->src || m->sig != op->plan->sig ||
        m->len != rtopo__xf(op, m->xfer)->len || len != RTOPO__MSG_HDR + m->len) {
        rtopo__abort_peer(op, m->src, RTOPO_ERR_MISMATCH, "the operation", m);
        return;
    }
    r = &op->rs[ri];
    if (r->done)
        return;
    fi = op->plan->recv[ri].fwd;
    if (fi < 0) {
        if (m->len)
            memcpy(r->dst, payload, m->len);
    } else {
        rtopo__msg_init(op, &fm, RTOPO__MSG_EAGER, m->xfer, m->hop + 1);
        if (rtopo__ctrl_send(op->ctx, op->plan->send[fi].peer, &fm, payload, m->len)) {
            rtopo__op_fail(op, RTOPO_ERR_TRANSPORT);
            return;
        }
        rtopo__entry_done(op, &op->ss[fi].done);
        if (!op->active)
            return;
    }
    rtopo__entry_done(op, &r->done);
}

static void rtopo__on_rtr(rtopo__op_t *op, const rtopo__msg_t *m)
{
    rtopo_ctx_t *ctx = op->ctx;
    int si = rtopo__find_send(op->plan, m->xfer, m->hop);
    const rtopo__send_ent_t *e;
    rtopo__sstate_t *s;
    uint32_t k;

    if (si < 0 || op->plan->send[si].peer != m->src || m->sig != op->plan->sig ||
        m->len != rtopo__xf(op, m->xfer)->len || m->len <= ctx->params.eager_limit) {
        rtopo__abort_peer(op, m->src, RTOPO_ERR_MISMATCH, "the operation", m);
        return;
    }
    e = &op->plan->send[si];
    s = &op->ss[si];
    if (s->have_rtr)
        return;
    s->have_rtr = 1;
    s->mode = m->mode;
    s->rslot = m->slot;
    s->rkey = m->rkey;
    s->roff = m->roff;
    if (m->mode == RTOPO__WIN_STAGED) {
        s->unit = m->unit;
        s->rk = m->nslots;
        if (s->unit == 0 || s->rk == 0) {
            rtopo__abort_peer(op, m->src, RTOPO_ERR_MISMATCH, "the window", m);
            return;
        }
    } else if (e->upstream < 0 && s->src_mem) {
        s->unit = s->len < ctx->tlattr.max_write ? s->len : ctx->tlattr.max_write;
        if (s->unit == 0)
            s->unit = 1;
    } else {
        s->unit = rtopo__unit(ctx, s->len);
    }
    if (e->upstream >= 0 && s->unit != op->rs[e->upstream].unit) {
        rtopo__abort_peer(op, m->src, RTOPO_ERR_MISMATCH, "the piece size", m);
        return;
    }
    s->npieces = rtopo__npieces(s->len, s->unit);
    /* writes in flight are bounded by whichever slots hold their data */
    if (e->upstream >= 0)
        k = op->rs[e->upstream].ring.k;
    else if (!s->src_mem)
        k = (uint32_t)ctx->params.pipeline_depth;
    else
        k = s->mode == RTOPO__WIN_STAGED ? s->rk : s->npieces;
    if (k > s->npieces)
        k = s->npieces;
    if (s->mode == RTOPO__WIN_STAGED && k > s->rk)
        k = s->rk;
    s->nwctx = k;
    s->wctx = calloc(k, sizeof(*s->wctx));
    if (!s->wctx) {
        rtopo__op_fail(op, RTOPO_ERR_NOMEM);
        return;
    }
    if (e->upstream < 0 && !s->src_mem) {
        if (rtopo__ring_init(&s->ring, k) ||
            rtopo__stage_get(ctx, (size_t)(k * (s->len < s->unit ? s->len : s->unit)),
                             &s->stage)) {
            rtopo__op_fail(op, RTOPO_ERR_NOMEM);
            return;
        }
    }
}

void rtopo__op_handle_msg(rtopo__op_t *op, const rtopo__msg_t *m, size_t len)
{
    int si;

    switch (m->type) {
    case RTOPO__MSG_EAGER:
        rtopo__on_eager(op, m, len);
        break;
    case RTOPO__MSG_RTR:
        rtopo__on_rtr(op, m);
        break;
    case RTOPO__MSG_CREDIT:
        si = rtopo__find_send(op->plan, m->xfer, m->hop);
        if (si >= 0 && m->nslots > op->ss[si].rtail)
            op->ss[si].rtail = m->nslots;
        break;
    case RTOPO__MSG_ABORT:
        rtopo__error(m->status, "rank %d aborted the operation (topology %u seq %u): %s",
                     m->src, m->topo_id, m->seq, rtopo_strerror(m->status));
        rtopo__op_fail(op, m->status);
        break;
    default:
        rtopo__warn("unknown control message type %d from rank %d", m->type, m->src);
    }
}

static void rtopo__send_credit(rtopo__op_t *op, int ridx)
{
    const rtopo__recv_ent_t *e = &op->plan->recv[ridx];
    rtopo__rstate_t *r = &op->rs[ridx];
    rtopo__msg_t m;

    if (r->ring.tail <= r->credited || r->ring.tail >= r->npieces)
        return;
    r->credited = r->ring.tail;
    rtopo__msg_init(op, &m, RTOPO__MSG_CREDIT, e->xfer, e->hop);
    m.nslots = r->ring.tail;
    rtopo__ctrl_send(op->ctx, e->peer, &m, NULL, 0);
}

/* final destination of a staged window: copy landed pieces out in order */
static void rtopo__drain_staged(rtopo__op_t *op, int ridx)
{
    rtopo__rstate_t *r = &op->rs[ridx];
    uint32_t n, slot;
    uint64_t off, sz;

    while (r->next_fwd < r->npieces) {
        n = r->next_fwd;
        slot = n % r->ring.k;
        if (r->slot_piece[slot] != n)
            break;
        off = (uint64_t)n * r->unit;
        sz = r->len - off < r->unit ? r->len - off : r->unit;
        memcpy(r->dst + off, r->stage->buf + (size_t)slot * r->unit, sz);
        r->slot_piece[slot] = ~0u;
        rtopo__ring_release(&r->ring, n);
        r->next_fwd++;
    }
    rtopo__send_credit(op, ridx);
    if (r->next_fwd == r->npieces)
        rtopo__entry_done(op, &r->done);
}

void rtopo__op_handle_imm(rtopo__op_t *op, int ridx, uint32_t imm)
{
    rtopo__rstate_t *r = &op->rs[ridx];
    uint32_t piece = RTOPO__IMM_PIECE(imm);

    if (r->done)
        return;
    r->arrived++;
    if (r->mode == RTOPO__WIN_DIRECT) {
        if (RTOPO__IMM_LAST(imm)) {
            r->last_seen = 1;
            r->npieces = piece + 1;
        }
        if (r->last_seen && r->arrived == r->npieces)
            rtopo__entry_done(op, &r->done);
        return;
    }
    if (piece >= r->npieces) {
        rtopo__error(RTOPO_ERR_MISMATCH, "piece %u beyond the window's %u", piece,
                     r->npieces);
        rtopo__op_fail(op, RTOPO_ERR_MISMATCH);
        return;
    }
    r->slot_piece[piece % r->ring.k] = piece;
    if (op->plan->recv[ridx].fwd < 0)
        rtopo__drain_staged(op, ridx);
    /* forwarding: rtopo__op_advance sends it on */
}

static void rtopo__advance_send(rtopo__op_t *op, int si)
{
    rtopo_ctx_t *ctx = op->ctx;
    const rtopo__send_ent_t *e = &op->plan->send[si];
    rtopo__sstate_t *s = &op->ss[si];
    rtopo__rstate_t *up = e->upstream >= 0 ? &op->rs[e->upstream] : NULL;
    struct rtopo__tl_mr *lmr;
    const uint8_t *src;
    uint64_t off, sz, roff;
    uint32_t n, slot;
    rtopo__wctx_t *w;
    int st;

    while (s->next < s->npieces) {
        n = s->next;
        if (s->mode == RTOPO__WIN_STAGED && n >= s->rtail + s->rk)
            return;
        w = &s->wctx[n % s->nwctx];
        if (w->op)
            return;
        off = (uint64_t)n * s->unit;
        sz = s->len - off < s->unit ? s->len - off : s->unit;
        if (up) {
            slot = n % up->ring.k;
            if (up->slot_piece[slot] != n)
                return;
            src = up->stage->buf + (size_t)slot * up->unit;
            lmr = up->stage->mr;
        } else if (s->src_mem) {
            src = s->src + off;
            lmr = s->src_mem->mr;
        } else {
            if (s->ring.head - s->ring.tail >= s->ring.k)
                return;
            slot = s->ring.head % s->ring.k;
            memcpy(s->stage->buf + (size_t)slot * s->unit, s->src + off, sz);
            src = s->stage->buf + (size_t)slot * s->unit;
            lmr = s->stage->mr;
        }
        roff = s->roff + (s->mode == RTOPO__WIN_STAGED ? (uint64_t)(n % s->rk) * s->unit : off);
        w->op = op;
        w->send_idx = si;
        w->piece = n;
        st = ctx->tlops->write(ctx->tl, e->peer, src, sz, lmr, &s->rkey, roff,
                               RTOPO__IMM(s->rslot, n + 1 == s->npieces, n),
                               RTOPO__TL_IMM, w);
        if (st == RTOPO_ERR_BUSY) {
            w->op = NULL;
            return;
        }
        if (st) {
            w->op = NULL;
            rtopo__op_fail(op, st);
            return;
        }
        if (!up && !s->src_mem)
            s->ring.head++;
        op->inflight++;
        s->next++;
    }
}

static uint32_t rtopo__first_step(const rtopo__op_t *op, const rtopo__xfer_t *x)
{
    return op->plan->sched->hops[x->hop0].step;
}

/* A transfer that starts from RECV or TMP waits until every transfer that
 * lands in an overlapping range of that buffer at an earlier step is in. */
static int rtopo__src_ready(rtopo__op_t *op, int si)
{
    const rtopo__xfer_t *x = rtopo__xf(op, op->plan->send[si].xfer), *y;
    uint32_t step = rtopo__first_step(op, x);
    int i;

    for (i = 0; i < op->plan->nrecv; i++) {
        if (op->plan->recv[i].fwd >= 0 || op->rs[i].done)
            continue;
        y = rtopo__xf(op, op->plan->recv[i].xfer);
        if (y->dst_buf == x->src_buf && y->dst_off < x->src_off + x->len &&
            x->src_off < y->dst_off + y->len &&
            op->plan->sched->hops[y->hop0 + y->nhops - 1].step < step)
            return 0;
    }
    return 1;
}

void rtopo__op_advance(rtopo__op_t *op)
{
    rtopo__sstate_t *s;
    rtopo__msg_t m;
    int i;

    for (i = 0; i < op->plan->nsend && op->active; i++) {
        s = &op->ss[i];
        if (s->done)
            continue;
        if (s->blocked) {
            if (!rtopo__src_ready(op, i))
                continue;
            s->blocked = 0;
            if (s->len <= op->ctx->params.eager_limit) {
                rtopo__msg_init(op, &m, RTOPO__MSG_EAGER, op->plan->send[i].xfer,
                                op->plan->send[i].hop);
                if (rtopo__ctrl_send(op->ctx, op->plan->send[i].peer, &m, s->src, s->len))
                    rtopo__op_fail(op, RTOPO_ERR_TRANSPORT);
                else
                    rtopo__entry_done(op, &s->done);
                continue;
            }
        }
        if (s->have_rtr)
            rtopo__advance_send(op, i);
    }
}

void rtopo__op_handle_write_done(rtopo__wctx_t *w)
{
    rtopo__op_t *op = w->op;
    const rtopo__send_ent_t *e;
    rtopo__sstate_t *s;
    rtopo__rstate_t *up;
    uint32_t piece = w->piece;

    if (!op)
        return;
    w->op = NULL;
    op->inflight--;
    if (!op->active) {
        if (op->zombie && op->inflight == 0) {
            op->zombie = 0;
            rtopo__op_free_state(op, 1);
        }
        return;
    }
    e = &op->plan->send[w->send_idx];
    s = &op->ss[w->send_idx];
    s->completed++;
    if (e->upstream >= 0) {
        up = &op->rs[e->upstream];
        up->slot_piece[piece % up->ring.k] = ~0u;
        rtopo__ring_release(&up->ring, piece);
        rtopo__send_credit(op, e->upstream);
        if (up->ring.tail == up->npieces)
            rtopo__entry_done(op, &up->done);
    } else if (!s->src_mem) {
        rtopo__ring_release(&s->ring, piece);
    }
    if (op->active && s->completed == s->npieces)
        rtopo__entry_done(op, &s->done);
}

void rtopo__op_write_failed(rtopo__wctx_t *w, int status, int peer, const char *msg)
{
    rtopo__op_t *op = w->op;

    if (!op)
        return;
    w->op = NULL;
    op->inflight--;
    if (op->active) {
        rtopo__error(status, "write to rank %d failed: %s", peer, msg);
        rtopo__op_fail(op, status);
    } else if (op->zombie && op->inflight == 0) {
        op->zombie = 0;
        rtopo__op_free_state(op, 1);
    }
}

/* before a request is restarted or freed: let writes of a failed
 * operation complete (they reference its state), within 1 s */
int rtopo__op_drain(rtopo__op_t *op)
{
    uint64_t end = rtopo__now_ns() + 1000000000ull;

    while (op->zombie && rtopo__now_ns() < end) {
        if (rtopo__progress(op->ctx) == 0)
            op->ctx->tlops->wait(op->ctx->tl, 10);
    }
    return op->zombie ? rtopo__error(RTOPO_ERR_BUSY, "writes of a failed operation "
                                     "are still outstanding") : RTOPO_OK;
}
