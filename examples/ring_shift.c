/*
 * ring_shift.c - circular shifts on a ring of ranks with rtopo.
 *
 * Build against an installed rtopo and run four ranks on this machine:
 *
 *   cc -O2 ring_shift.c $(pkg-config --cflags --libs rtopo) -o ring_shift
 *   rtopo-run -n 4 ./ring_shift            (one machine: rtopo's own shm)
 *   rtopo-run -n 4 --transport ofi:shm ./ring_shift
 *
 * Each rank fills a buffer with its rank number and shifts it by every q
 * from -p to p: afterwards rank i must hold the data of rank (i - q) mod p.
 * Then it times a 4 MiB shift: the first blocking one is cold (it builds
 * the schedule for this size, which later shifts take from a cache, and
 * waits for the last rank to arrive); then warm blocking, nonblocking and
 * persistent-request shifts, each averaged over ten repetitions, and a
 * blocking shift of plain malloc'd buffers that were never registered,
 * which it then frees and allocates again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
    const size_t big = 4u << 20;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *ring;
    rtopo_mem_t *smem, *rmem;
    rtopo_req_t *req;
    int rank, size, q, i, done;
    long *sendbuf, *recvbuf;
    long *plain_s, *plain_r;
    double t0, t_cold, t_block, t_nb, t_pers, t_plain;

    /* NULL config: rank, size and transport come from rtopo-run's
     * environment (or PMIx under mpirun) */
    CHECK(rtopo_init(NULL, &ctx));
    rank = rtopo_rank(ctx);
    size = rtopo_size(ctx);

    /* a ring connects each rank to its two neighbours only */
    CHECK(rtopo_topo_ring(ctx, &ring));

    /* registered buffers move by zero-copy RDMA write straight into the
     * receiver's memory (unregistered ones: see the end) */
    sendbuf = malloc(big);
    recvbuf = malloc(big);
    CHECK(rtopo_mem_register(ctx, sendbuf, big, &smem));
    CHECK(rtopo_mem_register(ctx, recvbuf, big, &rmem));

    for (q = -size; q <= size; q++) {
        int from = ((rank - q) % size + size) % size;
        sendbuf[0] = rank;
        recvbuf[0] = -1;
        CHECK(rtopo_shift(ring, sendbuf, recvbuf, sizeof(long), q));
        if (recvbuf[0] != from) {
            fprintf(stderr, "rank %d: q=%d brought %ld, expected %d\n", rank, q,
                    recvbuf[0], from);
            return 1;
        }
    }
    if (rank == 0)
        printf("shifted 8 bytes for every q in [%d, %d] on %d ranks: all correct\n",
               -size, size, size);

    for (i = 0; i < (int)(big / sizeof(long)); i++)
        sendbuf[i] = rank;

    /* blocking, the first time at this size: includes one-time set-up */
    t0 = seconds();
    CHECK(rtopo_shift(ring, sendbuf, recvbuf, big, 1));
    t_cold = seconds() - t0;

    /* blocking again, now warm */
    t0 = seconds();
    for (i = 0; i < 10; i++)
        CHECK(rtopo_shift(ring, sendbuf, recvbuf, big, 1));
    t_block = (seconds() - t0) / 10;

    /* nonblocking: other work could run between ishift and wait; test()
     * also drives progress */
    t0 = seconds();
    for (i = 0; i < 10; i++) {
        CHECK(rtopo_ishift(ring, sendbuf, recvbuf, big, 1, &req));
        CHECK(rtopo_test(req, &done));
        if (!done)
            CHECK(rtopo_wait(req));
        CHECK(rtopo_req_free(req));
    }
    t_nb = (seconds() - t0) / 10;

    /* persistent: set up once, start many times (Jacobi-style halo loops) */
    CHECK(rtopo_shift_init(ring, sendbuf, recvbuf, big, 1, &req));
    t0 = seconds();
    for (i = 0; i < 10; i++) {
        CHECK(rtopo_start(req));
        CHECK(rtopo_wait(req));
    }
    t_pers = (seconds() - t0) / 10;
    CHECK(rtopo_req_free(req));

    if (recvbuf[big / sizeof(long) - 1] != (rank + size - 1) % size) {
        fprintf(stderr, "rank %d: wrong data after the 4 MiB shifts\n", rank);
        return 1;
    }
    printf("rank %d: 4 MiB from rank %d: first (cold) blocking shift %.0f us; warm: "
           "blocking %.0f us (%.0f MB/s), nonblocking %.0f us, persistent %.0f us "
           "(%.0f MB/s)\n", rank, (rank + size - 1) % size, t_cold * 1e6,
           t_block * 1e6, big / t_block / 1e6, t_nb * 1e6, t_pers * 1e6,
           big / t_pers / 1e6);

    /* buffers nobody registered work too: rtopo registers them itself
     * (on verbs from the size RTOPO_REG_PER_OP gives, which rtopo_init
     * measures; smaller ones are copied through its staging memory) and
     * keeps the registration for the next shift of the same buffers, as
     * in this loop, until their memory is freed (RTOPO_REG_CACHE) */
    plain_s = malloc(big);
    plain_r = malloc(big);
    memcpy(plain_s, sendbuf, big);
    CHECK(rtopo_shift(ring, plain_s, plain_r, big, 1));     /* warm-up */
    t0 = seconds();
    for (i = 0; i < 10; i++)
        CHECK(rtopo_shift(ring, plain_s, plain_r, big, 1));
    t_plain = (seconds() - t0) / 10;
    if (memcmp(plain_r, recvbuf, big)) {
        fprintf(stderr, "rank %d: wrong data after the unregistered shifts\n", rank);
        return 1;
    }
    printf("rank %d: 4 MiB, unregistered buffers: blocking %.0f us (%.0f MB/s)\n", rank,
           t_plain * 1e6, big / t_plain / 1e6);

    /* freeing them right after a shift is safe, and new buffers (perhaps
     * at the same addresses, with other pages) are registered afresh */
    free(plain_s);
    free(plain_r);
    plain_s = malloc(big);
    plain_r = malloc(big);
    for (i = 0; i < (int)(big / sizeof(long)); i++)
        plain_s[i] = rank * 1000 + i % 7;
    CHECK(rtopo_shift(ring, plain_s, plain_r, big, 1));
    for (i = 0; i < (int)(big / sizeof(long)); i++)
        if (plain_r[i] != ((rank + size - 1) % size) * 1000 + i % 7) {
            fprintf(stderr, "rank %d: wrong data in new unregistered buffers\n", rank);
            return 1;
        }
    free(plain_s);
    free(plain_r);

    CHECK(rtopo_mem_deregister(smem));
    CHECK(rtopo_mem_deregister(rmem));
    CHECK(rtopo_topo_free(ring));
    CHECK(rtopo_finalize(ctx));
    free(sendbuf);
    free(recvbuf);
    return 0;
}
