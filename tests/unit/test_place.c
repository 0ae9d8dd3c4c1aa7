/*
 * test_place.c - placement of a topology's labels on ranks by host
 * (topo/place.c): every kind, hosts of even and uneven sizes, ranks given
 * to hosts in blocks and round robin.  The checks are the rule's
 * properties read from the map and the overlay neighbours, not the
 * function's own arithmetic.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "rtopo_place.h"
#include "test_unit.h"

/* host of job rank r of n over h hosts: blocks (as rtopo-run --map-by
 * slot: the first n % h hosts hold one more) or round robin */
static int host_block(int n, int h, int r)
{
    int b = n / h, e = n % h;

    return r < e * (b + 1) ? r / (b + 1) : e + (r - e * (b + 1)) / b;
}

static void hosts_of(int n, int h, int rr, int *hostof)
{
    int r;

    for (r = 0; r < n; r++)
        hostof[r] = rr ? r % h : host_block(n, h, r);
}

/* overlay edges (each once) between labels on different hosts */
static int cross_edges(const rtopo__tdesc_t *t, const int *map, const int *hostof)
{
    int nbr[64], i, k, n, c = 0;

    for (i = 0; i < t->p; i++) {
        n = rtopo__topo_neighbors(t, i, nbr, 64);
        for (k = 0; k < n && k < 64; k++)
            c += nbr[k] > i && hostof[map[i]] != hostof[map[nbr[k]]];
    }
    return c;
}

/* map is a permutation of the base map over the nodes, the host endpoint
 * (if any) kept */
static int is_perm(const rtopo__tdesc_t *t, const int *base, const int *map)
{
    int i, ok = 1, *seen = calloc((size_t)t->p + 1, sizeof(int));

    for (i = 0; i < t->p; i++) {
        ok &= map[i] >= 0 && map[i] <= t->p && !seen[map[i]];
        if (ok)
            seen[map[i]] = 1;
    }
    for (i = 0; i < t->p; i++)
        ok &= seen[base ? base[i] : i];
    if (t->host)
        ok &= map[t->p - 1] == (base ? base[t->p - 1] : t->p - 1);
    free(seen);
    return ok;
}

/* the rule's property for each host's labels */
static int placed_ok(const rtopo__tdesc_t *t, const int *map, const int *hostof)
{
    int P = t->p - (t->host ? 1 : 0), i, j, ok = 1;

    for (i = 0; i < P; i++) {
        int hi = hostof[map[i]], cnt = 0, lo = P, hi_l = -1, inner = 0, nb[64], n, k;

        for (j = 0; j < P; j++)
            if (hostof[map[j]] == hi) {
                cnt++;
                lo = j < lo ? j : lo;
                hi_l = j;
            }
        ok &= hi_l - lo + 1 == cnt;   /* consecutive labels */
        switch (t->kind) {
        case RTOPO__TOPO_MESH:
            ok &= (lo % t->cols == 0 && cnt % t->cols == 0) || lo / t->cols == hi_l / t->cols;
            break;
        case RTOPO__TOPO_HYPERCUBE:
            /* a sub-cube: every node has log2(cnt) cube neighbours on its host */
            n = rtopo__topo_neighbors(t, i, nb, 64);
            for (k = 0; k < n && k < 64; k++)
                inner += nb[k] < P && hostof[map[nb[k]]] == hi;
            ok &= (cnt & (cnt - 1)) == 0 && 1 << inner == cnt;
            break;
        case RTOPO__TOPO_OTIS_MESH:
        case RTOPO__TOPO_OTIS_HYPERCUBE:
            /* the whole group of label i on its host */
            for (j = i / t->n * t->n; j < (i / t->n + 1) * t->n; j++)
                ok &= hostof[map[j]] == hi;
            break;
        default:
            break;
        }
    }
    return ok;
}

/* one case: hosts h, round robin or blocks; expect 1 (placed) or 0
 * (uneven: auto keeps the base map, host mode fails) */
static void one(int kind, int p, int a, int b, int h, int rr, int expect)
{
    rtopo__tdesc_t t;
    int *hostof = malloc(sizeof(int) * (size_t)p), *map = malloc(sizeof(int) * (size_t)p);
    int *id = malloc(sizeof(int) * (size_t)p), st, i;
    char why[256];

    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, kind, p, a, b) == RTOPO_OK);
    hosts_of(p, h, rr, hostof);
    for (i = 0; i < p; i++)
        id[i] = i;
    st = rtopo__place_map(&t, NULL, hostof, RTOPO__PLACE_AUTO, map, why, sizeof(why));
    TU_CHECK(st == expect, "%s p %d over %d hosts (%s): auto gave %d (%s)",
             rtopo__topo_name(kind), p, h, rr ? "round robin" : "blocks", st, why);
    TU_CHECK(is_perm(&t, NULL, map), "%s p %d: not a permutation", rtopo__topo_name(kind), p);
    if (expect == 1) {
        TU_CHECK(placed_ok(&t, map, hostof), "%s p %d over %d hosts (%s): rule broken",
                 rtopo__topo_name(kind), p, h, rr ? "round robin" : "blocks");
        TU_CHECK(cross_edges(&t, map, hostof) <= cross_edges(&t, id, hostof),
                 "%s p %d over %d hosts: more edges across hosts (%d) than by rank (%d)",
                 rtopo__topo_name(kind), p, h, cross_edges(&t, map, hostof),
                 cross_edges(&t, id, hostof));
        /* round robin over as many hosts as a mesh has columns puts a
         * column on each host: as good as rows */
        if (rr && h > 1 && p > h && !(kind == RTOPO__TOPO_MESH && h == b))
            TU_CHECK(cross_edges(&t, map, hostof) < cross_edges(&t, id, hostof),
                     "%s p %d over %d hosts round robin: no fewer edges across hosts",
                     rtopo__topo_name(kind), p, h);
        /* host mode: the same map */
        {
            int *m2 = malloc(sizeof(int) * (size_t)p);

            CU_ASSERT(rtopo__place_map(&t, NULL, hostof, RTOPO__PLACE_HOST, m2, NULL, 0) == 1);
            CU_ASSERT(memcmp(m2, map, sizeof(int) * (size_t)p) == 0);
            free(m2);
        }
    } else {
        for (i = 0; i < p; i++)
            TU_CHECK(map[i] == i, "uneven: label %d on rank %d", i, map[i]);
        TU_CHECK(why[0] != '\0', "no reason given");
        TU_CHECK(rtopo__place_map(&t, NULL, hostof, RTOPO__PLACE_HOST, map, NULL, 0) ==
                 RTOPO_ERR_INVAL, "%s p %d over %d hosts: host mode did not fail",
                 rtopo__topo_name(kind), p, h);
        TU_CHECK(strstr(rtopo_last_error(), "host placement") != NULL, "message: %s",
                 rtopo_last_error());
    }
    /* rank mode: the identity, whatever the hosts */
    CU_ASSERT(rtopo__place_map(&t, NULL, hostof, RTOPO__PLACE_RANK, map, NULL, 0) == 0);
    for (i = 0; i < p; i++)
        TU_CHECK(map[i] == i, "rank mode: label %d on rank %d", i, map[i]);
    free(hostof);
    free(map);
    free(id);
}

static void test_place_even(void)
{
    int rr;

    for (rr = 0; rr < 2; rr++) {
        one(RTOPO__TOPO_OTIS_MESH, 16, 4, 0, 4, rr, 1);
        one(RTOPO__TOPO_OTIS_MESH, 16, 4, 0, 2, rr, 1);    /* two groups a host */
        one(RTOPO__TOPO_OTIS_MESH, 81, 9, 0, 9, rr, 1);
        one(RTOPO__TOPO_OTIS_MESH, 81, 9, 0, 3, rr, 1);
        one(RTOPO__TOPO_OTIS_HYPERCUBE, 16, 4, 0, 4, rr, 1);
        one(RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0, 8, rr, 1);
        one(RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0, 4, rr, 1);
        one(RTOPO__TOPO_MESH, 16, 4, 4, 4, rr, 1);
        one(RTOPO__TOPO_MESH, 16, 4, 4, 2, rr, 1);          /* two rows a host */
        one(RTOPO__TOPO_MESH, 16, 4, 4, 8, rr, 1);          /* half a row a host */
        one(RTOPO__TOPO_MESH, 24, 4, 6, 4, rr, 1);
        one(RTOPO__TOPO_MESH, 24, 6, 4, 3, rr, 1);
        one(RTOPO__TOPO_HYPERCUBE, 16, 4, 0, 4, rr, 1);
        one(RTOPO__TOPO_HYPERCUBE, 16, 4, 0, 2, rr, 1);
        one(RTOPO__TOPO_HYPERCUBE, 32, 5, 0, 8, rr, 1);
        one(RTOPO__TOPO_HYPERCUBE, 64, 6, 0, 16, rr, 1);
        one(RTOPO__TOPO_RING, 16, 0, 0, 4, rr, 1);
        one(RTOPO__TOPO_RING, 10, 0, 0, 3, rr, 1);          /* 4, 3, 3: any sizes */
        one(RTOPO__TOPO_RING, 7, 0, 0, 7, rr, 1);
    }
}

static void test_place_uneven(void)
{
    int rr;

    for (rr = 0; rr < 2; rr++) {
        one(RTOPO__TOPO_OTIS_MESH, 16, 4, 0, 3, rr, 0);     /* 6, 5, 5 */
        one(RTOPO__TOPO_OTIS_HYPERCUBE, 16, 4, 0, 8, rr, 0);/* 2 a host < a group */
        one(RTOPO__TOPO_MESH, 16, 4, 4, 3, rr, 0);
        one(RTOPO__TOPO_MESH, 24, 4, 6, 6, rr, 0);          /* 4 a host: straddles rows */
        one(RTOPO__TOPO_MESH, 24, 4, 6, 8, rr, 1);          /* 3 a host: half rows */
        one(RTOPO__TOPO_HYPERCUBE, 16, 4, 0, 3, rr, 0);
        one(RTOPO__TOPO_HYPERCUBE, 32, 5, 0, 5, rr, 0);
    }
}

/* one host, and hosts of different power-of-two sizes on a hypercube
 * (the largest first: every block aligned) */
static void test_place_mixed(void)
{
    rtopo__tdesc_t t;
    int hostof[16], map[16], i, r;
    char why[128];

    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_OTIS_MESH, 16, 4, 0) == RTOPO_OK);
    for (r = 0; r < 16; r++)
        hostof[r] = 7;
    CU_ASSERT(rtopo__place_map(&t, NULL, hostof, RTOPO__PLACE_HOST, map, why, sizeof(why)) == 0);
    for (i = 0; i < 16; i++)
        CU_ASSERT(map[i] == i);
    /* hypercube of 16: 4 ranks on host A (ranks 0, 3, 6, 9), 8 on host B,
     * 4 on host C, given in no order */
    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_HYPERCUBE, 16, 4, 0) == RTOPO_OK);
    for (r = 0; r < 16; r++)
        hostof[r] = (r % 3 == 0 && r < 12) ? 10 : r == 2 || r == 4 || r == 8 || r == 10 ? 30 : 20;
    {
        int cnt[3] = { 0, 0, 0 };

        for (r = 0; r < 16; r++)
            cnt[hostof[r] / 10 - 1]++;
        CU_ASSERT_FATAL(cnt[0] == 4 && cnt[1] == 8 && cnt[2] == 4);
    }
    CU_ASSERT(rtopo__place_map(&t, NULL, hostof, RTOPO__PLACE_AUTO, map, why, sizeof(why)) == 1);
    CU_ASSERT(is_perm(&t, NULL, map));
    TU_CHECK(placed_ok(&t, map, hostof), "mixed hypercube: rule broken");
    /* ring of 10 over 3 hosts of 5, 3, 2 ranks */
    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_RING, 10, 0, 0) == RTOPO_OK);
    for (r = 0; r < 10; r++)
        hostof[r] = r % 2 == 0 ? 0 : r < 6 ? 1 : 2;
    CU_ASSERT(rtopo__place_map(&t, NULL, hostof, RTOPO__PLACE_HOST, map, why, sizeof(why)) == 1);
    TU_CHECK(placed_ok(&t, map, hostof), "ring: a host's ranks not consecutive");
    CU_ASSERT(cross_edges(&t, map, hostof) == 3);
    /* bad arguments */
    CU_ASSERT(rtopo__place_map(&t, NULL, hostof, 9, map, NULL, 0) == RTOPO_ERR_INVAL);
    CU_ASSERT(rtopo__place_map(&t, NULL, NULL, RTOPO__PLACE_AUTO, map, NULL, 0) ==
              RTOPO_ERR_INVAL);
    CU_ASSERT(rtopo__place_parse("host") == RTOPO__PLACE_HOST);
    CU_ASSERT(rtopo__place_parse("rank") == RTOPO__PLACE_RANK);
    CU_ASSERT(rtopo__place_parse("auto") == RTOPO__PLACE_AUTO);
    CU_ASSERT(rtopo__place_parse("Host") < 0 && rtopo__place_parse(NULL) < 0);
}

/* a hypercube fed by a host rank outside the cube: the host keeps its
 * label (the last) and job rank, the nodes are placed as a cube */
static void test_place_cube_host(void)
{
    rtopo__tdesc_t t;
    int base[9], hostof[9], map[9], r, i, h = 4, rr;

    for (rr = 0; rr < 2; rr++) {
        CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_HYPERCUBE, 8, 3, 0) == RTOPO_OK);
        CU_ASSERT_FATAL(rtopo__tdesc_add_host(&t) == RTOPO_OK);
        for (r = 0; r < 8; r++)
            base[r] = r < h ? r : r + 1;
        base[8] = h;
        for (r = 0; r < 9; r++) {
            i = r < h ? r : r - 1;
            hostof[r] = r == h ? 2 : rr ? i % 2 : i / 4;
        }
        CU_ASSERT(rtopo__place_map(&t, base, hostof, RTOPO__PLACE_HOST, map, NULL, 0) == 1);
        CU_ASSERT(map[8] == h);
        CU_ASSERT(is_perm(&t, base, map));
        TU_CHECK(placed_ok(&t, map, hostof), "cube with a host (%s): rule broken",
                 rr ? "round robin" : "blocks");
        for (r = 0; r < 8; r++)
            CU_ASSERT(map[r] != h);
        /* uneven nodes: 3 and 5 */
        for (r = 0; r < 9; r++)
            hostof[r] = r == h ? 2 : r < 3 ? 0 : 1;
        CU_ASSERT(rtopo__place_map(&t, base, hostof, RTOPO__PLACE_AUTO, map, NULL, 0) == 0);
        CU_ASSERT(memcmp(map, base, sizeof(map)) == 0);
    }
}

/* auto under a model: the map whose links between hosts are fewer (a
 * model without reach figures), or cost less (one with them), of the rank
 * and the host placement; a tie keeps the host placement.  Constructed
 * case: a 2 x 8 mesh (rows are rings of 8) whose job ranks 0-3 and 8-11
 * are on one host, 4-7 and 12-15 on the other: in rank order each host
 * holds the left or right half of both rows, 4 links between hosts (the
 * row links at columns 3|4 and 7|0); by host each host holds a row, 8
 * links between hosts (every column). */
static void test_place_auto(void)
{
    static const int kinds[][3] = {   /* kind, a, b */
        { RTOPO__TOPO_MESH, 2, 8 }, { RTOPO__TOPO_MESH, 4, 4 }, { RTOPO__TOPO_MESH, 8, 2 },
        { RTOPO__TOPO_RING, 0, 0 }, { RTOPO__TOPO_HYPERCUBE, 4, 0 },
        { RTOPO__TOPO_OTIS_MESH, 4, 0 }, { RTOPO__TOPO_OTIS_HYPERCUBE, 4, 0 },
    };
    rtopo__tdesc_t t;
    rtopo__model_t m, dear, cheap;
    int hostof[16], map[16], hmap[16], id[16], r, k, lay, st, cr, ch;
    char why[256];

    for (r = 0; r < 16; r++)
        id[r] = r;
    rtopo__model_default(&m);
    rtopo__model_default(&dear);        /* inter-host dearer, as measured */
    CU_ASSERT_FATAL(rtopo__model_parse("intra.ts=3us,intra.tw=0.1ns,inter.ts=12us,"
                                       "inter.tw=0.3ns", &dear) == RTOPO_OK);
    rtopo__model_default(&cheap);       /* inter-host cheaper: the other way */
    CU_ASSERT_FATAL(rtopo__model_parse("intra.ts=12us,intra.tw=0.3ns,inter.ts=3us,"
                                       "inter.tw=0.1ns", &cheap) == RTOPO_OK);

    /* the constructed case */
    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_MESH, 16, 2, 8) == RTOPO_OK);
    for (r = 0; r < 16; r++)
        hostof[r] = r / 4 % 2;
    CU_ASSERT_FATAL(rtopo__place_map(&t, NULL, hostof, RTOPO__PLACE_HOST, hmap, NULL, 0) == 1);
    CU_ASSERT_EQUAL(cross_edges(&t, id, hostof), 4);
    CU_ASSERT_EQUAL(cross_edges(&t, hmap, hostof), 8);
    CU_ASSERT_DOUBLE_EQUAL(rtopo__place_cost(&t, id, hostof, &m), 4, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(rtopo__place_cost(&t, hmap, hostof, &m), 8, 1e-12);
    st = rtopo__place_auto(&t, NULL, hostof, &m, map, why, sizeof(why));
    TU_CHECK(st == 0 && !memcmp(map, id, sizeof(id)), "mesh 2x8: auto did not keep the "
             "rank placement (4 links between hosts against 8): %d, %s", st, why);
    CU_ASSERT(strstr(why, "rank placement") != NULL);
    CU_ASSERT(rtopo__place_auto(&t, NULL, hostof, &dear, map, NULL, 0) == 0);
    CU_ASSERT(!memcmp(map, id, sizeof(id)));
    /* where a link between hosts costs less than one inside, the host map
     * (more of them) wins */
    CU_ASSERT(rtopo__place_auto(&t, NULL, hostof, &cheap, map, NULL, 0) == 1);
    CU_ASSERT(!memcmp(map, hmap, sizeof(hmap)));
    /* without a model: auto as rtopo__place_map's */
    CU_ASSERT(rtopo__place_auto(&t, NULL, hostof, NULL, map, NULL, 0) == 1);
    CU_ASSERT(!memcmp(map, hmap, sizeof(hmap)));
    /* a tie (4 x 4 on 4 hosts round robin: 16 links between hosts either
     * way, different maps) keeps the host placement */
    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_MESH, 16, 4, 4) == RTOPO_OK);
    hosts_of(16, 4, 1, hostof);
    CU_ASSERT_FATAL(rtopo__place_map(&t, NULL, hostof, RTOPO__PLACE_HOST, hmap, NULL, 0) == 1);
    CU_ASSERT_EQUAL(cross_edges(&t, id, hostof), cross_edges(&t, hmap, hostof));
    CU_ASSERT(memcmp(id, hmap, sizeof(id)) != 0);
    CU_ASSERT(rtopo__place_auto(&t, NULL, hostof, &m, map, NULL, 0) == 1);
    CU_ASSERT(!memcmp(map, hmap, sizeof(hmap)));

    /* every kind on 16 ranks, hosts in blocks, round robin and in blocks of
     * 4 alternating over 2 hosts: auto never has more links between hosts
     * than either placement, and it is the host map or the rank map */
    for (k = 0; k < (int)(sizeof(kinds) / sizeof(kinds[0])); k++) {
        CU_ASSERT_FATAL(rtopo__tdesc_init(&t, kinds[k][0], 16, kinds[k][1],
                                          kinds[k][2]) == RTOPO_OK);
        for (lay = 0; lay < 5; lay++) {
            for (r = 0; r < 16; r++)
                hostof[r] = lay == 0 ? r / 8 : lay == 1 ? r % 2 : lay == 2 ? r / 4 % 2 :
                            lay == 3 ? r % 4 : r / 4;
            if (rtopo__place_map(&t, NULL, hostof, RTOPO__PLACE_HOST, hmap, NULL, 0) != 1)
                continue;
            cr = cross_edges(&t, id, hostof);
            ch = cross_edges(&t, hmap, hostof);
            st = rtopo__place_auto(&t, NULL, hostof, &m, map, why, sizeof(why));
            TU_CHECK(st == (cr < ch ? 0 : 1) && !memcmp(map, cr < ch ? id : hmap, sizeof(id)),
                     "kind %d layout %d: auto %d with %d links between hosts by rank, %d by "
                     "host (%s)", kinds[k][0], lay, st, cr, ch, why);
            CU_ASSERT(cross_edges(&t, map, hostof) == (cr < ch ? cr : ch));
            /* the measured-like model decides alike */
            CU_ASSERT(rtopo__place_auto(&t, NULL, hostof, &dear, map, NULL, 0) == st);
        }
    }
}

int tu_suite_place(void)
{
    CU_pSuite s = CU_add_suite("place", NULL, NULL);

    if (!s || !CU_add_test(s, "even hosts", test_place_even) ||
        !CU_add_test(s, "uneven hosts", test_place_uneven) ||
        !CU_add_test(s, "one host, mixed sizes", test_place_mixed) ||
        !CU_add_test(s, "hypercube with a host", test_place_cube_host) ||
        !CU_add_test(s, "auto under a model", test_place_auto))
        return CU_get_error();
    return CUE_SUCCESS;
}
