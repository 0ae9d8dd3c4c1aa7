/*
 * job.c - job-wide control over the engine: connection wire-up, job-wide
 * abort, the barrier.
 *
 * Wire-up: creating a topology is collective, so each rank exchanges one
 * HELLO with every overlay neighbour it has no connection to yet and waits
 * for the neighbour's.  Connections (rxm's on-demand ones, verbs' rdma_cm
 * handshakes, shm's peer mapping) are then up before the first operation,
 * which therefore never needs a peer to come back into the library for
 * set-up.  HELLO carries the topology's kind and shape: ranks that create
 * topologies in different orders find out here.
 *
 * Job-wide abort: a rank whose operation fails (ranks disagree: a message
 * whose signature differs, a HELLO for another topology, a barrier
 * announcing fewer operations; or a timeout, a dead peer, a transport
 * error) sends ABORT with its own arguments to every rank.  The
 * job is failed for good on every rank.  For a mismatch, every rank that
 * knows its own arguments for the operation broadcasts them (in its ABORT,
 * or in a second one if its first went out without them), so that every
 * rank hears every other rank's: a rank whose own arguments differ from
 * the ones in an ABORT names the difference (fail_named 1, as does a
 * failure that compares no arguments: the barrier's counts).  An ABORT
 * whose text names the difference says so (RTOPO__ABORT_NAMED), and a
 * rank that broadcast a plain one sends its named text once more when it
 * has it; ranks with nothing to compare (they failed before they made the
 * call) pass that text on ("rank S: ...", fail_named 2).  The calls that
 * fail with an unnamed mismatch wait up to RTOPO__NAMING_MS for it.
 *
 * Barrier: dissemination, ceil(log2 p) rounds; round k goes to rank+2^k.
 * Each message carries how many operations the sender started in all.
 * A rank that has started more operations than a peer announces at its
 * barrier knows that peer skipped a call: it would wait for ever.
 */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "job.h"
#include "engine.h"

/* ---- arguments and their differences ------------------------------------ */

static const char *rtopo__algo_name(int kind, int a)
{
    if (kind == RTOPO__OP_SCATTER)
        return rtopo__scatter_algo_name(a);
    if (kind == RTOPO__OP_COLL)
        return rtopo__coll_algo_name(a);
    static const char *const n[] = { "auto", "ring", "mesh", "hypercube", "ecube", "direct" };

    return a >= 0 && a < (int)(sizeof(n) / sizeof(n[0])) ? n[a] : "?";
}

static void rtopo__topo_str(const rtopo__opdesc_t *d, char *out, size_t n)
{
    switch (d->topo_kind) {
    case RTOPO__TOPO_MESH:
        snprintf(out, n, "mesh %dx%d", d->topo_a, d->topo_b);
        break;
    case RTOPO__TOPO_HYPERCUBE:
        if (d->host)
            snprintf(out, n, "hypercube of dimension %d with host rank %d %s", d->topo_a,
                     d->root, d->host == 1 ? "outside the cube" : "on a node");
        else
            snprintf(out, n, "hypercube of dimension %d", d->topo_a);
        break;
    default:
        snprintf(out, n, "%s of %d ranks", rtopo__topo_name(d->topo_kind), d->p);
    }
}

static const char *rtopo__op_name(int kind)
{
    return kind == RTOPO__OP_SHIFT ? "shift" : kind == RTOPO__OP_SCHED ? "a schedule" :
           kind == RTOPO__OP_SCATTER ? "scatter" : kind == RTOPO__OP_SHIFT_DIM ?
           "shift_dim" : kind == RTOPO__OP_COLL ? "a collective" : "?";
}

static const char *rtopo__desc_name(const rtopo__opdesc_t *d)
{
    return d->kind == RTOPO__OP_COLL ? rtopo__coll_name((int)d->q) : rtopo__op_name(d->kind);
}

const char *rtopo__desc_call(const rtopo__opdesc_t *d)
{
    return rtopo__desc_name(d);
}

static const char *rtopo__keytype_name(int dtype)
{
    return dtype == RTOPO_INT32 ? "RTOPO_INT32" : dtype == RTOPO_INT64 ? "RTOPO_INT64" :
           dtype == RTOPO_FLOAT ? "RTOPO_FLOAT" : dtype == RTOPO_DOUBLE ? "RTOPO_DOUBLE" : "?";
}

/* the name of an operation's root argument in messages: a collective's
 * from its descriptor, "root" otherwise */
static const char *rtopo__root_arg(const rtopo__opdesc_t *d)
{
    const rtopo__coll_desc_t *cd = d->kind == RTOPO__OP_COLL ?
                                   rtopo__coll_desc((int)d->q) : NULL;

    return cd && cd->root_arg ? cd->root_arg : "root";
}

/* the first difference between two collectives of coll.c in what only
 * they carry (their descriptor's key form says what), or 0 */
static int rtopo__coll_diff(const rtopo__opdesc_t *a, const rtopo__opdesc_t *b, char *out,
                            size_t n)
{
    const rtopo__coll_desc_t *d = rtopo__coll_desc((int)a->q);
    const char *name = rtopo__coll_name((int)a->q);
    int key = d ? d->key : RTOPO__CK_ARGS;
    long long da = a->param[0] & 0xff, db = b->param[0] & 0xff;
    long long wa = (a->param[0] >> 8) & 0xffffff, wb = (b->param[0] >> 8) & 0xffffff;
    long long ma = a->param[0] >> 32, mb = b->param[0] >> 32;

    if (a->q != b->q)
        snprintf(out, n, "called %s, this rank %s", name, rtopo__coll_name((int)b->q));
    else if (key == RTOPO__CK_SORT && a->dtype != b->dtype)
        snprintf(out, n, "called sort with key type %s, this rank with key type %s",
                 rtopo__keytype_name(a->dtype), rtopo__keytype_name(b->dtype));
    else if (key == RTOPO__CK_SORT && a->param[0] == b->param[0] && a->bytes != b->bytes &&
             (a->param[0] >> 1) > 0)
        snprintf(out, n, "called sort with count=%llu, this rank with count=%llu",
                 (unsigned long long)(a->bytes / (uint64_t)(a->param[0] >> 1)),
                 (unsigned long long)(b->bytes / (uint64_t)(a->param[0] >> 1)));
    else if (key == RTOPO__CK_SORT && a->param[0] != b->param[0])
        snprintf(out, n, "called sort with recsize=%lld %s, this rank with recsize=%lld "
                 "%s", (long long)(a->param[0] >> 1), a->param[0] & 1 ? "descending" :
                 "ascending", (long long)(b->param[0] >> 1),
                 b->param[0] & 1 ? "descending" : "ascending");
    else if (key == RTOPO__CK_BPC && (a->param[0] != b->param[0] ||
                                      a->param[1] != b->param[1]))
        snprintf(out, n, "called bpc with another vector than this rank");
    else if (key == RTOPO__CK_RECORD && a->bytes != b->bytes)
        snprintf(out, n, "called %s with recsize=%llu, this rank with recsize=%llu", name,
                 (unsigned long long)a->bytes, (unsigned long long)b->bytes);
    else if (da != db)
        snprintf(out, n, "called %s along dimension %lld, this rank along dimension %lld",
                 name, da, db);
    else if (wa != wb)
        snprintf(out, n, "called %s with w=%lld, this rank with w=%lld", name, wa, wb);
    else if (ma != mb)
        snprintf(out, n, "called %s with m=%lld, this rank with m=%lld", name, ma, mb);
    else if (a->param[1] != b->param[1])
        snprintf(out, n, "called %s with disp=%lld, this rank with disp=%lld", name,
                 (long long)a->param[1], (long long)b->param[1]);
    else
        return 0;
    return 1;
}

/* the first difference between two dimension shifts, or 0 */
static int rtopo__shift_dim_diff(const rtopo__opdesc_t *a, const rtopo__opdesc_t *b,
                                 char *out, size_t n)
{
    int da = (int)(a->param[1] & 0xff), db = (int)(b->param[1] & 0xff), E = 0;
    int ia = !!(a->param[1] & RTOPO__SHIFT_DIM_INPLACE);
    int ib = !!(b->param[1] & RTOPO__SHIFT_DIM_INPLACE);
    rtopo__tdesc_t td;

    if (da != db) {
        snprintf(out, n, "called shift_dim along dimension %d, this rank along dimension "
                 "%d", da, db);
        return 1;
    }
    if (ia != ib) {
        snprintf(out, n, "called shift_dim %s, this rank %s", ia ? "in place" :
                 "not in place", ib ? "in place" : "not in place");
        return 1;
    }
    if (a->q == b->q && a->param[0] == b->param[0])
        return 0;
    if (rtopo__tdesc_init(&td, a->topo_kind, a->p, a->topo_a, a->topo_b) == RTOPO_OK)
        E = rtopo__cart_extent(&td, da);
    if (!a->param[0] && !b->param[0])
        snprintf(out, n, "called shift_dim with disp=%lld (mod %d), this rank with "
                 "disp=%lld", (long long)a->q, E, (long long)b->q);
    else
        snprintf(out, n, "called shift_dim with disp=a*line+b, a=%lld b=%lld (mod %d), "
                 "this rank with a=%lld b=%lld", (long long)a->param[0], (long long)a->q, E,
                 (long long)b->param[0], (long long)b->q);
    return 1;
}

/* Writes "topology ...", "q=...", ... for the first argument that differs
 * between a (the peer's) and b (this rank's); 0 when they agree. */
int rtopo__desc_diff(const rtopo__opdesc_t *a, const rtopo__opdesc_t *b, char *out, size_t n)
{
    char ta[64], tb[64];

    rtopo__topo_str(a, ta, sizeof(ta));
    rtopo__topo_str(b, tb, sizeof(tb));
    if (a->topo_kind != b->topo_kind || a->topo_a != b->topo_a || a->topo_b != b->topo_b ||
        a->p != b->p || a->host != b->host || (a->host && a->root != b->root))
        snprintf(out, n, "on topology %s, this rank on topology %s", ta, tb);
    else if (a->piece != b->piece && a->piece && b->piece)
        snprintf(out, n, "as the piece of rtopo_topo_sub with keep=0x%x (%s), this rank "
                 "with keep=0x%x", (unsigned)(a->piece & 0x7fffu), ta,
                 (unsigned)(b->piece & 0x7fffu));
    else if (a->piece != b->piece)
        snprintf(out, n, "as %s (%s), this rank as %s", a->piece ? "a piece of "
                 "rtopo_topo_sub" : "a topology of its own", ta, b->piece ? "a piece of "
                 "rtopo_topo_sub" : "a topology of its own");
    else if (a->kind != b->kind)
        snprintf(out, n, "called %s, this rank %s", rtopo__desc_name(a),
                 rtopo__desc_name(b));
    else if (a->kind == RTOPO__OP_SHIFT_DIM && rtopo__shift_dim_diff(a, b, out, n))
        ;
    else if (a->kind == RTOPO__OP_COLL && rtopo__coll_diff(a, b, out, n))
        ;
    else if (a->kind == RTOPO__OP_SHIFT && a->q != b->q)
        snprintf(out, n, "called shift with q=%lld (mod %d), this rank with q=%lld",
                 (long long)a->q, a->p, (long long)b->q);
    else if (a->kind == RTOPO__OP_SCHED && a->q != b->q)
        snprintf(out, n, "ran schedule %lld, this rank schedule %lld", (long long)a->q,
                 (long long)b->q);
    else if (a->kind == RTOPO__OP_SCATTER && a->q != b->q)
        snprintf(out, n, "called scatter with stride=%lld, this rank with stride=%lld",
                 (long long)a->q, (long long)b->q);
    else if (a->kind == RTOPO__OP_SCATTER && a->param[1] != b->param[1])
        snprintf(out, n, "called scatter with elem_size=%lld, this rank with "
                 "elem_size=%lld", (long long)a->param[1], (long long)b->param[1]);
    else if (a->kind == RTOPO__OP_SCATTER && a->bytes != b->bytes && a->param[1] > 0)
        snprintf(out, n, "called scatter with count=%lld, this rank with count=%lld",
                 (long long)(a->bytes / (uint64_t)a->param[1]),
                 (long long)(b->bytes / (uint64_t)a->param[1]));
    else if (a->root != b->root)
        snprintf(out, n, "called %s with %s=%d, this rank with %s=%d",
                 rtopo__desc_name(a), rtopo__root_arg(a), a->root, rtopo__root_arg(a),
                 b->root);
    else if (a->dtype != b->dtype || a->op != b->op)
        snprintf(out, n, "called %s with datatype %d and operator %d, this rank with "
                 "datatype %d and operator %d", rtopo__desc_name(a), a->dtype, a->op,
                 b->dtype, b->op);
    else if (a->bytes != b->bytes)
        snprintf(out, n, "called %s with bytes=%llu, this rank with bytes=%llu",
                 rtopo__desc_name(a), (unsigned long long)a->bytes,
                 (unsigned long long)b->bytes);
    else if (a->algo != b->algo)
        snprintf(out, n, "called %s with algo=%s, this rank with algo=%s",
                 rtopo__desc_name(a), rtopo__algo_name(a->kind, a->algo),
                 rtopo__algo_name(b->kind, b->algo));
    else if (a->param[0] != b->param[0] || a->param[1] != b->param[1])
        snprintf(out, n, "called %s with strategy parameters (%lld, %lld), this rank with "
                 "(%lld, %lld)", rtopo__op_name(a->kind), (long long)a->param[0],
                 (long long)a->param[1], (long long)b->param[0], (long long)b->param[1]);
    else
        return 0;
    return 1;
}

void rtopo__topo_opdesc(const rtopo_topo_t *topo, rtopo__opdesc_t *d)
{
    const rtopo__tdesc_t *t = &topo->desc;

    memset(d, 0, sizeof(*d));
    d->topo_kind = (uint8_t)t->kind;
    d->host = (uint8_t)(t->host ? 1 : topo->host >= 0 ? 2 : 0);
    d->root = topo->host >= 0 ? topo->host : 0;
    d->p = t->p;
    d->topo_a = t->kind == RTOPO__TOPO_MESH ? t->rows : t->kind == RTOPO__TOPO_HYPERCUBE ?
                t->dim : t->kind == RTOPO__TOPO_RING ? 0 : t->n;
    d->topo_b = t->kind == RTOPO__TOPO_MESH ? t->cols : 0;
    d->piece = topo->piece;
}

/* ---- job-wide abort ---------------------------------------------------- */

void rtopo__on_job_failed(rtopo_ctx_t *ctx, rtopo__job_failed_fn fn, rtopo__op_desc_fn desc)
{
    ctx->job_failed = fn;
    ctx->op_desc = desc;
}

/* the operations in flight fail with the job (exec.c registers how) */
static void rtopo__job_failed(rtopo_ctx_t *ctx, int status)
{
    if (ctx->job_failed)
        ctx->job_failed(ctx, status);
}

#define RTOPO__ABORT_NAMED 1u       /* msg flags: the text names what differs */
/* ctx->abort_sent: what this rank's ABORTs carried so far */
enum { RTOPO__SENT = 1, RTOPO__SENT_NAMED = 2, RTOPO__SENT_DESC = 4 };

static void rtopo__abort_send(rtopo_ctx_t *ctx, int status, int culprit,
                              const rtopo__opdesc_t *d, uint32_t topo_id, uint32_t seq)
{
    int named = ctx->failed == RTOPO_ERR_MISMATCH && ctx->fail_named == 1;
    rtopo__msg_t m;
    size_t room, tlen;
    int i;

    /* once; again only with what the first one lacked: this rank's own
     * naming of the difference, or its arguments */
    if (ctx->abort_sent && (!named || (ctx->abort_sent & RTOPO__SENT_NAMED)) &&
        (!d || (ctx->abort_sent & RTOPO__SENT_DESC)))
        return;
    ctx->abort_sent |= RTOPO__SENT | (named ? RTOPO__SENT_NAMED : 0) |
                       (d ? RTOPO__SENT_DESC : 0);
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_ABORT;
    m.flags = named ? RTOPO__ABORT_NAMED : 0;
    /* the status and text are this rank's failure, whoever asks to send,
     * and so is the call they belong to, unless arguments go with the
     * message (they are those of the call named): a rank that passes on a
     * failure when a peer leaves names the failed call, not "no call",
     * which a rank still creating that topology would take for a failure
     * of its creation */
    m.status = ctx->failed ? ctx->failed : status;
    m.culprit = ctx->failed ? ctx->failed_rank : culprit;
    m.topo_id = ctx->failed && !d ? ctx->fail_topo : topo_id;
    m.seq = ctx->failed && !d ? ctx->fail_seq : seq;
    m.xfer = ctx->barrier_epoch;
    m.ntopos = ctx->next_topo_id;
    if (d)
        m.desc = *d;
    /* the reason travels along, as far as the control message size allows */
    room = ctx->ctrl_size - sizeof(m);
    tlen = strlen(ctx->failmsg) + 1;
    if (tlen > room)
        tlen = room;
    for (i = 0; i < ctx->size; i++) {
        if (i == ctx->rank || (ctx->failed == RTOPO_ERR_PEER && i == ctx->failed_rank))
            continue;
        if (rtopo__connect_peer(ctx, i) == RTOPO_OK)
            rtopo__ctrl_send(ctx, i, &m, ctx->failmsg, tlen, &ctx->track);
    }
}

#define RTOPO__PEER_GRACE_NS 50000000ull

/* Fails the job on this rank (first reason wins) and tells every rank.
 * A lost peer is declared after a short grace: a rank that failed for a
 * reason (a mismatch) sends its ABORT and then leaves, and the ABORT
 * should name the reason rather than the closed connection. */
void rtopo__job_abort(rtopo_ctx_t *ctx, int status, int culprit, const rtopo__opdesc_t *d,
                      uint32_t topo_id, uint32_t seq, const char *fmt, ...)
{
    va_list ap;

    if (status == RTOPO_ERR_PEER && !ctx->failed && !ctx->grace_fire) {
        if (!ctx->grace_ns) {
            ctx->grace_ns = rtopo__now_ns() + RTOPO__PEER_GRACE_NS;
            ctx->grace_rank = culprit;
            va_start(ap, fmt);
            vsnprintf(ctx->failmsg, sizeof(ctx->failmsg), fmt, ap);
            va_end(ap);
        }
        return;
    }
    if (!ctx->failed) {
        ctx->failed = status;
        ctx->failed_rank = culprit;
        ctx->fail_topo = topo_id;
        ctx->fail_seq = seq;
        /* a mismatch found without arguments to compare (a rank made a call
         * this one did not: the barrier's counts, an operation this rank
         * never started) is named by the message itself */
        if (status == RTOPO_ERR_MISMATCH && !d)
            ctx->fail_named = 1;
        va_start(ap, fmt);
        vsnprintf(ctx->failmsg, sizeof(ctx->failmsg), fmt, ap);
        va_end(ap);
        rtopo__warn("%s", ctx->failmsg);
    }
    rtopo__abort_send(ctx, status, culprit, d, topo_id, seq);
    rtopo__job_failed(ctx, status);
}

/* this rank's arguments for the operation an ABORT speaks of, if known */
static int rtopo__my_desc(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq,
                          rtopo__opdesc_t *d)
{
    rtopo_topo_t *t;

    if (ctx->op_desc && ctx->op_desc(ctx, topo_id, seq, d))   /* in flight */
        return 2;
    if (topo_id < ctx->next_topo_id && ctx->tlast[topo_id].valid &&
        ctx->tlast[topo_id].seq == seq) {      /* ended here already */
        *d = ctx->tlast[topo_id].desc;
        return 2;
    }
    t = topo_id < ctx->ntopos_alloc ? ctx->topos[topo_id] : NULL;
    if (!t)
        return 0;
    rtopo__topo_opdesc(t, d);
    return 1;
}

static void rtopo__on_job_abort(rtopo_ctx_t *ctx, const rtopo__msg_t *m, size_t len)
{
    char why[200] = "";
    rtopo__opdesc_t mine;
    char diff[160];
    int known, differs = 0, named;

    /* a rank that had completed a barrier proves that every rank entered
     * it: a rank still inside it returns from it normally */
    if (m->xfer > ctx->abort_epoch)
        ctx->abort_epoch = m->xfer;
    if (!ctx->failed) {
        ctx->fail_topo = m->topo_id;
        ctx->fail_seq = m->seq;
    }
    known = m->desc.p ? rtopo__my_desc(ctx, m->topo_id, m->seq, &mine) : 0;
    if (known) {
        rtopo__opdesc_t theirs = m->desc;
        if (known == 1) {
            /* only the topology can be compared */
            theirs = mine;
            theirs.topo_kind = m->desc.topo_kind;
            theirs.host = m->desc.host;
            theirs.p = m->desc.p;
            theirs.topo_a = m->desc.topo_a;
            theirs.topo_b = m->desc.topo_b;
            if (m->desc.host)
                theirs.root = m->desc.root;
        }
        differs = rtopo__desc_diff(&theirs, &mine, diff, sizeof(diff));
    }
    if (differs) {
        /* this rank is the odd one out (or the sender is): say what differs
         * and let the others hear this rank's arguments too */
        if (!ctx->failed || (ctx->failed == RTOPO_ERR_MISMATCH && ctx->fail_named != 1)) {
            ctx->failed = RTOPO_ERR_MISMATCH;
            ctx->failed_rank = m->src;
            ctx->fail_named = 1;
            snprintf(ctx->failmsg, sizeof(ctx->failmsg), "rank %d %s (topology %u)",
                     m->src, diff, m->topo_id);
        }
        rtopo__abort_send(ctx, RTOPO_ERR_MISMATCH, m->src, known == 2 ? &mine : NULL,
                          m->topo_id, m->seq);
        rtopo__job_failed(ctx, ctx->failed);
        return;
    }
    if (len > sizeof(*m)) {
        len -= sizeof(*m);
        if (len > sizeof(why))
            len = sizeof(why);
        memcpy(why, m + 1, len);
        why[len - 1] = '\0';
    }
    /* the sender's naming of the difference, passed on by a rank that has
     * no arguments of its own to compare (or the same as the sender's) */
    named = m->status == RTOPO_ERR_MISMATCH && (m->flags & RTOPO__ABORT_NAMED) && why[0];
    if (!ctx->failed || (named && ctx->failed == RTOPO_ERR_MISMATCH && !ctx->fail_named)) {
        ctx->failed = m->status ? m->status : RTOPO_ERR_PEER;
        ctx->failed_rank = m->culprit >= 0 ? m->culprit : m->src;
        ctx->fail_named = named ? 2 : 0;
        if (why[0])
            snprintf(ctx->failmsg, sizeof(ctx->failmsg), "rank %d: %s", m->src, why);
        else if (m->status == RTOPO_ERR_MISMATCH && m->culprit >= 0 && m->culprit != m->src)
            snprintf(ctx->failmsg, sizeof(ctx->failmsg), "rank %d found that rank %d "
                     "called a collective with other arguments (topology %u)", m->src,
                     m->culprit, m->topo_id);
        else
            snprintf(ctx->failmsg, sizeof(ctx->failmsg), "rank %d aborted the job: %s",
                     m->src, rtopo_strerror(ctx->failed));
        rtopo__info("%s", ctx->failmsg);
    }
    /* the odd rank may not have heard these arguments yet: every rank
     * that has them for this operation broadcasts them */
    if (known == 2 && ctx->failed == RTOPO_ERR_MISMATCH)
        rtopo__abort_send(ctx, ctx->failed, ctx->failed_rank, &mine, m->topo_id, m->seq);
    rtopo__job_failed(ctx, ctx->failed);
}

static int rtopo__named_or_not_mismatch(void *arg)
{
    rtopo_ctx_t *ctx = arg;

    return ctx->failed != RTOPO_ERR_MISMATCH || ctx->fail_named;
}

/* A call that finds the job failed with a mismatch not named yet: the
 * ABORTs that name it follow within a round trip, wait for them a while. */
void rtopo__await_named(rtopo_ctx_t *ctx, int limit_ms)
{
    if (!rtopo__named_or_not_mismatch(ctx))
        rtopo__wait(ctx, rtopo__named_or_not_mismatch, ctx,
                    rtopo__now_ns() + (uint64_t)limit_ms * 1000000ull);
}

/* ---- wire-up ----------------------------------------------------------- */

static void rtopo__barrier_check(rtopo_ctx_t *ctx, int peer, int at_barrier);

/* HELLOs are kept per peer in two slots, by the parity of the topology id:
 * a peer runs at most one creation ahead (it completes a creation only
 * once this rank has sent its HELLO for it). */
#define RTOPO__HELLO_SLOT(peer, id) ((size_t)(peer) * 2 + ((id) & 1u))

/* A HELLO's description of the topology: its kind and shape, and in q a
 * hash of its placement (the job rank of every label), which ranks that
 * placed it otherwise (rtopo_set_place) do not share. */
static void rtopo__hello_desc(const rtopo_topo_t *t, rtopo__opdesc_t *d)
{
    uint64_t h = 1469598103934665603ull;
    int r;

    rtopo__topo_opdesc(t, d);
    for (r = 0; r < t->desc.p; r++) {
        h ^= (uint64_t)(uint32_t)rtopo__topo_job_rank(t, r);
        h *= 1099511628211ull;
    }
    d->q = (int64_t)(h >> 1);
}

static void rtopo__hello_check(rtopo_ctx_t *ctx, int peer, const rtopo_topo_t *t)
{
    size_t k = RTOPO__HELLO_SLOT(peer, t->id);
    rtopo__opdesc_t mine;
    char diff[160];

    if (ctx->failed || !ctx->hello_in[k] || ctx->hello_topo[k] != t->id)
        return;
    rtopo__hello_desc(t, &mine);
    if (rtopo__desc_diff(&ctx->hello_desc[k], &mine, diff, sizeof(diff))) {
        ctx->fail_named = 1;    /* the message names what differs */
        rtopo__job_abort(ctx, RTOPO_ERR_MISMATCH, peer, &mine, t->id, RTOPO__NOSEQ,
                         "rank %d created topology %u %s: ranks must create the same "
                         "topologies in the same order", peer, t->id, diff);
    } else if (ctx->hello_desc[k].q != mine.q) {
        ctx->fail_named = 1;
        rtopo__job_abort(ctx, RTOPO_ERR_MISMATCH, peer, &mine, t->id, RTOPO__NOSEQ,
                         "rank %d placed the ranks of topology %u (%s) otherwise than this "
                         "rank: every rank must create it with the same placement "
                         "(rtopo_set_place, RTOPO_PLACE)", peer, t->id,
                         rtopo__topo_name(t->desc.kind));
    }
}

/* compared now if this rank has the topology, else at its creation */
static void rtopo__on_hello(rtopo_ctx_t *ctx, const rtopo__msg_t *m, size_t len)
{
    size_t k = RTOPO__HELLO_SLOT(m->src, m->topo_id);
    rtopo_topo_t *t;

    (void)len;
    ctx->hello_in[k] = 1;
    ctx->hello_topo[k] = m->topo_id;
    ctx->hello_desc[k] = m->desc;
    t = m->topo_id < ctx->ntopos_alloc ? ctx->topos[m->topo_id] : NULL;
    if (t)
        rtopo__hello_check(ctx, m->src, t);
}

struct rtopo__wire_wait {
    rtopo_ctx_t *ctx;
    const int *peers;
    int n;
    uint32_t id;
};

/* every neighbour's HELLO for this topology is in */
static int rtopo__hellos_in(const struct rtopo__wire_wait *w)
{
    int i;

    for (i = 0; i < w->n; i++) {
        size_t k = RTOPO__HELLO_SLOT(w->peers[i], w->id);
        if (!w->ctx->hello_in[k] || w->ctx->hello_topo[k] != w->id)
            return 0;
    }
    return 1;
}

static int rtopo__hellos_cond(void *arg)
{
    return rtopo__hellos_in(arg);
}

static int rtopo__wired_all(void *arg)
{
    struct rtopo__wire_wait *w = arg;

    if (w->ctx->failed)
        return 1;
    return rtopo__hellos_in(w) && w->ctx->track.out == 0;
}

/* Creating a topology is collective: each rank sends a HELLO with the
 * topology's kind and shape to every overlay neighbour and waits for
 * theirs, at every creation (the first one also brings the connections
 * up).  Every HELLO is compared with this rank's topology of that id, as
 * it comes or as the topology is created here: a neighbour that created
 * another kind or shape fails the job with RTOPO_ERR_MISMATCH. */
int rtopo__wireup(rtopo_topo_t *t)
{
    rtopo_ctx_t *ctx = t->ctx;
    struct rtopo__wire_wait w = { ctx, NULL, 0, t->id };
    rtopo__msg_t m;
    int *todo, i, peer, st = RTOPO_OK;

    if (ctx->failed)
        return rtopo__error(ctx->failed, "%s", ctx->failmsg);
    todo = calloc((size_t)t->nnbr + 1, sizeof(int));
    if (!todo)
        return RTOPO_ERR_NOMEM;
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_HELLO;
    m.topo_id = t->id;
    m.ntopos = ctx->next_topo_id;
    rtopo__hello_desc(t, &m.desc);
    ctx->creating = t->id + 1;
    /* the HELLOs that came before this rank created it, and the ranks
     * already waiting in the next barrier with fewer topologies */
    for (i = 0; i < ctx->size; i++) {
        rtopo__hello_check(ctx, i, t);
        rtopo__barrier_check(ctx, i, 0);
    }
    for (i = 0; i < t->nnbr && !ctx->failed; i++) {
        peer = t->nbr[i];
        todo[w.n++] = peer;
        if ((st = rtopo__ctrl_send(ctx, peer, &m, NULL, 0, &ctx->track)))
            goto out;
    }
    w.peers = todo;
    st = rtopo__wait(ctx, rtopo__wired_all, &w,
                     rtopo__now_ns() + (uint64_t)ctx->timeout_ms * 1000000ull);
    if (st == RTOPO_ERR_TIMEOUT) {
        for (i = 0; i < w.n; i++) {
            size_t k = RTOPO__HELLO_SLOT(todo[i], t->id);
            if (!ctx->hello_in[k] || ctx->hello_topo[k] != t->id)
                break;
        }
        rtopo__job_abort(ctx, RTOPO_ERR_TIMEOUT, i < w.n ? todo[i] : -1, NULL, t->id,
                         RTOPO__NOSEQ, "creating topology %u: rank %d did not create it "
                         "within %d ms (did it create the same topologies?)", t->id,
                         i < w.n ? todo[i] : -1, ctx->timeout_ms);
        st = rtopo__error(ctx->failed, "%s", ctx->failmsg);
        goto out;
    }
    if (st)
        goto out;
    /* A failure that came meanwhile from another call fails the next one:
     * this creation is complete here when every neighbour's HELLO is in
     * (each one matched, or the job failed for this topology).  A failure
     * raised by a later call may overtake the HELLOs still on their way:
     * they are given a short while. */
    if (ctx->failed && !(ctx->fail_topo == t->id && ctx->fail_seq == RTOPO__NOSEQ) &&
        !rtopo__hellos_in(&w))
        rtopo__wait(ctx, rtopo__hellos_cond, &w,
                    rtopo__now_ns() + (uint64_t)RTOPO__NAMING_MS * 1000000ull);
    if (ctx->failed && (!rtopo__hellos_in(&w) ||
                        (ctx->fail_topo == t->id && ctx->fail_seq == RTOPO__NOSEQ))) {
        rtopo__await_named(ctx, RTOPO__NAMING_MS);
        st = rtopo__error(ctx->failed, "%s", ctx->failmsg);
        goto out;
    }
    for (i = 0; i < w.n; i++) {
        ctx->hello_in[RTOPO__HELLO_SLOT(todo[i], t->id)] = 0;
        ctx->wired[todo[i]] = 1;
    }
out:
    ctx->creating = 0;
    free(todo);
    return st;
}

/* ---- barrier ----------------------------------------------------------- */

static int rtopo__barrier_rounds(int p)
{
    int k = 0;

    while ((1 << k) < p)
        k++;
    return k;
}

static const char *rtopo__barrier_name(int kind)
{
    return kind == RTOPO__BARRIER_FINALIZE ? "rtopo_finalize" : "rtopo_barrier";
}

/* A peer announced at its barrier how many operations it started: this
 * rank having started more means the peer skipped a call.  Inside a
 * barrier, the counts must be equal and the kinds (rtopo_barrier or
 * rtopo_finalize) alike. */
static void rtopo__barrier_check(rtopo_ctx_t *ctx, int peer, int at_barrier)
{
    uint64_t theirs = ctx->barrier_ops[peer];

    if (ctx->failed || !ctx->barrier_seen[peer])
        return;
    /* only announcements for the barrier this rank is in or approaches */
    if (ctx->barrier_seen[peer] != ctx->barrier_epoch + 1)
        return;
    if (at_barrier && ctx->barrier_kind[peer] != ctx->barrier_in - 1)
        rtopo__job_abort(ctx, RTOPO_ERR_MISMATCH, peer, NULL, 0, RTOPO__NOSEQ,
                         "rank %d is in %s, this rank in %s: a rank skipped a call to "
                         "rtopo_barrier", peer, rtopo__barrier_name(ctx->barrier_kind[peer]),
                         rtopo__barrier_name(ctx->barrier_in - 1));
    else if (ctx->next_topo_id > ctx->barrier_ntopos[peer] ||
             (at_barrier && ctx->next_topo_id != ctx->barrier_ntopos[peer]))
        rtopo__job_abort(ctx, RTOPO_ERR_MISMATCH, peer, NULL, 0, RTOPO__NOSEQ,
                         "rank %d entered the barrier after creating %u topologies, this "
                         "rank %s %u: a rank skipped or added a topology creation", peer,
                         ctx->barrier_ntopos[peer], at_barrier ? "after creating" :
                         "has created", ctx->next_topo_id);
    else if (ctx->ops_started > theirs || (at_barrier && ctx->ops_started != theirs))
        rtopo__job_abort(ctx, RTOPO_ERR_MISMATCH, peer, NULL, 0, RTOPO__NOSEQ,
                         "rank %d entered the barrier after %llu collective operations, "
                         "this rank %s %llu: a rank skipped or added a call", peer,
                         (unsigned long long)theirs, at_barrier ? "after" : "has started",
                         (unsigned long long)ctx->ops_started);
}

static void rtopo__on_barrier(rtopo_ctx_t *ctx, const rtopo__msg_t *m, size_t len)
{
    uint32_t epoch = m->seq, round = m->xfer;

    (void)len;
    if (round >= RTOPO__BARRIER_ROUNDS)
        return;
    if (epoch != ctx->barrier_epoch && epoch != ctx->barrier_epoch + 1) {
        rtopo__job_abort(ctx, RTOPO_ERR_MISMATCH, m->src, NULL, 0, RTOPO__NOSEQ,
                         "rank %d is in barrier %u, this rank in barrier %u", m->src,
                         epoch, ctx->barrier_epoch);
        return;
    }
    ctx->barrier_got[epoch & 1][round]++;
    if (ctx->barrier_seen[m->src] != epoch + 1) {
        ctx->barrier_seen[m->src] = epoch + 1;
        ctx->barrier_ops[m->src] = m->unit;
        ctx->barrier_ntopos[m->src] = m->ntopos;
        ctx->barrier_kind[m->src] = m->mode;
        if (ctx->ann_epoch != epoch + 1 || m->unit < ctx->ann_min_ops) {
            ctx->ann_epoch = epoch + 1;
            ctx->ann_min_ops = m->unit;
            ctx->ann_min_rank = m->src;
        }
        rtopo__barrier_check(ctx, m->src, ctx->barrier_in != 0);
    }
}

/* Called as an operation starts: a peer already waiting in the barrier
 * with fewer operations will never take part in this one. */
void rtopo__job_op_started(rtopo_ctx_t *ctx)
{
    ctx->ops_started++;
    if (ctx->ann_epoch == ctx->barrier_epoch + 1 && ctx->ops_started > ctx->ann_min_ops)
        rtopo__barrier_check(ctx, ctx->ann_min_rank, 0);
}

struct rtopo__bwait {
    rtopo_ctx_t *ctx;
    uint32_t round;
};

static int rtopo__barrier_ready(void *arg)
{
    struct rtopo__bwait *b = arg;
    rtopo_ctx_t *ctx = b->ctx;

    return ctx->failed ||
           (ctx->barrier_got[ctx->barrier_epoch & 1][b->round] > 0 && ctx->track.out == 0);
}

static int rtopo__barrier_run(rtopo_ctx_t *ctx, int kind, uint32_t e, uint64_t deadline);

int rtopo__barrier(rtopo_ctx_t *ctx, int kind)
{
    uint64_t deadline = rtopo__now_ns() + (uint64_t)ctx->timeout_ms * 1000000ull;
    uint32_t e = ctx->barrier_epoch;
    int st;

    if (ctx->failed)
        return rtopo__error(ctx->failed, "%s", ctx->failmsg);
    ctx->barrier_in = kind + 1;
    st = rtopo__barrier_run(ctx, kind, e, deadline);
    ctx->barrier_in = 0;
    return st;
}

static int rtopo__barrier_run(rtopo_ctx_t *ctx, int kind, uint32_t e, uint64_t deadline)
{
    struct rtopo__bwait b = { ctx, 0 };
    int rounds = rtopo__barrier_rounds(ctx->size), i, to, from, st;
    rtopo__msg_t m;

    for (i = 0; i < ctx->size; i++)
        if (ctx->barrier_seen[i] == e + 1)
            rtopo__barrier_check(ctx, i, 1);
    for (b.round = 0; (int)b.round < rounds && !ctx->failed; b.round++) {
        to = (ctx->rank + (1 << b.round)) % ctx->size;
        from = (ctx->rank - (1 << b.round) % ctx->size + ctx->size) % ctx->size;
        if ((st = rtopo__connect_peer(ctx, to)) || (st = rtopo__connect_peer(ctx, from)))
            return st;
        memset(&m, 0, sizeof(m));
        m.type = RTOPO__MSG_BARRIER;
        m.seq = e;
        m.xfer = b.round;
        m.unit = ctx->ops_started;
        m.mode = (uint8_t)kind;
        m.ntopos = ctx->next_topo_id;
        if ((st = rtopo__ctrl_send(ctx, to, &m, NULL, 0, &ctx->track)))
            return st;
        st = rtopo__wait(ctx, rtopo__barrier_ready, &b, deadline);
        if (st == RTOPO_ERR_TIMEOUT) {
            rtopo__job_abort(ctx, RTOPO_ERR_TIMEOUT, from, NULL, 0, RTOPO__NOSEQ,
                             "barrier: rank %d did not enter the barrier within %d ms",
                             from, ctx->timeout_ms);
            return rtopo__error(ctx->failed, "%s", ctx->failmsg);
        }
        if (st)
            return st;
        if (!ctx->failed)
            ctx->barrier_got[e & 1][b.round]--;
    }
    /* a failure raised by a rank that had completed this barrier already:
     * every rank entered it, it completed; the failure comes at the next
     * call */
    if (ctx->failed && ctx->abort_epoch <= e) {
        rtopo__await_named(ctx, RTOPO__NAMING_MS);
        return rtopo__error(ctx->failed, "%s", ctx->failmsg);
    }
    for (i = 0; i < rounds; i++)
        ctx->barrier_got[e & 1][i] = 0;
    ctx->barrier_epoch++;
    return RTOPO_OK;
}

/* ---- set-up, teardown -------------------------------------------------- */

static void rtopo__on_abort(rtopo_ctx_t *ctx, const rtopo__msg_t *m, size_t len)
{
    /* an ABORT carries a failure: anything else is not one of ours */
    if (m->status >= 0 || m->status <= RTOPO_ERR_LAST || m->culprit < -1 ||
        m->culprit >= ctx->size) {
        rtopo__warn("dropping an ABORT from rank %d with status %d, culprit %d",
                    m->src, m->status, m->culprit);
        return;
    }
    rtopo__on_job_abort(ctx, m, len);
}

/* declares a lost peer once its grace has passed without an ABORT */
static void rtopo__job_hook(rtopo_ctx_t *ctx)
{
    char msg[sizeof(ctx->failmsg)];

    if (!ctx->grace_ns || rtopo__now_ns() < ctx->grace_ns)
        return;
    ctx->grace_ns = 0;
    if (ctx->failed)
        return;
    memcpy(msg, ctx->failmsg, sizeof(msg));
    ctx->grace_fire = 1;
    rtopo__job_abort(ctx, RTOPO_ERR_PEER, ctx->grace_rank, NULL, 0, RTOPO__NOSEQ, "%s", msg);
    ctx->grace_fire = 0;
}

/* A dead rank dooms every operation in flight and every later one: the
 * collectives involve all ranks of the job. */
static void rtopo__job_peer_lost(rtopo_ctx_t *ctx, int peer, int status, const char *why)
{
    if (ctx->closing)
        return;
    if (!ctx->failed || ctx->failed_rank != peer)
        rtopo__job_abort(ctx, status, peer, NULL, 0, RTOPO__NOSEQ, "rank %d failed (%s)",
                         peer, why);
}

void rtopo__job_init(rtopo_ctx_t *ctx)
{
    rtopo__on_peer_lost(ctx, rtopo__job_peer_lost);
    rtopo__hook_add(ctx, rtopo__job_hook);
    rtopo__am_set(ctx, RTOPO__MSG_HELLO, rtopo__on_hello);
    rtopo__am_set(ctx, RTOPO__MSG_BARRIER, rtopo__on_barrier);
    rtopo__am_set(ctx, RTOPO__MSG_ABORT, rtopo__on_abort);
}

static int rtopo__job_quiet(void *arg)
{
    rtopo_ctx_t *ctx = arg;

    return ctx->track.out == 0 && ctx->npq == 0 && rtopo__named_or_not_mismatch(ctx);
}

/* Lets job-level messages (an ABORT) leave, for at most limit_ms, and
 * waits as long for a mismatch to be named: the caller (rtopo_finalize,
 * rtopo_barrier) has reported ctx->failmsg already, and gets the naming
 * in rtopo_last_error() instead if it comes. */
void rtopo__flush_job(rtopo_ctx_t *ctx, int limit_ms)
{
    char was[sizeof(ctx->failmsg)];
    int unnamed = !rtopo__named_or_not_mismatch(ctx);

    memcpy(was, ctx->failmsg, sizeof(was));
    rtopo__wait(ctx, rtopo__job_quiet, ctx,
                rtopo__now_ns() + (uint64_t)limit_ms * 1000000ull);
    if (unnamed && ctx->fail_named && !strcmp(rtopo_last_error(), was))
        rtopo__error_quiet(ctx->failed, "%s", ctx->failmsg);
}
