/*
 * coll_line.c - the line operations along one dimension: zero-fill
 * shift, accumulation, adjacent and consecutive sums.
 */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"
#include "coll_int.h"

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

/* The zero-fill shift on an OTIS-hypercube line, over its own links: a
 * value moves from label x to x + disp of its group's cube by E-cube,
 * dimension k in step k - k0 of every route (k0: the lowest bit of
 * disp, below which no label changes), so the shift takes d - k0
 * electronic moves; a G line runs between two OTIS moves (transpose,
 * the in-group line of the group P, transpose back), each in one step
 * for every route (a rank (G, G) has no OTIS move to make).  Returns the
 * steps. */
static uint32_t rtopo__line_fill_oh(rtopo__cb_t *b, const rtopo__line_t *ln, int in, int out,
                                    uint32_t t0)
{
    int disp = b->c->disp, E = ln->E, n = b->n, d = b->s, L, x, k, k0 = 0, gl = ln->dim == 0;
    int ad = disp < 0 ? -disp : disp;
    uint32_t T, nh, i, j;
    rtopo__hop_t h[64 + 2];

    while (!((ad >> k0) & 1))
        k0++;
    T = (uint32_t)(d - k0) + (gl ? 2u : 0u);
    for (L = 0; L < ln->nlines; L++)
        for (x = 0; x < E; x++) {
            int src = x - disp, r = rtopo__cart_member(b->t, ln->dim, L, src), at;
            int grp = gl ? r % n : r / n;       /* the group the line runs in */

            if (src < 0 || src >= E) {
                rtopo__cb_kern(b, RTOPO__KERN_FILL, rtopo__cart_member(b->t, ln->dim, L, x),
                               RNONE, out, t0 + T, 0);
                continue;
            }
            nh = 0;
            at = r;
            if (gl && r / n != r % n)
                h[nh++] = (rtopo__hop_t){ .to = at = (r % n) * n + r / n,
                                          .link = RTOPO__LINK_OTIS, .step = 0 };
            for (k = k0, j = (uint32_t)src; k < d; k++)
                if (((j ^ (uint32_t)x) >> k) & 1) {
                    j ^= 1u << k;
                    h[nh++] = (rtopo__hop_t){ .to = at = grp * n + (int)j,
                                              .link = RTOPO__LINK_CUBE, .dim = (uint8_t)k,
                                              .step = (uint32_t)(k - k0) + (gl ? 1u : 0u) };
                }
            if (gl && at != rtopo__cart_member(b->t, ln->dim, L, x))
                h[nh++] = (rtopo__hop_t){ .to = rtopo__cart_member(b->t, ln->dim, L, x),
                                          .link = RTOPO__LINK_OTIS, .step = T - 1 };
            i = b->nh;
            rtopo__cb_route(b, r, in, rtopo__cart_member(b->t, ln->dim, L, x), out, t0 + 1,
                            h, nh);
            if (b->err || !b->len)
                continue;
            for (j = 0; j < nh && b->nh == i + nh; j++)     /* (cut: not kept) */
                b->h[i + j].step = b->base + t0 + 1 + h[j].step;
            if (nh)
                rtopo__cb_step(b, b->base + t0 + T);
        }
    return T;
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
    if (b->t->kind == RTOPO__TOPO_OTIS_HYPERCUBE && ad && ad < E && b->s <= 64)
        return rtopo__line_fill_oh(b, ln, in, out, t0);
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

static void rtopo__line_prog(rtopo__cb_t *b, int algo)
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

/* the line program, a plan keeping its share as the nodes are made (no
 * line operation reads a node back but the zero-fill shift's restamp of
 * the route it kept) */
static void rtopo__line_prog_cut(rtopo__cb_t *b, int algo)
{
    rtopo__cb_cut(b);
    rtopo__line_prog(b, algo);
}

/* a line operation (its one algorithm) */
int rtopo__line_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                      const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    return rtopo__coll_build_one(t, c, rtopo__line_prog_cut, model, s_p);
}
