/*
 * test_coll.c - the collectives (topo/coll_build.c and the coll_*.c
 * families) against their serial reference (coll_ref.c).
 *
 * Every operation with the topology's algorithm, the generic one and
 * AUTO, on OTIS-meshes (n = 1, 4, 16, 64) and OTIS-hypercubes (n = 1, 2,
 * 4, 8, 16), and on rings, meshes and hypercubes; every datatype and
 * operator, counts 1 and 5, pipelines of one piece, three pieces and the
 * model's choice.  Each schedule is validated and executed in memory on
 * random data: small integers for the reductions (exact in every type,
 * so any combining order gives the same bytes; products of -1, 1 and 2
 * only), random bytes otherwise.  Every rank's RECV must equal the
 * reference byte for byte, SEND must be left as it was, and guard bytes
 * after SEND, RECV and TMP must be untouched.  Then the move counts of
 * SPEC 5.5 (Wang and Sahni's SIMD table, and the MIMD data sum) and the
 * argument errors, which the generator and the reference must agree on.
 * The reference itself is first checked against index arithmetic written
 * out here for the OTIS-mesh (G = Gx*s + Gy, P = Px*s + Py, I = G*n + P).
 * Selection and routing: the reference on literal examples; select_rank
 * on every topology with every algorithm; concentrate, distribute and
 * generalize on OTIS-meshes (n = 1, 4, 9, 16 every input variant and
 * record size, a few cases at n = 64) with RECV and got against the
 * reference, and the generalize's single routing (TOPO) on its own, every
 * variant with records of 1, 8, 13 and 100 bytes; their move counts (the
 * generalize under TOPO and AUTO); argument errors and inputs that break
 * the order, which the reference and the execution must both refuse.
 */
#include "config.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "test_unit.h"

#define GUARD 16u            /* bytes checked after every buffer */
#define FAIL_BUDGET 40       /* failing cases reported per test, then stop */
#define OP_BUDGET 3          /* ... per operation and topology */

static const int dtypes[4] = { RTOPO_INT32, RTOPO_INT64, RTOPO_FLOAT, RTOPO_DOUBLE };
static const int rops[4] = { RTOPO_SUM, RTOPO_PROD, RTOPO_MIN, RTOPO_MAX };
static const char *const dtype_names[4] = { "int32", "int64", "float", "double" };
static const char *const rop_names[4] = { "sum", "prod", "min", "max" };
static const uint64_t counts[2] = { 1, 5 };
static const uint32_t chunk_values[3] = { 1, 0, 3 };
static const int algos[3] = { RTOPO_COLL_TOPO, RTOPO_COLL_GENERIC, RTOPO_COLL_AUTO };

static int fails_left;       /* failing cases this test may still report */
static int op_left[RTOPO__COLL_NOPS];   /* ... this topology, per operation */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t case_no;     /* cases run so far, for the variants */

static void budget_topo(void)
{
    int op;

    for (op = 0; op < RTOPO__COLL_NOPS; op++)
        op_left[op] = OP_BUDGET;
}

static void budget_test(void)
{
    fails_left = FAIL_BUDGET;
    budget_topo();
}

static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static void tdesc(rtopo__tdesc_t *t, int kind, int p, int a, int b)
{
    CU_ASSERT_FATAL(rtopo__tdesc_init(t, kind, p, a, b) == RTOPO_OK);
}

static int reduces(int op)
{
    return rtopo__coll_desc(op) && (rtopo__coll_desc(op)->flags & RTOPO__CF_REDUCE);
}

static int byte_op(int op)
{
    return rtopo__coll_desc(op) && (rtopo__coll_desc(op)->flags & RTOPO__CF_BYTES);
}

static int isqrt(int n)
{
    int s = 0;

    while ((s + 1) * (s + 1) <= n)
        s++;
    return s;
}

static const char *dname(int dtype)
{
    return dtype >= 0 && dtype < 4 ? dtype_names[dtype] : "?";
}

static const char *rname(int rop)
{
    return rop >= 0 && rop < 4 ? rop_names[rop] : "?";
}

/* the case, for messages: only the fields the operation reads */
static const char *cdesc(const rtopo__tdesc_t *t, const rtopo__coll_t *c)
{
    static char buf[320];
    int o, k;

    o = snprintf(buf, sizeof(buf), "%s", rtopo__topo_name(t->kind));
    if (t->kind == RTOPO__TOPO_OTIS_MESH || t->kind == RTOPO__TOPO_OTIS_HYPERCUBE)
        o += snprintf(buf + o, sizeof(buf) - (size_t)o, " n %d", t->n);
    else if (t->kind == RTOPO__TOPO_MESH)
        o += snprintf(buf + o, sizeof(buf) - (size_t)o, " %dx%d", t->rows, t->cols);
    o += snprintf(buf + o, sizeof(buf) - (size_t)o, " p %d %s algo %s", t->p,
                  rtopo__coll_name(c->op), rtopo__coll_algo_name(c->algo));
    if (rtopo__coll_is_route(c->op)) {
        if (c->op != RTOPO__COLL_SELECT_RANK)
            snprintf(buf + o, sizeof(buf) - (size_t)o, " count %" PRIu64 " record %zu",
                     c->count, c->esize);
        return buf;
    }
    if (reduces(c->op))
        o += snprintf(buf + o, sizeof(buf) - (size_t)o, " %s %s", dname(c->dtype),
                      rname(c->rop));
    else if (!byte_op(c->op))
        o += snprintf(buf + o, sizeof(buf) - (size_t)o, " %s", dname(c->dtype));
    o += snprintf(buf + o, sizeof(buf) - (size_t)o, " count %" PRIu64 " esize %zu chunks %u",
                  c->count, c->esize, c->chunks);
    if (c->op == RTOPO__COLL_BPC) {
        o += snprintf(buf + o, sizeof(buf) - (size_t)o, " vector [");
        for (k = c->bpc_bits - 1; k >= 0; k--)
            o += snprintf(buf + o, sizeof(buf) - (size_t)o, "%s%s%d",
                          k < c->bpc_bits - 1 ? ", " : "", (c->bpc_neg >> k) & 1 ? "-" : "",
                          c->bpc_to[k]);
        snprintf(buf + o, sizeof(buf) - (size_t)o, "] (A_%d first)", c->bpc_bits - 1);
        return buf;
    }
    if (c->op == RTOPO__COLL_SORT) {
        snprintf(buf + o, sizeof(buf) - (size_t)o, "%s%s", c->desc ? " desc" : " asc",
                 c->mm > 0 ? " column set" : "");
        return buf;
    }
    if (c->op == RTOPO__COLL_BCAST)
        o += snprintf(buf + o, sizeof(buf) - (size_t)o, " root %d", c->root);
    if (c->op == RTOPO__COLL_WINDOW_BCAST)
        o += snprintf(buf + o, sizeof(buf) - (size_t)o, " group %d w %d", c->root, c->w);
    if (c->op >= RTOPO__COLL_SHIFT_FILL)
        o += snprintf(buf + o, sizeof(buf) - (size_t)o, " dim %d", c->dim);
    if (c->op == RTOPO__COLL_SHIFT_FILL)
        snprintf(buf + o, sizeof(buf) - (size_t)o, " disp %d", c->disp);
    else if (c->op > RTOPO__COLL_SHIFT_FILL)
        snprintf(buf + o, sizeof(buf) - (size_t)o, " M %d", c->mm);
    return buf;
}

/* a collective with the variant k of (dtype, rop, count, chunks): every
 * value of each comes up within a few dozen cases */
static void coll_init(rtopo__coll_t *c, int op, int algo, uint64_t k)
{
    memset(c, 0, sizeof(*c));
    c->op = op;
    c->algo = algo;
    c->dtype = dtypes[k % 4];
    c->rop = rops[(k / 4) % 4];
    c->count = counts[(k / 3) % 2];
    c->chunks = chunk_values[(k / 5) % 3];
    c->esize = byte_op(op) ? 1 : rtopo__dtype_size(c->dtype);
}

static void put_val(int dtype, uint8_t *d, long v)
{
    switch (dtype) {
    case RTOPO_INT32: { int32_t x = (int32_t)v; memcpy(d, &x, sizeof x); break; }
    case RTOPO_INT64: { int64_t x = v; memcpy(d, &x, sizeof x); break; }
    case RTOPO_FLOAT: { float x = (float)v; memcpy(d, &x, sizeof x); break; }
    default: { double x = (double)v; memcpy(d, &x, sizeof x); break; }
    }
}

static void val_str(int dtype, const uint8_t *d, char *buf, size_t n)
{
    switch (dtype) {
    case RTOPO_INT32: { int32_t x; memcpy(&x, d, sizeof x); snprintf(buf, n, "%d", x); break; }
    case RTOPO_INT64: {
        int64_t x;
        memcpy(&x, d, sizeof x);
        snprintf(buf, n, "%" PRId64, x);
        break;
    }
    case RTOPO_FLOAT: { float x; memcpy(&x, d, sizeof x); snprintf(buf, n, "%g", x); break; }
    default: { double x; memcpy(&x, d, sizeof x); snprintf(buf, n, "%g", x); break; }
    }
}

static uint8_t guard_byte(int r, unsigned k)
{
    return (uint8_t)(0x5A + 7 * k + 13 * (unsigned)r);
}

/* per-rank SEND, RECV, TMP with guards, the reference's output and a copy
 * of SEND */
typedef struct cbufs {
    int p;
    uint64_t sb, rb, tb;
    uint8_t *send, *recv, *tmp, *ref, *send0;
    uint8_t **ptr, ***bufs, **out;
} cbufs_t;

/* when set, coll_run lets it write the SEND inputs after cbufs_fill */
static void (*fill_hook)(cbufs_t *b, const rtopo__coll_t *c);

static void cbufs_free(cbufs_t *b)
{
    free(b->send);
    free(b->recv);
    free(b->tmp);
    free(b->ref);
    free(b->send0);
    free(b->ptr);
    free(b->bufs);
    free(b->out);
    memset(b, 0, sizeof(*b));
}

static uint8_t *cb_send(const cbufs_t *b, int r) { return b->send + (size_t)r * (b->sb + GUARD); }
static uint8_t *cb_recv(const cbufs_t *b, int r) { return b->recv + (size_t)r * (b->rb + GUARD); }
static uint8_t *cb_tmp(const cbufs_t *b, int r) { return b->tmp + (size_t)r * (b->tb + GUARD); }

static int cbufs_init(cbufs_t *b, int p, uint64_t sb, uint64_t rb, uint64_t tb)
{
    int r;

    memset(b, 0, sizeof(*b));
    b->p = p;
    b->sb = sb;
    b->rb = rb;
    b->tb = tb;
    b->send = malloc((size_t)p * (sb + GUARD));
    b->recv = malloc((size_t)p * (rb + GUARD));
    b->tmp = malloc((size_t)p * (tb + GUARD));
    b->ref = malloc((size_t)p * rb + 1);
    b->send0 = malloc((size_t)p * (sb + GUARD));
    b->ptr = malloc((size_t)p * RTOPO__BUF_COUNT * sizeof(*b->ptr));
    b->bufs = malloc((size_t)p * sizeof(*b->bufs));
    b->out = malloc((size_t)p * sizeof(*b->out));
    if (!b->send || !b->recv || !b->tmp || !b->ref || !b->send0 || !b->ptr || !b->bufs ||
        !b->out) {
        cbufs_free(b);
        return -1;
    }
    for (r = 0; r < p; r++) {
        b->bufs[r] = b->ptr + (size_t)r * RTOPO__BUF_COUNT;
        b->bufs[r][RTOPO__BUF_SEND] = cb_send(b, r);
        b->bufs[r][RTOPO__BUF_RECV] = cb_recv(b, r);
        b->bufs[r][RTOPO__BUF_TMP] = cb_tmp(b, r);
        b->out[r] = b->ref + (size_t)r * rb;
    }
    return 0;
}

/* inputs: exact small integers for reductions, random bytes otherwise;
 * RECV and TMP hold garbage (BCAST's RECV: the data), guards after all */
static void cbufs_fill(cbufs_t *b, const rtopo__coll_t *c)
{
    size_t es = rtopo__dtype_size(c->dtype);
    uint64_t k;
    unsigned g;
    int r;

    for (r = 0; r < b->p; r++) {
        uint8_t *s = cb_send(b, r), *v = cb_recv(b, r), *t = cb_tmp(b, r);

        if (reduces(c->op) && es)
            for (k = 0; k + es <= b->sb; k += es) {
                long x;

                switch (c->rop) {
                case RTOPO_SUM: x = (long)(rnd() % 17) - 8; break;
                case RTOPO_PROD: x = (long)(rnd() % 3) - 1; x = x ? x : 2; break;
                default: x = (long)(rnd() % 201) - 100; break;
                }
                put_val(c->dtype, s + k, x);
            }
        else
            for (k = 0; k < b->sb; k++)
                s[k] = (uint8_t)rnd();
        for (k = 0; k < b->rb; k++)
            v[k] = (uint8_t)rnd();
        memset(t, 0xEE, (size_t)b->tb);
        for (g = 0; g < GUARD; g++) {
            s[b->sb + g] = guard_byte(r, g);
            v[b->rb + g] = guard_byte(r, g + 1);
            t[b->tb + g] = guard_byte(r, g + 2);
        }
    }
    memcpy(b->send0, b->send, (size_t)b->p * (b->sb + GUARD));
}

static int guard_ok(const uint8_t *end, int r, unsigned shift)
{
    unsigned g;

    for (g = 0; g < GUARD; g++)
        if (end[g] != guard_byte(r, g + shift))
            return 0;
    return 1;
}

/* Build c on t, validate, execute on random data and compare with the
 * reference.  Returns 0 when all is well; failures are recorded.  *s_p
 * (may be NULL) gets the schedule. */
static int coll_run(const rtopo__tdesc_t *t, const rtopo__coll_t *c, rtopo__sched_t **s_p)
{
    rtopo__sched_t *s = NULL;
    cbufs_t b;
    uint64_t size[RTOPO__BUF_COUNT], k;
    int r, st, ok = 1, bad = 0, first = -1, otis;
    const char *d;

    if (fails_left <= 0 || c->op <= 0 || c->op >= RTOPO__COLL_NOPS || op_left[c->op] <= 0)
        return -1;
    case_no++;
    st = rtopo__sched_coll(t, c, NULL, &s);
    if (!TU_CHECK(st == RTOPO_OK && s, "%s: build: %s: %s", cdesc(t, c), rtopo_strerror(st),
                  rtopo_last_error())) {
        fails_left--;
        op_left[c->op]--;
        return -1;
    }
    d = cdesc(t, c);
    otis = t->kind == RTOPO__TOPO_OTIS_MESH || t->kind == RTOPO__TOPO_OTIS_HYPERCUBE;
    ok &= TU_CHECK(rtopo__sched_validate(s) == RTOPO_OK, "%s: invalid schedule: %s", d,
                   rtopo_last_error());
    /* an explicit choice holds where both exist: bcast, scan and allreduce
     * on the OTIS topologies; elsewhere there is one (TOPO on a ring, mesh
     * or cube is GENERIC, and the window broadcast and the line
     * operations have only the topology's) */
    ok &= TU_CHECK(c->algo == RTOPO_COLL_AUTO || s->algo == c->algo ||
                   (!otis && c->op <= RTOPO__COLL_ALLREDUCE && c->algo == RTOPO_COLL_TOPO &&
                    s->algo == RTOPO_COLL_GENERIC) ||
                   ((c->op == RTOPO__COLL_WINDOW_BCAST || c->op >= RTOPO__COLL_SHIFT_FILL) &&
                    s->algo == RTOPO_COLL_TOPO),
                   "%s: built algo %d (%s)", d, s->algo, rtopo__coll_algo_name(s->algo));
    ok &= TU_CHECK(s->algo == RTOPO_COLL_TOPO || s->algo == RTOPO_COLL_GENERIC,
                   "%s: s->algo %d", d, s->algo);
    size[RTOPO__BUF_SEND] = rtopo__coll_send_bytes(c);
    size[RTOPO__BUF_RECV] = rtopo__coll_recv_bytes(c);
    size[RTOPO__BUF_TMP] = s->tmp_bytes;
    CU_ASSERT_FATAL(cbufs_init(&b, t->p, size[0], size[1], size[2]) == 0);
    cbufs_fill(&b, c);
    if (fill_hook) {
        fill_hook(&b, c);
        memcpy(b.send0, b.send, (size_t)b.p * (b.sb + GUARD));
    }
    st = rtopo__coll_ref(t, c, (uint8_t *const *const *)b.bufs, b.out);
    ok &= TU_CHECK(st == RTOPO_OK, "%s: reference: %s", d, rtopo_last_error());
    st = rtopo__sim_exec_sized(s, (uint8_t *const *const *)b.bufs, size);
    ok &= TU_CHECK(st == RTOPO_OK, "%s: execution: %s", d, rtopo_last_error());
    if (ok) {
        for (r = 0; r < t->p; r++)
            if (memcmp(cb_recv(&b, r), b.out[r], (size_t)b.rb)) {
                if (first < 0)
                    first = r;
                bad++;
            }
        if (bad) {
            const uint8_t *got = cb_recv(&b, first), *want = b.out[first];
            uint64_t m = c->count * c->esize;
            char ws[48] = "", gs[48] = "";

            for (k = 0; k < b.rb && got[k] == want[k]; k++)
                ;
            if (!byte_op(c->op) && c->esize == rtopo__dtype_size(c->dtype)) {
                uint64_t e = k / c->esize * c->esize;

                val_str(c->dtype, want + e, ws, sizeof(ws));
                val_str(c->dtype, got + e, gs, sizeof(gs));
            }
            ok = TU_CHECK(0, "%s: %d rank(s) differ from the reference, first rank %d at "
                          "byte %" PRIu64 " (block %" PRIu64 ", element %" PRIu64 "): "
                          "expected 0x%02x got 0x%02x%s%s%s%s%s", d, bad, first, k,
                          m ? k / m : 0, m ? k % m / c->esize : 0, want[k], got[k],
                          *ws ? " (element " : "", ws, *ws ? " vs " : "", gs, *ws ? ")" : "");
        }
        for (r = 0; r < t->p; r++) {
            if (!guard_ok(cb_send(&b, r) + b.sb, r, 0) || !guard_ok(cb_recv(&b, r) + b.rb, r, 1) ||
                !guard_ok(cb_tmp(&b, r) + b.tb, r, 2)) {
                ok = TU_CHECK(0, "%s: rank %d wrote past a buffer (guard bytes changed)", d,
                              r);
                break;
            }
            if (memcmp(cb_send(&b, r), b.send0 + (size_t)r * (b.sb + GUARD), (size_t)b.sb)) {
                ok = TU_CHECK(0, "%s: rank %d's SEND changed (the send buffer is read "
                              "only)", d, r);
                break;
            }
        }
    }
    cbufs_free(&b);
    if (!ok) {
        fails_left--;
        op_left[c->op]--;
    }
    if (s_p)
        *s_p = s;
    else
        rtopo__sched_free(s);
    return ok ? 0 : -1;
}

/* ---- the reference against index arithmetic ----------------------------- */

/* OTIS-mesh: coordinates of rank r and the rank of coordinates, by hand */
static void om_coords(int n, int s, int r, int *c)
{
    int G = r / n, P = r % n;

    c[0] = G / s;
    c[1] = G % s;
    c[2] = P / s;
    c[3] = P % s;
}

static int om_rank(int n, int s, const int *c)
{
    return (c[0] * s + c[1]) * n + c[2] * s + c[3];
}

static int64_t ld64(const uint8_t *p)
{
    int64_t x;

    memcpy(&x, p, sizeof x);
    return x;
}

/* int64 sums over OTIS-mesh n = 16 and 9, every operation, every
 * parameter, worked out with the formulas of the header on explicit
 * coordinates; the ring and mesh scan on a literal example */
static void test_ref(void)
{
    static const int ns[2] = { 16, 9 };
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    cbufs_t b;
    int ni, op, r, i, dim, v, co[4], x[4], E;
    const uint64_t cnt = 2, m = cnt * 8;

    for (ni = 0; ni < 2; ni++) {
        int n = ns[ni], s = isqrt(n), p = n * n;

        tdesc(&t, RTOPO__TOPO_OTIS_MESH, p, n, 0);
        for (op = RTOPO__COLL_BCAST; op < RTOPO__COLL_SELECT_RANK; op++) {
            int nv = op == RTOPO__COLL_BCAST ? 3 : op == RTOPO__COLL_WINDOW_BCAST ? s :
                     op == RTOPO__COLL_SCAN || op == RTOPO__COLL_ALLREDUCE ? 1 :
                     op == RTOPO__COLL_SHIFT_FILL ? 4 * (2 * s + 1) : 4 * s;

            for (v = 0; v < nv; v++) {
                memset(&c, 0, sizeof(c));
                c.op = op;
                c.dtype = RTOPO_INT64;
                c.rop = RTOPO_SUM;
                c.count = cnt;
                c.esize = 8;
                c.root = op == RTOPO__COLL_BCAST ? (v * 97) % p : n - 1 - v % n;
                c.w = v + 1;
                c.dim = op == RTOPO__COLL_SHIFT_FILL ? v / (2 * s + 1) : v / s;
                c.disp = v % (2 * s + 1) - s;
                c.mm = v % s + 1;
                if (op == RTOPO__COLL_WINDOW_BCAST && s % c.w)
                    continue;
                if (op == RTOPO__COLL_CONSEC_SUM && s % c.mm)
                    continue;
                CU_ASSERT_FATAL(cbufs_init(&b, p, rtopo__coll_send_bytes(&c),
                                           rtopo__coll_recv_bytes(&c), 0) == 0);
                cbufs_fill(&b, &c);
                if (!TU_CHECK(rtopo__coll_ref(&t, &c, (uint8_t *const *const *)b.bufs,
                                              b.out) == RTOPO_OK, "%s: %s", cdesc(&t, &c),
                              rtopo_last_error())) {
                    cbufs_free(&b);
                    return;
                }
                for (r = 0; r < p; r++) {
                    uint64_t e;

                    om_coords(n, s, r, co);
                    for (e = 0; e < b.rb; e += 8) {
                        int64_t want = 0, got = ld64(b.out[r] + e);
                        uint64_t blk = e / m, off = e % m;

                        memcpy(x, co, sizeof(x));
                        dim = c.dim;
                        E = s;
                        switch (op) {
                        case RTOPO__COLL_BCAST:
                            want = ld64(cb_recv(&b, c.root) + e);
                            break;
                        case RTOPO__COLL_WINDOW_BCAST:
                            x[0] = c.root / s;
                            x[1] = c.root % s;
                            x[2] = co[2] % c.w;
                            x[3] = co[3] % c.w;
                            want = ld64(cb_recv(&b, om_rank(n, s, x)) + e);
                            break;
                        case RTOPO__COLL_SCAN:
                        case RTOPO__COLL_ALLREDUCE:
                            for (i = 0; i <= (op == RTOPO__COLL_SCAN ? r : p - 1); i++)
                                want += ld64(cb_send(&b, i) + e);
                            break;
                        case RTOPO__COLL_SHIFT_FILL:
                            x[dim] = co[dim] - c.disp;
                            want = x[dim] < 0 || x[dim] >= E ? 0 :
                                   ld64(cb_send(&b, om_rank(n, s, x)) + e);
                            break;
                        case RTOPO__COLL_ACCUMULATE:
                            x[dim] = (co[dim] + (int)blk) % E;
                            want = ld64(cb_send(&b, om_rank(n, s, x)) + off);
                            break;
                        case RTOPO__COLL_ADJACENT_SUM:
                            for (i = 0; i < c.mm; i++) {
                                x[dim] = (co[dim] + i) % E;
                                want += ld64(cb_send(&b, om_rank(n, s, x)) + e);
                            }
                            break;
                        default:
                            for (i = 0; i < c.mm; i++) {
                                x[dim] = co[dim] - co[dim] % c.mm + i;
                                want += ld64(cb_send(&b, om_rank(n, s, x)) +
                                             (uint64_t)(co[dim] % c.mm) * m + e);
                            }
                            break;
                        }
                        if (!TU_CHECK(got == want, "reference %s: rank %d byte %" PRIu64
                                      ": %" PRId64 ", by hand %" PRId64, cdesc(&t, &c), r, e,
                                      got, want)) {
                            cbufs_free(&b);
                            return;
                        }
                    }
                }
                cbufs_free(&b);
            }
        }
    }
    /* literal: ring of 4, scan and allreduce of 1, 2, 3, 4 (int32 sum),
     * product on a 2x3 mesh; a zero-fill shift on the ring */
    {
        static const int32_t in[6] = { 1, 2, 3, 4, -1, 2 };
        static const int32_t scan[4] = { 1, 3, 6, 10 }, fill[4] = { 0, 0, 1, 2 };
        int32_t got;

        tdesc(&t, RTOPO__TOPO_RING, 4, 0, 0);
        memset(&c, 0, sizeof(c));
        c.dtype = RTOPO_INT32;
        c.esize = 4;
        c.count = 1;
        for (op = RTOPO__COLL_SCAN; op <= RTOPO__COLL_SHIFT_FILL; op++) {
            c.op = op;
            c.disp = 2;
            CU_ASSERT_FATAL(cbufs_init(&b, 4, 4, 4, 0) == 0);
            for (r = 0; r < 4; r++)
                memcpy(cb_send(&b, r), &in[r], 4);
            CU_ASSERT(rtopo__coll_ref(&t, &c, (uint8_t *const *const *)b.bufs, b.out) == 0);
            for (r = 0; r < 4; r++) {
                memcpy(&got, b.out[r], 4);
                TU_CHECK(got == (op == RTOPO__COLL_SCAN ? scan[r] : op ==
                                 RTOPO__COLL_ALLREDUCE ? 10 : fill[r]),
                         "ring %s rank %d: %d", rtopo__coll_name(op), r, got);
            }
            cbufs_free(&b);
        }
        tdesc(&t, RTOPO__TOPO_MESH, 6, 2, 3);
        c.op = RTOPO__COLL_ALLREDUCE;
        c.rop = RTOPO_PROD;
        CU_ASSERT_FATAL(cbufs_init(&b, 6, 4, 4, 0) == 0);
        for (r = 0; r < 6; r++)
            memcpy(cb_send(&b, r), &in[r], 4);
        CU_ASSERT(rtopo__coll_ref(&t, &c, (uint8_t *const *const *)b.bufs, b.out) == 0);
        for (r = 0; r < 6; r++) {
            memcpy(&got, b.out[r], 4);
            TU_CHECK(got == -48, "mesh 2x3 product rank %d: %d", r, got);
        }
        /* adjacent sum along the mesh rows (dim 1), M 2: r + right neighbour */
        c.op = RTOPO__COLL_ADJACENT_SUM;
        c.rop = RTOPO_SUM;
        c.dim = 1;
        c.mm = 2;
        CU_ASSERT(rtopo__coll_ref(&t, &c, (uint8_t *const *const *)b.bufs, b.out) == 0);
        {
            static const int32_t adj[6] = { 3, 5, 4, 3, 1, 6 };

            for (r = 0; r < 6; r++) {
                memcpy(&got, b.out[r], 4);
                TU_CHECK(got == adj[r], "mesh 2x3 adjacent sum rank %d: %d", r, got);
            }
        }
        cbufs_free(&b);
    }
}

/* ---- schedules against the reference ------------------------------------ */

/* Every operation on t.  level 0: every parameter (roots, windows,
 * displacements -E..E, M) and, for scan and allreduce, every variant;
 * level 1: a sample of each; level 2 (thousands of ranks): the sample
 * with the topology's algorithm, one case of bcast, scan and allreduce
 * with the generic one and AUTO (their code is the same on every size). */
static void topo_cases(const rtopo__tdesc_t *t, int level)
{
    int nd = rtopo__cart_ndims(t), p = t->p, ai, op, v, dim, E, i, mm;
    rtopo__coll_t c;

    budget_topo();
    for (ai = 0; ai < 3 && fails_left > 0; ai++) {
        int algo = algos[ai], few = level == 2 && algo != RTOPO_COLL_TOPO;
        int roots[5] = { 0, p - 1, p / 2, (p / 3 + 1) % p, (int)(rnd() % (unsigned)p) };
        int nroots = few ? 1 : level == 2 ? 2 : 5;

        /* broadcast from several roots, each with a few variants */
        for (i = 0; i < nroots; i++)
            for (v = 0; v < (level ? 1 : 3); v++) {
                coll_init(&c, RTOPO__COLL_BCAST, algo, case_no);
                c.root = roots[few ? 4 : i];
                coll_run(t, &c, NULL);
            }
        /* scan and allreduce: every variant (level 1: 8, 2: 2 or 1) */
        for (op = RTOPO__COLL_SCAN; op <= RTOPO__COLL_ALLREDUCE; op++)
            for (v = 0; v < (few ? 1 : level == 2 ? 2 : level ? 8 : 96); v++) {
                coll_init(&c, op, algo, level ? case_no : (uint64_t)v);
                if (!level) {   /* the full product: dtype x rop x count x chunks */
                    c.dtype = dtypes[v % 4];
                    c.rop = rops[v / 4 % 4];
                    c.count = counts[v / 16 % 2];
                    c.chunks = chunk_values[v / 32];
                    c.esize = rtopo__dtype_size(c.dtype);
                }
                coll_run(t, &c, NULL);
            }
        if (few)
            continue;
        if (t->kind == RTOPO__TOPO_OTIS_MESH) {
            int s = isqrt(t->n), groups[3] = { 0, t->n - 1, t->n / 2 }, w;

            for (i = 0; i < 3; i++)
                for (w = 1; w <= s; w++)
                    if (s % w == 0 && (level < 2 || w == i + 1 || w == s)) {
                        coll_init(&c, RTOPO__COLL_WINDOW_BCAST, algo, case_no);
                        c.root = groups[i];
                        c.w = w;
                        coll_run(t, &c, NULL);
                    }
        }
        /* line operations along every dimension */
        for (dim = 0; dim < nd; dim++) {
            int disps[6];

            E = rtopo__cart_extent(t, dim);
            disps[0] = -E + 1;
            disps[1] = 1;
            disps[2] = -1;
            disps[3] = E / 2;
            disps[4] = E - 1;
            disps[5] = E;
            for (i = level ? 0 : -E; i <= (level ? (level == 2 ? 1 : 5) : E); i++) {
                coll_init(&c, RTOPO__COLL_SHIFT_FILL, algo, case_no);
                c.dim = dim;
                c.disp = level ? disps[(i + dim) % 6] : i;
                coll_run(t, &c, NULL);
            }
            for (mm = 1; mm <= E; mm++) {
                /* level 1: 1, 2, E; level 2: one M per dimension */
                if ((level == 1 && mm != 1 && mm != 2 && mm != E) ||
                    (level == 2 && mm != (dim % 3 == 0 ? E : dim % 3 == 1 ? 2 : 1)))
                    continue;
                coll_init(&c, RTOPO__COLL_ACCUMULATE, algo, case_no);
                c.dim = dim;
                c.mm = mm;
                coll_run(t, &c, NULL);
                coll_init(&c, RTOPO__COLL_ADJACENT_SUM, algo, case_no);
                c.dim = dim;
                c.mm = mm;
                coll_run(t, &c, NULL);
                if (E % mm == 0) {
                    coll_init(&c, RTOPO__COLL_CONSEC_SUM, algo, case_no);
                    c.dim = dim;
                    c.mm = mm;
                    coll_run(t, &c, NULL);
                }
            }
        }
    }
}

static void test_otis_mesh(void)
{
    rtopo__tdesc_t t;
    int n;

    budget_test();
    for (n = 1; n <= 16 && fails_left > 0; n *= 4) {
        tdesc(&t, RTOPO__TOPO_OTIS_MESH, n * n, n, 0);
        topo_cases(&t, 0);
    }
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 81, 9, 0);   /* odd side */
    topo_cases(&t, 1);
}

static void test_otis_mesh_64(void)
{
    rtopo__tdesc_t t;

    budget_test();
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 64 * 64, 64, 0);
    topo_cases(&t, 2);
}

static void test_otis_hypercube(void)
{
    rtopo__tdesc_t t;
    int n;

    budget_test();
    for (n = 1; n <= 16 && fails_left > 0; n *= 2) {
        tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, n * n, n, 0);
        topo_cases(&t, n == 16);
    }
}

static void test_others(void)
{
    rtopo__tdesc_t t;
    int i;
    static const int rings[4] = { 1, 2, 5, 8 }, meshes[4][2] = { { 1, 1 }, { 2, 3 },
                                                                 { 4, 4 }, { 3, 5 } };

    budget_test();
    for (i = 0; i < 4; i++) {
        tdesc(&t, RTOPO__TOPO_RING, rings[i], 0, 0);
        topo_cases(&t, 0);
        tdesc(&t, RTOPO__TOPO_MESH, meshes[i][0] * meshes[i][1], meshes[i][0], meshes[i][1]);
        topo_cases(&t, 0);
        tdesc(&t, RTOPO__TOPO_HYPERCUBE, 1 << i, i, 0);
        topo_cases(&t, 0);
    }
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 64, 6, 0);
    topo_cases(&t, 1);
}

/* The cube scan's last round sends only upwards: a lower label has no
 * later round to pass its partner's total on in.  The generic scan on
 * hypercubes of 2 to 64 ranks (on 2 the chain; in one piece: the last
 * dimension carries p/2 moves, all up, p*d - p/2 moves in all, and no
 * rank combines into its running total in the last round, which nothing
 * reads after: 3p/2 combines a round before, p/2 in it) and the
 * OTIS-hypercube's
 * scan (the cube scan in every group and the exclusive one in group
 * n - 1: n*n/2 + n/2 moves up the last dimension; down it only the
 * broadcast from label n - 1 in groups 1 .. n-1); coll_run checks the
 * data. */
static void test_scan_cube_up(void)
{
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    int d, k;

    for (d = 1; d <= 8; d++)
        for (k = 0; k < 6; k++) {
            int otis = d > 6, n = otis ? 1 << (2 * (d - 6)) : 0, dim = otis ? 2 * (d - 6) : d;
            int p = otis ? n * n : 1 << d, up = 0, down = 0, moves = 0;
            uint64_t bytes = 0;
            rtopo__sched_t *s = NULL;
            uint32_t i;

            if (otis)
                tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, p, n, 0);
            else
                tdesc(&t, RTOPO__TOPO_HYPERCUBE, p, d, 0);
            coll_init(&c, RTOPO__COLL_SCAN, otis ? RTOPO_COLL_TOPO : RTOPO_COLL_GENERIC,
                      (uint64_t)k);
            c.chunks = 1;
            if (coll_run(&t, &c, &s))
                continue;
            for (i = 0; i < s->nxfers; i++) {
                const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
                const rtopo__hop_t *h = &s->hops[x->hop0];

                if (!x->nhops || h->link == RTOPO__LINK_OTIS)
                    continue;
                moves++;
                if (h->dim != dim - 1)
                    continue;
                if (x->src < x->dst) {
                    up++;
                    bytes += x->len;
                } else {
                    down++;
                }
            }
            if (otis)
                TU_CHECK(up == n * n / 2 + n / 2 && down == n - 1,
                         "%s: %d moves up the last dimension, %d down (want %d and %d)",
                         cdesc(&t, &c), up, down, n * n / 2 + n / 2, n - 1);
            else
                TU_CHECK(up == p / 2 && !down && moves == p * d - p / 2 &&
                         bytes == (uint64_t)(p / 2) * c.count * c.esize &&
                         s->nkerns == (uint32_t)((d - 1) * 3 * p / 2 + p / 2),
                         "%s: %d moves up the last dimension (%llu bytes), %d down, %d in "
                         "all, %u combines (want %d, %llu, 0, %d, %d)", cdesc(&t, &c), up,
                         (unsigned long long)bytes, down, moves, s->nkerns, p / 2,
                         (unsigned long long)((uint64_t)(p / 2) * c.count * c.esize),
                         p * d - p / 2, (d - 1) * 3 * p / 2 + p / 2);
            rtopo__sched_free(s);
        }
}

/* A scan on 2 ranks moves what rank 1 needs and no more: rank 0's count
 * elements, once, to rank 1 (the chain; recursive doubling also sends
 * rank 1's to rank 0), under the built-in model, one piece or the
 * model's, at every length (coll_run checks the data) */
static void test_scan_two(void)
{
    static const uint64_t cnt[3] = { 1, 1024, 131072 };
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    int kind, k, ch;

    for (kind = 0; kind < 2; kind++)
        for (k = 0; k < 3; k++)
            for (ch = 0; ch < 2; ch++) {
                rtopo__sched_t *s = NULL;
                uint64_t bytes = 0;
                uint32_t i;
                int other = 0;

                if (kind)
                    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 2, 1, 0);
                else
                    tdesc(&t, RTOPO__TOPO_RING, 2, 0, 0);
                coll_init(&c, RTOPO__COLL_SCAN, RTOPO_COLL_AUTO, (uint64_t)k);
                c.dtype = RTOPO_INT64;
                c.esize = 8;
                c.rop = RTOPO_SUM;
                c.count = cnt[k];
                c.chunks = (uint32_t)ch;
                if (coll_run(&t, &c, &s))
                    continue;
                for (i = 0; i < s->nxfers; i++) {
                    if (!rtopo__sched_xnhops(s, i))
                        continue;
                    if (s->xfers[i].src == 0 && s->xfers[i].dst == 1)
                        bytes += rtopo__sched_xlen(s, i);
                    else
                        other++;
                }
                TU_CHECK(bytes == c.count * 8 && !other,
                         "%s: %llu bytes from rank 0 to 1, %d transfers the other way "
                         "(want %llu and 0)", cdesc(&t, &c), (unsigned long long)bytes,
                         other, (unsigned long long)(c.count * 8));
                rtopo__sched_free(s);
            }
}

/* ---- move counts (SPEC 5.5) ---------------------------------------------- */

/* the moves of c with the topology's algorithm, count 1, one piece */
static int moves(const rtopo__tdesc_t *t, rtopo__coll_t *c, rtopo__moves_t *mv)
{
    rtopo__sched_t *s = NULL;

    c->algo = RTOPO_COLL_TOPO;
    c->dtype = RTOPO_INT32;
    c->rop = RTOPO_SUM;
    c->count = 1;
    c->esize = byte_op(c->op) ? 1 : 4;
    c->chunks = 1;
    memset(mv, 0, sizeof(*mv));
    if (t->p <= 1024) {   /* also checks the data; larger: built and validated */
        if (coll_run(t, c, &s))
            return -1;
    } else {
        int st = rtopo__sched_coll(t, c, NULL, &s);

        if (!TU_CHECK(st == RTOPO_OK && s, "%s: build: %s: %s", cdesc(t, c),
                      rtopo_strerror(st), rtopo_last_error()) ||
            !TU_CHECK(rtopo__sched_validate(s) == RTOPO_OK, "%s: invalid schedule: %s",
                      cdesc(t, c), rtopo_last_error())) {
            rtopo__sched_free(s);
            fails_left--;
            return -1;
        }
    }
    rtopo__sched_moves(s, mv);
    rtopo__sched_free(s);
    return 0;
}

#define MV_CHECK(mv, want_simd, want_otis, t, c)                                   \
    TU_CHECK((mv).electronic_simd == (uint32_t)(want_simd) &&                       \
             (mv).otis == (uint32_t)(want_otis) && (mv).other == 0,                 \
             "%s: moves electronic_simd %u otis %u other %u (electronic %u), "       \
             "SPEC 5.5: %d and %d", cdesc(t, c), (mv).electronic_simd, (mv).otis,   \
             (mv).other, (mv).electronic, (int)(want_simd), (int)(want_otis))

static void test_moves(void)
{
    static const int ns[5] = { 4, 9, 16, 25, 64 };
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    rtopo__moves_t mv;
    int ni, i, w, dim, d;

    budget_test();
    for (ni = 0; ni < 5 && fails_left > 0; ni++) {
        int n = ns[ni], s = isqrt(n), p = n * n;
        int roots[4] = { 0, p - 1, (n / 2) * n + n / 2, n + 2 };

        tdesc(&t, RTOPO__TOPO_OTIS_MESH, p, n, 0);
        budget_topo();
        for (i = 0; i < 4; i++) {
            memset(&c, 0, sizeof(c));
            c.op = RTOPO__COLL_BCAST;
            c.root = roots[i];
            if (!moves(&t, &c, &mv))
                MV_CHECK(mv, 4 * (s - 1), 1, &t, &c);
        }
        for (i = 0; i < 2; i++)
            for (w = 1; w <= s; w++) {
                if (s % w)
                    continue;
                memset(&c, 0, sizeof(c));
                c.op = RTOPO__COLL_WINDOW_BCAST;
                c.root = i ? n - 1 : 0;
                c.w = w;
                if (!moves(&t, &c, &mv))
                    MV_CHECK(mv, 4 * s - 2 * w - 2, 2, &t, &c);
            }
        memset(&c, 0, sizeof(c));
        c.op = RTOPO__COLL_SCAN;
        if (!moves(&t, &c, &mv))
            MV_CHECK(mv, 7 * (s - 1), 2, &t, &c);
        memset(&c, 0, sizeof(c));
        c.op = RTOPO__COLL_ALLREDUCE;
        if (!moves(&t, &c, &mv)) {
            MV_CHECK(mv, 8 * (s - 1), 1, &t, &c);
            TU_CHECK(mv.electronic == (uint32_t)(s % 2 ? 4 * (s - 1) : 4 * s),
                     "%s: MIMD electronic moves %u, SPEC 5.5: %d (%s side)", cdesc(&t, &c),
                     mv.electronic, s % 2 ? 4 * (s - 1) : 4 * s, s % 2 ? "odd" : "even");
        }
        /* zero-fill shifts: (a), (b) along P, (e), (f) along G (two OTIS moves) */
        for (dim = 0; dim < 4; dim++)
            for (d = -(s - 1); d <= s - 1; d++) {
                if (!d)
                    continue;
                memset(&c, 0, sizeof(c));
                c.op = RTOPO__COLL_SHIFT_FILL;
                c.dim = dim;
                c.disp = d;
                if (moves(&t, &c, &mv))
                    continue;
                MV_CHECK(mv, d < 0 ? -d : d, dim < 2 ? 2 : 0, &t, &c);
                TU_CHECK(mv.electronic == (uint32_t)(d < 0 ? -d : d), "%s: MIMD electronic "
                         "moves %u, SPEC 5.5 (both models): %d", cdesc(&t, &c),
                         mv.electronic, d < 0 ? -d : d);
            }
    }
}

/* SPEC 5.5's consecutive sum, beyond the operations the lead named:
 * 4(M-1) SIMD, 2(M-1) MIMD electronic moves, no OTIS move along P, two
 * along G */
static void test_moves_consec(void)
{
    static const int ns[3] = { 4, 16, 64 };
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    rtopo__moves_t mv;
    int ni, dim, mm;

    budget_test();
    for (ni = 0; ni < 3 && fails_left > 0; ni++) {
        int n = ns[ni], s = isqrt(n);

        tdesc(&t, RTOPO__TOPO_OTIS_MESH, n * n, n, 0);
        budget_topo();
        for (dim = 0; dim < 4; dim++)
            for (mm = 2; mm <= s; mm++) {
                if (s % mm)
                    continue;
                memset(&c, 0, sizeof(c));
                c.op = RTOPO__COLL_CONSEC_SUM;
                c.dim = dim;
                c.mm = mm;
                if (moves(&t, &c, &mv))
                    continue;
                MV_CHECK(mv, 4 * (mm - 1), dim < 2 ? 2 : 0, &t, &c);
                TU_CHECK(mv.electronic == (uint32_t)(2 * (mm - 1)), "%s: MIMD electronic "
                         "moves %u, SPEC 5.5: %d", cdesc(&t, &c), mv.electronic,
                         2 * (mm - 1));
            }
    }
}

/* ---- errors -------------------------------------------------------------- */

/* the generator and the reference both refuse c with `want` */
static void err_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c, int want,
                      const char *what)
{
    rtopo__sched_t *s = NULL;
    cbufs_t b;
    uint64_t sb = rtopo__coll_send_bytes(c), rb = rtopo__coll_recv_bytes(c);
    int st1, st2;

    if (sb > 4096 || rb > 4096)
        sb = rb = 4096;
    st1 = rtopo__sched_coll(t, c, NULL, &s);
    TU_CHECK(st1 == want && !s, "%s (%s): rtopo__sched_coll gives %s, expected %s (%s)",
             what, cdesc(t, c), rtopo_err_name(st1), rtopo_err_name(want),
             rtopo_last_error());
    if (s)
        rtopo__sched_free(s);
    CU_ASSERT_FATAL(cbufs_init(&b, t->p, sb, rb, 0) == 0);
    st2 = rtopo__coll_ref(t, c, (uint8_t *const *const *)b.bufs, b.out);
    TU_CHECK(st2 == want, "%s (%s): rtopo__coll_ref gives %s, expected %s (%s)", what,
             cdesc(t, c), rtopo_err_name(st2), rtopo_err_name(want), rtopo_last_error());
    cbufs_free(&b);
}

static void err_coll(rtopo__coll_t *c, int op)
{
    memset(c, 0, sizeof(*c));
    c->op = op;
    c->algo = RTOPO_COLL_TOPO;
    c->dtype = RTOPO_INT32;
    c->rop = RTOPO_SUM;
    c->count = 1;
    c->esize = byte_op(op) ? 1 : 4;
    c->chunks = 1;
    c->mm = 1;
    c->w = 1;
}

static void test_errors(void)
{
    rtopo__tdesc_t om, oh, ring, mesh, cube, host;
    rtopo__coll_t c;
    int op, ai;

    tdesc(&om, RTOPO__TOPO_OTIS_MESH, 256, 16, 0);
    tdesc(&oh, RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0);
    tdesc(&ring, RTOPO__TOPO_RING, 6, 0, 0);
    tdesc(&mesh, RTOPO__TOPO_MESH, 12, 3, 4);
    tdesc(&cube, RTOPO__TOPO_HYPERCUBE, 8, 3, 0);
    tdesc(&host, RTOPO__TOPO_HYPERCUBE, 8, 3, 0);
    CU_ASSERT_FATAL(rtopo__tdesc_add_host(&host) == RTOPO_OK);

    for (ai = 0; ai < 3; ai++) {
        int algo = algos[ai];

        /* roots out of range */
        err_coll(&c, RTOPO__COLL_BCAST);
        c.algo = algo;
        c.root = -1;
        err_check(&om, &c, RTOPO_ERR_INVAL, "bcast root -1");
        c.root = 256;
        err_check(&om, &c, RTOPO_ERR_INVAL, "bcast root p");
        c.root = 6;
        err_check(&ring, &c, RTOPO_ERR_INVAL, "bcast root p on a ring");
        err_coll(&c, RTOPO__COLL_WINDOW_BCAST);
        c.algo = algo;
        c.root = 16;
        err_check(&om, &c, RTOPO_ERR_INVAL, "window root group n");
        c.root = -1;
        err_check(&om, &c, RTOPO_ERR_INVAL, "window root group -1");
        /* window side must divide sqrt(n) = 4 */
        c.root = 0;
        c.w = 3;
        err_check(&om, &c, RTOPO_ERR_INVAL, "window w 3 of side 4");
        c.w = 0;
        err_check(&om, &c, RTOPO_ERR_INVAL, "window w 0");
        c.w = 8;
        err_check(&om, &c, RTOPO_ERR_INVAL, "window w 8 of side 4");
        /* window broadcast off the OTIS-mesh */
        c.w = 1;
        err_check(&oh, &c, RTOPO_ERR_UNSUPPORTED, "window on an OTIS-hypercube");
        err_check(&ring, &c, RTOPO_ERR_UNSUPPORTED, "window on a ring");
        err_check(&mesh, &c, RTOPO_ERR_UNSUPPORTED, "window on a mesh");
        err_check(&cube, &c, RTOPO_ERR_UNSUPPORTED, "window on a hypercube");
        /* line operations: dimension and M */
        for (op = RTOPO__COLL_SHIFT_FILL; op <= RTOPO__COLL_CONSEC_SUM; op++) {
            err_coll(&c, op);
            c.algo = algo;
            c.dim = 4;
            err_check(&om, &c, RTOPO_ERR_INVAL, "dim 4 of an OTIS-mesh");
            c.dim = -1;
            err_check(&om, &c, RTOPO_ERR_INVAL, "dim -1");
            c.dim = 2;
            err_check(&oh, &c, RTOPO_ERR_INVAL, "dim 2 of an OTIS-hypercube");
            c.dim = 1;
            err_check(&ring, &c, RTOPO_ERR_INVAL, "dim 1 of a ring");
            c.dim = 3;
            err_check(&cube, &c, RTOPO_ERR_INVAL, "dim 3 of a 3-cube");
            if (op == RTOPO__COLL_SHIFT_FILL)
                continue;
            c.dim = 2;
            c.mm = 0;
            err_check(&om, &c, RTOPO_ERR_INVAL, "M 0");
            c.mm = 5;
            err_check(&om, &c, RTOPO_ERR_INVAL, "M E+1");
            c.mm = -3;
            err_check(&om, &c, RTOPO_ERR_INVAL, "M -3");
            c.dim = 0;
            c.mm = 9;
            err_check(&oh, &c, RTOPO_ERR_INVAL, "M 9 on an 8-extent");
            if (op == RTOPO__COLL_CONSEC_SUM) {
                c.dim = 1;
                c.mm = 3;
                err_check(&om, &c, RTOPO_ERR_INVAL, "consecutive sum M 3 of extent 4");
                c.mm = 3;
                err_check(&oh, &c, RTOPO_ERR_INVAL, "consecutive sum M 3 of extent 8");
                c.dim = 0;
                c.mm = 4;
                err_check(&ring, &c, RTOPO_ERR_INVAL, "consecutive sum M 4 of a 6-ring");
            }
        }
        /* reductions: datatype and operator */
        for (op = RTOPO__COLL_SCAN; op <= RTOPO__COLL_CONSEC_SUM; op++) {
            if (op == RTOPO__COLL_SHIFT_FILL || op == RTOPO__COLL_ACCUMULATE)
                continue;
            err_coll(&c, op);
            c.algo = algo;
            c.dim = 3;
            c.rop = 9;
            err_check(&om, &c, RTOPO_ERR_INVAL, "operator 9");
            c.rop = RTOPO_SUM;
            c.dtype = 7;
            err_check(&om, &c, RTOPO_ERR_INVAL, "datatype 7");
        }
        /* a descriptor with a host endpoint */
        err_coll(&c, RTOPO__COLL_ALLREDUCE);
        c.algo = algo;
        err_check(&host, &c, RTOPO_ERR_UNSUPPORTED, "allreduce on a cube with a host");
        err_coll(&c, RTOPO__COLL_BCAST);
        c.algo = algo;
        err_check(&host, &c, RTOPO_ERR_UNSUPPORTED, "bcast on a cube with a host");
        /* unknown operations */
        err_coll(&c, 0);
        c.algo = algo;
        err_check(&om, &c, RTOPO_ERR_INVAL, "operation 0");
        err_coll(&c, RTOPO__COLL_NOPS);
        c.algo = algo;
        err_check(&om, &c, RTOPO_ERR_INVAL, "operation NOPS");
        /* element size 0, or not the datatype's for a reduction */
        err_coll(&c, RTOPO__COLL_BCAST);
        c.algo = algo;
        c.esize = 0;
        err_check(&om, &c, RTOPO_ERR_INVAL, "bcast element size 0");
        err_coll(&c, RTOPO__COLL_ALLREDUCE);
        c.algo = algo;
        c.esize = 8;
        err_check(&om, &c, RTOPO_ERR_INVAL, "allreduce int32 of 8-byte elements");
    }
    /* unknown algorithms */
    err_coll(&c, RTOPO__COLL_SCAN);
    c.algo = 7;
    err_check(&om, &c, RTOPO_ERR_INVAL, "algorithm 7");
    c.algo = -1;
    err_check(&ring, &c, RTOPO_ERR_INVAL, "algorithm -1");
}

/* ---- selection and routing ---------------------------------------------- */

static const size_t rec_sizes[5] = { 1, 5, 8, 24, 100 };

static void route_coll(rtopo__coll_t *c, int op, int algo, size_t rec)
{
    memset(c, 0, sizeof(*c));
    c->op = op;
    c->algo = algo;
    c->dtype = RTOPO_INT64;
    c->count = 1;
    c->esize = op == RTOPO__COLL_SELECT_RANK ? 1 : rec;
    c->chunks = 1;
}

/* the algorithm a routing schedule says it runs: on the OTIS-mesh the
 * distribute's and the generalize's checked two routings under AUTO,
 * otherwise the topology's own (the OTIS-hypercube has one of each) */
static int route_algo(const rtopo__tdesc_t *t, const rtopo__coll_t *c)
{
    return (c->op == RTOPO__COLL_GENERALIZE || c->op == RTOPO__COLL_DISTRIBUTE) &&
           c->algo == RTOPO_COLL_AUTO && t->kind == RTOPO__TOPO_OTIS_MESH ?
           RTOPO_COLL_AUTO : RTOPO_COLL_TOPO;
}

static int32_t ld32(const uint8_t *p)
{
    int32_t x;

    memcpy(&x, p, sizeof x);
    return x;
}

/* a selection flag that is set: any non-zero int32, INT32_MIN and
 * negative ones included */
static int32_t nonzero32(void)
{
    uint32_t x = rnd();

    switch (x % 8) {
    case 0: return INT32_MIN;
    case 1: return -1 - (int32_t)(x >> 8 & 0xffff);
    default: return 1 + (int32_t)(x >> 8 & 0xffffff);
    }
}

/* a destination that sends nothing */
static int64_t negative64(void)
{
    uint32_t x = rnd();

    return x % 5 == 0 ? INT64_MIN : -1 - (int64_t)(x % 1000);
}

/* Selection density d: 0 none, 1 all, 2 one rank, 3 each rank with one
 * random probability, 4 about one rank in sqrt(p). */
#define NSEL 5
static void gen_selected(int p, int d, int32_t *sel, char *what, size_t n)
{
    static const char *const names[NSEL] = { "none", "all", "one", "random", "sparse" };
    unsigned prob = rnd() % 101, one = rnd() % (unsigned)p, sq = (unsigned)isqrt(p);
    int r, k = 0;

    for (r = 0; r < p; r++) {
        int on = d == 1 || (d == 2 && r == (int)one) || (d == 3 && rnd() % 100 < prob) ||
                 (d == 4 && rnd() % sq == 0);

        sel[r] = on ? nonzero32() : 0;
        k += on;
    }
    snprintf(what, n, "selected %s (%d of %d)", names[d], k, p);
}

/* Destinations, variant v: 0 none; 1 rank 0 to 0; 2 rank 0 anywhere; 3 a
 * prefix of random length to random increasing ranks, the first 0; 4 the
 * same, the first above 0; 5 every rank to itself; 6 a short prefix (at
 * most 2 sqrt(p) ranks), the first anywhere.  The other ranks get
 * negative destinations.  Returns 0 when the variant does not exist for
 * p (4 with p = 1). */
#define NDEST 7
static int gen_dests(int p, int v, int64_t *dest, char *what, size_t n)
{
    static const char *const names[NDEST] = { "none", "one to 0", "one anywhere",
                                              "prefix from 0", "prefix from above 0",
                                              "every rank", "short prefix" };
    int L, zero, r, k = 0, need, m;

    switch (v) {
    case 0: L = 0; zero = -1; break;
    case 1: L = 1; zero = 1; break;
    case 2: L = 1; zero = -1; break;
    case 3: L = 1 + (int)(rnd() % (unsigned)p); zero = 1; break;
    case 4:
        if (p < 2)
            return 0;
        L = 1 + (int)(rnd() % (unsigned)(p - 1));
        zero = 0;
        break;
    case 5: L = p; zero = 1; break;
    default:
        m = 2 * isqrt(p) < p ? 2 * isqrt(p) : p;
        L = 1 + (int)(rnd() % (unsigned)m);
        zero = -1;
        break;
    }
    for (r = 0; r < p; r++)
        dest[r] = negative64();
    need = L;
    r = 0;
    if (zero > 0) {
        dest[k++] = 0;
        need--;
        r = 1;
    } else if (zero == 0) {
        r = 1;
    }
    /* selection sampling: need of the p - r values left, in order */
    for (; r < p && need > 0; r++)
        if (rnd() % (unsigned)(p - r) < (unsigned)need) {
            dest[k++] = r;
            need--;
        }
    snprintf(what, n, "dest %s (%d sender%s, first %" PRId64 ")", names[v], L,
             L == 1 ? "" : "s", L ? dest[0] : (int64_t)-1);
    return 1;
}

/* Build c on t, validate it, stage the input (sel: SELECT_RANK's SEND
 * and CONCENTRATE's TMP[0, 4); dest: TMP[0, 8) of the others), execute it
 * on random records and compare every rank's RECV and got (TMP[8, 12))
 * with the reference; SEND must be left as it was and the guards after
 * every buffer untouched.  want: RTOPO_OK, or the error that both the
 * reference and the execution must give (an input that breaks the
 * order).  Returns 0 when all is well; *s_p (may be NULL) gets the
 * schedule. */
static int route_run(const rtopo__tdesc_t *t, const rtopo__coll_t *c, const int32_t *sel,
                     const int64_t *dest, const char *what, int want, rtopo__sched_t **s_p)
{
    rtopo__sched_t *s = NULL;
    cbufs_t b;
    uint64_t size[RTOPO__BUF_COUNT];
    int32_t *gw = NULL;
    int r, st, st2 = RTOPO_OK, ok = 1, bad = 0, first = -1, otis, routing;
    const char *d;

    if (fails_left <= 0 || op_left[c->op] <= 0)
        return -1;
    case_no++;
    routing = c->op != RTOPO__COLL_SELECT_RANK;
    st = rtopo__sched_coll(t, c, NULL, &s);
    if (!TU_CHECK(st == RTOPO_OK && s, "%s, %s: build: %s: %s", cdesc(t, c), what,
                  rtopo_strerror(st), rtopo_last_error())) {
        fails_left--;
        op_left[c->op]--;
        return -1;
    }
    d = cdesc(t, c);
    otis = t->kind == RTOPO__TOPO_OTIS_MESH || t->kind == RTOPO__TOPO_OTIS_HYPERCUBE;
    ok &= TU_CHECK(rtopo__sched_validate(s) == RTOPO_OK, "%s: invalid schedule: %s", d,
                   rtopo_last_error());
    /* the routing ops are the OTIS-mesh's own (the generalize has two,
     * AUTO naming the checked one); select_rank is the scan's choice
     * (TOPO off the OTIS topologies is the generic one) */
    ok &= TU_CHECK(routing ? s->algo == route_algo(t, c) :
                   (s->algo == RTOPO_COLL_TOPO || s->algo == RTOPO_COLL_GENERIC) &&
                   (c->algo == RTOPO_COLL_AUTO || s->algo == c->algo ||
                    (!otis && s->algo == RTOPO_COLL_GENERIC)),
                   "%s: built algo %d (%s)", d, s->algo, rtopo__coll_algo_name(s->algo));
    size[RTOPO__BUF_SEND] = rtopo__coll_send_bytes(c);
    size[RTOPO__BUF_RECV] = rtopo__coll_recv_bytes(c);
    size[RTOPO__BUF_TMP] = s->tmp_bytes;
    ok &= TU_CHECK(size[RTOPO__BUF_SEND] == (routing ? c->esize : 4) &&
                   size[RTOPO__BUF_RECV] == (routing ? c->esize : 8) &&
                   (!routing || size[RTOPO__BUF_TMP] >= RTOPO__ROUTE_AUX),
                   "%s: SEND %" PRIu64 ", RECV %" PRIu64 ", TMP %" PRIu64 " bytes", d,
                   size[0], size[1], size[2]);
    CU_ASSERT_FATAL(cbufs_init(&b, t->p, size[0], size[1], size[2]) == 0);
    CU_ASSERT_FATAL((gw = malloc(sizeof(*gw) * (size_t)t->p)) != NULL);
    cbufs_fill(&b, c);
    for (r = 0; r < t->p; r++) {
        if (!routing)
            memcpy(cb_send(&b, r), &sel[r], 4);
        else if (c->op == RTOPO__COLL_CONCENTRATE)
            memcpy(cb_tmp(&b, r), &sel[r], 4);
        else
            memcpy(cb_tmp(&b, r), &dest[r], 8);
    }
    memcpy(b.send0, b.send, (size_t)t->p * (b.sb + GUARD));
    st = rtopo__coll_ref(t, c, (uint8_t *const *const *)b.bufs, b.out);
    if (routing)
        st2 = rtopo__coll_ref_got(t, c, (uint8_t *const *const *)b.bufs, gw);
    ok &= TU_CHECK(st == want && st2 == want, "%s, %s: reference gives %s and %s, "
                   "expected %s: %s", d, what, rtopo_err_name(st), rtopo_err_name(st2),
                   rtopo_err_name(want), rtopo_last_error());
    st = rtopo__sim_exec_sized(s, (uint8_t *const *const *)b.bufs, size);
    ok &= TU_CHECK(st == want, "%s, %s: execution gives %s, expected %s: %s", d, what,
                   rtopo_err_name(st), rtopo_err_name(want), want ? "" : rtopo_last_error());
    if (ok && want == RTOPO_OK) {
        for (r = 0; r < t->p; r++)
            if (memcmp(cb_recv(&b, r), b.out[r], (size_t)b.rb) ||
                (routing && ld32(cb_tmp(&b, r) + 8) != gw[r])) {
                if (first < 0)
                    first = r;
                bad++;
            }
        if (bad) {
            const uint8_t *got = cb_recv(&b, first), *want_b = b.out[first];
            uint64_t k;

            for (k = 0; k + 1 < b.rb && got[k] == want_b[k]; k++)
                ;
            ok = TU_CHECK(0, "%s, %s: %d rank(s) differ from the reference, first rank "
                          "%d: got %d (expected %d), RECV byte %" PRIu64 " 0x%02x "
                          "(expected 0x%02x)%s", d, what, bad, first,
                          routing ? ld32(cb_tmp(&b, first) + 8) : -1,
                          routing ? gw[first] : -1, k, got[k], want_b[k],
                          routing ? "" : " (select_rank: an int64)");
        }
        for (r = 0; r < t->p; r++) {
            if (!guard_ok(cb_send(&b, r) + b.sb, r, 0) ||
                !guard_ok(cb_recv(&b, r) + b.rb, r, 1) ||
                !guard_ok(cb_tmp(&b, r) + b.tb, r, 2)) {
                ok = TU_CHECK(0, "%s: rank %d wrote past a buffer (guard bytes changed)",
                              d, r);
                break;
            }
            if (memcmp(cb_send(&b, r), b.send0 + (size_t)r * (b.sb + GUARD),
                       (size_t)b.sb)) {
                ok = TU_CHECK(0, "%s: rank %d's SEND changed", d, r);
                break;
            }
        }
    }
    free(gw);
    cbufs_free(&b);
    if (!ok) {
        fails_left--;
        op_left[c->op]--;
    }
    if (s_p)
        *s_p = s;
    else
        rtopo__sched_free(s);
    return ok ? 0 : -1;
}

/* One case of op on the OTIS-mesh t: selection density or destination
 * variant v, record size rec; the algorithm alternates between TOPO and
 * AUTO.  Returns the result of route_run, 1 when the variant does not
 * exist for t. */
static int route_case(const rtopo__tdesc_t *t, int op, int v, size_t rec, int32_t *sel,
                      int64_t *dest, rtopo__sched_t **s_p)
{
    rtopo__coll_t c;
    char what[128];

    route_coll(&c, op, case_no % 2 ? RTOPO_COLL_AUTO : RTOPO_COLL_TOPO, rec);
    if (op == RTOPO__COLL_CONCENTRATE || op == RTOPO__COLL_SELECT_RANK)
        gen_selected(t->p, v, sel, what, sizeof(what));
    else if (!gen_dests(t->p, v, dest, what, sizeof(what)))
        return 1;
    return route_run(t, &c, sel, dest, what, RTOPO_OK, s_p);
}

/* the reference on literal examples: OTIS-mesh n = 4 (16 ranks), records
 * of 4 bytes (100 + the sending rank) */
static void test_route_ref(void)
{
    static const int sel_ranks[4] = { 2, 5, 6, 15 };
    static const int64_t ranks[16] = { 0, 0, 0, 1, 1, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3 };
    static const struct {
        int op;
        int64_t d[4];       /* ranks 0..3; the others -1 */
        int from[16];       /* expected source of each rank, -1: nothing */
        int err;
    } ex[] = {
        { RTOPO__COLL_DISTRIBUTE, { 3, 4, 9, -1 },
          { -1, -1, -1, 0, 1, -1, -1, -1, -1, 2, -1, -1, -1, -1, -1, -1 }, 0 },
        { RTOPO__COLL_DISTRIBUTE, { 0, 1, 2, 15 },
          { 0, 1, 2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 3 }, 0 },
        { RTOPO__COLL_GENERALIZE, { 1, 4, 9, -1 },
          { -1, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2 }, 0 },
        { RTOPO__COLL_GENERALIZE, { 0, -1, -1, -1 },
          { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 0 },
        { RTOPO__COLL_GENERALIZE, { 14, 15, -1, -1 },
          { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1 }, 0 },
        { RTOPO__COLL_DISTRIBUTE, { 5, 5, -1, -1 }, { 0 }, RTOPO_ERR_INVAL },
        { RTOPO__COLL_DISTRIBUTE, { 5, 3, -1, -1 }, { 0 }, RTOPO_ERR_INVAL },
        { RTOPO__COLL_DISTRIBUTE, { 3, 16, -1, -1 }, { 0 }, RTOPO_ERR_INVAL },
        { RTOPO__COLL_DISTRIBUTE, { -1, 3, -1, -1 }, { 0 }, RTOPO_ERR_INVAL },
        { RTOPO__COLL_DISTRIBUTE, { 2, -1, 5, -1 }, { 0 }, RTOPO_ERR_INVAL },
        { RTOPO__COLL_GENERALIZE, { 2, 2, -1, -1 }, { 0 }, RTOPO_ERR_INVAL },
        { RTOPO__COLL_GENERALIZE, { 0, -1, 3, -1 }, { 0 }, RTOPO_ERR_INVAL },
        { RTOPO__COLL_GENERALIZE, { 16, -1, -1, -1 }, { 0 }, RTOPO_ERR_INVAL },
    };
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    cbufs_t b;
    int32_t got[16];
    int r, i, e, op;

    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 16, 4, 0);
    /* select_rank and concentrate: ranks 2, 5, 6 and 15 selected */
    for (op = RTOPO__COLL_SELECT_RANK; op <= RTOPO__COLL_CONCENTRATE; op++) {
        route_coll(&c, op, RTOPO_COLL_TOPO, 4);
        CU_ASSERT_FATAL(cbufs_init(&b, 16, rtopo__coll_send_bytes(&c),
                                   rtopo__coll_recv_bytes(&c), RTOPO__ROUTE_AUX) == 0);
        cbufs_fill(&b, &c);
        for (r = 0; r < 16; r++) {
            int32_t v = 100 + r, f = 0;

            for (i = 0; i < 4; i++)
                if (sel_ranks[i] == r)
                    f = i % 2 ? -7 : 1;
            if (op == RTOPO__COLL_SELECT_RANK) {
                memcpy(cb_send(&b, r), &f, 4);
            } else {
                memcpy(cb_send(&b, r), &v, 4);
                memcpy(cb_tmp(&b, r), &f, 4);
            }
        }
        TU_CHECK(rtopo__coll_ref(&t, &c, (uint8_t *const *const *)b.bufs, b.out) ==
                 RTOPO_OK, "%s reference: %s", rtopo__coll_name(op), rtopo_last_error());
        if (op == RTOPO__COLL_SELECT_RANK) {
            TU_CHECK(rtopo__coll_ref_got(&t, &c, (uint8_t *const *const *)b.bufs, got) ==
                     RTOPO_ERR_INVAL, "select_rank has no got");
            for (r = 0; r < 16; r++)
                TU_CHECK(ld64(b.out[r]) == ranks[r], "select_rank rank %d: %" PRId64
                         ", expected %" PRId64, r, ld64(b.out[r]), ranks[r]);
        } else {
            TU_CHECK(rtopo__coll_ref_got(&t, &c, (uint8_t *const *const *)b.bufs, got) ==
                     RTOPO_OK, "concentrate got: %s", rtopo_last_error());
            for (r = 0; r < 16; r++) {
                int32_t want = r < 4 ? 100 + sel_ranks[r] : ld32(cb_recv(&b, r));

                TU_CHECK(ld32(b.out[r]) == want && got[r] == (r < 4),
                         "concentrate rank %d: %d got %d, expected %d got %d", r,
                         ld32(b.out[r]), got[r], want, r < 4);
            }
        }
        cbufs_free(&b);
    }
    for (e = 0; e < (int)(sizeof(ex) / sizeof(ex[0])); e++) {
        route_coll(&c, ex[e].op, RTOPO_COLL_AUTO, 4);
        CU_ASSERT_FATAL(cbufs_init(&b, 16, 4, 4, RTOPO__ROUTE_AUX) == 0);
        cbufs_fill(&b, &c);
        for (r = 0; r < 16; r++) {
            int32_t v = 100 + r;
            int64_t d = r < 4 ? ex[e].d[r] : -1;

            memcpy(cb_send(&b, r), &v, 4);
            memcpy(cb_tmp(&b, r), &d, 8);
        }
        i = rtopo__coll_ref(&t, &c, (uint8_t *const *const *)b.bufs, b.out);
        r = rtopo__coll_ref_got(&t, &c, (uint8_t *const *const *)b.bufs, got);
        if (TU_CHECK(i == ex[e].err && r == ex[e].err, "example %d (%s): reference gives "
                     "%s and %s, expected %s: %s", e, rtopo__coll_name(ex[e].op),
                     rtopo_err_name(i), rtopo_err_name(r), rtopo_err_name(ex[e].err),
                     rtopo_last_error()) && !ex[e].err)
            for (r = 0; r < 16; r++) {
                int f = ex[e].from[r];
                int32_t want = f >= 0 ? 100 + f : ld32(cb_recv(&b, r));

                TU_CHECK(ld32(b.out[r]) == want && got[r] == (f >= 0),
                         "example %d (%s) rank %d: %d got %d, expected %d got %d", e,
                         rtopo__coll_name(ex[e].op), r, ld32(b.out[r]), got[r], want,
                         f >= 0);
            }
        cbufs_free(&b);
    }
}

/* the routing operations on OTIS-meshes n = 1, 4, 9, 16 and
 * OTIS-hypercubes n = 1, 2, 4, 8, 16: every selection density and
 * destination variant with every record size */
static void test_route_small(void)
{
    static const int ns[9] = { 1, 4, 9, 16, 1, 2, 4, 8, 16 };
    rtopo__tdesc_t t;
    int32_t *sel;
    int64_t *dest;
    int ni, op, v, ri;

    budget_test();
    for (ni = 0; ni < 9 && fails_left > 0; ni++) {
        int n = ns[ni], p = n * n;

        tdesc(&t, ni < 4 ? RTOPO__TOPO_OTIS_MESH : RTOPO__TOPO_OTIS_HYPERCUBE, p, n, 0);
        budget_topo();
        sel = malloc(sizeof(*sel) * (size_t)p);
        dest = malloc(sizeof(*dest) * (size_t)p);
        CU_ASSERT_FATAL(sel && dest);
        for (op = RTOPO__COLL_CONCENTRATE; op <= RTOPO__COLL_GENERALIZE; op++)
            for (v = 0; v < (op == RTOPO__COLL_CONCENTRATE ? NSEL : NDEST); v++)
                for (ri = 0; ri < 5; ri++)
                    route_case(&t, op, v, rec_sizes[ri], sel, dest, NULL);
        free(sel);
        free(dest);
    }
}

/* The generalize in one routing (TOPO) on OTIS-meshes n = 1, 4, 9, 16:
 * every destination variant (no sender, one, to 0 or above, prefixes from
 * 0 and from above 0, every rank, a short prefix: long ranges) with
 * records of 1, 8, 13 and 100 bytes, each drawn three times */
static void test_route_generalize(void)
{
    static const int ns[4] = { 1, 4, 9, 16 };
    static const size_t recs[4] = { 1, 8, 13, 100 };
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    int32_t sel[256];
    int64_t dest[256];
    char what[128];
    int ni, v, ri, k;

    budget_test();
    memset(sel, 0, sizeof(sel));
    for (ni = 0; ni < 4 && fails_left > 0; ni++) {
        int n = ns[ni], p = n * n;

        tdesc(&t, RTOPO__TOPO_OTIS_MESH, p, n, 0);
        budget_topo();
        for (v = 0; v < NDEST; v++)
            for (ri = 0; ri < 4; ri++)
                for (k = 0; k < 3; k++) {
                    route_coll(&c, RTOPO__COLL_GENERALIZE, RTOPO_COLL_TOPO, recs[ri]);
                    if (gen_dests(p, v, dest, what, sizeof(what)))
                        route_run(&t, &c, sel, dest, what, RTOPO_OK, NULL);
                }
    }
}

/* the moves of the scan of one int64 with the topology's algorithm (the
 * prefix sum of the selection ranks) */
static int scan_moves(const rtopo__tdesc_t *t, rtopo__moves_t *ms)
{
    rtopo__sched_t *s = NULL;
    rtopo__coll_t sc;

    memset(&sc, 0, sizeof(sc));
    sc.op = RTOPO__COLL_SCAN;
    sc.algo = RTOPO_COLL_TOPO;
    sc.dtype = RTOPO_INT64;
    sc.rop = RTOPO_SUM;
    sc.count = 1;
    sc.esize = 8;
    sc.chunks = 1;
    if (!TU_CHECK(rtopo__sched_coll(t, &sc, NULL, &s) == RTOPO_OK, "scan n %d: %s", t->n,
                  rtopo_last_error()))
        return -1;
    rtopo__sched_moves(s, ms);
    rtopo__sched_free(s);
    return 0;
}

#define RMV_CHECK(t, op, got_simd, got_mimd, got_otis, other, ws, wm, wo)              \
    TU_CHECK((got_simd) == (uint32_t)(ws) && (got_mimd) == (uint32_t)(wm) &&           \
             (got_otis) == (uint32_t)(wo) && (other) == 0,                             \
             "%s n %d: moves electronic_simd %u, electronic %u, otis %u, other %u; "   \
             "expected %d, %d, %d, 0", rtopo__coll_name(op), (t)->n, (got_simd),        \
             (got_mimd), (got_otis), (other), (int)(ws), (int)(wm), (int)(wo))

/* Wang and Sahni's 7(s-1) electronic (SIMD; 4(s-1) MIMD) and 2 OTIS moves
 * per routing: concentrate the prefix sum of the selection ranks (ms: a
 * scan of one int64 with the topology's algorithm) then one routing;
 * distribute and generalize one routing with TOPO (the paper's), two
 * with AUTO (the successors' destinations first, to check the order).
 * select_rank with TOPO moves as that scan. */
static void route_moves_check(const rtopo__tdesc_t *t, int op, int algo,
                              const rtopo__moves_t *mv, const rtopo__moves_t *ms)
{
    int s1 = isqrt(t->n) - 1, d = 0;

    if (t->kind == RTOPO__TOPO_OTIS_HYPERCUBE) {
        /* the direct adaptation: a routing crosses the d bits of P, OTIS,
         * those of G, OTIS (2d electronic and 2 OTIS moves); the
         * distribute and the generalize take two (the successor's
         * destination first, to check the order), the concentrate one
         * after the ranks */
        while ((1 << d) < t->n)
            d++;
        if (op == RTOPO__COLL_CONCENTRATE)
            RMV_CHECK(t, op, mv->electronic_simd - ms->electronic_simd,
                      mv->electronic - ms->electronic, mv->otis - ms->otis, mv->other,
                      2 * d, 2 * d, 2);
        else if (op != RTOPO__COLL_SELECT_RANK)
            RMV_CHECK(t, op, mv->electronic_simd, mv->electronic, mv->otis, mv->other, 4 * d,
                      4 * d, 4);
        return;
    }
    switch (op) {
    case RTOPO__COLL_SELECT_RANK:
        RMV_CHECK(t, op, mv->electronic_simd, mv->electronic, mv->otis, mv->other,
                  ms->electronic_simd, ms->electronic, ms->otis);
        break;
    case RTOPO__COLL_CONCENTRATE:
        RMV_CHECK(t, op, mv->electronic_simd - ms->electronic_simd,
                  mv->electronic - ms->electronic, mv->otis - ms->otis, mv->other,
                  7 * s1, 4 * s1, 2);
        break;
    case RTOPO__COLL_DISTRIBUTE:
    case RTOPO__COLL_GENERALIZE:
        if (algo == RTOPO_COLL_TOPO) {
            RMV_CHECK(t, op, mv->electronic_simd, mv->electronic, mv->otis, mv->other,
                      7 * s1, 4 * s1, 2);
            break;
        }
        /* fall through */
    default:
        RMV_CHECK(t, op, mv->electronic_simd, mv->electronic, mv->otis, mv->other, 14 * s1,
                  8 * s1, 4);
        break;
    }
}

/* the moves on OTIS-meshes n = 4 and 16, each schedule executed on random
 * input first, the generalize with both of its algorithms (n = 64:
 * test_route_64, on the schedules it runs); then on OTIS-hypercubes n = 2,
 * 4, 16 */
static void test_route_moves(void)
{
    static const int ns[5] = { 4, 16, 2, 4, 16 };
    static const int ops[6][2] = {    /* op, algo */
        { RTOPO__COLL_SELECT_RANK, RTOPO_COLL_TOPO }, { RTOPO__COLL_CONCENTRATE, RTOPO_COLL_TOPO },
        { RTOPO__COLL_DISTRIBUTE, RTOPO_COLL_TOPO }, { RTOPO__COLL_GENERALIZE, RTOPO_COLL_TOPO },
        { RTOPO__COLL_GENERALIZE, RTOPO_COLL_AUTO }, { RTOPO__COLL_DISTRIBUTE, RTOPO_COLL_AUTO },
    };
    rtopo__tdesc_t t;
    rtopo__moves_t mv, ms;
    rtopo__sched_t *s = NULL;
    int32_t sel[256];
    int64_t dest[256];
    int ni, i;

    budget_test();
    for (ni = 0; ni < 5 && fails_left > 0; ni++) {
        int n = ns[ni], s1 = isqrt(n) - 1;

        tdesc(&t, ni < 2 ? RTOPO__TOPO_OTIS_MESH : RTOPO__TOPO_OTIS_HYPERCUBE, n * n, n, 0);
        budget_topo();
        if (scan_moves(&t, &ms))
            continue;
        if (ni < 2)
            RMV_CHECK(&t, RTOPO__COLL_SCAN, ms.electronic_simd, ms.electronic_simd, ms.otis,
                      ms.other, 7 * s1, 7 * s1, 2);
        for (i = 0; i < 6; i++) {
            int o = ops[i][0], algo = ops[i][1];
            rtopo__coll_t c;
            char what[128];

            route_coll(&c, o, algo, 8);
            gen_selected(t.p, 3, sel, what, sizeof(what));
            if (o == RTOPO__COLL_DISTRIBUTE || o == RTOPO__COLL_GENERALIZE)
                gen_dests(t.p, 3, dest, what, sizeof(what));
            if (route_run(&t, &c, sel, dest, what, RTOPO_OK, &s))
                continue;
            rtopo__sched_moves(s, &mv);
            rtopo__sched_free(s);
            s = NULL;
            route_moves_check(&t, o, algo, &mv, &ms);
        }
    }
}

/* n = 64 (4096 ranks): a few cases of each, and the moves of their
 * schedules */
static void test_route_64(void)
{
    static const int cases[][4] = {   /* op, algo, variant, record bytes */
        { RTOPO__COLL_SELECT_RANK, RTOPO_COLL_TOPO, 3, 1 },
        { RTOPO__COLL_CONCENTRATE, RTOPO_COLL_TOPO, 3, 8 },
        { RTOPO__COLL_CONCENTRATE, RTOPO_COLL_AUTO, 4, 100 },
        { RTOPO__COLL_DISTRIBUTE, RTOPO_COLL_TOPO, 3, 5 },
        { RTOPO__COLL_DISTRIBUTE, RTOPO_COLL_AUTO, 4, 24 },
        { RTOPO__COLL_GENERALIZE, RTOPO_COLL_TOPO, 6, 1 },
        { RTOPO__COLL_GENERALIZE, RTOPO_COLL_TOPO, 3, 13 },
        { RTOPO__COLL_GENERALIZE, RTOPO_COLL_TOPO, 5, 8 },
        { RTOPO__COLL_GENERALIZE, RTOPO_COLL_AUTO, 4, 100 },
    };
    rtopo__tdesc_t t;
    rtopo__moves_t mv, ms;
    rtopo__sched_t *s = NULL;
    int32_t *sel;
    int64_t *dest;
    size_t i;

    budget_test();
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 64 * 64, 64, 0);
    sel = malloc(sizeof(*sel) * 4096);
    dest = malloc(sizeof(*dest) * 4096);
    CU_ASSERT_FATAL(sel && dest);
    if (!scan_moves(&t, &ms))
        RMV_CHECK(&t, RTOPO__COLL_SCAN, ms.electronic_simd, ms.electronic_simd, ms.otis,
                  ms.other, 7 * 7, 7 * 7, 2);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int op = cases[i][0];
        rtopo__coll_t c;
        char what[128];

        route_coll(&c, op, cases[i][1], (size_t)cases[i][3]);
        if (op == RTOPO__COLL_SELECT_RANK || op == RTOPO__COLL_CONCENTRATE)
            gen_selected(t.p, cases[i][2], sel, what, sizeof(what));
        else
            gen_dests(t.p, cases[i][2], dest, what, sizeof(what));
        if (route_run(&t, &c, sel, dest, what, RTOPO_OK, &s))
            continue;
        rtopo__sched_moves(s, &mv);
        rtopo__sched_free(s);
        s = NULL;
        route_moves_check(&t, op, c.algo, &mv, &ms);
    }
    free(sel);
    free(dest);
}

/* select_rank on every topology with every algorithm */
static void test_select_rank(void)
{
    static const int kinds[][3] = {   /* kind, a, b */
        { RTOPO__TOPO_RING, 1, 0 }, { RTOPO__TOPO_RING, 2, 0 }, { RTOPO__TOPO_RING, 7, 0 },
        { RTOPO__TOPO_MESH, 1, 1 }, { RTOPO__TOPO_MESH, 2, 3 }, { RTOPO__TOPO_MESH, 4, 4 },
        { RTOPO__TOPO_HYPERCUBE, 0, 0 }, { RTOPO__TOPO_HYPERCUBE, 1, 0 },
        { RTOPO__TOPO_HYPERCUBE, 3, 0 }, { RTOPO__TOPO_HYPERCUBE, 6, 0 },
        { RTOPO__TOPO_OTIS_HYPERCUBE, 1, 0 }, { RTOPO__TOPO_OTIS_HYPERCUBE, 2, 0 },
        { RTOPO__TOPO_OTIS_HYPERCUBE, 8, 0 }, { RTOPO__TOPO_OTIS_MESH, 1, 0 },
        { RTOPO__TOPO_OTIS_MESH, 4, 0 }, { RTOPO__TOPO_OTIS_MESH, 9, 0 },
        { RTOPO__TOPO_OTIS_MESH, 16, 0 },
    };
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    int32_t sel[256];
    size_t i;
    int ai, v;
    char what[128];

    budget_test();
    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && fails_left > 0; i++) {
        int k = kinds[i][0], a = kinds[i][1], p;

        p = k == RTOPO__TOPO_RING ? a : k == RTOPO__TOPO_MESH ? a * kinds[i][2] :
            k == RTOPO__TOPO_HYPERCUBE ? 1 << a : a * a;
        tdesc(&t, k, p, a, kinds[i][2]);
        budget_topo();
        for (ai = 0; ai < 3; ai++)
            for (v = 0; v < NSEL; v++) {
                route_coll(&c, RTOPO__COLL_SELECT_RANK, algos[ai], 1);
                gen_selected(p, v, sel, what, sizeof(what));
                route_run(&t, &c, sel, NULL, what, RTOPO_OK, NULL);
            }
    }
}

/* the argument errors, and inputs that break the order */
static void test_route_errors(void)
{
    rtopo__tdesc_t om, oh, ring, mesh, cube, host, om4, oh4;
    rtopo__coll_t c;
    int32_t sel[16];
    int64_t dest[16];
    int op, ai, r, ti;
    char what[96];

    tdesc(&om, RTOPO__TOPO_OTIS_MESH, 256, 16, 0);
    tdesc(&om4, RTOPO__TOPO_OTIS_MESH, 16, 4, 0);
    tdesc(&oh4, RTOPO__TOPO_OTIS_HYPERCUBE, 16, 4, 0);
    tdesc(&oh, RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0);
    tdesc(&ring, RTOPO__TOPO_RING, 6, 0, 0);
    tdesc(&mesh, RTOPO__TOPO_MESH, 12, 3, 4);
    tdesc(&cube, RTOPO__TOPO_HYPERCUBE, 8, 3, 0);
    tdesc(&host, RTOPO__TOPO_HYPERCUBE, 8, 3, 0);
    CU_ASSERT_FATAL(rtopo__tdesc_add_host(&host) == RTOPO_OK);

    budget_test();
    for (ai = 0; ai < 3; ai++) {
        int algo = algos[ai];

        route_coll(&c, RTOPO__COLL_SELECT_RANK, algo, 1);
        err_check(&host, &c, RTOPO_ERR_UNSUPPORTED, "select_rank with a host");
        for (op = RTOPO__COLL_CONCENTRATE; op <= RTOPO__COLL_GENERALIZE; op++) {
            route_coll(&c, op, algo, 8);
            err_check(&ring, &c, RTOPO_ERR_UNSUPPORTED, "routing on a ring");
            err_check(&mesh, &c, RTOPO_ERR_UNSUPPORTED, "routing on a mesh");
            err_check(&cube, &c, RTOPO_ERR_UNSUPPORTED, "routing on a hypercube");
            err_check(&host, &c, RTOPO_ERR_UNSUPPORTED, "routing with a host");
            c.esize = 0;
            err_check(&om, &c, RTOPO_ERR_INVAL, "record of 0 bytes");
            err_check(&oh, &c, RTOPO_ERR_INVAL, "record of 0 bytes on an OTIS-hypercube");
            err_check(&ring, &c, RTOPO_ERR_UNSUPPORTED, "record of 0 bytes on a ring");
            c.esize = ((size_t)1 << 30) + 1;
            err_check(&om, &c, RTOPO_ERR_INVAL, "record of 1 GiB + 1");
            c.esize = 8;
            c.count = 2;
            err_check(&om, &c, RTOPO_ERR_INVAL, "two records");
            c.count = 0;
            err_check(&om, &c, RTOPO_ERR_INVAL, "no record");
            c.count = 1;
            if (algo == RTOPO_COLL_GENERIC) {
                err_check(&om, &c, RTOPO_ERR_UNSUPPORTED, "routing, generic algorithm");
                err_check(&oh, &c, RTOPO_ERR_UNSUPPORTED, "routing, generic algorithm on "
                          "an OTIS-hypercube");
            }
        }
    }
    for (op = RTOPO__COLL_SELECT_RANK; op <= RTOPO__COLL_GENERALIZE; op++) {
        route_coll(&c, op, 7, 8);
        err_check(&om, &c, RTOPO_ERR_INVAL, "algorithm 7");
        c.algo = -1;
        err_check(&ring, &c, RTOPO_ERR_INVAL, "algorithm -1");
    }
    /* the largest record is accepted (built, not run) */
    {
        rtopo__sched_t *s = NULL;

        route_coll(&c, RTOPO__COLL_DISTRIBUTE, RTOPO_COLL_TOPO, (size_t)1 << 30);
        TU_CHECK(rtopo__sched_coll(&om4, &c, NULL, &s) == RTOPO_OK && s,
                 "distribute of 1 GiB records: %s", rtopo_last_error());
        rtopo__sched_free(s);
    }
    /* inputs that break the order, on both OTIS topologies: the
     * reference and the execution fail */
    for (ti = 0; ti < 2; ti++) {
        const rtopo__tdesc_t *ot = ti ? &oh4 : &om4;

        memset(sel, 0, sizeof(sel));
        for (op = RTOPO__COLL_DISTRIBUTE; op <= RTOPO__COLL_GENERALIZE; op++) {
            route_coll(&c, op, RTOPO_COLL_TOPO, 8);
            for (r = 0; r < 16; r++)
                dest[r] = -1;
            dest[0] = 16;
            snprintf(what, sizeof(what), "rank 0 to 16 (p 16)");
            route_run(ot, &c, sel, dest, what, RTOPO_ERR_INVAL, NULL);
            dest[0] = 2;
            dest[1] = 5;
            dest[2] = INT64_MAX;
            snprintf(what, sizeof(what), "ranks 0..2 to 2, 5, INT64_MAX");
            route_run(ot, &c, sel, dest, what, RTOPO_ERR_INVAL, NULL);
            for (r = 0; r < 16; r++)
                dest[r] = r;
            dest[15] = 16;
            snprintf(what, sizeof(what), "every rank to itself, the last to 16");
            route_run(ot, &c, sel, dest, what, RTOPO_ERR_INVAL, NULL);
        }
        /* destinations out of order that once ran through with a record lost
         * (rank 9's, for rank 0, dropped by a sweep that did not go its way) */
        {
            static const int64_t perm[10] = { 4, 2, 3, 5, 1, 11, 6, 8, 15, 0 };

            route_coll(&c, RTOPO__COLL_DISTRIBUTE, RTOPO_COLL_TOPO, 8);
            for (r = 0; r < 16; r++)
                dest[r] = r < 10 ? perm[r] : -1;
            snprintf(what, sizeof(what), "ranks 0..9 to 4 2 3 5 1 11 6 8 15 0");
            route_run(ot, &c, sel, dest, what, RTOPO_ERR_INVAL, NULL);
            /* a gap in the senders; destinations decreasing, which one
             * routing alone may deliver: the checked distribute (AUTO;
             * the OTIS-hypercube's only) fails */
            route_coll(&c, RTOPO__COLL_DISTRIBUTE, RTOPO_COLL_AUTO, 8);
            for (r = 0; r < 16; r++)
                dest[r] = -1;
            dest[0] = 2;
            dest[2] = 5;
            snprintf(what, sizeof(what), "ranks 0, 2 to 2, 5 (rank 1 none)");
            route_run(ot, &c, sel, dest, what, RTOPO_ERR_INVAL, NULL);
            dest[0] = -1;
            dest[1] = 3;
            dest[2] = -1;
            snprintf(what, sizeof(what), "rank 1 to 3 (rank 0 none)");
            route_run(ot, &c, sel, dest, what, RTOPO_ERR_INVAL, NULL);
            dest[0] = 5;
            dest[1] = 3;
            snprintf(what, sizeof(what), "ranks 0, 1 to 5, 3");
            route_run(ot, &c, sel, dest, what, RTOPO_ERR_INVAL, NULL);
        }
        /* generalize destinations out of order, with both algorithms: these
         * the single routing finds too (two records meet, or a destination
         * before its sender) */
        for (ai = 0; ai < 2; ai++) {
            route_coll(&c, RTOPO__COLL_GENERALIZE, ai ? RTOPO_COLL_TOPO : RTOPO_COLL_AUTO, 5);
            for (r = 0; r < 16; r++)
                dest[r] = -1;
            dest[0] = 3;
            dest[1] = 3;
            snprintf(what, sizeof(what), "ranks 0, 1 both to 3");
            route_run(ot, &c, sel, dest, what, RTOPO_ERR_INVAL, NULL);
            dest[1] = 1;
            snprintf(what, sizeof(what), "ranks 0, 1 to 3, 1");
            route_run(ot, &c, sel, dest, what, RTOPO_ERR_INVAL, NULL);
            dest[0] = 9;
            dest[1] = 0;
            dest[2] = 12;
            snprintf(what, sizeof(what), "ranks 0..2 to 9, 0, 12");
            route_run(ot, &c, sel, dest, what, RTOPO_ERR_INVAL, NULL);
            for (r = 0; r < 16; r++)
                dest[r] = r;
            dest[4] = 5;
            snprintf(what, sizeof(what), "every rank to itself, rank 4 to 5 as rank 5");
            route_run(ot, &c, sel, dest, what, RTOPO_ERR_INVAL, NULL);
            dest[4] = 4;
            dest[7] = 11;
            dest[8] = 9;
            snprintf(what, sizeof(what), "every rank to itself, rank 7 to 11, rank 8 to 9");
            route_run(ot, &c, sel, dest, what, RTOPO_ERR_INVAL, NULL);
        }
    }
}

/* ---- BPC, sort, random access ---------------------------------------- */

/* the seed's example: [-0, 1, 2, -3] on 16 ranks */
static void test_bpc_table(void)
{
    static const int want[16] = { 9, 1, 13, 5, 11, 3, 15, 7, 8, 0, 12, 4, 10, 2, 14, 6 };
    rtopo__coll_t c;
    int r;

    memset(&c, 0, sizeof(c));
    CU_ASSERT_FATAL(rtopo__bpc_parse("[-0, 1, 2, -3]", 4, &c) == RTOPO_OK);
    for (r = 0; r < 16; r++)
        TU_CHECK(rtopo__bpc_dest(&c, r) == want[r], "[-0, 1, 2, -3]: rank %d to %d, "
                 "expected %d", r, rtopo__bpc_dest(&c, r), want[r]);
}

static void bpc_coll(rtopo__coll_t *c, int algo, uint64_t bytes)
{
    memset(c, 0, sizeof(*c));
    c->op = RTOPO__COLL_BPC;
    c->algo = algo;
    c->dtype = RTOPO_INT32;
    c->count = bytes;
    c->esize = 1;
    c->chunks = 1;
}

/* a random vector of k bits: a random permutation, random complements */
static void bpc_random(rtopo__coll_t *c, int k)
{
    int i, j, v;

    for (i = 0; i < k; i++)
        c->bpc_to[i] = (int8_t)i;
    for (i = k - 1; i > 0; i--) {
        j = (int)(rnd() % (unsigned)(i + 1));
        v = c->bpc_to[i];
        c->bpc_to[i] = c->bpc_to[j];
        c->bpc_to[j] = (int8_t)v;
    }
    c->bpc_bits = k;
    c->bpc_neg = k ? rnd() & ((1u << k) - 1) : 0;
}

/* Every named vector, the seed's and random ones on t (p = 2^k); on the
 * OTIS topologies their moves: at most one OTIS move (one exactly when a
 * record changes group) and at most 4(s-1) electronic steps (OTIS-mesh,
 * MIMD: rows and columns of every route move in the same steps) or
 * 2 log2(n) (OTIS-hypercube) */
static void bpc_topo(const rtopo__tdesc_t *t, int nrandom)
{
    static const char *const named[6] = { "identity", "reversal", "shuffle", "unshuffle",
                                          "transpose", "[-0, 1, 2, -3]" };
    rtopo__coll_t c;
    rtopo__sched_t *s;
    rtopo__moves_t mv;
    int k = 0, v, r, cross, lim, om = t->kind == RTOPO__TOPO_OTIS_MESH;
    int otis = om || t->kind == RTOPO__TOPO_OTIS_HYPERCUBE;

    while ((1 << k) < t->p)
        k++;
    budget_topo();
    for (v = 0; v < 6 + nrandom && fails_left > 0; v++) {
        bpc_coll(&c, algos[v % 3], 1 + rnd() % 40);
        if (v < 6) {
            if ((v == 4 && k % 2) || (v == 5 && k != 4))
                continue;
            CU_ASSERT_FATAL(rtopo__bpc_parse(named[v], k, &c) == RTOPO_OK);
        } else {
            bpc_random(&c, k);
        }
        s = NULL;
        if (coll_run(t, &c, &s) || !s) {
            rtopo__sched_free(s);
            continue;
        }
        rtopo__sched_moves(s, &mv);
        rtopo__sched_free(s);
        for (r = 0, cross = 0; otis && r < t->p; r++)
            cross |= r / t->n != rtopo__bpc_dest(&c, r) / t->n;
        if (!otis) {
            TU_CHECK(mv.electronic == 0 && mv.otis == 0 && mv.other <= 1, "%s: moves "
                     "electronic %u otis %u other %u (one DIRECT step at most)",
                     cdesc(t, &c), mv.electronic, mv.otis, mv.other);
            continue;
        }
        lim = om ? 4 * (isqrt(t->n) - 1) : 0;
        if (!om)
            while ((1 << lim) < t->n)
                lim++;
        if (!om)
            lim *= 2;
        /* SIMD: the routes move in phases (row, column; a cube dimension),
         * a step along one class in both directions at most */
        TU_CHECK(mv.otis == (uint32_t)cross && mv.other == 0 &&
                 mv.electronic <= (uint32_t)lim &&
                 mv.electronic_simd <= (uint32_t)(om ? 2 * lim : lim),
                 "%s: moves electronic_simd %u, electronic %u, otis %u, other %u; "
                 "expected at most %d electronic (MIMD), %d SIMD, %d otis", cdesc(t, &c),
                 mv.electronic_simd, mv.electronic, mv.otis, mv.other, lim,
                 om ? 2 * lim : lim, cross);
    }
    /* 0 bytes move nothing */
    bpc_coll(&c, RTOPO_COLL_AUTO, 0);
    bpc_random(&c, k);
    s = NULL;
    if (TU_CHECK(rtopo__sched_coll(t, &c, NULL, &s) == RTOPO_OK && s, "%s: build: %s",
                 cdesc(t, &c), rtopo_last_error()))
        TU_CHECK(s->nxfers == 0 && s->nhops == 0 && s->nsteps == 0, "%s: %u transfers, "
                 "%u hops, %u steps", cdesc(t, &c), s->nxfers, s->nhops, s->nsteps);
    rtopo__sched_free(s);
}

static void test_bpc(void)
{
    rtopo__tdesc_t t;

    budget_test();
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 16, 4, 0);
    bpc_topo(&t, 12);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 256, 16, 0);
    bpc_topo(&t, 6);
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 1, 1, 0);
    bpc_topo(&t, 2);
    tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 16, 4, 0);
    bpc_topo(&t, 12);
    tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 64, 8, 0);
    bpc_topo(&t, 6);
    tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, 256, 16, 0);
    bpc_topo(&t, 4);
    tdesc(&t, RTOPO__TOPO_RING, 16, 16, 0);
    bpc_topo(&t, 8);
    tdesc(&t, RTOPO__TOPO_RING, 2, 2, 0);
    bpc_topo(&t, 2);
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 16, 4, 0);
    bpc_topo(&t, 8);
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 32, 5, 0);
    bpc_topo(&t, 6);
}

/* sort keys: a few values repeated (duplicates), the extremes, and for
 * the floating types NaN, +-inf and -0.0; the rest of a record random */
static void sort_fill(cbufs_t *b, const rtopo__coll_t *c)
{
    uint64_t i;
    int r;

    for (r = 0; r < b->p; r++)
        for (i = 0; i < c->count; i++) {
            uint8_t *d = cb_send(b, r) + i * c->esize;
            unsigned x = rnd() % 16;
            long v = (long)(rnd() % 9) - 4;

            switch (c->dtype) {
            case RTOPO_INT32: {
                int32_t k = x == 0 ? INT32_MIN : x == 1 ? INT32_MAX : (int32_t)v;

                memcpy(d, &k, sizeof k);
                break;
            }
            case RTOPO_INT64: {
                int64_t k = x == 0 ? INT64_MIN : x == 1 ? INT64_MAX : v;

                memcpy(d, &k, sizeof k);
                break;
            }
            case RTOPO_FLOAT: {
                float k = x == 0 ? -1.0f / 0.0f : x == 1 ? 1.0f / 0.0f : x == 2 ? 0.0f / 0.0f :
                          x == 3 ? -0.0f : (float)v * 0.5f;

                if (x == 2 && rnd() % 2)
                    k = -k;
                memcpy(d, &k, sizeof k);
                break;
            }
            default: {
                double k = x == 0 ? -1.0 / 0.0 : x == 1 ? 1.0 / 0.0 : x == 2 ? 0.0 / 0.0 :
                           x == 3 ? -0.0 : (double)v * 0.25;

                if (x == 2 && rnd() % 2)
                    k = -k;
                memcpy(d, &k, sizeof k);
                break;
            }
            }
        }
}

static void sort_coll(rtopo__coll_t *c, int algo, int dtype, uint64_t count, size_t extra,
                      int desc)
{
    memset(c, 0, sizeof(*c));
    c->op = RTOPO__COLL_SORT;
    c->algo = algo;
    c->dtype = dtype;
    c->count = count;
    c->esize = rtopo__dtype_size(dtype) + extra;
    c->desc = desc;
    c->chunks = 1;
}

/* every algorithm, key type and direction, counts 0, 1, 3, 50 and 451 on
 * an OTIS-mesh of 16 ranks; fewer cases on other topologies */
static void test_sort(void)
{
    static const uint64_t cnt[5] = { 0, 1, 3, 50, 451 };
    static const size_t extra[4] = { 0, 4, 9, 16 };
    static const int kinds[][3] = {   /* kind, p, a */
        { RTOPO__TOPO_OTIS_HYPERCUBE, 16, 4 }, { RTOPO__TOPO_HYPERCUBE, 8, 3 },
        { RTOPO__TOPO_MESH, 12, 3 }, { RTOPO__TOPO_RING, 6, 6 }, { RTOPO__TOPO_RING, 1, 1 },
        { RTOPO__TOPO_OTIS_MESH, 81, 9 }, { RTOPO__TOPO_OTIS_MESH, 256, 16 },
    };
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    int ai, di, ci, desc;
    size_t i;

    budget_test();
    fill_hook = sort_fill;
    tdesc(&t, RTOPO__TOPO_OTIS_MESH, 16, 4, 0);
    budget_topo();
    for (ai = 0; ai < 3; ai++)
        for (di = 0; di < 4; di++)
            for (desc = 0; desc < 2; desc++)
                for (ci = 0; ci < 5; ci++) {
                    sort_coll(&c, algos[ai], dtypes[di], cnt[ci], extra[(ci + di) % 4], desc);
                    coll_run(&t, &c, NULL);
                }
    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && fails_left > 0; i++) {
        tdesc(&t, kinds[i][0], kinds[i][1], kinds[i][2], kinds[i][0] == RTOPO__TOPO_MESH ?
              4 : 0);
        budget_topo();
        for (ai = 0; ai < 3; ai++)
            for (di = 0; di < 4; di++) {
                uint64_t k = kinds[i][1] > 16 ? 1 + rnd() % 8 : 1 + rnd() % 60;

                sort_coll(&c, algos[ai], dtypes[di], k, extra[rnd() % 4], (ai + di) % 2);
                coll_run(&t, &c, NULL);
            }
    }
    fill_hook = NULL;
}

/* One key per rank on OTIS-meshes of N = 4, 16 and 64 groups (16, 256
 * and 4096 ranks): seed 004's column sort (TOPO: N^(1/2) rows of N^(3/2)
 * ranks), the bitonic merge-split (GENERIC) and AUTO, every one correct;
 * AUTO builds one of the two, and the bitonic sort's electronic moves
 * stay within 2 sum_b (D - b) 2^(b mod h) + 2 per group bit (D index
 * bits, h per coordinate: each exchange along an index bit crosses 2^(b
 * mod h) links each way, and a group bit adds the two OTIS moves' SIMD
 * turn) */
static void test_sort_otis_sizes(void)
{
    static const int ns[3] = { 4, 16, 64 };
    static const int algs[3] = { RTOPO_COLL_TOPO, RTOPO_COLL_GENERIC, RTOPO_COLL_AUTO };
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    rtopo__sched_t *s;
    rtopo__moves_t mv;
    int ni, ai;

    budget_test();
    fill_hook = sort_fill;
    for (ni = 0; ni < 3 && fails_left > 0; ni++) {
        int n = ns[ni], h = 0, D, bit, bound = 0;

        while ((1 << (2 * h)) < n)
            h++;
        D = 4 * h;
        for (bit = 0; bit < D; bit++)
            bound += 2 * (D - bit) * (1 << (bit % h)) + (bit >= 2 * h ? 2 * (D - bit) : 0);
        tdesc(&t, RTOPO__TOPO_OTIS_MESH, n * n, n, 0);
        budget_topo();
        for (ai = 0; ai < 3; ai++) {
            s = NULL;
            sort_coll(&c, algs[ai], RTOPO_INT64, 1, 8, ai == 1);
            if (coll_run(&t, &c, &s) != 0 || !s)
                continue;
            rtopo__sched_moves(s, &mv);
            if (algs[ai] == RTOPO_COLL_GENERIC)
                TU_CHECK(mv.electronic_simd <= (uint32_t)bound, "%s: %u electronic moves "
                         "(SIMD), more than %d", cdesc(&t, &c), mv.electronic_simd, bound);
            rtopo__sched_free(s);
        }
    }
    fill_hook = NULL;
}

/* The OTIS-mesh column sort's moves (rtopo_sort(3)), one int32 per rank,
 * N = 16 and 64 (N = 256, 65536 ranks, is beyond a unit test's memory):
 * each of the four row sorts is bitonic merge-split in a 4-D submesh,
 * 2 sum_i (3e - i) 2^lvl(i) SIMD electronic moves (half as many MIMD)
 * and two OTIS moves per round over a G bit, exactly; the three
 * permutations add at most the paper's 22 N^(1/2) (11 N^(1/2) MIMD)
 * electronic moves, the compare-exchange's two swaps between neighbouring
 * submeshes at most 2 sum_c 2 m_c (MIMD 2 sum_c m_c; m_c: the submesh's
 * side along a coordinate c that numbers rows), and all of them 10 OTIS
 * moves.  The whole count is also the table's. */
static void test_sort_moves(void)
{
    static const int ns[2] = { 16, 64 };
    static const uint32_t table[2][3] = { { 252, 126, 63 }, { 678, 339, 151 } };
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    rtopo__moves_t mv;
    int ni;

    budget_test();
    for (ni = 0; ni < 2 && fails_left > 0; ni++) {
        int n = ns[ni], s = isqrt(n), e = 0, taken[4] = { 0, 0, 0, 0 }, i, lvl, k, q;
        uint32_t rs = 0, ro = 0, cx = 0;

        while ((1 << e) < s)
            e++;
        for (i = 0; i < e; i++)         /* the row bits: tops of Gx, Gy, Px, Py */
            taken[3 - i % 4]++;
        for (k = 0; k < 4; k++)
            cx += taken[k] ? 1u << (e - taken[k]) : 0;
        for (lvl = 0, i = 0; lvl < e; lvl++)
            for (k = 0; k < 4; k++)     /* Py, Px, Gy, Gx */
                if (lvl < e - taken[k]) {
                    rs += 2u * (uint32_t)(3 * e - i) << lvl;
                    if (k >= 2)
                        ro += 2u * (uint32_t)(3 * e - i);
                    i++;
                }
        tdesc(&t, RTOPO__TOPO_OTIS_MESH, n * n, n, 0);
        budget_topo();
        memset(&c, 0, sizeof(c));
        c.op = RTOPO__COLL_SORT;
        if (moves(&t, &c, &mv))
            continue;
        q = 4;
        TU_CHECK(mv.electronic_simd > q * rs &&
                 mv.electronic_simd <= q * rs + 22u * s + 4 * cx &&
                 mv.electronic > q * rs / 2 && mv.electronic <= q * rs / 2 + 11u * s + 2 * cx &&
                 mv.otis > q * ro && mv.otis <= q * ro + 10 && mv.other == 0,
                 "%s: moves electronic %u SIMD, %u MIMD, OTIS %u, other %u: row sorts "
                 "%u SIMD, %u OTIS, the rest more than 22 N^(1/2) = %d and 4 sum m_c = %u",
                 cdesc(&t, &c), mv.electronic_simd, mv.electronic, mv.otis, mv.other,
                 q * rs, q * ro, 22 * s, 4 * cx);
        TU_CHECK(mv.electronic_simd == table[ni][0] && mv.electronic == table[ni][1] &&
                 mv.otis == table[ni][2], "%s: moves %u SIMD, %u MIMD, %u OTIS, "
                 "rtopo_sort(3): %u, %u, %u", cdesc(&t, &c), mv.electronic_simd,
                 mv.electronic, mv.otis, table[ni][0], table[ni][1], table[ni][2]);
    }
}

/* OTIS-hypercube shifts along G and P over the cube and OTIS links: a
 * value moves by E-cube, so d - k electronic moves (k: the lowest bit of
 * the displacement modulo N), both models; along G two OTIS moves,
 * circular (g, h) or zero-fill (e, f); along P none (a..d) */
static void test_moves_ohc_shift(void)
{
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    rtopo__moves_t mv;
    rtopo__sched_t *s;
    int n, d, dim, disp;

    budget_test();
    for (n = 2, d = 1; n <= 16 && fails_left > 0; n *= 2, d++) {
        tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, n * n, n, 0);
        budget_topo();
        for (dim = 0; dim < 2; dim++)
            for (disp = -(n - 1); disp <= n - 1; disp++) {
                int ad = disp < 0 ? -disp : disp, dm = ((disp % n) + n) % n;
                uint32_t fill = ad ? (uint32_t)(d - __builtin_ctz((unsigned)ad)) : 0;
                uint32_t circ = dm ? (uint32_t)(d - __builtin_ctz((unsigned)dm)) : 0;
                rtopo__dimshift_t ds = { dim, 0, disp, 8, 0, 0 };

                if (!disp)
                    continue;
                memset(&c, 0, sizeof(c));
                c.op = RTOPO__COLL_SHIFT_FILL;
                c.dim = dim;
                c.disp = disp;
                if (!moves(&t, &c, &mv))
                    TU_CHECK(mv.electronic_simd == fill && mv.electronic == fill &&
                             mv.otis == (dim ? 0u : 2u) && mv.other == 0,
                             "%s: moves electronic %u SIMD %u MIMD, OTIS %u, other %u; "
                             "want %u, %u", cdesc(&t, &c), mv.electronic_simd,
                             mv.electronic, mv.otis, mv.other, fill, dim ? 0 : 2);
                s = NULL;
                if (!TU_CHECK(rtopo__sched_shift_dim(&t, &ds, &s) == RTOPO_OK && s,
                              "otis-hypercube %d dim %d disp %d: %s", n, dim, disp,
                              rtopo_last_error()))
                    continue;
                rtopo__sched_moves(s, &mv);
                TU_CHECK(mv.electronic_simd == circ && mv.electronic == circ &&
                         mv.otis == (dim ? 0u : 2u) && mv.other == 0,
                         "otis-hypercube %d circular shift dim %d disp %d: moves "
                         "electronic %u SIMD %u MIMD, OTIS %u, other %u; want %u, %u", n,
                         dim, disp, mv.electronic_simd, mv.electronic, mv.otis, mv.other,
                         circ, dim ? 0 : 2);
                rtopo__sched_free(s);
            }
    }
}

/* OTIS-hypercube accumulation, adjacent and consecutive sums on the
 * group's cube: every hop a cube link of the group or an OTIS link (no
 * DIRECT connection), one dimension per step, so d electronic moves for
 * the first two (M >= 2) and log2 M for the consecutive sum, the same in
 * both models; along G two OTIS moves more (none when M is 1) */
static void test_moves_ohc_line(void)
{
    static const int ops[3] = { RTOPO__COLL_ACCUMULATE, RTOPO__COLL_ADJACENT_SUM,
                                RTOPO__COLL_CONSEC_SUM };
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    rtopo__moves_t mv;
    rtopo__sched_t *s;
    int n, d, dim, mm, oi;
    uint32_t i, j;

    budget_test();
    for (n = 2, d = 1; n <= 32 && fails_left > 0; n *= 2, d++) {
        tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, n * n, n, 0);
        budget_topo();
        for (oi = 0; oi < 3; oi++)
            for (dim = 0; dim < 2; dim++)
                for (mm = 1; mm <= n; mm++) {
                    int lg = __builtin_ctz((unsigned)mm), bad = 0;
                    uint32_t want = ops[oi] == RTOPO__COLL_CONSEC_SUM ? (uint32_t)lg :
                                    mm > 1 ? (uint32_t)d : 0;

                    if (ops[oi] == RTOPO__COLL_CONSEC_SUM && (mm & (mm - 1)))
                        continue;
                    if (n == 32 && mm > 2 && mm < n)
                        continue;
                    memset(&c, 0, sizeof(c));
                    coll_init(&c, ops[oi], RTOPO_COLL_TOPO, 0);
                    c.dtype = RTOPO_INT32;
                    c.rop = RTOPO_SUM;
                    c.esize = 4;
                    c.count = 1;
                    c.chunks = 1;
                    c.dim = dim;
                    c.mm = mm;
                    s = NULL;
                    if (coll_run(&t, &c, &s) || !s)
                        continue;
                    rtopo__sched_moves(s, &mv);
                    TU_CHECK(mv.electronic_simd == want && mv.electronic == want &&
                             mv.otis == (dim || mm == 1 ? 0u : 2u) && mv.other == 0,
                             "%s: moves electronic %u SIMD %u MIMD, OTIS %u, other %u; "
                             "want %u, %u, 0", cdesc(&t, &c), mv.electronic_simd,
                             mv.electronic, mv.otis, mv.other, want,
                             dim || mm == 1 ? 0 : 2);
                    for (i = 0; i < s->nxfers && !bad; i++) {
                        int at = s->xfers[i].src;

                        for (j = 0; j < rtopo__sched_xnhops(s, i) && !bad; j++) {
                            const rtopo__hop_t *h = &s->hops[s->xfers[i].hop0 + j];

                            bad = !TU_CHECK((h->link == RTOPO__LINK_CUBE ||
                                             h->link == RTOPO__LINK_OTIS) &&
                                            rtopo__topo_hop_ok(&t, at, h),
                                            "%s: transfer %u hop %u from %d to %d over "
                                            "link class %d, not a link of the topology",
                                            cdesc(&t, &c), i, j, at, h->to, h->link);
                            at = h->to;
                        }
                    }
                    rtopo__sched_free(s);
                }
    }
}

/* SPEC 5.5 (seed 004's Fig. 4): the column sort of a 6 x 3 matrix after
 * every step */
static const int64_t fig4[8][18] = {
    { 7, 9, 12, 4, 16, 1, 18, 5, 14, 2, 17, 8, 15, 11, 6, 10, 3, 13 },
    { 2, 3, 1, 4, 5, 6, 7, 9, 8, 10, 11, 12, 15, 16, 13, 18, 17, 14 },
    { 2, 4, 7, 10, 15, 18, 3, 5, 9, 11, 16, 17, 1, 6, 8, 12, 13, 14 },
    { 1, 4, 7, 2, 5, 8, 3, 6, 9, 10, 13, 14, 11, 15, 17, 12, 16, 18 },
    { 1, 3, 11, 4, 6, 15, 7, 9, 17, 2, 10, 12, 5, 13, 16, 8, 14, 18 },
    { 1, 14, 11, 2, 13, 12, 4, 10, 15, 5, 9, 16, 7, 6, 17, 8, 3, 18 },
    { 1, 11, 14, 2, 12, 13, 4, 10, 15, 5, 9, 16, 6, 7, 17, 3, 8, 18 },
    { 1, 7, 13, 2, 8, 14, 3, 9, 15, 4, 10, 16, 5, 11, 17, 6, 12, 18 },
};

static void test_colsort_fig4(void)
{
    int64_t a[18];
    int st, i;

    for (st = 0; st <= 7; st++) {
        memcpy(a, fig4[0], sizeof(a));
        if (!TU_CHECK(rtopo__colsort_steps(a, 6, 3, st) == RTOPO_OK, "steps 1..%d: %s", st,
                      rtopo_last_error()))
            continue;
        for (i = 0; i < 18; i++)
            if (!TU_CHECK(a[i] == fig4[st][i], "after step %d: row %d column %d is %" PRId64
                          ", the figure has %" PRId64, st, i / 3, i % 3, a[i], fig4[st][i]))
                break;
    }
    TU_CHECK(rtopo__colsort_steps(a, 6, 3, 8) == RTOPO_ERR_INVAL, "8 steps accepted");
    TU_CHECK(rtopo__colsort_steps(a, 0, 3, 1) == RTOPO_ERR_INVAL, "0 rows accepted");
}

/* the schedule (TOPO, columns of 6) on 3 ranks holding the figure's
 * columns: rank j ends with 6j+1 .. 6j+6; with the reference too */
static void test_colsort_sched(void)
{
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    rtopo__sched_t *s = NULL;
    cbufs_t b;
    uint64_t size[RTOPO__BUF_COUNT];
    int r, i;

    tdesc(&t, RTOPO__TOPO_RING, 3, 3, 0);
    sort_coll(&c, RTOPO_COLL_TOPO, RTOPO_INT64, 6, 0, 0);
    c.mm = 6;
    CU_ASSERT_FATAL(rtopo__sched_coll(&t, &c, NULL, &s) == RTOPO_OK && s);
    TU_CHECK(s->algo == RTOPO_COLL_TOPO, "built algo %d", s->algo);
    TU_CHECK(rtopo__sched_validate(s) == RTOPO_OK, "invalid: %s", rtopo_last_error());
    size[RTOPO__BUF_SEND] = size[RTOPO__BUF_RECV] = 48;
    size[RTOPO__BUF_TMP] = s->tmp_bytes;
    CU_ASSERT_FATAL(cbufs_init(&b, 3, 48, 48, s->tmp_bytes) == 0);
    cbufs_fill(&b, &c);
    for (r = 0; r < 3; r++)
        for (i = 0; i < 6; i++)
            memcpy(cb_send(&b, r) + 8 * i, &fig4[0][i * 3 + r], 8);
    TU_CHECK(rtopo__coll_ref(&t, &c, (uint8_t *const *const *)b.bufs, b.out) == RTOPO_OK,
             "reference: %s", rtopo_last_error());
    TU_CHECK(rtopo__sim_exec_sized(s, (uint8_t *const *const *)b.bufs, size) == RTOPO_OK,
             "execution: %s", rtopo_last_error());
    for (r = 0; r < 3; r++)
        for (i = 0; i < 6; i++) {
            TU_CHECK(ld64(cb_recv(&b, r) + 8 * i) == 6 * r + i + 1, "rank %d record %d: %"
                     PRId64 ", expected %d", r, i, ld64(cb_recv(&b, r) + 8 * i), 6 * r + i + 1);
            TU_CHECK(ld64(b.out[r] + 8 * i) == 6 * r + i + 1, "reference rank %d record %d: %"
                     PRId64 ", expected %d", r, i, ld64(b.out[r] + 8 * i), 6 * r + i + 1);
        }
    cbufs_free(&b);
    rtopo__sched_free(s);
}

/* The descriptor table: every op of enum rtopo__coll_op has one, with a
 * builder and a serial reference, and a name that parses back to it; the
 * flags agree with the buffer sizes the runtime stages (a routing with an
 * input names it; RECV_IN: no SEND). */
static void test_desc_table(void)
{
    rtopo__coll_t c;
    int op, n = 0;

    CU_ASSERT(rtopo__coll_desc(0) == NULL);
    CU_ASSERT(rtopo__coll_desc(RTOPO__COLL_NOPS) == NULL);
    CU_ASSERT(rtopo__coll_parse("no_such_collective") < 0);
    CU_ASSERT(strcmp(rtopo__coll_name(RTOPO__COLL_NOPS), "?") == 0);
    for (op = 1; op < RTOPO__COLL_NOPS; op++) {
        const rtopo__coll_desc_t *d = rtopo__coll_desc(op);
        const char *name = rtopo__coll_name(op);

        if (!TU_CHECK(d != NULL, "op %d has no descriptor", op))
            continue;
        n++;
        TU_CHECK(strcmp(name, "?") && rtopo__coll_parse(name) == op, "op %d: name %s", op,
                 name);
        TU_CHECK(d->build && d->ref, "%s: builder or reference missing", name);
        TU_CHECK(!(d->flags & RTOPO__CF_REDUCE) || !(d->flags & RTOPO__CF_BYTES),
                 "%s: reduces bytes", name);
        TU_CHECK(rtopo__coll_is_route(op) == !!(d->flags & RTOPO__CF_ROUTE),
                 "%s: is_route disagrees", name);
        memset(&c, 0, sizeof(c));
        c.op = op;
        c.count = 3;
        c.esize = 8;
        c.mm = 2;
        if (d->flags & RTOPO__CF_RECV_IN)
            TU_CHECK(rtopo__coll_send_bytes(&c) == 0, "%s: SEND of %llu bytes", name,
                     (unsigned long long)rtopo__coll_send_bytes(&c));
        else
            TU_CHECK(rtopo__coll_send_bytes(&c) == (d->send_fixed ? d->send_fixed :
                     (d->flags & RTOPO__CF_SEND_MM) ? 48u : 24u), "%s: SEND of %llu bytes",
                     name, (unsigned long long)rtopo__coll_send_bytes(&c));
        TU_CHECK(rtopo__coll_recv_bytes(&c) == (d->recv_fixed ? d->recv_fixed :
                 (d->flags & RTOPO__CF_RECV_MM) ? 48u : 24u), "%s: RECV of %llu bytes",
                 name, (unsigned long long)rtopo__coll_recv_bytes(&c));
        if ((d->flags & RTOPO__CF_ROUTE) && d->key == RTOPO__CK_RECORD)
            TU_CHECK(d->in_arg != NULL, "%s: routing input unnamed", name);
    }
    CU_ASSERT(n == RTOPO__COLL_NOPS - 1);
}

/* The column sort off the OTIS topologies (ranks as columns): its
 * transposes are routed pair by pair, one DIRECT hop each, on a ring, a
 * mesh and a hypercube; the route of a pair must not take OTIS group
 * coordinates there (no groups: n is 0).  Every hop DIRECT, the schedule
 * valid and the result sorted. */
static void test_sort_direct_routes(void)
{
    static const int kinds[3][4] = {   /* kind, p, a, b */
        { RTOPO__TOPO_RING, 5, 5, 0 }, { RTOPO__TOPO_MESH, 6, 2, 3 },
        { RTOPO__TOPO_HYPERCUBE, 8, 3, 0 },
    };
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    rtopo__sched_t *s;
    uint32_t h, other;
    int i;

    budget_test();
    fill_hook = sort_fill;
    for (i = 0; i < 3; i++) {
        tdesc(&t, kinds[i][0], kinds[i][1], kinds[i][2], kinds[i][3]);
        budget_topo();
        sort_coll(&c, RTOPO_COLL_TOPO, RTOPO_INT64, 3, 0, i == 1);
        s = NULL;
        if (coll_run(&t, &c, &s) != 0 || !s) {
            (void)TU_CHECK(0, "%s: not built or wrong", cdesc(&t, &c));
            continue;
        }
        TU_CHECK(s->algo == RTOPO_COLL_TOPO, "%s: built algo %d", cdesc(&t, &c), s->algo);
        TU_CHECK(s->nhops > 0, "%s: no hop", cdesc(&t, &c));
        for (h = 0, other = 0; h < s->nhops; h++)
            other += s->hops[h].link != RTOPO__LINK_DIRECT;
        TU_CHECK(other == 0, "%s: %u of %u hops not DIRECT", cdesc(&t, &c), other, s->nhops);
        rtopo__sched_free(s);
    }
    fill_hook = NULL;
}

/* random targets (collisions, -1 and other negatives) of random_write /
 * random_read on OTIS-meshes n = 1, 4, 9, 16, records of 1, 8, 24 bytes
 * (n = 16: 8 bytes only) */
static void test_random_access(void)
{
    static const int ns[6] = { 1, 4, 9, 16, 4, 16 };   /* the last two: OTIS-hypercube */
    static const size_t recs[3] = { 1, 8, 24 };
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    int64_t dest[256];
    int32_t sel[256];
    char what[96];
    int ni, op, ri, v, r;

    budget_test();
    memset(sel, 0, sizeof(sel));
    for (ni = 0; ni < 6 && fails_left > 0; ni++) {
        /* the schedules hold sorts of every rank: few cases at n >= 9 */
        int n = ns[ni], p = n * n, reps = n >= 9 ? 1 : 3;

        tdesc(&t, ni < 4 ? RTOPO__TOPO_OTIS_MESH : RTOPO__TOPO_OTIS_HYPERCUBE, p, n, 0);
        budget_topo();
        for (op = RTOPO__COLL_RANDOM_WRITE; op <= RTOPO__COLL_RANDOM_READ; op++)
            for (ri = n > 9 ? 1 : 0; ri < (n > 9 ? 2 : 3); ri++)
                for (v = 0; v < reps; v++) {
                    /* v 0: about half the ranks, few targets; 1: every rank,
                     * anywhere; 2: about one in four */
                    unsigned hot = 1 + rnd() % (unsigned)(p > 3 ? p / 3 : 1);
                    int k = 0;

                    for (r = 0; r < p; r++) {
                        int on = v == 1 || rnd() % (v ? 4u : 2u) == 0;

                        dest[r] = !on ? negative64() :
                                  (int64_t)(rnd() % (v == 0 ? hot : (unsigned)p));
                        k += on;
                    }
                    route_coll(&c, op, v % 2 ? RTOPO_COLL_AUTO : RTOPO_COLL_TOPO, recs[ri]);
                    snprintf(what, sizeof(what), "%d of %d ranks %s, variant %d", k, p,
                             op == RTOPO__COLL_RANDOM_WRITE ? "write" : "read", v);
                    route_run(&t, &c, sel, dest, what, RTOPO_OK, NULL);
                }
    }
}

/* A sort built bare (rtopo__coll_t.bare, as the random accesses build
 * their phases of the whole graph) has the nodes of the sort built
 * whole, and once its edges are inferred the same edges: the bare build
 * leaves out only what the join would drop */
static void test_sort_bare(void)
{
    static const int ns[3] = { 4, 16, 64 };
    rtopo__tdesc_t t;
    rtopo__coll_t c;
    rtopo__sched_t *a = NULL, *b = NULL;
    int ni, rec;

    for (ni = 0; ni < 3; ni++)
        for (rec = 16; rec <= 24; rec += 8) {
            int n = ns[ni];

            tdesc(&t, RTOPO__TOPO_OTIS_MESH, n * n, n, 0);
            memset(&c, 0, sizeof(c));
            c.op = RTOPO__COLL_SORT;
            c.algo = RTOPO_COLL_AUTO;
            c.dtype = RTOPO_INT64;
            c.count = 1;
            c.esize = (size_t)rec;
            c.chunks = 1;
            if (!TU_CHECK(rtopo__sched_coll(&t, &c, NULL, &a) == RTOPO_OK, "sort n %d: %s", n,
                          rtopo_last_error()))
                return;
            c.bare = 1;
            if (!TU_CHECK(rtopo__sched_coll(&t, &c, NULL, &b) == RTOPO_OK,
                          "bare sort n %d: %s", n, rtopo_last_error())) {
                rtopo__sched_free(a);
                return;
            }
            TU_CHECK(a->nxfers == b->nxfers && a->nhops == b->nhops &&
                     a->nkerns == b->nkerns && a->nsteps == b->nsteps &&
                     a->tmp_bytes == b->tmp_bytes && a->algo == b->algo,
                     "bare sort n %d: other nodes", n);
            if (a->nxfers == b->nxfers && a->nhops == b->nhops && a->nkerns == b->nkerns) {
                TU_CHECK(!memcmp(a->xfers, b->xfers, sizeof(*a->xfers) * a->nxfers) &&
                         !memcmp(a->hops, b->hops, sizeof(*a->hops) * a->nhops) &&
                         tu_kerns_alike(a, b),
                         "bare sort n %d: other nodes", n);
                /* the bare build infers nothing where it runs no candidate
                 * (n = 64: the merge-split sort alone) */
                if (n == 64)
                    TU_CHECK(b->ndeps == 0, "bare sort n %d: %u edges", n, b->ndeps);
                b->ndeps = 0;
                TU_CHECK(rtopo__sched_deps_infer(b, 0) == RTOPO_OK && a->ndeps == b->ndeps &&
                         !memcmp(a->deps, b->deps, sizeof(*a->deps) * a->ndeps),
                         "bare sort n %d: %u edges inferred, %u whole", n, b->ndeps,
                         a->ndeps);
            }
            rtopo__sched_free(a);
            rtopo__sched_free(b);
            a = b = NULL;
        }
}

/* auto on the whole graph as rtopo-sim builds it (bare: a winner whose
 * time a family knows is neither run nor given its edges, and a graph
 * built bare is run with its edges inferred as it runs) makes the
 * reference's choice, which builds and runs every candidate's whole
 * graph with its edges held (rtopo__choose_every): the same algorithm,
 * the same nodes and the same simulated time to the last bit, for the
 * broadcast, window broadcast, scan, allreduce and sort, on OTIS-meshes
 * and OTIS-hypercubes, a ring, a mesh and hypercubes of up to 4,096 ranks,
 * at several sizes (pieces picked by the model). */
static void auto_whole_case(const rtopo__tdesc_t *t, rtopo__coll_t *c, int *cases)
{
    rtopo__sched_t *R = NULL, *W = NULL;
    rtopo__sim_result_t rr, rw;
    int sr, sw;

    c->algo = RTOPO_COLL_AUTO;
    c->own = 0;
    c->bare = 0;
    rtopo__choose_every = 1;
    sr = rtopo__sched_coll(t, c, NULL, &R);
    rtopo__choose_every = 0;
    c->bare = 1;
    sw = rtopo__sched_coll(t, c, NULL, &W);
    c->bare = 0;
    if (TU_CHECK(!sr && !sw, "%s of %llu on %s of %d: the reference returns %d, auto %d: %s",
                 rtopo__coll_name(c->op), (unsigned long long)c->count,
                 rtopo__topo_name(t->kind), t->p, sr, sw, rtopo_last_error())) {
        /* a winner whose time is known holds no edges; the others built
         * bare are deferred as rtopo-sim defers them, and run so */
        if (W->deferred)
            (*cases)++;
        TU_CHECK(!W->deferred || !W->ndeps, "%s on %s of %d: deferred, %u edges held",
                 rtopo__coll_name(c->op), rtopo__topo_name(t->kind), t->p, W->ndeps);
        if (!W->inferred && !W->ndeps)
            W->deferred = 1;
        if (TU_CHECK(R->algo == W->algo && R->nsteps == W->nsteps && R->nxfers == W->nxfers &&
                     R->nhops == W->nhops && R->nkerns == W->nkerns,
                     "%s of %llu on %s of %d: auto chose %s (%u steps, %u transfers), the "
                     "reference %s (%u steps, %u transfers)", rtopo__coll_name(c->op),
                     (unsigned long long)c->count, rtopo__topo_name(t->kind), t->p,
                     rtopo__coll_algo_name(W->algo), W->nsteps, W->nxfers,
                     rtopo__coll_algo_name(R->algo), R->nsteps, R->nxfers) &&
            TU_CHECK(rtopo__sim_run(R, NULL, &rr) == RTOPO_OK &&
                     rtopo__sim_run(W, NULL, &rw) == RTOPO_OK, "%s on %s of %d: run: %s",
                     rtopo__coll_name(c->op), rtopo__topo_name(t->kind), t->p,
                     rtopo_last_error()))
            TU_CHECK(rr.model_time == rw.model_time && rr.model_time_sf == rw.model_time_sf,
                     "%s of %llu on %s of %d (%s): auto's time %.17g, the reference's %.17g",
                     rtopo__coll_name(c->op), (unsigned long long)c->count,
                     rtopo__topo_name(t->kind), t->p, rtopo__coll_algo_name(W->algo),
                     rw.model_time, rr.model_time);
    }
    rtopo__sched_free(R);
    rtopo__sched_free(W);
}

static void auto_whole_topo(const rtopo__tdesc_t *t, int *cases)
{
    static const int ops[4] = { RTOPO__COLL_BCAST, RTOPO__COLL_WINDOW_BCAST,
                                RTOPO__COLL_SCAN, RTOPO__COLL_ALLREDUCE };
    static const uint64_t counts[3] = { 1, 1000, 65536 };
    int i, k, nk = t->p >= 4096 ? 2 : 3;

    for (i = 0; i < 4; i++)
        for (k = 0; k < nk; k++) {
            rtopo__coll_t c;

            if (ops[i] == RTOPO__COLL_WINDOW_BCAST && t->kind != RTOPO__TOPO_OTIS_MESH)
                continue;
            memset(&c, 0, sizeof(c));
            c.op = ops[i];
            c.dtype = RTOPO_INT32;
            c.rop = RTOPO_SUM;
            c.esize = 4;
            c.count = counts[k];
            c.root = ops[i] == RTOPO__COLL_WINDOW_BCAST ? t->n / 2 : t->p / 2;
            c.w = 1;
            auto_whole_case(t, &c, cases);
        }
    for (k = 0; t->p <= 256 && k < 2; k++) {
        rtopo__coll_t c;

        memset(&c, 0, sizeof(c));
        c.op = RTOPO__COLL_SORT;
        c.dtype = RTOPO_INT32;
        c.esize = 4;
        c.count = k ? 40 : 1;
        c.chunks = 1;
        auto_whole_case(t, &c, cases);
    }
}

static void test_auto_whole(void)
{
    static const int om[4] = { 4, 9, 16, 64 }, oh[3] = { 4, 8, 16 };
    rtopo__tdesc_t t;
    int i, cases = 0;

    for (i = 0; i < 4; i++) {
        tdesc(&t, RTOPO__TOPO_OTIS_MESH, om[i] * om[i], om[i], 0);
        auto_whole_topo(&t, &cases);
    }
    for (i = 0; i < 3; i++) {
        tdesc(&t, RTOPO__TOPO_OTIS_HYPERCUBE, oh[i] * oh[i], oh[i], 0);
        auto_whole_topo(&t, &cases);
    }
    tdesc(&t, RTOPO__TOPO_RING, 6, 0, 0);
    auto_whole_topo(&t, &cases);
    tdesc(&t, RTOPO__TOPO_MESH, 12, 3, 4);
    auto_whole_topo(&t, &cases);
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 256, 8, 0);
    auto_whole_topo(&t, &cases);
    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 4096, 12, 0);
    auto_whole_topo(&t, &cases);
    /* the allreduce and the scan on 2^k ranks, whose times are known */
    TU_CHECK(cases >= 30, "%d winners not run", cases);
}

/* Host-aware orders on the identity-embedded 3-cube (ranks = cube
 * labels) over hosts of consecutive ranks, 2 of 4 and 4 of 2: the
 * binomial broadcast, on the cube and on a ring of 8 (the generic tree
 * by rank XOR root), sends one move per host besides the root's across
 * hosts (the longest distance first), and the reduce-scatter plus
 * allgather, picked for 1 MiB under a model whose links between hosts are
 * slow, crosses between hosts only in its last halving and first doubling
 * (1/8 and 1/4 of the vector per rank and host dimension), as Open MPI's
 * does; halving across the highest dimension first sent four times the
 * bytes between two hosts. */
static void test_cube_host_orders(void)
{
    static const int per_host[2] = { 4, 2 };
    uint32_t host[8];
    rtopo__layout_t lay = { 8, host };
    rtopo__tdesc_t t, ring, *tb;
    rtopo__model_t m;
    rtopo__coll_t c;
    rtopo__sim_result_t r;
    rtopo__sched_t *s = NULL;
    uint64_t n = 1 << 20, intra, inter;
    int i, k, root, hosts;

    tdesc(&t, RTOPO__TOPO_HYPERCUBE, 8, 3, 0);
    tdesc(&ring, RTOPO__TOPO_RING, 8, 0, 0);
    for (i = 0; i < 2; i++) {
        hosts = 8 / per_host[i];
        for (k = 0; k < 8; k++)
            host[k] = (uint32_t)(k / per_host[i]);
        rtopo__model_default(&m);
        CU_ASSERT_FATAL(rtopo__model_parse("inter.ts=50us,inter.bw=100M", &m) == RTOPO_OK);
        m.layout = &lay;
        for (root = 0; root < 16; root++) {
            tb = root < 8 ? &t : &ring;     /* the ring's generic tree too */
            memset(&c, 0, sizeof(c));
            c.op = RTOPO__COLL_BCAST;
            c.algo = RTOPO_COLL_GENERIC;
            c.dtype = RTOPO_INT64;
            c.esize = 8;
            c.count = 16;
            c.chunks = 1;
            c.root = root % 8;
            CU_ASSERT_FATAL(rtopo__sched_coll(tb, &c, &m, &s) == RTOPO_OK && s);
            CU_ASSERT_FATAL(rtopo__sim_run(s, &m, &r) == RTOPO_OK);
            TU_CHECK(r.reach_moves[RTOPO__REACH_INTER] == (uint64_t)hosts - 1 &&
                     r.reach_moves[RTOPO__REACH_INTRA] == (uint64_t)(8 - hosts),
                     "bcast on the %s from %d, %d hosts: %" PRIu64 " moves between hosts, %"
                     PRIu64 " inside", root < 8 ? "cube" : "ring", root % 8, hosts,
                     (uint64_t)r.reach_moves[RTOPO__REACH_INTER],
                     (uint64_t)r.reach_moves[RTOPO__REACH_INTRA]);
            rtopo__sched_free(s);
            s = NULL;
        }
        memset(&c, 0, sizeof(c));
        c.op = RTOPO__COLL_ALLREDUCE;
        c.algo = RTOPO_COLL_AUTO;
        c.dtype = RTOPO_INT64;
        c.rop = RTOPO_SUM;
        c.esize = 8;
        c.count = n / 8;
        CU_ASSERT_FATAL(rtopo__sched_coll(&t, &c, &m, &s) == RTOPO_OK && s);
        CU_ASSERT_FATAL(rtopo__sim_run(s, &m, &r) == RTOPO_OK);
        intra = r.reach_bytes[RTOPO__REACH_INTRA];
        inter = r.reach_bytes[RTOPO__REACH_INTER];
        /* reduce-scatter plus allgather: 2 x 7/8 of the vector per rank */
        TU_CHECK(intra + inter == 8 * 2 * (n - n / 8), "allreduce, %d hosts: %" PRIu64
                 " bytes over links (not the reduce-scatter + allgather?)", hosts,
                 intra + inter);
        /* across hosts: 2 hosts, the last halving (n/8) and the first
         * doubling; 4 hosts, also the halving before (n/4) */
        TU_CHECK(inter == (hosts == 2 ? 8 * 2 * (n / 8) : 8 * 2 * (n / 8 + n / 4)),
                 "allreduce, %d hosts: %" PRIu64 " bytes between hosts", hosts, inter);
        rtopo__sched_free(s);
        s = NULL;
    }
}

/* A machine with more ranks than processors, as calibrated there (8 ranks
 * on 2 processors: one lane, the receiver's turn tt, a sender's eager
 * ts of 25 ns): the ranks' transfers, reductions and turns are the work
 * of the same processors, so the allreduce and the broadcast of 1 MiB
 * stay in one piece (cut into 64 they measured several times the
 * processor time of one); the same model without tt (one host's memory,
 * processors enough) still cuts the broadcast, as the formula of links
 * apart does. */
static void test_oversub_pieces(void)
{
    static const char *const model = "local.ts=0.002135us,local.tw=0.008552ns,"
        "ts=0.02438us,tw=0.07857ns,lanes=1,tk=0.01987ns,tt=45.93us,eager=65536";
    static const int ops[2] = { RTOPO__COLL_ALLREDUCE, RTOPO__COLL_BCAST };
    rtopo__model_t m;
    rtopo__tdesc_t t;
    rtopo__sched_t *s;
    rtopo__coll_t c;
    uint32_t one;
    int k;

    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_HYPERCUBE, 8, 3, 0) == 0);
    for (k = 0; k < 2; k++) {
        memset(&c, 0, sizeof(c));
        c.op = ops[k];
        c.dtype = RTOPO_INT64;
        c.rop = RTOPO_SUM;
        c.esize = 8;
        c.count = 131072;
        rtopo__model_default(&m);
        CU_ASSERT_FATAL(rtopo__model_parse(model, &m) == RTOPO_OK);
        c.chunks = 1;
        CU_ASSERT_FATAL(rtopo__sched_coll(&t, &c, &m, &s) == RTOPO_OK);
        one = s->nsteps;
        rtopo__sched_free(s);
        c.chunks = 0;
        CU_ASSERT_FATAL(rtopo__sched_coll(&t, &c, &m, &s) == RTOPO_OK);
        CU_ASSERT_EQUAL(s->nsteps, one);
        rtopo__sched_free(s);
        if (c.op != RTOPO__COLL_BCAST)
            continue;
        m.tt = 0;
        m.eager = 0;
        CU_ASSERT_FATAL(rtopo__sched_coll(&t, &c, &m, &s) == RTOPO_OK);
        CU_ASSERT(s->nsteps > one + 8);
        rtopo__sched_free(s);
    }
}

/* The move counts read only the hops: a step's distinct electronic
 * (link, dim, dir) groups are its SIMD moves, even more than 64 of them
 * (the bits of a step span words), a step counts once per kind of link. */
static void test_moves_groups(void)
{
    rtopo__tdesc_t t;
    rtopo__sched_t *s;
    rtopo__moves_t mv;
    uint32_t i;

    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_RING, 4, 0, 0) == RTOPO_OK);
    CU_ASSERT_FATAL(rtopo__sched_alloc(&t, 0, 160, &s) == RTOPO_OK);
    /* step 0: cube dims 0..69, each twice (70 groups); step 2: row +1,
     * row -1, otis, a direct hop; step 1 none */
    for (i = 0; i < 140; i++)
        s->hops[i] = (rtopo__hop_t){ .to = 1, .step = 0, .link = RTOPO__LINK_CUBE,
                                     .dim = (uint8_t)(i % 70) };
    s->hops[140] = (rtopo__hop_t){ .to = 1, .step = 2, .link = RTOPO__LINK_ROW, .dir = 1 };
    s->hops[141] = (rtopo__hop_t){ .to = 1, .step = 2, .link = RTOPO__LINK_ROW, .dir = -1 };
    s->hops[142] = (rtopo__hop_t){ .to = 1, .step = 2, .link = RTOPO__LINK_OTIS };
    s->hops[143] = (rtopo__hop_t){ .to = 1, .step = 2, .link = RTOPO__LINK_DIRECT };
    /* the same groups again at step 3: each counts there too */
    for (i = 144; i < 160; i++)
        s->hops[i] = (rtopo__hop_t){ .to = 1, .step = 3, .link = RTOPO__LINK_CUBE,
                                     .dim = (uint8_t)(i % 8 + 62) };
    rtopo__sched_moves(s, &mv);
    CU_ASSERT(mv.electronic_simd == 70 + 2 + 8);
    CU_ASSERT(mv.electronic == 3);
    CU_ASSERT(mv.otis == 1);
    CU_ASSERT(mv.other == 1);
    rtopo__sched_free(s);
}

int tu_suite_coll(void)
{
    CU_pSuite s = CU_add_suite("coll", NULL, NULL);

    if (!s || !CU_add_test(s, "reference against index arithmetic", test_ref) ||
        !CU_add_test(s, "OTIS-mesh n = 1, 4, 16, 9", test_otis_mesh) ||
        !CU_add_test(s, "OTIS-mesh n = 64", test_otis_mesh_64) ||
        !CU_add_test(s, "OTIS-hypercube n = 1..16", test_otis_hypercube) ||
        !CU_add_test(s, "ring, mesh, hypercube", test_others) ||
        !CU_add_test(s, "a scan on 2 ranks sends rank 0's data once", test_scan_two) ||
        !CU_add_test(s, "more ranks than processors: 1 MiB in one piece",
                     test_oversub_pieces) ||
        !CU_add_test(s, "the cube scan's last round sends only upwards", test_scan_cube_up) ||
        !CU_add_test(s, "hypercube over hosts: host-aware bcast and allreduce orders",
                     test_cube_host_orders) ||
        !CU_add_test(s, "moves: SPEC 5.5 SIMD table, MIMD data sum", test_moves) ||
        !CU_add_test(s, "moves: SPEC 5.5 consecutive sum", test_moves_consec) ||
        !CU_add_test(s, "argument errors", test_errors) ||
        !CU_add_test(s, "selection and routing: reference on examples", test_route_ref) ||
        !CU_add_test(s, "select_rank on every topology", test_select_rank) ||
        !CU_add_test(s, "routing: OTIS-mesh n = 1, 4, 9, 16, OTIS-hypercube n = 1..16",
                     test_route_small) ||
        !CU_add_test(s, "routing: generalize in one routing", test_route_generalize) ||
        !CU_add_test(s, "routing: OTIS-mesh n = 64", test_route_64) ||
        !CU_add_test(s, "routing: moves", test_route_moves) ||
        !CU_add_test(s, "routing: errors", test_route_errors) ||
        !CU_add_test(s, "bpc: the seed's table", test_bpc_table) ||
        !CU_add_test(s, "bpc: vectors and moves", test_bpc) ||
        !CU_add_test(s, "sort: column sort of SPEC 5.5 Fig. 4, step by step",
                     test_colsort_fig4) ||
        !CU_add_test(s, "sort: the schedule on Fig. 4", test_colsort_sched) ||
        !CU_add_test(s, "sort: algorithms, key types, counts", test_sort) ||
        !CU_add_test(s, "sort: OTIS-meshes of 4, 16 and 64 groups", test_sort_otis_sizes) ||
        !CU_add_test(s, "sort: moves on OTIS-meshes of 16 and 64 groups", test_sort_moves) ||
        !CU_add_test(s, "moves: OTIS-hypercube shifts along G and P", test_moves_ohc_shift) ||
        !CU_add_test(s, "moves: OTIS-hypercube accumulation, adjacent and consecutive sums",
                     test_moves_ohc_line) ||
        !CU_add_test(s, "descriptor table: one complete entry per collective",
                     test_desc_table) ||
        !CU_add_test(s, "sort: column sort routes on ring, mesh, hypercube",
                     test_sort_direct_routes) ||
        !CU_add_test(s, "random_write and random_read", test_random_access) ||
        !CU_add_test(s, "move counts: more than 64 groups in a step", test_moves_groups) ||
        !CU_add_test(s, "sort: built bare, the nodes and edges of the whole",
                     test_sort_bare) ||
        !CU_add_test(s, "auto on the bare whole graph: the reference's choice and time",
                     test_auto_whole))
        return CU_get_error();
    return CUE_SUCCESS;
}
