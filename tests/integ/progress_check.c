/*
 * progress_check.c - RTOPO_PROGRESS=thread: a rank that computes with a
 * nonblocking shift in flight does not hold its peers up, and the thread
 * sleeps rather than spins while it waits.
 *
 *   rtopo-run -n 4 progress_check BYTES DIR
 *
 * Even ranks start a shift and then compute without calling rtopo; odd
 * ranks start theirs and wait.  The odd ranks' data is a rendezvous
 * transfer, which needs the even senders' progress: only the progress
 * thread can move it while they compute.  An odd rank whose wait is
 * done creates DIR/done.R; an even rank R computes (at least 600 ms)
 * until DIR/done.R+1 exists, and fails when it gave up first (after
 * 120 s, which only a missing progress thread would take).  The check
 * is the order of the events, not a time.  Every rank reports the CPU
 * time it used over its interval; more than 40% of one core fails (the
 * thread would be spinning).  Without DIR (the bad-value check) the even
 * ranks compute 600 ms.  Exit 0 on success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <rtopo.h>

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* whether the flag file DIR/done.R exists */
static int flag(const char *dir, int r)
{
    char path[4096];

    snprintf(path, sizeof path, "%s/done.%d", dir, r);
    return access(path, F_OK) == 0;
}

static void set_flag(const char *dir, int r)
{
    char path[4096];
    int fd;

    snprintf(path, sizeof path, "%s/done.%d", dir, r);
    if ((fd = open(path, O_CREAT | O_WRONLY, 0600)) >= 0)
        close(fd);
}

static double cpu(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
           1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

int main(int argc, char **argv)
{
    size_t m = argc > 1 ? strtoul(argv[1], NULL, 0) : (4u << 20), i;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    rtopo_req_t *req;
    unsigned char *sb, *rb;
    const char *dir = argc > 2 ? argv[2] : NULL;
    double t0, c0, waited, used, interval;
    int st, r, p, bad = 0, late = 0;

    if ((st = rtopo_init(NULL, &ctx))) {
        fprintf(stderr, "rank %s: rtopo_init: %s: %s\n", getenv("RTOPO_RANK"),
                rtopo_err_name(st), rtopo_last_error());
        return 1;
    }
    r = rtopo_rank(ctx);
    p = rtopo_size(ctx);
    sb = malloc(m);
    rb = calloc(1, m);
    if ((st = rtopo_topo_ring(ctx, &t)) || !sb || !rb) {
        fprintf(stderr, "rank %d: set-up failed: %s\n", r, rtopo_last_error());
        return 1;
    }
    for (i = 0; i < m; i++)
        sb[i] = (unsigned char)(r * 31 + i);
    if ((st = rtopo_barrier(ctx)))
        return 1;
    t0 = now();
    c0 = cpu();
    if ((st = rtopo_ishift(t, sb, rb, m, 1, &req))) {
        fprintf(stderr, "rank %d: rtopo_ishift: %s\n", r, rtopo_last_error());
        return 1;
    }
    if (r % 2 == 0) {
        /* computing, no rtopo call: at least 600 ms, then until the odd
         * rank this one sends to has its data (when it is odd) */
        int waits_for = dir && (r + 1) % p % 2 ? (r + 1) % p : -1;

        usleep(600000);
        while (waits_for >= 0 && !flag(dir, waits_for)) {
            if (now() - t0 > 120) {
                late = 1;
                break;
            }
            usleep(10000);
        }
    }
    st = rtopo_wait(req);
    waited = now() - t0;
    if (r % 2 && dir)
        set_flag(dir, r);
    if (r % 2)
        usleep((useconds_t)((0.6 - waited > 0 ? 0.6 - waited : 0) * 1e6));
    used = cpu() - c0;
    interval = now() - t0;
    for (i = 0; i < m && !bad; i++)
        bad = rb[i] != (unsigned char)(((r - 1 + p) % p) * 31 + i);
    printf("rank %d: %s, data %s, wait done after %.0f ms, %.0f%% of a core%s\n", r,
           rtopo_err_name(st), bad ? "WRONG" : "ok", waited * 1e3,
           100 * used / interval,
           late ? ", FAIL: the next rank's data did not arrive while this rank computed" : "");
    if (st || bad || late || used > 0.4 * interval)
        bad = 1;
    rtopo_req_free(req);
    rtopo_topo_free(t);
    if (rtopo_finalize(ctx))
        bad = 1;
    return bad;
}
