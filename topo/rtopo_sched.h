/*
 * rtopo_sched.h - topology descriptors and the schedule representation.
 *
 * One schedule feeds two consumers: the executor (runtime/exec.c) runs it
 * over a transport, the simulator (tools/rtopo-sim, topo/sim.c) runs it
 * under the cost model and can verify the final data placement in memory.
 * Everything in topo/ is a pure function: no I/O, no transport.
 *
 * Ranks are linear labels 0..p-1.  On a hypercube, rank r sits on cube node
 * gray(r) = r ^ (r >> 1) (the overlay, used by the HYPERCUBE algorithm);
 * the E-cube algorithm instead routes over a second embedding of the same
 * cube whose node labels are the ranks themselves (links r <-> r ^ 2^k,
 * link class CUBE_ID).  On a mesh, rank r = row*cols + col; on the OTIS
 * topologies rank r = G*n + P (group G, processor P).
 *
 * A schedule is a set of transfers.  A transfer moves `len` bytes from a
 * buffer of its source rank to a buffer of its destination rank along a
 * route of hops; hop k leaves the previous rank (the source for k = 0)
 * towards hops[k].to over one overlay link during step hops[k].step.
 * Intermediate ranks of a route forward the data chunk by chunk as it
 * lands (cut-through); they do not need to hold the whole payload.
 * A transfer that reads RECV or TMP at its source depends on the transfers
 * that wrote that range there in earlier steps.
 */
#ifndef RTOPO_SCHED_H
#define RTOPO_SCHED_H

#include <stddef.h>
#include <stdint.h>
#include "rtopo.h"

enum rtopo__topo_kind {
    RTOPO__TOPO_RING = 0,
    RTOPO__TOPO_MESH,
    RTOPO__TOPO_HYPERCUBE,
    RTOPO__TOPO_OTIS_MESH,
    RTOPO__TOPO_OTIS_HYPERCUBE,
};

typedef struct rtopo__tdesc {
    int kind;
    int p;        /* ranks */
    int rows;     /* mesh */
    int cols;     /* mesh */
    int dim;      /* hypercube: p = 2^dim; OTIS-hypercube: n = 2^dim */
    int n;        /* OTIS: n groups of n processors, p = n*n */
} rtopo__tdesc_t;

enum rtopo__buf {
    RTOPO__BUF_SEND = 0,
    RTOPO__BUF_RECV = 1,
    RTOPO__BUF_TMP = 2,
    RTOPO__BUF_COUNT
};

/* link classes, for contention accounting and per-class cost parameters */
enum rtopo__link {
    RTOPO__LINK_LOCAL = 0,   /* no link: copy within a rank */
    RTOPO__LINK_RING,
    RTOPO__LINK_ROW,         /* mesh row (also OTIS-mesh in-group row) */
    RTOPO__LINK_COL,         /* mesh column (also OTIS-mesh in-group column) */
    RTOPO__LINK_CUBE,        /* hypercube dimension (also OTIS-hypercube in-group) */
    RTOPO__LINK_OTIS,        /* optical transpose link (G,P) <-> (P,G) */
    RTOPO__LINK_DIRECT,      /* point-to-point connection outside the overlay */
    RTOPO__LINK_HOST,        /* host to node */
    RTOPO__LINK_CUBE_ID,     /* hypercube dimension in the identity embedding
                              * (rank r <-> r ^ 2^dim), used by E-cube */
    RTOPO__LINK_COUNT
};

typedef struct rtopo__hop {
    int32_t to;       /* rank reached by this hop */
    uint32_t step;    /* lock-step round in which the hop is taken */
    uint8_t link;     /* enum rtopo__link */
    uint8_t dim;      /* cube dimension, or 0 */
    int8_t dir;       /* +1 / -1 along ring, row or column; 0 otherwise */
    uint8_t pad;
} rtopo__hop_t;

typedef struct rtopo__xfer {
    int32_t src;
    int32_t dst;
    uint8_t src_buf;  /* enum rtopo__buf */
    uint8_t dst_buf;
    uint16_t pad;
    uint32_t nhops;   /* 0: local copy (src == dst) */
    uint32_t hop0;    /* index of the first hop in sched->hops */
    uint64_t src_off;
    uint64_t dst_off;
    uint64_t len;
} rtopo__xfer_t;

typedef struct rtopo__sched {
    rtopo__tdesc_t topo;
    int algo;             /* rtopo_shift_algo_t actually used */
    uint32_t nxfers;
    uint32_t nhops;
    uint32_t nsteps;      /* lock-step rounds (max hop step + 1) */
    uint64_t tmp_bytes;   /* TMP scratch each rank needs */
    rtopo__xfer_t *xfers;
    rtopo__hop_t *hops;
} rtopo__sched_t;

/* Build a descriptor; RTOPO_ERR_TOPO with a message (rtopo__error)
 * naming the sizes that would fit when p does not fit.  a, b: rows/cols
 * for the mesh, dim for the hypercube, n for OTIS; ignored for the ring. */
int rtopo__tdesc_init(rtopo__tdesc_t *t, int kind, int p, int a, int b);
const char *rtopo__topo_name(int kind);

/* Overlay neighbours of `rank` (each once, no self): fills up to max,
 * returns how many exist. */
int rtopo__topo_neighbors(const rtopo__tdesc_t *t, int rank, int *nbr, int max);

/* Is hop h, leaving rank `from`, a real edge of the overlay for its link
 * class?  RING hops are accepted on every topology (ring connections can
 * be made over any job), DIRECT hops anywhere; ROW/COL need a mesh or an
 * OTIS-mesh, CUBE a hypercube (Gray embedding) or an OTIS-hypercube,
 * CUBE_ID a hypercube (identity embedding: to == from ^ 2^dim); for both
 * cube classes h->dim must name the dimension crossed.  OTIS needs an
 * OTIS topology.  Returns 1 or 0. */
int rtopo__topo_hop_ok(const rtopo__tdesc_t *t, int from, const rtopo__hop_t *h);

/* Gray code helpers */
static inline uint32_t rtopo__gray(uint32_t i) { return i ^ (i >> 1); }
uint32_t rtopo__gray_inv(uint32_t g);

/* Shift schedule: rank i's `bytes` at SEND+0 reach rank (i+q) mod p at
 * RECV+0.  algo RTOPO_SHIFT_AUTO picks by the cost model (model may be
 * NULL for defaults).  RTOPO_ERR_UNSUPPORTED if algo does not apply to t. */
struct rtopo__model;
int rtopo__sched_shift(const rtopo__tdesc_t *t, int algo, long q, size_t bytes,
                       const struct rtopo__model *model, rtopo__sched_t **s_p);
/* AUTO, explained: one entry per applicable algorithm, in the order AUTO
 * tries them (the topology's own first; on equal model time the earlier
 * wins).  evaluated 1: built and simulated, the metrics are the
 * schedule's.  evaluated 0: not built because its lower bound
 * ts + m*tw + (longest_path-1)*th (cheapest class parameters), stored in
 * model_time, already could not beat the best so far. */
#define RTOPO__SHIFT_NCAND 5
typedef struct rtopo__shift_cand {
    int algo;
    int evaluated;
    double model_time;        /* seconds: cut-through, or the lower bound */
    double model_time_sf;     /* evaluated only */
    uint32_t steps;           /* evaluated only */
    uint32_t max_link_load;   /* evaluated only */
    uint32_t longest_path;
} rtopo__shift_cand_t;

/* rtopo__sched_shift(t, RTOPO_SHIFT_AUTO, ...) that also fills cand
 * (may be NULL) and *ncand_p (may be NULL).  q mod p == 0 evaluates only
 * the first candidate: local copies are the same under every algorithm. */
int rtopo__sched_shift_auto(const rtopo__tdesc_t *t, long q, size_t bytes,
                            const struct rtopo__model *model,
                            rtopo__shift_cand_t cand[RTOPO__SHIFT_NCAND],
                            int *ncand_p, rtopo__sched_t **s_p);
void rtopo__sched_free(rtopo__sched_t *s);
/* Allocate a zeroed schedule with room for nxfers transfers and nhops hops
 * (counts set, nsteps 0).  RTOPO_ERR_NOMEM / RTOPO_ERR_INVAL on overflow. */
int rtopo__sched_alloc(const rtopo__tdesc_t *t, uint32_t nxfers, uint32_t nhops,
                       rtopo__sched_t **s_p);
/* Structural check: ranks, buffers and hop ranges in bounds, every hop a
 * real overlay edge of its class (rtopo__topo_hop_ok), routes end at dst,
 * steps strictly increase along a route and stay below nsteps, nsteps is
 * max step + 1, offsets do not overflow and TMP ranges fit tmp_bytes.
 * Returns RTOPO_OK or RTOPO_ERR_INVAL with a message naming the transfer. */
int rtopo__sched_validate(const rtopo__sched_t *s);
const char *rtopo__shift_algo_name(int algo);
/* "local", "ring", "row", "col", "cube", "otis", "direct", "host",
 * "cube-id" */
const char *rtopo__link_name(int link);
int rtopo__link_parse(const char *s);         /* < 0 if unknown */
int rtopo__shift_algo_parse(const char *s);   /* < 0 if unknown */

/* Cost model (SPEC section 4): per link class start-up ts, per-byte tw,
 * per-hop cut-through cost th; chunk size for pipelined routes. */
typedef struct rtopo__model {
    double ts[RTOPO__LINK_COUNT];   /* seconds */
    double tw[RTOPO__LINK_COUNT];   /* seconds per byte */
    double th[RTOPO__LINK_COUNT];   /* seconds per extra hop; < 0: ts + chunk*tw */
    size_t chunk;                   /* bytes */
} rtopo__model_t;

void rtopo__model_default(rtopo__model_t *m);
/* Cost of one extra hop of class `link` on a cut-through route of `bytes`:
 * th[link], or when it is < 0, ts + min(chunk, bytes)*tw of that class. */
double rtopo__model_th(const rtopo__model_t *m, int link, uint64_t bytes);

typedef struct rtopo__sim_result {
    uint32_t steps;           /* lock-step rounds */
    uint32_t max_link_load;   /* most transfers on one link direction in a step */
    uint32_t longest_path;    /* links */
    double model_time;        /* seconds, cut-through pipelined */
    double model_time_sf;     /* seconds, store-and-forward lock-step */
    uint64_t moves[RTOPO__LINK_COUNT];  /* hop count per link class */
    int correct;              /* -1 not checked, 0 wrong, 1 right */
} rtopo__sim_result_t;

/* Evaluate a schedule under the model. */
int rtopo__sim_run(const rtopo__sched_t *s, const rtopo__model_t *m,
                   rtopo__sim_result_t *r);

/* Execute the data movement in memory: bufs[rank][buf] point to per-rank
 * buffers (SEND, RECV, TMP); transfers run in step order. */
int rtopo__sim_exec(const rtopo__sched_t *s, uint8_t *const *const *bufs);
/* The same, also checking every range against size[buf] (bytes of each
 * rank's SEND, RECV and TMP buffer).  Within a step all reads (first hops)
 * happen before all writes (last hops), so a transfer sees only data that
 * landed in earlier steps.  Data moves hop by hop through per-hop staging.
 * Local copies (nhops 0) have no step: those reading SEND run before step
 * 0, those reading RECV or TMP after the last step.  RTOPO_ERR_INVAL for an
 * out-of-range rank, buffer, hop or byte range; RTOPO_ERR_NOMEM. */
int rtopo__sim_exec_sized(const rtopo__sched_t *s, uint8_t *const *const *bufs,
                          const uint64_t size[RTOPO__BUF_COUNT]);

#endif
