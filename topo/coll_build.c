/*
 * coll_build.c - the schedule of a collective: the builder every family of
 * algorithms writes into (coll_otis.c, coll_generic.c, coll_line.c,
 * coll_route.c, coll_bpc.c, coll_sort.c), the choice among candidates,
 * pipelining in pieces, and the moves counted from a schedule.  The
 * bottom of the collectives' files: it runs the piece program a family
 * hands it and calls no family, nor the descriptor table (coll_desc.c,
 * which checks a collective's arguments and picks its family's builder).
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
#include "coll_int.h"

/* ---- builder ------------------------------------------------------------ */

void *rtopo__grow(void *p, uint32_t *cap, uint32_t need, size_t esz, int *err)
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
    rtopo__sched_big(q, (size_t)c * esz);
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

void rtopo__cb_step(rtopo__cb_t *b, uint32_t step)
{
    if (step > b->maxstep)
        b->maxstep = step;
}

void rtopo__cb_cut(rtopo__cb_t *b)
{
    if (!b->nx && !b->nh && !b->nk && !b->nxall)
        b->cut = b->c->own;
}

/* rank r is kept under the cut */
static int rtopo__cb_in(const rtopo__cb_t *b, int r)
{
    return b->cutset ? (b->cutset[r >> 3] >> (r & 7)) & 1 : r == b->cut - 1;
}

/* under the cut, a local node (copy or kernel) of a rank other than the
 * share's is left out: 1, and olast covers its (absolute) step */
static int rtopo__cb_drop_local(rtopo__cb_t *b, int rank, uint32_t step)
{
    if (!b->cut || rtopo__cb_in(b, rank))
        return 0;
    if (step + 1 > b->olast)
        b->olast = step + 1;
    return 1;
}

int rtopo__cb_xadd(rtopo__cb_t *b, const rtopo__xfer_t *x)
{
    b->x = rtopo__grow(b->x, &b->cx, b->nx + 1, sizeof(*b->x), &b->err);
    if (b->err)
        return -1;
    if (rtopo__xnode_set(&b->xs, &b->x[b->nx], x)) {
        b->err = RTOPO_ERR_NOMEM;
        return -1;
    }
    b->nx++;
    return 0;
}

/* one more transfer, x; under the cut it takes the next number of all
 * transfers made */
static void rtopo__cb_newx(rtopo__cb_t *b, const rtopo__xfer_t *x)
{
    if (b->cut) {
        b->xid = rtopo__grow(b->xid, &b->cxid, b->nx + 1, sizeof(*b->xid), &b->err);
        if (b->err)
            return;
        b->xid[b->nx] = b->nxall++;
    }
    rtopo__cb_xadd(b, x);
}

/* the last kernel made, written out whole, into k[nk - 1] (its shape
 * interned) */
static void rtopo__cb_kclose(rtopo__cb_t *b)
{
    if (!b->kopen)
        return;
    b->kopen = 0;
    if (b->err)
        return;
    if (rtopo__knode_set(&b->ks, &b->k[b->nk - 1], &b->kst))
        b->err = RTOPO_ERR_NOMEM;
}

/* one more kernel (zeroed but for its rank and step), NULL once out of
 * memory; it may be written until the next is made
 * (rtopo__cb_lastk) */
static rtopo__kern_t *rtopo__cb_newk(rtopo__cb_t *b, int rank, uint32_t step)
{
    rtopo__kern_t *k = &b->kst;

    rtopo__cb_kclose(b);
    if (rtopo__cb_drop_local(b, rank, b->base + step))
        return NULL;
    b->k = rtopo__grow(b->k, &b->ck, b->nk + 1, sizeof(*b->k), &b->err);
    if (b->err)
        return NULL;
    b->nk++;
    b->kopen = 1;
    memset(k, 0, sizeof(*k));
    k->rank = rank;
    k->step = b->base + step;
    return k;
}

rtopo__kern_t *rtopo__cb_lastk(rtopo__cb_t *b)
{
    return &b->kst;
}

/* Transfer of register sreg of `src` to register dreg of `dst` along
 * nh hops (hops[i].to, .link, .dim, .dir), hop i in step step0 + i; no
 * hops: a copy in step step0. */
void rtopo__cb_route(rtopo__cb_t *b, int src, int sreg, int dst, int dreg,
                     uint32_t step0, const rtopo__hop_t *hops, uint32_t nh)
{
    rtopo__xfer_t xw = { 0 }, *x = &xw;
    uint32_t i;

    if (b->err || !b->len)
        return;
    if (b->cut) {
        int touch = rtopo__cb_in(b, src) || rtopo__cb_in(b, dst);

        for (i = 0; i < nh && !touch; i++)
            touch = rtopo__cb_in(b, hops[i].to);
        if (!touch) {                   /* counted and left out */
            rtopo__cb_reg(b, sreg);
            rtopo__cb_reg(b, dreg);
            b->nxall++;
            if (nh) {
                b->hopped = 1;
                rtopo__cb_step(b, b->base + step0 + nh - 1);
            } else
                rtopo__cb_drop_local(b, src, b->base + step0);
            return;
        }
    }
    b->h = rtopo__grow(b->h, &b->ch, b->nh + nh, sizeof(*b->h), &b->err);
    if (b->err)
        return;
    rtopo__cb_reg(b, sreg);
    rtopo__cb_reg(b, dreg);
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
    rtopo__cb_newx(b, x);
    if (b->err)
        return;
    for (i = 0; i < nh; i++) {
        b->h[b->nh] = hops[i];
        b->h[b->nh].step = b->base + step0 + i;
        b->nh++;
    }
    if (nh)
        rtopo__cb_step(b, b->base + step0 + nh - 1);
}

/* one hop (or a copy when from == to) in step `step` */
void rtopo__cb_move(rtopo__cb_t *b, int from, int sreg, int to, int dreg,
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

void rtopo__cb_copy(rtopo__cb_t *b, int rank, int sreg, int dreg, uint32_t step)
{
    if (sreg != dreg)
        rtopo__cb_route(b, rank, sreg, rank, dreg, step, NULL, 0);
}

void rtopo__cb_kern(rtopo__cb_t *b, int type, int rank, int sreg, int dreg,
                    uint32_t step, int64_t arg)
{
    rtopo__kern_t *k;

    if (b->err || !b->len || !(k = rtopo__cb_newk(b, rank, step)))
        return;
    k->type = (uint8_t)type;
    k->dtype = (uint8_t)b->c->dtype;
    k->op = (uint8_t)b->c->rop;
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
void rtopo__cb_comb(rtopo__cb_t *b, int rank, int sreg, int dreg, uint32_t step)
{
    rtopo__cb_kern(b, RTOPO__KERN_COMBINE, rank, sreg, dreg, step, 0);
}

/* dreg = sreg op dreg's current value, into dreg; dreg RNONE-safe: when
 * `have` is 0 the value is just copied */
void rtopo__cb_acc(rtopo__cb_t *b, int rank, int sreg, int dreg, int have,
                   uint32_t step)
{
    if (have)
        rtopo__cb_comb(b, rank, sreg, dreg, step);
    else
        rtopo__cb_copy(b, rank, sreg, dreg, step);
}

/* k: rank r's ROUTE kernel op on whole records, from (sbuf, soff, slen)
 * into (dbuf, doff, len), in step `step` */
void rtopo__rt_set(rtopo__kern_t *k, int r, int op, int sbuf, uint64_t soff, uint64_t slen,
                   int dbuf, uint64_t doff, uint64_t len, uint32_t step)
{
    memset(k, 0, sizeof(*k));
    k->rank = r;
    k->type = RTOPO__KERN_ROUTE;
    k->op = (uint8_t)op;
    k->dtype = RTOPO_INT64;
    k->rec = RTOPO__RT_HDR;
    k->step = step;
    k->src_buf = (uint8_t)sbuf;
    k->src_off = soff;
    k->slen = slen;
    k->dst_buf = (uint8_t)dbuf;
    k->dst_off = doff;
    k->len = len;
}

/* a ROUTE kernel (op; op 0: a zero FILL) on byte ranges of whole
 * records of b->M bytes */
void rtopo__rt_kern(rtopo__cb_t *b, int rank, int op, unsigned flags, int sbuf,
                    uint64_t soff, uint64_t slen, int dbuf, uint64_t doff,
                    uint64_t dlen, int64_t arg, uint32_t step)
{
    rtopo__kern_t *k;

    if (b->err || !(k = rtopo__cb_newk(b, rank, step)))
        return;
    rtopo__rt_set(k, rank, op, sbuf, soff, slen, dbuf, doff, dlen, b->base + step);
    k->type = op ? RTOPO__KERN_ROUTE : RTOPO__KERN_FILL;
    k->flags = (uint8_t)flags;
    k->rec = (uint32_t)b->M;
    k->arg = arg;
}

/* a local copy of len bytes between byte offsets */
void rtopo__rt_copy(rtopo__cb_t *b, int rank, int sbuf, uint64_t soff, int dbuf,
                    uint64_t doff, uint64_t len, uint32_t step)
{
    rtopo__xfer_t xw = { 0 }, *x = &xw;

    if (b->err)
        return;
    if (rtopo__cb_drop_local(b, rank, b->base + step)) {
        b->nxall++;
        return;
    }
    x->src = x->dst = rank;
    x->src_buf = (uint8_t)sbuf;
    x->dst_buf = (uint8_t)dbuf;
    x->src_off = soff;
    x->dst_off = doff;
    x->len = len;
    x->hop0 = b->nh;
    x->step = b->base + step;
    rtopo__cb_newx(b, x);
}

/* ---- a round made whole, then cut ---------------------------------------- */

/* sc: an empty builder of b's shape that keeps every node (no cut), for a
 * round whose steps are restamped once it is made */
void rtopo__cb_round(const rtopo__cb_t *b, rtopo__cb_t *sc)
{
    *sc = *b;
    sc->x = NULL;
    sc->xs = NULL;
    sc->h = NULL;
    sc->k = NULL;
    sc->ks = NULL;
    sc->kopen = 0;
    sc->xid = NULL;
    sc->nx = sc->nh = sc->nk = sc->cx = sc->ch = sc->ck = sc->cxid = 0;
    sc->cut = sc->hopped = 0;
    sc->cutset = NULL;
    sc->nxall = sc->olast = 0;
}

/* transfer x (its hops h, steps as they are) to b, as rtopo__cb_route
 * keeps or leaves it out under the cut */
static void rtopo__cb_put(rtopo__cb_t *b, const rtopo__xfer_t *x, const rtopo__hop_t *h)
{
    rtopo__xfer_t y;
    uint32_t i;

    if (b->cut) {
        int touch = rtopo__cb_in(b, x->src) || rtopo__cb_in(b, x->dst);

        for (i = 0; i < x->nhops && !touch; i++)
            touch = rtopo__cb_in(b, h[i].to);
        if (!touch) {                   /* counted and left out */
            b->nxall++;
            if (x->nhops)
                b->hopped = 1;
            else
                rtopo__cb_drop_local(b, x->src, x->step);
            return;
        }
    }
    b->h = rtopo__grow(b->h, &b->ch, b->nh + x->nhops, sizeof(*b->h), &b->err);
    if (b->err)
        return;
    y = *x;
    y.hop0 = b->nh;
    rtopo__cb_newx(b, &y);
    if (b->err)
        return;
    if (x->nhops)
        memcpy(&b->h[b->nh], h, sizeof(*h) * x->nhops);
    b->nh += x->nhops;
}

/* frees b's node arrays (those not handed over) and empties them */
static void rtopo__cb_drop_arrays(rtopo__cb_t *b)
{
    free(b->x);
    rtopo__xshapes_free(&b->xs);
    free(b->h);
    free(b->k);
    rtopo__kshapes_free(&b->ks);
    b->kopen = 0;
    free(b->xid);
    b->x = NULL;
    b->h = NULL;
    b->k = NULL;
    b->xid = NULL;
    b->nx = b->nh = b->nk = b->cx = b->ch = b->ck = b->cxid = 0;
}

/* sc's nodes to b in their order (what b's cut keeps), its steps and
 * registers taken into b's; frees sc's arrays */
void rtopo__cb_unround(rtopo__cb_t *b, rtopo__cb_t *sc)
{
    uint32_t i;

    rtopo__cb_kclose(sc);
    rtopo__cb_kclose(b);
    if (sc->err && !b->err)
        b->err = sc->err;
    for (i = 0; i < sc->nx && !b->err; i++) {
        rtopo__xfer_t x = rtopo__xnode_xfer(sc->xs, &sc->x[i]);

        rtopo__cb_put(b, &x, sc->h + x.hop0);
    }
    for (i = 0; i < sc->nk && !b->err; i++) {
        rtopo__kern_t k = rtopo__knode_kern(sc->ks, &sc->k[i]);

        if (rtopo__cb_drop_local(b, k.rank, k.step))
            continue;
        b->k = rtopo__grow(b->k, &b->ck, b->nk + 1, sizeof(*b->k), &b->err);
        if (!b->err && rtopo__knode_set(&b->ks, &b->k[b->nk++], &k))
            b->err = RTOPO_ERR_NOMEM;
    }
    rtopo__cb_step(b, sc->maxstep);
    if (sc->ntmp > b->ntmp)
        b->ntmp = sc->ntmp;
    rtopo__cb_drop_arrays(sc);
}

/* p (room for at least n entries of esz bytes) shrunk to n, or p when it
 * cannot be */
static void *rtopo__trim(void *p, size_t n, size_t esz)
{
    void *q = realloc(p, n * esz);

    return q ? q : p;
}

/* The builder's nodes as a schedule of algorithm algo (its edges not
 * inferred yet; TMP: b->tbase and the b->ntmp registers of b->M bytes),
 * into *s_p; frees the builder's arrays, also on failure. */
int rtopo__cb_sched(rtopo__cb_t *b, int algo, rtopo__sched_t **s_p)
{
    rtopo__sched_t *s = NULL;
    int st;

    rtopo__cb_kclose(b);
    if (b->err) {
        st = rtopo__error(b->err, "%s: out of memory building the schedule",
                          rtopo__coll_name(b->c->op));
        goto out;
    }
    if (b->c->own) {
        /* a plan's schedule: the builder's arrays become the schedule's,
         * and only the nodes of its rank stay (no copy of the whole);
         * edges are inferred for it alone */
        if ((st = rtopo__sched_alloc(b->t, 0, 0, &s)))
            goto out;
        s->xfers = b->x;
        s->xshapes = b->xs;
        b->xs = NULL;
        s->hops = b->h;
        s->kerns = b->k;
        s->kshapes = b->ks;
        b->ks = NULL;
        s->nxfers = b->nx;
        s->nhops = b->nh;
        s->nkerns = b->nk;
        b->x = NULL;
        b->h = NULL;
        b->k = NULL;
        s->algo = algo;
        s->nsteps = b->nh || b->hopped ? b->maxstep + 1 : 0;
        s->tmp_bytes = b->tbase + (uint64_t)b->ntmp * b->M;
        if (b->cutset)                  /* the ranks of a path bound */
            goto out;
        if (b->cut) {                   /* already cut as made */
            s->own = b->cut;
            s->nxall = b->nxall;
            s->olast = b->olast;
            s->xid = b->xid;
            b->xid = NULL;
        }
        st = rtopo__sched_own(s, b->c->own - 1);
        goto out;
    }
    /* the whole graph: the builder's arrays become the schedule's too,
     * trimmed to their size (no second copy of the nodes) */
    if ((st = rtopo__sched_alloc(b->t, 0, 0, &s)))
        goto out;
    s->xfers = b->nx ? rtopo__trim(b->x, b->nx, sizeof(*b->x)) : NULL;
    s->hops = b->nh ? rtopo__trim(b->h, b->nh, sizeof(*b->h)) : NULL;
    s->kerns = b->nk ? rtopo__trim(b->k, (size_t)b->nk + 1, sizeof(*b->k)) : NULL;
    if (b->nx) {
        s->xshapes = b->xs;
        b->xs = NULL;
        rtopo__xshapes_done(&s->xshapes);
    }
    if (b->nk) {
        s->kshapes = b->ks;
        b->ks = NULL;
        rtopo__kshapes_done(&s->kshapes);
    }
    if (b->nx)
        b->x = NULL;
    if (b->nh)
        b->h = NULL;
    if (b->nk)
        b->k = NULL;
    s->nxfers = b->nx;
    s->nhops = b->nh;
    s->nkerns = b->nk;
    s->algo = algo;
    s->nsteps = b->nh ? b->maxstep + 1 : 0;
    s->tmp_bytes = b->tbase + (uint64_t)b->ntmp * b->M;
out:
    rtopo__cb_drop_arrays(b);
    if (!st) {
        *s_p = s;
        s = NULL;
    }
    rtopo__sched_free(s);
    return st;
}

/* The largest of: nsteps - 1 (nsteps > 0), the local transfers' and the
 * kernels' steps, and (olast) olast - 1 (olast > 0) into *m_p; 0 when s
 * has none of them (*m_p then 0) */
static int rtopo__sched_last_any(const rtopo__sched_t *s, int olast, uint32_t *m_p)
{
    uint32_t i, m = s->nsteps ? s->nsteps - 1 : 0;
    int any = s->nsteps != 0 || s->nkerns != 0;

    for (i = 0; i < s->nxfers; i++)
        if (!rtopo__sched_xnhops(s, i)) {
            any = 1;
            if (s->xfers[i].step > m)
                m = s->xfers[i].step;
        }
    for (i = 0; i < s->nkerns; i++)
        if (s->kerns[i].step > m)
            m = s->kerns[i].step;
    if (olast && s->olast) {            /* local nodes of other ranks */
        any = 1;
        if (s->olast - 1 > m)
            m = s->olast - 1;
    }
    *m_p = m;
    return any;
}

uint32_t rtopo__sched_last_step(const rtopo__sched_t *s)
{
    uint32_t m;

    rtopo__sched_last_any(s, 1, &m);
    return m;
}

/* ---- phases: one operation's schedule inside another's TMP ------------- */

/* Every range of s moves: SEND to TMP + soff, RECV to TMP + roff, TMP by
 * toff; every step by `delay`; TMP becomes one size for all ranks,
 * covering every range; the edges are inferred again (bare: none, the
 * caller joins the nodes bare and infers the whole's). */
int rtopo__phase_rebase(rtopo__sched_t *s, uint64_t soff, uint64_t roff,
                        uint64_t toff, uint32_t delay, int bare)
{
    uint64_t top = 0;
    uint32_t i, nxs = rtopo__sched_nxshapes(s);
    int j;

    /* each transfer shape once, then each kernel shape once (the
     * nodes' steps and the ranges they use below) */
    for (i = 0; i < nxs + rtopo__sched_nkshapes(s); i++) {
        uint8_t *bf[2];
        uint64_t *of[2];

        if (i < nxs) {
            rtopo__xshape_t *x = &s->xshapes->v[i];

            bf[0] = &x->src_buf, of[0] = &x->src_off, bf[1] = &x->dst_buf, of[1] = &x->dst_off;
        } else {
            rtopo__kshape_t *k = &s->kshapes->v[i - nxs];

            bf[0] = &k->src_buf, of[0] = &k->src_off, bf[1] = &k->dst_buf, of[1] = &k->dst_off;
        }
        for (j = 0; j < 2; j++) {
            *of[j] += *bf[j] == RTOPO__BUF_SEND ? soff : *bf[j] == RTOPO__BUF_RECV ? roff : toff;
            *bf[j] = RTOPO__BUF_TMP;
        }
    }
    rtopo__xshapes_done(&s->xshapes);     /* the shapes moved: a new index */
    rtopo__kshapes_done(&s->kshapes);
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xshape_t *x = rtopo__sched_xshape(s, i);

        if (!x->nhops)
            s->xfers[i].step += delay;
        if (x->src_off + x->len > top)
            top = x->src_off + x->len;
        if (x->dst_off + x->len > top)
            top = x->dst_off + x->len;
    }
    for (i = 0; i < s->nkerns; i++) {
        const rtopo__kshape_t *k = rtopo__sched_kshape(s, i);
        uint64_t slen;

        rtopo__kshape_src(k, &slen);
        s->kerns[i].step += delay;
        if (k->src_off + slen > top)
            top = k->src_off + slen;
        if (k->dst_off + k->len > top)
            top = k->dst_off + k->len;
    }
    for (i = 0; i < s->nhops; i++)
        s->hops[i].step += delay;
    if (s->nsteps)
        s->nsteps += delay;
    if (s->olast)
        s->olast += delay;
    free(s->tmp_rank);
    s->tmp_rank = NULL;
    if (s->tmp_bytes + toff > top)
        top = s->tmp_bytes + toff;
    s->tmp_bytes = top;
    s->ndeps = 0;
    s->inferred = 0;
    return bare ? RTOPO_OK : rtopo__sched_deps_infer(s, 0);
}

/* b after a, into *out_p (a and b freed): b's steps start after every
 * node of a, local ones included; flags as rtopo__sched_concat's */
int rtopo__phase_then(rtopo__sched_t *a, rtopo__sched_t *b, unsigned flags,
                      rtopo__sched_t **out_p)
{
    return rtopo__phase_then_at(a, b, flags, rtopo__sched_last_step(a), out_p, NULL);
}

int rtopo__phase_then_at(rtopo__sched_t *a, rtopo__sched_t *b, unsigned flags,
                         uint32_t alast, rtopo__sched_t **out_p, uint32_t *last_p)
{
    uint32_t last = alast + 1, i, bm = 0, shift = a->nsteps;
    /* b's nodes all move by the same steps (d, then a's nsteps): the
     * whole's last step is a's or b's moved; b's olast goes (a whole
     * graph's join keeps a's) */
    int bany = last_p && rtopo__sched_last_any(b, 0, &bm), st;

    if (last > a->nsteps) {
        uint32_t d = last - a->nsteps;

        for (i = 0; i < b->nhops; i++)
            b->hops[i].step += d;
        for (i = 0; i < b->nxfers; i++)
            if (!rtopo__sched_xnhops(b, i))
                b->xfers[i].step += d;
        for (i = 0; i < b->nkerns; i++)
            b->kerns[i].step += d;
        if (b->nsteps)
            b->nsteps += d;
        if (b->olast)
            b->olast += d;
        bm += d;
    }
    if ((st = rtopo__sched_concat(a, b, flags, out_p)) || !last_p)
        return st;
    *last_p = bany && bm + shift > alast ? bm + shift : alast;
    return RTOPO_OK;
}

/* ---- building ----------------------------------------------------------- */

/* Build with `pieces` pieces (>= 1), prog writing each; set: only the
 * nodes touching those ranks (c->own set, the nodes' own-less schedule:
 * rtopo__coll_path_lb's). */
static int rtopo__coll_build_set(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                                 rtopo__prog_fn *prog, int algo, uint32_t pieces,
                                 const uint8_t *set, rtopo__sched_t **s_p)
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
    b.cutset = set;
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
        prog(&b, algo);
    }
    if ((st = rtopo__cb_sched(&b, algo, &s)) ||
        (!c->bare && (st = rtopo__sched_deps_infer(s, 0)))) {
        rtopo__sched_free(s);
        return st;
    }
    *s_p = s;
    return RTOPO_OK;
}

/* On a machine whose ranks outnumber its processors (a model with lanes
 * above 1, or 1 and tq, calib.c) the pipeline's stages do not run side by
 * side: at most `lanes` of the processors' works run at once, so P pieces
 * take at least (P * A + B) / lanes: A the processors' time a piece costs
 * whatever its size (a start-up per hop), B what the bytes cost, the same
 * however they are cut (their copies, reductions).  The pipeline itself
 * takes h - 1 piece times of its other stages, cs + m/P * cw, to fill and
 * drain, and P of its slowest, ts + m/P * tw ((h + P - 1) piece times
 * where all cost alike): a stage slower than the others (a rate-limited
 * link between hosts) is the pipeline's pace, and cutting finer only
 * shortens the others.  A stage that reduces what it received before it
 * passes it on (a scan's chain) also takes k per byte of its piece (k:
 * the kernel's time per byte times the bytes reduced per byte moved),
 * on the pipeline's path.  The P (1..64, at most top) that minimises the
 * larger of the two times; the fewest pieces on a tie. */
static uint32_t rtopo__coll_pieces_lanes(double h, double m, double ts, double tw, double cs,
                                         double cw, double k, double A, double B, int lanes,
                                         uint32_t top)
{
    uint32_t P, best = 1;
    double tbest = 0;

    for (P = 1; P <= 64 && P <= top; P++) {
        double n = (h - 1) * (cs + m / P * (cw + k)) + P * (ts + m / P * (tw + k)),
               w = (P * A + B) / lanes, t = n > w ? n : w;

        if (P == 1 || t < tbest * (1 - 1e-12)) {
            best = P;
            tbest = t;
        }
    }
    return best;
}

static int rtopo__coll_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                             rtopo__prog_fn *prog, int algo, uint32_t pieces,
                             rtopo__sched_t **s_p)
{
    return rtopo__coll_build_set(t, c, prog, algo, pieces, NULL, s_p);
}

int rtopo__coll_build_ranks(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                            rtopo__prog_fn *prog, int algo, uint32_t pieces,
                            const uint8_t *set, rtopo__sched_t **s_p)
{
    rtopo__coll_t u = *c;

    u.own = 1;                          /* (the cut on; set names the ranks) */
    return rtopo__coll_build_set(t, &u, prog, algo, pieces, set, s_p);
}

double rtopo__coll_path_lb(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           rtopo__prog_fn *prog, int algo, uint32_t pieces,
                           const rtopo__model_t *model, const uint8_t *set)
{
    rtopo__coll_t u = *c;
    rtopo__model_t def;
    rtopo__sched_t *s = NULL;
    uint32_t n, i, j, head = 0, tail = 0, *indeg = NULL, *first = NULL, *adj = NULL;
    uint32_t *q = NULL;
    double *est = NULL, *least = NULL, *sent = NULL, lb = 0.0;

    if (!model) {
        rtopo__model_default(&def);
        model = &def;
    }
    u.own = 1;                          /* (the cut on; set names the ranks) */
    if (rtopo__coll_build_set(t, &u, prog, algo, pieces, set, &s))
        return 0.0;
    n = s->nxfers + s->nkerns;
    indeg = calloc((size_t)n + 1, sizeof(*indeg));
    first = calloc((size_t)n + 2, sizeof(*first));
    adj = malloc(((size_t)s->ndeps + 1) * sizeof(*adj));
    q = malloc(((size_t)n + 1) * sizeof(*q));
    est = calloc((size_t)n + 1, sizeof(*est));
    least = calloc((size_t)n + 1, sizeof(*least));
    sent = calloc((size_t)n + 1, sizeof(*sent));
    if (!indeg || !first || !adj || !q || !est || !least || !sent)
        goto out;
    /* each node's least time once ready, as the simulator's (kernels: 0) */
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
        double ts, tw, path = 0.0;

        if (!x->nhops) {
            least[i] = sent[i] = model->ts[RTOPO__LINK_LOCAL] +
                                 (double)x->len * model->tw[RTOPO__LINK_LOCAL];
            continue;
        }
        for (j = 1; j < x->nhops; j++)
            path += rtopo__model_hop_th(model, s->hops[x->hop0 + j].link,
                                        s->hops[x->hop0 + j - 1].to, s->hops[x->hop0 + j].to,
                                        x->len);
        rtopo__model_hop(model, s->hops[x->hop0].link, x->src, s->hops[x->hop0].to, &ts, &tw);
        sent[i] = ts + (double)x->len * tw;
        j = x->nhops - 1;
        rtopo__model_hop(model, s->hops[x->hop0 + j].link,
                         j ? s->hops[x->hop0 + j - 1].to : x->src, s->hops[x->hop0 + j].to,
                         &ts, &tw);
        path += ts + (double)x->len * tw;
        least[i] = path > sent[i] ? path : sent[i];
    }
    /* the edges on the set's ranks (all of theirs are here) */
    for (i = 0; i < s->ndeps; i++) {
        int r = s->deps[i].rank;

        if ((set[r >> 3] >> (r & 7)) & 1) {
            indeg[s->deps[i].succ]++;
            first[s->deps[i].pred + 2]++;
        }
    }
    for (i = 0; i < n; i++)
        first[i + 2] += first[i + 1];
    for (i = 0; i < s->ndeps; i++) {
        int r = s->deps[i].rank;

        if ((set[r >> 3] >> (r & 7)) & 1)
            adj[first[s->deps[i].pred + 1]++] = i;
    }
    for (i = 0; i < n; i++)
        if (!indeg[i])
            q[tail++] = i;
    while (head < tail) {
        uint32_t v = q[head++];

        lb = est[v] + least[v] > lb ? est[v] + least[v] : lb;
        for (j = first[v]; j < first[v + 1]; j++) {
            const rtopo__dep_t *d = &s->deps[adj[j]];
            double rel = rtopo__sched_part(s, v, d->rank) == RTOPO__PART_SEND ? sent[v]
                                                                              : least[v];

            if (est[v] + rel > est[d->succ])
                est[d->succ] = est[v] + rel;
            if (--indeg[d->succ] == 0)
                q[tail++] = d->succ;
        }
    }
out:
    free(indeg);
    free(first);
    free(adj);
    free(q);
    free(est);
    free(least);
    free(sent);
    rtopo__sched_free(s);
    return lb;
}

/* The pieces that minimise (h + P - 1) * (ts + m/P * tw) for a program of
 * h steps, pieces of at least 8 KiB, at most 64.  ts and tw: the DIRECT
 * class's, or, on a model with a layout over several hosts and reach
 * parameters, the slowest reach's (a collective over every rank crosses
 * hosts, and the pipeline waits for its slowest stage).  They come from
 * the model alone, not from the hops of s, which may be one rank's share
 * of the schedule: every rank must choose alike.
 * On shared lanes the processors' work (rtopo__coll_pieces_lanes) comes
 * from the whole schedule of one piece, the same on every rank (algo's,
 * built when s is a share): each hop costs cs + len * cw, the fastest
 * reach's figures (a processor's copy: where a hop crosses a slower link,
 * a rate-limited one between hosts, the rest is waiting, not work), each
 * kernel tk per byte, each copy within a rank its LOCAL figures; the
 * kernels' bytes over the hops' bytes are what a stage reduces per byte
 * it moves. */
static uint32_t rtopo__coll_pieces(const rtopo__tdesc_t *t, const rtopo__sched_t *s,
                                   const rtopo__coll_t *c, rtopo__prog_fn *prog, int algo,
                                   const rtopo__model_t *model)
{
    rtopo__model_t def;
    double ts, tw, cs, cw, h = s->nsteps > 1 ? s->nsteps - 1 : 0, best;
    uint64_t m = c->count * c->esize;
    uint32_t P, top = (uint32_t)(m / 8192);

    if (!model) {
        rtopo__model_default(&def);
        model = &def;
    }
    ts = model->ts[RTOPO__LINK_DIRECT] + model->tq;
    tw = model->tw[RTOPO__LINK_DIRECT];
    cs = ts;
    cw = tw;
    if (model->layout && (model->reach_set[RTOPO__REACH_INTRA] ||
                          model->reach_set[RTOPO__REACH_INTER])) {
        uint32_t r, i;
        double a, b;
        int got = 0;

        /* one pair of ranks of each reach the layout has */
        for (r = 0; r < RTOPO__REACH_COUNT; r++)
            for (i = 1; i < model->layout->nranks; i++)
                if (rtopo__layout_reach(model->layout, 0, (int32_t)i) == (int)r) {
                    rtopo__model_hop(model, RTOPO__LINK_DIRECT, 0, (int32_t)i, &a, &b);
                    ts = !got || a > ts ? a : ts;
                    tw = !got || b > tw ? b : tw;
                    cs = !got || a < cs ? a : cs;
                    cw = !got || b < cw ? b : cw;
                    got = 1;
                    break;
                }
    }
    if (h < 2 || top < 2 || ts <= 0)
        return 1;
    /* lanes = 1 without tq or tt: one host's memory, not its processors
     * (calib.c; a machine with more ranks than processors has the one or
     * the other) */
    if (model->lanes > 1 || (model->lanes == 1 && (model->tq > 0 || model->tt > 0))) {
        const rtopo__sched_t *w = s;
        rtopo__sched_t *whole = NULL;
        rtopo__coll_t u = *c;
        double A = 0, B = 0, hb = 0, kb = 0;
        uint32_t i;

        u.own = 0;
        if (c->own && rtopo__coll_build(t, &u, prog, algo, 1, &whole) == RTOPO_OK)
            w = whole;
        if (!c->own || whole) {
            for (i = 0; i < w->nxfers; i++) {
                const rtopo__xfer_t xv = rtopo__sched_xfer(w, i), *x = &xv;
                double l = (double)x->len;

                if (x->nhops) {
                    A += x->nhops * cs;
                    B += x->nhops * l * cw;
                    hb += x->nhops * l;
                } else {
                    A += model->ts[RTOPO__LINK_LOCAL];
                    B += l * model->tw[RTOPO__LINK_LOCAL];
                }
            }
            for (i = 0; i < w->nkerns; i++) {
                B += (double)rtopo__sched_kshape(w, i)->len * model->tk;
                kb += (double)rtopo__sched_kshape(w, i)->len;
            }
        } else {        /* no memory: every piece over p - 1 hops at least */
            A = (s->topo.p - 1) * cs;
            B = (s->topo.p - 1) * (double)m * cw;
        }
        rtopo__sched_free(whole);
        return rtopo__coll_pieces_lanes(h, (double)m, ts, tw, cs, cw,
                                        hb > 0 ? model->tk * kb / hb : 0.0, A, B,
                                        model->lanes, top);
    }
    best = sqrt((h - 1) * (double)m * tw / ts);
    P = best < 1 ? 1 : best > 64 ? 64 : (uint32_t)(best + 0.5);
    return P > top ? top : P;
}

/* rtopo__coll_algo1, and the pieces it built in *P_p */
static int rtopo__coll_algo1p(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                              rtopo__prog_fn *prog, int algo, const rtopo__model_t *model,
                              rtopo__sched_t **s_p, uint32_t *P_p)
{
    uint32_t P = algo == RTOPO__COLL_RSAG ? 1 : c->chunks;
    int st;

    *P_p = 1;
    if (!P) {
        if ((st = rtopo__coll_build(t, c, prog, algo, 1, s_p)))
            return st;
        P = rtopo__coll_pieces(t, *s_p, c, prog, algo, model);
        if (P <= 1)
            return RTOPO_OK;
        rtopo__sched_free(*s_p);
        *s_p = NULL;
    }
    *P_p = P;
    return rtopo__coll_build(t, c, prog, algo, P, s_p);
}

int rtopo__coll_algo1(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                      rtopo__prog_fn *prog, int algo, const rtopo__model_t *model,
                      rtopo__sched_t **s_p)
{
    uint32_t P;

    return rtopo__coll_algo1p(t, c, prog, algo, model, s_p, &P);
}

/* The one algorithm of an op that has no other (TOPO). */
int rtopo__coll_build_one(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                          rtopo__prog_fn *prog, const rtopo__model_t *model,
                          rtopo__sched_t **s_p)
{
    return rtopo__coll_algo1(t, c, prog, RTOPO_COLL_TOPO, model, s_p);
}

/* The broadcast, allreduce and scan: the OTIS algorithm, the generic one
 * and, on more than two ranks, long_algo (RSAG, CHAIN for long vectors;
 * FLAT, the broadcast's flat tree; 0: none), as c->algo allows; the
 * fastest under the model. */
int rtopo__coll_build_cand(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           rtopo__prog_fn *prog, const rtopo__model_t *model,
                           int long_algo, rtopo__sched_t **s_p)
{
    return rtopo__coll_build_cand_lb(t, c, prog, NULL, model, long_algo, s_p);
}

int rtopo__coll_build_cand_lb(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                              rtopo__prog_fn *prog, rtopo__lb_fn *lbf,
                              const rtopo__model_t *model, int long_algo,
                              rtopo__sched_t **s_p)
{
    return rtopo__coll_build_cand_x(t, c, prog, lbf, NULL, model, long_algo, s_p);
}

int rtopo__coll_build_cand_x(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                             rtopo__prog_fn *prog, rtopo__lb_fn *lbf, rtopo__time_fn *tf,
                             const rtopo__model_t *model, int long_algo,
                             rtopo__sched_t **s_p)
{
    int otis = t->kind == RTOPO__TOPO_OTIS_MESH || t->kind == RTOPO__TOPO_OTIS_HYPERCUBE;
    int cand[4], ncand = 0;

    /* the candidates: the OTIS algorithm, the generic ones (two for the
     * allreduce: recursive doubling, and reduce-scatter + allgather) */
    if (otis && c->algo != RTOPO_COLL_GENERIC)
        cand[ncand++] = RTOPO_COLL_TOPO;
    if (!otis || c->algo != RTOPO_COLL_TOPO) {
        cand[ncand++] = RTOPO_COLL_GENERIC;
        /* (the chain on 2 ranks is the one transfer rank 1 needs; the
         * allreduce's halves on 2 ranks move what recursive doubling
         * does, in twice the steps) */
        if (long_algo && (t->p > 2 || long_algo == RTOPO__COLL_CHAIN))
            cand[ncand++] = long_algo;
    }
    if (ncand == 1)
        return rtopo__coll_algo1(t, c, prog, cand[0], model, s_p);
    return rtopo__coll_choose_x(t, c, prog, lbf, tf, model, cand, ncand, s_p);
}

/* Builds each of the ncand algorithms cand[], runs it under model and
 * keeps the fastest (a tie, relative 1e-12, to the earlier); RSAG and
 * CHAIN are reported as GENERIC.
 * A plan's choice (c->own, rank r's share) is the same without running
 * every candidate's whole graph: each candidate's share gives a lower
 * bound of its time (rtopo__sim_bound), and a candidate is run whole only
 * when the bounds and the times known so far cannot settle the earlier-
 * wins-ties rule without it, the least bound first; a candidate whose
 * bound is above a known time (by a rounding margin) cannot win against
 * it.  The bounds differ from rank to rank, but a candidate is passed over
 * only where running it would have lost: every rank makes today's choice.
 * lbf, when given, adds what the family knows of a candidate's whole
 * graph from its shape (a path through many ranks, which no one share
 * sees); tf (rtopo__coll_choose_x), the time itself where the family
 * knows it from the share, and that candidate is never run.  The whole
 * graph's choice (c->own 0) goes the same way from rank 0's share where
 * lbf is given (rtopo-sim then builds and runs whole only what the
 * bounds leave, and returns the winner's graph it ran); without lbf, or
 * with rtopo__choose_every set (the tests' reference), every candidate's
 * whole graph is built and run.  A whole graph asked bare (c->bare:
 * rtopo-sim's) whose winner's time tf knew comes without its edges
 * (deferred): that graph is never run for its time, and whoever runs it
 * after infers them; the shares and the candidates run whole hold theirs. */
#define RTOPO__TIE (1 - 1e-12)
#define RTOPO__MARGIN 1e-9
int rtopo__coll_choose(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                       rtopo__prog_fn *prog, const rtopo__model_t *model, const int *cand,
                       int ncand, rtopo__sched_t **s_p)
{
    return rtopo__coll_choose_lb(t, c, prog, NULL, model, cand, ncand, s_p);
}

/* candidate algo's share and its bound in *lb_p; with tf, its whole
 * graph's time in *ex_p where tf knows it (else -1) */
static int rtopo__coll_share_lb(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                                rtopo__prog_fn *prog, rtopo__lb_fn *lbf, rtopo__time_fn *tf,
                                const rtopo__model_t *model, int algo, rtopo__sched_t **s_p,
                                double *lb_p, double *ex_p)
{
    uint32_t P;
    int st;

    *ex_p = -1;
    if ((st = rtopo__coll_algo1p(t, c, prog, algo, model, s_p, &P)))
        return st;
    if (tf && (*ex_p = tf(t, c, prog, model, algo, P, *s_p)) >= 0) {
        *lb_p = *ex_p;
        return RTOPO_OK;
    }
    *lb_p = rtopo__sim_bound(*s_p, model, c->own - 1);
    if (lbf) {
        double f = lbf(t, c, prog, model, algo, P, *s_p);

        *lb_p = f > *lb_p ? f : *lb_p;
    }
    return RTOPO_OK;
}

double rtopo__coll_cand_lb(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           rtopo__prog_fn *prog, rtopo__lb_fn *lbf,
                           const rtopo__model_t *model, int algo)
{
    rtopo__sched_t *s = NULL;
    double lb = -1, ex;

    if (c->own < 1 || c->own > t->p ||
        rtopo__coll_share_lb(t, c, prog, lbf, NULL, model, algo, &s, &lb, &ex))
        lb = -1;
    rtopo__sched_free(s);
    return lb;
}

/* what rtopo__coll_choose_x takes as candidate algo's time from tf in a
 * plan (c->own); -1 when tf does not know it or it cannot be built */
double rtopo__coll_cand_ex(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           rtopo__prog_fn *prog, rtopo__time_fn *tf,
                           const rtopo__model_t *model, int algo)
{
    rtopo__sched_t *s = NULL;
    double lb, ex = -1;

    if (c->own < 1 || c->own > t->p ||
        rtopo__coll_share_lb(t, c, prog, NULL, tf, model, algo, &s, &lb, &ex))
        ex = -1;
    rtopo__sched_free(s);
    return ex;
}

int rtopo__choose_every = 0;

/* the choice among the known candidates: the earliest of the least times
 * (a later one wins only by a relative 1e-12); -1 if none is known */
static int rtopo__coll_pick(const int *known, const double *tm, int ncand)
{
    int cur = -1, i;

    for (i = 0; i < ncand; i++)
        if (known[i] && (cur < 0 || tm[i] < tm[cur] * RTOPO__TIE))
            cur = i;
    return cur;
}

int rtopo__coll_choose_lb(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                          rtopo__prog_fn *prog, rtopo__lb_fn *lbf,
                          const rtopo__model_t *model, const int *cand, int ncand,
                          rtopo__sched_t **s_p)
{
    return rtopo__coll_choose_x(t, c, prog, lbf, NULL, model, cand, ncand, s_p);
}

int rtopo__coll_choose_x(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                         rtopo__prog_fn *prog, rtopo__lb_fn *lbf, rtopo__time_fn *tf,
                         const rtopo__model_t *model, const int *cand, int ncand,
                         rtopo__sched_t **s_p)
{
    rtopo__sched_t *best = NULL, *s = NULL, *share[4] = { NULL, NULL, NULL, NULL };
    rtopo__sched_t *held = NULL;
    rtopo__sim_result_t r;
    rtopo__coll_t whole = *c, bc = *c;
    double tbest = 0, lb[4], tm[4];
    int known[4] = { 0, 0, 0, 0 }, ex[4] = { 0, 0, 0, 0 };
    int st = RTOPO_OK, i, cur, need, heldi = -1;

    whole.own = 0;
    /* the shares and the candidates run whole hold their edges */
    whole.bare = 0;
    bc.bare = 0;
    /* the whole graph's choice (c->own 0) takes the same way as a plan's
     * where the family knows its candidates' paths (lbf): the bounds of
     * rank 0's share, and only the candidates they do not put out are
     * run whole; the winner's graph, once run, is the one returned */
    bc.own = c->own ? c->own : 1;
    if (ncand <= 4 && !rtopo__choose_every && (c->own || lbf)) {
        for (i = 0; i < ncand; i++) {
            if ((st = rtopo__coll_share_lb(t, &bc, prog, lbf, tf, model, cand[i], &share[i],
                                           &lb[i], &tm[i])))
                goto out;
            known[i] = ex[i] = tm[i] >= 0;      /* tf knew it: no run */
            if (!c->own) {
                rtopo__sched_free(share[i]);
                share[i] = NULL;
            }
        }
        for (;;) {
            /* A candidate whose bound is above a known time (by the
             * rounding margin) is never the choice: it loses to that one
             * under the earlier-wins-ties rule whatever their order.  Run
             * the one of the others not yet known with the least bound
             * (the likeliest winner, whose time may put the rest out);
             * once the others are all known, the rule over them is the
             * rule over all. */
            for (need = -1, i = 0; i < ncand; i++) {
                int j, lost = 0;

                for (j = 0; j < ncand && !known[i] && !lost; j++)
                    lost = known[j] && lb[i] >= tm[j] * (1 + RTOPO__MARGIN);
                if (!known[i] && !lost && (need < 0 || lb[i] < lb[need]))
                    need = i;
            }
            if (need < 0)
                break;
            if ((st = rtopo__coll_algo1(t, &whole, prog, cand[need], model, &s)) ||
                (st = rtopo__sim_run(s, model, &r)))
                goto out;
            tm[need] = r.model_time;
            known[need] = 1;
            /* the whole graph's choice keeps the graph of the one chosen
             * so far (one graph beside the one running at most) */
            if (!c->own && rtopo__coll_pick(known, tm, ncand) == need) {
                rtopo__sched_free(held);
                held = s;
                heldi = need;
                s = NULL;
            }
            rtopo__sched_free(s);
            s = NULL;
        }
        cur = rtopo__coll_pick(known, tm, ncand);
        if (c->own) {
            best = share[cur];
            share[cur] = NULL;
        } else if (heldi == cur) {
            best = held;
            held = NULL;
        } else {
            /* a winner whose time tf knew is not run: asked bare, its
             * edges are not inferred either but left to whoever runs it
             * (deferred) */
            whole.bare = ex[cur] && c->bare;
            if ((st = rtopo__coll_algo1(t, &whole, prog, cand[cur], model, &best)))
                goto out;
            best->deferred = whole.bare && !best->ndeps;
            /* the whole graph's time tf knew: the run that follows
             * (rtopo-sim's) takes it, not the graph event by event */
            if (ex[cur] && (st = rtopo__sim_known(best, model, tm[cur])))
                goto out;
        }
    } else {
        /* one candidate's graph at a time: each is freed once run, but
         * the last when it wins; a winner before it is built again */
        for (i = 0, cur = -1; i < ncand; i++) {
            if ((st = rtopo__coll_algo1(t, &whole, prog, cand[i], model, &s)) ||
                (st = rtopo__sim_run(s, model, &r)))
                goto out;
            if (cur < 0 || r.model_time < tbest * RTOPO__TIE) {
                cur = i;
                tbest = r.model_time;
            }
            if (cur == ncand - 1) {
                best = s;
                s = NULL;
            }
            rtopo__sched_free(s);
            s = NULL;
        }
        if (!best && (st = rtopo__coll_algo1(t, &whole, prog, cand[cur], model, &best)))
            goto out;
        if (c->own && (st = rtopo__sched_own(best, c->own - 1)))
            goto out;
    }
    if (best->algo == RTOPO__COLL_RSAG || best->algo == RTOPO__COLL_CHAIN ||
        best->algo == RTOPO__COLL_FLAT)
        best->algo = RTOPO_COLL_GENERIC;
    *s_p = best;
    best = NULL;
out:
    for (i = 0; i < 4; i++)
        rtopo__sched_free(share[i]);
    rtopo__sched_free(s);
    rtopo__sched_free(held);
    rtopo__sched_free(best);
    return st;
}

/* ---- moves -------------------------------------------------------------- */

static int rtopo__link_electronic(int link)
{
    return link == RTOPO__LINK_RING || link == RTOPO__LINK_ROW || link == RTOPO__LINK_COL ||
           link == RTOPO__LINK_CUBE;
}

/* The hops counted step by step: a step's distinct electronic (link,
 * dim, dir) groups are its SIMD moves, and a step counts once for each
 * kind of link it uses.  Two passes in the hops' order, no sort: the
 * groups numbered as first seen, then each step's groups a set of bits
 * (as many 64-bit words as there are groups). */
void rtopo__sched_moves(const rtopo__sched_t *s, rtopo__moves_t *mv)
{
    uint64_t *groups = NULL, g;
    uint8_t *kinds = NULL;
    uint32_t *gid = NULL, nsteps = 0, ng = 0, nw, i, t, w;
    const size_t nkeys = (size_t)RTOPO__LINK_COUNT << 16;

    memset(mv, 0, sizeof(*mv));
    if (!s->nhops)
        return;
    gid = calloc(nkeys, sizeof(*gid));  /* 1 + a group's number, or 0 */
    if (!gid)
        return;
    for (i = 0; i < s->nhops; i++) {
        const rtopo__hop_t *h = &s->hops[i];
        size_t key = (size_t)h->link << 16 | (size_t)h->dim << 8 | (uint8_t)h->dir;

        if (h->step + 1 > nsteps)
            nsteps = h->step + 1;
        if (rtopo__link_electronic(h->link) && !gid[key])
            gid[key] = ++ng;
    }
    nw = (ng + 63) / 64;
    groups = calloc((size_t)nsteps * nw + 1, sizeof(*groups));
    kinds = calloc(nsteps, 1);
    if (!groups || !kinds)
        goto out;
    for (i = 0; i < s->nhops; i++) {
        const rtopo__hop_t *h = &s->hops[i];

        if (rtopo__link_electronic(h->link)) {
            uint32_t k = gid[(size_t)h->link << 16 | (size_t)h->dim << 8 | (uint8_t)h->dir] - 1;

            groups[(size_t)h->step * nw + k / 64] |= (uint64_t)1 << (k % 64);
            kinds[h->step] |= 1;
        } else {
            kinds[h->step] |= h->link == RTOPO__LINK_OTIS ? 2 : 4;
        }
    }
    for (t = 0; t < nsteps; t++) {
        for (w = 0; w < nw; w++)
            for (g = groups[(size_t)t * nw + w]; g; g &= g - 1)
                mv->electronic_simd++;
        mv->electronic += kinds[t] & 1;
        mv->otis += (kinds[t] >> 1) & 1;
        mv->other += (kinds[t] >> 2) & 1;
    }
out:
    free(groups);
    free(kinds);
    free(gid);
}
