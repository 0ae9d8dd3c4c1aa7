/*
 * coll_build.c - the schedule of a collective: the builder every family of
 * algorithms writes into (coll_otis.c, coll_generic.c, coll_line.c,
 * coll_route.c, coll_bpc.c, coll_sort.c), the choice among candidates,
 * pipelining in pieces, and the moves counted from a schedule.
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

/* Transfer of register sreg of `src` to register dreg of `dst` along
 * nh hops (hops[i].to, .link, .dim, .dir), hop i in step step0 + i; no
 * hops: a copy in step step0. */
void rtopo__cb_route(rtopo__cb_t *b, int src, int sreg, int dst, int dreg,
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

uint32_t rtopo__sched_last_step(const rtopo__sched_t *s)
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
int rtopo__phase_rebase(rtopo__sched_t *s, uint64_t soff, uint64_t roff,
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

/* b after a, into *out_p (a and b freed): b's steps start after every
 * node of a, local ones included */
int rtopo__phase_then(rtopo__sched_t *a, rtopo__sched_t *b, rtopo__sched_t **out_p)
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

/* ---- building ----------------------------------------------------------- */

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
