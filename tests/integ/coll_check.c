/*
 * coll_check - the collectives (rtopo_bcast, rtopo_window_bcast,
 * rtopo_scan, rtopo_allreduce, rtopo_shift_fill, rtopo_accumulate,
 * rtopo_adjacent_sum, rtopo_consecutive_sum) under rtopo-run, every byte
 * checked, through the public API only.
 *
 *   coll_check [--topo ring|mesh:RxC|hypercube:D|otis-mesh:N|otis-hypercube:N]
 *              [--algos auto,topo,generic] [--ops LIST|all] [--counts 1,7,300000]
 *              [--modes blocking,nonblocking,persistent] [--mem reg,unreg]
 *              [--matrix rotate|full] [--rounds R] [--disps compact|all|D1,D2,...]
 *              [--big-every K] [--overlap] [--seed S] [--verbose]
 *              [--then OPTIONS...]
 *   coll_check --topo T --error CASE
 *
 * --then starts another group of options, run after the one before it in
 * the same job on a topology of its own, as a job of its own would run it
 * (every option back at its default, the same data): one start-up of the
 * ranks for several sets of cases.
 *
 * --ops: bcast, window_bcast, scan, allreduce, shift_fill, accumulate,
 * adjacent_sum, consecutive_sum ("all": every one the topology has;
 * window_bcast only on the OTIS-mesh).  The cases of each operation:
 *   bcast            roots 0, p/2+1 and p-1; the datatype rotates
 *   window_bcast     every w dividing sqrt(n), groups 0, n/2 and n-1
 *   scan, allreduce  every datatype with every operator for counts <= 64,
 *                    for larger counts the four pairs (INT32, SUM),
 *                    (INT64, PROD), (FLOAT, MIN), (DOUBLE, MAX)
 *   shift_fill       every dimension, disp -(E+1), -E, -1, 0, 1, E and
 *                    2E+1 (--disps compact, E the extent), or every disp
 *                    in -(E+1)..2E+1 (--disps all), or the list given
 *   accumulate,      every dimension, m = 1, 2, E-1 and E (those in 1..E)
 *   adjacent_sum
 *   consecutive_sum  every dimension, every m dividing E
 * each for every count of --counts (elements; shift_fill and accumulate
 * move bytes: count bytes, 4*count for counts above 64).  Cases with a
 * count above 64 of window_bcast and the line operations are thinned to
 * every K-th (--big-every, default 3).  adjacent_sum and consecutive_sum
 * rotate datatype and operator over their cases.  --matrix full runs
 * every case in every mode with every kind of memory; rotate (default)
 * gives each case one (mode, memory) pair, cycling through all of them.
 * --overlap adds, to every case of scan, allreduce and the line operations
 * with a count up to 64 (and the first larger one), a twin whose buffers
 * overlap: scan and allreduce in place (sendbuf == recvbuf), the line
 * operations with sendbuf one element past recvbuf (documented: the send
 * data is copied aside at the start).
 * The whole list runs once per --algos entry (rtopo_topo_set_coll_algo).
 * Modes: blocking call; nonblocking (rtopo_iX + rtopo_wait); persistent
 * (rtopo_X_init once, then --rounds starts (default 3), new data each).
 * reg: buffers inside regions registered once (rtopo_mem_register)
 * guards included; unreg: plain memory, byte operations at odd addresses.
 *
 * Data: every rank can generate every rank's input from (seed, rank,
 * operation number, block, element); reductions use small integer values
 * (also for FLOAT and DOUBLE: every sum and product is exact, so the
 * order of the reduction does not matter), and each rank computes its
 * expected result serially from the definitions of rtopo.h (ranks ordered
 * by topology rank, coordinates from rtopo_topo_coords) and compares byte
 * for byte.  Guard zones before and after the receive buffer and after
 * the send buffer must stay intact, the send buffer unchanged.  Each
 * wrong result is printed with the case, the element, got and want.
 *
 * Error cases (--error CASE, one per job): the lines "rank R: CALL ->
 * STATUS in S s", "rank R: mismatch message: TEXT" (status MISMATCH),
 * "rank R: error message: TEXT" (other errors of the case) and one
 * "rank R: verdict: pass|FAIL why" (coll_errors.sh reads them):
 *   badargs          bad datatype, operator, root, group, dimension, m,
 *                    w, algorithm, count, in-place line operation, NULL
 *                    request: RTOPO_ERR_INVAL on every rank well before
 *                    the timeout (half of RTOPO_TIMEOUT_MS) each, no communication; window_bcast on a ring (and
 *                    on the topology when it is not an OTIS-mesh):
 *                    RTOPO_ERR_UNSUPPORTED; then a bcast and an allreduce
 *                    work and are checked (the job goes on), and every
 *                    operation with count 0 and NULL buffers returns
 *                    RTOPO_OK
 *   mismatch-root, -count, -op, -dtype, -m, -m-consec, -dim, -disp, -w,
 *   -group, -coll, -coll-bcast, -algo
 *                    the rank p/2 passes another root / count / operator /
 *                    datatype / m / dimension / disp / w / group, calls
 *                    scan where the others call allreduce (bcast where
 *                    they call allreduce), or forces another algorithm:
 *                    RTOPO_ERR_MISMATCH on every rank, in the call or in
 *                    the rtopo_barrier that follows a call this rank could
 *                    complete alone
 *   null-send        rank p/2 passes a NULL send buffer to allreduce
 *   null-recv        rank p/2 passes a NULL buffer to bcast
 *                    (both: RTOPO_ERR_INVAL on every rank, in the call or
 *                    in the barrier, through the job's abort)
 * Exit 0 when everything matched (--error: 0 unless the program broke).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rtopo.h>
#include "integ_util.h"

/* a call that fails promptly returns well before the configured timeout:
 * within half of RTOPO_TIMEOUT_MS (the scripts set 10 minutes; a wait
 * for the timeout would end in RTOPO_ERR_TIMEOUT anyway) */
static double prompt_limit_s(void)
{
    const char *e = getenv("RTOPO_TIMEOUT_MS");
    double ms = e ? atof(e) : 0;

    return ms > 0 ? ms / 2000 : 5;
}

#define GUARD 256
#define GUARD_BYTE 0xa5
#define JUNK_BYTE 0xee
#define SMALL_COUNT 64
#define MAX_PRINTS 30

enum { OP_BCAST, OP_WINDOW, OP_SCAN, OP_ALLREDUCE, OP_SHIFT_FILL, OP_ACCUMULATE,
       OP_ADJACENT, OP_CONSEC, NOPS };
static const char *const op_names[NOPS] = {
    "bcast", "window_bcast", "scan", "allreduce", "shift_fill", "accumulate",
    "adjacent_sum", "consecutive_sum"
};
static const char *const dt_names[4] = { "INT32", "INT64", "FLOAT", "DOUBLE" };
static const char *const rop_names[4] = { "SUM", "PROD", "MIN", "MAX" };
static const char *const algo_names[3] = { "auto", "topo", "generic" };
static const char *const mode_names[3] = { "blocking", "nonblocking", "persistent" };
static const char *const mem_names[2] = { "reg", "unreg" };

static int rank = -1, size;
static rtopo_ctx_t *ctx;
static rtopo_topo_t *T;
static const char *topo_spec = "ring";
static int me, p, nd, ext[RTOPO_MAX_DIMS], myc[RTOPO_MAX_DIMS], otis_mesh;
static unsigned seed = 1, iter;
static int rounds = 3, verbose;
static long checked, wrong;
static int printed;

#define CHECK(call)                                                           \
    do {                                                                      \
        int st_ = (call);                                                     \
        if (st_ != RTOPO_OK) {                                                \
            fprintf(stderr, "rank %d: %s: %s (%s)\n", rank, #call,            \
                    rtopo_err_name(st_), rtopo_last_error());                 \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    const char *s = list;

    while (s && *s) {
        if (!strncmp(s, word, n) && (s[n] == ',' || !s[n]))
            return 1;
        s = strchr(s, ',');
        s = s ? s + 1 : NULL;
    }
    return 0;
}

static int parse_list(const char *s, long *out, int max)
{
    int n = 0;
    char *end;

    while (s && *s && n < max) {
        out[n++] = strtol(s, &end, 10);
        s = *end == ',' ? end + 1 : NULL;
    }
    return n;
}

static int make_topo(const char *spec, rtopo_topo_t **t)
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
    fprintf(stderr, "unknown topology %s\n", spec);
    exit(2);
}

static void topo_setup(void)
{
    int j;

    CHECK(make_topo(topo_spec, &T));
    me = rtopo_topo_rank(T);
    p = rtopo_topo_size(T);
    nd = rtopo_topo_ndims(T);
    otis_mesh = !strncmp(topo_spec, "otis-mesh", 9);
    for (j = 0; j < nd; j++)
        ext[j] = rtopo_topo_extent(T, j);
    CHECK(rtopo_topo_coords(T, me, myc));
}

/* the rank whose coordinates are mine with coordinate dim = x */
static int rank_along(int dim, int x)
{
    int c[RTOPO_MAX_DIMS], r;

    memcpy(c, myc, sizeof(c));
    c[dim] = x;
    r = rtopo_topo_rank_at(T, c);
    if (r < 0) {
        fprintf(stderr, "rank %d: rtopo_topo_rank_at(coordinate %d = %d): %s (%s)\n", rank,
                dim, x, rtopo_err_name(r), rtopo_last_error());
        exit(1);
    }
    return r;
}

/* ---- one call ---------------------------------------------------------- */

struct call {
    int op, dtype, rop;
    size_t count;       /* elements; bytes for shift_fill and accumulate */
    int root;           /* bcast: root rank; window_bcast: group */
    int w, dim, disp, m;
    int ovl;            /* scan, allreduce: in place; line operations: the
                           send buffer starts one element into recvbuf */
    int mode, mem, algo;
};

static int byte_op(int op)
{
    return op == OP_SHIFT_FILL || op == OP_ACCUMULATE;
}

static size_t dt_size(int dt)
{
    return dt == RTOPO_INT32 || dt == RTOPO_FLOAT ? 4 : 8;
}

static size_t elem_bytes(const struct call *c)
{
    return byte_op(c->op) ? 1 : dt_size(c->dtype);
}

static size_t reg_bytes(const struct call *c)
{
    return c->count * elem_bytes(c);
}

static size_t send_bytes(const struct call *c)
{
    return c->op == OP_BCAST || c->op == OP_WINDOW ? 0 :
           c->op == OP_CONSEC ? reg_bytes(c) * (size_t)c->m : reg_bytes(c);
}

static size_t recv_bytes(const struct call *c)
{
    return c->op == OP_ACCUMULATE ? reg_bytes(c) * (size_t)c->m : reg_bytes(c);
}

/* where the send buffer starts in the receive buffer (c->ovl) */
static size_t ovl_off(const struct call *c)
{
    return c->op == OP_SCAN || c->op == OP_ALLREDUCE ? 0 : elem_bytes(c);
}

/* bytes from recvbuf on that the call may touch */
static size_t span_bytes(const struct call *c)
{
    size_t rn = recv_bytes(c), e = c->ovl ? ovl_off(c) + send_bytes(c) : 0;

    return e > rn ? e : rn;
}

static void describe(const struct call *c, char *out, size_t n)
{
    int k = 0;

    k += snprintf(out + k, n - k, "%s", op_names[c->op]);
    if (c->op == OP_BCAST)
        k += snprintf(out + k, n - k, " root %d", c->root);
    if (c->op == OP_WINDOW)
        k += snprintf(out + k, n - k, " group %d w %d", c->root, c->w);
    if (c->op >= OP_SHIFT_FILL)
        k += snprintf(out + k, n - k, " dim %d", c->dim);
    if (c->op == OP_SHIFT_FILL)
        k += snprintf(out + k, n - k, " disp %d", c->disp);
    if (c->op >= OP_ACCUMULATE)
        k += snprintf(out + k, n - k, " m %d", c->m);
    if (byte_op(c->op))
        k += snprintf(out + k, n - k, " %zu bytes", c->count);
    else if (c->op == OP_BCAST || c->op == OP_WINDOW)
        k += snprintf(out + k, n - k, " count %zu %s", c->count, dt_names[c->dtype]);
    else
        k += snprintf(out + k, n - k, " count %zu %s %s", c->count, dt_names[c->dtype],
                      rop_names[c->rop]);
    snprintf(out + k, n - k, ", %s, %s%s, algo %s", mode_names[c->mode],
             c->mem ? "unregistered" : "registered",
             !c->ovl ? "" : ovl_off(c) ? ", sendbuf = recvbuf + 1 element" : ", in place",
             algo_names[c->algo]);
}

/* how: 0 blocking, 1 nonblocking, 2 persistent (init) */
static int issue(const struct call *c, int how, const void *sb, void *rb, rtopo_req_t **req)
{
    rtopo_datatype_t dt = (rtopo_datatype_t)c->dtype;
    rtopo_op_t op = (rtopo_op_t)c->rop;
    size_t n = c->count;

    switch (c->op) {
    case OP_BCAST:
        return how == 0 ? rtopo_bcast(T, rb, n, dt, c->root) :
               how == 1 ? rtopo_ibcast(T, rb, n, dt, c->root, req) :
               rtopo_bcast_init(T, rb, n, dt, c->root, req);
    case OP_WINDOW:
        return how == 0 ? rtopo_window_bcast(T, rb, n, dt, c->root, c->w) :
               how == 1 ? rtopo_iwindow_bcast(T, rb, n, dt, c->root, c->w, req) :
               rtopo_window_bcast_init(T, rb, n, dt, c->root, c->w, req);
    case OP_SCAN:
        return how == 0 ? rtopo_scan(T, sb, rb, n, dt, op) :
               how == 1 ? rtopo_iscan(T, sb, rb, n, dt, op, req) :
               rtopo_scan_init(T, sb, rb, n, dt, op, req);
    case OP_ALLREDUCE:
        return how == 0 ? rtopo_allreduce(T, sb, rb, n, dt, op) :
               how == 1 ? rtopo_iallreduce(T, sb, rb, n, dt, op, req) :
               rtopo_allreduce_init(T, sb, rb, n, dt, op, req);
    case OP_SHIFT_FILL:
        return how == 0 ? rtopo_shift_fill(T, c->dim, sb, rb, n, c->disp) :
               how == 1 ? rtopo_ishift_fill(T, c->dim, sb, rb, n, c->disp, req) :
               rtopo_shift_fill_init(T, c->dim, sb, rb, n, c->disp, req);
    case OP_ACCUMULATE:
        return how == 0 ? rtopo_accumulate(T, c->dim, sb, rb, n, c->m) :
               how == 1 ? rtopo_iaccumulate(T, c->dim, sb, rb, n, c->m, req) :
               rtopo_accumulate_init(T, c->dim, sb, rb, n, c->m, req);
    case OP_ADJACENT:
        return how == 0 ? rtopo_adjacent_sum(T, c->dim, sb, rb, n, dt, op, c->m) :
               how == 1 ? rtopo_iadjacent_sum(T, c->dim, sb, rb, n, dt, op, c->m, req) :
               rtopo_adjacent_sum_init(T, c->dim, sb, rb, n, dt, op, c->m, req);
    case OP_CONSEC:
        return how == 0 ? rtopo_consecutive_sum(T, c->dim, sb, rb, n, dt, op, c->m) :
               how == 1 ? rtopo_iconsecutive_sum(T, c->dim, sb, rb, n, dt, op, c->m, req) :
               rtopo_consecutive_sum_init(T, c->dim, sb, rb, n, dt, op, c->m, req);
    }
    return RTOPO_ERR_INVAL;
}

/* ---- data ---------------------------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    x ^= x >> 33;
    return x;
}

/* the bytes rank r sends in operation tag (byte operations, broadcasts) */
static void bytes_fill(uint8_t *b, size_t n, int r, unsigned tag)
{
    iu_fill(b, n, r, tag * 2654435761u + seed);
}

/* element i of block blk of rank r's input in operation tag: small
 * integers, exact in every datatype under every sum and product of up to
 * 64 terms */
static void gen_typed(uint8_t *b, size_t count, int dt, int rop, int r, unsigned tag, int blk)
{
    static const int64_t prodv[4] = { -2, -1, 1, 2 };
    uint64_t base = mix64(((uint64_t)seed << 40) ^ ((uint64_t)(unsigned)r << 20) ^ tag);
    size_t i;

    base = mix64(base + (uint64_t)blk * 0x9e3779b97f4a7c15ull);
    for (i = 0; i < count; i++) {
        uint64_t h = mix64(base + i);
        int64_t v;

        if (rop == RTOPO_PROD)
            v = prodv[h & 3];
        else if (rop == RTOPO_SUM)
            v = dt == RTOPO_INT32 ? (int64_t)(h % (1u << 20)) - (1 << 19) :
                dt == RTOPO_INT64 ? (int64_t)(h % (1ull << 50)) - (1ll << 49) :
                dt == RTOPO_FLOAT ? (int64_t)(h % (1u << 18)) - (1 << 17) :
                (int64_t)(h % (1ull << 44)) - (1ll << 43);
        else
            v = dt == RTOPO_INT32 ? (int64_t)(int32_t)(uint32_t)h :
                dt == RTOPO_INT64 ? (int64_t)h :
                dt == RTOPO_FLOAT ? (int64_t)(h % (1u << 24)) - (1 << 23) :
                (int64_t)(h % (1ull << 52)) - (1ll << 51);
        switch (dt) {
        case RTOPO_INT32: { int32_t x = (int32_t)v; memcpy(b + 4 * i, &x, 4); break; }
        case RTOPO_INT64: { int64_t x = v; memcpy(b + 8 * i, &x, 8); break; }
        case RTOPO_FLOAT: { float x = (float)v; memcpy(b + 4 * i, &x, 4); break; }
        default: { double x = (double)v; memcpy(b + 8 * i, &x, 8); break; }
        }
    }
}

#define COMBINE(type)                                                         \
    do {                                                                      \
        type *a_ = (type *)(void *)acc;                                       \
        const type *x_ = (const type *)(const void *)x;                       \
        for (i = 0; i < count; i++)                                           \
            switch (rop) {                                                    \
            case RTOPO_SUM: a_[i] = a_[i] + x_[i]; break;                     \
            case RTOPO_PROD: a_[i] = a_[i] * x_[i]; break;                    \
            case RTOPO_MIN: a_[i] = x_[i] < a_[i] ? x_[i] : a_[i]; break;     \
            default: a_[i] = x_[i] > a_[i] ? x_[i] : a_[i]; break;            \
            }                                                                 \
    } while (0)

/* acc = acc op x (both aligned scratch) */
static void combine(uint8_t *acc, const uint8_t *x, size_t count, int dt, int rop)
{
    size_t i;

    switch (dt) {
    case RTOPO_INT32: COMBINE(int32_t); break;
    case RTOPO_INT64: COMBINE(int64_t); break;
    case RTOPO_FLOAT: COMBINE(float); break;
    default: COMBINE(double); break;
    }
}

static void elem_str(const uint8_t *b, int dt, char *out, size_t n)
{
    switch (dt) {
    case RTOPO_INT32: { int32_t x; memcpy(&x, b, 4); snprintf(out, n, "%d", x); break; }
    case RTOPO_INT64: { int64_t x; memcpy(&x, b, 8); snprintf(out, n, "%lld", (long long)x); break; }
    case RTOPO_FLOAT: { float x; memcpy(&x, b, 4); snprintf(out, n, "%.9g", (double)x); break; }
    default: { double x; memcpy(&x, b, 8); snprintf(out, n, "%.17g", x); break; }
    }
}

/* scratch: exp (expected receive buffer), tmp (one register), chk (the
 * send buffer as it must still be) */
static uint8_t *exp_buf, *tmp_buf, *chk_buf;

/* what this rank's send buffer holds in operation tag */
static void send_input(const struct call *c, unsigned tag, uint8_t *sb)
{
    size_t m = reg_bytes(c);
    int k;

    switch (c->op) {
    case OP_SHIFT_FILL:
    case OP_ACCUMULATE:
        bytes_fill(sb, m, me, tag);
        break;
    case OP_SCAN:
    case OP_ALLREDUCE:
    case OP_ADJACENT:
        gen_typed(sb, c->count, c->dtype, c->rop, me, tag, 0);
        break;
    case OP_CONSEC:
        for (k = 0; k < c->m; k++)
            gen_typed(sb + (size_t)k * m, c->count, c->dtype, c->rop, me, tag, k);
        break;
    }
}

/* the receive buffer before the call: the root's / window's input, junk
 * elsewhere */
static void recv_input(const struct call *c, unsigned tag, uint8_t *rb)
{
    size_t n = recv_bytes(c);

    if ((c->op == OP_BCAST && me == c->root) || c->op == OP_WINDOW)
        bytes_fill(rb, n, me, tag);
    else
        memset(rb, JUNK_BYTE, n);
}

/* the source of rank me in a window broadcast */
static int window_source(const struct call *c)
{
    int s = ext[0], cc[4];

    cc[0] = c->root / s;
    cc[1] = c->root % s;
    cc[2] = myc[2] % c->w;
    cc[3] = myc[3] % c->w;
    return rtopo_topo_rank_at(T, cc);
}

static void expected(const struct call *c, unsigned tag, uint8_t *out)
{
    size_t m = reg_bytes(c);
    int r, i, E = c->op >= OP_SHIFT_FILL ? ext[c->dim] : 0, x, j, b;

    switch (c->op) {
    case OP_BCAST:
        bytes_fill(out, m, c->root, tag);
        break;
    case OP_WINDOW:
        bytes_fill(out, m, window_source(c), tag);
        break;
    case OP_SCAN:
    case OP_ALLREDUCE:
        gen_typed(out, c->count, c->dtype, c->rop, 0, tag, 0);
        for (r = 1; r <= (c->op == OP_SCAN ? me : p - 1); r++) {
            gen_typed(tmp_buf, c->count, c->dtype, c->rop, r, tag, 0);
            combine(out, tmp_buf, c->count, c->dtype, c->rop);
        }
        break;
    case OP_SHIFT_FILL:
        x = myc[c->dim] - c->disp;
        if (x >= 0 && x < E)
            bytes_fill(out, m, rank_along(c->dim, x), tag);
        else
            memset(out, 0, m);
        break;
    case OP_ACCUMULATE:
        for (i = 0; i < c->m; i++)
            bytes_fill(out + (size_t)i * m, m, rank_along(c->dim, (myc[c->dim] + i) % E), tag);
        break;
    case OP_ADJACENT:
        for (i = 0; i < c->m; i++) {
            r = rank_along(c->dim, (myc[c->dim] + i) % E);
            gen_typed(i ? tmp_buf : out, c->count, c->dtype, c->rop, r, tag, 0);
            if (i)
                combine(out, tmp_buf, c->count, c->dtype, c->rop);
        }
        break;
    case OP_CONSEC:
        j = myc[c->dim] % c->m;
        b = myc[c->dim] - j;
        for (i = 0; i < c->m; i++) {
            r = rank_along(c->dim, b + i);
            gen_typed(i ? tmp_buf : out, c->count, c->dtype, c->rop, r, tag, j);
            if (i)
                combine(out, tmp_buf, c->count, c->dtype, c->rop);
        }
        break;
    }
}

/* ---- buffers --------------------------------------------------------------- */

struct region {
    uint8_t *base;
    size_t len;
    rtopo_mem_t *mem;
};
static struct region sreg[2], rreg[2];

static void region_alloc(struct region *g, size_t room, int reg)
{
    g->len = room + 2 * GUARD + 64;
    if (posix_memalign((void **)&g->base, 4096, g->len)) {
        fprintf(stderr, "rank %d: cannot allocate %zu bytes\n", rank, g->len);
        exit(2);
    }
    memset(g->base, GUARD_BYTE, g->len);
    g->mem = NULL;
    if (reg)
        CHECK(rtopo_mem_register(ctx, g->base, g->len, &g->mem));
}

static void region_free(struct region *g)
{
    if (g->mem)
        CHECK(rtopo_mem_deregister(g->mem));
    free(g->base);
    g->base = NULL;
}

static void guards_set(uint8_t *buf, size_t n)
{
    memset(buf - GUARD, GUARD_BYTE, GUARD);
    memset(buf + n, GUARD_BYTE, GUARD);
}

/* ---- checking -------------------------------------------------------------- */

static int fail_msg(const struct call *c, unsigned tag, int round, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_msg(const struct call *c, unsigned tag, int round, const char *fmt, ...)
{
    char what[256], msg[512];
    va_list ap;

    wrong++;
    if (printed++ >= MAX_PRINTS)
        return 1;
    describe(c, what, sizeof(what));
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "rank %d: %s %s, round %d (operation %u, seed %u): %s\n", rank,
            topo_spec, what, round, tag, seed, msg);
    return 1;
}

static int verify(const struct call *c, unsigned tag, int round, const uint8_t *sb,
                  const uint8_t *rb)
{
    size_t sn = send_bytes(c), rn = recv_bytes(c), m = reg_bytes(c), k, nbad = 0, first = 0;
    size_t span = span_bytes(c);
    size_t es = byte_op(c->op) || c->op == OP_BCAST || c->op == OP_WINDOW ? 1 :
                dt_size(c->dtype);
    long at;

    checked++;
    if ((at = iu_first_not(rb - GUARD, GUARD, GUARD_BYTE)) >= 0)
        return fail_msg(c, tag, round, "written before the receive buffer, at byte -%ld: "
                        "0x%02x", (long)GUARD - at, rb[at - GUARD]);
    if ((at = iu_first_not(rb + span, GUARD, GUARD_BYTE)) >= 0)
        return fail_msg(c, tag, round, "written after the %zu-byte %s, at byte +%ld: "
                        "0x%02x", span, span > rn ? "span of the overlapping buffers" :
                        "receive buffer", at, rb[span + (size_t)at]);
    if (sn && !c->ovl) {
        send_input(c, tag, chk_buf);
        if (memcmp(chk_buf, sb, sn)) {
            for (k = 0; sb[k] == chk_buf[k]; k++)
                ;
            return fail_msg(c, tag, round, "the send buffer changed at byte %zu of %zu: "
                            "0x%02x, was 0x%02x", k, sn, sb[k], chk_buf[k]);
        }
        if ((at = iu_first_not(sb + sn, GUARD, GUARD_BYTE)) >= 0)
            return fail_msg(c, tag, round, "written after the send buffer, at byte +%ld",
                            at);
    }
    expected(c, tag, exp_buf);
    if (!memcmp(exp_buf, rb, rn))
        return 0;
    /* count the wrong elements, describe the first */
    for (k = 0; k < rn; k += es)
        if (memcmp(exp_buf + k, rb + k, es)) {
            if (!nbad++)
                first = k;
        }
    if (es == 1) {
        size_t blk = first / m;
        const char *never = rb[first] == JUNK_BYTE ? " (the junk the buffer held before)" : "";
        if (c->op == OP_ACCUMULATE)
            return fail_msg(c, tag, round, "byte %zu of block %zu (of %d, %zu bytes each; "
                            "from rank %d) is 0x%02x, want 0x%02x%s; %zu of %zu bytes wrong",
                            first % m, blk, c->m, m,
                            rank_along(c->dim, (myc[c->dim] + (int)blk) % ext[c->dim]),
                            rb[first], exp_buf[first], never, nbad, rn);
        return fail_msg(c, tag, round, "byte %zu of %zu is 0x%02x, want 0x%02x%s; %zu bytes "
                        "wrong", first, rn, rb[first], exp_buf[first], never, nbad);
    } else {
        char got[64], want[64];
        elem_str(rb + first, c->dtype, got, sizeof(got));
        elem_str(exp_buf + first, c->dtype, want, sizeof(want));
        return fail_msg(c, tag, round, "element %zu of %zu is %s, want %s%s; %zu elements "
                        "wrong", first / es, c->count, got, want,
                        rb[first] == JUNK_BYTE && rb[first + 1] == JUNK_BYTE ?
                        " (the junk the buffer held before)" : "", nbad);
    }
}

/* one case in its mode; returns the wrong results */
static int run_call(const struct call *c)
{
    int odd = c->mem && byte_op(c->op);
    uint8_t *sb = sreg[c->mem].base + GUARD + odd, *rb = rreg[c->mem].base + GUARD + odd;
    size_t sn = send_bytes(c), span = span_bytes(c);
    int nr = c->mode == 2 ? rounds : 1, k, errs = 0, st;
    rtopo_req_t *req = NULL;
    double t0 = iu_now();
    char what[256];

    if (c->ovl)
        sb = rb + ovl_off(c);
    if (c->mode == 2 && (st = issue(c, 2, sn ? sb : NULL, rb, &req))) {
        describe(c, what, sizeof(what));
        fprintf(stderr, "rank %d: %s %s: init: %s (%s)\n", rank, topo_spec, what,
                rtopo_err_name(st), rtopo_last_error());
        exit(1);
    }
    for (k = 0; k < nr; k++) {
        unsigned tag = ++iter;

        if (!c->ovl)
            guards_set(sb, sn);
        guards_set(rb, span);
        /* overlapping: the send data where it lies on the receive buffer */
        recv_input(c, tag, rb);
        if (sn)
            send_input(c, tag, sb);
        if (c->mode == 2) {
            st = rtopo_start(req);
            if (!st)
                st = rtopo_wait(req);
        } else if (c->mode == 1) {
            st = issue(c, 1, sn ? sb : NULL, rb, &req);
            if (!st)
                st = rtopo_wait(req);
            if (req)
                CHECK(rtopo_req_free(req));
            req = NULL;
        } else {
            st = issue(c, 0, sn ? sb : NULL, rb, NULL);
        }
        if (st) {
            describe(c, what, sizeof(what));
            fprintf(stderr, "rank %d: %s %s, round %d (operation %u): %s (%s)\n", rank,
                    topo_spec, what, k, tag, rtopo_err_name(st), rtopo_last_error());
            exit(1);
        }
        errs += verify(c, tag, k, sb, rb);
    }
    if (req)
        CHECK(rtopo_req_free(req));
    if (verbose && rank == 0) {
        describe(c, what, sizeof(what));
        printf("rank 0: %s %s: %s in %.3f s\n", topo_spec, what, errs ? "WRONG" : "ok",
               iu_now() - t0);
    }
    return errs;
}

/* ---- the list of cases ------------------------------------------------------ */

static struct call *plan;
static int nplan, cap;
static int matrix_full, nmodes, modes[3], nmems, mems[2], big_every = 3, overlap;
static int rot[NOPS];       /* cases of each operation so far (rotation) */
static int bigseen[NOPS];

static void add1(struct call c);

/* a case, and with --overlap its twin on overlapping buffers (counts up
 * to SMALL_COUNT, and the first larger one of each operation) */
static int bigovl[NOPS];

static void add(struct call c)
{
    add1(c);
    if (overlap && c.op != OP_BCAST && c.op != OP_WINDOW &&
        (c.count <= SMALL_COUNT || !bigovl[c.op]++)) {
        c.ovl = 1;
        add1(c);
    }
}

static void add1(struct call c)
{
    int i, j, k;

    if (c.count > SMALL_COUNT && c.op != OP_BCAST && c.op != OP_SCAN &&
        c.op != OP_ALLREDUCE && bigseen[c.op]++ % big_every)
        return;
    for (i = 0; i < nmems; i++)
        for (j = 0; j < nmodes; j++) {
            if (!matrix_full) {
                k = rot[c.op]++;
                c.mode = modes[k % nmodes];
                c.mem = mems[(k / nmodes) % nmems];
            } else {
                c.mode = modes[j];
                c.mem = mems[i];
            }
            if (nplan == cap) {
                cap = cap ? 2 * cap : 256;
                plan = realloc(plan, (size_t)cap * sizeof(*plan));
                if (!plan)
                    exit(2);
            }
            plan[nplan++] = c;
            if (!matrix_full)
                return;
        }
}

static void add_uniq(int *v, int *n, int x)
{
    int i;

    for (i = 0; i < *n; i++)
        if (v[i] == x)
            return;
    v[(*n)++] = x;
}

static void build_plan(const char *ops, const long *counts, int ncounts, const char *disps)
{
    /* shift_fill last: an operation that fails the job ends it */
    static const int order[NOPS] = { OP_BCAST, OP_WINDOW, OP_SCAN, OP_ALLREDUCE,
                                     OP_ACCUMULATE, OP_ADJACENT, OP_CONSEC, OP_SHIFT_FILL };
    int op, i, j, d, k, v[64], nv, n, rotk, oi;
    struct call c;

    for (oi = 0; oi < NOPS; oi++) {
        op = order[oi];
        if (!has_word(ops, op_names[op]) && !has_word(ops, "all"))
            continue;
        if (op == OP_WINDOW && !otis_mesh) {
            if (has_word(ops, op_names[op]) && rank == 0)
                printf("coll_check: window_bcast only on the OTIS-mesh: skipped on %s\n",
                       topo_spec);
            continue;
        }
        rotk = 0;
        for (i = 0; i < ncounts; i++) {
            memset(&c, 0, sizeof(c));
            c.op = op;
            c.count = (size_t)counts[i];
            if (byte_op(op) && c.count > SMALL_COUNT)
                c.count *= 4;
            switch (op) {
            case OP_BCAST:
                nv = 0;
                add_uniq(v, &nv, 0);
                add_uniq(v, &nv, (p / 2 + 1) % p);
                add_uniq(v, &nv, p - 1);
                for (j = 0; j < nv; j++) {
                    c.root = v[j];
                    c.dtype = rotk++ % 4;
                    add(c);
                }
                break;
            case OP_WINDOW:
                n = ext[0] * ext[1];
                nv = 0;
                add_uniq(v, &nv, 0);
                add_uniq(v, &nv, n / 2);
                add_uniq(v, &nv, n - 1);
                for (c.w = 1; c.w <= ext[2]; c.w++) {
                    if (ext[2] % c.w)
                        continue;
                    for (j = 0; j < nv; j++) {
                        c.root = v[j];
                        c.dtype = rotk++ % 4;
                        add(c);
                    }
                }
                break;
            case OP_SCAN:
            case OP_ALLREDUCE:
                for (c.dtype = 0; c.dtype < 4; c.dtype++)
                    for (c.rop = 0; c.rop < 4; c.rop++)
                        if (c.count <= SMALL_COUNT || c.rop == c.dtype)
                            add(c);
                break;
            case OP_SHIFT_FILL:
                for (d = 0; d < nd; d++) {
                    int E = ext[d];
                    c.dim = d;
                    nv = 0;
                    if (!strcmp(disps, "all")) {
                        for (k = -(E + 1); k <= 2 * E + 1 && nv < 64; k++)
                            v[nv++] = k;
                    } else if (!strcmp(disps, "compact")) {
                        add_uniq(v, &nv, -(E + 1));
                        add_uniq(v, &nv, -E);
                        add_uniq(v, &nv, -1);
                        add_uniq(v, &nv, 0);
                        add_uniq(v, &nv, 1);
                        add_uniq(v, &nv, E);
                        add_uniq(v, &nv, 2 * E + 1);
                    } else {
                        long dl[64];
                        nv = parse_list(disps, dl, 64);
                        for (k = 0; k < nv; k++)
                            v[k] = (int)dl[k];
                    }
                    for (j = 0; j < nv; j++) {
                        c.disp = v[j];
                        add(c);
                    }
                }
                break;
            case OP_ACCUMULATE:
            case OP_ADJACENT:
                for (d = 0; d < nd; d++) {
                    int E = ext[d];
                    c.dim = d;
                    nv = 0;
                    add_uniq(v, &nv, 1);
                    if (E >= 2)
                        add_uniq(v, &nv, 2);
                    if (E >= 2)
                        add_uniq(v, &nv, E - 1);
                    add_uniq(v, &nv, E);
                    for (j = 0; j < nv; j++) {
                        c.m = v[j];
                        c.dtype = rotk % 4;
                        c.rop = (rotk / 4 + rotk) % 4;
                        rotk++;
                        add(c);
                    }
                }
                break;
            case OP_CONSEC:
                for (d = 0; d < nd; d++) {
                    int E = ext[d];
                    c.dim = d;
                    for (c.m = 1; c.m <= E; c.m++) {
                        if (E % c.m)
                            continue;
                        c.dtype = rotk % 4;
                        c.rop = (rotk / 4 + rotk) % 4;
                        rotk++;
                        add(c);
                    }
                }
                break;
            }
        }
    }
}

static int run_plan(const char *algos)
{
    size_t maxs = 1, maxr = 1, maxm = 1;
    int i, a, reg, errs = 0;

    for (i = 0; i < nplan; i++) {
        if (send_bytes(&plan[i]) > maxs)
            maxs = send_bytes(&plan[i]);
        if (span_bytes(&plan[i]) + 1 > maxr)
            maxr = span_bytes(&plan[i]) + 1;
        if (reg_bytes(&plan[i]) > maxm)
            maxm = reg_bytes(&plan[i]);
    }
    if (posix_memalign((void **)&exp_buf, 64, maxr) ||
        posix_memalign((void **)&tmp_buf, 64, maxm) ||
        posix_memalign((void **)&chk_buf, 64, maxs))
        exit(2);
    for (reg = 0; reg < 2; reg++) {
        for (i = 0; i < nplan && plan[i].mem != reg; i++)
            ;
        if (i == nplan)
            continue;
        region_alloc(&sreg[reg], maxs, reg == 0);
        region_alloc(&rreg[reg], maxr, reg == 0);
    }
    for (a = 0; a < 3; a++) {
        double t0 = iu_now();
        int e0 = errs;

        if (!has_word(algos, algo_names[a]))
            continue;
        CHECK(rtopo_topo_set_coll_algo(T, (rtopo_coll_algo_t)a));
        for (i = 0; i < nplan; i++) {
            plan[i].algo = a;
            errs += run_call(&plan[i]);
        }
        if (rank == 0)
            printf("rank 0: %s, algo %s: %d cases, %d wrong on rank 0, %.2f s\n", topo_spec,
                   algo_names[a], nplan, errs - e0, iu_now() - t0);
    }
    for (reg = 0; reg < 2; reg++)
        if (sreg[reg].base) {
            region_free(&sreg[reg]);
            region_free(&rreg[reg]);
        }
    free(exp_buf);
    free(tmp_buf);
    free(chk_buf);
    return errs;
}

/* ---- errors ------------------------------------------------------------------ */

static double worst_s;

static int report(const char *call, int st, double t0)
{
    double dt = iu_now() - t0;

    if (dt > worst_s)
        worst_s = dt;
    printf("rank %d: %s -> %s in %.3f s\n", rank, call, rtopo_err_name(st), dt);
    if (st == RTOPO_ERR_MISMATCH)
        printf("rank %d: mismatch message: %s\n", rank, rtopo_last_error());
    else if (st)
        printf("rank %d: error message: %s\n", rank, rtopo_last_error());
    fflush(stdout);
    return st;
}

/* expect status want from call; adds to why */
#define EXPECT(want, call)                                                    \
    do {                                                                      \
        double t0_ = iu_now();                                                \
        int st_ = report(#call, (call), t0_);                                 \
        if (st_ != (want)) {                                                  \
            ok = 0;                                                           \
            snprintf(why + strlen(why), sizeof(why) - strlen(why),            \
                     " [%s gave %s, want %s]", #call, rtopo_err_name(st_),    \
                     rtopo_err_name(want));                                   \
        }                                                                     \
    } while (0)

static void run_badargs(char *why, size_t whyn, int *okp)
{
    int32_t ib[16], ob[16];
    int ok = 1, E0 = ext[0], Elast = ext[nd - 1], bad_consec, i;
    rtopo_req_t *req = NULL;
    rtopo_topo_t *ring;
    int64_t lb[4], lo[4];
    (void)whyn;

    for (i = 0; i < 16; i++)
        ib[i] = me + i;
    /* a divisor of no extent of dimension 0 within 2..E+1 */
    for (bad_consec = 2; bad_consec <= E0 && E0 % bad_consec == 0; bad_consec++)
        ;
    EXPECT(RTOPO_ERR_INVAL, rtopo_topo_set_coll_algo(T, (rtopo_coll_algo_t)3));
    EXPECT(RTOPO_ERR_INVAL, rtopo_topo_set_coll_algo(T, (rtopo_coll_algo_t)-1));
    EXPECT(RTOPO_ERR_INVAL, rtopo_bcast(NULL, ib, 4, RTOPO_INT32, 0));
    EXPECT(RTOPO_ERR_INVAL, rtopo_bcast(T, ib, 4, (rtopo_datatype_t)4, 0));
    EXPECT(RTOPO_ERR_INVAL, rtopo_bcast(T, ib, 4, (rtopo_datatype_t)-1, 0));
    EXPECT(RTOPO_ERR_INVAL, rtopo_bcast(T, ib, 4, RTOPO_INT32, -1));
    EXPECT(RTOPO_ERR_INVAL, rtopo_bcast(T, ib, 4, RTOPO_INT32, p));
    EXPECT(RTOPO_ERR_INVAL, rtopo_ibcast(T, ib, 4, RTOPO_INT32, 0, NULL));
    EXPECT(RTOPO_ERR_INVAL, rtopo_bcast(T, ib, ((size_t)1 << 46) / 4 + 1, RTOPO_INT32, 0));
    EXPECT(RTOPO_ERR_INVAL, rtopo_allreduce(T, ib, ob, 4, (rtopo_datatype_t)9, RTOPO_SUM));
    EXPECT(RTOPO_ERR_INVAL, rtopo_allreduce(T, ib, ob, 4, RTOPO_INT32, (rtopo_op_t)4));
    EXPECT(RTOPO_ERR_INVAL, rtopo_allreduce(T, ib, ob, 4, RTOPO_INT32, (rtopo_op_t)-1));
    EXPECT(RTOPO_ERR_INVAL, rtopo_allreduce_init(T, ib, ob, 4, RTOPO_FLOAT, (rtopo_op_t)7,
                                                 &req));
    EXPECT(RTOPO_ERR_INVAL, rtopo_scan(T, ib, ob, 4, RTOPO_INT64, (rtopo_op_t)5));
    EXPECT(RTOPO_ERR_INVAL, rtopo_iscan(T, ib, ob, 4, (rtopo_datatype_t)4, RTOPO_MAX, &req));
    EXPECT(RTOPO_ERR_INVAL, rtopo_shift_fill(T, -1, ib, ob, 16, 1));
    EXPECT(RTOPO_ERR_INVAL, rtopo_shift_fill(T, nd, ib, ob, 16, 1));
    EXPECT(RTOPO_ERR_INVAL, rtopo_shift_fill(T, 0, ob, ob, 16, 1));
    EXPECT(RTOPO_ERR_INVAL, rtopo_accumulate(T, 0, ib, ob, 4, 0));
    EXPECT(RTOPO_ERR_INVAL, rtopo_accumulate(T, nd - 1, ib, ob, 4, Elast + 1));
    EXPECT(RTOPO_ERR_INVAL, rtopo_accumulate(T, nd, ib, ob, 4, 1));
    EXPECT(RTOPO_ERR_INVAL, rtopo_accumulate(T, 0, ib, ob, 4, -1));
    EXPECT(RTOPO_ERR_INVAL, rtopo_adjacent_sum(T, 0, ib, ob, 4, RTOPO_INT32, RTOPO_SUM, 0));
    EXPECT(RTOPO_ERR_INVAL, rtopo_adjacent_sum(T, 0, ib, ob, 4, RTOPO_INT32, RTOPO_SUM,
                                               E0 + 1));
    EXPECT(RTOPO_ERR_INVAL, rtopo_adjacent_sum(T, -1, ib, ob, 4, RTOPO_INT32, RTOPO_SUM, 1));
    EXPECT(RTOPO_ERR_INVAL, rtopo_adjacent_sum(T, 0, ib, ob, 4, (rtopo_datatype_t)4,
                                               RTOPO_SUM, 1));
    EXPECT(RTOPO_ERR_INVAL, rtopo_adjacent_sum(T, 0, ib, ob, 4, RTOPO_INT32, (rtopo_op_t)4,
                                               1));
    EXPECT(RTOPO_ERR_INVAL, rtopo_iadjacent_sum(T, 0, ob, ob, 4, RTOPO_INT32, RTOPO_SUM, 1,
                                                &req));
    EXPECT(RTOPO_ERR_INVAL, rtopo_consecutive_sum(T, 0, ib, ob, 1, RTOPO_INT32, RTOPO_SUM, 0));
    EXPECT(RTOPO_ERR_INVAL, rtopo_consecutive_sum(T, 0, ib, ob, 1, RTOPO_INT32, RTOPO_SUM,
                                                  bad_consec));
    EXPECT(RTOPO_ERR_INVAL, rtopo_consecutive_sum(T, nd, ib, ob, 1, RTOPO_INT32, RTOPO_SUM,
                                                  1));
    EXPECT(RTOPO_ERR_INVAL, rtopo_consecutive_sum_init(T, 0, ib, ob, 1, RTOPO_INT32,
                                                       RTOPO_MIN, -2, &req));
    if (otis_mesh) {
        int s = ext[2], n = ext[0] * ext[1], w;
        for (w = 2; w <= s && s % w == 0; w++)
            ;
        EXPECT(RTOPO_ERR_INVAL, rtopo_window_bcast(T, ib, 4, RTOPO_INT32, 0, 0));
        EXPECT(RTOPO_ERR_INVAL, rtopo_window_bcast(T, ib, 4, RTOPO_INT32, 0, -1));
        EXPECT(RTOPO_ERR_INVAL, rtopo_window_bcast(T, ib, 4, RTOPO_INT32, 0, w));
        EXPECT(RTOPO_ERR_INVAL, rtopo_window_bcast(T, ib, 4, RTOPO_INT32, 0, s + 1));
        EXPECT(RTOPO_ERR_INVAL, rtopo_window_bcast(T, ib, 4, RTOPO_INT32, -1, 1));
        EXPECT(RTOPO_ERR_INVAL, rtopo_window_bcast(T, ib, 4, RTOPO_INT32, n, 1));
        EXPECT(RTOPO_ERR_INVAL, rtopo_window_bcast(T, ib, 4, (rtopo_datatype_t)4, 0, 1));
    } else {
        EXPECT(RTOPO_ERR_UNSUPPORTED, rtopo_window_bcast(T, ib, 4, RTOPO_INT32, 0, 1));
        EXPECT(RTOPO_ERR_UNSUPPORTED, rtopo_iwindow_bcast(T, ib, 4, RTOPO_INT32, 0, 1, &req));
    }
    /* window broadcast on a ring over every rank */
    CHECK(rtopo_topo_ring(ctx, &ring));
    EXPECT(RTOPO_ERR_UNSUPPORTED, rtopo_window_bcast(ring, ib, 4, RTOPO_INT32, 0, 1));
    EXPECT(RTOPO_ERR_UNSUPPORTED, rtopo_window_bcast_init(ring, ib, 4, RTOPO_INT32, 0, 1,
                                                          &req));
    CHECK(rtopo_topo_free(ring));
    if (worst_s > prompt_limit_s()) {
        ok = 0;
        snprintf(why + strlen(why), whyn - strlen(why), " [a call that fails alone took "
                 "%.3f s, more than half of RTOPO_TIMEOUT_MS]", worst_s);
    }
    /* the job goes on: a broadcast and an allreduce, checked */
    for (i = 0; i < 16; i++)
        ib[i] = me == 1 % p ? 1000 + i : -1;
    EXPECT(RTOPO_OK, rtopo_bcast(T, ib, 16, RTOPO_INT32, 1 % p));
    for (i = 0; i < 16; i++)
        if (ib[i] != 1000 + i) {
            ok = 0;
            snprintf(why + strlen(why), whyn - strlen(why), " [bcast after the errors: "
                     "element %d is %d, want %d]", i, ib[i], 1000 + i);
            break;
        }
    for (i = 0; i < 4; i++)
        lb[i] = (int64_t)me * (i + 1) + ((int64_t)1 << 40);
    EXPECT(RTOPO_OK, rtopo_allreduce(T, lb, lo, 4, RTOPO_INT64, RTOPO_SUM));
    for (i = 0; i < 4; i++) {
        int64_t want = (int64_t)p * (p - 1) / 2 * (i + 1) + ((int64_t)p << 40);
        if (lo[i] != want) {
            ok = 0;
            snprintf(why + strlen(why), whyn - strlen(why), " [allreduce after the errors: "
                     "element %d is %lld, want %lld]", i, (long long)lo[i], (long long)want);
            break;
        }
    }
    /* count 0: nothing moves, the buffers may be NULL */
    EXPECT(RTOPO_OK, rtopo_bcast(T, NULL, 0, RTOPO_INT32, p - 1));
    EXPECT(RTOPO_OK, rtopo_allreduce(T, NULL, NULL, 0, RTOPO_DOUBLE, RTOPO_SUM));
    EXPECT(RTOPO_OK, rtopo_scan(T, NULL, NULL, 0, RTOPO_INT64, RTOPO_MAX));
    EXPECT(RTOPO_OK, rtopo_shift_fill(T, nd - 1, NULL, NULL, 0, 1));
    EXPECT(RTOPO_OK, rtopo_accumulate(T, 0, NULL, NULL, 0, E0));
    EXPECT(RTOPO_OK, rtopo_adjacent_sum(T, 0, NULL, NULL, 0, RTOPO_FLOAT, RTOPO_MIN, 1));
    EXPECT(RTOPO_OK, rtopo_consecutive_sum(T, nd - 1, NULL, NULL, 0, RTOPO_INT32, RTOPO_PROD,
                                           Elast));
    if (otis_mesh)
        EXPECT(RTOPO_OK, rtopo_window_bcast(T, NULL, 0, RTOPO_DOUBLE, 1, 1));
    *okp = ok;
}

static void run_error(const char *mode)
{
    int odd = me == p / 2, st, ok = 1, want = RTOPO_ERR_MISMATCH, i, E = ext[0];
    int32_t ib[64], ob[64 * 4];
    char why[1024] = "";
    double t0;

    for (i = 0; i < 64; i++)
        ib[i] = me + i;
    /* every rank past the creation before one of them errs; a rank still
     * leaving the barrier may hear of the failure there */
    t0 = iu_now();
    st = rtopo_barrier(ctx);
    if (st != RTOPO_OK && strcmp(mode, "badargs")) {
        report("rtopo_barrier (before)", st, t0);
        want = !strncmp(mode, "null-", 5) ? RTOPO_ERR_INVAL : RTOPO_ERR_MISMATCH;
        ok = st == want;
        if (!ok)
            snprintf(why, sizeof(why), "got %s, want %s", rtopo_err_name(st),
                     rtopo_err_name(want));
        goto verdict;
    }
    CHECK(st);
    if (!strcmp(mode, "badargs")) {
        run_badargs(why, sizeof(why), &ok);
        goto verdict;
    }
    t0 = iu_now();
    if (!strcmp(mode, "mismatch-root"))
        st = report("rtopo_bcast", rtopo_bcast(T, ib, 8, RTOPO_INT32, odd ? 1 : 0), t0);
    else if (!strcmp(mode, "mismatch-count"))
        st = report("rtopo_allreduce", rtopo_allreduce(T, ib, ob, odd ? 8 : 7, RTOPO_INT32,
                                                       RTOPO_SUM), t0);
    else if (!strcmp(mode, "mismatch-op"))
        st = report("rtopo_allreduce", rtopo_allreduce(T, ib, ob, 7, RTOPO_INT32,
                                                       odd ? RTOPO_MAX : RTOPO_SUM), t0);
    else if (!strcmp(mode, "mismatch-dtype"))
        st = report("rtopo_allreduce", rtopo_allreduce(T, ib, ob, 7, odd ? RTOPO_FLOAT :
                                                       RTOPO_INT32, RTOPO_MAX), t0);
    else if (!strcmp(mode, "mismatch-m"))
        st = report("rtopo_adjacent_sum", rtopo_adjacent_sum(T, 0, ib, ob, 7, RTOPO_INT32,
                                                             RTOPO_SUM, odd ? 1 : 2), t0);
    else if (!strcmp(mode, "mismatch-m-consec"))
        st = report("rtopo_consecutive_sum", rtopo_consecutive_sum(T, 0, ib, ob, 7,
                                                                   RTOPO_INT32, RTOPO_SUM,
                                                                   odd ? 1 : E), t0);
    else if (!strcmp(mode, "mismatch-dim"))
        st = report("rtopo_shift_fill", rtopo_shift_fill(T, odd ? 1 : 0, ib, ob, 28, 1), t0);
    else if (!strcmp(mode, "mismatch-disp"))
        st = report("rtopo_shift_fill", rtopo_shift_fill(T, 0, ib, ob, 28, odd ? -1 : 1), t0);
    else if (!strcmp(mode, "mismatch-w"))
        st = report("rtopo_window_bcast", rtopo_window_bcast(T, ib, 7, RTOPO_INT32, 0,
                                                             odd ? 1 : ext[2]), t0);
    else if (!strcmp(mode, "mismatch-group"))
        st = report("rtopo_window_bcast", rtopo_window_bcast(T, ib, 7, RTOPO_INT32,
                                                             odd ? 1 : 0, 1), t0);
    else if (!strcmp(mode, "mismatch-coll"))
        st = odd ? report("rtopo_scan", rtopo_scan(T, ib, ob, 7, RTOPO_INT32, RTOPO_SUM), t0) :
             report("rtopo_allreduce", rtopo_allreduce(T, ib, ob, 7, RTOPO_INT32, RTOPO_SUM),
                    t0);
    else if (!strcmp(mode, "mismatch-coll-bcast"))
        st = odd ? report("rtopo_bcast", rtopo_bcast(T, ob, 7, RTOPO_INT32, 0), t0) :
             report("rtopo_allreduce", rtopo_allreduce(T, ib, ob, 7, RTOPO_INT32, RTOPO_SUM),
                    t0);
    else if (!strcmp(mode, "mismatch-algo")) {
        CHECK(rtopo_topo_set_coll_algo(T, odd ? RTOPO_COLL_GENERIC : RTOPO_COLL_TOPO));
        st = report("rtopo_bcast", rtopo_bcast(T, ib, 7, RTOPO_INT32, 0), t0);
    } else if (!strcmp(mode, "null-send")) {
        want = RTOPO_ERR_INVAL;
        st = report("rtopo_allreduce", rtopo_allreduce(T, odd ? NULL : ib, ob, 7, RTOPO_INT32,
                                                       RTOPO_SUM), t0);
    } else if (!strcmp(mode, "null-recv")) {
        want = RTOPO_ERR_INVAL;
        st = report("rtopo_bcast", rtopo_bcast(T, odd ? NULL : ib, 7, RTOPO_INT32, 0), t0);
    } else {
        fprintf(stderr, "unknown error case %s\n", mode);
        exit(2);
    }
    if (st == RTOPO_OK) {
        /* only the barrier can tell this rank */
        t0 = iu_now();
        st = report("rtopo_barrier", rtopo_barrier(ctx), t0);
    }
    ok = st == want;
    if (!ok)
        snprintf(why, sizeof(why), "got %s, want %s", rtopo_err_name(st), rtopo_err_name(want));
    else if (worst_s > 5.0) {
        ok = 0;
        snprintf(why, sizeof(why), "a call took %.3f s", worst_s);
    }
verdict:
    printf("rank %d: verdict: %s%s\n", rank, ok ? "pass" : "FAIL", why);
    fflush(stdout);
}

/* one group of options: the ones between two --then */
struct group {
    const char *algos, *ops, *counts, *modes, *mems, *disps, *err;
};

/* parses argv[*i..] into g (and the globals the options set, each first
 * back at its default) up to the next --then, which it passes over */
static void parse_group(int argc, char **argv, int *i, struct group *g)
{
    g->algos = "auto";
    g->ops = "all";
    g->counts = "1,7,300000";
    g->modes = "blocking";
    g->mems = "reg";
    g->disps = "compact";
    g->err = NULL;
    topo_spec = "ring";
    matrix_full = 0;
    rounds = 3;
    big_every = 3;
    seed = 1;
    verbose = 0;
    overlap = 0;
    for (; *i < argc && strcmp(argv[*i], "--then"); (*i)++) {
        int j = *i;

        if (!strcmp(argv[j], "--topo") && j + 1 < argc)
            topo_spec = argv[++*i];
        else if (!strcmp(argv[j], "--algos") && j + 1 < argc)
            g->algos = argv[++*i];
        else if (!strcmp(argv[j], "--ops") && j + 1 < argc)
            g->ops = argv[++*i];
        else if (!strcmp(argv[j], "--counts") && j + 1 < argc)
            g->counts = argv[++*i];
        else if (!strcmp(argv[j], "--modes") && j + 1 < argc)
            g->modes = argv[++*i];
        else if (!strcmp(argv[j], "--mem") && j + 1 < argc)
            g->mems = argv[++*i];
        else if (!strcmp(argv[j], "--disps") && j + 1 < argc)
            g->disps = argv[++*i];
        else if (!strcmp(argv[j], "--matrix") && j + 1 < argc)
            matrix_full = !strcmp(argv[++*i], "full");
        else if (!strcmp(argv[j], "--rounds") && j + 1 < argc)
            rounds = atoi(argv[++*i]);
        else if (!strcmp(argv[j], "--big-every") && j + 1 < argc)
            big_every = atoi(argv[++*i]);
        else if (!strcmp(argv[j], "--seed") && j + 1 < argc)
            seed = (unsigned)strtoul(argv[++*i], NULL, 0);
        else if (!strcmp(argv[j], "--error") && j + 1 < argc)
            g->err = argv[++*i];
        else if (!strcmp(argv[j], "--verbose"))
            verbose = 1;
        else if (!strcmp(argv[j], "--overlap"))
            overlap = 1;
        else {
            fprintf(stderr, "usage: see the head of coll_check.c (%s)\n", argv[j]);
            exit(2);
        }
    }
    if (*i < argc)
        (*i)++;   /* --then */
}

/* the group's cases on a topology of its own, from the state a job
 * starts in; the number of wrong cases */
static int run_group(const struct group *g)
{
    long counts[16];
    int i, ncounts, errs;
    double t0 = iu_now();

    checked = wrong = 0;
    iter = 0;
    printed = 0;
    nplan = nmodes = nmems = 0;
    memset(rot, 0, sizeof(rot));
    memset(bigseen, 0, sizeof(bigseen));
    memset(bigovl, 0, sizeof(bigovl));
    if (rounds < 1 || big_every < 1) {
        fprintf(stderr, "--rounds and --big-every take a positive number\n");
        exit(2);
    }
    for (i = 0; i < 3; i++)
        if (has_word(!strcmp(g->modes, "all") ? "blocking,nonblocking,persistent" : g->modes,
                     mode_names[i]))
            modes[nmodes++] = i;
    for (i = 0; i < 2; i++)
        if (has_word(!strcmp(g->mems, "all") ? "reg,unreg" : g->mems, mem_names[i]))
            mems[nmems++] = i;
    ncounts = parse_list(g->counts, counts, 16);
    if (!nmodes || !nmems || !ncounts) {
        fprintf(stderr, "--modes, --mem and --counts need at least one entry\n");
        exit(2);
    }
    topo_setup();
    build_plan(g->ops, counts, ncounts, g->disps);
    errs = run_plan(!strcmp(g->algos, "all") ? "auto,topo,generic" : g->algos);
    CHECK(rtopo_topo_free(T));
    T = NULL;
    printf("rank %d: %s: %ld checks, %ld wrong, %.2f s\n", rank, topo_spec, checked, wrong,
           iu_now() - t0);
    return errs || wrong;
}

int main(int argc, char **argv)
{
    struct group g;
    int i = 1, st, fails = 0, first = 1;

    CHECK(rtopo_init(NULL, &ctx));
    rank = rtopo_rank(ctx);
    size = rtopo_size(ctx);
    while (first || i < argc) {
        parse_group(argc, argv, &i, &g);
        if (g.err) {
            if (!first || i < argc) {
                fprintf(stderr, "--error takes one group of options, no --then\n");
                exit(2);
            }
            topo_setup();
            run_error(g.err);
            rtopo_topo_free(T);
            st = rtopo_finalize(ctx);
            (void)st;
            return 0;
        }
        fails += run_group(&g);
        first = 0;
    }
    CHECK(rtopo_finalize(ctx));
    free(plan);
    return fails ? 1 : 0;
}
