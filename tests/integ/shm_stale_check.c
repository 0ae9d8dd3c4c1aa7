/*
 * shm_stale_check - shared-memory regions that ofi:shm ranks leave behind
 * (tests/integ/shm_stale.sh).  libfabric's shm provider names the region
 * of an endpoint /dev/shm/<pid>:<uid>:<n>, 16 MiB, and removes it only
 * when the endpoint closes.
 *
 *   shm_stale_check die kill|exit3|exit0 [foreign] [stubborn]
 *       Every rank prints "pid P", joins (rtopo_init, ring), shifts once.
 *       Rank 1 then ends without closing its endpoint: SIGKILL (kill),
 *       _exit(3) (exit3) or exit(0) without rtopo_finalize (exit0).  With
 *       "foreign" and run as root, it first creates
 *       /dev/shm/<pid>:<uid>:9 owned by nobody (printed as "foreign
 *       PATH"), which rtopo-run must keep.  The other ranks shift until
 *       one fails with RTOPO_ERR_PEER, print "shift: RTOPO_ERR_PEER", and
 *       then wait without rtopo_finalize until rtopo-run terminates them
 *       (at most 60 s).  The shm provider's SIGTERM handler removes their
 *       regions; with "stubborn" they ignore SIGTERM, so that rtopo-run
 *       kills them with SIGKILL and must remove their regions itself, as
 *       it must rank 1's.
 *
 *   shm_stale_check busy
 *       Before rtopo_init, each rank creates what a dead process with its
 *       pid would have left: /dev/shm/<pid>:<uid>:7, and
 *       /dev/shm/<pid>:<uid>:0 (the name of its first endpoint), which it
 *       also maps so that the transport's sweep takes it for a live
 *       region of this process: libfabric then fails the endpoint with
 *       EBUSY, and the transport must retry.  As root also
 *       /dev/shm/<pid>:<uid>:8 owned by nobody, which must be kept.
 *       rtopo_init must succeed; after it :7 must be gone, :8 still
 *       there (then removed here); a ring shift and rtopo_finalize.
 *
 * Run under rtopo-run with --transport ofi:shm.  Exit status 0 on
 * success, 1 on failure.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "rtopo.h"
#include "integ_util.h"

#define REGION_SIZE ((size_t)16 << 20)
#define NOBODY      65534

static int me = -1;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "shm_stale_check rank %d: FAIL: ", me);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void region_path(char *buf, size_t cap, int n)
{
    snprintf(buf, cap, "/dev/shm/%d:%u:%d", (int)getpid(), (unsigned)getuid(), n);
}

/* a file like the provider's: size of a region, zeros; fd or -1 */
static int region_create(int n, int keep_open)
{
    char path[256];
    int fd;

    region_path(path, sizeof(path), n);
    fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        fail("create %s: %s", path, strerror(errno));
    if (ftruncate(fd, (off_t)REGION_SIZE))
        fail("ftruncate %s: %s", path, strerror(errno));
    if (!keep_open) {
        close(fd);
        return -1;
    }
    return fd;
}

static int exists(int n)
{
    char path[256];
    struct stat st;

    region_path(path, sizeof(path), n);
    return !lstat(path, &st);
}

static void ring_shift(rtopo_topo_t *ring, int p, unsigned tag)
{
    static char src[65536], dst[65536];
    int st;

    iu_fill(src, sizeof(src), me, tag);
    if ((st = rtopo_shift(ring, src, dst, sizeof(src), 1)))
        fail("shift: %s (%s)", rtopo_err_name(st), rtopo_last_error());
    if (iu_first_bad(dst, sizeof(dst), (me + p - 1) % p, tag) >= 0)
        fail("shift: wrong data");
}

static void join(rtopo_ctx_t **ctx, rtopo_topo_t **ring)
{
    int st;

    if ((st = rtopo_init(NULL, ctx)))
        fail("rtopo_init: %s (%s)", rtopo_err_name(st), rtopo_last_error());
    me = rtopo_rank(*ctx);
    if ((st = rtopo_topo_ring(*ctx, ring)))
        fail("rtopo_topo_ring: %s (%s)", rtopo_err_name(st), rtopo_last_error());
}

static int run_die(const char *how, int foreign, int stubborn)
{
    static char src[65536], dst[65536];
    rtopo_topo_t *ring;
    rtopo_ctx_t *ctx;
    char path[256];
    double t0;
    int st, i, fd;

    printf("pid %d\n", (int)getpid());
    fflush(stdout);
    join(&ctx, &ring);
    if (rtopo_size(ctx) < 2)
        fail("needs at least 2 ranks");
    ring_shift(ring, rtopo_size(ctx), 1);
    if (me == 1) {
        if (foreign && geteuid() == 0) {
            fd = region_create(9, 1);
            region_path(path, sizeof(path), 9);
            if (fchown(fd, NOBODY, NOBODY))
                fail("fchown %s: %s", path, strerror(errno));
            close(fd);
            printf("foreign %s\n", path);
        }
        /* let the others block in the next shift first */
        iu_nap_ms(200);
        printf("ending: %s\n", how);
        fflush(stdout);
        if (!strcmp(how, "kill"))
            raise(SIGKILL);
        if (!strcmp(how, "exit0"))
            exit(0);
        _exit(3);
    }
    t0 = iu_now();
    for (i = 0; i < 100000; i++) {
        iu_fill(src, sizeof(src), me, (unsigned)i);
        if ((st = rtopo_shift(ring, src, dst, sizeof(src), 1)))
            break;
    }
    if (st != RTOPO_ERR_PEER)
        fail("shift %d: %s (%s), expected RTOPO_ERR_PEER", i, rtopo_err_name(st),
             rtopo_last_error());
    printf("shift: RTOPO_ERR_PEER after %.0f ms\n", (iu_now() - t0) * 1000);
    if (stubborn)
        signal(SIGTERM, SIG_IGN);
    fflush(stdout);
    /* no rtopo_finalize: the endpoint stays open until rtopo-run ends us */
    for (i = 0; i < 600; i++)
        iu_nap_ms(100);
    fail("not terminated by rtopo-run within 60 s");
    return 1;
}

static int run_busy(void)
{
    rtopo_topo_t *ring;
    rtopo_ctx_t *ctx;
    char path[256];
    void *map;
    int fd, st;

    printf("pid %d\n", (int)getpid());
    fflush(stdout);
    region_create(7, 0);
    fd = region_create(0, 1);
    map = mmap(NULL, REGION_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        fail("mmap: %s", strerror(errno));
    close(fd);
    if (geteuid() == 0) {
        fd = region_create(8, 1);
        region_path(path, sizeof(path), 8);
        if (fchown(fd, NOBODY, NOBODY))
            fail("fchown %s: %s", path, strerror(errno));
        close(fd);
    }
    join(&ctx, &ring);
    if (exists(7))
        fail("the stale region :7 of this pid is still there after rtopo_init");
    if (geteuid() == 0) {
        if (!exists(8))
            fail("the region :8 of another user was removed");
        region_path(path, sizeof(path), 8);
        unlink(path);
    }
    printf("rtopo_init: ok\n");
    ring_shift(ring, rtopo_size(ctx), 2);
    rtopo_topo_free(ring);
    if ((st = rtopo_finalize(ctx)))
        fail("rtopo_finalize: %s (%s)", rtopo_err_name(st), rtopo_last_error());
    munmap(map, REGION_SIZE);
    printf("ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int i, foreign = 0, stubborn = 0, bad = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "foreign"))
            foreign = 1;
        else if (!strcmp(argv[i], "stubborn"))
            stubborn = 1;
        else
            bad = 1;
    }
    if (!bad && !strcmp(mode, "die") && argc > 2 &&
        (!strcmp(argv[2], "kill") || !strcmp(argv[2], "exit3") ||
         !strcmp(argv[2], "exit0")))
        return run_die(argv[2], foreign, stubborn);
    if (!strcmp(mode, "busy") && argc == 2)
        return run_busy();
    fprintf(stderr, "usage: %s die kill|exit3|exit0 [foreign] [stubborn] | busy\n",
            argv[0]);
    return 2;
}
