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
 * inside the group).  An OTIS-hypercube line along P is its group's cube
 * (position = label), and its operations are the cube's own (below).
 * The group dimensions of both OTIS topologies run, as in the paper,
 * between two OTIS moves on the in-group line they become. */
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
    default: ln->link = RTOPO__LINK_CUBE; break;   /* OTIS-hypercube: hops by label */
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

/* ---- OTIS-hypercube lines: the group's cube ----------------------------- *
 * The line along P of group G is its cube of n = 2^d labels, position x
 * at label x; a value crosses one cube dimension per move, and every
 * operation below moves along dimension k in step k + 1 only (one
 * dimension per step: the SIMD and the MIMD counts agree).  Consecutive
 * labels are not all neighbours (x and x + 1 differ in every bit the
 * carry changes), so one step of the paper's mesh algorithms, from x to
 * x + 1, would take up to d moves; these are the cube's own, by
 * recursive doubling over the dimensions, lowest first. */

static void rtopo__line_cube(rtopo__cb_t *b, const rtopo__line_t *ln, int L, int x, int sreg,
                             int k, int dreg, uint32_t step)
{
    rtopo__cb_move(b, rtopo__line_rank(b, ln, L, x), sreg,
                   rtopo__line_rank(b, ln, L, x ^ (1 << k)), dreg, step, RTOPO__LINK_CUBE, k,
                   0);
}

/* Accumulation on the cube, d moves for m >= 2.  Value v travels to
 * each label x with (v - x) mod n < m (the ranks whose block (v - x)
 * it fills) by E-cube, dimension 0 first, and the routes of one value
 * share their common first hops: before step k + 1 the value is at
 * every label z of its aligned block of 2^k labels with (v - z) mod 2^k
 * < m, at most min(m, 2^k) values per label.  A value that has reached
 * its own place of z's result (block (v - z) mod n) stays there; the
 * others are in transit, in TMP bank k & 1 at index (v - z) mod 2^k.
 * TMP: 2 min(m, n/2) registers from tmp0. */
static uint32_t rtopo__line_acc_oh(rtopo__cb_t *b, const rtopo__line_t *ln, int in, int out,
                                   int tmp0, uint32_t t0)
{
    int n = ln->E, d = b->s, mm = b->c->mm, half = mm < n / 2 ? mm : n / 2, L, z, k, i;

    for (L = 0; L < ln->nlines; L++) {
        for (z = 0; z < n; z++)
            rtopo__cb_copy(b, rtopo__line_rank(b, ln, L, z), in, out, t0);
        if (mm < 2)
            continue;
        for (k = 0; k < d; k++) {
            int Lk = 1 << k, m1 = 2 * Lk - 1;
            uint32_t t = t0 + (uint32_t)k + 1;

            for (z = 0; z < n; z++) {
                int B = z & ~(Lk - 1), zp = z ^ Lk;

                for (i = 0; i < mm && i < Lk; i++) {
                    int v = B + ((z - B + i) & (Lk - 1)), fin = ((v - z) & (n - 1)) < mm;
                    int sreg = v == z ? in : fin ? out + ((v - z) & (n - 1)) :
                               RTMP(tmp0 + (k & 1) * half + i);

                    if (((v - zp) & m1) < mm) {     /* the partner's side needs it */
                        int j = (v - zp) & (n - 1);

                        rtopo__line_cube(b, ln, L, z, sreg, k, j < mm ? out + j :
                                         RTMP(tmp0 + ((k + 1) & 1) * half + ((v - zp) & m1)),
                                         t);
                    }
                    if (!fin && ((v - z) & m1) < mm)    /* in transit, and stays */
                        rtopo__cb_copy(b, rtopo__line_rank(b, ln, L, z), sreg,
                                       RTMP(tmp0 + ((k + 1) & 1) * half + ((v - z) & m1)), t);
                }
            }
        }
    }
    return mm < 2 ? 0 : (uint32_t)d;
}

/* The adjacent sum on the cube, d moves for m >= 2, at most two values
 * each way per link and step.  Before step k + 1, label z (at a = z mod
 * 2^k in its aligned block of 2^k labels, from B) holds three partial
 * sums over its block: S, from z to the block's end but at most m
 * values (what z itself needs of the block); F, the whole block (for
 * the labels whose m values cover it); R, the block's first (a + m) mod
 * 2^k values (for the one label whose m values end inside it).  Merging
 * a block with its partner block (the labels z ^ 2^k) gives the three
 * of the double block from the own and the partner's F and R (recipe
 * below); after d steps the block is the cube, and z's sum is S, or S
 * op R when z + m > n (the values wrap around to label 0).  What each
 * label needs is worked out backwards from that, so nothing else moves.
 * TMP from tmp0: S, F, R in two banks (6), the partner's F, R (4). */
enum { RTOPO__QS = 1, RTOPO__QF = 2, RTOPO__QR = 4 };

/* the ingredients of quantity Q of label z after step k + 1: who[i] 0
 * own, 1 the partner's, q[i] which; returns how many (0: empty) */
static int rtopo__adj_recipe(int z, int k, int mm, int Q, int *who, int *q)
{
    int Lk = 1 << k, a = z & (Lk - 1), up = (z & Lk) != 0, r2;

    if (Q == RTOPO__QS) {           /* lower half: the upper block's start */
        who[0] = 0;
        q[0] = RTOPO__QS;
        if (up || a + mm - Lk <= 0)
            return 1;
        who[1] = 1;
        q[1] = a + mm - Lk >= Lk ? RTOPO__QF : RTOPO__QR;
        return 2;
    }
    if (Q == RTOPO__QF) {
        who[0] = 0;
        who[1] = 1;
        q[0] = q[1] = RTOPO__QF;
        return 2;
    }
    r2 = (a + (up ? Lk : 0) + mm) & (2 * Lk - 1);   /* R's length, doubled block */
    if (!r2)
        return 0;
    who[0] = up;                    /* the lower block's R, or all of it */
    q[0] = r2 < Lk ? RTOPO__QR : RTOPO__QF;
    if (r2 <= Lk)
        return 1;
    who[1] = !up;
    q[1] = RTOPO__QR;
    return 2;
}

static int rtopo__adj_slot(int q)
{
    return q == RTOPO__QS ? 0 : q == RTOPO__QF ? 1 : 2;
}

static uint32_t rtopo__line_adj_oh(rtopo__cb_t *b, const rtopo__line_t *ln, int in, int out,
                                   int tmp0, uint32_t t0)
{
    int n = ln->E, d = b->s, mm = b->c->mm, L, z, k, j, Q, who[2], q[2], cnt;
    unsigned char *need = NULL, *take = NULL;
    int *reg = NULL, *nreg = NULL;

    if (mm < 2) {
        for (L = 0; L < ln->nlines; L++)
            for (z = 0; z < n; z++)
                rtopo__cb_copy(b, rtopo__line_rank(b, ln, L, z), in, out, t0);
        return 0;
    }
    need = calloc((size_t)(d + 1) * (size_t)n, 1);   /* level k: after step k */
    take = calloc((size_t)d * (size_t)n, 1);         /* step k + 1: from the partner */
    reg = malloc(sizeof(*reg) * 3 * (size_t)n);
    nreg = malloc(sizeof(*nreg) * 3 * (size_t)n);
    if (!need || !take || !reg || !nreg) {
        b->err = RTOPO_ERR_NOMEM;
        goto out;
    }
    /* what each label needs after each step, backwards */
    for (z = 0; z < n; z++)
        need[(size_t)d * n + z] = RTOPO__QS | (z + mm > n ? RTOPO__QR : 0);
    for (k = d - 1; k >= 0; k--)
        for (z = 0; z < n; z++)
            for (Q = RTOPO__QS; Q <= RTOPO__QR; Q <<= 1) {
                if (!(need[(size_t)(k + 1) * n + z] & Q))
                    continue;
                cnt = rtopo__adj_recipe(z, k, mm, Q, who, q);
                for (j = 0; j < cnt; j++) {
                    need[(size_t)k * n + (who[j] ? z ^ (1 << k) : z)] |= (unsigned char)q[j];
                    if (who[j])
                        take[(size_t)k * n + z] |= (unsigned char)q[j];
                }
            }
    for (L = 0; L < ln->nlines; L++) {
        for (z = 0; z < n; z++)
            reg[3 * z] = reg[3 * z + 1] = reg[3 * z + 2] = in;   /* R: never needed */
        for (k = 0; k < d; k++) {
            uint32_t t = t0 + (uint32_t)k + 1;
            int rx = tmp0 + 6 + 2 * (k & 1);        /* the partner's F, R land here */

            for (z = 0; z < n; z++) {
                int zp = z ^ (1 << k);

                if (take[(size_t)k * n + z] & RTOPO__QF)
                    rtopo__line_cube(b, ln, L, zp, reg[3 * zp + 1], k, RTMP(rx), t);
                if (take[(size_t)k * n + z] & RTOPO__QR)
                    rtopo__line_cube(b, ln, L, zp, reg[3 * zp + 2], k, RTMP(rx + 1), t);
            }
            for (z = 0; z < n; z++) {
                int r = rtopo__line_rank(b, ln, L, z);

                memcpy(&nreg[3 * z], &reg[3 * z], 3 * sizeof(*reg));
                for (Q = RTOPO__QS; Q <= RTOPO__QR; Q <<= 1) {
                    int sl = rtopo__adj_slot(Q), g[2], dst, last = k + 1 == d;

                    if (!(need[(size_t)(k + 1) * n + z] & Q) ||
                        !(cnt = rtopo__adj_recipe(z, k, mm, Q, who, q)))
                        continue;
                    for (j = 0; j < cnt; j++)
                        g[j] = who[j] ? RTMP(rx + (q[j] == RTOPO__QR)) :
                               reg[3 * z + rtopo__adj_slot(q[j])];
                    /* the same quantity unchanged keeps its register */
                    if (cnt == 1 && !who[0] && q[0] == Q && !(last && Q == RTOPO__QS))
                        continue;
                    dst = last && Q == RTOPO__QS ? out :
                          RTMP(tmp0 + 3 * ((k + 1) & 1) + sl);
                    if (cnt == 2 && g[1] == dst) {
                        g[1] = g[0];
                        g[0] = dst;
                    }
                    rtopo__cb_copy(b, r, g[0], dst, t);
                    if (cnt == 2)
                        rtopo__cb_comb(b, r, g[1], dst, t);
                    nreg[3 * z + sl] = dst;
                }
            }
            memcpy(reg, nreg, sizeof(*reg) * 3 * (size_t)n);
        }
        for (z = 0; z < n; z++)
            if (z + mm > n)
                rtopo__cb_comb(b, rtopo__line_rank(b, ln, L, z), reg[3 * z + 2], out,
                               t0 + (uint32_t)d);
    }
out:
    free(need);
    free(take);
    free(reg);
    free(nreg);
    return b->err ? 0 : (uint32_t)d;
}

/* The consecutive sum on the cube: a block of m = 2^c labels from a
 * multiple of m is a c-subcube, and the sum is its reduce-scatter by
 * recursive halving.  Before step k + 1 label z holds the partial sums
 * of the places j of its block with j = z mod 2^k (only its own value j
 * before the first step); it sends those whose bit k is not its own to
 * z ^ 2^k, which combines them with its own.  After c moves label z
 * holds the sum of place z mod m; m - 1 values leave each label in all.
 * TMP: m registers from tmp0, two banks indexed j >> k. */
static uint32_t rtopo__line_consec_oh(rtopo__cb_t *b, const rtopo__line_t *ln, int in,
                                      int out, int tmp0, uint32_t t0)
{
    int n = ln->E, mm = b->c->mm, c = 0, h = mm / 2, L, z, k, j;

    while ((1 << c) < mm)
        c++;
    for (L = 0; L < ln->nlines; L++) {
        if (mm < 2) {
            for (z = 0; z < n; z++)
                rtopo__cb_copy(b, rtopo__line_rank(b, ln, L, z), in, out, t0);
            continue;
        }
        for (k = 0; k < c; k++) {
            uint32_t t = t0 + (uint32_t)k + 1;

            for (z = 0; z < n; z++) {
                int zp = z ^ (1 << k), rp = rtopo__line_rank(b, ln, L, zp);

                for (j = (z & ((1 << k) - 1)) | (~z & (1 << k)); j < mm; j += 2 << k) {
                    /* z's partial j and zp's, of the same name */
                    int sreg = k ? RTMP(tmp0 + (k & 1) * h + (j >> k)) : in + j;
                    int dreg = k + 1 == c ? out :
                               RTMP(tmp0 + ((k + 1) & 1) * h + (j >> (k + 1)));

                    rtopo__line_cube(b, ln, L, z, sreg, k, dreg, t);
                    rtopo__cb_comb(b, rp, sreg, dreg, t);
                }
            }
        }
    }
    return mm < 2 ? 0 : (uint32_t)c;
}

/* the line operation of b->c from register bases in to out */
static uint32_t rtopo__line_op(rtopo__cb_t *b, int dim, int in, int out, int tmp0, uint32_t t0)
{
    rtopo__line_t ln;

    rtopo__line_init(b, dim, &ln);
    if (b->t->kind == RTOPO__TOPO_OTIS_HYPERCUBE) {     /* the group's cube */
        switch (b->c->op) {
        case RTOPO__COLL_SHIFT_FILL:
            break;
        case RTOPO__COLL_ACCUMULATE:
            return rtopo__line_acc_oh(b, &ln, in, out, tmp0, t0);
        case RTOPO__COLL_ADJACENT_SUM:
            return rtopo__line_adj_oh(b, &ln, in, out, tmp0, t0);
        default:
            return rtopo__line_consec_oh(b, &ln, in, out, tmp0, t0);
        }
    }
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
    /* OTIS-hypercube: the G line of an operation that moves (the zero-fill
     * shift takes its OTIS hops in its routes) */
    int ohg = b->t->kind == RTOPO__TOPO_OTIS_HYPERCUBE && c->dim == 0 &&
              c->op != RTOPO__COLL_SHIFT_FILL && c->mm > 1;

    if (!((rtopo__is_om(b) && c->dim < 2) || ohg) || still) {  /* (still: nothing moves) */
        rtopo__line_op(b, c->dim, RSEND(0), RRECV(0), 0, 0);
        return;
    }
    /* a group dimension: OTIS move, the in-group line, OTIS move */
    for (G = 0; G < b->n; G++)
        for (P = 0; P < b->n; P++)
            for (i = 0; i < nin; i++)
                rtopo__otis_move(b, G, P, RSEND(i), RTMP(i), 1);
    L = rtopo__line_op(b, ohg ? 1 : c->dim + 2, RTMP(0), RTMP(nin), nin + nout, 1);
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
