/*
 * coll_bpc.c - bit-permute-complement permutations: the vector, the
 * destination of a rank, routes between two ranks and their rounds.
 */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"
#include "coll_int.h"

/* ---- BPC permutations ---------------------------------------------------- */

int rtopo__bpc_dest(const rtopo__coll_t *c, int r)
{
    int i, d = 0;

    for (i = 0; i < c->bpc_bits; i++)
        d |= (((r >> i) & 1) ^ (int)((c->bpc_neg >> i) & 1)) << c->bpc_to[i];
    return d;
}

int rtopo__bpc_parse(const char *vec, int k, rtopo__coll_t *c)
{
    static const char *const names[5] = { "identity", "reversal", "shuffle", "unshuffle",
                                          "transpose" };
    int i, n = 0, seen = 0, nm;
    const char *q;
    size_t L;

    if (!vec)
        return rtopo__error(RTOPO_ERR_INVAL, "bpc: the vector is NULL");
    if (k < 0 || k > 30)
        return rtopo__error(RTOPO_ERR_INVAL, "bpc: %d index bits (0..30)", k);
    while (*vec == ' ')
        vec++;
    for (L = strlen(vec); L && vec[L - 1] == ' '; L--)
        ;
    c->bpc_bits = k;
    c->bpc_neg = 0;
    for (nm = 0; nm < 5 && (strlen(names[nm]) != L || strncmp(vec, names[nm], L)); nm++)
        ;
    if (nm == 4 && k % 2)
        return rtopo__error(RTOPO_ERR_INVAL, "bpc: transpose needs an even number of index "
                            "bits, not %d", k);
    if (nm < 5) {
        for (i = 0; i < k; i++)
            c->bpc_to[i] = (int8_t)(nm == 0 ? i : nm == 1 ? k - 1 - i : nm == 2 ? (i + 1) % k :
                                    nm == 3 ? (i + k - 1) % k : (i + k / 2) % k);
        return RTOPO_OK;
    }
    /* "[A_(k-1), ..., A_0]": the first entry is the most significant */
    {
        int open = vec[0] == '[';

        if (open != (L > 0 && vec[L - 1] == ']') || !L ||
            strcspn(vec + open, "[]") < L - 2 * (size_t)open)
            return rtopo__error(RTOPO_ERR_INVAL, "bpc: \"%s\" is not a vector [A_%d, ..., "
                                "A_0] of signed bit numbers, nor identity, transpose, "
                                "reversal, shuffle, unshuffle", vec, k - 1);
        q = vec + open;
    }
    while (*q && *q != ']') {
        int neg = 0, v = 0, digits = 0;

        while (*q == ' ')
            q++;
        if (*q == '-' || *q == '+') {
            neg = *q == '-';
            q++;
        }
        while (*q >= '0' && *q <= '9' && digits < 3) {
            v = v * 10 + (*q++ - '0');
            digits++;
        }
        while (*q == ' ')
            q++;
        if (!digits || (*q && *q != ',' && *q != ']'))
            return rtopo__error(RTOPO_ERR_INVAL, "bpc: \"%s\" is not a vector [A_%d, ..., "
                                "A_0] of signed bit numbers, nor identity, transpose, "
                                "reversal, shuffle, unshuffle", vec, k - 1);
        if (n >= k || v >= k)
            return rtopo__error(RTOPO_ERR_INVAL, "bpc: \"%s\" does not fit %d index bits "
                                "(%d ranks): %s", vec, k, 1 << k,
                                n >= k ? "too many entries" : "an entry names a bit beyond "
                                "the index");
        if (seen & (1 << v))
            return rtopo__error(RTOPO_ERR_INVAL, "bpc: \"%s\" names bit %d twice (the "
                                "entries' magnitudes must be a permutation of 0..%d)", vec,
                                v, k - 1);
        seen |= 1 << v;
        /* entry n is A_(k-1-n) */
        c->bpc_to[k - 1 - n] = (int8_t)v;
        if (neg)
            c->bpc_neg |= 1u << (k - 1 - n);
        n++;
        if (*q == ',') {
            q++;
            while (*q == ' ')
                q++;
            if (!*q || *q == ']')
                return rtopo__error(RTOPO_ERR_INVAL, "bpc: \"%s\" ends with a comma",
                                    vec);
        }
    }
    if (n != k)
        return rtopo__error(RTOPO_ERR_INVAL, "bpc: \"%s\" has %d entries, the %d ranks need "
                            "%d (one per index bit)", vec, n, 1 << k, k);
    return RTOPO_OK;
}

/* hops of the route in a group from position a to b (row then column on
 * the OTIS-mesh, low dimension first on the OTIS-hypercube) */
static uint32_t rtopo__grp_route(const rtopo__cb_t *b, int G, int a, int bb, rtopo__hop_t *h)
{
    uint32_t nh = 0;
    int s = b->s, base = G * b->n;

    if (rtopo__is_om(b)) {
        int ax = a / s, ay = a % s, bx = bb / s, by = bb % s;

        while (ay != by) {
            int dir = by > ay ? 1 : -1;

            ay += dir;
            h[nh++] = (rtopo__hop_t){ .to = base + ax * s + ay, .link = RTOPO__LINK_ROW,
                                      .dir = (int8_t)dir };
        }
        while (ax != bx) {
            int dir = bx > ax ? 1 : -1;

            ax += dir;
            h[nh++] = (rtopo__hop_t){ .to = base + ax * s + ay, .link = RTOPO__LINK_COL,
                                      .dir = (int8_t)dir };
        }
    } else {
        int k;

        for (k = 0; k < s; k++)
            if (((a ^ bb) >> k) & 1) {
                a ^= 1 << k;
                h[nh++] = (rtopo__hop_t){ .to = base + a, .link = RTOPO__LINK_CUBE,
                                          .dim = (uint8_t)k };
            }
    }
    return nh;
}

/* hops of the route from rank r = (G, P) to rank d = (G', P'), the
 * shorter of two on OTIS topologies: in G to P = G', OTIS, in G' to P';
 * or OTIS to (P, G), in P to (P, G'), OTIS to (G', P), in G' to P' (the
 * way a group's coordinates change, two OTIS moves).  One DIRECT hop
 * elsewhere.  *lead_p: idle steps before the first hop, 1 on a route
 * that changes G only from a rank (G, G): its OTIS hops would stay put,
 * and waiting one step keeps its electronic hops in the steps of the
 * other ranks' (a lock step that counts fewer moves) */
uint32_t rtopo__pair_route(const rtopo__cb_t *b, int r, int d, rtopo__hop_t *h,
                           uint32_t *lead_p)
{
    int n = b->n, G, P, G2, P2;
    rtopo__hop_t t[4 * 64 + 1];
    uint32_t nh, nt;

    *lead_p = 0;
    /* off the OTIS topologies n is 0: no group coordinates to take */
    if (b->t->kind != RTOPO__TOPO_OTIS_MESH && b->t->kind != RTOPO__TOPO_OTIS_HYPERCUBE) {
        h[0] = (rtopo__hop_t){ .to = d, .link = RTOPO__LINK_DIRECT };
        return 1;
    }
    G = r / n;
    P = r % n;
    G2 = d / n;
    P2 = d % n;
    if (G == G2)
        return rtopo__grp_route(b, G, P, P2, h);
    nh = rtopo__grp_route(b, G, P, G2, h);
    h[nh++] = (rtopo__hop_t){ .to = G2 * n + G, .link = RTOPO__LINK_OTIS };
    nh += rtopo__grp_route(b, G2, G, P2, h + nh);
    if (P == G || P2 == G2) {       /* no electronic hop to save */
        *lead_p = P == G && P2 == P;
        return nh;
    }
    t[0] = (rtopo__hop_t){ .to = P * n + G, .link = RTOPO__LINK_OTIS };
    nt = 1 + rtopo__grp_route(b, P, G, G2, t + 1);
    t[nt++] = (rtopo__hop_t){ .to = G2 * n + P, .link = RTOPO__LINK_OTIS };
    nt += rtopo__grp_route(b, G2, P, P2, t + nt);
    if (nt >= nh)
        return nh;
    memcpy(h, t, sizeof(*t) * nt);
    return nt;
}

/* Phases of a round of routes on an OTIS topology: a route is up to
 * three legs in groups joined by OTIS hops, and a leg moves along one
 * link class after the other (row then column; cube dimensions upward).
 * Phase (leg, class) of every route of the round takes the same steps,
 * as many as its longest route needs: a step then moves along one class
 * only, in at most two directions, where routes of different lengths in
 * lock step mix all four (the SIMD count per step).  Restamps the hops of
 * transfers x0.. from step `first` on; returns the steps the round
 * takes, or 0 (steps left as they were) when its routes are not of that
 * form or the phases would not take fewer SIMD moves. */
#define RTOPO__PH_LEGS 3
#define RTOPO__PH_MAX (RTOPO__PH_LEGS * (64 + 1))

static int rtopo__ph_class(const rtopo__hop_t *h)
{
    if (h->link == RTOPO__LINK_ROW)
        return 0;
    if (h->link == RTOPO__LINK_COL)
        return 1;
    return h->link == RTOPO__LINK_CUBE ? h->dim : -1;
}

/* SIMD moves (as rtopo__sched_moves counts them) of the hops of transfers
 * x0.. in steps first.. first + nsteps - 1, stamped stamp[] or as they are */
static uint32_t rtopo__ph_simd(const rtopo__cb_t *b, uint32_t x0, uint32_t first,
                               uint32_t nsteps, const uint32_t *stamp)
{
    uint64_t *seen = calloc(nsteps ? nsteps : 1, sizeof(*seen) * 2);
    uint32_t x, i, k = 0, n = 0;

    if (!seen)
        return UINT32_MAX;
    for (x = x0; x < b->nx; x++)
        for (i = 0; i < b->xs->v[b->x[x].shape].nhops; i++, k++) {
            const rtopo__hop_t *h = &b->h[b->x[x].hop0 + i];
            uint32_t s = (stamp ? stamp[k] : h->step) - first;
            int c = rtopo__ph_class(h), bit;

            if (c < 0 || s >= nsteps)
                continue;
            bit = 2 * c + (h->dir > 0);
            if (!((seen[2 * s + bit / 64] >> (bit % 64)) & 1)) {
                seen[2 * s + bit / 64] |= 1ull << (bit % 64);
                n++;
            }
        }
    free(seen);
    return n;
}

uint32_t rtopo__ph_align(rtopo__cb_t *b, uint32_t x0, uint32_t first)
{
    int nc = rtopo__is_om(b) ? 2 : b->s;
    uint32_t len[RTOPO__PH_MAX] = { 0 }, start[RTOPO__PH_MAX + 1], x, i, k, nh = 0;
    uint32_t old_end = first, total, *stamp = NULL;

    if (b->err || (b->t->kind != RTOPO__TOPO_OTIS_MESH &&
                   b->t->kind != RTOPO__TOPO_OTIS_HYPERCUBE) || nc > 64)
        return 0;
    /* the longest run of each phase */
    for (x = x0; x < b->nx; x++) {
        uint32_t cnt[RTOPO__PH_MAX] = { 0 };
        int leg = 0, last = -1;

        for (i = 0; i < b->xs->v[b->x[x].shape].nhops; i++) {
            const rtopo__hop_t *h = &b->h[b->x[x].hop0 + i];
            int c = rtopo__ph_class(h), ph;

            if (h->step >= old_end)
                old_end = h->step + 1;
            if (h->link == RTOPO__LINK_OTIS) {
                ph = leg * (nc + 1) + nc;
                leg++;
                last = -1;
            } else if (c < last || c < 0) {
                return 0;
            } else {
                ph = leg * (nc + 1) + c;
                last = c;
            }
            if (leg > RTOPO__PH_LEGS || (h->link == RTOPO__LINK_OTIS && leg == RTOPO__PH_LEGS))
                return 0;
            if (++cnt[ph] > len[ph])
                len[ph] = cnt[ph];
        }
        nh += b->xs->v[b->x[x].shape].nhops;
    }
    for (k = 0, start[0] = 0; k < RTOPO__PH_MAX; k++)
        start[k + 1] = start[k] + len[k];
    total = start[RTOPO__PH_MAX];
    if (!nh || !(stamp = calloc(nh, sizeof(*stamp))))
        return 0;
    for (x = x0, k = 0; x < b->nx; x++) {
        uint32_t cnt[RTOPO__PH_MAX] = { 0 };
        int leg = 0;

        for (i = 0; i < b->xs->v[b->x[x].shape].nhops; i++, k++) {
            const rtopo__hop_t *h = &b->h[b->x[x].hop0 + i];
            int ph = h->link == RTOPO__LINK_OTIS ? leg++ * (nc + 1) + nc
                                                 : leg * (nc + 1) + rtopo__ph_class(h);

            stamp[k] = first + start[ph] + cnt[ph]++;
        }
    }
    if (rtopo__ph_simd(b, x0, first, total > old_end - first ? total : old_end - first,
                       stamp) >=
        rtopo__ph_simd(b, x0, first, total > old_end - first ? total : old_end - first,
                       NULL)) {
        free(stamp);
        return 0;
    }
    for (x = x0, k = 0; x < b->nx; x++)
        for (i = 0; i < b->xs->v[b->x[x].shape].nhops; i++, k++)
            b->h[b->x[x].hop0 + i].step = stamp[k];
    free(stamp);
    rtopo__cb_step(b, first + total - 1);
    return total;
}

/* ---- rounds of routes in one shape ---------------------------------------- */

/* A round's routes all of one shape on an OTIS topology, in phases: leg
 * 0 in the source group, OTIS, leg 1, OTIS, leg 2, each leg along one
 * link class after the other (row then column; cube dimensions upward),
 * phase (leg, class) taking as many steps as its longest run.  Shape 0
 * goes through (G, G'): in G to P = G', OTIS, in G' to P' (legs 0, 1);
 * shape 1 through (P, G): OTIS, in P to (P, G'), OTIS, in G' to P' (legs
 * 1, 2), which moves only the coordinates that change.  A route within
 * one group takes leg 0 (shape 0) or leg 2 (shape 1); an OTIS hop that
 * would stay put is left out.  Returns the hops, each with its phase. */
#define RTOPO__PR_PH(nc) (3 * ((nc) + 1))

static uint32_t rtopo__pr_route(const rtopo__cb_t *b, int shape, int r, int d,
                                rtopo__hop_t *h, int *ph)
{
    int n = b->n, nc = rtopo__is_om(b) ? 2 : b->s, G = r / n, P = r % n, G2 = d / n,
        P2 = d % n, leg, at;
    uint32_t nh = 0, m, i;

#define RTOPO__PR_LEG(grp, a, z, lg)                                              \
    do {                                                                          \
        m = rtopo__grp_route(b, grp, a, z, h + nh);                               \
        for (i = nh; i < nh + m; i++)                                             \
            ph[i] = (lg) * (nc + 1) + (rtopo__is_om(b) ? h[i].link == RTOPO__LINK_COL \
                                                      : h[i].dim);               \
        nh += m;                                                                  \
    } while (0)
    if (G == G2) {
        RTOPO__PR_LEG(G, P, P2, shape ? 2 : 0);
        return nh;
    }
    if (!shape) {
        RTOPO__PR_LEG(G, P, G2, 0);
        ph[nh] = nc;
        h[nh++] = (rtopo__hop_t){ .to = G2 * n + G, .link = RTOPO__LINK_OTIS };
        RTOPO__PR_LEG(G2, G, P2, 1);
        return nh;
    }
    for (leg = 0, at = r; leg < 2; leg++) {
        int grp = leg ? G2 : P, pos = leg ? P : G2;

        if (at != grp * n + (leg ? P : G)) {            /* the OTIS hop */
            ph[nh] = leg * (nc + 1) + nc;
            h[nh++] = (rtopo__hop_t){ .to = grp * n + (leg ? P : G),
                                      .link = RTOPO__LINK_OTIS };
        }
        RTOPO__PR_LEG(grp, leg ? P : G, leg ? P2 : pos, leg + 1);
        at = leg ? d : grp * n + pos;
    }
#undef RTOPO__PR_LEG
    return nh;
}

/* transfer x with hops h[0..nh) appended to the schedule (steps as in
 * h); 0 when out of memory */
static int rtopo__pr_xfer(rtopo__cb_t *b, const rtopo__px_t *x, const rtopo__hop_t *h,
                          uint32_t nh)
{
    b->h = rtopo__grow(b->h, &b->ch, b->nh + nh, sizeof(*b->h), &b->err);
    if (b->err || rtopo__cb_xadd(b, &(rtopo__xfer_t){ .src = x->src, .dst = x->dst,
                                                      .src_buf = x->sbuf,
                                                      .dst_buf = x->dbuf,
                                                      .src_off = x->soff,
                                                      .dst_off = x->doff, .len = x->len,
                                                      .nhops = nh, .hop0 = b->nh }))
        return 0;
    memcpy(&b->h[b->nh], h, sizeof(*h) * nh);
    b->nh += nh;
    return 1;
}

/* the shape of a round's routes on an OTIS topology (1: through (P, G),
 * 0: through (G, G')), the one whose phases take fewer SIMD moves */
static int rtopo__pr_shape(const rtopo__cb_t *b, const rtopo__px_t *x, uint32_t nx)
{
    int nc = rtopo__is_om(b) ? 2 : b->s, shape, ph[4 * 64 + 3], k;
    rtopo__hop_t h[4 * 64 + 3];
    uint32_t pos[RTOPO__PR_PH(64)], neg[RTOPO__PR_PH(64)], cnt[RTOPO__PR_PH(64)], i, j, nh;
    uint64_t cost[2] = { 0, 0 };

    /* each shape's SIMD moves: per phase its longest runs each way (a
     * route's phases are below RTOPO__PR_PH(nc): only those are cleared
     * per route) */
    for (shape = 0; shape < 2; shape++) {
        memset(pos, 0, sizeof(pos));
        memset(neg, 0, sizeof(neg));
        for (i = 0; i < nx; i++) {
            if (x[i].src == x[i].dst)
                continue;
            memset(cnt, 0, RTOPO__PR_PH(nc) * sizeof(*cnt));
            nh = rtopo__pr_route(b, shape, x[i].src, x[i].dst, h, ph);
            for (j = 0; j < nh; j++)
                if (++cnt[ph[j]] > (h[j].dir < 0 ? neg : pos)[ph[j]])
                    (h[j].dir < 0 ? neg : pos)[ph[j]] = cnt[ph[j]];
        }
        /* electronic moves first, then OTIS steps */
        for (k = 0; k < RTOPO__PR_PH(nc); k++)
            cost[shape] += k % (nc + 1) == nc ? (pos[k] != 0) : 64 * (uint64_t)(pos[k] + neg[k]);
    }
    return cost[1] < cost[0];
}

static uint32_t rtopo__pr_round_in(rtopo__cb_t *b, const rtopo__px_t *x, uint32_t nx,
                                   uint32_t t)
{
    int nc = rtopo__is_om(b) ? 2 : b->s, best = 0, ph[4 * 64 + 3], k;
    int otis = b->t->kind == RTOPO__TOPO_OTIS_MESH ||
               b->t->kind == RTOPO__TOPO_OTIS_HYPERCUBE;
    rtopo__hop_t h[4 * 64 + 3];
    uint32_t pos[RTOPO__PR_PH(64)], start[RTOPO__PR_PH(64) + 1];
    uint32_t i, j, nh, cnt[RTOPO__PR_PH(64)], total = 0;

    if (b->err || nc > 64)
        return 0;
    best = otis && rtopo__pr_shape(b, x, nx);
    memset(pos, 0, sizeof(pos));
    for (i = 0; otis && i < nx; i++) {
        if (x[i].src == x[i].dst)
            continue;
        memset(cnt, 0, RTOPO__PR_PH(nc) * sizeof(*cnt));
        nh = rtopo__pr_route(b, best, x[i].src, x[i].dst, h, ph);
        for (j = 0; j < nh; j++)
            if (++cnt[ph[j]] > pos[ph[j]])
                pos[ph[j]] = cnt[ph[j]];
    }
    for (k = 0, start[0] = 0; k < RTOPO__PR_PH(nc); k++)
        start[k + 1] = start[k] + pos[k];
    total = otis ? start[RTOPO__PR_PH(nc)] : 0;
    /* an OTIS-mesh of odd side or an OTIS-hypercube: each route the
     * shorter of the two shapes, all in lock step, in phases only where
     * rtopo__ph_align finds they make fewer SIMD moves (one shape in
     * phases there takes longer, its routes differing in length) */
    if (otis && (!rtopo__is_om(b) || (b->s & (b->s - 1)))) {
        uint32_t lock = 0, lead, x0 = b->nx;

        for (i = 0; i < nx; i++)
            if (x[i].src != x[i].dst && x[i].len) {
                nh = rtopo__pair_route(b, x[i].src, x[i].dst, h, &lead);
                lock = nh + lead > lock ? nh + lead : lock;
            }
        {
            for (i = 0; i < nx; i++) {
                if (x[i].src == x[i].dst) {
                    rtopo__rt_copy(b, x[i].src, x[i].sbuf, x[i].soff, x[i].dbuf, x[i].doff,
                                   x[i].len, t + 1);
                    continue;
                }
                if (!x[i].len)
                    continue;
                nh = rtopo__pair_route(b, x[i].src, x[i].dst, h, &lead);
                if (!rtopo__pr_xfer(b, &x[i], h, nh))
                    return 0;
                for (j = 0; j < nh; j++)
                    b->h[b->nh - nh + j].step = b->base + t + 1 + lead + j;
            }
            total = lock ? rtopo__ph_align(b, x0, b->base + t + 1) : 0;
            if (!total && lock)
                total = lock;
            if (total)
                rtopo__cb_step(b, b->base + t + total);
            return total;
        }
    }
    for (i = 0; i < nx; i++) {
        uint32_t h0;

        if (x[i].src == x[i].dst) {
            rtopo__rt_copy(b, x[i].src, x[i].sbuf, x[i].soff, x[i].dbuf, x[i].doff, x[i].len,
                           t + 1);
            continue;
        }
        if (!x[i].len)
            continue;
        if (otis) {
            nh = rtopo__pr_route(b, best, x[i].src, x[i].dst, h, ph);
        } else {
            h[0] = (rtopo__hop_t){ .to = x[i].dst, .link = RTOPO__LINK_DIRECT };
            ph[0] = 0;
            nh = 1;
            total = 1;
        }
        h0 = b->nh;
        if (!rtopo__pr_xfer(b, &x[i], h, nh))
            return 0;
        memset(cnt, 0, RTOPO__PR_PH(nc) * sizeof(*cnt));
        for (j = 0; j < nh; j++)
            b->h[h0 + j].step = b->base + t + 1 + (otis ? start[ph[j]] + cnt[ph[j]]++ : 0);
    }
    if (total)
        rtopo__cb_step(b, b->base + t + total);
    return total;
}

/* the round made whole and stamped in a scratch builder, then handed to
 * b under its cut (the whole graph's builder takes it directly) */
uint32_t rtopo__pr_round(rtopo__cb_t *b, const rtopo__px_t *x, uint32_t nx, uint32_t t)
{
    rtopo__cb_t sc;
    uint32_t L;

    if (!b->cut)
        return rtopo__pr_round_in(b, x, nx, t);
    rtopo__cb_round(b, &sc);
    L = rtopo__pr_round_in(&sc, x, nx, t);
    rtopo__cb_unround(b, &sc);
    return L;
}

/* The longest least time (rtopo__sim's for a routed transfer alone on
 * its links: hop j > 0 asks its th after the one before, the last holds
 * its link ts + len*tw) of the routes of a round of transfers x[0..nx)
 * as rtopo__pr_round makes them, under m; copies count none; each[i]
 * (each may be NULL): x[i]'s.  Nothing is made: a bound's figure, its
 * cost the round's routes, not their nodes. */
double rtopo__pr_round_least(const rtopo__cb_t *b, const rtopo__px_t *x, uint32_t nx,
                             const rtopo__model_t *m, double *each)
{
    int otis = b->t->kind == RTOPO__TOPO_OTIS_MESH ||
               b->t->kind == RTOPO__TOPO_OTIS_HYPERCUBE, best, ph[4 * 64 + 3];
    int lock = otis && (!rtopo__is_om(b) || (b->s & (b->s - 1)));
    rtopo__hop_t h[4 * 64 + 3];
    uint32_t i, j, nh, lead;
    double worst = 0.0;

    best = otis && !lock && rtopo__pr_shape(b, x, nx);
    for (i = 0; i < nx; i++) {
        double ts, tw, t0 = 0.0, path = 0.0;
        int32_t from = x[i].src;

        if (each)
            each[i] = 0.0;
        if (x[i].src == x[i].dst || !x[i].len)
            continue;
        if (!otis) {
            h[0] = (rtopo__hop_t){ .to = x[i].dst, .link = RTOPO__LINK_DIRECT };
            nh = 1;
        } else if (lock) {
            nh = rtopo__pair_route(b, x[i].src, x[i].dst, h, &lead);
        } else {
            nh = rtopo__pr_route(b, best, x[i].src, x[i].dst, h, ph);
        }
        for (j = 0; j < nh; j++) {
            if (j)
                path += rtopo__model_hop_th(m, h[j].link, from, h[j].to, x[i].len);
            if (!j || j + 1 == nh) {
                rtopo__model_hop(m, h[j].link, from, h[j].to, &ts, &tw);
                if (!j)
                    t0 = ts + (double)x[i].len * tw;
                if (j + 1 == nh)
                    path += ts + (double)x[i].len * tw;
            }
            from = h[j].to;
        }
        path = path > t0 ? path : t0;
        worst = path > worst ? path : worst;
        if (each)
            each[i] = path;
    }
    return worst;
}

/* the permutation, one round: made whole in a scratch builder (its steps
 * restamped), then handed to b under its cut */
static void rtopo__bpc_round(rtopo__cb_t *b)
{
    int p = b->t->p, n = b->n, r;
    int otis = b->t->kind == RTOPO__TOPO_OTIS_MESH ||
               b->t->kind == RTOPO__TOPO_OTIS_HYPERCUBE;
    rtopo__hop_t h[4 * 64 + 1];
    uint32_t A = 0, x0 = b->nx;

    /* lock step: every route's OTIS hop in step A, after the longest
     * first leg in a group (then in phases, when they move fewer) */
    for (r = 0; otis && r < p; r++) {
        int d = rtopo__bpc_dest(b->c, r);
        uint32_t L1 = r / n != d / n ? rtopo__grp_route(b, r / n, r % n, d / n, h) : 0;

        A = L1 > A ? L1 : A;
    }
    for (r = 0; r < p; r++) {
        int d = rtopo__bpc_dest(b->c, r);
        uint32_t nh = 0;

        if (d == r) {
            rtopo__cb_copy(b, r, RSEND(0), RRECV(0), 0);
            continue;
        }
        if (!otis) {
            h[0] = (rtopo__hop_t){ .to = d, .link = RTOPO__LINK_DIRECT };
            nh = 1;
        } else if (r / n == d / n) {
            nh = rtopo__grp_route(b, r / n, r % n, d % n, h);
        } else {
            nh = rtopo__grp_route(b, r / n, r % n, d / n, h);
            h[nh++] = (rtopo__hop_t){ .to = (d / n) * n + r / n, .link = RTOPO__LINK_OTIS };
            nh += rtopo__grp_route(b, d / n, r / n, d % n, h + nh);
        }
        rtopo__cb_route(b, r, RSEND(0), d, RRECV(0), 0, h, nh);
        if (otis && !b->err && b->len && r / n != d / n) {
            uint32_t i, L1, j = b->nh - nh;

            for (L1 = 0; b->h[j + L1].link != RTOPO__LINK_OTIS; L1++)
                ;
            for (i = L1; i < nh; i++)
                b->h[j + i].step = b->base + A + i - L1;
            rtopo__cb_step(b, b->base + A + nh - 1 - L1);
        }
    }
    rtopo__ph_align(b, x0, b->base);
}

static void rtopo__bpc_prog(rtopo__cb_t *b, int algo)
{
    rtopo__cb_t sc;

    (void)algo;
    rtopo__cb_cut(b);
    rtopo__cb_round(b, &sc);
    rtopo__bpc_round(&sc);
    rtopo__cb_unround(b, &sc);
}

/* a BPC permutation (its one algorithm) */
int rtopo__bpc_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                     const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    return rtopo__coll_build_one(t, c, rtopo__bpc_prog, model, s_p);
}
