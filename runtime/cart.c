/*
 * cart.c - coordinates of a topology's ranks, and shifts along one
 * dimension: each line along `dim` (the ranks that agree on every other
 * coordinate) is a ring shifted by its own displacement, a*L + b for
 * line L (disp alone: a = 0).
 *
 * The schedule comes from topo/cart_sched.c and runs on the executor like
 * any other; plans are cached per arguments (dim, a and b modulo the
 * extent, bytes, in place or not), so a repeated call or a persistent
 * request builds nothing.  Every rank of a line builds the same routes for
 * it, and the signature every message carries holds the arguments: ranks
 * of one line that disagree find out from each other's messages
 * (RTOPO_ERR_MISMATCH, named).  Lines do not exchange messages, so two
 * whole lines passing different arguments cannot be told apart from two
 * lines with different displacements.
 *
 * In place (sendbuf == recvbuf): no copy of the whole buffer at start
 * (as req.c makes when send and receive overlap); the schedule copies
 * pieces of RECV into TMP slots and sends each once its destination has
 * copied its own piece out (cart_sched.c).  Pieces are max(256 KiB,
 * bytes/64) bytes, 4 slots: TMP holds min(bytes, 4 pieces), and the extra
 * cost is a memcpy of the data, overlapped with the transfers, plus one
 * window handshake per piece.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "req.h"
#include "job.h"
#include "call_forms.h"

#define RTOPO__INPLACE_SLOTS 4u
#define RTOPO__INPLACE_MIN_PIECE (256u * 1024u)
#define RTOPO__INPLACE_MAX_PIECES 64u

static int rtopo__cart_live(const rtopo_topo_t *t)
{
    if (!t)
        return rtopo__error(RTOPO_ERR_INVAL, "topology is NULL");
    if (!rtopo__handle_ok(t, RTOPO__H_TOPO))
        return rtopo__error(RTOPO_ERR_INVAL, "topology %p is not live (freed, or its "
                            "context finalized)", (const void *)t);
    return RTOPO_OK;
}

int rtopo_topo_ndims(const rtopo_topo_t *t)
{
    int st = rtopo__cart_live(t);

    return st ? st : rtopo__cart_ndims(&t->desc);
}

int rtopo_topo_extent(const rtopo_topo_t *t, int dim)
{
    int st = rtopo__cart_live(t);

    return st ? st : rtopo__cart_extent(&t->desc, dim);
}

int rtopo_topo_coords(const rtopo_topo_t *t, int rank, int *coords)
{
    int st = rtopo__cart_live(t);

    return st ? st : rtopo__cart_coords(&t->desc, rank, coords);
}

int rtopo_topo_rank_at(const rtopo_topo_t *t, const int *coords)
{
    int st = rtopo__cart_live(t);

    return st ? st : rtopo__cart_rank(&t->desc, coords);
}

static long rtopo__mod(long v, int m)
{
    long r = v % m;

    return r < 0 ? r + m : r;
}

/* one dimension shift call, blocking, nonblocking or persistent (how) */
static int rtopo__shift_dim_call(rtopo_topo_t *t, int dim, const void *sendbuf,
                                 void *recvbuf, size_t bytes, int a, int b, int how,
                                 rtopo_req_t **req_p)
{
    rtopo__dimshift_t ds;
    rtopo__opdesc_t key;
    rtopo__plan_t *plan;
    rtopo__sched_t *s;
    rtopo_req_t *req;
    int st, E, inplace;

    if ((st = rtopo__cart_live(t)))
        return st;
    if (how != RTOPO__CALL_BLOCK && !req_p)
        return rtopo__error(RTOPO_ERR_INVAL, "request pointer is NULL");
    if (t->desc.host)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "no dimension shift on a topology whose "
                            "host is outside the cube (the host has no coordinates)");
    if ((E = rtopo__cart_extent(&t->desc, dim)) < 0)
        return E;
    if (bytes && (!sendbuf || !recvbuf))
        return rtopo__error(RTOPO_ERR_INVAL, "NULL buffer for a %zu-byte shift", bytes);
    if (bytes > ((size_t)1 << 46))
        return rtopo__error(RTOPO_ERR_INVAL, "shift of %zu bytes is too large", bytes);
    inplace = bytes && sendbuf == recvbuf;
    memset(&ds, 0, sizeof(ds));
    ds.dim = dim;
    ds.a = rtopo__mod(a, E);
    ds.b = rtopo__mod(b, E);
    ds.bytes = bytes;
    if (inplace) {
        uint64_t piece = (bytes + RTOPO__INPLACE_MAX_PIECES - 1) / RTOPO__INPLACE_MAX_PIECES;

        ds.chunk = piece > RTOPO__INPLACE_MIN_PIECE ? piece : RTOPO__INPLACE_MIN_PIECE;
        ds.slots = RTOPO__INPLACE_SLOTS;
    }
    rtopo__topo_opdesc(t, &key);
    key.kind = RTOPO__OP_SHIFT_DIM;
    key.q = ds.b;
    key.bytes = bytes;
    key.param[0] = ds.a;
    key.param[1] = dim | (inplace ? RTOPO__SHIFT_DIM_INPLACE : 0);
    rtopo__ctx_lock(t->ctx);
    plan = rtopo__plan_lookup(t, &key);
    if (!plan) {
        if ((st = rtopo__sched_shift_dim(&t->desc, &ds, &s)))
            goto out;
        rtopo__debug("topology %u: shift along dimension %d by %ld*line + %ld (mod %d), "
                     "%zu bytes%s: %u steps", t->id, dim, ds.a, ds.b, E, bytes,
                     inplace ? " in place" : "", s->nsteps);
        if ((st = rtopo__plan_new(t, s, &key, &plan)))
            goto out;
        rtopo__plan_cache(t, &key, plan);
    }
    if ((st = rtopo__req_new(t, plan, inplace ? NULL : sendbuf, inplace ? 0 : bytes,
                             recvbuf, bytes, how, &req)) == RTOPO_OK)
        st = rtopo__req_call(req, how, req_p);
out:
    rtopo__ctx_leave(t->ctx);
    return st;
}

/* blocking, nonblocking and persistent (call_forms.h) */
RTOPO__CALL_FORMS(shift_dim, rtopo__shift_dim_call,
                  (rtopo_topo_t *t, int dim, const void *sendbuf, void *recvbuf, size_t bytes,
                   int disp),
                  (t, dim, sendbuf, recvbuf, bytes, 0, disp))
RTOPO__CALL_FORMS(shift_dim_rule, rtopo__shift_dim_call,
                  (rtopo_topo_t *t, int dim, const void *sendbuf, void *recvbuf, size_t bytes,
                   int a, int b),
                  (t, dim, sendbuf, recvbuf, bytes, a, b))
