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
#include <sys/wait.h>
#include "rtopo.h"
#include "boot.h"

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

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "normal";
    struct rtopo__boot *b;
    char size[16];
    int st;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!strcmp(mode, "oob"))
        return run_oob();

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
