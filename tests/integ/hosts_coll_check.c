/*
 * hosts_coll_check - topologies and collectives across the emulated hosts
 * of rtopo-run --hosts; every element received is checked.
 *
 *   hosts_coll_check mesh ROWS COLS
 *       a ROWS x COLS mesh: shift_dim along both dimensions by -1, 1 and
 *       2, of 8 bytes and of 256 KiB; a broadcast from the last rank and
 *       an allreduce (sum) of 16 Ki int64.
 *   hosts_coll_check scatter DIM HOST
 *       a hypercube of 2^DIM nodes fed by job rank HOST
 *       (rtopo_topo_hypercube_host): windowed scatters of 64 Ki int32
 *       windows (stride 48 Ki) and of 5-element windows (stride 3).
 *   hosts_coll_check otis N
 *       an OTIS-mesh of N groups of N: shift_dim by 1 along each of its
 *       four dimensions (64 KiB), an inclusive prefix sum and an
 *       allreduce of 4 Ki int64.
 *
 * Every rank prints "rank R on HOST" (gethostname) first and "coll ok" at
 * the end.  Run under rtopo-run; exit status 0 on success, 1 on failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rtopo.h>

static int rank = -1;

static void die(const char *what, int st)
{
    fprintf(stderr, "rank %d: %s: %s (%s)\n", rank, what, rtopo_err_name(st),
            rtopo_last_error());
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    if (!p)
        die("malloc", RTOPO_ERR_NOMEM);
    return p;
}

static uint8_t pattern(int src, size_t off, int tag)
{
    uint64_t x = ((uint64_t)src << 40) ^ ((uint64_t)(tag + 1000) << 24) ^ off;

    x ^= x >> 17;
    x *= 0x9e3779b97f4a7c15ull;
    return (uint8_t)(x >> 56);
}

/* shift_dim along dim by disp, checked against the rank it must come from */
static int shift_dim(rtopo_topo_t *t, int dim, int disp, size_t bytes, int tag)
{
    int me = rtopo_topo_rank(t), c[RTOPO_MAX_DIMS], e = rtopo_topo_extent(t, dim);
    uint8_t *sb = xmalloc(bytes), *rb = xmalloc(bytes);
    size_t i;
    int st, from;

    for (i = 0; i < bytes; i++)
        sb[i] = pattern(me, i, tag);
    memset(rb, 0, bytes);
    if ((st = rtopo_shift_dim(t, dim, sb, rb, bytes, disp)))
        die("rtopo_shift_dim", st);
    if ((st = rtopo_topo_coords(t, me, c)))
        die("rtopo_topo_coords", st);
    c[dim] = ((c[dim] - disp) % e + e) % e;
    from = rtopo_topo_rank_at(t, c);
    for (i = 0; i < bytes; i++)
        if (rb[i] != pattern(from, i, tag)) {
            fprintf(stderr, "rank %d: shift_dim dim %d disp %d of %zu bytes: byte %zu "
                    "is %u, expected %u from topology rank %d\n", rank, dim, disp,
                    bytes, i, rb[i], pattern(from, i, tag), from);
            free(sb);
            free(rb);
            return 1;
        }
    free(sb);
    free(rb);
    return 0;
}

static int bcast_allreduce(rtopo_topo_t *t, int p, size_t n)
{
    int64_t *v = xmalloc(n * sizeof(*v)), *sum = xmalloc(n * sizeof(*sum));
    size_t i;
    int st, bad = 0;

    for (i = 0; i < n; i++)
        v[i] = rank == p - 1 ? (int64_t)(i * 7 + 3) : -1;
    if ((st = rtopo_bcast(t, v, n, RTOPO_INT64, p - 1)))
        die("rtopo_bcast", st);
    for (i = 0; i < n && !bad; i++)
        if (v[i] != (int64_t)(i * 7 + 3)) {
            fprintf(stderr, "rank %d: bcast: element %zu is %lld\n", rank, i,
                    (long long)v[i]);
            bad = 1;
        }
    for (i = 0; i < n; i++)
        v[i] = (int64_t)rank * 1000003 + (int64_t)i;
    if (!bad && (st = rtopo_allreduce(t, v, sum, n, RTOPO_INT64, RTOPO_SUM)))
        die("rtopo_allreduce", st);
    for (i = 0; i < n && !bad; i++)
        if (sum[i] != (int64_t)p * (p - 1) / 2 * 1000003 + (int64_t)p * (int64_t)i) {
            fprintf(stderr, "rank %d: allreduce: element %zu is %lld\n", rank, i,
                    (long long)sum[i]);
            bad = 1;
        }
    free(v);
    free(sum);
    return bad;
}

static int mesh(rtopo_ctx_t *ctx, int rows, int cols)
{
    static const int disps[] = { -1, 1, 2 };
    static const size_t sizes[] = { 8, 256 * 1024 };
    rtopo_topo_t *t;
    size_t s, d;
    int st, dim, bad = 0, tag = 0;

    if ((st = rtopo_topo_mesh(ctx, rows, cols, &t)))
        die("rtopo_topo_mesh", st);
    for (dim = 0; dim < 2; dim++)
        for (d = 0; d < sizeof(disps) / sizeof(disps[0]); d++)
            for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]) && !bad; s++)
                bad = shift_dim(t, dim, disps[d], sizes[s], tag++);
    if (!bad)
        bad = bcast_allreduce(t, rtopo_size(ctx), 16384);
    rtopo_topo_free(t);
    return bad;
}

static int scatter_one(rtopo_topo_t *t, int host, size_t count, size_t stride)
{
    int nodes = rtopo_topo_size(t), me = rtopo_topo_rank(t);
    size_t total = (size_t)(nodes - 1) * stride + count, i;
    int32_t *a = NULL, *w = NULL;
    int st, bad = 0;

    if (rank == host) {
        a = xmalloc(total * sizeof(*a));
        for (i = 0; i < total; i++)
            a[i] = (int32_t)(i * 2654435761u);
    }
    if (me < nodes) {
        w = xmalloc(count * sizeof(*w));
        memset(w, 0xff, count * sizeof(*w));
    }
    if ((st = rtopo_scatter(t, a, a ? total : 0, w, count, stride, sizeof(int32_t))))
        die("rtopo_scatter", st);
    for (i = 0; w && i < count && !bad; i++)
        if (w[i] != (int32_t)((me * stride + i) * 2654435761u)) {
            fprintf(stderr, "rank %d (node %d): scatter count %zu stride %zu: element "
                    "%zu is %d\n", rank, me, count, stride, i, (int)w[i]);
            bad = 1;
        }
    free(a);
    free(w);
    return bad;
}

static int scatter(rtopo_ctx_t *ctx, int dim, int host)
{
    rtopo_topo_t *t;
    int st, bad;

    if ((st = rtopo_topo_hypercube_host(ctx, dim, host, &t)))
        die("rtopo_topo_hypercube_host", st);
    if (rank == host)
        printf("host of the scatter: topology rank %d of %d nodes\n", rtopo_topo_rank(t),
               rtopo_topo_size(t));
    bad = scatter_one(t, host, 65536, 49152) || scatter_one(t, host, 5, 3);
    rtopo_topo_free(t);
    return bad;
}

static int otis(rtopo_ctx_t *ctx, int n)
{
    const size_t cnt = 4096;
    rtopo_topo_t *t;
    int64_t *v, *r;
    int st, dim, bad = 0, me;
    size_t i;

    if ((st = rtopo_topo_otis_mesh(ctx, n, &t)))
        die("rtopo_topo_otis_mesh", st);
    for (dim = 0; dim < rtopo_topo_ndims(t) && !bad; dim++)
        bad = shift_dim(t, dim, 1, 65536, 100 + dim);
    me = rtopo_topo_rank(t);
    v = xmalloc(cnt * sizeof(*v));
    r = xmalloc(cnt * sizeof(*r));
    for (i = 0; i < cnt; i++)
        v[i] = (int64_t)(me + 1) * (int64_t)(i + 1);
    if (!bad && (st = rtopo_scan(t, v, r, cnt, RTOPO_INT64, RTOPO_SUM)))
        die("rtopo_scan", st);
    for (i = 0; i < cnt && !bad; i++)
        if (r[i] != (int64_t)(me + 1) * (me + 2) / 2 * (int64_t)(i + 1)) {
            fprintf(stderr, "rank %d: otis scan: element %zu is %lld\n", rank, i,
                    (long long)r[i]);
            bad = 1;
        }
    if (!bad)
        bad = bcast_allreduce(t, rtopo_size(ctx), cnt);
    free(v);
    free(r);
    rtopo_topo_free(t);
    return bad;
}

int main(int argc, char **argv)
{
    rtopo_ctx_t *ctx;
    char host[256] = "";
    int st, rc, a, b = 0;

    if (argc < 3 || (!strcmp(argv[1], "otis") ? argc != 3 : argc != 4) ||
        (strcmp(argv[1], "mesh") && strcmp(argv[1], "scatter") && strcmp(argv[1], "otis"))) {
        fprintf(stderr, "usage: hosts_coll_check mesh ROWS COLS | scatter DIM HOST | "
                "otis N\n");
        return 2;
    }
    a = atoi(argv[2]);
    if (argc == 4)
        b = atoi(argv[3]);
    if ((st = rtopo_init(NULL, &ctx)))
        die("rtopo_init", st);
    rank = rtopo_rank(ctx);
    gethostname(host, sizeof(host) - 1);
    printf("rank %d on %s\n", rank, host);
    fflush(stdout);
    if (!strcmp(argv[1], "mesh"))
        rc = mesh(ctx, a, b);
    else if (!strcmp(argv[1], "scatter"))
        rc = scatter(ctx, a, b);
    else
        rc = otis(ctx, a);
    if ((st = rtopo_finalize(ctx)))
        die("rtopo_finalize", st);
    if (rc == 0)
        printf("coll ok\n");
    return rc;
}
