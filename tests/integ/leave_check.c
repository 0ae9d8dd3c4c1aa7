/*
 * leave_check - jobs that rtopo-run must keep going, or end fast.
 *
 *   leave_check exit0
 *       rank 1 calls rtopo_init and rtopo_topo_ring, then exit(0) 300 ms
 *       later without rtopo_finalize, while the other ranks shift 64 KiB
 *       on the ring (q = 1) again and again, so that they soon block
 *       waiting for it.  Each of them must get RTOPO_ERR_PEER within 2 s of
 *       rank 1 leaving (RTOPO_TIMEOUT_MS is far longer) and prints
 *       "shift: RTOPO_ERR_PEER within N ms of rank 1 leaving".
 *
 *   leave_check idle K DIR
 *       before rtopo_init, rank 0 opens K connections to the launcher's
 *       rendezvous (RTOPO_BOOT_ADDR) that never say a word, then creates
 *       DIR/idle-open; the other ranks wait for that file before their
 *       rtopo_init.  Every rank must then join the job (rtopo_init, a
 *       ring shift, rtopo_finalize), and rank 0 must see the launcher
 *       close every idle connection within 5 s of opening it.
 *
 * Run under rtopo-run.  Exit status 0 on success, 1 on failure.
 */
#include "config.h"
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "rtopo.h"
#include "integ_util.h"

static int me = -1;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "leave_check rank %d: FAIL: ", me);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static rtopo_topo_t *ring_new(rtopo_ctx_t *ctx)
{
    rtopo_topo_t *ring;
    int st;

    if ((st = rtopo_topo_ring(ctx, &ring)))
        fail("rtopo_topo_ring: %s (%s)", rtopo_err_name(st), rtopo_last_error());
    return ring;
}

static void ring_shift(rtopo_ctx_t *ctx, rtopo_topo_t *ring)
{
    char src[4096], dst[4096];
    double t0, ms;
    int st;

    iu_fill(src, sizeof(src), me, 1);
    t0 = iu_now();
    st = rtopo_shift(ring, src, dst, sizeof(src), 1);
    ms = (iu_now() - t0) * 1000;
    if (st != RTOPO_OK)
        fail("shift: %s (%s) after %.0f ms", rtopo_err_name(st), rtopo_last_error(), ms);
    if (iu_first_bad(dst, sizeof(dst), (me + rtopo_size(ctx) - 1) % rtopo_size(ctx), 1) >= 0)
        fail("shift: wrong data");
    printf("shift: %s after %.0f ms\n", rtopo_err_name(st), ms);
}

static int run_exit0(void)
{
    static char src[65536], dst[65536];
    rtopo_topo_t *ring;
    rtopo_ctx_t *ctx;
    double t0, ms;
    int st, i;

    if ((st = rtopo_init(NULL, &ctx)))
        fail("rtopo_init: %s (%s)", rtopo_err_name(st), rtopo_last_error());
    me = rtopo_rank(ctx);
    if (rtopo_size(ctx) < 3)
        fail("exit0 needs at least 3 ranks");
    ring = ring_new(ctx);
    if (me == 1) {
        /* let the others block in the shift first */
        iu_nap_ms(300);
        printf("leaving without rtopo_finalize\n");
        fflush(stdout);
        exit(0);
    }
    /* shifts until one fails: each needs data from the left neighbour of
     * the same round, so within a round or two every survivor waits for
     * rank 1, or for a rank that waits for it */
    t0 = iu_now();
    for (i = 0; i < 100000; i++) {
        iu_fill(src, sizeof(src), me, (unsigned)i);
        st = rtopo_shift(ring, src, dst, sizeof(src), 1);
        if (st)
            break;
    }
    ms = (iu_now() - t0) * 1000;
    if (st != RTOPO_ERR_PEER)
        fail("shift %d: %s (%s) after %.0f ms, expected RTOPO_ERR_PEER", i,
             rtopo_err_name(st), rtopo_last_error(), ms);
    /* rank 1 left 300 ms after the loop began */
    if (ms > 2300)
        fail("shift %d: RTOPO_ERR_PEER only %.0f ms after rank 1 left", i, ms - 300);
    printf("shift: RTOPO_ERR_PEER within %.0f ms of rank 1 leaving\n",
           ms > 300 ? ms - 300 : 0);
    rtopo_topo_free(ring);
    rtopo_finalize(ctx);
    return 0;
}

static int connect_boot(const char *addr)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    struct addrinfo *res;
    const char *colon = strrchr(addr, ':');
    char host[256];
    int fd;

    if (!colon || (size_t)(colon - addr) >= sizeof(host))
        fail("RTOPO_BOOT_ADDR '%s'", addr);
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = '\0';
    if (getaddrinfo(host, colon + 1, &hints, &res))
        fail("getaddrinfo %s", addr);
    fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
    if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen))
        fail("connect to %s: %s", addr, strerror(errno));
    freeaddrinfo(res);
    return fd;
}

static int run_idle(int k, const char *dir)
{
    const char *addr = getenv("RTOPO_BOOT_ADDR"), *rank = getenv("RTOPO_RANK");
    char path[4096], buf[64];
    struct pollfd *pfd;
    rtopo_topo_t *ring;
    rtopo_ctx_t *ctx;
    double t0, left;
    int i, st, open_n;
    FILE *f;

    if (!addr || !rank)
        fail("run me under rtopo-run");
    me = atoi(rank);
    snprintf(path, sizeof(path), "%s/idle-open", dir);
    pfd = calloc((size_t)k, sizeof(*pfd));
    if (!pfd)
        fail("calloc");
    t0 = iu_now();
    if (me == 0) {
        for (i = 0; i < k; i++)
            pfd[i] = (struct pollfd){ .fd = connect_boot(addr), .events = POLLIN };
        /* the launcher has accepted them all before anybody joins */
        iu_nap_ms(200);
        if (!(f = fopen(path, "w")))
            fail("%s: %s", path, strerror(errno));
        fclose(f);
        printf("%d idle connections open\n", k);
    } else {
        while (access(path, F_OK)) {
            if (iu_now() - t0 > 10)
                fail("rank 0 did not open its idle connections within 10 s");
            iu_nap_ms(10);
        }
    }
    if ((st = rtopo_init(NULL, &ctx)))
        fail("rtopo_init with idle connections to the rendezvous: %s (%s)",
             rtopo_err_name(st), rtopo_last_error());
    ring = ring_new(ctx);
    ring_shift(ctx, ring);
    rtopo_topo_free(ring);
    if (me == 0) {
        /* the launcher must have closed (or be about to close) them all */
        for (open_n = k; open_n > 0 && (left = 5.0 - (iu_now() - t0)) > 0;) {
            if (poll(pfd, (nfds_t)k, (int)(left * 1000) + 1) <= 0)
                continue;
            for (i = 0; i < k; i++) {
                if (pfd[i].fd < 0 || !pfd[i].revents)
                    continue;
                if (recv(pfd[i].fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
                    continue;   /* a REFUSE, if any: wait for the close */
                close(pfd[i].fd);
                pfd[i].fd = -1;
                open_n--;
            }
        }
        if (open_n)
            fail("%d of %d idle connections still open after %.1f s", open_n, k,
                 iu_now() - t0);
        printf("the launcher closed all %d idle connections within %.1f s\n", k,
               iu_now() - t0);
    }
    if ((st = rtopo_finalize(ctx)))
        fail("rtopo_finalize: %s (%s)", rtopo_err_name(st), rtopo_last_error());
    printf("rank %d: ok\n", me);
    free(pfd);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!strcmp(mode, "exit0"))
        return run_exit0();
    if (!strcmp(mode, "idle") && argc == 4)
        return run_idle(atoi(argv[2]), argv[3]);
    fprintf(stderr, "usage: leave_check exit0 | idle K DIR\n");
    return 2;
}
