/*
 * rtopo-bench - measures rtopo collectives over a real transport, with the
 * raw transport measured between the same ranks in the same run.
 *
 *   rtopo-run -n N rtopo-bench shift [--topo T] [--algo A|all] [--q Q]
 *        [--sizes LIST|MIN:MAX] [--iters N] [--warmup N] [--unregistered]
 *        [--persistent] [--no-baseline] [--json]
 *   rtopo-run -n N rtopo-bench shift-dim [--topo T] [--dim K] [--disp D | --rule A,B]
 *        [--inplace] [--sizes ...] [--iters N] [--warmup N] [--unregistered]
 *        [--persistent] [--no-baseline] [--json]
 *   rtopo-run -n N rtopo-bench route --hops H [--sizes ...]
 *   rtopo-run -n N rtopo-bench scatter [--d D] [--host H] [--sizes LIST]
 *        [--esize E] [--overlap K|half|max] [--algo all|LIST] [--x all|model]
 *        [--iters N] [--warmup N] [--unregistered] [--persistent]
 *        [--no-baseline] [--json]
 *   rtopo-run -n N rtopo-bench bcast|allreduce|scan [--topo T] [--algo LIST]
 *        [--root R] [--op sum|prod|min|max] [--dtype int64|double] [--sizes ...]
 *        [--iters N] [--warmup N] [--modes LIST] [--buffers LIST]
 *        [--no-baseline] [--json]
 *
 * shift: every rank shifts `bytes` to (i+q) mod p; the baseline is one raw
 * RDMA write with immediate data of the same size from i to (i+q) mod p,
 * each rank waiting for its incoming write: the same communication
 * pattern with nothing of rtopo on top.  The model column predicts each
 * algorithm with ts and tw fitted to the baseline just measured.
 *
 * shift-dim: rtopo_shift_dim (or _rule) along one dimension of the
 * topology; the baseline is one raw write from each rank to its line
 * neighbour.  Beside the times, the traffic of the schedule that ran
 * (link hops and bytes, counted by the simulator on the request's plan).
 *
 * route: one transfer from rank 0 to rank H over H ring hops (pipelined
 * forwarding) against the same transfer over one hop.
 *
 * scatter: the windowed scatter from a host to a D-cube (rtopo_scatter),
 * windows of M elements (--sizes) of E bytes overlapping by K elements,
 * every strategy (seq, binomial, seqscatter and decremental with every
 * x or the model's, auto); the baseline is the host writing every window
 * itself with the raw transport (bench_raw.c), the floor under seq.
 * Every iteration: a barrier, the operation, per iteration the slowest
 * rank, median and minimum over the iterations.
 *
 * bcast, allreduce, scan: rtopo_bcast, rtopo_allreduce or rtopo_scan of
 * bytes/8 elements with each algorithm (RTOPO_COLL_TOPO, _GENERIC, _AUTO),
 * blocking or persistent, registered or unregistered buffers, timed as
 * the scatter; the broadcast's baseline is the scatter's with one window
 * for all (the root writes the whole buffer to every rank), the
 * reductions have none (no raw write combines data).  Every element of
 * every result is checked after each block.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo_tool.h"
#include "bench_common.h"
#include "bench_raw.h"

struct stat3 { double med, min; };

#define BLOCKS 5   /* measurement blocks per size, alternating baseline and rtopo */

static struct {
    rtopo_ctx_t *ctx;
    const char *op, *topo, *algo;
    long q;
    long sizes[64];
    int nsizes, iters, warmup, unreg, persistent, baseline, json, hops;
    /* scatter */
    int d, host, esize, xall;
    const char *overlap;
    /* shift-dim: the dimension (-1: the last), disp in q or a rule */
    int dim, have_disp, have_rule, inplace;
    long ra, rb;
    /* bcast, allreduce, scan: the collective (RTOPO__COLL_*), root,
     * element type, operator; --modes and --buffers (bit 0 blocking /
     * registered, bit 1 persistent / unregistered) */
    int coll, root, dtype, rop, modes, buffers;
} B = { .op = "shift", .topo = "ring", .algo = "auto", .q = 1, .iters = 200,
        .warmup = 10, .baseline = 1, .hops = 4, .d = -1, .host = 0, .esize = 8,
        .xall = 1, .overlap = "max", .dim = -1, .dtype = RTOPO_INT64, .rop = RTOPO_SUM };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rtopo-bench shift [--topo ring|mesh:RxC|hypercube:D|otis-mesh:N|otis-hypercube:N]\n"
            "                   [--algo auto|ring|mesh|hypercube|ecube|direct|all] [--q Q]\n"
            "                   [--sizes LIST|MIN:MAX] [--iters N] [--warmup N]\n"
            "                   [--unregistered] [--persistent] [--no-baseline] [--json]\n"
            "       rtopo-bench shift-dim [--topo mesh:RxC|hypercube:D|otis-mesh:N|otis-hypercube:N|ring]\n"
            "                   [--dim K] [--disp D | --rule A,B] [--inplace] [--sizes LIST|MIN:MAX]\n"
            "                   [--iters N] [--warmup N] [--unregistered] [--persistent]\n"
            "                   [--no-baseline] [--json]\n"
            "       rtopo-bench route [--hops H] [--sizes ...] [--iters N]\n"
            "       rtopo-bench scatter [--d D] [--host H] [--sizes LIST|MIN:MAX (elements)]\n"
            "                   [--esize E] [--overlap K|half|max] [--algo all|LIST]\n"
            "                   [--x all|model] [--iters N] [--warmup N] [--unregistered]\n"
            "                   [--persistent] [--no-baseline] [--json]\n"
            "       rtopo-bench bcast|allreduce|scan [--topo T] [--algo topo,generic,auto|all]\n"
            "                   [--root R (bcast)] [--op sum|prod|min|max] [--dtype int64|double]\n"
            "                   [--sizes LIST|MIN:MAX (bytes, multiples of 8)] [--iters N]\n"
            "                   [--warmup N] [--modes blocking,persistent]\n"
            "                   [--buffers registered,unregistered] [--no-baseline] [--json]\n"
            "       rtopo-bench --help\n"
            "run it under rtopo-run (or another launcher rtopo can bootstrap from)\n");
}

/* a mistake on the command line: what it is, then the usage; exit 2 */
static void fail(const char *what, int st)
{
    fprintf(stderr, "rtopo-bench: %s: %s (%s)\n", what, rtopo_strerror(st), rtopo_last_error());
    exit(1);
}

/* this rank's median and minimum, then the slowest rank's median and the
 * fastest minimum across ranks */
static struct stat3 reduce(double *t, int n)
{
    struct stat3 mine, *all;
    int i, p = rtopo_size(B.ctx);

    qsort(t, (size_t)n, sizeof(*t), bench_cmp_double);
    mine.med = t[n / 2];
    mine.min = t[0];
    all = malloc(sizeof(*all) * (size_t)p);
    if (!all || rtopo__tool_allgather(B.ctx, &mine, all, sizeof(mine)))
        fail("allgather", RTOPO_ERR_BOOTSTRAP);
    for (i = 0; i < p; i++) {
        if (all[i].med > mine.med)
            mine.med = all[i].med;
        if (all[i].min < mine.min)
            mine.min = all[i].min;
    }
    free(all);
    return mine;
}

static int iters_for(size_t bytes)
{
    long it = B.iters;
    /* keep large sizes to about 256 MiB moved per rank */
    if (bytes > 0 && (long)((256ul << 20) / bytes) < it)
        it = (long)((256ul << 20) / bytes);
    return it < 5 ? 5 : (int)it;
}

/* ---- raw transport baseline (bench_raw.c) ------------------------------ */

/* n timed rounds into t[], after `warmup` untimed ones */
static void raw_shift(bench_raw_t *raw, size_t bytes, double *t, int n, int warmup)
{
    int i, st;
    uint64_t t0;

    bench_raw_begin(raw);
    rtopo__tool_barrier(B.ctx);
    for (i = -warmup; i < n; i++) {
        t0 = rtopo__now_ns();
        if ((st = bench_raw_round(raw, bytes, (uint32_t)(i & 0xffff))))
            fail(raw->what, st);
        if (i >= 0)
            t[i] = (double)(rtopo__now_ns() - t0) * 1e-3;
    }
    rtopo__tool_barrier(B.ctx);
}

/* ---- rtopo -------------------------------------------------------------- */

static void rtopo_run_shift(rtopo_topo_t *topo, size_t bytes, uint8_t *sb, uint8_t *rb,
                            double *t, int n, int warmup)
{
    int i, st;
    rtopo_req_t *req = NULL;
    uint64_t t0;

    if (B.persistent && (st = rtopo_shift_init(topo, sb, rb, bytes, (int)B.q, &req)))
        fail("rtopo_shift_init", st);
    rtopo_barrier(B.ctx);
    for (i = -warmup; i < n; i++) {
        t0 = rtopo__now_ns();
        if (req) {
            if ((st = rtopo_start(req)) || (st = rtopo_wait(req)))
                fail("persistent shift", st);
        } else if ((st = rtopo_shift(topo, sb, rb, bytes, (int)B.q))) {
            fail("rtopo_shift", st);
        }
        if (i >= 0)
            t[i] = (double)(rtopo__now_ns() - t0) * 1e-3;
    }
    rtopo_req_free(req);
    rtopo_barrier(B.ctx);
}

static int make_topo_kind(rtopo_topo_t **t)
{
    int a, b;
    if (!strcmp(B.topo, "ring"))
        return rtopo_topo_ring(B.ctx, t);
    if (sscanf(B.topo, "mesh:%dx%d", &a, &b) == 2)
        return rtopo_topo_mesh(B.ctx, a, b, t);
    if (sscanf(B.topo, "hypercube:%d", &a) == 1)
        return rtopo_topo_hypercube(B.ctx, a, t);
    if (sscanf(B.topo, "otis-mesh:%d", &a) == 1)
        return rtopo_topo_otis_mesh(B.ctx, a, t);
    if (sscanf(B.topo, "otis-hypercube:%d", &a) == 1)
        return rtopo_topo_otis_hypercube(B.ctx, a, t);
    fprintf(stderr, "rtopo-bench: unknown topology %s\n", B.topo);
    exit(2);
}

/* the topology, whose plans keep the whole schedule: the traffic and the
 * model time read from a request's schedule are the job's */
static int make_topo(rtopo_topo_t **t)
{
    int st = make_topo_kind(t);

    if (st == RTOPO_OK)
        rtopo__tool_whole_plans(*t);
    return st;
}

/* sorts v ascending, carrying order along (a handful of entries) */
static void sort_by(double *v, int *order, int n)
{
    int x, y, t;
    double d;

    for (x = 1; x < n; x++)
        for (y = x; y > 0 && v[y] < v[y - 1]; y--) {
            d = v[y]; v[y] = v[y - 1]; v[y - 1] = d;
            t = order[y]; order[y] = order[y - 1]; order[y - 1] = t;
        }
}

/* two page-aligned buffers large enough for every size asked for */
static size_t alloc_bufs(uint8_t **sb, uint8_t **rb, int fill)
{
    size_t maxb = 0;
    int i;

    for (i = 0; i < B.nsizes; i++)
        if ((size_t)B.sizes[i] > maxb)
            maxb = (size_t)B.sizes[i];
    maxb += 64;
    if (posix_memalign((void **)sb, 4096, maxb) || posix_memalign((void **)rb, 4096, maxb))
        fail("memory", RTOPO_ERR_NOMEM);
    memset(*sb, fill, maxb);
    memset(*rb, 0, maxb);
    return maxb;
}

static double mbps(size_t bytes, double us)
{
    return us > 0 ? (double)bytes / us : 0.0;
}

static void bench_shift(void)
{
    char bdesc[128];
    rtopo_ctx_t *ctx = B.ctx;
    int me = rtopo__tool_rank(ctx), i, a, st, algos[8], nalgo = 0;
    size_t maxb = 0;
    uint8_t *sb, *rb, *usb, *urb;
    rtopo_mem_t *smem = NULL, *rmem = NULL;
    bench_raw_t rawt;
    rtopo_topo_t *topo;
    struct stat3 *raw, *res;
    int ok[8] = { 0 }, chosen[8] = { 0 };
    rtopo__model_t model;
    double ts = 0, tw = 0;

    if ((st = make_topo(&topo)))
        fail("topology", st);
    maxb = alloc_bufs(&sb, &rb, me);
    /* the baseline always needs registered memory */
    if ((st = rtopo_mem_register(ctx, sb, maxb, &smem)) ||
        (st = rtopo_mem_register(ctx, rb, maxb, &rmem)))
        fail("rtopo_mem_register", st);
    raw = calloc((size_t)B.nsizes, sizeof(*raw));
    if (!raw)
        fail("memory", RTOPO_ERR_NOMEM);
    if ((st = bench_raw_open(&rawt, ctx, B.q, smem, rmem)))
        fail(rawt.what, st);
    if (!strcmp(B.algo, "all")) {
        for (a = RTOPO_SHIFT_RING; a <= RTOPO_SHIFT_DIRECT; a++)
            algos[nalgo++] = a;
    } else {
        algos[nalgo] = rtopo__shift_algo_parse(B.algo);
        if (algos[nalgo++] < 0) {
            fprintf(stderr, "rtopo-bench: unknown algorithm %s\n", B.algo);
            exit(2);
        }
    }
    rtopo__model_default(&model);
    if (((B.q % rtopo__tool_size(ctx)) + rtopo__tool_size(ctx)) % rtopo__tool_size(ctx) == 0)
        B.baseline = 0;   /* a local copy: nothing to compare with */
    /* rtopo's buffers: the registered ones, or separate unregistered ones */
    usb = sb;
    urb = rb;
    if (B.unreg && (posix_memalign((void **)&usb, 4096, maxb) ||
                    posix_memalign((void **)&urb, 4096, maxb)))
        fail("memory", RTOPO_ERR_NOMEM);
    if (B.unreg) {
        memset(usb, me, maxb);
        memset(urb, 0, maxb);
    }
    for (a = 0; a < nalgo; a++) {
        rtopo__sched_t *probe;
        ok[a] = rtopo__sched_shift(rtopo__tool_desc(topo), algos[a], B.q, 1, &model, &probe) == 0;
        if (ok[a]) {
            chosen[a] = probe->algo;
            rtopo__sched_free(probe);
        }
    }
    /* Size by size, in BLOCKS alternating blocks: the raw write, then
     * each algorithm, so that drift of the machine affects all alike. */
    res = calloc((size_t)(nalgo * B.nsizes), sizeof(*res));
    if (!res)
        fail("memory", RTOPO_ERR_NOMEM);
    for (i = 0; i < B.nsizes; i++) {
        size_t n = (size_t)B.sizes[i];
        int it = iters_for(n), b, per = (it + BLOCKS - 1) / BLOCKS, off, cnt;
        double *t = malloc(sizeof(double) * (size_t)it * (size_t)(nalgo + 1));

        if (!t)
            fail("memory", RTOPO_ERR_NOMEM);
        for (b = 0, off = 0; off < it; b++, off += cnt) {
            cnt = it - off < per ? it - off : per;
            if (B.baseline)
                raw_shift(&rawt, n, t + off, cnt, b ? 1 : B.warmup);
            for (a = 0; a < nalgo; a++) {
                if (!ok[a])
                    continue;
                rtopo_topo_set_shift_algo(topo, algos[a]);
                rtopo_run_shift(topo, n, usb, urb, t + (size_t)(a + 1) * it + off, cnt,
                                b ? 1 : B.warmup);
            }
        }
        if (B.baseline)
            raw[i] = reduce(t, it);
        for (a = 0; a < nalgo; a++)
            if (ok[a])
                res[a * B.nsizes + i] = reduce(t + (size_t)(a + 1) * it, it);
        free(t);
    }
    /* model calibrated on the baseline: ts from the smallest size, tw from
     * the largest */
    rtopo__model_default(&model);
    model.chunk = rtopo__tool_params(ctx)->chunk_size;
    if (B.baseline && B.nsizes >= 2) {
        ts = raw[0].med * 1e-6;
        tw = (raw[B.nsizes - 1].med * 1e-6 - ts) / (double)(B.sizes[B.nsizes - 1] - B.sizes[0]);
        if (tw > 0)
            for (i = 0; i < RTOPO__LINK_COUNT; i++) {
                model.ts[i] = i == RTOPO__LINK_LOCAL ? 0 : ts;
                model.tw[i] = i == RTOPO__LINK_LOCAL ? 0 : tw;
                model.th[i] = -1;
            }
    }

    if (me == 0) {
        printf("# rtopo-bench shift: %d rank%s, topology %s, q %ld, transport %s, %s%s\n",
               rtopo__tool_size(ctx), rtopo__tool_size(ctx) == 1 ? "" : "s", B.topo, B.q,
               rtopo__tool_provider(ctx),
               bench_buffers_desc(ctx, B.unreg, bdesc, sizeof(bdesc)),
               B.persistent ? ", persistent" : "");
        if (B.baseline && tw > 0)
            printf("# model fitted to the baseline: ts %.2f us, tw %.4f ns/B (%.0f MB/s), chunk %zu\n",
                   ts * 1e6, tw * 1e9, 1e-6 / tw, model.chunk);
    }
    for (a = 0; a < nalgo && me == 0; a++) {
        if (!ok[a]) {
            printf("\n# algorithm %s: not applicable to %s\n",
                   rtopo__shift_algo_name(algos[a]), B.topo);
            continue;
        }
        printf("\n# algorithm %s%s%s\n", rtopo__shift_algo_name(algos[a]),
               algos[a] == RTOPO_SHIFT_AUTO ? " -> " : "",
               algos[a] == RTOPO_SHIFT_AUTO ? rtopo__shift_algo_name(chosen[a]) : "");
        printf("%12s %11s %11s %11s %11s %11s %7s %11s\n", "bytes", "median(us)",
               "min(us)", "MB/s", "raw(us)", "raw MB/s", "ratio", "model(us)");
        for (i = 0; i < B.nsizes; i++) {
            size_t n = (size_t)B.sizes[i];
            struct stat3 r = res[a * B.nsizes + i];
            rtopo__sched_t *s;
            rtopo__sim_result_t sim;
            double pred = -1;

            if (rtopo__sched_shift(rtopo__tool_desc(topo), algos[a], B.q, n, &model, &s) == 0) {
                if (rtopo__sim_run(s, &model, &sim) == 0)
                    pred = sim.model_time * 1e6;
                rtopo__sched_free(s);
            }
            if (B.baseline)
                printf("%12zu %11.2f %11.2f %11.1f %11.2f %11.1f %7.3f %11.2f\n", n, r.med,
                       r.min, mbps(n, r.med), raw[i].med, mbps(n, raw[i].med),
                       raw[i].med / r.med, pred);
            else
                printf("%12zu %11.2f %11.2f %11.1f %11s %11s %7s %11.2f\n", n, r.med, r.min,
                       mbps(n, r.med), "-", "-", "-", pred);
            if (B.json)
                printf("{\"op\":\"shift\",\"algo\":\"%s\",\"bytes\":%zu,\"median_us\":%.3f,"
                       "\"min_us\":%.3f,\"raw_median_us\":%.3f,\"model_us\":%.3f}\n",
                       rtopo__shift_algo_name(algos[a]), n, r.med, r.min,
                       B.baseline ? raw[i].med : -1.0, pred);
        }
    }
    /* the ranking the model predicts beside the measured one */
    if (me == 0 && nalgo > 1) {
        printf("\n# ranking, fastest first: measured | model fitted to the baseline\n");
        for (i = 0; i < B.nsizes; i++) {
            int order_m[8], order_p[8], n = 0, x;
            double pm[8], pp[8];
            for (a = 0; a < nalgo; a++) {
                rtopo__sched_t *s;
                rtopo__sim_result_t sim;
                if (!ok[a] || algos[a] == RTOPO_SHIFT_AUTO)
                    continue;
                pp[n] = 1e30;
                if (rtopo__sched_shift(rtopo__tool_desc(topo), algos[a], B.q,
                                       (size_t)B.sizes[i], &model,
                                       &s) == 0) {
                    if (rtopo__sim_run(s, &model, &sim) == 0)
                        pp[n] = sim.model_time;
                    rtopo__sched_free(s);
                }
                pm[n] = res[a * B.nsizes + i].med;
                order_m[n] = order_p[n] = a;
                n++;
            }
            sort_by(pm, order_m, n);
            sort_by(pp, order_p, n);
            printf("%12ld ", B.sizes[i]);
            for (x = 0; x < n; x++)
                printf("%s%s", x ? " < " : "", rtopo__shift_algo_name(algos[order_m[x]]));
            printf(" | ");
            for (x = 0; x < n; x++)
                printf("%s%s", x ? " < " : "", rtopo__shift_algo_name(algos[order_p[x]]));
            printf("\n");
        }
    }
    free(res);
    if (me == 0 && B.baseline)
        printf("\n# ratio = raw median / rtopo median (1.0: as fast as the raw write; "
               "for bandwidth it is the bandwidth ratio)\n");
    rtopo_topo_free(topo);
    rtopo_mem_deregister(smem);
    rtopo_mem_deregister(rmem);
    if (B.unreg) {
        free(usb);
        free(urb);
    }
    free(sb);
    free(rb);
    bench_raw_close(&rawt);
    free(raw);
}

/* one transfer 0 -> h over h ring hops */
static struct stat3 route_once(rtopo_topo_t *topo, int h, size_t bytes, uint8_t *sb, uint8_t *rb)
{
    rtopo__sched_t *s;
    rtopo_req_t *req;
    int it = iters_for(bytes), i, k, st, me = rtopo__tool_rank(B.ctx);
    double *t = malloc(sizeof(double) * (size_t)it);
    uint64_t t0;

    if ((st = rtopo__sched_alloc(rtopo__tool_desc(topo), 1, (uint32_t)h, &s)))
        fail("schedule", st);
    s->algo = RTOPO_SHIFT_RING;
    s->nsteps = (uint32_t)h;
    if ((st = rtopo__sched_xset(s, 0, &(rtopo__xfer_t){ .src = 0, .dst = h,
                                                         .src_buf = RTOPO__BUF_SEND,
                                                         .dst_buf = RTOPO__BUF_RECV,
                                                         .nhops = (uint32_t)h, .hop0 = 0,
                                                         .len = bytes })))
        fail("schedule", st);
    for (k = 0; k < h; k++) {
        s->hops[k].to = k + 1;
        s->hops[k].step = (uint32_t)k;
        s->hops[k].link = RTOPO__LINK_RING;
        s->hops[k].dir = 1;
    }
    if ((st = rtopo__tool_sched_req(topo, s, 700 + h, sb, bytes, rb, bytes, &req)))
        fail("route request", st);
    for (i = -B.warmup; i < it; i++) {
        rtopo_barrier(B.ctx);
        t0 = rtopo__now_ns();
        if ((st = rtopo_start(req)) || (st = rtopo_wait(req)))
            fail("route", st);
        if (i >= 0)
            t[i] = me == h ? (double)(rtopo__now_ns() - t0) * 1e-3 : 0;
    }
    rtopo_req_free(req);
    struct stat3 r = reduce(t, it);
    free(t);
    return r;
}

static void bench_route(void)
{
    rtopo_ctx_t *ctx = B.ctx;
    rtopo_topo_t *topo;
    rtopo_mem_t *smem, *rmem;
    size_t maxb = 0;
    uint8_t *sb, *rb;
    int i, st;

    if (rtopo__tool_size(ctx) < B.hops + 1) {
        if (rtopo__tool_rank(ctx) == 0)
            fprintf(stderr, "rtopo-bench: route over %d hop%s needs %d ranks\n", B.hops,
                    B.hops == 1 ? "" : "s", B.hops + 1);
        exit(2);
    }
    if ((st = rtopo_topo_ring(ctx, &topo)))
        fail("ring", st);
    maxb = alloc_bufs(&sb, &rb, 1);
    if ((st = rtopo_mem_register(ctx, sb, maxb, &smem)) ||
        (st = rtopo_mem_register(ctx, rb, maxb, &rmem)))
        fail("rtopo_mem_register", st);
    if (rtopo__tool_rank(ctx) == 0)
        printf("# rtopo-bench route: rank 0 -> rank %d over %d ring hops, pipelined in "
               "%zu-byte chunks (depth %ld), against one hop; transport %s\n"
               "%12s %14s %14s %9s %12s\n", B.hops, B.hops, rtopo__tool_params(ctx)->chunk_size,
               rtopo__tool_params(ctx)->pipeline_depth, rtopo__tool_provider(ctx), "bytes",
               "1 hop (us)",
               "H hops (us)", "ratio", "H-hop MB/s");
    for (i = 0; i < B.nsizes; i++) {
        size_t n = (size_t)B.sizes[i];
        struct stat3 one = route_once(topo, 1, n, sb, rb);
        struct stat3 many = route_once(topo, B.hops, n, sb, rb);
        if (rtopo__tool_rank(ctx) == 0)
            printf("%12zu %14.2f %14.2f %9.3f %12.1f\n", n, one.med, many.med,
                   many.med / one.med, mbps(n, many.med));
    }
    rtopo_mem_deregister(smem);
    rtopo_mem_deregister(rmem);
    rtopo_topo_free(topo);
    free(sb);
    free(rb);
}

/* ---- scatter ------------------------------------------------------------ */

typedef struct sc_col {
    int algo, x;                /* x -1: the model's (or none) */
    char name[32];
    int chosen_algo, chosen_x;  /* auto: what it picked, per size */
} sc_col_t;

/* byte k of the host's array: the nodes compute what they must receive */
static inline uint8_t sc_pat(size_t k)
{
    return (uint8_t)((k * 0x9du) ^ (k >> 8) ^ (k >> 16));
}

static void sc_add(sc_col_t *c, int *n, int algo, int x)
{
    c[*n].algo = algo;
    c[*n].x = x;
    if (x >= 0)
        snprintf(c[*n].name, sizeof(c[*n].name), "%s:%d", rtopo__scatter_algo_name(algo), x);
    else
        snprintf(c[*n].name, sizeof(c[*n].name), "%s", rtopo__scatter_algo_name(algo));
    (*n)++;
}

/* "seq", "seqscatter:2", "decremental(x=1)" (x chosen by the model),
 * "auto->decremental:1" */
static void sc_label(const sc_col_t *c, char *out, size_t n)
{
    int a = c->algo == RTOPO_SCATTER_AUTO ? c->chosen_algo : c->algo;
    int x = c->algo == RTOPO_SCATTER_AUTO || c->x < 0 ? c->chosen_x : c->x;
    int hasx = a == RTOPO_SCATTER_SEQSCATTER || a == RTOPO_SCATTER_DECREMENTAL;

    if (c->algo == RTOPO_SCATTER_AUTO && hasx)
        snprintf(out, n, "auto->%s:%d", rtopo__scatter_algo_name(a), x);
    else if (c->algo == RTOPO_SCATTER_AUTO)
        snprintf(out, n, "auto->%s", rtopo__scatter_algo_name(a));
    else if (hasx && c->x < 0)
        snprintf(out, n, "%s(x=%d)", c->name, x);
    else
        snprintf(out, n, "%s", c->name);
}

/* the strategies of --algo and --x */
static int sc_cols(sc_col_t *c, int d)
{
    char buf[256], *tok, *save = NULL;
    int n = 0, a, x, xmax;

    snprintf(buf, sizeof(buf), "%s", strcmp(B.algo, "all") && strcmp(B.algo, "auto") ?
             B.algo : "seq,binomial,seqscatter,decremental,auto");
    if (!strcmp(B.algo, "auto"))
        snprintf(buf, sizeof(buf), "auto");
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        a = rtopo__scatter_algo_parse(tok, &x);
        if (a < 0)
            bench_usage_error("--algo: unknown scatter strategy '%s' (seq, binomial, "
                              "seqscatter[:X], decremental[:X], auto, all)", tok);
        xmax = a == RTOPO_SCATTER_SEQSCATTER ? d : a == RTOPO_SCATTER_DECREMENTAL ?
               (d ? d - 1 : 0) : -1;
        if (x > xmax)
            bench_usage_error("--algo %s: x goes from 0 to %d on a %d-cube", tok, xmax, d);
        if (xmax < 0 || a == RTOPO_SCATTER_AUTO || x >= 0)
            sc_add(c, &n, a, xmax < 0 ? -1 : x);
        else if (B.xall)
            for (x = 0; x <= xmax; x++)
                sc_add(c, &n, a, x);
        else
            sc_add(c, &n, a, -1);
        if (n > 56)
            break;
    }
    return n;
}

/* per iteration the slowest rank (t[0..n) on every rank), then the median
 * and the minimum over the iterations (scatter, bcast, allreduce, scan) */
static struct stat3 reduce_slowest(const double *t, int n)
{
    int p = rtopo_size(B.ctx), i, r;
    double *all = malloc(sizeof(double) * (size_t)n * (size_t)p), *mx;
    struct stat3 res;

    mx = malloc(sizeof(double) * (size_t)n);
    if (!all || !mx || rtopo__tool_allgather(B.ctx, t, all, sizeof(double) * (size_t)n))
        fail("allgather", RTOPO_ERR_BOOTSTRAP);
    for (i = 0; i < n; i++)
        for (mx[i] = 0, r = 0; r < p; r++)
            if (all[(size_t)r * (size_t)n + (size_t)i] > mx[i])
                mx[i] = all[(size_t)r * (size_t)n + (size_t)i];
    qsort(mx, (size_t)n, sizeof(*mx), bench_cmp_double);
    res.med = n % 2 ? mx[n / 2] : (mx[n / 2 - 1] + mx[n / 2]) / 2;
    res.min = mx[0];
    free(all);
    free(mx);
    return res;
}

struct sc_run {
    rtopo_topo_t *topo;
    int me_node, host, nodes, *node;   /* node[i]: job rank of node i */
    size_t M, stride, es, need;
    uint8_t *sa, *rb;                  /* rtopo's buffers */
    uint8_t *rsa, *rrb;                /* registered (raw) */
    bench_raw_t *raw;
};

/* a node's window against the pattern; exits on a difference */
static void sc_check(const struct sc_run *r, const uint8_t *rb, const char *what)
{
    size_t wb = r->M * r->es, off = (size_t)r->me_node * r->stride * r->es, k;

    if (r->me_node < 0)
        return;
    for (k = 0; k < wb; k++)
        if (rb[k] != sc_pat(off + k)) {
            fprintf(stderr, "rtopo-bench: rank %d (node %d): %s, window of %zu elements: "
                    "byte %zu is 0x%02x, expected 0x%02x\n", rtopo__tool_rank(B.ctx), r->me_node,
                    what,
                    r->M, k, rb[k], sc_pat(off + k));
            exit(1);
        }
}

/* `warm` untimed iterations then n timed ones of column c (-1: raw) into
 * t[]; check: clear the window first and check it after the warm-up */
static void sc_block(struct sc_run *r, sc_col_t *c, double *t, int n, int warm, int check)
{
    rtopo_req_t *req = NULL;
    uint8_t *rb = c ? r->rb : r->rrb;
    int i, st;
    uint64_t t0;

    if (check && r->me_node >= 0)
        memset(rb, 0, r->M * r->es);
    if (!c) {
        /* no engine traffic may be left for the raw poll to take */
        if ((st = rtopo_barrier(B.ctx)))
            fail("rtopo_barrier", st);
        bench_raw_scatter_begin(r->raw, r->host, r->node, r->nodes);
        rtopo__tool_barrier(B.ctx);
    } else {
        if ((st = rtopo_topo_set_scatter_algo(r->topo, (rtopo_scatter_algo_t)c->algo, c->x)))
            fail("rtopo_topo_set_scatter_algo", st);
        if (B.persistent && (st = rtopo_scatter_init(r->topo, r->sa, r->need, r->rb, r->M,
                                                     r->stride, r->es, &req)))
            fail("rtopo_scatter_init", st);
    }
    for (i = -warm; i < n; i++) {
        if (c) {
            if ((st = rtopo_barrier(B.ctx)))
                fail("rtopo_barrier", st);
        } else {
            rtopo__tool_barrier(B.ctx);
        }
        t0 = rtopo__now_ns();
        if (!c)
            st = bench_raw_scatter_round(r->raw, r->host, r->node, r->nodes, r->M * r->es,
                                         r->stride * r->es, (uint32_t)(i & 0xffff));
        else if (req)
            st = (st = rtopo_start(req)) ? st : rtopo_wait(req);
        else
            st = rtopo_scatter(r->topo, r->sa, r->need, r->rb, r->M, r->stride, r->es);
        if (st)
            fail(c ? c->name : r->raw->what, st);
        if (i >= 0)
            t[i] = (double)(rtopo__now_ns() - t0) * 1e-3;
        if (check && i == -1)
            sc_check(r, rb, c ? c->name : "raw");
    }
    if (check && warm == 0)
        sc_check(r, rb, c ? c->name : "raw");
    if (req)
        rtopo_req_free(req);
    if (!c)
        rtopo__tool_barrier(B.ctx);
}

static void bench_scatter(void)
{
    char bdesc[128];
    rtopo_ctx_t *ctx = B.ctx;
    int p = rtopo__tool_size(ctx), d = B.d, outside, i, k, st, ncol, me = rtopo__tool_rank(ctx);
    sc_col_t col[64];
    struct sc_run r;
    rtopo_mem_t *smem, *rmem;
    bench_raw_t rawt;
    size_t maxs = 0, maxr = 0, j;
    rtopo__tdesc_t td;
    struct stat3 (*res)[65];
    double (*pred)[65];
    long ovl[64];

    if (d < 0) {   /* from the job size: a host outside the cube if it fits */
        for (d = 0; d < 21 && (1 << d) + 1 < p; d++)
            ;
        if ((1 << d) + 1 != p)
            for (d = 0; d < 21 && (1 << d) < p; d++)
                ;
    }
    memset(&r, 0, sizeof(r));
    if ((st = rtopo_topo_hypercube_host(ctx, d, B.host, &r.topo))) {
        if (me == 0)
            fprintf(stderr, "rtopo-bench: scatter on a %d-cube with host rank %d over %d "
                    "ranks: %s (%s)\n", d, B.host, p, rtopo_strerror(st), rtopo_last_error());
        exit(2);
    }
    r.nodes = 1 << d;
    r.host = B.host;
    outside = p == r.nodes + 1;
    /* node number: the job ranks in order, without the host outside the cube */
    r.me_node = !outside ? me : me == B.host ? -1 : me < B.host ? me : me - 1;
    r.node = malloc(sizeof(int) * (size_t)r.nodes);
    for (i = 0; i < r.nodes; i++)
        r.node[i] = !outside ? i : i < B.host ? i : i + 1;
    r.es = (size_t)B.esize;
    ncol = sc_cols(col, d);
    /* overlaps and buffers */
    for (i = 0; i < B.nsizes; i++) {
        long M = B.sizes[i];
        if (M < 1)
            bench_usage_error("scatter --sizes: windows of at least 1 element (got %ld)", M);
        ovl[i] = !strcmp(B.overlap, "max") ? M - 1 : !strcmp(B.overlap, "half") ? M / 2 :
                 bench_parse_long("--overlap", B.overlap, 0, LONG_MAX);
        if (ovl[i] > M - 1)
            bench_usage_error("--overlap %ld: windows of %ld elements overlap by at most %ld",
                              ovl[i], M, M - 1);
        if (((size_t)(r.nodes - 1) * (size_t)(M - ovl[i]) + (size_t)M) * r.es > maxs)
            maxs = ((size_t)(r.nodes - 1) * (size_t)(M - ovl[i]) + (size_t)M) * r.es;
        if ((size_t)M * r.es > maxr)
            maxr = (size_t)M * r.es;
    }
    if (posix_memalign((void **)&r.rsa, 4096, maxs + 64) ||
        posix_memalign((void **)&r.rrb, 4096, maxr + 64))
        fail("memory", RTOPO_ERR_NOMEM);
    for (j = 0; j < maxs + 64; j++)
        r.rsa[j] = sc_pat(j);
    memset(r.rrb, 0, maxr + 64);
    if ((st = rtopo_mem_register(ctx, r.rsa, maxs + 64, &smem)) ||
        (st = rtopo_mem_register(ctx, r.rrb, maxr + 64, &rmem)))
        fail("rtopo_mem_register", st);
    r.sa = r.rsa;
    r.rb = r.rrb;
    if (B.unreg) {
        if (!(r.sa = malloc(maxs + 64)) || !(r.rb = malloc(maxr + 64)))
            fail("memory", RTOPO_ERR_NOMEM);
        memcpy(r.sa, r.rsa, maxs + 64);
    }
    if (bench_state(ctx)->thread_on)
        B.baseline = 0;    /* the thread would take the raw completions */
    if (B.baseline && (st = bench_raw_open(&rawt, ctx, 0, smem, rmem)))
        fail(rawt.what, st);
    r.raw = &rawt;
    res = calloc((size_t)B.nsizes, sizeof(*res));
    pred = calloc((size_t)B.nsizes, sizeof(*pred));
    if (!res || !pred)
        fail("memory", RTOPO_ERR_NOMEM);
    td = *rtopo__tool_desc(r.topo);
    if (!outside && (st = rtopo__tdesc_add_host(&td)))
        fail("descriptor", st);

    if (me == 0) {
        printf("# rtopo-bench scatter: %d ranks, hypercube of dimension %d, host rank %d %s, "
               "transport %s, %s%s\n", p, d, B.host, outside ? "outside the cube" :
               "on a node", rtopo__tool_provider(ctx),
               bench_buffers_desc(ctx, B.unreg, bdesc, sizeof(bdesc)),
               B.persistent ? ", persistent requests" : "");
        printf("# timing: barrier, t0, one scatter, t1 on every rank; per iteration the "
               "slowest rank; median and min over the iterations (%d blocks, each strategy "
               "in turn; every window checked once)\n", BLOCKS);
        printf("# model(us): the topology's cost model (what auto uses), schedule simulated "
               "event by event\n");
        if (B.baseline)
            printf("# raw: the host writes every window itself, one raw RDMA write with "
                   "immediate per node, registered memory; raw/med = raw median / median\n");
        printf("\n");
    }

    for (i = 0; i < B.nsizes; i++) {
        int it, b, per, off, cnt, a;
        double *t;
        size_t bytes;
        rtopo__scatter_cand_t cand[RTOPO__SCATTER_NCAND(21)];
        int ncand = 0, ca = 0, cx = 0;
        rtopo__sched_t *s = NULL;

        r.M = (size_t)B.sizes[i];
        r.stride = r.M - (size_t)ovl[i];
        r.need = (size_t)(r.nodes - 1) * r.stride + r.M;
        bytes = r.need * r.es;
        it = B.iters;
        if ((long)((256ul << 20) / bytes) < it)
            it = (int)((256ul << 20) / bytes);
        if (it < 5)
            it = 5;
        per = (it + BLOCKS - 1) / BLOCKS;
        /* the model's figures (the topology's model, as auto uses it) */
        for (a = 0; a < ncol; a++)
            pred[i][a] = -1;
        pred[i][64] = -1;
        if (rtopo__sched_scatter_auto_cand(&td, r.M, r.stride, r.es, rtopo__tool_model(r.topo),
                                           outside ? -1 : B.host, RTOPO__SCATTER_AUTO, cand,
                                           &ncand, &ca, &cx, &s) == RTOPO_OK) {
            rtopo__sched_free(s);
            for (a = 0; a < ncol; a++) {
                int best = -1, c2;
                if (col[a].algo == RTOPO_SCATTER_AUTO) {
                    col[a].chosen_algo = ca;
                    col[a].chosen_x = cx;
                }
                for (c2 = 0; c2 < ncand; c2++) {
                    int wa = col[a].algo == RTOPO_SCATTER_AUTO ? ca : col[a].algo;
                    int wx = col[a].algo == RTOPO_SCATTER_AUTO ? cx : col[a].x;
                    if (cand[c2].strategy != wa)
                        continue;
                    if (wx >= 0 ? cand[c2].x == wx || cand[c2].x < 0 :
                        best < 0 || cand[c2].model_time < cand[best].model_time)
                        best = c2;
                    if (wx >= 0 && cand[c2].x == wx)
                        break;
                }
                if (best >= 0) {
                    pred[i][a] = cand[best].model_time * 1e6;
                    if (col[a].x < 0 && col[a].algo != RTOPO_SCATTER_AUTO)
                        col[a].chosen_x = cand[best].x;
                }
            }
        }
        t = malloc(sizeof(double) * (size_t)it * (size_t)(ncol + 1));
        if (!t)
            fail("memory", RTOPO_ERR_NOMEM);
        for (b = 0, off = 0; off < it; b++, off += cnt) {
            cnt = it - off < per ? it - off : per;
            if (B.baseline)
                sc_block(&r, NULL, t + off, cnt, b ? 1 : B.warmup, b == 0);
            for (a = 0; a < ncol; a++)
                sc_block(&r, &col[a], t + (size_t)(a + 1) * it + off, cnt, b ? 1 : B.warmup,
                         b == 0);
        }
        if (B.baseline)
            res[i][64] = reduce_slowest(t, it);
        for (a = 0; a < ncol; a++)
            res[i][a] = reduce_slowest(t + (size_t)(a + 1) * it, it);
        free(t);

        if (me != 0)
            continue;
        printf("%s# M %zu elements of %zu bytes (%zu B per window), overlap %ld, stride %zu: "
               "host array %zu elements (%zu B), %d iterations\n", i ? "\n" : "", r.M, r.es,
               r.M * r.es, ovl[i], r.stride, r.need, bytes, it);
        printf("%-22s %11s %11s %11s %9s\n", "# strategy", "median(us)", "min(us)",
               "model(us)", "raw/med");
        for (a = 0; a < ncol; a++) {
            char name[64];
            sc_label(&col[a], name, sizeof(name));
            printf("%-22s %11.2f %11.2f %11.2f", name, res[i][a].med, res[i][a].min,
                   pred[i][a]);
            if (B.baseline)
                printf(" %9.3f\n", res[i][64].med / res[i][a].med);
            else
                printf(" %9s\n", "-");
            if (B.json)
                printf("{\"op\":\"scatter\",\"algo\":\"%s\",\"x\":%d,\"count\":%zu,"
                       "\"elem_size\":%zu,\"overlap\":%ld,\"median_us\":%.3f,\"min_us\":%.3f,"
                       "\"model_us\":%.3f,\"raw_median_us\":%.3f}\n",
                       rtopo__scatter_algo_name(col[a].algo == RTOPO_SCATTER_AUTO ?
                                                col[a].chosen_algo : col[a].algo),
                       col[a].algo == RTOPO_SCATTER_AUTO ? col[a].chosen_x : col[a].x >= 0 ?
                       col[a].x : col[a].chosen_x, r.M, r.es, ovl[i], res[i][a].med,
                       res[i][a].min, pred[i][a], B.baseline ? res[i][64].med : -1.0);
        }
        if (B.baseline)
            printf("%-22s %11.2f %11.2f %11s %9s\n", "raw (host writes all)", res[i][64].med,
                   res[i][64].min, "-", "1.000");
        {   /* fastest measured, and where auto's choice stands */
            int fa = -1, aa = -1;
            for (a = 0; a < ncol; a++) {
                if (col[a].algo == RTOPO_SCATTER_AUTO) {
                    aa = a;
                    continue;
                }
                if (fa < 0 || res[i][a].med < res[i][fa].med)
                    fa = a;
            }
            if (fa >= 0)
                printf("# fastest measured: %s, %.2f us", col[fa].name, res[i][fa].med);
            if (fa >= 0 && aa >= 0)
                printf("; auto (model's choice) %.2f us, %+.0f%%", res[i][aa].med,
                       100.0 * (res[i][aa].med / res[i][fa].med - 1.0));
            if (fa >= 0)
                printf("\n");
            /* per strategy with a block dimension: the best x measured and
             * the model's */
            for (k = RTOPO_SCATTER_SEQSCATTER; k <= RTOPO_SCATTER_DECREMENTAL; k++) {
                int bm = -1, bp = -1, nx = 0;
                for (a = 0; a < ncol; a++) {
                    if (col[a].algo != k || col[a].x < 0)
                        continue;
                    nx++;
                    if (bm < 0 || res[i][a].med < res[i][bm].med)
                        bm = a;
                    if (pred[i][a] >= 0 && (bp < 0 || pred[i][a] < pred[i][bp]))
                        bp = a;
                }
                if (nx > 1 && bm >= 0)
                    printf("# %s: best measured x=%d (%.2f us), model's x=%d (%.2f us "
                           "measured)\n", rtopo__scatter_algo_name(k), col[bm].x,
                           res[i][bm].med, bp >= 0 ? col[bp].x : -1,
                           bp >= 0 ? res[i][bp].med : -1.0);
            }
        }
    }
    if (B.baseline)
        bench_raw_close(&rawt);
    rtopo_mem_deregister(smem);
    rtopo_mem_deregister(rmem);
    rtopo_topo_free(r.topo);
    if (B.unreg) {
        free(r.sa);
        free(r.rb);
    }
    free(r.rsa);
    free(r.rrb);
    free(r.node);
    free(res);
    free(pred);
}

/* ---- shift-dim ---------------------------------------------------------- */

/* the arguments of the shift: the line displacement rule */
static void dim_ds(rtopo__dimshift_t *ds)
{
    memset(ds, 0, sizeof(*ds));
    ds->dim = B.dim;
    ds->a = B.have_rule ? B.ra : 0;
    ds->b = B.have_rule ? B.rb : B.q;
}

static int dim_start(rtopo_topo_t *topo, const uint8_t *sb, uint8_t *rb, size_t n,
                     rtopo_req_t **req)
{
    if (B.have_rule)
        return rtopo_shift_dim_rule_init(topo, B.dim, sb, rb, n, (int)B.ra, (int)B.rb, req);
    return rtopo_shift_dim_init(topo, B.dim, sb, rb, n, (int)B.q, req);
}

static int dim_call(rtopo_topo_t *topo, const uint8_t *sb, uint8_t *rb, size_t n)
{
    if (B.have_rule)
        return rtopo_shift_dim_rule(topo, B.dim, sb, rb, n, (int)B.ra, (int)B.rb);
    return rtopo_shift_dim(topo, B.dim, sb, rb, n, (int)B.q);
}

/* n timed shifts into t[] after `warmup` untimed ones; in place: sb == rb */
static void rtopo_run_dim(rtopo_topo_t *topo, size_t bytes, const uint8_t *sb, uint8_t *rb,
                          double *t, int n, int warmup)
{
    rtopo_req_t *req = NULL;
    uint64_t t0;
    int i, st;

    if (B.persistent && (st = dim_start(topo, sb, rb, bytes, &req)))
        fail("rtopo_shift_dim_init", st);
    rtopo_barrier(B.ctx);
    for (i = -warmup; i < n; i++) {
        t0 = rtopo__now_ns();
        if (req) {
            if ((st = rtopo_start(req)) || (st = rtopo_wait(req)))
                fail("persistent shift_dim", st);
        } else if ((st = dim_call(topo, sb, rb, bytes))) {
            fail(B.have_rule ? "rtopo_shift_dim_rule" : "rtopo_shift_dim", st);
        }
        if (i >= 0)
            t[i] = (double)(rtopo__now_ns() - t0) * 1e-3;
    }
    rtopo_req_free(req);
    rtopo_barrier(B.ctx);
}

/* what the executed schedule costs: the plan a request of these
 * arguments runs (the same the blocking call caches), simulated */
struct dim_traffic {
    uint64_t moves[RTOPO__LINK_COUNT];
    uint64_t link_moves, link_bytes;
    uint32_t steps, load;
    double model_us;
};

static void dim_traffic(rtopo_topo_t *topo, const uint8_t *sb, uint8_t *rb, size_t n,
                        const rtopo__model_t *model, struct dim_traffic *tr)
{
    rtopo_req_t *req;
    const rtopo__sched_t *s;
    rtopo__sim_result_t sim;
    uint32_t x;
    int c, st;

    memset(tr, 0, sizeof(*tr));
    tr->model_us = -1;
    if ((st = dim_start(topo, sb, rb, n, &req)))
        fail("rtopo_shift_dim_init", st);
    s = rtopo__tool_req_sched(req);
    for (x = 0; x < s->nxfers; x++)
        tr->link_bytes += rtopo__sched_xlen(s, x) * rtopo__sched_xnhops(s, x);
    if (rtopo__sim_run(s, model, &sim) == 0) {
        for (c = 0; c < RTOPO__LINK_COUNT; c++) {
            tr->moves[c] = sim.moves[c];
            if (c != RTOPO__LINK_LOCAL)
                tr->link_moves += sim.moves[c];
        }
        tr->steps = sim.steps;
        tr->load = sim.max_link_load;
        tr->model_us = sim.model_time * 1e6;
    }
    rtopo_req_free(req);
}

/* one shift of a pattern (every byte the rank number + 1), untimed:
 * the first and the last byte received must be the source's */
static void dim_verify(rtopo_topo_t *topo, size_t n, const uint8_t *sb, uint8_t *rb,
                       int src)
{
    int st;

    if (!n)
        return;
    if (sb != rb)
        memset((uint8_t *)sb, rtopo__tool_rank(B.ctx) + 1, n);
    memset(rb, sb == rb ? rtopo__tool_rank(B.ctx) + 1 : 0, n);
    rtopo_barrier(B.ctx);
    if ((st = dim_call(topo, sb, rb, n)))
        fail("shift_dim (check)", st);
    if (rb[0] != (uint8_t)(src + 1) || rb[n - 1] != (uint8_t)(src + 1)) {
        fprintf(stderr, "rtopo-bench: rank %d: shift-dim, %zu bytes: received %u...%u, "
                "expected %u from rank %d\n", rtopo__tool_rank(B.ctx), n, rb[0], rb[n - 1],
                (unsigned)(uint8_t)(src + 1), src);
        exit(1);
    }
}

static void bench_shift_dim(void)
{
    char bdesc[128];
    rtopo_ctx_t *ctx = B.ctx;
    int me = rtopo__tool_rank(ctx), i, st, nd, E, line, pos, d, dst, src, moving = 0, L;
    size_t maxb;
    uint8_t *sb, *rb, *usb, *urb, *isb, *irb;
    rtopo_mem_t *smem = NULL, *rmem = NULL;
    rtopo__dimshift_t ds;
    rtopo__model_t model;
    bench_raw_t rawt;
    rtopo_topo_t *topo;
    struct stat3 *raw, *res;
    struct dim_traffic tr;
    double ts = 0, tw = 0;
    char what[96];

    if ((st = make_topo(&topo)))
        fail("topology", st);
    nd = rtopo_topo_ndims(topo);
    if (B.dim < 0)
        B.dim = nd - 1;
    if ((E = rtopo_topo_extent(topo, B.dim)) < 0) {
        if (me == 0)
            fprintf(stderr, "rtopo-bench: shift-dim --dim %d on %s: %s\n", B.dim, B.topo,
                    rtopo_last_error());
        exit(2);
    }
    dim_ds(&ds);
    line = rtopo__cart_line(rtopo__tool_desc(topo), B.dim, rtopo__tool_me(topo), &pos);
    d = rtopo__dimshift_disp(rtopo__tool_desc(topo), &ds, line);
    dst = rtopo__tool_job_rank(topo, rtopo__cart_member(rtopo__tool_desc(topo), B.dim, line,
                                                          (pos + d) % E));
    src = rtopo__tool_job_rank(topo, rtopo__cart_member(rtopo__tool_desc(topo), B.dim, line,
                                                          (pos - d + E) % E));
    for (L = 0; L < rtopo__cart_nlines(rtopo__tool_desc(topo), B.dim); L++)
        moving |= rtopo__dimshift_disp(rtopo__tool_desc(topo), &ds, L) != 0;
    if (!moving || bench_state(ctx)->thread_on)
        B.baseline = 0;   /* local copies only, or the thread would take the raw events */
    maxb = alloc_bufs(&sb, &rb, me);
    if ((st = rtopo_mem_register(ctx, sb, maxb, &smem)) ||
        (st = rtopo_mem_register(ctx, rb, maxb, &rmem)))
        fail("rtopo_mem_register", st);
    usb = sb;
    urb = rb;
    if (B.unreg && (posix_memalign((void **)&usb, 4096, maxb) ||
                    posix_memalign((void **)&urb, 4096, maxb)))
        fail("memory", RTOPO_ERR_NOMEM);
    if (B.unreg) {
        memset(usb, me, maxb);
        memset(urb, 0, maxb);
    }
    /* in place: the receive buffer is both */
    isb = B.inplace ? urb : usb;
    irb = urb;
    raw = calloc((size_t)B.nsizes, sizeof(*raw));
    res = calloc((size_t)B.nsizes, sizeof(*res));
    if (!raw || !res)
        fail("memory", RTOPO_ERR_NOMEM);
    if (B.baseline) {
        if ((st = bench_raw_open(&rawt, ctx, 0, smem, rmem)))
            fail(rawt.what, st);
        bench_raw_peers(&rawt, dst, src);
    }
    for (i = 0; i < B.nsizes; i++) {
        size_t n = (size_t)B.sizes[i];
        int it = iters_for(n), b, per = (it + BLOCKS - 1) / BLOCKS, off, cnt;
        double *t = malloc(sizeof(double) * (size_t)it * 2);

        if (!t)
            fail("memory", RTOPO_ERR_NOMEM);
        dim_verify(topo, n, isb, irb, src);
        for (b = 0, off = 0; off < it; b++, off += cnt) {
            cnt = it - off < per ? it - off : per;
            if (B.baseline)
                raw_shift(&rawt, n, t + off, cnt, b ? 1 : B.warmup);
            rtopo_run_dim(topo, n, isb, irb, t + it + off, cnt, b ? 1 : B.warmup);
        }
        if (B.baseline)
            raw[i] = reduce(t, it);
        res[i] = reduce(t + it, it);
        free(t);
    }
    /* model fitted to the baseline, as for shift */
    rtopo__model_default(&model);
    model.chunk = rtopo__tool_params(ctx)->chunk_size;
    if (B.baseline && B.nsizes >= 2) {
        ts = raw[0].med * 1e-6;
        tw = (raw[B.nsizes - 1].med * 1e-6 - ts) / (double)(B.sizes[B.nsizes - 1] - B.sizes[0]);
        if (tw > 0)
            for (i = 0; i < RTOPO__LINK_COUNT; i++) {
                model.ts[i] = i == RTOPO__LINK_LOCAL ? 0 : ts;
                model.tw[i] = i == RTOPO__LINK_LOCAL ? 0 : tw;
                model.th[i] = -1;
            }
    }
    if (B.have_rule)
        snprintf(what, sizeof(what), "rule %ld*line + %ld", B.ra, B.rb);
    else
        snprintf(what, sizeof(what), "disp %ld", B.q);
    if (me == 0) {
        printf("# rtopo-bench shift-dim: %d rank%s, topology %s, dimension %d (%d lines of "
               "%d), %s, transport %s, %s%s%s\n", rtopo__tool_size(ctx),
               rtopo__tool_size(ctx) == 1 ? "" : "s",
               B.topo, B.dim, rtopo__cart_nlines(rtopo__tool_desc(topo), B.dim), E, what,
               rtopo__tool_provider(ctx), bench_buffers_desc(ctx, B.unreg, bdesc, sizeof(bdesc)),
               B.persistent ? ", persistent" : "", B.inplace ? ", in place" : "");
        if (B.baseline)
            printf("# raw: one raw RDMA write with immediate to the line neighbour (i + d(L)), "
                   "waiting for the one from i - d(L); a line with d(L) = 0 copies locally\n");
        if (B.baseline && tw > 0)
            printf("# model fitted to the baseline: ts %.2f us, tw %.4f ns/B (%.0f MB/s), "
                   "chunk %zu\n", ts * 1e6, tw * 1e9, 1e-6 / tw, model.chunk);
        printf("# moves: link hops of the executed schedule, all ranks (rtopo-sim's count); "
               "blocks/rank: bytes over links / (ranks x bytes)\n");
        printf("%12s %11s %11s %11s %11s %11s %7s %11s %7s %11s\n", "bytes", "median(us)",
               "min(us)", "MB/s", "raw(us)", "raw MB/s", "ratio", "model(us)", "moves",
               "blocks/rank");
    }
    for (i = 0; i < B.nsizes; i++) {
        size_t n = (size_t)B.sizes[i];
        struct stat3 r = res[i];
        double per = 0;

        dim_traffic(topo, isb, irb, n, &model, &tr);
        if (n)
            per = (double)tr.link_bytes / ((double)rtopo__tool_size(ctx) * (double)n);
        if (me != 0)
            continue;
        if (B.baseline)
            printf("%12zu %11.2f %11.2f %11.1f %11.2f %11.1f %7.3f %11.2f %7llu %11.3f\n", n,
                   r.med, r.min, mbps(n, r.med), raw[i].med, mbps(n, raw[i].med),
                   raw[i].med / r.med, tr.model_us, (unsigned long long)tr.link_moves, per);
        else
            printf("%12zu %11.2f %11.2f %11.1f %11s %11s %7s %11.2f %7llu %11.3f\n", n, r.med,
                   r.min, mbps(n, r.med), "-", "-", "-", tr.model_us,
                   (unsigned long long)tr.link_moves, per);
        if (B.json) {
            int c, first = 1;

            printf("{\"op\":\"shift-dim\",\"topo\":\"%s\",\"dim\":%d,", B.topo, B.dim);
            if (B.have_rule)
                printf("\"rule\":{\"a\":%ld,\"b\":%ld}", B.ra, B.rb);
            else
                printf("\"disp\":%ld", B.q);
            printf(",\"inplace\":%s,\"bytes\":%zu,\"median_us\":%.3f,\"min_us\":%.3f,"
                   "\"raw_median_us\":%.3f,\"model_us\":%.3f,\"steps\":%u,"
                   "\"max_link_load\":%u,\"link_moves\":%llu,\"blocks_per_rank\":%.4f,"
                   "\"moves\":{", B.inplace ? "true" : "false", n, r.med, r.min,
                   B.baseline ? raw[i].med : -1.0, tr.model_us, tr.steps, tr.load,
                   (unsigned long long)tr.link_moves, per);
            for (c = 0; c < RTOPO__LINK_COUNT; c++)
                if (tr.moves[c]) {
                    printf("%s\"%s\":%llu", first ? "" : ",", rtopo__link_name(c),
                           (unsigned long long)tr.moves[c]);
                    first = 0;
                }
            printf("}}\n");
        }
    }
    if (me == 0 && B.baseline)
        printf("\n# ratio = raw median / rtopo median (1.0: as fast as the raw write)\n");
    if (B.baseline)
        bench_raw_close(&rawt);
    free(raw);
    free(res);
    rtopo_topo_free(topo);
    rtopo_mem_deregister(smem);
    rtopo_mem_deregister(rmem);
    if (B.unreg) {
        free(usb);
        free(urb);
    }
    free(sb);
    free(rb);
}

/* ---- bcast, allreduce, scan --------------------------------------------- */

typedef struct cl_col {
    int raw;                    /* the broadcast's baseline */
    int persistent, unreg, algo;
    char variant[32];           /* "blocking/registered" */
} cl_col_t;

static struct {
    rtopo_topo_t *topo;
    uint8_t *sb, *rb, *usb, *urb;   /* registered (also raw), unregistered */
    uint8_t *exp;                   /* what this rank must hold */
    int *ranks, root_job;           /* the raw broadcast's nodes and root */
    bench_raw_t raw;
} CL;

static const int cl_order[3] = { RTOPO_COLL_TOPO, RTOPO_COLL_GENERIC, RTOPO_COLL_AUTO };

static uint8_t *cl_rbuf(const cl_col_t *c)
{
    return c->raw || !c->unreg ? CL.rb : CL.urb;
}

/* `warm` untimed iterations then n timed ones of column c into t[]; the
 * result is cleared before (but the root's broadcast buffer) and checked
 * element by element after */
static void cl_block(const cl_col_t *c, size_t bytes, double *t, int n, int warm)
{
    rtopo_req_t *req = NULL;
    uint8_t *rb = cl_rbuf(c);
    size_t cnt = bytes / 8, k;
    int i, st, me = rtopo__tool_rank(B.ctx);
    uint64_t t0;

    if (B.coll != RTOPO__COLL_BCAST || me != CL.root_job)
        memset(rb, 0x7f, bytes);
    if (c->raw) {
        /* no engine traffic may be left for the raw poll to take */
        if ((st = rtopo_barrier(B.ctx)))
            fail("rtopo_barrier", st);
        bench_raw_scatter_begin(&CL.raw, CL.root_job, CL.ranks, rtopo__tool_size(B.ctx));
        rtopo__tool_barrier(B.ctx);
    } else {
        if ((st = rtopo_topo_set_coll_algo(CL.topo, (rtopo_coll_algo_t)c->algo)))
            fail("rtopo_topo_set_coll_algo", st);
        if (c->persistent &&
            (st = bench_coll_call(CL.topo, B.coll, c->unreg ? CL.usb : CL.sb, rb, cnt,
                                  B.dtype, B.rop, B.root, &req)))
            fail("persistent request (rtopo_*_init)", st);
    }
    for (i = -warm; i < n; i++) {
        if (c->raw)
            rtopo__tool_barrier(B.ctx);
        else if ((st = rtopo_barrier(B.ctx)))
            fail("rtopo_barrier", st);
        t0 = rtopo__now_ns();
        if (c->raw)
            st = bench_raw_scatter_round(&CL.raw, CL.root_job, CL.ranks, rtopo__tool_size(B.ctx),
                                         bytes,
                                         0, (uint32_t)(i & 0xffff));
        else if (req)
            st = (st = rtopo_start(req)) ? st : rtopo_wait(req);
        else
            st = bench_coll_call(CL.topo, B.coll, c->unreg ? CL.usb : CL.sb, rb, cnt,
                                 B.dtype, B.rop, B.root, NULL);
        if (st)
            fail(c->raw ? CL.raw.what : B.op, st);
        if (i >= 0)
            t[i] = (double)(rtopo__now_ns() - t0) * 1e-3;
    }
    rtopo_req_free(req);
    if (c->raw)
        rtopo__tool_barrier(B.ctx);
    if ((k = bench_coll_diff(B.dtype, rb, CL.exp, cnt)) < cnt) {
        fprintf(stderr, "rtopo-bench: rank %d: %s %s %s, %zu bytes: element %zu is %.17g, "
                "expected %.17g\n", me, B.op, c->raw ? "raw" : c->variant,
                c->raw ? "" : rtopo__coll_algo_name(c->algo), bytes, k,
                bench_coll_elem(B.dtype, rb, k), bench_coll_elem(B.dtype, CL.exp, k));
        exit(1);
    }
}

/* the schedule of algorithm a for `bytes` as the call builds it, under the
 * topology's model (what auto uses): what ran, steps, model time (us);
 * returns the status of building it */
static int cl_sched(int a, size_t bytes, int *ran, int *steps, double *model_us)
{
    rtopo__coll_t c = { .op = B.coll, .algo = a, .dtype = B.dtype, .rop = B.rop,
                        .count = bytes / 8, .esize = 8, .root = B.root };
    rtopo__sim_result_t sim;
    rtopo__sched_t *s;
    int st;

    *ran = a;
    *steps = -1;
    *model_us = -1;
    if ((st = rtopo__sched_coll(rtopo__tool_desc(CL.topo), &c, rtopo__tool_model(CL.topo), &s)))
        return st;
    *ran = s->algo;
    *steps = (int)s->nsteps;
    if (rtopo__sim_run(s, rtopo__tool_model(CL.topo), &sim) == 0)
        *model_us = sim.model_time * 1e6;
    rtopo__sched_free(s);
    return RTOPO_OK;
}

static void bench_coll(void)
{
    rtopo_ctx_t *ctx = B.ctx;
    int p = rtopo__tool_size(ctx), me = rtopo__tool_rank(ctx);
    int i, a, v, k, st, ncol = 0, calgos = 0, b;
    char list[64], *tok, *save = NULL, nocoll[3][160];
    rtopo_mem_t *smem, *rmem;
    cl_col_t col[16];
    size_t maxb;

    /* --algo: a list of topo, generic, auto, or all (the default) */
    snprintf(list, sizeof(list), "%s", B.algo);
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!strcmp(tok, "all"))
            calgos |= 7;
        else if ((a = rtopo__coll_algo_parse(tok)) >= 0)
            calgos |= 1 << a;
        else
            bench_usage_error("--algo '%s': a list of topo, generic and auto, or all", tok);
    }
    for (i = 0; i < B.nsizes; i++)
        if (B.sizes[i] % 8)
            bench_usage_error("%s --sizes: %ld bytes is not a whole number of 8-byte elements", B.op,
                              B.sizes[i]);
    if ((st = make_topo(&CL.topo)))
        fail("topology", st);
    if (B.root >= p) {
        if (me == 0)
            fprintf(stderr, "rtopo-bench: bcast --root %d: the job has %d ranks\n", B.root, p);
        exit(2);
    }
    /* the algorithms the topology has, the way the call builds them */
    memset(nocoll, 0, sizeof(nocoll));
    for (a = 0; a < 3; a++) {
        int ran, steps;
        double m;
        if ((calgos & (1 << a)) && (st = cl_sched(a, B.sizes[0] >= 8 ? (size_t)B.sizes[0] : 8,
                                                  &ran, &steps, &m)))
            snprintf(nocoll[a], sizeof(nocoll[a]), "%s (%s)", rtopo_strerror(st),
                     rtopo_last_error());
    }
    /* the root's data: the topology rank is the job rank (no sub-topology) */
    CL.root_job = rtopo__tool_job_rank(CL.topo, B.root);
    if (B.coll != RTOPO__COLL_BCAST || p < 2 || bench_state(ctx)->thread_on)
        B.baseline = 0;   /* no raw write reduces; the thread would take the raw events */
    if (B.baseline) {
        col[ncol].raw = 1;
        snprintf(col[ncol++].variant, sizeof(col[0].variant), "raw");
    }
    for (v = 0; v < 4; v++) {
        int pers = v & 1, unreg = v >> 1;
        if (!(B.modes & (1 << pers)) || !(B.buffers & (1 << unreg)))
            continue;
        for (a = 0; a < 3; a++) {
            cl_col_t *c = &col[ncol];
            if (!(calgos & (1 << cl_order[a])) || nocoll[cl_order[a]][0])
                continue;
            memset(c, 0, sizeof(*c));
            c->persistent = pers;
            c->unreg = unreg;
            c->algo = cl_order[a];
            snprintf(c->variant, sizeof(c->variant), "%s/%s", pers ? "persistent" : "blocking",
                     unreg ? "unregistered" : "registered");
            ncol++;
        }
    }
    if (ncol == (B.baseline ? 1 : 0)) {
        if (me == 0) {
            fprintf(stderr, "rtopo-bench: %s on %s: no rtopo algorithm to measure:", B.op,
                    B.topo);
            for (a = 0; a < 3; a++)
                if (calgos & (1 << cl_order[a]))
                    fprintf(stderr, " %s: %s;", rtopo__coll_algo_name(cl_order[a]),
                            nocoll[cl_order[a]]);
            fputc('\n', stderr);
        }
        exit(1);
    }
    /* buffers: every rank's data (bcast: the root's, in its buffer) */
    maxb = alloc_bufs(&CL.sb, &CL.rb, 0);
    if (posix_memalign((void **)&CL.usb, 4096, maxb) ||
        posix_memalign((void **)&CL.urb, 4096, maxb) || !(CL.exp = malloc(maxb)) ||
        !(CL.ranks = malloc(sizeof(int) * (size_t)p)))
        fail("memory", RTOPO_ERR_NOMEM);
    bench_coll_fill(B.coll, B.dtype, B.rop, B.coll == RTOPO__COLL_BCAST ? B.root : me, CL.sb,
                    maxb / 8);
    memcpy(CL.usb, CL.sb, maxb);
    memcpy(CL.rb, CL.sb, maxb);
    memcpy(CL.urb, CL.sb, maxb);
    for (i = 0; i < p; i++)
        CL.ranks[i] = i;
    if ((st = rtopo_mem_register(ctx, CL.sb, maxb, &smem)) ||
        (st = rtopo_mem_register(ctx, CL.rb, maxb, &rmem)))
        fail("rtopo_mem_register", st);
    if (B.baseline && (st = bench_raw_open(&CL.raw, ctx, 0, smem, rmem)))
        fail(CL.raw.what, st);

    if (me == 0) {
        if (B.coll == RTOPO__COLL_BCAST)
            printf("# rtopo-bench bcast: %d ranks, topology %s, root %d: every rank gets the "
                   "root's count = bytes/8 %s elements; transport %s\n", p, B.topo, B.root,
                   bench_coll_dtype_name(B.dtype), rtopo__tool_provider(ctx));
        else
            printf("# rtopo-bench %s: %d ranks, topology %s, operator %s: rank r gets the %s, "
                   "element by element, of the count = bytes/8 %s elements of %s; transport "
                   "%s\n", B.op, p, B.topo, bench_coll_rop_name(B.rop),
                   bench_coll_rop_name(B.rop), bench_coll_dtype_name(B.dtype),
                   B.coll == RTOPO__COLL_SCAN ? "ranks 0..r (inclusive prefix)" : "every rank",
                   rtopo__tool_provider(ctx));
        printf("# timing: barrier, t0, one %s, t1 on every rank; per iteration the slowest "
               "rank; median and min over the iterations (%d blocks, each column in turn; "
               "every element of every result checked after each block)\n", B.op, BLOCKS);
        printf("# algorithms: topo = RTOPO_COLL_TOPO, the topology's own (OTIS: over "
               "electronic and OTIS links; other topologies: the generic one); generic = "
               "RTOPO_COLL_GENERIC, binomial tree (bcast) or recursive doubling (allreduce, "
               "scan); auto = RTOPO_COLL_AUTO, the topology's cost model picks per size "
               "(\"auto->topo\" names its choice)\n");
        printf("# variant: blocking call, or persistent request (rtopo_%s_init once per size "
               "and block, then rtopo_start + rtopo_wait); buffers registered with "
               "rtopo_mem_register, or unregistered\n", B.op);
        printf("# model(us): the topology's cost model (what auto uses), schedule simulated "
               "event by event; steps: the schedule's\n");
        if (B.baseline)
            printf("# raw: the root writes the whole buffer to every other rank itself, one "
                   "raw RDMA write with immediate per rank, registered memory (scatter's "
                   "baseline with one window for all): a flat broadcast with nothing of rtopo "
                   "on top; raw/med = raw median / median\n");
        else if (B.coll != RTOPO__COLL_BCAST)
            printf("# raw: none, a reduction combines data between its steps, which no raw "
                   "write of the same bytes does\n");
        for (a = 0; a < 3; a++)
            if ((calgos & (1 << cl_order[a])) && nocoll[cl_order[a]][0])
                printf("# %s: not measured: %s\n", rtopo__coll_algo_name(cl_order[a]),
                       nocoll[cl_order[a]]);
    }

    for (i = 0; i < B.nsizes; i++) {
        size_t n = (size_t)B.sizes[i];
        int it = iters_for(n), per = (it + BLOCKS - 1) / BLOCKS, off, cnt, raw = -1;
        struct stat3 res[16];
        char name[16][32];
        double *t = malloc(sizeof(double) * (size_t)it * (size_t)ncol);

        if (!t)
            fail("memory", RTOPO_ERR_NOMEM);
        bench_coll_expect(B.coll, B.dtype, B.rop, me, p, B.root, CL.exp, n / 8);
        for (b = 0, off = 0; off < it; b++, off += cnt) {
            cnt = it - off < per ? it - off : per;
            for (k = 0; k < ncol; k++)
                cl_block(&col[k], n, t + (size_t)k * it + off, cnt, b ? 1 : B.warmup);
        }
        for (k = 0; k < ncol; k++) {
            res[k] = reduce_slowest(t + (size_t)k * it, it);
            if (col[k].raw)
                raw = k;
        }
        free(t);
        if (me != 0)
            continue;
        printf("\n# %zu bytes: %zu %s element%s per rank, %d iterations\n", n, n / 8,
               bench_coll_dtype_name(B.dtype), n == 8 ? "" : "s", it);
        printf("# %-23s %-14s %11s %11s %11s %5s %9s\n", "variant", "algorithm",
               "median(us)", "min(us)", "model(us)", "steps", "raw/med");
        for (k = 0; k < ncol; k++) {
            int ran, steps;
            double model;

            if (col[k].raw) {
                printf("  %-23s %-14s %11.2f %11.2f %11s %5s %9s\n", "raw (root writes all)",
                       "-", res[k].med, res[k].min, "-", "-", "1.000");
                continue;
            }
            cl_sched(col[k].algo, n, &ran, &steps, &model);
            snprintf(name[k], sizeof(name[k]), "%s%s%s", rtopo__coll_algo_name(col[k].algo),
                     ran != col[k].algo ? "->" : "", ran != col[k].algo ?
                     rtopo__coll_algo_name(ran) : "");
            printf("  %-23s %-14s %11.2f %11.2f %11.2f %5d", col[k].variant, name[k],
                   res[k].med, res[k].min, model, steps);
            if (raw >= 0)
                printf(" %9.3f\n", res[k].med > 0 ? res[raw].med / res[k].med : 0.0);
            else
                printf(" %9s\n", "-");
            if (B.json)
                printf("{\"op\":\"%s\",\"topo\":\"%s\",\"dtype\":\"%s\",\"%s\":%d%s%s%s,"
                       "\"mode\":\"%s\",\"buffers\":\"%s\",\"algo\":\"%s\",\"ran\":\"%s\","
                       "\"bytes\":%zu,\"count\":%zu,\"median_us\":%.3f,\"min_us\":%.3f,"
                       "\"model_us\":%.3f,\"steps\":%d,\"raw_median_us\":%.3f}\n", B.op,
                       B.topo, bench_coll_dtype_name(B.dtype),
                       B.coll == RTOPO__COLL_BCAST ? "root" : "ranks",
                       B.coll == RTOPO__COLL_BCAST ? B.root : p,
                       B.coll == RTOPO__COLL_BCAST ? "" : ",\"reduce_op\":\"",
                       B.coll == RTOPO__COLL_BCAST ? "" : bench_coll_rop_name(B.rop),
                       B.coll == RTOPO__COLL_BCAST ? "" : "\"",
                       col[k].persistent ? "persistent" : "blocking",
                       col[k].unreg ? "unregistered" : "registered",
                       rtopo__coll_algo_name(col[k].algo), rtopo__coll_algo_name(ran), n,
                       n / 8, res[k].med, res[k].min, model, steps,
                       raw >= 0 ? res[raw].med : -1.0);
        }
        {   /* per variant: the fastest algorithm measured, and auto's */
            for (v = 0; v < ncol; v++) {
                int fa = -1, aa = -1;
                if (col[v].raw || (v > 0 && !col[v - 1].raw &&
                                   !strcmp(col[v - 1].variant, col[v].variant)))
                    continue;   /* once per variant, at its first column */
                for (k = v; k < ncol && !strcmp(col[k].variant, col[v].variant); k++) {
                    if (col[k].algo == RTOPO_COLL_AUTO)
                        aa = k;
                    else if (fa < 0 || res[k].med < res[fa].med)
                        fa = k;
                }
                if (fa >= 0 && aa >= 0)
                    printf("# %s: fastest measured %s, %.2f us; %s %.2f us, %+.0f%%\n",
                           col[v].variant, name[fa], res[fa].med, name[aa], res[aa].med,
                           100.0 * (res[aa].med / res[fa].med - 1.0));
            }
        }
    }
    if (B.baseline)
        bench_raw_close(&CL.raw);
    rtopo_mem_deregister(smem);
    rtopo_mem_deregister(rmem);
    rtopo_topo_free(CL.topo);
    free(CL.sb);
    free(CL.rb);
    free(CL.usb);
    free(CL.urb);
    free(CL.exp);
    free(CL.ranks);
}

static void parse_sizes(const char *s)
{
    B.nsizes = bench_parse_sizes(s, B.sizes, 64, 0, "byte counts", "8,1024,...");
}

int main(int argc, char **argv)
{
    static const char *const with_value[] = {
        "--topo", "--algo", "--q", "--sizes", "--iters", "--warmup", "--hops", "--d",
        "--host", "--esize", "--overlap", "--x", "--dim", "--disp", "--rule", "--modes",
        "--buffers", "--root", "--op", "--dtype"
    };
    const char *o;
    size_t k;
    int i, st, have_q = 0, have_coll_opt = 0;

    bench_cli.prog = "rtopo-bench";
    bench_cli.usage = usage;
    for (i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
    if (argc < 2)
        bench_usage_error("no operation given (shift, shift-dim, route, scatter, bcast, allreduce "
                          "or scan)");
    if (strcmp(argv[1], "shift") && strcmp(argv[1], "shift-dim") && strcmp(argv[1], "route") &&
        strcmp(argv[1], "scatter") && bench_coll_op_parse(argv[1]) < 0)
        bench_usage_error("unknown operation '%s' (shift, shift-dim, route, scatter, bcast, "
                          "allreduce or scan)", argv[1]);
    B.op = argv[1];
    B.coll = bench_coll_op_parse(B.op) > 0 ? bench_coll_op_parse(B.op) : 0;
    /* scatter: window elements; shift and route: bytes */
    parse_sizes(B.coll ? "8,1024,65536,1048576" : strcmp(B.op, "scatter") ? "8:16777216" :
                "1024,16384,262144");
    if (!strcmp(B.op, "scatter") || B.coll)
        B.algo = "all";
    for (i = 2; i < argc; i++) {
        o = argv[i];
        for (k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
            if (!strcmp(o, with_value[k]) && i + 1 >= argc)
                bench_usage_error("%s needs a value", o);
        if (!strcmp(o, "--topo")) B.topo = argv[++i];
        else if (!strcmp(o, "--algo")) B.algo = argv[++i];
        else if (!strcmp(o, "--q")) {
            B.q = bench_parse_long(o, argv[++i], LONG_MIN, LONG_MAX);
            have_q = 1;
        }
        else if (!strcmp(o, "--sizes")) parse_sizes(argv[++i]);
        else if (!strcmp(o, "--iters")) B.iters = (int)bench_parse_long(o, argv[++i], 1, INT_MAX);
        else if (!strcmp(o, "--warmup")) B.warmup = (int)bench_parse_long(o, argv[++i], 0, INT_MAX);
        else if (!strcmp(o, "--hops")) B.hops = (int)bench_parse_long(o, argv[++i], 1, INT_MAX - 1);
        else if (!strcmp(o, "--d")) B.d = (int)bench_parse_long(o, argv[++i], 0, 20);
        else if (!strcmp(o, "--host")) B.host = (int)bench_parse_long(o, argv[++i], 0, INT_MAX);
        else if (!strcmp(o, "--esize")) B.esize = (int)bench_parse_long(o, argv[++i], 1, 1 << 20);
        else if (!strcmp(o, "--overlap")) {
            B.overlap = argv[++i];
            if (strcmp(B.overlap, "max") && strcmp(B.overlap, "half"))
                bench_parse_long(o, B.overlap, 0, LONG_MAX);
        } else if (!strcmp(o, "--x")) {
            if (strcmp(argv[++i], "all") && strcmp(argv[i], "model"))
                bench_usage_error("--x is all or model (got '%s')", argv[i]);
            B.xall = !strcmp(argv[i], "all");
        }
        else if (!strcmp(o, "--dim")) B.dim = (int)bench_parse_long(o, argv[++i], 0, 31);
        else if (!strcmp(o, "--disp")) {
            B.q = bench_parse_long(o, argv[++i], INT_MIN, INT_MAX);
            B.have_disp = 1;
        }
        else if (!strcmp(o, "--rule")) {
            char *comma = strchr(argv[++i], ',');
            if (!comma)
                bench_usage_error("--rule '%s': expected A,B (line L shifts by A*L + B)", argv[i]);
            *comma = '\0';
            B.ra = bench_parse_long("--rule A", argv[i], INT_MIN, INT_MAX);
            B.rb = bench_parse_long("--rule B", comma + 1, INT_MIN, INT_MAX);
            B.have_rule = 1;
        }
        else if (!strcmp(o, "--inplace")) B.inplace = 1;
        else if (!strcmp(o, "--modes"))
            B.modes = bench_parse_pair_opt(o, argv[++i], "blocking", "persistent");
        else if (!strcmp(o, "--buffers"))
            B.buffers = bench_parse_pair_opt(o, argv[++i], "registered", "unregistered");
        else if (!strcmp(o, "--root")) {
            B.root = (int)bench_parse_long(o, argv[++i], 0, INT_MAX);
            have_coll_opt = 1;
        } else if (!strcmp(o, "--op")) {
            if ((B.rop = bench_coll_rop_parse(argv[++i])) < 0)
                bench_usage_error("--op '%s': sum, prod, min or max", argv[i]);
            have_coll_opt = 1;
        } else if (!strcmp(o, "--dtype")) {
            if ((B.dtype = bench_coll_dtype_parse(argv[++i])) < 0)
                bench_usage_error("--dtype '%s': int64 or double", argv[i]);
            have_coll_opt = 1;
        }
        else if (!strcmp(o, "--unregistered")) B.unreg = 1;
        else if (!strcmp(o, "--persistent")) B.persistent = 1;
        else if (!strcmp(o, "--no-baseline")) B.baseline = 0;
        else if (!strcmp(o, "--json")) B.json = 1;
        else bench_usage_error("unknown option '%s'", o);
    }
    if (strcmp(B.op, "shift-dim") && (B.dim >= 0 || B.have_disp || B.have_rule || B.inplace))
        bench_usage_error("--dim, --disp, --rule and --inplace go with shift-dim");
    if (B.have_disp && B.have_rule)
        bench_usage_error("shift-dim: give --disp or --rule, not both");
    if (!strcmp(B.op, "shift-dim") && (have_q || strcmp(B.algo, "auto")))
        bench_usage_error("shift-dim takes no --q or --algo (the displacement is --disp)");
    if (!B.coll && (have_coll_opt || B.modes || B.buffers))
        bench_usage_error("--modes, --buffers, --root, --op and --dtype go with bcast, allreduce "
                          "and scan");
    if (B.coll) {
        if (have_q)
            bench_usage_error("%s takes no --q", B.op);
        if (B.coll == RTOPO__COLL_BCAST ? B.rop != RTOPO_SUM : B.root != 0)
            bench_usage_error("%s takes no %s", B.op, B.coll == RTOPO__COLL_BCAST ? "--op" :
                              "--root");
        /* --persistent and --unregistered as for the other operations */
        if (!B.modes)
            B.modes = B.persistent ? 2 : 1;
        if (!B.buffers)
            B.buffers = B.unreg ? 2 : 1;
    }

    if ((st = rtopo_init(NULL, &B.ctx)))
        fail("rtopo_init", st);
    if (!strcmp(B.op, "shift"))
        bench_shift();
    else if (!strcmp(B.op, "shift-dim"))
        bench_shift_dim();
    else if (!strcmp(B.op, "scatter"))
        bench_scatter();
    else if (B.coll)
        bench_coll();
    else
        bench_route();
    if ((st = rtopo_finalize(B.ctx)))
        fail("rtopo_finalize", st);
    return 0;
}
