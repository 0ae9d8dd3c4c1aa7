/*
 * place.c - placement of a topology's labels on the job's ranks by host.
 *
 * Rule: the ranks of one host take consecutive labels, a block per host,
 * so that the topology's cheapest-to-keep links stay inside hosts:
 *  - ring: any sizes; hosts in the order of their first rank;
 *  - mesh (rows x cols): a host of k*cols ranks gets k whole rows, a host
 *    of fewer ranks a part of one row; hosts in the order of their first
 *    rank, and every block must be whole rows or lie inside one row;
 *  - hypercube (labels r on cube node gray(r)): a host of 2^j ranks gets
 *    an aligned block of 2^j labels, which is a j-dimensional sub-cube of
 *    the nodes (the bits above j of r fix those of gray(r)); hosts in
 *    decreasing size, so every block starts at a multiple of its size;
 *    the host endpoint of a hypercube with a host (label p-1) keeps its
 *    job rank, only the nodes are placed;
 *  - OTIS (mesh and hypercube, group G = labels G*n .. G*n+n-1): a host of
 *    k*n ranks gets k whole groups, so electronic links stay inside hosts
 *    and only OTIS links cross them.
 * Inside a block, labels follow job rank order.  Sizes that break the rule
 * (uneven hosts) leave the rank placement.  The result depends only on its
 * arguments, so every rank computes the same map.
 * Auto with a model (rtopo__place_auto) weighs the two maps where both
 * exist: each link of the topology costs one message of the model's chunk
 * at the figures of its reach (both ends on one host or not), and the
 * rank placement is kept where its links cost less; a model that does not
 * tell the reaches apart counts the links between hosts.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_place.h"

int rtopo__place_parse(const char *s)
{
    if (!s)
        return -1;
    if (!strcmp(s, "rank"))
        return RTOPO__PLACE_RANK;
    if (!strcmp(s, "host"))
        return RTOPO__PLACE_HOST;
    if (!strcmp(s, "auto"))
        return RTOPO__PLACE_AUTO;
    return -1;
}

const char *rtopo__place_name(int mode)
{
    return mode == RTOPO__PLACE_RANK ? "rank" : mode == RTOPO__PLACE_HOST ? "host" :
           mode == RTOPO__PLACE_AUTO ? "auto" : "?";
}

static void rtopo__place_say(char *why, size_t n, const char *fmt, const char *a,
                             const char *b)
{
    if (why && n)
        snprintf(why, n, fmt, a, b);
}

int rtopo__place_map(const rtopo__tdesc_t *t, const int *base, const int *hostof, int mode,
                     int *map, char *why, size_t whylen)
{
    int P, nh = 0, i, j, h, o, ok = 1, st = RTOPO_ERR_NOMEM;
    int *hid = NULL, *cnt = NULL, *order = NULL, *start = NULL, *fill = NULL;
    char sizes[160], need[160];
    size_t off = 0;

    if (why && whylen)
        why[0] = '\0';
    if (!t || !hostof || !map || t->p < 1)
        return rtopo__error(RTOPO_ERR_INVAL, "placement: no topology, host map or result");
    if (mode != RTOPO__PLACE_RANK && mode != RTOPO__PLACE_HOST && mode != RTOPO__PLACE_AUTO)
        return rtopo__error(RTOPO_ERR_INVAL, "placement: unknown mode %d", mode);
    P = t->p - (t->host ? 1 : 0);
    for (i = 0; i < t->p; i++)
        map[i] = base ? base[i] : i;
    if (mode == RTOPO__PLACE_RANK) {
        rtopo__place_say(why, whylen, "rank placement asked for%s%s", "", "");
        return 0;
    }
    hid = malloc(sizeof(int) * (size_t)P);
    cnt = calloc((size_t)P, sizeof(int));
    order = malloc(sizeof(int) * (size_t)P);
    start = malloc(sizeof(int) * (size_t)P);
    fill = calloc((size_t)P, sizeof(int));
    if (!hid || !cnt || !order || !start || !fill)
        goto out;
    /* hosts numbered by the first node (in label order of base) on them */
    for (i = 0; i < P; i++) {
        for (j = 0; j < i && hostof[map[j]] != hostof[map[i]]; j++)
            ;
        hid[i] = j == i ? nh++ : hid[j];
        cnt[hid[i]]++;
    }
    st = 0;
    if (nh < 2) {
        rtopo__place_say(why, whylen, "the nodes are on one host%s%s", "", "");
        goto out;
    }
    for (h = 0; h < nh; h++)
        order[h] = h;
    if (t->kind == RTOPO__TOPO_HYPERCUBE)   /* largest first (stable): aligned blocks */
        for (i = 1; i < nh; i++)
            for (j = i; j > 0 && cnt[order[j]] > cnt[order[j - 1]]; j--) {
                h = order[j];
                order[j] = order[j - 1];
                order[j - 1] = h;
            }
    need[0] = '\0';
    for (i = 0, o = 0; i < nh; o += cnt[order[i]], i++) {
        int c = cnt[order[i]];

        start[order[i]] = o;
        switch (t->kind) {
        case RTOPO__TOPO_MESH:
            ok &= (o % t->cols == 0 && c % t->cols == 0) || o / t->cols == (o + c - 1) / t->cols;
            snprintf(need, sizeof(need), "whole rows of %d ranks or a part of one row",
                     t->cols);
            break;
        case RTOPO__TOPO_HYPERCUBE:
            ok &= (c & (c - 1)) == 0;
            snprintf(need, sizeof(need), "a power of two ranks (a sub-cube)");
            break;
        case RTOPO__TOPO_OTIS_MESH:
        case RTOPO__TOPO_OTIS_HYPERCUBE:
            ok &= c % t->n == 0;
            snprintf(need, sizeof(need), "whole groups of %d ranks", t->n);
            break;
        default:
            break;
        }
    }
    for (h = 0; h < nh && off < sizeof(sizes); h++)
        off += (size_t)snprintf(sizes + off, sizeof(sizes) - off, "%s%d", h ? ", " : "",
                                cnt[h]);
    if (!ok) {
        if (mode == RTOPO__PLACE_HOST) {
            st = rtopo__error(RTOPO_ERR_INVAL, "host placement of the %s of %d ranks needs "
                              "each host to hold %s; its %d hosts hold %s ranks",
                              rtopo__topo_name(t->kind), P, need, nh, sizes);
            goto out;
        }
        rtopo__place_say(why, whylen, "hosts of uneven sizes (%s ranks; each would need "
                         "%s): rank placement", sizes, need);
        goto out;
    }
    {
        int *nodes = malloc(sizeof(int) * (size_t)P);

        if (!nodes) {
            st = RTOPO_ERR_NOMEM;
            goto out;
        }
        memcpy(nodes, map, sizeof(int) * (size_t)P);
        for (i = 0; i < P; i++)
            map[start[hid[i]] + fill[hid[i]]++] = nodes[i];
        free(nodes);
    }
    rtopo__place_say(why, whylen, "placed by host: %s ranks on the hosts%s", sizes, "");
    st = 1;
out:
    free(hid);
    free(cnt);
    free(order);
    free(start);
    free(fill);
    return st;
}

/* ts + chunk * tw of a hop of the given reach under m (the DIRECT class
 * where the reach sets no figure); without reach figures, 0 inside a host
 * and 1 across: the links between hosts are counted */
static double rtopo__place_link(const rtopo__model_t *m, int reach)
{
    unsigned set = m->reach_set[reach];
    double ts, tw;

    if (!m->reach_set[RTOPO__REACH_INTRA] && !m->reach_set[RTOPO__REACH_INTER])
        return reach == RTOPO__REACH_INTER ? 1.0 : 0.0;
    ts = (set & RTOPO__RSET_TS) ? m->reach_ts[reach] : m->ts[RTOPO__LINK_DIRECT];
    tw = (set & RTOPO__RSET_TW) ? m->reach_tw[reach] : m->tw[RTOPO__LINK_DIRECT];
    return ts + (double)m->chunk * tw;
}

double rtopo__place_cost(const rtopo__tdesc_t *t, const int *map, const int *hostof,
                         const rtopo__model_t *m)
{
    double c[RTOPO__REACH_COUNT], sum = 0.0;
    int P = t->p - (t->host ? 1 : 0), nb[64], a, i, n;

    c[RTOPO__REACH_INTRA] = rtopo__place_link(m, RTOPO__REACH_INTRA);
    c[RTOPO__REACH_INTER] = rtopo__place_link(m, RTOPO__REACH_INTER);
    for (a = 0; a < P; a++) {
        n = rtopo__topo_neighbors(t, a, nb, 64);
        for (i = 0; i < n && i < 64; i++)
            if (nb[i] > a && nb[i] < P)     /* each link once; not the host's */
                sum += c[hostof[map[a]] == hostof[map[nb[i]]] ? RTOPO__REACH_INTRA :
                         RTOPO__REACH_INTER];
    }
    return sum;
}

int rtopo__place_auto(const rtopo__tdesc_t *t, const int *base, const int *hostof,
                      const rtopo__model_t *m, int *map, char *why, size_t whylen)
{
    int st = rtopo__place_map(t, base, hostof, RTOPO__PLACE_AUTO, map, why, whylen), i;
    int *rmap;
    double cr, ch;

    if (st != 1 || !m)
        return st;
    if (!(rmap = malloc(sizeof(int) * (size_t)t->p)))
        return rtopo__error(RTOPO_ERR_NOMEM, "placement");
    for (i = 0; i < t->p; i++)
        rmap[i] = base ? base[i] : i;
    cr = rtopo__place_cost(t, rmap, hostof, m);
    ch = rtopo__place_cost(t, map, hostof, m);
    if (cr < ch * (1 - 1e-9)) {     /* a tie keeps the host placement */
        memcpy(map, rmap, sizeof(int) * (size_t)t->p);
        if (why && whylen)
            snprintf(why, whylen, "its links cost %.4g by rank against %.4g by host under "
                     "the model: rank placement", cr, ch);
        st = 0;
    } else if (why && whylen) {
        size_t l = strlen(why);

        snprintf(why + l, whylen - l, " (its links cost %.4g by host, %.4g by rank)", ch, cr);
    }
    free(rmap);
    return st;
}
