/*
 * tl_oob.h - what the transport tests that fork their ranks share
 * (tl_check, tl_rcache_close): a clock, the out-of-band channel over the
 * socketpairs between the ranks, the address exchange and connect that
 * rtopo_init's bootstrap would do, and writes retried on BUSY as the
 * engine retries them.  Every wait is bounded and sleeps in poll(2).
 * Include after tl.h and tl_out.h.
 */
#ifndef RTOPO_TL_OOB_H
#define RTOPO_TL_OOB_H

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* all of buf[0, len) to fd: 0, or -1 (closed, error) */
static int tl_oob_send(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* len bytes from fd within tmo_ms, calling pump (when not NULL) between
 * looks of 1 ms: a target moves data only inside poll/wait (tl.h), so a
 * rank that waits here keeps its transport going.  0, -1 closed or an
 * error, -2 timeout. */
static int tl_oob_recv(int fd, void *buf, size_t len, int tmo_ms, void (*pump)(void))
{
    double end = now_ms() + tmo_ms;
    char *p = buf;

    while (len) {
        struct pollfd pfd = { fd, POLLIN, 0 };
        ssize_t n;

        if (pump)
            pump();
        if (poll(&pfd, 1, 1) <= 0) {
            if (now_ms() > end)
                return -2;
            continue;
        }
        n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The address exchange of rank among nranks (fd[peer]: the socketpair to
 * each peer, fd[rank] unused), tl open and its own token set: everybody
 * sends first (socket buffers hold it) its address blob[0, len), xlen
 * bytes of its own (x, e.g. a remote key; xlen may be 0) and its token,
 * then reads each peer's, keeping the peer's x at px + peer * xlen, and
 * sets the peer's token.  Nothing polls the transport until every token
 * is set: a poll may take a peer's connection request, which the
 * transport checks against that peer's token (tl.h: set_auth for every
 * rank before the first connect).  Then connects to every peer.  0; -1
 * with a line on stdout (the exchange failed); or the number of peers
 * whose connect failed (a line for each). */
static int tl_oob_connect(const struct rtopo__tl_ops *ops, struct rtopo__tl *tl, int rank,
                          int nranks, const int *fd, int tmo_ms, const void *blob,
                          size_t len, uint64_t token, const void *x, void *px, size_t xlen)
{
    unsigned char (*pblob)[RTOPO__TL_ADDR_MAX] = calloc((size_t)nranks, sizeof(*pblob));
    uint32_t *plen = calloc((size_t)nranks, sizeof(*plen)), l = (uint32_t)len;
    uint64_t ptoken;
    int peer, rc, res = -1;

    if (!pblob || !plen) {
        out("FAIL [r%d] out of memory", rank);
        goto out;
    }
    for (peer = 0; peer < nranks; peer++)
        if (peer != rank &&
            (tl_oob_send(fd[peer], &l, sizeof(l)) || tl_oob_send(fd[peer], blob, len) ||
             tl_oob_send(fd[peer], x, xlen) ||
             tl_oob_send(fd[peer], &token, sizeof(token)))) {
            out("FAIL [r%d] out-of-band to rank %d: closed", rank, peer);
            goto out;
        }
    for (peer = 0; peer < nranks; peer++) {
        if (peer == rank)
            continue;
        if ((rc = tl_oob_recv(fd[peer], &plen[peer], sizeof(l), tmo_ms, NULL)) ||
            (rc = plen[peer] > sizeof(pblob[peer]) ? -1 : 0) ||
            (rc = tl_oob_recv(fd[peer], pblob[peer], plen[peer], tmo_ms, NULL)) ||
            (xlen && (rc = tl_oob_recv(fd[peer], (char *)px + (size_t)peer * xlen, xlen,
                                       tmo_ms, NULL))) ||
            (rc = tl_oob_recv(fd[peer], &ptoken, sizeof(ptoken), tmo_ms, NULL))) {
            out("FAIL [r%d] out-of-band from rank %d: %s", rank, peer,
                rc == -2 ? "timeout" : "closed or too long");
            goto out;
        }
        if (RTOPO__TL_HAS(ops, set_auth) &&
            ops->set_auth(tl, peer, &ptoken, sizeof(ptoken))) {
            out("info [r%d] set_auth %d: %s", rank, peer, rtopo_last_error());
            goto out;
        }
    }
    res = 0;
    for (peer = 0; peer < nranks; peer++) {
        if (peer == rank)
            continue;
        if ((rc = ops->connect(tl, peer, pblob[peer], plen[peer]))) {
            res++;
            out("info [r%d] connect %d: %s (%s)", rank, peer, rtopo_err_name(rc),
                rtopo_last_error());
        }
    }
out:
    free(pblob);
    free(plen);
    return res;
}

/* ops->write retried on BUSY for up to tmo_ms, pump between tries (the
 * engine retries so): the write's status */
static int tl_write_busy(const struct rtopo__tl_ops *ops, struct rtopo__tl *tl, int peer,
                         const void *buf, size_t len, struct rtopo__tl_mr *mr,
                         const rtopo__rkey_t *rk, uint64_t roff, uint32_t imm,
                         unsigned flags, void *ctx, int tmo_ms, void (*pump)(void))
{
    double end = now_ms() + tmo_ms;
    int rc;

    for (;;) {
        rc = ops->write(tl, peer, buf, len, mr, rk, roff, imm, flags, ctx);
        if (rc != RTOPO_ERR_BUSY || now_ms() > end)
            return rc;
        pump();
    }
}

#endif
