/*
 * shapes.c - a schedule's tables of node shapes.
 *
 * A transfer or a kernel is held as a 20-byte node (ranks, step, ...)
 * and an index into its schedule's table of distinct shapes (buffers,
 * offsets, lengths, ...): a collective on thousands of ranks makes
 * millions of nodes but a few dozen shapes.  One interning table serves
 * both kinds (rtopo__shapes_t); the typed views of rtopo_sched.h share
 * its header.
 */
#include "config.h"
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

/* a shape's hash over its 64-bit words (shapes are zeroed where they
 * hold nothing, so equal shapes hash alike) */
static uint64_t rtopo__shape_hash(const void *h, size_t esz)
{
    const uint64_t *w = h;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    size_t i;

    for (i = 0; i < esz / sizeof(*w); i++) {
        x ^= w[i];
        x *= 0xff51afd7ed558ccdull;
        x ^= x >> 32;
    }
    return x;
}

static inline void *rtopo__shape_at(const rtopo__shapes_t *t, uint32_t i)
{
    return (char *)(void *)t->v + (size_t)i * t->esz;
}

/* the index after cap shapes: 2 * cap slots of shape + 1, or 0 */
static inline uint32_t *rtopo__shapes_idx(const rtopo__shapes_t *t)
{
    return (uint32_t *)rtopo__shape_at(t, t->cap);
}

/* *t_p (may be NULL) in a new block with room for `want` shapes of esz
 * bytes or more (a power of two) and an index of them; 0, or -1 out of
 * memory (*t_p stays) */
static int rtopo__shapes_grow(rtopo__shapes_t **t_p, uint32_t want, size_t esz)
{
    rtopo__shapes_t *t = *t_p, *u;
    uint32_t c = 16, n = t ? t->n : 0, i, *idx;

    while (c < want && c < (1u << 30))
        c *= 2;
    if (c < want || !(u = malloc(sizeof(*u) + (size_t)c * esz + (size_t)c * 2 * sizeof(*idx))))
        return -1;
    u->n = n;
    u->cap = c;
    u->esz = (uint32_t)esz;
    u->next = t ? t->next : 0;
    if (t)
        memcpy(u->last, t->last, sizeof(u->last));
    else
        memset(u->last, 0, sizeof(u->last));
    if (n)
        memcpy(u->v, t->v, (size_t)n * esz);
    idx = rtopo__shapes_idx(u);
    memset(idx, 0, (size_t)c * 2 * sizeof(*idx));
    for (i = 0; i < n; i++) {
        uint32_t j = (uint32_t)rtopo__shape_hash(rtopo__shape_at(u, i), esz) & (2 * c - 1);

        while (idx[j])
            j = (j + 1) & (2 * c - 1);
        idx[j] = i + 1;
    }
    free(t);
    *t_p = u;
    return 0;
}

/* are the esz-byte shapes a and b equal?  Word by word, inline, out at
 * the first word that differs (a put compares a few shapes per node, most
 * of them differing early; a shape is whole 64-bit words) */
static inline int rtopo__shape_eq(const void *a, const void *b, size_t esz)
{
    uint64_t x, y;
    size_t i;

    for (i = 0; i < esz; i += sizeof(x)) {
        memcpy(&x, (const char *)a + i, sizeof(x));
        memcpy(&y, (const char *)b + i, sizeof(y));
        if (x != y)
            return 0;
    }
    return 1;
}

/* h's index, remembered among the last ones */
static inline uint32_t rtopo__shapes_seen(rtopo__shapes_t *t, uint32_t i)
{
    t->last[t->next] = i + 1;
    t->next = (t->next + 1) % RTOPO__SHAPES_RECENT;
    return i;
}

static inline uint32_t rtopo__shapes_put_sz(rtopo__shapes_t **t_p, const void *h, size_t esz)
{
    rtopo__shapes_t *t = *t_p;
    uint32_t j, mask, *idx;

    if ((t && t->esz != esz) || !esz || esz % sizeof(uint64_t))
        return UINT32_MAX;
    /* one of the last few shapes, found without hashing */
    for (j = 0; t && j < RTOPO__SHAPES_RECENT; j++)
        if (t->last[j] && t->last[j] <= t->n &&
            rtopo__shape_eq(rtopo__shape_at(t, t->last[j] - 1), h, esz))
            return t->last[j] - 1;
    if ((!t || !t->cap || t->n == t->cap) && rtopo__shapes_grow(t_p, t ? t->n + 1 : 1, esz))
        return UINT32_MAX;
    t = *t_p;
    mask = 2 * t->cap - 1;
    idx = rtopo__shapes_idx(t);
    for (j = (uint32_t)rtopo__shape_hash(h, esz) & mask; idx[j]; j = (j + 1) & mask)
        if (rtopo__shape_eq(rtopo__shape_at(t, idx[j] - 1), h, esz))
            return rtopo__shapes_seen(t, idx[j] - 1);
    memcpy(rtopo__shape_at(t, t->n), h, esz);
    idx[j] = t->n + 1;
    return rtopo__shapes_seen(t, t->n++);
}

uint32_t rtopo__shapes_put(rtopo__shapes_t **t_p, const void *h, size_t esz)
{
    /* the two sizes the schedules use, each with its size known to the
     * compiler (the comparisons and the hash unrolled) */
    if (esz == sizeof(rtopo__kshape_t))
        return rtopo__shapes_put_sz(t_p, h, sizeof(rtopo__kshape_t));
    if (esz == sizeof(rtopo__xshape_t))
        return rtopo__shapes_put_sz(t_p, h, sizeof(rtopo__xshape_t));
    return rtopo__shapes_put_sz(t_p, h, esz);
}

void rtopo__shapes_done(rtopo__shapes_t **t_p)
{
    rtopo__shapes_t *t = *t_p, *u;

    if (!t || !t->cap)
        return;
    t->cap = 0;
    u = realloc(t, sizeof(*t) + (size_t)(t->n ? t->n : 1) * t->esz);
    if (u)
        *t_p = u;
}

void rtopo__shapes_free(rtopo__shapes_t **t_p)
{
    free(*t_p);
    *t_p = NULL;
}

int rtopo__shapes_trim(rtopo__shapes_t **t_p, void *nodes, uint32_t nn, size_t stride,
                       size_t off)
{
    rtopo__shapes_t *t = *t_p, *u;
    uint32_t *map, i, n = 0;

    if (!t)
        return RTOPO_OK;
    if (!nn || !t->n) {
        rtopo__shapes_free(t_p);
        return RTOPO_OK;
    }
    if (!(map = malloc((size_t)t->n * sizeof(*map))))
        return rtopo__error(RTOPO_ERR_NOMEM, "node shapes");
    memset(map, 0xff, (size_t)t->n * sizeof(*map));
    for (i = 0; i < nn; i++) {
        char *f = (char *)nodes + (size_t)i * stride + off;
        uint32_t h;

        memcpy(&h, f, sizeof(h));
        if (map[h] == UINT32_MAX)
            map[h] = n++;
        memcpy(f, &map[h], sizeof(h));
    }
    if (!(u = malloc(sizeof(*u) + (size_t)n * t->esz))) {
        free(map);
        return rtopo__error(RTOPO_ERR_NOMEM, "node shapes");
    }
    u->n = n;
    u->cap = 0;
    u->esz = t->esz;
    u->next = 0;
    memset(u->last, 0, sizeof(u->last));
    for (i = 0; i < t->n; i++)
        if (map[i] != UINT32_MAX)
            memcpy(rtopo__shape_at(u, map[i]), rtopo__shape_at(t, i), t->esz);
    free(map);
    free(t);
    *t_p = u;
    return RTOPO_OK;
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

int rtopo__knode_set(rtopo__kshapes_t **t_p, rtopo__knode_t *n, const rtopo__kern_t *k)
{
    rtopo__kshape_t h = rtopo__kern_shape(k);
    uint32_t i = rtopo__kshapes_put(t_p, &h);

    if (i == UINT32_MAX)
        return rtopo__error(RTOPO_ERR_NOMEM, "kernel shapes");
    n->rank = k->rank;
    n->step = k->step;
    n->shape = i;
    n->arg_lo = (uint32_t)(uint64_t)k->arg;
    n->arg_hi = (uint32_t)((uint64_t)k->arg >> 32);
    return RTOPO_OK;
}

int rtopo__sched_xshapes_trim(rtopo__sched_t *s)
{
    rtopo__shapes_t *g = (rtopo__shapes_t *)(void *)s->xshapes;
    int st = rtopo__shapes_trim(&g, s->xfers, s->nxfers, sizeof(*s->xfers),
                                offsetof(rtopo__xnode_t, shape));

    s->xshapes = (rtopo__xshapes_t *)(void *)g;
    return st;
}

int rtopo__sched_kshapes_trim(rtopo__sched_t *s)
{
    rtopo__shapes_t *g = (rtopo__shapes_t *)(void *)s->kshapes;
    int st = rtopo__shapes_trim(&g, s->kerns, s->nkerns, sizeof(*s->kerns),
                                offsetof(rtopo__knode_t, shape));

    s->kshapes = (rtopo__kshapes_t *)(void *)g;
    return st;
}
