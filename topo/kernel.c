/*
 * kernel.c - the local kernels of a schedule (fill, combine, compare-
 * exchange, sort, select, and the steps of routing tagged records) run
 * over one rank's SEND/RECV/TMP buffers.
 *
 * Elements are loaded and stored with memcpy: ranges may sit at any byte
 * offset.  Integer SUM and PROD wrap (computed in unsigned arithmetic).
 * Keys of FLOAT/DOUBLE records follow a total order in which NaN is
 * greater than every number and equal to every NaN (and -0.0 == 0.0), so
 * CMPX and SORT give the same result everywhere; COMBINE's MIN and MAX on
 * floats use the same order.  Ties keep the destination's (first) value.
 */
#include "config.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

size_t rtopo__dtype_size(int dtype)
{
    switch (dtype) {
    case RTOPO_INT32: return sizeof(int32_t);
    case RTOPO_INT64: return sizeof(int64_t);
    case RTOPO_FLOAT: return sizeof(float);
    case RTOPO_DOUBLE: return sizeof(double);
    default: return 0;
    }
}

static const char *const rtopo__kern_names[RTOPO__KERN_COUNT] = {
    [RTOPO__KERN_FILL] = "fill",
    [RTOPO__KERN_COMBINE] = "combine",
    [RTOPO__KERN_CMPX] = "cmpx",
    [RTOPO__KERN_SORT] = "sort",
    [RTOPO__KERN_SELECT] = "select",
    [RTOPO__KERN_ROUTE] = "route",
};

const char *rtopo__kern_name(int type)
{
    if (type < RTOPO__KERN_FILL || type >= RTOPO__KERN_COUNT)
        return "unknown";
    return rtopo__kern_names[type];
}

/* -1, 0, 1: a < b, a == b, a > b with NaN above everything */
static int rtopo__fcmp(double a, double b)
{
    int na = isnan(a) != 0, nb = isnan(b) != 0;

    if (na || nb)
        return na - nb;
    return (a > b) - (a < b);
}

/* compare the keys (first element of type dtype) at a and b */
static int rtopo__key_cmp(int dtype, const uint8_t *a, const uint8_t *b)
{
    switch (dtype) {
    case RTOPO_INT32: {
        int32_t x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        return (x > y) - (x < y);
    }
    case RTOPO_INT64: {
        int64_t x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        return (x > y) - (x < y);
    }
    case RTOPO_FLOAT: {
        float x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        return rtopo__fcmp(x, y);
    }
    default: {
        double x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        return rtopo__fcmp(x, y);
    }
    }
}

/* is the key at a non-zero?  (NaN is, -0.0 is not) */
static int rtopo__key_nonzero(int dtype, const uint8_t *a)
{
    switch (dtype) {
    case RTOPO_INT32: { int32_t x; memcpy(&x, a, sizeof x); return x != 0; }
    case RTOPO_INT64: { int64_t x; memcpy(&x, a, sizeof x); return x != 0; }
    case RTOPO_FLOAT: { float x; memcpy(&x, a, sizeof x); return x != 0.0f; }
    default: { double x; memcpy(&x, a, sizeof x); return x != 0.0; }
    }
}

static void rtopo__fill(int dtype, uint8_t *d, uint64_t len, int64_t arg)
{
    uint8_t e[8];
    size_t es = rtopo__dtype_size(dtype);
    uint64_t i;
    double v;

    if (!arg) {             /* zeros: any length */
        memset(d, 0, len);
        return;
    }
    switch (dtype) {
    case RTOPO_INT32: { int32_t x = (int32_t)arg; memcpy(e, &x, es); break; }
    case RTOPO_INT64: memcpy(e, &arg, es); break;
    case RTOPO_FLOAT: {
        float x;
        memcpy(&v, &arg, sizeof v);
        x = (float)v;
        memcpy(e, &x, es);
        break;
    }
    default: memcpy(e, &arg, es); break;   /* the bits of a double */
    }
    for (i = 0; i < len; i += es)
        memcpy(d + i, e, es);
}

/* dst[i] = dst[i] op src[i] over the elements of T in len bytes; U: T's
 * unsigned twin for integer arithmetic that wraps.  One loop per type
 * and operator, with nothing in its body but the operation, over
 * pointers that do not alias, so that the compiler vectorizes it (the
 * topology layer is built with a vectorizer cost model that allows it,
 * see configure.ac): a reduction then runs at about the speed of a
 * memory copy.  MIN and MAX on floats keep the order of rtopo__fcmp (NaN
 * above every number) without calling it: b replaces a when b is below
 * (above) a, or when a is NaN and b is not (b is NaN and a is not). */
#define RTOPO__COMBINE_FN(NAME, T, EXPR)                                      \
    static void NAME(uint8_t *restrict d, const uint8_t *restrict s,          \
                     uint64_t len)                                            \
    {                                                                         \
        uint64_t i, n = len / sizeof(T);                                      \
                                                                              \
        for (i = 0; i < n; i++) {                                             \
            T a, b;                                                           \
                                                                              \
            memcpy(&a, d + i * sizeof(T), sizeof a);                          \
            memcpy(&b, s + i * sizeof(T), sizeof b);                          \
            a = (EXPR);                                                       \
            memcpy(d + i * sizeof(T), &a, sizeof a);                          \
        }                                                                     \
    }
#define RTOPO__COMBINE_INT(SFX, T, U)                                         \
    RTOPO__COMBINE_FN(rtopo__sum_##SFX, T, (T)((U)a + (U)b))                   \
    RTOPO__COMBINE_FN(rtopo__prod_##SFX, T, (T)((U)a * (U)b))                  \
    RTOPO__COMBINE_FN(rtopo__min_##SFX, T, b < a ? b : a)                     \
    RTOPO__COMBINE_FN(rtopo__max_##SFX, T, a < b ? b : a)
#define RTOPO__COMBINE_FLT(SFX, T)                                            \
    RTOPO__COMBINE_FN(rtopo__sum_##SFX, T, a + b)                             \
    RTOPO__COMBINE_FN(rtopo__prod_##SFX, T, a * b)                            \
    RTOPO__COMBINE_FN(rtopo__min_##SFX, T,                                    \
                      b < a || (a != a && b == b) ? b : a)                    \
    RTOPO__COMBINE_FN(rtopo__max_##SFX, T,                                    \
                      a < b || (b != b && a == a) ? b : a)

RTOPO__COMBINE_INT(i32, int32_t, uint32_t)
RTOPO__COMBINE_INT(i64, int64_t, uint64_t)
RTOPO__COMBINE_FLT(f32, float)
RTOPO__COMBINE_FLT(f64, double)

typedef void rtopo__combine_fn(uint8_t *restrict, const uint8_t *restrict, uint64_t);

/* [dtype][op]: the operators in the order of enum rtopo_op */
static rtopo__combine_fn *const rtopo__combine_fns[4][4] = {
    { rtopo__sum_i32, rtopo__prod_i32, rtopo__min_i32, rtopo__max_i32 },
    { rtopo__sum_i64, rtopo__prod_i64, rtopo__min_i64, rtopo__max_i64 },
    { rtopo__sum_f32, rtopo__prod_f32, rtopo__min_f32, rtopo__max_f32 },
    { rtopo__sum_f64, rtopo__prod_f64, rtopo__min_f64, rtopo__max_f64 },
};

static void rtopo__combine(int dtype, int op, uint8_t *d, const uint8_t *s,
                           uint64_t len)
{
    int t = dtype == RTOPO_INT32 ? 0 : dtype == RTOPO_INT64 ? 1 :
            dtype == RTOPO_FLOAT ? 2 : 3;
    int o = op == RTOPO_SUM ? 0 : op == RTOPO_PROD ? 1 : op == RTOPO_MIN ? 2 : 3;
    size_t es = rtopo__dtype_size(dtype);
    uint64_t i;

    if (d + len <= s || s + len <= d) {
        rtopo__combine_fns[t][o](d, s, len);
        return;
    }
    /* overlapping ranges (distinct buffers the caller placed so): one
     * element at a time, in order */
    for (i = 0; i + es <= len; i += es)
        rtopo__combine_fns[t][o](d + i, s + i, es);
}

/* > 0 when record a goes after record b: by key (desc & 1: reversed),
 * ties by the int64 at byte seq of each record (seq < 0: none),
 * ascending (desc & 2: descending) */
static int rtopo__rec_cmp(int dtype, int desc, int64_t seq, const uint8_t *a,
                          const uint8_t *b)
{
    int c = rtopo__key_cmp(dtype, a, b);
    int64_t x, y;

    if (desc & 1)
        c = -c;
    if (c || seq < 0)
        return c;
    memcpy(&x, a + seq, sizeof x);
    memcpy(&y, b + seq, sizeof y);
    c = (x > y) - (x < y);
    return desc & 2 ? -c : c;
}

static void rtopo__cmpx(int dtype, int desc, int64_t seq, uint8_t *s, uint8_t *d,
                        uint64_t len, uint32_t rec)
{
    uint8_t t[256];
    uint64_t i, o;

    for (i = 0; i < len; i += rec) {
        if (rtopo__rec_cmp(dtype, desc, seq, s + i, d + i) <= 0)
            continue;
        for (o = 0; o < rec; o += sizeof t) {   /* swap in pieces */
            size_t n = rec - o < sizeof t ? (size_t)(rec - o) : sizeof t;

            memcpy(t, s + i + o, n);
            memcpy(s + i + o, d + i + o, n);
            memcpy(d + i + o, t, n);
        }
    }
}

/* stable bottom-up merge sort of n records of d, through scratch of the
 * same size; a record of the right run goes first only when it strictly
 * precedes the left one */
static int rtopo__sort(int dtype, int desc, int64_t seq, uint8_t *d, uint64_t len,
                       uint32_t rec, int merge)
{
    uint64_t n = len / rec, w, lo, w0 = merge && n % 2 == 0 ? n / 2 : 1;
    uint8_t *tmp, *from = d, *to;

    if (n < 2)
        return RTOPO_OK;
    if (len > SIZE_MAX || !(tmp = malloc((size_t)len)))
        return rtopo__error(RTOPO_ERR_NOMEM, "kernel sort: %llu scratch bytes",
                            (unsigned long long)len);
    to = tmp;
    for (w = w0; w < n; w *= 2) {
        for (lo = 0; lo < n; lo += 2 * w) {
            uint64_t l = lo, m = lo + w < n ? lo + w : n, r = m,
                     hi = m + w < n ? m + w : n, o = lo * rec;

            while (l < m && r < hi) {
                int c = rtopo__rec_cmp(dtype, desc, seq, from + l * rec, from + r * rec);
                uint64_t k = c > 0 ? r++ : l++;

                memcpy(to + o, from + k * rec, rec);
                o += rec;
            }
            memcpy(to + o, from + l * rec, (m - l) * rec);
            o += (m - l) * rec;
            memcpy(to + o, from + r * rec, (hi - r) * rec);
        }
        to = from;
        from = from == d ? tmp : d;
    }
    if (from != d)
        memcpy(d, from, len);
    free(tmp);
    return RTOPO_OK;
}

static void rtopo__select(int dtype, const uint8_t *s, uint8_t *d, uint64_t len,
                          uint32_t rec)
{
    uint64_t i, o = 0;

    for (i = 0; i < len; i += rec)
        if (rtopo__key_nonzero(dtype, s + i)) {
            memcpy(d + o, s + i, rec);
            o += rec;
        }
    memset(d + o, 0, len - o);
}

/* ---- routing slots (see rtopo_sched.h) ---------------------------------- */

static int64_t rtopo__ld64(const uint8_t *p)
{
    int64_t v;

    memcpy(&v, p, sizeof v);
    return v;
}

static void rtopo__st64(uint8_t *p, int64_t v)
{
    memcpy(p, &v, sizeof v);
}

/* the interval [*x0, *x1] of line coordinates of the record at r under
 * flags and arg; 0 when it has none (the record does not belong here) */
static int rtopo__rt_span(const uint8_t *r, unsigned flags, int64_t arg, int64_t *x0,
                          int64_t *x1)
{
    int64_t lo = rtopo__ld64(r) - 1, hi = rtopo__ld64(r + 8);
    int64_t R = (arg >> 16) & 0xffff, g = (arg >> 32) & 0xffff, s = (arg >> 48) & 0xffff;
    int64_t n = s * s, a, b;

    if (((flags >> 2) & 3) == RTOPO__RT_XCUBE) {
        int64_t c = (arg >> 16) & 0x3f, A = (arg >> 32) & 0xffffffff, w = INT64_C(1) << c;
        int64_t base = A >> c >> 1 << c << 1;
        int m0, m1;

        if (hi < 0)
            hi = INT64_MAX;
        if (lo < 0 || hi < lo)
            return 0;
        if (((flags >> 4) & 3) == RTOPO__RT_VBIT) {
            *x0 = *x1 = (lo >> c) & 1;
            return 1;
        }
        m0 = lo <= base + w - 1 && hi >= base;
        m1 = lo <= base + 2 * w - 1 && hi >= base + w;
        *x0 = m0 ? 0 : 1;
        *x1 = m1 ? 1 : 0;
        return m0 || m1;
    }
    if (hi < 0)             /* open: up to the topology's last index */
        hi = s > 0 && n <= INT64_MAX / n ? n * n - 1 : INT64_MAX;
    if (lo < 0 || hi < lo || s < 1)
        return 0;
    switch ((flags >> 2) & 3) {
    case RTOPO__RT_XMOD: a = b = lo % n; break;
    case RTOPO__RT_XDIV: a = lo / n; b = hi / n; break;
    default:
        a = lo > g * n ? lo - g * n : 0;
        b = hi < g * n + n - 1 ? hi - g * n : n - 1;
        break;
    }
    if (a > b || a >= n || b < 0)
        return 0;
    switch ((flags >> 4) & 3) {
    case RTOPO__RT_VCOLPT: *x0 = *x1 = a % s; return 1;
    case RTOPO__RT_VROWS: *x0 = a / s; *x1 = b / s; return 1;
    default:
        if (a > R * s + s - 1 || b < R * s)
            return 0;
        *x0 = a > R * s ? a - R * s : 0;
        *x1 = b < R * s + s - 1 ? b - R * s : s - 1;
        return 1;
    }
}

/* put the record r into a free slot of d[0..len) */
static int rtopo__rt_put(uint8_t *d, uint64_t len, uint32_t rec, const uint8_t *r)
{
    uint64_t o;

    for (o = 0; o + rec <= len; o += rec)
        if (!rtopo__ld64(d + o)) {
            memcpy(d + o, r, rec);
            return RTOPO_OK;
        }
    return rtopo__error(RTOPO_ERR_INVAL, "route: a record for index %lld finds no free "
                        "slot (two records meet: the input breaks the operation's "
                        "order)", (long long)(rtopo__ld64(r) - 1));
}

/* the one full slot of s[0..len) or NULL; *two_p when more are full */
static const uint8_t *rtopo__rt_one(const uint8_t *s, uint64_t len, uint32_t rec, int *two_p)
{
    const uint8_t *one = NULL;
    uint64_t o;

    *two_p = 0;
    for (o = 0; o + rec <= len; o += rec)
        if (rtopo__ld64(s + o)) {
            if (one)
                *two_p = 1;
            else
                one = s + o;
        }
    return one;
}

/* BEST's test of two open records a and b that meet: the destinations
 * must increase with the sending rank (the same sender: the same record) */
static int rtopo__rt_order(const uint8_t *a, const uint8_t *b)
{
    int64_t ia = -rtopo__ld64(a + 8) - 1, ib = -rtopo__ld64(b + 8) - 1;
    int64_t da = rtopo__ld64(a) - 1, db = rtopo__ld64(b) - 1;

    if (ia < 0 || ib < 0 || ia == ib || (ia < ib ? da < db : da > db))
        return RTOPO_OK;
    if (ia > ib) {
        int64_t t = ia;

        ia = ib;
        ib = t;
        t = da;
        da = db;
        db = t;
    }
    return rtopo__error(RTOPO_ERR_INVAL, "generalize: destinations are not increasing "
                        "(rank %lld sends to %lld, rank %lld to %lld)", (long long)ia,
                        (long long)da, (long long)ib, (long long)db);
}

/* Are the ranges of ROUTE kernel k long enough for its step?  The
 * generators never build one that is not; a schedule from elsewhere
 * gets RTOPO_ERR_INVAL instead of a read or write out of bounds. */
int rtopo__route_ok(const rtopo__kern_t *k)
{
    uint64_t rec = k->rec, sl = k->slen, l = k->len, u = k->urec, need_s = 0, need_d = 0;
    uint64_t pay = 0;     /* payload bytes a step reads or writes in a slot */

    switch (k->op) {
    case RTOPO__RT_NORM: need_s = 4; need_d = 8; break;
    case RTOPO__RT_XRANK: need_s = 16; need_d = 8; break;
    case RTOPO__RT_HCONC: need_s = 16; need_d = 16; break;
    case RTOPO__RT_HDIST: need_s = 8; need_d = 16; break;
    case RTOPO__RT_HPREV:
    case RTOPO__RT_HNEXT: need_s = 8; need_d = 24; break;
    case RTOPO__RT_HGEN: need_d = 16; pay = 8; break;
    case RTOPO__RT_HOPEN: need_s = 8; need_d = 16; break;
    case RTOPO__RT_BEST: need_d = rec; break;
    case RTOPO__RT_GOT: need_d = 4; break;
    case RTOPO__RT_KEYOF: need_s = 8; need_d = 8; break;
    case RTOPO__RT_DEDUP: need_d = 8; pay = 8; break;
    case RTOPO__RT_FIELD: need_d = 8; pay = u + 8; break;
    case RTOPO__RT_REHDR:
    case RTOPO__RT_STASH: pay = u + 8; break;
    case RTOPO__RT_LOAD: pay = u + sl; break;
    case RTOPO__RT_JOIN: need_d = 16; pay = u + (l > 16 ? l - 16 : 0); break;
    case RTOPO__RT_TAKE: need_s = 16 + l; break;
    case RTOPO__RT_SPACK:
    case RTOPO__RT_SUNPACK:       /* user records of u bytes, slots end in 8 */
        if (!u || u + 8 > rec)
            return rtopo__error(RTOPO_ERR_INVAL, "kernel route: records of %llu bytes in "
                                "slots of %llu", (unsigned long long)u,
                                (unsigned long long)rec);
        if (k->op == RTOPO__RT_SUNPACK)
            need_s = l / u * rec;
        break;
    case RTOPO__RT_DEAL:
    case RTOPO__RT_UNDEAL: need_s = l; break;
    default: break;
    }
    if (sl < need_s || l < need_d || (pay && RTOPO__RT_HDR + pay > rec))
        return rtopo__error(RTOPO_ERR_INVAL, "kernel route: step %u with %llu source and "
                            "%llu destination bytes in slots of %llu", k->op,
                            (unsigned long long)sl, (unsigned long long)l,
                            (unsigned long long)rec);
    return RTOPO_OK;
}

static int rtopo__route(const rtopo__kern_t *k, const uint8_t *s, uint8_t *d)
{
    uint32_t rec = k->rec;
    int64_t me = k->arg & 0xffff, x0, x1, v;
    const uint8_t *one;
    uint64_t o;
    int st, two, pred = k->flags & 3;

    switch (k->op) {
    case RTOPO__RT_MOVE:
        if (k->flags & RTOPO__RT_CLEAR)
            memset(d, 0, k->len);
        for (o = 0; o + rec <= k->slen; o += rec) {
            const uint8_t *r = s + o;

            if (!rtopo__ld64(r) || !rtopo__rt_span(r, k->flags, k->arg, &x0, &x1))
                continue;
            if (pred == RTOPO__RT_KEEP ? x0 <= me && me <= x1 :
                pred == RTOPO__RT_PLUS ? x1 > me : x0 < me)
                if ((st = rtopo__rt_put(d, k->len, rec, r)))
                    return st;
        }
        return RTOPO_OK;
    case RTOPO__RT_PRUNE:
        /* flags & 3: the directions the sweep passes records on; a record
         * that needs another, or has no place on this line, is lost to
         * the operation: the input broke its order */
        for (o = 0; o + rec <= k->len; o += rec) {
            if (!rtopo__ld64(d + o))
                continue;
            if (!rtopo__rt_span(d + o, k->flags, k->arg, &x0, &x1) ||
                (x1 > me && !(k->flags & RTOPO__RT_PLUS)) ||
                (x0 < me && !(k->flags & RTOPO__RT_MINUS)))
                return rtopo__error(RTOPO_ERR_INVAL, "route: the record for index %lld "
                                    "cannot reach it (the input breaks the operation's "
                                    "order)", (long long)(rtopo__ld64(d + o) - 1));
            if (x0 > me || me > x1)
                memset(d + o, 0, rec);
        }
        return RTOPO_OK;
    case RTOPO__RT_NORM: {
        int32_t f;

        memcpy(&f, s, sizeof f);
        rtopo__st64(d, f != 0);
        return RTOPO_OK;
    }
    case RTOPO__RT_XRANK:
        rtopo__st64(d, rtopo__ld64(s + 8) - rtopo__ld64(s));
        return RTOPO_OK;
    case RTOPO__RT_HCONC:
        v = rtopo__ld64(s + 8);
        rtopo__st64(d, rtopo__ld64(s) ? v : 0);
        rtopo__st64(d + 8, v - 1);
        return RTOPO_OK;
    case RTOPO__RT_HDIST:
        v = rtopo__ld64(s);
        if (v >= k->arg)
            return rtopo__error(RTOPO_ERR_INVAL, "destination %lld is not a rank of the "
                                "topology (0..%lld)", (long long)v,
                                (long long)(k->arg - 1));
        rtopo__st64(d, v >= 0 ? v + 1 : 0);
        rtopo__st64(d + 8, v);
        return RTOPO_OK;
    case RTOPO__RT_HPREV:
        v = rtopo__ld64(s);
        memset(d, 0, k->len);
        if (v >= 0 && k->arg > 0) {
            rtopo__st64(d, k->arg);
            rtopo__st64(d + 8, k->arg - 1);
            rtopo__st64(d + RTOPO__RT_HDR, v);
        }
        return RTOPO_OK;
    case RTOPO__RT_HGEN: {
        int64_t lo = rtopo__ld64(d) - 1, dn;
        const char *what = (k->flags & 1) ? "distribute" : "generalize";

        one = rtopo__rt_one(s, k->slen, rec, &two);
        if (two)
            return rtopo__error(RTOPO_ERR_INVAL, "%s: two successors meet", what);
        if (lo < 0 && one)
            return rtopo__error(RTOPO_ERR_INVAL, "%s: the senders are not ranks 0..q (a "
                                "rank without a destination before one with %lld)", what,
                                (long long)rtopo__ld64(one + RTOPO__RT_HDR));
        if (lo < 0)
            return RTOPO_OK;
        dn = one ? rtopo__ld64(one + RTOPO__RT_HDR) : k->arg;
        if (dn <= lo)
            return rtopo__error(RTOPO_ERR_INVAL, "%s: destinations are not increasing "
                                "(%lld, then %lld)", what, (long long)lo, (long long)dn);
        if (!(k->flags & 1))
            rtopo__st64(d + 8, dn - 1);
        return RTOPO_OK;
    }
    case RTOPO__RT_UNPACK:
        one = rtopo__rt_one(s, k->slen, rec, &two);
        if (two)
            return rtopo__error(RTOPO_ERR_INVAL, "two records end on rank %lld (the input "
                                "breaks the operation's order)", (long long)k->arg);
        if (!one)
            return RTOPO_OK;
        v = rtopo__ld64(one + 8);       /* < 0: open, no upper end */
        if (rtopo__ld64(one) - 1 > k->arg || (v >= 0 && v < k->arg))
            return rtopo__error(RTOPO_ERR_INVAL, "the record for index %lld ends on rank "
                                "%lld (the input breaks the operation's order)",
                                (long long)(rtopo__ld64(one) - 1), (long long)k->arg);
        if (k->urec > rec - RTOPO__RT_HDR || k->len > rec - RTOPO__RT_HDR - k->urec)
            return rtopo__error(RTOPO_ERR_INVAL, "route: %llu bytes do not fit a slot of "
                                "%u", (unsigned long long)k->len, rec);
        memcpy(d, one + RTOPO__RT_HDR + k->urec, k->len);
        return RTOPO_OK;
    case RTOPO__RT_GOT: {
        int32_t got;

        one = rtopo__rt_one(s, k->slen, rec, &two);
        got = one != NULL;
        memcpy(d, &got, sizeof got);
        return RTOPO_OK;
    }
    case RTOPO__RT_SPACK: {
        /* user records (urec bytes each, slen in all) -> slots of rec
         * bytes with the sequence number arg + i at rec - 8; the rest of
         * dst are pads: the last key of the order, sequence after all */
        uint64_t i, nu = k->urec ? k->slen / k->urec : 0, ns = k->len / rec;
        int desc = (k->flags & RTOPO__KERN_DESC) != 0;

        memset(d, 0, k->len);
        for (i = 0; i < ns; i++) {
            uint8_t *q = d + i * rec;

            if (i < nu) {
                memcpy(q, s + i * k->urec, k->urec);
            } else if (k->dtype == RTOPO_DOUBLE || k->dtype == RTOPO_FLOAT) {
                double dv = desc ? -INFINITY : NAN;
                float fv = (float)dv;

                if (k->dtype == RTOPO_DOUBLE)
                    memcpy(q, &dv, sizeof dv);
                else
                    memcpy(q, &fv, sizeof fv);
            } else if (k->dtype == RTOPO_INT64) {
                int64_t iv = desc ? INT64_MIN : INT64_MAX;

                memcpy(q, &iv, sizeof iv);
            } else {
                int32_t iv = desc ? INT32_MIN : INT32_MAX;

                memcpy(q, &iv, sizeof iv);
            }
            rtopo__st64(q + rec - 8, k->arg + (int64_t)i + (i < nu ? 0 : INT64_C(1) << 56));
        }
        return RTOPO_OK;
    }
    case RTOPO__RT_SUNPACK: {
        /* slots -> user records (len / urec of them) */
        uint64_t i, nu = k->urec ? k->len / k->urec : 0;

        for (i = 0; i < nu; i++)
            memcpy(d + i * k->urec, s + i * rec, k->urec);
        return RTOPO_OK;
    }
    case RTOPO__RT_DEAL:
    case RTOPO__RT_UNDEAL: {
        /* slot i of src to pile i mod arg, place i / arg (DEAL), or back */
        uint64_t i, n = k->len / rec, piles = (uint64_t)k->arg, per;

        if (!piles || n % piles)
            return rtopo__error(RTOPO_ERR_INVAL, "route: %llu slots in %lld piles",
                                (unsigned long long)n, (long long)k->arg);
        per = n / piles;
        for (i = 0; i < n; i++) {
            uint64_t j = (i % piles) * per + i / piles;

            if (k->op == RTOPO__RT_DEAL)
                memcpy(d + j * rec, s + i * rec, rec);
            else
                memcpy(d + i * rec, s + j * rec, rec);
        }
        return RTOPO_OK;
    }
    case RTOPO__RT_KEYOF:
        v = rtopo__ld64(s);
        if (k->arg > 0 && v >= k->arg)
            return rtopo__error(RTOPO_ERR_INVAL, "random access: target %lld is not a rank "
                                "of the topology (0..%lld)", (long long)v,
                                (long long)(k->arg - 1));
        rtopo__st64(d, v >= 0 ? v : INT64_MAX);
        return RTOPO_OK;
    case RTOPO__RT_DEDUP: {
        int32_t keep;

        v = rtopo__ld64(d);
        one = rtopo__rt_one(s, k->slen, rec, &two);
        if (two)
            return rtopo__error(RTOPO_ERR_INVAL, "route: two successors meet");
        keep = v != INT64_MAX && !(one && rtopo__ld64(one + RTOPO__RT_HDR) == v);
        memset(d, 0, 8);
        memcpy(d, &keep, sizeof keep);
        return RTOPO_OK;
    }
    case RTOPO__RT_REHDR:
        for (o = 0; o + rec <= k->len; o += rec)
            if (rtopo__ld64(d + o)) {
                v = rtopo__ld64(d + o + RTOPO__RT_HDR + k->urec);
                rtopo__st64(d + o, v + 1);
                rtopo__st64(d + o + 8, v);
            }
        return RTOPO_OK;
    case RTOPO__RT_HNEXT:
        v = rtopo__ld64(s);
        memset(d, 0, k->len);
        if (v >= 0 && k->arg + 1 < (int64_t)k->urec) {
            rtopo__st64(d, k->arg + 2);
            rtopo__st64(d + 8, k->arg + 1);
            rtopo__st64(d + RTOPO__RT_HDR, v);
        }
        return RTOPO_OK;
    case RTOPO__RT_FIELD:
        one = rtopo__rt_one(s, k->slen, rec, &two);
        if (two)
            return rtopo__error(RTOPO_ERR_INVAL, "route: two records meet");
        rtopo__st64(d, one ? rtopo__ld64(one + RTOPO__RT_HDR + k->urec) : -1);
        return RTOPO_OK;
    case RTOPO__RT_STASH:
    case RTOPO__RT_LOAD:
        for (o = 0; o + rec <= k->len; o += rec)
            if (rtopo__ld64(d + o)) {
                if (k->op == RTOPO__RT_STASH)
                    rtopo__st64(d + o + RTOPO__RT_HDR + k->urec, k->arg);
                else
                    memcpy(d + o + RTOPO__RT_HDR + k->urec, s, k->slen);
            }
        return RTOPO_OK;
    case RTOPO__RT_JOIN:
        one = rtopo__rt_one(s, k->slen, rec, &two);
        v = rtopo__ld64(d + 8) != INT64_MAX;
        rtopo__st64(d + 8, v);
        if (!v)
            return RTOPO_OK;
        if (!one || two)
            return rtopo__error(RTOPO_ERR_INVAL, "random_read: %s for a reader",
                                two ? "two records" : "no record");
        memcpy(d + 16, one + RTOPO__RT_HDR + k->urec, k->len - 16);
        return RTOPO_OK;
    case RTOPO__RT_TAKE:
        if (rtopo__ld64(s + 8))
            memcpy(d, s + 16, k->len);
        return RTOPO_OK;
    case RTOPO__RT_HOPEN: {
        int64_t r = k->arg & 0xffffffff, p = k->arg >> 32;

        v = rtopo__ld64(s);
        if (v >= p)
            return rtopo__error(RTOPO_ERR_INVAL, "destination %lld is not a rank of the "
                                "topology (0..%lld)", (long long)v, (long long)(p - 1));
        if (v >= 0 && v < r)
            return rtopo__error(RTOPO_ERR_INVAL, "generalize: rank %lld sends to %lld, a "
                                "rank before it (the senders must be the first ranks, "
                                "with increasing destinations)", (long long)r,
                                (long long)v);
        rtopo__st64(d, v >= 0 ? v + 1 : 0);
        rtopo__st64(d + 8, -r - 1);
        return RTOPO_OK;
    }
    case RTOPO__RT_BEST: {
        /* the record this rank keeps: of the one it holds and the one
         * passing, the latest destination that is not beyond it */
        const uint8_t *in = k->slen >= rec && rtopo__ld64(s) ? s : NULL;
        int64_t y0, y1;

        one = rtopo__rt_one(d, k->len, rec, &two);
        if (two)
            return rtopo__error(RTOPO_ERR_INVAL, "generalize: two records meet");
        if (!in)
            return RTOPO_OK;
        if (one && (st = rtopo__rt_order(one, in)))
            return st;
        if (!rtopo__rt_span(in, k->flags, k->arg, &x0, &x1) || x0 > me || me > x1)
            return RTOPO_OK;
        if (one && rtopo__rt_span(one, k->flags, k->arg, &y0, &y1) && y0 <= me &&
            me <= y1 && rtopo__ld64(one) >= rtopo__ld64(in))
            return RTOPO_OK;
        memset(d, 0, k->len);
        memcpy(d, in, rec);
        return RTOPO_OK;
    }
    case RTOPO__RT_PACK:
        one = rtopo__rt_one(s, k->slen, rec, &two);
        if (two)
            return rtopo__error(RTOPO_ERR_INVAL, "two records meet (the input breaks the "
                                "operation's order)");
        memset(d, 0, k->len);
        if (one)
            memcpy(d, one, rec < k->len ? rec : k->len);
        return RTOPO_OK;
    default:
        return rtopo__error(RTOPO_ERR_INVAL, "route step %u unknown", k->op);
    }
}

int rtopo__kern_src(const rtopo__kern_t *k, uint64_t *len)
{
    rtopo__kshape_t h = rtopo__kern_shape(k);

    return rtopo__kshape_src(&h, len);
}

/* do [a, a+alen) and [b, b+blen) intersect? (no overflow) */
static int rtopo__overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return alen && blen && (a >= b ? a - b < blen : b - a < alen);
}

int rtopo__kern_run(const rtopo__kern_t *k, uint8_t *const bufs[RTOPO__BUF_COUNT])
{
    const char *name = rtopo__kern_name(k->type);
    size_t es = rtopo__dtype_size(k->dtype);
    int recs = k->type == RTOPO__KERN_CMPX || k->type == RTOPO__KERN_SORT ||
               k->type == RTOPO__KERN_SELECT;
    uint64_t slen;
    int two = rtopo__kern_src(k, &slen);
    int desc = ((k->flags & RTOPO__KERN_DESC) != 0) |
               ((k->flags & RTOPO__KERN_SEQDESC) ? 2 : 0);
    int64_t seq = (k->flags & RTOPO__KERN_SEQ) ? k->arg : -1;
    uint8_t *s, *d;

    if (k->type < RTOPO__KERN_FILL || k->type >= RTOPO__KERN_COUNT)
        return rtopo__error(RTOPO_ERR_INVAL, "kernel type %u unknown", k->type);
    if (!es)
        return rtopo__error(RTOPO_ERR_INVAL, "kernel %s: datatype %u unknown", name,
                            k->dtype);
    if (k->type == RTOPO__KERN_COMBINE && k->op > RTOPO_MAX)
        return rtopo__error(RTOPO_ERR_INVAL, "kernel %s: operator %u unknown", name,
                            k->op);
    if (seq >= 0 && (k->type == RTOPO__KERN_CMPX || k->type == RTOPO__KERN_SORT) &&
        (uint64_t)seq + 8 > k->rec)
        return rtopo__error(RTOPO_ERR_INVAL, "kernel %s: sequence at byte %lld of %u-byte "
                            "records", name, (long long)seq, k->rec);
    if (k->type == RTOPO__KERN_ROUTE) {
        int st;

        if (k->len && (k->rec < RTOPO__RT_HDR || k->rec % 8))
            return rtopo__error(RTOPO_ERR_INVAL, "kernel route: slots of %u bytes",
                                k->rec);
        if (k->len && (st = rtopo__route_ok(k)))
            return st;
    } else if (recs ? (k->rec < es || k->len % k->rec) :
        (k->len % es && !(k->type == RTOPO__KERN_FILL && !k->arg)))
        return rtopo__error(RTOPO_ERR_INVAL, "kernel %s: %llu bytes are not whole "
                            "%s of %zu bytes", name, (unsigned long long)k->len,
                            recs ? "records" : "elements",
                            recs ? (size_t)k->rec : es);
    if (k->src_buf >= RTOPO__BUF_COUNT || k->dst_buf >= RTOPO__BUF_COUNT)
        return rtopo__error(RTOPO_ERR_INVAL, "kernel %s: buffer %u/%u out of range",
                            name, k->src_buf, k->dst_buf);
    if (!k->len)
        return RTOPO_OK;
    if (!bufs[k->dst_buf] || (two && !bufs[k->src_buf]))
        return rtopo__error(RTOPO_ERR_INVAL, "kernel %s: buffer missing", name);
    if (two && k->src_buf == k->dst_buf &&
        rtopo__overlap(k->src_off, slen, k->dst_off, k->len))
        return rtopo__error(RTOPO_ERR_INVAL, "kernel %s: source and destination "
                            "overlap", name);
    d = bufs[k->dst_buf] + k->dst_off;
    s = two ? bufs[k->src_buf] + k->src_off : NULL;
    switch (k->type) {
    case RTOPO__KERN_FILL: rtopo__fill(k->dtype, d, k->len, k->arg); break;
    case RTOPO__KERN_COMBINE: rtopo__combine(k->dtype, k->op, d, s, k->len); break;
    case RTOPO__KERN_CMPX: rtopo__cmpx(k->dtype, desc, seq, s, d, k->len, k->rec); break;
    case RTOPO__KERN_SORT:
        return rtopo__sort(k->dtype, desc, seq, d, k->len, k->rec,
                           (k->flags & RTOPO__KERN_MERGE) != 0);
    case RTOPO__KERN_ROUTE: return rtopo__route(k, s, d);
    default: rtopo__select(k->dtype, s, d, k->len, k->rec); break;
    }
    return RTOPO_OK;
}
