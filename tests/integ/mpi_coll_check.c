/*
 * mpi_coll_check - rtopo's collectives in an MPI program, against MPI's.
 * Started by mpirun: MPI_Init, then rtopo_init bootstraps over an
 * allgather on MPI_COMM_WORLD (rtopo_config_t.allgather; --boot pmix:
 * rtopo_init(NULL), from the launcher's PMIx), an OTIS-mesh over every
 * rank (n*n ranks, n a square: 16 ranks, n = 4).  Then, with an
 * MPI_Barrier between all operations, for each algorithm of --algos:
 *   rtopo_bcast from roots 0, p/2+1 and p-1 against MPI_Bcast;
 *   rtopo_allreduce and rtopo_scan against MPI_Allreduce and MPI_Scan,
 *   every datatype with every operator for the counts up to 64, the
 *   pairs (INT32, SUM), (INT64, PROD), (FLOAT, MIN), (DOUBLE, MAX) for
 *   larger ones;
 * over a communicator whose ranks are the topology's (MPI_Comm_split by
 * rtopo_topo_rank), inputs small integers (exact in every type), every
 * result compared byte for byte with MPI's and with the root's data.
 *
 *   mpirun -n 16 mpi_coll_check [--boot allgather|pmix] [--algos auto,topo,generic]
 *                               [--counts 1,7,100000]
 *
 * Built by mpirun_coll.sh with mpicc.  Every rank prints what differs;
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

static const char *const dt_names[4] = { "INT32", "INT64", "FLOAT", "DOUBLE" };
static const char *const rop_names[4] = { "SUM", "PROD", "MIN", "MAX" };
static const char *const algo_names[3] = { "auto", "topo", "generic" };

static int mpi_allgather(const void *sendbuf, void *recvbuf, size_t len, void *arg)
{
    MPI_Comm comm = *(MPI_Comm *)arg;

    return MPI_Allgather(sendbuf, (int)len, MPI_BYTE, recvbuf, (int)len, MPI_BYTE, comm) ==
           MPI_SUCCESS ? 0 : -1;
}

static MPI_Datatype mpi_type(int dt)
{
    return dt == RTOPO_INT32 ? MPI_INT32_T : dt == RTOPO_INT64 ? MPI_INT64_T :
           dt == RTOPO_FLOAT ? MPI_FLOAT : MPI_DOUBLE;
}

static MPI_Op mpi_op(int rop)
{
    return rop == RTOPO_SUM ? MPI_SUM : rop == RTOPO_PROD ? MPI_PROD :
           rop == RTOPO_MIN ? MPI_MIN : MPI_MAX;
}

static size_t dt_size(int dt)
{
    return dt == RTOPO_INT32 || dt == RTOPO_FLOAT ? 4 : 8;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    x ^= x >> 33;
    return x;
}

/* small integers: every sum and product of up to 64 of them is exact */
static void gen(unsigned char *b, size_t count, int dt, int rop, int r, unsigned tag)
{
    static const int64_t prodv[4] = { -2, -1, 1, 2 };
    size_t i;

    for (i = 0; i < count; i++) {
        uint64_t h = mix64(mix64(((uint64_t)(unsigned)r << 32) ^ tag) + i);
        int64_t v = rop == RTOPO_PROD ? prodv[h & 3] :
                    rop == RTOPO_SUM ? (int64_t)(h % (1u << 18)) - (1 << 17) :
                    dt == RTOPO_INT32 ? (int64_t)(int32_t)(uint32_t)h :
                    dt == RTOPO_INT64 ? (int64_t)h : (int64_t)(h % (1u << 24)) - (1 << 23);
        switch (dt) {
        case RTOPO_INT32: { int32_t x = (int32_t)v; memcpy(b + 4 * i, &x, 4); break; }
        case RTOPO_INT64: { int64_t x = v; memcpy(b + 8 * i, &x, 8); break; }
        case RTOPO_FLOAT: { float x = (float)v; memcpy(b + 4 * i, &x, 4); break; }
        default: { double x = (double)v; memcpy(b + 8 * i, &x, 8); break; }
        }
    }
}

static int compare(const char *what, const unsigned char *got, const unsigned char *want,
                   size_t count, int dt)
{
    size_t es = dt_size(dt), i, nbad = 0, first = 0;

    for (i = 0; i < count; i++)
        if (memcmp(got + i * es, want + i * es, es) && !nbad++)
            first = i;
    if (!nbad)
        return 0;
    {
        double g, w;
        if (dt == RTOPO_INT32) { int32_t a, b; memcpy(&a, got + first * 4, 4);
                                 memcpy(&b, want + first * 4, 4); g = a; w = b; }
        else if (dt == RTOPO_INT64) { int64_t a, b; memcpy(&a, got + first * 8, 8);
                                      memcpy(&b, want + first * 8, 8); g = (double)a;
                                      w = (double)b; }
        else if (dt == RTOPO_FLOAT) { float a, b; memcpy(&a, got + first * 4, 4);
                                      memcpy(&b, want + first * 4, 4); g = a; w = b; }
        else { memcpy(&g, got + first * 8, 8); memcpy(&w, want + first * 8, 8); }
        fprintf(stderr, "rank %d: %s: element %zu of %zu is %.17g, MPI says %.17g (%zu "
                "elements differ)\n", g_rank, what, first, count, g, w, nbad);
    }
    return 1;
}

int main(int argc, char **argv)
{
    const char *boot = "allgather", *algos = "auto,topo,generic", *counts_s = "1,7,100000";
    MPI_Comm world = MPI_COMM_WORLD, tcomm;
    rtopo_config_t cfg = RTOPO_CONFIG_INIT;
    size_t counts[8], maxc = 1;
    int ncounts = 0, mp, p, n = 1, me, i, a, c, dt, rop, k, errs = 0, nops = 0, all_errs;
    unsigned tag = 0;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    unsigned char *sb, *rb, *mb, *want;
    double t0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mp);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--boot") && i + 1 < argc)
            boot = argv[++i];
        else if (!strcmp(argv[i], "--algos") && i + 1 < argc)
            algos = argv[++i];
        else if (!strcmp(argv[i], "--counts") && i + 1 < argc)
            counts_s = argv[++i];
        else {
            if (g_rank == 0)
                fprintf(stderr, "usage: see the head of mpi_coll_check.c (%s)\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    for (const char *s = counts_s; s && *s && ncounts < 8;) {
        char *end;
        counts[ncounts] = strtoul(s, &end, 10);
        if (counts[ncounts] > maxc)
            maxc = counts[ncounts];
        ncounts++;
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
    me = rtopo_topo_rank(t);
    MPI_Comm_split(MPI_COMM_WORLD, 0, me, &tcomm);
    sb = malloc(maxc * 8);
    rb = malloc(maxc * 8);
    mb = malloc(maxc * 8);
    want = malloc(maxc * 8);
    if (!sb || !rb || !mb || !want)
        MPI_Abort(MPI_COMM_WORLD, 1);
    t0 = iu_now();
    for (a = 0; a < 3; a++) {
        int roots[3] = { 0, (p / 2 + 1) % p, p - 1 };

        if (!strstr(algos, algo_names[a]))
            continue;
        CHECK(rtopo_topo_set_coll_algo(t, (rtopo_coll_algo_t)a));
        for (c = 0; c < ncounts; c++) {
            size_t cnt = counts[c];
            char what[160];

            for (k = 0; k < 3; k++) {
                int root = roots[k];
                dt = (k + c) % 4;
                tag++;
                snprintf(what, sizeof(what), "algo %s: bcast of %zu %s from root %d",
                         algo_names[a], cnt, dt_names[dt], root);
                gen(want, cnt, dt, RTOPO_SUM, root, tag);
                if (me == root) {
                    memcpy(rb, want, cnt * dt_size(dt));
                    memcpy(mb, want, cnt * dt_size(dt));
                } else {
                    memset(rb, 0xee, cnt * dt_size(dt));
                    memset(mb, 0xdd, cnt * dt_size(dt));
                }
                MPI_Barrier(MPI_COMM_WORLD);
                CHECK(rtopo_bcast(t, rb, cnt, (rtopo_datatype_t)dt, root));
                MPI_Barrier(MPI_COMM_WORLD);
                MPI_Bcast(mb, (int)cnt, mpi_type(dt), root, tcomm);
                errs += compare(what, rb, mb, cnt, dt);
                errs += compare(what, rb, want, cnt, dt);
                nops++;
            }
            for (dt = 0; dt < 4; dt++)
                for (rop = 0; rop < 4; rop++) {
                    if (cnt > 64 && rop != dt)
                        continue;
                    tag++;
                    gen(sb, cnt, dt, rop, me, tag);
                    snprintf(what, sizeof(what), "algo %s: allreduce of %zu %s %s",
                             algo_names[a], cnt, dt_names[dt], rop_names[rop]);
                    memset(rb, 0xee, cnt * dt_size(dt));
                    MPI_Barrier(MPI_COMM_WORLD);
                    CHECK(rtopo_allreduce(t, sb, rb, cnt, (rtopo_datatype_t)dt,
                                          (rtopo_op_t)rop));
                    MPI_Barrier(MPI_COMM_WORLD);
                    MPI_Allreduce(sb, mb, (int)cnt, mpi_type(dt), mpi_op(rop), tcomm);
                    errs += compare(what, rb, mb, cnt, dt);
                    snprintf(what, sizeof(what), "algo %s: scan of %zu %s %s",
                             algo_names[a], cnt, dt_names[dt], rop_names[rop]);
                    memset(rb, 0xee, cnt * dt_size(dt));
                    MPI_Barrier(MPI_COMM_WORLD);
                    CHECK(rtopo_scan(t, sb, rb, cnt, (rtopo_datatype_t)dt, (rtopo_op_t)rop));
                    MPI_Barrier(MPI_COMM_WORLD);
                    MPI_Scan(sb, mb, (int)cnt, mpi_type(dt), mpi_op(rop), tcomm);
                    errs += compare(what, rb, mb, cnt, dt);
                    nops += 2;
                }
        }
    }
    t0 = iu_now() - t0;
    MPI_Allreduce(&errs, &all_errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rtopo_topo_free(t));
    CHECK(rtopo_finalize(ctx));
    if (g_rank == 0 && !all_errs)
        printf("ok: %d ranks, OTIS-mesh n=%d, boot %s, algos %s, counts %s: %d rtopo "
               "operations equal MPI's, %.2f s\n", p, n, boot, algos, counts_s, nops, t0);
    else if (g_rank == 0)
        printf("FAILED: %d results differ from MPI's (%d ranks, boot %s)\n", all_errs, p,
               boot);
    MPI_Comm_free(&tcomm);
    free(sb);
    free(rb);
    free(mb);
    free(want);
    MPI_Finalize();
    return all_errs ? 1 : 0;
}
