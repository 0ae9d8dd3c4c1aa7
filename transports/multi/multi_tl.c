/*
 * multi_tl.c - composite backend: one transport per peer.
 *
 * RTOPO_TRANSPORT=auto on a job whose ranks share hosts only in part
 * opens this backend: the ranks of this rank's host are served by rtopo's
 * shared memory ("shm"), the ranks of other hosts by one network backend
 * (verbs, else ofi:tcp).  The engine still sees one ops table and speaks
 * one protocol; each call that names a peer goes to the backend that
 * serves it, and the calls that do not are done on both.
 *
 * Sub-backend 0 is always shm, 1 the network.  Every rank of the job
 * builds the same pair (the init's provider string, "shm+<net>", is
 * checked alike on every rank), so a position names the same backend at
 * both ends of a connection:
 *  - the address blob carries both backends' addresses, each with its
 *    trailing zero bytes left out (shm's segment name is padded), so that
 *    the pair fits RTOPO__TL_ADDR_MAX;
 *  - a registration is made on both backends, and its remote key carries
 *    shm's key in `key` and the network's in `key2` (the address of a
 *    region is its virtual address on both); a writer hands its backend
 *    the one that backend made;
 *  - completions come out of both: poll() reads the two in turn, so that
 *    neither starves.
 *
 * Blocking: wait() sleeps in epoll on both backends' wait descriptors at
 * once (wait_fd: shm's eventfd, which its senders write when they find
 * this rank asleep on it, and ofi's completion queue), in the calling
 * thread: an event of either backend ends the sleep with one wake-up, as
 * a plain backend's would.  Where either has no descriptor (verbs,
 * RTOPO_WAIT=poll), wait() sleeps in slices of MULTI_SLICE_MS,
 * alternately in each backend, and reads the completions after each
 * slice: an event of either backend ends the wait within one slice.
 *
 * Yielding: poll() never gives the processor away (both backends are
 * opened not to); the engine yields after an empty poll by its own rule,
 * the ranks of this host against its processors, as for any backend.
 *
 * The attributes are the conservative combination of both backends'
 * (the engine asks for them once, not per peer); see multi_query().
 *
 * Named "multi:<net>" (e.g. "multi:ofi:tcp") without the host map that
 * auto gives, ranks are split in two halves, the lower and the upper, as
 * if they ran on two hosts: that is what the conformance test runs.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include "rtopo.h"
#include "clock.h"
#include "log.h"
#include "tl.h"

#define MULTI_NB 2
#define MULTI_SHM 0
#define MULTI_NET 1
#define MULTI_QMAX 64
#define MULTI_SLICE_MS 1

struct multi_tl {
    const struct rtopo__tl_ops *ops[MULTI_NB];
    struct rtopo__tl *sub[MULTI_NB];
    char name[MULTI_NB][32];
    rtopo__tl_attr_t attr[MULTI_NB];
    size_t addr_full[MULTI_NB];     /* this rank's address lengths */
    int rank, nranks;
    uint8_t *route;                 /* per peer: MULTI_SHM or MULTI_NET */
    int npeers[MULTI_NB];
    size_t max_write;               /* the smaller of both */
    int first;                      /* backend polled first next time */
    rtopo__tl_event_t q[MULTI_QMAX];/* read by wait(), handed out by poll() */
    int qh, qn;
    /* sleeping on both backends (see the top of the file) */
    int fd_wait;                    /* 1: usable, 0: not tried, -1: not */
    int ep_fd;                      /* epoll: both descriptors, edge
                                       triggered */
    int fd_in[MULTI_NB];            /* descriptor of each in ep_fd, or -1 */
    /* counted for the debug line at close */
    unsigned long n_poll, n_empty, n_sleep, n_woke[MULTI_NB];
};

struct multi_mr {
    const struct rtopo__tl_ops *ops[MULTI_NB];
    struct rtopo__tl_mr *sub[MULTI_NB];
};

static struct multi_tl *multi_tl(struct rtopo__tl *tl)
{
    return (struct multi_tl *)tl;
}

/* "multi:<net>": the network backend's name, or NULL */
static const char *multi_net_name(const char *transport)
{
    if (!transport || strncmp(transport, "multi:", 6) || !transport[6])
        return NULL;
    return transport + 6;
}

static int multi_match(const char *transport)
{
    const char *net = multi_net_name(transport);
    const struct rtopo__tl_ops *ops = net ? rtopo__tl_find(net) : NULL;

    return ops != NULL && ops != &rtopo__tl_shm && ops != &rtopo__tl_multi;
}

/* never chosen by a plain "auto": the engine opens it per host map */
static int multi_available(const char *transport)
{
    const struct rtopo__tl_ops *net;

    if (!multi_match(transport))
        return 0;
    net = rtopo__tl_find(multi_net_name(transport));
    return rtopo__tl_shm.available("shm") && net->available(multi_net_name(transport));
}

static size_t multi_min(size_t a, size_t b)
{
    return a < b ? a : b;
}

static void multi_close(struct rtopo__tl *tl)
{
    struct multi_tl *t = multi_tl(tl);
    int b;

    if (!t)
        return;
    rtopo__debug("multi: %lu polls, %lu of them empty; %lu sleeps on both backends, "
                 "ended by shm %lu times, by %s %lu times", t->n_poll, t->n_empty,
                 t->n_sleep, t->n_woke[MULTI_SHM], t->name[MULTI_NET], t->n_woke[MULTI_NET]);
    if (t->ep_fd >= 0)
        close(t->ep_fd);
    for (b = 0; b < MULTI_NB; b++)
        if (t->sub[b])
            t->ops[b]->close(t->sub[b]);
    free(t->route);
    free(t);
}

static int multi_open(const rtopo__tl_params_t *params, struct rtopo__tl **tl_p)
{
    const char *net = multi_net_name(params->name);
    struct multi_tl *t;
    rtopo__tl_params_t p;
    int b, r, st;

    if (!multi_match(params->name))
        return rtopo__error(RTOPO_ERR_TRANSPORT, "multi: '%s' names no network backend",
                            params->name ? params->name : "(null)");
    if (!(t = calloc(1, sizeof(*t))) ||
        !(t->route = calloc((size_t)params->nranks, 1))) {
        if (t)
            free(t);
        return RTOPO_ERR_NOMEM;
    }
    t->rank = params->rank;
    t->nranks = params->nranks;
    t->ep_fd = -1;
    t->fd_in[MULTI_SHM] = t->fd_in[MULTI_NET] = -1;
    t->ops[MULTI_SHM] = &rtopo__tl_shm;
    t->ops[MULTI_NET] = rtopo__tl_find(net);
    snprintf(t->name[MULTI_SHM], sizeof(t->name[0]), "shm");
    snprintf(t->name[MULTI_NET], sizeof(t->name[0]), "%s", net);
    for (r = 0; r < t->nranks; r++) {
        int local;

        if (params->peer_local)
            local = params->peer_local[r] != 0;
        else    /* two halves, as two hosts */
            local = (r < (t->nranks + 1) / 2) == (t->rank < (t->nranks + 1) / 2);
        t->route[r] = local || r == t->rank ? MULTI_SHM : MULTI_NET;
        if (r != t->rank)
            t->npeers[t->route[r]]++;
    }
    for (b = 0; b < MULTI_NB; b++) {
        /* (multi_sendv passes pieces on: joining them here would need a
         * copy that outlives the call when ctx is set) */
        if (!RTOPO__TL_HAS(t->ops[b], sendv)) {
            st = rtopo__error(RTOPO_ERR_TRANSPORT, "multi: backend %s takes no control "
                              "message in pieces (sendv)", t->name[b]);
            multi_close((struct rtopo__tl *)t);
            return st;
        }
        p = *params;
        p.name = t->name[b];
        p.poll_no_yield = 1;
        if ((st = t->ops[b]->open(&p, &t->sub[b]))) {
            t->sub[b] = NULL;
            multi_close((struct rtopo__tl *)t);
            return st;
        }
        t->ops[b]->query(t->sub[b], &t->attr[b]);
    }
    t->max_write = multi_min(t->attr[MULTI_SHM].max_write, t->attr[MULTI_NET].max_write);
    rtopo__info("transport per peer: %s for %d rank%s of this host, %s for %d rank%s of "
                "other hosts", t->attr[MULTI_SHM].provider, t->npeers[MULTI_SHM],
                t->npeers[MULTI_SHM] == 1 ? "" : "s", t->attr[MULTI_NET].provider,
                t->npeers[MULTI_NET], t->npeers[MULTI_NET] == 1 ? "" : "s");
    *tl_p = (struct rtopo__tl *)t;
    return RTOPO_OK;
}

/* Conservative: what holds for every peer, whichever backend serves it. */
static void multi_query(struct rtopo__tl *tl, rtopo__tl_attr_t *attr)
{
    struct multi_tl *t = multi_tl(tl);
    const rtopo__tl_attr_t *s = &t->attr[MULTI_SHM], *n = &t->attr[MULTI_NET];
    size_t us = rtopo__tl_write_unit(s), un = rtopo__tl_write_unit(n);

    memset(attr, 0, sizeof(*attr));
    attr->max_write = multi_min(s->max_write, n->max_write);
    /* a backend that writes in one piece takes the other's pieces too */
    attr->write_unit = s->write_unit || n->write_unit ? multi_min(us, un) : 0;
    attr->inject_max = multi_min(s->inject_max, n->inject_max);
    attr->blocking_wait = s->blocking_wait && n->blocking_wait;
    attr->send_nowait_max = multi_min(s->send_nowait_max, n->send_nowait_max);
    attr->reg_per_op = s->reg_per_op && n->reg_per_op;
    /* neither part yields (both are opened not to): the engine does, by
     * its rule */
    attr->poll_yields = 0;
    attr->write_src_any = s->write_src_any && n->write_src_any;
    snprintf(attr->provider, sizeof(attr->provider), "%.31s+%.31s", s->provider,
             n->provider);
}

/* blob: full length and kept length of each part, then the kept bytes */
static int multi_addr_get(struct rtopo__tl *tl, void *blob, size_t *len)
{
    struct multi_tl *t = multi_tl(tl);
    uint8_t part[MULTI_NB][RTOPO__TL_ADDR_MAX], *out = blob;
    size_t full[MULTI_NB], keep[MULTI_NB], need = 2 * MULTI_NB;
    int b, st;

    for (b = 0; b < MULTI_NB; b++) {
        full[b] = sizeof(part[b]);
        if ((st = t->ops[b]->addr_get(t->sub[b], part[b], &full[b])))
            return st;
        for (keep[b] = full[b]; keep[b] > 0 && part[b][keep[b] - 1] == 0; keep[b]--)
            ;
        t->addr_full[b] = full[b];
        need += keep[b];
    }
    if (need > *len)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "multi: addresses of %s (%zu B) and %s "
                            "(%zu B) do not fit in %zu bytes", t->name[0], keep[0],
                            t->name[1], keep[1], *len);
    for (b = 0; b < MULTI_NB; b++) {
        out[2 * b] = (uint8_t)full[b];
        out[2 * b + 1] = (uint8_t)keep[b];
    }
    out += 2 * MULTI_NB;
    for (b = 0; b < MULTI_NB; b++) {
        memcpy(out, part[b], keep[b]);
        out += keep[b];
    }
    *len = need;
    return RTOPO_OK;
}

/* the part of peer's address for backend want, into part (its full
 * length in *full) */
static int multi_part(int peer, int want, const void *blob, size_t len,
                      uint8_t part[RTOPO__TL_ADDR_MAX], size_t *full_p)
{
    const uint8_t *in = blob, *at = in + 2 * MULTI_NB;
    size_t full, keep, used = 2 * MULTI_NB;
    int b;

    for (b = 0; b < MULTI_NB; b++)
        used += len >= 2 * MULTI_NB ? in[2 * b + 1] : 0;
    if (len < 2 * MULTI_NB || used > len)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "multi: address of rank %d (%zu B) is "
                            "not a shm+network pair", peer, len);
    for (b = 0; b < want; b++)
        at += in[2 * b + 1];
    full = in[2 * want];
    keep = in[2 * want + 1];
    if (full > RTOPO__TL_ADDR_MAX || keep > full)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "multi: address of rank %d is malformed",
                            peer);
    memset(part, 0, RTOPO__TL_ADDR_MAX);
    memcpy(part, at, keep);
    *full_p = full;
    return RTOPO_OK;
}

static int multi_connect(struct rtopo__tl *tl, int peer, const void *blob, size_t len)
{
    struct multi_tl *t = multi_tl(tl);
    uint8_t part[RTOPO__TL_ADDR_MAX];
    size_t full;
    int want, st;

    if (peer < 0 || peer >= t->nranks)
        return rtopo__error(RTOPO_ERR_INVAL, "peer %d out of range", peer);
    want = t->route[peer];
    if ((st = multi_part(peer, want, blob, len, part, &full)))
        return st;
    return t->ops[want]->connect(t->sub[want], peer, part, full);
}

/* the network backend checks the addresses of the peers it serves
 * (and this rank's own, printed); those of shm's peers are reachable */
static int multi_addr_check(struct rtopo__tl *tl, int n, const int *peer,
                            const void *const *blob, const size_t *len, char *text,
                            uint8_t *bad)
{
    struct multi_tl *t = multi_tl(tl);
    const struct rtopo__tl_ops *net = t->ops[MULTI_NET];
    union { uint8_t b[RTOPO__TL_ADDR_MAX]; uint64_t align; } *part = NULL;
    const void **pb = NULL;
    size_t *pl = NULL;
    uint8_t *pbad = NULL;
    char *ptext = NULL;
    int *pp = NULL, *at = NULL;
    int i, m = 0, st = RTOPO_OK;

    for (i = 0; i < n; i++) {
        text[(size_t)i * RTOPO__TL_ADDR_TEXT] = '\0';
        bad[i] = 0;
    }
    if (n <= 0 || !RTOPO__TL_HAS(net, addr_check))
        return RTOPO_OK;
    if (!(part = malloc((size_t)n * sizeof(*part))) || !(pb = malloc((size_t)n * sizeof(*pb))) ||
        !(pl = malloc((size_t)n * sizeof(*pl))) || !(pbad = malloc((size_t)n)) ||
        !(ptext = malloc((size_t)n * RTOPO__TL_ADDR_TEXT)) ||
        !(pp = malloc((size_t)n * sizeof(*pp))) || !(at = malloc((size_t)n * sizeof(*at)))) {
        st = rtopo__error(RTOPO_ERR_NOMEM, "multi: address check of %d ranks", n);
        goto out;
    }
    for (i = 0; i < n; i++) {
        if (peer[i] < 0 || peer[i] >= t->nranks ||
            (peer[i] != t->rank && t->route[peer[i]] != MULTI_NET))
            continue;
        if ((st = multi_part(peer[i], MULTI_NET, blob[i], len[i], part[m].b, &pl[m])))
            goto out;
        pb[m] = part[m].b;
        pp[m] = peer[i];
        at[m++] = i;
    }
    if (m && (st = net->addr_check(t->sub[MULTI_NET], m, pp, pb, pl, ptext, pbad)))
        goto out;
    for (i = 0; i < m; i++) {
        bad[at[i]] = pbad[i];
        memcpy(text + (size_t)at[i] * RTOPO__TL_ADDR_TEXT,
               ptext + (size_t)i * RTOPO__TL_ADDR_TEXT, RTOPO__TL_ADDR_TEXT);
    }
out:
    free(part);
    free(pb);
    free(pl);
    free(pbad);
    free(ptext);
    free(pp);
    free(at);
    return st;
}

static int multi_mem_dereg(struct rtopo__tl_mr *mr)
{
    struct multi_mr *m = (struct multi_mr *)mr;
    int b, st, ret = RTOPO_OK;

    for (b = 0; b < MULTI_NB; b++)
        if (m->sub[b] && (st = m->ops[b]->mem_dereg(m->sub[b])) && !ret)
            ret = st;
    free(m);
    return ret;
}

static int multi_mem_reg(struct rtopo__tl *tl, void *buf, size_t len, unsigned access,
                         struct rtopo__tl_mr **mr_p)
{
    struct multi_tl *t = multi_tl(tl);
    struct multi_mr *m = calloc(1, sizeof(*m));
    int b, st;

    if (!m)
        return RTOPO_ERR_NOMEM;
    for (b = 0; b < MULTI_NB; b++) {
        m->ops[b] = t->ops[b];
        /* a backend that serves nobody here never touches the buffer */
        if (!t->npeers[b] && b != MULTI_SHM)
            continue;
        if ((st = t->ops[b]->mem_reg(t->sub[b], buf, len, access, &m->sub[b]))) {
            m->sub[b] = NULL;
            multi_mem_dereg((struct rtopo__tl_mr *)m);
            return st;
        }
    }
    *mr_p = (struct rtopo__tl_mr *)m;
    return RTOPO_OK;
}

/* any thread, as the backends' own */
static void multi_mem_close(struct rtopo__tl_mr *mr)
{
    struct multi_mr *m = (struct multi_mr *)mr;
    int b;

    for (b = 0; m && b < MULTI_NB; b++)
        if (m->sub[b] && RTOPO__TL_HAS(m->ops[b], mem_close))
            m->ops[b]->mem_close(m->sub[b]);
}

static void multi_mem_rkey(struct rtopo__tl_mr *mr, rtopo__rkey_t *rkey)
{
    struct multi_mr *m = (struct multi_mr *)mr;
    rtopo__rkey_t k;

    memset(rkey, 0, sizeof(*rkey));
    if (m->sub[MULTI_NET]) {
        m->ops[MULTI_NET]->mem_rkey(m->sub[MULTI_NET], &k);
        rkey->key2 = k.key;
        rkey->addr = k.addr;
    }
    m->ops[MULTI_SHM]->mem_rkey(m->sub[MULTI_SHM], &k);
    rkey->key = k.key;
    rkey->addr = k.addr;
}

static int multi_write(struct rtopo__tl *tl, int peer, const void *buf, size_t len,
                       struct rtopo__tl_mr *lmr, const rtopo__rkey_t *rkey,
                       uint64_t roffset, uint32_t imm, unsigned flags, void *ctx)
{
    struct multi_tl *t = multi_tl(tl);
    struct multi_mr *m = (struct multi_mr *)lmr;
    rtopo__rkey_t k;
    int b;

    if (peer < 0 || peer >= t->nranks)
        return rtopo__error(RTOPO_ERR_INVAL, "peer %d out of range", peer);
    b = t->route[peer];
    /* the limit query() gives holds for every peer */
    if (len > t->max_write)
        return rtopo__error(RTOPO_ERR_INVAL, "multi: write of %zu bytes is over the limit "
                            "of %zu", len, t->max_write);
    k.key = b == MULTI_SHM ? rkey->key : rkey->key2;
    k.addr = rkey->addr;
    k.key2 = 0;
    return t->ops[b]->write(t->sub[b], peer, buf, len, m ? m->sub[b] : NULL, &k, roffset,
                            imm, flags, ctx);
}

static int multi_send(struct rtopo__tl *tl, int peer, const void *buf, size_t len, void *ctx)
{
    struct multi_tl *t = multi_tl(tl);
    int b;

    if (peer < 0 || peer >= t->nranks)
        return rtopo__error(RTOPO_ERR_INVAL, "peer %d out of range", peer);
    b = t->route[peer];
    return t->ops[b]->send(t->sub[b], peer, buf, len, ctx);
}

/* to the backend that serves the peer, in two pieces as given: every
 * backend multi opens has sendv (multi_open) */
static int multi_sendv(struct rtopo__tl *tl, int peer, const void *hdr, size_t hlen,
                       const void *payload, size_t plen, void *ctx)
{
    struct multi_tl *t = multi_tl(tl);
    int b;

    if (peer < 0 || peer >= t->nranks)
        return rtopo__error(RTOPO_ERR_INVAL, "peer %d out of range", peer);
    b = t->route[peer];
    return t->ops[b]->sendv(t->sub[b], peer, hdr, hlen, payload, plen, ctx);
}

/* reads both backends, starting with the one read second last time */
static int multi_read(struct multi_tl *t, rtopo__tl_event_t *ev, int max)
{
    int i, b, n = 0, k;

    for (i = 0; i < MULTI_NB && n < max; i++) {
        b = (t->first + i) % MULTI_NB;
        k = t->ops[b]->poll(t->sub[b], ev + n, max - n);
        if (k < 0)
            return n ? n : k;
        n += k;
    }
    t->first = (t->first + 1) % MULTI_NB;
    return n;
}

static int multi_poll(struct rtopo__tl *tl, rtopo__tl_event_t *ev, int max)
{
    struct multi_tl *t = multi_tl(tl);
    int n;

    if (t->qn) {
        /* read by wait(); their data stay valid: the backends have not
         * been polled since */
        n = t->qn - t->qh < max ? t->qn - t->qh : max;
        memcpy(ev, t->q + t->qh, (size_t)n * sizeof(*ev));
        t->qh += n;
        if (t->qh == t->qn)
            t->qh = t->qn = 0;
        return n;
    }
    n = multi_read(t, ev, max);
    t->n_poll++;
    t->n_empty += n == 0;
    return n;
}

/* can wait() sleep on both backends at once?  Set up on first use */
static int multi_fd_wait_ok(struct multi_tl *t)
{
    if (t->fd_wait)
        return t->fd_wait > 0;
    t->fd_wait = -1;
    if (!RTOPO__TL_HAS(t->ops[MULTI_NET], wait_fd) || !RTOPO__TL_HAS(t->ops[MULTI_SHM], wait_fd))
        return 0;
    if ((t->ep_fd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        rtopo__info("multi: epoll_create1: %m: waits alternate between the backends");
        return 0;
    }
    t->fd_wait = 1;
    return 1;
}

/* reads what both backends have into the queue poll() hands out */
static int multi_fill(struct multi_tl *t)
{
    int n = multi_read(t, t->q, MULTI_QMAX);

    if (n > 0) {
        t->qh = 0;
        t->qn = n;
    }
    return n;
}

/* Arms backend b's descriptor for a sleep: 1 armed, 0 it has work (do not
 * sleep), -1 it has no descriptor after all (slices from now on). */
static int multi_arm(struct multi_tl *t, int b)
{
    struct epoll_event ev;
    int fd = -1, st;

    st = t->ops[b]->wait_fd(t->sub[b], &fd);
    if (st == RTOPO_ERR_BUSY)
        return 0;
    if (!st && t->fd_in[b] < 0) {
        memset(&ev, 0, sizeof(ev));
        ev.events = EPOLLIN | EPOLLET;
        ev.data.u32 = (uint32_t)b;
        if (epoll_ctl(t->ep_fd, EPOLL_CTL_ADD, fd, &ev)) {
            rtopo__info("multi: epoll_ctl: %m: waits alternate between the backends");
            st = RTOPO_ERR_UNSUPPORTED;
        } else {
            t->fd_in[b] = fd;
        }
    }
    if (!st && fd != t->fd_in[b]) {    /* the descriptor may not change */
        rtopo__info("multi: the wait descriptor of %s changed: waits alternate between "
                    "the backends", t->name[b]);
        st = RTOPO_ERR_UNSUPPORTED;
    }
    if (st) {
        t->fd_wait = -1;
        return -1;
    }
    return 1;
}

/* One sleep on both backends at once, up to timeout_ms: 0 when done (or
 * not needed), -1 when it cannot be done (no descriptor). */
static int multi_sleep_both(struct multi_tl *t, int timeout_ms)
{
    struct epoll_event ev[MULTI_NB];
    int i, n, st;

    /* the network first: shm's arming tells its senders that we sleep,
     * and each of its writes then costs them a system call */
    if ((st = multi_arm(t, MULTI_NET)) <= 0 || (st = multi_arm(t, MULTI_SHM)) <= 0)
        return st < 0 ? -1 : 0;
    t->n_sleep++;
    n = epoll_wait(t->ep_fd, ev, MULTI_NB, timeout_ms);
    for (i = 0; i < n; i++)
        if (ev[i].data.u32 < MULTI_NB)
            t->n_woke[ev[i].data.u32]++;
    return 0;
}

static int multi_wait(struct rtopo__tl *tl, int timeout_ms)
{
    struct multi_tl *t = multi_tl(tl);
    uint64_t now, end = rtopo__now_ns() +
        (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;
    int b = MULTI_SHM, n, slice, left;

    if (t->qn)
        return RTOPO_OK;
    if (timeout_ms > 0 && t->npeers[MULTI_NET] && multi_fd_wait_ok(t)) {
        for (left = timeout_ms;;) {
            if (multi_sleep_both(t, left) < 0)
                break;    /* no descriptor after all: slices below */
            /* the backends' poll() ends their sleep (shm's flag) */
            if ((n = multi_fill(t)) != 0)
                return n < 0 ? n : RTOPO_OK;
            now = rtopo__now_ns();
            if (now >= end)
                return RTOPO_OK;
            left = (int)((end - now + 999999) / 1000000);
        }
    }
    for (;;) {
        /* the network backend only when it serves someone here */
        if (b == MULTI_SHM || t->npeers[MULTI_NET]) {
            slice = timeout_ms > 0 ? MULTI_SLICE_MS : 0;
            t->ops[b]->wait(t->sub[b], slice);
            n = t->ops[b]->poll(t->sub[b], t->q, MULTI_QMAX);
            if (n != 0) {
                if (n < 0)
                    return n;
                t->qh = 0;
                t->qn = n;
                return RTOPO_OK;
            }
        }
        b = (b + 1) % MULTI_NB;
        if (b == MULTI_SHM && rtopo__now_ns() >= end)
            return RTOPO_OK;
    }
}

static int multi_set_auth(struct rtopo__tl *tl, int peer, const void *key, size_t len)
{
    struct multi_tl *t = multi_tl(tl);
    int b, st;

    for (b = 0; b < MULTI_NB; b++)
        if (RTOPO__TL_HAS(t->ops[b], set_auth) &&
            (st = t->ops[b]->set_auth(t->sub[b], peer, key, len)))
            return st;
    return RTOPO_OK;
}

/* the smaller of both backends' own eager limits */
static size_t multi_eager_default(const char *transport, size_t hdr)
{
    const struct rtopo__tl_ops *net;
    size_t s = 0, n = 0;

    if (!multi_match(transport))
        return 0;
    net = rtopo__tl_find(multi_net_name(transport));
    if (RTOPO__TL_HAS(&rtopo__tl_shm, eager_default))
        s = rtopo__tl_shm.eager_default("shm", hdr);
    if (RTOPO__TL_HAS(net, eager_default))
        n = net->eager_default(multi_net_name(transport), hdr);
    return s && n ? multi_min(s, n) : s ? s : n;
}

static void multi_info(const char *transport, void (*out)(const char *line, void *arg),
                       void *arg)
{
    if (transport && !multi_match(transport))
        return;
    const char *net = NULL;
    char line[320];
    int i;
    const struct rtopo__tl_ops *ops;

    if (transport && !multi_match(transport))
        return;
    for (i = 0; (ops = rtopo__tl_get(i)) != NULL && !net; i++)
        if (ops != &rtopo__tl_shm && ops != &rtopo__tl_multi && ops->available(NULL))
            net = strcmp(ops->name, "ofi") ? ops->name : "ofi:tcp";
    snprintf(line, sizeof(line), "auto     shm to the ranks of the same host (RTOPO_HOST_ID, "
             "else the machine), %s to the ranks of other hosts (verbs when every rank has "
             "an active RDMA port, else ofi:tcp); %s; the init log line counts the ranks "
             "each serves", net ? net : "no network backend",
             rtopo__tl_shm.available("shm") && net ? "usable here" : "not usable here");
    out(line, arg);
}

const struct rtopo__tl_ops rtopo__tl_multi = {
    .size = sizeof(struct rtopo__tl_ops),
    .name = "multi",
    .match = multi_match,
    .available = multi_available,
    .open = multi_open,
    .close = multi_close,
    .query = multi_query,
    .addr_get = multi_addr_get,
    .connect = multi_connect,
    .mem_reg = multi_mem_reg,
    .mem_dereg = multi_mem_dereg,
    .mem_rkey = multi_mem_rkey,
    .mem_close = multi_mem_close,
    .write = multi_write,
    .send = multi_send,
    .poll = multi_poll,
    .wait = multi_wait,
    .info = multi_info,
    .set_auth = multi_set_auth,
    .eager_default = multi_eager_default,
    .sendv = multi_sendv,
    .addr_check = multi_addr_check,
};
