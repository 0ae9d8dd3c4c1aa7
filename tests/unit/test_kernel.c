/*
 * test_kernel.c - the local kernels (fill, combine, cmpx, sort, select)
 * against references computed here element by element, at aligned and
 * unaligned offsets, and every malformed kernel rtopo__kern_run rejects.
 */
#include "config.h"
#include <math.h>
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

int tu_suite_kernel(void)
{
    CU_pSuite s = CU_add_suite("kernel", NULL, NULL);

    if (!s || !CU_add_test(s, "names and sizes", test_names) ||
        !CU_add_test(s, "fill", test_fill) ||
        !CU_add_test(s, "combine", test_combine) ||
        !CU_add_test(s, "cmpx", test_cmpx) ||
        !CU_add_test(s, "sort stability", test_sort_stable) ||
        !CU_add_test(s, "sort vs insertion sort", test_sort_random) ||
        !CU_add_test(s, "select", test_select) ||
        !CU_add_test(s, "len 0 and single range", test_len0) ||
        !CU_add_test(s, "malformed kernels", test_inval))
        return CU_get_error();
    return CUE_SUCCESS;
}
