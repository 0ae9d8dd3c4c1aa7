/*
 * req_check - request and handle semantics (rtopo_start(3), rtopo(7):
 * "Handles and their lifetimes", "What a caller must not do").  One case
 * per job, run by req.sh on 4 ranks; every rank makes the same calls, so
 * every expected status below must come back on every rank, whatever
 * the timing.
 *
 *   rtopo-run -n 4 req_check CASE
 *
 *   busy        persistent shift (8 B and 64 KiB): a second rtopo_start
 *               without waiting gives RTOPO_ERR_BUSY, even when the
 *               shift may already have finished inside the first start;
 *               rtopo_wait then gives OK and the data; a start after a
 *               rtopo_test that reported done is accepted; rtopo_req_free
 *               of an active request gives BUSY
 *   overlap     two nonblocking shifts in flight whose receive buffers
 *               overlap (the same buffer, half of it, one byte): the
 *               second rtopo_ishift gives RTOPO_ERR_INVAL and no
 *               request, the first completes with its data; a
 *               persistent start overlapping an ishift in flight gives
 *               INVAL too; adjacent, non-overlapping receive buffers in
 *               flight at once both complete with the right data
 *   checkbuf    RTOPO_CHECK_BUFFERS=1: without a change to the send
 *               buffer rtopo_wait gives OK; rank 1 changes its send
 *               buffer between rtopo_ishift and rtopo_wait and gets
 *               RTOPO_ERR_INVAL naming the send buffer (the others: OK
 *               with correct data, or PEER)
 *   topofree    rtopo_topo_free with a persistent request, or a completed
 *               but not freed nonblocking one, on the topology gives
 *               RTOPO_ERR_BUSY; after rtopo_req_free it succeeds
 *   dereg2      rtopo_mem_deregister twice: the second gives INVAL
 *   reqfree2    rtopo_req_free twice (persistent and nonblocking): the
 *               second gives INVAL, as do rtopo_start/rtopo_wait/
 *               rtopo_test on the freed request; rtopo_wait on a request
 *               never started and rtopo_start on a nonblocking request
 *               give INVAL
 *   finalize2   rtopo_finalize twice: the second gives INVAL
 *   stale       after rtopo_finalize: rtopo_topo_free of a topology and
 *               rtopo_mem_deregister of a region that finalize freed
 *               give INVAL
 *   deadctx     after rtopo_finalize: rtopo_rank, rtopo_size,
 *               rtopo_topo_ring, rtopo_barrier, rtopo_mem_register on
 *               the finalized context give INVAL
 *   restart     windows kept across starts: two persistent shifts of
 *               64 KiB (one on registered buffers, one on unregistered
 *               ones, staged: RTOPO_REG_PER_OP=off; a direct window and
 *               a staged one) and blocking shifts on
 *               a third pair, interleaved, 12 rounds; each round new send
 *               data, and each receive buffer filled with 0xee by the
 *               caller before its start (the caller's between runs): every
 *               run delivers that round's data, whole; the requests
 *               then free and the topology too
 *   reinit      rtopo_init while a context is live gives RTOPO_ERR_BUSY,
 *               "already initialised"
 *
 * The stale-handle cases pass freed pointers on purpose: the library
 * checks handles against its registry of live objects.  Run them under
 * valgrind to see that the library does not read freed memory.
 *
 * Each check prints "rank R: WHAT -> STATUS (want X): ok|FAIL"; the rank
 * ends with "rank R: verdict: pass|FAIL (N of M checks failed)" and exits
 * 1 after rtopo_finalize when a check failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rtopo.h>
#include "integ_util.h"

static int rank = -1, nranks;
static int nchecks, nfails;

static const char *label(void)
{
    static char buf[32];
    if (rank < 0)
        return iu_env_label();
    snprintf(buf, sizeof(buf), "rank %d", rank);
    return buf;
}

/* one check of a status: prints it, counts it, returns 1 when as wanted */
static int expect(const char *what, int got, int want)
{
    int ok = got == want;
    char gname[32];

    nchecks++;
    nfails += !ok;
    if (got > 0)
        snprintf(gname, sizeof(gname), "%d", got);   /* rtopo_rank, rtopo_size */
    else
        snprintf(gname, sizeof(gname), "%s", rtopo_err_name(got));
    printf("%s: %s -> %s (want %s): %s%s%s%s\n", label(), what, gname, rtopo_err_name(want),
           ok ? "ok" : "FAIL", got < 0 ? " \"" : "", got < 0 ? rtopo_last_error() : "",
           got < 0 ? "\"" : "");
    fflush(stdout);
    return ok;
}

static int expect_true(const char *what, int cond, const char *detail)
{
    nchecks++;
    nfails += !cond;
    printf("%s: %s: %s%s%s\n", label(), what, cond ? "ok" : "FAIL", detail ? " " : "",
           detail ? detail : "");
    fflush(stdout);
    return cond;
}

static void need(const char *what, int st)
{
    if (st != RTOPO_OK) {
        printf("%s: %s -> %s: \"%s\": FAIL (set-up)\n", label(), what, rtopo_err_name(st),
               rtopo_last_error());
        nchecks++;
        nfails++;
    }
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", label());
        exit(2);
    }
    return p;
}

/* received the data of the rank q before us, sent with `tag`? */
static int data_ok(const void *rb, size_t n, int q, unsigned tag, const char *what)
{
    int src = iu_mod((long)rank - q, nranks);
    long bad = iu_first_bad(rb, n, src, tag);
    char d[128];
    snprintf(d, sizeof(d), "(%zu bytes from rank %d%s)", n, src,
             bad >= 0 ? ", WRONG" : "");
    return expect_true(what, bad < 0, d);
}

/* src's data with `tag`, where byte `flip` may also have been inverted */
static int sent_ok(const unsigned char *rb, size_t n, int src, unsigned tag, size_t flip)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char want = iu_pattern(src, i, tag);
        if (rb[i] != want && !(i == flip && rb[i] == (unsigned char)(want ^ 0xff)))
            return 0;
    }
    return 1;
}

/* rtopo_test until done, napping between polls; bounded to 240 s (a hang) */
static int test_until_done(rtopo_req_t *req, int *done)
{
    double t0 = iu_now();
    int st;
    *done = 0;
    for (;;) {
        st = rtopo_test(req, done);
        if (st != RTOPO_OK || *done || iu_now() - t0 > 240)
            return st;
        iu_nap_ms(1);
    }
}

static void case_busy(rtopo_ctx_t *ctx, size_t n)
{
    rtopo_topo_t *t;
    rtopo_req_t *req = NULL;
    unsigned char *sb = xmalloc(n), *rb = xmalloc(n);
    char w[160];
    int st, done;

    need("rtopo_topo_ring", st = rtopo_topo_ring(ctx, &t));
    if (st)
        return;
    need("rtopo_shift_init", st = rtopo_shift_init(t, sb, rb, n, 1, &req));
    if (st)
        return;
    iu_fill(sb, n, rank, 1);
    memset(rb, 0xee, n);
    snprintf(w, sizeof(w), "[%zu B] first rtopo_start", n);
    expect(w, rtopo_start(req), RTOPO_OK);
    snprintf(w, sizeof(w), "[%zu B] second rtopo_start without waiting", n);
    expect(w, rtopo_start(req), RTOPO_ERR_BUSY);
    snprintf(w, sizeof(w), "[%zu B] rtopo_wait", n);
    if (expect(w, rtopo_wait(req), RTOPO_OK))
        data_ok(rb, n, 1, 1, "  data after rtopo_wait");

    /* rtopo_test reporting done ends the activity as rtopo_wait does */
    iu_fill(sb, n, rank, 2);
    memset(rb, 0xee, n);
    snprintf(w, sizeof(w), "[%zu B] rtopo_start after the wait", n);
    expect(w, rtopo_start(req), RTOPO_OK);
    snprintf(w, sizeof(w), "[%zu B] rtopo_test until done", n);
    st = test_until_done(req, &done);
    if (expect(w, st, RTOPO_OK) && expect_true("  done reported", done, NULL))
        data_ok(rb, n, 1, 2, "  data after rtopo_test reported done");
    snprintf(w, sizeof(w), "[%zu B] rtopo_start after rtopo_test reported done", n);
    if (expect(w, rtopo_start(req), RTOPO_OK)) {
        snprintf(w, sizeof(w), "[%zu B] rtopo_req_free of the active request", n);
        expect(w, rtopo_req_free(req), RTOPO_ERR_BUSY);
        snprintf(w, sizeof(w), "[%zu B] rtopo_wait", n);
        if (expect(w, rtopo_wait(req), RTOPO_OK))
            data_ok(rb, n, 1, 2, "  data after rtopo_wait");
    }
    snprintf(w, sizeof(w), "[%zu B] rtopo_req_free", n);
    expect(w, rtopo_req_free(req), RTOPO_OK);
    need("rtopo_topo_free", rtopo_topo_free(t));
    free(sb);
    free(rb);
}

static void case_overlap(rtopo_ctx_t *ctx, size_t n)
{
    rtopo_topo_t *t;
    rtopo_req_t *r1 = NULL, *r2 = NULL, *pr = NULL;
    unsigned char *sb1 = xmalloc(n), *sb2 = xmalloc(n), *rb = xmalloc(3 * n);
    size_t offs[3] = { 0, n / 2, n - 1 };
    const char *names[3] = { "the same receive buffer", "half of it", "its last byte" };
    char w[200];
    int st, k;

    need("rtopo_topo_ring", st = rtopo_topo_ring(ctx, &t));
    if (st)
        return;
    for (k = 0; k < 3; k++) {
        iu_fill(sb1, n, rank, 10u + (unsigned)k);
        iu_fill(sb2, n, rank, 20u + (unsigned)k);
        memset(rb, 0xee, 3 * n);
        r1 = NULL;
        snprintf(w, sizeof(w), "[%zu B] first rtopo_ishift", n);
        if (!expect(w, rtopo_ishift(t, sb1, rb, n, 1, &r1), RTOPO_OK))
            break;
        r2 = NULL;
        snprintf(w, sizeof(w), "[%zu B] second rtopo_ishift into %s (offset %zu)", n, names[k],
                 offs[k]);
        st = rtopo_ishift(t, sb2, rb + offs[k], n, -1, &r2);
        expect(w, st, RTOPO_ERR_INVAL);
        if (st == RTOPO_ERR_INVAL)
            expect_true("  no request made", r2 == NULL, NULL);
        snprintf(w, sizeof(w), "[%zu B] rtopo_wait of the first", n);
        if (expect(w, rtopo_wait(r1), RTOPO_OK) && st != RTOPO_OK)
            data_ok(rb, n, 1, 10u + (unsigned)k, "  data of the first");
        if (st == RTOPO_OK && r2) {
            /* accepted against the contract: let it finish on every rank */
            rtopo_wait(r2);
            rtopo_req_free(r2);
        }
        rtopo_req_free(r1);
    }

    /* a persistent start overlapping a nonblocking shift in flight */
    iu_fill(sb1, n, rank, 30);
    iu_fill(sb2, n, rank, 31);
    memset(rb, 0xee, 3 * n);
    need("rtopo_shift_init", st = rtopo_shift_init(t, sb2, rb + n / 2, n, -1, &pr));
    if (!st) {
        int st2;
        r1 = NULL;
        snprintf(w, sizeof(w), "[%zu B] rtopo_ishift", n);
        if (expect(w, rtopo_ishift(t, sb1, rb, n, 1, &r1), RTOPO_OK)) {
            snprintf(w, sizeof(w), "[%zu B] rtopo_start of a persistent shift whose receive "
                     "buffer overlaps it", n);
            st2 = rtopo_start(pr);
            expect(w, st2, RTOPO_ERR_INVAL);
            snprintf(w, sizeof(w), "[%zu B] rtopo_wait of the ishift", n);
            if (expect(w, rtopo_wait(r1), RTOPO_OK) && st2 != RTOPO_OK)
                data_ok(rb, n, 1, 30, "  data of the ishift");
            if (st2 == RTOPO_OK)
                rtopo_wait(pr);
            rtopo_req_free(r1);
            memset(rb, 0xee, 3 * n);
            snprintf(w, sizeof(w), "[%zu B] the persistent start once the ishift is done", n);
            if (expect(w, rtopo_start(pr), RTOPO_OK) &&
                expect("  its rtopo_wait", rtopo_wait(pr), RTOPO_OK))
                data_ok(rb + n / 2, n, -1, 31, "  its data");
        }
        rtopo_req_free(pr);
    }

    /* adjacent receive buffers, not overlapping: both in flight at once */
    iu_fill(sb1, n, rank, 40);
    iu_fill(sb2, n, rank, 41);
    memset(rb, 0xee, 3 * n);
    r1 = r2 = NULL;
    snprintf(w, sizeof(w), "[%zu B] rtopo_ishift into [0, %zu)", n, n);
    if (expect(w, rtopo_ishift(t, sb1, rb, n, 1, &r1), RTOPO_OK)) {
        snprintf(w, sizeof(w), "[%zu B] rtopo_ishift into [%zu, %zu), adjacent", n, n, 2 * n);
        if (expect(w, rtopo_ishift(t, sb2, rb + n, n, -1, &r2), RTOPO_OK)) {
            if (expect("  rtopo_wait of the second", rtopo_wait(r2), RTOPO_OK))
                data_ok(rb + n, n, -1, 41, "  data of the second");
            rtopo_req_free(r2);
        }
        if (expect("  rtopo_wait of the first", rtopo_wait(r1), RTOPO_OK))
            data_ok(rb, n, 1, 40, "  data of the first");
        rtopo_req_free(r1);
    }
    need("rtopo_topo_free", rtopo_topo_free(t));
    free(sb1);
    free(sb2);
    free(rb);
}

static void case_checkbuf(rtopo_ctx_t *ctx, size_t n)
{
    rtopo_topo_t *t;
    rtopo_req_t *r = NULL;
    unsigned char *sb = xmalloc(n), *rb = xmalloc(n);
    char w[200];
    int st, src = iu_mod(rank - 1, nranks);

    need("rtopo_topo_ring", st = rtopo_topo_ring(ctx, &t));
    if (st)
        return;
    /* unchanged send buffer: OK */
    iu_fill(sb, n, rank, 50);
    memset(rb, 0xee, n);
    snprintf(w, sizeof(w), "[%zu B] rtopo_ishift, send buffer left alone", n);
    if (expect(w, rtopo_ishift(t, sb, rb, n, 1, &r), RTOPO_OK)) {
        if (expect("  rtopo_wait", rtopo_wait(r), RTOPO_OK))
            data_ok(rb, n, 1, 50, "  data");
        rtopo_req_free(r);
    }
    /* rank 1 changes its send buffer while the shift is in flight */
    iu_fill(sb, n, rank, 51);
    memset(rb, 0xee, n);
    snprintf(w, sizeof(w), "[%zu B] rtopo_ishift%s", n,
             rank == 1 ? ", then this rank changes its send buffer" : "");
    if (expect(w, rtopo_ishift(t, sb, rb, n, 1, &r), RTOPO_OK)) {
        if (rank == 1)
            sb[n / 2] ^= 0xff;
        st = rtopo_wait(r);
        if (rank == 1) {
            const char *m = rtopo_last_error();
            if (expect("  rtopo_wait", st, RTOPO_ERR_INVAL))
                expect_true("  the message names the send buffer",
                            iu_contains(m, "send buffer") || iu_contains(m, "sendbuf") ||
                            iu_contains(m, "send data"), NULL);
        } else if (st == RTOPO_OK) {
            /* rank 2 receives rank 1's data, changed or not */
            int ok = sent_ok(rb, n, src, 51, src == 1 ? n / 2 : (size_t)-1);
            char d[160];
            snprintf(d, sizeof(d), "(OK with %s data from rank %d)", ok ? "correct" : "WRONG",
                     src);
            nchecks++;
            nfails += !ok;
            printf("%s:   rtopo_wait -> RTOPO_OK (want OK, or PEER): %s %s\n", label(),
                   ok ? "ok" : "FAIL", d);
        } else {
            char d[160];
            snprintf(d, sizeof(d), "  rtopo_wait (want OK, or PEER: rank 1's check failed)");
            if (st == RTOPO_ERR_PEER)
                expect(d, st, RTOPO_ERR_PEER);
            else
                expect(d, st, RTOPO_OK);
        }
        rtopo_req_free(r);
    }
    need("rtopo_topo_free", rtopo_topo_free(t));
    free(sb);
    free(rb);
}

static void case_topofree(rtopo_ctx_t *ctx)
{
    rtopo_topo_t *t;
    rtopo_req_t *pr = NULL, *r = NULL;
    unsigned char sb[8], rb[8];
    int st;

    need("rtopo_topo_ring", st = rtopo_topo_ring(ctx, &t));
    if (st)
        return;
    need("rtopo_shift_init", st = rtopo_shift_init(t, sb, rb, 8, 1, &pr));
    if (st)
        return;
    if (!expect("rtopo_topo_free with a persistent request never started",
                rtopo_topo_free(t), RTOPO_ERR_BUSY))
        return;   /* the topology is gone: using pr now would crash */
    iu_fill(sb, 8, rank, 60);
    memset(rb, 0xee, 8);
    if (expect("rtopo_start", rtopo_start(pr), RTOPO_OK)) {
        if (!expect("rtopo_topo_free while it is active", rtopo_topo_free(t), RTOPO_ERR_BUSY))
            return;
        if (expect("rtopo_wait", rtopo_wait(pr), RTOPO_OK))
            data_ok(rb, 8, 1, 60, "  data (the refused free changed nothing)");
    }
    if (!expect("rtopo_topo_free with the completed persistent request",
                rtopo_topo_free(t), RTOPO_ERR_BUSY))
        return;
    expect("rtopo_req_free", rtopo_req_free(pr), RTOPO_OK);
    iu_fill(sb, 8, rank, 61);
    if (expect("rtopo_ishift", rtopo_ishift(t, sb, rb, 8, -1, &r), RTOPO_OK)) {
        expect("rtopo_wait", rtopo_wait(r), RTOPO_OK);
        if (!expect("rtopo_topo_free with a completed nonblocking request not freed",
                    rtopo_topo_free(t), RTOPO_ERR_BUSY))
            return;
        expect("rtopo_req_free", rtopo_req_free(r), RTOPO_OK);
    }
    expect("rtopo_topo_free once the requests are freed", rtopo_topo_free(t), RTOPO_OK);
}

static void case_dereg2(rtopo_ctx_t *ctx)
{
    rtopo_mem_t *m;
    static unsigned char buf[65536];
    int st;

    need("rtopo_mem_register", st = rtopo_mem_register(ctx, buf, sizeof(buf), &m));
    if (st)
        return;
    expect("rtopo_mem_deregister", rtopo_mem_deregister(m), RTOPO_OK);
    expect("rtopo_mem_deregister again (stale handle)", rtopo_mem_deregister(m),
           RTOPO_ERR_INVAL);
}

static void case_reqfree2(rtopo_ctx_t *ctx)
{
    rtopo_topo_t *t;
    rtopo_req_t *pr = NULL, *r = NULL;
    unsigned char sb[8], rb[8];
    int st, done = 0;

    need("rtopo_topo_ring", st = rtopo_topo_ring(ctx, &t));
    if (st)
        return;
    iu_fill(sb, 8, rank, 70);
    need("rtopo_shift_init", st = rtopo_shift_init(t, sb, rb, 8, 1, &pr));
    if (!st) {
        expect("rtopo_wait on a persistent request never started", rtopo_wait(pr),
               RTOPO_ERR_INVAL);
        expect("rtopo_req_free", rtopo_req_free(pr), RTOPO_OK);
        expect("rtopo_req_free again (stale handle)", rtopo_req_free(pr), RTOPO_ERR_INVAL);
        expect("rtopo_start on the freed request", rtopo_start(pr), RTOPO_ERR_INVAL);
    }
    need("rtopo_ishift", st = rtopo_ishift(t, sb, rb, 8, 1, &r));
    if (!st) {
        if (expect("rtopo_wait", rtopo_wait(r), RTOPO_OK))
            data_ok(rb, 8, 1, 70, "  data");
        expect("rtopo_start on a nonblocking request", rtopo_start(r), RTOPO_ERR_INVAL);
        expect("rtopo_req_free", rtopo_req_free(r), RTOPO_OK);
        expect("rtopo_req_free again (stale handle)", rtopo_req_free(r), RTOPO_ERR_INVAL);
        expect("rtopo_wait on the freed request", rtopo_wait(r), RTOPO_ERR_INVAL);
        expect("rtopo_test on the freed request", rtopo_test(r, &done), RTOPO_ERR_INVAL);
    }
    need("rtopo_topo_free", rtopo_topo_free(t));
}

static void case_restart(rtopo_ctx_t *ctx, size_t n)
{
    rtopo_topo_t *t;
    rtopo_req_t *a = NULL, *b = NULL;
    rtopo_mem_t *ma = NULL, *mb = NULL;
    unsigned char *sa = xmalloc(n), *ra = xmalloc(n), *sbu = xmalloc(n), *rbu = xmalloc(n);
    unsigned char *sc = xmalloc(n), *rc = xmalloc(n);
    char w[160];
    int st, round, ok = 1;

    need("rtopo_topo_ring", st = rtopo_topo_ring(ctx, &t));
    if (st)
        return;
    need("rtopo_mem_register", rtopo_mem_register(ctx, sa, n, &ma));
    need("rtopo_mem_register", rtopo_mem_register(ctx, ra, n, &mb));
    need("rtopo_shift_init (registered)", rtopo_shift_init(t, sa, ra, n, 1, &a));
    need("rtopo_shift_init (unregistered)", rtopo_shift_init(t, sbu, rbu, n, -1, &b));
    for (round = 0; a && b && round < 12 && ok; round++) {
        unsigned tag = 100 + (unsigned)round;

        iu_fill(sa, n, rank, tag);
        iu_fill(sbu, n, rank, tag + 50);
        iu_fill(sc, n, rank, tag + 100);
        memset(ra, 0xee, n);
        memset(rbu, 0xee, n);
        memset(rc, 0xee, n);
        snprintf(w, sizeof(w), "[round %d] rtopo_start of both", round);
        ok &= expect(w, rtopo_start(a) == RTOPO_OK && rtopo_start(b) == RTOPO_OK, 1);
        snprintf(w, sizeof(w), "[round %d] blocking rtopo_shift meanwhile", round);
        ok &= expect(w, rtopo_shift(t, sc, rc, n, 2), RTOPO_OK);
        snprintf(w, sizeof(w), "[round %d] rtopo_wait of both", round);
        ok &= expect(w, rtopo_wait(b) == RTOPO_OK && rtopo_wait(a) == RTOPO_OK, 1);
        ok &= data_ok(ra, n, 1, tag, "  data (registered, q 1)");
        ok &= data_ok(rbu, n, -1, tag + 50, "  data (unregistered, q -1)");
        ok &= data_ok(rc, n, 2, tag + 100, "  data (blocking, q 2)");
    }
    if (a)
        expect("rtopo_req_free (registered)", rtopo_req_free(a), RTOPO_OK);
    if (b)
        expect("rtopo_req_free (unregistered)", rtopo_req_free(b), RTOPO_OK);
    expect("rtopo_topo_free", rtopo_topo_free(t), RTOPO_OK);
    if (ma)
        rtopo_mem_deregister(ma);
    if (mb)
        rtopo_mem_deregister(mb);
    free(sa);
    free(ra);
    free(sbu);
    free(rbu);
    free(sc);
    free(rc);
}

static int finish(void)
{
    printf("%s: verdict: %s (%d of %d checks failed)\n", label(), nfails ? "FAIL" : "pass",
           nfails, nchecks);
    fflush(stdout);
    return nfails ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *cs = argc > 1 ? argv[1] : "";
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t = NULL;
    rtopo_mem_t *m = NULL;
    static unsigned char buf[4096];
    int st;

    if (!strcmp(cs, "checkbuf"))
        setenv("RTOPO_CHECK_BUFFERS", "1", 1);
    if (!strcmp(cs, "restart"))
        setenv("RTOPO_REG_PER_OP", "off", 1);
    if ((st = rtopo_init(NULL, &ctx)) != RTOPO_OK) {
        need("rtopo_init", st);
        return finish();
    }
    rank = rtopo_rank(ctx);
    nranks = rtopo_size(ctx);

    if (!strcmp(cs, "busy")) {
        case_busy(ctx, 8);
        case_busy(ctx, 65536);
    } else if (!strcmp(cs, "overlap")) {
        case_overlap(ctx, 8);
        case_overlap(ctx, 65536);
    } else if (!strcmp(cs, "checkbuf")) {
        case_checkbuf(ctx, 8);
        case_checkbuf(ctx, 65536);
    } else if (!strcmp(cs, "topofree")) {
        case_topofree(ctx);
    } else if (!strcmp(cs, "restart")) {
        case_restart(ctx, 65536);
    } else if (!strcmp(cs, "dereg2")) {
        case_dereg2(ctx);
    } else if (!strcmp(cs, "reqfree2")) {
        case_reqfree2(ctx);
    } else if (!strcmp(cs, "finalize2")) {
        need("rtopo_topo_ring", rtopo_topo_ring(ctx, &t));
        need("rtopo_mem_register", rtopo_mem_register(ctx, buf, sizeof(buf), &m));
        expect("rtopo_finalize (a topology and a region still live)", rtopo_finalize(ctx),
               RTOPO_OK);
        expect("rtopo_finalize again (stale context)", rtopo_finalize(ctx), RTOPO_ERR_INVAL);
        return finish();
    } else if (!strcmp(cs, "stale")) {
        need("rtopo_topo_ring", st = rtopo_topo_ring(ctx, &t));
        need("rtopo_mem_register", rtopo_mem_register(ctx, buf, sizeof(buf), &m));
        expect("rtopo_finalize (a topology and a region still live)", rtopo_finalize(ctx),
               RTOPO_OK);
        if (t)
            expect("rtopo_topo_free of a topology freed by rtopo_finalize", rtopo_topo_free(t),
                   RTOPO_ERR_INVAL);
        if (m)
            expect("rtopo_mem_deregister of a region freed by rtopo_finalize",
                   rtopo_mem_deregister(m), RTOPO_ERR_INVAL);
        return finish();
    } else if (!strcmp(cs, "deadctx")) {
        rtopo_topo_t *t2 = NULL;
        rtopo_mem_t *m2 = NULL;
        expect("rtopo_finalize", rtopo_finalize(ctx), RTOPO_OK);
        expect("rtopo_rank on the finalized context", rtopo_rank(ctx), RTOPO_ERR_INVAL);
        expect("rtopo_size on the finalized context", rtopo_size(ctx), RTOPO_ERR_INVAL);
        expect("rtopo_mem_register on the finalized context",
               rtopo_mem_register(ctx, buf, sizeof(buf), &m2), RTOPO_ERR_INVAL);
        expect("rtopo_topo_ring on the finalized context", rtopo_topo_ring(ctx, &t2),
               RTOPO_ERR_INVAL);
        expect("rtopo_barrier on the finalized context", rtopo_barrier(ctx), RTOPO_ERR_INVAL);
        return finish();
    } else if (!strcmp(cs, "reinit")) {
        rtopo_ctx_t *ctx2 = NULL;
        st = rtopo_init(NULL, &ctx2);
        if (expect("rtopo_init while a context is live", st, RTOPO_ERR_BUSY))
            expect_true("  the message says \"already initialised\"",
                        iu_contains(rtopo_last_error(), "already initialised") ||
                        iu_contains(rtopo_last_error(), "already initialized"), NULL);
        /* a second context, if one was made against the contract, is
         * left alone: finalizing it would be a second collective */
    } else {
        fprintf(stderr, "%s: unknown case '%s'\n", label(), cs);
        rtopo_finalize(ctx);
        return 2;
    }
    expect("rtopo_finalize", rtopo_finalize(ctx), RTOPO_OK);
    return finish();
}
