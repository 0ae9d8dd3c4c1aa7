/*
 * coll_desc.c - the collectives as units: one descriptor per collective
 * (rtopo_sched.h, rtopo__coll_desc_t) with its name, the names of its
 * arguments in messages, its buffer sizes, its argument checks, its
 * schedule builder (coll_build.c and the coll_*.c families) and its
 * serial reference (coll_ref.c).  Code that differs between collectives
 * reads this table instead of switching on the op; adding a collective
 * adds an op to enum rtopo__coll_op and one entry here.
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

static int rtopo__sort_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c)
{
    if (c->dtype < RTOPO_INT32 || c->dtype > RTOPO_DOUBLE ||
        c->esize < rtopo__dtype_size(c->dtype) || c->esize > ((uint64_t)1 << 30))
        return rtopo__error(RTOPO_ERR_INVAL, "sort: records of %zu bytes keyed by "
                            "datatype %d (the key, one of RTOPO_INT32, RTOPO_INT64, "
                            "RTOPO_FLOAT, RTOPO_DOUBLE, at the start of each record)",
                            c->esize, c->dtype);
    if (c->count > ((uint64_t)1 << 40) || (c->mm > 0 && (uint64_t)c->mm < c->count))
        return rtopo__error(RTOPO_ERR_INVAL, "sort: %llu records per rank",
                            (unsigned long long)c->count);
    return RTOPO_OK;
}

static int rtopo__bpc_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c)
{
    int s, E;

    if ((1 << c->bpc_bits) != t->p || c->bpc_bits > 30)
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

/* ---- builders: the candidates of the broadcast, allreduce and scan ---- */

static int rtopo__bcast_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                              const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    return rtopo__coll_build_cand(t, c, model, 0, s_p);
}

static int rtopo__allreduce_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                                  const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    return rtopo__coll_build_cand(t, c, model, RTOPO__COLL_RSAG, s_p);
}

static int rtopo__scan_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                             const rtopo__model_t *model, rtopo__sched_t **s_p)
{
    return rtopo__coll_build_cand(t, c, model, RTOPO__COLL_CHAIN, s_p);
}

/* ---- the table ---------------------------------------------------------- */

#define RTOPO__ROUTING(op_, name_, in_, algos_)                               \
    [op_] = { .name = name_, .flags = RTOPO__CF_ROUTE, .key = RTOPO__CK_RECORD,  \
              .in_arg = in_, .algos = algos_, .check = rtopo__route_check,      \
              .build = rtopo__sched_route, .ref = rtopo__ref_routing }

static const rtopo__coll_desc_t rtopo__coll_table[RTOPO__COLL_NOPS] = {
    [RTOPO__COLL_BCAST] = {
        .name = "bcast", .flags = RTOPO__CF_RECV_IN, .root_arg = "root",
        .algos = "topo (the OTIS broadcast), generic (binomial tree)",
        .check = rtopo__bcast_check, .build = rtopo__bcast_build,
        .prog = rtopo__bcast_prog,
        .ref_check = rtopo__ref_bcast_check, .ref = rtopo__ref_bcast },
    [RTOPO__COLL_WINDOW_BCAST] = {
        .name = "window_bcast", .flags = RTOPO__CF_RECV_IN, .root_arg = "group",
        .algos = "topo (OTIS-mesh only)",
        .check = rtopo__window_check, .build = rtopo__bcast_build,
        .prog = rtopo__window_prog,
        .ref_check = rtopo__ref_window_check, .ref = rtopo__ref_window },
    [RTOPO__COLL_SCAN] = {
        .name = "scan", .flags = RTOPO__CF_REDUCE,
        .algos = "topo (the OTIS prefix sum), generic (recursive doubling, chain)",
        .build = rtopo__scan_build, .prog = rtopo__scan_prog,
        .ref = rtopo__ref_scan },
    [RTOPO__COLL_ALLREDUCE] = {
        .name = "allreduce", .flags = RTOPO__CF_REDUCE,
        .algos = "topo (the OTIS data sum), generic (recursive doubling, "
                 "reduce-scatter + allgather)",
        .build = rtopo__allreduce_build, .prog = rtopo__allreduce_prog,
        .ref = rtopo__ref_allreduce },
    [RTOPO__COLL_SHIFT_FILL] = {
        .name = "shift_fill", .flags = RTOPO__CF_BYTES | RTOPO__CF_LINE,
        .algos = "topo", .check = rtopo__fill_check, .build = rtopo__coll_build_one,
        .prog = rtopo__line_prog,
        .ref_check = rtopo__ref_fill_check, .ref = rtopo__ref_shift_fill },
    [RTOPO__COLL_ACCUMULATE] = {
        .name = "accumulate",
        .flags = RTOPO__CF_BYTES | RTOPO__CF_LINE | RTOPO__CF_RECV_MM,
        .algos = "topo", .check = rtopo__blocks_check, .build = rtopo__coll_build_one,
        .prog = rtopo__line_prog,
        .ref_check = rtopo__ref_blocks_check, .ref = rtopo__ref_accumulate },
    [RTOPO__COLL_ADJACENT_SUM] = {
        .name = "adjacent_sum", .flags = RTOPO__CF_REDUCE | RTOPO__CF_LINE,
        .algos = "topo", .check = rtopo__blocks_check, .build = rtopo__coll_build_one,
        .prog = rtopo__line_prog,
        .ref_check = rtopo__ref_blocks_check, .ref = rtopo__ref_adjacent_sum },
    [RTOPO__COLL_CONSEC_SUM] = {
        .name = "consecutive_sum",
        .flags = RTOPO__CF_REDUCE | RTOPO__CF_LINE | RTOPO__CF_SEND_MM,
        .algos = "topo", .check = rtopo__tiles_check, .build = rtopo__coll_build_one,
        .prog = rtopo__line_prog,
        .ref_check = rtopo__ref_tiles_check, .ref = rtopo__ref_consec_sum },
    [RTOPO__COLL_SELECT_RANK] = {
        .name = "select_rank", .flags = RTOPO__CF_ROUTE,
        .send_fixed = sizeof(int32_t), .recv_fixed = sizeof(int64_t),
        .algos = "the topology's prefix sum (as scan)",
        .build = rtopo__sched_route, .ref = rtopo__ref_routing },
    RTOPO__ROUTING(RTOPO__COLL_CONCENTRATE, "concentrate", "selected", "topo"),
    RTOPO__ROUTING(RTOPO__COLL_DISTRIBUTE, "distribute", "dest", "topo"),
    RTOPO__ROUTING(RTOPO__COLL_GENERALIZE, "generalize", "dest",
                   "topo (one routing), auto (two routings that check the order)"),
    RTOPO__ROUTING(RTOPO__COLL_RANDOM_WRITE, "random_write", "dest", "topo"),
    RTOPO__ROUTING(RTOPO__COLL_RANDOM_READ, "random_read", "src", "topo"),
    [RTOPO__COLL_BPC] = {
        .name = "bpc", .key = RTOPO__CK_BPC, .algos = "topo",
        .check = rtopo__bpc_check, .build = rtopo__coll_build_one,
        .prog = rtopo__bpc_prog,
        .ref_check = rtopo__ref_bpc_check, .ref = rtopo__ref_bpc },
    [RTOPO__COLL_SORT] = {
        .name = "sort", .flags = RTOPO__CF_WHOLE, .key = RTOPO__CK_SORT,
        .algos = "topo (Leighton's column sort), generic (merge-split)",
        .check = rtopo__sort_check, .build = rtopo__sort_build,
        .prog = rtopo__sort_coll_prog,
        .ref_check = rtopo__ref_sort_check, .ref = rtopo__ref_sorted },
};

const rtopo__coll_desc_t *rtopo__coll_desc(int op)
{
    return op > 0 && op < RTOPO__COLL_NOPS && rtopo__coll_table[op].name ?
           &rtopo__coll_table[op] : NULL;
}

int rtopo__coll_parse(const char *name)
{
    int op;

    for (op = 1; name && op < RTOPO__COLL_NOPS; op++)
        if (rtopo__coll_table[op].name && !strcmp(rtopo__coll_table[op].name, name))
            return op;
    return -1;
}

const char *rtopo__coll_name(int op)
{
    const rtopo__coll_desc_t *d = rtopo__coll_desc(op);

    return d ? d->name : "?";
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
