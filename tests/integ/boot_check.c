/*
 * boot_check - exercises a bootstrap method through boot.h only.
 *
 *   boot_check normal     open, allgathers of several sizes (64 KiB too),
 *                         barriers, close
 *   boot_check badsecret  normal, and rank 0 also starts processes that
 *                         connect with a wrong secret (must get
 *                         RTOPO_ERR_AUTH), as a duplicate rank and with a
 *                         wrong job size (must be refused)
 *   boot_check die|kill   rank 1 exits with status 3 (die) or SIGKILL
 *                         (kill) after the first allgather; the others
 *                         must hear of it from poll_failure within 2 s,
 *                         and then see a barrier fail with RTOPO_ERR_PEER
 *   boot_check small      normal without the large rounds (for many ranks)
 *   boot_check hang       rank 0 sleeps after the first barrier (for
 *                         rtopo-run --timeout)
 *   boot_check oob        4 threads bootstrap over an allgather callback
 *   boot_check bigframe   (rank 0 of an rtopo-run job, without rtopo_init)
 *                         joins the rendezvous by hand, then sends the
 *                         header of a 256 MiB GATHER frame: the launcher
 *                         must close the connection within 2 s instead of
 *                         sizing a buffer for it and waiting
 *   boot_check fake preauth|postauth
 *                         (alone) plays a launcher to a child rank of its
 *                         own: answers HELLO with the header of a 1 GiB
 *                         CHALLENGE (preauth), or authenticates and
 *                         answers the first GATHER with the header of a
 *                         16 MiB RESULT for a job of 1 rank (postauth).
 *                         The rank must refuse the frame on its header
 *                         (RTOPO_ERR_BOOTSTRAP naming the size) within 2 s
 *
 * Run it under rtopo-run, mpirun (pmix), or alone (single).  Exit status
 * 0 on success, 1 on failure.
 */
#include "config.h"
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netdb.h>
#include <poll.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "rtopo.h"
#include "boot.h"
#include "boot_wire.h"

#define TIMEOUT_MS 20000

static int me = -1;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "boot_check rank %d: FAIL: ", me);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static unsigned char pattern(int rank, size_t i, unsigned salt)
{
    return (unsigned char)(rank * 131 + i * 7 + salt);
}

/* every rank contributes len bytes of its own pattern; check them all */
static void check_allgather(struct rtopo__boot *b, size_t len, unsigned salt)
{
    unsigned char *in = malloc(len ? len : 1);
    unsigned char *out = malloc(len * (size_t)b->size + 1);
    size_t i;
    int r, st;

    if (!in || !out)
        fail("malloc");
    for (i = 0; i < len; i++)
        in[i] = pattern(b->rank, i, salt);
    st = rtopo__boot_allgather(b, in, out, len);
    if (st != RTOPO_OK)
        fail("allgather of %zu bytes: %s (%s)", len, rtopo_err_name(st),
             rtopo_last_error());
    for (r = 0; r < b->size; r++)
        for (i = 0; i < len; i++)
            if (out[(size_t)r * len + i] != pattern(r, i, salt))
                fail("allgather of %zu bytes: byte %zu of rank %d is %u, "
                     "expected %u", len, i, r, out[(size_t)r * len + i],
                     pattern(r, i, salt));
    free(in);
    free(out);
}

static void check_barriers(struct rtopo__boot *b, int n)
{
    int st;

    while (n-- > 0)
        if ((st = rtopo__boot_barrier(b)) != RTOPO_OK)
            fail("barrier: %s (%s)", rtopo_err_name(st), rtopo_last_error());
}

static void check_hosts(struct rtopo__boot *b)
{
    char *all = malloc(sizeof(b->host_id) * (size_t)b->size);
    int r, st;

    if (!all)
        fail("malloc");
    st = rtopo__boot_allgather(b, b->host_id, all, sizeof(b->host_id));
    if (st != RTOPO_OK)
        fail("host allgather: %s", rtopo_err_name(st));
    if (b->rank == 0) {
        printf("hosts:");
        for (r = 0; r < b->size; r++)
            printf(" %s", all + (size_t)r * sizeof(b->host_id));
        printf("\n");
    }
    free(all);
}

/* a process of our own that connects with the environment changed as
 * given and must fail with `want` */
static void expect_refused(const char *what, const char *var,
                           const char *value, int want)
{
    struct rtopo__boot *b;
    pid_t pid;
    int status, st;

    fflush(NULL);
    pid = fork();
    if (pid < 0)
        fail("fork: %m");
    if (pid == 0) {
        setenv(var, value, 1);
        st = rtopo__boot_open(NULL, "env", 5000, &b);
        if (st == RTOPO_OK) {
            fprintf(stderr, "%s: connection accepted\n", what);
            _exit(1);
        }
        if (st != want) {
            fprintf(stderr, "%s: %s, expected %s\n", what,
                    rtopo_err_name(st), rtopo_err_name(want));
            _exit(1);
        }
        printf("%s: refused with %s\n", what, rtopo_err_name(st));
        fflush(stdout);
        _exit(0);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        fail("%s: the connection was not refused as expected", what);
}

static int run_die(struct rtopo__boot *b, int by_signal)
{
    long t0, t;
    int rank = -1, got = 0, st;

    if (b->size < 2)
        fail("die needs at least 2 ranks");
    if (b->rank == 1) {
        fflush(NULL);
        if (by_signal)
            raise(SIGKILL);
        _exit(3);
    }
    t0 = now_ms();
    while ((t = now_ms() - t0) < 2000) {
        st = rtopo__boot_poll_failure(b, &rank);
        if (st < 0)
            fail("poll_failure: %s (%s)", rtopo_err_name(st),
                 rtopo_last_error());
        if (st == 1) {
            got = 1;
            break;
        }
        usleep(5000);
    }
    if (!got)
        fail("poll_failure reported nothing within 2 s");
    if (rank != 1)
        fail("poll_failure reported rank %d, expected 1", rank);
    printf("poll_failure reported rank %d after %ld ms\n", rank, t);
    st = rtopo__boot_barrier(b);
    if (st != RTOPO_ERR_PEER)
        fail("barrier after the failure: %s, expected RTOPO_ERR_PEER",
             rtopo_err_name(st));
    printf("barrier after the failure: %s\n", rtopo_err_name(st));
    rtopo__boot_close(b);
    return 0;
}

/* ---- oob: threads standing in for ranks ------------------------------ */

#define OOB_RANKS 4

struct oob_shared {
    pthread_barrier_t bar;
    unsigned char *buf;
    size_t cap;
};

static struct oob_shared oob;

struct oob_rank {
    int rank;
    int ok;
};

static int oob_allgather(const void *in, void *out, size_t len, void *arg)
{
    struct oob_rank *self = arg;

    /* rank 0 sizes the shared buffer while the others wait */
    pthread_barrier_wait(&oob.bar);
    if (self->rank == 0 && len * OOB_RANKS > oob.cap) {
        free(oob.buf);
        oob.cap = len * OOB_RANKS;
        oob.buf = malloc(oob.cap);
    }
    pthread_barrier_wait(&oob.bar);
    if (!oob.buf)
        return -1;
    memcpy(oob.buf + (size_t)self->rank * len, in, len);
    pthread_barrier_wait(&oob.bar);
    memcpy(out, oob.buf, len * OOB_RANKS);
    pthread_barrier_wait(&oob.bar);
    return 0;
}

static void *oob_rank_main(void *arg)
{
    struct oob_rank *self = arg;
    rtopo_config_t cfg = RTOPO_CONFIG_INIT;
    struct rtopo__boot *b;
    int st;

    cfg.rank = self->rank;
    cfg.nranks = OOB_RANKS;
    cfg.allgather = oob_allgather;
    cfg.allgather_arg = self;
    st = rtopo__boot_open(&cfg, "auto", TIMEOUT_MS, &b);
    if (st != RTOPO_OK || b->rank != self->rank || b->size != OOB_RANKS ||
        strcmp(b->ops->name, "oob"))
        return NULL;
    check_allgather(b, 24, 5);
    check_barriers(b, 2);
    check_allgather(b, 4096, 6);
    rtopo__boot_close(b);
    self->ok = 1;
    return NULL;
}

static int run_oob(void)
{
    struct oob_rank ranks[OOB_RANKS];
    pthread_t th[OOB_RANKS];
    rtopo_config_t cfg = RTOPO_CONFIG_INIT;
    struct rtopo__boot *b;
    int r, st;

    /* a rank outside [0, nranks) is the caller's mistake */
    cfg.rank = OOB_RANKS;
    cfg.nranks = OOB_RANKS;
    cfg.allgather = oob_allgather;
    st = rtopo__boot_open(&cfg, "auto", TIMEOUT_MS, &b);
    if (st != RTOPO_ERR_INVAL)
        fail("oob open with rank %d of %d: %s, expected RTOPO_ERR_INVAL",
             cfg.rank, cfg.nranks, rtopo_err_name(st));

    pthread_barrier_init(&oob.bar, NULL, OOB_RANKS);
    for (r = 0; r < OOB_RANKS; r++) {
        ranks[r].rank = r;
        ranks[r].ok = 0;
        if (pthread_create(&th[r], NULL, oob_rank_main, &ranks[r]))
            fail("pthread_create");
    }
    for (r = 0; r < OOB_RANKS; r++)
        pthread_join(th[r], NULL);
    for (r = 0; r < OOB_RANKS; r++)
        if (!ranks[r].ok)
            fail("oob thread %d failed", r);
    printf("oob: %d threads bootstrapped over the callback\n", OOB_RANKS);
    free(oob.buf);
    return 0;
}

/* ---- bigframe: a rank that knows the secret and misbehaves ---------- */

static void raw_send(int fd, const void *p, size_t n)
{
    if (send(fd, p, n, MSG_NOSIGNAL) != (ssize_t)n)
        fail("send: %m");
}

/* one frame of the expected type and length, within 5 s */
static void raw_expect(int fd, uint32_t type, unsigned char *payload, size_t len)
{
    unsigned char buf[RTOPO__WIRE_HDR + 256];
    size_t got = 0, want = RTOPO__WIRE_HDR + len;
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    ssize_t n;

    while (got < want) {
        if (poll(&pfd, 1, 5000) <= 0)
            fail("no frame %u from the launcher within 5 s", type);
        n = recv(fd, buf + got, want - got, 0);
        if (n <= 0)
            fail("the launcher closed the connection in the handshake");
        got += (size_t)n;
        if (got >= RTOPO__WIRE_HDR && (rtopo__wire_get32(buf) != type ||
                                       rtopo__wire_get32(buf + 4) != len))
            fail("frame %u of %u bytes from the launcher, expected %u of %zu",
                 rtopo__wire_get32(buf), rtopo__wire_get32(buf + 4), type, len);
    }
    memcpy(payload, buf + RTOPO__WIRE_HDR, len);
}

static int run_bigframe(void)
{
    const char *addr = getenv("RTOPO_BOOT_ADDR"), *secret = getenv("RTOPO_JOB_SECRET");
    const char *size_s = getenv("RTOPO_SIZE"), *rank_s = getenv("RTOPO_RANK");
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
    unsigned char hdr[RTOPO__WIRE_HDR], hello[RTOPO__WIRE_HELLO_LEN];
    unsigned char ch[RTOPO__WIRE_CHALLENGE_LEN], mac[RTOPO__WIRE_MAC], w[4];
    const uint32_t big = 256u << 20;
    struct addrinfo *res;
    struct pollfd pfd;
    char host[64], *colon, junk[64];
    long t0, t;
    int fd, rank, size;
    ssize_t n;

    if (!addr || !secret || !size_s || !rank_s || strlen(addr) >= sizeof(host))
        fail("bigframe runs under rtopo-run");
    rank = me = atoi(rank_s);
    size = atoi(size_s);
    strcpy(host, addr);
    if (!(colon = strrchr(host, ':')))
        fail("RTOPO_BOOT_ADDR '%s'", addr);
    *colon = '\0';
    if (getaddrinfo(host, colon + 1, &hints, &res))
        fail("getaddrinfo %s", addr);
    fd = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
    if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen))
        fail("connect %s: %m", addr);
    freeaddrinfo(res);

    /* the handshake of boot_wire.h, as a rank does it */
    rtopo__wire_put32(hello, RTOPO__WIRE_MAGIC);
    rtopo__wire_put32(hello + 4, RTOPO__WIRE_VERSION);
    rtopo__wire_put32(hello + 8, (uint32_t)rank);
    rtopo__wire_put32(hello + 12, (uint32_t)size);
    memset(hello + 16, 7, RTOPO__WIRE_NONCE);
    rtopo__wire_hdr(hdr, RTOPO__WIRE_HELLO, sizeof(hello));
    raw_send(fd, hdr, sizeof(hdr));
    raw_send(fd, hello, sizeof(hello));
    raw_expect(fd, RTOPO__WIRE_CHALLENGE, ch, sizeof(ch));
    rtopo__wire_mac(secret, RTOPO__WIRE_ROLE_CLIENT, rank, hello + 16, ch, mac);
    rtopo__wire_hdr(hdr, RTOPO__WIRE_AUTH, sizeof(mac));
    raw_send(fd, hdr, sizeof(hdr));
    raw_send(fd, mac, sizeof(mac));
    raw_expect(fd, RTOPO__WIRE_WELCOME, w, sizeof(w));
    printf("joined the rendezvous by hand\n");

    /* a GATHER header that announces 256 MiB, and nothing after it */
    rtopo__wire_hdr(hdr, RTOPO__WIRE_GATHER, big);
    raw_send(fd, hdr, sizeof(hdr));
    t0 = now_ms();
    pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
    for (;;) {
        t = now_ms() - t0;
        if (t >= 2000)
            fail("the launcher kept the connection open 2 s after a frame "
                 "header of %u bytes", big);
        if (poll(&pfd, 1, (int)(2000 - t)) <= 0)
            continue;
        n = recv(fd, junk, sizeof(junk), 0);
        if (n <= 0)
            break;
    }
    printf("bigframe: the launcher closed the connection %ld ms after a frame "
           "header of %u bytes\n", now_ms() - t0, big);
    close(fd);
    return 0;
}

/* ---- fake: a launcher that misbehaves, to a rank of our own --------- */

static void fake_rank(const char *addr, int postauth)
{
    unsigned char in[16] = { 1 }, out[16];
    struct rtopo__boot *b;
    long t0 = now_ms();
    int st;

    setenv("RTOPO_BOOT_ADDR", addr, 1);
    setenv("RTOPO_RANK", "0", 1);
    setenv("RTOPO_SIZE", "1", 1);
    setenv("RTOPO_JOB_SECRET", "fake-launcher-secret", 1);
    st = rtopo__boot_open(NULL, "env", TIMEOUT_MS, &b);
    if (st == RTOPO_OK && postauth) {
        printf("fake: the rank joined\n");
        st = rtopo__boot_allgather(b, in, out, sizeof(in));
    }
    printf("fake: the rank got %s (%s) after %ld ms\n", rtopo_err_name(st),
           rtopo_last_error(), now_ms() - t0);
    fflush(stdout);
    _exit(st == RTOPO_ERR_BOOTSTRAP && strstr(rtopo_last_error(), "frame of") &&
          now_ms() - t0 < 2000 ? 0 : 1);
}

static int run_fake(const char *mode)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t salen = sizeof(sa);
    unsigned char hdr[RTOPO__WIRE_HDR], hello[RTOPO__WIRE_HELLO_LEN];
    unsigned char ch[RTOPO__WIRE_CHALLENGE_LEN], mac[RTOPO__WIRE_MAC], g[4 + 16], w[4];
    int postauth = !strcmp(mode, "postauth"), lfd, fd, status = 0;
    struct pollfd pfd;
    char addr[64];
    long t0;
    pid_t pid;

    if (!postauth && strcmp(mode, "preauth"))
        fail("fake preauth|postauth");
    lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 4) ||
        getsockname(lfd, (struct sockaddr *)&sa, &salen))
        fail("listen: %m");
    snprintf(addr, sizeof(addr), "127.0.0.1:%u", (unsigned)ntohs(sa.sin_port));
    fflush(NULL);
    if ((pid = fork()) < 0)
        fail("fork: %m");
    if (pid == 0) {
        close(lfd);
        fake_rank(addr, postauth);
    }
    pfd = (struct pollfd){ .fd = lfd, .events = POLLIN };
    if (poll(&pfd, 1, 10000) <= 0 || (fd = accept(lfd, NULL, NULL)) < 0)
        fail("the rank did not connect");
    raw_expect(fd, RTOPO__WIRE_HELLO, hello, sizeof(hello));
    if (!postauth) {
        rtopo__wire_hdr(hdr, RTOPO__WIRE_CHALLENGE, (1u << 30) - 1);
        raw_send(fd, hdr, sizeof(hdr));
    } else {
        memset(ch, 9, RTOPO__WIRE_NONCE);
        rtopo__wire_mac("fake-launcher-secret", RTOPO__WIRE_ROLE_SERVER, 0, hello + 16, ch,
                        ch + RTOPO__WIRE_NONCE);
        rtopo__wire_hdr(hdr, RTOPO__WIRE_CHALLENGE, sizeof(ch));
        raw_send(fd, hdr, sizeof(hdr));
        raw_send(fd, ch, sizeof(ch));
        raw_expect(fd, RTOPO__WIRE_AUTH, mac, sizeof(mac));
        rtopo__wire_hdr(hdr, RTOPO__WIRE_WELCOME, 4);
        rtopo__wire_put32(w, 1);
        raw_send(fd, hdr, sizeof(hdr));
        raw_send(fd, w, sizeof(w));
        raw_expect(fd, RTOPO__WIRE_GATHER, g, sizeof(g));
        rtopo__wire_hdr(hdr, RTOPO__WIRE_RESULT, 16u << 20);
        raw_send(fd, hdr, sizeof(hdr));
        raw_send(fd, g, 4);   /* the round's number, then nothing */
    }
    /* the connection stays open: the rank must not wait for the rest */
    t0 = now_ms();
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (now_ms() - t0 > 10000) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fail("the rank still waited 10 s after the frame header");
        }
        usleep(10000);
    }
    close(fd);
    close(lfd);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        fail("%s: the rank did not refuse the frame on its header within 2 s", mode);
    printf("fake %s: the rank refused the frame\n", mode);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "normal";
    struct rtopo__boot *b;
    char size[16];
    int st;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!strcmp(mode, "oob"))
        return run_oob();
    if (!strcmp(mode, "bigframe"))
        return run_bigframe();
    if (!strcmp(mode, "fake"))
        return run_fake(argc > 2 ? argv[2] : "");

    st = rtopo__boot_open(NULL, NULL, TIMEOUT_MS, &b);
    if (st != RTOPO_OK)
        fail("open: %s (%s)", rtopo_err_name(st), rtopo_last_error());
    me = b->rank;
    printf("rank %d size %d host %s method %s\n", b->rank, b->size,
           b->host_id, b->ops->name);

    if (!strcmp(mode, "badsecret") && b->rank == 0 &&
        !strcmp(b->ops->name, "env")) {
        expect_refused("wrong secret", "RTOPO_JOB_SECRET",
                       "0000000000000000000000000000000000000000000000000000"
                       "000000000000", RTOPO_ERR_AUTH);
        /* rank 0 itself is connected: a second rank 0 is refused */
        expect_refused("duplicate rank", "RTOPO_RANK", "0",
                       RTOPO_ERR_BOOTSTRAP);
        snprintf(size, sizeof(size), "%d", b->size + 1);
        expect_refused("wrong size", "RTOPO_SIZE", size, RTOPO_ERR_BOOTSTRAP);
    }

    check_allgather(b, 16, 1);
    if (!strcmp(mode, "die") || !strcmp(mode, "kill"))
        return run_die(b, !strcmp(mode, "kill"));
    check_barriers(b, 3);
    if (!strcmp(mode, "hang") && b->rank == 0)
        sleep(3600);
    check_allgather(b, 1, 2);
    if (strcmp(mode, "small")) {
        check_allgather(b, 65536, 3);
        check_hosts(b);
    }
    check_allgather(b, 0, 4);
    check_barriers(b, 2);
    rtopo__boot_close(b);
    printf("rank %d: ok\n", me);
    return 0;
}
