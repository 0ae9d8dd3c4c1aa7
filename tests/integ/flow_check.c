/*
 * flow_check.c - loops of collectives with no barrier, where one rank is
 * free to run ahead of the others: flow control must hold it back, never
 * fail the job, and keep what the others hold for it bounded.
 *
 *   flow_check --op bcast|scatter|ibcast|topos [--iters N] [--bytes B]
 *              [--window W] [--slow others|root] [--nap-ms M]
 *              [--max-growth-kb K]
 *
 * bcast:   N blocking rtopo_bcast of B bytes from rank 0 on a hypercube
 *          (a ring when the size is no power of two).
 * scatter: N blocking rtopo_scatter of B bytes per node from a host on
 *          node 0 of a hypercube (2^d ranks).
 * ibcast:  N rtopo_ibcast in batches of W: each rank posts W of them
 *          (W buffers), then waits for them all.
 * topos:   N times a new topology (as bcast), one rtopo_bcast on it, and
 *          rtopo_topo_free.
 * The slow ranks (--slow: every rank but 0, or rank 0 alone) nap M ms
 * before the loop and again eight times along it, so that the others run
 * ahead as far as the runtime lets them; rank 0 never waits for the
 * others but in the calls themselves.  Every rank checks every byte of
 * every operation; that it never kept more early messages (those of
 * operations it had not called yet) from one peer at once than flow
 * control allows: RTOPO__FLOW_WINDOW operations of at most p - 1 hops
 * from one peer (a scatter's; a bcast that scatters then gathers around
 * a ring, as the model may choose for large messages), each in as many
 * pipelined pieces as the builder may cut B bytes into (the fragments
 * of an eager payload count once); and the growth of its peak resident
 * size (VmHWM) from a quarter of the loop (ibcast: the first batch
 * boundary past it) to its end: at most K KiB; and that the blocks of early data came from malloc
 * no more often than the most in use at once, while those fit in the
 * spares the context keeps (RTOPO__EBLK_SPARES).
 * It reads the count from the context (ctx.h): linked with the core.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "ctx.h"
#include "integ_util.h"

static int me = -1;

#define FAIL(...) do { fprintf(stderr, "[%d] FAIL: ", me); fprintf(stderr, __VA_ARGS__); \
                       fputc('\n', stderr); exit(1); } while (0)

/* word k of the data of operation i */
static inline uint64_t word(unsigned long i, size_t k)
{
    return ((uint64_t)i + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)k;
}

static void fill(uint64_t *b, size_t nw, unsigned long i, size_t k0)
{
    size_t k;
    for (k = 0; k < nw; k++)
        b[k] = word(i, k0 + k);
}

static void check(const uint64_t *b, size_t nw, unsigned long i, size_t k0, const char *what)
{
    size_t k;
    for (k = 0; k < nw; k++)
        if (b[k] != word(i, k0 + k))
            FAIL("%s %lu: word %zu is %016llx, not %016llx", what, i, k,
                 (unsigned long long)b[k], (unsigned long long)word(i, k0 + k));
}

/* peak resident size in KiB (VmHWM), or -1 */
static long hwm_kb(void)
{
    char line[256];
    long v = -1;
    FILE *f = fopen("/proc/self/status", "r");

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (!strncmp(line, "VmHWM:", 6)) {
            v = strtol(line + 6, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

int main(int argc, char **argv)
{
    const char *opname = "bcast", *slow = "others";
    unsigned long iters = 20000, i, j, window = 200;
    size_t bytes = 64, nw;
    long nap_ms = 300, max_growth_kb = 4096, h_quarter = -1, h_end;
    int p, d, st = 0, a, is_slow, pow2;
    unsigned pieces, max_kept;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    uint64_t *buf, *sbuf = NULL;
    rtopo_req_t **reqs = NULL;
    double t0;

    for (a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--op"))
            opname = argv[a + 1];
        else if (!strcmp(argv[a], "--iters"))
            iters = strtoul(argv[a + 1], NULL, 10);
        else if (!strcmp(argv[a], "--bytes"))
            bytes = strtoul(argv[a + 1], NULL, 10);
        else if (!strcmp(argv[a], "--window"))
            window = strtoul(argv[a + 1], NULL, 10);
        else if (!strcmp(argv[a], "--slow"))
            slow = argv[a + 1];
        else if (!strcmp(argv[a], "--nap-ms"))
            nap_ms = strtol(argv[a + 1], NULL, 10);
        else if (!strcmp(argv[a], "--max-growth-kb"))
            max_growth_kb = strtol(argv[a + 1], NULL, 10);
        else
            break;
    }
    if (a != argc || bytes % 8 || bytes == 0 || window == 0 || iters < 8 ||
        (strcmp(opname, "bcast") && strcmp(opname, "scatter") && strcmp(opname, "ibcast") &&
         strcmp(opname, "topos")) ||
        (strcmp(slow, "others") && strcmp(slow, "root"))) {
        fprintf(stderr, "usage: flow_check --op bcast|scatter|ibcast|topos [--iters N >= 8] "
                "[--bytes B (multiple of 8)] [--window W] [--slow others|root] "
                "[--nap-ms M] [--max-growth-kb K]\n");
        return 2;
    }
    nw = bytes / 8;
    if ((st = rtopo_init(NULL, &ctx)))
        FAIL("rtopo_init: %s", rtopo_last_error());
    me = rtopo_rank(ctx);
    p = rtopo_size(ctx);
    for (d = 0; (1 << d) < p; d++)
        ;
    pow2 = (1 << d) == p;
    if (!strcmp(opname, "scatter")) {
        if (!pow2)
            FAIL("scatter needs 2^d ranks, not %d", p);
        st = rtopo_topo_hypercube_host(ctx, d, 0, &t);
    } else if (strcmp(opname, "topos")) {
        st = pow2 ? rtopo_topo_hypercube(ctx, d, &t) : rtopo_topo_ring(ctx, &t);
    }
    if (st)
        FAIL("topology: %s", rtopo_last_error());
    if (!strcmp(opname, "ibcast")) {
        buf = malloc(window * bytes);
        reqs = calloc(window, sizeof(*reqs));
    } else {
        buf = malloc(bytes);
    }
    if (!strcmp(opname, "scatter") && me == 0)
        sbuf = malloc((size_t)p * bytes);
    if (!buf || (!strcmp(opname, "ibcast") && !reqs) ||
        (!strcmp(opname, "scatter") && me == 0 && !sbuf))
        FAIL("out of memory");
    is_slow = !strcmp(slow, "root") ? me == 0 : me != 0;
    if (is_slow)
        iu_nap_ms((int)nap_ms);
    t0 = iu_now();
    for (i = 0; i < iters; ) {
        if (h_quarter < 0 && i >= iters / 4)   /* ibcast: after a whole batch */
            h_quarter = hwm_kb();
        if (is_slow && i % (iters / 8) == iters / 16)
            iu_nap_ms((int)(nap_ms / 4));
        if (!strcmp(opname, "bcast") || !strcmp(opname, "topos")) {
            if (!strcmp(opname, "topos") &&
                (st = pow2 ? rtopo_topo_hypercube(ctx, d, &t) : rtopo_topo_ring(ctx, &t)))
                FAIL("topology %lu: %s", i, rtopo_last_error());
            if (me == 0)
                fill(buf, nw, i, 0);
            else
                memset(buf, 0, bytes);
            if ((st = rtopo_bcast(t, buf, nw, RTOPO_INT64, 0)))
                FAIL("rtopo_bcast %lu: %s: %s", i, rtopo_err_name(st), rtopo_last_error());
            check(buf, nw, i, 0, "bcast");
            if (!strcmp(opname, "topos") && (st = rtopo_topo_free(t)))
                FAIL("rtopo_topo_free %lu: %s", i, rtopo_last_error());
            i++;
        } else if (!strcmp(opname, "scatter")) {
            if (me == 0)
                fill(sbuf, (size_t)p * nw, i, 0);
            memset(buf, 0, bytes);
            if ((st = rtopo_scatter(t, sbuf, me == 0 ? (size_t)p * nw : 0, buf, nw, nw, 8)))
                FAIL("rtopo_scatter %lu: %s: %s", i, rtopo_err_name(st), rtopo_last_error());
            check(buf, nw, i, (size_t)rtopo_topo_rank(t) * nw, "scatter");
            i++;
        } else {
            unsigned long n = iters - i < window ? iters - i : window;

            for (j = 0; j < n; j++) {
                uint64_t *b = buf + j * nw;

                if (me == 0)
                    fill(b, nw, i + j, 0);
                else
                    memset(b, 0, bytes);
                if ((st = rtopo_ibcast(t, b, nw, RTOPO_INT64, 0, &reqs[j])))
                    FAIL("rtopo_ibcast %lu: %s: %s", i + j, rtopo_err_name(st),
                         rtopo_last_error());
            }
            for (j = 0; j < n; j++) {
                if ((st = rtopo_wait(reqs[j])))
                    FAIL("rtopo_wait %lu: %s: %s", i + j, rtopo_err_name(st),
                         rtopo_last_error());
                rtopo_req_free(reqs[j]);
                check(buf + j * nw, nw, i + j, 0, "ibcast");
            }
            i += n;
        }
    }
    h_end = hwm_kb();
    /* a longer message may run as pipelined pieces, each a hop: at most
     * 64, and none under 8 KiB (the builder's rtopo__coll_pieces) */
    pieces = 1;
    if (bytes > ctx->params.eager_limit)
        pieces = bytes / 8192 < 64 ? (unsigned)(bytes / 8192) : 64;
    max_kept = RTOPO__FLOW_WINDOW * pieces * ((unsigned)p - 1);
    printf("rank %d: %s: %lu operations of %zu bytes in %.2f s, early messages kept from "
           "one peer at most %u (bound %u), VmHWM %ld KiB at a quarter, %ld KiB at the end\n",
           me, opname, iters, bytes, iu_now() - t0, ctx->unexp_max, max_kept, h_quarter,
           h_end);
    if (ctx->unexp_max > max_kept)
        FAIL("kept %u early messages from one peer at once, more than flow control allows "
             "(%u)", ctx->unexp_max, max_kept);
    /* early data past RTOPO__UMSG_SMALL goes in blocks that come back for
     * reuse: while the most in use at once fit in the spares kept, no
     * block comes from malloc twice */
    printf("rank %d: early data blocks: %llu handed out, %llu from malloc, at most %u in "
           "use at once\n", me, (unsigned long long)ctx->eblk_taken,
           (unsigned long long)ctx->eblk_alloc, ctx->eblk_peak);
    if (ctx->eblk_peak <= RTOPO__EBLK_SPARES && ctx->eblk_alloc > ctx->eblk_peak)
        FAIL("%llu early data blocks came from malloc, more than the %u in use at once",
             (unsigned long long)ctx->eblk_alloc, ctx->eblk_peak);
    if (h_quarter >= 0 && h_end >= 0 && h_end - h_quarter > max_growth_kb)
        FAIL("VmHWM grew by %ld KiB from a quarter of the loop to its end (at most %ld)",
             h_end - h_quarter, max_growth_kb);
    if (strcmp(opname, "topos") && (st = rtopo_topo_free(t)))
        FAIL("rtopo_topo_free: %s", rtopo_last_error());
    if ((st = rtopo_finalize(ctx)))
        FAIL("rtopo_finalize: %s", rtopo_last_error());
    free(buf);
    free(sbuf);
    free(reqs);
    return 0;
}
