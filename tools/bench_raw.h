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
#include "rtopo_tool.h"

typedef struct bench_raw {
    rtopo_ctx_t *ctx;
    rtopo__tool_raw_t tl;       /* the context's transport */
    rtopo_mem_t *smem;          /* registered source region */
    rtopo_mem_t *rmem;          /* registered destination region */
    uint8_t *sbuf, *rbuf;       /* ... their addresses */
    struct rtopo__tl_mr *smr;   /* ... the source's registration */
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
/* Point the rounds at other peers (a dimension shift's line neighbours):
 * this rank writes to job rank dst and waits for the write of job rank
 * src.  dst == this rank makes the round a local copy from the source to
 * the destination region, with nothing to wait for (src must then be
 * this rank too: a line that does not move). */
void bench_raw_peers(bench_raw_t *r, int dst, int src);
/* before a block of rounds: connects the two peers and resets the
 * counters; every rank must do it before any rank starts its rounds
 * (a barrier after it) */
int bench_raw_begin(bench_raw_t *r);
/* one round of `bytes`; tag is carried as the immediate */
int bench_raw_round(bench_raw_t *r, size_t bytes, uint32_t tag);
void bench_raw_close(bench_raw_t *r);

/*
 * The scatter baseline (rtopo-bench scatter, rtopo-bench-mpi scatter):
 * job rank `root` writes window i, `bytes` from offset i*stride of its
 * source region, into the destination region of job rank node[i], one
 * RDMA write with immediate data per window (in pieces above the
 * transport's largest write), one after another as fast as the transport
 * takes them; when the root is a node itself its own window is a memcpy.
 * A node's round ends when its window has landed, the root's when all its
 * writes have completed.  Open with any q (bench_raw_open exchanges every
 * rank's destination key); scatter_begin connects the root with every
 * node (every rank calls it, then a barrier, before the rounds).
 */
int bench_raw_scatter_begin(bench_raw_t *r, int root, const int *node, int nnodes);
int bench_raw_scatter_round(bench_raw_t *r, int root, const int *node, int nnodes,
                            size_t bytes, size_t stride, uint32_t tag);

/* "registered buffers", or "unregistered buffers (...)" with what the
 * engine does with them (RTOPO_REG_PER_OP), into buf; returns buf */
const char *bench_buffers_desc(const rtopo_ctx_t *ctx, int unreg, char *buf, size_t len);

/*
 * The data of the collectives (rtopo-bench and rtopo-bench-mpi bcast,
 * allreduce, scan; op is RTOPO__COLL_BCAST, _ALLREDUCE or _SCAN): every
 * rank can compute every rank's send data, so each rank checks its own
 * result element by element against bench_coll_expect.  Element k of
 * rank r is a small integer (bcast: of the root, sum/min/max: from -512
 * to 511, prod: 1 or -1), so that double sums and products are exact in
 * any order.  dt is RTOPO_INT64 or RTOPO_DOUBLE (8 bytes an element).
 */
/* --modes, --buffers: a comma-separated list of the words a and b, as a
 * bit mask (1: a, 2: b); -1 for another word, 0 for none */
int bench_parse_pair(const char *s, const char *a, const char *b);
/* "int64", "double" -> RTOPO_INT64, RTOPO_DOUBLE; -1 otherwise */
int bench_coll_dtype_parse(const char *s);
const char *bench_coll_dtype_name(int dt);
/* "sum", "prod", "min", "max" -> RTOPO_SUM ...; -1 otherwise */
int bench_coll_rop_parse(const char *s);
const char *bench_coll_rop_name(int rop);
/* The collectives the benches time, each its entry keyed by the
 * collective's op (the descriptor's key, rtopo__coll_desc): the public
 * names of the blocking and persistent calls, MPI's, and the call
 * (blocking when req is NULL, else persistent; bcast: rb only). */
typedef struct bench_coll {
    int op;
    const char *fn, *fn_init, *mpi_fn;
    int (*call)(rtopo_topo_t *t, const void *sb, void *rb, size_t count,
                rtopo_datatype_t dt, rtopo_op_t rop, int root, rtopo_req_t **req);
} bench_coll_t;
/* op's entry, NULL when the benches do not time it */
const bench_coll_t *bench_coll_entry(int op);
/* "bcast", "allreduce", "scan" (a collective's name with an entry) ->
 * RTOPO__COLL_*; -1 otherwise */
int bench_coll_op_parse(const char *s);
/* rank r's send data (bcast: what the root r broadcasts) */
void bench_coll_fill(int op, int dt, int rop, int r, void *buf, size_t count);
/* what rank r of p holds after the operation */
void bench_coll_expect(int op, int dt, int rop, int r, int p, int root, void *buf,
                       size_t count);
/* the first element where got and want differ, or count */
size_t bench_coll_diff(int dt, const void *got, const void *want, size_t count);
/* element k, for messages */
double bench_coll_elem(int dt, const void *buf, size_t k);
/* rtopo's call: rtopo_bcast (of rb; sb unused), rtopo_allreduce or
 * rtopo_scan (sb -> rb), blocking when req is NULL, else the persistent
 * form (rtopo_*_init) */
int bench_coll_call(rtopo_topo_t *t, int op, const void *sb, void *rb, size_t count,
                    int dt, int rop, int root, rtopo_req_t **req);

#endif
