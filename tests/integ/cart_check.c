/*
 * cart_check - shifts along one dimension, sub-topologies and Cannon's
 * matrix multiplication under rtopo-run, checking every byte.
 *
 *   cart_check [--topo ring|mesh:RxC|hypercube:D|otis-mesh:N|otis-hypercube:N]
 *              [--sizes 0,1,8193,...] [--disps all|D1,D2,...] [--rules]
 *              [--modes blocking,nonblocking,persistent] [--mem reg,unreg]
 *              [--inplace] [--sub]
 *   cart_check --cannon NB [--modes ...] [--mem ...]      (s x s ranks)
 *   cart_check --error baddim|mismatch-disp|mismatch-rule|mismatch-inplace|mismatch-dim
 *
 * Shifts: every dimension, every displacement in --disps ("all": -(E+1)
 * .. 2E+1 for extent E), every size, mode and buffer kind; --rules adds
 * per-line displacements a*line + b; --inplace shifts sendbuf == recvbuf
 * too.  The expected source of every rank comes from the public
 * coordinate calls (rtopo_topo_coords, rtopo_topo_rank_at).  --sub takes
 * the rows, the columns (or sub-cubes) as topologies of their own and
 * shifts on them.  --cannon multiplies two (s*NB) x (s*NB) matrices with
 * in-place skew and rotations and compares with the product from the
 * formulas.  --error: one case per job; each rank prints
 * "rank R: CALL -> STATUS", "rank R: mismatch message: TEXT" and a final
 * "rank R: verdict: pass|FAIL ..." (cart_errors.sh reads them).
 * Exit 0 when everything matched.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rtopo.h>
#include "integ_util.h"

static int rank = -1, size;
static unsigned iter;          /* operations so far: the data pattern's tag */
static long checked;

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

static int make_topo(rtopo_ctx_t *ctx, const char *spec, rtopo_topo_t **t)
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

/* the line index of coordinates c along dim (rtopo_shift_dim(3)): the
 * other coordinates as a mixed-radix number, with the significance they
 * have in the topology's labels (cube: coordinate k weighs 2^k, others:
 * the first coordinate is the most significant) */
static long line_index(rtopo_topo_t *t, int cube, const int *c, int dim)
{
    int nd = rtopo_topo_ndims(t), j;
    long L = 0, w = 1;

    if (cube) {
        for (j = nd - 1; j >= 0; j--)
            if (j != dim)
                L = 2 * L + c[j];
        return L;
    }
    for (j = nd - 1; j >= 0; j--)
        if (j != dim) {
            L += c[j] * w;
            w *= rtopo_topo_extent(t, j);
        }
    return L;
}

/* topology rank whose data lands here in a shift along dim by a*L + b */
static int source_of(rtopo_topo_t *t, int cube, int me, int dim, long a, long b)
{
    int c[RTOPO_MAX_DIMS], E = rtopo_topo_extent(t, dim);
    long L, d;

    CHECK(rtopo_topo_coords(t, me, c));
    L = line_index(t, cube, c, dim);
    d = ((a % E) * (L % E) + b % E) % E;
    c[dim] = iu_mod(c[dim] - d, E);
    return rtopo_topo_rank_at(t, c);
}

static int verify(const uint8_t *buf, size_t n, int src, unsigned tag, const char *what)
{
    long bad = iu_first_bad(buf, n, src, tag);

    checked++;
    if (bad < 0)
        return 0;
    fprintf(stderr, "rank %d: %s: byte %ld of %zu is 0x%02x, want 0x%02x from rank %d\n",
            rank, what, bad, n, buf[bad], iu_pattern(src, (size_t)bad, tag), src);
    return 1;
}

struct bufs {
    uint8_t *send, *recv;
    rtopo_mem_t *smem, *rmem;
};

static void bufs_init(rtopo_ctx_t *ctx, struct bufs *b, size_t n, int reg)
{
    b->send = malloc(n + 1);
    b->recv = malloc(n + 1);
    b->smem = b->rmem = NULL;
    if (!b->send || !b->recv)
        exit(2);
    if (reg && n) {
        CHECK(rtopo_mem_register(ctx, b->send, n, &b->smem));
        CHECK(rtopo_mem_register(ctx, b->recv, n, &b->rmem));
    }
}

static void bufs_free(struct bufs *b)
{
    if (b->smem)
        CHECK(rtopo_mem_deregister(b->smem));
    if (b->rmem)
        CHECK(rtopo_mem_deregister(b->rmem));
    free(b->send);
    free(b->recv);
}

/* one dimension shift in a mode; in place when inplace.  Returns errors. */
static int one_shift(rtopo_topo_t *t, int cube, int dim, long a, long b, int rule,
                     size_t n, const char *mode, struct bufs *bf, int inplace)
{
    uint8_t *send = inplace ? bf->recv : bf->send;
    int me = rtopo_topo_rank(t), src = source_of(t, cube, me, dim, a, b), errs = 0, k;
    int rounds = !strcmp(mode, "persistent") ? 2 : 1;
    char what[160];
    rtopo_req_t *req = NULL;

    snprintf(what, sizeof(what), "dim %d %s a=%ld b=%ld %zu bytes %s%s", dim,
             rule ? "rule" : "disp", a, b, n, mode, inplace ? " in place" : "");
    if (!strcmp(mode, "persistent")) {
        if (rule)
            CHECK(rtopo_shift_dim_rule_init(t, dim, send, bf->recv, n, (int)a, (int)b, &req));
        else
            CHECK(rtopo_shift_dim_init(t, dim, send, bf->recv, n, (int)b, &req));
    }
    for (k = 0; k < rounds; k++) {
        unsigned tag = ++iter;

        iu_fill(send, n, me, tag);
        if (!inplace)
            memset(bf->recv, 0xee, n);
        if (req) {
            CHECK(rtopo_start(req));
            CHECK(rtopo_wait(req));
        } else if (!strcmp(mode, "nonblocking")) {
            if (rule)
                CHECK(rtopo_ishift_dim_rule(t, dim, send, bf->recv, n, (int)a, (int)b, &req));
            else
                CHECK(rtopo_ishift_dim(t, dim, send, bf->recv, n, (int)b, &req));
            CHECK(rtopo_wait(req));
            CHECK(rtopo_req_free(req));
            req = NULL;
        } else if (rule) {
            CHECK(rtopo_shift_dim_rule(t, dim, send, bf->recv, n, (int)a, (int)b));
        } else {
            CHECK(rtopo_shift_dim(t, dim, send, bf->recv, n, (int)b));
        }
        errs += verify(bf->recv, n, src, tag, what);
    }
    if (req)
        CHECK(rtopo_req_free(req));
    return errs;
}

static int run_shifts(rtopo_ctx_t *ctx, rtopo_topo_t *t, int cube, const char *sizes,
                      const char *disps, int rules, const char *modes, const char *mems,
                      int inplace)
{
    static const long ab[][2] = { { -1, 0 }, { 1, 1 }, { 2, -1 } };
    static const char *const mode_names[] = { "blocking", "nonblocking", "persistent" };
    long sz[32], dl[64];
    int nsz = parse_list(sizes, sz, 32), nd = rtopo_topo_ndims(t), dim, i, j, m, reg, ip;
    int errs = 0;
    size_t maxn = 0;

    for (i = 0; i < nsz; i++)
        maxn = (size_t)sz[i] > maxn ? (size_t)sz[i] : maxn;
    for (reg = 0; reg < 2; reg++) {
        struct bufs bf;

        if (!has_word(mems, reg ? "reg" : "unreg"))
            continue;
        bufs_init(ctx, &bf, maxn, reg);
        for (dim = 0; dim < nd; dim++) {
            int E = rtopo_topo_extent(t, dim), nds;

            if (!strcmp(disps, "all")) {
                for (nds = 0, j = -(E + 1); j <= 2 * E + 1 && nds < 64; j++)
                    dl[nds++] = j;
            } else {
                nds = parse_list(disps, dl, 64);
            }
            for (i = 0; i < nsz; i++)
                for (m = 0; m < 3; m++) {
                    if (!has_word(modes, mode_names[m]))
                        continue;
                    for (ip = 0; ip <= inplace; ip++) {
                        for (j = 0; j < nds; j++)
                            errs += one_shift(t, cube, dim, 0, dl[j], 0, (size_t)sz[i],
                                              mode_names[m], &bf, ip);
                        for (j = 0; rules && j < 3; j++)
                            errs += one_shift(t, cube, dim, ab[j][0], ab[j][1], 1,
                                              (size_t)sz[i], mode_names[m], &bf, ip);
                    }
                }
        }
        bufs_free(&bf);
    }
    return errs;
}

/* Sub-topologies: each piece (rows, columns, sub-cubes) shifts on its own
 * with rtopo_shift and rtopo_shift_dim; the data must come from the
 * piece's own ranks. */
static int run_sub(rtopo_ctx_t *ctx, rtopo_topo_t *t, int cube)
{
    int nd = rtopo_topo_ndims(t), pc[RTOPO_MAX_DIMS], errs = 0, q, j, k;
    unsigned keep, masks[8];
    int nmask = 0;
    size_t n = 70000;
    struct bufs bf;

    CHECK(rtopo_topo_coords(t, rtopo_topo_rank(t), pc));
    if (cube) {
        masks[nmask++] = 1;
        if (nd > 1)
            masks[nmask++] = 1u << (nd - 1);
        if (nd > 2)
            masks[nmask++] = 5;
        masks[nmask++] = 0;
    } else {
        masks[nmask++] = 2;     /* rows */
        masks[nmask++] = 1;     /* columns */
        masks[nmask++] = 3;
    }
    bufs_init(ctx, &bf, n, 1);
    for (k = 0; k < nmask; k++) {
        rtopo_topo_t *sub;
        int p, me, sc[RTOPO_MAX_DIMS], c[RTOPO_MAX_DIMS];

        keep = masks[k];
        CHECK(rtopo_topo_sub(t, keep, &sub));
        p = rtopo_topo_size(sub);
        me = rtopo_topo_rank(sub);
        for (q = -1; q <= p; q++) {
            int srcl = iu_mod(me - q, p), src, ip;

            /* the source's parent coordinates: ours, with the kept ones
             * replaced by the source's sub coordinates in order */
            CHECK(rtopo_topo_coords(sub, srcl, sc));
            memcpy(c, pc, sizeof(c));
            for (j = 0, src = 0; j < nd; j++)
                if (keep >> j & 1u)
                    c[j] = sc[src++];
            if (__builtin_popcount(keep) == 1 && rtopo_topo_ndims(sub) > 1) {
                /* one OTIS-hypercube coordinate: the sub-cube's node */
                for (j = 0; !(keep >> j & 1u); j++)
                    ;
                for (src = 0, c[j] = 0; src < rtopo_topo_ndims(sub); src++)
                    c[j] |= sc[src] << src;
            }
            src = rtopo_topo_rank_at(t, c);
            for (ip = 0; ip < 2; ip++) {
                unsigned tag = ++iter;
                uint8_t *send = ip ? bf.recv : bf.send;

                iu_fill(send, n, rtopo_topo_rank(t), tag);
                if (!ip)
                    CHECK(rtopo_shift(sub, send, bf.recv, n, q));
                else if (rtopo_topo_ndims(sub) == 1)
                    CHECK(rtopo_shift_dim(sub, 0, send, bf.recv, n, q));
                else
                    continue;
                errs += verify(bf.recv, n, src, tag, ip ? "sub shift_dim in place" :
                               "sub shift");
            }
        }
        CHECK(rtopo_topo_free(sub));
    }
    bufs_free(&bf);
    return errs;
}

/* ---- Cannon ---------------------------------------------------------------- */

static double a_elem(int r, int c) { return (double)((r + 2 * c) % 7 - 3); }
static double b_elem(int r, int c) { return (double)((3 * r + c) % 5 - 2); }

static int run_cannon(rtopo_ctx_t *ctx, int nb, const char *modes, const char *mems)
{
    size_t bytes = sizeof(double) * (size_t)nb * nb;
    int s = 1, c[2], row, col, i, j, k, errs = 0, reg;
    rtopo_topo_t *mesh;

    while ((s + 1) * (s + 1) <= size)
        s++;
    CHECK(rtopo_topo_mesh(ctx, s, s, &mesh));
    CHECK(rtopo_topo_coords(mesh, rtopo_topo_rank(mesh), c));
    row = c[0];
    col = c[1];
    for (reg = 0; reg < 2; reg++) {
        int persistent = has_word(modes, "persistent");
        double *A, *B, *C, t0;
        rtopo_mem_t *mem = NULL;
        rtopo_req_t *ra = NULL, *rb = NULL;

        if (!has_word(mems, reg ? "reg" : "unreg"))
            continue;
        A = malloc(3 * bytes);
        if (!A)
            exit(2);
        B = A + (size_t)nb * nb;
        C = B + (size_t)nb * nb;
        if (reg)
            CHECK(rtopo_mem_register(ctx, A, 3 * bytes, &mem));
        for (i = 0; i < nb; i++)
            for (j = 0; j < nb; j++) {
                A[i * nb + j] = a_elem(row * nb + i, col * nb + j);
                B[i * nb + j] = b_elem(row * nb + i, col * nb + j);
                C[i * nb + j] = 0.0;
            }
        t0 = iu_now();
        CHECK(rtopo_shift_dim_rule(mesh, 1, A, A, bytes, -1, 0));   /* row i: i left */
        CHECK(rtopo_shift_dim_rule(mesh, 0, B, B, bytes, -1, 0));   /* column j: j up */
        if (persistent) {
            CHECK(rtopo_shift_dim_init(mesh, 1, A, A, bytes, -1, &ra));
            CHECK(rtopo_shift_dim_init(mesh, 0, B, B, bytes, -1, &rb));
        }
        for (k = 0; k < s; k++) {
            int x, y, z;

            for (x = 0; x < nb; x++)
                for (z = 0; z < nb; z++)
                    for (y = 0; y < nb; y++)
                        C[x * nb + y] += A[x * nb + z] * B[z * nb + y];
            if (k == s - 1)
                break;
            if (persistent) {
                CHECK(rtopo_start(ra));
                CHECK(rtopo_start(rb));
                CHECK(rtopo_wait(ra));
                CHECK(rtopo_wait(rb));
            } else {
                CHECK(rtopo_shift_dim(mesh, 1, A, A, bytes, -1));
                CHECK(rtopo_shift_dim(mesh, 0, B, B, bytes, -1));
            }
        }
        if (persistent) {
            CHECK(rtopo_req_free(ra));
            CHECK(rtopo_req_free(rb));
        }
        for (i = 0; i < nb && !errs; i++)
            for (j = 0; j < nb; j++) {
                double want = 0.0;

                for (k = 0; k < s * nb; k++)
                    want += a_elem(row * nb + i, k) * b_elem(k, col * nb + j);
                if (C[i * nb + j] != want) {
                    fprintf(stderr, "rank %d: C[%d][%d] = %g, want %g\n", rank,
                            row * nb + i, col * nb + j, C[i * nb + j], want);
                    errs++;
                    break;
                }
            }
        checked++;
        printf("rank %d (%d,%d): Cannon %dx%d on %dx%d, %s, %s memory: %s in %.3f s\n", rank,
               row, col, s * nb, s * nb, s, s, persistent ? "persistent" : "blocking",
               reg ? "registered" : "unregistered", errs ? "WRONG" : "correct",
               iu_now() - t0);
        if (mem)
            CHECK(rtopo_mem_deregister(mem));
        free(A);
    }
    CHECK(rtopo_topo_free(mesh));
    return errs;
}

/* ---- errors ------------------------------------------------------------------ */

static int report(const char *call, int st, double t0)
{
    printf("rank %d: %s -> %s in %.3f s\n", rank, call, rtopo_err_name(st), iu_now() - t0);
    if (st == RTOPO_ERR_MISMATCH)
        printf("rank %d: mismatch message: %s\n", rank, rtopo_last_error());
    fflush(stdout);
    return st;
}

static void run_error(rtopo_ctx_t *ctx, const char *mode)
{
    int s = 1, st, ok = 1, c[2] = { 0, 0 }, me;
    uint8_t buf[64], out[64];
    rtopo_topo_t *mesh, *sub;
    char why[200] = "";
    double t0;

    while ((s + 1) * (s + 1) <= size)
        s++;
    CHECK(rtopo_topo_mesh(ctx, s, s, &mesh));
    /* every rank past the creation before one of them errs; a rank still
     * leaving the barrier may hear of the mismatch there */
    t0 = iu_now();
    st = rtopo_barrier(ctx);
    if (st == RTOPO_ERR_MISMATCH && strncmp(mode, "mismatch", 8) == 0) {
        report("rtopo_barrier", st, t0);
        goto verdict;
    }
    CHECK(st);
    me = rtopo_topo_rank(mesh);
    memset(buf, me, sizeof(buf));
    if (!strcmp(mode, "baddim")) {
        /* checked alike on every rank: INVAL at once, the job goes on */
        t0 = iu_now();
        st = report("rtopo_shift_dim(dim=2)", rtopo_shift_dim(mesh, 2, buf, out, 64, 1), t0);
        ok &= st == RTOPO_ERR_INVAL && iu_contains(rtopo_last_error(), "dimension 2");
        st = report("rtopo_shift_dim(dim=-1)", rtopo_shift_dim(mesh, -1, buf, out, 64, 1), t0);
        ok &= st == RTOPO_ERR_INVAL;
        st = report("rtopo_topo_coords(rank=p)", rtopo_topo_coords(mesh, size, c), t0);
        ok &= st == RTOPO_ERR_INVAL;
        c[0] = s;
        st = report("rtopo_topo_rank_at(row=s)", rtopo_topo_rank_at(mesh, c), t0);
        ok &= st == RTOPO_ERR_INVAL && iu_contains(rtopo_last_error(), "coordinate 0");
        st = report("rtopo_topo_sub(keep=4)", rtopo_topo_sub(mesh, 4, &sub), t0);
        ok &= st == RTOPO_ERR_INVAL;
        st = report("rtopo_shift_dim(dim=1, disp=1)", rtopo_shift_dim(mesh, 1, buf, out, 64,
                                                                      1), t0);
        CHECK(rtopo_topo_coords(mesh, me, c));
        c[1] = iu_mod(c[1] - 1, s);
        ok &= st == RTOPO_OK && iu_first_not(out, 64, (uint8_t)rtopo_topo_rank_at(mesh, c)) < 0;
        if (!ok)
            snprintf(why, sizeof(why), "an argument error was not INVAL, or the job did not "
                     "go on");
    } else {
        int dim = 1, disp = 1, a = 0, inplace = 0, center = size / 2;

        /* one rank (in the middle row) disagrees with its row */
        if (!strcmp(mode, "mismatch-disp") && me == center)
            disp = 2;
        else if (!strcmp(mode, "mismatch-rule"))
            a = me == center ? 0 : 1;
        else if (!strcmp(mode, "mismatch-inplace") && me == center)
            inplace = 1;
        else if (!strcmp(mode, "mismatch-dim") && me == center)
            dim = 0;
        if (inplace)
            memcpy(out, buf, sizeof(buf));
        t0 = iu_now();
        if (!strcmp(mode, "mismatch-rule"))
            st = report("rtopo_shift_dim_rule", rtopo_shift_dim_rule(mesh, dim, buf, out, 64,
                                                                     a, 0), t0);
        else
            st = report("rtopo_shift_dim", rtopo_shift_dim(mesh, dim, inplace ? out : buf,
                                                           out, 64, disp), t0);
        if (st == RTOPO_OK) {
            /* only the barrier can tell this rank */
            st = report("rtopo_barrier", rtopo_barrier(ctx), t0);
        }
        ok &= st == RTOPO_ERR_MISMATCH;
        if (!ok)
            snprintf(why, sizeof(why), "got %s, not RTOPO_ERR_MISMATCH", rtopo_err_name(st));
    }
verdict:
    rtopo_topo_free(mesh);
    printf("rank %d: verdict: %s %s\n", rank, ok ? "pass" : "FAIL", why);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *topo = "ring", *sizes = "0,1,8193,1048579", *disps = "all";
    const char *modes = "blocking", *mems = "reg", *err = NULL;
    int rules = 0, inplace = 0, sub = 0, cannon = 0, i, errs = 0, cube;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;
    double t0 = iu_now();

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--topo") && i + 1 < argc)
            topo = argv[++i];
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            sizes = argv[++i];
        else if (!strcmp(argv[i], "--disps") && i + 1 < argc)
            disps = argv[++i];
        else if (!strcmp(argv[i], "--modes") && i + 1 < argc)
            modes = argv[++i];
        else if (!strcmp(argv[i], "--mem") && i + 1 < argc)
            mems = argv[++i];
        else if (!strcmp(argv[i], "--cannon") && i + 1 < argc)
            cannon = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--error") && i + 1 < argc)
            err = argv[++i];
        else if (!strcmp(argv[i], "--rules"))
            rules = 1;
        else if (!strcmp(argv[i], "--inplace"))
            inplace = 1;
        else if (!strcmp(argv[i], "--sub"))
            sub = 1;
        else {
            fprintf(stderr, "usage: see the head of cart_check.c (%s)\n", argv[i]);
            return 2;
        }
    }
    CHECK(rtopo_init(NULL, &ctx));
    rank = rtopo_rank(ctx);
    size = rtopo_size(ctx);
    if (err) {
        run_error(ctx, err);
        i = rtopo_finalize(ctx);
        (void)i;
        return 0;
    }
    if (cannon) {
        errs = run_cannon(ctx, cannon, modes, mems);
    } else {
        CHECK(make_topo(ctx, topo, &t));
        cube = !strncmp(topo, "hypercube", 9);
        if (sub)
            errs = run_sub(ctx, t, cube);
        else
            errs = run_shifts(ctx, t, cube, sizes, disps, rules, modes, mems, inplace);
        CHECK(rtopo_topo_free(t));
    }
    CHECK(rtopo_finalize(ctx));
    printf("rank %d: %s: %ld checks, %d wrong, %.2f s\n", rank, cannon ? "cannon" : topo,
           checked, errs, iu_now() - t0);
    return errs ? 1 : 0;
}
