/*
 * test_cart.c - the Cartesian view (cart_sched.c): coordinates and lines
 * of every topology kind, shifts along one dimension (one displacement,
 * and a displacement per line from a*L + b) with their step counts and
 * link loads, the in-place form, sub-topology descriptors and labels.
 * Every schedule is validated, simulated and executed in memory.
 */
#include "config.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rtopo.h"
#include "test_unit.h"

static int imin(int a, int b) { return a < b ? a : b; }
static int imod(long v, int m) { return (int)(((v % m) + m) % m); }

static void tdesc(rtopo__tdesc_t *t, int kind, int p, int a, int b)
{
    CU_ASSERT_FATAL(rtopo__tdesc_init(t, kind, p, a, b) == RTOPO_OK);
}

/* ---- coordinates and lines ---------------------------------------------- */

static void coords_check(const rtopo__tdesc_t *t)
{
    int nd = rtopo__cart_ndims(t), c[RTOPO__MAX_DIMS], nbr[64], r, j, k, pos;
    int nodes = t->p - (t->host ? 1 : 0);

    CU_ASSERT_FATAL(nd >= 0 && nd <= RTOPO__MAX_DIMS);
    for (r = 0; r < nodes; r++) {
        if (!TU_CHECK(rtopo__cart_coords(t, r, c) == RTOPO_OK, "%s p %d rank %d: %s",
                      rtopo__topo_name(t->kind), t->p, r, rtopo_last_error()))
            return;
        for (j = 0; j < nd; j++)
            TU_CHECK(c[j] >= 0 && c[j] < rtopo__cart_extent(t, j), "coordinate range");
        TU_CHECK(rtopo__cart_rank(t, c) == r, "%s p %d: rank %d round trip gives %d",
                 rtopo__topo_name(t->kind), t->p, r, rtopo__cart_rank(t, c));
        for (j = 0; j < nd; j++) {
            int E = rtopo__cart_extent(t, j), L = rtopo__cart_line(t, j, r, &pos);
            int nn = rtopo__topo_neighbors(t, r, nbr, 64), step, m, found;

            TU_CHECK(L >= 0 && L < rtopo__cart_nlines(t, j) && pos == c[j], "line of %d", r);
            TU_CHECK(rtopo__cart_member(t, j, L, pos) == r, "member of line %d", L);
            /* ring, mesh and cube lines run along overlay links */
            if (E < 2 || t->kind == RTOPO__TOPO_OTIS_MESH ||
                t->kind == RTOPO__TOPO_OTIS_HYPERCUBE)
                continue;
            for (step = -1; step <= 1; step += 2) {
                m = rtopo__cart_member(t, j, L, imod(pos + step, E));
                for (k = 0, found = 0; k < nn; k++)
                    found |= nbr[k] == m;
                TU_CHECK(found, "%s p %d: rank %d and %d (dim %d) are not neighbours",
                         rtopo__topo_name(t->kind), t->p, r, m, j);
            }
        }
    }
    /* every line holds extent ranks, and lines partition the ranks */
    for (j = 0; j < nd; j++) {
        int E = rtopo__cart_extent(t, j), nl = rtopo__cart_nlines(t, j), L;
        char *seen = calloc((size_t)nodes, 1);

        CU_ASSERT_FATAL(seen != NULL);
        TU_CHECK(nl * E == nodes, "%d lines of %d for %d ranks", nl, E, nodes);
        for (L = 0; L < nl; L++)
            for (pos = 0; pos < E; pos++) {
                r = rtopo__cart_member(t, j, L, pos);
                if (TU_CHECK(r >= 0 && r < nodes && !seen[r], "line %d pos %d: %d", L, pos, r))
                    seen[r] = 1;
            }
        free(seen);
    }
}

static void test_coords(void)
{
    rtopo__tdesc_t t;
    int p, r, c, d, n, co[RTOPO__MAX_DIMS];

    for (p = 1; p <= 9; p++) {
        tdesc(&t, RTOPO__TOPO_RING, p, 0, 0);
        coords_check(&t);
    }
    for (r = 1; r <= 6; r++)
        for (c = 1; c <= 6; c++) {
            tdesc(&t, RTOPO__TOPO_MESH, r * c, r, c);
            coords_check(&t);
        }
    for (d = 0; d <= 7; d++) {
        tdesc(&t, RTOPO__TOPO_HYPERCUBE, 1 << d, d, 0);
        coords_check(&t);
    }
    for (n = 1; n <= 16; n++) {
        int s = 1;

        while (s * s < n)
            s++;
        if (s * s == n) {
            tdesc(&t, RTOPO__TOPO_OTIS_MESH, n * n, n, 0);
            coords_check(&t);
        }
        if (!(n & (n - 1))) {
            tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, n * n, n, 0);
            coords_check(&t);
        }
    }
    /* the documented coordinates */
    tdesc(&t, RTOPO__TOPO_MESH, 12, 3, 4);
    CU_ASSERT(rtopo__cart_ndims(&t) == 2 && rtopo__cart_extent(&t, 0) == 3 &&
              rtopo__cart_extent(&t, 1) == 4);
    CU_ASSERT(rtopo__cart_coords(&t, 7, co) == 0 && co[0] == 1 && co[1] == 3);
    CU_ASSERT(rtopo__cart_line(&t, 1, 7, NULL) == 1);     /* row shift: line = row */
    CU_ASSERT(rtopo__cart_line(&t, 0, 7, NULL) == 3);     /* column shift: the column */
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 8, 3, 0);
    CU_ASSERT(rtopo__cart_coords(&t, 5, co) == 0);        /* gray(5) = 7 */
    CU_ASSERT(co[0] == 1 && co[1] == 1 && co[2] == 1);
    co[0] = 0;                                             /* node 6 = gray(4) */
    CU_ASSERT(rtopo__cart_rank(&t, co) == 4);
    CU_ASSERT(rtopo__cart_line(&t, 1, 5, NULL) == 3);     /* node 7 without bit 1 */
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 16 * 16, 16, 0);
    CU_ASSERT(rtopo__cart_coords(&t, 9 * 16 + 6, co) == 0);   /* G 9, P 6 */
    CU_ASSERT(co[0] == 2 && co[1] == 1 && co[2] == 1 && co[3] == 2);
    tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0);
    CU_ASSERT(rtopo__cart_coords(&t, 8 * 5 + 3, co) == 0 && co[0] == 5 && co[1] == 3);
    /* errors name what is wrong */
    tdesc(&t, RTOPO__TOPO_MESH, 6, 2, 3);
    co[0] = 1;
    co[1] = 3;
    CU_ASSERT(rtopo__cart_rank(&t, co) == RTOPO_ERR_INVAL);
    CU_ASSERT(strstr(rtopo_last_error(), "coordinate 1 is 3, not in 0..2") != NULL);
    CU_ASSERT(rtopo__cart_coords(&t, 6, co) == RTOPO_ERR_INVAL);
    CU_ASSERT(rtopo__cart_extent(&t, 2) == RTOPO_ERR_INVAL);
    CU_ASSERT(rtopo__cart_extent(&t, -1) == RTOPO_ERR_INVAL);
    CU_ASSERT(rtopo__cart_coords(&t, 0, NULL) == RTOPO_ERR_INVAL);
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 4, 2, 0);
    CU_ASSERT_FATAL(rtopo__tdesc_add_host(&t) == RTOPO_OK);
    CU_ASSERT(rtopo__cart_ndims(&t) == 2);
    CU_ASSERT(rtopo__cart_coords(&t, 3, co) == RTOPO_OK);
    CU_ASSERT(rtopo__cart_coords(&t, 4, co) == RTOPO_ERR_INVAL);   /* the host */
}

/* ---- dimension shifts --------------------------------------------------- */

/* Builds, validates, simulates and executes a dimension shift and checks
 * every rank's data landed at position + disp(line) of its line.  In
 * place: no SEND buffer at all, the data starts and ends in RECV.
 * Returns 0 when all is well (failures recorded). */
static int ds_check(const rtopo__tdesc_t *t, const rtopo__dimshift_t *ds, uint64_t len,
                    rtopo__sim_result_t *r, rtopo__sched_t **s_p)
{
    rtopo__sched_t *s = NULL;
    tu_bufs_t b;
    uint64_t size[RTOPO__BUF_COUNT], k, tmp;
    int p = t->p, i, ok = 1, E = rtopo__cart_extent(t, ds->dim);
    const char *name = rtopo__topo_name(t->kind);

    if (!TU_CHECK(rtopo__sched_shift_dim(t, ds, &s) == RTOPO_OK, "%s p %d dim %d a %ld "
                  "b %ld: %s", name, p, ds->dim, ds->a, ds->b, rtopo_last_error()))
        return -1;
    ok &= TU_CHECK(rtopo__sched_validate(s) == RTOPO_OK, "%s p %d dim %d a %ld b %ld: "
                   "invalid: %s", name, p, ds->dim, ds->a, ds->b, rtopo_last_error());
    ok &= TU_CHECK(rtopo__sim_run(s, NULL, r) == RTOPO_OK, "sim_run");
    tmp = s->tmp_bytes;
    CU_ASSERT_FATAL(tu_bufs_init(&b, p, len, tmp) == 0);
    tu_bufs_fill(&b);
    size[RTOPO__BUF_SEND] = len;
    size[RTOPO__BUF_RECV] = len;
    size[RTOPO__BUF_TMP] = tmp;
    if (ds->chunk) {
        size[RTOPO__BUF_SEND] = 0;
        for (i = 0; i < p; i++) {
            b.bufs[i][RTOPO__BUF_SEND] = NULL;
            for (k = 0; k < len; k++)
                b.bufs[i][RTOPO__BUF_RECV][k] = tu_pattern(i, k);
        }
    }
    ok &= TU_CHECK(rtopo__sim_exec_sized(s, (uint8_t *const *const *)b.bufs, size) ==
                   RTOPO_OK, "sim_exec: %s", rtopo_last_error());
    r->correct = 1;
    for (i = 0; i < p && r->correct; i++) {
        int pos, L = rtopo__cart_line(t, ds->dim, i, &pos);
        int d = rtopo__dimshift_disp(t, ds, L);
        int dst = rtopo__cart_member(t, ds->dim, L, (pos + d) % E);

        for (k = 0; k < len; k++)
            if (b.bufs[dst][RTOPO__BUF_RECV][k] != tu_pattern(i, k)) {
                r->correct = 0;
                ok &= TU_CHECK(0, "%s p %d dim %d a %ld b %ld%s: rank %d's byte %llu "
                               "misplaced at rank %d", name, p, ds->dim, ds->a, ds->b,
                               ds->chunk ? " in place" : "", i, (unsigned long long)k, dst);
                break;
            }
    }
    tu_bufs_free(&b);
    if (s_p)
        *s_p = s;
    else
        rtopo__sched_free(s);
    return ok ? 0 : -1;
}

/* lock-step steps of a ring line shifted by d: the shorter way round */
static int ring_steps(int d, int E)
{
    d = imod(d, E);
    return imin(d, E - d);
}

/* every displacement from -(E+1) to 2E+1 along both dimensions of every
 * mesh up to 16 x 16 (every residue at least twice, negative ones) */
static void test_mesh_every_disp(void)
{
    rtopo__sim_result_t r;
    rtopo__tdesc_t t;
    int R, C, dim, d;

    for (R = 1; R <= 16; R++)
        for (C = 1; C <= 16; C++) {
            tdesc(&t, RTOPO__TOPO_MESH, R * C, R, C);
            for (dim = 0; dim < 2; dim++) {
                int E = dim ? C : R, moving = 0;

                for (d = -(E + 1); d <= 2 * E + 1; d++) {
                    rtopo__dimshift_t ds = { dim, 0, d, 3, 0, 0 };
                    int k = ring_steps(d, E);

                    if (ds_check(&t, &ds, 3, &r, NULL))
                        return;
                    moving = k > 0;
                    TU_CHECK(r.steps == (unsigned)k && r.longest_path == (unsigned)k &&
                             r.max_link_load == (unsigned)moving, "mesh %dx%d dim %d "
                             "disp %d: %u steps (want %d), path %u, load %u", R, C, dim, d,
                             r.steps, k, r.longest_path, r.max_link_load);
                    TU_CHECK(r.moves[dim ? RTOPO__LINK_ROW : RTOPO__LINK_COL] ==
                             (uint64_t)R * C * k && r.moves[RTOPO__LINK_LOCAL] ==
                             (uint64_t)(k ? 0 : R * C), "mesh %dx%d dim %d disp %d: moves",
                             R, C, dim, d);
                }
            }
        }
}

/* a displacement per line: the skew of Cannon (row i by -i, column j by
 * -j) and other rules, extremes included; still one packet per link
 * direction and step */
static void test_mesh_rules(void)
{
    static const long ab[][2] = {
        { -1, 0 }, { 1, 0 }, { 2, 1 }, { -3, 5 }, { 7, -2 },
        { INT_MAX, INT_MIN }, { LONG_MIN, LONG_MAX }
    };
    rtopo__sim_result_t r;
    rtopo__tdesc_t t;
    int R, C, dim, L;
    unsigned i;

    for (R = 1; R <= 16; R += (R < 8 ? 1 : 4))
        for (C = 1; C <= 16; C += (C < 8 ? 1 : 4)) {
            tdesc(&t, RTOPO__TOPO_MESH, R * C, R, C);
            for (dim = 0; dim < 2; dim++)
                for (i = 0; i < sizeof(ab) / sizeof(ab[0]); i++) {
                    rtopo__dimshift_t ds = { dim, ab[i][0], ab[i][1], 5, 0, 0 };
                    int E = dim ? C : R, want = 0;

                    for (L = 0; L < rtopo__cart_nlines(&t, dim); L++)
                        if (ring_steps(rtopo__dimshift_disp(&t, &ds, L), E) > want)
                            want = ring_steps(rtopo__dimshift_disp(&t, &ds, L), E);
                    if (ds_check(&t, &ds, 5, &r, NULL))
                        return;
                    TU_CHECK(r.steps == (unsigned)want && r.max_link_load == (want ? 1u : 0u),
                             "mesh %dx%d dim %d a %ld b %ld: %u steps (want %d), load %u",
                             R, C, dim, ab[i][0], ab[i][1], r.steps, want, r.max_link_load);
                }
        }
    /* Cannon's skew on 4 x 4: row i goes i to the left */
    {
        rtopo__dimshift_t ds = { 1, -1, 0, 8, 0, 0 };

        tdesc(&t, RTOPO__TOPO_MESH, 16, 4, 4);
        for (L = 0; L < 4; L++)
            CU_ASSERT(rtopo__dimshift_disp(&t, &ds, L) == (4 - L) % 4);
        CU_ASSERT(ds_check(&t, &ds, 8, &r, NULL) == 0);
        CU_ASSERT(r.steps == 2 && r.max_link_load == 1);
    }
}

/* rings: dimension 0 is the whole ring; cubes: every dimension of cubes
 * up to d = 10, every displacement residue, and the parity rule */
static void test_ring_cube(void)
{
    rtopo__sim_result_t r;
    rtopo__tdesc_t t;
    int p, d, k, q, L;

    for (p = 1; p <= 12; p++) {
        tdesc(&t, RTOPO__TOPO_RING, p, 0, 0);
        for (q = -p - 1; q <= 2 * p + 1; q++) {
            rtopo__dimshift_t ds = { 0, 0, q, 2, 0, 0 };

            if (ds_check(&t, &ds, 2, &r, NULL))
                return;
            TU_CHECK(r.steps == (unsigned)ring_steps(q, p) && r.max_link_load ==
                     (ring_steps(q, p) ? 1u : 0u), "ring %d disp %d: %u steps", p, q,
                     r.steps);
        }
    }
    for (d = 0; d <= 10; d++) {
        tdesc(&t, RTOPO__TOPO_HYPERCUBE, 1 << d, d, 0);
        for (k = 0; k < d; k++) {
            for (q = -1; q <= 3; q++) {
                rtopo__dimshift_t ds = { k, 0, q, 2, 0, 0 };
                int odd = q & 1;

                if (ds_check(&t, &ds, 2, &r, NULL))
                    return;
                TU_CHECK(r.steps == (unsigned)odd && r.max_link_load == (unsigned)odd &&
                         r.moves[RTOPO__LINK_CUBE] == (uint64_t)(odd << d),
                         "cube %d dim %d disp %d: %u steps, load %u", d, k, q, r.steps,
                         r.max_link_load);
            }
            {
                /* odd lines swap, even ones stay */
                rtopo__dimshift_t ds = { k, 1, 0, 2, 0, 0 };
                uint64_t want = 0;

                for (L = 0; L < rtopo__cart_nlines(&t, k); L++)
                    want += 2 * (uint64_t)(L & 1);
                if (ds_check(&t, &ds, 2, &r, NULL))
                    return;
                TU_CHECK(r.moves[RTOPO__LINK_CUBE] == want && r.max_link_load ==
                         (want ? 1u : 0u), "cube %d dim %d parity rule", d, k);
            }
        }
    }
}

/* OTIS: P lines straight along the in-group mesh (max(d, s-d) steps, no
 * OTIS move), G lines between two OTIS moves; OTIS-hypercube by E-cube */
static void test_otis(void)
{
    rtopo__sim_result_t r;
    rtopo__tdesc_t t;
    int n, dim, d, lg;

    for (n = 1; n <= 16; n *= 4) {
        int s = n == 1 ? 1 : n == 4 ? 2 : 4;

        tdesc(&t, RTOPO__TOPO_OTIS_MESH, n * n, n, 0);
        for (dim = 0; dim < 4; dim++)
            for (d = -1; d <= s; d++) {
                rtopo__dimshift_t ds = { dim, 0, d, 3, 0, 0 };
                int dm = imod(d, s), want = dm ? (dm > s - dm ? dm : s - dm) : 0;

                if (ds_check(&t, &ds, 3, &r, NULL))
                    return;
                if (dim >= 2)
                    TU_CHECK(r.steps == (unsigned)want && r.moves[RTOPO__LINK_OTIS] == 0,
                             "otis-mesh %d dim %d disp %d: %u steps", n, dim, d, r.steps);
                else
                    TU_CHECK(r.steps == (unsigned)(want ? want + 2 : 0) &&
                             r.longest_path <= (unsigned)want + 2, "otis-mesh %d dim %d "
                             "disp %d: %u steps", n, dim, d, r.steps);
                TU_CHECK(r.max_link_load <= 1, "otis-mesh %d dim %d disp %d: load %u", n,
                         dim, d, r.max_link_load);
            }
        {
            rtopo__dimshift_t ds = { 3, 1, 1, 3, 0, 0 };

            if (ds_check(&t, &ds, 3, &r, NULL))
                return;
            TU_CHECK(r.max_link_load <= 1, "otis-mesh rule: load %u", r.max_link_load);
        }
    }
    for (n = 1, lg = 0; n <= 8; n *= 2, lg++) {
        tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, n * n, n, 0);
        for (dim = 0; dim < 2; dim++)
            for (d = 0; d < n; d++) {
                rtopo__dimshift_t ds = { dim, 0, d, 3, 0, 0 };
                int want = d ? lg - __builtin_ctz((unsigned)d) : 0;

                if (ds_check(&t, &ds, 3, &r, NULL))
                    return;
                TU_CHECK(r.max_link_load <= 1 && (r.moves[RTOPO__LINK_CUBE] > 0) == (d > 0),
                         "otis-hypercube %d dim %d disp %d: load %u", n, dim, d,
                         r.max_link_load);
                if (dim == 1)
                    TU_CHECK(r.longest_path == (unsigned)want, "otis-hypercube %d dim 1 "
                             "disp %d: path %u, want %d", n, d, r.longest_path, want);
            }
    }
}

/* the edges that make in place safe whatever the timing: on the
 * destination, the copy of the range a piece lands on comes first (WAR);
 * on the source, the piece leaves after its copy into TMP (RAW) */
static int inplace_edges_ok(const rtopo__sched_t *s)
{
    uint32_t i, j, k;

    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t yv = rtopo__sched_xfer(s, i), *y = &yv;
        int war = 0, raw = 0;

        if (!y->nhops)
            continue;
        for (k = 0; k < s->ndeps; k++) {
            const rtopo__dep_t *e = &s->deps[k];
            const rtopo__xfer_t cv = rtopo__sched_xfer(s, e->pred), *c = &cv;

            if (e->succ != i || e->pred >= s->nxfers || c->nhops)
                continue;
            war |= e->rank == y->dst && e->kind == RTOPO__DEP_WAR &&
                   c->src_buf == RTOPO__BUF_RECV && c->src_off == y->dst_off;
            raw |= e->rank == y->src && e->kind == RTOPO__DEP_RAW &&
                   c->dst_buf == RTOPO__BUF_TMP && c->dst_off == y->src_off;
        }
        if (!TU_CHECK(war && raw, "in place: piece %u (%d -> %d, %s) lacks its %s edge", i,
                      y->src, y->dst, rtopo__topo_name(s->topo.kind), war ? "RAW" : "WAR"))
            return 0;
        /* the next copy into the same slot waits for this piece to leave */
        for (j = i + 1; j < s->nxfers; j++) {
            const rtopo__xfer_t cv = rtopo__sched_xfer(s, j), *c = &cv;

            if (c->nhops || c->src != y->src || c->dst_off != y->src_off)
                continue;
            for (k = 0; k < s->ndeps; k++)
                if (s->deps[k].pred == i && s->deps[k].succ == j &&
                    s->deps[k].kind == RTOPO__DEP_WAR)
                    break;
            if (!TU_CHECK(k < s->ndeps, "in place: slot of piece %u reused too early", i))
                return 0;
            break;
        }
    }
    return 1;
}

/* In place: no SEND, pieces through TMP slots.  Placement under the
 * simulator's event order, TMP bounded by the slots, the lock-step count
 * K*n + 1 with the load still 1. */
static void test_inplace(void)
{
    static const struct { uint64_t len, chunk; uint32_t slots; } cfg[] = {
        { 10, 3, 2 }, { 10, 3, 1 }, { 7, 7, 1 }, { 7, 100, 4 }, { 64, 8, 3 }, { 0, 4, 2 }
    };
    rtopo__sim_result_t r, r0;
    rtopo__sched_t *s;
    rtopo__tdesc_t t;
    unsigned c;
    int R, C, dim, d, k, i;

    for (c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
        uint64_t K = cfg[c].len ? (cfg[c].len + cfg[c].chunk - 1) / cfg[c].chunk : 1;
        uint64_t tmax = K <= cfg[c].slots ? cfg[c].len : cfg[c].slots * cfg[c].chunk;

        for (R = 1; R <= 5; R++)
            for (C = 1; C <= 5; C++) {
                tdesc(&t, RTOPO__TOPO_MESH, R * C, R, C);
                for (dim = 0; dim < 2; dim++)
                    for (d = -2; d <= 3; d++) {
                        rtopo__dimshift_t ds = { dim, 0, d, cfg[c].len, cfg[c].chunk,
                                                 cfg[c].slots };
                        rtopo__dimshift_t d0 = { dim, 0, d, cfg[c].len, 0, 0 };
                        int n0 = ring_steps(d, dim ? C : R);

                        if (ds_check(&t, &ds, cfg[c].len, &r, &s))
                            return;
                        if (cfg[c].len && !inplace_edges_ok(s))
                            return;
                        rtopo__sched_free(s);
                        if (ds_check(&t, &d0, cfg[c].len, &r0, NULL))
                            return;
                        TU_CHECK(r.steps == (n0 ? K * n0 + 1 : 0) && r.max_link_load ==
                                 (n0 ? 1u : 0u), "mesh %dx%d dim %d disp %d in place "
                                 "(%llu in %llu): %u steps, load %u", R, C, dim, d,
                                 (unsigned long long)cfg[c].len,
                                 (unsigned long long)cfg[c].chunk, r.steps, r.max_link_load);
                    }
            }
        /* cubes and a skew rule */
        for (k = 0; k < 4; k++) {
            rtopo__dimshift_t ds = { k, 1, 1, cfg[c].len, cfg[c].chunk, cfg[c].slots };

            tdesc(&t, RTOPO__TOPO_HYPERCUBE, 16, 4, 0);
            if (ds_check(&t, &ds, cfg[c].len, &r, &s))
                return;
            for (i = 0; i < 16; i++)
                TU_CHECK(rtopo__sched_tmp(s, i) <= tmax, "TMP %llu above %llu",
                         (unsigned long long)rtopo__sched_tmp(s, i),
                         (unsigned long long)tmax);
            rtopo__sched_free(s);
        }
        {
            rtopo__dimshift_t ds = { 1, -1, 0, cfg[c].len, cfg[c].chunk, cfg[c].slots };

            tdesc(&t, RTOPO__TOPO_MESH, 36, 6, 6);
            if (ds_check(&t, &ds, cfg[c].len, &r, &s))
                return;
            TU_CHECK(r.max_link_load <= 1, "skew in place: load %u", r.max_link_load);
            /* row 0 stays: its ranks need no TMP */
            TU_CHECK(rtopo__sched_tmp(s, 0) == 0 && rtopo__sched_tmp(s, 6) <= tmax,
                     "skew in place: TMP");
            rtopo__sched_free(s);
        }
    }
    /* only SEND[0,len) -> RECV[0,len) schedules can be made in place */
    tdesc(&t, RTOPO__TOPO_RING, 4, 0, 0);
    CU_ASSERT_FATAL(rtopo__sched_shift(&t, RTOPO_SHIFT_RING, 1, 8, NULL, &s) == RTOPO_OK);
    TU_XFIELD(s, 1, dst_off, 1);
    CU_ASSERT(rtopo__sched_inplace(&s, 4, 2) == RTOPO_ERR_INVAL);
    CU_ASSERT(rtopo__sched_inplace(&s, 0, 2) == RTOPO_ERR_INVAL);
    rtopo__sched_free(s);
}

/* ---- sub-topologies ----------------------------------------------------- */

/* every piece's labels are 0..sub.p-1 once each, neighbours inside a
 * piece are ranks of the piece; on meshes and cubes they are also
 * overlay neighbours of the parent */
static void sub_check(const rtopo__tdesc_t *t, unsigned keep, int want_kind, int want_p)
{
    rtopo__tdesc_t sub;
    int p = t->p, r, i, *lab, *pc, *inv, npieces, sn[64], pn[64];

    if (!TU_CHECK(rtopo__cart_sub(t, keep, &sub) == RTOPO_OK, "%s p %d keep 0x%x: %s",
                  rtopo__topo_name(t->kind), p, keep, rtopo_last_error()))
        return;
    TU_CHECK(sub.kind == want_kind && sub.p == want_p, "%s p %d keep 0x%x: %s of %d",
             rtopo__topo_name(t->kind), p, keep, rtopo__topo_name(sub.kind), sub.p);
    npieces = p / sub.p;
    lab = malloc((size_t)p * sizeof(*lab));
    pc = malloc((size_t)p * sizeof(*pc));
    inv = malloc((size_t)p * sizeof(*inv));
    CU_ASSERT_FATAL(lab && pc && inv);
    for (i = 0; i < p; i++)
        inv[i] = -1;
    for (r = 0; r < p; r++) {
        lab[r] = rtopo__cart_sub_label(t, keep, r, &pc[r]);
        if (!TU_CHECK(lab[r] >= 0 && lab[r] < sub.p && pc[r] >= 0 && pc[r] < npieces,
                      "rank %d: label %d piece %d", r, lab[r], pc[r]))
            goto out;
        if (!TU_CHECK(inv[pc[r] * sub.p + lab[r]] < 0, "label %d twice in piece %d",
                      lab[r], pc[r]))
            goto out;
        inv[pc[r] * sub.p + lab[r]] = r;
    }
    for (r = 0; r < p; r++) {
        int ns = rtopo__topo_neighbors(&sub, lab[r], sn, 64);
        int np = rtopo__topo_neighbors(t, r, pn, 64), j, k, found;

        for (j = 0; j < ns; j++) {
            int m = inv[pc[r] * sub.p + sn[j]];

            for (k = 0, found = 0; k < np; k++)
                found |= pn[k] == m;
            if (t->kind == RTOPO__TOPO_OTIS_MESH ||
                (t->kind == RTOPO__TOPO_OTIS_HYPERCUBE && keep == 1))
                found = 1;     /* wraparound the groups lack; G through OTIS links */
            TU_CHECK(found, "%s p %d keep 0x%x: rank %d's sub neighbour %d is not a "
                     "neighbour", rtopo__topo_name(t->kind), p, keep, r, m);
        }
    }
out:
    free(lab);
    free(pc);
    free(inv);
}

static void test_sub(void)
{
    rtopo__tdesc_t t, sub;
    int d, m, piece;

    tdesc(&t, RTOPO__TOPO_MESH, 12, 3, 4);
    sub_check(&t, 2, RTOPO__TOPO_RING, 4);      /* rows */
    sub_check(&t, 1, RTOPO__TOPO_RING, 3);      /* columns */
    sub_check(&t, 3, RTOPO__TOPO_MESH, 12);
    sub_check(&t, 0, RTOPO__TOPO_RING, 1);
    CU_ASSERT(rtopo__cart_sub_label(&t, 2, 7, &piece) == 3 && piece == 1);
    CU_ASSERT(rtopo__cart_sub_label(&t, 1, 7, &piece) == 1 && piece == 3);
    tdesc(&t, RTOPO__TOPO_RING, 5, 0, 0);
    sub_check(&t, 1, RTOPO__TOPO_RING, 5);
    for (d = 0; d <= 5; d++) {
        tdesc(&t, RTOPO__TOPO_HYPERCUBE, 1 << d, d, 0);
        for (m = 0; m < (1 << d); m++)
            sub_check(&t, (unsigned)m, __builtin_popcount((unsigned)m) ||
                      d == 0 ? RTOPO__TOPO_HYPERCUBE : RTOPO__TOPO_RING,
                      1 << __builtin_popcount((unsigned)m));
    }
    tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0);
    sub_check(&t, 2, RTOPO__TOPO_HYPERCUBE, 8);     /* a group */
    sub_check(&t, 1, RTOPO__TOPO_HYPERCUBE, 8);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 256, 16, 0);
    sub_check(&t, 0xc, RTOPO__TOPO_MESH, 16);       /* a group: Px, Py */
    sub_check(&t, 0x8, RTOPO__TOPO_RING, 4);
    sub_check(&t, 0xf, RTOPO__TOPO_OTIS_MESH, 256);
    CU_ASSERT(rtopo__cart_sub(&t, 0x7, &sub) == RTOPO_ERR_UNSUPPORTED);
    CU_ASSERT(rtopo__cart_sub(&t, 0x10, &sub) == RTOPO_ERR_INVAL);
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 4, 2, 0);
    CU_ASSERT_FATAL(rtopo__tdesc_add_host(&t) == RTOPO_OK);
    CU_ASSERT(rtopo__cart_sub(&t, 1, &sub) == RTOPO_ERR_UNSUPPORTED);
    {
        rtopo__dimshift_t ds = { 0, 0, 1, 8, 0, 0 };
        rtopo__sched_t *s;

        CU_ASSERT(rtopo__sched_shift_dim(&t, &ds, &s) == RTOPO_ERR_UNSUPPORTED);
        tdesc(&t, RTOPO__TOPO_MESH, 4, 2, 2);
        ds.dim = 2;
        CU_ASSERT(rtopo__sched_shift_dim(&t, &ds, &s) == RTOPO_ERR_INVAL);
    }
}

int tu_suite_cart(void)
{
    CU_pSuite s = CU_add_suite("cart", NULL, NULL);

    if (!s || !CU_add_test(s, "coordinates and lines", test_coords) ||
        !CU_add_test(s, "mesh: every disp up to 16x16", test_mesh_every_disp) ||
        !CU_add_test(s, "mesh: displacement rules (skew)", test_mesh_rules) ||
        !CU_add_test(s, "ring, cube up to d=10", test_ring_cube) ||
        !CU_add_test(s, "OTIS-mesh, OTIS-hypercube", test_otis) ||
        !CU_add_test(s, "in place through TMP", test_inplace) ||
        !CU_add_test(s, "sub-topologies", test_sub))
        return CU_get_error();
    return CUE_SUCCESS;
}
