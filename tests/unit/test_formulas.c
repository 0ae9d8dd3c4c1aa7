/*
 * test_formulas.c - the step, load and path formulas of SPEC 5.1-5.3,
 * checked for every q on every size of the sweep, and a table of what was
 * checked (printed by the last test, for issue notes):
 *
 *   mesh s x s, s = 2..16   MESH: steps <= 2 floor(s/2) + 1, load 1
 *                           RING: steps == min(q, p-q), load 1
 *   cube d = 1..10          HYPERCUBE: steps <= log p, load 1, each step a
 *                           permutation of the ranks (one port)
 *                           ECUBE: load 1, longest path == log p - gamma(q)
 *                           RING (d <= 9): steps == min(q, p-q), load 1
 *   cube d = 11, 12         HYPERCUBE and ECUBE as above, routes only
 *
 * "every q" is 0..p-1 plus -1, -p, -p-3, p, 2p+1, LONG_MAX and LONG_MIN.
 * Up to d = 10 every schedule is validated, simulated (sim_run) and
 * executed in memory (sim_exec) with the placement of every byte checked.
 * At d = 11, 12 that would take minutes, so each schedule is validated
 * (every hop an edge of its class, every route ending at its transfer's
 * destination), its transfers are checked to be SEND+0 -> RECV+0 of
 * (i+q) mod p, and loads come from the one-port count: no rank sends or
 * receives twice in a step, so no link direction carries two packets.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "test_unit.h"

enum { R_MESH, R_MESH_RING, R_CUBE, R_ECUBE, R_CUBE_RING, R_CUBE_L, R_ECUBE_L,
       R_COUNT };

static struct tally {
    const char *topos, *algo, *claim, *how;
    unsigned ntopos;
    unsigned long cases, fails;
} rows[R_COUNT] = {
    [R_MESH] = { "mesh 2x2..16x16", "mesh",
                 "steps <= 2*floor(s/2)+1, load 1", "data" },
    [R_MESH_RING] = { "mesh 2x2..16x16", "ring",
                      "steps == min(q,p-q), load 1", "data" },
    [R_CUBE] = { "cube d 1..10", "hypercube",
                 "steps <= log p, load 1, one-port", "data" },
    [R_ECUBE] = { "cube d 1..10", "ecube",
                  "load 1, longest == log p - gamma(q)", "data" },
    [R_CUBE_RING] = { "cube d 1..9", "ring",
                      "steps == min(q,p-q), load 1", "data" },
    [R_CUBE_L] = { "cube d 11..12", "hypercube",
                   "steps <= log p, load 1, one-port", "routes" },
    [R_ECUBE_L] = { "cube d 11..12", "ecube",
                    "load 1, longest == log p - gamma(q)", "routes" },
};

static int qmod(long q, int p)
{
    return (int)(((q % p) + p) % p);
}

static void tally(int row, int ok)
{
    rows[row].cases++;
    rows[row].fails += !ok;
}

/* per step, how often each rank sends and receives: *exact set when every
 * rank does both exactly once in every step (a permutation); returns 1
 * when nobody does either twice, which bounds every link load by 1 */
static int one_port(const rtopo__sched_t *s, int *exact)
{
    int p = s->topo.p, ok = 1;
    size_t n = (size_t)p * s->nsteps, j;
    uint8_t *snd = calloc(n + 1, 1), *rcv = calloc(n + 1, 1);
    uint32_t i, h;

    CU_ASSERT_FATAL(snd && rcv);
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
        int from = x->src;

        for (h = 0; h < x->nhops; h++) {
            const rtopo__hop_t *hp = &s->hops[x->hop0 + h];

            ok &= ++snd[(size_t)hp->step * p + from] == 1;
            ok &= ++rcv[(size_t)hp->step * p + hp->to] == 1;
            from = hp->to;
        }
    }
    *exact = ok;
    for (j = 0; j < n && *exact; j++)
        *exact = snd[j] == 1 && rcv[j] == 1;
    free(snd);
    free(rcv);
    return ok;
}

static void mesh_square(int s)
{
    rtopo__tdesc_t t;
    rtopo__sim_result_t r;
    tu_bufs_t b;
    long *qs;
    int i, n, p = s * s, bound = 2 * (s / 2) + 1;

    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_MESH, p, s, s) == 0);
    qs = malloc((p + 8) * sizeof(*qs));
    CU_ASSERT_FATAL(qs && tu_bufs_init(&b, p, 8, 0) == 0);
    n = tu_q_values(p, qs);
    rows[R_MESH].ntopos++;
    rows[R_MESH_RING].ntopos++;
    for (i = 0; i < n; i++) {
        int qn = qmod(qs[i], p), k = qn < p - qn ? qn : p - qn, ok;

        ok = !tu_shift_check(&t, RTOPO_SHIFT_MESH, qs[i], &b, &r, NULL);
        ok &= TU_CHECK(r.steps <= (unsigned)bound && r.longest_path <= r.steps &&
                       r.max_link_load == (qn ? 1u : 0u), "mesh %dx%d q %ld: "
                       "%u steps (bound %d), load %u", s, s, qs[i], r.steps,
                       bound, r.max_link_load);
        tally(R_MESH, ok);
        ok = !tu_shift_check(&t, RTOPO_SHIFT_RING, qs[i], &b, &r, NULL);
        ok &= TU_CHECK(r.steps == (unsigned)k && r.longest_path == (unsigned)k &&
                       r.max_link_load == (k ? 1u : 0u), "ring on mesh %dx%d "
                       "q %ld: %u steps, load %u", s, s, qs[i], r.steps,
                       r.max_link_load);
        tally(R_MESH_RING, ok);
    }
    tu_bufs_free(&b);
    free(qs);
}

static void test_mesh(void)
{
    int s;

    for (s = 2; s <= 16; s++)
        mesh_square(s);
}

/* the E-cube route shape: CUBE_ID hops, dimension k crossed at step k,
 * in increasing order */
static int ecube_shape(const rtopo__sched_t *s)
{
    uint32_t i;

    for (i = 0; i < s->nhops; i++)
        if (s->hops[i].link != RTOPO__LINK_CUBE_ID ||
            s->hops[i].dim != s->hops[i].step)
            return 0;
    return 1;
}

static void cube_data(int d, int algo, int row, int len)
{
    rtopo__tdesc_t t;
    rtopo__sim_result_t r;
    rtopo__sched_t *s;
    tu_bufs_t b;
    long *qs;
    int i, n, p = 1 << d;

    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_HYPERCUBE, p, d, 0) == 0);
    qs = malloc((p + 8) * sizeof(*qs));
    CU_ASSERT_FATAL(qs && tu_bufs_init(&b, p, len, 0) == 0);
    n = tu_q_values(p, qs);
    rows[row].ntopos++;
    for (i = 0; i < n; i++) {
        int qn = qmod(qs[i], p), k = qn < p - qn ? qn : p - qn, ok, exact = 0;

        s = NULL;
        ok = !tu_shift_check(&t, algo, qs[i], &b, &r, &s);
        if (!s) {
            tally(row, 0);
            break;
        }
        if (qn && algo != RTOPO_SHIFT_RING)
            ok &= TU_CHECK(one_port(s, &exact), "%s d %d q %d: a rank sends or "
                           "receives twice in a step",
                           rtopo__shift_algo_name(algo), d, qn);
        switch (algo) {
        case RTOPO_SHIFT_HYPERCUBE:
            ok &= TU_CHECK(r.steps <= (unsigned)d && r.longest_path == r.steps &&
                           r.max_link_load == (qn ? 1u : 0u) && (!qn || exact),
                           "cube d %d q %d: %u steps, load %u, permutation %d",
                           d, qn, r.steps, r.max_link_load, exact);
            /* textbook: with backward shifts a 6-shift on 8 nodes is one
             * backward 2-shift, two steps */
            if (d == 3 && qn == 6)
                ok &= TU_CHECK(r.steps == 2, "6-shift on 8: %u steps", r.steps);
            break;
        case RTOPO_SHIFT_ECUBE:
            ok &= TU_CHECK(r.max_link_load == (qn ? 1u : 0u) &&
                           r.longest_path == (qn ? (unsigned)(d - __builtin_ctz(
                               (unsigned)qn)) : 0u) &&
                           r.steps == (qn ? (unsigned)d : 0u) && ecube_shape(s),
                           "ecube d %d q %d: load %u, longest %u (want %d), "
                           "%u steps", d, qn, r.max_link_load, r.longest_path,
                           qn ? d - __builtin_ctz((unsigned)qn) : 0, r.steps);
            break;
        default:
            ok &= TU_CHECK(r.steps == (unsigned)k && r.longest_path == (unsigned)k &&
                           r.max_link_load == (k ? 1u : 0u), "ring on cube d %d "
                           "q %d: %u steps", d, qn, r.steps);
            break;
        }
        tally(row, ok);
        rtopo__sched_free(s);
    }
    tu_bufs_free(&b);
    free(qs);
}

static void test_cube(void)
{
    int d;

    for (d = 1; d <= 10; d++) {
        cube_data(d, RTOPO_SHIFT_HYPERCUBE, R_CUBE, d < 8 ? 9 : 4);
        cube_data(d, RTOPO_SHIFT_ECUBE, R_ECUBE, d < 8 ? 9 : 4);
        if (d <= 9)
            cube_data(d, RTOPO_SHIFT_RING, R_CUBE_RING, 4);
    }
}

/* d = 11, 12: build, validate, check the transfers and the one-port
 * property; no simulation or data */
static void cube_routes(int d, int algo, int row)
{
    rtopo__tdesc_t t;
    rtopo__sched_t *s;
    long *qs;
    int i, j, n, p = 1 << d;

    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_HYPERCUBE, p, d, 0) == 0);
    qs = malloc((p + 8) * sizeof(*qs));
    CU_ASSERT_FATAL(qs != NULL);
    n = tu_q_values(p, qs);
    rows[row].ntopos++;
    for (i = 0; i < n; i++) {
        int qn = qmod(qs[i], p), ok, exact = 0;
        uint32_t longest = 0;

        if (!TU_CHECK(rtopo__sched_shift(&t, algo, qs[i], 8, NULL, &s) ==
                      RTOPO_OK, "%s d %d q %ld: %s", rtopo__shift_algo_name(algo),
                      d, qs[i], rtopo_last_error())) {
            tally(row, 0);
            break;
        }
        ok = TU_CHECK(rtopo__sched_validate(s) == RTOPO_OK && s->nxfers ==
                      (uint32_t)p && s->tmp_bytes == 0, "%s d %d q %d: %s",
                      rtopo__shift_algo_name(algo), d, qn, rtopo_last_error());
        for (j = 0; j < p && ok; j++) {
            const rtopo__xfer_t xv = rtopo__sched_xfer(s, j), *x = &xv;

            ok = x->src == j && x->dst == (j + qn) % p && x->len == 8 &&
                 x->src_buf == RTOPO__BUF_SEND && x->dst_buf == RTOPO__BUF_RECV &&
                 !x->src_off && !x->dst_off;
            longest = x->nhops > longest ? x->nhops : longest;
        }
        ok &= TU_CHECK(ok && (!qn || one_port(s, &exact)), "%s d %d q %d: "
                       "transfer %d or one-port", rtopo__shift_algo_name(algo),
                       d, qn, j - 1);
        if (algo == RTOPO_SHIFT_HYPERCUBE)
            ok &= TU_CHECK(s->nsteps <= (uint32_t)d && longest == s->nsteps &&
                           (!qn || exact), "cube d %d q %d: %u steps, "
                           "permutation %d", d, qn, s->nsteps, exact);
        else
            ok &= TU_CHECK(longest == (qn ? (unsigned)(d - __builtin_ctz(
                               (unsigned)qn)) : 0u) && ecube_shape(s),
                           "ecube d %d q %d: longest %u", d, qn, longest);
        tally(row, ok);
        rtopo__sched_free(s);
    }
    free(qs);
}

static void test_cube_large(void)
{
    int d;

    for (d = 11; d <= 12; d++) {
        cube_routes(d, RTOPO_SHIFT_HYPERCUBE, R_CUBE_L);
        cube_routes(d, RTOPO_SHIFT_ECUBE, R_ECUBE_L);
    }
}

static void test_summary(void)
{
    unsigned long cases = 0, fails = 0;
    int i;

    printf("\n  %-16s %-10s %-37s %6s %7s %5s\n", "topologies", "algo",
           "claim (every q)", "checks", "shifts", "fails");
    for (i = 0; i < R_COUNT; i++) {
        printf("  %-16s %-10s %-37s %6s %7lu %5lu\n", rows[i].topos,
               rows[i].algo, rows[i].claim, rows[i].how, rows[i].cases,
               rows[i].fails);
        cases += rows[i].cases;
        fails += rows[i].fails;
    }
    printf("  %-16s %-10s %-37s %6s %7lu %5lu\n", "total", "", "", "", cases,
           fails);
    CU_ASSERT_EQUAL(fails, 0);
}

int tu_suite_formulas(void)
{
    CU_pSuite s = CU_add_suite("formulas", NULL, NULL);

    if (!s || !CU_add_test(s, "mesh and ring on 2x2..16x16, every q", test_mesh) ||
        !CU_add_test(s, "hypercube, ecube, ring on d 1..10, every q", test_cube) ||
        !CU_add_test(s, "hypercube and ecube routes on d 11..12, every q",
                     test_cube_large) ||
        !CU_add_test(s, "summary", test_summary))
        return CU_get_error();
    return CUE_SUCCESS;
}
