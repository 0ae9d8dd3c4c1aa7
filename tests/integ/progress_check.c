/*
 * progress_check.c - RTOPO_PROGRESS=thread: a rank that computes with a
 * nonblocking shift in flight does not hold its peers up, and the thread
 * sleeps rather than spins while it waits.
 *
 *   rtopo-run -n 4 progress_check BYTES
 *
 * Even ranks start a shift and then compute for 600 ms without calling
 * rtopo; odd ranks start theirs and wait.  With the progress thread the
 * odd ranks' data (a rendezvous transfer, which needs the even senders'
 * progress) arrives long before the even ranks come back: an odd rank
 * whose wait takes more than 300 ms fails.  Every rank reports the CPU
 * time it used over the 600 ms; more than 40% of one core fails (the
 * thread would be spinning).  Exit 0 on success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <rtopo.h>

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
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
    double t0, c0, waited, used;
    int st, r, p, bad = 0;

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
    if (r % 2 == 0)
        usleep(600000);            /* computing, no rtopo call */
    st = rtopo_wait(req);
    waited = now() - t0;
    if (r % 2)
        usleep((useconds_t)((0.6 - waited > 0 ? 0.6 - waited : 0) * 1e6));
    used = cpu() - c0;
    for (i = 0; i < m && !bad; i++)
        bad = rb[i] != (unsigned char)(((r - 1 + p) % p) * 31 + i);
    printf("rank %d: %s, data %s, wait done after %.0f ms, %.0f%% of a core\n", r,
           rtopo_err_name(st), bad ? "WRONG" : "ok", waited * 1e3, 100 * used / 0.6);
    if (st || bad || (r % 2 && waited > 0.3) || used > 0.4 * 0.6)
        bad = 1;
    rtopo_req_free(req);
    rtopo_topo_free(t);
    if (rtopo_finalize(ctx))
        bad = 1;
    return bad;
}
