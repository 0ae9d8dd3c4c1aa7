/*
 * sim_draw.c - rtopo-sim --draw: the schedule the simulator runs, drawn
 * with gnuplot.
 *
 * Why gnuplot: every layout here has fixed coordinates (a circle, a grid,
 * squares within squares, groups side by side), so no layout engine is
 * needed, only a plotter that draws arrows, circles and text into PNG
 * (pngcairo) and SVG; gnuplot does, it is packaged by Debian
 * (gnuplot-nox) and rtopo-sim scatter --figure already draws with it.
 *
 * What each node holds is found by running the schedule's data movement
 * on labels instead of bytes, step by step as the lock-step rounds go: a
 * byte range carries the set of ranks whose input it came from.  A
 * transfer reads its source when its first hop leaves and writes its
 * destination when its last hop lands; between its hops it is "in
 * transit" at the rank its last hop reached (shown in parentheses).
 * Copies and kernels run after their step's transfers landed; a kernel
 * leaves in its destination the union of the sets it read (a reduction's
 * partial result holds the ranks it combined).  A rank's input is the
 * content of its buffers read before anything wrote it: SEND is shown
 * while some transfer is still to read it, RECV (a broadcast's root)
 * until it is overwritten.  On a schedule with a host endpoint every
 * byte comes from the host, so nodes show how many bytes they hold.
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"
#include "sim_draw.h"

const char *sim_draw_path;
static int sim_draw_done;

int sim_draw_option(int *argc, char **argv)
{
    int i, j = 1, n = *argc;
    const char *path = NULL, *dot;

    for (i = 1; i < n; i++) {
        const char *v = NULL;

        if (!strcmp(argv[i], "--")) {
            while (i < n)
                argv[j++] = argv[i++];
            break;
        }
        if (!strcmp(argv[i], "--draw")) {
            if (i + 1 >= n) {
                fprintf(stderr, "rtopo-sim: --draw needs FILE.png or FILE.svg\n");
                return 2;
            }
            v = argv[++i];
        } else if (!strncmp(argv[i], "--draw=", 7)) {
            v = argv[i] + 7;
        } else {
            argv[j++] = argv[i];
            continue;
        }
        if (path) {
            fprintf(stderr, "rtopo-sim: --draw given twice\n");
            return 2;
        }
        dot = strrchr(v, '.');
        if (!*v || !dot || (strcmp(dot, ".png") && strcmp(dot, ".svg"))) {
            fprintf(stderr, "rtopo-sim: --draw '%s': the file name ends in .png or "
                    ".svg (the format)\n", v);
            return 2;
        }
        path = v;
    }
    argv[j] = NULL;
    *argc = j;
    sim_draw_path = path;
    return 0;
}

/* ---- geometry ---------------------------------------------------------- */

typedef struct pt {
    double x, y;
} pt_t;

/* cos and sin of a in [-2pi, 2pi] by their series (no libm needed) */
static void cos_sin(double a, double *c, double *s)
{
    const double pi = 3.14159265358979323846;
    double x, term, cs = 0, sn = 0;
    int k;

    while (a > pi)
        a -= 2 * pi;
    while (a < -pi)
        a += 2 * pi;
    x = a;
    term = 1;
    for (k = 0; k < 30; k++) {       /* term = x^k / k! */
        switch (k % 4) {
        case 0: cs += term; break;
        case 1: sn += term; break;
        case 2: cs -= term; break;
        default: sn -= term; break;
        }
        term *= x / (k + 1);
    }
    *c = cs;
    *s = sn;
}

static double dsqrt(double v)
{
    double r = v > 1 ? v : 1;
    int i;

    if (v <= 0)
        return 0;
    for (i = 0; i < 60; i++)
        r = 0.5 * (r + v / r);
    return r;
}

/* hypercube of d dimensions, node label v: nested squares (bits 0, 1 the
 * corners, bit 2 the inner or outer square), bits 3.. side by side */
static pt_t cube_pos(uint32_t v, int d)
{
    double sc = d >= 3 && (v & 4) ? 1.2 : 0.5, w = d >= 3 ? 4.2 : 2.2;
    pt_t p;

    p.x = (v & 1 ? sc : -sc);
    p.y = d >= 2 ? (v & 2 ? -sc : sc) : 0;
    if (d == 1)
        p.x = v & 1 ? 0.6 : -0.6;
    /* the copies a little askew, so that the links between them do not
     * run along the links within */
    if (v & 8) {
        p.x += w;
        p.y -= 0.7;
    }
    if (v & 16) {
        p.y -= w;
        p.x += 0.7;
    }
    if (v & 32) {
        p.x += 2 * w + 1.4;
        p.y -= 0.35;
    }
    return p;
}

typedef struct layout {
    int p, nodes;           /* ranks; ranks of the overlay (host apart) */
    int host;               /* 1: rank p-1 is a host endpoint */
    int ident;              /* hypercube: ranks sit on node label = rank */
    int ring;               /* laid out on a circle around (0, 0) */
    pt_t *pos;
    int s;                  /* OTIS-mesh: side of a group */
    double minx, maxx, miny, maxy;
} layout_t;

static int layout_make(const rtopo__sched_t *sc, layout_t *L)
{
    const rtopo__tdesc_t *t = &sc->topo;
    int r, i;

    memset(L, 0, sizeof(*L));
    L->p = t->p;
    L->host = t->host;
    L->nodes = t->p - (t->host ? 1 : 0);
    L->pos = calloc((size_t)t->p, sizeof(*L->pos));
    if (!L->pos)
        return RTOPO_ERR_NOMEM;
    for (i = 0; i < (int)sc->nhops; i++)
        if (sc->hops[i].link == RTOPO__LINK_CUBE_ID)
            L->ident = 1;
    for (r = 0; r < L->nodes; r++) {
        pt_t *q = &L->pos[r];

        switch (t->kind) {
        case RTOPO__TOPO_MESH:
            q->x = r % t->cols;
            q->y = -(double)(r / t->cols);
            break;
        case RTOPO__TOPO_HYPERCUBE:
            *q = cube_pos(L->ident ? (uint32_t)r : rtopo__gray((uint32_t)r), t->dim);
            break;
        case RTOPO__TOPO_OTIS_MESH: {
            int n = t->n, s = 1, G = r / n, P = r % n;
            double gap = 2.4;

            while ((s + 1) * (s + 1) <= n)
                s++;
            L->s = s;
            q->x = (G % s) * (s - 1 + gap) + P % s;
            q->y = -((G / s) * (s - 1 + gap) + P / s);
            break;
        }
        case RTOPO__TOPO_OTIS_HYPERCUBE: {
            int n = t->n, G = r / n, P = r % n, gc = 1;
            double bw = t->dim >= 3 ? 3.6 : 2.0, bh = bw;

            if (t->dim >= 4)
                bw += 1.4;
            if (t->dim >= 5)
                bh += 1.4;
            pt_t c = cube_pos((uint32_t)P, t->dim);

            while (gc * gc < n)
                gc++;
            if (t->dim >= 4)
                bw *= 2;
            if (t->dim >= 5)
                bh *= 2;
            q->x = (G % gc) * (bw + 2.0) + c.x;
            q->y = -((G / gc) * (bh + 2.0)) + c.y;
            break;
        }
        default: {
            double R = L->nodes / 5.5, c, s;

            L->ring = L->nodes > 1;
            if (R < 1.2)
                R = 1.2;
            cos_sin(2 * 3.14159265358979323846 * r / L->nodes, &c, &s);
            q->x = R * s;
            q->y = R * c;
            break;
        }
        }
    }
    L->minx = L->miny = 1e30;
    L->maxx = L->maxy = -1e30;
    for (r = 0; r < L->nodes; r++) {
        if (L->pos[r].x < L->minx) L->minx = L->pos[r].x;
        if (L->pos[r].x > L->maxx) L->maxx = L->pos[r].x;
        if (L->pos[r].y < L->miny) L->miny = L->pos[r].y;
        if (L->pos[r].y > L->maxy) L->maxy = L->pos[r].y;
    }
    if (L->host) {
        L->pos[t->p - 1].x = L->minx - 1.6;
        L->pos[t->p - 1].y = 0.5 * (L->miny + L->maxy);
        L->minx -= 1.6;
    }
    return RTOPO_OK;
}

/* ---- labels: which ranks' input a byte range holds --------------------- */

typedef struct seg {
    uint64_t lo, hi;        /* [lo, hi) */
    uint64_t set;           /* bit r: data from rank r's input */
} seg_t;

typedef struct segmap {     /* written ranges of one buffer, sorted */
    seg_t *v;
    size_t n, cap;
} segmap_t;

typedef struct tracker {
    const rtopo__sched_t *s;
    int p;
    segmap_t *map;          /* [rank * BUF_COUNT + buf] */
    int64_t *init_read;     /* last step input of the buffer was read, -1 */
    uint64_t *extent;       /* bytes of the buffer the schedule touches */
    seg_t **carry;          /* per transfer: what it read */
    size_t *ncarry;
    int failed;
} tracker_t;

static int seg_push(segmap_t *m, uint64_t lo, uint64_t hi, uint64_t set)
{
    if (lo >= hi)
        return 0;
    if (m->n && m->v[m->n - 1].hi == lo && m->v[m->n - 1].set == set) {
        m->v[m->n - 1].hi = hi;
        return 0;
    }
    if (m->n == m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 8;
        seg_t *nv = realloc(m->v, nc * sizeof(*nv));

        if (!nv)
            return -1;
        m->v = nv;
        m->cap = nc;
    }
    m->v[m->n].lo = lo;
    m->v[m->n].hi = hi;
    m->v[m->n].set = set;
    m->n++;
    return 0;
}

/* the labels of [lo, hi) of (rank, buf), offsets relative to lo */
static int tr_read(tracker_t *T, int rank, int buf, uint64_t lo, uint64_t hi,
                   uint32_t step, segmap_t *out)
{
    const segmap_t *m = &T->map[rank * RTOPO__BUF_COUNT + buf];
    uint64_t at = lo, own = rank < 64 ? 1ull << rank : 0;
    size_t i;
    int init = 0;

    out->n = 0;
    for (i = 0; i < m->n && at < hi; i++) {
        const seg_t *g = &m->v[i];

        if (g->hi <= at)
            continue;
        if (g->lo >= hi)
            break;
        if (g->lo > at) {
            init = 1;
            if (seg_push(out, at - lo, g->lo - lo, own))
                return -1;
            at = g->lo;
        }
        if (seg_push(out, at - lo, (g->hi < hi ? g->hi : hi) - lo, g->set))
            return -1;
        at = g->hi < hi ? g->hi : hi;
    }
    if (at < hi) {
        init = 1;
        if (seg_push(out, at - lo, hi - lo, own))
            return -1;
    }
    if (init && (int64_t)step > T->init_read[rank * RTOPO__BUF_COUNT + buf])
        T->init_read[rank * RTOPO__BUF_COUNT + buf] = step;
    return 0;
}

/* write src (offsets relative to lo) over [lo, lo + len) of (rank, buf) */
static int tr_write(tracker_t *T, int rank, int buf, uint64_t lo, uint64_t len,
                    const seg_t *src, size_t nsrc)
{
    segmap_t *m = &T->map[rank * RTOPO__BUF_COUNT + buf], nm = { NULL, 0, 0 };
    uint64_t hi = lo + len;
    size_t i, j;
    int st = 0;

    if (hi > T->extent[rank * RTOPO__BUF_COUNT + buf])
        T->extent[rank * RTOPO__BUF_COUNT + buf] = hi;
    for (i = 0; i < m->n && m->v[i].lo < lo; i++)
        st |= seg_push(&nm, m->v[i].lo, m->v[i].hi < lo ? m->v[i].hi : lo, m->v[i].set);
    for (j = 0; j < nsrc; j++) {
        uint64_t a = lo + src[j].lo, b = lo + src[j].hi;

        st |= seg_push(&nm, a, b < hi ? b : hi, src[j].set);
    }
    for (i = 0; i < m->n; i++)
        if (m->v[i].hi > hi)
            st |= seg_push(&nm, m->v[i].lo > hi ? m->v[i].lo : hi, m->v[i].hi,
                           m->v[i].set);
    free(m->v);
    *m = nm;
    return st ? -1 : 0;
}

static uint64_t seg_union(const segmap_t *m)
{
    uint64_t u = 0;
    size_t i;

    for (i = 0; i < m->n; i++)
        u |= m->v[i].set;
    return u;
}

static void tr_free(tracker_t *T)
{
    int i;

    if (T->map)
        for (i = 0; i < T->p * RTOPO__BUF_COUNT; i++)
            free(T->map[i].v);
    if (T->carry)
        for (i = 0; i < (int)T->s->nxfers; i++)
            free(T->carry[i]);
    free(T->map);
    free(T->init_read);
    free(T->extent);
    free(T->carry);
    free(T->ncarry);
    memset(T, 0, sizeof(*T));
}

static int tr_init(tracker_t *T, const rtopo__sched_t *s)
{
    size_t nb = (size_t)s->topo.p * RTOPO__BUF_COUNT;
    uint32_t i;

    memset(T, 0, sizeof(*T));
    T->s = s;
    T->p = s->topo.p;
    T->map = calloc(nb, sizeof(*T->map));
    T->init_read = malloc(nb * sizeof(*T->init_read));
    T->extent = calloc(nb, sizeof(*T->extent));
    T->carry = calloc(s->nxfers + 1, sizeof(*T->carry));
    T->ncarry = calloc(s->nxfers + 1, sizeof(*T->ncarry));
    if (!T->map || !T->init_read || !T->extent || !T->carry || !T->ncarry) {
        tr_free(T);
        return RTOPO_ERR_NOMEM;
    }
    for (i = 0; i < nb; i++)
        T->init_read[i] = -1;
    /* the extents every range reaches, for "RECV fully overwritten" */
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
        uint64_t *e = &T->extent[x->dst * RTOPO__BUF_COUNT + x->dst_buf];

        if (x->dst_off + x->len > *e)
            *e = x->dst_off + x->len;
        e = &T->extent[x->src * RTOPO__BUF_COUNT + x->src_buf];
        if (x->src_off + x->len > *e)
            *e = x->src_off + x->len;
    }
    return RTOPO_OK;
}

static uint32_t last_step(const rtopo__sched_t *s, const rtopo__xfer_t *x)
{
    return s->hops[x->hop0 + x->nhops - 1].step;
}

/* a local node: a copy (transfer without hops) or a kernel */
static int tr_local(tracker_t *T, uint32_t id, uint32_t step, segmap_t *tmp)
{
    const rtopo__sched_t *s = T->s;

    if (id < s->nxfers) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, id), *x = &xv;

        if (tr_read(T, x->src, x->src_buf, x->src_off, x->src_off + x->len, step, tmp))
            return -1;
        return tr_write(T, x->dst, x->dst_buf, x->dst_off, x->len, tmp->v, tmp->n);
    } else {
        const rtopo__kern_t kv = rtopo__sched_kern(s, id - s->nxfers), *k = &kv;
        uint64_t u = 0, slen = k->type == RTOPO__KERN_ROUTE ? k->slen : k->len;
        seg_t one;
        int reads_src = k->type != RTOPO__KERN_FILL && k->type != RTOPO__KERN_SORT && slen;

        if (k->type != RTOPO__KERN_FILL) {
            if (tr_read(T, k->rank, k->dst_buf, k->dst_off, k->dst_off + k->len, step, tmp))
                return -1;
            u = seg_union(tmp);
        }
        if (reads_src) {
            if (tr_read(T, k->rank, k->src_buf, k->src_off, k->src_off + slen, step, tmp))
                return -1;
            u |= seg_union(tmp);
        }
        one.lo = 0;
        one.hi = k->len;
        one.set = u;
        if (tr_write(T, k->rank, k->dst_buf, k->dst_off, k->len, &one, 1))
            return -1;
        if (k->type == RTOPO__KERN_CMPX) {
            one.hi = k->len;
            return tr_write(T, k->rank, k->src_buf, k->src_off, k->len, &one, 1);
        }
        return 0;
    }
}

/* step t: the transfers leaving in t read, those whose last hop is in t
 * land, then the copies and kernels of t run */
static int tr_step(tracker_t *T, uint32_t t, segmap_t *tmp)
{
    const rtopo__sched_t *s = T->s;
    uint32_t i;

    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;

        if (!x->nhops || s->hops[x->hop0].step != t)
            continue;
        if (tr_read(T, x->src, x->src_buf, x->src_off, x->src_off + x->len, t, tmp))
            return -1;
        T->carry[i] = malloc((tmp->n + 1) * sizeof(seg_t));
        if (!T->carry[i])
            return -1;
        memcpy(T->carry[i], tmp->v, tmp->n * sizeof(seg_t));
        T->ncarry[i] = tmp->n;
    }
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;

        if (x->nhops && last_step(s, x) == t &&
            tr_write(T, x->dst, x->dst_buf, x->dst_off, x->len, T->carry[i], T->ncarry[i]))
            return -1;
    }
    for (i = 0; i < s->nxfers + s->nkerns; i++) {
        uint32_t st = i < s->nxfers ? s->xfers[i].step : s->kerns[i - s->nxfers].step;

        if (i < s->nxfers && rtopo__sched_xnhops(s, i))
            continue;
        if (st == t && tr_local(T, i, t, tmp))
            return -1;
    }
    return 0;
}

/* the last step any node runs in */
static uint32_t sched_span(const rtopo__sched_t *s)
{
    uint32_t i, n = s->nsteps;

    for (i = 0; i < s->nxfers; i++)
        if (!rtopo__sched_xnhops(s, i) && s->xfers[i].step + 1 > n)
            n = s->xfers[i].step + 1;
    for (i = 0; i < s->nkerns; i++)
        if (s->kerns[i].step + 1 > n)
            n = s->kerns[i].step + 1;
    return n;
}

/* what rank r holds now, before round t (input shown as described on
 * top, from the first pass's init_read), and in transit */
static void tr_holds(const tracker_t *T, const tracker_t *first, int r, uint32_t t,
                     int result, uint64_t *held, uint64_t *transit, uint64_t *bytes)
{
    const rtopo__sched_t *s = T->s;
    uint64_t own = r < 64 ? 1ull << r : 0, h = 0, tr = 0, nb = 0;
    int b;
    uint32_t i, j;

    for (b = 0; b < RTOPO__BUF_COUNT; b++) {
        const segmap_t *m = &T->map[r * RTOPO__BUF_COUNT + b];
        int64_t last = first->init_read[r * RTOPO__BUF_COUNT + b];
        uint64_t cov = 0;
        size_t k;

        if (result && b != RTOPO__BUF_RECV)
            continue;      /* the result: RECV only */

        for (k = 0; k < m->n; k++) {
            h |= m->v[k].set;
            cov += m->v[k].hi - m->v[k].lo;
            if (b != RTOPO__BUF_SEND)
                nb += m->v[k].hi - m->v[k].lo;
        }
        if (b == RTOPO__BUF_SEND && last >= (int64_t)t)
            h |= own;
        if (b == RTOPO__BUF_RECV && last >= 0 &&
            cov < first->extent[r * RTOPO__BUF_COUNT + b])
            h |= own;
    }
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;

        for (j = 0; j + 1 < x->nhops; j++)
            if (s->hops[x->hop0 + j].to == r && s->hops[x->hop0 + j].step < t &&
                s->hops[x->hop0 + j + 1].step >= t) {
                size_t k;

                for (k = 0; k < T->ncarry[i]; k++)
                    tr |= T->carry[i][k].set;
            }
    }
    *held = h;
    *transit = tr;
    *bytes = nb;
}

/* "0-3,5,9" */
static void set_str(uint64_t set, char *buf, size_t len)
{
    size_t n = 0;
    int r = 0, cnt = 0, k;

    buf[0] = '\0';
    for (k = 0; k < 64; k++)
        cnt += (set >> k) & 1;
    while (r < 64) {
        int e;

        if (!((set >> r) & 1)) {
            r++;
            continue;
        }
        for (e = r; e + 1 < 64 && ((set >> (e + 1)) & 1); e++)
            ;
        if (n + 16 >= len || n > 12) {
            snprintf(buf, len, "%d ranks", cnt);
            return;
        }
        if (e == r)
            n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", r);
        else
            n += (size_t)snprintf(buf + n, len - n, "%s%d%s%d", n ? "," : "", r,
                                  e == r + 1 ? "," : "-", e);
        r = e + 1;
    }
}

static void bytes_str(uint64_t b, char *buf, size_t len)
{
    if (b >= 10ull << 20)
        snprintf(buf, len, "%lluM", (unsigned long long)(b >> 20));
    else if (b >= 10ull << 10)
        snprintf(buf, len, "%lluK", (unsigned long long)(b >> 10));
    else
        snprintf(buf, len, "%llu", (unsigned long long)b);
}

/* ---- gnuplot ----------------------------------------------------------- */

static const char *const link_color[RTOPO__LINK_COUNT] = {
    "#777777",  /* local */
    "#1f5fbf",  /* ring */
    "#1f5fbf",  /* row */
    "#c8321e",  /* col */
    "#7a2fa8",  /* cube */
    "#1e9a3c",  /* otis */
    "#d08a00",  /* direct */
    "#a0522d",  /* host */
    "#7a2fa8",  /* cube-id */
};

/* program to draw with: $GNUPLOT or gnuplot, looked up in PATH; NULL if
 * there is none (rtopo-sim scatter --figure uses it too) */
char *sim_find_gnuplot(void)
{
    const char *prog = getenv("GNUPLOT"), *path = getenv("PATH"), *p, *e;
    char buf[4096];

    if (!prog || !*prog)
        prog = "gnuplot";
    if (strchr(prog, '/'))
        return access(prog, X_OK) ? NULL : strdup(prog);
    for (p = path ? path : "/usr/bin:/bin"; *p; p = *e ? e + 1 : e) {
        e = strchr(p, ':');
        if (!e)
            e = p + strlen(p);
        if ((size_t)snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - p), e > p ? p : ".",
                             prog) < sizeof(buf) && !access(buf, X_OK))
            return strdup(buf);
    }
    return NULL;
}

/* a gnuplot single-quoted string */
static void gp_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* a gnuplot double-quoted string: newlines become line breaks */
static void gp_dquote(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '\n')
            fputs("\\n", f);
        else if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void topo_text(const rtopo__tdesc_t *t, char *buf, size_t len)
{
    switch (t->kind) {
    case RTOPO__TOPO_MESH:
        snprintf(buf, len, "%dx%d mesh with wraparound", t->rows, t->cols);
        break;
    case RTOPO__TOPO_HYPERCUBE:
        snprintf(buf, len, "%d-cube%s", t->dim, t->host ? " and a host" : "");
        break;
    case RTOPO__TOPO_OTIS_MESH:
        snprintf(buf, len, "OTIS-mesh, %d groups of %d", t->n, t->n);
        break;
    case RTOPO__TOPO_OTIS_HYPERCUBE:
        snprintf(buf, len, "OTIS-hypercube, %d groups of %d", t->n, t->n);
        break;
    default:
        snprintf(buf, len, "ring of %d", t->p);
        break;
    }
}

/* the links of the topology, as grey segments ($edges), and the mesh's
 * wraparound links as stubs at the border ($wrap) */
static int gp_edges(FILE *f, const rtopo__sched_t *sc, const layout_t *L)
{
    const rtopo__tdesc_t *t = &sc->topo;
    int a, b, k, ne = 0;

    fprintf(f, "$edges << EOD\n");
    for (a = 0; a < L->nodes; a++) {
        pt_t pa = L->pos[a];

        for (b = a + 1; b < L->nodes; b++) {
            pt_t pb = L->pos[b];
            int edge = 0;

            switch (t->kind) {
            case RTOPO__TOPO_RING:
                edge = b == a + 1 || (a == 0 && b == L->nodes - 1 && L->nodes > 2);
                break;
            case RTOPO__TOPO_MESH:
                edge = (b == a + 1 && a / t->cols == b / t->cols) || b == a + t->cols;
                break;
            case RTOPO__TOPO_HYPERCUBE: {
                uint32_t x = L->ident ? (uint32_t)(a ^ b) :
                             rtopo__gray((uint32_t)a) ^ rtopo__gray((uint32_t)b);

                edge = x && !(x & (x - 1));
                break;
            }
            case RTOPO__TOPO_OTIS_MESH: {
                int n = t->n, s = L->s, pa_ = a % n, pb_ = b % n;

                edge = a / n == b / n && ((pb_ == pa_ + 1 && pa_ / s == pb_ / s) ||
                                          pb_ == pa_ + s);
                break;
            }
            case RTOPO__TOPO_OTIS_HYPERCUBE: {
                int n = t->n, x = (a % n) ^ (b % n);

                edge = a / n == b / n && x && !(x & (x - 1));
                break;
            }
            default:
                break;
            }
            if (edge) {
                fprintf(f, "%g %g %g %g\n", pa.x, pa.y, pb.x - pa.x, pb.y - pa.y);
                ne++;
            }
        }
    }
    if (L->host)
        for (a = 0; a < L->nodes; a++, ne++)
            fprintf(f, "%g %g %g %g\n", L->pos[L->p - 1].x, L->pos[L->p - 1].y,
                    L->pos[a].x - L->pos[L->p - 1].x, L->pos[a].y - L->pos[L->p - 1].y);
    /* the optical links (G, P) <-> (P, G), and a frame around each group */
    fprintf(f, "EOD\n$otis << EOD\n");
    if (t->kind == RTOPO__TOPO_OTIS_MESH || t->kind == RTOPO__TOPO_OTIS_HYPERCUBE)
        for (a = 0; a < L->nodes; a++) {
            b = (a % t->n) * t->n + a / t->n;
            if (b > a)
                fprintf(f, "%g %g %g %g\n", L->pos[a].x, L->pos[a].y,
                        L->pos[b].x - L->pos[a].x, L->pos[b].y - L->pos[a].y);
        }
    fprintf(f, "NaN NaN NaN NaN\nEOD\n$groups << EOD\n");
    if (t->kind == RTOPO__TOPO_OTIS_MESH || t->kind == RTOPO__TOPO_OTIS_HYPERCUBE)
        for (k = 0; k < t->n; k++) {
            double x0 = 1e30, x1 = -1e30, y0 = 1e30, y1 = -1e30;

            for (a = k * t->n; a < (k + 1) * t->n; a++) {
                x0 = L->pos[a].x < x0 ? L->pos[a].x : x0;
                x1 = L->pos[a].x > x1 ? L->pos[a].x : x1;
                y0 = L->pos[a].y < y0 ? L->pos[a].y : y0;
                y1 = L->pos[a].y > y1 ? L->pos[a].y : y1;
            }
            x0 -= 0.5;
            x1 += 0.8;
            y0 -= 0.65;
            y1 += 0.5;
            fprintf(f, "%g %g %g 0\n%g %g 0 %g\n%g %g %g 0\n%g %g 0 %g\n", x0, y0, x1 - x0,
                    x1, y0, y1 - y0, x1, y1, x0 - x1, x0, y1, y0 - y1);
        }
    fprintf(f, "NaN NaN NaN NaN\nEOD\n$gname << EOD\n");
    if (t->kind == RTOPO__TOPO_OTIS_MESH || t->kind == RTOPO__TOPO_OTIS_HYPERCUBE)
        for (k = 0; k < t->n; k++) {
            double x0 = 1e30, y1 = -1e30;

            for (a = k * t->n; a < (k + 1) * t->n; a++) {
                x0 = L->pos[a].x < x0 ? L->pos[a].x : x0;
                y1 = L->pos[a].y > y1 ? L->pos[a].y : y1;
            }
            fprintf(f, "%g %g \"group %d\"\n", x0 - 0.45, y1 + 0.72, k);
        }
    fprintf(f, "NaN NaN \"\"\nEOD\n$wrap << EOD\n");
    if (t->kind == RTOPO__TOPO_MESH)
        for (a = 0; a < L->nodes; a++) {
            int r = a / t->cols, c = a % t->cols;

            for (k = 0; k < 2; k++) {
                int edge = k ? (r == 0 || r == t->rows - 1) && t->rows > 2 :
                           (c == 0 || c == t->cols - 1) && t->cols > 2;
                double dx = k ? 0 : (c == 0 ? -0.45 : 0.45),
                       dy = k ? (r == 0 ? 0.45 : -0.45) : 0;

                if (edge)
                    fprintf(f, "%g %g %g %g\n", L->pos[a].x, L->pos[a].y, dx, dy);
            }
        }
    fprintf(f, "NaN NaN NaN NaN\nEOD\n");
    return ne;
}

#define NODE_R 0.27

/* the arrow of hop `from -> h->to`: shortened to the circles, shifted a
 * little to its right so that opposite hops stay apart; a mesh
 * wraparound hop leaves its node outwards (a stub, in *stub) and enters
 * the other from the opposite border */
static void hop_arrow(const rtopo__sched_t *sc, const layout_t *L, int from,
                      const rtopo__hop_t *h, double *a, double *stub, int *has_stub)
{
    const rtopo__tdesc_t *t = &sc->topo;
    pt_t p0 = L->pos[from], p1 = L->pos[h->to];
    double dx, dy, len, ox, oy;
    int wrap = 0;

    *has_stub = 0;
    if (t->kind == RTOPO__TOPO_MESH && (h->link == RTOPO__LINK_ROW ||
                                        h->link == RTOPO__LINK_COL)) {
        int E = h->link == RTOPO__LINK_ROW ? t->cols : t->rows;
        double d = h->link == RTOPO__LINK_ROW ? p1.x - p0.x : p0.y - p1.y;

        wrap = E > 2 && (d > 1.5 || d < -1.5);
    }
    if (wrap) {
        /* direction of travel: +1 along the row is +x, along the column -y */
        double ux = h->link == RTOPO__LINK_ROW ? h->dir : 0,
               uy = h->link == RTOPO__LINK_ROW ? 0 : -h->dir;

        stub[0] = p0.x + ux * NODE_R;
        stub[1] = p0.y + uy * NODE_R;
        stub[2] = ux * 0.3;
        stub[3] = uy * 0.3;
        *has_stub = 1;
        a[0] = p1.x - ux * (NODE_R + 0.3);
        a[1] = p1.y - uy * (NODE_R + 0.3);
        a[2] = ux * 0.3;
        a[3] = uy * 0.3;
        return;
    }
    dx = p1.x - p0.x;
    dy = p1.y - p0.y;
    len = dsqrt(dx * dx + dy * dy);
    if (len < 1e-9)
        len = 1e-9;
    ox = dy / len * 0.07;
    oy = -dx / len * 0.07;
    a[0] = p0.x + dx / len * NODE_R + ox;
    a[1] = p0.y + dy / len * NODE_R + oy;
    a[2] = dx * (1 - 2 * NODE_R / len);
    a[3] = dy * (1 - 2 * NODE_R / len);
}

/* The hops over link class c in rounds [r0, r1) as gnuplot vectors: the
 * arrows, or (stubs) the second halves of wraparound hops; a NaN line when
 * there is none.  Returns whether any was written. */
static int gp_hops(FILE *f, const rtopo__sched_t *s, const layout_t *L, int c,
                   uint32_t r0, uint32_t r1, int stubs)
{
    uint32_t i, j;
    int any = 0;

    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
        int fr = x->src;

        for (j = 0; j < x->nhops; j++) {
            const rtopo__hop_t *hp = &s->hops[x->hop0 + j];
            double a[4], stub[4];
            int hs;

            if (hp->link == c && hp->step >= r0 && hp->step < r1) {
                hop_arrow(s, L, fr, hp, a, stub, &hs);
                if (!stubs) {
                    fprintf(f, "%g %g %g %g\n", a[0], a[1], a[2], a[3]);
                    any = 1;
                } else if (hs) {
                    fprintf(f, "%g %g %g %g\n", stub[0], stub[1], stub[2], stub[3]);
                    any = 1;
                }
            }
            fr = hp->to;
        }
    }
    if (!any)
        fprintf(f, "NaN NaN NaN NaN\n");
    return any;
}

typedef struct panel {
    uint32_t r0, r1;        /* rounds [r0, r1) */
} panel_t;

/* nodes with what they hold before round t ($nK) */
static void gp_nodes(FILE *f, int k, const tracker_t *T, const tracker_t *first,
                     const layout_t *L, uint32_t t, int result)
{
    int r;

    fprintf(f, "$n%d << EOD\n", k);
    for (r = 0; r < L->p; r++) {
        uint64_t held, transit, bytes;
        char hs[64], ts[64], rs[16];
        double lx, ly;

        tr_holds(T, first, r, t, result, &held, &transit, &bytes);
        if (L->host) {
            bytes_str(bytes, hs, sizeof(hs));
            if (r == L->p - 1)
                snprintf(hs, sizeof(hs), "input");
            else if (!bytes)
                hs[0] = '\0';
            ts[0] = '\0';
        } else {
            set_str(held, hs, sizeof(hs));
            set_str(transit, ts, sizeof(ts));
        }
        if (L->host && r == L->p - 1)
            snprintf(rs, sizeof(rs), "H");
        else
            snprintf(rs, sizeof(rs), "%d", r);
        /* what it holds: below right, or outside the ring */
        lx = L->pos[r].x + NODE_R * 0.75;
        ly = L->pos[r].y - NODE_R - 0.12;
        if (L->ring) {
            double d = dsqrt(L->pos[r].x * L->pos[r].x + L->pos[r].y * L->pos[r].y);

            lx = L->pos[r].x * (1 + (NODE_R + 0.3) / d);
            ly = L->pos[r].y * (1 + (NODE_R + 0.22) / d);
        }
        fprintf(f, "%g %g %g %g \"%s\" \"%s%s%s%s\"\n", L->pos[r].x, L->pos[r].y, lx, ly, rs,
                hs, *ts ? (*hs ? " (" : "(") : "",
                ts, *ts ? ")" : "");
    }
    fprintf(f, "EOD\n");
}

static int draw_detail(FILE *f, const rtopo__sched_t *s, const layout_t *L,
                       const char *title, int svg, uint32_t *narrows)
{
    uint32_t nonempty = 0, t, per, i, j, np = 0, span = sched_span(s);
    uint32_t *hops_in = calloc(s->nsteps + 1, sizeof(uint32_t));
    panel_t *pan = NULL;
    tracker_t T, first;
    segmap_t tmp = { NULL, 0, 0 };
    int st = RTOPO_OK, k, c, cols, rows, pw, ph, nedges;
    double w, h;
    char tt[128], note[1024], *stubs = NULL;
    int otis = s->topo.kind == RTOPO__TOPO_OTIS_MESH ||
               s->topo.kind == RTOPO__TOPO_OTIS_HYPERCUBE;

    memset(&T, 0, sizeof(T));
    memset(&first, 0, sizeof(first));
    if (!hops_in)
        return RTOPO_ERR_NOMEM;
    for (i = 0; i < s->nhops; i++)
        hops_in[s->hops[i].step]++;
    for (t = 0; t < s->nsteps; t++)
        nonempty += hops_in[t] > 0;
    per = nonempty > SIM_DRAW_MAX_PANELS ?
          (nonempty + SIM_DRAW_MAX_PANELS - 1) / SIM_DRAW_MAX_PANELS : 1;
    pan = calloc(nonempty + 2, sizeof(*pan));
    stubs = calloc((size_t)(nonempty + 2) * RTOPO__LINK_COUNT, 1);
    if (!pan || !stubs) {
        free(pan);
        free(stubs);
        free(hops_in);
        return RTOPO_ERR_NOMEM;
    }
    /* panels: `per` rounds with hops each, from the first such round to
     * just before the next panel's */
    for (t = 0, j = 0; t < s->nsteps; t++) {
        if (!hops_in[t])
            continue;
        if (j % per == 0) {
            if (np)
                pan[np - 1].r1 = t;
            pan[np++].r0 = t;
        }
        j++;
    }
    if (np)
        pan[np - 1].r1 = s->nsteps;
    /* first pass: when each rank's input is read */
    if ((st = tr_init(&first, s)))
        goto out;
    for (t = 0; t < span; t++)
        if (tr_step(&first, t, &tmp)) {
            st = RTOPO_ERR_NOMEM;
            goto out;
        }
    if ((st = tr_init(&T, s)))
        goto out;
    w = L->maxx - L->minx + 1.6;
    h = L->maxy - L->miny + 2.2;
    cols = np + 1 <= 2 ? (int)np + 1 : np + 1 <= 4 ? 2 : np + 1 <= 9 ? 3 : 4;
    rows = (int)((np + 1 + cols - 1) / cols);
    pw = (int)(w * 95 + 0.5);
    if (pw < 300)
        pw = 300;
    if (pw > 560)
        pw = 560;
    if (cols * pw < 880)
        pw = (880 + cols - 1) / cols;     /* room for the title's lines */
    ph = (int)(pw * h / w + 40);
    if (ph > 700)
        ph = 700;
    if (svg)
        fprintf(f, "set terminal svg size %d,%d font 'sans,10' noenhanced\n",
                cols * pw, rows * ph + 80);
    else
        fprintf(f, "set terminal pngcairo size %d,%d font 'sans,10' noenhanced\n",
                cols * pw, rows * ph + 80);
    fprintf(f, "set output ");
    gp_quote(f, sim_draw_path);
    fprintf(f, "\nunset key\nunset border\nunset tics\nset size ratio -1\n"
            "set style fill solid 1.0 border lc rgb '#333333'\n");
    nedges = gp_edges(f, s, L);
    /* data blocks: the arrows and stubs of each panel, and its nodes */
    for (k = 0; k <= (int)np; k++) {
        uint32_t t0 = k < (int)np ? pan[k].r0 : span;

        for (t = k ? pan[k - 1].r0 : 0; t < t0; t++)
            if (tr_step(&T, t, &tmp)) {
                st = RTOPO_ERR_NOMEM;
                goto out;
            }
        gp_nodes(f, k, &T, &first, L, t0, k == (int)np);
        if (k == (int)np)
            break;
        for (c = 0; c < RTOPO__LINK_COUNT; c++) {
            int any = 0;

            fprintf(f, "$a%d_%d << EOD\n", k, c);
            gp_hops(f, s, L, c, pan[k].r0, pan[k].r1, 0);
            fprintf(f, "EOD\n$s%d_%d << EOD\n", k, c);
            any = gp_hops(f, s, L, c, pan[k].r0, pan[k].r1, 1);
            stubs[k * RTOPO__LINK_COUNT + c] = (char)any;
            fprintf(f, "EOD\n");
        }
    }
    fprintf(f, "set multiplot layout %d,%d title ", rows, cols);
    snprintf(note, sizeof(note), "%s\narrows: the hops of each round, by link class\n"
             "beside each node: %s", title, L->host ?
             "the bytes it holds (H: the host)" :
             "the ranks whose data it holds; (in parentheses) data passing through it");
    gp_dquote(f, note);
    fprintf(f, " font 'sans,13'\n");
    fprintf(f, "set xrange [%g:%g]\nset yrange [%g:%g]\n", L->minx - 0.8, L->maxx + 1.0,
            L->miny - 1.3, L->maxy + 0.9);
    *narrows = 0;
    for (k = 0; k <= (int)np; k++) {
        uint32_t cnt[RTOPO__LINK_COUNT] = { 0 }, tot = 0;
        size_t n = 0;
        double lx = L->minx - 0.6;

        fprintf(f, "unset label\n");
        if (k < (int)np) {
            for (i = 0; i < s->nhops; i++)
                if (s->hops[i].step >= pan[k].r0 && s->hops[i].step < pan[k].r1) {
                    cnt[s->hops[i].link]++;
                    tot++;
                }
            *narrows += tot;
            if (pan[k].r1 - pan[k].r0 == 1 || per == 1)
                n = (size_t)snprintf(tt, sizeof(tt), "round %u: %u hop%s", pan[k].r0, tot,
                                     tot == 1 ? "" : "s");
            else
                n = (size_t)snprintf(tt, sizeof(tt), "rounds %u-%u: %u hops", pan[k].r0,
                                     pan[k].r1 - 1, tot);
            (void)n;
            for (c = 0; c < RTOPO__LINK_COUNT; c++)
                if (cnt[c]) {
                    fprintf(f, "set label '%s: %u hop%s' at %g,%g left tc rgb '%s' "
                            "font 'sans,10'\n", rtopo__link_name(c), cnt[c],
                            cnt[c] == 1 ? "" : "s", lx, L->miny - 1.05, link_color[c]);
                    lx += 2.4;
                }
        } else {
            snprintf(tt, sizeof(tt), "after round %u: the result (receive buffers)",
                     s->nsteps ? s->nsteps - 1 : 0);
        }
        fprintf(f, "set title '%s' font 'sans,11'\n", tt);
        /* only blocks with points: gnuplot warns about the others (and
         * some versions crash on several) */
        fprintf(f, "plot %s", nedges ? "$edges using 1:2:3:4 with vectors nohead lc rgb "
                "'#c8c8c8' lw 1.2, " : "");
        if (otis)
            fprintf(f, "$groups using 1:2:3:4 with vectors nohead lc rgb '#e0e0e0' lw 1, "
                    "$gname using 1:2:3 with labels left font 'sans,8' tc rgb '#888888', "
                    "$otis using 1:2:3:4 with vectors nohead dt 2 lc rgb '#9ccfa8' lw 1.2, ");
        if (s->topo.kind == RTOPO__TOPO_MESH && (s->topo.rows > 2 || s->topo.cols > 2))
            fprintf(f, "$wrap using 1:2:3:4 with vectors nohead dt 2 lc rgb '#b0b0b0' "
                    "lw 1.2, ");
        if (k < (int)np)
            for (c = 0; c < RTOPO__LINK_COUNT; c++) {
                if (!cnt[c])
                    continue;
                if (stubs[k * RTOPO__LINK_COUNT + c])
                    fprintf(f, "$s%d_%d using 1:2:3:4 with vectors nohead lc rgb '%s' lw 2, ",
                            k, c, link_color[c]);
                fprintf(f, "$a%d_%d using 1:2:3:4 with vectors head filled size "
                        "0.16,25 lc rgb '%s' lw 2 title 'hops %s', ", k, c, link_color[c],
                        rtopo__link_name(c));
            }
        fprintf(f, "$n%d using 1:2:(%g) with circles lc rgb '#333333' fc rgb "
                "'#fff8dc' title 'nodes'", k, NODE_R);
        fprintf(f, ", $n%d using 1:2:5 with labels font 'sans,9' tc rgb 'black'", k);
        fprintf(f, ", $n%d using 3:4:6 with labels %s font 'sans,8' tc rgb '#003399'\n", k,
                L->ring ? "center" : "left");
    }
    fprintf(f, "unset multiplot\n");
out:
    free(tmp.v);
    tr_free(&T);
    tr_free(&first);
    free(pan);
    free(stubs);
    free(hops_in);
    return st;
}

/* too many ranks or arrows: hops per round (or per phase of rounds) and
 * link class, as stacked bars */
static int draw_summary(FILE *f, const rtopo__sched_t *s, const char *title, int svg,
                        const char *why)
{
    uint32_t per = s->nsteps > 64 ? (s->nsteps + 63) / 64 : 1, nb, i;
    uint64_t *cnt, tot[RTOPO__LINK_COUNT] = { 0 }, ymax = 1;
    uint32_t every;
    int c, first = 1;

    nb = (s->nsteps + per - 1) / per;
    every = nb > 24 ? (nb + 11) / 12 : 1;
    cnt = calloc((size_t)(nb + 1) * RTOPO__LINK_COUNT, sizeof(*cnt));
    if (!cnt)
        return RTOPO_ERR_NOMEM;
    for (i = 0; i < s->nhops; i++) {
        cnt[(s->hops[i].step / per) * RTOPO__LINK_COUNT + s->hops[i].link]++;
        tot[s->hops[i].link]++;
    }
    fprintf(f, "set terminal %s size 960,600 font 'sans,10' noenhanced\nset output ",
            svg ? "svg" : "pngcairo");
    gp_quote(f, sim_draw_path);
    fprintf(f, "\n$d << EOD\n");
    for (i = 0; i < nb; i++) {
        uint64_t sum = 0;

        for (c = 0; c < RTOPO__LINK_COUNT; c++)
            sum += cnt[i * RTOPO__LINK_COUNT + c];
        if (sum > ymax)
            ymax = sum;
        fprintf(f, "%u", i * per);
        for (c = 0; c < RTOPO__LINK_COUNT; c++)
            fprintf(f, " %llu", (unsigned long long)cnt[i * RTOPO__LINK_COUNT + c]);
        fprintf(f, "\n");
    }
    if (!nb) {
        fprintf(f, "0");
        for (c = 0; c < RTOPO__LINK_COUNT; c++)
            fprintf(f, " 0");
        fprintf(f, "\n");
    }
    fprintf(f, "EOD\nset title ");
    {
        char t2[1024];

        snprintf(t2, sizeof(t2), "%s\nsummary (%s): hops per %s and link class", title,
                 why, per > 1 ? "phase of rounds" : "round");
        gp_dquote(f, t2);
    }
    fprintf(f, "\nset style data histograms\nset style histogram rowstacked\n"
            "set style fill solid 0.9 border lc rgb '#333333'\nset boxwidth 0.8\n"
            "set key outside right top\nset ylabel 'hops'\nset xlabel '%s'\n"
            "set grid ytics\nset xtics rotate by -45 scale 0\n",
            per > 1 ? "first round of the phase" : "round");
    /* autoscale does not see the stacked heights */
    fprintf(f, "set yrange [0:%llu]\n", (unsigned long long)(ymax + ymax / 10 + 1));
    fprintf(f, "plot ");
    for (c = 0; c < RTOPO__LINK_COUNT; c++) {
        if (!tot[c])
            continue;
        /* a tic label every `every` bars */
        fprintf(f, "%s$d using %d:xtic(int($0) %% %u ? '' : stringcolumn(1)) lc rgb '%s' "
                "title '%s (%llu)'", first ? "" : ", ", c + 2, every, link_color[c],
                rtopo__link_name(c), (unsigned long long)tot[c]);
        first = 0;
    }
    if (first)
        fprintf(f, "$d using 2:xtic(1) lc rgb '#777777' title 'no hops'");
    fprintf(f, "\n");
    free(cnt);
    return RTOPO_OK;
}

int sim_draw(const rtopo__sched_t *s, const char *fmt, ...)
{
    char title[512], topo[96], full[700], why[96] = "";
    char *prog = NULL;
    layout_t L;
    FILE *f;
    va_list ap;
    int st, svg, detail, gst;
    uint32_t i, *per_step = NULL, maxpan = 0, narrows = 0;
    struct stat sb;

    if (sim_draw_done++)
        return rtopo__error(RTOPO_ERR_INVAL, "--draw draws one schedule: not with a "
                            "list of them (--all-q, --all-disp)");
    va_start(ap, fmt);
    vsnprintf(title, sizeof(title), fmt, ap);
    va_end(ap);
    topo_text(&s->topo, topo, sizeof(topo));
    snprintf(full, sizeof(full), "%s on %s %s: %u round%s, %u hops", title,
             topo[0] == 'O' ? "an" : "a", topo, s->nsteps,
             s->nsteps == 1 ? "" : "s", s->nhops);
    svg = !strcmp(strrchr(sim_draw_path, '.'), ".svg");
    prog = sim_find_gnuplot();
    if (!prog)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "cannot draw %s: %s not found%s "
                            "(Debian package gnuplot-nox)", sim_draw_path,
                            getenv("GNUPLOT") && *getenv("GNUPLOT") ? getenv("GNUPLOT") :
                            "gnuplot", getenv("GNUPLOT") && *getenv("GNUPLOT") ? "" :
                            " in PATH");
    /* readable: few enough nodes, and of arrows in a panel (a phase's
     * rounds share one) */
    per_step = calloc(s->nsteps + 1, sizeof(*per_step));
    if (!per_step) {
        free(prog);
        return rtopo__error(RTOPO_ERR_NOMEM, "--draw");
    }
    for (i = 0; i < s->nhops; i++)
        per_step[s->hops[i].step]++;
    {
        uint32_t ne = 0, per, j = 0, acc = 0;

        for (i = 0; i < s->nsteps; i++)
            ne += per_step[i] > 0;
        per = ne > SIM_DRAW_MAX_PANELS ? (ne + SIM_DRAW_MAX_PANELS - 1) /
              SIM_DRAW_MAX_PANELS : 1;
        for (i = 0; i < s->nsteps; i++) {
            if (!per_step[i])
                continue;
            if (j % per == 0)
                acc = 0;
            acc += per_step[i];
            if (acc > maxpan)
                maxpan = acc;
            j++;
        }
    }
    free(per_step);
    detail = s->topo.p <= SIM_DRAW_MAX_RANKS + (s->topo.host ? 1 : 0) &&
             maxpan <= SIM_DRAW_MAX_ARROWS;
    if (s->topo.p > SIM_DRAW_MAX_RANKS + (s->topo.host ? 1 : 0))
        snprintf(why, sizeof(why), "%d ranks, more than %d to draw one by one", s->topo.p,
                 SIM_DRAW_MAX_RANKS);
    else if (!detail)
        snprintf(why, sizeof(why), "%u hops in one panel, more than %d", maxpan,
                 SIM_DRAW_MAX_ARROWS);
    fflush(stdout);
    unlink(sim_draw_path);
    {
        char cmd[4200];
        size_t n = 0;
        const char *q = prog;

        cmd[n++] = '\'';
        for (; *q && n + 6 < sizeof(cmd); q++) {
            if (*q == '\'') {
                memcpy(cmd + n, "'\\''", 4);
                n += 4;
            } else {
                cmd[n++] = *q;
            }
        }
        cmd[n++] = '\'';
        cmd[n] = '\0';
        f = popen(cmd, "w");
    }
    if (!f) {
        st = rtopo__error(RTOPO_ERR_UNSUPPORTED, "cannot run %s: %s", prog,
                          strerror(errno));
        free(prog);
        return st;
    }
    if (detail) {
        st = layout_make(s, &L);
        if (!st)
            st = draw_detail(f, s, &L, full, svg, &narrows);
        free(L.pos);
    } else {
        st = draw_summary(f, s, full, svg, why);
    }
    gst = pclose(f);
    if (st) {
        free(prog);
        return rtopo__error(st, "--draw %s: out of memory", sim_draw_path);
    }
    if (gst != 0 || stat(sim_draw_path, &sb) || !sb.st_size) {
        st = rtopo__error(RTOPO_ERR_INVAL, "%s did not draw %s (status %d)", prog,
                          sim_draw_path, gst);
        free(prog);
        return st;
    }
    free(prog);
    if (!detail)
        fprintf(stderr, "rtopo-sim: %s is a summary picture: %s\n", sim_draw_path, why);
    (void)narrows;
    return RTOPO_OK;
}
