/*
 * probe.c - finds ranks that wait in calls that do not match.
 *
 * Every message of an operation carries the signature of its arguments,
 * so ranks that disagree find out as soon as one sends to the other.  Some
 * disagreements send nothing: a rank that skipped a collective waits in
 * the next one for data that a peer, still in the skipped one, never
 * sends, and the peer waits for it in turn.  Here an operation that has
 * waited RTOPO__PROBE_FIRST_MS without completing sends a PROBE to the
 * peers of its schedule: its topology, its place on it (seq), its
 * arguments, and how far the sender is in the calls that involve every
 * rank (barriers completed, topologies created).  The peer that gets it
 * compares it with its own call at that place:
 *   - in flight, or ended a short while ago (a history of the last
 *     RTOPO__PROBE_HISTORY operations): arguments that differ fail the job
 *     with RTOPO_ERR_MISMATCH naming both;
 *   - not started yet: if this rank is inside a barrier or a topology
 *     creation that the sender has not reached, the two made their calls
 *     in another order, which fails the job too; otherwise the question is
 *     kept (RTOPO__PROBE_PENDING of them) and answered when this rank
 *     starts that operation.
 * The sender asks again every RTOPO__PROBE_EVERY_MS while it waits (a
 * peer may enter a barrier meanwhile).  Nothing is sent for an operation
 * that completes within RTOPO__PROBE_FIRST_MS; the cost on the fast path
 * is the history entry an operation leaves as it ends, and one test when
 * it starts.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe.h"
#include "engine.h"
#include "job.h"

/* operation seq of topology id as the caller counts them */
static uint32_t rtopo__probe_user_seq(const rtopo_ctx_t *ctx, uint32_t id, uint32_t seq)
{
    uint32_t seq0 = id < ctx->next_topo_id ? ctx->tlast[id].seq0 : 0;

    return seq >= seq0 ? seq - seq0 : seq;
}

/* One side's call at this place failed locally, the other side's ran:
 * the job fails with that failure (rank `failed` found it). */
static void rtopo__probe_conflict(rtopo_ctx_t *ctx, int failed, int status, const char *msg,
                                  uint32_t topo_id, uint32_t seq)
{
    if (ctx->failed)
        return;
    if (failed == ctx->rank)
        rtopo__job_abort(ctx, status, failed, NULL, topo_id, seq, "%s", msg);
    else
        rtopo__job_abort(ctx, status, failed, NULL, topo_id, seq, "rank %d: %s", failed, msg);
}

/* rank src's call at this place (status, arguments, message) against
 * this rank's */
static void rtopo__probe_compare(rtopo_ctx_t *ctx, int src, uint32_t topo_id, uint32_t seq,
                                 int theirs_st, const rtopo__opdesc_t *theirs,
                                 const char *theirs_msg, int mine_st,
                                 const rtopo__opdesc_t *mine, const char *mine_msg)
{
    char diff[160];

    if (ctx->failed || (theirs_st && mine_st))
        return;     /* both failed alike: the call is over on both */
    if (theirs_st) {
        rtopo__probe_conflict(ctx, src, theirs_st, theirs_msg, topo_id, seq);
        return;
    }
    if (mine_st) {
        rtopo__probe_conflict(ctx, ctx->rank, mine_st, mine_msg, topo_id, seq);
        return;
    }
    if (!memcmp(theirs, mine, sizeof(*mine)))
        return;
    if (!rtopo__desc_diff(theirs, mine, diff, sizeof(diff)))
        snprintf(diff, sizeof(diff), "called %s with other arguments than this rank",
                 rtopo__desc_call(theirs));
    ctx->fail_named = 1;    /* the message names what differs */
    rtopo__job_abort(ctx, RTOPO_ERR_MISMATCH, src, mine, topo_id, seq,
                     "rank %d %s (operation %u on topology %u)", src, diff,
                     rtopo__probe_user_seq(ctx, topo_id, seq), topo_id);
}

static struct rtopo__probe_ent *rtopo__probe_hist(rtopo_ctx_t *ctx, uint32_t topo_id,
                                                  uint32_t seq)
{
    struct rtopo__probe_ent *h = ctx->probes->hist;
    int i;

    for (i = 0; i < RTOPO__PROBE_HISTORY; i++)
        if (h[i].used && h[i].topo_id == topo_id && h[i].seq == seq)
            return &h[i];
    return NULL;
}

/* Rank src waits in an operation this rank has not started (or its call
 * failed, status), with `epoch` barriers and `ntopos` topologies behind
 * it.  This rank inside a barrier the sender has not completed, or
 * creating a topology the sender has not created, made its calls in
 * another order: 1 (the job is failed). */
static int rtopo__probe_order(rtopo_ctx_t *ctx, const rtopo__msg_t *m, int status,
                              const char *msg)
{
    char where[80];

    if (ctx->failed)
        return 1;
    if (ctx->barrier_in && m->xfer <= ctx->barrier_epoch)
        snprintf(where, sizeof(where), "is in %s",
                 ctx->barrier_in - 1 == RTOPO__BARRIER_FINALIZE ? "rtopo_finalize" :
                 "rtopo_barrier");
    else if (ctx->creating && m->ntopos < ctx->creating)
        snprintf(where, sizeof(where), "is creating topology %u", ctx->creating - 1);
    else
        return 0;
    if (status) {
        rtopo__probe_conflict(ctx, m->src, status, msg, m->topo_id, m->seq);
        return 1;
    }
    ctx->fail_named = 1;
    rtopo__job_abort(ctx, RTOPO_ERR_MISMATCH, m->src, NULL, m->topo_id, m->seq,
                     "rank %d is in %s (operation %u on topology %u), which this rank has "
                     "not started: this rank %s; ranks must make the same calls in the "
                     "same order", m->src, rtopo__desc_call(&m->desc),
                     rtopo__probe_user_seq(ctx, m->topo_id, m->seq), m->topo_id, where);
    return 1;
}

static void rtopo__on_probe(rtopo_ctx_t *ctx, const rtopo__msg_t *m, size_t len)
{
    struct rtopo__probes *p = ctx->probes;
    struct rtopo__probe_ent *h, *e = NULL;
    rtopo__opdesc_t mine;
    rtopo_topo_t *t;
    char msg[sizeof(e->msg)] = "";
    int i, status = 0;

    if (ctx->failed || ctx->closing)
        return;
    if (m->flags & RTOPO__PROBE_FAILED) {
        status = m->status < 0 && m->status > RTOPO_ERR_LAST ? m->status : RTOPO_ERR_INVAL;
        if (len > sizeof(*m)) {
            len -= sizeof(*m);
            if (len > sizeof(msg))
                len = sizeof(msg);
            memcpy(msg, m + 1, len);
            msg[len - 1] = '\0';
        }
    }
    if (ctx->op_desc && ctx->op_desc(ctx, m->topo_id, m->seq, &mine)) {   /* in flight */
        rtopo__probe_compare(ctx, m->src, m->topo_id, m->seq, status, &m->desc, msg, 0,
                             &mine, NULL);
        return;
    }
    if ((h = rtopo__probe_hist(ctx, m->topo_id, m->seq))) {    /* ended a while ago */
        rtopo__probe_compare(ctx, m->src, m->topo_id, m->seq, status, &m->desc, msg,
                             h->status, &h->desc, h->msg);
        return;
    }
    t = m->topo_id < ctx->ntopos_alloc ? ctx->topos[m->topo_id] : NULL;
    if (t ? m->seq < t->next_seq : m->topo_id < ctx->next_topo_id)
        return;     /* ended long ago, or on a topology freed here */
    if (rtopo__probe_order(ctx, m, status, msg))
        return;
    /* not started here yet: answered when it starts (the sender's latest
     * question about it replaces its earlier one) */
    for (i = 0; i < RTOPO__PROBE_PENDING; i++) {
        struct rtopo__probe_ent *q = &p->pending[i];
        if (q->used && q->src == m->src && q->topo_id == m->topo_id && q->seq == m->seq) {
            e = q;
            break;
        }
        if (!q->used && !e)
            e = q;
    }
    if (!e)
        e = &p->pending[(uint32_t)m->src % RTOPO__PROBE_PENDING];   /* full: one is lost */
    if (!e->used)
        p->npending++;
    e->used = 1;
    e->src = m->src;
    e->topo_id = m->topo_id;
    e->seq = m->seq;
    e->epoch = m->xfer;
    e->ntopos = m->ntopos;
    e->status = status;
    e->desc = m->desc;
    memcpy(e->msg, msg, sizeof(e->msg));
}

/* the pending questions about operation seq of topology topo_id, against
 * this rank's call there (status, arguments d, message); the answered
 * ones, and those about nothing left here, are dropped */
static void rtopo__probe_answer(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq, int status,
                                const rtopo__opdesc_t *d, const char *msg)
{
    struct rtopo__probes *p = ctx->probes;
    int i;

    for (i = 0; i < RTOPO__PROBE_PENDING && p->npending; i++) {
        struct rtopo__probe_ent *q = &p->pending[i];

        if (!q->used)
            continue;
        if (q->topo_id == topo_id && q->seq > seq)
            continue;   /* a later operation */
        if (q->topo_id != topo_id && (q->topo_id >= ctx->next_topo_id ||
                                      ctx->topos[q->topo_id]))
            continue;   /* another topology, not freed */
        if (q->topo_id == topo_id && q->seq == seq)
            rtopo__probe_compare(ctx, q->src, topo_id, seq, q->status, &q->desc, q->msg,
                                 status, d, msg);
        q->used = 0;
        p->npending--;
    }
}

int rtopo__probe_failed_call(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq)
{
    struct rtopo__probe_ent *h = rtopo__probe_hist(ctx, topo_id, seq);

    if (!h || !h->status)
        return 0;
    rtopo__probe_conflict(ctx, ctx->rank, h->status, h->msg, topo_id, seq);
    return 1;
}

void rtopo__probe_start_check(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq,
                              const rtopo__opdesc_t *d)
{
    rtopo__probe_answer(ctx, topo_id, seq, 0, d, NULL);
}

void rtopo__probe_ended(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq,
                        const rtopo__opdesc_t *d)
{
    struct rtopo__probes *p = ctx->probes;
    struct rtopo__probe_ent *h = &p->hist[p->hist_next++ % RTOPO__PROBE_HISTORY];

    h->used = 1;
    h->status = 0;
    h->topo_id = topo_id;
    h->seq = seq;
    h->desc = *d;
}

/* the question about this rank's call at (topo_id, seq): its arguments
 * and how many barriers and topologies this rank has completed */
static void rtopo__probe_msg(const rtopo_ctx_t *ctx, rtopo__msg_t *m, uint32_t topo_id,
                             uint32_t seq, const rtopo__opdesc_t *d)
{
    memset(m, 0, sizeof(*m));
    m->type = RTOPO__MSG_PROBE;
    m->topo_id = topo_id;
    m->seq = seq;
    m->xfer = ctx->barrier_epoch;
    m->ntopos = ctx->next_topo_id;
    m->desc = *d;
}

void rtopo__probe_call_failed(rtopo_ctx_t *ctx, rtopo_topo_t *t, int status,
                              const char *msg)
{
    struct rtopo__probes *p = ctx->probes;
    uint32_t seq = t->next_seq++;
    struct rtopo__probe_ent *h = &p->hist[p->hist_next++ % RTOPO__PROBE_HISTORY];
    rtopo__msg_t m;
    size_t tlen = strlen(msg) + 1;
    int i, peer;

    /* it counts as a call made, for the barrier's counts too */
    rtopo__job_op_started(ctx);
    h->used = 1;
    h->status = status;
    h->topo_id = t->id;
    h->seq = seq;
    rtopo__topo_opdesc(t, &h->desc);
    snprintf(h->msg, sizeof(h->msg), "%s", msg);
    /* peers that wait in this call already */
    rtopo__probe_answer(ctx, t->id, seq, status, &h->desc, h->msg);
    if (ctx->failed)
        return;
    rtopo__probe_msg(ctx, &m, t->id, seq, &h->desc);
    m.flags = RTOPO__PROBE_FAILED;
    m.status = status;
    if (tlen > sizeof(h->msg))
        tlen = sizeof(h->msg);
    if (tlen > ctx->ctrl_size - sizeof(m))
        tlen = ctx->ctrl_size - sizeof(m);
    for (i = 0; i < t->desc.p; i++) {
        peer = rtopo__topo_job_rank(t, i);
        if (peer != ctx->rank && rtopo__connect_peer(ctx, peer) == RTOPO_OK)
            rtopo__ctrl_send(ctx, peer, &m, h->msg, tlen, &ctx->track);
    }
}

void rtopo__probe_send(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq,
                       const rtopo__opdesc_t *d, const int *peers, int npeers)
{
    rtopo__msg_t m;
    int i;

    if (ctx->failed || ctx->closing)
        return;
    rtopo__probe_msg(ctx, &m, topo_id, seq, d);
    for (i = 0; i < npeers; i++)
        if (peers[i] != ctx->rank)
            rtopo__ctrl_send(ctx, peers[i], &m, NULL, 0, NULL);
}

int rtopo__probe_init(rtopo_ctx_t *ctx)
{
    ctx->probes = calloc(1, sizeof(*ctx->probes));
    if (!ctx->probes)
        return RTOPO_ERR_NOMEM;
    rtopo__am_set(ctx, RTOPO__MSG_PROBE, rtopo__on_probe);
    return RTOPO_OK;
}

void rtopo__probe_fini(rtopo_ctx_t *ctx)
{
    free(ctx->probes);
    ctx->probes = NULL;
}
