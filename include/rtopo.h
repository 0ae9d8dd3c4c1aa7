/*
 * rtopo.h - virtual topologies and collectives over RDMA.
 *
 * The only installed header.  Every entry point is documented in its own
 * man page (rtopo(7) gives the overview); this header keeps the
 * declarations and the one list of status codes.
 */
#ifndef RTOPO_H
#define RTOPO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define RTOPO_EXPORT __attribute__((visibility("default")))
#else
#define RTOPO_EXPORT
#endif

#define RTOPO_VERSION_MAJOR 0
#define RTOPO_VERSION_MINOR 1
#define RTOPO_VERSION_PATCH 0

/*
 * Status codes: 0 is success, everything else is negative.  One list
 * generates the enum, rtopo_strerror() and rtopo_err_name().
 * XX(name, value, description)
 */
#define RTOPO_ERRNO_MAP(XX)                                                   \
    XX(INVAL,       -1,  "invalid argument")                                  \
    XX(NOMEM,       -2,  "out of memory")                                     \
    XX(TOPO,        -3,  "topology does not fit the number of ranks")         \
    XX(MISMATCH,    -4,  "ranks called a collective with inconsistent arguments") \
    XX(PEER,        -5,  "a peer failed or disconnected")                     \
    XX(TIMEOUT,     -6,  "operation timed out")                               \
    XX(TRANSPORT,   -7,  "transport error")                                   \
    XX(UNSUPPORTED, -8,  "operation not supported")                           \
    XX(AUTH,        -9,  "bootstrap peer failed authentication")              \
    XX(BOOTSTRAP,   -10, "bootstrap failed")                                  \
    XX(BUSY,        -11, "resource busy (operation still in flight)")

typedef enum {
    RTOPO_OK = 0,
#define RTOPO__ERR_ENUM(name, val, msg) RTOPO_ERR_##name = (val),
    RTOPO_ERRNO_MAP(RTOPO__ERR_ENUM)
#undef RTOPO__ERR_ENUM
    RTOPO_ERR_LAST = -12
} rtopo_status_t;

typedef struct rtopo_ctx  rtopo_ctx_t;   /* one per process */
typedef struct rtopo_topo rtopo_topo_t;  /* a virtual topology over the ranks */
typedef struct rtopo_mem  rtopo_mem_t;   /* a registered memory region */
typedef struct rtopo_req  rtopo_req_t;   /* nonblocking or persistent operation */

/*
 * Out-of-band allgather supplied by the caller (for instance over an MPI
 * communicator): every rank contributes `len` bytes from `sendbuf`, and
 * `recvbuf` receives size*len bytes ordered by rank.  Returns 0 on success.
 */
typedef int (*rtopo_allgather_func_t)(const void *sendbuf, void *recvbuf,
                                      size_t len, void *arg);

typedef struct rtopo_config {
    size_t size;                       /* sizeof(rtopo_config_t) */
    int rank;                          /* with allgather: this rank */
    int nranks;                        /* with allgather: number of ranks */
    rtopo_allgather_func_t allgather;  /* NULL: launcher environment or PMIx */
    void *allgather_arg;
    const char *transport;             /* NULL: RTOPO_TRANSPORT, else "auto" */
    int timeout_ms;                    /* 0: RTOPO_TIMEOUT_MS */
} rtopo_config_t;

/* Initialise a config with defaults (everything from the environment). */
#define RTOPO_CONFIG_INIT { sizeof(rtopo_config_t), -1, 0, NULL, NULL, NULL, 0 }

typedef enum {
    RTOPO_SHIFT_AUTO = 0,
    RTOPO_SHIFT_RING,       /* ring-neighbour hops, shorter direction */
    RTOPO_SHIFT_MESH,       /* row stage, compensation, column stage */
    RTOPO_SHIFT_HYPERCUBE,  /* Gray-code embedding, one phase per bit */
    RTOPO_SHIFT_ECUBE,      /* direct route on the identity cube embedding,
                               dimension ordered */
    RTOPO_SHIFT_DIRECT      /* one connection to (i+q) mod p */
} rtopo_shift_algo_t;

/* Strategies of the windowed scatter from a host to a hypercube
 * (rtopo_scatter(3)). */
typedef enum {
    RTOPO_SCATTER_AUTO = 0,
    RTOPO_SCATTER_SEQ,          /* the host sends every window itself */
    RTOPO_SCATTER_BINOMIAL,     /* all windows to node 0, which halves them on */
    RTOPO_SCATTER_SEQSCATTER,   /* 2^x windows to node 0 to scatter, the rest
                                   from the host one by one */
    RTOPO_SCATTER_DECREMENTAL   /* the union of a sub-cube's windows to its
                                   root, sub-cubes of decreasing size */
} rtopo_scatter_algo_t;

/* Element types and operators of reductions and data-dependent
 * collectives (see rtopo(7), DATATYPES AND OPERATORS). */
typedef enum {
    RTOPO_INT32 = 0,        /* int32_t */
    RTOPO_INT64,            /* int64_t */
    RTOPO_FLOAT,            /* float */
    RTOPO_DOUBLE            /* double */
} rtopo_datatype_t;

typedef enum {
    RTOPO_SUM = 0,
    RTOPO_PROD,
    RTOPO_MIN,
    RTOPO_MAX
} rtopo_op_t;

RTOPO_EXPORT const char *rtopo_strerror(int status);
RTOPO_EXPORT const char *rtopo_err_name(int status);
/* Detail of the last error raised in the calling thread ("" if none). */
RTOPO_EXPORT const char *rtopo_last_error(void);
RTOPO_EXPORT const char *rtopo_version(void);

RTOPO_EXPORT int rtopo_init(const rtopo_config_t *cfg, rtopo_ctx_t **ctx);
RTOPO_EXPORT int rtopo_finalize(rtopo_ctx_t *ctx);
RTOPO_EXPORT int rtopo_rank(const rtopo_ctx_t *ctx);
RTOPO_EXPORT int rtopo_size(const rtopo_ctx_t *ctx);
RTOPO_EXPORT int rtopo_barrier(rtopo_ctx_t *ctx);

RTOPO_EXPORT int rtopo_mem_register(rtopo_ctx_t *ctx, void *buf, size_t len,
                                    rtopo_mem_t **mem);
RTOPO_EXPORT int rtopo_mem_deregister(rtopo_mem_t *mem);

RTOPO_EXPORT int rtopo_topo_ring(rtopo_ctx_t *ctx, rtopo_topo_t **topo);
RTOPO_EXPORT int rtopo_topo_mesh(rtopo_ctx_t *ctx, int rows, int cols,
                                 rtopo_topo_t **topo);
RTOPO_EXPORT int rtopo_topo_hypercube(rtopo_ctx_t *ctx, int dim,
                                      rtopo_topo_t **topo);
RTOPO_EXPORT int rtopo_topo_hypercube_host(rtopo_ctx_t *ctx, int dim, int host,
                                           rtopo_topo_t **topo);
RTOPO_EXPORT int rtopo_topo_otis_mesh(rtopo_ctx_t *ctx, int n,
                                      rtopo_topo_t **topo);
RTOPO_EXPORT int rtopo_topo_otis_hypercube(rtopo_ctx_t *ctx, int n,
                                           rtopo_topo_t **topo);
RTOPO_EXPORT int rtopo_topo_free(rtopo_topo_t *topo);
/* How the topologies this context creates next put their ranks on the
 * job's ranks (rtopo_set_place(3)); the start value is RTOPO_PLACE. */
typedef enum {
    RTOPO_PLACE_AUTO = 0,   /* by host or by rank, whose links cost less */
    RTOPO_PLACE_RANK,       /* topology rank = job rank */
    RTOPO_PLACE_HOST        /* by host; RTOPO_ERR_INVAL where sizes do not
                               allow it */
} rtopo_place_t;
RTOPO_EXPORT int rtopo_set_place(rtopo_ctx_t *ctx, rtopo_place_t place);
RTOPO_EXPORT int rtopo_topo_set_shift_algo(rtopo_topo_t *topo,
                                           rtopo_shift_algo_t algo);

RTOPO_EXPORT int rtopo_shift(rtopo_topo_t *t, const void *sendbuf, void *recvbuf,
                             size_t bytes, int q);
RTOPO_EXPORT int rtopo_ishift(rtopo_topo_t *t, const void *sendbuf, void *recvbuf,
                              size_t bytes, int q, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_shift_init(rtopo_topo_t *t, const void *sendbuf,
                                  void *recvbuf, size_t bytes, int q,
                                  rtopo_req_t **req);
RTOPO_EXPORT int rtopo_topo_rank(const rtopo_topo_t *topo);
RTOPO_EXPORT int rtopo_topo_size(const rtopo_topo_t *topo);
RTOPO_EXPORT int rtopo_topo_set_scatter_algo(rtopo_topo_t *topo,
                                             rtopo_scatter_algo_t algo, int x);

RTOPO_EXPORT int rtopo_scatter(rtopo_topo_t *t, const void *sendbuf, size_t sendcount,
                               void *recvbuf, size_t count, size_t stride,
                               size_t elem_size);
RTOPO_EXPORT int rtopo_iscatter(rtopo_topo_t *t, const void *sendbuf,
                                size_t sendcount, void *recvbuf, size_t count,
                                size_t stride, size_t elem_size, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_scatter_init(rtopo_topo_t *t, const void *sendbuf,
                                    size_t sendcount, void *recvbuf, size_t count,
                                    size_t stride, size_t elem_size,
                                    rtopo_req_t **req);

/* Coordinates of a topology's ranks (rtopo_topo_coords(3)): ring (rank),
 * mesh (row, col), hypercube (bit k of the cube node), OTIS-mesh (Gx, Gy,
 * Px, Py), OTIS-hypercube (G, P).  Ranks are the topology's own
 * (rtopo_topo_rank). */
#define RTOPO_MAX_DIMS 32
RTOPO_EXPORT int rtopo_topo_ndims(const rtopo_topo_t *topo);
RTOPO_EXPORT int rtopo_topo_extent(const rtopo_topo_t *topo, int dim);
RTOPO_EXPORT int rtopo_topo_coords(const rtopo_topo_t *topo, int rank, int *coords);
RTOPO_EXPORT int rtopo_topo_rank_at(const rtopo_topo_t *topo, const int *coords);
/* The piece of topo holding this rank that keeps the dimensions whose
 * bit is set in `keep` (rtopo_topo_sub(3)); collective over topo's ranks. */
RTOPO_EXPORT int rtopo_topo_sub(rtopo_topo_t *topo, unsigned keep, rtopo_topo_t **sub);

/* Shift along dimension `dim` (rtopo_shift_dim(3)): every line along it is
 * a ring, shifted by disp, or by a*L + b for line L (the _rule forms);
 * sendbuf == recvbuf shifts in place. */
RTOPO_EXPORT int rtopo_shift_dim(rtopo_topo_t *t, int dim, const void *sendbuf,
                                 void *recvbuf, size_t bytes, int disp);
RTOPO_EXPORT int rtopo_ishift_dim(rtopo_topo_t *t, int dim, const void *sendbuf,
                                  void *recvbuf, size_t bytes, int disp,
                                  rtopo_req_t **req);
RTOPO_EXPORT int rtopo_shift_dim_init(rtopo_topo_t *t, int dim, const void *sendbuf,
                                      void *recvbuf, size_t bytes, int disp,
                                      rtopo_req_t **req);
RTOPO_EXPORT int rtopo_shift_dim_rule(rtopo_topo_t *t, int dim, const void *sendbuf,
                                      void *recvbuf, size_t bytes, int a, int b);
RTOPO_EXPORT int rtopo_ishift_dim_rule(rtopo_topo_t *t, int dim, const void *sendbuf,
                                       void *recvbuf, size_t bytes, int a, int b,
                                       rtopo_req_t **req);
RTOPO_EXPORT int rtopo_shift_dim_rule_init(rtopo_topo_t *t, int dim, const void *sendbuf,
                                           void *recvbuf, size_t bytes, int a, int b,
                                           rtopo_req_t **req);

/* Collectives on every topology (rtopo_bcast(3), rtopo_allreduce(3)): on
 * the OTIS topologies the algorithms of Wang and Sahni over electronic and
 * OTIS links, elsewhere binomial trees and recursive doubling.  Arguments
 * follow MPI (count elements of dtype per rank, root a topology rank);
 * ranks are ordered by topology rank (OTIS: I = G*n + P). */
typedef enum {
    RTOPO_COLL_AUTO = 0,    /* the cost model picks */
    RTOPO_COLL_TOPO,        /* the topology's own algorithm (OTIS: the
                               paper's; others: as GENERIC) */
    RTOPO_COLL_GENERIC      /* binomial tree / recursive doubling */
} rtopo_coll_algo_t;
RTOPO_EXPORT int rtopo_topo_set_coll_algo(rtopo_topo_t *topo, rtopo_coll_algo_t algo);

RTOPO_EXPORT int rtopo_bcast(rtopo_topo_t *t, void *buf, size_t count,
                             rtopo_datatype_t dtype, int root);
RTOPO_EXPORT int rtopo_ibcast(rtopo_topo_t *t, void *buf, size_t count,
                              rtopo_datatype_t dtype, int root, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_bcast_init(rtopo_topo_t *t, void *buf, size_t count,
                                  rtopo_datatype_t dtype, int root, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_allreduce(rtopo_topo_t *t, const void *sendbuf, void *recvbuf,
                                 size_t count, rtopo_datatype_t dtype, rtopo_op_t op);
RTOPO_EXPORT int rtopo_iallreduce(rtopo_topo_t *t, const void *sendbuf, void *recvbuf,
                                  size_t count, rtopo_datatype_t dtype, rtopo_op_t op,
                                  rtopo_req_t **req);
RTOPO_EXPORT int rtopo_allreduce_init(rtopo_topo_t *t, const void *sendbuf,
                                      void *recvbuf, size_t count, rtopo_datatype_t dtype,
                                      rtopo_op_t op, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_scan(rtopo_topo_t *t, const void *sendbuf, void *recvbuf,
                            size_t count, rtopo_datatype_t dtype, rtopo_op_t op);
RTOPO_EXPORT int rtopo_iscan(rtopo_topo_t *t, const void *sendbuf, void *recvbuf,
                             size_t count, rtopo_datatype_t dtype, rtopo_op_t op,
                             rtopo_req_t **req);
RTOPO_EXPORT int rtopo_scan_init(rtopo_topo_t *t, const void *sendbuf, void *recvbuf,
                                 size_t count, rtopo_datatype_t dtype, rtopo_op_t op,
                                 rtopo_req_t **req);

/* OTIS-mesh window broadcast (rtopo_window_bcast(3)): the w x w window at
 * the top left of group `group` tiles every group. */
RTOPO_EXPORT int rtopo_window_bcast(rtopo_topo_t *t, void *buf, size_t count,
                                    rtopo_datatype_t dtype, int group, int w);
RTOPO_EXPORT int rtopo_iwindow_bcast(rtopo_topo_t *t, void *buf, size_t count,
                                     rtopo_datatype_t dtype, int group, int w,
                                     rtopo_req_t **req);
RTOPO_EXPORT int rtopo_window_bcast_init(rtopo_topo_t *t, void *buf, size_t count,
                                         rtopo_datatype_t dtype, int group, int w,
                                         rtopo_req_t **req);

/* Line operations along one dimension (rtopo_shift_fill(3)): a shift with
 * zero fill and end discard; accumulation of the m values ahead
 * (recvbuf holds m blocks of bytes); their reduction (adjacent sum); the
 * reduction of blocks of m consecutive ranks, where the rank at place j of
 * a block gets element block j of every member's m blocks (consecutive
 * sum). */
RTOPO_EXPORT int rtopo_shift_fill(rtopo_topo_t *t, int dim, const void *sendbuf,
                                  void *recvbuf, size_t bytes, int disp);
RTOPO_EXPORT int rtopo_ishift_fill(rtopo_topo_t *t, int dim, const void *sendbuf,
                                   void *recvbuf, size_t bytes, int disp,
                                   rtopo_req_t **req);
RTOPO_EXPORT int rtopo_shift_fill_init(rtopo_topo_t *t, int dim, const void *sendbuf,
                                       void *recvbuf, size_t bytes, int disp,
                                       rtopo_req_t **req);
RTOPO_EXPORT int rtopo_accumulate(rtopo_topo_t *t, int dim, const void *sendbuf,
                                  void *recvbuf, size_t bytes, int m);
RTOPO_EXPORT int rtopo_iaccumulate(rtopo_topo_t *t, int dim, const void *sendbuf,
                                   void *recvbuf, size_t bytes, int m, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_accumulate_init(rtopo_topo_t *t, int dim, const void *sendbuf,
                                       void *recvbuf, size_t bytes, int m,
                                       rtopo_req_t **req);
RTOPO_EXPORT int rtopo_adjacent_sum(rtopo_topo_t *t, int dim, const void *sendbuf,
                                    void *recvbuf, size_t count, rtopo_datatype_t dtype,
                                    rtopo_op_t op, int m);
RTOPO_EXPORT int rtopo_iadjacent_sum(rtopo_topo_t *t, int dim, const void *sendbuf,
                                     void *recvbuf, size_t count, rtopo_datatype_t dtype,
                                     rtopo_op_t op, int m, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_adjacent_sum_init(rtopo_topo_t *t, int dim, const void *sendbuf,
                                         void *recvbuf, size_t count,
                                         rtopo_datatype_t dtype, rtopo_op_t op, int m,
                                         rtopo_req_t **req);
RTOPO_EXPORT int rtopo_consecutive_sum(rtopo_topo_t *t, int dim, const void *sendbuf,
                                       void *recvbuf, size_t count, rtopo_datatype_t dtype,
                                       rtopo_op_t op, int m);
RTOPO_EXPORT int rtopo_iconsecutive_sum(rtopo_topo_t *t, int dim, const void *sendbuf,
                                        void *recvbuf, size_t count,
                                        rtopo_datatype_t dtype, rtopo_op_t op, int m,
                                        rtopo_req_t **req);
RTOPO_EXPORT int rtopo_consecutive_sum_init(rtopo_topo_t *t, int dim, const void *sendbuf,
                                            void *recvbuf, size_t count,
                                            rtopo_datatype_t dtype, rtopo_op_t op, int m,
                                            rtopo_req_t **req);

/* Selection and data-dependent routing (rtopo_select_rank(3),
 * rtopo_concentrate(3)).  Ranks are taken in topology order (OTIS:
 * I = G*n + P).  rtopo_select_rank runs on every topology: *rank gets how
 * many ranks before this one have *selected != 0.  The routing operations
 * run on the OTIS-mesh (Wang and Sahni's algorithms) and the
 * OTIS-hypercube (the hypercube's bit sweeps; RTOPO_ERR_UNSUPPORTED
 * elsewhere) and move one record of recsize bytes per rank:
 *  concentrate  the record of the k-th selected rank (k from 0) goes to
 *               rank k;
 *  distribute   ranks 0..q send their records to ranks dest[0] < dest[1]
 *               < ... < dest[q] (a rank with *dest < 0 sends nothing);
 *  generalize   as distribute, and the record sent by rank i also lands
 *               on every rank j with dest[i] <= j < dest[i+1] (the last
 *               one up to the last rank).
 * *got is 1 where a record landed (recvrec holds it), 0 elsewhere
 * (recvrec untouched).  An input that breaks the order fails the
 * operation with RTOPO_ERR_INVAL on every rank. */
RTOPO_EXPORT int rtopo_select_rank(rtopo_topo_t *t, const int *selected, int64_t *rank);
RTOPO_EXPORT int rtopo_iselect_rank(rtopo_topo_t *t, const int *selected, int64_t *rank,
                                    rtopo_req_t **req);
RTOPO_EXPORT int rtopo_select_rank_init(rtopo_topo_t *t, const int *selected,
                                        int64_t *rank, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_concentrate(rtopo_topo_t *t, const void *sendrec, const int *selected,
                                   void *recvrec, size_t recsize, int *got);
RTOPO_EXPORT int rtopo_iconcentrate(rtopo_topo_t *t, const void *sendrec,
                                    const int *selected, void *recvrec, size_t recsize,
                                    int *got, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_concentrate_init(rtopo_topo_t *t, const void *sendrec,
                                        const int *selected, void *recvrec, size_t recsize,
                                        int *got, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_distribute(rtopo_topo_t *t, const void *sendrec, const int64_t *dest,
                                  void *recvrec, size_t recsize, int *got);
RTOPO_EXPORT int rtopo_idistribute(rtopo_topo_t *t, const void *sendrec,
                                   const int64_t *dest, void *recvrec, size_t recsize,
                                   int *got, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_distribute_init(rtopo_topo_t *t, const void *sendrec,
                                       const int64_t *dest, void *recvrec, size_t recsize,
                                       int *got, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_generalize(rtopo_topo_t *t, const void *sendrec, const int64_t *dest,
                                  void *recvrec, size_t recsize, int *got);
RTOPO_EXPORT int rtopo_igeneralize(rtopo_topo_t *t, const void *sendrec,
                                   const int64_t *dest, void *recvrec, size_t recsize,
                                   int *got, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_generalize_init(rtopo_topo_t *t, const void *sendrec,
                                       const int64_t *dest, void *recvrec, size_t recsize,
                                       int *got, rtopo_req_t **req);

/* Random access write (rtopo_random_write(3)), OTIS topologies: every rank whose
 * *dest >= 0 writes its record to rank *dest; when several write to one
 * rank, the highest writing rank wins.  *got as for the routing
 * operations. */
RTOPO_EXPORT int rtopo_random_write(rtopo_topo_t *t, const void *sendrec,
                                    const int64_t *dest, void *recvrec, size_t recsize,
                                    int *got);
RTOPO_EXPORT int rtopo_irandom_write(rtopo_topo_t *t, const void *sendrec,
                                     const int64_t *dest, void *recvrec, size_t recsize,
                                     int *got, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_random_write_init(rtopo_topo_t *t, const void *sendrec,
                                         const int64_t *dest, void *recvrec,
                                         size_t recsize, int *got, rtopo_req_t **req);

/* Random access read (rtopo_random_write(3)), OTIS topologies: every rank offers
 * its record in sendrec; every rank whose *src >= 0 receives the record of
 * rank *src in recvrec (*got 1), any number of readers per record. */
RTOPO_EXPORT int rtopo_random_read(rtopo_topo_t *t, const void *sendrec, const int64_t *src,
                                   void *recvrec, size_t recsize, int *got);
RTOPO_EXPORT int rtopo_irandom_read(rtopo_topo_t *t, const void *sendrec,
                                    const int64_t *src, void *recvrec, size_t recsize,
                                    int *got, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_random_read_init(rtopo_topo_t *t, const void *sendrec,
                                        const int64_t *src, void *recvrec, size_t recsize,
                                        int *got, rtopo_req_t **req);

/* BPC permutation (rtopo_bpc(3)), any topology of 2^k ranks: rank r's
 * bytes go to the rank whose index bits are r's, permuted and partly
 * complemented as `vector` says: "[A_(k-1), ..., A_0]" (bit |A_i| of the
 * destination is bit i of r, complemented when A_i is negative; -0 is
 * negative), or identity, transpose, reversal, shuffle, unshuffle. */
RTOPO_EXPORT int rtopo_bpc(rtopo_topo_t *t, const char *vector, const void *sendbuf,
                           void *recvbuf, size_t bytes);
RTOPO_EXPORT int rtopo_ibpc(rtopo_topo_t *t, const char *vector, const void *sendbuf,
                            void *recvbuf, size_t bytes, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_bpc_init(rtopo_topo_t *t, const char *vector, const void *sendbuf,
                                void *recvbuf, size_t bytes, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_bpc_dest(rtopo_topo_t *t, const char *vector, int rank);

/* Sort (rtopo_sort(3)), every topology: each rank passes count records of
 * recsize bytes whose key, of type keytype, starts each record; rank r
 * receives records r*count .. r*count + count - 1 of the whole set in
 * ascending (descending != 0: descending) key order, NaN after every
 * number; equal keys keep the order of (rank, index).  sendbuf may be
 * recvbuf.  Leighton's column sort or a merge-split sort (rtopo_sort(3)). */
RTOPO_EXPORT int rtopo_sort(rtopo_topo_t *t, const void *sendbuf, void *recvbuf, size_t count,
                            size_t recsize, rtopo_datatype_t keytype, int descending);
RTOPO_EXPORT int rtopo_isort(rtopo_topo_t *t, const void *sendbuf, void *recvbuf,
                             size_t count, size_t recsize, rtopo_datatype_t keytype,
                             int descending, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_sort_init(rtopo_topo_t *t, const void *sendbuf, void *recvbuf,
                                 size_t count, size_t recsize, rtopo_datatype_t keytype,
                                 int descending, rtopo_req_t **req);

RTOPO_EXPORT int rtopo_start(rtopo_req_t *req);
RTOPO_EXPORT int rtopo_wait(rtopo_req_t *req);
RTOPO_EXPORT int rtopo_test(rtopo_req_t *req, int *done);
RTOPO_EXPORT int rtopo_req_free(rtopo_req_t *req);

#ifdef __cplusplus
}
#endif
#endif /* RTOPO_H */
