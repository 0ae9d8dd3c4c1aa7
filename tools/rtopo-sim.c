/*
 * rtopo-sim - run a collective's schedule under the cost model, without a
 * network, for any number of virtual ranks; optionally execute its data
 * movement in memory and verify it.
 *
 *   rtopo-sim shift --topo T (--q Q | --all-q) [--algo A] [--bytes M]
 *             [--model K=V,...] [--check] [--json] [--rounds]
 *   rtopo-sim shift-dim --topo T --dim K (--disp D | --rule A,B | --all-disp)
 *             [--bytes M] [--inplace] [--piece B] [--slots S]
 *             [--model K=V,...] [--check] [--json] [--rounds]
 *   rtopo-sim scatter --d D [--M M] [--overlap K] [--strategy S] [--x X]
 *             [--esize B] [--host-node H] [--model K=V,...] [--check] [--json]
 *   rtopo-sim scatter --figure 1|2 [--out FILE.png] [--csv FILE.csv]
 *             [--versus overlap|d] [--d D] [--M M] [--model K=V,...]
 *   rtopo-sim otis OP --topo otis-mesh:N|otis-hypercube:N [--model simd|mimd]
 *             [--count K] [--dtype T] [--op O] [--algo A] [--chunks C]
 *             [--root R] [--window W] [--kind a..h --s S] [--dim D --m M]
 *             [--block M --along X] [--record B] [--cost K=V,...] [--check]
 *             [--json] [--rounds] [--seed S]
 *
 * Exit status: 0 success, 1 a check failed, the simulation could not run
 * (out of memory) or a figure could not be drawn, 2 bad arguments.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"
#include "sim_draw.h"
#include "sim_opts.h"
#include "sim_hosts.h"

#define SIM_ROUNDS_CAP   4096u                 /* hops printed in JSON by default */
#define SIM_CHECK_CAP    (64ull << 20)          /* bytes over all ranks for --check */

typedef struct sim_opts {
    const char *topo_str;
    rtopo__tdesc_t topo;
    long q;
    int have_q;
    int all_q;
    int algo;
    uint64_t bytes;
    rtopo__model_t model;
    int check;
    int json;
    int rounds;
    sim_hosts_t hosts;   /* --hosts, --host-map, --map-by, --place */
} sim_opts_t;

/* ---- progress: a run longer than a few seconds says on stderr (a
 * terminal, or anywhere with --progress) what it is doing, every few
 * seconds ---- */
#define SIM_PROGRESS_S 5
static const char *volatile sim_stage = "starting";
static volatile unsigned sim_elapsed;
static unsigned sim_progress_s = SIM_PROGRESS_S;
static int sim_progress_forced;

static void sim_progress_tick(int sig)
{
    char line[160];
    const char *st = sim_stage;
    int n;

    (void)sig;
    sim_elapsed += sim_progress_s;
    n = snprintf(line, sizeof line, "rtopo-sim: %s (%u s)\n", st, sim_elapsed);
    if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0)
        return;
    alarm(sim_progress_s);
}

/* --progress[=S] anywhere on the command line (taken out of argv): the
 * progress line even when stderr is no terminal, every S seconds
 * (1..3600, default 5); 2 with a message for a bad S */
static int sim_progress_option(int *argc, char **argv)
{
    int i, j = 1, n = *argc;

    for (i = 1; i < n; i++) {
        const char *v;
        char *end;
        long sec;

        if (!strcmp(argv[i], "--")) {
            while (i < n)
                argv[j++] = argv[i++];
            break;
        }
        if (strcmp(argv[i], "--progress") && strncmp(argv[i], "--progress=", 11)) {
            argv[j++] = argv[i];
            continue;
        }
        sim_progress_forced = 1;
        if (!argv[i][10])
            continue;
        v = argv[i] + 11;
        errno = 0;
        sec = strtol(v, &end, 10);
        if (errno || end == v || *end || sec < 1 || sec > 3600) {
            fprintf(stderr, "rtopo-sim: --progress=%s: expected seconds, 1 to 3600\n", v);
            return 2;
        }
        sim_progress_s = (unsigned)sec;
    }
    *argc = j;
    argv[j] = NULL;
    return 0;
}

static void sim_progress_start(void)
{
    struct sigaction sa;

    if (!sim_progress_forced && !isatty(STDERR_FILENO))
        return;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = sim_progress_tick;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGALRM, &sa, NULL) == 0)
        alarm(sim_progress_s);
}

static void usage(FILE *f)
{
    fprintf(f,
"usage: rtopo-sim shift --topo T (--q Q | --all-q) [options]\n"
"       rtopo-sim shift-dim --topo T --dim K (--disp D | --rule A,B | --all-disp)\n"
"                 [options]                (rtopo-sim shift-dim --help)\n"
"       rtopo-sim scatter --d D [options]    (rtopo-sim scatter --help)\n"
"       rtopo-sim otis OP --topo T [options] (rtopo-sim otis --help)\n"
"\n"
"Build the schedule of a circular q-shift (rank i's data reaches rank\n"
"(i+q) mod p) and evaluate it under the cost model.\n"
"\n"
"  --topo T        ring:P | mesh:RxC | hypercube:D | otis-mesh:N |\n"
"                  otis-hypercube:N (N groups of N ranks)\n"
"  --q Q           shift distance, any integer (negative: backward)\n"
"  --all-q         evaluate every q from 0 to p-1, one line (object) each\n"
"  --algo A        auto (default), ring, mesh, hypercube, ecube, direct;\n"
"                  auto prints every candidate's model time and the reason\n"
"  --bytes M       bytes per rank (default 1M); suffixes K, M, G (x1024)\n"
"  --model LIST    comma-separated cost parameters: ts=, tw=, th= (times in\n"
"                  s, or with a unit: 5us, 1ns), bw= (bytes/s, e.g. 1G),\n"
"                  chunk= (bytes), ports= (transfers a rank injects, and\n"
"                  absorbs, at once; default 1, 0 = no limit), tk= (kernel\n"
"                  time per byte); prefix a link class to set only that\n"
"                  class, e.g. direct.ts=20us (classes: ring row col cube\n"
"                  otis direct host cube-id local; cube-id is the\n"
"                  identity-embedded cube E-cube routes over)\n"
"  --check         execute the data movement in memory and verify it\n"
"  --json          one JSON object (an array with --all-q)\n"
"  --rounds        list every transfer of every round\n"
"  --draw FILE     draw the schedule into FILE.png or FILE.svg with gnuplot\n"
"                  (every operation takes it; rtopo-sim(1), PICTURES)\n"
"  --progress[=S]  the progress line on stderr even when it is no terminal,\n"
"                  every S seconds (default 5; every operation takes it)\n"
"%s"
"  -h, --help      this text\n"
"\n"
"Exit status: 0 ok, 1 check failed or simulation error, 2 bad arguments.\n",
            sim_hosts_usage);
}

static int bad(const char *fmt, const char *arg)
{
    return sim_bad(fmt, arg);
}

static int parse_int(const char *s, long *v)
{
    return sim_parse_int(s, v);
}

/* seconds, with an optional unit s, ms, us, ns */
static int parse_time(const char *s, double *v)
{
    char *end;
    double x;

    errno = 0;
    x = strtod(s, &end);
    if (errno || end == s)
        return -1;
    if (!strcmp(end, "ns"))
        x *= 1e-9;
    else if (!strcmp(end, "us"))
        x *= 1e-6;
    else if (!strcmp(end, "ms"))
        x *= 1e-3;
    else if (*end && strcmp(end, "s"))
        return -1;
    *v = x;
    return 0;
}

static int parse_model(const char *list, rtopo__model_t *m)
{
    return sim_parse_model(list, m);
}

static int parse_topo(const char *s, int p_max_log, rtopo__tdesc_t *t)
{
    const char *colon = strchr(s, ':');
    char kind[32];
    long a = 0, b = 0, p;
    size_t n;
    int k, status;

    if (!colon || (n = (size_t)(colon - s)) >= sizeof(kind))
        return bad("--topo '%s': expected KIND:SIZE (ring:P, mesh:RxC, "
                   "hypercube:D, otis-mesh:N, otis-hypercube:N)", s);
    memcpy(kind, s, n);
    kind[n] = '\0';
    if (!strcmp(kind, "ring"))
        k = RTOPO__TOPO_RING;
    else if (!strcmp(kind, "mesh"))
        k = RTOPO__TOPO_MESH;
    else if (!strcmp(kind, "hypercube"))
        k = RTOPO__TOPO_HYPERCUBE;
    else if (!strcmp(kind, "otis-mesh"))
        k = RTOPO__TOPO_OTIS_MESH;
    else if (!strcmp(kind, "otis-hypercube"))
        k = RTOPO__TOPO_OTIS_HYPERCUBE;
    else
        return bad("--topo: unknown topology '%s' (ring, mesh, hypercube, "
                   "otis-mesh, otis-hypercube)", kind);
    if (k == RTOPO__TOPO_MESH) {
        char buf[64], *x;

        snprintf(buf, sizeof(buf), "%s", colon + 1);
        x = strchr(buf, 'x');
        if (!x)
            return bad("--topo '%s': a mesh is mesh:ROWSxCOLS", s);
        *x = '\0';
        if (parse_int(buf, &a) || parse_int(x + 1, &b) || a <= 0 || b <= 0 ||
            a > (1L << p_max_log) || b > (1L << p_max_log) ||
            a * b > (1L << p_max_log))
            return bad("--topo '%s': a mesh needs ROWS and COLS of at least "
                       "1 (at most 2^24 ranks)", s);
        p = a * b;
    } else {
        if (parse_int(colon + 1, &a) || a < 0)
            return bad("--topo '%s': bad size", s);
        if (k == RTOPO__TOPO_RING) {
            if (a < 1 || a > (1L << p_max_log))
                return bad("--topo '%s': ring size out of range", s);
            p = a;
        } else if (k == RTOPO__TOPO_HYPERCUBE) {
            if (a > p_max_log)
                return bad("--topo '%s': dimension too large", s);
            p = 1L << a;
        } else {
            if (a < 1 || a > (1L << (p_max_log / 2)))
                return bad("--topo '%s': n out of range", s);
            p = a * a;
        }
    }
    status = rtopo__tdesc_init(t, k, (int)p, (int)a, (int)b);
    if (status) {
        fprintf(stderr, "rtopo-sim: --topo %s: %s: %s\n", s,
                rtopo_strerror(status), rtopo_last_error());
        return 2;
    }
    return 0;
}

static void topo_label(const rtopo__tdesc_t *t, char *buf, size_t len)
{
    switch (t->kind) {
    case RTOPO__TOPO_MESH:
        snprintf(buf, len, "mesh:%dx%d", t->rows, t->cols);
        break;
    case RTOPO__TOPO_HYPERCUBE:
        snprintf(buf, len, "hypercube:%d", t->dim);
        break;
    case RTOPO__TOPO_OTIS_MESH:
    case RTOPO__TOPO_OTIS_HYPERCUBE:
        snprintf(buf, len, "%s:%d", rtopo__topo_name(t->kind), t->n);
        break;
    default:
        snprintf(buf, len, "ring:%d", t->p);
        break;
    }
}

/* word w of rank i's SEND: distinct across ranks for every w */
static inline uint8_t pattern(uint32_t rank, uint64_t k)
{
    uint32_t v = (rank + 1) * 0x9E3779B1u ^ (uint32_t)(k / 4) * 0x85EBCA6Bu;

    return (uint8_t)(v >> ((k % 4) * 8));
}

/* build the same algorithm's schedule for a check-sized payload when the
 * requested one would need too much memory, run it, verify RECV */
static int run_check(const sim_opts_t *o, const rtopo__sched_t *s, long q,
                     uint64_t *cbytes_p, int *ok_p)
{
    const rtopo__tdesc_t *t = &o->topo;
    uint64_t cb = o->bytes, size[RTOPO__BUF_COUNT], k;
    rtopo__sched_t *cs = NULL;
    uint8_t *mem = NULL, **ptr = NULL, ***bufs = NULL;
    int status, i, ok = 1;

    if (cb < 8)
        cb = 8;
    if (cb * (uint64_t)t->p > SIM_CHECK_CAP)
        cb = SIM_CHECK_CAP / (uint64_t)t->p;
    if (cb < 8)
        cb = 8;
    if (cb != o->bytes) {
        status = rtopo__sched_shift(t, s->algo, q, cb, &o->model, &cs);
        if (status)
            return status;
        s = cs;
    }
    size[RTOPO__BUF_SEND] = size[RTOPO__BUF_RECV] = cb;
    size[RTOPO__BUF_TMP] = s->tmp_bytes;
    mem = malloc((size_t)t->p * (2 * cb + s->tmp_bytes) + 1);
    ptr = malloc((size_t)t->p * RTOPO__BUF_COUNT * sizeof(*ptr));
    bufs = malloc((size_t)t->p * sizeof(*bufs));
    if (!mem || !ptr || !bufs) {
        status = rtopo__error(RTOPO_ERR_NOMEM, "check buffers for %d rank%s", t->p,
                              t->p == 1 ? "" : "s");
        goto out;
    }
    for (i = 0; i < t->p; i++) {
        uint8_t *base = mem + (size_t)i * (2 * cb + s->tmp_bytes);

        bufs[i] = ptr + (size_t)i * RTOPO__BUF_COUNT;
        bufs[i][RTOPO__BUF_SEND] = base;
        bufs[i][RTOPO__BUF_RECV] = base + cb;
        bufs[i][RTOPO__BUF_TMP] = base + 2 * cb;
        for (k = 0; k < cb; k++)
            base[k] = pattern((uint32_t)i, k);
        memset(base + cb, 0xEE, cb + s->tmp_bytes);
    }
    status = rtopo__sim_exec_sized(s, (uint8_t *const *const *)bufs, size);
    if (status)
        goto out;
    for (i = 0; i < t->p && ok; i++) {
        long d = ((long)i + q % t->p + t->p) % t->p;

        for (k = 0; k < cb; k++)
            if (bufs[d][RTOPO__BUF_RECV][k] != pattern((uint32_t)i, k)) {
                ok = 0;
                break;
            }
    }
    *cbytes_p = cb;
    *ok_p = ok;
out:
    free(bufs);
    free(ptr);
    free(mem);
    rtopo__sched_free(cs);
    return status;
}

/* hop indices of step t, in transfer order, in idx[first[t]..first[t+1]),
 * with the rank each hop leaves in from[] */
static int hops_by_step(const rtopo__sched_t *s, uint32_t **idx_p,
                        uint32_t **from_p, uint32_t **first_p)
{
    uint32_t *idx, *from, *first, i, j;

    idx = malloc((s->nhops + 1) * sizeof(*idx));
    from = malloc((s->nhops + 1) * sizeof(*from));
    first = calloc(s->nsteps + 2, sizeof(*first));
    if (!idx || !from || !first) {
        free(idx);
        free(from);
        free(first);
        return RTOPO_ERR_NOMEM;
    }
    for (i = 0; i < s->nhops; i++)
        first[s->hops[i].step + 2]++;
    for (i = 0; i <= s->nsteps; i++)
        first[i + 1] += first[i];
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
        uint32_t f = (uint32_t)x->src;

        for (j = 0; j < x->nhops; j++) {
            uint32_t h = x->hop0 + j, slot = first[s->hops[h].step + 1]++;

            idx[slot] = h;
            from[slot] = f;
            f = (uint32_t)s->hops[h].to;
        }
    }
    *idx_p = idx;
    *from_p = from;
    *first_p = first;
    return RTOPO_OK;
}

static int print_rounds(FILE *f, const rtopo__sched_t *s, int json)
{
    uint32_t *idx, *from, *first, *owner, t, i, j;

    owner = malloc((s->nhops + 1) * sizeof(*owner));
    if (!owner || hops_by_step(s, &idx, &from, &first)) {
        free(owner);
        return RTOPO_ERR_NOMEM;
    }
    for (i = 0; i < s->nxfers; i++)
        for (j = 0; j < rtopo__sched_xnhops(s, i); j++)
            owner[s->xfers[i].hop0 + j] = i;
    if (json)
        fprintf(f, ",\"rounds\":[");
    for (t = 0; t < s->nsteps; t++) {
        if (json)
            fprintf(f, "%s[", t ? "," : "");
        else
            fprintf(f, "round %u:\n", t);
        for (i = first[t]; i < first[t + 1]; i++) {
            const rtopo__hop_t *h = &s->hops[idx[i]];
            const rtopo__xfer_t xv = rtopo__sched_xfer(s, owner[idx[i]]), *x = &xv;

            if (json)
                fprintf(f, "%s{\"src\":%d,\"dst\":%d,\"from\":%u,\"to\":%d,"
                        "\"link\":\"%s\",\"bytes\":%llu}", i > first[t] ? "," : "",
                        x->src, x->dst, from[i], h->to, rtopo__link_name(h->link),
                        (unsigned long long)x->len);
            else
                fprintf(f, "  %u -> %d  %-6s  (%d -> %d, %llu bytes)\n", from[i],
                        h->to, rtopo__link_name(h->link), x->src, x->dst,
                        (unsigned long long)x->len);
        }
        if (json)
            fprintf(f, "]");
    }
    if (json)
        fprintf(f, "]");
    free(owner);
    free(idx);
    free(from);
    free(first);
    return RTOPO_OK;
}

static void print_moves(FILE *f, const rtopo__sim_result_t *r, int json)
{
    int c, n = 0;

    for (c = 0; c < RTOPO__LINK_COUNT; c++) {
        if (json)
            fprintf(f, "%s\"%s\":%llu", c ? "," : "", rtopo__link_name(c),
                    (unsigned long long)r->moves[c]);
        else if (r->moves[c])
            fprintf(f, "%s%s %llu", n++ ? ", " : "", rtopo__link_name(c),
                    (unsigned long long)r->moves[c]);
    }
    if (!json && !n)
        fprintf(f, "none");
}

/* why AUTO chose s->algo: a short reason; cand[0..nc) from
 * rtopo__sched_shift_auto */
static const char *auto_reason(const rtopo__shift_cand_t *cand, int nc,
                               int chosen, long qn)
{
    const rtopo__shift_cand_t *w = NULL;
    int i, tie = 0;

    if (!qn)
        return "q mod p == 0: local copies, the same under every algorithm";
    for (i = 0; i < nc; i++)
        if (cand[i].algo == chosen)
            w = &cand[i];
    /* an evaluated candidate with the same time, or one not built whose
     * lower bound reaches the winner's time, could at best tie */
    for (i = 0; w && i < nc; i++)
        if (&cand[i] != w && cand[i].model_time <= w->model_time)
            tie = 1;
    if (nc == 1)
        return "the only applicable algorithm";
    return tie ? "smallest model time, at best equalled by "
                 "another candidate: ties go to the earlier in the preference "
                 "order (the topology's own algorithm first, direct last)"
               : "smallest model time";
}

static void print_candidates(FILE *f, const rtopo__shift_cand_t *cand, int nc,
                             int json)
{
    int i;

    for (i = 0; i < nc; i++) {
        const rtopo__shift_cand_t *c = &cand[i];
        const char *name = rtopo__shift_algo_name(c->algo);

        if (json && c->evaluated)
            fprintf(f, "%s\"%s\":{\"evaluated\":true,\"model_time\":%.9g,"
                    "\"model_time_sf\":%.9g,\"steps\":%u,\"max_link_load\":%u,"
                    "\"longest_path\":%u}", i ? "," : "", name, c->model_time,
                    c->model_time_sf, c->steps, c->max_link_load,
                    c->longest_path);
        else if (json)
            fprintf(f, "%s\"%s\":{\"evaluated\":false,\"lower_bound\":%.9g,"
                    "\"longest_path\":%u}", i ? "," : "", name, c->model_time,
                    c->longest_path);
        else if (c->evaluated)
            fprintf(f, "%s%s %.3f", i ? ", " : "", name, c->model_time * 1e6);
        else
            fprintf(f, "%s%s >= %.3f (bound, not built)", i ? ", " : "", name,
                    c->model_time * 1e6);
    }
}

/* one q: build, simulate, check, print.  *failed set when the check fails */
static int run_one(const sim_opts_t *o, long q, int first, int *failed)
{
    rtopo__sched_t *s = NULL;
    rtopo__sim_result_t r;
    rtopo__shift_cand_t cand[RTOPO__SHIFT_NCAND];
    uint64_t cbytes = 0;
    char label[64];
    int status, ok = -1, nc = 0;
    long qn = ((q % o->topo.p) + o->topo.p) % o->topo.p;

    sim_stage = "building the schedule";
    if (o->algo == RTOPO_SHIFT_AUTO)
        status = rtopo__sched_shift_auto(&o->topo, q, o->bytes, &o->model, cand,
                                         &nc, &s);
    else
        status = rtopo__sched_shift(&o->topo, o->algo, q, o->bytes, &o->model,
                                    &s);
    if (status == RTOPO_ERR_UNSUPPORTED || status == RTOPO_ERR_INVAL) {
        fprintf(stderr, "rtopo-sim: %s\n", rtopo_last_error());
        return 2;
    }
    sim_stage = "simulating the schedule";
    if (!status)
        status = rtopo__sim_run(s, &o->model, &r);
    sim_stage = "checking the data";
    if (!status && o->check)
        status = run_check(o, s, q, &cbytes, &ok);
    sim_stage = "finishing";
    if (!status && sim_draw_path)
        status = sim_draw(s, "%ld-shift, %s algorithm", q, rtopo__shift_algo_name(s->algo));
    if (status) {
        fprintf(stderr, "rtopo-sim: shift q %ld: %s: %s\n", q,
                rtopo_strerror(status), rtopo_last_error());
        rtopo__sched_free(s);
        return 1;
    }
    if (ok == 0)
        *failed = 1;
    topo_label(&o->topo, label, sizeof(label));
    if (o->json) {
        if (o->all_q && !first)
            printf(",\n");
        printf("{\"op\":\"shift\",\"topo\":\"%s\",\"p\":%d,\"q\":%ld,"
               "\"q_mod_p\":%ld,\"algo\":\"%s\",\"bytes\":%llu,\"steps\":%u,"
               "\"max_link_load\":%u,\"longest_path\":%u,\"model_time\":%.9g,"
               "\"model_time_sf\":%.9g,\"moves\":{", label, o->topo.p, q, qn,
               rtopo__shift_algo_name(s->algo), (unsigned long long)o->bytes,
               r.steps, r.max_link_load, r.longest_path, r.model_time,
               r.model_time_sf);
        print_moves(stdout, &r, 1);
        printf("}");
        if (sim_hosts_print(stdout, &o->hosts, s, &r, 1))
            *failed = 1;
        if (nc) {
            printf(",\"reason\":\"%s\",\"candidates\":{",
                   auto_reason(cand, nc, s->algo, qn));
            print_candidates(stdout, cand, nc, 1);
            printf("}");
        }
        if (o->check)
            printf(",\"correct\":%s,\"check_bytes\":%llu", ok ? "true" : "false",
                   (unsigned long long)cbytes);
        if (o->rounds || (!o->all_q && s->nhops <= SIM_ROUNDS_CAP))
            print_rounds(stdout, s, 1);
        printf("}");
        if (!o->all_q)
            printf("\n");
    } else if (o->all_q) {
        printf("%6ld  %-9s  %5u  %4u  %7u  %14.3f  %14.3f", q,
               rtopo__shift_algo_name(s->algo), r.steps, r.max_link_load,
               r.longest_path, r.model_time * 1e6, r.model_time_sf * 1e6);
        if (o->check)
            printf("  %s", ok ? "yes" : "NO");
        if (nc) {
            printf("  ");
            print_candidates(stdout, cand, nc, 0);
        }
        printf("\n");
        if (o->rounds)
            print_rounds(stdout, s, 0);
    } else {
        printf("shift q %ld (%ld mod %d) on %s, %llu bytes per rank\n", q, qn,
               o->topo.p, label, (unsigned long long)o->bytes);
        printf("algorithm       %s\n", rtopo__shift_algo_name(s->algo));
        if (nc) {
            printf("auto chose      %s: %s\n", rtopo__shift_algo_name(s->algo),
                   auto_reason(cand, nc, s->algo, qn));
            printf("candidates      ");
            print_candidates(stdout, cand, nc, 0);
            printf(" (model us)\n");
        }
        printf("steps           %u\n", r.steps);
        printf("max link load   %u\n", r.max_link_load);
        printf("longest path    %u link%s\n", r.longest_path,
               r.longest_path == 1 ? "" : "s");
        printf("moves           ");
        print_moves(stdout, &r, 0);
        printf("\n");
        printf("model time      %.3f us event by event (cut-through, %d port%s), "
               "%.3f us lock-step store-and-forward\n", r.model_time * 1e6,
               o->model.ports, o->model.ports == 1 ? "" : "s", r.model_time_sf * 1e6);
        if (sim_hosts_print(stdout, &o->hosts, s, &r, 0))
            *failed = 1;
        if (o->check)
            printf("correct         %s (%llu bytes per rank moved)\n",
                   ok ? "yes" : "no", (unsigned long long)cbytes);
        if (o->rounds)
            print_rounds(stdout, s, 0);
    }
    rtopo__sched_free(s);
    return 0;
}

/* ---- scatter: host-to-hypercube distribution of overlapping windows ---- */

#define SCAT_D_MAX       16
#define SCAT_CHECK_CAP   (1ull << 30)          /* bytes of buffers for --check */
#define SCAT_FIG_SIGMA   1.5
#define SCAT_FIG_TAU     8e-6

/* the seed's two parameter sets: Figure 1 and Figure 2 */
static const struct {
    uint64_t M;
    double beta;
    int versus_d;          /* default x axis: 0 overlap, 1 dimension */
} scat_fig[2] = { { 100, 800e-6, 0 }, { 500, 6500e-6, 1 } };

typedef struct scat_opts {
    int d, have_d;
    uint64_t M, overlap;
    int have_M, have_overlap;
    size_t esize;
    int strategy, x, host_node;
    int sx, have_x;        /* --strategy's X (-1: none), --x given */
    char *model_str;
    rtopo__model_t model;
    int check, json;
    int figure, versus;    /* versus: -1 the figure's own, 0 overlap, 1 d */
    const char *out, *csv;
} scat_opts_t;

static void scatter_usage(FILE *f)
{
    fprintf(f,
"usage: rtopo-sim scatter --d D [--M M] [--overlap K] [--strategy S] [--x X]\n"
"                 [--esize B] [--host-node H] [--model LIST] [--check] [--json]\n"
"       rtopo-sim scatter --figure 1|2 [--out FILE.png] [--csv FILE.csv]\n"
"                 [--versus overlap|d] [--d D] [--M M] [--model LIST]\n"
"\n"
"A host sends each node i of a 2^D hypercube the window of M elements that\n"
"starts at element i*(M-K) of its array (consecutive windows share K).\n"
"The strategy's schedule runs under the cost model; the closed formula\n"
"of the strategy (seed formulas (6)-(9)) is printed beside it.\n"
"\n"
"  --d D           cube dimension, 0..%d\n"
"  --M M           elements per window (default 100)\n"
"  --overlap K     elements shared by consecutive windows, 0..M-1 (default 0)\n"
"  --strategy S    auto (default), seq, binomial, seqscatter[:X],\n"
"                  decremental[:X]; without X the best X by model time\n"
"  --x X           block dimension of seqscatter (0..D) or decremental (0..D-1)\n"
"  --esize B       bytes per element (default 1)\n"
"  --host-node H   the host is cube node H rather than a separate endpoint\n"
"  --model LIST    beta=, beta_h=, tau=, tau_h= (start-up times, and times\n"
"                  per element, of node and host links; units s, ms, us, ns),\n"
"                  sigma= (beta_h = sigma*beta); tau_h defaults to tau when\n"
"                  only tau is given; also every shift --model key (per byte)\n"
"  --check         move real data in memory and verify every window\n"
"  --json          one JSON object\n"
"  --figure N      the seed's Figure N: 1 (M 100, beta 800us), 2 (M 500,\n"
"                  beta 6500us), sigma 1.5, tau 8us; every strategy at its\n"
"                  best x, time against overlap (figure 1, at dimension D,\n"
"                  default 10) or dimension (figure 2, 1..D, overlaps 0,\n"
"                  M/2, M-1); drawn with gnuplot (or $GNUPLOT)\n"
"  --versus A      x axis of the figure: overlap or d\n"
"  --out FILE      the figure's PNG\n"
"  --csv FILE      the figure's data (written even without gnuplot)\n"
"  -h, --help      this text\n"
"\n"
"Exit status: 0 ok, 1 check failed, simulation error or figure not drawn,\n"
"2 bad arguments.\n", SCAT_D_MAX);
}

/* beta, beta_h, tau, tau_h, sigma on top of the shift keys */
static int scat_parse_model(const char *list, size_t esize, rtopo__model_t *m)
{
    double beta = -1, beta_h = -1, tau = -1, tau_h = -1, sigma = -1, v;
    char *copy = strdup(list), *rest = calloc(1, strlen(list) + 2), *save = NULL, *kv;
    int rc = 0;

    if (!copy || !rest) {
        free(copy);
        free(rest);
        fprintf(stderr, "rtopo-sim: out of memory\n");
        return 1;
    }
    for (kv = strtok_r(copy, ",", &save); kv && !rc; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        size_t n = eq ? (size_t)(eq - kv) : 0;
        double *dst = NULL;

        if (n == 4 && !strncmp(kv, "beta", 4))
            dst = &beta;
        else if (n == 6 && !strncmp(kv, "beta_h", 6))
            dst = &beta_h;
        else if (n == 3 && !strncmp(kv, "tau", 3))
            dst = &tau;
        else if (n == 5 && !strncmp(kv, "tau_h", 5))
            dst = &tau_h;
        if (dst) {
            if (parse_time(eq + 1, &v) || v < 0)
                rc = bad("--model: bad time '%s'", kv);
            else
                *dst = v;
        } else if (n == 5 && !strncmp(kv, "sigma", 5)) {
            char *end;

            errno = 0;
            sigma = strtod(eq + 1, &end);
            if (errno || end == eq + 1 || *end || sigma <= 0)
                rc = bad("--model: bad sigma '%s' (a ratio > 0)", eq + 1);
        } else {
            strcat(rest, *rest ? "," : "");
            strcat(rest, kv);
        }
    }
    if (!rc && *rest)
        rc = parse_model(rest, m);
    if (!rc && sigma > 0 && beta_h >= 0)
        rc = bad("--model: give beta_h or sigma, not both%s", "");
    if (!rc) {
        if (beta >= 0)
            m->ts[RTOPO__LINK_CUBE_ID] = beta;
        if (tau >= 0)
            m->tw[RTOPO__LINK_CUBE_ID] = tau / (double)esize;
        if (sigma > 0)
            beta_h = sigma * m->ts[RTOPO__LINK_CUBE_ID];
        if (tau_h < 0 && tau >= 0)
            tau_h = tau;
        /* the host's links: HOST, or DIRECT when the host is a node */
        if (beta_h >= 0)
            m->ts[RTOPO__LINK_HOST] = m->ts[RTOPO__LINK_DIRECT] = beta_h;
        if (tau_h >= 0)
            m->tw[RTOPO__LINK_HOST] = m->tw[RTOPO__LINK_DIRECT] = tau_h / (double)esize;
    }
    free(copy);
    free(rest);
    return rc;
}

static void scat_model_print(const scat_opts_t *o, int json)
{
    int hl = o->host_node >= 0 ? RTOPO__LINK_DIRECT : RTOPO__LINK_HOST;
    double b = o->model.ts[RTOPO__LINK_CUBE_ID], bh = o->model.ts[hl],
           tau = o->model.tw[RTOPO__LINK_CUBE_ID] * (double)o->esize,
           th = o->model.tw[hl] * (double)o->esize;

    if (json) {
        printf("\"model\":{\"beta\":%.9g,\"beta_h\":%.9g,\"tau\":%.9g,\"tau_h\":%.9g",
               b, bh, tau, th);
        if (b > 0)
            printf(",\"sigma\":%.9g", bh / b);
        printf("}");
        return;
    }
    printf("model           beta %.3f us, beta_h %.3f us", b * 1e6, bh * 1e6);
    if (b > 0)
        printf(" (sigma %.4g)", bh / b);
    printf(", tau %.6g us, tau_h %.6g us per element\n", tau * 1e6, th * 1e6);
}

static const char *scat_formula_label(int strategy)
{
    static const char *const l[] = { "", "T1, formula (6)", "T2, formula (7)",
                                     "T3, formula (8)", "T4, formula (9)" };

    return strategy >= RTOPO__SCATTER_SEQ && strategy <= RTOPO__SCATTER_DECREMENTAL ?
           l[strategy] : "";
}

/* move real data: the host's array, every node's RECV and each rank's TMP
 * sized for its role, the buffers a role has no use for absent; checks
 * every window.  A schedule whose buffers would exceed SCAT_CHECK_CAP is
 * checked with elements of one byte (the same transfers, scaled). */
static int scat_check(const scat_opts_t *o, const rtopo__tdesc_t *t, int strat, int x,
                      const rtopo__sched_t *s, size_t *esize_p, int *ok_p)
{
    int nodes = 1 << o->d, host = o->host_node >= 0 ? o->host_node : nodes, p, i, ok = 1;
    uint64_t delta = o->M - o->overlap, size[RTOPO__BUF_COUNT], win, str, n, need, k;
    size_t esize = o->esize;
    rtopo__sched_t *cs = NULL;
    uint8_t **ptr = NULL, ***bufs = NULL;
    int st;

    for (;;) {
        win = o->M * esize;
        str = delta * esize;
        n = (uint64_t)(nodes - 1) * str + win;
        need = n + (uint64_t)nodes * win;
        for (i = 0; i < s->topo.p; i++)
            need += rtopo__sched_tmp(s, i);
        if (need <= SCAT_CHECK_CAP)
            break;
        if (esize == 1) {
            st = rtopo__error(RTOPO_ERR_NOMEM, "--check would need %llu MiB of buffers",
                              (unsigned long long)(need >> 20));
            goto out;
        }
        esize = 1;
        if ((st = rtopo__sched_scatter(t, strat, x < 0 ? 0 : x, o->M, delta, 1, &cs)) ||
            (o->host_node >= 0 && (st = rtopo__sched_fold_host(&cs, o->host_node))))
            goto out;
        s = cs;
    }
    p = s->topo.p;
    st = RTOPO_ERR_NOMEM;
    ptr = calloc((size_t)p * RTOPO__BUF_COUNT, sizeof(*ptr));
    bufs = calloc((size_t)p, sizeof(*bufs));
    if (!ptr || !bufs)
        goto nomem;
    for (i = 0; i < p; i++) {
        uint64_t tmp = rtopo__sched_tmp(s, i);

        bufs[i] = ptr + (size_t)i * RTOPO__BUF_COUNT;
        if (i == host) {
            if (!(bufs[i][RTOPO__BUF_SEND] = malloc(n)))
                goto nomem;
            for (k = 0; k < n; k++)
                bufs[i][RTOPO__BUF_SEND][k] = pattern((uint32_t)i, k);
        }
        if (i < nodes) {
            if (!(bufs[i][RTOPO__BUF_RECV] = malloc(win)))
                goto nomem;
            memset(bufs[i][RTOPO__BUF_RECV], 0xEE, win);
        }
        if (tmp && !(bufs[i][RTOPO__BUF_TMP] = malloc(tmp)))
            goto nomem;
    }
    size[RTOPO__BUF_SEND] = n;
    size[RTOPO__BUF_RECV] = win;
    size[RTOPO__BUF_TMP] = s->tmp_bytes;
    if ((st = rtopo__sched_validate_exec(s)) ||
        (st = rtopo__sim_exec_valid(s, (uint8_t *const *const *)bufs, size)))
        goto out;
    for (i = 0; i < nodes && ok; i++)
        ok = !memcmp(bufs[i][RTOPO__BUF_RECV], bufs[host][RTOPO__BUF_SEND] +
                     (uint64_t)i * str, win);
    *esize_p = esize;
    *ok_p = ok;
    st = RTOPO_OK;
    goto out;
nomem:
    st = rtopo__error(RTOPO_ERR_NOMEM, "check buffers");
out:
    if (ptr)
        for (i = 0; i < s->topo.p * RTOPO__BUF_COUNT; i++)
            free(ptr[i]);
    free(ptr);
    free(bufs);
    rtopo__sched_free(cs);
    return st;
}

static void scat_cand_print(const rtopo__scatter_cand_t *c, int nc, int json)
{
    int i;

    if (json) {
        printf(",\"candidates\":[");
        for (i = 0; i < nc; i++) {
            printf("%s{\"strategy\":\"%s\",\"x\":", i ? "," : "",
                   rtopo__scatter_algo_name(c[i].strategy));
            if (c[i].x < 0)
                printf("null");
            else
                printf("%d", c[i].x);
            printf(",\"model_time\":%.9g,\"formula_time\":%.9g,\"formula_exact\":%s,"
                   "\"host_sends\":%u,\"steps\":%u}", c[i].model_time, c[i].formula_time,
                   c[i].formula_exact ? "true" : "false", c[i].host_sends, c[i].steps);
        }
        printf("]");
        return;
    }
    printf("candidates      %-12s %3s %16s %16s %6s %10s\n", "strategy", "x", "model us",
           "formula us", "exact", "host sends");
    for (i = 0; i < nc; i++) {
        char xs[16] = "-";

        if (c[i].x >= 0)
            snprintf(xs, sizeof(xs), "%d", c[i].x);
        printf("                %-12s %3s %16.3f %16.3f %6s %10u\n",
               rtopo__scatter_algo_name(c[i].strategy), xs, c[i].model_time * 1e6,
               c[i].formula_time * 1e6, c[i].formula_exact ? "yes" : "no",
               c[i].host_sends);
    }
}

static int scat_one(const scat_opts_t *o)
{
    rtopo__scatter_cand_t *cand = NULL, c;
    rtopo__sim_result_t r;
    rtopo__sched_t *s = NULL;
    rtopo__tdesc_t t;
    uint64_t delta = o->M - o->overlap;
    int nc = 0, strat = o->strategy, x = o->x, st, ok = -1, i, choose;
    size_t cesize = 0;

    memset(&c, 0, sizeof(c));
    if ((st = rtopo__tdesc_init(&t, RTOPO__TOPO_HYPERCUBE, 1 << o->d, o->d, 0)) ||
        (st = rtopo__tdesc_add_host(&t)))
        goto fail;
    /* the model picks the strategy, or the x of one */
    choose = strat == RTOPO__SCATTER_AUTO ||
             (x < 0 && (strat == RTOPO__SCATTER_SEQSCATTER ||
                        strat == RTOPO__SCATTER_DECREMENTAL));
    sim_stage = choose ? "building and running every candidate (auto)" :
                         "building the schedule";
    if (choose) {
        cand = calloc(RTOPO__SCATTER_NCAND(o->d), sizeof(*cand));
        if (!cand) {
            st = rtopo__error(RTOPO_ERR_NOMEM, "candidates");
            goto fail;
        }
        st = rtopo__sched_scatter_auto_cand(&t, o->M, delta, o->esize, &o->model,
                                            o->host_node, strat, cand, &nc, &strat, &x,
                                            &s);
        for (i = 0; !st && i < nc; i++)
            if (cand[i].strategy == strat && cand[i].x == x)
                c = cand[i];
    } else {
        st = rtopo__sched_scatter_cand(&t, strat, x < 0 ? 0 : x, o->M, delta, o->esize,
                                       &o->model, o->host_node, &c, &s);
    }
    if (st == RTOPO_ERR_INVAL) {
        fprintf(stderr, "rtopo-sim: %s\n", rtopo_last_error());
        free(cand);
        return 2;
    }
    sim_stage = "simulating the schedule";
    if (!st)
        st = rtopo__sim_run(s, &o->model, &r);
    sim_stage = "checking the data";
    if (!st && o->check)
        st = scat_check(o, &t, strat, x, s, &cesize, &ok);
    sim_stage = "finishing";
    if (!st && sim_draw_path)
        st = c.x >= 0 ? sim_draw(s, "scatter, %s x %d, windows of %llu overlapping %llu",
                                 rtopo__scatter_algo_name(strat), c.x,
                                 (unsigned long long)o->M, (unsigned long long)o->overlap)
                      : sim_draw(s, "scatter, %s, windows of %llu overlapping %llu",
                                 rtopo__scatter_algo_name(strat), (unsigned long long)o->M,
                                 (unsigned long long)o->overlap);
    if (st)
        goto fail;
    if (o->json) {
        printf("{\"op\":\"scatter\",\"d\":%d,\"p\":%d,\"M\":%llu,\"overlap\":%llu,"
               "\"delta\":%llu,\"esize\":%zu,\"host_node\":%d,\"strategy\":\"%s\",\"x\":",
               o->d, 1 << o->d, (unsigned long long)o->M, (unsigned long long)o->overlap,
               (unsigned long long)delta, o->esize, o->host_node,
               rtopo__scatter_algo_name(strat));
        if (c.x < 0)
            printf("null");
        else
            printf("%d", c.x);
        printf(",\"requested\":\"%s\",", rtopo__scatter_algo_name(o->strategy));
        scat_model_print(o, 1);
        printf(",\"model_time\":%.9g,\"formula_time\":%.9g,\"formula\":\"T%d\","
               "\"formula_exact\":%s,\"host_sends\":%u,\"steps\":%u,\"max_link_load\":%u,"
               "\"moves\":{", r.model_time, c.formula_time, strat,
               c.formula_exact ? "true" : "false", c.host_sends, r.steps, r.max_link_load);
        print_moves(stdout, &r, 1);
        printf("}");
        if (o->check)
            printf(",\"correct\":%s,\"check_esize\":%zu", ok ? "true" : "false", cesize);
        if (choose)
            scat_cand_print(cand, nc, 1);
        printf("}\n");
    } else {
        printf("scatter to hypercube:%d (%d nodes) from %s\n", o->d, 1 << o->d,
               o->host_node >= 0 ? "a host on a node" : "a host outside the cube");
        if (o->host_node >= 0)
            printf("host            node %d\n", o->host_node);
        printf("windows         %llu elements of %zu byte%s, overlap %llu (stride %llu)\n",
               (unsigned long long)o->M, o->esize, o->esize == 1 ? "" : "s",
               (unsigned long long)o->overlap, (unsigned long long)delta);
        scat_model_print(o, 0);
        printf("strategy        %s", rtopo__scatter_algo_name(strat));
        if (c.x >= 0)
            printf(", x %d", c.x);
        if (o->strategy == RTOPO__SCATTER_AUTO)
            printf(" (auto: smallest model time; ties go to the earlier candidate)");
        else if (choose)
            printf(" (the x with the smallest model time)");
        printf("\nhost sends      %u\nsteps           %u\nmax link load   %u\n"
               "moves           ", c.host_sends, r.steps, r.max_link_load);
        print_moves(stdout, &r, 0);
        printf("\nmodel time      %.3f us event by event\n", r.model_time * 1e6);
        printf("formula time    %.3f us, %s: %s\n", c.formula_time * 1e6,
               scat_formula_label(strat), c.formula_exact ? "the model time" :
               o->host_node >= 0 ? "not exact, it counts the host outside the cube" :
               "a lower bound here (see rtopo-sim(1), COST MODEL)");
        if (o->check)
            printf("correct         %s (elements of %zu byte%s moved)\n",
                   ok ? "yes" : "no", cesize, cesize == 1 ? "" : "s");
        if (choose)
            scat_cand_print(cand, nc, 0);
    }
    free(cand);
    rtopo__sched_free(s);
    return ok == 0 ? 1 : 0;
fail:
    fprintf(stderr, "rtopo-sim: scatter: %s: %s\n", rtopo_strerror(st),
            rtopo_last_error());
    free(cand);
    rtopo__sched_free(s);
    return 1;
}

/* the model time of a strategy at its best x (-1: none) */
static int scat_best(int d, int strat, uint64_t M, uint64_t overlap, size_t esize,
                     const rtopo__model_t *m, double *time_p, int *x_p)
{
    rtopo__scatter_cand_t cand[RTOPO__SCATTER_NCAND(SCAT_D_MAX)];
    rtopo__sched_t *s = NULL;
    rtopo__tdesc_t t;
    int nc, i, st, x;

    if ((st = rtopo__tdesc_init(&t, RTOPO__TOPO_HYPERCUBE, 1 << d, d, 0)) ||
        (st = rtopo__tdesc_add_host(&t)) ||
        (st = rtopo__sched_scatter_auto_cand(&t, M, M - overlap, esize, m, -1, strat, cand,
                                             &nc, &strat, &x, &s)))
        return st;
    for (i = 0; i < nc; i++)
        if (cand[i].x == x)
            *time_p = cand[i].model_time;
    *x_p = x;
    rtopo__sched_free(s);
    return RTOPO_OK;
}

/* `s` as one sh word */
static void scat_shquote(char *dst, size_t len, const char *s)
{
    size_t n = 0;

    if (len < 3)
        return;
    dst[n++] = '\'';
    for (; *s && n + 5 < len; s++) {
        if (*s == '\'') {
            memcpy(dst + n, "'\\''", 4);
            n += 4;
        } else {
            dst[n++] = *s;
        }
    }
    dst[n++] = '\'';
    dst[n] = '\0';
}

static int scat_figure(const scat_opts_t *o)
{
    const int fig = o->figure - 1;
    const int vd = o->versus >= 0 ? o->versus : scat_fig[fig].versus_d;
    const uint64_t M = o->M;
    const uint64_t ovs[3] = { 0, M / 2, M - 1 };
    uint64_t step = M / 100 ? M / 100 : 1, v;
    int dmax = o->have_d ? o->d : 10, npt = 0, ncol, i, j, st, rc = 0;
    double *val = NULL;
    FILE *csv = NULL, *gp = NULL;
    char *prog = NULL, cmd[4200];
    char **rows = NULL;

    if (vd && dmax < 1)
        return bad("--figure: the dimension axis needs --d of at least 1%s", "");
    ncol = vd ? 10 : 6;      /* after the axis: times and x values */
    npt = vd ? dmax : (int)((M - 1) / step) + 1 + ((M - 1) % step != 0);
    val = calloc((size_t)npt * (size_t)(ncol + 1), sizeof(*val));
    rows = calloc((size_t)npt, sizeof(*rows));
    if (!val || !rows) {
        fprintf(stderr, "rtopo-sim: out of memory\n");
        rc = 1;
        goto out;
    }
    for (i = 0; i < npt; i++) {
        double *row = val + (size_t)i * (size_t)(ncol + 1), tm;
        int d = vd ? i + 1 : o->d, x;
        size_t len = 0;

        v = vd ? 0 : (uint64_t)i * step < M ? (uint64_t)i * step : M - 1;
        row[0] = vd ? d : (double)v;
        if ((st = scat_best(d, RTOPO__SCATTER_SEQ, M, v, o->esize, &o->model, &row[1],
                            &x)) ||
            (st = scat_best(d, RTOPO__SCATTER_BINOMIAL, M, v, o->esize, &o->model,
                            &row[2], &x)) ||
            (st = scat_best(d, RTOPO__SCATTER_SEQSCATTER, M, v, o->esize, &o->model,
                            &row[3], &x)))
            goto fail;
        row[4] = x;
        for (j = 0; j < (vd ? 3 : 1); j++) {
            if ((st = scat_best(d, RTOPO__SCATTER_DECREMENTAL, M, vd ? ovs[j] : v,
                                o->esize, &o->model, &tm, &x)))
                goto fail;
            row[5 + 2 * j] = tm;
            row[6 + 2 * j] = x;
        }
        rows[i] = malloc(ncol * 24 + 8);
        if (!rows[i]) {
            fprintf(stderr, "rtopo-sim: out of memory\n");
            rc = 1;
            goto out;
        }
        /* the axis and the x columns are integers */
        for (j = 0; j <= ncol; j++)
            if (j == 0 || (j >= 4 && j % 2 == 0))
                len += (size_t)sprintf(rows[i] + len, "%s%.0f", j ? "," : "", row[j]);
            else
                len += (size_t)sprintf(rows[i] + len, ",%.9g", row[j]);
    }
    if (o->csv) {
        csv = fopen(o->csv, "w");
        if (!csv) {
            fprintf(stderr, "rtopo-sim: %s: %s\n", o->csv, strerror(errno));
            rc = 1;
            goto out;
        }
        if (vd)
            fprintf(csv, "d,seq,binomial,seqscatter,seqscatter_x,decremental_ov%llu,"
                    "decremental_ov%llu_x,decremental_ov%llu,decremental_ov%llu_x,"
                    "decremental_ov%llu,decremental_ov%llu_x\n",
                    (unsigned long long)ovs[0],
                    (unsigned long long)ovs[0], (unsigned long long)ovs[1],
                    (unsigned long long)ovs[1], (unsigned long long)ovs[2],
                    (unsigned long long)ovs[2]);
        else
            fprintf(csv, "overlap,seq,binomial,seqscatter,seqscatter_x,decremental,"
                    "decremental_x\n");
        for (i = 0; i < npt; i++)
            fprintf(csv, "%s\n", rows[i]);
        if (fclose(csv)) {
            fprintf(stderr, "rtopo-sim: %s: %s\n", o->csv, strerror(errno));
            rc = 1;
            goto out;
        }
    }
    if (!o->out)
        goto out;
    prog = sim_find_gnuplot();
    if (!prog) {
        fprintf(stderr, "rtopo-sim: cannot draw %s: %s not found%s (Debian package "
                "gnuplot-nox)%s%s\n", o->out, getenv("GNUPLOT") && *getenv("GNUPLOT") ?
                getenv("GNUPLOT") : "gnuplot", getenv("GNUPLOT") && *getenv("GNUPLOT") ?
                "" : " in PATH", o->csv ? "; the data is in " : "", o->csv ? o->csv : "");
        rc = 1;
        goto out;
    }
    scat_shquote(cmd, sizeof(cmd), prog);
    unlink(o->out);
    fflush(stdout);
    gp = popen(cmd, "w");
    if (!gp) {
        fprintf(stderr, "rtopo-sim: cannot run %s: %s\n", prog, strerror(errno));
        rc = 1;
        goto out;
    }
    fprintf(gp, "set terminal pngcairo size 960,640 noenhanced\nset output '");
    for (i = 0; o->out[i]; i++) {
        if (o->out[i] == '\'')
            fputc('\'', gp);
        fputc(o->out[i], gp);
    }
    fprintf(gp, "'\nset datafile separator ','\nset grid\nset key %s\n",
            vd ? "top left" : "right center");
    fprintf(gp, "set title \"Host to hypercube distribution of overlapping windows, "
            "M = %llu\\nbeta = %.6g us, beta_h = %.6g us, tau = %.6g us, tau_h = %.6g us "
            "per element\"\n",
            (unsigned long long)M, o->model.ts[RTOPO__LINK_CUBE_ID] * 1e6,
            o->model.ts[RTOPO__LINK_HOST] * 1e6,
            o->model.tw[RTOPO__LINK_CUBE_ID] * (double)o->esize * 1e6,
            o->model.tw[RTOPO__LINK_HOST] * (double)o->esize * 1e6);
    fprintf(gp, "set ylabel 'model time (ms)'\n");
    if (vd)
        fprintf(gp, "set xlabel 'cube dimension d'\nset logscale y\nset xtics 1\n");
    else
        fprintf(gp, "set xlabel 'overlap (elements), d = %d'\n", o->d);
    fprintf(gp, "$data << EOD\n");
    for (i = 0; i < npt; i++)
        fprintf(gp, "%s\n", rows[i]);
    /* a point per dimension; the overlap axis has a hundred, lines suffice */
    fprintf(gp, "EOD\nset style data %s\n", vd ? "linespoints" : "lines");
    fprintf(gp, "plot $data using 1:($2*1e3) lw 2 title 'sequential (T1)', "
            "$data using 1:($3*1e3) lw 2 title 'node 0 then binomial (T2)', "
            "$data using 1:($4*1e3) lw 2 title 'sequential/scattering, best x (T3)'");
    if (vd)
        for (j = 0; j < 3; j++)
            fprintf(gp, ", $data using 1:($%d*1e3) lw 2 title 'decremental, best x, "
                    "overlap %llu (T4)'", 6 + 2 * j, (unsigned long long)ovs[j]);
    else
        fprintf(gp, ", $data using 1:($6*1e3) lw 2 title 'decremental, best x (T4)'");
    fprintf(gp, "\n");
    st = pclose(gp);
    {
        struct stat sb;

        if (st != 0 || stat(o->out, &sb) || !sb.st_size) {
            fprintf(stderr, "rtopo-sim: %s did not draw %s (status %d)\n", prog, o->out,
                    st);
            rc = 1;
            goto out;
        }
    }
    if (!o->json)
        printf("figure %d: %s%s%s\n", o->figure, o->out, o->csv ? ", data in " : "",
               o->csv ? o->csv : "");
    goto out;
fail:
    fprintf(stderr, "rtopo-sim: scatter: %s: %s\n", rtopo_strerror(st),
            rtopo_last_error());
    rc = 1;
out:
    for (i = 0; rows && i < npt; i++)
        free(rows[i]);
    free(rows);
    free(val);
    free(prog);
    return rc;
}

static int scat_opt_d(void *opts, const char *arg)
{
    scat_opts_t *o = opts;
    long v;

    if (parse_int(arg, &v) || v < 0 || v > SCAT_D_MAX) {
        fprintf(stderr, "rtopo-sim: --d '%s': a dimension from 0 to %d\n", arg, SCAT_D_MAX);
        return 2;
    }
    o->d = (int)v;
    return 0;
}

static int scat_opt_strategy(void *opts, const char *arg)
{
    scat_opts_t *o = opts;

    o->strategy = rtopo__scatter_algo_parse(arg, &o->sx);
    if (o->strategy < 0)
        return bad("--strategy '%s': expected auto, seq, binomial, "
                   "seqscatter[:X] or decremental[:X]", arg);
    return 0;
}

static int scat_opt_versus(void *opts, const char *arg)
{
    scat_opts_t *o = opts;

    if (!strcmp(arg, "overlap"))
        o->versus = 0;
    else if (!strcmp(arg, "d") || !strcmp(arg, "dimension"))
        o->versus = 1;
    else
        return bad("--versus '%s': overlap or d", arg);
    return 0;
}

static const sim_opt_t scat_optab[] = {
    { "d", SIM_OPT_FN, 1, 0, 0, SIM_HAVE(scat_opts_t, have_d), 0, 0, NULL, scat_opt_d },
    SIM_BYTES(scat_opts_t, "M", M, SIM_HAVE(scat_opts_t, have_M), 1, 1ll << 32,
              "--M '%s': elements per window, 1 to 2^32"),
    SIM_BYTES(scat_opts_t, "overlap", overlap, SIM_HAVE(scat_opts_t, have_overlap), 0, -1,
              "--overlap '%s': a number of elements"),
    SIM_FN("strategy", scat_opt_strategy),
    SIM_INT(scat_opts_t, "x", x, SIM_HAVE(scat_opts_t, have_x), 0, 30,
            "--x '%s': a block dimension"),
    SIM_BYTES(scat_opts_t, "esize", esize, SIM_NONE, 1, 4096,
              "--esize '%s': bytes per element, 1 to 4096"),
    SIM_INT(scat_opts_t, "host-node", host_node, SIM_NONE, 0, (1L << SCAT_D_MAX) - 1,
            "--host-node '%s': a node label"),
    SIM_STR(scat_opts_t, "model", model_str, SIM_NONE),
    SIM_FLAG(scat_opts_t, "check", check, SIM_NONE),
    SIM_FLAG(scat_opts_t, "json", json, SIM_NONE),
    SIM_INT(scat_opts_t, "figure", figure, SIM_NONE, 1, 2, "--figure '%s': 1 or 2"),
    SIM_FN("versus", scat_opt_versus),
    SIM_STR(scat_opts_t, "out", out, SIM_NONE),
    SIM_STR(scat_opts_t, "csv", csv, SIM_NONE),
    SIM_HELP_OPT,
};

static int scatter_main(int argc, char **argv)
{
    scat_opts_t o;
    int rc, sx, have_x;

    memset(&o, 0, sizeof(o));
    o.M = 100;
    o.esize = 1;
    o.x = -1;
    o.host_node = -1;
    o.versus = -1;
    o.sx = -1;
    rc = sim_opts_parse(argc, argv, 2, scat_optab, (int)(sizeof(scat_optab) /
                        sizeof(scat_optab[0])), &o, scatter_usage);
    if (rc >= 0)
        return rc;
    sx = o.sx;
    have_x = o.have_x;
    if (sx >= 0 && have_x && sx != o.x)
        return bad("--x and --strategy name different block dimensions%s", "");
    if (sx >= 0)
        o.x = sx;
    if (o.x >= 0 && o.strategy != RTOPO__SCATTER_SEQSCATTER &&
        o.strategy != RTOPO__SCATTER_DECREMENTAL)
        return bad("--x: only seqscatter and decremental take a block dimension%s", "");
    rtopo__model_default(&o.model);
    if (o.figure) {
        const int f = o.figure - 1;

        if (o.strategy || o.x >= 0 || o.check || o.json || o.have_overlap ||
            o.host_node >= 0)
            return bad("--figure draws every strategy over a range: no --strategy, --x, "
                       "--overlap, --host-node, --check or --json%s", "");
        if (!o.out && !o.csv)
            return bad("--figure: give --out FILE.png, --csv FILE.csv or both%s", "");
        if (!o.have_M)
            o.M = scat_fig[f].M;
        if (!o.have_d)
            o.d = 10;
        o.model.ts[RTOPO__LINK_CUBE_ID] = scat_fig[f].beta;
        o.model.ts[RTOPO__LINK_HOST] = SCAT_FIG_SIGMA * scat_fig[f].beta;
        o.model.tw[RTOPO__LINK_CUBE_ID] = o.model.tw[RTOPO__LINK_HOST] =
            SCAT_FIG_TAU / (double)o.esize;
    } else {
        if (!o.have_d)
            return bad("scatter: --d is required (or --figure)%s", "");
        if (o.out || o.csv || o.versus >= 0)
            return bad("--out, --csv and --versus go with --figure%s", "");
        if (o.overlap >= o.M)
            return bad("--overlap: at most M-1 (consecutive windows are distinct)%s", "");
        if (o.host_node >= (1 << o.d))
            return bad("--host-node: not a node of the cube%s", "");
        if (o.x > (o.strategy == RTOPO__SCATTER_SEQSCATTER ? o.d : o.d ? o.d - 1 : 0)) {
            fprintf(stderr, "rtopo-sim: --x %d: %s on a %d-cube takes x from 0 to %d\n",
                    o.x, rtopo__scatter_algo_name(o.strategy), o.d,
                    o.strategy == RTOPO__SCATTER_SEQSCATTER ? o.d : o.d ? o.d - 1 : 0);
            return 2;
        }
    }
    if (o.model_str && (rc = scat_parse_model(o.model_str, o.esize, &o.model)))
        return rc;
    return o.figure ? scat_figure(&o) : scat_one(&o);
}

/* ---- shift-dim: every line along one dimension shifted as a ring ------- */

/* the runtime's in-place pieces (runtime/cart.c): max(256 KiB, bytes/64),
 * 4 slots */
#define DIM_PIECE_MIN    (256ull << 10)
#define DIM_PIECE_MAXN   64ull
#define DIM_SLOTS        4u
#define DIM_LINES_CAP    4096                  /* line_disp entries in JSON */

typedef struct dim_opts {
    const char *topo_str;
    rtopo__tdesc_t topo;
    long dim, disp, a, b;
    int have_dim, have_disp, have_rule, all_disp;
    int inplace;
    uint64_t bytes, piece;       /* piece 0: the runtime's rule */
    long slots;
    rtopo__model_t model;
    int check, json, rounds;
    sim_hosts_t hosts;           /* --hosts, --host-map, --map-by, --place */
} dim_opts_t;

static void dim_usage(FILE *f)
{
    fprintf(f,
"usage: rtopo-sim shift-dim --topo T --dim K (--disp D | --rule A,B | --all-disp)\n"
"                 [--bytes M] [--inplace] [--piece B] [--slots S] [--model LIST]\n"
"                 [--check] [--json] [--rounds]\n"
"\n"
"Shift along one dimension (rtopo_shift_dim): every line along dimension K\n"
"(the ranks that agree on every other coordinate) is a ring of E ranks,\n"
"and line L moves each rank's data D places along it, or A*L + B places\n"
"(rtopo_shift_dim_rule); the schedule runs under the cost model.\n"
"\n"
"  --topo T        ring:P | mesh:RxC | hypercube:D | otis-mesh:N |\n"
"                  otis-hypercube:N\n"
"  --dim K         the dimension: mesh 1 shifts the rows, 0 the columns;\n"
"                  hypercube k: cube dimension k; otis-mesh 0..3 (Gx Gy Px\n"
"                  Py); otis-hypercube 0, 1 (G P); ring 0\n"
"  --disp D        every line by D, any integer (taken modulo E)\n"
"  --rule A,B      line L by A*L + B (Cannon's skew of the rows: -1,0)\n"
"  --all-disp      every D from 0 to E-1, one line (object) each\n"
"  --bytes M       bytes per rank (default 1M); suffixes K, M, G (x1024)\n"
"  --inplace       the in-place form (sendbuf == recvbuf): pieces through\n"
"                  TMP slots, as the runtime runs it\n"
"  --piece B       in-place piece size (default max(256K, M/64))\n"
"  --slots S       in-place TMP slots (default 4)\n"
"  --model LIST    cost parameters, as for shift (rtopo-sim --help)\n"
"  --check         execute the data movement in memory and verify it\n"
"  --json          one JSON object (an array with --all-disp)\n"
"  --rounds        list every transfer of every round\n"
"%s"
"  -h, --help      this text\n"
"\n"
"Exit status: 0 ok, 1 check failed or simulation error, 2 bad arguments.\n",
            sim_hosts_usage);
}

/* what the lines along `dim` are, for the report */
static const char *dim_lines_name(const rtopo__tdesc_t *t, int dim)
{
    static const char *const om[] = { "Gx lines", "Gy lines", "Px lines", "Py lines" };

    switch (t->kind) {
    case RTOPO__TOPO_MESH:
        return dim ? "rows" : "columns";
    case RTOPO__TOPO_HYPERCUBE:
        return "cube links of the dimension";
    case RTOPO__TOPO_OTIS_MESH:
        return om[dim & 3];
    case RTOPO__TOPO_OTIS_HYPERCUBE:
        return dim ? "P lines (in-group cubes)" : "G lines (across groups)";
    default:
        return "the ring";
    }
}

static void dim_desc(const dim_opts_t *o, long a, long b, uint64_t bytes,
                     rtopo__dimshift_t *ds)
{
    memset(ds, 0, sizeof(*ds));
    ds->dim = (int)o->dim;
    ds->a = a;
    ds->b = b;
    ds->bytes = bytes;
    if (o->inplace && bytes) {
        uint64_t piece = (bytes + DIM_PIECE_MAXN - 1) / DIM_PIECE_MAXN;

        ds->chunk = o->piece ? o->piece : piece > DIM_PIECE_MIN ? piece : DIM_PIECE_MIN;
        ds->slots = (uint32_t)o->slots;
    }
}

/* move real data: rank r's pattern must land at the rank d(L) places
 * further along its line L.  A payload that would need more than
 * SIM_CHECK_CAP over all ranks is checked smaller, the in-place pieces
 * scaled so that their number stays the same. */
static int dim_check(const dim_opts_t *o, const rtopo__sched_t *s, long a, long b,
                     uint64_t *cbytes_p, int *ok_p)
{
    const rtopo__tdesc_t *t = &o->topo;
    rtopo__dimshift_t ds;
    uint64_t cb = o->bytes, size[RTOPO__BUF_COUNT], k, tmp;
    rtopo__sched_t *cs = NULL;
    uint8_t *mem = NULL, **ptr = NULL, ***bufs = NULL;
    int status, i, ok = 1, E = rtopo__cart_extent(t, (int)o->dim);
    int src_buf = o->inplace && o->bytes ? RTOPO__BUF_RECV : RTOPO__BUF_SEND;

    dim_desc(o, a, b, o->bytes, &ds);
    if (cb < 8)
        cb = 8;
    if (cb * (uint64_t)t->p > SIM_CHECK_CAP)
        cb = SIM_CHECK_CAP / (uint64_t)t->p;
    if (cb < 8)
        cb = 8;
    if (cb != o->bytes) {
        uint64_t pieces = ds.chunk ? (o->bytes + ds.chunk - 1) / ds.chunk : 0;
        int inplace = ds.chunk != 0;

        dim_desc(o, a, b, cb, &ds);
        if (inplace)
            ds.chunk = (cb + pieces - 1) / pieces;
        else
            ds.chunk = 0;
        if ((status = rtopo__sched_shift_dim(t, &ds, &cs)))
            return status;
        s = cs;
    }
    tmp = s->tmp_bytes;
    size[RTOPO__BUF_SEND] = size[RTOPO__BUF_RECV] = cb;
    size[RTOPO__BUF_TMP] = tmp;
    mem = malloc((size_t)t->p * (2 * cb + tmp) + 1);
    ptr = malloc((size_t)t->p * RTOPO__BUF_COUNT * sizeof(*ptr));
    bufs = malloc((size_t)t->p * sizeof(*bufs));
    if (!mem || !ptr || !bufs) {
        status = rtopo__error(RTOPO_ERR_NOMEM, "check buffers for %d ranks", t->p);
        goto out;
    }
    for (i = 0; i < t->p; i++) {
        uint8_t *base = mem + (size_t)i * (2 * cb + tmp);

        bufs[i] = ptr + (size_t)i * RTOPO__BUF_COUNT;
        bufs[i][RTOPO__BUF_SEND] = base;
        bufs[i][RTOPO__BUF_RECV] = base + cb;
        bufs[i][RTOPO__BUF_TMP] = base + 2 * cb;
        memset(base, 0xEE, 2 * cb + tmp);
        for (k = 0; k < cb; k++)
            bufs[i][src_buf][k] = pattern((uint32_t)i, k);
    }
    if ((status = rtopo__sched_validate_exec(s)) ||
        (status = rtopo__sim_exec_valid(s, (uint8_t *const *const *)bufs, size)))
        goto out;
    for (i = 0; i < t->p && ok; i++) {
        int pos, line = rtopo__cart_line(t, (int)o->dim, i, &pos);
        int d = rtopo__dimshift_disp(t, &ds, line);
        int dst = rtopo__cart_member(t, (int)o->dim, line, (pos + d) % E);

        if (line < 0 || d < 0 || dst < 0) {
            status = line < 0 ? line : d < 0 ? d : dst;
            goto out;
        }
        for (k = 0; k < cb; k++)
            if (bufs[dst][RTOPO__BUF_RECV][k] != pattern((uint32_t)i, k)) {
                ok = 0;
                break;
            }
    }
    *cbytes_p = cb;
    *ok_p = ok;
out:
    free(bufs);
    free(ptr);
    free(mem);
    rtopo__sched_free(cs);
    return status;
}

/* the line displacements: "1 on every line", or the first few */
static void dim_print_disps(const dim_opts_t *o, const rtopo__dimshift_t *ds, int json)
{
    const rtopo__tdesc_t *t = &o->topo;
    int nl = rtopo__cart_nlines(t, (int)o->dim), L, same = 1, d0;

    d0 = rtopo__dimshift_disp(t, ds, 0);
    for (L = 1; L < nl; L++)
        if (rtopo__dimshift_disp(t, ds, L) != d0)
            same = 0;
    if (json) {
        if (nl > DIM_LINES_CAP)
            return;
        printf(",\"line_disp\":[");
        for (L = 0; L < nl; L++)
            printf("%s%d", L ? "," : "", rtopo__dimshift_disp(t, ds, L));
        printf("]");
        return;
    }
    if (same) {
        printf("%d on every line", d0);
        return;
    }
    printf("line 0..%d:", nl - 1);
    for (L = 0; L < nl && L < 16; L++)
        printf(" %d", rtopo__dimshift_disp(t, ds, L));
    if (nl > 16)
        printf(" ...");
}

/* one displacement (or rule): build, simulate, check, print */
static int dim_one(const dim_opts_t *o, long a, long b, int first, int *failed)
{
    const rtopo__tdesc_t *t = &o->topo;
    rtopo__dimshift_t ds;
    rtopo__sched_t *s = NULL;
    rtopo__sim_result_t r;
    uint64_t cbytes = 0;
    char label[64];
    int status, ok = -1, E = rtopo__cart_extent(t, (int)o->dim);
    int nl = rtopo__cart_nlines(t, (int)o->dim);

    dim_desc(o, a, b, o->bytes, &ds);
    sim_stage = "building the schedule";
    status = rtopo__sched_shift_dim(t, &ds, &s);
    if (status == RTOPO_ERR_UNSUPPORTED || status == RTOPO_ERR_INVAL) {
        fprintf(stderr, "rtopo-sim: %s\n", rtopo_last_error());
        return 2;
    }
    sim_stage = "simulating the schedule";
    if (!status)
        status = rtopo__sim_run(s, &o->model, &r);
    sim_stage = "checking the data";
    if (!status && o->check)
        status = dim_check(o, s, a, b, &cbytes, &ok);
    sim_stage = "finishing";
    if (!status && sim_draw_path)
        status = o->have_rule ? sim_draw(s, "shift along dimension %ld, line L by %ld*L + %ld",
                                         o->dim, a, b)
                              : sim_draw(s, "shift along dimension %ld by %ld", o->dim, b);
    if (status) {
        fprintf(stderr, "rtopo-sim: shift-dim: %s: %s\n", rtopo_strerror(status),
                rtopo_last_error());
        rtopo__sched_free(s);
        return 1;
    }
    if (ok == 0)
        *failed = 1;
    topo_label(t, label, sizeof(label));
    if (o->json) {
        if (o->all_disp && !first)
            printf(",\n");
        printf("{\"op\":\"shift-dim\",\"topo\":\"%s\",\"p\":%d,\"dim\":%ld,\"extent\":%d,"
               "\"lines\":%d,", label, t->p, o->dim, E, nl);
        if (o->have_rule)
            printf("\"rule\":{\"a\":%ld,\"b\":%ld}", a, b);
        else
            printf("\"disp\":%ld,\"disp_mod_e\":%d", b, rtopo__dimshift_disp(t, &ds, 0));
        dim_print_disps(o, &ds, 1);
        printf(",\"inplace\":%s", ds.chunk ? "true" : "false");
        if (ds.chunk)
            printf(",\"piece\":%llu,\"slots\":%u,\"tmp_bytes\":%llu",
                   (unsigned long long)ds.chunk, ds.slots, (unsigned long long)s->tmp_bytes);
        printf(",\"bytes\":%llu,\"transfers\":%u,\"steps\":%u,\"max_link_load\":%u,"
               "\"longest_path\":%u,\"model_time\":%.9g,\"model_time_sf\":%.9g,\"moves\":{",
               (unsigned long long)o->bytes, s->nxfers, r.steps, r.max_link_load,
               r.longest_path, r.model_time, r.model_time_sf);
        print_moves(stdout, &r, 1);
        printf("}");
        if (sim_hosts_print(stdout, &o->hosts, s, &r, 1))
            *failed = 1;
        if (o->check)
            printf(",\"correct\":%s,\"check_bytes\":%llu", ok ? "true" : "false",
                   (unsigned long long)cbytes);
        if (o->rounds || (!o->all_disp && s->nhops <= SIM_ROUNDS_CAP))
            print_rounds(stdout, s, 1);
        printf("}");
        if (!o->all_disp)
            printf("\n");
    } else if (o->all_disp) {
        printf("%6ld  %5u  %4u  %7u  %14.3f  %14.3f", b, r.steps, r.max_link_load,
               r.longest_path, r.model_time * 1e6, r.model_time_sf * 1e6);
        if (o->check)
            printf("  %7s", ok ? "yes" : "NO");
        printf("  ");
        print_moves(stdout, &r, 0);
        printf("\n");
        if (o->rounds)
            print_rounds(stdout, s, 0);
    } else {
        printf("shift along dimension %ld of %s, %llu bytes per rank\n", o->dim, label,
               (unsigned long long)o->bytes);
        printf("lines           %d of %d ranks: %s\n", nl, E, dim_lines_name(t, (int)o->dim));
        if (o->have_rule)
            printf("rule            %ld*line + %ld (mod %d): ", a, b, E);
        else
            printf("displacement    %ld (mod %d): ", b, E);
        dim_print_disps(o, &ds, 0);
        printf("\n");
        if (ds.chunk)
            printf("in place        pieces of %llu bytes through %u TMP slots (%llu bytes "
                   "of TMP at most per rank)\n", (unsigned long long)ds.chunk, ds.slots,
                   (unsigned long long)s->tmp_bytes);
        printf("steps           %u\n", r.steps);
        printf("max link load   %u\n", r.max_link_load);
        printf("longest path    %u link%s\n", r.longest_path,
               r.longest_path == 1 ? "" : "s");
        printf("moves           ");
        print_moves(stdout, &r, 0);
        printf("\n");
        printf("model time      %.3f us event by event (cut-through, %d port%s), "
               "%.3f us lock-step store-and-forward\n", r.model_time * 1e6,
               o->model.ports, o->model.ports == 1 ? "" : "s", r.model_time_sf * 1e6);
        if (sim_hosts_print(stdout, &o->hosts, s, &r, 0))
            *failed = 1;
        if (o->check)
            printf("correct         %s (%llu bytes per rank moved)\n",
                   ok ? "yes" : "no", (unsigned long long)cbytes);
        if (o->rounds)
            print_rounds(stdout, s, 0);
    }
    rtopo__sched_free(s);
    return 0;
}

static int dim_opt_rule(void *opts, const char *arg)
{
    dim_opts_t *o = opts;
    const char *comma = strchr(arg, ',');
    char *a;
    int ok;

    if (!comma)
        return bad("--rule '%s': expected A,B (line L shifts by A*L + B)", arg);
    if (!(a = strndup(arg, (size_t)(comma - arg)))) {
        fprintf(stderr, "rtopo-sim: out of memory\n");
        return 1;
    }
    ok = !parse_int(a, &o->a) && !parse_int(comma + 1, &o->b) && o->a >= INT32_MIN &&
         o->a <= INT32_MAX && o->b >= INT32_MIN && o->b <= INT32_MAX;
    free(a);
    if (!ok)
        return bad("--rule '%s': A and B must be integers (int range)", arg);
    return 0;
}

static const sim_opt_t dim_optab[] = {
    SIM_STR(dim_opts_t, "topo", topo_str, SIM_NONE),
    SIM_INT(dim_opts_t, "dim", dim, SIM_HAVE(dim_opts_t, have_dim), 0, RTOPO__MAX_DIMS - 1,
            "--dim '%s': a dimension number (0, 1, ...)"),
    SIM_INT(dim_opts_t, "disp", disp, SIM_HAVE(dim_opts_t, have_disp), INT32_MIN, INT32_MAX,
            "--disp '%s': an integer (int range)"),
    { "rule", SIM_OPT_FN, 1, 0, 0, SIM_HAVE(dim_opts_t, have_rule), 0, 0, NULL, dim_opt_rule },
    SIM_FLAG(dim_opts_t, "all-disp", all_disp, SIM_NONE),
    SIM_BYTES(dim_opts_t, "bytes", bytes, SIM_NONE, 0, 1ll << 46,
              "--bytes '%s': expected a byte count up to 2^46 (K, M, G suffixes)"),
    SIM_FLAG(dim_opts_t, "inplace", inplace, SIM_NONE),
    SIM_BYTES(dim_opts_t, "piece", piece, SIM_NONE, 1, -1,
              "--piece '%s': a byte count of at least 1"),
    SIM_INT(dim_opts_t, "slots", slots, SIM_NONE, 1, 1024, "--slots '%s': 1 to 1024"),
    SIM_MODEL(dim_opts_t, "model", model),
    SIM_FLAG(dim_opts_t, "check", check, SIM_NONE),
    SIM_FLAG(dim_opts_t, "json", json, SIM_NONE),
    SIM_FLAG(dim_opts_t, "rounds", rounds, SIM_NONE),
    SIM_HOSTS_OPTS(dim_opts_t, hosts),
    SIM_HELP_OPT,
};

static int dim_main(int argc, char **argv)
{
    dim_opts_t o;
    int rc, failed = 0, E, modes;
    long d;

    memset(&o, 0, sizeof(o));
    o.bytes = 1 << 20;
    o.slots = DIM_SLOTS;
    rtopo__model_default(&o.model);
    rc = sim_opts_parse(argc, argv, 2, dim_optab, (int)(sizeof(dim_optab) /
                        sizeof(dim_optab[0])), &o, dim_usage);
    if (rc >= 0)
        return rc;
    if (!o.topo_str)
        return bad("shift-dim: --topo is required%s", "");
    if (!o.have_dim)
        return bad("shift-dim: --dim is required%s", "");
    modes = o.have_disp + o.have_rule + o.all_disp;
    if (modes != 1)
        return bad("shift-dim: give one of --disp D, --rule A,B or --all-disp%s", "");
    if ((o.piece || o.slots != DIM_SLOTS) && !o.inplace)
        return bad("--piece and --slots go with --inplace%s", "");
    if ((rc = parse_topo(o.topo_str, 24, &o.topo)))
        return rc;
    if ((E = rtopo__cart_extent(&o.topo, (int)o.dim)) < 0) {
        fprintf(stderr, "rtopo-sim: --dim %ld: %s\n", o.dim, rtopo_last_error());
        return 2;
    }
    if ((rc = sim_hosts_setup(&o.hosts, &o.topo, &o.model)) >= 0)
        return rc;
    if (!o.all_disp) {
        rc = o.have_rule ? dim_one(&o, o.a, o.b, 1, &failed)
                         : dim_one(&o, 0, o.disp, 1, &failed);
        sim_hosts_free(&o.hosts);
        return rc ? rc : failed;
    }
    if (o.hosts.nhosts)
        return bad("shift-dim: --hosts and --host-map go with --disp or --rule, not "
                   "--all-disp%s", "");
    if (o.json) {
        printf("[\n");
    } else {
        char label[64];

        topo_label(&o.topo, label, sizeof(label));
        printf("# shift along dimension %ld of %s (%d lines of %d: %s), %llu bytes per "
               "rank%s\n", o.dim, label, rtopo__cart_nlines(&o.topo, (int)o.dim), E,
               dim_lines_name(&o.topo, (int)o.dim), (unsigned long long)o.bytes,
               o.inplace ? ", in place" : "");
        printf("%6s  %5s  %4s  %7s  %14s  %14s%s  %s\n", "disp", "steps", "load", "longest",
               "model us", "lock-step us", o.check ? "  correct" : "", "moves");
    }
    for (d = 0; d < E; d++) {
        rc = dim_one(&o, 0, d, d == 0, &failed);
        if (rc)
            return rc;
    }
    if (o.json)
        printf("\n]\n");
    return failed;
}

/* ---- otis: the basic operations of Wang and Sahni on the OTIS topologies -- */

/* the paper's operations (seed 004 section 2.x) and the collective of
 * rtopo_sched.h that implements each; shift: SHIFT_FILL, or a circular
 * dimension shift (rtopo__sched_shift_dim) for kinds c, d, g, h; rank:
 * the selection ranks, concentrate, distribute and generalize: the
 * routing operations (rtopo__coll_is_route) */
struct otis_opts;
/* the operation's own arguments in the report: JSON members (json) or
 * text lines (sim_args_* below) */
typedef void otis_args_fn(const struct otis_opts *o, const rtopo__coll_t *c, int json);
static otis_args_fn sim_args_none, sim_args_root, sim_args_window, sim_args_shift,
    sim_args_values, sim_args_blocks, sim_args_bpc, sim_args_sort;
static const struct {
    const char *name;
    int op;                  /* the collective (its descriptor: rtopo__coll_desc) */
    const char *what;
    otis_args_fn *args;
} otis_ops[] = {
    { "broadcast", RTOPO__COLL_BCAST, "data broadcast (2.1)", sim_args_root },
    { "window_broadcast", RTOPO__COLL_WINDOW_BCAST, "window broadcast (2.2)",
      sim_args_window },
    { "prefix_sum", RTOPO__COLL_SCAN, "prefix sum (2.3)", sim_args_none },
    { "data_sum", RTOPO__COLL_ALLREDUCE, "data sum (2.4)", sim_args_none },
    { "shift", RTOPO__COLL_SHIFT_FILL, "shift (2.6)", sim_args_shift },
    { "accumulate", RTOPO__COLL_ACCUMULATE, "data accumulation (2.7)", sim_args_values },
    { "consecutive_sum", RTOPO__COLL_CONSEC_SUM, "consecutive sum (2.8)", sim_args_blocks },
    { "adjacent_sum", RTOPO__COLL_ADJACENT_SUM, "adjacent sum (2.9)", sim_args_values },
    { "rank", RTOPO__COLL_SELECT_RANK, "rank (2.5)", sim_args_none },
    { "concentrate", RTOPO__COLL_CONCENTRATE, "concentrate (2.10)", sim_args_none },
    { "distribute", RTOPO__COLL_DISTRIBUTE, "distribute (2.11)", sim_args_none },
    { "generalize", RTOPO__COLL_GENERALIZE, "generalize (2.12)", sim_args_none },
    { "bpc", RTOPO__COLL_BPC, "BPC permutation (2.13)", sim_args_bpc },
    { "sort", RTOPO__COLL_SORT, "sort (2.14)", sim_args_sort },
    { "random_write", RTOPO__COLL_RANDOM_WRITE, "random access write (2.15)",
      sim_args_none },
    { "random_read", RTOPO__COLL_RANDOM_READ, "random access read (2.15)", sim_args_none },
};
#define OTIS_NOPS ((int)(sizeof(otis_ops) / sizeof(otis_ops[0])))

static const char *const otis_dtype_names[4] = { "int32", "int64", "float", "double" };
static const char *const otis_rop_names[4] = { "sum", "prod", "min", "max" };

typedef struct otis_opts {
    const char *topo_str;
    rtopo__tdesc_t topo;
    int opi;                  /* index in otis_ops */
    rtopo__coll_t c;          /* what is asked: count (elements), dtype, rop,
                                 algo, root, w, dim, mm, chunks */
    int kind;                 /* shift: 'a'..'h', 0 without --kind */
    long s;                   /* shift: the displacement */
    int have_root, have_w, have_kind, have_s, have_dim, have_mm;
    int have_count, have_dtype, have_op, have_chunks, have_record;
    uint64_t record;          /* concentrate, distribute, generalize, the random
                                 access operations, sort: bytes */
    const char *vector;       /* bpc: the vector (rtopo__bpc_parse) */
    int have_vector, have_desc;
    const char *along;        /* --along */
    int circular;             /* shift kinds c, d, g, h */
    int mimd;                 /* --model mimd: electronic_moves is MIMD */
    rtopo__model_t model;     /* --cost */
    int check, json, rounds;
    long plan;                /* --plan R: rank R's plan only (-1: not asked) */
    int have_plan;
    uint64_t seed;
    sim_hosts_t hosts;        /* --hosts, --host-map, --map-by, --place */
} otis_opts_t;

static void otis_usage(FILE *f)
{
    fprintf(f,
"usage: rtopo-sim otis OP --topo otis-mesh:N|otis-hypercube:N [options]\n"
"\n"
"Build the schedule of one of Wang and Sahni's basic operations, count its\n"
"moves the way the paper does and run it under the cost model.  OP:\n"
"  broadcast         RECV of --root reaches every rank\n"
"  window_broadcast  the w x w window at the top left of group --root tiles\n"
"                    every group (OTIS-mesh only)\n"
"  prefix_sum        rank I gets D(0) op ... op D(I), I = G*n + P\n"
"  data_sum          every rank gets D(0) op ... op D(p-1)\n"
"  shift             --kind a..h --s S (below)\n"
"  accumulate        --dim D --m M: the M values D(c + i), i < M, along D\n"
"  adjacent_sum      --dim D --m M: their reduction\n"
"  consecutive_sum   --block M --along X: blocks of M consecutive ranks\n"
"                    along X, rank j of a block reduces element block j\n"
"  rank              every rank gets how many ranks before it are selected\n"
"                    (one int32 flag each; every topology)\n"
"  concentrate       the record of the k-th selected rank goes to rank k\n"
"                    (OTIS topologies only, as the two below)\n"
"  distribute        ranks 0..q send their records to increasing ranks\n"
"  generalize        the same, each record also filling the ranks up to\n"
"                    the next destination (--algo topo: the paper's single\n"
"                    routing; auto: two routings that check the order)\n"
"  bpc               --vector V: rank r's --count elements go to the rank\n"
"                    whose index bits are r's permuted and complemented\n"
"                    (any topology of 2^k ranks)\n"
"  sort              --count K records per rank (--record B bytes, key\n"
"                    --dtype at byte 0, --desc): rank r gets records\n"
"                    r*K .. r*K + K - 1 of the order (every topology)\n"
"  random_write      every rank with a destination >= 0 writes its record\n"
"                    there; of several writers the highest rank wins\n"
"  random_read       every rank with a source >= 0 reads that rank's record\n"
"                    (both: OTIS topologies only)\n"
"\n"
"  --topo T        otis-mesh:N | otis-hypercube:N (N groups of N ranks);\n"
"                  also ring:P, mesh:RxC, hypercube:D (no window_broadcast\n"
"                  or routing, shift with --dim D --s S)\n"
"  --model M       simd (default) or mimd: which count electronic_moves\n"
"                  reports (SIMD: one dimension and direction per step)\n"
"  --count K       elements per rank (default 1)\n"
"  --dtype T       int32 (default), int64, float, double\n"
"  --op O          sum (default), prod, min, max\n"
"  --algo A        auto (default), topo (the paper's), generic\n"
"  --chunks C      pieces the registers are cut into, pipelined (default 1:\n"
"                  whole registers, as the paper; 0: the model picks)\n"
"  --root R        broadcast: the root rank; window_broadcast: the group\n"
"                  (default 0)\n"
"  --window W      window side, dividing sqrt(N) (default 1)\n"
"  --kind K --s S  shift kind and displacement; OTIS-mesh: a Py, b Px, e Gy,\n"
"                  f Gx with zero fill, c Py, d Px, g Gy, h Gx circular;\n"
"                  OTIS-hypercube: a, b P and e, f G zero fill, c, d P and\n"
"                  g, h G circular\n"
"  --dim D --m M   the dimension (coordinates: OTIS-mesh Gx Gy Px Py, OTIS-\n"
"                  hypercube G P) and M; --along gx|gy|px|py (g|p) and\n"
"                  --block M say the same\n"
"  --record B      concentrate, distribute, generalize, random_write,\n"
"                  random_read: bytes per record (default 8; 1 to 1G,\n"
"                  suffixes K, M, G); rank and these take no --count,\n"
"                  --dtype, --op or --chunks.  sort: bytes per record\n"
"                  (default the key's, at least the key's)\n"
"  --vector V      bpc: [A_(k-1), ..., A_0] (-0 negative) or identity,\n"
"                  transpose, reversal (default), shuffle, unshuffle\n"
"  --desc          sort: descending (NaN first; ascending: NaN last)\n"
"  --cost LIST     cost parameters, as --model of shift (rtopo-sim --help)\n"
"  --check         execute on random data (--seed S) and compare every\n"
"                  rank with a serial reference (rank and the routing:\n"
"                  a random selection, or random increasing destinations\n"
"                  for a prefix of random length; RECV and got)\n"
"  --json          one JSON object\n"
"  --rounds        list every transfer of every round\n"
"%s"
"  -h, --help      this text\n"
"\n"
"Exit status: 0 ok, 1 check failed or simulation error, 2 bad arguments.\n",
            sim_hosts_usage);
}

static uint64_t otis_rng(uint64_t *st)
{
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    return *st >> 11;
}

static int otis_is_otis(const rtopo__tdesc_t *t)
{
    return t->kind == RTOPO__TOPO_OTIS_MESH || t->kind == RTOPO__TOPO_OTIS_HYPERCUBE;
}

/* shift kind -> dimension and circular; < 0 if the topology has no such */
static int otis_kind_dim(const rtopo__tdesc_t *t, int kind, int *circular_p)
{
    static const int om_dim[8] = { 3, 2, 3, 2, 1, 0, 1, 0 };
    int k = kind - 'a';

    if (k < 0 || k > 7 || !otis_is_otis(t))
        return -1;
    *circular_p = (k / 2) % 2;   /* a b fill, c d circular, e f fill, g h circular */
    if (t->kind == RTOPO__TOPO_OTIS_MESH)
        return om_dim[k];
    return k < 4 ? 1 : 0;
}

static int otis_reduces(int op)
{
    return (rtopo__coll_desc(op)->flags & RTOPO__CF_REDUCE) != 0;
}

static void sim_args_none(const otis_opts_t *o, const rtopo__coll_t *c, int json)
{
}

static void sim_args_root(const otis_opts_t *o, const rtopo__coll_t *c, int json)
{
    if (json)
        printf("\"root\":%d,", c->root);
    else
        printf("root            rank %d\n", c->root);
}

static void sim_args_window(const otis_opts_t *o, const rtopo__coll_t *c, int json)
{
    if (json)
        printf("\"root\":%d,\"window\":%d,", c->root, c->w);
    else
        printf("window          %d x %d of group %d\n", c->w, c->w, c->root);
}

static void sim_args_shift(const otis_opts_t *o, const rtopo__coll_t *c, int json)
{
    if (json) {
        if (o->kind)
            printf("\"kind\":\"%c\",", o->kind);
        printf("\"dim\":%d,\"s\":%ld,\"circular\":%s,", c->dim, o->s,
               o->circular ? "true" : "false");
        return;
    }
    printf("shift           ");
    if (o->kind)
        printf("(%c) ", o->kind);
    printf("%ld along dimension %d, %s\n", o->s, c->dim,
           o->circular ? "circular" : "zero fill");
}

static void sim_args_values(const otis_opts_t *o, const rtopo__coll_t *c, int json)
{
    if (json)
        printf("\"dim\":%d,\"m\":%d,", c->dim, c->mm);
    else
        printf("%s M %d along dimension %d\n", "values         ", c->mm, c->dim);
}

static void sim_args_blocks(const otis_opts_t *o, const rtopo__coll_t *c, int json)
{
    if (json)
        printf("\"dim\":%d,\"m\":%d,", c->dim, c->mm);
    else
        printf("%s M %d along dimension %d\n", "blocks         ", c->mm, c->dim);
}

static void sim_args_bpc(const otis_opts_t *o, const rtopo__coll_t *c, int json)
{
    if (json)
        printf("\"vector\":\"%s\",", o->vector);
    else
        printf("vector          %s\n", o->vector);
}

static void sim_args_sort(const otis_opts_t *o, const rtopo__coll_t *c, int json)
{
    if (json)
        printf("\"record\":%zu,\"desc\":%s,", c->esize, c->desc ? "true" : "false");
    else
        printf("records         %zu bytes, keyed by %s, %s\n", c->esize,
               otis_dtype_names[c->dtype], c->desc ? "descending" : "ascending");
}

/* the collective of o with `count` elements (byte ops: bytes; the
 * routing operations: one record of `count` bytes; rank: one flag) */
static void otis_coll(const otis_opts_t *o, uint64_t count, rtopo__coll_t *c)
{
    size_t es = rtopo__dtype_size(o->c.dtype);

    *c = o->c;
    c->op = otis_ops[o->opi].op;
    c->esize = es;
    c->count = count;
    if (c->op == RTOPO__COLL_BPC) {
        int k = 0;

        while ((1 << k) < o->topo.p && k < 30)
            k++;
        c->count = count * es;
        c->esize = 1;
        if (rtopo__bpc_parse(o->vector, k, c))
            c->bpc_bits = -1;       /* refused by the build, with the parse's message */
        return;
    }
    /* the whole graph of a broadcast, scan, allreduce or sort without its
     * edges held (bare, then deferred by otis_build): the run infers them
     * as it goes, and a winner whose time `auto` knows is not run at all
     * but with --check */
    if (c->op == RTOPO__COLL_BCAST || c->op == RTOPO__COLL_WINDOW_BCAST ||
        c->op == RTOPO__COLL_SCAN || c->op == RTOPO__COLL_ALLREDUCE ||
        c->op == RTOPO__COLL_SORT)
        c->bare = !c->own;
    if (c->op == RTOPO__COLL_SORT) {
        c->esize = o->have_record ? (size_t)o->record : es;
        c->chunks = 1;
        return;
    }
    if (rtopo__coll_is_route(c->op)) {
        /* the routings' whole graph (random accesses, concentrate,
         * distribute, generalize) without its edges held: the simulator
         * infers them as it runs it */
        if (c->op != RTOPO__COLL_SELECT_RANK)
            c->bare = !c->own;
        c->count = 1;
        c->esize = c->op == RTOPO__COLL_SELECT_RANK ? 1 : (size_t)count;
        c->dtype = RTOPO_INT64;
        c->chunks = 1;
    } else if (c->op == RTOPO__COLL_SHIFT_FILL || c->op == RTOPO__COLL_ACCUMULATE) {
        c->count = count * es;
        c->esize = 1;
    }
}

/* build the operation's schedule with `count` elements per rank */
static int otis_build(const otis_opts_t *o, uint64_t count, rtopo__sched_t **s_p)
{
    rtopo__coll_t c;
    int st;

    otis_coll(o, count, &c);
    if (o->circular) {
        rtopo__dimshift_t ds;

        memset(&ds, 0, sizeof(ds));
        ds.dim = c.dim;
        ds.b = o->s;
        ds.bytes = count * rtopo__dtype_size(o->c.dtype);
        st = rtopo__sched_shift_dim(&o->topo, &ds, s_p);
        if (!st && c.own && (st = rtopo__sched_own(*s_p, c.own - 1))) {
            rtopo__sched_free(*s_p);
            *s_p = NULL;
        }
        return st;
    }
    if ((st = rtopo__sched_coll(&o->topo, &c, &o->model, s_p)))
        return st;
    /* built bare: a graph holding no edges is run with those inferred */
    if (c.bare && !(*s_p)->inferred && !(*s_p)->ndeps)
        (*s_p)->deferred = 1;
    return st;
}

/* the scan of one int64 with the topology's algorithm: the prefix sum a
 * concentrate starts with (the selection ranks); its moves in *mv */
static int otis_rank_moves(const otis_opts_t *o, rtopo__moves_t *mv)
{
    rtopo__coll_t c;
    rtopo__sched_t *s = NULL;
    int st;

    memset(&c, 0, sizeof(c));
    c.op = RTOPO__COLL_SCAN;
    c.algo = RTOPO_COLL_TOPO;
    c.dtype = RTOPO_INT64;
    c.rop = RTOPO_SUM;
    c.count = 1;
    c.esize = 8;
    c.chunks = 1;
    if ((st = rtopo__sched_coll(&o->topo, &c, &o->model, &s)))
        return st;
    rtopo__sched_moves(s, mv);
    rtopo__sched_free(s);
    return RTOPO_OK;
}

/* The random input of rank and the routing operations: a selection (each
 * rank with one probability drawn first; a selected rank's flag any odd
 * int32) in SEND (rank) or TMP[0, 4) (concentrate); destinations in
 * TMP[0, 8): ranks 0..q, q + 1 drawn from 0..p, to random increasing
 * ranks, the other ranks negative. */
static void otis_route_input(const rtopo__coll_t *c, const rtopo__tdesc_t *t,
                             uint8_t *const *const *bufs, uint64_t *rng)
{
    int p = t->p, r, i = 0;
    uint64_t prob = otis_rng(rng) % 101, need;

    if (c->op == RTOPO__COLL_SELECT_RANK || c->op == RTOPO__COLL_CONCENTRATE) {
        for (r = 0; r < p; r++) {
            int32_t f = otis_rng(rng) % 100 < prob ? (int32_t)(uint32_t)(otis_rng(rng) | 1) : 0;

            memcpy(bufs[r][c->op == RTOPO__COLL_SELECT_RANK ? RTOPO__BUF_SEND :
                           RTOPO__BUF_TMP], &f, sizeof f);
        }
        return;
    }
    if (c->op == RTOPO__COLL_RANDOM_WRITE || c->op == RTOPO__COLL_RANDOM_READ) {
        /* any rank (collisions come often), with one probability each */
        for (r = 0; r < p; r++) {
            int64_t d = otis_rng(rng) % 100 < prob ? (int64_t)(otis_rng(rng) % (uint64_t)p) :
                        -1 - (int64_t)(otis_rng(rng) % 1000);

            memcpy(bufs[r][RTOPO__BUF_TMP], &d, sizeof d);
        }
        return;
    }
    for (r = 0; r < p; r++) {
        int64_t d = -1 - (int64_t)(otis_rng(rng) % 1000);

        memcpy(bufs[r][RTOPO__BUF_TMP], &d, sizeof d);
    }
    /* selection sampling: `need` of the ranks r..p-1, in order */
    need = otis_rng(rng) % (uint64_t)(p + 1);
    for (r = 0; r < p && need > 0; r++)
        if (otis_rng(rng) % (uint64_t)(p - r) < need) {
            int64_t d = r;

            memcpy(bufs[i++][RTOPO__BUF_TMP], &d, sizeof d);
            need--;
        }
}

/* Run s on random data and compare every rank's RECV with the serial
 * reference (rtopo__coll_ref), or for a circular shift with the data of
 * the rank s places back along the line; the routing operations also
 * their got (TMP[8, 12), *landed_p: the ranks that got a record).
 * Payloads above SIM_CHECK_CAP over all ranks are checked with fewer
 * elements, or smaller records (*ccount_p).  res (may be NULL): also
 * s's run under the model (rtopo__sim_run), made in the same run of the
 * graph as the data's where the check runs s itself. */
static int otis_check(const otis_opts_t *o, const rtopo__sched_t *s, uint64_t *ccount_p,
                      int *ok_p, int *landed_p, rtopo__sim_result_t *res)
{
    const rtopo__tdesc_t *t = &o->topo;
    rtopo__sched_t *cs = NULL;
    rtopo__coll_t c;
    uint64_t count = o->c.count, size[RTOPO__BUF_COUNT], per, k, st_rng = o->seed;
    uint8_t *mem = NULL, **ptr = NULL, ***bufs = NULL, **out = NULL;
    size_t es = rtopo__dtype_size(o->c.dtype);
    int status = RTOPO_OK, r, ok = 1, landed = 0;
    int32_t *got = NULL;

    otis_coll(o, count, &c);
    per = 2 * rtopo__coll_send_bytes(&c) + 2 * rtopo__coll_recv_bytes(&c) + s->tmp_bytes;
    while (count > 1 && per * (uint64_t)t->p > SIM_CHECK_CAP) {
        count /= 2;
        otis_coll(o, count, &c);
        per = 2 * rtopo__coll_send_bytes(&c) + 2 * rtopo__coll_recv_bytes(&c);
    }
    if (count != o->c.count) {
        /* the run of the schedule asked for, then the check's own */
        if (res && (status = rtopo__sim_run(s, &o->model, res)))
            return status;
        res = NULL;
        if ((status = otis_build(o, count, &cs)))
            return status;
        s = cs;
    }
    size[RTOPO__BUF_SEND] = rtopo__coll_send_bytes(&c);
    size[RTOPO__BUF_RECV] = rtopo__coll_recv_bytes(&c);
    size[RTOPO__BUF_TMP] = s->tmp_bytes;
    if (o->circular)
        size[RTOPO__BUF_SEND] = size[RTOPO__BUF_RECV] = count * es;
    per = 2 * size[RTOPO__BUF_SEND] + 2 * size[RTOPO__BUF_RECV] + size[RTOPO__BUF_TMP];
    if (per * (uint64_t)t->p > 16 * SIM_CHECK_CAP) {
        status = rtopo__error(RTOPO_ERR_NOMEM, "%d ranks need %llu bytes each to check",
                              t->p, (unsigned long long)per);
        goto out;
    }
    mem = malloc((size_t)(per * (uint64_t)t->p) + 1);
    ptr = malloc((size_t)t->p * RTOPO__BUF_COUNT * sizeof(*ptr));
    bufs = malloc((size_t)t->p * sizeof(*bufs));
    out = malloc((size_t)t->p * sizeof(*out));
    if (!mem || !ptr || !bufs || !out) {
        status = rtopo__error(RTOPO_ERR_NOMEM, "check buffers for %d ranks", t->p);
        goto out;
    }
    for (r = 0; r < t->p; r++) {
        uint8_t *base = mem + (size_t)r * per;

        bufs[r] = ptr + (size_t)r * RTOPO__BUF_COUNT;
        bufs[r][RTOPO__BUF_SEND] = base;
        bufs[r][RTOPO__BUF_RECV] = base + size[RTOPO__BUF_SEND];
        bufs[r][RTOPO__BUF_TMP] = base + size[RTOPO__BUF_SEND] + size[RTOPO__BUF_RECV];
        out[r] = bufs[r][RTOPO__BUF_TMP] + size[RTOPO__BUF_TMP];
        /* exact values for the reductions (small integers; products of
         * -1, 1, 2): any order of combining gives the same bytes */
        if (otis_reduces(c.op)) {
            for (k = 0; k + es <= size[RTOPO__BUF_SEND]; k += es) {
                long v = c.rop == RTOPO_SUM ? (long)(otis_rng(&st_rng) % 17) - 8 :
                         c.rop == RTOPO_PROD ? (long)(otis_rng(&st_rng) % 3) - 1 :
                         (long)(otis_rng(&st_rng) % 201) - 100;

                if (c.rop == RTOPO_PROD && !v)
                    v = 2;
                switch (c.dtype) {
                case RTOPO_INT32: { int32_t x = (int32_t)v; memcpy(base + k, &x, es); break; }
                case RTOPO_INT64: { int64_t x = v; memcpy(base + k, &x, es); break; }
                case RTOPO_FLOAT: { float x = (float)v; memcpy(base + k, &x, es); break; }
                default: { double x = (double)v; memcpy(base + k, &x, es); break; }
                }
            }
        } else {
            for (k = 0; k < size[RTOPO__BUF_SEND]; k++)
                base[k] = (uint8_t)otis_rng(&st_rng);
        }
        for (k = 0; k < size[RTOPO__BUF_RECV]; k++)
            bufs[r][RTOPO__BUF_RECV][k] = (uint8_t)otis_rng(&st_rng);
        memset(bufs[r][RTOPO__BUF_TMP], 0xEE, (size_t)size[RTOPO__BUF_TMP]);
    }
    if (rtopo__coll_is_route(c.op)) {
        otis_route_input(&c, t, (uint8_t *const *const *)bufs, &st_rng);
        if (c.op != RTOPO__COLL_SELECT_RANK) {
            if (!(got = malloc(sizeof(*got) * (size_t)t->p))) {
                status = rtopo__error(RTOPO_ERR_NOMEM, "check buffers for %d ranks", t->p);
                goto out;
            }
            if ((status = rtopo__coll_ref_got(t, &c, (uint8_t *const *const *)bufs, got)))
                goto out;
        }
    }
    if (o->circular) {
        /* a direct serial circular shift: position x moves to x + s mod E */
        int E = rtopo__cart_extent(t, c.dim);
        long d = ((o->s % E) + E) % E;

        for (r = 0; r < t->p; r++) {
            int pos, line = rtopo__cart_line(t, c.dim, r, &pos);
            int dst = rtopo__cart_member(t, c.dim, line, (int)((pos + d) % E));

            if (line < 0 || dst < 0) {
                status = line < 0 ? line : dst;
                goto out;
            }
            memcpy(out[dst], bufs[r][RTOPO__BUF_SEND], (size_t)size[RTOPO__BUF_RECV]);
        }
    } else if ((status = rtopo__coll_ref(t, &c, (uint8_t *const *const *)bufs, out))) {
        goto out;
    }
    if ((status = rtopo__sched_validate_exec(s)) ||
        (status = res ? rtopo__sim_run_exec_valid(s, &o->model,
                                                  (uint8_t *const *const *)bufs, size, res) :
                  rtopo__sim_exec_valid(s, (uint8_t *const *const *)bufs, size)))
        goto out;
    for (r = 0; r < t->p && ok; r++)
        if (memcmp(bufs[r][RTOPO__BUF_RECV], out[r], (size_t)size[RTOPO__BUF_RECV]))
            ok = 0;
    for (r = 0; got && r < t->p && ok; r++) {
        int32_t g;

        memcpy(&g, bufs[r][RTOPO__BUF_TMP] + 8, sizeof g);
        ok = g == got[r];
        landed += g == 1;
    }
    *ccount_p = count;
    *ok_p = ok;
    *landed_p = landed;
out:
    free(got);
    free(out);
    free(bufs);
    free(ptr);
    free(mem);
    rtopo__sched_free(cs);
    return status;
}

/* the bytes a schedule holds */
static uint64_t sched_bytes(const rtopo__sched_t *s)
{
    return sizeof(*s) + (uint64_t)s->nxfers * sizeof(*s->xfers) +
           (uint64_t)s->nhops * sizeof(*s->hops) + (uint64_t)s->nkerns * sizeof(*s->kerns) +
           rtopo__kshapes_bytes(s->kshapes) + rtopo__xshapes_bytes(s->xshapes) +
           (uint64_t)s->deps_cap * sizeof(*s->deps) +
           (s->tmp_rank ? (uint64_t)s->topo.p * sizeof(*s->tmp_rank) : 0) +
           (s->xid ? (uint64_t)s->nxfers * sizeof(*s->xid) : 0);
}

/* peak resident set of this process, KiB */
static long peak_rss_kib(void)
{
    struct rusage ru;

    return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss;
}

/* --plan R: build what rank R's plan holds, time it, count it */
static int otis_plan(const otis_opts_t *o0)
{
    rtopo__sched_t *s = NULL;
    otis_opts_t po = *o0, *o = &po;
    struct timespec t0, t1;
    long rss0 = peak_rss_kib(), rss1;
    double secs;
    int status;

    po.c.own = (int)o->plan + 1;    /* the plan's share, as the runtime builds it */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    status = otis_build(o, o->c.count, &s);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    rss1 = peak_rss_kib();
    if (status) {
        fprintf(stderr, "rtopo-sim: otis %s: %s: %s\n", otis_ops[o->opi].name,
                rtopo_strerror(status), rtopo_last_error());
        return status == RTOPO_ERR_UNSUPPORTED || status == RTOPO_ERR_INVAL ? 2 : 1;
    }
    secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (o->json)
        printf("{\"op\": \"%s\", \"ranks\": %d, \"rank\": %ld, \"algo\": \"%s\", "
               "\"build_s\": %.6f, \"xfers\": %u, \"hops\": %u, \"kernels\": %u, "
               "\"edges\": %u, \"bytes\": %llu, \"rss_growth_kib\": %ld}\n",
               otis_ops[o->opi].name, o->topo.p, o->plan,
               rtopo__coll_algo_name(s->algo), secs, s->nxfers, s->nhops, s->nkerns,
               s->ndeps, (unsigned long long)sched_bytes(s), rss1 - rss0);
    else
        printf("plan of rank %ld: %s on %d ranks, %s: %.3f s, %u transfers, %u hops, "
               "%u kernels, %u edges, %llu bytes, peak RSS +%ld KiB\n", o->plan,
               otis_ops[o->opi].name, o->topo.p, rtopo__coll_algo_name(s->algo), secs,
               s->nxfers, s->nhops, s->nkerns, s->ndeps,
               (unsigned long long)sched_bytes(s), rss1 - rss0);
    rtopo__sched_free(s);
    return 0;
}

static int otis_one(const otis_opts_t *o)
{
    const rtopo__tdesc_t *t = &o->topo;
    rtopo__sched_t *s = NULL;
    rtopo__sim_result_t r;
    rtopo__moves_t mv, rmv;
    rtopo__coll_t c;
    uint64_t ccount = 0;
    char label[64];
    const char *algo;
    int status, ok = -1, ec, rec, landed = 0, route;

    otis_coll(o, o->c.count, &c);
    route = rtopo__coll_is_route(c.op);
    rec = route && c.op != RTOPO__COLL_SELECT_RANK;   /* one record per rank */
    memset(&rmv, 0, sizeof(rmv));
    sim_stage = "building the schedule";
    status = otis_build(o, o->c.count, &s);
    if (status == RTOPO_ERR_UNSUPPORTED || status == RTOPO_ERR_INVAL) {
        fprintf(stderr, "rtopo-sim: otis %s: %s\n", otis_ops[o->opi].name,
                rtopo_last_error());
        return 2;
    }
    /* with --check the run and the check's data movement are one run of
     * the graph where they can be (rtopo__sim_run_exec) */
    sim_stage = "simulating the schedule";
    if (!status && !o->check)
        status = rtopo__sim_run(s, &o->model, &r);
    sim_stage = "simulating the schedule and checking the data";
    if (!status && o->check)
        status = otis_check(o, s, &ccount, &ok, &landed, &r);
    sim_stage = "finishing";
    if (!status && c.op == RTOPO__COLL_CONCENTRATE)
        status = otis_rank_moves(o, &rmv);
    if (!status && sim_draw_path)
        status = sim_draw(s, "%s, %s algorithm", otis_ops[o->opi].what,
                          o->circular ? "shift-dim" : rtopo__coll_algo_name(s->algo));
    if (status) {
        fprintf(stderr, "rtopo-sim: otis %s: %s: %s\n", otis_ops[o->opi].name,
                rtopo_strerror(status), rtopo_last_error());
        rtopo__sched_free(s);
        return 1;
    }
    rtopo__sched_moves(s, &mv);
    ec = (int)(o->mimd ? mv.electronic : mv.electronic_simd);
    algo = o->circular ? "shift-dim" : rtopo__coll_algo_name(s->algo);
    topo_label(t, label, sizeof(label));
    if (o->json) {
        printf("{\"op\":\"%s\",\"coll\":\"%s\",\"topo\":\"%s\",", otis_ops[o->opi].name,
               o->circular ? "shift_circular" : rtopo__coll_name(c.op), label);
        if (otis_is_otis(t))
            printf("\"n\":%d,", t->n);
        else
            printf("\"n\":null,");
        if (rec)
            printf("\"p\":%d,\"count\":1,\"dtype\":null,\"bytes\":%zu,\"record\":%zu,", t->p,
                   c.esize, c.esize);
        else if (route)
            printf("\"p\":%d,\"count\":1,\"dtype\":\"int32\",\"bytes\":4,", t->p);
        else
            printf("\"p\":%d,\"count\":%llu,\"dtype\":\"%s\",\"bytes\":%llu,", t->p,
                   (unsigned long long)o->c.count, otis_dtype_names[o->c.dtype],
                   (unsigned long long)(c.count * c.esize));
        if (otis_reduces(c.op))
            printf("\"reduce\":\"%s\",", otis_rop_names[c.rop]);
        otis_ops[o->opi].args(o, &c, 1);
        printf("\"algo\":\"%s\",\"algo_requested\":\"%s\",\"chunks\":%u,\"model\":\"%s\","
               "\"electronic_moves\":%d,\"otis_moves\":%u,\"other_moves\":%u,"
               "\"electronic\":%u,\"electronic_simd\":%u,\"steps\":%u,\"transfers\":%u,"
               "\"kernels\":%u,\"tmp_bytes\":%llu,\"max_link_load\":%u,\"longest_path\":%u,"
               "\"model_time\":%.9g,\"model_time_sf\":%.9g,\"hops\":{", algo,
               o->circular ? "shift-dim" : rtopo__coll_algo_name(o->c.algo), o->c.chunks,
               o->mimd ? "mimd" : "simd", ec, mv.otis, mv.other, mv.electronic,
               mv.electronic_simd, s->nsteps, s->nxfers, s->nkerns,
               (unsigned long long)s->tmp_bytes, r.max_link_load, r.longest_path,
               r.model_time, r.model_time_sf);
        print_moves(stdout, &r, 1);
        printf("}");
        if (c.op == RTOPO__COLL_CONCENTRATE)
            printf(",\"rank_electronic_moves\":%u,\"rank_otis_moves\":%u",
                   o->mimd ? rmv.electronic : rmv.electronic_simd, rmv.otis);
        if (sim_hosts_print(stdout, &o->hosts, s, &r, 1))
            ok = 0;
        printf(",\"correct\":%d", ok);
        if (o->check && rec)
            printf(",\"check_count\":1,\"check_record\":%llu,\"check_got\":%d,"
                   "\"seed\":%llu", (unsigned long long)ccount, landed,
                   (unsigned long long)o->seed);
        else if (o->check)
            printf(",\"check_count\":%llu,\"seed\":%llu", (unsigned long long)ccount,
                   (unsigned long long)o->seed);
        if (o->rounds || s->nhops <= SIM_ROUNDS_CAP)
            print_rounds(stdout, s, 1);
        printf("}\n");
    } else {
        if (rec)
            printf("%s on %s (%d ranks), one record of %zu byte%s per rank",
                   otis_ops[o->opi].what, label, t->p, c.esize, c.esize == 1 ? "" : "s");
        else if (route)
            printf("%s on %s (%d ranks), one int32 flag per rank", otis_ops[o->opi].what,
                   label, t->p);
        else
            printf("%s on %s (%d ranks), %llu %s per rank", otis_ops[o->opi].what, label,
                   t->p, (unsigned long long)o->c.count, otis_dtype_names[o->c.dtype]);
        if (otis_reduces(c.op))
            printf(", %s", otis_rop_names[c.rop]);
        printf("\n");
        otis_ops[o->opi].args(o, &c, 0);
        if (o->circular)
            printf("algorithm       shift-dim (circular dimension shift)\n");
        else
            printf("algorithm       %s (requested %s), %u piece%s%s\n", algo,
                   rtopo__coll_algo_name(o->c.algo), o->c.chunks, o->c.chunks == 1 ? "" : "s",
                   o->c.chunks ? "" : " (the model picks)");
        printf("moves (%s)    %d electronic, %u OTIS", o->mimd ? "MIMD" : "SIMD", ec,
               mv.otis);
        if (mv.other)
            printf(", %u other", mv.other);
        printf("   (electronic: %u SIMD, %u MIMD)\n", mv.electronic_simd, mv.electronic);
        if (c.op == RTOPO__COLL_CONCENTRATE)
            printf("rank part       %u electronic, %u OTIS (the prefix sum of the selection; "
                   "the routing: the rest)\n", o->mimd ? rmv.electronic : rmv.electronic_simd,
                   rmv.otis);
        printf("steps           %u\n", s->nsteps);
        printf("transfers       %u, %u kernel%s, %llu TMP bytes per rank at most\n",
               s->nxfers, s->nkerns, s->nkerns == 1 ? "" : "s",
               (unsigned long long)s->tmp_bytes);
        printf("max link load   %u\n", r.max_link_load);
        printf("hops            ");
        print_moves(stdout, &r, 0);
        printf("\n");
        printf("model time      %.3f us event by event (cut-through, %d port%s), "
               "%.3f us lock-step store-and-forward\n", r.model_time * 1e6,
               o->model.ports, o->model.ports == 1 ? "" : "s", r.model_time_sf * 1e6);
        if (sim_hosts_print(stdout, &o->hosts, s, &r, 0))
            ok = 0;
        if (o->check && rec)
            printf("correct         %s (records of %llu byte%s, %d rank%s got one, seed "
                   "%llu)\n", ok ? "yes" : "no", (unsigned long long)ccount,
                   ccount == 1 ? "" : "s", landed, landed == 1 ? "" : "s",
                   (unsigned long long)o->seed);
        else if (o->check && route)
            printf("correct         %s (seed %llu)\n", ok ? "yes" : "no",
                   (unsigned long long)o->seed);
        else if (o->check)
            printf("correct         %s (%llu element%s per rank, seed %llu)\n",
                   ok ? "yes" : "no", (unsigned long long)ccount, ccount == 1 ? "" : "s",
                   (unsigned long long)o->seed);
        if (o->rounds)
            print_rounds(stdout, s, 0);
    }
    rtopo__sched_free(s);
    return ok == 0 ? 1 : 0;
}

static int otis_opt_model(void *opts, const char *arg)
{
    otis_opts_t *o = opts;

    if (!strcmp(arg, "simd") || !strcmp(arg, "mimd"))
        o->mimd = arg[0] == 'm';
    else
        return bad("--model '%s': simd or mimd (cost parameters: --cost)", arg);
    return 0;
}

static int otis_opt_dtype(void *opts, const char *arg)
{
    otis_opts_t *o = opts;
    int i;

    for (i = 0; i < 4 && strcmp(arg, otis_dtype_names[i]); i++)
        ;
    if (i == 4)
        return bad("--dtype '%s': int32, int64, float or double", arg);
    o->c.dtype = i;
    return 0;
}

static int otis_opt_op(void *opts, const char *arg)
{
    otis_opts_t *o = opts;
    int i;

    for (i = 0; i < 4 && strcmp(arg, otis_rop_names[i]); i++)
        ;
    if (i == 4)
        return bad("--op '%s': sum, prod, min or max", arg);
    o->c.rop = i;
    return 0;
}

static int otis_opt_algo(void *opts, const char *arg)
{
    otis_opts_t *o = opts;

    if ((o->c.algo = rtopo__coll_algo_parse(arg)) < 0)
        return bad("--algo '%s': auto, topo or generic", arg);
    return 0;
}

static int otis_opt_kind(void *opts, const char *arg)
{
    otis_opts_t *o = opts;

    if (strlen(arg) != 1 || arg[0] < 'a' || arg[0] > 'h')
        return bad("--kind '%s': one of a b c d e f g h", arg);
    o->kind = arg[0];
    return 0;
}

static int otis_opt_seed(void *opts, const char *arg)
{
    otis_opts_t *o = opts;
    long v;

    if (parse_int(arg, &v) || v < 0)
        return bad("--seed '%s': a non-negative integer", arg);
    o->seed = (uint64_t)v ? (uint64_t)v : 1;   /* xorshift needs a non-zero state */
    return 0;
}

#define OTIS_HAVE(f) SIM_HAVE(otis_opts_t, f)
static const sim_opt_t otis_optab[] = {
    SIM_STR(otis_opts_t, "topo", topo_str, SIM_NONE),
    SIM_FN("model", otis_opt_model),
    SIM_INT(otis_opts_t, "count", c.count, OTIS_HAVE(have_count), 0, 1L << 30,
            "--count '%s': 0 to 2^30 elements"),
    { "dtype", SIM_OPT_FN, 1, 0, 0, OTIS_HAVE(have_dtype), 0, 0, NULL, otis_opt_dtype },
    { "op", SIM_OPT_FN, 1, 0, 0, OTIS_HAVE(have_op), 0, 0, NULL, otis_opt_op },
    SIM_FN("algo", otis_opt_algo),
    SIM_INT(otis_opts_t, "chunks", c.chunks, OTIS_HAVE(have_chunks), 0, 1 << 20,
            "--chunks '%s': 0 (the model picks) to 2^20"),
    SIM_INT(otis_opts_t, "root", c.root, OTIS_HAVE(have_root), INT32_MIN, INT32_MAX,
            "--root '%s': an integer"),
    SIM_INT(otis_opts_t, "window", c.w, OTIS_HAVE(have_w), INT32_MIN, INT32_MAX,
            "--window '%s': an integer"),
    { "kind", SIM_OPT_FN, 1, 0, 0, OTIS_HAVE(have_kind), 0, 0, NULL, otis_opt_kind },
    SIM_INT(otis_opts_t, "s", s, OTIS_HAVE(have_s), INT32_MIN, INT32_MAX,
            "--s '%s': an integer (int range)"),
    SIM_INT(otis_opts_t, "dim", c.dim, OTIS_HAVE(have_dim), 0, RTOPO__MAX_DIMS - 1,
            "--dim '%s': a dimension number (0, 1, ...)"),
    SIM_STR(otis_opts_t, "along", along, SIM_NONE),
    SIM_INT(otis_opts_t, "m", c.mm, OTIS_HAVE(have_mm), INT32_MIN, INT32_MAX,
            "--m/--block '%s': an integer"),
    SIM_INT(otis_opts_t, "block", c.mm, OTIS_HAVE(have_mm), INT32_MIN, INT32_MAX,
            "--m/--block '%s': an integer"),
    SIM_BYTES(otis_opts_t, "record", record, OTIS_HAVE(have_record), 1, 1ll << 30,
              "--record '%s': 1 byte to 1G (suffixes K, M, G)"),
    SIM_STR(otis_opts_t, "vector", vector, OTIS_HAVE(have_vector)),
    SIM_FLAG(otis_opts_t, "desc", c.desc, OTIS_HAVE(have_desc)),
    SIM_MODEL(otis_opts_t, "cost", model),
    SIM_FLAG(otis_opts_t, "check", check, SIM_NONE),
    SIM_FLAG(otis_opts_t, "json", json, SIM_NONE),
    SIM_FLAG(otis_opts_t, "rounds", rounds, SIM_NONE),
    { "seed", SIM_OPT_FN, 1, 0, 0, SIM_NONE, 0, 0, NULL, otis_opt_seed },
    SIM_HOSTS_OPTS(otis_opts_t, hosts),
    SIM_INT(otis_opts_t, "plan", plan, OTIS_HAVE(have_plan), 0, INT32_MAX,
            "--plan '%s': a rank"),
    SIM_HELP_OPT,
};
#undef OTIS_HAVE

static int otis_main(int argc, char **argv)
{
    otis_opts_t o;
    const char *along;
    char opname[32];
    int i, rc, op, nd, first;

    memset(&o, 0, sizeof(o));
    o.c.algo = RTOPO_COLL_AUTO;
    o.c.dtype = RTOPO_INT32;
    o.c.rop = RTOPO_SUM;
    o.c.count = 1;
    o.c.chunks = 1;
    o.c.w = 1;
    o.record = 8;
    o.vector = "reversal";
    o.seed = 1;
    o.opi = -1;
    rtopo__model_default(&o.model);
    if (argc >= 3 && argv[2][0] != '-') {
        snprintf(opname, sizeof(opname), "%s", argv[2]);
        for (i = 0; opname[i]; i++)
            if (opname[i] == '-')
                opname[i] = '_';
        for (i = 0; i < OTIS_NOPS; i++)
            if (!strcmp(opname, otis_ops[i].name))
                o.opi = i;
        if (o.opi < 0)
            return bad("otis: unknown operation '%s' (broadcast, window_broadcast, "
                       "prefix_sum, data_sum, shift, accumulate, consecutive_sum, "
                       "adjacent_sum, rank, concentrate, distribute, generalize, bpc, sort, "
                       "random_write, random_read)", argv[2]);
        first = 3;
    } else {
        first = 2;
    }
    rc = sim_opts_parse(argc, argv, first, otis_optab, (int)(sizeof(otis_optab) /
                        sizeof(otis_optab[0])), &o, otis_usage);
    if (rc >= 0)
        return rc;
    along = o.along;
    if (o.opi < 0)
        return bad("otis: give the operation first (rtopo-sim otis --help)%s", "");
    if (!o.topo_str)
        return bad("otis: --topo is required%s", "");
    if ((rc = parse_topo(o.topo_str, 24, &o.topo)))
        return rc;
    op = otis_ops[o.opi].op;
    nd = rtopo__cart_ndims(&o.topo);
    if (along) {
        static const char *const om[4] = { "gx", "gy", "px", "py" };

        if (o.have_dim)
            return bad("--along and --dim name the same thing: give one%s", "");
        for (i = 0; i < 4 && strcmp(along, om[i]); i++)
            ;
        if (o.topo.kind == RTOPO__TOPO_OTIS_MESH && i < 4)
            o.c.dim = i;
        else if (o.topo.kind == RTOPO__TOPO_OTIS_HYPERCUBE &&
                 (i < 4 || !strcmp(along, "g") || !strcmp(along, "p")))
            o.c.dim = i < 4 ? i / 2 : along[0] == 'p';
        else
            return bad("--along '%s': gx, gy, px or py on an OTIS-mesh; g or p (gx, gy "
                       "or px, py) on an OTIS-hypercube", along);
        o.have_dim = 1;
    }
    if (o.have_root && op != RTOPO__COLL_BCAST && op != RTOPO__COLL_WINDOW_BCAST)
        return bad("--root goes with broadcast and window_broadcast%s", "");
    if (o.have_w && op != RTOPO__COLL_WINDOW_BCAST)
        return bad("--window goes with window_broadcast%s", "");
    if ((o.have_kind || o.have_s) && op != RTOPO__COLL_SHIFT_FILL)
        return bad("--kind and --s go with shift%s", "");
    if (o.have_mm && (op <= RTOPO__COLL_SHIFT_FILL || rtopo__coll_is_route(op) ||
                      op == RTOPO__COLL_BPC || op == RTOPO__COLL_SORT))
        return bad("--m/--block go with accumulate, adjacent_sum and consecutive_sum%s", "");
    if (o.have_dim && (op < RTOPO__COLL_SHIFT_FILL || rtopo__coll_is_route(op) ||
                       op == RTOPO__COLL_BPC || op == RTOPO__COLL_SORT))
        return bad("--dim/--along go with shift, accumulate, adjacent_sum and "
                   "consecutive_sum%s", "");
    if (op == RTOPO__COLL_SHIFT_FILL) {
        if (!o.have_s)
            return bad("otis shift: --s S (the displacement) is required%s", "");
        if (o.have_kind) {
            if (o.have_dim)
                return bad("otis shift: --kind names the dimension, no --dim%s", "");
            if ((o.c.dim = otis_kind_dim(&o.topo, o.kind, &o.circular)) < 0)
                return bad("otis shift: --kind needs an OTIS topology (elsewhere: --dim "
                           "D, zero fill)%s", "");
        } else if (!o.have_dim) {
            return bad("otis shift: --kind K (OTIS) or --dim D is required%s", "");
        }
        o.c.disp = (int)o.s;
    }
    if (o.have_record && op != RTOPO__COLL_SORT &&
        (!rtopo__coll_is_route(op) || op == RTOPO__COLL_SELECT_RANK))
        return bad("--record goes with concentrate, distribute, generalize, random_write, "
                   "random_read and sort%s", "");
    if (o.have_vector && op != RTOPO__COLL_BPC)
        return bad("--vector goes with bpc%s", "");
    if (o.have_desc && op != RTOPO__COLL_SORT)
        return bad("--desc goes with sort%s", "");
    if (op == RTOPO__COLL_BPC || op == RTOPO__COLL_SORT) {
        if (o.have_op)
            return bad("otis %s: no --op", otis_ops[o.opi].name);
        if (op == RTOPO__COLL_SORT && o.have_chunks)
            return bad("otis sort: no --chunks (whole records)%s", "");
        if (op == RTOPO__COLL_SORT && o.have_record &&
            o.record < rtopo__dtype_size(o.c.dtype))
            return bad("otis sort: --record is shorter than the --dtype key%s", "");
        if (op == RTOPO__COLL_BPC) {
            rtopo__coll_t pc;
            int k = 0;

            while ((1 << k) < o.topo.p && k < 30)
                k++;
            memset(&pc, 0, sizeof(pc));
            if ((1 << k) != o.topo.p)
                return bad("otis bpc: the topology needs 2^k ranks%s", "");
            if (rtopo__bpc_parse(o.vector, k, &pc)) {
                fprintf(stderr, "rtopo-sim: --vector: %s\n", rtopo_last_error());
                return 2;
            }
        }
    }
    if (rtopo__coll_is_route(op)) {
        if (o.have_count || o.have_dtype || o.have_op || o.have_chunks)
            return bad("otis %s: no --count, --dtype, --op or --chunks (one flag or record "
                       "per rank, whole; --record gives a record's bytes)",
                       otis_ops[o.opi].name);
        o.c.count = op == RTOPO__COLL_SELECT_RANK ? 1 : o.record;
    }
    if (op > RTOPO__COLL_SHIFT_FILL && !rtopo__coll_is_route(op) && op != RTOPO__COLL_BPC &&
        op != RTOPO__COLL_SORT &&
        (!o.have_dim || !o.have_mm))
        return bad("otis %s: --dim D --m M (or --along X --block M) are required",
                   otis_ops[o.opi].name);
    if (o.have_dim && o.c.dim >= nd) {
        fprintf(stderr, "rtopo-sim: --dim %d: the %s has dimensions 0..%d\n", o.c.dim,
                rtopo__topo_name(o.topo.kind), nd - 1);
        return 2;
    }
    if (o.have_plan) {
        if (o.plan >= o.topo.p) {
            fprintf(stderr, "rtopo-sim: --plan %ld: the topology has ranks 0..%d\n",
                    o.plan, o.topo.p - 1);
            return 2;
        }
        if (o.check || o.rounds || sim_draw_path || o.hosts.have_hosts || o.hosts.host_map)
            return bad("--plan builds one rank's plan only: no --check, --rounds, "
                       "--draw or host options%s", "");
        return otis_plan(&o);
    }
    if ((rc = sim_hosts_setup(&o.hosts, &o.topo, &o.model)) >= 0)
        return rc;
    rc = otis_one(&o);
    sim_hosts_free(&o.hosts);
    return rc;
}

static int shift_opt_algo(void *opts, const char *arg)
{
    sim_opts_t *o = opts;

    o->algo = rtopo__shift_algo_parse(arg);
    if (o->algo < 0)
        return bad("--algo '%s': expected auto, ring, mesh, hypercube, "
                   "ecube or direct", arg);
    return 0;
}

static const sim_opt_t shift_optab[] = {
    SIM_STR(sim_opts_t, "topo", topo_str, SIM_NONE),
    SIM_INT(sim_opts_t, "q", q, SIM_HAVE(sim_opts_t, have_q), LONG_MIN, LONG_MAX,
            "--q '%s': not an integer"),
    SIM_FLAG(sim_opts_t, "all-q", all_q, SIM_NONE),
    SIM_FN("algo", shift_opt_algo),
    SIM_BYTES(sim_opts_t, "bytes", bytes, SIM_NONE, 0, -1,
              "--bytes '%s': expected a byte count (K, M, G suffixes)"),
    SIM_MODEL(sim_opts_t, "model", model),
    SIM_FLAG(sim_opts_t, "check", check, SIM_NONE),
    SIM_FLAG(sim_opts_t, "json", json, SIM_NONE),
    SIM_FLAG(sim_opts_t, "rounds", rounds, SIM_NONE),
    SIM_HOSTS_OPTS(sim_opts_t, hosts),
    SIM_HELP_OPT,
};

int main(int argc, char **argv)
{
    sim_opts_t o;
    const char *op;
    int rc, failed = 0;
    long q;

    /* errors are reported here, once, with rtopo_last_error() */
    rtopo__log_level = RTOPO__LOG_ERROR;
    if (getenv("RTOPO_LOG_LEVEL"))
        rtopo__log_set_level(getenv("RTOPO_LOG_LEVEL"));
    memset(&o, 0, sizeof(o));
    o.algo = RTOPO_SHIFT_AUTO;
    o.bytes = 1 << 20;
    rtopo__model_default(&o.model);
    if ((rc = sim_draw_option(&argc, argv)) || (rc = sim_progress_option(&argc, argv)))
        return rc;
    sim_progress_start();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    op = argv[1];
    if (!strcmp(op, "scatter"))
        return scatter_main(argc, argv);
    if (!strcmp(op, "shift-dim"))
        return dim_main(argc, argv);
    if (!strcmp(op, "otis"))
        return otis_main(argc, argv);
    if (strcmp(op, "shift"))
        return bad("unknown operation '%s' (supported: shift, shift-dim, scatter, otis)", op);
    rc = sim_opts_parse(argc, argv, 2, shift_optab, (int)(sizeof(shift_optab) /
                        sizeof(shift_optab[0])), &o, usage);
    if (rc >= 0)
        return rc;
    if (!o.topo_str)
        return bad("%s: --topo is required", op);
    if (o.have_q == o.all_q)
        return bad("%s: give either --q Q or --all-q", op);
    if ((rc = parse_topo(o.topo_str, 24, &o.topo)))
        return rc;
    if ((rc = sim_hosts_setup(&o.hosts, &o.topo, &o.model)) >= 0)
        return rc;
    if (!o.all_q) {
        rc = run_one(&o, o.q, 1, &failed);
        sim_hosts_free(&o.hosts);
        return rc ? rc : failed;
    }
    if (o.hosts.nhosts)
        return bad("%s: --hosts and --host-map go with --q, not --all-q", op);
    if (o.json)
        printf("[\n");
    else
        printf("%6s  %-9s  %5s  %4s  %7s  %14s  %14s%s%s\n", "q", "algo",
               "steps", "load", "longest", "model us", "lock-step us",
               o.check ? "  correct" : "", o.algo == RTOPO_SHIFT_AUTO ?
               "  auto candidates (model us)" : "");
    for (q = 0; q < o.topo.p; q++) {
        rc = run_one(&o, q, q == 0, &failed);
        if (rc)
            return rc;
    }
    if (o.json)
        printf("\n]\n");
    return failed;
}
