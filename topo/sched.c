/*
 * sched.c - schedule allocation and validation, algorithm names, the
 * default cost model.
 *
 * Routing rule: none chosen here; validation only checks that every hop
 * follows an overlay edge of its link class (topo.c) and that a route
 * reaches its destination with strictly increasing lock-step numbers.
 *
 * Cost formula (defaults, SPEC section 4): every link class costs
 * ts + m*tw per transfer of m bytes with ts = 5 us and tw = 1 ns/B
 * (1 GB/s); one extra hop of a cut-through route costs th = ts + c*tw with
 * c = min(chunk, m), chunk = 256 KiB.  A copy inside a rank (LINK_LOCAL)
 * is free in the model; a kernel costs 0.25 ns per byte (4 GB/s).  Each
 * rank has one port (injects one transfer and absorbs one at a time), as
 * the source documents assume.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

static const char *const rtopo__algo_names[] = {
    [RTOPO_SHIFT_AUTO] = "auto",
    [RTOPO_SHIFT_RING] = "ring",
    [RTOPO_SHIFT_MESH] = "mesh",
    [RTOPO_SHIFT_HYPERCUBE] = "hypercube",
    [RTOPO_SHIFT_ECUBE] = "ecube",
    [RTOPO_SHIFT_DIRECT] = "direct",
};

#define RTOPO__NALGOS ((int)(sizeof(rtopo__algo_names) / sizeof(rtopo__algo_names[0])))

const char *rtopo__shift_algo_name(int algo)
{
    if (algo < 0 || algo >= RTOPO__NALGOS)
        return "unknown";
    return rtopo__algo_names[algo];
}

int rtopo__shift_algo_parse(const char *s)
{
    int i;

    if (!s)
        return -1;
    for (i = 0; i < RTOPO__NALGOS; i++)
        if (!strcasecmp(s, rtopo__algo_names[i]))
            return i;
    return -1;
}

static const char *const rtopo__link_names[RTOPO__LINK_COUNT] = {
    [RTOPO__LINK_LOCAL] = "local",
    [RTOPO__LINK_RING] = "ring",
    [RTOPO__LINK_ROW] = "row",
    [RTOPO__LINK_COL] = "col",
    [RTOPO__LINK_CUBE] = "cube",
    [RTOPO__LINK_OTIS] = "otis",
    [RTOPO__LINK_DIRECT] = "direct",
    [RTOPO__LINK_HOST] = "host",
    [RTOPO__LINK_CUBE_ID] = "cube-id",
};

const char *rtopo__link_name(int link)
{
    if (link < 0 || link >= RTOPO__LINK_COUNT)
        return "unknown";
    return rtopo__link_names[link];
}

int rtopo__link_parse(const char *s)
{
    int i;

    for (i = 0; s && i < RTOPO__LINK_COUNT; i++)
        if (!strcasecmp(s, rtopo__link_names[i]))
            return i;
    return -1;
}

void rtopo__model_default(rtopo__model_t *m)
{
    int c;

    for (c = 0; c < RTOPO__LINK_COUNT; c++) {
        m->ts[c] = 5e-6;
        m->tw[c] = 1e-9;
        m->th[c] = -1.0;
    }
    m->ts[RTOPO__LINK_LOCAL] = 0.0;
    m->tw[RTOPO__LINK_LOCAL] = 0.0;
    m->th[RTOPO__LINK_LOCAL] = 0.0;
    m->chunk = 256 * 1024;
    m->ports = 1;
    m->lanes = 0;
    m->layout = NULL;
    m->hostlinks = 1;
    m->tk = 0.25e-9;
    m->tq = 0.0;
    m->tt = 0.0;
    m->eager = 0;
    for (c = 0; c < RTOPO__REACH_COUNT; c++) {
        m->reach_ts[c] = m->reach_tw[c] = 0.0;
        m->reach_th[c] = -1.0;
        m->reach_set[c] = 0;
    }
}

int rtopo__sched_alloc(const rtopo__tdesc_t *t, uint32_t nxfers, uint32_t nhops,
                       rtopo__sched_t **s_p)
{
    rtopo__sched_t *s;
    int status;

    if (!t || !s_p)
        return rtopo__error(RTOPO_ERR_INVAL, "no topology or output");
    s = calloc(1, sizeof(*s));
    if (!s) {
        status = rtopo__error(RTOPO_ERR_NOMEM, "schedule header");
        goto err;
    }
    s->topo = *t;
    s->nxfers = nxfers;
    s->nhops = nhops;
    if (nxfers) {
        /* zeroed nodes of a zeroed shape, index 0 */
        rtopo__xshape_t zero;

        memset(&zero, 0, sizeof(zero));
        s->xfers = calloc(nxfers, sizeof(*s->xfers));
        if (!s->xfers || rtopo__xshapes_put(&s->xshapes, &zero) == UINT32_MAX) {
            rtopo__xshapes_free(&s->xshapes);
            free(s->xfers);
            status = rtopo__error(RTOPO_ERR_NOMEM, "%u transfers", nxfers);
            goto err_free;
        }
    }
    if (nhops) {
        s->hops = calloc(nhops, sizeof(*s->hops));
        if (!s->hops) {
            status = rtopo__error(RTOPO_ERR_NOMEM, "%u hops", nhops);
            goto err_xfers;
        }
    }
    *s_p = s;
    return RTOPO_OK;

err_xfers:
    free(s->xfers);
    rtopo__xshapes_free(&s->xshapes);
err_free:
    free(s);
err:
    return status;
}

void rtopo__sched_free(rtopo__sched_t *s)
{
    if (!s)
        return;
    free(s->xfers);
    free(s->hops);
    free(s->kerns);
    rtopo__kshapes_free(&s->kshapes);
    rtopo__xshapes_free(&s->xshapes);
    free(s->deps);
    free(s->tmp_rank);
    free(s->xid);
    free(s->simmemo);
    free(s);
}

static int rtopo__kern_validate(const rtopo__sched_t *s, uint32_t i)
{
    const rtopo__kern_t kk = rtopo__sched_kern(s, i), *k = &kk;
    size_t es = rtopo__dtype_size(k->dtype);
    uint32_t id = s->nxfers + i;
    int recs = k->type == RTOPO__KERN_CMPX || k->type == RTOPO__KERN_SORT ||
               k->type == RTOPO__KERN_SELECT;
    uint64_t slen;
    int two = rtopo__kern_src(k, &slen);

    if (k->rank < 0 || k->rank >= s->topo.p)
        return rtopo__error(RTOPO_ERR_INVAL, "node %u (%s): rank %d out of 0..%d", id,
                            rtopo__kern_name(k->type), k->rank, s->topo.p - 1);
    if (k->type < RTOPO__KERN_FILL || k->type >= RTOPO__KERN_COUNT || !es ||
        (k->type == RTOPO__KERN_COMBINE && k->op > RTOPO_MAX))
        return rtopo__error(RTOPO_ERR_INVAL, "node %u: kernel type %u, datatype %u, "
                            "operator %u", id, k->type, k->dtype, k->op);
    if (k->src_buf >= RTOPO__BUF_COUNT || k->dst_buf >= RTOPO__BUF_COUNT ||
        k->src_off > UINT64_MAX - slen || k->dst_off > UINT64_MAX - k->len)
        return rtopo__error(RTOPO_ERR_INVAL, "node %u (%s): buffer or range out of "
                            "bounds", id, rtopo__kern_name(k->type));
    if (k->type == RTOPO__KERN_ROUTE ? k->rec < RTOPO__RT_HDR || k->rec % 8 ||
                                       !k->op || k->op >= RTOPO__RT_COUNT :
        recs ? (k->rec < es || k->len % k->rec) :
        (k->len % es && !(k->type == RTOPO__KERN_FILL && !k->arg)))
        return rtopo__error(RTOPO_ERR_INVAL, "node %u (%s): %llu bytes are not whole "
                            "%s of %zu bytes", id, rtopo__kern_name(k->type),
                            (unsigned long long)k->len, recs ? "records" : "elements",
                            recs ? (size_t)k->rec : es);
    if (k->type == RTOPO__KERN_ROUTE && k->len && rtopo__route_ok(k)) {
        char m[200];

        snprintf(m, sizeof m, "%s", rtopo_last_error());
        return rtopo__error(RTOPO_ERR_INVAL, "node %u: %s", id, m);
    }
    if ((k->dst_buf == RTOPO__BUF_TMP &&
         k->dst_off + k->len > rtopo__sched_tmp(s, k->rank)) ||
        (two && k->src_buf == RTOPO__BUF_TMP &&
         k->src_off + slen > rtopo__sched_tmp(s, k->rank)))
        return rtopo__error(RTOPO_ERR_INVAL, "node %u (%s): TMP range beyond the "
                            "rank's %llu TMP bytes", id, rtopo__kern_name(k->type),
                            (unsigned long long)rtopo__sched_tmp(s, k->rank));
    if (two && k->src_buf == k->dst_buf && k->len && slen &&
        k->src_off < k->dst_off + k->len && k->dst_off < k->src_off + slen)
        return rtopo__error(RTOPO_ERR_INVAL, "node %u (%s): source and destination "
                            "overlap", id, rtopo__kern_name(k->type));
    return RTOPO_OK;
}

/* kernels, edges, and (cycles) no cycle among the nodes (Kahn) */
static int rtopo__sched_validate_graph(const rtopo__sched_t *s, int cycles)
{
    uint32_t n = s->nxfers + s->nkerns, i, *indeg = NULL, *first = NULL, *adj = NULL,
             *queue = NULL, head = 0, tail = 0;
    uint8_t *shape_ok = NULL;
    int st = RTOPO_OK;

    if (s->tmp_rank && s->topo.p > 0) {
        for (i = 0; i < (uint32_t)s->topo.p; i++)
            if (s->tmp_rank[i] > s->tmp_bytes)
                return rtopo__error(RTOPO_ERR_INVAL, "rank %u's TMP size %llu above "
                                    "tmp_bytes %llu", i,
                                    (unsigned long long)s->tmp_rank[i],
                                    (unsigned long long)s->tmp_bytes);
    }
    if ((s->nkerns && !s->kerns) || (s->ndeps && !s->deps))
        return rtopo__error(RTOPO_ERR_INVAL, "schedule arrays missing");
    /* With one TMP size for all ranks a kernel's checks but its rank's
     * depend on its shape alone: each shape is checked whole once (at its
     * first kernel, which a failing check names), later kernels of it only
     * for their rank */
    if (s->nkerns && !s->tmp_rank &&
        !(shape_ok = calloc(rtopo__sched_nkshapes(s) + 1, 1)))
        return rtopo__error(RTOPO_ERR_NOMEM, "checking %u kernels", s->nkerns);
    for (i = 0; i < s->nkerns; i++) {
        uint32_t h = s->kerns[i].shape;

        if (h >= rtopo__sched_nkshapes(s)) {
            st = rtopo__error(RTOPO_ERR_INVAL, "node %u: kernel shape %u of %u", s->nxfers + i,
                              h, rtopo__sched_nkshapes(s));
            break;
        }
        if (shape_ok && shape_ok[h]) {
            int r = s->kerns[i].rank;

            if (r < 0 || r >= s->topo.p) {
                st = rtopo__error(RTOPO_ERR_INVAL, "node %u (%s): rank %d out of 0..%d",
                                  s->nxfers + i, rtopo__kern_name(s->kshapes->v[h].type), r,
                                  s->topo.p - 1);
                break;
            }
            continue;
        }
        if ((st = rtopo__kern_validate(s, i)))
            break;
        if (shape_ok)
            shape_ok[h] = 1;
    }
    free(shape_ok);
    if (st)
        return st;
    for (i = 0; i < s->ndeps; i++) {
        const rtopo__dep_t *d = &s->deps[i];
        int pp, ps;

        if (d->rank < 0 || d->rank >= s->topo.p || d->pred >= n || d->succ >= n ||
            d->pred == d->succ || d->kind >= RTOPO__DEP_COUNT)
            return rtopo__error(RTOPO_ERR_INVAL, "edge %u (rank %d, %u -> %u, kind %u) "
                                "out of range", i, d->rank, d->pred, d->succ, d->kind);
        pp = rtopo__sched_part(s, d->pred, d->rank);
        ps = rtopo__sched_part(s, d->succ, d->rank);
        if (!pp || !ps || (d->kind == RTOPO__DEP_PORT &&
                           (pp != RTOPO__PART_SEND || ps != RTOPO__PART_SEND)))
            return rtopo__error(RTOPO_ERR_INVAL, "edge %u: node %u -> %u has no %s "
                                "on rank %d", i, d->pred, d->succ,
                                d->kind == RTOPO__DEP_PORT ? "pair of sends" :
                                "part", d->rank);
    }
    if (!cycles)
        return RTOPO_OK;
    indeg = calloc((size_t)n + 1, sizeof(*indeg));
    first = calloc((size_t)n + 2, sizeof(*first));
    adj = malloc(((size_t)s->ndeps + 1) * sizeof(*adj));
    queue = malloc(((size_t)n + 1) * sizeof(*queue));
    if (!indeg || !first || !adj || !queue) {
        st = rtopo__error(RTOPO_ERR_NOMEM, "checking %u edges", s->ndeps);
        goto out;
    }
    for (i = 0; i < s->ndeps; i++) {
        indeg[s->deps[i].succ]++;
        first[s->deps[i].pred + 2]++;
    }
    for (i = 0; i < n; i++)
        first[i + 2] += first[i + 1];
    for (i = 0; i < s->ndeps; i++)
        adj[first[s->deps[i].pred + 1]++] = s->deps[i].succ;
    for (i = 0; i < n; i++)
        if (!indeg[i])
            queue[tail++] = i;
    while (head < tail) {
        uint32_t u = queue[head++], j;

        for (j = first[u]; j < first[u + 1]; j++)
            if (--indeg[adj[j]] == 0)
                queue[tail++] = adj[j];
    }
    if (tail != n) {
        for (i = 0; i < n && !indeg[i]; i++)
            ;
        st = rtopo__error(RTOPO_ERR_INVAL, "the edges form a cycle through node %u", i);
    }
out:
    free(indeg);
    free(first);
    free(adj);
    free(queue);
    return st;
}

/* sim: also the bounds the simulator checks that the rest does not imply
 * (a local copy's hop0), reported as rtopo__sim_check reports them, after
 * everything else passed */
static int rtopo__sched_validate_in(const rtopo__sched_t *s, int cycles, int sim)
{
    const rtopo__tdesc_t *t;
    uint8_t *used = NULL;
    uint32_t i, j, maxstep = 0, badhop0 = UINT32_MAX;
    int status = RTOPO_OK, any_hop = 0;

    if (!s)
        return rtopo__error(RTOPO_ERR_INVAL, "no schedule");
    t = &s->topo;
    if (t->p < 1)
        return rtopo__error(RTOPO_ERR_INVAL, "schedule over %d ranks", t->p);
    if ((s->nxfers && !s->xfers) || (s->nhops && !s->hops))
        return rtopo__error(RTOPO_ERR_INVAL, "schedule arrays missing");
    if (s->nhops) {
        used = calloc(s->nhops, 1);
        if (!used)
            return rtopo__error(RTOPO_ERR_NOMEM, "%u hops", s->nhops);
    }
    for (i = 0; i < s->nxfers; i++) {
        rtopo__xfer_t xv;
        const rtopo__xfer_t *x = &xv;
        int from;

        if (s->xfers[i].shape >= rtopo__sched_nxshapes(s)) {
            status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u: transfer shape %u of %u", i,
                                  s->xfers[i].shape, rtopo__sched_nxshapes(s));
            goto out;
        }
        xv = rtopo__sched_xfer(s, i);
        from = x->src;

        if (x->src < 0 || x->src >= t->p || x->dst < 0 || x->dst >= t->p) {
            status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u: rank %d -> %d out "
                                  "of 0..%d", i, x->src, x->dst, t->p - 1);
            goto out;
        }
        if (x->src_buf >= RTOPO__BUF_COUNT || x->dst_buf >= RTOPO__BUF_COUNT) {
            status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u: buffer %u -> %u",
                                  i, x->src_buf, x->dst_buf);
            goto out;
        }
        if (x->src_off > UINT64_MAX - x->len || x->dst_off > UINT64_MAX - x->len) {
            status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u: offset + length "
                                  "overflows", i);
            goto out;
        }
        if ((x->src_buf == RTOPO__BUF_TMP &&
             x->src_off + x->len > rtopo__sched_tmp(s, x->src)) ||
            (x->dst_buf == RTOPO__BUF_TMP &&
             x->dst_off + x->len > rtopo__sched_tmp(s, x->dst))) {
            status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u: TMP range beyond "
                                  "the rank's %llu TMP bytes", i, (unsigned long long)
                                  rtopo__sched_tmp(s, x->src_buf == RTOPO__BUF_TMP &&
                                  x->src_off + x->len > rtopo__sched_tmp(s, x->src) ?
                                  x->src : x->dst));
            goto out;
        }
        if (x->nhops == 0) {
            if (x->src != x->dst) {
                status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u: no hops but "
                                      "%d != %d", i, x->src, x->dst);
                goto out;
            }
            if (x->src_buf == x->dst_buf && x->src_off != x->dst_off &&
                (x->src_off < x->dst_off ? x->dst_off - x->src_off :
                 x->src_off - x->dst_off) < x->len) {
                status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u: local copy "
                                      "overlaps itself", i);
                goto out;
            }
            if (x->hop0 > s->nhops && badhop0 == UINT32_MAX)
                badhop0 = i;
            continue;
        }
        if (x->src == x->dst) {
            status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u: route from rank %d back "
                                  "to itself", i, x->src);
            goto out;
        }
        if (x->hop0 > s->nhops || x->nhops > s->nhops - x->hop0) {
            status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u: hops %u+%u beyond "
                                  "%u", i, x->hop0, x->nhops, s->nhops);
            goto out;
        }
        for (j = 0; j < x->nhops; j++) {
            const rtopo__hop_t *h = &s->hops[x->hop0 + j];

            if (used[x->hop0 + j]++) {
                status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u: hop %u shared "
                                      "with another transfer", i, x->hop0 + j);
                goto out;
            }
            if (!rtopo__topo_hop_ok(t, from, h)) {
                status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u hop %u: %d -> %d "
                                      "(link %u dim %u dir %d) is not an edge "
                                      "of the %s", i, j, from, h->to, h->link,
                                      h->dim, h->dir, rtopo__topo_name(t->kind));
                goto out;
            }
            if (j && h->step <= s->hops[x->hop0 + j - 1].step) {
                status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u hop %u: step %u "
                                      "not after step %u", i, j, h->step,
                                      s->hops[x->hop0 + j - 1].step);
                goto out;
            }
            if (h->step >= s->nsteps) {
                status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u hop %u: step %u "
                                      "beyond nsteps %u", i, j, h->step,
                                      s->nsteps);
                goto out;
            }
            if (!any_hop || h->step > maxstep)
                maxstep = h->step;
            any_hop = 1;
            from = h->to;
        }
        if (from != x->dst) {
            status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u: route ends at %d, "
                                  "not at %d", i, from, x->dst);
            goto out;
        }
    }
    for (j = 0; j < s->nhops; j++)
        if (!used[j]) {
            status = rtopo__error(RTOPO_ERR_INVAL, "hop %u belongs to no "
                                  "transfer", j);
            goto out;
        }
    /* a rank's share may leave the last step's hops out */
    if (s->own ? (any_hop && maxstep >= s->nsteps) :
        s->nsteps != (any_hop ? maxstep + 1 : 0)) {
        status = rtopo__error(RTOPO_ERR_INVAL, "nsteps %u but the last step "
                              "used is %d", s->nsteps, any_hop ? (int)maxstep : -1);
        goto out;
    }
    status = rtopo__sched_validate_graph(s, cycles);
    if (!status && sim && badhop0 != UINT32_MAX)
        status = rtopo__error(RTOPO_ERR_INVAL, "xfer %u out of range", badhop0);
out:
    free(used);
    return status;
}

int rtopo__sched_validate(const rtopo__sched_t *s)
{
    return rtopo__sched_validate_in(s, 1, 0);
}

int rtopo__sched_validate_run(const rtopo__sched_t *s)
{
    return rtopo__sched_validate_in(s, 0, 0);
}

int rtopo__sched_validate_exec(const rtopo__sched_t *s)
{
    return rtopo__sched_validate_in(s, 0, 1);
}
