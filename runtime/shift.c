/*
 * shift.c - circular q-shift: rank i's bytes reach rank (i+q) mod p.
 *
 * The schedule comes from topo/ (ring, mesh, hypercube, E-cube or direct,
 * chosen by the topology, RTOPO_SHIFT_ALGO, rtopo_topo_set_shift_algo, or
 * the cost model for "auto"); the executor runs it.  Requests own their
 * plan, so a persistent request skips building the schedule and this
 * rank's share of it on every start.  Above the eager limit each start
 * still opens the receive windows afresh (one small ready-to-receive
 * message per hop): that message is also the permission to write, which
 * the buffer rules require anew in every round.  Requests themselves are
 * req.c's.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "req.h"
#include "call_forms.h"

/* one shift call, blocking, nonblocking or persistent (how) */
static int rtopo__shift_call(rtopo_topo_t *t, const void *sendbuf, void *recvbuf,
                             size_t bytes, int q, int how, rtopo_req_t **req_p)
{
    rtopo__plan_t *plan;
    rtopo_req_t *req;
    long qn;
    int st;

    if (!t)
        return rtopo__error(RTOPO_ERR_INVAL, "topology is NULL");
    if (!rtopo__handle_ok(t, RTOPO__H_TOPO))
        return rtopo__error(RTOPO_ERR_INVAL, "topology %p is not live (freed, or its "
                            "context finalized)", (void *)t);
    if (how != RTOPO__CALL_BLOCK && !req_p)
        return rtopo__error(RTOPO_ERR_INVAL, "request pointer is NULL");
    if (t->desc.host)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "no shift on a topology whose host is "
                            "outside the cube (the host has no place in the ring order)");
    if (bytes && (!sendbuf || !recvbuf))
        return rtopo__error(RTOPO_ERR_INVAL, "NULL buffer for a %zu-byte shift", bytes);
    if (bytes > ((size_t)1 << 46))
        return rtopo__error(RTOPO_ERR_INVAL, "shift of %zu bytes is too large", bytes);
    qn = q;
    if (qn < 0 || qn >= t->desc.p) {   /* (a division costs more than the check) */
        qn %= t->desc.p;
        if (qn < 0)
            qn += t->desc.p;
    }
    rtopo__ctx_lock(t->ctx);
    /* a blocking shift repeated: the spare request runs it on its plan */
    if (how == RTOPO__CALL_BLOCK && (plan = t->spare_plan) &&
        rtopo__plan_is_shift(plan, qn, bytes, t->shift_algo))
        st = rtopo__req_spare_block(t, sendbuf, bytes, recvbuf, bytes);
    else if ((st = rtopo__plan_get(t, qn, bytes, t->shift_algo, &plan)) == RTOPO_OK &&
             (st = rtopo__req_new(t, plan, sendbuf, bytes, recvbuf, bytes, how,
                                  &req)) == RTOPO_OK)
        st = rtopo__req_call(req, how, req_p);
    rtopo__ctx_leave(t->ctx);
    return st;
}

/* blocking, nonblocking and persistent (call_forms.h) */
RTOPO__CALL_FORMS(shift, rtopo__shift_call,
                  (rtopo_topo_t *t, const void *sendbuf, void *recvbuf, size_t bytes, int q),
                  (t, sendbuf, recvbuf, bytes, q))
