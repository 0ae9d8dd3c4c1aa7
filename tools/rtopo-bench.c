/*
 * rtopo-bench - measures rtopo collectives over a real transport, with the
 * raw transport measured between the same ranks in the same run.
 *
 *   rtopo-run -n N rtopo-bench shift [--topo T] [--algo A|all] [--q Q]
 *        [--sizes LIST|MIN:MAX] [--iters N] [--warmup N] [--unregistered]
 *        [--persistent] [--no-baseline] [--json]
 *   rtopo-run -n N rtopo-bench route --hops H [--sizes ...]
 *
 * shift: every rank shifts `bytes` to (i+q) mod p; the baseline is one raw
 * RDMA write with immediate data of the same size from i to (i+q) mod p,
 * each rank waiting for its incoming write: the same communication
 * pattern with nothing of rtopo on top.  The model column predicts each
 * algorithm with ts and tw fitted to the baseline just measured.
 *
 * route: one transfer from rank 0 to rank H over H ring hops (pipelined
 * forwarding) against the same transfer over one hop.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo_int.h"
#include "bench_raw.h"

struct stat3 { double med, min; };

#define BLOCKS 5   /* measurement blocks per size, alternating baseline and rtopo */

static struct {
    rtopo_ctx_t *ctx;
    const char *op, *topo, *algo;
    long q;
    long sizes[64];
    int nsizes, iters, warmup, unreg, persistent, baseline, json, hops;
} B = { .op = "shift", .topo = "ring", .algo = "auto", .q = 1, .iters = 200,
        .warmup = 10, .baseline = 1, .hops = 4 };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rtopo-bench shift [--topo ring|mesh:RxC|hypercube:D|otis-mesh:N|otis-hypercube:N]\n"
            "                   [--algo auto|ring|mesh|hypercube|ecube|direct|all] [--q Q]\n"
            "                   [--sizes LIST|MIN:MAX] [--iters N] [--warmup N]\n"
            "                   [--unregistered] [--persistent] [--no-baseline] [--json]\n"
            "       rtopo-bench route [--hops H] [--sizes ...] [--iters N]\n"
            "       rtopo-bench --help\n"
            "run it under rtopo-run (or another launcher rtopo can bootstrap from)\n");
}

/* a mistake on the command line: what it is, then the usage; exit 2 */
static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *fmt, ...)
{
    va_list ap;

    fputs("rtopo-bench: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    usage(stderr);
    exit(2);
}

static long parse_long(const char *opt, const char *s, long lo, long hi)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 0);
    if (errno || end == s || *end)
        usage_error("%s '%s' is not an integer", opt, s);
    if (v < lo)
        usage_error("%s must be at least %ld (got %ld)", opt, lo, v);
    if (v > hi)
        usage_error("%s must be at most %ld (got %ld)", opt, hi, v);
    return v;
}

static void fail(const char *what, int st)
{
    fprintf(stderr, "rtopo-bench: %s: %s (%s)\n", what, rtopo_strerror(st), rtopo_last_error());
    exit(1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* this rank's median and minimum, then the slowest rank's median and the
 * fastest minimum across ranks */
static struct stat3 reduce(double *t, int n)
{
    struct stat3 mine, *all;
    int i, p = rtopo_size(B.ctx);

    qsort(t, (size_t)n, sizeof(*t), cmp_double);
    mine.med = t[n / 2];
    mine.min = t[0];
    all = malloc(sizeof(*all) * (size_t)p);
    if (!all || rtopo__boot_allgather(B.ctx->boot, &mine, all, sizeof(mine)))
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
    rtopo__boot_barrier(B.ctx->boot);
    for (i = -warmup; i < n; i++) {
        t0 = rtopo__now_ns();
        if ((st = bench_raw_round(raw, bytes, (uint32_t)(i & 0xffff))))
            fail(raw->what, st);
        if (i >= 0)
            t[i] = (double)(rtopo__now_ns() - t0) * 1e-3;
    }
    rtopo__boot_barrier(B.ctx->boot);
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

static int make_topo(rtopo_topo_t **t)
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
    rtopo_ctx_t *ctx = B.ctx;
    int me = ctx->rank, i, a, st, algos[8], nalgo = 0;
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
    if (((B.q % ctx->size) + ctx->size) % ctx->size == 0)
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
        ok[a] = rtopo__sched_shift(&topo->desc, algos[a], B.q, 1, &model, &probe) == 0;
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
    model.chunk = ctx->params.chunk_size;
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
        printf("# rtopo-bench shift: %d rank%s, topology %s, q %ld, transport %s, %s buffers%s\n",
               ctx->size, ctx->size == 1 ? "" : "s", B.topo, B.q, ctx->tlattr.provider,
               B.unreg ? "unregistered" : "registered", B.persistent ? ", persistent" : "");
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

            if (rtopo__sched_shift(&topo->desc, algos[a], B.q, n, &model, &s) == 0) {
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
                if (rtopo__sched_shift(&topo->desc, algos[a], B.q, (size_t)B.sizes[i], &model,
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
    rtopo__opdesc_t d;
    rtopo__sched_t *s;
    rtopo_req_t *req;
    int it = iters_for(bytes), i, k, st;
    double *t = malloc(sizeof(double) * (size_t)it);
    uint64_t t0;

    if ((st = rtopo__sched_alloc(&topo->desc, 1, (uint32_t)h, &s)))
        fail("schedule", st);
    s->algo = RTOPO_SHIFT_RING;
    s->nsteps = (uint32_t)h;
    s->xfers[0].src = 0;
    s->xfers[0].dst = h;
    s->xfers[0].src_buf = RTOPO__BUF_SEND;
    s->xfers[0].dst_buf = RTOPO__BUF_RECV;
    s->xfers[0].nhops = (uint32_t)h;
    s->xfers[0].hop0 = 0;
    s->xfers[0].len = bytes;
    for (k = 0; k < h; k++) {
        s->hops[k].to = k + 1;
        s->hops[k].step = (uint32_t)k;
        s->hops[k].link = RTOPO__LINK_RING;
        s->hops[k].dir = 1;
    }
    rtopo__opdesc_sched(&d, topo, 700 + h, bytes);
    if ((st = rtopo__req_sched(topo, s, &d, sb, bytes, rb, bytes, &req)))
        fail("route request", st);
    for (i = -B.warmup; i < it; i++) {
        rtopo_barrier(B.ctx);
        t0 = rtopo__now_ns();
        if ((st = rtopo_start(req)) || (st = rtopo_wait(req)))
            fail("route", st);
        if (i >= 0)
            t[i] = B.ctx->rank == h ? (double)(rtopo__now_ns() - t0) * 1e-3 : 0;
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

    if (ctx->size < B.hops + 1) {
        if (ctx->rank == 0)
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
    if (ctx->rank == 0)
        printf("# rtopo-bench route: rank 0 -> rank %d over %d ring hops, pipelined in "
               "%zu-byte chunks (depth %ld), against one hop; transport %s\n"
               "%12s %14s %14s %9s %12s\n", B.hops, B.hops, ctx->params.chunk_size,
               ctx->params.pipeline_depth, ctx->tlattr.provider, "bytes", "1 hop (us)",
               "H hops (us)", "ratio", "H-hop MB/s");
    for (i = 0; i < B.nsizes; i++) {
        size_t n = (size_t)B.sizes[i];
        struct stat3 one = route_once(topo, 1, n, sb, rb);
        struct stat3 many = route_once(topo, B.hops, n, sb, rb);
        if (ctx->rank == 0)
            printf("%12zu %14.2f %14.2f %9.3f %12.1f\n", n, one.med, many.med,
                   many.med / one.med, mbps(n, many.med));
    }
    rtopo_mem_deregister(smem);
    rtopo_mem_deregister(rmem);
    rtopo_topo_free(topo);
    free(sb);
    free(rb);
}

static void parse_sizes(const char *s)
{
    const char *arg = s;
    long lo, hi, v;
    char *end;

    B.nsizes = 0;
    if (sscanf(s, "%ld:%ld", &lo, &hi) == 2 && !strchr(s, ',')) {
        if (lo < 0 || hi < lo)
            usage_error("--sizes %s: need 0 <= MIN <= MAX", arg);
        B.sizes[B.nsizes++] = lo;
        for (v = lo ? lo * 2 : 1; v <= hi && B.nsizes < 64; v *= 2)
            B.sizes[B.nsizes++] = v;
        return;
    }
    while (*s && B.nsizes < 64) {
        v = strtol(s, &end, 0);
        if (end == s || v < 0 || (*end && *end != ','))
            usage_error("--sizes '%s' is not a list of byte counts (8,1024,...) "
                        "or MIN:MAX", arg);
        B.sizes[B.nsizes++] = v;
        s = *end == ',' ? end + 1 : end;
    }
    if (B.nsizes == 0)
        usage_error("--sizes '%s' names no size", arg);
}

int main(int argc, char **argv)
{
    static const char *const with_value[] = {
        "--topo", "--algo", "--q", "--sizes", "--iters", "--warmup", "--hops"
    };
    const char *o;
    size_t k;
    int i, st;

    for (i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
    if (argc < 2)
        usage_error("no operation given (shift or route)");
    if (strcmp(argv[1], "shift") && strcmp(argv[1], "route"))
        usage_error("unknown operation '%s' (shift or route)", argv[1]);
    B.op = argv[1];
    parse_sizes("8:16777216");
    for (i = 2; i < argc; i++) {
        o = argv[i];
        for (k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
            if (!strcmp(o, with_value[k]) && i + 1 >= argc)
                usage_error("%s needs a value", o);
        if (!strcmp(o, "--topo")) B.topo = argv[++i];
        else if (!strcmp(o, "--algo")) B.algo = argv[++i];
        else if (!strcmp(o, "--q")) B.q = parse_long(o, argv[++i], LONG_MIN, LONG_MAX);
        else if (!strcmp(o, "--sizes")) parse_sizes(argv[++i]);
        else if (!strcmp(o, "--iters")) B.iters = (int)parse_long(o, argv[++i], 1, INT_MAX);
        else if (!strcmp(o, "--warmup")) B.warmup = (int)parse_long(o, argv[++i], 0, INT_MAX);
        else if (!strcmp(o, "--hops")) B.hops = (int)parse_long(o, argv[++i], 1, INT_MAX - 1);
        else if (!strcmp(o, "--unregistered")) B.unreg = 1;
        else if (!strcmp(o, "--persistent")) B.persistent = 1;
        else if (!strcmp(o, "--no-baseline")) B.baseline = 0;
        else if (!strcmp(o, "--json")) B.json = 1;
        else usage_error("unknown option '%s'", o);
    }
    if ((st = rtopo_init(NULL, &B.ctx)))
        fail("rtopo_init", st);
    if (!strcmp(B.op, "shift"))
        bench_shift();
    else
        bench_route();
    if ((st = rtopo_finalize(B.ctx)))
        fail("rtopo_finalize", st);
    return 0;
}
