/*
 * fuzz_ctrl_msg.c - libFuzzer harness for the engine's incoming control
 * messages: runtime/engine.c rtopo__on_ctrl (the length of the header
 * and of the type's fields, the sender's rank and token, the type) and
 * what it dispatches to: HELLO, BARRIER and ABORT (runtime/job.c), and
 * EAGER, RTR and CREDIT for operations this rank has not started (kept
 * as early messages within bounds, or a mismatch) and flow control's
 * ACK (runtime/exec.c).
 *
 * One context serves every input: rank 5 of a job of 8, created once,
 * with a ring (topology 0) and a hypercube (topology 1) wired up.  Each
 * input's messages go through the transport's receive path
 * (rtopo__progress), then the context's job state is put back as it
 * was after set-up: the early messages kept are freed, the context
 * structure and its per-rank tables are restored from a copy.  The
 * completions of what the rank sent (an ABORT to every rank) are taken
 * in first, so the pool of control message buffers is the library's own.
 * Operations in flight, windows and immediates: fuzz_ctrl_job.c, which
 * runs a whole job per input.  Transport and clock: fuzz_tl.h.
 *
 * Input: records until the input ends (at most 64), each a flags byte:
 *   flags < 0x80: a control message: length (u16, at most the transport's
 *     control size), then its bytes.  flags & 1: the sender is made a rank
 *     of the job (src mod 8) with its token, so that the message gets past
 *     authentication; & 2: the topology id is made one that exists
 *     (topo_id mod 2); & 4: delivered at once (else with the next ones)
 *   flags >= 0x80, by flags & 3: 0 virtual time passes (next byte, in
 *     units of 4 ms: a lost peer's grace ends after 50 ms); 1 the
 *     transport reports a rank lost (next byte); 2 a progress pass
 * Run with FUZZ_SEEDS_DIR=DIR to write the seed inputs into DIR.
 */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo_int.h"
#include "fuzz_common.h"
#include "fuzz_tl.h"

#define FZ_NRANKS      8
#define FZ_RANK        5
#define FZ_NTOPOS      2
#define FZ_MAX_RECORDS 64

/* a table of the context restored after each input */
struct fz_table {
    void *p;
    size_t len;
    void *copy;
};

static struct {
    rtopo_ctx_t *ctx;
    int nranks;
    rtopo_ctx_t saved;          /* the context as set up */
    struct fz_table tab[16];
    int ntab;
} fz;

static void fz_table(void *p, size_t len)
{
    struct fz_table *t = &fz.tab[fz.ntab++];

    FZ_CHECK(fz.ntab <= (int)(sizeof(fz.tab) / sizeof(fz.tab[0])), "too many tables");
    t->p = p;
    t->len = len;
    t->copy = malloc(len ? len : 1);
    FZ_CHECK(t->copy, "out of memory");
    memcpy(t->copy, p, len);
}

/* every event queued is handled, and what it leads to */
static void fz_drain(void)
{
    int i;

    for (i = 0; i < 100000 && fz_tl_pending(); i++)
        FZ_CHECK(rtopo__progress(fz.ctx) >= 0, "progress failed: %s", rtopo_last_error());
    FZ_CHECK(!fz_tl_pending(), "the transport's events never run out");
}

static void fz_setup(void)
{
    rtopo_topo_t *t;
    rtopo_ctx_t *ctx;
    size_t n;
    int i;

    fz.nranks = FZ_NRANKS;
    ctx = fz.ctx = fz_tl_ctx_new(FZ_RANK, &fz.nranks);
    FZ_CHECK(rtopo_topo_ring(ctx, &t) == RTOPO_OK && t->id == 0, "ring: %s",
             rtopo_last_error());
    FZ_CHECK(rtopo_topo_hypercube(ctx, 3, &t) == RTOPO_OK && t->id == 1, "hypercube: %s",
             rtopo_last_error());
    fz_drain();
    FZ_CHECK(!ctx->failed && !ctx->unexp && !ctx->active && !ctx->track.out,
             "set-up left the context busy: %s", ctx->failmsg);

    fz.saved = *ctx;
    n = (size_t)ctx->size;
    fz_table(ctx->connected, n);
    fz_table(ctx->wired, n);
    fz_table(ctx->hello_in, n);
    fz_table(ctx->hello_topo, n * sizeof(*ctx->hello_topo));
    fz_table(ctx->hello_desc, n * sizeof(*ctx->hello_desc));
    fz_table(ctx->barrier_ops, n * sizeof(*ctx->barrier_ops));
    fz_table(ctx->barrier_seen, n * sizeof(*ctx->barrier_seen));
    fz_table(ctx->barrier_kind, n);
    /* with flow control's counts of topologies after it */
    fz_table(ctx->unexp_count, 3 * n * sizeof(*ctx->unexp_count));
    for (i = 0; i < FZ_NTOPOS; i++)
        if (ctx->topos[i]->flow)
            fz_table(ctx->topos[i]->flow, 2 * n * sizeof(*ctx->topos[i]->flow));
    fz_table(ctx->tlast, ctx->ntopos_alloc * sizeof(*ctx->tlast));
    fz_table(ctx->topos, ctx->ntopos_alloc * sizeof(*ctx->topos));
}

static void fz_restore(void)
{
    rtopo_ctx_t *ctx = fz.ctx;
    rtopo__cmsg_t *pool, *all;
    int i;

    fz_drain();
    /* the rank has nothing in flight: no operation, every send completed */
    FZ_CHECK(!ctx->active && !ctx->zombies && !ctx->reqs, "an operation appeared");
    FZ_CHECK(ctx->track.out == 0 && ctx->npq == 0,
             "%d job-level control message(s) never completed, %d peer(s) queued",
             ctx->track.out, ctx->npq);
    rtopo__early_free(ctx);
    pool = ctx->cmsg_free;
    all = ctx->cmsg_all;
    *ctx = fz.saved;
    ctx->cmsg_free = pool;
    ctx->cmsg_all = all;
    for (i = 0; i < fz.ntab; i++)
        memcpy(fz.tab[i].p, fz.tab[i].copy, fz.tab[i].len);
}

static void fz_message(fz_in_t *in, uint32_t flags)
{
    size_t len = fz_u16(in) % (fz_tl_ctrl_size() + 1);
    rtopo__msg_t *m = fz_tl_msg_read(in, len);

    if (flags & 1)
        fz_tl_msg_sender(m, len, fz.ctx);
    if (flags & 2)
        FZ_SET(m, len, topo_id, FZ_GET(m, len, topo_id) % FZ_NTOPOS);
    fz_tl_recv_copy(m, len);
    if (flags & 4)
        rtopo__progress(fz.ctx);
}

static void fz_write_seeds(const char *dir);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fz_setenv(fz_init(fz_write_seeds));
    fz_setup();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = { data, size };
    uint32_t flags;
    int records = 0;

    fz_now = FZ_EPOCH_NS;
    while (fz_left(&in) && records++ < FZ_MAX_RECORDS) {
        flags = fz_u8(&in);
        if (!(flags & 0x80)) {
            fz_message(&in, flags);
            continue;
        }
        switch (flags & 3) {
        case 0:
            fz_now += (uint64_t)fz_u8(&in) * 4 * FZ_TICK_NS;
            rtopo__progress(fz.ctx);
            break;
        case 1:
            fz_tl_peer_lost((int)(fz_u8(&in) % FZ_NRANKS));
            break;
        default:
            rtopo__progress(fz.ctx);
            break;
        }
    }
    fz_drain();
    FZ_DEBUG("input done: %s; %llu forged; %s early messages kept\n",
             fz.ctx->failed ? fz.ctx->failmsg : "not failed",
             (unsigned long long)fz.ctx->forged, fz.ctx->unexp ? "some" : "no");
    fz_restore();
    return 0;
}

/* ---- seed inputs --------------------------------------------------------- */

/* a message record: the message as a rank sends it (token patched in) */
static void fz_put_msg(fz_seed_t *s, uint32_t flags, const rtopo__msg_t *m,
                       size_t len, const void *payload, size_t plen)
{
    fz_put8(s, flags);
    fz_put_len_bytes(s, m, len, payload, plen);
}

static void fz_write_seeds(const char *dir)
{
    static const uint8_t payload[64] = { 1, 2, 3, 4 };
    fz_seed_t s;
    rtopo__msg_t m;

    /* wire-up: the ring's HELLO from both neighbours, one for a topology
     * this rank has not created, one of another shape */
    memset(&s, 0, sizeof(s));
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_HELLO;
    m.src = 4;
    m.topo_id = 0;
    m.ntopos = 2;
    m.desc.topo_kind = RTOPO__TOPO_RING;
    m.desc.p = 8;
    fz_put_msg(&s, 1, &m, sizeof(m), NULL, 0);
    m.src = 6;
    fz_put_msg(&s, 1 | 4, &m, sizeof(m), NULL, 0);
    m.src = 7;
    m.topo_id = 2;
    fz_put_msg(&s, 1, &m, sizeof(m), NULL, 0);
    m.src = 1;
    m.topo_id = 1;
    m.desc.topo_kind = RTOPO__TOPO_HYPERCUBE;
    m.desc.topo_a = 2;
    fz_put_msg(&s, 1 | 4, &m, sizeof(m), NULL, 0);
    fz_seed_write(dir, "hello", &s);

    /* the barrier: rounds 0..2 of epoch 0 and one of epoch 1 */
    memset(&s, 0, sizeof(s));
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_BARRIER;
    m.src = 4;
    m.xfer = 0;
    fz_put_msg(&s, 1, &m, sizeof(m), NULL, 0);
    m.src = 3;
    m.xfer = 1;
    m.unit = 2;
    fz_put_msg(&s, 1, &m, sizeof(m), NULL, 0);
    m.src = 1;
    m.xfer = 2;
    m.mode = RTOPO__BARRIER_FINALIZE;
    fz_put_msg(&s, 1, &m, sizeof(m), NULL, 0);
    m.src = 4;
    m.seq = 1;
    m.xfer = 0;
    fz_put_msg(&s, 1 | 4, &m, sizeof(m), NULL, 0);
    fz_seed_write(dir, "barrier", &s);

    /* ABORTs: a mismatch with arguments and a text, a lost peer */
    memset(&s, 0, sizeof(s));
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_ABORT;
    m.flags = 1;
    m.src = 2;
    m.status = RTOPO_ERR_MISMATCH;
    m.culprit = 2;
    m.topo_id = 0;
    m.desc.kind = RTOPO__OP_SHIFT;
    m.desc.topo_kind = RTOPO__TOPO_RING;
    m.desc.p = 8;
    m.desc.q = 3;
    m.desc.bytes = 64;
    fz_put_msg(&s, 1, &m, sizeof(m), "rank 2 called shift with q=3", 29);
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_ABORT;
    m.src = 0;
    m.status = RTOPO_ERR_PEER;
    m.culprit = 7;
    fz_put_msg(&s, 1 | 4, &m, sizeof(m), NULL, 0);
    fz_seed_write(dir, "abort", &s);

    /* messages for operations not started: kept, too far ahead, or for an
     * operation this rank will never run */
    memset(&s, 0, sizeof(s));
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_EAGER;
    m.src = 4;
    m.topo_id = 0;
    m.seq = 0;
    m.hop = 1;
    m.len = 64;
    fz_put_msg(&s, 1, &m, RTOPO__MSG_HDR, payload, 64);
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_RTR;
    m.mode = RTOPO__WIN_STAGED;
    m.src = 6;
    m.topo_id = 1;
    m.seq = 3;
    m.hop = 1;
    m.len = 100000;
    m.nslots = 2;
    m.unit = 4096;
    fz_put_msg(&s, 1, &m, sizeof(m), NULL, 0);
    m.type = RTOPO__MSG_CREDIT;
    m.seq = 5000;
    fz_put_msg(&s, 1, &m, sizeof(m), NULL, 0);
    m.type = RTOPO__MSG_EAGER;
    m.topo_id = 40;
    m.len = 0;
    fz_put_msg(&s, 1 | 4, &m, RTOPO__MSG_HDR, NULL, 0);
    m.type = RTOPO__MSG_ACK;     /* a peer's count, for a topology to come */
    m.topo_id = 2;
    m.seq = 15;
    fz_put_msg(&s, 1 | 4, &m, sizeof(m), NULL, 0);
    m.topo_id = 1;               /* and for one that exists */
    fz_put_msg(&s, 1 | 4, &m, sizeof(m), NULL, 0);
    fz_seed_write(dir, "early", &s);

    /* dropped: a runt, a forged sender, an unknown type; a lost peer and
     * its grace */
    memset(&s, 0, sizeof(s));
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_BARRIER;
    m.src = 1;
    fz_put_msg(&s, 1, &m, 12, NULL, 0);
    m.src = 9;
    fz_put_msg(&s, 0, &m, sizeof(m), NULL, 0);
    m.type = 77;
    fz_put_msg(&s, 1, &m, sizeof(m), NULL, 0);
    fz_put8(&s, 0x81);
    fz_put8(&s, 3);
    fz_put8(&s, 0x80);
    fz_put8(&s, 20);
    fz_seed_write(dir, "dropped", &s);
}
