/*
 * mismatch_check - ranks that call a collective inconsistently (rtopo(7),
 * ERRORS ACROSS RANKS).  One case per job, 4 ranks, run by mismatch.sh
 * with RTOPO_TIMEOUT_MS=60000: the job must end within a few seconds, so
 * no rank may sit out the timeout.  Each call a rank makes must end in
 *   - RTOPO_ERR_MISMATCH, or
 *   - RTOPO_OK, only if its receive buffer holds exactly what a
 *     consistent call with this rank's own arguments would have given it
 *     (and nothing around the buffer was written), or
 *   - RTOPO_ERR_TIMEOUT, only if rtopo_last_error() names a rank;
 * anything else (RTOPO_ERR_PEER included) fails.  After a failure the
 * rank still calls rtopo_finalize, which must return promptly (the job's
 * wall time covers it).
 *
 *   rtopo-run -n 4 mismatch_check CASE
 *
 *   q-8, q-1m          ring, rank 3 shifts with q=2, the others q=1
 *                      (8 bytes; 1 MiB into registered receive buffers)
 *   bytes-8, bytes-64k ring, rank 1 passes twice the byte count
 *                      (8 vs 16; 64 KiB vs 128 KiB, registered receive
 *                      buffers, so an overlong write would land in the
 *                      guard zones around them)
 *   algo-8, algo-64k   2x2 mesh, q=2: rank 2 forces RTOPO_SHIFT_RING
 *                      (two hops), the others RTOPO_SHIFT_DIRECT (one)
 *   order              rank 0 creates a ring then a 2x2 mesh, the others
 *                      the mesh then the ring; everyone shifts by 1 on
 *                      the first topology it created
 *   skip               ring, 8 bytes: rank 2 makes 2 shifts, the others
 *                      3; then everyone calls rtopo_barrier, then
 *                      rtopo_finalize; every rank must see MISMATCH (or a
 *                      TIMEOUT naming rank 2) in one of those calls
 *   skip-finalize      the same, but rank 2 goes from its 2nd shift
 *                      straight to rtopo_finalize
 *   skip-barrier       no shift: rank 2 goes straight to rtopo_finalize,
 *                      the others call rtopo_barrier first
 *   transport          rank 0 sets RTOPO_TRANSPORT=ofi:tcp, the others
 *                      ofi:rxm, before rtopo_init, which must fail with
 *                      MISMATCH on every rank, naming both (tcp, rxm)
 *
 * Output, per rank: one line per call ("rank R: CALL -> STATUS in S s
 * ..."), "rank R: mismatch message: TEXT" for every MISMATCH, and a
 * final "rank R: verdict: pass|FAIL (...)".  Every rank exits 0 unless
 * it crashed, so that rtopo-run does not turn one rank's exit into the
 * others' RTOPO_ERR_PEER; mismatch.sh reads the verdicts, checks that
 * every MISMATCH message (rtopo_finalize's included) names the differing
 * argument with both values ("q=1" and "q=2", "bytes", "algo",
 * "topology") and measures the job's wall time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rtopo.h>
#include "integ_util.h"

#define GUARD 4096
#define GUARD_BYTE 0xa5

static int rank = -1, nranks;
static double t_init;       /* when rtopo_init returned */
static int bad;             /* a disallowed outcome was seen */
static int detected;        /* MISMATCH, or TIMEOUT naming the right rank */
static char why[1024];      /* reasons for FAIL */

static void add_why(const char *fmt, const char *a)
{
    size_t n = strlen(why);
    if (n + 8 < sizeof(why))
        snprintf(why + n, sizeof(why) - n, "%s%s", n ? "; " : "", a ? a : fmt);
}

struct rbuf {
    unsigned char *base;    /* GUARD | n bytes | GUARD */
    unsigned char *recv;
    size_t n;
    rtopo_mem_t *mem;
};

static void rbuf_init(rtopo_ctx_t *ctx, struct rbuf *b, size_t n, int reg)
{
    int st;
    b->n = n;
    b->base = malloc(n + 2 * GUARD);
    if (!b->base) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        exit(2);
    }
    b->recv = b->base + GUARD;
    b->mem = NULL;
    memset(b->base, GUARD_BYTE, n + 2 * GUARD);
    memset(b->recv, 0xee, n);
    if (reg && (st = rtopo_mem_register(ctx, b->base, n + 2 * GUARD, &b->mem)) != RTOPO_OK) {
        printf("rank %d: rtopo_mem_register -> %s: \"%s\" (receive buffer left unregistered)\n",
               rank, rtopo_err_name(st), rtopo_last_error());
        b->mem = NULL;
    }
}

/* guard zones intact?  reported whatever the status of the call */
static int rbuf_guards_ok(const struct rbuf *b, const char *call)
{
    long a = iu_first_not(b->base, GUARD, GUARD_BYTE);
    long z = iu_first_not(b->recv + b->n, GUARD, GUARD_BYTE);
    char msg[200];
    if (a < 0 && z < 0)
        return 1;
    snprintf(msg, sizeof(msg), "%s wrote outside the %zu-byte receive buffer (%s)", call,
             b->n, a >= 0 ? "before it" : "after it");
    printf("rank %d: %s\n", rank, msg);
    bad = 1;
    add_why(NULL, msg);
    return 0;
}

static void rbuf_free(struct rbuf *b)
{
    if (b->mem) {
        double t0 = iu_now();
        int st = rtopo_mem_deregister(b->mem);
        double dt = iu_now() - t0;
        if (st != RTOPO_OK || dt > 0.1)
            printf("rank %d: rtopo_mem_deregister -> %s in %.3f s: \"%s\"\n", rank,
                   rtopo_err_name(st), dt, st ? rtopo_last_error() : "");
        if (st != RTOPO_OK) {
            /* still in use by rtopo: do not free memory a peer may write */
            printf("rank %d: receive region left registered, its memory not freed\n", rank);
            return;
        }
    }
    free(b->base);
}

/* does `msg` name rank `who` (any rank other than this one if who < 0)? */
static int names_rank(const char *msg, int who)
{
    const char *s = msg;
    while (s && (s = strstr(s, "rank")) != NULL) {
        const char *d = s + 4;
        char *end;
        long r;
        while (*d == ' ')
            d++;
        r = strtol(d, &end, 10);
        if (end != d && (who >= 0 ? r == who : r != rank))
            return 1;
        s = d;
    }
    return 0;
}

/*
 * Judge one collective call.  data_ok: 1 the receive buffer is right,
 * 0 wrong, -1 nothing to check.  dev: the rank a TIMEOUT must name
 * (-1: any other rank).
 */
static void judge(const char *call, int st, const char *msg, double dt, int data_ok, int dev)
{
    char line[256];
    const char *note = "";

    if (st != RTOPO_OK && detected) {
        /* the context has failed already: later calls only have to
         * return promptly, which the job's wall time covers */
        note = " (after the failure was reported)";
        printf("rank %d: %s -> %s in %.3f s%s: \"%s\"\n", rank, call, rtopo_err_name(st), dt,
               note, msg);
        if (st == RTOPO_ERR_MISMATCH)
            printf("rank %d: mismatch message: %s\n", rank, msg);
        fflush(stdout);
        return;
    }
    if (st == RTOPO_OK) {
        if (data_ok == 0) {
            note = " WITH WRONG DATA";
            bad = 1;
            snprintf(line, sizeof(line), "%s returned OK with wrong data", call);
            add_why(NULL, line);
        } else if (data_ok == 1) {
            note = " (data correct)";
        }
    } else if (st == RTOPO_ERR_MISMATCH) {
        detected = 1;
    } else if (st == RTOPO_ERR_TIMEOUT && names_rank(msg, dev)) {
        detected = 1;
        note = " (names the rank)";
    } else {
        bad = 1;
        snprintf(line, sizeof(line), "%s returned %s%s", call, rtopo_err_name(st),
                 st == RTOPO_ERR_TIMEOUT ? " without naming the rank" : "");
        add_why(NULL, line);
    }
    printf("rank %d: %s -> %s in %.3f s%s: \"%s\"\n", rank, call, rtopo_err_name(st), dt,
           note, st ? msg : "");
    if (st == RTOPO_ERR_MISMATCH)
        printf("rank %d: mismatch message: %s\n", rank, msg);
    fflush(stdout);
}

/* a call's status and a copy of its message, taken at once */
struct res {
    int st;
    double dt;
    char msg[512];
};

#define CALL(r, expr)                                                        \
    do {                                                                     \
        double t0_ = iu_now();                                               \
        (r).st = (expr);                                                     \
        (r).dt = iu_now() - t0_;                                             \
        snprintf((r).msg, sizeof((r).msg), "%s", rtopo_last_error());        \
    } while (0)

/* shift `n` bytes by q on t into a fresh guarded buffer, judged */
static void shift_judged(rtopo_ctx_t *ctx, rtopo_topo_t *t, const char *name, size_t n, int q,
                         int reg, unsigned tag, int dev)
{
    struct rbuf rb;
    unsigned char *sb = malloc(n ? n : 1);
    struct res r;
    int data_ok = -1, src = iu_mod((long)rank - q, nranks);
    char call[128];

    if (!sb) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        exit(2);
    }
    rbuf_init(ctx, &rb, n, reg);
    iu_fill(sb, n, rank, tag);
    snprintf(call, sizeof(call), "%s (q=%d, %zu bytes%s)", name, q, n,
             rb.mem ? ", registered receive buffer" : "");
    CALL(r, rtopo_shift(t, sb, rb.recv, n, q));
    if (r.st == RTOPO_OK)
        data_ok = iu_first_bad(rb.recv, n, src, tag) < 0;
    judge(call, r.st, r.msg, r.dt, data_ok, dev);
    rbuf_guards_ok(&rb, call);
    rbuf_free(&rb);
    free(sb);
}

static void finalize_noted(rtopo_ctx_t *ctx, int judged, int dev)
{
    struct res r;
    CALL(r, rtopo_finalize(ctx));
    if (judged)
        judge("rtopo_finalize", r.st, r.msg, r.dt, -1, dev);
    else {
        printf("rank %d: rtopo_finalize -> %s in %.3f s: \"%s\"\n", rank, rtopo_err_name(r.st),
               r.dt, r.st ? r.msg : "");
        if (r.st == RTOPO_ERR_MISMATCH)
            printf("rank %d: mismatch message: %s\n", rank, r.msg);
    }
}

static int verdict(int need_detect)
{
    if (need_detect && !detected && !bad)
        add_why(NULL, "no call of this rank reported the inconsistency (MISMATCH, or TIMEOUT "
                      "naming the rank)");
    printf("rank %d: verdict: %s (%.3f s from the end of rtopo_init to exit)%s%s\n", rank,
           bad || (need_detect && !detected) ? "FAIL" : "pass", iu_now() - t_init,
           why[0] ? ": " : "", why);
    fflush(stdout);
    return 0;   /* see the header: the script reads the verdicts */
}

/*
 * A set-up call (creating the topology) is judged like the collective:
 * once a rank has found the mismatch the context fails job-wide, and a
 * rank that is still creating its topology gets RTOPO_ERR_MISMATCH there.
 * Returns 1 when the case can go on.
 */
static int setup_judged(const char *call, int st, double dt, int dev)
{
    char msg[512];
    snprintf(msg, sizeof(msg), "%s", rtopo_last_error());
    judge(call, st, msg, dt, -1, dev);
    return st == RTOPO_OK;
}

static int case_transport(void)
{
    int r = iu_env_rank();
    const char *tr = r == 0 ? "ofi:tcp" : "ofi:rxm";
    rtopo_ctx_t *ctx = NULL;
    struct res res;

    setenv("RTOPO_TRANSPORT", tr, 1);
    CALL(res, rtopo_init(NULL, &ctx));
    rank = r;
    t_init = iu_now();
    printf("rank %d: rtopo_init with RTOPO_TRANSPORT=%s -> %s in %.3f s: \"%s\"\n", rank, tr,
           rtopo_err_name(res.st), res.dt, res.st ? res.msg : "");
    if (res.st == RTOPO_ERR_MISMATCH) {
        printf("rank %d: mismatch message: %s\n", rank, res.msg);
        if (!iu_contains(res.msg, "tcp") || !iu_contains(res.msg, "rxm")) {
            bad = 1;
            add_why(NULL, "the message does not name both transports (tcp, rxm)");
        }
        detected = 1;
    } else {
        bad = 1;
        add_why(NULL, "rtopo_init did not fail with RTOPO_ERR_MISMATCH");
    }
    if (res.st == RTOPO_OK)
        finalize_noted(ctx, 0, -1);
    return verdict(1);
}

int main(int argc, char **argv)
{
    const char *cs = argc > 1 ? argv[1] : "";
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t = NULL, *t2 = NULL;
    int st;

    if (!strcmp(cs, "transport"))
        return case_transport();
    if ((st = rtopo_init(NULL, &ctx)) != RTOPO_OK) {
        printf("%s: rtopo_init -> %s: \"%s\"\n", iu_env_label(), rtopo_err_name(st),
               rtopo_last_error());
        printf("%s: verdict: FAIL (rtopo_init failed)\n", iu_env_label());
        return 0;
    }
    t_init = iu_now();
    rank = rtopo_rank(ctx);
    nranks = rtopo_size(ctx);
    if (nranks != 4) {
        printf("rank %d: needs 4 ranks, not %d\n", rank, nranks);
        rtopo_finalize(ctx);
        return 2;
    }

    if (!strncmp(cs, "q-", 2) || !strncmp(cs, "bytes-", 6)) {
        int isq = cs[0] == 'q';
        int big = !strcmp(cs, "q-1m") || !strcmp(cs, "bytes-64k");
        size_t n = !big ? 8 : isq ? (size_t)1 << 20 : 65536;
        int dev = isq ? 3 : 1, q = 1;
        if (rank == dev) {
            if (isq)
                q = 2;
            else
                n *= 2;
        }
        double t0 = iu_now();
        st = rtopo_topo_ring(ctx, &t);
        if (!setup_judged("rtopo_topo_ring", st, iu_now() - t0, dev))
            t = NULL;
        else
            shift_judged(ctx, t, "rtopo_shift", n, q, big, 7, dev);
    } else if (!strncmp(cs, "algo-", 5)) {
        size_t n = !strcmp(cs, "algo-64k") ? 65536 : 8;
        rtopo_shift_algo_t algo = rank == 2 ? RTOPO_SHIFT_RING : RTOPO_SHIFT_DIRECT;
        double t0 = iu_now();
        st = rtopo_topo_mesh(ctx, 2, 2, &t);
        if (!setup_judged("rtopo_topo_mesh(2x2)", st, iu_now() - t0, 2))
            t = NULL;
        else if ((st = rtopo_topo_set_shift_algo(t, algo)) != RTOPO_OK)
            setup_judged("rtopo_topo_set_shift_algo", st, 0, 2);
        else {
            printf("rank %d: shift algorithm %s\n", rank, rank == 2 ? "ring" : "direct");
            shift_judged(ctx, t, "rtopo_shift", n, 2, 0, 9, 2);
        }
    } else if (!strcmp(cs, "order")) {
        struct res r1, r2;
        const char *n1 = rank == 0 ? "rtopo_topo_ring" : "rtopo_topo_mesh(2x2)";
        const char *n2 = rank == 0 ? "rtopo_topo_mesh(2x2)" : "rtopo_topo_ring";
        if (rank == 0) {
            CALL(r1, rtopo_topo_ring(ctx, &t));
            judge(n1, r1.st, r1.msg, r1.dt, -1, -1);
            CALL(r2, rtopo_topo_mesh(ctx, 2, 2, &t2));
            judge(n2, r2.st, r2.msg, r2.dt, -1, -1);
        } else {
            CALL(r1, rtopo_topo_mesh(ctx, 2, 2, &t));
            judge(n1, r1.st, r1.msg, r1.dt, -1, 0);
            CALL(r2, rtopo_topo_ring(ctx, &t2));
            judge(n2, r2.st, r2.msg, r2.dt, -1, 0);
        }
        if (r1.st != RTOPO_OK)
            t = NULL;
        if (r2.st != RTOPO_OK)
            t2 = NULL;
        if (t)
            shift_judged(ctx, t, "rtopo_shift on the first topology", 8, 1, 0, 11,
                         rank == 0 ? -1 : 0);
        else
            printf("rank %d: no first topology: no shift\n", rank);
    } else if (!strcmp(cs, "skip-barrier")) {
        struct res r;
        if (rank != 2) {
            CALL(r, rtopo_barrier(ctx));
            judge("rtopo_barrier", r.st, r.msg, r.dt, -1, 2);
        }
        finalize_noted(ctx, 1, 2);
        return verdict(1);
    } else if (!strcmp(cs, "skip") || !strcmp(cs, "skip-finalize")) {
        int k, nshift = rank == 2 ? 2 : 3, dev = rank == 2 ? -1 : 2;
        struct res r;
        double t0 = iu_now();
        st = rtopo_topo_ring(ctx, &t);
        if (setup_judged("rtopo_topo_ring", st, iu_now() - t0, dev)) {
            for (k = 0; k < nshift; k++) {
                char name[64];
                snprintf(name, sizeof(name), "rtopo_shift #%d", k + 1);
                shift_judged(ctx, t, name, 8, 1, 0, 20u + (unsigned)k, dev);
            }
            if (rank != 2 || !strcmp(cs, "skip")) {
                CALL(r, rtopo_barrier(ctx));
                judge("rtopo_barrier", r.st, r.msg, r.dt, -1, dev);
            }
            rtopo_topo_free(t);
            finalize_noted(ctx, 1, dev);
            return verdict(1);
        }
    } else {
        fprintf(stderr, "rank %d: unknown case '%s'\n", rank, cs);
        rtopo_finalize(ctx);
        return 2;
    }
    if (t)
        rtopo_topo_free(t);
    if (t2)
        rtopo_topo_free(t2);
    finalize_noted(ctx, 0, -1);
    return verdict(0);
}
