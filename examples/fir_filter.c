/*
 * fir_filter.c - a FIR filter over a long signal: a host hands out
 * overlapping windows of the signal to a hypercube of nodes with
 * rtopo_scatter(3), every node filters its window, and the host checks
 * the result against a serial filter.
 *
 * Build against an installed rtopo and run on 2^d + 1 or 2^d ranks:
 *
 *   cc -O2 fir_filter.c $(pkg-config --cflags --libs rtopo) -o fir_filter
 *   rtopo-run -n 5 ./fir_filter          (host rank 0 outside a 4-node cube)
 *   rtopo-run -n 8 ./fir_filter          (host rank 0 is also cube node 0)
 *   rtopo-run -n 9 ./fir_filter seqscatter:2 2000 17
 *
 *   usage: fir_filter [STRATEGY [OUTPUTS [TAPS]]]
 *     STRATEGY  auto, seq, binomial, seqscatter[:X] or decremental[:X]
 *               (default decremental; X is the block dimension, left to
 *               rtopo's cost model when absent)
 *     OUTPUTS   output points computed by each node (default 4096)
 *     TAPS      length of the filter (default 64)
 *
 * The filter: y[j] = sum over k < TAPS of h[k] * x[j + TAPS - 1 - k], for
 * j = 0 .. P*OUTPUTS - 1 on P nodes.  Node i computes the OUTPUTS points
 * from j = i*OUTPUTS, and for them it needs the window of
 * M = OUTPUTS + TAPS - 1 samples starting at x[i*OUTPUTS]: the windows
 * follow each other with a stride of OUTPUTS samples and consecutive ones
 * overlap by TAPS - 1.  (With one output per node the overlap is M - 1,
 * the extreme case.)  This is exactly what rtopo_scatter delivers: node i
 * receives `count` elements starting at element i*stride of the host's
 * array, here count = M and stride = OUTPUTS.  The decremental strategy
 * sends the overlap between windows only once per block of nodes.
 *
 * rtopo has no gather, so the outputs come back to the host by circular
 * shifts on a ring of all the ranks (rtopo_shift(3)): after the shift by q
 * rank 0 holds the outputs of rank p - q.  p - 1 such shifts move more
 * data than a gather would, which is fine for a check.
 *
 * The samples and taps are small integers held in doubles, so every sum
 * is exact and the distributed result must equal the serial one bit for
 * bit.  Each node also checks the window it received against the signal,
 * which it can regenerate, so a wrong window is reported where it lands.
 * Exit status: 0 when everything matches, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
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

/* sample n of the signal: a deterministic integer in -100..100 */
static double sample(size_t n)
{
    unsigned long long v = (unsigned long long)n * 2654435761ull + 12345;

    return (double)((long)((v >> 13) % 201) - 100);
}

/* output point from the TAPS samples x[0 .. taps-1] */
static double fir_point(const double *h, size_t taps, const double *x)
{
    double y = 0.0;
    size_t k;

    for (k = 0; k < taps; k++)
        y += h[k] * x[taps - 1 - k];
    return y;
}

/* "decremental:2" -> RTOPO_SCATTER_DECREMENTAL, x = 2; -1 if unknown */
static int parse_strategy(const char *s, rtopo_scatter_algo_t *algo, int *x)
{
    static const struct {
        const char *name;
        rtopo_scatter_algo_t algo;
        int takes_x;
    } tab[] = {
        { "auto", RTOPO_SCATTER_AUTO, 0 },
        { "seq", RTOPO_SCATTER_SEQ, 0 },
        { "binomial", RTOPO_SCATTER_BINOMIAL, 0 },
        { "seqscatter", RTOPO_SCATTER_SEQSCATTER, 1 },
        { "decremental", RTOPO_SCATTER_DECREMENTAL, 1 },
    };
    size_t i, n;

    for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
        n = strlen(tab[i].name);
        if (strncmp(s, tab[i].name, n) || (s[n] && s[n] != ':'))
            continue;
        if (s[n] == ':' && (!tab[i].takes_x || !s[n + 1]))
            return -1;
        *algo = tab[i].algo;
        *x = s[n] == ':' ? atoi(s + n + 1) : -1;   /* -1: the model's choice */
        return 0;
    }
    return -1;
}

int main(int argc, char **argv)
{
    rtopo_scatter_algo_t algo = RTOPO_SCATTER_DECREMENTAL;
    const char *strategy = argc > 1 ? argv[1] : "decremental";
    long outputs = argc > 2 ? atol(argv[2]) : 4096;
    long ntaps = argc > 3 ? atol(argv[3]) : 64;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *cube, *ring;
    rtopo_mem_t *xmem = NULL, *wmem = NULL, *omem, *pmem;
    double *h, *x = NULL, *win = NULL, *out, *part, *all = NULL;
    size_t delta, taps, M, N = 0, i, j;
    int rank, size, d, node, nodes, q, src, xdim, bad = 0;

    if (parse_strategy(strategy, &algo, &xdim) || outputs < 1 || ntaps < 1) {
        fprintf(stderr, "usage: %s [auto|seq|binomial|seqscatter[:X]|"
                "decremental[:X] [OUTPUTS [TAPS]]]\n", argv[0]);
        return 2;
    }
    delta = (size_t)outputs;
    taps = (size_t)ntaps;
    M = delta + taps - 1;                 /* window: its outputs and history */

    CHECK(rtopo_init(NULL, &ctx));
    rank = rtopo_rank(ctx);
    size = rtopo_size(ctx);

    /* 2^d ranks: rank 0 is the host and cube node 0.  2^d + 1 ranks:
     * rank 0 is a host outside the cube, rank r > 0 is node r - 1.  Any
     * other size fails with RTOPO_ERR_TOPO, naming the sizes that fit.
     * Either way d is the largest with 2^d <= size. */
    for (d = 0; (2 << d) <= size; d++)
        ;
    CHECK(rtopo_topo_hypercube_host(ctx, d, 0, &cube));
    node = rtopo_topo_rank(cube);         /* 2^d on a host outside the cube */
    nodes = rtopo_topo_size(cube);        /* 2^d, the host not counted */

    /* every rank must use the same strategy: set it everywhere, here.  An
     * x that does not fit this cube is refused with RTOPO_ERR_INVAL. */
    CHECK(rtopo_topo_set_scatter_algo(cube, algo, xdim));

    /* the taps, known to every rank: a triangle 1, 2, ..., 2, 1 */
    h = malloc(taps * sizeof(double));
    out = calloc(delta, sizeof(double));
    part = malloc(delta * sizeof(double));
    if (!h || !out || !part)
        return 1;
    for (i = 0; i < taps; i++)
        h[i] = (double)(i < taps - 1 - i ? i + 1 : taps - i);
    CHECK(rtopo_mem_register(ctx, out, delta * sizeof(double), &omem));
    CHECK(rtopo_mem_register(ctx, part, delta * sizeof(double), &pmem));

    /* the host holds the whole signal: (nodes - 1) strides and one window */
    if (rank == 0) {
        N = (size_t)(nodes - 1) * delta + M;
        x = malloc(N * sizeof(double));
        all = malloc((size_t)nodes * delta * sizeof(double));
        if (!x || !all)
            return 1;
        for (i = 0; i < N; i++)
            x[i] = sample(i);
        /* registered: the host's sends are RDMA writes straight from x */
        CHECK(rtopo_mem_register(ctx, x, N * sizeof(double), &xmem));
    }
    /* a node receives its M samples; registered, a window sent straight
     * to it lands with no copy (a node that forwards windows for others
     * receives them into rtopo's scratch and copies its own out) */
    if (node < nodes) {
        win = malloc(M * sizeof(double));
        if (!win)
            return 1;
        CHECK(rtopo_mem_register(ctx, win, M * sizeof(double), &wmem));
    }

    /* collective over every rank: x and N matter on the host only, win on
     * the nodes only; count, stride and element size are the same on all */
    CHECK(rtopo_scatter(cube, x, N, win, M, delta, sizeof(double)));

    if (node < nodes) {
        size_t first = (size_t)node * delta;

        for (i = 0; i < M; i++)
            if (win[i] != sample(first + i)) {
                fprintf(stderr, "node %d (rank %d): sample %zu of its window is "
                        "%g, expected %g\n", node, rank, i, win[i], sample(first + i));
                bad = 1;
                break;
            }
        for (j = 0; j < delta; j++)
            out[j] = fir_point(h, taps, win + j);
    }

    /* back to the host: rank 0 receives rank (0 - q) mod size's outputs */
    CHECK(rtopo_topo_ring(ctx, &ring));
    if (rank == 0 && node == 0)
        memcpy(all, out, delta * sizeof(double));
    for (q = 1; q < size; q++) {
        CHECK(rtopo_shift(ring, out, part, delta * sizeof(double), q));
        if (rank == 0) {
            src = size - q;
            /* the node of job rank src: src itself when the host is node
             * 0, src - 1 when it is outside the cube */
            memcpy(all + (size_t)(node == 0 ? src : src - 1) * delta, part,
                   delta * sizeof(double));
        }
    }

    if (rank == 0) {
        size_t nout = (size_t)nodes * delta, wrong = 0, first_wrong = 0;

        for (j = 0; j < nout; j++)
            if (all[j] != fir_point(h, taps, x + j) && !wrong++)
                first_wrong = j;
        if (wrong) {
            fprintf(stderr, "fir_filter: %zu of %zu outputs differ from the serial "
                    "filter, the first at %zu (node %zu): %g instead of %g\n",
                    wrong, nout, first_wrong, first_wrong / delta, all[first_wrong],
                    fir_point(h, taps, x + first_wrong));
            bad = 1;
        } else {
            printf("fir_filter: OK: %d nodes (host %s), %zu samples, %zu taps, "
                   "%zu outputs per node, windows of %zu overlapping by %zu, "
                   "strategy %s\n", nodes, node == 0 ? "on node 0" : "outside the cube",
                   N, taps, delta, M, taps - 1, strategy);
        }
    }

    CHECK(rtopo_mem_deregister(omem));
    CHECK(rtopo_mem_deregister(pmem));
    if (wmem)
        CHECK(rtopo_mem_deregister(wmem));
    if (xmem)
        CHECK(rtopo_mem_deregister(xmem));
    CHECK(rtopo_topo_free(ring));
    CHECK(rtopo_topo_free(cube));
    CHECK(rtopo_finalize(ctx));
    free(h);
    free(out);
    free(part);
    free(x);
    free(win);
    free(all);
    return bad;
}
