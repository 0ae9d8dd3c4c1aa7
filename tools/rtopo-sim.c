/*
 * rtopo-sim - run a collective's schedule under the cost model, without a
 * network, for any number of virtual ranks; optionally execute its data
 * movement in memory and verify it.
 *
 *   rtopo-sim shift --topo T (--q Q | --all-q) [--algo A] [--bytes M]
 *             [--model K=V,...] [--check] [--json] [--rounds]
 *
 * Exit status: 0 success, 1 a check failed or the simulation could not
 * run (out of memory), 2 bad arguments.
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

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
} sim_opts_t;

static void usage(FILE *f)
{
    fprintf(f,
"usage: rtopo-sim shift --topo T (--q Q | --all-q) [options]\n"
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
"  -h, --help      this text\n"
"\n"
"Exit status: 0 ok, 1 check failed or simulation error, 2 bad arguments.\n");
}

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "rtopo-sim: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(try rtopo-sim --help)\n");
    return 2;
}

static int parse_int(const char *s, long *v)
{
    char *end;

    errno = 0;
    *v = strtol(s, &end, 10);
    return errno || end == s || *end ? -1 : 0;
}

static int parse_bytes(const char *s, uint64_t *v)
{
    unsigned long long n;
    char *end;
    int shift = 0;

    if (!s || *s == '-')
        return -1;
    errno = 0;
    n = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (shift && (!strcasecmp(end, "ib") || !strcasecmp(end, "b")))
        end += strlen(end);
    if (!shift && !strcasecmp(end, "b"))
        end++;
    if (*end || (shift && n > (UINT64_MAX >> shift)))
        return -1;
    *v = (uint64_t)n << shift;
    return 0;
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

/* decimal rate with K, M, G (x1000) */
static int parse_rate(const char *s, double *v)
{
    char *end;
    double x;

    errno = 0;
    x = strtod(s, &end);
    if (errno || end == s || x <= 0)
        return -1;
    if (*end == 'k' || *end == 'K')
        x *= 1e3, end++;
    else if (*end == 'm' || *end == 'M')
        x *= 1e6, end++;
    else if (*end == 'g' || *end == 'G')
        x *= 1e9, end++;
    if (*end && strcasecmp(end, "B/s") && strcasecmp(end, "B"))
        return -1;
    *v = x;
    return 0;
}

static int parse_model(char *list, rtopo__model_t *m)
{
    char *save = NULL, *kv;

    for (kv = strtok_r(list, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '='), *key = kv, *dot;
        int lo = 0, hi = RTOPO__LINK_COUNT, c;
        double x;

        if (!eq)
            return bad("--model: '%s' is not KEY=VALUE", kv);
        *eq = '\0';
        dot = strchr(key, '.');
        if (dot) {
            *dot = '\0';
            lo = rtopo__link_parse(key);
            if (lo < 0)
                return bad("--model: unknown link class '%s'", key);
            hi = lo + 1;
            key = dot + 1;
        }
        if (!strcmp(key, "ports")) {
            long n;

            if (dot || parse_int(eq + 1, &n) || n < 0 || n > 1024)
                return bad("--model: bad ports '%s' (0..1024, 0 = no limit, for "
                           "all classes)", eq + 1);
            m->ports = (int)n;
            continue;
        }
        if (!strcmp(key, "tk")) {
            if (dot || parse_time(eq + 1, &x) || x < 0)
                return bad("--model: bad tk '%s' (time per byte a kernel touches)",
                           eq + 1);
            m->tk = x;
            continue;
        }
        if (!strcmp(key, "chunk")) {
            uint64_t b;

            if (dot || parse_bytes(eq + 1, &b) || !b)
                return bad("--model: bad chunk '%s' (bytes > 0, for all "
                           "classes)", eq + 1);
            m->chunk = b;
            continue;
        }
        if (!strcmp(key, "bw")) {
            if (parse_rate(eq + 1, &x))
                return bad("--model: bad bw '%s' (bytes per second)", eq + 1);
            x = 1.0 / x;
            key = "tw";
        } else if (parse_time(eq + 1, &x)) {
            return bad("--model: bad time '%s'", eq + 1);
        }
        for (c = lo; c < hi; c++) {
            /* LOCAL stays free unless named explicitly */
            if (!dot && c == RTOPO__LINK_LOCAL)
                continue;
            if (!strcmp(key, "ts"))
                m->ts[c] = x;
            else if (!strcmp(key, "tw"))
                m->tw[c] = x;
            else if (!strcmp(key, "th"))
                m->th[c] = x;
            else
                return bad("--model: unknown key '%s' (ts, tw, th, bw, chunk)",
                           key);
        }
    }
    return 0;
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
        const rtopo__xfer_t *x = &s->xfers[i];
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
        for (j = 0; j < s->xfers[i].nhops; j++)
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
            const rtopo__xfer_t *x = &s->xfers[owner[idx[i]]];

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
    if (!status)
        status = rtopo__sim_run(s, &o->model, &r);
    if (!status && o->check)
        status = run_check(o, s, q, &cbytes, &ok);
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
        if (o->check)
            printf("correct         %s (%llu bytes per rank moved)\n",
                   ok ? "yes" : "no", (unsigned long long)cbytes);
        if (o->rounds)
            print_rounds(stdout, s, 0);
    }
    rtopo__sched_free(s);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "topo", required_argument, NULL, 't' },
        { "q", required_argument, NULL, 'q' },
        { "all-q", no_argument, NULL, 'A' },
        { "algo", required_argument, NULL, 'a' },
        { "bytes", required_argument, NULL, 'b' },
        { "model", required_argument, NULL, 'm' },
        { "check", no_argument, NULL, 'c' },
        { "json", no_argument, NULL, 'j' },
        { "rounds", no_argument, NULL, 'r' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    sim_opts_t o;
    const char *op;
    int c, rc, failed = 0;
    long q;

    /* errors are reported here, once, with rtopo_last_error() */
    rtopo__log_level = RTOPO__LOG_ERROR;
    if (getenv("RTOPO_LOG_LEVEL"))
        rtopo__log_set_level(getenv("RTOPO_LOG_LEVEL"));
    memset(&o, 0, sizeof(o));
    o.algo = RTOPO_SHIFT_AUTO;
    o.bytes = 1 << 20;
    rtopo__model_default(&o.model);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    op = argv[1];
    if (strcmp(op, "shift"))
        return bad("unknown operation '%s' (supported: shift)", op);
    optind = 2;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            o.topo_str = optarg;
            break;
        case 'q':
            if (parse_int(optarg, &o.q))
                return bad("--q '%s': not an integer", optarg);
            o.have_q = 1;
            break;
        case 'A':
            o.all_q = 1;
            break;
        case 'a':
            o.algo = rtopo__shift_algo_parse(optarg);
            if (o.algo < 0)
                return bad("--algo '%s': expected auto, ring, mesh, hypercube, "
                           "ecube or direct", optarg);
            break;
        case 'b':
            if (parse_bytes(optarg, &o.bytes))
                return bad("--bytes '%s': expected a byte count (K, M, G "
                           "suffixes)", optarg);
            break;
        case 'm':
            if ((rc = parse_model(optarg, &o.model)))
                return rc;
            break;
        case 'c':
            o.check = 1;
            break;
        case 'j':
            o.json = 1;
            break;
        case 'r':
            o.rounds = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc)
        return bad("unexpected argument '%s'", argv[optind]);
    if (!o.topo_str)
        return bad("%s: --topo is required", op);
    if (o.have_q == o.all_q)
        return bad("%s: give either --q Q or --all-q", op);
    if ((rc = parse_topo(o.topo_str, 24, &o.topo)))
        return rc;
    if (!o.all_q) {
        rc = run_one(&o, o.q, 1, &failed);
        return rc ? rc : failed;
    }
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
