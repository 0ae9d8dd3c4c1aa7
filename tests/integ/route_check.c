/*
 * route_check.c - selection ranks, the OTIS-mesh routing operations
 * (rtopo_select_rank, rtopo_concentrate, rtopo_distribute,
 * rtopo_generalize, rtopo_random_write, rtopo_random_read), BPC
 * permutations (rtopo_bpc)
 * and the sort (rtopo_sort) over a real transport, every byte checked.
 *
 *   route_check [--topo otis-mesh:N|ring:P|...] [--rounds R]
 *               [--records B,B,...] [--modes blocking,nonblocking,persistent]
 *               [--bad KIND]
 *
 * Every round draws, from a seed all ranks share, which ranks are
 * selected and which ranks send to which increasing destinations, so each
 * rank knows the whole input and computes its own expected result.  A
 * persistent request is started once per round with the round's inputs
 * written into the same variables (they are read at each start).  The
 * distribute and the generalize run with both of their algorithms,
 * RTOPO_COLL_AUTO (two routings, checked) and RTOPO_COLL_TOPO (the
 * paper's single routing on the OTIS-mesh); the other operations with
 * AUTO.  On a topology other than the OTIS-mesh and the OTIS-hypercube
 * only select_rank runs, and the routing operations must fail with
 * RTOPO_ERR_UNSUPPORTED.  When the job
 * has 2^k ranks, BPC permutations follow: the seed's vector
 * [-0, 1, 2, -3] on 16 ranks (its destinations checked against the
 * published table), identity, transpose, reversal, shuffle, unshuffle and
 * random vectors, of 1, 1000 and 70000 bytes, in every mode.  Then the
 * sort (every topology; the model's choice, the column sort and the
 * merge-split sort): 1, 5 and 300 records of 24 bytes per rank,
 * int64 and double keys with duplicates (and NaN, infinities), ascending
 * and descending, in every mode and in place; each rank sorts the whole
 * set itself and compares its share.
 *
 * --bad KIND: one erroneous call, which must fail on every rank with the
 * expected code, quickly: dest-range (a destination beyond the last rank),
 * dist-order (distribute destinations not increasing), dist-gap (a
 * distribute whose senders are not the first ranks), raw-range (a random
 * access write to rank p),
 * gen-order (generalize destinations not increasing), gen-order-topo (the
 * same under RTOPO_COLL_TOPO), mismatch-gen-algo (a generalize with
 * RTOPO_COLL_TOPO on rank p/2, AUTO elsewhere: RTOPO_ERR_MISMATCH,
 * the two run different algorithms), null-got (one
 * rank's got pointer is NULL), recsize0, generic (RTOPO_COLL_GENERIC set:
 * no generic routing: RTOPO_ERR_UNSUPPORTED), mismatch-recsize (rank p/2
 * passes another record size: RTOPO_ERR_MISMATCH), bpc-vector (a vector
 * that is not one: RTOPO_ERR_INVAL, no communication), mismatch-bpc (rank
 * p/2 passes another vector: RTOPO_ERR_MISMATCH).  Exit status 0 when every check passed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rtopo.h>
#include "integ_util.h"

#define MAXREC 4096

static int me, p;
static rtopo_ctx_t *ctx;
static long nbad;

#define FAIL(...)                                                              \
    do {                                                                       \
        if (nbad++ < 20) {                                                     \
            fprintf(stderr, "rank %d: ", me);                                  \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

static uint64_t rng;

static uint32_t rnd(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

/* round r's inputs: sel[i] for every rank; dest[i] for ranks 0..q-1 */
static void draw(unsigned round, int *sel, int64_t *dest, int *q_p)
{
    int i, q, kind = round % 5, chosen = 0;

    rng = 0x1234567ull + round * 977ull;
    for (i = 0; i < p; i++)
        sel[i] = kind == 0 ? 0 : kind == 1 ? (int)(rnd() % 7) - 3 : (rnd() % 3 == 0) * 5;
    if (kind == 1)
        sel[rnd() % p] = 1;
    q = kind == 3 ? p : kind == 0 ? 0 : (int)(rnd() % (unsigned)(p + 1));
    for (i = 0; i < p; i++)
        dest[i] = -1;
    /* q increasing destinations out of 0..p-1 */
    for (i = 0; i < p && chosen < q; i++)
        if (rnd() % (unsigned)(p - i) < (unsigned)(q - chosen))
            dest[chosen++] = i;
    *q_p = q;
}

static int parse_list(const char *s, long *v, int max)
{
    int n = 0;
    char *end;

    while (*s && n < max) {
        v[n++] = strtol(s, &end, 10);
        if (*end != ',' && *end)
            return -1;
        s = *end ? end + 1 : end;
    }
    return n;
}

#define CHECK(call)                                                            \
    do {                                                                       \
        int st_ = (call);                                                      \
        if (st_ != RTOPO_OK) {                                                 \
            fprintf(stderr, "rank %d: %s failed: %s (%s)\n", me, #call,        \
                    rtopo_strerror(st_), rtopo_last_error());                  \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

enum { M_BLOCKING = 1, M_NONBLOCKING = 2, M_PERSISTENT = 4 };
enum { OP_RANK, OP_CONC, OP_DIST, OP_GEN, OP_RAW, OP_RAR, NOP };
static const char *const opname[NOP] = { "select_rank", "concentrate", "distribute",
                                         "generalize", "random_write", "random_read" };

/* the request of op in `mode` (nonblocking: started; persistent: not) */
static int call(rtopo_topo_t *t, int op, int mode, const void *rec, const int *sel,
                const int64_t *dest, void *out, size_t R, int *got, int64_t *rank,
                rtopo_req_t **req)
{
    switch (op) {
    case OP_RANK:
        return mode == M_BLOCKING ? rtopo_select_rank(t, sel, rank) :
               mode == M_NONBLOCKING ? rtopo_iselect_rank(t, sel, rank, req) :
               rtopo_select_rank_init(t, sel, rank, req);
    case OP_CONC:
        return mode == M_BLOCKING ? rtopo_concentrate(t, rec, sel, out, R, got) :
               mode == M_NONBLOCKING ? rtopo_iconcentrate(t, rec, sel, out, R, got, req) :
               rtopo_concentrate_init(t, rec, sel, out, R, got, req);
    case OP_DIST:
        return mode == M_BLOCKING ? rtopo_distribute(t, rec, dest, out, R, got) :
               mode == M_NONBLOCKING ? rtopo_idistribute(t, rec, dest, out, R, got, req) :
               rtopo_distribute_init(t, rec, dest, out, R, got, req);
    case OP_GEN:
        return mode == M_BLOCKING ? rtopo_generalize(t, rec, dest, out, R, got) :
               mode == M_NONBLOCKING ? rtopo_igeneralize(t, rec, dest, out, R, got, req) :
               rtopo_generalize_init(t, rec, dest, out, R, got, req);
    case OP_RAW:
        return mode == M_BLOCKING ? rtopo_random_write(t, rec, dest, out, R, got) :
               mode == M_NONBLOCKING ? rtopo_irandom_write(t, rec, dest, out, R, got, req) :
               rtopo_random_write_init(t, rec, dest, out, R, got, req);
    default:
        return mode == M_BLOCKING ? rtopo_random_read(t, rec, dest, out, R, got) :
               mode == M_NONBLOCKING ? rtopo_irandom_read(t, rec, dest, out, R, got, req) :
               rtopo_random_read_init(t, rec, dest, out, R, got, req);
    }
}

/* the rank whose record this rank must hold after op (-1: none) */
static int expected_src(int op, const int *sel, const int64_t *dest, int q)
{
    int j, k = 0;

    if (op == OP_CONC) {
        for (j = 0; j < p; j++)
            if (sel[j] && k++ == me)
                return j;
        return -1;
    }
    if (op == OP_RAR)           /* dest: the rank read */
        return dest[me] >= 0 ? (int)dest[me] : -1;
    if (op == OP_RAW) {         /* any writers: the highest wins */
        for (j = p - 1; j >= 0; j--)
            if (dest[j] == me)
                return j;
        return -1;
    }
    for (j = q - 1; j >= 0; j--)
        if (op == OP_DIST ? dest[j] == me : dest[j] <= me)
            return j;
    return -1;
}

static void check(int op, unsigned round, size_t R, const int *sel, const int64_t *dest,
                  int q, const uint8_t *out, int got, int64_t rank, const char *mname)
{
    int src, j;
    int64_t want = 0;
    long bad;

    if (op == OP_RANK) {
        for (j = 0; j < me; j++)
            want += sel[j] != 0;
        if (rank != want)
            FAIL("%s %s round %u: rank %lld, expected %lld", opname[op], mname, round,
                 (long long)rank, (long long)want);
        return;
    }
    src = expected_src(op, sel, dest, q);
    if (got != (src >= 0)) {
        FAIL("%s %s round %u, %zu-byte records: got %d, expected %d (from rank %d)",
             opname[op], mname, round, R, got, src >= 0, src);
        return;
    }
    bad = src >= 0 ? iu_first_bad(out, R, src, round) : iu_first_not(out, R, 0xa5);
    if (bad >= 0)
        FAIL("%s %s round %u, %zu-byte records: byte %ld wrong (%s rank %d)", opname[op],
             mname, round, R, bad, src >= 0 ? "record of" : "untouched, no record; rank",
             src >= 0 ? src : me);
}

/* BPC permutations (2^k ranks) */
static void run_bpc(rtopo_topo_t *t, unsigned modes, long *checks)
{
    static const int table16[16] = { 9, 1, 13, 5, 11, 3, 15, 7, 8, 0, 12, 4, 10, 2, 14, 6 };
    static const size_t sizes[3] = { 1, 1000, 70000 };
    static uint8_t in[70000], out[70000];
    char vecs[8][200];
    int nv = 0, k = 0, v, i, m, j;

    while ((1 << k) < p)
        k++;
    if ((1 << k) != p)
        return;
    if (p == 16)
        snprintf(vecs[nv++], sizeof vecs[0], "[-0, 1, 2, -3]");
    snprintf(vecs[nv++], sizeof vecs[0], "identity");
    if (k % 2 == 0)
        snprintf(vecs[nv++], sizeof vecs[0], "transpose");
    snprintf(vecs[nv++], sizeof vecs[0], "reversal");
    snprintf(vecs[nv++], sizeof vecs[0], "shuffle");
    snprintf(vecs[nv++], sizeof vecs[0], "unshuffle");
    for (v = 0; v < 2 && k > 0; v++) {   /* random signed permutations */
        int perm[32], len = 0;

        rng = 99u + (unsigned)v;
        for (i = 0; i < k; i++)
            perm[i] = i;
        for (i = k - 1; i > 0; i--) {
            int x = (int)(rnd() % (unsigned)(i + 1)), y = perm[i];

            perm[i] = perm[x];
            perm[x] = y;
        }
        len += snprintf(vecs[nv] + len, sizeof vecs[0] - (size_t)len, "[");
        for (i = 0; i < k; i++)
            len += snprintf(vecs[nv] + len, sizeof vecs[0] - (size_t)len, "%s%s%d",
                            i ? ", " : "", rnd() % 2 ? "-" : "", perm[i]);
        snprintf(vecs[nv] + len, sizeof vecs[0] - (size_t)len, "]");
        nv++;
    }
    if (p == 16)
        for (i = 0; i < 16; i++)
            if (rtopo_bpc_dest(t, vecs[0], i) != table16[i])
                FAIL("bpc %s: rank %d goes to %d, the seed's table says %d", vecs[0], i,
                     rtopo_bpc_dest(t, vecs[0], i), table16[i]);
    for (v = 0; v < nv; v++)
        for (j = 0; j < 3; j++)
            for (m = M_BLOCKING; m <= M_PERSISTENT; m <<= 1) {
                size_t B = sizes[j];
                unsigned tag = 7000u + (unsigned)(v * 10 + j) * 4u + (unsigned)m;
                rtopo_req_t *req = NULL;
                int src = -1, d;

                if (!(modes & m))
                    continue;
                for (i = 0; i < p; i++)
                    if ((d = rtopo_bpc_dest(t, vecs[v], i)) == me)
                        src = i;
                    else if (d < 0)
                        FAIL("rtopo_bpc_dest %s %d: %s", vecs[v], i, rtopo_last_error());
                iu_fill(in, B, me, tag);
                memset(out, 0xa5, B);
                if (m == M_BLOCKING) {
                    CHECK(rtopo_bpc(t, vecs[v], in, out, B));
                } else {
                    CHECK(m == M_NONBLOCKING ? rtopo_ibpc(t, vecs[v], in, out, B, &req) :
                          rtopo_bpc_init(t, vecs[v], in, out, B, &req));
                    if (m == M_PERSISTENT)
                        CHECK(rtopo_start(req));
                    CHECK(rtopo_wait(req));
                    CHECK(rtopo_req_free(req));
                }
                if (src < 0 || iu_first_bad(out, B, src, tag) >= 0)
                    FAIL("bpc %s, %zu bytes: byte %ld differs from rank %d's", vecs[v], B,
                         src < 0 ? -1 : iu_first_bad(out, B, src, tag), src);
                ++*checks;
            }
}

/* ---- sort ---- */
#define SREC 24
static int s_dbl, s_desc;

static int fkey(const uint8_t *a, const uint8_t *b)
{
    if (s_dbl) {
        double x, y;
        int nx, ny;

        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        nx = isnan(x) != 0;
        ny = isnan(y) != 0;
        if (nx || ny)
            return nx - ny;
        return (x > y) - (x < y);
    } else {
        int64_t x, y;

        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
}

/* records carry their origin (rank, index) at byte 8: ties by it */
static int srt_cmp(const void *x, const void *y)
{
    const uint8_t *a = x, *b = y;
    int c = fkey(a, b);
    int64_t u, v;

    if (s_desc)
        c = -c;
    if (c)
        return c;
    memcpy(&u, a + 8, 8);
    memcpy(&v, b + 8, 8);
    return (u > v) - (u < v);
}

static void srt_make(uint8_t *rec, int r, long i, unsigned tag)
{
    int64_t origin = (int64_t)r * 1000000 + i, iv;
    double dv;

    rng = (uint64_t)tag * 1000003u + (uint64_t)origin * 7919u;
    memset(rec, 0, SREC);
    if (s_dbl) {
        uint32_t u = rnd() % 20;

        dv = u == 0 ? NAN : u == 1 ? INFINITY : u == 2 ? -INFINITY : (double)(rnd() % 9) / 2;
        memcpy(rec, &dv, 8);
    } else {
        iv = rnd() % 11 == 0 ? INT64_MAX : (int64_t)(rnd() % 13) - 6;
        memcpy(rec, &iv, 8);
    }
    memcpy(rec + 8, &origin, 8);
    memcpy(rec + 16, &tag, sizeof tag);
}

static void run_sort(rtopo_topo_t *t, unsigned modes, long *checks)
{
    static const long counts[3] = { 1, 5, 300 };
    static const rtopo_coll_algo_t algos[3] = { RTOPO_COLL_AUTO, RTOPO_COLL_TOPO,
                                                RTOPO_COLL_GENERIC };
    int ci, m, dbl, desc, inplace, a;
    long i, r;

    for (a = 0; a < 3; a++) {
    CHECK(rtopo_topo_set_coll_algo(t, algos[a]));
    for (ci = 0; ci < 3; ci++)
        for (dbl = 0; dbl < 2; dbl++)
            for (desc = 0; desc < 2; desc++)
                for (m = M_BLOCKING; m <= M_PERSISTENT; m <<= 1)
                    for (inplace = 0; inplace < 2; inplace++) {
                        long k = counts[ci];
                        unsigned tag = 9000u + (unsigned)(ci * 16 + dbl * 8 + desc * 4 + m);
                        uint8_t *all = malloc((size_t)(p * k) * SREC);
                        uint8_t *in = malloc((size_t)k * SREC), *out = malloc((size_t)k * SREC);
                        rtopo_datatype_t kt = dbl ? RTOPO_DOUBLE : RTOPO_INT64;
                        rtopo_req_t *req = NULL;

                        if (!(modes & m) || (inplace && m != M_BLOCKING) || !all || !in ||
                            !out) {
                            free(all), free(in), free(out);
                            continue;
                        }
                        s_dbl = dbl;
                        s_desc = desc;
                        for (r = 0; r < p; r++)
                            for (i = 0; i < k; i++)
                                srt_make(all + (r * k + i) * SREC, (int)r, i, tag);
                        memcpy(in, all + (long)me * k * SREC, (size_t)k * SREC);
                        memset(out, 0xa5, (size_t)k * SREC);
                        qsort(all, (size_t)(p * k), SREC, srt_cmp);
                        if (inplace) {
                            CHECK(rtopo_sort(t, in, in, (size_t)k, SREC, kt, desc));
                            memcpy(out, in, (size_t)k * SREC);
                        } else if (m == M_BLOCKING) {
                            CHECK(rtopo_sort(t, in, out, (size_t)k, SREC, kt, desc));
                        } else {
                            CHECK(m == M_NONBLOCKING ?
                                  rtopo_isort(t, in, out, (size_t)k, SREC, kt, desc, &req) :
                                  rtopo_sort_init(t, in, out, (size_t)k, SREC, kt, desc, &req));
                            if (m == M_PERSISTENT) {
                                CHECK(rtopo_start(req));
                                CHECK(rtopo_wait(req));
                                memset(out, 0xa5, (size_t)k * SREC);
                                CHECK(rtopo_start(req));   /* again, same input */
                            }
                            CHECK(rtopo_wait(req));
                            CHECK(rtopo_req_free(req));
                        }
                        for (i = 0; i < k; i++)
                            if (memcmp(out + i * SREC, all + ((long)me * k + i) * SREC, SREC)) {
                                FAIL("sort (algorithm %d) of %ld %s records per rank, %s, "
                                     "%s%s: record %ld is not the %ld-th of the order", a, k,
                                     dbl ? "double" : "int64", desc ? "descending" :
                                     "ascending", m == M_BLOCKING ? "blocking" :
                                     m == M_NONBLOCKING ? "nonblocking" : "persistent",
                                     inplace ? ", in place" : "", i, (long)me * k + i);
                                break;
                            }
                        ++*checks;
                        free(all), free(in), free(out);
                    }
    }
    CHECK(rtopo_topo_set_coll_algo(t, RTOPO_COLL_AUTO));
}

static int run_bad(rtopo_topo_t *t, const char *kind)
{
    uint8_t rec[16] = { 1 }, out[16];
    int got, sel = 1, st, want = RTOPO_ERR_INVAL;
    int64_t dest = -1;
    double t0 = iu_now();

    if (!strcmp(kind, "dest-range")) {
        dest = me == 0 ? 0 : me == 1 ? p + 3 : -1;
        st = rtopo_distribute(t, rec, &dest, out, sizeof rec, &got);
    } else if (!strcmp(kind, "dist-order") || !strcmp(kind, "dist-gap")) {
        /* ranks 0, 1 to 5, 2; or ranks 0, 2 to 1, 5 (rank 1 sends
         * nothing): the checked distribute (AUTO) finds both */
        if (!strcmp(kind, "dist-order"))
            dest = me == 0 ? 5 : me == 1 ? 2 : -1;
        else
            dest = me == 0 ? 1 : me == 2 ? 5 : -1;
        st = rtopo_distribute(t, rec, &dest, out, sizeof rec, &got);
    } else if (!strcmp(kind, "raw-range")) {
        dest = me == 3 ? p : me % 2 ? me / 2 : -1;
        st = rtopo_random_write(t, rec, &dest, out, sizeof rec, &got);
    } else if (!strcmp(kind, "gen-order") || !strcmp(kind, "gen-order-topo")) {
        if (!strcmp(kind, "gen-order-topo"))
            CHECK(rtopo_topo_set_coll_algo(t, RTOPO_COLL_TOPO));
        dest = me == 0 ? 5 : me == 1 ? 2 : -1;
        st = rtopo_generalize(t, rec, &dest, out, sizeof rec, &got);
        /* the single routing finds it late, where the two records meet:
         * a rank whose part was complete by then learns it at its next
         * call */
        if (st == RTOPO_OK && !strcmp(kind, "gen-order-topo"))
            st = rtopo_barrier(ctx);
    } else if (!strcmp(kind, "mismatch-gen-algo")) {
        CHECK(rtopo_topo_set_coll_algo(t, me == p / 2 ? RTOPO_COLL_TOPO : RTOPO_COLL_AUTO));
        dest = me < 3 ? me : -1;
        st = rtopo_generalize(t, rec, &dest, out, sizeof rec, &got);
        if (st == RTOPO_OK)
            st = rtopo_barrier(ctx);
        want = RTOPO_ERR_MISMATCH;
    } else if (!strcmp(kind, "null-got")) {
        st = rtopo_concentrate(t, rec, &sel, out, sizeof rec, me == p - 1 ? NULL : &got);
    } else if (!strcmp(kind, "recsize0")) {
        st = rtopo_concentrate(t, rec, &sel, out, 0, &got);
    } else if (!strcmp(kind, "mismatch-recsize")) {
        st = rtopo_concentrate(t, rec, &sel, out, me == p / 2 ? 8 : sizeof rec, &got);
        if (st == RTOPO_OK)     /* a rank that could complete alone */
            st = rtopo_barrier(ctx);
        want = RTOPO_ERR_MISMATCH;
    } else if (!strcmp(kind, "bpc-vector")) {
        st = rtopo_bpc(t, "[1, 1, 0, 2]", rec, out, sizeof rec);
    } else if (!strcmp(kind, "mismatch-bpc")) {
        st = rtopo_bpc(t, me == p / 2 ? "reversal" : "shuffle", rec, out, sizeof rec);
        if (st == RTOPO_OK)
            st = rtopo_barrier(ctx);
        want = RTOPO_ERR_MISMATCH;
    } else if (!strcmp(kind, "generic")) {
        CHECK(rtopo_topo_set_coll_algo(t, RTOPO_COLL_GENERIC));
        st = rtopo_concentrate(t, rec, &sel, out, sizeof rec, &got);
        want = RTOPO_ERR_UNSUPPORTED;
    } else {
        fprintf(stderr, "route_check: unknown --bad %s\n", kind);
        return 2;
    }
    if (st != want) {
        fprintf(stderr, "rank %d: --bad %s: %s (%s), expected %s\n", me, kind,
                rtopo_strerror(st), rtopo_last_error(), rtopo_strerror(want));
        return 1;
    }
    printf("rank %d: --bad %s: %s after %.3f s: %s\n", me, kind, rtopo_strerror(st),
           iu_now() - t0, rtopo_last_error());
    return 0;
}

int main(int argc, char **argv)
{
    const char *topo = "otis-mesh:4", *bad = NULL;
    long recs[16] = { 1, 13, 64, 1000 }, nrec = 4, rounds = 6;
    unsigned modes = M_BLOCKING | M_NONBLOCKING | M_PERSISTENT;
    rtopo_topo_t *t;
    int i, *sel, q, otis, st, a;
    int64_t *dest;
    double t0;
    long any = 0, checks = 0;

    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--topo") && a + 1 < argc) {
            topo = argv[++a];
        } else if (!strcmp(argv[a], "--rounds") && a + 1 < argc) {
            rounds = atol(argv[++a]);
        } else if (!strcmp(argv[a], "--records") && a + 1 < argc) {
            nrec = parse_list(argv[++a], recs, 16);
            for (i = 0; i < nrec; i++)
                if (recs[i] < 1 || recs[i] > MAXREC)
                    nrec = -1;
        } else if (!strcmp(argv[a], "--modes") && a + 1 < argc) {
            char buf[128], *tok, *save = NULL;

            snprintf(buf, sizeof buf, "%s", argv[++a]);
            modes = 0;
            for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
                modes |= !strcmp(tok, "blocking") ? M_BLOCKING :
                         !strcmp(tok, "nonblocking") ? M_NONBLOCKING :
                         !strcmp(tok, "persistent") ? M_PERSISTENT : 1u << 8;
            if (modes >> 8)
                modes = 0;
        } else if (!strcmp(argv[a], "--bad") && a + 1 < argc) {
            bad = argv[++a];
        } else {
            nrec = -1;
        }
    }
    if (nrec < 1 || rounds < 1 || !modes) {
        fprintf(stderr, "usage: route_check [--topo T] [--rounds R] [--records B,...] "
                "[--modes blocking,nonblocking,persistent] [--bad KIND]\n");
        return 2;
    }
    CHECK(rtopo_init(NULL, &ctx));
    p = rtopo_size(ctx);
    if (!strncmp(topo, "otis-mesh:", 10))
        st = rtopo_topo_otis_mesh(ctx, atoi(topo + 10), &t);
    else if (!strncmp(topo, "otis-hypercube:", 15))
        st = rtopo_topo_otis_hypercube(ctx, atoi(topo + 15), &t);
    else if (!strncmp(topo, "hypercube:", 10))
        st = rtopo_topo_hypercube(ctx, atoi(topo + 10), &t);
    else
        st = rtopo_topo_ring(ctx, &t);
    CHECK(st);
    me = rtopo_topo_rank(t);
    otis = !strncmp(topo, "otis-mesh:", 10) || !strncmp(topo, "otis-hypercube:", 15);
    if (bad) {
        /* every rank is past the topology's creation before one fails;
         * a fast rank's failure may still reach a slow one inside this
         * barrier, which then reports it */
        st = rtopo_barrier(ctx);
        if (st == RTOPO_OK) {
            st = run_bad(t, bad);
        } else {
            printf("rank %d: --bad %s: %s in the barrier before: %s\n", me, bad,
                   rtopo_strerror(st), rtopo_last_error());
            st = st == (strstr(bad, "mismatch") ? RTOPO_ERR_MISMATCH : RTOPO_ERR_INVAL) ? 0 : 1;
        }
        rtopo_finalize(ctx);
        return st;
    }
    sel = calloc((size_t)p, sizeof(*sel));
    dest = calloc((size_t)p, sizeof(*dest));
    if (!sel || !dest)
        return 1;
    t0 = iu_now();
    for (i = 0; i < nrec; i++) {
        size_t R = (size_t)recs[i];
        uint8_t rec[MAXREC], out[MAXREC];
        int op, m;

        for (op = 0; op < NOP; op++)
            for (a = 0; a < (op == OP_GEN || op == OP_DIST ? 2 : 1); a++)
            for (m = M_BLOCKING; m <= M_PERSISTENT; m <<= 1) {
                const char *mname = m == M_BLOCKING ? (a ? "blocking topo" : "blocking") :
                                    m == M_NONBLOCKING ? (a ? "nonblocking topo" :
                                                          "nonblocking") :
                                    a ? "persistent topo" : "persistent";
                rtopo_req_t *req = NULL;
                int my_sel = 0, got = -7;
                int64_t my_dest = -1, rank = -7;
                unsigned round;

                if (!(modes & m) || (op == OP_RANK && i > 0))
                    continue;
                CHECK(rtopo_topo_set_coll_algo(t, a ? RTOPO_COLL_TOPO : RTOPO_COLL_AUTO));
                if (!otis && op != OP_RANK) {
                    st = call(t, op, m, rec, &my_sel, &my_dest, out, R, &got, &rank, &req);
                    if (st != RTOPO_ERR_UNSUPPORTED)
                        FAIL("%s on %s: %s, expected unsupported", opname[op], topo,
                             rtopo_strerror(st));
                    continue;
                }
                for (round = 0; round < (unsigned)rounds; round++) {
                    unsigned tag = (unsigned)(op * 1000 + i * 100 + a * 50) + round;

                    draw(tag, sel, dest, &q);
                    if (op == OP_RAW || op == OP_RAR)   /* any ranks, any targets */
                        for (q = 0; q < p; q++)
                            dest[q] = round % 5 == 0 ? -1 : rnd() % 3 == 0 ? -1 :
                                      (int64_t)(rnd() % (unsigned)(p / 2 + 1));
                    my_sel = sel[me];
                    my_dest = dest[me];
                    iu_fill(rec, R, me, tag);
                    memset(out, 0xa5, R);
                    got = -7;
                    rank = -7;
                    if (m != M_PERSISTENT || round == 0)
                        CHECK(call(t, op, m, rec, &my_sel, &my_dest, out, R, &got, &rank,
                                   &req));
                    if (m == M_PERSISTENT)
                        CHECK(rtopo_start(req));
                    if (m != M_BLOCKING)
                        CHECK(rtopo_wait(req));
                    if (m == M_NONBLOCKING) {
                        CHECK(rtopo_req_free(req));
                        req = NULL;
                    }
                    check(op, tag, R, sel, dest, q, out, got, rank, mname);
                    checks++;
                }
                if (req)
                    CHECK(rtopo_req_free(req));
            }
    }
    CHECK(rtopo_topo_set_coll_algo(t, RTOPO_COLL_AUTO));
    run_bpc(t, modes, &checks);
    run_sort(t, modes, &checks);
    CHECK(rtopo_allreduce(t, &nbad, &any, 1, RTOPO_INT64, RTOPO_SUM));
    if (me == 0)
        printf("route_check %s, %d ranks: %ld operations checked per rank in %.2f s, %s\n",
               topo, p, checks, iu_now() - t0, any ? "ERRORS" : "all correct");
    CHECK(rtopo_topo_free(t));
    CHECK(rtopo_finalize(ctx));
    return any != 0;
}
