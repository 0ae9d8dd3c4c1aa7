/*
 * coll.c - broadcast, allreduce, scan, the OTIS window broadcast, the
 * line operations (zero-fill shift, accumulation, adjacent and
 * consecutive sums), selection ranks, the OTIS-mesh routing operations
 * (concentrate, distribute, generalize), BPC permutations and the sort.
 *
 * Each call describes itself as an rtopo__coll_t, topo/coll_build.c turns
 * that into a schedule (the topology's own algorithm or the generic one,
 * or the faster of the two under the topology's cost model), and the
 * executor runs it like any other.  Plans are cached per arguments, so a
 * repeated call or a persistent request builds nothing.  Arguments every
 * rank checks alike (counts, datatype, operator, root, dimension, M) fail
 * alike without a message; a NULL buffer only one rank passes fails the
 * job when the call starts, on every rank; arguments that differ between
 * ranks give RTOPO_ERR_MISMATCH naming the argument.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "req.h"
#include "job.h"
#include "call_forms.h"

static int rtopo__coll_live(const rtopo_topo_t *t)
{
    if (!t)
        return rtopo__error(RTOPO_ERR_INVAL, "topology is NULL");
    if (!rtopo__handle_ok(t, RTOPO__H_TOPO))
        return rtopo__error(RTOPO_ERR_INVAL, "topology %p is not live (freed, or its "
                            "context finalized)", (const void *)t);
    return RTOPO_OK;
}

int rtopo_topo_set_coll_algo(rtopo_topo_t *t, rtopo_coll_algo_t algo)
{
    int st = rtopo__coll_live(t);

    if (st)
        return st;
    if ((int)algo < RTOPO_COLL_AUTO || algo > RTOPO_COLL_GENERIC)
        return rtopo__error(RTOPO_ERR_INVAL, "collective algorithm %d is not one of "
                            "RTOPO_COLL_AUTO, RTOPO_COLL_TOPO, RTOPO_COLL_GENERIC",
                            (int)algo);
    t->coll_algo = algo;
    return RTOPO_OK;
}

/* the fields of a plan's cache key that the call's arguments set (c->algo
 * and c->esize set); the topology's fields are rtopo__topo_opdesc's */
static void rtopo__coll_key(const rtopo__coll_t *c, rtopo__opdesc_t *key)
{
    key->kind = RTOPO__OP_COLL;
    key->algo = (uint8_t)c->algo;
    key->q = c->op;
    key->bytes = c->count * c->esize;
    key->root = c->root;
    key->dtype = (uint8_t)c->dtype;
    key->op = (uint8_t)c->rop;
    key->param[0] = (int64_t)(c->dim & 0xff) | (int64_t)(c->w & 0xffffff) << 8 |
                    (int64_t)c->mm << 32;
    key->param[1] = c->disp;
    if (rtopo__coll_desc(c->op)->key == RTOPO__CK_SORT)
        key->param[0] = (int64_t)c->esize << 1 | (c->desc != 0);
    if (rtopo__coll_desc(c->op)->key == RTOPO__CK_BPC) {
        /* the vector: the complement mask and the bit count, and a 64-bit
         * hash of the entries */
        uint64_t h = 1469598103934665603ull;
        int i;

        for (i = 0; i < c->bpc_bits; i++)
            h = (h ^ (uint64_t)(uint8_t)c->bpc_to[i]) * 1099511628211ull;
        key->param[0] = (int64_t)c->bpc_neg | (int64_t)c->bpc_bits << 32;
        key->param[1] = (int64_t)h;
    }
}

/* whether the cached plan's key a has the call's fields of b (as
 * rtopo__coll_key set them); the topology's fields never change, and a
 * spare plan is one of this topology */
static inline int rtopo__coll_key_is(const rtopo__opdesc_t *a, const rtopo__opdesc_t *b)
{
    return a->kind == b->kind && a->q == b->q && a->bytes == b->bytes &&
           a->root == b->root && a->dtype == b->dtype && a->op == b->op &&
           a->algo == b->algo && a->param[0] == b->param[0] && a->param[1] == b->param[1];
}

/* One call, blocking, nonblocking or persistent (how).  c: the call;
 * sendbuf/recvbuf as the caller passed them (bcast: recvbuf only); aux_in
 * (in_len bytes) and aux_out (out_len) are staged through TMP (route
 * ops). */
static int rtopo__coll_call_aux(rtopo_topo_t *t, rtopo__coll_t *c, const void *sendbuf,
                                void *recvbuf, const void *aux_in, size_t in_len,
                                void *aux_out, size_t out_len, int how,
                                rtopo_req_t **req_p)
{
    rtopo__opdesc_t key, used;
    rtopo__plan_t *plan;
    rtopo__sched_t *s;
    rtopo_req_t *req;
    uint64_t sb, rb;
    int st;

    if ((st = rtopo__coll_live(t)))
        return st;
    if (how != RTOPO__CALL_BLOCK && !req_p)
        return rtopo__error(RTOPO_ERR_INVAL, "request pointer is NULL");
    if (t->desc.host)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "no %s on a topology whose host is "
                            "outside the cube", rtopo__coll_name(c->op));
    if (c->esize == 0) {
        if (c->dtype < RTOPO_INT32 || c->dtype > RTOPO_DOUBLE)
            return rtopo__error(RTOPO_ERR_INVAL, "%s: datatype %d is not one of "
                                "RTOPO_INT32, RTOPO_INT64, RTOPO_FLOAT, RTOPO_DOUBLE",
                                rtopo__coll_name(c->op), c->dtype);
        c->esize = rtopo__dtype_size(c->dtype);
    }
    if (c->count > ((uint64_t)1 << 46) / c->esize)
        return rtopo__error(RTOPO_ERR_INVAL, "%s of %llu elements of %zu bytes is too "
                            "large", rtopo__coll_name(c->op),
                            (unsigned long long)c->count, c->esize);
    c->algo = t->coll_algo;
    rtopo__coll_key(c, &key);
    rtopo__ctx_lock(t->ctx);
    /* a blocking call repeated: the spare request runs it on its plan (a
     * NULL buffer, or results outside the receive buffer, go the long way) */
    if (how == RTOPO__CALL_BLOCK && !in_len && !out_len && (plan = t->spare_plan) &&
        rtopo__coll_key_is(&plan->key, &key)) {
        sb = t->spare->sbytes;
        rb = t->spare->rbytes;
        if ((!sb || sendbuf) && (!rb || recvbuf)) {
            st = rtopo__req_spare_block(t, sb ? sendbuf : NULL, sb, rb ? recvbuf : NULL,
                                        rb);
            goto out;
        }
    }
    sb = rtopo__coll_send_bytes(c);
    rb = rtopo__coll_recv_bytes(c);
    rtopo__topo_opdesc(t, &key);
    rtopo__coll_key(c, &key);
    plan = rtopo__plan_lookup(t, &key);
    if (!plan) {
        c->own = t->whole_plans ? 0 : t->me + 1;   /* this rank's share only */
        if ((st = rtopo__sched_coll(&t->desc, c, &t->model, &s)))
            goto out;
        rtopo__debug("topology %u: %s of %llu x %zu bytes: %s algorithm, %u transfers, "
                     "%u kernels, %u steps", t->id, rtopo__coll_name(c->op),
                     (unsigned long long)c->count, c->esize,
                     rtopo__coll_algo_name(s->algo), s->nxfers, s->nkerns, s->nsteps);
        used = key;
        used.algo = (uint8_t)s->algo;
        if ((st = rtopo__plan_new(t, s, &used, &plan)))
            goto out;
        rtopo__plan_cache(t, &key, plan);
    }
    st = rtopo__req_new(t, plan, sb ? sendbuf : NULL, sb, rb ? recvbuf : NULL, rb, how,
                        &req);
    if (st)
        goto out;
    req->aux_in = aux_in;
    req->aux_in_len = in_len;
    req->aux_out = aux_out;
    req->aux_out_len = out_len;
    /* what only this rank can see: the others learn it from the job's
     * failure when the call starts */
    if ((sb && !sendbuf) || (rb && !recvbuf)) {
        req->bad = RTOPO_ERR_INVAL;
        snprintf(req->badmsg, sizeof(req->badmsg), "%s: the %s buffer of rank %d is NULL",
                 rtopo__coll_name(c->op), sb && !sendbuf ? "send" : "receive",
                 rtopo_topo_rank(t));
    } else if ((in_len && !aux_in) || (out_len && !aux_out)) {
        req->bad = RTOPO_ERR_INVAL;
        snprintf(req->badmsg, sizeof(req->badmsg), "%s: the %s pointer of rank %d is NULL",
                 rtopo__coll_name(c->op), in_len && !aux_in ?
                 rtopo__coll_desc(c->op)->in_arg : "got",
                 rtopo_topo_rank(t));
    }
    st = rtopo__req_call(req, how, req_p);
out:
    rtopo__ctx_leave(t->ctx);
    return st;
}

static int rtopo__coll_call(rtopo_topo_t *t, rtopo__coll_t *c, const void *sendbuf,
                            void *recvbuf, int how, rtopo_req_t **req_p)
{
    return rtopo__coll_call_aux(t, c, sendbuf, recvbuf, NULL, 0, NULL, 0, how, req_p);
}

static int rtopo__bcast(rtopo_topo_t *t, void *buf, size_t count, rtopo_datatype_t dtype,
                        int root, int how, rtopo_req_t **req)
{
    rtopo__coll_t c = { .op = RTOPO__COLL_BCAST, .dtype = dtype, .count = count,
                        .root = root };

    return rtopo__coll_call(t, &c, NULL, buf, how, req);
}

static int rtopo__reduce(rtopo_topo_t *t, int op, const void *sendbuf, void *recvbuf,
                         size_t count, rtopo_datatype_t dtype, rtopo_op_t rop, int how,
                         rtopo_req_t **req)
{
    rtopo__coll_t c = { .op = op, .dtype = dtype, .rop = rop, .count = count };

    if ((int)rop < RTOPO_SUM || rop > RTOPO_MAX)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: operator %d is not one of RTOPO_SUM, "
                            "RTOPO_PROD, RTOPO_MIN, RTOPO_MAX", rtopo__coll_name(op),
                            (int)rop);
    return rtopo__coll_call(t, &c, sendbuf, recvbuf, how, req);
}

static int rtopo__window_bcast(rtopo_topo_t *t, void *buf, size_t count,
                               rtopo_datatype_t dtype, int group, int w, int how,
                               rtopo_req_t **req)
{
    rtopo__coll_t c = { .op = RTOPO__COLL_WINDOW_BCAST, .dtype = dtype, .count = count,
                        .root = group, .w = w };

    return rtopo__coll_call(t, &c, NULL, buf, how, req);
}

/* line operations: bytes (dtype < 0) or count elements of dtype */
static int rtopo__line(rtopo_topo_t *t, int op, int dim, const void *sendbuf,
                       void *recvbuf, size_t count, int dtype, rtopo_op_t rop, int disp,
                       int mm, int how, rtopo_req_t **req)
{
    rtopo__coll_t c = { .op = op, .dtype = dtype < 0 ? 0 : dtype, .rop = rop,
                        .count = count, .esize = dtype < 0 ? 1 : 0, .dim = dim,
                        .disp = disp, .mm = mm };

    if (dtype >= 0 && ((int)rop < RTOPO_SUM || rop > RTOPO_MAX))
        return rtopo__error(RTOPO_ERR_INVAL, "%s: operator %d is not one of RTOPO_SUM, "
                            "RTOPO_PROD, RTOPO_MIN, RTOPO_MAX", rtopo__coll_name(op),
                            (int)rop);
    if (sendbuf && recvbuf && sendbuf == recvbuf && count)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: sendbuf and recvbuf are the same buffer "
                            "(no in-place form)", rtopo__coll_name(op));
    return rtopo__coll_call(t, &c, sendbuf, recvbuf, how, req);
}

/* ---- selection and routing ---------------------------------------------- */

static int rtopo__select_rank(rtopo_topo_t *t, const int *selected, int64_t *rank, int how,
                              rtopo_req_t **req)
{
    rtopo__coll_t c = { .op = RTOPO__COLL_SELECT_RANK, .dtype = RTOPO_INT64, .count = 1,
                        .esize = 1 };

    return rtopo__coll_call(t, &c, selected, rank, how, req);
}

/* concentrate (in: int selected) or distribute / generalize (in: int64
 * dest) */
static int rtopo__route(rtopo_topo_t *t, int op, const void *sendrec, const void *in,
                        void *recvrec, size_t recsize, int *got, int how, rtopo_req_t **req)
{
    rtopo__coll_t c = { .op = op, .dtype = RTOPO_INT64, .count = 1, .esize = recsize };

    if (recsize == 0 || recsize > ((size_t)1 << 30))
        return rtopo__error(RTOPO_ERR_INVAL, "%s: recsize is %zu (records of 1 byte to "
                            "1 GiB)", rtopo__coll_name(op), recsize);
    if (sendrec && recvrec && (const char *)sendrec < (char *)recvrec + recsize &&
        (const char *)recvrec < (const char *)sendrec + recsize)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: sendrec and recvrec overlap (no "
                            "in-place form)", rtopo__coll_name(op));
    if (got && recvrec && (char *)got + sizeof(*got) > (char *)recvrec &&
        (char *)got < (char *)recvrec + recsize)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: got lies inside recvrec",
                            rtopo__coll_name(op));
    return rtopo__coll_call_aux(t, &c, sendrec, recvrec, in,
                                op == RTOPO__COLL_CONCENTRATE ? sizeof(int) : sizeof(int64_t),
                                got, sizeof(int), how, req);
}

/* ---- BPC permutations --------------------------------------------------- */

static int rtopo__bpc_init_coll(rtopo_topo_t *t, const char *vector, rtopo__coll_t *c)
{
    int st = rtopo__coll_live(t), k;

    if (st)
        return st;
    for (k = 0; k < 31 && (1 << k) < t->desc.p; k++)
        ;
    if ((1 << k) != t->desc.p || t->desc.host)
        return rtopo__error(RTOPO_ERR_INVAL, "bpc: the topology has %d ranks; a BPC "
                            "permutation needs a power of two (no host outside the cube)",
                            t->desc.p);
    return rtopo__bpc_parse(vector, k, c);
}

static int rtopo__bpc(rtopo_topo_t *t, const char *vector, const void *sendbuf,
                      void *recvbuf, size_t bytes, int how, rtopo_req_t **req)
{
    rtopo__coll_t c = { .op = RTOPO__COLL_BPC, .count = bytes, .esize = 1, .chunks = 1 };
    int st = rtopo__bpc_init_coll(t, vector, &c);

    if (st)
        return st;
    if (sendbuf && recvbuf && sendbuf == recvbuf && bytes)
        return rtopo__error(RTOPO_ERR_INVAL, "bpc: sendbuf and recvbuf are the same buffer "
                            "(no in-place form)");
    return rtopo__coll_call(t, &c, sendbuf, recvbuf, how, req);
}

int rtopo_bpc_dest(rtopo_topo_t *t, const char *vector, int rank)
{
    rtopo__coll_t c = { .op = RTOPO__COLL_BPC };
    int st = rtopo__bpc_init_coll(t, vector, &c);

    if (st)
        return st;
    if (rank < 0 || rank >= t->desc.p)
        return rtopo__error(RTOPO_ERR_INVAL, "bpc: rank %d is not in 0..%d", rank,
                            t->desc.p - 1);
    return rtopo__bpc_dest(&c, rank);
}

/* ---- sort ---------------------------------------------------------------- */

static int rtopo__sort(rtopo_topo_t *t, const void *sendbuf, void *recvbuf, size_t count,
                       size_t recsize, rtopo_datatype_t keytype, int descending, int how,
                       rtopo_req_t **req)
{
    rtopo__coll_t c = { .op = RTOPO__COLL_SORT, .dtype = keytype, .count = count,
                        .esize = recsize, .desc = descending != 0, .chunks = 1 };

    if ((int)keytype < RTOPO_INT32 || keytype > RTOPO_DOUBLE)
        return rtopo__error(RTOPO_ERR_INVAL, "sort: key type %d is not one of RTOPO_INT32, "
                            "RTOPO_INT64, RTOPO_FLOAT, RTOPO_DOUBLE", (int)keytype);
    if (recsize < rtopo__dtype_size(keytype) || recsize > ((size_t)1 << 30))
        return rtopo__error(RTOPO_ERR_INVAL, "sort: records of %zu bytes cannot hold a %zu-byte "
                            "key (1 GiB at most)", recsize, rtopo__dtype_size(keytype));
    /* in place is recvbuf == sendbuf; any other overlap is refused (the
     * size limit itself is checked with the call) */
    if (sendbuf && recvbuf && sendbuf != recvbuf && count &&
        count <= ((uint64_t)1 << 46) / recsize &&
        (const char *)sendbuf < (const char *)recvbuf + count * recsize &&
        (const char *)recvbuf < (const char *)sendbuf + count * recsize)
        return rtopo__error(RTOPO_ERR_INVAL, "sort: sendbuf and recvbuf overlap without "
                            "being the same buffer (in place: recvbuf == sendbuf)");
    return rtopo__coll_call(t, &c, sendbuf, recvbuf, how, req);
}


/* ---- the public calls: blocking, nonblocking and persistent from one
 * definition each (call_forms.h) ------------------------------------------ */

RTOPO__CALL_FORMS(bcast, rtopo__bcast,
                  (rtopo_topo_t *t, void *buf, size_t count, rtopo_datatype_t dtype, int root),
                  (t, buf, count, dtype, root))
RTOPO__CALL_FORMS(allreduce, rtopo__reduce,
                  (rtopo_topo_t *t, const void *sendbuf, void *recvbuf, size_t count,
                   rtopo_datatype_t dtype, rtopo_op_t op),
                  (t, RTOPO__COLL_ALLREDUCE, sendbuf, recvbuf, count, dtype, op))
RTOPO__CALL_FORMS(scan, rtopo__reduce,
                  (rtopo_topo_t *t, const void *sendbuf, void *recvbuf, size_t count,
                   rtopo_datatype_t dtype, rtopo_op_t op),
                  (t, RTOPO__COLL_SCAN, sendbuf, recvbuf, count, dtype, op))
RTOPO__CALL_FORMS(window_bcast, rtopo__window_bcast,
                  (rtopo_topo_t *t, void *buf, size_t count, rtopo_datatype_t dtype,
                   int group, int w),
                  (t, buf, count, dtype, group, w))
RTOPO__CALL_FORMS(shift_fill, rtopo__line,
                  (rtopo_topo_t *t, int dim, const void *sendbuf, void *recvbuf, size_t bytes,
                   int disp),
                  (t, RTOPO__COLL_SHIFT_FILL, dim, sendbuf, recvbuf, bytes, -1, 0, disp, 0))
RTOPO__CALL_FORMS(accumulate, rtopo__line,
                  (rtopo_topo_t *t, int dim, const void *sendbuf, void *recvbuf, size_t bytes,
                   int m),
                  (t, RTOPO__COLL_ACCUMULATE, dim, sendbuf, recvbuf, bytes, -1, 0, 0, m))
RTOPO__CALL_FORMS(adjacent_sum, rtopo__line,
                  (rtopo_topo_t *t, int dim, const void *sendbuf, void *recvbuf, size_t count,
                   rtopo_datatype_t dtype, rtopo_op_t op, int m),
                  (t, RTOPO__COLL_ADJACENT_SUM, dim, sendbuf, recvbuf, count, dtype, op, 0, m))
RTOPO__CALL_FORMS(consecutive_sum, rtopo__line,
                  (rtopo_topo_t *t, int dim, const void *sendbuf, void *recvbuf, size_t count,
                   rtopo_datatype_t dtype, rtopo_op_t op, int m),
                  (t, RTOPO__COLL_CONSEC_SUM, dim, sendbuf, recvbuf, count, dtype, op, 0, m))
RTOPO__CALL_FORMS(select_rank, rtopo__select_rank,
                  (rtopo_topo_t *t, const int *selected, int64_t *rank),
                  (t, selected, rank))
RTOPO__CALL_FORMS(concentrate, rtopo__route,
                  (rtopo_topo_t *t, const void *sendrec, const int *selected, void *recvrec,
                   size_t recsize, int *got),
                  (t, RTOPO__COLL_CONCENTRATE, sendrec, selected, recvrec, recsize, got))
RTOPO__CALL_FORMS(distribute, rtopo__route,
                  (rtopo_topo_t *t, const void *sendrec, const int64_t *dest, void *recvrec,
                   size_t recsize, int *got),
                  (t, RTOPO__COLL_DISTRIBUTE, sendrec, dest, recvrec, recsize, got))
RTOPO__CALL_FORMS(generalize, rtopo__route,
                  (rtopo_topo_t *t, const void *sendrec, const int64_t *dest, void *recvrec,
                   size_t recsize, int *got),
                  (t, RTOPO__COLL_GENERALIZE, sendrec, dest, recvrec, recsize, got))
RTOPO__CALL_FORMS(random_write, rtopo__route,
                  (rtopo_topo_t *t, const void *sendrec, const int64_t *dest, void *recvrec,
                   size_t recsize, int *got),
                  (t, RTOPO__COLL_RANDOM_WRITE, sendrec, dest, recvrec, recsize, got))
RTOPO__CALL_FORMS(random_read, rtopo__route,
                  (rtopo_topo_t *t, const void *sendrec, const int64_t *src, void *recvrec,
                   size_t recsize, int *got),
                  (t, RTOPO__COLL_RANDOM_READ, sendrec, src, recvrec, recsize, got))
RTOPO__CALL_FORMS(bpc, rtopo__bpc,
                  (rtopo_topo_t *t, const char *vector, const void *sendbuf, void *recvbuf,
                   size_t bytes),
                  (t, vector, sendbuf, recvbuf, bytes))
RTOPO__CALL_FORMS(sort, rtopo__sort,
                  (rtopo_topo_t *t, const void *sendbuf, void *recvbuf, size_t count,
                   size_t recsize, rtopo_datatype_t keytype, int descending),
                  (t, sendbuf, recvbuf, count, recsize, keytype, descending))
