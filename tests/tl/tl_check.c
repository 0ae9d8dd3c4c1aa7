/*
 * tl_check.c - transport conformance test, through the ops table only.
 *
 * usage: tl_check TRANSPORT        (ofi:rxm, ofi:tcp, ofi:shm, shm, verbs, ...)
 *
 * Forks two ranks (then three, for connection fan-out) that swap address
 * blobs and remote keys over socketpairs, so no bootstrap layer is needed,
 * and checks control messages (whole, and in two pieces through sendv
 * where the table has it), RDMA writes with and without immediate,
 * inject writes, large and many outstanding writes, blocking wait() and
 * peer death.  One line per check, then "N passed, N failed".
 * A rank that plays the dead peer ends with _exit and leaves what its
 * endpoint created behind (ofi:shm: /dev/shm/<pid>:<uid>:<n>, 16 MiB;
 * shm: /dev/shm/rtopo-shm-<uid>-<job>-<rank>-<pid>);
 * once every rank of a scenario has ended, the parent removes what its
 * ranks left there ("info rank N pid P" names them).
 * Exit: 0 all passed, 1 a check failed, 77 transport not built or not
 * usable here (automake SKIP).
 *
 * Targets progress only inside poll()/wait() (tl.h), so every wait in
 * here, including the ones on the socketpairs, keeps polling the
 * transport.  Every wait is bounded (TMO_MS).
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "rtopo.h"
#include "log.h"
#include "tl.h"
#include "tl_out.h"
#include "tl_oob.h"

#define TMO_MS      10000           /* bound of every wait */
#define MAXP        3
#define CTRL_SIZE   256
#define BIG         ((size_t)16 << 20)
#define TBUF_SIZE   (BIG + 4096)
#define NOUT        256             /* outstanding writes */
#define NOUT_SIZE   4096
#define NCTRL       1000            /* control messages in a row */

struct counters {
    int pass;
    int fail;
};

struct qev {
    rtopo__tl_event_t e;
    unsigned char *copy;            /* TL_EV_RECV payload, owned */
};

struct proc {
    const struct rtopo__tl_ops *ops;
    struct rtopo__tl *tl;
    rtopo__tl_attr_t attr;
    const char *transport;
    int rank;
    int nranks;
    int fd[MAXP];                   /* socketpair to each peer, -1 none */
    unsigned char *sbuf, *tbuf;     /* source (local), target (remote write) */
    struct rtopo__tl_mr *smr, *tmr;
    rtopo__rkey_t rkey[MAXP];       /* peers' tbuf */
    struct qev *q;                  /* events polled but not yet taken */
    int nq, qcap;
    int poll_err;                   /* last poll() < 0 */
    int nerr;                       /* TL_EV_ERROR seen */
    int unnamed;                    /* TL_EV_RECV with peer -1 */
    int err_peer;
    char err_msg[96];
};

static struct counters *cnt;        /* shared between the processes */
static struct proc P;
static int trace;               /* TL_CHECK_TRACE=1: print every event */

static int check(int ok, const char *fmt, ...)
{
    char msg[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    __atomic_add_fetch(ok ? &cnt->pass : &cnt->fail, 1, __ATOMIC_SEQ_CST);
    out("%s [r%d] %s", ok ? "PASS" : "FAIL", P.rank, msg);
    return ok;
}

static const char *ev_name(int type)
{
    switch (type) {
    case RTOPO__TL_EV_WRITE_DONE: return "WRITE_DONE";
    case RTOPO__TL_EV_SEND_DONE:  return "SEND_DONE";
    case RTOPO__TL_EV_RECV:       return "RECV";
    case RTOPO__TL_EV_IMM:        return "IMM";
    case RTOPO__TL_EV_ERROR:      return "ERROR";
    }
    return "?";
}

/* ---- event queue -------------------------------------------------------- */

struct ctrl_msg {
    uint32_t magic;
    uint32_t from;
    uint32_t seq;
    uint32_t len;
    double sent_ms;
};

#define CTRL_MAGIC 0x7c0a7c0au

/* One poll() (after a wait() of wait_ms when nothing was ready); events go
 * to the queue, RECV payloads copied since they live until the next poll. */
static int pump(int wait_ms)
{
    rtopo__tl_event_t ev[32];
    int n, i;

    n = P.ops->poll(P.tl, ev, 32);
    if (n == 0 && wait_ms > 0) {
        P.ops->wait(P.tl, wait_ms);
        n = P.ops->poll(P.tl, ev, 32);
    }
    if (n < 0) {
        if (P.poll_err == 0)
            out("info [r%d] poll: %s (%s)", P.rank, rtopo_err_name(n),
                rtopo_last_error());
        P.poll_err = n;
        return n;
    }
    for (i = 0; i < n; i++) {
        struct qev *e;

        if (P.nq == P.qcap) {
            P.qcap = P.qcap ? 2 * P.qcap : 256;
            P.q = realloc(P.q, P.qcap * sizeof(*P.q));
            if (P.q == NULL) {
                out("FAIL [r%d] out of memory", P.rank);
                _exit(1);
            }
        }
        if (trace)
            out("trace [r%d] %s peer %d ctx %p imm 0x%x len %zu status %d %s", P.rank,
                ev_name(ev[i].type), ev[i].peer, ev[i].ctx, ev[i].imm, ev[i].len,
                ev[i].status, ev[i].msg);
        e = &P.q[P.nq++];
        e->e = ev[i];
        e->copy = NULL;
        if (ev[i].type == RTOPO__TL_EV_RECV) {
            e->copy = malloc(ev[i].len ? ev[i].len : 1);
            if (e->copy && ev[i].len)
                memcpy(e->copy, ev[i].data, ev[i].len);
            e->e.data = e->copy;
            /* tl.h allows peer -1 when the backend cannot tell (libfabric's
             * tcp before it has matched an accepted connection to an
             * address): the test's messages name their sender, as the
             * engine's do, so use that and count the unnamed ones */
            if (ev[i].peer < 0 && e->copy && ev[i].len >= sizeof(struct ctrl_msg) &&
                ((struct ctrl_msg *)e->copy)->magic == CTRL_MAGIC) {
                e->e.peer = (int)((struct ctrl_msg *)e->copy)->from;
                P.unnamed++;
            }
        } else if (ev[i].type == RTOPO__TL_EV_ERROR) {
            P.nerr++;
            P.err_peer = ev[i].peer;
            snprintf(P.err_msg, sizeof(P.err_msg), "%s", ev[i].msg);
            out("info [r%d] TL_EV_ERROR peer %d status %s: %s", P.rank,
                ev[i].peer, rtopo_err_name(ev[i].status), ev[i].msg);
        }
    }
    return n;
}

struct match {
    int type;
    int peer;           /* -1: any */
    int use_ctx;
    void *ctx;
};

/* Take the first queued event matching m, polling up to tmo_ms for it.
 * The caller frees ev->copy.  Returns 1 found, 0 timed out. */
static int take(const struct match *m, int tmo_ms, struct qev *ev)
{
    double end = now_ms() + tmo_ms;
    int i;

    for (;;) {
        for (i = 0; i < P.nq; i++) {
            struct qev *e = &P.q[i];

            if (e->e.type != m->type || (m->peer >= 0 && e->e.peer >= 0 && e->e.peer != m->peer) ||
                (m->use_ctx && e->e.ctx != m->ctx))
                continue;
            *ev = *e;
            memmove(&P.q[i], &P.q[i + 1], (P.nq - i - 1) * sizeof(*P.q));
            P.nq--;
            return 1;
        }
        if (now_ms() > end)
            break;
        pump(5);
    }
    /* say what did come, when a wanted type came with another peer/ctx */
    if (tmo_ms >= 1000) {
        for (i = 0; i < P.nq; i++)
            if (P.q[i].e.type == m->type) {
                out("info [r%d] waiting for %s from %d: %d event(s) queued, first with "
                    "peer %d ctx %p", P.rank, ev_name(m->type), m->peer, P.nq,
                    P.q[i].e.peer, P.q[i].e.ctx);
                break;
            }
    }
    return 0;
}

static int take_type(int type, int peer, int tmo_ms, struct qev *ev)
{
    struct match m = { type, peer, 0, NULL };

    return take(&m, tmo_ms, ev);
}

/* Drop queued completions of our own operations (not RECV/IMM/ERROR). */
static void drop_local_done(void)
{
    int i, j;

    for (i = j = 0; i < P.nq; i++) {
        if (P.q[i].e.type == RTOPO__TL_EV_WRITE_DONE ||
            P.q[i].e.type == RTOPO__TL_EV_SEND_DONE)
            continue;
        P.q[j++] = P.q[i];
    }
    P.nq = j;
}

/* ---- out-of-band over the socketpairs, progressing the transport -------- */

static int oob_send(int peer, const void *buf, size_t len)
{
    return tl_oob_send(P.fd[peer], buf, len);
}

static void pump0(void)
{
    pump(0);
}

static void pump1(void)
{
    pump(1);
}

/* Returns 0, -1 on EOF/error, -2 on timeout. */
static int oob_recv_tmo(int peer, void *buf, size_t len, int tmo_ms)
{
    return tl_oob_recv(P.fd[peer], buf, len, tmo_ms, P.tl ? pump0 : NULL);
}

static int oob_recv(int peer, void *buf, size_t len)
{
    int rc = oob_recv_tmo(peer, buf, len, 3 * TMO_MS);

    if (rc)
        out("FAIL [r%d] out-of-band from rank %d: %s", P.rank, peer,
            rc == -2 ? "timeout" : "closed");
    return rc;
}

/* Both sides of the pair meet here. */
static int oob_sync(int peer, uint32_t tag)
{
    uint32_t got = 0;

    if (oob_send(peer, &tag, sizeof(tag)) || oob_recv(peer, &got, sizeof(got)))
        return -1;
    if (got != tag) {
        out("FAIL [r%d] out of step with rank %d (tag %u, peer at %u)", P.rank,
            peer, tag, got);
        return -1;
    }
    return 0;
}

/* ---- operations retried on BUSY, as the engine does ---------------------- */

static int do_write(int peer, const void *buf, size_t len, uint64_t roff,
                    uint32_t imm, unsigned flags, void *ctx)
{
    return tl_write_busy(P.ops, P.tl, peer, buf, len, P.smr, &P.rkey[peer], roff, imm, flags,
                         ctx, TMO_MS, pump1);
}

static int do_send(int peer, const void *buf, size_t len, void *ctx)
{
    double end = now_ms() + TMO_MS;
    int rc;

    for (;;) {
        rc = P.ops->send(P.tl, peer, buf, len, ctx);
        if (rc != RTOPO_ERR_BUSY || now_ms() > end)
            return rc;
        pump(1);
    }
}

static void fill(unsigned char *b, size_t len, unsigned seed)
{
    size_t i;

    for (i = 0; i < len; i++)
        b[i] = (unsigned char)(seed + i * 131 + (i >> 9) * 7);
}

/* Returns the first wrong offset, or -1 when all of b matches. */
static long verify(const unsigned char *b, size_t len, unsigned seed)
{
    size_t i;

    for (i = 0; i < len; i++)
        if (b[i] != (unsigned char)(seed + i * 131 + (i >> 9) * 7))
            return (long)i;
    return -1;
}

/* ---- set-up --------------------------------------------------------------- */

static int setup(void)
{
    rtopo__tl_params_t params = { P.transport, P.rank, P.nranks, TMO_MS, CTRL_SIZE };
    unsigned char blob[RTOPO__TL_ADDR_MAX];
    size_t len = sizeof(blob);
    rtopo__rkey_t rk;
    int rc, ok;
    double t0 = now_ms(), tc;
    uint64_t token;

    rc = P.ops->open(&params, &P.tl);
    if (!check(rc == 0, "open %s (%s)", P.transport,
               rc ? rtopo_last_error() : "ok")) {
        P.tl = NULL;
        return -1;
    }
    P.ops->query(P.tl, &P.attr);
    if (P.rank == 0)
        out("info [r0] provider %s, max_write %zu, inject_max %zu, blocking_wait %d, "
            "open %.1f ms", P.attr.provider, P.attr.max_write, P.attr.inject_max,
            P.attr.blocking_wait, now_ms() - t0);

    rc = P.ops->addr_get(P.tl, blob, &len);
    if (!check(rc == 0 && len > 0 && len <= RTOPO__TL_ADDR_MAX,
               "addr_get: %zu bytes", len))
        return -1;

    P.sbuf = aligned_alloc(4096, TBUF_SIZE);
    P.tbuf = aligned_alloc(4096, TBUF_SIZE);
    if (P.sbuf == NULL || P.tbuf == NULL)
        return -1;
    memset(P.sbuf, 0, TBUF_SIZE);
    memset(P.tbuf, 0, TBUF_SIZE);
    rc = P.ops->mem_reg(P.tl, P.sbuf, TBUF_SIZE, RTOPO__TL_ACCESS_LOCAL, &P.smr);
    if (!check(rc == 0, "mem_reg %zu bytes local (%s)", (size_t)TBUF_SIZE,
               rc ? rtopo_last_error() : "ok"))
        return -1;
    rc = P.ops->mem_reg(P.tl, P.tbuf, TBUF_SIZE,
                        RTOPO__TL_ACCESS_LOCAL | RTOPO__TL_ACCESS_REMOTE_WRITE, &P.tmr);
    if (!check(rc == 0, "mem_reg %zu bytes remote write (%s)", (size_t)TBUF_SIZE,
               rc ? rtopo_last_error() : "ok"))
        return -1;
    P.ops->mem_rkey(P.tmr, &rk);

    /* a random token per rank, as rtopo_init hands the transport: the
     * connection handshakes of the transports that authenticate (verbs)
     * are keyed with both ends' */
    if (getrandom(&token, sizeof(token), 0) != (ssize_t)sizeof(token))
        return -1;
    if (RTOPO__TL_HAS(P.ops, set_auth) &&
        !check(P.ops->set_auth(P.tl, P.rank, &token, sizeof(token)) == 0,
               "set_auth of our own token (%s)", rtopo_last_error()))
        return -1;
    /* everybody sends first, then reads; no polling until every token is
     * set (tl_oob_connect) */
    tc = now_ms();
    if ((rc = tl_oob_connect(P.ops, P.tl, P.rank, P.nranks, P.fd, 3 * TMO_MS, blob, len, token,
                             &rk, P.rkey, sizeof(rk))) < 0)
        return -1;
    ok = rc == 0;
    if (!check(ok, "address exchange and connect to %d peer(s): %.1f ms", P.nranks - 1,
               now_ms() - tc))
        return -1;
    return 0;
}

static void teardown(void)
{
    double t0 = now_ms();

    if (P.tl == NULL)
        return;
    if (P.unnamed)
        out("info [r%d] %d control message(s) arrived without the sender named "
            "(peer -1): taken from the message", P.rank, P.unnamed);
    if (P.tmr)
        P.ops->mem_dereg(P.tmr);
    if (P.smr)
        P.ops->mem_dereg(P.smr);
    P.ops->close(P.tl);
    P.tl = NULL;
    check(now_ms() - t0 < 5000, "close in %.1f ms", now_ms() - t0);
}

/* ---- checks: control messages --------------------------------------------- */

static void *sctx(int kind, int n)
{
    return (void *)(uintptr_t)(0x1000000u * kind + n + 1);
}

/* Every rank sends `count` messages of `len` bytes to `to` and receives as
 * many from `from`; checks contents, peer ids, SEND_DONE contexts. */
static int ctrl_exchange(int to, int from, int count, size_t len, const char *what)
{
    unsigned char *msg = calloc(1, CTRL_SIZE);
    char *seen = calloc(count, 1);
    int sent = 0, got = 0, done = 0, bad = 0, inorder = 1, last = -1, rc = 0;
    double t0 = now_ms(), end = t0 + TMO_MS + count * 5.0;
    struct qev ev;

    if (msg == NULL || seen == NULL)
        return 0;
    while ((sent < count || got < count || done < count) && now_ms() < end) {
        if (sent < count) {
            struct ctrl_msg *h = (struct ctrl_msg *)msg;

            h->magic = CTRL_MAGIC;
            h->from = P.rank;
            h->seq = sent;
            h->len = len;
            h->sent_ms = now_ms();
            if (len > sizeof(*h))
                fill(msg + sizeof(*h), len - sizeof(*h), sent);
            rc = P.ops->send(P.tl, to, msg, len, sctx(1, sent));
            if (rc == 0)
                sent++;
            else if (rc != RTOPO_ERR_BUSY)
                break;
        }
        while (take_type(RTOPO__TL_EV_SEND_DONE, to, 0, &ev))
            done++;
        while (take_type(RTOPO__TL_EV_RECV, from, 0, &ev)) {
            struct ctrl_msg *h = (struct ctrl_msg *)ev.copy;

            if (ev.e.len != len || h == NULL || h->magic != CTRL_MAGIC || h->from != (uint32_t)from ||
                h->seq >= (uint32_t)count || seen[h->seq] ||
                (len > sizeof(*h) &&
                 verify(ev.copy + sizeof(*h), len - sizeof(*h), h->seq) >= 0)) {
                if (bad++ == 0)
                    out("info [r%d] bad message from %d: len %zu seq %u", P.rank,
                        ev.e.peer, ev.e.len, h && ev.e.len >= sizeof(*h) ? h->seq : 0);
            } else {
                seen[h->seq] = 1;
                if ((int)h->seq != last + 1)
                    inorder = 0;
                last = h->seq;
            }
            got++;
            free(ev.copy);
        }
        pump(rc == RTOPO_ERR_BUSY || sent == count ? 1 : 0);
    }
    free(msg);
    free(seen);
    return check(rc == 0 && sent == count && got == count && done == count && !bad,
                 "%s: %d x %zu B to %d / from %d: sent %d, received %d (%s), "
                 "SEND_DONE %d, bad %d, %.1f ms%s%s", what, count, len, to, from,
                 sent, got, inorder ? "in order" : "out of order", done, bad,
                 now_ms() - t0, rc ? ", send: " : "", rc ? rtopo_err_name(rc) : "");
}

/* sendv: messages given as a header and a payload in plain malloc'd
 * memory, `count` of them in a row to `to` and as many from `from`.
 * Tracked ones (ctx set) keep their payload untouched until SEND_DONE
 * names them, untracked ones only until sendv returns: each payload is
 * overwritten as soon as that allows, so a transport that reads it later
 * than it may delivers the wrong bytes. */
static void ctrl_sendv_exchange(int to, int from, int count, size_t len, int tracked)
{
    size_t plen = len - sizeof(struct ctrl_msg);
    unsigned char *pay = malloc((size_t)count * plen);
    char *seen = calloc(count, 1);
    int sent = 0, got = 0, done = 0, bad = 0, rc = 0;
    double t0 = now_ms(), end = t0 + TMO_MS + count * 5.0;
    struct ctrl_msg h;
    struct qev ev;

    if (!RTOPO__TL_HAS(P.ops, sendv)) {
        out("info sendv (%s): not in this transport's table, the engine joins the "
            "pieces", tracked ? "tracked" : "untracked");
        free(pay);
        free(seen);
        return;
    }
    if (pay == NULL || seen == NULL) {
        free(pay);
        free(seen);
        check(0, "sendv: out of memory");
        return;
    }
    while ((sent < count || got < count || done < count) && now_ms() < end) {
        if (sent < count) {
            unsigned char *pl = pay + (size_t)sent * plen;

            h.magic = CTRL_MAGIC;
            h.from = P.rank;
            h.seq = sent;
            h.len = len;
            h.sent_ms = now_ms();
            fill(pl, plen, sent);
            rc = P.ops->sendv(P.tl, to, &h, sizeof(h), pl, plen,
                              tracked ? sctx(8, sent) : NULL);
            if (rc == 0) {
                memset(&h, 0xee, sizeof(h));
                if (!tracked) {
                    memset(pl, 0xee, plen);
                    done++;
                }
                sent++;
            } else if (rc != RTOPO_ERR_BUSY) {
                break;
            }
        }
        while (take_type(RTOPO__TL_EV_SEND_DONE, to, 0, &ev)) {
            uintptr_t n = (uintptr_t)ev.e.ctx - 0x8000000u - 1;

            if (tracked && n < (uintptr_t)count)
                memset(pay + n * plen, 0xee, plen);
            done++;
        }
        while (take_type(RTOPO__TL_EV_RECV, from, 0, &ev)) {
            struct ctrl_msg *m = (struct ctrl_msg *)ev.copy;

            if (ev.e.len != len || m == NULL || m->magic != CTRL_MAGIC ||
                m->from != (uint32_t)from || m->seq >= (uint32_t)count || seen[m->seq] ||
                verify(ev.copy + sizeof(*m), plen, m->seq) >= 0) {
                if (bad++ == 0)
                    out("info [r%d] bad sendv message from %d: len %zu seq %u", P.rank,
                        ev.e.peer, ev.e.len, m && ev.e.len >= sizeof(*m) ? m->seq : 0);
            } else {
                seen[m->seq] = 1;
            }
            got++;
            free(ev.copy);
        }
        pump(rc == RTOPO_ERR_BUSY || sent == count ? 1 : 0);
    }
    free(pay);
    free(seen);
    check(rc == 0 && sent == count && got == count && done == count && !bad,
          "sendv, %s: %d x %zu B (header and payload from malloc'd memory) to %d / "
          "from %d: sent %d, received %d, done %d, bad %d, %.1f ms%s%s",
          tracked ? "tracked" : "untracked", count, len, to, from, sent, got, done, bad,
          now_ms() - t0, rc ? ", sendv: " : "", rc ? rtopo_err_name(rc) : "");
}

/* The first message after connect: retried while the connection forms. */
static void check_first_ctrl(int peer)
{
    struct ctrl_msg m = { CTRL_MAGIC, P.rank, 0, sizeof(m), 0 };
    double t0 = now_ms();
    struct qev ev;
    int rc, got, done;

    m.sent_ms = t0;
    rc = do_send(peer, &m, sizeof(m), sctx(2, peer));
    done = rc == 0 && take_type(RTOPO__TL_EV_SEND_DONE, peer, TMO_MS, &ev);
    got = take_type(RTOPO__TL_EV_RECV, peer, TMO_MS, &ev);
    if (got) {
        struct ctrl_msg *h = (struct ctrl_msg *)ev.copy;

        got = ev.e.peer == peer && ev.e.len == sizeof(m) && h->magic == CTRL_MAGIC &&
              h->from == (uint32_t)peer;
        free(ev.copy);
    }
    check(rc == 0 && done && got, "first control message with %d (connection "
          "set-up included): send %s, SEND_DONE %d, RECV ok %d, %.1f ms", peer,
          rtopo_err_name(rc), done, got, now_ms() - t0);
}

/* shm: the pages of a ring are mapped when the pair connects, not one
 * page fault at a time on the ring's first lap.  The sender fills most
 * of a fresh ring while the receiver does not poll (it waits on the
 * socketpair alone), so the records walk the ring instead of going
 * back to its first page; then the receiver takes them.  The sender
 * counts its minor faults: the records cover 13 pages, and a write to a
 * page not yet mapped faults on each.  (The receiver's count is only
 * printed: the kernel maps up to 16 pages around a read fault of shared
 * memory, so its side faulted a few times at most anyway.) */
#define LAP_MSGS    200
#define LAP_FAULTS  4               /* at most: a stack or heap page */

static long minor_faults(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

static void check_ring_first_lap(int sender)
{
    unsigned char msg[CTRL_SIZE];
    struct ctrl_msg *h = (struct ctrl_msg *)msg;
    int other = 1 - P.rank, i, n = 0, rc = 0;
    uint32_t tag = 0;
    long f0, f1;
    struct qev ev;

    if (strcmp(P.transport, "shm") || oob_sync(other, 20))
        return;
    memset(msg, 0, sizeof(msg));
    if (P.rank == sender) {
        f0 = minor_faults();
        for (i = 0; i < LAP_MSGS && rc == 0; i++) {
            h->magic = CTRL_MAGIC;
            h->from = P.rank;
            h->seq = i;
            h->len = sizeof(msg);
            if ((rc = P.ops->send(P.tl, other, msg, sizeof(msg), NULL)) == 0)
                n++;
        }
        f1 = minor_faults();
        oob_send(other, &tag, sizeof(tag));
        check(n == LAP_MSGS && f1 - f0 <= LAP_FAULTS, "shm: %d x %zu B into a fresh ring "
              "that nobody reads yet: %ld page faults on the sending side (at most %d)",
              n, sizeof(msg), f1 - f0, LAP_FAULTS);
    } else {
        if (tl_oob_recv(P.fd[other], &tag, sizeof(tag), 3 * TMO_MS, NULL))
            return (void)check(0, "shm: the sender's signal after its records");
        f0 = minor_faults();
        for (i = 0; i < LAP_MSGS && take_type(RTOPO__TL_EV_RECV, other, TMO_MS, &ev); i++) {
            h = (struct ctrl_msg *)ev.copy;
            n += ev.e.len == sizeof(msg) && h->magic == CTRL_MAGIC && h->seq == (uint32_t)i;
            free(ev.copy);
        }
        f1 = minor_faults();
        check(n == LAP_MSGS, "shm: %d of %d records taken in order from a ring's first lap",
              n, LAP_MSGS);
        out("info [r%d] %ld page faults on the receiving side", P.rank, f1 - f0);
    }
    oob_sync(other, 21);
}

/* ---- checks: writes ----------------------------------------------------- */

/* Writer side of one write of len bytes at roff, in max_write pieces;
 * the last piece carries the immediate when with_imm. */
static int write_pieces(int peer, size_t len, uint64_t roff, uint32_t imm,
                        int with_imm, void *ctx, double *us)
{
    size_t mw = P.attr.max_write ? P.attr.max_write : len;
    size_t off = 0;
    int n = 0, rc = 0;
    double t0 = now_ms();
    struct qev ev;

    while (off < len) {
        size_t l = len - off < mw ? len - off : mw;
        int last = off + l == len;

        rc = do_write(peer, P.sbuf + off, l, roff + off, imm,
                      last && with_imm ? RTOPO__TL_IMM : 0, (char *)ctx + n);
        if (rc)
            return rc;
        off += l;
        n++;
    }
    while (n--) {
        struct match m = { RTOPO__TL_EV_WRITE_DONE, peer, 1, (char *)ctx + n };

        if (!take(&m, TMO_MS + len / 10000, &ev))
            return RTOPO_ERR_TIMEOUT;
    }
    if (us)
        *us = (now_ms() - t0) * 1e3;
    return 0;
}

/* Writes of several sizes with immediate from `w` to `t`. */
static void check_imm_writes(int w, int t)
{
    static const struct { size_t len; uint64_t off; } sz[] = {
        { 1, 7 }, { 4096, 0 }, { (1 << 20) + 3, 13 }, { BIG, 0 },
    };
    unsigned i;

    for (i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
        size_t len = sz[i].len;
        uint32_t imm = 0xa5000000u | (w << 16) | i;
        unsigned seed = 17 * i + w + 1;

        if (oob_sync(w == P.rank ? t : w, 100 + i))
            return;
        if (P.rank == t) {
            struct qev ev;
            int got;
            long bad = -2;
            double t0 = now_ms();

            memset(P.tbuf, 0, TBUF_SIZE);
            oob_sync(w, 200 + i);            /* cleared: writer may go */
            got = take_type(RTOPO__TL_EV_IMM, w, TMO_MS + len / 10000, &ev);
            if (got)
                bad = verify(P.tbuf + sz[i].off, len, seed);
            check(got && ev.e.imm == imm && (ev.e.peer == w || ev.e.peer < 0) &&
                  (ev.e.len == len || ev.e.len == 0 || len > P.attr.max_write) && bad < 0 &&
                  P.tbuf[sz[i].off + len] == 0 && (sz[i].off == 0 || P.tbuf[sz[i].off - 1] == 0),
                  "write+imm %zu B at offset %llu from %d: IMM %s (imm 0x%x peer %d len %zu), "
                  "data %s, %.1f ms", len, (unsigned long long)sz[i].off, w,
                  got ? "seen" : "missing", got ? ev.e.imm : 0, got ? ev.e.peer : -1,
                  got ? ev.e.len : 0, bad == -1 ? "ok" : "wrong", now_ms() - t0);
        } else {
            double us = 0;
            int rc;

            fill(P.sbuf, len, seed);
            oob_sync(t, 200 + i);
            rc = write_pieces(t, len, sz[i].off, imm, 1, sctx(3, i * 64), &us);
            check(rc == 0, "write+imm %zu B to %d: WRITE_DONE after %.0f us (%.1f MB/s)%s%s%s",
                  len, t, us, us > 0 ? len / us : 0.0,
                  len > P.attr.max_write ? ", in max_write pieces" : "",
                  rc ? ", " : "", rc ? rtopo_err_name(rc) : "");
        }
    }
}

/* Write without immediate, WRITE_DONE, then a control message: the data
 * must be visible when the message arrives. */
static void check_plain_write(int w, int t)
{
    size_t len = 4096 + 5;

    oob_sync(w == P.rank ? t : w, 300);
    if (P.rank == t) {
        struct qev ev;
        int got;

        memset(P.tbuf, 0, TBUF_SIZE);
        oob_sync(w, 301);
        got = take_type(RTOPO__TL_EV_RECV, w, TMO_MS, &ev);
        if (got)
            free(ev.copy);
        check(got && verify(P.tbuf + 64, len, 99) < 0,
              "write without imm, then control message: data %s when the message arrived",
              !got ? "(no message)" : verify(P.tbuf + 64, len, 99) < 0 ? "visible" : "NOT visible");
    } else {
        uint32_t x = 1;
        int rc;
        struct qev ev;

        fill(P.sbuf, len, 99);
        oob_sync(t, 301);
        rc = write_pieces(t, len, 64, 0, 0, sctx(4, 0), NULL);
        if (rc == 0)
            rc = do_send(t, &x, sizeof(x), sctx(4, 1));
        if (rc == 0 && !take_type(RTOPO__TL_EV_SEND_DONE, t, TMO_MS, &ev))
            rc = RTOPO_ERR_TIMEOUT;
        check(rc == 0, "write without imm %zu B to %d, WRITE_DONE, then control message%s%s",
              len, t, rc ? ": " : "", rc ? rtopo_err_name(rc) : "");
    }

    /* information only: tl.h does not promise that a later write with
     * immediate orders an earlier plain one (shm does not) */
    oob_sync(w == P.rank ? t : w, 302);
    if (P.rank == t) {
        struct qev ev;
        int got;

        memset(P.tbuf, 0, TBUF_SIZE);
        oob_sync(w, 303);
        got = take_type(RTOPO__TL_EV_IMM, w, TMO_MS, &ev);
        out("info [r%d] plain write then write+imm without waiting: earlier data %s "
            "when the IMM arrived", P.rank, !got ? "(no IMM)" :
            verify(P.tbuf, 65536, 55) < 0 ? "visible (ordered)" : "not visible (unordered)");
    } else {
        fill(P.sbuf, 65536, 55);
        oob_sync(t, 303);
        if (do_write(t, P.sbuf, 65536, 0, 0, 0, sctx(5, 0)) == 0)
            do_write(t, P.sbuf + 65536, 1, 65536, 7, RTOPO__TL_IMM, sctx(5, 1));
        {
            struct qev ev;
            struct match m1 = { RTOPO__TL_EV_WRITE_DONE, t, 1, sctx(5, 0) };
            struct match m2 = { RTOPO__TL_EV_WRITE_DONE, t, 1, sctx(5, 1) };

            take(&m1, TMO_MS, &ev);
            take(&m2, TMO_MS, &ev);
        }
    }
}

/* INJECT: the source may be overwritten on return and no WRITE_DONE comes. */
static void check_inject(int w, int t)
{
    size_t sizes[2];
    int nsz, i, k;

    sizes[0] = 8;
    sizes[1] = P.attr.inject_max;
    nsz = P.attr.inject_max > 8 ? 2 : 1;
    if (P.attr.inject_max == 0) {
        if (P.rank == w)
            out("info [r%d] inject_max is 0: INJECT not checked", P.rank);
        return;
    }
    for (i = 0; i < nsz; i++) {
        size_t len = sizes[i];
        int n = 64;

        oob_sync(w == P.rank ? t : w, 400 + i);
        if (P.rank == t) {
            int got = 0, bad = 0;
            struct qev ev;

            memset(P.tbuf, 0, TBUF_SIZE);
            oob_sync(w, 410 + i);
            for (k = 0; k < n; k++) {
                if (!take_type(RTOPO__TL_EV_IMM, w, TMO_MS, &ev))
                    break;
                got++;
                if (ev.e.imm >= (uint32_t)n || (ev.e.len != len && ev.e.len != 0) ||
                    verify(P.tbuf + ev.e.imm * len, len, 1000 + ev.e.imm) >= 0)
                    bad++;
            }
            check(got == n && !bad, "inject+imm %d x %zu B from %d: received %d, bad %d",
                  n, len, w, got, bad);
        } else {
            unsigned char *src = P.sbuf;
            int rc = 0, posted = 0, spurious = 0;
            struct qev ev;
            struct match m = { RTOPO__TL_EV_WRITE_DONE, t, 1, sctx(6, 0) };

            oob_sync(t, 410 + i);
            for (k = 0; k < n && rc == 0; k++) {
                fill(src, len, 1000 + k);
                rc = do_write(t, src, len, k * len, k, RTOPO__TL_INJECT | RTOPO__TL_IMM,
                              sctx(6, 0));
                memset(src, 0xee, len);          /* reusable on return */
                if (rc == 0)
                    posted++;
            }
            /* give a stray WRITE_DONE a chance to show up */
            while (take(&m, 200, &ev))
                spurious++;
            check(rc == 0 && posted == n && !spurious,
                  "inject+imm %d x %zu B to %d, source overwritten on return: posted %d, "
                  "WRITE_DONE (should be none) %d%s%s", n, len, t, posted, spurious,
                  rc ? ", " : "", rc ? rtopo_err_name(rc) : "");
        }
    }
}

/* NOUT writes of NOUT_SIZE in flight at once, without then with immediate. */
static void check_outstanding(int w, int t)
{
    int pass;

    for (pass = 0; pass < 2; pass++) {
        int with_imm = pass == 1;

        oob_sync(w == P.rank ? t : w, 500 + pass);
        if (P.rank == t) {
            struct qev ev;
            char seen[NOUT] = { 0 };
            int got = 0, bad = 0, k;
            long wrong;
            double t0 = now_ms();

            memset(P.tbuf, 0, TBUF_SIZE);
            oob_sync(w, 510 + pass);
            if (with_imm) {
                for (k = 0; k < NOUT; k++) {
                    if (!take_type(RTOPO__TL_EV_IMM, w, TMO_MS, &ev))
                        break;
                    if (ev.e.imm >= NOUT || seen[ev.e.imm]++)
                        bad++;
                    got++;
                }
            } else if (take_type(RTOPO__TL_EV_RECV, w, TMO_MS, &ev)) {
                free(ev.copy);
                got = NOUT;
            }
            wrong = verify(P.tbuf, (size_t)NOUT * NOUT_SIZE, 77 + pass);
            check(got == NOUT && !bad && wrong < 0,
                  "%d outstanding writes of %d B from %d %s: %d arrived, data %s, %.1f ms",
                  NOUT, NOUT_SIZE, w, with_imm ? "with imm" : "then control message",
                  got, wrong < 0 ? "ok" : "wrong", now_ms() - t0);
        } else {
            struct qev ev;
            int rc = 0, k, busy = 0, done = 0;
            double t0;

            fill(P.sbuf, (size_t)NOUT * NOUT_SIZE, 77 + pass);
            oob_sync(t, 510 + pass);
            t0 = now_ms();
            /* post all before reaping any; BUSY (queue full) means poll first */
            for (k = 0; k < NOUT && rc == 0; k++) {
                for (;;) {
                    rc = P.ops->write(P.tl, t, P.sbuf + (size_t)k * NOUT_SIZE, NOUT_SIZE,
                                      P.smr, &P.rkey[t], (uint64_t)k * NOUT_SIZE, k,
                                      with_imm ? RTOPO__TL_IMM : 0, sctx(7, k));
                    if (rc != RTOPO_ERR_BUSY || now_ms() - t0 > TMO_MS)
                        break;
                    busy++;
                    pump(1);
                }
            }
            while (done < NOUT && take_type(RTOPO__TL_EV_WRITE_DONE, t, TMO_MS, &ev))
                done++;
            if (!with_imm && rc == 0) {
                uint32_t x = 2;

                rc = do_send(t, &x, sizeof(x), sctx(7, 999));
            }
            check(rc == 0 && done == NOUT,
                  "%d x %d B writes to %d %s: WRITE_DONE %d, BUSY retries %d, %.1f ms "
                  "(%.1f MB/s)%s%s", NOUT, NOUT_SIZE, t, with_imm ? "with imm" : "",
                  done, busy, now_ms() - t0,
                  (double)NOUT * NOUT_SIZE / ((now_ms() - t0) * 1e3),
                  rc ? ", " : "", rc ? rtopo_err_name(rc) : "");
            drop_local_done();
        }
    }
}

static void check_too_big(void)
{
    size_t mw = P.attr.max_write;
    int rc;

    if (mw == 0 || mw >= ((size_t)1 << 40)) {
        out("info [r%d] max_write %zu: oversize write not checked", P.rank, mw);
        return;
    }
    /* refused on the length alone, before memory is touched */
    rc = P.ops->write(P.tl, 1 - P.rank, P.sbuf, mw + 1, P.smr, &P.rkey[1 - P.rank],
                      0, 0, 0, sctx(8, 0));
    check(rc == RTOPO_ERR_INVAL, "write of max_write + 1 = %zu B refused: %s", mw + 1,
          rc ? rtopo_err_name(rc) : "accepted");
}

/* Writes outside what the target opened are refused, at once
 * (RTOPO_ERR_INVAL) or in their completion (TL_EV_ERROR): past the end of
 * the region, under a forged key, and under the key of a region the
 * target has deregistered since; small writes (in the ring) and large
 * ones (cross-memory attach) alike.  The target's memory must be
 * untouched.  Native shm only (it checks the key against the target's
 * table of regions; libfabric and verbs report such errors in their own
 * ways, not checked here). */
static void check_bad_keys(int w, int t)
{
    static const size_t lens[] = { 8, 65536 };
    unsigned char *spare = NULL;
    struct rtopo__tl_mr *smr2 = NULL;
    rtopo__rkey_t rk2;
    unsigned i;

    if (strcmp(P.transport, "shm"))
        return;
    oob_sync(w == P.rank ? t : w, 700);
    if (P.rank == t) {
        long wrong;
        int rc;

        memset(P.tbuf, 0, TBUF_SIZE);
        spare = aligned_alloc(4096, 131072);
        memset(spare, 0, 131072);
        rc = P.ops->mem_reg(P.tl, spare, 131072,
                            RTOPO__TL_ACCESS_LOCAL | RTOPO__TL_ACCESS_REMOTE_WRITE, &smr2);
        P.ops->mem_rkey(smr2, &rk2);
        P.ops->mem_dereg(smr2);
        /* the writer gets the key of a region that is gone */
        oob_send(w, &rk2, sizeof(rk2));
        oob_sync(w, 701);
        for (i = 0, wrong = -1; i < 131072 && wrong < 0; i++)
            if (spare[i])
                wrong = (long)i;
        check(rc == 0 && wrong < 0 && !memchr(P.tbuf, 0x5a, TBUF_SIZE),
              "writes outside the open regions from %d: memory untouched", w);
        free(spare);
    } else {
        rtopo__rkey_t bad;
        int rc[3][2], ok = 1, k, nerr = P.nerr;
        struct qev ev;

        if (oob_recv(t, &rk2, sizeof(rk2)))
            return;
        memset(P.sbuf, 0x5a, 65536);
        for (i = 0; i < 2; i++) {
            /* past the end */
            rc[0][i] = P.ops->write(P.tl, t, P.sbuf, lens[i], P.smr, &P.rkey[t],
                                    TBUF_SIZE - lens[i] + 1, 1, RTOPO__TL_IMM, sctx(12, i));
            /* a forged key */
            bad = P.rkey[t];
            bad.key ^= (uint64_t)1 << 40;
            rc[1][i] = P.ops->write(P.tl, t, P.sbuf, lens[i], P.smr, &bad, 0, 1,
                                    RTOPO__TL_IMM, sctx(12, 2 + i));
            /* the key of a deregistered region */
            rc[2][i] = P.ops->write(P.tl, t, P.sbuf, lens[i], P.smr, &rk2, 0, 1,
                                    RTOPO__TL_IMM, sctx(12, 4 + i));
            for (k = 0; k < 3; k++) {
                struct match m = { RTOPO__TL_EV_ERROR, t, 1, sctx(12, 2 * k + i) };

                /* accepted: then its completion must say it failed */
                if (rc[k][i] == 0)
                    rc[k][i] = take(&m, TMO_MS, &ev) ? ev.e.status : RTOPO_ERR_TIMEOUT;
                ok &= rc[k][i] == RTOPO_ERR_INVAL || rc[k][i] == RTOPO_ERR_TRANSPORT;
            }
        }
        drop_local_done();
        P.nerr = nerr;      /* these errors were asked for */
        check(ok, "writes outside the open regions to %d failed: past the end %s/%s, "
              "forged key %s/%s, deregistered region %s/%s (8 B / 64 KiB)", t,
              rtopo_err_name(rc[0][0]), rtopo_err_name(rc[0][1]), rtopo_err_name(rc[1][0]),
              rtopo_err_name(rc[1][1]), rtopo_err_name(rc[2][0]), rtopo_err_name(rc[2][1]));
        oob_sync(t, 701);
    }
}

/* ---- checks: wait() ------------------------------------------------------- */

static void check_wait(int sleeper, int waker)
{
    oob_sync(sleeper == P.rank ? waker : sleeper, 600);
    if (P.rank == sleeper) {
        double t0, el;
        int calls = 0, rc = 0, got = 0;
        struct qev ev;

        /* nothing is coming: wait() must return by its timeout */
        while (pump(0) > 0)
            ;
        t0 = now_ms();
        while (now_ms() - t0 < 300 && calls < 100000) {
            int left = 300 - (int)(now_ms() - t0);

            rc = P.ops->wait(P.tl, left > 0 ? left : 0);
            calls++;
            if (rc < 0)
                break;
            pump(0);
        }
        el = now_ms() - t0;
        check(rc >= 0 && el < 300 + 250 && (!P.attr.blocking_wait || calls <= 10),
              "wait(300) with nothing incoming: %.1f ms, %d call(s)%s", el, calls,
              P.attr.blocking_wait ? "" : " (not blocking)");
        t0 = now_ms();
        rc = P.ops->wait(P.tl, 0);
        el = now_ms() - t0;
        check(rc >= 0 && el < 50, "wait(0) returns at once: %.2f ms", el);

        /* an incoming message must wake a sleeping wait() */
        oob_sync(waker, 601);
        t0 = now_ms();
        calls = 0;
        while (!got && now_ms() - t0 < TMO_MS) {
            int i;

            rc = P.ops->wait(P.tl, 5000);
            calls++;
            if (pump(0) < 0)
                break;
            for (i = 0; i < P.nq; i++)
                if (P.q[i].e.type == RTOPO__TL_EV_RECV)
                    got = 1;
        }
        el = now_ms();
        if (got && take_type(RTOPO__TL_EV_RECV, waker, 0, &ev)) {
            struct ctrl_msg *h = (struct ctrl_msg *)ev.copy;
            double lat = el - h->sent_ms;

            check(lat < 1000, "wait(5000) woken by a control message: %.1f ms after "
                  "the send (%d wait call(s))", lat, calls);
            free(ev.copy);
        } else {
            check(0, "wait(5000) woken by a control message: nothing after %.1f ms",
                  el - t0);
        }
    } else {
        struct ctrl_msg m = { CTRL_MAGIC, P.rank, 0, sizeof(m), 0 };
        struct qev ev;

        /* stay quiet (polling only) while the other side waits */
        oob_sync(sleeper, 601);
        usleep(200000);
        m.sent_ms = now_ms();
        do_send(sleeper, &m, sizeof(m), sctx(9, 0));
        take_type(RTOPO__TL_EV_SEND_DONE, sleeper, TMO_MS, &ev);
    }
}

/* ---- checks: peer death --------------------------------------------------- */

/* Survivor side: `dead` has gone (or is going) away.  Wait for a
 * TL_EV_ERROR naming it, or poll() < 0; after 2 s, provoke with sends. */
static void check_peer_death(int dead)
{
    double t0, t_eof;
    int provoked = 0, found = 0;
    char c;
    const char *how = "passive";

    /* the socketpair closes when the process exits: the reference time */
    if (oob_recv_tmo(dead, &c, 1, TMO_MS) != -1)
        out("info [r%d] rank %d did not close its socket", P.rank, dead);
    t_eof = now_ms();
    t0 = t_eof;
    while (now_ms() - t0 < TMO_MS) {
        int i;

        pump(50);
        for (i = 0; i < P.nq; i++)
            if (P.q[i].e.type == RTOPO__TL_EV_ERROR && P.q[i].e.peer == dead)
                found = 1;
        if (found || P.poll_err)
            break;
        if (now_ms() - t0 > 2000 && now_ms() - t0 > provoked * 250.0 + 2000) {
            uint32_t x = 3;
            int rc = P.ops->send(P.tl, dead, &x, sizeof(x), sctx(10, provoked));

            provoked++;
            how = "after sends";
            if (rc != 0 && rc != RTOPO_ERR_BUSY) {
                out("info [r%d] send to dead rank %d: %s", P.rank, dead, rtopo_err_name(rc));
                found = 2;
                break;
            }
        }
    }
    if (!found && !P.poll_err &&
        (!strncmp(P.transport, "ofi", 3) || !strncmp(P.transport, "multi:ofi", 9))) {
        /* libfabric's tcp, rxm and shm providers report nothing for a
         * peer that vanished while no operation of ours was failing: the
         * engine learns of it from the launcher's failure notice instead */
        out("note [r%d] peer %d death: no transport error after %.0f ms (expected "
            "on libfabric; the bootstrap reports dead ranks)", P.rank, dead,
            now_ms() - t_eof);
        return;
    }
    check(found || P.poll_err,
          "peer %d death noticed %.0f ms after its exit (%s%s%s)%s", dead,
          now_ms() - t_eof, found == 2 ? "send refused" : found ? "TL_EV_ERROR" :
          P.poll_err ? "poll error" : "nothing", found == 1 ? ", " : "",
          found == 1 ? how : "", found || P.poll_err ? "" : ": this transport gives no error");
}

/* ---- the two scenarios ------------------------------------------------------ */

static void run_pair(void)
{
    int me = P.rank, other = 1 - P.rank;

    if (setup())
        return;
    check_first_ctrl(other);
    check_ring_first_lap(0);
    ctrl_exchange(other, other, NCTRL, sizeof(struct ctrl_msg), "control burst");
    oob_sync(other, 10);
    ctrl_exchange(other, other, 8, CTRL_SIZE, "control max size (ctrl_size)");
    oob_sync(other, 11);
    ctrl_sendv_exchange(other, other, 300, CTRL_SIZE, 1);
    oob_sync(other, 14);
    ctrl_sendv_exchange(other, other, 300, sizeof(struct ctrl_msg) + 40, 0);
    oob_sync(other, 15);
    check_plain_write(0, 1);
    check_imm_writes(0, 1);
    check_imm_writes(1, 0);
    check_inject(0, 1);
    check_outstanding(0, 1);
    check_outstanding(1, 0);
    check_too_big();
    check_bad_keys(0, 1);
    check_wait(1, 0);
    check_wait(0, 1);
    /* before the last meeting: once past it, rank 1 may be gone already,
     * and a transport that watches its peers reports that at once */
    check(P.nerr == 0 && P.poll_err == 0, "no transport errors so far (%d events, "
          "poll %s)", P.nerr, P.poll_err ? rtopo_err_name(P.poll_err) : "ok");
    oob_sync(other, 12);

    /* rank 1 dies without closing anything; rank 0 must notice */
    if (me == 1) {
        out("info [r1] exiting without close");
        _exit(0);
    }
    check_peer_death(1);
    teardown();
}

static void run_trio(void)
{
    int p, k;

    if (setup())
        return;
    for (p = 0; p < P.nranks; p++)
        if (p != P.rank)
            check_first_ctrl(p);
    /* fan-out: messages to both peers at once */
    {
        int to = (P.rank + 1) % 3, from = (P.rank + 2) % 3;

        ctrl_exchange(to, from, 200, sizeof(struct ctrl_msg), "ring control burst");
        for (p = 0; p < 3; p++)
            if (p != P.rank)
                oob_sync(p, 20);
        ctrl_exchange(from, to, 200, sizeof(struct ctrl_msg), "reverse ring control burst");
    }
    /* each rank writes with imm into its slot of both peers' buffers */
    for (p = 0; p < 3; p++)
        if (p != P.rank)
            oob_sync(p, 21);
    {
        size_t len = 65536 + 1;
        int got = 0, bad = 0, rc = 0;
        struct qev ev;

        for (p = 0; p < 3; p++) {
            if (p == P.rank)
                continue;
            fill(P.sbuf + P.rank * (size_t)131072, len, 3000 + P.rank * 10 + p);
            rc |= do_write(p, P.sbuf + P.rank * (size_t)131072, len,
                           P.rank * (uint64_t)131072, 0xb0000000u | (P.rank << 8) | p,
                           RTOPO__TL_IMM, sctx(11, p));
            for (k = 0; k < 1 && rc == 0; k++) {
                struct match m = { RTOPO__TL_EV_WRITE_DONE, p, 1, sctx(11, p) };

                if (!take(&m, TMO_MS, &ev))
                    rc = RTOPO_ERR_TIMEOUT;
            }
        }
        for (k = 0; k < 2; k++) {
            if (!take_type(RTOPO__TL_EV_IMM, -1, TMO_MS, &ev))
                break;
            got++;
            /* tl.h allows peer -1 when the backend cannot tell (rxm after an
             * implicit connection): the immediate names the sender too */
            if (ev.e.peer < 0)
                ev.e.peer = (int)((ev.e.imm >> 8) & 0xff);
            if (ev.e.peer < 0 || ev.e.peer > 2 || ev.e.peer == P.rank ||
                ev.e.imm != (0xb0000000u | (ev.e.peer << 8) | P.rank) || (ev.e.len != len && ev.e.len != 0) ||
                verify(P.tbuf + ev.e.peer * (size_t)131072, len,
                       3000 + ev.e.peer * 10 + P.rank) >= 0)
                bad++;
        }
        check(rc == 0 && got == 2 && !bad, "write+imm to both peers and from both: "
              "%d IMM, bad %d%s%s", got, bad, rc ? ", " : "", rc ? rtopo_err_name(rc) : "");
    }
    for (p = 0; p < 3; p++)
        if (p != P.rank)
            oob_sync(p, 22);

    /* rank 0 (the active side of both its connections) dies; ranks 1 and 2
     * must notice and still talk to each other */
    if (P.rank == 0) {
        out("info [r0] exiting without close");
        _exit(0);
    }
    check_peer_death(0);
    P.poll_err = 0;
    drop_local_done();
    ctrl_exchange(3 - P.rank, 3 - P.rank, 20, sizeof(struct ctrl_msg),
                  "survivors still talk after the death of rank 0");
    oob_sync(3 - P.rank, 23);
    teardown();
}

/* ---- process management --------------------------------------------------- */

/* Is name the segment of the native shm transport of pid:
 * rtopo-shm-<uid>-<job>-<rank>-<pid>? */
static int native_shm_name(const char *name, pid_t pid)
{
    char prefix[64], suffix[32];
    size_t n = strlen(name), np, ns;
    const char *p;

    np = snprintf(prefix, sizeof(prefix), "rtopo-shm-%u-", (unsigned)getuid());
    ns = snprintf(suffix, sizeof(suffix), "-%d", (int)pid);
    if (n <= np + ns || strncmp(name, prefix, np) || strcmp(name + n - ns, suffix))
        return 0;
    for (p = name + np; p < name + n - ns; p++)
        if ((*p < '0' || *p > '9') && *p != '-')
            return 0;
    return 1;
}

/* Removes /dev/shm/<pid>:<uid>:* (libfabric's shm provider names its
 * segment so) and /dev/shm/rtopo-shm-<uid>-*-<pid> (the native shm
 * transport's) of a rank that has ended: the ones that die on purpose
 * never close their endpoint.  Only regular files of this user, and only
 * while the rank is a zombie (not reaped yet), so that the pid cannot
 * belong to another process. */
static void remove_shm_leftovers(pid_t pid)
{
    char prefix[64];
    struct dirent *d;
    struct stat st;
    DIR *dir;

    snprintf(prefix, sizeof(prefix), "%d:%u:", (int)pid, (unsigned)getuid());
    if (!(dir = opendir("/dev/shm")))
        return;
    while ((d = readdir(dir))) {
        if ((strncmp(d->d_name, prefix, strlen(prefix)) &&
             !native_shm_name(d->d_name, pid)) ||
            fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
            !S_ISREG(st.st_mode) || st.st_uid != geteuid())
            continue;
        if (unlinkat(dirfd(dir), d->d_name, 0) == 0)
            out("info removed /dev/shm/%s left by rank pid %d", d->d_name, (int)pid);
    }
    closedir(dir);
}

static int run(const char *transport, int nranks, const char *name)
{
    int sp[MAXP][MAXP][2];
    pid_t pid[MAXP];
    int i, j, bad = 0;

    out("== %s (%d processes)", name, nranks);
    for (i = 0; i < nranks; i++)
        for (j = i + 1; j < nranks; j++)
            if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp[i][j])) {
                perror("socketpair");
                return 1;
            }
    for (i = 0; i < nranks; i++) {
        pid[i] = fork();
        if (pid[i] < 0) {
            perror("fork");
            return 1;
        }
        if (pid[i] == 0) {
            memset(&P, 0, sizeof(P));
            P.ops = rtopo__tl_find(transport);
            P.transport = transport;
            P.rank = i;
            P.nranks = nranks;
            rtopo__log_rank = i;
            for (j = 0; j < MAXP; j++)
                P.fd[j] = -1;
            for (j = 0; j < nranks; j++) {
                int a = i < j ? i : j, b = i < j ? j : i;

                if (j == i)
                    continue;
                P.fd[j] = sp[a][b][i < j ? 0 : 1];
            }
            /* close the other ends so a dead rank shows up as EOF */
            for (j = 0; j < nranks; j++) {
                int k;

                for (k = j + 1; k < nranks; k++) {
                    if (j == i || k == i) {
                        close(sp[j][k][j == i ? 1 : 0]);
                    } else {
                        close(sp[j][k][0]);
                        close(sp[j][k][1]);
                    }
                }
            }
            alarm(100);
            if (nranks == 2)
                run_pair();
            else
                run_trio();
            _exit(0);
        }
    }
    for (i = 0; i < nranks; i++)
        for (j = i + 1; j < nranks; j++) {
            close(sp[i][j][0]);
            close(sp[i][j][1]);
        }
    /* every rank ended (nobody maps the segments any more) but none
     * reaped yet: their pids are still theirs */
    for (i = 0; i < nranks; i++) {
        siginfo_t si;

        out("info rank %d pid %d", i, (int)pid[i]);
        while (waitid(P_PID, (id_t)pid[i], &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
            ;
    }
    for (i = 0; i < nranks; i++)
        remove_shm_leftovers(pid[i]);
    for (i = 0; i < nranks; i++) {
        int st = 0;

        if (waitpid(pid[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
            out("FAIL rank %d of %s %s %d", i, name,
                WIFSIGNALED(st) ? "killed by signal" : "exited with",
                WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            cnt->fail++;
            bad = 1;
        }
    }
    return bad;
}

static void info_line(const char *line, void *arg)
{
    out("# %s", line);
}

int main(int argc, char **argv)
{
    const struct rtopo__tl_ops *ops;
    const char *transport;

    if (argc != 2) {
        fprintf(stderr, "usage: %s TRANSPORT (ofi:rxm, ofi:tcp, ofi:shm, shm, verbs...)\n",
                argv[0]);
        return 99;
    }
    transport = argv[1];
    rtopo__log_set_level(getenv("RTOPO_LOG_LEVEL"));
    trace = getenv("TL_CHECK_TRACE") != NULL;
    ops = rtopo__tl_find(transport);
    if (ops == NULL || !ops->available || !ops->available(transport)) {
        out("SKIP %s: %s", transport, ops ? "not available here" : "not built");
        return 77;
    }
    cnt = mmap(NULL, sizeof(*cnt), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
               -1, 0);
    if (cnt == MAP_FAILED) {
        perror("mmap");
        return 99;
    }
    signal(SIGPIPE, SIG_IGN);
    if (ops->size > offsetof(struct rtopo__tl_ops, info) && ops->info)
        ops->info(transport, info_line, NULL);
    run(transport, 2, "pair");
    run(transport, 3, "fan-out");
    out("%d passed, %d failed", cnt->pass, cnt->fail);
    return cnt->fail || cnt->pass == 0 ? 1 : 0;
}
