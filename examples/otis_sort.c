/*
 * otis_sort.c - sort records with payloads across an OTIS-mesh, then
 * check the result globally.
 *
 * Every rank owns NREC particles (an id, a position and a mass).  The
 * particles are sorted by position, ascending, across the whole job with
 * rtopo_sort(3): afterwards rank r holds the particles r*NREC ..
 * r*NREC + NREC - 1 of the global order.  The check needs no gathering:
 *   - each rank's own particles are in order,
 *   - the last position of rank r is not above the first of rank r + 1
 *     (every rank's first and last positions, summed into one array by
 *     an allreduce),
 *   - the sums of ids and masses are what the input had (nothing lost,
 *     nothing duplicated).
 * Then the same particles are sorted descending by mass with a
 * persistent request started twice.
 *
 * Run: rtopo-run -n 16 ./otis_sort   (any p = n*n with n = s*s;
 *      or under mpirun)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rtopo.h>

#define NREC 1000

struct particle {
    double pos;       /* the key: first in the record */
    int64_t id;
    double mass;
};

struct by_mass {
    double mass;      /* the key of the second sort */
    int64_t id;
    double pos;
};

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

/* a reproducible pseudo-random number in [0, 1) */
static double draw(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) / 9007199254740992.0;
}

int main(void)
{
    static struct particle p[NREC];
    static struct by_mass m[NREC], sorted_m[NREC];
    rtopo_ctx_t *ctx;
    rtopo_topo_t *otis;
    rtopo_req_t *req;
    int size, me, i, bad = 0, any_bad = 0, run;
    uint64_t state;
    double sums[2] = { 0, 0 }, total_before[2], total_after[2];
    double *firsts, *lasts, mine[2];

    CHECK(rtopo_init(NULL, &ctx));
    size = rtopo_size(ctx);
    CHECK(rtopo_topo_otis_mesh(ctx, isqrt(size), &otis));
    me = rtopo_topo_rank(otis);

    /* this rank's particles */
    state = 12345u + (uint64_t)me * 977u;
    for (i = 0; i < NREC; i++) {
        p[i].pos = draw(&state) * 100.0;
        p[i].id = (int64_t)me * NREC + i;
        p[i].mass = 1.0 + draw(&state);
        sums[0] += (double)p[i].id;
        sums[1] += p[i].mass;
    }
    CHECK(rtopo_allreduce(otis, sums, total_before, 2, RTOPO_DOUBLE, RTOPO_SUM));

    /* 1. sort by position, in place */
    CHECK(rtopo_sort(otis, p, p, NREC, sizeof p[0], RTOPO_DOUBLE, 0));

    for (i = 1; i < NREC; i++)
        if (p[i - 1].pos > p[i].pos) {
            fprintf(stderr, "rank %d: particle %d is out of order\n", me, i);
            bad = 1;
            break;
        }
    /* boundaries between ranks: every rank's first and last position */
    firsts = calloc((size_t)size * 2, sizeof(double));
    lasts = firsts + size;
    if (!firsts)
        return 1;
    firsts[me] = p[0].pos;
    lasts[me] = p[NREC - 1].pos;
    mine[0] = mine[1] = 0;
    {
        double *both = calloc((size_t)size * 2, sizeof(double));

        if (!both)
            return 1;
        CHECK(rtopo_allreduce(otis, firsts, both, (size_t)size * 2, RTOPO_DOUBLE,
                              RTOPO_SUM));
        for (i = 0; i + 1 < size; i++)
            if (both[size + i] > both[i + 1]) {
                if (me == 0)
                    fprintf(stderr, "rank %d ends at %g, above rank %d's start %g\n", i,
                            both[size + i], i + 1, both[i + 1]);
                bad = 1;
            }
        free(both);
    }
    for (i = 0; i < NREC; i++) {
        mine[0] += (double)p[i].id;
        mine[1] += p[i].mass;
    }
    CHECK(rtopo_allreduce(otis, mine, total_after, 2, RTOPO_DOUBLE, RTOPO_SUM));
    if (total_after[0] != total_before[0] ||
        total_after[1] - total_before[1] > 1e-6 * total_before[1] ||
        total_before[1] - total_after[1] > 1e-6 * total_before[1]) {
        if (me == 0)
            fprintf(stderr, "particles were lost or duplicated\n");
        bad = 1;
    }

    /* 2. the same particles by mass, descending, with a persistent
     * request: built once, started twice (the second start sorts what
     * the buffer holds then: the first result, already in order) */
    for (i = 0; i < NREC; i++) {
        m[i].mass = p[i].mass;
        m[i].id = p[i].id;
        m[i].pos = p[i].pos;
    }
    CHECK(rtopo_sort_init(otis, m, sorted_m, NREC, sizeof m[0], RTOPO_DOUBLE, 1, &req));
    for (run = 0; run < 2; run++) {
        CHECK(rtopo_start(req));
        CHECK(rtopo_wait(req));
        for (i = 1; i < NREC; i++)
            if (sorted_m[i - 1].mass < sorted_m[i].mass) {
                fprintf(stderr, "rank %d: start %d: mass %d out of order\n", me, run, i);
                bad = 1;
                break;
            }
        memcpy(m, sorted_m, sizeof m);
    }
    CHECK(rtopo_req_free(req));

    CHECK(rtopo_allreduce(otis, &bad, &any_bad, 1, RTOPO_INT32, RTOPO_MAX));
    if (me == 0)
        printf("otis_sort: %s: %d particles per rank on %d ranks sorted by position "
               "(ascending) and by mass (descending)\n", any_bad ? "FAILED" : "OK", NREC,
               size);
    free(firsts);
    CHECK(rtopo_topo_free(otis));
    CHECK(rtopo_finalize(ctx));
    return any_bad != 0;
}
