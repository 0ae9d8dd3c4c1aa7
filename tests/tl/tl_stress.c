/*
 * tl_stress.c - the ring protocol of a transport under stress, through
 * the ops table only.
 *
 * usage: tl_stress TRANSPORT [--procs N] [--ops N] [--seed S] [--ctrl B]
 *                            [--ring B] [--stall PERMILLE]
 *
 * Forks N processes (3 by default), each sending to every other one a
 * stream of --ops operations drawn from a generator seeded by (seed,
 * sender, receiver), which the receiver runs too, so that it knows what
 * comes, in which order, with which bytes:
 *  - control messages of 0 .. ctrl bytes (most of them small: the sizes
 *    that start a new lap of a ring early, and the ones that do not),
 *    half of them in two pieces split anywhere where the table has sendv;
 *  - writes that travel in the ring (up to 8 KiB), with and without an
 *    immediate, some injected;
 *  - large writes (up to SLOT bytes) with and without an immediate.
 * A write lands in a slot of the receiver's region kept for that sender
 * (slot k mod NSLOT for operation k, at an odd offset now and then); the
 * receiver checks every byte of it when its immediate arrives, or, for a
 * write without one, at the next message or immediate of that sender
 * (which the generator puts right after it).  Control message payloads
 * are checked when they arrive and again just before the next poll(),
 * after other sends and writes: tl.h keeps them valid until then.  The
 * sender reuses a slot only once the receiver has checked what was in it
 * (a counter in memory the processes share: the test's own bookkeeping,
 * not the transport's).  Every write and tracked send completes exactly
 * once.
 * Beside the stream, each process opens a region to writes now and then
 * and closes it again (deregistered once no peer is inside a write to
 * it, unmapped, fresh memory mapped at the same address), while its peers
 * write to it at random, in the ring and by cross-memory attach, without
 * immediates: writes racing the close are refused, and nothing may ever
 * land in the memory mapped where a closed region was.
 * Receivers stall now and then (a sleep without a poll: full rings, the
 * senders' waits, wake-ups), and for a stretch at the start of each
 * quarter of the run, so that rings fill up, drain and start laps again.
 * Nothing spins: an idle process sleeps in the transport's wait().
 * Bounded: every process ends in alarm(TMO_S).  Exit 0: every operation
 * arrived once, in order, with its bytes; 1: something did not; 77: the
 * transport is not usable here.
 */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "rtopo.h"
#include "log.h"
#include "tl.h"
#include "tl_out.h"

#define MAXP     16
#define NSLOT    32
#define SLOT     ((size_t)64 * 1024)
#define INLINE   8192               /* largest write in the ring (shm) */
#define TMO_S    240
#define NHOLD    64

struct shared {
    unsigned char blob[MAXP][RTOPO__TL_ADDR_MAX];
    uint32_t bloblen[MAXP];
    rtopo__rkey_t rkey[MAXP];
    int published;                  /* processes whose address is here */
    int connected;
    int finished;                   /* processes done with everything */
    uint64_t checked[MAXP][MAXP];   /* [src][dst]: operations dst checked */
    int fail;
    long stats[8];
    struct {                        /* a region that comes and goes */
        rtopo__rkey_t rkey;
        uint64_t len;
        int open;                   /* writers may start a write */
        int users;                  /* writers inside a write */
    } churn[MAXP];
    long churn_writes, churn_refused;
};

enum { OP_MSG, OP_WRITE, OP_WRITE_IMM, OP_INJECT_IMM, OP_BIG, OP_BIG_IMM };

struct op {
    int kind;
    size_t len;
    size_t off;                     /* in the slot */
    unsigned seed;
};

struct gen {
    uint64_t s;
    uint64_t k;                     /* operations drawn */
    int after_plain;                /* the last one had no immediate */
};

/* what a receiver holds from one sender */
struct rxs {
    struct gen g;
    int pending;                    /* a write without immediate to check */
    struct op pend;
    uint64_t pend_k;
};

struct hold {
    const unsigned char *data;
    size_t len;
    unsigned seed;
    int peer;
    uint64_t k;
};

static struct shared *S;
static const struct rtopo__tl_ops *ops;
static struct rtopo__tl *tl;
static int me, np, nops = 4000, stall_pm = 20;
static size_t ctrl = 1024;
static uint64_t seed = 1;
static unsigned char *region, *src;
static struct rtopo__tl_mr *rmr;
static struct gen tx[MAXP];
static struct rxs rx[MAXP];
static uint64_t sent[MAXP];         /* operations sent to each peer */
static long outstanding;            /* writes and tracked sends not completed */
static long completed, tracked;
static struct hold held[NHOLD];
static int nheld;
static int failed;
/* this process's region that comes and goes, and the memory mapped
 * where closed ones were (nothing may ever write there) */
#define CH_MAX   ((size_t)96 * 1024)
#define NCANARY  16
static unsigned char *ch_buf, ch_src[CH_MAX];
static size_t ch_len;
static struct rtopo__tl_mr *ch_mr;
static unsigned char *canary[NCANARY];
static size_t canary_len[NCANARY];
static int ncanary;

static void fail(const char *fmt, ...)
{
    char msg[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    __atomic_add_fetch(&S->fail, 1, __ATOMIC_SEQ_CST);
    if (failed++ < 20)
        out("FAIL [r%d] %s", me, msg);
}

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s += 0x9e3779b97f4a7c15ull;

    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void gen_init(struct gen *g, int from, int to)
{
    memset(g, 0, sizeof(*g));
    g->s = seed * 1000003u + (uint64_t)from * 131 + (uint64_t)to;
}

/* a length, small ones far more often than large */
static size_t pick_len(uint64_t *s, size_t max)
{
    uint64_t r = rnd(s);

    switch (r % 4) {
    case 0:
        return (size_t)((r >> 8) % 33 < max ? (r >> 8) % 33 : max);
    case 1:
        return (size_t)((r >> 8) % (max < 513 ? max + 1 : 513));
    default:
        return (size_t)((r >> 8) % (max + 1));
    }
}

/* operation g->k; after a write without immediate comes an operation
 * the receiver sees, which checks it (and the last one is one too) */
static void gen_next(struct gen *g, struct op *o)
{
    uint64_t r = rnd(&g->s) % 100;

    memset(o, 0, sizeof(*o));
    o->seed = (unsigned)rnd(&g->s);
    if (g->after_plain || g->k + 1 == (uint64_t)nops)
        r = r % 2 ? 0 : 70;    /* a message or a write with immediate */
    if (r < 45) {
        o->kind = OP_MSG;
        o->len = pick_len(&g->s, ctrl);
    } else if (r < 60) {
        o->kind = OP_WRITE;
        o->len = 1 + pick_len(&g->s, INLINE - 1);
    } else if (r < 75) {
        o->kind = OP_WRITE_IMM;
        o->len = 1 + pick_len(&g->s, INLINE - 1);
    } else if (r < 82) {
        o->kind = OP_INJECT_IMM;
        o->len = 1 + pick_len(&g->s, INLINE - 1);
    } else if (r < 94) {
        o->kind = OP_BIG_IMM;
        o->len = INLINE + 1 + (size_t)(rnd(&g->s) % (SLOT - INLINE));
    } else {
        o->kind = OP_BIG;
        o->len = INLINE + 1 + (size_t)(rnd(&g->s) % (SLOT - INLINE));
    }
    if (o->kind != OP_MSG) {
        o->off = (size_t)(rnd(&g->s) % (SLOT - o->len + 1));
        if (rnd(&g->s) % 2)
            o->off &= ~(size_t)63;
    }
    g->after_plain = o->kind == OP_WRITE || o->kind == OP_BIG;
    g->k++;
}

static unsigned char pat(unsigned seed, size_t i)
{
    uint32_t x = seed ^ (uint32_t)(i >> 6) * 0x9e3779b9u;

    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    return (unsigned char)(x >> 24) ^ (unsigned char)i;
}

static void fill(unsigned char *b, size_t len, unsigned seed)
{
    size_t i;

    for (i = 0; i < len; i++)
        b[i] = pat(seed, i);
}

static long mismatch(const unsigned char *b, size_t len, unsigned seed)
{
    size_t i;

    for (i = 0; i < len; i++)
        if (b[i] != pat(seed, i))
            return (long)i;
    return -1;
}

static unsigned char *slot_of(int from, uint64_t k)
{
    return region + ((size_t)from * NSLOT + (size_t)(k % NSLOT)) * SLOT;
}

static const char *kind_name(int kind)
{
    static const char *n[] = { "message", "write", "write+imm", "inject+imm", "large write",
                               "large write+imm" };

    return n[kind];
}

/* the next operation from peer that raises an event: the writes without
 * one before it are checked then */
static int rx_expect(int peer, struct op *o, uint64_t *k)
{
    struct rxs *x = &rx[peer];
    long bad;

    for (;;) {
        if (x->g.k >= (uint64_t)nops) {
            fail("event from rank %d after its %d operations", peer, nops);
            return -1;
        }
        *k = x->g.k;
        gen_next(&x->g, o);
        if (o->kind != OP_WRITE && o->kind != OP_BIG)
            break;
        x->pending = 1;
        x->pend = *o;
        x->pend_k = *k;
    }
    if (x->pending) {
        bad = mismatch(slot_of(peer, x->pend_k) + x->pend.off, x->pend.len, x->pend.seed);
        if (bad >= 0)
            fail("%s %llu from rank %d (%zu bytes at %zu): byte %ld differs when "
                 "operation %llu arrived", kind_name(x->pend.kind),
                 (unsigned long long)x->pend_k, peer, x->pend.len, x->pend.off, bad,
                 (unsigned long long)*k);
        x->pending = 0;
    }
    return 0;
}

static void rx_done(int peer, uint64_t k)
{
    __atomic_store_n(&S->checked[peer][me], k + 1, __ATOMIC_RELEASE);
}

static void on_recv(const rtopo__tl_event_t *e)
{
    struct op o;
    uint64_t k;
    long bad;

    if (e->peer < 0 || e->peer >= np || e->peer == me) {
        fail("message from unknown rank %d", e->peer);
        return;
    }
    if (rx_expect(e->peer, &o, &k))
        return;
    if (o.kind != OP_MSG) {
        fail("message of %zu bytes from rank %d where operation %llu is a %s", e->len,
             e->peer, (unsigned long long)k, kind_name(o.kind));
    } else if (e->len != o.len) {
        fail("message %llu from rank %d has %zu bytes, not %zu", (unsigned long long)k,
             e->peer, e->len, o.len);
    } else if ((bad = mismatch(e->data, o.len, o.seed)) >= 0) {
        fail("message %llu from rank %d (%zu bytes): byte %ld differs",
             (unsigned long long)k, e->peer, o.len, bad);
    } else if (nheld < NHOLD) {
        held[nheld].data = e->data;
        held[nheld].len = o.len;
        held[nheld].seed = o.seed;
        held[nheld].peer = e->peer;
        held[nheld].k = k;
        nheld++;
    }
    rx_done(e->peer, k);
}

static void on_imm(const rtopo__tl_event_t *e)
{
    struct op o;
    uint64_t k;
    long bad;

    if (e->peer < 0 || e->peer >= np || e->peer == me) {
        fail("immediate from unknown rank %d", e->peer);
        return;
    }
    if (rx_expect(e->peer, &o, &k))
        return;
    if (o.kind == OP_MSG) {
        fail("immediate 0x%x from rank %d where operation %llu is a message of %zu bytes",
             e->imm, e->peer, (unsigned long long)k, o.len);
    } else if (e->imm != (uint32_t)(k * 2654435761u)) {
        fail("immediate 0x%x from rank %d for operation %llu, not 0x%x", e->imm, e->peer,
             (unsigned long long)k, (uint32_t)(k * 2654435761u));
    } else if (e->len && e->len != o.len) {
        fail("immediate of %llu from rank %d says %zu bytes, not %zu",
             (unsigned long long)k, e->peer, e->len, o.len);
    } else if ((bad = mismatch(slot_of(e->peer, k) + o.off, o.len, o.seed)) >= 0) {
        fail("%s %llu from rank %d (%zu bytes at %zu): byte %ld differs", kind_name(o.kind),
             (unsigned long long)k, e->peer, o.len, o.off, bad);
    }
    rx_done(e->peer, k);
}

/* the messages of the last poll, still valid until the next one */
static void check_held(void)
{
    int i;
    long bad;

    for (i = 0; i < nheld; i++)
        if ((bad = mismatch(held[i].data, held[i].len, held[i].seed)) >= 0)
            fail("message %llu from rank %d (%zu bytes) changed before the next poll "
                 "(byte %ld)", (unsigned long long)held[i].k, held[i].peer, held[i].len,
                 bad);
    nheld = 0;
}

static int progress(void)
{
    rtopo__tl_event_t ev[16];
    int n, i;

    check_held();
    n = ops->poll(tl, ev, 16);
    if (n < 0) {
        fail("poll: %s (%s)", rtopo_err_name(n), rtopo_last_error());
        return 0;
    }
    for (i = 0; i < n; i++) {
        switch (ev[i].type) {
        case RTOPO__TL_EV_RECV:
            on_recv(&ev[i]);
            break;
        case RTOPO__TL_EV_IMM:
            on_imm(&ev[i]);
            break;
        case RTOPO__TL_EV_WRITE_DONE:
        case RTOPO__TL_EV_SEND_DONE:
            if (!ev[i].ctx)
                fail("completion without its context");
            outstanding--;
            completed++;
            break;
        default:
            fail("event %d from rank %d: %s", ev[i].type, ev[i].peer, ev[i].msg);
            break;
        }
    }
    return n;
}

static const rtopo__rkey_t *peer_rkey(int peer)
{
    return &S->rkey[peer];
}

/* one operation to peer; 1 sent, 0 not now (ring full, or its slot not
 * checked yet) */
static int send_one(int peer)
{
    struct gen save = tx[peer];
    struct op o;
    uint64_t k = tx[peer].k;
    unsigned char *buf;
    uint64_t roff;
    int st = RTOPO_OK, track;

    if (k >= (uint64_t)nops)
        return 0;
    gen_next(&tx[peer], &o);
    /* slot k was last used by operation k - NSLOT */
    if (o.kind != OP_MSG && k >= NSLOT &&
        __atomic_load_n(&S->checked[me][peer], __ATOMIC_ACQUIRE) < k - NSLOT + 1) {
        tx[peer] = save;
        return 0;
    }
    buf = src + (size_t)peer * SLOT;
    fill(buf, o.len, o.seed);
    roff = ((uint64_t)me * NSLOT + k % NSLOT) * SLOT + o.off;
    track = o.seed % 3 == 0;
    switch (o.kind) {
    case OP_MSG:
        /* every other one in two pieces, split anywhere, where the table
         * has sendv */
        if (o.seed % 2 && RTOPO__TL_HAS(ops, sendv)) {
            size_t h = (size_t)(o.seed >> 8) % (o.len + 1);

            st = ops->sendv(tl, peer, buf, h, buf + h, o.len - h,
                            track ? (void *)(uintptr_t)(k + 1) : NULL);
        } else {
            st = ops->send(tl, peer, buf, o.len, track ? (void *)(uintptr_t)(k + 1) : NULL);
        }
        break;
    case OP_WRITE:
    case OP_BIG:
        track = 1;
        st = ops->write(tl, peer, buf, o.len, NULL, peer_rkey(peer), roff, 0, 0,
                        (void *)(uintptr_t)(k + 1));
        break;
    case OP_WRITE_IMM:
    case OP_BIG_IMM:
        track = 1;
        st = ops->write(tl, peer, buf, o.len, NULL, peer_rkey(peer), roff,
                        (uint32_t)(k * 2654435761u), RTOPO__TL_IMM,
                        (void *)(uintptr_t)(k + 1));
        break;
    case OP_INJECT_IMM:
        track = 0;
        st = ops->write(tl, peer, buf, o.len, NULL, peer_rkey(peer), roff,
                        (uint32_t)(k * 2654435761u), RTOPO__TL_IMM | RTOPO__TL_INJECT, NULL);
        /* an injected source is ours again at once */
        if (st == RTOPO_OK)
            memset(buf, 0x5a, o.len);
        break;
    }
    if (st == RTOPO_ERR_BUSY) {
        __atomic_add_fetch(&S->stats[7], 1, __ATOMIC_RELAXED);
        tx[peer] = save;
        return 0;
    }
    if (st) {
        fail("%s %llu to rank %d: %s (%s)", kind_name(o.kind), (unsigned long long)k, peer,
             rtopo_err_name(st), rtopo_last_error());
        return 0;
    }
    if (track) {
        outstanding++;
        tracked++;
    }
    sent[peer]++;
    __atomic_add_fetch(&S->stats[o.kind], 1, __ATOMIC_RELAXED);
    return 1;
}

static int all_received(void)
{
    int p;

    for (p = 0; p < np; p++)
        if (p != me && __atomic_load_n(&S->checked[p][me], __ATOMIC_RELAXED) <
                       (uint64_t)nops)
            return 0;
    return 1;
}

static int all_sent(void)
{
    int p;

    for (p = 0; p < np; p++)
        if (p != me && sent[p] < (uint64_t)nops)
            return 0;
    return 1;
}

static void msleep(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

    nanosleep(&ts, NULL);
}

static void wait_count(int *c, int n)
{
    while (__atomic_load_n(c, __ATOMIC_ACQUIRE) < n) {
        if (tl) {
            progress();
            ops->wait(tl, 1);
        } else {
            msleep(1000);
        }
    }
}

static void check_canaries(const char *when)
{
    int i;
    size_t j;

    for (i = 0; i < ncanary; i++)
        for (j = 0; j < canary_len[i]; j++)
            if (canary[i][j]) {
                fail("%s: byte %zu of memory mapped where a closed region was is 0x%02x: "
                     "a write landed after its region closed", when, j, canary[i][j]);
                canary[i][j] = 0;
                break;
            }
}

/* opens a region to peers' writes, or closes the open one: deregisters
 * it once no peer is inside a write to it, unmaps it and maps fresh
 * memory at the same address, which must stay untouched */
static void churn_step(uint64_t *rs)
{
    int st;

    if (!ch_buf) {
        ch_len = 4096 + (size_t)(rnd(rs) % (CH_MAX - 4096));
        ch_buf = mmap(NULL, ch_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
        if (ch_buf == MAP_FAILED) {
            ch_buf = NULL;
            return;
        }
        if ((st = ops->mem_reg(tl, ch_buf, ch_len, RTOPO__TL_ACCESS_LOCAL |
                               RTOPO__TL_ACCESS_REMOTE_WRITE, &ch_mr))) {
            fail("mem_reg of a region of %zu bytes: %s", ch_len, rtopo_last_error());
            munmap(ch_buf, ch_len);
            ch_buf = NULL;
            return;
        }
        ops->mem_rkey(ch_mr, &S->churn[me].rkey);
        S->churn[me].len = ch_len;
        __atomic_store_n(&S->churn[me].open, 1, __ATOMIC_SEQ_CST);
        return;
    }
    __atomic_store_n(&S->churn[me].open, 0, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&S->churn[me].users, __ATOMIC_SEQ_CST))
        progress();
    ops->mem_dereg(ch_mr);
    /* writes that travel in the ring land at a poll: after this one,
     * under a key that is closed */
    progress();
    munmap(ch_buf, ch_len);
    if (ncanary < NCANARY) {
        void *c = mmap(ch_buf, ch_len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

        if (c == (void *)ch_buf) {
            canary[ncanary] = c;
            canary_len[ncanary++] = ch_len;
        } else if (c != MAP_FAILED) {
            munmap(c, ch_len);
        }
    }
    ch_buf = NULL;
    check_canaries("a region closed");
}

/* a write to peer's region that comes and goes, while it is open; no
 * immediate and no completion (the stream of checked operations is
 * another matter); refused when it closed in between */
static void churn_write(int peer, uint64_t *rs)
{
    rtopo__rkey_t rk;
    size_t len, off, n;
    int st;

    __atomic_add_fetch(&S->churn[peer].users, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&S->churn[peer].open, __ATOMIC_SEQ_CST)) {
        rk = S->churn[peer].rkey;
        n = (size_t)S->churn[peer].len;
        len = 1 + (size_t)(rnd(rs) % (rnd(rs) % 2 && n > INLINE ? INLINE : n));
        off = (size_t)(rnd(rs) % (n - len + 1));
        st = ops->write(tl, peer, ch_src, len, NULL, &rk, off, 0, RTOPO__TL_INJECT, NULL);
        if (st == RTOPO_OK)
            __atomic_add_fetch(&S->churn_writes, 1, __ATOMIC_RELAXED);
        else if (st == RTOPO_ERR_INVAL)
            __atomic_add_fetch(&S->churn_refused, 1, __ATOMIC_RELAXED);
        else if (st != RTOPO_ERR_BUSY)
            fail("write to the region of rank %d that comes and goes: %s (%s)", peer,
                 rtopo_err_name(st), rtopo_last_error());
    }
    __atomic_sub_fetch(&S->churn[peer].users, 1, __ATOMIC_SEQ_CST);
}

static int rank_main(const char *transport, size_t ring)
{
    rtopo__tl_params_t params;
    size_t len = RTOPO__TL_ADDR_MAX, rlen = (size_t)np * NSLOT * SLOT;
    uint64_t rs = seed * 7919 + (uint64_t)me, iter = 0;
    int p, st, progressed;

    memset(&params, 0, sizeof(params));
    params.name = transport;
    params.rank = me;
    params.nranks = np;
    params.timeout_ms = 10000;
    params.ctrl_size = ctrl;
    params.shm_ring_size = ring;
    ops = rtopo__tl_find(transport);
    if ((st = ops->open(&params, &tl))) {
        fail("open: %s (%s)", rtopo_err_name(st), rtopo_last_error());
        return 1;
    }
    region = mmap(NULL, rlen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    src = malloc((size_t)np * SLOT);
    if (region == MAP_FAILED || !src) {
        fail("out of memory");
        return 1;
    }
    if ((st = ops->mem_reg(tl, region, rlen, RTOPO__TL_ACCESS_LOCAL |
                           RTOPO__TL_ACCESS_REMOTE_WRITE, &rmr))) {
        fail("mem_reg: %s (%s)", rtopo_err_name(st), rtopo_last_error());
        return 1;
    }
    ops->mem_rkey(rmr, &S->rkey[me]);
    if ((st = ops->addr_get(tl, S->blob[me], &len))) {
        fail("addr_get: %s", rtopo_last_error());
        return 1;
    }
    S->bloblen[me] = (uint32_t)len;
    __atomic_add_fetch(&S->published, 1, __ATOMIC_SEQ_CST);
    wait_count(&S->published, np);
    for (p = 0; p < np; p++) {
        gen_init(&tx[p], me, p);
        gen_init(&rx[p].g, p, me);
        if (p != me && (st = ops->connect(tl, p, S->blob[p], S->bloblen[p]))) {
            fail("connect %d: %s (%s)", p, rtopo_err_name(st), rtopo_last_error());
            return 1;
        }
    }
    __atomic_add_fetch(&S->connected, 1, __ATOMIC_SEQ_CST);
    wait_count(&S->connected, np);

    while (!(all_sent() && all_received() && outstanding == 0)) {
        if (S->fail > 0 && failed)
            break;
        iter++;
        /* a receiver that looks away: senders find its ring full */
        if (rnd(&rs) % 1000 < (uint64_t)stall_pm)
            msleep((long)(rnd(&rs) % 3000));
        if (iter % 2000 == 0)
            msleep(20000);
        if (iter % 97 == 0)
            churn_step(&rs);
        progressed = progress();
        for (p = 0; p < np; p++)
            if (p != me && rnd(&rs) % 8 == 0)
                churn_write(p, &rs);
        /* a burst to each peer, in turn */
        for (p = 0; p < np; p++) {
            int b = (int)(rnd(&rs) % 24);

            if (p == me)
                continue;
            while (b-- > 0 && send_one(p))
                progressed++;
        }
        if (!progressed)
            ops->wait(tl, 2);
    }
    check_held();
    if (ch_buf)
        churn_step(&rs);
    __atomic_add_fetch(&S->finished, 1, __ATOMIC_SEQ_CST);
    /* peers may still wait for this rank's polls (their rings to us are
     * empty, but a wake-up of theirs may be due) */
    while (__atomic_load_n(&S->finished, __ATOMIC_ACQUIRE) < np && !(S->fail > 0)) {
        progress();
        ops->wait(tl, 2);
    }
    check_canaries("the end");
    if (tracked != completed)
        fail("%ld tracked operations, %ld completions", tracked, completed);
    for (p = 0; p < np; p++)
        if (p != me && rx[p].pending)
            fail("a write from rank %d never checked", p);
    ops->mem_dereg(rmr);
    ops->close(tl);
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *transport;
    size_t ring = 0;
    pid_t pid[MAXP];
    int i, bad = 0, st;

    if (argc < 2) {
        fprintf(stderr, "usage: %s TRANSPORT [--procs N] [--ops N] [--seed S] [--ctrl B] "
                "[--ring B] [--stall PERMILLE]\n", argv[0]);
        return 99;
    }
    transport = argv[1];
    np = 3;
    for (i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--procs"))
            np = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ops"))
            nops = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--ctrl"))
            ctrl = strtoul(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--ring"))
            ring = strtoul(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--stall"))
            stall_pm = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "%s: unknown option %s\n", argv[0], argv[i]);
            return 99;
        }
    }
    memset(ch_src, 0xc5, sizeof(ch_src));
    if (i != argc || np < 2 || np > MAXP || nops < 1 || ctrl < 16) {
        fprintf(stderr, "%s: bad arguments\n", argv[0]);
        return 99;
    }
    rtopo__log_set_level(getenv("RTOPO_LOG_LEVEL"));
    ops = rtopo__tl_find(transport);
    if (!ops || !ops->available || !ops->available(transport)) {
        out("SKIP %s: %s", transport, ops ? "not available here" : "not built");
        return 77;
    }
    S = mmap(NULL, sizeof(*S), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (S == MAP_FAILED) {
        perror("mmap");
        return 99;
    }
    out("tl_stress %s: %d processes, %d operations each way, seed %llu, control "
        "messages up to %zu bytes", transport, np, nops, (unsigned long long)seed, ctrl);
    for (i = 0; i < np; i++) {
        pid[i] = fork();
        if (pid[i] < 0) {
            perror("fork");
            return 99;
        }
        if (pid[i] == 0) {
            me = i;
            rtopo__log_rank = i;
            alarm(TMO_S);
            _exit(rank_main(transport, ring));
        }
    }
    for (i = 0; i < np; i++) {
        if (waitpid(pid[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
            out("FAIL rank %d (pid %d) %s %d", i, (int)pid[i],
                WIFSIGNALED(st) ? "killed by signal" : "exited with",
                WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            bad = 1;
        }
    }
    out("writes to regions that come and go: %ld, refused as closed: %ld", S->churn_writes,
        S->churn_refused);
    out("messages %ld, writes %ld, writes+imm %ld, injects+imm %ld, large writes %ld, "
        "large writes+imm %ld; ring full %ld times", S->stats[OP_MSG], S->stats[OP_WRITE],
        S->stats[OP_WRITE_IMM], S->stats[OP_INJECT_IMM], S->stats[OP_BIG],
        S->stats[OP_BIG_IMM], S->stats[7]);
    if (bad || S->fail) {
        out("FAIL: %d check(s) failed", S->fail);
        return 1;
    }
    out("PASS: every operation arrived once, in order, with its bytes");
    return 0;
}
