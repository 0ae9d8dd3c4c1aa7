/*
 * cart_sched.c - the Cartesian view of a topology (coordinates, lines,
 * sub-topologies) and shifts along one dimension.
 *
 * Routing rule: a dimension shift moves data only inside lines, the sets
 * of ranks that agree on every other coordinate; line L (index: the other
 * coordinates as a mixed-radix number) is a ring of E ranks shifted by
 * disp(L) = a*L + b mod E.  Each line's routes come from the whole-job
 * generators of shift_sched.c run on a descriptor of the line alone, then
 * placed on the line's ranks and links:
 *  - ring, mesh rows (ROW) and columns (COL): the RING algorithm, min(d,
 *    E-d) hops in the shorter direction, hop j at step j;
 *  - hypercube dimension k (E = 2): an odd displacement is one CUBE hop
 *    over dimension k of the overlay (rank r and the rank on node
 *    gray(r) ^ 2^k), already connected when the cube was created;
 *  - OTIS-mesh Px, Py: the in-group mesh has no wraparound, so a packet
 *    goes straight to its destination along the line, d hops forward or
 *    E-d back: max(d, E-d) steps (Wang and Sahni's MIMD bound);
 *  - OTIS-mesh Gx, Gy: an OTIS hop (G,P) -> (P,G), the same in-group line
 *    shift on the processor index, an OTIS hop back: 2 OTIS moves;
 *  - OTIS-hypercube G, P: E-cube on the group's cube (P is its own cube
 *    label), dimension order, log n - gamma(d) links; G between two OTIS
 *    hops.
 * Lines are disjoint, and so are the links they use, so the link load of
 * the whole schedule is the largest of one line's: 1 for every rule
 * above, whatever the displacement of each line.
 *
 * Cost formula: lock-step steps = max over lines of the line's steps:
 * min(d, E-d) on rings, mesh rows and columns, 1 for an odd cube
 * displacement; cut-through a line costs ts + m*tw + (h-1)*th for its
 * longest route of h hops.  In place (data in RECV, no SEND), each
 * moving rank copies its data to TMP in K = ceil(m/c) pieces of c bytes
 * through S slots and sends each piece on its own: the copies overlap
 * the transfers, TMP holds min(m, S*c) bytes, the lock-step count
 * becomes K*n + 1 (n: the steps of one piece) and the executor pays one
 * window handshake per piece.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

static int rtopo__cart_sqrt(int n)
{
    int s = 0;

    while ((long long)(s + 1) * (s + 1) <= n)
        s++;
    return s;
}

/* extents and label weights; returns ndims or < 0 */
static int rtopo__cart_shape(const rtopo__tdesc_t *t, int *E, long *w)
{
    int j, s;

    if (!t)
        return rtopo__error(RTOPO_ERR_INVAL, "no topology");
    switch (t->kind) {
    case RTOPO__TOPO_RING:
        E[0] = t->p - (t->host ? 1 : 0);
        w[0] = 1;
        return 1;
    case RTOPO__TOPO_MESH:
        E[0] = t->rows;
        E[1] = t->cols;
        w[0] = t->cols;
        w[1] = 1;
        return 2;
    case RTOPO__TOPO_HYPERCUBE:
        for (j = 0; j < t->dim; j++) {
            E[j] = 2;
            w[j] = 1L << j;
        }
        return t->dim;
    case RTOPO__TOPO_OTIS_MESH:
        s = rtopo__cart_sqrt(t->n);
        for (j = 0; j < 4; j++) {
            E[j] = s;
            w[j] = 1;
        }
        w[2] = s;
        w[1] = (long)s * s;
        w[0] = (long)s * s * s;
        return 4;
    case RTOPO__TOPO_OTIS_HYPERCUBE:
        E[0] = E[1] = t->n;
        w[0] = t->n;
        w[1] = 1;
        return 2;
    default:
        return rtopo__error(RTOPO_ERR_INVAL, "unknown topology kind %d", t->kind);
    }
}

static int rtopo__cart_nodes(const rtopo__tdesc_t *t)
{
    return t->p - (t->host ? 1 : 0);
}

int rtopo__cart_ndims(const rtopo__tdesc_t *t)
{
    int E[RTOPO__MAX_DIMS];
    long w[RTOPO__MAX_DIMS];

    return rtopo__cart_shape(t, E, w);
}

int rtopo__cart_extent(const rtopo__tdesc_t *t, int dim)
{
    int E[RTOPO__MAX_DIMS], nd;
    long w[RTOPO__MAX_DIMS];

    if ((nd = rtopo__cart_shape(t, E, w)) < 0)
        return nd;
    if (dim < 0 || dim >= nd)
        return rtopo__error(RTOPO_ERR_INVAL, "dimension %d: a %s has %d (0..%d)", dim,
                            rtopo__topo_name(t->kind), nd, nd - 1);
    return E[dim];
}

int rtopo__cart_coords(const rtopo__tdesc_t *t, int rank, int *coords)
{
    int E[RTOPO__MAX_DIMS], nd, j;
    long w[RTOPO__MAX_DIMS], label;

    if ((nd = rtopo__cart_shape(t, E, w)) < 0)
        return nd;
    if (rank < 0 || rank >= rtopo__cart_nodes(t))
        return rtopo__error(RTOPO_ERR_INVAL, "rank %d has no coordinates: the %s's ranks "
                            "with coordinates are 0..%d", rank, rtopo__topo_name(t->kind),
                            rtopo__cart_nodes(t) - 1);
    if (nd && !coords)
        return rtopo__error(RTOPO_ERR_INVAL, "coordinate array is NULL");
    label = t->kind == RTOPO__TOPO_HYPERCUBE ? (long)rtopo__gray((uint32_t)rank) : rank;
    for (j = 0; j < nd; j++)
        coords[j] = (int)((label / w[j]) % E[j]);
    return RTOPO_OK;
}

int rtopo__cart_rank(const rtopo__tdesc_t *t, const int *coords)
{
    int E[RTOPO__MAX_DIMS], nd, j;
    long w[RTOPO__MAX_DIMS], label = 0;

    if ((nd = rtopo__cart_shape(t, E, w)) < 0)
        return nd;
    if (nd && !coords)
        return rtopo__error(RTOPO_ERR_INVAL, "coordinate array is NULL");
    for (j = 0; j < nd; j++) {
        if (coords[j] < 0 || coords[j] >= E[j])
            return rtopo__error(RTOPO_ERR_INVAL, "coordinate %d is %d, not in 0..%d "
                                "(%s)", j, coords[j], E[j] - 1, rtopo__topo_name(t->kind));
        label += coords[j] * w[j];
    }
    if (t->kind == RTOPO__TOPO_HYPERCUBE)
        return (int)rtopo__gray_inv((uint32_t)label);
    return (int)label;
}

/* weights of the other coordinates once `drop` (a mask) is removed */
static void rtopo__cart_weights(int nd, const int *E, const long *w, unsigned drop, long *wl)
{
    int i, j;

    for (j = 0; j < nd; j++) {
        wl[j] = w[j];
        for (i = 0; i < nd; i++)
            if ((drop >> i & 1u) && w[i] < w[j])
                wl[j] /= E[i];
    }
}

int rtopo__cart_nlines(const rtopo__tdesc_t *t, int dim)
{
    int E = rtopo__cart_extent(t, dim);

    return E < 0 ? E : E ? rtopo__cart_nodes(t) / E : 0;
}

int rtopo__cart_line(const rtopo__tdesc_t *t, int dim, int rank, int *pos_p)
{
    int E[RTOPO__MAX_DIMS], c[RTOPO__MAX_DIMS], nd, j, st;
    long w[RTOPO__MAX_DIMS], wl[RTOPO__MAX_DIMS], line = 0;

    if ((nd = rtopo__cart_shape(t, E, w)) < 0)
        return nd;
    if (dim < 0 || dim >= nd)
        return rtopo__error(RTOPO_ERR_INVAL, "dimension %d out of 0..%d", dim, nd - 1);
    if ((st = rtopo__cart_coords(t, rank, c)))
        return st;
    rtopo__cart_weights(nd, E, w, 1u << dim, wl);
    for (j = 0; j < nd; j++)
        if (j != dim)
            line += c[j] * wl[j];
    if (pos_p)
        *pos_p = c[dim];
    return (int)line;
}

int rtopo__cart_member(const rtopo__tdesc_t *t, int dim, int line, int pos)
{
    int E[RTOPO__MAX_DIMS], c[RTOPO__MAX_DIMS], nd, j;
    long w[RTOPO__MAX_DIMS], wl[RTOPO__MAX_DIMS];

    if ((nd = rtopo__cart_shape(t, E, w)) < 0)
        return nd;
    if (dim < 0 || dim >= nd)
        return rtopo__error(RTOPO_ERR_INVAL, "dimension %d out of 0..%d", dim, nd - 1);
    if (line < 0 || line >= rtopo__cart_nodes(t) / E[dim])
        return rtopo__error(RTOPO_ERR_INVAL, "line %d out of range", line);
    rtopo__cart_weights(nd, E, w, 1u << dim, wl);
    for (j = 0; j < nd; j++)
        c[j] = j == dim ? pos : (int)((line / wl[j]) % E[j]);
    return rtopo__cart_rank(t, c);
}

/* ---- dimension shifts --------------------------------------------------- */

int rtopo__dimshift_disp(const rtopo__tdesc_t *t, const rtopo__dimshift_t *ds, int line)
{
    long long E = rtopo__cart_extent(t, ds->dim), a, b;

    if (E <= 0)
        return E < 0 ? (int)E : 0;
    a = ds->a % E;
    b = ds->b % E;
    a += a < 0 ? E : 0;
    b += b < 0 ? E : 0;
    return (int)((a * (line % E) + b) % E);
}

enum { RTOPO__LINE_RING, RTOPO__LINE_STRAIGHT, RTOPO__LINE_ECUBE };

/* how the lines along a dimension are routed */
typedef struct rtopo__lineroute {
    int how;          /* RTOPO__LINE_* */
    int link;         /* class of the in-line hops */
    int cube_dim;     /* hypercube: the dimension, -1 otherwise */
    int transpose;    /* OTIS G lines: transpose, line, transpose back */
    int n;            /* OTIS: n */
} rtopo__lineroute_t;

static void rtopo__lineroute(const rtopo__tdesc_t *t, int dim, rtopo__lineroute_t *lr)
{
    memset(lr, 0, sizeof(*lr));
    lr->cube_dim = -1;
    lr->n = t->n;
    switch (t->kind) {
    case RTOPO__TOPO_RING:
        lr->link = RTOPO__LINK_RING;
        break;
    case RTOPO__TOPO_MESH:
        lr->link = dim ? RTOPO__LINK_ROW : RTOPO__LINK_COL;
        break;
    case RTOPO__TOPO_HYPERCUBE:
        lr->link = RTOPO__LINK_CUBE;
        lr->cube_dim = dim;
        break;
    case RTOPO__TOPO_OTIS_MESH:
        /* Gx, Px move a mesh row index (COL links), Gy, Py a column */
        lr->how = RTOPO__LINE_STRAIGHT;
        lr->link = dim % 2 ? RTOPO__LINK_ROW : RTOPO__LINK_COL;
        lr->transpose = dim < 2;
        break;
    default:   /* OTIS-hypercube */
        lr->how = RTOPO__LINE_ECUBE;
        lr->link = RTOPO__LINK_CUBE;
        lr->transpose = dim == 0;
        break;
    }
}

/* one line's routes over positions 0..E-1, displacement d (0 <= d < E) */
static int rtopo__line_sched(const rtopo__lineroute_t *lr, int E, int d, uint64_t bytes,
                             rtopo__sched_t **s_p)
{
    rtopo__tdesc_t lt;
    rtopo__sched_t *s;
    uint32_t h = 0, total = 0;
    int st, i, j, lg = 0;

    if (lr->how == RTOPO__LINE_ECUBE) {
        while ((1 << lg) < E)
            lg++;
        if ((st = rtopo__tdesc_init(&lt, RTOPO__TOPO_HYPERCUBE, E, lg, 0)))
            return st;
        return rtopo__sched_shift(&lt, RTOPO_SHIFT_ECUBE, d, bytes, NULL, s_p);
    }
    if ((st = rtopo__tdesc_init(&lt, RTOPO__TOPO_RING, E, 0, 0)))
        return st;
    if (lr->how == RTOPO__LINE_RING || d == 0)
        return rtopo__sched_shift(&lt, RTOPO_SHIFT_RING, d, bytes, NULL, s_p);
    /* straight, no wraparound: forward d, or back E-d for the packets
     * that would cross the end */
    for (i = 0; i < E; i++)
        total += (uint32_t)(i + d < E ? d : E - d);
    if ((st = rtopo__sched_alloc(&lt, (uint32_t)E, total, &s)))
        return st;
    for (i = 0; i < E; i++) {
        int fwd = i + d < E, k = fwd ? d : E - d, cur = i;
        rtopo__xfer_t xw = { 0 }, *x = &xw;

        x->src = i;
        x->dst = (i + d) % E;
        x->src_buf = RTOPO__BUF_SEND;
        x->dst_buf = RTOPO__BUF_RECV;
        x->len = bytes;
        x->hop0 = h;
        x->nhops = (uint32_t)k;
        for (j = 0; j < k; j++) {
            rtopo__hop_t *hp = &s->hops[h++];

            cur += fwd ? 1 : -1;
            hp->to = cur;
            hp->step = (uint32_t)j;
            hp->link = RTOPO__LINK_RING;
            hp->dir = (int8_t)(fwd ? 1 : -1);
        }
        if ((uint32_t)k > s->nsteps)
            s->nsteps = (uint32_t)k;
        if ((st = rtopo__sched_xset(s, (uint32_t)i, x))) {
            rtopo__sched_free(s);
            return st;
        }
    }
    *s_p = s;
    return RTOPO_OK;
}

static inline int rtopo__otis_t(int r, int n)
{
    return (r % n) * n + r / n;
}

/* hops the parent route of line transfer x needs */
static uint32_t rtopo__route_len(const rtopo__lineroute_t *lr, const rtopo__xfer_t *x,
                                 int src, int dst)
{
    if (!x->nhops)
        return 0;
    if (!lr->transpose)
        return x->nhops;
    return x->nhops + (src != rtopo__otis_t(src, lr->n)) + (dst != rtopo__otis_t(dst, lr->n));
}

static void rtopo__hop_put(rtopo__hop_t *h, int to, uint32_t step, int link, int dim, int dir)
{
    h->to = to;
    h->step = step;
    h->link = (uint8_t)link;
    h->dim = (uint8_t)dim;
    h->dir = (int8_t)dir;
    h->pad = 0;
}

int rtopo__sched_shift_dim(const rtopo__tdesc_t *t, const rtopo__dimshift_t *ds,
                           rtopo__sched_t **s_p)
{
    rtopo__lineroute_t lr;
    rtopo__sched_t **ls = NULL, *s = NULL;
    int E, nl, L, i, st, nodes, pass, *disp = NULL;
    uint64_t total = 0;
    uint32_t h = 0, xi = 0;

    if (!t || !ds || !s_p)
        return rtopo__error(RTOPO_ERR_INVAL, "dimension shift: no topology, arguments or "
                            "output");
    if (t->host)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "dimension shift: the host outside the "
                            "cube has no coordinates");
    if ((E = rtopo__cart_extent(t, ds->dim)) < 0)
        return E;
    if (ds->chunk && !ds->slots)
        return rtopo__error(RTOPO_ERR_INVAL, "dimension shift in place: no TMP slots");
    nodes = rtopo__cart_nodes(t);
    nl = nodes / E;
    rtopo__lineroute(t, ds->dim, &lr);
    ls = calloc((size_t)E, sizeof(*ls));
    disp = malloc((size_t)nl * sizeof(*disp));
    if (!ls || !disp) {
        st = rtopo__error(RTOPO_ERR_NOMEM, "dimension shift over %d lines", nl);
        goto out;
    }
    /* one line schedule per displacement in use */
    for (L = 0; L < nl; L++) {
        int d = disp[L] = rtopo__dimshift_disp(t, ds, L);
        const rtopo__sched_t *l;

        if (!ls[d] && (st = rtopo__line_sched(&lr, E, d, ds->bytes, &ls[d])))
            goto out;
        l = ls[d];
        for (i = 0; i < E; i++) {
            const rtopo__xfer_t xv = rtopo__sched_xfer(l, i), *x = &xv;

            total += rtopo__route_len(&lr, x, rtopo__cart_member(t, ds->dim, L, x->src),
                                      rtopo__cart_member(t, ds->dim, L, x->dst));
        }
    }
    if (total > UINT32_MAX) {
        st = rtopo__error(RTOPO_ERR_NOMEM, "dimension shift needs %llu hops",
                          (unsigned long long)total);
        goto out;
    }
    if ((st = rtopo__sched_alloc(t, (uint32_t)nodes, (uint32_t)total, &s)))
        goto out;
    s->algo = RTOPO_SHIFT_AUTO;
    for (L = 0; L < nl; L++) {
        const rtopo__sched_t *l = ls[disp[L]];

        for (i = 0; i < E; i++) {
            const rtopo__xfer_t lxv = rtopo__sched_xfer(l, i), *lx = &lxv;
            rtopo__xfer_t xw = { 0 }, *x = &xw;
            uint32_t j, step = 0;
            int cur;

            x->src = rtopo__cart_member(t, ds->dim, L, lx->src);
            x->dst = rtopo__cart_member(t, ds->dim, L, lx->dst);
            x->src_buf = RTOPO__BUF_SEND;
            x->dst_buf = RTOPO__BUF_RECV;
            x->len = ds->bytes;
            x->hop0 = h;
            if (!lx->nhops) {
                if ((st = rtopo__sched_xset(s, xi++, x)))
                    goto out;
                continue;
            }
            cur = x->src;
            if (lr.transpose && cur != rtopo__otis_t(cur, lr.n)) {
                cur = rtopo__otis_t(cur, lr.n);
                rtopo__hop_put(&s->hops[h++], cur, 0, RTOPO__LINK_OTIS, 0, 0);
            }
            for (j = 0; j < lx->nhops; j++) {
                const rtopo__hop_t *lh = &l->hops[lx->hop0 + j];
                int to = rtopo__cart_member(t, ds->dim, L, lh->to);

                if (lr.transpose)
                    to = rtopo__otis_t(to, lr.n);
                step = lh->step + (lr.transpose ? 1u : 0u);
                if (lr.how == RTOPO__LINE_ECUBE)
                    rtopo__hop_put(&s->hops[h++], to, step, lr.link, lh->dim, 0);
                else if (lr.cube_dim >= 0)
                    rtopo__hop_put(&s->hops[h++], to, step, lr.link, lr.cube_dim, 0);
                else
                    rtopo__hop_put(&s->hops[h++], to, step, lr.link, 0, lh->dir);
                cur = to;
            }
            if (cur != x->dst)
                rtopo__hop_put(&s->hops[h++], x->dst, step + 1, RTOPO__LINK_OTIS, 0, 0);
            x->nhops = h - x->hop0;
            if ((st = rtopo__sched_xset(s, xi++, x)))
                goto out;
        }
    }
    /* G lines of the OTIS-mesh and OTIS-hypercube: every route's OTIS
     * move back in one step, after the longest in-group part (the paper's
     * two OTIS moves; the shorter routes would otherwise take theirs
     * earlier, in steps of their own) */
    if (lr.transpose) {
        uint32_t last = 0;

        for (pass = 0; pass < 2; pass++)
            for (i = 0; i < (int)s->nxfers; i++) {
                const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
                rtopo__hop_t *lh = x->nhops >= 2 ? &s->hops[x->hop0 + x->nhops - 1] : NULL;

                if (!lh || lh->link != RTOPO__LINK_OTIS)
                    continue;
                if (!pass && lh->step > last)
                    last = lh->step;
                else if (pass)
                    lh->step = last;
            }
    }
    for (i = 0; i < (int)s->nhops; i++)
        if (s->hops[i].step + 1 > s->nsteps)
            s->nsteps = s->hops[i].step + 1;
    if ((st = rtopo__sched_deps_infer(s, 0)))
        goto out;
    if (ds->chunk && (st = rtopo__sched_inplace(&s, ds->chunk, ds->slots)))
        goto out;
    *s_p = s;
    s = NULL;
out:
    if (ls)
        for (i = 0; i < E; i++)
            rtopo__sched_free(ls[i]);
    free(ls);
    free(disp);
    rtopo__sched_free(s);
    return st;
}

int rtopo__sched_inplace(rtopo__sched_t **s_p, uint64_t chunk, uint32_t slots)
{
    rtopo__sched_t *s = s_p ? *s_p : NULL, *o = NULL;
    uint64_t B = 0, K, *tmp = NULL, nx, nh;
    uint32_t i, j, n0, routed = 0, xo = 0, ho = 0;
    int st;

    if (!s || !chunk || !slots)
        return rtopo__error(RTOPO_ERR_INVAL, "in place: no schedule, chunk or slots");
    if (s->own)
        return rtopo__error(RTOPO_ERR_INVAL, "in place: a rank's share (take it after)");
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;

        if (i == 0)
            B = x->len;
        if (x->src_buf != RTOPO__BUF_SEND || x->dst_buf != RTOPO__BUF_RECV || x->src_off ||
            x->dst_off || x->len != B)
            return rtopo__error(RTOPO_ERR_INVAL, "in place: transfer %u is not SEND[0, %llu) "
                                "-> RECV[0, %llu)", i, (unsigned long long)B,
                                (unsigned long long)B);
        routed += x->nhops > 0;
    }
    if (s->nkerns)
        return rtopo__error(RTOPO_ERR_INVAL, "in place: the schedule has kernels");
    K = B ? (B + chunk - 1) / chunk : 1;
    n0 = s->nsteps;
    nx = 2 * (uint64_t)routed * K;
    nh = (uint64_t)s->nhops * K;
    if (nx > UINT32_MAX || nh > UINT32_MAX || (routed && K * n0 + 1 > UINT32_MAX))
        return rtopo__error(RTOPO_ERR_NOMEM, "in place: %llu pieces of %llu bytes are too "
                            "many", (unsigned long long)K, (unsigned long long)chunk);
    if ((st = rtopo__sched_alloc(&s->topo, (uint32_t)nx, (uint32_t)nh, &o)))
        return st;
    o->algo = s->algo;
    tmp = calloc((size_t)s->topo.p, sizeof(*tmp));
    if (!tmp) {
        st = rtopo__error(RTOPO_ERR_NOMEM, "TMP sizes");
        goto out;
    }
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;

        if (!x->nhops)
            continue;   /* the data is where it belongs already */
        tmp[x->src] = K <= slots ? B : (uint64_t)slots * chunk;
        for (j = 0; j < K; j++) {
            uint64_t off = (uint64_t)j * chunk, len = B - off < chunk ? B - off : chunk;
            uint64_t slot = (uint64_t)(j % slots) * chunk;
            rtopo__xfer_t c, y;
            uint32_t k;

            c = (rtopo__xfer_t){ .src = x->src, .dst = x->src, .src_buf = RTOPO__BUF_RECV,
                                 .dst_buf = RTOPO__BUF_TMP, .step = j * n0, .src_off = off,
                                 .dst_off = slot, .len = len };
            y = (rtopo__xfer_t){ .src = x->src, .dst = x->dst, .src_buf = RTOPO__BUF_TMP,
                                 .dst_buf = RTOPO__BUF_RECV, .nhops = x->nhops, .hop0 = ho,
                                 .src_off = slot, .dst_off = off, .len = len };
            if ((st = rtopo__sched_xset(o, xo++, &c)) || (st = rtopo__sched_xset(o, xo++, &y)))
                goto out;
            for (k = 0; k < x->nhops; k++) {
                o->hops[ho] = s->hops[x->hop0 + k];
                o->hops[ho++].step += 1 + j * n0;
            }
        }
    }
    o->nsteps = routed ? (uint32_t)(K * n0 + 1) : 0;
    if ((st = rtopo__sched_set_tmp(o, tmp)) || (st = rtopo__sched_deps_infer(o, 0)))
        goto out;
    rtopo__sched_free(s);
    *s_p = o;
    o = NULL;
out:
    free(tmp);
    rtopo__sched_free(o);
    return st;
}

/* ---- sub-topologies ----------------------------------------------------- */

int rtopo__cart_sub(const rtopo__tdesc_t *t, unsigned keep, rtopo__tdesc_t *sub)
{
    int E[RTOPO__MAX_DIMS], nd, k, j, first = -1, second = -1, lg = 0;
    long w[RTOPO__MAX_DIMS];

    if (!sub || (nd = rtopo__cart_shape(t, E, w)) < 0)
        return rtopo__error(RTOPO_ERR_INVAL, "sub-topology: no topology or output");
    if (t->host)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "sub-topology of a hypercube whose host "
                            "is outside the cube");
    if (nd < 32 && keep >> nd)
        return rtopo__error(RTOPO_ERR_INVAL, "sub-topology: dimension mask 0x%x names "
                            "dimensions beyond the %s's %d", keep,
                            rtopo__topo_name(t->kind), nd);
    k = __builtin_popcount(keep);
    for (j = 0; j < nd; j++)
        if (keep >> j & 1u) {
            if (first < 0)
                first = j;
            else if (second < 0)
                second = j;
        }
    if (k == nd) {
        *sub = *t;
        return RTOPO_OK;
    }
    if (k == 0)
        return rtopo__tdesc_init(sub, RTOPO__TOPO_RING, 1, 0, 0);
    switch (t->kind) {
    case RTOPO__TOPO_HYPERCUBE:
        return rtopo__tdesc_init(sub, RTOPO__TOPO_HYPERCUBE, 1 << k, k, 0);
    case RTOPO__TOPO_OTIS_HYPERCUBE:
        while ((1 << lg) < t->n)
            lg++;
        return rtopo__tdesc_init(sub, RTOPO__TOPO_HYPERCUBE, t->n, lg, 0);
    case RTOPO__TOPO_MESH:
    case RTOPO__TOPO_OTIS_MESH:
        if (k == 1)
            return rtopo__tdesc_init(sub, RTOPO__TOPO_RING, E[first], 0, 0);
        if (k == 2)
            return rtopo__tdesc_init(sub, RTOPO__TOPO_MESH, E[first] * E[second], E[first],
                                     E[second]);
        break;
    default:
        break;
    }
    return rtopo__error(RTOPO_ERR_UNSUPPORTED, "sub-topology of a %s keeping %d of its %d "
                        "dimensions: no topology kind has that shape",
                        rtopo__topo_name(t->kind), k, nd);
}

int rtopo__cart_sub_label(const rtopo__tdesc_t *t, unsigned keep, int rank, int *piece_p)
{
    int E[RTOPO__MAX_DIMS], c[RTOPO__MAX_DIMS], sc[RTOPO__MAX_DIMS], nd, j, n = 0, st;
    long w[RTOPO__MAX_DIMS], wl[RTOPO__MAX_DIMS], piece = 0;
    rtopo__tdesc_t sub;

    if ((st = rtopo__cart_sub(t, keep, &sub)))
        return st;
    nd = rtopo__cart_shape(t, E, w);
    if ((st = rtopo__cart_coords(t, rank, c)))
        return st;
    rtopo__cart_weights(nd, E, w, keep, wl);
    for (j = 0; j < nd; j++)
        if (!(keep >> j & 1u))
            piece += c[j] * wl[j];
    if (piece_p)
        *piece_p = (int)piece;
    if (sub.kind == t->kind && sub.p == t->p)
        return rank;
    if (!keep)
        return 0;
    if (t->kind == RTOPO__TOPO_OTIS_HYPERCUBE) {
        int v = c[keep & 1u ? 0 : 1];

        for (j = 0; j < sub.dim; j++)
            sc[j] = v >> j & 1;
        return rtopo__cart_rank(&sub, sc);
    }
    for (j = 0; j < nd; j++)
        if (keep >> j & 1u)
            sc[n++] = c[j];
    return rtopo__cart_rank(&sub, sc);
}
