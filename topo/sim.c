/*
 * sim.c - run a schedule's graph under the cost model, event by event,
 * and execute its data movement in memory in the same order.
 *
 * Routing rule: none; routes are taken as the schedule gives them.
 *
 * Cost formulas, for a transfer of m bytes over h hops of classes c_1..c_h
 * (one link direction = an ordered rank pair (from, to)):
 *  - model_time: the graph runs event by event (rtopo_sched.h says how):
 *    nodes start when their edges are released, hops queue first come
 *    first served for their link direction (ts + m*tw of its class) and
 *    hop j+1 asks th after hop j was granted, so an uncontended route
 *    costs ts + m*tw + (h-1)*th with th = ts + min(chunk, m)*tw unless
 *    set; a rank's ports (one by default) serialize what it injects and
 *    what it absorbs, and `lanes`, when set, is how many hops move at once
 *    in the whole schedule (ranks sharing one machine's processors and
 *    memory: 1 makes every hop wait for the one before); a kernel or copy
 *    that costs anything then also takes a lane (processors' work).  tq,
 *    when set, adds to the start-up of every hop and the th of every
 *    further hop but LOCAL ones (a machine with more ranks than
 *    processors: a message waits for its receiver to be scheduled).  tt,
 *    when set, is the same wait where the sender does not take part in
 *    it: the last hop lands tt after its ts + m*tw and a further hop of
 *    a route asks tt after th, but the hop holds its link, ports and lane
 *    only for ts + m*tw (an eager message leaves its sender at once; a
 *    rank that forwards what it received waits for its turn); a transfer
 *    longer than `eager` (when set) holds them tt longer as well (its
 *    sender waits for the receiver's answer).  With
 *    a layout,
 *    a hop between two hosts also takes one of the `hostlinks` links out
 *    of its sender's host (one by default: a host's ranks share its link
 *    to the others, which the inter-host pair, calibrated alone, does not
 *    show).  The way in is left to the receiver's ports: holding a link
 *    at both ends, first come first served without filling gaps, leaves
 *    both idle in turn and costs a symmetric exchange several times its
 *    time.  One-port sequential sends of p blocks cost
 *    p(ts + m*tw); recursive halving costs d*ts + (p-1)*m*tw.
 *  - lock-step load: hops on one link direction in one step; more than
 *    one is contention.
 *  - store-and-forward, lock-step (model_time_sf): sum over steps of the
 *    max over link directions of sum over their hops of ts + m*tw, i.e.
 *    load * (ts + m*tw) for equal sizes, plus the local nodes.
 * Evaluation: O(E log E) for E events (nodes + hops + edges).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

/* tq, which every hop pays but a LOCAL one */
static double rtopo__model_tq(const rtopo__model_t *m, int link)
{
    return link == RTOPO__LINK_LOCAL ? 0.0 : m->tq;
}

double rtopo__model_th(const rtopo__model_t *m, int link, uint64_t bytes)
{
    uint64_t c = m->chunk && m->chunk < bytes ? m->chunk : bytes;

    if (m->th[link] >= 0)
        return m->th[link] + rtopo__model_tq(m, link);
    return m->ts[link] + (double)c * m->tw[link] + rtopo__model_tq(m, link);
}

/* the reach whose parameters a hop of class `link` from a to b takes, or
 * -1: its class's (rtopo_sched.h, rtopo__model_hop) */
static int rtopo__hop_reach(const rtopo__model_t *m, int link, int32_t a, int32_t b)
{
    const rtopo__layout_t *l = m->layout;
    int r;

    if (!l || link == RTOPO__LINK_LOCAL || link == RTOPO__LINK_HOST || a < 0 || b < 0 ||
        (uint32_t)a >= l->nranks || (uint32_t)b >= l->nranks)
        return -1;
    r = rtopo__layout_reach(l, a, b);
    return m->reach_set[r] ? r : -1;
}

void rtopo__model_hop(const rtopo__model_t *m, int link, int32_t a, int32_t b,
                      double *ts_p, double *tw_p)
{
    int r = rtopo__hop_reach(m, link, a, b);

    *ts_p = (r >= 0 && (m->reach_set[r] & RTOPO__RSET_TS) ? m->reach_ts[r] : m->ts[link]) +
            rtopo__model_tq(m, link);
    *tw_p = r >= 0 && (m->reach_set[r] & RTOPO__RSET_TW) ? m->reach_tw[r] : m->tw[link];
}

double rtopo__model_hop_th(const rtopo__model_t *m, int link, int32_t a, int32_t b,
                           uint64_t bytes)
{
    int r = rtopo__hop_reach(m, link, a, b);
    uint64_t c = m->chunk && m->chunk < bytes ? m->chunk : bytes;
    double ts, tw;

    if (r < 0)
        return rtopo__model_th(m, link, bytes);
    if (m->reach_set[r] & RTOPO__RSET_TH) {
        if (m->reach_th[r] >= 0)
            return m->reach_th[r] + rtopo__model_tq(m, link);
    } else if (m->th[link] >= 0) {
        return m->th[link] + rtopo__model_tq(m, link);
    }
    rtopo__model_hop(m, link, a, b, &ts, &tw);     /* ts with tq */
    return ts + (double)c * tw;
}

void rtopo__model_floor(const rtopo__model_t *m, uint64_t bytes, double *ts_p, double *tw_p,
                        double *th_p)
{
    uint64_t c = m->chunk && m->chunk < bytes ? m->chunk : bytes;
    double ts = 1e300, tw = 1e300, th = 1e300, v;
    int k;

    for (k = RTOPO__LINK_LOCAL + 1; k < RTOPO__LINK_COUNT; k++) {
        v = rtopo__model_th(m, k, bytes);
        ts = m->ts[k] < ts ? m->ts[k] : ts;
        tw = m->tw[k] < tw ? m->tw[k] : tw;
        th = v < th ? v : th;
    }
    for (k = 0; m->layout && k < RTOPO__REACH_COUNT; k++) {
        if ((m->reach_set[k] & RTOPO__RSET_TS) && m->reach_ts[k] < ts)
            ts = m->reach_ts[k];
        if ((m->reach_set[k] & RTOPO__RSET_TW) && m->reach_tw[k] < tw)
            tw = m->reach_tw[k];
        if ((m->reach_set[k] & RTOPO__RSET_TH) && m->reach_th[k] >= 0 &&
            m->reach_th[k] + m->tq < th)
            th = m->reach_th[k] + m->tq;
    }
    /* every hop considered pays tq (th's have it already) */
    ts += m->tq;
    /* a th derived from a mix of reach and class parameters */
    v = ts + (double)c * tw;
    *ts_p = ts;
    *tw_p = tw;
    *th_p = v < th ? v : th;
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

/* the id of link direction from -> to, or nid when first seen (*fresh
 * set; m->n counts the entries) */
static inline uint32_t rtopo__linkmap_put(rtopo__linkmap_t *m, int32_t from, int32_t to,
                                          uint32_t nid, int *fresh)
{
    uint64_t key = ((uint64_t)(uint32_t)from << 32 | (uint32_t)to) + 1;
    uint32_t j;

    for (j = rtopo__linkmap_slot(key, m->cap); m->key[j]; j = (j + 1) & (m->cap - 1))
        if (m->key[j] == key) {
            *fresh = 0;
            return m->id[j];
        }
    m->key[j] = key;
    m->id[j] = nid;
    m->n++;
    *fresh = 1;
    return nid;
}

/* dense id of link direction from -> to; *fresh set when first seen */
static inline uint32_t rtopo__linkmap_get(rtopo__linkmap_t *m, int32_t from,
                                          int32_t to, int *fresh)
{
    return rtopo__linkmap_put(m, from, to, m->n, fresh);
}

/* per link direction: state of its last step */
typedef struct rtopo__linkstate {
    double cost;        /* sum of ts + m*tw within last_step */
    uint32_t last_step;
    uint32_t load;      /* hops within last_step */
} rtopo__linkstate_t;

typedef struct rtopo__sim_ent {
    uint32_t xfer;
    uint32_t hop;       /* global hop index */
    int32_t from;
} rtopo__sim_ent_t;

static int rtopo__des(const rtopo__sched_t *s, const rtopo__model_t *m,
                      uint8_t *const *const *bufs, uint32_t **links, uint32_t *nlinks,
                      double *makespan);
static int rtopo__hop_links(const rtopo__sched_t *s, uint32_t **hl_p, uint32_t *nl_p);

/* ranks, buffers, hop ranges and link classes in bounds: enough for the
 * simulator not to read out of bounds (validate() checks the rest) */
static int rtopo__sim_check(const rtopo__sched_t *s)
{
    uint32_t i, j;

    if (!s || s->topo.p < 1 || (s->nxfers && !s->xfers) || (s->nhops && !s->hops))
        return rtopo__error(RTOPO_ERR_INVAL, "no schedule");
    for (i = 0; i < s->nxfers; i++) {
        rtopo__xfer_t xv;
        const rtopo__xfer_t *x = &xv;

        if (s->xfers[i].shape >= rtopo__sched_nxshapes(s))
            return rtopo__error(RTOPO_ERR_INVAL, "xfer %u out of range", i);
        xv = rtopo__sched_xfer(s, i);
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
    if ((s->nkerns && !s->kerns) || (s->ndeps && !s->deps))
        return rtopo__error(RTOPO_ERR_INVAL, "schedule arrays missing");
    for (i = 0; i < s->nkerns; i++)
        if (s->kerns[i].rank < 0 || s->kerns[i].rank >= s->topo.p ||
            s->kerns[i].shape >= rtopo__sched_nkshapes(s))
            return rtopo__error(RTOPO_ERR_INVAL, "kernel %u out of range", i);
    for (i = 0; i < s->ndeps; i++) {
        const rtopo__dep_t *d = &s->deps[i];

        if (d->rank < 0 || d->rank >= s->topo.p || d->pred >= s->nxfers + s->nkerns ||
            d->succ >= s->nxfers + s->nkerns)
            return rtopo__error(RTOPO_ERR_INVAL, "edge %u out of range", i);
    }
    return RTOPO_OK;
}

/* rtopo__sim_run, moving the data of bufs too when bufs is not NULL (s
 * then checked already by the caller, rtopo__sim_check); with known, the
 * event-by-event time is *known and the graph is not run */
static int rtopo__sim_run_known(const rtopo__sched_t *s, const rtopo__model_t *m,
                                uint8_t *const *const *bufs, const double *known,
                                rtopo__sim_result_t *r);

static int rtopo__sim_run_bufs(const rtopo__sched_t *s, const rtopo__model_t *m,
                               uint8_t *const *const *bufs, rtopo__sim_result_t *r)
{
    return rtopo__sim_run_known(s, m, bufs, NULL, r);
}

static int rtopo__sim_run_known(const rtopo__sched_t *s, const rtopo__model_t *m,
                                uint8_t *const *const *bufs, const double *known,
                                rtopo__sim_result_t *r)
{
    rtopo__linkstate_t *ls = NULL;
    rtopo__sim_ent_t *ent = NULL;
    uint32_t *first = NULL, *hl = NULL, i, j, t, nsteps = 0, nl = 0;
    double *stepmax = NULL, ct = 0.0, sf = 0.0, local = 0.0;
    rtopo__sim_result_t res;
    rtopo__model_t def;
    int status;

    if (!r)
        return rtopo__error(RTOPO_ERR_INVAL, "no result");
    status = bufs ? RTOPO_OK : rtopo__sim_check(s);
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
    /* the link directions, numbered once for both runs: a deferred
     * graph's replay numbers them once its edges are placed, not beside
     * the inference's scratch (4 bytes a hop less at its peak), and hands
     * them to the lock-step run, which comes after it */
    if (s->deferred && !known) {
        if ((status = rtopo__des(s, m, bufs, &hl, &nl, &ct)))
            goto out;
    } else if ((status = rtopo__hop_links(s, &hl, &nl))) {
        goto out;
    }
    status = RTOPO_ERR_NOMEM;
    ent = malloc((s->nhops ? s->nhops : 1) * sizeof(*ent));
    first = calloc((size_t)nsteps + 1, sizeof(*first));
    stepmax = calloc((size_t)nsteps + 1, sizeof(*stepmax));
    if (!ent || !first || !stepmax) {
        rtopo__error(status, "simulating %u hops", s->nhops);
        goto out;
    }
    rtopo__sched_big(ent, (s->nhops ? s->nhops : 1) * sizeof(*ent));
    ls = calloc((size_t)nl + 1, sizeof(*ls));
    if (!ls) {
        rtopo__error(status, "link state");
        goto out;
    }
    /* per transfer: length, moves; hops counted per step */
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
        int32_t from = x->src;
        double c;

        if (!x->nhops) {
            c = m->ts[RTOPO__LINK_LOCAL] + (double)x->len * m->tw[RTOPO__LINK_LOCAL];
            local = c > local ? c : local;
            res.moves[RTOPO__LINK_LOCAL]++;
            continue;
        }
        for (j = 0; j < x->nhops; j++) {
            const rtopo__hop_t *h = &s->hops[x->hop0 + j];

            int reach = rtopo__layout_reach(m->layout, from, h->to);

            res.moves[h->link]++;
            res.reach_moves[reach]++;
            res.reach_bytes[reach] += x->len;
            first[h->step + 1]++;
            from = h->to;
        }
        if (x->nhops > res.longest_path)
            res.longest_path = x->nhops;
    }
    for (i = 0; i < s->nkerns; i++) {
        double c = (double)rtopo__sched_kshape(s, i)->len * m->tk;

        local = c > local ? c : local;
        res.kernels++;
    }
    /* bucket the hops by step (counting sort): step t is
     * ent[first[t]..first[t+1]) once the fill below has shifted first[] */
    for (t = 0; t < nsteps; t++)
        first[t + 1] += first[t];
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
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
            uint64_t len = rtopo__sched_xlen(s, ent[j].xfer);
            double hts, htw, w;
            /* (a link first seen in step 0 starts at zero as if reset) */
            rtopo__linkstate_t *l = &ls[hl[ent[j].hop]];

            if (l->last_step != t) {
                l->last_step = t;
                l->load = 0;
                l->cost = 0.0;
            }
            rtopo__model_hop(m, h->link, ent[j].from, h->to, &hts, &htw);
            w = (double)len * htw;
            l->load++;
            l->cost += hts + w;
            if (l->load > res.max_link_load)
                res.max_link_load = l->load;
            if (l->cost > stepmax[t])
                stepmax[t] = l->cost;
        }
    }
    for (t = 0; t < nsteps; t++)
        sf += stepmax[t];
    /* the lock-step tables go before a graph that is not deferred runs */
    free(ls);
    free(stepmax);
    free(first);
    free(ent);
    ls = NULL;
    stepmax = NULL;
    first = NULL;
    ent = NULL;
    if (known)
        ct = *known;
    else if (!s->deferred && (status = rtopo__des(s, m, bufs, &hl, &nl, &ct)))
        goto out;
    res.steps = nsteps;
    res.model_time = ct;
    res.model_time_sf = sf + local;
    *r = res;
    status = RTOPO_OK;
out:
    free(hl);
    free(ls);
    free(stepmax);
    free(first);
    free(ent);
    return status;
}


/* ---- event by event ---------------------------------------------------- */

/* a hint that p is read soon (nothing else changes) */
#if defined(__GNUC__)
#define RTOPO__PREFETCH(p) __builtin_prefetch(p)
#else
#define RTOPO__PREFETCH(p) ((void)(p))
#endif

enum { RTOPO__EV_READY, RTOPO__EV_HOP, RTOPO__EV_SENT, RTOPO__EV_END };

typedef struct rtopo__ev {
    double t;
    uint32_t node;
    uint32_t th;        /* type | hop << 2 (EV_HOP: index within the route) */
    uint32_t fly;       /* a routed transfer's HOP, SENT, END: its flight */
    uint32_t nnode[2];  /* the nodes of the two events served next in this
                           one's bucket as it stands, RTOPO__QNONE where
                           none: a hint */
    uint32_t nth[2];    /* and their th */
} rtopo__ev_t;

/* The events in (time, push) order, ties first pushed first served: the
 * events of one time wait in a FIFO of their own (a bucket), the buckets
 * are found by their time in a hash table and ordered by it in a binary
 * heap.  A regular schedule keeps few distinct times pending (a round's
 * events share one), so most pushes and pops touch no heap; the order is
 * that of a heap of (time, push number). */
#define RTOPO__QNONE UINT32_MAX
typedef struct rtopo__qev {
    uint32_t node, th, fly, next;
} rtopo__qev_t;

typedef struct rtopo__bucket {
    double t;
    uint32_t head, tail;   /* events; head: next free bucket when free */
} rtopo__bucket_t;

typedef struct rtopo__heap {
    rtopo__qev_t *ev;       /* the events, a free list through next */
    uint32_t nev, evcap, evfree;
    rtopo__bucket_t *bk;    /* the buckets, a free list through head */
    uint32_t nbk, bkcap, bkfree;
    uint32_t *hp, nh, hcap; /* the heap of pending buckets by time */
    uint32_t *tab, tcap, tused;   /* bucket + 1 by time; 0 empty, QNONE gone */
    size_t pending;
} rtopo__heap_t;

static inline uint32_t rtopo__tslot(double t, uint32_t cap)
{
    uint64_t b;

    memcpy(&b, &t, sizeof(b));
    return (uint32_t)((b * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* the table again at cap slots, with the pending buckets only */
static int rtopo__tab_rehash(rtopo__heap_t *h, uint32_t cap)
{
    uint32_t *tab = calloc(cap, sizeof(*tab)), i, k;

    if (!tab)
        return rtopo__error(RTOPO_ERR_NOMEM, "event table of %u", cap);
    for (i = 0; i < h->nh; i++) {
        for (k = rtopo__tslot(h->bk[h->hp[i]].t, cap); tab[k]; k = (k + 1) & (cap - 1))
            ;
        tab[k] = h->hp[i] + 1;
    }
    free(h->tab);
    h->tab = tab;
    h->tcap = cap;
    h->tused = h->nh;
    return RTOPO_OK;
}

/* the slot of time t's bucket, or of the empty slot that ends its probe */
static inline uint32_t rtopo__tab_find(const rtopo__heap_t *h, double t)
{
    uint32_t k = rtopo__tslot(t, h->tcap);

    while (h->tab[k] && (h->tab[k] == RTOPO__QNONE || h->bk[h->tab[k] - 1].t != t))
        k = (k + 1) & (h->tcap - 1);
    return k;
}

static inline int rtopo__bk_before(const rtopo__heap_t *h, uint32_t a, uint32_t b)
{
    return h->bk[a].t < h->bk[b].t;
}

static int rtopo__heap_push(rtopo__heap_t *h, double t, uint32_t type, uint32_t node,
                            uint32_t hop, uint32_t fly)
{
    uint32_t b, e, k, i;

    t += 0.0;           /* -0 is 0: one bucket */
    if ((h->tused + 1) * 2 > h->tcap &&
        rtopo__tab_rehash(h, (h->nh + 1) * 4 > h->tcap ? (h->tcap ? 2 * h->tcap : 1024)
                                                       : h->tcap))
        return RTOPO_ERR_NOMEM;
    k = rtopo__tab_find(h, t);
    if (h->tab[k]) {
        b = h->tab[k] - 1;
    } else {
        if (h->bkfree != RTOPO__QNONE) {
            b = h->bkfree;
            h->bkfree = h->bk[b].head;
        } else {
            if (h->nbk == h->bkcap) {
                uint32_t cap = h->bkcap ? 2 * h->bkcap : 1024;
                rtopo__bucket_t *n = realloc(h->bk, (size_t)cap * sizeof(*n));

                if (!n)
                    return rtopo__error(RTOPO_ERR_NOMEM, "event buckets of %u", cap);
                h->bk = n;
                h->bkcap = cap;
            }
            b = h->nbk++;
        }
        if (h->nh == h->hcap) {
            uint32_t cap = h->hcap ? 2 * h->hcap : 1024, *n = realloc(h->hp, (size_t)cap *
                                                                          sizeof(*n));

            if (!n)
                return rtopo__error(RTOPO_ERR_NOMEM, "event heap of %u", cap);
            h->hp = n;
            h->hcap = cap;
        }
        h->bk[b].t = t;
        h->bk[b].head = h->bk[b].tail = RTOPO__QNONE;
        h->tab[k] = b + 1;
        h->tused++;
        for (i = h->nh++; i && rtopo__bk_before(h, b, h->hp[(i - 1) / 2]); i = (i - 1) / 2)
            h->hp[i] = h->hp[(i - 1) / 2];
        h->hp[i] = b;
    }
    if (h->evfree != RTOPO__QNONE) {
        e = h->evfree;
        h->evfree = h->ev[e].next;
    } else {
        if (h->nev == h->evcap) {
            uint32_t cap = h->evcap ? 2 * h->evcap : 1024;
            rtopo__qev_t *n = cap > h->evcap ? realloc(h->ev, (size_t)cap * sizeof(*n)) : NULL;

            if (!n)
                return rtopo__error(RTOPO_ERR_NOMEM, "event queue of %u", cap);
            rtopo__sched_big(n, (size_t)cap * sizeof(*n));
            h->ev = n;
            h->evcap = cap;
        }
        e = h->nev++;
    }
    h->ev[e].node = node;
    h->ev[e].th = type | hop << 2;
    h->ev[e].fly = fly;
    h->ev[e].next = RTOPO__QNONE;
    if (h->bk[b].head == RTOPO__QNONE)
        h->bk[b].head = e;
    else
        h->ev[h->bk[b].tail].next = e;
    h->bk[b].tail = e;
    h->pending++;
    return RTOPO_OK;
}

static inline int rtopo__heap_empty(const rtopo__heap_t *h)
{
    return !h->pending;
}

static rtopo__ev_t rtopo__heap_pop(rtopo__heap_t *h)
{
    uint32_t b = h->hp[0], e = h->bk[b].head, i = 0, c, x;
    rtopo__ev_t top = { h->bk[b].t, h->ev[e].node, h->ev[e].th, h->ev[e].fly,
                        { RTOPO__QNONE, RTOPO__QNONE }, { 0, 0 } };

    h->bk[b].head = h->ev[e].next;
    h->ev[e].next = h->evfree;
    h->evfree = e;
    h->pending--;
    if (h->bk[b].head != RTOPO__QNONE) {
        /* a bucket's events are scattered through ev[]: the next two
         * were asked for pops ago, the one after them is asked for now */
        const rtopo__qev_t *n = &h->ev[h->bk[b].head];

        top.nnode[0] = n->node;
        top.nth[0] = n->th;
        if (n->next != RTOPO__QNONE) {
            n = &h->ev[n->next];
            top.nnode[1] = n->node;
            top.nth[1] = n->th;
            if (n->next != RTOPO__QNONE)
                RTOPO__PREFETCH(&h->ev[n->next]);
        }
        return top;
    }
    /* the bucket is empty: out of the heap, the table and into the free */
    h->tab[rtopo__tab_find(h, h->bk[b].t)] = RTOPO__QNONE;
    h->bk[b].head = h->bkfree;
    h->bkfree = b;
    x = h->hp[--h->nh];
    for (;;) {
        c = 2 * i + 1;
        if (c >= h->nh)
            break;
        if (c + 1 < h->nh && rtopo__bk_before(h, h->hp[c + 1], h->hp[c]))
            c++;
        if (!rtopo__bk_before(h, h->hp[c], x))
            break;
        h->hp[i] = h->hp[c];
        i = c;
    }
    if (h->nh)
        h->hp[i] = x;
    return top;
}

static void rtopo__heap_free(rtopo__heap_t *h)
{
    free(h->ev);
    free(h->bk);
    free(h->hp);
    free(h->tab);
}

/* the earliest free of a rank's k ports; *slot_p names it */
static double rtopo__port_pick(double *ports, int k, int rank, size_t *slot_p)
{
    size_t b = (size_t)rank * (size_t)k, i, best = b;

    for (i = b + 1; i < b + (size_t)k; i++)
        if (ports[i] < ports[best])
            best = i;
    *slot_p = best;
    return ports[best];
}

static double rtopo__kern_cost(const rtopo__model_t *m, const rtopo__kshape_t *k)
{
    double c = (double)k->len * m->tk;

    if (k->type == RTOPO__KERN_SORT && !(k->flags & RTOPO__KERN_MERGE) && k->rec &&
        k->len / k->rec > 2) {
        uint64_t n = k->len / k->rec;
        int lg = 0;

        while (n > 1) {
            n >>= 1;
            lg++;
        }
        c *= lg;
    }
    return c;
}

static inline double rtopo__max(double a, double b)
{
    return a > b ? a : b;
}

/* ts + m*tw of hop j of transfer x, by its class and the reach of its
 * ends, as rtopo__des charges it */
static double rtopo__hop_cost(const rtopo__sched_t *s, const rtopo__model_t *m,
                              const rtopo__xfer_t *x, uint32_t j)
{
    const rtopo__hop_t *h = &s->hops[x->hop0 + j];
    double ts, tw;

    rtopo__model_hop(m, h->link, j ? s->hops[x->hop0 + j - 1].to : x->src, h->to, &ts, &tw);
    return ts + (double)x->len * tw;
}

/* The least time node u takes once ready in rtopo__des (*sent: until its
 * data has left the source, for a routed transfer) */
static double rtopo__node_least(const rtopo__sched_t *s, const rtopo__model_t *m, uint32_t u,
                                double *sent)
{
    rtopo__xfer_t xv;
    const rtopo__xfer_t *x = &xv;
    double path = 0.0, t0;
    uint32_t j;

    if (u >= s->nxfers) {
        *sent = rtopo__kern_cost(m, rtopo__sched_kshape(s, u - s->nxfers));
        return *sent;
    }
    xv = rtopo__sched_xfer(s, u);
    if (!x->nhops) {
        *sent = m->ts[RTOPO__LINK_LOCAL] + (double)x->len * m->tw[RTOPO__LINK_LOCAL];
        return *sent;
    }
    /* hop j + 1 asks th after hop j was granted; the last holds its link
     * ts + m*tw */
    for (j = 1; j < x->nhops; j++)
        path += rtopo__model_hop_th(m, s->hops[x->hop0 + j].link, s->hops[x->hop0 + j - 1].to,
                                    s->hops[x->hop0 + j].to, x->len);
    t0 = rtopo__hop_cost(s, m, x, 0);
    path += rtopo__hop_cost(s, m, x, x->nhops - 1);
    *sent = t0;
    return rtopo__max(t0, path);
}

/* The longest chain through rank's parts along the edges on rank: a node
 * is ready no sooner than its preds on rank release it (a SEND part when
 * its data has left, others when they end) and ends no sooner than it
 * takes; 0 when memory runs out (no bound). */
static double rtopo__sim_chain(const rtopo__sched_t *s, const rtopo__model_t *m, int rank)
{
    uint32_t n = s->nxfers + s->nkerns, i, j, head = 0, tail = 0, *indeg, *first, *adj, *q;
    double *est, lb = 0.0;

    indeg = calloc((size_t)n + 1, sizeof(*indeg));
    first = calloc((size_t)n + 2, sizeof(*first));
    adj = malloc(((size_t)s->ndeps + 1) * sizeof(*adj));
    q = malloc(((size_t)n + 1) * sizeof(*q));
    est = calloc((size_t)n + 1, sizeof(*est));
    if (!indeg || !first || !adj || !q || !est)
        goto out;
    for (i = 0; i < s->ndeps; i++)
        if (s->deps[i].rank == rank) {
            indeg[s->deps[i].succ]++;
            first[s->deps[i].pred + 2]++;
        }
    for (i = 0; i < n; i++)
        first[i + 2] += first[i + 1];
    for (i = 0; i < s->ndeps; i++)
        if (s->deps[i].rank == rank)
            adj[first[s->deps[i].pred + 1]++] = s->deps[i].succ;
    for (i = 0; i < n; i++)
        if (!indeg[i])
            q[tail++] = i;
    while (head < tail) {
        uint32_t u = q[head++];
        double sent, end = rtopo__node_least(s, m, u, &sent), rel;

        rel = rtopo__sched_part(s, u, rank) == RTOPO__PART_SEND ? sent : end;
        lb = rtopo__max(lb, est[u] + end);
        for (j = first[u]; j < first[u + 1]; j++) {
            uint32_t v = adj[j];

            est[v] = rtopo__max(est[v], est[u] + rel);
            if (--indeg[v] == 0)
                q[tail++] = v;
        }
    }
out:
    free(indeg);
    free(first);
    free(adj);
    free(q);
    free(est);
    return lb;
}

/* What rank's parts alone say of the makespan rtopo__des finds: every
 * resource that rank's parts hold serializes them, so the makespan is at
 * least the busy time of each: its send ports (hop 0 of what it sends,
 * ts + m*tw each, over the ports), its receive ports (the last hop of
 * what it receives), its processor (copies and kernels), and each link
 * direction from or to it (every hop on it belongs to a transfer that
 * touches the rank, so a share holds them all). */
double rtopo__sim_bound(const rtopo__sched_t *s, const rtopo__model_t *m, int rank)
{
    rtopo__model_t def;
    double snd = 0.0, rcv = 0.0, cpu = 0.0, lb, *lsum;
    rtopo__linkmap_t map = { NULL, NULL, 0, 0 };
    uint32_t i, j;
    int k, fresh;

    if (!m) {
        rtopo__model_default(&def);
        m = &def;
    }
    k = m->ports > 0 ? m->ports : 0;
    for (i = 0; i < s->nkerns; i++)
        if (s->kerns[i].rank == rank)
            cpu += rtopo__kern_cost(m, rtopo__sched_kshape(s, i));
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;

        if (!x->nhops) {
            if (x->src == rank)
                cpu += m->ts[RTOPO__LINK_LOCAL] + (double)x->len * m->tw[RTOPO__LINK_LOCAL];
            continue;
        }
        if (x->src == rank)
            snd += rtopo__hop_cost(s, m, x, 0);
        if (x->dst == rank)
            rcv += rtopo__hop_cost(s, m, x, x->nhops - 1);
    }
    lb = rtopo__max(cpu, k ? rtopo__max(snd, rcv) / k : 0.0);
    /* link directions from or to rank */
    if (rtopo__linkmap_grow(&map))
        return lb;
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
        int32_t from = x->src;

        for (j = 0; j < x->nhops; j++) {
            int32_t to = s->hops[x->hop0 + j].to;

            if ((from == rank || to == rank) && map.n * 2 >= map.cap &&
                rtopo__linkmap_grow(&map))
                goto done;
            if (from == rank || to == rank)
                (void)rtopo__linkmap_get(&map, from, to, &fresh);
            from = to;
        }
    }
    lsum = calloc((size_t)map.n + 1, sizeof(*lsum));
    if (!lsum)
        goto done;
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
        int32_t from = x->src;

        for (j = 0; j < x->nhops; j++) {
            const rtopo__hop_t *h = &s->hops[x->hop0 + j];

            if (from == rank || h->to == rank) {
                uint32_t l = rtopo__linkmap_get(&map, from, h->to, &fresh);

                lsum[l] += rtopo__hop_cost(s, m, x, j);
                lb = rtopo__max(lb, lsum[l]);
            }
            from = h->to;
        }
    }
    free(lsum);
done:
    free(map.key);
    free(map.id);
    return rtopo__max(lb, rtopo__sim_chain(s, m, rank));
}

static int rtopo__host_cmp(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

    return a < b ? -1 : a > b;
}

/* The hosts of a layout numbered densely: hx[r] for each of its nranks
 * ranks; the count of hosts, or -1 without memory. */
static int rtopo__host_index(const rtopo__layout_t *l, uint32_t *hx)
{
    uint64_t *key = malloc(((size_t)l->nranks + 1) * sizeof(*key));
    uint32_t i, nh = 0;

    if (!key)
        return -1;
    for (i = 0; i < l->nranks; i++)
        key[i] = (uint64_t)l->host[i] << 32 | i;
    qsort(key, l->nranks, sizeof(*key), rtopo__host_cmp);
    for (i = 0; i < l->nranks; i++) {
        if (i && key[i] >> 32 != key[i - 1] >> 32)
            nh++;
        hx[(uint32_t)key[i]] = nh;
    }
    free(key);
    return l->nranks ? (int)nh + 1 : 0;
}

/* Is node u's part on rank a SEND (a routed transfer u sends from rank)? */
static inline int rtopo__part_send(const rtopo__sched_t *s, uint32_t u, int32_t rank)
{
    return u < s->nxfers && rtopo__sched_xnhops(s, u) && s->xfers[u].src == rank;
}

/* the link direction of every hop of s numbered densely, in the order
 * first seen (transfer order), in *hl_p (allocated), how many in *nl_p.
 * A rank's first RTOPO__LROW directions out of it sit in its own row
 * (to + 1 and the id; 0: free), found by a scan of its 48 bytes; the
 * directions of a rank past those (direct links), and ranks out of range,
 * go to a hash table. */
#define RTOPO__LROW 6
typedef struct rtopo__lrow {
    int32_t to1;        /* to + 1; 0: free */
    uint32_t id;
} rtopo__lrow_t;

static int rtopo__hop_links(const rtopo__sched_t *s, uint32_t **hl_p, uint32_t *nl_p)
{
    rtopo__linkmap_t map = { NULL, NULL, 0, 0 };
    uint32_t *hl = malloc(((size_t)s->nhops + 1) * sizeof(*hl)), i, j, nid = 0;
    rtopo__lrow_t *row = calloc((size_t)s->topo.p * RTOPO__LROW + 1, sizeof(*row));
    int st = RTOPO_OK, fresh;

    if (!hl || !row || rtopo__linkmap_grow(&map)) {
        st = rtopo__error(RTOPO_ERR_NOMEM, "link table of %u hops", s->nhops);
        goto out;
    }
    rtopo__sched_big(hl, ((size_t)s->nhops + 1) * sizeof(*hl));
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
        int32_t from = x->src;

        for (j = 0; j < x->nhops; j++) {
            int32_t to = s->hops[x->hop0 + j].to;
            int in = from >= 0 && from < s->topo.p && to >= 0 && to < s->topo.p;
            rtopo__lrow_t *w = &row[in ? (size_t)from * RTOPO__LROW : 0];
            uint32_t k = in ? 0 : RTOPO__LROW;

            while (k < RTOPO__LROW && w[k].to1 && w[k].to1 != to + 1)
                k++;
            if (k < RTOPO__LROW) {
                if (!w[k].to1) {
                    w[k].to1 = to + 1;
                    w[k].id = nid++;
                }
                hl[x->hop0 + j] = w[k].id;
            } else {
                if (map.n * 2 >= map.cap && rtopo__linkmap_grow(&map)) {
                    st = rtopo__error(RTOPO_ERR_NOMEM, "link table");
                    goto out;
                }
                hl[x->hop0 + j] = rtopo__linkmap_put(&map, from, to, nid, &fresh);
                nid += fresh;
            }
            from = to;
        }
    }
    *nl_p = nid;
out:
    free(map.key);
    free(map.id);
    free(row);
    if (st)
        free(hl);
    else
        *hl_p = hl;
    return st;
}

/* The replay's adjacency as the edges come: counted (in-degree cnt,
 * out-degree first[pred + 1], sends mid[pred]), then placed (oadj: a
 * transfer's sends at the cursor first, the rest at the cursor mid; a
 * kernel's at first).  An in-degree takes a byte (a node's count is
 * touched once per edge into it, a miss each: a quarter of the bytes
 * the cache must hold); RTOPO__CNT_BIG in it: the count is in bigcnt,
 * at the node's id in big (the few nodes of RTOPO__CNT_BIG edges or
 * more) */
#define RTOPO__CNT_BIG UINT8_MAX
typedef struct rtopo__adj {
    const rtopo__sched_t *s;
    uint8_t *cnt;
    uint32_t *first, *mid, *oadj;
    rtopo__linkmap_t big;
    uint32_t *bigcnt, bigcap;
} rtopo__adj_t;

/* where node v's count is held, v's count in bytes RTOPO__CNT_BIG (a
 * node first seen there starts at RTOPO__CNT_BIG); NULL: out of memory */
static uint32_t *rtopo__cnt_big(rtopo__adj_t *a, uint32_t v)
{
    uint32_t id;
    int fresh;

    if (a->big.n == a->bigcap) {
        uint32_t cap = a->bigcap ? 2 * a->bigcap : 64,
                 *c = cap > a->bigcap ? realloc(a->bigcnt, (size_t)cap * sizeof(*c)) : NULL;

        if (!c)
            return NULL;
        a->bigcnt = c;
        a->bigcap = cap;
    }
    if (a->big.n * 2 >= a->big.cap && rtopo__linkmap_grow(&a->big))
        return NULL;
    id = rtopo__linkmap_get(&a->big, 0, (int32_t)v, &fresh);
    if (fresh)
        a->bigcnt[id] = RTOPO__CNT_BIG;
    return &a->bigcnt[id];
}

static int rtopo__adj_count(void *ctx, const rtopo__dep_t *e, size_t n)
{
    rtopo__adj_t *a = ctx;
    size_t i;

    for (i = 0; i < n; i++) {
        uint8_t *c = &a->cnt[e[i].succ];

        if (*c < RTOPO__CNT_BIG - 1) {
            ++*c;
        } else {
            /* the RTOPO__CNT_BIG-th edge moves the count into big */
            uint32_t *b = rtopo__cnt_big(a, e[i].succ);

            if (!b)
                return rtopo__error(RTOPO_ERR_NOMEM, "in-degree of node %u", e[i].succ);
            *b += *c == RTOPO__CNT_BIG;
            *c = RTOPO__CNT_BIG;
        }
        a->first[e[i].pred + 1]++;
        if (rtopo__part_send(a->s, e[i].pred, e[i].rank))
            a->mid[e[i].pred]++;
    }
    return RTOPO_OK;
}

static int rtopo__adj_fill(void *ctx, const rtopo__dep_t *e, size_t n)
{
    rtopo__adj_t *a = ctx;
    size_t i;

    for (i = 0; i < n; i++) {
        uint32_t u = e[i].pred;

        if (u < a->s->nxfers && !rtopo__part_send(a->s, u, e[i].rank))
            a->oadj[a->mid[u]++] = e[i].succ;
        else
            a->oadj[a->first[u]++] = e[i].succ;
    }
    return RTOPO_OK;
}

/* every edge of s to sink, in order: those held, or a deferred graph's
 * inferred (rtopo__sched_deps_each) */
static int rtopo__des_edges(const rtopo__sched_t *s, rtopo__dep_sink_fn *sink, void *ctx)
{
    if (!s->deferred)
        return s->ndeps ? sink(ctx, s->deps, s->ndeps) : RTOPO_OK;
    if (s->ndeps)
        return rtopo__error(RTOPO_ERR_INVAL, "a deferred graph holding %u edges", s->ndeps);
    return rtopo__sched_deps_each(s, sink, ctx);
}

/* the most bytes a flight's slot keeps for the next flight it carries */
#define RTOPO__STAGE_KEEP ((size_t)4096)

/* Runs the graph; with bufs also moves the data.  *makespan: the time the
 * last node ends.  *links, *nlinks: s's link directions (rtopo__hop_links),
 * the caller's; or, *links NULL, numbered here and handed to the caller
 * (who frees them) once the graph has run; links NULL: numbered here for
 * this run only */
static int rtopo__des(const rtopo__sched_t *s, const rtopo__model_t *m,
                      uint8_t *const *const *bufs, uint32_t **links, uint32_t *nlinks,
                      double *makespan)
{
    /* a node's state: its edges not yet released (cnt); it is ready when
     * the last is, at that event's time (the events run in the order of
     * their times, and no cost is negative: no event is pushed before the
     * one that pushes it, so the last release is the latest) */
    uint8_t *cnt = NULL;
    uint32_t n = s->nxfers + s->nkerns, i, ended = 0, *first = NULL,
             *mid = NULL, *oadj = NULL, *hlink = NULL, end, prev, nlink = 0;
    double *lfree = NULL, *sport = NULL, *rport = NULL,
           *cpu = NULL, *lane = NULL, *hout = NULL, span = 0.0;
    /* the transfers in flight, from their first hop to their end: when
     * the last hop ends (xend) and, moving data, the bytes that left the
     * source (data, of cap bytes: kept for the slot's next flight when
     * no more than RTOPO__STAGE_KEEP, so that a run of small transfers
     * allocates once per slot, not once per flight); the free ones in a
     * list through nxt */
    struct rtopo__flight {
        double xend;
        uint8_t *data;
        size_t cap;
        uint32_t nxt;
    } *fly = NULL;
    uint32_t nfly = 0, flycap = 0, flyfree = RTOPO__QNONE;
    rtopo__heap_t h = { NULL, 0, 0, RTOPO__QNONE, NULL, 0, 0, RTOPO__QNONE, NULL, 0, 0,
                        NULL, 0, 0, 0 };
    int p = s->topo.p, k = m->ports > 0 ? m->ports : 0, st = RTOPO_ERR_NOMEM;
    int nl = m->lanes > 0 ? m->lanes : 0, hk = 0, nh = 0;
    uint32_t *hx = NULL;
    rtopo__adj_t adj = { NULL, NULL, NULL, NULL, NULL, { NULL, NULL, 0, 0 }, NULL, 0 };

    /* a host's link out: the inter-host hops that leave it share
     * hostlinks of them */
    if (m->layout && m->hostlinks > 0 && m->layout->nranks) {
        hk = m->hostlinks;
        hx = malloc((size_t)m->layout->nranks * sizeof(*hx));
        nh = hx ? rtopo__host_index(m->layout, hx) : -1;
        if (nh > 0)
            hout = calloc((size_t)nh * (size_t)hk, sizeof(*hout));
        if (nh <= 0 || !hout) {
            rtopo__error(st, "links of the hosts");
            goto out;
        }
    }
    cnt = calloc((size_t)n + 1, sizeof(*cnt));
    first = calloc((size_t)n + 2, sizeof(*first));
    mid = calloc((size_t)s->nxfers + 1, sizeof(*mid));
    cpu = calloc((size_t)p, sizeof(*cpu));
    if (k) {
        sport = calloc((size_t)p * (size_t)k, sizeof(*sport));
        rport = calloc((size_t)p * (size_t)k, sizeof(*rport));
    }
    if (nl)
        lane = calloc((size_t)nl, sizeof(*lane));
    adj.s = s;
    adj.cnt = cnt;
    adj.first = first;
    adj.mid = mid;
    if (!cnt || !first || !mid || !cpu ||
        (k && (!sport || !rport)) || (nl && !lane)) {
        rtopo__error(st, "simulating %u nodes", n);
        goto out;
    }
    rtopo__sched_big(cnt, ((size_t)n + 1) * sizeof(*cnt));
    rtopo__sched_big(first, ((size_t)n + 2) * sizeof(*first));
    /* out-edges by pred (CSR of the successors), in-degree by succ: u's
     * edges are oadj[first[u]..first[u + 1]), those its SENT event
     * releases (u's part on the edge's rank is a SEND: u is a transfer)
     * up to mid[u], those of its END from there, each group in edge
     * order.  The edges held, or those inferred as they are needed (a
     * deferred graph: inferred twice, counted then placed, never held) */
    if ((st = rtopo__des_edges(s, rtopo__adj_count, &adj)))
        goto out;
    for (i = 0; i < n; i++) {
        first[i + 1] += first[i];
        if (i < s->nxfers)
            mid[i] += first[i];
    }
    st = RTOPO_ERR_NOMEM;
    if (!(oadj = malloc(((size_t)first[n] + 1) * sizeof(*oadj)))) {
        rtopo__error(st, "simulating %u edges", first[n]);
        goto out;
    }
    rtopo__sched_big(oadj, ((size_t)first[n] + 1) * sizeof(*oadj));
    /* a transfer's sends go from first[u] up to mid[u], its others from
     * mid[u] up to u's end; a kernel's from first[u] to its end.  Both
     * cursors are put back after (first[u]: the end of u - 1, mid[u]:
     * where first[u] stopped) */
    adj.oadj = oadj;
    if ((st = rtopo__des_edges(s, rtopo__adj_fill, &adj)))
        goto out;
    for (i = 0, prev = 0; i < n; i++) {
        end = i < s->nxfers ? mid[i] : first[i];
        if (i < s->nxfers)
            mid[i] = first[i];
        first[i] = prev;
        prev = end;
    }
    first[n] = prev;
    /* link direction of every hop */
    if (links && *links) {
        hlink = *links;
        nlink = *nlinks;
    } else if ((st = rtopo__hop_links(s, &hlink, &nlink))) {
        goto out;
    }
    st = RTOPO_ERR_NOMEM;
    lfree = calloc((size_t)nlink + 1, sizeof(*lfree));
    if (!lfree) {
        rtopo__error(st, "%u links", nlink);
        goto out;
    }
    for (i = 0; i < n; i++)
        if (!cnt[i] && (st = rtopo__heap_push(&h, 0.0, RTOPO__EV_READY, i, 0, 0)))
            goto out;
    st = RTOPO_OK;
    while (!rtopo__heap_empty(&h)) {
        rtopo__ev_t e = rtopo__heap_pop(&h);
        uint32_t u = e.node, j, ehop = e.th >> 2, etype = e.th & 3;
        int sent = etype == RTOPO__EV_SENT;

        /* the node of the event after next, read two events from now,
         * and the edges of the next (whose node was asked for at the
         * last pop) */
        if (e.nnode[1] < s->nxfers) {
            RTOPO__PREFETCH(&s->xfers[e.nnode[1]]);
            if ((e.nth[1] & 3) >= RTOPO__EV_SENT)
                RTOPO__PREFETCH(&mid[e.nnode[1]]);
        } else if (e.nnode[1] < n) {
            RTOPO__PREFETCH(&s->kerns[e.nnode[1] - s->nxfers]);
        }
        if (e.nnode[1] < n && (e.nth[1] & 3) >= RTOPO__EV_SENT)
            RTOPO__PREFETCH(&first[e.nnode[1]]);
        if (e.nnode[0] < n && (e.nth[0] & 3) >= RTOPO__EV_SENT)
            RTOPO__PREFETCH(&oadj[(e.nth[0] & 3) == RTOPO__EV_END && e.nnode[0] < s->nxfers ?
                                  mid[e.nnode[0]] : first[e.nnode[0]]]);

        if (etype == RTOPO__EV_READY) {
            if (u < s->nxfers && rtopo__sched_xnhops(s, u)) {
                uint32_t f = flyfree;

                if (f != RTOPO__QNONE) {
                    flyfree = fly[f].nxt;
                } else {
                    if (nfly == flycap) {
                        uint32_t cap = flycap ? 2 * flycap : 1024;
                        struct rtopo__flight *q = realloc(fly, (size_t)cap * sizeof(*q));

                        if (!q) {
                            st = rtopo__error(RTOPO_ERR_NOMEM, "%u transfers in flight", cap);
                            goto out;
                        }
                        fly = q;
                        flycap = cap;
                    }
                    f = nfly++;
                    fly[f].data = NULL;
                    fly[f].cap = 0;
                }
                fly[f].xend = 0.0;
                st = rtopo__heap_push(&h, e.t, RTOPO__EV_HOP, u, 0, f);
            } else {
                int r = u < s->nxfers ? s->xfers[u].src : s->kerns[u - s->nxfers].rank;
                double c = u < s->nxfers ? m->ts[RTOPO__LINK_LOCAL] +
                           (double)rtopo__sched_xlen(s, u) * m->tw[RTOPO__LINK_LOCAL] :
                           rtopo__kern_cost(m, rtopo__sched_kshape(s, u - s->nxfers));
                double g = rtopo__max(e.t, cpu[r]);
                size_t lp = 0;

                /* on shared lanes a kernel or copy is one of the
                 * processors' works too (a free one waits for none) */
                if (nl && c > 0)
                    g = rtopo__max(g, rtopo__port_pick(lane, nl, 0, &lp));
                cpu[r] = g + c;
                if (nl && c > 0)
                    lane[lp] = cpu[r];
                st = rtopo__heap_push(&h, cpu[r], RTOPO__EV_END, u, 0, 0);
            }
            if (st)
                goto out;
            continue;
        }
        if (etype == RTOPO__EV_HOP) {
            const rtopo__xfer_t xv = rtopo__sched_xfer(s, u), *x = &xv;
            const rtopo__hop_t *hp = &s->hops[x->hop0 + ehop];
            uint32_t l = hlink[x->hop0 + ehop];
            int32_t from = ehop ? s->hops[x->hop0 + ehop - 1].to : x->src;
            double hts, htw, T, g;
            size_t sp = 0, rp = 0, lp = 0, op = 0;
            int last = ehop + 1 == x->nhops, cross = 0;

            rtopo__model_hop(m, hp->link, from, hp->to, &hts, &htw);
            T = hts + (double)x->len * htw;
            /* longer than eager: the sender waits for the receiver too */
            if (m->tt > 0 && m->eager && x->len > m->eager)
                T += m->tt;
            g = rtopo__max(e.t, lfree[l]);
            if (nl)
                g = rtopo__max(g, rtopo__port_pick(lane, nl, 0, &lp));
            if (k && ehop == 0)
                g = rtopo__max(g, rtopo__port_pick(sport, k, x->src, &sp));
            if (k && last)
                g = rtopo__max(g, rtopo__port_pick(rport, k, x->dst, &rp));
            if (hk && rtopo__layout_reach(m->layout, from, hp->to) == RTOPO__REACH_INTER) {
                cross = 1;
                g = rtopo__max(g, rtopo__port_pick(hout, hk, (int)hx[from], &op));
            }
            lfree[l] = g + T;
            if (cross)
                hout[op] = g + T;
            if (nl)
                lane[lp] = g + T;
            if (k && ehop == 0)
                sport[sp] = g + T;
            if (k && last)
                rport[rp] = g + T;
            /* tt: the data lands, or the rank on the way sends it on, at
             * its receiver's turn; what the hop holds is free before */
            fly[e.fly].xend = rtopo__max(fly[e.fly].xend, g + T + (last ? m->tt : 0.0));
            if (ehop == 0 && (st = rtopo__heap_push(&h, g + T, RTOPO__EV_SENT, u, 0, e.fly)))
                goto out;
            if (last)
                st = rtopo__heap_push(&h, fly[e.fly].xend, RTOPO__EV_END, u, 0, e.fly);
            else
                st = rtopo__heap_push(&h, g + m->tt + rtopo__model_hop_th(m, s->hops[x->hop0 +
                                      ehop + 1].link, hp->to, s->hops[x->hop0 + ehop + 1].to,
                                      x->len), RTOPO__EV_HOP, u, ehop + 1, e.fly);
            if (st)
                goto out;
            continue;
        }
        /* SENT or END: move the data, release the edges */
        if (bufs && u < s->nxfers) {
            const rtopo__xfer_t xv = rtopo__sched_xfer(s, u), *x = &xv;

            if (x->len && !x->nhops)
                memmove(bufs[x->dst][x->dst_buf] + x->dst_off,
                        bufs[x->src][x->src_buf] + x->src_off, x->len);
            else if (x->len && sent) {
                struct rtopo__flight *f = &fly[e.fly];

                if (x->len > f->cap) {
                    /* whole cache lines: a slot serves records of
                     * neighbouring sizes without a new allocation */
                    uint64_t cap = x->len + 63 < x->len ? x->len : (x->len + 63) & ~(uint64_t)63;

                    free(f->data);
                    f->cap = 0;
                    if ((size_t)cap != cap || !(f->data = malloc((size_t)cap))) {
                        st = rtopo__error(RTOPO_ERR_NOMEM, "staging %llu bytes",
                                          (unsigned long long)x->len);
                        goto out;
                    }
                    f->cap = (size_t)cap;
                }
                memcpy(f->data, bufs[x->src][x->src_buf] + x->src_off, x->len);
            } else if (x->len) {
                memcpy(bufs[x->dst][x->dst_buf] + x->dst_off, fly[e.fly].data, x->len);
            }
        } else if (bufs) {
            const rtopo__kern_t kv = rtopo__sched_kern(s, u - s->nxfers), *kn = &kv;

            if ((st = rtopo__kern_run(kn, bufs[kn->rank])))
                goto out;
        }
        if (!sent) {
            ended++;
            span = rtopo__max(span, e.t);
        }
        if (!sent && u < s->nxfers && rtopo__sched_xnhops(s, u)) {
            /* landed: its flight is over (its staging kept if small) */
            if (fly[e.fly].cap > RTOPO__STAGE_KEEP) {
                free(fly[e.fly].data);
                fly[e.fly].data = NULL;
                fly[e.fly].cap = 0;
            }
            fly[e.fly].nxt = flyfree;
            flyfree = e.fly;
        }
        {
            uint32_t j0 = sent ? first[u] : u < s->nxfers ? mid[u] : first[u];
            uint32_t j1 = sent ? mid[u] : first[u + 1];

            /* the successors' counts are as many misses: all asked for
             * while the first is read */
            for (j = j0 + 1; j < j1; j++)
                RTOPO__PREFETCH(&cnt[oadj[j]]);
            for (j = j0; j < j1; j++) {
                uint32_t v = oadj[j], c = cnt[v];
                int fresh;

                if (c != RTOPO__CNT_BIG)
                    cnt[v] = (uint8_t)--c;
                else
                    c = --adj.bigcnt[rtopo__linkmap_get(&adj.big, 0, (int32_t)v, &fresh)];
                if (!c && (st = rtopo__heap_push(&h, e.t, RTOPO__EV_READY, v, 0, 0)))
                    goto out;
            }
        }
    }
    if (ended != n)
        st = rtopo__error(RTOPO_ERR_INVAL, "%u of %u nodes never start: the edges form "
                          "a cycle or name missing parts", n - ended, n);
    *makespan = span;
    if (!st && links && !*links) {
        *links = hlink;
        *nlinks = nlink;
    }
out:
    rtopo__heap_free(&h);
    free(cnt);
    free(adj.big.key);
    free(adj.big.id);
    free(adj.bigcnt);
    free(first);
    free(mid);
    free(oadj);
    if (!links || hlink != *links)
        free(hlink);
    free(lfree);
    free(sport);
    free(lane);
    free(hout);
    free(hx);
    free(rport);
    free(cpu);
    for (i = 0; i < nfly; i++)
        free(fly[i].data);
    free(fly);
    return st;
}

/* a transfer between a rank of the set and one outside: (own, the rank
 * of the set; peer; step; index): sends and receives pair in this order */
typedef struct rtopo__fold_ent {
    int32_t own, peer;
    uint32_t step, id;
} rtopo__fold_ent_t;

static int rtopo__fold_cmp(const void *x, const void *y)
{
    const rtopo__fold_ent_t *a = x, *b = y;

    if (a->own != b->own)
        return a->own < b->own ? -1 : 1;
    if (a->peer != b->peer)
        return a->peer < b->peer ? -1 : 1;
    if (a->step != b->step)
        return a->step < b->step ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* is v one of the ranks equal to rank outside mask? */
#define RTOPO__FOLD_IN(v, rank, mask) ((((uint32_t)(v) ^ (uint32_t)(rank)) & ~(mask)) == 0)

/* The graph s of the set H (the ranks equal to rank outside mask) folded
 * onto itself: the transfer y a rank q outside H sends to v in H is the
 * image of v's own transfer x to q (the k-th of step t each way) under
 * the translation that swaps v and q, so in a graph every such
 * translation maps onto itself y runs when x does.  x stands for both:
 * it waits for the edges into either on v, holds v's send port, its
 * receive port (y's, the image of x's at q), the link direction to q
 * (and with hosts its host's link out), releases x's edges when its data
 * has left and y's when it has landed.  Transfers inside H stay as they
 * are; edges on ranks outside H are left out (those into and out of x on
 * q are y's on v).  The nodes of H then run as in the whole graph:
 * rtopo__des over the fold is the whole graph's makespan (the proofs:
 * rtopo__sim_sym's for one rank, coll_generic.c's for a host). */
double rtopo__sim_fold(const rtopo__sched_t *s, const rtopo__model_t *m, int rank,
                       uint32_t mask)
{
    rtopo__model_t def;
    rtopo__sched_t f;
    rtopo__fold_ent_t *snd = NULL, *rcv = NULL;
    uint32_t n = s->nxfers + s->nkerns, i, ns = 0, nr = 0, nx = 0, *map = NULL;
    uint8_t *isr = NULL;
    double span = -1.0, ts, tw;

    if (s->deferred)
        return -1.0;                    /* its edges not held */
    if (!m) {
        rtopo__model_default(&def);
        m = &def;
    }
    memset(&f, 0, sizeof(f));
    /* lanes are shared by the whole job */
    if (m->lanes > 0 || m->tt > 0 || rank < 0 || rank >= s->topo.p)
        return -1.0;
    map = malloc(((size_t)n + 1) * sizeof(*map));
    isr = calloc((size_t)n + 1, 1);
    snd = malloc(((size_t)s->nxfers + 1) * sizeof(*snd));
    rcv = malloc(((size_t)s->nxfers + 1) * sizeof(*rcv));
    if (!map || !isr || !snd || !rcv)
        goto out;
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
        int a = RTOPO__FOLD_IN(x->src, rank, mask), b = RTOPO__FOLD_IN(x->dst, rank, mask);

        if (!a && !b)
            goto out;       /* off the set */
        if (!x->nhops) {
            if (x->src != x->dst)
                goto out;
            continue;       /* a copy */
        }
        if (x->nhops != 1 || s->hops[x->hop0].to != x->dst || x->src == x->dst)
            goto out;       /* routed, forwarded or to itself */
        if (m->layout) {    /* with hosts, a hop that costs nothing may tie */
            rtopo__model_hop(m, s->hops[x->hop0].link, x->src, x->dst, &ts, &tw);
            if (ts <= 0 && (tw <= 0 || !x->len))
                goto out;
        }
        if (a && !b)
            snd[ns++] = (rtopo__fold_ent_t){ x->src, x->dst, s->hops[x->hop0].step, i };
        else if (b && !a)
            rcv[nr++] = (rtopo__fold_ent_t){ x->dst, x->src, s->hops[x->hop0].step, i };
    }
    for (i = 0; i < s->nkerns; i++)
        if (!RTOPO__FOLD_IN(s->kerns[i].rank, rank, mask))
            goto out;
    if (ns != nr)
        goto out;
    qsort(snd, ns, sizeof(*snd), rtopo__fold_cmp);
    qsort(rcv, nr, sizeof(*rcv), rtopo__fold_cmp);
    for (i = 0; i < ns; i++) {
        const rtopo__xfer_t av = rtopo__sched_xfer(s, snd[i].id), *a = &av;
        const rtopo__xfer_t bv = rtopo__sched_xfer(s, rcv[i].id), *b = &bv;

        if (snd[i].own != rcv[i].own || snd[i].peer != rcv[i].peer ||
            snd[i].step != rcv[i].step || a->len != b->len ||
            s->hops[a->hop0].link != s->hops[b->hop0].link)
            goto out;
    }
    /* the fold: every node of s but the receives from outside, which
     * become their sends; a send out keeps its hop to the peer (the link
     * direction) and lands on its own rank (the receive port) */
    f.topo = s->topo;
    f.xfers = malloc(((size_t)s->nxfers + 1) * sizeof(*f.xfers));
    f.hops = malloc(((size_t)s->nhops + 1) * sizeof(*f.hops));
    f.kerns = s->nkerns ? malloc((size_t)s->nkerns * sizeof(*f.kerns)) : NULL;
    f.kshapes = s->kshapes;     /* shared, read only */
    f.xshapes = s->xshapes;
    f.deps = malloc(((size_t)s->ndeps + 1) * sizeof(*f.deps));
    if (!f.xfers || !f.hops || (s->nkerns && !f.kerns) || !f.deps)
        goto out;
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;

        if (!RTOPO__FOLD_IN(x->src, rank, mask))
            continue;       /* a receive from outside: its send stands for it */
        map[i] = nx;
        f.xfers[nx] = s->xfers[i];
        if (x->nhops) {
            if (!RTOPO__FOLD_IN(x->dst, rank, mask))
                f.xfers[nx].dst = x->src;
            f.xfers[nx].hop0 = f.nhops;
            f.hops[f.nhops++] = s->hops[x->hop0];
        }
        nx++;
    }
    for (i = 0; i < ns; i++) {
        map[rcv[i].id] = map[snd[i].id];
        isr[rcv[i].id] = 1;
    }
    f.nxfers = nx;
    f.nkerns = s->nkerns;
    for (i = 0; i < s->nkerns; i++) {
        f.kerns[i] = s->kerns[i];
        map[s->nxfers + i] = nx + i;
    }
    for (i = 0; i < s->ndeps; i++) {
        const rtopo__dep_t *d = &s->deps[i];
        rtopo__dep_t *e;

        if (!RTOPO__FOLD_IN(d->rank, rank, mask))
            continue;
        if (map[d->pred] == map[d->succ])
            goto out;
        e = &f.deps[f.ndeps++];
        *e = *d;
        e->pred = map[d->pred];
        e->succ = map[d->succ];
        /* a receive's edges go when it lands: not as a SEND part */
        if (isr[d->pred])
            e->rank = -1;
    }
    if (rtopo__des(&f, m, NULL, NULL, NULL, &span))
        span = -1.0;
out:
    free(f.xfers);
    free(f.hops);
    free(f.kerns);
    free(f.deps);
    free(map);
    free(isr);
    free(snd);
    free(rcv);
    return span;
}

/* rank's share folded onto itself (rtopo__sim_fold, the set of rank
 * alone): in a graph every translation v -> v ^ a maps onto itself, the
 * translation that swaps rank and a peer q maps q's transfer to rank
 * onto rank's to q, which then runs when it does.  A layout costs hops
 * by hosts: one rank no longer stands for its host's others. */
double rtopo__sim_sym(const rtopo__sched_t *s, const rtopo__model_t *m, int rank)
{
    if (m && m->layout)
        return -1.0;
    return rtopo__sim_fold(s, m, rank, 0);
}

static int rtopo__exec_range(uint8_t *const *const *bufs, const uint64_t *size,
                             const char *what, uint32_t i, int rank, int buf,
                             uint64_t off, uint64_t len)
{
    if (!bufs[rank] || (len && !bufs[rank][buf]))
        return rtopo__error(RTOPO_ERR_INVAL, "%s %u: rank %d has no buffer %d", what, i,
                            rank, buf);
    if (size && (off > size[buf] || len > size[buf] - off))
        return rtopo__error(RTOPO_ERR_INVAL, "%s %u: rank %d buffer %d range "
                            "%llu+%llu beyond %llu", what, i, rank, buf,
                            (unsigned long long)off, (unsigned long long)len,
                            (unsigned long long)size[buf]);
    return RTOPO_OK;
}


/* every range of s in bufs (and within size, when not NULL) */
static int rtopo__exec_ranges(const rtopo__sched_t *s, uint8_t *const *const *bufs,
                              const uint64_t *size)
{
    uint32_t i;
    int st;

    if (!bufs)
        return rtopo__error(RTOPO_ERR_INVAL, "no buffers");
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;

        if ((st = rtopo__exec_range(bufs, size, "xfer", i, x->src, x->src_buf, x->src_off,
                                    x->len)) ||
            (st = rtopo__exec_range(bufs, size, "xfer", i, x->dst, x->dst_buf, x->dst_off,
                                    x->len)))
            return st;
    }
    for (i = 0; i < s->nkerns; i++) {
        const rtopo__kern_t kv = rtopo__sched_kern(s, i), *k = &kv;
        uint64_t slen;
        int two = rtopo__kern_src(k, &slen);

        if (k->src_buf >= RTOPO__BUF_COUNT || k->dst_buf >= RTOPO__BUF_COUNT)
            return rtopo__error(RTOPO_ERR_INVAL, "kernel %u: buffer out of range", i);
        if ((two && (st = rtopo__exec_range(bufs, size, "kernel", i, k->rank, k->src_buf,
                                            k->src_off, slen))) ||
            (st = rtopo__exec_range(bufs, size, "kernel", i, k->rank, k->dst_buf,
                                    k->dst_off, k->len)))
            return st;
    }
    return RTOPO_OK;
}

/* checked: s passed rtopo__sched_validate_exec (its bounds hold) */
static int rtopo__sim_exec_in(const rtopo__sched_t *s, uint8_t *const *const *bufs,
                              const uint64_t size[RTOPO__BUF_COUNT], int checked)
{
    rtopo__model_t m;
    double span;
    int st;

    if (!checked && (st = rtopo__sim_check(s)))
        return st;
    if (!bufs)
        return rtopo__error(RTOPO_ERR_INVAL, "no buffers");
    if ((st = rtopo__exec_ranges(s, bufs, size)))
        return st;
    rtopo__model_default(&m);
    return rtopo__des(s, &m, bufs, NULL, NULL, &span);
}

int rtopo__sim_exec_sized(const rtopo__sched_t *s, uint8_t *const *const *bufs,
                          const uint64_t size[RTOPO__BUF_COUNT])
{
    return rtopo__sim_exec_in(s, bufs, size, 0);
}

int rtopo__sim_exec_valid(const rtopo__sched_t *s, uint8_t *const *const *bufs,
                          const uint64_t size[RTOPO__BUF_COUNT])
{
    return s ? rtopo__sim_exec_in(s, bufs, size, 1) : rtopo__sim_check(s);
}

/* do a and b cost every hop and node alike (every parameter equal)? */
static int rtopo__model_same(const rtopo__model_t *a, const rtopo__model_t *b)
{
    int c;

    for (c = 0; c < RTOPO__LINK_COUNT; c++)
        if (a->ts[c] != b->ts[c] || a->tw[c] != b->tw[c] || a->th[c] != b->th[c])
            return 0;
    for (c = 0; c < RTOPO__REACH_COUNT; c++)
        if (a->reach_ts[c] != b->reach_ts[c] || a->reach_tw[c] != b->reach_tw[c] ||
            a->reach_th[c] != b->reach_th[c] || a->reach_set[c] != b->reach_set[c])
            return 0;
    return a->chunk == b->chunk && a->ports == b->ports && a->tk == b->tk &&
           a->tq == b->tq && a->tt == b->tt && a->eager == b->eager &&
           a->lanes == b->lanes && a->layout == b->layout &&
           a->hostlinks == b->hostlinks;
}

/* what rtopo__sim_run keeps of its last run of a graph (s->simmemo) */
typedef struct rtopo__sim_memo {
    uint64_t key;
    rtopo__model_t model;
    rtopo__sim_result_t res;
    int known;          /* 1: only res.model_time, known (rtopo__sim_known) */
} rtopo__sim_memo_t;

/* FNV-1a over 8-byte words in four lanes (32 bytes a round, the lanes'
 * multiplies independent: the hash of a large graph runs at the speed of
 * memory), then the lanes and the tail, byte by byte, into h */
static uint64_t rtopo__hash(uint64_t h, const void *p, size_t n)
{
    const uint64_t m = 0x100000001b3ull;
    const uint8_t *b = p;
    uint64_t w[4], l[4] = { h, h ^ 1, h ^ 2, h ^ 3 };
    int k;

    for (; n >= 32; n -= 32, b += 32) {
        memcpy(w, b, 32);
        for (k = 0; k < 4; k++)
            l[k] = (l[k] ^ w[k]) * m;
    }
    for (k = 0; k < 4; k++)
        h = (h ^ l[k]) * m;
    for (; n >= 8; n -= 8, b += 8) {
        memcpy(w, b, 8);
        h = (h ^ w[0]) * m;
    }
    for (; n; n--, b++)
        h = (h ^ *b) * m;
    return h;
}

/* the graph's nodes and edges, and the model's hosts */
static uint64_t rtopo__sim_key(const rtopo__sched_t *s, const rtopo__model_t *m)
{
    uint64_t h = 0xcbf29ce484222325ull;
    uint32_t n[5] = { s->nxfers, s->nhops, s->nkerns, s->ndeps, (uint32_t)s->topo.p };

    h = rtopo__hash(h, n, sizeof(n));
    h = rtopo__hash(h, s->xfers, (size_t)s->nxfers * sizeof(*s->xfers));
    if (s->xshapes)
        h = rtopo__hash(h, s->xshapes->v, (size_t)s->xshapes->n * sizeof(*s->xshapes->v));
    h = rtopo__hash(h, s->hops, (size_t)s->nhops * sizeof(*s->hops));
    h = rtopo__hash(h, s->kerns, (size_t)s->nkerns * sizeof(*s->kerns));
    if (s->kshapes)
        h = rtopo__hash(h, s->kshapes->v, (size_t)s->kshapes->n * sizeof(*s->kshapes->v));
    h = rtopo__hash(h, s->deps, (size_t)s->ndeps * sizeof(*s->deps));
    if (m->layout && m->layout->host)
        h = rtopo__hash(h, m->layout->host, (size_t)m->layout->nranks *
                                            sizeof(*m->layout->host));
    return h;
}

/* A graph run twice under one model (the choice of `auto` runs its
 * winner, and rtopo-sim runs what the choice returns) runs once: the
 * result is kept with the graph and taken again while the model is the
 * same and the nodes and edges hash alike. */
int rtopo__sim_run(const rtopo__sched_t *s, const rtopo__model_t *m,
                   rtopo__sim_result_t *r)
{
    rtopo__sim_memo_t *mm;
    rtopo__model_t def;
    uint64_t key;
    int st;

    if (!s || !r)
        return rtopo__sim_run_bufs(s, m, NULL, r);
    if (!m) {
        rtopo__model_default(&def);
        m = &def;
    }
    mm = s->simmemo;
    key = rtopo__sim_key(s, m);
    if (mm && mm->key == key && rtopo__model_same(&mm->model, m) && !mm->known) {
        *r = mm->res;
        return RTOPO_OK;
    }
    if (mm && mm->key == key && rtopo__model_same(&mm->model, m)) {
        /* the time known, the rest counted, the graph not run */
        if ((st = rtopo__sim_run_known(s, m, NULL, &mm->res.model_time, r)))
            return st;
    } else if ((st = rtopo__sim_run_bufs(s, m, NULL, r))) {
        return st;
    }
    if (!mm)
        mm = malloc(sizeof(*mm));
    if (mm) {
        mm->key = key;
        mm->model = *m;
        mm->res = *r;
        mm->known = 0;
        /* a cache beside the graph, not the graph */
        ((rtopo__sched_t *)s)->simmemo = mm;
    }
    return RTOPO_OK;
}

int rtopo__sim_known(const rtopo__sched_t *s, const rtopo__model_t *m, double model_time)
{
    rtopo__sim_memo_t *mm;
    rtopo__model_t def;

    if (!s)
        return rtopo__error(RTOPO_ERR_INVAL, "no schedule");
    if (!m) {
        rtopo__model_default(&def);
        m = &def;
    }
    /* the rest of the result when a run asks for it */
    mm = s->simmemo ? s->simmemo : malloc(sizeof(*mm));
    if (!mm)
        return rtopo__error(RTOPO_ERR_NOMEM, "keeping a run");
    memset(mm, 0, sizeof(*mm));
    mm->key = rtopo__sim_key(s, m);
    mm->model = *m;
    mm->res.model_time = model_time;
    mm->known = 1;
    ((rtopo__sched_t *)s)->simmemo = mm;
    return RTOPO_OK;
}

static int rtopo__sim_run_exec_in(const rtopo__sched_t *s, const rtopo__model_t *m,
                                  uint8_t *const *const *bufs,
                                  const uint64_t size[RTOPO__BUF_COUNT],
                                  rtopo__sim_result_t *r, int checked)
{
    rtopo__model_t def;
    int st;

    rtopo__model_default(&def);
    if (!m)
        m = &def;
    if (!r || !bufs)
        return rtopo__error(RTOPO_ERR_INVAL, "no result or no buffers");
    if (!rtopo__model_same(m, &def))
        return (st = rtopo__sim_run(s, m, r)) ? st : rtopo__sim_exec_in(s, bufs, size, checked);
    if ((!checked && (st = rtopo__sim_check(s))) || (st = rtopo__exec_ranges(s, bufs, size)))
        return st;
    return rtopo__sim_run_bufs(s, &def, bufs, r);
}

int rtopo__sim_run_exec(const rtopo__sched_t *s, const rtopo__model_t *m,
                        uint8_t *const *const *bufs, const uint64_t size[RTOPO__BUF_COUNT],
                        rtopo__sim_result_t *r)
{
    return rtopo__sim_run_exec_in(s, m, bufs, size, r, 0);
}

int rtopo__sim_run_exec_valid(const rtopo__sched_t *s, const rtopo__model_t *m,
                              uint8_t *const *const *bufs,
                              const uint64_t size[RTOPO__BUF_COUNT], rtopo__sim_result_t *r)
{
    return s ? rtopo__sim_run_exec_in(s, m, bufs, size, r, 1) : rtopo__sim_check(s);
}

int rtopo__sim_exec(const rtopo__sched_t *s, uint8_t *const *const *bufs)
{
    return rtopo__sim_exec_sized(s, bufs, NULL);
}
