/*
 * fuzz_ctrl_job.c - libFuzzer harness for what peers can send a rank in
 * the middle of its collectives: control messages reaching a running
 * operation (EAGER data, RTR windows, CREDITs: runtime/exec.c), write
 * immediates naming window slots and pieces, and the job-level messages
 * (HELLO, BARRIER, ABORT: runtime/job.c) between topology creations,
 * operations and barriers.
 *
 * Each input runs one whole job on one rank: rtopo_init with an allgather
 * callback (1 to 8 ranks, this rank any of them), topologies created,
 * shifts started, the input's messages delivered among them, then every
 * request completed or timed out and rtopo_finalize.  Nothing survives
 * an input, so a leak or a use after free is the library's.  That costs
 * a context per input: fuzz_ctrl_msg.c runs the message dispatch alone,
 * far faster.  Transport and clock: fuzz_tl.h.
 *
 * Input: one byte of set-up (ranks, this rank, whether small control
 * messages go out untracked), then records until the input ends:
 *   op % 8 = 0, 1  control message: flags, length (u16, at most the
 *                  transport's control size), bytes.  flags: 1 a valid
 *                  sender and its token, 2 the topology, operation and
 *                  signature of the last operation started (8: of the
 *                  next one, with the same arguments), 4 transfer, hop,
 *                  length and sender of one of its plan's entries (next
 *                  byte), so that the fuzzer gets past what it cannot
 *                  guess; the rest of the message stays as the input has it
 *   op % 8 = 2     write immediate (u32); op & 8: aimed at the window slot
 *                  of one of the operation's receives (next byte)
 *   op % 8 = 3     one progress pass (rtopo_test on the request)
 *   op % 8 = 4     create a topology (next byte: ring, mesh or hypercube,
 *                  the mesh's rows, the shift algorithm)
 *   op % 8 = 5     start a shift (new, or restart of a persistent one)
 *   op % 8 = 6     let virtual time pass
 *   op % 8 = 7     transport error for a peer, rtopo_barrier, or free a
 *                  topology
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

#define FZ_MAX_RANKS   8
#define FZ_MAX_RECORDS 256
#define FZ_MAX_TOPOS   3
#define FZ_MAX_OPS     8
#define FZ_MAX_BYTES   12288     /* three pieces of RTOPO_CHUNK_SIZE */
#define FZ_TIMEOUT_MS  10000     /* RTOPO_TIMEOUT_MS (fz_setenv) */

/* ---- the job around the rank ------------------------------------------ */

struct fz_job {
    int rank, nranks;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *topos[FZ_MAX_TOPOS];
    int ntopos;
    rtopo_req_t *req;           /* the request of the last shift started */
    int nops;
    void *bufs[2 * FZ_MAX_OPS];
    int nbufs;
    /* the operation messages are patched for (flags 2) */
    int have_op;
    uint32_t topo_id, seq, sig;
};

static void *fz_buf(struct fz_job *job, size_t len)
{
    void *b = malloc(len ? len : 1);

    FZ_CHECK(b && job->nbufs < 2 * FZ_MAX_OPS, "out of memory");
    memset(b, 0xa5, len ? len : 1);
    job->bufs[job->nbufs++] = b;
    return b;
}

static int fz_in_flight(const struct fz_job *job)
{
    return job->req && job->req->user_active;
}

static void fz_ctrl(struct fz_job *job, fz_in_t *in)
{
    rtopo__plan_t *plan = job->req ? job->req->op.plan : NULL;
    uint32_t flags = fz_u8(in), which;
    size_t len = fz_u16(in) % (job->ctx->ctrl_size + 1);
    rtopo__msg_t *m = fz_tl_msg_read(in, len);
    uint8_t *buf = (uint8_t *)m;
    uint64_t xlen;

    if (flags & 2) {
        FZ_SET(m, len, topo_id, job->topo_id);
        FZ_SET(m, len, seq, job->seq + (flags & 8 ? 1 : 0));
        FZ_SET(m, len, sig, job->sig);
    }
    if ((flags & 4) && plan && len >= 1) {
        which = fz_u8(in);
        if (m->type == RTOPO__MSG_EAGER && plan->nrecv) {
            const rtopo__recv_ent_t *e = &plan->recv[which % (uint32_t)plan->nrecv];
            xlen = rtopo__sched_xlen(plan->sched, e->xfer);
            /* the payload of the transfer follows the header */
            if (xlen <= job->ctx->params.eager_limit && len >= RTOPO__MSG_HDR) {
                if (RTOPO__MSG_HDR + xlen > len)
                    memset(buf + len, 0x3c, RTOPO__MSG_HDR + xlen - len);
                len = RTOPO__MSG_HDR + xlen;
            }
            FZ_SET(m, len, xfer, e->xfer);
            FZ_SET(m, len, hop, e->hop);
            FZ_SET(m, len, src, e->peer);
            FZ_SET(m, len, len, xlen);
        } else if (m->type != RTOPO__MSG_EAGER && plan->nsend) {
            const rtopo__send_ent_t *e = &plan->send[which % (uint32_t)plan->nsend];
            FZ_SET(m, len, xfer, e->xfer);
            FZ_SET(m, len, hop, e->hop);
            FZ_SET(m, len, src, e->peer);
            FZ_SET(m, len, len, rtopo__sched_xlen(plan->sched, e->xfer));
        }
    }
    if (flags & 1)
        fz_tl_msg_sender(m, len, job->ctx);
    fz_tl_recv_copy(m, len);
}

static void fz_imm(struct fz_job *job, fz_in_t *in, uint32_t op)
{
    rtopo__tl_event_t ev;
    uint32_t imm = fz_u32(in), which;
    rtopo__op_t *o = job->req ? &job->req->op : NULL;

    if (op & 8) {
        which = fz_u8(in);
        if (o && o->active && o->rs && o->plan->nrecv) {
            const rtopo__rstate_t *r = &o->rs[which % (uint32_t)o->plan->nrecv];
            if (r->mode)
                imm = (imm & ((1u << 17) - 1)) | r->slot << 17;
        }
    }
    memset(&ev, 0, sizeof(ev));
    ev.type = RTOPO__TL_EV_IMM;
    ev.peer = -1;
    ev.imm = imm;
    fz_tl_event(&ev);
}

static void fz_progress(struct fz_job *job)
{
    int done, st;

    if (fz_in_flight(job)) {
        st = rtopo_test(job->req, &done);
        if (done)
            FZ_DEBUG("shift completed: %s\n", st ? rtopo_last_error() : "ok");
    } else {
        rtopo__progress(job->ctx);
    }
}

static void fz_topo(struct fz_job *job, fz_in_t *in)
{
    uint32_t sub = fz_u8(in), n = (uint32_t)job->nranks, d, k, div[FZ_MAX_RANKS];
    rtopo_topo_t *t = NULL;
    int st, dim;

    if (job->ntopos == FZ_MAX_TOPOS)
        return;
    switch ((sub & 3) % 3) {
    case 0:
        st = rtopo_topo_ring(job->ctx, &t);
        break;
    case 1:
        for (k = 0, d = 1; d <= n; d++)
            if (n % d == 0)
                div[k++] = d;
        d = div[((sub >> 2) & 3) % k];
        st = rtopo_topo_mesh(job->ctx, (int)d, (int)(n / d), &t);
        break;
    default:
        for (dim = 0; (1u << dim) < n; dim++)
            ;
        st = rtopo_topo_hypercube(job->ctx, dim, &t);
        break;
    }
    FZ_DEBUG("topology (%u): %s\n", (sub & 3) % 3, st ? rtopo_last_error() : "created");
    if (st == RTOPO_OK) {
        rtopo_topo_set_shift_algo(t, (rtopo_shift_algo_t)((sub >> 4) % 6));
        job->topos[job->ntopos++] = t;
        if (!job->have_op) {       /* early messages aim at its first operation */
            job->topo_id = t->id;
            job->seq = t->next_seq;
        }
    }
}

static void fz_shift(struct fz_job *job, fz_in_t *in)
{
    uint32_t which = fz_u8(in), flags = fz_u8(in);
    size_t bytes = fz_u16(in) % (FZ_MAX_BYTES + 1);
    int q = (int8_t)fz_u8(in), st;
    rtopo_topo_t *t;
    rtopo_mem_t *mem;
    void *sb, *rb;

    if (!job->ntopos || fz_in_flight(job))
        return;
    if (job->req && job->req->persistent && (flags & 0x40)) {
        st = rtopo_start(job->req);                   /* a restart */
    } else {
        if (job->nops == FZ_MAX_OPS)
            return;
        if (job->req)
            rtopo_req_free(job->req);
        job->req = NULL;
        job->nops++;
        t = job->topos[which % (uint32_t)job->ntopos];
        sb = fz_buf(job, bytes);
        rb = fz_buf(job, bytes);
        if ((flags & 1) && bytes)
            rtopo_mem_register(job->ctx, rb, bytes, &mem);
        if ((flags & 2) && bytes)
            rtopo_mem_register(job->ctx, sb, bytes, &mem);
        if (flags & 4) {
            st = rtopo_shift_init(t, sb, rb, bytes, q, &job->req);
            if (st == RTOPO_OK)
                st = rtopo_start(job->req);
        } else {
            st = rtopo_ishift(t, sb, rb, bytes, q, &job->req);
        }
    }
    FZ_DEBUG("shift of %zu bytes by %d: %s\n", bytes, q, st ? rtopo_last_error() :
             "started");
    if (st == RTOPO_OK && job->req) {
        job->have_op = 1;
        job->topo_id = job->req->op.topo->id;
        job->seq = job->req->op.seq;
        job->sig = job->req->op.plan->sig;
    }
}

static void fz_misc(struct fz_job *job, fz_in_t *in)
{
    uint32_t sub = fz_u8(in), which = fz_u8(in);
    rtopo_topo_t *t;

    switch (sub % 3) {
    case 0:         /* the transport reports a peer lost */
        fz_tl_peer_lost((int)(which % (uint32_t)job->nranks));
        break;
    case 1:
        if (!fz_in_flight(job))
            rtopo_barrier(job->ctx);
        break;
    default:
        if (!job->ntopos)
            break;
        which %= (uint32_t)job->ntopos;
        t = job->topos[which];
        if (job->req && job->req->op.topo == t) {
            if (fz_in_flight(job))
                break;
            rtopo_req_free(job->req);
            job->req = NULL;
        }
        if (rtopo_topo_free(t) == RTOPO_OK) {
            job->topos[which] = job->topos[--job->ntopos];
        }
        break;
    }
}

static void fz_write_seeds(const char *dir);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fz_setenv(fz_init(fz_write_seeds));
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz_job job;
    fz_in_t in = { data, size };
    uint32_t setup, op;
    int done, i, records = 0;

    if (size < 1)
        return 0;
    memset(&job, 0, sizeof(job));
    setup = fz_u8(&in);
    job.nranks = 1 + (int)(setup & 7);
    job.rank = (int)((setup >> 3) & 7) % job.nranks;
    fz_tl_set_nowait((setup & 0x40) ? 4096 : 0);
    fz_now = FZ_EPOCH_NS;
    job.ctx = fz_tl_ctx_new(job.rank, &job.nranks);

    while (fz_left(&in) && records++ < FZ_MAX_RECORDS) {
        op = fz_u8(&in);
        switch (op % 8) {
        case 0:
        case 1:
            fz_ctrl(&job, &in);
            break;
        case 2:
            fz_imm(&job, &in, op);
            break;
        case 3:
            fz_progress(&job);
            break;
        case 4:
            fz_topo(&job, &in);
            break;
        case 5:
            fz_shift(&job, &in);
            break;
        case 6:
            fz_now += (uint64_t)fz_u8(&in) * 4 * FZ_TICK_NS;
            fz_progress(&job);
            break;
        default:
            fz_misc(&job, &in);
            break;
        }
    }
    /* what is still queued is delivered; a request still running is left
     * to time out (virtual time) */
    fz_progress(&job);
    if (fz_in_flight(&job)) {
        fz_now += (uint64_t)(FZ_TIMEOUT_MS + 1000) * 1000000ull;
        for (i = 0; i < 64 && fz_in_flight(&job); i++)
            rtopo_test(job.req, &done);
        FZ_CHECK(!fz_in_flight(&job), "a request neither completed nor timed out");
    }
    if (job.req)
        FZ_CHECK(rtopo_req_free(job.req) == RTOPO_OK, "rtopo_req_free: %s",
                 rtopo_last_error());
    FZ_DEBUG("job %s; %s\n", job.ctx->failed ? job.ctx->failmsg : "not failed",
             job.ctx->zombies ? "failed operations' completions still due" : "nothing due");
    /* (it returns the job's failure, which a peer's ABORT may have set to
     * any status: whether it freed the context shows in the transport) */
    rtopo_finalize(job.ctx);
    FZ_CHECK(!fz_tl_is_open(), "rtopo_finalize returned without closing the context: %s",
             rtopo_last_error());
    fz_tl_set_ctx(NULL);
    for (i = 0; i < job.nbufs; i++)
        free(job.bufs[i]);
    return 0;
}

/* ---- seed inputs --------------------------------------------------------- */

/* a control message record: the message as a rank would send it */
static void fz_put_msg(fz_seed_t *s, uint32_t flags, const rtopo__msg_t *m,
                       size_t len, const void *payload, size_t plen, int which)
{
    fz_put8(s, 0);
    fz_put8(s, flags);
    fz_put_len_bytes(s, m, len, payload, plen);
    if (flags & 4)
        fz_put8(s, (uint32_t)which);
}

/* records of writes to a window slot no operation has (none of the
 * 32768 is open): events that only take their place in the queue */
static void fz_put_idle(fz_seed_t *s, int n)
{
    for (; n > 0; n--) {
        fz_put8(s, 2);
        fz_put16(s, 0xffff);
        fz_put16(s, 0xffff);
    }
}

/* A shift of 3 pieces each way on 2 ranks (rank 0) ends with an ABORT
 * while what it posted in the progress pass before is still out: writes
 * (the peer's window came; small control messages untracked) or else a
 * CREDIT (a piece came into its own window).  The ABORT is polled in the
 * pass after the one that posted (a pass takes at most 32 events, and
 * the writes go out at its end), and the completions queued behind more
 * than the two passes left: the request is freed and the context
 * finalized before they come. */
static void fz_seed_zombie(fz_seed_t *s, int writes)
{
    rtopo__msg_t m;

    memset(s, 0, sizeof(*s));
    fz_put8(s, 1 | (writes ? 0x40 : 0));
    fz_put8(s, 4); fz_put8(s, 0);                             /* ring */
    fz_put8(s, 5); fz_put8(s, 0); fz_put8(s, 0);              /* shift */
    fz_put16(s, 12000); fz_put8(s, 1);
    if (writes) {
        memset(&m, 0, sizeof(m));
        m.type = RTOPO__MSG_RTR;
        m.mode = RTOPO__WIN_STAGED;
        m.nslots = 2;
        m.unit = 4096;
        m.rkey.key = 0x4b4559;
        fz_put_msg(s, 7, &m, sizeof(m), NULL, 0, 0);
    } else {
        fz_put8(s, 2 | 8); fz_put16(s, 0); fz_put16(s, 0); fz_put8(s, 0);
    }
    fz_put_idle(s, 31);
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_ABORT;
    m.src = 1;
    m.status = RTOPO_ERR_TIMEOUT;
    m.culprit = 1;
    fz_put_msg(s, 1, &m, sizeof(m), "rank 1 timed out", 17, 0);
    fz_put_idle(s, 80);
    fz_put8(s, 3);
}

static void fz_write_seeds(const char *dir)
{
    static const uint8_t payload[256] = { 1, 2, 3, 4 };
    fz_seed_t s;
    rtopo__msg_t m;

    /* 4 ranks, rank 1: a ring, an eager shift by 1, its data arriving,
     * a credit, a barrier */
    memset(&s, 0, sizeof(s));
    fz_put8(&s, 3 | 1 << 3);
    fz_put8(&s, 4); fz_put8(&s, 0);                           /* ring */
    fz_put8(&s, 5); fz_put8(&s, 0); fz_put8(&s, 0);           /* shift */
    fz_put16(&s, 64); fz_put8(&s, 1);
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_EAGER;
    fz_put_msg(&s, 7, &m, RTOPO__MSG_HDR, payload, 64, 0);
    fz_put8(&s, 3);
    fz_put8(&s, 7); fz_put8(&s, 1); fz_put8(&s, 0);           /* barrier */
    fz_seed_write(dir, "eager_ring", &s);

    /* 8 ranks, rank 0: a 2x4 mesh, a shift of 3 pieces by 3 into a
     * registered buffer, windows and immediates from the peers */
    memset(&s, 0, sizeof(s));
    fz_put8(&s, 7);
    fz_put8(&s, 4); fz_put8(&s, 1 | 1 << 2);
    fz_put8(&s, 5); fz_put8(&s, 0); fz_put8(&s, 1);
    fz_put16(&s, 12000); fz_put8(&s, 3);
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_RTR;
    m.mode = RTOPO__WIN_STAGED;
    m.nslots = 2;
    m.unit = 4096;
    m.slot = 5;
    m.rkey.key = 0x4b4559;
    fz_put_msg(&s, 7, &m, sizeof(m), NULL, 0, 0);
    fz_put8(&s, 3);
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_CREDIT;
    m.nslots = 2;
    fz_put_msg(&s, 7, &m, sizeof(m), NULL, 0, 0);
    fz_put8(&s, 2 | 8); fz_put16(&s, 0); fz_put16(&s, 0); fz_put8(&s, 0);
    fz_put8(&s, 2 | 8); fz_put16(&s, 1); fz_put16(&s, 0); fz_put8(&s, 0);
    fz_put8(&s, 2 | 8); fz_put16(&s, 2); fz_put16(&s, 1); fz_put8(&s, 0);
    fz_put8(&s, 3);
    fz_seed_write(dir, "rtr_mesh", &s);

    /* 2 ranks, rank 0: a HELLO for another topology shape, then an ABORT
     * naming a mismatch, with its text */
    memset(&s, 0, sizeof(s));
    fz_put8(&s, 1 | 0x40);
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_HELLO;
    m.src = 1;
    m.desc.topo_kind = 1;
    m.desc.p = 2;
    fz_put_msg(&s, 1, &m, sizeof(m), NULL, 0, 0);
    fz_put8(&s, 4); fz_put8(&s, 0);
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_ABORT;
    m.flags = 1;
    m.src = 1;
    m.status = RTOPO_ERR_MISMATCH;
    m.culprit = 1;
    m.desc.p = 2;
    m.desc.kind = RTOPO__OP_SHIFT;
    fz_put_msg(&s, 1, &m, sizeof(m), "rank 1 called shift with q=2", 29, 0);
    fz_put8(&s, 3);
    fz_seed_write(dir, "hello_abort", &s);

    /* 4 ranks, rank 2: barrier messages of two epochs, an early message
     * for an operation not started, then the operation */
    memset(&s, 0, sizeof(s));
    fz_put8(&s, 3 | 2 << 3);
    fz_put8(&s, 4); fz_put8(&s, 2);                           /* hypercube */
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_BARRIER;
    m.src = 1;
    m.xfer = 0;
    fz_put_msg(&s, 1, &m, sizeof(m), NULL, 0, 0);
    m.src = 0;
    m.xfer = 1;
    m.seq = 1;
    fz_put_msg(&s, 1, &m, sizeof(m), NULL, 0, 0);
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_EAGER;
    m.src = 3;
    m.len = 8;
    fz_put_msg(&s, 3, &m, RTOPO__MSG_HDR, payload, 8, 0);
    fz_put8(&s, 3);
    fz_put8(&s, 5); fz_put8(&s, 0); fz_put8(&s, 4);
    fz_put16(&s, 8); fz_put8(&s, 1);
    fz_put8(&s, 3);
    fz_seed_write(dir, "barrier_early", &s);

    /* 2 ranks, rank 1: a shift by 1 completes; the data of the next one
     * arrives before it starts, is kept, and is taken when it starts */
    memset(&s, 0, sizeof(s));
    fz_put8(&s, 1 | 1 << 3);
    fz_put8(&s, 4); fz_put8(&s, 0 | 1 << 4);                  /* ring, algo ring */
    fz_put8(&s, 5); fz_put8(&s, 0); fz_put8(&s, 0);
    fz_put16(&s, 200); fz_put8(&s, 1);
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_EAGER;
    fz_put_msg(&s, 7, &m, RTOPO__MSG_HDR, payload, 200, 0);
    fz_put8(&s, 3);
    fz_put_msg(&s, 15, &m, RTOPO__MSG_HDR, payload, 200, 0);
    fz_put8(&s, 3);
    fz_put8(&s, 5); fz_put8(&s, 0); fz_put8(&s, 0);
    fz_put16(&s, 200); fz_put8(&s, 1);
    fz_put8(&s, 3);
    fz_seed_write(dir, "early_next", &s);

    /* 2 ranks, rank 0: a shift of 3 pieces each way fails with its
     * writes (zombie_writes) or a control message (zombie_credit) still
     * out, and the context is finalized before their completions come */
    fz_seed_zombie(&s, 1);
    fz_seed_write(dir, "zombie_writes", &s);
    fz_seed_zombie(&s, 0);
    fz_seed_write(dir, "zombie_credit", &s);

    /* 1 rank: a runt, a forged sender, an unknown type */
    memset(&s, 0, sizeof(s));
    fz_put8(&s, 0);
    memset(&m, 0, sizeof(m));
    m.type = RTOPO__MSG_BARRIER;
    fz_put_msg(&s, 0, &m, 10, NULL, 0, 0);
    m.src = 5;
    fz_put_msg(&s, 0, &m, sizeof(m), NULL, 0, 0);
    m.type = 77;
    fz_put_msg(&s, 1, &m, sizeof(m), NULL, 0, 0);
    fz_put8(&s, 3);
    fz_seed_write(dir, "dropped", &s);
}
