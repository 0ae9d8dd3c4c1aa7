/*
 * test_share.c - a rank's share of a schedule (rtopo__sched_own, and
 * rtopo__sched_coll with c->own): what a rank builds for itself equals
 * the same rank's parts taken from the whole graph.  For every
 * collective on small and medium topologies of every kind (and the
 * scatter and the shift, which the runtime takes from the whole graph,
 * on a hypercube with its host): the transfers that touch the rank (as
 * source, destination or forwarding hop), their hops, the rank's
 * kernels and the edges on it, in the same order once renumbered, and
 * the same algorithm, steps and TMP size.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "test_unit.h"

static int touches(const rtopo__sched_t *s, uint32_t i, int r)
{
    const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
    uint32_t k;

    if (x->src == r || x->dst == r)
        return 1;
    for (k = 0; k < x->nhops; k++)
        if (s->hops[x->hop0 + k].to == r)
            return 1;
    return 0;
}

/* transfer i of a and j of b, written out whole, alike but for hop0 */
static int xfer_eq(const rtopo__sched_t *as, uint32_t i, const rtopo__sched_t *bs, uint32_t j)
{
    const rtopo__xfer_t av = rtopo__sched_xfer(as, i), *a = &av;
    const rtopo__xfer_t bv = rtopo__sched_xfer(bs, j), *b = &bv;

    return a->src == b->src && a->dst == b->dst && a->src_buf == b->src_buf &&
           a->dst_buf == b->dst_buf && a->step == b->step && a->nhops == b->nhops &&
           a->src_off == b->src_off && a->dst_off == b->dst_off && a->len == b->len;
}

static int hop_eq(const rtopo__hop_t *a, const rtopo__hop_t *b)
{
    return a->to == b->to && a->step == b->step && a->link == b->link && a->dim == b->dim &&
           a->dir == b->dir;
}

static int kern_eq(const rtopo__kern_t *a, const rtopo__kern_t *b)
{
    return a->rank == b->rank && a->type == b->type && a->dtype == b->dtype &&
           a->op == b->op && a->flags == b->flags && a->step == b->step &&
           a->src_buf == b->src_buf && a->dst_buf == b->dst_buf && a->rec == b->rec &&
           a->src_off == b->src_off && a->dst_off == b->dst_off && a->len == b->len &&
           a->arg == b->arg && a->slen == b->slen && a->urec == b->urec;
}

/* S is rank r's share of the whole graph W: 0, or 1 after recording
 * what differs */
static int share_eq(const rtopo__sched_t *W, const rtopo__sched_t *S, int r, const char *what)
{
    uint32_t n = W->nxfers + W->nkerns, i, j = 0, k, nk = 0, nd = 0, *map;
    int ok = 1;

    if (!TU_CHECK(S->own == r + 1 && S->nxall == W->nxfers && S->algo == W->algo &&
                  S->nsteps == W->nsteps && S->tmp_bytes == W->tmp_bytes &&
                  rtopo__sched_tmp(S, r) == rtopo__sched_tmp(W, r),
                  "%s rank %d: own %d nxall %u/%u algo %d/%d steps %u/%u tmp %llu/%llu",
                  what, r, S->own, S->nxall, W->nxfers, S->algo, W->algo, S->nsteps,
                  W->nsteps, (unsigned long long)rtopo__sched_tmp(S, r),
                  (unsigned long long)rtopo__sched_tmp(W, r)))
        return 0;
    map = malloc(((size_t)n + 1) * sizeof(*map));
    CU_ASSERT_FATAL(map != NULL);
    for (i = 0; i < W->nxfers && ok; i++) {
        map[i] = UINT32_MAX;
        if (!touches(W, i, r))
            continue;
        ok = TU_CHECK(j < S->nxfers && rtopo__sched_xid(S, j) == i &&
                      xfer_eq(S, j, W, i),
                      "%s rank %d: transfer %u of the whole is not the share's %u", what,
                      r, i, j);
        for (k = 0; ok && k < rtopo__sched_xnhops(W, i); k++)
            ok = TU_CHECK(hop_eq(&S->hops[S->xfers[j].hop0 + k],
                                 &W->hops[W->xfers[i].hop0 + k]),
                          "%s rank %d: transfer %u hop %u differs", what, r, i, k);
        map[i] = j++;
    }
    if (ok)
        ok = TU_CHECK(j == S->nxfers, "%s rank %d: %u transfers, the share has %u", what,
                      r, j, S->nxfers);
    for (i = 0; i < W->nkerns && ok; i++) {
        map[W->nxfers + i] = UINT32_MAX;
        if (W->kerns[i].rank != r)
            continue;
        rtopo__kern_t sk = nk < S->nkerns ? rtopo__sched_kern(S, nk) : rtopo__sched_kern(W, i),
                      wk = rtopo__sched_kern(W, i);

        ok = TU_CHECK(nk < S->nkerns && kern_eq(&sk, &wk),
                      "%s rank %d: kernel %u of the whole is not the share's %u", what, r,
                      i, nk);
        map[W->nxfers + i] = S->nxfers + nk++;
    }
    if (ok)
        ok = TU_CHECK(nk == S->nkerns, "%s rank %d: %u kernels, the share has %u", what, r,
                      nk, S->nkerns);
    for (i = 0; i < W->ndeps && ok; i++) {
        const rtopo__dep_t *d = &W->deps[i];

        if (d->rank != r)
            continue;
        ok = TU_CHECK(nd < S->ndeps && S->deps[nd].rank == r &&
                      S->deps[nd].pred == map[d->pred] && S->deps[nd].succ == map[d->succ] &&
                      S->deps[nd].kind == d->kind,
                      "%s rank %d: edge %u (%u -> %u kind %u) is not the share's %u", what,
                      r, i, d->pred, d->succ, d->kind, nd);
        nd++;
    }
    if (ok)
        ok = TU_CHECK(nd == S->ndeps, "%s rank %d: %u edges, the share has %u", what, r,
                      nd, S->ndeps);
    /* the last step of a local node left out, which lines phases up */
    for (i = 0, j = W->olast; i < W->nxfers + W->nkerns && ok; i++) {
        uint32_t step = i < W->nxfers ? W->xfers[i].step : W->kerns[i - W->nxfers].step;
        int local = i < W->nxfers ? !rtopo__sched_xnhops(W, i) && !touches(W, i, r)
                                  : W->kerns[i - W->nxfers].rank != r;

        if (local && step + 1 > j)
            j = step + 1;
    }
    if (ok)
        ok = TU_CHECK(S->olast == j, "%s rank %d: the last local step left out is %u, "
                      "the share's %u", what, r, j, S->olast);
    free(map);
    return ok;
}

static int fails_left = 20;

/* c on t: the whole graph, then each rank of `ranks` (all when NULL) builds
 * its share, which must be that rank's parts of the whole */
static void coll_case(const rtopo__tdesc_t *t, rtopo__coll_t *c, const int *ranks, int nr)
{
    rtopo__sched_t *W = NULL, *S = NULL;
    char what[160];
    int st, i, r;

    c->own = 0;
    snprintf(what, sizeof what, "%s (%s, count %llu, chunks %u) on %s of %d",
             rtopo__coll_name(c->op), rtopo__coll_algo_name(c->algo),
             (unsigned long long)c->count, c->chunks, rtopo__topo_name(t->kind), t->p);
    st = rtopo__sched_coll(t, c, NULL, &W);
    for (i = 0; i < (ranks ? nr : t->p) && fails_left > 0; i++) {
        r = ranks ? ranks[i] : i;
        if (r < 0 || r >= t->p)
            continue;
        c->own = r + 1;
        if (!TU_CHECK(rtopo__sched_coll(t, c, NULL, &S) == st, "%s rank %d: the share's "
                      "build does not return %d as the whole's did: %s", what, r, st,
                      rtopo_last_error()))
            fails_left--;
        if (!st && S && !share_eq(W, S, r, what))
            fails_left--;
        rtopo__sched_free(S);
        S = NULL;
    }
    c->own = 0;
    rtopo__sched_free(W);
}

static void tdesc(rtopo__tdesc_t *t, int kind, int p, int a, int b)
{
    if (!TU_CHECK(rtopo__tdesc_init(t, kind, p, a, b) == RTOPO_OK, "%s of %d: %s",
                  rtopo__topo_name(kind), p, rtopo_last_error()))
        CU_FAIL_FATAL("topology");
}

/* every collective with arguments that fit t (those that do not: the
 * share must fail as the whole does) */
static void all_colls(const rtopo__tdesc_t *t, const int *ranks, int nr)
{
    static const int algos[3] = { RTOPO_COLL_AUTO, RTOPO_COLL_TOPO, RTOPO_COLL_GENERIC };
    int op, a, k = 0, E;

    while ((1 << k) < t->p && k < 30)
        k++;
    for (op = 1; op < RTOPO__COLL_NOPS && fails_left > 0; op++) {
        for (a = 0; a < 3; a++) {
            rtopo__coll_t c;

            memset(&c, 0, sizeof(c));
            c.op = op;
            c.algo = algos[a];
            c.dtype = RTOPO_INT32;
            c.rop = RTOPO_SUM;
            c.count = 3;
            c.esize = 4;
            c.chunks = 1;
            c.w = 1;
            c.root = op == RTOPO__COLL_BCAST ? t->p / 2 : 0;
            E = rtopo__cart_extent(t, 0);
            c.mm = op == RTOPO__COLL_CONSEC_SUM ? (E > 1 && E % 2 == 0 ? 2 : 1) :
                   (E > 1 ? 2 : 1);
            c.disp = 1;
            if (op == RTOPO__COLL_SHIFT_FILL || op == RTOPO__COLL_ACCUMULATE) {
                c.count = 12;
                c.esize = 1;
            }
            if (op == RTOPO__COLL_BPC) {
                c.count = 8;
                c.esize = 1;
                if ((1 << k) != t->p || rtopo__bpc_parse("reversal", k, &c))
                    c.bpc_bits = -1;
            }
            if (rtopo__coll_is_route(op)) {
                c.count = 1;
                c.esize = op == RTOPO__COLL_SELECT_RANK ? 1 : 8;
                c.dtype = RTOPO_INT64;
            }
            coll_case(t, &c, ranks, nr);
            /* pieces the model picks, on longer registers */
            if (a == 0 && (op == RTOPO__COLL_BCAST || op == RTOPO__COLL_SCAN ||
                           op == RTOPO__COLL_ALLREDUCE)) {
                c.count = 40000;
                c.chunks = 0;
                coll_case(t, &c, ranks, nr);
            }
        }
    }
}

static void test_share_small(void)
{
    static const int rings[3] = { 1, 5, 8 }, meshes[3][2] = { { 2, 3 }, { 4, 4 }, { 3, 5 } };
    rtopo__tdesc_t t;
    int i;

    for (i = 0; i < 3; i++) {
        tdesc(&t, RTOPO__TOPO_RING, rings[i], 0, 0);
        all_colls(&t, NULL, 0);
        tdesc(&t, RTOPO__TOPO_MESH, meshes[i][0] * meshes[i][1], meshes[i][0],
              meshes[i][1]);
        all_colls(&t, NULL, 0);
    }
    for (i = 0; i <= 4; i += 2) {
        tdesc(&t, RTOPO__TOPO_HYPERCUBE, 1 << i, i, 0);
        all_colls(&t, NULL, 0);
    }
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 8, 3, 0);
    CU_ASSERT_FATAL(rtopo__tdesc_add_host(&t) == RTOPO_OK);
    all_colls(&t, NULL, 0);      /* refused, the share alike */
    for (i = 1; i <= 4; i *= 2) {
        if (i != 2) {
            tdesc(&t, RTOPO__TOPO_OTIS_MESH, i * i, i, 0);
            all_colls(&t, NULL, 0);
        }
        tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, i * i, i, 0);
        all_colls(&t, NULL, 0);
    }
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 81, 9, 0);
    all_colls(&t, (const int[]){ 0, 1, 4, 40, 44, 80 }, 6);
}

static void test_share_medium(void)
{
    rtopo__tdesc_t t;
    const int some[6] = { 0, 1, 17, 128, 200, 255 };

    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 256, 16, 0);
    all_colls(&t, some, 6);
    tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0);
    all_colls(&t, (const int[]){ 0, 9, 27, 63 }, 4);
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 128, 7, 0);
    all_colls(&t, (const int[]){ 0, 5, 64, 127 }, 4);
    tdesc(&t, RTOPO__TOPO_MESH, 96, 8, 12);
    all_colls(&t, (const int[]){ 0, 13, 50, 95 }, 4);
}

/* The sort family, whose rounds are stamped once laid out and reach a
 * plan through the cut (rtopo__cb_round): sorts of more and longer
 * records, descending, under each algorithm (the column sort with ranks
 * as columns off the OTIS topologies, in rows on them, its routed rounds
 * in phases or in lock step on an odd side and on the OTIS-hypercube),
 * the random accesses with longer records, and BPC permutations in
 * pieces. */
static void test_share_sort_family(void)
{
    static const int algos[3] = { RTOPO_COLL_AUTO, RTOPO_COLL_TOPO, RTOPO_COLL_GENERIC };
    rtopo__tdesc_t t[6];
    int i, a, k;

    tdesc(&t[0], RTOPO__TOPO_RING, 8, 0, 0);
    tdesc(&t[1], RTOPO__TOPO_HYPERCUBE, 16, 4, 0);
    tdesc(&t[2], RTOPO__TOPO_OTIS_MESH, 81, 9, 0);
    tdesc(&t[3], RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0);
    tdesc(&t[4], RTOPO__TOPO_OTIS_MESH, 256, 16, 0);
    tdesc(&t[5], RTOPO__TOPO_OTIS_HYPERCUBE, 16, 4, 0);
    for (i = 0; i < 6; i++) {
        const int some[4] = { 0, 1, t[i].p / 2 + 1, t[i].p - 1 };
        rtopo__coll_t c;

        for (k = 0; (1 << k) < t[i].p; k++)
            ;
        for (a = 0; a < 3; a++) {
            memset(&c, 0, sizeof(c));
            c.op = RTOPO__COLL_SORT;
            c.algo = algos[a];
            c.dtype = RTOPO_DOUBLE;
            c.esize = 20;
            c.count = 7;
            c.chunks = 1;
            c.desc = 1;
            coll_case(&t[i], &c, some, 4);
            c.op = RTOPO__COLL_RANDOM_WRITE;
            c.dtype = RTOPO_INT64;
            c.count = 1;
            c.desc = 0;
            coll_case(&t[i], &c, some, 4);
            c.op = RTOPO__COLL_RANDOM_READ;
            coll_case(&t[i], &c, some, 4);
        }
        if ((1 << k) == t[i].p) {
            memset(&c, 0, sizeof(c));
            c.op = RTOPO__COLL_BPC;
            c.algo = RTOPO_COLL_AUTO;
            c.dtype = RTOPO_INT32;
            c.esize = 1;
            c.count = 64;
            c.chunks = 4;
            CU_ASSERT_FATAL(rtopo__bpc_parse("shuffle", k, &c) == RTOPO_OK);
            coll_case(&t[i], &c, some, 4);
        }
    }
}

/* what the runtime takes from a whole graph: the shift, the dimension
 * shift and the scatter from a host, outside the cube and folded */
static void test_share_taken(void)
{
    rtopo__tdesc_t t, h;
    rtopo__sched_t *W = NULL, *S = NULL;
    int r, node, st;

    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 16, 4, 0);
    h = t;
    CU_ASSERT_FATAL(rtopo__tdesc_add_host(&h) == RTOPO_OK);
    for (node = -1; node < 16; node += 7) {
        CU_ASSERT_FATAL(rtopo__sched_scatter_auto(&h, 10, 3, 4, NULL, node,
                                                  RTOPO__SCATTER_AUTO, NULL, NULL,
                                                  &W) == RTOPO_OK);
        for (r = 0; r < W->topo.p; r++) {
            CU_ASSERT_FATAL(rtopo__sched_scatter_auto(&h, 10, 3, 4, NULL, node,
                                                      RTOPO__SCATTER_AUTO, NULL, NULL,
                                                      &S) == RTOPO_OK);
            st = rtopo__sched_own(S, r);
            CU_ASSERT(st == RTOPO_OK);
            if (!st)
                share_eq(W, S, r, node < 0 ? "scatter from the host" : "folded scatter");
            /* a share again of the same rank keeps it; of another fails */
            CU_ASSERT(rtopo__sched_own(S, r) == RTOPO_OK);
            CU_ASSERT(rtopo__sched_own(S, (r + 1) % W->topo.p) == RTOPO_ERR_INVAL ||
                      W->topo.p == 1);
            rtopo__sched_free(S);
        }
        rtopo__sched_free(W);
        W = NULL;
    }
    for (r = 0; r < 16; r++) {
        CU_ASSERT_FATAL(rtopo__sched_shift(&t, RTOPO_SHIFT_AUTO, 5, 64, NULL, &W) ==
                        RTOPO_OK);
        CU_ASSERT_FATAL(rtopo__sched_shift(&t, RTOPO_SHIFT_AUTO, 5, 64, NULL, &S) ==
                        RTOPO_OK);
        CU_ASSERT(rtopo__sched_own(S, r) == RTOPO_OK);
        share_eq(W, S, r, "shift");
        rtopo__sched_free(W);
        rtopo__sched_free(S);
    }
}

/* rtopo__sim_bound is a lower bound of the simulated time, from every
 * rank, for every collective on small topologies, under the default
 * model, one with two ports, slower kernels and a fixed hop cost, and one
 * with the ranks on hosts of two whose hops cost by reach (fast inside a
 * host, slow across) */
static void bound_colls(const rtopo__tdesc_t *t)
{
    static const int ops[6] = { RTOPO__COLL_BCAST, RTOPO__COLL_SCAN, RTOPO__COLL_ALLREDUCE,
                                RTOPO__COLL_SORT, RTOPO__COLL_ADJACENT_SUM,
                                RTOPO__COLL_CONCENTRATE };
    static uint32_t host[4096];
    rtopo__layout_t lay = { 0, host };
    rtopo__model_t mod[3];
    int i, a, mi, r;

    rtopo__model_default(&mod[0]);
    rtopo__model_default(&mod[1]);
    mod[1].ports = 2;
    mod[1].tk = 3e-9;
    for (i = 0; i < RTOPO__LINK_COUNT; i++)
        mod[1].th[i] = 1e-6;
    rtopo__model_default(&mod[2]);
    CU_ASSERT_FATAL(t->p <= 4096);
    CU_ASSERT_FATAL(rtopo__model_parse("intra.ts=0.2us,intra.tw=0.05ns,inter.ts=20us,"
                                       "inter.tw=10ns", &mod[2]) == RTOPO_OK);
    for (r = 0; r < t->p; r++)
        host[r] = (uint32_t)r / 2;
    lay.nranks = (uint32_t)t->p;
    mod[2].layout = &lay;
    for (i = 0; i < 6; i++)
        for (a = RTOPO_COLL_TOPO; a <= RTOPO_COLL_GENERIC; a++)
            for (mi = 0; mi < 3; mi++) {
                rtopo__coll_t c;
                rtopo__sched_t *W = NULL;
                rtopo__sim_result_t res;

                memset(&c, 0, sizeof(c));
                c.op = ops[i];
                c.algo = a;
                c.dtype = RTOPO_INT64;
                c.rop = RTOPO_SUM;
                c.count = 5;
                c.esize = 8;
                c.chunks = 1;
                c.mm = 2;
                if (rtopo__coll_is_route(c.op))
                    c.count = 1;
                if (rtopo__sched_coll(t, &c, &mod[mi], &W))
                    continue;
                CU_ASSERT_FATAL(rtopo__sim_run(W, &mod[mi], &res) == RTOPO_OK);
                for (r = 0; r < t->p; r++) {
                    double lb = rtopo__sim_bound(W, &mod[mi], r);

                    TU_CHECK(lb <= res.model_time * (1 + 1e-9) && lb >= 0,
                             "%s (%s) on %s of %d, model %d: rank %d's bound %g above "
                             "the time %g", rtopo__coll_name(c.op),
                             rtopo__coll_algo_name(a), rtopo__topo_name(t->kind), t->p,
                             mi, r, lb, res.model_time);
                }
                rtopo__sched_free(W);
            }
}

/* every candidate of the broadcast, scan and allreduce: the bound a plan
 * takes for it (its share's and the family's path bounds) is below its
 * whole graph's simulated time, whatever the rank, on the models above
 * and at lengths that make pieces */
static void cand_bounds(const rtopo__tdesc_t *t, const int *ranks, int nr)
{
    static const int ops[3] = { RTOPO__COLL_BCAST, RTOPO__COLL_SCAN, RTOPO__COLL_ALLREDUCE };
    static const uint64_t counts[3] = { 1, 1000, 16384 };
    static uint32_t host[4096];
    rtopo__layout_t lay = { 0, host };
    rtopo__model_t mod[3];
    int i, a, k, mi, j, r, ran = 0;

    rtopo__model_default(&mod[0]);
    rtopo__model_default(&mod[1]);
    mod[1].ports = 2;
    mod[1].tk = 3e-9;
    for (i = 0; i < RTOPO__LINK_COUNT; i++)
        mod[1].th[i] = 1e-6;
    rtopo__model_default(&mod[2]);
    CU_ASSERT_FATAL(t->p <= 4096);
    CU_ASSERT_FATAL(rtopo__model_parse("intra.ts=0.2us,intra.tw=0.05ns,inter.ts=20us,"
                                       "inter.tw=10ns", &mod[2]) == RTOPO_OK);
    for (r = 0; r < t->p; r++)
        host[r] = (uint32_t)r / 4;
    lay.nranks = (uint32_t)t->p;
    mod[2].layout = &lay;
    for (i = 0; i < 3; i++)
        for (a = RTOPO_COLL_TOPO; a <= 4; a++)
            for (k = 0; k < 3; k++)
                for (mi = 0; mi < 3; mi++) {
                    rtopo__coll_t c;
                    rtopo__sched_t *W = NULL;
                    rtopo__sim_result_t res;

                    memset(&c, 0, sizeof(c));
                    c.op = ops[i];
                    c.dtype = RTOPO_INT32;
                    c.rop = RTOPO_SUM;
                    c.esize = 4;
                    c.count = counts[k];
                    c.root = t->p / 2;
                    if (rtopo__coll_cand_sched(t, &c, &mod[mi], a, &W))
                        continue;
                    CU_ASSERT_FATAL(rtopo__sim_run(W, &mod[mi], &res) == RTOPO_OK);
                    for (j = 0; j < nr; j++) {
                        double lb;

                        c.own = ranks[j] + 1;
                        lb = rtopo__coll_cand_bound(t, &c, &mod[mi], a);
                        TU_CHECK(lb >= 0 && lb <= res.model_time * (1 + 1e-9),
                                 "%s candidate %d of %llu on %s of %d, model %d: rank %d's "
                                 "bound %g, the whole graph's time %g",
                                 rtopo__coll_name(c.op), a, (unsigned long long)c.count,
                                 rtopo__topo_name(t->kind), t->p, mi, ranks[j], lb,
                                 res.model_time);
                        ran++;
                    }
                    rtopo__sched_free(W);
                }
    CU_ASSERT(ran > 0);
}

static void test_share_cand_bound(void)
{
    rtopo__tdesc_t t;

    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 16, 4, 0);
    cand_bounds(&t, (const int[]){ 0, 5, 15 }, 3);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 81, 9, 0);
    cand_bounds(&t, (const int[]){ 0, 40, 80 }, 3);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 256, 16, 0);
    cand_bounds(&t, (const int[]){ 0, 17, 255 }, 3);
    tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 16, 4, 0);
    cand_bounds(&t, (const int[]){ 0, 6, 15 }, 3);
    tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0);
    cand_bounds(&t, (const int[]){ 0, 9, 63 }, 3);
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 16, 4, 0);
    cand_bounds(&t, (const int[]){ 0, 7 }, 2);
    tdesc(&t, RTOPO__TOPO_RING, 12, 0, 0);
    cand_bounds(&t, (const int[]){ 0, 11 }, 2);
    tdesc(&t, RTOPO__TOPO_MESH, 12, 3, 4);
    cand_bounds(&t, (const int[]){ 5 }, 1);
}

/* The fold of a share onto itself (rtopo__sim_sym) runs as the whole
 * graph does where each translation v -> v ^ a maps the graph onto
 * itself: the generic allreduce on 2^d ranks, and reduce-scatter +
 * allgather when the count is a multiple of p, on every kind of topology,
 * under the default model, one with two ports, slower kernels and a fixed
 * hop cost, and one with a queueing delay and costly copies, in one piece
 * and in the pieces the model picks; the time is the whole graph's to the
 * last bit.  Where the graph is not so (recursive doubling's scan, the
 * broadcast, halves of different lengths) the fold says -1 or, for a
 * share that happens to mirror, nothing the choice takes
 * (rtopo__coll_choose_x asks only for those two algorithms, and the cube
 * scan's rank p - 1: test_share_scan_time). */
static void hosts_model(rtopo__model_t *m, rtopo__layout_t *lay, uint32_t *host, int n,
                        int per);

static void sym_case(const rtopo__tdesc_t *t, int *ran)
{
    static const uint64_t counts[5] = { 1, 3, 1000, 16384, 0 };
    rtopo__model_t mod[3];
    int i, a, k, mi, r;

    rtopo__model_default(&mod[0]);
    rtopo__model_default(&mod[1]);
    mod[1].ports = 2;
    mod[1].tk = 3e-9;
    for (i = 0; i < RTOPO__LINK_COUNT; i++)
        mod[1].th[i] = 1e-6;
    rtopo__model_default(&mod[2]);
    mod[2].tq = 2e-6;
    mod[2].ts[RTOPO__LINK_LOCAL] = 1e-7;
    mod[2].tw[RTOPO__LINK_LOCAL] = 0.1e-9;
    for (a = RTOPO_COLL_GENERIC; a <= 3; a++)     /* 3: reduce-scatter + allgather */
        for (k = 0; k < 5; k++)
            for (mi = 0; mi < 3; mi++) {
                rtopo__coll_t c;
                rtopo__sched_t *W = NULL, *S = NULL;
                rtopo__sim_result_t res;

                memset(&c, 0, sizeof(c));
                c.op = RTOPO__COLL_ALLREDUCE;
                c.dtype = RTOPO_INT32;
                c.rop = RTOPO_SUM;
                c.esize = 4;
                c.count = counts[k] ? counts[k] : 40 * (uint64_t)t->p;
                c.chunks = k == 3 ? 0 : 1;
                if (rtopo__coll_cand_sched(t, &c, &mod[mi], a, &W))
                    continue;
                CU_ASSERT_FATAL(rtopo__sim_run(W, &mod[mi], &res) == RTOPO_OK);
                for (r = 0; r < t->p; r += t->p > 8 ? t->p / 5 : 1) {
                    double e;

                    CU_ASSERT_FATAL(rtopo__coll_cand_sched(t, &c, &mod[mi], a, &S) ==
                                    RTOPO_OK);
                    CU_ASSERT_FATAL(rtopo__sched_own(S, r) == RTOPO_OK);
                    e = rtopo__sim_sym(S, &mod[mi], r);
                    if (a == RTOPO_COLL_GENERIC || c.count % (uint64_t)t->p == 0) {
                        TU_CHECK(e == res.model_time, "allreduce candidate %d of %llu on "
                                 "%s of %d, model %d: rank %d's fold %.17g, the whole "
                                 "graph's time %.17g", a, (unsigned long long)c.count,
                                 rtopo__topo_name(t->kind), t->p, mi, r, e, res.model_time);
                        (*ran)++;
                    } else {
                        TU_CHECK(e < 0 || e == res.model_time, "allreduce candidate %d of "
                                 "%llu on %s of %d, model %d: rank %d's fold %g, the "
                                 "whole graph's time %g", a, (unsigned long long)c.count,
                                 rtopo__topo_name(t->kind), t->p, mi, r, e, res.model_time);
                    }
                    rtopo__sched_free(S);
                    S = NULL;
                }
                rtopo__sched_free(W);
            }
}

static void test_share_sym(void)
{
    static uint32_t host[16];
    rtopo__layout_t lay = { 16, host };
    rtopo__tdesc_t t;
    rtopo__sched_t *S = NULL;
    rtopo__coll_t c;
    rtopo__model_t m;
    int ran = 0;

    tdesc(&t, RTOPO__TOPO_RING, 2, 0, 0);
    sym_case(&t, &ran);
    tdesc(&t, RTOPO__TOPO_RING, 8, 0, 0);
    sym_case(&t, &ran);
    tdesc(&t, RTOPO__TOPO_MESH, 32, 4, 8);
    sym_case(&t, &ran);
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 16, 4, 0);
    sym_case(&t, &ran);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 16, 4, 0);
    sym_case(&t, &ran);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 256, 16, 0);
    sym_case(&t, &ran);
    tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0);
    sym_case(&t, &ran);
    CU_ASSERT(ran > 100);
    /* not folded: the scan's share (it receives from below only), a
     * model with lanes or with hosts */
    memset(&c, 0, sizeof(c));
    c.op = RTOPO__COLL_SCAN;
    c.dtype = RTOPO_INT32;
    c.rop = RTOPO_SUM;
    c.esize = 4;
    c.count = 1;
    tdesc(&t, RTOPO__TOPO_RING, 16, 0, 0);
    CU_ASSERT_FATAL(rtopo__coll_cand_sched(&t, &c, NULL, RTOPO_COLL_GENERIC, &S) == RTOPO_OK);
    CU_ASSERT_FATAL(rtopo__sched_own(S, 5) == RTOPO_OK);
    CU_ASSERT(rtopo__sim_sym(S, NULL, 5) < 0);
    rtopo__sched_free(S);
    S = NULL;
    c.op = RTOPO__COLL_ALLREDUCE;
    CU_ASSERT_FATAL(rtopo__coll_cand_sched(&t, &c, NULL, RTOPO_COLL_GENERIC, &S) == RTOPO_OK);
    CU_ASSERT_FATAL(rtopo__sched_own(S, 5) == RTOPO_OK);
    CU_ASSERT(rtopo__sim_sym(S, NULL, 5) > 0);
    rtopo__model_default(&m);
    m.lanes = 2;
    CU_ASSERT(rtopo__sim_sym(S, &m, 5) < 0);
    hosts_model(&m, &lay, host, 16, 4);
    CU_ASSERT(rtopo__sim_sym(S, &m, 5) < 0);
    rtopo__sched_free(S);
}

/* With hosts in the model, the generic allreduce's time a plan takes
 * from its share (the fold of rank 0's host, coll_generic.c) is the whole
 * graph's simulated time to the last bit where the hosts are the classes
 * of "equal outside a bit mask": aligned blocks of 2^h ranks (a rank's
 * host its high bits) and 2^j hosts dealt round robin, every h and j, on
 * rings, meshes, hypercubes, OTIS-meshes and OTIS-hypercubes of 2 to 1024
 * ranks; recursive doubling and reduce-scatter + allgather (the count a
 * multiple of p); models whose intra- and inter-host figures differ
 * (either way round, with a queueing delay, costly copies, slow or free
 * kernels), one host link, two, or none, one port, two or none; counts
 * of one element to 64 KiB.  Where it is not so (blocks of 3, blocks not
 * aligned, a layout a translation does not keep, lanes, pieces) it says
 * -1. */
static int host_layout(uint32_t *host, int p, int how, int h)
{
    int r, mask = 1;

    for (r = 0; r < p; r++)
        switch (how) {
        case 0:                 /* aligned blocks of 2^h */
            host[r] = (uint32_t)(r >> h);
            break;
        case 1:                 /* round robin over 2^h hosts */
            host[r] = (uint32_t)(r & ((1 << h) - 1));
            break;
        case 2:                 /* blocks of 3 */
            host[r] = (uint32_t)(r / 3);
            mask = p <= 2;
            break;
        case 3:                 /* blocks of 2^h shifted by one rank */
            host[r] = (uint32_t)(((r + 1) % p) >> h);
            mask = h == 0 || h >= 30 || (1 << h) >= p;
            break;
        default:                /* rank 0 alone, the rest on one host */
            host[r] = r > 0;
            mask = p <= 2;
            break;
        }
    return mask;
}

static void host_time_topo(const rtopo__tdesc_t *t, int light, int *known, int *told)
{
    static const char *const models[] = {
        "intra.ts=0.3us,intra.tw=0.1ns,inter.ts=15us,inter.tw=8ns",
        "intra.ts=0.3us,intra.tw=0.1ns,inter.ts=15us,inter.tw=8ns,hostlinks=0",
        "intra.ts=2us,intra.tw=1ns,inter.ts=5us,inter.tw=0.5ns,hostlinks=2,ports=2",
        "intra.ts=0.3us,intra.tw=0.1ns,inter.ts=15us,inter.tw=8ns,ports=0,tk=3ns",
        "intra.ts=20us,intra.tw=3ns,inter.ts=1us,inter.tw=0.2ns,tk=0",
        "intra.ts=1us,intra.tw=0.3ns,inter.ts=4us,inter.tw=2ns,tq=2us,local.ts=0.1us,"
        "local.tw=0.1ns,tk=1e-5",
        "lanes=2,intra.ts=0.3us,inter.ts=15us",
    };
    static const uint64_t counts[5] = { 1, 3, 1000, 16384, 0 };
    static uint32_t host[4096];
    rtopo__layout_t lay = { 0, host };
    int d = 0, how, h, a, k, mi, j;

    while ((1 << d) < t->p)
        d++;
    CU_ASSERT_FATAL(t->p <= 4096);
    /* light: blocks and round robin of 2^(d/2), three models, two counts */
    for (how = 0; how < (light ? 2 : 5); how++)
        for (h = how >= 2 || light ? (d + 1) / 2 : 0; h <= d;
             h += how >= 2 || light ? d + 1 : 1 + (d > 6))
            for (mi = 0; mi < (light ? 3 : (int)(sizeof(models) / sizeof(models[0]))); mi++) {
                rtopo__model_t m;
                int mask = host_layout(host, t->p, how, h);

                rtopo__model_default(&m);
                CU_ASSERT_FATAL(rtopo__model_parse(models[mi], &m) == RTOPO_OK);
                lay.nranks = (uint32_t)t->p;
                m.layout = &lay;
                for (a = RTOPO_COLL_GENERIC; a <= 3; a++)   /* 3: reduce-scatter + allgather */
                    for (k = 0; k < 5; k += light ? 4 : 1) {
                        rtopo__coll_t c;
                        rtopo__sched_t *W = NULL, *W1 = NULL;
                        rtopo__sim_result_t res;
                        int one = 1;

                        memset(&c, 0, sizeof(c));
                        c.op = RTOPO__COLL_ALLREDUCE;
                        c.dtype = RTOPO_INT32;
                        c.rop = RTOPO_SUM;
                        c.esize = 4;
                        c.count = counts[k] ? counts[k] : 40 * (uint64_t)t->p;
                        c.chunks = k == 3 ? 0 : 1;      /* 0: the model's pieces */
                        if (rtopo__coll_cand_sched(t, &c, &m, a, &W))
                            continue;
                        CU_ASSERT_FATAL(rtopo__sim_run(W, &m, &res) == RTOPO_OK);
                        if (!c.chunks) {
                            c.chunks = 1;
                            CU_ASSERT_FATAL(rtopo__coll_cand_sched(t, &c, &m, a, &W1) ==
                                            RTOPO_OK);
                            one = W1->nxfers == W->nxfers;
                            c.chunks = 0;
                            rtopo__sched_free(W1);
                        }
                        for (j = 0; j < 2; j++) {
                            int want = mask && one && !m.lanes && (t->p & (t->p - 1)) == 0 &&
                                       (a == RTOPO_COLL_GENERIC ||
                                        c.count % (uint64_t)t->p == 0);
                            double e;

                            c.own = j ? t->p : 1 + t->p / 3;
                            e = rtopo__coll_cand_time(t, &c, &m, a);
                            if (e >= 0)
                                (*told)++;
                            if (want)
                                (*known)++;
                            TU_CHECK(want ? e == res.model_time : e < 0,
                                     "allreduce %d of %llu (chunks %u) on %s of %d, hosts %d/%d, "
                                     "model \"%s\": rank %d's time %.17g, the whole graph's "
                                     "%.17g", a, (unsigned long long)c.count, c.chunks,
                                     rtopo__topo_name(t->kind), t->p, how, h, models[mi],
                                     c.own - 1, e, res.model_time);
                        }
                        rtopo__sched_free(W);
                    }
            }
}

static void test_share_host_time(void)
{
    rtopo__tdesc_t t;
    int known = 0, told = 0, d;

    /* every layout and model up to 256 ranks; 1024 as 4096 (share4096):
     * blocks and round robin of 2^(d/2), three models, two counts */
    for (d = 1; d <= 10; d += 1 + (d >= 6)) {
        tdesc(&t, RTOPO__TOPO_HYPERCUBE, 1 << d, d, 0);
        host_time_topo(&t, d == 10, &known, &told);
    }
    for (d = 1; d <= 8; d += 1 + (d > 4)) {
        tdesc(&t, RTOPO__TOPO_RING, 1 << d, 0, 0);
        host_time_topo(&t, 0, &known, &told);
    }
    tdesc(&t, RTOPO__TOPO_MESH, 32, 4, 8);
    host_time_topo(&t, 0, &known, &told);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 16, 4, 0);
    host_time_topo(&t, 0, &known, &told);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 256, 16, 0);
    host_time_topo(&t, 0, &known, &told);
    tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0);
    host_time_topo(&t, 0, &known, &told);
    /* not 2^d ranks: not known */
    tdesc(&t, RTOPO__TOPO_RING, 12, 0, 0);
    host_time_topo(&t, 0, &known, &told);
    CU_ASSERT(known > 1000 && told == known);
}

/* The generic scan's time a plan takes from its share (the family's
 * rtopo__time_fn, rtopo__coll_cand_time) is the whole graph's simulated
 * time to the last bit: the cube scan on hypercubes of 2 to 1024 ranks
 * (rank p - 1's share folded onto itself, in any pieces), recursive
 * doubling over direct links in one piece on 2^L ranks of the other kinds
 * (its closed form), under models that weigh each part differently (one
 * port, none, two and three; slow and free kernels, costly copies, a
 * queueing delay, a fixed hop cost, slow direct links), for 4- and 8-byte
 * elements, of every rank asked.  Where it does not know the time (other
 * sizes, pieces on direct links, lanes, hosts) it says -1.  light (4096
 * ranks): the default model, two ports with th, link classes costed
 * apart, lanes and hosts (the last two not known), counts 1, 16384 and
 * 16384 in the model's pieces. */
static void scan_time_topo(const rtopo__tdesc_t *t, int light, int *known, int *told)
{
    static const char *const models[] = {
        "", "ports=0", "ports=2,tk=3e-9,th=1e-6", "ports=3", "tk=1e-5", "tk=0",
        "tq=2e-6,local.ts=1e-7,local.tw=0.1ns", "ts=1us,tw=5ns,tk=2ns", "ts=0,tw=0",
        "direct.ts=20us,cube-id.ts=20us,ts=1us", "lanes=2", "hosts"
    };
    static const uint64_t counts[5] = { 1, 3, 1000, 16384, 16384 };
    static uint32_t host[4096];
    rtopo__layout_t lay = { 0, host };
    int ranks[3] = { 0, t->p / 3, t->p - 1 }, pow2 = (t->p & (t->p - 1)) == 0;
    size_t mi;
    int k, e8, j, one;

    for (mi = 0; mi < sizeof(models) / sizeof(models[0]); mi++) {
        rtopo__model_t m;
        int plain = mi + 2 < sizeof(models) / sizeof(models[0]);

        if (light && plain && mi != 0 && mi != 2 && mi != 9)
            continue;
        if (!strcmp(models[mi], "hosts")) {
            CU_ASSERT_FATAL(t->p <= 4096);
            hosts_model(&m, &lay, host, t->p, 4);
        } else {
            rtopo__model_default(&m);
            CU_ASSERT_FATAL(!*models[mi] || rtopo__model_parse(models[mi], &m) == RTOPO_OK);
        }
        for (k = 0; k < 5; k += light && k == 0 ? 3 : 1)
            for (e8 = 0; e8 < 2; e8++) {
                rtopo__coll_t c;
                rtopo__sched_t *W = NULL;
                rtopo__sim_result_t res;

                memset(&c, 0, sizeof(c));
                c.op = RTOPO__COLL_SCAN;
                c.dtype = e8 ? RTOPO_INT64 : RTOPO_INT32;
                c.rop = RTOPO_SUM;
                c.esize = e8 ? 8 : 4;
                c.count = counts[k];
                c.chunks = k < 4 ? 1 : 0;       /* then the model's pieces */
                CU_ASSERT_FATAL(rtopo__coll_cand_sched(t, &c, &m, RTOPO_COLL_GENERIC, &W) ==
                                RTOPO_OK);
                CU_ASSERT_FATAL(rtopo__sim_run(W, &m, &res) == RTOPO_OK);
                one = 1;
                if (!c.chunks) {
                    rtopo__sched_t *W1 = NULL;

                    c.chunks = 1;
                    CU_ASSERT_FATAL(rtopo__coll_cand_sched(t, &c, &m, RTOPO_COLL_GENERIC,
                                                           &W1) == RTOPO_OK);
                    one = W1->nxfers == W->nxfers;
                    c.chunks = 0;
                    rtopo__sched_free(W1);
                }
                for (j = 0; j < 3; j++) {
                    double e;
                    int want;

                    c.own = ranks[j] + 1;
                    e = rtopo__coll_cand_time(t, &c, &m, RTOPO_COLL_GENERIC);
                    /* known: the cube scan, or recursive doubling in one
                     * piece (the whole graph's pieces say), on 2^L ranks
                     * under a model without lanes or hosts */
                    want = pow2 && plain && one;
                    if (e >= 0)
                        (*told)++;
                    if (want)
                        (*known)++;
                    TU_CHECK(want ? e == res.model_time : e < 0,
                             "scan of %llu x %zu (chunks %u) on %s of %d, model \"%s\": "
                             "rank %d's time %.17g, the whole graph's %.17g",
                             (unsigned long long)c.count, c.esize, c.chunks,
                             rtopo__topo_name(t->kind), t->p, models[mi], ranks[j], e,
                             res.model_time);
                }
                rtopo__sched_free(W);
            }
    }
}

static void test_share_scan_time(void)
{
    rtopo__tdesc_t t;
    int known = 0, told = 0, d;

    for (d = 1; d <= 10; d++) {
        tdesc(&t, RTOPO__TOPO_HYPERCUBE, 1 << d, d, 0);
        scan_time_topo(&t, 0, &known, &told);
    }
    for (d = 1; d <= 8; d += 1 + (d > 4)) {
        tdesc(&t, RTOPO__TOPO_RING, 1 << d, 0, 0);
        scan_time_topo(&t, 0, &known, &told);
    }
    tdesc(&t, RTOPO__TOPO_MESH, 32, 4, 8);
    scan_time_topo(&t, 0, &known, &told);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 16, 4, 0);
    scan_time_topo(&t, 0, &known, &told);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 256, 16, 0);
    scan_time_topo(&t, 0, &known, &told);
    tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0);
    scan_time_topo(&t, 0, &known, &told);
    /* not 2^L ranks: not known */
    tdesc(&t, RTOPO__TOPO_RING, 12, 0, 0);
    scan_time_topo(&t, 0, &known, &told);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 81, 9, 0);
    scan_time_topo(&t, 0, &known, &told);
    CU_ASSERT(known > 1000 && told == known);
}

/* The whole graph's choice (rtopo-sim's) that takes a candidate's time
 * from its family and never runs it keeps that time with the graph
 * (rtopo__sim_known): the run that follows returns, field by field, what
 * running a fresh copy of the same graph event by event returns. */
static int res_eq(const rtopo__sim_result_t *a, const rtopo__sim_result_t *b)
{
    int i;

    for (i = 0; i < RTOPO__LINK_COUNT; i++)
        if (a->moves[i] != b->moves[i])
            return 0;
    for (i = 0; i < RTOPO__REACH_COUNT; i++)
        if (a->reach_moves[i] != b->reach_moves[i] || a->reach_bytes[i] != b->reach_bytes[i])
            return 0;
    return a->steps == b->steps && a->max_link_load == b->max_link_load &&
           a->longest_path == b->longest_path && a->model_time == b->model_time &&
           a->model_time_sf == b->model_time_sf && a->kernels == b->kernels &&
           a->correct == b->correct;
}

static void test_share_known(void)
{
    static const char *const models[3] = { "", "ports=0", "tk=1e-5,ports=2" };
    static const int kinds[4][2] = { { RTOPO__TOPO_HYPERCUBE, 64 },
                                     { RTOPO__TOPO_HYPERCUBE, 1024 },
                                     { RTOPO__TOPO_OTIS_MESH, 256 },
                                     { RTOPO__TOPO_RING, 128 } };
    int i, mi, op, kept = 0;

    for (i = 0; i < 4; i++)
        for (mi = 0; mi < 3; mi++)
            for (op = 0; op < 2; op++) {
                rtopo__tdesc_t t;
                rtopo__model_t m;
                rtopo__coll_t c;
                rtopo__sched_t *W = NULL, *F = NULL;
                rtopo__sim_result_t ra, rb;
                int d = 0, a;

                while ((1 << d) < kinds[i][1])
                    d++;
                tdesc(&t, kinds[i][0], kinds[i][1],
                      kinds[i][0] == RTOPO__TOPO_HYPERCUBE ? d :
                      kinds[i][0] == RTOPO__TOPO_OTIS_MESH ? 16 : 0, 0);
                rtopo__model_default(&m);
                CU_ASSERT_FATAL(!*models[mi] || rtopo__model_parse(models[mi], &m) == RTOPO_OK);
                memset(&c, 0, sizeof(c));
                c.op = op ? RTOPO__COLL_ALLREDUCE : RTOPO__COLL_SCAN;
                c.dtype = RTOPO_INT32;
                c.rop = RTOPO_SUM;
                c.esize = 4;
                c.count = 5;
                c.chunks = 1;
                c.algo = RTOPO_COLL_AUTO;
                CU_ASSERT_FATAL(rtopo__sched_coll(&t, &c, &m, &W) == RTOPO_OK);
                kept += W->simmemo != NULL;
                CU_ASSERT_FATAL(rtopo__sim_run(W, &m, &ra) == RTOPO_OK);
                /* the winner afresh (the long-vector candidates are
                 * reported as GENERIC) */
                for (a = 0; a < 3; a++) {
                    rtopo__sched_free(F);
                    F = NULL;
                    if (!rtopo__coll_cand_sched(&t, &c, &m, a ? 2 + a : W->algo, &F) &&
                        F->nxfers == W->nxfers && F->ndeps == W->ndeps)
                        break;
                }
                CU_ASSERT_FATAL(a < 3 && F->simmemo == NULL);
                CU_ASSERT_FATAL(rtopo__sim_run(F, &m, &rb) == RTOPO_OK);
                TU_CHECK(res_eq(&ra, &rb), "%s on %s of %d, model \"%s\": the choice's kept "
                         "run %.17g, the graph's %.17g", rtopo__coll_name(c.op),
                         rtopo__topo_name(t.kind), t.p, models[mi], ra.model_time,
                         rb.model_time);
                rtopo__sched_free(W);
                rtopo__sched_free(F);
            }
    CU_ASSERT(kept >= 12);
}

static void test_share_bound(void)
{
    rtopo__tdesc_t t;

    tdesc(&t, RTOPO__TOPO_RING, 6, 0, 0);
    bound_colls(&t);
    tdesc(&t, RTOPO__TOPO_MESH, 12, 3, 4);
    bound_colls(&t);
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 16, 4, 0);
    bound_colls(&t);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 16, 4, 0);
    bound_colls(&t);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 81, 9, 0);
    bound_colls(&t);
    tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0);
    bound_colls(&t);
}

/* auto: the choice of a plan (a share: bounds, the times a family knows
 * from a share, and the whole graph run only where they do not settle
 * it) and of the whole graph (the same way, from rank 0's share) is the
 * reference's, which runs every candidate's whole graph
 * (rtopo__choose_every), on topologies up to 4096 ranks, for the
 * broadcast, scan and allreduce at several sizes (pieces picked by the
 * model) and the sort */
static void choice_case(const rtopo__tdesc_t *t, rtopo__coll_t *c, const int *ranks, int nr,
                        const rtopo__model_t *m)
{
    rtopo__sched_t *W = NULL, *S = NULL, *R = NULL;
    int i, st;

    c->algo = RTOPO_COLL_AUTO;
    c->own = 0;
    rtopo__choose_every = 1;
    st = rtopo__sched_coll(t, c, m, &R);
    rtopo__choose_every = 0;
    if (TU_CHECK(rtopo__sched_coll(t, c, m, &W) == st, "%s on %s of %d: the whole graph's "
                 "build returns otherwise than the reference's: %s", rtopo__coll_name(c->op),
                 rtopo__topo_name(t->kind), t->p, rtopo_last_error()) && !st)
        TU_CHECK(R->algo == W->algo && R->nsteps == W->nsteps && R->nxfers == W->nxfers,
                 "%s of %llu x %zu (chunks %u) on %s of %d: the whole graph chose %s (%u "
                 "steps), the reference %s (%u steps)", rtopo__coll_name(c->op),
                 (unsigned long long)c->count, c->esize, c->chunks,
                 rtopo__topo_name(t->kind), t->p, rtopo__coll_algo_name(W->algo), W->nsteps,
                 rtopo__coll_algo_name(R->algo), R->nsteps);
    rtopo__sched_free(W);
    W = R;
    for (i = 0; i < nr; i++) {
        c->own = ranks[i] + 1;
        if (TU_CHECK(rtopo__sched_coll(t, c, m, &S) == st, "%s on %s of %d rank %d: "
                     "the share's build returns otherwise: %s", rtopo__coll_name(c->op),
                     rtopo__topo_name(t->kind), t->p, ranks[i], rtopo_last_error()) && !st)
            TU_CHECK(S->algo == W->algo && S->nsteps == W->nsteps,
                     "%s of %llu x %zu (chunks %u) on %s of %d rank %d: the plan chose "
                     "%s (%u steps), the reference %s (%u steps)",
                     rtopo__coll_name(c->op), (unsigned long long)c->count, c->esize,
                     c->chunks, rtopo__topo_name(t->kind), t->p, ranks[i],
                     rtopo__coll_algo_name(S->algo), S->nsteps,
                     rtopo__coll_algo_name(W->algo), W->nsteps);
        rtopo__sched_free(S);
        S = NULL;
    }
    c->own = 0;
    rtopo__sched_free(W);
}

static void choice_topo(const rtopo__tdesc_t *t, int big, int sort, const rtopo__model_t *m)
{
    static const int ops[3] = { RTOPO__COLL_BCAST, RTOPO__COLL_SCAN, RTOPO__COLL_ALLREDUCE };
    static const uint64_t counts[4] = { 1, 1000, 16384, 262144 };
    int ranks[3] = { 0, t->p / 3, t->p - 1 }, i, k;

    for (i = 0; i < 3; i++)
        for (k = 0; k < (big ? 4 : 2); k++) {
            rtopo__coll_t c;

            memset(&c, 0, sizeof(c));
            c.op = ops[i];
            c.dtype = RTOPO_INT32;
            c.rop = RTOPO_SUM;
            c.esize = 4;
            c.count = counts[k];
            c.chunks = 0;
            c.root = t->p / 2;
            choice_case(t, &c, ranks, 3, m);
        }
    for (k = 0; sort && k < 2; k++) {
        rtopo__coll_t c;

        memset(&c, 0, sizeof(c));
        c.op = RTOPO__COLL_SORT;
        c.dtype = RTOPO_INT32;
        c.esize = 4;
        c.count = k ? 40 : 1;
        c.chunks = 1;
        choice_case(t, &c, ranks, 2 + (t->p <= 256), m);
    }
}

/* m: the default model with hops costed by reach, on hosts of `per`
 * consecutive ranks of the n in lay (host[] filled) */
static void hosts_model(rtopo__model_t *m, rtopo__layout_t *lay, uint32_t *host, int n,
                        int per)
{
    int r;

    rtopo__model_default(m);
    CU_ASSERT_FATAL(rtopo__model_parse("intra.ts=0.3us,intra.tw=0.1ns,inter.ts=15us,"
                                       "inter.tw=8ns", m) == RTOPO_OK);
    for (r = 0; r < n; r++)
        host[r] = (uint32_t)(r / per);
    lay->nranks = (uint32_t)n;
    lay->host = host;
    m->layout = lay;
}

static void test_share_choice(void)
{
    static uint32_t host[256];
    rtopo__layout_t lay = { 256, host };
    rtopo__model_t m;
    rtopo__tdesc_t t;

    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 256, 16, 0);
    choice_topo(&t, 1, 1, NULL);
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 256, 8, 0);
    choice_topo(&t, 1, 1, NULL);
    tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 256, 16, 0);
    choice_topo(&t, 1, 1, NULL);
    tdesc(&t, RTOPO__TOPO_RING, 100, 0, 0);
    choice_topo(&t, 1, 1, NULL);
    /* ranks on 16 hosts of 16, hops costed by reach: what a share sees of
     * the hosts differs from rank to rank, the choice may not */
    hosts_model(&m, &lay, host, 256, 16);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 256, 16, 0);
    choice_topo(&t, 1, 0, &m);
    lay.nranks = 100;
    tdesc(&t, RTOPO__TOPO_RING, 100, 0, 0);
    choice_topo(&t, 1, 0, &m);
}

/* The sort's AUTO on the whole graph (the simulator's, and the sort
 * phases of the random accesses), which runs the column sort whole only
 * where a share's bound leaves it a chance, keeps the faster of the two
 * candidates run whole, the column sort on a tie: the choice of running
 * both, and the same schedule. */
static void sort_auto_case(const rtopo__tdesc_t *t, uint64_t count, size_t esize, int desc,
                           const rtopo__model_t *m)
{
    rtopo__sched_t *W = NULL, *C[2] = { NULL, NULL };
    rtopo__sim_result_t res;
    rtopo__coll_t c;
    double tm[2];
    int a, want;

    memset(&c, 0, sizeof(c));
    c.op = RTOPO__COLL_SORT;
    c.dtype = esize >= 8 ? RTOPO_DOUBLE : RTOPO_INT32;
    c.esize = esize;
    c.count = count;
    c.chunks = 1;
    c.desc = desc;
    for (a = 0; a < 2; a++) {
        c.algo = a ? RTOPO_COLL_GENERIC : RTOPO_COLL_TOPO;
        if (!TU_CHECK(rtopo__sched_coll(t, &c, m, &C[a]) == RTOPO_OK &&
                      rtopo__sim_run(C[a], m, &res) == RTOPO_OK,
                      "sort of %llu on %s of %d, algo %d: %s", (unsigned long long)count,
                      rtopo__topo_name(t->kind), t->p, c.algo, rtopo_last_error()))
            goto out;
        tm[a] = res.model_time;
    }
    want = tm[1] < tm[0] * (1 - 1e-12);
    c.algo = RTOPO_COLL_AUTO;
    if (TU_CHECK(rtopo__sched_coll(t, &c, m, &W) == RTOPO_OK, "sort of %llu on %s of %d: %s",
                 (unsigned long long)count, rtopo__topo_name(t->kind), t->p,
                 rtopo_last_error()))
        TU_CHECK(W->algo == C[want]->algo && W->nsteps == C[want]->nsteps &&
                 W->nxfers == C[want]->nxfers && W->nkerns == C[want]->nkerns,
                 "sort of %llu x %zu%s on %s of %d: AUTO chose %s (%u steps), the faster "
                 "run whole is %s (%g against %g)", (unsigned long long)count, esize,
                 desc ? " descending" : "", rtopo__topo_name(t->kind), t->p,
                 rtopo__coll_algo_name(W->algo), W->nsteps,
                 rtopo__coll_algo_name(C[want]->algo), tm[want], tm[!want]);
out:
    rtopo__sched_free(W);
    rtopo__sched_free(C[0]);
    rtopo__sched_free(C[1]);
}

static void test_share_sort_auto(void)
{
    static uint32_t host[256];
    rtopo__layout_t lay = { 256, host };
    rtopo__model_t m[3];
    rtopo__tdesc_t t;
    static const int kinds[5][2] = { { RTOPO__TOPO_OTIS_MESH, 4 }, { RTOPO__TOPO_OTIS_MESH, 9 },
                                     { RTOPO__TOPO_OTIS_MESH, 16 },
                                     { RTOPO__TOPO_OTIS_HYPERCUBE, 4 },
                                     { RTOPO__TOPO_OTIS_HYPERCUBE, 16 } };
    int i, mi;

    rtopo__model_default(&m[0]);
    rtopo__model_default(&m[1]);
    m[1].tk = 3e-8;                     /* slow kernels: the merges weigh */
    for (i = 0; i < 5; i++) {
        int n = kinds[i][1];

        tdesc(&t, kinds[i][0], n * n, n, 0);
        hosts_model(&m[2], &lay, host, n * n, n);
        for (mi = 0; mi < 3; mi++) {
            sort_auto_case(&t, 1, 4, 0, &m[mi]);
            sort_auto_case(&t, 3, 20, 1, &m[mi]);
        }
        sort_auto_case(&t, 40, 8, 0, NULL);
    }
}

/* The sort's AUTO by closed figures (rtopo__sort_auto_closed), held
 * against both candidates run whole: the column sort's lower bound is
 * below its simulated time, the merge-split sort's simulated time within
 * the margin of its estimate, and where the figures settle the choice it
 * is the faster run whole (the reference's).  *decided counts those. */
static void sort_closed_case(const rtopo__tdesc_t *t, uint64_t count, size_t esize, int desc,
                             const rtopo__model_t *m, int *decided)
{
    rtopo__sched_t *C = NULL;
    rtopo__sim_result_t res;
    rtopo__coll_t c;
    double tm[2] = { 0, 0 }, lb, est;
    int a, want, got, pow2 = (t->p & (t->p - 1)) == 0;

    memset(&c, 0, sizeof(c));
    c.op = RTOPO__COLL_SORT;
    c.dtype = esize >= 8 ? RTOPO_DOUBLE : RTOPO_INT32;
    c.esize = esize;
    c.count = count;
    c.chunks = 1;
    c.desc = desc;
    for (a = 0; a < 2; a++) {
        c.algo = a ? RTOPO_COLL_GENERIC : RTOPO_COLL_TOPO;
        if (!TU_CHECK(rtopo__sched_coll(t, &c, m, &C) == RTOPO_OK &&
                      rtopo__sim_run(C, m, &res) == RTOPO_OK,
                      "sort of %llu on %s of %d, algo %d: %s", (unsigned long long)count,
                      rtopo__topo_name(t->kind), t->p, c.algo, rtopo_last_error())) {
            rtopo__sched_free(C);
            return;
        }
        tm[a] = res.model_time;
        rtopo__sched_free(C);
        C = NULL;
    }
    c.algo = RTOPO_COLL_AUTO;
    rtopo__sort_auto_figures(t, &c, m, &lb, &est);
    TU_CHECK(lb <= tm[0] * (1 + 1e-9), "sort of %llu x %zu on %s of %d: the column sort's "
             "bound %g is above its simulated time %g", (unsigned long long)count, esize,
             rtopo__topo_name(t->kind), t->p, lb, tm[0]);
    TU_CHECK(!pow2 || est > 0, "sort on %s of %d: no estimate of the merge-split sort",
             rtopo__topo_name(t->kind), t->p);
    if (est > 0 && !(m && (m->lanes > 0 || m->layout)))
        TU_CHECK(tm[1] <= est * RTOPO__SORT_EST_MARGIN, "sort of %llu x %zu on %s of %d: "
                 "the merge-split sort's simulated time %g is beyond its estimate %g and "
                 "the margin %g", (unsigned long long)count, esize, rtopo__topo_name(t->kind),
                 t->p, tm[1], est, RTOPO__SORT_EST_MARGIN);
    want = tm[1] < tm[0] * (1 - 1e-12) ? RTOPO_COLL_GENERIC : RTOPO_COLL_TOPO;
    got = rtopo__sort_auto_closed(t, &c, m);
    if (got >= 0) {
        (*decided)++;
        TU_CHECK(got == want, "sort of %llu x %zu%s on %s of %d: the closed figures "
                 "(bound %g, estimate %g) chose %s, the faster run whole is %s (%g against "
                 "%g)", (unsigned long long)count, esize, desc ? " descending" : "",
                 rtopo__topo_name(t->kind), t->p, lb, est, rtopo__coll_algo_name(got),
                 rtopo__coll_algo_name(want), tm[want == RTOPO_COLL_GENERIC],
                 tm[want != RTOPO_COLL_GENERIC]);
    }
    /* neither for the reference nor under a model the estimate leaves out */
    rtopo__choose_every = 1;
    CU_ASSERT(rtopo__sort_auto_closed(t, &c, m) < 0);
    rtopo__choose_every = 0;
    if (m && (m->lanes > 0 || m->layout))
        CU_ASSERT(got < 0);
}

static void test_share_sort_closed(void)
{
    static uint32_t host[256];
    rtopo__layout_t lay = { 256, host };
    rtopo__model_t m[4];
    rtopo__tdesc_t t;
    static const int kinds[5][2] = { { RTOPO__TOPO_OTIS_MESH, 4 }, { RTOPO__TOPO_OTIS_MESH, 9 },
                                     { RTOPO__TOPO_OTIS_MESH, 16 },
                                     { RTOPO__TOPO_OTIS_HYPERCUBE, 4 },
                                     { RTOPO__TOPO_OTIS_HYPERCUBE, 16 } };
    int i, mi, decided = 0;

    rtopo__model_default(&m[0]);
    rtopo__model_default(&m[1]);
    m[1].tk = 3e-8;                     /* slow kernels: the merges weigh */
    rtopo__model_default(&m[2]);
    m[2].lanes = 2;                     /* not settled by the figures */
    for (i = 0; i < 5; i++) {
        int n = kinds[i][1];

        tdesc(&t, kinds[i][0], n * n, n, 0);
        hosts_model(&m[3], &lay, host, n * n, n);
        for (mi = 0; mi < 4; mi++) {
            sort_closed_case(&t, 1, 4, 0, &m[mi], &decided);
            sort_closed_case(&t, 3, 20, 1, &m[mi], &decided);
        }
        sort_closed_case(&t, 40, 8, 0, NULL, &decided);
        sort_closed_case(&t, 1000, 4, 0, NULL, &decided);
    }
    CU_ASSERT(decided >= 20);
}

/* the same on 4096 ranks (its own suite, share4096: a minute of
 * processor time), the fold of the symmetric allreduces and the generic
 * scan's time from a share (scan_time_topo's light set); a ring of
 * 4096 on 64 hosts of 64 under hops costed by reach, where the scan's
 * chain is passed over by the bound of its path through every rank, and
 * a vector long enough for the pieces */
static void test_share_choice_4096(void)
{
    static uint32_t host[4096];
    rtopo__layout_t lay = { 4096, host };
    rtopo__model_t m;
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    const int ranks[3] = { 0, 1365, 4095 };
    int ran = 0, decided = 0, told;

    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 4096, 64, 0);
    choice_topo(&t, 0, 1, NULL);
    sym_case(&t, &ran);
    CU_ASSERT(ran > 0);
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 4096, 12, 0);
    choice_topo(&t, 0, 0, NULL);
    tdesc(&t, RTOPO__TOPO_MESH, 4096, 64, 64);
    choice_topo(&t, 0, 0, NULL);
    hosts_model(&m, &lay, host, 4096, 64);
    tdesc(&t, RTOPO__TOPO_RING, 4096, 0, 0);
    choice_topo(&t, 0, 0, &m);
    memset(&c, 0, sizeof(c));
    c.op = RTOPO__COLL_SCAN;
    c.dtype = RTOPO_INT32;
    c.rop = RTOPO_SUM;
    c.esize = 4;
    c.count = 16384;
    choice_case(&t, &c, ranks, 3, &m);
    choice_case(&t, &c, ranks, 3, NULL);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 4096, 64, 0);
    ran = told = 0;
    scan_time_topo(&t, 1, &ran, &told);
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 4096, 12, 0);
    scan_time_topo(&t, 1, &ran, &told);
    /* light: 36 known a topology (3 models, 2 counts in one piece, 2
     * sizes, 3 ranks) */
    CU_ASSERT(ran >= 72 && told == ran);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 4096, 64, 0);
    sort_auto_case(&t, 1, 4, 0, NULL);
    sort_auto_case(&t, 5, 20, 1, NULL);
    /* the closed figures on 4096 ranks, both kinds */
    sort_closed_case(&t, 1, 4, 0, NULL, &decided);
    sort_closed_case(&t, 5, 20, 1, NULL, &decided);
    sort_closed_case(&t, 40, 4, 0, NULL, &decided);
    rtopo__model_default(&m);
    m.tk = 3e-8;                        /* slow kernels */
    sort_closed_case(&t, 3, 20, 1, &m, &decided);
    tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 4096, 64, 0);
    sort_closed_case(&t, 1, 4, 0, NULL, &decided);
    CU_ASSERT(decided == 5);
}

/* the allreduce's time from a host's shares on 4096 ranks (as
 * test_share_host_time, fewer layouts and models) */
static void test_share_host_time_4096(void)
{
    rtopo__tdesc_t t;
    int known = 0, told = 0;

    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 4096, 12, 0);
    host_time_topo(&t, 1, &known, &told);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 4096, 64, 0);
    host_time_topo(&t, 1, &known, &told);
    CU_ASSERT(known >= 40 && told == known);
}

int tu_suite_share(void)
{
    CU_pSuite s = CU_add_suite("share", NULL, NULL);

    if (!s || !CU_add_test(s, "every collective, every rank, small topologies",
                           test_share_small) ||
        !CU_add_test(s, "every collective, some ranks, medium topologies",
                     test_share_medium) ||
        !CU_add_test(s, "shares taken from the whole: scatter with host, shift",
                     test_share_taken) ||
        !CU_add_test(s, "the sort family: longer records, descending, BPC in pieces",
                     test_share_sort_family) ||
        !CU_add_test(s, "a rank's bound is below the simulated time", test_share_bound) ||
        !CU_add_test(s, "a plan's bound of each candidate is below its simulated time",
                     test_share_cand_bound) ||
        !CU_add_test(s, "a share folded onto itself runs as the whole symmetric graph",
                     test_share_sym) ||
        !CU_add_test(s, "the generic scan's time from a share is the whole graph's",
                     test_share_scan_time) ||
        !CU_add_test(s, "the generic allreduce's time from a host's shares is the whole "
                     "graph's", test_share_host_time) ||
        !CU_add_test(s, "a whole graph's known time is its run's", test_share_known) ||
        !CU_add_test(s, "auto: a plan's and the whole graph's choice is the reference's, "
                     "up to 256 ranks",
                     test_share_choice) ||
        !CU_add_test(s, "the sort's auto on the whole graph is the faster run whole",
                     test_share_sort_auto) ||
        !CU_add_test(s, "the sort's auto by closed figures is the faster run whole",
                     test_share_sort_closed))
        return CU_get_error();
    s = CU_add_suite("share4096", NULL, NULL);
    if (!s || !CU_add_test(s, "auto: a plan's and the whole graph's choice is the "
                           "reference's on 4096 ranks",
                           test_share_choice_4096) ||
        !CU_add_test(s, "the generic allreduce's time from a host's shares is the whole "
                     "graph's on 4096 ranks", test_share_host_time_4096))
        return CU_get_error();
    return CUE_SUCCESS;
}
