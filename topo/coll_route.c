/*
 * coll_route.c - selection ranks and the data-dependent routings of the
 * OTIS topologies: concentrate, distribute, generalize, random write and
 * random read, and the phases that chain one schedule after another.
 */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"
#include "coll_int.h"

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
/* (the slots RT_*, RTA and RT_T: coll_int.h; rtopo__rt_kern and
 * rtopo__rt_copy: coll_build.c) */

/* an empty slot (op 0: a zero FILL) */
static void rtopo__rt_clear(rtopo__cb_t *b, int rank, int reg, uint32_t step)
{
    rtopo__rt_kern(b, rank, 0, 0, RT_T, 0, 0, RT_T, RTA(b, reg), b->M, 0, step);
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

/* The ranks: the int32 flag at (sbuf, soff) becomes f (int64 0/1) at
 * TMP[16], the prefix sum of f the inclusive count at TMP[24]; the scan
 * keeps its own TMP from 32.  One step before the scan normalises f. */
static int rtopo__rt_ranks(const rtopo__tdesc_t *t, int algo, const rtopo__model_t *model,
                           int own, int sbuf, uint64_t soff, int bare, rtopo__sched_t **s_p)
{
    rtopo__coll_t sc = { .op = RTOPO__COLL_SCAN, .algo = algo, .dtype = RTOPO_INT64,
                         .rop = RTOPO_SUM, .count = 1, .esize = 8, .chunks = 1,
                         .own = own };
    rtopo__sched_t *s = NULL;
    uint32_t k0;
    int st, r;

    if ((st = rtopo__scan_build(t, &sc, model, &s)) ||
        (st = rtopo__phase_rebase(s, 16, 24, 32, 1, bare)))
        goto fail;
    /* a plan's (own): its rank's kernel alone, the others' step left out */
    if ((st = rtopo__sched_add_kerns(s, own ? 1 : (uint32_t)t->p, &k0)))
        goto fail;
    if (own && t->p > 1 && s->olast < 1)
        s->olast = 1;
    for (r = own ? own - 1 : 0; r < (own ? own : t->p); r++) {
        rtopo__kern_t k;

        rtopo__rt_set(&k, r, RTOPO__RT_NORM, sbuf, soff, sizeof(int32_t), RTOPO__BUF_TMP, 16,
                      8, 0);
        if ((st = rtopo__sched_kset(s, k0++, &k)))
            goto fail;
    }
    s->ndeps = 0;
    if (!bare && (st = rtopo__sched_deps_infer(s, 0)))
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
    rtopo__cb_cut(b);                   /* a plan's (c->own): the rank's nodes */
}

/* the builder's nodes as a schedule (edges not inferred yet); frees them */
static int rtopo__rt_done(rtopo__cb_t *b, rtopo__sched_t **s_p)
{
    int st = rtopo__cb_sched(b, RTOPO_COLL_TOPO, s_p);

    if (st == RTOPO_ERR_NOMEM)
        st = rtopo__error(st, "%s: out of memory building the schedule",
                          rtopo__coll_name(b->c->op));
    return st;
}

static void rtopo__rt_kernu(rtopo__cb_t *b, int rank, int op, int sbuf, uint64_t soff,
                            uint64_t slen, uint64_t doff, uint64_t dlen, int64_t arg,
                            uint32_t urec, uint32_t step)
{
    uint32_t nk = b->nk;

    rtopo__rt_kern(b, rank, op, 0, sbuf, soff, slen, RT_T, doff, dlen, arg, step);
    if (!b->err && b->nk > nk)          /* (a plan's cut: kept) */
        rtopo__cb_lastk(b)->urec = urec;
}

/* A sort of one record of esize bytes per rank from TMP + in to TMP + out,
 * its own TMP from TMP + st, one step late (step 0 is the caller's); its
 * arguments checked as rtopo__sched_coll checks a sort's. */
static int rtopo__phase_sort(const rtopo__tdesc_t *t, const rtopo__model_t *model, int own,
                             uint64_t esize, uint64_t in, uint64_t out, uint64_t st,
                             rtopo__sched_t **s_p)
{
    rtopo__coll_t sc = { .op = RTOPO__COLL_SORT, .algo = RTOPO_COLL_AUTO,
                         .dtype = RTOPO_INT64, .count = 1, .esize = esize, .chunks = 1,
                         .own = own, .bare = !own };
    int rc = rtopo__sort_check(t, &sc);

    if (!rc)
        rc = rtopo__sort_build(t, &sc, model, s_p);
    if (!rc && (rc = rtopo__phase_rebase(*s_p, in, out, st, 1, !own))) {
        rtopo__sched_free(*s_p);
        *s_p = NULL;
    }
    return rc;
}

/* Append p zeroed kernels to s (edges inferred again by the caller's
 * next step), the first at *k0 */
static int rtopo__phase_kerns(rtopo__sched_t *s, int p, uint32_t *k0)
{
    return rtopo__sched_add_kerns(s, (uint32_t)p, k0);
}

/* The ranks of the records that stay, from their int64 flag at TMP + *F_p,
 * which sits just above the ranks' own TMP (16-byte aligned). */
static int rtopo__rt_ranks_flag(const rtopo__tdesc_t *t, const rtopo__model_t *model,
                                int own, rtopo__sched_t **rk_p, uint64_t *F_p)
{
    rtopo__sched_t *rk = NULL;
    uint64_t F;
    uint32_t i;
    int st;

    if ((st = rtopo__rt_ranks(t, RTOPO_COLL_TOPO, model, own, RTOPO__BUF_TMP, 0, !own, &rk)))
        return st;
    F = (rk->tmp_bytes + 15) & ~(uint64_t)15;
    /* (a shape's kernels all change alike) */
    for (i = 0; i < rtopo__sched_nkshapes(rk); i++)
        if (rk->kshapes->v[i].type == RTOPO__KERN_ROUTE &&
            rk->kshapes->v[i].op == RTOPO__RT_NORM)
            rk->kshapes->v[i].src_off = F;
    rtopo__kshapes_done(&rk->kshapes);
    /* no edges: the phases are joined bare (rtopo__phase_chain), the
     * whole's then inferred at once, or a share's join by join */
    rk->ndeps = 0;
    rk->inferred = 0;
    *rk_p = rk;
    *F_p = F;
    return RTOPO_OK;
}

/* rank r's key of a tuple (its destination, INT64_MAX for none) from the
 * routing's input into TMP + T0 */
static void rtopo__rt_keyof(rtopo__kern_t *k, int r, int p, uint64_t T0)
{
    rtopo__rt_set(k, r, RTOPO__RT_KEYOF, RTOPO__BUF_TMP, 0, 8, RTOPO__BUF_TMP, T0, 8, 0);
    k->arg = p;
}

/* The flag at F of the sorted tuples at T1 that stay: each learns its
 * neighbour's key, the next one's routed to it as the generalize learns
 * its end (prev: a concentrate) or the one before's (next: a distribute),
 * and drops out when it is the same.  TMP from BB. */
static int rtopo__rt_stays(rtopo__cb_t *b, const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           uint64_t T1, uint64_t F, uint64_t BB, int next,
                           rtopo__sched_t **s_p)
{
    uint32_t tt;
    int r, p = t->p;

    rtopo__rt_init(b, t, c, RTOPO__RT_HDR + 8, BB);
    for (r = 0; r < p; r++) {
        rtopo__rt_clear(b, r, RT_H1, 0);
        rtopo__rt_kernu(b, r, next ? RTOPO__RT_HNEXT : RTOPO__RT_HPREV, RT_T, T1, 8,
                        RTA(b, RT_H), b->M, r, next ? (uint32_t)p : 0, 0);
    }
    tt = next ? rtopo__rt_dist(b, 0) : rtopo__rt_conc(b, 0);
    for (r = 0; r < p; r++) {
        rtopo__rt_copy(b, r, RT_T, T1, RT_T, F, 8, tt);
        rtopo__rt_kern(b, r, RTOPO__RT_DEDUP, 0, RT_T, RTA(b, RT_H), 2 * b->M, RT_T, F, 8, 0,
                       tt);
    }
    return rtopo__rt_done(b, s_p);
}

/* A routing phase of slots of M bytes (TMP from BB) holding the len bytes
 * of the sorted tuple at T1 under a header by its rank (HCONC, after the
 * ranks' phase), concentrated; stash: each rank keeps its input too (the
 * random read's).  Returns the concentrate's last step. */
static uint32_t rtopo__rt_ranked(rtopo__cb_t *b, const rtopo__tdesc_t *t,
                                 const rtopo__coll_t *c, uint64_t M, uint64_t BB,
                                 uint64_t T1, uint64_t len, int stash)
{
    int r;

    rtopo__rt_init(b, t, c, M, BB);
    for (r = 0; r < t->p; r++) {
        rtopo__rt_copy(b, r, RT_T, T1, RT_T, RTA(b, RT_H) + RTOPO__RT_HDR, len, 0);
        rtopo__rt_kern(b, r, RTOPO__RT_HCONC, 0, RT_T, RTOPO__ROUTE_AUX, 16, RT_T,
                       RTA(b, RT_H), RTOPO__RT_HDR, 0, 0);
        rtopo__rt_clear(b, r, RT_H1, 0);
        if (stash)
            rtopo__rt_kernu(b, r, RTOPO__RT_STASH, RT_T, 0, 0, RTA(b, RT_H), 2 * M, r, 16, 0);
    }
    return rtopo__rt_conc(b, 0);
}

/* The phases v[0..n) one after another (rtopo__phase_then), into *s_p as
 * the topology's algorithm; every v[i] is taken (set to NULL), also on
 * failure.  defer (the whole graph only): its edges are not inferred but
 * left to the simulator (rtopo__sched_t.deferred). */
static int rtopo__phase_chain(rtopo__sched_t **v, int n, int defer, rtopo__sched_t **s_p)
{
    rtopo__sched_t *acc = v[0], *x = NULL;
    int i, st = RTOPO_OK, own = 0;

    for (i = 0; i < n; i++)
        own |= v[i]->own;
    v[0] = NULL;
    if (!own) {
        /* The whole graph: the phases' nodes joined first, their edges
         * dropped, then the edges of the whole inferred in one pass (the
         * same edges as phase by phase, without holding each join's
         * edges and the next one's at once); the last step carried from
         * join to join (one pass over each phase, not over the whole) */
        uint32_t last = rtopo__sched_last_step(acc);

        for (i = 1; i < n; i++) {
            if (!st) {
                st = rtopo__phase_then_at(acc, v[i], RTOPO__CONCAT_BARE, last, &x, &last);
                acc = st ? NULL : x;
            } else {
                rtopo__sched_free(v[i]);
            }
            v[i] = NULL;
        }
        if (!st && defer)
            acc->deferred = 1;
        else if (!st && (st = rtopo__sched_deps_infer(acc, 0)))
            rtopo__sched_free(acc);
        if (st)
            return st;
        acc->algo = RTOPO_COLL_TOPO;
        *s_p = acc;
        return RTOPO_OK;
    }
    for (i = 1; i < n; i++) {
        /* a rank's share: each phase with its own edges, the join then
         * infers only the edges into the later one's nodes, not the whole
         * graph's again */
        if (!st && !acc->own && !acc->inferred)
            st = rtopo__sched_deps_infer(acc, 0);
        if (!st && !v[i]->own && !v[i]->inferred)
            st = rtopo__sched_deps_infer(v[i], 0);
        if (!st) {
            st = rtopo__phase_then(acc, v[i], 0, &x);      /* takes both */
            acc = st ? NULL : x;
        } else {
            rtopo__sched_free(v[i]);
        }
        v[i] = NULL;
    }
    if (st) {
        rtopo__sched_free(acc);         /* NULL once a join failed */
        return st;
    }
    acc->algo = RTOPO_COLL_TOPO;
    *s_p = acc;
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
    /* the phases: the sort, the tuples that stay, the ranks, the routing */
    rtopo__sched_t *ph[4] = { NULL, NULL, NULL, NULL }, *x = NULL;
    uint64_t R = c->esize, TR = 8 + ((R + 7) & ~(uint64_t)7), F, T0, T1, ST, BB;
    uint32_t k0, tt;
    rtopo__cb_t b;
    int st, r, p = t->p;

    /* the ranks of the tuples that stay, from the flag at F (set below) */
    if ((st = rtopo__rt_ranks_flag(t, model, c->own, &ph[2], &F)))
        return st;
    T0 = F + 8;
    T1 = T0 + TR;
    ST = T1 + TR;
    /* 1: the tuples, sorted by destination */
    if ((st = rtopo__phase_sort(t, model, c->own, TR, T0, T1, ST, &ph[0])) ||
        (st = rtopo__phase_kerns(ph[0], p, &k0)))
        goto out;
    BB = (ph[0]->tmp_bytes + 7) & ~(uint64_t)7;
    for (r = 0; r < p; r++) {
        rtopo__kern_t k;

        rtopo__rt_keyof(&k, r, p, T0);
        if ((st = rtopo__sched_kset(ph[0], k0 + (uint32_t)r, &k)))
            goto out;
    }
    {
        rtopo__sched_t *cp = NULL;

        rtopo__rt_init(&b, t, c, RTOPO__RT_HDR + 8, BB);
        for (r = 0; r < p; r++)
            rtopo__rt_copy(&b, r, RTOPO__BUF_SEND, 0, RT_T, T0 + 8, R, 0);
        if ((st = rtopo__rt_done(&b, &cp)))
            goto out;
        /* the record copies join the sort's first step (before it); the
         * whole graph's edges come at the end (rtopo__phase_chain) */
        st = rtopo__sched_concat(cp, ph[0], c->own ? 0 : RTOPO__CONCAT_BARE, &x);
        ph[0] = x;
        if (st)
            goto out;
    }
    /* 2: each tuple learns its successor's destination, and F becomes
     * the flag of the tuples that stay */
    if ((st = rtopo__rt_stays(&b, t, c, T1, F, BB, 0, &ph[1])))
        goto out;
    /* 3, 4, 5: ranked (ph[2]), concentrated, distributed by destination */
    tt = rtopo__rt_ranked(&b, t, c, RTOPO__RT_HDR + TR, BB, T1, TR, 0);
    for (r = 0; r < p; r++)
        rtopo__rt_kern(&b, r, RTOPO__RT_REHDR, 0, RT_T, 0, 0, RT_T, RTA(&b, RT_H), 2 * b.M, 0,
                       tt);
    tt = rtopo__rt_dist(&b, tt);
    for (r = 0; r < p; r++) {
        k0 = b.nk;
        rtopo__rt_kern(&b, r, RTOPO__RT_UNPACK, 0, RT_T, RTA(&b, RT_H), 2 * b.M,
                       RTOPO__BUF_RECV, 0, R, r, tt);
        if (!b.err && b.nk > k0)        /* (a plan's cut: kept) */
            rtopo__cb_lastk(&b)->urec = 8;
        rtopo__rt_kern(&b, r, RTOPO__RT_GOT, 0, RT_T, RTA(&b, RT_H), 2 * b.M, RT_T, 8,
                       sizeof(int32_t), 0, tt);
    }
    if ((st = rtopo__rt_done(&b, &ph[3])))
        goto out;
    return rtopo__phase_chain(ph, 4, c->bare, s_p);
out:
    for (r = 0; r < 4; r++)
        rtopo__sched_free(ph[r]);
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
    /* the phases: the sort by source, the requests that stay, the ranks,
     * the routings, the sort by reader */
    rtopo__sched_t *ph[5] = { NULL, NULL, NULL, NULL, NULL };
    uint64_t R = c->esize, R8 = (R + 7) & ~(uint64_t)7, F, T0, T1, F2, T3, ST, BB;
    uint64_t M2 = RTOPO__RT_HDR + 32 + R8;
    uint32_t k0, tt;
    rtopo__cb_t b;
    int st, r, p = t->p;

    if ((st = rtopo__rt_ranks_flag(t, model, c->own, &ph[2], &F)))
        return st;
    T0 = F + 8;
    T1 = T0 + 16;
    F2 = T1 + 16;
    T3 = F2 + 16 + R8;
    ST = T3 + 16 + R8;
    if ((st = rtopo__phase_sort(t, model, c->own, 16, T0, T1, ST, &ph[0])) ||
        (st = rtopo__phase_sort(t, model, c->own, 16 + R8, F2, T3, ST, &ph[4])))
        goto out;
    BB = ph[0]->tmp_bytes > ph[4]->tmp_bytes ? ph[0]->tmp_bytes : ph[4]->tmp_bytes;
    BB = (BB + 7) & ~(uint64_t)7;
    /* 1: the requests (source or INT64_MAX, reader), sorted by source */
    if ((st = rtopo__phase_kerns(ph[0], 2 * p, &k0)))
        goto out;
    for (r = 0; r < p; r++) {
        rtopo__kern_t k[2];

        rtopo__rt_keyof(k, r, p, T0);
        memset(&k[1], 0, sizeof(k[1]));
        k[1].rank = r;
        k[1].type = RTOPO__KERN_FILL;
        k[1].dtype = RTOPO_INT64;
        k[1].dst_buf = RTOPO__BUF_TMP;
        k[1].dst_off = T0 + 8;
        k[1].len = 8;
        k[1].arg = r;
        if ((st = rtopo__sched_kset(ph[0], k0 + 2 * (uint32_t)r, &k[0])) ||
            (st = rtopo__sched_kset(ph[0], k0 + 2 * (uint32_t)r + 1, &k[1])))
            goto out;
    }
    /* 2: the first request of each source stays: F = its flag */
    if ((st = rtopo__rt_stays(&b, t, c, T1, F, BB, 1, &ph[1])))
        goto out;
    /* 3..8 (ranks: ph[2]); 4: concentrate */
    tt = rtopo__rt_ranked(&b, t, c, M2, BB, T1, 16, 1);
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
    if ((st = rtopo__rt_done(&b, &ph[3])))
        goto out;
    /* 9: sorted by reader; each reader takes its answer */
    tt = rtopo__sched_last_step(ph[4]);
    if ((st = rtopo__phase_kerns(ph[4], 2 * p, &k0)))
        goto out;
    for (r = 0; r < p; r++) {
        rtopo__kern_t k[2];

        rtopo__rt_set(k, r, RTOPO__RT_TAKE, RTOPO__BUF_TMP, T3, 16 + R8, RTOPO__BUF_RECV, 0, R,
                      tt);
        rtopo__rt_set(k + 1, r, RTOPO__RT_NORM, RTOPO__BUF_TMP, T3 + 8, 4, RTOPO__BUF_TMP, 8,
                      8, tt);
        if ((st = rtopo__sched_kset(ph[4], k0 + 2 * (uint32_t)r, &k[0])) ||
            (st = rtopo__sched_kset(ph[4], k0 + 2 * (uint32_t)r + 1, &k[1])))
            goto out;
    }
    return rtopo__phase_chain(ph, 5, c->bare, s_p);
out:
    for (r = 0; r < 5; r++)
        rtopo__sched_free(ph[r]);
    return st;
}

int rtopo__sched_route(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                       const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    rtopo__sched_t *rk = NULL, *rt = NULL;
    rtopo__cb_t b;
    uint32_t k0, last;
    int st, r, bare;

    memset(&b, 0, sizeof(b));
    if (c->op == RTOPO__COLL_RANDOM_WRITE)
        return rtopo__sched_raw(t, c, model, s_p);
    if (c->op == RTOPO__COLL_RANDOM_READ)
        return rtopo__sched_rar(t, c, model, s_p);
    if (c->op == RTOPO__COLL_SELECT_RANK) {
        if ((st = rtopo__rt_ranks(t, c->algo, model, c->own, RTOPO__BUF_SEND, 0, 0, &rk)))
            return st;
        last = rtopo__sched_last_step(rk);
        if ((st = rtopo__sched_add_kerns(rk, c->own ? 1 : (uint32_t)t->p, &k0)))
            goto out;
        if (c->own && t->p > 1 && rk->olast < last + 1)
            rk->olast = last + 1;
        for (r = c->own ? c->own - 1 : 0; r < (c->own ? c->own : t->p); r++) {
            rtopo__kern_t k;

            rtopo__rt_set(&k, r, RTOPO__RT_XRANK, RTOPO__BUF_TMP, 16, 16, RTOPO__BUF_RECV, 0,
                          8, last);
            if ((st = rtopo__sched_kset(rk, k0++, &k)))
                goto out;
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
    /* a bare whole graph: its edges left to the simulator (deferred), as
     * the random accesses' */
    bare = c->bare && !c->own;
    if (c->op == RTOPO__COLL_CONCENTRATE) {
        if ((st = rtopo__rt_ranks(t, RTOPO_COLL_TOPO, model, c->own, RTOPO__BUF_TMP, 0, bare,
                                  &rk)))
            return st;
        b.tbase = (rk->tmp_bytes + 7) & ~(uint64_t)7;
    }
    rtopo__cb_cut(&b);                  /* it never reads back a node */
    rtopo__rt_prog(&b);
    /* the distribute and the generalize have two algorithms on the
     * OTIS-mesh: AUTO names the checked one */
    if ((st = rtopo__cb_sched(&b, (c->op == RTOPO__COLL_GENERALIZE ||
                                   c->op == RTOPO__COLL_DISTRIBUTE) &&
                              c->algo != RTOPO_COLL_TOPO && rtopo__is_om(&b) ?
                              RTOPO_COLL_AUTO : RTOPO_COLL_TOPO, &rt)))
        goto out;
    if (rk) {
        st = rtopo__phase_then(rk, rt, bare ? RTOPO__CONCAT_BARE : 0, s_p);
        rk = rt = NULL;
        if (!st) {
            (*s_p)->algo = RTOPO_COLL_TOPO;
            (*s_p)->deferred = bare;
        }
        goto out;
    }
    if (bare)
        rt->deferred = 1;
    else if ((st = rtopo__sched_deps_infer(rt, 0)))
        goto out;
    *s_p = rt;
    rt = NULL;
out:
    rtopo__sched_free(rk);
    rtopo__sched_free(rt);
    return st;
}
