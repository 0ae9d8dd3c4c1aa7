/*
 * shift_check - runs circular shifts under rtopo-run and verifies every
 * byte that arrives.
 *
 *   shift_check [--topo ring|mesh:RxC|hypercube:D] [--algo A[,B...]]
 *               [--sizes 0,1,4095,...] [--q all|Q1,Q2,...]
 *               [--modes blocking,nonblocking,persistent]
 *               [--mem reg,unreg] [--reps N] [--inplace] [--concurrent K [--lag MS]]
 *               [--then OPTIONS...]
 *   shift_check --error mismatch-q|mismatch-bytes|die|sleep
 *
 * "all" q means every q in -(p+1) .. 2p+1.  One algorithm is set by
 * RTOPO_SHIFT_ALGO; several run one after another in the job, each on a
 * topology of its own set by rtopo_topo_set_shift_algo.  --then starts
 * another group of cases (its options from their defaults) that runs in
 * the same job after the ones before, its algorithms set by
 * rtopo_topo_set_shift_algo (a group after one that set
 * RTOPO_SHIFT_ALGO must name its own); one job instead of several saves
 * their starts (a second or more each over libfabric).  Exit 0 when
 * everything matched; the error modes check that failures surface as the
 * documented status codes within the timeout.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <rtopo.h>

static int rank = -1, size;

/* "rank N"; before rtopo_init has told us the rank (or when it failed),
 * the launcher's RTOPO_RANK, else the process id */
static const char *label(void)
{
    static char buf[64];
    const char *env = getenv("RTOPO_RANK");

    if (rank >= 0)
        snprintf(buf, sizeof(buf), "rank %d", rank);
    else if (env && *env)
        snprintf(buf, sizeof(buf), "rank %s", env);
    else
        snprintf(buf, sizeof(buf), "pid %ld", (long)getpid());
    return buf;
}

static void die(const char *what, int st)
{
    fprintf(stderr, "%s: %s: %s (%s)\n", label(), what, rtopo_strerror(st),
            rtopo_last_error());
    exit(1);
}

static uint8_t pattern(int src, size_t off, unsigned iter)
{
    uint64_t x = ((uint64_t)src << 40) ^ ((uint64_t)iter << 24) ^ off;
    x ^= x >> 17;
    x *= 0x9e3779b97f4a7c15ull;
    return (uint8_t)(x >> 56);
}

static void fill(uint8_t *buf, size_t n, int src, unsigned iter)
{
    size_t i;
    for (i = 0; i < n; i++)
        buf[i] = pattern(src, i, iter);
}

static int check(const uint8_t *buf, size_t n, int src, unsigned iter, const char *ctx)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (buf[i] != pattern(src, i, iter)) {
            fprintf(stderr, "rank %d: %s: byte %zu of %zu from rank %d is 0x%02x, "
                    "expected 0x%02x\n", rank, ctx, i, n, src, buf[i],
                    pattern(src, i, iter));
            return 1;
        }
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
           ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/* is `word` one of the comma-separated words of `list`? */
static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    const char *p = list;

    while ((p = strstr(p, word)) != NULL) {
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
        p += n;
    }
    return 0;
}

static int parse_list(const char *s, long *out, int max)
{
    int n = 0;
    char *end;
    while (*s && n < max) {
        out[n++] = strtol(s, &end, 0);
        if (*end == ',')
            end++;
        else if (*end) {
            fprintf(stderr, "bad list '%s'\n", s);
            exit(2);
        }
        s = end;
    }
    return n;
}

static int make_topo(rtopo_ctx_t *ctx, const char *spec, rtopo_topo_t **t)
{
    int a, b;
    if (!strcmp(spec, "ring"))
        return rtopo_topo_ring(ctx, t);
    if (sscanf(spec, "mesh:%dx%d", &a, &b) == 2)
        return rtopo_topo_mesh(ctx, a, b, t);
    if (sscanf(spec, "hypercube:%d", &a) == 1)
        return rtopo_topo_hypercube(ctx, a, t);
    if (sscanf(spec, "otis-mesh:%d", &a) == 1)
        return rtopo_topo_otis_mesh(ctx, a, t);
    if (sscanf(spec, "otis-hypercube:%d", &a) == 1)
        return rtopo_topo_otis_hypercube(ctx, a, t);
    fprintf(stderr, "unknown topology '%s'\n", spec);
    exit(2);
}

static int error_mode(rtopo_ctx_t *ctx, rtopo_topo_t *t, const char *mode)
{
    size_t bytes = 1 << 20;
    uint8_t *sb = malloc(bytes), *rb = malloc(bytes);
    int st, q = 1;
    double t0, c0;

    fill(sb, bytes, rank, 0);
    if (!strcmp(mode, "mismatch-q") || !strcmp(mode, "mismatch-bytes")) {
        /* rank 0 disagrees; every rank must see MISMATCH or PEER (the
         * latter when it learns of the failure from a neighbour), none may
         * hang or see success with bad data */
        if (rank == 0) {
            if (!strcmp(mode, "mismatch-q"))
                q = 2;
            else
                bytes = 1000;
        }
        st = rtopo_shift(t, sb, rb, bytes, q);
        printf("rank %d: %s -> %s\n", rank, mode, rtopo_err_name(st));
        if (st == RTOPO_ERR_MISMATCH || st == RTOPO_ERR_PEER)
            return 0;
        if (st == RTOPO_OK && size > 2 && rank != 0 && rank != 1 && rank != size - 1)
            return 0;   /* ranks far from rank 0 may legitimately finish */
        return 1;
    }
    if (!strcmp(mode, "die")) {
        /* rank 1 dies before the shift; its neighbours must get PEER, the
         * others PEER or, when their data did not pass rank 1, OK */
        if (rank == 1) {
            fflush(stdout);
            _exit(3);
        }
        t0 = now();
        st = rtopo_shift(t, sb, rb, bytes, 1);
        printf("rank %d: die -> %s after %.2f s\n", rank, rtopo_err_name(st), now() - t0);
        fflush(stdout);
        if (st == RTOPO_OK && rank != 0 && rank != 2) {
            /* done before it heard of rank 1: it leaves only once the job
             * knows (a barrier fails), so that the launcher sees rank 1's
             * exit first and names it */
            if (rtopo_barrier(ctx) != RTOPO_ERR_PEER)
                return 1;
            return 0;
        }
        return st == RTOPO_ERR_PEER ? 0 : 1;
    }
    if (!strcmp(mode, "sleep")) {
        /* one shift first: the connections and the plan are made before
         * the clock starts, so that it counts the wait alone */
        bytes = 65536;
        if ((st = rtopo_shift(t, sb, rb, bytes, 1)))
            die("shift", st);
        /* rank 0 sleeps 2 s before joining; the others wait blocked */
        if (rank == 0)
            sleep(2);
        /* p chained shifts: the k-th shift of rank k depends on rank 0's
         * first, so every rank ends up waiting about 2 s */
        t0 = now();
        c0 = cpu_seconds();
        for (q = 0; q < size; q++) {
            st = rtopo_shift(t, sb, rb, bytes, 1);
            if (st)
                die("shift", st);
            if (check(rb, bytes, (rank + size - 1) % size, 0, "sleep"))
                return 1;
        }
        printf("rank %d: waited %.3f s wall, %.3f s cpu\n", rank, now() - t0,
               cpu_seconds() - c0);
        return 0;
    }
    fprintf(stderr, "unknown error mode %s\n", mode);
    return 2;
}

/* K nonblocking shifts in flight at once, on two topologies, with
 * different q and sizes, some buffers registered (or each in place),
 * waited for in reverse order or taken as they complete, each source
 * overwritten as soon as its shift is done; repeated
 * `rounds` times.  With lag_ms the last rank starts each round that much
 * later, so that what the others send it piles up in their transports
 * while their own receives complete. */
static int concurrent_mode(rtopo_ctx_t *ctx, rtopo_topo_t *t, const char *spec, int k,
                           const long *sizes, int nsizes, int rounds, int lag_ms,
                           int inplace)
{
    rtopo_topo_t *t2;
    rtopo_req_t *req[256];
    rtopo_mem_t *mem[256] = { 0 };
    uint8_t *sb[256], *rb[256];
    size_t len[256];
    int q[256], i, r, st, left, fails = 0;

    if (k > 256)
        k = 256;
    if ((st = make_topo(ctx, spec, &t2)))
        die("second topology", st);
    for (i = 0; i < k; i++) {
        len[i] = (size_t)sizes[i % nsizes];
        sb[i] = malloc(len[i] + 1);
        rb[i] = inplace ? sb[i] : malloc(len[i] + 1);
        if (i % 3 == 0 && len[i] && (st = rtopo_mem_register(ctx, rb[i], len[i], &mem[i])))
            die("register", st);
    }
    for (r = 0; r < rounds; r++) {
        if (lag_ms > 0 && rank == size - 1)
            usleep((useconds_t)lag_ms * 1000);
        for (i = 0; i < k; i++) {
            q[i] = (i * 7 + r) % (2 * size + 1) - size;
            fill(sb[i], len[i], rank, (unsigned)(r * 256 + i));
            if (!inplace)
                memset(rb[i], 0xee, len[i]);
            st = rtopo_ishift(i % 2 ? t2 : t, sb[i], rb[i], len[i], q[i], &req[i]);
            if (st)
                die("rtopo_ishift", st);
        }
        /* even rounds wait in reverse order; odd ones take each shift
         * as rtopo_test reports it done, in whatever order that is */
        for (left = k; left > 0;) {
            int swept = 0;

            for (i = k - 1; i >= 0; i--) {
                char what[96];
                int src = ((rank - q[i]) % size + size) % size, done = 1;

                if (!req[i])
                    continue;
                if (r % 2 && (st = rtopo_test(req[i], &done)))
                    die("rtopo_test", st);
                if (!done)
                    continue;
                if (r % 2 == 0 && (st = rtopo_wait(req[i])))
                    die("rtopo_wait", st);
                rtopo_req_free(req[i]);
                req[i] = NULL;
                left--;
                swept++;
                snprintf(what, sizeof(what), "concurrent%s op %d q=%d bytes=%zu round %d",
                         inplace ? " in-place" : "", i, q[i], len[i], r);
                fails += check(rb[i], len[i], src, (unsigned)(r * 256 + i), what);
                /* the source is the caller's again: bytes a transport
                 * still sent from it would arrive as 0x5a */
                memset(sb[i], 0x5a, len[i]);
            }
            if (!swept && left)
                usleep(1000);   /* nothing done: nap, do not poll hard */
        }
    }
    for (i = 0; i < k; i++) {
        if (mem[i])
            rtopo_mem_deregister(mem[i]);
        if (rb[i] != sb[i])
            free(rb[i]);
        free(sb[i]);
    }
    rtopo_topo_free(t2);
    if (rank == 0)
        printf("%d rounds of %d concurrent%s shifts on %d ranks: %s\n", rounds, k,
               inplace ? " in-place" : "", size,
               fails ? "MISMATCHED DATA" : "all data correct");
    return fails ? 1 : 0;
}

/* The shifts of every size, q, mode and kind of memory on t; returns the
 * number of mismatched buffers (0: all correct).  Errors of a call end
 * the program. */
static int run_shifts(rtopo_ctx_t *ctx, rtopo_topo_t *t, const char *topo, const char *algo,
                      const long *sizes, int nsizes, const long *qs, int nq,
                      const char *modes, const char *mems, int reps, int inplace,
                      uint8_t *sb, uint8_t *rb, size_t maxb, int *nopsp)
{
    rtopo_mem_t *smem = NULL, *rmem = NULL;
    int i, j, m, st, fails = 0, nops = *nopsp;
    double t0;

    t0 = now();
    for (m = 0; m < 2; m++) {
        const char *mem = m ? "unreg" : "reg";
        if (!has_word(mems, mem))
            continue;
        if (m == 0) {
            if ((st = rtopo_mem_register(ctx, sb, maxb + 64, &smem)))
                die("register", st);
            if (!inplace && (st = rtopo_mem_register(ctx, rb, maxb + 64, &rmem)))
                die("register", st);
        }
        for (i = 0; i < nsizes; i++) {
            size_t n = (size_t)sizes[i];
            for (j = 0; j < nq; j++) {
                int q = (int)qs[j];
                int src = (int)(((rank - (long)q) % size + size) % size);
                const char *names[3] = { "blocking", "nonblocking", "persistent" };
                int k, r;
                for (k = 0; k < 3; k++) {
                    rtopo_req_t *req = NULL;
                    char what[160];
                    if (!has_word(modes, names[k]))
                        continue;
                    if (k == 2 && (st = rtopo_shift_init(t, sb, rb, n, q, &req)))
                        die("rtopo_shift_init", st);
                    for (r = 0; r < (k == 2 ? reps : 1); r++) {
                        unsigned iter = (unsigned)(nops + r);
                        snprintf(what, sizeof(what), "%s%s%s %s %s q=%d bytes=%zu rep %d",
                                 topo, algo ? " " : "", algo ? algo : "", names[k], mem,
                                 q, n, r);
                        fill(sb, n, rank, iter);
                        if (!inplace)
                            memset(rb, 0xee, n);
                        if (k == 0)
                            st = rtopo_shift(t, sb, rb, n, q);
                        else if (k == 1) {
                            st = rtopo_ishift(t, sb, rb, n, q, &req);
                            if (!st) {
                                int done = 0;
                                st = rtopo_test(req, &done);
                                if (!st && !done)
                                    st = rtopo_wait(req);
                                rtopo_req_free(req);
                                req = NULL;
                            }
                        } else {
                            st = rtopo_start(req);
                            if (!st)
                                st = rtopo_wait(req);
                        }
                        if (st) {
                            fprintf(stderr, "rank %d: %s: %s (%s)\n", rank, what,
                                    rtopo_err_name(st), rtopo_last_error());
                            exit(1);
                        }
                        fails += check(rb, n, src, iter, what);
                        nops++;
                    }
                    if (req)
                        rtopo_req_free(req);
                    if (fails)
                        goto out;
                }
            }
        }
        if (m == 0) {
            if ((st = rtopo_mem_deregister(smem)) || (rmem && (st = rtopo_mem_deregister(rmem))))
                die("deregister", st);
        }
    }
out:
    if (rank == 0)
        printf("%s%s%s on %d ranks: %d shifts checked in %.2f s, %s\n", topo,
               algo ? ", " : "", algo ? algo : "", size, nops - *nopsp, now() - t0,
               fails ? "MISMATCHED DATA" : "all data correct");
    *nopsp = nops;
    return fails;
}

static rtopo_shift_algo_t algo_of(const char *name)
{
    static const char *const names[] = { "auto", "ring", "mesh", "hypercube", "ecube",
                                         "direct" };
    int i;

    for (i = 0; i < 6; i++)
        if (!strcmp(name, names[i]))
            return (rtopo_shift_algo_t)i;
    fprintf(stderr, "unknown shift algorithm '%s'\n", name);
    exit(2);
}

/* one set of cases: the options between two --then */
typedef struct {
    const char *topo, *algo, *modes, *mems, *qspec;
    long sizes[32];
    int nsizes, reps, inplace;
} group_t;

/* parses argv[*i..] into g up to the next --then (or the end), which it
 * passes over; *err, *conc and *lag get --error, --concurrent and --lag */
static void parse_group(int argc, char **argv, int *i, group_t *g, const char **err,
                        int *conc, int *lag)
{
    g->topo = "ring";
    g->algo = NULL;
    g->modes = "blocking,nonblocking,persistent";
    g->mems = "reg,unreg";
    g->qspec = "all";
    g->reps = 2;
    g->inplace = 0;
    g->nsizes = parse_list("0,1,4095,4096,1048579", g->sizes, 32);
    for (; *i < argc && strcmp(argv[*i], "--then"); (*i)++) {
        int j = *i;

        if (!strcmp(argv[j], "--topo") && j + 1 < argc) g->topo = argv[++*i];
        else if (!strcmp(argv[j], "--algo") && j + 1 < argc) g->algo = argv[++*i];
        else if (!strcmp(argv[j], "--sizes") && j + 1 < argc)
            g->nsizes = parse_list(argv[++*i], g->sizes, 32);
        else if (!strcmp(argv[j], "--q") && j + 1 < argc) g->qspec = argv[++*i];
        else if (!strcmp(argv[j], "--modes") && j + 1 < argc) g->modes = argv[++*i];
        else if (!strcmp(argv[j], "--mem") && j + 1 < argc) g->mems = argv[++*i];
        else if (!strcmp(argv[j], "--reps") && j + 1 < argc) g->reps = atoi(argv[++*i]);
        else if (!strcmp(argv[j], "--inplace")) g->inplace = 1;
        else if (!strcmp(argv[j], "--concurrent") && j + 1 < argc) *conc = atoi(argv[++*i]);
        else if (!strcmp(argv[j], "--lag") && j + 1 < argc) *lag = atoi(argv[++*i]);
        else if (!strcmp(argv[j], "--error") && j + 1 < argc) *err = argv[++*i];
        else {
            fprintf(stderr, "usage: see the comment at the top of shift_check.c\n");
            exit(2);
        }
    }
    if (*i < argc)
        (*i)++;   /* --then */
}

/* runs the cases of g, each of its algorithms on a topology of its own
 * (set by rtopo_topo_set_shift_algo, unless by_env: the one algorithm
 * came through RTOPO_SHIFT_ALGO); 77 when the topology does not fit the
 * job, else the number of failures */
static int run_group(rtopo_ctx_t *ctx, const group_t *g, int by_env, int *nops)
{
    const char *algo = by_env ? NULL : g->algo;
    long qs[512];
    int nq = 0, i, st, fails = 0;
    rtopo_topo_t *t;
    uint8_t *sb, *rb;
    size_t maxb = 0;

    st = make_topo(ctx, g->topo, &t);
    if (st == RTOPO_ERR_TOPO) {
        if (rank == 0)
            printf("topology %s does not fit %d ranks: %s (skipped)\n", g->topo, size,
                   rtopo_last_error());
        return 77;
    }
    if (st)
        die("topology", st);
    if (!strcmp(g->qspec, "all"))
        for (i = -(size + 1); i <= 2 * size + 1; i++)
            qs[nq++] = i;
    else
        nq = parse_list(g->qspec, qs, 512);
    for (i = 0; i < g->nsizes; i++)
        if ((size_t)g->sizes[i] > maxb)
            maxb = (size_t)g->sizes[i];
    sb = malloc(maxb + 64);
    rb = g->inplace ? sb : malloc(maxb + 64);
    if (!sb || !rb)
        die("malloc", RTOPO_ERR_NOMEM);

    for (i = 0; !fails; i++) {
        char name[32];
        size_t k = algo ? strcspn(algo, ",") : 0;

        /* an algorithm named here: one topology each, chosen by
         * rtopo_topo_set_shift_algo */
        if (algo) {
            if (k >= sizeof(name))
                k = sizeof(name) - 1;
            memcpy(name, algo, k);
            name[k] = '\0';
            if (i && (st = make_topo(ctx, g->topo, &t)))
                die("topology", st);
            if ((st = rtopo_topo_set_shift_algo(t, algo_of(name))))
                die(name, st);
        }
        fails = run_shifts(ctx, t, g->topo, algo ? name : g->algo, g->sizes, g->nsizes, qs,
                           nq, g->modes, g->mems, g->reps, g->inplace, sb, rb, maxb, nops);
        rtopo_topo_free(t);
        if (!algo || !algo[k])
            break;
        algo += k + 1;
    }
    if (rb != sb)
        free(rb);
    free(sb);
    return fails;
}

int main(int argc, char **argv)
{
    const char *err = NULL;
    group_t groups[16];
    int ngroups = 0, i = 1, st, fails = 0, nops = 0, conc = 0, lag = 0, by_env;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;

    do {
        if (ngroups == 16) {
            fprintf(stderr, "more than 16 groups of cases\n");
            return 2;
        }
        parse_group(argc, argv, &i, &groups[ngroups++], &err, &conc, &lag);
    } while (i < argc);
    if ((err || conc > 0) && ngroups > 1) {
        fprintf(stderr, "--error and --concurrent take one group of options, no --then\n");
        return 2;
    }
    /* the first group's one algorithm goes through RTOPO_SHIFT_ALGO; it
     * would be every later group's default, so those name theirs */
    by_env = groups[0].algo && !strchr(groups[0].algo, ',');
    for (i = 1; by_env && i < ngroups; i++)
        if (!groups[i].algo) {
            fprintf(stderr, "a group after one that sets RTOPO_SHIFT_ALGO needs --algo\n");
            return 2;
        }
    if (by_env)
        setenv("RTOPO_SHIFT_ALGO", groups[0].algo, 1);
    st = rtopo_init(NULL, &ctx);
    if (st)
        die("rtopo_init", st);
    rank = rtopo_rank(ctx);
    size = rtopo_size(ctx);
    if (err || conc > 0) {
        const group_t *g = &groups[0];

        st = make_topo(ctx, g->topo, &t);
        if (st == RTOPO_ERR_TOPO) {
            if (rank == 0)
                printf("topology %s does not fit %d ranks: %s (skipped)\n", g->topo, size,
                       rtopo_last_error());
            rtopo_finalize(ctx);
            return 77;
        }
        if (st)
            die("topology", st);
        if (err) {
            st = error_mode(ctx, t, err);
            if (!strcmp(err, "die")) {
                fflush(stdout);
                _exit(st);   /* the job is broken: no collective finalize */
            }
        } else {
            st = concurrent_mode(ctx, t, g->topo, conc, g->sizes, g->nsizes, g->reps, lag,
                                 g->inplace);
        }
        rtopo_topo_free(t);
        rtopo_finalize(ctx);
        return st;
    }
    for (i = 0; i < ngroups && !fails; i++) {
        st = run_group(ctx, &groups[i], i == 0 && by_env, &nops);
        if (st == 77) {
            rtopo_finalize(ctx);
            return 77;
        }
        fails = st;
    }
    st = rtopo_finalize(ctx);
    if (st)
        die("rtopo_finalize", st);
    return fails ? 1 : 0;
}
