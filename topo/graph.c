/*
 * graph.c - the dependency graph of a schedule: parts of nodes on ranks,
 * edges inferred from steps and byte ranges, kernels and edges appended
 * by generators, per-rank scratch sizes, phase concatenation.
 *
 * Inference rule: on each rank, every access a node makes (a transfer's
 * source read, its destination write, a local node's reads and writes)
 * gets a key (step, phase, node) with phase 0 for a SEND part, 1 for a
 * RECV part and 2 for a local node; two accesses to overlapping ranges of
 * one buffer, at least one of them a write, are ordered by their keys and
 * joined by an edge.  Keys increase along every edge, so the inferred
 * graph has no cycle.  Cost: the accesses are bucketed by rank (a chunk
 * of ranks at a time) and sorted within each rank and buffer; a read
 * scans back over the writes before it, a write over every access, each
 * until a write that covers it: O(a) per access at worst for a accesses
 * of its rank to its buffer, O(1) where writes cover what follows them.
 * The scans run node by node (the order the accesses were put in), so a
 * rank's edges come out by succ, each node's few sorted by pred as they
 * come, with no sort of the rank's edges.
 * The edges come out rank by rank, sorted, and are merged with those
 * already there (sorted runs: joined phases), or handed rank by rank to
 * a caller that keeps them its own way (rtopo__sched_deps_each: the
 * simulator's run of a deferred graph).  Joining two phases whose
 * edges are all inferred and whose accesses follow one another infers
 * only the edges into the later phase.
 */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

void rtopo__sched_big(void *p, size_t bytes)
{
#if defined(MADV_HUGEPAGE) && defined(__GLIBC__)
    /* the whole of the block's pages (a part would split its mapping,
     * and a realloc could no longer move it without a copy) */
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095, e;

    if (!p || bytes < RTOPO__SCHED_BIG)
        return;
    e = ((uintptr_t)p + malloc_usable_size(p)) & ~(uintptr_t)4095;
    if (e > a)
        (void)madvise((void *)a, (size_t)(e - a), MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

int rtopo__sched_part(const rtopo__sched_t *s, uint32_t id, int rank)
{
    if (id < s->nxfers) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, id), *x = &xv;

        if (!x->nhops)
            return x->src == rank ? RTOPO__PART_LOCAL : 0;
        if (x->src == rank)
            return RTOPO__PART_SEND;
        return x->dst == rank ? RTOPO__PART_RECV : 0;
    }
    id -= s->nxfers;
    if (id < s->nkerns)
        return s->kerns[id].rank == rank ? RTOPO__PART_LOCAL : 0;
    return 0;
}

int rtopo__sched_add_kerns(rtopo__sched_t *s, uint32_t n, uint32_t *idx_p)
{
    rtopo__knode_t *k;
    rtopo__kshape_t zero;
    uint32_t z, i;

    if (!s || n > UINT32_MAX - s->nkerns || n > UINT32_MAX - s->nxfers - s->nkerns)
        return rtopo__error(RTOPO_ERR_INVAL, "too many kernels");
    k = realloc(s->kerns, ((size_t)s->nkerns + n + 1) * sizeof(*k));
    if (!k)
        return rtopo__error(RTOPO_ERR_NOMEM, "%u kernels", s->nkerns + n);
    s->kerns = k;
    memset(&zero, 0, sizeof(zero));
    if (n && (z = rtopo__kshapes_put(&s->kshapes, &zero)) == UINT32_MAX)
        return rtopo__error(RTOPO_ERR_NOMEM, "%u kernels", s->nkerns + n);
    memset(k + s->nkerns, 0, (size_t)n * sizeof(*k));
    for (i = 0; i < n; i++)
        k[s->nkerns + i].shape = z;
    s->inferred = 0;
    if (idx_p)
        *idx_p = s->nkerns;
    s->nkerns += n;
    return RTOPO_OK;
}

/* Room for more edges; the capacity grows geometrically. */
static int rtopo__deps_reserve(rtopo__sched_t *s, size_t more)
{
    rtopo__dep_t *d;
    size_t want = (size_t)s->ndeps + more;

    if (want <= s->deps_cap)
        return RTOPO_OK;
    if (want > UINT32_MAX)
        return rtopo__error(RTOPO_ERR_NOMEM, "too many edges");
    if (want < 2 * (size_t)s->deps_cap)
        want = 2 * (size_t)s->deps_cap;
    if (want < 64)
        want = 64;
    if (want > UINT32_MAX)
        want = UINT32_MAX;
    d = realloc(s->deps, want * sizeof(*d));
    if (!d)
        return rtopo__error(RTOPO_ERR_NOMEM, "%zu edges", want);
    s->deps = d;
    s->deps_cap = (uint32_t)want;
    return RTOPO_OK;
}

int rtopo__sched_add_dep(rtopo__sched_t *s, int rank, uint32_t pred, uint32_t succ,
                         int kind)
{
    int st = rtopo__deps_reserve(s, 1);

    if (st)
        return st;
    s->deps[s->ndeps].rank = rank;
    s->deps[s->ndeps].pred = pred;
    s->deps[s->ndeps].succ = succ;
    s->deps[s->ndeps].kind = (uint32_t)kind;
    s->ndeps++;
    return RTOPO_OK;
}

int rtopo__sched_set_tmp(rtopo__sched_t *s, const uint64_t *tmp_rank)
{
    uint64_t *t, max = 0;
    int i;

    t = malloc((size_t)s->topo.p * sizeof(*t));
    if (!t)
        return rtopo__error(RTOPO_ERR_NOMEM, "TMP sizes of %d ranks", s->topo.p);
    for (i = 0; i < s->topo.p; i++) {
        t[i] = tmp_rank[i];
        if (t[i] > max)
            max = t[i];
    }
    free(s->tmp_rank);
    s->tmp_rank = t;
    s->tmp_bytes = max;
    return RTOPO_OK;
}

/* ---- inference --------------------------------------------------------- */

/* One access, in its rank's bucket (the rank is the bucket's). */
typedef struct rtopo__acc {
    uint32_t step;
    uint32_t node;
    uint64_t off, end;  /* its bytes: off..end - 1 */
    uint32_t pw;       /* sorted: its place in the bucket before (the put
                        * order, node order); then the last write before it
                        * in the bucket (UINT32_MAX: none) */
    uint8_t phase;     /* 0 send, 1 recv, 2 local */
    uint8_t write;
    uint8_t buf;
} rtopo__acc_t;

/* (buf, step, phase, node); equal keys keep the order they were put in
 * (the sort below is stable): a rank's accesses to one buffer in the
 * order of (step, phase, node), the order of the inference */
static int rtopo__acc_cmp(const void *a, const void *b)
{
    const rtopo__acc_t *x = a, *y = b;

    if (x->buf != y->buf)
        return x->buf < y->buf ? -1 : 1;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    if (x->phase != y->phase)
        return x->phase < y->phase ? -1 : 1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return 0;
}

static int rtopo__dep_cmp(const void *a, const void *b)
{
    const rtopo__dep_t *x = a, *y = b;

    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->succ != y->succ)
        return x->succ < y->succ ? -1 : 1;
    if (x->pred != y->pred)
        return x->pred < y->pred ? -1 : 1;
    return x->kind < y->kind ? -1 : x->kind > y->kind;
}

/* x before y in rtopo__dep_cmp's order */
static inline int rtopo__dep_lt(const rtopo__dep_t *x, const rtopo__dep_t *y)
{
    if (x->rank != y->rank)
        return x->rank < y->rank;
    if (x->succ != y->succ)
        return x->succ < y->succ;
    if (x->pred != y->pred)
        return x->pred < y->pred;
    return x->kind < y->kind;
}

/* One merge sort, written once for the three arrays below: insertion
 * sort of runs of 16, then merges through tmp (room for n), each skipped
 * where its two halves are in order already (a rank's new edges come out
 * nearly sorted).  Stable; LT(x, y): x before y (pointers). */
#define RTOPO__MSORT(name, type, LT)                                            \
static void name(type *a, size_t n, type *tmp)                                 \
{                                                                              \
    size_t w, i, j, lo, mid, hi, k;                                            \
                                                                               \
    for (lo = 0; lo < n; lo += 16) {                                           \
        hi = lo + 16 < n ? lo + 16 : n;                                        \
        for (i = lo + 1; i < hi; i++) {                                        \
            type v = a[i];                                                     \
                                                                               \
            for (j = i; j > lo && LT(&v, &a[j - 1]); j--)                      \
                a[j] = a[j - 1];                                               \
            a[j] = v;                                                          \
        }                                                                      \
    }                                                                          \
    for (w = 16; w < n; w *= 2) {                                              \
        for (lo = 0; lo + w < n; lo += 2 * w) {                                \
            mid = lo + w;                                                      \
            hi = lo + 2 * w < n ? lo + 2 * w : n;                              \
            if (!LT(&a[mid], &a[mid - 1]))                                     \
                continue;                                                      \
            memcpy(tmp, a + lo, (mid - lo) * sizeof(*a));                      \
            for (i = 0, j = mid, k = lo; i < mid - lo && j < hi; k++)          \
                a[k] = LT(&a[j], &tmp[i]) ? a[j++] : tmp[i++];                 \
            while (i < mid - lo)                                               \
                a[k++] = tmp[i++];                                             \
        }                                                                      \
    }                                                                          \
}

/* n edges by rtopo__dep_cmp (a total order: equal edges are the same
 * edge, so the same array as any sort) */
RTOPO__MSORT(rtopo__dep_sort, rtopo__dep_t, rtopo__dep_lt)

/* one rank's edges as 64-bit keys (succ, pred, kind: 31, 31 and 2 bits,
 * the order of rtopo__dep_cmp within a rank) */
#define RTOPO__KEY_LT(x, y) (*(x) < *(y))
RTOPO__MSORT(rtopo__key_sort, uint64_t, RTOPO__KEY_LT)

/* n accesses by rtopo__acc_cmp, stable */
#define RTOPO__ACC_LT(x, y) (rtopo__acc_cmp((x), (y)) < 0)
RTOPO__MSORT(rtopo__acc_sort, rtopo__acc_t, RTOPO__ACC_LT)

/* One rank's n accesses a, in the order they were put (node order),
 * sorted by rtopo__acc_cmp into out (room for n), or in a itself: the
 * sorted ones returned; each one's pw: its place before.  As 64-bit keys
 * (buf, step, phase and the place: 8, 32, 2 and 22 bits; the place keeps
 * the node order among equal keys, as the stable sort does) sorted in key
 * (room for 2 * n), then the accesses moved once; a rank of more accesses
 * than the place holds sorts them where they are, out its scratch. */
#define RTOPO__AT_BITS 22
static rtopo__acc_t *rtopo__acc_order(rtopo__acc_t *a, size_t n, uint64_t *key,
                                      rtopo__acc_t *out)
{
    size_t i;

    if (n > ((size_t)1 << RTOPO__AT_BITS)) {
        for (i = 0; i < n; i++)
            a[i].pw = (uint32_t)i;
        rtopo__acc_sort(a, n, out);
        return a;
    }
    for (i = 0; i < n; i++)
        key[i] = (uint64_t)a[i].buf << 56 | (uint64_t)a[i].step << 24 |
                 (uint64_t)a[i].phase << RTOPO__AT_BITS | i;
    rtopo__key_sort(key, n, key + n);
    for (i = 0; i < n; i++) {
        uint32_t at = (uint32_t)(key[i] & (((uint64_t)1 << RTOPO__AT_BITS) - 1));

        out[i] = a[at];
        out[i].pw = at;
    }
    return out;
}

/* Where rtopo__acc_put puts the accesses: with a NULL it counts them in
 * cnt[rank + 1]; else it puts those of ranks r0..r1 - 1 at a[cnt[rank]++].
 * map, when not NULL: the chunk of each node's ranks, read instead of the
 * node for those of no rank of chunk ci.  bmap, counting: where the map is
 * made, the block of each node's ranks (rtopo__acc_blk). */
typedef struct rtopo__accs {
    size_t *cnt;
    rtopo__acc_t *a;
    int r0, r1;
    const uint8_t *map;
    uint8_t ci;
    uint8_t *bmap;
    int bshift;
} rtopo__accs_t;

/* The map: a byte per kernel, two per transfer (its source's, its
 * destination's), kernels first at map[2 * nxfers].  The count's walk
 * over the nodes puts the block of each rank there (rank >> bshift, at
 * most RTOPO__BLKS of them; 255 for a rank out of range, a node with no
 * access: the count found the others), the chunks are whole blocks, and
 * the map then holds each block's chunk: no walk of its own. */
#define RTOPO__BLKS 254
static inline uint8_t rtopo__acc_blk(const rtopo__accs_t *c, int32_t r, int p)
{
    return r >= 0 && r < p ? (uint8_t)(r >> c->bshift) : 255;
}

/* One access of a node on rank (none of length 0; in a share, own = r +
 * 1, only rank r's).  RTOPO_ERR_INVAL for a rank out of range. */
static inline int rtopo__acc_put(const rtopo__sched_t *s, rtopo__accs_t *c, int rank,
                                 uint32_t step, int phase, int write, int buf, uint32_t node,
                                 uint64_t off, uint64_t len)
{
    rtopo__acc_t *e;

    if (!len || (s->own && rank != s->own - 1))
        return RTOPO_OK;
    if (rank < 0 || rank >= s->topo.p)
        return rtopo__error(RTOPO_ERR_INVAL, "node %u: rank %d out of 0..%d", node, rank,
                            s->topo.p - 1);
    if (!c->a) {
        c->cnt[rank + 1]++;
        return RTOPO_OK;
    }
    if (rank < c->r0 || rank >= c->r1)
        return RTOPO_OK;
    e = &c->a[c->cnt[rank]++];
    e->step = step;
    e->node = node;
    e->off = off;
    e->end = off + len;
    e->phase = (uint8_t)phase;
    e->write = (uint8_t)write;
    e->buf = (uint8_t)buf;
    return RTOPO_OK;
}

/* is rank outside the chunk c puts (none when it counts)? */
static inline int rtopo__acc_out(const rtopo__accs_t *c, int32_t rank)
{
    return c->a && (rank < c->r0 || rank >= c->r1);
}

/* does any of the 8 bytes at b equal v? */
static inline int rtopo__has_byte(const uint8_t *b, uint8_t v)
{
    uint64_t w;

    memcpy(&w, b, sizeof(w));
    w ^= 0x0101010101010101ull * v;
    return ((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull) != 0;
}

/* every access of s, in node order (rtopo__acc_put); port: only the
 * SEND part of each routed transfer, of length 1.  Putting a chunk, the
 * nodes of no rank of it are passed over unread (their ranks were
 * checked when counting) */
static int rtopo__acc_all(const rtopo__sched_t *s, rtopo__accs_t *c, int port)
{
    uint32_t id, i;
    int st = RTOPO_OK;

    for (id = 0; id < s->nxfers && !st; id++) {
        rtopo__xfer_t xv;
        const rtopo__xfer_t *x = &xv;

        if (c->bmap) {
            c->bmap[2 * (size_t)id] = rtopo__acc_blk(c, s->xfers[id].src, s->topo.p);
            c->bmap[2 * (size_t)id + 1] = rtopo__acc_blk(c, s->xfers[id].dst, s->topo.p);
        }
        if (c->map) {
            /* four transfers at a time while none is the chunk's */
            while (id + 4 <= s->nxfers && !rtopo__has_byte(c->map + 2 * (size_t)id, c->ci))
                id += 4;
            if (id >= s->nxfers)
                break;
            if (c->map[2 * id] != c->ci && c->map[2 * id + 1] != c->ci)
                continue;
        }
        xv = rtopo__sched_xfer(s, id);
        if (rtopo__acc_out(c, x->src) && rtopo__acc_out(c, x->dst))
            continue;
        if (port) {
            if (x->nhops)
                st = rtopo__acc_put(s, c, x->src, s->hops[x->hop0].step, 0, 0, 0, id, 0, 1);
        } else if (!x->nhops) {
            if (!(st = rtopo__acc_put(s, c, x->src, x->step, 2, 0, x->src_buf, id,
                                      x->src_off, x->len)))
                st = rtopo__acc_put(s, c, x->src, x->step, 2, 1, x->dst_buf, id, x->dst_off,
                                    x->len);
        } else if (!(st = rtopo__acc_put(s, c, x->src, s->hops[x->hop0].step, 0, 0, x->src_buf,
                                         id, x->src_off, x->len))) {
            st = rtopo__acc_put(s, c, x->dst, s->hops[x->hop0 + x->nhops - 1].step, 1, 1,
                                x->dst_buf, id, x->dst_off, x->len);
        }
    }
    for (i = 0; i < s->nkerns && !port && !st; i++) {
        const rtopo__knode_t *k;
        const rtopo__kshape_t *h;
        uint64_t slen;
        int rd;

        if (c->bmap)
            c->bmap[2 * (size_t)s->nxfers + i] = rtopo__acc_blk(c, s->kerns[i].rank, s->topo.p);
        if (c->map) {
            const uint8_t *km = c->map + 2 * (size_t)s->nxfers;

            /* eight kernels at a time while none is the chunk's */
            while (i + 8 <= s->nkerns && !rtopo__has_byte(km + i, c->ci))
                i += 8;
            if (i >= s->nkerns)
                break;
            if (km[i] != c->ci)
                continue;
        }
        k = &s->kerns[i];
        if (rtopo__acc_out(c, k->rank))
            continue;
        h = rtopo__sched_kshape(s, i);
        rd = rtopo__kshape_src(h, &slen);

        id = s->nxfers + i;
        if (rd)
            st = rtopo__acc_put(s, c, k->rank, k->step, 2, h->type == RTOPO__KERN_CMPX,
                                h->src_buf, id, h->src_off, slen);
        if (!st)
            st = rtopo__acc_put(s, c, k->rank, k->step, 2, 1, h->dst_buf, id, h->dst_off,
                                h->len);
    }
    return st;
}

/* How many accesses each rank has: num[r + 1] (p + 2 entries, allocated);
 * the most of one rank in *big_p, all in *tot_p.  bmap, when not NULL:
 * the blocks of the nodes' ranks (rtopo__accs_t). */
static int rtopo__acc_count(const rtopo__sched_t *s, int port, size_t **num_p, size_t *big_p,
                            size_t *tot_p, uint8_t *bmap, int bshift)
{
    rtopo__accs_t c = { NULL, NULL, 0, s->topo.p, NULL, 0, bmap, bshift };
    size_t r, big = 0, tot = 0;
    int st;

    *num_p = NULL;
    if (!(c.cnt = calloc((size_t)s->topo.p + 2, sizeof(*c.cnt))))
        return rtopo__error(RTOPO_ERR_NOMEM, "inferring the edges of %d ranks", s->topo.p);
    if ((st = rtopo__acc_all(s, &c, port))) {
        free(c.cnt);
        return st;
    }
    for (r = 0; r < (size_t)s->topo.p; r++) {
        big = c.cnt[r + 1] > big ? c.cnt[r + 1] : big;
        tot += c.cnt[r + 1];
    }
    *num_p = c.cnt;
    *big_p = big;
    *tot_p = tot;
    return RTOPO_OK;
}

/* The accesses of ranks r0..r1 - 1 bucketed by rank: a[pos[r]..pos[r +
 * 1]) are rank r's (pos[r0] = 0), each bucket in key order (with tmp, room
 * for the largest bucket, and key, for twice it: rtopo__acc_order) or as
 * they were put (tmp NULL); num from rtopo__acc_count; map and ci as in
 * rtopo__accs_t (map NULL: none). */
static void rtopo__acc_chunk(const rtopo__sched_t *s, int port, const size_t *num, int r0,
                             int r1, const uint8_t *map, uint8_t ci, size_t *pos,
                             rtopo__acc_t *a, rtopo__acc_t *tmp, uint64_t *key)
{
    rtopo__accs_t c = { pos, a, r0, r1, map, ci, NULL, 0 };
    int r;

    pos[r0] = 0;
    for (r = r0; r + 1 < r1; r++)
        pos[r + 1] = pos[r] + num[r + 1];
    /* each bucket fills from its start, which then holds its end, the
     * next one's start: shift back */
    (void)rtopo__acc_all(s, &c, port);
    for (r = r1; r > r0; r--)
        pos[r] = pos[r - 1];
    pos[r0] = 0;
    for (r = r0; r < r1 && tmp; r++)
        if (rtopo__acc_order(a + pos[r], pos[r + 1] - pos[r], key, tmp) != a + pos[r])
            memcpy(a + pos[r], tmp, (pos[r + 1] - pos[r]) * sizeof(*a));
}

/* room for `more` entries in a growing edge array */
static int rtopo__edges_room(rtopo__dep_t **e, size_t *n, size_t *cap, size_t more)
{
    rtopo__dep_t *q;
    size_t want;

    if (*n + more <= *cap)
        return RTOPO_OK;
    want = *cap < 64 ? 64 : *cap * 2;
    while (want < *n + more)
        want *= 2;
    if (want > UINT32_MAX)
        return rtopo__error(RTOPO_ERR_NOMEM, "too many edges");
    if (!(q = realloc(*e, want * sizeof(*q))))
        return rtopo__error(RTOPO_ERR_NOMEM, "%zu edges", want);
    *e = q;
    *cap = want;
    return RTOPO_OK;
}

/* Merge the sorted runs run[0..k) (bounds rb[i]..re[i] of arrays ra[i])
 * into out, dropping repeats; the count written. */
#define RTOPO__RUNS_MAX 8
static size_t rtopo__edges_merge(rtopo__dep_t *out, rtopo__dep_t *const *ra, size_t *rb,
                                 const size_t *re, int k)
{
    size_t w = 0;

    for (;;) {
        int best = -1, i;

        for (i = 0; i < k; i++)
            if (rb[i] < re[i] &&
                (best < 0 || rtopo__dep_cmp(&ra[i][rb[i]], &ra[best][rb[best]]) < 0))
                best = i;
        if (best < 0)
            return w;
        if (!w || rtopo__dep_cmp(&out[w - 1], &ra[best][rb[best]]))
            out[w++] = ra[best][rb[best]];
        rb[best]++;
    }
}

#define RTOPO__NONE SIZE_MAX

/* The edges into y = a[j] from the accesses before it to its buffer,
 * a[b..j) of one rank's bucket a (pw: the last write before each),
 * appended at (*ne)[*nn] (none with emit 0).  Latest first: a write that
 * covers all of y's range is itself ordered after every earlier access
 * that overlaps y, so the scan stops there (no transitive edges); a read
 * meets the writes alone.  A write's scan passes over the ranges apart
 * from its own in a tight loop, and over whole blocks of eight of them
 * where bnd says none overlaps (rtopo__acc_bounds).  1 (*xc: the other's
 * index) for two RECV writes of one step to overlapping bytes.  Inlined
 * where it is called (a call per access costs as much as the scan). */
#if defined(__GNUC__)
#define RTOPO__INLINE inline __attribute__((always_inline))
#else
#define RTOPO__INLINE inline
#endif
static RTOPO__INLINE int rtopo__acc_scan(const rtopo__acc_t *a, const uint64_t *bnd, size_t b,
                                         size_t j, int32_t rank, rtopo__dep_t **ne,
                                         size_t *nn, size_t *ncap, int emit, size_t *xc)
{
    const rtopo__acc_t *y = &a[j];
    int wr = y->write, st;
    uint64_t yo = y->off, ye = y->end;
    size_t i;

    for (i = wr ? (j > b ? j - 1 : RTOPO__NONE) : y->pw == UINT32_MAX ? RTOPO__NONE : y->pw;
         i != RTOPO__NONE;
         i = wr ? (i > b ? i - 1 : RTOPO__NONE) :
             a[i].pw == UINT32_MAX ? RTOPO__NONE : a[i].pw) {
        const rtopo__acc_t *x;
        int kind;

        if (wr) {
            while (i > b && (a[i].off >= ye || yo >= a[i].end)) {
                i--;
                /* at the last of a block that lies above b */
                if ((i & 7) == 7)
                    while (i >= b + 8 && (bnd[2 * (i >> 3)] >= ye || yo >= bnd[2 * (i >> 3) + 1]))
                        i -= 8;
            }
            if (a[i].off >= ye || yo >= a[i].end)
                break;
        }
        x = &a[i];
        if (x->node == y->node || !(x->write || wr) || x->off >= ye || yo >= x->end)
            continue;
        if (x->step == y->step && x->phase == 1 && y->phase == 1) {
            *xc = i;
            return 1;
        }
        if (!emit)
            continue;
        kind = x->write && wr ? RTOPO__DEP_WAW : x->write ? RTOPO__DEP_RAW : RTOPO__DEP_WAR;
        if (*nn == *ncap && (st = rtopo__edges_room(ne, nn, ncap, 1)))
            return st;
        (*ne)[(*nn)++] = (rtopo__dep_t){ rank, x->node, y->node, (uint32_t)kind };
        if (x->write && x->off <= yo && x->end >= ye)
            break;
    }
    return RTOPO_OK;
}

/* The error for the first two RECV writes of one step to overlapping
 * bytes of rank's buffer, in the order of the rank's n accesses a (those
 * into nodes as rtopo__deps_infer_into's xlo, xhi and klo; bnd as
 * rtopo__acc_scan's) */
static int rtopo__acc_conflicts(const rtopo__acc_t *a, const uint64_t *bnd, size_t n,
                                uint32_t xlo, uint32_t xhi, uint32_t klo, int rank)
{
    size_t b, e, j, xc = 0;

    for (b = 0; b < n; b = e) {
        for (e = b; e < n && a[e].buf == a[b].buf; e++)
            ;
        for (j = b; j < e; j++) {
            const rtopo__acc_t *x, *y = &a[j];

            if ((y->node < xlo || y->node >= xhi) && y->node < klo)
                continue;
            if (rtopo__acc_scan(a, bnd, b, j, rank, NULL, NULL, NULL, 0, &xc) != 1)
                continue;
            x = &a[xc];
            return rtopo__error(RTOPO_ERR_INVAL, "transfers %u and %u both write rank %d's "
                                "buffer %u at offset %llu in step %u: order them by steps",
                                x->node, y->node, rank, y->buf, (unsigned long long)
                                (x->off > y->off ? x->off : y->off), y->step);
        }
    }
    return rtopo__error(RTOPO_ERR_INVAL, "rank %d: two transfers write one range in a step",
                        rank);
}

/* The bounds of each block of eight of a rank's n accesses a (a[8k..8k +
 * 8)): the least offset at bnd[2k], the greatest end at bnd[2k + 1] (room
 * for n / 4 + 2).  No access of a block overlaps a range that ends by
 * the least or starts from the greatest. */
static void rtopo__acc_bounds(const rtopo__acc_t *a, size_t n, uint64_t *bnd)
{
    size_t i, k;

    for (k = 0; k + 8 <= n; k += 8, bnd += 2) {
        uint64_t lo = a[k].off, hi = a[k].end;

        for (i = k + 1; i < k + 8; i++) {
            lo = a[i].off < lo ? a[i].off : lo;
            hi = a[i].end > hi ? a[i].end : hi;
        }
        bnd[0] = lo;
        bnd[1] = hi;
    }
}

/* n edges of one node on one rank (one succ) by (pred, kind) */
static void rtopo__edges_pred_sort(rtopo__dep_t *e, size_t n)
{
    size_t i, j;

    for (i = 1; i < n; i++) {
        rtopo__dep_t v = e[i];

        for (j = i; j > 0 && (v.pred < e[j - 1].pred ||
                              (v.pred == e[j - 1].pred && v.kind < e[j - 1].kind)); j--)
            e[j] = e[j - 1];
        e[j] = v;
    }
}

/* The edges into the nodes of a later phase (transfers xlo..xhi - 1 and
 * kernels from node klo; all: 0, nxfers, nxfers) added to s's, as
 * rtopo__sched_deps_infer (which infers them all).  With a sink, s is
 * left as it is: each rank's edges go to sink instead, in rank order,
 * each rank's in the order s->deps would hold them, and are dropped. */
static int rtopo__deps_infer_into(rtopo__sched_t *s, unsigned flags, uint32_t xlo, uint32_t xhi,
                                  uint32_t klo, rtopo__dep_sink_fn *sink, void *ctx)
{
    rtopo__acc_t *acc = NULL, *pacc = NULL, *tmp = NULL;
    size_t *num = NULL, *cnt = NULL, *pnum = NULL, *pcnt = NULL, nn = 0, ncap = 0, i, j, b, e,
           w, r, rb[RTOPO__RUNS_MAX + 1], re[RTOPO__RUNS_MAX + 1], n0 = s->ndeps, big = 0,
           tot = 0, pbig = 0, ptot = 0, room;
    rtopo__dep_t *ne = NULL, *out = NULL, *ra[RTOPO__RUNS_MAX + 1];
    rtopo__acc_t *a;
    uint8_t *map = NULL, lut[256];
    uint64_t *key = NULL;
    uint32_t *inv = NULL, gnode;
    size_t gb[256], n, g, btot[RTOPO__BLKS + 1], nb;
    int st, k = 0, c0, c1, p = s->topo.p, bshift, cr[RTOPO__BLKS + 2], nch, ci = 0;

    /* The accesses, a chunk of ranks at a time: a 32nd of them at most
     * (2^20 and one rank's at least; the passes of the chunks read the
     * map below, not the nodes), bucketed by rank; the sends for PORT all
     * at once */
    for (bshift = 0; p > 0 && ((p - 1) >> bshift) >= RTOPO__BLKS; bshift++)
        ;
    /* (one chunk for sure where every node's two accesses fit in the
     * least room below: no map) */
    map = p > 1 && 2 * ((uint64_t)s->nxfers + s->nkerns) > ((uint64_t)1 << 20) ?
          malloc(2 * (size_t)s->nxfers + (size_t)s->nkerns + 1) : NULL;
    if ((st = rtopo__acc_count(s, 0, &num, &big, &tot, map, bshift)) ||
        ((flags & RTOPO__DEPS_PORT) &&
         (st = rtopo__acc_count(s, 1, &pnum, &pbig, &ptot, NULL, 0))))
        goto out;
    room = tot / 32 > ((size_t)1 << 20) ? tot / 32 : (size_t)1 << 20;
    room = room < big ? big : room > tot ? tot : room;
    /* the chunks of ranks the loop below takes: whole blocks, as many as
     * fit in room (one at least: room holds the largest) */
    for (i = 0, j = 0; i < (size_t)p; i = e) {
        e = i + ((size_t)1 << bshift) < (size_t)p ? i + ((size_t)1 << bshift) : (size_t)p;
        for (b = i, w = 0; b < e; b++)
            w += num[b + 1];
        btot[j++] = w;
        room = w > room ? w : room;
    }
    for (nb = j, i = 0, k = 0; i < nb; k++) {
        cr[k] = (int)(i << bshift);
        for (w = 0, j = i; j < nb && (j == i || w + btot[j] <= room); j++) {
            w += btot[j];
            lut[j] = (uint8_t)k;
        }
        i = j;
    }
    cr[k] = p;
    nch = k;
    if (pnum)
        big = pbig > big ? pbig : big;
    acc = malloc((room + 1) * sizeof(*acc));
    tmp = malloc((big + 1) * sizeof(*tmp));
    key = malloc(2 * (big + 1) * sizeof(*key));
    inv = malloc((big + 1) * sizeof(*inv));
    rtopo__sched_big(acc, (room + 1) * sizeof(*acc));
    cnt = malloc(((size_t)p + 2) * sizeof(*cnt));
    if (pnum) {
        pacc = malloc((ptot + 1) * sizeof(*pacc));
        pcnt = malloc(((size_t)p + 2) * sizeof(*pcnt));
    }
    if (!acc || !tmp || !key || !inv || !cnt || (pnum && (!pacc || !pcnt))) {
        st = rtopo__error(RTOPO_ERR_NOMEM, "inferring the edges of %u nodes",
                          s->nxfers + s->nkerns);
        goto out;
    }
    /* more than one chunk: each chunk's pass reads a byte of the map for
     * the nodes of none of its ranks, not the node (the same accesses;
     * without the memory for the map, the nodes); the map's blocks become
     * their chunks */
    if (nch > 1 && map) {
        size_t nm = 2 * (size_t)s->nxfers + (size_t)s->nkerns;

        lut[255] = 255;
        for (i = 0; i < nm; i++)
            map[i] = lut[map[i]];
    } else {
        free(map);
        map = NULL;
    }
    k = 0;
    if (pnum && p)
        rtopo__acc_chunk(s, 1, pnum, 0, p, NULL, 0, pcnt, pacc, tmp, key);
    /* the new edges, rank by rank, each rank's sorted and without repeats */
    for (c0 = 0, c1 = 0, r = 0; r < (size_t)p; r++) {
        size_t r0 = nn;

        if ((int)r == c1) {
            c0 = cr[ci];
            c1 = cr[ci + 1];
            rtopo__acc_chunk(s, 0, num, c0, c1, map, (uint8_t)ci, cnt, acc, NULL, NULL);
            ci++;
        }

        /* The rank's accesses to each buffer (from gb[buf]): each one's
         * pw becomes the last write before it there, after its place in
         * the put order gave inv (inv[place] = where it is now) */
        n = cnt[r + 1] - cnt[r];
        a = rtopo__acc_order(acc + cnt[r], n, key, tmp);
        for (b = 0; b < n; b = e) {
            uint32_t lw = UINT32_MAX;

            gb[a[b].buf] = b;
            for (e = b; e < n && a[e].buf == a[b].buf; e++) {
                inv[a[e].pw] = (uint32_t)e;
                a[e].pw = lw;
                if (a[e].write)
                    lw = (uint32_t)e;
            }
        }
        rtopo__acc_bounds(a, n, key);
        /* The edges into each node of the rank, in node order (the order
         * the accesses were put in), each node's sorted by (pred, kind)
         * and without repeats: the rank's in rtopo__dep_cmp's order, as
         * they come */
        for (j = 0, g = nn, gnode = UINT32_MAX; j <= n; j++) {
            const rtopo__acc_t *y = j < n ? &a[inv[j]] : NULL;
            size_t xc;

            if (y && ((y->node < xlo || y->node >= xhi) && y->node < klo))
                continue;
            if ((!y || y->node != gnode) && nn - g > 1) {
                if (nn - g <= 32) {
                    rtopo__edges_pred_sort(ne + g, nn - g);
                } else {
                    /* as keys (pred, kind) in the room past the edges
                     * (two keys to an edge: the sort's scratch too) */
                    uint64_t *gk;

                    if ((st = rtopo__edges_room(&ne, &nn, &ncap, nn - g)))
                        goto out;
                    gk = (uint64_t *)(void *)(ne + nn);
                    for (i = g; i < nn; i++)
                        gk[i - g] = (uint64_t)ne[i].pred << 2 | ne[i].kind;
                    rtopo__key_sort(gk, nn - g, gk + (nn - g));
                    for (i = g; i < nn; i++) {
                        ne[i].pred = (uint32_t)(gk[i - g] >> 2);
                        ne[i].kind = (uint32_t)(gk[i - g] & 3);
                    }
                }
                for (i = g + 1, w = g + 1; i < nn; i++)
                    if (ne[i].pred != ne[w - 1].pred || ne[i].kind != ne[w - 1].kind)
                        ne[w++] = ne[i];
                nn = w;
            }
            if (!y)
                break;
            if (y->node != gnode) {
                g = nn;
                gnode = y->node;
            }
            e = nn;
            st = rtopo__acc_scan(a, key, gb[y->buf], inv[j], (int32_t)r, &ne, &nn, &ncap, 1,
                                 &xc);
            /* latest first: reversed, the preds mostly rise */
            for (i = e, w = nn; i + 1 < w; i++, w--) {
                rtopo__dep_t t = ne[i];

                ne[i] = ne[w - 1];
                ne[w - 1] = t;
            }
            if (st == 1) {
                /* the first such pair in the order of the accesses (the
                 * one named whichever way the edges are made) */
                st = rtopo__acc_conflicts(a, key, n, xlo, xhi, klo, (int)r);
                goto out;
            }
            if (st)
                goto out;
        }
        /* SEND parts of the rank, in (step, node) order */
        for (j = pacc ? pcnt[r] + 1 : 0; pacc && j < pcnt[r + 1]; j++) {
            if ((st = rtopo__edges_room(&ne, &nn, &ncap, 1)))
                goto out;
            ne[nn++] = (rtopo__dep_t){ (int32_t)r, pacc[j - 1].node, pacc[j].node,
                                       RTOPO__DEP_PORT };
        }
        if (pacc && nn - r0 > 1) {
            /* the rank's PORT edges join its others: sorted again (in
             * the sort's room past the rank's edges) */
            if ((st = rtopo__edges_room(&ne, &nn, &ncap, nn - r0)))
                goto out;
            if ((uint64_t)s->nxfers + s->nkerns <= ((uint64_t)1 << 31)) {
                /* as keys, in that room (two of them per edge): the
                 * same order, half the bytes moved */
                uint64_t *key = (uint64_t *)(void *)(ne + nn), *kt = key + (nn - r0);

                for (i = r0; i < nn; i++)
                    key[i - r0] = (uint64_t)ne[i].succ << 33 | (uint64_t)ne[i].pred << 2 |
                                  ne[i].kind;
                rtopo__key_sort(key, nn - r0, kt);
                for (i = 0, w = r0; i < nn - r0; i++)
                    if (!i || key[i] != key[i - 1])
                        ne[w++] = (rtopo__dep_t){ (int32_t)r,
                                                  (uint32_t)(key[i] >> 2) & 0x7fffffffu,
                                                  (uint32_t)(key[i] >> 33),
                                                  (uint32_t)(key[i] & 3) };
            } else {
                rtopo__dep_sort(ne + r0, nn - r0, ne + nn);
                for (i = r0 + 1, w = r0 + 1; i < nn; i++)
                    if (rtopo__dep_cmp(&ne[w - 1], &ne[i]))
                        ne[w++] = ne[i];
            }
            nn = w;
        }
        if (sink && nn > r0) {
            if ((st = sink(ctx, ne + r0, nn - r0)))
                goto out;
            nn = r0;
        }
    }
    if (sink)
        goto out;
    free(acc);
    free(pacc);
    free(tmp);
    free(map);
    free(key);
    free(inv);
    acc = pacc = tmp = NULL;
    map = NULL;
    key = NULL;
    inv = NULL;
    /* with the edges already there: one edge per (rank, pred, succ, kind),
     * in that order.  Those are sorted runs (phases joined, edges added),
     * merged, or sorted when they are many. */
    if (n0) {
        for (i = 0; i < n0 && k <= RTOPO__RUNS_MAX; i = j) {
            for (j = i + 1; j < n0 && rtopo__dep_cmp(&s->deps[j - 1], &s->deps[j]) <= 0; j++)
                ;
            if (k < RTOPO__RUNS_MAX) {
                ra[k] = s->deps;
                rb[k] = i;
                re[k] = j;
            }
            k++;
        }
        if (k > RTOPO__RUNS_MAX) {
            qsort(s->deps, n0, sizeof(*s->deps), rtopo__dep_cmp);
            k = 1;
            ra[0] = s->deps;
            rb[0] = 0;
            re[0] = n0;
        }
    }
    if (!k) {
        /* the new edges alone (already in order) */
        free(s->deps);
        if (nn < ncap && nn) {
            rtopo__dep_t *q = realloc(ne, nn * sizeof(*q));

            ne = q ? q : ne;
            ncap = q ? nn : ncap;
        }
        s->deps = nn ? ne : NULL;
        s->deps_cap = nn ? (uint32_t)ncap : 0;
        s->ndeps = (uint32_t)nn;
        if (!nn)
            free(ne);
        ne = NULL;
        goto out;
    }
    if (n0 + nn > UINT32_MAX) {
        st = rtopo__error(RTOPO_ERR_NOMEM, "too many edges");
        goto out;
    }
    /* The first run (the earlier phases', the largest) is merged last, in
     * place: the other runs and the new edges merge into out, s->deps
     * grows to hold both, the first run moves to its end and the merge
     * fills it from the front, never past what it has still to read. */
    ra[k] = ne;
    rb[k] = 0;
    re[k] = nn;
    if (!(out = malloc((n0 - re[0] + nn + 1) * sizeof(*out)))) {
        st = rtopo__error(RTOPO_ERR_NOMEM, "%zu edges", n0 + nn);
        goto out;
    }
    i = rtopo__edges_merge(out, ra + 1, rb + 1, re + 1, k);
    free(ne);
    ne = NULL;
    j = re[0] - rb[0];              /* the first run: s->deps[0..j) */
    {
        rtopo__dep_t *q = realloc(s->deps, (i + j + 1) * sizeof(*q));

        if (!q) {
            st = rtopo__error(RTOPO_ERR_NOMEM, "%zu edges", i + j);
            goto out;
        }
        s->deps = q;
    }
    memmove(s->deps + i, s->deps, j * sizeof(*s->deps));
    ra[0] = s->deps;
    rb[0] = i;
    re[0] = i + j;
    ra[1] = out;
    rb[1] = 0;
    re[1] = i;
    w = rtopo__edges_merge(s->deps, ra, rb, re, 2);
    s->deps_cap = (uint32_t)(i + j + 1);
    s->ndeps = (uint32_t)w;
    if (w + w / 4 < i + j) {
        rtopo__dep_t *q = realloc(s->deps, (w + 1) * sizeof(*q));

        if (q) {
            s->deps = q;
            s->deps_cap = (uint32_t)(w + 1);
        }
    }
out:
    free(out);
    free(ne);
    free(map);
    free(acc);
    free(pacc);
    free(tmp);
    free(key);
    free(inv);
    free(num);
    free(pnum);
    free(cnt);
    free(pcnt);
    return st;
}

int rtopo__sched_deps_infer(rtopo__sched_t *s, unsigned flags)
{
    int st = rtopo__deps_infer_into(s, flags, 0, s->nxfers, s->nxfers, NULL, NULL);

    if (!st) {
        s->inferred = 1;
        s->deferred = 0;
    }
    return st;
}

int rtopo__sched_deps_each(const rtopo__sched_t *s, rtopo__dep_sink_fn *sink, void *ctx)
{
    if (!s || !sink)
        return rtopo__error(RTOPO_ERR_INVAL, "no schedule or no sink");
    /* s is only read: the sink takes the edges */
    return rtopo__deps_infer_into((rtopo__sched_t *)s, 0, 0, s->nxfers, s->nxfers, sink, ctx);
}

/* ---- one rank's share ------------------------------------------------- */

uint32_t rtopo__sched_xfind(const rtopo__sched_t *s, uint32_t id)
{
    uint32_t lo = 0, hi = s->nxfers;

    if (!s->xid)
        return id < s->nxfers ? id : UINT32_MAX;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (s->xid[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nxfers && s->xid[lo] == id ? lo : UINT32_MAX;
}

/* does transfer x leave, reach or pass rank r? */
static int rtopo__xfer_touches(const rtopo__sched_t *s, const rtopo__xfer_t *x, int r)
{
    uint32_t k;

    if (x->src == r || x->dst == r)
        return 1;
    for (k = 0; k < x->nhops; k++)
        if (s->hops[x->hop0 + k].to == r)
            return 1;
    return 0;
}

int rtopo__sched_own(rtopo__sched_t *s, int rank)
{
    uint32_t n = s->nxfers + s->nkerns, i, k, nx = 0, nh = 0, nk = 0, nd = 0;
    uint32_t olast = s->olast, *map = NULL, *xid = NULL, nxall = s->own ? s->nxall : s->nxfers;
    rtopo__xnode_t *xf = NULL;
    rtopo__hop_t *hp = NULL;
    int st = RTOPO_OK;

    if (rank < 0 || rank >= s->topo.p || (s->own && s->own != rank + 1))
        return rtopo__error(RTOPO_ERR_INVAL, "rank %d's share of a schedule %s", rank,
                            s->own ? "of another rank's share" : "of no such rank");
    /* a share holds its edges on the rank: a deferred graph's first */
    if (s->deferred && (st = rtopo__sched_deps_infer(s, 0)))
        return st;
    map = malloc(((size_t)n + 1) * sizeof(*map));
    if (!map)
        return rtopo__error(RTOPO_ERR_NOMEM, "the share of rank %d", rank);
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;

        map[i] = UINT32_MAX;
        if (rtopo__xfer_touches(s, x, rank)) {
            map[i] = nx++;
            nh += x->nhops;
        } else if (!x->nhops && x->step + 1 > olast) {
            olast = x->step + 1;
        }
    }
    xf = malloc(((size_t)nx + 1) * sizeof(*xf));
    hp = malloc(((size_t)nh + 1) * sizeof(*hp));
    xid = malloc(((size_t)nx + 1) * sizeof(*xid));
    if (!xf || !hp || !xid) {
        st = rtopo__error(RTOPO_ERR_NOMEM, "the share of rank %d", rank);
        goto out;
    }
    for (i = 0, nh = 0; i < s->nxfers; i++) {
        rtopo__xnode_t x = s->xfers[i];
        uint32_t xnh = rtopo__sched_xnhops(s, i);

        if (map[i] == UINT32_MAX)
            continue;
        xid[map[i]] = rtopo__sched_xid(s, i);
        for (k = 0; k < xnh; k++)
            hp[nh + k] = s->hops[x.hop0 + k];
        x.hop0 = xnh ? nh : 0;
        nh += xnh;
        xf[map[i]] = x;
    }
    for (i = 0; i < s->nkerns; i++) {
        const rtopo__knode_t *kk = &s->kerns[i];

        map[s->nxfers + i] = UINT32_MAX;
        if (kk->rank == rank) {
            map[s->nxfers + i] = nx + nk;
            s->kerns[nk++] = *kk;
        } else if (kk->step + 1 > olast) {
            olast = kk->step + 1;
        }
    }
    for (i = 0; i < s->ndeps; i++) {
        rtopo__dep_t d = s->deps[i];

        if (d.rank != rank)
            continue;
        if (map[d.pred] == UINT32_MAX || map[d.succ] == UINT32_MAX) {
            st = rtopo__error(RTOPO_ERR_INVAL, "edge %u on rank %d names a node that "
                              "does not touch it", i, rank);
            goto out;
        }
        d.pred = map[d.pred];
        d.succ = map[d.succ];
        s->deps[nd++] = d;
    }
    free(s->xfers);
    free(s->hops);
    free(s->xid);
    s->xfers = xf;
    s->hops = hp;
    s->xid = xid;
    xf = NULL;
    hp = NULL;
    xid = NULL;
    s->nxfers = nx;
    s->nhops = nh;
    s->nkerns = nk;
    s->ndeps = nd;
    /* give back what the others' kernels and edges took */
    if (!nk) {
        free(s->kerns);
        s->kerns = NULL;
    } else {
        rtopo__knode_t *kq = realloc(s->kerns, (size_t)nk * sizeof(*kq));

        s->kerns = kq ? kq : s->kerns;
    }
    if ((st = rtopo__sched_kshapes_trim(s)) || (st = rtopo__sched_xshapes_trim(s)))
        goto out;
    if (!nd) {
        free(s->deps);
        s->deps = NULL;
        s->deps_cap = 0;
    } else if (nd < s->deps_cap) {
        rtopo__dep_t *dq = realloc(s->deps, (size_t)nd * sizeof(*dq));

        if (dq) {
            s->deps = dq;
            s->deps_cap = nd;
        }
    }
    s->own = rank + 1;
    s->nxall = nxall;
    s->olast = olast;
out:
    free(map);
    free(xf);
    free(hp);
    free(xid);
    return st;
}

/* ---- phases ------------------------------------------------------------ */

/* the first and last step any node of s accesses its buffers in (*lo_p >
 * *hi_p: none) */
static void rtopo__sched_step_span(const rtopo__sched_t *s, uint32_t *lo_p, uint32_t *hi_p)
{
    uint32_t lo = UINT32_MAX, hi = 0, i, a, b;

    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;

        a = x->nhops ? s->hops[x->hop0].step : x->step;
        b = x->nhops ? s->hops[x->hop0 + x->nhops - 1].step : x->step;
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    for (i = 0; i < s->nkerns; i++) {
        lo = s->kerns[i].step < lo ? s->kerns[i].step : lo;
        hi = s->kerns[i].step > hi ? s->kerns[i].step : hi;
    }
    *lo_p = lo;
    *hi_p = hi;
}

/* grow *p (n entries of esz bytes) to n + more, or keep it and fail */
static int rtopo__grow_to(void **p, size_t n, size_t more, size_t esz)
{
    void *q;

    if (!more)
        return RTOPO_OK;
    if (!(q = realloc(*p, (n + more) * esz)))
        return rtopo__error(RTOPO_ERR_NOMEM, "joining phases");
    rtopo__sched_big(q, (n + more) * esz);
    *p = q;
    return RTOPO_OK;
}

/* *ap (an entries of esz bytes) followed by *bp's bn entries, with room
 * for one more, in *ap; *bp freed and NULL.  The longer of the two grows
 * and the other is copied into it (a short phase joined to a long one:
 * the long one's entries move within their own block, not into fresh
 * memory).  On failure both stay. */
static int rtopo__join_arrays(void **ap, size_t an, void **bp, size_t bn, size_t esz)
{
    void *q;

    if (bn <= an || !*bp) {
        if (rtopo__grow_to(ap, an, bn + 1, esz))
            return RTOPO_ERR_NOMEM;
        if (bn)
            memcpy((char *)*ap + an * esz, *bp, bn * esz);
    } else {
        if (!(q = realloc(*bp, (an + bn + 1) * esz)))
            return rtopo__error(RTOPO_ERR_NOMEM, "joining phases");
        rtopo__sched_big(q, (an + bn + 1) * esz);
        if (an) {
            memmove((char *)q + an * esz, q, bn * esz);
            memcpy(q, *ap, an * esz);
        }
        free(*ap);
        *ap = q;
        *bp = NULL;
        return RTOPO_OK;
    }
    free(*bp);
    *bp = NULL;
    return RTOPO_OK;
}

int rtopo__sched_concat(rtopo__sched_t *a, rtopo__sched_t *b, unsigned flags,
                        rtopo__sched_t **out_p)
{
    rtopo__sched_t *s = NULL;
    uint32_t ax, bx, ak, bk, i, shift = a->nsteps, alo, ahi, blo, bhi;
    int st, into;

    if (a->topo.kind != b->topo.kind || a->topo.p != b->topo.p ||
        a->topo.host != b->topo.host) {
        st = rtopo__error(RTOPO_ERR_INVAL, "phases over different topologies");
        goto out;
    }
    /* a share and a whole graph: the share of the whole */
    if (a->own != b->own &&
        (st = a->own ? rtopo__sched_own(b, a->own - 1) : rtopo__sched_own(a, b->own - 1)))
        goto out;
    ax = a->nxfers;
    bx = b->nxfers;
    ak = a->nkerns;
    bk = b->nkerns;
    if (ax > UINT32_MAX - bx || a->nhops > UINT32_MAX - b->nhops ||
        (uint64_t)ax + bx + ak + bk > UINT32_MAX ||
        (uint64_t)a->ndeps + b->ndeps > UINT32_MAX) {
        st = rtopo__error(RTOPO_ERR_INVAL, "phases too large to join");
        goto out;
    }
    /* Only the edges into b's nodes need inferring when both phases hold
     * their inferred edges and every access of b comes after every access
     * of a (b's accesses then scan back through b's, then a's, and a's
     * own edges stay what they were) */
    into = !flags && !a->own && !b->own && a->inferred && b->inferred;
    if (into) {
        rtopo__sched_step_span(a, &alo, &ahi);
        rtopo__sched_step_span(b, &blo, &bhi);
        into = alo > ahi || blo > bhi || ahi < blo + shift;
    }
    if (flags & RTOPO__CONCAT_BARE) {
        /* the edges go: the caller infers the whole graph's at once */
        free(a->deps);
        free(b->deps);
        a->deps = b->deps = NULL;
        a->ndeps = b->ndeps = a->deps_cap = b->deps_cap = 0;
        a->inferred = b->inferred = 0;
    }
    /* a becomes the whole: b's nodes after a's (node ids: a's transfers,
     * b's transfers, a's kernels, b's kernels), b's arrays freed as they
     * are taken */
    s = a;
    a = NULL;
    if (s->own) {
        uint32_t anx = s->nxall;

        if (anx > UINT32_MAX - b->nxall) {
            st = rtopo__error(RTOPO_ERR_INVAL, "phases too large to join");
            goto out;
        }
        if ((st = rtopo__grow_to((void **)&s->xid, ax, (size_t)bx + 1, sizeof(*s->xid))))
            goto out;
        for (i = 0; i < bx; i++)
            s->xid[ax + i] = anx + b->xid[i];
        s->nxall = anx + b->nxall;
        if (b->olast && b->olast + shift > s->olast)
            s->olast = b->olast + shift;
    }
    if ((st = rtopo__join_arrays((void **)&s->xfers, ax, (void **)&b->xfers, bx,
                                 sizeof(*s->xfers))))
        goto out;
    if (bx) {
        /* b's transfer shapes join s's table: smap[b's index] = s's */
        uint32_t *smap = malloc((size_t)b->xshapes->n * sizeof(*smap) + 1);

        if (!smap) {
            st = rtopo__error(RTOPO_ERR_NOMEM, "joining transfer shapes");
            goto out;
        }
        for (i = 0; i < b->xshapes->n; i++)
            if ((smap[i] = rtopo__xshapes_put(&s->xshapes, &b->xshapes->v[i])) == UINT32_MAX) {
                free(smap);
                st = rtopo__error(RTOPO_ERR_NOMEM, "joining transfer shapes");
                goto out;
            }
        for (i = 0; i < bx; i++) {
            rtopo__xnode_t *x = &s->xfers[ax + i];

            x->shape = smap[x->shape];
            x->hop0 += s->nhops;
            x->step += shift;
        }
        free(smap);
    }
    rtopo__xshapes_free(&b->xshapes);
    if ((st = rtopo__join_arrays((void **)&s->hops, s->nhops, (void **)&b->hops, b->nhops,
                                 sizeof(*s->hops))))
        goto out;
    for (i = 0; i < b->nhops; i++)
        s->hops[s->nhops + i].step += shift;
    s->nxfers = ax + bx;
    s->nhops += b->nhops;
    s->nsteps += b->nsteps;
    if ((st = rtopo__join_arrays((void **)&s->kerns, ak, (void **)&b->kerns, bk,
                                 sizeof(*s->kerns))))
        goto out;
    if (bk) {
        /* b's shapes join s's table: smap[b's index] = s's */
        uint32_t *smap = malloc((size_t)b->kshapes->n * sizeof(*smap) + 1);

        if (!smap) {
            st = rtopo__error(RTOPO_ERR_NOMEM, "joining kernel shapes");
            goto out;
        }
        for (i = 0; i < b->kshapes->n; i++)
            if ((smap[i] = rtopo__kshapes_put(&s->kshapes, &b->kshapes->v[i])) == UINT32_MAX) {
                free(smap);
                st = rtopo__error(RTOPO_ERR_NOMEM, "joining kernel shapes");
                goto out;
            }
        for (i = 0; i < bk; i++) {
            rtopo__knode_t *k = &s->kerns[ak + i];

            k->shape = smap[k->shape];
            k->step += shift;
        }
        free(smap);
    }
    s->nkerns = ak + bk;
    rtopo__kshapes_free(&b->kshapes);
    for (i = 0; i < s->ndeps; i++) {
        rtopo__dep_t *d = &s->deps[i];

        d->pred += d->pred >= ax ? bx : 0;
        d->succ += d->succ >= ax ? bx : 0;
    }
    if ((st = rtopo__grow_to((void **)&s->deps, s->ndeps, (size_t)b->ndeps + 1,
                             sizeof(*s->deps))))
        goto out;
    s->deps_cap = s->ndeps + b->ndeps + 1;
    for (i = 0; i < b->ndeps; i++) {
        rtopo__dep_t d = b->deps[i];

        d.pred += d.pred >= bx ? ax + ak : ax;
        d.succ += d.succ >= bx ? ax + ak : ax;
        s->deps[s->ndeps++] = d;
    }
    free(b->deps);
    b->deps = NULL;
    if (s->tmp_rank || b->tmp_rank) {
        uint64_t *t = malloc((size_t)s->topo.p * sizeof(*t));
        int r;

        if (!t) {
            st = rtopo__error(RTOPO_ERR_NOMEM, "TMP sizes");
            goto out;
        }
        for (r = 0; r < s->topo.p; r++) {
            uint64_t x = rtopo__sched_tmp(s, r), y = rtopo__sched_tmp(b, r);
            t[r] = x > y ? x : y;
        }
        st = rtopo__sched_set_tmp(s, t);
        free(t);
        if (st)
            goto out;
    } else {
        s->tmp_bytes = s->tmp_bytes > b->tmp_bytes ? s->tmp_bytes : b->tmp_bytes;
    }
    s->deferred = 0;
    if (flags & RTOPO__CONCAT_BARE) {
        s->inferred = 0;
    } else if (into) {
        if ((st = rtopo__deps_infer_into(s, 0, ax, ax + bx, ax + bx + ak, NULL, NULL)))
            goto out;
        s->inferred = 1;
    } else if ((st = rtopo__sched_deps_infer(s, flags))) {
        goto out;
    }
    *out_p = s;
    s = NULL;
out:
    rtopo__sched_free(s);
    rtopo__sched_free(a);
    rtopo__sched_free(b);
    return st;
}

/* ---- a host that is a cube node ---------------------------------------- */

int rtopo__sched_fold_host(rtopo__sched_t **s_p, int node)
{
    rtopo__sched_t *s = *s_p, *o = NULL;
    rtopo__tdesc_t td;
    uint64_t *tmp = NULL, hshift;
    uint32_t i, k, nh = 0, maxstep = 0;
    int host, p, st, used[2][RTOPO__BUF_COUNT] = { { 0 } };

    if (!s || !s->topo.host)
        return rtopo__error(RTOPO_ERR_INVAL, "fold: the schedule has no host endpoint");
    if (s->own)
        return rtopo__error(RTOPO_ERR_INVAL, "fold: a rank's share (fold the whole)");
    host = s->topo.p - 1;
    p = host;
    if (node < 0 || node >= p)
        return rtopo__error(RTOPO_ERR_INVAL, "fold: node %d out of 0..%d", node, p - 1);
    /* the two roles share the rank's buffers: only TMP may be used by both */
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;

        if (x->src == host || x->src == node)
            used[x->src == host][x->src_buf] = 1;
        if (x->dst == host || x->dst == node)
            used[x->dst == host][x->dst_buf] = 1;
    }
    for (i = 0; i < s->nkerns; i++) {
        const rtopo__kern_t kv = rtopo__sched_kern(s, i), *kk = &kv;

        if (kk->rank == host || kk->rank == node) {
            used[kk->rank == host][kk->src_buf] = 1;
            used[kk->rank == host][kk->dst_buf] = 1;
        }
    }
    for (k = 0; k < RTOPO__BUF_TMP; k++)
        if (used[0][k] && used[1][k])
            return rtopo__error(RTOPO_ERR_INVAL, "fold: host and node %d both use %s", node,
                                k == RTOPO__BUF_SEND ? "SEND" : "RECV");
    td = s->topo;
    td.host = 0;
    td.p = p;
    if ((st = rtopo__sched_alloc(&td, s->nxfers, s->nhops, &o)))
        return st;
    o->algo = s->algo;
    /* the host's TMP follows the node's */
    hshift = rtopo__sched_tmp(s, node);
    tmp = malloc((size_t)p * sizeof(*tmp));
    if (!tmp) {
        st = rtopo__error(RTOPO_ERR_NOMEM, "TMP sizes");
        goto out;
    }
    for (k = 0; k < (uint32_t)p; k++)
        tmp[k] = rtopo__sched_tmp(s, (int)k);
    tmp[node] = hshift + rtopo__sched_tmp(s, host);
    for (i = 0; i < s->nxfers; i++) {
        rtopo__xfer_t x = rtopo__sched_xfer(s, i);

        if (x.src == host) {
            x.src = node;
            x.src_off += x.src_buf == RTOPO__BUF_TMP ? hshift : 0;
        }
        if (x.dst == host) {
            x.dst = node;
            x.dst_off += x.dst_buf == RTOPO__BUF_TMP ? hshift : 0;
        }
        if (x.nhops && x.src == x.dst) {
            /* host <-> node: the hop becomes a copy in the hop's step */
            if (x.nhops != 1) {
                st = rtopo__error(RTOPO_ERR_INVAL, "fold: transfer %u routes through "
                                  "the host", i);
                goto out;
            }
            x.step = s->hops[x.hop0].step;
            x.nhops = 0;
            x.hop0 = 0;
        } else if (x.nhops) {
            uint32_t h0 = nh;

            for (k = 0; k < x.nhops; k++) {
                rtopo__hop_t h = s->hops[x.hop0 + k];

                if (h.to == host) {
                    st = rtopo__error(RTOPO_ERR_INVAL, "fold: transfer %u routes "
                                      "through the host", i);
                    goto out;
                }
                if (h.link == RTOPO__LINK_HOST)
                    h.link = RTOPO__LINK_DIRECT;   /* the node's own connection */
                if (h.step > maxstep)
                    maxstep = h.step;
                o->hops[nh++] = h;
            }
            x.hop0 = h0;
        }
        if ((st = rtopo__sched_xset(o, i, &x)))
            goto out;
    }
    o->nhops = nh;
    o->nsteps = nh ? maxstep + 1 : 0;
    if (s->nkerns) {
        if ((st = rtopo__sched_add_kerns(o, s->nkerns, NULL)))
            goto out;
        for (i = 0; i < s->nkerns; i++) {
            rtopo__kern_t kk = rtopo__sched_kern(s, i);

            if (kk.rank == host) {
                kk.rank = node;
                kk.src_off += kk.src_buf == RTOPO__BUF_TMP ? hshift : 0;
                kk.dst_off += kk.dst_buf == RTOPO__BUF_TMP ? hshift : 0;
            }
            if ((st = rtopo__sched_kset(o, i, &kk)))
                goto out;
        }
    }
    if ((st = rtopo__sched_set_tmp(o, tmp)) ||
        (st = rtopo__sched_deps_infer(o, RTOPO__DEPS_PORT)))
        goto out;
    rtopo__sched_free(s);
    *s_p = o;
    o = NULL;
out:
    free(tmp);
    rtopo__sched_free(o);
    return st;
}
