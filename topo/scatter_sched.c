/*
 * scatter_sched.c - host-to-hypercube distribution of overlapping
 * windows: node i of a 2^d cube receives the window of M elements that
 * starts at element i*Delta of the host's array (N = (2^d - 1)*Delta + M
 * elements; consecutive windows overlap by M - Delta).
 *
 * Layout: the host is rank 2^d (a descriptor with a host endpoint); its
 * SEND holds the array.  Node i's RECV receives its window (M elements).
 * A node that forwards to others first receives the union of the windows
 * of its block into TMP, sends sub-ranges of that TMP on (zero copy: each
 * hop is one RDMA write of a contiguous range) and copies its own window,
 * the first M elements, to RECV.  Node links are identity-cube links
 * (rank i <-> i ^ 2^k, class CUBE_ID), host links class HOST.
 *
 * Strategies (seed 003; costs with beta_h, tau_h the host link's start-up
 * and per-element time, beta, tau the node links', p = 2^d):
 *  SEQ          the host sends each window to its node, one after another:
 *               T1 = p(beta_h + M tau_h).
 *  BINOMIAL     the host sends all p windows (packed, p*M elements) to
 *               node 0, which scatters them by recursive halving: at step
 *               i the holders send 2^(d-i-1) windows on.
 *               T2 = beta_h + M p tau_h + d beta + M(p-1) tau.
 *  SEQSCATTER   the host sends the 2^x windows of the block [0, 2^x) to
 *               node 0 as one message, which scatters them in its
 *               x-subcube, while the host sends the other p - 2^x windows
 *               one by one.  T3 = beta_h + M 2^x tau_h + max{(p - 2^x)
 *               (beta_h + M tau_h), x beta + M(2^x - 1) tau}.
 *  DECREMENTAL  the host sends, one after another, to the roots of the
 *               aligned blocks [2^(d-1), 2^d), [2^(d-2), 2^(d-1)), ...,
 *               [2^x, 2^(x+1)), [0, 2^x) the union of their windows,
 *               M + (2^t - 1) Delta elements for a block of 2^t nodes (the
 *               overlaps travel once); each root scatters in its block by
 *               recursive halving, at step i sending the union of the
 *               next 2^(t-i-1) nodes' windows, M + (2^(t-i-1) - 1) Delta.
 *               T4 = (d-x+1) beta_h + (M-Delta)(d-x+1) tau_h + Delta 2^d
 *               tau_h + x beta + x(M-Delta) tau + (2^x - 1) Delta tau when
 *               the last block's scatter ends last.
 * The host's sends carry PORT edges: they leave in the order given.
 * Packing (BINOMIAL, SEQSCATTER with overlap): the host copies the windows
 * one after another into its TMP first, local copies.
 *
 * AUTO simulates every candidate rather than trusting the formulas: T4
 * holds only when the last block ends last, copies may have a cost, and a
 * host folded onto a cube node loses one host message.  Its price is
 * 2d + 3 builds and event-by-event runs of at most 2.5 * 2^d transfers,
 * each O(n log n): about 30 ms for d = 10.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

typedef struct rtopo__sbuild {
    rtopo__xfer_t *x;
    rtopo__hop_t *h;
    uint32_t nx, nh, cap;
    uint64_t *tmp;        /* per rank TMP bytes */
    uint32_t maxstep;
    int st;
} rtopo__sbuild_t;

static void rtopo__sb_add(rtopo__sbuild_t *b, int src, int sbuf, uint64_t soff, int dst,
                          int dbuf, uint64_t doff, uint64_t len, uint32_t step, int link,
                          int dim)
{
    rtopo__xfer_t *x;

    if (b->st)
        return;
    if (b->nx == b->cap) {
        uint32_t cap = b->cap ? 2 * b->cap : 64;
        rtopo__xfer_t *nx = realloc(b->x, cap * sizeof(*nx));
        rtopo__hop_t *nh = nx ? realloc(b->h, cap * sizeof(*nh)) : NULL;

        if (nx)
            b->x = nx;
        if (!nx || !nh) {
            b->st = rtopo__error(RTOPO_ERR_NOMEM, "scatter schedule of %u transfers", cap);
            return;
        }
        b->h = nh;
        b->cap = cap;
    }
    x = &b->x[b->nx++];
    memset(x, 0, sizeof(*x));
    x->src = src;
    x->dst = dst;
    x->src_buf = (uint8_t)sbuf;
    x->dst_buf = (uint8_t)dbuf;
    x->src_off = soff;
    x->dst_off = doff;
    x->len = len;
    if (src == dst) {            /* a copy within the rank */
        x->step = step;
        return;
    }
    x->nhops = 1;
    x->hop0 = b->nh;
    memset(&b->h[b->nh], 0, sizeof(b->h[b->nh]));
    b->h[b->nh].to = dst;
    b->h[b->nh].step = step;
    b->h[b->nh].link = (uint8_t)link;
    b->h[b->nh].dim = (uint8_t)dim;
    b->nh++;
    if (step > b->maxstep)
        b->maxstep = step;
}

static void rtopo__sb_tmp(rtopo__sbuild_t *b, int rank, uint64_t bytes)
{
    if (bytes > b->tmp[rank])
        b->tmp[rank] = bytes;
}

/* Node `root` holds in TMP, from offset 0, the data of the 2^t nodes of
 * its block (node root+j's window at j*stride) once step `step` begins.
 * Recursive halving: at relative step i every holder n sends the data of
 * [n+h, n+2h), h = 2^(t-i-1), which is (h-1)*stride + win bytes from its
 * TMP at h*stride, to n+h: into RECV when h = 1, else into TMP.  The
 * holders (the root and the nodes at even offsets, which received more
 * than their own window) then copy their window to RECV. */
static void rtopo__sb_halve(rtopo__sbuild_t *b, int root, int t, uint32_t step,
                            uint64_t stride, uint64_t win)
{
    int i, n, h;

    for (i = 0; i < t; i++) {
        h = 1 << (t - i - 1);
        for (n = root; n < root + (1 << t); n += 2 * h) {
            uint64_t len = (uint64_t)(h - 1) * stride + win;

            rtopo__sb_add(b, n, RTOPO__BUF_TMP, (uint64_t)h * stride, n + h,
                          h == 1 ? RTOPO__BUF_RECV : RTOPO__BUF_TMP, 0, len,
                          step + (uint32_t)i, RTOPO__LINK_CUBE_ID, t - i - 1);
            if (h > 1)
                rtopo__sb_tmp(b, n + h, len);
        }
    }
    for (n = root; n < root + (1 << t); n += 2)
        rtopo__sb_add(b, n, RTOPO__BUF_TMP, 0, n, RTOPO__BUF_RECV, 0, win,
                      step + (uint32_t)t, 0, 0);
}

/* DECREMENTAL: one block's union from the host, then its scatter */
static void rtopo__sb_block(rtopo__sbuild_t *b, int host, int root, int dim, uint32_t step,
                            uint64_t stride, uint64_t win)
{
    uint64_t len = ((uint64_t)(1 << dim) - 1) * stride + win;

    if (dim == 0) {
        rtopo__sb_add(b, host, RTOPO__BUF_SEND, (uint64_t)root * stride, root,
                      RTOPO__BUF_RECV, 0, win, step, RTOPO__LINK_HOST, 0);
        return;
    }
    rtopo__sb_add(b, host, RTOPO__BUF_SEND, (uint64_t)root * stride, root, RTOPO__BUF_TMP,
                  0, len, step, RTOPO__LINK_HOST, 0);
    rtopo__sb_tmp(b, root, len);
    rtopo__sb_halve(b, root, dim, step + 1, stride, win);
}

int rtopo__sched_scatter(const rtopo__tdesc_t *t, int strategy, int x, uint64_t M,
                         uint64_t delta, size_t esize, rtopo__sched_t **s_p)
{
    rtopo__sbuild_t b;
    rtopo__sched_t *s = NULL;
    int d, p, host, k, j, st;
    uint32_t i;
    uint64_t win, str, step = 0;

    if (!t || !s_p || t->kind != RTOPO__TOPO_HYPERCUBE || !t->host)
        return rtopo__error(RTOPO_ERR_INVAL, "scatter: needs a hypercube with a host");
    d = t->dim;
    p = 1 << d;
    host = p;
    if (!esize || !M || !delta || delta > M)
        return rtopo__error(RTOPO_ERR_INVAL, "scatter: window of %llu elements, stride "
                            "%llu, element of %zu bytes: need 1 <= stride <= window",
                            (unsigned long long)M, (unsigned long long)delta, esize);
    if ((strategy == RTOPO__SCATTER_SEQSCATTER && (x < 0 || x > d)) ||
        (strategy == RTOPO__SCATTER_DECREMENTAL && (x < 0 || x >= (d ? d : 1))))
        return rtopo__error(RTOPO_ERR_INVAL, "scatter: x %d out of range for d %d", x, d);
    if (M > UINT64_MAX / esize / 2 / (uint64_t)p)
        return rtopo__error(RTOPO_ERR_INVAL, "scatter: windows too large");
    win = M * esize;
    str = delta * esize;
    memset(&b, 0, sizeof(b));
    b.tmp = calloc((size_t)p + 1, sizeof(*b.tmp));
    if (!b.tmp)
        return rtopo__error(RTOPO_ERR_NOMEM, "scatter TMP sizes");
    switch (strategy) {
    case RTOPO__SCATTER_SEQ:
        for (k = 0; k < p; k++)
            rtopo__sb_add(&b, host, RTOPO__BUF_SEND, (uint64_t)k * str, k, RTOPO__BUF_RECV,
                          0, win, (uint32_t)k, RTOPO__LINK_HOST, 0);
        break;
    case RTOPO__SCATTER_BINOMIAL:
    case RTOPO__SCATTER_SEQSCATTER: {
        int blk = strategy == RTOPO__SCATTER_BINOMIAL ? d : x, n = 1 << blk;
        uint32_t s0 = str == win ? 0 : 1;   /* packing takes step 0 */

        /* the first 2^blk windows, whole, to node 0 (packed first when they
         * overlap in the array) */
        if (!s0) {
            rtopo__sb_add(&b, host, RTOPO__BUF_SEND, 0, 0, RTOPO__BUF_TMP, 0,
                          (uint64_t)n * win, 0, RTOPO__LINK_HOST, 0);
        } else {
            for (j = 0; j < n; j++)
                rtopo__sb_add(&b, host, RTOPO__BUF_SEND, (uint64_t)j * str, host,
                              RTOPO__BUF_TMP, (uint64_t)j * win, win, 0, 0, 0);
            rtopo__sb_tmp(&b, host, (uint64_t)n * win);
            rtopo__sb_add(&b, host, RTOPO__BUF_TMP, 0, 0, RTOPO__BUF_TMP, 0,
                          (uint64_t)n * win, s0, RTOPO__LINK_HOST, 0);
        }
        rtopo__sb_tmp(&b, 0, (uint64_t)n * win);
        rtopo__sb_halve(&b, 0, blk, s0 + 1, win, win);
        /* the rest one by one, straight to their nodes */
        for (k = n; k < p; k++)
            rtopo__sb_add(&b, host, RTOPO__BUF_SEND, (uint64_t)k * str, k, RTOPO__BUF_RECV,
                          0, win, s0 + (uint32_t)(1 + k - n), RTOPO__LINK_HOST, 0);
        break;
    }
    case RTOPO__SCATTER_DECREMENTAL: {
        int tt;

        /* blocks [2^t, 2^(t+1)) for t = d-1 .. x, largest first, then [0, 2^x) */
        for (tt = d - 1; tt >= x; tt--)
            rtopo__sb_block(&b, host, 1 << tt, tt, (uint32_t)step++, str, win);
        rtopo__sb_block(&b, host, 0, x, (uint32_t)step, str, win);
        break;
    }
    default:
        free(b.tmp);
        return rtopo__error(RTOPO_ERR_INVAL, "scatter: unknown strategy %d", strategy);
    }
    if ((st = b.st))
        goto out;
    if ((st = rtopo__sched_alloc(t, b.nx, b.nh, &s)))
        goto out;
    for (i = 0; i < b.nx; i++)
        if ((st = rtopo__sched_xset(s, i, &b.x[i])))
            goto out;
    if (b.nh)
        memcpy(s->hops, b.h, b.nh * sizeof(*b.h));
    s->nsteps = b.nh ? b.maxstep + 1 : 0;
    s->algo = strategy;
    if ((st = rtopo__sched_set_tmp(s, b.tmp)) ||
        (st = rtopo__sched_deps_infer(s, RTOPO__DEPS_PORT)))
        goto out;
    *s_p = s;
    s = NULL;
out:
    rtopo__sched_free(s);
    free(b.x);
    free(b.h);
    free(b.tmp);
    return st;
}

/* ---- names ------------------------------------------------------------- */

static const char *const rtopo__scatter_names[] = {
    "auto", "seq", "binomial", "seqscatter", "decremental"
};

const char *rtopo__scatter_algo_name(int strategy)
{
    if (strategy < RTOPO__SCATTER_AUTO || strategy > RTOPO__SCATTER_DECREMENTAL)
        return "?";
    return rtopo__scatter_names[strategy];
}

int rtopo__scatter_algo_parse(const char *s, int *x_p)
{
    int i, x = -1;

    if (!s)
        return -1;
    for (i = RTOPO__SCATTER_AUTO; i <= RTOPO__SCATTER_DECREMENTAL; i++) {
        size_t n = strlen(rtopo__scatter_names[i]);
        const char *c = s + n;

        if (strncmp(s, rtopo__scatter_names[i], n) || (*c && *c != ':'))
            continue;
        if (*c == ':') {
            /* only the strategies with a block dimension take one */
            if (i != RTOPO__SCATTER_SEQSCATTER && i != RTOPO__SCATTER_DECREMENTAL)
                return -1;
            if (c[1] < '0' || c[1] > '9' || (c[2] && (c[2] < '0' || c[2] > '9' || c[3])))
                return -1;
            x = c[1] - '0';
            if (c[2])
                x = 10 * x + c[2] - '0';
            if (x > 30)
                return -1;
        }
        if (x_p)
            *x_p = x;
        return i;
    }
    return -1;
}

/* ---- closed formulas ----------------------------------------------------- */

double rtopo__scatter_formula(int strategy, int x, int d, uint64_t M, uint64_t delta,
                              size_t esize, const struct rtopo__model *model,
                              int host_node, int *exact_p)
{
    int hl = host_node >= 0 ? RTOPO__LINK_DIRECT : RTOPO__LINK_HOST, exact;
    double bh, th, b, tau, p, px, m = (double)M, D = (double)delta, f, a, c;
    rtopo__model_t def;

    if (!model) {
        rtopo__model_default(&def);
        model = &def;
    }
    if (d < 0 || d > 30 || (strategy == RTOPO__SCATTER_SEQSCATTER && (x < 0 || x > d)) ||
        (strategy == RTOPO__SCATTER_DECREMENTAL && (x < 0 || x >= (d ? d : 1))))
        return -1.0;
    /* the nodes' pair 0, 1 and the host's link to node 0 (or, the host on
     * a node, from it to a neighbour) as the model charges them: by reach
     * on a model with a layout */
    rtopo__model_hop(model, hl, host_node >= 0 ? host_node : (int32_t)(1u << d),
                     host_node >= 0 ? host_node ^ 1 : 0, &bh, &th);
    th *= (double)esize;
    rtopo__model_hop(model, RTOPO__LINK_CUBE_ID, 0, d ? 1 : 0, &b, &tau);
    tau *= (double)esize;
    p = (double)(1u << d);
    px = (double)(1u << (x > 0 ? x : 0));
    exact = host_node < 0 && model->ts[RTOPO__LINK_LOCAL] == 0.0 &&
            model->tw[RTOPO__LINK_LOCAL] == 0.0;
    if (exact && model->layout && d && model->layout->nranks >= (1u << d)) {
        /* the one tau is exact when every node pair has one reach: the
         * nodes all on one host, or each on a host of its own */
        const rtopo__layout_t *l = model->layout;
        uint32_t i, n = 1u << d, same = 0;
        uint8_t *seen = calloc(l->nranks, 1);

        for (i = 0; i < n; i++)
            same += l->host[i] == l->host[0];
        for (i = 0; seen && same != n && i < n; i++) {
            if (l->host[i] >= l->nranks || seen[l->host[i]])
                break;
            seen[l->host[i]] = 1;
        }
        if (same != n && (!seen || i < n))
            exact = 0;
        free(seen);
    }
    switch (strategy) {
    case RTOPO__SCATTER_SEQ:                                          /* (6) */
        f = p * (bh + m * th);
        break;
    case RTOPO__SCATTER_BINOMIAL:                                     /* (7) */
        f = bh + m * p * th + d * b + m * (p - 1) * tau;
        break;
    case RTOPO__SCATTER_SEQSCATTER:                                   /* (8) */
        a = (p - px) * (bh + m * th);
        c = x * b + m * (px - 1) * tau;
        f = bh + m * px * th + (a > c ? a : c);
        break;
    case RTOPO__SCATTER_DECREMENTAL: {                                /* (9) */
        double host_end = 0.0;
        int t;

        f = (d - x + 1) * bh + (m - D) * (d - x + 1) * th + D * p * th + x * b +
            x * (m - D) * tau + (px - 1) * D * tau;
        /* the formula is the last block's end: it must not end before the
         * blocks served earlier */
        for (t = d - 1; t >= x; t--) {
            double bt = (double)(1u << t);

            host_end += bh + (m + (bt - 1) * D) * th;
            if (host_end + t * b + t * (m - D) * tau + (bt - 1) * D * tau >
                f * (1 + 1e-12))
                exact = 0;
        }
        break;
    }
    default:
        return -1.0;
    }
    if (exact_p)
        *exact_p = exact;
    return f;
}

/* ---- AUTO ---------------------------------------------------------------- */

/* build, count the host's messages, fold, simulate */
int rtopo__sched_scatter_cand(const rtopo__tdesc_t *t, int strategy, int x, uint64_t M,
                              uint64_t delta, size_t esize,
                              const struct rtopo__model *model, int host_node,
                              rtopo__scatter_cand_t *c, rtopo__sched_t **s_p)
{
    rtopo__sched_t *s = NULL;
    rtopo__sim_result_t r;
    rtopo__model_t def;
    const rtopo__model_t *m = model;
    uint32_t i, sends = 0;
    int st;

    if (!c || !s_p)
        return rtopo__error(RTOPO_ERR_INVAL, "scatter: no candidate or output");
    if (t && t->host && host_node >= t->p - 1)
        return rtopo__error(RTOPO_ERR_INVAL, "scatter: host node %d out of 0..%d",
                            host_node, t->p - 2);
    if (!m) {
        rtopo__model_default(&def);
        m = &def;
    }
    if ((st = rtopo__sched_scatter(t, strategy, x, M, delta, esize, &s)))
        return st;
    for (i = 0; i < s->nxfers; i++)
        if (s->xfers[i].src == t->p - 1 && rtopo__sched_xnhops(s, i) &&
            s->xfers[i].dst != host_node)
            sends++;
    if ((host_node >= 0 && (st = rtopo__sched_fold_host(&s, host_node))) ||
        (st = rtopo__sim_run(s, m, &r))) {
        rtopo__sched_free(s);
        return st;
    }
    memset(c, 0, sizeof(*c));
    c->strategy = strategy;
    c->x = strategy == RTOPO__SCATTER_SEQSCATTER ||
           strategy == RTOPO__SCATTER_DECREMENTAL ? x : -1;
    c->model_time = r.model_time;
    c->formula_time = rtopo__scatter_formula(strategy, x, t->dim, M, delta, esize, m,
                                             host_node, &c->formula_exact);
    c->host_sends = sends;
    c->steps = r.steps;
    *s_p = s;
    return RTOPO_OK;
}

int rtopo__sched_scatter_auto_cand(const rtopo__tdesc_t *t, uint64_t M, uint64_t delta,
                                   size_t esize, const struct rtopo__model *model,
                                   int host_node, int strategy,
                                   rtopo__scatter_cand_t *cand, int *ncand_p,
                                   int *strategy_p, int *x_p, rtopo__sched_t **s_p)
{
    rtopo__sched_t *best = NULL, *s;
    rtopo__scatter_cand_t c, bc;
    rtopo__model_t def;
    int strat, x, xmax, nc = 0, st;

    if (!t || !s_p || t->kind != RTOPO__TOPO_HYPERCUBE || !t->host)
        return rtopo__error(RTOPO_ERR_INVAL, "scatter: needs a hypercube with a host");
    if (strategy < RTOPO__SCATTER_AUTO || strategy > RTOPO__SCATTER_DECREMENTAL)
        return rtopo__error(RTOPO_ERR_INVAL, "scatter: unknown strategy %d", strategy);
    if (host_node >= t->p - 1)
        return rtopo__error(RTOPO_ERR_INVAL, "scatter: host node %d out of 0..%d",
                            host_node, t->p - 2);
    if (!model) {
        rtopo__model_default(&def);
        model = &def;
    }
    memset(&bc, 0, sizeof(bc));
    for (strat = RTOPO__SCATTER_SEQ; strat <= RTOPO__SCATTER_DECREMENTAL; strat++) {
        if (strategy != RTOPO__SCATTER_AUTO && strat != strategy)
            continue;
        xmax = strat == RTOPO__SCATTER_SEQSCATTER ? t->dim :
               strat == RTOPO__SCATTER_DECREMENTAL ? (t->dim ? t->dim - 1 : 0) : 0;
        for (x = 0; x <= xmax; x++) {
            if ((st = rtopo__sched_scatter_cand(t, strat, x, M, delta, esize, model,
                                                host_node, &c, &s)))
                goto err;
            if (cand)
                cand[nc] = c;
            nc++;
            if (!best || c.model_time < bc.model_time * (1 - 1e-12)) {
                rtopo__sched_free(best);
                best = s;
                bc = c;
            } else {
                rtopo__sched_free(s);
            }
        }
    }
    if (ncand_p)
        *ncand_p = nc;
    if (strategy_p)
        *strategy_p = bc.strategy;
    if (x_p)
        *x_p = bc.x;
    *s_p = best;
    return RTOPO_OK;
err:
    rtopo__sched_free(best);
    return st;
}

int rtopo__sched_scatter_auto(const rtopo__tdesc_t *t, uint64_t M, uint64_t delta,
                              size_t esize, const struct rtopo__model *model,
                              int host_node, int strategy, int *strategy_p, int *x_p,
                              rtopo__sched_t **s_p)
{
    return rtopo__sched_scatter_auto_cand(t, M, delta, esize, model, host_node, strategy,
                                          NULL, NULL, strategy_p, x_p, s_p);
}
