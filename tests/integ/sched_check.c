/*
 * sched_check - runs hand-built schedules through the executor, for what
 * the shift does not reach: transfers that start from data an earlier
 * step delivered (RECV/TMP sources), and the TMP scratch.
 *
 *   rtopo-run -n P sched_check [--sizes LIST]
 *
 * Schedule: a 2-shift done store-and-forward on a ring: step 0 moves
 * SEND of rank i to TMP of i+1, step 1 moves that TMP on to RECV of i+2;
 * then a third step copies RECV of every rank into TMP of the next and
 * back (RECV -> TMP at step 2, TMP -> RECV+len at step 3).  The data of
 * each step depends on the previous one, so a rank that forwarded too
 * early would send stale bytes.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo_int.h"

static void die(const char *what, int st)
{
    fprintf(stderr, "%s: %s (%s)\n", what, rtopo_strerror(st), rtopo_last_error());
    exit(1);
}

static uint8_t pat(int rank, size_t i, int it)
{
    return (uint8_t)(rank * 31 + i * 7 + (i >> 9) + it * 13);
}

static rtopo__sched_t *build(rtopo_topo_t *t, size_t len)
{
    int p = t->desc.p, i, s, hop = 0;
    rtopo__sched_t *sc;
    /* stage s: (src buf, src off) -> (dst buf, dst off), shift by 1 */
    static const struct { int sb, so, db, dof; } st[4] = {
        { RTOPO__BUF_SEND, 0, RTOPO__BUF_TMP, 0 },
        { RTOPO__BUF_TMP, 0, RTOPO__BUF_RECV, 0 },
        { RTOPO__BUF_RECV, 0, RTOPO__BUF_TMP, 1 },
        { RTOPO__BUF_TMP, 1, RTOPO__BUF_RECV, 1 },
    };
    int st_ok = rtopo__sched_alloc(&t->desc, (uint32_t)(4 * p), (uint32_t)(4 * p), &sc);

    if (st_ok)
        die("rtopo__sched_alloc", st_ok);
    sc->algo = RTOPO_SHIFT_RING;
    sc->nsteps = p == 1 ? 0 : 4;
    sc->tmp_bytes = 2 * len;
    for (s = 0; s < 4; s++)
        for (i = 0; i < p; i++) {
            rtopo__xfer_t *x = &sc->xfers[s * p + i];
            x->src = i;
            x->dst = (i + 1) % p;
            x->src_buf = (uint8_t)st[s].sb;
            x->dst_buf = (uint8_t)st[s].db;
            x->src_off = st[s].so * len;
            x->dst_off = st[s].dof * len;
            x->len = len;
            if (p == 1) {
                x->nhops = 0;
                continue;
            }
            x->nhops = 1;
            x->hop0 = (uint32_t)hop;
            sc->hops[hop].to = (i + 1) % p;
            sc->hops[hop].step = (uint32_t)s;
            sc->hops[hop].link = RTOPO__LINK_RING;
            sc->hops[hop].dir = 1;
            hop++;
        }
    sc->nhops = (uint32_t)hop;
    for (s = 0; p == 1 && s < 4; s++)
        sc->xfers[s].step = (uint32_t)s;
    if ((st_ok = rtopo__sched_deps_infer(sc, 0)))
        die("rtopo__sched_deps_infer", st_ok);
    return sc;
}

int main(int argc, char **argv)
{
    long sizes[16] = { 1, 5000, 100000, 1048579 };
    int nsizes = 4, i, it, st, fails = 0, rank, p, reg;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *ring;

    if (argc == 3 && !strcmp(argv[1], "--sizes")) {
        char *s = argv[2], *end;
        for (nsizes = 0; *s && nsizes < 16; s = *end ? end + 1 : end)
            sizes[nsizes++] = strtol(s, &end, 0);
    }
    if ((st = rtopo_init(NULL, &ctx)))
        die("rtopo_init", st);
    rank = rtopo_rank(ctx);
    p = rtopo_size(ctx);
    if ((st = rtopo_topo_ring(ctx, &ring)))
        die("ring", st);
    for (reg = 0; reg < 2; reg++)
        for (i = 0; i < nsizes; i++) {
            size_t len = (size_t)sizes[i], k;
            uint8_t *sb = malloc(len), *rb = malloc(2 * len);
            rtopo_mem_t *ms = NULL, *mr = NULL;
            rtopo_req_t *req;
            int src2 = ((rank - 2) % p + p) % p, src4 = ((rank - 4) % p + p) % p;

            if (reg && ((st = rtopo_mem_register(ctx, sb, len, &ms)) ||
                        (st = rtopo_mem_register(ctx, rb, 2 * len, &mr))))
                die("register", st);
            rtopo__opdesc_t d;

            rtopo__opdesc_sched(&d, ring, 99, len);
            if ((st = rtopo__req_sched(ring, build(ring, len), &d,
                                       sb, rb, len, &req)))
                die("request", st);
            for (it = 0; it < 3; it++) {
                for (k = 0; k < len; k++)
                    sb[k] = pat(rank, k, it);
                memset(rb, 0xee, 2 * len);
                if ((st = rtopo_start(req)) || (st = rtopo_wait(req)))
                    die("run", st);
                for (k = 0; k < len; k++)
                    if (rb[k] != pat(src2, k, it) || rb[len + k] != pat(src4, k, it)) {
                        fprintf(stderr, "rank %d: %zu bytes, %s, round %d: byte %zu wrong "
                                "(0x%02x 0x%02x)\n", rank, len, reg ? "registered" :
                                "unregistered", it, k, rb[k], rb[len + k]);
                        fails++;
                        break;
                    }
            }
            rtopo_req_free(req);
            if (reg) {
                rtopo_mem_deregister(ms);
                rtopo_mem_deregister(mr);
            }
            free(sb);
            free(rb);
        }
    if (rank == 0)
        printf("4-step dependent schedule on %d ranks, %d sizes: %s\n", p, nsizes,
               fails ? "WRONG DATA" : "all data correct");
    rtopo_finalize(ctx);
    return fails ? 1 : 0;
}
