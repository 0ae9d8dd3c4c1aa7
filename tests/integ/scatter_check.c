/*
 * scatter_check - the windowed scatter from a host to a hypercube
 * (rtopo_scatter, rtopo_iscatter, rtopo_scatter_init) under rtopo-run,
 * every byte checked.
 *
 *   scatter_check --dim D --host H [--algos LIST|all] [--windows CxE,...]
 *                 [--overlaps LIST] [--modes blocking,nonblocking,persistent]
 *                 [--mem reg,unreg] [--reps N] [--seed S]
 *   scatter_check --dim D --host H --error CASE
 *
 * The job has 2^D + 1 ranks (host H outside the cube, the nodes are the
 * other ranks in order) or 2^D ranks (H is cube node H).
 *
 * --algos: comma-separated seq, binomial, seqscatter, decremental (the
 * model picks x), seqscatter:X, decremental:X, seqscatter:all,
 * decremental:all (every x the strategy takes: 0..D, 0..D-1), auto; "all"
 * is every one of these.  --windows: COUNTxELEMSIZE pairs (elements per
 * window and bytes per element).  --overlaps: numbers of elements shared
 * by consecutive windows, or "half" (count/2) and "max" (count-1); values
 * that do not fit a window (>= count) and repeats are skipped; the
 * stride is count - overlap.  --reps: starts of each persistent request,
 * with new data each time.
 *
 * Every operation gets its own data: byte k of the host's array is
 * iu_pattern(seed, k, op number).  Node i checks its count*elem_size bytes
 * against bytes i*stride*elem_size... of that array, and that the guard
 * zones around its receive buffer are intact; the host checks its array
 * (and the bytes after it) are unchanged, and, outside the cube, that its
 * receive buffer was not touched.  The host passes a few elements more
 * than needed every other operation.  Registered buffers lie inside
 * regions registered once (page aligned); unregistered ones start at an
 * odd address.
 *
 * Error cases (--error CASE): one line per call ("rank R: CALL -> STATUS in S s: MSG"),
 * rtopo_finalize's line, then "rank R: verdict: pass|FAIL (reasons)"; the
 * exit status is 0 unless the program crashed (scatter_errors.sh reads
 * the verdicts).  A failing case must reach every rank: the scatter
 * returns the expected status, or, where a rank's part could complete
 * before it heard of the failure (null-recv, count, stride, esize), it
 * returns RTOPO_OK with exactly its own window and rtopo_finalize returns
 * the expected status; every message with that status names the
 * differing argument; no call takes more than half of RTOPO_TIMEOUT_MS.  The failing cases
 * start with a barrier, so that every rank has its topology when the
 * job fails; the failure may reach a rank still leaving the barrier,
 * which then returns the expected status instead of the scatter.
 *   stride0, stride-gt-count  every rank passes the same bad stride:
 *                             RTOPO_ERR_INVAL on every rank at once, then
 *                             a correct scatter works
 *   short                     the host's sendcount is one element short:
 *                             RTOPO_ERR_INVAL on every rank
 *   null-send, null-recv      the host's array / node 1's receive buffer
 *                             is NULL: RTOPO_ERR_INVAL on every rank
 *   count, stride, esize      the last rank passes count+1 / stride-1 /
 *                             elem_size+1: RTOPO_ERR_MISMATCH on every rank,
 *                             the message naming count= / stride= /
 *                             elem_size=
 *   topo                      run on a job size that does not fit --dim:
 *                             rtopo_topo_hypercube_host gives RTOPO_ERR_TOPO
 *                             (the message says how many ranks it needs),
 *                             and RTOPO_ERR_INVAL for host rank -1 and for
 *                             the job size
 *   shift                     rtopo_shift on the topology (host outside the
 *                             cube): RTOPO_ERR_UNSUPPORTED
 *   setalgo                   rtopo_topo_set_scatter_algo with x out of
 *                             range, an unknown strategy, and on a topology
 *                             without a host: INVAL, INVAL, TOPO;
 *                             rtopo_scatter on that topology: TOPO
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rtopo.h>
#include "integ_util.h"

/* a call that fails promptly returns well before the configured timeout:
 * within half of RTOPO_TIMEOUT_MS (the scripts set 10 minutes; a wait
 * for the timeout would end in RTOPO_ERR_TIMEOUT anyway) */
static double prompt_limit_s(void)
{
    const char *e = getenv("RTOPO_TIMEOUT_MS");
    double ms = e ? atof(e) : 0;

    return ms > 0 ? ms / 2000 : 5;
}

#define GUARD 4096
#define GUARD_BYTE 0xa5
#define FRESH_BYTE 0xee
#define EXTRA 3             /* elements the host passes beyond the need */

static int rank = -1, nranks, dim, host, nodes, me_node, outside;
static unsigned seed = 1;

static void die(const char *what, int st)
{
    fprintf(stderr, "rank %d: %s: %s (%s)\n", rank, what, rtopo_err_name(st),
            rtopo_last_error());
    exit(1);
}

static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    const char *p = list;

    while ((p = strstr(p, word)) != NULL) {
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
        p += n;
    }
    return 0;
}

/* ---- what to run -------------------------------------------------------- */

struct algo { int algo, x; char name[32]; };
static struct algo algos[64];
static int nalgos;

static void add_algo(int a, int x, const char *name)
{
    if (nalgos == 64)
        return;
    algos[nalgos].algo = a;
    algos[nalgos].x = x;
    if (x >= 0)
        snprintf(algos[nalgos].name, sizeof(algos[nalgos].name), "%s:%d", name, x);
    else
        snprintf(algos[nalgos].name, sizeof(algos[nalgos].name), "%s", name);
    nalgos++;
}

static void parse_algos(const char *list)
{
    char buf[512], *tok, *save = NULL;
    int x;

    snprintf(buf, sizeof(buf), "%s", list);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int a, xmax;
        char *colon = strchr(tok, ':');
        if (!strcmp(tok, "all")) {
            parse_algos("seq,binomial,seqscatter:all,seqscatter,decremental:all,"
                        "decremental,auto");
            continue;
        }
        if (colon)
            *colon = 0;
        if (!strcmp(tok, "auto")) a = RTOPO_SCATTER_AUTO;
        else if (!strcmp(tok, "seq")) a = RTOPO_SCATTER_SEQ;
        else if (!strcmp(tok, "binomial")) a = RTOPO_SCATTER_BINOMIAL;
        else if (!strcmp(tok, "seqscatter")) a = RTOPO_SCATTER_SEQSCATTER;
        else if (!strcmp(tok, "decremental")) a = RTOPO_SCATTER_DECREMENTAL;
        else {
            fprintf(stderr, "unknown strategy '%s'\n", tok);
            exit(2);
        }
        xmax = a == RTOPO_SCATTER_SEQSCATTER ? dim : a == RTOPO_SCATTER_DECREMENTAL ?
               (dim ? dim - 1 : 0) : -1;
        if (!colon || xmax < 0)
            add_algo(a, -1, tok);
        else if (!strcmp(colon + 1, "all"))
            for (x = 0; x <= xmax; x++)
                add_algo(a, x, tok);
        else
            add_algo(a, atoi(colon + 1), tok);
    }
}

struct win { size_t count, esize; };
static struct win wins[32];
static int nwins;

static void parse_windows(const char *s)
{
    char *end;

    nwins = 0;
    while (*s && nwins < 32) {
        wins[nwins].count = strtoul(s, &end, 0);
        if (*end != 'x') {
            fprintf(stderr, "bad --windows '%s' (COUNTxELEMSIZE,...)\n", s);
            exit(2);
        }
        wins[nwins].esize = strtoul(end + 1, &end, 0);
        if (!wins[nwins].count || !wins[nwins].esize || (*end && *end != ',')) {
            fprintf(stderr, "bad --windows entry in '%s'\n", s);
            exit(2);
        }
        nwins++;
        s = *end ? end + 1 : end;
    }
}

/* the overlaps of --overlaps for a window of `count`, deduplicated */
static int overlaps_for(const char *list, size_t count, size_t *out)
{
    char buf[256], *tok, *save = NULL;
    int n = 0, i;

    snprintf(buf, sizeof(buf), "%s", list);
    for (tok = strtok_r(buf, ",", &save); tok && n < 16; tok = strtok_r(NULL, ",", &save)) {
        size_t o = !strcmp(tok, "half") ? count / 2 : !strcmp(tok, "max") ? count - 1 :
                   strtoul(tok, NULL, 0);
        if (o >= count)
            continue;
        for (i = 0; i < n && out[i] != o; i++)
            ;
        if (i == n)
            out[n++] = o;
    }
    return n;
}

/* ---- buffers ------------------------------------------------------------ */

struct bufs {
    uint8_t *sbase, *rbase;     /* allocations */
    uint8_t *sa;                /* the host's array: need*esize + EXTRA*esize + GUARD */
    uint8_t *recv;              /* GUARD | window | GUARD */
    size_t slen, rlen;          /* usable bytes from sa, window room */
    rtopo_mem_t *smem, *rmem;
};

static void bufs_alloc(rtopo_ctx_t *ctx, struct bufs *b, size_t slen, size_t rlen, int reg)
{
    int st;
    size_t mis = reg ? 0 : 1;

    memset(b, 0, sizeof(*b));
    b->slen = slen;
    b->rlen = rlen;
    if (posix_memalign((void **)&b->sbase, 4096, slen + GUARD + 4096) ||
        posix_memalign((void **)&b->rbase, 4096, rlen + 2 * GUARD + 4096))
        die("memory", RTOPO_ERR_NOMEM);
    b->sa = b->sbase + mis;
    b->recv = b->rbase + GUARD + mis;
    if (reg && ((st = rtopo_mem_register(ctx, b->sbase, slen + GUARD + 4096, &b->smem)) ||
                (st = rtopo_mem_register(ctx, b->rbase, rlen + 2 * GUARD + 4096, &b->rmem))))
        die("rtopo_mem_register", st);
}

static void bufs_free(struct bufs *b)
{
    int st;

    if ((b->smem && (st = rtopo_mem_deregister(b->smem))) ||
        (b->rmem && (st = rtopo_mem_deregister(b->rmem))))
        die("rtopo_mem_deregister", st);
    free(b->sbase);
    free(b->rbase);
}

/* host: the array for operation `tag` (n bytes of data, then guard) */
static void host_fill(struct bufs *b, size_t n, unsigned tag)
{
    iu_fill(b->sa, n, (int)seed, tag);
    memset(b->sa + n, GUARD_BYTE, GUARD);
}

/* receivers: guards and a fresh window of n bytes */
static void recv_reset(struct bufs *b, size_t n)
{
    memset(b->recv - GUARD, GUARD_BYTE, GUARD);
    memset(b->recv, FRESH_BYTE, n);
    memset(b->recv + n, GUARD_BYTE, GUARD);
}

static int report(const char *what, const char *fmt, long at, unsigned got, unsigned want)
{
    fprintf(stderr, "rank %d (node %d): %s: ", rank, me_node, what);
    fprintf(stderr, fmt, at, got, want);
    fputc('\n', stderr);
    return 1;
}

/* the checks of one completed operation; 0 when all is well */
static int check_op(struct bufs *b, size_t count, size_t stride, size_t esize, size_t sbytes,
                    unsigned tag, const char *what)
{
    size_t wb = count * esize, off, k;
    long at;

    if (rank == host) {
        for (k = 0; k < sbytes; k++)
            if (b->sa[k] != iu_pattern((int)seed, k, tag))
                return report(what, "the host's array changed at byte %ld: 0x%02x, was "
                              "0x%02x", (long)k, b->sa[k], iu_pattern((int)seed, k, tag));
        if ((at = iu_first_not(b->sa + sbytes, GUARD, GUARD_BYTE)) >= 0)
            return report(what, "the bytes after the host's array changed at +%ld: 0x%02x "
                          "(0x%02x)", at, b->sa[sbytes + (size_t)at], GUARD_BYTE);
    }
    if ((at = iu_first_not(b->recv - GUARD, GUARD, GUARD_BYTE)) >= 0)
        return report(what, "written before the receive buffer, at -%ld: 0x%02x (0x%02x)",
                      (long)GUARD - at, b->recv[at - GUARD], GUARD_BYTE);
    if ((at = iu_first_not(b->recv + wb, GUARD, GUARD_BYTE)) >= 0)
        return report(what, "written after the receive buffer, at +%ld: 0x%02x (0x%02x)", at,
                      b->recv[wb + (size_t)at], GUARD_BYTE);
    if (me_node < 0) {
        if ((at = iu_first_not(b->recv, wb, FRESH_BYTE)) >= 0)
            return report(what, "the host outside the cube got data at byte %ld: 0x%02x "
                          "(0x%02x)", at, b->recv[at], FRESH_BYTE);
        return 0;
    }
    off = (size_t)me_node * stride * esize;
    for (k = 0; k < wb; k++)
        if (b->recv[k] != iu_pattern((int)seed, off + k, tag)) {
            fprintf(stderr, "rank %d (node %d): %s: byte %zu of the %zu-byte window "
                    "(element %zu, host byte %zu) is 0x%02x, expected 0x%02x%s\n", rank,
                    me_node, what, k, wb, k / esize, off + k, b->recv[k],
                    iu_pattern((int)seed, off + k, tag),
                    b->recv[k] == FRESH_BYTE ? " (never written)" : "");
            return 1;
        }
    return 0;
}

/* ---- the matrix ---------------------------------------------------------- */

static int run_matrix(rtopo_ctx_t *ctx, rtopo_topo_t *t, const char *modes, const char *mems,
                      const char *ovl, int reps)
{
    static const char *const mnames[3] = { "blocking", "nonblocking", "persistent" };
    size_t maxs = 0, maxr = 0, ovs[16];
    unsigned tag = 0;
    int m, a, w, o, k, r, st, nov, fails = 0, nops = 0;
    double t0 = iu_now();

    for (w = 0; w < nwins; w++) {
        size_t sb = ((size_t)nodes * wins[w].count + EXTRA) * wins[w].esize;
        if (sb > maxs)
            maxs = sb;
        if (wins[w].count * wins[w].esize > maxr)
            maxr = wins[w].count * wins[w].esize;
    }
    for (m = 0; m < 2; m++) {
        struct bufs b;
        const char *mem = m ? "unreg" : "reg";
        if (!has_word(mems, mem))
            continue;
        bufs_alloc(ctx, &b, maxs, maxr, !m);
        for (a = 0; a < nalgos; a++) {
            if ((st = rtopo_topo_set_scatter_algo(t, (rtopo_scatter_algo_t)algos[a].algo,
                                                  algos[a].x)))
                die("rtopo_topo_set_scatter_algo", st);
            for (w = 0; w < nwins; w++) {
                size_t count = wins[w].count, esize = wins[w].esize;
                nov = overlaps_for(ovl, count, ovs);
                for (o = 0; o < nov; o++) {
                    size_t stride = count - ovs[o];
                    size_t need = (size_t)(nodes - 1) * stride + count;
                    for (k = 0; k < 3; k++) {
                        rtopo_req_t *req = NULL;
                        if (!has_word(modes, mnames[k]))
                            continue;
                        for (r = 0; r < (k == 2 ? reps : 1); r++) {
                            size_t scount = need + (tag % 2 ? EXTRA : 0);
                            char what[200];
                            snprintf(what, sizeof(what), "%s %s %s count=%zu elem_size=%zu "
                                     "overlap=%zu stride=%zu sendcount=%zu op %u rep %d",
                                     algos[a].name, mnames[k], mem, count, esize, ovs[o],
                                     stride, scount, tag, r);
                            if (rank == host)
                                host_fill(&b, scount * esize, tag);
                            recv_reset(&b, count * esize);
                            if (k == 0) {
                                st = rtopo_scatter(t, b.sa, scount, b.recv, count, stride,
                                                   esize);
                            } else if (k == 1) {
                                st = rtopo_iscatter(t, b.sa, scount, b.recv, count, stride,
                                                    esize, &req);
                                if (!st) {
                                    int done = 0, polls = 0;
                                    /* every 4th: poll with naps, else one test then wait */
                                    while (!(st = rtopo_test(req, &done)) && !done &&
                                           tag % 4 == 1 && polls++ < 20000) {
                                        struct timespec ts = { 0, 100000 };
                                        nanosleep(&ts, NULL);
                                    }
                                    if (!st && !done)
                                        st = rtopo_wait(req);
                                    rtopo_req_free(req);
                                    req = NULL;
                                }
                            } else {
                                /* the request is built once, with the first sendcount */
                                if (r == 0 && (st = rtopo_scatter_init(t, b.sa, scount, b.recv,
                                                                       count, stride, esize,
                                                                       &req)))
                                    die("rtopo_scatter_init", st);
                                st = rtopo_start(req);
                                if (!st)
                                    st = rtopo_wait(req);
                            }
                            if (st) {
                                fprintf(stderr, "rank %d: %s: %s (%s)\n", rank, what,
                                        rtopo_err_name(st), rtopo_last_error());
                                return 1;
                            }
                            fails += check_op(&b, count, stride, esize, scount * esize, tag,
                                              what);
                            nops++;
                            tag++;
                            if (fails)
                                goto out;
                        }
                        if (req)
                            rtopo_req_free(req);
                    }
                }
            }
        }
out:
        bufs_free(&b);
        if (fails)
            break;
    }
    if (rank == host)
        printf("hypercube of dimension %d, host rank %d %s, %d ranks: %d scatters checked in "
               "%.2f s, %s\n", dim, host, outside ? "outside the cube" : "on node", nranks,
               nops, iu_now() - t0, fails ? "MISMATCHED DATA" : "all data correct");
    return fails ? 1 : 0;
}

/* ---- error cases ---------------------------------------------------------- */

static int bad;
static char why[512];

static void verdict_add(const char *s)
{
    size_t n = strlen(why);
    bad = 1;
    snprintf(why + n, sizeof(why) - n, "%s%s", n ? "; " : "", s);
}

/* one call's outcome, judged against the expected status */
static void expect(const char *call, int st, double dt, int want, const char *name)
{
    const char *msg = rtopo_last_error();
    char line[256];

    printf("rank %d: %s -> %s in %.3f s: \"%s\"\n", rank, call, rtopo_err_name(st), dt,
           st ? msg : "");
    fflush(stdout);
    if (st != want) {
        snprintf(line, sizeof(line), "%s returned %s, expected %s", call, rtopo_err_name(st),
                 rtopo_err_name(want));
        verdict_add(line);
    } else if (name && !iu_contains(msg, name)) {
        snprintf(line, sizeof(line), "%s: the message does not name '%s'", call, name);
        verdict_add(line);
    }
}

/*
 * The failing cases (short, null-*, count, stride, esize).  `want` is the
 * status every rank must see: from the scatter, or, on a rank whose
 * scatter could complete before it heard of the failure (strict == 0),
 * RTOPO_OK with exactly its own window and then `want` from
 * rtopo_finalize.  Every message of status `want` must contain `name`.
 */
struct failing { int want, strict; const char *name; int st, data_ok; };

static void judge_failing(struct failing *f, const char *call, double dt)
{
    char line[256];
    const char *msg = rtopo_last_error();

    printf("rank %d: %s -> %s in %.3f s%s: \"%s\"\n", rank, call, rtopo_err_name(f->st), dt,
           f->st ? "" : f->data_ok ? " (data correct)" : " WITH WRONG DATA", f->st ? msg : "");
    if (f->st == f->want) {
        if (f->name && !iu_contains(msg, f->name)) {
            snprintf(line, sizeof(line), "%s: the message does not name '%s'", call, f->name);
            verdict_add(line);
        }
    } else if (f->st != RTOPO_OK || f->strict || !f->data_ok) {
        snprintf(line, sizeof(line), "%s returned %s%s, expected %s", call,
                 rtopo_err_name(f->st), f->st == RTOPO_OK && !f->data_ok ? " with wrong data" :
                 "", rtopo_err_name(f->want));
        verdict_add(line);
    }
    if (dt > prompt_limit_s()) {
        snprintf(line, sizeof(line), "%s took %.1f s (limit %.0f s, half of RTOPO_TIMEOUT_MS)",
                 call, dt, prompt_limit_s());
        verdict_add(line);
    }
    fflush(stdout);
}

static void judge_finalize(struct failing *f, int st, double dt)
{
    char line[256];
    const char *msg = rtopo_last_error();

    printf("rank %d: rtopo_finalize -> %s in %.3f s: \"%s\"\n", rank, rtopo_err_name(st), dt,
           st ? msg : "");
    if (!f)
        return;
    if (f->st == RTOPO_OK && st != f->want) {
        snprintf(line, sizeof(line), "the scatter returned RTOPO_OK and rtopo_finalize %s, "
                 "not %s", rtopo_err_name(st), rtopo_err_name(f->want));
        verdict_add(line);
    } else if (st == f->want && f->name && !iu_contains(msg, f->name)) {
        snprintf(line, sizeof(line), "rtopo_finalize: the message does not name '%s'",
                 f->name);
        verdict_add(line);
    }
}

static struct failing fcase;

/* returns the failing case's record, or NULL when the case succeeds */
static struct failing *error_case(rtopo_ctx_t *ctx, rtopo_topo_t *t, const char *cs)
{
    size_t count = 64, stride = 16, esize = 8, need, scount;
    uint8_t *sa, *rb;
    int st, last = nranks - 1;
    double t0;
    char call[160];
    struct failing *f = NULL;

    need = (size_t)(nodes - 1) * stride + count;
    sa = malloc((need + 16) * (esize + 1));
    rb = malloc((count + 1) * (esize + 1));
    if (!sa || !rb)
        die("memory", RTOPO_ERR_NOMEM);
    iu_fill(sa, (need + 16) * (esize + 1), (int)seed, 5);
    scount = need;
    if (!strcmp(cs, "stride0") || !strcmp(cs, "stride-gt-count")) {
        size_t bs = cs[6] == '0' ? 0 : count + 1;
        snprintf(call, sizeof(call), "rtopo_scatter(count=%zu, stride=%zu)", count, bs);
        t0 = iu_now();
        st = rtopo_scatter(t, sa, scount, rb, count, bs, esize);
        expect(call, st, iu_now() - t0, RTOPO_ERR_INVAL, "stride");
        if (iu_now() - t0 > prompt_limit_s())
            verdict_add("the refusal took more than half of RTOPO_TIMEOUT_MS");
        /* no communication happened: a correct scatter still works */
        memset(rb, FRESH_BYTE, count * esize);
        t0 = iu_now();
        st = rtopo_scatter(t, sa, scount, rb, count, stride, esize);
        expect("rtopo_scatter (correct, afterwards)", st, iu_now() - t0, RTOPO_OK, NULL);
        if (!st && me_node >= 0 &&
            memcmp(rb, sa + (size_t)me_node * stride * esize, count * esize))
            verdict_add("the correct scatter afterwards delivered wrong data");
    } else if (!strcmp(cs, "short") || !strcmp(cs, "null-send") || !strcmp(cs, "null-recv") ||
               !strcmp(cs, "count") || !strcmp(cs, "stride") || !strcmp(cs, "esize")) {
        const void *s = sa;
        void *r = rb;
        size_t c = count, sd = stride, e = esize;
        f = &fcase;
        f->want = RTOPO_ERR_INVAL;
        f->strict = 1;      /* the host sends nothing: no node can finish */
        f->name = NULL;
        if (!strcmp(cs, "short") && rank == host)
            scount = need - 1;
        else if (!strcmp(cs, "null-send") && rank == host)
            s = NULL;
        else if (!strcmp(cs, "null-recv")) {
            f->strict = 0;
            if (me_node == 1)
                r = NULL;
        } else if (strcmp(cs, "short") && strcmp(cs, "null-send")) {
            f->want = RTOPO_ERR_MISMATCH;
            f->strict = 0;
            f->name = !strcmp(cs, "count") ? "count=" : !strcmp(cs, "stride") ? "stride=" :
                      "elem_size=";
            if (rank == last) {
                if (!strcmp(cs, "count"))
                    c++;
                else if (!strcmp(cs, "stride"))
                    sd--;
                else
                    e++;
                scount = (size_t)(nodes - 1) * sd + c;   /* enough for its own call */
            }
        }
        snprintf(call, sizeof(call), "rtopo_scatter(%s: sendcount=%zu%s, recvbuf%s, count=%zu, "
                 "stride=%zu, elem_size=%zu)", cs, scount, s ? "" : " NULL", r ? "" : " NULL",
                 c, sd, e);
        memset(rb, FRESH_BYTE, (count + 1) * (esize + 1));
        /* every rank has its topology before any rank can fail the job;
         * the failure may reach a rank while it leaves the barrier */
        t0 = iu_now();
        if ((f->st = rtopo_barrier(ctx))) {
            f->data_ok = 0;
            judge_failing(f, "rtopo_barrier before the scatter", iu_now() - t0);
            goto done;
        }
        t0 = iu_now();
        f->st = rtopo_scatter(t, s, scount, r, c, sd, e);
        f->data_ok = me_node < 0 ||
                     !memcmp(rb, sa + (size_t)me_node * sd * e, c * e);
        judge_failing(f, call, iu_now() - t0);
    } else if (!strcmp(cs, "shift")) {
        t0 = iu_now();
        st = rtopo_shift(t, sa, rb, 64, 1);
        expect("rtopo_shift on the topology", st, iu_now() - t0,
               RTOPO_ERR_UNSUPPORTED, NULL);
        t0 = iu_now();
        st = rtopo_topo_set_shift_algo(t, RTOPO_SHIFT_DIRECT);
        expect("rtopo_topo_set_shift_algo on it", st, iu_now() - t0, RTOPO_ERR_UNSUPPORTED,
               NULL);
        /* the topology still scatters */
        t0 = iu_now();
        st = rtopo_scatter(t, sa, scount, rb, count, stride, esize);
        expect("rtopo_scatter afterwards", st, iu_now() - t0, RTOPO_OK, NULL);
    } else if (!strcmp(cs, "setalgo")) {
        rtopo_topo_t *ring;
        t0 = iu_now();
        st = rtopo_topo_set_scatter_algo(t, RTOPO_SCATTER_SEQSCATTER, dim + 1);
        expect("set_scatter_algo(seqscatter, x = dim + 1)", st, iu_now() - t0,
               RTOPO_ERR_INVAL, NULL);
        st = rtopo_topo_set_scatter_algo(t, RTOPO_SCATTER_DECREMENTAL, dim);
        expect("set_scatter_algo(decremental, x = dim)", st, 0, dim ? RTOPO_ERR_INVAL :
               RTOPO_OK, NULL);
        st = rtopo_topo_set_scatter_algo(t, (rtopo_scatter_algo_t)99, -1);
        expect("set_scatter_algo(99)", st, 0, RTOPO_ERR_INVAL, NULL);
        st = rtopo_topo_set_scatter_algo(t, RTOPO_SCATTER_SEQ, -2);
        expect("set_scatter_algo(seq, x = -2)", st, 0, RTOPO_ERR_INVAL, NULL);
        if ((st = rtopo_topo_ring(ctx, &ring)))
            die("rtopo_topo_ring", st);
        st = rtopo_topo_set_scatter_algo(ring, RTOPO_SCATTER_SEQ, -1);
        expect("set_scatter_algo on a ring", st, 0, RTOPO_ERR_TOPO, NULL);
        st = rtopo_scatter(ring, sa, scount, rb, count, stride, esize);
        expect("rtopo_scatter on a ring", st, 0, RTOPO_ERR_TOPO, NULL);
        if (rtopo_topo_rank(ring) != rank || rtopo_topo_size(ring) != nranks)
            verdict_add("rtopo_topo_rank/size of a ring are not the rank and the job size");
        rtopo_topo_free(ring);
        /* the topology still scatters, with the strategy left as it was */
        t0 = iu_now();
        st = rtopo_scatter(t, sa, scount, rb, count, stride, esize);
        expect("rtopo_scatter afterwards", st, iu_now() - t0, RTOPO_OK, NULL);
    } else {
        fprintf(stderr, "unknown error case '%s'\n", cs);
        exit(2);
    }
done:
    free(sa);
    free(rb);
    return f;
}

int main(int argc, char **argv)
{
    const char *modes = "blocking,nonblocking,persistent", *mems = "reg,unreg";
    const char *ovl = "0,1,half,max", *err = NULL;
    int i, st, reps = 3, api_bad = 0;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    double t0;

    parse_windows("7x3,100x8,683x12");
    dim = -1;
    host = 0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dim") && i + 1 < argc) dim = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--host") && i + 1 < argc) host = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--algos") && i + 1 < argc) { i++; }
        else if (!strcmp(argv[i], "--windows") && i + 1 < argc) parse_windows(argv[++i]);
        else if (!strcmp(argv[i], "--overlaps") && i + 1 < argc) ovl = argv[++i];
        else if (!strcmp(argv[i], "--modes") && i + 1 < argc) modes = argv[++i];
        else if (!strcmp(argv[i], "--mem") && i + 1 < argc) mems = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--error") && i + 1 < argc) err = argv[++i];
        else {
            fprintf(stderr, "usage: see the comment at the top of scatter_check.c\n");
            return 2;
        }
    }
    if (dim < 0) {
        fprintf(stderr, "scatter_check: --dim D is required\n");
        return 2;
    }
    /* --algos needs the dimension */
    for (i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--algos") && i + 1 < argc)
            parse_algos(argv[++i]);
    if (!nalgos)
        parse_algos("all");

    if ((st = rtopo_init(NULL, &ctx)))
        die("rtopo_init", st);
    rank = rtopo_rank(ctx);
    nranks = rtopo_size(ctx);
    t0 = iu_now();
    if (err && !strcmp(err, "topo")) {
        /* the job does not fit the dimension; bad host ranks */
        char call[96];
        st = rtopo_topo_hypercube_host(ctx, dim, host, &t);
        snprintf(call, sizeof(call), "rtopo_topo_hypercube_host(dim %d, host %d)", dim, host);
        expect(call, st, iu_now() - t0, RTOPO_ERR_TOPO, "ranks");
        if (!st)
            rtopo_topo_free(t);
        st = rtopo_topo_hypercube_host(ctx, dim, nranks, &t);
        expect("rtopo_topo_hypercube_host(host = job size)", st, 0, RTOPO_ERR_INVAL, NULL);
        if (!st)
            rtopo_topo_free(t);
        st = rtopo_topo_hypercube_host(ctx, dim, -1, &t);
        expect("rtopo_topo_hypercube_host(host = -1)", st, 0, RTOPO_ERR_INVAL, NULL);
        if (!st)
            rtopo_topo_free(t);
        if (iu_now() - t0 > prompt_limit_s())
            verdict_add("the refusals took more than half of RTOPO_TIMEOUT_MS");
        t0 = iu_now();
        st = rtopo_finalize(ctx);
        judge_finalize(NULL, st, iu_now() - t0);
        if (st)
            verdict_add("rtopo_finalize failed");
        printf("rank %d: verdict: %s%s%s\n", rank, bad ? "FAIL" : "pass", why[0] ? ": " : "",
               why);
        return 0;
    }
    if ((st = rtopo_topo_hypercube_host(ctx, dim, host, &t)))
        die("rtopo_topo_hypercube_host", st);
    nodes = 1 << dim;
    outside = nranks == nodes + 1;
    /* the node number from the documented layout; rtopo_topo_rank must
     * agree (checked here, reported, and failing the run at its end, so
     * that the data checks still run) */
    me_node = !outside ? rank : rank == host ? -1 : rank < host ? rank : rank - 1;
    /* a host outside the cube is place 2^dim, one past the nodes */
    if ((i = rtopo_topo_rank(t)) != (me_node < 0 ? nodes : me_node) ||
        rtopo_topo_size(t) != nodes) {
        fprintf(stderr, "rank %d: rtopo_topo_rank %d (expected %d), rtopo_topo_size %d "
                "(expected %d)\n", rank, i, me_node < 0 ? nodes : me_node,
                rtopo_topo_size(t), nodes);
        api_bad = 1;
    }
    if (err) {
        struct failing *f;
        if (api_bad)
            verdict_add("rtopo_topo_rank or rtopo_topo_size differ from the layout");
        f = error_case(ctx, t, err);
        rtopo_topo_free(t);
        t0 = iu_now();
        st = rtopo_finalize(ctx);
        judge_finalize(f, st, iu_now() - t0);
        if (!f && st)
            verdict_add("rtopo_finalize failed");
        printf("rank %d: verdict: %s%s%s\n", rank, bad ? "FAIL" : "pass", why[0] ? ": " : "",
               why);
        return 0;
    }
    st = run_matrix(ctx, t, modes, mems, ovl, reps);
    rtopo_topo_free(t);
    if (!st && (i = rtopo_finalize(ctx)))
        die("rtopo_finalize", i);
    return st || api_bad;
}
