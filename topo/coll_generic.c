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

static int rtopo__u32_cmp(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

    return a < b ? -1 : a > b;
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

/* the flat tree: the root sends to every other rank itself, the farthest
 * (relative rank p - 1) first, as the binomial tree's first sends go the
 * farthest.  Where ranks outnumber the processors that run them, a rank
 * that forwards what it received waits for its turn first (the model's
 * tt), on every level of a tree: the root's eager sends wait for none,
 * and every receiver waits for its own turn once, all at once. */
void rtopo__gen_bcast_flat(rtopo__cb_t *b)
{
    int p = b->t->p, root = b->c->root, v;

    for (v = p - 1; v >= 1; v--)
        rtopo__direct(b, root, RRECV(0), (v + root) % p, RRECV(0), 1);
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

/* the scan along a chain of the ranks: rank v takes the prefix of v - 1
 * into its RECV (nothing else is there yet: no copy through TMP on the
 * path), adds its own and passes it on; long vectors are pipelined in
 * pieces, so each rank moves its vector once, where recursive doubling
 * moves it log2(p) times */
void rtopo__gen_scan_chain(rtopo__cb_t *b)
{
    int p = b->t->p, v;

    rtopo__cb_copy(b, 0, RSEND(0), RRECV(0), 0);
    for (v = 1; v < p; v++) {
        rtopo__direct(b, v - 1, v == 1 ? RSEND(0) : RRECV(0), v, RRECV(0), (uint32_t)v);
        rtopo__cb_comb(b, v, RSEND(0), RRECV(0), (uint32_t)v);
    }
}

/* recursive doubling scan: in round k rank v adds in what v - 2^k holds */
void rtopo__gen_scan(rtopo__cb_t *b)
{
    int p = b->t->p, v, k;

    if (rtopo__is_cube(b)) {
        rtopo__cube_t c = { 0, b->t->dim, RTOPO__LINK_CUBE_ID };

        rtopo__cube_scan(b, &c, RSEND(0), RRECV(0), RNONE, RTMP(0), 1, RTOPO__CSCAN_NOTOT, 0);
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
    else if (algo == RTOPO__COLL_FLAT)
        rtopo__gen_bcast_flat(b);
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
    /* the flat tree where the model prices the receiver's turn, up to
     * the eager limit (a longer send waits for its receiver as a
     * forwarder does): without it, one port sends p - 1 messages in a
     * row against log2(p) */
    int flat = model && model->tt > 0 &&
               (!model->eager || c->count * c->esize <= model->eager);

    return rtopo__coll_build_cand_lb(t, c, rtopo__bcast_prog, rtopo__gen_lb, model,
                                     flat ? RTOPO__COLL_FLAT : 0, s_p);
}

/* ---- one host's ranks folded onto themselves ------------------------------
 *
 * The generic allreduce on p = 2^d ranks (recursive doubling; reduce-
 * scatter + allgather when every half is as long as its partner's, the
 * count a multiple of p) exchanges with partner v ^ 2^k round after round,
 * every rank alike: each translation g_a: v -> v ^ a maps its graph onto
 * itself, nodes, lengths, registers and edges (on the hypercube over its
 * own links, alike).  Without a layout every hop costs the same wherever
 * it is, and one rank's share folded onto itself runs as the whole graph
 * does (rtopo__sim_sym).
 *
 * With a layout, a hop's cost hangs on its reach (one host or two) and a
 * host's inter-host hops share its link out (hostlinks): the ranks of one
 * host are coupled, and one rank alone no longer stands for the others.
 * The fold still holds, over one host H (the host of rank 0) instead of
 * one rank, where the hosts are the classes of "equal outside a bit mask
 * M": host(v) = host(w) iff (v ^ w) & ~M = 0 (rtopo__host_mask; hosts of
 * aligned blocks of 2^h consecutive ranks are M = 2^h - 1, i.e. a rank's
 * host is its high bits: an OTIS group on a host, a sub-cube per host;
 * ranks dealt round robin over 2^j hosts are M = ~(2^j - 1)).  Proof:
 *
 * (a) The reach of a hop v -> v ^ a is intra-host iff a & ~M = 0: it hangs
 *     on a alone.  So every translation keeps every hop's ts, tw, th and
 *     reach, and g_c for c & M = 0 (c in C, the bits outside M) maps each
 *     host onto a host, its link out onto that host's, and keeps the order
 *     of the ranks inside a host (v and w of one host differ inside M
 *     only, and XOR with c, outside M, leaves their highest differing bit
 *     as it is).  Every partner offset 2^k lies either inside M (both ends
 *     on one host) or in C.
 * (b) The fold F: every node that touches H; a transfer between two ranks
 *     of H as it is; rank v's transfer x to q outside H (offset a = v ^ q
 *     in C) stands for the transfer y that q sends v, which is x's image
 *     under g_a (g_a swaps v and q, maps H's link out onto q's host's and
 *     keeps the graph).  x keeps its send port (v's), its link direction
 *     (v -> q, the image of y's q -> v), its host's link out (the image of
 *     the one y takes) and lands on v: the receive port y takes.  It waits
 *     for the edges into either on v, releases x's edges on v when its
 *     data has left and y's when it lands.  Edges on ranks outside H are
 *     left out: those into and out of x on q are y's on v, moved by g_a.
 * (c) The whole graph's run is g_c-symmetric for every c in C: node
 *     g_c(u) is ready, is granted its resources and ends when u is.  The
 *     run's rules are the same for every node; a resource is a rank's
 *     send or receive port or processor, a link direction, or a host's
 *     link out, and g_c maps each onto one of the same kind with the same
 *     costs, asked for by the images of the nodes that ask for the first
 *     (a).  By induction over the instants of the run, u and g_c(u) then
 *     get the same grants, provided the requests that come at one instant
 *     for one resource are served (first pushed, first served) in the
 *     images' order.  Inside a host they are: the builder makes each
 *     round's nodes rank by rank, every event is pushed by the processing
 *     of one before it, and g_c keeps the ranks' order inside a host (a).
 *     A host's link out and a rank's send ports and processor are asked
 *     for by one host's ranks only.  A rank's receive port is asked for
 *     by its partners of every round, some on other hosts; in one piece
 *     the receive of round k is ready only once the sender has combined
 *     round k - 1, and the requests meet at one instant only where ranks
 *     of different rounds line up to the last bit.
 * (d) So y runs in the whole graph exactly when x does in F, every node of
 *     H sees in F the requests it sees in the whole graph, in the same
 *     order, at the same times, and F's makespan is H's.  Every host is
 *     the image of H under some g_c: H's end is the whole graph's.
 *     What (c) leaves open is the order of two requests at one instant
 *     for one receive port from two hosts whose events the simulator
 *     pushed in an order g_c does not keep (it follows the hosts' ranks);
 *     test_share.c holds F's time against the whole graph's to the last
 *     bit over every layout and model it runs (test_share_host_time).
 *     Pieces are not folded: pieces one step apart put receives of
 *     different rounds at one rank's port at one instant by construction.
 * Not folded (the family answers -1, and the choice runs the graph): a
 * model with lanes (rtopo__sim_sym says why), a layout that is not such a
 * mask (a host whose block straddles an offset's boundary sees
 * inter-host hops in a round where its neighbour's ranks see intra-host
 * ones, and no translation maps one onto the other), hops that cost
 * nothing (ties at a receive port), routed or forwarded transfers.
 *
 * Lanes: a lane is one pool for the whole job's hops and kernels; p
 * ranks that ask for it at one instant are served one after another in
 * the order of their pushes, so rank v's k-th work ends after the works
 * of every rank before it: the run is symmetric under no translation (the
 * ranks' times differ by their place in that order), and no share folds
 * onto itself.  A model with lanes keeps running the whole graph. */

/* M where the hosts of layout l on p = 2^d ranks are the classes of
 * "equal outside M" (host(v) = host(w) iff (v ^ w) & ~M = 0), else -1:
 * the ranks on rank 0's host are the sub-masks of M, every rank is on the
 * host of its bits outside M, and no two such classes share a host. */
static long rtopo__host_mask(const rtopo__layout_t *l, int p)
{
    uint32_t M = 0, n = 0, nrep, i, *rep;
    int v;
    long res = -1;

    if (!l || p < 1 || (p & (p - 1)) || l->nranks != (uint32_t)p)
        return -1;
    for (v = 0; v < p; v++)
        if (l->host[v] == l->host[0]) {
            M |= (uint32_t)v;
            n++;
        }
    if (n != 1u << __builtin_popcount(M))
        return -1;
    for (v = 0; v < p; v++)
        if (l->host[v] != l->host[(uint32_t)v & ~M])
            return -1;
    nrep = (uint32_t)p / n;
    if (!(rep = malloc((size_t)nrep * sizeof(*rep))))
        return -1;
    for (i = 0, v = 0; v < p; v++)
        if (!((uint32_t)v & M))
            rep[i++] = l->host[v];
    qsort(rep, nrep, sizeof(*rep), rtopo__u32_cmp);
    for (i = 1; i < nrep && rep[i] != rep[i - 1]; i++)
        ;
    if (i >= nrep)
        res = (long)M;
    free(rep);
    return res;
}

/* the time of the generic allreduce's whole graph from the share of rank
 * 0's host, folded (above, rtopo__sim_fold); -1 where the layout is not a
 * mask's */
static double rtopo__host_time(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                               rtopo__prog_fn *prog, const rtopo__model_t *model, int algo,
                               uint32_t pieces)
{
    long M = rtopo__host_mask(model->layout, t->p);
    uint8_t *set;
    rtopo__sched_t *h = NULL;
    double tm = -1;
    uint32_t v;

    if (M < 0 || !(set = calloc((size_t)t->p / 8 + 1, 1)))
        return -1;
    for (v = (uint32_t)M;; v = (v - 1) & (uint32_t)M) {
        set[v >> 3] |= (uint8_t)(1u << (v & 7));
        if (!v)
            break;
    }
    if (rtopo__coll_build_ranks(t, c, prog, algo, pieces, set, &h) == RTOPO_OK)
        tm = rtopo__sim_fold(h, model, 0, (uint32_t)M);
    rtopo__sched_free(h);
    free(set);
    return tm;
}

static double rtopo__gen_time(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                              rtopo__prog_fn *prog, const rtopo__model_t *model, int algo,
                              uint32_t pieces, const rtopo__sched_t *share)
{
    int p = t->p;

    if (c->op != RTOPO__COLL_ALLREDUCE || p < 2 || (p & (p - 1)) || c->own < 1 ||
        (model && model->tt > 0) ||
        !(algo == RTOPO_COLL_GENERIC ||
          (algo == RTOPO__COLL_RSAG && c->count % (uint64_t)p == 0)))
        return -1;
    if (model && model->layout)
        return model->lanes > 0 || pieces != 1 ? -1 :
               rtopo__host_time(t, c, prog, model, algo, pieces);
    return rtopo__sim_sym(share, model, c->own - 1);
}

int rtopo__allreduce_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    return rtopo__coll_build_cand_x(t, c, rtopo__allreduce_prog, rtopo__gen_lb,
                                    rtopo__gen_time, model, RTOPO__COLL_RSAG, s_p);
}

/* The chain's first piece goes through every rank in turn: on rank v
 * (0 < v < p - 1) it arrives from v - 1 in RECV, is combined and sent on
 * from RECV, each node after the one before (the edges
 * rtopo__gen_scan_chain's registers give).  So the whole graph takes at
 * least its p - 1 hops at their least costs (ts + m*tw of the pair's
 * reach; the combines left out), m no more than a piece of the share
 * has: of the order of p hops, where one share sees two. */
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
        if (rtopo__sched_xnhops(share, i) && rtopo__sched_xlen(share, i) < len)
            len = rtopo__sched_xlen(share, i);
    if (len == UINT64_MAX)
        return 0;
    for (v = 1; v < t->p; v++) {
        rtopo__model_hop(model, RTOPO__LINK_DIRECT, v - 1, v, &ts, &tw);
        lb += ts + (double)len * tw;
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
 * layout, no lanes).  Rank w's nodes: the copy of SEND into RECV (Y = ts +
 * m*tw of LOCAL); in round k (0 <= k < L) the send s_k(w) of RECV into
 * TMP(k & 1) of w + 2^k when w + 2^k < p (X = ts + m*tw of DIRECT, tq
 * included), and the combine c_k(w) of TMP(k & 1) into RECV when w >= 2^k
 * (C = m*tk).  The edges the registers give, on w: s_k(w) after the last
 * node that wrote RECV before round k (c_(k-1)(w), or w's last combine, or
 * the copy); c_k(w) after the receive of round k has landed, after
 * c_(k-1)(w) (or the copy) and after s_k(w) has left (it overwrites what
 * s_k reads); the receive of round k after c_(k-2)(w) (it overwrites the
 * TMP that one read).  Link directions are each used once and a rank's
 * kernels are chained by those edges, so only the ports can make a node
 * wait longer than its edges.  Let A_k = Y + k(X + C), and R_k(w) the end
 * of w's last node of the rounds before k (R_0 = Y).
 *
 * No port limit (ports 0).  Claim: R_k(w) <= A_k for every w, with
 * equality for w >= 2^(k-1) (every w at k = 0).  Round k: a rank w >=
 * 2^k receives from w - 2^k, whose RECV is final at R_k(w - 2^k) <= A_k,
 * the receive's own edge (c_(k-2)(w)) at R_(k-1)(w) <= A_k: it lands by
 * A_k + X.  Where w sends too (w + 2^k < p), c_k(w) waits for its own
 * send to leave, at R_k(w) + X = A_k + X; so c_k(w) ends by A_(k+1), and
 * at A_(k+1) exactly where w sends or its partner is at A_k (w - 2^k >=
 * 2^(k-1), or k = 0).  For k < L - 1 every w >= 2^k is one of those (one that does not
 * send has w >= p - 2^k, so w - 2^k >= p - 2^(k+1) >= 2^(k-1)); ranks
 * below 2^k do nothing in round k.  At k = L - 1 the claim is needed for
 * w = p - 1 alone (the last combine of all), and p - 1 - 2^(L-1) =
 * 2^(L-1) - 1 >= 2^(L-2) once L >= 2 (L = 1: rank 1 takes rank 0's copy,
 * Y + X + C).  So T = A_L = Y + L(X + C).
 *
 * Two ports or more: the run above never asks for a third port at once,
 * so it is this run.  Receives of w: the one of round k starts after
 * c_(k-2)(w), which ends after the receive of round k - 2 has landed, so
 * no three receives of a rank overlap.  Sends of w while it combines:
 * s_(k+1)(w) after c_k(w), after s_k(w) has left.  Once its sum is final
 * (w < 2^k, at R <= A_k), s_k(w) starts at max(R, R_(k-1)(w + 2^k)) =
 * max(R, A_(k-1)) (w + 2^k >= 2^(k-1), equality above): A_(k-1) for all
 * but its first two, which may start together, and A_k >= A_(k-1) + X.
 * So no three sends overlap either, and T = Y + L(X + C) again.
 *
 * One port: at time Y rank 0 asks for its sends of rounds 0 and 1 (those
 * of later rounds wait for their receivers' combines, c_(k-2)), before
 * rank 1 asks for its send to rank 2: the simulator serves the requests
 * of one instant in the order they were made, here rank by rank as the
 * copies ended.  Rank 0's send of round 1 then holds rank 2's receive
 * port in [Y + X, Y + 2X] (it waited for rank 0's send port), so rank 1's
 * send of round 0 goes at Y + 2X, and c_0(1) and c_0(2) end at A_1 + 2X.
 * From there a chain ends at A_L + 2X: rank 2^k - 1 (k >= 2) receives in
 * round k - 1 from 2^(k-1) - 1, whose sum is final at A_(k-1) + 2X and
 * whose first send after that is this one, landing at A_(k-1) + 3X, after
 * 2^k - 1's own send of that round (at A_(k-1) + X): c_(k-1)(2^k - 1)
 * ends at A_k + 2X, and for k = L that is rank p - 1.  So T >= A_L + 2X
 * from L >= 2 on.  That no node ends later is not derived here: it hangs
 * on the order in which the simulator serves requests that come at one
 * instant from ranks whose sums are final (they send several rounds
 * queued on their one port, and each such send holds its receiver's port
 * ahead of time) and ranks still combining; ranks in step are served in
 * rank order, as their copies were, which puts the receive of round k - 1
 * of a rank ahead of a send of round k to it that becomes ready at the
 * same instant.  test_share.c holds the whole form against the whole
 * graph's run, to the last bit (the parts are added in this order), over
 * 2 to 4096 ranks, five kinds of topology, one to three ports and none,
 * and models that weigh each part differently, X = C and other ratios
 * where sums of different rounds meet to the last bit among them.
 * Other sizes (whose time hangs on p's bits) and pieces: -1.  share: any
 * rank's share of that graph (its parts give m). */
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
    if (t->p < 2 || (t->p & (t->p - 1)) || model->layout || model->lanes > 0 ||
        model->tt > 0)
        return -1;
    while ((1 << L) < t->p)
        L++;
    /* every part of the share moves or combines the same m bytes, every
     * transfer one DIRECT hop or a copy on its rank */
    for (i = 0; i < share->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(share, i), *x = &xv;

        if (x->nhops > 1 || (x->nhops && share->hops[x->hop0].link != RTOPO__LINK_DIRECT) ||
            (seen && x->len != m))
            return -1;
        m = x->len;
        seen = 1;
    }
    for (i = 0; i < share->nkerns; i++)
        if (rtopo__sched_kshape(share, i)->type != RTOPO__KERN_COMBINE ||
            (seen && rtopo__sched_kshape(share, i)->len != m))
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

/* the cube scan with the last round both ways too (rtopo__scan_time),
 * and like the generic one no combine into the total in the last round */
static void rtopo__scan_prog_down(rtopo__cb_t *b, int algo)
{
    rtopo__cube_t c = { 0, b->t->dim, RTOPO__LINK_CUBE_ID };

    (void)algo;
    rtopo__cb_cut(b);
    rtopo__cube_scan(b, &c, RSEND(0), RRECV(0), RNONE, RTMP(0), 1,
                     RTOPO__CSCAN_DOWN | RTOPO__CSCAN_NOTOT, 0);
}

/* The generic scan's time where its shape gives it (rtopo__time_fn): on
 * the hypercube, the cube scan (rtopo__cube_scan) exchanges with v ^ 2^k
 * in round k, every rank alike but for the combines into its prefix in
 * the rounds of its set bits, which come after what it sends on, and but
 * for the last round, where only the lower half sends (up) and no rank
 * combines into its running total (nothing reads it after).
 * Take first the graph D that sends both ways in the last round too
 * (rtopo__scan_prog_down; in its last round, too, the received totals
 * go into the prefixes of the upper half alone).  What a rank has done after round k hangs on
 * its bits 0..k alone, which its partner of round k + 1 shares: the
 * partner's sends run when the rank's do, and the share of a rank folded
 * onto itself (rtopo__sim_sym) runs as that rank runs in D.  Rank p - 1,
 * every bit set, ends last: its share's fold is D's time.
 * The graph G the scan runs is D without the sends down of the last
 * round, and G's time is D's: (1) in D, nothing of the last round comes
 * before a node of an earlier round at a port or processor (a rank's
 * send of the last round waits for its total of the round before, so for
 * its earlier sends to have left and its earlier receives to have landed;
 * a receive of the last round waits for the sender's total, which by the
 * symmetry between the halves lands when the receiver's own does), so
 * the halves run the rounds before the last as two separate cubes, in D
 * as in G; (2) the sends up of the last round then start, take their
 * ports and links and land in G as in D (the send down they met in D
 * used the upper rank's send port and the lower rank's receive port,
 * which no node of G's last round asks for), and the upper half's
 * combines into the prefix follow them as in D (they do not touch the
 * total the send down read: no edge to it); (3) the lower half
 * does less in G than in D.  So every upper rank ends in G when it does
 * in D, no lower rank later, and rank p - 1 ends last in both: the fold
 * of D's share of rank p - 1 (built here, of the same pieces) is G's
 * time.  (G's own share cannot be folded: p - 1's receive of the last
 * round has no send of its own to stand for it.)  test_share.c holds it
 * against G's whole run to the last bit.  Elsewhere, recursive doubling
 * in one piece on 2^L ranks has its closed form (rtopo__rd_scan_time).
 * With hosts or lanes: -1.  The host fold of the allreduce (above) needs
 * every host alike; here a host whose ranks have more bits set combines
 * more, so hosts differ, and that the host of rank p - 1 ends last would
 * need the run to be monotone in the work a host does, which queues
 * served first come first served (the host's link out) are not; the
 * closed form's ranks on a host layout see inter-host hops in some
 * rounds and not others, by their place in the host.
 * Measured as well: with hosts the classes of equal bits outside a mask
 * M, the fold of rank p - 1's host (rtopo__sim_fold(.., p - 1, M) over
 * the nodes that touch it) misses the whole graph's time where a combine
 * costs about what a hop does.  16 ranks on 4 hosts in blocks (M = 3),
 * intra.ts=1us,intra.tw=1ns,inter.ts=2us,inter.tw=2ns,tk=3e-9, 1000
 * int32: 140 us folded, 144 us whole; up to 12% below on 128 ranks.  No
 * other host's fold reaches the whole time either, rank p - 1 folded
 * alone misses too, and the misses stay without hostlinks and with costs
 * off round numbers (not ties): with hosts, a partner's send no longer
 * runs when the rank's does.  With tk = 0, or inter-host hops far dearer
 * than the combines, every case tried folded exactly (hypercubes of 2 to
 * 256 ranks, blocks and round robin), but no proof covers those either. */
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
    (void)prog;
    if (t->p != 1 << t->dim ||
        (model && (model->layout || model->lanes > 0 || model->tt > 0)))
        return -1;
    last.own = t->p;
    last.chunks = pieces;
    if (rtopo__coll_algo1(t, &last, rtopo__scan_prog_down, algo, model, &s))
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
        (algo == RTOPO__COLL_FLAT && c->op != RTOPO__COLL_BCAST) ||
        algo < RTOPO_COLL_TOPO || algo > RTOPO__COLL_FLAT)
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
