/*
 * bench_raw.c - the raw transport baseline of rtopo-bench and
 * rtopo-bench-mpi (bench_raw.h).
 */
#include "config.h"
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "bench_raw.h"

int bench_raw_open(bench_raw_t *r, rtopo_ctx_t *ctx, long q, rtopo_mem_t *smem,
                   rtopo_mem_t *rmem)
{
    int p = rtopo__tool_size(ctx), me = rtopo__tool_rank(ctx);
    rtopo__rkey_t mine = rtopo__tool_mem_rkey(rmem);

    r->ctx = ctx;
    rtopo__tool_raw(ctx, &r->tl);
    r->smem = smem;
    r->rmem = rmem;
    r->sbuf = rtopo__tool_mem_buf(smem);
    r->rbuf = rtopo__tool_mem_buf(rmem);
    r->smr = rtopo__tool_mem_mr(smem);
    r->dst = (int)(((me + q) % p + p) % p);
    r->src = (int)(((me - q) % p + p) % p);
    r->done = r->imm = r->writes = r->rounds = 0;
    r->what = "rkey exchange";
    r->rkeys = malloc(sizeof(*r->rkeys) * (size_t)p);
    if (!r->rkeys)
        return RTOPO_ERR_NOMEM;
    if (rtopo__tool_allgather(ctx, &mine, r->rkeys, sizeof(mine))) {
        free(r->rkeys);
        r->rkeys = NULL;
        return RTOPO_ERR_BOOTSTRAP;
    }
    return RTOPO_OK;
}

void bench_raw_peers(bench_raw_t *r, int dst, int src)
{
    r->dst = dst;
    r->src = src;
}

int bench_raw_begin(bench_raw_t *r)
{
    r->done = r->imm = r->writes = r->rounds = 0;
    if (r->dst != r->tl.rank)
        rtopo__tool_connect(r->ctx, r->dst);
    if (r->src != r->tl.rank)
        rtopo__tool_connect(r->ctx, r->src);
    return RTOPO_OK;
}

/* Counts completions: an incoming write of the next round may arrive
 * before this rank's own write of this round completed. */
static int raw_poll(bench_raw_t *r, int block)
{
    const rtopo__tool_raw_t *tl = &r->tl;
    rtopo__tl_event_t ev[32];
    int n, i;

    n = tl->ops->poll(tl->tl, ev, 32);
    if (n < 0) {
        r->what = "raw poll";
        return n;
    }
    for (i = 0; i < n; i++) {
        if (ev[i].type == RTOPO__TL_EV_WRITE_DONE) {
            r->done++;
        } else if (ev[i].type == RTOPO__TL_EV_IMM) {
            r->imm++;
        } else if (ev[i].type == RTOPO__TL_EV_ERROR) {
            snprintf(r->msg, sizeof(r->msg), "%s", ev[i].msg[0] ? ev[i].msg : "raw write");
            r->what = r->msg;
            return ev[i].status ? ev[i].status : RTOPO_ERR_TRANSPORT;
        }
    }
    if (n == 0 && block)
        tl->ops->wait(tl->tl, 20);
    else if (n == 0 && tl->yield_idle)
        sched_yield();    /* as the engine's waits do */
    return RTOPO_OK;
}

/* waits for the expected local write completions and incoming writes,
 * spinning then blocking as the engine does (RTOPO_WAIT=poll: spinning;
 * more ranks than processors: yielding after each empty poll) */
static int raw_wait(bench_raw_t *r)
{
    uint64_t last = rtopo__now_ns(), spin = r->tl.spin_ns;
    long before;
    int st;

    while (r->done < r->writes || r->imm < r->rounds) {
        before = r->done + r->imm;
        if ((st = raw_poll(r, !r->tl.poll_only && rtopo__now_ns() - last > spin)))
            return st;
        if (r->done + r->imm != before)
            last = rtopo__now_ns();
    }
    return RTOPO_OK;
}

int bench_raw_round(bench_raw_t *r, size_t bytes, uint32_t tag)
{
    const rtopo__tool_raw_t *tl = &r->tl;
    size_t off = 0, piece, unit = rtopo__tl_write_unit(tl->attr);
    int st;

    if (r->dst == tl->rank) {   /* a line that does not move */
        memcpy(r->rbuf, r->sbuf, bytes);
        return RTOPO_OK;
    }
    /* writes above the transport's limit, or its preferred write size,
     * go in pieces as the engine posts them, the last one carrying the
     * immediate */
    do {
        piece = bytes - off < unit ? bytes - off : unit;
        while ((st = tl->ops->write(tl->tl, r->dst, r->sbuf + off, piece, r->smr,
                                    &r->rkeys[r->dst], off, tag,
                                    off + piece == bytes ? RTOPO__TL_IMM : 0,
                                    NULL)) == RTOPO_ERR_BUSY)
            if ((st = raw_poll(r, 0)))   /* connection still being set up */
                return st;
        if (st) {
            r->what = "raw write";
            return st;
        }
        off += piece;
        r->writes++;
    } while (off < bytes);
    r->rounds++;
    return raw_wait(r);
}

/* posts `bytes` from local offset `soff` to offset 0 of job rank dst's
 * region, in pieces, the last one with the immediate */
static int raw_post(bench_raw_t *r, int dst, size_t soff, size_t bytes, uint32_t tag)
{
    const rtopo__tool_raw_t *tl = &r->tl;
    size_t off = 0, piece, unit = rtopo__tl_write_unit(tl->attr);
    int st;

    do {
        piece = bytes - off < unit ? bytes - off : unit;
        while ((st = tl->ops->write(tl->tl, dst, r->sbuf + soff + off, piece, r->smr,
                                    &r->rkeys[dst], off, tag,
                                    off + piece == bytes ? RTOPO__TL_IMM : 0,
                                    NULL)) == RTOPO_ERR_BUSY)
            if ((st = raw_poll(r, 0)))   /* queue full, or connection being set up */
                return st;
        if (st) {
            r->what = "raw write";
            return st;
        }
        off += piece;
        r->writes++;
    } while (off < bytes);
    return RTOPO_OK;
}

int bench_raw_scatter_begin(bench_raw_t *r, int root, const int *node, int nnodes)
{
    int i;

    r->done = r->imm = r->writes = r->rounds = 0;
    for (i = 0; i < nnodes; i++)
        if (node[i] != root && (r->tl.rank == root || r->tl.rank == node[i]))
            rtopo__tool_connect(r->ctx, r->tl.rank == root ? node[i] : root);
    return RTOPO_OK;
}

int bench_raw_scatter_round(bench_raw_t *r, int root, const int *node, int nnodes,
                            size_t bytes, size_t stride, uint32_t tag)
{
    int i, st, me = r->tl.rank;

    if (me == root) {
        for (i = 0; i < nnodes; i++) {
            if (node[i] == me)
                memcpy(r->rbuf, r->sbuf + (size_t)i * stride, bytes);
            else if (bytes && (st = raw_post(r, node[i], (size_t)i * stride, bytes, tag)))
                return st;
        }
    } else if (bytes) {
        r->rounds++;
    }
    return raw_wait(r);
}

void bench_raw_close(bench_raw_t *r)
{
    free(r->rkeys);
    r->rkeys = NULL;
}

/* ---- the headers --------------------------------------------------------- */

const char *bench_buffers_desc(const rtopo_ctx_t *ctx, int unreg, char *buf, size_t len)
{
    rtopo__tool_state_t st;

    rtopo__tool_state(ctx, &st);
    if (!unreg)
        snprintf(buf, len, "registered buffers");
    else if (!st.reg_op_min)
        snprintf(buf, len, "unregistered buffers (staged)");
    else if (st.reg_op_min == 1)
        snprintf(buf, len, "unregistered buffers (registered for each operation%s)",
                 st.rcache_on ? ", the registration cached" : "");
    else
        snprintf(buf, len, "unregistered buffers (registered for each operation from %zu "
                 "bytes up, %ssmaller ones staged)", st.reg_op_min,
                 st.rcache_on ? "the registration cached, " : "");
    return buf;
}

/* ---- the data of the collectives ---------------------------------------- */

int bench_parse_pair(const char *s, const char *a, const char *b)
{
    int mask = 0;
    size_t n;

    while (*s) {
        n = strcspn(s, ",");
        if (n == strlen(a) && !strncmp(s, a, n))
            mask |= 1;
        else if (n == strlen(b) && !strncmp(s, b, n))
            mask |= 2;
        else
            return -1;
        s += n;
        if (*s == ',')
            s++;
    }
    return mask;
}

int bench_coll_dtype_parse(const char *s)
{
    return !strcmp(s, "int64") ? RTOPO_INT64 : !strcmp(s, "double") ? RTOPO_DOUBLE : -1;
}

const char *bench_coll_dtype_name(int dt)
{
    return dt == RTOPO_INT64 ? "int64" : dt == RTOPO_DOUBLE ? "double" : "?";
}

static const char *const coll_rops[] = { "sum", "prod", "min", "max" };

int bench_coll_rop_parse(const char *s)
{
    int i;

    for (i = 0; i < 4; i++)
        if (!strcmp(s, coll_rops[i]))
            return RTOPO_SUM + i;
    return -1;
}

const char *bench_coll_rop_name(int rop)
{
    return rop >= RTOPO_SUM && rop <= RTOPO_MAX ? coll_rops[rop - RTOPO_SUM] : "?";
}

/* the calls, blocking (req NULL) or persistent */
static int coll_call_bcast(rtopo_topo_t *t, const void *sb, void *rb, size_t count,
                           rtopo_datatype_t d, rtopo_op_t o, int root, rtopo_req_t **req)
{
    return req ? rtopo_bcast_init(t, rb, count, d, root, req) :
           rtopo_bcast(t, rb, count, d, root);
}

static int coll_call_allreduce(rtopo_topo_t *t, const void *sb, void *rb, size_t count,
                               rtopo_datatype_t d, rtopo_op_t o, int root, rtopo_req_t **req)
{
    return req ? rtopo_allreduce_init(t, sb, rb, count, d, o, req) :
           rtopo_allreduce(t, sb, rb, count, d, o);
}

static int coll_call_scan(rtopo_topo_t *t, const void *sb, void *rb, size_t count,
                          rtopo_datatype_t d, rtopo_op_t o, int root, rtopo_req_t **req)
{
    return req ? rtopo_scan_init(t, sb, rb, count, d, o, req) :
           rtopo_scan(t, sb, rb, count, d, o);
}

static const bench_coll_t bench_colls[] = {
    { RTOPO__COLL_BCAST, "rtopo_bcast", "rtopo_bcast_init", "MPI_Bcast", coll_call_bcast },
    { RTOPO__COLL_ALLREDUCE, "rtopo_allreduce", "rtopo_allreduce_init", "MPI_Allreduce",
      coll_call_allreduce },
    { RTOPO__COLL_SCAN, "rtopo_scan", "rtopo_scan_init", "MPI_Scan", coll_call_scan },
};

const bench_coll_t *bench_coll_entry(int op)
{
    size_t i;

    for (i = 0; i < sizeof(bench_colls) / sizeof(bench_colls[0]); i++)
        if (bench_colls[i].op == op)
            return &bench_colls[i];
    return NULL;
}

int bench_coll_op_parse(const char *s)
{
    int op = rtopo__coll_parse(s);

    return bench_coll_entry(op) ? op : -1;
}

/* element k of rank r's send data */
static int64_t coll_value(int op, int rop, int r, size_t k)
{
    if (op == RTOPO__COLL_BCAST)
        return (int64_t)((k * 40503u + (size_t)r * 977u) % 1000003u) - 500001;
    if (rop == RTOPO_PROD)
        return ((size_t)r + k) % 3 ? 1 : -1;
    return (int64_t)(((size_t)r * 131u + k * 7u) % 1024u) - 512;
}

static void coll_store(int dt, void *buf, size_t k, int64_t v)
{
    if (dt == RTOPO_DOUBLE)
        ((double *)buf)[k] = (double)v;
    else
        ((int64_t *)buf)[k] = v;
}

void bench_coll_fill(int op, int dt, int rop, int r, void *buf, size_t count)
{
    size_t k;

    for (k = 0; k < count; k++)
        coll_store(dt, buf, k, coll_value(op, rop, r, k));
}

void bench_coll_expect(int op, int dt, int rop, int r, int p, int root, void *buf,
                       size_t count)
{
    int j, last = op == RTOPO__COLL_SCAN ? r : p - 1;
    size_t k;
    int64_t acc, v;

    if (op == RTOPO__COLL_BCAST) {
        bench_coll_fill(op, dt, rop, root, buf, count);
        return;
    }
    /* exact in int64 and in double: the values are small */
    for (k = 0; k < count; k++) {
        acc = coll_value(op, rop, 0, k);
        for (j = 1; j <= last; j++) {
            v = coll_value(op, rop, j, k);
            acc = rop == RTOPO_SUM ? acc + v : rop == RTOPO_PROD ? acc * v :
                  rop == RTOPO_MIN ? (v < acc ? v : acc) : (v > acc ? v : acc);
        }
        coll_store(dt, buf, k, acc);
    }
}

double bench_coll_elem(int dt, const void *buf, size_t k)
{
    return dt == RTOPO_DOUBLE ? ((const double *)buf)[k] : (double)((const int64_t *)buf)[k];
}

size_t bench_coll_diff(int dt, const void *got, const void *want, size_t count)
{
    size_t k;

    for (k = 0; k < count; k++)
        if (dt == RTOPO_DOUBLE ? ((const double *)got)[k] != ((const double *)want)[k] :
            ((const int64_t *)got)[k] != ((const int64_t *)want)[k])
            return k;
    return count;
}

int bench_coll_call(rtopo_topo_t *t, int op, const void *sb, void *rb, size_t count,
                    int dt, int rop, int root, rtopo_req_t **req)
{
    const bench_coll_t *b = bench_coll_entry(op);

    /* (another op: the scan, as before the table) */
    return (b ? b : bench_coll_entry(RTOPO__COLL_SCAN))->call(t, sb, rb, count,
                                                         (rtopo_datatype_t)dt,
                                                         (rtopo_op_t)rop, root, req);
}
