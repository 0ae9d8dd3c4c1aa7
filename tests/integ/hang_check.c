/*
 * hang_check - completion of a blocking shift (rtopo(7), COMPLETION AND
 * PROGRESS): when rtopo_shift returns, no other rank needs this rank to
 * call into rtopo again for that shift.  Each of 5 rounds is a barrier
 * (rtopo_barrier, which makes no progress on operations) followed by one
 * blocking shift; a rank whose outgoing data or connection set-up was
 * left unfinished when its shift returned holds its neighbours up while
 * it sits in the next barrier, and the job hangs until RTOPO_TIMEOUT_MS.
 * From ../shared/repro/mini_hang.c, plus a check of every received byte.
 *
 *   rtopo-run -n 4 hang_check TOPO Q BYTES [WARM]
 *
 * TOPO is ring, mesh (2 x p/2) or cube (p a power of two); WARM shifts
 * done before the first barrier.  NOBAR=1 leaves out the barriers.
 * Rank 0 prints "ok" and the time of the rounds; exit 0 on success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rtopo.h>
#include "integ_util.h"

static int g_rank = -1;

/* "rank N"; before rtopo_init has told us, from the launcher's environment */
static const char *label(void)
{
    static char buf[32];
    if (g_rank < 0)
        return iu_env_label();
    snprintf(buf, sizeof(buf), "rank %d", g_rank);
    return buf;
}

#define CHECK(call)                                                          \
    do {                                                                     \
        int st_ = (call);                                                    \
        if (st_ != RTOPO_OK) {                                               \
            fprintf(stderr, "%s: %s: %s: %s\n", label(), #call,              \
                    rtopo_err_name(st_), rtopo_last_error());                \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    const char *tp = argc > 1 ? argv[1] : "cube";
    int q = argc > 2 ? atoi(argv[2]) : 1;
    size_t m = argc > 3 ? strtoul(argv[3], NULL, 0) : 8;
    int warm = argc > 4 ? atoi(argv[4]) : 0;
    int nobar = getenv("NOBAR") != NULL;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    unsigned char *sb, *rb;
    int p, d = 0, i, w, src;
    double t0;

    CHECK(rtopo_init(NULL, &ctx));
    g_rank = rtopo_rank(ctx);
    p = rtopo_size(ctx);
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
        CHECK(RTOPO_ERR_NOMEM);
    src = iu_mod((long)g_rank - q, p);
    for (w = 0; w < warm; w++) {
        iu_fill(sb, m, g_rank, 1000u + (unsigned)w);
        CHECK(rtopo_shift(t, sb, rb, m, q));
    }
    t0 = iu_now();
    for (i = 0; i < 5; i++) {
        long bad;
        if (!nobar)
            CHECK(rtopo_barrier(ctx));
        iu_fill(sb, m, g_rank, (unsigned)i);
        memset(rb, 0xee, m);
        CHECK(rtopo_shift(t, sb, rb, m, q));
        if ((bad = iu_first_bad(rb, m, src, (unsigned)i)) >= 0) {
            fprintf(stderr, "rank %d: round %d: byte %ld of %zu from rank %d is wrong\n",
                    g_rank, i, bad, m, src);
            exit(1);
        }
    }
    t0 = iu_now() - t0;
    rtopo_topo_free(t);
    CHECK(rtopo_finalize(ctx));
    if (g_rank == 0)
        printf("ok: %s q=%d bytes=%zu warm=%d%s, 5 rounds in %.3f s\n", tp, q, m, warm,
               nobar ? " no barrier" : "", t0);
    free(sb);
    free(rb);
    return 0;
}
