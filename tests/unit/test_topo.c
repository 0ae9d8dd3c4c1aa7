/*
 * test_topo.c - descriptors, size errors, neighbours, Gray codes, edges.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "test_unit.h"

static void test_gray(void)
{
    uint32_t i, d;

    for (i = 0; i < (1u << 16); i++) {
        TU_CHECK(rtopo__gray_inv(rtopo__gray(i)) == i, "gray_inv(gray(%u))", i);
        TU_CHECK(rtopo__gray(rtopo__gray_inv(i)) == i, "gray(gray_inv(%u))", i);
    }
    for (i = 0; i < 100000; i++) {
        uint32_t v = i * 2654435761u;

        TU_CHECK(rtopo__gray_inv(rtopo__gray(v)) == v, "gray_inv 0x%x", v);
    }
    /* bijection on 0..2^d-1, neighbours on the linear array (including
     * the wraparound) differ in one bit, ranks 2^k apart (k >= 1) in two */
    for (d = 1; d <= 12; d++) {
        uint32_t p = 1u << d, k;
        uint8_t *seen = calloc(p, 1);

        for (i = 0; i < p; i++) {
            uint32_t g = rtopo__gray(i);

            TU_CHECK(g < p && !seen[g], "gray not a bijection on %u", p);
            seen[g] = 1;
            TU_CHECK(__builtin_popcount(g ^ rtopo__gray((i + 1) % p)) == 1,
                     "gray(%u), gray(%u) d %u", i, (i + 1) % p, d);
            for (k = 1; k < d; k++)
                TU_CHECK(__builtin_popcount(g ^ rtopo__gray((i + (1u << k)) % p))
                         == 2, "ranks %u and %u+2^%u", i, i, k);
        }
        free(seen);
    }
}

static int init(rtopo__tdesc_t *t, int kind, int p, int a, int b)
{
    return rtopo__tdesc_init(t, kind, p, a, b);
}

static void test_tdesc_ok(void)
{
    rtopo__tdesc_t t;

    CU_ASSERT_EQUAL(init(&t, RTOPO__TOPO_RING, 1, 0, 0), RTOPO_OK);
    CU_ASSERT_EQUAL(t.p, 1);
    CU_ASSERT_EQUAL(init(&t, RTOPO__TOPO_MESH, 6, 2, 3), RTOPO_OK);
    CU_ASSERT(t.rows == 2 && t.cols == 3 && t.p == 6);
    CU_ASSERT_EQUAL(init(&t, RTOPO__TOPO_MESH, 1, 1, 1), RTOPO_OK);
    CU_ASSERT_EQUAL(init(&t, RTOPO__TOPO_HYPERCUBE, 1, 0, 0), RTOPO_OK);
    CU_ASSERT_EQUAL(t.dim, 0);
    CU_ASSERT_EQUAL(init(&t, RTOPO__TOPO_HYPERCUBE, 1024, 10, 0), RTOPO_OK);
    CU_ASSERT_EQUAL(t.dim, 10);
    CU_ASSERT_EQUAL(init(&t, RTOPO__TOPO_OTIS_MESH, 16, 4, 0), RTOPO_OK);
    CU_ASSERT_EQUAL(t.n, 4);
    CU_ASSERT_EQUAL(init(&t, RTOPO__TOPO_OTIS_MESH, 81, 9, 0), RTOPO_OK);
    CU_ASSERT_EQUAL(init(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0), RTOPO_OK);
    CU_ASSERT(t.n == 8 && t.dim == 3);
    CU_ASSERT_EQUAL(init(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 1, 1, 0), RTOPO_OK);
    CU_ASSERT_STRING_EQUAL(rtopo__topo_name(RTOPO__TOPO_OTIS_MESH), "otis-mesh");
}

static void expect(int status, int want, const char *needle)
{
    TU_CHECK(status == want, "status %d, want %d (%s)", status, want,
             rtopo_last_error());
    if (needle)
        TU_CHECK(strstr(rtopo_last_error(), needle) != NULL,
                 "message '%s' lacks '%s'", rtopo_last_error(), needle);
}

static void test_tdesc_errors(void)
{
    rtopo__tdesc_t t;

    memset(&t, 0x5a, sizeof(t));
    expect(init(&t, RTOPO__TOPO_RING, 0, 0, 0), RTOPO_ERR_INVAL, NULL);
    expect(init(&t, RTOPO__TOPO_MESH, 6, 0, 6), RTOPO_ERR_INVAL, NULL);
    expect(init(&t, RTOPO__TOPO_MESH, 6, 2, -3), RTOPO_ERR_INVAL, NULL);
    expect(init(&t, RTOPO__TOPO_MESH, 6, 3, 3), RTOPO_ERR_TOPO, "2x3");
    expect(init(&t, RTOPO__TOPO_MESH, 6, 3, 3), RTOPO_ERR_TOPO, "6x1");
    expect(init(&t, RTOPO__TOPO_MESH, 6, 3, 3), RTOPO_ERR_TOPO, "ring");
    expect(init(&t, RTOPO__TOPO_HYPERCUBE, 6, 3, 0), RTOPO_ERR_TOPO,
           "4 (dim 2), 8 (dim 3)");
    expect(init(&t, RTOPO__TOPO_HYPERCUBE, 6, 3, 0), RTOPO_ERR_TOPO, "3x2");
    expect(init(&t, RTOPO__TOPO_HYPERCUBE, 16, 3, 0), RTOPO_ERR_TOPO, "dim 4");
    expect(init(&t, RTOPO__TOPO_HYPERCUBE, 8, -1, 0), RTOPO_ERR_INVAL, NULL);
    expect(init(&t, RTOPO__TOPO_HYPERCUBE, 8, 31, 0), RTOPO_ERR_INVAL, NULL);
    expect(init(&t, RTOPO__TOPO_OTIS_MESH, 9, 3, 0), RTOPO_ERR_TOPO,
           "perfect square");
    expect(init(&t, RTOPO__TOPO_OTIS_MESH, 20, 4, 0), RTOPO_ERR_TOPO,
           "16 (n 4)");
    expect(init(&t, RTOPO__TOPO_OTIS_MESH, 16, 0, 0), RTOPO_ERR_INVAL, NULL);
    expect(init(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 36, 6, 0), RTOPO_ERR_TOPO,
           "power of two");
    expect(init(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 32, 4, 0), RTOPO_ERR_TOPO,
           "job has 32");
    expect(init(&t, 42, 8, 0, 0), RTOPO_ERR_INVAL, NULL);
    expect(init(NULL, RTOPO__TOPO_RING, 8, 0, 0), RTOPO_ERR_INVAL, NULL);
    /* failures leave the descriptor alone */
    CU_ASSERT_EQUAL(t.p, 0x5a5a5a5a);
}

/* every topology kind over a range of sizes */
static int each_topo(int idx, rtopo__tdesc_t *t)
{
    static const int spec[][4] = {
        { RTOPO__TOPO_RING, 1, 0, 0 }, { RTOPO__TOPO_RING, 2, 0, 0 },
        { RTOPO__TOPO_RING, 3, 0, 0 }, { RTOPO__TOPO_RING, 17, 0, 0 },
        { RTOPO__TOPO_MESH, 1, 1, 1 }, { RTOPO__TOPO_MESH, 2, 1, 2 },
        { RTOPO__TOPO_MESH, 4, 2, 2 }, { RTOPO__TOPO_MESH, 6, 2, 3 },
        { RTOPO__TOPO_MESH, 5, 5, 1 }, { RTOPO__TOPO_MESH, 16, 4, 4 },
        { RTOPO__TOPO_MESH, 35, 5, 7 }, { RTOPO__TOPO_MESH, 9, 3, 3 },
        { RTOPO__TOPO_HYPERCUBE, 1, 0, 0 }, { RTOPO__TOPO_HYPERCUBE, 2, 1, 0 },
        { RTOPO__TOPO_HYPERCUBE, 8, 3, 0 }, { RTOPO__TOPO_HYPERCUBE, 64, 6, 0 },
        { RTOPO__TOPO_OTIS_MESH, 1, 1, 0 }, { RTOPO__TOPO_OTIS_MESH, 16, 4, 0 },
        { RTOPO__TOPO_OTIS_MESH, 81, 9, 0 },
        { RTOPO__TOPO_OTIS_HYPERCUBE, 4, 2, 0 },
        { RTOPO__TOPO_OTIS_HYPERCUBE, 16, 4, 0 },
        { RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0 },
    };

    if (idx >= (int)(sizeof(spec) / sizeof(spec[0])))
        return 0;
    CU_ASSERT_FATAL(rtopo__tdesc_init(t, spec[idx][0], spec[idx][1],
                                      spec[idx][2], spec[idx][3]) == RTOPO_OK);
    return 1;
}

static int has(const int *v, int n, int x)
{
    int i;

    for (i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

static int expected_degree(const rtopo__tdesc_t *t, int r)
{
    int g, pp, s, row, col, deg;

    switch (t->kind) {
    case RTOPO__TOPO_RING:
        return t->p >= 3 ? 2 : t->p - 1;
    case RTOPO__TOPO_MESH:
        return (t->cols >= 3 ? 2 : t->cols - 1) + (t->rows >= 3 ? 2 : t->rows - 1);
    case RTOPO__TOPO_HYPERCUBE:
        return t->dim;
    case RTOPO__TOPO_OTIS_MESH:
        g = r / t->n;
        pp = r % t->n;
        for (s = 1; s * s < t->n; s++)
            ;
        row = pp / s;
        col = pp % s;
        deg = (row > 0) + (row < s - 1) + (col > 0) + (col < s - 1);
        return deg + (g != pp);
    default:
        return t->dim + (r / t->n != r % t->n);
    }
}

static void test_neighbors(void)
{
    rtopo__tdesc_t t;
    int idx, r, i, nb[64], nb2[64];

    for (idx = 0; each_topo(idx, &t); idx++) {
        for (r = 0; r < t.p; r++) {
            int n = rtopo__topo_neighbors(&t, r, nb, 64);

            TU_CHECK(n == expected_degree(&t, r), "%s p %d rank %d: %d "
                     "neighbours, want %d", rtopo__topo_name(t.kind), t.p, r, n,
                     expected_degree(&t, r));
            for (i = 0; i < n; i++) {
                int m;

                TU_CHECK(nb[i] >= 0 && nb[i] < t.p && nb[i] != r &&
                         !has(nb, i, nb[i]), "%s rank %d neighbour %d",
                         rtopo__topo_name(t.kind), r, nb[i]);
                m = rtopo__topo_neighbors(&t, nb[i], nb2, 64);
                TU_CHECK(has(nb2, m, r), "%s p %d: %d -> %d not symmetric",
                         rtopo__topo_name(t.kind), t.p, r, nb[i]);
            }
            /* truncated output still reports the full count */
            if (n > 1)
                TU_CHECK(rtopo__topo_neighbors(&t, r, nb2, 1) == n &&
                         nb2[0] == nb[0], "truncated query");
        }
        CU_ASSERT_EQUAL(rtopo__topo_neighbors(&t, t.p, nb, 64), RTOPO_ERR_INVAL);
    }
}

/* hop_ok over the overlay classes accepts exactly the neighbour pairs */
static void test_edges(void)
{
    static const int cls[] = { RTOPO__LINK_ROW, RTOPO__LINK_COL,
                               RTOPO__LINK_CUBE, RTOPO__LINK_OTIS };
    rtopo__tdesc_t t;
    rtopo__hop_t h;
    int idx, a, b, c, dir, dim, nb[64];

    memset(&h, 0, sizeof(h));
    for (idx = 0; each_topo(idx, &t); idx++) {
        if (t.p > 64)
            continue;
        for (a = 0; a < t.p; a++) {
            int n = rtopo__topo_neighbors(&t, a, nb, 64);

            for (b = 0; b < t.p; b++) {
                int ok = 0;

                h.to = b;
                for (c = 0; c < 4; c++)
                    for (dir = -1; dir <= 1; dir++)
                        for (dim = 0; dim < 8; dim++) {
                            h.link = (uint8_t)cls[c];
                            h.dir = (int8_t)dir;
                            h.dim = (uint8_t)dim;
                            ok |= rtopo__topo_hop_ok(&t, a, &h);
                        }
                if (t.kind == RTOPO__TOPO_RING) {
                    for (dir = -1; dir <= 1; dir += 2) {
                        h.link = RTOPO__LINK_RING;
                        h.dir = (int8_t)dir;
                        ok |= rtopo__topo_hop_ok(&t, a, &h);
                    }
                }
                TU_CHECK(ok == has(nb, n, b), "%s p %d: edge %d -> %d is %d",
                         rtopo__topo_name(t.kind), t.p, a, b, ok);
                /* ring hops are accepted everywhere, direct ones too */
                h.link = RTOPO__LINK_RING;
                h.dir = 1;
                TU_CHECK(rtopo__topo_hop_ok(&t, a, &h) ==
                         (t.p > 1 && b == (a + 1) % t.p && b != a),
                         "ring hop %d -> %d", a, b);
                h.link = RTOPO__LINK_DIRECT;
                h.dir = 0;
                TU_CHECK(rtopo__topo_hop_ok(&t, a, &h) == (a != b), "direct");
                h.link = RTOPO__LINK_LOCAL;
                TU_CHECK(!rtopo__topo_hop_ok(&t, a, &h), "local as a hop");
            }
        }
    }
}

/* CUBE_ID (identity-embedded cube, E-cube routes): exactly the pairs
 * r, r ^ 2^dim with dim < d on a hypercube, and nowhere else */
/* RTOPO_MODEL / rtopo-sim --model lists: units, class prefixes, errors,
 * and the printed form parses back to the same model */
static void test_model_parse(void)
{
    static const char *const bad[] = {
        "ts", "ts=", "ts=-1", "ts=1x", "tw=nan", "nosuch=1", "warp.ts=1",
        "ports=1025", "ports=-1", "ports=2.5", "host.ports=1", "chunk=0", "chunk=1.5",
        "bw=0", "bw=1T", "tk=inf", "ts=1us,tw", ""
    };
    rtopo__model_t m, m2;
    char text[1024];
    size_t i;
    int c;

    rtopo__model_default(&m);
    CU_ASSERT_EQUAL(rtopo__model_parse("ts=2us,tw=0.5ns,host.ts=7ms,cube-id.th=3e-6,"
                                       "bw=2G,direct.bw=500M,chunk=64k,ports=0,tk=1ns",
                                       &m), RTOPO_OK);
    CU_ASSERT_DOUBLE_EQUAL(m.ts[RTOPO__LINK_RING], 2e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(m.ts[RTOPO__LINK_HOST], 7e-3, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(m.ts[RTOPO__LINK_LOCAL], 0.0, 0.0);   /* not named */
    CU_ASSERT_DOUBLE_EQUAL(m.th[RTOPO__LINK_CUBE_ID], 3e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(m.th[RTOPO__LINK_RING], -1.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(m.tw[RTOPO__LINK_CUBE], 0.5e-9, 1e-18);   /* bw came later */
    CU_ASSERT_DOUBLE_EQUAL(m.tw[RTOPO__LINK_RING], 0.5e-9, 1e-18);
    CU_ASSERT_DOUBLE_EQUAL(m.tw[RTOPO__LINK_DIRECT], 2e-9, 1e-18);
    CU_ASSERT_EQUAL(m.chunk, 65536);
    CU_ASSERT_EQUAL(m.ports, 0);
    CU_ASSERT_DOUBLE_EQUAL(m.tk, 1e-9, 1e-18);
    CU_ASSERT_EQUAL_FATAL(rtopo__model_str(&m, text, sizeof(text)), 0);
    rtopo__model_default(&m2);
    CU_ASSERT_EQUAL_FATAL(rtopo__model_parse(text, &m2), RTOPO_OK);
    for (c = 0; c < RTOPO__LINK_COUNT; c++) {
        CU_ASSERT_DOUBLE_EQUAL(m2.ts[c], m.ts[c], m.ts[c] * 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(m2.tw[c], m.tw[c], m.tw[c] * 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(m2.th[c], m.th[c], m.th[c] < 0 ? 0.0 : m.th[c] * 1e-3);
    }
    CU_ASSERT_EQUAL(m2.chunk, m.chunk);
    CU_ASSERT_EQUAL(m2.ports, m.ports);
    CU_ASSERT_EQUAL(rtopo__model_str(&m, text, 10), -1);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        rtopo__model_default(&m);
        TU_CHECK(rtopo__model_parse(bad[i], &m) == RTOPO_ERR_INVAL && rtopo_last_error()[0],
                 "'%s' accepted", bad[i]);
    }
}

/* intra./inter. keys: the reach parameters, set bits, the unprefixed
 * keys over the reach parameters already set, printing only what is set
 * and the printed form parsing back */
static void test_model_reach_parse(void)
{
    static const char *const bad[] = {
        "intra.ports=1", "inter.chunk=4k", "inter.ts=-1", "intra.bw=0", "extra.ts=1us",
        "inter.tk=1ns", "intra.xx=1"
    };
    rtopo__model_t m, m2;
    char text[1024], plain[1024];
    size_t i;
    int r;

    rtopo__model_default(&m);
    CU_ASSERT_EQUAL(m.reach_set[RTOPO__REACH_INTRA], 0);
    CU_ASSERT_EQUAL(m.reach_set[RTOPO__REACH_INTER], 0);
    /* nothing set: the printed list is today's, without reach keys */
    CU_ASSERT_EQUAL_FATAL(rtopo__model_str(&m, plain, sizeof(plain)), 0);
    CU_ASSERT_PTR_NULL(strstr(plain, "intra"));
    CU_ASSERT_PTR_NULL(strstr(plain, "inter"));
    /* an unprefixed key sets no reach parameter that is not set */
    CU_ASSERT_EQUAL(rtopo__model_parse("ts=3us", &m), RTOPO_OK);
    CU_ASSERT_EQUAL(m.reach_set[RTOPO__REACH_INTRA], 0);
    CU_ASSERT_EQUAL(rtopo__model_parse("intra.ts=1us,inter.bw=100M,INTER.ts=40us,"
                                       "inter.th=-1", &m), RTOPO_OK);
    CU_ASSERT_EQUAL(m.reach_set[RTOPO__REACH_INTRA], RTOPO__RSET_TS);
    CU_ASSERT_EQUAL(m.reach_set[RTOPO__REACH_INTER],
                    RTOPO__RSET_TS | RTOPO__RSET_TW | RTOPO__RSET_TH);
    CU_ASSERT_DOUBLE_EQUAL(m.reach_ts[RTOPO__REACH_INTRA], 1e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(m.reach_ts[RTOPO__REACH_INTER], 40e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(m.reach_tw[RTOPO__REACH_INTER], 1e-8, 1e-18);
    CU_ASSERT_DOUBLE_EQUAL(m.reach_th[RTOPO__REACH_INTER], -1.0, 0.0);
    /* the classes are untouched by reach keys */
    CU_ASSERT_DOUBLE_EQUAL(m.ts[RTOPO__LINK_RING], 3e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(m.tw[RTOPO__LINK_RING], 1e-9, 1e-18);
    /* unprefixed ts: every class and the reach ts already set, no tw */
    CU_ASSERT_EQUAL(rtopo__model_parse("ts=2us", &m), RTOPO_OK);
    CU_ASSERT_DOUBLE_EQUAL(m.reach_ts[RTOPO__REACH_INTRA], 2e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(m.reach_ts[RTOPO__REACH_INTER], 2e-6, 1e-15);
    CU_ASSERT_EQUAL(m.reach_set[RTOPO__REACH_INTRA], RTOPO__RSET_TS);
    CU_ASSERT_EQUAL(rtopo__model_parse("inter.ts=40us,intra.tw=0.1ns,intra.th=0.5us", &m),
                    RTOPO_OK);
    CU_ASSERT_EQUAL_FATAL(rtopo__model_str(&m, text, sizeof(text)), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "intra.ts=2us"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "inter.th=-1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "intra.th=0.5us"));
    rtopo__model_default(&m2);
    CU_ASSERT_EQUAL_FATAL(rtopo__model_parse(text, &m2), RTOPO_OK);
    for (r = 0; r < RTOPO__REACH_COUNT; r++) {
        CU_ASSERT_EQUAL(m2.reach_set[r], m.reach_set[r]);
        CU_ASSERT_DOUBLE_EQUAL(m2.reach_ts[r], m.reach_ts[r], m.reach_ts[r] * 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(m2.reach_tw[r], m.reach_tw[r], m.reach_tw[r] * 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(m2.reach_th[r], m.reach_th[r],
                               m.reach_th[r] < 0 ? 0.0 : m.reach_th[r] * 1e-3);
    }
    /* too small a buffer for the reach keys */
    CU_ASSERT_EQUAL(rtopo__model_str(&m, text, strlen(plain) + 4), -1);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        rtopo__model_default(&m);
        TU_CHECK(rtopo__model_parse(bad[i], &m) == RTOPO_ERR_INVAL && rtopo_last_error()[0],
                 "'%s' accepted", bad[i]);
    }
}

/* lanes: hops that move at once in the whole schedule (one machine) */
static void test_model_lanes(void)
{
    rtopo__tdesc_t t;
    rtopo__sched_t *s;
    rtopo__model_t m;
    rtopo__sim_result_t r;
    double one = 5e-6 + 1000 * 1e-9;
    int lanes;

    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_RING, 4, 0, 0) == 0);
    /* a ring shift by 1: four one-hop transfers on four links, one step */
    CU_ASSERT_FATAL(rtopo__sched_shift(&t, RTOPO_SHIFT_RING, 1, 1000, NULL, &s) == 0);
    for (lanes = 0; lanes <= 5; lanes++) {
        int waves = lanes ? (4 + lanes - 1) / lanes : 1;

        rtopo__model_default(&m);
        m.lanes = lanes;
        CU_ASSERT_EQUAL_FATAL(rtopo__sim_run(s, &m, &r), 0);
        TU_CHECK(r.model_time > waves * one * 0.999 && r.model_time < waves * one * 1.001,
                 "lanes %d: %g s, expected %g", lanes, r.model_time, waves * one);
    }
    rtopo__model_default(&m);
    CU_ASSERT_EQUAL(rtopo__model_parse("lanes=3", &m), RTOPO_OK);
    CU_ASSERT_EQUAL(m.lanes, 3);
    CU_ASSERT_EQUAL(rtopo__model_parse("lanes=-1", &m), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo__model_parse("ring.lanes=1", &m), RTOPO_ERR_INVAL);
    rtopo__sched_free(s);
}

static void test_edges_cube_id(void)
{
    rtopo__tdesc_t t;
    rtopo__hop_t h;
    int idx, a, b, dim;

    memset(&h, 0, sizeof(h));
    h.link = RTOPO__LINK_CUBE_ID;
    for (idx = 0; each_topo(idx, &t); idx++) {
        for (a = 0; a < t.p; a++)
            for (b = 0; b < t.p; b++)
                for (dim = 0; dim < 32; dim++) {
                    int want = t.kind == RTOPO__TOPO_HYPERCUBE && dim < t.dim &&
                               (a ^ b) == (1 << dim);

                    h.to = b;
                    h.dim = (uint8_t)dim;
                    if (!TU_CHECK(rtopo__topo_hop_ok(&t, a, &h) == want,
                                  "%s p %d: cube-id %d -> %d dim %d",
                                  rtopo__topo_name(t.kind), t.p, a, b, dim))
                        return;
                }
    }
    /* the two cube classes differ: 0 -> 3 is a Gray link (dim 1), not an
     * identity one; 0 -> 2 the other way round */
    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_HYPERCUBE, 4, 2, 0) == 0);
    h.to = 3;
    h.dim = 1;
    CU_ASSERT(!rtopo__topo_hop_ok(&t, 0, &h));
    h.link = RTOPO__LINK_CUBE;
    CU_ASSERT(rtopo__topo_hop_ok(&t, 0, &h));
    h.to = 2;
    CU_ASSERT(!rtopo__topo_hop_ok(&t, 0, &h));
    h.link = RTOPO__LINK_CUBE_ID;
    CU_ASSERT(rtopo__topo_hop_ok(&t, 0, &h));
    CU_ASSERT_STRING_EQUAL(rtopo__link_name(RTOPO__LINK_CUBE_ID), "cube-id");
}

int tu_suite_topo(void)
{
    CU_pSuite s = CU_add_suite("topo", NULL, NULL);

    if (!s || !CU_add_test(s, "gray code", test_gray) ||
        !CU_add_test(s, "descriptors", test_tdesc_ok) ||
        !CU_add_test(s, "size errors", test_tdesc_errors) ||
        !CU_add_test(s, "neighbours", test_neighbors) ||
        !CU_add_test(s, "edges", test_edges) ||
        !CU_add_test(s, "identity cube edges", test_edges_cube_id) ||
        !CU_add_test(s, "cost model lists", test_model_parse) ||
        !CU_add_test(s, "cost model lists: reach keys", test_model_reach_parse) ||
        !CU_add_test(s, "cost model lanes", test_model_lanes))
        return CU_get_error();
    return CUE_SUCCESS;
}
