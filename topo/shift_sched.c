/*
 * shift_sched.c - circular q-shift schedules: rank i's data reaches rank
 * (i+q) mod p.  One transfer per rank, its route is the packet's path.
 *
 * Routing rules (q normalised to 0 <= q < p first):
 *  RING       min(q, p-q) ring hops in the shorter direction, hop j at
 *             step j.  Steps: min(q, p-q).
 *  DIRECT     one hop straight to the destination at step 0.
 *  MESH       rows x cols, a = q mod cols, b = q / cols.  Row stage: every
 *             packet moves a columns forward, or cols-a backward when that
 *             is shorter (steps 0..R-1, R = min(a, cols-a)).  A packet
 *             whose source column c has c + a >= cols wrapped around its
 *             row and owes one extra row: its column displacement is b+1
 *             instead of b.  The textbook spends a separate compensation
 *             step on it; here each packet instead covers its own column
 *             displacement (b or b+1, mod rows) in its shorter direction,
 *             all starting at step R.  Packets moving the same way move in
 *             lock-step from distinct rows, so no link direction carries
 *             two packets in a step (rows == 2 never moves backward).
 *             Steps <= floor(cols/2) + floor(rows/2), below the textbook's
 *             2*floor(s/2) + 1 on s x s; the 5-shift on 4x4 still takes a
 *             row step, then the wrapped packets' compensating column step
 *             together with everyone's column step, then one more: 3.
 *  HYPERCUBE  rank r on cube node gray(r).  q (mod p) is written as a sum
 *             of signed powers of two, +-2^k, chosen by a two-state carry
 *             DP to minimise steps, a +-2^k phase costing 2 steps for
 *             k >= 1 and 1 step for k = 0 (the top carry is dropped:
 *             2^d == 0 mod p).  Phases run largest first.  A +-2^k phase
 *             (k >= 1) goes i -> i ^ (2^k - 1) (cube dimension k-1) ->
 *             i +- 2^k (one more dimension); both maps are bijections, so
 *             each step is a permutation of the ranks: congestion free,
 *             one packet per node.  Steps <= log p for every q (checked
 *             exhaustively by the unit tests).
 *  ECUBE      identity embedding: the cube whose node labels are the
 *             ranks themselves (links r <-> r ^ 2^k, class CUBE_ID, not
 *             the Gray-coded overlay).  Rank i sends to j = (i+q) mod p
 *             flipping the bits of i ^ j in increasing dimension order,
 *             the hop over dimension k at step k.  This is the textbook's
 *             setting (shifting cube labels): for a fixed q no link
 *             direction carries two packets (each link (x, k) is used by
 *             at most one route), and the longest route has
 *             log p - gamma(q) links, gamma(q) = ctz(q), because i and
 *             i+q agree in their gamma(q) low bits.  Steps gamma(q)..d-1
 *             are used, so nsteps = log p; the empty leading rounds cost
 *             nothing.  (On the Gray embedding the same rule gives
 *             load 2 from p = 8 and paths up to one link longer.)
 *  AUTO       builds the applicable schedules and keeps the one with the
 *             smallest cut-through model time (ties: the topology's own
 *             algorithm first, DIRECT last); candidates whose lower bound
 *             ts + m*tw + (longest-1)*th cannot win are not built.  Under
 *             the default model (every class alike) DIRECT, one hop and
 *             one transfer per link, has the smallest time for every
 *             q != 0 (the right choice on a switched network); an overlay
 *             algorithm that also needs a single hop (q = 1 on a cube,
 *             q = p/2 with E-cube) ties and is kept.
 *             rtopo__sched_shift_auto() reports each candidate's model
 *             time (or lower bound) so tools can say why.
 *
 * Cost formula (sim.c): cut-through, a transfer over h hops costs
 * ts + m*tw + (h-1)*th, and a link direction crossed by several transfers
 * costs at least ts + (sum of their bytes)*tw.  Textbook lock-step bounds:
 * ring (ts + m*tw) min(q, p-q), mesh (ts + m*tw)(sqrt p + 1), hypercube
 * (ts + m*tw) log p.  E-cube, cut-through: SPEC 5.3 writes
 * ts + m*tw + th*(log p - gamma(q)); charging th per extra hop, as sim.c
 * does, it is ts + m*tw + th*(log p - gamma(q) - 1), and since every link
 * direction carries one transfer in the whole schedule the route length
 * is the only term.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

static inline int rtopo__ctz32(uint32_t v)
{
    return __builtin_ctz(v);
}

static inline int rtopo__modp(long v, int p)
{
    long r = v % p;

    return (int)(r < 0 ? r + p : r);
}

/* one transfer per rank, SEND+0 -> RECV+0 of (i+qn) mod p; hop ranges are
 * filled by the caller through the returned schedule */
static int rtopo__shift_alloc(const rtopo__tdesc_t *t, int algo, int qn,
                              size_t bytes, uint64_t nhops, rtopo__sched_t **s_p)
{
    rtopo__sched_t *s;
    int status, i;

    if (nhops > UINT32_MAX)
        return rtopo__error(RTOPO_ERR_NOMEM, "%s shift by %d on %d ranks needs "
                            "%llu hops", rtopo__shift_algo_name(algo), qn, t->p,
                            (unsigned long long)nhops);
    status = rtopo__sched_alloc(t, (uint32_t)t->p, (uint32_t)nhops, &s);
    if (status)
        return status;
    s->algo = algo;
    for (i = 0; i < t->p; i++) {
        rtopo__xfer_t x = { 0 };

        x.src = i;
        x.dst = (int32_t)(((long)i + qn) % t->p);
        x.src_buf = RTOPO__BUF_SEND;
        x.dst_buf = RTOPO__BUF_RECV;
        x.len = bytes;
        if ((status = rtopo__sched_xset(s, (uint32_t)i, &x))) {
            rtopo__sched_free(s);
            return status;
        }
    }
    *s_p = s;
    return RTOPO_OK;
}

/* transfer i of s takes hops hop0.. (nhops of them); on an error s is
 * freed */
static int rtopo__shift_route(rtopo__sched_t *s, int i, uint32_t hop0, uint32_t nhops)
{
    rtopo__xfer_t x = rtopo__sched_xfer(s, (uint32_t)i);
    int st;

    x.hop0 = hop0;
    x.nhops = nhops;
    if ((st = rtopo__sched_xset(s, (uint32_t)i, &x)))
        rtopo__sched_free(s);
    return st;
}

static inline void rtopo__hop_set(rtopo__hop_t *h, int to, uint32_t step,
                                  int link, int dim, int dir)
{
    h->to = to;
    h->step = step;
    h->link = (uint8_t)link;
    h->dim = (uint8_t)dim;
    h->dir = (int8_t)dir;
    h->pad = 0;
}

static void rtopo__sched_finish(rtopo__sched_t *s)
{
    uint32_t i, n = 0;

    for (i = 0; i < s->nhops; i++)
        if (s->hops[i].step + 1 > n)
            n = s->hops[i].step + 1;
    s->nsteps = n;
}

static int rtopo__shift_local(const rtopo__tdesc_t *t, int algo, size_t bytes,
                              rtopo__sched_t **s_p)
{
    return rtopo__shift_alloc(t, algo, 0, bytes, 0, s_p);
}

static int rtopo__shift_ring(const rtopo__tdesc_t *t, int qn, size_t bytes,
                             rtopo__sched_t **s_p)
{
    int p = t->p, fwd = qn <= p - qn, k = fwd ? qn : p - qn, dir = fwd ? 1 : -1;
    rtopo__sched_t *s;
    uint32_t h = 0;
    int status, i, j;

    status = rtopo__shift_alloc(t, RTOPO_SHIFT_RING, qn, bytes,
                                (uint64_t)p * k, &s);
    if (status)
        return status;
    for (i = 0; i < p; i++) {
        int cur = i;

        if ((status = rtopo__shift_route(s, i, h, (uint32_t)k)))
            return status;
        for (j = 0; j < k; j++) {
            cur = rtopo__modp((long)cur + dir, p);
            rtopo__hop_set(&s->hops[h++], cur, j, RTOPO__LINK_RING, 0, dir);
        }
    }
    rtopo__sched_finish(s);
    *s_p = s;
    return RTOPO_OK;
}

static int rtopo__shift_direct(const rtopo__tdesc_t *t, int qn, size_t bytes,
                               rtopo__sched_t **s_p)
{
    rtopo__sched_t *s;
    int status, i;

    status = rtopo__shift_alloc(t, RTOPO_SHIFT_DIRECT, qn, bytes, t->p, &s);
    if (status)
        return status;
    for (i = 0; i < t->p; i++) {
        if ((status = rtopo__shift_route(s, i, (uint32_t)i, 1)))
            return status;
        rtopo__hop_set(&s->hops[i], s->xfers[i].dst, 0, RTOPO__LINK_DIRECT, 0, 0);
    }
    rtopo__sched_finish(s);
    *s_p = s;
    return RTOPO_OK;
}

/* column displacement in the shorter direction: *dir +1 on ties */
static inline int rtopo__short(int disp, int len, int *dir)
{
    if (disp <= len - disp) {
        *dir = 1;
        return disp;
    }
    *dir = -1;
    return len - disp;
}

static int rtopo__shift_mesh(const rtopo__tdesc_t *t, int qn, size_t bytes,
                             rtopo__sched_t **s_p)
{
    int rows = t->rows, cols = t->cols, a = qn % cols, b = qn / cols;
    int rdir, cdir[2], R, C[2], i, j, status;
    rtopo__sched_t *s;
    uint64_t total = 0;
    uint32_t h = 0;

    R = rtopo__short(a, cols, &rdir);
    /* C[carry]: column steps of packets that did (not) wrap their row */
    C[0] = rtopo__short(b % rows, rows, &cdir[0]);
    C[1] = rtopo__short((b + 1) % rows, rows, &cdir[1]);
    for (i = 0; i < cols; i++)
        total += (uint64_t)rows * (R + C[i + a >= cols]);
    status = rtopo__shift_alloc(t, RTOPO_SHIFT_MESH, qn, bytes, total, &s);
    if (status)
        return status;
    for (i = 0; i < t->p; i++) {
        int r = i / cols, c = i % cols, carry = c + a >= cols;

        if ((status = rtopo__shift_route(s, i, h, (uint32_t)(R + C[carry]))))
            return status;
        for (j = 0; j < R; j++) {
            c = rtopo__modp((long)c + rdir, cols);
            rtopo__hop_set(&s->hops[h++], r * cols + c, j, RTOPO__LINK_ROW, 0,
                           rdir);
        }
        for (j = 0; j < C[carry]; j++) {
            r = rtopo__modp((long)r + cdir[carry], rows);
            rtopo__hop_set(&s->hops[h++], r * cols + c, R + j, RTOPO__LINK_COL,
                           0, cdir[carry]);
        }
    }
    rtopo__sched_finish(s);
    *s_p = s;
    return RTOPO_OK;
}

/*
 * Signed-digit form of qn mod 2^d with the fewest steps: digit e_k in
 * {-1, 0, 1}, cost 1 at k = 0 and 2 above.  Two states (carry into bit
 * k); ties prefer +2^k and no final carry.  Fills e[0..d-1], returns the
 * step count.
 */
static int rtopo__cube_digits(uint32_t qn, int d, int *e)
{
    enum { INF = 1 << 20 };
    int cost[32][2], from[32][2], dig[32][2];
    int k, c, best, bc;

    cost[0][0] = 0;
    cost[0][1] = INF;
    for (k = 0; k < d; k++) {
        int w = k ? 2 : 1, bit = (qn >> k) & 1;

        cost[k + 1][0] = cost[k + 1][1] = INF;
        for (c = 0; c < 2; c++) {
            int v = bit + c, nc, ne, nv, opt;

            if (cost[k][c] >= INF)
                continue;
            for (opt = 0; opt < 2; opt++) {
                if (v == 1) {
                    ne = opt ? -1 : 1;
                    nc = opt;
                } else {
                    if (opt)
                        break;
                    ne = 0;
                    nc = v == 2;
                }
                nv = cost[k][c] + (ne ? w : 0);
                if (nv < cost[k + 1][nc]) {
                    cost[k + 1][nc] = nv;
                    from[k + 1][nc] = c;
                    dig[k + 1][nc] = ne;
                }
            }
        }
    }
    bc = cost[d][1] < cost[d][0] ? 1 : 0;
    best = cost[d][bc];
    for (k = d; k > 0; k--) {
        e[k - 1] = dig[k][bc];
        bc = from[k][bc];
    }
    return best;
}

static inline int rtopo__cube_dim(uint32_t a, uint32_t b)
{
    return rtopo__ctz32(rtopo__gray(a) ^ rtopo__gray(b));
}

static int rtopo__shift_hypercube(const rtopo__tdesc_t *t, int qn, size_t bytes,
                                  rtopo__sched_t **s_p)
{
    int d = t->dim, p = t->p, e[32], steps, i, k, status;
    rtopo__sched_t *s;
    uint32_t h = 0;

    steps = rtopo__cube_digits((uint32_t)qn, d, e);
    status = rtopo__shift_alloc(t, RTOPO_SHIFT_HYPERCUBE, qn, bytes,
                                (uint64_t)p * steps, &s);
    if (status)
        return status;
    for (i = 0; i < p; i++) {
        uint32_t cur = (uint32_t)i, step = 0;

        if ((status = rtopo__shift_route(s, i, h, (uint32_t)steps)))
            return status;
        for (k = d - 1; k >= 0; k--) {
            uint32_t next, mid;

            if (!e[k])
                continue;
            next = (uint32_t)rtopo__modp((long)cur + (long)e[k] * (1L << k), p);
            if (k) {
                /* flip the low k bits: gray changes in bit k-1 only, and
                 * the map is a bijection, so the step is a permutation */
                mid = cur ^ ((1u << k) - 1);
                rtopo__hop_set(&s->hops[h++], (int)mid, step++,
                               RTOPO__LINK_CUBE, k - 1, 0);
                cur = mid;
            }
            rtopo__hop_set(&s->hops[h++], (int)next, step++, RTOPO__LINK_CUBE,
                           rtopo__cube_dim(cur, next), 0);
            cur = next;
        }
    }
    rtopo__sched_finish(s);
    *s_p = s;
    return RTOPO_OK;
}

static int rtopo__shift_ecube(const rtopo__tdesc_t *t, int qn, size_t bytes,
                              rtopo__sched_t **s_p)
{
    int d = t->dim, p = t->p, i, k, status;
    rtopo__sched_t *s;
    uint64_t total = 0;
    uint32_t h = 0;

    for (i = 0; i < p; i++)
        total += __builtin_popcount((uint32_t)i ^ (uint32_t)((i + qn) % p));
    status = rtopo__shift_alloc(t, RTOPO_SHIFT_ECUBE, qn, bytes, total, &s);
    if (status)
        return status;
    for (i = 0; i < p; i++) {
        uint32_t cur = (uint32_t)i, diff = cur ^ (uint32_t)((i + qn) % p);

        if ((status = rtopo__shift_route(s, i, h, (uint32_t)__builtin_popcount(diff))))
            return status;
        for (k = 0; k < d; k++) {
            if (!(diff & (1u << k)))
                continue;
            cur ^= 1u << k;
            rtopo__hop_set(&s->hops[h++], (int)cur, k, RTOPO__LINK_CUBE_ID, k, 0);
        }
    }
    rtopo__sched_finish(s);
    *s_p = s;
    return RTOPO_OK;
}

static int rtopo__shift_applies(const rtopo__tdesc_t *t, int algo)
{
    switch (algo) {
    case RTOPO_SHIFT_AUTO:
    case RTOPO_SHIFT_RING:
    case RTOPO_SHIFT_DIRECT:
        return 1;
    case RTOPO_SHIFT_MESH:
        return t->kind == RTOPO__TOPO_MESH;
    case RTOPO_SHIFT_HYPERCUBE:
    case RTOPO_SHIFT_ECUBE:
        return t->kind == RTOPO__TOPO_HYPERCUBE;
    default:
        return 0;
    }
}

static int rtopo__shift_routes(const rtopo__tdesc_t *t, int algo, int qn,
                               size_t bytes, rtopo__sched_t **s_p)
{
    if (qn == 0)
        return rtopo__shift_local(t, algo, bytes, s_p);
    switch (algo) {
    case RTOPO_SHIFT_RING:
        return rtopo__shift_ring(t, qn, bytes, s_p);
    case RTOPO_SHIFT_DIRECT:
        return rtopo__shift_direct(t, qn, bytes, s_p);
    case RTOPO_SHIFT_MESH:
        return rtopo__shift_mesh(t, qn, bytes, s_p);
    case RTOPO_SHIFT_HYPERCUBE:
        return rtopo__shift_hypercube(t, qn, bytes, s_p);
    case RTOPO_SHIFT_ECUBE:
        return rtopo__shift_ecube(t, qn, bytes, s_p);
    default:
        return rtopo__error(RTOPO_ERR_INVAL, "shift algorithm %d", algo);
    }
}

/* Every transfer reads SEND and writes RECV, so no rank orders two of
 * them: the inferred graph has no edges, and stays so if that changes. */
static int rtopo__shift_build(const rtopo__tdesc_t *t, int algo, int qn,
                              size_t bytes, rtopo__sched_t **s_p)
{
    int st = rtopo__shift_routes(t, algo, qn, bytes, s_p);

    if (!st && (st = rtopo__sched_deps_infer(*s_p, 0))) {
        rtopo__sched_free(*s_p);
        *s_p = NULL;
    }
    return st;
}

/* longest route of an algorithm without building it, for AUTO pruning */
static int rtopo__shift_longest(const rtopo__tdesc_t *t, int algo, int qn,
                                int *link)
{
    int p = t->p, dir, e[32];

    *link = RTOPO__LINK_CUBE;
    switch (algo) {
    case RTOPO_SHIFT_RING:
        *link = RTOPO__LINK_RING;
        return rtopo__short(qn, p, &dir);
    case RTOPO_SHIFT_DIRECT:
        *link = RTOPO__LINK_DIRECT;
        return 1;
    case RTOPO_SHIFT_MESH: {
        int a = qn % t->cols, b = qn / t->cols, c0, c1;

        *link = RTOPO__LINK_ROW;
        c0 = rtopo__short(b % t->rows, t->rows, &dir);
        c1 = a ? rtopo__short((b + 1) % t->rows, t->rows, &dir) : 0;
        return rtopo__short(a, t->cols, &dir) + (c0 > c1 ? c0 : c1);
    }
    case RTOPO_SHIFT_HYPERCUBE:
        return rtopo__cube_digits((uint32_t)qn, t->dim, e);
    case RTOPO_SHIFT_ECUBE:
        /* i and i+q share their gamma(q) low bits; the rank just below a
         * carry into bit d-1 flips all the others */
        *link = RTOPO__LINK_CUBE_ID;
        return qn ? t->dim - rtopo__ctz32((uint32_t)qn) : 0;
    default:
        return 1;
    }
}

/* AUTO: cand (may be NULL) receives one entry per applicable algorithm in
 * preference order, *ncand_p their number */
static int rtopo__shift_auto(const rtopo__tdesc_t *t, int qn, size_t bytes,
                             const rtopo__model_t *m, rtopo__shift_cand_t *cand,
                             int *ncand_p, rtopo__sched_t **s_p)
{
    /* preference order on equal model time: the topology's own algorithm */
    static const int order[] = {
        RTOPO_SHIFT_MESH, RTOPO_SHIFT_HYPERCUBE, RTOPO_SHIFT_ECUBE,
        RTOPO_SHIFT_RING, RTOPO_SHIFT_DIRECT
    };
    rtopo__sched_t *best = NULL, *s;
    rtopo__sim_result_t r;
    double best_t = 0.0;
    unsigned i;
    int status, nc = 0;

    for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        int algo = order[i], link, L;
        rtopo__shift_cand_t *c = cand ? &cand[nc] : NULL;

        if (!rtopo__shift_applies(t, algo))
            continue;
        if (best && !qn)
            break;   /* local copies: every algorithm is the same */
        nc++;
        if (c) {
            memset(c, 0, sizeof(*c));
            c->algo = algo;
        }
        if (best) {
            double lb;

            /* cheapest parameters of any class and reach: a true lower
             * bound on any route of L hops, whatever it mixes */
            double ts, tw, th;

            L = rtopo__shift_longest(t, algo, qn, &link);
            rtopo__model_floor(m, bytes, &ts, &tw, &th);
            lb = ts + (double)bytes * tw + (L - 1) * th;
            if (lb >= best_t) {
                if (c) {
                    c->model_time = lb;
                    c->longest_path = (uint32_t)L;
                }
                continue;
            }
        }
        status = rtopo__shift_build(t, algo, qn, bytes, &s);
        if (status)
            goto err;
        status = rtopo__sim_run(s, m, &r);
        if (status) {
            rtopo__sched_free(s);
            goto err;
        }
        if (c) {
            c->evaluated = 1;
            c->model_time = r.model_time;
            c->model_time_sf = r.model_time_sf;
            c->steps = r.steps;
            c->max_link_load = r.max_link_load;
            c->longest_path = r.longest_path;
        }
        if (!best || r.model_time < best_t) {
            rtopo__sched_free(best);
            best = s;
            best_t = r.model_time;
        } else {
            rtopo__sched_free(s);
        }
    }
    if (ncand_p)
        *ncand_p = nc;
    *s_p = best;
    return RTOPO_OK;

err:
    rtopo__sched_free(best);
    return status;
}

int rtopo__sched_shift_auto(const rtopo__tdesc_t *t, long q, size_t bytes,
                            const struct rtopo__model *model,
                            rtopo__shift_cand_t cand[RTOPO__SHIFT_NCAND],
                            int *ncand_p, rtopo__sched_t **s_p)
{
    rtopo__model_t def;

    if (!t || !s_p || t->p < 1)
        return rtopo__error(RTOPO_ERR_INVAL, "shift: no topology or output");
    if (!model) {
        rtopo__model_default(&def);
        model = &def;
    }
    return rtopo__shift_auto(t, rtopo__modp(q, t->p), bytes, model, cand,
                             ncand_p, s_p);
}

int rtopo__shift_check(const rtopo__tdesc_t *t, int algo)
{
    if (!t || t->p < 1)
        return rtopo__error(RTOPO_ERR_INVAL, "shift: no topology or output");
    if (algo < RTOPO_SHIFT_AUTO || algo > RTOPO_SHIFT_DIRECT)
        return rtopo__error(RTOPO_ERR_INVAL, "shift: unknown algorithm %d", algo);
    if (!rtopo__shift_applies(t, algo))
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "shift: algorithm %s does "
                            "not apply to a %s topology",
                            rtopo__shift_algo_name(algo),
                            rtopo__topo_name(t->kind));
    return RTOPO_OK;
}

int rtopo__sched_shift(const rtopo__tdesc_t *t, int algo, long q, size_t bytes,
                       const struct rtopo__model *model, rtopo__sched_t **s_p)
{
    rtopo__model_t def;
    int qn, st;

    if (!s_p)
        return rtopo__error(RTOPO_ERR_INVAL, "shift: no topology or output");
    if ((st = rtopo__shift_check(t, algo)))
        return st;
    qn = rtopo__modp(q, t->p);
    if (algo != RTOPO_SHIFT_AUTO)
        return rtopo__shift_build(t, algo, qn, bytes, s_p);
    if (!model) {
        rtopo__model_default(&def);
        model = &def;
    }
    return rtopo__shift_auto(t, qn, bytes, model, NULL, NULL, s_p);
}

int rtopo__sched_shift_memo(const rtopo__tdesc_t *t, rtopo__shift_memo_t *memo, long q,
                            size_t bytes, const struct rtopo__model *model,
                            rtopo__sched_t **s_p)
{
    int cls = bytes ? 64 - __builtin_clzll((unsigned long long)bytes) : 0, st;
    long qn;
    unsigned i;

    if (!t || !memo || !s_p || t->p < 1)
        return rtopo__error(RTOPO_ERR_INVAL, "shift: no topology, memo or output");
    qn = rtopo__modp(q, t->p);
    for (i = 0; i < RTOPO__SHIFT_MEMO; i++)
        if (memo->e[i].algo && memo->e[i].q == qn && memo->e[i].cls == cls)
            return rtopo__sched_shift(t, memo->e[i].algo, q, bytes, model, s_p);
    st = rtopo__sched_shift(t, RTOPO_SHIFT_AUTO, q, bytes, model, s_p);
    if (st)
        return st;
    memo->evaluations++;
    i = memo->next++ % RTOPO__SHIFT_MEMO;
    memo->e[i].q = qn;
    memo->e[i].cls = cls;
    memo->e[i].algo = (*s_p)->algo;
    return RTOPO_OK;
}
