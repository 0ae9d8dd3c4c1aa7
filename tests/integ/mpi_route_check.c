/*
 * mpi_route_check - rtopo's selection ranks and OTIS-mesh routing
 * (rtopo_select_rank, rtopo_concentrate, rtopo_distribute,
 * rtopo_generalize) in an MPI program, against what MPI computes.
 * Started by mpirun: MPI_Init, then rtopo_init bootstraps over an
 * allgather on MPI_COMM_WORLD (rtopo_config_t.allgather; --boot pmix:
 * rtopo_init(NULL), from the launcher's PMIx), an OTIS-mesh over every
 * rank (n*n ranks, n a square: 16 ranks, n = 4), and a communicator
 * whose ranks are the topology's (MPI_Comm_split by rtopo_topo_rank).
 *
 * Every rank draws its own inputs from a generator of its own: its flag,
 * its record (random bytes) and, for the distribute and the generalize,
 * a random gap; the destinations of the first nsend ranks are the prefix
 * sums of the gaps, computed by MPI_Scan, so they increase, and the
 * other ranks pass a random negative destination.  The rounds vary the
 * density: no rank selected, every rank, about half, about a fifth (with
 * flags other than 1), a single one, and likewise for the senders, the
 * two out of step.  For each record size of --recsizes, each form of
 * --modes (blocking; nonblocking, rtopo_test until done with a 1 ms nap
 * between polls; persistent, made once per record size and started once
 * per round with the round's inputs in the same variables) and each
 * round, the four operations run with an MPI_Barrier before and after
 * each, and:
 *   select_rank is compared with MPI_Exscan of the flags (0 on rank 0);
 *   concentrate, distribute and generalize with what each rank computes
 *   from MPI_Allgather of every rank's flag or destination and record:
 *   the record it must receive, or none (then got must be 0 and the
 *   receive buffer untouched).
 *
 *   mpirun -n 16 mpi_route_check [--boot allgather|pmix] [--rounds R]
 *                                [--recsizes 1,13,48,65536]
 *                                [--modes blocking,nonblocking,persistent]
 *
 * Built by mpirun_route.sh with mpicc.  Every rank prints what differs;
 * rank 0 prints "ok: ..." when nothing did, and the exit status is 1
 * otherwise (MPI_Abort when a call fails).
 */
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

enum { OP_SELECT, OP_CONC, OP_DIST, OP_GEN, NOPS };
static const char *const op_names[NOPS] = {
    "select_rank", "concentrate", "distribute", "generalize"
};
enum { MODE_BLOCKING, MODE_NONBLOCKING, MODE_PERSISTENT, NMODES };
static const char *const mode_names[NMODES] = { "blocking", "nonblocking", "persistent" };

#define UNTOUCHED 0x5a   /* receive buffers are filled with it first */

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

/* One round's buffers, the same variables in every round: the persistent
 * requests point at them. */
struct round {
    size_t rs;                  /* record bytes */
    unsigned char *rec;         /* this rank's record */
    unsigned char *out[NOPS];   /* the receive buffers of the routings */
    int sel, got[NOPS];
    int64_t before, dest;
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

/* is `word` one of the comma-separated items of `list`? */
static int in_list(const char *list, const char *word)
{
    size_t n = strlen(word);

    for (const char *s = list; s; s = strchr(s, ','), s = s ? s + 1 : NULL)
        if (!strncmp(s, word, n) && (s[n] == ',' || s[n] == '\0'))
            return 1;
    return 0;
}

/* run request `op` in `mode` (NULL req: make a one-shot one) */
static void run_op(rtopo_topo_t *t, int op, int mode, struct round *R, rtopo_req_t *preq)
{
    rtopo_req_t *req = preq;
    int done = 0;

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
        default:
            CHECK(rtopo_generalize(t, R->rec, &R->dest, R->out[op], R->rs, &R->got[op]));
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
            default:
                CHECK(rtopo_igeneralize(t, R->rec, &R->dest, R->out[op], R->rs, &R->got[op],
                                        &req));
            }
            /* the flag or destination of a routing is copied at the start:
             * scribbling over it now must change nothing (select_rank's
             * flag is its send buffer, left alone until completion) */
            if (op != OP_SELECT) {
                R->sel = -12345;
                R->dest = -12345;
            }
            /* poll, napping in between: 16 ranks share 2 cores */
            for (;;) {
                CHECK(rtopo_test(req, &done));
                if (done)
                    break;
                iu_nap_ms(1);
            }
            CHECK(rtopo_req_free(req));
        } else {
            CHECK(rtopo_start(req));
            if (op != OP_SELECT) {
                R->sel = -12345;
                R->dest = -12345;
            }
            CHECK(rtopo_wait(req));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    const char *boot = "allgather", *modes = "blocking,nonblocking,persistent";
    const char *recsizes_s = "1,13,48,65536";
    MPI_Comm world = MPI_COMM_WORLD, tcomm;
    rtopo_config_t cfg = RTOPO_CONFIG_INIT;
    size_t recsizes[8], maxrs = 1;
    int nrs = 0, rounds = 10, mp, p, n = 1, me, i, m, k, r, errs = 0, nops = 0, all_errs;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    struct round R;
    unsigned char *all;
    int *all_sel;
    int64_t *all_dest;
    double t0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mp);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--boot") && i + 1 < argc)
            boot = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--recsizes") && i + 1 < argc)
            recsizes_s = argv[++i];
        else if (!strcmp(argv[i], "--modes") && i + 1 < argc)
            modes = argv[++i];
        else {
            if (g_rank == 0)
                fprintf(stderr, "usage: see the head of mpi_route_check.c (%s)\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    for (const char *s = recsizes_s; s && *s && nrs < 8;) {
        char *end;
        recsizes[nrs] = strtoul(s, &end, 10);
        if (!recsizes[nrs]) {
            if (g_rank == 0)
                fprintf(stderr, "--recsizes: sizes from 1 byte up (%s)\n", recsizes_s);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (recsizes[nrs] > maxrs)
            maxrs = recsizes[nrs];
        nrs++;
        s = *end == ',' ? end + 1 : NULL;
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
    while ((n + 1) * (n + 1) <= p)
        n++;
    CHECK(rtopo_topo_otis_mesh(ctx, n, &t));
    /* the routing has only the OTIS-mesh's algorithm (RTOPO_COLL_ALGO may
     * say generic in the environment) */
    CHECK(rtopo_topo_set_coll_algo(t, RTOPO_COLL_TOPO));
    me = rtopo_topo_rank(t);
    MPI_Comm_split(MPI_COMM_WORLD, 0, me, &tcomm);
    g_state = 0x243f6a8885a308d3ull * (uint64_t)(me + 1);

    memset(&R, 0, sizeof(R));
    R.rec = malloc(maxrs);
    for (k = 0; k < NOPS; k++)
        R.out[k] = malloc(maxrs);
    all = malloc(maxrs * (size_t)p);
    all_sel = malloc(sizeof(*all_sel) * (size_t)p);
    all_dest = malloc(sizeof(*all_dest) * (size_t)p);
    if (!R.rec || !R.out[0] || !R.out[1] || !R.out[2] || !R.out[3] || !all || !all_sel ||
        !all_dest)
        MPI_Abort(MPI_COMM_WORLD, 1);

    t0 = iu_now();
    for (i = 0; i < nrs; i++) {
        rtopo_req_t *preq[NOPS] = { NULL, NULL, NULL, NULL };

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
            }
            for (r = 0; r < rounds; r++) {
                int sel, nsend = nsend_of(density(r, 1), r, p);
                int64_t dest, want_before = 0, one = 0, from, ksel;
                char what[160];

                snprintf(what, sizeof(what), "%s, %zu-byte records, round %d", mode_names[m],
                         R.rs, r);
                for (k = 0; k < (int)R.rs; k++)
                    R.rec[k] = (unsigned char)next64();
                sel = draw_sel(density(r, 0), p, me);
                dest = draw_dest(tcomm, p, me, nsend);
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
                nops += NOPS;
            }
            if (m == MODE_PERSISTENT)
                for (k = 0; k < NOPS; k++)
                    CHECK(rtopo_req_free(preq[k]));
        }
    }
    t0 = iu_now() - t0;
    MPI_Allreduce(&errs, &all_errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rtopo_topo_free(t));
    CHECK(rtopo_finalize(ctx));
    if (g_rank == 0 && !all_errs)
        printf("ok: %d ranks, OTIS-mesh n=%d, boot %s, modes %s, records of %s bytes, %d "
               "rounds: %d rtopo operations agree with MPI, %.2f s\n", p, n, boot, modes,
               recsizes_s, rounds, nops, t0);
    else if (g_rank == 0)
        printf("FAILED: %d results differ from MPI's (%d ranks, boot %s)\n", all_errs, p,
               boot);
    MPI_Comm_free(&tcomm);
    free(R.rec);
    for (k = 0; k < NOPS; k++)
        free(R.out[k]);
    free(all);
    free(all_sel);
    free(all_dest);
    MPI_Finalize();
    return all_errs ? 1 : 0;
}
