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
 * A schedule (format v2) is a graph of nodes.  Nodes 0..nxfers-1 are
 * transfers, nodes nxfers..nxfers+nkerns-1 local kernels.
 *  - A transfer moves `len` bytes from a buffer of its source rank to a
 *    buffer of its destination rank along a route of hops; hop k leaves
 *    the previous rank (the source for k = 0) towards hops[k].to over one
 *    overlay link.  Intermediate ranks forward the data chunk by chunk as
 *    it lands (cut-through); they never hold the whole payload.  A
 *    transfer without hops is a copy within one rank.
 *  - A kernel runs on one rank over its own buffers: fill, combine with an
 *    operator and datatype, compare-exchange, sort, select (see below).
 * A node touches a rank through its parts: a transfer's SEND part reads
 * its source range (on src), its RECV part writes its destination range
 * (on dst); a copy or kernel has one LOCAL part that reads and writes.
 * Dependency edges order parts on one rank: edge (rank, pred, succ) means
 * succ's part on `rank` starts only when pred's part on `rank` is done.
 * A SEND part is done when its data has left the source buffer, a RECV
 * part when the data is in the destination buffer, a LOCAL part when it
 * ran.  Edge kinds name the hazard: read-after-write, write-after-read,
 * write-after-write, and PORT (a rank's sends leave in the order given).
 * Nothing else orders the parts: the executor and the simulator run
 * exactly this graph.  Generators write steps (lock-step rounds: a hop's
 * step, a local node's step) and let rtopo__sched_deps_infer() derive the
 * edges from steps and byte ranges.
 */
#ifndef RTOPO_SCHED_H
#define RTOPO_SCHED_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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
    int host;     /* 1: rank p-1 is a host endpoint outside the overlay,
                     joined to every other rank by a HOST link */
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
    uint32_t step;    /* nhops 0: the step the copy runs in (after that
                         step's transfers landed); else unused */
    uint32_t nhops;   /* 0: local copy (src == dst) */
    uint32_t hop0;    /* index of the first hop in sched->hops */
    uint64_t src_off;
    uint64_t dst_off;
    uint64_t len;
} rtopo__xfer_t;     /* 48 bytes: a transfer written out whole */

/* A schedule holds its transfers compact, as its kernels: what varies
 * from rank to rank (the ranks, the copy's step, where the route's hops
 * start) in the node, the rest (the transfer's shape: buffers, ranges,
 * route length) once in the schedule's table of shapes, which many
 * transfers share.  Read a transfer's node at s->xfers[i] (src, dst,
 * step, hop0), its shape with rtopo__sched_xshape, the whole with
 * rtopo__sched_xfer; write one with rtopo__sched_xset. */
typedef struct rtopo__xshape {
    uint8_t src_buf;
    uint8_t dst_buf;
    uint16_t pad;
    uint32_t nhops;
    uint64_t src_off;
    uint64_t dst_off;
    uint64_t len;
} rtopo__xshape_t;    /* 32 bytes */

typedef struct rtopo__xnode {
    int32_t src;
    int32_t dst;
    uint32_t step;
    uint32_t hop0;
    uint32_t shape;   /* index in the schedule's table of transfer shapes */
} rtopo__xnode_t;     /* 20 bytes */

/* A table of distinct shapes (shapes.c), one block made with its first
 * shape: while it grows, room for cap shapes of esz bytes each and after
 * them an index to find one (2 * cap slots of uint32, open addressing:
 * shape + 1, or 0); once done growing, exactly n shapes and no index
 * (cap 0; a later put makes one again).  last: the shapes the last four
 * puts that hashed found or added, + 1, or 0 (a put compares them first:
 * builders make runs of nodes of one shape, or each rank's few kernels
 * rank after rank), next: the entry of last the next such put takes.
 * The transfers' and the kernels' tables are typed views of it (the same
 * header, their shapes at v). */
#define RTOPO__SHAPES_RECENT 4
#define RTOPO__SHAPES_HEAD                                                     \
    uint32_t n;                                                                \
    uint32_t cap;                                                              \
    uint32_t esz;                                                              \
    uint32_t next;                                                             \
    uint32_t last[RTOPO__SHAPES_RECENT]
typedef struct rtopo__shapes {
    RTOPO__SHAPES_HEAD;
    uint64_t v[];
} rtopo__shapes_t;
/* The index of the esz-byte shape h in *t_p (added when new; *t_p NULL:
 * a table is made), or UINT32_MAX out of memory (or a table of another
 * size, or esz not a whole number of 64-bit words). */
uint32_t rtopo__shapes_put(rtopo__shapes_t **t_p, const void *h, size_t esz);
/* drops *t_p's index and spare room (the shapes stay; a later put
 * rebuilds the index); *t_p may be NULL */
void rtopo__shapes_done(rtopo__shapes_t **t_p);
/* frees *t_p (may be NULL) and sets it NULL */
void rtopo__shapes_free(rtopo__shapes_t **t_p);
/* Keeps only the shapes some of the nn nodes use, in the order of their
 * first use, and renumbers the nodes' shape fields (a uint32 at byte off
 * of each stride-byte node); no node or no shape: the table goes.
 * RTOPO_OK or RTOPO_ERR_NOMEM (nothing changed). */
int rtopo__shapes_trim(rtopo__shapes_t **t_p, void *nodes, uint32_t nn, size_t stride,
                       size_t off);
/* the bytes t's block holds (t may be NULL) */
static inline size_t rtopo__shapes_bytes(const rtopo__shapes_t *t)
{
    return !t ? 0 : sizeof(*t) + (size_t)(t->cap ? t->cap : t->n) * t->esz +
                        (size_t)t->cap * 2 * sizeof(uint32_t);
}
/* the typed views' put, done, free and bytes (T: kshapes or xshapes) */
#define RTOPO__SHAPES_VIEW(T, S)                                               \
    static inline uint32_t rtopo__##T##_put(rtopo__##T##_t **t_p, const S *h) \
    {                                                                          \
        rtopo__shapes_t *g = (rtopo__shapes_t *)(void *)*t_p;                  \
        uint32_t i = rtopo__shapes_put(&g, h, sizeof(*h));                     \
                                                                               \
        *t_p = (rtopo__##T##_t *)(void *)g;                                    \
        return i;                                                              \
    }                                                                          \
    static inline void rtopo__##T##_done(rtopo__##T##_t **t_p)                 \
    {                                                                          \
        rtopo__shapes_t *g = (rtopo__shapes_t *)(void *)*t_p;                  \
                                                                               \
        rtopo__shapes_done(&g);                                                \
        *t_p = (rtopo__##T##_t *)(void *)g;                                    \
    }                                                                          \
    static inline void rtopo__##T##_free(rtopo__##T##_t **t_p)                 \
    {                                                                          \
        free(*t_p);                                                            \
        *t_p = NULL;                                                           \
    }                                                                          \
    static inline size_t rtopo__##T##_bytes(const rtopo__##T##_t *t)           \
    {                                                                          \
        return rtopo__shapes_bytes((const rtopo__shapes_t *)(const void *)t);  \
    }

/* the table of transfer shapes */
typedef struct rtopo__xshapes {
    RTOPO__SHAPES_HEAD;
    rtopo__xshape_t v[];
} rtopo__xshapes_t;
RTOPO__SHAPES_VIEW(xshapes, rtopo__xshape_t)

/* x's shape, zeroed where x holds nothing (pad) */
static inline rtopo__xshape_t rtopo__xfer_shape(const rtopo__xfer_t *x)
{
    rtopo__xshape_t h = { x->src_buf, x->dst_buf, 0, x->nhops, x->src_off, x->dst_off, x->len };
    return h;
}
/* transfer x written compact: node *n (shape interned in *t_p); RTOPO_OK
 * or RTOPO_ERR_NOMEM */
int rtopo__xnode_set(rtopo__xshapes_t **t_p, rtopo__xnode_t *n, const rtopo__xfer_t *x);
/* node n of table t written out whole */
static inline rtopo__xfer_t rtopo__xnode_xfer(const rtopo__xshapes_t *t,
                                             const rtopo__xnode_t *n)
{
    const rtopo__xshape_t *h = &t->v[n->shape];
    rtopo__xfer_t x = { n->src, n->dst, h->src_buf, h->dst_buf, 0, n->step, h->nhops,
                        n->hop0, h->src_off, h->dst_off, h->len };
    return x;
}

/* Local kernels.  Records are `rec` bytes whose key is the record's first
 * element of type dtype; len is a multiple of rec (FILL, COMBINE: of the
 * datatype's size).  Ranges are on the kernel's rank.
 *  FILL     dst[0..len) = elements of dtype all equal to `arg` (an integer
 *           for the integer types, the bits of a double for FLOAT/DOUBLE);
 *           arg 0: zero bytes, len need not be whole elements
 *  COMBINE  dst[i] = dst[i] op src[i], elementwise over dtype
 *  CMPX     compare-exchange, record by record: for each i, the record of
 *           src (lower side) and of dst (upper side) at index i are
 *           swapped when key(src_i) > key(dst_i) (ascending order) or
 *           key(src_i) < key(dst_i) (RTOPO__KERN_DESC); reads and writes
 *           both ranges
 *  SORT     sorts the records of dst[0..len) by key, stable, ascending or
 *           descending (RTOPO__KERN_DESC); src unused
 *  SELECT   packs the records of src[0..len) whose key is not zero, in
 *           order, at dst, and zero-fills the rest of dst[0..len)
 *  ROUTE    one step of routing tagged records (slots) with data-dependent
 *           destinations; `op` names the step (enum rtopo__route_op), the
 *           source range has slen bytes (0: none), the destination len;
 *           reads the source, reads and writes the destination; a record
 *           that cannot be placed fails the kernel (RTOPO_ERR_INVAL)
 * Ranges of one kernel may not overlap, except SORT's single range. */
enum rtopo__kern_type {
    RTOPO__KERN_FILL = 1,
    RTOPO__KERN_COMBINE,
    RTOPO__KERN_CMPX,
    RTOPO__KERN_SORT,
    RTOPO__KERN_SELECT,
    RTOPO__KERN_ROUTE,
    RTOPO__KERN_COUNT
};
#define RTOPO__KERN_DESC 1u    /* flags: descending order */
#define RTOPO__KERN_SEQ 2u     /* flags (CMPX, SORT): equal keys are ordered
                                  by the int64 at byte `arg` of the record,
                                  ascending whatever the keys' direction */
#define RTOPO__KERN_SEQDESC 4u /* ... descending */
#define RTOPO__KERN_MERGE 8u   /* flags (SORT): the two halves of the range
                                  are sorted already: one merge */

/* Routing slots (ROUTE kernels, coll_route.c's concentrate, distribute
 * and generalize): `rec` bytes, a header of two int64 then the payload.
 * Header: tag = lo + 1 (0: the slot is empty) and hi: the record belongs
 * on every index in [lo, hi] (one index: lo == hi).  hi < 0 makes the
 * record open: it may belong on any index from lo on (the last one of the
 * topology, p - 1, in the spans below), and -hi - 1 is the rank that sent
 * it (the single-routing generalize, HOPEN and BEST).  On the OTIS-mesh a
 * group's processors are positions 0..n-1 (row-major on its s x s mesh);
 * a record's positions in a group come from [lo, hi] by a transform
 * (MOD: lo mod n, one position; DIV: [lo/n, hi/n]; GRP: [lo, hi] within
 * the group g, minus g*n), and its coordinates on a line from those by a
 * view (COLPT: the column of the first position; ROWS: the rows of the
 * positions; INROW: the columns of the positions that lie in row R).
 * On the OTIS-hypercube a line is the pair of ranks across bit c of the
 * index of the records' current place A (transform CUBE, arg packing me |
 * c << 16 | A << 32, me = bit c of A): the view BIT gives the record's
 * coordinate bit c of lo (one index, routed from bit 0 up: the bits
 * below c are lo's already), the view HALF the halves of A's subcube of
 * 2^(c+1) indices that [lo, hi] meets (routed from the top bit down).
 * ROUTE steps (op), with arg packing me | R << 16 | g << 32 | s << 48
 * (me: this rank's coordinate on the line) where they route:
 *  MOVE    copies each source record whose coordinates on the line meet
 *          the predicate (flags & 3: KEEP: they contain me; PLUS: one is
 *          above me; MINUS: one is below me) into a free slot of the
 *          destination; flags & CLEAR empties the destination first.
 *          The transform is (flags >> 2) & 3, the view (flags >> 4) & 3.
 *  PRUNE   empties the destination's records that do not contain me (no
 *          source); flags & 3 are the directions the sweep passes records
 *          on (PLUS, MINUS): a record needing another, or without a place
 *          on the line, fails
 *  NORM    int64 destination = (int32 source != 0)
 *  XRANK   int64 destination = src[1] - src[0] (two int64)
 *  HCONC   header from int64 source [f, c] (f: 0/1, c: inclusive count):
 *          tag c when f, else 0; hi c - 1
 *  HDIST   header from int64 source d: tag d + 1 when d >= 0, hi d;
 *          arg: the topology's size p (d >= p fails)
 *  HPREV   slot from int64 source d: when d >= 0 and arg (this rank) > 0
 *          a record for rank arg - 1 carrying d, else empty
 *  HGEN    the destination's header (built by HDIST) gets hi = dn - 1,
 *          dn carried by the source's record (two slots, one at most
 *          full), or arg - 1 (arg: p) when none; dn <= lo fails, and so
 *          does a source record on a rank without one (a gap in the
 *          senders); flags & 1: the check only, hi stays
 *  UNPACK  the one record of the source (two slots) whose [lo, hi]
 *          contains arg (this rank) has its payload copied to the
 *          destination (len bytes); none: nothing is written; a record
 *          elsewhere, or two, fail
 *  GOT     int32 destination = 1 when the source (two slots) holds a
 *          record, else 0
 *  PACK    the destination (one slot) = the one record of the source (two
 *          slots), or empty; two records fail
 *  HOPEN   open header from int64 source d: tag d + 1 when d >= 0, hi
 *          -me - 1; arg: me | p << 32 (me: this rank, p: the topology's
 *          size); d >= p, or 0 <= d < me, fails (ranks 0..q sending to
 *          increasing destinations have dest(i) >= i)
 *  BEST    of the destination's record (two slots, one at most full) and
 *          the source's (one slot, slen bytes; may be empty), the
 *          destination keeps in its first slot the one with the largest
 *          lo among those whose coordinates on the line contain me (as
 *          MOVE's KEEP; transform and view in flags as MOVE's) and empties
 *          the rest.  Two open records from different senders whose
 *          destinations do not increase with the sender fail
 * and for the sort, with slots of rec bytes whose last 8 are a sequence
 * number (int64), records keyed by dtype at byte 0:
 *  SPACK   user records (urec bytes each, slen in all) into slots, the
 *          i-th numbered arg + i; the remaining slots of the destination
 *          are pads, keyed last in the order (flags & RTOPO__KERN_DESC:
 *          descending) and numbered after every record
 *  SUNPACK the first urec bytes of each slot into user records (len / urec
 *          of them)
 *  DEAL    slot i of the source to place (i mod arg) * (n / arg) + i / arg
 *          of the destination (n slots each); UNDEAL the inverse
 * and for the random access write:
 *  KEYOF   int64 destination = the int64 source when >= 0, else INT64_MAX;
 *          arg > 0: the topology's size, a source >= arg fails
 *  DEDUP   the destination holds this rank's key (int64); it becomes an
 *          int32 flag (and 4 zero bytes): 1 when the key is not INT64_MAX
 *          and the source (two slots) holds no record whose payload
 *          starts with the same key, else 0
 *  REHDR   each full slot of the destination gets the header of index d,
 *          d the int64 at byte urec of its payload
 * and for the random access read (payload offsets in urec):
 *  HNEXT   slot from int64 source d: when d >= 0 and arg (this rank) + 1
 *          is below urec (the topology's size), a record for rank arg + 1
 *          carrying d, else empty
 *  FIELD   int64 destination = the int64 at byte urec of the payload of
 *          the source's record (two slots), -1 without one
 *  STASH   the int64 arg goes to byte urec of the payload of each full
 *          slot of the destination
 *  LOAD    the source (slen bytes) goes to byte urec of the payload of
 *          each full slot of the destination
 *  JOIN    the destination holds [I, key, ...] (len bytes): key becomes 1
 *          when it is not INT64_MAX, else 0; when 1, the len - 16 bytes
 *          at byte urec of the payload of the source's record (two slots;
 *          none fails) go to byte 16
 *  TAKE    when the int64 at byte 8 of the source is not 0, its bytes
 *          from 16 (len of them) go to the destination
 * (UNPACK skips urec bytes of the payload.) */
enum rtopo__route_op {
    RTOPO__RT_MOVE = 1,
    RTOPO__RT_PRUNE,
    RTOPO__RT_NORM,
    RTOPO__RT_XRANK,
    RTOPO__RT_HCONC,
    RTOPO__RT_HDIST,
    RTOPO__RT_HPREV,
    RTOPO__RT_HGEN,
    RTOPO__RT_UNPACK,
    RTOPO__RT_GOT,
    RTOPO__RT_PACK,
    RTOPO__RT_SPACK,
    RTOPO__RT_SUNPACK,
    RTOPO__RT_DEAL,
    RTOPO__RT_UNDEAL,
    RTOPO__RT_KEYOF,
    RTOPO__RT_DEDUP,
    RTOPO__RT_REHDR,
    RTOPO__RT_HNEXT,
    RTOPO__RT_FIELD,
    RTOPO__RT_STASH,
    RTOPO__RT_LOAD,
    RTOPO__RT_JOIN,
    RTOPO__RT_TAKE,
    RTOPO__RT_HOPEN,
    RTOPO__RT_BEST,
    RTOPO__RT_COUNT
};
enum { RTOPO__RT_KEEP = 0, RTOPO__RT_PLUS = 1, RTOPO__RT_MINUS = 2 };
enum { RTOPO__RT_XMOD = 0, RTOPO__RT_XDIV = 1, RTOPO__RT_XGRP = 2, RTOPO__RT_XCUBE = 3 };
enum { RTOPO__RT_VCOLPT = 0, RTOPO__RT_VROWS = 1, RTOPO__RT_VINROW = 2 };
enum { RTOPO__RT_VBIT = 0, RTOPO__RT_VHALF = 1 };      /* views of XCUBE */
#define RTOPO__RT_CLEAR 0x40u
#define RTOPO__RT_HDR 16u       /* header bytes of a slot */

typedef struct rtopo__kern {
    int32_t rank;
    uint8_t type;     /* enum rtopo__kern_type */
    uint8_t dtype;    /* rtopo_datatype_t */
    uint8_t op;       /* rtopo_op_t (COMBINE) */
    uint8_t flags;
    uint32_t step;    /* runs after that step's transfers landed */
    uint8_t src_buf;
    uint8_t dst_buf;
    uint16_t pad;
    uint32_t rec;     /* record bytes (CMPX, SORT, SELECT, ROUTE) */
    uint32_t urec;    /* ROUTE SPACK, SUNPACK: user record bytes */
    uint64_t src_off;
    uint64_t dst_off;
    uint64_t len;
    int64_t arg;      /* FILL value; ROUTE parameters */
    uint64_t slen;    /* ROUTE: bytes of the source range */
} rtopo__kern_t;      /* 64 bytes: a kernel written out whole */

/* A schedule holds its kernels compact: what varies from rank to rank
 * (rank, step, arg) in the node, the rest (the kernel's shape: type,
 * buffers, ranges) once in the schedule's table of shapes, which many
 * kernels share.  Read a kernel with rtopo__sched_kern (whole) or
 * rtopo__sched_kshape (its shape); write one with rtopo__sched_kset. */
typedef struct rtopo__kshape {
    uint8_t type;
    uint8_t dtype;
    uint8_t op;
    uint8_t flags;
    uint8_t src_buf;
    uint8_t dst_buf;
    uint16_t pad;
    uint32_t rec;
    uint32_t urec;
    uint64_t src_off;
    uint64_t dst_off;
    uint64_t len;
    uint64_t slen;
} rtopo__kshape_t;    /* 48 bytes */

typedef struct rtopo__knode {
    int32_t rank;
    uint32_t step;
    uint32_t shape;   /* index in the schedule's table of shapes */
    uint32_t arg_lo;  /* arg's low and high 32 bits (4-byte aligned: an */
    uint32_t arg_hi;  /* array of nodes packs at 20 bytes each) */
} rtopo__knode_t;     /* 20 bytes */

static inline int64_t rtopo__knode_arg(const rtopo__knode_t *n)
{
    return (int64_t)((uint64_t)n->arg_hi << 32 | n->arg_lo);
}

/* the table of kernel shapes */
typedef struct rtopo__kshapes {
    RTOPO__SHAPES_HEAD;
    rtopo__kshape_t v[];
} rtopo__kshapes_t;
RTOPO__SHAPES_VIEW(kshapes, rtopo__kshape_t)

/* k's shape, zeroed where k holds nothing (pad) */
static inline rtopo__kshape_t rtopo__kern_shape(const rtopo__kern_t *k)
{
    rtopo__kshape_t h = { k->type, k->dtype, k->op, k->flags, k->src_buf, k->dst_buf, 0,
                          k->rec, k->urec, k->src_off, k->dst_off, k->len, k->slen };
    return h;
}
/* kernel k written compact: node *n (shape interned in *t_p); RTOPO_OK
 * or RTOPO_ERR_NOMEM */
int rtopo__knode_set(rtopo__kshapes_t **t_p, rtopo__knode_t *n, const rtopo__kern_t *k);
/* node n of table t written out whole */
static inline rtopo__kern_t rtopo__knode_kern(const rtopo__kshapes_t *t,
                                             const rtopo__knode_t *n)
{
    const rtopo__kshape_t *h = &t->v[n->shape];
    rtopo__kern_t k = { n->rank, h->type, h->dtype, h->op, h->flags, n->step, h->src_buf,
                        h->dst_buf, 0, h->rec, h->urec, h->src_off, h->dst_off, h->len,
                        rtopo__knode_arg(n), h->slen };
    return k;
}

/* Does kernel k read a source range?  Its length in *len (may be NULL). */
int rtopo__kern_src(const rtopo__kern_t *k, uint64_t *len);
/* rtopo__kern_src of a kernel of shape h */
static inline int rtopo__kshape_src(const rtopo__kshape_t *h, uint64_t *len)
{
    uint64_t l = h->type == RTOPO__KERN_ROUTE ? h->slen : h->len;
    int has = h->type == RTOPO__KERN_ROUTE ? h->slen > 0 :
              h->type != RTOPO__KERN_FILL && h->type != RTOPO__KERN_SORT;

    if (len)
        *len = has ? l : 0;
    return has;
}
/* RTOPO_ERR_INVAL when ROUTE kernel k's ranges are too short for its step */
int rtopo__route_ok(const rtopo__kern_t *k);

enum rtopo__dep_kind {
    RTOPO__DEP_RAW = 0,   /* succ reads what pred wrote */
    RTOPO__DEP_WAR,       /* succ overwrites what pred reads */
    RTOPO__DEP_WAW,       /* succ overwrites what pred wrote */
    RTOPO__DEP_PORT,      /* both send from rank: succ leaves after pred */
    RTOPO__DEP_COUNT
};

typedef struct rtopo__dep {
    int32_t rank;     /* where the two parts meet */
    uint32_t pred;    /* node ids */
    uint32_t succ;
    uint32_t kind;    /* enum rtopo__dep_kind */
} rtopo__dep_t;

typedef struct rtopo__sched {
    rtopo__tdesc_t topo;
    int algo;             /* rtopo_shift_algo_t actually used */
    uint32_t nxfers;
    uint32_t nhops;
    uint32_t nkerns;
    uint32_t ndeps;
    uint32_t deps_cap;    /* entries allocated at deps */
    uint32_t nsteps;      /* lock-step rounds (max step + 1) */
    uint64_t tmp_bytes;   /* TMP scratch: the largest any rank needs */
    uint64_t *tmp_rank;   /* per rank TMP bytes, or NULL: tmp_bytes each */
    rtopo__xnode_t *xfers;  /* compact: shapes in xshapes */
    rtopo__hop_t *hops;
    rtopo__knode_t *kerns;  /* compact: shapes in kshapes */
    rtopo__kshapes_t *kshapes;  /* NULL until a kernel is added */
    rtopo__xshapes_t *xshapes;  /* NULL until a transfer is added */
    rtopo__dep_t *deps;
    /* One rank's share (a plan's schedule, rtopo__sched_own): own = r + 1
     * keeps only the nodes that touch rank r (a transfer it sends,
     * receives or forwards, a copy or kernel it runs) and the edges on r;
     * 0: the whole graph.  Transfer i is then transfer xid[i] of the
     * whole graph of nxall transfers (xid increasing: the wire names a
     * transfer by it), and olast is 1 + the last step of a local node left
     * out (0: none), so that phases line up as in the whole graph. */
    int32_t own;
    uint32_t nxall;
    uint32_t olast;
    /* 1: the edges hold every edge rtopo__sched_deps_infer(s, 0) would
     * add (it sets this; rtopo__sched_add_kerns clears it; a change to
     * nodes' ranges or steps other than the same shift of every step must
     * clear it too): joining phases then infers only the edges into the
     * later phase */
    uint16_t inferred;
    /* 1: no edges held (ndeps 0): the graph's edges are those
     * rtopo__sched_deps_infer(s, 0) would add for its nodes as they are,
     * and the simulator infers them as it runs them (rtopo__sched_deps_each)
     * instead of holding them beside the nodes.  Set by a builder asked
     * for a bare whole graph that can leave them so (rtopo__coll_t.bare);
     * inferring the edges or joining phases clears it. */
    uint16_t deferred;
    uint32_t *xid;
    /* the last rtopo__sim_run of this graph, taken again by the next for
     * the same model while the nodes and edges hash alike (sim.c) */
    void *simmemo;
} rtopo__sched_t;

/* Ask for large pages under p's bytes when they are RTOPO__SCHED_BIG or
 * more (a whole graph's node and edge arrays: fewer page faults when
 * they are first written); a hint only, nothing else changes. */
#define RTOPO__SCHED_BIG ((size_t)4 << 20)
void rtopo__sched_big(void *p, size_t bytes);

/* kernel i of s (0..nkerns-1): written out whole, its shape; set it
 * (RTOPO_OK or RTOPO_ERR_NOMEM) */
static inline rtopo__kern_t rtopo__sched_kern(const rtopo__sched_t *s, uint32_t i)
{
    return rtopo__knode_kern(s->kshapes, &s->kerns[i]);
}
static inline const rtopo__kshape_t *rtopo__sched_kshape(const rtopo__sched_t *s, uint32_t i)
{
    return &s->kshapes->v[s->kerns[i].shape];
}
static inline int rtopo__sched_kset(rtopo__sched_t *s, uint32_t i, const rtopo__kern_t *k)
{
    return rtopo__knode_set(&s->kshapes, &s->kerns[i], k);
}
/* transfer i of s (0..nxfers-1): written out whole, its shape, the
 * length of its route; set it (RTOPO_OK or RTOPO_ERR_NOMEM) */
static inline rtopo__xfer_t rtopo__sched_xfer(const rtopo__sched_t *s, uint32_t i)
{
    return rtopo__xnode_xfer(s->xshapes, &s->xfers[i]);
}
static inline const rtopo__xshape_t *rtopo__sched_xshape(const rtopo__sched_t *s, uint32_t i)
{
    return &s->xshapes->v[s->xfers[i].shape];
}
static inline uint32_t rtopo__sched_xnhops(const rtopo__sched_t *s, uint32_t i)
{
    return s->xshapes->v[s->xfers[i].shape].nhops;
}
static inline uint64_t rtopo__sched_xlen(const rtopo__sched_t *s, uint32_t i)
{
    return s->xshapes->v[s->xfers[i].shape].len;
}
static inline int rtopo__sched_xset(rtopo__sched_t *s, uint32_t i, const rtopo__xfer_t *x)
{
    return rtopo__xnode_set(&s->xshapes, &s->xfers[i], x);
}
/* how many transfer shapes s's table holds */
static inline uint32_t rtopo__sched_nxshapes(const rtopo__sched_t *s)
{
    return s->xshapes ? s->xshapes->n : 0;
}
/* Keep only the transfer shapes s's transfers use (renumbered, in order
 * of first use) and drop the table's index; RTOPO_OK or RTOPO_ERR_NOMEM. */
int rtopo__sched_xshapes_trim(rtopo__sched_t *s);
/* how many shapes s's table holds */
static inline uint32_t rtopo__sched_nkshapes(const rtopo__sched_t *s)
{
    return s->kshapes ? s->kshapes->n : 0;
}
/* Keep only the shapes s's kernels use (renumbered, in order of first
 * use) and drop the table's index; RTOPO_OK or RTOPO_ERR_NOMEM. */
int rtopo__sched_kshapes_trim(rtopo__sched_t *s);

/* the whole graph's number of transfer x of s */
static inline uint32_t rtopo__sched_xid(const rtopo__sched_t *s, uint32_t x)
{
    return s->xid ? s->xid[x] : x;
}
/* s's transfer whose whole-graph number is id, or UINT32_MAX */
uint32_t rtopo__sched_xfind(const rtopo__sched_t *s, uint32_t id);
/* Keep only rank's share of s (see own above): the transfers with a hop
 * from or to rank or a copy on it, the kernels on it, the edges on it
 * (renumbered), rank's TMP size.  s may already be a share of the same
 * rank (then what it still holds of others goes).  RTOPO_ERR_INVAL for
 * a share of another rank, RTOPO_ERR_NOMEM. */
int rtopo__sched_own(rtopo__sched_t *s, int rank);

static inline uint64_t rtopo__sched_tmp(const rtopo__sched_t *s, int rank)
{
    return s->tmp_rank ? s->tmp_rank[rank] : s->tmp_bytes;
}

/* parts of a node on a rank */
enum { RTOPO__PART_SEND = 1, RTOPO__PART_RECV = 2, RTOPO__PART_LOCAL = 3 };
/* The part node `id` has on `rank`: RTOPO__PART_* or 0 (none). */
int rtopo__sched_part(const rtopo__sched_t *s, uint32_t id, int rank);

/* Add the edges inferred from steps and byte ranges to those already
 * there (duplicates are dropped).  On
 * each rank the accesses are ordered by (step, phase, node): in step t
 * a transfer's SEND part reads first, RECV parts write next, local nodes
 * of step t run last, in node order.  Every pair of overlapping accesses
 * to one buffer where at least one writes gets an edge (RAW, WAR, WAW);
 * two RECV parts writing overlapping ranges in the same step are an
 * error (RTOPO_ERR_INVAL).  flags RTOPO__DEPS_PORT also chains each
 * rank's SEND parts in (step, node) order with PORT edges. */
#define RTOPO__DEPS_PORT 1u
int rtopo__sched_deps_infer(rtopo__sched_t *s, unsigned flags);

/* The edges rtopo__sched_deps_infer(s, 0) would add to s (s without
 * edges), handed to sink instead of held: rank by rank, each rank's n
 * edges at e in the order s->deps would hold them (by succ, pred, kind);
 * a sink's error stops it.  Peak memory: the inference's scratch and one
 * rank's edges, not the graph's. */
typedef int rtopo__dep_sink_fn(void *ctx, const rtopo__dep_t *e, size_t n);
int rtopo__sched_deps_each(const rtopo__sched_t *s, rtopo__dep_sink_fn *sink, void *ctx);

/* Append n zeroed kernels (their node ids start at nxfers + *idx_p; idx_p
 * may be NULL), or one edge. */
int rtopo__sched_add_kerns(rtopo__sched_t *s, uint32_t n, uint32_t *idx_p);
int rtopo__sched_add_dep(rtopo__sched_t *s, int rank, uint32_t pred, uint32_t succ,
                         int kind);
/* Set per-rank TMP sizes (copied); tmp_bytes becomes their maximum. */
int rtopo__sched_set_tmp(rtopo__sched_t *s, const uint64_t *tmp_rank);
/* Phase concatenation: b runs after a.  b's steps move past a's, its
 * nodes are renumbered after a's, and the edges are inferred again over
 * the whole (with flags).  a and b are freed. */
int rtopo__sched_concat(rtopo__sched_t *a, rtopo__sched_t *b, unsigned flags,
                        rtopo__sched_t **out_p);
/* flags of rtopo__sched_concat: the nodes joined alone, no edge kept or
 * inferred (the caller infers the whole once, after its last join) */
#define RTOPO__CONCAT_BARE 0x100u
/* A host that is one of the nodes: turns *s_p, a schedule over a
 * descriptor with a host endpoint (rank p-1), into one over the plain
 * topology of p-1 ranks where cube node `node` plays the host too.  The
 * host's hops to `node` become copies (in the hop's step), its other hops
 * leave `node` over DIRECT connections, its TMP follows the node's own;
 * the edges are inferred again (RTOPO__DEPS_PORT).  The two roles may
 * share TMP only: RTOPO_ERR_INVAL when both use SEND or both RECV, or a
 * route passes through the host.  *s_p is replaced (freed) on success. */
int rtopo__sched_fold_host(rtopo__sched_t **s_p, int node);

/* ---- Cartesian view (cart_sched.c): coordinates, lines, dimension
 * shifts, sub-topologies ----
 * Coordinates: ring 1 (the rank); mesh 2 (row, col); hypercube `dim`
 * (coordinate k = bit k of the cube node gray(rank)); OTIS-mesh 4 (Gx,
 * Gy, Px, Py: G = Gx*s + Gy, P = Px*s + Py, s = sqrt(n)); OTIS-hypercube
 * 2 (G, P).  A host endpoint outside the cube has none.  The label of
 * coordinates is sum c_j * w_j, a mixed-radix number (mesh and OTIS:
 * first coordinate most significant; cube: coordinate k weighs 2^k, the
 * cube node); the rank is the label, except on the cube (gray_inv).
 * A line along `dim` is the set of ranks that agree on every other
 * coordinate; its index reads those coordinates as a mixed-radix number
 * with the significance they have in the label (2-D mesh: the row for
 * dim 1, the column for dim 0; cube: the node with bit dim deleted); a
 * rank's position on it is its coordinate `dim`. */
#define RTOPO__MAX_DIMS 32
int rtopo__cart_ndims(const rtopo__tdesc_t *t);          /* < 0: error */
int rtopo__cart_extent(const rtopo__tdesc_t *t, int dim); /* < 0: error */
/* RTOPO_ERR_INVAL for a rank out of range, the host, a coordinate out of
 * 0..extent-1 (the message names it) */
int rtopo__cart_coords(const rtopo__tdesc_t *t, int rank, int *coords);
int rtopo__cart_rank(const rtopo__tdesc_t *t, const int *coords);
int rtopo__cart_nlines(const rtopo__tdesc_t *t, int dim);
/* the line of `rank` along dim (its index; *pos_p: the position), and
 * the rank at (line, pos); < 0 on bad arguments */
int rtopo__cart_line(const rtopo__tdesc_t *t, int dim, int rank, int *pos_p);
int rtopo__cart_member(const rtopo__tdesc_t *t, int dim, int line, int pos);

/* Shift along one dimension: each line along `dim` is a ring of
 * E = extent ranks, and line L shifts by disp(L) = a*L + b (mod E): the
 * rank at position i sends `bytes` to the one at (i + disp(L)) mod E.
 * Routes (cart_sched.c says what each costs): ring, mesh and cube lines
 * over their own links (RING, ROW/COL, CUBE of that dimension), in the
 * shorter direction; OTIS-mesh P lines along the in-group mesh (no
 * wraparound), G lines through an OTIS transpose, the in-group line and
 * back; OTIS-hypercube lines by E-cube in the group (G: between two
 * transposes).
 * chunk 0: SEND+0 -> RECV+0 of the destination.  chunk > 0 (in place):
 * the data starts in RECV and ends there shifted; each moving rank
 * copies it to TMP in pieces of `chunk` bytes, into `slots` slots used
 * in turn, and every piece travels on its own from TMP to the
 * destination's RECV once that rank copied its own piece out (edges
 * inferred); ranks of lines with disp 0 do nothing. */
typedef struct rtopo__dimshift {
    int dim;
    long a, b;
    uint64_t bytes;
    uint64_t chunk;
    uint32_t slots;
} rtopo__dimshift_t;
int rtopo__dimshift_disp(const rtopo__tdesc_t *t, const rtopo__dimshift_t *ds, int line);
int rtopo__sched_shift_dim(const rtopo__tdesc_t *t, const rtopo__dimshift_t *ds,
                           rtopo__sched_t **s_p);
/* The in-place form of a schedule whose transfers all move SEND[0, len)
 * to RECV[0, len) (what rtopo__sched_shift_dim does for chunk > 0);
 * *s_p is replaced (freed) on success.  Steps: piece j's hops take steps
 * 1 + j*n .. j*n + n (n: the old nsteps), its copy step j*n. */
int rtopo__sched_inplace(rtopo__sched_t **s_p, uint64_t chunk, uint32_t slots);

/* Sub-topology keeping the dimensions whose bit is set in `keep`: the
 * ranks that agree on every other coordinate form one piece.  Its
 * descriptor: none kept, a ring of 1; one (not of a cube), a ring of the
 * extent; two of a mesh or OTIS-mesh, a mesh (rows: the lower dim); a set
 * of cube dimensions, a hypercube; one of an OTIS-hypercube, a
 * hypercube on that coordinate; all, the same topology.
 * RTOPO_ERR_UNSUPPORTED otherwise (three of an OTIS-mesh, a host). */
int rtopo__cart_sub(const rtopo__tdesc_t *t, unsigned keep, rtopo__tdesc_t *sub);
/* rank's label inside its piece (< 0: error); *piece_p its piece */
int rtopo__cart_sub_label(const rtopo__tdesc_t *t, unsigned keep, int rank, int *piece_p);
/* Run one kernel over bufs (SEND, RECV, TMP of its rank). */
int rtopo__kern_run(const rtopo__kern_t *k, uint8_t *const bufs[RTOPO__BUF_COUNT]);
size_t rtopo__dtype_size(int dtype);   /* 0 if unknown */
const char *rtopo__kern_name(int type);

/* Build a descriptor; RTOPO_ERR_TOPO with a message (rtopo__error)
 * naming the sizes that would fit when p does not fit.  a, b: rows/cols
 * for the mesh, dim for the hypercube, n for OTIS; ignored for the ring. */
int rtopo__tdesc_init(rtopo__tdesc_t *t, int kind, int p, int a, int b);
const char *rtopo__topo_name(int kind);
/* Add a host endpoint to a hypercube descriptor: rank p (the old p)
 * becomes the host, joined to every node by a HOST link; p grows by one.
 * RTOPO_ERR_INVAL for other kinds or a descriptor that has one. */
int rtopo__tdesc_add_host(rtopo__tdesc_t *t);

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
/* What rtopo__sched_shift refuses of t and algo, refused alike, without
 * building a schedule: RTOPO_OK when algo applies. */
int rtopo__shift_check(const rtopo__tdesc_t *t, int algo);
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
/* AUTO with a memory: the choice is evaluated once per (q mod p, size
 * class = bit length of bytes) and then reused, so a new size in a known
 * class builds one schedule, not every candidate.  The memo starts
 * zeroed; `evaluations` counts the full AUTO evaluations it made. */
#define RTOPO__SHIFT_MEMO 32
typedef struct rtopo__shift_memo {
    struct {
        long q;
        int cls;
        int algo;             /* 0: empty slot */
    } e[RTOPO__SHIFT_MEMO];
    unsigned next;
    uint64_t evaluations;
} rtopo__shift_memo_t;
int rtopo__sched_shift_memo(const rtopo__tdesc_t *t, rtopo__shift_memo_t *memo, long q,
                            size_t bytes, const struct rtopo__model *model,
                            rtopo__sched_t **s_p);
/* Host-to-hypercube distribution of overlapping windows (scatter_sched.c
 * says how and what each strategy costs): t is a hypercube with a host
 * endpoint; node i's RECV receives the M elements of esize bytes that
 * start at element i*delta of the host's SEND (1 <= delta <= M).  x: the
 * block dimension of SEQSCATTER (0..d) and DECREMENTAL (0..d-1, 0 when
 * d = 0); ignored otherwise.  s->algo holds the strategy. */
enum rtopo__scatter_strategy {
    RTOPO__SCATTER_AUTO = 0,     /* the values of rtopo_scatter_algo_t */
    RTOPO__SCATTER_SEQ = 1,
    RTOPO__SCATTER_BINOMIAL,
    RTOPO__SCATTER_SEQSCATTER,
    RTOPO__SCATTER_DECREMENTAL
};
int rtopo__sched_scatter(const rtopo__tdesc_t *t, int strategy, int x, uint64_t M,
                         uint64_t delta, size_t esize, rtopo__sched_t **s_p);
/* The cost model's choice.  Every candidate (strategy, x) is built and
 * run by rtopo__sim_run under model (NULL: defaults), in the order SEQ,
 * BINOMIAL, SEQSCATTER x = 0..d, DECREMENTAL x = 0..d-1 (x = 0 when
 * d = 0); the smallest model time wins, a tie (relative 1e-12) goes to
 * the earlier.  strategy RTOPO__SCATTER_AUTO considers them all, another
 * strategy only its own x values.  host_node -1: the host is the
 * descriptor's host endpoint; host_node >= 0: that cube node is the host,
 * each candidate is folded (rtopo__sched_fold_host) before it is run and
 * the returned schedule is the folded one.  *strategy_p, *x_p (may be
 * NULL): the choice, x -1 for SEQ and BINOMIAL.  Costs 2d + 3 schedule
 * builds and simulations of at most 2.5 * 2^d transfers each (about
 * 30 ms for d = 10). */
int rtopo__sched_scatter_auto(const rtopo__tdesc_t *t, uint64_t M, uint64_t delta,
                              size_t esize, const struct rtopo__model *model,
                              int host_node, int strategy, int *strategy_p, int *x_p,
                              rtopo__sched_t **s_p);
/* One candidate of AUTO.  formula_time is the closed formula of seed 003
 * for it (rtopo__scatter_formula), formula_exact whether the schedule
 * meets the formula's assumptions under the model (then model_time
 * equals it). */
typedef struct rtopo__scatter_cand {
    int strategy;
    int x;                    /* -1 for SEQ and BINOMIAL */
    double model_time;        /* seconds, event by event */
    double formula_time;      /* seconds */
    int formula_exact;
    uint32_t host_sends;      /* messages the host sends to other ranks */
    uint32_t steps;
} rtopo__scatter_cand_t;
/* room for every candidate of a d-cube */
#define RTOPO__SCATTER_NCAND(d) (2 * (d) + 4)
/* One candidate: rtopo__sched_scatter, folded onto host_node when >= 0,
 * run by rtopo__sim_run; *c describes it, *s_p is the schedule. */
int rtopo__sched_scatter_cand(const rtopo__tdesc_t *t, int strategy, int x, uint64_t M,
                              uint64_t delta, size_t esize,
                              const struct rtopo__model *model, int host_node,
                              rtopo__scatter_cand_t *c, rtopo__sched_t **s_p);
/* rtopo__sched_scatter_auto that also fills cand[0..*ncand_p) (cand and
 * ncand_p may be NULL; cand needs RTOPO__SCATTER_NCAND(d) entries). */
int rtopo__sched_scatter_auto_cand(const rtopo__tdesc_t *t, uint64_t M, uint64_t delta,
                                   size_t esize, const struct rtopo__model *model,
                                   int host_node, int strategy,
                                   rtopo__scatter_cand_t *cand, int *ncand_p,
                                   int *strategy_p, int *x_p, rtopo__sched_t **s_p);
/* Closed cost of a strategy (not AUTO) with block dimension x on a d-cube,
 * formulas (6)-(9) of seed 003: beta_h, tau_h from the HOST class (DIRECT
 * when host_node >= 0), beta, tau from CUBE_ID, tau = tw * esize per
 * element.  *exact_p (may be NULL): 1 when the schedule's model time is
 * this value: copies within a rank free (LOCAL), the host outside the
 * cube, and for DECREMENTAL every earlier block done by the time the
 * last one is; otherwise the value is a lower bound.  Returns < 0 for an
 * unknown strategy or an x out of range. */
double rtopo__scatter_formula(int strategy, int x, int d, uint64_t M, uint64_t delta,
                              size_t esize, const struct rtopo__model *model,
                              int host_node, int *exact_p);
/* "auto", "seq", "binomial", "seqscatter[:X]", "decremental[:X]"
 * (X 0..30) to RTOPO__SCATTER_*, < 0 if not one of these; *x_p (may be
 * NULL) gets X, -1 when not given (the model picks it). */
int rtopo__scatter_algo_parse(const char *s, int *x_p);
/* "auto", "seq", "binomial", "seqscatter", "decremental"; "?" otherwise */
const char *rtopo__scatter_algo_name(int strategy);
/* ---- collectives (coll_build.c and the coll_*.c families): broadcast,
 * scan, allreduce, the OTIS window broadcast and the line operations ----
 * Every rank holds `count` elements of esize bytes per register (m =
 * count*esize bytes).  Buffers (per rank, what the caller passes):
 *  BCAST          RECV m: in on the root, out everywhere
 *  WINDOW_BCAST   RECV m: in on the window, out everywhere
 *  SCAN, ALLREDUCE SEND m -> RECV m
 *  SHIFT_FILL     SEND m -> RECV m  (bytes: esize 1)
 *  ACCUMULATE     SEND m -> RECV mm*m (block i at i*m)
 *  ADJACENT_SUM   SEND m -> RECV m
 *  CONSEC_SUM     SEND mm*m -> RECV m
 * Meaning, ranks ordered by their topology rank (OTIS: I = G*n + P) and
 * c(r) the coordinates of rank r (rtopo__cart_coords), E the extent of
 * dimension dim, c + k the coordinates with c[dim] replaced by c[dim]+k:
 *  BCAST          RECV(r) = RECV(root)
 *  WINDOW_BCAST   OTIS-mesh only, s = sqrt(n), 1 <= w, w divides s: rank
 *                 (G, Px, Py) gets RECV of (root, Px mod w, Py mod w)
 *                 (root: a group)
 *  SCAN           RECV(r) = SEND(0) op ... op SEND(r), elementwise
 *  ALLREDUCE      RECV(r) = SEND(0) op ... op SEND(p-1)
 *  SHIFT_FILL     RECV(r) = SEND(c(r) - disp) when 0 <= c[dim]-disp < E,
 *                 else zeros
 *  ACCUMULATE     block i of RECV(r) = SEND(c(r) + i mod E), 0 <= i < mm,
 *                 1 <= mm <= E
 *  ADJACENT_SUM   RECV(r) = op over i < mm of SEND(c(r) + i mod E)
 *  CONSEC_SUM     mm divides E; with j = c[dim] mod mm and b = c[dim] - j,
 *                 RECV(r) = op over k < mm of block j of SEND(c + (b+k-c[dim]))
 * Element order of a reduction is not fixed (every op is commutative and
 * associative; floating-point sums may round differently from a serial
 * loop). */
/* The collectives, each with its name ("bcast": in messages, plan
 * names, rtopo-sim): RTOPO__COLL_BCAST = 1 .. RTOPO__COLL_SORT, in this
 * order.  The name is read through rtopo__coll_name, which the builders
 * and the reference below the descriptor table use too. */
#define RTOPO__COLL_OPS(X)                                                    \
    X(BCAST, "bcast")                                                         \
    X(WINDOW_BCAST, "window_bcast")                                           \
    X(SCAN, "scan")                                                           \
    X(ALLREDUCE, "allreduce")                                                 \
    X(SHIFT_FILL, "shift_fill")                                               \
    X(ACCUMULATE, "accumulate")                                               \
    X(ADJACENT_SUM, "adjacent_sum")                                           \
    X(CONSEC_SUM, "consecutive_sum")                                          \
    X(SELECT_RANK, "select_rank")                                             \
    X(CONCENTRATE, "concentrate")                                             \
    X(DISTRIBUTE, "distribute")                                               \
    X(GENERALIZE, "generalize")                                               \
    X(RANDOM_WRITE, "random_write")                                           \
    X(RANDOM_READ, "random_read")                                             \
    X(BPC, "bpc")                                                             \
    X(SORT, "sort")
#define RTOPO__COLL_ENUM(id, name) RTOPO__COLL_##id,
enum rtopo__coll_op {
    RTOPO__COLL_NOOP = 0,       /* no collective */
    RTOPO__COLL_OPS(RTOPO__COLL_ENUM)
    RTOPO__COLL_NOPS
};
/* SORT: SEND count records of esize bytes, keyed by the dtype element at
 * byte 0 (NaN after every number), -> RECV: rank r holds records
 * r*count .. r*count + count - 1 of the whole set in the order (desc:
 * descending); equal keys keep their order by (rank, index).  Leighton's
 * column sort (TOPO): on an OTIS topology of n groups, n a square, in
 * the paper's layout, sqrt(n) rows of p / sqrt(n) ranks (coll_sort.c);
 * elsewhere with the ranks as columns: each column holds
 * max(count, 2(p-1)^2) slots rounded up to a multiple of p (pads fill
 * it); transposes are all-to-all exchanges routed as the BPC routes are;
 * c->mm > 0 sets the slots per column instead (ranks as columns only;
 * below the bound the result is sorted only for some inputs: tests of
 * the seed's example).
 * The merge-split sort (GENERIC) pairs ranks bitonically on 2^d ranks
 * and by odd-even transposition (p rounds) on up to SORT_ODDEVEN_MAX
 * others; RTOPO_ERR_UNSUPPORTED where neither fits. */
#define RTOPO__SORT_ODDEVEN_MAX 128
/* BPC (bit-permute-complement) permutation, every topology of p = 2^k
 * ranks: SEND bytes of rank r -> RECV of rank bpc(r), where bit to[i] of
 * bpc(r) is bit i of r, complemented when bit i of neg is set (the
 * vector A of seed 004: to[i] = |A_i|, A_i negative (-0 too) -> neg).
 * Routes: on the OTIS topologies in the source's group to the
 * destination's group index, one OTIS link, in the destination's group
 * (row then column on the OTIS-mesh, dimension by dimension on the
 * OTIS-hypercube); elsewhere one DIRECT connection.  esize 1, count the
 * bytes.  (rtopo__bpc_dest, rtopo__bpc_parse below.) */

/* Selection and routing (route ops; esize: the record's bytes, count 1):
 *  SELECT_RANK    SEND int32 selected -> RECV int64: the number of ranks
 *                 before r whose selected != 0 (every topology)
 *  CONCENTRATE    SEND record -> RECV record, on the OTIS-mesh; the input
 *                 selected (int32) at TMP[0, 4), the output got (int32)
 *                 at TMP[8, 12), as the caller stages them
 *  DISTRIBUTE,    the same with the input dest (int64) at TMP[0, 8)
 *  GENERALIZE,
 *  RANDOM_WRITE   (every rank with dest >= 0 writes its record to rank
 *                 dest; of several writers to one rank the highest wins)
 *  RANDOM_READ    SEND: the record this rank offers; every rank whose
 *                 input (int64 src at TMP[0, 8)) is >= 0 receives rank
 *                 src's record
 * (rtopo.h says what each does.)  Their algorithm: the prefix sum (the
 * topology's choice under c->algo) for the ranks, then Wang and Sahni's
 * routing over the OTIS-mesh.  GENERALIZE has two: TOPO the paper's
 * single routing, which trusts the input's order, AUTO two routings
 * that check it (s->algo says RTOPO_COLL_AUTO). */
#define RTOPO__ROUTE_AUX 16   /* TMP bytes staged by the caller */
int rtopo__coll_is_route(int op);    /* RTOPO__CF_ROUTE in its descriptor */
typedef struct rtopo__coll {
    int op;           /* enum rtopo__coll_op */
    int algo;         /* rtopo_coll_algo_t: AUTO, TOPO, GENERIC */
    int dtype;        /* rtopo_datatype_t (SHIFT_FILL, ACCUMULATE: ignored) */
    int rop;          /* rtopo_op_t of the reductions */
    uint64_t count;   /* elements per register */
    size_t esize;     /* bytes per element: the dtype's, 1 for byte ops */
    int root;         /* BCAST: root rank; WINDOW_BCAST: root group */
    int w;            /* WINDOW_BCAST: window side */
    int dim;          /* line operations */
    int disp;         /* SHIFT_FILL */
    int mm;           /* ACCUMULATE, ADJACENT_SUM, CONSEC_SUM: M */
    int desc;              /* SORT: descending */
    int8_t bpc_to[32];     /* BPC: destination bit of source bit i */
    uint32_t bpc_neg;      /* BPC: source bits complemented */
    int bpc_bits;          /* BPC: k, p = 2^k */
    uint32_t chunks;  /* pipeline pieces: the operation runs on pieces of
                         the registers, piece j one step behind piece j-1;
                         0: the model picks; 1: whole registers */
    int own;          /* r + 1: build rank r's share only (a plan's,
                         rtopo__sched_own), the same as taking it from the
                         whole graph; 0: the whole graph (the simulator) */
    int bare;         /* 1: the builder leaves the edges out where it needs
                         none itself (the caller joins the nodes bare,
                         RTOPO__CONCAT_BARE, and infers the whole's); the
                         whole graph of the random accesses, the
                         concentrate, the distribute and the generalize
                         is then deferred (rtopo__sched_t.deferred), as
                         is a winner whose time `auto` knew
                         (rtopo__coll_choose_x) */
} rtopo__coll_t;
/* ---- a collective as one unit ----
 * One descriptor per collective, in the table of coll_desc.c indexed by
 * enum rtopo__coll_op: what topo/ knows of it besides its name (above).
 * Everything that differs between collectives is read from here (the
 * builder, the checks, the buffer sizes, the reference, the names of its
 * arguments in messages), not switched on the op.  The table sits above
 * the builders and the reference it points to: they reach neither it
 * nor each other's collectives through it (topo/README.md).  The layers above keep what they own (the call forms in
 * runtime/coll.c, the entries of rtopo-sim and the benches in tools/) in
 * tables of their own indexed by the same op. */
typedef struct rtopo__cb rtopo__cb_t;    /* a schedule being built (coll_int.h) */
struct rtopo__model;
enum rtopo__coll_flag {
    RTOPO__CF_REDUCE = 1,      /* combines elements: reads dtype and rop */
    RTOPO__CF_BYTES = 2,       /* moves bytes: esize 1, no datatype */
    RTOPO__CF_ROUTE = 4,       /* selection and routing: records, input in TMP */
    RTOPO__CF_LINE = 8,        /* along one dimension (dim) */
    RTOPO__CF_RECV_IN = 16,    /* RECV is the input (no SEND) */
    RTOPO__CF_SEND_MM = 32,    /* SEND holds mm registers */
    RTOPO__CF_RECV_MM = 64     /* RECV holds mm registers */
};
/* How ranks compare a call's arguments (the runtime's plan key and its
 * mismatch message): dim, w, mm, disp (ARGS); key type, count, record size
 * and direction (SORT); the vector (BPC); the record size (RECORD). */
enum rtopo__coll_keyform {
    RTOPO__CK_ARGS = 0,
    RTOPO__CK_SORT,
    RTOPO__CK_BPC,
    RTOPO__CK_RECORD
};
typedef struct rtopo__coll_desc {
    unsigned flags;            /* enum rtopo__coll_flag */
    int key;                   /* enum rtopo__coll_keyform */
    const char *root_arg;      /* the name of c->root in messages ("root",
                                  "group"); NULL: the op takes none */
    const char *in_arg;        /* routing: the input pointer's name */
    uint32_t send_fixed;       /* bytes of SEND / RECV when they do not */
    uint32_t recv_fixed;       /* follow count*esize (0: they do) */
    const char *algos;         /* its algorithms, for help texts */
    /* checks of the op's own arguments, after the common ones (NULL:
     * none) */
    int (*check)(const rtopo__tdesc_t *t, const rtopo__coll_t *c);
    /* the schedule, arguments checked (rtopo__sched_coll calls it): a
     * builder of the op's family (coll_int.h) */
    int (*build)(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                 const struct rtopo__model *model, rtopo__sched_t **s_p);
    /* the serial reference (coll_ref.c): its own checks of the op's
     * arguments (NULL: none; *E_p: the extent of c->dim for the line
     * operations), then every rank's RECV into out[r]; m: bytes of one
     * register */
    int (*ref_check)(const rtopo__tdesc_t *t, const rtopo__coll_t *c, int *E_p);
    int (*ref)(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
               uint8_t *const *const *bufs, uint8_t *const *out, uint64_t m, int E);
} rtopo__coll_desc_t;
/* the descriptor of op, NULL when op is not a collective */
const rtopo__coll_desc_t *rtopo__coll_desc(int op);
/* the op named name (rtopo__coll_name(op)), < 0 if none */
int rtopo__coll_parse(const char *name);
/* The schedule of one collective on t (no host endpoint).  algo AUTO
 * builds the topology's own and the generic one, runs both under model
 * (NULL: defaults) and keeps the faster; s->algo holds RTOPO_COLL_TOPO or
 * RTOPO_COLL_GENERIC (RTOPO_COLL_AUTO for the generalize's checked
 * algorithm, see above).  Errors: RTOPO_ERR_INVAL for arguments out of range
 * (message names it), RTOPO_ERR_UNSUPPORTED for an operation the
 * topology does not have (WINDOW_BCAST off the OTIS-mesh). */
int rtopo__sched_coll(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                      const struct rtopo__model *model, rtopo__sched_t **s_p);
/* The lower bound of candidate algo's simulated time (RTOPO_COLL_TOPO,
 * RTOPO_COLL_GENERIC, or the generic allreduce's reduce-scatter +
 * allgather, 3, and the scan's chain, 4) that the plan of rank c->own - 1
 * takes in choosing the broadcast's, allreduce's or scan's algorithm: its
 * share's bound and the family's (a path through many ranks).  -1 for
 * another operation or an algorithm it does not have. */
double rtopo__coll_cand_bound(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                              const struct rtopo__model *model, int algo);
/* The simulated time of candidate algo's whole graph that the plan of
 * rank c->own - 1 knows from its share where the algorithm's shape gives
 * it (the generic allreduce and scan, rtopo__time_fn), and the choice
 * takes without running that graph; -1 where it is not known. */
double rtopo__coll_cand_time(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                             const struct rtopo__model *model, int algo);
/* Set (tests only): the choice of `auto` runs every candidate's whole
 * graph, the reference the bounded choice is held against. */
extern int rtopo__choose_every;
/* That candidate's whole graph (c->own aside), as the choice runs it */
int rtopo__coll_cand_sched(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           const struct rtopo__model *model, int algo,
                           rtopo__sched_t **s_p);
/* The sort's AUTO by closed figures, no schedule built: RTOPO_COLL_GENERIC
 * where the column sort in rows (an OTIS topology of a square number of
 * groups, 2^k ranks) cannot win even at its lower bound against the
 * merge-split sort's estimate times RTOPO__SORT_EST_MARGIN, -1 where the
 * figures do not settle it (then the choice simulates, as before); -1
 * also under rtopo__choose_every and for a model with lanes or a layout
 * (their waiting is not in the estimate).  Plans and the whole graph
 * (rtopo-sim, the random accesses' sorts) both take it first. */
int rtopo__sort_auto_closed(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                            const struct rtopo__model *model);
/* Its figures: the column sort's lower bound of its simulated time (a
 * rank's chain of its own nodes at their least costs, the largest over
 * the ranks; -1 without rows) and the merge-split sort's estimate (its
 * rounds' longest routes alone on their links, with its kernels; -1 off
 * 2^k ranks), in seconds. */
void rtopo__sort_auto_figures(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                              const struct rtopo__model *model, double *col_lb,
                              double *ms_est);
/* What the routes' meeting may add to the merge-split sort's estimate:
 * its simulated time is 1.00-1.03 times it on 256 ranks, 1.15 on 4096,
 * 1.14 on 65,536 (the tests hold it against the simulator) */
#define RTOPO__SORT_EST_MARGIN 1.3
/* "bcast", "window_bcast", "scan", "allreduce", "shift_fill",
 * "accumulate", "adjacent_sum", "consecutive_sum", "select_rank",
 * "concentrate", "distribute", "generalize", "random_write", "random_read", "bpc",
 * "sort"; "?" otherwise */
const char *rtopo__coll_name(int op);
/* "auto", "topo", "generic" (parse: < 0 if unknown) */
const char *rtopo__coll_algo_name(int algo);
int rtopo__coll_algo_parse(const char *s);
/* the destination of rank r under c's BPC permutation */
int rtopo__bpc_dest(const rtopo__coll_t *c, int r);
/* Parse a vector: "[A_(k-1), ..., A_0]" in the seed's notation (brackets
 * optional, -0 negative), or a name: identity, transpose (k even),
 * reversal (bit reversal), shuffle (perfect shuffle: rotate left),
 * unshuffle; for k bits, into c->bpc_to / bpc_neg / bpc_bits.
 * RTOPO_ERR_INVAL with a message saying what is wrong. */
int rtopo__bpc_parse(const char *vec, int k, rtopo__coll_t *c);
/* Bytes of one rank's SEND and RECV for c (see above). */
uint64_t rtopo__coll_send_bytes(const rtopo__coll_t *c);
uint64_t rtopo__coll_recv_bytes(const rtopo__coll_t *c);
/* Moves counted from a schedule, in the paper's terms: a move is a step
 * in which data crosses links of one kind.  electronic: steps with
 * electronic hops (ROW, COL, CUBE, RING); electronic_simd: the same when
 * a step can move along one dimension and direction only (each step
 * counts its distinct (class, dim, dir) groups); otis: steps with OTIS
 * hops; other: steps with any other hop (DIRECT, CUBE_ID, HOST). */
typedef struct rtopo__moves {
    uint32_t electronic;
    uint32_t electronic_simd;
    uint32_t otis;
    uint32_t other;
} rtopo__moves_t;
void rtopo__sched_moves(const rtopo__sched_t *s, rtopo__moves_t *mv);
/* Serial reference (coll_ref.c): computes every rank's RECV from every
 * rank's SEND and RECV (bufs[r][RTOPO__BUF_SEND / _RECV], sized as
 * above) by the definitions above, into out[r] (recv bytes each).
 * RTOPO_ERR_INVAL / _UNSUPPORTED as rtopo__sched_coll.  The routing
 * operations also read the input the caller stages in TMP
 * (bufs[r][RTOPO__BUF_TMP], RTOPO__ROUTE_AUX bytes at least), and a rank
 * no record reaches keeps its RECV (out[r] = RECV); an input that breaks
 * the operation's order (senders, the ranks with dest >= 0, that are not
 * ranks 0..q, a destination >= p, destinations that do not increase with
 * the sending rank) is RTOPO_ERR_INVAL.  rtopo__coll_ref_got gives
 * their output got (got[r], p entries: 1 where a record lands, else 0),
 * RTOPO_ERR_INVAL for the operations without one. */
int rtopo__coll_ref(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                    uint8_t *const *const *bufs, uint8_t *const *out);
int rtopo__coll_ref_got(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                        uint8_t *const *const *bufs, int32_t *got);
/* Leighton's column sort, serially, on the r x s matrix a (row-major:
 * a[i*s + j] is row i, column j), ascending: steps 1..`steps` (0..7) of
 * SPEC 5.5 (1 sort the columns; 2 read column-major, write row-major;
 * 3 sort; 4 the inverse of 2; 5 sort, odd columns descending; 6 compare-
 * exchange of columns (0,1), (2,3), ... then (1,2), (3,4), ..., row by
 * row, the smaller to the left; 7 sort).  No bound on r: below
 * r >= 2(s-1)^2 the result is sorted only for some inputs.  RTOPO_OK,
 * RTOPO_ERR_INVAL (bad sizes), RTOPO_ERR_NOMEM. */
int rtopo__colsort_steps(int64_t *a, int r, int s, int steps);
void rtopo__sched_free(rtopo__sched_t *s);
/* Allocate a zeroed schedule with room for nxfers transfers and nhops hops
 * (counts set, nsteps 0).  RTOPO_ERR_NOMEM / RTOPO_ERR_INVAL on overflow. */
int rtopo__sched_alloc(const rtopo__tdesc_t *t, uint32_t nxfers, uint32_t nhops,
                       rtopo__sched_t **s_p);
/* Structural check: ranks, buffers and hop ranges in bounds, every hop a
 * real overlay edge of its class (rtopo__topo_hop_ok), routes end at dst
 * and visit no rank twice, steps strictly increase along a route and
 * stay below nsteps, nsteps is max hop step + 1 (local nodes' steps only
 * order them), offsets do not overflow and TMP ranges fit the rank's
 * TMP size; kernels well formed; every edge joins two parts that exist on
 * its rank (PORT: two SEND parts), and the edges have no cycle.
 * Returns RTOPO_OK or RTOPO_ERR_INVAL with a message naming the node. */
int rtopo__sched_validate(const rtopo__sched_t *s);
/* The same but for the cycles, for a caller that runs the graph next
 * (rtopo__sim_exec*, rtopo__sim_run*): the run finds them (nodes that
 * never start, RTOPO_ERR_INVAL) without a pass of its own over the edges. */
int rtopo__sched_validate_run(const rtopo__sched_t *s);
/* rtopo__sched_validate_run and the simulator's own bounds check in one
 * pass (the same errors, in the same order, as the two one after the
 * other), for a caller that runs the graph next with the *_valid runners
 * below, which then leave that check out. */
int rtopo__sched_validate_exec(const rtopo__sched_t *s);
const char *rtopo__shift_algo_name(int algo);
/* "local", "ring", "row", "col", "cube", "otis", "direct", "host",
 * "cube-id" */
const char *rtopo__link_name(int link);
int rtopo__link_parse(const char *s);         /* < 0 if unknown */
int rtopo__shift_algo_parse(const char *s);   /* < 0 if unknown */

/* Where a schedule's ranks run: host[r] is the host of schedule rank r
 * (topology label) for r < nranks, hosts numbered from 0.  A hop whose two
 * ends share a host is intra-host, any other inter-host; the simulator
 * counts moves and bytes by that reach, and the model may cost them apart
 * (rtopo__model_hop). */
enum rtopo__reach {
    RTOPO__REACH_INTRA = 0,
    RTOPO__REACH_INTER,
    RTOPO__REACH_COUNT
};

typedef struct rtopo__layout {
    uint32_t nranks;
    const uint32_t *host;
} rtopo__layout_t;

/* The reach of a hop from a to b; intra-host when the layout is NULL or
 * does not cover both ranks. */
static inline int rtopo__layout_reach(const rtopo__layout_t *l, int32_t a, int32_t b)
{
    if (!l || a < 0 || b < 0 || (uint32_t)a >= l->nranks || (uint32_t)b >= l->nranks)
        return RTOPO__REACH_INTRA;
    return l->host[a] == l->host[b] ? RTOPO__REACH_INTRA : RTOPO__REACH_INTER;
}

/* Cost model (SPEC section 4): per link class start-up ts, per-byte tw,
 * per-hop cut-through cost th; chunk size for pipelined routes; ports per
 * rank; kernel cost; where the ranks run. */
typedef struct rtopo__model {
    double ts[RTOPO__LINK_COUNT];   /* seconds */
    double tw[RTOPO__LINK_COUNT];   /* seconds per byte */
    double th[RTOPO__LINK_COUNT];   /* seconds per extra hop; < 0: ts + chunk*tw */
    size_t chunk;                   /* bytes */
    int ports;                      /* transfers a rank injects (and, apart,
                                       absorbs) at once; 0: no limit */
    double tk;                      /* seconds per byte a kernel touches (SORT:
                                       times log2 of its records) */
    int lanes;                      /* hops (and costly kernels and copies:
                                       the processors' works) that run at
                                       once in the whole schedule; 0: no
                                       limit (links apart) */
    const rtopo__layout_t *layout;  /* the ranks' hosts (not owned), or NULL:
                                       one host */
    int hostlinks;                  /* with a layout: inter-host hops a host
                                       sends (and, apart, receives) at once,
                                       its link to the others; 0: no limit */
    /* per reach (intra-host, inter-host): a hop of any class but LOCAL and
     * HOST between ranks the layout knows takes each parameter whose bit
     * is set in reach_set[reach] from here instead of its class (without
     * a layout these are unused); th < 0: ts + chunk*tw of the hop */
    double reach_ts[RTOPO__REACH_COUNT];
    double reach_tw[RTOPO__REACH_COUNT];
    double reach_th[RTOPO__REACH_COUNT];
    unsigned reach_set[RTOPO__REACH_COUNT];  /* RTOPO__RSET_* bits; 0: none */
    double tq;                      /* seconds every hop but a LOCAL one pays
                                       on top of its start-up (and every
                                       further hop of a route on top of its
                                       th): a machine whose ranks outnumber
                                       its processors, where each message
                                       waits for its receiver to run; 0 */
    double tt;                      /* seconds the last hop of a transfer
                                       takes on top of its ts + m*tw to
                                       land, and a further hop of a route
                                       to start, without holding its
                                       sender's port, link or lane: the
                                       receiver's turn on a machine whose
                                       ranks outnumber its processors (an
                                       eager message has left its sender
                                       when it lands; a rank that forwards
                                       what it received waits for its turn
                                       first); 0 */
    uint64_t eager;                 /* with tt: the longest transfer that
                                       leaves its sender without waiting
                                       for its receiver (the eager limit);
                                       a longer one holds its port through
                                       the receiver's turn too; 0: every
                                       transfer */
} rtopo__model_t;

#define RTOPO__RSET_TS 1u
#define RTOPO__RSET_TW 2u
#define RTOPO__RSET_TH 4u

void rtopo__model_default(rtopo__model_t *m);
/* Apply a KEY=VALUE list (model.c says which keys) over *m; on an error
 * RTOPO_ERR_INVAL with a message, *m partly updated. */
int rtopo__model_parse(const char *list, rtopo__model_t *m);
/* Every parameter of *m as such a list; -1 if n is too small. */
int rtopo__model_str(const rtopo__model_t *m, char *out, size_t n);
/* Cost of one extra hop of class `link` on a cut-through route of `bytes`:
 * th[link], or when it is < 0, ts + min(chunk, bytes)*tw of that class;
 * plus tq but for a LOCAL hop. */
double rtopo__model_th(const rtopo__model_t *m, int link, uint64_t bytes);
/* Start-up and per-byte time of one hop of class `link` from schedule
 * rank a to b, and its cut-through cost: what the simulator charges a
 * hop (both include tq but on a LOCAL hop).  Precedence: a LOCAL or HOST
 * hop, or any hop when the model has no
 * layout or the layout does not cover a and b, costs its class's
 * parameters (th as rtopo__model_th).  Any other hop takes each of ts, tw
 * and th that its reach (rtopo__layout_reach) sets, and its class's for
 * the others; th, when neither the reach nor the class sets it (or it is
 * set < 0), is ts + min(chunk, bytes)*tw of the hop's own ts and tw. */
void rtopo__model_hop(const rtopo__model_t *m, int link, int32_t a, int32_t b,
                      double *ts_p, double *tw_p);
double rtopo__model_hop_th(const rtopo__model_t *m, int link, int32_t a, int32_t b,
                           uint64_t bytes);
/* Lower bounds on ts, tw and th (for `bytes`) of any hop but a LOCAL one
 * under m, whatever its class and reach. */
void rtopo__model_floor(const rtopo__model_t *m, uint64_t bytes, double *ts_p, double *tw_p,
                        double *th_p);
/* "intra", "inter" */
const char *rtopo__reach_name(int reach);

typedef struct rtopo__sim_result {
    uint32_t steps;           /* lock-step rounds */
    uint32_t max_link_load;   /* most transfers on one link direction in a step */
    uint32_t longest_path;    /* links */
    double model_time;        /* seconds: end of the last node when the graph
                                 runs event by event (critical path under
                                 port and link contention, cut-through) */
    double model_time_sf;     /* seconds, store-and-forward lock-step */
    uint64_t moves[RTOPO__LINK_COUNT];  /* hop count per link class */
    uint64_t reach_moves[RTOPO__REACH_COUNT];  /* hops by reach (the model's
                                                  layout; all intra without) */
    uint64_t reach_bytes[RTOPO__REACH_COUNT];  /* bytes those hops carry */
    uint64_t kernels;         /* kernels run */
    int correct;              /* -1 not checked, 0 wrong, 1 right */
} rtopo__sim_result_t;

/* Evaluate a schedule under the model.
 * model_time: the graph runs event by event.  A node starts when the
 * edges into it are released (an edge by its pred's part on the edge's
 * rank: a SEND part when its data has left the source, a RECV part when
 * it landed, a LOCAL part when it ran).  Hop j of a transfer of m bytes
 * asks for its link direction at the time its head reaches the hop (hop
 * 0 at the start, hop j+1 th after hop j was granted) and holds it for
 * ts + m*tw of its class; hop 0 also holds one of the source's send
 * ports, the last hop one of the destination's receive ports.  Requests
 * are served first come first served.  Kernels and copies hold their
 * rank's processor for tk per byte (copies: ts + m*tw of LINK_LOCAL),
 * and with lanes one lane as well, as a hop does, when they cost more
 * than nothing.
 * model_time_sf: sum over steps of the busiest link direction's
 * load*(ts + m*tw), plus the local nodes. */
int rtopo__sim_run(const rtopo__sched_t *s, const rtopo__model_t *m,
                   rtopo__sim_result_t *r);
/* A lower bound of rtopo__sim_run's model_time for a schedule, from
 * rank's parts alone: s may be the whole graph or rank's share of it
 * (rtopo__sched_own); the busiest of rank's ports, its processor and the
 * link directions from and to it.  m NULL: defaults. */
double rtopo__sim_bound(const rtopo__sched_t *s, const rtopo__model_t *m, int rank);
/* rtopo__sim_run's model_time for a whole graph that every translation
 * v -> v ^ a of its p ranks (a power of two) maps onto itself, nodes,
 * lengths and edges (the caller knows its algorithm's shape), from rank's
 * share s alone: the share folded onto itself (rtopo__sim_fold of rank
 * alone), each transfer a peer sends to rank standing for rank's to that
 * peer, run event by event (cost: the share's).  -1 where it cannot tell: a model with lanes or a layout, a
 * routed transfer, receives that rank's sends do not mirror, memory. */
double rtopo__sim_sym(const rtopo__sched_t *s, const rtopo__model_t *m, int rank);
/* rtopo__sim_run's model_time for a whole graph from the nodes s that
 * touch the set H of ranks equal to rank outside mask (mask 0: rank
 * alone, rtopo__sim_sym): H folded onto itself, each transfer a rank
 * outside H sends to v in H standing for v's to that rank (it takes v's
 * receive port and, with hosts, v's host's link out), run event by
 * event.  Exact where the caller knows the translations v -> v ^ a map
 * the graph and its run onto themselves (rtopo__sim_sym; with hosts the
 * classes of equal bits outside mask, H one of them: coll_generic.c).
 * -1 where it cannot tell: a model with lanes or tt, a routed or forwarded
 * transfer, a receive from outside that no send mirrors, a node off H,
 * with hosts a hop that costs nothing, a deferred graph, memory. */
double rtopo__sim_fold(const rtopo__sched_t *s, const rtopo__model_t *m, int rank,
                       uint32_t mask);
/* A whole graph whose model_time under m is known exactly without running
 * it (a family's time, rtopo__time_fn, which the tests hold against the
 * run): keeps that time with s, so that the next rtopo__sim_run of s
 * under m (while its nodes and edges hash alike) returns it as
 * model_time, every other field computed as it computes them, and does
 * not run the graph event by event.  RTOPO_ERR_INVAL, RTOPO_ERR_NOMEM. */
int rtopo__sim_known(const rtopo__sched_t *s, const rtopo__model_t *m, double model_time);

/* Execute the data movement in memory, event by event in the order of
 * rtopo__sim_run under the default model: a transfer reads its source
 * when its SEND part ends and writes its destination when it lands;
 * copies and kernels run when they start.  bufs[rank][buf] point to
 * per-rank buffers (SEND, RECV, TMP). */
int rtopo__sim_exec(const rtopo__sched_t *s, uint8_t *const *const *bufs);
/* The same, also checking every range against size[buf] (bytes of each
 * rank's SEND, RECV and TMP buffer).  RTOPO_ERR_INVAL for an out-of-range
 * rank, buffer, hop or byte range or a failed kernel; RTOPO_ERR_NOMEM. */
int rtopo__sim_exec_sized(const rtopo__sched_t *s, uint8_t *const *const *bufs,
                          const uint64_t size[RTOPO__BUF_COUNT]);
/* rtopo__sim_run(s, m, r) and rtopo__sim_exec_sized(s, bufs, size) in
 * one: a model equal to the default one (m NULL too) runs the graph once
 * for both, the same events in the same order. */
int rtopo__sim_run_exec(const rtopo__sched_t *s, const rtopo__model_t *m,
                        uint8_t *const *const *bufs, const uint64_t size[RTOPO__BUF_COUNT],
                        rtopo__sim_result_t *r);
/* rtopo__sim_exec_sized and rtopo__sim_run_exec for a schedule that
 * passed rtopo__sched_validate_exec: its bounds are not checked again. */
int rtopo__sim_exec_valid(const rtopo__sched_t *s, uint8_t *const *const *bufs,
                          const uint64_t size[RTOPO__BUF_COUNT]);
int rtopo__sim_run_exec_valid(const rtopo__sched_t *s, const rtopo__model_t *m,
                              uint8_t *const *const *bufs,
                              const uint64_t size[RTOPO__BUF_COUNT], rtopo__sim_result_t *r);

#endif
