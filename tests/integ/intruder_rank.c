/*
 * intruder_rank - the job side of the intruder test (intruder.sh).
 *
 *   INTRUDER_ADDRS=FILE rtopo-run -n 4 intruder_rank [--iters N] [--nap-ms MS]
 *                                                    [--wait-ms MS]
 *   (defaults: 300 shifts, 10 ms naps: about 3.5 s; 15 s waits)
 *
 * Every rank shifts a ring by one, N times (after 60 warm-up shifts), sizes
 * cycling 8 B, 4 KiB, 64 KiB, from registered and unregistered buffers in
 * turn, each with fresh data that depends on the sender and the iteration,
 * and checks every byte it receives and that nothing beyond the data was
 * written.  It naps between shifts so the run lasts while an outside
 * process (intruder.c) sends forged control messages to the ranks.
 *
 * Rank 0 publishes what the intruder needs to aim at the ranks and nothing
 * secret: every rank's libfabric address (as every rank has it from the
 * bootstrap), the provider, the ring's topology id, and per size the
 * signature and transfer index of the operation (computable by anyone who
 * has the source).  The per-job tokens are NOT published.  FILE is written
 * to FILE.tmp, then renamed; rank 0 then waits (at most --wait-ms) for
 * FILE.ready, written by the intruder once it can send, before the ranks
 * start; after the shifts it waits for FILE.done (the attack is over)
 * before the final barrier, so the last forged messages are processed
 * before the counts are taken.
 *
 * Each rank prints one line
 *   RESULT rank=R ok=N bad=N fail=N status=NAME:N,... rss0_kb=N rss1_kb=N
 *          heap0_kb=N heap1_kb=N forged=N secs=S
 * (resident memory from /proc/self/status and malloc'd bytes in use, after
 * the warm-up and at the end; forged: control messages the engine dropped
 * as not sent by a rank of the job)
 * and exits 1 when any byte was wrong or any call failed.
 */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <malloc.h>
#include "rtopo_int.h"
#include "integ_util.h"

#define NSIZES 3
#define WARMUP 60         /* every size, registered and not, 10 times */
#define CAP    65536u     /* the largest size */
#define GUARD  4096u      /* checked to stay untouched after the data */
#define POISON 0xA5

static const size_t sizes[NSIZES] = { 8, 4096, 65536 };

static long rss_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (!strncmp(line, "VmRSS:", 6)) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

/* heap in use (malloc'd, not freed), kB */
static long heap_kb(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (long)((mi.uordblks + mi.hblkhd) / 1024);
}

static int wait_file(const char *path, int ms)
{
    double end = iu_now() + ms / 1000.0;

    while (access(path, F_OK) != 0) {
        if (iu_now() > end)
            return -1;
        iu_nap_ms(5);
    }
    return 0;
}

/* the plan of a ring shift by 1 of `bytes`: cached by the warm-up */
static rtopo__plan_t *plan_of(rtopo_topo_t *t, size_t bytes)
{
    rtopo__plan_t *plan = NULL;

    if (rtopo__plan_get(t, 1, bytes, t->shift_algo, &plan) != RTOPO_OK)
        return NULL;
    rtopo__plan_put(plan);   /* the cache keeps its own reference */
    return plan;
}

/* rank 0: FILE.tmp, then rename */
static int publish(rtopo_ctx_t *ctx, rtopo_topo_t *ring, const char *path)
{
    char tmp[4096];
    const char *prov = ctx->tlattr.provider;
    FILE *f;
    int r, i, x;
    uint32_t k;

    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    if (!strncmp(prov, "ofi:", 4))
        prov += 4;
    fprintf(f, "provider %s\n", prov);
    fprintf(f, "ranks %d\n", ctx->size);
    fprintf(f, "topo %u\n", ring->id);
    fprintf(f, "ctrl_size %zu\n", ctx->ctrl_size);
    fprintf(f, "eager_limit %llu\n", (unsigned long long)ctx->params.eager_limit);
    for (r = 0; r < ctx->size; r++) {
        fprintf(f, "addr %d %u ", r, ctx->peers[r].addr_len);
        for (k = 0; k < ctx->peers[r].addr_len; k++)
            fprintf(f, "%02x", (unsigned char)ctx->peers[r].addr[k]);
        fputc('\n', f);
    }
    /* seq s runs sizes[s % NSIZES]; for each size: its signature and,
     * per receiving rank, the transfer (and hop) that reaches it */
    for (i = 0; i < NSIZES; i++) {
        rtopo__plan_t *plan = plan_of(ring, sizes[i]);

        if (!plan) {
            fclose(f);
            fprintf(stderr, "no plan for %zu bytes: %s\n", sizes[i], rtopo_last_error());
            return -1;
        }
        fprintf(f, "size %d %zu sig %u", i, sizes[i], plan->sig);
        for (r = 0; r < ctx->size; r++) {
            int xf = -1, hop = 0;
            for (x = 0; x < (int)plan->sched->nxfers; x++) {
                const rtopo__xfer_t xpv = rtopo__sched_xfer(plan->sched, x), *xp = &xpv;
                if (xp->dst == r && xp->src == iu_mod(r - 1, ctx->size) && xp->nhops) {
                    xf = x;
                    hop = (int)xp->nhops;
                }
            }
            fprintf(f, " %d:%d", xf, hop);
        }
        fputc('\n', f);
    }
    fprintf(f, "end\n");
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "cannot publish %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *addrs = getenv("INTRUDER_ADDRS");
    int iters = 300, nap_ms = 10, wait_ms = 15000;
    int i, st, rank, p, pred, total, ok = 0, bad = 0, fail = 0;
    int nstatus[16] = { 0 };
    rtopo_ctx_t *ctx;
    rtopo_topo_t *ring;
    rtopo_mem_t *msend, *mrecv;
    uint8_t *send_reg, *recv_reg, *send_un, *recv_un;
    long rss0 = -1, rss1, heap0 = -1, heap1;
    double t0 = 0, t1;
    char path[4096], status[256];
    size_t n;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--nap-ms") && i + 1 < argc)
            nap_ms = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--wait-ms") && i + 1 < argc)
            wait_ms = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--iters N] [--nap-ms MS] [--wait-ms MS]\n",
                    argv[0]);
            return 2;
        }
    }
    if (iters < 1 || nap_ms < 0 || wait_ms < 0) {
        fprintf(stderr, "%s: bad arguments\n", argv[0]);
        return 2;
    }

    st = rtopo_init(NULL, &ctx);
    if (st) {
        fprintf(stderr, "%s: rtopo_init: %s (%s)\n", iu_env_label(), rtopo_strerror(st),
                rtopo_last_error());
        return 1;
    }
    rank = rtopo_rank(ctx);
    p = rtopo_size(ctx);
    pred = iu_mod(rank - 1, p);
    if ((st = rtopo_topo_ring(ctx, &ring))) {
        fprintf(stderr, "rank %d: rtopo_topo_ring: %s (%s)\n", rank, rtopo_strerror(st),
                rtopo_last_error());
        return 1;
    }
    send_reg = malloc(CAP + GUARD);
    recv_reg = malloc(CAP + GUARD);
    send_un = malloc(CAP + GUARD);
    recv_un = malloc(CAP + GUARD);
    if (!send_reg || !recv_reg || !send_un || !recv_un) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        return 1;
    }
    memset(send_reg, 0, CAP + GUARD);
    memset(recv_reg, 0, CAP + GUARD);
    memset(send_un, 0, CAP + GUARD);
    memset(recv_un, 0, CAP + GUARD);
    if ((st = rtopo_mem_register(ctx, send_reg, CAP, &msend)) ||
        (st = rtopo_mem_register(ctx, recv_reg, CAP, &mrecv))) {
        fprintf(stderr, "rank %d: rtopo_mem_register: %s (%s)\n", rank,
                rtopo_strerror(st), rtopo_last_error());
        return 1;
    }

    total = WARMUP + iters;
    for (i = 0; i < total; i++) {
        size_t len = sizes[i % NSIZES];
        int reg = (i / NSIZES) % 2 == 0;
        uint8_t *sb = reg ? send_reg : send_un, *rb = reg ? recv_reg : recv_un;
        long badoff;

        if (i == WARMUP) {
            /* the steady state, before the attack */
            if ((st = rtopo_barrier(ctx))) {
                fprintf(stderr, "rank %d: rtopo_barrier: %s (%s)\n", rank,
                        rtopo_strerror(st), rtopo_last_error());
                fail++;
                break;
            }
            rss0 = rss_kb();
            heap0 = heap_kb();
            if (rank == 0 && addrs && *addrs) {
                if (publish(ctx, ring, addrs))
                    return 1;
                snprintf(path, sizeof(path), "%s.ready", addrs);
                if (wait_file(path, wait_ms))
                    fprintf(stderr, "rank 0: no intruder after %d ms: going on\n",
                            wait_ms);
            }
            if ((st = rtopo_barrier(ctx))) {
                fprintf(stderr, "rank %d: rtopo_barrier: %s (%s)\n", rank,
                        rtopo_strerror(st), rtopo_last_error());
                fail++;
                break;
            }
            t0 = iu_now();
        }
        iu_fill(sb, len, rank, (unsigned)i);
        memset(rb, POISON, CAP + GUARD);
        st = rtopo_shift(ring, sb, rb, len, 1);
        nstatus[-st < 16 && st <= 0 ? -st : 15]++;
        if (st != RTOPO_OK) {
            fprintf(stderr, "rank %d: shift %d (%zu bytes, %s): %s (%s)\n", rank, i, len,
                    reg ? "registered" : "unregistered", rtopo_err_name(st),
                    rtopo_last_error());
            fail++;
            if (ctx->failed)
                break;   /* the job is broken: every later call fails too */
            continue;
        }
        badoff = iu_first_bad(rb, len, pred, (unsigned)i);
        if (badoff < 0) {
            badoff = iu_first_not(rb + len, CAP + GUARD - len, POISON);
            if (badoff >= 0)
                badoff += (long)len;
        }
        if (badoff >= 0) {
            fprintf(stderr, "rank %d: shift %d (%zu bytes, %s): byte %ld is 0x%02x, "
                    "expected 0x%02x%s\n", rank, i, len, reg ? "registered" : "unregistered",
                    badoff, rb[badoff],
                    (size_t)badoff < len ? iu_pattern(pred, (size_t)badoff, (unsigned)i)
                                         : POISON,
                    (size_t)badoff < len ? "" : " (written beyond the data)");
            bad++;
        } else {
            ok++;
        }
        if (i >= WARMUP && nap_ms)
            iu_nap_ms(nap_ms);
    }
    t1 = iu_now();

    /* the attack is over before the last counts are taken */
    if (rank == 0 && addrs && *addrs) {
        snprintf(path, sizeof(path), "%s.done", addrs);
        if (wait_file(path, wait_ms))
            fprintf(stderr, "rank 0: the intruder did not finish in %d ms\n", wait_ms);
    }
    if (!ctx->failed && (st = rtopo_barrier(ctx))) {
        fprintf(stderr, "rank %d: final rtopo_barrier: %s (%s)\n", rank,
                rtopo_strerror(st), rtopo_last_error());
        fail++;
    }
    rss1 = rss_kb();
    heap1 = heap_kb();

    status[0] = '\0';
    n = 0;
    for (i = 0; i < 16; i++)
        if (nstatus[i] && n < sizeof(status))
            n += (size_t)snprintf(status + n, sizeof(status) - n, "%s%s:%d", n ? "," : "",
                                  i == 0 ? "OK" : i == 15 ? "OTHER" : rtopo_err_name(-i),
                                  nstatus[i]);
    printf("RESULT rank=%d ok=%d bad=%d fail=%d status=%s rss0_kb=%ld rss1_kb=%ld "
           "heap0_kb=%ld heap1_kb=%ld forged=%llu secs=%.2f\n", rank, ok, bad, fail,
           status[0] ? status : "none", rss0, rss1, heap0, heap1,
           (unsigned long long)ctx->forged, t1 - t0);
    fflush(stdout);

    rtopo_mem_deregister(msend);
    rtopo_mem_deregister(mrecv);
    rtopo_topo_free(ring);
    st = rtopo_finalize(ctx);
    if (st) {
        fprintf(stderr, "rank %d: rtopo_finalize: %s (%s)\n", rank, rtopo_strerror(st),
                rtopo_last_error());
        fail++;
    }
    free(send_reg);
    free(recv_reg);
    free(send_un);
    free(recv_un);
    return bad || fail || ok != total ? 1 : 0;
}
