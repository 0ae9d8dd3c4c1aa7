/*
 * sched_check - runs schedules through the network executor and through
 * the simulator's in-memory executor, and compares the final receive
 * buffers byte for byte.
 *
 *   rtopo-run -n P sched_check [--sizes LIST] [--mem reg,unreg]
 *                              [--rounds N] [--only SUBSTRING] [--list]
 *
 * For every schedule S and block size L: every rank fills its SEND and
 * RECV (and, in the simulation, every rank's SEND, RECV and TMP) with a
 * pattern of (rank, buffer, byte, schedule, round).  The network runs S
 * as a persistent request (rtopo__req_sched) over the job; the simulator
 * (rtopo__sim_exec_sized) runs the same S over all P ranks' buffers in
 * memory on every rank.  This rank's network RECV must equal its
 * simulated RECV.  The library's TMP starts with whatever it holds, so
 * no schedule here reads TMP before writing it.  Rank 0 also checks the
 * simulator against a lock-step reference (every rank's RECV and TMP):
 * the schedule run sequentially in the order its edges are inferred
 * from.  Every schedule runs with registered and unregistered buffers,
 * ROUNDS times (default 2) with different patterns, for every size
 * (default 1, 4000, 100000, 1048579: eager, and rendezvous in one or
 * many pieces).
 *
 * Schedules (steps written by hand or by the shift generator, edges
 * inferred by rtopo__sched_deps_infer, rtopo__sched_validate passes):
 *  shift   every shift algorithm that applies to the ring, to a mesh
 *          (P = r*c, r, c >= 2) and to a hypercube (P a power of two),
 *          q in {0, 1, -1, P/2, 3, P+2} (once per q mod P)
 *  raw     SEND of i -> TMP of i+1 (step 0), TMP -> RECV of i+2 (step 1)
 *  war     RECV[0,L) of i -> TMP of i+1 (step 0); SEND of i -> RECV[0,L)
 *          of i+1 (step 1: overwrites what i+1 sent in step 0); TMP ->
 *          RECV[L,2L) of i+1 (step 2)
 *  waw     rank 0 sends three blocks, one per step, to rank 1's RECV[0,L)
 *          over one DIRECT link (PORT edges): the last must win
 *  kernels SEND of i -> TMP of i+1; there SORT, CMPX, FILL, SELECT,
 *          COMBINE in step 0; the result -> RECV of i+2 in step 1, then
 *          a FILL over part of what landed
 *  concat  shift q=1 (SEND -> RECV[0,L)), then a second phase RECV[0,L)
 *          of i -> RECV[L,2L) of i+1 (rtopo__sched_concat)
 *  host    hypercube of P-1 nodes plus a host endpoint (rank P-1): the
 *          host sends block k of its SEND to node k over HOST links, one
 *          after another; then a second phase, a hypercube shift q=1 of
 *          RECV[0,L) to RECV[L,2L) among the nodes (P-1 a power of 2, P >= 3)
 * The job's topology object is the ring; each schedule's own descriptor
 * decides its routes.  Rank 0 prints one line per schedule.  Exit 0 when
 * every byte matched, 1 otherwise.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rtopo_int.h"

static int rank, nranks;

static void die(const char *what, int st)
{
    fprintf(stderr, "rank %d: %s: %s (%s)\n", rank, what, rtopo_strerror(st),
            rtopo_last_error());
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    if (!p) {
        fprintf(stderr, "rank %d: out of memory (%zu bytes)\n", rank, n);
        exit(1);
    }
    return p;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- patterns ---------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* n bytes of the pattern of (rank r, buffer b, schedule sid, round) */
static void fill(uint8_t *d, size_t n, int r, int b, int sid, int round)
{
    uint64_t seed = mix(((uint64_t)(unsigned)r << 40) ^ ((uint64_t)b << 32) ^
                        ((uint64_t)(unsigned)sid << 8) ^ (uint64_t)(unsigned)round);
    size_t i;

    for (i = 0; i + 8 <= n; i += 8) {
        uint64_t v = mix(seed + i);
        memcpy(d + i, &v, 8);
    }
    if (i < n) {
        uint64_t v = mix(seed + i);
        memcpy(d + i, &v, n - i);
    }
}

/* ---- building schedules ------------------------------------------------ */

/* Transfers and kernels collected before the schedule is allocated */
typedef struct bld {
    rtopo__tdesc_t t;
    int algo;
    uint32_t nx, nh, nk;
    rtopo__xfer_t x[256];
    rtopo__hop_t h[256];
    rtopo__kern_t k[256];
    uint64_t tmp;
} bld_t;

static bld_t B;

static void b_init(const rtopo__tdesc_t *t)
{
    memset(&B, 0, sizeof(B));
    B.t = *t;
    B.algo = RTOPO_SHIFT_RING;
}

/* One transfer of len bytes in one hop (link class, cube dimension, ring
 * direction), or a copy at `step` when src == dst (one rank). */
static void b_xfer(int src, int sb, uint64_t so, int dst, int db, uint64_t dof,
                   uint64_t len, uint32_t step, int link, int dim, int dir)
{
    rtopo__xfer_t *x;

    if (B.nx >= 256 || B.nh >= 256) {
        fprintf(stderr, "sched_check: schedule too large\n");
        exit(2);
    }
    x = &B.x[B.nx++];
    memset(x, 0, sizeof(*x));
    x->src = src;
    x->dst = dst;
    x->src_buf = (uint8_t)sb;
    x->dst_buf = (uint8_t)db;
    x->src_off = so;
    x->dst_off = dof;
    x->len = len;
    if (src == dst) {
        x->step = step;
        return;
    }
    x->nhops = 1;
    x->hop0 = B.nh;
    B.h[B.nh].to = dst;
    B.h[B.nh].step = step;
    B.h[B.nh].link = (uint8_t)link;
    B.h[B.nh].dim = (uint8_t)dim;
    B.h[B.nh].dir = (int8_t)dir;
    B.nh++;
}

static rtopo__kern_t *b_kern(int r, int type, uint32_t step)
{
    rtopo__kern_t *k;

    if (B.nk >= 256) {
        fprintf(stderr, "sched_check: too many kernels\n");
        exit(2);
    }
    k = &B.k[B.nk++];
    memset(k, 0, sizeof(*k));
    k->rank = r;
    k->type = (uint8_t)type;
    k->step = step;
    k->dtype = RTOPO_INT32;
    return k;
}

/* the collected nodes as a schedule, edges inferred */
static int b_finish(unsigned flags, rtopo__sched_t **s_p)
{
    rtopo__sched_t *s;
    uint32_t i, nsteps = 0, k0;
    int st;

    if ((st = rtopo__sched_alloc(&B.t, B.nx, B.nh, &s)))
        return st;
    s->algo = B.algo;
    for (i = 0; i < B.nx && !st; i++)
        st = rtopo__sched_xset(s, i, &B.x[i]);
    memcpy(s->hops, B.h, B.nh * sizeof(*B.h));
    for (i = 0; i < B.nh; i++)
        if (B.h[i].step + 1 > nsteps)
            nsteps = B.h[i].step + 1;
    s->nsteps = nsteps;
    s->tmp_bytes = B.tmp;
    if (!st && B.nk && (st = rtopo__sched_add_kerns(s, B.nk, &k0)) == RTOPO_OK)
        for (i = 0; i < B.nk && !st; i++)
            st = rtopo__sched_kset(s, k0 + i, &B.k[i]);
    if (st || (st = rtopo__sched_deps_infer(s, flags))) {
        rtopo__sched_free(s);
        return st;
    }
    *s_p = s;
    return RTOPO_OK;
}

enum { K_SHIFT, K_RAW, K_WAR, K_WAW, K_KERN, K_CONCAT, K_HOST };

typedef struct kase {
    char name[64];
    int kind;
    rtopo__tdesc_t t;   /* K_SHIFT */
    int algo;
    long q;
} kase_t;

static uint32_t ctz(uint32_t v)
{
    uint32_t n = 0;

    while (v && !(v & 1)) {
        v >>= 1;
        n++;
    }
    return n;
}

/* Build schedule c for block size L over P = nranks.  sz: bytes of
 * every rank's SEND, RECV and TMP (the largest rank's TMP).  Returns
 * RTOPO_OK, 1 with *why set when the size does not apply, or an error. */
static int build(const kase_t *c, uint64_t L, rtopo__sched_t **s_p, uint64_t sz[3],
                 const char **why)
{
    int p = nranks, i, st;
    rtopo__tdesc_t ring;
    rtopo__sched_t *a = NULL, *b = NULL;

    *s_p = NULL;
    if ((st = rtopo__tdesc_init(&ring, RTOPO__TOPO_RING, p, 0, 0)))
        return st;
    sz[0] = L;
    sz[1] = L;
    sz[2] = 0;
    switch (c->kind) {
    case K_SHIFT:
        st = rtopo__sched_shift(&c->t, c->algo, c->q, (size_t)L, NULL, s_p);
        break;
    case K_RAW:
        b_init(&ring);
        B.tmp = sz[2] = L;
        for (i = 0; i < p; i++) {
            b_xfer(i, RTOPO__BUF_SEND, 0, (i + 1) % p, RTOPO__BUF_TMP, 0, L, 0,
                   RTOPO__LINK_RING, 0, 1);
            b_xfer(i, RTOPO__BUF_TMP, 0, (i + 1) % p, RTOPO__BUF_RECV, 0, L, 1,
                   RTOPO__LINK_RING, 0, 1);
        }
        st = b_finish(0, s_p);
        break;
    case K_WAR:
        b_init(&ring);
        B.tmp = sz[2] = L;
        sz[1] = 2 * L;
        for (i = 0; i < p; i++) {
            b_xfer(i, RTOPO__BUF_RECV, 0, (i + 1) % p, RTOPO__BUF_TMP, 0, L, 0,
                   RTOPO__LINK_RING, 0, 1);
            b_xfer(i, RTOPO__BUF_SEND, 0, (i + 1) % p, RTOPO__BUF_RECV, 0, L, 1,
                   RTOPO__LINK_RING, 0, 1);
            b_xfer(i, RTOPO__BUF_TMP, 0, (i + 1) % p, RTOPO__BUF_RECV, L, L, 2,
                   RTOPO__LINK_RING, 0, 1);
        }
        st = b_finish(0, s_p);
        break;
    case K_WAW:
        if (p < 2) {
            *why = "needs 2 ranks";
            return 1;
        }
        b_init(&ring);
        B.algo = RTOPO_SHIFT_DIRECT;
        sz[0] = 3 * L;
        for (i = 0; i < 3; i++)
            b_xfer(0, RTOPO__BUF_SEND, (uint64_t)i * L, 1, RTOPO__BUF_RECV, 0, L,
                   (uint32_t)i, RTOPO__LINK_DIRECT, 0, 0);
        st = b_finish(RTOPO__DEPS_PORT, s_p);
        break;
    case K_KERN: {
        uint64_t L8 = L & ~(uint64_t)7, h = (L8 / 16) * 8, f0 = (L8 / 4) & ~(uint64_t)7,
                 fl = (L8 / 8) & ~(uint64_t)7;
        rtopo__kern_t *k;

        if (L8 < 16) {
            *why = "needs 16 bytes";
            return 1;
        }
        if (fl < 8)
            fl = 8;
        b_init(&ring);
        B.tmp = sz[2] = 2 * L8;
        for (i = 0; i < p; i++) {
            b_xfer(i, RTOPO__BUF_SEND, 0, (i + 1) % p, RTOPO__BUF_TMP, 0, L8, 0,
                   RTOPO__LINK_RING, 0, 1);
            b_xfer(i, RTOPO__BUF_TMP, L8, (i + 1) % p, RTOPO__BUF_RECV, 0, L8, 1,
                   RTOPO__LINK_RING, 0, 1);
        }
        for (i = 0; i < p; i++) {
            /* step 0, in this order: what landed in TMP[0,L8) is sorted by
             * key, its halves compare-exchanged (descending, so that the
             * sorted halves swap), records zeroed, the non-zero keys packed
             * into TMP[L8,2L8), and the own SEND added to them */
            k = b_kern(i, RTOPO__KERN_SORT, 0);
            k->dst_buf = RTOPO__BUF_TMP;
            k->len = L8;
            k->rec = 8;
            k = b_kern(i, RTOPO__KERN_CMPX, 0);
            k->flags = RTOPO__KERN_DESC;
            k->src_buf = k->dst_buf = RTOPO__BUF_TMP;
            k->src_off = 0;
            k->dst_off = h;
            k->len = h;
            k->rec = 8;
            k = b_kern(i, RTOPO__KERN_FILL, 0);
            k->dst_buf = RTOPO__BUF_TMP;
            k->dst_off = f0;
            k->len = fl;
            k->arg = 0;
            k = b_kern(i, RTOPO__KERN_SELECT, 0);
            k->src_buf = RTOPO__BUF_TMP;
            k->dst_buf = RTOPO__BUF_TMP;
            k->src_off = 0;
            k->dst_off = L8;
            k->len = L8;
            k->rec = 8;
            k = b_kern(i, RTOPO__KERN_COMBINE, 0);
            k->op = RTOPO_SUM;
            k->src_buf = RTOPO__BUF_SEND;
            k->dst_buf = RTOPO__BUF_TMP;
            k->src_off = 0;
            k->dst_off = L8;
            k->len = L8;
            /* step 1: after the result landed, part of it overwritten */
            k = b_kern(i, RTOPO__KERN_FILL, 1);
            k->dst_buf = RTOPO__BUF_RECV;
            k->dst_off = L8 - 8;
            k->len = 8;
            k->arg = 0x5eed1234;
        }
        st = b_finish(0, s_p);
        break;
    }
    case K_CONCAT:
        sz[1] = 2 * L;
        if ((st = rtopo__sched_shift(&ring, RTOPO_SHIFT_RING, 1, (size_t)L, NULL, &a)))
            break;
        b_init(&ring);
        for (i = 0; i < p; i++)
            b_xfer(i, RTOPO__BUF_RECV, 0, (i + 1) % p, RTOPO__BUF_RECV, L, L, 0,
                   RTOPO__LINK_RING, 0, 1);
        if ((st = b_finish(0, &b))) {
            rtopo__sched_free(a);
            break;
        }
        st = rtopo__sched_concat(a, b, 0, s_p);
        break;
    case K_HOST: {
        rtopo__tdesc_t t;
        int n = p - 1, d = (int)ctz((uint32_t)n);

        if (p < 3 || (n & (n - 1))) {
            *why = "needs P-1 a power of two, P >= 3";
            return 1;
        }
        if ((st = rtopo__tdesc_init(&t, RTOPO__TOPO_HYPERCUBE, n, d, 0)) ||
            (st = rtopo__tdesc_add_host(&t)))
            break;
        sz[0] = (uint64_t)n * L;
        sz[1] = 2 * L;
        b_init(&t);
        B.algo = RTOPO_SHIFT_HYPERCUBE;
        for (i = 0; i < n; i++)
            b_xfer(n, RTOPO__BUF_SEND, (uint64_t)i * L, i, RTOPO__BUF_RECV, 0, L,
                   (uint32_t)i, RTOPO__LINK_HOST, 0, 0);
        if ((st = b_finish(RTOPO__DEPS_PORT, &a)))
            break;
        b_init(&t);
        B.algo = RTOPO_SHIFT_HYPERCUBE;
        for (i = 0; i < n; i++) {
            int to = (i + 1) % n;
            uint32_t bit = rtopo__gray((uint32_t)i) ^ rtopo__gray((uint32_t)to);

            b_xfer(i, RTOPO__BUF_RECV, 0, to, RTOPO__BUF_RECV, L, L, 0,
                   RTOPO__LINK_CUBE, (int)ctz(bit), 0);
        }
        if ((st = b_finish(0, &b))) {
            rtopo__sched_free(a);
            break;
        }
        st = rtopo__sched_concat(a, b, RTOPO__DEPS_PORT, s_p);
        break;
    }
    default:
        return RTOPO_ERR_INVAL;
    }
    if (st)
        return st;
    if ((*s_p)->tmp_bytes > sz[2])
        sz[2] = (*s_p)->tmp_bytes;
    if ((st = rtopo__sched_validate(*s_p))) {
        rtopo__sched_free(*s_p);
        *s_p = NULL;
    }
    return st;
}

/* ---- the list of schedules --------------------------------------------- */

static kase_t *cases;
static int ncases, capcases;

static kase_t *add_case(int kind, const char *name)
{
    kase_t *c;

    if (ncases == capcases) {
        capcases = capcases ? 2 * capcases : 64;
        cases = realloc(cases, (size_t)capcases * sizeof(*cases));
        if (!cases)
            die("cases", RTOPO_ERR_NOMEM);
    }
    c = &cases[ncases++];
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    snprintf(c->name, sizeof(c->name), "%s", name);
    return c;
}

static void add_shifts(const rtopo__tdesc_t *t, const char *tname)
{
    static const int algos[] = { RTOPO_SHIFT_RING, RTOPO_SHIFT_MESH, RTOPO_SHIFT_HYPERCUBE,
                                 RTOPO_SHIFT_ECUBE, RTOPO_SHIFT_DIRECT };
    int p = t->p, a, j, k;
    long qs[6];

    qs[0] = 0;
    qs[1] = 1;
    qs[2] = -1;
    qs[3] = p / 2;
    qs[4] = 3 % p;
    qs[5] = p + 2;
    for (a = 0; a < 5; a++) {
        rtopo__sched_t *s;
        int st = rtopo__sched_shift(t, algos[a], 1, 1, NULL, &s);

        if (st == RTOPO_ERR_UNSUPPORTED)
            continue;
        if (st)
            die("shift schedule", st);
        rtopo__sched_free(s);
        for (j = 0; j < 6; j++) {
            long qn = ((qs[j] % p) + p) % p;
            char name[64];
            kase_t *c;

            for (k = 0; k < j; k++)
                if (((qs[k] % p) + p) % p == qn)
                    break;
            if (k < j)
                continue;   /* the same schedule as an earlier q */
            if (qn == qs[j])
                snprintf(name, sizeof(name), "shift %s %s q=%ld", tname,
                         rtopo__shift_algo_name(algos[a]), qs[j]);
            else
                snprintf(name, sizeof(name), "shift %s %s q=%ld (%ld)", tname,
                         rtopo__shift_algo_name(algos[a]), qs[j], qn);
            c = add_case(K_SHIFT, name);
            c->t = *t;
            c->algo = algos[a];
            c->q = qs[j];
        }
    }
}

static void make_cases(void)
{
    rtopo__tdesc_t t;
    int p = nranks, r, d;
    char tname[32];
    int st;

    if ((st = rtopo__tdesc_init(&t, RTOPO__TOPO_RING, p, 0, 0)))
        die("ring descriptor", st);
    add_shifts(&t, "ring");
    /* the mesh closest to square with both sides >= 2 */
    for (r = 2; r * r <= p; r++)
        ;
    for (r--; r >= 2 && p % r; r--)
        ;
    if (r >= 2) {
        if ((st = rtopo__tdesc_init(&t, RTOPO__TOPO_MESH, p, r, p / r)))
            die("mesh descriptor", st);
        snprintf(tname, sizeof(tname), "mesh %dx%d", r, p / r);
        add_shifts(&t, tname);
    }
    if (p >= 2 && !(p & (p - 1))) {
        d = (int)ctz((uint32_t)p);
        if ((st = rtopo__tdesc_init(&t, RTOPO__TOPO_HYPERCUBE, p, d, 0)))
            die("hypercube descriptor", st);
        snprintf(tname, sizeof(tname), "hypercube d=%d", d);
        add_shifts(&t, tname);
    }
    add_case(K_RAW, "raw: SEND > TMP > RECV");
    add_case(K_WAR, "war: RECV read, then overwritten");
    add_case(K_WAW, "waw: 3 sends 0 > 1, last wins");
    add_case(K_KERN, "kernels between two hops");
    add_case(K_CONCAT, "concat: shift, then RECV > RECV");
    add_case(K_HOST, "host: HOST links, then cube shift");
}

/* ---- running one schedule ---------------------------------------------- */

static int nrounds = 2;
static int mem_modes = 3;   /* 1 unregistered, 2 registered */

/* The reference: the schedule run sequentially in the order the edges
 * are inferred from (rtopo_sched.h): step by step, in each step first
 * every transfer whose route starts there reads its source, then every
 * transfer whose route ends there writes its destination, then the local
 * nodes of the step run in node order.  Any execution that respects the
 * edges must end with these bytes. */
static int lockstep(const rtopo__sched_t *s, uint8_t ***bufs)
{
    uint32_t i, t, last = 0, n = s->nxfers;
    uint8_t **pend = calloc((size_t)n + 1, sizeof(*pend));
    int st = RTOPO_OK;

    if (!pend)
        return RTOPO_ERR_NOMEM;
    for (i = 0; i < n; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
        uint32_t e = x->nhops ? s->hops[x->hop0 + x->nhops - 1].step : x->step;
        last = e > last ? e : last;
    }
    for (i = 0; i < s->nkerns; i++)
        last = s->kerns[i].step > last ? s->kerns[i].step : last;
    for (t = 0; t <= last && !st; t++) {
        for (i = 0; i < n; i++) {
            const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;

            if (x->nhops && s->hops[x->hop0].step == t) {
                pend[i] = xmalloc((size_t)x->len);
                memcpy(pend[i], bufs[x->src][x->src_buf] + x->src_off, (size_t)x->len);
            }
        }
        for (i = 0; i < n; i++) {
            const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;

            if (x->nhops && s->hops[x->hop0 + x->nhops - 1].step == t) {
                memcpy(bufs[x->dst][x->dst_buf] + x->dst_off, pend[i], (size_t)x->len);
                free(pend[i]);
                pend[i] = NULL;
            }
        }
        for (i = 0; i < n + s->nkerns && !st; i++) {
            if (i < n) {
                const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;

                if (!x->nhops && x->step == t)
                    memmove(bufs[x->dst][x->dst_buf] + x->dst_off,
                            bufs[x->src][x->src_buf] + x->src_off, (size_t)x->len);
            } else if (s->kerns[i - n].step == t) {
                rtopo__kern_t k = rtopo__sched_kern(s, i - n);

                st = rtopo__kern_run(&k, bufs[k.rank]);
            }
        }
    }
    for (i = 0; i < n; i++)
        free(pend[i]);
    free(pend);
    return st;
}

static uint8_t ***alloc_ranks(const uint64_t sz[3])
{
    int p = nranks, r, b;
    uint8_t ***bufs = xmalloc((size_t)p * sizeof(*bufs));

    for (r = 0; r < p; r++) {
        bufs[r] = xmalloc(RTOPO__BUF_COUNT * sizeof(**bufs));
        for (b = 0; b < RTOPO__BUF_COUNT; b++)
            bufs[r][b] = xmalloc((size_t)sz[b]);
    }
    return bufs;
}

static void fill_ranks(uint8_t ***bufs, const uint64_t sz[3], int sid, int round)
{
    int r, b;

    for (r = 0; r < nranks; r++)
        for (b = 0; b < RTOPO__BUF_COUNT; b++)
            fill(bufs[r][b], (size_t)sz[b], r, b, sid, round);
}

static void free_ranks(uint8_t ***bufs)
{
    int r, b;

    if (!bufs)
        return;
    for (r = 0; r < nranks; r++) {
        for (b = 0; b < RTOPO__BUF_COUNT; b++)
            free(bufs[r][b]);
        free(bufs[r]);
    }
    free(bufs);
}

/* The simulated RECV of this rank, for each round: rounds * sz[1] bytes.
 * Rank 0 also checks every rank's simulated RECV and TMP against the
 * lock-step reference; *bad counts the rounds where they differ. */
static int simulate(const rtopo__sched_t *s, int sid, const uint64_t sz[3], uint8_t *out,
                    const char *what, int *bad)
{
    uint8_t ***bufs = alloc_ranks(sz), ***ref = rank == 0 ? alloc_ranks(sz) : NULL;
    int round, r, b, st = RTOPO_OK;

    for (round = 0; round < nrounds && !st; round++) {
        fill_ranks(bufs, sz, sid, round);
        if ((st = rtopo__sim_exec_sized(s, (uint8_t *const *const *)bufs, sz)))
            break;
        memcpy(out + (size_t)round * sz[1], bufs[rank][RTOPO__BUF_RECV], (size_t)sz[1]);
        if (!ref)
            continue;
        fill_ranks(ref, sz, sid, round);
        if ((st = lockstep(s, ref)))
            break;
        for (r = 0; r < nranks; r++)
            for (b = RTOPO__BUF_RECV; b <= RTOPO__BUF_TMP; b++) {
                size_t i;

                for (i = 0; i < sz[b] && bufs[r][b][i] == ref[r][b][i]; i++)
                    ;
                if (i < sz[b]) {
                    fprintf(stderr, "rank 0: %s, round %d: the simulator's %s of rank %d "
                            "differs from the lock-step reference at byte %zu (0x%02x, "
                            "0x%02x)\n", what, round, b == RTOPO__BUF_RECV ? "RECV" :
                            "TMP", r, i, bufs[r][b][i], ref[r][b][i]);
                    ++*bad;
                    r = nranks;
                    break;
                }
            }
    }
    free_ranks(bufs);
    free_ranks(ref);
    return st;
}

/* Runs case sid for size L; returns the number of (mode, round) runs whose
 * data differed on this rank.  Errors of the network end the program. */
static int run_size(rtopo_ctx_t *ctx, rtopo_topo_t *topo, int sid, uint64_t L,
                    const char **why)
{
    const kase_t *c = &cases[sid];
    rtopo__sched_t *s;
    uint64_t sz[3];
    uint8_t *sim, *sb, *rb, *want;
    int st, reg, round, bad = 0;
    char what[160];

    st = build(c, L, &s, sz, why);
    if (st == 1)
        return 0;
    if (st)
        die(c->name, st);
    sim = xmalloc((size_t)sz[1] * (size_t)nrounds);
    snprintf(what, sizeof(what), "%s, %llu bytes", c->name, (unsigned long long)L);
    if ((st = simulate(s, sid, sz, sim, what, &bad)))
        die(what, st);
    rtopo__sched_free(s);
    sb = xmalloc((size_t)sz[0]);
    rb = xmalloc((size_t)sz[1]);
    want = xmalloc((size_t)sz[0]);
    for (reg = 0; reg < 2; reg++) {
        rtopo_mem_t *ms = NULL, *mr = NULL;
        rtopo__opdesc_t d;
        rtopo_req_t *req;

        if (!(mem_modes & (1 << reg)))
            continue;
        if (reg && ((sz[0] && (st = rtopo_mem_register(ctx, sb, (size_t)sz[0], &ms))) ||
                    (sz[1] && (st = rtopo_mem_register(ctx, rb, (size_t)sz[1], &mr)))))
            die("rtopo_mem_register", st);
        /* the library takes the second copy */
        if ((st = build(c, L, &s, sz, why)))
            die(c->name, st < 0 ? st : RTOPO_ERR_INVAL);
        rtopo__opdesc_sched(&d, topo, 1000 + sid, (size_t)L);
        if ((st = rtopo__req_sched(topo, s, &d, sb, (size_t)sz[0], rb, (size_t)sz[1],
                                   &req))) {
            snprintf(what, sizeof(what), "%s, %llu bytes: rtopo__req_sched", c->name,
                     (unsigned long long)L);
            die(what, st);
        }
        for (round = 0; round < nrounds; round++) {
            const uint8_t *exp = sim + (size_t)round * sz[1];
            size_t i, first = 0, ndiff = 0;

            fill(sb, (size_t)sz[0], rank, RTOPO__BUF_SEND, sid, round);
            fill(rb, (size_t)sz[1], rank, RTOPO__BUF_RECV, sid, round);
            snprintf(what, sizeof(what), "%s, %llu bytes, %s, round %d", c->name,
                     (unsigned long long)L, reg ? "registered" : "unregistered", round);
            if ((st = rtopo_start(req)) || (st = rtopo_wait(req)))
                die(what, st);
            for (i = 0; i < sz[1]; i++)
                if (rb[i] != exp[i] && !ndiff++)
                    first = i;
            if (ndiff) {
                fprintf(stderr, "rank %d: %s: RECV byte %zu of %llu is 0x%02x, the "
                        "simulator has 0x%02x (%zu bytes differ)\n", rank, what, first,
                        (unsigned long long)sz[1], rb[first], exp[first], ndiff);
                bad++;
            }
            fill(want, (size_t)sz[0], rank, RTOPO__BUF_SEND, sid, round);
            if (memcmp(want, sb, (size_t)sz[0])) {
                fprintf(stderr, "rank %d: %s: the SEND buffer changed\n", rank, what);
                bad++;
            }
        }
        if ((st = rtopo_req_free(req)))
            die("rtopo_req_free", st);
        if (ms)
            rtopo_mem_deregister(ms);
        if (mr)
            rtopo_mem_deregister(mr);
    }
    free(want);
    free(sb);
    free(rb);
    free(sim);
    return bad;
}

/* ---- results to rank 0 ------------------------------------------------- */

static rtopo_req_t *gather_req;
static uint32_t gather_in, *gather_out;

/* every rank's 4 bytes to rank 0 over DIRECT links */
static void gather_init(rtopo_topo_t *topo)
{
    rtopo__tdesc_t t;
    rtopo__sched_t *s;
    rtopo__opdesc_t d;
    int i, st;

    gather_out = xmalloc((size_t)nranks * sizeof(*gather_out));
    if ((st = rtopo__tdesc_init(&t, RTOPO__TOPO_RING, nranks, 0, 0)))
        die("ring descriptor", st);
    b_init(&t);
    B.algo = RTOPO_SHIFT_DIRECT;
    for (i = 0; i < nranks; i++)
        b_xfer(i, RTOPO__BUF_SEND, 0, 0, RTOPO__BUF_RECV, 4 * (uint64_t)i, 4, 0,
               RTOPO__LINK_DIRECT, 0, 0);
    if ((st = b_finish(0, &s)))
        die("gather schedule", st);
    rtopo__opdesc_sched(&d, topo, 1, 4);
    if ((st = rtopo__req_sched(topo, s, &d, &gather_in, 4, gather_out, 4 * (size_t)nranks,
                               &gather_req)))
        die("gather request", st);
}

/* the sum over the ranks of v, on rank 0 */
static uint32_t gather_sum(uint32_t v)
{
    uint32_t sum = 0;
    int i, st;

    gather_in = v;
    if ((st = rtopo_start(gather_req)) || (st = rtopo_wait(gather_req)))
        die("gathering the results", st);
    for (i = 0; rank == 0 && i < nranks; i++)
        sum += gather_out[i];
    return sum;
}

/* ---- main -------------------------------------------------------------- */

static int parse_sizes(const char *s, long *out, int max)
{
    int n = 0;
    char *end;

    while (*s && n < max) {
        out[n] = strtol(s, &end, 0);
        if (end == s || out[n] < 0 || (*end && *end != ',')) {
            fprintf(stderr, "sched_check: bad size list '%s'\n", s);
            exit(2);
        }
        n++;
        s = *end ? end + 1 : end;
    }
    return n;
}

/* is `word` one of the comma-separated words of `list`? */
static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    const char *p = list;

    while ((p = strstr(p, word)) != NULL) {
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
        p += n;
    }
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: sched_check [--sizes LIST] [--mem reg,unreg] [--rounds N] "
            "[--only SUBSTRING] [--list]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    long sizes[16] = { 1, 4000, 100000, 1048579 };
    int nsizes = 4, i, j, st, fails = 0, mine = 0, list = 0, ran = 0;
    const char *only = NULL;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *ring;
    double t0 = now();

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            nsizes = parse_sizes(argv[++i], sizes, 16);
        } else if (!strcmp(argv[i], "--mem") && i + 1 < argc) {
            const char *m = argv[++i];
            mem_modes = (has_word(m, "unreg") ? 1 : 0) | (has_word(m, "reg") ? 2 : 0);
            if (!mem_modes)
                usage();
        } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
            nrounds = atoi(argv[++i]);
            if (nrounds < 1)
                usage();
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--list")) {
            list = 1;
        } else {
            usage();
        }
    }
    if ((st = rtopo_init(NULL, &ctx)))
        die("rtopo_init", st);
    rank = rtopo_rank(ctx);
    nranks = rtopo_size(ctx);
    if ((st = rtopo_topo_ring(ctx, &ring)))
        die("rtopo_topo_ring", st);
    make_cases();
    gather_init(ring);
    for (i = 0; i < ncases; i++) {
        const kase_t *c = &cases[i];
        char ran_sizes[128] = "", skipped[128] = "";
        const char *why = NULL;
        uint32_t bad = 0, total;

        if (only && !strstr(c->name, only))
            continue;
        if (list) {
            if (rank == 0)
                printf("%s\n", c->name);
            continue;
        }
        for (j = 0; j < nsizes; j++) {
            const char *w = NULL;
            char *dst;
            size_t n;

            bad += (uint32_t)run_size(ctx, ring, i, (uint64_t)sizes[j], &w);
            dst = w ? skipped : ran_sizes;
            n = strlen(dst);
            snprintf(dst + n, 128 - n, "%s%ld", n ? "," : "", sizes[j]);
            if (w)
                why = w;
        }
        total = gather_sum(bad);
        ran++;
        if (rank == 0) {
            if (!ran_sizes[0])
                printf("%-44s skipped: %s\n", c->name, why);
            else if (skipped[0])
                printf("%-44s sizes %s (%s skipped: %s): %s\n", c->name, ran_sizes,
                       skipped, why, total ? "WRONG" : "OK");
            else
                printf("%-44s sizes %s: %s\n", c->name, ran_sizes, total ? "WRONG" : "OK");
            fflush(stdout);
        }
        mine += bad != 0;
        fails += total != 0;
    }
    if (rank == 0 && !list)
        printf("%d ranks, %d schedules, %s %s, %d rounds: %s (%.1f s)\n", nranks, ran,
               mem_modes == 3 ? "registered and unregistered" :
               mem_modes == 2 ? "registered" : "unregistered", "buffers", nrounds,
               fails ? "WRONG DATA" : "all data correct", now() - t0);
    rtopo_req_free(gather_req);
    free(gather_out);
    free(cases);
    if ((st = rtopo_finalize(ctx)))
        die("rtopo_finalize", st);
    return fails || mine ? 1 : 0;
}
