/*
 * coll_otis.c - Wang and Sahni's OTIS algorithms: moves within an
 * OTIS-mesh group (rows, columns) and an OTIS-hypercube group (cube
 * dimensions), OTIS moves between groups, and on them the broadcast, the
 * window broadcast, the data sum (allreduce) and the prefix sum (scan).
 */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"
#include "coll_int.h"

/* ---- OTIS-mesh groups --------------------------------------------------- *
 * A line of a group: a row (ROW links, position = Py) or a column (COL
 * links, position = Px); `fixed` is the other in-group coordinate. */
int rtopo__gl_rank(const rtopo__cb_t *b, int G, int link, int fixed, int pos)
{
    return G * b->n + (link == RTOPO__LINK_ROW ? fixed * b->s + pos : pos * b->s + fixed);
}

void rtopo__gl_hop(rtopo__cb_t *b, int G, int link, int fixed, int from, int sreg,
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

static void rtopo__cube_hop(rtopo__cb_t *b, const rtopo__cube_t *q, int P, int sreg, int k,
                            int dreg, uint32_t step)
{
    rtopo__cb_move(b, q->base + P, sreg, q->base + (P ^ (1 << k)), dreg, step, q->link, k, 0);
}

/* Binomial broadcast from label P0, the highest dimension first: where
 * hosts hold sub-cubes (the labels of a host differ in their low bits),
 * one move per host pair crosses between hosts and the later, more
 * numerous moves stay inside them; lowest first would send half of all
 * the moves in the last step across the highest dimension. */
uint32_t rtopo__cube_bcast(rtopo__cb_t *b, const rtopo__cube_t *q, int P0, int sreg,
                           int dreg, uint32_t t0)
{
    int k, P;

    rtopo__cb_copy(b, q->base + P0, sreg, dreg, t0);
    for (k = q->d - 1; k >= 0; k--)
        for (P = 0; P < (1 << q->d); P++)
            if (((P ^ P0) & ((2 << k) - 1)) == 0)
                rtopo__cube_hop(b, q, P, P == P0 ? sreg : dreg, k, dreg,
                                t0 + (uint32_t)(q->d - k));
    return (uint32_t)q->d;
}

/* recursive doubling: out = op over the cube of val; in0, in1: TMP
 * registers the partners' values land in */
uint32_t rtopo__cube_sum(rtopo__cb_t *b, const rtopo__cube_t *q, int val, int out,
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
 * labels < P (label 0 has none), tot = the running total (inc, exc may be
 * RNONE); TMP in0, in0+1: landing registers.  Partners exchange their
 * totals both ways, but in the last round only upwards unless flags has
 * RTOPO__CSCAN_DOWN: a lower label has no later round to pass the upper
 * half's total on in, so tot ends as the whole total on the upper half's
 * labels (bit d - 1 set) and as its half's total on the lower half's.
 * With RTOPO__CSCAN_NOTOT no label combines into tot in the last round
 * (the caller does not use it). */
uint32_t rtopo__cube_scan(rtopo__cb_t *b, const rtopo__cube_t *q, int val, int inc,
                          int exc, int tot, int in0, int flags, uint32_t t0)
{
    int k, P, pk;

    for (P = 0; P < (1 << q->d); P++) {
        rtopo__cb_copy(b, q->base + P, val, tot, t0);
        if (inc != RNONE)
            rtopo__cb_copy(b, q->base + P, val, inc, t0);
    }
    for (k = 0; k < q->d; k++)
        for (P = 0; P < (1 << q->d); P++) {
            int in = RTMP(in0 + (k & 1)), end = k == q->d - 1;
            int last = end && !(flags & RTOPO__CSCAN_DOWN);
            uint32_t t = t0 + (uint32_t)k + 1;

            if (!(last && (P & (1 << k))))
                rtopo__cube_hop(b, q, P, tot, k, in, t);
            if (last && !(P & (1 << k)))
                continue;               /* nothing comes down */
            if (P & (1 << k)) {         /* the partner is lower */
                pk = P & ((1 << k) - 1);    /* exc had a value before */
                if (inc != RNONE)
                    rtopo__cb_comb(b, q->base + P, in, inc, t);
                if (exc != RNONE)
                    rtopo__cb_acc(b, q->base + P, in, exc, pk != 0, t);
            }
            if (!(end && (flags & RTOPO__CSCAN_NOTOT)))
                rtopo__cb_comb(b, q->base + P, in, tot, t);
        }
    return (uint32_t)q->d;
}

/* ---- the OTIS algorithms ------------------------------------------------ */

int rtopo__is_om(const rtopo__cb_t *b)
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
void rtopo__otis_move(rtopo__cb_t *b, int G, int P, int sreg, int dreg, uint32_t step)
{
    rtopo__cb_move(b, G * b->n + P, sreg, P * b->n + G, dreg, step, RTOPO__LINK_OTIS, 0, 0);
}

/* broadcast: in the root's group, one OTIS move, in every other group */
void rtopo__otis_bcast(rtopo__cb_t *b)
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

void rtopo__otis_window(rtopo__cb_t *b)
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
void rtopo__otis_allreduce(rtopo__cb_t *b)
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
void rtopo__om_scan(rtopo__cb_t *b)
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
void rtopo__oh_scan(rtopo__cb_t *b)
{
    enum { T_PS = 0, T_TS, T_IN, T_IN1, T_A, T_ET, T_EX, T_X };
    int n = b->n, G, P;
    uint32_t t = 0, L = 0;
    rtopo__cube_t q = { 0, b->s, RTOPO__LINK_CUBE };

    for (G = 0; G < n; G++) {
        q.base = G * n;
        L = rtopo__cube_scan(b, &q, RSEND(0), RTMP(T_PS), RNONE, RTMP(T_TS), T_IN, 0, t);
    }
    t += L + 1;
    for (G = 0; G < n; G++)
        rtopo__otis_move(b, G, n - 1, RTMP(T_TS), RTMP(T_A), t);
    q.base = (n - 1) * n;
    t += rtopo__cube_scan(b, &q, RTMP(T_A), RNONE, RTMP(T_EX), RTMP(T_ET), T_IN,
                          RTOPO__CSCAN_NOTOT, t) + 1;
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

/* one piece of the window broadcast (its one algorithm, whatever algo) */
static void rtopo__window_prog(rtopo__cb_t *b, int algo)
{
    rtopo__cb_cut(b);
    rtopo__otis_window(b);
}

/* the window broadcast, built as the broadcast's candidates are */
int rtopo__window_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                        const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    return rtopo__coll_build_cand(t, c, rtopo__window_prog, model, 0, s_p);
}
