/*
 * fastpath_check - the short way of a plan of one eager send and one
 * eager receive (exec.c, plan->fast): a small shift on a ring of 2 ranks.
 *
 *   fastpath_check stream|flow|mismatch|mismatch-early|probe|dead [ITERS]
 *
 * stream:   ITERS blocking shifts of each size in 0, 1, 8, 128, the eager
 *           limit (and one byte past it, the general way), every one with
 *           data of its own, a rank napping now and then so that its
 *           peer's message comes before its call (an early message) or
 *           after it; in place every 7th shift.  Every byte is checked,
 *           and that the plan took the short way exactly when it should.
 * flow:     batches of 200 nonblocking shifts posted before any is waited
 *           for, rank 1 napping before each batch: rank 0 runs 200
 *           operations ahead and flow control must hold it back (never
 *           more than RTOPO__FLOW_WINDOW early messages kept).
 * mismatch: ITERS good shifts, then rank 0 shifts 8 bytes, rank 1 16:
 *           both calls end in RTOPO_ERR_MISMATCH (mismatch-early: rank 0
 *           naps first, so rank 1's message waits for it as early).
 * probe:    ITERS good shifts, then rank 0 shifts with q=1, rank 1 with
 *           q=0 (a local copy: it sends nothing): rank 0 must hear of it
 *           from the probes (RTOPO_ERR_MISMATCH), well before its timeout.
 * dead:     rank 1 makes ITERS shifts, starts one more and exits without
 *           rtopo_finalize; rank 0 shifts until a call fails: it must be
 *           RTOPO_ERR_PEER, and every shift before it complete and right.
 * Each rank prints "verdict: pass" or "verdict: FAIL".  Linked with the
 * core: it reads the plan and the early-message count from the context.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "exec.h"
#include "integ_util.h"

static int me = -1, fails;

#define FAIL(...) IU_FAIL(me, fails, __VA_ARGS__)

/* whether the plan the topology's last blocking call used went the short way */
static int plan_fast(rtopo_topo_t *t)
{
    return t->spare_plan ? t->spare_plan->fast : -1;
}

static int fast_expected(rtopo_ctx_t *ctx, size_t bytes)
{
    return bytes <= ctx->params.eager_limit && (!ctx->eager_frag || bytes <= ctx->eager_frag);
}

/* one blocking shift of `bytes` with tag, checked; 0 or its status */
static int shift_checked(rtopo_topo_t *t, uint8_t *sb, uint8_t *rb, size_t bytes, unsigned tag,
                         int inplace, int q)
{
    int peer = 1 - me, st;
    long bad;

    iu_fill(sb, bytes, me, tag);
    if (!inplace)
        memset(rb, 0xa5, bytes);
    st = rtopo_shift(t, sb, inplace ? sb : rb, bytes, q);
    if (st)
        return st;
    bad = iu_first_bad(inplace ? sb : rb, bytes, q ? peer : me, tag);
    if (bad >= 0)
        FAIL("shift %u of %zu bytes%s: byte %ld wrong", tag, bytes, inplace ? " in place" : "",
             bad);
    return 0;
}

static void case_stream(rtopo_ctx_t *ctx, rtopo_topo_t *t, int iters)
{
    size_t sizes[6] = { 0, 1, 8, 128, ctx->params.eager_limit, ctx->params.eager_limit + 1 };
    size_t maxb = ctx->params.eager_limit + 1;
    uint8_t *sb = malloc(maxb + 1), *rb = malloc(maxb + 1);
    unsigned tag = 0;
    int s, i, st;

    if (!sb || !rb) {
        FAIL("memory");
        return;
    }
    for (s = 0; s < 6; s++) {
        for (i = 0; i < iters && !fails; i++, tag++) {
            /* now and then one rank comes late: its peer's message is
             * early here, and its own late there */
            if (i % 997 == 5 && (i / 997) % 2 == me)
                iu_nap_ms(20);
            if ((st = shift_checked(t, sb, rb, sizes[s], tag, i % 7 == 3, 1))) {
                FAIL("shift %d of %zu bytes: %s", i, sizes[s], rtopo_strerror(st));
                break;
            }
        }
        if (plan_fast(t) != fast_expected(ctx, sizes[s]))
            FAIL("%zu bytes: the plan %s the short way", sizes[s],
                 plan_fast(t) ? "took" : "did not take");
        printf("rank %d: %d shifts of %zu bytes (short way %s)\n", me, i, sizes[s],
               plan_fast(t) == 1 ? "yes" : "no");
    }
    free(sb);
    free(rb);
}

#define FLOW_BATCH 200

static void case_flow(rtopo_ctx_t *ctx, rtopo_topo_t *t, int iters)
{
    static uint8_t sb[FLOW_BATCH][8], rb[FLOW_BATCH][8];
    rtopo_req_t *req[FLOW_BATCH];
    int b, i, st, nb = iters / FLOW_BATCH > 0 ? iters / FLOW_BATCH : 1;
    unsigned tag = 0;
    long bad;

    /* From here on, the batches' early messages alone: one per operation,
     * so flow control's window of 64 operations keeps at most 64.  The
     * bound is in operations, not messages: creating the topology timed
     * the transport (RTOPO_MODEL=auto, calib.c), and its runs of
     * RTOPO__CAL_SENDS eager sends one way are 16 messages an operation,
     * of which a peer a few operations ahead leaves more than 64 kept here
     * (all taken by the time the creation returned). */
    ctx->unexp_max = ctx->unexp_count[1 - me];
    for (b = 0; b < nb && !fails; b++) {
        if (me == 1)
            iu_nap_ms(50);
        for (i = 0; i < FLOW_BATCH; i++) {
            iu_fill(sb[i], 8, me, tag + (unsigned)i);
            memset(rb[i], 0xa5, 8);
            req[i] = NULL;
            if ((st = rtopo_ishift(t, sb[i], rb[i], 8, 1, &req[i]))) {
                FAIL("batch %d: rtopo_ishift %d: %s", b, i, rtopo_strerror(st));
                break;
            }
        }
        for (i = 0; i < FLOW_BATCH; i++) {
            if (!req[i])
                continue;
            if ((st = rtopo_wait(req[i])))
                FAIL("batch %d: rtopo_wait %d: %s", b, i, rtopo_strerror(st));
            else if ((bad = iu_first_bad(rb[i], 8, 1 - me, tag + (unsigned)i)) >= 0)
                FAIL("batch %d: shift %d: byte %ld wrong", b, i, bad);
            rtopo_req_free(req[i]);
        }
        tag += FLOW_BATCH;
    }
    /* the plan of the batches' requests (the spare of the last one) */
    if (plan_fast(t) != 1)
        FAIL("the 8-byte plan did not take the short way");
    if (ctx->unexp_max > RTOPO__FLOW_WINDOW)
        FAIL("kept %u early messages from one peer at once (flow control allows %u)",
             ctx->unexp_max, RTOPO__FLOW_WINDOW);
    printf("rank %d: %d batches of %d, at most %u early messages kept\n", me, b, FLOW_BATCH,
           ctx->unexp_max);
}

/* what a call may return: anything (no rtopo status is positive) */
#define ANY_STATUS 1

/* good shifts, then a call that differs: rank 0 `bytes0` with q0, rank 1
 * `bytes1` with q1; want: what this rank's call must return, or ANY_STATUS */
static void case_mismatch(rtopo_topo_t *t, int iters, size_t bytes0, size_t bytes1, int q0,
                          int q1, int nap0, int want)
{
    uint8_t sb[16], rb[16];
    int i, st;
    double t0;

    for (i = 0; i < iters; i++)
        if ((st = shift_checked(t, sb, rb, 8, (unsigned)i, 0, 1))) {
            FAIL("good shift %d: %s", i, rtopo_strerror(st));
            return;
        }
    if (plan_fast(t) != 1)
        FAIL("the 8-byte plan did not take the short way");
    if (me == 0 && nap0)
        iu_nap_ms(200);
    t0 = iu_now();
    st = rtopo_shift(t, sb, rb, me ? bytes1 : bytes0, me ? q1 : q0);
    printf("rank %d: differing shift -> %s after %.0f ms: %s\n", me, rtopo_err_name(st),
           (iu_now() - t0) * 1e3, st ? rtopo_last_error() : "");
    if (want != ANY_STATUS && st != want)
        FAIL("the differing shift returned %s, not %s", rtopo_err_name(st),
             rtopo_err_name(want));
}

static void case_dead(rtopo_topo_t *t, int iters)
{
    uint8_t sb[8], rb[8];
    rtopo_req_t *req;
    int i, st = 0;
    double t0 = 0;

    if (me == 1) {
        for (i = 0; i < iters; i++)
            if ((st = shift_checked(t, sb, rb, 8, (unsigned)i, 0, 1))) {
                FAIL("shift %d: %s", i, rtopo_strerror(st));
                return;
            }
        iu_fill(sb, 8, me, (unsigned)iters);
        rtopo_ishift(t, sb, rb, 8, 1, &req);
        printf("rank 1: leaving without rtopo_finalize after %d shifts\nrank 1: verdict: pass\n",
               iters);
        fflush(stdout);
        _exit(0);
    }
    for (i = 0; !st; i++) {
        t0 = iu_now();
        st = shift_checked(t, sb, rb, 8, (unsigned)i, 0, 1);
    }
    printf("rank 0: shift %d -> %s after %.0f ms (%d completed before)\n", i - 1,
           rtopo_err_name(st), (iu_now() - t0) * 1e3, i - 1);
    if (st != RTOPO_ERR_PEER)
        FAIL("shift %d returned %s, not RTOPO_ERR_PEER: %s", i - 1, rtopo_err_name(st),
             rtopo_last_error());
    if (i - 1 < iters)
        FAIL("only %d shifts completed before the failure, rank 1 made %d and started one "
             "more", i - 1, iters);
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    int iters = argc > 2 ? atoi(argv[2]) : 3000, st, fin;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;

    if ((st = rtopo_init(NULL, &ctx))) {
        printf("rank ?: FAIL: rtopo_init: %s\n", rtopo_strerror(st));
        return 1;
    }
    me = rtopo_rank(ctx);
    if (rtopo_size(ctx) != 2) {
        printf("rank %d: FAIL: run with 2 ranks\n", me);
        return 1;
    }
    if ((st = rtopo_topo_ring(ctx, &t))) {
        printf("rank %d: FAIL: rtopo_topo_ring: %s\n", me, rtopo_strerror(st));
        return 1;
    }
    if (!strcmp(c, "stream"))
        case_stream(ctx, t, iters);
    else if (!strcmp(c, "flow"))
        case_flow(ctx, t, iters);
    else if (!strcmp(c, "mismatch"))
        case_mismatch(t, iters, 8, 16, 1, 1, 0, RTOPO_ERR_MISMATCH);
    else if (!strcmp(c, "mismatch-early"))
        case_mismatch(t, iters, 8, 16, 1, 1, 1, RTOPO_ERR_MISMATCH);
    else if (!strcmp(c, "probe"))
        case_mismatch(t, iters, 8, 8, 1, 0, 0, me == 0 ? RTOPO_ERR_MISMATCH : ANY_STATUS);
    else if (!strcmp(c, "dead"))
        case_dead(t, iters);
    else
        FAIL("unknown case '%s'", c);
    fin = rtopo_finalize(ctx);
    printf("rank %d: rtopo_finalize -> %s\n", me, rtopo_err_name(fin));
    if (!strcmp(c, "stream") || !strcmp(c, "flow")) {
        if (fin)
            FAIL("rtopo_finalize: %s", rtopo_strerror(fin));
    }
    printf("rank %d: verdict: %s\n", me, fails ? "FAIL" : "pass");
    return fails ? 1 : 0;
}
