/*
 * mpi_hang_check - completion under MPI (rtopo(7), "Between operations":
 * a rank may call MPI freely once its rtopo operations are complete).
 * Started by mpirun: MPI_Init, then rtopo_init(NULL) bootstraps from the
 * launcher's environment (PMIx), then 5 rounds of MPI_Barrier followed
 * by one blocking rtopo_shift, every received byte checked.  A rank whose
 * shift returned before its outgoing data or connection set-up was done
 * holds its neighbours up while it waits in MPI_Barrier, and the job
 * hangs until RTOPO_TIMEOUT_MS.  The MPI counterpart of hang_check.
 *
 *   mpirun -n 4 mpi_hang_check TOPO Q BYTES
 *
 * TOPO is ring, mesh (2 x p/2) or cube (p a power of two).  Built by
 * mpirun_hang.sh with mpicc when MPI development files are installed.
 * Rank 0 prints "ok"; any failure aborts the job.
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

int main(int argc, char **argv)
{
    const char *tp = argc > 1 ? argv[1] : "ring";
    int q = argc > 2 ? atoi(argv[2]) : 1;
    size_t m = argc > 3 ? strtoul(argv[3], NULL, 0) : 8;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    unsigned char *sb, *rb;
    int p, mp, d = 0, i, src;
    double t0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mp);
    CHECK(rtopo_init(NULL, &ctx));
    p = rtopo_size(ctx);
    if (rtopo_rank(ctx) != g_rank || p != mp) {
        fprintf(stderr, "rank %d: rtopo says rank %d of %d, MPI rank %d of %d\n", g_rank,
                rtopo_rank(ctx), p, g_rank, mp);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    while ((1 << d) < p)
        d++;
    if (!strcmp(tp, "ring"))
        CHECK(rtopo_topo_ring(ctx, &t));
    else if (!strcmp(tp, "mesh"))
        CHECK(rtopo_topo_mesh(ctx, 2, p / 2, &t));
    else
        CHECK(rtopo_topo_hypercube(ctx, d, &t));
    sb = malloc(m + 1);
    rb = malloc(m + 1);
    if (!sb || !rb)
        MPI_Abort(MPI_COMM_WORLD, 1);
    src = iu_mod((long)g_rank - q, p);
    t0 = iu_now();
    for (i = 0; i < 5; i++) {
        long bad;
        MPI_Barrier(MPI_COMM_WORLD);
        iu_fill(sb, m, g_rank, (unsigned)i);
        memset(rb, 0xee, m);
        CHECK(rtopo_shift(t, sb, rb, m, q));
        if ((bad = iu_first_bad(rb, m, src, (unsigned)i)) >= 0) {
            fprintf(stderr, "rank %d: round %d: byte %ld of %zu from rank %d is wrong\n",
                    g_rank, i, bad, m, src);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    t0 = iu_now() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    rtopo_topo_free(t);
    CHECK(rtopo_finalize(ctx));
    if (g_rank == 0)
        printf("ok: %s q=%d bytes=%zu, 5 rounds of MPI_Barrier + rtopo_shift in %.3f s\n", tp,
               q, m, t0);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
