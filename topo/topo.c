/*
 * topo.c - topology descriptors, overlay neighbours, Gray codes, edges.
 *
 * Routing rule: none here; this file only says which rank pairs are
 * overlay edges.  Ring: i <-> i+-1 (mod p).  Mesh (rows x cols, rank
 * r*cols + c, wraparound): row links (r, c+-1 mod cols), column links
 * (r+-1 mod rows, c).  Hypercube (p = 2^dim): rank r sits on cube node
 * gray(r), so two ranks are neighbours when their Gray codes differ in one
 * bit, i.e. r ^ r' == 2^(k+1) - 1 for the cube dimension k.  The same
 * cube also carries a second embedding with the ranks as node labels,
 * r <-> r ^ 2^k (link class CUBE_ID): E-cube routes there, because the
 * textbook's congestion-free property holds for shifts of cube labels,
 * not of Gray-coded ranks.  Its links are not overlay neighbours (the
 * runtime connects whatever peers a plan names).  OTIS (rank
 * G*n + P): inside group G the factor network on P, plus the optical link
 * (G,P) <-> (P,G) for G != P.  The OTIS-mesh factor is a sqrt(n) x sqrt(n)
 * mesh without wraparound (P = row*sqrt(n) + col), as in Wang and Sahni,
 * where a circular shift inside a group costs up to sqrt(n) moves.  The
 * OTIS-hypercube factor uses P itself as the cube label (P <-> P ^ 2^k):
 * the OTIS link pairs equal labels, so no Gray map is needed inside groups.
 *
 * Cost formula: every overlay edge is one link; a transfer of m bytes over
 * one edge costs ts + m*tw of its link class (see sim.c).
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

const char *rtopo__topo_name(int kind)
{
    switch (kind) {
    case RTOPO__TOPO_RING:
        return "ring";
    case RTOPO__TOPO_MESH:
        return "mesh";
    case RTOPO__TOPO_HYPERCUBE:
        return "hypercube";
    case RTOPO__TOPO_OTIS_MESH:
        return "otis-mesh";
    case RTOPO__TOPO_OTIS_HYPERCUBE:
        return "otis-hypercube";
    default:
        return "unknown";
    }
}

uint32_t rtopo__gray_inv(uint32_t g)
{
    g ^= g >> 16;
    g ^= g >> 8;
    g ^= g >> 4;
    g ^= g >> 2;
    g ^= g >> 1;
    return g;
}

/* floor(sqrt(v)) for 0 <= v < 2^62, by bisection (no libm in topo/)
 * from hi = 2^ceil(L/2) for v of L bits (hi^2 > v): a few steps for the
 * small v every hop's check asks */
static int rtopo__isqrt(long long v)
{
    long long lo = 0, hi;

    if (v <= 0)
        return 0;
    hi = 1LL << ((64 - __builtin_clzll((unsigned long long)v) + 1) / 2);

    while (hi - lo > 1) {
        long long mid = (lo + hi) / 2;

        if (mid * mid <= v)
            lo = mid;
        else
            hi = mid;
    }
    return (int)lo;
}

static int rtopo__is_pow2(long long v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

static int rtopo__log2(long long v)
{
    int d = 0;

    while ((1LL << d) < v)
        d++;
    return d;
}

/* "1x6 / 2x3 / 3x2 / 6x1" for p (at most 8 shapes, nearest square first) */
static void rtopo__mesh_shapes(int p, char *buf, size_t len)
{
    int r, n = 0, s = rtopo__isqrt(p);
    size_t off = 0;

    buf[0] = '\0';
    /* walk outwards from the square so large p lists the useful shapes */
    for (r = s; r >= 1 && n < 8; r--) {
        if (p % r)
            continue;
        off += snprintf(buf + off, off < len ? len - off : 0, "%s%dx%d",
                        n ? " / " : "", r, p / r);
        n++;
        if (r != p / r && n < 8) {
            off += snprintf(buf + off, off < len ? len - off : 0, " / %dx%d",
                            p / r, r);
            n++;
        }
    }
}

/* "with 6 ranks use a ring or a 2x3 / 3x2 / 1x6 / 6x1 mesh[, ...]" */
static void rtopo__fits(int p, char *buf, size_t len)
{
    char shapes[160];
    size_t off;
    int n = rtopo__isqrt(p);

    rtopo__mesh_shapes(p, shapes, sizeof(shapes));
    off = snprintf(buf, len, "with %d ranks use a ring or a %s mesh", p, shapes);
    if (rtopo__is_pow2(p) && off < len)
        off += snprintf(buf + off, len - off, ", a hypercube of dim %d",
                        rtopo__log2(p));
    if ((long long)n * n == p && n == rtopo__isqrt(n) * rtopo__isqrt(n) &&
        off < len)
        off += snprintf(buf + off, len - off, ", an OTIS-mesh with n %d", n);
    if ((long long)n * n == p && rtopo__is_pow2(n) && off < len)
        snprintf(buf + off, len - off, ", an OTIS-hypercube with n %d", n);
}

int rtopo__tdesc_init(rtopo__tdesc_t *t, int kind, int p, int a, int b)
{
    rtopo__tdesc_t d;
    char fit[400];
    long long need;
    int lo, hi;

    if (!t)
        return rtopo__error(RTOPO_ERR_INVAL, "no descriptor");
    if (p < 1)
        return rtopo__error(RTOPO_ERR_INVAL, "%d ranks: a topology needs at "
                            "least one", p);
    memset(&d, 0, sizeof(d));
    d.kind = kind;
    d.p = p;
    switch (kind) {
    case RTOPO__TOPO_RING:
        break;
    case RTOPO__TOPO_MESH:
        if (a <= 0 || b <= 0)
            return rtopo__error(RTOPO_ERR_INVAL, "mesh %dx%d: rows and "
                                "columns must be at least 1", a, b);
        need = (long long)a * b;
        if (need != p) {
            rtopo__fits(p, fit, sizeof(fit));
            return rtopo__error(RTOPO_ERR_TOPO, "mesh %dx%d needs %lld ranks, "
                                "the job has %d; %s", a, b, need, p, fit);
        }
        d.rows = a;
        d.cols = b;
        break;
    case RTOPO__TOPO_HYPERCUBE:
        if (a < 0 || a > 30)
            return rtopo__error(RTOPO_ERR_INVAL, "hypercube dim %d: must be "
                                "0..30", a);
        if ((1LL << a) != p) {
            rtopo__fits(p, fit, sizeof(fit));
            lo = rtopo__log2(p);
            if ((1LL << lo) > p)
                lo--;
            hi = lo + 1;
            if (rtopo__is_pow2(p))
                return rtopo__error(RTOPO_ERR_TOPO, "hypercube dim %d needs "
                                    "%lld ranks, the job has %d: use dim %d",
                                    a, 1LL << a, p, lo);
            return rtopo__error(RTOPO_ERR_TOPO, "hypercube dim %d needs %lld "
                                "ranks, the job has %d; nearest fitting sizes: "
                                "%lld (dim %d), %lld (dim %d); %s", a, 1LL << a,
                                p, 1LL << lo, lo, 1LL << hi, hi, fit);
        }
        d.dim = a;
        break;
    case RTOPO__TOPO_OTIS_MESH:
    case RTOPO__TOPO_OTIS_HYPERCUBE: {
        int mesh = kind == RTOPO__TOPO_OTIS_MESH;
        const char *name = rtopo__topo_name(kind);
        int ok, k;

        if (a <= 0 || a > 46340)
            return rtopo__error(RTOPO_ERR_INVAL, "%s n %d: must be 1..46340",
                                name, a);
        ok = mesh ? rtopo__isqrt(a) * rtopo__isqrt(a) == a : rtopo__is_pow2(a);
        if (!ok) {
            /* the two nearest valid n around a */
            if (mesh) {
                k = rtopo__isqrt(a);
                lo = k * k;
                hi = (k + 1) * (k + 1);
            } else {
                lo = 1 << (rtopo__log2(a) - 1);
                hi = lo * 2;
            }
            return rtopo__error(RTOPO_ERR_TOPO, "%s n %d: n must be %s; "
                                "nearest: n %d (%lld ranks), n %d (%lld ranks)",
                                name, a, mesh ? "a perfect square (each group "
                                "is a sqrt(n) x sqrt(n) mesh)" :
                                "a power of two (each group is a cube)",
                                lo, (long long)lo * lo, hi, (long long)hi * hi);
        }
        need = (long long)a * a;
        if (need != p) {
            /* valid n bracketing sqrt(p) */
            k = rtopo__isqrt(p);
            if (mesh) {
                lo = rtopo__isqrt(k);
                lo = lo * lo;
                hi = (rtopo__isqrt(k) + 1) * (rtopo__isqrt(k) + 1);
            } else {
                lo = 1 << (rtopo__log2(k + 1) - 1);
                hi = lo * 2;
            }
            rtopo__fits(p, fit, sizeof(fit));
            return rtopo__error(RTOPO_ERR_TOPO, "%s n %d needs %lld ranks, the "
                                "job has %d; fitting sizes near it: %lld (n %d), "
                                "%lld (n %d); %s", name, a, need, p,
                                (long long)lo * lo, lo, (long long)hi * hi, hi,
                                fit);
        }
        d.n = a;
        if (!mesh)
            d.dim = rtopo__log2(a);
        break;
    }
    default:
        return rtopo__error(RTOPO_ERR_INVAL, "unknown topology kind %d", kind);
    }
    *t = d;
    return RTOPO_OK;
}

int rtopo__tdesc_add_host(rtopo__tdesc_t *t)
{
    if (!t || t->kind != RTOPO__TOPO_HYPERCUBE || t->host)
        return rtopo__error(RTOPO_ERR_INVAL, "a host endpoint joins a hypercube "
                            "without one");
    if (t->p == INT32_MAX)
        return rtopo__error(RTOPO_ERR_INVAL, "too many ranks");
    t->host = 1;
    t->p++;
    return RTOPO_OK;
}

int rtopo__topo_neighbors(const rtopo__tdesc_t *t, int rank, int *nbr, int max)
{
    int cand[64], nc = 0, cnt = 0, i, k;

    if (!t || rank < 0 || rank >= t->p || max < 0 || (max > 0 && !nbr))
        return rtopo__error(RTOPO_ERR_INVAL, "bad neighbour query for rank %d",
                            rank);
    if (t->host && rank == t->p - 1) {
        /* the host reaches every node */
        for (i = 0; i < t->p - 1; i++)
            if (i < max)
                nbr[i] = i;
        return t->p - 1;
    }
    if (t->host)
        cand[nc++] = t->p - 1;
    switch (t->kind) {
    case RTOPO__TOPO_RING:
        cand[nc++] = (rank + 1) % t->p;
        cand[nc++] = (rank + t->p - 1) % t->p;
        break;
    case RTOPO__TOPO_MESH: {
        int r = rank / t->cols, c = rank % t->cols;

        cand[nc++] = r * t->cols + (c + 1) % t->cols;
        cand[nc++] = r * t->cols + (c + t->cols - 1) % t->cols;
        cand[nc++] = ((r + 1) % t->rows) * t->cols + c;
        cand[nc++] = ((r + t->rows - 1) % t->rows) * t->cols + c;
        break;
    }
    case RTOPO__TOPO_HYPERCUBE:
        for (k = 0; k < t->dim; k++)
            cand[nc++] = (int)rtopo__gray_inv(rtopo__gray((uint32_t)rank) ^
                                              (1u << k));
        break;
    case RTOPO__TOPO_OTIS_MESH:
    case RTOPO__TOPO_OTIS_HYPERCUBE: {
        int n = t->n, g = rank / n, pp = rank % n, base = g * n;

        if (t->kind == RTOPO__TOPO_OTIS_MESH) {
            int s = rtopo__isqrt(n), r = pp / s, c = pp % s;

            if (c + 1 < s)
                cand[nc++] = base + pp + 1;
            if (c > 0)
                cand[nc++] = base + pp - 1;
            if (r + 1 < s)
                cand[nc++] = base + pp + s;
            if (r > 0)
                cand[nc++] = base + pp - s;
        } else {
            for (k = 0; k < t->dim; k++)
                cand[nc++] = base + (pp ^ (1 << k));
        }
        if (g != pp)
            cand[nc++] = pp * n + g;
        break;
    }
    default:
        return rtopo__error(RTOPO_ERR_INVAL, "unknown topology kind %d",
                            t->kind);
    }
    /* candidates are few (<= 31): dedup against all earlier candidates so
     * the count is right even when max truncates the output */
    for (i = 0; i < nc; i++) {
        int j, dup = cand[i] == rank;

        for (j = 0; j < i && !dup; j++)
            dup = cand[j] == cand[i];
        if (dup)
            continue;
        if (cnt < max)
            nbr[cnt] = cand[i];
        cnt++;
    }
    return cnt;
}

static inline int rtopo__mod(long v, int m)
{
    long r = v % m;

    return (int)(r < 0 ? r + m : r);
}

/* dir +1/-1 step of length one along a cycle of length len; len == 2 makes
 * both directions reach the same node, so either dir is accepted */
static int rtopo__cyc_ok(int from, int to, int dir, int len)
{
    if (len < 2 || (dir != 1 && dir != -1))
        return 0;
    if (len == 2)
        return to == 1 - from;
    return to == rtopo__mod((long)from + dir, len);
}

int rtopo__topo_hop_ok(const rtopo__tdesc_t *t, int from, const rtopo__hop_t *h)
{
    int to = h->to, p = t->p;

    if (from < 0 || from >= p || to < 0 || to >= p || to == from)
        return 0;
    if (t->host) {
        /* HOST links join the host (rank p-1) and a node; overlay links
         * stay among the nodes */
        if (h->link == RTOPO__LINK_HOST)
            return from == p - 1 || to == p - 1;
        if ((from == p - 1 || to == p - 1) && h->link != RTOPO__LINK_RING &&
            h->link != RTOPO__LINK_DIRECT)
            return 0;
    }
    switch (h->link) {
    case RTOPO__LINK_RING:
        return rtopo__cyc_ok(from, to, h->dir, p);
    case RTOPO__LINK_DIRECT:
        return 1;
    case RTOPO__LINK_ROW:
    case RTOPO__LINK_COL: {
        int row = h->link == RTOPO__LINK_ROW;

        if (t->kind == RTOPO__TOPO_MESH) {
            int fr = from / t->cols, fc = from % t->cols;
            int tr = to / t->cols, tc = to % t->cols;

            if (row)
                return fr == tr && rtopo__cyc_ok(fc, tc, h->dir, t->cols);
            return fc == tc && rtopo__cyc_ok(fr, tr, h->dir, t->rows);
        }
        if (t->kind == RTOPO__TOPO_OTIS_MESH) {
            int n = t->n, s = rtopo__isqrt(n);
            int fp = from % n, tp = to % n;

            if (from / n != to / n || (h->dir != 1 && h->dir != -1))
                return 0;
            if (row)
                return fp / s == tp / s && tp % s == fp % s + h->dir;
            return fp % s == tp % s && tp / s == fp / s + h->dir;
        }
        return 0;
    }
    case RTOPO__LINK_CUBE:
        if (h->dim >= 31)
            return 0;
        if (t->kind == RTOPO__TOPO_HYPERCUBE)
            return h->dim < t->dim &&
                   (rtopo__gray((uint32_t)from) ^ rtopo__gray((uint32_t)to)) ==
                   (1u << h->dim);
        if (t->kind == RTOPO__TOPO_OTIS_HYPERCUBE)
            return h->dim < t->dim && from / t->n == to / t->n &&
                   ((from % t->n) ^ (to % t->n)) == (1 << h->dim);
        return 0;
    case RTOPO__LINK_CUBE_ID:
        return t->kind == RTOPO__TOPO_HYPERCUBE && h->dim < t->dim &&
               ((uint32_t)from ^ (uint32_t)to) == (1u << h->dim);
    case RTOPO__LINK_OTIS:
        if (t->kind != RTOPO__TOPO_OTIS_MESH &&
            t->kind != RTOPO__TOPO_OTIS_HYPERCUBE)
            return 0;
        return to == (from % t->n) * t->n + from / t->n;
    default:
        /* LOCAL is not a hop; HOST needs a host endpoint */
        return 0;
    }
}
