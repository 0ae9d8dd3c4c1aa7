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
 * graph has no cycle.  Cost: O(a^2) per rank for a accesses on it.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

int rtopo__sched_part(const rtopo__sched_t *s, uint32_t id, int rank)
{
    if (id < s->nxfers) {
        const rtopo__xfer_t *x = &s->xfers[id];

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
    rtopo__kern_t *k;

    if (!s || n > UINT32_MAX - s->nkerns || n > UINT32_MAX - s->nxfers - s->nkerns)
        return rtopo__error(RTOPO_ERR_INVAL, "too many kernels");
    k = realloc(s->kerns, ((size_t)s->nkerns + n + 1) * sizeof(*k));
    if (!k)
        return rtopo__error(RTOPO_ERR_NOMEM, "%u kernels", s->nkerns + n);
    memset(k + s->nkerns, 0, (size_t)n * sizeof(*k));
    s->kerns = k;
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

typedef struct rtopo__acc {
    int32_t rank;
    uint32_t step;
    uint8_t phase;     /* 0 send, 1 recv, 2 local */
    uint8_t write;
    uint8_t buf;
    uint32_t node;
    uint64_t off, len;
} rtopo__acc_t;

static int rtopo__acc_cmp(const void *a, const void *b)
{
    const rtopo__acc_t *x = a, *y = b;

    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
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

/* an access on rank; in a share (own = r + 1) only rank r's count */
static void rtopo__acc_put(rtopo__acc_t *a, size_t *n, int own, int rank, uint32_t step,
                           int phase, int write, int buf, uint32_t node, uint64_t off,
                           uint64_t len)
{
    rtopo__acc_t *e;

    if (!len || (own && rank != own - 1))
        return;
    e = &a[(*n)++];
    e->rank = rank;
    e->step = step;
    e->phase = (uint8_t)phase;
    e->write = (uint8_t)write;
    e->buf = (uint8_t)buf;
    e->node = node;
    e->off = off;
    e->len = len;
}

int rtopo__sched_deps_infer(rtopo__sched_t *s, unsigned flags)
{
    rtopo__acc_t *acc;
    size_t n = 0, i, j, b, e, w;
    uint32_t id;
    int st = RTOPO_OK;

    /* at most 3 accesses per node, plus one port entry per transfer */
    acc = malloc(((size_t)s->nxfers * 3 + (size_t)s->nkerns * 3 + 1) * sizeof(*acc));
    if (!acc)
        return rtopo__error(RTOPO_ERR_NOMEM, "inferring the edges of %u nodes",
                            s->nxfers + s->nkerns);
    for (id = 0; id < s->nxfers; id++) {
        const rtopo__xfer_t *x = &s->xfers[id];

        if (!x->nhops) {
            rtopo__acc_put(acc, &n, s->own, x->src, x->step, 2, 0, x->src_buf, id,
                           x->src_off, x->len);
            rtopo__acc_put(acc, &n, s->own, x->src, x->step, 2, 1, x->dst_buf, id,
                           x->dst_off, x->len);
            continue;
        }
        rtopo__acc_put(acc, &n, s->own, x->src, s->hops[x->hop0].step, 0, 0, x->src_buf,
                       id, x->src_off, x->len);
        rtopo__acc_put(acc, &n, s->own, x->dst, s->hops[x->hop0 + x->nhops - 1].step, 1,
                       1, x->dst_buf, id, x->dst_off, x->len);
    }
    for (i = 0; i < s->nkerns; i++) {
        const rtopo__kern_t *k = &s->kerns[i];
        uint64_t slen;
        int rd = rtopo__kern_src(k, &slen);

        id = s->nxfers + (uint32_t)i;
        if (rd)
            rtopo__acc_put(acc, &n, s->own, k->rank, k->step, 2,
                           k->type == RTOPO__KERN_CMPX, k->src_buf, id, k->src_off, slen);
        rtopo__acc_put(acc, &n, s->own, k->rank, k->step, 2, 1, k->dst_buf, id, k->dst_off,
                       k->len);
    }
    qsort(acc, n, sizeof(*acc), rtopo__acc_cmp);
    for (b = 0; b < n; b = e) {
        for (e = b; e < n && acc[e].rank == acc[b].rank; e++)
            ;
        for (j = b; j < e; j++) {
            const rtopo__acc_t *y = &acc[j];

            /* latest first: a write that covers all of y's range is
             * itself ordered after every earlier access that overlaps
             * y, so the scan stops there (no transitive edges) */
            for (i = j; i-- > b;) {
                const rtopo__acc_t *x = &acc[i];
                int kind;

                if (x->node == y->node || x->buf != y->buf || !(x->write || y->write) ||
                    x->off >= y->off + y->len || y->off >= x->off + x->len)
                    continue;
                if (x->step == y->step && x->phase == 1 && y->phase == 1) {
                    st = rtopo__error(RTOPO_ERR_INVAL, "transfers %u and %u both write "
                                      "rank %d's buffer %u at offset %llu in step %u: "
                                      "order them by steps", x->node, y->node, y->rank,
                                      y->buf, (unsigned long long)(x->off > y->off ?
                                      x->off : y->off), y->step);
                    goto out;
                }
                kind = x->write && y->write ? RTOPO__DEP_WAW :
                       x->write ? RTOPO__DEP_RAW : RTOPO__DEP_WAR;
                if ((st = rtopo__deps_reserve(s, 1)))
                    goto out;
                s->deps[s->ndeps++] = (rtopo__dep_t){ y->rank, x->node, y->node,
                                                      (uint32_t)kind };
                if (x->write && x->off <= y->off && x->off + x->len >= y->off + y->len)
                    break;
            }
        }
    }
    if (flags & RTOPO__DEPS_PORT) {
        /* SEND parts of each rank, in (step, node) order */
        n = 0;
        for (id = 0; id < s->nxfers; id++) {
            const rtopo__xfer_t *x = &s->xfers[id];

            if (x->nhops)
                rtopo__acc_put(acc, &n, s->own, x->src, s->hops[x->hop0].step, 0, 0, 0, id,
                               0, 1);
        }
        qsort(acc, n, sizeof(*acc), rtopo__acc_cmp);
        for (i = 1; i < n; i++) {
            if (acc[i].rank != acc[i - 1].rank)
                continue;
            if ((st = rtopo__deps_reserve(s, 1)))
                goto out;
            s->deps[s->ndeps++] = (rtopo__dep_t){ acc[i].rank, acc[i - 1].node,
                                                  acc[i].node, RTOPO__DEP_PORT };
        }
    }
    /* one edge per (rank, pred, succ, kind) */
    if (s->ndeps)   /* qsort of NULL, even for 0 elements, is undefined */
        qsort(s->deps, s->ndeps, sizeof(*s->deps), rtopo__dep_cmp);
    for (i = 0, w = 0; i < s->ndeps; i++)
        if (!w || rtopo__dep_cmp(&s->deps[w - 1], &s->deps[i]))
            s->deps[w++] = s->deps[i];
    s->ndeps = (uint32_t)w;
out:
    free(acc);
    return st;
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
    rtopo__xfer_t *xf = NULL;
    rtopo__hop_t *hp = NULL;
    int st = RTOPO_OK;

    if (rank < 0 || rank >= s->topo.p || (s->own && s->own != rank + 1))
        return rtopo__error(RTOPO_ERR_INVAL, "rank %d's share of a schedule %s", rank,
                            s->own ? "of another rank's share" : "of no such rank");
    map = malloc(((size_t)n + 1) * sizeof(*map));
    if (!map)
        return rtopo__error(RTOPO_ERR_NOMEM, "the share of rank %d", rank);
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t *x = &s->xfers[i];

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
        rtopo__xfer_t x = s->xfers[i];

        if (map[i] == UINT32_MAX)
            continue;
        xid[map[i]] = rtopo__sched_xid(s, i);
        for (k = 0; k < x.nhops; k++)
            hp[nh + k] = s->hops[x.hop0 + k];
        x.hop0 = x.nhops ? nh : 0;
        nh += x.nhops;
        xf[map[i]] = x;
    }
    for (i = 0; i < s->nkerns; i++) {
        const rtopo__kern_t *kk = &s->kerns[i];

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
        rtopo__kern_t *kq = realloc(s->kerns, (size_t)nk * sizeof(*kq));

        s->kerns = kq ? kq : s->kerns;
    }
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

int rtopo__sched_concat(rtopo__sched_t *a, rtopo__sched_t *b, unsigned flags,
                        rtopo__sched_t **out_p)
{
    rtopo__sched_t *s = NULL;
    uint32_t ax, bx, ak, i, shift = a->nsteps;
    int st;

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
    if (ax > UINT32_MAX - bx || a->nhops > UINT32_MAX - b->nhops ||
        (uint64_t)ax + bx + ak + b->nkerns > UINT32_MAX ||
        (uint64_t)a->ndeps + b->ndeps > UINT32_MAX) {
        st = rtopo__error(RTOPO_ERR_INVAL, "phases too large to join");
        goto out;
    }
    if ((st = rtopo__sched_alloc(&a->topo, ax + bx, a->nhops + b->nhops, &s)))
        goto out;
    s->algo = a->algo;
    s->nsteps = a->nsteps + b->nsteps;
    if (a->own) {
        uint32_t anx = a->nxall;

        if (anx > UINT32_MAX - b->nxall ||
            !(s->xid = malloc(((size_t)ax + bx + 1) * sizeof(*s->xid)))) {
            st = rtopo__error(RTOPO_ERR_NOMEM, "phases: transfer numbers");
            goto out;
        }
        for (i = 0; i < ax; i++)
            s->xid[i] = a->xid[i];
        for (i = 0; i < bx; i++)
            s->xid[ax + i] = anx + b->xid[i];
        s->own = a->own;
        s->nxall = anx + b->nxall;
        s->olast = a->olast;
        if (b->olast && b->olast + shift > s->olast)
            s->olast = b->olast + shift;
    }
    if (a->nxfers)
        memcpy(s->xfers, a->xfers, ax * sizeof(*s->xfers));
    if (b->nxfers)
        memcpy(s->xfers + ax, b->xfers, bx * sizeof(*s->xfers));
    if (a->nhops)
        memcpy(s->hops, a->hops, a->nhops * sizeof(*s->hops));
    if (b->nhops)
        memcpy(s->hops + a->nhops, b->hops, b->nhops * sizeof(*s->hops));
    for (i = 0; i < bx; i++) {
        s->xfers[ax + i].hop0 += a->nhops;
        s->xfers[ax + i].step += shift;
    }
    for (i = 0; i < b->nhops; i++)
        s->hops[a->nhops + i].step += shift;
    if ((st = rtopo__sched_add_kerns(s, ak + b->nkerns, NULL)))
        goto out;
    if (ak)
        memcpy(s->kerns, a->kerns, ak * sizeof(*s->kerns));
    for (i = 0; i < b->nkerns; i++) {
        s->kerns[ak + i] = b->kerns[i];
        s->kerns[ak + i].step += shift;
    }
    /* node ids: a's transfers, b's transfers, a's kernels, b's kernels */
    for (i = 0; i < a->ndeps; i++) {
        rtopo__dep_t d = a->deps[i];

        d.pred += d.pred >= ax ? bx : 0;
        d.succ += d.succ >= ax ? bx : 0;
        if ((st = rtopo__sched_add_dep(s, d.rank, d.pred, d.succ, (int)d.kind)))
            goto out;
    }
    for (i = 0; i < b->ndeps; i++) {
        rtopo__dep_t d = b->deps[i];

        d.pred += d.pred >= bx ? ax + ak : ax;
        d.succ += d.succ >= bx ? ax + ak : ax;
        if ((st = rtopo__sched_add_dep(s, d.rank, d.pred, d.succ, (int)d.kind)))
            goto out;
    }
    if (a->tmp_rank || b->tmp_rank) {
        uint64_t *t = malloc((size_t)a->topo.p * sizeof(*t));
        int r;

        if (!t) {
            st = rtopo__error(RTOPO_ERR_NOMEM, "TMP sizes");
            goto out;
        }
        for (r = 0; r < a->topo.p; r++) {
            uint64_t x = rtopo__sched_tmp(a, r), y = rtopo__sched_tmp(b, r);
            t[r] = x > y ? x : y;
        }
        st = rtopo__sched_set_tmp(s, t);
        free(t);
        if (st)
            goto out;
    } else {
        s->tmp_bytes = a->tmp_bytes > b->tmp_bytes ? a->tmp_bytes : b->tmp_bytes;
    }
    if ((st = rtopo__sched_deps_infer(s, flags)))
        goto out;
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
        const rtopo__xfer_t *x = &s->xfers[i];

        if (x->src == host || x->src == node)
            used[x->src == host][x->src_buf] = 1;
        if (x->dst == host || x->dst == node)
            used[x->dst == host][x->dst_buf] = 1;
    }
    for (i = 0; i < s->nkerns; i++) {
        const rtopo__kern_t *kk = &s->kerns[i];

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
        rtopo__xfer_t x = s->xfers[i];

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
        o->xfers[i] = x;
    }
    o->nhops = nh;
    o->nsteps = nh ? maxstep + 1 : 0;
    if (s->nkerns) {
        if ((st = rtopo__sched_add_kerns(o, s->nkerns, NULL)))
            goto out;
        for (i = 0; i < s->nkerns; i++) {
            rtopo__kern_t kk = s->kerns[i];

            if (kk.rank == host) {
                kk.rank = node;
                kk.src_off += kk.src_buf == RTOPO__BUF_TMP ? hshift : 0;
                kk.dst_off += kk.dst_buf == RTOPO__BUF_TMP ? hshift : 0;
            }
            o->kerns[i] = kk;
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
