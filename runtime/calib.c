/*
 * calib.c - the cost model a topology's "auto" choices use.
 *
 * RTOPO_MODEL selects it: "auto" (the default) measures the transport,
 * "default" takes the built-in constants, and a KEY=VALUE list
 * (topo/model.c) sets parameters over those constants without measuring.
 *
 * Measuring is collective: when a topology is created and the model of
 * its pairs is not known yet, its label-0 rank times round trips of 8
 * bytes and of RTOPO__CAL_BIG bytes through the executor (so the start-up
 * includes what every operation pays: control messages, the window
 * handshake), to label 1 (node to node: the overlay classes and DIRECT)
 * and, on a topology with a host outside the cube, to the host (the HOST
 * class).
 * It takes ts as half the small round trip and tw from the difference,
 * then sends the figures to every rank of the topology, so every rank
 * holds the same model and makes the same choice.  Figures are kept per
 * role (node to node, host to node) and kind of pair (both ranks on one
 * machine, or on two), so a job measures each once; every topology takes
 * its classes from the roles and kinds of its own pairs.  On the OTIS
 * topologies the OTIS class has a kind of its own when groups 0 and 1 lie
 * on different machines (placement puts each group on one where it can):
 * label 0 then also times label n.  A topology whose
 * ranks all share one machine gets lanes = 1: its transfers are memory
 * copies by the same processors, which the measured pairs do not show
 * competing (on two cores, the host writing every window itself beats
 * forwarding through sub-cube roots, which independent links would
 * predict the other way round).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calib.h"
#include "exec.h"
#include "req.h"
#include "mem.h"

#define RTOPO__CAL_SMALL 8
#define RTOPO__CAL_BIG (256 * 1024)
#define RTOPO__CAL_ITERS_SMALL 21
#define RTOPO__CAL_ITERS_BIG 7
#define RTOPO__CAL_TAG (-0x6d6f64656cll)   /* schedules of the measurement */

int rtopo__model_load(rtopo_ctx_t *ctx)
{
    const char *v = ctx->params.model;
    int st;

    rtopo__model_default(&ctx->model);
    ctx->model.chunk = ctx->params.chunk_size;
    ctx->model_measure = !strcmp(v, "auto");
    if (ctx->model_measure || !strcmp(v, "default"))
        return RTOPO_OK;
    st = rtopo__model_parse(v, &ctx->model);
    if (st) {
        char why[200];

        snprintf(why, sizeof(why), "%s", rtopo_last_error());
        return rtopo__error(st, "RTOPO_MODEL=%s: %s (or auto, default)", v, why);
    }
    return RTOPO_OK;
}

/* 0: the two job ranks share a host, 1: they do not */
static int rtopo__pair_kind(const rtopo_ctx_t *ctx, int a, int b)
{
    return strcmp(ctx->peers[a].host, ctx->peers[b].host) != 0;
}

/* a's SEND -> b's RECV, then back from b's RECV into a's RECV */
static int rtopo__cal_pingpong(const rtopo_topo_t *t, int a, int b, size_t n,
                               rtopo__sched_t **s_p)
{
    rtopo__sched_t *s;
    int st = rtopo__sched_alloc(&t->desc, 2, 2, &s);

    if (st)
        return st;
    s->xfers[0] = (rtopo__xfer_t){ .src = a, .dst = b, .src_buf = RTOPO__BUF_SEND,
                                   .dst_buf = RTOPO__BUF_RECV, .nhops = 1, .hop0 = 0,
                                   .len = n };
    s->xfers[1] = (rtopo__xfer_t){ .src = b, .dst = a, .src_buf = RTOPO__BUF_RECV,
                                   .dst_buf = RTOPO__BUF_RECV, .nhops = 1, .hop0 = 1,
                                   .len = n };
    s->hops[0] = (rtopo__hop_t){ .to = b, .step = 0, .link = RTOPO__LINK_DIRECT };
    s->hops[1] = (rtopo__hop_t){ .to = a, .step = 1, .link = RTOPO__LINK_DIRECT };
    s->nsteps = 2;
    if ((st = rtopo__sched_deps_infer(s, RTOPO__DEPS_PORT))) {
        rtopo__sched_free(s);
        return st;
    }
    *s_p = s;
    return RTOPO_OK;
}

/* root's SEND[0, n) to every other rank's RECV */
static int rtopo__cal_bcast(const rtopo_topo_t *t, int root, size_t n, rtopo__sched_t **s_p)
{
    rtopo__sched_t *s;
    int p = t->desc.p, st, r;
    uint32_t k = 0;

    if ((st = rtopo__sched_alloc(&t->desc, (uint32_t)p - 1, (uint32_t)p - 1, &s)))
        return st;
    for (r = 0; r < p; r++) {
        if (r == root)
            continue;
        s->xfers[k] = (rtopo__xfer_t){ .src = root, .dst = r, .src_buf = RTOPO__BUF_SEND,
                                       .dst_buf = RTOPO__BUF_RECV, .nhops = 1, .hop0 = k,
                                       .len = n };
        s->hops[k] = (rtopo__hop_t){ .to = r, .step = k, .link = RTOPO__LINK_DIRECT };
        k++;
    }
    s->nsteps = k;
    if ((st = rtopo__sched_deps_infer(s, RTOPO__DEPS_PORT))) {
        rtopo__sched_free(s);
        return st;
    }
    *s_p = s;
    return RTOPO_OK;
}

/* Runs s on every rank of t, iters times, as a plan of the runtime's own
 * (timing each start to completion); the median in *sec_p. */
static int rtopo__cal_run(rtopo_topo_t *t, rtopo__sched_t *s, long tag, size_t n,
                          const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes,
                          int iters, double *sec_p)
{
    rtopo__opdesc_t d;
    rtopo_req_t *req;
    double tm[32];
    int st, i, j;

    rtopo__opdesc_sched(&d, t, tag, n);
    if ((st = rtopo__ctx_enter(t->ctx))) {
        rtopo__sched_free(s);
        return st;
    }
    st = rtopo__req_sched(t, s, &d, sbuf, sbytes, rbuf, rbytes, &req);
    if (st) {
        rtopo__ctx_leave(t->ctx);
        return st;
    }
    req->op.internal = 1;
    for (i = 0; i < iters && i < 32 && !st; i++) {
        uint64_t t0 = rtopo__now_ns();

        st = rtopo__req_run(req);
        tm[i] = (double)(rtopo__now_ns() - t0) * 1e-9;
        for (j = i; j > 0 && tm[j - 1] > tm[j]; j--) {   /* insertion sort */
            double x = tm[j];

            tm[j] = tm[j - 1];
            tm[j - 1] = x;
        }
    }
    rtopo__req_free(req);
    rtopo__ctx_leave(t->ctx);
    if (!st && sec_p)
        *sec_p = tm[(i - 1) / 2];
    return st;
}

/* Round trips a <-> b (labels): ts and tw of the pair, on label a. */
static int rtopo__cal_pair(rtopo_topo_t *t, int a, int b, uint8_t *buf, double *ts_p,
                           double *tw_p)
{
    static const size_t n[2] = { RTOPO__CAL_SMALL, RTOPO__CAL_BIG };
    static const int iters[2] = { RTOPO__CAL_ITERS_SMALL, RTOPO__CAL_ITERS_BIG };
    double rtt[2] = { 0, 0 };
    int i, st, in = t->me == a || t->me == b;

    for (i = 0; i < 2; i++) {
        rtopo__sched_t *s;

        if ((st = rtopo__cal_pingpong(t, a, b, n[i], &s)))
            return st;
        st = rtopo__cal_run(t, s, RTOPO__CAL_TAG - 2 * b - i, n[i], t->me == a ? buf : NULL,
                            t->me == a ? n[i] : 0, in ? buf + RTOPO__CAL_BIG : NULL,
                            in ? n[i] : 0, iters[i], &rtt[i]);
        if (st)
            return st;
    }
    *ts_p = rtt[0] / 2;
    *tw_p = rtt[1] > rtt[0] ? (rtt[1] - rtt[0]) / (2.0 * (double)(n[1] - n[0])) : 0.0;
    return RTOPO_OK;
}

static void rtopo__model_fill(rtopo_topo_t *t, const struct rtopo__calib *c, int is_host_pair)
{
    int k;

    for (k = 0; k < RTOPO__LINK_COUNT; k++) {
        int host = k == RTOPO__LINK_HOST;

        if (k == RTOPO__LINK_LOCAL || host != is_host_pair)
            continue;
        t->model.ts[k] = c->ts;
        t->model.tw[k] = c->tw;
    }
}

static int rtopo__topo_measure(rtopo_topo_t *t)
{
    rtopo_ctx_t *ctx = t->ctx;
    int p = t->desc.p, host = t->desc.host ? p - 1 : -1, st = RTOPO_OK;
    int kn = -1, kh = -1, ko = -1, measure_n, measure_h, measure_o, r;
    struct { double ts[3], tw[3]; } fig;
    struct rtopo_mem *mem = NULL;
    uint8_t *buf = NULL;
    char text[600];

    /* which kinds of pair this topology has, and which are unknown (every
     * rank sees the same job, so every rank decides alike) */
    if (p - (host >= 0) >= 2)
        kn = rtopo__pair_kind(ctx, rtopo__topo_job_rank(t, 0), rtopo__topo_job_rank(t, 1));
    if (host >= 0 && p >= 2)
        kh = rtopo__pair_kind(ctx, rtopo__topo_job_rank(t, 0), t->host);
    /* OTIS links join groups, which placement puts on different hosts
     * where it can (topo_api.c): their class gets the figures of a pair of
     * ranks in groups 0 and 1 when those differ in kind from labels 0, 1 */
    if ((t->desc.kind == RTOPO__TOPO_OTIS_MESH || t->desc.kind == RTOPO__TOPO_OTIS_HYPERCUBE) &&
        t->desc.n >= 2 && kn >= 0) {
        ko = rtopo__pair_kind(ctx, rtopo__topo_job_rank(t, 0),
                              rtopo__topo_job_rank(t, t->desc.n));
        if (ko == kn)
            ko = -1;
    }
    measure_n = kn >= 0 && !ctx->calib[0][kn].valid;
    measure_h = kh >= 0 && !ctx->calib[1][kh].valid;
    measure_o = ko >= 0 && !ctx->calib[0][ko].valid;
    if (measure_n || measure_h || measure_o) {
        memset(&fig, 0, sizeof(fig));
        /* registered, as a user who times their code registers */
        if ((st = rtopo__ctx_enter(ctx)))
            return st;
        st = rtopo__stage_get(ctx, 2 * RTOPO__CAL_BIG, &mem);
        if (!st) {
            mem->scratch = 1;
            buf = mem->buf;
            memset(buf, 0, 2 * RTOPO__CAL_BIG);
        }
        rtopo__ctx_leave(ctx);
        if (st)
            return st;
        if (measure_n)
            st = rtopo__cal_pair(t, 0, 1, buf, &fig.ts[0], &fig.tw[0]);
        if (!st && measure_h)
            st = rtopo__cal_pair(t, 0, host, buf, &fig.ts[1], &fig.tw[1]);
        if (!st && measure_o)
            st = rtopo__cal_pair(t, 0, t->desc.n, buf, &fig.ts[2], &fig.tw[2]);
        if (!st) {
            rtopo__sched_t *s;

            if (t->me == 0)
                memcpy(buf, &fig, sizeof(fig));
            if (!(st = rtopo__cal_bcast(t, 0, sizeof(fig), &s)))
                st = rtopo__cal_run(t, s, RTOPO__CAL_TAG + 1, sizeof(fig),
                                    t->me == 0 ? buf : NULL,
                                    t->me == 0 ? sizeof(fig) : 0,
                                    t->me ? buf + RTOPO__CAL_BIG : NULL,
                                    t->me ? sizeof(fig) : 0, 1, NULL);
            if (!st && t->me)
                memcpy(&fig, buf + RTOPO__CAL_BIG, sizeof(fig));
        }
        rtopo__ctx_enter(ctx);
        mem->scratch = 0;
        if (st)
            mem->in_use = 2;    /* a failed job's peers may still write */
        else
            rtopo__stage_put(mem);
        rtopo__ctx_leave(ctx);
        if (st)
            return st;
        if (measure_n)
            ctx->calib[0][kn] = (struct rtopo__calib){ 1, fig.ts[0], fig.tw[0] };
        if (measure_h)
            ctx->calib[1][kh] = (struct rtopo__calib){ 1, fig.ts[1], fig.tw[1] };
        if (measure_o)
            ctx->calib[0][ko] = (struct rtopo__calib){ 1, fig.ts[2], fig.tw[2] };
    }
    if (kn >= 0) {
        rtopo__model_fill(t, &ctx->calib[0][kn], 0);
        if (kh < 0)     /* HOST: as the nodes' pairs */
            rtopo__model_fill(t, &ctx->calib[0][kn], 1);
    }
    if (kh >= 0)
        rtopo__model_fill(t, &ctx->calib[1][kh], 1);
    if (ko >= 0) {
        t->model.ts[RTOPO__LINK_OTIS] = ctx->calib[0][ko].ts;
        t->model.tw[RTOPO__LINK_OTIS] = ctx->calib[0][ko].tw;
    }
    /* ranks of one machine share its processors and memory: their
     * transfers are copies that do not run side by side at full speed the
     * way transfers on separate links do */
    for (r = 1; r < p && !rtopo__pair_kind(ctx, rtopo__topo_job_rank(t, 0),
                                           rtopo__topo_job_rank(t, r)); r++)
        ;
    if (p > 1 && r == p)
        t->model.lanes = 1;
    if (rtopo__model_str(&t->model, text, sizeof(text)) == 0)
        rtopo__debug("topology %u: model %s%s", t->id, text,
                     measure_n || measure_h || measure_o ? " (measured now)" : "");
    return RTOPO_OK;
}

int rtopo__topo_model(rtopo_topo_t *t)
{
    int st;

    t->model = t->ctx->model;
    if (!t->ctx->model_measure)
        return RTOPO_OK;
    st = rtopo__topo_measure(t);
    /* the caller's operations count from here, on every rank alike */
    t->ctx->tlast[t->id].seq0 = t->next_seq;
    return st;
}
