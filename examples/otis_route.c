/*
 * otis_route.c - selection, concentrate, distribute and generalize on an
 * OTIS-mesh (or an OTIS-hypercube) of ranks with rtopo.
 *
 * Build against an installed rtopo and run on n*n ranks, n a perfect
 * square (16 ranks: 4 groups of 2 x 2; 81 ranks: 9 groups of 3 x 3):
 *
 *   cc -O2 otis_route.c $(pkg-config --cflags --libs rtopo) -o otis_route
 *   rtopo-run -n 16 ./otis_route             (or: mpirun -n 16 ./otis_route)
 *
 * With the argument "hypercube" the ranks form an OTIS-hypercube of n
 * groups instead, n a power of two (16 ranks: 4 groups of 2-cubes; 64
 * ranks: 8 groups of 3-cubes):
 *
 *   rtopo-run -n 64 ./otis_route hypercube
 *
 * Every rank I (its place in the topology, I = G*n + P for processor P
 * of group G) holds one item: a key from 0 to 99 and a payload, both
 * computed from I and the round number, so that every rank can work out
 * the whole input, and so every result, by itself.  In each round, for a
 * threshold T:
 *
 * 1. The ranks whose key is below T are selected.  rtopo_select_rank
 *    gives each rank the number of selected ranks before it: on a
 *    selected rank, its index among them.
 * 2. rtopo_concentrate packs the selected items at the start of the
 *    topology: the item of the k-th selected rank lands on rank k, so
 *    ranks 0 to b-1 hold them (b selected in all), in rank order.
 * 3. rtopo_distribute spreads them out again: rank k (k < b) sends its
 *    item to rank k*p/b, destinations that increase with k.
 * 4. rtopo_generalize sends them back to the ranks they came from, each
 *    item also filling the ranks after its origin up to the next origin:
 *    every rank from the first selected one on receives the item of the
 *    nearest selected rank at or before it.
 *
 * Each rank checks what it received (and that a rank which received
 * nothing was told so and its buffer left alone), and an allreduce of
 * the failure flags tells every rank whether any check failed.  The
 * rounds run with blocking calls, then again with persistent requests
 * made once (rtopo_*_init) and started once per round with a new
 * threshold: the flags and destinations are read at each start.
 *
 * The routing operations move data along fixed link patterns whatever
 * the keys; on the OTIS-mesh a routing takes 4(sqrt(n) - 1) electronic
 * moves and 2 optical (OTIS) moves, on the OTIS-hypercube 2 log2(n)
 * electronic and 2 OTIS moves (rtopo_concentrate(3)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <rtopo.h>

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

/* one record: 48 bytes, no padding, so records compare with memcmp */
struct item {
    int64_t key;        /* 0..99: selected when below the threshold */
    int64_t origin;     /* the rank that holds it first */
    int64_t round;
    double payload[3];
};

enum { OP_SELECT, OP_CONC, OP_DIST, OP_GEN, NOPS };
static const char *const op_names[NOPS] = {
    "select_rank", "concentrate", "distribute", "generalize"
};

/* the thresholds of the rounds: none selected, a few, about half, most,
 * all of them */
static const int thresholds[] = { 0, 10, 50, 90, 100, 30 };
#define NROUNDS ((int)(sizeof(thresholds) / sizeof(thresholds[0])))

static int isqrt(int x)
{
    int r = 0;

    while ((r + 1) * (r + 1) <= x)
        r++;
    return r;
}

/* the item of rank i in round r: the same on every rank */
static struct item item_of(int64_t i, int r)
{
    uint64_t h = (uint64_t)i * 0x9e3779b97f4a7c15ull + (uint64_t)r * 0xbf58476d1ce4e5b9ull;
    struct item it;

    h ^= h >> 31;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 29;
    it.key = (int64_t)(h % 100);
    it.origin = i;
    it.round = r;
    it.payload[0] = (double)i + 0.5;
    it.payload[1] = (double)r * 1000.0 + (double)i;
    it.payload[2] = -(double)(h % 4096);
    return it;
}

/* What each rank expects, from the whole input it can compute itself.
 * sel_before: selected ranks before this one; conc_from, dist_from,
 * gen_from: the rank whose item this rank receives (-1: none). */
struct expect {
    int64_t sel_before;
    int64_t nsel;
    int64_t conc_from, dist_from, gen_from;
};

static struct expect expected(int p, int me, int r, int T)
{
    struct expect e = { 0, 0, -1, -1, -1 };
    int64_t *sel_ranks = calloc((size_t)p, sizeof(*sel_ranks));
    int64_t k;
    int i;

    if (!sel_ranks) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (i = 0; i < p; i++)
        if (item_of(i, r).key < T) {
            if (i < me)
                e.sel_before++;
            sel_ranks[e.nsel++] = i;
        }
    /* concentrate: the item of the me-th selected rank */
    if (me < e.nsel)
        e.conc_from = sel_ranks[me];
    /* distribute: rank k sends to k*p/b; rank me receives from the k
     * with k*p/b == me */
    for (k = 0; k < e.nsel; k++)
        if (k * p / e.nsel == me)
            e.dist_from = sel_ranks[k];
    /* generalize, destinations the origins: the last selected rank at or
     * before me */
    for (k = 0; k < e.nsel && sel_ranks[k] <= me; k++)
        e.gen_from = sel_ranks[k];
    free(sel_ranks);
    return e;
}

/* check one routing result: the item of rank `from` in round r, or
 * nothing (got 0 and the buffer as it was) when from < 0 */
static int check_rec(const char *op, int me, int r, int64_t from, int got,
                     const struct item *rec, const struct item *untouched)
{
    struct item want;

    if (from < 0) {
        if (got != 0 || memcmp(rec, untouched, sizeof(*rec))) {
            fprintf(stderr, "rank %d round %d: %s: got=%d, expected nothing%s\n", me, r, op,
                    got, got ? "" : ", and the buffer was written");
            return 1;
        }
        return 0;
    }
    want = item_of(from, r);
    if (got != 1) {
        fprintf(stderr, "rank %d round %d: %s: got=%d, expected the item of rank %lld\n",
                me, r, op, got, (long long)from);
        return 1;
    }
    if (memcmp(rec, &want, sizeof(want))) {
        fprintf(stderr, "rank %d round %d: %s: received the item of origin %lld, round "
                "%lld, key %lld, expected the item of rank %lld\n", me, r, op,
                (long long)rec->origin, (long long)rec->round, (long long)rec->key,
                (long long)from);
        return 1;
    }
    return 0;
}

/* The buffers of one round; the persistent requests point at them, and
 * each start reads sel and dest as they are then. */
struct bufs {
    struct item mine, packed, spread, nearest, blank;
    int sel, got_conc, got_dist, got_gen;
    int64_t before, dest_spread, dest_home;
};

/* before a round: this rank's item and flag, receive buffers filled with
 * a pattern that no item has */
static void setup(struct bufs *b, int me, int r, int T)
{
    b->mine = item_of(me, r);
    b->sel = b->mine.key < T;
    memset(&b->blank, 0xa5, sizeof(b->blank));
    b->packed = b->spread = b->nearest = b->blank;
    b->got_conc = b->got_dist = b->got_gen = -1;
    b->before = -1;
}

/* between the concentrate and the other two: the destinations, from
 * what the concentrate delivered (ranks 0..b-1 send) */
static void destinations(struct bufs *b, int p, int me, int64_t nsel)
{
    b->dest_spread = b->got_conc == 1 ? (int64_t)me * p / nsel : -1;
    b->dest_home = b->got_conc == 1 ? b->packed.origin : -1;
}

static void check_round(struct bufs *b, int p, int me, int r, int T, int bad[NOPS])
{
    struct expect e = expected(p, me, r, T);

    if (b->before != e.sel_before) {
        fprintf(stderr, "rank %d round %d: select_rank gave %lld, expected %lld\n", me, r,
                (long long)b->before, (long long)e.sel_before);
        bad[OP_SELECT] = 1;
    }
    bad[OP_CONC] |= check_rec("concentrate", me, r, e.conc_from, b->got_conc, &b->packed,
                              &b->blank);
    bad[OP_DIST] |= check_rec("distribute", me, r, e.dist_from, b->got_dist, &b->spread,
                              &b->blank);
    bad[OP_GEN] |= check_rec("generalize", me, r, e.gen_from, b->got_gen, &b->nearest,
                             &b->blank);
}

/* the rounds with blocking calls */
static void run_blocking(rtopo_topo_t *otis, int bad[NOPS])
{
    int p = rtopo_topo_size(otis), me = rtopo_topo_rank(otis), r;
    struct bufs b;

    for (r = 0; r < NROUNDS; r++) {
        int T = thresholds[r];
        int64_t nsel = expected(p, me, r, T).nsel;

        setup(&b, me, r, T);
        CHECK(rtopo_select_rank(otis, &b.sel, &b.before));
        CHECK(rtopo_concentrate(otis, &b.mine, &b.sel, &b.packed, sizeof(struct item),
                                &b.got_conc));
        destinations(&b, p, me, nsel);
        CHECK(rtopo_distribute(otis, &b.packed, &b.dest_spread, &b.spread,
                               sizeof(struct item), &b.got_dist));
        CHECK(rtopo_generalize(otis, &b.packed, &b.dest_home, &b.nearest,
                               sizeof(struct item), &b.got_gen));
        check_round(&b, p, me, r, T, bad);
    }
}

/* the same rounds with persistent requests, made once */
static void run_persistent(rtopo_topo_t *otis, int bad[NOPS])
{
    int p = rtopo_topo_size(otis), me = rtopo_topo_rank(otis), r, i;
    rtopo_req_t *req[NOPS];
    struct bufs b;

    memset(&b, 0, sizeof(b));
    CHECK(rtopo_select_rank_init(otis, &b.sel, &b.before, &req[OP_SELECT]));
    CHECK(rtopo_concentrate_init(otis, &b.mine, &b.sel, &b.packed, sizeof(struct item),
                                 &b.got_conc, &req[OP_CONC]));
    CHECK(rtopo_distribute_init(otis, &b.packed, &b.dest_spread, &b.spread,
                                sizeof(struct item), &b.got_dist, &req[OP_DIST]));
    CHECK(rtopo_generalize_init(otis, &b.packed, &b.dest_home, &b.nearest,
                                sizeof(struct item), &b.got_gen, &req[OP_GEN]));
    /* the rounds in the opposite order from the blocking ones, so that
     * every start sees a selection different from the previous one */
    for (r = NROUNDS - 1; r >= 0; r--) {
        int T = thresholds[r];
        int64_t nsel = expected(p, me, r, T).nsel;

        setup(&b, me, r, T);
        /* the rank and the concentrate read the same flag: both may run
         * at once */
        CHECK(rtopo_start(req[OP_SELECT]));
        CHECK(rtopo_start(req[OP_CONC]));
        CHECK(rtopo_wait(req[OP_SELECT]));
        CHECK(rtopo_wait(req[OP_CONC]));
        /* the distribute and the generalize send what the concentrate
         * delivered */
        destinations(&b, p, me, nsel);
        CHECK(rtopo_start(req[OP_DIST]));
        CHECK(rtopo_wait(req[OP_DIST]));
        CHECK(rtopo_start(req[OP_GEN]));
        CHECK(rtopo_wait(req[OP_GEN]));
        check_round(&b, p, me, r, T, bad);
    }
    for (i = 0; i < NOPS; i++)
        CHECK(rtopo_req_free(req[i]));
}

int main(int argc, char **argv)
{
    static const char *const what[NOPS] = {
        "each rank's count of selected ranks before it",
        "the k-th selected item on rank k",
        "rank k's item on rank k*p/b",
        "every rank's nearest selected item at or before it"
    };
    rtopo_ctx_t *ctx;
    rtopo_topo_t *otis;
    int p, n, s, i, bad[NOPS] = { 0 }, any_bad[NOPS], failed = 0;
    int cube = argc > 1 && !strcmp(argv[1], "hypercube");
    char shape[64];

    /* NULL config: rank, size and transport come from rtopo-run's
     * environment, or from PMIx under mpirun */
    CHECK(rtopo_init(NULL, &ctx));
    p = rtopo_size(ctx);

    /* p = n*n ranks: n groups, each an s x s mesh (n = s*s), or each a cube
     * of n ranks (n a power of two).  Any other job size makes the call
     * fail with RTOPO_ERR_TOPO, and rtopo_last_error() names the sizes
     * that fit. */
    n = isqrt(p);
    s = isqrt(n);
    if (cube) {
        CHECK(rtopo_topo_otis_hypercube(ctx, n, &otis));
        snprintf(shape, sizeof(shape), "an OTIS-hypercube of %d groups", n);
    } else {
        CHECK(rtopo_topo_otis_mesh(ctx, n, &otis));
        snprintf(shape, sizeof(shape), "an OTIS-mesh of %d groups of %dx%d", n, s, s);
    }

    /* The routing operations have only the OTIS topologies' own
     * algorithms: ask for them, so that RTOPO_COLL_ALGO=generic in the
     * environment does not make them fail with RTOPO_ERR_UNSUPPORTED.
     * Every rank sets the same. */
    CHECK(rtopo_topo_set_coll_algo(otis, RTOPO_COLL_TOPO));

    run_blocking(otis, bad);
    run_persistent(otis, bad);

    /* did any rank see a wrong result? */
    CHECK(rtopo_allreduce(otis, bad, any_bad, NOPS, RTOPO_INT32, RTOPO_MAX));
    for (i = 0; i < NOPS; i++) {
        failed |= any_bad[i];
        if (rtopo_rank(ctx) == 0)
            printf("otis_route: %s: %s on %s (%d ranks), %d rounds blocking and %d "
                   "persistent: %s\n", any_bad[i] ? "FAILED" : "OK", op_names[i], shape, p,
                   NROUNDS, NROUNDS, what[i]);
    }

    CHECK(rtopo_topo_free(otis));
    CHECK(rtopo_finalize(ctx));
    return failed;
}
