/*
 * test_kernel.c - the local kernels (fill, combine, cmpx, sort, select)
 * against references computed here element by element, at aligned and
 * unaligned offsets, and every malformed kernel rtopo__kern_run rejects;
 * the steps of the ROUTE kernel on slots worked out by hand.
 */
#include "config.h"
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "test_unit.h"

#define BUFSZ 65536
#define NDT 4

static uint8_t mem[RTOPO__BUF_COUNT][BUFSZ];
static uint8_t *const bufs[RTOPO__BUF_COUNT] = { mem[0], mem[1], mem[2] };
static uint64_t rng_state;

static uint32_t rng(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

static void reset(void)
{
    memset(mem, 0xEE, sizeof(mem));
}

static rtopo__kern_t kern(int type, int dtype, int op, unsigned flags, int sb,
                          uint64_t so, int db, uint64_t dof, uint64_t len, uint32_t rec)
{
    rtopo__kern_t k;

    memset(&k, 0, sizeof(k));
    k.type = (uint8_t)type;
    k.dtype = (uint8_t)dtype;
    k.op = (uint8_t)op;
    k.flags = (uint8_t)flags;
    k.src_buf = (uint8_t)sb;
    k.dst_buf = (uint8_t)db;
    k.src_off = so;
    k.dst_off = dof;
    k.len = len;
    k.rec = rec;
    return k;
}

/* element access for the references: integers as int64, floats as double */
static size_t esz(int dt)
{
    return dt == RTOPO_INT32 || dt == RTOPO_FLOAT ? 4 : 8;
}

static int isint(int dt)
{
    return dt == RTOPO_INT32 || dt == RTOPO_INT64;
}

static void puti(int dt, uint8_t *p, int64_t v)
{
    int32_t x = (int32_t)(uint32_t)(uint64_t)v;

    if (dt == RTOPO_INT32)
        memcpy(p, &x, 4);
    else
        memcpy(p, &v, 8);
}

static void putf(int dt, uint8_t *p, double v)
{
    float x = (float)v;

    if (dt == RTOPO_FLOAT)
        memcpy(p, &x, 4);
    else
        memcpy(p, &v, 8);
}

static int64_t geti(int dt, const uint8_t *p)
{
    int32_t x;
    int64_t v;

    if (dt == RTOPO_INT32) {
        memcpy(&x, p, 4);
        return x;
    }
    memcpy(&v, p, 8);
    return v;
}

static double getf(int dt, const uint8_t *p)
{
    float x;
    double v;

    if (dt == RTOPO_FLOAT) {
        memcpy(&x, p, 4);
        return x;
    }
    memcpy(&v, p, 8);
    return v;
}

/* key order of the contract: NaN above every number, NaN == NaN */
static int ref_gt(int dt, const uint8_t *a, const uint8_t *b)
{
    double x, y;

    if (isint(dt))
        return geti(dt, a) > geti(dt, b);
    x = getf(dt, a);
    y = getf(dt, b);
    if (isnan(y))
        return 0;
    if (isnan(x))
        return 1;
    return x > y;
}

static void put_key(int dt, uint8_t *p, int64_t iv, double fv)
{
    if (isint(dt))
        puti(dt, p, iv);
    else
        putf(dt, p, fv);
}

/* the bytes around [off, off+len) of buffer b still hold 0xEE */
static int guards_ok(int b, uint64_t off, uint64_t len)
{
    return (off == 0 || mem[b][off - 1] == 0xEE) &&
           (off + len >= BUFSZ || mem[b][off + len] == 0xEE);
}

/* the same around two ranges of len bytes (one span if in one buffer) */
static int guards2_ok(int b1, uint64_t o1, int b2, uint64_t o2, uint64_t len)
{
    uint64_t lo = o1 < o2 ? o1 : o2, hi = o1 < o2 ? o2 : o1;

    if (b1 == b2)
        return guards_ok(b1, lo, hi + len - lo);
    return guards_ok(b1, o1, len) && guards_ok(b2, o2, len);
}

static void test_names(void)
{
    CU_ASSERT_EQUAL(rtopo__dtype_size(RTOPO_INT32), 4);
    CU_ASSERT_EQUAL(rtopo__dtype_size(RTOPO_INT64), 8);
    CU_ASSERT_EQUAL(rtopo__dtype_size(RTOPO_FLOAT), 4);
    CU_ASSERT_EQUAL(rtopo__dtype_size(RTOPO_DOUBLE), 8);
    CU_ASSERT_EQUAL(rtopo__dtype_size(4), 0);
    CU_ASSERT_EQUAL(rtopo__dtype_size(-1), 0);
    CU_ASSERT_STRING_EQUAL(rtopo__kern_name(RTOPO__KERN_FILL), "fill");
    CU_ASSERT_STRING_EQUAL(rtopo__kern_name(RTOPO__KERN_COMBINE), "combine");
    CU_ASSERT_STRING_EQUAL(rtopo__kern_name(RTOPO__KERN_CMPX), "cmpx");
    CU_ASSERT_STRING_EQUAL(rtopo__kern_name(RTOPO__KERN_SORT), "sort");
    CU_ASSERT_STRING_EQUAL(rtopo__kern_name(RTOPO__KERN_SELECT), "select");
    CU_ASSERT_STRING_EQUAL(rtopo__kern_name(0), "unknown");
    CU_ASSERT_STRING_EQUAL(rtopo__kern_name(RTOPO__KERN_COUNT), "unknown");
    CU_ASSERT_STRING_EQUAL(rtopo__kern_name(-3), "unknown");
}

static void test_fill(void)
{
    static const int64_t iargs[] = { 0, 5, -3, 0x100000005ll, INT64_MIN, INT64_MAX };
    static const double fargs[] = { 0.0, 1.5, -0.1, -0.0, 3e38, INFINITY };
    static const uint64_t offs[] = { 0, 1, 3 };
    uint8_t exp[37 * 8];
    int dt, a, o;

    for (dt = 0; dt < NDT; dt++)
        for (a = 0; a < 6; a++)
            for (o = 0; o < 3; o++) {
                uint64_t n = 37, len = n * esz(dt), i;
                rtopo__kern_t k = kern(RTOPO__KERN_FILL, dt, 0, 0, 0, 0,
                                       RTOPO__BUF_TMP, offs[o], len, 0);
                int rc;

                if (isint(dt)) {
                    k.arg = iargs[a];
                } else {
                    memcpy(&k.arg, &fargs[a], 8);
                }
                reset();
                rc = rtopo__kern_run(&k, bufs);
                TU_CHECK(rc == RTOPO_OK, "fill dt %d: %d", dt, rc);
                for (i = 0; i < n; i++) {
                    if (isint(dt))
                        puti(dt, exp + i * esz(dt), iargs[a]);
                    else
                        putf(dt, exp + i * esz(dt), fargs[a]);
                }
                TU_CHECK(!memcmp(mem[RTOPO__BUF_TMP] + offs[o], exp, len),
                         "fill dt %d arg %d off %d", dt, a, o);
                TU_CHECK(guards_ok(RTOPO__BUF_TMP, offs[o], len), "fill guards");
            }
    /* a few literal values */
    {
        rtopo__kern_t k = kern(RTOPO__KERN_FILL, RTOPO_INT32, 0, 0, 0, 0,
                               RTOPO__BUF_RECV, 1, 8, 0);
        double d = 0.1;
        float f;
        int32_t x;

        reset();
        k.arg = 0x100000005ll;
        CU_ASSERT_EQUAL(rtopo__kern_run(&k, bufs), RTOPO_OK);
        memcpy(&x, mem[1] + 5, 4);
        CU_ASSERT_EQUAL(x, 5);
        k.dtype = RTOPO_FLOAT;
        memcpy(&k.arg, &d, 8);
        CU_ASSERT_EQUAL(rtopo__kern_run(&k, bufs), RTOPO_OK);
        memcpy(&f, mem[1] + 1, 4);
        CU_ASSERT(f == 0.1f);
    }
}

/* combine pairs (dst, src); the last 4 float pairs (NaNs) only for MIN/MAX */
#define NPAIR 11
#define NNAN 4

static void test_combine(void)
{
    static const double fp[NPAIR + NNAN][2] = {
        { 1.5, -2.25 }, { 0.1, 0.2 }, { -0.0, 0.0 }, { 1e20, 3.0 }, { INFINITY, 2.0 },
        { -1e-3, -7.5 }, { 3.0, 3.0 }, { 0.0, -0.0 }, { -5.0, 1e-20 },
        { 123.25, -0.5 }, { -INFINITY, 1.0 },
        { NAN, 1.0 }, { 1.0, NAN }, { NAN, NAN }, { -INFINITY, NAN },
    };
    static const uint64_t offs[][2] = { { 0, 0 }, { 1, 3 }, { 7, 2 } };
    uint8_t exp[NPAIR * 8 + NNAN * 8];
    int dt, op, o;

    for (dt = 0; dt < NDT; dt++)
        for (op = RTOPO_SUM; op <= RTOPO_MAX; op++)
            for (o = 0; o < 3; o++) {
                int64_t mx = dt == RTOPO_INT32 ? INT32_MAX : INT64_MAX;
                int64_t mn = dt == RTOPO_INT32 ? INT32_MIN : INT64_MIN;
                int64_t ip[NPAIR][2] = {
                    { 1, 2 }, { -1, -1 }, { mx, 1 }, { mn, -1 }, { mx, mx }, { mn, mn },
                    { 46341, 46341 }, { 3037000500ll, 3037000500ll }, { -7, 13 },
                    { 0, mn }, { 100000, -100000 },
                };
                int n = NPAIR + (!isint(dt) && op >= RTOPO_MIN ? NNAN : 0), i;
                size_t es = esz(dt);
                uint8_t *d = mem[RTOPO__BUF_RECV] + offs[o][1];
                uint8_t *s = mem[RTOPO__BUF_SEND] + offs[o][0];
                rtopo__kern_t k = kern(RTOPO__KERN_COMBINE, dt, op, 0, RTOPO__BUF_SEND,
                                       offs[o][0], RTOPO__BUF_RECV, offs[o][1],
                                       (uint64_t)n * es, 0);
                int rc;

                reset();
                for (i = 0; i < n; i++) {
                    if (isint(dt)) {
                        puti(dt, d + i * es, ip[i][0]);
                        puti(dt, s + i * es, ip[i][1]);
                    } else {
                        putf(dt, d + i * es, fp[i][0]);
                        putf(dt, s + i * es, fp[i][1]);
                    }
                }
                /* reference from the values as stored */
                for (i = 0; i < n; i++) {
                    uint8_t *e = exp + i * es;

                    if (isint(dt)) {
                        int64_t a = geti(dt, d + i * es), b = geti(dt, s + i * es);

                        switch (op) {
                        case RTOPO_SUM: puti(dt, e, (int64_t)((uint64_t)a + (uint64_t)b)); break;
                        case RTOPO_PROD: puti(dt, e, (int64_t)((uint64_t)a * (uint64_t)b)); break;
                        case RTOPO_MIN: puti(dt, e, a < b ? a : b); break;
                        default: puti(dt, e, a > b ? a : b); break;
                        }
                    } else {
                        double a = getf(dt, d + i * es), b = getf(dt, s + i * es);

                        switch (op) {
                        case RTOPO_SUM: putf(dt, e, a + b); break;
                        case RTOPO_PROD: putf(dt, e, a * b); break;
                        /* NaN is the largest; ties keep dst (bits: -0.0 / 0.0) */
                        case RTOPO_MIN:
                            memcpy(e, isnan(b) ? d + i * es : isnan(a) ? s + i * es :
                                   b < a ? s + i * es : d + i * es, es);
                            break;
                        default:
                            memcpy(e, isnan(a) ? d + i * es : isnan(b) ? s + i * es :
                                   b > a ? s + i * es : d + i * es, es);
                            break;
                        }
                    }
                }
                rc = rtopo__kern_run(&k, bufs);
                TU_CHECK(rc == RTOPO_OK, "combine dt %d op %d: %d", dt, op, rc);
                TU_CHECK(!memcmp(d, exp, (size_t)n * es), "combine dt %d op %d off %d",
                         dt, op, o);
                TU_CHECK(guards_ok(RTOPO__BUF_RECV, offs[o][1], (uint64_t)n * es),
                         "combine guards");
            }
    /* literal wrap-around and NaN checks */
    {
        int32_t a = INT32_MAX, b = 1, r;
        float fa = NAN, fb = 2.0f, fr;
        rtopo__kern_t k = kern(RTOPO__KERN_COMBINE, RTOPO_INT32, RTOPO_SUM, 0,
                               RTOPO__BUF_SEND, 1, RTOPO__BUF_TMP, 2, 4, 0);

        memcpy(mem[2] + 2, &a, 4);
        memcpy(mem[0] + 1, &b, 4);
        CU_ASSERT_EQUAL(rtopo__kern_run(&k, bufs), RTOPO_OK);
        memcpy(&r, mem[2] + 2, 4);
        CU_ASSERT_EQUAL(r, INT32_MIN);
        k.dtype = RTOPO_FLOAT;
        k.op = RTOPO_MIN;
        memcpy(mem[2] + 2, &fa, 4);
        memcpy(mem[0] + 1, &fb, 4);
        CU_ASSERT_EQUAL(rtopo__kern_run(&k, bufs), RTOPO_OK);
        memcpy(&fr, mem[2] + 2, 4);
        CU_ASSERT(fr == 2.0f);
        k.op = RTOPO_MAX;
        memcpy(mem[0] + 1, &fa, 4);
        CU_ASSERT_EQUAL(rtopo__kern_run(&k, bufs), RTOPO_OK);
        memcpy(&fr, mem[2] + 2, 4);
        CU_ASSERT(isnan(fr));
    }
}

/* one element of the reference: dst op src by the contract (integers
 * wrap; on floats NaN is the largest, ties keep dst) */
static void ref_combine1(int dt, int op, uint8_t *e, const uint8_t *d, const uint8_t *s)
{
    size_t es = esz(dt);

    if (isint(dt)) {
        int64_t a = geti(dt, d), b = geti(dt, s);

        switch (op) {
        case RTOPO_SUM: puti(dt, e, (int64_t)((uint64_t)a + (uint64_t)b)); break;
        case RTOPO_PROD: puti(dt, e, (int64_t)((uint64_t)a * (uint64_t)b)); break;
        case RTOPO_MIN: puti(dt, e, a < b ? a : b); break;
        default: puti(dt, e, a > b ? a : b); break;
        }
        return;
    }
    if (op == RTOPO_SUM || op == RTOPO_PROD) {
        double a = getf(dt, d), b = getf(dt, s);

        putf(dt, e, op == RTOPO_SUM ? a + b : a * b);
        return;
    }
    if (op == RTOPO_MIN)
        memmove(e, isnan(getf(dt, s)) ? d : isnan(getf(dt, d)) ? s :
                getf(dt, s) < getf(dt, d) ? s : d, es);
    else
        memmove(e, isnan(getf(dt, d)) ? d : isnan(getf(dt, s)) ? s :
                getf(dt, s) > getf(dt, d) ? s : d, es);
}

/* random element: integers over the whole range, floats with NaNs,
 * infinities, zeros of both signs and ties among them */
static void rand_elem(int dt, uint8_t *p)
{
    static const double special[] = { NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0 };
    uint32_t r = rng();

    if (isint(dt))
        puti(dt, p, (int64_t)(((uint64_t)rng() << 32) | rng()));
    else if (r % 4 == 0)
        putf(dt, p, special[(r >> 2) % 6]);
    else
        putf(dt, p, ((double)(int32_t)rng()) / ((r >> 8) % 1000 + 1));
}

/* every type and operator over lengths that end the loops' vector and
 * unrolled parts at every point, at every byte offset, against the
 * reference element by element; then source and destination in
 * distinct buffers that overlap (the SEND buffer placed inside RECV),
 * which combine element by element in order */
static void test_combine_long(void)
{
    static const uint32_t lens[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33,
                                     63, 64, 65, 70, 127, 129, 1000, 4099 };
    static uint8_t ref[BUFSZ], orig[2 * BUFSZ];
    uint8_t *ov[RTOPO__BUF_COUNT];
    int dt, op, shift;
    unsigned li, so, dof;

    rng_state = 77;
    for (dt = 0; dt < NDT; dt++)
        for (op = RTOPO_SUM; op <= RTOPO_MAX; op++)
            for (li = 0; li < sizeof lens / sizeof lens[0]; li++)
                for (so = 0; so < 8; so += 3)
                    for (dof = 0; dof < 8; dof += 5) {
                        size_t es = esz(dt), len = lens[li] * es, i;
                        uint8_t *d = mem[RTOPO__BUF_RECV] + dof;
                        uint8_t *s = mem[RTOPO__BUF_SEND] + so;
                        rtopo__kern_t k = kern(RTOPO__KERN_COMBINE, dt, op, 0,
                                               RTOPO__BUF_SEND, so, RTOPO__BUF_RECV,
                                               dof, len, 0);
                        int rc;

                        reset();
                        for (i = 0; i < len; i += es) {
                            rand_elem(dt, d + i);
                            rand_elem(dt, s + i);
                            ref_combine1(dt, op, ref + i, d + i, s + i);
                        }
                        rc = rtopo__kern_run(&k, bufs);
                        TU_CHECK(rc == RTOPO_OK && !memcmp(d, ref, len) &&
                                 guards_ok(RTOPO__BUF_RECV, dof, len),
                                 "combine dt %d op %d: %u elements, offsets %u/%u",
                                 dt, op, lens[li], so, dof);
                    }
    /* overlap: SEND starts `shift` elements after (or before) RECV */
    for (dt = 0; dt < NDT; dt++)
        for (op = RTOPO_SUM; op <= RTOPO_MAX; op++)
            for (shift = -3; shift <= 3; shift++) {
                size_t es = esz(dt), n = 67, len = n * es, i;
                uint8_t *base = mem[RTOPO__BUF_RECV] + 64;
                uint8_t *s = base + shift * (ptrdiff_t)es;
                rtopo__kern_t k = kern(RTOPO__KERN_COMBINE, dt, op, 0, RTOPO__BUF_SEND, 0,
                                       RTOPO__BUF_RECV, 64, len, 0);
                int rc;

                reset();
                for (i = 0; i < (n + 6) * es; i += es)
                    rand_elem(dt, base - 3 * es + i);
                memcpy(orig, base - 3 * es, (n + 6) * es);
                /* the reference, in order, in a copy */
                for (i = 0; i < len; i += es) {
                    uint8_t *cd = orig + 3 * es + i, *cs = cd + shift * (ptrdiff_t)es;

                    ref_combine1(dt, op, cd, cd, cs);
                }
                memcpy(ov, bufs, sizeof ov);
                ov[RTOPO__BUF_SEND] = s;
                rc = rtopo__kern_run(&k, ov);
                TU_CHECK(rc == RTOPO_OK && !memcmp(base - 3 * es, orig, (n + 6) * es),
                         "combine dt %d op %d: overlap by %d elements", dt, op, shift);
            }
}

/* records: key then payload bytes */
#define NCX 10

static void test_cmpx(void)
{
    static const int64_t ik[NCX][2] = {
        { 1, 2 }, { 2, 1 }, { 5, 5 }, { -3, 4 }, { 4, -3 }, { INT32_MAX, INT32_MIN },
        { INT32_MIN, INT32_MAX }, { 0, -1 }, { -1, 0 }, { 7, 7 },
    };
    static const double fk[NCX][2] = {
        { 1, 2 }, { 2, 1 }, { NAN, 1 }, { 1, NAN }, { NAN, NAN }, { -0.0, 0.0 },
        { -INFINITY, INFINITY }, { INFINITY, NAN }, { INFINITY, -INFINITY }, { 0.5, -0.5 },
    };
    /* src buffer/offset, dst buffer/offset */
    static const uint64_t cfg[][4] = {
        { RTOPO__BUF_SEND, 0, RTOPO__BUF_RECV, 0 },
        { RTOPO__BUF_TMP, 1, RTOPO__BUF_RECV, 2 },
        { RTOPO__BUF_SEND, 3, RTOPO__BUF_SEND, 3 + NCX * 11 },   /* adjacent */
    };
    uint8_t es_[NCX * 11], ed[NCX * 11];
    int dt, desc, c;

    for (dt = 0; dt < NDT; dt++)
        for (desc = 0; desc < 2; desc++)
            for (c = 0; c < 3; c++) {
                uint32_t rec = (uint32_t)esz(dt) + 3, i;
                uint64_t len = (uint64_t)NCX * rec;
                uint8_t *s = mem[cfg[c][0]] + cfg[c][1], *d = mem[cfg[c][2]] + cfg[c][3];
                rtopo__kern_t k = kern(RTOPO__KERN_CMPX, dt, 0, desc ? RTOPO__KERN_DESC : 0,
                                       (int)cfg[c][0], cfg[c][1], (int)cfg[c][2],
                                       cfg[c][3], len, rec);
                int rc;

                reset();
                for (i = 0; i < NCX; i++) {
                    put_key(dt, s + i * rec, ik[i][0], fk[i][0]);
                    put_key(dt, d + i * rec, ik[i][1], fk[i][1]);
                    memset(s + i * rec + esz(dt), 0xA0 + i, 3);
                    memset(d + i * rec + esz(dt), 0xB0 + i, 3);
                }
                for (i = 0; i < NCX; i++) {
                    uint8_t *a = s + i * rec, *b = d + i * rec;
                    int sw = desc ? ref_gt(dt, b, a) : ref_gt(dt, a, b);

                    memcpy(es_ + i * rec, sw ? b : a, rec);
                    memcpy(ed + i * rec, sw ? a : b, rec);
                }
                rc = rtopo__kern_run(&k, bufs);
                TU_CHECK(rc == RTOPO_OK, "cmpx dt %d: %d", dt, rc);
                TU_CHECK(!memcmp(s, es_, len) && !memcmp(d, ed, len),
                         "cmpx dt %d desc %d cfg %d", dt, desc, c);
                TU_CHECK(guards2_ok((int)cfg[c][0], cfg[c][1], (int)cfg[c][2],
                                    cfg[c][3], len), "cmpx guards");
            }
    /* literal: ascending puts the smaller key low, payload follows; NaN high */
    {
        double lo[2] = { 3.0, 1.0 }, hi[2] = { 2.0, 2.0 }, nan = NAN, one = 1.0;
        rtopo__kern_t k = kern(RTOPO__KERN_CMPX, RTOPO_DOUBLE, 0, 0, RTOPO__BUF_SEND, 0,
                               RTOPO__BUF_RECV, 0, 16, 16);

        memcpy(mem[0], lo, 16);
        memcpy(mem[1], hi, 16);
        CU_ASSERT_EQUAL(rtopo__kern_run(&k, bufs), RTOPO_OK);
        memcpy(lo, mem[0], 16);
        memcpy(hi, mem[1], 16);
        CU_ASSERT(lo[0] == 2.0 && lo[1] == 2.0 && hi[0] == 3.0 && hi[1] == 1.0);
        k.len = k.rec = 8;
        memcpy(mem[0], &nan, 8);
        memcpy(mem[1], &one, 8);
        CU_ASSERT_EQUAL(rtopo__kern_run(&k, bufs), RTOPO_OK);
        memcpy(lo, mem[0], 8);
        memcpy(hi, mem[1], 8);
        CU_ASSERT(lo[0] == 1.0 && isnan(hi[0]));
        k.flags = RTOPO__KERN_DESC;
        CU_ASSERT_EQUAL(rtopo__kern_run(&k, bufs), RTOPO_OK);
        memcpy(lo, mem[0], 8);
        memcpy(hi, mem[1], 8);
        CU_ASSERT(isnan(lo[0]) && hi[0] == 1.0);
    }
    /* records longer than any internal swap piece */
    {
        uint32_t rec = 1000, i;
        int32_t a = 9, b = 4;
        rtopo__kern_t k = kern(RTOPO__KERN_CMPX, RTOPO_INT32, 0, 0, RTOPO__BUF_TMP, 5,
                               RTOPO__BUF_TMP, 5 + 2 * rec, 2 * rec, rec);

        reset();
        for (i = 0; i < 2 * rec; i++) {
            mem[2][5 + i] = (uint8_t)i;
            mem[2][5 + 2 * rec + i] = (uint8_t)(i * 7 + 1);
        }
        memcpy(mem[2] + 5, &a, 4);
        memcpy(mem[2] + 5 + 2 * rec, &b, 4);
        memcpy(mem[2] + 5 + rec, &b, 4);        /* second pair: 4 vs (1,8,..) */
        CU_ASSERT_EQUAL(rtopo__kern_run(&k, bufs), RTOPO_OK);
        for (i = 4; i < rec; i++)
            TU_CHECK(mem[2][5 + i] == (uint8_t)(i * 7 + 1) &&
                     mem[2][5 + 2 * rec + i] == (uint8_t)i, "long record byte %u", i);
        memcpy(&a, mem[2] + 5, 4);
        memcpy(&b, mem[2] + 5 + 2 * rec, 4);
        CU_ASSERT(a == 4 && b == 9);
        /* second pair: key 4 (src) vs bytes (1+7000..) of dst, read as int */
        {
            int32_t ks, kd;

            memcpy(&ks, mem[2] + 5 + rec, 4);
            memcpy(&kd, mem[2] + 5 + 3 * rec, 4);
            CU_ASSERT(ks <= kd);
        }
    }
}

/* stable insertion sort: the reference */
static void ref_sort(int dt, int desc, uint8_t *r, uint32_t n, uint32_t rec)
{
    uint8_t t[64];
    uint32_t i, j;

    for (i = 1; i < n; i++) {
        memcpy(t, r + (size_t)i * rec, rec);
        for (j = i; j > 0; j--) {
            uint8_t *p = r + (size_t)(j - 1) * rec;

            if (!(desc ? ref_gt(dt, t, p) : ref_gt(dt, p, t)))
                break;
            memcpy(p + rec, p, rec);
        }
        memcpy(r + (size_t)j * rec, t, rec);
    }
}

static void test_sort_stable(void)
{
    static const int keys[6] = { 3, 1, 3, 2, 1, 3 };
    static const uint32_t asc[6] = { 1, 4, 3, 0, 2, 5 }, dsc[6] = { 0, 2, 5, 3, 1, 4 };
    int dt, desc, i;

    for (dt = 0; dt < NDT; dt++)
        for (desc = 0; desc < 2; desc++) {
            uint32_t rec = (uint32_t)esz(dt) + 4, pay;
            rtopo__kern_t k = kern(RTOPO__KERN_SORT, dt, 0, desc ? RTOPO__KERN_DESC : 0,
                                   RTOPO__BUF_SEND, 0, RTOPO__BUF_RECV, 1,
                                   6 * rec, rec);
            uint8_t *d = mem[RTOPO__BUF_RECV] + 1;

            reset();
            for (i = 0; i < 6; i++) {
                put_key(dt, d + i * rec, keys[i], keys[i]);
                pay = (uint32_t)i;
                memcpy(d + i * rec + esz(dt), &pay, 4);
            }
            CU_ASSERT_EQUAL(rtopo__kern_run(&k, bufs), RTOPO_OK);
            for (i = 0; i < 6; i++) {
                memcpy(&pay, d + i * rec + esz(dt), 4);
                TU_CHECK(pay == (desc ? dsc : asc)[i], "sort dt %d desc %d: slot %d "
                         "holds record %u", dt, desc, i, pay);
            }
        }
}

static void test_sort_random(void)
{
    static const uint32_t ns[] = { 1, 2, 3, 7, 1000, 1001 };
    static uint8_t ref[1001 * 12];
    int dt, desc, ni, mode;

    rng_state = 42;
    for (dt = 0; dt < NDT; dt++)
        for (desc = 0; desc < 2; desc++)
            for (ni = 0; ni < 6; ni++)
                for (mode = 0; mode < 2; mode++) {   /* few keys / spread keys */
                    uint32_t n = ns[ni], rec = (uint32_t)esz(dt) + 4, i;
                    uint64_t off = mode ? 3 : 0, len = (uint64_t)n * rec;
                    uint8_t *d = mem[RTOPO__BUF_TMP] + off;
                    rtopo__kern_t k = kern(RTOPO__KERN_SORT, dt, 0,
                                           desc ? RTOPO__KERN_DESC : 0, RTOPO__BUF_TMP,
                                           off, RTOPO__BUF_TMP, off, len, rec);
                    int rc;

                    reset();
                    for (i = 0; i < n; i++) {
                        uint32_t r = rng();
                        int64_t ki = mode ? (int64_t)(((uint64_t)r << 32) | rng()) :
                                     (int64_t)(r % 7) - 3;
                        double kf = mode ? ((double)r - 2147483648.0) / 3.0 :
                                    (double)(r % 7) - 3.0;

                        if (!isint(dt) && !mode && r % 7 == 3)
                            kf = (r >> 8) & 1 ? -0.0 : 0.0;   /* ties of -0 and 0 */
                        if (!isint(dt) && r % 13 == 0)
                            kf = NAN;
                        put_key(dt, d + i * rec, ki, kf);
                        memcpy(d + i * rec + esz(dt), &i, 4);
                    }
                    memcpy(ref, d, len);
                    ref_sort(dt, desc, ref, n, rec);
                    rc = rtopo__kern_run(&k, bufs);
                    TU_CHECK(rc == RTOPO_OK, "sort: %d", rc);
                    TU_CHECK(!memcmp(d, ref, len), "sort dt %d desc %d n %u mode %d",
                             dt, desc, n, mode);
                    TU_CHECK(guards_ok(RTOPO__BUF_TMP, off, len), "sort guards");
                }
}

static void test_select(void)
{
    /* marks: 0 none, 1 all, 2 some */
    static const uint64_t cfg[][4] = {
        { RTOPO__BUF_SEND, 0, RTOPO__BUF_RECV, 0 },
        { RTOPO__BUF_TMP, 1, RTOPO__BUF_RECV, 3 },
        { RTOPO__BUF_RECV, 5, RTOPO__BUF_RECV, 5 + 10 * 10 },
    };
    uint8_t exp[10 * 10];
    int dt, mark, c;

    for (dt = 0; dt < NDT; dt++)
        for (mark = 0; mark < 3; mark++)
            for (c = 0; c < 3; c++) {
                uint32_t rec = (uint32_t)esz(dt) + 2, n = 10, i, o = 0;
                uint64_t len = (uint64_t)n * rec;
                uint8_t *s = mem[cfg[c][0]] + cfg[c][1], *d = mem[cfg[c][2]] + cfg[c][3];
                rtopo__kern_t k = kern(RTOPO__KERN_SELECT, dt, 0, 0, (int)cfg[c][0],
                                       cfg[c][1], (int)cfg[c][2], cfg[c][3], len, rec);
                int rc;

                reset();
                for (i = 0; i < n; i++) {
                    int on = mark == 1 || (mark == 2 && i % 3 == 1);
                    double fz = i % 2 ? -0.0 : 0.0;
                    double fv = i == 4 ? NAN : i % 2 ? -(double)i - 0.5 : (double)i + 0.25;

                    put_key(dt, s + i * rec, on ? (i % 2 ? -(int64_t)i - 1 : (int64_t)i + 1)
                                             : 0, on ? fv : fz);
                    memset(s + i * rec + esz(dt), 0x10 + i, 2);
                }
                memset(exp, 0, len);
                for (i = 0; i < n; i++) {
                    int nz = isint(dt) ? geti(dt, s + i * rec) != 0 :
                             isnan(getf(dt, s + i * rec)) || getf(dt, s + i * rec) < 0 ||
                             getf(dt, s + i * rec) > 0;

                    if (nz) {
                        memcpy(exp + o, s + i * rec, rec);
                        o += rec;
                    }
                }
                TU_CHECK(o == (mark == 0 ? 0 : mark == 1 ? len : 3 * rec),
                         "select reference: %u bytes kept", o);
                rc = rtopo__kern_run(&k, bufs);
                TU_CHECK(rc == RTOPO_OK, "select: %d", rc);
                TU_CHECK(!memcmp(d, exp, len), "select dt %d mark %d cfg %d", dt, mark, c);
                TU_CHECK(guards2_ok((int)cfg[c][0], cfg[c][1], (int)cfg[c][2],
                                    cfg[c][3], len), "select guards");
            }
}

static void test_len0(void)
{
    uint8_t *const none[RTOPO__BUF_COUNT] = { NULL, NULL, NULL };
    int t;

    for (t = RTOPO__KERN_FILL; t < RTOPO__KERN_COUNT; t++) {
        rtopo__kern_t k = kern(t, RTOPO_INT32, RTOPO_SUM, 0, RTOPO__BUF_SEND, 0,
                               RTOPO__BUF_SEND, 0, 0, 4);

        TU_CHECK(rtopo__kern_run(&k, none) == RTOPO_OK, "%s len 0",
                 rtopo__kern_name(t));
    }
    {   /* SORT's single range with src == dst, and src unused */
        rtopo__kern_t k = kern(RTOPO__KERN_SORT, RTOPO_INT32, 0, 0, RTOPO__BUF_RECV, 0,
                               RTOPO__BUF_RECV, 0, 8, 4);
        uint8_t *const only[RTOPO__BUF_COUNT] = { NULL, mem[1], NULL };

        CU_ASSERT_EQUAL(rtopo__kern_run(&k, only), RTOPO_OK);
        k.src_buf = RTOPO__BUF_SEND;
        CU_ASSERT_EQUAL(rtopo__kern_run(&k, only), RTOPO_OK);
        k.type = RTOPO__KERN_FILL;
        CU_ASSERT_EQUAL(rtopo__kern_run(&k, only), RTOPO_OK);
    }
}

static void test_inval(void)
{
    static const struct {
        const char *what, *name;
        int type, dtype, op, sb, db;
        uint64_t so, dof, len;
        uint32_t rec;
        int nullbuf;        /* buffer index set to NULL, or -1 */
    } c[] = {
        { "type 0", "kernel", 0, RTOPO_INT32, 0, 0, 1, 0, 0, 8, 4, -1 },
        { "type COUNT", "kernel", RTOPO__KERN_COUNT, RTOPO_INT32, 0, 0, 1, 0, 0, 8, 4, -1 },
        { "type 200", "kernel", 200, RTOPO_INT32, 0, 0, 1, 0, 0, 8, 4, -1 },
        { "fill dtype", "fill", RTOPO__KERN_FILL, 4, 0, 0, 1, 0, 0, 8, 4, -1 },
        { "combine dtype", "combine", RTOPO__KERN_COMBINE, 255, 0, 0, 1, 0, 0, 8, 4, -1 },
        { "cmpx dtype", "cmpx", RTOPO__KERN_CMPX, 4, 0, 0, 1, 0, 0, 8, 4, -1 },
        { "sort dtype", "sort", RTOPO__KERN_SORT, 4, 0, 0, 1, 0, 0, 8, 4, -1 },
        { "select dtype", "select", RTOPO__KERN_SELECT, 4, 0, 0, 1, 0, 0, 8, 4, -1 },
        { "combine op", "combine", RTOPO__KERN_COMBINE, RTOPO_INT32, RTOPO_MAX + 1, 0, 1,
          0, 0, 8, 4, -1 },
        { "combine op 255", "combine", RTOPO__KERN_COMBINE, RTOPO_DOUBLE, 255, 0, 1,
          0, 0, 8, 0, -1 },
        { "cmpx rec 0", "cmpx", RTOPO__KERN_CMPX, RTOPO_INT32, 0, 0, 1, 0, 0, 8, 0, -1 },
        { "sort rec 0", "sort", RTOPO__KERN_SORT, RTOPO_INT32, 0, 0, 1, 0, 0, 8, 0, -1 },
        { "select rec 0", "select", RTOPO__KERN_SELECT, RTOPO_INT32, 0, 0, 1, 0, 0, 8, 0,
          -1 },
        { "cmpx len % rec", "cmpx", RTOPO__KERN_CMPX, RTOPO_INT32, 0, 0, 1, 0, 0, 10, 4,
          -1 },
        { "sort len % rec", "sort", RTOPO__KERN_SORT, RTOPO_INT32, 0, 0, 1, 0, 0, 12, 8,
          -1 },
        { "select len % rec", "select", RTOPO__KERN_SELECT, RTOPO_INT32, 0, 0, 1, 0, 0,
          7, 6, -1 },
        { "cmpx rec < size", "cmpx", RTOPO__KERN_CMPX, RTOPO_INT64, 0, 0, 1, 0, 0, 8, 4,
          -1 },
        { "sort rec < size", "sort", RTOPO__KERN_SORT, RTOPO_DOUBLE, 0, 0, 1, 0, 0, 14, 7,
          -1 },
        { "select rec < size", "select", RTOPO__KERN_SELECT, RTOPO_FLOAT, 0, 0, 1, 0, 0,
          6, 3, -1 },
        { "fill len % size", "fill", RTOPO__KERN_FILL, RTOPO_INT64, 0, 0, 1, 0, 0, 12, 0,
          -1 },
        { "combine len % size", "combine", RTOPO__KERN_COMBINE, RTOPO_FLOAT, 0, 0, 1, 0,
          0, 6, 0, -1 },
        { "src_buf", "combine", RTOPO__KERN_COMBINE, RTOPO_INT32, 0, RTOPO__BUF_COUNT, 1,
          0, 0, 8, 0, -1 },
        { "dst_buf", "fill", RTOPO__KERN_FILL, RTOPO_INT32, 0, 0, RTOPO__BUF_COUNT, 0, 0,
          8, 0, -1 },
        { "dst_buf 255", "sort", RTOPO__KERN_SORT, RTOPO_INT32, 0, 0, 255, 0, 0, 8, 4,
          -1 },
        { "NULL dst fill", "fill", RTOPO__KERN_FILL, RTOPO_INT32, 0, 0, 1, 0, 0, 8, 0, 1 },
        { "NULL dst sort", "sort", RTOPO__KERN_SORT, RTOPO_INT32, 0, 2, 2, 0, 0, 8, 4, 2 },
        { "NULL src combine", "combine", RTOPO__KERN_COMBINE, RTOPO_INT32, 0, 0, 1, 0, 0,
          8, 0, 0 },
        { "NULL dst cmpx", "cmpx", RTOPO__KERN_CMPX, RTOPO_INT32, 0, 0, 1, 0, 0, 8, 4, 1 },
        { "NULL src select", "select", RTOPO__KERN_SELECT, RTOPO_INT32, 0, 2, 1, 0, 0, 8,
          4, 2 },
        { "cmpx overlap", "cmpx", RTOPO__KERN_CMPX, RTOPO_INT32, 0, 1, 1, 0, 4, 8, 4, -1 },
        { "cmpx same range", "cmpx", RTOPO__KERN_CMPX, RTOPO_INT32, 0, 2, 2, 8, 8, 8, 4,
          -1 },
        { "combine overlap", "combine", RTOPO__KERN_COMBINE, RTOPO_INT32, 0, 0, 0, 12, 8,
          8, 0, -1 },
        { "select overlap", "select", RTOPO__KERN_SELECT, RTOPO_INT32, 0, 1, 1, 0, 7, 8,
          4, -1 },
        { "overlap near 2^64", "combine", RTOPO__KERN_COMBINE, RTOPO_INT32, 0, 1, 1,
          UINT64_MAX - 7, UINT64_MAX - 3, 8, 0, -1 },
    };
    size_t i;

    for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        rtopo__kern_t k = kern(c[i].type, c[i].dtype, c[i].op, 0, c[i].sb, c[i].so,
                               c[i].db, c[i].dof, c[i].len, c[i].rec);
        uint8_t *b[RTOPO__BUF_COUNT] = { mem[0], mem[1], mem[2] };
        int rc;

        if (c[i].type == RTOPO__KERN_FILL)
            k.arg = 7;      /* a zero fill takes any length */
        if (c[i].nullbuf >= 0)
            b[c[i].nullbuf] = NULL;
        reset();
        rc = rtopo__kern_run(&k, b);
        TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), c[i].name),
                 "%s: rc %d, \"%s\"", c[i].what, rc, rtopo_last_error());
    }
    /* not an error: a zero fill of a length that is not whole elements */
    {
        rtopo__kern_t k = kern(RTOPO__KERN_FILL, RTOPO_INT64, 0, 0, 0, 0, 1, 3, 13, 0);
        uint8_t *b[RTOPO__BUF_COUNT] = { mem[0], mem[1], mem[2] };
        size_t j;
        int zero = 1;

        reset();
        memset(mem[1], 0xab, 32);
        CU_ASSERT_EQUAL(rtopo__kern_run(&k, b), RTOPO_OK);
        for (j = 3; j < 16; j++)
            zero &= mem[1][j] == 0;
        CU_ASSERT(zero && mem[1][2] == 0xab && mem[1][16] == 0xab);
    }
    /* not errors: ranges that touch, or the same offsets in two buffers */
    {
        rtopo__kern_t k = kern(RTOPO__KERN_COMBINE, RTOPO_INT32, RTOPO_SUM, 0, 1, 8, 1, 0,
                               8, 0);

        CU_ASSERT_EQUAL(rtopo__kern_run(&k, bufs), RTOPO_OK);
        k.src_off = 0;
        k.dst_off = 8;
        CU_ASSERT_EQUAL(rtopo__kern_run(&k, bufs), RTOPO_OK);
        k.src_buf = 0;
        k.dst_off = 0;
        CU_ASSERT_EQUAL(rtopo__kern_run(&k, bufs), RTOPO_OK);
    }
}

/* ---- ROUTE: the steps of routing slots (rtopo_sched.h) ------------------- */

#define RREC 32u      /* slot: the 16-byte header, 16 payload bytes */
#define RSO 3u        /* source offset in SEND: unaligned on purpose */
#define RDO 5u        /* destination offset in TMP */

static rtopo__kern_t rkern(int op, unsigned flags, uint64_t slen, uint64_t len, int64_t arg)
{
    rtopo__kern_t k = kern(RTOPO__KERN_ROUTE, RTOPO_INT64, op, flags, RTOPO__BUF_SEND, RSO,
                           RTOPO__BUF_TMP, RDO, len, RREC);

    k.slen = slen;
    k.arg = arg;
    return k;
}

static int64_t rarg(int me, int R, int g, int s)
{
    return me | (int64_t)R << 16 | (int64_t)g << 32 | (int64_t)s << 48;
}

static void put64(uint8_t *p, int64_t v)
{
    memcpy(p, &v, 8);
}

static int64_t get64(const uint8_t *p)
{
    int64_t v;

    memcpy(&v, p, 8);
    return v;
}

/* a record for [lo, hi] (tag lo + 1), payload bytes `fill` */
static void put_slot(uint8_t *p, int64_t lo, int64_t hi, uint8_t fill)
{
    put64(p, lo + 1);
    put64(p + 8, hi);
    memset(p + RTOPO__RT_HDR, fill, RREC - RTOPO__RT_HDR);
}

/* an empty slot whose other bytes are not zero */
static void put_empty(uint8_t *p)
{
    memset(p, 0x3C, RREC);
    put64(p, 0);
}

static int is_zero(const uint8_t *p, size_t n)
{
    while (n--)
        if (*p++)
            return 0;
    return 1;
}

static uint8_t *rsrc(void) { return mem[RTOPO__BUF_SEND] + RSO; }
static uint8_t *rdst(void) { return mem[RTOPO__BUF_TMP] + RDO; }

/* MOVE: a record's coordinates on the line under every transform and
 * view, worked out by hand (s = 4: positions 0..15, rows and columns
 * 0..3; s = 3: 0..8), then each predicate at every coordinate me, with
 * and without CLEAR */
static void test_route_move(void)
{
    static const struct {
        int s, xf, view, R, g;
        int64_t lo, hi;
        int x0, x1;         /* the coordinates, x0 -1: none (not on this line) */
        int cbit;           /* CUBE: the bit, the place (arg me | c << 16 | A << 32) */
        int64_t A;
    } c[] = {
        /* MOD: the one position lo mod n */
        { 4, RTOPO__RT_XMOD, RTOPO__RT_VCOLPT, 0, 0, 37, 37, 1, 1 },      /* 5: col 1 */
        { 4, RTOPO__RT_XMOD, RTOPO__RT_VCOLPT, 0, 0, 44, 300, 0, 0 },     /* 12: col 0 */
        { 4, RTOPO__RT_XMOD, RTOPO__RT_VROWS, 0, 0, 44, 44, 3, 3 },       /* 12: row 3 */
        { 4, RTOPO__RT_XMOD, RTOPO__RT_VINROW, 3, 0, 45, 45, 1, 1 },      /* 13 */
        { 4, RTOPO__RT_XMOD, RTOPO__RT_VINROW, 2, 0, 45, 45, -1, -1 },
        /* DIV: positions lo/n .. hi/n */
        { 4, RTOPO__RT_XDIV, RTOPO__RT_VCOLPT, 0, 0, 37, 40, 2, 2 },      /* 2 */
        { 4, RTOPO__RT_XDIV, RTOPO__RT_VROWS, 0, 0, 70, 200, 1, 3 },      /* 4..12 */
        { 4, RTOPO__RT_XDIV, RTOPO__RT_VINROW, 1, 0, 70, 100, 0, 2 },     /* 4..6 */
        { 4, RTOPO__RT_XDIV, RTOPO__RT_VINROW, 0, 0, 70, 100, -1, -1 },
        { 4, RTOPO__RT_XDIV, RTOPO__RT_VINROW, 1, 0, 40, 250, 0, 3 },     /* 2..15 */
        { 4, RTOPO__RT_XDIV, RTOPO__RT_VINROW, 0, 0, 40, 250, 2, 3 },
        { 4, RTOPO__RT_XDIV, RTOPO__RT_VROWS, 0, 0, 70, 69, -1, -1 },     /* hi < lo */
        /* GRP: [lo, hi] within group g */
        { 4, RTOPO__RT_XGRP, RTOPO__RT_VROWS, 0, 2, 40, 60, 2, 3 },       /* 8..15 */
        { 4, RTOPO__RT_XGRP, RTOPO__RT_VINROW, 2, 2, 41, 60, 1, 3 },      /* 9..15 */
        { 4, RTOPO__RT_XGRP, RTOPO__RT_VINROW, 3, 2, 41, 45, 0, 1 },      /* 9..13 */
        { 4, RTOPO__RT_XGRP, RTOPO__RT_VINROW, 1, 2, 41, 45, -1, -1 },
        { 4, RTOPO__RT_XGRP, RTOPO__RT_VROWS, 0, 2, 20, 35, 0, 0 },       /* 0..3 */
        { 4, RTOPO__RT_XGRP, RTOPO__RT_VCOLPT, 0, 2, 37, 60, 1, 1 },      /* 5.. */
        { 4, RTOPO__RT_XGRP, RTOPO__RT_VROWS, 0, 0, 20, 35, -1, -1 },     /* above g 0 */
        { 4, RTOPO__RT_XGRP, RTOPO__RT_VROWS, 0, 3, 20, 35, -1, -1 },     /* below g 3 */
        /* s = 3 */
        { 3, RTOPO__RT_XMOD, RTOPO__RT_VCOLPT, 0, 0, 23, 23, 2, 2 },      /* 5: col 2 */
        { 3, RTOPO__RT_XDIV, RTOPO__RT_VROWS, 0, 0, 36, 80, 1, 2 },       /* 4..8 */
        { 3, RTOPO__RT_XGRP, RTOPO__RT_VINROW, 0, 1, 10, 14, 1, 2 },      /* 1..5 */
        { 3, RTOPO__RT_XGRP, RTOPO__RT_VINROW, 1, 1, 10, 14, 0, 2 },
        /* CUBE (a line of two: bit c of the place A): BIT, bit c of lo;
         * HALF, the halves of A's block of 2^(c+1) that [lo, hi] meets */
        { 2, RTOPO__RT_XCUBE, RTOPO__RT_VBIT, 0, 0, 6, 6, 1, 1, 1, 0 },
        { 2, RTOPO__RT_XCUBE, RTOPO__RT_VBIT, 0, 0, 6, 6, 0, 0, 0, 9 },
        { 2, RTOPO__RT_XCUBE, RTOPO__RT_VHALF, 0, 0, 2, 6, 0, 1, 2, 5 },      /* 0..3, 4..7 */
        { 2, RTOPO__RT_XCUBE, RTOPO__RT_VHALF, 0, 0, 5, 5, 1, 1, 2, 5 },
        { 2, RTOPO__RT_XCUBE, RTOPO__RT_VHALF, 0, 0, 1, 4, 0, 1, 2, 5 },      /* edges */
        { 2, RTOPO__RT_XCUBE, RTOPO__RT_VHALF, 0, 0, 3, 3, 0, 0, 2, 5 },
        { 2, RTOPO__RT_XCUBE, RTOPO__RT_VHALF, 0, 0, 3, 9, 0, 0, 1, 9 },      /* 8..9, 10..11 */
        { 2, RTOPO__RT_XCUBE, RTOPO__RT_VHALF, 0, 0, 12, 20, -1, -1, 1, 9 },
        { 2, RTOPO__RT_XCUBE, RTOPO__RT_VHALF, 0, 0, 7, 30, 1, 1, 0, 6 },     /* 6, 7 */
    };
    size_t i;
    int me, pred, clear;

    for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
        for (me = 0; me < c[i].s; me++)
            for (pred = RTOPO__RT_KEEP; pred <= RTOPO__RT_MINUS; pred++)
                for (clear = 0; clear < 2; clear++) {
                    unsigned fl = (unsigned)(pred | c[i].xf << 2 | c[i].view << 4) |
                                  (clear ? RTOPO__RT_CLEAR : 0);
                    rtopo__kern_t k = rkern(RTOPO__RT_MOVE, fl, 2 * RREC, 2 * RREC,
                                            c[i].xf == RTOPO__RT_XCUBE ?
                                            me | (int64_t)c[i].cbit << 16 | c[i].A << 32 :
                                            rarg(me, c[i].R, c[i].g, c[i].s));
                    int has = c[i].x0 >= 0, rc, ok;
                    int moved = has && (pred == RTOPO__RT_KEEP ? c[i].x0 <= me &&
                                        me <= c[i].x1 : pred == RTOPO__RT_PLUS ?
                                        c[i].x1 > me : c[i].x0 < me);
                    uint8_t want[2 * RREC], rec[RREC];

                    reset();
                    put_empty(rsrc());
                    put_slot(rsrc() + RREC, c[i].lo, c[i].hi, 0x40 + (uint8_t)i);
                    memcpy(rec, rsrc() + RREC, RREC);
                    put_slot(rdst(), 1000, 1000, 0x77);    /* taken */
                    memset(rdst() + RREC, 0, RREC);       /* free */
                    memcpy(want, rdst(), 2 * RREC);
                    if (clear)
                        memset(want, 0, 2 * RREC);
                    if (moved)
                        memcpy(want + (clear ? 0 : RREC), rec, RREC);
                    rc = rtopo__kern_run(&k, bufs);
                    ok = TU_CHECK(rc == RTOPO_OK && !memcmp(rdst(), want, 2 * RREC) &&
                                  guards_ok(RTOPO__BUF_TMP, RDO, 2 * RREC),
                                  "move case %zu (s %d xf %d view %d R %d g %d [%lld, %lld])"
                                  " me %d pred %d clear %d: rc %d, %s expected", i, c[i].s,
                                  c[i].xf, c[i].view, c[i].R, c[i].g, (long long)c[i].lo,
                                  (long long)c[i].hi, me, pred, clear, rc,
                                  moved ? "a move" : "no move");
                    if (!ok)
                        return;
                }
    /* two records that both move fill the free slots in order; a third
     * finds none */
    {
        rtopo__kern_t k = rkern(RTOPO__RT_MOVE, RTOPO__RT_KEEP | RTOPO__RT_XDIV << 2 |
                                RTOPO__RT_VROWS << 4, 3 * RREC, 3 * RREC, rarg(2, 0, 0, 4));
        int rc;

        reset();
        put_slot(rsrc(), 130, 140, 0xA1);             /* positions 8: row 2 */
        put_slot(rsrc() + RREC, 32, 200, 0xA2);       /* rows 0..3 */
        put_empty(rsrc() + 2 * RREC);
        memset(rdst(), 0, 3 * RREC);
        put_slot(rdst() + RREC, 5, 5, 0x99);
        rc = rtopo__kern_run(&k, bufs);
        TU_CHECK(rc == RTOPO_OK && !memcmp(rdst(), rsrc(), RREC) &&
                 get64(rdst() + RREC) == 6 && !memcmp(rdst() + 2 * RREC, rsrc() + RREC, RREC),
                 "move: two records into the free slots 0 and 2: rc %d", rc);
        put_slot(rsrc() + 2 * RREC, 150, 150, 0xA3);  /* row 2 too */
        memset(rdst(), 0, 3 * RREC);
        put_slot(rdst() + RREC, 5, 5, 0x99);
        rc = rtopo__kern_run(&k, bufs);
        TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "no free slot"),
                 "move: three records, two free slots: rc %d \"%s\"", rc,
                 rtopo_last_error());
    }
}

/* PRUNE: with the directions the sweep passes records on (flags & 3),
 * records that do not contain me are emptied (the whole slot), those
 * that do and the empty slots stay as they are; a record that needs a
 * direction the sweep does not take, or has no place on the line, fails
 * the kernel */
static void test_route_prune(void)
{
    static const struct {
        unsigned dirs;
        int64_t lo, hi;     /* XDIV, ROWS, me = row 1: positions lo/16..hi/16 */
        int want;           /* 1 kept, 0 emptied, -1 the kernel fails */
    } c[] = {
        { 3, 70, 100, 1 },      /* 4..6: row 1, mine */
        { 3, 200, 250, 0 },     /* 12..15: row 3, above: passed on up */
        { 3, 20, 30, 0 },       /* 1: row 0, below: passed on down */
        { 3, 20, 250, 1 },      /* rows 0..3: mine, and passed on both ways */
        { RTOPO__RT_PLUS, 200, 250, 0 },
        { RTOPO__RT_PLUS, 70, 250, 1 },     /* rows 1..3 */
        { RTOPO__RT_PLUS, 20, 30, -1 },     /* below, the sweep goes up only */
        { RTOPO__RT_PLUS, 20, 100, -1 },    /* rows 0..1: row 0 is out of reach */
        { RTOPO__RT_MINUS, 20, 100, 1 },
        { RTOPO__RT_MINUS, 200, 250, -1 },  /* above, the sweep goes down only */
        { 0, 70, 100, 1 },                  /* no sweep: only what is here */
        { 0, 200, 250, -1 },
        { 3, 70, 69, -1 },                  /* hi < lo: on no position */
    };
    size_t i;

    for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        unsigned fl = c[i].dirs | RTOPO__RT_XDIV << 2 | RTOPO__RT_VROWS << 4;
        rtopo__kern_t k = rkern(RTOPO__RT_PRUNE, fl, 0, 3 * RREC, rarg(1, 0, 0, 4));
        uint8_t want[3 * RREC];
        int rc;

        reset();
        put_empty(rdst());
        put_slot(rdst() + RREC, c[i].lo, c[i].hi, 0x12);
        put_slot(rdst() + 2 * RREC, 80, 90, 0x13);      /* position 5: row 1, kept */
        memcpy(want, rdst(), sizeof(want));
        if (!c[i].want)
            memset(want + RREC, 0, RREC);
        rc = rtopo__kern_run(&k, bufs);
        if (c[i].want < 0)
            TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "cannot reach"),
                     "prune case %zu (dirs %u, [%lld, %lld]): rc %d \"%s\"", i, c[i].dirs,
                     (long long)c[i].lo, (long long)c[i].hi, rc, rtopo_last_error());
        else
            TU_CHECK(rc == RTOPO_OK && !memcmp(rdst(), want, sizeof(want)) &&
                     guards_ok(RTOPO__BUF_TMP, RDO, 3 * RREC),
                     "prune case %zu (dirs %u, [%lld, %lld]): rc %d, %s expected", i,
                     c[i].dirs, (long long)c[i].lo, (long long)c[i].hi, rc,
                     c[i].want ? "kept" : "emptied");
    }
    /* INROW: a record whose positions miss the line's row has no place */
    {
        rtopo__kern_t k = rkern(RTOPO__RT_PRUNE, 3u | RTOPO__RT_XDIV << 2 |
                                RTOPO__RT_VINROW << 4, 0, RREC, rarg(0, 2, 0, 4));
        int rc;

        reset();
        put_slot(rdst(), 130, 140, 0x11);               /* 8: row 2, column 0 */
        rc = rtopo__kern_run(&k, bufs);
        TU_CHECK(rc == RTOPO_OK && get64(rdst()) == 131, "prune in row 2: rc %d", rc);
        put_slot(rdst(), 70, 100, 0x11);                /* 4..6: row 1 */
        rc = rtopo__kern_run(&k, bufs);
        TU_CHECK(rc == RTOPO_ERR_INVAL, "prune of a record of row 1 in row 2: rc %d", rc);
    }
}

/* NORM, XRANK, HCONC, HDIST, HPREV: the headers and values they build */
static void test_route_headers(void)
{
    static const int32_t flags[5] = { 0, 1, -1, INT32_MIN, 12345 };
    int i, rc;

    for (i = 0; i < 5; i++) {   /* NORM: int64 (flag != 0), 8 bytes */
        rtopo__kern_t k = rkern(RTOPO__RT_NORM, 0, 4, 8, 0);

        reset();
        memcpy(rsrc(), &flags[i], 4);
        rc = rtopo__kern_run(&k, bufs);
        TU_CHECK(rc == RTOPO_OK && get64(rdst()) == (flags[i] != 0) &&
                 guards_ok(RTOPO__BUF_TMP, RDO, 8), "norm %d: rc %d, %lld", flags[i], rc,
                 (long long)get64(rdst()));
    }
    {   /* XRANK: src[1] - src[0] */
        rtopo__kern_t k = rkern(RTOPO__RT_XRANK, 0, 16, 8, 0);

        reset();
        put64(rsrc(), 3);
        put64(rsrc() + 8, 10);
        rc = rtopo__kern_run(&k, bufs);
        TU_CHECK(rc == RTOPO_OK && get64(rdst()) == 7 && guards_ok(RTOPO__BUF_TMP, RDO, 8),
                 "xrank: rc %d, %lld", rc, (long long)get64(rdst()));
    }
    for (i = 0; i < 2; i++) {   /* HCONC from [f, c]: tag c when f, hi c - 1 */
        rtopo__kern_t k = rkern(RTOPO__RT_HCONC, 0, 16, RTOPO__RT_HDR, 0);

        reset();
        put64(rsrc(), i);
        put64(rsrc() + 8, 5);
        rc = rtopo__kern_run(&k, bufs);
        TU_CHECK(rc == RTOPO_OK && get64(rdst()) == (i ? 5 : 0) && get64(rdst() + 8) == 4 &&
                 guards_ok(RTOPO__BUF_TMP, RDO, RTOPO__RT_HDR), "hconc f %d: rc %d, %lld %lld",
                 i, rc, (long long)get64(rdst()), (long long)get64(rdst() + 8));
    }
    {   /* HDIST: tag d + 1 for d >= 0, hi d; d >= p (arg) fails */
        static const int64_t ds[6] = { 7, 0, 15, -1, INT64_MIN, 16 };

        for (i = 0; i < 6; i++) {
            rtopo__kern_t k = rkern(RTOPO__RT_HDIST, 0, 8, RTOPO__RT_HDR, 16);

            reset();
            put64(rsrc(), ds[i]);
            rc = rtopo__kern_run(&k, bufs);
            if (ds[i] >= 16)
                TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "not a rank"),
                         "hdist %lld of 16: rc %d \"%s\"", (long long)ds[i], rc,
                         rtopo_last_error());
            else
                TU_CHECK(rc == RTOPO_OK && get64(rdst()) == (ds[i] >= 0 ? ds[i] + 1 : 0) &&
                         get64(rdst() + 8) == ds[i] &&
                         guards_ok(RTOPO__BUF_TMP, RDO, RTOPO__RT_HDR),
                         "hdist %lld: rc %d, %lld %lld", (long long)ds[i], rc,
                         (long long)get64(rdst()), (long long)get64(rdst() + 8));
        }
    }
    {   /* HPREV: a record for rank arg - 1 carrying d, when d >= 0 and arg > 0 */
        static const struct { int64_t d, arg; } hp[4] = { { 9, 5 }, { 0, 1 }, { -1, 5 },
                                                          { 9, 0 } };

        for (i = 0; i < 4; i++) {
            rtopo__kern_t k = rkern(RTOPO__RT_HPREV, 0, 8, RREC, hp[i].arg);
            int full = hp[i].d >= 0 && hp[i].arg > 0;

            reset();
            put64(rsrc(), hp[i].d);
            rc = rtopo__kern_run(&k, bufs);
            TU_CHECK(rc == RTOPO_OK && (full ? get64(rdst()) == hp[i].arg &&
                                        get64(rdst() + 8) == hp[i].arg - 1 &&
                                        get64(rdst() + 16) == hp[i].d &&
                                        is_zero(rdst() + 24, RREC - 24) :
                                        is_zero(rdst(), RREC)) &&
                     guards_ok(RTOPO__BUF_TMP, RDO, RREC), "hprev d %lld rank %lld: rc %d",
                     (long long)hp[i].d, (long long)hp[i].arg, rc);
        }
    }
}

/* a record carrying dn in its payload (HPREV's form) */
static void put_succ(uint8_t *p, int64_t rank, int64_t dn)
{
    put_slot(p, rank, rank, 0);
    put64(p + RTOPO__RT_HDR, dn);
}

/* HGEN, UNPACK, GOT, PACK: over a source of two slots */
static void test_route_ends(void)
{
    int rc, i;

    /* HGEN: hi = dn - 1 of the one successor record, or p - 1 (arg: p);
     * flags & 1 (a distribute's check): hi stays */
    for (i = 0; i < 9; i++) {
        rtopo__kern_t k = rkern(RTOPO__RT_HGEN, i == 7 || i == 8, 2 * RREC, RTOPO__RT_HDR,
                                16);
        int64_t lo = i == 3 || i == 6 ? -1 : 4, want = i == 0 ? 8 : i == 1 ? 15 : 4;

        reset();
        put_empty(rsrc());
        put_empty(rsrc() + RREC);
        if (i == 0 || (i >= 2 && i != 6 && i != 8))
            put_succ(rsrc() + RREC, 3, i == 0 || i == 3 || i == 7 ? 9 : i == 2 ? 4 : 2);
        if (i == 5)
            put_succ(rsrc(), 3, 9);
        put64(rdst(), lo + 1);        /* as HDIST builds it */
        put64(rdst() + 8, lo);
        rc = rtopo__kern_run(&k, bufs);
        switch (i) {
        case 0:   /* successor at 9: [4, 8] */
        case 1:   /* none: [4, 15] */
        case 6:   /* the slot is empty, no successor: left alone */
        case 7:   /* the check only: successor at 9, [4, 4] */
        case 8:   /* the check only, none: [4, 4] */
            TU_CHECK(rc == RTOPO_OK && get64(rdst()) == lo + 1 &&
                     get64(rdst() + 8) == (i == 6 ? -1 : want) &&
                     guards_ok(RTOPO__BUF_TMP, RDO, RTOPO__RT_HDR),
                     "hgen case %d: rc %d, [%lld, %lld]", i, rc,
                     (long long)(get64(rdst()) - 1), (long long)get64(rdst() + 8));
            break;
        case 2:   /* successor at 4 = lo */
        case 4:   /* successor at 2 < lo */
            TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "not increasing"),
                     "hgen case %d: rc %d \"%s\"", i, rc, rtopo_last_error());
            break;
        case 3:   /* the slot is empty, a successor: a gap in the senders */
            TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "not ranks 0..q"),
                     "hgen case %d: rc %d \"%s\"", i, rc, rtopo_last_error());
            break;
        default:  /* two successors */
            TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "two"),
                     "hgen two successors: rc %d \"%s\"", rc, rtopo_last_error());
            break;
        }
    }
    /* UNPACK: the payload of the one record containing arg (this rank) */
    for (i = 0; i < 6; i++) {
        rtopo__kern_t k = rkern(RTOPO__RT_UNPACK, 0, 2 * RREC, 11, 6);
        uint8_t before[11];

        reset();
        put_empty(rsrc());
        put_empty(rsrc() + RREC);
        if (i == 0)
            put_slot(rsrc() + RREC, 6, 6, 0x5A);      /* exactly here */
        if (i == 1)
            put_slot(rsrc(), 2, 9, 0x5B);             /* a range covering 6 */
        if (i == 3)
            put_slot(rsrc(), 7, 9, 0x5C);             /* elsewhere */
        if (i == 4) {
            put_slot(rsrc(), 6, 6, 0x5D);             /* two */
            put_slot(rsrc() + RREC, 6, 6, 0x5E);
        }
        if (i == 5) {
            put_slot(rsrc(), 6, 6, 0x5F);
            k.len = RREC - RTOPO__RT_HDR + 1;         /* more than a payload */
        }
        memset(rdst(), 0x21, (size_t)k.len);
        memcpy(before, rdst(), sizeof(before));
        rc = rtopo__kern_run(&k, bufs);
        switch (i) {
        case 0:
        case 1: {
            uint8_t want[11];

            memset(want, i ? 0x5B : 0x5A, sizeof(want));
            TU_CHECK(rc == RTOPO_OK && !memcmp(rdst(), want, 11) &&
                     guards_ok(RTOPO__BUF_TMP, RDO, 11), "unpack case %d: rc %d", i, rc);
            break;
        }
        case 2:   /* nothing: nothing written */
            TU_CHECK(rc == RTOPO_OK && !memcmp(rdst(), before, 11),
                     "unpack of nothing: rc %d, written", rc);
            break;
        case 3:
            TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "ends on rank 6"),
                     "unpack misplaced: rc %d \"%s\"", rc, rtopo_last_error());
            break;
        case 4:
            TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "two records"),
                     "unpack two: rc %d \"%s\"", rc, rtopo_last_error());
            break;
        default:
            TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "do not fit"),
                     "unpack too long: rc %d \"%s\"", rc, rtopo_last_error());
            break;
        }
    }
    /* GOT: int32 1 when the source holds a record */
    for (i = 0; i < 3; i++) {
        rtopo__kern_t k = rkern(RTOPO__RT_GOT, 0, 2 * RREC, 4, 0);
        int32_t got;

        reset();
        put_empty(rsrc());
        put_empty(rsrc() + RREC);
        if (i)
            put_slot(rsrc() + (i == 2 ? RREC : 0), 3, 3, 0x31);
        rc = rtopo__kern_run(&k, bufs);
        memcpy(&got, rdst(), 4);
        TU_CHECK(rc == RTOPO_OK && got == (i > 0) && guards_ok(RTOPO__BUF_TMP, RDO, 4),
                 "got case %d: rc %d, %d", i, rc, got);
    }
    /* PACK: the one record (or an empty slot) into one slot; two fail */
    for (i = 0; i < 3; i++) {
        rtopo__kern_t k = rkern(RTOPO__RT_PACK, 0, 2 * RREC, RREC, 0);

        reset();
        put_empty(rsrc());
        put_empty(rsrc() + RREC);
        if (i >= 1)
            put_slot(rsrc() + RREC, 8, 12, 0x41);
        if (i == 2)
            put_slot(rsrc(), 1, 1, 0x42);
        rc = rtopo__kern_run(&k, bufs);
        if (i < 2)
            TU_CHECK(rc == RTOPO_OK && (i ? !memcmp(rdst(), rsrc() + RREC, RREC) :
                                        is_zero(rdst(), RREC)) &&
                     guards_ok(RTOPO__BUF_TMP, RDO, RREC), "pack case %d: rc %d", i, rc);
        else
            TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "two records"),
                     "pack two: rc %d \"%s\"", rc, rtopo_last_error());
    }
    /* malformed: slots not whole int64 or shorter than a header, an unknown
     * step, a source overlapping the destination */
    {
        rtopo__kern_t k = rkern(RTOPO__RT_GOT, 0, 2 * RREC, 4, 0);

        reset();
        k.rec = 12;
        TU_CHECK(rtopo__kern_run(&k, bufs) == RTOPO_ERR_INVAL &&
                 strstr(rtopo_last_error(), "slots"), "route rec 12: \"%s\"",
                 rtopo_last_error());
        k.rec = RREC + 4;
        TU_CHECK(rtopo__kern_run(&k, bufs) == RTOPO_ERR_INVAL, "route rec 36");
        k.rec = RREC;
        k.op = 0;
        TU_CHECK(rtopo__kern_run(&k, bufs) == RTOPO_ERR_INVAL &&
                 strstr(rtopo_last_error(), "route step"), "route op 0: \"%s\"",
                 rtopo_last_error());
        k.op = RTOPO__RT_COUNT;
        TU_CHECK(rtopo__kern_run(&k, bufs) == RTOPO_ERR_INVAL, "route op COUNT");
        k.op = RTOPO__RT_GOT;
        k.dst_buf = RTOPO__BUF_SEND;
        k.dst_off = RSO + 2 * RREC - 4;     /* the source's last 4 bytes */
        TU_CHECK(rtopo__kern_run(&k, bufs) == RTOPO_ERR_INVAL &&
                 strstr(rtopo_last_error(), "overlap"), "route overlap: \"%s\"",
                 rtopo_last_error());
        k.dst_off = RSO + 2 * RREC;         /* right after it: fine */
        put_empty(rsrc());
        put_empty(rsrc() + RREC);
        TU_CHECK(rtopo__kern_run(&k, bufs) == RTOPO_OK, "route touching ranges: \"%s\"",
                 rtopo_last_error());
    }
}

/* an open record from rank `from` for every index from lo on */
static void put_open(uint8_t *p, int64_t lo, int64_t from, uint8_t fill)
{
    put_slot(p, lo, -from - 1, fill);
}

/* The single-routing generalize: open records on a line (every position
 * from their first on), HOPEN, BEST, and UNPACK of an open record */
static void test_route_open(void)
{
    static const struct {
        int xf, view, R, g;
        int64_t lo;
        int x0, x1;         /* s = 4; x0 -1: not on this line */
    } c[] = {
        { RTOPO__RT_XDIV, RTOPO__RT_VROWS, 0, 0, 70, 1, 3 },      /* 4..15 */
        { RTOPO__RT_XDIV, RTOPO__RT_VINROW, 1, 0, 70, 0, 3 },
        { RTOPO__RT_XDIV, RTOPO__RT_VINROW, 0, 0, 70, -1, -1 },   /* row 0 is before */
        { RTOPO__RT_XDIV, RTOPO__RT_VINROW, 2, 0, 70, 0, 3 },
        { RTOPO__RT_XGRP, RTOPO__RT_VROWS, 0, 2, 20, 0, 3 },      /* from before group 2 */
        { RTOPO__RT_XGRP, RTOPO__RT_VINROW, 2, 2, 41, 1, 3 },     /* 9.. */
        { RTOPO__RT_XGRP, RTOPO__RT_VROWS, 0, 2, 48, -1, -1 },    /* after group 2 */
        { RTOPO__RT_XGRP, RTOPO__RT_VROWS, 0, 15, 255, 3, 3 },    /* the last index */
    };
    size_t i;
    int me, pred, rc;

    /* MOVE and PRUNE see an open record up to the end of the line */
    for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
        for (me = 0; me < 4; me++)
            for (pred = RTOPO__RT_KEEP; pred <= RTOPO__RT_MINUS; pred++) {
                unsigned fl = (unsigned)(pred | c[i].xf << 2 | c[i].view << 4);
                rtopo__kern_t k = rkern(RTOPO__RT_MOVE, fl | RTOPO__RT_CLEAR, RREC, RREC,
                                        rarg(me, c[i].R, c[i].g, 4));
                int has = c[i].x0 >= 0;
                int moved = has && (pred == RTOPO__RT_KEEP ? c[i].x0 <= me && me <= c[i].x1 :
                                    pred == RTOPO__RT_PLUS ? c[i].x1 > me : c[i].x0 < me);

                reset();
                put_open(rsrc(), c[i].lo, 5, 0x50 + (uint8_t)i);
                rc = rtopo__kern_run(&k, bufs);
                if (!TU_CHECK(rc == RTOPO_OK && (moved ? !memcmp(rdst(), rsrc(), RREC) :
                                                 is_zero(rdst(), RREC)),
                              "open case %zu (xf %d view %d R %d g %d lo %lld) me %d pred "
                              "%d: rc %d, %s expected", i, c[i].xf, c[i].view, c[i].R,
                              c[i].g, (long long)c[i].lo, me, pred, rc,
                              moved ? "a move" : "no move"))
                    return;
            }
    {   /* PRUNE up only: an open record that starts above fails */
        rtopo__kern_t k = rkern(RTOPO__RT_PRUNE, RTOPO__RT_PLUS | RTOPO__RT_XDIV << 2 |
                                RTOPO__RT_VROWS << 4, 0, RREC, rarg(2, 0, 0, 4));

        reset();
        put_open(rdst(), 70, 1, 0x61);                  /* rows 1..3 */
        rc = rtopo__kern_run(&k, bufs);
        TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "cannot reach"),
                 "prune open record from row 1 at row 2, up only: rc %d", rc);
        put_open(rdst(), 130, 1, 0x61);                 /* rows 2..3: kept */
        rc = rtopo__kern_run(&k, bufs);
        TU_CHECK(rc == RTOPO_OK && get64(rdst()) == 131, "prune open record at row 2: rc %d",
                 rc);
        put_open(rdst(), 200, 1, 0x61);                 /* row 3: passed on, emptied */
        rc = rtopo__kern_run(&k, bufs);
        TU_CHECK(rc == RTOPO_OK && is_zero(rdst(), RREC), "prune open record of row 3: rc %d",
                 rc);
    }
    {   /* HOPEN: tag d + 1, hi -me - 1; d >= p or 0 <= d < me fail */
        static const int64_t ds[6] = { 7, 3, -1, INT64_MIN, 16, 2 };

        for (i = 0; i < 6; i++) {
            rtopo__kern_t k = rkern(RTOPO__RT_HOPEN, 0, 8, RTOPO__RT_HDR, 3 | (int64_t)16 << 32);

            reset();
            put64(rsrc(), ds[i]);
            rc = rtopo__kern_run(&k, bufs);
            if (i < 4)
                TU_CHECK(rc == RTOPO_OK && get64(rdst()) == (ds[i] >= 0 ? ds[i] + 1 : 0) &&
                         get64(rdst() + 8) == -4 &&
                         guards_ok(RTOPO__BUF_TMP, RDO, RTOPO__RT_HDR),
                         "hopen %lld: rc %d, %lld %lld", (long long)ds[i], rc,
                         (long long)get64(rdst()), (long long)get64(rdst() + 8));
            else
                TU_CHECK(rc == RTOPO_ERR_INVAL &&
                         strstr(rtopo_last_error(), i == 4 ? "not a rank" : "before it"),
                         "hopen %lld: rc %d \"%s\"", (long long)ds[i], rc,
                         rtopo_last_error());
        }
    }
    /* BEST at row 1 (XDIV, ROWS, s = 4: rows of lo / 16 / 4): the record
     * with the largest lo among those that reach row 1 */
    {
        static const struct {
            int64_t have, have_from, in, in_from;   /* lo, -1: none */
            int want;           /* 0 keep what it has, 1 take the new one, -1 fail */
        } b[] = {
            { -1, 0, 70, 2, 1 },        /* nothing yet */
            { 20, 0, 70, 2, 1 },        /* a later one that reaches row 1 */
            { 70, 2, 20, 0, 0 },        /* an earlier one */
            { 20, 0, 130, 4, 0 },       /* a later one for row 2 on: passes by */
            { -1, 0, 130, 4, 0 },
            { 70, 2, -1, 0, 0 },        /* nothing passes */
            { 70, 2, 20, 3, -1 },       /* rank 3 before rank 2 */
            { 20, 0, 20, 1, -1 },       /* two senders, one destination */
            { 70, 2, 70, 2, 0 },        /* the same record */
            { 20, 0, 130, 1, 0 },       /* checked where they meet: in order */
            { 130, 4, 70, 6, -1 },      /* not in order, though neither is kept */
        };

        for (i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
            rtopo__kern_t k = rkern(RTOPO__RT_BEST, RTOPO__RT_XDIV << 2 | RTOPO__RT_VROWS << 4,
                                    RREC, 2 * RREC, rarg(1, 0, 0, 4));
            uint8_t want[2 * RREC];

            reset();
            if (b[i].in >= 0)
                put_open(rsrc(), b[i].in, b[i].in_from, 0x71);
            else
                put_empty(rsrc());
            memset(rdst(), 0, 2 * RREC);
            if (b[i].have >= 0)
                put_open(rdst() + (i % 2 ? RREC : 0), b[i].have, b[i].have_from, 0x72);
            memcpy(want, rdst(), sizeof(want));
            if (b[i].want > 0) {
                memset(want, 0, sizeof(want));
                memcpy(want, rsrc(), RREC);
            }
            rc = rtopo__kern_run(&k, bufs);
            if (b[i].want < 0)
                TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "not increasing"),
                         "best case %zu: rc %d \"%s\"", i, rc, rtopo_last_error());
            else
                TU_CHECK(rc == RTOPO_OK && !memcmp(rdst(), want, sizeof(want)) &&
                         guards_ok(RTOPO__BUF_TMP, RDO, 2 * RREC),
                         "best case %zu: rc %d, %s expected", i, rc,
                         b[i].want ? "the new record" : "no change");
        }
    }
    {   /* BEST: two records held fail; a destination shorter than a slot */
        rtopo__kern_t k = rkern(RTOPO__RT_BEST, RTOPO__RT_XDIV << 2 | RTOPO__RT_VROWS << 4,
                                RREC, 2 * RREC, rarg(1, 0, 0, 4));

        reset();
        put_open(rsrc(), 70, 2, 0x71);
        put_open(rdst(), 20, 0, 0x72);
        put_open(rdst() + RREC, 30, 1, 0x73);
        rc = rtopo__kern_run(&k, bufs);
        TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "two records"),
                 "best with two records held: rc %d \"%s\"", rc, rtopo_last_error());
        k.len = RREC - 8;
        rc = rtopo__kern_run(&k, bufs);
        TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "destination bytes"),
                 "best into %u bytes: rc %d \"%s\"", RREC - 8, rc, rtopo_last_error());
    }
    /* UNPACK: an open record belongs on every rank from lo on */
    for (i = 0; i < 2; i++) {
        rtopo__kern_t k = rkern(RTOPO__RT_UNPACK, 0, 2 * RREC, 11, 6);
        uint8_t want[11];

        reset();
        put_empty(rsrc());
        put_open(rsrc() + RREC, i ? 7 : 2, 1, 0x5A);
        memset(want, 0x5A, sizeof(want));
        rc = rtopo__kern_run(&k, bufs);
        if (i)
            TU_CHECK(rc == RTOPO_ERR_INVAL && strstr(rtopo_last_error(), "ends on rank 6"),
                     "unpack open record for 7 on 6: rc %d \"%s\"", rc, rtopo_last_error());
        else
            TU_CHECK(rc == RTOPO_OK && !memcmp(rdst(), want, 11),
                     "unpack open record for 2 on 6: rc %d", rc);
    }
}

/* KEYOF: a random access target as a sort key; arg > 0 (the topology's
 * size) rejects a target beyond the last rank */
static void test_route_keyof(void)
{
    static const struct { int64_t in, arg, want; int rc; } c[] = {
        { 5, 16, 5, RTOPO_OK }, { 0, 16, 0, RTOPO_OK }, { 15, 16, 15, RTOPO_OK },
        { -1, 16, INT64_MAX, RTOPO_OK }, { INT64_MIN, 16, INT64_MAX, RTOPO_OK },
        { 16, 16, 0, RTOPO_ERR_INVAL }, { INT64_MAX, 16, 0, RTOPO_ERR_INVAL },
        { 99, 0, 99, RTOPO_OK },
    };
    size_t i;

    for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        rtopo__kern_t k = rkern(RTOPO__RT_KEYOF, 0, 8, 8, c[i].arg);
        int rc;

        reset();
        put64(rsrc(), c[i].in);
        put64(rdst(), -7);
        rc = rtopo__kern_run(&k, bufs);
        TU_CHECK(rc == c[i].rc && (rc ? get64(rdst()) == -7 &&
                                   strstr(rtopo_last_error(), "is not a rank") :
                                   get64(rdst()) == c[i].want),
                 "keyof %lld (arg %lld): rc %d, %lld \"%s\"", (long long)c[i].in,
                 (long long)c[i].arg, rc, (long long)get64(rdst()), rtopo_last_error());
    }
}

/* A schedule holds its kernels compact: kernels of one shape share one
 * entry of its table, whatever their rank, step and arg, and read back
 * as written; a join maps the later phase's shapes into the earlier's
 * table; a rank's share keeps only the shapes of its own kernels. */
static void test_compact(void)
{
    rtopo__tdesc_t t;
    rtopo__sched_t *a = NULL, *b = NULL, *j = NULL;
    rtopo__kern_t k, r;
    uint32_t i, k0;

    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_RING, 4, 0, 0) == RTOPO_OK);
    CU_ASSERT_FATAL(rtopo__sched_alloc(&t, 0, 0, &a) == RTOPO_OK &&
                    rtopo__sched_alloc(&t, 0, 0, &b) == RTOPO_OK);
    CU_ASSERT_FATAL(rtopo__sched_add_kerns(a, 8, &k0) == RTOPO_OK && k0 == 0);
    for (i = 0; i < 8; i++) {
        memset(&k, 0, sizeof(k));
        k.rank = (int32_t)(i % 4);
        k.type = RTOPO__KERN_FILL;
        k.dtype = RTOPO_INT64;
        k.step = i / 4;
        k.dst_buf = RTOPO__BUF_TMP;
        k.dst_off = 8 * (i % 2);
        k.len = 8;
        k.arg = (int64_t)i - 3;
        CU_ASSERT_FATAL(rtopo__sched_kset(a, i, &k) == RTOPO_OK);
    }
    /* the zero shape of the kernels as added, and two written */
    CU_ASSERT(a->kshapes->n == 3);
    for (i = 0; i < 8; i++) {
        r = rtopo__sched_kern(a, i);
        CU_ASSERT(r.rank == (int32_t)(i % 4) && r.step == i / 4 && r.arg == (int64_t)i - 3 &&
                  r.type == RTOPO__KERN_FILL && r.dst_off == 8 * (i % 2) && r.len == 8 &&
                  rtopo__sched_kshape(a, i)->dst_off == r.dst_off);
    }
    k.arg = INT64_MIN + 5;           /* both halves of arg kept */
    CU_ASSERT_FATAL(rtopo__sched_kset(a, 7, &k) == RTOPO_OK);
    CU_ASSERT(rtopo__sched_kern(a, 7).arg == INT64_MIN + 5);
    k.arg = 4;
    CU_ASSERT_FATAL(rtopo__sched_kset(a, 7, &k) == RTOPO_OK);
    a->tmp_bytes = b->tmp_bytes = 24;
    CU_ASSERT_FATAL(rtopo__sched_add_kerns(b, 2, &k0) == RTOPO_OK && k0 == 0);
    k.rank = 1;
    k.step = 0;
    k.dst_off = 8;                  /* a shape of a's */
    k.arg = 100;
    CU_ASSERT_FATAL(rtopo__sched_kset(b, 0, &k) == RTOPO_OK);
    k.rank = 2;
    k.dst_off = 16;                 /* a new one */
    k.arg = 101;
    CU_ASSERT_FATAL(rtopo__sched_kset(b, 1, &k) == RTOPO_OK);
    CU_ASSERT_FATAL(rtopo__sched_concat(a, b, 0, &j) == RTOPO_OK);
    CU_ASSERT_FATAL(j->nkerns == 10);
    CU_ASSERT(j->kshapes->n == 4);
    for (i = 0; i < 10; i++) {
        r = rtopo__sched_kern(j, i);
        CU_ASSERT(r.rank == (i < 8 ? (int32_t)(i % 4) : (int32_t)i - 7) &&
                  r.arg == (i < 8 ? (int64_t)i - 3 : 92 + (int64_t)i) &&
                  r.dst_off == (i < 8 ? 8 * (i % 2) : 8 * (i - 7)) && r.len == 8 &&
                  r.type == RTOPO__KERN_FILL && (i >= 8 || r.step == i / 4));
    }
    CU_ASSERT(rtopo__sched_validate(j) == RTOPO_OK);
    /* rank 1: kernels 1, 5 and 8, all of one shape */
    CU_ASSERT_FATAL(rtopo__sched_own(j, 1) == RTOPO_OK);
    CU_ASSERT(j->nkerns == 3 && j->kshapes->n == 1 && j->kshapes->v[0].dst_off == 8);
    for (i = 0; i < j->nkerns; i++)
        CU_ASSERT(j->kerns[i].rank == 1 && j->kerns[i].shape == 0);
    CU_ASSERT(rtopo__knode_arg(&j->kerns[0]) == -2 && rtopo__knode_arg(&j->kerns[1]) == 2 &&
              rtopo__knode_arg(&j->kerns[2]) == 100);
    CU_ASSERT(rtopo__sched_validate(j) == RTOPO_OK);
    /* a shape out of the table is refused */
    j->kerns[0].shape = 1;
    CU_ASSERT(rtopo__sched_validate(j) == RTOPO_ERR_INVAL);
    rtopo__sched_free(j);
}

/* The interning table under both kinds of node: equal shapes get one
 * index, a table of one size refuses a shape of another, a done table
 * (no index) takes new shapes again, and a trim keeps the shapes in use
 * in the order of first use. */
static void test_shape_table(void)
{
    rtopo__shapes_t *t = NULL;
    uint64_t a[4] = { 1, 2, 3, 4 }, b[4] = { 1, 2, 3, 5 }, c[6] = { 0 };
    struct tnode { uint32_t pad, shape; } nodes[5];
    uint32_t i;

    CU_ASSERT(rtopo__shapes_put(&t, a, sizeof(a)) == 0);
    CU_ASSERT(rtopo__shapes_put(&t, b, sizeof(b)) == 1);
    CU_ASSERT(rtopo__shapes_put(&t, a, sizeof(a)) == 0);
    CU_ASSERT(rtopo__shapes_put(&t, c, sizeof(c)) == UINT32_MAX);
    CU_ASSERT(rtopo__shapes_put(&t, a, sizeof(a) - 4) == UINT32_MAX);
    CU_ASSERT_FATAL(t && t->n == 2 && t->esz == sizeof(a) && t->cap >= 2);
    rtopo__shapes_done(&t);
    CU_ASSERT_FATAL(t && t->cap == 0 && t->n == 2);
    CU_ASSERT(rtopo__shapes_bytes(t) == sizeof(*t) + 2 * sizeof(a));
    CU_ASSERT(rtopo__shapes_put(&t, b, sizeof(b)) == 1);
    a[0] = 9;
    for (i = 0; i < 40; i++) {          /* grown past its first room */
        a[1] = i;
        CU_ASSERT(rtopo__shapes_put(&t, a, sizeof(a)) == 2 + i);
    }
    a[1] = 7;
    CU_ASSERT(rtopo__shapes_put(&t, a, sizeof(a)) == 9);
    CU_ASSERT(rtopo__shapes_put(&t, b, sizeof(b)) == 1);
    /* nodes using shapes 30, 1, 30, 9, 1: kept as 0, 1, 0, 2, 1 */
    nodes[0].shape = 30, nodes[1].shape = 1, nodes[2].shape = 30;
    nodes[3].shape = 9, nodes[4].shape = 1;
    CU_ASSERT_FATAL(rtopo__shapes_trim(&t, nodes, 5, sizeof(nodes[0]),
                                       offsetof(struct tnode, shape)) == RTOPO_OK);
    CU_ASSERT_FATAL(t && t->n == 3 && t->cap == 0);
    CU_ASSERT(nodes[0].shape == 0 && nodes[1].shape == 1 && nodes[2].shape == 0 &&
              nodes[3].shape == 2 && nodes[4].shape == 1);
    CU_ASSERT(t->v[0] == 9 && t->v[1] == 28 && t->v[4] == 1 && t->v[7] == 5 &&
              t->v[8] == 9 && t->v[9] == 7);
    CU_ASSERT(rtopo__shapes_trim(&t, nodes, 0, sizeof(nodes[0]), 4) == RTOPO_OK && !t);
    rtopo__shapes_free(&t);
}

int tu_suite_kernel(void)
{
    CU_pSuite s = CU_add_suite("kernel", NULL, NULL);

    if (!s || !CU_add_test(s, "names and sizes", test_names) ||
        !CU_add_test(s, "fill", test_fill) ||
        !CU_add_test(s, "combine", test_combine) ||
        !CU_add_test(s, "combine long", test_combine_long) ||
        !CU_add_test(s, "cmpx", test_cmpx) ||
        !CU_add_test(s, "sort stability", test_sort_stable) ||
        !CU_add_test(s, "sort vs insertion sort", test_sort_random) ||
        !CU_add_test(s, "select", test_select) ||
        !CU_add_test(s, "len 0 and single range", test_len0) ||
        !CU_add_test(s, "malformed kernels", test_inval) ||
        !CU_add_test(s, "route: move", test_route_move) ||
        !CU_add_test(s, "route: prune", test_route_prune) ||
        !CU_add_test(s, "route: norm, xrank and headers", test_route_headers) ||
        !CU_add_test(s, "route: hgen, unpack, got, pack", test_route_ends) ||
        !CU_add_test(s, "route: keyof", test_route_keyof) ||
        !CU_add_test(s, "route: open records, hopen, best", test_route_open) ||
        !CU_add_test(s, "schedules hold kernels compact", test_compact) ||
        !CU_add_test(s, "the table of shapes", test_shape_table))
        return CU_get_error();
    return CUE_SUCCESS;
}
