/*
 * mpi_route_check - rtopo's selection ranks and OTIS-mesh routing
 * (rtopo_select_rank, rtopo_concentrate, rtopo_distribute,
 * rtopo_generalize, rtopo_random_write, rtopo_random_read), its BPC permutations (rtopo_bpc) and its sort
 * (rtopo_sort) in an MPI program, against what MPI computes.  Started by
 * mpirun: MPI_Init, then rtopo_init bootstraps over an allgather on
 * MPI_COMM_WORLD (rtopo_config_t.allgather; --boot pmix: rtopo_init(NULL),
 * from the launcher's PMIx), a topology over every rank (--topo: an
 * OTIS-mesh, n*n ranks with n a square, 16 ranks: n = 4, by default; a
 * hypercube of 2^k ranks; a ring of any number), and a communicator whose
 * ranks are the topology's (MPI_Comm_split by rtopo_topo_rank).  Every
 * rank draws its inputs from a generator of its own; the --ops run in
 * turn, each form of --modes (blocking; nonblocking, rtopo_test until done
 * with a 1 ms nap between polls; persistent, made once and started once
 * per round with the round's inputs in the same buffers), with an
 * MPI_Barrier before and after each operation.
 *
 * route (OTIS-mesh only): for each record size of --recsizes and each of
 * --rounds rounds, the six operations.  Each rank's flag, its record
 * (random bytes) and, for the distribute and the generalize, a random gap;
 * the destinations of the first nsend ranks are the prefix sums of the
 * gaps, computed by MPI_Scan, so they increase, and the other ranks pass
 * a random negative destination.  The rounds vary the density: no rank
 * selected, every rank, about half, about a fifth (with flags other than
 * 1), a single one, and likewise for the senders, the two out of step.
 *   select_rank is compared with MPI_Exscan of the flags (0 on rank 0);
 *   concentrate, distribute and generalize with what each rank computes
 *   from MPI_Allgather of every rank's flag or destination and record:
 *   the record it must receive, or none (then got must be 0 and the
 *   receive buffer untouched).
 *   random_write and random_read: every rank draws a target of its own,
 *   the rank it writes to or reads from, or a negative value (mostly -1)
 *   for none; the rounds vary the pattern (nobody, every rank at random,
 *   half the ranks crowded on the first quarter, a permutation, all but
 *   one on the same rank), the write and the read out of step, so that
 *   several writers meet on one rank and many readers on one record.
 *   The expected results come from MPI_Allgather of the targets and the
 *   records: the write's is the record of the highest rank that targets
 *   this one (or none), the read's the record of its source (or none).
 *
 * bpc (p = 2^k): rtopo_bpc_dest of every rank under identity, transpose
 * (k even), reversal, shuffle, unshuffle, "[-0, 1, 2, -3]" (16 ranks: also
 * the table of rtopo_bpc(3), 0..15 to 9, 1, 13, 5, 11, 3, 15, 7, 8, 0, 12,
 * 4, 10, 2, 14, 6) and a random signed vector (drawn by rank 0, at least
 * one entry negative, with or without brackets and "+" signs), against
 * the bits as rtopo_bpc(3) defines them.  Then for each size of --bpc-sizes, each of
 * "[-0, 1, 2, -3]" (16 ranks), transpose (k even), reversal, shuffle and
 * the random vector, each form, --reps times: random bytes permuted by
 * rtopo_bpc, compared with what MPI_Sendrecv brings from the rank that
 * rtopo_bpc_dest sends here (to the rank it sends this one to); the bytes
 * after the receive buffer and the send buffer must stay as they were.
 * The invalid calls rtopo_bpc(3) lists (transpose with k odd, a bit
 * named twice, too few entries, sendbuf == recvbuf; any vector when p is
 * not a power of two) must return RTOPO_ERR_INVAL.
 *
 * sort: for each count of --sort-counts, each algorithm of --algos
 * (rtopo_topo_set_coll_algo: auto, topo the column sort, generic the
 * merge-split sort), int64 keys (seven values and the extremes: many
 * duplicates) and double keys (NaN of both signs and with a payload,
 * +-inf, -0.0 and 0.0, denormals, repeated halves), ascending and
 * descending, each form, --reps times with fresh records: records of 24
 * bytes (the key, the origin rank and index, a random payload) sorted by
 * rtopo_sort, every other combination in place (sendbuf == recvbuf; each
 * form and algorithm sees both key types and directions in place).  The
 * expected result: MPI_Allgather of every rank's records, qsort in the
 * documented order (NaN after every number, -0.0 equal to 0.0, equal keys
 * by origin rank then index; reversed key order when descending, the ties
 * still by origin), and this rank's share, records me*count on.  The bytes
 * after the receive buffer and a separate send buffer must stay as they
 * were.  Count 0 must leave the receive buffer alone; an invalid key type
 * or a record smaller than its key must return RTOPO_ERR_INVAL.
 *
 *   mpirun -n 16 mpi_route_check [--boot allgather|pmix]
 *          [--topo otis-mesh|hypercube|ring] [--ops route,bpc,sort]
 *          [--modes blocking,nonblocking,persistent] [--rounds R]
 *          [--recsizes 1,13,48,65536] [--bpc-sizes 1,4096,100000]
 *          [--sort-counts 1,7,500] [--algos auto,topo,generic] [--reps 2]
 *
 * Built by mpirun_route.sh with mpicc.  Every rank prints what differs;
 * rank 0 prints "ok: ..." when nothing did, and the exit status is 1
 * otherwise (MPI_Abort when a call fails).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <rtopo.h>
#include "integ_util.h"

static int g_rank = -1;

#define CHECK(call)                                                          \
    do {                                                                     \
        int st_ = (call);                                                    \
        if (st_ != RTOPO_OK) {                                               \
            fprintf(stderr, "rank %d: %s: %s: %s\n", g_rank, #call,          \
                    rtopo_err_name(st_), rtopo_last_error());                \
            MPI_Abort(MPI_COMM_WORLD, 1);                                    \
        }                                                                    \
    } while (0)

enum { OP_SELECT, OP_CONC, OP_DIST, OP_GEN, OP_WRITE, OP_READ, NOPS };
static const char *const op_names[NOPS] = {
    "select_rank", "concentrate", "distribute", "generalize", "random_write", "random_read"
};
enum { MODE_BLOCKING, MODE_NONBLOCKING, MODE_PERSISTENT, NMODES };
static const char *const mode_names[NMODES] = { "blocking", "nonblocking", "persistent" };

#define UNTOUCHED 0x5a   /* receive buffers are filled with it first */
#define GUARD 64         /* bytes after a bpc or sort receive buffer, left alone */

static int mpi_allgather(const void *sendbuf, void *recvbuf, size_t len, void *arg)
{
    MPI_Comm comm = *(MPI_Comm *)arg;

    return MPI_Allgather(sendbuf, (int)len, MPI_BYTE, recvbuf, (int)len, MPI_BYTE, comm) ==
           MPI_SUCCESS ? 0 : -1;
}

/* a generator of this rank's own */
static uint64_t g_state;

static uint64_t next64(void)
{
    uint64_t x;

    g_state += 0x9e3779b97f4a7c15ull;
    x = g_state;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void fill_random(unsigned char *buf, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        buf[i] = (unsigned char)next64();
}

/* is `word` one of the comma-separated items of `list`? */
static int in_list(const char *list, const char *word)
{
    size_t n = strlen(word);

    for (const char *s = list; s; s = strchr(s, ','), s = s ? s + 1 : NULL)
        if (!strncmp(s, word, n) && (s[n] == ',' || s[n] == '\0'))
            return 1;
    return 0;
}

/* the comma-separated numbers of `list` (option `opt`), each at least
 * `min`, at most `max` of them, into v[]; returns how many */
static int parse_sizes(const char *opt, const char *list, size_t *v, int max, size_t min)
{
    int n = 0;

    for (const char *s = list; s && *s;) {
        char *end;
        unsigned long x = strtoul(s, &end, 10);

        if (end == s || x < min || (*end && *end != ',') || n == max) {
            if (g_rank == 0)
                fprintf(stderr, "%s: up to %d numbers from %zu up, separated by commas (%s)\n",
                        opt, max, min, list);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        v[n++] = x;
        s = *end == ',' ? end + 1 : NULL;
    }
    return n;
}

/* complete a nonblocking request: rtopo_test, napping 1 ms between polls
 * (the ranks share 2 cores), then free it */
static void poll_free(rtopo_req_t *req)
{
    int done = 0;

    for (;;) {
        CHECK(rtopo_test(req, &done));
        if (done)
            break;
        iu_nap_ms(1);
    }
    CHECK(rtopo_req_free(req));
}

/* the bytes after a receive buffer must still be UNTOUCHED */
static int check_guard(const char *what, const unsigned char *after)
{
    long bad = iu_first_not(after, GUARD, UNTOUCHED);

    if (bad < 0)
        return 0;
    fprintf(stderr, "rank %d: %s: byte %ld after the receive buffer was written\n", g_rank,
            what, bad);
    return 1;
}

/* ------------------------------------------------------------------ */
/* route: select_rank, concentrate, distribute, generalize,           */
/* random_write, random_read                                           */

/* One round's buffers, the same variables in every round: the persistent
 * requests point at them. */
struct round {
    size_t rs;                  /* record bytes */
    unsigned char *rec;         /* this rank's record */
    unsigned char *out[NOPS];   /* the receive buffers of the routings */
    int sel, got[NOPS];
    int64_t before, dest;
    int64_t target;             /* random_write's dest, random_read's src */
};

/* The density of a round's flags (kind 0) or senders (kind 1): 0 none,
 * 1 all, 2 about half, 3 about a fifth, 4 a single one. */
static int density(int round, int kind)
{
    return (round + kind) % 5;
}

/* this rank's flag: drawn by its own generator */
static int draw_sel(int d, int p, int me)
{
    switch (d) {
    case 0: return 0;
    case 1: return 1;
    case 2: return (int)(next64() % 100) < 50;
    case 3: return (int)(next64() % 100) < 20 ? 1 + (int)(next64() % 7) : 0;
    default: return me == p / 2 ? -1 : 0;      /* any non-zero value selects */
    }
}

/* how many ranks send in a distribute or generalize (the first ones) */
static int nsend_of(int d, int round, int p)
{
    switch (d) {
    case 0: return 0;
    case 1: return p;
    case 2: return 1 + (round * 7) % p;
    case 3: return (p + 4) / 5;
    default: return 1;
    }
}

/* The destinations of the distribute and the generalize: the first
 * nsend ranks send, each drawing a gap of 1 to p/nsend; dest is the
 * inclusive prefix sum of the gaps, minus 1 (MPI_Scan), so it increases
 * and stays below p.  The others pass a random negative value. */
static int64_t draw_dest(MPI_Comm tcomm, int p, int me, int nsend)
{
    int64_t gap = 0, sum = 0;

    if (me < nsend)
        gap = 1 + (int64_t)(next64() % (uint64_t)(p / nsend));
    MPI_Scan(&gap, &sum, 1, MPI_INT64_T, MPI_SUM, tcomm);
    if (me < nsend)
        return sum - 1;
    return -1 - (int64_t)(next64() % 1000);
}

/* The target of a random access write (the rank written to) or read (the
 * rank read from), drawn by this rank's own generator; a negative one
 * (mostly -1) writes or reads nothing.  The rounds vary the pattern
 * (kind: the round, the write and the read out of step):
 *   0  no rank takes part (-1 or another negative value everywhere);
 *   1  every rank, a target drawn from all ranks (collisions likely);
 *   2  about half the ranks, targets among the first quarter (many
 *      collisions, most ranks left out);
 *   3  every rank, a permutation (me * 5 + kind) mod p when 5 and p are
 *      coprime (one to one), else (me + kind) mod p;
 *   4  every rank but one aims at rank p / 2, the last one at itself. */
static int64_t draw_target(int kind, int p, int me)
{
    switch (kind % 5) {
    case 0: return next64() % 4 ? -1 : -2 - (int64_t)(next64() % 1000);
    case 1: return (int64_t)(next64() % (uint64_t)p);
    case 2:
        if (next64() % 2)
            return -1;
        return (int64_t)(next64() % (uint64_t)(p / 4 + 1));
    case 3:
        return p % 5 ? ((int64_t)me * 5 + kind) % p : ((int64_t)me + kind) % p;
    default: return me == p - 1 ? me : p / 2;
    }
}

/* compare one routing result with the record of rank `from` (all: every
 * rank's records, rs bytes each), or with nothing when from < 0 */
static int compare(const char *what, int op, const struct round *R, const unsigned char *all,
                   int64_t from)
{
    const unsigned char *out = R->out[op];
    int got = R->got[op];
    size_t i;

    if (from < 0) {
        if (got != 0) {
            fprintf(stderr, "rank %d: %s: %s: got=%d, MPI says nothing arrives here\n",
                    g_rank, what, op_names[op], got);
            return 1;
        }
        for (i = 0; i < R->rs; i++)
            if (out[i] != UNTOUCHED) {
                fprintf(stderr, "rank %d: %s: %s: got=0 but byte %zu of the receive "
                        "buffer was written\n", g_rank, what, op_names[op], i);
                return 1;
            }
        return 0;
    }
    if (got != 1) {
        fprintf(stderr, "rank %d: %s: %s: got=%d, MPI says the record of rank %lld "
                "arrives here\n", g_rank, what, op_names[op], got, (long long)from);
        return 1;
    }
    if (memcmp(out, all + (size_t)from * R->rs, R->rs)) {
        for (i = 0; i < R->rs && out[i] == all[(size_t)from * R->rs + i]; i++)
            ;
        fprintf(stderr, "rank %d: %s: %s: byte %zu of %zu differs from the record of rank "
                "%lld\n", g_rank, what, op_names[op], i, R->rs, (long long)from);
        return 1;
    }
    return 0;
}

/* run request `op` in `mode` (NULL req: make a one-shot one) */
static void run_op(rtopo_topo_t *t, int op, int mode, struct round *R, rtopo_req_t *preq)
{
    rtopo_req_t *req = preq;

    MPI_Barrier(MPI_COMM_WORLD);
    if (mode == MODE_BLOCKING) {
        switch (op) {
        case OP_SELECT: CHECK(rtopo_select_rank(t, &R->sel, &R->before)); break;
        case OP_CONC:
            CHECK(rtopo_concentrate(t, R->rec, &R->sel, R->out[op], R->rs, &R->got[op]));
            break;
        case OP_DIST:
            CHECK(rtopo_distribute(t, R->rec, &R->dest, R->out[op], R->rs, &R->got[op]));
            break;
        case OP_GEN:
            CHECK(rtopo_generalize(t, R->rec, &R->dest, R->out[op], R->rs, &R->got[op]));
            break;
        case OP_WRITE:
            CHECK(rtopo_random_write(t, R->rec, &R->target, R->out[op], R->rs, &R->got[op]));
            break;
        default:
            CHECK(rtopo_random_read(t, R->rec, &R->target, R->out[op], R->rs, &R->got[op]));
        }
    } else {
        if (mode == MODE_NONBLOCKING) {
            switch (op) {
            case OP_SELECT: CHECK(rtopo_iselect_rank(t, &R->sel, &R->before, &req)); break;
            case OP_CONC:
                CHECK(rtopo_iconcentrate(t, R->rec, &R->sel, R->out[op], R->rs, &R->got[op],
                                         &req));
                break;
            case OP_DIST:
                CHECK(rtopo_idistribute(t, R->rec, &R->dest, R->out[op], R->rs, &R->got[op],
                                        &req));
                break;
            case OP_GEN:
                CHECK(rtopo_igeneralize(t, R->rec, &R->dest, R->out[op], R->rs, &R->got[op],
                                        &req));
                break;
            case OP_WRITE:
                CHECK(rtopo_irandom_write(t, R->rec, &R->target, R->out[op], R->rs,
                                          &R->got[op], &req));
                break;
            default:
                CHECK(rtopo_irandom_read(t, R->rec, &R->target, R->out[op], R->rs,
                                         &R->got[op], &req));
            }
            /* the flag, destination or source of a routing is copied at
             * the start: scribbling over it now must change nothing
             * (select_rank's flag is its send buffer, left alone until
             * completion) */
            if (op != OP_SELECT) {
                R->sel = -12345;
                R->dest = -12345;
                R->target = 12345;
            }
            poll_free(req);
        } else {
            CHECK(rtopo_start(req));
            if (op != OP_SELECT) {
                R->sel = -12345;
                R->dest = -12345;
                R->target = 12345;
            }
            CHECK(rtopo_wait(req));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* the route part; returns the number of results that differ, adds the
 * operations run to *nops */
static int route_part(rtopo_topo_t *t, MPI_Comm tcomm, int p, int me, const char *modes,
                      const size_t *recsizes, int nrs, int rounds, int *nops)
{
    struct round R;
    unsigned char *all;
    int *all_sel;
    int64_t *all_dest, *all_target;
    size_t maxrs = 1;
    int i, m, k, r, errs = 0;

    for (i = 0; i < nrs; i++)
        if (recsizes[i] > maxrs)
            maxrs = recsizes[i];
    memset(&R, 0, sizeof(R));
    R.rec = malloc(maxrs);
    for (k = 0; k < NOPS; k++)
        R.out[k] = malloc(maxrs);
    all = malloc(maxrs * (size_t)p);
    all_sel = malloc(sizeof(*all_sel) * (size_t)p);
    all_dest = malloc(sizeof(*all_dest) * (size_t)p);
    all_target = malloc(sizeof(*all_target) * (size_t)p);
    if (!R.rec || !all || !all_sel || !all_dest || !all_target)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (k = 0; k < NOPS; k++)
        if (!R.out[k])
            MPI_Abort(MPI_COMM_WORLD, 1);

    /* the routing has only the OTIS-mesh's algorithm (RTOPO_COLL_ALGO may
     * say generic in the environment) */
    CHECK(rtopo_topo_set_coll_algo(t, RTOPO_COLL_TOPO));
    for (i = 0; i < nrs; i++) {
        rtopo_req_t *preq[NOPS] = { NULL, NULL, NULL, NULL, NULL, NULL };

        R.rs = recsizes[i];
        for (m = 0; m < NMODES; m++) {
            if (!in_list(modes, mode_names[m]))
                continue;
            if (m == MODE_PERSISTENT) {
                CHECK(rtopo_select_rank_init(t, &R.sel, &R.before, &preq[OP_SELECT]));
                CHECK(rtopo_concentrate_init(t, R.rec, &R.sel, R.out[OP_CONC], R.rs,
                                             &R.got[OP_CONC], &preq[OP_CONC]));
                CHECK(rtopo_distribute_init(t, R.rec, &R.dest, R.out[OP_DIST], R.rs,
                                            &R.got[OP_DIST], &preq[OP_DIST]));
                CHECK(rtopo_generalize_init(t, R.rec, &R.dest, R.out[OP_GEN], R.rs,
                                            &R.got[OP_GEN], &preq[OP_GEN]));
                CHECK(rtopo_random_write_init(t, R.rec, &R.target, R.out[OP_WRITE], R.rs,
                                              &R.got[OP_WRITE], &preq[OP_WRITE]));
                CHECK(rtopo_random_read_init(t, R.rec, &R.target, R.out[OP_READ], R.rs,
                                             &R.got[OP_READ], &preq[OP_READ]));
            }
            for (r = 0; r < rounds; r++) {
                int sel, nsend = nsend_of(density(r, 1), r, p);
                int64_t dest, wtgt, rtgt, want_before = 0, one = 0, from, ksel;
                char what[160];

                snprintf(what, sizeof(what), "%s, %zu-byte records, round %d", mode_names[m],
                         R.rs, r);
                fill_random(R.rec, R.rs);
                sel = draw_sel(density(r, 0), p, me);
                dest = draw_dest(tcomm, p, me, nsend);
                wtgt = draw_target(r, p, me);
                rtgt = draw_target(r + 2, p, me);
                for (k = 0; k < NOPS; k++) {
                    memset(R.out[k], UNTOUCHED, R.rs);
                    R.got[k] = -1;
                }
                /* what MPI says */
                one = sel != 0;            /* MPI sums 0 and 1 */
                MPI_Exscan(&one, &want_before, 1, MPI_INT64_T, MPI_SUM, tcomm);
                if (me == 0)
                    want_before = 0;      /* MPI leaves rank 0's undefined */
                MPI_Allgather(&sel, 1, MPI_INT, all_sel, 1, MPI_INT, tcomm);
                MPI_Allgather(&dest, 1, MPI_INT64_T, all_dest, 1, MPI_INT64_T, tcomm);
                MPI_Allgather(R.rec, (int)R.rs, MPI_BYTE, all, (int)R.rs, MPI_BYTE, tcomm);

                /* rtopo: select_rank */
                R.sel = sel;
                R.before = -1;
                run_op(t, OP_SELECT, m, &R, preq[OP_SELECT]);
                if (R.before != want_before) {
                    fprintf(stderr, "rank %d: %s: select_rank gave %lld, MPI_Exscan %lld\n",
                            g_rank, what, (long long)R.before, (long long)want_before);
                    errs++;
                }
                /* concentrate: the me-th selected rank's record */
                R.sel = sel;
                run_op(t, OP_CONC, m, &R, preq[OP_CONC]);
                for (from = -1, ksel = 0, k = 0; k < p; k++)
                    if (all_sel[k] && ksel++ == me)
                        from = k;
                errs += compare(what, OP_CONC, &R, all, from);
                /* distribute: the record of the rank whose dest is me */
                R.dest = dest;
                run_op(t, OP_DIST, m, &R, preq[OP_DIST]);
                for (from = -1, k = 0; k < p; k++)
                    if (all_dest[k] == me)
                        from = k;
                errs += compare(what, OP_DIST, &R, all, from);
                /* generalize: the record of the last rank whose dest is at
                 * or below me */
                R.dest = dest;
                run_op(t, OP_GEN, m, &R, preq[OP_GEN]);
                for (from = -1, k = 0; k < p; k++)
                    if (all_dest[k] >= 0 && all_dest[k] <= me)
                        from = k;
                errs += compare(what, OP_GEN, &R, all, from);
                /* random_write: the record of the highest rank whose
                 * target is me */
                MPI_Allgather(&wtgt, 1, MPI_INT64_T, all_target, 1, MPI_INT64_T, tcomm);
                R.target = wtgt;
                run_op(t, OP_WRITE, m, &R, preq[OP_WRITE]);
                for (from = -1, k = 0; k < p; k++)
                    if (all_target[k] == me)
                        from = k;
                errs += compare(what, OP_WRITE, &R, all, from);
                /* random_read: the record of the rank this one reads from
                 * (MPI_Allgather of the sources, to check that every rank
                 * passed one in range) */
                MPI_Allgather(&rtgt, 1, MPI_INT64_T, all_target, 1, MPI_INT64_T, tcomm);
                for (k = 0; k < p; k++)
                    if (all_target[k] >= p)
                        MPI_Abort(MPI_COMM_WORLD, 1);
                R.target = rtgt;
                run_op(t, OP_READ, m, &R, preq[OP_READ]);
                errs += compare(what, OP_READ, &R, all, all_target[me]);
                *nops += NOPS;
            }
            if (m == MODE_PERSISTENT)
                for (k = 0; k < NOPS; k++)
                    CHECK(rtopo_req_free(preq[k]));
        }
    }
    free(R.rec);
    for (k = 0; k < NOPS; k++)
        free(R.out[k]);
    free(all);
    free(all_sel);
    free(all_dest);
    free(all_target);
    return errs;
}

/* ------------------------------------------------------------------ */
/* bpc: BPC permutations                                               */

enum { V_SIGNED, V_IDENTITY, V_TRANSPOSE, V_REVERSAL, V_SHUFFLE, V_UNSHUFFLE };

/* A vector as a user passes it, and what rtopo_bpc(3) says it means:
 * entry A(i) (i = 0 last in the text) is bit number mag[i], negative when
 * neg[i]; bit mag[i] of the destination is bit i of the source,
 * complemented when neg[i]. */
struct vec {
    char text[200];
    int kind;
    int mag[RTOPO_MAX_DIMS], neg[RTOPO_MAX_DIMS];
};

/* the destination of rank r under v on 2^k ranks, from rtopo_bpc(3) */
static int vec_dest(const struct vec *v, int k, int r)
{
    int d = 0, i, h = k / 2, mask = (1 << k) - 1;

    switch (v->kind) {
    case V_IDENTITY: return r;
    case V_TRANSPOSE: return ((r & ((1 << h) - 1)) << h) | (r >> h);
    case V_REVERSAL:
        for (i = 0; i < k; i++)
            if ((r >> i) & 1)
                d |= 1 << (k - 1 - i);
        return d;
    case V_SHUFFLE: return k ? ((r << 1) | (r >> (k - 1))) & mask : 0;
    case V_UNSHUFFLE: return k ? ((r >> 1) | ((r & 1) << (k - 1))) & mask : 0;
    default:
        for (i = 0; i < k; i++)
            if (((r >> i) & 1) ^ v->neg[i])
                d |= 1 << v->mag[i];
        return d;
    }
}

static void vec_named(struct vec *v, int kind, const char *name)
{
    memset(v, 0, sizeof(*v));
    v->kind = kind;
    snprintf(v->text, sizeof(v->text), "%s", name);
}

/* the text of a signed vector, A(k-1) first; with or without brackets,
 * "+" before the positive entries or not */
static void vec_write(struct vec *v, int k, int brackets, int plus)
{
    size_t n = 0;
    int i;

    v->kind = V_SIGNED;
    if (brackets)
        n += (size_t)snprintf(v->text + n, sizeof(v->text) - n, "[");
    for (i = k - 1; i >= 0; i--)
        n += (size_t)snprintf(v->text + n, sizeof(v->text) - n, "%s%s%d",
                              i == k - 1 ? "" : ", ", v->neg[i] ? "-" : plus ? "+" : "",
                              v->mag[i]);
    if (brackets)
        snprintf(v->text + n, sizeof(v->text) - n, "]");
}

/* a random signed vector, drawn by rank 0 and sent to every rank */
static void vec_random(struct vec *v, int k, MPI_Comm tcomm, int me)
{
    int i, j, x;

    memset(v, 0, sizeof(*v));
    if (me == 0) {
        for (i = 0; i < k; i++)
            v->mag[i] = i;
        for (i = k - 1; i > 0; i--) {
            j = (int)(next64() % (uint64_t)(i + 1));
            x = v->mag[i];
            v->mag[i] = v->mag[j];
            v->mag[j] = x;
        }
        for (i = 0; i < k; i++)
            v->neg[i] = (int)(next64() & 1);
        if (k)
            v->neg[next64() % (uint64_t)k] = 1;     /* at least one complemented */
        x = (int)(next64() % 4);
        vec_write(v, k, x & 1, x >> 1);
    }
    MPI_Bcast(v, (int)sizeof(*v), MPI_BYTE, 0, tcomm);
}

/* a bpc call that rtopo_bpc(3) says every rank fails alike with
 * RTOPO_ERR_INVAL, without communicating */
static int want_inval(const char *what, int st)
{
    if (st == RTOPO_ERR_INVAL)
        return 0;
    if (st < 0)
        fprintf(stderr, "rank %d: %s returned %s, rtopo_bpc(3) says RTOPO_ERR_INVAL\n",
                g_rank, what, rtopo_err_name(st));
    else
        fprintf(stderr, "rank %d: %s returned %d, rtopo_bpc(3) says RTOPO_ERR_INVAL\n",
                g_rank, what, st);
    return 1;
}

/* rtopo_bpc_dest of every rank under v against vec_dest */
static int check_dests(rtopo_topo_t *t, const struct vec *v, int k, int p)
{
    int r, d, errs = 0;

    for (r = 0; r < p; r++) {
        d = rtopo_bpc_dest(t, v->text, r);
        if (d != vec_dest(v, k, r) && errs++ < 3)
            fprintf(stderr, "rank %d: rtopo_bpc_dest(\"%s\", %d) is %d (%s), the bits say "
                    "%d\n", g_rank, v->text, r, d, d < 0 ? rtopo_err_name(d) : "a rank",
                    vec_dest(v, k, r));
    }
    return errs != 0;
}

static void run_bpc(rtopo_topo_t *t, int mode, rtopo_req_t *preq, const char *vector,
                    const void *in, void *out, size_t bytes)
{
    rtopo_req_t *req;

    MPI_Barrier(MPI_COMM_WORLD);
    if (mode == MODE_BLOCKING) {
        CHECK(rtopo_bpc(t, vector, in, out, bytes));
    } else if (mode == MODE_NONBLOCKING) {
        CHECK(rtopo_ibpc(t, vector, in, out, bytes, &req));
        poll_free(req);
    } else {
        CHECK(rtopo_start(preq));
        CHECK(rtopo_wait(preq));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* the bpc part; *nvec: the vectors moved, *nops: the operations */
static int bpc_part(rtopo_topo_t *t, MPI_Comm tcomm, int p, int me, const char *modes,
                    const size_t *sizes, int nsizes, int reps, int *nvec, int *nops,
                    char *random_text, size_t random_len)
{
    static const int seed_table[16] = { 9, 1, 13, 5, 11, 3, 15, 7, 8, 0, 12, 4, 10, 2, 14, 6 };
    struct vec vecs[8], bad;
    int nv = 0, nmove = 0, k = 0, i, j, m, r, errs = 0;
    size_t maxb = 1;
    unsigned char *in, *keep, *out, *want;
    char what[300];

    while ((1 << k) < p)
        k++;
    in = malloc(1);
    out = malloc(1);
    if (!in || !out)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if ((1 << k) != p) {
        /* no BPC permutation on p ranks: every rank refuses alike */
        errs += want_inval("rtopo_bpc_dest(\"identity\", 0) on a number of ranks that is not "
                           "a power of two", rtopo_bpc_dest(t, "identity", 0));
        errs += want_inval("rtopo_bpc(\"identity\") on a number of ranks that is not a power "
                           "of two", rtopo_bpc(t, "identity", in, out, 1));
        free(in);
        free(out);
        *nvec = 0;
        return errs;
    }

    /* the invalid calls */
    if (k % 2) {
        errs += want_inval("rtopo_bpc_dest(\"transpose\") with k odd",
                           rtopo_bpc_dest(t, "transpose", 0));
        errs += want_inval("rtopo_bpc(\"transpose\") with k odd",
                           rtopo_bpc(t, "transpose", in, out, 1));
    }
    if (k >= 2) {
        memset(&bad, 0, sizeof(bad));
        for (i = 0; i < k; i++)
            bad.mag[i] = i;
        bad.mag[0] = 1;                 /* bit 1 twice, bit 0 never */
        vec_write(&bad, k, 1, 0);
        snprintf(what, sizeof(what), "rtopo_bpc_dest(\"%s\"), a bit named twice", bad.text);
        errs += want_inval(what, rtopo_bpc_dest(t, bad.text, 0));
        snprintf(what, sizeof(what), "rtopo_bpc(\"%s\"), a bit named twice", bad.text);
        errs += want_inval(what, rtopo_bpc(t, bad.text, in, out, 1));
        for (i = 0; i < k; i++)
            bad.mag[i] = i;
        vec_write(&bad, k - 1, 1, 0);   /* one entry short */
        snprintf(what, sizeof(what), "rtopo_bpc_dest(\"%s\") on 2^%d ranks", bad.text, k);
        errs += want_inval(what, rtopo_bpc_dest(t, bad.text, 0));
    }
    errs += want_inval("rtopo_bpc(\"identity\") with sendbuf == recvbuf",
                       rtopo_bpc(t, "identity", out, out, 1));

    /* the destinations */
    vec_named(&vecs[0], V_IDENTITY, "identity");
    vec_named(&vecs[1], V_REVERSAL, "reversal");
    vec_named(&vecs[2], V_SHUFFLE, "shuffle");
    vec_named(&vecs[3], V_UNSHUFFLE, "unshuffle");
    for (i = 0; i < 4; i++)
        errs += check_dests(t, &vecs[i], k, p);
    nv = 0;
    if (p == 16) {
        memset(&vecs[nv], 0, sizeof(vecs[nv]));
        /* [A(3), A(2), A(1), A(0)] = [-0, 1, 2, -3] */
        vecs[nv].mag[3] = 0, vecs[nv].neg[3] = 1;
        vecs[nv].mag[2] = 1;
        vecs[nv].mag[1] = 2;
        vecs[nv].mag[0] = 3, vecs[nv].neg[0] = 1;
        snprintf(vecs[nv].text, sizeof(vecs[nv].text), "[-0, 1, 2, -3]");
        errs += check_dests(t, &vecs[nv], k, p);
        for (r = 0; r < 16; r++)
            if (rtopo_bpc_dest(t, vecs[nv].text, r) != seed_table[r]) {
                fprintf(stderr, "rank %d: rtopo_bpc_dest(\"[-0, 1, 2, -3]\", %d) is %d, the "
                        "table of rtopo_bpc(3) says %d\n", g_rank, r,
                        rtopo_bpc_dest(t, vecs[nv].text, r), seed_table[r]);
                errs++;
                break;
            }
        nv++;
    }
    if (k % 2 == 0) {
        vec_named(&vecs[nv], V_TRANSPOSE, "transpose");
        errs += check_dests(t, &vecs[nv], k, p);
        nv++;
    }
    vec_named(&vecs[nv++], V_REVERSAL, "reversal");
    vec_named(&vecs[nv++], V_SHUFFLE, "shuffle");
    vec_random(&vecs[nv], k, tcomm, me);
    snprintf(random_text, random_len, "%s", vecs[nv].text);
    errs += check_dests(t, &vecs[nv], k, p);
    nv++;

    /* the data */
    for (i = 0; i < nsizes; i++)
        if (sizes[i] > maxb)
            maxb = sizes[i];
    free(in);
    free(out);
    in = malloc(maxb);
    keep = malloc(maxb);
    out = malloc(maxb + GUARD);
    want = malloc(maxb);
    if (!in || !keep || !out || !want)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (i = 0; i < nsizes; i++) {
        size_t bytes = sizes[i];

        for (j = 0; j < nv; j++) {
            const char *v = vecs[j].text;
            int to = rtopo_bpc_dest(t, v, me), from = -1;

            for (r = 0; r < p; r++)
                if (rtopo_bpc_dest(t, v, r) == me)
                    from = r;
            if (to < 0 || from < 0) {
                fprintf(stderr, "rank %d: \"%s\": rtopo_bpc_dest gives no partner (to %d, "
                        "from %d)\n", g_rank, v, to, from);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            for (m = 0; m < NMODES; m++) {
                rtopo_req_t *preq = NULL;

                if (!in_list(modes, mode_names[m]))
                    continue;
                if (m == MODE_PERSISTENT)
                    CHECK(rtopo_bpc_init(t, v, in, out, bytes, &preq));
                for (r = 0; r < reps; r++) {
                    long bad_at;

                    snprintf(what, sizeof(what), "bpc \"%s\", %s, %zu bytes, run %d", v,
                             mode_names[m], bytes, r);
                    fill_random(in, bytes);
                    memcpy(keep, in, bytes);
                    memset(out, UNTOUCHED, bytes + GUARD);
                    /* what MPI brings */
                    MPI_Sendrecv(in, (int)bytes, MPI_BYTE, to, 7, want, (int)bytes, MPI_BYTE,
                                 from, 7, tcomm, MPI_STATUS_IGNORE);
                    run_bpc(t, m, preq, v, in, out, bytes);
                    nmove++;
                    if (memcmp(out, want, bytes)) {
                        for (bad_at = 0; out[bad_at] == want[bad_at]; bad_at++)
                            ;
                        fprintf(stderr, "rank %d: %s: byte %ld differs from what MPI_Sendrecv "
                                "brings from rank %d\n", g_rank, what, bad_at, from);
                        errs++;
                    }
                    errs += check_guard(what, out + bytes);
                    if (memcmp(in, keep, bytes)) {
                        fprintf(stderr, "rank %d: %s: the send buffer changed\n", g_rank, what);
                        errs++;
                    }
                }
                if (m == MODE_PERSISTENT)
                    CHECK(rtopo_req_free(preq));
            }
        }
    }
    free(in);
    free(keep);
    free(out);
    free(want);
    *nvec = nv;
    *nops += nmove;
    return errs;
}

/* ------------------------------------------------------------------ */
/* sort                                                                */

/* a record: the key first, as rtopo_sort(3) wants; the origin makes the
 * order of equal keys checkable and every record distinct */
struct rec {
    union {
        int64_t i;
        double d;
    } key;
    int32_t rank, index;    /* origin: topology rank, position in sendbuf */
    uint64_t payload;
};

static const struct {
    const char *name;
    rtopo_coll_algo_t algo;
} algos[] = {
    { "auto", RTOPO_COLL_AUTO }, { "topo", RTOPO_COLL_TOPO }, { "generic", RTOPO_COLL_GENERIC }
};
#define NALGOS 3

static double bits_double(uint64_t b)
{
    double d;

    memcpy(&d, &b, sizeof(d));
    return d;
}

static uint64_t double_bits(double d)
{
    uint64_t b;

    memcpy(&b, &d, sizeof(b));
    return b;
}

static void draw_key(struct rec *x, rtopo_datatype_t kt)
{
    uint64_t c = next64() % 20;

    if (kt == RTOPO_INT64) {
        switch (c) {
        case 0: x->key.i = INT64_MIN; break;
        case 1: x->key.i = INT64_MAX; break;
        case 2: x->key.i = (int64_t)next64(); break;
        default: x->key.i = (int64_t)(next64() % 7) - 3;    /* many duplicates */
        }
        return;
    }
    switch (c) {
    case 0: x->key.d = NAN; break;
    case 1: x->key.d = -NAN; break;
    case 2: x->key.d = bits_double(0x7ff8000000abcdefull); break;  /* NaN with a payload */
    case 3: x->key.d = bits_double(0xfff0000000000001ull); break;  /* a signalling -NaN */
    case 4: x->key.d = INFINITY; break;
    case 5: x->key.d = -INFINITY; break;
    case 6: x->key.d = -0.0; break;
    case 7: x->key.d = 0.0; break;
    case 8: x->key.d = bits_double(next64() % 16);                  /* denormals */ break;
    case 9: x->key.d = bits_double(next64() & 0x7fefffffffffffffull); /* any finite */ break;
    case 10: x->key.d = -1.7976931348623157e308; break;
    default: x->key.d = ((int)(next64() % 7) - 3) * 0.5;            /* many duplicates */
    }
}

/* the documented order, for qsort */
static rtopo_datatype_t g_kt;
static int g_desc;

static int rec_cmp(const void *pa, const void *pb)
{
    const struct rec *a = pa, *b = pb;
    int c;

    if (g_kt == RTOPO_INT64) {
        c = a->key.i < b->key.i ? -1 : a->key.i > b->key.i;
    } else {
        int na = isnan(a->key.d) != 0, nb = isnan(b->key.d) != 0;

        if (na || nb)
            c = na - nb;                 /* NaN after every number, NaNs equal */
        else
            c = a->key.d < b->key.d ? -1 : a->key.d > b->key.d;   /* -0.0 == 0.0 */
    }
    if (g_desc)
        c = -c;
    if (c)
        return c;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static void rec_text(char *buf, size_t n, const struct rec *x, rtopo_datatype_t kt)
{
    if (kt == RTOPO_INT64)
        snprintf(buf, n, "key %lld from rank %d index %d", (long long)x->key.i,
                 (int)x->rank, (int)x->index);
    else
        snprintf(buf, n, "key %g (0x%016llx) from rank %d index %d", x->key.d,
                 (unsigned long long)double_bits(x->key.d), (int)x->rank, (int)x->index);
}

static void run_sort(rtopo_topo_t *t, int mode, rtopo_req_t *preq, const void *in, void *out,
                     size_t count, rtopo_datatype_t kt, int desc)
{
    rtopo_req_t *req;

    MPI_Barrier(MPI_COMM_WORLD);
    if (mode == MODE_BLOCKING) {
        CHECK(rtopo_sort(t, in, out, count, sizeof(struct rec), kt, desc));
    } else if (mode == MODE_NONBLOCKING) {
        CHECK(rtopo_isort(t, in, out, count, sizeof(struct rec), kt, desc, &req));
        poll_free(req);
    } else {
        CHECK(rtopo_start(preq));
        CHECK(rtopo_wait(preq));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* the sort part; *nops: the sorts run, *ninplace: those in place */
static int sort_part(rtopo_topo_t *t, MPI_Comm tcomm, int p, int me, const char *modes,
                     const char *algo_list, const size_t *counts, int ncounts, int reps,
                     int *nops, int *ninplace)
{
    static const rtopo_datatype_t kts[2] = { RTOPO_INT64, RTOPO_DOUBLE };
    const size_t rs = sizeof(struct rec);
    size_t maxc = 1, count, j;
    struct rec *in, *keep, *out, *all;
    int i, a, kk, desc, m, r, inplace, errs = 0, st;
    char what[200], g[120], w[120];

    for (i = 0; i < ncounts; i++)
        if (counts[i] > maxc)
            maxc = counts[i];
    in = malloc(maxc * rs);
    keep = malloc(maxc * rs);
    out = malloc(maxc * rs + GUARD);
    all = malloc(maxc * rs * (size_t)p);
    if (!in || !keep || !out || !all)
        MPI_Abort(MPI_COMM_WORLD, 1);

    /* what every rank refuses alike */
    st = rtopo_sort(t, in, out, 1, rs, (rtopo_datatype_t)99, 0);
    if (st != RTOPO_ERR_INVAL) {
        fprintf(stderr, "rank %d: rtopo_sort with key type 99 returned %s, rtopo_sort(3) "
                "says RTOPO_ERR_INVAL\n", g_rank, rtopo_err_name(st));
        errs++;
    }
    st = rtopo_sort(t, in, out, 1, 4, RTOPO_INT64, 0);
    if (st != RTOPO_ERR_INVAL) {
        fprintf(stderr, "rank %d: rtopo_sort of 4-byte records with int64 keys returned %s, "
                "rtopo_sort(3) says RTOPO_ERR_INVAL\n", g_rank, rtopo_err_name(st));
        errs++;
    }

    for (a = 0; a < NALGOS; a++) {
        if (!in_list(algo_list, algos[a].name))
            continue;
        CHECK(rtopo_topo_set_coll_algo(t, algos[a].algo));
        /* count 0: nothing moves */
        memset(out, UNTOUCHED, GUARD);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(rtopo_sort(t, in, out, 0, rs, RTOPO_INT64, 0));
        MPI_Barrier(MPI_COMM_WORLD);
        snprintf(what, sizeof(what), "sort of 0 records, algo %s", algos[a].name);
        errs += check_guard(what, (unsigned char *)out);
        for (i = 0; i < ncounts; i++) {
            count = counts[i];
            for (kk = 0; kk < 2; kk++)
                for (desc = 0; desc < 2; desc++)
                    for (m = 0; m < NMODES; m++) {
                        rtopo_req_t *preq = NULL;
                        /* both key types and directions in place and not, in
                         * every form */
                        void *src;

                        if (!in_list(modes, mode_names[m]))
                            continue;
                        inplace = (kk + desc + m + i) % 2;
                        src = inplace ? (void *)out : (void *)in;
                        if (m == MODE_PERSISTENT)
                            CHECK(rtopo_sort_init(t, src, out, count, rs, kts[kk], desc,
                                                  &preq));
                        for (r = 0; r < reps; r++) {
                            snprintf(what, sizeof(what), "sort of %zu records per rank, %s "
                                     "keys, %s, algo %s, %s%s, run %d", count,
                                     kk ? "double" : "int64", desc ? "descending" : "ascending",
                                     algos[a].name, mode_names[m], inplace ? ", in place" : "",
                                     r);
                            for (j = 0; j < count; j++) {
                                draw_key(&in[j], kts[kk]);
                                in[j].rank = me;
                                in[j].index = (int32_t)j;
                                in[j].payload = next64();
                            }
                            memcpy(keep, in, count * rs);
                            memset(out, UNTOUCHED, count * rs + GUARD);
                            if (inplace)
                                memcpy(out, in, count * rs);
                            /* what MPI says: every record, in the documented order */
                            MPI_Allgather(in, (int)(count * rs), MPI_BYTE, all,
                                          (int)(count * rs), MPI_BYTE, tcomm);
                            run_sort(t, m, preq, src, out, count, kts[kk], desc);
                            g_kt = kts[kk];
                            g_desc = desc;
                            qsort(all, count * (size_t)p, rs, rec_cmp);
                            for (j = 0; j < count; j++)
                                if (memcmp(&out[j], &all[(size_t)me * count + j], rs))
                                    break;
                            if (j < count) {
                                rec_text(g, sizeof(g), &out[j], kts[kk]);
                                rec_text(w, sizeof(w), &all[(size_t)me * count + j], kts[kk]);
                                fprintf(stderr, "rank %d: %s: record %zu of this rank is %s%s, "
                                        "MPI's order says %s\n", g_rank, what, j, g,
                                        memcmp(&out[j].payload,
                                               &all[(size_t)me * count + j].payload, 8)
                                            ? " (payload differs)" : "", w);
                                errs++;
                            }
                            errs += check_guard(what, (unsigned char *)out + count * rs);
                            /* a separate send buffer is only read */
                            if (!inplace && memcmp(in, keep, count * rs)) {
                                fprintf(stderr, "rank %d: %s: the send buffer changed\n",
                                        g_rank, what);
                                errs++;
                            }
                            (*nops)++;
                            *ninplace += inplace;
                        }
                        if (m == MODE_PERSISTENT)
                            CHECK(rtopo_req_free(preq));
                    }
        }
    }
    free(in);
    free(keep);
    free(out);
    free(all);
    return errs;
}

int main(int argc, char **argv)
{
    const char *boot = "allgather", *modes = "blocking,nonblocking,persistent";
    const char *recsizes_s = "1,13,48,65536", *topo = "otis-mesh", *ops = "route,bpc,sort";
    const char *bpc_sizes_s = "1,4096,100000", *counts_s = "1,7,500";
    const char *algo_list = "auto,topo,generic";
    MPI_Comm world = MPI_COMM_WORLD, tcomm;
    rtopo_config_t cfg = RTOPO_CONFIG_INIT;
    size_t recsizes[8], bpc_sizes[8], counts[8];
    int nrs, nbs, ncs, rounds = 10, reps = 2, mp, p, n = 1, k = 0, me, i, errs = 0;
    int nroute = 0, nbpc = 0, nvec = 0, nsort = 0, ninplace = 0, all_errs;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    char shape[64], summary[1024], vrandom[200] = "";
    size_t len = 0;
    double t0, t1, tr = 0, tb = 0, ts = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mp);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--boot") && i + 1 < argc)
            boot = argv[++i];
        else if (!strcmp(argv[i], "--topo") && i + 1 < argc)
            topo = argv[++i];
        else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
            ops = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--recsizes") && i + 1 < argc)
            recsizes_s = argv[++i];
        else if (!strcmp(argv[i], "--bpc-sizes") && i + 1 < argc)
            bpc_sizes_s = argv[++i];
        else if (!strcmp(argv[i], "--sort-counts") && i + 1 < argc)
            counts_s = argv[++i];
        else if (!strcmp(argv[i], "--algos") && i + 1 < argc)
            algo_list = argv[++i];
        else if (!strcmp(argv[i], "--modes") && i + 1 < argc)
            modes = argv[++i];
        else {
            if (g_rank == 0)
                fprintf(stderr, "usage: see the head of mpi_route_check.c (%s)\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    nrs = parse_sizes("--recsizes", recsizes_s, recsizes, 8, 1);
    nbs = parse_sizes("--bpc-sizes", bpc_sizes_s, bpc_sizes, 8, 1);
    ncs = parse_sizes("--sort-counts", counts_s, counts, 8, 1);
    if (strcmp(topo, "otis-mesh") && in_list(ops, "route")) {
        if (g_rank == 0)
            fprintf(stderr, "--ops route needs --topo otis-mesh\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!strcmp(boot, "pmix")) {
        CHECK(rtopo_init(NULL, &ctx));
    } else {
        cfg.rank = g_rank;
        cfg.nranks = mp;
        cfg.allgather = mpi_allgather;
        cfg.allgather_arg = &world;
        CHECK(rtopo_init(&cfg, &ctx));
    }
    p = rtopo_size(ctx);
    if (rtopo_rank(ctx) != g_rank || p != mp) {
        fprintf(stderr, "rank %d: rtopo says rank %d of %d, MPI rank %d of %d\n", g_rank,
                rtopo_rank(ctx), p, g_rank, mp);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (!strcmp(topo, "otis-mesh")) {
        while ((n + 1) * (n + 1) <= p)
            n++;
        CHECK(rtopo_topo_otis_mesh(ctx, n, &t));
        snprintf(shape, sizeof(shape), "OTIS-mesh n=%d", n);
    } else if (!strcmp(topo, "hypercube")) {
        while ((1 << (k + 1)) <= p)
            k++;
        CHECK(rtopo_topo_hypercube(ctx, k, &t));
        snprintf(shape, sizeof(shape), "hypercube of dimension %d", k);
    } else if (!strcmp(topo, "ring")) {
        CHECK(rtopo_topo_ring(ctx, &t));
        snprintf(shape, sizeof(shape), "ring");
    } else {
        if (g_rank == 0)
            fprintf(stderr, "--topo otis-mesh, hypercube or ring (%s)\n", topo);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    me = rtopo_topo_rank(t);
    MPI_Comm_split(MPI_COMM_WORLD, 0, me, &tcomm);
    g_state = 0x243f6a8885a308d3ull * (uint64_t)(me + 1);

    t0 = iu_now();
    if (in_list(ops, "route")) {
        errs += route_part(t, tcomm, p, me, modes, recsizes, nrs, rounds, &nroute);
        tr = iu_now() - t0;
    }
    if (in_list(ops, "bpc")) {
        t1 = iu_now();
        errs += bpc_part(t, tcomm, p, me, modes, bpc_sizes, nbs, reps, &nvec, &nbpc, vrandom,
                         sizeof(vrandom));
        tb = iu_now() - t1;
    }
    if (in_list(ops, "sort")) {
        t1 = iu_now();
        errs += sort_part(t, tcomm, p, me, modes, algo_list, counts, ncs, reps, &nsort,
                          &ninplace);
        ts = iu_now() - t1;
    }
    t0 = iu_now() - t0;
    MPI_Allreduce(&errs, &all_errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rtopo_topo_free(t));
    CHECK(rtopo_finalize(ctx));

    summary[0] = '\0';
    if (in_list(ops, "route"))
        len += (size_t)snprintf(summary + len, sizeof(summary) - len,
                                "; route: records of %s bytes, %d rounds, %d operations "
                                "(%.2f s)", recsizes_s, rounds, nroute, tr);
    if (in_list(ops, "bpc") && nvec)
        len += (size_t)snprintf(summary + len, sizeof(summary) - len,
                                "; bpc: %d vectors (random \"%s\"), %s bytes, %d "
                                "permutations (%.2f s)", nvec, vrandom, bpc_sizes_s, nbpc, tb);
    else if (in_list(ops, "bpc"))
        len += (size_t)snprintf(summary + len, sizeof(summary) - len,
                                "; bpc: refused on %d ranks as documented", p);
    if (in_list(ops, "sort"))
        snprintf(summary + len, sizeof(summary) - len,
                 "; sort: %s records of %zu bytes per rank, algos %s, %d sorts, %d of them "
                 "in place (%.2f s)", counts_s, sizeof(struct rec), algo_list, nsort,
                 ninplace, ts);
    if (g_rank == 0 && !all_errs)
        printf("ok: %d ranks, %s, boot %s, modes %s%s: every result agrees with MPI, "
               "%.2f s\n", p, shape, boot, modes, summary, t0);
    else if (g_rank == 0)
        printf("FAILED: %d results differ from MPI's (%d ranks, %s, boot %s)\n", all_errs, p,
               shape, boot);
    MPI_Comm_free(&tcomm);
    MPI_Finalize();
    return all_errs ? 1 : 0;
}
