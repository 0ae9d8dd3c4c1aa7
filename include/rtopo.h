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
RTOPO_EXPORT int rtopo_topo_otis_mesh(rtopo_ctx_t *ctx, int n,
                                      rtopo_topo_t **topo);
RTOPO_EXPORT int rtopo_topo_otis_hypercube(rtopo_ctx_t *ctx, int n,
                                           rtopo_topo_t **topo);
RTOPO_EXPORT int rtopo_topo_free(rtopo_topo_t *topo);
RTOPO_EXPORT int rtopo_topo_set_shift_algo(rtopo_topo_t *topo,
                                           rtopo_shift_algo_t algo);

RTOPO_EXPORT int rtopo_shift(rtopo_topo_t *t, const void *sendbuf, void *recvbuf,
                             size_t bytes, int q);
RTOPO_EXPORT int rtopo_ishift(rtopo_topo_t *t, const void *sendbuf, void *recvbuf,
                              size_t bytes, int q, rtopo_req_t **req);
RTOPO_EXPORT int rtopo_shift_init(rtopo_topo_t *t, const void *sendbuf,
                                  void *recvbuf, size_t bytes, int q,
                                  rtopo_req_t **req);
RTOPO_EXPORT int rtopo_start(rtopo_req_t *req);
RTOPO_EXPORT int rtopo_wait(rtopo_req_t *req);
RTOPO_EXPORT int rtopo_test(rtopo_req_t *req, int *done);
RTOPO_EXPORT int rtopo_req_free(rtopo_req_t *req);

#ifdef __cplusplus
}
#endif
#endif /* RTOPO_H */
