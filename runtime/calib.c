/*
 * calib.c - the cost model a topology's "auto" choices use.
 *
 * RTOPO_MODEL selects it: "auto" (the default) measures the transport,
 * "default" takes the built-in constants, and a KEY=VALUE list
 * (topo/model.c) sets parameters over those constants without measuring.
 *
 * Measuring is collective: when a topology is created and the model of
 * its pairs is not known yet, its label-0 rank times round trips of 8
 * bytes and streams of RTOPO__CAL_BIG bytes through the executor (so the start-up
 * includes what every operation pays: control messages, the window
 * handshake), to label 1 (node to node: the overlay classes and DIRECT)
 * and, on a topology with a host outside the cube, to the host (the HOST
 * class).
 * It takes ts as half the small round trip and tw from the stream (see
 * rtopo__cal_pair), then sends the figures to every rank of the
 * topology, so every rank holds the same model and makes the same
 * choice.  Figures are kept per role (node to node, host to node) and
 * kind of pair (both ranks on one machine, or on two), so a job measures
 * each once; every topology takes its classes from the roles and kinds
 * of its own pairs.  On the OTIS
 * topologies the OTIS class has a kind of its own when groups 0 and 1 lie
 * on different machines (placement puts each group on one where it can):
 * label 0 then also times label n.
 * A topology whose ranks are on several hosts has a layout (the host of
 * each label): it measures an intra-host pair (the first label, in label
 * order, with a later label on its host, and that label) and an
 * inter-host pair (label 0 and the first label on another host) among
 * its nodes, each kind of pair once per job (the same cache as above:
 * same machine = intra-host), and its model takes them as the intra and
 * inter reach parameters, which cost every hop of its schedules by the
 * hosts of its two ends (HOST hops keep the host link's figures).  Every
 * rank picks the same pairs from the same layout.  A pair measured by a
 * label other than 0 sends its figures to every rank itself.
 * "auto,LIST" measures as "auto" but not what LIST sets: a reach whose
 * intra. or inter. keys it names, the host link when it names host.
 * keys; LIST then applies over the measured model.  A topology whose
 * ranks all share one machine gets lanes = 1: its transfers are memory
 * copies by the same processors, which the measured pairs do not show
 * competing (on two cores, the host writing every window itself beats
 * forwarding through sub-cube roots, which independent links would
 * predict the other way round).
 * A machine with more ranks than processors (label 0's, which it tells
 * every rank, once per job: rtopo__cal_over) is what a quiet pair does
 * not show either: every rank of the first topology then runs a burst
 * (each sends to the next at once, several rounds), label 0 fits the
 * model's tq to its time and tells it; every topology of the job takes
 * that tq, and lanes at most the machine's processors when all its
 * ranks run there (emulated hosts share one machine's processors).
 * "auto,LIST" with tq in LIST times no burst.
 * Label 0 also times the reduction kernel (a sum of 64-bit integers over
 * 64 KiB, rtopo__cal_kern) with the first topology of the job and tells
 * every rank its time per byte along with the above: every topology's
 * model takes it as tk, which weighs the reductions a collective's
 * candidates run (recursive doubling reduces the whole vector at every
 * step, reduce-scatter + allgather a share of it).  "auto,LIST" with tk
 * in LIST times no kernel.  With the kernel, label 0 times a copy inside
 * a rank (the LOCAL class: memmove as the executor runs a local node, of
 * 8 bytes and of 256 KiB, rtopo__cal_copy) and tells ts and tw with tk:
 * every topology's model takes them as the LOCAL class's, which weighs
 * the candidates that copy (the own block of a scatter, the copy Y of an
 * allreduce or a scan, a shift's local moves) against those that send.
 * "auto,LIST" with a local. key in LIST times no copy.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "calib.h"
#include "exec.h"
#include "req.h"
#include "mem.h"
#include "cpus.h"

#define RTOPO__CAL_SMALL 8
#define RTOPO__CAL_BIG (256 * 1024)     /* the stream's messages */
#define RTOPO__CAL_ITERS_MAX 32         /* timed runs of one schedule, at most */
#define RTOPO__CAL_WARM_SMALL 2         /* untimed round trips before the timed */
#define RTOPO__CAL_ITERS_SMALL 21
#define RTOPO__CAL_STREAM 4             /* messages in a row of a stream */
#define RTOPO__CAL_SENDS 16             /* small eager sends in a row (tt) */
#define RTOPO__CAL_WARM_NS 2000000      /* warm-up streams: about 2 ms worth */
#define RTOPO__CAL_WARM_MAX 10
#define RTOPO__CAL_BUDGET_NS 3000000    /* then streams for about 3 ms */
#define RTOPO__CAL_RUNS_MIN 5
#define RTOPO__CAL_RUNS_MAX 16
#define RTOPO__CAL_RUNS_SLOW 3          /* when a run outlasts the budget 10 times */
#define RTOPO__CAL_ROUNDS 4      /* rounds of the burst */
#define RTOPO__CAL_ITERS_BURST 11
#define RTOPO__CAL_KERN (64 * 1024)     /* bytes a timed reduction combines */
#define RTOPO__CAL_ITERS_KERN 21
#define RTOPO__CAL_ITERS_COPY 21
#define RTOPO__CAL_COPY_BATCH 64        /* small copies per timing */
#define RTOPO__CAL_TAG (-0x6d6f64656cll)   /* schedules of the measurement */

/* the list RTOPO_MODEL sets over the constants (after "auto,"), or NULL */
static const char *rtopo__model_list(const rtopo_ctx_t *ctx)
{
    const char *v = ctx->params.model;

    if (!strcmp(v, "auto") || !strcmp(v, "default"))
        return NULL;
    return !strncmp(v, "auto,", 5) ? v + 5 : v;
}

#define RTOPO__KEEP_INTRA 1u
#define RTOPO__KEEP_INTER 2u
#define RTOPO__KEEP_HOST  4u
#define RTOPO__KEEP_TQ    8u
#define RTOPO__KEEP_TK    16u
#define RTOPO__KEEP_LOCAL 32u
#define RTOPO__KEEP_TT    64u

/* what the list sets and measuring must not: RTOPO__KEEP_* bits */
static unsigned rtopo__model_keep(const char *list)
{
    const char *k = list;
    unsigned keep = 0;

    while (k && *k) {
        const char *e = strchr(k, ',');
        size_t n = e ? (size_t)(e - k) : strlen(k);

        if (n > 6 && !strncasecmp(k, "intra.", 6))
            keep |= RTOPO__KEEP_INTRA;
        else if (n > 6 && !strncasecmp(k, "inter.", 6))
            keep |= RTOPO__KEEP_INTER;
        else if (n > 5 && !strncasecmp(k, "host.", 5))
            keep |= RTOPO__KEEP_HOST;
        else if (n > 6 && !strncasecmp(k, "local.", 6))
            keep |= RTOPO__KEEP_LOCAL;
        else if (n > 3 && !strncasecmp(k, "tq=", 3))
            keep |= RTOPO__KEEP_TQ;
        else if (n > 3 && !strncasecmp(k, "tk=", 3))
            keep |= RTOPO__KEEP_TK;
        else if (n > 3 && !strncasecmp(k, "tt=", 3))
            keep |= RTOPO__KEEP_TT;
        k = e ? e + 1 : NULL;
    }
    return keep;
}

int rtopo__model_load(rtopo_ctx_t *ctx)
{
    const char *v = ctx->params.model, *list = rtopo__model_list(ctx);
    int st;

    rtopo__model_default(&ctx->model);
    ctx->model.chunk = ctx->params.chunk_size;
    ctx->model_measure = !strcmp(v, "auto") || !strncmp(v, "auto,", 5);
    if (!list)
        return RTOPO_OK;
    st = rtopo__model_parse(list, &ctx->model);
    if (st) {
        char why[200];

        snprintf(why, sizeof(why), "%s", rtopo_last_error());
        return rtopo__error(st, "RTOPO_MODEL=%s: %s (or auto, default, auto,LIST)", v, why);
    }
    return RTOPO_OK;
}

/* 0: the two job ranks share a host, 1: they do not */
static int rtopo__pair_kind(const rtopo_ctx_t *ctx, int a, int b)
{
    return strcmp(ctx->peers[a].host, ctx->peers[b].host) != 0;
}

/* n timings (sorted here): their median, or with low their minimum */
static double rtopo__cal_pick(double *tm, int n, int low)
{
    int i, j;

    if (n <= 0)
        return 0.0;
    for (i = 1; i < n; i++)     /* insertion sort */
        for (j = i; j > 0 && tm[j - 1] > tm[j]; j--) {
            double x = tm[j];

            tm[j] = tm[j - 1];
            tm[j - 1] = x;
        }
    return tm[low ? 0 : (n - 1) / 2];
}

/* a's SEND -> b's RECV, then back from b's RECV into a's RECV */
static int rtopo__cal_pingpong(const rtopo_topo_t *t, int a, int b, size_t n,
                               rtopo__sched_t **s_p)
{
    rtopo__sched_t *s;
    int st = rtopo__sched_alloc(&t->desc, 2, 2, &s);

    if (st)
        return st;
    if (!st)
        st = rtopo__sched_xset(s, 0, &(rtopo__xfer_t){ .src = a, .dst = b,
                                                       .src_buf = RTOPO__BUF_SEND,
                                                       .dst_buf = RTOPO__BUF_RECV, .nhops = 1,
                                                       .hop0 = 0, .len = n });
    if (!st)
        st = rtopo__sched_xset(s, 1, &(rtopo__xfer_t){ .src = b, .dst = a,
                                                       .src_buf = RTOPO__BUF_RECV,
                                                       .dst_buf = RTOPO__BUF_RECV, .nhops = 1,
                                                       .hop0 = 1, .len = n });
    s->hops[0] = (rtopo__hop_t){ .to = b, .step = 0, .link = RTOPO__LINK_DIRECT };
    s->hops[1] = (rtopo__hop_t){ .to = a, .step = 1, .link = RTOPO__LINK_DIRECT };
    s->nsteps = 2;
    if (st || (st = rtopo__sched_deps_infer(s, RTOPO__DEPS_PORT))) {
        rtopo__sched_free(s);
        return st;
    }
    *s_p = s;
    return RTOPO_OK;
}

/* a's SEND[0, n) to b's RECV[0, n), k times one after the other, then
 * (answer) 8 bytes of b's RECV back into a's RECV: a stream of k messages */
static int rtopo__cal_stream_x(const rtopo_topo_t *t, int a, int b, size_t n, int k,
                               int answer, rtopo__sched_t **s_p)
{
    rtopo__sched_t *s;
    int st = rtopo__sched_alloc(&t->desc, (uint32_t)(k + answer), (uint32_t)(k + answer), &s);
    int i;

    if (st)
        return st;
    for (i = 0; i < k + answer; i++) {
        rtopo__xfer_t x = i < k ?
            (rtopo__xfer_t){ .src = a, .dst = b, .src_buf = RTOPO__BUF_SEND,
                             .dst_buf = RTOPO__BUF_RECV, .nhops = 1, .hop0 = (uint32_t)i,
                             .len = n } :
            (rtopo__xfer_t){ .src = b, .dst = a, .src_buf = RTOPO__BUF_RECV,
                             .dst_buf = RTOPO__BUF_RECV, .nhops = 1, .hop0 = (uint32_t)i,
                             .len = RTOPO__CAL_SMALL };

        if (!st)
            st = rtopo__sched_xset(s, (uint32_t)i, &x);
        s->hops[i] = (rtopo__hop_t){ .to = i < k ? b : a, .step = (uint32_t)i,
                                     .link = RTOPO__LINK_DIRECT };
    }
    s->nsteps = (uint32_t)(k + answer);
    if (st || (st = rtopo__sched_deps_infer(s, RTOPO__DEPS_PORT))) {
        rtopo__sched_free(s);
        return st;
    }
    *s_p = s;
    return RTOPO_OK;
}

static int rtopo__cal_stream(const rtopo_topo_t *t, int a, int b, size_t n, int k,
                             rtopo__sched_t **s_p)
{
    return rtopo__cal_stream_x(t, a, b, n, k, 1, s_p);
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
        if (!st)
            st = rtopo__sched_xset(s, k, &(rtopo__xfer_t){ .src = root, .dst = r,
                                                           .src_buf = RTOPO__BUF_SEND,
                                                           .dst_buf = RTOPO__BUF_RECV,
                                                           .nhops = 1, .hop0 = k, .len = n });
        s->hops[k] = (rtopo__hop_t){ .to = r, .step = k, .link = RTOPO__LINK_DIRECT };
        k++;
    }
    s->nsteps = k;
    if (st || (st = rtopo__sched_deps_infer(s, RTOPO__DEPS_PORT))) {
        rtopo__sched_free(s);
        return st;
    }
    *s_p = s;
    return RTOPO_OK;
}

/* The burst: every label r < pn sends 8 bytes to label r + 1 (mod pn),
 * k rounds, each round's from what the round before brought (SEND[0, 8)
 * first, then RECV[8 (i - 1), 8 i) into RECV[8 i, 8 (i + 1))): every rank
 * sends and receives at once, k times in a row. */
static int rtopo__cal_burst(const rtopo__tdesc_t *desc, int pn, int k, rtopo__sched_t **s_p)
{
    rtopo__sched_t *s;
    uint32_t n = (uint32_t)pn * (uint32_t)k, x;
    int st = rtopo__sched_alloc(desc, n, n, &s), i, r;

    if (st)
        return st;
    for (i = 0; i < k; i++)
        for (r = 0; r < pn; r++) {
            x = (uint32_t)i * (uint32_t)pn + (uint32_t)r;
            if (!st)
                st = rtopo__sched_xset(s, x, &(rtopo__xfer_t){
                    .src = r, .dst = (r + 1) % pn,
                    .src_buf = i ? RTOPO__BUF_RECV : RTOPO__BUF_SEND,
                    .src_off = i ? (uint64_t)(i - 1) * 8 : 0, .dst_buf = RTOPO__BUF_RECV,
                    .dst_off = (uint64_t)i * 8, .nhops = 1, .hop0 = x,
                    .len = RTOPO__CAL_SMALL });
            s->hops[x] = (rtopo__hop_t){ .to = (r + 1) % pn, .step = (uint32_t)i,
                                         .link = RTOPO__LINK_DIRECT };
        }
    s->nsteps = (uint32_t)k;
    if (st || (st = rtopo__sched_deps_infer(s, RTOPO__DEPS_PORT))) {
        rtopo__sched_free(s);
        return st;
    }
    *s_p = s;
    return RTOPO_OK;
}

/* Enters t's context and makes the request that runs s (as a plan of the
 * runtime's own) with these buffers; on failure s is freed and the
 * context left. */
static int rtopo__cal_req(rtopo_topo_t *t, rtopo__sched_t *s, long tag, size_t n,
                          const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes,
                          rtopo_req_t **req_p)
{
    rtopo__opdesc_t d;
    int st;

    rtopo__opdesc_sched(&d, t, tag, n);
    if ((st = rtopo__ctx_enter(t->ctx))) {
        rtopo__sched_free(s);
        return st;
    }
    if ((st = rtopo__req_sched(t, s, &d, sbuf, sbytes, rbuf, rbytes, req_p))) {
        rtopo__ctx_leave(t->ctx);
        return st;
    }
    (*req_p)->op.internal = 1;
    return RTOPO_OK;
}

/* Runs req count times, each run's time from start to completion in
 * tm[0..count); returns at the first failure. */
static int rtopo__cal_times(rtopo_req_t *req, int count, double *tm)
{
    int st = RTOPO_OK, i;

    for (i = 0; i < count && !st; i++) {
        uint64_t t0 = rtopo__now_ns();

        st = rtopo__req_run(req);
        tm[i] = (double)(rtopo__now_ns() - t0) * 1e-9;
    }
    return st;
}

/* Runs s on every rank of t, warm times untimed, then iters times (at
 * most RTOPO__CAL_ITERS_MAX) timing each start to completion, as a plan of
 * the runtime's own; in *sec_p the median of the timed runs, or with low
 * the shortest; in *min_p (may be NULL) the shortest. */
static int rtopo__cal_run(rtopo_topo_t *t, rtopo__sched_t *s, long tag, size_t n,
                          const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes,
                          int warm, int iters, int low, double *sec_p, double *min_p)
{
    rtopo_req_t *req;
    double tm[RTOPO__CAL_ITERS_MAX];
    int st, i;

    if ((st = rtopo__cal_req(t, s, tag, n, sbuf, sbytes, rbuf, rbytes, &req)))
        return st;
    for (i = 0; i < warm && !st; i++)
        st = rtopo__req_run(req);
    if (iters > RTOPO__CAL_ITERS_MAX)
        iters = RTOPO__CAL_ITERS_MAX;
    if (!st)
        st = rtopo__cal_times(req, iters, tm);
    rtopo__req_free(req);
    rtopo__ctx_leave(t->ctx);
    if (!st && sec_p)
        *sec_p = rtopo__cal_pick(tm, iters, low);
    if (!st && sec_p && min_p)
        *min_p = tm[0];     /* sorted by the pick */
    return st;
}

static int rtopo__cal_tell(rtopo_topo_t *t, int r, long tag, uint8_t *buf, size_t n);

/* The stream of rtopo__cal_pair, a -> b: RTOPO__CAL_STREAM messages of
 * RTOPO__CAL_BIG bytes, answered by 8 bytes; on label a, the shortest of
 * its runs (*sec_p) and how many ran (*runs_p).  It runs twice first;
 * label a decides from the shorter of the two how many more runs warm the
 * link up (RTOPO__CAL_WARM_NS worth, at most RTOPO__CAL_WARM_MAX) and
 * how many follow them in RTOPO__CAL_BUDGET_NS (RTOPO__CAL_RUNS_MIN to
 * RTOPO__CAL_RUNS_MAX; RTOPO__CAL_RUNS_SLOW on a link that takes ten
 * budgets a run), and tells every rank (every rank of t runs every run,
 * the same number of times).  Every run is timed, the first ones too:
 * a run slowed by a link still warming up, or by other work, is never
 * the shortest unless every other run was slowed as much. */
static int rtopo__cal_streams(rtopo_topo_t *t, int a, int b, uint8_t *buf, long tag,
                              double *sec_p, int *runs_p)
{
    rtopo__sched_t *s = NULL;
    rtopo_req_t *req = NULL;
    double tm[2 + RTOPO__CAL_WARM_MAX + RTOPO__CAL_RUNS_MAX];
    int32_t plan[2] = { 0, 0 };         /* warm-up runs, runs after them */
    int in = t->me == a || t->me == b, st, i, n = 2;

    if ((st = rtopo__cal_stream(t, a, b, RTOPO__CAL_BIG, RTOPO__CAL_STREAM, &s)))
        return st;
    if ((st = rtopo__cal_req(t, s, tag, RTOPO__CAL_BIG, t->me == a ? buf : NULL,
                             t->me == a ? RTOPO__CAL_BIG : 0, in ? buf + RTOPO__CAL_BIG : NULL,
                             in ? RTOPO__CAL_BIG : 0, &req)))
        return st;
    /* the probe: two runs */
    st = rtopo__cal_times(req, 2, tm);
    rtopo__ctx_leave(t->ctx);
    if (!st && t->me == a) {
        double r = tm[1] < tm[0] ? tm[1] : tm[0];
        double w = (double)RTOPO__CAL_WARM_NS * 1e-9 / r;
        double k = (double)RTOPO__CAL_BUDGET_NS * 1e-9 / r;

        plan[0] = w < RTOPO__CAL_WARM_MAX ? (int32_t)w : RTOPO__CAL_WARM_MAX;
        /* a link slow enough that a run outlasts the budget ten times (a
         * rate limit; not a busy processor) is timed mostly by its bytes:
         * fewer runs */
        plan[1] = k < 0.1 ? RTOPO__CAL_RUNS_SLOW :
                  k < RTOPO__CAL_RUNS_MIN ? RTOPO__CAL_RUNS_MIN :
                  k > RTOPO__CAL_RUNS_MAX ? RTOPO__CAL_RUNS_MAX : (int32_t)k;
        memcpy(buf, plan, sizeof(plan));
    }
    if (!st)
        st = rtopo__cal_tell(t, a, tag - 1, buf, sizeof(plan));
    if (!st && t->me != a)
        memcpy(plan, buf + RTOPO__CAL_BIG, sizeof(plan));
    if (!st && (plan[0] < 0 || plan[0] > RTOPO__CAL_WARM_MAX ||
                plan[1] < RTOPO__CAL_RUNS_SLOW || plan[1] > RTOPO__CAL_RUNS_MAX))
        st = rtopo__error(RTOPO_ERR_MISMATCH, "calibration: label %d told %d warm-up runs "
                          "and %d more", a, (int)plan[0], (int)plan[1]);
    rtopo__ctx_lock(t->ctx);    /* (live: entered above) */
    if (!st) {
        st = rtopo__cal_times(req, plan[0] + plan[1], tm + 2);
        n += plan[0] + plan[1];
    }
    rtopo__req_free(req);
    rtopo__ctx_leave(t->ctx);
    if (st)
        return st;
    if (t->me == a && RTOPO__LOG_DEBUG <= rtopo__log_level) {
        char text[10 * (2 + RTOPO__CAL_WARM_MAX + RTOPO__CAL_RUNS_MAX) + 1];
        int o = 0;

        for (i = 0; i < n && o < (int)sizeof(text); i++)
            o += snprintf(text + o, sizeof(text) - (size_t)o, " %.0f", tm[i] * 1e6);
        rtopo__debug("pair %d<->%d: stream runs (us, %d to warm up):%s", a, b,
                     2 + (int)plan[0], text);
    }
    *sec_p = rtopo__cal_pick(tm, n, 1);
    *runs_p = n;
    return RTOPO_OK;
}

/* A pair on a machine with more ranks than processors: rt the median and
 * rt_min the shortest round trip of 8 bytes, send what one of
 * RTOPO__CAL_SENDS eager sends in a row costs its sender (the shortest
 * run's share).  ts, what a message holds its sender for, is send but at
 * most half the shortest round trip; tt, the receiver's turn, is the rest
 * of half the median round trip.  Capped by the shortest round trip
 * rather than the median: a send that a loaded machine slowed past half
 * the median round trip (its sender waiting for the processor between
 * sends) would otherwise be all ts and no tt, and the model would charge
 * the receivers' turn to the sender's port, once per message (see
 * rtopo__cal_fit). */
void rtopo__cal_split(double rt, double rt_min, double send, double *ts_p, double *tt_p)
{
    double cap = (rt_min > 0 && rt_min < rt ? rt_min : rt) / 2;

    *ts_p = send < cap ? send : cap;
    *tt_p = rt / 2 - *ts_p;
}

/* Labels a <-> b: ts and tw of the pair, on label a (its debug log tells
 * what they come from).  ts is half the median round trip of 8 bytes
 * (whether the peer is awake on a processor of its own when a message
 * comes splits round trips into two groups an order of magnitude apart
 * on a loaded machine: neither the shortest nor the median is steady
 * there, the median follows the group most round trips fall in); tw comes
 * from a stream of RTOPO__CAL_STREAM messages of RTOPO__CAL_BIG bytes
 * a -> b answered by 8 bytes (rtopo__cal_streams), its shortest time
 * less half the shortest round trip (the answer's; at most a fifth of
 * the stream) over its bytes: what each message of a stream pays to start
 * (a window's handshake, more than the 8 bytes' round trip shows) is
 * spread over its bytes, as it is over the chunks of a long transfer
 * (the stream's messages are of the default chunk size).  A stream, not
 * one message: a link that lets a burst through faster than its rate (a
 * token bucket, a switch's buffer) is timed at the rate a sender that
 * keeps sending gets, as the host of a scatter does.  The shortest, not
 * the median, of many runs, the stream warmed up first: what disturbs a
 * timing (other work on the processors, which may take one of the pair's
 * processors for milliseconds and then leave it; a TCP connection whose
 * buffers still grow over its first MiBs) only adds time, and comes and
 * goes from job to job and within a job. */
static int rtopo__cal_pair(rtopo_topo_t *t, int a, int b, int turn, uint8_t *buf,
                           double *ts_p, double *tw_p, double *tt_p)
{
    long tag = RTOPO__CAL_TAG - 4 * ((long)a * t->desc.p + b);
    double rt = 0, rt_min = 0, big = 0, ans, tw, sends = 0;
    int st, in = t->me == a || t->me == b, runs = 0;
    rtopo__sched_t *s;

    if ((st = rtopo__cal_pingpong(t, a, b, RTOPO__CAL_SMALL, &s)))
        return st;
    st = rtopo__cal_run(t, s, tag, RTOPO__CAL_SMALL, t->me == a ? buf : NULL,
                        t->me == a ? RTOPO__CAL_SMALL : 0, in ? buf + RTOPO__CAL_BIG : NULL,
                        in ? RTOPO__CAL_SMALL : 0, RTOPO__CAL_WARM_SMALL,
                        RTOPO__CAL_ITERS_SMALL, 0, &rt, &rt_min);
    if (!st)
        st = rtopo__cal_streams(t, a, b, buf, tag - 1, &big, &runs);
    /* every rank runs it (only label a's view of turn counts) */
    if (!st && (st = rtopo__cal_stream_x(t, a, b, RTOPO__CAL_SMALL,
                                                 RTOPO__CAL_SENDS, 0, &s)) == RTOPO_OK)
        st = rtopo__cal_run(t, s, tag - 3, RTOPO__CAL_SMALL, t->me == a ? buf : NULL,
                            t->me == a ? RTOPO__CAL_SMALL : 0, in ? buf + RTOPO__CAL_BIG : NULL,
                            in ? RTOPO__CAL_SMALL : 0, RTOPO__CAL_WARM_SMALL,
                            RTOPO__CAL_ITERS_SMALL, 1, &sends, NULL);
    if (st)
        return st;
    /* the answer's cost as in the shortest runs: half the shortest round
     * trip, but at most a message's share of the stream (its messages and
     * the answer): a round trip every run of which waited for a sleeping
     * peer to wake (a loaded machine: milliseconds) says nothing of the
     * answer of a stream whose ranks stay awake, and would leave no time
     * for the bytes */
    ans = rt_min / 2;
    if (ans > big / (RTOPO__CAL_STREAM + 1))
        ans = big / (RTOPO__CAL_STREAM + 1);
    tw = (big - ans) / ((double)RTOPO__CAL_STREAM * (double)RTOPO__CAL_BIG);
    *ts_p = rt / 2;
    *tw_p = tw > 0 ? tw : 0.0;
    *tt_p = 0.0;
    /* both ends on a machine whose ranks outnumber its processors: a
     * message costs its sender what one of RTOPO__CAL_SENDS eager sends
     * in a row does (ts: the shortest of RTOPO__CAL_ITERS_SMALL runs, on
     * label a, which waits for no answer; at most half the shortest
     * round trip); the rest of half the median round trip is the
     * receiver's turn (tt), which an eager sender does not wait for, but
     * a rank that forwards what it received does (rtopo__cal_split) */
    if (turn && t->me == a)
        rtopo__cal_split(rt, rt_min, sends / RTOPO__CAL_SENDS, ts_p, tt_p);
    if (t->me == a)
        rtopo__debug("pair %d<->%d: 8 B round trip %.4g us (the median of %d; the shortest "
                     "%.4g us), %d x %d KiB stream %.4g us (the shortest of %d runs)", a, b,
                     rt * 1e6, RTOPO__CAL_ITERS_SMALL, rt_min * 1e6, RTOPO__CAL_STREAM,
                     RTOPO__CAL_BIG / 1024, big * 1e6, runs);
    if (t->me == a && *tt_p > 0)
        rtopo__debug("pair %d<->%d: more ranks than processors on their machine: ts %.4g "
                     "us (one of %d eager sends in a row), the receiver's turn tt %.4g us "
                     "(the rest of half the median round trip)", a, b, *ts_p * 1e6,
                     RTOPO__CAL_SENDS, *tt_p * 1e6);
    return RTOPO_OK;
}

/* labels a and b run on this rank's machine (its kernel's processors,
 * emulated hosts included), which runs more ranks than it has processors
 * (ctx->oversub); what label a finds is what every rank takes */
static int rtopo__cal_turn(const rtopo_topo_t *t, int a, int b)
{
    const rtopo_ctx_t *ctx = t->ctx;

    return ctx->oversub && ctx->boot->same_kernel[rtopo__topo_job_rank(t, a)] &&
           ctx->boot->same_kernel[rtopo__topo_job_rank(t, b)];
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

/* a pair to measure: labels a (who times it) and b, the cache cell */
struct rtopo__cal_job {
    int a, b, role, kind;
};

#define RTOPO__CAL_MAX 5

struct rtopo__cal_fig {
    double ts[RTOPO__CAL_MAX], tw[RTOPO__CAL_MAX], tt[RTOPO__CAL_MAX];
};

static void rtopo__cal_want(rtopo_ctx_t *ctx, struct rtopo__cal_job *job, int *n, int a, int b,
                            int role, int kind)
{
    int i;

    if (a < 0 || b < 0 || kind < 0 || ctx->calib[role][kind].valid)
        return;
    for (i = 0; i < *n; i++)
        if (job[i].role == role && job[i].kind == kind)
            return;
    job[(*n)++] = (struct rtopo__cal_job){ a, b, role, kind };
}

/* the layout's intra-host pair among labels 0..pn-1 (the first label with
 * a later one on its host, and the first such) and inter-host pair (0 and
 * the first label on another host); -1 where there is none */
static void rtopo__cal_pairs(const rtopo__layout_t *l, int pn, int *ia, int *ib, int *ea,
                             int *eb)
{
    int a, b;

    *ia = *ib = *ea = *eb = -1;
    for (b = 1; b < pn && *eb < 0; b++)
        if (l->host[b] != l->host[0])
            *ea = 0, *eb = b;
    for (a = 0; a < pn && *ia < 0; a++)
        for (b = a + 1; b < pn; b++)
            if (l->host[b] == l->host[a]) {
                *ia = a, *ib = b;
                break;
            }
}

/* the measurement's buffer: 2 RTOPO__CAL_BIG bytes of registered
 * staging, as a user who times their code registers */
static int rtopo__cal_buf_get(rtopo_ctx_t *ctx, struct rtopo_mem **mem_p)
{
    int st;

    if ((st = rtopo__ctx_enter(ctx)))
        return st;
    st = rtopo__stage_get(ctx, 2 * RTOPO__CAL_BIG, mem_p);
    if (!st) {
        (*mem_p)->scratch = 1;
        memset((*mem_p)->buf, 0, 2 * RTOPO__CAL_BIG);
    }
    rtopo__ctx_leave(ctx);
    return st;
}

static void rtopo__cal_buf_put(rtopo_ctx_t *ctx, struct rtopo_mem *mem, int st)
{
    rtopo__ctx_enter(ctx);
    mem->scratch = 0;
    if (st)
        mem->in_use = 2;    /* a failed job's peers may still write */
    else
        rtopo__stage_put(mem);
    rtopo__ctx_leave(ctx);
}

/* label r's n bytes at buf to every other rank of t, at buf + RTOPO__CAL_BIG */
static int rtopo__cal_tell(rtopo_topo_t *t, int r, long tag, uint8_t *buf, size_t n)
{
    rtopo__sched_t *s;
    int st = rtopo__cal_bcast(t, r, n, &s);

    if (!st)
        st = rtopo__cal_run(t, s, tag, n, t->me == r ? buf : NULL, t->me == r ? n : 0,
                            t->me != r ? buf + RTOPO__CAL_BIG : NULL, t->me != r ? n : 0, 0,
                            1, 0, NULL, NULL);
    return st;
}

/* The model of a machine with more ranks than processors, from label 0's
 * (ctx->calib_over, the same on every rank): tq, and when every rank of t
 * runs on this rank's machine (then on every rank's: all or none share
 * one), lanes at most its processors: its transfers are the work of those
 * processors, which a quiet pair does not show. */
static void rtopo__model_over(rtopo_topo_t *t)
{
    const rtopo_ctx_t *ctx = t->ctx;
    int p = t->desc.p, r;

    if (!ctx->calib_over.valid || !ctx->calib_over.oversub)
        return;
    t->model.tq = ctx->calib_over.tq;
    if (ctx->calib_over.tt > 0)
        t->model.tt = ctx->calib_over.tt;
    for (r = 0; r < p && ctx->boot->same_kernel[rtopo__topo_job_rank(t, r)]; r++)
        ;
    if (r == p && ctx->calib_over.ncpu > 0 &&
        (t->model.lanes == 0 || t->model.lanes > ctx->calib_over.ncpu))
        t->model.lanes = ctx->calib_over.ncpu;
}

/* The time per byte of the reduction kernel on this rank's processor:
 * a sum of 64-bit integers over RTOPO__CAL_KERN bytes (the reductions'
 * kernel, run as the executor runs it), the median of
 * RTOPO__CAL_ITERS_KERN runs; buf holds RTOPO__CAL_BIG bytes at least at
 * buf and at buf + RTOPO__CAL_BIG.  A processor of its own, its cache
 * warm, as the kernel finds the data a message just brought in: the
 * model's lanes stand for the processors the ranks share. */
static double rtopo__cal_kern(uint8_t *buf)
{
    rtopo__kern_t k = { .type = RTOPO__KERN_COMBINE, .dtype = RTOPO_INT64, .op = RTOPO_SUM,
                        .src_buf = RTOPO__BUF_SEND, .dst_buf = RTOPO__BUF_RECV,
                        .len = RTOPO__CAL_KERN };
    uint8_t *bufs[RTOPO__BUF_COUNT] = { buf, buf + RTOPO__CAL_BIG, NULL };
    double tm[RTOPO__CAL_ITERS_KERN];
    int i, j;

    for (i = 0; i < RTOPO__CAL_ITERS_KERN; i++) {
        uint64_t t0 = rtopo__now_ns();

        if (rtopo__kern_run(&k, bufs))
            return 0.0;
        tm[i] = (double)(rtopo__now_ns() - t0) * 1e-9;
        for (j = i; j > 0 && tm[j - 1] > tm[j]; j--) {   /* insertion sort */
            double x = tm[j];

            tm[j] = tm[j - 1];
            tm[j - 1] = x;
        }
    }
    return tm[RTOPO__CAL_ITERS_KERN / 2] / (double)RTOPO__CAL_KERN;
}

/* The median of RTOPO__CAL_ITERS_COPY timings of k copies of n bytes,
 * the i-th from buf + i n to buf + RTOPO__CAL_BIG + i n, per copy */
static double rtopo__cal_copy_one(uint8_t *buf, size_t n, int k)
{
    double tm[RTOPO__CAL_ITERS_COPY];
    int i, j, c;

    for (i = 0; i < RTOPO__CAL_ITERS_COPY; i++) {
        uint64_t t0 = rtopo__now_ns();

        for (c = 0; c < k; c++)
            memmove(buf + RTOPO__CAL_BIG + (size_t)c * n, buf + (size_t)c * n, n);
        tm[i] = (double)(rtopo__now_ns() - t0) * 1e-9 / k;
        for (j = i; j > 0 && tm[j - 1] > tm[j]; j--) {   /* insertion sort */
            double x = tm[j];

            tm[j] = tm[j - 1];
            tm[j - 1] = x;
        }
    }
    return tm[RTOPO__CAL_ITERS_COPY / 2];
}

/* A copy inside a rank on this rank's processor, as the executor runs a
 * LOCAL node (memmove): the medians of RTOPO__CAL_ITERS_COPY timings of
 * RTOPO__CAL_SMALL bytes (RTOPO__CAL_COPY_BATCH copies a timing, so that
 * the clock's own cost and grain fall below a copy's) and of
 * RTOPO__CAL_BIG bytes, the line through the two: tw its slope, ts where
 * it meets 0 bytes (0 at least).  256 KiB, the size the links' tw are
 * timed with, source and destination warm in the cache (512 KiB: past the
 * first level, within the second or third of current processors) as the
 * streams that time the links find theirs: a copy and a transfer the
 * model weighs against each other are timed alike, and a schedule's copies
 * mostly move data its rank has just touched (the own block of what it
 * sends, a vector it has just reduced).  buf as rtopo__cal_kern's. */
static void rtopo__cal_copy(uint8_t *buf, double *ts_p, double *tw_p)
{
    double t0 = rtopo__cal_copy_one(buf, RTOPO__CAL_SMALL, RTOPO__CAL_COPY_BATCH);
    double t1 = rtopo__cal_copy_one(buf, RTOPO__CAL_BIG, 1);
    double tw = (t1 - t0) / (double)(RTOPO__CAL_BIG - RTOPO__CAL_SMALL);

    *tw_p = tw > 0 ? tw : 0.0;
    *ts_p = t0 - RTOPO__CAL_SMALL * *tw_p > 0 ? t0 - RTOPO__CAL_SMALL * *tw_p : 0.0;
}

/* The burst's wait in model m (label 0's: the pairs' figures, lanes, the
 * list applied), from the burst's time measured (tm, seconds): the time of
 * the burst of labels 0..pn-1 under m grows with the wait along a line
 * (t0_p at the model's own, slope_p in seconds per second of wait), and
 * the wait is where that line meets tm (the model's own at least).  The
 * wait is tt, the receivers' turn, which holds no sender's port, where m
 * has one or the pairs were measured with their turn (turn: a machine
 * with more ranks than processors, the list setting no tt), even when
 * their round trips left none; tq, time every message holds its sender
 * for, only where neither (a list's tt=0).  Charging the burst's wait to
 * every message's sender makes a host that sends many small messages
 * look slower than a tree, every level of which waits for its turn: on
 * 3 emulated hosts at 8-byte windows the scatter's decremental strategy
 * came first in the model and last measured, where sending each window
 * (seq) measured fastest. */
int rtopo__cal_fit(const rtopo__tdesc_t *desc, int pn, const rtopo__model_t *m, int turn,
                   double tm, double *tq_p, double *tt_p, double *t0_p, double *slope_p)
{
    rtopo__model_t w = *m;
    rtopo__sched_t *s = NULL;
    rtopo__sim_result_t r;
    double t0 = 0, t1 = 0, x;
    int st, tt = m->tt > 0 || turn;

    if ((st = rtopo__cal_burst(desc, pn, RTOPO__CAL_ROUNDS, &s)))
        return st;
    w.tq = 0.0;
    if (!(st = rtopo__sim_run(s, &w, &r)))
        t0 = r.model_time;
    if (tt)
        w.tt = m->tt + 1e-6;
    else
        w.tq = 1e-6;
    if (!st && !(st = rtopo__sim_run(s, &w, &r)))
        t1 = r.model_time;
    rtopo__sched_free(s);
    if (st)
        return st;
    x = t1 > t0 ? (tm - t0) / ((t1 - t0) / 1e-6) : 0.0;
    *tq_p = tt ? 0.0 : x > 0 ? x : 0.0;
    *tt_p = tt ? (m->tt + x > 0 ? m->tt + x : m->tt) : 0.0;
    *t0_p = t0;
    *slope_p = (t1 - t0) / 1e-6;
    return RTOPO_OK;
}

/* Label 0 tells every rank its reduction kernel's time per byte
 * (rtopo__cal_kern, when measure_tk; the list does not set tk), the ts
 * and tw of a copy inside a rank (rtopo__cal_copy, when measure_copy; the
 * list names no local. key) and
 * whether its machine has more ranks than
 * processors, and how many processors; if so, and the list does not set
 * tq (measure), the labels below pn run the burst (rtopo__cal_burst) and
 * label 0 fits tq to its time: the time of the burst under the model
 * (lanes as rtopo__model_over sets them, the list applied) grows with tq
 * along a line, tq is where that line meets the time measured (0 at
 * least); label 0 tells it to every rank.  It fits tt instead where the
 * model has one or where the pairs were measured with their turn (turn;
 * rtopo__cal_fit).  Sets ctx->calib_over. */
static int rtopo__cal_over(rtopo_topo_t *t, int pn, const char *list, int measure,
                           int measure_tk, int measure_copy, int turn)
{
    rtopo_ctx_t *ctx = t->ctx;
    struct {
        int32_t oversub, ncpu, copy, pad;
        double tq, tk, copy_ts, copy_tw, tt;
    } fig = { 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0 };
    long tag = RTOPO__CAL_TAG + 1 + t->desc.p;
    struct rtopo_mem *mem = NULL;
    rtopo__sched_t *s = NULL;
    uint8_t *buf;
    double tm = 0, t0 = 0, slope = 0;
    rtopo__model_t m;
    int st;

    if ((st = rtopo__cal_buf_get(ctx, &mem)))
        return st;
    buf = mem->buf;
    if (t->me == 0) {
        long n = rtopo__cpus_shared();

        fig.oversub = ctx->oversub;
        fig.ncpu = n > 0 && n < 1 << 20 ? (int32_t)n : 0;
        fig.tk = measure_tk ? rtopo__cal_kern(buf) : 0.0;
        if (measure_copy) {
            fig.copy = 1;
            rtopo__cal_copy(buf, &fig.copy_ts, &fig.copy_tw);
        }
        memcpy(buf, &fig, sizeof(fig));
    }
    st = rtopo__cal_tell(t, 0, tag, buf, sizeof(fig));
    if (!st && t->me != 0)
        memcpy(&fig, buf + RTOPO__CAL_BIG, sizeof(fig));
    if (!st) {
        ctx->calib_over.valid = 1;
        ctx->calib_over.oversub = fig.oversub;
        ctx->calib_over.ncpu = fig.ncpu;
        ctx->calib_over.tq = 0.0;
        ctx->calib_over.tt = 0.0;
        ctx->calib_over.tk = fig.tk;
        ctx->calib_over.copy = fig.copy;
        ctx->calib_over.copy_ts = fig.copy_ts;
        ctx->calib_over.copy_tw = fig.copy_tw;
        if (fig.tk > 0)
            rtopo__debug("topology %u: measured the reduction kernel on label 0 (a sum "
                         "of int64 over %d KiB): tk %.4g ns/B", t->id,
                         RTOPO__CAL_KERN / 1024, fig.tk * 1e9);
        if (fig.copy)
            rtopo__debug("topology %u: measured a copy inside a rank on label 0 (%d B "
                         "and %d KiB): local ts %.4g us, tw %.4g ns/B", t->id,
                         RTOPO__CAL_SMALL, RTOPO__CAL_BIG / 1024, fig.copy_ts * 1e6,
                         fig.copy_tw * 1e9);
    }
    if (!st && fig.oversub && measure) {
        if (t->me == 0) {       /* the model label 0 fits the burst to */
            rtopo__model_over(t);
            m = t->model;
            m.layout = t->layout.host ? &t->layout : NULL;
            st = list ? rtopo__model_parse(list, &m) : RTOPO_OK;
        }
        if (!st)
            st = rtopo__cal_burst(&t->desc, pn, RTOPO__CAL_ROUNDS, &s);
        if (!st)
            st = rtopo__cal_run(t, s, tag + 1, RTOPO__CAL_SMALL * RTOPO__CAL_ROUNDS,
                                t->me < pn ? buf : NULL, t->me < pn ? RTOPO__CAL_SMALL : 0,
                                t->me < pn ? buf + RTOPO__CAL_BIG : NULL,
                                t->me < pn ? RTOPO__CAL_SMALL * RTOPO__CAL_ROUNDS : 0,
                                0, RTOPO__CAL_ITERS_BURST, 0, &tm, NULL);
        if (!st && t->me == 0 &&
            !(st = rtopo__cal_fit(&t->desc, pn, &m, turn, tm, &fig.tq, &fig.tt, &t0, &slope))) {
            rtopo__debug("topology %u: burst of %d rounds: %.4g us measured, %.4g us under "
                         "the model at tq 0%s, %.4g us more per us of %s", t->id,
                         RTOPO__CAL_ROUNDS, tm * 1e6, t0 * 1e6,
                         m.tt > 0 ? " and the pair's tt" : "", slope,
                         m.tt > 0 || turn ? "tt" : "tq");
            memcpy(buf, &fig, sizeof(fig));
        }
        if (!st)
            st = rtopo__cal_tell(t, 0, tag + 2, buf, sizeof(fig));
        if (!st && t->me != 0)
            memcpy(&fig, buf + RTOPO__CAL_BIG, sizeof(fig));
        if (!st) {
            ctx->calib_over.tq = fig.tq;
            ctx->calib_over.tt = fig.tt;
            rtopo__debug("topology %u: measured burst (more ranks than the %d processors "
                         "of label 0's machine), %d rounds among labels 0..%d: tq %.4g us, "
                         "tt %.4g us", t->id, fig.ncpu, RTOPO__CAL_ROUNDS, pn - 1,
                         fig.tq * 1e6, fig.tt * 1e6);
        }
    }
    rtopo__cal_buf_put(ctx, mem, st);
    return st;
}

static int rtopo__topo_measure(rtopo_topo_t *t)
{
    rtopo_ctx_t *ctx = t->ctx;
    int p = t->desc.p, host = t->desc.host ? p - 1 : -1, pn = p - (host >= 0), st = RTOPO_OK;
    int kn = -1, kh = -1, ko = -1, ia = -1, ib = -1, ea = -1, eb = -1, njob = 0, r, i, k;
    const char *list = rtopo__model_list(ctx);
    unsigned keep = rtopo__model_keep(list);
    struct rtopo__cal_job job[RTOPO__CAL_MAX];
    struct rtopo__cal_fig fig;
    struct rtopo_mem *mem = NULL;
    uint8_t *buf = NULL;
    char text[800];

    /* which kinds of pair this topology has, and which are unknown (every
     * rank sees the same job, so every rank decides alike) */
    if (pn >= 2)
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
    if (t->layout.host)
        rtopo__cal_pairs(&t->layout, pn, &ia, &ib, &ea, &eb);
    /* the reaches first (their pairs are the layout's), then the classes'
     * pairs for kinds still unknown; what the list sets is not measured */
    if (!(keep & RTOPO__KEEP_INTRA))
        rtopo__cal_want(ctx, job, &njob, ia, ib, 0, 0);
    if (!(keep & RTOPO__KEEP_INTER))
        rtopo__cal_want(ctx, job, &njob, ea, eb, 0, 1);
    if (!((keep & RTOPO__KEEP_INTRA) && kn == 0) && !((keep & RTOPO__KEEP_INTER) && kn == 1))
        rtopo__cal_want(ctx, job, &njob, 0, pn >= 2 ? 1 : -1, 0, kn);
    if (!(keep & RTOPO__KEEP_HOST))
        rtopo__cal_want(ctx, job, &njob, 0, host, 1, kh);
    rtopo__cal_want(ctx, job, &njob, 0, t->desc.n, 0, ko);
    if (njob) {
        memset(&fig, 0, sizeof(fig));
        if ((st = rtopo__cal_buf_get(ctx, &mem)))
            return st;
        buf = mem->buf;
        for (i = 0; i < njob && !st; i++)
            st = rtopo__cal_pair(t, job[i].a, job[i].b,
                                 !(keep & RTOPO__KEEP_TT) && rtopo__cal_turn(t, job[i].a,
                                                                            job[i].b),
                                 buf, &fig.ts[i], &fig.tw[i], &fig.tt[i]);
        /* every label that timed a pair sends its figures to every rank */
        for (r = 0; r < pn && !st; r++) {
            int mine = 0;

            for (i = 0; i < njob; i++)
                mine |= job[i].a == r;
            if (!mine)
                continue;
            if (t->me == r)
                memcpy(buf, &fig, sizeof(fig));
            st = rtopo__cal_tell(t, r, RTOPO__CAL_TAG + 1 + r, buf, sizeof(fig));
            if (!st && t->me != r) {
                struct rtopo__cal_fig got;

                memcpy(&got, buf + RTOPO__CAL_BIG, sizeof(got));
                for (i = 0; i < njob; i++)
                    if (job[i].a == r) {
                        fig.ts[i] = got.ts[i];
                        fig.tw[i] = got.tw[i];
                        fig.tt[i] = got.tt[i];
                    }
            }
        }
        rtopo__cal_buf_put(ctx, mem, st);
        if (st)
            return st;
        for (i = 0; i < njob; i++) {
            ctx->calib[job[i].role][job[i].kind] =
                (struct rtopo__calib){ 1, fig.ts[i], fig.tw[i], fig.tt[i] };
            rtopo__debug("topology %u: measured %s pair %d<->%d (%s): ts %.4g us, "
                         "tw %.4g ns/B (%.4g MB/s)", t->id,
                         job[i].role ? "host link" : "node", job[i].a, job[i].b,
                         job[i].kind ? "inter-host" : "intra-host", fig.ts[i] * 1e6,
                         fig.tw[i] * 1e9, fig.tw[i] > 0 ? 1e-6 / fig.tw[i] : 0.0);
        }
    }
    if (kn >= 0 && ctx->calib[0][kn].valid) {
        rtopo__model_fill(t, &ctx->calib[0][kn], 0);
        t->model.tt = ctx->calib[0][kn].tt;
        t->model.eager = ctx->params.eager_limit;
        if (kh < 0)     /* HOST: as the nodes' pairs */
            rtopo__model_fill(t, &ctx->calib[0][kn], 1);
    }
    if (kh >= 0 && ctx->calib[1][kh].valid)
        rtopo__model_fill(t, &ctx->calib[1][kh], 1);
    if (ko >= 0 && ctx->calib[0][ko].valid) {
        t->model.ts[RTOPO__LINK_OTIS] = ctx->calib[0][ko].ts;
        t->model.tw[RTOPO__LINK_OTIS] = ctx->calib[0][ko].tw;
    }
    /* on several hosts: every hop costs by its reach (the layout's) */
    for (k = 0; t->layout.host && k < RTOPO__REACH_COUNT; k++)
        if (ctx->calib[0][k].valid) {
            t->model.reach_ts[k] = ctx->calib[0][k].ts;
            t->model.reach_tw[k] = ctx->calib[0][k].tw;
            t->model.reach_set[k] |= RTOPO__RSET_TS | RTOPO__RSET_TW;
        }
    /* ranks of one machine share its processors and memory: their
     * transfers are copies that do not run side by side at full speed the
     * way transfers on separate links do */
    for (r = 1; r < p && !rtopo__pair_kind(ctx, rtopo__topo_job_rank(t, 0),
                                           rtopo__topo_job_rank(t, r)); r++)
        ;
    if (p > 1 && r == p)
        t->model.lanes = 1;
    /* label 0's machine (the reduction kernel's time, more ranks than
     * processors): once per job */
    if (!ctx->calib_over.valid && pn >= 2 &&
        (st = rtopo__cal_over(t, pn, list, !(keep & RTOPO__KEEP_TQ),
                              !(keep & RTOPO__KEEP_TK), !(keep & RTOPO__KEEP_LOCAL),
                              !(keep & RTOPO__KEEP_TT) && rtopo__cal_turn(t, 0, 1))))
        return st;
    if (ctx->calib_over.valid && ctx->calib_over.tk > 0)
        t->model.tk = ctx->calib_over.tk;
    if (ctx->calib_over.valid && ctx->calib_over.copy) {
        t->model.ts[RTOPO__LINK_LOCAL] = ctx->calib_over.copy_ts;
        t->model.tw[RTOPO__LINK_LOCAL] = ctx->calib_over.copy_tw;
    }
    rtopo__model_over(t);
    /* what the list sets, over the measured figures */
    if (list && (st = rtopo__model_parse(list, &t->model)))
        return st;
    if (rtopo__model_str(&t->model, text, sizeof(text)) == 0)
        rtopo__debug("topology %u: model %s%s", t->id, text,
                     njob ? " (measured now)" : "");
    return RTOPO_OK;
}

void rtopo__model_place(const rtopo_ctx_t *ctx, rtopo__model_t *m)
{
    const char *list = rtopo__model_list(ctx);
    unsigned keep = rtopo__model_keep(list), kbit[RTOPO__REACH_COUNT];
    int k;

    kbit[RTOPO__REACH_INTRA] = RTOPO__KEEP_INTRA;
    kbit[RTOPO__REACH_INTER] = RTOPO__KEEP_INTER;
    *m = ctx->model;
    m->layout = NULL;
    for (k = 0; ctx->model_measure && k < RTOPO__REACH_COUNT; k++)
        if (ctx->calib[0][k].valid && !(keep & kbit[k])) {
            m->reach_ts[k] = ctx->calib[0][k].ts;
            m->reach_tw[k] = ctx->calib[0][k].tw;
            m->reach_set[k] |= RTOPO__RSET_TS | RTOPO__RSET_TW;
        }
}

int rtopo__topo_model(rtopo_topo_t *t)
{
    int st;

    uint64_t t0;

    t->model = t->ctx->model;
    if (!t->ctx->model_measure)
        return RTOPO_OK;
    t0 = rtopo__now_ns();
    st = rtopo__topo_measure(t);
    rtopo__debug("topology %u: calibration took %.3f ms", t->id,
                 (double)(rtopo__now_ns() - t0) * 1e-6);
    /* the caller's operations count from here, on every rank alike */
    t->ctx->tlast[t->id].seq0 = t->next_seq;
    return st;
}
