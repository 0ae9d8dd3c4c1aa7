/*
 * coll_sort.c - the sort: merge-split (bitonic or odd-even) and
 * Leighton's column sort, with the ranks as columns or, on an OTIS
 * topology, in the paper's rows.
 */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"
#include "coll_int.h"

/* ---- sort: merge-split, and Leighton's column sort ---------------------- */

static void rtopo__raw_kern(rtopo__cb_t *b, int type, int op, unsigned flags, int rank,
                            int sbuf, uint64_t soff, uint64_t slen, int dbuf, uint64_t doff,
                            uint64_t dlen, uint32_t rec, int64_t arg, uint32_t step)
{
    uint64_t M = b->M;
    uint32_t nk = b->nk;

    b->M = rec;
    rtopo__rt_kern(b, rank, op, flags, sbuf, soff, slen, dbuf, doff, dlen, arg, step);
    b->M = M;
    if (!b->err && b->nk > nk) {        /* (a plan's cut: kept) */
        rtopo__kern_t *k = rtopo__cb_lastk(b);

        k->type = (uint8_t)type;
        k->dtype = (uint8_t)b->c->dtype;
        k->urec = (uint32_t)b->c->esize;
    }
}

/* bytes [soff, +len) of TMP on r to [doff, +len) of dbuf on d, leaving in
 * step t + 1 (or t + 2 after an idle step); returns the steps the route
 * takes */
static uint32_t rtopo__raw_send(rtopo__cb_t *b, int r, int sbuf, uint64_t soff, int d,
                                int dbuf, uint64_t doff, uint64_t len, uint32_t t)
{
    rtopo__hop_t h[4 * 64 + 1];
    uint32_t lead, nh = 0, i;

    if (b->err || !len)
        return 0;
    if (r == d) {
        rtopo__rt_copy(b, r, sbuf, soff, dbuf, doff, len, t + 1);
        return 0;
    }
    nh = rtopo__pair_route(b, r, d, h, &lead);
    b->h = rtopo__grow(b->h, &b->ch, b->nh + nh, sizeof(*b->h), &b->err);
    if (b->err || rtopo__cb_xadd(b, &(rtopo__xfer_t){ .src = r, .dst = d,
                                                      .src_buf = (uint8_t)sbuf,
                                                      .dst_buf = (uint8_t)dbuf,
                                                      .src_off = soff, .dst_off = doff,
                                                      .len = len, .nhops = nh,
                                                      .hop0 = b->nh }))
        return 0;
    for (i = 0; i < nh; i++) {
        b->h[b->nh] = h[i];
        b->h[b->nh].step = b->base + t + 1 + lead + i;
        b->nh++;
    }
    rtopo__cb_step(b, b->base + t + lead + nh);
    return lead + nh;
}

/* steps of the round of raw_sends that began at step t with transfer x0
 * (Lm: its longest route), in phases where they move fewer */
static uint32_t rtopo__round_len(rtopo__cb_t *b, uint32_t x0, uint32_t t, uint32_t Lm)
{
    uint32_t L = rtopo__ph_align(b, x0, b->base + t + 1);

    return L ? L : Lm;
}

/* a round of transfers collected, then routed in one shape (coll_bpc.c) */
typedef struct rtopo__pl {
    rtopo__px_t *x;
    uint32_t n, cap;
} rtopo__pl_t;

static void rtopo__pl_add(rtopo__cb_t *b, rtopo__pl_t *pl, int r, int sbuf, uint64_t soff,
                          int d, int dbuf, uint64_t doff, uint64_t len)
{
    if (b->err || !len)
        return;
    pl->x = rtopo__grow(pl->x, &pl->cap, pl->n + 1, sizeof(*pl->x), &b->err);
    if (b->err)
        return;
    pl->x[pl->n++] = (rtopo__px_t){ .src = r, .dst = d, .sbuf = (uint8_t)sbuf,
                                    .dbuf = (uint8_t)dbuf, .soff = soff, .doff = doff,
                                    .len = len };
}

/* route the round from step t + 1 on; returns the steps it takes */
static uint32_t rtopo__pl_flush(rtopo__cb_t *b, rtopo__pl_t *pl, uint32_t t)
{
    uint32_t L = rtopo__pr_round(b, pl->x, pl->n, t);

    pl->n = 0;
    return L;
}

/* Where the column sort keeps its rows: row j's in-row rank a (of S) on
 * rank j*S + a (nb == 0), or (OTIS-mesh of side 2^e) on the rank whose
 * index bits pos[] hold a's and whose top rb[k] bits of coordinate k
 * (Gx, Gy, Px, Py from bit rbase[k] on) hold digit k of j: each row a
 * submesh of the 4-D view, the paper's N^(3/8) per side, so that its
 * merge-split rounds stay within it.  The digits run in boustrophedon
 * order (digit k backwards while the digits above it make an odd
 * number), so rows j and j + 1 lie in neighbouring submeshes. */
typedef struct rtopo__sort_lay {
    int S;
    int nb;                     /* bits of a (0: rank j*S + a) */
    int8_t pos[32];
    int rb[4], rbase[4];
} rtopo__sort_lay_t;

static int rtopo__lay_rank(const rtopo__sort_lay_t *ly, int j, int a)
{
    int i, r = 0, k, hi;

    if (!ly || !ly->nb)
        return j * (ly ? ly->S : 0) + a;
    for (i = 0; i < ly->nb; i++)
        r |= ((a >> i) & 1) << ly->pos[i];
    for (k = 0; k < 4; k++) {
        int m = (1 << ly->rb[k]) - 1, dg = j & m;

        hi = j >> ly->rb[k];
        r |= ((hi & 1) ? m - dg : dg) << ly->rbase[k];
        j = hi;
    }
    return r;
}

/* the row and in-row rank of rank r */
static void rtopo__lay_inv(const rtopo__sort_lay_t *ly, int r, int *j, int *a)
{
    int i, k;

    if (!ly->nb) {
        *j = r / ly->S;
        *a = r % ly->S;
        return;
    }
    for (i = 0, *a = 0; i < ly->nb; i++)
        *a |= ((r >> ly->pos[i]) & 1) << i;
    for (k = 3, *j = 0; k >= 0; k--) {
        int m = (1 << ly->rb[k]) - 1, g = (r >> ly->rbase[k]) & m;

        *j = (*j << ly->rb[k]) | ((*j & 1) ? m - g : g);
    }
}

/* Merge-split rounds in every block of m consecutive ranks (nb blocks,
 * in the same steps), kk slots of Q bytes per rank at C of TMP: each rank
 * sorts its slots; then in every round partners swap them into C + kk*Q,
 * each merges the two runs and keeps the lower or the upper half.
 * Bitonic when m is a power of two (d(d+1)/2 rounds), odd-even
 * transposition otherwise (m rounds).  fl[x]: the kernel flags of the
 * blocks of parity x (a descending block sorts in the reverse order). */
static void rtopo__ms_blocks(rtopo__cb_t *b, const rtopo__sort_lay_t *ly, int m, int nb,
                             uint64_t C, uint64_t kk, uint64_t Q, const unsigned fl[2],
                             uint32_t *t_p)
{
    int d = 0, st, j, rounds, q, r, a, i;
    int64_t seq = (int64_t)(Q - 8);
    uint32_t t = *t_p;
    rtopo__pl_t pl = { NULL, 0, 0 };

    if (!kk)
        return;
    while ((1 << d) < m)
        d++;
    for (i = 0; i < m * nb; i++)
        rtopo__raw_kern(b, RTOPO__KERN_SORT, 0, fl[(i / m) & 1], rtopo__lay_rank(ly, i / m, i % m),
                        RT_T, 0, 0, RT_T, C, kk * Q, (uint32_t)Q, seq, t);
    rounds = (1 << d) == m ? d * (d + 1) / 2 : m;
    for (q = 0; q < rounds; q++) {
        int stage = 0, bit = 0;

        if ((1 << d) == m) {        /* round q: stage, bit */
            for (st = 1, j = q; j >= st; j -= st, st++)
                ;
            stage = st;
            bit = stage - 1 - j;
        }
        for (i = 0; i < m * nb; i++) {
            a = i % m;
            j = (1 << d) == m ? a ^ (1 << bit) : ((a & 1) == (q & 1) ? a + 1 : a - 1);
            if (j < 0 || j >= m)
                continue;
            rtopo__pl_add(b, &pl, rtopo__lay_rank(ly, i / m, a), RT_T, C,
                          rtopo__lay_rank(ly, i / m, j), RT_T, C + kk * Q, kk * Q);
        }
        t += rtopo__pl_flush(b, &pl, t) + 1;
        for (i = 0; i < m * nb; i++) {
            /* ascending pairs (in the block's order) keep the lower half
             * on the lower rank */
            int asc, low;

            a = i % m;
            r = rtopo__lay_rank(ly, i / m, a);
            j = (1 << d) == m ? a ^ (1 << bit) : ((a & 1) == (q & 1) ? a + 1 : a - 1);
            if (j < 0 || j >= m)
                continue;
            asc = (1 << d) == m ? stage == d || !((a >> stage) & 1) : 1;
            low = (a < j) == asc;
            rtopo__raw_kern(b, RTOPO__KERN_SORT, 0, fl[(i / m) & 1] | RTOPO__KERN_MERGE, r,
                            RT_T, 0, 0, RT_T, C, 2 * kk * Q, (uint32_t)Q, seq, t);
            if (!low)
                rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_DEAL, 0, r, RT_T,
                                C + kk * Q, kk * Q, RT_T, C, kk * Q, (uint32_t)Q, 1, t);
        }
    }
    free(pl.x);
    *t_p = t;
}

/* Every rank's count records from SEND into kk slots at C0 of TMP (pads
 * after them), numbered in the order of (rank, index), at the current
 * step t */
static void rtopo__sort_pack(rtopo__cb_t *b, uint64_t kk, uint64_t C0, uint32_t t)
{
    int p = b->t->p, r;
    uint64_t k = b->c->count, R = b->c->esize, Q = ((R + 7) & ~(uint64_t)7) + 8;

    for (r = 0; r < p; r++)
        rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_SPACK,
                        b->c->desc ? RTOPO__KERN_DESC : 0, r, RTOPO__BUF_SEND, 0, k * R, RT_T,
                        C0, kk * Q, (uint32_t)Q, (int64_t)((uint64_t)r * k), t);
}

/* The sorted order in p runs of kk slots at C0 of TMP, pads last, to the
 * callers' k records per rank in RECV: rank x's records [x*k, x*k + k)
 * come from the runs they lie in (through C1 when kk > k). */
static void rtopo__sort_unpad(rtopo__cb_t *b, const rtopo__sort_lay_t *ly, uint64_t kk,
                              uint64_t C0, uint64_t C1, uint32_t t)
{
    int p = b->t->p, j, x;
    uint64_t k = b->c->count, R = b->c->esize, Q = ((R + 7) & ~(uint64_t)7) + 8, lo, hi;
    rtopo__pl_t pl = { NULL, 0, 0 };

    if (kk == k && (!ly || !ly->nb)) {
        for (j = 0; j < p; j++)
            rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_SUNPACK, 0, j, RT_T, C0, kk * Q,
                            RTOPO__BUF_RECV, 0, k * R, (uint32_t)Q, 0, t);
        return;
    }
    for (j = 0; j < p; j++)          /* run j meets the ranks x of these records */
        for (x = (int)((uint64_t)j * kk / k); x < p && (uint64_t)x * k < (uint64_t)(j + 1) * kk;
             x++) {
            lo = (uint64_t)x * k > (uint64_t)j * kk ? (uint64_t)x * k : (uint64_t)j * kk;
            hi = (uint64_t)(x + 1) * k < (uint64_t)(j + 1) * kk ? (uint64_t)(x + 1) * k :
                 (uint64_t)(j + 1) * kk;
            if (lo >= hi)
                continue;
            rtopo__pl_add(b, &pl, ly ? rtopo__lay_rank(ly, j / ly->S, j % ly->S) : j, RT_T,
                          C0 + (lo - (uint64_t)j * kk) * Q, x, RT_T,
                          C1 + (lo - (uint64_t)x * k) * Q, (hi - lo) * Q);
        }
    t += rtopo__pl_flush(b, &pl, t) + 1;
    free(pl.x);
    for (x = 0; x < p; x++)
        rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_SUNPACK, 0, x, RT_T, C1, k * Q,
                        RTOPO__BUF_RECV, 0, k * R, (uint32_t)Q, 0, t);
}

/* Merge-split sort (the generic algorithm): the ranks as one block.  TMP:
 * two runs of count slots. */
void rtopo__sort_ms_prog(rtopo__cb_t *b)
{
    const rtopo__coll_t *c = b->c;
    uint64_t k = c->count, Q = ((c->esize + 7) & ~(uint64_t)7) + 8;
    uint32_t t = 0;
    unsigned up = c->desc ? RTOPO__KERN_DESC : 0;
    const unsigned fl[2] = { up | RTOPO__KERN_SEQ, up | RTOPO__KERN_SEQ };

    if (!k)
        return;
    rtopo__cb_cut(b);
    b->ntmp = 0;
    b->tbase = 2 * k * Q;
    rtopo__sort_pack(b, k, 0, t);
    rtopo__ms_blocks(b, NULL, b->t->p, 1, 0, k, Q, fl, &t);
    rtopo__sort_unpad(b, NULL, k, 0, 0, t);
}

/* Leighton's column sort with the ranks as the columns of a kk x p matrix
 * (rtopo_sort(3)): kk = max(count, 2(p-1)^2) rounded up to a multiple of
 * p, or c->mm; the transforms are all-to-all exchanges of dealt piles.
 * TMP: three columns of slots. */
void rtopo__sort_prog(rtopo__cb_t *b)
{
    const rtopo__coll_t *c = b->c;
    int p = b->t->p, j, x, rnd;
    uint64_t k = c->count, R = c->esize, Q = ((R + 7) & ~(uint64_t)7) + 8;
    uint64_t kk, per, C0, C1, C2;
    uint32_t t = 0, L, Lm;
    unsigned up = c->desc ? RTOPO__KERN_DESC : 0, seqf = RTOPO__KERN_SEQ;
    int64_t seq = (int64_t)(Q - 8);
    rtopo__cb_t sc;             /* each round's transfers, restamped there */

    if (!k)
        return;
    kk = (uint64_t)2 * (uint64_t)(p - 1) * (uint64_t)(p - 1);
    kk = c->mm > 0 ? (uint64_t)c->mm : kk > k ? kk : k;
    kk = (kk + (uint64_t)p - 1) / (uint64_t)p * (uint64_t)p;
    per = kk / (uint64_t)p;
    C0 = 0;
    C1 = kk * Q;
    C2 = 2 * kk * Q;
    rtopo__cb_cut(b);
    b->ntmp = 0;
    b->tbase = 3 * kk * Q;       /* TMP bytes (no registers) */
    /* 1: into slots, sort each column */
    rtopo__sort_pack(b, kk, C0, t);
    for (j = 0; j < p; j++) {
        rtopo__raw_kern(b, RTOPO__KERN_SORT, 0, up | seqf, j, RT_T, 0, 0, RT_T, C0, kk * Q,
                        (uint32_t)Q, seq, t);
    }
    if (p > 1) {
        /* 2: transpose (column j's slot i to column i mod p, row
         * j*per + i/p): deal into piles, pile x to column x's block j */
        rtopo__cb_round(b, &sc);
        for (j = 0, Lm = 0; j < p; j++) {
            rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_DEAL, 0, j, RT_T, C0, kk * Q,
                            RT_T, C1, kk * Q, (uint32_t)Q, p, t);
            for (x = 0; x < p; x++) {
                L = rtopo__raw_send(&sc, j, RT_T, C1 + (uint64_t)x * per * Q, x, RT_T,
                                    C0 + (uint64_t)j * per * Q, per * Q, t);
                Lm = L > Lm ? L : Lm;
            }
        }
        t += rtopo__round_len(&sc, 0, t, Lm) + 1;
        rtopo__cb_unround(b, &sc);
        /* 3: sort; 4: the inverse transform (block x of column j back to
         * column x's pile j, undealt) */
        rtopo__cb_round(b, &sc);
        for (j = 0, Lm = 0; j < p; j++) {
            rtopo__raw_kern(b, RTOPO__KERN_SORT, 0, up | seqf, j, RT_T, 0, 0, RT_T, C0,
                            kk * Q, (uint32_t)Q, seq, t);
            for (x = 0; x < p; x++) {
                L = rtopo__raw_send(&sc, j, RT_T, C0 + (uint64_t)x * per * Q, x, RT_T,
                                    C1 + (uint64_t)j * per * Q, per * Q, t);
                Lm = L > Lm ? L : Lm;
            }
        }
        t += rtopo__round_len(&sc, 0, t, Lm) + 1;
        rtopo__cb_unround(b, &sc);
        /* 5: sort, alternately ascending and descending */
        for (j = 0; j < p; j++) {
            rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_UNDEAL, 0, j, RT_T, C1, kk * Q,
                            RT_T, C0, kk * Q, (uint32_t)Q, p, t);
            rtopo__raw_kern(b, RTOPO__KERN_SORT, 0, j & 1 ? (up ^ RTOPO__KERN_DESC) | seqf |
                            RTOPO__KERN_SEQDESC : up | seqf, j, RT_T, 0, 0, RT_T, C0, kk * Q,
                            (uint32_t)Q, seq, t);
        }
        /* 6: compare-exchange of neighbouring columns, row by row, pairs
         * (0,1), (2,3), ... then (1,2), (3,4), ...: the right column
         * comes to the left one and goes back */
        for (rnd = 0; rnd < 2; rnd++) {
            rtopo__cb_round(b, &sc);
            for (j = rnd, Lm = 0; j + 1 < p; j += 2) {
                L = rtopo__raw_send(&sc, j + 1, RT_T, C0, j, RT_T, C2, kk * Q, t);
                Lm = L > Lm ? L : Lm;
            }
            rtopo__cb_unround(b, &sc);
            t += Lm + 1;
            rtopo__cb_round(b, &sc);
            for (j = rnd; j + 1 < p; j += 2) {
                rtopo__raw_kern(b, RTOPO__KERN_CMPX, 0, up | seqf, j, RT_T, C0, kk * Q, RT_T,
                                C2, kk * Q, (uint32_t)Q, seq, t);
                rtopo__raw_send(&sc, j, RT_T, C2, j + 1, RT_T, C0, kk * Q, t);
            }
            rtopo__cb_unround(b, &sc);
            t += Lm + 1;
        }
        /* 7: sort */
        for (j = 0; j < p; j++)
            rtopo__raw_kern(b, RTOPO__KERN_SORT, 0, up | seqf, j, RT_T, 0, 0, RT_T, C0,
                            kk * Q, (uint32_t)Q, seq, t);
    }
    rtopo__sort_unpad(b, NULL, kk, C0, C1, t);
}

/* Seed 004's sort (2.13): Leighton's column sort with the roles of rows
 * and columns exchanged, on an array of R rows, row j being the S = p/R
 * consecutive ranks j*S .. j*S + S - 1 (on an OTIS-mesh of N groups, R =
 * N^(1/2) rows of N^(3/2) processors, the row index being Gx).  A row of
 * L = S*kk slots (kk per rank) is a column of Leighton's method; L >=
 * 2(R-1)^2 holds for every OTIS-mesh.  The row sorts are merge-split
 * rounds among the row's ranks, all rows at once; the transform of step 2
 * (row j's position i to row i mod R, position j*L/R + i/R) and its
 * inverse are fixed permutations (bit rotations of the record index, i.e.
 * BPC permutations, when R and kk are powers of two), each record on its
 * own route; the compare-exchange of step 6 pairs rank j*S + a with
 * (j+1)*S + a.  The result, row-major, is the rank order.  kk is k
 * rounded up to a divisor of R or to a multiple of R (pads sort last).
 * TMP: three runs of kk slots. */
int rtopo__sort_nrows(const rtopo__tdesc_t *t)
{
    int R = 1, S;

    if (t->kind != RTOPO__TOPO_OTIS_MESH && t->kind != RTOPO__TOPO_OTIS_HYPERCUBE)
        return 0;
    while ((R + 1) * (R + 1) <= t->n)
        R++;
    if (R * R != t->n)
        return 0;
    S = t->p / R;
    return (S & (S - 1)) == 0 || S <= RTOPO__SORT_ODDEVEN_MAX ? R : 0;
}

uint64_t rtopo__sort_rows_kk(uint64_t k, int R)
{
    uint64_t kk = k ? k : 1;

    while (kk < (uint64_t)R && R % kk)
        kk++;
    if (kk > (uint64_t)R)
        kk = (kk + (uint64_t)R - 1) / (uint64_t)R * (uint64_t)R;
    return kk;
}

/* where record u of rank r goes in the transform (fwd) or comes from
 * (its inverse) */
static void rtopo__sort_rows_map(const rtopo__sort_lay_t *ly, int R, uint64_t kk, int r,
                                 uint64_t u, int fwd, int *rank, uint64_t *slot)
{
    int jr, ar;
    uint64_t L = (uint64_t)ly->S * kk, i, j, x, i2;

    rtopo__lay_inv(ly, r, &jr, &ar);
    i = (uint64_t)ar * kk + u;
    j = (uint64_t)jr;
    if (fwd) {
        x = i % (uint64_t)R;
        i2 = j * (L / (uint64_t)R) + i / (uint64_t)R;
    } else {
        x = i / (L / (uint64_t)R);
        i2 = i % (L / (uint64_t)R) * (uint64_t)R + j;
    }
    *rank = rtopo__lay_rank(ly, (int)x, (int)(i2 / kk));
    *slot = i2 % kk;
}

/* The rows' layout on t: submeshes on an OTIS-mesh of side 2^e (e >= 1);
 * rank order elsewhere.  The index bits, low to high, are e of Py, Px,
 * Gy, Gx each; the row's e bits are the top bits of Gx, Gy, Px, Py, one
 * of each in turn, the in-row rank's the others, lowest first and Py,
 * Px before Gy, Gx on each level (the shortest exchanges in the most
 * merge-split rounds, the ones over OTIS links in the fewest). */
static void rtopo__sort_lay_init(const rtopo__tdesc_t *t, int R, rtopo__sort_lay_t *ly)
{
    int e = 0, lvl, c, k, taken[4] = { 0, 0, 0, 0 };
    static const int rowc[4] = { 3, 2, 1, 0 };      /* Gx, Gy, Px, Py */

    memset(ly, 0, sizeof(*ly));
    ly->S = t->p / R;
    if (t->kind != RTOPO__TOPO_OTIS_MESH)
        return;
    while ((1 << e) * (1 << e) < R * R)
        e++;
    if ((1 << e) != R || 4 * e > 31 || e < 1)
        return;
    for (k = 0; k < e; k++)                         /* e row bits, in turn */
        taken[rowc[k % 4]]++;
    for (k = 0; k < 4; k++) {
        ly->rb[k] = taken[rowc[k]];
        ly->rbase[k] = rowc[k] * e + e - taken[rowc[k]];
    }
    for (lvl = 0, ly->nb = 0; lvl < e; lvl++)
        for (c = 0; c < 4; c++)
            if (lvl < e - taken[c])
                ly->pos[ly->nb++] = (int8_t)(c * e + lvl);
}

void rtopo__sort_rows_prog(rtopo__cb_t *b, int R)
{
    const rtopo__coll_t *c = b->c;
    int p = b->t->p, S = p / R, r, j, a, dst, step, jr;
    uint64_t k = c->count, E = c->esize, Q = ((E + 7) & ~(uint64_t)7) + 8;
    uint64_t kk = rtopo__sort_rows_kk(k, R), C0 = 0, C1 = kk * Q, C2 = 2 * kk * Q, u, v;
    uint64_t per = kk / (uint64_t)R, Cd = per ? C0 : C1;
    uint32_t t = 0;
    rtopo__pl_t pl = { NULL, 0, 0 };
    unsigned up = c->desc ? RTOPO__KERN_DESC : 0, seqf = RTOPO__KERN_SEQ;
    const unsigned asc[2] = { up | seqf, up | seqf };
    const unsigned alt[2] = { up | seqf, (up ^ RTOPO__KERN_DESC) | seqf | RTOPO__KERN_SEQDESC };
    rtopo__sort_lay_t ly;

    if (!k)
        return;
    rtopo__cb_cut(b);
    b->ntmp = 0;
    b->tbase = 3 * kk * Q;
    rtopo__sort_lay_init(b->t, R, &ly);
    /* 1: sort the rows */
    rtopo__sort_pack(b, kk, C0, t);
    rtopo__ms_blocks(b, &ly, S, R, C0, kk, Q, asc, &t);
    for (step = 2; step <= 4; step += 2) {
        /* 2: the transform, into Cd; 4: its inverse, back to C0.  Runs
         * of kk/R slots (dealt into R piles) when R divides kk, single
         * slots otherwise */
        int fwd = step == 2;

        for (r = 0; r < p; r++) {
            if (per && fwd)
                rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_DEAL, 0, r, RT_T, C0, kk * Q,
                                RT_T, C1, kk * Q, (uint32_t)Q, R, t);
            for (u = 0; u < kk; u += per ? per : 1) {
                /* the pile's first slot is its number */
                rtopo__sort_rows_map(&ly, R, kk, r, per && fwd ? u / per : u, fwd, &dst, &v);
                if (per && fwd)     /* pile u / per */
                    rtopo__pl_add(b, &pl, r, RT_T, C1 + u / per * per * Q, dst, RT_T,
                                  C0 + v * Q, per * Q);
                else if (per) {     /* to pile (r's row) of dst */
                    rtopo__lay_inv(&ly, r, &jr, &a);
                    rtopo__pl_add(b, &pl, r, RT_T, C0 + u * Q, dst, RT_T,
                                  C1 + (uint64_t)jr * per * Q, per * Q);
                } else
                    rtopo__pl_add(b, &pl, r, RT_T, (fwd ? C0 : C1) + u * Q, dst, RT_T,
                                  (fwd ? C1 : C0) + v * Q, Q);
            }
        }
        t += rtopo__pl_flush(b, &pl, t) + 1;
        if (per && !fwd)
            for (r = 0; r < p; r++)
                rtopo__raw_kern(b, RTOPO__KERN_ROUTE, RTOPO__RT_UNDEAL, 0, r, RT_T, C1,
                                kk * Q, RT_T, C0, kk * Q, (uint32_t)Q, R, t);
        /* 3: sort the rows; 5: alternately ascending and descending */
        rtopo__ms_blocks(b, &ly, S, R, fwd ? Cd : C0, kk, Q, fwd ? asc : alt, &t);
    }
    /* 6: compare-exchange of neighbouring rows, position by position,
     * pairs (0,1), (2,3), ... then (1,2), (3,4), ...: in-row rank a of
     * rows j and j + 1 swap their slots, and each keeps its side (the
     * same comparisons on both) */
    for (step = 0; step < 2; step++) {
        for (j = step; j + 1 < R; j += 2)
            for (a = 0; a < S; a++) {
                rtopo__pl_add(b, &pl, rtopo__lay_rank(&ly, j + 1, a), RT_T, C0,
                              rtopo__lay_rank(&ly, j, a), RT_T, C2, kk * Q);
                rtopo__pl_add(b, &pl, rtopo__lay_rank(&ly, j, a), RT_T, C0,
                              rtopo__lay_rank(&ly, j + 1, a), RT_T, C2, kk * Q);
            }
        t += rtopo__pl_flush(b, &pl, t) + 1;
        for (j = step; j + 1 < R; j += 2)
            for (a = 0; a < S; a++) {
                rtopo__raw_kern(b, RTOPO__KERN_CMPX, 0, up | seqf, rtopo__lay_rank(&ly, j, a),
                                RT_T, C0, kk * Q, RT_T, C2, kk * Q, (uint32_t)Q,
                                (int64_t)(Q - 8), t);
                rtopo__raw_kern(b, RTOPO__KERN_CMPX, 0, up | seqf,
                                rtopo__lay_rank(&ly, j + 1, a), RT_T, C2, kk * Q, RT_T, C0,
                                kk * Q, (uint32_t)Q, (int64_t)(Q - 8), t);
            }
    }
    /* 7: sort the rows */
    rtopo__ms_blocks(b, &ly, S, R, C0, kk, Q, asc, &t);
    free(pl.x);
    rtopo__sort_unpad(b, &ly, kk, C0, C1, t);
}

/* one piece of the sort's program: merge-split (GENERIC) or the column
 * sort, in the paper's rows on an OTIS topology that has them */
static void rtopo__sort_coll_prog(rtopo__cb_t *b, int algo)
{
    if (algo == RTOPO_COLL_GENERIC)
        rtopo__sort_ms_prog(b);
    else if (rtopo__sort_nrows(b->t) > 1)
        rtopo__sort_rows_prog(b, rtopo__sort_nrows(b->t));
    else
        rtopo__sort_prog(b);
}

/* ---- AUTO by closed figures --------------------------------------------- */

/* merge-split rounds in a block of m ranks; *d_p: m's bits when m is a
 * power of two (bitonic), else -1 (odd-even transposition) */
static int rtopo__ms_rounds(int m, int *d_p)
{
    int d = 0;

    while ((1 << d) < m)
        d++;
    *d_p = (1 << d) == m ? d : -1;
    return (1 << d) == m ? d * (d + 1) / 2 : m;
}

/* the bit a bitonic round q exchanges (as rtopo__ms_blocks numbers them) */
static int rtopo__ms_bit(int q)
{
    int st, j;

    for (st = 1, j = q; j >= st; j -= st, st++)
        ;
    return st - 1 - j;
}

/* in-block partner of a in round q of a block of m (d from
 * rtopo__ms_rounds), or -1 */
static int rtopo__ms_partner(int m, int d, int q, int a)
{
    int j;

    if (d >= 0)
        return a ^ (1 << rtopo__ms_bit(q));
    j = (a & 1) == (q & 1) ? a + 1 : a - 1;
    return j < 0 || j >= m ? -1 : j;
}

/* a kernel of len bytes as rtopo__sim charges it: len*tk, and lg n times
 * that for a sort (not a merge) of n > 2 records of rec bytes */
static double rtopo__sort_kcost(const rtopo__model_t *m, uint64_t len, uint64_t rec, int sort)
{
    double c = (double)len * m->tk;
    uint64_t n = rec ? len / rec : 0;
    int lg = 0;

    if (!sort || n <= 2)
        return c;
    while (n > 1) {
        n >>= 1;
        lg++;
    }
    return c * lg;
}

/* the builder's shape for t (the group size and side or dimension the
 * routes take), no nodes */
static void rtopo__sort_cb0(const rtopo__tdesc_t *t, const rtopo__coll_t *c, rtopo__cb_t *b)
{
    memset(b, 0, sizeof(*b));
    b->t = t;
    b->c = c;
    if (t->kind == RTOPO__TOPO_OTIS_MESH) {
        b->n = t->n;
        for (b->s = 1; b->s * b->s < t->n; b->s++)
            ;
    } else if (t->kind == RTOPO__TOPO_OTIS_HYPERCUBE) {
        b->n = t->n;
        b->s = t->dim;
    }
}

/* The merge-split sort's time as its rounds' sum: each round its longest
 * route alone on its links (rtopo__pr_round_least) and a merge and a deal,
 * with the packing, the first sort and the unpacking; the rounds of one
 * bit (or parity) route alike and are routed once.  An estimate: ranks
 * wait for no one but their partners and routes meet no others, which
 * the schedule's phases come close to (its simulated time is held
 * against it in the tests).  -1 when memory runs out. */
static double rtopo__sort_ms_est(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                                 const rtopo__model_t *m)
{
    int p = t->p, d, rounds = rtopo__ms_rounds(p, &d), q, a, key, pa;
    uint64_t k = c->count, Q = ((c->esize + 7) & ~(uint64_t)7) + 8, L = k * Q;
    double est, kind[64];
    int known[64] = { 0 };
    rtopo__px_t *x = malloc((size_t)p * sizeof(*x));
    rtopo__cb_t b;
    uint32_t nx;

    if (!x)
        return -1.0;
    rtopo__sort_cb0(t, c, &b);
    est = rtopo__sort_kcost(m, L, Q, 0) + rtopo__sort_kcost(m, L, Q, 1) +
          rtopo__sort_kcost(m, k * c->esize, Q, 0);
    for (q = 0; q < rounds; q++) {
        key = d >= 0 ? rtopo__ms_bit(q) : q & 1;
        if (key >= 64) {
            free(x);
            return -1.0;
        }
        if (!known[key]) {
            for (a = 0, nx = 0; a < p; a++)
                if ((pa = rtopo__ms_partner(p, d, q, a)) >= 0)
                    x[nx++] = (rtopo__px_t){ .src = a, .dst = pa, .sbuf = RT_T, .dbuf = RT_T,
                                             .len = L };
            kind[key] = rtopo__pr_round_least(&b, x, nx, m, NULL);
            known[key] = 1;
        }
        est += kind[key] + rtopo__sort_kcost(m, 2 * L, Q, 0) + rtopo__sort_kcost(m, L, Q, 0);
    }
    free(x);
    return est;
}

/* A lower bound of the column sort's time in rows (rtopo__sort_rows_prog):
 * the chain of one rank's own nodes, each at its least cost, the largest
 * over the ranks.  In each of the four row sorts a rank sorts its slots,
 * then in every round takes its partner's (once its last merge has read
 * the ones before: the route the round gives them, alone on its links)
 * and merges; a row sort begins after the one before ended on the rank
 * (its slots come through the transforms and the compare-exchange, left
 * out of the bound).  The rounds of one bit (or parity) route alike and
 * are routed once, nothing made.  -1 without rows or memory. */
static double rtopo__sort_col_lb(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                                 const rtopo__model_t *m)
{
    int R = rtopo__sort_nrows(t), p = t->p, S, d, rounds, q, a, pa, key, r;
    uint64_t kk, Q = ((c->esize + 7) & ~(uint64_t)7) + 8, L;
    double merge, sortc, best = -1.0, *got = NULL, *each = NULL, *in = NULL;
    uint8_t *first = NULL;
    rtopo__px_t *x = NULL;
    rtopo__sort_lay_t ly;
    rtopo__cb_t b;
    uint32_t nx, i;
    int done[64] = { 0 };

    if (R <= 1)
        return -1.0;
    S = p / R;
    kk = rtopo__sort_rows_kk(c->count, R);
    L = kk * Q;
    rtopo__sort_lay_init(t, R, &ly);
    rtopo__sort_cb0(t, c, &b);
    rounds = rtopo__ms_rounds(S, &d);
    merge = rtopo__sort_kcost(m, 2 * L, Q, 0);
    sortc = rtopo__sort_kcost(m, L, Q, 1);
    got = malloc((size_t)p * sizeof(*got));
    in = malloc((size_t)p * sizeof(*in) * (d >= 0 ? (size_t)d : 2));
    each = malloc((size_t)p * sizeof(*each));
    first = malloc((size_t)p);
    x = malloc((size_t)p * sizeof(*x));
    if (!got || !in || !each || !first || !x || d > 63)
        goto out;
    for (r = 0; r < p; r++) {
        got[r] = sortc;
        first[r] = 1;
    }
    for (q = 0; q < rounds; q++) {
        double *kin;

        key = d >= 0 ? rtopo__ms_bit(q) : q & 1;
        kin = in + (size_t)key * (size_t)p;
        if (!done[key]) {
            /* the round's transfers as rtopo__ms_blocks makes them */
            for (i = 0, nx = 0; i < (uint32_t)p; i++) {
                a = (int)i % S;
                if ((pa = rtopo__ms_partner(S, d, q, a)) >= 0)
                    x[nx++] = (rtopo__px_t){ .src = rtopo__lay_rank(&ly, (int)i / S, a),
                                             .dst = rtopo__lay_rank(&ly, (int)i / S, pa),
                                             .sbuf = RT_T, .dbuf = RT_T, .len = L };
            }
            for (r = 0; r < p; r++)
                kin[r] = -1.0;
            (void)rtopo__pr_round_least(&b, x, nx, m, each);
            for (i = 0; i < nx; i++)
                kin[x[i].dst] = each[i];
            done[key] = 1;
        }
        for (r = 0; r < p; r++) {
            if (kin[r] < 0)
                continue;
            /* the first merge waits for the sort and the slots taken */
            got[r] = (first[r] ? (kin[r] > got[r] ? kin[r] : got[r]) : got[r] + kin[r]) + merge;
            first[r] = 0;
        }
    }
    for (r = 0; r < p; r++) {
        double lb = rtopo__sort_kcost(m, L, Q, 0) + 4 * got[r];     /* packing, row sorts */

        best = lb > best ? lb : best;
    }
out:
    free(got);
    free(in);
    free(each);
    free(first);
    free(x);
    return best;
}

void rtopo__sort_auto_figures(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                              const rtopo__model_t *model, double *col_lb, double *ms_est)
{
    rtopo__model_t def;

    if (!model) {
        rtopo__model_default(&def);
        model = &def;
    }
    *col_lb = rtopo__sort_col_lb(t, c, model);
    *ms_est = (t->p & (t->p - 1)) == 0 ? rtopo__sort_ms_est(t, c, model) : -1.0;
}

/* Where the column sort in rows cannot win even at its lower bound, the
 * merge-split sort (power-of-two ranks, bitonic) is the choice: its
 * estimated time, with the margin, is below.  Not under a model whose
 * ranks share processors (lanes) or costs hops by hosts (a layout): the
 * estimate leaves their waiting out.  Nor for the reference
 * (rtopo__choose_every), which runs both. */
int rtopo__sort_auto_closed(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                            const rtopo__model_t *model)
{
    double lb, est;

    if (rtopo__choose_every || !c->count || (t->p & (t->p - 1)) ||
        rtopo__sort_nrows(t) <= 1 || (model && (model->lanes > 0 || model->layout)))
        return -1;
    rtopo__sort_auto_figures(t, c, model, &lb, &est);
    return lb > 0 && est > 0 && lb >= est * RTOPO__SORT_EST_MARGIN ? RTOPO_COLL_GENERIC : -1;
}

/* AUTO on the whole graph (the simulator's, and the sort phases of the
 * random accesses): the faster of the column sort (TOPO) and the
 * merge-split sort (GENERIC), the earlier on a tie, as rtopo__coll_choose
 * takes it, without the column sort's whole graph where it cannot win.
 * Rank 0's share of the column sort, built with the cut, bounds its time
 * from below (rtopo__coll_cand_lb, as a plan's choice bounds it); the
 * merge-split sort is run whole, and when the bound is above its time
 * (by the rounding margin of the plan's choice) the column sort is
 * slower and is never built whole.  Otherwise both are run, as before. */
static int rtopo__sort_auto_whole(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                                  const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    rtopo__coll_t one = *c;
    rtopo__sched_t *g = NULL, *col = NULL;
    rtopo__sim_result_t r;
    double lb, tg;
    int st;

    one.own = 1;
    lb = rtopo__coll_cand_lb(t, &one, rtopo__sort_coll_prog, NULL, model, RTOPO_COLL_TOPO);
    if ((st = rtopo__coll_algo1(t, c, rtopo__sort_coll_prog, RTOPO_COLL_GENERIC, model, &g)) ||
        (st = rtopo__sim_run(g, model, &r)))
        goto out;
    tg = r.model_time;
    if (lb < tg * (1 + 1e-9)) {
        if ((st = rtopo__coll_algo1(t, c, rtopo__sort_coll_prog, RTOPO_COLL_TOPO, model,
                                    &col)) ||
            (st = rtopo__sim_run(col, model, &r)))
            goto out;
        if (!(tg < r.model_time * (1 - 1e-12))) {     /* the earlier on a tie */
            *s_p = col;
            col = NULL;
            goto out;
        }
    }
    *s_p = g;
    g = NULL;
out:
    rtopo__sched_free(g);
    rtopo__sched_free(col);
    return st;
}

/* the sort's own arguments, after those every collective checks */
int rtopo__sort_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c)
{
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
}

/* The sort's schedule: the column sort while its pads stay within 4
 * columns of records, else (and for GENERIC) merge-split; each has a size
 * beyond which its schedule would not fit a rank's memory.  Never cut
 * into pieces: the program moves whole records (c->chunks as 1). */
int rtopo__sort_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c0,
                      const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    rtopo__coll_t whole = *c0, *c = &whole;
    int R = rtopo__sort_nrows(t);
    uint64_t kk = R > 1 ? rtopo__sort_rows_kk(c->count, R) :
                  2 * (uint64_t)(t->p - 1) * (uint64_t)(t->p - 1);
    uint64_t Q = ((c->esize + 7) & ~(uint64_t)7) + 8;
    int pow2 = (t->p & (t->p - 1)) == 0;
    int col_ok = (kk > c->count ? kk : c->count) * Q * 3 <= ((uint64_t)1 << 31) &&
                 (R > 1 || (uint64_t)t->p * (uint64_t)t->p <= ((uint64_t)1 << 20));
    int ms_ok = pow2 || t->p <= RTOPO__SORT_ODDEVEN_MAX;
    static const int cand[2] = { RTOPO_COLL_TOPO, RTOPO_COLL_GENERIC };

    whole.chunks = 1;

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
        return rtopo__coll_algo1(t, c, rtopo__sort_coll_prog, c->algo, model, s_p);
    if (!col_ok || (ms_ok && kk > 4 * (c->count ? c->count : 1)))
        return rtopo__coll_algo1(t, c, rtopo__sort_coll_prog, RTOPO_COLL_GENERIC, model, s_p);
    if (!ms_ok)
        return rtopo__coll_algo1(t, c, rtopo__sort_coll_prog, RTOPO_COLL_TOPO, model, s_p);
    if (rtopo__sort_auto_closed(t, c, model) == RTOPO_COLL_GENERIC)
        return rtopo__coll_algo1(t, c, rtopo__sort_coll_prog, RTOPO_COLL_GENERIC, model, s_p);
    whole.bare = 0;                     /* the candidates are run */
    if (!c->own)
        return rtopo__sort_auto_whole(t, c, model, s_p);
    return rtopo__coll_choose(t, c, rtopo__sort_coll_prog, model, cand, 2, s_p);
}
