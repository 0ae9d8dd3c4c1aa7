/*
 * test_shift_sched.c - shift schedules: every q (also negative and >= p)
 * on every rank, data placement by sim_exec, validate() on every
 * schedule, and the step, load and path bounds of each algorithm.
 */
#include "config.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "test_unit.h"

uint8_t tu_pattern(int rank, uint64_t k)
{
    uint32_t v = (uint32_t)(rank + 1) * 0x9E3779B1u ^ (uint32_t)(k / 4) * 0x85EBCA6Bu;

    return (uint8_t)(v >> ((k % 4) * 8));
}

int tu_bufs_init(tu_bufs_t *b, int p, uint64_t len, uint64_t tmp)
{
    size_t per = 2 * len + tmp;
    int i;

    b->p = p;
    b->len = len;
    b->tmp = tmp;
    b->mem = malloc((size_t)p * per + 1);
    b->ptr = malloc((size_t)p * RTOPO__BUF_COUNT * sizeof(*b->ptr));
    b->bufs = malloc((size_t)p * sizeof(*b->bufs));
    if (!b->mem || !b->ptr || !b->bufs) {
        tu_bufs_free(b);
        return -1;
    }
    for (i = 0; i < p; i++) {
        b->bufs[i] = b->ptr + (size_t)i * RTOPO__BUF_COUNT;
        b->bufs[i][RTOPO__BUF_SEND] = b->mem + (size_t)i * per;
        b->bufs[i][RTOPO__BUF_RECV] = b->mem + (size_t)i * per + len;
        b->bufs[i][RTOPO__BUF_TMP] = b->mem + (size_t)i * per + 2 * len;
    }
    return 0;
}

void tu_bufs_fill(tu_bufs_t *b)
{
    uint64_t k;
    int i;

    for (i = 0; i < b->p; i++) {
        for (k = 0; k < b->len; k++)
            b->bufs[i][RTOPO__BUF_SEND][k] = tu_pattern(i, k);
        memset(b->bufs[i][RTOPO__BUF_RECV], 0xEE, b->len + b->tmp);
    }
}

void tu_bufs_free(tu_bufs_t *b)
{
    free(b->mem);
    free(b->ptr);
    free(b->bufs);
    memset(b, 0, sizeof(*b));
}

int tu_shift_check(const rtopo__tdesc_t *t, int algo, long q, tu_bufs_t *b,
                   rtopo__sim_result_t *r, rtopo__sched_t **s_p)
{
    uint64_t size[RTOPO__BUF_COUNT] = { b->len, b->len, b->tmp }, k;
    rtopo__sched_t *s = NULL;
    int i, status, ok = 1;
    long qn = ((q % t->p) + t->p) % t->p;

    status = rtopo__sched_shift(t, algo, q, b->len, NULL, &s);
    if (!TU_CHECK(status == RTOPO_OK, "%s p %d q %ld algo %s: %s",
                  rtopo__topo_name(t->kind), t->p, q,
                  rtopo__shift_algo_name(algo), rtopo_last_error()))
        return -1;
    ok &= TU_CHECK(rtopo__sched_validate(s) == RTOPO_OK, "%s p %d q %ld %s: "
                   "invalid: %s", rtopo__topo_name(t->kind), t->p, q,
                   rtopo__shift_algo_name(s->algo), rtopo_last_error());
    ok &= TU_CHECK(s->nxfers == (uint32_t)t->p && s->tmp_bytes == 0, "xfers");
    ok &= TU_CHECK(algo == RTOPO_SHIFT_AUTO || s->algo == algo, "algo %d", s->algo);
    ok &= TU_CHECK(rtopo__sim_run(s, NULL, r) == RTOPO_OK, "sim_run");
    ok &= TU_CHECK(r->steps == s->nsteps, "steps %u vs nsteps %u", r->steps,
                   s->nsteps);
    if (qn == 0)
        ok &= TU_CHECK(s->nhops == 0 && s->nsteps == 0, "q %ld: not local", q);
    tu_bufs_fill(b);
    ok &= TU_CHECK(rtopo__sim_exec_sized(s, (uint8_t *const *const *)b->bufs,
                                         size) == RTOPO_OK, "sim_exec");
    r->correct = 1;
    for (i = 0; i < t->p && r->correct; i++) {
        const uint8_t *recv = b->bufs[(i + qn) % t->p][RTOPO__BUF_RECV];

        for (k = 0; k < b->len; k++)
            if (recv[k] != tu_pattern(i, k)) {
                r->correct = 0;
                break;
            }
    }
    ok &= TU_CHECK(r->correct, "%s p %d q %ld %s: data of rank %d misplaced",
                   rtopo__topo_name(t->kind), t->p, q,
                   rtopo__shift_algo_name(s->algo), i - 1);
    if (s_p)
        *s_p = s;
    else
        rtopo__sched_free(s);
    return ok ? 0 : -1;
}

/* q values to try for p ranks: every residue, plus a few negative and
 * large ones; returns how many were written to v (at most p + 7) */
int tu_q_values(int p, long *v)
{
    int n = 0, i;

    for (i = 0; i < p; i++)
        v[n++] = i;
    v[n++] = -1;
    v[n++] = -(long)p;
    v[n++] = -(long)p - 3;
    v[n++] = p;
    v[n++] = 2L * p + 1;
    v[n++] = LONG_MAX;
    v[n++] = LONG_MIN;
    return n;
}

static int q_mod(long q, int p)
{
    return (int)(((q % p) + p) % p);
}

static int gamma_of(int q)
{
    return __builtin_ctz((unsigned)q);
}

static void mesh_all_q(int rows, int cols, int do_exec_len)
{
    rtopo__tdesc_t t;
    rtopo__sim_result_t r;
    tu_bufs_t b;
    long *qs;
    int i, n, p = rows * cols, s = rows == cols ? rows : 0;

    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_MESH, p, rows, cols) == 0);
    qs = malloc((p + 8) * sizeof(*qs));
    CU_ASSERT_FATAL(qs && tu_bufs_init(&b, p, do_exec_len, 0) == 0);
    n = tu_q_values(p, qs);
    for (i = 0; i < n; i++) {
        int qn = q_mod(qs[i], p);

        if (tu_shift_check(&t, RTOPO_SHIFT_MESH, qs[i], &b, &r, NULL))
            break;
        TU_CHECK(r.steps <= (unsigned)(rows / 2 + cols / 2), "mesh %dx%d q %ld: "
                 "%u steps", rows, cols, qs[i], r.steps);
        if (s)
            TU_CHECK(r.steps <= (unsigned)(2 * (s / 2) + 1) &&
                     r.steps <= (unsigned)s + 1, "mesh %dx%d q %ld: %u steps "
                     "beyond the textbook bound", rows, cols, qs[i], r.steps);
        TU_CHECK(r.max_link_load == (qn ? 1u : 0u), "mesh %dx%d q %ld: load %u",
                 rows, cols, qs[i], r.max_link_load);
        TU_CHECK(r.longest_path == r.steps, "longest %u steps %u",
                 r.longest_path, r.steps);
    }
    tu_bufs_free(&b);
    free(qs);
}

static void test_mesh_square(void)
{
    /* every q and rank on 1x1 and on 17x17, 20x20, 25x25 and 32x32 (odd
     * sides, prime and not, even ones, a power of two), beyond the
     * 2x2..16x16 the formula suite sweeps side by side (test_formulas.c);
     * 31x32 is among the non-square shapes */
    static const int sides[] = { 17, 20, 25, 32 };
    unsigned i;

    mesh_all_q(1, 1, 8);
    for (i = 0; i < sizeof(sides) / sizeof(sides[0]); i++)
        mesh_all_q(sides[i], sides[i], 4);
}

static void test_mesh_rect(void)
{
    static const int shapes[][2] = {
        { 1, 7 }, { 7, 1 }, { 2, 3 }, { 3, 2 }, { 2, 8 }, { 3, 5 }, { 4, 8 },
        { 8, 4 }, { 5, 7 }, { 7, 13 }, { 16, 3 }, { 1, 32 }, { 32, 1 },
        { 6, 10 }, { 9, 4 }, { 31, 32 },
    };
    unsigned i;

    for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
        mesh_all_q(shapes[i][0], shapes[i][1], 5);
}

/* the textbook example: 5-shift on 4x4 = one row step, a compensating
 * column step for the packets that wrapped, one column step */
static void test_mesh_5shift(void)
{
    rtopo__tdesc_t t;
    rtopo__sim_result_t r;
    rtopo__sched_t *s = NULL;
    tu_bufs_t b;
    int i;

    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_MESH, 16, 4, 4) == 0);
    CU_ASSERT_FATAL(tu_bufs_init(&b, 16, 8, 0) == 0);
    CU_ASSERT_FATAL(tu_shift_check(&t, RTOPO_SHIFT_MESH, 5, &b, &r, &s) == 0);
    CU_ASSERT_EQUAL(r.steps, 3);
    CU_ASSERT_EQUAL(r.moves[RTOPO__LINK_ROW], 16);
    CU_ASSERT_EQUAL(r.moves[RTOPO__LINK_COL], 16 + 4);
    CU_ASSERT_EQUAL(r.max_link_load, 1);
    for (i = 0; i < 16; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
        const rtopo__hop_t *h = &s->hops[x->hop0];
        int wrapped = i % 4 == 3;

        CU_ASSERT_EQUAL(x->nhops, wrapped ? 3u : 2u);
        CU_ASSERT(h[0].link == RTOPO__LINK_ROW && h[0].dir == 1 && h[0].step == 0);
        CU_ASSERT(h[1].link == RTOPO__LINK_COL && h[1].dir == 1 && h[1].step == 1);
        if (wrapped)
            CU_ASSERT(h[2].link == RTOPO__LINK_COL && h[2].step == 2);
    }
    /* rank 3: 3 -> 0 over the row wraparound, then 0 -> 4 -> 8 */
    CU_ASSERT(s->hops[s->xfers[3].hop0].to == 0 &&
              s->hops[s->xfers[3].hop0 + 1].to == 4 &&
              s->hops[s->xfers[3].hop0 + 2].to == 8);
    rtopo__sched_free(s);
    /* 13 = 3 rows + 1: the wrapped packets owe 4 rows, i.e. none */
    CU_ASSERT_FATAL(tu_shift_check(&t, RTOPO_SHIFT_MESH, 13, &b, &r, NULL) == 0);
    CU_ASSERT_EQUAL(r.steps, 2);
    /* 3 = one backward row step; 3 of 4 packets then owe a row */
    CU_ASSERT_FATAL(tu_shift_check(&t, RTOPO_SHIFT_MESH, 3, &b, &r, NULL) == 0);
    CU_ASSERT_EQUAL(r.steps, 2);
    tu_bufs_free(&b);
}

/* the textbook E-cube claim, on cube labels (x -> x+q, no Gray map),
 * computed here independently of shift_sched.c: congestion free in
 * lock-step and the longest path is log p - gamma(q).  The formula suite
 * checks that the ECUBE schedules achieve it. */
static void test_ecube_textbook_labels(void)
{
    int d, q, x, k;

    for (d = 1; d <= 10; d++) {
        int p = 1 << d;
        uint8_t *used = malloc((size_t)p * d);

        for (q = 1; q < p; q++) {
            int longest = 0, clash = 0;

            memset(used, 0, (size_t)p * d);
            for (x = 0; x < p; x++) {
                int y = (x + q) % p, cur = x, len = 0;

                for (k = 0; k < d; k++)
                    if ((cur ^ y) & (1 << k)) {
                        clash |= used[cur * d + k]++;
                        cur ^= 1 << k;
                        len++;
                    }
                longest = len > longest ? len : longest;
            }
            if (!TU_CHECK(!clash && longest == d - gamma_of(q), "labels d %d "
                          "q %d: clash %d longest %d", d, q, clash, longest))
                break;
        }
        free(used);
    }
}

static void test_ring(void)
{
    rtopo__tdesc_t t;
    rtopo__sim_result_t r;
    tu_bufs_t b;
    long qs[80];
    int p, i, n;

    for (p = 1; p <= 64; p++) {
        CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_RING, p, 0, 0) == 0);
        CU_ASSERT_FATAL(tu_bufs_init(&b, p, 7, 0) == 0);
        n = tu_q_values(p, qs);
        for (i = 0; i < n; i++) {
            int qn = q_mod(qs[i], p), k = qn < p - qn ? qn : p - qn;

            if (tu_shift_check(&t, RTOPO_SHIFT_RING, qs[i], &b, &r, NULL))
                break;
            TU_CHECK(r.steps == (unsigned)k && r.longest_path == (unsigned)k &&
                     r.max_link_load == (k ? 1u : 0u), "ring %d q %ld: %u steps",
                     p, qs[i], r.steps);
            if (tu_shift_check(&t, RTOPO_SHIFT_DIRECT, qs[i], &b, &r, NULL))
                break;
            TU_CHECK(r.steps == (qn ? 1u : 0u), "direct steps %u", r.steps);
        }
        tu_bufs_free(&b);
    }
}

/* ring and direct run on every topology, OTIS included */
static void test_other_topos(void)
{
    static const int spec[][4] = {
        { RTOPO__TOPO_OTIS_MESH, 16, 4, 0 }, { RTOPO__TOPO_OTIS_MESH, 81, 9, 0 },
        { RTOPO__TOPO_OTIS_HYPERCUBE, 16, 4, 0 },
        { RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0 },
        { RTOPO__TOPO_MESH, 12, 3, 4 }, { RTOPO__TOPO_HYPERCUBE, 32, 5, 0 },
    };
    static const int algos[] = { RTOPO_SHIFT_RING, RTOPO_SHIFT_DIRECT,
                                 RTOPO_SHIFT_AUTO };
    rtopo__tdesc_t t;
    rtopo__sim_result_t r;
    tu_bufs_t b;
    long qs[100];
    unsigned i, a;
    int j, n;

    for (i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
        CU_ASSERT_FATAL(rtopo__tdesc_init(&t, spec[i][0], spec[i][1], spec[i][2],
                                          spec[i][3]) == 0);
        CU_ASSERT_FATAL(tu_bufs_init(&b, t.p, 6, 0) == 0);
        n = tu_q_values(t.p, qs);
        for (a = 0; a < 3; a++)
            for (j = 0; j < n; j++)
                if (tu_shift_check(&t, algos[a], qs[j], &b, &r, NULL))
                    break;
        tu_bufs_free(&b);
    }
}

static void test_unsupported(void)
{
    rtopo__tdesc_t ring, mesh, cube, om, oc;
    rtopo__sched_t *s = NULL;

    CU_ASSERT_FATAL(rtopo__tdesc_init(&ring, RTOPO__TOPO_RING, 8, 0, 0) == 0);
    CU_ASSERT_FATAL(rtopo__tdesc_init(&mesh, RTOPO__TOPO_MESH, 8, 2, 4) == 0);
    CU_ASSERT_FATAL(rtopo__tdesc_init(&cube, RTOPO__TOPO_HYPERCUBE, 8, 3, 0) == 0);
    CU_ASSERT_FATAL(rtopo__tdesc_init(&om, RTOPO__TOPO_OTIS_MESH, 16, 4, 0) == 0);
    CU_ASSERT_FATAL(rtopo__tdesc_init(&oc, RTOPO__TOPO_OTIS_HYPERCUBE, 16, 4, 0) == 0);
    CU_ASSERT_EQUAL(rtopo__sched_shift(&ring, RTOPO_SHIFT_MESH, 1, 8, NULL, &s),
                    RTOPO_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(rtopo__sched_shift(&cube, RTOPO_SHIFT_MESH, 1, 8, NULL, &s),
                    RTOPO_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(rtopo__sched_shift(&mesh, RTOPO_SHIFT_HYPERCUBE, 1, 8, NULL, &s),
                    RTOPO_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(rtopo__sched_shift(&mesh, RTOPO_SHIFT_ECUBE, 1, 8, NULL, &s),
                    RTOPO_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(rtopo__sched_shift(&om, RTOPO_SHIFT_MESH, 1, 8, NULL, &s),
                    RTOPO_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(rtopo__sched_shift(&oc, RTOPO_SHIFT_HYPERCUBE, 1, 8, NULL, &s),
                    RTOPO_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(rtopo__sched_shift(&oc, RTOPO_SHIFT_ECUBE, 0, 8, NULL, &s),
                    RTOPO_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(rtopo__sched_shift(&ring, 99, 1, 8, NULL, &s), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo__sched_shift(&ring, -1, 1, 8, NULL, &s), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo__sched_shift(NULL, RTOPO_SHIFT_RING, 1, 8, NULL, &s),
                    RTOPO_ERR_INVAL);
    CU_ASSERT_PTR_NULL(s);
}

static void test_auto(void)
{
    rtopo__tdesc_t mesh, cube, ring;
    rtopo__model_t m;
    rtopo__sched_t *s = NULL;

    CU_ASSERT_FATAL(rtopo__tdesc_init(&mesh, RTOPO__TOPO_MESH, 16, 4, 4) == 0);
    CU_ASSERT_FATAL(rtopo__tdesc_init(&cube, RTOPO__TOPO_HYPERCUBE, 64, 6, 0) == 0);
    CU_ASSERT_FATAL(rtopo__tdesc_init(&ring, RTOPO__TOPO_RING, 10, 0, 0) == 0);
    /* default model: one direct hop beats every multi-hop route */
    CU_ASSERT_FATAL(rtopo__sched_shift(&mesh, RTOPO_SHIFT_AUTO, 5, 1 << 20,
                                       NULL, &s) == 0);
    CU_ASSERT_EQUAL(s->algo, RTOPO_SHIFT_DIRECT);
    rtopo__sched_free(s);
    /* q = 0: local copies, labelled with the topology's own algorithm */
    CU_ASSERT_FATAL(rtopo__sched_shift(&mesh, RTOPO_SHIFT_AUTO, 32, 64, NULL,
                                       &s) == 0);
    CU_ASSERT(s->algo == RTOPO_SHIFT_MESH && s->nhops == 0 && s->nsteps == 0);
    rtopo__sched_free(s);
    /* expensive direct connections: the overlay algorithms win */
    rtopo__model_default(&m);
    m.ts[RTOPO__LINK_DIRECT] = 1.0;
    CU_ASSERT_FATAL(rtopo__sched_shift(&mesh, RTOPO_SHIFT_AUTO, 5, 1 << 20, &m,
                                       &s) == 0);
    CU_ASSERT_EQUAL(s->algo, RTOPO_SHIFT_MESH);
    rtopo__sched_free(s);
    CU_ASSERT_FATAL(rtopo__sched_shift(&ring, RTOPO_SHIFT_AUTO, -3, 4096, &m,
                                       &s) == 0);
    CU_ASSERT(s->algo == RTOPO_SHIFT_RING && s->nsteps == 3);
    rtopo__sched_free(s);
    /* q = 1 on a cube: one hypercube hop; E-cube needs up to log p links
     * (63 -> 0 flips every bit) */
    CU_ASSERT_FATAL(rtopo__sched_shift(&cube, RTOPO_SHIFT_AUTO, 1, 4096, &m,
                                       &s) == 0);
    CU_ASSERT_EQUAL(s->algo, RTOPO_SHIFT_HYPERCUBE);
    rtopo__sched_free(s);
    /* large messages on a cube: pipelined E-cube (one route per rank, few
     * links shared) against phases that reuse links */
    CU_ASSERT_FATAL(rtopo__sched_shift(&cube, RTOPO_SHIFT_AUTO, 21, 16 << 20,
                                       &m, &s) == 0);
    CU_ASSERT(s->algo == RTOPO_SHIFT_HYPERCUBE || s->algo == RTOPO_SHIFT_ECUBE);
    CU_ASSERT(rtopo__sched_validate(s) == RTOPO_OK);
    rtopo__sched_free(s);
}

/* AUTO explained: candidates in preference order, the winner's time the
 * smallest, evaluated times equal to the simulated schedules' */
static void test_auto_candidates(void)
{
    rtopo__tdesc_t mesh, cube;
    rtopo__shift_cand_t c[RTOPO__SHIFT_NCAND];
    rtopo__sched_t *s = NULL, *one;
    rtopo__sim_result_t r;
    int n = -1, i, won = 0;

    CU_ASSERT_FATAL(rtopo__tdesc_init(&mesh, RTOPO__TOPO_MESH, 16, 4, 4) == 0);
    CU_ASSERT_FATAL(rtopo__tdesc_init(&cube, RTOPO__TOPO_HYPERCUBE, 8, 3, 0) == 0);
    CU_ASSERT_FATAL(rtopo__sched_shift_auto(&mesh, 5, 1 << 20, NULL, c, &n,
                                            &s) == 0);
    CU_ASSERT_FATAL(n == 3);
    CU_ASSERT(c[0].algo == RTOPO_SHIFT_MESH && c[1].algo == RTOPO_SHIFT_RING &&
              c[2].algo == RTOPO_SHIFT_DIRECT);
    CU_ASSERT(s->algo == RTOPO_SHIFT_DIRECT);
    for (i = 0; i < n; i++) {
        CU_ASSERT(c[i].model_time >= c[2].model_time);
        if (!c[i].evaluated)
            continue;
        CU_ASSERT_FATAL(rtopo__sched_shift(&mesh, c[i].algo, 5, 1 << 20, NULL,
                                           &one) == 0);
        CU_ASSERT_FATAL(rtopo__sim_run(one, NULL, &r) == 0);
        CU_ASSERT_DOUBLE_EQUAL(r.model_time, c[i].model_time, 1e-15);
        CU_ASSERT(r.steps == c[i].steps && r.longest_path == c[i].longest_path &&
                  r.max_link_load == c[i].max_link_load);
        won += c[i].algo == s->algo;
        rtopo__sched_free(one);
    }
    CU_ASSERT(c[0].evaluated && won == 1);
    rtopo__sched_free(s);
    /* q = p/2 on a cube: E-cube takes one link and ties DIRECT; the tie
     * goes to E-cube, DIRECT is not even built */
    CU_ASSERT_FATAL(rtopo__sched_shift_auto(&cube, 4, 1 << 20, NULL, c, &n,
                                            &s) == 0);
    CU_ASSERT(n == 4 && s->algo == RTOPO_SHIFT_ECUBE && c[1].evaluated &&
              c[1].longest_path == 1 && !c[3].evaluated &&
              c[3].model_time == c[1].model_time);
    rtopo__sched_free(s);
    /* q = 0: one candidate, local copies */
    CU_ASSERT_FATAL(rtopo__sched_shift_auto(&cube, -8, 64, NULL, c, &n, &s) == 0);
    CU_ASSERT(n == 1 && c[0].evaluated && s->nhops == 0);
    rtopo__sched_free(s);
    /* NULL outputs are allowed, like rtopo__sched_shift */
    CU_ASSERT_FATAL(rtopo__sched_shift_auto(&cube, 3, 64, NULL, NULL, NULL,
                                            &s) == 0);
    rtopo__sched_free(s);
}

static void test_names(void)
{
    int a;

    for (a = RTOPO_SHIFT_AUTO; a <= RTOPO_SHIFT_DIRECT; a++)
        CU_ASSERT_EQUAL(rtopo__shift_algo_parse(rtopo__shift_algo_name(a)), a);
    CU_ASSERT_STRING_EQUAL(rtopo__shift_algo_name(RTOPO_SHIFT_ECUBE), "ecube");
    CU_ASSERT_EQUAL(rtopo__shift_algo_parse("MESH"), RTOPO_SHIFT_MESH);
    CU_ASSERT(rtopo__shift_algo_parse("torus") < 0);
    CU_ASSERT(rtopo__shift_algo_parse(NULL) < 0);
    CU_ASSERT_STRING_EQUAL(rtopo__shift_algo_name(17), "unknown");
    for (a = 0; a < RTOPO__LINK_COUNT; a++)
        CU_ASSERT_EQUAL(rtopo__link_parse(rtopo__link_name(a)), a);
}

/* the 4096-rank mesh of the brief, built and simulated well under 1 s */
static void test_large_mesh(void)
{
    rtopo__tdesc_t t;
    rtopo__sim_result_t r;
    rtopo__sched_t *s = NULL;

    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_MESH, 4096, 64, 64) == 0);
    CU_ASSERT_FATAL(rtopo__sched_shift(&t, RTOPO_SHIFT_MESH, 32 * 64 + 32,
                                       1 << 20, NULL, &s) == 0);
    CU_ASSERT(rtopo__sched_validate(s) == RTOPO_OK);
    CU_ASSERT(rtopo__sim_run(s, NULL, &r) == RTOPO_OK);
    CU_ASSERT(r.steps == 64 && r.max_link_load == 1);
    rtopo__sched_free(s);
}


/* AUTO with a memory: one evaluation per (q, size class) */
static void test_auto_memo(void)
{
    rtopo__shift_memo_t memo;
    rtopo__tdesc_t t;
    rtopo__sched_t *s;
    rtopo__model_t m;
    int first;

    memset(&memo, 0, sizeof(memo));
    rtopo__model_default(&m);
    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_HYPERCUBE, 16, 4, 0) == 0);
    CU_ASSERT_FATAL(rtopo__sched_shift_memo(&t, &memo, 3, 1000, &m, &s) == 0);
    first = s->algo;
    CU_ASSERT(first != RTOPO_SHIFT_AUTO && rtopo__sched_xlen(s, 0) == 1000);
    rtopo__sched_free(s);
    /* 513..1023 bytes: same class, no new evaluation, same choice, own size */
    CU_ASSERT_FATAL(rtopo__sched_shift_memo(&t, &memo, 3, 600, &m, &s) == 0);
    CU_ASSERT(s->algo == first && rtopo__sched_xlen(s, 0) == 600 && memo.evaluations == 1);
    rtopo__sched_free(s);
    /* q + p is the same shift */
    CU_ASSERT_FATAL(rtopo__sched_shift_memo(&t, &memo, 19, 1023, &m, &s) == 0);
    CU_ASSERT(memo.evaluations == 1);
    rtopo__sched_free(s);
    /* another class, another q: evaluated */
    CU_ASSERT_FATAL(rtopo__sched_shift_memo(&t, &memo, 3, 1024, &m, &s) == 0);
    CU_ASSERT(memo.evaluations == 2);
    rtopo__sched_free(s);
    CU_ASSERT_FATAL(rtopo__sched_shift_memo(&t, &memo, 5, 1000, &m, &s) == 0);
    CU_ASSERT(memo.evaluations == 3);
    rtopo__sched_free(s);
    /* the memo's choice is what AUTO picks for that size */
    CU_ASSERT_FATAL(rtopo__sched_shift(&t, RTOPO_SHIFT_AUTO, 3, 1000, &m, &s) == 0);
    CU_ASSERT(s->algo == first);
    rtopo__sched_free(s);
}

int tu_suite_shift_sched(void)
{
    CU_pSuite s = CU_add_suite("shift_sched", NULL, NULL);

    if (!s || !CU_add_test(s, "names", test_names) ||
        !CU_add_test(s, "mesh 5-shift on 4x4", test_mesh_5shift) ||
        !CU_add_test(s, "mesh square, every q", test_mesh_square) ||
        !CU_add_test(s, "mesh non-square, every q", test_mesh_rect) ||
        !CU_add_test(s, "ring and direct, every q", test_ring) ||
        !CU_add_test(s, "ecube textbook claim on labels",
                     test_ecube_textbook_labels) ||
        !CU_add_test(s, "otis and others: ring, direct, auto", test_other_topos) ||
        !CU_add_test(s, "unsupported", test_unsupported) ||
        !CU_add_test(s, "auto", test_auto) ||
        !CU_add_test(s, "auto candidates", test_auto_candidates) ||
        !CU_add_test(s, "4096-rank mesh", test_large_mesh) ||
        !CU_add_test(s, "auto memo", test_auto_memo))
        return CU_get_error();
    return CUE_SUCCESS;
}
