/*
 * place_demo.c - an OTIS-mesh placed on the job's hosts with rtopo: each
 * rank says where its topology rank landed, then a broadcast and a global
 * sum are checked against the answer worked out serially.
 *
 * Build against an installed rtopo and run on n*n ranks, n a perfect
 * square (16 ranks: 4 groups of 2 x 2):
 *
 *   cc -O2 place_demo.c $(pkg-config --cflags --libs rtopo) -o place_demo
 *   rtopo-run -n 16 ./place_demo
 *   rtopo-run -n 16 --hosts 4 --map-by host ./place_demo
 *
 * The second run spreads the job's ranks over 4 emulated hosts round
 * robin (job rank r on host r mod 4).  The topology is created under host
 * placement (rtopo_set_place): the ranks of one host take consecutive
 * topology ranks, so that each OTIS group (n consecutive topology ranks)
 * lies on one host and only the OTIS links cross hosts.  Where the hosts'
 * sizes do not allow that (a host whose ranks are not whole groups), the
 * creation fails with RTOPO_ERR_INVAL, and the program says so.
 *
 * 1. Every rank prints its job rank, its host name, its topology rank and
 *    its coordinates (Gx, Gy, Px, Py), in topology rank order.
 * 2. The host of every topology rank is gathered with an allreduce: when
 *    every host holds whole groups, every group must be on one host.
 * 3. The rank at the coordinates (last, 0, last, 0) broadcasts NV values
 *    only it knows; every rank checks them.
 * 4. Every rank I contributes v[j] = (I+1)*(j+1) + I % 5; the allreduce
 *    sum is checked against the sum computed serially over all I.
 * 5. A last allreduce (RTOPO_MAX) tells every rank whether any found a
 *    wrong value, so that all of them exit alike.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rtopo.h>

#define NV 1000

static void die(int st, const char *what)
{
    fprintf(stderr, "%s: %s (%s)\n", what, rtopo_err_name(st), rtopo_last_error());
    exit(1);
}

/* a 31-bit hash of a host name (FNV-1a) */
static int64_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;

    while (*s)
        h = (h ^ (uint8_t)*s++) * 16777619u;
    return (int64_t)(h & 0x7fffffff) + 1;
}

int main(void)
{
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    char host[256];
    int st, p, n, me, job, c[4], root, rc[4], i, j, bad = 0, any_bad = 0, whole = 1;
    int64_t *hosts, *all, *data, *v, *sum;

    if ((st = rtopo_init(NULL, &ctx)))
        die(st, "rtopo_init");
    p = rtopo_size(ctx);
    job = rtopo_rank(ctx);
    for (n = 1; n * n < p; n++)
        ;
    if (n * n != p) {
        if (job == 0)
            fprintf(stderr, "place_demo: %d ranks is not n*n\n", p);
        rtopo_finalize(ctx);
        return 2;
    }
    if ((st = rtopo_set_place(ctx, RTOPO_PLACE_HOST)))
        die(st, "rtopo_set_place");
    if ((st = rtopo_topo_otis_mesh(ctx, n, &t)))
        die(st, "rtopo_topo_otis_mesh (host placement)");
    me = rtopo_topo_rank(t);
    if ((st = rtopo_topo_coords(t, me, c)))
        die(st, "rtopo_topo_coords");
    if (gethostname(host, sizeof(host)))
        strcpy(host, "?");
    host[sizeof(host) - 1] = '\0';

    /* 1. where each topology rank landed, in topology rank order */
    for (i = 0; i < p; i++) {
        if (i == me) {
            printf("topology rank %2d (Gx %d Gy %d Px %d Py %d, group %d) is job rank "
                   "%2d on %s\n", me, c[0], c[1], c[2], c[3], me / n, job, host);
            fflush(stdout);
        }
        if ((st = rtopo_barrier(ctx)))
            die(st, "rtopo_barrier");
    }

    /* 2. the host of every topology rank; the groups on hosts */
    hosts = calloc((size_t)p, sizeof(*hosts));
    all = calloc((size_t)p, sizeof(*all));
    data = calloc(NV, sizeof(*data));
    v = calloc(NV, sizeof(*v));
    sum = calloc(NV, sizeof(*sum));
    if (!hosts || !all || !data || !v || !sum)
        die(RTOPO_ERR_NOMEM, "buffers");
    hosts[me] = name_hash(host);
    if ((st = rtopo_allreduce(t, hosts, all, (size_t)p, RTOPO_INT64, RTOPO_SUM)))
        die(st, "rtopo_allreduce (hosts)");
    for (i = 0; i < p; i++) {
        int k = 0;

        for (j = 0; j < p; j++)
            k += all[j] == all[i];
        whole &= k % n == 0;
    }
    for (i = 0; whole && i < p; i++)
        if (all[i] != all[i - i % n]) {
            if (me == 0)
                fprintf(stderr, "topology rank %d is not on the host of its group\n", i);
            bad = 1;
        }

    /* 3. broadcast from the rank at (last, 0, last, 0) */
    rc[0] = rtopo_topo_extent(t, 0) - 1;
    rc[1] = 0;
    rc[2] = rtopo_topo_extent(t, 2) - 1;
    rc[3] = 0;
    root = rtopo_topo_rank_at(t, rc);
    if (root < 0)
        die(root, "rtopo_topo_rank_at");
    for (j = 0; j < NV; j++)
        data[j] = me == root ? 7 * (int64_t)j * j - 3 * root : -1;
    if ((st = rtopo_bcast(t, data, NV, RTOPO_INT64, root)))
        die(st, "rtopo_bcast");
    for (j = 0; j < NV; j++)
        if (data[j] != 7 * (int64_t)j * j - 3 * root) {
            fprintf(stderr, "topology rank %d: bcast value %d is %lld\n", me, j,
                    (long long)data[j]);
            bad = 1;
            break;
        }

    /* 4. global sum against the serial one */
    for (j = 0; j < NV; j++)
        v[j] = (int64_t)(me + 1) * (j + 1) + me % 5;
    if ((st = rtopo_allreduce(t, v, sum, NV, RTOPO_INT64, RTOPO_SUM)))
        die(st, "rtopo_allreduce");
    for (j = 0; j < NV; j++) {
        int64_t want = 0;

        for (i = 0; i < p; i++)
            want += (int64_t)(i + 1) * (j + 1) + i % 5;
        if (sum[j] != want) {
            fprintf(stderr, "topology rank %d: sum %d is %lld, not %lld\n", me, j,
                    (long long)sum[j], (long long)want);
            bad = 1;
            break;
        }
    }

    /* 5. did every rank find the right values? */
    if ((st = rtopo_allreduce(t, &bad, &any_bad, 1, RTOPO_INT32, RTOPO_MAX)))
        die(st, "rtopo_allreduce (check)");
    if (me == 0)
        printf("%d ranks, %d groups of %d, groups each on one host: %s; bcast from "
               "topology rank %d and allreduce of %d int64: %s\n", p, n, n,
               whole ? (any_bad ? "no" : "yes") : "hosts do not hold whole groups",
               root, NV, any_bad ? "WRONG" : "all correct");
    free(hosts);
    free(all);
    free(data);
    free(v);
    free(sum);
    if ((st = rtopo_topo_free(t)))
        die(st, "rtopo_topo_free");
    if ((st = rtopo_finalize(ctx)))
        die(st, "rtopo_finalize");
    return any_bad;
}
