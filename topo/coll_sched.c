/*
 * coll_sched.c - schedules of broadcast, scan, allreduce, the OTIS window
 * broadcast and the line operations (zero-fill shift, accumulation,
 * adjacent and consecutive sums).
 *
 * The OTIS algorithms are those of Wang and Sahni for the OTIS-mesh
 * (n groups of n processors, each group a sqrt(n) x sqrt(n) mesh without
 * wraparound, OTIS links (G,P) <-> (P,G)), adapted to the OTIS-hypercube
 * (each group a cube on the labels P).  Like the paper's programs they are
 * sequences of "move a register one link along one class, then compute
 * locally": here a register is a range of count*esize bytes of SEND, RECV
 * or TMP (TMP holds as many registers as the algorithm names), a move is
 * a one-hop transfer, and the computing is a COMBINE kernel or a local
 * copy.  Which ranks hold a value is known when the schedule is built, so
 * no identity element is ever needed: a rank that has nothing to combine
 * simply does not.
 *
 * Steps follow the paper's MIMD model: moves of different directions run
 * in the same step where the algorithm allows (a broadcast from the middle
 * of a row goes both ways at once); rtopo__sched_moves counts both the
 * MIMD steps and what a SIMD machine (one dimension and direction per
 * step) would need.  The group sum runs to the middle processor, which is
 * the paper's MIMD data sum and, serialised, its SIMD one.
 *
 * Long registers are cut into pieces: the program runs once per piece on
 * that piece's bytes, piece j one step behind piece j-1, so a chain of h
 * moves costs about (h + pieces - 1) piece times instead of h whole ones.
 * The pieces are independent (their byte ranges never meet), the edges
 * are inferred from steps and ranges.
 *
 * The generic algorithms (any topology): binomial tree broadcast;
 * allreduce by recursive doubling (with the usual fold for a size that is
 * not a power of two) or, for long vectors, by reduce-scatter and
 * allgather; the scan by recursive doubling or, for long vectors, along a
 * pipelined chain; over DIRECT connections, or over the identity cube
 * links on a hypercube.  Each candidate is built and the cost model keeps
 * the fastest.
 */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

static const char *const rtopo__coll_names[RTOPO__COLL_NOPS] = {
    [RTOPO__COLL_BCAST] = "bcast",
    [RTOPO__COLL_WINDOW_BCAST] = "window_bcast",
    [RTOPO__COLL_SCAN] = "scan",
    [RTOPO__COLL_ALLREDUCE] = "allreduce",
    [RTOPO__COLL_SHIFT_FILL] = "shift_fill",
    [RTOPO__COLL_ACCUMULATE] = "accumulate",
    [RTOPO__COLL_ADJACENT_SUM] = "adjacent_sum",
    [RTOPO__COLL_CONSEC_SUM] = "consecutive_sum",
    [RTOPO__COLL_SELECT_RANK] = "select_rank",
    [RTOPO__COLL_CONCENTRATE] = "concentrate",
    [RTOPO__COLL_DISTRIBUTE] = "distribute",
    [RTOPO__COLL_GENERALIZE] = "generalize",
    [RTOPO__COLL_RANDOM_WRITE] = "random_write",
    [RTOPO__COLL_RANDOM_READ] = "random_read",
    [RTOPO__COLL_BPC] = "bpc",
    [RTOPO__COLL_SORT] = "sort",
};

const char *rtopo__coll_name(int op)
{
    return op > 0 && op < RTOPO__COLL_NOPS ? rtopo__coll_names[op] : "?";
}

const char *rtopo__coll_algo_name(int algo)
{
    return algo == RTOPO_COLL_AUTO ? "auto" : algo == RTOPO_COLL_TOPO ? "topo" :
           algo == RTOPO_COLL_GENERIC ? "generic" : "?";
}

int rtopo__coll_algo_parse(const char *s)
{
    if (!s)
        return -1;
    if (!strcmp(s, "auto"))
        return RTOPO_COLL_AUTO;
    if (!strcmp(s, "topo") || !strcmp(s, "otis"))
        return RTOPO_COLL_TOPO;
    if (!strcmp(s, "generic"))
        return RTOPO_COLL_GENERIC;
    return -1;
}

uint64_t rtopo__coll_send_bytes(const rtopo__coll_t *c)
{
    uint64_t m = c->count * c->esize;

    switch (c->op) {
    case RTOPO__COLL_BCAST:
    case RTOPO__COLL_WINDOW_BCAST:
        return 0;
    case RTOPO__COLL_SELECT_RANK:
        return sizeof(int32_t);
    case RTOPO__COLL_CONSEC_SUM:
        return m * (uint64_t)(c->mm > 0 ? c->mm : 0);
    default:
        return m;
    }
}

uint64_t rtopo__coll_recv_bytes(const rtopo__coll_t *c)
{
    uint64_t m = c->count * c->esize;

    if (c->op == RTOPO__COLL_SELECT_RANK)
        return sizeof(int64_t);
    return c->op == RTOPO__COLL_ACCUMULATE ? m * (uint64_t)(c->mm > 0 ? c->mm : 0) : m;
}


/* ---- builder ------------------------------------------------------------ */

/* a register: buffer << 16 | index; its bytes are [index*M + off, +len) */
#define RG(buf, i) ((buf) << 16 | (i))
#define RSEND(i) RG(RTOPO__BUF_SEND, (i))
#define RRECV(i) RG(RTOPO__BUF_RECV, (i))
#define RTMP(i) RG(RTOPO__BUF_TMP, (i))
#define RNONE (-1)

typedef struct rtopo__cb {
    const rtopo__tdesc_t *t;
    const rtopo__coll_t *c;
    int n, s;               /* OTIS: group size; OTIS-mesh side, cube dim */
    uint64_t M;             /* register bytes */
    uint64_t off, len;      /* this piece */
    uint32_t base;          /* first step of this piece */
    uint32_t maxstep;       /* of the hops */
    uint32_t ntmp;          /* TMP registers named */
    uint64_t tbase;         /* TMP offset of register 0 */
    rtopo__xfer_t *x;
    rtopo__hop_t *h;
    rtopo__kern_t *k;
    uint32_t nx, nh, nk, cx, ch, ck;
    int best;               /* routing sweeps: each rank keeps one record
                               (ROUTE BEST), not every one it is on */
    int err;
} rtopo__cb_t;

static void *rtopo__grow(void *p, uint32_t *cap, uint32_t need, size_t esz, int *err)
{
    uint32_t c = *cap ? *cap : 64;
    void *q;

    if (need <= *cap)
        return p;
    while (c < need)
        c *= 2;
    q = realloc(p, (size_t)c * esz);
    if (!q) {
        *err = RTOPO_ERR_NOMEM;
        return p;
    }
    *cap = c;
    return q;
}

static uint64_t rtopo__cb_addr(const rtopo__cb_t *b, int reg)
{
    return (uint64_t)(reg & 0xffff) * b->M + b->off +
           ((reg >> 16) == RTOPO__BUF_TMP ? b->tbase : 0);
}

static void rtopo__cb_reg(rtopo__cb_t *b, int reg)
{
    if ((reg >> 16) == RTOPO__BUF_TMP && (uint32_t)(reg & 0xffff) + 1 > b->ntmp)
        b->ntmp = (uint32_t)(reg & 0xffff) + 1;
}

static void rtopo__cb_step(rtopo__cb_t *b, uint32_t step)
{
    if (step > b->maxstep)
        b->maxstep = step;
}

/* Transfer of register sreg of `src` to register dreg of `dst` along
 * nh hops (hops[i].to, .link, .dim, .dir), hop i in step step0 + i; no
 * hops: a copy in step step0. */
static void rtopo__cb_route(rtopo__cb_t *b, int src, int sreg, int dst, int dreg,
                            uint32_t step0, const rtopo__hop_t *hops, uint32_t nh)
{
    rtopo__xfer_t *x;
    uint32_t i;

    if (b->err || !b->len)
        return;
    b->x = rtopo__grow(b->x, &b->cx, b->nx + 1, sizeof(*b->x), &b->err);
    b->h = rtopo__grow(b->h, &b->ch, b->nh + nh, sizeof(*b->h), &b->err);
    if (b->err)
        return;
    rtopo__cb_reg(b, sreg);
    rtopo__cb_reg(b, dreg);
    x = &b->x[b->nx++];
    memset(x, 0, sizeof(*x));
    x->src = src;
    x->dst = dst;
    x->src_buf = (uint8_t)(sreg >> 16);
    x->dst_buf = (uint8_t)(dreg >> 16);
    x->src_off = rtopo__cb_addr(b, sreg);
    x->dst_off = rtopo__cb_addr(b, dreg);
    x->len = b->len;
    x->nhops = nh;
    x->hop0 = b->nh;
    x->step = nh ? 0 : b->base + step0;
    for (i = 0; i < nh; i++) {
        b->h[b->nh] = hops[i];
        b->h[b->nh].step = b->base + step0 + i;
        b->nh++;
    }
    if (nh)
        rtopo__cb_step(b, b->base + step0 + nh - 1);
}

/* one hop (or a copy when from == to) in step `step` */
static void rtopo__cb_move(rtopo__cb_t *b, int from, int sreg, int to, int dreg,
                           uint32_t step, int link, int dim, int dir)
{
    rtopo__hop_t h = { .to = to, .link = (uint8_t)link, .dim = (uint8_t)dim,
                       .dir = (int8_t)dir };

    if (from == to) {
        if (sreg != dreg)
            rtopo__cb_route(b, from, sreg, to, dreg, step, NULL, 0);
        return;
    }
    rtopo__cb_route(b, from, sreg, to, dreg, step, &h, 1);
}

static void rtopo__cb_copy(rtopo__cb_t *b, int rank, int sreg, int dreg, uint32_t step)
{
    if (sreg != dreg)
        rtopo__cb_route(b, rank, sreg, rank, dreg, step, NULL, 0);
}

static void rtopo__cb_kern(rtopo__cb_t *b, int type, int rank, int sreg, int dreg,
                           uint32_t step, int64_t arg)
{
    rtopo__kern_t *k;

    if (b->err || !b->len)
        return;
    b->k = rtopo__grow(b->k, &b->ck, b->nk + 1, sizeof(*b->k), &b->err);
    if (b->err)
        return;
    k = &b->k[b->nk++];
    memset(k, 0, sizeof(*k));
    k->rank = rank;
    k->type = (uint8_t)type;
    k->dtype = (uint8_t)b->c->dtype;
    k->op = (uint8_t)b->c->rop;
    k->step = b->base + step;
    if (sreg != RNONE) {
        rtopo__cb_reg(b, sreg);
        k->src_buf = (uint8_t)(sreg >> 16);
        k->src_off = rtopo__cb_addr(b, sreg);
    }
    rtopo__cb_reg(b, dreg);
    k->dst_buf = (uint8_t)(dreg >> 16);
    k->dst_off = rtopo__cb_addr(b, dreg);
    k->len = b->len;
    k->arg = arg;
}

/* dreg = dreg op sreg */
static void rtopo__cb_comb(rtopo__cb_t *b, int rank, int sreg, int dreg, uint32_t step)
{
    rtopo__cb_kern(b, RTOPO__KERN_COMBINE, rank, sreg, dreg, step, 0);
}

/* dreg = sreg op dreg's current value, into dreg; dreg RNONE-safe: when
 * `have` is 0 the value is just copied */
static void rtopo__cb_acc(rtopo__cb_t *b, int rank, int sreg, int dreg, int have,
                          uint32_t step)
{
    if (have)
        rtopo__cb_comb(b, rank, sreg, dreg, step);
    else
        rtopo__cb_copy(b, rank, sreg, dreg, step);
}

/* ---- OTIS-mesh groups --------------------------------------------------- *
 * A line of a group: a row (ROW links, position = Py) or a column (COL
 * links, position = Px); `fixed` is the other in-group coordinate. */
static int rtopo__gl_rank(const rtopo__cb_t *b, int G, int link, int fixed, int pos)
{
    return G * b->n + (link == RTOPO__LINK_ROW ? fixed * b->s + pos : pos * b->s + fixed);
}

static void rtopo__gl_hop(rtopo__cb_t *b, int G, int link, int fixed, int from, int sreg,
                          int to, int dreg, uint32_t step)
{
    rtopo__cb_move(b, rtopo__gl_rank(b, G, link, fixed, from), sreg,
                   rtopo__gl_rank(b, G, link, fixed, to), dreg, step, link, 0,
                   to > from ? 1 : -1);
}

/* Broadcast along a line of s positions from position c0 (register sreg)
 * into register dreg of every other position, both ways at once; hops in
 * steps t0+1 ..; returns the steps used. */
static uint32_t rtopo__gl_bcast(rtopo__cb_t *b, int G, int link, int fixed, int c0, int sreg,
                                int dreg, uint32_t t0)
{
    int s = b->s, k;

    for (k = 1; c0 + k < s; k++)
        rtopo__gl_hop(b, G, link, fixed, c0 + k - 1, k == 1 ? sreg : dreg, c0 + k, dreg,
                      t0 + (uint32_t)k);
    for (k = 1; c0 - k >= 0; k++)
        rtopo__gl_hop(b, G, link, fixed, c0 - k + 1, k == 1 ? sreg : dreg, c0 - k, dreg,
                      t0 + (uint32_t)k);
    return (uint32_t)(c0 > s - 1 - c0 ? c0 : s - 1 - c0);
}

/* Reduce a line to position cm: val is each position's value, xl/xr the
 * partials arriving from the left and the right, tot the result at cm
 * (val op everything).  Both sides at once; returns the steps used. */
static uint32_t rtopo__gl_reduce(rtopo__cb_t *b, int G, int link, int fixed, int cm, int val,
                                 int xl, int xr, int tot, uint32_t t0)
{
    int s = b->s, k, cm_rank = rtopo__gl_rank(b, G, link, fixed, cm);
    uint32_t L = (uint32_t)(cm > s - 1 - cm ? cm : s - 1 - cm);

    for (k = 1; k <= cm; k++) {
        rtopo__gl_hop(b, G, link, fixed, k - 1, k == 1 ? val : xl, k, xl, t0 + (uint32_t)k);
        if (k < cm)
            rtopo__cb_comb(b, rtopo__gl_rank(b, G, link, fixed, k), val, xl,
                           t0 + (uint32_t)k);
    }
    for (k = 1; k <= s - 1 - cm; k++) {
        rtopo__gl_hop(b, G, link, fixed, s - k, k == 1 ? val : xr, s - k - 1, xr,
                      t0 + (uint32_t)k);
        if (s - k - 1 > cm)
            rtopo__cb_comb(b, rtopo__gl_rank(b, G, link, fixed, s - k - 1), val, xr,
                           t0 + (uint32_t)k);
    }
    rtopo__cb_copy(b, cm_rank, val, tot, t0 + L);
    if (cm > 0)
        rtopo__cb_comb(b, cm_rank, xl, tot, t0 + L);
    if (cm < s - 1)
        rtopo__cb_comb(b, cm_rank, xr, tot, t0 + L);
    return L;
}

/* Broadcast within group G of an OTIS-mesh from position P0 (register
 * sreg) into dreg of every processor: along P0's row, then every column. */
static uint32_t rtopo__om_bcast(rtopo__cb_t *b, int G, int P0, int sreg, int dreg,
                                uint32_t t0)
{
    int s = b->s, px0 = P0 / s, py0 = P0 % s, py;
    uint32_t L1, L2 = 0;

    /* (a copy runs before the kernels of its step: one step later, sreg
     * may come from kernels of step t0) */
    rtopo__cb_copy(b, G * b->n + P0, sreg, dreg, t0 + (s > 1));
    L1 = rtopo__gl_bcast(b, G, RTOPO__LINK_ROW, px0, py0, sreg, dreg, t0);
    for (py = 0; py < s; py++)
        L2 = rtopo__gl_bcast(b, G, RTOPO__LINK_COL, py, px0, py == py0 ? sreg : dreg, dreg,
                             t0 + L1);
    return L1 + L2;
}

/* Sum of group G into `out` of every processor (val: each one's value):
 * rows to the middle column, that column to its middle, and back. */
static uint32_t rtopo__om_sum(rtopo__cb_t *b, int G, int val, int out, int tmp0, uint32_t t0)
{
    int s = b->s, cm = (s - 1) / 2, px;
    int xl = RTMP(tmp0), xr = RTMP(tmp0 + 1), rt = RTMP(tmp0 + 2), cl = RTMP(tmp0 + 3);
    int cr = RTMP(tmp0 + 4), gt = RTMP(tmp0 + 5);
    uint32_t t = t0;

    for (px = 0; px < s; px++)
        rtopo__gl_reduce(b, G, RTOPO__LINK_ROW, px, cm, val, xl, xr, rt, t);
    t += (uint32_t)(cm > s - 1 - cm ? cm : s - 1 - cm);
    t += rtopo__gl_reduce(b, G, RTOPO__LINK_COL, cm, cm, rt, cl, cr, gt, t);
    return t - t0 + rtopo__om_bcast(b, G, cm * s + cm, gt, out, t);
}

/* ---- OTIS-hypercube groups (cube labels P, links P <-> P ^ 2^k) ---------
 * also the identity-embedded hypercube (a single "group", CUBE_ID links) */
typedef struct rtopo__cube {
    int base;       /* rank of label 0 */
    int d;          /* dimension */
    int link;       /* RTOPO__LINK_CUBE or RTOPO__LINK_CUBE_ID */
} rtopo__cube_t;

static void rtopo__cube_hop(rtopo__cb_t *b, const rtopo__cube_t *q, int P, int sreg, int k,
                            int dreg, uint32_t step)
{
    rtopo__cb_move(b, q->base + P, sreg, q->base + (P ^ (1 << k)), dreg, step, q->link, k, 0);
}

/* binomial broadcast from label P0 */
static uint32_t rtopo__cube_bcast(rtopo__cb_t *b, const rtopo__cube_t *q, int P0, int sreg,
                                  int dreg, uint32_t t0)
{
    int k, P;

    rtopo__cb_copy(b, q->base + P0, sreg, dreg, t0);
    for (k = 0; k < q->d; k++)
        for (P = 0; P < (1 << q->d); P++)
            if (((P ^ P0) >> k) == 0)
                rtopo__cube_hop(b, q, P, P == P0 ? sreg : dreg, k, dreg,
                                t0 + (uint32_t)k + 1);
    return (uint32_t)q->d;
}

/* recursive doubling: out = op over the cube of val; in0, in1: TMP
 * registers the partners' values land in */
static uint32_t rtopo__cube_sum(rtopo__cb_t *b, const rtopo__cube_t *q, int val, int out,
                                int in0, uint32_t t0)
{
    int k, P;

    for (P = 0; P < (1 << q->d); P++)
        rtopo__cb_copy(b, q->base + P, val, out, t0);
    for (k = 0; k < q->d; k++)
        for (P = 0; P < (1 << q->d); P++) {
            rtopo__cube_hop(b, q, P, out, k, RTMP(in0 + (k & 1)), t0 + (uint32_t)k + 1);
            rtopo__cb_comb(b, q->base + P, RTMP(in0 + (k & 1)), out, t0 + (uint32_t)k + 1);
        }
    return (uint32_t)q->d;
}

/* Prefix over the labels: inc = op over labels <= P of val, exc = op over
 * labels < P (label 0 has none), tot = the total (inc, exc may be RNONE);
 * TMP in0, in0+1: landing registers. */
static uint32_t rtopo__cube_scan(rtopo__cb_t *b, const rtopo__cube_t *q, int val, int inc,
                                 int exc, int tot, int in0, uint32_t t0)
{
    int k, P, pk;

    for (P = 0; P < (1 << q->d); P++) {
        rtopo__cb_copy(b, q->base + P, val, tot, t0);
        if (inc != RNONE)
            rtopo__cb_copy(b, q->base + P, val, inc, t0);
    }
    for (k = 0; k < q->d; k++)
        for (P = 0; P < (1 << q->d); P++) {
            int in = RTMP(in0 + (k & 1));
            uint32_t t = t0 + (uint32_t)k + 1;

            rtopo__cube_hop(b, q, P, tot, k, in, t);
            if (P & (1 << k)) {         /* the partner is lower */
                pk = P & ((1 << k) - 1);    /* exc had a value before */
                if (inc != RNONE)
                    rtopo__cb_comb(b, q->base + P, in, inc, t);
                if (exc != RNONE)
                    rtopo__cb_acc(b, q->base + P, in, exc, pk != 0, t);
            }
            rtopo__cb_comb(b, q->base + P, in, tot, t);
        }
    return (uint32_t)q->d;
}

/* ---- the OTIS algorithms ------------------------------------------------ */

static int rtopo__is_om(const rtopo__cb_t *b)
{
    return b->t->kind == RTOPO__TOPO_OTIS_MESH;
}

static uint32_t rtopo__grp_bcast(rtopo__cb_t *b, int G, int P0, int sreg, int dreg,
                                 uint32_t t0)
{
    rtopo__cube_t q = { G * b->n, b->s, RTOPO__LINK_CUBE };

    return rtopo__is_om(b) ? rtopo__om_bcast(b, G, P0, sreg, dreg, t0) :
           rtopo__cube_bcast(b, &q, P0, sreg, dreg, t0);
}

/* uses TMP registers tmp0 .. tmp0+5 */
static uint32_t rtopo__grp_sum(rtopo__cb_t *b, int G, int val, int out, int tmp0, uint32_t t0)
{
    rtopo__cube_t q = { G * b->n, b->s, RTOPO__LINK_CUBE };

    return rtopo__is_om(b) ? rtopo__om_sum(b, G, val, out, tmp0, t0) :
           rtopo__cube_sum(b, &q, val, out, tmp0, t0);
}

/* the OTIS move of (G, P)'s sreg to (P, G)'s dreg (a copy when G == P) */
static void rtopo__otis_move(rtopo__cb_t *b, int G, int P, int sreg, int dreg, uint32_t step)
{
    rtopo__cb_move(b, G * b->n + P, sreg, P * b->n + G, dreg, step, RTOPO__LINK_OTIS, 0, 0);
}

/* broadcast: in the root's group, one OTIS move, in every other group */
static void rtopo__otis_bcast(rtopo__cb_t *b)
{
    int n = b->n, G0 = b->c->root / n, P0 = b->c->root % n, P;
    uint32_t t = rtopo__grp_bcast(b, G0, P0, RRECV(0), RRECV(0), 0) + 1;

    for (P = 0; P < n; P++)
        if (P != G0)
            rtopo__otis_move(b, G0, P, RRECV(0), RRECV(0), t);
    for (P = 0; P < n; P++)
        if (P != G0)
            rtopo__grp_bcast(b, P, G0, RRECV(0), RRECV(0), t);
}

/* Tile the w positions at the start of a group line over the whole line
 * (RECV): the value of position j < w travels hop by hop to the end, and
 * positions j + kw keep it; it waits in TMP pipe registers elsewhere. */
static uint32_t rtopo__gl_tile(rtopo__cb_t *b, int G, int link, int fixed, int w, int pipe0,
                               uint32_t t0)
{
    int s = b->s, j, t;

    for (j = 0; j < w; j++) {
        int held = RRECV(0);

        for (t = 1; t <= s - w; t++) {
            int dreg = t % w == 0 ? RRECV(0) : RTMP(pipe0 + (t & 1));

            rtopo__gl_hop(b, G, link, fixed, j + t - 1, held, j + t, dreg, t0 + (uint32_t)t);
            held = dreg;
        }
    }
    return (uint32_t)(s - w);
}

static void rtopo__otis_window(rtopo__cb_t *b)
{
    int n = b->n, s = b->s, w = b->c->w, G0 = b->c->root, P, i, x;
    uint32_t t = 0, L = 0;

    /* 1: tile group G0: the first w rows, then every column */
    for (x = 0; x < w; x++)
        L = rtopo__gl_tile(b, G0, RTOPO__LINK_ROW, x, w, 0, t);
    t += L;
    for (x = 0; x < s; x++)
        L = rtopo__gl_tile(b, G0, RTOPO__LINK_COL, x, w, 0, t);
    t += L + 1;
    /* 2: (G0, P) -> (P, G0); 3: broadcast in every group P from G0; 4:
     * (P, i) -> (i, P) but into group G0, which keeps its tiles (2 and 3
     * use TMP: group G0 takes part with its copy of the window) */
    for (P = 0; P < n; P++)
        rtopo__otis_move(b, G0, P, RRECV(0), RTMP(2), t);
    for (P = 0; P < n; P++)
        L = rtopo__grp_bcast(b, P, G0, RTMP(2), RTMP(2), t);
    t += L + 1;
    for (P = 0; P < n; P++)
        for (i = 0; i < n; i++)
            if (i != G0)
                rtopo__otis_move(b, P, i, RTMP(2), RRECV(0), t);
}

/* data sum: sum in each group, one OTIS move, sum in each group */
static void rtopo__otis_allreduce(rtopo__cb_t *b)
{
    int n = b->n, G, P;
    uint32_t t = 0, L = 0;

    for (G = 0; G < n; G++)
        L = rtopo__grp_sum(b, G, RSEND(0), RTMP(0), 1, t);
    t += L + 1;
    for (G = 0; G < n; G++)
        for (P = 0; P < n; P++)
            rtopo__otis_move(b, G, P, RTMP(0), RTMP(7), t);
    for (G = 0; G < n; G++)
        rtopo__grp_sum(b, G, RTMP(7), RRECV(0), 1, t);
}

/* Prefix sum on the OTIS-mesh, the paper's 7(sqrt n - 1) + 2 form: row
 * prefixes R; down the last column the prefixes C of R (and EC, without
 * the own R); group totals C(s-1, s-1) to group n-1 by OTIS; there the
 * prefixes over the groups before (rows, last column, back along the
 * rows); back by OTIS to the last processor of each group; up the last
 * column; V = that op EC in the last column; along the rows; R op V. */
static void rtopo__om_scan(rtopo__cb_t *b)
{
    enum { T_R = 0, T_EC, T_C, T_A, T_AI, T_AE, T_CE, T_CI, T_XG, T_X, T_V };
    int n = b->n, s = b->s, G, x, y, k, last = n - 1;
    uint32_t t = 0;
#define R_OF(py) ((py) == 0 ? RSEND(0) : RTMP(T_R))
#define C_OF(px) ((px) == 0 ? R_OF(s - 1) : RTMP(T_C))
#define AI_OF(py) ((py) == 0 ? RTMP(T_A) : RTMP(T_AI))
#define CI_OF(px) ((px) == 0 ? AI_OF(s - 1) : RTMP(T_CI))

    /* 1: row prefixes */
    for (G = 0; G < n; G++)
        for (x = 0; x < s; x++)
            for (k = 1; k < s; k++) {
                rtopo__gl_hop(b, G, RTOPO__LINK_ROW, x, k - 1, R_OF(k - 1), k, RTMP(T_R),
                              t + (uint32_t)k);
                rtopo__cb_comb(b, G * n + x * s + k, RSEND(0), RTMP(T_R), t + (uint32_t)k);
            }
    t += (uint32_t)(s - 1);
    /* 2: down the last column: EC (before) and C (with) */
    for (G = 0; G < n; G++)
        for (k = 1; k < s; k++) {
            int r = G * n + k * s + s - 1;

            rtopo__gl_hop(b, G, RTOPO__LINK_COL, s - 1, k - 1, C_OF(k - 1), k, RTMP(T_EC),
                          t + (uint32_t)k);
            rtopo__cb_copy(b, r, RTMP(T_EC), RTMP(T_C), t + (uint32_t)k);
            rtopo__cb_comb(b, r, R_OF(s - 1), RTMP(T_C), t + (uint32_t)k);
        }
    t += (uint32_t)(s - 1) + 1;
    /* 3: group totals to group n-1 */
    for (G = 0; G < n; G++)
        rtopo__otis_move(b, G, last, C_OF(s - 1), RTMP(T_A), t);
    /* 4: group n-1: exclusive prefix of A over its processors */
    for (x = 0; x < s; x++)
        for (k = 1; k < s; k++) {
            rtopo__gl_hop(b, last, RTOPO__LINK_ROW, x, k - 1, AI_OF(k - 1), k, RTMP(T_AE),
                          t + (uint32_t)k);
            rtopo__cb_copy(b, last * n + x * s + k, RTMP(T_AE), RTMP(T_AI), t + (uint32_t)k);
            rtopo__cb_comb(b, last * n + x * s + k, RTMP(T_A), RTMP(T_AI), t + (uint32_t)k);
        }
    t += (uint32_t)(s - 1);
    for (k = 1; k < s; k++) {
        int r = last * n + k * s + s - 1;

        rtopo__gl_hop(b, last, RTOPO__LINK_COL, s - 1, k - 1, CI_OF(k - 1), k, RTMP(T_CE),
                      t + (uint32_t)k);
        rtopo__cb_copy(b, r, RTMP(T_CE), RTMP(T_CI), t + (uint32_t)k);
        rtopo__cb_comb(b, r, AI_OF(s - 1), RTMP(T_CI), t + (uint32_t)k);
    }
    t += (uint32_t)(s - 1);
    for (x = 1; x < s; x++)
        rtopo__gl_bcast(b, last, RTOPO__LINK_ROW, x, s - 1, RTMP(T_CE), RTMP(T_CE), t);
    t += (uint32_t)(s - 1);
    for (x = 0; x < s; x++)
        for (y = 0; y < s; y++)
            if (x && y) {
                rtopo__cb_copy(b, last * n + x * s + y, RTMP(T_CE), RTMP(T_XG), t);
                rtopo__cb_comb(b, last * n + x * s + y, RTMP(T_AE), RTMP(T_XG), t);
            }
    t++;
    /* 5: back to the last processor of each group but group 0 */
    for (G = 1; G < n; G++) {
        int gx = G / s, gy = G % s;

        rtopo__otis_move(b, last, G, gx && gy ? RTMP(T_XG) : gx ? RTMP(T_CE) : RTMP(T_AE),
                         RTMP(T_X), t);
    }
    /* 6: up the last column */
    for (G = 1; G < n; G++)
        rtopo__gl_bcast(b, G, RTOPO__LINK_COL, s - 1, s - 1, RTMP(T_X), RTMP(T_X), t);
    t += (uint32_t)(s - 1);
    /* 7: V = X op EC in the last column */
    for (G = 0; G < n; G++)
        for (x = 0; x < s; x++)
            if (G && x) {
                rtopo__cb_copy(b, G * n + x * s + s - 1, RTMP(T_X), RTMP(T_V), t);
                rtopo__cb_comb(b, G * n + x * s + s - 1, RTMP(T_EC), RTMP(T_V), t);
            }
    /* 8: along the rows; 9: R op V */
    for (G = 0; G < n; G++)
        for (x = 0; x < s; x++) {
            int v = G && x ? RTMP(T_V) : G ? RTMP(T_X) : RTMP(T_EC);

            if (G || x)
                rtopo__gl_bcast(b, G, RTOPO__LINK_ROW, x, s - 1, v, RTMP(T_V), t);
            for (y = 0; y < s; y++) {
                int r = G * n + x * s + y;

                rtopo__cb_copy(b, r, R_OF(y), RRECV(0), t + (uint32_t)(s - 1));
                if (G || x)
                    rtopo__cb_comb(b, r, y == s - 1 ? v : RTMP(T_V), RRECV(0),
                                   t + (uint32_t)(s - 1));
            }
        }
#undef R_OF
#undef C_OF
#undef AI_OF
#undef CI_OF
}

/* Prefix sum on the OTIS-hypercube: the cube prefix in each group, group
 * totals to group n-1 by OTIS, the exclusive cube prefix there, back by
 * OTIS, broadcast from the last processor, combine. */
static void rtopo__oh_scan(rtopo__cb_t *b)
{
    enum { T_PS = 0, T_TS, T_IN, T_IN1, T_A, T_ET, T_EX, T_X };
    int n = b->n, G, P;
    uint32_t t = 0, L = 0;
    rtopo__cube_t q = { 0, b->s, RTOPO__LINK_CUBE };

    for (G = 0; G < n; G++) {
        q.base = G * n;
        L = rtopo__cube_scan(b, &q, RSEND(0), RTMP(T_PS), RNONE, RTMP(T_TS), T_IN, t);
    }
    t += L + 1;
    for (G = 0; G < n; G++)
        rtopo__otis_move(b, G, n - 1, RTMP(T_TS), RTMP(T_A), t);
    q.base = (n - 1) * n;
    t += rtopo__cube_scan(b, &q, RTMP(T_A), RNONE, RTMP(T_EX), RTMP(T_ET), T_IN, t) + 1;
    for (G = 1; G < n; G++)
        rtopo__otis_move(b, n - 1, G, RTMP(T_EX), RTMP(T_X), t);
    for (G = 1; G < n; G++) {
        q.base = G * n;
        L = rtopo__cube_bcast(b, &q, n - 1, RTMP(T_X), RTMP(T_X), t);
    }
    t += L;
    for (G = 0; G < n; G++)
        for (P = 0; P < n; P++) {
            rtopo__cb_copy(b, G * n + P, RTMP(T_PS), RRECV(0), t);
            if (G)
                rtopo__cb_comb(b, G * n + P, RTMP(T_X), RRECV(0), t);
        }
}

/* ---- generic algorithms ------------------------------------------------- */

static int rtopo__is_cube(const rtopo__cb_t *b)
{
    return b->t->kind == RTOPO__TOPO_HYPERCUBE;
}

static void rtopo__direct(rtopo__cb_t *b, int from, int sreg, int to, int dreg, uint32_t step)
{
    rtopo__cb_move(b, from, sreg, to, dreg, step, RTOPO__LINK_DIRECT, 0, 0);
}

/* binomial tree from the root (relative ranks v = r - root mod p) */
static void rtopo__gen_bcast(rtopo__cb_t *b)
{
    int p = b->t->p, root = b->c->root, v;
    uint32_t k = 0;

    if (rtopo__is_cube(b)) {
        rtopo__cube_t q = { 0, b->t->dim, RTOPO__LINK_CUBE_ID };

        rtopo__cube_bcast(b, &q, root, RRECV(0), RRECV(0), 0);
        return;
    }
    for (k = 0; (1L << k) < p; k++)
        for (v = 0; v < (1 << k) && v + (1 << k) < p; v++)
            rtopo__direct(b, (v + root) % p, RRECV(0), (v + (1 << k) + root) % p, RRECV(0),
                          k + 1);
}

/* recursive doubling; the q = 2^floor(log2 p) lowest ranks take the rest's
 * values first and hand them the result last */
static void rtopo__gen_allreduce(rtopo__cb_t *b)
{
    int p = b->t->p, q = 1, v, k;
    uint32_t t = 0;

    if (rtopo__is_cube(b)) {
        rtopo__cube_t c = { 0, b->t->dim, RTOPO__LINK_CUBE_ID };

        rtopo__cube_sum(b, &c, RSEND(0), RRECV(0), 0, 0);
        return;
    }
    while (q * 2 <= p)
        q *= 2;
    for (v = 0; v < p; v++)
        rtopo__cb_copy(b, v, RSEND(0), RRECV(0), 0);
    if (p > q) {
        t++;
        for (v = q; v < p; v++) {
            rtopo__direct(b, v, RSEND(0), v - q, RTMP(0), t);
            rtopo__cb_comb(b, v - q, RTMP(0), RRECV(0), t);
        }
    }
    for (k = 0; (1 << k) < q; k++) {
        t++;
        for (v = 0; v < q; v++) {
            rtopo__direct(b, v, RRECV(0), v ^ (1 << k), RTMP(k & 1), t);
            rtopo__cb_comb(b, v, RTMP(k & 1), RRECV(0), t);
        }
    }
    if (p > q) {
        t++;
        for (v = q; v < p; v++)
            rtopo__direct(b, v - q, RRECV(0), v, RRECV(0), t);
    }
}

/* the transfer of elements [e0, e1) of the current piece (a copy when
 * from == to) */
static void rtopo__cb_part(rtopo__cb_t *b, int from, int sreg, int to, int dreg,
                           uint32_t step, int link, int dim, uint64_t e0, uint64_t e1)
{
    uint64_t off = b->off, len = b->len;

    if (e1 <= e0)
        return;
    b->off = off + e0 * b->c->esize;
    b->len = (e1 - e0) * b->c->esize;
    rtopo__cb_move(b, from, sreg, to, dreg, step, link, dim, 0);
    b->off = off;
    b->len = len;
}

static void rtopo__cb_part_comb(rtopo__cb_t *b, int rank, int sreg, int dreg, uint32_t step,
                                uint64_t e0, uint64_t e1)
{
    uint64_t off = b->off, len = b->len;

    if (e1 <= e0)
        return;
    b->off = off + e0 * b->c->esize;
    b->len = (e1 - e0) * b->c->esize;
    rtopo__cb_comb(b, rank, sreg, dreg, step);
    b->off = off;
    b->len = len;
}

/* Reduce-scatter by recursive halving, then allgather by recursive
 * doubling (Rabenseifner's allreduce): each rank sends and combines
 * about twice its vector, where recursive doubling moves it log2(p)
 * times; the ranks past the largest power of two fold in first and take
 * the result last, as in rtopo__gen_allreduce. */
static void rtopo__gen_allreduce_rsag(rtopo__cb_t *b)
{
    int p = b->t->p, q = 1, lg = 0, v, k, cube = rtopo__is_cube(b);
    int link = cube ? RTOPO__LINK_CUBE_ID : RTOPO__LINK_DIRECT;
    uint64_t n = b->len / b->c->esize, *lo, *hi, *nlo;
    uint32_t t = 0;

    while (q * 2 <= p) {
        q *= 2;
        lg++;
    }
    lo = calloc((size_t)q, sizeof(*lo));
    hi = calloc((size_t)q, sizeof(*hi));
    nlo = calloc((size_t)q * 2, sizeof(*nlo));
    if (!lo || !hi || !nlo) {
        b->err = RTOPO_ERR_NOMEM;
        goto out;
    }
    for (v = 0; v < p; v++)
        rtopo__cb_copy(b, v, RSEND(0), RRECV(0), 0);
    if (p > q) {
        t++;
        for (v = q; v < p; v++) {
            rtopo__direct(b, v, RSEND(0), v - q, RTMP(0), t);
            rtopo__cb_comb(b, v - q, RTMP(0), RRECV(0), t);
        }
    }
    for (v = 0; v < q; v++)
        hi[v] = n;
    for (k = 0; k < lg; k++) {
        int mask = q >> (k + 1), in = RTMP(1 + (k & 1));

        t++;
        for (v = 0; v < q; v++) {
            uint64_t mid = lo[v] + (hi[v] - lo[v]) / 2;
            int up = (v & mask) != 0;

            /* send the half the partner keeps; combine the half we keep */
            rtopo__cb_part(b, v, RRECV(0), v ^ mask, in, t, link, lg - 1 - k,
                           up ? lo[v] : mid, up ? mid : hi[v]);
            rtopo__cb_part_comb(b, v, in, RRECV(0), t, up ? mid : lo[v], up ? hi[v] : mid);
            nlo[2 * v] = up ? mid : lo[v];
            nlo[2 * v + 1] = up ? hi[v] : mid;
        }
        for (v = 0; v < q; v++) {
            lo[v] = nlo[2 * v];
            hi[v] = nlo[2 * v + 1];
        }
    }
    for (k = lg - 1; k >= 0; k--) {
        int mask = q >> (k + 1);

        t++;
        for (v = 0; v < q; v++)
            rtopo__cb_part(b, v, RRECV(0), v ^ mask, RRECV(0), t, link, lg - 1 - k, lo[v],
                           hi[v]);
        for (v = 0; v < q; v++) {
            int w = v ^ mask;

            nlo[2 * v] = lo[v] < lo[w] ? lo[v] : lo[w];
            nlo[2 * v + 1] = hi[v] > hi[w] ? hi[v] : hi[w];
        }
        for (v = 0; v < q; v++) {
            lo[v] = nlo[2 * v];
            hi[v] = nlo[2 * v + 1];
        }
    }
    if (p > q) {
        t++;
        for (v = q; v < p; v++)
            rtopo__direct(b, v - q, RRECV(0), v, RRECV(0), t);
    }
out:
    free(lo);
    free(hi);
    free(nlo);
}

/* the scan along a chain of the ranks: rank v takes the prefix of v - 1,
 * adds its own and passes it on; long vectors are pipelined in pieces, so
 * each rank moves its vector once, where recursive doubling moves it
 * log2(p) times */
static void rtopo__gen_scan_chain(rtopo__cb_t *b)
{
    int p = b->t->p, v;

    rtopo__cb_copy(b, 0, RSEND(0), RRECV(0), 0);
    for (v = 1; v < p; v++) {
        rtopo__direct(b, v - 1, v == 1 ? RSEND(0) : RRECV(0), v, RTMP(0), (uint32_t)v);
        rtopo__cb_copy(b, v, RTMP(0), RRECV(0), (uint32_t)v);
        rtopo__cb_comb(b, v, RSEND(0), RRECV(0), (uint32_t)v);
    }
}

/* recursive doubling scan: in round k rank v adds in what v - 2^k holds */
static void rtopo__gen_scan(rtopo__cb_t *b)
{
    int p = b->t->p, v, k;

    if (rtopo__is_cube(b)) {
        rtopo__cube_t c = { 0, b->t->dim, RTOPO__LINK_CUBE_ID };

        rtopo__cube_scan(b, &c, RSEND(0), RRECV(0), RNONE, RTMP(0), 1, 0);
        return;
    }
    for (v = 0; v < p; v++)
        rtopo__cb_copy(b, v, RSEND(0), RRECV(0), 0);
    for (k = 0; (1 << k) < p; k++)
        for (v = 0; v + (1 << k) < p; v++) {
            rtopo__direct(b, v, RRECV(0), v + (1 << k), RTMP(k & 1), (uint32_t)k + 1);
            rtopo__cb_comb(b, v + (1 << k), RTMP(k & 1), RRECV(0), (uint32_t)k + 1);
        }
}

/* ---- line operations ---------------------------------------------------- *
 * A line along `dim`: E positions; ring, mesh and cube lines wrap around
 * over their own links, OTIS-mesh in-group lines do not (ROW/COL links
 * inside the group), OTIS-hypercube lines use DIRECT connections.  The
 * OTIS-mesh group dimensions run, as in the paper, between two OTIS
 * moves on the in-group line they become. */
typedef struct rtopo__line {
    int dim, E, wrap, link, nlines;
} rtopo__line_t;

static void rtopo__line_init(const rtopo__cb_t *b, int dim, rtopo__line_t *ln)
{
    const rtopo__tdesc_t *t = b->t;

    ln->dim = dim;
    ln->E = rtopo__cart_extent(t, dim);
    ln->nlines = rtopo__cart_nlines(t, dim);
    ln->wrap = t->kind != RTOPO__TOPO_OTIS_MESH;
    switch (t->kind) {
    case RTOPO__TOPO_RING: ln->link = RTOPO__LINK_RING; break;
    case RTOPO__TOPO_MESH: ln->link = dim ? RTOPO__LINK_ROW : RTOPO__LINK_COL; break;
    case RTOPO__TOPO_HYPERCUBE: ln->link = RTOPO__LINK_CUBE; break;
    case RTOPO__TOPO_OTIS_MESH: ln->link = dim == 3 ? RTOPO__LINK_ROW : RTOPO__LINK_COL; break;
    default: ln->link = RTOPO__LINK_DIRECT; break;
    }
}

static int rtopo__line_rank(const rtopo__cb_t *b, const rtopo__line_t *ln, int L, int pos)
{
    if (ln->wrap)
        pos = ((pos % ln->E) + ln->E) % ln->E;
    return rtopo__cart_member(b->t, ln->dim, L, pos);
}

static rtopo__hop_t rtopo__line_hopv(const rtopo__cb_t *b, const rtopo__line_t *ln, int L,
                                     int to_pos, int dir)
{
    rtopo__hop_t h;

    memset(&h, 0, sizeof(h));
    h.to = rtopo__line_rank(b, ln, L, to_pos);
    h.link = (uint8_t)ln->link;
    if (ln->link == RTOPO__LINK_CUBE)
        h.dim = (uint8_t)ln->dim;
    else if (ln->link != RTOPO__LINK_DIRECT)
        h.dir = (int8_t)dir;
    return h;
}

/* one hop from position `from` to from + dir */
static void rtopo__line_hop(rtopo__cb_t *b, const rtopo__line_t *ln, int L, int from, int sreg,
                            int dir, int dreg, uint32_t step)
{
    rtopo__hop_t h = rtopo__line_hopv(b, ln, L, from + dir, dir);

    rtopo__cb_route(b, rtopo__line_rank(b, ln, L, from), sreg, h.to, dreg, step, &h, 1);
}

/* zero-fill shift: out(x + disp) = in(x) where both are on the line, one
 * route per moving value; zeros where nothing arrives */
static uint32_t rtopo__line_fill(rtopo__cb_t *b, const rtopo__line_t *ln, int in, int out,
                                 uint32_t t0)
{
    int disp = b->c->disp, E = ln->E, L, x, k, dir = disp < 0 ? -1 : 1;
    int ad = disp < 0 ? -disp : disp;
    rtopo__hop_t hops[RTOPO__MAX_DIMS > 64 ? RTOPO__MAX_DIMS : 64], *hp = hops;

    if (ad >= E)
        ad = E;
    if (ad > 64 && !(hp = malloc(sizeof(*hp) * (size_t)ad))) {
        b->err = RTOPO_ERR_NOMEM;
        return 0;
    }
    for (L = 0; L < ln->nlines; L++)
        for (x = 0; x < E; x++) {
            int src = x - disp;

            if (src < 0 || src >= E || ad >= E) {
                rtopo__cb_kern(b, RTOPO__KERN_FILL, rtopo__line_rank(b, ln, L, x), RNONE, out,
                               t0 + (ad >= E ? 0 : (uint32_t)ad), 0);
                continue;
            }
            if (!ad) {
                rtopo__cb_copy(b, rtopo__line_rank(b, ln, L, x), in, out, t0);
                continue;
            }
            for (k = 0; k < ad; k++)
                hp[k] = rtopo__line_hopv(b, ln, L, src + dir * (k + 1), dir);
            rtopo__cb_route(b, rtopo__line_rank(b, ln, L, src), in, hp[ad - 1].to, out,
                            t0 + 1, hp, (uint32_t)ad);
        }
    if (hp != hops)
        free(hp);
    return ad >= E ? 0 : (uint32_t)ad;
}

/* Accumulation (sum 0) or adjacent sum (sum 1) over the mm values ahead:
 * the values travel against the line's direction one hop per step and
 * each position keeps (or combines) what passes; on a line without
 * wraparound the first mm-1 values travel forward to the end as well.
 * in: each position's value; out: block i at out + i (accumulation) or
 * the result; TMP pipe0 .. pipe0+3: values in transit. */
static uint32_t rtopo__line_acc(rtopo__cb_t *b, const rtopo__line_t *ln, int sum, int in,
                                int out, int pipe0, uint32_t t0)
{
    int E = ln->E, mm = b->c->mm, L, x, t, j, i;
    uint32_t steps = 0;

    for (L = 0; L < ln->nlines; L++) {
        for (x = 0; x < E; x++)
            rtopo__cb_copy(b, rtopo__line_rank(b, ln, L, x), in, out, t0);
        /* backward: position x gets the value of x + t in step t */
        for (t = 1; t < mm; t++)
            for (x = 0; x < E; x++) {
                int src = x + 1, at = t0 + (uint32_t)t;
                int sreg = t == 1 ? in : sum ? RTMP(pipe0 + 2 + ((t - 1) & 1)) : out + t - 1;
                int dreg = sum ? RTMP(pipe0 + 2 + (t & 1)) : out + t;

                if (!ln->wrap && x + t > E - 1)
                    continue;
                rtopo__line_hop(b, ln, L, src, sreg, -1, dreg, at);
                if (sum)
                    rtopo__cb_comb(b, rtopo__line_rank(b, ln, L, x), dreg, out, at);
                if ((uint32_t)t > steps)
                    steps = (uint32_t)t;
            }
        if (ln->wrap)
            continue;
        /* forward, without wraparound: value j reaches E - 1 - ... */
        for (j = 0; j + 1 < mm && j < E; j++) {
            int held = in;

            for (t = 1; j + t < E; t++) {
                int c = j + t, cap = c >= j + E - mm + 1, dreg;

                i = j + E - c;                 /* the block it is at c */
                dreg = cap && !sum ? out + i : RTMP(pipe0 + (t & 1));
                rtopo__line_hop(b, ln, L, c - 1, held, 1, dreg, t0 + (uint32_t)t);
                if (cap && sum)
                    rtopo__cb_comb(b, rtopo__line_rank(b, ln, L, c), dreg, out,
                                   t0 + (uint32_t)t);
                held = dreg;
                if ((uint32_t)t > steps)
                    steps = (uint32_t)t;
            }
        }
    }
    return steps;
}

/* Consecutive sum over blocks of mm positions: the paper's tokens.  Token
 * i starts at block position i with the own block i of the input, the
 * first mm-1 head right and the last left; each moves one position a
 * step, turning at the block's ends, and takes in block i of every
 * position it reaches the first time; after 2(mm-1) steps every token is
 * home with its sum.  TMP tok0 + i holds token i wherever it is. */
static uint32_t rtopo__line_consec(rtopo__cb_t *b, const rtopo__line_t *ln, int in, int out,
                                   int tok0, uint32_t t0)
{
    int E = ln->E, mm = b->c->mm, L, blk, i, step;
    uint32_t T = 2 * (uint32_t)(mm - 1);

    for (L = 0; L < ln->nlines; L++)
        for (blk = 0; blk < E; blk += mm)
            for (i = 0; i < mm; i++) {
                int pos = i, dir = i < mm - 1 ? 1 : -1, home = blk + i;
                uint64_t seen = mm <= 64 ? 1ull << i : 0;  /* positions added */
                unsigned char *seenv = NULL;

                if (mm > 64 && !(seenv = calloc((size_t)mm, 1))) {
                    b->err = RTOPO_ERR_NOMEM;
                    return 0;
                }
                if (seenv)
                    seenv[i] = 1;
                if (mm == 1) {
                    rtopo__cb_copy(b, rtopo__line_rank(b, ln, L, home), in, out, t0);
                    continue;
                }
                rtopo__cb_copy(b, rtopo__line_rank(b, ln, L, home), in + i, RTMP(tok0 + i),
                               t0);
                for (step = 1; step <= (int)T; step++) {
                    int nrank, first;

                    if (pos + dir < 0 || pos + dir >= mm)
                        dir = -dir;
                    rtopo__line_hop(b, ln, L, blk + pos, RTMP(tok0 + i), dir, RTMP(tok0 + i),
                                    t0 + (uint32_t)step);
                    pos += dir;
                    nrank = rtopo__line_rank(b, ln, L, blk + pos);
                    first = seenv ? !seenv[pos] : !(seen & (1ull << pos));
                    if (first) {
                        rtopo__cb_comb(b, nrank, in + i, RTMP(tok0 + i), t0 + (uint32_t)step);
                        if (seenv)
                            seenv[pos] = 1;
                        else
                            seen |= 1ull << pos;
                    }
                }
                rtopo__cb_copy(b, rtopo__line_rank(b, ln, L, home), RTMP(tok0 + i), out,
                               t0 + T);
                free(seenv);
            }
    return mm > 1 ? T : 0;
}

/* the line operation of b->c from register bases in to out */
static uint32_t rtopo__line_op(rtopo__cb_t *b, int dim, int in, int out, int tmp0, uint32_t t0)
{
    rtopo__line_t ln;

    rtopo__line_init(b, dim, &ln);
    switch (b->c->op) {
    case RTOPO__COLL_SHIFT_FILL:
        return rtopo__line_fill(b, &ln, in, out, t0);
    case RTOPO__COLL_ACCUMULATE:
        return rtopo__line_acc(b, &ln, 0, in, out, tmp0, t0);
    case RTOPO__COLL_ADJACENT_SUM:
        return rtopo__line_acc(b, &ln, 1, in, out, tmp0, t0);
    default:
        return rtopo__line_consec(b, &ln, in, out, tmp0, t0);
    }
}

static void rtopo__line_prog(rtopo__cb_t *b)
{
    const rtopo__coll_t *c = b->c;
    int nin = c->op == RTOPO__COLL_CONSEC_SUM ? c->mm : 1;
    int nout = c->op == RTOPO__COLL_ACCUMULATE ? c->mm : 1, G, P, i;
    uint32_t L;

    int E = rtopo__cart_extent(b->t, c->dim);
    int still = c->op == RTOPO__COLL_SHIFT_FILL && (!c->disp || c->disp >= E || -c->disp >= E);

    if (!(rtopo__is_om(b) && c->dim < 2) || still) {  /* (still: nothing moves) */
        rtopo__line_op(b, c->dim, RSEND(0), RRECV(0), 0, 0);
        return;
    }
    /* a group dimension: OTIS move, the in-group line, OTIS move */
    for (G = 0; G < b->n; G++)
        for (P = 0; P < b->n; P++)
            for (i = 0; i < nin; i++)
                rtopo__otis_move(b, G, P, RSEND(i), RTMP(i), 1);
    L = rtopo__line_op(b, c->dim + 2, RTMP(0), RTMP(nin), nin + nout, 1);
    for (G = 0; G < b->n; G++)
        for (P = 0; P < b->n; P++)
            for (i = 0; i < nout; i++)
                rtopo__otis_move(b, G, P, RTMP(nin + i), RRECV(i), L + 2);
}

/* ---- selection and routing ---------------------------------------------- *
 * Wang and Sahni route records whose destinations depend on the data over
 * fixed link patterns: every move is made whether a register holds a
 * record or not, and each rank decides locally what to keep and what to
 * pass on.  Here a register is a slot (rtopo_sched.h: a header [lo + 1,
 * hi] and the payload), the deciding is done by ROUTE kernels, and a
 * sweep is the pattern "every rank of every group line passes its
 * transit slot one link on, s - 1 times, both ways at once where the
 * phase needs both": a record moving up a line at most once per step
 * never meets another moving its way, so one transit slot per direction
 * suffices, and a rank holds at most two records (one that stays, one
 * that arrived) in its two H slots.
 *
 * Concentrate (the k-th selected record to rank k = (k / n, k mod n)):
 * ranks by the prefix sum; in each group, rows then columns to position
 * k mod n (right, left, up, down: 4(s-1) SIMD moves); OTIS; rows then
 * columns to position k / n (only up is ever needed: 3(s-1)); OTIS.
 * Distribute runs the same path backwards (OTIS; down the columns, then
 * the rows, to position d / n; OTIS; columns and rows to d mod n).
 * 7(s-1) electronic and 2 OTIS moves (SIMD) per routing, the paper's.
 *
 * Generalize, checked (RTOPO_COLL_AUTO): a distribute whose records cover
 * [d_i, d_(i+1) - 1], the sweeps leaving a copy on every position a
 * record covers; the upper ends come first, by a concentrate-like routing
 * of every d_i to rank i - 1, which lets each sender check the order.
 *
 * Generalize in one routing (RTOPO_COLL_TOPO, the paper's): the
 * distribute's path with open records (rtopo_sched.h: each may belong
 * anywhere from d_i on, and names its sender i).  Each sweep passes on
 * every record that could be wanted further along (the MOVE predicates
 * as they are: an open record reaches to the end of every line), and
 * each rank keeps, of the record it holds and those it sees pass, the
 * one with the largest d_i among those that reach it (BEST).  For
 * senders 0..q with d_0 < ... < d_q this leaves on position P of group
 * g, before the second OTIS move, the record of the last sender i with
 * i mod n = g and d_i / n <= P, and on rank j at the end that of the
 * last one with d_i <= j.  The record T a rank wants survives each
 * half's column sweep on T's column in the rank's row: a record on that
 * column with a later destination comes from a sender at least s places
 * after T among the group's records, so its destination (its position
 * d_i / n in the first half) lies beyond the row; and it gets there, the
 * first half's columns only going down since d_T >= T.  The row sweep
 * then brings it.  Only records that meet are checked against each
 * other, and dest(i) >= i: no rank sees where a range ends, so senders
 * with gaps, or destinations out of order whose records never meet, go
 * unnoticed. */
enum { RT_H = 0, RT_H1, RT_TP, RT_TM, RT_IP, RT_IM, RT_S, RT_X, RT_NREG };
#define RTA(b, r) ((b)->tbase + (uint64_t)(r) * (b)->M)
#define RT_T RTOPO__BUF_TMP

static void rtopo__rt_kern(rtopo__cb_t *b, int rank, int op, unsigned flags, int sbuf,
                           uint64_t soff, uint64_t slen, int dbuf, uint64_t doff,
                           uint64_t dlen, int64_t arg, uint32_t step)
{
    rtopo__kern_t *k;

    if (b->err)
        return;
    b->k = rtopo__grow(b->k, &b->ck, b->nk + 1, sizeof(*b->k), &b->err);
    if (b->err)
        return;
    k = &b->k[b->nk++];
    memset(k, 0, sizeof(*k));
    k->rank = rank;
    k->type = op ? RTOPO__KERN_ROUTE : RTOPO__KERN_FILL;
    k->dtype = RTOPO_INT64;
    k->op = (uint8_t)op;
    k->flags = (uint8_t)flags;
    k->step = b->base + step;
    k->src_buf = (uint8_t)sbuf;
    k->src_off = soff;
    k->slen = slen;
    k->dst_buf = (uint8_t)dbuf;
    k->dst_off = doff;
    k->len = dlen;
    k->rec = (uint32_t)b->M;
    k->arg = arg;
}

/* an empty slot (op 0: a zero FILL) */
static void rtopo__rt_clear(rtopo__cb_t *b, int rank, int reg, uint32_t step)
{
    rtopo__rt_kern(b, rank, 0, 0, RT_T, 0, 0, RT_T, RTA(b, reg), b->M, 0, step);
}

static void rtopo__rt_copy(rtopo__cb_t *b, int rank, int sbuf, uint64_t soff, int dbuf,
                           uint64_t doff, uint64_t len, uint32_t step)
{
    rtopo__xfer_t *x;

    if (b->err)
        return;
    b->x = rtopo__grow(b->x, &b->cx, b->nx + 1, sizeof(*b->x), &b->err);
    if (b->err)
        return;
    x = &b->x[b->nx++];
    memset(x, 0, sizeof(*x));
    x->src = x->dst = rank;
    x->src_buf = (uint8_t)sbuf;
    x->dst_buf = (uint8_t)dbuf;
    x->src_off = soff;
    x->dst_off = doff;
    x->len = len;
    x->hop0 = b->nh;
    x->step = b->base + step;
}

/* One sweep over every line along `link` of every group: the split in
 * step t0, then s - 1 steps of passing on (dirs: 1 up the line, 2 down,
 * 3 both); a record that arrives stays where it belongs (b->best: where
 * it is the best of those that reach the rank).  Returns its last step. */
static uint32_t rtopo__rt_sweep(rtopo__cb_t *b, int link, int xf, int view, int dirs,
                                uint32_t t0)
{
    int n = b->n, s = b->s, G, f, pos, k;
    int keep = b->best ? RTOPO__RT_BEST : RTOPO__RT_MOVE;
    unsigned fl = (unsigned)(xf << 2 | view << 4);
    uint64_t M = b->M;

    for (G = 0; G < n; G++)
        for (f = 0; f < s; f++)
            for (pos = 0; pos < s; pos++) {
                int r = rtopo__gl_rank(b, G, link, f, pos);
                int64_t arg = pos | (int64_t)f << 16 | (int64_t)G << 32 | (int64_t)s << 48;

                if (dirs & 1)
                    rtopo__rt_kern(b, r, RTOPO__RT_MOVE, fl | RTOPO__RT_PLUS |
                                   RTOPO__RT_CLEAR, RT_T, RTA(b, RT_H), 2 * M, RT_T,
                                   RTA(b, RT_TP), M, arg, t0);
                if (dirs & 2)
                    rtopo__rt_kern(b, r, RTOPO__RT_MOVE, fl | RTOPO__RT_MINUS |
                                   RTOPO__RT_CLEAR, RT_T, RTA(b, RT_H), 2 * M, RT_T,
                                   RTA(b, RT_TM), M, arg, t0);
                rtopo__rt_kern(b, r, RTOPO__RT_PRUNE, fl | (unsigned)dirs, RT_T, 0, 0, RT_T,
                               RTA(b, RT_H), 2 * M, arg, t0);
                for (k = 1; k < s; k++) {
                    uint32_t t = t0 + (uint32_t)k;

                    /* a record up the line is at most k - 1 past its start */
                    if ((dirs & 1) && pos >= k - 1 && pos <= s - 2)
                        rtopo__gl_hop(b, G, link, f, pos, RTMP(RT_TP), pos + 1, RTMP(RT_IP),
                                      t);
                    if ((dirs & 1) && pos >= k) {
                        rtopo__rt_kern(b, r, keep, fl | RTOPO__RT_KEEP, RT_T,
                                       RTA(b, RT_IP), M, RT_T, RTA(b, RT_H), 2 * M, arg, t);
                        rtopo__rt_kern(b, r, RTOPO__RT_MOVE, fl | RTOPO__RT_PLUS |
                                       RTOPO__RT_CLEAR, RT_T, RTA(b, RT_IP), M, RT_T,
                                       RTA(b, RT_TP), M, arg, t);
                    }
                    if ((dirs & 2) && pos >= 1 && pos <= s - k)
                        rtopo__gl_hop(b, G, link, f, pos, RTMP(RT_TM), pos - 1, RTMP(RT_IM),
                                      t);
                    if ((dirs & 2) && pos <= s - 1 - k) {
                        rtopo__rt_kern(b, r, keep, fl | RTOPO__RT_KEEP, RT_T,
                                       RTA(b, RT_IM), M, RT_T, RTA(b, RT_H), 2 * M, arg, t);
                        rtopo__rt_kern(b, r, RTOPO__RT_MOVE, fl | RTOPO__RT_MINUS |
                                       RTOPO__RT_CLEAR, RT_T, RTA(b, RT_IM), M, RT_T,
                                       RTA(b, RT_TM), M, arg, t);
                    }
                }
            }
    return t0 + (uint32_t)(s > 1 ? s - 1 : 0);
}

/* every rank's record (at most one) to its OTIS partner: packed in step
 * t, moved in t + 1; returns t + 1 */
static uint32_t rtopo__rt_otis(rtopo__cb_t *b, uint32_t t)
{
    int n = b->n, G, P;

    for (G = 0; G < n; G++)
        for (P = 0; P < n; P++)
            rtopo__rt_kern(b, G * n + P, RTOPO__RT_PACK, 0, RT_T, RTA(b, RT_H), 2 * b->M,
                           RT_T, RTA(b, RT_S), b->M, 0, t);
    for (G = 0; G < n; G++)
        for (P = 0; P < n; P++) {
            rtopo__otis_move(b, G, P, RTMP(RT_S), RTMP(RT_H), t + 1);
            rtopo__rt_clear(b, G * n + P, RT_H1, t + 1);
        }
    return t + 1;
}

/* OTIS-hypercube: one exchange across bit c of the records' places, on
 * cube dimension c mod d of every group of 2^d (the records' places are
 * the ranks' own for c < d, their OTIS partners' for c >= d): the split
 * in step t (what belongs across, by the view, into TP; PRUNE keeps what
 * belongs here), the move and the keeping in t + 1.  Returns t + 1. */
static uint32_t rtopo__rt_cube(rtopo__cb_t *b, int d, int c, int view, uint32_t t)
{
    int n = b->n, j = c % d, G, P, r;
    unsigned fl = (unsigned)(RTOPO__RT_XCUBE << 2 | view << 4);
    uint64_t M = b->M;

    for (G = 0; G < n; G++)
        for (P = 0; P < n; P++) {
            /* me: this rank's side of the line, bit c of the place A */
            int64_t me = (P >> j) & 1, A = c >= d ? P * n + G : G * n + P;
            int64_t arg = me | (int64_t)c << 16 | A << 32;

            r = G * n + P;
            rtopo__rt_kern(b, r, RTOPO__RT_MOVE, fl | RTOPO__RT_CLEAR |
                           (me ? RTOPO__RT_MINUS : RTOPO__RT_PLUS), RT_T, RTA(b, RT_H), 2 * M,
                           RT_T, RTA(b, RT_TP), M, arg, t);
            rtopo__rt_kern(b, r, RTOPO__RT_PRUNE, fl | 3, RT_T, 0, 0, RT_T, RTA(b, RT_H),
                           2 * M, arg, t);
            rtopo__cb_move(b, r ^ (1 << j), RTMP(RT_TP), r, RTMP(RT_IP), t + 1,
                           RTOPO__LINK_CUBE, j, 0);
            rtopo__rt_kern(b, r, RTOPO__RT_MOVE, fl | RTOPO__RT_KEEP, RT_T, RTA(b, RT_IP), M,
                           RT_T, RTA(b, RT_H), 2 * M, arg, t + 1);
        }
    return t + 1;
}

/* OTIS-hypercube: the index bits from the lowest (conc) or the highest
 * (dist), those of P in the groups, those of G between two OTIS moves:
 * 2d electronic and 2 OTIS moves for groups of 2^d */
static uint32_t rtopo__rt_cube_route(rtopo__cb_t *b, int conc, uint32_t t)
{
    int d = 0, c;

    while ((1 << d) < b->n)
        d++;
    if (conc) {
        for (c = 0; c < d; c++)
            t = rtopo__rt_cube(b, d, c, RTOPO__RT_VBIT, t);
        t = rtopo__rt_otis(b, t);
        for (c = d; c < 2 * d; c++)
            t = rtopo__rt_cube(b, d, c, RTOPO__RT_VBIT, t);
        return rtopo__rt_otis(b, t);
    }
    t = rtopo__rt_otis(b, t);
    for (c = 2 * d - 1; c >= d; c--)
        t = rtopo__rt_cube(b, d, c, RTOPO__RT_VHALF, t);
    t = rtopo__rt_otis(b, t);
    for (c = d - 1; c >= 0; c--)
        t = rtopo__rt_cube(b, d, c, RTOPO__RT_VHALF, t);
    return t;
}

/* to position lo mod n in the group, OTIS, to position lo / n, OTIS */
static uint32_t rtopo__rt_conc(rtopo__cb_t *b, uint32_t t)
{
    if (!rtopo__is_om(b))
        return rtopo__rt_cube_route(b, 1, t);
    t = rtopo__rt_sweep(b, RTOPO__LINK_ROW, RTOPO__RT_XMOD, RTOPO__RT_VCOLPT, 3, t);
    t = rtopo__rt_sweep(b, RTOPO__LINK_COL, RTOPO__RT_XMOD, RTOPO__RT_VROWS, 3, t);
    t = rtopo__rt_otis(b, t);
    t = rtopo__rt_sweep(b, RTOPO__LINK_ROW, RTOPO__RT_XDIV, RTOPO__RT_VCOLPT, 3, t);
    t = rtopo__rt_sweep(b, RTOPO__LINK_COL, RTOPO__RT_XDIV, RTOPO__RT_VROWS, 2, t);
    return rtopo__rt_otis(b, t);
}

/* OTIS, to (the positions of) [lo, hi] / n, OTIS, to [lo, hi] in the group */
static uint32_t rtopo__rt_dist(rtopo__cb_t *b, uint32_t t)
{
    if (!rtopo__is_om(b))
        return rtopo__rt_cube_route(b, 0, t);
    t = rtopo__rt_otis(b, t);
    t = rtopo__rt_sweep(b, RTOPO__LINK_COL, RTOPO__RT_XDIV, RTOPO__RT_VROWS, 1, t);
    t = rtopo__rt_sweep(b, RTOPO__LINK_ROW, RTOPO__RT_XDIV, RTOPO__RT_VINROW, 3, t);
    t = rtopo__rt_otis(b, t);
    t = rtopo__rt_sweep(b, RTOPO__LINK_COL, RTOPO__RT_XGRP, RTOPO__RT_VROWS, 3, t);
    return rtopo__rt_sweep(b, RTOPO__LINK_ROW, RTOPO__RT_XGRP, RTOPO__RT_VINROW, 3, t);
}

/* the routing program (one piece: slots of b->M bytes) */
static void rtopo__rt_prog(rtopo__cb_t *b)
{
    const rtopo__coll_t *c = b->c;
    int p = b->t->p, r;
    uint64_t M = b->M, R = c->esize;
    uint32_t t = 0;

    b->ntmp = RT_NREG;
    for (r = 0; r < p; r++) {
        rtopo__rt_clear(b, r, RT_H1, 0);
        switch (c->op) {
        case RTOPO__COLL_CONCENTRATE:
            rtopo__rt_copy(b, r, RTOPO__BUF_SEND, 0, RT_T, RTA(b, RT_H) + RTOPO__RT_HDR, R,
                           0);
            rtopo__rt_kern(b, r, RTOPO__RT_HCONC, 0, RT_T, RTOPO__ROUTE_AUX, 16, RT_T,
                           RTA(b, RT_H), RTOPO__RT_HDR, 0, 0);
            break;
        case RTOPO__COLL_DISTRIBUTE:
            if (!rtopo__is_om(b) || c->algo != RTOPO_COLL_TOPO)
                goto prev;              /* checked, below */
            rtopo__rt_copy(b, r, RTOPO__BUF_SEND, 0, RT_T, RTA(b, RT_H) + RTOPO__RT_HDR, R,
                           0);
            rtopo__rt_kern(b, r, RTOPO__RT_HDIST, 0, RT_T, 0, 8, RT_T, RTA(b, RT_H),
                           RTOPO__RT_HDR, p, 0);
            break;
        case RTOPO__COLL_GENERALIZE:
            if (b->best) {
                rtopo__rt_copy(b, r, RTOPO__BUF_SEND, 0, RT_T, RTA(b, RT_H) + RTOPO__RT_HDR,
                               R, 0);
                rtopo__rt_kern(b, r, RTOPO__RT_HOPEN, 0, RT_T, 0, 8, RT_T, RTA(b, RT_H),
                               RTOPO__RT_HDR, r | (int64_t)p << 32, 0);
                break;
            }
            /* fall through */
        default:
        prev:
            rtopo__rt_kern(b, r, RTOPO__RT_HPREV, 0, RT_T, 0, 8, RT_T, RTA(b, RT_H), M, r,
                           0);
        }
    }
    if (c->op == RTOPO__COLL_CONCENTRATE) {
        t = rtopo__rt_conc(b, t);
    } else if ((c->op == RTOPO__COLL_DISTRIBUTE && rtopo__is_om(b) &&
                c->algo == RTOPO_COLL_TOPO) || b->best) {
        t = rtopo__rt_dist(b, t);
    } else {
        /* each rank learns the next destination, builds its record
         * covering [d_i, d_(i+1) - 1], then distributes it; a checked
         * distribute (RTOPO_COLL_AUTO, and the OTIS-hypercube's) checks
         * that d_i < d_(i+1) and that no sender is missing, its record
         * staying [d_i, d_i]: one routing alone may deliver destinations
         * out of order */
        t = rtopo__rt_conc(b, t) + 1;
        for (r = 0; r < p; r++) {
            rtopo__rt_copy(b, r, RTOPO__BUF_SEND, 0, RT_T, RTA(b, RT_X) + RTOPO__RT_HDR, R,
                           t);
            rtopo__rt_kern(b, r, RTOPO__RT_HDIST, 0, RT_T, 0, 8, RT_T, RTA(b, RT_X),
                           RTOPO__RT_HDR, p, t);
            rtopo__rt_kern(b, r, RTOPO__RT_HGEN, c->op == RTOPO__COLL_DISTRIBUTE, RT_T,
                           RTA(b, RT_H), 2 * M, RT_T, RTA(b, RT_X), RTOPO__RT_HDR, p, t);
            rtopo__rt_copy(b, r, RT_T, RTA(b, RT_X), RT_T, RTA(b, RT_H), M, t + 1);
            rtopo__rt_clear(b, r, RT_H1, t + 1);
        }
        t = rtopo__rt_dist(b, t + 1);
    }
    for (r = 0; r < p; r++) {
        rtopo__rt_kern(b, r, RTOPO__RT_UNPACK, 0, RT_T, RTA(b, RT_H), 2 * M,
                       RTOPO__BUF_RECV, 0, R, r, t);
        rtopo__rt_kern(b, r, RTOPO__RT_GOT, 0, RT_T, RTA(b, RT_H), 2 * M, RT_T, 8,
                       sizeof(int32_t), 0, t);
    }
}

static uint32_t rtopo__sched_last_step(const rtopo__sched_t *s)
{
    uint32_t i, m = s->nsteps ? s->nsteps - 1 : 0;

    for (i = 0; i < s->nxfers; i++)
        if (!s->xfers[i].nhops && s->xfers[i].step > m)
            m = s->xfers[i].step;
    for (i = 0; i < s->nkerns; i++)
        if (s->kerns[i].step > m)
            m = s->kerns[i].step;
    return m;
}

/* ---- phases: one operation's schedule inside another's TMP ------------- */

/* Every range of s moves: SEND to TMP + soff, RECV to TMP + roff, TMP by
 * toff; every step by `delay`; TMP becomes one size for all ranks,
 * covering every range; the edges are inferred again. */
static int rtopo__phase_rebase(rtopo__sched_t *s, uint64_t soff, uint64_t roff,
                               uint64_t toff, uint32_t delay)
{
    uint64_t top = 0;
    uint32_t i;
    int j;

    for (i = 0; i < s->nxfers + s->nkerns; i++) {
        uint8_t *bf[2];
        uint64_t *of[2], len[2];

        if (i < s->nxfers) {
            rtopo__xfer_t *x = &s->xfers[i];

            bf[0] = &x->src_buf, of[0] = &x->src_off, bf[1] = &x->dst_buf, of[1] = &x->dst_off;
            len[0] = len[1] = x->len;
            if (!x->nhops)
                x->step += delay;
        } else {
            rtopo__kern_t *k = &s->kerns[i - s->nxfers];

            bf[0] = &k->src_buf, of[0] = &k->src_off, bf[1] = &k->dst_buf, of[1] = &k->dst_off;
            rtopo__kern_src(k, &len[0]);
            len[1] = k->len;
            k->step += delay;
        }
        for (j = 0; j < 2; j++) {
            *of[j] += *bf[j] == RTOPO__BUF_SEND ? soff : *bf[j] == RTOPO__BUF_RECV ? roff : toff;
            *bf[j] = RTOPO__BUF_TMP;
            if (*of[j] + len[j] > top)
                top = *of[j] + len[j];
        }
    }
    for (i = 0; i < s->nhops; i++)
        s->hops[i].step += delay;
    if (s->nhops)
        s->nsteps += delay;
    free(s->tmp_rank);
    s->tmp_rank = NULL;
    if (s->tmp_bytes + toff > top)
        top = s->tmp_bytes + toff;
    s->tmp_bytes = top;
    s->ndeps = 0;
    return rtopo__sched_deps_infer(s, 0);
}

static uint32_t rtopo__sched_last_step(const rtopo__sched_t *s);

/* b after a, into *out_p (a and b freed): b's steps start after every
 * node of a, local ones included */
static int rtopo__phase_then(rtopo__sched_t *a, rtopo__sched_t *b, rtopo__sched_t **out_p)
{
    uint32_t last = rtopo__sched_last_step(a) + 1, i;

    if (last > a->nsteps) {
        uint32_t d = last - a->nsteps;

        for (i = 0; i < b->nhops; i++)
            b->hops[i].step += d;
        for (i = 0; i < b->nxfers; i++)
            if (!b->xfers[i].nhops)
                b->xfers[i].step += d;
        for (i = 0; i < b->nkerns; i++)
            b->kerns[i].step += d;
        if (b->nhops)
            b->nsteps += d;
    }
    return rtopo__sched_concat(a, b, 0, out_p);
}

/* The ranks: the int32 flag at (sbuf, soff) becomes f (int64 0/1) at
 * TMP[16], the prefix sum of f the inclusive count at TMP[24]; the scan
 * keeps its own TMP from 32.  One step before the scan normalises f. */
static int rtopo__rt_ranks(const rtopo__tdesc_t *t, int algo, const rtopo__model_t *model,
                           int sbuf, uint64_t soff, rtopo__sched_t **s_p)
{
    rtopo__coll_t sc = { .op = RTOPO__COLL_SCAN, .algo = algo, .dtype = RTOPO_INT64,
                         .rop = RTOPO_SUM, .count = 1, .esize = 8, .chunks = 1 };
    rtopo__sched_t *s = NULL;
    uint32_t k0;
    int st, r;

    if ((st = rtopo__sched_coll(t, &sc, model, &s)) ||
        (st = rtopo__phase_rebase(s, 16, 24, 32, 1)))
        goto fail;
    if ((st = rtopo__sched_add_kerns(s, (uint32_t)t->p, &k0)))
        goto fail;
    for (r = 0; r < t->p; r++) {
        rtopo__kern_t *k = &s->kerns[k0 + (uint32_t)r];

        memset(k, 0, sizeof(*k));
        k->rank = r;
        k->type = RTOPO__KERN_ROUTE;
        k->op = RTOPO__RT_NORM;
        k->dtype = RTOPO_INT64;
        k->rec = RTOPO__RT_HDR;
        k->src_buf = (uint8_t)sbuf;
        k->src_off = soff;
        k->slen = sizeof(int32_t);
        k->dst_buf = RTOPO__BUF_TMP;
        k->dst_off = 16;
        k->len = 8;
    }
    s->ndeps = 0;
    if ((st = rtopo__sched_deps_infer(s, 0)))
        goto fail;
    *s_p = s;
    return RTOPO_OK;
fail:
    rtopo__sched_free(s);
    return st;
}

/* A builder of a routing phase: slots of M bytes in TMP from tbase. */
static void rtopo__rt_init(rtopo__cb_t *b, const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           uint64_t M, uint64_t tbase)
{
    memset(b, 0, sizeof(*b));
    b->t = t;
    b->c = c;
    b->n = t->n;
    for (b->s = 1; b->s * b->s < t->n; b->s++)
        ;
    b->M = M;
    b->len = M;
    b->tbase = tbase;
    b->ntmp = RT_NREG;
}

/* the builder's nodes as a schedule (edges not inferred yet); frees them */
static int rtopo__rt_done(rtopo__cb_t *b, rtopo__sched_t **s_p)
{
    rtopo__sched_t *s = NULL;
    int st = b->err;

    if (!st && !(st = rtopo__sched_alloc(b->t, b->nx, b->nh, &s))) {
        if (b->nx)
            memcpy(s->xfers, b->x, sizeof(*b->x) * b->nx);
        if (b->nh)
            memcpy(s->hops, b->h, sizeof(*b->h) * b->nh);
        if (!(st = rtopo__sched_add_kerns(s, b->nk, NULL)) && b->nk)
            memcpy(s->kerns, b->k, sizeof(*b->k) * b->nk);
        s->algo = RTOPO_COLL_TOPO;
        s->nsteps = b->nh ? b->maxstep + 1 : 0;
        s->tmp_bytes = b->tbase + (uint64_t)b->ntmp * b->M;
    }
    if (st == RTOPO_ERR_NOMEM)
        st = rtopo__error(st, "%s: out of memory building the schedule",
                          rtopo__coll_name(b->c->op));
    free(b->x);
    free(b->h);
    free(b->k);
    if (st) {
        rtopo__sched_free(s);
        return st;
    }
    *s_p = s;
    return RTOPO_OK;
}

/* Random access write, the paper's five steps: the tuples (destination,
 * record) sorted by destination (equal ones in rank order); a tuple
 * whose successor has the same destination steps back (the last writer
 * wins); the others are ranked, concentrated, and distributed to their
 * destinations.  TMP: the aux bytes, the ranks' phase, F (the key, then
 * the flag), the tuples T0 (unsorted) and T1 (sorted), the sort's TMP,
 * the routing slots. */
static int rtopo__sched_raw(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                            const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    rtopo__coll_t sc = { .op = RTOPO__COLL_SORT, .algo = RTOPO_COLL_AUTO,
                         .dtype = RTOPO_INT64, .count = 1, .chunks = 1 };
    rtopo__sched_t *rk = NULL, *so = NULL, *b1 = NULL, *b2 = NULL, *x = NULL;
    uint64_t R = c->esize, TR = 8 + ((R + 7) & ~(uint64_t)7), F, T0, T1, ST, BB;
    uint32_t i, k0, tt;
    rtopo__cb_t b;
    int st, r, p = t->p;

    sc.esize = TR;
    /* the ranks of the tuples that stay, from the flag at F (set below) */
    if ((st = rtopo__rt_ranks(t, RTOPO_COLL_TOPO, model, RTOPO__BUF_TMP, 0, &rk)))
        return st;
    F = (rk->tmp_bytes + 15) & ~(uint64_t)15;
    T0 = F + 8;
    T1 = T0 + TR;
    ST = T1 + TR;
    for (i = 0; i < rk->nkerns; i++)
        if (rk->kerns[i].type == RTOPO__KERN_ROUTE && rk->kerns[i].op == RTOPO__RT_NORM)
            rk->kerns[i].src_off = F;
    rk->ndeps = 0;
    if ((st = rtopo__sched_deps_infer(rk, 0)))
        goto out;
    /* 1: the tuples, sorted by destination */
    if ((st = rtopo__sched_coll(t, &sc, model, &so)) ||
        (st = rtopo__phase_rebase(so, T0, T1, ST, 1)) ||
        (st = rtopo__sched_add_kerns(so, (uint32_t)p, &k0)))
        goto out;
    BB = (so->tmp_bytes + 7) & ~(uint64_t)7;
    for (r = 0; r < p; r++) {
        rtopo__kern_t *k = &so->kerns[k0 + (uint32_t)r];

        memset(k, 0, sizeof(*k));
        k->rank = r;
        k->type = RTOPO__KERN_ROUTE;
        k->op = RTOPO__RT_KEYOF;
        k->dtype = RTOPO_INT64;
        k->rec = RTOPO__RT_HDR;
        k->src_buf = k->dst_buf = RTOPO__BUF_TMP;
        k->slen = k->len = 8;
        k->dst_off = T0;
        k->arg = p;
    }
    {
        rtopo__sched_t *cp = NULL;

        rtopo__rt_init(&b, t, c, RTOPO__RT_HDR + 8, BB);
        for (r = 0; r < p; r++)
            rtopo__rt_copy(&b, r, RTOPO__BUF_SEND, 0, RT_T, T0 + 8, R, 0);
        if ((st = rtopo__rt_done(&b, &cp)))
            goto out;
        /* the record copies join the sort's first step (before it) */
        if ((st = rtopo__sched_concat(cp, so, 0, &x)))
            goto out;
        so = x;
        x = NULL;
    }
    /* 2: each tuple learns its successor's destination (routed to the
     * rank before it, as the generalize learns its end), and F becomes
     * the flag of the tuples that stay */
    rtopo__rt_init(&b, t, c, RTOPO__RT_HDR + 8, BB);
    for (r = 0; r < p; r++) {
        rtopo__rt_clear(&b, r, RT_H1, 0);
        rtopo__rt_kern(&b, r, RTOPO__RT_HPREV, 0, RT_T, T1, 8, RT_T, RTA(&b, RT_H), b.M, r,
                       0);
    }
    tt = rtopo__rt_conc(&b, 0);
    for (r = 0; r < p; r++) {
        rtopo__rt_copy(&b, r, RT_T, T1, RT_T, F, 8, tt);
        rtopo__rt_kern(&b, r, RTOPO__RT_DEDUP, 0, RT_T, RTA(&b, RT_H), 2 * b.M, RT_T, F, 8, 0,
                       tt);
    }
    if ((st = rtopo__rt_done(&b, &b1)))
        goto out;
    /* 3, 4, 5: ranked (rk), concentrated, distributed by destination */
    rtopo__rt_init(&b, t, c, RTOPO__RT_HDR + TR, BB);
    for (r = 0; r < p; r++) {
        rtopo__rt_copy(&b, r, RT_T, T1, RT_T, RTA(&b, RT_H) + RTOPO__RT_HDR, TR, 0);
        rtopo__rt_kern(&b, r, RTOPO__RT_HCONC, 0, RT_T, RTOPO__ROUTE_AUX, 16, RT_T,
                       RTA(&b, RT_H), RTOPO__RT_HDR, 0, 0);
        rtopo__rt_clear(&b, r, RT_H1, 0);
    }
    tt = rtopo__rt_conc(&b, 0);
    for (r = 0; r < p; r++)
        rtopo__rt_kern(&b, r, RTOPO__RT_REHDR, 0, RT_T, 0, 0, RT_T, RTA(&b, RT_H), 2 * b.M, 0,
                       tt);
    tt = rtopo__rt_dist(&b, tt);
    for (r = 0; r < p; r++) {
        rtopo__rt_kern(&b, r, RTOPO__RT_UNPACK, 0, RT_T, RTA(&b, RT_H), 2 * b.M,
                       RTOPO__BUF_RECV, 0, R, r, tt);
        if (!b.err)
            b.k[b.nk - 1].urec = 8;
        rtopo__rt_kern(&b, r, RTOPO__RT_GOT, 0, RT_T, RTA(&b, RT_H), 2 * b.M, RT_T, 8,
                       sizeof(int32_t), 0, tt);
    }
    if ((st = rtopo__rt_done(&b, &b2)))
        goto out;
    if ((st = rtopo__phase_then(so, b1, &x)))
        goto gone;
    if ((st = rtopo__phase_then(x, rk, &so)))
        goto gone2;
    if ((st = rtopo__phase_then(so, b2, s_p)))
        goto gone3;
    (*s_p)->algo = RTOPO_COLL_TOPO;
    return RTOPO_OK;
gone:
    so = b1 = NULL;
    goto out;
gone2:
    x = rk = NULL;
    goto out;
gone3:
    so = b2 = NULL;
out:
    rtopo__sched_free(rk);
    rtopo__sched_free(so);
    rtopo__sched_free(b1);
    rtopo__sched_free(b2);
    rtopo__sched_free(x);
    return st;
}

static void rtopo__rt_kernu(rtopo__cb_t *b, int rank, int op, int sbuf, uint64_t soff,
                            uint64_t slen, uint64_t doff, uint64_t dlen, int64_t arg,
                            uint32_t urec, uint32_t step)
{
    rtopo__rt_kern(b, rank, op, 0, sbuf, soff, slen, RT_T, doff, dlen, arg, step);
    if (!b->err)
        b->k[b->nk - 1].urec = urec;
}

/* A sort of one record of esize bytes per rank from TMP + in to TMP + out,
 * its own TMP from TMP + st, one step late (step 0 is the caller's). */
static int rtopo__phase_sort(const rtopo__tdesc_t *t, const rtopo__model_t *model,
                             uint64_t esize, uint64_t in, uint64_t out, uint64_t st,
                             rtopo__sched_t **s_p)
{
    rtopo__coll_t sc = { .op = RTOPO__COLL_SORT, .algo = RTOPO_COLL_AUTO,
                         .dtype = RTOPO_INT64, .count = 1, .esize = esize, .chunks = 1 };
    int rc = rtopo__sched_coll(t, &sc, model, s_p);

    if (!rc && (rc = rtopo__phase_rebase(*s_p, in, out, st, 1))) {
        rtopo__sched_free(*s_p);
        *s_p = NULL;
    }
    return rc;
}

/* Append kernels to s (edges inferred again by the caller's next step):
 * one per rank, k[r] made by fill(r) */
static int rtopo__phase_kerns(rtopo__sched_t *s, int p, uint32_t *k0)
{
    int st = rtopo__sched_add_kerns(s, (uint32_t)p, k0);

    if (!st)
        memset(&s->kerns[*k0], 0, sizeof(s->kerns[0]) * (size_t)p);
    return st;
}

/* Random access read, after the paper: the requests (source, reader)
 * sorted by source; the first request of each source stays (its
 * predecessor's source routed to it), is ranked, concentrated,
 * distributed to its source, loaded with the data there, concentrated
 * back, and generalized over the positions of its source's requests;
 * each position pairs its reader with the data, and a sort by reader
 * delivers.  TMP: aux, the ranks' phase, F, the requests T0 / T1,
 * the answers F2 / T3, the sorts' TMP, the routing slots. */
static int rtopo__sched_rar(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                            const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    rtopo__sched_t *rk = NULL, *s1 = NULL, *s2 = NULL, *b1 = NULL, *b2 = NULL, *x = NULL;
    uint64_t R = c->esize, R8 = (R + 7) & ~(uint64_t)7, F, T0, T1, F2, T3, ST, BB;
    uint64_t M2 = RTOPO__RT_HDR + 32 + R8;
    uint32_t i, k0, tt;
    rtopo__cb_t b;
    int st, r, p = t->p;

    if ((st = rtopo__rt_ranks(t, RTOPO_COLL_TOPO, model, RTOPO__BUF_TMP, 0, &rk)))
        return st;
    F = (rk->tmp_bytes + 15) & ~(uint64_t)15;
    T0 = F + 8;
    T1 = T0 + 16;
    F2 = T1 + 16;
    T3 = F2 + 16 + R8;
    ST = T3 + 16 + R8;
    for (i = 0; i < rk->nkerns; i++)
        if (rk->kerns[i].type == RTOPO__KERN_ROUTE && rk->kerns[i].op == RTOPO__RT_NORM)
            rk->kerns[i].src_off = F;
    rk->ndeps = 0;
    if ((st = rtopo__sched_deps_infer(rk, 0)) ||
        (st = rtopo__phase_sort(t, model, 16, T0, T1, ST, &s1)) ||
        (st = rtopo__phase_sort(t, model, 16 + R8, F2, T3, ST, &s2)))
        goto out;
    BB = s1->tmp_bytes > s2->tmp_bytes ? s1->tmp_bytes : s2->tmp_bytes;
    BB = (BB + 7) & ~(uint64_t)7;
    /* 1: the requests (source or INT64_MAX, reader), sorted by source */
    if ((st = rtopo__phase_kerns(s1, 2 * p, &k0)))
        goto out;
    for (r = 0; r < p; r++) {
        rtopo__kern_t *k = &s1->kerns[k0 + 2 * (uint32_t)r];

        k->rank = r;
        k->type = RTOPO__KERN_ROUTE;
        k->op = RTOPO__RT_KEYOF;
        k->dtype = RTOPO_INT64;
        k->rec = RTOPO__RT_HDR;
        k->src_buf = k->dst_buf = RTOPO__BUF_TMP;
        k->slen = k->len = 8;
        k->dst_off = T0;
        k->arg = p;
        k[1].rank = r;
        k[1].type = RTOPO__KERN_FILL;
        k[1].dtype = RTOPO_INT64;
        k[1].dst_buf = RTOPO__BUF_TMP;
        k[1].dst_off = T0 + 8;
        k[1].len = 8;
        k[1].arg = r;
    }
    /* 2: the first request of each source stays: F = its flag */
    rtopo__rt_init(&b, t, c, RTOPO__RT_HDR + 8, BB);
    for (r = 0; r < p; r++) {
        rtopo__rt_clear(&b, r, RT_H1, 0);
        rtopo__rt_kernu(&b, r, RTOPO__RT_HNEXT, RT_T, T1, 8, RTA(&b, RT_H), b.M, r,
                        (uint32_t)p, 0);
    }
    tt = rtopo__rt_dist(&b, 0);
    for (r = 0; r < p; r++) {
        rtopo__rt_copy(&b, r, RT_T, T1, RT_T, F, 8, tt);
        rtopo__rt_kern(&b, r, RTOPO__RT_DEDUP, 0, RT_T, RTA(&b, RT_H), 2 * b.M, RT_T, F, 8, 0,
                       tt);
    }
    if ((st = rtopo__rt_done(&b, &b1)))
        goto out;
    /* 3..8 (ranks: rk) */
    rtopo__rt_init(&b, t, c, M2, BB);
    for (r = 0; r < p; r++) {
        rtopo__rt_copy(&b, r, RT_T, T1, RT_T, RTA(&b, RT_H) + RTOPO__RT_HDR, 16, 0);
        rtopo__rt_kern(&b, r, RTOPO__RT_HCONC, 0, RT_T, RTOPO__ROUTE_AUX, 16, RT_T,
                       RTA(&b, RT_H), RTOPO__RT_HDR, 0, 0);
        rtopo__rt_clear(&b, r, RT_H1, 0);
        rtopo__rt_kernu(&b, r, RTOPO__RT_STASH, RT_T, 0, 0, RTA(&b, RT_H), 2 * M2, r, 16, 0);
    }
    tt = rtopo__rt_conc(&b, 0);                         /* 4: concentrate */
    for (r = 0; r < p; r++) {
        rtopo__rt_kernu(&b, r, RTOPO__RT_STASH, RT_T, 0, 0, RTA(&b, RT_H), 2 * M2, r, 24, tt);
        rtopo__rt_kernu(&b, r, RTOPO__RT_REHDR, RT_T, 0, 0, RTA(&b, RT_H), 2 * M2, 0, 0, tt);
    }
    tt = rtopo__rt_dist(&b, tt);                        /* 5: to the source */
    for (r = 0; r < p; r++) {                           /* 6: load */
        rtopo__rt_kernu(&b, r, RTOPO__RT_LOAD, RTOPO__BUF_SEND, 0, R, RTA(&b, RT_H), 2 * M2,
                        0, 32, tt);
        rtopo__rt_kernu(&b, r, RTOPO__RT_REHDR, RT_T, 0, 0, RTA(&b, RT_H), 2 * M2, 0, 24, tt);
    }
    tt = rtopo__rt_conc(&b, tt);                        /* 7: back */
    /* 8: generalize over the positions [J, next J - 1] */
    for (r = 0; r < p; r++) {
        rtopo__rt_kern(&b, r, RTOPO__RT_PACK, 0, RT_T, RTA(&b, RT_H), 2 * M2, RT_T,
                       RTA(&b, RT_X), M2, 0, tt);
        rtopo__rt_kernu(&b, r, RTOPO__RT_FIELD, RT_T, RTA(&b, RT_X), M2, F, 8, 0, 16, tt);
        rtopo__rt_kern(&b, r, RTOPO__RT_HPREV, 0, RT_T, F, 8, RT_T, RTA(&b, RT_H), M2, r, tt);
        rtopo__rt_clear(&b, r, RT_H1, tt);
    }
    tt = rtopo__rt_conc(&b, tt);
    for (r = 0; r < p; r++) {
        rtopo__rt_kernu(&b, r, RTOPO__RT_REHDR, RT_T, 0, 0, RTA(&b, RT_X), M2, 0, 16, tt);
        rtopo__rt_kern(&b, r, RTOPO__RT_HGEN, 0, RT_T, RTA(&b, RT_H), 2 * M2, RT_T,
                       RTA(&b, RT_X), RTOPO__RT_HDR, p, tt);
        rtopo__rt_copy(&b, r, RT_T, RTA(&b, RT_X), RT_T, RTA(&b, RT_H), M2, tt + 1);
        rtopo__rt_clear(&b, r, RT_H1, tt + 1);
    }
    tt = rtopo__rt_dist(&b, tt + 1);
    for (r = 0; r < p; r++) {                           /* the answers */
        rtopo__rt_copy(&b, r, RT_T, T1 + 8, RT_T, F2, 8, tt);
        rtopo__rt_copy(&b, r, RT_T, T1, RT_T, F2 + 8, 8, tt);
        rtopo__rt_kernu(&b, r, RTOPO__RT_JOIN, RT_T, RTA(&b, RT_H), 2 * M2, F2, 16 + R8, 0,
                        32, tt);
    }
    if ((st = rtopo__rt_done(&b, &b2)))
        goto out;
    /* 9: sorted by reader; each reader takes its answer */
    tt = rtopo__sched_last_step(s2);
    if ((st = rtopo__phase_kerns(s2, 2 * p, &k0)))
        goto out;
    for (r = 0; r < p; r++) {
        rtopo__kern_t *k = &s2->kerns[k0 + 2 * (uint32_t)r];

        k->rank = k[1].rank = r;
        k->type = k[1].type = RTOPO__KERN_ROUTE;
        k->dtype = k[1].dtype = RTOPO_INT64;
        k->rec = k[1].rec = RTOPO__RT_HDR;
        k->step = k[1].step = tt;
        k->op = RTOPO__RT_TAKE;
        k->src_buf = RTOPO__BUF_TMP;
        k->src_off = T3;
        k->slen = 16 + R8;
        k->dst_buf = RTOPO__BUF_RECV;
        k->len = R;
        k[1].op = RTOPO__RT_NORM;
        k[1].src_buf = k[1].dst_buf = RTOPO__BUF_TMP;
        k[1].src_off = T3 + 8;
        k[1].slen = 4;
        k[1].dst_off = 8;
        k[1].len = 8;
    }
    if ((st = rtopo__phase_then(s1, b1, &x)))
        goto gone1;
    if ((st = rtopo__phase_then(x, rk, &s1)))
        goto gone2;
    if ((st = rtopo__phase_then(s1, b2, &x)))
        goto gone3;
    if ((st = rtopo__phase_then(x, s2, s_p)))
        goto gone4;
    (*s_p)->algo = RTOPO_COLL_TOPO;
    return RTOPO_OK;
gone1:
    s1 = b1 = NULL;
    goto out;
gone2:
    x = rk = NULL;
    goto out;
gone3:
    s1 = b2 = NULL;
    goto out;
gone4:
    x = s2 = NULL;
out:
    rtopo__sched_free(rk);
    rtopo__sched_free(s1);
    rtopo__sched_free(s2);
    rtopo__sched_free(b1);
    rtopo__sched_free(b2);
    rtopo__sched_free(x);
    return st;
}

static int rtopo__sched_route(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                              const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    rtopo__sched_t *rk = NULL, *rt = NULL;
    rtopo__cb_t b;
    uint32_t k0, last;
    int st, r;

    memset(&b, 0, sizeof(b));
    if (c->op == RTOPO__COLL_RANDOM_WRITE)
        return rtopo__sched_raw(t, c, model, s_p);
    if (c->op == RTOPO__COLL_RANDOM_READ)
        return rtopo__sched_rar(t, c, model, s_p);
    if (c->op == RTOPO__COLL_SELECT_RANK) {
        if ((st = rtopo__rt_ranks(t, c->algo, model, RTOPO__BUF_SEND, 0, &rk)))
            return st;
        last = rtopo__sched_last_step(rk);
        if ((st = rtopo__sched_add_kerns(rk, (uint32_t)t->p, &k0)))
            goto out;
        for (r = 0; r < t->p; r++) {
            rtopo__kern_t *k = &rk->kerns[k0 + (uint32_t)r];

            memset(k, 0, sizeof(*k));
            k->rank = r;
            k->type = RTOPO__KERN_ROUTE;
            k->op = RTOPO__RT_XRANK;
            k->dtype = RTOPO_INT64;
            k->rec = RTOPO__RT_HDR;
            k->step = last;
            k->src_buf = RTOPO__BUF_TMP;
            k->src_off = 16;
            k->slen = 16;
            k->dst_buf = RTOPO__BUF_RECV;
            k->len = 8;
        }
        rk->ndeps = 0;
        if ((st = rtopo__sched_deps_infer(rk, 0)))
            goto out;
        *s_p = rk;
        return RTOPO_OK;
    }
    b.t = t;
    b.c = c;
    b.n = t->n;
    for (b.s = 1; b.s * b.s < t->n; b.s++)
        ;
    b.M = RTOPO__RT_HDR + ((c->esize + 7) & ~(uint64_t)7);
    if (b.M < RTOPO__RT_HDR + 8)
        b.M = RTOPO__RT_HDR + 8;
    b.len = b.M;
    b.tbase = RTOPO__ROUTE_AUX;
    b.best = c->op == RTOPO__COLL_GENERALIZE && c->algo == RTOPO_COLL_TOPO &&
             t->kind == RTOPO__TOPO_OTIS_MESH;
    if (c->op == RTOPO__COLL_CONCENTRATE) {
        if ((st = rtopo__rt_ranks(t, RTOPO_COLL_TOPO, model, RTOPO__BUF_TMP, 0, &rk)))
            return st;
        b.tbase = (rk->tmp_bytes + 7) & ~(uint64_t)7;
    }
    rtopo__rt_prog(&b);
    if (b.err) {
        st = rtopo__error(b.err, "%s: out of memory building the schedule",
                          rtopo__coll_name(c->op));
        goto out;
    }
    if ((st = rtopo__sched_alloc(t, b.nx, b.nh, &rt)))
        goto out;
    if (b.nx)
        memcpy(rt->xfers, b.x, sizeof(*b.x) * b.nx);
    if (b.nh)
        memcpy(rt->hops, b.h, sizeof(*b.h) * b.nh);
    if ((st = rtopo__sched_add_kerns(rt, b.nk, NULL)))
        goto out;
    memcpy(rt->kerns, b.k, sizeof(*b.k) * b.nk);
    /* the distribute and the generalize have two algorithms on the
     * OTIS-mesh: AUTO names the checked one */
    rt->algo = (c->op == RTOPO__COLL_GENERALIZE || c->op == RTOPO__COLL_DISTRIBUTE) &&
               c->algo != RTOPO_COLL_TOPO && rtopo__is_om(&b) ? RTOPO_COLL_AUTO :
               RTOPO_COLL_TOPO;
    rt->nsteps = b.nh ? b.maxstep + 1 : 0;
    rt->tmp_bytes = b.tbase + (uint64_t)RT_NREG * b.M;
    if (rk) {
        st = rtopo__phase_then(rk, rt, s_p);
        rk = rt = NULL;
        if (!st)
            (*s_p)->algo = RTOPO_COLL_TOPO;
        goto out;
    }
    if ((st = rtopo__sched_deps_infer(rt, 0)))
        goto out;
    *s_p = rt;
    rt = NULL;
out:
    rtopo__sched_free(rk);
    rtopo__sched_free(rt);
    free(b.x);
    free(b.h);
    free(b.k);
    return st;
}

/* ---- BPC permutations ---------------------------------------------------- */

int rtopo__bpc_dest(const rtopo__coll_t *c, int r)
{
    int i, d = 0;

    for (i = 0; i < c->bpc_bits; i++)
        d |= (((r >> i) & 1) ^ (int)((c->bpc_neg >> i) & 1)) << c->bpc_to[i];
    return d;
}

int rtopo__bpc_parse(const char *vec, int k, rtopo__coll_t *c)
{
    static const char *const names[5] = { "identity", "reversal", "shuffle", "unshuffle",
                                          "transpose" };
    int i, n = 0, seen = 0, nm;
    const char *q;
    size_t L;

    if (!vec)
        return rtopo__error(RTOPO_ERR_INVAL, "bpc: the vector is NULL");
    if (k < 0 || k > 30)
        return rtopo__error(RTOPO_ERR_INVAL, "bpc: %d index bits (0..30)", k);
    while (*vec == ' ')
        vec++;
    for (L = strlen(vec); L && vec[L - 1] == ' '; L--)
        ;
    c->bpc_bits = k;
    c->bpc_neg = 0;
    for (nm = 0; nm < 5 && (strlen(names[nm]) != L || strncmp(vec, names[nm], L)); nm++)
        ;
    if (nm == 4 && k % 2)
        return rtopo__error(RTOPO_ERR_INVAL, "bpc: transpose needs an even number of index "
                            "bits, not %d", k);
    if (nm < 5) {
        for (i = 0; i < k; i++)
            c->bpc_to[i] = (int8_t)(nm == 0 ? i : nm == 1 ? k - 1 - i : nm == 2 ? (i + 1) % k :
                                    nm == 3 ? (i + k - 1) % k : (i + k / 2) % k);
        return RTOPO_OK;
    }
    /* "[A_(k-1), ..., A_0]": the first entry is the most significant */
    {
        int open = vec[0] == '[';

        if (open != (L > 0 && vec[L - 1] == ']') || !L ||
            strcspn(vec + open, "[]") < L - 2 * (size_t)open)
            return rtopo__error(RTOPO_ERR_INVAL, "bpc: \"%s\" is not a vector [A_%d, ..., "
                                "A_0] of signed bit numbers, nor identity, transpose, "
                                "reversal, shuffle, unshuffle", vec, k - 1);
        q = vec + open;
    }
    while (*q && *q != ']') {
        int neg = 0, v = 0, digits = 0;

        while (*q == ' ')
            q++;
        if (*q == '-' || *q == '+') {
            neg = *q == '-';
            q++;
        }
        while (*q >= '0' && *q <= '9' && digits < 3) {
            v = v * 10 + (*q++ - '0');
            digits++;
        }
        while (*q == ' ')
            q++;
        if (!digits || (*q && *q != ',' && *q != ']'))
            return rtopo__error(RTOPO_ERR_INVAL, "bpc: \"%s\" is not a vector [A_%d, ..., "
                                "A_0] of signed bit numbers, nor identity, transpose, "
                                "reversal, shuffle, unshuffle", vec, k - 1);
        if (n >= k || v >= k)
            return rtopo__error(RTOPO_ERR_INVAL, "bpc: \"%s\" does not fit %d index bits "
                                "(%d ranks): %s", vec, k, 1 << k,
                                n >= k ? "too many entries" : "an entry names a bit beyond "
                                "the index");
        if (seen & (1 << v))
            return rtopo__error(RTOPO_ERR_INVAL, "bpc: \"%s\" names bit %d twice (the "
                                "entries' magnitudes must be a permutation of 0..%d)", vec,
                                v, k - 1);
        seen |= 1 << v;
        /* entry n is A_(k-1-n) */
        c->bpc_to[k - 1 - n] = (int8_t)v;
        if (neg)
            c->bpc_neg |= 1u << (k - 1 - n);
        n++;
        if (*q == ',') {
            q++;
            while (*q == ' ')
                q++;
            if (!*q || *q == ']')
                return rtopo__error(RTOPO_ERR_INVAL, "bpc: \"%s\" ends with a comma",
                                    vec);
        }
    }
    if (n != k)
        return rtopo__error(RTOPO_ERR_INVAL, "bpc: \"%s\" has %d entries, the %d ranks need "
                            "%d (one per index bit)", vec, n, 1 << k, k);
    return RTOPO_OK;
}

/* hops of the route in a group from position a to b (row then column on
 * the OTIS-mesh, low dimension first on the OTIS-hypercube) */
static uint32_t rtopo__grp_route(const rtopo__cb_t *b, int G, int a, int bb, rtopo__hop_t *h)
{
    uint32_t nh = 0;
    int s = b->s, base = G * b->n;

    if (rtopo__is_om(b)) {
        int ax = a / s, ay = a % s, bx = bb / s, by = bb % s;

        while (ay != by) {
            int dir = by > ay ? 1 : -1;

            ay += dir;
            h[nh++] = (rtopo__hop_t){ .to = base + ax * s + ay, .link = RTOPO__LINK_ROW,
                                      .dir = (int8_t)dir };
        }
        while (ax != bx) {
            int dir = bx > ax ? 1 : -1;

            ax += dir;
            h[nh++] = (rtopo__hop_t){ .to = base + ax * s + ay, .link = RTOPO__LINK_COL,
                                      .dir = (int8_t)dir };
        }
    } else {
        int k;

        for (k = 0; k < s; k++)
            if (((a ^ bb) >> k) & 1) {
                a ^= 1 << k;
                h[nh++] = (rtopo__hop_t){ .to = base + a, .link = RTOPO__LINK_CUBE,
                                          .dim = (uint8_t)k };
            }
    }
    return nh;
}

/* hops of the route from rank r = (G, P) to rank d = (G', P'), the
 * shorter of two on OTIS topologies: in G to P = G', OTIS, in G' to P';
 * or OTIS to (P, G), in P to (P, G'), OTIS to (G', P), in G' to P' (the
 * way a group's coordinates change, two OTIS moves).  One DIRECT hop
 * elsewhere.  *lead_p: idle steps before the first hop, 1 on a route
 * that changes G only from a rank (G, G): its OTIS hops would stay put,
 * and waiting one step keeps its electronic hops in the steps of the
 * other ranks' (a lock step that counts fewer moves) */
static uint32_t rtopo__pair_route(const rtopo__cb_t *b, int r, int d, rtopo__hop_t *h,
                                  uint32_t *lead_p)
{
    int n = b->n, G, P, G2, P2;
    rtopo__hop_t t[4 * 64 + 1];
    uint32_t nh, nt;

    *lead_p = 0;
    /* off the OTIS topologies n is 0: no group coordinates to take */
    if (b->t->kind != RTOPO__TOPO_OTIS_MESH && b->t->kind != RTOPO__TOPO_OTIS_HYPERCUBE) {
        h[0] = (rtopo__hop_t){ .to = d, .link = RTOPO__LINK_DIRECT };
        return 1;
    }
    G = r / n;
    P = r % n;
    G2 = d / n;
    P2 = d % n;
    if (G == G2)
        return rtopo__grp_route(b, G, P, P2, h);
    nh = rtopo__grp_route(b, G, P, G2, h);
    h[nh++] = (rtopo__hop_t){ .to = G2 * n + G, .link = RTOPO__LINK_OTIS };
    nh += rtopo__grp_route(b, G2, G, P2, h + nh);
    if (P == G || P2 == G2) {       /* no electronic hop to save */
        *lead_p = P == G && P2 == P;
        return nh;
    }
    t[0] = (rtopo__hop_t){ .to = P * n + G, .link = RTOPO__LINK_OTIS };
    nt = 1 + rtopo__grp_route(b, P, G, G2, t + 1);
    t[nt++] = (rtopo__hop_t){ .to = G2 * n + P, .link = RTOPO__LINK_OTIS };
    nt += rtopo__grp_route(b, G2, P, P2, t + nt);
    if (nt >= nh)
        return nh;
    memcpy(h, t, sizeof(*t) * nt);
    return nt;
}

/* Phases of a round of routes on an OTIS topology: a route is up to
 * three legs in groups joined by OTIS hops, and a leg moves along one
 * link class after the other (row then column; cube dimensions upward).
 * Phase (leg, class) of every route of the round takes the same steps,
 * as many as its longest route needs: a step then moves along one class
 * only, in at most two directions, where routes of different lengths in
 * lock step mix all four (the SIMD count per step).  Restamps the hops of
 * transfers x0.. from step `first` on; returns the steps the round
 * takes, or 0 (steps left as they were) when its routes are not of that
 * form or the phases would not take fewer SIMD moves. */
#define RTOPO__PH_LEGS 3
#define RTOPO__PH_MAX (RTOPO__PH_LEGS * (64 + 1))

static int rtopo__ph_class(const rtopo__hop_t *h)
{
    if (h->link == RTOPO__LINK_ROW)
        return 0;
    if (h->link == RTOPO__LINK_COL)
        return 1;
    return h->link == RTOPO__LINK_CUBE ? h->dim : -1;
}

/* SIMD moves (as rtopo__sched_moves counts them) of the hops of transfers
 * x0.. in steps first.. first + nsteps - 1, stamped stamp[] or as they are */
static uint32_t rtopo__ph_simd(const rtopo__cb_t *b, uint32_t x0, uint32_t first,
                               uint32_t nsteps, const uint32_t *stamp)
{
    uint64_t *seen = calloc(nsteps ? nsteps : 1, sizeof(*seen) * 2);
    uint32_t x, i, k = 0, n = 0;

    if (!seen)
        return UINT32_MAX;
    for (x = x0; x < b->nx; x++)
        for (i = 0; i < b->x[x].nhops; i++, k++) {
            const rtopo__hop_t *h = &b->h[b->x[x].hop0 + i];
            uint32_t s = (stamp ? stamp[k] : h->step) - first;
            int c = rtopo__ph_class(h), bit;

            if (c < 0 || s >= nsteps)
                continue;
            bit = 2 * c + (h->dir > 0);
            if (!((seen[2 * s + bit / 64] >> (bit % 64)) & 1)) {
                seen[2 * s + bit / 64] |= 1ull << (bit % 64);
                n++;
            }
        }
    free(seen);
    return n;
}

static uint32_t rtopo__ph_align(rtopo__cb_t *b, uint32_t x0, uint32_t first)
{
    int nc = rtopo__is_om(b) ? 2 : b->s;
    uint32_t len[RTOPO__PH_MAX] = { 0 }, start[RTOPO__PH_MAX + 1], x, i, k, nh = 0;
    uint32_t old_end = first, total, *stamp = NULL;

    if (b->err || (b->t->kind != RTOPO__TOPO_OTIS_MESH &&
                   b->t->kind != RTOPO__TOPO_OTIS_HYPERCUBE) || nc > 64)
        return 0;
    /* the longest run of each phase */
    for (x = x0; x < b->nx; x++) {
        uint32_t cnt[RTOPO__PH_MAX] = { 0 };
        int leg = 0, last = -1;

        for (i = 0; i < b->x[x].nhops; i++) {
            const rtopo__hop_t *h = &b->h[b->x[x].hop0 + i];
            int c = rtopo__ph_class(h), ph;

            if (h->step >= old_end)
                old_end = h->step + 1;
            if (h->link == RTOPO__LINK_OTIS) {
                ph = leg * (nc + 1) + nc;
                leg++;
                last = -1;
            } else if (c < last || c < 0) {
                return 0;
            } else {
                ph = leg * (nc + 1) + c;
                last = c;
            }
            if (leg > RTOPO__PH_LEGS || (h->link == RTOPO__LINK_OTIS && leg == RTOPO__PH_LEGS))
                return 0;
            if (++cnt[ph] > len[ph])
                len[ph] = cnt[ph];
        }
        nh += b->x[x].nhops;
    }
    for (k = 0, start[0] = 0; k < RTOPO__PH_MAX; k++)
        start[k + 1] = start[k] + len[k];
    total = start[RTOPO__PH_MAX];
    if (!nh || !(stamp = calloc(nh, sizeof(*stamp))))
        return 0;
    for (x = x0, k = 0; x < b->nx; x++) {
        uint32_t cnt[RTOPO__PH_MAX] = { 0 };
        int leg = 0;

        for (i = 0; i < b->x[x].nhops; i++, k++) {
            const rtopo__hop_t *h = &b->h[b->x[x].hop0 + i];
            int ph = h->link == RTOPO__LINK_OTIS ? leg++ * (nc + 1) + nc
                                                 : leg * (nc + 1) + rtopo__ph_class(h);

            stamp[k] = first + start[ph] + cnt[ph]++;
        }
    }
    if (rtopo__ph_simd(b, x0, first, total > old_end - first ? total : old_end - first,
                       stamp) >=
        rtopo__ph_simd(b, x0, first, total > old_end - first ? total : old_end - first,
                       NULL)) {
        free(stamp);
        return 0;
    }
    for (x = x0, k = 0; x < b->nx; x++)
        for (i = 0; i < b->x[x].nhops; i++, k++)
            b->h[b->x[x].hop0 + i].step = stamp[k];
    free(stamp);
    rtopo__cb_step(b, first + total - 1);
    return total;
}

static void rtopo__bpc_prog(rtopo__cb_t *b)
{
    int p = b->t->p, n = b->n, r;
    int otis = b->t->kind == RTOPO__TOPO_OTIS_MESH ||
               b->t->kind == RTOPO__TOPO_OTIS_HYPERCUBE;
    rtopo__hop_t h[4 * 64 + 1];
    uint32_t A = 0, x0 = b->nx;

    /* lock step: every route's OTIS hop in step A, after the longest
     * first leg in a group (then in phases, when they move fewer) */
    for (r = 0; otis && r < p; r++) {
        int d = rtopo__bpc_dest(b->c, r);
        uint32_t L1 = r / n != d / n ? rtopo__grp_route(b, r / n, r % n, d / n, h) : 0;

        A = L1 > A ? L1 : A;
    }
    for (r = 0; r < p; r++) {
        int d = rtopo__bpc_dest(b->c, r);
        uint32_t nh = 0;

        if (d == r) {
            rtopo__cb_copy(b, r, RSEND(0), RRECV(0), 0);
            continue;
        }
        if (!otis) {
            h[0] = (rtopo__hop_t){ .to = d, .link = RTOPO__LINK_DIRECT };
            nh = 1;
        } else if (r / n == d / n) {
            nh = rtopo__grp_route(b, r / n, r % n, d % n, h);
        } else {
            nh = rtopo__grp_route(b, r / n, r % n, d / n, h);
            h[nh++] = (rtopo__hop_t){ .to = (d / n) * n + r / n, .link = RTOPO__LINK_OTIS };
            nh += rtopo__grp_route(b, d / n, r / n, d % n, h + nh);
        }
        rtopo__cb_route(b, r, RSEND(0), d, RRECV(0), 0, h, nh);
        if (otis && !b->err && b->len && r / n != d / n) {
            uint32_t i, L1, j = b->nh - nh;

            for (L1 = 0; b->h[j + L1].link != RTOPO__LINK_OTIS; L1++)
                ;
            for (i = L1; i < nh; i++)
                b->h[j + i].step = b->base + A + i - L1;
            rtopo__cb_step(b, b->base + A + nh - 1 - L1);
        }
    }
    rtopo__ph_align(b, x0, b->base);
}

/* ---- sort: merge-split, and Leighton's column sort ---------------------- */

static void rtopo__raw_kern(rtopo__cb_t *b, int type, int op, unsigned flags, int rank,
                            int sbuf, uint64_t soff, uint64_t slen, int dbuf, uint64_t doff,
                            uint64_t dlen, uint32_t rec, int64_t arg, uint32_t step)
{
    uint64_t M = b->M;

    b->M = rec;
    rtopo__rt_kern(b, rank, op, flags, sbuf, soff, slen, dbuf, doff, dlen, arg, step);
    b->M = M;
    if (!b->err) {
        b->k[b->nk - 1].type = (uint8_t)type;
        b->k[b->nk - 1].dtype = (uint8_t)b->c->dtype;
        b->k[b->nk - 1].urec = (uint32_t)b->c->esize;
    }
}

/* bytes [soff, +len) of TMP on r to [doff, +len) of dbuf on d, leaving in
 * step t + 1 (or t + 2 after an idle step); returns the steps the route
 * takes */
static uint32_t rtopo__raw_send(rtopo__cb_t *b, int r, int sbuf, uint64_t soff, int d,
                                int dbuf, uint64_t doff, uint64_t len, uint32_t t)
{
    rtopo__hop_t h[4 * 64 + 1];
    uint32_t lead, nh = 0, i;

    if (b->err || !len)
        return 0;
    if (r == d) {
        rtopo__rt_copy(b, r, sbuf, soff, dbuf, doff, len, t + 1);
        return 0;
    }
    nh = rtopo__pair_route(b, r, d, h, &lead);
    b->x = rtopo__grow(b->x, &b->cx, b->nx + 1, sizeof(*b->x), &b->err);
    b->h = rtopo__grow(b->h, &b->ch, b->nh + nh, sizeof(*b->h), &b->err);
    if (b->err)
        return 0;
    memset(&b->x[b->nx], 0, sizeof(b->x[0]));
    b->x[b->nx].src = r;
    b->x[b->nx].dst = d;
    b->x[b->nx].src_buf = (uint8_t)sbuf;
    b->x[b->nx].dst_buf = (uint8_t)dbuf;
    b->x[b->nx].src_off = soff;
    b->x[b->nx].dst_off = doff;
    b->x[b->nx].len = len;
    b->x[b->nx].nhops = nh;
    b->x[b->nx].hop0 = b->nh;
    b->nx++;
    for (i = 0; i < nh; i++) {
        b->h[b->nh] = h[i];
        b->h[b->nh].step = b->base + t + 1 + lead + i;
        b->nh++;
    }
    rtopo__cb_step(b, b->base + t + lead + nh);
    return lead + nh;
}

/* steps of the round of raw_sends that began at step t with transfer x0
 * (Lm: its longest route), in phases where they move fewer */
static uint32_t rtopo__round_len(rtopo__cb_t *b, uint32_t x0, uint32_t t, uint32_t Lm)
{
    uint32_t L = rtopo__ph_align(b, x0, b->base + t + 1);

    return L ? L : Lm;
}

/* Merge-split rounds in every block of m consecutive ranks (nb blocks,
 * in the same steps), kk slots of Q bytes per rank at C of TMP: each rank
 * sorts its slots; then in every round partners swap them into C + kk*Q,
 * each merges the two runs and keeps the lower or the upper half.
 * Bitonic when m is a power of two (d(d+1)/2 rounds), odd-even
 * transposition otherwise (m rounds).  fl[x]: the kernel flags of the
 * blocks of parity x (a descending block sorts in the reverse order). */
static void rtopo__ms_blocks(rtopo__cb_t *b, int m, int nb, uint64_t C, uint64_t kk,
                             uint64_t Q, const unsigned fl[2], uint32_t *t_p)
{
    int d = 0, st, j, rounds, q, r, a;
    int64_t seq = (int64_t)(Q - 8);
    uint32_t t = *t_p, L, Lm;

    if (!kk)
        return;
    while ((1 << d) < m)
        d++;
    for (r = 0; r < m * nb; r++)
        rtopo__raw_kern(b, RTOPO__KERN_SORT, 0, fl[(r / m) & 1], r, RT_T, 0, 0, RT_T, C,
                        kk * Q, (uint32_t)Q, seq, t);
    rounds = (1 << d) == m ? d * (d + 1) / 2 : m;
    for (q = 0; q < rounds; q++) {
        int stage = 0, bit = 0;

        if ((1 << d) == m) {        /* round q: stage, bit */
            for (st = 1, j = q; j >= st; j -= st, st++)
                ;
            stage = st;
            bit = stage - 1 - j;
        }
        for (r = 0, Lm = 0; r < m * nb; r++) {
            a = r % m;
            j = (1 << d) == m ? a ^ (1 << bit) : ((a & 1) == (q & 1) ? a + 1 : a - 1);
            if (j < 0 || j >= m)
                continue;
            L = rtopo__raw_send(b, r, RT_T, C, r - a + j, RT_T, C + kk * Q, kk * Q, t);
            Lm = L > Lm ? L : Lm;
        }
        t += Lm + 1;
        for (r = 0; r < m * nb; r++) {
            /* ascending pairs (in the block's order) keep the lower half
             * on the lower rank */
            int asc, low;

            a = r % m;
            j = (1 << d) == m ? a ^ (1 << bit) : ((a & 1) == (q & 1) ? a + 1 : a - 1);
            if (j < 0 || j >= m)
                continue;
            asc = (1 << d) == m ? stage == d || !((a >> stage) & 1) : 1;
            low = (a < j) == asc;
            rtopo__raw_kern(b, RTOPO__KERN_SORT, 0, fl[(r / m) & 1] | RTOPO__KERN_MERGE, r,
                            RT_T, 0, 0, RT_T, C, 2 * kk * Q, (uint32_t)Q, seq, t);
            if (!low)
                rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_DEAL, 0, r, RT_T,
                                C + kk * Q, kk * Q, RT_T, C, kk * Q, (uint32_t)Q, 1, t);
        }
    }
    *t_p = t;
}

/* Every rank's count records from SEND into kk slots at C0 of TMP (pads
 * after them), numbered in the order of (rank, index), at the current
 * step t */
static void rtopo__sort_pack(rtopo__cb_t *b, uint64_t kk, uint64_t C0, uint32_t t)
{
    int p = b->t->p, r;
    uint64_t k = b->c->count, R = b->c->esize, Q = ((R + 7) & ~(uint64_t)7) + 8;

    for (r = 0; r < p; r++)
        rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_SPACK,
                        b->c->desc ? RTOPO__KERN_DESC : 0, r, RTOPO__BUF_SEND, 0, k * R, RT_T,
                        C0, kk * Q, (uint32_t)Q, (int64_t)((uint64_t)r * k), t);
}

/* The sorted order in p runs of kk slots at C0 of TMP, pads last, to the
 * callers' k records per rank in RECV: rank x's records [x*k, x*k + k)
 * come from the runs they lie in (through C1 when kk > k). */
static void rtopo__sort_unpad(rtopo__cb_t *b, uint64_t kk, uint64_t C0, uint64_t C1,
                              uint32_t t)
{
    int p = b->t->p, j, x;
    uint64_t k = b->c->count, R = b->c->esize, Q = ((R + 7) & ~(uint64_t)7) + 8, lo, hi;
    uint32_t L, Lm, x0;

    if (kk == k) {
        for (j = 0; j < p; j++)
            rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_SUNPACK, 0, j, RT_T, C0, kk * Q,
                            RTOPO__BUF_RECV, 0, k * R, (uint32_t)Q, 0, t);
        return;
    }
    for (j = 0, Lm = 0, x0 = b->nx; j < p; j++)
        for (x = 0; x < p; x++) {
            lo = (uint64_t)x * k > (uint64_t)j * kk ? (uint64_t)x * k : (uint64_t)j * kk;
            hi = (uint64_t)(x + 1) * k < (uint64_t)(j + 1) * kk ? (uint64_t)(x + 1) * k :
                 (uint64_t)(j + 1) * kk;
            if (lo >= hi)
                continue;
            L = rtopo__raw_send(b, j, RT_T, C0 + (lo - (uint64_t)j * kk) * Q, x, RT_T,
                                C1 + (lo - (uint64_t)x * k) * Q, (hi - lo) * Q, t);
            Lm = L > Lm ? L : Lm;
        }
    t += rtopo__round_len(b, x0, t, Lm) + 1;
    for (x = 0; x < p; x++)
        rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_SUNPACK, 0, x, RT_T, C1, k * Q,
                        RTOPO__BUF_RECV, 0, k * R, (uint32_t)Q, 0, t);
}

/* Merge-split sort (the generic algorithm): the ranks as one block.  TMP:
 * two runs of count slots. */
static void rtopo__sort_ms_prog(rtopo__cb_t *b)
{
    const rtopo__coll_t *c = b->c;
    uint64_t k = c->count, Q = ((c->esize + 7) & ~(uint64_t)7) + 8;
    uint32_t t = 0;
    unsigned up = c->desc ? RTOPO__KERN_DESC : 0;
    const unsigned fl[2] = { up | RTOPO__KERN_SEQ, up | RTOPO__KERN_SEQ };

    if (!k)
        return;
    b->ntmp = 0;
    b->tbase = 2 * k * Q;
    rtopo__sort_pack(b, k, 0, t);
    rtopo__ms_blocks(b, b->t->p, 1, 0, k, Q, fl, &t);
    rtopo__sort_unpad(b, k, 0, 0, t);
}

/* Leighton's column sort with the ranks as the columns of a kk x p matrix
 * (rtopo_sort(3)): kk = max(count, 2(p-1)^2) rounded up to a multiple of
 * p, or c->mm; the transforms are all-to-all exchanges of dealt piles.
 * TMP: three columns of slots. */
static void rtopo__sort_prog(rtopo__cb_t *b)
{
    const rtopo__coll_t *c = b->c;
    int p = b->t->p, j, x, rnd;
    uint64_t k = c->count, R = c->esize, Q = ((R + 7) & ~(uint64_t)7) + 8;
    uint64_t kk, per, C0, C1, C2;
    uint32_t t = 0, L, Lm, x0;
    unsigned up = c->desc ? RTOPO__KERN_DESC : 0, seqf = RTOPO__KERN_SEQ;
    int64_t seq = (int64_t)(Q - 8);

    if (!k)
        return;
    kk = (uint64_t)2 * (uint64_t)(p - 1) * (uint64_t)(p - 1);
    kk = c->mm > 0 ? (uint64_t)c->mm : kk > k ? kk : k;
    kk = (kk + (uint64_t)p - 1) / (uint64_t)p * (uint64_t)p;
    per = kk / (uint64_t)p;
    C0 = 0;
    C1 = kk * Q;
    C2 = 2 * kk * Q;
    b->ntmp = 0;
    b->tbase = 3 * kk * Q;       /* TMP bytes (no registers) */
    /* 1: into slots, sort each column */
    rtopo__sort_pack(b, kk, C0, t);
    for (j = 0; j < p; j++) {
        rtopo__raw_kern(b, RTOPO__KERN_SORT, 0, up | seqf, j, RT_T, 0, 0, RT_T, C0, kk * Q,
                        (uint32_t)Q, seq, t);
    }
    if (p > 1) {
        /* 2: transpose (column j's slot i to column i mod p, row
         * j*per + i/p): deal into piles, pile x to column x's block j */
        for (j = 0, Lm = 0, x0 = b->nx; j < p; j++) {
            rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_DEAL, 0, j, RT_T, C0, kk * Q,
                            RT_T, C1, kk * Q, (uint32_t)Q, p, t);
            for (x = 0; x < p; x++) {
                L = rtopo__raw_send(b, j, RT_T, C1 + (uint64_t)x * per * Q, x, RT_T,
                                    C0 + (uint64_t)j * per * Q, per * Q, t);
                Lm = L > Lm ? L : Lm;
            }
        }
        t += rtopo__round_len(b, x0, t, Lm) + 1;
        /* 3: sort; 4: the inverse transform (block x of column j back to
         * column x's pile j, undealt) */
        for (j = 0, Lm = 0, x0 = b->nx; j < p; j++) {
            rtopo__raw_kern(b, RTOPO__KERN_SORT, 0, up | seqf, j, RT_T, 0, 0, RT_T, C0,
                            kk * Q, (uint32_t)Q, seq, t);
            for (x = 0; x < p; x++) {
                L = rtopo__raw_send(b, j, RT_T, C0 + (uint64_t)x * per * Q, x, RT_T,
                                    C1 + (uint64_t)j * per * Q, per * Q, t);
                Lm = L > Lm ? L : Lm;
            }
        }
        t += rtopo__round_len(b, x0, t, Lm) + 1;
        /* 5: sort, alternately ascending and descending */
        for (j = 0; j < p; j++) {
            rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_UNDEAL, 0, j, RT_T, C1, kk * Q,
                            RT_T, C0, kk * Q, (uint32_t)Q, p, t);
            rtopo__raw_kern(b, RTOPO__KERN_SORT, 0, j & 1 ? (up ^ RTOPO__KERN_DESC) | seqf |
                            RTOPO__KERN_SEQDESC : up | seqf, j, RT_T, 0, 0, RT_T, C0, kk * Q,
                            (uint32_t)Q, seq, t);
        }
        /* 6: compare-exchange of neighbouring columns, row by row, pairs
         * (0,1), (2,3), ... then (1,2), (3,4), ...: the right column
         * comes to the left one and goes back */
        for (rnd = 0; rnd < 2; rnd++) {
            for (j = rnd, Lm = 0; j + 1 < p; j += 2) {
                L = rtopo__raw_send(b, j + 1, RT_T, C0, j, RT_T, C2, kk * Q, t);
                Lm = L > Lm ? L : Lm;
            }
            t += Lm + 1;
            for (j = rnd; j + 1 < p; j += 2) {
                rtopo__raw_kern(b, RTOPO__KERN_CMPX, 0, up | seqf, j, RT_T, C0, kk * Q, RT_T,
                                C2, kk * Q, (uint32_t)Q, seq, t);
                rtopo__raw_send(b, j, RT_T, C2, j + 1, RT_T, C0, kk * Q, t);
            }
            t += Lm + 1;
        }
        /* 7: sort */
        for (j = 0; j < p; j++)
            rtopo__raw_kern(b, RTOPO__KERN_SORT, 0, up | seqf, j, RT_T, 0, 0, RT_T, C0,
                            kk * Q, (uint32_t)Q, seq, t);
    }
    rtopo__sort_unpad(b, kk, C0, C1, t);
}

/* Seed 004's sort (2.13): Leighton's column sort with the roles of rows
 * and columns exchanged, on an array of R rows, row j being the S = p/R
 * consecutive ranks j*S .. j*S + S - 1 (on an OTIS-mesh of N groups, R =
 * N^(1/2) rows of N^(3/2) processors, the row index being Gx).  A row of
 * L = S*kk slots (kk per rank) is a column of Leighton's method; L >=
 * 2(R-1)^2 holds for every OTIS-mesh.  The row sorts are merge-split
 * rounds among the row's ranks, all rows at once; the transform of step 2
 * (row j's position i to row i mod R, position j*L/R + i/R) and its
 * inverse are fixed permutations (bit rotations of the record index, i.e.
 * BPC permutations, when R and kk are powers of two), each record on its
 * own route; the compare-exchange of step 6 pairs rank j*S + a with
 * (j+1)*S + a.  The result, row-major, is the rank order.  kk is k
 * rounded up to a divisor of R or to a multiple of R (pads sort last).
 * TMP: three runs of kk slots. */
static int rtopo__sort_nrows(const rtopo__tdesc_t *t)
{
    int R = 1, S;

    if (t->kind != RTOPO__TOPO_OTIS_MESH && t->kind != RTOPO__TOPO_OTIS_HYPERCUBE)
        return 0;
    while ((R + 1) * (R + 1) <= t->n)
        R++;
    if (R * R != t->n)
        return 0;
    S = t->p / R;
    return (S & (S - 1)) == 0 || S <= RTOPO__SORT_ODDEVEN_MAX ? R : 0;
}

static uint64_t rtopo__sort_rows_kk(uint64_t k, int R)
{
    uint64_t kk = k ? k : 1;

    while (kk < (uint64_t)R && R % kk)
        kk++;
    if (kk > (uint64_t)R)
        kk = (kk + (uint64_t)R - 1) / (uint64_t)R * (uint64_t)R;
    return kk;
}

/* where record u of rank r goes in the transform (fwd) or comes from
 * (its inverse) */
static void rtopo__sort_rows_map(int R, int S, uint64_t kk, int r, uint64_t u, int fwd,
                                 int *rank, uint64_t *slot)
{
    uint64_t L = (uint64_t)S * kk, i = (uint64_t)(r % S) * kk + u, j = (uint64_t)(r / S), x, i2;

    if (fwd) {
        x = i % (uint64_t)R;
        i2 = j * (L / (uint64_t)R) + i / (uint64_t)R;
    } else {
        x = i / (L / (uint64_t)R);
        i2 = i % (L / (uint64_t)R) * (uint64_t)R + j;
    }
    *rank = (int)(x * (uint64_t)S + i2 / kk);
    *slot = i2 % kk;
}

static void rtopo__sort_rows_prog(rtopo__cb_t *b, int R)
{
    const rtopo__coll_t *c = b->c;
    int p = b->t->p, S = p / R, r, j, dst, step;
    uint64_t k = c->count, E = c->esize, Q = ((E + 7) & ~(uint64_t)7) + 8;
    uint64_t kk = rtopo__sort_rows_kk(k, R), C0 = 0, C1 = kk * Q, C2 = 2 * kk * Q, u, v;
    uint64_t per = kk / (uint64_t)R, Cd = per ? C0 : C1;
    uint32_t t = 0, L, Lm, x0;
    unsigned up = c->desc ? RTOPO__KERN_DESC : 0, seqf = RTOPO__KERN_SEQ;
    const unsigned asc[2] = { up | seqf, up | seqf };
    const unsigned alt[2] = { up | seqf, (up ^ RTOPO__KERN_DESC) | seqf | RTOPO__KERN_SEQDESC };

    if (!k)
        return;
    b->ntmp = 0;
    b->tbase = 3 * kk * Q;
    /* 1: sort the rows */
    rtopo__sort_pack(b, kk, C0, t);
    rtopo__ms_blocks(b, S, R, C0, kk, Q, asc, &t);
    for (step = 2; step <= 4; step += 2) {
        /* 2: the transform, into Cd; 4: its inverse, back to C0.  Runs
         * of kk/R slots (dealt into R piles) when R divides kk, single
         * slots otherwise */
        int fwd = step == 2;

        for (r = 0, Lm = 0, x0 = b->nx; r < p; r++) {
            if (per && fwd)
                rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_DEAL, 0, r, RT_T, C0, kk * Q,
                                RT_T, C1, kk * Q, (uint32_t)Q, R, t);
            for (u = 0; u < kk; u += per ? per : 1) {
                /* the pile's first slot is its number */
                rtopo__sort_rows_map(R, S, kk, r, per && fwd ? u / per : u, fwd, &dst, &v);
                if (per && fwd)     /* pile u / per */
                    L = rtopo__raw_send(b, r, RT_T, C1 + u / per * per * Q, dst, RT_T,
                                        C0 + v * Q, per * Q, t);
                else if (per)       /* to pile r / S of dst */
                    L = rtopo__raw_send(b, r, RT_T, C0 + u * Q, dst, RT_T,
                                        C1 + (uint64_t)(r / S) * per * Q, per * Q, t);
                else
                    L = rtopo__raw_send(b, r, RT_T, (fwd ? C0 : C1) + u * Q, dst, RT_T,
                                        (fwd ? C1 : C0) + v * Q, Q, t);
                Lm = L > Lm ? L : Lm;
            }
        }
        t += rtopo__round_len(b, x0, t, Lm) + 1;
        if (per && !fwd)
            for (r = 0; r < p; r++)
                rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_UNDEAL, 0, r, RT_T, C1,
                                kk * Q, RT_T, C0, kk * Q, (uint32_t)Q, R, t);
        /* 3: sort the rows; 5: alternately ascending and descending */
        rtopo__ms_blocks(b, S, R, fwd ? Cd : C0, kk, Q, fwd ? asc : alt, &t);
    }
    /* 6: compare-exchange of neighbouring rows, position by position,
     * pairs (0,1), (2,3), ... then (1,2), (3,4), ...: rank (j+1)*S + a
     * comes to j*S + a and goes back */
    for (step = 0; step < 2; step++) {
        for (j = step, Lm = 0; j + 1 < R; j += 2)
            for (r = j * S; r < (j + 1) * S; r++) {
                L = rtopo__raw_send(b, r + S, RT_T, C0, r, RT_T, C2, kk * Q, t);
                Lm = L > Lm ? L : Lm;
            }
        t += Lm + 1;
        for (j = step; j + 1 < R; j += 2)
            for (r = j * S; r < (j + 1) * S; r++) {
                rtopo__raw_kern(b, RTOPO__KERN_CMPX, 0, up | seqf, r, RT_T, C0, kk * Q, RT_T,
                                C2, kk * Q, (uint32_t)Q, (int64_t)(Q - 8), t);
                rtopo__raw_send(b, r, RT_T, C2, r + S, RT_T, C0, kk * Q, t);
            }
        t += Lm + 1;
    }
    /* 7: sort the rows */
    rtopo__ms_blocks(b, S, R, C0, kk, Q, asc, &t);
    rtopo__sort_unpad(b, kk, C0, C1, t);
}

/* ---- building ----------------------------------------------------------- */

/* the generic allreduce and scan for long vectors (reported as GENERIC) */
#define RTOPO__COLL_RSAG 3
#define RTOPO__COLL_CHAIN 4

/* one piece of the program of algorithm `algo` (TOPO, GENERIC or RSAG) */
static void rtopo__coll_prog(rtopo__cb_t *b, int algo)
{
    int otis = b->t->kind == RTOPO__TOPO_OTIS_MESH ||
               b->t->kind == RTOPO__TOPO_OTIS_HYPERCUBE;

    switch (b->c->op) {
    case RTOPO__COLL_BCAST:
        if (otis && algo == RTOPO_COLL_TOPO)
            rtopo__otis_bcast(b);
        else
            rtopo__gen_bcast(b);
        break;
    case RTOPO__COLL_ALLREDUCE:
        if (otis && algo == RTOPO_COLL_TOPO)
            rtopo__otis_allreduce(b);
        else if (algo == RTOPO__COLL_RSAG)
            rtopo__gen_allreduce_rsag(b);
        else
            rtopo__gen_allreduce(b);
        break;
    case RTOPO__COLL_SCAN:
        if (otis && algo == RTOPO_COLL_TOPO) {
            if (rtopo__is_om(b))
                rtopo__om_scan(b);
            else
                rtopo__oh_scan(b);
        } else if (algo == RTOPO__COLL_CHAIN) {
            rtopo__gen_scan_chain(b);
        } else {
            rtopo__gen_scan(b);
        }
        break;
    case RTOPO__COLL_WINDOW_BCAST:
        rtopo__otis_window(b);
        break;
    case RTOPO__COLL_BPC:
        rtopo__bpc_prog(b);
        break;
    case RTOPO__COLL_SORT:
        if (algo == RTOPO_COLL_GENERIC)
            rtopo__sort_ms_prog(b);
        else if (rtopo__sort_nrows(b->t) > 1)
            rtopo__sort_rows_prog(b, rtopo__sort_nrows(b->t));
        else
            rtopo__sort_prog(b);
        break;
    default:
        rtopo__line_prog(b);
    }
}

/* Build with `pieces` pieces (>= 1). */
static int rtopo__coll_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c, int algo,
                             uint32_t pieces, rtopo__sched_t **s_p)
{
    rtopo__cb_t b;
    rtopo__sched_t *s = NULL;
    uint64_t per, done = 0, M = c->count * c->esize;
    uint32_t j;
    int st;

    memset(&b, 0, sizeof(b));
    b.t = t;
    b.c = c;
    b.M = M;
    if (t->kind == RTOPO__TOPO_OTIS_MESH) {
        b.n = t->n;
        for (b.s = 1; b.s * b.s < t->n; b.s++)
            ;
    } else if (t->kind == RTOPO__TOPO_OTIS_HYPERCUBE) {
        b.n = t->n;
        b.s = t->dim;
    }
    if (pieces < 1)
        pieces = 1;
    if (pieces > c->count)
        pieces = c->count ? (uint32_t)c->count : 1;
    per = c->count ? (c->count + pieces - 1) / pieces : 0;
    for (j = 0; j < pieces && !b.err; j++) {
        b.base = j;
        b.off = done * c->esize;
        b.len = (c->count - done < per ? c->count - done : per) * c->esize;
        done += b.len / (c->esize ? c->esize : 1);
        rtopo__coll_prog(&b, algo);
    }
    if (b.err) {
        st = rtopo__error(b.err, "%s: out of memory building the schedule",
                          rtopo__coll_name(c->op));
        goto out;
    }
    if ((st = rtopo__sched_alloc(t, b.nx, b.nh, &s)))
        goto out;
    if (b.nx)
        memcpy(s->xfers, b.x, sizeof(*b.x) * b.nx);
    if (b.nh)
        memcpy(s->hops, b.h, sizeof(*b.h) * b.nh);
    if (b.nk) {
        if ((st = rtopo__sched_add_kerns(s, b.nk, NULL)))
            goto out;
        memcpy(s->kerns, b.k, sizeof(*b.k) * b.nk);
    }
    s->algo = algo;
    s->nsteps = b.nh ? b.maxstep + 1 : 0;
    s->tmp_bytes = b.tbase + (uint64_t)b.ntmp * M;
    if ((st = rtopo__sched_deps_infer(s, 0)))
        goto out;
    *s_p = s;
    s = NULL;
out:
    rtopo__sched_free(s);
    free(b.x);
    free(b.h);
    free(b.k);
    return st;
}

static int rtopo__coll_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c)
{
    const char *name = rtopo__coll_name(c->op);
    int reduce = c->op == RTOPO__COLL_SCAN || c->op == RTOPO__COLL_ALLREDUCE ||
                 c->op == RTOPO__COLL_ADJACENT_SUM || c->op == RTOPO__COLL_CONSEC_SUM;
    int E, s;

    if (t->host)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "%s: not on a topology with a host "
                            "outside the cube", name);
    if (c->op <= 0 || c->op >= RTOPO__COLL_NOPS)
        return rtopo__error(RTOPO_ERR_INVAL, "collective %d is unknown", c->op);
    if (rtopo__coll_is_route(c->op)) {
        if (c->algo < RTOPO_COLL_AUTO || c->algo > RTOPO_COLL_GENERIC)
            return rtopo__error(RTOPO_ERR_INVAL, "%s: algorithm %d is unknown", name,
                                c->algo);
        if (c->op == RTOPO__COLL_SELECT_RANK)
            return RTOPO_OK;
        if (t->kind != RTOPO__TOPO_OTIS_MESH && t->kind != RTOPO__TOPO_OTIS_HYPERCUBE)
            return rtopo__error(RTOPO_ERR_UNSUPPORTED, "%s runs on the OTIS-mesh and the "
                                "OTIS-hypercube only, not on a %s", name,
                                rtopo__topo_name(t->kind));
        if (c->count != 1 || c->esize < 1 || c->esize > ((uint64_t)1 << 30))
            return rtopo__error(RTOPO_ERR_INVAL, "%s: records of %zu bytes (1 byte to "
                                "1 GiB)", name, c->esize);
        if (c->algo == RTOPO_COLL_GENERIC)
            return rtopo__error(RTOPO_ERR_UNSUPPORTED, "%s has no generic algorithm: it "
                                "is the OTIS topologies' own", name);
        return RTOPO_OK;
    }
    if (!c->esize || (reduce && (rtopo__dtype_size(c->dtype) != c->esize ||
                                 c->rop < RTOPO_SUM || c->rop > RTOPO_MAX)))
        return rtopo__error(RTOPO_ERR_INVAL, "%s: datatype %d, operator %d, element size "
                            "%zu", name, c->dtype, c->rop, c->esize);
    if (c->algo < RTOPO_COLL_AUTO || c->algo > RTOPO_COLL_GENERIC)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: algorithm %d is unknown", name, c->algo);
    switch (c->op) {
    case RTOPO__COLL_BCAST:
        if (c->root < 0 || c->root >= t->p)
            return rtopo__error(RTOPO_ERR_INVAL, "bcast: root %d is not a rank of the "
                                "topology (0..%d)", c->root, t->p - 1);
        return RTOPO_OK;
    case RTOPO__COLL_WINDOW_BCAST:
        if (t->kind != RTOPO__TOPO_OTIS_MESH)
            return rtopo__error(RTOPO_ERR_UNSUPPORTED, "window_bcast needs an OTIS-mesh, "
                                "not a %s", rtopo__topo_name(t->kind));
        for (s = 1; s * s < t->n; s++)
            ;
        if (c->root < 0 || c->root >= t->n)
            return rtopo__error(RTOPO_ERR_INVAL, "window_bcast: group %d is not one of "
                                "0..%d", c->root, t->n - 1);
        if (c->w < 1 || s % c->w)
            return rtopo__error(RTOPO_ERR_INVAL, "window_bcast: w=%d does not divide the "
                                "group side %d", c->w, s);
        return RTOPO_OK;
    case RTOPO__COLL_SCAN:
    case RTOPO__COLL_ALLREDUCE:
        return RTOPO_OK;
    case RTOPO__COLL_SORT:
        if (c->dtype < RTOPO_INT32 || c->dtype > RTOPO_DOUBLE ||
            c->esize < rtopo__dtype_size(c->dtype) || c->esize > ((uint64_t)1 << 30))
            return rtopo__error(RTOPO_ERR_INVAL, "sort: records of %zu bytes keyed by "
                                "datatype %d (the key, one of RTOPO_INT32, RTOPO_INT64, "
                                "RTOPO_FLOAT, RTOPO_DOUBLE, at the start of each record)",
                                c->esize, c->dtype);
        if (c->count > ((uint64_t)1 << 40) || (c->mm > 0 && (uint64_t)c->mm < c->count))
            return rtopo__error(RTOPO_ERR_INVAL, "sort: %llu records per rank",
                                (unsigned long long)c->count);
        return RTOPO_OK;
    case RTOPO__COLL_BPC:
        if ((1 << c->bpc_bits) != t->p || c->bpc_bits > 30)
            return rtopo__error(RTOPO_ERR_INVAL, "bpc: a vector of %d bits on %d ranks (a "
                                "BPC permutation needs 2^k ranks and k entries)",
                                c->bpc_bits, t->p);
        for (s = 0, E = 0; s < c->bpc_bits; s++) {
            if (c->bpc_to[s] < 0 || c->bpc_to[s] >= c->bpc_bits || (E >> c->bpc_to[s]) & 1)
                return rtopo__error(RTOPO_ERR_INVAL, "bpc: the destination bits are not a "
                                    "permutation of 0..%d", c->bpc_bits - 1);
            E |= 1 << c->bpc_to[s];
        }
        return RTOPO_OK;
    default:
        break;
    }
    if (c->dim < 0 || c->dim >= rtopo__cart_ndims(t))
        return rtopo__error(RTOPO_ERR_INVAL, "%s: dimension %d is not one of 0..%d of the "
                            "%s", name, c->dim, rtopo__cart_ndims(t) - 1,
                            rtopo__topo_name(t->kind));
    E = rtopo__cart_extent(t, c->dim);
    if (c->op == RTOPO__COLL_SHIFT_FILL)
        return RTOPO_OK;
    if (c->mm < 1 || c->mm > E || (c->op == RTOPO__COLL_CONSEC_SUM && E % c->mm))
        return rtopo__error(RTOPO_ERR_INVAL, "%s: m=%d %s extent %d of dimension %d", name,
                            c->mm, c->op == RTOPO__COLL_CONSEC_SUM ? "does not divide the" :
                            "is not within 1..the", E, c->dim);
    return RTOPO_OK;
}

/* The pieces that minimise (h + P - 1) * (ts + m/P * tw) for a program of
 * h steps, pieces of at least 8 KiB, at most 64. */
static uint32_t rtopo__coll_pieces(const rtopo__sched_t *s, const rtopo__coll_t *c,
                                   const rtopo__model_t *model)
{
    rtopo__model_t def;
    double ts, tw, h = s->nsteps > 1 ? s->nsteps - 1 : 0, best;
    uint64_t m = c->count * c->esize;
    uint32_t P, top = (uint32_t)(m / 8192);

    if (!model) {
        rtopo__model_default(&def);
        model = &def;
    }
    ts = model->ts[RTOPO__LINK_DIRECT];
    tw = model->tw[RTOPO__LINK_DIRECT];
    if (h < 2 || top < 2 || ts <= 0)
        return 1;
    best = sqrt((h - 1) * (double)m * tw / ts);
    P = best < 1 ? 1 : best > 64 ? 64 : (uint32_t)(best + 0.5);
    return P > top ? top : P;
}

static int rtopo__coll_algo1(const rtopo__tdesc_t *t, const rtopo__coll_t *c, int algo,
                             const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    uint32_t P = algo == RTOPO__COLL_RSAG || c->op == RTOPO__COLL_SORT ? 1 : c->chunks;
    int st;

    if (!P) {
        if ((st = rtopo__coll_build(t, c, algo, 1, s_p)))
            return st;
        P = rtopo__coll_pieces(*s_p, c, model);
        if (P <= 1)
            return RTOPO_OK;
        rtopo__sched_free(*s_p);
        *s_p = NULL;
    }
    return rtopo__coll_build(t, c, algo, P, s_p);
}

int rtopo__sched_coll(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                      const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    int st, otis, cand[4], ncand = 0, i;
    rtopo__sched_t *best = NULL, *s = NULL;
    rtopo__sim_result_t r;
    double tbest = 0;

    if (!t || !c || !s_p)
        return rtopo__error(RTOPO_ERR_INVAL, "no topology, collective or output");
    if ((st = rtopo__coll_check(t, c)))
        return st;
    if (rtopo__coll_is_route(c->op))
        return rtopo__sched_route(t, c, model, s_p);
    otis = t->kind == RTOPO__TOPO_OTIS_MESH || t->kind == RTOPO__TOPO_OTIS_HYPERCUBE;
    if (c->op == RTOPO__COLL_SORT) {
        /* the column sort while its pads stay within 4 columns of
         * records, else (and for GENERIC) merge-split; each has a size
         * beyond which its schedule would not fit a rank's memory */
        int R = rtopo__sort_nrows(t);
        uint64_t kk = R > 1 ? rtopo__sort_rows_kk(c->count, R) :
                      2 * (uint64_t)(t->p - 1) * (uint64_t)(t->p - 1);
        uint64_t Q = ((c->esize + 7) & ~(uint64_t)7) + 8;
        int pow2 = (t->p & (t->p - 1)) == 0;
        int col_ok = (kk > c->count ? kk : c->count) * Q * 3 <= ((uint64_t)1 << 31) &&
                     (R > 1 || (uint64_t)t->p * (uint64_t)t->p <= ((uint64_t)1 << 20));
        int ms_ok = pow2 || t->p <= RTOPO__SORT_ODDEVEN_MAX;

        if (c->count && !col_ok && !ms_ok)
            return rtopo__error(RTOPO_ERR_UNSUPPORTED, "sort: %d ranks are too many for "
                                "odd-even merge-split rounds (p rounds; up to %d ranks, or "
                                "a power of two) and %llu records per rank too few for the "
                                "column sort's scratch (each rank pads to 2(p-1)^2)",
                                t->p, RTOPO__SORT_ODDEVEN_MAX,
                                (unsigned long long)c->count);
        if ((c->algo == RTOPO_COLL_TOPO && c->count && !col_ok) ||
            (c->algo == RTOPO_COLL_GENERIC && c->count && !ms_ok))
            return rtopo__error(RTOPO_ERR_UNSUPPORTED, "sort: the %s does not fit %d "
                                "ranks with %llu records each (%s)",
                                c->algo == RTOPO_COLL_TOPO ? "column sort" :
                                "merge-split sort", t->p, (unsigned long long)c->count,
                                c->algo == RTOPO_COLL_TOPO ? "its scratch of three runs "
                                "of slots per rank exceeds 2 GiB" : "p rounds of odd-even "
                                "transposition: use a power of two or the column sort");
        if (c->algo == RTOPO_COLL_TOPO || c->algo == RTOPO_COLL_GENERIC)
            return rtopo__coll_algo1(t, c, c->algo, model, s_p);
        if (!col_ok || (ms_ok && kk > 4 * (c->count ? c->count : 1)))
            return rtopo__coll_algo1(t, c, RTOPO_COLL_GENERIC, model, s_p);
        if (!ms_ok)
            return rtopo__coll_algo1(t, c, RTOPO_COLL_TOPO, model, s_p);
        cand[ncand++] = RTOPO_COLL_TOPO;
        cand[ncand++] = RTOPO_COLL_GENERIC;
        goto choose;
    }
    if (c->op > RTOPO__COLL_ALLREDUCE)          /* one algorithm each */
        return rtopo__coll_algo1(t, c, RTOPO_COLL_TOPO, model, s_p);
    /* the candidates: the OTIS algorithm, the generic ones (two for the
     * allreduce: recursive doubling, and reduce-scatter + allgather) */
    if (otis && c->algo != RTOPO_COLL_GENERIC)
        cand[ncand++] = RTOPO_COLL_TOPO;
    if (!otis || c->algo != RTOPO_COLL_TOPO) {
        cand[ncand++] = RTOPO_COLL_GENERIC;
        if (c->op == RTOPO__COLL_ALLREDUCE && t->p > 2)
            cand[ncand++] = RTOPO__COLL_RSAG;
        if (c->op == RTOPO__COLL_SCAN && t->p > 2)
            cand[ncand++] = RTOPO__COLL_CHAIN;
    }
    if (ncand == 1)
        return rtopo__coll_algo1(t, c, cand[0], model, s_p);
choose:
    for (i = 0; i < ncand; i++) {
        if ((st = rtopo__coll_algo1(t, c, cand[i], model, &s)) ||
            (st = rtopo__sim_run(s, model, &r)))
            goto out;
        if (!best || r.model_time < tbest * (1 - 1e-12)) {
            rtopo__sched_free(best);
            best = s;
            tbest = r.model_time;
        } else {
            rtopo__sched_free(s);
        }
        s = NULL;
    }
    if (best->algo == RTOPO__COLL_RSAG || best->algo == RTOPO__COLL_CHAIN)
        best->algo = RTOPO_COLL_GENERIC;
    *s_p = best;
    best = NULL;
out:
    rtopo__sched_free(s);
    rtopo__sched_free(best);
    return st;
}

/* ---- moves -------------------------------------------------------------- */

static int rtopo__hop_cmp(const void *x, const void *y)
{
    const rtopo__hop_t *a = x, *b = y;

    if (a->step != b->step)
        return a->step < b->step ? -1 : 1;
    if (a->link != b->link)
        return a->link < b->link ? -1 : 1;
    if (a->dim != b->dim)
        return a->dim < b->dim ? -1 : 1;
    return a->dir < b->dir ? -1 : a->dir > b->dir;
}

static int rtopo__link_electronic(int link)
{
    return link == RTOPO__LINK_RING || link == RTOPO__LINK_ROW || link == RTOPO__LINK_COL ||
           link == RTOPO__LINK_CUBE;
}

void rtopo__sched_moves(const rtopo__sched_t *s, rtopo__moves_t *mv)
{
    rtopo__hop_t *h;
    uint32_t i;

    memset(mv, 0, sizeof(*mv));
    if (!s->nhops || !(h = malloc(sizeof(*h) * s->nhops)))
        return;
    memcpy(h, s->hops, sizeof(*h) * s->nhops);
    qsort(h, s->nhops, sizeof(*h), rtopo__hop_cmp);
    for (i = 0; i < s->nhops; i++) {
        int first_of_step = i == 0 || h[i].step != h[i - 1].step;
        int new_group = first_of_step || rtopo__hop_cmp(&h[i], &h[i - 1]) != 0;
        int e = rtopo__link_electronic(h[i].link);
        uint32_t j;
        int seen_e = 0, seen_o = 0, seen_x = 0;

        if (new_group && e)
            mv->electronic_simd++;
        if (!first_of_step)
            continue;
        for (j = i; j < s->nhops && h[j].step == h[i].step; j++) {
            if (rtopo__link_electronic(h[j].link))
                seen_e = 1;
            else if (h[j].link == RTOPO__LINK_OTIS)
                seen_o = 1;
            else
                seen_x = 1;
        }
        mv->electronic += (uint32_t)seen_e;
        mv->otis += (uint32_t)seen_o;
        mv->other += (uint32_t)seen_x;
    }
    free(h);
}
