/*
 * exec.c - the schedule executor.
 *
 * A plan is one rank's share of a schedule (topo/rtopo_sched.h): the hops
 * it sends, receives and forwards, and its parts of the graph's nodes
 * (SEND: a transfer it originates, RECV: a transfer it is the final
 * destination of, LOCAL: a copy or kernel it runs) with the edges among
 * them on this rank.  An operation runs exactly that graph: a part starts
 * when the edges into it are released (a count per part, a queue of
 * released parts), and releases the edges out of it when done.
 *  - SEND starts: an eager message goes out, or pieces are written as soon
 *    as the window and the credits allow; done when every write completed
 *    (the data has left the source range) or the eager copy was taken.
 *  - RECV starts: its window opens (RTR) only now, so no peer writes the
 *    range before the earlier readers and writers on this rank are done;
 *    eager data that came earlier was held and is copied in now.
 *  - LOCAL starts: the copy or kernel runs; its inputs are complete.
 * Forwarding hops are no parts: their windows open at start and pieces
 * move on the moment they land.  The protocol is described in
 * wire.h.
 *
 * Cost: a hop of L bytes in pieces of U over h hops takes about
 * ts + L*tw + (h-1)*(ts + U*tw) once the windows are open (one RTR round
 * trip, overlapped across hops: windows without edges open at start).
 *
 * A plan whose every hop on this rank is eager runs the same graph the
 * eager way (rtopo__plan_eager): the headers of its sends are built with
 * the plan, no window's state is set up or torn down, and a whole message
 * for a receive already started goes straight in; a share of one send and
 * one receive with nothing between them (a small shift) takes the
 * shortest way (rtopo__plan_fast).
 *
 * An operation is done on this rank when every entry and part is done and
 * every write and control message it posted has completed (op->inflight
 * and op->track.out are 0).
 * Any failure after the start fails the job (job.c): the other ranks
 * would otherwise wait for this one until their timeout.
 */
#include "config.h"
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exec.h"
#include "engine.h"
#include "mem.h"
#include "job.h"
#include "probe.h"

uint32_t rtopo__sig(const rtopo__opdesc_t *d)
{
    const uint8_t *b = (const uint8_t *)d;
    uint32_t h = 2166136261u;
    size_t i;

    for (i = 0; i < sizeof(*d); i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

void rtopo__opdesc_shift(rtopo__opdesc_t *d, const rtopo_topo_t *t, long q, size_t bytes,
                         int algo)
{
    rtopo__topo_opdesc(t, d);
    d->kind = RTOPO__OP_SHIFT;
    d->algo = (uint8_t)algo;
    d->q = q;
    d->bytes = bytes;
}

void rtopo__opdesc_sched(rtopo__opdesc_t *d, const rtopo_topo_t *t, long tag, size_t bytes)
{
    rtopo__opdesc_shift(d, t, tag, bytes, 0);
    d->kind = RTOPO__OP_SCHED;
}

/* ---- plans ------------------------------------------------------------- */

static void rtopo__plan_free(rtopo__plan_t *plan)
{
    rtopo__sched_free(plan->sched);
    free(plan->send);
    free(plan->recv);
    free(plan->parts);
    free(plan->succ);
    free(plan->peers);
    free(plan->shdr);
    free(plan->rxid);
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

/* this rank's parts and the edges among them */
static int rtopo__plan_parts(const rtopo_topo_t *t, const rtopo__sched_t *s,
                             rtopo__plan_t *plan)
{
    uint32_t n = s->nxfers + s->nkerns, i, np = 0, ne = 0;
    int32_t *node_part;
    int me = t->me, k;

    node_part = malloc(((size_t)n + 1) * sizeof(*node_part));
    plan->parts = calloc((size_t)plan->nsend + plan->nrecv + plan->nlocal + 1,
                         sizeof(*plan->parts));
    if (!node_part || !plan->parts) {
        free(node_part);
        return RTOPO_ERR_NOMEM;
    }
    for (i = 0; i < n; i++)
        node_part[i] = -1;
    for (k = 0; k < plan->nsend; k++)
        if (plan->send[k].upstream < 0) {
            plan->send[k].part = (int32_t)np;
            node_part[plan->send[k].xfer] = (int32_t)np;
            plan->parts[np++] = (rtopo__part_t){ .type = RTOPO__PART_SEND,
                                                 .idx = (uint32_t)k };
        }
    for (k = 0; k < plan->nrecv; k++)
        if (plan->recv[k].fwd < 0) {
            plan->recv[k].part = (int32_t)np;
            node_part[plan->recv[k].xfer] = (int32_t)np;
            plan->parts[np++] = (rtopo__part_t){ .type = RTOPO__PART_RECV,
                                                 .idx = (uint32_t)k };
        }
    for (i = 0; i < n; i++)
        if (rtopo__sched_part(s, i, me) == RTOPO__PART_LOCAL) {
            node_part[i] = (int32_t)np;
            plan->parts[np++] = (rtopo__part_t){ .type = RTOPO__PART_LOCAL, .idx = i };
        }
    plan->nparts = (int)np;
    /* edges on this rank: count per pred, then place */
    for (i = 0; i < s->ndeps; i++) {
        const rtopo__dep_t *d = &s->deps[i];

        if (d->rank != me)
            continue;
        if (node_part[d->pred] < 0 || node_part[d->succ] < 0) {
            free(node_part);
            return rtopo__error(RTOPO_ERR_INVAL, "edge %u names a node with no part on "
                                "rank %d", i, me);
        }
        plan->parts[node_part[d->pred]].nsucc++;
        plan->parts[node_part[d->succ]].npred++;
        ne++;
    }
    plan->succ = malloc(((size_t)ne + 1) * sizeof(*plan->succ));
    if (!plan->succ) {
        free(node_part);
        return RTOPO_ERR_NOMEM;
    }
    for (i = 0, ne = 0; i < np; i++) {
        plan->parts[i].succ0 = ne;
        ne += plan->parts[i].nsucc;
        plan->parts[i].nsucc = 0;
    }
    for (i = 0; i < s->ndeps; i++) {
        const rtopo__dep_t *d = &s->deps[i];
        rtopo__part_t *pp;

        if (d->rank != me)
            continue;
        pp = &plan->parts[node_part[d->pred]];
        plan->succ[pp->succ0 + pp->nsucc++] = (uint32_t)node_part[d->succ];
    }
    free(node_part);
    return RTOPO_OK;
}

/* Schedule ranks are the topology's labels; peers are job ranks. */
static int rtopo__plan_build(const rtopo_topo_t *t, rtopo__sched_t *s, rtopo__plan_t *plan)
{
    rtopo_ctx_t *ctx = t->ctx;
    int me = t->me, ns = 0, nr = 0, i, j, from, to;
    uint32_t x, k;
    uint8_t *seen;

    for (x = 0; x < s->nxfers; x++) {
        const rtopo__xfer_t xfv = rtopo__sched_xfer(s, x), *xf = &xfv;
        for (k = 1; k <= xf->nhops; k++) {
            from = rtopo__hop_from(s, xf, k);
            to = s->hops[xf->hop0 + k - 1].to;
            ns += from == me;
            nr += to == me;
        }
    }
    for (x = 0; x < s->nxfers + s->nkerns; x++)
        plan->nlocal += rtopo__sched_part(s, x, me) == RTOPO__PART_LOCAL;
    plan->tmp = rtopo__sched_tmp(s, me);
    plan->send = calloc((size_t)ns + 1, sizeof(*plan->send));
    plan->recv = calloc((size_t)nr + 1, sizeof(*plan->recv));
    plan->peers = calloc((size_t)(ns + nr) + 1, sizeof(*plan->peers));
    seen = calloc((size_t)ctx->size, 1);
    if (!plan->send || !plan->recv || !plan->peers || !seen) {
        free(seen);
        return RTOPO_ERR_NOMEM;
    }
    for (x = 0; x < s->nxfers; x++) {
        const rtopo__xfer_t xfv = rtopo__sched_xfer(s, x), *xf = &xfv;
        for (k = 1; k <= xf->nhops; k++) {
            from = rtopo__hop_from(s, xf, k);
            to = s->hops[xf->hop0 + k - 1].to;
            if (from == me) {
                rtopo__send_ent_t *e = &plan->send[plan->nsend++];
                int peer = rtopo__topo_job_rank(t, to);

                e->xfer = x;
                e->hop = k;
                e->peer = peer;
                e->upstream = -1;
                e->part = -1;
                if (k > 1)
                    e->upstream = plan->nrecv - 1;   /* recv (x, k-1) came just before */
                if (!seen[peer]++)
                    plan->peers[plan->npeers++] = peer;
            }
            if (to == me) {
                rtopo__recv_ent_t *e = &plan->recv[plan->nrecv++];
                int peer = rtopo__topo_job_rank(t, from);

                e->xfer = x;
                e->hop = k;
                e->peer = peer;
                e->part = -1;
                e->fwd = k < xf->nhops ? plan->nsend : -1;   /* send (x, k+1) comes next */
                if (!seen[peer]++)
                    plan->peers[plan->npeers++] = peer;
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
    return rtopo__plan_parts(t, s, plan);
}

/* A share whose every hop, sent, received or forwarded, is eager (at most
 * the eager limit: no window, no write, nothing staged): its operations
 * take the eager way (rtopo__eager_run, rtopo__eager_in), the same graph
 * run with each send's header built here once and no window's state to
 * set up or tear down.  Flow control, probes, early messages and every
 * check stay the same. */
static int rtopo__plan_eager(const rtopo_topo_t *t, rtopo__plan_t *plan)
{
    const rtopo__sched_t *s = plan->sched;
    uint64_t lim = t->ctx->params.eager_limit;
    int i;

    for (i = 0; i < plan->nsend; i++)
        if (rtopo__sched_xlen(s, plan->send[i].xfer) > lim)
            return RTOPO_OK;
    for (i = 0; i < plan->nrecv; i++)
        if (rtopo__sched_xlen(s, plan->recv[i].xfer) > lim)
            return RTOPO_OK;
    plan->shdr = calloc((size_t)plan->nsend + 1, sizeof(*plan->shdr));
    plan->rxid = calloc((size_t)plan->nrecv + 1, sizeof(*plan->rxid));
    if (!plan->shdr || !plan->rxid)
        return RTOPO_ERR_NOMEM;
    for (i = 0; i < plan->nsend; i++) {
        rtopo__msg_t m;

        /* rtopo__msg_init's EAGER header */
        memset(&m, 0, RTOPO__MSG_HDR);
        m.type = RTOPO__MSG_EAGER;
        m.src = t->ctx->rank;
        m.auth = t->ctx->peers[t->ctx->rank].token;
        m.topo_id = t->id;
        m.xfer = rtopo__sched_xid(s, plan->send[i].xfer);
        m.hop = plan->send[i].hop;
        m.sig = plan->sig;
        m.len = rtopo__sched_xlen(s, plan->send[i].xfer);
        memcpy(&plan->shdr[i], &m, RTOPO__MSG_HDR);
    }
    for (i = 0; i < plan->nrecv; i++)
        plan->rxid[i] = rtopo__sched_xid(s, plan->recv[i].xfer);
    plan->eager = 1;
    return RTOPO_OK;
}

/* An eager share of one send and one receive, each hop one message, with
 * no edge between them, no forwarding and no copy (a small shift): its
 * operations skip the graph too (rtopo__fast_run, rtopo__fast_eager). */
static void rtopo__plan_fast(const rtopo_topo_t *t, rtopo__plan_t *plan)
{
    const rtopo_ctx_t *ctx = t->ctx;
    const rtopo__sched_t *s = plan->sched;
    uint64_t lim = ctx->params.eager_limit;

    if (ctx->eager_frag && ctx->eager_frag < lim)
        lim = ctx->eager_frag;      /* larger ones go as fragments */
    if (!plan->eager || plan->nsend != 1 || plan->nrecv != 1 || plan->nlocal ||
        plan->nparts != 2 || plan->send[0].upstream >= 0 || plan->recv[0].fwd >= 0 ||
        plan->send[0].part < 0 || plan->recv[0].part < 0 || plan->parts[0].npred ||
        plan->parts[0].nsucc || plan->parts[1].npred || plan->parts[1].nsucc)
        return;
    if (rtopo__sched_xlen(s, plan->send[0].xfer) > lim ||
        rtopo__sched_xlen(s, plan->recv[0].xfer) > lim)
        return;
    plan->fast = 1;
}

/* Takes ownership of s.  The plan has one reference, the caller's. */
int rtopo__plan_new(rtopo_topo_t *t, rtopo__sched_t *s, const rtopo__opdesc_t *d,
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
    plan->desc = *d;
    plan->sig = rtopo__sig(d);
    plan->refs = 1;
    /* a plan keeps its rank's share only (built so, or taken here) */
    st = s->own == t->me + 1 || t->me < 0 || t->me >= s->topo.p || t->whole_plans ?
         RTOPO_OK : rtopo__sched_own(s, t->me);
    if (st == RTOPO_OK)
        st = rtopo__plan_build(t, s, plan);
    if (st == RTOPO_OK)
        st = rtopo__plan_eager(t, plan);
    if (st == RTOPO_OK)
        rtopo__plan_fast(t, plan);
    for (i = 0; st == RTOPO_OK && i < plan->npeers; i++)
        st = rtopo__connect_peer(ctx, plan->peers[i]);
    if (st) {
        rtopo__plan_free(plan);
        return st;
    }
    ctx->plans_built++;
    *plan_p = plan;
    return RTOPO_OK;
}

rtopo__plan_t *rtopo__plan_lookup(rtopo_topo_t *t, const rtopo__opdesc_t *key)
{
    int i;

    for (i = 0; i < RTOPO__PLAN_CACHE; i++)
        if (t->cache[i] && !memcmp(&t->cache[i]->key, key, sizeof(*key))) {
            t->cache[i]->refs++;
            return t->cache[i];
        }
    return NULL;
}

void rtopo__plan_cache(rtopo_topo_t *t, const rtopo__opdesc_t *key, rtopo__plan_t *plan)
{
    int i = t->cache_next++ % RTOPO__PLAN_CACHE;

    plan->key = *key;
    rtopo__plan_put(t->cache[i]);
    t->cache[i] = plan;
    plan->refs++;
}

int rtopo__plan_get(rtopo_topo_t *t, long q, size_t bytes, int algo,
                    rtopo__plan_t **plan_p)
{
    rtopo__plan_t *plan;
    rtopo__opdesc_t key, d;
    rtopo__sched_t *s;
    int st;

    /* a shift repeated: the plan of the topology's spare request, found
     * without building the key */
    if ((plan = t->spare_plan) && rtopo__plan_is_shift(plan, q, bytes, algo)) {
        plan->refs++;
        *plan_p = plan;
        return RTOPO_OK;
    }
    rtopo__opdesc_shift(&key, t, q, bytes, algo);
    if ((*plan_p = rtopo__plan_lookup(t, &key)))
        return RTOPO_OK;
    if (algo == RTOPO_SHIFT_AUTO)   /* ranks make the same calls: same memos */
        st = rtopo__sched_shift_memo(&t->desc, &t->memo, q, bytes, &t->model, &s);
    else
        st = rtopo__sched_shift(&t->desc, algo, q, bytes, &t->model, &s);
    if (st)
        return st;
    rtopo__opdesc_shift(&d, t, q, bytes, s->algo);
    st = rtopo__plan_new(t, s, &d, &plan);
    if (st)
        return st;
    rtopo__plan_cache(t, &key, plan);   /* the caller keeps plan_new's reference */
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
    return len == 0 ? 1 : (uint32_t)(len / unit + (len % unit != 0));
}

/* the shape of transfer x (its buffers, offsets and length) */
static const rtopo__xshape_t *rtopo__xf(const rtopo__op_t *op, uint32_t x)
{
    return rtopo__sched_xshape(op->plan->sched, x);
}

static void rtopo__op_finish(rtopo__op_t *op);

static void rtopo__op_check(rtopo__op_t *op)
{
    if (op->active && op->remaining == 0 && op->inflight == 0 && op->track.out == 0)
        rtopo__op_finish(op);
}

static void rtopo__entry_done(rtopo__op_t *op, int *done)
{
    if (*done)
        return;
    *done = 1;
    op->remaining--;
    rtopo__op_check(op);
}

static void rtopo__msg_init(rtopo__op_t *op, rtopo__msg_t *m, int type, uint32_t x,
                            uint32_t hop)
{
    /* an EAGER message carries its header only: the rest stays unread
     * (a constant size each way: a short memset, not a string store) */
    if (type == RTOPO__MSG_EAGER)
        memset(m, 0, RTOPO__MSG_HDR);
    else
        memset(m, 0, sizeof(*m));
    m->type = (uint8_t)type;
    m->src = op->ctx->rank;     /* rtopo__ctrl_eager sends it as it is */
    m->auth = op->ctx->peers[op->ctx->rank].token;
    m->topo_id = op->topo->id;
    m->seq = op->seq;
    m->xfer = rtopo__sched_xid(op->plan->sched, x);   /* the whole graph's number */
    m->hop = hop;
    m->sig = op->plan->sig;
    m->len = rtopo__xf(op, x)->len;
}

/* ---- flow control ------------------------------------------------------
 *
 * A rank keeps the messages of an operation it has not posted yet (early
 * messages, rtopo__on_op_msg) until it does.  Flow control bounds them:
 * per topology, a rank knows of each peer how many operations the peer
 * has posted at least (t->flow[peer]: a message of operation s from it
 * says s + 1, an ACK its count), and an operation of seq s with a peer
 * that may be RTOPO__FLOW_WINDOW or more behind is held: it is posted (the
 * caller's wait waits for it) but sends nothing, and its messages wait
 * with the early ones, until the peer's count reaches s - WINDOW + 1.
 * A rank tells each peer of an operation its count when it posts it and
 * has not told that peer (by a message of its own or an ACK) for
 * RTOPO__FLOW_ACK_EVERY operations.  As ACK_EVERY <= WINDOW, a rank held
 * at s by a peer is released when that peer posts s at the latest: in a
 * consistent job it does, as every operation before s is released on
 * every rank.  Operations of the same two ranks that exchange messages
 * anyway need no ACK: theirs carry the counts.
 * Topologies alike: every message on topology T says its sender created
 * T + 1 of them (ctx->flow_topo), and an operation on a topology
 * RTOPO__FLOW_TOPOS or more past a peer's is held (a loop that creates a
 * topology and runs one bcast on it would run ahead as far otherwise). */

static uint32_t *rtopo__flow(rtopo_topo_t *t)
{
    if (!t->flow)
        t->flow = calloc(2 * (size_t)t->ctx->size, sizeof(*t->flow));
    return t->flow;
}

/* peer has created topology topo_id */
static void rtopo__flow_heard_topo(rtopo_ctx_t *ctx, int peer, uint32_t topo_id)
{
    if ((int32_t)(topo_id + 1 - ctx->flow_topo[peer]) > 0) {
        ctx->flow_topo[peer] = topo_id + 1;
        if (ctx->flow_held)
            ctx->flow_recheck = 1;
    }
}

/* peer has posted n operations on t at least, and created t (t->flow
 * allocated: an operation on t started) */
static void rtopo__flow_heard(rtopo_topo_t *t, int peer, uint32_t n)
{
    rtopo_ctx_t *ctx = t->ctx;
    uint32_t *f = t->flow;

    rtopo__flow_heard_topo(ctx, peer, t->id);
    if (f && (int32_t)(n - f[peer]) > 0) {
        f[peer] = n;
        if (ctx->flow_held)
            ctx->flow_recheck = 1;
    }
}

/* a message of op to peer tells it op->seq + 1, and the topology */
static inline void rtopo__flow_told(rtopo__op_t *op, int peer)
{
    uint32_t *f = op->topo->flow + op->ctx->size;
    uint32_t *ft = op->ctx->flow_topo + op->ctx->size;

    if ((int32_t)(op->seq + 1 - f[peer]) > 0)
        f[peer] = op->seq + 1;
    if ((int32_t)(op->topo->id + 1 - ft[peer]) > 0)
        ft[peer] = op->topo->id + 1;
}

/* a control message of this operation, counted until the tl completes it */
static int rtopo__op_send(rtopo__op_t *op, int peer, const rtopo__msg_t *m,
                          const void *payload, size_t plen)
{
    rtopo__flow_told(op, peer);
    return rtopo__ctrl_send(op->ctx, peer, m, payload, plen, &op->track);
}

/* rtopo__op_send of an EAGER message built here (its src and auth set) */
static int rtopo__op_send_eager(rtopo__op_t *op, int peer, const rtopo__msg_t *m,
                                const void *payload, size_t plen)
{
    rtopo__flow_told(op, peer);
    return rtopo__ctrl_eager(op->ctx, peer, m, payload, plen, &op->track, NULL);
}

/* the payload of an eager hop that originates here: one message, or
 * fragments of about equal size where the transport delivers messages
 * of at most ctx->eager_frag payload bytes by itself (wire.h).
 * The source stays as it is until s->sent has no message left in the
 * transport, which may send from it. */
static int rtopo__eager_send(rtopo__op_t *op, rtopo__sstate_t *s, int peer, rtopo__msg_t *m)
{
    size_t frag = op->ctx->eager_frag, n, each, off, len = s->len;
    int st;

    rtopo__flow_told(op, peer);
    m->off = 0;
    if (frag == 0 || len <= frag)
        return rtopo__ctrl_eager(op->ctx, peer, m, s->src, len, &op->track, &s->sent);
    n = (len + frag - 1) / frag;
    each = (len + n - 1) / n;
    for (off = 0; off < len; off += each) {
        m->off = (uint32_t)off;
        if ((st = rtopo__ctrl_eager(op->ctx, peer, m, s->src + off,
                                    len - off < each ? len - off : each, &op->track,
                                    &s->sent)))
            return st;
    }
    return RTOPO_OK;
}

/* ---- windows kept across starts -----------------------------------------
 *
 * A window's slot (its index and key, wire.h) stays open from one run of
 * an operation to its next start (a persistent request, or the request a
 * blocking call keeps for the next call on the same plan): the next start
 * sends its RTR with the same id instead of drawing a slot at random, and
 * the slot's line is still in the cache when the writes come.  Between
 * runs the window expects no piece (its entry is cleared: rtopo__on_imm
 * refuses every immediate, as for a closed slot).  A failed operation
 * closes them for good, a released one for reuse.  Slots are kept only
 * while most of them are free: no window of a later operation ever lacks
 * one for them. */
#define RTOPO__KEPT (1ull << 32)

static int rtopo__kept_own(const rtopo__op_t *op, uint64_t k)
{
    return (k & RTOPO__KEPT) &&
           op->ctx->slots[RTOPO__SLOT_INDEX((uint32_t)k)].owner == op;
}

static void rtopo__kept_close(rtopo__op_t *op, int reuse)
{
    int i;

    for (i = 0; op->kept && i < op->plan->nrecv; i++) {
        if (rtopo__kept_own(op, op->kept[i]))
            rtopo__slot_close(op->ctx, (uint32_t)op->kept[i], reuse);
        op->kept[i] = 0;
    }
}

/* The windows of this run: kept open for the next start (keep), closed
 * for reuse, or closed for good after a failure (reuse 0). */
static void rtopo__release_slots(rtopo__op_t *op, int reuse, int keep)
{
    rtopo_ctx_t *ctx = op->ctx;
    int i;

    if (!reuse)
        rtopo__kept_close(op, 0);
    keep = keep && reuse && op->kept && ctx->nslot_free > RTOPO__MAX_SLOTS / 2;
    for (i = 0; i < op->plan->nrecv; i++) {
        rtopo__rstate_t *r = &op->rs[i];
        if (!r->mode || ctx->slots[RTOPO__SLOT_INDEX(r->slot)].owner != op)
            continue;
        if (keep)
            op->kept[i] = RTOPO__KEPT | r->slot;
        else
            rtopo__slot_close(ctx, r->slot, reuse);
    }
}

static void rtopo__op_free_all(rtopo__op_t *op, int keep_staging);

/* what a run of an eager send sets, cleared for the next start */
static inline void rtopo__ss_reset(rtopo__sstate_t *s)
{
    s->done = 0;
    s->blocked = 0;
    s->rtail = 0;   /* (a CREDIT, which no eager hop awaits, sets it) */
    s->op = NULL;
    s->sent.out = 0;
    s->sent.status = 0;
    s->sent.done = NULL;
}

/* a block for n bytes of early data: the first spare large enough, or a
 * new one (rounded up: the next n of about that size takes it again; a
 * kept message's header counted alike for both uses) */
static void *rtopo__eblk_get(rtopo_ctx_t *ctx, size_t n)
{
    rtopo__eblk_t **pp = &ctx->eblk_spare, *b;
    size_t cap;

    while ((b = *pp) && b->cap < n)
        pp = &b->next;
    if (b) {
        *pp = b->next;
        ctx->neblk_spare--;
    } else {
        cap = (n + sizeof(rtopo__umsg_t) + RTOPO__EBLK_ROUND - 1) &
              ~(size_t)(RTOPO__EBLK_ROUND - 1);
        if (!(b = malloc(sizeof(*b) + cap)))
            return NULL;
        b->cap = cap;
        ctx->eblk_alloc++;
    }
    ctx->eblk_taken++;
    if (++ctx->eblk_out > ctx->eblk_peak)
        ctx->eblk_peak = ctx->eblk_out;
    return b + 1;
}

static void rtopo__eblk_put(rtopo_ctx_t *ctx, void *p)
{
    rtopo__eblk_t *b = p ? (rtopo__eblk_t *)p - 1 : NULL;

    if (!b)
        return;
    ctx->eblk_out--;
    if (ctx->neblk_spare < RTOPO__EBLK_SPARES) {
        b->next = ctx->eblk_spare;
        ctx->eblk_spare = b;
        ctx->neblk_spare++;
        return;
    }
    free(b);
}

/* ... and of an eager receive (its early data dropped) */
static inline void rtopo__rs_reset(rtopo_ctx_t *ctx, rtopo__rstate_t *r)
{
    if (r->early) {
        rtopo__eblk_put(ctx, r->early);
        r->early = NULL;
    }
    r->done = r->heard = 0;
    r->eager_got = 0;
}

static void rtopo__op_free_state(rtopo__op_t *op, int keep_staging)
{
    const rtopo__plan_t *plan = op->plan;
    int i;

    /* every hop eager: nothing allocated but the eager data kept for a
     * receive not started yet; the fields a run sets are cleared (no
     * window, write or staging ever touches the rest) */
    if (plan->fast && op->ss && op->rs && op->pstate) {
        /* one send and one receive (rtopo__plan_fast): no loops */
        rtopo__ss_reset(op->ss);
        rtopo__rs_reset(op->ctx, op->rs);
        op->pstate[0] = op->pstate[1] = 0;
        op->nready = op->rhead = op->lhead = op->ltail = 0;
        return;
    }
    if (plan->eager && op->ss && op->rs && op->pstate) {
        for (i = 0; i < plan->nsend; i++)
            rtopo__ss_reset(&op->ss[i]);
        for (i = 0; i < plan->nrecv; i++)
            rtopo__rs_reset(op->ctx, &op->rs[i]);
        for (i = 0; i < plan->nparts; i++)
            op->pstate[i] = 0;
        op->nready = op->rhead = op->lhead = op->ltail = 0;
        return;
    }
    rtopo__op_free_all(op, keep_staging);
}

/* the rest of rtopo__op_free_state, out of line: the short way above
 * saves no registers for its loops */
static __attribute__((noinline)) void rtopo__op_free_all(rtopo__op_t *op, int keep_staging)
{
    int i;

    /* (an eager transfer has none of these: no calls for it) */
    for (i = 0; op->ss && i < op->plan->nsend; i++) {
        rtopo__sstate_t *s = &op->ss[i];

        if (s->ring.released || s->wctx || s->stage || s->opmem) {
            free(s->ring.released);
            free(s->wctx);
            if (!keep_staging)
                rtopo__stage_put(s->stage);
            rtopo__mem_op_put(s->opmem);
        }
    }
    for (i = 0; op->rs && i < op->plan->nrecv; i++) {
        rtopo__rstate_t *r = &op->rs[i];

        if (r->ring.released || r->slot_piece || r->early || r->stage || r->opmem) {
            free(r->ring.released);
            free(r->slot_piece);
            rtopo__eblk_put(op->ctx, r->early);
            r->early = NULL;
            if (!keep_staging)
                rtopo__stage_put(r->stage);
            rtopo__mem_op_put(r->opmem);
        }
    }
    /* the arrays stay, cleared, for the next start of the request (the
     * entries in use: each array has one more, never touched, so that
     * none is allocated empty) */
    if (op->ss)
        memset(op->ss, 0, (size_t)op->plan->nsend * sizeof(*op->ss));
    if (op->rs)
        memset(op->rs, 0, (size_t)op->plan->nrecv * sizeof(*op->rs));
    if (op->pstate)
        memset(op->pstate, 0, (size_t)op->plan->nparts);
    op->nready = op->rhead = op->lhead = op->ltail = 0;
}

void rtopo__op_release(rtopo__op_t *op)
{
    rtopo__kept_close(op, 1);
    free(op->kept);
    op->kept = NULL;
    rtopo__op_free_state(op, 1);
    free(op->ss);
    free(op->rs);
    free(op->pcnt);
    free(op->pstate);
    free(op->ready);
    op->ss = NULL;
    op->rs = NULL;
    op->pcnt = NULL;
    op->pstate = NULL;
    op->ready = NULL;
    op->allocated = 0;
}

static void rtopo__list_del(rtopo__op_t **head, rtopo__op_t *op)
{
    if (op->prev)
        op->prev->next = op->next;
    else
        *head = op->next;
    if (op->next)
        op->next->prev = op->prev;
    op->next = op->prev = NULL;
}

static void rtopo__list_add(rtopo__op_t **head, rtopo__op_t *op)
{
    op->prev = NULL;
    op->next = *head;
    if (*head)
        (*head)->prev = op;
    *head = op;
}

/* the operation leaves the active list (it ended or failed) */
static void rtopo__active_del(rtopo_ctx_t *ctx, rtopo__op_t *op)
{
    if (op->writes)
        ctx->nwriting--;
    rtopo__list_del(&ctx->active, op);
    op->active = 0;
}

static void rtopo__op_ended(rtopo__op_t *op)
{
    struct rtopo__tlast *l = &op->ctx->tlast[op->topo->id];

    l->seq = op->seq;
    l->desc = op->plan->desc;
    l->valid = 1;
    rtopo__probe_ended(op->ctx, op->topo->id, op->seq, &op->plan->desc);
}

static void rtopo__op_finish(rtopo__op_t *op)
{
    op->owner->finished(op);
    if (!op->plan->eager)   /* (eager hops open no window) */
        rtopo__release_slots(op, 1, 1);
    rtopo__active_del(op->ctx, op);
    rtopo__op_ended(op);
    rtopo__op_free_state(op, 0);
}

/* a failed operation whose writes and messages have all completed */
static void rtopo__zombie_done(rtopo__op_t *op)
{
    op->zombie = 0;
    rtopo__list_del(&op->ctx->zombies, op);
    rtopo__op_free_state(op, 1);
    op->owner->reaped(op);
}

/* Ends the operation on this rank with status (the job is failed already,
 * or the caller fails it). */
void rtopo__op_fail(rtopo__op_t *op, int status)
{
    rtopo_ctx_t *ctx = op->ctx;
    int i;

    if (!op->active)
        return;
    if (op->held) {
        op->held = 0;
        ctx->flow_held--;
    }
    op->status = status;
    rtopo__op_ended(op);
    snprintf(op->errmsg, sizeof(op->errmsg), "%s",
             ctx->failed && ctx->failmsg[0] ? ctx->failmsg : rtopo_last_error());
    rtopo__release_slots(op, 0, 0);
    rtopo__active_del(ctx, op);
    /* Peers may still write into staging blocks opened for this operation:
     * never hand them out again. */
    for (i = 0; i < op->plan->nsend; i++)
        if (op->ss[i].stage)
            op->ss[i].stage->in_use = 2;
    for (i = 0; i < op->plan->nrecv; i++) {
        if (op->rs[i].stage)
            op->rs[i].stage->in_use = 2;
        if (op->rs[i].mode == RTOPO__WIN_DIRECT && !op->rs[i].done)
            rtopo__mem_quiesce(ctx, op->rs[i].dst, op->rs[i].len);
        /* the caller's buffer, registered for this operation (and kept
         * in the cache): closed to peers' writes now, as the caller has
         * it back when we return */
        rtopo__mem_op_close(op->rs[i].opmem);
        op->rs[i].opmem = NULL;
    }
    if (op->inflight > 0 || op->track.out > 0) {
        op->zombie = 1;   /* state freed when the last completion comes */
        rtopo__list_add(&ctx->zombies, op);
    } else {
        rtopo__op_free_state(op, 1);
    }
}

static void rtopo__op_fail_all(rtopo_ctx_t *ctx, int status)
{
    while (ctx->active)
        rtopo__op_fail(ctx->active, status);
}

/* Something went wrong in this operation: the job fails on every rank. */
static void rtopo__op_error(rtopo__op_t *op, int status, int culprit, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void rtopo__op_error(rtopo__op_t *op, int status, int culprit, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    rtopo__error(status, "%s", msg);
    rtopo__job_abort(op->ctx, status, culprit, &op->plan->desc, op->topo->id, op->seq,
                     "%s", msg);
}

/* A control message of op could not be handed to the transport: the
 * transport's verdict stands (a peer whose connection is gone is that
 * peer's failure, RTOPO_ERR_PEER, as a launcher would report it). */
static void rtopo__op_send_failed(rtopo__op_t *op, int st, int peer, const char *what)
{
    if (st >= 0 || st == RTOPO_ERR_BUSY)
        st = RTOPO_ERR_TRANSPORT;
    rtopo__op_error(op, st, st == RTOPO_ERR_PEER ? peer : -1, "%s to rank %d: %s", what, peer,
                    rtopo_last_error());
}

static void rtopo__op_track_done(rtopo__track_t *t)
{
    rtopo__op_t *op = rtopo__container_of(t, rtopo__op_t, track);

    if (op->zombie) {
        if (op->inflight == 0 && t->out == 0)
            rtopo__zombie_done(op);
        return;
    }
    if (t->status && op->active && !op->ctx->failed) {
        int st = t->status;
        t->status = 0;
        rtopo__op_error(op, st, -1, "a control message of operation %u on topology %u "
                        "failed: %s", rtopo__user_seq(op->ctx, op->topo->id, op->seq),
                        op->topo->id, rtopo_strerror(st));
        return;
    }
    rtopo__op_check(op);
}

static int rtopo__on_imm(void *owner, int ridx, uint32_t imm, size_t len);

/* A wait polls for RTOPO_SPIN_US after its last event and then sleeps;
 * the write that ends the sleep pays a wake on both sides (a system call
 * for the writer, a scheduling delay of tens of microseconds for the
 * sleeper), and a poll that keeps its processor meanwhile may hold back
 * the writer itself where the ranks (or other work) outnumber the
 * processors.  A window whose data the model expects later than that
 * spin (twice its hop's step times the hop's time: about when the write
 * lands in a schedule of like steps, with room for a writer that starts
 * late or runs slower than the model) keeps its operation's wait polling
 * until then, yielding the processor after every empty poll, at most
 * RTOPO__SPIN_WIN_NS past its opening (rtopo__op_wait).  op->spin_ns of
 * an earlier run is past: it keeps no wait polling. */
#define RTOPO__SPIN_WIN_NS 1000000ull

static void rtopo__window_spin(rtopo__op_t *op, int ridx)
{
    const rtopo__sched_t *s = op->plan->sched;
    const rtopo__recv_ent_t *e = &op->plan->recv[ridx];
    const rtopo__xfer_t xv = rtopo__sched_xfer(s, e->xfer), *x = &xv;
    const rtopo__hop_t *h = &s->hops[x->hop0 + e->hop - 1];
    double ts, tw, t;
    uint64_t ns;

    /* (RTOPO_SPIN_US=0: the caller asked to block at once; with more
     * ranks on the host than processors a waiter that stays runnable
     * takes its share of a processor from the writers, yield or not,
     * where a sleeper leaves it to them) */
    if (op->ctx->poll_only || op->ctx->params.spin_us <= 0 || op->ctx->oversub)
        return;
    rtopo__model_hop(&op->topo->model, h->link, rtopo__hop_from(s, x, e->hop), h->to, &ts,
                     &tw);
    t = 2e9 * (ts + (double)x->len * tw) * (h->step > 1 ? (double)h->step : 1.0);
    if (!(t > (double)op->ctx->params.spin_us * 1000.0))
        return;
    ns = t < (double)RTOPO__SPIN_WIN_NS ? (uint64_t)t : RTOPO__SPIN_WIN_NS;
    ns += rtopo__now_ns();
    if (ns > op->spin_ns)
        op->spin_ns = ns;
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

    if (op->kept && rtopo__kept_own(op, op->kept[ridx])) {
        r->slot = (uint32_t)op->kept[ridx];    /* the last run's window */
        op->kept[ridx] = 0;
    } else if ((st = rtopo__slot_open(ctx, rtopo__on_imm, op, ridx, e->peer, &r->slot))) {
        return st;
    }
    rtopo__msg_init(op, &m, RTOPO__MSG_RTR, e->xfer, e->hop);
    m.slot = r->slot;
    if (r->dst && !(region = rtopo__mem_find(ctx, r->dst, r->len)))
        region = r->opmem = rtopo__mem_op_get(ctx, r->dst, r->len, 1);
    if (region) {
        r->mode = RTOPO__WIN_DIRECT;
        m.rkey = region->rkey;
        m.roff = (uint64_t)(r->dst - region->buf);
    } else {
        r->mode = RTOPO__WIN_STAGED;
        if (r->dst && !op->plan->staged_noted) {
            op->plan->staged_noted = 1;
            rtopo__info("receive buffer %p (%llu bytes) is not registered: data goes "
                        "through staging (rtopo_mem_register makes it zero-copy)",
                        (void *)r->dst, (unsigned long long)r->len);
        }
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
    rtopo__window_spin(op, ridx);
    return rtopo__op_send(op, e->peer, &m, NULL, 0);
}

static void rtopo__take_early(rtopo__op_t *op);
static void rtopo__advance(rtopo__op_t *op);

/* ---- parts: the graph on this rank ------------------------------------ */

/* a part ended: release the edges out of it */
static void rtopo__part_done(rtopo__op_t *op, int32_t pi)
{
    const rtopo__part_t *pt;
    uint32_t j, v;

    if (pi < 0 || op->pstate[pi] == 2)
        return;
    op->pstate[pi] = 2;
    pt = &op->plan->parts[pi];
    for (j = 0; j < pt->nsucc; j++) {
        v = op->plan->succ[pt->succ0 + j];
        if (--op->pcnt[v] == 0)
            op->ready[op->nready++] = v;
    }
}

static void rtopo__parts_run(rtopo__op_t *op);

/* an origin send's data has left its source (all writes completed, or
 * the eager message holds a copy) */
static void rtopo__send_done(rtopo__op_t *op, int si)
{
    if (op->ss[si].done)
        return;
    rtopo__part_done(op, op->plan->send[si].part);
    rtopo__entry_done(op, &op->ss[si].done);
    if (op->active)
        rtopo__parts_run(op);
}

/* an eager message sent from an origin's source completed (failures
 * reach the operation through its own track) */
static void rtopo__eager_sent(rtopo__track_t *t)
{
    rtopo__sstate_t *s = rtopo__container_of(t, rtopo__sstate_t, sent);
    rtopo__op_t *op = s->op;

    if (t->out == 0 && op->active && !t->status)
        rtopo__send_done(op, (int)(s - op->ss));
}

/* a final receive's data is in its destination */
static void rtopo__recv_done(rtopo__op_t *op, int ri)
{
    if (op->rs[ri].done)
        return;
    rtopo__part_done(op, op->plan->recv[ri].part);
    rtopo__entry_done(op, &op->rs[ri].done);
    if (op->active)
        rtopo__parts_run(op);
}

static int rtopo__local_run(rtopo__op_t *op, uint32_t node)
{
    const rtopo__sched_t *s = op->plan->sched;
    uint8_t *const *bufs = (uint8_t *const *)op->bufs;
    const rtopo__xshape_t *x;

    if (node >= s->nxfers) {
        const rtopo__kern_t k = rtopo__sched_kern(s, node - s->nxfers);

        return rtopo__kern_run(&k, bufs);
    }
    x = rtopo__sched_xshape(s, node);
    if (x->len)
        memmove(bufs[x->dst_buf] + x->dst_off, bufs[x->src_buf] + x->src_off, x->len);
    return RTOPO_OK;
}

static void rtopo__part_start(rtopo__op_t *op, uint32_t pi)
{
    const rtopo__part_t *pt = &op->plan->parts[pi];
    size_t eager = op->ctx->params.eager_limit;
    int idx = (int)pt->idx, st;
    rtopo__msg_t m;

    op->pstate[pi] = 1;
    switch (pt->type) {
    case RTOPO__PART_SEND: {
        const rtopo__send_ent_t *e = &op->plan->send[idx];
        rtopo__sstate_t *s = &op->ss[idx];

        s->blocked = 0;
        if (s->len > eager)
            return;    /* writes go out once the window is known */
        if (op->plan->eager) {
            memcpy(&m, &op->plan->shdr[idx], RTOPO__MSG_HDR);  /* rtopo__msg_init's */
            m.seq = op->seq;
        } else {
            rtopo__msg_init(op, &m, RTOPO__MSG_EAGER, e->xfer, e->hop);
        }
        s->op = op;
        s->sent.out = 0;
        s->sent.status = 0;
        s->sent.done = NULL;
        if ((st = rtopo__eager_send(op, s, e->peer, &m)))
            rtopo__op_send_failed(op, st, e->peer, "eager send");
        else if (s->sent.out)
            s->sent.done = rtopo__eager_sent;   /* sent from s->src: not yet */
        else
            rtopo__send_done(op, idx);
        return;
    }
    case RTOPO__PART_RECV: {
        rtopo__rstate_t *r = &op->rs[idx];

        if (r->len > eager) {
            if ((st = rtopo__send_rtr(op, idx)))
                rtopo__op_error(op, st, -1, "opening a window for rank %d: %s",
                                op->plan->recv[idx].peer, rtopo_last_error());
        } else if (r->early) {
            /* the fragments still to come go straight to r->dst */
            if (r->len)
                memcpy(r->dst, r->early, r->len);
            rtopo__eblk_put(op->ctx, r->early);
            r->early = NULL;
            if (r->eager_got == r->len)
                rtopo__recv_done(op, idx);
        }
        return;
    }
    default:
        if ((st = rtopo__local_run(op, pt->idx))) {
            rtopo__debug("schedule node %u failed: %s", pt->idx, rtopo_last_error());
            rtopo__op_error(op, st, -1, "%s", rtopo_last_error());
            return;
        }
        rtopo__part_done(op, (int32_t)pi);
        op->remaining--;
        rtopo__op_check(op);
    }
}

/* Starts the parts whose edges are all released, in the order released
 * (each part enters the queue once), except that a local part (a copy or
 * a kernel, which runs to its end here) waits until every released send
 * and receive has started: those only post, and a peer may be waiting
 * for what they post (a window's RTR, an eager payload) while this rank
 * copies.  The local parts put off keep their order in the slots the
 * queue has consumed ([lhead, ltail): never more than rhead of them). */
static void rtopo__parts_run(rtopo__op_t *op)
{
    uint32_t pi;

    if (op->running)
        return;
    op->running = 1;
    while (op->active) {
        if (op->rhead < op->nready) {
            pi = op->ready[op->rhead++];
            if (op->plan->parts[pi].type == RTOPO__PART_LOCAL)
                op->ready[op->ltail++] = pi;
            else
                rtopo__part_start(op, pi);
        } else if (op->lhead < op->ltail) {
            rtopo__part_start(op, op->ready[op->lhead++]);
        } else {
            break;
        }
    }
    op->running = 0;
}

/* the ACK of rtopo__flow_post to peer (out of line: most posts send none);
 * whether op is still active */
static __attribute__((noinline)) int rtopo__flow_ack(rtopo__op_t *op, int peer)
{
    rtopo__msg_t m;
    int st;

    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_ACK;
    m.topo_id = op->topo->id;
    m.seq = op->seq;    /* op->seq + 1 operations posted */
    m.sig = op->plan->sig;
    if ((st = rtopo__op_send(op, peer, &m, NULL, 0)))
        rtopo__op_send_failed(op, st, peer, "flow control message");
    return op->active;
}

/* Posting op: tells each peer of it this rank's count on the topology
 * when it has not for RTOPO__FLOW_ACK_EVERY operations (or topologies).
 * Returns whether some peer may be too far behind for op to send. */
static int rtopo__flow_post(rtopo__op_t *op)
{
    const rtopo_ctx_t *ctx = op->ctx;
    const uint32_t *f = op->topo->flow, *ft = ctx->flow_topo;
    const uint32_t *told = f + ctx->size, *told_t = ft + ctx->size;
    const int *peers = op->plan->peers;
    uint32_t seq = op->seq, tid = op->topo->id;
    int i, np = op->plan->npeers, peer, behind = 0;

    for (i = 0; i < np; i++) {
        peer = peers[i];
        if ((int32_t)(seq - f[peer]) >= (int32_t)RTOPO__FLOW_WINDOW ||
            (int32_t)(tid - ft[peer]) >= (int32_t)RTOPO__FLOW_TOPOS)
            behind = 1;
        if ((int32_t)(seq + 1 - told[peer]) < (int32_t)RTOPO__FLOW_ACK_EVERY &&
            (int32_t)(tid + 1 - told_t[peer]) < (int32_t)RTOPO__FLOW_TOPOS_ACK)
            continue;
        if (!rtopo__flow_ack(op, peer))
            break;
    }
    return behind;
}

/* a peer of op that may be RTOPO__FLOW_WINDOW operations or more behind,
 * or -1 */
static int rtopo__flow_behind(const rtopo__op_t *op)
{
    const uint32_t *f = op->topo->flow, *ft = op->ctx->flow_topo;
    int i, peer;

    for (i = 0; i < op->plan->npeers; i++) {
        peer = op->plan->peers[i];
        if ((int32_t)(op->seq - f[peer]) >= (int32_t)RTOPO__FLOW_WINDOW ||
            (int32_t)(op->topo->id - ft[peer]) >= (int32_t)RTOPO__FLOW_TOPOS)
            return peer;
    }
    return -1;
}

static void rtopo__early_walk(rtopo_ctx_t *ctx, rtopo_topo_t *t, rtopo__op_t *op);

/* -1 when op may start sending, else the peer it waits for (op is held
 * then); the counts that came before the topology existed here are among
 * the early messages */
static int rtopo__flow_hold(rtopo__op_t *op)
{
    op->held = 1;
    rtopo__early_walk(op->ctx, op->topo, op);
    op->held = 0;
    return rtopo__flow_behind(op);
}

static int rtopo__op_run(rtopo__op_t *op);

/* Starts the held operations whose peers have caught up, oldest first
 * (the active list has the newest first). */
static void rtopo__flow_release(rtopo_ctx_t *ctx)
{
    rtopo__op_t *op, *prev;

    ctx->flow_recheck = 0;
    for (op = ctx->active; op && op->next; op = op->next)
        ;
    for (; op && ctx->flow_held; op = prev) {
        prev = op->prev;
        if (!op->held || rtopo__flow_behind(op) >= 0)
            continue;
        op->held = 0;
        ctx->flow_held--;
        rtopo__op_run(op);
    }
}

/* Per-run state: allocated at the first start, cleared at each end
 * (rtopo__op_free_state) and freed with the request (rtopo__op_release).
 * 0 when some array is missing; kept may be (without it, windows are
 * opened at every start), and is asked for again at the next start. */
static __attribute__((noinline)) int rtopo__op_alloc(rtopo__op_t *op)
{
    const rtopo__plan_t *plan = op->plan;

    if (!op->ss)
        op->ss = calloc((size_t)plan->nsend + 1, sizeof(*op->ss));
    if (!op->rs)
        op->rs = calloc((size_t)plan->nrecv + 1, sizeof(*op->rs));
    if (!op->pcnt)
        op->pcnt = malloc(((size_t)plan->nparts + 1) * sizeof(*op->pcnt));
    if (!op->pstate)
        op->pstate = calloc((size_t)plan->nparts + 1, 1);
    if (!op->ready)
        op->ready = malloc(((size_t)plan->nparts + 1) * sizeof(*op->ready));
    if (!op->kept)
        op->kept = calloc((size_t)plan->nrecv + 1, sizeof(*op->kept));
    if (!op->ss || !op->rs || !op->pcnt || !op->pstate || !op->ready)
        return 0;
    op->allocated = op->kept != NULL;
    return 1;
}

/* the operation's deadline and first probe, from now: read after its
 * start has sent what it can (the clock is not on the way of its first
 * message) */
static inline void rtopo__op_clock(rtopo__op_t *op)
{
    uint64_t t = (uint64_t)op->ctx->timeout_ms * 1000000ull,
             now = rtopo__now_ns_upper();

    op->deadline_ns = now + t;
    op->probe_ns = now + RTOPO__PROBE_FIRST_MS * 1000000ull;
}

int rtopo__op_start(rtopo__op_t *op)
{
    rtopo_ctx_t *ctx = op->ctx;
    const rtopo__plan_t *plan = op->plan;
    int st;

    if (!ctx->failed) {
        op->seq = op->topo->next_seq++;
        if (!op->internal)
            rtopo__job_op_started(ctx);
    }
    if (ctx->failed) {
        rtopo__await_named(ctx, RTOPO__NAMING_MS);
        op->status = ctx->failed;
        return rtopo__error(ctx->failed, "%s", ctx->failmsg);
    }
    op->status = RTOPO_OK;
    op->zombie = 0;
    op->inflight = 0;
    op->errmsg[0] = '\0';
    op->track.out = 0;
    op->track.status = 0;
    op->track.done = rtopo__op_track_done;
    /* the clock is read once the operation's first messages are out
     * (rtopo__op_clock): until then no wait and no probe looks */
    op->deadline_ns = op->probe_ns = UINT64_MAX;
    op->nready = op->rhead = op->lhead = op->ltail = 0;
    op->running = 0;
    op->writes = 0;
    if (!op->allocated && !rtopo__op_alloc(op)) {
        rtopo__op_release(op);
        st = rtopo__error(RTOPO_ERR_NOMEM, "operation state");
        rtopo__job_abort(ctx, st, -1, &plan->desc, op->topo->id, op->seq, "%s",
                         "out of memory starting an operation");
        return op->status = st;
    }
    /* +1: start in progress */
    op->remaining = plan->nsend + plan->nrecv + plan->nlocal + 1;
    op->active = 1;
    op->held = 0;
    rtopo__list_add(&ctx->active, op);
    if (!op->topo->flow && !rtopo__flow(op->topo)) {
        rtopo__op_error(op, RTOPO_ERR_NOMEM, -1, "flow control state");
        return op->status;
    }
    if (rtopo__flow_post(op) && op->active && rtopo__flow_hold(op) >= 0) {
        op->held = 1;
        ctx->flow_held++;
        rtopo__op_clock(op);
        rtopo__thread_kick(ctx);
        return RTOPO_OK;
    }
    st = rtopo__op_run(op);
    rtopo__op_clock(op);
    return st;
}

/* The end of every start: the messages that came for the operation
 * before it started are taken, the start's own reference is dropped (the
 * operation may end here), writes that can go are pushed (advance: a plan
 * with windows) and the progress thread is told. */
static inline int rtopo__run_end(rtopo__op_t *op, int advance)
{
    rtopo_ctx_t *ctx = op->ctx;

    if (op->active && ctx->unexp)
        rtopo__take_early(op);
    if (op->active) {
        op->remaining--;     /* drop the start reference */
        if (advance)
            rtopo__advance(op);
        rtopo__op_check(op);
    }
    rtopo__thread_kick(ctx);
    return RTOPO_OK;
}

/* every part's count of predecessors set; those with none are ready */
static inline void rtopo__parts_ready(rtopo__op_t *op)
{
    const rtopo__plan_t *plan = op->plan;
    int i;

    for (i = 0; i < plan->nparts; i++) {
        op->pcnt[i] = plan->parts[i].npred;
        if (!op->pcnt[i])
            op->ready[op->nready++] = (uint32_t)i;
    }
}

/* rtopo__op_run of a plan of one eager send and one eager receive
 * (plan->fast): both parts start at once, as the graph would start them;
 * the send goes out, and the peer's message, if it came before, is taken */
static int rtopo__fast_run(rtopo__op_t *op)
{
    rtopo_ctx_t *ctx = op->ctx;
    const rtopo__plan_t *plan = op->plan;
    const rtopo__send_ent_t *e = plan->send;
    const rtopo__xshape_t *xs = rtopo__xf(op, e->xfer), *xr = rtopo__xf(op, plan->recv->xfer);
    rtopo__sstate_t *s = op->ss;
    rtopo__rstate_t *r = op->rs;
    rtopo__msg_t m;
    int st;

    s->len = xs->len;
    s->src = op->bufs[xs->src_buf] + xs->src_off;
    rtopo__probe_started(ctx, op->topo->id, op->seq, &plan->desc);
    if (!op->active)
        return RTOPO_OK;
    memcpy(&m, plan->shdr, RTOPO__MSG_HDR);     /* rtopo__msg_init's */
    m.seq = op->seq;
    s->op = op;
    s->sent.out = 0;
    s->sent.status = 0;
    s->sent.done = NULL;
    st = rtopo__eager_send(op, s, e->peer, &m);
    /* the receive's state, once the message is out: nothing reads it
     * before the next progress pass */
    r->len = xr->len;
    r->dst = (uint8_t *)op->bufs[xr->dst_buf] + xr->dst_off;
    op->pcnt[0] = op->pcnt[1] = 0;
    op->pstate[e->part] = op->pstate[plan->recv->part] = 1;
    op->plan->eager_runs++;
    if (st) {
        rtopo__op_send_failed(op, st, e->peer, "eager send");
    } else if (s->sent.out) {
        s->sent.done = rtopo__eager_sent;   /* sent from s->src: not yet */
    } else {
        s->done = 1;
        op->pstate[e->part] = 2;
        op->remaining--;
    }
    return rtopo__run_end(op, 0);
}

/* rtopo__op_run of a plan whose every hop is eager (plan->eager): the
 * same graph started the same way, less what windows and writes need (no
 * window opened, no registered region looked up, no write to push) */
static int rtopo__eager_run(rtopo__op_t *op)
{
    rtopo_ctx_t *ctx = op->ctx;
    rtopo__plan_t *plan = op->plan;
    const rtopo__sched_t *sc = plan->sched;
    int i;

    plan->eager_runs++;
    rtopo__parts_ready(op);
    for (i = 0; i < plan->nrecv; i++) {
        const rtopo__recv_ent_t *e = &plan->recv[i];
        const rtopo__xshape_t *x = rtopo__sched_xshape(sc, e->xfer);
        rtopo__rstate_t *r = &op->rs[i];

        r->len = x->len;
        r->dst = e->fwd < 0 ? (uint8_t *)op->bufs[x->dst_buf] + x->dst_off : NULL;
    }
    for (i = 0; i < plan->nsend; i++) {
        const rtopo__send_ent_t *e = &plan->send[i];
        const rtopo__xshape_t *x = rtopo__sched_xshape(sc, e->xfer);
        rtopo__sstate_t *ss = &op->ss[i];

        ss->len = x->len;
        if (e->upstream >= 0)
            continue;
        ss->src = op->bufs[x->src_buf] + x->src_off;
        ss->blocked = 1;
    }
    rtopo__probe_started(ctx, op->topo->id, op->seq, &plan->desc);
    if (op->active)
        rtopo__parts_run(op);
    return rtopo__run_end(op, 0);
}

/* the rest of the start, once flow control lets the operation send */
static int rtopo__op_run(rtopo__op_t *op)
{
    rtopo_ctx_t *ctx = op->ctx;
    const rtopo__plan_t *plan = op->plan;
    size_t eager = ctx->params.eager_limit;
    int i, st = RTOPO_OK;

    if (!op->active)
        return op->status;
    if (plan->fast)
        return rtopo__fast_run(op);
    if (plan->eager)
        return rtopo__eager_run(op);
    rtopo__parts_ready(op);
    /* windows of forwarded hops open now; final ones when their part starts */
    for (i = 0; i < plan->nrecv && op->active; i++) {
        const rtopo__recv_ent_t *e = &plan->recv[i];
        const rtopo__xshape_t *x = rtopo__xf(op, e->xfer);
        rtopo__rstate_t *r = &op->rs[i];

        r->len = x->len;
        r->dst = e->fwd < 0 ? (uint8_t *)op->bufs[x->dst_buf] + x->dst_off : NULL;
        if (e->fwd >= 0 && x->len > eager && (st = rtopo__send_rtr(op, i)))
            goto fail;
    }
    for (i = 0; i < plan->nsend && op->active; i++) {
        const rtopo__send_ent_t *e = &plan->send[i];
        const rtopo__xshape_t *x = rtopo__xf(op, e->xfer);
        rtopo__sstate_t *ss = &op->ss[i];

        ss->len = x->len;
        if (e->upstream >= 0)
            continue;
        ss->src = op->bufs[x->src_buf] + x->src_off;
        if (x->len > eager) {
            ss->src_mem = rtopo__mem_find(ctx, ss->src, x->len);
            if (!ss->src_mem)
                ss->src_mem = ss->opmem = rtopo__mem_op_get(ctx, ss->src, x->len, 0);
            if (!ss->src_mem && !plan->staged_noted) {
                op->plan->staged_noted = 1;
                rtopo__info("send buffer %p (%llu bytes) is not registered: data goes "
                            "through staging (rtopo_mem_register makes it zero-copy)",
                            (const void *)ss->src, (unsigned long long)x->len);
            }
        }
        ss->blocked = 1;
    }
    /* a peer that asked about this operation before it started here */
    rtopo__probe_started(ctx, op->topo->id, op->seq, &plan->desc);
    if (op->active)
        rtopo__parts_run(op);
    return rtopo__run_end(op, 1);
fail:
    if (op->active)
        rtopo__op_error(op, st, -1, "starting operation %u on topology %u: %s",
                        rtopo__user_seq(op->ctx, op->topo->id, op->seq), op->topo->id,
                        rtopo_last_error());
    return op->status;
}

/* ---- incoming control messages ----------------------------------------- */

static void rtopo__mismatch(rtopo__op_t *op, const rtopo__msg_t *m, const char *what)
{
    rtopo__op_error(op, RTOPO_ERR_MISMATCH, m->src,
                    "rank %d sent %s this rank's operation %u on topology %u does not "
                    "expect (transfer %u hop %u, %llu bytes, signature %08x, here %08x): "
                    "ranks must call the collective with the same arguments",
                    m->src, what, rtopo__user_seq(op->ctx, op->topo->id, op->seq),
                    op->topo->id, m->xfer, m->hop,
                    (unsigned long long)m->len, m->sig, op->plan->sig);
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

/* the message names a transfer of this rank's plan (*x_p: its index) */
static int rtopo__xfer_ok(const rtopo__op_t *op, const rtopo__msg_t *m, uint32_t *x_p)
{
    *x_p = rtopo__sched_xfind(op->plan->sched, m->xfer);
    return m->sig == op->plan->sig && *x_p != UINT32_MAX &&
           m->len == rtopo__xf(op, *x_p)->len;
}

/* an eager hop's payload, whole or one fragment (its offset in m->off) */
static void rtopo__on_eager(rtopo__op_t *op, const rtopo__msg_t *m, size_t len)
{
    int ri = -1, fi, st;
    const uint8_t *payload = (const uint8_t *)m + RTOPO__MSG_HDR;
    size_t plen = len - RTOPO__MSG_HDR;    /* len >= RTOPO__MSG_HDR: on_ctrl */
    rtopo__rstate_t *r = NULL;
    rtopo__msg_t fm;
    uint32_t x;

    if (rtopo__xfer_ok(op, m, &x))
        ri = rtopo__find_recv(op->plan, x, m->hop);
    if (ri >= 0)
        r = &op->rs[ri];
    if (ri < 0 || op->plan->recv[ri].peer != m->src ||
        m->len > op->ctx->params.eager_limit || m->off > m->len ||
        plen > m->len - m->off || (plen == 0 && m->len != 0)) {
        rtopo__mismatch(op, m, "data");
        return;
    }
    if (r->done)
        return;
    if (plen > m->len - r->eager_got) {
        rtopo__mismatch(op, m, "surplus data");
        return;
    }
    r->heard = 1;
    fi = op->plan->recv[ri].fwd;
    if (fi < 0) {
        if (!op->pstate[op->plan->recv[ri].part]) {
            /* its part waits for earlier ones on this rank: keep the data */
            if (!r->early)
                r->early = rtopo__eblk_get(op->ctx, m->len);
            if (!r->early) {
                rtopo__op_error(op, RTOPO_ERR_NOMEM, -1, "keeping %llu bytes from "
                                "rank %d", (unsigned long long)m->len, m->src);
                return;
            }
            if (plen)
                memcpy(r->early + m->off, payload, plen);
            r->eager_got += plen;
            return;
        }
        if (plen)
            memcpy(r->dst + m->off, payload, plen);
        r->eager_got += plen;
        if (r->eager_got == m->len)
            rtopo__recv_done(op, ri);
        return;
    }
    /* forwarded as it comes, fragment by fragment */
    if (op->plan->eager) {
        memcpy(&fm, &op->plan->shdr[fi], RTOPO__MSG_HDR);   /* rtopo__msg_init's */
        fm.seq = op->seq;
    } else {
        rtopo__msg_init(op, &fm, RTOPO__MSG_EAGER, x, m->hop + 1);
    }
    fm.off = m->off;
    if ((st = rtopo__op_send_eager(op, op->plan->send[fi].peer, &fm, payload, plen))) {
        rtopo__op_send_failed(op, st, op->plan->send[fi].peer, "forwarding");
        return;
    }
    r->eager_got += plen;
    if (r->eager_got < m->len)
        return;
    rtopo__entry_done(op, &op->ss[fi].done);
    if (!op->active)
        return;
    rtopo__entry_done(op, &r->done);
}

/* rtopo__on_eager of a plan of one eager send and receive (plan->fast):
 * the one whole message its receive expects goes straight in; anything
 * else takes the general way, which tells what is wrong with it */
static void rtopo__fast_eager(rtopo__op_t *op, const rtopo__msg_t *m, size_t len)
{
    const rtopo__plan_t *plan = op->plan;
    const rtopo__recv_ent_t *e = plan->recv;
    rtopo__rstate_t *r = op->rs;
    size_t plen = len - RTOPO__MSG_HDR;    /* len >= RTOPO__MSG_HDR: on_ctrl */

    if (m->xfer != plan->rxid[0] || m->hop != e->hop || m->sig != plan->sig ||
        m->src != e->peer || m->len != r->len || m->off != 0 || plen != m->len ||
        r->done || r->eager_got) {
        rtopo__on_eager(op, m, len);
        return;
    }
    if (plen)
        memcpy(r->dst, (const uint8_t *)m + RTOPO__MSG_HDR, plen);
    r->eager_got = plen;
    r->heard = 1;
    r->done = 1;
    op->pstate[e->part] = 2;
    op->remaining--;
    rtopo__op_check(op);
}

/* rtopo__on_eager of a plan whose every hop is eager (plan->eager), of few
 * receives: a whole message for a final receive whose part has started
 * goes straight in; anything else takes the general way, which keeps it
 * for a part not started yet, forwards it, or tells what is wrong */
#define RTOPO__EAGER_SCAN 8

static void rtopo__eager_in(rtopo__op_t *op, const rtopo__msg_t *m, size_t len)
{
    const rtopo__plan_t *plan = op->plan;
    size_t plen = len - RTOPO__MSG_HDR;    /* len >= RTOPO__MSG_HDR: on_ctrl */
    const rtopo__recv_ent_t *e;
    rtopo__rstate_t *r;
    int ri;

    for (ri = 0; ri < plan->nrecv; ri++)
        if (plan->rxid[ri] == m->xfer && plan->recv[ri].hop == m->hop)
            break;
    if (ri == plan->nrecv) {
        rtopo__on_eager(op, m, len);
        return;
    }
    e = &plan->recv[ri];
    r = &op->rs[ri];
    if (e->fwd >= 0 || m->sig != plan->sig || m->src != e->peer || m->len != r->len ||
        m->off != 0 || plen != m->len || r->done || r->eager_got ||
        op->pstate[e->part] != 1) {
        rtopo__on_eager(op, m, len);
        return;
    }
    if (plen)
        memcpy(r->dst, (const uint8_t *)m + RTOPO__MSG_HDR, plen);
    r->eager_got = plen;
    r->heard = 1;
    rtopo__recv_done(op, ri);
}

static void rtopo__on_rtr(rtopo__op_t *op, const rtopo__msg_t *m)
{
    rtopo_ctx_t *ctx = op->ctx;
    int si = -1;
    const rtopo__send_ent_t *e;
    rtopo__sstate_t *s;
    uint32_t k, x;

    if (rtopo__xfer_ok(op, m, &x))
        si = rtopo__find_send(op->plan, x, m->hop);
    if (si < 0 || op->plan->send[si].peer != m->src || m->len <= ctx->params.eager_limit) {
        rtopo__mismatch(op, m, "a receive window");
        return;
    }
    if ((m->mode != RTOPO__WIN_DIRECT && m->mode != RTOPO__WIN_STAGED) ||
        (m->mode == RTOPO__WIN_STAGED && m->nslots > 64)) {
        rtopo__mismatch(op, m, "a malformed receive window");
        return;
    }
    e = &op->plan->send[si];
    s = &op->ss[si];
    if (s->have_rtr)
        return;
    s->have_rtr = 1;
    if (!op->writes) {
        op->writes = 1;
        ctx->nwriting++;
    }
    s->mode = m->mode;
    s->rslot = m->slot;
    s->rkey = m->rkey;
    s->roff = m->roff;
    if (m->mode == RTOPO__WIN_STAGED) {
        s->unit = m->unit;
        s->rk = m->nslots;
        if (s->unit == 0 || s->rk == 0) {
            rtopo__mismatch(op, m, "an empty window");
            return;
        }
    } else if (e->upstream < 0 && s->src_mem) {
        size_t mw = rtopo__tl_write_unit(&ctx->tlattr);

        s->unit = s->len < mw ? s->len : mw;
        if (s->unit == 0)
            s->unit = 1;
    } else {
        s->unit = rtopo__unit(ctx, s->len);
    }
    if (e->upstream >= 0 && s->unit != op->rs[e->upstream].unit) {
        rtopo__mismatch(op, m, "a window of another piece size");
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
        rtopo__op_error(op, RTOPO_ERR_NOMEM, -1, "write contexts");
        return;
    }
    if (e->upstream < 0 && !s->src_mem) {
        if (rtopo__ring_init(&s->ring, k) ||
            rtopo__stage_get(ctx, (size_t)(k * (s->len < s->unit ? s->len : s->unit)),
                             &s->stage)) {
            rtopo__op_error(op, RTOPO_ERR_NOMEM, -1, "staging for a send");
            return;
        }
    }
}

static void rtopo__op_handle_msg(rtopo__op_t *op, const rtopo__msg_t *m, size_t len)
{
    uint32_t x;
    int si;

    rtopo__flow_heard(op->topo, m->src, m->seq + 1);
    switch (m->type) {
    case RTOPO__MSG_EAGER:
        if (op->plan->fast)
            rtopo__fast_eager(op, m, len);
        else if (op->plan->eager && op->plan->nrecv <= RTOPO__EAGER_SCAN)
            rtopo__eager_in(op, m, len);
        else
            rtopo__on_eager(op, m, len);
        break;
    case RTOPO__MSG_RTR:
        rtopo__on_rtr(op, m);
        break;
    case RTOPO__MSG_CREDIT:
        x = rtopo__sched_xfind(op->plan->sched, m->xfer);
        si = x == UINT32_MAX ? -1 : rtopo__find_send(op->plan, x, m->hop);
        if (si >= 0 && m->nslots > op->ss[si].rtail)
            op->ss[si].rtail = m->nslots;
        break;
    }
}

static rtopo__op_t *rtopo__op_lookup(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq)
{
    rtopo__op_t *op;

    for (op = ctx->active; op; op = op->next)
        if (op->topo->id == topo_id && op->seq == seq)
            return op;
    return NULL;
}

uint32_t rtopo__user_seq(const rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq)
{
    uint32_t seq0 = topo_id < ctx->next_topo_id ? ctx->tlast[topo_id].seq0 : 0;

    return seq >= seq0 ? seq - seq0 : seq;
}

static int rtopo__early_excess(rtopo_ctx_t *ctx, const rtopo_topo_t *t,
                               const rtopo__msg_t *m, int counted);
static void rtopo__keep_early(rtopo_ctx_t *ctx, const rtopo__msg_t *m, size_t len,
                              int counted);

/* EAGER, RTR and CREDIT: to the running operation, or kept until it starts */
static void rtopo__on_op_msg(rtopo_ctx_t *ctx, const rtopo__msg_t *m, size_t len)
{
    struct rtopo__tlast *l;
    rtopo_topo_t *t;
    rtopo__op_t *op;
    /* the bound counts hops: the fragments of one eager payload (each
     * of them a message, rtopo__eager_send) count once, by the first */
    int counted = m->type != RTOPO__MSG_EAGER || m->off == 0;

    op = rtopo__op_lookup(ctx, m->topo_id, m->seq);
    if (op && !op->held) {
        rtopo__op_handle_msg(op, m, len);
        return;
    }
    if (ctx->failed)
        return;
    t = m->topo_id < ctx->ntopos_alloc ? ctx->topos[m->topo_id] : NULL;
    if (op) {
        /* held back by flow control: kept for it, its caller's memory */
        rtopo__flow_heard(op->topo, m->src, m->seq + 1);
        rtopo__keep_early(ctx, m, len, 0);
        return;
    }
    if ((t && m->seq < t->next_seq) || (!t && m->topo_id < ctx->next_topo_id)) {
        /* A consistent peer sends only what this rank waits for, and this
         * rank finished (or freed) that operation: the arguments differ. */
        if (m->type == RTOPO__MSG_CREDIT)
            return;
        if (rtopo__probe_failed_call(ctx, m->topo_id, m->seq))
            return;     /* the call failed here before it started */
        l = m->topo_id < ctx->next_topo_id ? &ctx->tlast[m->topo_id] : NULL;
        rtopo__job_abort(ctx, RTOPO_ERR_MISMATCH, m->src,
                         l && l->valid && m->seq == l->seq ? &l->desc : NULL, m->topo_id,
                         m->seq, "rank %d sent %s for operation %u on topology %u, which "
                         "this rank completed without it: ranks must call the collective "
                         "with the same arguments", m->src,
                         m->type == RTOPO__MSG_EAGER ? "data" : "a receive window",
                         rtopo__user_seq(ctx, m->topo_id, m->seq), m->topo_id);
        return;
    }
    /* Early messages are bounded: flow control keeps a consistent peer
     * within RTOPO__FLOW_WINDOW operations of this rank; these limits,
     * far beyond, only guard memory against a peer whose calls differ. */
    if (rtopo__early_excess(ctx, t, m, counted))
        return;
    if (t)
        rtopo__flow_heard(t, m->src, m->seq + 1);
    else
        rtopo__flow_heard_topo(ctx, m->src, m->topo_id);
    rtopo__keep_early(ctx, m, len, counted);
}

/* A peer's message past the bounds on early messages (on the messages
 * kept, where counted): the job fails (MISMATCH), 1. */
static int rtopo__early_excess(rtopo_ctx_t *ctx, const rtopo_topo_t *t,
                               const rtopo__msg_t *m, int counted)
{
    uint32_t last = ctx->next_topo_id - 1;

    if (t && m->seq - t->next_seq >= RTOPO__EARLY_OPS)
        rtopo__job_abort(ctx, RTOPO_ERR_MISMATCH, m->src, NULL, m->topo_id, m->seq,
                         "rank %d sent a message for operation %u on topology %u, %u "
                         "operations ahead of this rank there (operation %u; at most %u: "
                         "flow control holds a rank back long before, unless the ranks' "
                         "calls differ)", m->src, rtopo__user_seq(ctx, m->topo_id, m->seq),
                         m->topo_id, m->seq - t->next_seq,
                         rtopo__user_seq(ctx, t->id, t->next_seq), RTOPO__EARLY_OPS);
    else if (!t && m->topo_id - ctx->next_topo_id >= RTOPO__EARLY_TOPOS)
        rtopo__job_abort(ctx, RTOPO_ERR_MISMATCH, m->src, NULL, m->topo_id, m->seq,
                         "rank %d sent a message for operation %u on topology %u, which "
                         "this rank has not created (its newest: %s%u; at most %u "
                         "topologies ahead)", m->src,
                         rtopo__user_seq(ctx, m->topo_id, m->seq), m->topo_id,
                         ctx->next_topo_id ? "" : "none, ",
                         ctx->next_topo_id ? last : 0, RTOPO__EARLY_TOPOS);
    else if (counted && ctx->unexp_count[m->src] >= RTOPO__EARLY_MSGS)
        rtopo__job_abort(ctx, RTOPO_ERR_MISMATCH, m->src, NULL, m->topo_id, m->seq,
                         "rank %d sent a message for operation %u on topology %u, with "
                         "%u of its hops kept already for operations this rank has "
                         "not called (at most %u)", m->src,
                         rtopo__user_seq(ctx, m->topo_id, m->seq), m->topo_id,
                         ctx->unexp_count[m->src], RTOPO__EARLY_MSGS);
    else
        return 0;
    return 1;
}

/* keeps a message until its operation starts; counted: its operation is
 * not posted here (the bound on early messages applies) */
static void rtopo__keep_early(rtopo_ctx_t *ctx, const rtopo__msg_t *m, size_t len,
                              int counted)
{
    rtopo__umsg_t *u;
    int small = sizeof(*u) + len <= RTOPO__UMSG_SMALL;

    if (small && ctx->umsg_spare) {
        u = ctx->umsg_spare;
        ctx->umsg_spare = u->next;
        ctx->numsg_spare--;
    } else {
        u = small ? malloc(RTOPO__UMSG_SMALL) : rtopo__eblk_get(ctx, sizeof(*u) + len);
        if (!u) {
            rtopo__error(RTOPO_ERR_NOMEM, "cannot keep an early message from rank %d",
                         m->src);
            return;
        }
    }
    u->small = small;
    u->next = NULL;
    u->len = len;
    u->counted = counted;
    memcpy(&u->msg, m, len);
    if (counted && ++ctx->unexp_count[m->src] > ctx->unexp_max)
        ctx->unexp_max = ctx->unexp_count[m->src];
    *ctx->unexp_tail = u;
    ctx->unexp_tail = &u->next;
}

/* ACK: a peer's count of operations posted on a topology */
static void rtopo__on_ack(rtopo_ctx_t *ctx, const rtopo__msg_t *m, size_t len)
{
    rtopo_topo_t *t;

    if (ctx->failed)
        return;
    t = m->topo_id < ctx->ntopos_alloc ? ctx->topos[m->topo_id] : NULL;
    if (t && t->flow) {
        rtopo__flow_heard(t, m->src, m->seq + 1);
        return;
    }
    /* the topology count: a held operation may wait for it */
    rtopo__flow_heard_topo(ctx, m->src, m->topo_id);
    /* a topology freed here: nothing to hold back any more */
    if (!t && m->topo_id < ctx->next_topo_id)
        return;
    /* not created yet, or no operation on it yet: the first one takes it */
    if (!rtopo__early_excess(ctx, t, m, 1))
        rtopo__keep_early(ctx, m, len, 1);
}

static void rtopo__umsg_free(rtopo_ctx_t *ctx, rtopo__umsg_t *u)
{
    if (u->small && ctx->numsg_spare < RTOPO__UMSG_SPARES) {
        u->next = ctx->umsg_spare;
        ctx->umsg_spare = u;
        ctx->numsg_spare++;
        return;
    }
    if (u->small)
        free(u);
    else
        rtopo__eblk_put(ctx, u);
}

/* frees every early message kept and every spare block: the context's
 * end (its operations' blocks given back first), or a context put back
 * as it was */
void rtopo__early_free(rtopo_ctx_t *ctx)
{
    rtopo__umsg_t *u;
    rtopo__eblk_t *b;

    while ((u = ctx->unexp)) {
        ctx->unexp = u->next;
        if (u->small)
            free(u);
        else
            free((rtopo__eblk_t *)u - 1);
    }
    ctx->unexp_tail = &ctx->unexp;
    while ((u = ctx->umsg_spare)) {
        ctx->umsg_spare = u->next;
        free(u);
    }
    ctx->numsg_spare = 0;
    while ((b = ctx->eblk_spare)) {
        ctx->eblk_spare = b->next;
        free(b);
    }
    ctx->neblk_spare = 0;
}

/* Applies the counts that early messages on topology t carry (t->flow
 * exists), takes the ACKs among them; with op, hands op's messages over to
 * it, or with op held, counts them no more as early (op is posted). */
static void rtopo__early_walk(rtopo_ctx_t *ctx, rtopo_topo_t *t, rtopo__op_t *op)
{
    rtopo__umsg_t *u, **pp = &ctx->unexp;
    int ack;

    while ((u = *pp)) {
        if (u->msg.topo_id != t->id) {
            pp = &u->next;
            continue;
        }
        ack = u->msg.type == RTOPO__MSG_ACK;
        rtopo__flow_heard(t, u->msg.src, u->msg.seq + 1);
        if (!ack && op && op->held && u->msg.seq == op->seq) {
            if (u->counted)
                ctx->unexp_count[u->msg.src]--;
            u->counted = 0;
            pp = &u->next;
        } else if (ack || (op && u->msg.seq == op->seq)) {
            *pp = u->next;
            if (u->counted)
                ctx->unexp_count[u->msg.src]--;
            if (!ack && op->active)
                rtopo__op_handle_msg(op, &u->msg, u->len);
            rtopo__umsg_free(ctx, u);
        } else {
            pp = &u->next;
        }
    }
    ctx->unexp_tail = pp;     /* the walk ends past the last one kept */
}

/* hands the messages that arrived before op started over to it */
static void rtopo__take_early(rtopo__op_t *op)
{
    rtopo__early_walk(op->ctx, op->topo, op);
}

/* Credits matter only while the sender lacks the allowance to write every
 * piece: a later one would arrive after the sender is done. */
static void rtopo__send_credit(rtopo__op_t *op, int ridx)
{
    const rtopo__recv_ent_t *e = &op->plan->recv[ridx];
    rtopo__rstate_t *r = &op->rs[ridx];
    rtopo__msg_t m;
    int st;

    if (r->ring.tail <= r->credited || (uint64_t)r->credited + r->ring.k >= r->npieces)
        return;
    r->credited = r->ring.tail;
    rtopo__msg_init(op, &m, RTOPO__MSG_CREDIT, e->xfer, e->hop);
    m.nslots = r->ring.tail;
    if ((st = rtopo__op_send(op, e->peer, &m, NULL, 0)))
        rtopo__op_send_failed(op, st, e->peer, "credit");
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
    if (op->active && r->next_fwd == r->npieces)
        rtopo__recv_done(op, ridx);
}

/* A piece of a window landed (the engine checked its slot and writer).
 * A piece the window cannot hold, one that came already, or a length that
 * is not the piece's is not the writer's: 0, dropped. */
static int rtopo__on_imm(void *owner, int ridx, uint32_t imm, size_t len)
{
    rtopo__op_t *op = owner;
    rtopo__rstate_t *r = &op->rs[ridx];
    uint32_t piece = RTOPO__IMM_PIECE(imm);
    uint64_t sz;

    if (r->done)
        return 1;
    if (r->mode == RTOPO__WIN_DIRECT) {
        /* the writer picks the piece size: each piece holds a byte at least */
        if ((uint64_t)piece >= r->len || len > r->len ||
            (r->last_seen && (piece >= r->npieces || r->arrived >= r->npieces)) ||
            (RTOPO__IMM_LAST(imm) && (r->last_seen || r->arrived > piece)))
            return 0;
        r->heard = 1;
        r->arrived++;
        if (RTOPO__IMM_LAST(imm)) {
            r->last_seen = 1;
            r->npieces = piece + 1;
        }
        if (r->last_seen && r->arrived == r->npieces)
            rtopo__recv_done(op, ridx);
        return 1;
    }
    sz = r->len - (uint64_t)piece * r->unit;
    if (piece >= r->npieces || RTOPO__IMM_LAST(imm) != (piece + 1 == r->npieces) ||
        (len && len != (sz < r->unit ? sz : r->unit)) ||
        r->slot_piece[piece % r->ring.k] == piece || piece < r->ring.tail ||
        piece >= r->ring.tail + r->ring.k)
        return 0;
    r->heard = 1;
    r->arrived++;
    r->slot_piece[piece % r->ring.k] = piece;
    if (op->plan->recv[ridx].fwd < 0)
        rtopo__drain_staged(op, ridx);
    /* forwarding: rtopo__advance sends it on */
    return 1;
}

/* ---- sending ----------------------------------------------------------- */

static void rtopo__on_write(rtopo__comp_t *c, int status, int peer, const char *msg);

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
        w->comp.cb = rtopo__on_write;
        w->op = op;
        w->send_idx = si;
        w->piece = n;
        st = ctx->tlops->write(ctx->tl, e->peer, src, sz, lmr, &s->rkey, roff,
                               RTOPO__IMM_OF(s->rslot, n + 1 == s->npieces, n),
                               RTOPO__TL_IMM, &w->comp);
        if (st == RTOPO_ERR_BUSY) {
            w->op = NULL;
            return;
        }
        if (st) {
            w->op = NULL;
            rtopo__op_error(op, st, -1, "write to rank %d: %s", e->peer, rtopo_last_error());
            return;
        }
        if (!up && !s->src_mem)
            s->ring.head++;
        op->inflight++;
        s->next++;
    }
}

static void rtopo__advance(rtopo__op_t *op)
{
    rtopo__sstate_t *s;
    int i;

    for (i = 0; i < op->plan->nsend && op->active; i++) {
        s = &op->ss[i];
        if (s->done || s->blocked)
            continue;
        if (s->have_rtr)
            rtopo__advance_send(op, i);
    }
}

static __attribute__((noinline)) void rtopo__advance_ops(rtopo_ctx_t *ctx)
{
    rtopo__op_t *op, *next;

    if (ctx->flow_recheck)
        rtopo__flow_release(ctx);
    for (op = ctx->active; op && ctx->nwriting; op = next) {
        next = op->next;
        if (op->writes)
            rtopo__advance(op);
    }
}

/* every progress pass: the test alone (an operation whose sends all go
 * eager has no writes to push, and a pass over none of those walks none) */
static void rtopo__advance_all(rtopo_ctx_t *ctx)
{
    if (ctx->flow_recheck || ctx->nwriting)
        rtopo__advance_ops(ctx);
}

static void rtopo__on_write(rtopo__comp_t *c, int status, int peer, const char *msg)
{
    rtopo__wctx_t *w = rtopo__container_of(c, rtopo__wctx_t, comp);
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
        if (op->zombie && op->inflight == 0 && op->track.out == 0)
            rtopo__zombie_done(op);
        return;
    }
    if (status) {
        rtopo__op_error(op, status, peer, "write to rank %d failed: %s", peer,
                        msg ? msg : rtopo_strerror(status));
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
        if (op->active && up->ring.tail == up->npieces)
            rtopo__entry_done(op, &up->done);
    } else if (!s->src_mem) {
        rtopo__ring_release(&s->ring, piece);
    }
    if (op->active && s->completed == s->npieces)
        rtopo__send_done(op, w->send_idx);
    if (op->active)
        rtopo__op_check(op);
}

/* ---- waiting ----------------------------------------------------------- */

/* Names what a timed-out operation still waits for: what has started
 * first, then the parts still held back by their edges. */
static void rtopo__describe_wait(const rtopo__op_t *op, char *out, size_t n)
{
    int i, held = 0, first = -1;

    if (op->held && (i = rtopo__flow_behind(op)) >= 0) {
        if ((int32_t)(op->seq - op->topo->flow[i]) >= (int32_t)RTOPO__FLOW_WINDOW)
            snprintf(out, n, "held back by flow control until rank %d calls operation "
                     "%u on topology %u (at most %u operations ahead of a peer)", i,
                     rtopo__user_seq(op->ctx, op->topo->id,
                                     op->seq - RTOPO__FLOW_WINDOW + 1),
                     op->topo->id, RTOPO__FLOW_WINDOW);
        else
            snprintf(out, n, "held back by flow control until rank %d creates topology "
                     "%u (at most %u topologies ahead of a peer)", i,
                     op->topo->id - RTOPO__FLOW_TOPOS + 1, RTOPO__FLOW_TOPOS);
        return;
    }
    for (i = 0; i < op->plan->nparts; i++)
        if (!op->pstate[i] && held++ == 0)
            first = i;
    for (i = 0; i < op->plan->nrecv; i++) {
        const rtopo__rstate_t *r = &op->rs[i];
        const rtopo__recv_ent_t *e = &op->plan->recv[i];
        if (r->done || (e->part >= 0 && !op->pstate[e->part]))
            continue;
        if (!r->heard)
            snprintf(out, n, "waiting for rank %d (transfer %u hop %u, %llu bytes), which "
                     "has sent nothing for this operation: did it skip the call?", e->peer,
                     rtopo__sched_xid(op->plan->sched, e->xfer), e->hop,
                     (unsigned long long)r->len);
        else
            snprintf(out, n, "waiting for rank %d (transfer %u hop %u): %u of %u pieces "
                     "arrived", e->peer, rtopo__sched_xid(op->plan->sched, e->xfer),
                     e->hop, r->arrived, r->npieces);
        return;
    }
    for (i = 0; i < op->plan->nsend; i++) {
        const rtopo__sstate_t *s = &op->ss[i];
        const rtopo__send_ent_t *e = &op->plan->send[i];
        if (s->done || s->blocked)
            continue;
        snprintf(out, n, "waiting for rank %d (transfer %u hop %u) %s", e->peer,
                 rtopo__sched_xid(op->plan->sched, e->xfer), e->hop, s->have_rtr ? "to take the data" : "to open its window: did it "
                 "skip the call?");
        return;
    }
    if (held) {
        const rtopo__part_t *pt = &op->plan->parts[first];
        snprintf(out, n, "%d part(s) of the schedule wait for earlier ones on this rank "
                 "(first: node %u, %u edge(s) not released)", held,
                 pt->type == RTOPO__PART_SEND ? op->plan->send[pt->idx].xfer :
                 pt->type == RTOPO__PART_RECV ? op->plan->recv[pt->idx].xfer : pt->idx,
                 op->pcnt[first]);
        return;
    }
    snprintf(out, n, "waiting for %d write(s) and %d control message(s) to complete",
             op->inflight, op->track.out);
}

static int rtopo__op_inactive(void *arg)
{
    return !((rtopo__op_t *)arg)->active;
}

static int rtopo__op_timed_out(rtopo__op_t *op, int st)
{
    char what[200];

    if (st == RTOPO_ERR_TIMEOUT && op->active) {
        rtopo__describe_wait(op, what, sizeof(what));
        rtopo__op_error(op, RTOPO_ERR_TIMEOUT, -1, "operation %u on topology %u did not "
                        "complete within %d ms: %s",
                        rtopo__user_seq(op->ctx, op->topo->id, op->seq), op->topo->id,
                        op->ctx->timeout_ms, what);
    } else if (st && op->active) {
        rtopo__op_error(op, st, -1, "progress failed: %s", rtopo_last_error());
    }
    return op->status;
}

/* The operation's message was taken when it failed: the naming may have
 * come since (while another call drove progress), so it is copied in any
 * case. */
static void rtopo__await_naming(rtopo__op_t *op)
{
    rtopo_ctx_t *ctx = op->ctx;

    if (op->status != RTOPO_ERR_MISMATCH)
        return;
    rtopo__await_named(ctx, RTOPO__NAMING_MS);
    if (ctx->fail_named && ctx->failed == RTOPO_ERR_MISMATCH)
        snprintf(op->errmsg, sizeof(op->errmsg), "%s", ctx->failmsg);
}

/* Polls until op->spin_ns (a window's write is due: rtopo__window_spin),
 * giving the processor away after each poll that found nothing: the
 * writer may be waiting for it (ranks of the job, or other work, beside
 * this rank on its processor), and on an idle one the yield returns at
 * once.  < 0 when progress failed. */
static int rtopo__op_spin(rtopo__op_t *op)
{
    rtopo_ctx_t *ctx = op->ctx;
    int n;

    while (op->active && rtopo__now_ns() < op->spin_ns) {
        n = rtopo__progress(ctx);
        if (n < 0)
            return n;
        if (n == 0)
            sched_yield();
    }
    return RTOPO_OK;
}

int rtopo__op_wait(rtopo__op_t *op)
{
    int st = op->spin_ns && op->active ? rtopo__op_spin(op) : RTOPO_OK;

    if (st == RTOPO_OK)
        st = rtopo__wait(op->ctx, rtopo__op_inactive, op, op->deadline_ns);
    st = rtopo__op_timed_out(op, st);
    rtopo__await_naming(op);
    return st;
}

/* one progress pass; RTOPO_OK while active (caller checks op->active) */
int rtopo__op_test(rtopo__op_t *op)
{
    rtopo_ctx_t *ctx = op->ctx;
    int n;

    if (!op->active) {
        rtopo__await_naming(op);    /* it ended in another call's progress */
        return op->status;
    }
    n = rtopo__progress(ctx);
    if (n < 0)
        return rtopo__op_timed_out(op, n);
    if (op->active && rtopo__now_ns() >= op->deadline_ns)
        return rtopo__op_timed_out(op, RTOPO_ERR_TIMEOUT);
    if (op->active && rtopo__now_ns() >= ctx->next_boot_check_ns) {
        ctx->next_boot_check_ns = rtopo__now_ns() + 20000000ull;
        rtopo__check_failures(ctx);
    }
    if (!op->active)
        rtopo__await_naming(op);
    return op->active ? RTOPO_OK : op->status;
}

/* before a request is restarted or its memory released: let the
 * completions of a failed operation come in (they reference its state).
 * Peers of a failed job may never take the rest, hence the limit. */
static int rtopo__no_zombie(void *arg)
{
    return !((rtopo__op_t *)arg)->zombie;
}

int rtopo__op_drain(rtopo__op_t *op, int limit_ms)
{
    rtopo__wait(op->ctx, rtopo__no_zombie, op,
                rtopo__now_ns() + (uint64_t)limit_ms * 1000000ull);
    return op->zombie ? rtopo__error(RTOPO_ERR_BUSY, "writes of a failed operation "
                                     "are still outstanding") : RTOPO_OK;
}

/* rtopo_finalize, once the transport is closed: the completions the failed
 * operations wait for will never come, and nothing references their state
 * any more.  Requests the caller freed already go with it. */
void rtopo__op_reap_zombies(rtopo_ctx_t *ctx)
{
    while (ctx->zombies)
        rtopo__zombie_done(ctx->zombies);
}

static int rtopo__op_desc(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq,
                         rtopo__opdesc_t *d)
{
    rtopo__op_t *op = rtopo__op_lookup(ctx, topo_id, seq);

    if (op)
        *d = op->plan->desc;
    return op != NULL;
}

/* An operation that waits asks its peers, after RTOPO__PROBE_FIRST_MS and
 * then every RTOPO__PROBE_EVERY_MS, whether they are in the same call
 * (probe.c).  The clock is read every few progress passes only. */
static __attribute__((noinline)) void rtopo__probe_due(rtopo_ctx_t *ctx)
{
    rtopo__op_t *op;
    uint64_t now;

    if (ctx->failed)
        return;
    now = rtopo__now_ns();
    for (op = ctx->active; op; op = op->next) {
        if (now < op->probe_ns)
            continue;
        op->probe_ns = now + RTOPO__PROBE_EVERY_MS * 1000000ull;
        rtopo__probe_send(ctx, op->topo->id, op->seq, &op->plan->desc, op->plan->peers,
                          op->plan->npeers);
    }
}

/* every progress pass: the test alone (the clock and the walk out of line) */
static void rtopo__probe_waiting(rtopo_ctx_t *ctx)
{
    if (ctx->active && !(++ctx->probes->polls & 7u))
        rtopo__probe_due(ctx);
}

void rtopo__exec_init(rtopo_ctx_t *ctx)
{
    rtopo__am_set(ctx, RTOPO__MSG_EAGER, rtopo__on_op_msg);
    rtopo__am_set(ctx, RTOPO__MSG_RTR, rtopo__on_op_msg);
    rtopo__am_set(ctx, RTOPO__MSG_CREDIT, rtopo__on_op_msg);
    rtopo__am_set(ctx, RTOPO__MSG_ACK, rtopo__on_ack);
    ctx->flow_topo = ctx->unexp_count + ctx->size;   /* init.c: 3 * size */
    ctx->unexp_tail = &ctx->unexp;
    rtopo__hook_add(ctx, rtopo__advance_all);
    rtopo__hook_add(ctx, rtopo__probe_waiting);
    rtopo__on_job_failed(ctx, rtopo__op_fail_all, rtopo__op_desc);
}
