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
 * Blocking: shm sleeps on a futex, which poll(2) cannot watch beside the
 * network backend's descriptor.  When the network backend gives out its
 * wait descriptor (wait_fd, ofi's completion queue) and shm can be woken
 * from another thread (wake), wait() sleeps in shm while a thread of this
 * backend, the waker, sleeps in epoll on the descriptor and wakes shm
 * when it signals: an event of either backend ends the wait at once,
 * though a network event takes two wake-ups (the waker's, then this
 * thread's).  The waker sleeps on a condition variable whenever no wait is
 * under way, and touches nothing but the descriptor and shm's wake.
 * Without both (verbs, RTOPO_WAIT=poll), wait() sleeps in slices of
 * MULTI_SLICE_MS, alternately in each backend, and reads the completions
 * after each slice: an event of either backend ends the wait within one
 * slice.
 *
 * The attributes are the conservative combination of both backends'
 * (the engine asks for them once, not per peer); see multi_query().
 *
 * Named "multi:<net>" (e.g. "multi:ofi:tcp") without the host map that
 * auto gives, ranks are split in two halves, the lower and the upper, as
 * if they ran on two hosts: that is what the conformance test runs.
 */
#include "config.h"
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include "rtopo.h"
#include "clock.h"
#include "cpus.h"
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
    int yield;                      /* more ranks than cpus: a poll empty
                                       on both backends yields */
    rtopo__tl_event_t q[MULTI_QMAX];/* read by wait(), handed out by poll() */
    int qh, qn;
    /* the waker (see the top of the file); wlock guards armed and
     * stop */
    int fd_wait;                    /* 1: usable, 0: not tried, -1: not */
    int waker_on;
    pthread_t waker;
    pthread_mutex_t wlock;
    pthread_cond_t wcond;
    int armed;                      /* a wait sleeps in shm: watch net_fd */
    int net_fd;                     /* the network's wait descriptor */
    int stop;
    int kick_fd;                    /* eventfd: ends the waker's sleep */
    int ep_fd;                      /* the waker's epoll: net_fd (edge
                                       triggered) and kick_fd */
    int net_fd_in;                  /* net_fd is in ep_fd */
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

static void multi_waker_stop(struct multi_tl *t)
{
    uint64_t one = 1;

    if (!t->waker_on)
        return;
    pthread_mutex_lock(&t->wlock);
    t->stop = 1;
    pthread_cond_signal(&t->wcond);
    pthread_mutex_unlock(&t->wlock);
    if (write(t->kick_fd, &one, sizeof(one)) < 0)
        rtopo__debug("multi: eventfd write: %m");
    pthread_join(t->waker, NULL);
    t->waker_on = 0;
}

static void multi_close(struct rtopo__tl *tl)
{
    struct multi_tl *t = multi_tl(tl);
    int b;

    if (!t)
        return;
    multi_waker_stop(t);
    if (t->kick_fd >= 0)
        close(t->kick_fd);
    if (t->ep_fd >= 0)
        close(t->ep_fd);
    pthread_cond_destroy(&t->wcond);
    pthread_mutex_destroy(&t->wlock);
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
    long ncpu;
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
    /* shm's own rule (it is opened not to yield): with hosts emulated on
     * one machine (RTOPO_HOST_ID) every rank of the job shares its cpus */
    ncpu = rtopo__cpus_shared();
    t->yield = !params->poll_no_yield && ncpu > 0 && t->nranks > ncpu;
    t->kick_fd = -1;
    t->ep_fd = -1;
    t->net_fd = -1;
    pthread_mutex_init(&t->wlock, NULL);
    pthread_cond_init(&t->wcond, NULL);
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
    /* shm is opened not to yield (its part of a poll may be empty while
     * the network's has events): poll() yields when both parts are */
    attr->poll_yields = t->yield;
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

static int multi_connect(struct rtopo__tl *tl, int peer, const void *blob, size_t len)
{
    struct multi_tl *t = multi_tl(tl);
    const uint8_t *in = blob, *at = in + 2 * MULTI_NB;
    uint8_t part[RTOPO__TL_ADDR_MAX];
    size_t full, keep, used = 2 * MULTI_NB;
    int b, want;

    if (peer < 0 || peer >= t->nranks)
        return rtopo__error(RTOPO_ERR_INVAL, "peer %d out of range", peer);
    want = t->route[peer];
    for (b = 0; b < MULTI_NB; b++)
        used += len >= 2 * MULTI_NB ? in[2 * b + 1] : 0;
    if (len < 2 * MULTI_NB || used > len)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "multi: address of rank %d (%zu B) is "
                            "not a shm+network pair", peer, len);
    for (b = 0; b < want; b++)
        at += in[2 * b + 1];
    full = in[2 * want];
    keep = in[2 * want + 1];
    if (full > sizeof(part) || keep > full)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "multi: address of rank %d is malformed",
                            peer);
    memset(part, 0, sizeof(part));
    memcpy(part, at, keep);
    return t->ops[want]->connect(t->sub[want], peer, part, full);
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
    /* with more ranks than cpus, let the one we wait for run */
    if (n == 0 && t->yield)
        sched_yield();
    return n;
}

/* the waker: while a wait sleeps in shm, sleeps on the network backend's
 * descriptor and wakes shm when it signals.  The descriptor is watched
 * edge triggered: it may stay readable while the network has nothing for
 * poll() (bytes the provider takes only later), and only a change ends
 * the sleep; an edge from while no wait slept costs one early return. */
static void *multi_waker(void *arg)
{
    struct multi_tl *t = arg;
    struct epoll_event ev[2];
    uint64_t v;
    int n, i, net;

    pthread_mutex_lock(&t->wlock);
    for (;;) {
        while (!t->armed && !t->stop)
            pthread_cond_wait(&t->wcond, &t->wlock);
        if (t->stop)
            break;
        pthread_mutex_unlock(&t->wlock);
        n = epoll_wait(t->ep_fd, ev, 2, -1);
        for (i = 0, net = n < 0; i < n; i++) {
            if (ev[i].data.fd == t->kick_fd) {
                if (read(t->kick_fd, &v, sizeof(v)) < 0)
                    v = 0;    /* nonblocking: drained already */
            } else {
                net = 1;
            }
        }
        pthread_mutex_lock(&t->wlock);
        if (net && t->armed) {
            t->armed = 0;
            t->ops[MULTI_SHM]->wake(t->sub[MULTI_SHM]);
        }
    }
    pthread_mutex_unlock(&t->wlock);
    return NULL;
}

/* can wait() sleep on both backends at once?  Set up on first use */
static int multi_fd_wait_ok(struct multi_tl *t)
{
    struct epoll_event ev;
    int st;

    if (t->fd_wait)
        return t->fd_wait > 0;
    t->fd_wait = -1;
    if (!RTOPO__TL_HAS(t->ops[MULTI_NET], wait_fd) || !RTOPO__TL_HAS(t->ops[MULTI_SHM], wake))
        return 0;
    if ((t->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0 ||
        (t->ep_fd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        rtopo__info("multi: eventfd/epoll: %m: waits alternate between the backends");
        return 0;
    }
    memset(&ev, 0, sizeof(ev));
    ev.events = EPOLLIN;
    ev.data.fd = t->kick_fd;
    if (epoll_ctl(t->ep_fd, EPOLL_CTL_ADD, t->kick_fd, &ev)) {
        rtopo__info("multi: epoll_ctl: %m: waits alternate between the backends");
        return 0;
    }
    if ((st = pthread_create(&t->waker, NULL, multi_waker, t))) {
        rtopo__info("multi: waker thread: %s: waits alternate between the backends",
                    strerror(st));
        return 0;
    }
    t->waker_on = 1;
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

/* one sleep on both backends at once: 0 if it cannot be done now */
static int multi_sleep_both(struct multi_tl *t, int timeout_ms)
{
    const struct rtopo__tl_ops *net = t->ops[MULTI_NET];
    uint64_t one = 1;
    int fd = -1, st, was;

    st = net->wait_fd(t->sub[MULTI_NET], &fd);
    if (st == RTOPO_ERR_BUSY)
        return 1;    /* the network has work: no sleep, read it */
    if (!st && !t->net_fd_in) {
        struct epoll_event ev;

        memset(&ev, 0, sizeof(ev));
        ev.events = EPOLLIN | EPOLLET;
        ev.data.fd = fd;
        if (epoll_ctl(t->ep_fd, EPOLL_CTL_ADD, fd, &ev)) {
            rtopo__info("multi: epoll_ctl: %m: waits alternate between the backends");
            st = RTOPO_ERR_UNSUPPORTED;
        }
        t->net_fd_in = !st;
        t->net_fd = st ? -1 : fd;
    }
    if (st || fd != t->net_fd) {    /* the descriptor may not change */
        if (!st)
            rtopo__info("multi: the network's wait descriptor changed: waits "
                        "alternate between the backends");
        t->fd_wait = -1;    /* none after all: slices */
        return 0;
    }
    pthread_mutex_lock(&t->wlock);
    t->armed = 1;
    pthread_cond_signal(&t->wcond);
    pthread_mutex_unlock(&t->wlock);
    t->ops[MULTI_SHM]->wait(t->sub[MULTI_SHM], timeout_ms);
    pthread_mutex_lock(&t->wlock);
    was = t->armed;
    t->armed = 0;
    pthread_mutex_unlock(&t->wlock);
    /* the waker may still sleep on the descriptor: end it */
    if (was && write(t->kick_fd, &one, sizeof(one)) < 0)
        rtopo__debug("multi: eventfd write: %m");
    return 1;
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
            if (!multi_sleep_both(t, left))
                break;    /* no descriptor after all: slices below */
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
    .write = multi_write,
    .send = multi_send,
    .poll = multi_poll,
    .wait = multi_wait,
    .info = multi_info,
    .set_auth = multi_set_auth,
    .eager_default = multi_eager_default,
    /* no sendv: shm has none, and a joined copy would have to outlive
     * send() when ctx is set; the engine joins the pieces itself */
};
