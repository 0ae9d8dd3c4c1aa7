/*
 * bench_raw.h - the raw transport baseline shared by rtopo-bench and
 * rtopo-bench-mpi: one RDMA write with immediate data from registered
 * memory on rank i into registered memory on rank (i+q) mod p, straight
 * through the transport of the context, with nothing of rtopo on top (no
 * schedule, no windows, no forwarding).  A size above the transport's
 * largest single write goes in consecutive pieces, the last one carrying
 * the immediate.  One round ends when this rank's writes have completed
 * and the write from rank (i-q) mod p has landed.
 *
 * The raw events come from the same completion queue as the engine's:
 * measure the baseline only while no rtopo operation is in flight on any
 * rank (a barrier between a block of rounds and an rtopo operation), and
 * not with RTOPO_PROGRESS=thread.
 */
#ifndef RTOPO_BENCH_RAW_H
#define RTOPO_BENCH_RAW_H

#include <stddef.h>
#include <stdint.h>
#include "rtopo_int.h"

typedef struct bench_raw {
    rtopo_ctx_t *ctx;
    rtopo_mem_t *smem;          /* registered source region */
    rtopo__rkey_t *rkeys;       /* every rank's destination region */
    int dst, src;               /* (i+q) mod p, (i-q) mod p */
    long done, imm;             /* completions and incoming writes seen */
    long writes, rounds;        /* ... and expected */
    const char *what;           /* on failure: the step that failed */
    char msg[96];               /* ... the transport's message */
} bench_raw_t;

/* Collective (exchanges the destination keys through the bootstrap).
 * smem and rmem must be large enough for every size. */
int bench_raw_open(bench_raw_t *r, rtopo_ctx_t *ctx, long q, rtopo_mem_t *smem,
                   rtopo_mem_t *rmem);
/* before a block of rounds: connects the two peers and resets the
 * counters; every rank must do it before any rank starts its rounds
 * (a barrier after it) */
int bench_raw_begin(bench_raw_t *r);
/* one round of `bytes`; tag is carried as the immediate */
int bench_raw_round(bench_raw_t *r, size_t bytes, uint32_t tag);
void bench_raw_close(bench_raw_t *r);

#endif
