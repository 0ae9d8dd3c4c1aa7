/*
 * coll_generic.c - the generic broadcast, allreduce and scan of any
 * topology: binomial tree, recursive doubling, reduce-scatter plus
 * allgather, pipelined chain (coll_build.c keeps the fastest).
 */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"
#include "coll_int.h"

/* ---- generic algorithms ------------------------------------------------- */

static int rtopo__is_cube(const rtopo__cb_t *b)
{
    return b->t->kind == RTOPO__TOPO_HYPERCUBE;
}

static void rtopo__direct(rtopo__cb_t *b, int from, int sreg, int to, int dreg, uint32_t step)
{
    rtopo__cb_move(b, from, sreg, to, dreg, step, RTOPO__LINK_DIRECT, 0, 0);
}

/* binomial tree from the root (relative ranks v = r XOR root when p is a
 * power of two, else r - root mod p), the longest distance first: where
 * hosts hold aligned blocks of consecutive ranks, the first, few moves
 * cross between hosts and the later, many stay inside them */
void rtopo__gen_bcast(rtopo__cb_t *b)
{
    int p = b->t->p, root = b->c->root, v, k, lg = 0, pow2 = (p & (p - 1)) == 0;

    if (rtopo__is_cube(b)) {
        rtopo__cube_t q = { 0, b->t->dim, RTOPO__LINK_CUBE_ID };

        rtopo__cube_bcast(b, &q, root, RRECV(0), RRECV(0), 0);
        return;
    }
    while ((1L << lg) < p)
        lg++;
    for (k = lg - 1; k >= 0; k--)
        for (v = 0; v + (1 << k) < p; v += 2 << k)
            rtopo__direct(b, pow2 ? v ^ root : (v + root) % p, RRECV(0),
                          pow2 ? (v + (1 << k)) ^ root : (v + (1 << k) + root) % p, RRECV(0),
                          (uint32_t)(lg - k));
}

/* recursive doubling; the q = 2^floor(log2 p) lowest ranks take the rest's
 * values first and hand them the result last */
void rtopo__gen_allreduce(rtopo__cb_t *b)
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
void rtopo__gen_allreduce_rsag(rtopo__cb_t *b)
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
    /* halve across the lowest dimension first: where hosts hold blocks of
     * consecutive ranks the halves that cross between hosts are the last,
     * smallest ones (and the allgather's the first, smallest ones) */
    for (k = 0; k < lg; k++) {
        int mask = 1 << k, in = RTMP(1 + (k & 1));

        t++;
        for (v = 0; v < q; v++) {
            uint64_t mid = lo[v] + (hi[v] - lo[v]) / 2;
            int up = (v & mask) != 0;

            /* send the half the partner keeps; combine the half we keep */
            rtopo__cb_part(b, v, RRECV(0), v ^ mask, in, t, link, k,
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
        int mask = 1 << k;

        t++;
        for (v = 0; v < q; v++)
            rtopo__cb_part(b, v, RRECV(0), v ^ mask, RRECV(0), t, link, k, lo[v], hi[v]);
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
void rtopo__gen_scan_chain(rtopo__cb_t *b)
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
void rtopo__gen_scan(rtopo__cb_t *b)
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

/* ---- one piece of the broadcast, allreduce and scan: the OTIS algorithm
 * (coll_otis.c) for TOPO on an OTIS topology, else the generic one that
 * algo names; a plan keeps its share as the nodes are made
 * (rtopo__cb_cut) ---- */

static int rtopo__on_otis(const rtopo__cb_t *b)
{
    return b->t->kind == RTOPO__TOPO_OTIS_MESH || b->t->kind == RTOPO__TOPO_OTIS_HYPERCUBE;
}

static void rtopo__bcast_prog(rtopo__cb_t *b, int algo)
{
    rtopo__cb_cut(b);
    if (rtopo__on_otis(b) && algo == RTOPO_COLL_TOPO)
        rtopo__otis_bcast(b);
    else
        rtopo__gen_bcast(b);
}

static void rtopo__allreduce_prog(rtopo__cb_t *b, int algo)
{
    rtopo__cb_cut(b);
    if (rtopo__on_otis(b) && algo == RTOPO_COLL_TOPO)
        rtopo__otis_allreduce(b);
    else if (algo == RTOPO__COLL_RSAG)
        rtopo__gen_allreduce_rsag(b);
    else
        rtopo__gen_allreduce(b);
}

static void rtopo__scan_prog(rtopo__cb_t *b, int algo)
{
    rtopo__cb_cut(b);
    if (rtopo__on_otis(b) && algo == RTOPO_COLL_TOPO) {
        if (rtopo__is_om(b))
            rtopo__om_scan(b);
        else
            rtopo__oh_scan(b);
    } else if (algo == RTOPO__COLL_CHAIN) {
        rtopo__gen_scan_chain(b);
    } else {
        rtopo__gen_scan(b);
    }
}

/* ---- builders: the candidates of the broadcast, allreduce and scan ---- */

static double rtopo__gen_lb(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                            rtopo__prog_fn *prog, const rtopo__model_t *model, int algo,
                            uint32_t pieces, const rtopo__sched_t *share);

int rtopo__bcast_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                       const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    return rtopo__coll_build_cand_lb(t, c, rtopo__bcast_prog, rtopo__gen_lb, model, 0, s_p);
}

/* The generic allreduce on p = 2^d ranks exchanges with partner v ^ 2^k
 * round after round, every rank alike, and so does reduce-scatter +
 * allgather when every half is as long as its partner's (the count a
 * multiple of p): each translation v -> v ^ a maps the graph onto itself,
 * and one share folded onto itself runs as the whole graph does
 * (rtopo__sim_sym; on the hypercube the exchanges go over its own links,
 * alike). */
static double rtopo__gen_time(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                              rtopo__prog_fn *prog, const rtopo__model_t *model, int algo,
                              uint32_t pieces, const rtopo__sched_t *share)
{
    int p = t->p;

    (void)prog;
    (void)pieces;
    if (c->op != RTOPO__COLL_ALLREDUCE || p < 2 || (p & (p - 1)) || c->own < 1 ||
        !(algo == RTOPO_COLL_GENERIC ||
          (algo == RTOPO__COLL_RSAG && c->count % (uint64_t)p == 0)))
        return -1;
    return rtopo__sim_sym(share, model, c->own - 1);
}

int rtopo__allreduce_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    return rtopo__coll_build_cand_x(t, c, rtopo__allreduce_prog, rtopo__gen_lb,
                                    rtopo__gen_time, model, RTOPO__COLL_RSAG, s_p);
}

/* The chain's first piece goes through every rank in turn: on rank v
 * (0 < v < p - 1) it arrives from v - 1, is copied into RECV, combined
 * and sent on from RECV, each node after the one before (the edges
 * rtopo__gen_scan_chain's registers give).  So the whole graph takes at
 * least its p - 1 hops and p - 2 copies at their least costs (ts + m*tw
 * of the pair's reach; the combines left out), m no more than a piece
 * of the share has: of the order of p hops, where one share sees two. */
static double rtopo__chain_lb(const rtopo__tdesc_t *t, const rtopo__model_t *model,
                              const rtopo__sched_t *share)
{
    rtopo__model_t def;
    uint64_t len = UINT64_MAX;
    double lb = 0, ts, tw;
    uint32_t i;
    int v;

    if (t->p < 2)
        return 0;
    if (!model) {
        rtopo__model_default(&def);
        model = &def;
    }
    for (i = 0; i < share->nxfers; i++)
        if (share->xfers[i].nhops && share->xfers[i].len < len)
            len = share->xfers[i].len;
    if (len == UINT64_MAX)
        return 0;
    for (v = 1; v < t->p; v++) {
        rtopo__model_hop(model, RTOPO__LINK_DIRECT, v - 1, v, &ts, &tw);
        lb += ts + (double)len * tw;
        if (v < t->p - 1)
            lb += model->ts[RTOPO__LINK_LOCAL] + (double)len * model->tw[RTOPO__LINK_LOCAL];
    }
    return lb;
}

/* The OTIS algorithms run group by group, a group's result going on to
 * another by OTIS moves: a path through three whole groups (0, 1 and
 * n - 1, where the scan gathers the group totals; and the root's) follows
 * the data through every phase, where one share sees a rank's part of
 * each.  The bound costs what those 3n ranks' nodes do. */
static double rtopo__otis_lb(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                             rtopo__prog_fn *prog, const rtopo__model_t *model,
                             uint32_t pieces)
{
    int n = t->n, g[4] = { 0, 1, n - 1, c->root / (n > 0 ? n : 1) }, i, r;
    uint8_t *set;
    double lb;

    if ((t->kind != RTOPO__TOPO_OTIS_MESH && t->kind != RTOPO__TOPO_OTIS_HYPERCUBE) ||
        n < 2 || !(set = calloc((size_t)t->p / 8 + 1, 1)))
        return 0;
    for (i = 0; i < 4; i++)
        for (r = g[i] * n; r < (g[i] + 1) * n && r < t->p; r++)
            set[r >> 3] |= (uint8_t)(1u << (r & 7));
    lb = rtopo__coll_path_lb(t, c, prog, RTOPO_COLL_TOPO, pieces, model, set);
    free(set);
    return lb;
}

/* Reduce-scatter and allgather swap halves with partner v ^ 2^k, round
 * after round: a path through the ranks whose bits are one run of ones
 * (0, 1, 3, 7, ..., 2^k, 2^k + 2^(k+1), ...; and those past the largest
 * power of two q that fold into them) goes from partner to partner
 * through every round, where one share sees one rank's rounds; about
 * log2(p)^2 / 2 ranks. */
static double rtopo__rsag_lb(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                             rtopo__prog_fn *prog, const rtopo__model_t *model,
                             uint32_t pieces)
{
    int p = t->p, q = 1, a, b, v;
    uint8_t *set;
    double lb;

    while (q * 2 <= p)
        q *= 2;
    if (p < 4 || !(set = calloc((size_t)p / 8 + 1, 1)))
        return 0;
    for (a = 0; (1 << a) <= q; a++)
        for (b = 0; b <= a; b++) {
            v = (int)(((1u << a) - 1) & ~((1u << b) - 1));
            if (v < q)
                set[v >> 3] |= (uint8_t)(1u << (v & 7));
            if (v < q && v + q < p)
                set[(v + q) >> 3] |= (uint8_t)(1u << ((v + q) & 7));
        }
    lb = rtopo__coll_path_lb(t, c, prog, RTOPO__COLL_RSAG, pieces, model, set);
    free(set);
    return lb;
}

/* what a family knows of its candidates' whole graphs (rtopo__lb_fn) */
static double rtopo__gen_lb(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                            rtopo__prog_fn *prog, const rtopo__model_t *model, int algo,
                            uint32_t pieces, const rtopo__sched_t *share)
{
    if (algo == RTOPO__COLL_CHAIN)
        return rtopo__chain_lb(t, model, share);
    if (algo == RTOPO_COLL_TOPO)
        return rtopo__otis_lb(t, c, prog, model, pieces);
    if (algo == RTOPO__COLL_RSAG)
        return rtopo__rsag_lb(t, c, prog, model, pieces);
    return 0;
}

/* Recursive doubling (rtopo__gen_scan) over DIRECT links on p = 2^L
 * ranks, in one piece, under a model that costs every hop alike (no
 * layout, no lanes): each rank copies SEND to RECV (Y = ts + m*tw of
 * LOCAL), then in round k sends RECV to v + 2^k (X = ts + m*tw of DIRECT,
 * tq included) and combines what v - 2^k sent (C = m*tk).  The graph runs
 * in Y + L(X + C), and with one port (where the ranks below 2^k, whose
 * sums are done before round k, send several rounds at once and queue)
 * 2X more from L >= 2 on.  The form is read off the simulator, not
 * derived: test_share.c holds it against the whole graph's run, to the
 * last bit (the parts added in this order), over 2 to 4096 ranks, five
 * kinds of topology, one to three ports and none, and models that weigh
 * each part differently.  Other sizes (whose time hangs on p's bits) and
 * pieces: -1.  share: any rank's share of that graph (its parts give m). */
static double rtopo__rd_scan_time(const rtopo__tdesc_t *t, const rtopo__model_t *model,
                                  const rtopo__sched_t *share)
{
    rtopo__model_t def;
    uint64_t m = 0;
    double ts, tw, X, C, Y, T;
    uint32_t i;
    int L = 0, k, seen = 0;

    if (!model) {
        rtopo__model_default(&def);
        model = &def;
    }
    if (t->p < 2 || (t->p & (t->p - 1)) || model->layout || model->lanes > 0)
        return -1;
    while ((1 << L) < t->p)
        L++;
    /* every part of the share moves or combines the same m bytes, every
     * transfer one DIRECT hop or a copy on its rank */
    for (i = 0; i < share->nxfers; i++) {
        const rtopo__xfer_t *x = &share->xfers[i];

        if (x->nhops > 1 || (x->nhops && share->hops[x->hop0].link != RTOPO__LINK_DIRECT) ||
            (seen && x->len != m))
            return -1;
        m = x->len;
        seen = 1;
    }
    for (i = 0; i < share->nkerns; i++)
        if (share->kerns[i].type != RTOPO__KERN_COMBINE || (seen && share->kerns[i].len != m))
            return -1;
    if (!seen)
        return -1;
    rtopo__model_hop(model, RTOPO__LINK_DIRECT, 0, 1, &ts, &tw);
    X = ts + (double)m * tw;
    C = (double)m * model->tk;
    Y = model->ts[RTOPO__LINK_LOCAL] + (double)m * model->tw[RTOPO__LINK_LOCAL];
    T = Y;
    if (model->ports == 1 && L >= 2) {
        T += X;
        T += X;
    }
    for (k = 0; k < L; k++) {
        T += X;
        T += C;
    }
    return T;
}

/* The generic scan's time where its shape gives it (rtopo__time_fn): on
 * the hypercube, the cube scan (rtopo__cube_scan) exchanges with v ^ 2^k
 * in round k, every rank alike but for the combines into its prefix in
 * the rounds of its set bits, which come after what it sends on.  What a
 * rank has done after round k hangs on its bits 0..k alone, which its
 * partner of round k + 1 shares: the partner's sends run when the rank's
 * do, and the share of a rank folded onto itself (rtopo__sim_sym) runs as
 * that rank runs in the whole graph.  Rank p - 1, every bit set, ends
 * last: its share's fold (built here, of the same pieces) is the whole
 * graph's time.  Elsewhere, recursive doubling in one piece on 2^L ranks
 * has its closed form (rtopo__rd_scan_time). */
static double rtopo__scan_time(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                               rtopo__prog_fn *prog, const rtopo__model_t *model, int algo,
                               uint32_t pieces, const rtopo__sched_t *share)
{
    rtopo__coll_t last = *c;
    rtopo__sched_t *s = NULL;
    double tm;

    if (c->op != RTOPO__COLL_SCAN || algo != RTOPO_COLL_GENERIC || t->p < 2 || c->own < 1 ||
        pieces != 1)
        return -1;
    if (t->kind != RTOPO__TOPO_HYPERCUBE)
        return rtopo__rd_scan_time(t, model, share);
    if (t->p != 1 << t->dim || (model && (model->layout || model->lanes > 0)))
        return -1;
    if (c->own == t->p)
        return rtopo__sim_sym(share, model, t->p - 1);
    last.own = t->p;
    last.chunks = pieces;
    if (rtopo__coll_algo1(t, &last, prog, algo, model, &s))
        return -1;
    tm = rtopo__sim_sym(s, model, t->p - 1);
    rtopo__sched_free(s);
    return tm;
}

int rtopo__scan_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                      const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    return rtopo__coll_build_cand_x(t, c, rtopo__scan_prog, rtopo__gen_lb,
                                    rtopo__scan_time, model, RTOPO__COLL_CHAIN, s_p);
}

/* the program of candidate algo of c->op, NULL if it has none */
static rtopo__prog_fn *rtopo__cand_prog(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                                        int algo)
{
    int otis = t->kind == RTOPO__TOPO_OTIS_MESH || t->kind == RTOPO__TOPO_OTIS_HYPERCUBE;
    rtopo__prog_fn *prog = c->op == RTOPO__COLL_BCAST ? rtopo__bcast_prog :
                           c->op == RTOPO__COLL_SCAN ? rtopo__scan_prog :
                           c->op == RTOPO__COLL_ALLREDUCE ? rtopo__allreduce_prog : NULL;

    if (!prog || (algo == RTOPO_COLL_TOPO && !otis) ||
        (algo == RTOPO__COLL_RSAG && c->op != RTOPO__COLL_ALLREDUCE) ||
        (algo == RTOPO__COLL_CHAIN && c->op != RTOPO__COLL_SCAN) ||
        algo < RTOPO_COLL_TOPO || algo > RTOPO__COLL_CHAIN)
        return NULL;
    return prog;
}

double rtopo__coll_cand_bound(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                              const rtopo__model_t *model, int algo)
{
    rtopo__prog_fn *prog = rtopo__cand_prog(t, c, algo);

    return prog ? rtopo__coll_cand_lb(t, c, prog, rtopo__gen_lb, model, algo) : -1;
}

double rtopo__coll_cand_time(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                             const rtopo__model_t *model, int algo)
{
    rtopo__prog_fn *prog = rtopo__cand_prog(t, c, algo);
    rtopo__time_fn *tf = c->op == RTOPO__COLL_SCAN ? rtopo__scan_time :
                         c->op == RTOPO__COLL_ALLREDUCE ? rtopo__gen_time : NULL;

    return prog && tf ? rtopo__coll_cand_ex(t, c, prog, tf, model, algo) : -1;
}

int rtopo__coll_cand_sched(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           const rtopo__model_t *model, int algo, rtopo__sched_t **s_p)
{
    rtopo__prog_fn *prog = rtopo__cand_prog(t, c, algo);
    rtopo__coll_t whole = *c;

    if (!prog)
        return rtopo__error(RTOPO_ERR_INVAL, "%s has no candidate %d",
                            rtopo__coll_name(c->op), algo);
    whole.own = 0;
    return rtopo__coll_algo1(t, &whole, prog, algo, model, s_p);
}
