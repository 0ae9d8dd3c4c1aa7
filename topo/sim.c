/*
 * sim.c - evaluate a schedule under the cost model, and execute its data
 * movement in memory.
 *
 * Routing rule: none; routes are taken as the schedule gives them.
 *
 * Cost formulas, for a transfer of m bytes over h hops of classes c_1..c_h
 * (one link direction = an ordered rank pair (from, to)):
 *  - lock-step load: hops on one link direction in one step; more than
 *    one is contention.
 *  - store-and-forward, lock-step (model_time_sf): sum over steps of the
 *    max over link directions of sum over their hops of ts + m*tw, i.e.
 *    load * (ts + m*tw) for equal sizes.
 *  - cut-through, pipelined (model_time): the larger of
 *      max over transfers of ts(c_1) + m*max_j tw(c_j) + sum_{j>=2} th(c_j)
 *    with th = ts + min(chunk, m)*tw unless set, and
 *      max over link directions of ts + (bytes crossing it in the whole
 *      schedule)*tw,
 *    because pipelined transfers overlap in time and share the links they
 *    cross.  A copy inside a rank costs ts + m*tw of LINK_LOCAL (0 by
 *    default) and is not a step.
 * Evaluation buckets the hops by step and hashes link directions: O(H).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

double rtopo__model_th(const rtopo__model_t *m, int link, uint64_t bytes)
{
    uint64_t c = m->chunk && m->chunk < bytes ? m->chunk : bytes;

    if (m->th[link] >= 0)
        return m->th[link];
    return m->ts[link] + (double)c * m->tw[link];
}

/* link directions (from, to) seen in a schedule, numbered densely:
 * open addressing, grown at half load */
typedef struct rtopo__linkmap {
    uint64_t *key;      /* (from << 32 | to) + 1; 0 = empty */
    uint32_t *id;
    uint32_t cap;       /* power of two */
    uint32_t n;
} rtopo__linkmap_t;

static inline uint32_t rtopo__linkmap_slot(uint64_t key, uint32_t cap)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static int rtopo__linkmap_grow(rtopo__linkmap_t *m)
{
    uint32_t cap = m->cap ? m->cap * 2 : 1024, i;
    uint64_t *key = calloc(cap, sizeof(*key));
    uint32_t *id = malloc(cap * sizeof(*id));

    if (!key || !id || cap < m->cap) {
        free(key);
        free(id);
        return RTOPO_ERR_NOMEM;
    }
    for (i = 0; i < m->cap; i++) {
        uint32_t j;

        if (!m->key[i])
            continue;
        for (j = rtopo__linkmap_slot(m->key[i], cap); key[j]; j = (j + 1) & (cap - 1))
            ;
        key[j] = m->key[i];
        id[j] = m->id[i];
    }
    free(m->key);
    free(m->id);
    m->key = key;
    m->id = id;
    m->cap = cap;
    return RTOPO_OK;
}

/* dense id of link direction from -> to; *fresh set when first seen */
static inline uint32_t rtopo__linkmap_get(rtopo__linkmap_t *m, int32_t from,
                                          int32_t to, int *fresh)
{
    uint64_t key = ((uint64_t)(uint32_t)from << 32 | (uint32_t)to) + 1;
    uint32_t j;

    for (j = rtopo__linkmap_slot(key, m->cap); m->key[j]; j = (j + 1) & (m->cap - 1))
        if (m->key[j] == key) {
            *fresh = 0;
            return m->id[j];
        }
    m->key[j] = key;
    m->id[j] = m->n;
    *fresh = 1;
    return m->n++;
}

/* per link direction: totals over the schedule, state of its last step */
typedef struct rtopo__linkstate {
    double sum;         /* sum of m*tw over the schedule */
    double tsmax;
    double cost;        /* sum of ts + m*tw within last_step */
    uint32_t last_step;
    uint32_t load;      /* hops within last_step */
} rtopo__linkstate_t;

typedef struct rtopo__sim_ent {
    uint32_t xfer;
    uint32_t hop;       /* global hop index */
    int32_t from;
} rtopo__sim_ent_t;

/* ranks, buffers, hop ranges and link classes in bounds: enough for the
 * simulator not to read out of bounds (validate() checks the rest) */
static int rtopo__sim_check(const rtopo__sched_t *s)
{
    uint32_t i, j;

    if (!s || s->topo.p < 1 || (s->nxfers && !s->xfers) || (s->nhops && !s->hops))
        return rtopo__error(RTOPO_ERR_INVAL, "no schedule");
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t *x = &s->xfers[i];

        if (x->src < 0 || x->src >= s->topo.p || x->dst < 0 ||
            x->dst >= s->topo.p || x->src_buf >= RTOPO__BUF_COUNT ||
            x->dst_buf >= RTOPO__BUF_COUNT || x->hop0 > s->nhops ||
            x->nhops > s->nhops - x->hop0)
            return rtopo__error(RTOPO_ERR_INVAL, "xfer %u out of range", i);
        if (x->src_off > UINT64_MAX - x->len || x->dst_off > UINT64_MAX - x->len)
            return rtopo__error(RTOPO_ERR_INVAL, "xfer %u: offset + length "
                                "overflows", i);
        if (!x->nhops && x->src != x->dst)
            return rtopo__error(RTOPO_ERR_INVAL, "xfer %u: no hops from %d to "
                                "%d", i, x->src, x->dst);
        for (j = 0; j < x->nhops; j++) {
            const rtopo__hop_t *h = &s->hops[x->hop0 + j];

            if (h->to < 0 || h->to >= s->topo.p || h->link >= RTOPO__LINK_COUNT)
                return rtopo__error(RTOPO_ERR_INVAL, "xfer %u hop %u out of "
                                    "range", i, j);
        }
        if (x->nhops && s->hops[x->hop0 + x->nhops - 1].to != x->dst)
            return rtopo__error(RTOPO_ERR_INVAL, "xfer %u: route does not end "
                                "at %d", i, x->dst);
    }
    return RTOPO_OK;
}

int rtopo__sim_run(const rtopo__sched_t *s, const rtopo__model_t *m,
                   rtopo__sim_result_t *r)
{
    rtopo__linkmap_t map = { NULL, NULL, 0, 0 };
    rtopo__linkstate_t *ls = NULL;
    rtopo__sim_ent_t *ent = NULL;
    uint32_t *first = NULL, i, j, t, nsteps = 0, ls_cap = 0;
    double *stepmax = NULL, ct = 0.0, sf = 0.0, local = 0.0;
    rtopo__sim_result_t res;
    rtopo__model_t def;
    int status;

    if (!r)
        return rtopo__error(RTOPO_ERR_INVAL, "no result");
    status = rtopo__sim_check(s);
    if (status)
        return status;
    if (!m) {
        rtopo__model_default(&def);
        m = &def;
    }
    memset(&res, 0, sizeof(res));
    res.correct = -1;
    for (i = 0; i < s->nhops; i++)
        if (s->hops[i].step + 1 > nsteps)
            nsteps = s->hops[i].step + 1;
    status = RTOPO_ERR_NOMEM;
    ent = malloc((s->nhops ? s->nhops : 1) * sizeof(*ent));
    first = calloc((size_t)nsteps + 1, sizeof(*first));
    stepmax = calloc((size_t)nsteps + 1, sizeof(*stepmax));
    if (!ent || !first || !stepmax || rtopo__linkmap_grow(&map)) {
        rtopo__error(status, "simulating %u hops", s->nhops);
        goto out;
    }
    /* per transfer: route cost, length, moves; hops counted per step */
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t *x = &s->xfers[i];
        double c, tw = 0.0;

        if (!x->nhops) {
            c = m->ts[RTOPO__LINK_LOCAL] + (double)x->len * m->tw[RTOPO__LINK_LOCAL];
            local = c > local ? c : local;
            ct = c > ct ? c : ct;
            res.moves[RTOPO__LINK_LOCAL]++;
            continue;
        }
        c = m->ts[s->hops[x->hop0].link];
        for (j = 0; j < x->nhops; j++) {
            const rtopo__hop_t *h = &s->hops[x->hop0 + j];

            if (m->tw[h->link] > tw)
                tw = m->tw[h->link];
            if (j)
                c += rtopo__model_th(m, h->link, x->len);
            res.moves[h->link]++;
            first[h->step + 1]++;
        }
        c += (double)x->len * tw;
        ct = c > ct ? c : ct;
        if (x->nhops > res.longest_path)
            res.longest_path = x->nhops;
    }
    /* bucket the hops by step (counting sort): step t is
     * ent[first[t]..first[t+1]) once the fill below has shifted first[] */
    for (t = 0; t < nsteps; t++)
        first[t + 1] += first[t];
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t *x = &s->xfers[i];
        int32_t from = x->src;

        for (j = 0; j < x->nhops; j++) {
            const rtopo__hop_t *h = &s->hops[x->hop0 + j];
            rtopo__sim_ent_t *e = &ent[first[h->step]++];

            e->xfer = i;
            e->hop = x->hop0 + j;
            e->from = from;
            from = h->to;
        }
    }
    /* first[t] is now the end of step t; walk the steps in order so the
     * per-link state of a step is complete before the next begins */
    for (t = 0, j = 0; t < nsteps; t++) {
        for (; j < first[t]; j++) {
            const rtopo__hop_t *h = &s->hops[ent[j].hop];
            uint64_t len = s->xfers[ent[j].xfer].len;
            double w = (double)len * m->tw[h->link];
            rtopo__linkstate_t *l;
            uint32_t id;
            int fresh;

            if (map.n * 2 >= map.cap && rtopo__linkmap_grow(&map)) {
                rtopo__error(status, "link table");
                goto out;
            }
            id = rtopo__linkmap_get(&map, ent[j].from, h->to, &fresh);
            if (id >= ls_cap) {
                uint32_t cap = ls_cap ? ls_cap * 2 : 1024;
                rtopo__linkstate_t *n = realloc(ls, cap * sizeof(*ls));

                if (!n) {
                    rtopo__error(status, "link state");
                    goto out;
                }
                ls = n;
                ls_cap = cap;
            }
            l = &ls[id];
            if (fresh)
                memset(l, 0, sizeof(*l));
            if (fresh || l->last_step != t) {
                l->last_step = t;
                l->load = 0;
                l->cost = 0.0;
            }
            l->load++;
            l->cost += m->ts[h->link] + w;
            l->sum += w;
            if (m->ts[h->link] > l->tsmax)
                l->tsmax = m->ts[h->link];
            if (l->load > res.max_link_load)
                res.max_link_load = l->load;
            if (l->cost > stepmax[t])
                stepmax[t] = l->cost;
        }
    }
    /* pipelined transfers share each link direction over the schedule */
    for (i = 0; i < map.n; i++)
        if (ls[i].tsmax + ls[i].sum > ct)
            ct = ls[i].tsmax + ls[i].sum;
    for (t = 0; t < nsteps; t++)
        sf += stepmax[t];
    res.steps = nsteps;
    res.model_time = ct;
    res.model_time_sf = sf + local;
    *r = res;
    status = RTOPO_OK;
out:
    free(map.key);
    free(map.id);
    free(ls);
    free(stepmax);
    free(first);
    free(ent);
    return status;
}

typedef struct rtopo__exec_ent {
    uint32_t xfer;
    uint32_t hop;     /* index within the route */
} rtopo__exec_ent_t;

static int rtopo__exec_range(const rtopo__sched_t *s, uint8_t *const *const *bufs,
                             const uint64_t *size, uint32_t i, int rank, int buf,
                             uint64_t off, uint64_t len)
{
    if (!bufs[rank] || (len && !bufs[rank][buf]))
        return rtopo__error(RTOPO_ERR_INVAL, "xfer %u: rank %d has no buffer "
                            "%d", i, rank, buf);
    if (size && (off > size[buf] || len > size[buf] - off))
        return rtopo__error(RTOPO_ERR_INVAL, "xfer %u: rank %d buffer %d range "
                            "%llu+%llu beyond %llu", i, rank, buf,
                            (unsigned long long)off, (unsigned long long)len,
                            (unsigned long long)size[buf]);
    return RTOPO_OK;
}

static void rtopo__exec_local(const rtopo__xfer_t *x, uint8_t *const *const *bufs)
{
    if (x->len)
        memmove(bufs[x->dst][x->dst_buf] + x->dst_off,
                bufs[x->src][x->src_buf] + x->src_off, x->len);
}

int rtopo__sim_exec_sized(const rtopo__sched_t *s, uint8_t *const *const *bufs,
                          const uint64_t size[RTOPO__BUF_COUNT])
{
    rtopo__exec_ent_t *ent = NULL;
    uint32_t *first = NULL, nsteps = 0, i, j, t;
    uint64_t *stage = NULL, arena_len = 0;
    uint8_t *arena = NULL;
    int status;

    status = rtopo__sim_check(s);
    if (status)
        return status;
    if (!bufs)
        return rtopo__error(RTOPO_ERR_INVAL, "no buffers");
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t *x = &s->xfers[i];

        status = rtopo__exec_range(s, bufs, size, i, x->src, x->src_buf,
                                   x->src_off, x->len);
        if (!status)
            status = rtopo__exec_range(s, bufs, size, i, x->dst, x->dst_buf,
                                       x->dst_off, x->len);
        if (status)
            return status;
        for (j = 0; j < x->nhops; j++)
            if (s->hops[x->hop0 + j].step + 1 > nsteps)
                nsteps = s->hops[x->hop0 + j].step + 1;
        if (x->nhops) {
            /* two staging slots: the copy on the rank a hop leaves and the
             * copy on the rank it reaches */
            if (x->len > (UINT64_MAX - arena_len) / 2 ||
                arena_len + 2 * x->len > SIZE_MAX)
                return rtopo__error(RTOPO_ERR_NOMEM, "staging overflows");
            arena_len += 2 * x->len;
        }
    }
    stage = malloc((s->nxfers ? s->nxfers : 1) * sizeof(*stage));
    first = calloc((size_t)nsteps + 1, sizeof(*first));
    ent = malloc((s->nhops ? s->nhops : 1) * sizeof(*ent));
    arena = malloc(arena_len ? arena_len : 1);
    if (!stage || !first || !ent || !arena) {
        status = rtopo__error(RTOPO_ERR_NOMEM, "staging for %u transfers "
                              "(%llu bytes)", s->nxfers,
                              (unsigned long long)arena_len);
        goto out;
    }
    /* bucket the hops by step (counting sort) */
    for (i = 0; i < s->nxfers; i++)
        for (j = 0; j < s->xfers[i].nhops; j++)
            first[s->hops[s->xfers[i].hop0 + j].step + 1]++;
    for (t = 0; t < nsteps; t++)
        first[t + 1] += first[t];
    arena_len = 0;
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t *x = &s->xfers[i];

        stage[i] = arena_len;
        if (x->nhops)
            arena_len += 2 * x->len;
        for (j = 0; j < x->nhops; j++) {
            uint32_t st = s->hops[x->hop0 + j].step;

            ent[first[st]].xfer = i;
            ent[first[st]].hop = j;
            first[st]++;
        }
    }
    /* first[t] now ends bucket t; bucket t starts at first[t-1] (0 for t 0) */
    for (i = 0; i < s->nxfers; i++)
        if (!s->xfers[i].nhops && s->xfers[i].src_buf == RTOPO__BUF_SEND)
            rtopo__exec_local(&s->xfers[i], bufs);
    for (t = 0; t < nsteps; t++) {
        uint32_t b = t ? first[t - 1] : 0, e = first[t];

        /* reads first, so a transfer sees only earlier steps' writes */
        for (j = b; j < e; j++) {
            const rtopo__xfer_t *x = &s->xfers[ent[j].xfer];

            if (ent[j].hop == 0 && x->len)
                memcpy(arena + stage[ent[j].xfer],
                       bufs[x->src][x->src_buf] + x->src_off, x->len);
        }
        /* forward: slot hop%2 (rank left) -> slot (hop+1)%2 (rank reached) */
        for (j = b; j < e; j++) {
            const rtopo__xfer_t *x = &s->xfers[ent[j].xfer];
            uint8_t *base = arena + stage[ent[j].xfer];

            if (x->len)
                memcpy(base + ((ent[j].hop + 1) % 2) * x->len,
                       base + (ent[j].hop % 2) * x->len, x->len);
        }
        for (j = b; j < e; j++) {
            const rtopo__xfer_t *x = &s->xfers[ent[j].xfer];

            if (ent[j].hop == x->nhops - 1 && x->len)
                memcpy(bufs[x->dst][x->dst_buf] + x->dst_off,
                       arena + stage[ent[j].xfer] + (x->nhops % 2) * x->len,
                       x->len);
        }
    }
    for (i = 0; i < s->nxfers; i++)
        if (!s->xfers[i].nhops && s->xfers[i].src_buf != RTOPO__BUF_SEND)
            rtopo__exec_local(&s->xfers[i], bufs);
    status = RTOPO_OK;
out:
    free(arena);
    free(ent);
    free(first);
    free(stage);
    return status;
}

int rtopo__sim_exec(const rtopo__sched_t *s, uint8_t *const *const *bufs)
{
    return rtopo__sim_exec_sized(s, bufs, NULL);
}
