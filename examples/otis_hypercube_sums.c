/*
 * otis_hypercube_sums.c - data accumulation, adjacent sums and consecutive
 * sums along both dimensions of an OTIS-hypercube, each result checked
 * against a serial computation.
 *
 * Build against an installed rtopo and run on n*n ranks, n a power of two
 * (16 ranks: 4 groups of 4; 64 ranks: 8 groups of 8):
 *
 *   cc -O2 otis_hypercube_sums.c $(pkg-config --cflags --libs rtopo) \
 *      -o otis_hypercube_sums
 *   rtopo-run -n 16 ./otis_hypercube_sums          (or: mpirun -n 16 ...)
 *
 * Or inside an MPI program, rtopo bootstrapped over MPI_Allgather on a
 * duplicate of MPI_COMM_WORLD (rtopo_init(3)), with an MPI_Barrier between
 * the operations:
 *
 *   mpicc -O2 -DRTOPO_EXAMPLE_MPI otis_hypercube_sums.c \
 *      $(pkg-config --cflags --libs rtopo) -o otis_hypercube_sums_mpi
 *   mpirun -n 16 ./otis_hypercube_sums_mpi
 *
 * The OTIS-hypercube has n groups of n processors; rank r = G*n + P is
 * processor P of group G, at coordinates (G, P).  Inside a group the
 * labels P form a log2(n)-cube, and an optical link joins (G, P) and
 * (P, G).  Dimension 0 is G, dimension 1 is P; a *line* along a dimension
 * is the n ranks that agree on the other coordinate, at x = 0 .. n-1.
 *
 * Along each dimension, for several window sizes m, the program runs
 *
 *   rtopo_accumulate       rank x gets the buffers of ranks x, x+1, ...,
 *                          x+m-1 (mod n) of its line, one block each;
 *   rtopo_adjacent_sum     rank x gets those m buffers combined (for
 *                          several element types and operators);
 *   rtopo_consecutive_sum  the line cut into blocks of m ranks (m divides
 *                          n); the rank at place j of a block gets value j
 *                          of every rank of its block, combined;
 *
 * and every rank recomputes its own expected result from the formula that
 * made every rank's data.  It also checks that bad window sizes are
 * refused alike on every rank with RTOPO_ERR_INVAL (and that the job goes
 * on afterwards), runs a nonblocking accumulation and a persistent
 * adjacent sum started twice.  A final allreduce of the error counts lets
 * rank 0 print one verdict line; the exit status is non-zero on any error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <rtopo.h>
#ifdef RTOPO_EXAMPLE_MPI
#include <mpi.h>
#define BETWEEN_OPS() MPI_Barrier(MPI_COMM_WORLD)
#else
#define BETWEEN_OPS() ((void)0)
#endif

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

static rtopo_topo_t *otis;
static int n;              /* groups, and processors per group: E = n */
static int me[2];          /* this rank's (G, P) */
static long nops, nerr;    /* operations checked, wrong results */

/* The data: element e of value j (consecutive sum; 0 otherwise) of the
 * rank at (g, q).  Small integers, so that float and double sums are exact
 * whatever the order of combination. */
static int64_t datum(int g, int q, int j, size_t e)
{
    return (int64_t)((g * 37 + q * 11 + j * 5 + (long)(e % 97) * 3) % 199) - 99;
}

/* the value of the rank at coordinate y of this rank's line along dim */
static int64_t at(int dim, int y, int j, size_t e)
{
    return dim == 0 ? datum(y, me[1], j, e) : datum(me[0], y, j, e);
}

static size_t esize(rtopo_datatype_t t)
{
    return t == RTOPO_INT32 || t == RTOPO_FLOAT ? 4 : 8;
}

static void put(rtopo_datatype_t t, void *b, size_t i, int64_t v)
{
    switch (t) {
    case RTOPO_INT32:  ((int32_t *)b)[i] = (int32_t)v; break;
    case RTOPO_INT64:  ((int64_t *)b)[i] = v; break;
    case RTOPO_FLOAT:  ((float *)b)[i] = (float)v; break;
    default:           ((double *)b)[i] = (double)v; break;
    }
}

/* element i of acc = acc op v; integer sums and products wrap around (two's
 * complement), as rtopo's do, so they are computed unsigned */
#define COMBINE(T, U, a, x)                                                   \
    do {                                                                      \
        T *a_ = (T *)(a), x_ = (T)(x);                                        \
        switch (op) {                                                         \
        case RTOPO_SUM:  *a_ = (T)((U)*a_ + (U)x_); break;                    \
        case RTOPO_PROD: *a_ = (T)((U)*a_ * (U)x_); break;                    \
        case RTOPO_MIN:  if (x_ < *a_) *a_ = x_; break;                       \
        default:         if (x_ > *a_) *a_ = x_; break;                       \
        }                                                                     \
    } while (0)

static void combine(rtopo_datatype_t t, rtopo_op_t op, void *acc, size_t i,
                    int64_t v)
{
    switch (t) {
    case RTOPO_INT32:  COMBINE(int32_t, uint32_t, (int32_t *)acc + i, v); break;
    case RTOPO_INT64:  COMBINE(int64_t, uint64_t, (int64_t *)acc + i, v); break;
    case RTOPO_FLOAT:  COMBINE(float, float, (float *)acc + i, v); break;
    default:           COMBINE(double, double, (double *)acc + i, v); break;
    }
}

static void verdict(const char *what, int dim, int m, size_t count,
                    const void *got, const void *want, size_t bytes)
{
    nops++;
    if (memcmp(got, want, bytes) != 0) {
        nerr++;
        fprintf(stderr, "rank (G=%d, P=%d): wrong %s along %s, m=%d, %zu "
                "elements/bytes\n", me[0], me[1], what, dim ? "P" : "G", m,
                count);
    }
}

static void *xmalloc(size_t len)
{
    void *p = malloc(len ? len : 1);

    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

/* accumulate: block i of recvbuf is the buffer of the rank at (x+i) mod n;
 * a byte buffer of `bytes` bytes, byte k = low byte of datum(.., k) */
static void check_accumulate(int dim, int m, size_t bytes)
{
    unsigned char *send = xmalloc(bytes), *recv = xmalloc((size_t)m * bytes);
    unsigned char *want = xmalloc((size_t)m * bytes);
    int x = me[dim], i;
    size_t k;

    for (k = 0; k < bytes; k++)
        send[k] = (unsigned char)at(dim, x, 0, k);
    for (i = 0; i < m; i++)
        for (k = 0; k < bytes; k++)
            want[(size_t)i * bytes + k] = (unsigned char)at(dim, (x + i) % n, 0, k);
    memset(recv, 0xee, (size_t)m * bytes);
    CHECK(rtopo_accumulate(otis, dim, send, recv, bytes, m));
    BETWEEN_OPS();
    verdict("accumulate", dim, m, bytes, recv, want, (size_t)m * bytes);
    free(send);
    free(recv);
    free(want);
}

/* adjacent sum: the buffers of the ranks at (x+i) mod n, 0 <= i < m,
 * combined element by element */
static void check_adjacent(int dim, int m, size_t count, rtopo_datatype_t t,
                           rtopo_op_t op)
{
    size_t es = esize(t), e;
    void *send = xmalloc(count * es), *recv = xmalloc(count * es);
    void *want = xmalloc(count * es);
    int x = me[dim], i;

    for (e = 0; e < count; e++) {
        put(t, send, e, at(dim, x, 0, e));
        put(t, want, e, at(dim, x, 0, e));
        for (i = 1; i < m; i++)
            combine(t, op, want, e, at(dim, (x + i) % n, 0, e));
    }
    memset(recv, 0xee, count * es);
    CHECK(rtopo_adjacent_sum(otis, dim, send, recv, count, t, op, m));
    BETWEEN_OPS();
    verdict("adjacent_sum", dim, m, count, recv, want, count * es);
    free(send);
    free(recv);
    free(want);
}

/* consecutive sum: blocks of m ranks at b .. b+m-1 (m divides n); every
 * rank holds m values of count elements, and the rank at place j of its
 * block gets value j of every rank of the block, combined */
static void check_consecutive(int dim, int m, size_t count, rtopo_datatype_t t,
                              rtopo_op_t op)
{
    size_t es = esize(t), e;
    void *send = xmalloc((size_t)m * count * es), *recv = xmalloc(count * es);
    void *want = xmalloc(count * es);
    int x = me[dim], b = x - x % m, j = x % m, y;

    for (y = 0; y < m; y++)
        for (e = 0; e < count; e++)
            put(t, send, (size_t)y * count + e, at(dim, x, y, e));
    for (e = 0; e < count; e++) {
        put(t, want, e, at(dim, b, j, e));
        for (y = b + 1; y < b + m; y++)
            combine(t, op, want, e, at(dim, y, j, e));
    }
    memset(recv, 0xee, count * es);
    CHECK(rtopo_consecutive_sum(otis, dim, send, recv, count, t, op, m));
    BETWEEN_OPS();
    verdict("consecutive_sum", dim, m, count, recv, want, count * es);
    free(send);
    free(recv);
    free(want);
}

/* a call every rank makes alike with bad arguments: refused on every rank
 * with `want`, after which the context stays usable */
static void expect(const char *what, int st, int want)
{
    nops++;
    if (st != want) {
        nerr++;
        fprintf(stderr, "rank (G=%d, P=%d): %s returned %s (%s), expected %s\n",
                me[0], me[1], what, rtopo_err_name(st), rtopo_last_error(),
                rtopo_err_name(want));
    }
    BETWEEN_OPS();
}

static void check_errors(void)
{
    /* room for what a wrong m would ask for, had it been accepted */
    int64_t a[8] = { 0 }, *r = xmalloc((size_t)(n + 1) * sizeof a);
    int non_divisor, m2 = n > 1 ? 2 : 1;

    expect("adjacent_sum m=0",
           rtopo_adjacent_sum(otis, 1, a, r, 1, RTOPO_INT64, RTOPO_SUM, 0),
           RTOPO_ERR_INVAL);
    expect("accumulate m=n+1",
           rtopo_accumulate(otis, 0, a, r, sizeof a[0], n + 1), RTOPO_ERR_INVAL);
    expect("accumulate dim=2", rtopo_accumulate(otis, 2, a, r, sizeof a[0], 1),
           RTOPO_ERR_INVAL);
    expect("adjacent_sum in place",
           rtopo_adjacent_sum(otis, 0, a, a, 1, RTOPO_INT64, RTOPO_SUM, m2),
           RTOPO_ERR_INVAL);
    /* 3 divides no power of two above 2 */
    non_divisor = n > 2 ? 3 : 0;
    if (non_divisor)
        expect("consecutive_sum m=3",
               rtopo_consecutive_sum(otis, 1, a, r, 1, RTOPO_INT64, RTOPO_SUM,
                                     non_divisor), RTOPO_ERR_INVAL);
    /* nothing to move: the buffers may be NULL, or the same */
    expect("adjacent_sum count=0",
           rtopo_adjacent_sum(otis, 1, NULL, NULL, 0, RTOPO_INT64, RTOPO_SUM, m2),
           RTOPO_OK);
    expect("accumulate bytes=0",
           rtopo_accumulate(otis, 0, NULL, NULL, 0, m2), RTOPO_OK);
    expect("consecutive_sum count=0 in place",
           rtopo_consecutive_sum(otis, 0, a, a, 0, RTOPO_INT64, RTOPO_SUM, m2),
           RTOPO_OK);
    free(r);
}

/* the nonblocking accumulation, and a persistent adjacent sum started twice
 * with new data in between */
static void check_requests(void)
{
    int dim = 1, m = n > 2 ? 3 : n, x = me[dim], i, round;
    int64_t send[4], recv[4 * 8], want[4 * 8], sum[4], wsum[4];
    rtopo_req_t *req;
    size_t e;

    for (e = 0; e < 4; e++)
        send[e] = at(dim, x, 0, e);
    for (i = 0; i < m; i++)
        for (e = 0; e < 4; e++)
            want[i * 4 + e] = at(dim, (x + i) % n, 0, e);
    CHECK(rtopo_iaccumulate(otis, dim, send, recv, sizeof send, m, &req));
    CHECK(rtopo_wait(req));
    CHECK(rtopo_req_free(req));
    BETWEEN_OPS();
    verdict("iaccumulate", dim, m, sizeof send, recv, want, m * sizeof send);

    dim = 0;
    x = me[dim];
    CHECK(rtopo_adjacent_sum_init(otis, dim, send, sum, 4, RTOPO_INT64,
                                  RTOPO_SUM, m, &req));
    for (round = 0; round < 2; round++) {
        for (e = 0; e < 4; e++) {
            send[e] = at(dim, x, round, e);
            wsum[e] = 0;
            for (i = 0; i < m; i++)
                wsum[e] += at(dim, (x + i) % n, round, e);
        }
        CHECK(rtopo_start(req));
        CHECK(rtopo_wait(req));
        BETWEEN_OPS();
        verdict("adjacent_sum_init", dim, m, 4, sum, wsum, sizeof sum);
    }
    CHECK(rtopo_req_free(req));
}

#ifdef RTOPO_EXAMPLE_MPI
/* rtopo's bootstrap over MPI: the allgather callback of rtopo_config_t,
 * on a duplicate of MPI_COMM_WORLD of rtopo's own, so that its calls never
 * interleave with the program's MPI collectives */
static MPI_Comm rtopo_comm;

static int mpi_allgather(const void *sendbuf, void *recvbuf, size_t len,
                         void *arg)
{
    return MPI_Allgather(sendbuf, (int)len, MPI_BYTE, recvbuf, (int)len,
                         MPI_BYTE, *(MPI_Comm *)arg) != MPI_SUCCESS;
}
#endif

int main(int argc, char **argv)
{
    static const struct { rtopo_datatype_t t; rtopo_op_t op; size_t count; }
    kinds[] = {
        { RTOPO_INT64, RTOPO_SUM, 1 },
        { RTOPO_INT64, RTOPO_SUM, 3000 },   /* long: cut into pieces */
        { RTOPO_INT32, RTOPO_MAX, 5 },
        { RTOPO_INT64, RTOPO_PROD, 3 },
        { RTOPO_FLOAT, RTOPO_MIN, 5 },
        { RTOPO_DOUBLE, RTOPO_SUM, 7 },
    };
    static const size_t acc_bytes[] = { 5, 8 * 3000 };
    rtopo_ctx_t *ctx;
    int p, dim, c, ms[6], nm = 0, i, k;
    int64_t counts[2], total[2];

#ifdef RTOPO_EXAMPLE_MPI
    rtopo_config_t cfg = RTOPO_CONFIG_INIT;

    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &rtopo_comm);
    MPI_Comm_rank(rtopo_comm, &cfg.rank);
    MPI_Comm_size(rtopo_comm, &cfg.nranks);
    cfg.allgather = mpi_allgather;
    cfg.allgather_arg = &rtopo_comm;    /* valid until rtopo_finalize */
    CHECK(rtopo_init(&cfg, &ctx));
#else
    /* NULL config: rank, size and transport come from rtopo-run's
     * environment, or from PMIx under mpirun */
    CHECK(rtopo_init(NULL, &ctx));
#endif
    (void)argc;
    (void)argv;
    p = rtopo_size(ctx);

    /* p = n*n, n a power of two; any other size makes the creation fail
     * with RTOPO_ERR_TOPO, and rtopo_last_error() names sizes that fit */
    for (n = 1; n * n < p; n++)
        ;
    CHECK(rtopo_topo_otis_hypercube(ctx, n, &otis));
    CHECK(rtopo_topo_coords(otis, rtopo_topo_rank(otis), me));

    /* window sizes: 1, 2, 3, n/2, n-1, n, those valid and distinct */
    {
        int cand[6] = { 1, 2, 3, n / 2, n - 1, n };

        for (i = 0; i < 6; i++) {
            int dup = cand[i] < 1 || cand[i] > n;

            for (k = 0; k < nm && !dup; k++)
                dup = ms[k] == cand[i];
            if (!dup)
                ms[nm++] = cand[i];
        }
    }

    for (dim = 0; dim < 2; dim++) {
        CHECK(rtopo_topo_extent(otis, dim) == n ? RTOPO_OK : RTOPO_ERR_TOPO);
        for (i = 0; i < nm; i++) {
            int m = ms[i];

            for (k = 0; k < 2; k++)
                check_accumulate(dim, m, acc_bytes[k]);
            for (c = 0; c < (int)(sizeof kinds / sizeof kinds[0]); c++) {
                check_adjacent(dim, m, kinds[c].count, kinds[c].t, kinds[c].op);
                if (n % m == 0)
                    check_consecutive(dim, m, kinds[c].count, kinds[c].t,
                                      kinds[c].op);
            }
        }
    }
    check_errors();
    check_requests();

    /* one verdict for the job */
    counts[0] = nops;
    counts[1] = nerr;
    CHECK(rtopo_allreduce(otis, counts, total, 2, RTOPO_INT64, RTOPO_SUM));
    if (rtopo_rank(ctx) == 0) {
        printf("otis_hypercube_sums: %s: OTIS-hypercube of %d groups of %d "
               "(%d ranks), accumulate / adjacent_sum / consecutive_sum along "
               "G and P, m in {", total[1] ? "FAILED" : "OK", n, n, p);
        for (i = 0; i < nm; i++)
            printf("%s%d", i ? "," : "", ms[i]);
        printf("}: %lld wrong of %lld checks\n", (long long)total[1],
               (long long)total[0]);
    }

    CHECK(rtopo_topo_free(otis));
    CHECK(rtopo_finalize(ctx));
#ifdef RTOPO_EXAMPLE_MPI
    MPI_Comm_free(&rtopo_comm);
    MPI_Finalize();
#endif
    return total[1] != 0;
}
