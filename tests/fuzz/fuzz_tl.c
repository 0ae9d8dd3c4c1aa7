/*
 * fuzz_tl.c - the in-memory transport and the virtual clock of the
 * control-message harnesses (fuzz_tl.h), and the stubs for what they
 * build without.
 */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo_int.h"
#include "boot_wire.h"
#include "fuzz_common.h"
#include "fuzz_tl.h"

/* ---- virtual clock (instead of base/clock.c) -------------------------- */

uint64_t fz_now = FZ_EPOCH_NS;

uint64_t rtopo__now_ns(void)
{
    return fz_now += FZ_TICK_NS;
}

uint64_t rtopo__now_ns_upper(void)
{
    return rtopo__now_ns();
}

/* ---- in-memory transport (instead of transports/tl.c) ----------------- */

struct fz_ev {
    rtopo__tl_event_t ev;
    void *data;                 /* owned copy of a RECV's bytes */
    struct fz_ev *next;
};

struct rtopo__tl {
    int rank, nranks;
    size_t ctrl_size;
    struct fz_ev *head, *tail;  /* not polled yet */
    struct fz_ev *polled;       /* returned by the last poll: their data
                                   stays valid until the next one */
    int pending;
};

struct rtopo__tl_mr {
    const uint8_t *buf;
    size_t len;
};

static struct {
    rtopo_ctx_t *ctx;
    struct rtopo__tl *tl;
    size_t nowait;
} fz_tl;

/* what the engine hands over is read in full (memcpy is checked by the
 * sanitizer over the whole range) */
uint8_t fz_tl_scratch[1 << 16];

static void fz_touch(const void *buf, size_t len)
{
    const uint8_t *p = buf;
    size_t k;

    while (len) {
        k = len < sizeof(fz_tl_scratch) ? len : sizeof(fz_tl_scratch);
        memcpy(fz_tl_scratch, p, k);
        p += k;
        len -= k;
    }
}

/* event records are kept for reuse (the engine only ever sees copies of
 * the events); the bytes of a received message are not */
static struct fz_ev *fz_ev_pool;

static void fz_free_list(struct fz_ev *e)
{
    struct fz_ev *next;

    for (; e; e = next) {
        next = e->next;
        free(e->data);
        e->data = NULL;
        e->next = fz_ev_pool;
        fz_ev_pool = e;
    }
}

static void fz_push(struct rtopo__tl *tl, const rtopo__tl_event_t *ev, void *data)
{
    struct fz_ev *e = fz_ev_pool;

    if (e)
        fz_ev_pool = e->next;
    else
        e = malloc(sizeof(*e));
    FZ_CHECK(e, "out of memory");
    e->next = NULL;
    e->ev = *ev;
    e->data = data;
    if (data)
        e->ev.data = data;
    if (tl->tail)
        tl->tail->next = e;
    else
        tl->head = e;
    tl->tail = e;
    tl->pending++;
}

void fz_tl_set_ctx(rtopo_ctx_t *ctx)
{
    fz_tl.ctx = ctx;
}

void fz_tl_set_nowait(size_t n)
{
    fz_tl.nowait = n;
}

int fz_tl_is_open(void)
{
    return fz_tl.tl != NULL;
}

size_t fz_tl_ctrl_size(void)
{
    FZ_CHECK(fz_tl.tl, "no transport open");
    return fz_tl.tl->ctrl_size;
}

int fz_tl_pending(void)
{
    return fz_tl.tl ? fz_tl.tl->pending : 0;
}

void fz_tl_recv(void *msg, size_t len)
{
    const rtopo__msg_t *m = msg;
    rtopo__tl_event_t ev;

    FZ_CHECK(fz_tl.tl, "no transport open");
    memset(&ev, 0, sizeof(ev));
    ev.type = RTOPO__TL_EV_RECV;
    ev.peer = len >= RTOPO__MSG_HDR && m->src >= 0 && m->src < fz_tl.tl->nranks ?
              m->src : -1;
    ev.len = len;
    fz_push(fz_tl.tl, &ev, msg);
}

void fz_tl_event(const rtopo__tl_event_t *ev)
{
    FZ_CHECK(fz_tl.tl, "no transport open");
    fz_push(fz_tl.tl, ev, NULL);
}

void fz_tl_peer_lost(int peer)
{
    rtopo__tl_event_t ev;

    memset(&ev, 0, sizeof(ev));
    ev.type = RTOPO__TL_EV_ERROR;
    ev.peer = peer;
    ev.status = RTOPO_ERR_PEER;
    snprintf(ev.msg, sizeof(ev.msg), "connection reset (fuzz)");
    fz_tl_event(&ev);
}

static union {
    rtopo__msg_t m;
    uint8_t b[65536];
} fz_msgbuf;

rtopo__msg_t *fz_tl_msg_read(fz_in_t *in, size_t len)
{
    FZ_CHECK(len <= sizeof(fz_msgbuf), "message of %zu bytes", len);
    fz_bytes(in, fz_msgbuf.b, len);
    return &fz_msgbuf.m;
}

void fz_tl_recv_copy(const void *msg, size_t len)
{
    void *out = malloc(len ? len : 1);

    FZ_CHECK(out, "out of memory");
    memcpy(out, msg, len);
    fz_tl_recv(out, len);
}

void fz_tl_msg_sender(rtopo__msg_t *m, size_t len, const rtopo_ctx_t *ctx)
{
    int32_t src = (int32_t)((uint32_t)FZ_GET(m, len, src) % (uint32_t)ctx->size);

    FZ_SET(m, len, src, src);
    FZ_SET(m, len, auth, ctx->peers[src].token);
}

/* the peers' side of wire-up and of the barrier */
static void fz_answer(struct rtopo__tl *tl, int peer, const rtopo__msg_t *out)
{
    rtopo__msg_t *m;
    int from = peer;

    if (!fz_tl.ctx || (out->type != RTOPO__MSG_HELLO && out->type != RTOPO__MSG_BARRIER))
        return;
    if (out->type == RTOPO__MSG_BARRIER) {
        if (out->xfer >= 31)
            return;
        from = (int)((tl->rank - (int)((1u << out->xfer) % (unsigned)tl->nranks) +
                      tl->nranks) % tl->nranks);
    }
    m = malloc(sizeof(*m));
    FZ_CHECK(m, "out of memory");
    *m = *out;
    m->src = from;
    m->auth = fz_tl.ctx->peers[from].token;
    fz_tl_recv(m, sizeof(*m));
}

static int fz_match(const char *transport)
{
    return 1;
}

static int fz_available(const char *transport)
{
    return 1;
}

static int fz_open(const rtopo__tl_params_t *p, struct rtopo__tl **tl_p)
{
    struct rtopo__tl *tl;

    FZ_CHECK(!fz_tl.tl, "a second transport opened");
    tl = calloc(1, sizeof(*tl));
    if (!tl)
        return RTOPO_ERR_NOMEM;
    tl->rank = p->rank;
    tl->nranks = p->nranks;
    tl->ctrl_size = p->ctrl_size;
    fz_tl.tl = tl;
    *tl_p = tl;
    return RTOPO_OK;
}

static void fz_close(struct rtopo__tl *tl)
{
    fz_free_list(tl->head);
    fz_free_list(tl->polled);
    free(tl);
    fz_tl.tl = NULL;
}

static void fz_query(struct rtopo__tl *tl, rtopo__tl_attr_t *attr)
{
    memset(attr, 0, sizeof(*attr));
    attr->max_write = 1 << 20;
    attr->inject_max = 64;
    attr->blocking_wait = 1;
    attr->send_nowait_max = fz_tl.nowait;
    snprintf(attr->provider, sizeof(attr->provider), "fuzz");
}

static int fz_addr_get(struct rtopo__tl *tl, void *blob, size_t *len)
{
    int n = snprintf(blob, *len, "fuzz:%d", tl->rank);

    *len = (size_t)n + 1;
    return RTOPO_OK;
}

static int fz_connect(struct rtopo__tl *tl, int peer, const void *blob, size_t len)
{
    FZ_CHECK(peer >= 0 && peer < tl->nranks, "connect to rank %d of %d", peer,
             tl->nranks);
    FZ_CHECK(len > 0 && len <= RTOPO__TL_ADDR_MAX, "address of %zu bytes", len);
    return RTOPO_OK;
}

static int fz_mem_reg(struct rtopo__tl *tl, void *buf, size_t len, unsigned access,
                      struct rtopo__tl_mr **mr_p)
{
    struct rtopo__tl_mr *mr = malloc(sizeof(*mr));

    if (!mr)
        return RTOPO_ERR_NOMEM;
    mr->buf = buf;
    mr->len = len;
    fz_touch(buf, len);
    *mr_p = mr;
    return RTOPO_OK;
}

static int fz_mem_dereg(struct rtopo__tl_mr *mr)
{
    free(mr);
    return RTOPO_OK;
}

static void fz_mem_rkey(struct rtopo__tl_mr *mr, rtopo__rkey_t *rkey)
{
    rkey->key = 0x4b4559;
    rkey->addr = (uint64_t)(uintptr_t)mr->buf;
}

static int fz_write(struct rtopo__tl *tl, int peer, const void *buf, size_t len,
                    struct rtopo__tl_mr *lmr, const rtopo__rkey_t *rkey,
                    uint64_t roffset, uint32_t imm, unsigned flags, void *ctx)
{
    const uint8_t *b = buf;
    rtopo__tl_event_t ev;

    FZ_CHECK(peer >= 0 && peer < tl->nranks, "write to rank %d of %d", peer, tl->nranks);
    FZ_CHECK(lmr && b >= lmr->buf && len <= lmr->len &&
             (size_t)(b - lmr->buf) <= lmr->len - len,
             "write of %zu bytes from %p outside its registration", len, buf);
    fz_touch(buf, len);
    if (ctx && !(flags & RTOPO__TL_INJECT)) {
        memset(&ev, 0, sizeof(ev));
        ev.type = RTOPO__TL_EV_WRITE_DONE;
        ev.peer = peer;
        ev.ctx = ctx;
        fz_push(tl, &ev, NULL);
    }
    return RTOPO_OK;
}

static int fz_send(struct rtopo__tl *tl, int peer, const void *buf, size_t len, void *ctx)
{
    const rtopo__msg_t *m = buf;
    rtopo__tl_event_t ev;

    FZ_CHECK(peer >= 0 && peer < tl->nranks, "send to rank %d of %d", peer, tl->nranks);
    FZ_CHECK(len >= RTOPO__MSG_HDR && len <= tl->ctrl_size,
             "control message of %zu bytes (at most %zu)", len, tl->ctrl_size);
    FZ_CHECK(len >= RTOPO__MSG_LEN(m), "type %d in %zu bytes", m->type, len);
    fz_touch(buf, len);
    fz_answer(tl, peer, m);
    if (ctx) {
        memset(&ev, 0, sizeof(ev));
        ev.type = RTOPO__TL_EV_SEND_DONE;
        ev.peer = peer;
        ev.ctx = ctx;
        fz_push(tl, &ev, NULL);
    }
    return RTOPO_OK;
}

static int fz_poll(struct rtopo__tl *tl, rtopo__tl_event_t *ev, int max)
{
    struct fz_ev *e, **tail;
    int n = 0;

    fz_free_list(tl->polled);
    tl->polled = NULL;
    tail = &tl->polled;
    while (n < max && (e = tl->head)) {
        tl->head = e->next;
        if (!tl->head)
            tl->tail = NULL;
        tl->pending--;
        e->next = NULL;
        ev[n++] = e->ev;
        *tail = e;
        tail = &e->next;
    }
    return n;
}

static int fz_wait(struct rtopo__tl *tl, int timeout_ms)
{
    return 0;
}

static void fz_info(const char *transport, void (*out)(const char *line, void *arg),
                    void *arg)
{
}

static const struct rtopo__tl_ops fz_ops = {
    .size = sizeof(struct rtopo__tl_ops),
    .name = "fuzz",
    .match = fz_match,
    .available = fz_available,
    .open = fz_open,
    .close = fz_close,
    .query = fz_query,
    .addr_get = fz_addr_get,
    .connect = fz_connect,
    .mem_reg = fz_mem_reg,
    .mem_dereg = fz_mem_dereg,
    .mem_rkey = fz_mem_rkey,
    .write = fz_write,
    .send = fz_send,
    .poll = fz_poll,
    .wait = fz_wait,
    .info = fz_info,
};

const struct rtopo__tl_ops *rtopo__tl_find(const char *transport)
{
    return &fz_ops;
}

const struct rtopo__tl_ops *rtopo__tl_get(int i)
{
    return i == 0 ? &fz_ops : NULL;
}

void rtopo__tl_job_size(int nranks)
{
    (void)nranks;
}

/* runtime/boot/boot_pmix.c is not linked in (boot.c names it with HAVE_PMIX) */
int rtopo__boot_pmix_open(int timeout_ms, struct rtopo__boot **boot_p)
{
    return rtopo__error(RTOPO_ERR_BOOTSTRAP, "no PMIx in the fuzz harnesses");
}

/* ---- the job around the rank ------------------------------------------ */

int fz_allgather(const void *in, void *out, size_t len, void *arg)
{
    int i, nranks = *(const int *)arg;

    for (i = 0; i < nranks; i++)
        memcpy((uint8_t *)out + (size_t)i * len, in, len);
    if (len == sizeof(rtopo__peer_info_t))
        for (i = 0; i < nranks; i++)
            ((rtopo__peer_info_t *)out)[i].token = FZ_TOKEN(i);
    return 0;
}

void fz_setenv(const char *level)
{
    extern char **environ;
    char name[256];
    const char *eq;
    size_t i;

    /* none from outside: every RTOPO_* variable goes (and PMIx's) */
    for (i = 0; environ[i];) {
        eq = strchr(environ[i], '=');
        if ((!strncmp(environ[i], "RTOPO_", 6) || !strncmp(environ[i], "PMIX_", 5)) && eq &&
            (size_t)(eq - environ[i]) < sizeof(name)) {
            memcpy(name, environ[i], (size_t)(eq - environ[i]));
            name[eq - environ[i]] = '\0';
            unsetenv(name);     /* environ changed: look at index i again */
            continue;
        }
        i++;
    }
    setenv("RTOPO_TRANSPORT", "fuzz", 1);
    setenv("RTOPO_LOG_LEVEL", level ? level : "error", 1);
    setenv("RTOPO_TIMEOUT_MS", "10000", 1);
    setenv("RTOPO_EAGER_LIMIT", "256", 1);
    setenv("RTOPO_CHUNK_SIZE", "4096", 1);
    setenv("RTOPO_PIPELINE_DEPTH", "2", 1);
    setenv("RTOPO_SPIN_US", "0", 1);
    /* the built-in cost model: measuring it (auto) needs peers that answer */
    setenv("RTOPO_MODEL", "default", 1);
    setenv("RTOPO_HOST_ID", "fuzz", 1);
}

rtopo_ctx_t *fz_tl_ctx_new(int rank, int *nranks)
{
    rtopo_config_t cfg = RTOPO_CONFIG_INIT;
    rtopo_ctx_t *ctx;

    cfg.rank = rank;
    cfg.nranks = *nranks;
    cfg.allgather = fz_allgather;
    cfg.allgather_arg = nranks;
    FZ_CHECK(rtopo_init(&cfg, &ctx) == RTOPO_OK, "rtopo_init: %s", rtopo_last_error());
    fz_tl_set_ctx(ctx);
    return ctx;
}
