/*
 * hosts_place_check - placement of a topology's ranks by host, across the
 * emulated hosts of rtopo-run --hosts.
 *
 *   hosts_place_check PLACE otis N | mesh ROWS COLS | cube DIM
 *
 * PLACE: rank or host (rtopo_set_place before the topology is created),
 * env (RTOPO_PLACE decides), or error (rtopo_set_place(host) where the
 * sizes do not allow it: the creation must fail with RTOPO_ERR_INVAL, and
 * the rank prints "place refused: MESSAGE"; then an OTIS-mesh of N with
 * RTOPO_PLACE_AUTO, which keeps the rank placement, and its data).
 *
 * Every rank learns the host (a hash of gethostname) and job rank of
 * every topology rank by an allreduce, then checks, from
 * rtopo_topo_coords alone: under host placement an OTIS group on one
 * host and the groups' hosts distinct, whole mesh rows on a host, a
 * host's hypercube nodes a sub-cube; under rank placement topology rank =
 * job rank.  Then bcast from the last topology rank, allreduce, scan and
 * sort (topology-rank data, the auto and the topology's own algorithm),
 * every element checked.  Prints "rank R on HOST label L group G" (G: the
 * OTIS group, the mesh row, the hypercube coordinates fixed on the host),
 * then
 * "placement host|rank" and "place ok".
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

static int fail(const char *what, long a, long b)
{
    fprintf(stderr, "rank %d: %s (%ld, %ld)\n", rank, what, a, b);
    return 1;
}

static void *xcalloc(size_t n, size_t s)
{
    void *p = calloc(n ? n : 1, s);

    if (!p)
        die("calloc", RTOPO_ERR_NOMEM);
    return p;
}

static int64_t host_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;

    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return (int64_t)(h >> 2);   /* a sum of one nonzero entry stays exact */
}

static int64_t key_of(int label, size_t i)
{
    uint64_t x = (uint64_t)label * 1000003u + i * 7919u + 17u;

    x ^= x >> 13;
    x *= 0x9e3779b97f4a7c15ull;
    return (int64_t)(x >> 40) % 5000;   /* duplicates across ranks */
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/* bcast, allreduce, scan and sort with topology-rank data */
static int data(rtopo_topo_t *t)
{
    const size_t cnt = 2048, scnt = 64;
    int p = rtopo_topo_size(t), me = rtopo_topo_rank(t), st, L;
    int64_t *v = xcalloc(cnt, 8), *r = xcalloc(cnt, 8), *all, *srt = xcalloc(scnt, 8);
    size_t i;

    for (i = 0; i < cnt; i++)
        v[i] = me == p - 1 ? (int64_t)(i * 31 + 5) : -7;
    if ((st = rtopo_bcast(t, v, cnt, RTOPO_INT64, p - 1)))
        die("rtopo_bcast", st);
    for (i = 0; i < cnt; i++)
        if (v[i] != (int64_t)(i * 31 + 5))
            return fail("bcast: element, value", (long)i, (long)v[i]);
    for (i = 0; i < cnt; i++)
        v[i] = (int64_t)(me + 1) * (int64_t)(i + 1);
    if ((st = rtopo_allreduce(t, v, r, cnt, RTOPO_INT64, RTOPO_SUM)))
        die("rtopo_allreduce", st);
    for (i = 0; i < cnt; i++)
        if (r[i] != (int64_t)p * (p + 1) / 2 * (int64_t)(i + 1))
            return fail("allreduce: element, value", (long)i, (long)r[i]);
    if ((st = rtopo_scan(t, v, r, cnt, RTOPO_INT64, RTOPO_SUM)))
        die("rtopo_scan", st);
    for (i = 0; i < cnt; i++)
        if (r[i] != (int64_t)(me + 1) * (me + 2) / 2 * (int64_t)(i + 1))
            return fail("scan: element, value", (long)i, (long)r[i]);
    for (i = 0; i < scnt; i++)
        v[i] = key_of(me, i);
    if ((st = rtopo_sort(t, v, srt, scnt, 8, RTOPO_INT64, 0)))
        die("rtopo_sort", st);
    all = xcalloc((size_t)p * scnt, 8);
    for (L = 0; L < p; L++)
        for (i = 0; i < scnt; i++)
            all[(size_t)L * scnt + i] = key_of(L, i);
    qsort(all, (size_t)p * scnt, 8, cmp64);
    for (i = 0; i < scnt; i++)
        if (srt[i] != all[(size_t)me * scnt + i])
            return fail("sort: record, key", (long)i, (long)srt[i]);
    free(all);
    free(v);
    free(r);
    free(srt);
    return 0;
}

/* the placement seen from the coordinates: host[L], job[L] of every label */
static int check_place(rtopo_topo_t *t, const char *kind, int host_mode, const int64_t *host,
                       const int64_t *job, int nh)
{
    int p = rtopo_topo_size(t), nd = rtopo_topo_ndims(t), L, M, k, c[32], d[32];
    int per = p / nh, bad = 0;

    if (!host_mode) {
        for (L = 0; L < p; L++)
            if (job[L] != L)
                return fail("rank placement: label on job rank", L, (long)job[L]);
        return 0;
    }
    for (L = 0; L < p && !bad; L++) {
        int same = 0, diff = 0;

        rtopo_topo_coords(t, L, c);
        for (M = 0; M < p; M++) {
            rtopo_topo_coords(t, M, d);
            if (!strcmp(kind, "otis")) {
                /* (Gx, Gy, Px, Py): same group <=> same host */
                if ((c[0] == d[0] && c[1] == d[1]) != (host[L] == host[M]))
                    bad = fail("otis: group and host disagree for labels", L, M);
            } else if (!strcmp(kind, "mesh")) {
                if (c[0] == d[0] && host[L] != host[M])
                    bad = fail("mesh: a row on two hosts, labels", L, M);
            } else if (host[M] == host[L]) {
                same++;
                for (k = 0; k < nd; k++)
                    diff |= (c[k] != d[k]) << k;
            }
            if (bad)
                break;
        }
        /* a host's 2^j nodes differ in j coordinates: a sub-cube */
        if (!bad && !strcmp(kind, "cube") && (same != per || 1 << __builtin_popcount(diff) != same))
            bad = fail("cube: a host's nodes are not a sub-cube: count, coords that vary",
                       same, diff);
    }
    return bad;
}

int main(int argc, char **argv)
{
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    char hn[256] = "";
    const char *place, *kind;
    int st, p, me, L, nh, c[32], grp, bad, nd, host_mode, a, b = 0;
    int64_t *mine, *all;

    if (argc < 4 || (!strcmp(argv[2], "mesh") ? argc != 5 : argc != 4)) {
        fprintf(stderr, "usage: hosts_place_check rank|host|env|error otis N | mesh R C | "
                "cube D\n");
        return 2;
    }
    place = argv[1];
    kind = argv[2];
    a = atoi(argv[3]);
    if (argc == 5)
        b = atoi(argv[4]);
    if ((st = rtopo_init(NULL, &ctx)))
        die("rtopo_init", st);
    rank = rtopo_rank(ctx);
    gethostname(hn, sizeof(hn) - 1);
    /* bad arguments: a clear error, the setting unchanged */
    if ((st = rtopo_set_place(ctx, (rtopo_place_t)7)) != RTOPO_ERR_INVAL ||
        !strstr(rtopo_last_error(), "unknown placement 7"))
        die("rtopo_set_place(7) did not fail with RTOPO_ERR_INVAL", st ? st : RTOPO_ERR_INVAL);
    if ((st = rtopo_set_place(NULL, RTOPO_PLACE_HOST)) != RTOPO_ERR_INVAL)
        die("rtopo_set_place(NULL) did not fail with RTOPO_ERR_INVAL", st ? st : RTOPO_ERR_INVAL);
    st = RTOPO_OK;
    if (!strcmp(place, "rank"))
        st = rtopo_set_place(ctx, RTOPO_PLACE_RANK);
    else if (!strcmp(place, "host") || !strcmp(place, "error"))
        st = rtopo_set_place(ctx, RTOPO_PLACE_HOST);
    if (st)
        die("rtopo_set_place", st);
    st = !strcmp(kind, "otis") ? rtopo_topo_otis_mesh(ctx, a, &t) :
         !strcmp(kind, "mesh") ? rtopo_topo_mesh(ctx, a, b, &t) : rtopo_topo_hypercube(ctx, a, &t);
    if (!strcmp(place, "error")) {
        if (st != RTOPO_ERR_INVAL) {
            fprintf(stderr, "rank %d: host placement over uneven hosts gave %s, not "
                    "RTOPO_ERR_INVAL\n", rank, rtopo_err_name(st));
            return 1;
        }
        printf("place refused: %s\n", rtopo_last_error());
        /* the context still works: auto places by rank here (a debug line) */
        if ((st = rtopo_set_place(ctx, RTOPO_PLACE_AUTO)) ||
            (st = rtopo_topo_otis_mesh(ctx, a, &t)))
            die("topology by rank after the refusal", st);
        bad = data(t);
        rtopo_topo_free(t);
        if ((st = rtopo_finalize(ctx)))
            die("rtopo_finalize", st);
        if (!bad)
            printf("place ok\n");
        return bad;
    }
    if (st)
        die("topology creation", st);
    p = rtopo_topo_size(t);
    me = rtopo_topo_rank(t);
    nd = rtopo_topo_ndims(t);
    if ((st = rtopo_topo_coords(t, me, c)))
        die("rtopo_topo_coords", st);
    /* host hash and job rank of every label */
    mine = xcalloc(2 * (size_t)p, 8);
    all = xcalloc(2 * (size_t)p, 8);
    mine[me] = host_hash(hn);
    mine[p + me] = rank;
    if ((st = rtopo_allreduce(t, mine, all, 2 * (size_t)p, RTOPO_INT64, RTOPO_SUM)))
        die("rtopo_allreduce (hosts)", st);
    for (L = 0, nh = 0; L < p; L++) {
        int M;

        for (M = 0; M < L && all[M] != all[L]; M++)
            ;
        nh += M == L;
    }
    host_mode = 0;
    for (L = 0; L < p; L++)
        host_mode |= all[p + L] != L;
    if (!strcmp(kind, "otis"))
        grp = c[0] * rtopo_topo_extent(t, 1) + c[1];
    else if (!strcmp(kind, "mesh"))
        grp = c[0];
    else {   /* the node's coordinates that do not vary on its host */
        int k, d[32], M, vary = 0;

        for (M = 0; M < p; M++)
            if (all[M] == all[me]) {
                rtopo_topo_coords(t, M, d);
                for (k = 0; k < nd; k++)
                    vary |= (d[k] != c[k]) << k;
            }
        for (k = nd - 1, grp = 0; k >= 0; k--)
            if (!(vary >> k & 1))
                grp = grp * 2 + c[k];
    }
    printf("rank %d on %s label %d group %d\n", rank, hn, me, grp);
    fflush(stdout);
    bad = check_place(t, kind, host_mode, all, all + p, nh);
    if (!bad)
        printf("placement %s\n", host_mode ? "host" : "rank");
    if (!bad)
        bad = data(t);
    if (!bad) {
        if ((st = rtopo_topo_set_coll_algo(t, RTOPO_COLL_TOPO)))
            die("rtopo_topo_set_coll_algo", st);
        bad = data(t);
    }
    free(mine);
    free(all);
    rtopo_topo_free(t);
    if ((st = rtopo_finalize(ctx)))
        die("rtopo_finalize", st);
    if (!bad)
        printf("place ok\n");
    return bad;
}
