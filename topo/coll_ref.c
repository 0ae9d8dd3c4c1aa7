/*
 * coll_ref.c - serial reference of the collectives whose schedules
 * coll_build.c and its family files build.
 *
 * Rule: every rank's RECV is computed straight from the definitions in
 * rtopo_sched.h ("collectives"), rank by rank, with no schedule, no route
 * and no link: this is the oracle the generator's schedules are checked
 * against (tests/unit/test_coll.c, rtopo-sim otis --check), so it shares
 * nothing with the builders but the coordinates (cart_sched.c) and the
 * COMBINE kernel (kernel.c), which makes integer sums and products wrap
 * exactly as a schedule's kernels do.
 *
 * Cost, m bytes per register, p ranks, M = mm: O(p*m) for BCAST,
 * WINDOW_BCAST, SCAN, ALLREDUCE and SHIFT_FILL (ALLREDUCE combines once
 * and copies p-1 times), O(p*M*m) for ACCUMULATE, ADJACENT_SUM and
 * CONSEC_SUM, plus one coordinate lookup per rank and term.  Reductions
 * combine in rank order (SCAN, ALLREDUCE) or in line order starting at
 * the rank itself; with exact values (small integers) any order a
 * schedule picks gives the same bytes.  out[r] must not overlap any
 * rank's buffers: the inputs are read after outputs were written.
 *
 * Selection and routing: SELECT_RANK counts the selected ranks before
 * each rank (O(p)); CONCENTRATE, DISTRIBUTE and GENERALIZE read their
 * input from TMP as the caller stages it, find for every rank the rank
 * whose record it receives, if any (O(p)), and copy that record (O(p*R)
 * for records of R bytes, GENERALIZE's repeated copies included).  An
 * input outside the operation's contract (senders that are not ranks
 * 0..q, a destination that is not a rank, destinations that do not
 * increase with the sending rank) is refused with RTOPO_ERR_INVAL,
 * whatever the schedule makes of it.  RANDOM_WRITE and RANDOM_READ take
 * any targets that are ranks (O(p + p*R)).
 *
 * BPC copies each rank's bytes to its destination (O(p*m)); SORT merge
 * sorts the indices of all p*count records by key and origin (O(n log n)
 * comparisons, n = p*count) and copies them out.  rtopo__colsort_steps is
 * the column sort itself on a small matrix of int64, step by step, for
 * tests of the figure.
 *
 * Here are each op's own checks and reference, which its descriptor
 * points to; the checks all ops share and the entries rtopo__coll_ref and
 * rtopo__coll_ref_got, which read the descriptors, are the table's
 * (coll_desc.c).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "rtopo_sched.h"
#include "log.h"
#include "coll_int.h"

/* dst = dst op src over m bytes of c->dtype */
static int rtopo__ref_combine(const rtopo__coll_t *c, uint8_t *dst, const uint8_t *src,
                              uint64_t m)
{
    uint8_t *b[RTOPO__BUF_COUNT] = { (uint8_t *)src, dst, NULL };
    rtopo__kern_t k;

    memset(&k, 0, sizeof(k));
    k.type = RTOPO__KERN_COMBINE;
    k.dtype = (uint8_t)c->dtype;
    k.op = (uint8_t)c->rop;
    k.src_buf = RTOPO__BUF_SEND;
    k.dst_buf = RTOPO__BUF_RECV;
    k.len = m;
    return rtopo__kern_run(&k, b);
}

/* the rank at coordinates c with c[dim] = pos (c is left as it was) */
static int rtopo__ref_at(const rtopo__tdesc_t *t, int *c, int dim, int pos)
{
    int keep = c[dim], r;

    c[dim] = pos;
    r = rtopo__cart_rank(t, c);
    c[dim] = keep;
    return r;
}

static int32_t rtopo__ref_ld32(const uint8_t *p)
{
    int32_t v;

    memcpy(&v, p, sizeof v);
    return v;
}

static int64_t rtopo__ref_ld64(const uint8_t *p)
{
    int64_t v;

    memcpy(&v, p, sizeof v);
    return v;
}

/* every rank's buffers that op reads: SEND, TMP (the staged input of the
 * routing operations) and with recv RECV (what a rank that gets nothing
 * keeps) */
static int rtopo__ref_route_bufs(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                                 uint8_t *const *const *bufs, int recv)
{
    const char *name = rtopo__coll_name(c->op);
    int r, tmp = c->op != RTOPO__COLL_SELECT_RANK;

    if (!bufs)
        return rtopo__error(RTOPO_ERR_INVAL, "%s reference: no buffers", name);
    for (r = 0; r < t->p; r++)
        if (!bufs[r] || !bufs[r][RTOPO__BUF_SEND] || (tmp && !bufs[r][RTOPO__BUF_TMP]) ||
            (recv && !bufs[r][RTOPO__BUF_RECV]))
            return rtopo__error(RTOPO_ERR_INVAL, "%s reference: rank %d has no %s buffer",
                                name, r, !bufs[r] || !bufs[r][RTOPO__BUF_SEND] ? "SEND" :
                                tmp && !bufs[r][RTOPO__BUF_TMP] ? "TMP" : "RECV");
    return RTOPO_OK;
}

/* The source of every rank of a routing operation: the rank whose record
 * lands on r, or -1 (src[0..p)).  CONCENTRATE: the k-th rank with
 * selected != 0 (TMP[0, 4)) sends to rank k; DISTRIBUTE: ranks 0..q,
 * those with dest >= 0 (TMP[0, 8)), send to dest, destinations
 * increasing with the sending rank; GENERALIZE: as DISTRIBUTE, and the
 * record of rank i also covers every rank up to dest[i+1] - 1, or p - 1
 * when i is q; RANDOM_WRITE: every rank with dest >= 0 to dest, the
 * highest such rank where several write to one; RANDOM_READ: every rank
 * with src >= 0 (TMP[0, 8)) gets rank src's record.  Their targets must
 * be ranks. */
static int rtopo__ref_sources(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                              uint8_t *const *const *bufs, int *src)
{
    const char *name = rtopo__coll_name(c->op);
    int p = t->p, i, j, k = 0;
    int64_t d, next, hi, last = -1;   /* last: the highest rank covered so far */

    for (i = 0; i < p; i++)
        src[i] = -1;
    for (i = 0; i < p; i++) {
        if (c->op == RTOPO__COLL_CONCENTRATE) {
            if (rtopo__ref_ld32(bufs[i][RTOPO__BUF_TMP]))
                src[k++] = i;
            continue;
        }
        d = rtopo__ref_ld64(bufs[i][RTOPO__BUF_TMP]);
        if (d < 0)
            continue;
        if (c->op == RTOPO__COLL_RANDOM_WRITE || c->op == RTOPO__COLL_RANDOM_READ) {
            if (d >= p)
                return rtopo__error(RTOPO_ERR_INVAL, "%s reference: rank %d's %s %lld is "
                                    "not a rank (0..%d)", name, i,
                                    c->op == RTOPO__COLL_RANDOM_WRITE ? "destination" :
                                    "source", (long long)d, p - 1);
            if (c->op == RTOPO__COLL_RANDOM_WRITE)
                src[d] = i;         /* ranks in increasing order: the highest wins */
            else
                src[i] = (int)d;
            continue;
        }
        if (i > 0 && rtopo__ref_ld64(bufs[i - 1][RTOPO__BUF_TMP]) < 0)
            return rtopo__error(RTOPO_ERR_INVAL, "%s reference: rank %d sends, rank %d "
                                "before it does not (the senders are ranks 0..q)", name, i,
                                i - 1);
        if (d >= p)
            return rtopo__error(RTOPO_ERR_INVAL, "%s reference: rank %d's destination "
                                "%lld is not a rank (0..%d)", name, i, (long long)d, p - 1);
        if (d <= last)
            return rtopo__error(RTOPO_ERR_INVAL, "%s reference: rank %d's destination "
                                "%lld does not follow rank %lld, the last one reached "
                                "before it", name, i, (long long)d, (long long)last);
        hi = d;
        if (c->op == RTOPO__COLL_GENERALIZE) {
            next = i + 1 < p ? rtopo__ref_ld64(bufs[i + 1][RTOPO__BUF_TMP]) : -1;
            hi = next < 0 ? p - 1 : next - 1;
            if (hi < d)
                return rtopo__error(RTOPO_ERR_INVAL, "%s reference: destinations do not "
                                    "increase (rank %d: %lld, rank %d: %lld)", name, i,
                                    (long long)d, i + 1, (long long)next);
            if (hi >= p)
                hi = p - 1;     /* rank i + 1's own destination is refused next */
        }
        for (j = (int)d; j <= (int)hi; j++)
            src[j] = i;
        last = hi;
    }
    return RTOPO_OK;
}

/* SELECT_RANK into out, or a routing operation into out and/or got (each
 * may be NULL) */
static int rtopo__ref_route(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                            uint8_t *const *const *bufs, uint8_t *const *out, int32_t *got)
{
    int p = t->p, r, st, *src;
    int64_t k = 0;

    if ((st = rtopo__ref_route_bufs(t, c, bufs,
                                    out && c->op != RTOPO__COLL_SELECT_RANK)))
        return st;
    if (out)
        for (r = 0; r < p; r++)
            if (!out[r])
                return rtopo__error(RTOPO_ERR_INVAL, "%s reference: rank %d has no output",
                                    rtopo__coll_name(c->op), r);
    if (c->op == RTOPO__COLL_SELECT_RANK) {
        for (r = 0; r < p; r++) {
            memcpy(out[r], &k, sizeof k);
            k += rtopo__ref_ld32(bufs[r][RTOPO__BUF_SEND]) != 0;
        }
        return RTOPO_OK;
    }
    if (!(src = malloc(sizeof(*src) * (size_t)p)))
        return rtopo__error(RTOPO_ERR_NOMEM, "%s reference: %d ranks",
                            rtopo__coll_name(c->op), p);
    if (!(st = rtopo__ref_sources(t, c, bufs, src)))
        for (r = 0; r < p; r++) {
            if (got)
                got[r] = src[r] >= 0;
            if (out)
                memcpy(out[r], src[r] >= 0 ? bufs[src[r]][RTOPO__BUF_SEND] :
                       bufs[r][RTOPO__BUF_RECV], c->esize);
        }
    free(src);
    return st;
}

/* -1, 0, 1 for the keys at a and b: NaN above every number and equal to
 * every NaN, -0.0 equal to 0.0 */
static int rtopo__ref_key_cmp(int dtype, const uint8_t *a, const uint8_t *b)
{
    double x, y;
    int na, nb;

    switch (dtype) {
    case RTOPO_INT32: {
        int32_t u = rtopo__ref_ld32(a), v = rtopo__ref_ld32(b);

        return (u > v) - (u < v);
    }
    case RTOPO_INT64: {
        int64_t u = rtopo__ref_ld64(a), v = rtopo__ref_ld64(b);

        return (u > v) - (u < v);
    }
    case RTOPO_FLOAT: {
        float u, v;

        memcpy(&u, a, sizeof u);
        memcpy(&v, b, sizeof v);
        x = u;
        y = v;
        break;
    }
    default:
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        break;
    }
    na = x != x;
    nb = y != y;
    if (na || nb)
        return na - nb;
    return (x > y) - (x < y);
}

/* SORT: every record (global index g = rank*count + i) ordered by key
 * (reversed for desc), ties by g; a stable merge sort of the indices,
 * then rank r copies positions r*count .. of the order */
static int rtopo__ref_sort(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           uint8_t *const *const *bufs, uint8_t *const *out)
{
    uint64_t k = c->count, n = (uint64_t)t->p * k, w, lo, i, a, b, mid, hi, *x, *y, *tmp;
    size_t R = c->esize;

    if (n > SIZE_MAX / (2 * sizeof(*x)) ||
        !(x = malloc((size_t)n * 2 * sizeof(*x))))
        return rtopo__error(RTOPO_ERR_NOMEM, "sort reference: %llu records",
                            (unsigned long long)n);
    y = x + n;
    for (i = 0; i < n; i++)
        x[i] = i;
#define RTOPO__REF_REC(g) (bufs[(g) / k][RTOPO__BUF_SEND] + ((g) % k) * R)
    for (w = 1; w < n; w *= 2) {
        for (lo = 0; lo < n; lo += 2 * w) {
            mid = lo + w < n ? lo + w : n;
            hi = lo + 2 * w < n ? lo + 2 * w : n;
            for (a = lo, b = mid, i = lo; i < hi; i++) {
                int cmp = 0;

                if (a < mid && b < hi) {
                    cmp = rtopo__ref_key_cmp(c->dtype, RTOPO__REF_REC(x[a]),
                                             RTOPO__REF_REC(x[b]));
                    if (c->desc)
                        cmp = -cmp;
                }
                /* on equal keys the left run holds the lower indices */
                if (b >= hi || (a < mid && cmp <= 0))
                    y[i] = x[a++];
                else
                    y[i] = x[b++];
            }
        }
        tmp = x;
        x = y;
        y = tmp;
    }
    for (i = 0; i < n; i++)
        memcpy(out[i / k] + (i % k) * R, RTOPO__REF_REC(x[i]), R);
#undef RTOPO__REF_REC
    free(x < y ? x : y);
    return RTOPO_OK;
}

/* the column sort's steps on a copy: a[row*s + col] */
static int rtopo__colsort_cmp(const void *x, const void *y)
{
    int64_t u = *(const int64_t *)x, v = *(const int64_t *)y;

    return (u > v) - (u < v);
}

static void rtopo__colsort_cols(int64_t *a, int64_t *col, int r, int s, int alternate)
{
    int i, j;

    for (j = 0; j < s; j++) {
        for (i = 0; i < r; i++)
            col[i] = a[i * s + j];
        qsort(col, (size_t)r, sizeof(*col), rtopo__colsort_cmp);
        for (i = 0; i < r; i++)
            a[i * s + j] = alternate && (j & 1) ? col[r - 1 - i] : col[i];
    }
}

int rtopo__colsort_steps(int64_t *a, int r, int s, int steps)
{
    int64_t *b;
    int i, j, q, st;

    if (!a || r < 1 || s < 1 || steps < 0 || steps > 7 || r > INT32_MAX / s)
        return rtopo__error(RTOPO_ERR_INVAL, "column sort: %d x %d, %d steps (0..7)", r, s,
                            steps);
    if (!(b = malloc(sizeof(*b) * (size_t)r * (size_t)s)))
        return rtopo__error(RTOPO_ERR_NOMEM, "column sort: %d x %d", r, s);
    for (st = 1; st <= steps; st++) {
        switch (st) {
        case 2:     /* column-major order into row-major places */
        case 4:     /* and back */
            for (q = 0; q < r * s; q++) {
                int cm = (q % r) * s + q / r;   /* q-th place column-major */

                if (st == 2)
                    b[q] = a[cm];
                else
                    b[cm] = a[q];
            }
            memcpy(a, b, sizeof(*b) * (size_t)r * (size_t)s);
            break;
        case 6:
            for (q = 0; q < 2; q++)
                for (j = q; j + 1 < s; j += 2)
                    for (i = 0; i < r; i++)
                        if (a[i * s + j] > a[i * s + j + 1]) {
                            int64_t v = a[i * s + j];

                            a[i * s + j] = a[i * s + j + 1];
                            a[i * s + j + 1] = v;
                        }
            break;
        default:    /* 1, 3, 5 (alternating), 7 */
            rtopo__colsort_cols(a, b, r, s, st == 5);
            break;
        }
    }
    free(b);
    return RTOPO_OK;
}

/* ---- each collective's own checks and reference (its descriptor's
 * ref_check and ref) ---- */

int rtopo__ref_bcast_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c, int *E_p)
{
    if (c->root < 0 || c->root >= t->p)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: root %d out of 0..%d",
                            rtopo__coll_name(c->op), c->root, t->p - 1);
    return RTOPO_OK;
}

int rtopo__ref_bpc_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c, int *E_p)
{
    const char *name = rtopo__coll_name(c->op);
    int s, E;

    if (c->bpc_bits < 0 || c->bpc_bits > 30 || (1 << c->bpc_bits) != t->p)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: a vector of %d bits on %d ranks "
                            "(2^k ranks need k entries)", name, c->bpc_bits, t->p);
    for (s = 0, E = 0; s < c->bpc_bits; s++) {
        if (c->bpc_to[s] < 0 || c->bpc_to[s] >= c->bpc_bits || (E >> c->bpc_to[s]) & 1)
            return rtopo__error(RTOPO_ERR_INVAL, "%s: the destination bits are not a "
                                "permutation of 0..%d", name, c->bpc_bits - 1);
        E |= 1 << c->bpc_to[s];
    }
    return RTOPO_OK;
}

int rtopo__ref_sort_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c, int *E_p)
{
    const char *name = rtopo__coll_name(c->op);

    if (c->dtype < RTOPO_INT32 || c->dtype > RTOPO_DOUBLE ||
        c->esize < rtopo__dtype_size(c->dtype) || c->esize > ((size_t)1 << 30))
        return rtopo__error(RTOPO_ERR_INVAL, "%s: records of %zu bytes keyed by "
                            "datatype %d", name, c->esize, c->dtype);
    if (c->count > ((uint64_t)1 << 40) || (c->mm > 0 && (uint64_t)c->mm < c->count))
        return rtopo__error(RTOPO_ERR_INVAL, "%s: %llu records per rank (column of "
                            "%d)", name, (unsigned long long)c->count, c->mm);
    return RTOPO_OK;
}

int rtopo__ref_window_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c, int *E_p)
{
    const char *name = rtopo__coll_name(c->op);
    int s;

    if (t->kind != RTOPO__TOPO_OTIS_MESH)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "%s: only on an OTIS-mesh, not a %s",
                            name, rtopo__topo_name(t->kind));
    s = rtopo__cart_extent(t, 2);
    if (c->root < 0 || c->root >= t->n)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: root group %d out of 0..%d", name,
                            c->root, t->n - 1);
    if (c->w < 1 || c->w > s || s % c->w)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: window side %d does not divide "
                            "the group side %d", name, c->w, s);
    return RTOPO_OK;
}

/* a line operation: the dimension, then (blocks 1: M registers; 2: M
 * registers that tile the dimension) M; *E_p the extent */
static int rtopo__ref_line_args(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                                int blocks, int *E_p)
{
    const char *name = rtopo__coll_name(c->op);
    int nd = rtopo__cart_ndims(t), E;

    if (c->dim < 0 || c->dim >= nd)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: dimension %d out of 0..%d (%s)",
                            name, c->dim, nd - 1, rtopo__topo_name(t->kind));
    E = rtopo__cart_extent(t, c->dim);
    if (blocks && (c->mm < 1 || c->mm > E))
        return rtopo__error(RTOPO_ERR_INVAL, "%s: M %d out of 1..%d (extent of "
                            "dimension %d)", name, c->mm, E, c->dim);
    if (blocks == 2 && E % c->mm)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: blocks of M %d do not tile "
                            "dimension %d of extent %d", name, c->mm, c->dim, E);
    if (blocks && c->count * c->esize > UINT64_MAX / (uint64_t)c->mm)
        return rtopo__error(RTOPO_ERR_INVAL, "%s: %d blocks of %llu bytes overflow",
                            name, c->mm, (unsigned long long)(c->count * c->esize));
    *E_p = E;
    return RTOPO_OK;
}

int rtopo__ref_fill_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c, int *E_p)
{
    return rtopo__ref_line_args(t, c, 0, E_p);
}

int rtopo__ref_blocks_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c, int *E_p)
{
    return rtopo__ref_line_args(t, c, 1, E_p);
}

int rtopo__ref_tiles_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c, int *E_p)
{
    return rtopo__ref_line_args(t, c, 2, E_p);
}

int rtopo__ref_routing(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                       uint8_t *const *const *bufs, uint8_t *const *out, uint64_t m, int E)
{
    if (!out)
        return rtopo__error(RTOPO_ERR_INVAL, "%s reference: no output",
                            rtopo__coll_name(c->op));
    return rtopo__ref_route(t, c, bufs, out, NULL);
}

int rtopo__ref_bcast(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                     uint8_t *const *const *bufs, uint8_t *const *out, uint64_t m, int E)
{
    int r;

    for (r = 0; r < t->p; r++)
        memcpy(out[r], bufs[c->root][RTOPO__BUF_RECV], m);
    return RTOPO_OK;
}

int rtopo__ref_bpc(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                   uint8_t *const *const *bufs, uint8_t *const *out, uint64_t m, int E)
{
    int r;

    for (r = 0; r < t->p; r++)
        memcpy(out[rtopo__bpc_dest(c, r)], bufs[r][RTOPO__BUF_SEND], m);
    return RTOPO_OK;
}

int rtopo__ref_sorted(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                      uint8_t *const *const *bufs, uint8_t *const *out, uint64_t m, int E)
{
    return rtopo__ref_sort(t, c, bufs, out);
}

/* (G, Px, Py) <- (root, Px mod w, Py mod w); P = Px*s + Py */
int rtopo__ref_window(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                      uint8_t *const *const *bufs, uint8_t *const *out, uint64_t m, int E)
{
    int s = rtopo__cart_extent(t, 2), r, sx, sy, src;

    for (r = 0; r < t->p; r++) {
        sx = (r % t->n) / s;
        sy = (r % t->n) % s;
        src = c->root * t->n + (sx % c->w) * s + sy % c->w;
        memcpy(out[r], bufs[src][RTOPO__BUF_RECV], m);
    }
    return RTOPO_OK;
}

int rtopo__ref_scan(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                    uint8_t *const *const *bufs, uint8_t *const *out, uint64_t m, int E)
{
    int r, st;

    memcpy(out[0], bufs[0][RTOPO__BUF_SEND], m);
    for (r = 1; r < t->p; r++) {
        memcpy(out[r], out[r - 1], m);
        if ((st = rtopo__ref_combine(c, out[r], bufs[r][RTOPO__BUF_SEND], m)))
            return st;
    }
    return RTOPO_OK;
}

int rtopo__ref_allreduce(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                         uint8_t *const *const *bufs, uint8_t *const *out, uint64_t m, int E)
{
    int r, st;

    memcpy(out[0], bufs[0][RTOPO__BUF_SEND], m);
    for (r = 1; r < t->p; r++)
        if ((st = rtopo__ref_combine(c, out[0], bufs[r][RTOPO__BUF_SEND], m)))
            return st;
    for (r = 1; r < t->p; r++)
        memcpy(out[r], out[0], m);
    return RTOPO_OK;
}

int rtopo__ref_shift_fill(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                          uint8_t *const *const *bufs, uint8_t *const *out, uint64_t m,
                          int E)
{
    int co[RTOPO__MAX_DIMS], r, st, src;
    long long x;

    for (r = 0; r < t->p; r++) {
        if ((st = rtopo__cart_coords(t, r, co)))
            return st;
        x = (long long)co[c->dim] - c->disp;
        if (x < 0 || x >= E) {
            memset(out[r], 0, m);
            continue;
        }
        if ((src = rtopo__ref_at(t, co, c->dim, (int)x)) < 0)
            return src;
        memcpy(out[r], bufs[src][RTOPO__BUF_SEND], m);
    }
    return RTOPO_OK;
}

/* The line operations: rank r walks the mm members of its line from
 * coordinate `first` on (mod E), taking each one's register, or with
 * tiles its block j (first: the start of r's block of mm, j: r's place
 * in it; else first is r itself), into block i of out[r] (blocks) or
 * reduced into out[r] in that order. */
static int rtopo__ref_line(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           uint8_t *const *const *bufs, uint8_t *const *out, uint64_t m,
                           int E, int blocks, int tiles)
{
    int co[RTOPO__MAX_DIMS], r, st, src, i, pos, j, first;

    for (r = 0; r < t->p; r++) {
        if ((st = rtopo__cart_coords(t, r, co)))
            return st;
        pos = co[c->dim];
        j = tiles ? pos % c->mm : 0;
        first = pos - j;
        for (i = 0; i < c->mm; i++) {
            uint8_t *to = out[r] + (blocks ? (uint64_t)i * m : 0);
            const uint8_t *in;

            if ((src = rtopo__ref_at(t, co, c->dim, (first + i) % E)) < 0)
                return src;
            in = bufs[src][RTOPO__BUF_SEND] + (uint64_t)j * m;
            if (blocks || !i)
                memcpy(to, in, m);
            else if ((st = rtopo__ref_combine(c, to, in, m)))
                return st;
        }
    }
    return RTOPO_OK;
}

int rtopo__ref_accumulate(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                          uint8_t *const *const *bufs, uint8_t *const *out, uint64_t m,
                          int E)
{
    return rtopo__ref_line(t, c, bufs, out, m, E, 1, 0);
}

int rtopo__ref_adjacent_sum(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                            uint8_t *const *const *bufs, uint8_t *const *out, uint64_t m,
                            int E)
{
    return rtopo__ref_line(t, c, bufs, out, m, E, 0, 0);
}

/* block j of every member of the rank's block */
int rtopo__ref_consec_sum(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                          uint8_t *const *const *bufs, uint8_t *const *out, uint64_t m,
                          int E)
{
    return rtopo__ref_line(t, c, bufs, out, m, E, 0, 1);
}

/* a routing's got: where a record lands */
int rtopo__ref_got(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                   uint8_t *const *const *bufs, int32_t *got)
{
    return rtopo__ref_route(t, c, bufs, NULL, got);
}
