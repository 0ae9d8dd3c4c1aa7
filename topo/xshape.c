/*
 * xshape.c - a schedule's table of transfer shapes.
 *
 * A transfer is held as a 20-byte node (src, dst, step, hop0) and an
 * index into its schedule's table of distinct shapes (buffers, offsets,
 * length, route length): a collective on thousands of ranks makes
 * millions of transfers but a few dozen shapes.  The table is the
 * kernels' (graph.c) over rtopo__xshape_t.
 */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

static uint64_t rtopo__xshape_hash(const rtopo__xshape_t *h)
{
    const uint64_t *w = (const uint64_t *)(const void *)h;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    size_t i;

    for (i = 0; i < sizeof(*h) / sizeof(*w); i++) {
        x ^= w[i];
        x *= 0xff51afd7ed558ccdull;
        x ^= x >> 32;
    }
    return x;
}

/* *t_p (may be NULL) in a new block with room for `want` shapes or
 * more (a power of two) and an index of them; 0, or -1 out of memory
 * (*t_p stays) */
static int rtopo__xshapes_grow(rtopo__xshapes_t **t_p, uint32_t want)
{
    rtopo__xshapes_t *t = *t_p, *u;
    uint32_t c = 16, n = t ? t->n : 0, i, *idx;

    while (c < want && c < (1u << 30))
        c *= 2;
    if (c < want || !(u = malloc(sizeof(*u) + (size_t)c * sizeof(u->v[0]) +
                                 (size_t)c * 2 * sizeof(*idx))))
        return -1;
    u->n = n;
    u->cap = c;
    u->last = t ? t->last : UINT32_MAX;
    u->pad = 0;
    if (n)
        memcpy(u->v, t->v, (size_t)n * sizeof(u->v[0]));
    idx = (uint32_t *)(void *)(u->v + c);
    memset(idx, 0, (size_t)c * 2 * sizeof(*idx));
    for (i = 0; i < n; i++) {
        uint32_t j = (uint32_t)rtopo__xshape_hash(&u->v[i]) & (2 * c - 1);

        while (idx[j])
            j = (j + 1) & (2 * c - 1);
        idx[j] = i + 1;
    }
    free(t);
    *t_p = u;
    return 0;
}

uint32_t rtopo__xshapes_put(rtopo__xshapes_t **t_p, const rtopo__xshape_t *h)
{
    rtopo__xshapes_t *t = *t_p;
    uint32_t j, mask, *idx;

    if (t && t->last < t->n && !memcmp(&t->v[t->last], h, sizeof(*h)))
        return t->last;
    if ((!t || !t->cap || t->n == t->cap) && rtopo__xshapes_grow(t_p, t ? t->n + 1 : 1))
        return UINT32_MAX;
    t = *t_p;
    mask = 2 * t->cap - 1;
    idx = (uint32_t *)(void *)(t->v + t->cap);
    for (j = (uint32_t)rtopo__xshape_hash(h) & mask; idx[j]; j = (j + 1) & mask)
        if (!memcmp(&t->v[idx[j] - 1], h, sizeof(*h)))
            return t->last = idx[j] - 1;
    t->v[t->n] = *h;
    idx[j] = t->n + 1;
    return t->last = t->n++;
}

void rtopo__xshapes_done(rtopo__xshapes_t **t_p)
{
    rtopo__xshapes_t *t = *t_p, *u;

    if (!t || !t->cap)
        return;
    t->cap = 0;
    u = realloc(t, sizeof(*t) + (size_t)(t->n ? t->n : 1) * sizeof(t->v[0]));
    if (u)
        *t_p = u;
}

void rtopo__xshapes_free(rtopo__xshapes_t **t_p)
{
    free(*t_p);
    *t_p = NULL;
}

int rtopo__xnode_set(rtopo__xshapes_t **t_p, rtopo__xnode_t *n, const rtopo__xfer_t *x)
{
    rtopo__xshape_t h = rtopo__xfer_shape(x);
    uint32_t i = rtopo__xshapes_put(t_p, &h);

    if (i == UINT32_MAX)
        return rtopo__error(RTOPO_ERR_NOMEM, "transfer shapes");
    n->src = x->src;
    n->dst = x->dst;
    n->step = x->step;
    n->hop0 = x->hop0;
    n->shape = i;
    return RTOPO_OK;
}

int rtopo__sched_xshapes_trim(rtopo__sched_t *s)
{
    rtopo__xshapes_t *t = s->xshapes, *u;
    uint32_t *map, i, n = 0;

    if (!t)
        return RTOPO_OK;
    if (!s->nxfers || !t->n) {
        rtopo__xshapes_free(&s->xshapes);
        return RTOPO_OK;
    }
    if (!(map = malloc((size_t)t->n * sizeof(*map))))
        return rtopo__error(RTOPO_ERR_NOMEM, "transfer shapes");
    memset(map, 0xff, (size_t)t->n * sizeof(*map));
    for (i = 0; i < s->nxfers; i++) {
        uint32_t h = s->xfers[i].shape;

        if (map[h] == UINT32_MAX)
            map[h] = n++;
        s->xfers[i].shape = map[h];
    }
    if (!(u = malloc(sizeof(*u) + (size_t)n * sizeof(u->v[0])))) {
        free(map);
        return rtopo__error(RTOPO_ERR_NOMEM, "transfer shapes");
    }
    u->n = n;
    u->cap = 0;
    u->last = UINT32_MAX;
    u->pad = 0;
    for (i = 0; i < t->n; i++)
        if (map[i] != UINT32_MAX)
            u->v[map[i]] = t->v[i];
    free(map);
    free(t);
    s->xshapes = u;
    return RTOPO_OK;
}
