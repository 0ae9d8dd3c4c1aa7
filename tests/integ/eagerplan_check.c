/*
 * eagerplan_check - the eager way of a plan whose every hop is eager
 * (exec.c, plan->eager): small broadcasts, allreduces and scans on a
 * hypercube of 2^D ranks with the generic algorithms (binomial tree:
 * roots, forwarders and leaves; recursive doubling: sends, receives and
 * combines).
 *
 *   eagerplan_check stream|dead|mismatch [ITERS]
 *
 * stream:   ITERS blocking calls of each collective (the broadcast from
 *           every root in turn) at 8, 64 bytes and the eager limit (a
 *           tenth as many; and 8 bytes past it: the general way where a hop
 *           is longer than the limit, as the test finds), data of
 *           its own in every call, one rank napping now and then so that
 *           its peers' messages come before its call (early messages) or
 *           after it.  Every byte of
 *           every result is compared with the value computed here, and
 *           every call of a plan that should go the eager way must have
 *           gone it (the plan's count of such runs) and no other.
 * dead:     the last rank makes ITERS allreduces of 8 bytes, starts one
 *           more and exits without rtopo_finalize; every other rank
 *           calls until a call fails: it must be RTOPO_ERR_PEER, every
 *           call before it complete and right, the plan an eager one.
 * mismatch: ITERS good allreduces, then rank 0 calls with 8 bytes and the
 *           others with 16: every rank's call ends in RTOPO_ERR_MISMATCH
 *           (or its last good one, still taking its last messages in when
 *           the others failed the job).
 * Each rank prints "verdict: pass" or "verdict: FAIL".  Linked with the
 * core: it reads the plan from the topology.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rtopo.h"
#include "exec.h"
#include "integ_util.h"

static int me = -1, np, fails;

#define FAIL(...) IU_FAIL(me, fails, __VA_ARGS__)

enum { BCAST, ALLREDUCE, SCAN, NCOLL };
static const char *names[NCOLL] = { "bcast", "allreduce", "scan" };

/* rank r's element i of call tag */
static int64_t val(int r, unsigned tag, size_t i)
{
    return (int64_t)tag * 1000003 + (int64_t)r * 7919 + (int64_t)i * 31 + 1;
}

/* the plan the topology's last blocking call used */
static rtopo__plan_t *last_plan(rtopo_topo_t *t)
{
    return t->spare_plan;
}

/* whether every hop of the plan on this rank is at most the eager limit
 * (the pieces of a large call may be) */
static int hops_eager(rtopo_ctx_t *ctx, const rtopo__plan_t *plan)
{
    const rtopo__sched_t *s = plan->sched;
    int i;

    for (i = 0; i < plan->nsend; i++)
        if (rtopo__sched_xlen(s, plan->send[i].xfer) > ctx->params.eager_limit)
            return 0;
    for (i = 0; i < plan->nrecv; i++)
        if (rtopo__sched_xlen(s, plan->recv[i].xfer) > ctx->params.eager_limit)
            return 0;
    return 1;
}

/* one blocking call of collective c over n elements, checked byte for
 * byte; 0 or its status */
static int coll_checked(rtopo_topo_t *t, int c, int root, int64_t *sb, int64_t *rb,
                        int64_t *want, size_t n, unsigned tag)
{
    int r, st;
    size_t i;

    for (i = 0; i < n; i++) {
        sb[i] = val(me, tag, i);
        want[i] = 0;
    }
    memset(rb, 0xa5, n * 8);
    switch (c) {
    case BCAST:
        for (i = 0; i < n; i++)
            want[i] = val(root, tag, i);
        if (me == root)
            memcpy(rb, want, n * 8);
        st = rtopo_bcast(t, rb, n, RTOPO_INT64, root);
        break;
    case ALLREDUCE:
        for (r = 0; r < np; r++)
            for (i = 0; i < n; i++)
                want[i] += val(r, tag, i);
        st = rtopo_allreduce(t, sb, rb, n, RTOPO_INT64, RTOPO_SUM);
        break;
    default:
        for (r = 0; r <= me; r++)
            for (i = 0; i < n; i++)
                want[i] += val(r, tag, i);
        st = rtopo_scan(t, sb, rb, n, RTOPO_INT64, RTOPO_SUM);
        break;
    }
    if (st)
        return st;
    if (memcmp(rb, want, n * 8)) {
        for (i = 0; i < n * 8 && ((uint8_t *)rb)[i] == ((uint8_t *)want)[i]; i++)
            ;
        FAIL("%s %u of %zu bytes (root %d): byte %zu wrong", names[c], tag, n * 8, root, i);
    }
    return 0;
}

static void case_stream(rtopo_ctx_t *ctx, rtopo_topo_t *t, int iters)
{
    size_t lim = ctx->params.eager_limit / 8 * 8;
    size_t sizes[4] = { 8, 64, lim, lim + 8 };
    size_t maxn = (lim + 8) / 8;
    int64_t *sb = malloc(maxn * 8), *rb = malloc(maxn * 8), *want = malloc(maxn * 8);
    unsigned tag = 0;
    int c, s, i, st, root, k;

    if (!sb || !rb || !want) {
        FAIL("memory");
        return;
    }
    printf("rank %d: eager limit %zu bytes\n", me, (size_t)ctx->params.eager_limit);
    /* k: the collective, and for the broadcast its root, which turns */
    for (k = 0; k < np + 2; k++) {
        c = k < np ? BCAST : k == np ? ALLREDUCE : SCAN;
        root = k < np ? k : 0;
        for (s = 0; s < 4; s++) {
            size_t n = sizes[s] / 8;
            rtopo__plan_t *plan;
            uint64_t runs0 = 0;
            int expect;
            int ncalls = iters / (sizes[s] > 64 ? 10 : 1);

            /* the first call builds the plan: counted from the second */
            if ((st = coll_checked(t, c, root, sb, rb, want, n, tag++))) {
                FAIL("%s of %zu bytes: %s", names[c], sizes[s], rtopo_strerror(st));
                break;
            }
            plan = last_plan(t);
            if (plan)
                runs0 = plan->eager_runs;
            for (i = 0; i < ncalls && !fails; i++, tag++) {
                /* now and then one rank comes late: its peers' messages
                 * are early there */
                if (i % 211 == 7)
                    iu_nap_ms(me == (i / 211) % np ? 20 : 0);
                if ((st = coll_checked(t, c, root, sb, rb, want, n, tag))) {
                    FAIL("%s %d of %zu bytes: %s", names[c], i, sizes[s], rtopo_strerror(st));
                    break;
                }
            }
            if (!plan || last_plan(t) != plan) {
                FAIL("%s of %zu bytes: the calls did not keep one plan", names[c], sizes[s]);
                continue;
            }
            expect = hops_eager(ctx, plan);
            if (sizes[s] <= ctx->params.eager_limit && !expect)
                FAIL("%s of %zu bytes: a hop longer than the call", names[c], sizes[s]);
            if (plan->eager != expect ||
                plan->eager_runs - runs0 != (uint64_t)(expect ? i : 0))
                FAIL("%s of %zu bytes: the plan is%s eager and went the eager way %llu "
                     "times in %d calls (want %d)", names[c], sizes[s],
                     plan->eager ? "" : " not",
                     (unsigned long long)(plan->eager_runs - runs0), i, expect ? i : 0);
            printf("rank %d: %d %s calls of %zu bytes (root %d; %d sends, %d receives, %d "
                   "local), every byte right (eager way: %s, %llu runs)\n", me, i, names[c],
                   sizes[s], root, plan->nsend, plan->nrecv, plan->nlocal,
                   plan->eager ? "yes" : "no", (unsigned long long)(plan->eager_runs - runs0));
            fflush(stdout);
        }
    }
    free(sb);
    free(rb);
    free(want);
}

static void case_dead(rtopo_topo_t *t, int iters)
{
    int64_t sb[1], rb[1], want[1];
    rtopo_req_t *req;
    rtopo__plan_t *plan;
    int i, st = 0;
    double t0 = 0;

    if (me == np - 1) {
        for (i = 0; i < iters; i++)
            if ((st = coll_checked(t, ALLREDUCE, 0, sb, rb, want, 1, (unsigned)i))) {
                FAIL("allreduce %d: %s", i, rtopo_strerror(st));
                return;
            }
        sb[0] = val(me, (unsigned)iters, 0);
        rtopo_iallreduce(t, sb, rb, 1, RTOPO_INT64, RTOPO_SUM, &req);
        printf("rank %d: leaving without rtopo_finalize after %d allreduces\n"
               "rank %d: verdict: pass\n", me, iters, me);
        fflush(stdout);
        _exit(0);
    }
    for (i = 0; !st; i++) {
        t0 = iu_now();
        st = coll_checked(t, ALLREDUCE, 0, sb, rb, want, 1, (unsigned)i);
    }
    plan = last_plan(t);
    printf("rank %d: allreduce %d -> %s after %.0f ms (%d completed before)\n", me, i - 1,
           rtopo_err_name(st), (iu_now() - t0) * 1e3, i - 1);
    if (st != RTOPO_ERR_PEER)
        FAIL("allreduce %d returned %s, not RTOPO_ERR_PEER: %s", i - 1, rtopo_err_name(st),
             rtopo_last_error());
    if (i - 1 < iters)
        FAIL("only %d allreduces completed before the failure, rank %d made %d and started "
             "one more", i - 1, np - 1, iters);
    if (plan && !plan->eager)
        FAIL("the 8-byte allreduce's plan is not an eager one");
}

static void case_mismatch(rtopo_topo_t *t, int iters)
{
    int64_t sb[2], rb[2], want[2];
    int i, st;
    double t0;

    for (i = 0; i < iters; i++)
        if ((st = coll_checked(t, ALLREDUCE, 0, sb, rb, want, 1, (unsigned)i))) {
            /* the others may have completed the last good call (every
             * rank's data was out) and failed the job in the next one
             * while this rank still took its last messages in */
            if (i == iters - 1 && st == RTOPO_ERR_MISMATCH) {
                printf("rank %d: the job failed in the last good allreduce here: %s\n", me,
                       rtopo_last_error());
                return;
            }
            FAIL("good allreduce %d: %s", i, rtopo_strerror(st));
            return;
        }
    if (!last_plan(t) || !last_plan(t)->eager)
        FAIL("the 8-byte allreduce's plan is not an eager one");
    t0 = iu_now();
    sb[0] = sb[1] = 1;
    st = rtopo_allreduce(t, sb, rb, me ? 2 : 1, RTOPO_INT64, RTOPO_SUM);
    printf("rank %d: differing allreduce -> %s after %.0f ms: %s\n", me, rtopo_err_name(st),
           (iu_now() - t0) * 1e3, st ? rtopo_last_error() : "");
    if (st != RTOPO_ERR_MISMATCH)
        FAIL("the differing allreduce returned %s, not RTOPO_ERR_MISMATCH",
             rtopo_err_name(st));
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    int iters = argc > 2 ? atoi(argv[2]) : 2000, st, fin, dim = 0;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;

    if ((st = rtopo_init(NULL, &ctx))) {
        printf("rank ?: FAIL: rtopo_init: %s\n", rtopo_strerror(st));
        return 1;
    }
    me = rtopo_rank(ctx);
    np = rtopo_size(ctx);
    while ((1 << dim) < np)
        dim++;
    if ((1 << dim) != np || np < 2) {
        printf("rank %d: FAIL: run with a power of two of ranks, 2 at least\n", me);
        return 1;
    }
    if ((st = rtopo_topo_hypercube(ctx, dim, &t)) ||
        (st = rtopo_topo_set_coll_algo(t, RTOPO_COLL_GENERIC))) {
        printf("rank %d: FAIL: hypercube of dimension %d: %s\n", me, dim, rtopo_strerror(st));
        return 1;
    }
    me = rtopo_topo_rank(t);
    if (!strcmp(c, "stream"))
        case_stream(ctx, t, iters);
    else if (!strcmp(c, "dead"))
        case_dead(t, iters);
    else if (!strcmp(c, "mismatch"))
        case_mismatch(t, iters);
    else
        FAIL("unknown case '%s'", c);
    fin = rtopo_finalize(ctx);
    printf("rank %d: rtopo_finalize -> %s\n", me, rtopo_err_name(fin));
    if (!strcmp(c, "stream") && fin)
        FAIL("rtopo_finalize: %s", rtopo_strerror(fin));
    printf("rank %d: verdict: %s\n", me, fails ? "FAIL" : "pass");
    return fails ? 1 : 0;
}
