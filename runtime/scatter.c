/*
 * scatter.c - windowed scatter from a host to a hypercube: node i receives
 * the `count` elements that start at element i*stride of the host's array
 * (consecutive windows overlap by count - stride elements).
 *
 * The topology (rtopo_topo_hypercube_host) says where the host is: a rank
 * outside the cube, or one of its nodes.  The schedule comes from topo/
 * (scatter_sched.c: sequential, binomial, sequential/scattering or
 * decremental scattering, or the cost model's choice among them); for a
 * host on a node it is folded so that node plays both roles.  Plans are
 * cached per arguments, so a persistent request, or a repeated call with
 * the same sizes, builds nothing.
 *
 * Arguments only the host or only a node knows (the host's array length,
 * a NULL buffer) cannot be checked by the others: a rank that finds one
 * wrong after the call started fails the job with RTOPO_ERR_INVAL, so
 * every rank returns that code instead of waiting for its data.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "req.h"
#include "call_forms.h"

/* the largest block dimension x a strategy takes on a d-cube (-1: none) */
static int rtopo__scatter_xmax(int algo, int d)
{
    if (algo == RTOPO_SCATTER_SEQSCATTER)
        return d;
    if (algo == RTOPO_SCATTER_DECREMENTAL)
        return d ? d - 1 : 0;
    return -1;
}

int rtopo_topo_set_scatter_algo(rtopo_topo_t *t, rtopo_scatter_algo_t algo, int x)
{
    int xmax, st;

    if (!rtopo__handle_ok(t, RTOPO__H_TOPO))
        return rtopo__error(RTOPO_ERR_INVAL, "not a live topology");
    if (t->host < 0)
        return rtopo__error(RTOPO_ERR_TOPO, "the topology has no host: create it with "
                            "rtopo_topo_hypercube_host");
    if (algo < RTOPO_SCATTER_AUTO || algo > RTOPO_SCATTER_DECREMENTAL)
        return rtopo__error(RTOPO_ERR_INVAL, "unknown scatter strategy %d", (int)algo);
    xmax = rtopo__scatter_xmax(algo, t->desc.dim);
    if (x < -1 || (x >= 0 && x > xmax))
        return rtopo__error(RTOPO_ERR_INVAL, "block dimension x=%d: %s takes %s", x,
                            rtopo__scatter_algo_name(algo),
                            xmax < 0 ? "none (pass -1)" : "-1 (the model's choice) to "
                            "the cube's dimension (decremental: one less)");
    if ((st = rtopo__ctx_enter(t->ctx)))
        return st;
    t->scatter_algo = algo;
    t->scatter_x = xmax < 0 ? -1 : x;
    rtopo__ctx_leave(t->ctx);
    return RTOPO_OK;
}

/* The schedule of one scatter, on the topology's own labels. */
static int rtopo__scatter_sched(rtopo_topo_t *t, uint64_t count, uint64_t stride,
                                size_t esize, int *algo_p, int *x_p, rtopo__sched_t **s_p)
{
    rtopo__tdesc_t td = t->desc;
    int st, algo = t->scatter_algo, x = t->scatter_x;

    if (t->host_node >= 0 && (st = rtopo__tdesc_add_host(&td)))
        return st;
    if (x > rtopo__scatter_xmax(algo, td.dim)) {
        rtopo__info("topology %u: RTOPO_SCATTER_ALGO's x=%d does not fit a cube of "
                    "dimension %d: the model chooses x", t->id, x, td.dim);
        x = -1;
    }
    if (algo == RTOPO_SCATTER_AUTO || x < 0)
        st = rtopo__sched_scatter_auto(&td, count, stride, esize, &t->model,
                                       t->host_node, algo, &algo, &x, s_p);
    else
        st = rtopo__sched_scatter(&td, algo, x, count, stride, esize, s_p);
    if (st == RTOPO_OK && t->host_node >= 0 && (*s_p)->topo.host)
        st = rtopo__sched_fold_host(s_p, t->host_node);
    if (st == RTOPO_OK) {
        *algo_p = algo;
        *x_p = rtopo__scatter_xmax(algo, td.dim) < 0 ? 0 : x;
        rtopo__debug("topology %u: scatter of %llu elements of %zu bytes, stride %llu: %s "
                     "x=%d", t->id, (unsigned long long)count, esize,
                     (unsigned long long)stride, rtopo__scatter_algo_name(algo), *x_p);
    }
    return st;
}

/* one scatter call, blocking, nonblocking or persistent (how) */
static int rtopo__scatter_call(rtopo_topo_t *t, const void *sendbuf, size_t sendcount,
                               void *recvbuf, size_t count, size_t stride, size_t esize,
                               int how, rtopo_req_t **req_p)
{
    rtopo_req_t *req;
    rtopo_ctx_t *ctx;
    rtopo__opdesc_t key, used;
    rtopo__plan_t *plan;
    rtopo__sched_t *s;
    int is_host, is_node, nodes, algo, x, st;
    uint64_t need;

    if (!t)
        return rtopo__error(RTOPO_ERR_INVAL, "topology is NULL");
    if (!rtopo__handle_ok(t, RTOPO__H_TOPO))
        return rtopo__error(RTOPO_ERR_INVAL, "topology %p is not live (freed, or its "
                            "context finalized)", (void *)t);
    if (how != RTOPO__CALL_BLOCK && !req_p)
        return rtopo__error(RTOPO_ERR_INVAL, "request pointer is NULL");
    ctx = t->ctx;
    /* what every rank checks alike fails alike, without a message */
    if (t->host < 0)
        return rtopo__error(RTOPO_ERR_TOPO, "scatter needs a topology with a host "
                            "(rtopo_topo_hypercube_host)");
    if (!esize || !count || !stride || stride > count)
        return rtopo__error(RTOPO_ERR_INVAL, "scatter of windows of %zu elements of %zu "
                            "bytes with stride %zu: need count >= 1, elem_size >= 1 and "
                            "1 <= stride <= count", count, esize, stride);
    nodes = rtopo_topo_size(t);
    if (count > ((uint64_t)1 << 46) / esize ||
        stride > ((uint64_t)1 << 46) / esize / (uint64_t)nodes)
        return rtopo__error(RTOPO_ERR_INVAL, "scatter of %zu elements of %zu bytes with "
                            "stride %zu is too large", count, esize, stride);
    need = (uint64_t)(nodes - 1) * stride + count;
    is_host = ctx->rank == t->host;
    is_node = t->me < nodes;
    rtopo__opdesc_shift(&key, t, (long)stride, count * esize, t->scatter_algo);
    key.kind = RTOPO__OP_SCATTER;
    key.param[0] = t->scatter_x;
    key.param[1] = (int64_t)esize;
    rtopo__ctx_lock(ctx);
    plan = rtopo__plan_lookup(t, &key);
    if (!plan) {
        if ((st = rtopo__scatter_sched(t, count, stride, esize, &algo, &x, &s)))
            goto out;
        used = key;
        used.algo = (uint8_t)algo;
        used.param[0] = x;
        if ((st = rtopo__plan_new(t, s, &used, &plan)))
            goto out;
        rtopo__plan_cache(t, &key, plan);
    }
    st = rtopo__req_new(t, plan, is_host ? sendbuf : NULL, is_host ? need * esize : 0,
                        is_node ? recvbuf : NULL, is_node ? count * esize : 0, how, &req);
    if (st)
        goto out;
    /* what only this rank can see: the others learn it from the job's
     * failure when the call starts */
    if (is_host && (!sendbuf || sendcount < need)) {
        req->bad = RTOPO_ERR_INVAL;
        snprintf(req->badmsg, sizeof(req->badmsg), "scatter: the host's array %s (%zu "
                 "elements; %d windows of %zu with stride %zu need %llu)",
                 sendbuf ? "is too short" : "is NULL", sendcount, nodes, count, stride,
                 (unsigned long long)need);
    } else if (is_node && !recvbuf) {
        req->bad = RTOPO_ERR_INVAL;
        snprintf(req->badmsg, sizeof(req->badmsg), "scatter: the receive buffer of node %d "
                 "is NULL", rtopo_topo_rank(t));
    }
    st = rtopo__req_call(req, how, req_p);
out:
    rtopo__ctx_leave(ctx);
    return st;
}

/* blocking, nonblocking and persistent (call_forms.h) */
RTOPO__CALL_FORMS(scatter, rtopo__scatter_call,
                  (rtopo_topo_t *t, const void *sendbuf, size_t sendcount, void *recvbuf,
                   size_t count, size_t stride, size_t elem_size),
                  (t, sendbuf, sendcount, recvbuf, count, stride, elem_size))
