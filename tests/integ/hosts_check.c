/*
 * hosts_check - jobs across the emulated hosts of rtopo-run --hosts.
 *
 *   hosts_check data
 *       prints "rank R on HOST" (HOST: gethostname), then on a ring of
 *       every rank: circular shifts by every q in -p..p of 8 bytes and of
 *       1 MiB, a broadcast from the last rank and an allreduce (sum) of
 *       64 Ki int64 per rank, every element checked.  Prints "data ok".
 *
 *   hosts_check fault
 *       prints "ready", then shifts 64 KiB on the ring (q = 1) again and
 *       again, for at most 60 s, until a shift fails: the ranks that
 *       survive a lost host must get RTOPO_ERR_PEER.  Prints "shift:
 *       RTOPO_ERR_PEER after N shifts" and exits 0 on PEER, 1 otherwise.
 *
 * Run under rtopo-run.  Exit status 0 on success, 1 on failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rtopo.h>

static int rank = -1;

static void die(const char *what, int st)
{
    fprintf(stderr, "rank %d: %s: %s (%s)\n", rank, what, rtopo_err_name(st),
            rtopo_last_error());
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint8_t pattern(int src, size_t off, int q)
{
    uint64_t x = ((uint64_t)src << 40) ^ ((uint64_t)(q + 1000) << 24) ^ off;

    x ^= x >> 17;
    x *= 0x9e3779b97f4a7c15ull;
    return (uint8_t)(x >> 56);
}

static int data(rtopo_topo_t *ring, int size)
{
    static const size_t sizes[] = { 8, 1u << 20 };
    const size_t n = 65536;
    uint8_t *sb, *rb;
    int64_t *v, *sum;
    size_t s, i;
    int q, st, from;

    sb = malloc(sizes[1]);
    rb = malloc(sizes[1]);
    v = malloc(n * sizeof(*v));
    sum = malloc(n * sizeof(*sum));
    if (!sb || !rb || !v || !sum)
        die("malloc", RTOPO_ERR_NOMEM);
    for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (q = -size; q <= size; q++) {
            for (i = 0; i < sizes[s]; i++)
                sb[i] = pattern(rank, i, q);
            memset(rb, 0, sizes[s]);
            if ((st = rtopo_shift(ring, sb, rb, sizes[s], q)))
                die("shift", st);
            from = ((rank - q) % size + size) % size;
            for (i = 0; i < sizes[s]; i++)
                if (rb[i] != pattern(from, i, q)) {
                    fprintf(stderr, "rank %d: shift q=%d of %zu bytes: byte %zu is "
                            "%u, expected %u from rank %d\n", rank, q, sizes[s], i,
                            rb[i], pattern(from, i, q), from);
                    return 1;
                }
        }
    for (i = 0; i < n; i++)
        v[i] = rank == size - 1 ? (int64_t)(i * 7 + 3) : -1;
    if ((st = rtopo_bcast(ring, v, n, RTOPO_INT64, size - 1)))
        die("bcast", st);
    for (i = 0; i < n; i++)
        if (v[i] != (int64_t)(i * 7 + 3)) {
            fprintf(stderr, "rank %d: bcast: element %zu is %lld\n", rank, i,
                    (long long)v[i]);
            return 1;
        }
    for (i = 0; i < n; i++)
        v[i] = (int64_t)rank * 1000003 + (int64_t)i;
    if ((st = rtopo_allreduce(ring, v, sum, n, RTOPO_INT64, RTOPO_SUM)))
        die("allreduce", st);
    for (i = 0; i < n; i++)
        if (sum[i] != (int64_t)size * (size - 1) / 2 * 1000003 + (int64_t)size * (int64_t)i) {
            fprintf(stderr, "rank %d: allreduce: element %zu is %lld\n", rank, i,
                    (long long)sum[i]);
            return 1;
        }
    free(sb);
    free(rb);
    free(v);
    free(sum);
    printf("data ok\n");
    return 0;
}

static int fault(rtopo_topo_t *ring)
{
    const size_t bytes = 65536;
    uint8_t *sb = calloc(1, bytes), *rb = calloc(1, bytes);
    double t0 = now_s();
    long k;
    int st = RTOPO_OK;

    if (!sb || !rb)
        die("calloc", RTOPO_ERR_NOMEM);
    printf("ready\n");
    fflush(stdout);
    for (k = 0; now_s() - t0 < 60; k++)
        if ((st = rtopo_shift(ring, sb, rb, bytes, 1)))
            break;
    if (st == RTOPO_OK) {
        fprintf(stderr, "rank %d: no shift failed in 60 s\n", rank);
        return 1;
    }
    printf("shift: %s after %ld shifts\n", rtopo_err_name(st), k);
    fflush(stdout);
    return st == RTOPO_ERR_PEER ? 0 : 1;
}

int main(int argc, char **argv)
{
    rtopo_ctx_t *ctx;
    rtopo_topo_t *ring;
    char host[256] = "";
    int st, rc;

    if (argc != 2 || (strcmp(argv[1], "data") && strcmp(argv[1], "fault"))) {
        fprintf(stderr, "usage: hosts_check data|fault\n");
        return 2;
    }
    if ((st = rtopo_init(NULL, &ctx)))
        die("rtopo_init", st);
    rank = rtopo_rank(ctx);
    gethostname(host, sizeof(host) - 1);
    printf("rank %d on %s\n", rank, host);
    if ((st = rtopo_topo_ring(ctx, &ring)))
        die("rtopo_topo_ring", st);
    rc = !strcmp(argv[1], "data") ? data(ring, rtopo_size(ctx)) : fault(ring);
    rtopo_topo_free(ring);
    /* after a lost host the job is broken: finalize says so, which is
     * not this check's business */
    st = rtopo_finalize(ctx);
    if (st && !strcmp(argv[1], "data"))
        die("rtopo_finalize", st);
    return rc;
}
