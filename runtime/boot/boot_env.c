/*
 * boot_env.c - the env bootstrap method: a client of rtopo-run's
 * rendezvous (protocol in boot_wire.h).
 *
 * One TCP connection to the launcher for the life of the job.  Every
 * blocking step polls the socket against a deadline; the socket itself
 * stays non-blocking so that poll_failure() costs one recv() that
 * usually returns EAGAIN.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "rtopo.h"
#include "log.h"
#include "boot.h"
#include "boot_wire.h"

struct rtopo__boot_env {
    struct rtopo__boot base;
    int fd;
    int timeout_ms;
    uint32_t seq;              /* of the last allgather started */
    unsigned char *in;         /* received bytes not consumed yet */
    size_t in_len;
    size_t in_cap;
    int *failed;               /* notices poll_failure has not returned */
    int nfailed;
    int failed_cap;
    int broken;                /* status once the connection is unusable */
    int authed;                /* the launcher proved it knows the secret */
};

#define RTOPO__ENV_NONBLOCK ((int64_t)-1)

static int rtopo__env_wait(struct rtopo__boot_env *e, short events,
                           int64_t deadline)
{
    struct pollfd pfd = { .fd = e->fd, .events = events };
    int64_t left;
    int n;

    for (;;) {
        left = deadline - rtopo__wire_now_ms();
        if (left < 0)
            left = 0;
        n = poll(&pfd, 1, (int)(left > 1000000 ? 1000000 : left));
        if (n > 0)
            return RTOPO_OK;
        if (n < 0 && errno != EINTR)
            return rtopo__error(RTOPO_ERR_BOOTSTRAP,
                                "poll on the bootstrap connection: %m");
        if (n == 0 && rtopo__wire_now_ms() >= deadline)
            return RTOPO_ERR_TIMEOUT;
    }
}

/* A broken stream cannot be resynchronised: remember it for later calls. */
static int rtopo__env_break(struct rtopo__boot_env *e, int status)
{
    e->broken = status;
    return status;
}

static int rtopo__env_send(struct rtopo__boot_env *e, uint32_t type,
                           const void *a, size_t alen,
                           const void *b, size_t blen, int64_t deadline)
{
    unsigned char hdr[RTOPO__WIRE_HDR];
    struct iovec iov[3];
    struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 3 };
    ssize_t n;
    int st;

    rtopo__wire_hdr(hdr, type, (uint32_t)(alen + blen));
    iov[0].iov_base = hdr;
    iov[0].iov_len = sizeof(hdr);
    iov[1].iov_base = (void *)a;
    iov[1].iov_len = alen;
    iov[2].iov_base = (void *)b;
    iov[2].iov_len = blen;
    while (msg.msg_iovlen > 0) {
        n = sendmsg(e->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                return rtopo__env_break(e,
                    rtopo__error(RTOPO_ERR_BOOTSTRAP,
                                 "send to rtopo-run: %m"));
            st = rtopo__env_wait(e, POLLOUT, deadline);
            if (st != RTOPO_OK)
                return rtopo__env_break(e, st == RTOPO_ERR_TIMEOUT ?
                    rtopo__error(RTOPO_ERR_TIMEOUT,
                                 "rtopo-run did not accept data for %d ms",
                                 e->timeout_ms) : st);
            continue;
        }
        while (msg.msg_iovlen > 0 && (size_t)n >= msg.msg_iov->iov_len) {
            n -= (ssize_t)msg.msg_iov->iov_len;
            msg.msg_iov++;
            msg.msg_iovlen--;
        }
        if (msg.msg_iovlen > 0) {
            msg.msg_iov->iov_base = (char *)msg.msg_iov->iov_base + n;
            msg.msg_iov->iov_len -= (size_t)n;
        }
    }
    return RTOPO_OK;
}

/*
 * Next complete frame, left at the start of e->in (the caller consumes
 * it).  Returns 1 with a frame, 0 when none is complete and deadline is
 * RTOPO__ENV_NONBLOCK, or a status.
 */
static int rtopo__env_frame(struct rtopo__boot_env *e, int64_t deadline,
                            uint32_t *type, unsigned char **payload,
                            uint32_t *len)
{
    size_t need, cap, limit;
    unsigned char *p;
    ssize_t n;
    int st;

    for (;;) {
        need = RTOPO__WIRE_HDR;
        if (e->in_len >= RTOPO__WIRE_HDR) {
            *type = rtopo__wire_get32(e->in);
            *len = rtopo__wire_get32(e->in + 4);
            /* refused on the header, before any buffer is sized for it;
             * before authentication the other side may be anybody */
            limit = e->authed ? RTOPO__WIRE_MAX_RESULT(e->base.size)
                              : RTOPO__WIRE_MAX_PREAUTH;
            if (*len > limit)
                return rtopo__env_break(e,
                    rtopo__error(RTOPO_ERR_BOOTSTRAP,
                                 "frame of %u bytes from %s (at most %zu "
                                 "expected)", *len, e->authed ? "rtopo-run" :
                                 "the bootstrap address before authentication",
                                 limit));
            need += *len;
            if (e->in_len >= need) {
                *payload = e->in + RTOPO__WIRE_HDR;
                return 1;
            }
        }
        if (need > e->in_cap) {
            cap = e->in_cap ? e->in_cap : 4096;
            while (cap < need)
                cap *= 2;
            p = realloc(e->in, cap);
            if (!p)
                return rtopo__error(RTOPO_ERR_NOMEM,
                                    "bootstrap receive buffer of %zu bytes",
                                    cap);
            e->in = p;
            e->in_cap = cap;
        }
        n = recv(e->fd, e->in + e->in_len, e->in_cap - e->in_len,
                 MSG_DONTWAIT);
        if (n > 0) {
            e->in_len += (size_t)n;
            continue;
        }
        if (n == 0)
            return rtopo__env_break(e,
                rtopo__error(RTOPO_ERR_BOOTSTRAP,
                             "rtopo-run closed the bootstrap connection"));
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return rtopo__env_break(e,
                rtopo__error(RTOPO_ERR_BOOTSTRAP,
                             "receive from rtopo-run: %m"));
        if (deadline == RTOPO__ENV_NONBLOCK)
            return 0;
        st = rtopo__env_wait(e, POLLIN, deadline);
        if (st != RTOPO_OK)
            return st;
    }
}

/* next frame of the handshake: 0 when it is `want` with payload length
 * `want_len`, 1 when the launcher refused us (payload: reason), < 0 on
 * anything else */
static int rtopo__env_expect(struct rtopo__boot_env *e, int64_t deadline,
                             uint32_t want, uint32_t want_len,
                             unsigned char **p, uint32_t *len)
{
    uint32_t type;
    int st = rtopo__env_frame(e, deadline, &type, p, len);

    if (st == RTOPO_ERR_TIMEOUT)
        return rtopo__error(RTOPO_ERR_TIMEOUT, "no answer from rtopo-run within %d ms",
                            e->timeout_ms);
    if (st < 0)
        return st;
    if (type == want && *len == want_len)
        return 0;
    if (type == RTOPO__WIRE_REFUSE && *len >= 4)
        return 1;
    return rtopo__error(RTOPO_ERR_BOOTSTRAP,
                        "unexpected frame type %u in the bootstrap handshake", type);
}

static void rtopo__env_consume(struct rtopo__boot_env *e, uint32_t len)
{
    size_t n = RTOPO__WIRE_HDR + (size_t)len;

    memmove(e->in, e->in + n, e->in_len - n);
    e->in_len -= n;
}

static int rtopo__env_note_failure(struct rtopo__boot_env *e,
                                   const unsigned char *p, uint32_t len)
{
    int *f;
    int i, rank;

    if (len != 4)
        return rtopo__env_break(e,
            rtopo__error(RTOPO_ERR_BOOTSTRAP,
                         "malformed failure notice from rtopo-run"));
    rank = (int32_t)rtopo__wire_get32(p);
    for (i = 0; i < e->nfailed; i++)
        if (e->failed[i] == rank)
            return RTOPO_OK;
    if (e->nfailed == e->failed_cap) {
        f = realloc(e->failed, sizeof(*f) * (e->failed_cap ? 2 * e->failed_cap : 8));
        if (!f)
            return rtopo__error(RTOPO_ERR_NOMEM, "failure notice list");
        e->failed = f;
        e->failed_cap = e->failed_cap ? 2 * e->failed_cap : 8;
    }
    e->failed[e->nfailed++] = rank;
    rtopo__info("rtopo-run reports rank %d failed", rank);
    return RTOPO_OK;
}

/*
 * Frames that may arrive at any time: failure notices, and the answer to
 * a round this rank gave up on (timeout), which is dropped.  Returns 1
 * when the frame was handled, 0 when it is the caller's.
 */
static int rtopo__env_async(struct rtopo__boot_env *e, uint32_t type,
                            const unsigned char *p, uint32_t len, int *st)
{
    *st = RTOPO_OK;
    if (type == RTOPO__WIRE_FAILED) {
        *st = rtopo__env_note_failure(e, p, len);
        return 1;
    }
    if ((type == RTOPO__WIRE_RESULT || type == RTOPO__WIRE_ABORT) &&
        len >= 4 && rtopo__wire_get32(p) != e->seq)
        return 1;
    return 0;
}

static int rtopo__env_allgather(struct rtopo__boot *b, const void *in,
                                void *out, size_t len)
{
    struct rtopo__boot_env *e = (struct rtopo__boot_env *)b;
    unsigned char seq[4], *p;
    uint32_t type, plen, reason;
    int64_t deadline;
    int st, rank;

    if (e->broken)
        return e->broken;
    if (len > RTOPO__WIRE_MAX_BLOB)
        return rtopo__error(RTOPO_ERR_INVAL,
                            "bootstrap allgather of %zu bytes per rank "
                            "exceeds the rendezvous limit of %zu", len,
                            RTOPO__WIRE_MAX_BLOB);
    deadline = rtopo__wire_now_ms() + e->timeout_ms;
    rtopo__wire_put32(seq, ++e->seq);
    st = rtopo__env_send(e, RTOPO__WIRE_GATHER, seq, 4, in, len, deadline);
    if (st != RTOPO_OK)
        return st;
    for (;;) {
        st = rtopo__env_frame(e, deadline, &type, &p, &plen);
        if (st == RTOPO_ERR_TIMEOUT)
            return rtopo__error(RTOPO_ERR_TIMEOUT,
                                "bootstrap round %u did not complete within "
                                "%d ms", e->seq, e->timeout_ms);
        if (st < 0)
            return st;
        if (rtopo__env_async(e, type, p, plen, &st)) {
            rtopo__env_consume(e, plen);
            if (st != RTOPO_OK)
                return st;
            continue;
        }
        if (type == RTOPO__WIRE_RESULT &&
            plen == 4 + len * (size_t)b->size) {
            if (len)
                memcpy(out, p + 4, len * (size_t)b->size);
            rtopo__env_consume(e, plen);
            return RTOPO_OK;
        }
        if (type == RTOPO__WIRE_ABORT && plen == 12) {
            reason = rtopo__wire_get32(p + 4);
            rank = (int32_t)rtopo__wire_get32(p + 8);
            rtopo__env_consume(e, plen);
            if (reason == RTOPO__WIRE_R_PEER)
                return rtopo__error(RTOPO_ERR_PEER,
                                    "bootstrap round %u cannot complete: "
                                    "rank %d failed or left", e->seq, rank);
            if (reason == RTOPO__WIRE_R_MISMATCH)
                return rtopo__error(RTOPO_ERR_MISMATCH,
                                    "bootstrap round %u: ranks gave "
                                    "different sizes (this rank %zu bytes)",
                                    e->seq, len);
            return rtopo__error(RTOPO_ERR_BOOTSTRAP,
                                "rtopo-run aborted bootstrap round %u: %s",
                                e->seq, rtopo__wire_reason(reason));
        }
        return rtopo__env_break(e,
            rtopo__error(RTOPO_ERR_BOOTSTRAP,
                         "unexpected frame type %u (%u bytes) from rtopo-run",
                         type, plen));
    }
}

static int rtopo__env_barrier(struct rtopo__boot *b)
{
    return rtopo__env_allgather(b, NULL, NULL, 0);
}

static int rtopo__env_poll_failure(struct rtopo__boot *b, int *rank)
{
    struct rtopo__boot_env *e = (struct rtopo__boot_env *)b;
    unsigned char *p;
    uint32_t type, len;
    int st;

    while (!e->nfailed && !e->broken) {
        st = rtopo__env_frame(e, RTOPO__ENV_NONBLOCK, &type, &p, &len);
        if (st <= 0)
            return st;
        if (!rtopo__env_async(e, type, p, len, &st))
            return rtopo__env_break(e,
                rtopo__error(RTOPO_ERR_BOOTSTRAP,
                             "unexpected frame type %u from rtopo-run "
                             "outside a bootstrap round", type));
        rtopo__env_consume(e, len);
        if (st != RTOPO_OK)
            return st;
    }
    if (!e->nfailed)
        return e->broken;
    *rank = e->failed[0];
    memmove(e->failed, e->failed + 1, sizeof(int) * (size_t)--e->nfailed);
    return 1;
}

static void rtopo__env_close(struct rtopo__boot *b)
{
    struct rtopo__boot_env *e = (struct rtopo__boot_env *)b;

    /* tells the launcher this rank leaves on purpose */
    if (!e->broken)
        rtopo__env_send(e, RTOPO__WIRE_BYE, NULL, 0, NULL, 0,
                        rtopo__wire_now_ms() + 1000);
    close(e->fd);
    free(e->in);
    free(e->failed);
    free(e);
}

static const struct rtopo__boot_ops rtopo__boot_env_ops = {
    .name = "env",
    .allgather = rtopo__env_allgather,
    .barrier = rtopo__env_barrier,
    .poll_failure = rtopo__env_poll_failure,
    .close = rtopo__env_close,
};

static int rtopo__env_connect(struct rtopo__boot_env *e, const char *addr,
                              int64_t deadline)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC,
                              .ai_socktype = SOCK_STREAM };
    struct addrinfo *res = NULL, *ai;
    char host[256];
    const char *colon = strrchr(addr, ':');
    size_t hlen;
    socklen_t elen;
    int fd = -1, err = 0, one = 1, rc, st;

    if (!colon || colon == addr || !colon[1] ||
        (size_t)(colon - addr) >= sizeof(host))
        return rtopo__error(RTOPO_ERR_BOOTSTRAP,
                            "RTOPO_BOOT_ADDR '%s' is not host:port", addr);
    hlen = (size_t)(colon - addr);
    if (addr[0] == '[' && hlen > 2 && addr[hlen - 1] == ']') {
        memcpy(host, addr + 1, hlen - 2);   /* [v6 address]:port */
        host[hlen - 2] = '\0';
    } else {
        memcpy(host, addr, hlen);
        host[hlen] = '\0';
    }
    rc = getaddrinfo(host, colon + 1, &hints, &res);
    if (rc)
        return rtopo__error(RTOPO_ERR_BOOTSTRAP,
                            "RTOPO_BOOT_ADDR '%s': %s", addr,
                            gai_strerror(rc));
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC |
                    SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        e->fd = fd;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        if (errno == EINPROGRESS) {
            st = rtopo__env_wait(e, POLLOUT, deadline);
            if (st == RTOPO_ERR_TIMEOUT) {
                err = ETIMEDOUT;
            } else if (st == RTOPO_OK) {
                elen = sizeof(err);
                if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen))
                    err = errno;
                if (!err)
                    break;
            }
        } else {
            err = errno;
        }
        close(fd);
        fd = e->fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        errno = err;
        return rtopo__error(err == ETIMEDOUT ? RTOPO_ERR_TIMEOUT :
                            RTOPO_ERR_BOOTSTRAP,
                            "cannot connect to rtopo-run at %s: %m", addr);
    }
    /* rounds are small request/answer exchanges: no Nagle delay */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return RTOPO_OK;
}

static int rtopo__env_handshake(struct rtopo__boot_env *e, const char *secret,
                                int64_t deadline)
{
    unsigned char hello[RTOPO__WIRE_HELLO_LEN];
    unsigned char nonce_c[RTOPO__WIRE_NONCE];
    unsigned char mac_s[RTOPO__WIRE_MAC], mac_c[RTOPO__WIRE_MAC];
    unsigned char *p;
    uint32_t len, reason;
    int st, server_ok;

    if (rtopo__wire_random(nonce_c, sizeof(nonce_c)))
        return rtopo__error(RTOPO_ERR_BOOTSTRAP, "getrandom: %m");
    rtopo__wire_put32(hello, RTOPO__WIRE_MAGIC);
    rtopo__wire_put32(hello + 4, RTOPO__WIRE_VERSION);
    rtopo__wire_put32(hello + 8, (uint32_t)e->base.rank);
    rtopo__wire_put32(hello + 12, (uint32_t)e->base.size);
    memcpy(hello + 16, nonce_c, sizeof(nonce_c));
    st = rtopo__env_send(e, RTOPO__WIRE_HELLO, hello, sizeof(hello),
                         NULL, 0, deadline);
    if (st != RTOPO_OK)
        return st;

    st = rtopo__env_expect(e, deadline, RTOPO__WIRE_CHALLENGE,
                           RTOPO__WIRE_CHALLENGE_LEN, &p, &len);
    if (st == 1)
        goto refused;
    if (st < 0)
        return st;
    rtopo__wire_mac(secret, RTOPO__WIRE_ROLE_SERVER, e->base.rank, nonce_c, p,
                    mac_s);
    server_ok = rtopo__wire_mac_equal(mac_s, p + RTOPO__WIRE_NONCE);
    rtopo__wire_mac(secret, RTOPO__WIRE_ROLE_CLIENT, e->base.rank, nonce_c, p,
                    mac_c);
    rtopo__env_consume(e, len);
    /* answered even when the server failed our check, so that the
     * launcher sees the bad connection and reports it */
    st = rtopo__env_send(e, RTOPO__WIRE_AUTH, mac_c, sizeof(mac_c), NULL, 0,
                         deadline);
    if (!server_ok)
        return rtopo__error(RTOPO_ERR_AUTH,
                            "the rendezvous at the bootstrap address failed "
                            "authentication: RTOPO_JOB_SECRET does not match "
                            "this job's");
    if (st != RTOPO_OK)
        return st;

    st = rtopo__env_expect(e, deadline, RTOPO__WIRE_WELCOME, 4, &p, &len);
    if (st == 1)
        goto refused;
    if (st < 0)
        return st;
    if ((int)rtopo__wire_get32(p) != e->base.size)
        return rtopo__error(RTOPO_ERR_BOOTSTRAP,
                            "rtopo-run runs %u ranks but RTOPO_SIZE is %d",
                            rtopo__wire_get32(p), e->base.size);
    rtopo__env_consume(e, len);
    e->authed = 1;
    return RTOPO_OK;

refused:
    reason = rtopo__wire_get32(p);
    if (reason == RTOPO__WIRE_R_AUTH)
        return rtopo__error(RTOPO_ERR_AUTH,
                            "rtopo-run refused the bootstrap connection: "
                            "RTOPO_JOB_SECRET does not match this job's");
    if (len > 4)   /* the launcher's own words, more precise */
        return rtopo__error(RTOPO_ERR_BOOTSTRAP,
                            "rtopo-run refused the bootstrap connection: "
                            "%.*s", (int)(len - 4), p + 4);
    return rtopo__error(RTOPO_ERR_BOOTSTRAP,
                        "rtopo-run refused the bootstrap connection of rank "
                        "%d: %s", e->base.rank, rtopo__wire_reason(reason));
}

int rtopo__boot_env_open(int rank, int size, const char *addr,
                         const char *secret, int timeout_ms,
                         struct rtopo__boot **boot_p)
{
    struct rtopo__boot_env *e;
    int64_t deadline = rtopo__wire_now_ms() + timeout_ms;
    int st;

    if (size < 1 || rank < 0 || rank >= size)
        return rtopo__error(RTOPO_ERR_BOOTSTRAP,
                            "RTOPO_RANK %d and RTOPO_SIZE %d do not describe "
                            "a rank of the job (start it with rtopo-run)",
                            rank, size);
    if (!secret || !*secret)
        return rtopo__error(RTOPO_ERR_BOOTSTRAP,
                            "RTOPO_BOOT_ADDR is set but RTOPO_JOB_SECRET is "
                            "not (start the job with rtopo-run)");
    e = calloc(1, sizeof(*e));
    if (!e)
        return rtopo__error(RTOPO_ERR_NOMEM, "env bootstrap");
    e->base.ops = &rtopo__boot_env_ops;
    e->base.rank = rank;
    e->base.size = size;
    e->fd = -1;
    e->timeout_ms = timeout_ms;

    st = rtopo__env_connect(e, addr, deadline);
    if (st != RTOPO_OK)
        goto err_free;
    st = rtopo__env_handshake(e, secret, deadline);
    if (st != RTOPO_OK)
        goto err_close;
    rtopo__debug("rank %d of %d joined the rendezvous at %s", rank, size,
                 addr);
    *boot_p = &e->base;
    return RTOPO_OK;

err_close:
    close(e->fd);
err_free:
    free(e->in);
    free(e->failed);
    free(e);
    return st;
}
