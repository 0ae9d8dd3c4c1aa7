/*
 * shift.c - circular q-shift: rank i's bytes reach rank (i+q) mod p.
 *
 * The schedule comes from topo/ (ring, mesh, hypercube, E-cube or direct,
 * chosen by the topology, RTOPO_SHIFT_ALGO, rtopo_topo_set_shift_algo, or
 * the cost model for "auto"); the executor runs it.  Requests own their
 * plan, so a persistent request skips building the schedule and this
 * rank's share of it on every start.  Each start still opens the receive
 * windows afresh (one small ready-to-receive message per hop): that
 * message is also the permission to write, which the buffer rules
 * require anew in every round.  Requests themselves are req.c's.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo_int.h"

static int rtopo__shift_req(rtopo_topo_t *t, const void *sendbuf, void *recvbuf,
                            size_t bytes, int q, int persistent, rtopo_req_t **req_p)
{
    rtopo__plan_t *plan;
    long qn;
    int st;

    if (!t)
        return rtopo__error(RTOPO_ERR_INVAL, "topology is NULL");
    if (!rtopo__handle_ok(t, RTOPO__H_TOPO))
        return rtopo__error(RTOPO_ERR_INVAL, "topology %p is not live (freed, or its "
                            "context finalized)", (void *)t);
    if (!req_p)
        return rtopo__error(RTOPO_ERR_INVAL, "request pointer is NULL");
    if (t->desc.host)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "no shift on a topology whose host is "
                            "outside the cube (the host has no place in the ring order)");
    if (bytes && (!sendbuf || !recvbuf))
        return rtopo__error(RTOPO_ERR_INVAL, "NULL buffer for a %zu-byte shift", bytes);
    if (bytes > ((size_t)1 << 46))
        return rtopo__error(RTOPO_ERR_INVAL, "shift of %zu bytes is too large", bytes);
    qn = (long)q % t->desc.p;
    if (qn < 0)
        qn += t->desc.p;
    if ((st = rtopo__ctx_enter(t->ctx)))
        return st;
    st = rtopo__plan_get(t, qn, bytes, t->shift_algo, &plan);
    if (st == RTOPO_OK)
        st = rtopo__req_new(t, plan, sendbuf, bytes, recvbuf, bytes, persistent, req_p);
    rtopo__ctx_leave(t->ctx);
    return st;
}

int rtopo_ishift(rtopo_topo_t *t, const void *sendbuf, void *recvbuf, size_t bytes,
                 int q, rtopo_req_t **req)
{
    int st = rtopo__shift_req(t, sendbuf, recvbuf, bytes, q, 0, req);

    if (st)
        return st;
    rtopo__ctx_enter(t->ctx);
    st = rtopo__req_start_new(req);
    rtopo__ctx_leave(t->ctx);
    return st;
}

int rtopo_shift_init(rtopo_topo_t *t, const void *sendbuf, void *recvbuf, size_t bytes,
                     int q, rtopo_req_t **req)
{
    return rtopo__shift_req(t, sendbuf, recvbuf, bytes, q, 1, req);
}

int rtopo_shift(rtopo_topo_t *t, const void *sendbuf, void *recvbuf, size_t bytes, int q)
{
    rtopo_req_t *req;
    int st = rtopo__shift_req(t, sendbuf, recvbuf, bytes, q, 0, &req);

    if (st)
        return st;
    rtopo__ctx_enter(t->ctx);
    st = rtopo__req_block(req);
    rtopo__ctx_leave(t->ctx);
    return st;
}
