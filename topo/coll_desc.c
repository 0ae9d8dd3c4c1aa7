/*
 * coll_desc.c - the collectives as units: one descriptor per collective
 * (rtopo_sched.h, rtopo__coll_desc_t) with the names of its arguments in
 * messages, its buffer sizes, its argument checks, its schedule builder
 * (one of the coll_*.c families) and its serial reference (coll_ref.c);
 * and the entries that read it: rtopo__sched_coll, rtopo__coll_ref and
 * rtopo__coll_ref_got, which check what every collective shares and call
 * the op's own.  Code that differs between collectives reads this table
 * instead of switching on the op; adding a collective adds an op and its
 * name to RTOPO__COLL_OPS and one entry here.
 *
 * The top of the collectives' files (topo/README.md): it points down to
 * the builders and the references, and nothing below calls it.
 */
#include "config.h"
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"
#include "coll_int.h"

/* ---- the checks of each op's own arguments (after the common ones of
 * rtopo__sched_coll: host, op, element size and operator, algorithm) ---- */

static int rtopo__bcast_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c)
{
    if (c->root < 0 || c->root >= t->p)
        return rtopo__error(RTOPO_ERR_INVAL, "bcast: root %d is not a rank of the "
                            "topology (0..%d)", c->root, t->p - 1);
    return RTOPO_OK;
}

static int rtopo__window_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c)
{
    int s;

    if (t->kind != RTOPO__TOPO_OTIS_MESH)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "window_bcast needs an OTIS-mesh, "
                            "not a %s", rtopo__topo_name(t->kind));
    for (s = 1; s * s < t->n; s++)
        ;
    if (c->root < 0 || c->root >= t->n)
        return rtopo__error(RTOPO_ERR_INVAL, "window_bcast: group %d is not one of "
                            "0..%d", c->root, t->n - 1);
    if (c->w < 1 || s % c->w)
        return rtopo__error(RTOPO_ERR_INVAL, "window_bcast: w=%d does not divide the "
                            "group side %d", c->w, s);
    return RTOPO_OK;
}

static int rtopo__bpc_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c)
{
    int s, E;

    if (c->bpc_bits < 0 || c->bpc_bits > 30 || (1 << c->bpc_bits) != t->p)
        return rtopo__error(RTOPO_ERR_INVAL, "bpc: a vector of %d bits on %d ranks (a "
                            "BPC permutation needs 2^k ranks and k entries)",
                            c->bpc_bits, t->p);
    for (s = 0, E = 0; s < c->bpc_bits; s++) {
        if (c->bpc_to[s] < 0 || c->bpc_to[s] >= c->bpc_bits || (E >> c->bpc_to[s]) & 1)
            return rtopo__error(RTOPO_ERR_INVAL, "bpc: the destination bits are not a "
                                "permutation of 0..%d", c->bpc_bits - 1);
        E |= 1 << c->bpc_to[s];
    }
    return RTOPO_OK;
}

/* a line operation's dimension and (blocks 1: 1 <= M <= E; 2: M divides
 * E) its M */
static int rtopo__line_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c, int blocks)
{
    const char *name = rtopo__coll_name(c->op);
    int E;

    if (c->dim < 0 || c->dim >= rtopo__cart_ndims(t))
        return rtopo__error(RTOPO_ERR_INVAL, "%s: dimension %d is not one of 0..%d of the "
                            "%s", name, c->dim, rtopo__cart_ndims(t) - 1,
                            rtopo__topo_name(t->kind));
    E = rtopo__cart_extent(t, c->dim);
    if (!blocks)
        return RTOPO_OK;
    if (c->mm < 1 || c->mm > E || (blocks == 2 && E % c->mm))
        return rtopo__error(RTOPO_ERR_INVAL, "%s: m=%d %s extent %d of dimension %d", name,
                            c->mm, blocks == 2 ? "does not divide the" :
                            "is not within 1..the", E, c->dim);
    return RTOPO_OK;
}

static int rtopo__fill_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c)
{
    return rtopo__line_check(t, c, 0);
}

static int rtopo__blocks_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c)
{
    return rtopo__line_check(t, c, 1);
}

static int rtopo__tiles_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c)
{
    return rtopo__line_check(t, c, 2);
}

/* the routings with a record (not select_rank) */
static int rtopo__route_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c)
{
    const char *name = rtopo__coll_name(c->op);

    if (t->kind != RTOPO__TOPO_OTIS_MESH && t->kind != RTOPO__TOPO_OTIS_HYPERCUBE)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "%s runs on the OTIS-mesh and the "
                            "OTIS-hypercube only, not on a %s", name,
                            rtopo__topo_name(t->kind));
    if (c->count != 1 || c->esize < 1 || c->esize > ((uint64_t)1 << 30))
        return rtopo__error(RTOPO_ERR_INVAL, "%s: records of %zu bytes (1 byte to "
                            "1 GiB)", name, c->esize);
    if (c->algo == RTOPO_COLL_GENERIC)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "%s has no generic algorithm: it "
                            "is the OTIS topologies' own", name);
    return RTOPO_OK;
}

/* ---- the table ---------------------------------------------------------- */

#define RTOPO__ROUTING(op_, in_, algos_)                                      \
    [op_] = { .flags = RTOPO__CF_ROUTE, .key = RTOPO__CK_RECORD,               \
              .in_arg = in_, .algos = algos_, .check = rtopo__route_check,      \
              .build = rtopo__sched_route, .ref = rtopo__ref_routing }

static const rtopo__coll_desc_t rtopo__coll_table[RTOPO__COLL_NOPS] = {
    [RTOPO__COLL_BCAST] = {
        .flags = RTOPO__CF_RECV_IN, .root_arg = "root",
        .algos = "topo (the OTIS broadcast), generic (binomial tree)",
        .check = rtopo__bcast_check, .build = rtopo__bcast_build,
        .ref_check = rtopo__ref_bcast_check, .ref = rtopo__ref_bcast },
    [RTOPO__COLL_WINDOW_BCAST] = {
        .flags = RTOPO__CF_RECV_IN, .root_arg = "group",
        .algos = "topo (OTIS-mesh only)",
        .check = rtopo__window_check, .build = rtopo__window_build,
        .ref_check = rtopo__ref_window_check, .ref = rtopo__ref_window },
    [RTOPO__COLL_SCAN] = {
        .flags = RTOPO__CF_REDUCE,
        .algos = "topo (the OTIS prefix sum), generic (recursive doubling, chain)",
        .build = rtopo__scan_build,
        .ref = rtopo__ref_scan },
    [RTOPO__COLL_ALLREDUCE] = {
        .flags = RTOPO__CF_REDUCE,
        .algos = "topo (the OTIS data sum), generic (recursive doubling, "
                 "reduce-scatter + allgather)",
        .build = rtopo__allreduce_build,
        .ref = rtopo__ref_allreduce },
    [RTOPO__COLL_SHIFT_FILL] = {
        .flags = RTOPO__CF_BYTES | RTOPO__CF_LINE,
        .algos = "topo", .check = rtopo__fill_check, .build = rtopo__line_build,
        .ref_check = rtopo__ref_fill_check, .ref = rtopo__ref_shift_fill },
    [RTOPO__COLL_ACCUMULATE] = {
        .flags = RTOPO__CF_BYTES | RTOPO__CF_LINE | RTOPO__CF_RECV_MM,
        .algos = "topo", .check = rtopo__blocks_check, .build = rtopo__line_build,
        .ref_check = rtopo__ref_blocks_check, .ref = rtopo__ref_accumulate },
    [RTOPO__COLL_ADJACENT_SUM] = {
        .flags = RTOPO__CF_REDUCE | RTOPO__CF_LINE,
        .algos = "topo", .check = rtopo__blocks_check, .build = rtopo__line_build,
        .ref_check = rtopo__ref_blocks_check, .ref = rtopo__ref_adjacent_sum },
    [RTOPO__COLL_CONSEC_SUM] = {
        .flags = RTOPO__CF_REDUCE | RTOPO__CF_LINE | RTOPO__CF_SEND_MM,
        .algos = "topo", .check = rtopo__tiles_check, .build = rtopo__line_build,
        .ref_check = rtopo__ref_tiles_check, .ref = rtopo__ref_consec_sum },
    [RTOPO__COLL_SELECT_RANK] = {
        .flags = RTOPO__CF_ROUTE,
        .send_fixed = sizeof(int32_t), .recv_fixed = sizeof(int64_t),
        .algos = "the topology's prefix sum (as scan)",
        .build = rtopo__sched_route, .ref = rtopo__ref_routing },
    RTOPO__ROUTING(RTOPO__COLL_CONCENTRATE, "selected", "topo"),
    RTOPO__ROUTING(RTOPO__COLL_DISTRIBUTE, "dest", "topo"),
    RTOPO__ROUTING(RTOPO__COLL_GENERALIZE, "dest",
                   "topo (one routing), auto (two routings that check the order)"),
    RTOPO__ROUTING(RTOPO__COLL_RANDOM_WRITE, "dest", "topo"),
    RTOPO__ROUTING(RTOPO__COLL_RANDOM_READ, "src", "topo"),
    [RTOPO__COLL_BPC] = {
        .key = RTOPO__CK_BPC, .algos = "topo",
        .check = rtopo__bpc_check, .build = rtopo__bpc_build,
        .ref_check = rtopo__ref_bpc_check, .ref = rtopo__ref_bpc },
    [RTOPO__COLL_SORT] = {
        .key = RTOPO__CK_SORT,
        .algos = "topo (Leighton's column sort), generic (merge-split)",
        .check = rtopo__sort_check, .build = rtopo__sort_build,
        .ref_check = rtopo__ref_sort_check, .ref = rtopo__ref_sorted },
};

const rtopo__coll_desc_t *rtopo__coll_desc(int op)
{
    return op > 0 && op < RTOPO__COLL_NOPS && rtopo__coll_table[op].build ?
           &rtopo__coll_table[op] : NULL;
}

int rtopo__coll_is_route(int op)
{
    const rtopo__coll_desc_t *d = rtopo__coll_desc(op);

    return d && (d->flags & RTOPO__CF_ROUTE);
}

const char *rtopo__coll_algo_name(int algo)
{
    return algo == RTOPO_COLL_AUTO ? "auto" : algo == RTOPO_COLL_TOPO ? "topo" :
           algo == RTOPO_COLL_GENERIC ? "generic" : "?";
}

int rtopo__coll_algo_parse(const char *s)
{
    if (!s)
        return -1;
    if (!strcmp(s, "auto"))
        return RTOPO_COLL_AUTO;
    if (!strcmp(s, "topo") || !strcmp(s, "otis"))
        return RTOPO_COLL_TOPO;
    if (!strcmp(s, "generic"))
        return RTOPO_COLL_GENERIC;
    return -1;
}

uint64_t rtopo__coll_send_bytes(const rtopo__coll_t *c)
{
    const rtopo__coll_desc_t *d = rtopo__coll_desc(c->op);
    uint64_t m = c->count * c->esize;

    if (!d)
        return m;
    if (d->flags & RTOPO__CF_RECV_IN)
        return 0;
    if (d->send_fixed)
        return d->send_fixed;
    return d->flags & RTOPO__CF_SEND_MM ? m * (uint64_t)(c->mm > 0 ? c->mm : 0) : m;
}

uint64_t rtopo__coll_recv_bytes(const rtopo__coll_t *c)
{
    const rtopo__coll_desc_t *d = rtopo__coll_desc(c->op);
    uint64_t m = c->count * c->esize;

    if (!d)
        return m;
    if (d->recv_fixed)
        return d->recv_fixed;
    return d->flags & RTOPO__CF_RECV_MM ? m * (uint64_t)(c->mm > 0 ? c->mm : 0) : m;
}

/* ---- the entries: the checks all collectives share, then the op's ---- */

static int rtopo__coll_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c)
{
    const rtopo__coll_desc_t *d = rtopo__coll_desc(c->op);
    const char *name = rtopo__coll_name(c->op);

    if (t->host)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "%s: not on a topology with a host "
                            "outside the cube", name);
    if (!d)
        return rtopo__error(RTOPO_ERR_INVAL, "collective %d is unknown", c->op);
    if (d->flags & RTOPO__CF_ROUTE) {
        if (c->algo < RTOPO_COLL_AUTO || c->algo > RTOPO_COLL_GENERIC)
            return rtopo__error(RTOPO_ERR_INVAL, "%s: algorithm %d is unknown", name,
                                c->algo);
        return d->check ? d->check(t, c) : RTOPO_OK;
    }
    if (!c->esize || ((d->flags & RTOPO__CF_REDUCE) &&
                      (rtopo__dtype_size(c->dtype) != c->esize ||
                       c->rop < RTOPO_SUM || c->rop > RTOPO_MAX)))
        return rtopo__error(RTOPO_ERR_INVAL, "%s: datatype %d, operator %d, element size "
                            "%zu", name, c->dtype, c->rop, c->esize);
    if (c->algo < RTOPO_COLL_AUTO || c->algo > RTOPO_COLL_GENERIC)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: algorithm %d is unknown", name, c->algo);
    return d->check ? d->check(t, c) : RTOPO_OK;
}

int rtopo__sched_coll(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                      const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    int st;

    if (!t || !c || !s_p)
        return rtopo__error(RTOPO_ERR_INVAL, "no topology, collective or output");
    if ((st = rtopo__coll_check(t, c)))
        return st;
    if (c->own < 0 || c->own > t->p)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: the share of rank %d, not one of 0..%d",
                            rtopo__coll_name(c->op), c->own - 1, t->p - 1);
    if ((st = rtopo__coll_desc(c->op)->build(t, c, model, s_p)))
        return st;
    /* a share: what a family added for every rank goes too (and a family
     * that built the whole graph gives its share here) */
    if (c->own && (st = rtopo__sched_own(*s_p, c->own - 1))) {
        rtopo__sched_free(*s_p);
        *s_p = NULL;
    }
    return st;
}

/* ---- the serial reference (coll_ref.c) ---- */

/* The arguments, as rtopo__sched_coll takes them (a host endpoint first,
 * then the operation, its algorithm and its element type, then the
 * operation's own), so that both refuse a case with the same code;
 * *m_p: bytes per register, *E_p: the extent of the line operations'
 * dimension (or 0). */
static int rtopo__ref_args(const rtopo__tdesc_t *t, const rtopo__coll_t *c, uint64_t *m_p,
                           int *E_p)
{
    const rtopo__coll_desc_t *d;
    const char *name;
    int nd, E = 0, st;
    size_t es;

    if (!t || !c)
        return rtopo__error(RTOPO_ERR_INVAL, "collective reference: no %s",
                            t ? "operation" : "topology");
    name = rtopo__coll_name(c->op);
    if (t->host)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "%s: the %s has a host endpoint, "
                            "collectives run on the nodes alone", name,
                            rtopo__topo_name(t->kind));
    if (!(d = rtopo__coll_desc(c->op)))
        return rtopo__error(RTOPO_ERR_INVAL, "collective operation %d unknown", c->op);
    /* the reference has no algorithm, but takes what the generator takes */
    if (c->algo < RTOPO_COLL_AUTO || c->algo > RTOPO_COLL_GENERIC)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: algorithm %d unknown", name, c->algo);
    if ((nd = rtopo__cart_ndims(t)) < 0)
        return nd;
    if (d->flags & RTOPO__CF_ROUTE) {
        *E_p = 0;
        *m_p = 0;
        if (d->send_fixed)      /* fixed sizes (select_rank): count, esize unused */
            return RTOPO_OK;
        if (t->kind != RTOPO__TOPO_OTIS_MESH && t->kind != RTOPO__TOPO_OTIS_HYPERCUBE)
            return rtopo__error(RTOPO_ERR_UNSUPPORTED, "%s: only on an OTIS-mesh or an "
                                "OTIS-hypercube, not a %s", name,
                                rtopo__topo_name(t->kind));
        if (c->count != 1 || c->esize < 1 || c->esize > ((size_t)1 << 30))
            return rtopo__error(RTOPO_ERR_INVAL, "%s: %llu records of %zu bytes (one "
                                "record of 1 byte to 1 GiB)", name,
                                (unsigned long long)c->count, c->esize);
        if (c->algo == RTOPO_COLL_GENERIC)
            return rtopo__error(RTOPO_ERR_UNSUPPORTED, "%s: no generic algorithm",
                                name);
        *m_p = c->esize;
        return RTOPO_OK;
    }
    if (!c->esize)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: element size 0", name);
    if (d->flags & RTOPO__CF_REDUCE) {
        if (!(es = rtopo__dtype_size(c->dtype)))
            return rtopo__error(RTOPO_ERR_INVAL, "%s: datatype %d unknown", name, c->dtype);
        if (es != c->esize)
            return rtopo__error(RTOPO_ERR_INVAL, "%s: element size %zu is not the "
                                "datatype's %zu", name, c->esize, es);
        if (c->rop < RTOPO_SUM || c->rop > RTOPO_MAX)
            return rtopo__error(RTOPO_ERR_INVAL, "%s: operator %d unknown", name, c->rop);
    }
    if (c->count > UINT64_MAX / c->esize)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: %llu elements of %zu bytes overflow",
                            name, (unsigned long long)c->count, c->esize);
    if (d->ref_check && (st = d->ref_check(t, c, &E)))
        return st;
    *m_p = c->count * c->esize;
    *E_p = E;
    return RTOPO_OK;
}

int rtopo__coll_ref_got(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                        uint8_t *const *const *bufs, int32_t *got)
{
    uint64_t m = 0;
    int st, E = 0;

    if ((st = rtopo__ref_args(t, c, &m, &E)))
        return st;
    if (!(rtopo__coll_desc(c->op)->flags & RTOPO__CF_ROUTE) ||
        !rtopo__coll_desc(c->op)->in_arg)
        return rtopo__error(RTOPO_ERR_INVAL, "%s reference: the operation has no got",
                            rtopo__coll_name(c->op));
    if (!got)
        return rtopo__error(RTOPO_ERR_INVAL, "%s reference: no output",
                            rtopo__coll_name(c->op));
    return rtopo__ref_got(t, c, bufs, got);
}

int rtopo__coll_ref(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                    uint8_t *const *const *bufs, uint8_t *const *out)
{
    const rtopo__coll_desc_t *d;
    int p, r, E = 0, st;
    int need_send, need_recv;
    uint64_t m = 0, sb;

    if ((st = rtopo__ref_args(t, c, &m, &E)))
        return st;
    p = t->p;
    d = rtopo__coll_desc(c->op);
    if (d->flags & RTOPO__CF_ROUTE)
        return d->ref(t, c, bufs, out, 0, 0);
    if (!m)
        return RTOPO_OK;
    sb = rtopo__coll_send_bytes(c);
    need_send = sb > 0;
    need_recv = (d->flags & RTOPO__CF_RECV_IN) != 0;
    if (!bufs || !out)
        return rtopo__error(RTOPO_ERR_INVAL, "%s reference: no %s", rtopo__coll_name(c->op),
                            bufs ? "output" : "buffers");
    for (r = 0; r < p; r++)
        if (!out[r] || !bufs[r] || (need_send && !bufs[r][RTOPO__BUF_SEND]) ||
            (need_recv && !bufs[r][RTOPO__BUF_RECV]))
            return rtopo__error(RTOPO_ERR_INVAL, "%s reference: rank %d has no %s buffer",
                                rtopo__coll_name(c->op), r,
                                !out[r] ? "output" : !bufs[r] ? "SEND or RECV" :
                                need_send && !bufs[r][RTOPO__BUF_SEND] ? "SEND" : "RECV");
    return d->ref(t, c, bufs, out, m, E);
}
