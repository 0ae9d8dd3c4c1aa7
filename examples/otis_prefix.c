/*
 * otis_prefix.c - broadcast, prefix sums and a global sum on an OTIS-mesh
 * of ranks with rtopo.
 *
 * Build against an installed rtopo and run on n*n ranks, n a perfect
 * square (16 ranks: 4 groups of 2 x 2; 81 ranks: 9 groups of 3 x 3):
 *
 *   cc -O2 otis_prefix.c $(pkg-config --cflags --libs rtopo) -o otis_prefix
 *   rtopo-run -n 16 ./otis_prefix            (or: mpirun -n 16 ./otis_prefix)
 *   rtopo-run -n 16 ./otis_prefix auto       (one algorithm only: auto, topo
 *                                             or generic)
 *
 * The OTIS-mesh has n groups of n processors; inside a group they form a
 * sqrt(n) x sqrt(n) mesh of electronic links, and an optical (OTIS) link
 * joins processor P of group G to processor G of group P.  A rank is
 * I = G*n + P, and collectives that depend on an order (the prefix sum)
 * follow that order.
 *
 * 1. A root, chosen by its coordinates (Gx, Gy, Px, Py) = the last group
 *    row, the first group column, the last mesh row, the first mesh column,
 *    broadcasts two parameters, scale and offset (rtopo_bcast): only the
 *    root knows them before the call.
 * 2. Every rank I makes NV values v[j] = scale*(I+1)*(j+1) + offset.
 * 3. rtopo_scan gives rank I the sums of v over ranks 0..I, rtopo_allreduce
 *    the sums over all p ranks; both are checked against the closed forms
 *      prefix[j] = scale*(j+1)*(I+1)(I+2)/2 + offset*(I+1)
 *      total[j]  = scale*(j+1)*p(p+1)/2     + offset*p
 * 4. A last allreduce (RTOPO_MAX) tells every rank whether any rank found
 *    a wrong value, so that all of them finish cleanly and exit alike.
 *
 * Without an argument the program runs this twice: with the OTIS-mesh's
 * own algorithms (RTOPO_COLL_TOPO: Wang and Sahni's, over the electronic
 * links of the groups and the optical links between them) and with the
 * generic ones (RTOPO_COLL_GENERIC: binomial tree, recursive doubling),
 * chosen by rtopo_topo_set_coll_algo().  With "auto" the cost model picks
 * for each call, as it does by default (RTOPO_COLL_ALGO).
 *
 * The same with MPI would be MPI_Bcast, MPI_Scan and MPI_Allreduce on
 * MPI_COMM_WORLD; what rtopo adds is the route: on the OTIS-mesh the
 * broadcast crosses one optical link, the prefix sum two, whatever the
 * number of ranks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <rtopo.h>

#define NV 4   /* values per rank */

/* every rtopo call returns 0 or a negative RTOPO_ERR_* code */
#define CHECK(call)                                                           \
    do {                                                                      \
        int st_ = (call);                                                     \
        if (st_ != RTOPO_OK) {                                                \
            fprintf(stderr, "%s failed: %s (%s)\n", #call,                    \
                    rtopo_strerror(st_), rtopo_last_error());                 \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

static int isqrt(int x)
{
    int r = 0;

    while ((r + 1) * (r + 1) <= x)
        r++;
    return r;
}

/* Steps 1 to 4 with the topology's current algorithm; returns 1 if any
 * rank found a wrong value.  root: the broadcast's root. */
static int run(rtopo_topo_t *otis, int root)
{
    int p = rtopo_topo_size(otis), me = rtopo_topo_rank(otis), c[4], j;
    int32_t bad = 0, any_bad = 0;
    int64_t param[2], v[NV], prefix[NV], total[NV], I = me, want;

    CHECK(rtopo_topo_coords(otis, me, c));   /* (Gx, Gy, Px, Py), for messages */

    /* 1. the root's parameters reach every rank */
    if (me == root) {
        param[0] = 1000003;           /* scale */
        param[1] = -7;                /* offset */
    } else {
        param[0] = param[1] = 0;      /* overwritten by the broadcast */
    }
    CHECK(rtopo_bcast(otis, param, 2, RTOPO_INT64, root));
    if (param[0] != 1000003 || param[1] != -7) {
        fprintf(stderr, "rank %d (%d,%d,%d,%d): bcast from %d gave %lld %lld\n", me, c[0],
                c[1], c[2], c[3], root, (long long)param[0], (long long)param[1]);
        bad = 1;
    }

    /* 2. this rank's values */
    for (j = 0; j < NV; j++)
        v[j] = param[0] * (I + 1) * (j + 1) + param[1];

    /* 3. prefix sums in rank order (I = G*n + P), and the global sums */
    CHECK(rtopo_scan(otis, v, prefix, NV, RTOPO_INT64, RTOPO_SUM));
    CHECK(rtopo_allreduce(otis, v, total, NV, RTOPO_INT64, RTOPO_SUM));
    for (j = 0; j < NV; j++) {
        want = param[0] * (j + 1) * (I + 1) * (I + 2) / 2 + param[1] * (I + 1);
        if (prefix[j] != want) {
            fprintf(stderr, "rank %d (%d,%d,%d,%d): prefix[%d] = %lld, expected %lld\n", me,
                    c[0], c[1], c[2], c[3], j, (long long)prefix[j], (long long)want);
            bad = 1;
        }
        want = param[0] * (j + 1) * ((int64_t)p * (p + 1) / 2) + param[1] * p;
        if (total[j] != want) {
            fprintf(stderr, "rank %d (%d,%d,%d,%d): total[%d] = %lld, expected %lld\n", me,
                    c[0], c[1], c[2], c[3], j, (long long)total[j], (long long)want);
            bad = 1;
        }
    }

    /* 4. did any rank see a wrong value? */
    CHECK(rtopo_allreduce(otis, &bad, &any_bad, 1, RTOPO_INT32, RTOPO_MAX));
    return any_bad != 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        rtopo_coll_algo_t algo;
    } algos[] = {
        { "topo", RTOPO_COLL_TOPO },        /* the OTIS-mesh's own */
        { "generic", RTOPO_COLL_GENERIC },  /* binomial tree, recursive doubling */
        { "auto", RTOPO_COLL_AUTO }         /* the faster under the cost model */
    };
    rtopo_ctx_t *ctx;
    rtopo_topo_t *otis;
    int p, n, s, root, where[4], a, first = 0, last = 1, failed = 0;

    if (argc > 1) {
        for (first = 0; first < 3 && strcmp(argv[1], algos[first].name); first++)
            ;
        if (first == 3) {
            fprintf(stderr, "usage: %s [topo|generic|auto]\n", argv[0]);
            return 2;
        }
        last = first;
    }

    /* NULL config: rank, size and transport come from rtopo-run's
     * environment, or from PMIx under mpirun */
    CHECK(rtopo_init(NULL, &ctx));
    p = rtopo_size(ctx);

    /* p = n*n ranks, n = s*s: n groups, each an s x s mesh.  Any other job
     * size makes rtopo_topo_otis_mesh fail with RTOPO_ERR_TOPO, and
     * rtopo_last_error() names the sizes that fit. */
    n = isqrt(p);
    s = isqrt(n);
    CHECK(rtopo_topo_otis_mesh(ctx, n, &otis));

    /* the root: last row of groups, first column of groups, last row of
     * the group's mesh, first column (rank 10 of 16) */
    where[0] = s - 1;   /* Gx */
    where[1] = 0;       /* Gy */
    where[2] = s - 1;   /* Px */
    where[3] = 0;       /* Py */
    root = rtopo_topo_rank_at(otis, where);
    CHECK(root < 0 ? root : RTOPO_OK);

    for (a = first; a <= last; a++) {
        int bad;

        /* every rank sets the same algorithm at the same point */
        CHECK(rtopo_topo_set_coll_algo(otis, algos[a].algo));
        bad = run(otis, root);
        failed |= bad;
        if (rtopo_rank(ctx) == 0)
            printf("otis_prefix: %s: OTIS-mesh of %d groups of %dx%d (%d ranks), %s "
                   "algorithms: bcast from rank %d, scan and allreduce of %d int64 per "
                   "rank\n", bad ? "FAILED" : "OK", n, s, s, p, algos[a].name, root, NV);
    }

    CHECK(rtopo_topo_free(otis));
    CHECK(rtopo_finalize(ctx));
    return failed;
}
