/*
 * sleep_check - completion of a blocking shift, measured: does a shift's
 * data leave the sender by the time the sender's rtopo_shift returns?
 * Right after creating a ring, every rank makes one shift by +1 (so odd
 * ranks receive from even ones); the even ranks then sleep outside rtopo
 * until their odd receiver has its data.
 * If an even rank's shift returned with its outgoing data (or a
 * connection set-up) unfinished, its odd receiver cannot finish its first
 * shift while the sender sleeps.  The check is the order of the events,
 * not a time: an odd rank whose first shift is done creates DIR/done.R;
 * an even rank R sleeps (at least 1 s) until DIR/done.R+1 exists, and
 * fails when it gives up first (after 120 s, which only unfinished
 * outgoing data would take).
 * From ../shared/repro/mini_sleep.c, plus data checks and a verdict.
 *
 *   rtopo-run -n 4 sleep_check BYTES DIR
 *
 * Every rank prints its first and second shift times; each odd rank
 * prints "verdict: pass" when its shifts delivered correct data,
 * "verdict: FAIL" otherwise; an even rank prints "verdict: FAIL" when its
 * receiver's first shift did not end while it slept; a failing rank
 * exits 1 after rtopo_finalize.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <rtopo.h>
#include "integ_util.h"

int main(int argc, char **argv)
{
    size_t m = argc > 1 ? strtoul(argv[1], NULL, 0) : 8;
    const char *dir = argc > 2 ? argv[2] : ".";
    char flag[4096];
    int late = 0, fd;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    unsigned char *sb, *rb;
    int r, p, st, st2, src, fail = 0;
    long bad1 = -1, bad2 = -1;
    double t0, t1, t2;

    if ((st = rtopo_init(NULL, &ctx)) != RTOPO_OK) {
        fprintf(stderr, "%s: rtopo_init: %s: %s\n", iu_env_label(), rtopo_err_name(st),
                rtopo_last_error());
        return 1;
    }
    r = rtopo_rank(ctx);
    p = rtopo_size(ctx);
    src = iu_mod(r - 1, p);
    if ((st = rtopo_topo_ring(ctx, &t)) != RTOPO_OK) {
        fprintf(stderr, "rank %d: rtopo_topo_ring: %s: %s\n", r, rtopo_err_name(st),
                rtopo_last_error());
        return 1;
    }
    sb = malloc(m + 1);
    rb = malloc(m + 1);
    if (!sb || !rb)
        return 1;
    iu_fill(sb, m, r, 1);
    memset(rb, 0xee, m);
    /* no barrier here: creating the ring is collective and connects the
     * neighbours, so the ranks arrive together, and a first shift that
     * still has connections to make shows in its time */
    t0 = iu_now();
    st = rtopo_shift(t, sb, rb, m, 1);
    t1 = iu_now() - t0;
    if (st == RTOPO_OK)
        bad1 = iu_first_bad(rb, m, src, 1);
    if (r % 2 == 1) {
        snprintf(flag, sizeof flag, "%s/done.%d", dir, r);
        if ((fd = open(flag, O_CREAT | O_WRONLY, 0600)) >= 0)
            close(fd);
    } else {
        /* asleep, outside rtopo: until the odd receiver has its data */
        int to = (r + 1) % p;
        double s0 = iu_now();

        snprintf(flag, sizeof flag, "%s/done.%d", dir, to);
        sleep(1);
        while (to % 2 && access(flag, F_OK) != 0) {
            if (iu_now() - s0 > 120) {
                late = 1;
                break;
            }
            iu_nap_ms(10);
        }
    }
    iu_fill(sb, m, r, 2);
    memset(rb, 0xee, m);
    t0 = iu_now();
    st2 = rtopo_shift(t, sb, rb, m, 1);
    t2 = iu_now() - t0;
    if (st2 == RTOPO_OK)
        bad2 = iu_first_bad(rb, m, src, 2);
    printf("rank %d: %zu bytes: first shift %s %.1f ms%s, second %s %.1f ms%s%s\n", r, m,
           rtopo_err_name(st), t1 * 1e3, bad1 >= 0 ? " BAD DATA" : "", rtopo_err_name(st2),
           t2 * 1e3, bad2 >= 0 ? " BAD DATA" : "", r % 2 == 0 ? " (slept in between)" : "");
    if (st || st2 || bad1 >= 0 || bad2 >= 0)
        fail = 1;
    if (r % 2 == 1) {
        printf("rank %d: verdict: %s (first shift %.1f ms, received from rank %d, "
               "which slept after its first shift)\n", r, fail ? "FAIL" : "pass",
               t1 * 1e3, src);
    } else if (late) {
        fail = 1;
        printf("rank %d: verdict: FAIL (rank %d's first shift did not end while this rank "
               "slept after its own: its data had not left)\n", r, (r + 1) % p);
    } else if (fail) {
        printf("rank %d: verdict: FAIL (a shift failed or delivered wrong data)\n", r);
    }
    fflush(stdout);
    rtopo_topo_free(t);
    if ((st = rtopo_finalize(ctx)) != RTOPO_OK) {
        fprintf(stderr, "rank %d: rtopo_finalize: %s: %s\n", r, rtopo_err_name(st),
                rtopo_last_error());
        fail = 1;
    }
    free(sb);
    free(rb);
    return fail;
}
