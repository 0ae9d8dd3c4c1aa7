/*
 * rtopo-bench-mpi - rtopo against the MPI code a user would write
 * instead, in one job under mpirun, with one timing method for every
 * column.
 *
 *   mpirun -n N rtopo-bench-mpi [--topo T] [--algo A] [--q Q]
 *        [--sizes LIST|MIN:MAX] [--iters N] [--block N] [--warmup N]
 *        [--modes blocking,persistent] [--buffers registered,unregistered]
 *        [--unregistered] [--no-raw] [--json FILE] [--plot FILE.png]
 *
 * MPI is initialised first; rtopo bootstraps through an allgather over
 * MPI_COMM_WORLD (rtopo_config_t.allgather).  For every size, the
 * circular shift (rank i's data to rank (i+q) mod p) is timed as:
 *   - rtopo: rtopo_shift (blocking) or rtopo_shift_init once, then
 *     rtopo_start + rtopo_wait (persistent), on registered buffers
 *     (rtopo_mem_register) or unregistered ones;
 *   - MPI: MPI_Sendrecv to (i+q) mod p from (i-q) mod p;
 *   - cart (mesh topologies only): MPI_Cart_create + MPI_Cart_shift along
 *     the rows + MPI_Sendrecv, the neighbour exchange a mesh code writes;
 *     a different data movement, shown for reference;
 *   - raw: one RDMA write with immediate of the same size straight
 *     through the transport (bench_raw.c), the floor under rtopo.
 * Every iteration of every column is MPI_Barrier, t0, the operation, t1;
 * per iteration the slowest rank counts (MPI_Allreduce MAX); the median
 * and minimum over the iterations are reported.  Columns run in blocks of
 * --block iterations, one block of each in turn, the order rotating from
 * block to block, so that a drift of the machine hits them alike.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "rtopo_int.h"
#include "bench_raw.h"

#define MAX_SIZES 64
#define MAX_COLS 8

extern char **environ;

enum { COL_MPI, COL_CART, COL_RAW, COL_RTOPO };

typedef struct col {
    int kind;
    int persistent, unreg;      /* rtopo columns */
    const char *name;           /* short name: "mpi", "blocking/registered", ... */
    const char *label;          /* what it is, for the header and the plot */
    int on;
    rtopo_req_t *req;           /* persistent request of the current size */
} col_t;

static struct {
    const char *topo, *algo, *json, *plot;
    long q;
    long sizes[MAX_SIZES];
    int nsizes, iters, block, warmup, raw;
    int modes, buffers;         /* bit 0 blocking / registered, bit 1 persistent / unregistered */
    int rank, size;
    int rows, cols_mesh;        /* mesh:RxC, else 0 */
    rtopo_ctx_t *ctx;
    rtopo_topo_t *t;            /* the topology of the shift */
    MPI_Comm cart;
    col_t col[MAX_COLS];
    int ncol;
    /* buffers: registered pair (rtopo registered, raw), plain pair
     * (MPI, rtopo unregistered) */
    uint8_t *sb, *rb, *usb, *urb;
    size_t maxb;
    rtopo_mem_t *smem, *rmem;
    bench_raw_t rawt;
    int dst, src, cart_dst, cart_src;
    /* results: [size][col] */
    double med[MAX_SIZES][MAX_COLS], min[MAX_SIZES][MAX_COLS];
    int its[MAX_SIZES];
} B = { .topo = "ring", .algo = "auto", .q = 1, .iters = 100, .block = 10,
        .warmup = 10, .raw = 1, .modes = 3, .buffers = 3, .cart = MPI_COMM_NULL };

/* ---- command line ------------------------------------------------------- */

/* the rank from the launcher's environment, before MPI_Init: only rank 0
 * prints usage messages */
static int env_rank(void)
{
    static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                        "RTOPO_RANK" };
    size_t k;
    const char *v;

    for (k = 0; k < sizeof(vars) / sizeof(vars[0]); k++)
        if ((v = getenv(vars[k])) && *v)
            return atoi(v);
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -n N rtopo-bench-mpi [--topo ring|mesh:RxC|hypercube:D|otis-mesh:N|otis-hypercube:N]\n"
            "                  [--algo auto|ring|mesh|hypercube|ecube|direct] [--q Q]\n"
            "                  [--sizes LIST|MIN:MAX] [--iters N] [--block N] [--warmup N]\n"
            "                  [--modes blocking,persistent] [--buffers registered,unregistered]\n"
            "                  [--unregistered] [--no-raw] [--json FILE] [--plot FILE.png]\n"
            "       rtopo-bench-mpi --help\n"
            "times the circular shift with rtopo and with MPI_Sendrecv in the same job\n");
}

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *fmt, ...)
{
    va_list ap;

    if (env_rank() == 0) {
        fputs("rtopo-bench-mpi: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        usage(stderr);
    }
    exit(2);
}

static long parse_long(const char *opt, const char *s, long lo, long hi)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 0);
    if (errno || end == s || *end)
        usage_error("%s '%s' is not an integer", opt, s);
    if (v < lo)
        usage_error("%s must be at least %ld (got %ld)", opt, lo, v);
    if (v > hi)
        usage_error("%s must be at most %ld (got %ld)", opt, hi, v);
    return v;
}

static void parse_sizes(const char *s)
{
    const char *arg = s;
    long lo, hi, v;
    char *end;

    B.nsizes = 0;
    if (sscanf(s, "%ld:%ld", &lo, &hi) == 2 && !strchr(s, ',')) {
        if (lo < 0 || hi < lo || hi > INT_MAX)
            usage_error("--sizes %s: need 0 <= MIN <= MAX <= %d", arg, INT_MAX);
        B.sizes[B.nsizes++] = lo;
        for (v = lo ? lo * 2 : 1; v <= hi && B.nsizes < MAX_SIZES; v *= 2)
            B.sizes[B.nsizes++] = v;
        return;
    }
    while (*s && B.nsizes < MAX_SIZES) {
        errno = 0;
        v = strtol(s, &end, 0);
        if (errno || end == s || v < 0 || v > INT_MAX || (*end && *end != ','))
            usage_error("--sizes '%s' is not a list of byte counts (8,1024,...) "
                        "up to %d, or MIN:MAX", arg, INT_MAX);
        B.sizes[B.nsizes++] = v;
        s = *end == ',' ? end + 1 : end;
    }
    if (B.nsizes == 0)
        usage_error("--sizes '%s' names no size", arg);
}

/* a comma-separated list of words from names[0..1], as a bit mask */
static int parse_pair(const char *opt, const char *s, const char *a, const char *b)
{
    int mask = 0;
    size_t n;

    while (*s) {
        n = strcspn(s, ",");
        if (n == strlen(a) && !strncmp(s, a, n))
            mask |= 1;
        else if (n == strlen(b) && !strncmp(s, b, n))
            mask |= 2;
        else
            usage_error("%s '%s': the words are %s and %s", opt, s, a, b);
        s += n;
        if (*s == ',')
            s++;
    }
    if (!mask)
        usage_error("%s names nothing (%s, %s)", opt, a, b);
    return mask;
}

/* ---- failures ----------------------------------------------------------- */

static void fail(const char *what, int st) __attribute__((noreturn));
static void fail(const char *what, int st)
{
    fprintf(stderr, "rtopo-bench-mpi: rank %d: %s: %s (%s)\n", B.rank, what,
            rtopo_strerror(st), rtopo_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void mpi_check(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (rc == MPI_SUCCESS)
        return;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "rtopo-bench-mpi: rank %d: %s: %s\n", B.rank, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* rtopo's out-of-band allgather, over MPI_COMM_WORLD */
static int mpi_allgather(const void *sendbuf, void *recvbuf, size_t len, void *arg)
{
    if (len > INT_MAX)
        return -1;
    return MPI_Allgather(sendbuf, (int)len, MPI_BYTE, recvbuf, (int)len, MPI_BYTE,
                         *(MPI_Comm *)arg) == MPI_SUCCESS ? 0 : -1;
}

/* ---- set-up ------------------------------------------------------------- */

static int make_topo(rtopo_topo_t **t)
{
    int a, b;

    if (!strcmp(B.topo, "ring"))
        return rtopo_topo_ring(B.ctx, t);
    if (sscanf(B.topo, "mesh:%dx%d", &a, &b) == 2)
        return rtopo_topo_mesh(B.ctx, a, b, t);
    if (sscanf(B.topo, "hypercube:%d", &a) == 1)
        return rtopo_topo_hypercube(B.ctx, a, t);
    if (sscanf(B.topo, "otis-mesh:%d", &a) == 1)
        return rtopo_topo_otis_mesh(B.ctx, a, t);
    if (sscanf(B.topo, "otis-hypercube:%d", &a) == 1)
        return rtopo_topo_otis_hypercube(B.ctx, a, t);
    return RTOPO_ERR_INVAL;
}

static void add_col(int kind, int persistent, int unreg, const char *name, const char *label)
{
    col_t *c = &B.col[B.ncol++];

    c->kind = kind;
    c->persistent = persistent;
    c->unreg = unreg;
    c->name = name;
    c->label = label;
    c->on = 1;
}

static void setup_cols(void)
{
    add_col(COL_MPI, 0, 0, "mpi", "MPI_Sendrecv");
    if (B.rows)
        add_col(COL_CART, 0, 0, "cart", "MPI_Cart_shift + MPI_Sendrecv (row shift)");
    if (B.raw)
        add_col(COL_RAW, 0, 0, "raw", "raw transport write");
    if ((B.modes & 1) && (B.buffers & 1))
        add_col(COL_RTOPO, 0, 0, "blocking/registered", "rtopo_shift, registered");
    if ((B.modes & 2) && (B.buffers & 1))
        add_col(COL_RTOPO, 1, 0, "persistent/registered",
                "rtopo_start+rtopo_wait, registered");
    if ((B.modes & 1) && (B.buffers & 2))
        add_col(COL_RTOPO, 0, 1, "blocking/unregistered", "rtopo_shift, unregistered");
    if ((B.modes & 2) && (B.buffers & 2))
        add_col(COL_RTOPO, 1, 1, "persistent/unregistered",
                "rtopo_start+rtopo_wait, unregistered");
}

static void alloc_bufs(void)
{
    int i, st;

    B.maxb = 0;
    for (i = 0; i < B.nsizes; i++)
        if ((size_t)B.sizes[i] > B.maxb)
            B.maxb = (size_t)B.sizes[i];
    B.maxb += 64;
    if (posix_memalign((void **)&B.sb, 4096, B.maxb) ||
        posix_memalign((void **)&B.rb, 4096, B.maxb) ||
        posix_memalign((void **)&B.usb, 4096, B.maxb) ||
        posix_memalign((void **)&B.urb, 4096, B.maxb))
        fail("memory", RTOPO_ERR_NOMEM);
    /* every byte of rank i's data is i + 1 */
    memset(B.sb, B.rank + 1, B.maxb);
    memset(B.usb, B.rank + 1, B.maxb);
    memset(B.rb, 0, B.maxb);
    memset(B.urb, 0, B.maxb);
    if ((st = rtopo_mem_register(B.ctx, B.sb, B.maxb, &B.smem)) ||
        (st = rtopo_mem_register(B.ctx, B.rb, B.maxb, &B.rmem)))
        fail("rtopo_mem_register", st);
}

/* ---- one block of one column -------------------------------------------- */

static int iters_for(size_t bytes)
{
    long it = B.iters;

    /* large sizes: about 256 MiB per rank and column, at least 10 */
    if (bytes > 0 && (long)((256ul << 20) / bytes) < it)
        it = (long)((256ul << 20) / bytes);
    if (it < 10)
        it = B.iters < 10 ? B.iters : 10;
    return (int)it;
}

static void op(col_t *c, size_t n, int i)
{
    int st;
    const uint8_t *s = c->unreg ? B.usb : B.sb;
    uint8_t *r = c->unreg ? B.urb : B.rb;

    switch (c->kind) {
    case COL_MPI:
        mpi_check("MPI_Sendrecv",
                  MPI_Sendrecv(B.usb, (int)n, MPI_BYTE, B.dst, 7, B.urb, (int)n, MPI_BYTE,
                               B.src, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        break;
    case COL_CART:
        mpi_check("MPI_Sendrecv (cart)",
                  MPI_Sendrecv(B.usb, (int)n, MPI_BYTE, B.cart_dst, 8, B.urb, (int)n, MPI_BYTE,
                               B.cart_src, 8, B.cart, MPI_STATUS_IGNORE));
        break;
    case COL_RAW:
        if ((st = bench_raw_round(&B.rawt, n, (uint32_t)(i & 0xffff))))
            fail(B.rawt.what, st);
        break;
    default:
        if (c->req) {
            if ((st = rtopo_start(c->req)) || (st = rtopo_wait(c->req)))
                fail("rtopo_start/rtopo_wait", st);
        } else if ((st = rtopo_shift(B.t, s, r, n, (int)B.q))) {
            fail("rtopo_shift", st);
        }
    }
}

/* the receive buffer a column writes into, and the rank whose data lands */
static uint8_t *col_rbuf(const col_t *c)
{
    return c->kind == COL_RAW || (c->kind == COL_RTOPO && !c->unreg) ? B.rb : B.urb;
}

static int col_src(const col_t *c)
{
    return c->kind == COL_CART ? B.cart_src : B.src;
}

/* `warm` untimed iterations, then cnt timed ones into t[] */
static void run_block(col_t *c, size_t n, double *t, int cnt, int warm)
{
    uint8_t *r = col_rbuf(c);
    uint8_t want = (uint8_t)(col_src(c) + 1);
    double t0;
    int i;

    if (n) {
        r[0] = 0;
        r[n - 1] = 0;
    }
    if (c->kind == COL_RAW) {
        /* no engine traffic may be left for the raw poll to take */
        int st = rtopo_barrier(B.ctx);
        if (st)
            fail("rtopo_barrier", st);
        bench_raw_begin(&B.rawt);
    }
    for (i = -warm; i < cnt; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        op(c, n, i);
        if (i >= 0)
            t[i] = (MPI_Wtime() - t0) * 1e6;
    }
    if (n && (r[0] != want || r[n - 1] != want)) {
        fprintf(stderr, "rtopo-bench-mpi: rank %d: %s, %zu bytes: received %u...%u, "
                "expected %u from rank %d\n", B.rank, c->name, n, r[0], r[n - 1], want,
                col_src(c));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void measure(void)
{
    int i, k, st;

    for (i = 0; i < B.nsizes; i++) {
        size_t n = (size_t)B.sizes[i];
        int it = iters_for(n), b, off, cnt;
        double *t = malloc(sizeof(double) * (size_t)it * (size_t)B.ncol);

        if (!t)
            fail("memory", RTOPO_ERR_NOMEM);
        B.its[i] = it;
        for (k = 0; k < B.ncol; k++) {
            col_t *c = &B.col[k];
            c->req = NULL;
            if (c->kind == COL_RTOPO && c->persistent &&
                (st = rtopo_shift_init(B.t, c->unreg ? B.usb : B.sb,
                                       c->unreg ? B.urb : B.rb, n, (int)B.q, &c->req)))
                fail("rtopo_shift_init", st);
        }
        for (b = 0, off = 0; off < it; b++, off += cnt) {
            cnt = it - off < B.block ? it - off : B.block;
            for (k = 0; k < B.ncol; k++) {
                int j = (k + b) % B.ncol;
                run_block(&B.col[j], n, t + (size_t)j * it + off, cnt, b ? 1 : B.warmup);
            }
        }
        for (k = 0; k < B.ncol; k++)
            if (B.col[k].req) {
                rtopo_req_free(B.col[k].req);
                B.col[k].req = NULL;
            }
        /* per iteration, the slowest rank */
        mpi_check("MPI_Allreduce", MPI_Allreduce(MPI_IN_PLACE, t, it * B.ncol, MPI_DOUBLE,
                                                 MPI_MAX, MPI_COMM_WORLD));
        for (k = 0; k < B.ncol; k++) {
            double *v = t + (size_t)k * it;
            qsort(v, (size_t)it, sizeof(*v), cmp_double);
            B.med[i][k] = it % 2 ? v[it / 2] : (v[it / 2 - 1] + v[it / 2]) / 2;
            B.min[i][k] = v[0];
        }
        free(t);
    }
}

/* ---- output ------------------------------------------------------------- */

static char mpi_lib[MPI_MAX_LIBRARY_VERSION_STRING];
static char mpi_env[1024];

static int mpi_env_relevant(const char *e)
{
    static const char *const pre[] = { "OMPI_MCA_pml", "OMPI_MCA_btl", "OMPI_MCA_mtl",
                                       "OMPI_MCA_osc", "OMPI_MCA_mpi_yield_when_idle" };
    size_t k;

    for (k = 0; k < sizeof(pre) / sizeof(pre[0]); k++)
        if (!strncmp(e, pre[k], strlen(pre[k])))
            return 1;
    return 0;
}

/* the first line of the MPI library's version, and its OMPI_MCA_* choices */
static void describe_mpi(void)
{
    char **e;
    int len = 0;
    size_t used = 0;

    MPI_Get_library_version(mpi_lib, &len);
    mpi_lib[strcspn(mpi_lib, "\n,")] = 0;
    mpi_env[0] = 0;
    for (e = environ; *e; e++)
        if (mpi_env_relevant(*e) && used + strlen(*e) + 2 < sizeof(mpi_env))
            used += (size_t)snprintf(mpi_env + used, sizeof(mpi_env) - used, "%s%s",
                                     used ? " " : "", *e);
}

static int find_col(int kind)
{
    int k;
    for (k = 0; k < B.ncol; k++)
        if (B.col[k].kind == kind)
            return k;
    return -1;
}

static void print_header(FILE *f)
{
    const char *tr = getenv("RTOPO_TRANSPORT");

    fprintf(f, "# rtopo-bench-mpi: %d rank%s, topology %s, algorithm %s, q %ld: rank i sends "
            "its data to rank (i%+ld) mod %d\n", B.size, B.size == 1 ? "" : "s", B.topo,
            B.algo, B.q, B.q, B.size);
    fprintf(f, "# rtopo %s: transport %s, provider %s; bootstrap over MPI_Allgather\n",
            rtopo_version(), tr && *tr ? tr : "auto", B.ctx->tlattr.provider);
    fprintf(f, "# MPI: %s; %s\n", mpi_lib,
            mpi_env[0] ? mpi_env : "no OMPI_MCA_pml/btl/mtl set (Open MPI chooses)");
    fprintf(f, "# timing, every column alike: MPI_Barrier, t0, one operation, t1 (MPI_Wtime) "
            "on each rank; per iteration the slowest rank (MPI_Allreduce MAX); median and "
            "min over the iterations, in microseconds\n");
    fprintf(f, "# blocks of %d iterations, one block per column in turn, the order rotating; "
            "%d warm-up iterations per column before the first block, 1 before the others\n",
            B.block, B.warmup);
    fprintf(f, "# MPI   = MPI_Sendrecv to (i+q) mod p from (i-q) mod p, plain malloc'd "
            "buffers, MPI_COMM_WORLD\n");
    if (find_col(COL_CART) >= 0)
        fprintf(f, "# cart  = MPI_Cart_create %dx%d periodic + MPI_Cart_shift(dimension 1, q) "
                "+ MPI_Sendrecv: the row neighbour exchange of a mesh code, not the same "
                "data movement (for reference, not in the ratio)\n", B.rows, B.cols_mesh);
    if (find_col(COL_RAW) >= 0)
        fprintf(f, "# raw   = one RDMA write with immediate data to (i+q) mod p straight "
                "through rtopo's transport, registered memory, waiting for the write from "
                "(i-q) mod p: the floor under rtopo\n");
    else if (!B.raw)
        fprintf(f, "# raw   = not measured\n");
    fprintf(f, "# ratio = MPI median / rtopo median: > 1 means rtopo is faster\n");
}

static void print_tables(FILE *f)
{
    int mk = find_col(COL_MPI), ck = find_col(COL_CART), rk = find_col(COL_RAW), k, i;

    for (k = 0; k < B.ncol; k++) {
        col_t *c = &B.col[k];
        if (c->kind != COL_RTOPO)
            continue;
        fprintf(f, "\n# rtopo = %s\n", c->persistent
                ? (c->unreg ? "persistent: rtopo_shift_init once per size, then rtopo_start + "
                              "rtopo_wait; unregistered buffers (staged)"
                            : "persistent: rtopo_shift_init once per size, then rtopo_start + "
                              "rtopo_wait; buffers registered with rtopo_mem_register")
                : (c->unreg ? "blocking rtopo_shift; unregistered buffers (staged)"
                            : "blocking rtopo_shift; buffers registered with "
                              "rtopo_mem_register"));
        fprintf(f, "# %10s %11s %11s %11s %11s %10s", "bytes", "rtopo med", "rtopo min",
                "MPI med", "MPI min", "MPI/rtopo");
        if (ck >= 0)
            fprintf(f, " %11s %11s", "cart med", "cart min");
        if (rk >= 0)
            fprintf(f, " %11s %11s", "raw med", "raw min");
        fputc('\n', f);
        for (i = 0; i < B.nsizes; i++) {
            fprintf(f, "  %10ld %11.2f %11.2f %11.2f %11.2f %10.3f", B.sizes[i], B.med[i][k],
                    B.min[i][k], B.med[i][mk], B.min[i][mk],
                    B.med[i][k] > 0 ? B.med[i][mk] / B.med[i][k] : 0.0);
            if (ck >= 0)
                fprintf(f, " %11.2f %11.2f", B.med[i][ck], B.min[i][ck]);
            if (rk >= 0)
                fprintf(f, " %11.2f %11.2f", B.med[i][rk], B.min[i][rk]);
            fputc('\n', f);
        }
    }
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void json_stat(FILE *f, int i, int k)
{
    fprintf(f, "{\"median_us\":%.3f,\"min_us\":%.3f}", B.med[i][k], B.min[i][k]);
}

static int write_json(const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    int i, k, first, mk = find_col(COL_MPI);
    const char *tr = getenv("RTOPO_TRANSPORT");
    char **e;

    if (!f) {
        fprintf(stderr, "rtopo-bench-mpi: --json %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "{\"tool\":\"rtopo-bench-mpi\",\"rtopo_version\":");
    json_str(f, rtopo_version());
    fprintf(f, ",\"ranks\":%d,\"topology\":", B.size);
    json_str(f, B.topo);
    fprintf(f, ",\"algo\":");
    json_str(f, B.algo);
    fprintf(f, ",\"q\":%ld,\"rtopo_transport\":", B.q);
    json_str(f, tr && *tr ? tr : "auto");
    fprintf(f, ",\"rtopo_provider\":");
    json_str(f, B.ctx->tlattr.provider);
    fprintf(f, ",\"mpi_library\":");
    json_str(f, mpi_lib);
    fprintf(f, ",\"mpi_env\":{");
    for (e = environ, first = 1; *e; e++) {
        const char *eq = strchr(*e, '=');
        char name[256];
        if (!eq || !mpi_env_relevant(*e) || (size_t)(eq - *e) >= sizeof(name))
            continue;
        memcpy(name, *e, (size_t)(eq - *e));
        name[eq - *e] = 0;
        fputs(first ? "" : ",", f);
        json_str(f, name);
        fputc(':', f);
        json_str(f, eq + 1);
        first = 0;
    }
    fprintf(f, "},\"timing\":\"MPI_Barrier, t0, op, t1 (MPI_Wtime); per iteration the "
            "maximum over ranks; median and min over iterations\",\"block\":%d,"
            "\"warmup\":%d,\"unit\":\"us\",\"results\":[", B.block, B.warmup);
    for (i = 0; i < B.nsizes; i++) {
        fprintf(f, "%s\n{\"bytes\":%ld,\"iters\":%d", i ? "," : "", B.sizes[i], B.its[i]);
        for (k = 0; k < B.ncol; k++)
            if (B.col[k].kind != COL_RTOPO) {
                fprintf(f, ",\"%s\":", B.col[k].name);
                json_stat(f, i, k);
            }
        fprintf(f, ",\"rtopo\":[");
        for (k = 0, first = 1; k < B.ncol; k++) {
            col_t *c = &B.col[k];
            if (c->kind != COL_RTOPO)
                continue;
            fprintf(f, "%s{\"mode\":\"%s\",\"buffers\":\"%s\",\"median_us\":%.3f,"
                    "\"min_us\":%.3f,\"ratio_mpi_over_rtopo\":%.4f}", first ? "" : ",",
                    c->persistent ? "persistent" : "blocking",
                    c->unreg ? "unregistered" : "registered", B.med[i][k], B.min[i][k],
                    B.med[i][k] > 0 ? B.med[i][mk] / B.med[i][k] : 0.0);
            first = 0;
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n]}\n");
    if (f != stdout && fclose(f)) {
        fprintf(stderr, "rtopo-bench-mpi: --json %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* gnuplot on the PATH, looked for without starting a process */
static int have_gnuplot(void)
{
    const char *path = getenv("PATH");
    char dir[4096];
    size_t n;

    for (path = path ? path : "/usr/bin:/bin"; ; path += n + 1) {
        n = strcspn(path, ":");
        if (n > 0 && n + sizeof("/gnuplot") < sizeof(dir)) {
            memcpy(dir, path, n);
            strcpy(dir + n, "/gnuplot");
            if (access(dir, X_OK) == 0)
                return 1;
        }
        if (!path[n])
            return 0;
    }
}

/* time and bandwidth against size, one line per column; after
 * MPI_Finalize, since it starts a process */
static int draw_plot(const char *png, const char *title)
{
    FILE *g = popen("gnuplot", "w");
    int i, k, st;

    if (!g) {
        fprintf(stderr, "rtopo-bench-mpi: --plot: cannot start gnuplot: %s\n", strerror(errno));
        return -1;
    }
    fprintf(g, "$d << EOD\n");
    for (i = 0; i < B.nsizes; i++) {
        fprintf(g, "%ld", B.sizes[i] ? B.sizes[i] : 1);
        for (k = 0; k < B.ncol; k++)
            fprintf(g, " %.4f", B.med[i][k]);
        fputc('\n', g);
    }
    fprintf(g, "EOD\n");
    fprintf(g, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) "
            "{ set terminal pngcairo noenhanced size 1400,560 font ',10' } "
            "else { set terminal png noenhanced size 1400,560 }\n");
    fprintf(g, "set output '");
    for (; *png; png++)   /* single quotes: only ' needs doubling */
        fprintf(g, *png == '\'' ? "''" : "%c", *png);
    fprintf(g, "'\n");
    fprintf(g, "set multiplot layout 1,2 title \"%s\"\n", title);
    fprintf(g, "set logscale x 2\nset xlabel 'bytes per rank'\nset grid\nset key top left\n"
            "set xtics (");
    for (i = 0; i < B.nsizes; i++) {   /* a tic at every size measured */
        long v = B.sizes[i] ? B.sizes[i] : 1;
        const char *unit = "B";
        if (v >= (1L << 20) && v % (1L << 20) == 0)
            v >>= 20, unit = "MiB";
        else if (v >= 1024 && v % 1024 == 0)
            v >>= 10, unit = "KiB";
        fprintf(g, "%s'%ld %s' %ld", i ? ", " : "", v, unit, B.sizes[i] ? B.sizes[i] : 1);
    }
    fprintf(g, ")\n");
    {   /* room around the first and last sizes, so that their tics show */
        long lo = B.sizes[0], hi = B.sizes[0];
        for (i = 1; i < B.nsizes; i++) {
            lo = B.sizes[i] < lo ? B.sizes[i] : lo;
            hi = B.sizes[i] > hi ? B.sizes[i] : hi;
        }
        fprintf(g, "set xrange [%g:%g]\n", (lo ? (double)lo : 1.0) / 1.5,
                (hi ? (double)hi : 1.0) * 1.5);
    }
    fprintf(g, "set logscale y\nset ylabel 'median time (us)'\nset title 'time of one shift'\n"
            "plot ");
    for (k = 0; k < B.ncol; k++)
        fprintf(g, "%s$d using 1:%d with linespoints title '%s'", k ? ", " : "", k + 2,
                B.col[k].label);
    fprintf(g, "\nunset logscale y\nset ylabel 'MB/s (10^6 bytes per second)'\n"
            "set title 'bandwidth: bytes per rank / median time'\nplot ");
    for (k = 0; k < B.ncol; k++)
        fprintf(g, "%s$d using 1:($1/$%d) with linespoints title '%s'", k ? ", " : "", k + 2,
                B.col[k].label);
    fprintf(g, "\nunset multiplot\n");
    st = pclose(g);
    if (st != 0) {
        fprintf(stderr, "rtopo-bench-mpi: --plot: gnuplot failed (status %d)\n", st);
        return -1;
    }
    return 0;
}

/* ---- main --------------------------------------------------------------- */

int main(int argc, char **argv)
{
    static const char *const with_value[] = {
        "--topo", "--algo", "--q", "--sizes", "--iters", "--block", "--warmup", "--modes",
        "--buffers", "--json", "--plot"
    };
    rtopo_config_t cfg = RTOPO_CONFIG_INIT;
    MPI_Comm world = MPI_COMM_WORLD;
    const char *o;
    size_t k;
    int i, st, plot_ok = 0, rc = 0;
    char title[512];

    for (i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            if (env_rank() == 0)
                usage(stdout);
            return 0;
        }
    parse_sizes("8,2048,8192,131072,2097152,16777216");
    for (i = 1; i < argc; i++) {
        o = argv[i];
        for (k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
            if (!strcmp(o, with_value[k]) && i + 1 >= argc)
                usage_error("%s needs a value", o);
        if (!strcmp(o, "--topo")) B.topo = argv[++i];
        else if (!strcmp(o, "--algo")) B.algo = argv[++i];
        else if (!strcmp(o, "--q")) B.q = parse_long(o, argv[++i], -(1L << 30), 1L << 30);
        else if (!strcmp(o, "--sizes")) parse_sizes(argv[++i]);
        else if (!strcmp(o, "--iters")) B.iters = (int)parse_long(o, argv[++i], 1, 1 << 20);
        else if (!strcmp(o, "--block")) B.block = (int)parse_long(o, argv[++i], 1, 1 << 20);
        else if (!strcmp(o, "--warmup")) B.warmup = (int)parse_long(o, argv[++i], 0, 1 << 20);
        else if (!strcmp(o, "--modes"))
            B.modes = parse_pair(o, argv[++i], "blocking", "persistent");
        else if (!strcmp(o, "--buffers"))
            B.buffers = parse_pair(o, argv[++i], "registered", "unregistered");
        else if (!strcmp(o, "--unregistered")) B.buffers = 2;
        else if (!strcmp(o, "--no-raw")) B.raw = 0;
        else if (!strcmp(o, "--json")) B.json = argv[++i];
        else if (!strcmp(o, "--plot")) B.plot = argv[++i];
        else usage_error("unknown option '%s'", o);
    }
    if (sscanf(B.topo, "mesh:%dx%d", &B.rows, &B.cols_mesh) != 2)
        B.rows = B.cols_mesh = 0;
    if (rtopo__shift_algo_parse(B.algo) < 0)
        usage_error("unknown algorithm '%s'", B.algo);
    if (B.plot && env_rank() == 0 && !have_gnuplot())
        fprintf(stderr, "rtopo-bench-mpi: --plot %s needs gnuplot, which is not on the PATH "
                "(Debian: apt-get install gnuplot-nox); measuring without the plot\n", B.plot);

    mpi_check("MPI_Init", MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &B.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &B.size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    cfg.rank = B.rank;
    cfg.nranks = B.size;
    cfg.allgather = mpi_allgather;
    cfg.allgather_arg = &world;
    if ((st = rtopo_init(&cfg, &B.ctx)))
        fail("rtopo_init", st);
    if ((st = make_topo(&B.t))) {
        if (st == RTOPO_ERR_INVAL && B.rank == 0)
            fprintf(stderr, "rtopo-bench-mpi: unknown topology '%s' (ring, mesh:RxC, "
                    "hypercube:D, otis-mesh:N, otis-hypercube:N)\n", B.topo);
        else if (B.rank == 0)
            fprintf(stderr, "rtopo-bench-mpi: topology %s on %d ranks: %s (%s)\n", B.topo,
                    B.size, rtopo_strerror(st), rtopo_last_error());
        rtopo_finalize(B.ctx);
        MPI_Finalize();
        return 2;
    }
    if ((st = rtopo_topo_set_shift_algo(B.t, rtopo__shift_algo_parse(B.algo))))
        fail("rtopo_topo_set_shift_algo", st);
    B.dst = (int)(((B.rank + B.q) % B.size + B.size) % B.size);
    B.src = (int)(((B.rank - B.q) % B.size + B.size) % B.size);
    if (B.rows) {
        int dims[2] = { B.rows, B.cols_mesh }, periods[2] = { 1, 1 };
        mpi_check("MPI_Cart_create",
                  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &B.cart));
        mpi_check("MPI_Cart_shift", MPI_Cart_shift(B.cart, 1, (int)B.q, &B.cart_src,
                                                   &B.cart_dst));
    }
    /* the raw write needs a peer, and the completion queue to itself */
    if (B.dst == B.rank || B.ctx->thread_on)
        B.raw = 0;
    setup_cols();
    alloc_bufs();
    if (B.raw && (st = bench_raw_open(&B.rawt, B.ctx, B.q, B.smem, B.rmem)))
        fail(B.rawt.what, st);
    describe_mpi();

    measure();

    if (B.rank == 0) {
        print_header(stdout);
        if (B.ctx->thread_on)
            printf("# raw   = not measured with RTOPO_PROGRESS=thread\n");
        print_tables(stdout);
        fflush(stdout);
        if (B.json && write_json(B.json))
            rc = 1;
        snprintf(title, sizeof(title), "rtopo-bench-mpi: %d ranks, %s, q %ld; rtopo %s "
                 "(provider %s); %s%s%s", B.size, B.topo, B.q,
                 getenv("RTOPO_TRANSPORT") ? getenv("RTOPO_TRANSPORT") : "auto",
                 B.ctx->tlattr.provider, mpi_lib, mpi_env[0] ? ", " : "", mpi_env);
        for (k = 0; title[k]; k++)   /* the title goes inside double quotes */
            if (title[k] == '"' || title[k] == '\\')
                title[k] = '\'';
        plot_ok = B.plot && have_gnuplot();
    }
    if (B.raw)
        bench_raw_close(&B.rawt);
    rtopo_mem_deregister(B.smem);
    rtopo_mem_deregister(B.rmem);
    rtopo_topo_free(B.t);
    if ((st = rtopo_finalize(B.ctx)))
        fail("rtopo_finalize", st);
    if (B.cart != MPI_COMM_NULL)
        MPI_Comm_free(&B.cart);
    MPI_Finalize();
    if (plot_ok) {
        if (draw_plot(B.plot, title))
            rc = 1;
        else
            fprintf(stderr, "rtopo-bench-mpi: plot written to %s\n", B.plot);
    } else if (B.rank == 0 && B.plot) {
        fprintf(stderr, "rtopo-bench-mpi: no plot: --plot needs gnuplot (Debian: apt-get "
                "install gnuplot-nox)\n");
    }
    free(B.sb);
    free(B.rb);
    free(B.usb);
    free(B.urb);
    return rc;
}
