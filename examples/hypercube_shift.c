/*
 * hypercube_shift.c - circular shifts on a hypercube of ranks: the
 * hypercube (Gray-code) algorithm against E-cube routing.
 *
 * Build against an installed rtopo and run on a power-of-two number of
 * ranks:
 *
 *   cc -O2 hypercube_shift.c $(pkg-config --cflags --libs rtopo) -o hypercube_shift
 *   rtopo-run -n 4 ./hypercube_shift         (dimension 2)
 *   rtopo-run -n 8 ./hypercube_shift         (dimension 3)
 *
 * A q-shift sends rank i's buffer to rank (i + q) mod p.  On a hypercube
 * of dimension d (p = 2^d ranks) rtopo has two ways to do it, chosen per
 * topology with rtopo_topo_set_shift_algo(3):
 *
 *   RTOPO_SHIFT_HYPERCUBE  rank r sits on cube node gray(r) = r ^ (r >> 1),
 *       so consecutive ranks are cube neighbours (the ring embeds in the
 *       cube) and ranks 2^k apart are two links apart.  q is written as a
 *       sum of signed powers of two and each term is one phase of one or
 *       two steps; every step is a permutation of the ranks, so no link
 *       carries two messages at once.  At most d steps; each step is a
 *       full store-and-forward hop of the whole message.
 *
 *   RTOPO_SHIFT_ECUBE  every rank sends straight to its destination over
 *       the cube whose node labels are the ranks themselves (links
 *       r <-> r ^ 2^k), flipping the bits in which i and i+q differ in
 *       increasing dimension order.  For a fixed q no link carries two
 *       messages, and the longest route has d - gamma(q) links, where
 *       gamma(q) is the number of trailing zero bits of q (i and i+q agree
 *       in those bits).  Intermediate ranks forward chunk by chunk as
 *       data arrives (cut-through), so a large message costs about
 *       ts + m*tw + (d - gamma(q) - 1) * (per-hop chunk cost): little more
 *       than one hop.  Its links are not those of the Gray embedding; the
 *       runtime connects the extra peers the first time they are needed.
 *
 * The program first checks both algorithms for every q in -p..p (data of
 * rank (i - q) mod p must arrive at rank i), then times a 1 MiB shift for
 * every q in 1..p-1 with each algorithm and prints a table on rank 0.
 * RTOPO_SHIFT_AUTO (the default) would pick by the cost model instead.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rtopo.h>

#define CHECK_BYTES (64u * 1024)    /* above the eager limit: rendezvous */
#define TIME_BYTES  (1u << 20)
#define REPS 5

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

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* word k of rank src's data, different for every rank, word and q */
static uint32_t word(int src, int q, size_t k)
{
    return (uint32_t)src * 2654435761u ^ (uint32_t)q * 40503u ^ (uint32_t)k;
}

static int gamma_of(int q)
{
    int g = 0;

    while (!(q & 1)) {
        q >>= 1;
        g++;
    }
    return g;
}

/* verify every q in -p..p with the algorithm currently set on cube */
static int check_all_q(rtopo_topo_t *cube, uint32_t *sb, uint32_t *rb,
                       int rank, int p, const char *name)
{
    size_t n = CHECK_BYTES / sizeof(uint32_t), k;
    int q;

    for (q = -p; q <= p; q++) {
        int src = ((rank - q) % p + p) % p;

        for (k = 0; k < n; k++)
            sb[k] = word(rank, q, k);
        memset(rb, 0, CHECK_BYTES);
        CHECK(rtopo_shift(cube, sb, rb, CHECK_BYTES, q));
        for (k = 0; k < n; k++)
            if (rb[k] != word(src, q, k)) {
                fprintf(stderr, "rank %d: %s q=%d: word %zu is 0x%08x, expected "
                        "0x%08x from rank %d\n", rank, name, q, k, rb[k],
                        word(src, q, k), src);
                return 1;
            }
    }
    return 0;
}

/* best of REPS blocking shifts, each started together after a barrier */
static double time_shift(rtopo_ctx_t *ctx, rtopo_topo_t *cube, void *sb,
                         void *rb, int q)
{
    double best = 1e30, t0, t;
    int r;

    CHECK(rtopo_shift(cube, sb, rb, TIME_BYTES, q));   /* warm-up: connect, plan */
    for (r = 0; r < REPS; r++) {
        CHECK(rtopo_barrier(ctx));
        t0 = seconds();
        CHECK(rtopo_shift(cube, sb, rb, TIME_BYTES, q));
        t = seconds() - t0;
        best = t < best ? t : best;
    }
    return best;
}

int main(void)
{
    static const rtopo_shift_algo_t algos[2] = { RTOPO_SHIFT_HYPERCUBE,
                                                 RTOPO_SHIFT_ECUBE };
    static const char *const names[2] = { "hypercube", "ecube" };
    rtopo_ctx_t *ctx;
    rtopo_topo_t *cube;
    rtopo_mem_t *smem, *rmem;
    uint32_t *sb, *rb;
    int rank, size, d, q, a, bad = 0;
    double *t[2];

    CHECK(rtopo_init(NULL, &ctx));
    rank = rtopo_rank(ctx);
    size = rtopo_size(ctx);
    for (d = 0; (1 << (d + 1)) <= size; d++)
        ;
    /* a hypercube needs 2^d ranks exactly: otherwise this fails with
     * RTOPO_ERR_TOPO and a message naming the sizes that would fit */
    CHECK(rtopo_topo_hypercube(ctx, d, &cube));

    /* registered buffers: RDMA writes land straight in rb */
    sb = malloc(TIME_BYTES);
    rb = malloc(TIME_BYTES);
    t[0] = calloc((size_t)size, sizeof(double));
    t[1] = calloc((size_t)size, sizeof(double));
    if (!sb || !rb || !t[0] || !t[1])
        return 1;
    CHECK(rtopo_mem_register(ctx, sb, TIME_BYTES, &smem));
    CHECK(rtopo_mem_register(ctx, rb, TIME_BYTES, &rmem));
    memset(sb, 0, TIME_BYTES);

    /* every rank must use the same algorithm for a given shift: set it on
     * every rank at the same point of the program */
    for (a = 0; a < 2 && !bad; a++) {
        CHECK(rtopo_topo_set_shift_algo(cube, algos[a]));
        bad = check_all_q(cube, sb, rb, rank, size, names[a]);
        if (!bad && rank == 0)
            printf("%s: every q in [%d, %d] on %d ranks delivered correctly "
                   "(%u bytes)\n", names[a], -size, size, size, CHECK_BYTES);
    }
    if (bad)
        return 1;

    for (q = 1; q < size; q++)
        for (a = 0; a < 2; a++) {
            CHECK(rtopo_topo_set_shift_algo(cube, algos[a]));
            t[a][q] = time_shift(ctx, cube, sb, rb, q);
        }
    if (rank == 0) {
        printf("1 MiB shifts on a dimension-%d hypercube (rank 0, best of %d):\n",
               d, REPS);
        printf("%4s %6s %14s %12s %12s\n", "q", "gamma", "ecube path",
               "hypercube us", "ecube us");
        for (q = 1; q < size; q++)
            printf("%4d %6d %14d %12.0f %12.0f\n", q, gamma_of(q),
                   d - gamma_of(q), t[0][q] * 1e6, t[1][q] * 1e6);
        if (size == 1)
            printf("(one rank: every shift is a local copy)\n");
    }

    CHECK(rtopo_mem_deregister(smem));
    CHECK(rtopo_mem_deregister(rmem));
    CHECK(rtopo_topo_free(cube));
    CHECK(rtopo_finalize(ctx));
    free(sb);
    free(rb);
    free(t[0]);
    free(t[1]);
    return 0;
}
