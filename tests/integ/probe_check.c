/*
 * probe_check - a user's probes of the contract of rtopo(7), ERRORS ACROSS
 * RANKS, and of the newer operations' pages (rtopo_shift_fill(3),
 * rtopo_sort(3), rtopo_random_write(3), rtopo_scatter(3),
 * rtopo_topo_sub(3), rtopo_start(3)).  One case per job, run by probes.sh.
 *
 *   rtopo-run -n N probe_check CASE
 *
 * Every call a rank makes is printed ("rank R: CALL -> STATUS in S s:
 * MESSAGE"), then one verdict ("rank R: verdict: pass" or "verdict: FAIL
 * (why)").  A rank exits 0 unless it crashed, so that its exit does not
 * turn into the others' RTOPO_ERR_PEER; probes.sh reads the verdicts.
 *
 * Cases that expect an error expect it on every rank, from the call named
 * (a job-wide failure), and rtopo_finalize to return the same code (the
 * context has failed) or RTOPO_OK (local error, context still usable, in
 * which case a correct call after it must succeed with the right data).
 * The script runs with RTOPO_TIMEOUT_MS far above its own time limit, so
 * an error that came by the timeout shows as a hang.
 *
 * Cases (16 ranks unless said; "cube" is otis-hypercube:4, its dimensions
 * G (0) and P (1), E = 4):
 *   fill-sweep[-otis-mesh]  shift_fill (every disp from -E-1 to E+1),
 *                  accumulate, adjacent_sum, consecutive_sum (every m) on
 *                  every dimension, checked element by element
 *   fill-extreme   shift_fill with disp INT_MIN, INT_MAX, ... (cube, ring)
 *   line-big       the four on 700 to 130001 int64 (pieces), both OTIS kinds
 *   fill-disp, fill-bytes, adj-m, adj-op, acc-dim, cons-kind
 *                  one rank differs in disp, bytes, m, op, dim, or calls
 *                  consecutive_sum where the others call adjacent_sum:
 *                  RTOPO_ERR_MISMATCH (or OK with right data)
 *   cons-m-all     every rank: m not dividing E, m > E, dim out of range:
 *                  RTOPO_ERR_INVAL, the context usable after
 *   cons-m-one, fill-null-one  one rank's bad m or NULL: RTOPO_ERR_INVAL
 *   sort-count, sort-key, sort-desc, sort-recsize (8 ranks)  one rank
 *                  differs: RTOPO_ERR_MISMATCH
 *   sort-null-one, sort-bad-all, sort-overlap, sort-float (8 ranks)
 *   rw-target, rw-kind, rw-recsize, rw-persist, rw-big, rw-unsupported
 *                  random access write and read (cube)
 *   loop-bcast-root, loop-ishift-fill, loop-fill-ahead, loop-persist,
 *   ibcast-many, mix-inflight  long correct loops, requests in flight
 *   busy-start, persist-kind, persist-skip, overlap-inflight  requests
 *   kill-adj, kill-sort  one rank kills itself: RTOPO_ERR_PEER
 *   sub-keep, sub-ops, sub-zero, sub-orphan  rtopo_topo_sub pieces
 *   place-differ, place-bad  placement (rtopo-run --hosts 4 --map-by host,
 *                  --hosts 3; --no-netns)
 *   scatter-count, scatter-short, scatter-stride (5 ranks),
 *   scatter-sweep (any size)  the windowed scatter
 * Built with -DPROBE_MPI (probes_mpirun.sh), rtopo bootstraps over an
 * allgather on MPI_COMM_WORLD.
 */
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rtopo.h>
#include "integ_util.h"
#ifdef PROBE_MPI
#include <mpi.h>

/* the bootstrap over MPI (rtopo_init(3), the allgather callback) */
static int mpi_allgather(const void *sendbuf, void *recvbuf, size_t len, void *arg)
{
    return MPI_Allgather(sendbuf, (int)len, MPI_BYTE, recvbuf, (int)len, MPI_BYTE,
                         *(MPI_Comm *)arg) == MPI_SUCCESS ? 0 : -1;
}
#endif

static int me = -1, np;
static rtopo_ctx_t *ctx;
static double t0;
static int bad;
static char why[2048];

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    size_t n = strlen(why);
    va_list ap;
    bad = 1;
    if (n + 16 >= sizeof(why))
        return;
    if (n)
        n += (size_t)snprintf(why + n, sizeof(why) - n, "; ");
    va_start(ap, fmt);
    vsnprintf(why + n, sizeof(why) - n, fmt, ap);
    va_end(ap);
}

/* print the outcome of one call; returns st */
static int note(const char *call, int st)
{
    printf("[%d] rank %d: %s -> %s in %.3f s%s%s\n", me, me, call,
           st == RTOPO_OK ? "RTOPO_OK" : rtopo_err_name(st), iu_now() - t0,
           st == RTOPO_OK ? "" : ": ", st == RTOPO_OK ? "" : rtopo_last_error());
    fflush(stdout);
    return st;
}

#define CALL(expr) note(#expr, (expr))

static void want(const char *what, int st, int wanted)
{
    if (st != wanted)
        fail("%s returned %s, want %s", what, st == RTOPO_OK ? "RTOPO_OK" : rtopo_err_name(st),
             wanted == RTOPO_OK ? "RTOPO_OK" : rtopo_err_name(wanted));
}

/* ---- helpers for lines (rtopo_shift_fill(3)) ---- */

/* topology rank of the rank at coordinate x of the line of `r` along dim */
static int line_rank(rtopo_topo_t *t, int r, int dim, int x)
{
    int c[RTOPO_MAX_DIMS];
    rtopo_topo_coords(t, r, c);
    c[dim] = x;
    return rtopo_topo_rank_at(t, c);
}

static int line_pos(rtopo_topo_t *t, int r, int dim)
{
    int c[RTOPO_MAX_DIMS];
    rtopo_topo_coords(t, r, c);
    return c[dim];
}

static int64_t val(int r, int j, size_t e, unsigned tag)
{
    return (int64_t)r * 1000003 + (int64_t)j * 1009 + (int64_t)e * 7 + (int64_t)tag * 131;
}

/* verify one round of the four line operations on t, dimension dim */
static int line_ops(rtopo_topo_t *t, int dim, unsigned tag, int verbose)
{
    int r = rtopo_topo_rank(t), E = rtopo_topo_extent(t, dim);
    int x = line_pos(t, r, dim), st, m, disp, j;
    size_t cnt = 3, e;
    int64_t *s = malloc(sizeof(int64_t) * cnt * (size_t)(E + 1));
    int64_t *d = malloc(sizeof(int64_t) * cnt * (size_t)(E + 1));
    int errs = 0;
    char what[160];

    for (disp = -E - 1; disp <= E + 1; disp++) {
        for (e = 0; e < cnt; e++)
            s[e] = val(r, 0, e, tag);
        memset(d, 0x5a, sizeof(int64_t) * cnt);
        st = rtopo_shift_fill(t, dim, s, d, cnt * sizeof(int64_t), disp);
        snprintf(what, sizeof what, "shift_fill(dim %d, disp %d)", dim, disp);
        if (verbose || st)
            note(what, st);
        if (st)
            return st;
        for (e = 0; e < cnt; e++) {
            int from = x - disp;
            int64_t w = (from >= 0 && from < E) ? val(line_rank(t, r, dim, from), 0, e, tag) : 0;
            if (d[e] != w && !errs++)
                fail("%s: element %zu is %lld, want %lld", what, e, (long long)d[e],
                     (long long)w);
        }
    }
    for (m = 1; m <= E; m++) {
        for (e = 0; e < cnt; e++)
            s[e] = val(r, 0, e, tag);
        st = rtopo_accumulate(t, dim, s, d, cnt * sizeof(int64_t), m);
        snprintf(what, sizeof what, "accumulate(dim %d, m %d)", dim, m);
        if (verbose || st)
            note(what, st);
        if (st)
            return st;
        for (j = 0; j < m; j++)
            for (e = 0; e < cnt; e++) {
                int64_t w = val(line_rank(t, r, dim, (x + j) % E), 0, e, tag);
                if (d[(size_t)j * cnt + e] != w && !errs++)
                    fail("%s: block %d element %zu is %lld, want %lld", what, j, e,
                         (long long)d[(size_t)j * cnt + e], (long long)w);
            }
        st = rtopo_adjacent_sum(t, dim, s, d, cnt, RTOPO_INT64, RTOPO_SUM, m);
        snprintf(what, sizeof what, "adjacent_sum(dim %d, m %d)", dim, m);
        if (verbose || st)
            note(what, st);
        if (st)
            return st;
        for (e = 0; e < cnt; e++) {
            int64_t w = 0;
            for (j = 0; j < m; j++)
                w += val(line_rank(t, r, dim, (x + j) % E), 0, e, tag);
            if (d[e] != w && !errs++)
                fail("%s: element %zu is %lld, want %lld", what, e, (long long)d[e],
                     (long long)w);
        }
        if (E % m)
            continue;
        for (j = 0; j < m; j++)
            for (e = 0; e < cnt; e++)
                s[(size_t)j * cnt + e] = val(r, j, e, tag);
        st = rtopo_consecutive_sum(t, dim, s, d, cnt, RTOPO_INT64, RTOPO_SUM, m);
        snprintf(what, sizeof what, "consecutive_sum(dim %d, m %d)", dim, m);
        if (verbose || st)
            note(what, st);
        if (st)
            return st;
        for (e = 0; e < cnt; e++) {
            int b = x - x % m, y;
            int64_t w = 0;
            for (y = b; y < b + m; y++)
                w += val(line_rank(t, r, dim, y), x % m, e, tag);
            if (d[e] != w && !errs++)
                fail("%s: element %zu is %lld, want %lld", what, e, (long long)d[e],
                     (long long)w);
        }
    }
    free(s);
    free(d);
    return RTOPO_OK;
}

/* ---- cases ---- */

/* the outcome of a call in a case that expects `wanted` job-wide: the
 * call returns `wanted`, or RTOPO_OK with correct data (this rank's part
 * was complete before the job failed, rtopo(7), The failed context) */
static int judge(const char *what, int st, int data_ok, int wanted)
{
    if (st == RTOPO_OK && !data_ok)
        fail("%s returned RTOPO_OK with wrong data", what);
    else if (st != RTOPO_OK)
        want(what, st, wanted);
    return wanted;
}

enum { FILL, ACC, ADJ, CONS };

/* one line operation of kind k with parameter (disp or m) par on `cnt`
 * int64 per value; *ok set when the result is right (for RTOPO_OK) */
static int line_op(rtopo_topo_t *t, int k, int dim, int par, size_t cnt, unsigned tag,
                   const char *what, int *ok)
{
    int r = rtopo_topo_rank(t), E = rtopo_topo_extent(t, dim), x, st, j, y;
    size_t e, nin = k == CONS ? (size_t)par * cnt : cnt, nout = k == ACC ? (size_t)par * cnt : cnt;
    int64_t *s = calloc(nin + 1, sizeof(int64_t)), *d = calloc(nout + 1, sizeof(int64_t));

    for (j = 0; j < (k == CONS ? par : 1); j++)
        for (e = 0; e < cnt; e++)
            s[(size_t)j * cnt + e] = val(r, j, e, tag);
    memset(d, 0x5a, nout * sizeof(int64_t));
    switch (k) {
    case FILL: st = rtopo_shift_fill(t, dim, s, d, cnt * 8, par); break;
    case ACC: st = rtopo_accumulate(t, dim, s, d, cnt * 8, par); break;
    case ADJ: st = rtopo_adjacent_sum(t, dim, s, d, cnt, RTOPO_INT64, RTOPO_SUM, par); break;
    default: st = rtopo_consecutive_sum(t, dim, s, d, cnt, RTOPO_INT64, RTOPO_SUM, par); break;
    }
    note(what, st);
    *ok = 1;
    if (st == RTOPO_OK) {
        x = line_pos(t, r, dim);
        for (e = 0; e < nout; e++) {
            int64_t w = 0;
            size_t el = e % cnt;
            j = (int)(e / cnt);
            if (k == FILL)
                w = (x - par >= 0 && x - par < E) ? val(line_rank(t, r, dim, x - par), 0, el, tag) : 0;
            else if (k == ACC)
                w = val(line_rank(t, r, dim, (x + j) % E), 0, el, tag);
            else if (k == ADJ)
                for (y = 0; y < par; y++)
                    w += val(line_rank(t, r, dim, (x + y) % E), 0, el, tag);
            else
                for (y = x - x % par; y < x - x % par + par; y++)
                    w += val(line_rank(t, r, dim, y), x % par, el, tag);
            if (d[e] != w) {
                fail("%s: element %zu is %lld, want %lld", what, e, (long long)d[e], (long long)w);
                *ok = 0;
                break;
            }
        }
    }
    free(s);
    free(d);
    return st;
}

/* the creation of the case's topology must succeed: a failure of a
 * later call reaches a rank at its next call, never in a creation whose
 * neighbours all agreed (rtopo(7), The failed context) */
static int created(const char *what, int st)
{
    if (st)
        fail("creating the %s returned %s: %s", what, rtopo_err_name(st), rtopo_last_error());
    return st;
}

static int mk_otis_cube(rtopo_topo_t **t)
{
    return created("OTIS-hypercube", CALL(rtopo_topo_otis_hypercube(ctx, 4, t)));
}

static int mk_ring(rtopo_topo_t **t)
{
    return created("ring", CALL(rtopo_topo_ring(ctx, t)));
}

struct rec { int64_t key; int32_t origin; int32_t pad; };

static int sort_ok(const struct rec *got, size_t count, int r)
{
    /* keys: rank-dependent permutation, checked for ascending order and
     * the right slice of the global order */
    size_t i;
    for (i = 0; i < count; i++) {
        int64_t want_key = (int64_t)((size_t)r * count + i);
        if (got[i].key != want_key) {
            fail("sort: record %zu has key %lld, want %lld", i, (long long)got[i].key,
                 (long long)want_key);
            return 0;
        }
    }
    return 1;
}

static void sort_fill(struct rec *s, size_t count, int r, int p, unsigned tag)
{
    size_t i, n = (size_t)p * count;
    for (i = 0; i < count; i++) {
        size_t g = (size_t)r * count + i;
        /* a permutation of 0..n-1 that changes with tag */
        s[i].key = (int64_t)((g * 7 + tag * 3) % n);
        s[i].origin = r;
        s[i].pad = (int32_t)i;
    }
}

static int probe(const char *c, int *final_want)
{
    rtopo_topo_t *t = NULL;
    int st = RTOPO_OK, r, i, ok = 1, x;
    int64_t a[64], b[64];

    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    *final_want = RTOPO_OK;

    /* --- line operations on the OTIS-hypercube (16 ranks) --- */
    if (!strcmp(c, "fill-sweep") || !strcmp(c, "fill-sweep-otis-mesh")) {
        int d, nd;
        st = strcmp(c, "fill-sweep") ? CALL(rtopo_topo_otis_mesh(ctx, 4, &t)) : mk_otis_cube(&t);
        if (st)
            return fail("topology: %d", st), st;
        nd = rtopo_topo_ndims(t);
        for (d = 0; d < nd && !st; d++)
            st = line_ops(t, d, (unsigned)d + 1, 0);
        want("line operations", st, RTOPO_OK);
    } else if (!strcmp(c, "fill-disp")) {
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        st = line_op(t, FILL, 1, r == 6 ? 2 : -2, 1, 1, "shift_fill", &ok);
        *final_want = judge("shift_fill", st, ok, RTOPO_ERR_MISMATCH);
    } else if (!strcmp(c, "fill-bytes")) {
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        st = line_op(t, FILL, 0, 1, r == 6 ? 2 : 1, 1, "shift_fill", &ok);
        *final_want = judge("shift_fill", st, ok, RTOPO_ERR_MISMATCH);
    } else if (!strcmp(c, "adj-m")) {
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        st = line_op(t, ADJ, 0, r == 6 ? 3 : 2, 2, 1, "adjacent_sum", &ok);
        *final_want = judge("adjacent_sum", st, ok, RTOPO_ERR_MISMATCH);
    } else if (!strcmp(c, "adj-op")) {
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        a[0] = r;
        a[1] = -r;
        st = CALL(rtopo_adjacent_sum(t, 1, a, b, 2, RTOPO_INT64, r == 9 ? RTOPO_MAX : RTOPO_SUM, 4));
        {   /* the line is the group: G * 4 + 0..3 */
            int64_t w0 = 0, w1 = 0, g = r / 4 * 4;
            for (i = 0; i < 4; i++) {
                w0 = r == 9 ? (i ? (w0 > g + i ? w0 : g + i) : g) : w0 + g + i;
                w1 = r == 9 ? (i ? (w1 > -(g + i) ? w1 : -(g + i)) : -g) : w1 - (g + i);
            }
            ok = b[0] == w0 && b[1] == w1;
        }
        *final_want = judge("adjacent_sum", st, ok, RTOPO_ERR_MISMATCH);
    } else if (!strcmp(c, "acc-dim")) {
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        st = line_op(t, ACC, r == 6 ? 0 : 1, 2, 1, 1, "accumulate", &ok);
        *final_want = judge("accumulate", st, ok, RTOPO_ERR_MISMATCH);
    } else if (!strcmp(c, "cons-kind")) {
        /* the same slot: consecutive_sum on rank 6, adjacent_sum elsewhere */
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        st = line_op(t, r == 6 ? CONS : ADJ, 1, 2, 2, 1, r == 6 ? "consecutive_sum" : "adjacent_sum", &ok);
        *final_want = judge("sum", st, ok, RTOPO_ERR_MISMATCH);
    } else if (!strcmp(c, "cons-m-all")) {
        /* every rank: m does not divide E -> INVAL, context usable */
        if ((st = mk_otis_cube(&t)))
            return st;
        st = CALL(rtopo_consecutive_sum(t, 1, a, b, 2, RTOPO_INT64, RTOPO_SUM, 3));
        want("consecutive_sum m=3", st, RTOPO_ERR_INVAL);
        st = CALL(rtopo_accumulate(t, 0, a, b, 8, 5));
        want("accumulate m=5", st, RTOPO_ERR_INVAL);
        st = CALL(rtopo_shift_fill(t, 2, a, b, 8, 1));
        want("shift_fill dim 2", st, RTOPO_ERR_INVAL);
        st = line_ops(t, 1, 7, 0);
        want("line operations afterwards", st, RTOPO_OK);
    } else if (!strcmp(c, "cons-m-one")) {
        /* rank 5 alone passes an m that does not divide E */
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        st = line_op(t, CONS, 1, r == 5 ? 3 : 2, 2, 1, "consecutive_sum", &ok);
        *final_want = judge("consecutive_sum", st, ok, RTOPO_ERR_INVAL);
    } else if (!strcmp(c, "fill-null-one")) {
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        a[0] = val(r, 0, 0, 1);
        b[0] = 77;
        st = CALL(rtopo_shift_fill(t, 1, r == 11 ? NULL : (void *)a, b, 8, 1));
        x = line_pos(t, r, 1);
        *final_want = judge("shift_fill", st,
                            b[0] == (x ? val(line_rank(t, r, 1, x - 1), 0, 0, 1) : 0),
                            RTOPO_ERR_INVAL);
    /* --- sort --- */
    } else if (!strcmp(c, "sort-count") || !strcmp(c, "sort-key") || !strcmp(c, "sort-desc") ||
               !strcmp(c, "sort-recsize")) {
        struct rec s[8], d[8];
        size_t count = 4, rs = sizeof(struct rec);
        rtopo_datatype_t kt = RTOPO_INT64;
        int desc = 0;
        if ((st = mk_ring(&t)))
            return st;
        r = rtopo_topo_rank(t);
        sort_fill(s, 8, r, np, 0);
        if (r == 2) {
            if (!strcmp(c, "sort-count"))
                count = 5;
            else if (!strcmp(c, "sort-key"))
                kt = RTOPO_DOUBLE;
            else if (!strcmp(c, "sort-desc"))
                desc = 1;
            else
                rs = 24;
        }
        st = CALL(rtopo_sort(t, s, d, count, rs, kt, desc));
        *final_want = judge("sort", st, 0, RTOPO_ERR_MISMATCH);
    } else if (!strcmp(c, "sort-null-one")) {
        struct rec s[4], d[4];
        if ((st = mk_ring(&t)))
            return st;
        r = rtopo_topo_rank(t);
        sort_fill(s, 4, r, np, 0);
        st = CALL(rtopo_sort(t, r == 1 ? NULL : s, d, 4, sizeof(struct rec), RTOPO_INT64, 0));
        *final_want = judge("sort", st, 0, RTOPO_ERR_INVAL);
    } else if (!strcmp(c, "sort-bad-all")) {
        /* every rank passes the same bad arguments: local, usable after */
        struct rec s[4], d[4];
        if ((st = mk_ring(&t)))
            return st;
        r = rtopo_topo_rank(t);
        st = CALL(rtopo_sort(t, s, d, 4, 4, RTOPO_INT64, 0));
        want("sort recsize 4 < key", st, RTOPO_ERR_INVAL);
        st = CALL(rtopo_sort(t, s, d, 4, sizeof(struct rec), (rtopo_datatype_t)9, 0));
        want("sort keytype 9", st, RTOPO_ERR_INVAL);
        st = CALL(rtopo_sort(t, s, (char *)s + 8, 3, sizeof(struct rec), RTOPO_INT64, 0));
        want("sort overlapping", st, RTOPO_ERR_INVAL);
        sort_fill(s, 4, r, np, 5);
        st = CALL(rtopo_sort(t, s, d, 4, sizeof(struct rec), RTOPO_INT64, 0));
        want("sort afterwards", st, RTOPO_OK);
        if (!st)
            sort_ok(d, 4, r);
    /* --- random access --- */
    } else if (!strcmp(c, "rw-target")) {
        int64_t dest, got_rec = -1, mine;
        int got = -7;
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        mine = r;
        dest = r == 5 ? 16 : (r + 1) % 16;
        st = CALL(rtopo_random_write(t, &mine, &dest, &got_rec, 8, &got));
        *final_want = judge("random_write", st, 0, RTOPO_ERR_INVAL);
    } else if (!strcmp(c, "rw-kind")) {
        int64_t dest, got_rec = -1, mine;
        int got = -7;
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        mine = r;
        dest = (r + 3) % 16;
        if (r == 5)
            st = CALL(rtopo_random_read(t, &mine, &dest, &got_rec, 8, &got));
        else
            st = CALL(rtopo_random_write(t, &mine, &dest, &got_rec, 8, &got));
        *final_want = judge("random access", st, 0, RTOPO_ERR_MISMATCH);
    } else if (!strcmp(c, "rw-recsize")) {
        int64_t dest, got_rec[2], mine[2];
        int got = -7;
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        mine[0] = mine[1] = r;
        dest = (r + 3) % 16;
        st = CALL(rtopo_random_read(t, mine, &dest, got_rec, r == 12 ? 16 : 8, &got));
        *final_want = judge("random_read", st, 0, RTOPO_ERR_MISMATCH);
    } else if (!strcmp(c, "rw-persist")) {
        /* persistent random write and read, targets changing per round */
        rtopo_req_t *w = NULL, *rd = NULL;
        int64_t dest, src, mine, got_w, got_r;
        int gw, gr, round, k;
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        st = CALL(rtopo_random_write_init(t, &mine, &dest, &got_w, 8, &gw, &w));
        if (!st)
            st = CALL(rtopo_random_read_init(t, &mine, &src, &got_r, 8, &gr, &rd));
        for (round = 0; round < 200 && !st; round++) {
            int writers = 0, top = -1;
            /* rank k writes to (k * 5 + round) % 16 when k % 3 != round % 3 */
            for (k = 0; k < 16; k++)
                if (k % 3 != round % 3 && (k * 5 + round) % 16 == r)
                    writers++, top = k;
            mine = r * 1000 + round;
            dest = (r % 3 != round % 3) ? (r * 5 + round) % 16 : -1;
            got_w = -1;
            gw = -9;
            st = rtopo_start(w);
            if (!st)
                st = rtopo_wait(w);
            if (st) {
                note("random_write round", st);
                break;
            }
            if (gw != (writers > 0) || (writers && got_w != top * 1000 + round))
                fail("random_write round %d: got %d rec %lld, want %d rec %lld", round, gw,
                     (long long)got_w, writers > 0, (long long)(top * 1000 + round));
            src = (r + round) % 5 ? (r * 7 + round) % 16 : -1;
            got_r = -1;
            gr = -9;
            st = rtopo_start(rd);
            if (!st)
                st = rtopo_wait(rd);
            if (st) {
                note("random_read round", st);
                break;
            }
            if (gr != (src >= 0) || (src >= 0 && got_r != src * 1000 + round))
                fail("random_read round %d: got %d rec %lld, want %d rec %lld", round, gr,
                     (long long)got_r, src >= 0, (long long)(src * 1000 + round));
        }
        want("persistent random access", st, RTOPO_OK);
        rtopo_req_free(w);
        rtopo_req_free(rd);
    /* --- long loops --- */
    } else if (!strcmp(c, "loop-bcast-root")) {
        /* the same root, blocking, no barrier: the root runs ahead */
        int64_t v[4];
        if ((st = mk_ring(&t)))
            return st;
        r = rtopo_topo_rank(t);
        for (i = 0; i < 5000 && !st; i++) {
            v[0] = r == 0 ? i : -1;
            st = rtopo_bcast(t, v, 1, RTOPO_INT64, 0);
            if (!st && v[0] != i)
                fail("bcast %d gave %lld", i, (long long)v[0]), st = -100;
        }
        if (st != -100)
            note("5000 bcasts", st), want("5000 bcasts", st, RTOPO_OK);
    } else if (!strcmp(c, "loop-ishift-fill")) {
        /* nonblocking shift_fills overlapped 8 at a time, 3000 in all */
        enum { K = 8 };
        rtopo_req_t *q[K];
        int64_t sv[K], rv[K];
        int n = 0, k;
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        while (n < 3000 && !st) {
            for (k = 0; k < K && !st; k++) {
                sv[k] = val(r, 0, 0, (unsigned)(n + k));
                st = rtopo_ishift_fill(t, (n + k) % 2, &sv[k], &rv[k], 8, 1, &q[k]);
            }
            for (k = 0; k < K && !st; k++) {
                int dim = (n + k) % 2, x = line_pos(t, r, dim);
                int64_t w;
                st = rtopo_wait(q[k]);
                rtopo_req_free(q[k]);
                w = x >= 1 ? val(line_rank(t, r, dim, x - 1), 0, 0, (unsigned)(n + k)) : 0;
                if (!st && rv[k] != w)
                    fail("ishift_fill %d: %lld, want %lld", n + k, (long long)rv[k], (long long)w);
            }
            n += K;
        }
        note("3000 ishift_fills, 8 in flight", st);
        want("3000 ishift_fills", st, RTOPO_OK);
    } else if (!strcmp(c, "loop-persist")) {
        /* persistent requests of every kind here, restarted in turn */
        enum { NR = 5 };
        rtopo_req_t *q[NR];
        int64_t s1 = 0, d1 = 0, s4[4], d4[4], s2[2], d2 = 0, ab = 0;
        struct rec ss[2], sd[2];
        int round, k;
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        st = CALL(rtopo_shift_fill_init(t, 1, &s1, &d1, 8, -3, &q[0]));
        if (!st) st = CALL(rtopo_accumulate_init(t, 0, &s1, d4, 8, 4, &q[1]));
        if (!st) st = CALL(rtopo_consecutive_sum_init(t, 1, s2, &d2, 1, RTOPO_INT64, RTOPO_SUM, 2, &q[2]));
        if (!st) st = CALL(rtopo_sort_init(t, ss, sd, 2, sizeof(struct rec), RTOPO_INT64, 0, &q[3]));
        if (!st) st = CALL(rtopo_bcast_init(t, &ab, 1, RTOPO_INT64, 5, &q[4]));
        for (round = 0; round < 400 && !st; round++) {
            s1 = val(r, 0, 0, (unsigned)round);
            s2[0] = val(r, 0, 0, (unsigned)round);
            s2[1] = val(r, 1, 0, (unsigned)round);
            sort_fill(ss, 2, r, 16, (unsigned)round);
            ab = r == 5 ? round : -1;
            memset(s4, 0, sizeof s4);
            for (k = 0; k < NR && !st; k++)
                st = rtopo_start(q[k]);
            for (k = 0; k < NR && !st; k++)
                st = rtopo_wait(q[k]);
            if (st)
                break;
            {
                int x = line_pos(t, r, 1), xg = line_pos(t, r, 0), j;
                int64_t w = x + 3 < 4 ? val(line_rank(t, r, 1, x + 3), 0, 0, (unsigned)round) : 0;
                if (d1 != w)
                    fail("round %d shift_fill: %lld, want %lld", round, (long long)d1, (long long)w);
                for (j = 0; j < 4; j++)
                    if (d4[j] != val(line_rank(t, r, 0, (xg + j) % 4), 0, 0, (unsigned)round))
                        fail("round %d accumulate block %d wrong", round, j);
                w = 0;
                for (j = x - x % 2; j < x - x % 2 + 2; j++)
                    w += val(line_rank(t, r, 1, j), x % 2, 0, (unsigned)round);
                if (d2 != w)
                    fail("round %d consecutive_sum: %lld, want %lld", round, (long long)d2, (long long)w);
                sort_ok(sd, 2, r);
                if (ab != round)
                    fail("round %d bcast: %lld", round, (long long)ab);
            }
            if (bad)
                break;
        }
        note("400 rounds of 5 persistent requests", st);
        want("persistent rounds", st, RTOPO_OK);
        for (k = 0; k < NR; k++)
            rtopo_req_free(q[k]);
    /* --- a killed rank --- */
    } else if (!strcmp(c, "kill-adj")) {
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        for (i = 0; i < 100000 && !st; i++) {
            if (i == 200 && rtopo_rank(ctx) == 3) {
                printf("[%d] rank %d: verdict: pass (killing itself)\n", me, me);
                fflush(stdout);
                raise(SIGKILL);
            }
            a[0] = r;
            st = rtopo_adjacent_sum(t, i % 2, a, b, 1, RTOPO_INT64, RTOPO_SUM, 3);
        }
        note("adjacent_sum loop", st);
        *final_want = judge("adjacent_sum loop", st, 0, RTOPO_ERR_PEER);
    } else if (!strcmp(c, "kill-sort")) {
        struct rec s[4], d[4];
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        for (i = 0; i < 100000 && !st; i++) {
            if (i == 50 && rtopo_rank(ctx) == 9) {
                printf("[%d] rank %d: verdict: pass (killing itself)\n", me, me);
                fflush(stdout);
                raise(SIGKILL);
            }
            sort_fill(s, 4, r, np, (unsigned)i);
            st = rtopo_sort(t, s, d, 4, sizeof(struct rec), RTOPO_INT64, 0);
        }
        note("sort loop", st);
        *final_want = judge("sort loop", st, 0, RTOPO_ERR_PEER);
    /* --- sub-topologies --- */
    } else if (!strcmp(c, "sub-keep") || !strcmp(c, "sub-keep0")) {
        /* rank 6 keeps another dimension than the others (sub-keep0: no
         * dimension, a piece of one rank, without neighbours) */
        rtopo_topo_t *s = NULL;
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        st = CALL(rtopo_topo_sub(t, r == 6 ? (c[8] ? 0u : 1u) : 2u, &s));
        if (!st) {
            a[0] = r;
            st = CALL(rtopo_shift(s, a, b, 8, 1));
        }
        if (!st)
            st = CALL(rtopo_barrier(ctx));
        *final_want = judge("sub with different keep", st, 0, RTOPO_ERR_MISMATCH);
        if (s)
            rtopo_topo_free(s);
    } else if (!strcmp(c, "sub-ops")) {
        /* line operations on pieces of an OTIS-hypercube and on a piece
         * of a piece */
        rtopo_topo_t *g = NULL, *col = NULL;
        if ((st = mk_otis_cube(&t)))
            return st;
        st = CALL(rtopo_topo_sub(t, 2u, &g));
        if (!st)
            st = CALL(rtopo_topo_sub(t, 1u, &col));
        if (!st)
            st = line_ops(g, 0, 3, 0);
        if (!st)
            st = line_ops(g, 1, 4, 0);
        if (!st)
            st = line_ops(col, 1, 5, 0);
        if (!st)
            st = line_ops(t, 1, 6, 0);
        want("operations on pieces", st, RTOPO_OK);
        if (!st)
            st = CALL(rtopo_barrier(ctx));
        rtopo_topo_free(col);
        rtopo_topo_free(g);
    } else if (!strcmp(c, "fill-extreme")) {
        /* any int is a valid disp: INT_MIN and INT_MAX zero every recvbuf */
        int dd[4] = { INT_MIN, INT_MAX, INT_MIN + 1, -INT_MAX }, k;
        if ((st = mk_otis_cube(&t)))
            return st;
        for (k = 0; k < 4 && !st; k++) {
            st = line_op(t, FILL, k % 2, dd[k], 2, 3, "shift_fill(extreme disp)", &ok);
            if (!st && !ok)
                break;
        }
        want("shift_fill with extreme disp", st, RTOPO_OK);
        if (!st) {
            rtopo_topo_t *ring = NULL;
            st = CALL(rtopo_topo_ring(ctx, &ring));
            for (k = 0; k < 4 && !st; k++)
                st = line_op(ring, FILL, 0, dd[k], 2, 4, "ring shift_fill(extreme disp)", &ok);
            want("ring shift_fill with extreme disp", st, RTOPO_OK);
            if (ring)
                rtopo_topo_free(ring);
        }
    } else if (!strcmp(c, "place-differ")) {
        /* rank 0 places by rank, the others by host (4 hosts dealt round
         * robin): rtopo_set_place(3) says the setting must be the same */
        int64_t sv, rv = -1;
        rtopo_topo_t *ring = NULL;
        st = CALL(rtopo_set_place(ctx, me == 0 ? RTOPO_PLACE_RANK : RTOPO_PLACE_HOST));
        if (!st)
            st = CALL(rtopo_topo_ring(ctx, &ring));
        if (!st) {
            r = rtopo_topo_rank(ring);
            sv = r;
            st = CALL(rtopo_shift(ring, &sv, &rv, 8, 1));
            ok = rv == (r + np - 1) % np;
            printf("[%d] rank %d: topology rank %d got %lld\n", me, me, r, (long long)rv);
        }
        if (!st)
            st = CALL(rtopo_barrier(ctx));
        *final_want = judge("ring placed differently", st, 0, RTOPO_ERR_MISMATCH);
        (void)ok;
        if (ring)
            rtopo_topo_free(ring);
    } else if (!strcmp(c, "scatter-count") || !strcmp(c, "scatter-short") ||
               !strcmp(c, "scatter-stride")) {
        /* 2^2 nodes + a host outside the cube (5 ranks, host rank 4) */
        int64_t arr[64], win[16];
        size_t cnt = 5, stride = 3, sc = 3 * 3 + 5;
        for (i = 0; i < 64; i++)
            arr[i] = 1000 + i;
        if ((st = created("hypercube with a host", CALL(rtopo_topo_hypercube_host(ctx, 2, 4, &t)))))
            return st;
        if (!strcmp(c, "scatter-count") && me == 2)
            cnt = 6;
        if (!strcmp(c, "scatter-stride") && me == 1)
            stride = 2;
        if (!strcmp(c, "scatter-short") && me == 4)
            sc = 13;
        st = CALL(rtopo_scatter(t, me == 4 ? arr : NULL, me == 4 ? sc : 0, me == 4 ? NULL : win,
                                cnt, stride, 8));
        r = rtopo_topo_rank(t);
        ok = 1;
        for (i = 0; me != 4 && i < (int)cnt; i++)
            ok &= win[i] == 1000 + r * (int)stride + i;
        *final_want = judge("scatter", st, ok,
                            !strcmp(c, "scatter-short") ? RTOPO_ERR_INVAL : RTOPO_ERR_MISMATCH);
    } else if (!strcmp(c, "ibcast-many")) {
        /* 300 nonblocking bcasts from one root in flight at once: never
         * refused, each completes once the peers have made their calls */
        enum { NB = 300 };
        rtopo_req_t **q = calloc(NB, sizeof(*q));
        int64_t *v = calloc(NB, sizeof(int64_t));
        int k, started = 0;
        if ((st = created("OTIS-mesh", CALL(rtopo_topo_otis_mesh(ctx, 4, &t)))))
            return st;
        r = rtopo_topo_rank(t);
        for (k = 0; k < NB && !st; k++) {
            v[k] = r == 7 ? k * 3 : -1;
            st = rtopo_ibcast(t, &v[k], 1, RTOPO_INT64, 7, &q[k]);
            if (!st)
                started++;
        }
        note("300 ibcasts started", st);
        for (k = 0; k < started; k++) {
            int s2 = rtopo_wait(q[k]);
            if (s2 && !st)
                st = note("ibcast wait", s2);
            if (!s2 && v[k] != k * 3)
                fail("ibcast %d gave %lld", k, (long long)v[k]);
            rtopo_req_free(q[k]);
        }
        want("300 ibcasts in flight", st, RTOPO_OK);
        free(q);
        free(v);
    } else if (!strcmp(c, "busy-start")) {
        /* starting an active persistent request: RTOPO_ERR_BUSY on every
         * rank, the round it started goes on */
        rtopo_req_t *q = NULL;
        int64_t sv[4], rv[4];
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        st = CALL(rtopo_adjacent_sum_init(t, 0, sv, rv, 4, RTOPO_INT64, RTOPO_MAX, 3, &q));
        for (i = 0; i < 50 && !st; i++) {
            int k, x2 = line_pos(t, r, 0);
            for (k = 0; k < 4; k++)
                sv[k] = val(r, 0, (size_t)k, (unsigned)i);
            st = rtopo_start(q);
            if (st)
                break;
            want("start of an active request", rtopo_start(q), RTOPO_ERR_BUSY);
            want("free of an active request", rtopo_req_free(q), RTOPO_ERR_BUSY);
            st = rtopo_wait(q);
            for (k = 0; !st && k < 4; k++) {
                int64_t w = INT64_MIN;
                int y;
                for (y = 0; y < 3; y++) {
                    int64_t v2 = val(line_rank(t, r, 0, (x2 + y) % 4), 0, (size_t)k, (unsigned)i);
                    w = v2 > w ? v2 : w;
                }
                if (rv[k] != w)
                    fail("round %d element %d: %lld, want %lld", i, k, (long long)rv[k], (long long)w);
            }
        }
        note("50 rounds with a start while active", st);
        want("persistent adjacent_sum", st, RTOPO_OK);
        rtopo_req_free(q);
    } else if (!strcmp(c, "sort-float")) {
        /* NaN last when ascending, first when descending; -0.0 == 0.0,
         * ties in the order of origin (rtopo_sort(3)) */
        struct frec { double key; int32_t origin, pos; } s[6], d[6];
        int dir;
        if ((st = mk_ring(&t)))
            return st;
        r = rtopo_topo_rank(t);
        for (dir = 0; dir < 2 && !st; dir++) {
            int n = np * 6, k;
            struct frec *all = calloc((size_t)n, sizeof(*all));
            for (k = 0; k < 6; k++) {
                int g = r * 6 + k;
                s[k].key = g % 7 == 0 ? NAN : g % 5 == 0 ? (g % 2 ? -0.0 : 0.0) : (double)((g * 37) % 11) - 5;
                s[k].origin = r;
                s[k].pos = k;
            }
            st = CALL(rtopo_sort(t, s, d, 6, sizeof(struct frec), RTOPO_DOUBLE, dir));
            /* the whole expected order, computed here */
            for (k = 0; k < n; k++) {
                int g = k;
                all[k].key = g % 7 == 0 ? NAN : g % 5 == 0 ? (g % 2 ? -0.0 : 0.0) : (double)((g * 37) % 11) - 5;
                all[k].origin = g / 6;
                all[k].pos = g % 6;
            }
            /* insertion sort by (key with NaN last/first, origin, pos) */
            for (k = 1; k < n; k++) {
                struct frec x3 = all[k];
                int j = k - 1;
                while (j >= 0) {
                    const struct frec *y = &all[j];
                    int before;   /* x3 goes before y */
                    int xn = isnan(x3.key), yn = isnan(y->key);
                    if (xn != yn)
                        before = dir ? xn : yn;
                    else if (!xn && x3.key != y->key)
                        before = dir ? x3.key > y->key : x3.key < y->key;
                    else
                        before = x3.origin < y->origin ||
                                 (x3.origin == y->origin && x3.pos < y->pos);
                    if (!before)
                        break;
                    all[j + 1] = all[j];
                    j--;
                }
                all[j + 1] = x3;
            }
            for (k = 0; !st && k < 6; k++) {
                const struct frec *w = &all[r * 6 + k];
                if (d[k].origin != w->origin || d[k].pos != w->pos)
                    fail("sort %s: record %d is (%g from %d/%d), want (%g from %d/%d)",
                         dir ? "descending" : "ascending", k, d[k].key, d[k].origin, d[k].pos,
                         w->key, w->origin, w->pos);
            }
            free(all);
        }
        want("float sort", st, RTOPO_OK);
    } else if (!strcmp(c, "rw-big")) {
        /* records of 100000 bytes, many writers to one rank, readers of
         * one record, ranks that take no part */
        size_t rs = 100000;
        unsigned char *sr = malloc(rs), *rr = malloc(rs);
        int64_t dest, src;
        int got = -1, top, round;
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        for (round = 0; round < 3 && !st; round++) {
            iu_fill(sr, rs, r, (unsigned)round);
            memset(rr, 0xee, rs);
            dest = r % 4 == 3 ? -1 : (r < 8 ? 5 : (r + round) % 16);
            st = CALL(rtopo_random_write(t, sr, &dest, rr, rs, &got));
            /* writers to rank r: the highest wins */
            top = -1;
            for (i = 0; i < 16; i++) {
                int64_t di = i % 4 == 3 ? -1 : (i < 8 ? 5 : (i + round) % 16);
                if (di == r)
                    top = i;
            }
            if (!st && (got != (top >= 0) || (top >= 0 && iu_first_bad(rr, rs, top, (unsigned)round) >= 0)))
                fail("random_write round %d: got %d, want %d from %d", round, got, top >= 0, top);
            src = r % 5 == 4 ? -1 : (r % 2 ? 9 : (r * 3 + round) % 16);
            memset(rr, 0xee, rs);
            if (!st)
                st = CALL(rtopo_random_read(t, sr, &src, rr, rs, &got));
            if (!st && (got != (src >= 0) || (src >= 0 && iu_first_bad(rr, rs, (int)src, (unsigned)round) >= 0)))
                fail("random_read round %d: got %d from %lld wrong", round, got, (long long)src);
        }
        want("random access of 100000-byte records", st, RTOPO_OK);
        free(sr);
        free(rr);
    } else if (!strcmp(c, "sub-zero")) {
        /* keep = 0: a ring of one rank; every operation is local */
        rtopo_topo_t *one = NULL;
        if ((st = mk_otis_cube(&t)))
            return st;
        st = CALL(rtopo_topo_sub(t, 0u, &one));
        if (!st)
            st = line_op(one, ADJ, 0, 1, 2, 9, "adjacent_sum on a piece of one rank", &ok);
        if (!st)
            st = line_op(one, FILL, 0, 1, 2, 9, "shift_fill on a piece of one rank", &ok);
        want("operations on a piece of one rank", st, RTOPO_OK);
        if (!st)
            st = CALL(rtopo_topo_sub(t, 1u << 5, &t));
        want("rtopo_topo_sub with a bit above ndims", st, RTOPO_ERR_INVAL);
        st = line_op(t, CONS, 1, 4, 1, 10, "consecutive_sum afterwards", &ok);
        want("consecutive_sum afterwards", st, RTOPO_OK);
        if (!st)
            st = CALL(rtopo_barrier(ctx));
        if (one)
            rtopo_topo_free(one);
    } else if (!strcmp(c, "sort-overlap")) {
        /* recvbuf one record into sendbuf: rtopo_sort(3) allows only
         * recvbuf == sendbuf; the others must be refused, alike on every
         * rank, and the context stay usable */
        struct rec s[5], d[4];
        if ((st = mk_ring(&t)))
            return st;
        r = rtopo_topo_rank(t);
        sort_fill(s, 4, r, np, 1);
        st = CALL(rtopo_sort(t, s, s + 1, 4, sizeof(struct rec), RTOPO_INT64, 0));
        if (st == RTOPO_OK) {
            for (i = 0; i < 4 && s[1 + i].key == (int64_t)(r * 4 + i); i++)
                ;
            fail("sort with recvbuf = sendbuf + 1 record returned RTOPO_OK%s",
                 i < 4 ? " and wrong records" : "");
        }
        want("sort with overlapping buffers", st, RTOPO_ERR_INVAL);
        sort_fill(s, 4, r, np, 2);
        st = CALL(rtopo_sort(t, s, s, 4, sizeof(struct rec), RTOPO_INT64, 0));
        if (!st)
            sort_ok(s, 4, r);
        want("sort in place afterwards", st, RTOPO_OK);
        sort_fill(s, 4, r, np, 3);
        st = CALL(rtopo_sort(t, s, d, 4, sizeof(struct rec), RTOPO_INT64, 1));
        for (i = 0; !st && i < 4; i++)
            if (d[i].key != (int64_t)(np * 4 - 1 - (r * 4 + i)))
                fail("descending sort: record %d has key %lld", i, (long long)d[i].key);
        want("descending sort afterwards", st, RTOPO_OK);
    } else if (!strcmp(c, "persist-kind")) {
        /* persistent requests of two kinds; in round 3 rank 10 starts the
         * accumulate where the others start the shift_fill */
        rtopo_req_t *qa = NULL, *qb = NULL;
        int64_t sv = 0, ra = 0, rb[4];
        int round;
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        st = CALL(rtopo_shift_fill_init(t, 0, &sv, &ra, 8, 1, &qa));
        if (!st)
            st = CALL(rtopo_accumulate_init(t, 0, &sv, rb, 8, 4, &qb));
        for (round = 0; round < 6 && !st; round++) {
            rtopo_req_t *q = round == 3 && r == 10 ? qb : qa;
            int x2 = line_pos(t, r, 0);
            sv = val(r, 0, 0, (unsigned)round);
            ra = -1;
            st = rtopo_start(q);
            if (!st)
                st = rtopo_wait(q);
            if (!st && q == qa && ra != (x2 ? val(line_rank(t, r, 0, x2 - 1), 0, 0, (unsigned)round) : 0))
                fail("round %d: shift_fill gave %lld", round, (long long)ra), ok = 0;
            if (!st && q == qb)
                ok = 0;    /* the odd call cannot complete correctly */
            if (st || round == 3) {
                char what[64];
                snprintf(what, sizeof what, "round %d (%s)", round, q == qa ? "shift_fill" : "accumulate");
                note(what, st);
            }
        }
        if (!st)
            st = CALL(rtopo_barrier(ctx));
        *final_want = judge("persistent rounds of other kinds", st, 0, RTOPO_ERR_MISMATCH);
        rtopo_req_free(qa);
        rtopo_req_free(qb);
    } else if (!strcmp(c, "persist-skip")) {
        /* rank 13 skips the third round of a persistent consecutive_sum:
         * found at the latest by the next barrier */
        rtopo_req_t *q = NULL;
        int64_t sv[2], rv = 0;
        int round;
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        st = CALL(rtopo_consecutive_sum_init(t, 1, sv, &rv, 1, RTOPO_INT64, RTOPO_MIN, 2, &q));
        for (round = 0; round < 5 && !st; round++) {
            if (round == 2 && r == 13)
                continue;
            sv[0] = val(r, 0, 0, (unsigned)round);
            sv[1] = val(r, 1, 0, (unsigned)round);
            st = rtopo_start(q);
            if (!st)
                st = rtopo_wait(q);
        }
        note("rounds", st);
        if (!st)
            st = CALL(rtopo_barrier(ctx));
        *final_want = judge("a skipped round", st, 0, RTOPO_ERR_MISMATCH);
        rtopo_req_free(q);
    } else if (!strcmp(c, "mix-inflight")) {
        /* a sort, a shift_fill, an adjacent_sum and a random read in
         * flight together on one topology, 300 times */
        rtopo_req_t *q[4];
        struct rec ss[3], sd[3];
        int64_t f = 0, fr = 0, as[2], ar[2], rr = 0, src, mine;
        int got = 0, round, k;
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        for (round = 0; round < 300 && !st; round++) {
            int x1 = line_pos(t, r, 1), x0 = line_pos(t, r, 0);
            sort_fill(ss, 3, r, 16, (unsigned)round);
            f = val(r, 0, 0, (unsigned)round);
            as[0] = val(r, 0, 0, (unsigned)round);
            as[1] = val(r, 0, 1, (unsigned)round);
            mine = val(r, 0, 5, (unsigned)round);
            src = (r * 5 + round) % 16;
            st = rtopo_isort(t, ss, sd, 3, sizeof(struct rec), RTOPO_INT64, 0, &q[0]);
            if (!st) st = rtopo_ishift_fill(t, 1, &f, &fr, 8, -1, &q[1]);
            if (!st) st = rtopo_iadjacent_sum(t, 0, as, ar, 2, RTOPO_INT64, RTOPO_SUM, 2, &q[2]);
            if (!st) st = rtopo_irandom_read(t, &mine, &src, &rr, 8, &got, &q[3]);
            for (k = 3; k >= 0 && !st; k--) {
                st = rtopo_wait(q[k]);
                rtopo_req_free(q[k]);
            }
            if (st)
                break;
            sort_ok(sd, 3, r);
            if (fr != (x1 < 3 ? val(line_rank(t, r, 1, x1 + 1), 0, 0, (unsigned)round) : 0))
                fail("round %d shift_fill: %lld", round, (long long)fr);
            if (ar[1] != val(r, 0, 1, (unsigned)round) + val(line_rank(t, r, 0, (x0 + 1) % 4), 0, 1, (unsigned)round))
                fail("round %d adjacent_sum: %lld", round, (long long)ar[1]);
            if (!got || rr != val((int)src, 0, 5, (unsigned)round))
                fail("round %d random_read: got %d %lld", round, got, (long long)rr);
            if (bad)
                break;
        }
        note("300 rounds of four operations in flight", st);
        want("four operations in flight", st, RTOPO_OK);
    } else if (!strcmp(c, "place-bad")) {
        /* host placement over hosts whose sizes do not allow it (16 ranks
         * on 3 hosts: no host holds whole groups of 4): RTOPO_ERR_INVAL on
         * every rank, and the context stays usable (rtopo_set_place(3)) */
        st = CALL(rtopo_set_place(ctx, RTOPO_PLACE_HOST));
        if (!st)
            st = CALL(rtopo_topo_otis_hypercube(ctx, 4, &t));
        want("OTIS-hypercube placed by host on 3 hosts", st, RTOPO_ERR_INVAL);
        if (st == RTOPO_OK) {
            rtopo_topo_free(t);
            t = NULL;
        }
        st = CALL(rtopo_set_place(ctx, (rtopo_place_t)7));
        want("placement 7", st, RTOPO_ERR_INVAL);
        st = CALL(rtopo_set_place(ctx, RTOPO_PLACE_AUTO));
        if (!st)
            st = mk_otis_cube(&t);
        if (!st)
            st = line_op(t, ADJ, 1, 3, 2, 11, "adjacent_sum afterwards", &ok);
        if (!st)
            st = line_op(t, CONS, 0, 2, 2, 12, "consecutive_sum afterwards", &ok);
        if (!st)
            st = CALL(rtopo_barrier(ctx));
        want("the context afterwards", st, RTOPO_OK);
    } else if (!strcmp(c, "loop-fill-ahead")) {
        /* 20000 blocking zero-fill shifts on a ring: rank 0 only sends,
         * rank p-1 only receives, so rank 0 runs ahead; flow control holds
         * it back, never fails it (rtopo(7), Inconsistent calls); local
         * accumulates (m = 1) and empty sorts in between */
        int64_t sv, rv;
        struct rec none;
        if ((st = mk_ring(&t)))
            return st;
        r = rtopo_topo_rank(t);
        for (i = 0; i < 20000 && !st; i++) {
            sv = val(r, 0, 0, (unsigned)i);
            st = rtopo_shift_fill(t, 0, &sv, &rv, 8, i % 3 ? 1 : 2);
            if (!st && rv != (r >= (i % 3 ? 1 : 2) ? val(r - (i % 3 ? 1 : 2), 0, 0, (unsigned)i) : 0))
                fail("shift_fill %d: %lld", i, (long long)rv), st = -100;
            if (!st && i % 7 == 0)
                st = rtopo_accumulate(t, 0, &sv, &rv, 8, 1);
            if (!st && i % 11 == 0)
                st = rtopo_sort(t, &none, &none, 0, sizeof(none), RTOPO_INT64, 0);
        }
        if (st != -100) {
            note("20000 shift_fills", st);
            want("20000 shift_fills", st, RTOPO_OK);
        }
    } else if (!strcmp(c, "line-big")) {
        /* long buffers, cut into pieces and pipelined, on both OTIS kinds */
        size_t cnts[3] = { 700, 40000, 130001 };
        int k, kind, d2;
        rtopo_topo_t *tt[2] = { NULL, NULL };
        if ((st = mk_otis_cube(&tt[0])))
            return st;
        st = created("OTIS-mesh", CALL(rtopo_topo_otis_mesh(ctx, 4, &tt[1])));
        for (k = 0; k < 3 && !st; k++)
            for (kind = 0; kind < 2 && !st; kind++)
                for (d2 = 0; d2 < rtopo_topo_ndims(tt[kind]) && !st; d2 += kind ? 3 : 1) {
                    char what[96];
                    snprintf(what, sizeof what, "%s dim %d count %zu", kind ? "otis-mesh" : "otis-cube", d2, cnts[k]);
                    st = line_op(tt[kind], FILL, d2, -1 - k, cnts[k], (unsigned)k, what, &ok);
                    int E2 = rtopo_topo_extent(tt[kind], d2);
                    if (!st) st = line_op(tt[kind], ACC, d2, E2 > 2 ? 3 : E2, cnts[k], (unsigned)k, what, &ok);
                    if (!st) st = line_op(tt[kind], ADJ, d2, E2, cnts[k], (unsigned)k, what, &ok);
                    if (!st) st = line_op(tt[kind], CONS, d2, 2, cnts[k], (unsigned)k, what, &ok);
                    if (!st) st = line_op(tt[kind], CONS, d2, E2, cnts[k], (unsigned)k, what, &ok);
                }
        want("long line operations", st, RTOPO_OK);
        rtopo_topo_free(tt[1]);
        t = tt[0];
    } else if (!strcmp(c, "scatter-sweep")) {
        /* every strategy, persistent, 3 rounds each, odd element size;
         * host outside the cube (p = 2^d + 1) or on node (p = 2^d), host
         * job rank p / 2; on a node the host's recvbuf lies inside its
         * own array when it is node 0 (rtopo_scatter(3), Buffers) */
        int d = 0, host = np / 2, k, round, nalg = 0, algs[16], xs[16];
        size_t cnt = 7, stride = 3, es = 3, sc;
        unsigned char *arr, *win;
        while ((2 << d) <= np)
            d++;
        algs[nalg] = RTOPO_SCATTER_AUTO; xs[nalg++] = -1;
        algs[nalg] = RTOPO_SCATTER_SEQ; xs[nalg++] = -1;
        algs[nalg] = RTOPO_SCATTER_BINOMIAL; xs[nalg++] = -1;
        for (k = 0; k <= d; k++) {
            algs[nalg] = RTOPO_SCATTER_SEQSCATTER; xs[nalg++] = k;
        }
        for (k = 0; k < d; k++) {
            algs[nalg] = RTOPO_SCATTER_DECREMENTAL; xs[nalg++] = k;
        }
        if ((st = created("hypercube with a host", CALL(rtopo_topo_hypercube_host(ctx, d, host, &t)))))
            return st;
        sc = ((size_t)(1 << d) - 1) * stride + cnt;
        arr = malloc(sc * es + 64);
        win = malloc(cnt * es + 64);
        r = rtopo_topo_rank(t);
        for (k = 0; k < nalg && !st; k++) {
            rtopo_req_t *q = NULL;
            char what[80];
            snprintf(what, sizeof what, "scatter strategy %d x %d", algs[k], xs[k]);
            st = rtopo_topo_set_scatter_algo(t, (rtopo_scatter_algo_t)algs[k], xs[k]);
            if (st) {
                note(what, st);
                break;
            }
            st = rtopo_scatter_init(t, me == host ? arr : NULL, me == host ? sc : 0,
                                    me == host && np == (1 << d) ? win : me == host ? NULL : win,
                                    cnt, stride, es, &q);
            for (round = 0; round < 3 && !st; round++) {
                size_t e;
                if (me == host)
                    for (e = 0; e < sc * es; e++)
                        arr[e] = (unsigned char)(e * 7 + (size_t)round * 13 + (size_t)k);
                memset(win, 0xee, cnt * es);
                st = rtopo_start(q);
                if (!st)
                    st = rtopo_wait(q);
                if (!st && (me != host || np == (1 << d)))
                    for (e = 0; e < cnt * es; e++) {
                        size_t g = (size_t)r * stride * es + e;
                        if (win[e] != (unsigned char)(g * 7 + (size_t)round * 13 + (size_t)k)) {
                            fail("%s round %d: byte %zu of node %d wrong", what, round, e, r);
                            break;
                        }
                    }
            }
            if (st)
                note(what, st);
            rtopo_req_free(q);
        }
        note("scatter strategies", st);
        want("scatter strategies", st, RTOPO_OK);
        free(arr);
        free(win);
    } else if (!strcmp(c, "sub-orphan")) {
        /* pieces used after their parent was freed (rtopo_topo_sub(3):
         * freed before or after topo), a piece of a piece */
        rtopo_topo_t *g = NULL, *gg = NULL;
        if ((st = mk_otis_cube(&t)))
            return st;
        st = CALL(rtopo_topo_sub(t, 2u, &g));
        if (!st)
            st = CALL(rtopo_topo_free(t));
        t = NULL;
        if (!st)
            st = line_op(g, ADJ, 0, 2, 5, 21, "adjacent_sum on an orphan piece", &ok);
        if (!st)
            st = CALL(rtopo_topo_sub(g, 1u, &gg));
        if (!st)
            st = line_op(gg, ACC, 0, 2, 5, 22, "accumulate on a piece of a piece", &ok);
        if (!st)
            st = line_op(g, CONS, 1, 2, 5, 23, "consecutive_sum on the orphan piece", &ok);
        if (!st)
            st = CALL(rtopo_barrier(ctx));
        want("orphan pieces", st, RTOPO_OK);
        if (gg)
            rtopo_topo_free(gg);
        if (g)
            rtopo_topo_free(g);
    } else if (!strcmp(c, "rw-unsupported")) {
        /* random access on a ring, and with the generic algorithm on one
         * rank only */
        int64_t dest, rec = 0, mine;
        int got = 0;
        rtopo_topo_t *ring = NULL;
        if ((st = mk_ring(&ring)))
            return st;
        r = rtopo_topo_rank(ring);
        mine = r;
        dest = (r + 1) % np;
        st = CALL(rtopo_random_write(ring, &mine, &dest, &rec, 8, &got));
        want("random_write on a ring", st, RTOPO_ERR_UNSUPPORTED);
        rtopo_topo_free(ring);
        if ((st = mk_otis_cube(&t)))
            return st;
        /* rank 3's part may be done before others': the failure of its
         * next call then fails the ones still in this one (rtopo(7), The
         * failed context) */
        st = CALL(rtopo_random_write(t, &mine, &dest, &rec, 8, &got));
        if (st != RTOPO_ERR_UNSUPPORTED)
            want("random_write afterwards", st, RTOPO_OK);
        if (!st && (!got || rec != (r + 15) % 16))
            fail("random_write afterwards: got %d rec %lld", got, (long long)rec);
        if (r == 3)
            CALL(rtopo_topo_set_coll_algo(t, RTOPO_COLL_GENERIC));
        st = CALL(rtopo_random_read(t, &mine, &dest, &rec, 8, &got));
        *final_want = judge("random_read with generic on rank 3", st, 0, RTOPO_ERR_UNSUPPORTED);
    } else if (!strcmp(c, "overlap-inflight")) {
        /* rank 5's second nonblocking call receives into the buffer of its
         * first, still in flight: RTOPO_ERR_INVAL there, and on every rank
         * (the others made the call) */
        rtopo_req_t *q1 = NULL, *q2 = NULL;
        int64_t s1 = 0, rbuf[8];
        int st2;
        if ((st = mk_otis_cube(&t)))
            return st;
        r = rtopo_topo_rank(t);
        s1 = val(r, 0, 0, 1);
        st = CALL(rtopo_ishift_fill(t, 1, &s1, &rbuf[0], 8, 1, &q1));
        if (!st) {
            st2 = CALL(rtopo_iaccumulate(t, 0, &s1, r == 5 ? &rbuf[0] : &rbuf[2], 8, 2, &q2));
            if (st2 == RTOPO_OK) {
                st2 = rtopo_wait(q2);
                note("wait accumulate", st2);
                rtopo_req_free(q2);
            }
            st = rtopo_wait(q1);
            note("wait shift_fill", st);
            x = line_pos(t, r, 1);
            if (st == RTOPO_OK && rbuf[0] != (x ? val(line_rank(t, r, 1, x - 1), 0, 0, 1) : 0) && r != 5)
                fail("shift_fill in flight: wrong data");
            if (st != RTOPO_OK)
                want("shift_fill in flight", st, RTOPO_ERR_INVAL);
            rtopo_req_free(q1);
            want("accumulate into a buffer in flight", st2, RTOPO_ERR_INVAL);
            st = st2;
        }
        *final_want = RTOPO_ERR_INVAL;
        if (!st)
            st = CALL(rtopo_barrier(ctx));
    } else {
        fprintf(stderr, "probe_check: unknown case %s\n", c);
        exit(2);
    }
    if (t)
        rtopo_topo_free(t);
    return st;
}

int main(int argc, char **argv)
{
    int st, fw;
    const char *c = argc > 1 ? argv[1] : "";

    setvbuf(stdout, NULL, _IOLBF, 0);
    t0 = iu_now();
#ifdef PROBE_MPI
    {
        static MPI_Comm world;
        rtopo_config_t cfg = RTOPO_CONFIG_INIT;
        MPI_Init(&argc, &argv);
        world = MPI_COMM_WORLD;
        MPI_Comm_rank(world, &cfg.rank);
        MPI_Comm_size(world, &cfg.nranks);
        cfg.allgather = mpi_allgather;
        cfg.allgather_arg = &world;
        st = rtopo_init(&cfg, &ctx);
    }
#else
    st = rtopo_init(NULL, &ctx);
#endif
    if (st) {
        printf("[?] %s: rtopo_init -> %s: %s\n", iu_env_label(), rtopo_err_name(st),
               rtopo_last_error());
        return 1;
    }
    me = rtopo_rank(ctx);
    np = rtopo_size(ctx);
    probe(c, &fw);
    st = rtopo_finalize(ctx);
    note("rtopo_finalize", st);
    if (fw == RTOPO_OK)
        want("rtopo_finalize", st, RTOPO_OK);
    else if (st != fw && st != RTOPO_OK)
        want("rtopo_finalize", st, fw);
    printf("[%d] rank %d: verdict: %s%s%s%s\n", me, me, bad ? "FAIL" : "pass", bad ? " (" : "",
           bad ? why : "", bad ? ")" : "");
#ifdef PROBE_MPI
    MPI_Finalize();
#endif
    return 0;
}
