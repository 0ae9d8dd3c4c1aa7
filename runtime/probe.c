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

/* theirs (rank src's arguments) against mine at the same place */
static void rtopo__probe_compare(rtopo_ctx_t *ctx, int src, uint32_t topo_id, uint32_t seq,
                                 const rtopo__opdesc_t *theirs, const rtopo__opdesc_t *mine)
{
    char diff[160];

    if (ctx->failed || !memcmp(theirs, mine, sizeof(*mine)))
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

/* Rank src waits in an operation this rank has not started, with `epoch`
 * barriers and `ntopos` topologies behind it.  This rank inside a barrier
 * the sender has not completed, or creating a topology the sender has not
 * created, made its calls in another order: 1 (the job is failed). */
static int rtopo__probe_order(rtopo_ctx_t *ctx, int src, uint32_t epoch, uint32_t ntopos,
                              uint32_t topo_id, uint32_t seq, const rtopo__opdesc_t *theirs)
{
    char where[80];

    if (ctx->failed)
        return 1;
    if (ctx->barrier_in && epoch <= ctx->barrier_epoch)
        snprintf(where, sizeof(where), "is in %s",
                 ctx->barrier_in - 1 == RTOPO__BARRIER_FINALIZE ? "rtopo_finalize" :
                 "rtopo_barrier");
    else if (ctx->creating && ntopos < ctx->creating)
        snprintf(where, sizeof(where), "is creating topology %u", ctx->creating - 1);
    else
        return 0;
    ctx->fail_named = 1;
    rtopo__job_abort(ctx, RTOPO_ERR_MISMATCH, src, NULL, topo_id, seq,
                     "rank %d is in %s (operation %u on topology %u), which this rank has "
                     "not started: this rank %s; ranks must make the same calls in the "
                     "same order", src, rtopo__desc_call(theirs),
                     rtopo__probe_user_seq(ctx, topo_id, seq), topo_id, where);
    return 1;
}

static void rtopo__on_probe(rtopo_ctx_t *ctx, const rtopo__msg_t *m, size_t len)
{
    struct rtopo__probes *p = ctx->probes;
    struct rtopo__probe_ent *h, *e = NULL;
    rtopo__opdesc_t mine;
    rtopo_topo_t *t;
    int i;

    (void)len;
    if (ctx->failed || ctx->closing)
        return;
    if (ctx->op_desc && ctx->op_desc(ctx, m->topo_id, m->seq, &mine)) {   /* in flight */
        rtopo__probe_compare(ctx, m->src, m->topo_id, m->seq, &m->desc, &mine);
        return;
    }
    if ((h = rtopo__probe_hist(ctx, m->topo_id, m->seq))) {    /* ended a while ago */
        rtopo__probe_compare(ctx, m->src, m->topo_id, m->seq, &m->desc, &h->desc);
        return;
    }
    t = m->topo_id < ctx->ntopos_alloc ? ctx->topos[m->topo_id] : NULL;
    if (t ? m->seq < t->next_seq : m->topo_id < ctx->next_topo_id)
        return;     /* ended long ago, or on a topology freed here */
    if (rtopo__probe_order(ctx, m->src, m->xfer, m->ntopos, m->topo_id, m->seq, &m->desc))
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
        e = &p->pending[m->src % RTOPO__PROBE_PENDING];   /* full: one is lost */
    if (!e->used)
        p->npending++;
    e->used = 1;
    e->src = m->src;
    e->topo_id = m->topo_id;
    e->seq = m->seq;
    e->epoch = m->xfer;
    e->ntopos = m->ntopos;
    e->desc = m->desc;
}

void rtopo__probe_start_check(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq,
                              const rtopo__opdesc_t *d)
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
            rtopo__probe_compare(ctx, q->src, topo_id, seq, &q->desc, d);
        q->used = 0;    /* answered, or about nothing left here */
        p->npending--;
    }
}

void rtopo__probe_ended(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq,
                        const rtopo__opdesc_t *d)
{
    struct rtopo__probes *p = ctx->probes;
    struct rtopo__probe_ent *h = &p->hist[p->hist_next++ % RTOPO__PROBE_HISTORY];

    h->used = 1;
    h->topo_id = topo_id;
    h->seq = seq;
    h->desc = *d;
}

void rtopo__probe_send(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq,
                       const rtopo__opdesc_t *d, const int *peers, int npeers)
{
    rtopo__msg_t m;
    int i;

    if (ctx->failed || ctx->closing)
        return;
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_PROBE;
    m.topo_id = topo_id;
    m.seq = seq;
    m.xfer = ctx->barrier_epoch;
    m.ntopos = ctx->next_topo_id;
    m.desc = *d;
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
