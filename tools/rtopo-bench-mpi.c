/*
 * rtopo-bench-mpi - rtopo against the MPI code a user would write
 * instead, in one job under mpirun, with one timing method for every
 * column.
 *
 *   mpirun -n N rtopo-bench-mpi [--topo T] [--algo A] [--q Q]
 *        [--sizes LIST|MIN:MAX] [--iters N] [--block N] [--warmup N]
 *        [--modes blocking,persistent] [--buffers registered,unregistered]
 *        [--unregistered] [--no-raw] [--fabric PROV | --no-fabric] [--json FILE]
 *        [--plot FILE.png]
 *
 *   mpirun -n N rtopo-bench-mpi shift-dim [--topo T] [--dim K] [--disp D | --rule A,B]
 *        [--inplace] ... (the shift's options, without --algo and --q)
 *
 *   mpirun -n 2^D+1 rtopo-bench-mpi scatter [--d D] [--sizes ...] [--overlap K|max]
 *        ... (see the scatter section below)
 *
 *   mpirun -n N rtopo-bench-mpi bcast|allreduce|scan [--topo T] [--algo LIST]
 *        [--root R] [--op sum|prod|min|max] [--dtype int64|double] ... (the
 *        shift's options, without --q, --fabric and --no-fabric)
 *
 *   mpirun -n N rtopo-bench-mpi sort [--topo T] [--algo LIST] [--sizes LIST (records
 *        per rank)] ... (the shift's options, without --q, --no-raw, --fabric and
 *        --no-fabric)
 *
 *   mpirun -n 2^k rtopo-bench-mpi bpc [--topo T] [--vector V] ... (the shift's
 *        options, without --algo, --q, --fabric and --no-fabric)
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
 *     through rtopo's transport ops table (bench_raw.c), in the pieces
 *     the engine would post on that transport, the floor under rtopo's
 *     engine;
 *   - fabric: the same write made on the provider directly, with nothing
 *     of rtopo in its path (bench_fabric.c): libfabric fi_writedata with
 *     remote CQ data (fi_inject_writedata when it fits) on an endpoint of
 *     its own, or libibverbs IBV_WR_RDMA_WRITE_WITH_IMM over RC QPs of its
 *     own; the floor under rtopo and its transport.  --fabric names the
 *     provider (a libfabric provider, "verbs[:DEVICE]", or "none"); by
 *     default the one RTOPO_TRANSPORT names (ofi:X: X, ofi:rxm:
 *     tcp;ofi_rxm, verbs), else libfabric's shm when every rank is on one
 *     host (MPI_Comm_split_type), tcp when not.  A provider that cannot be
 *     opened leaves the column out, with the reason in the header.
 * shift-dim times rtopo_shift_dim (or _rule, with --rule) along one
 * dimension against what an MPI code writes for it: MPI_Cart_create of
 * the same shape and MPI_Cart_shift by the line's displacement once, then
 * MPI_Sendrecv, or MPI_Sendrecv_replace in place (--inplace); the raw and
 * fabric columns write to the line neighbour, and each table also gives
 * the link hops of the schedule rtopo ran (the simulator's count on the
 * request's plan).
 * bcast, allreduce and scan (count = bytes/8 elements of int64 or double)
 * time rtopo_bcast, rtopo_allreduce or rtopo_scan with each algorithm
 * (RTOPO_COLL_TOPO, _GENERIC, _AUTO), blocking or persistent
 * (rtopo_*_init), against MPI_Bcast, MPI_Allreduce or MPI_Scan on
 * MPI_COMM_WORLD with the same datatype and operator; the raw column of
 * the broadcast is the root writing the buffer to every rank
 * (bench_raw_scatter_round with stride 0), the reductions have none.
 * Every element of every result is checked after each block.
 * sort times rtopo_sort of count records of 16 bytes per rank (an int64
 * key, then an int64 payload: the record's origin, rank*count + index)
 * against MPI_Gather of every record to rank 0, qsort there by key, ties
 * by origin, and MPI_Scatter back; bpc times rtopo_bpc with a vector
 * (default "reversal") against MPI_Sendrecv to rtopo_bpc_dest(me), from
 * the rank whose destination is me, with a raw write to the same
 * partner.  Both run MPI on a communicator in topology order
 * (MPI_Comm_split with key rtopo_topo_rank); every rank computes what it
 * must hold, and every column's result is compared with it, record by
 * record or byte by byte, once before the timing and after each block.
 * The tables give MPI/rtopo (MPI median / rtopo median) and, with the
 * fabric column, rtopo/fabric (rtopo median / fabric median: how far
 * rtopo is above the provider's floor).
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
#include "rtopo_tool.h"
#include "bench_common.h"
#include "bench_raw.h"
#include "bench_fabric.h"

#define MAX_SIZES 64
#define MAX_COLS 16

extern char **environ;

enum { COL_MPI, COL_CART, COL_RAW, COL_FABRIC, COL_RTOPO };

typedef struct col {
    int kind;
    int persistent, unreg;      /* rtopo columns */
    int algo;                   /* bcast, allreduce, scan, sort: rtopo_coll_algo_t */
    int algo_col;               /* ... one column per algorithm */
    char name[48];              /* short name: "mpi", "blocking/registered", ... */
    char label[96];             /* what it is, for the header and the plot */
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
    /* the fabric column: asked for (--no-fabric: 0), the provider
     * (--fabric, else the default) and why it was chosen, why the column
     * is not measured */
    int fabric;
    const char *fabric_kind;
    char fabric_why[96], nofabric[400];
    bench_fabric_t fab;
    int dst, src, cart_dst, cart_src;
    /* shift-dim: the dimension (-1: the last), disp in q or a rule, in
     * place; MPI's Cartesian dimension */
    int dimmode, dim, mdim, have_disp, have_rule, inplace, moving, extent;
    long rule_a, rule_b;
    const char *fn, *fn_init;   /* rtopo's calls, for the tables */
    /* results: [size][col] */
    double med[MAX_SIZES][MAX_COLS], min[MAX_SIZES][MAX_COLS];
    int its[MAX_SIZES];
    /* shift-dim: the executed schedule's link hops and bytes per block */
    unsigned long long moves[MAX_SIZES];
    double blocks[MAX_SIZES];
    /* bcast, allreduce, scan: the collective (RTOPO__COLL_*, 0 for the
     * shifts), its root, element type and operator, MPI's names for them;
     * the algorithms asked for (bit a: rtopo_coll_algo_t a) and why one is
     * not measured; what this rank must hold after each size; every job
     * rank, for the raw broadcast */
    int coll, root, dtype, rop, calgos;
    MPI_Datatype mdt;
    MPI_Op mop;
    char nocoll[3][160];
    uint8_t *exp;
    int *ranks;
    /* ... and per size and rtopo column the schedule that ran: its
     * algorithm (RTOPO_COLL_TOPO or _GENERIC) and steps */
    int ran[MAX_SIZES][MAX_COLS], steps[MAX_SIZES][MAX_COLS];
    /* sort, bpc (XOP_*, 0 for the others): this rank's topology rank,
     * whether it is the job rank everywhere, MPI_COMM_WORLD in topology
     * order; bpc's vector and partners (topology ranks for MPI, job
     * ranks for the raw write); sort: every record (rank 0 of tcomm
     * gathers into it); per size and rtopo column the slots per rank
     * (sort) and the traffic of the schedule that ran (its algorithm and
     * steps in ran and steps above) */
    int xop, trank, bdst, bsrc, tident;
    const char *vector;
    MPI_Comm tcomm;
    uint8_t *all;
    unsigned long long slots[MAX_SIZES][MAX_COLS], xmoves[MAX_SIZES][MAX_COLS];
    double xblocks[MAX_SIZES][MAX_COLS];
    /* alltoall: per persistent column its p - 1 requests, the shift by q
     * at [q - 1] */
    rtopo_req_t **a2a[MAX_COLS];
} B = { .topo = "ring", .algo = "auto", .q = 1, .iters = 100, .block = 10,
        .warmup = 10, .raw = 1, .fabric = 1, .modes = 3, .buffers = 3, .cart = MPI_COMM_NULL,
        .dim = -1, .fn = "rtopo_shift", .fn_init = "rtopo_shift_init", .dtype = RTOPO_INT64,
        .rop = RTOPO_SUM, .calgos = 7, .vector = "reversal", .tcomm = MPI_COMM_NULL };

enum { XOP_SORT = 1, XOP_BPC, XOP_A2A };

/* sort: records of 16 bytes, an int64 key first */
typedef struct sort_rec {
    int64_t key, origin;
} sort_rec_t;
#define SORT_REC ((size_t)sizeof(sort_rec_t))

/* the bytes per rank of a --sizes entry (sort: records; alltoall: bytes
 * per block, one block for every rank) */
static size_t size_bytes(long v)
{
    if (B.xop == XOP_A2A)
        return (size_t)v * (size_t)(B.size > 0 ? B.size : 1);
    return B.xop == XOP_SORT ? (size_t)v * SORT_REC : (size_t)v;
}

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
            "usage: mpirun -n N rtopo-bench-mpi [shift] [--topo ring|mesh:RxC|hypercube:D|otis-mesh:N|otis-hypercube:N]\n"
            "                  [--algo auto|ring|mesh|hypercube|ecube|direct] [--q Q]\n"
            "                  [--sizes LIST|MIN:MAX] [--iters N] [--block N] [--warmup N]\n"
            "                  [--modes blocking,persistent] [--buffers registered,unregistered]\n"
            "                  [--unregistered] [--no-raw] [--fabric PROV | --no-fabric]\n"
            "                  [--json FILE] [--plot FILE.png]\n"
            "       mpirun -n N rtopo-bench-mpi shift-dim [--topo T] [--dim K] [--disp D | --rule A,B]\n"
            "                  [--inplace] [--sizes LIST|MIN:MAX] [--iters N] [--block N]\n"
            "                  [--warmup N] [--modes ...] [--buffers ...] [--no-raw]\n"
            "                  [--fabric PROV | --no-fabric] [--json FILE] [--plot FILE.png]\n"
            "       mpirun -n 2^D+1 rtopo-bench-mpi scatter [--d D] [--sizes LIST (elements)]\n"
            "                  [--esize E] [--overlap K|half|max] [--algo all|LIST] [--x all|model]\n"
            "                  [--iters N] [--block N] [--warmup N] [--persistent]\n"
            "                  [--unregistered] [--no-raw] [--json FILE] [--plot FILE.png]\n"
            "       mpirun -n N rtopo-bench-mpi bcast|allreduce|scan [--topo T]\n"
            "                  [--algo topo,generic,auto|all] [--root R (bcast)]\n"
            "                  [--op sum|prod|min|max] [--dtype int64|double]\n"
            "                  [--sizes LIST|MIN:MAX (bytes, multiples of 8)] [--iters N]\n"
            "                  [--block N] [--warmup N] [--modes ...] [--buffers ...]\n"
            "                  [--no-raw] [--json FILE] [--plot FILE.png]\n"
            "       mpirun -n N rtopo-bench-mpi sort [--topo T] [--algo topo,generic,auto|all]\n"
            "                  [--sizes LIST|MIN:MAX (records of 16 bytes per rank)] [--iters N]\n"
            "                  [--block N] [--warmup N] [--modes ...] [--buffers ...]\n"
            "                  [--json FILE] [--plot FILE.png]\n"
            "       mpirun -n 2^k rtopo-bench-mpi bpc [--topo T] [--vector V] [--sizes LIST|MIN:MAX]\n"
            "                  [--iters N] [--block N] [--warmup N] [--modes ...] [--buffers ...]\n"
            "                  [--no-raw] [--json FILE] [--plot FILE.png]\n"
            "       mpirun -n N rtopo-bench-mpi alltoall [--topo T] [--algo A]\n"
            "                  [--sizes LIST|MIN:MAX (bytes per block)] [--iters N] [--block N]\n"
            "                  [--warmup N] [--modes ...] [--buffers ...] [--json FILE]\n"
            "                  [--plot FILE.png]\n"
            "       rtopo-bench-mpi --help\n"
            "times the circular shift with rtopo and with MPI_Sendrecv in the same job;\n"
            "--fabric PROV: the provider of the fabric column, which writes on it directly:\n"
            "a libfabric provider (shm, tcp, tcp;ofi_rxm, ...), verbs[:DEVICE], or none\n"
            "(default: the one RTOPO_TRANSPORT names, else shm on one host, tcp on several);\n"
            "shift-dim: rtopo_shift_dim against MPI_Cart_shift + MPI_Sendrecv (in place:\n"
            "MPI_Sendrecv_replace);\n"
            "scatter: rtopo's host-to-hypercube strategies against MPI_Scatterv + halo\n"
            "exchange and MPI_Bcast + copy;\n"
            "bcast, allreduce, scan: rtopo's algorithms (topo, generic, auto) against\n"
            "MPI_Bcast, MPI_Allreduce, MPI_Scan on MPI_COMM_WORLD;\n"
            "sort: rtopo_sort against MPI_Gather + qsort + MPI_Scatter;\n"
            "bpc: rtopo_bpc against MPI_Sendrecv with the partner from rtopo_bpc_dest;\n"
            "alltoall: p - 1 rtopo shifts by q = 1 .. p - 1 against MPI_Alltoall\n");
}

static void parse_sizes(const char *s)
{
    B.nsizes = bench_parse_sizes(s, B.sizes, MAX_SIZES, INT_MAX,
                                 B.xop == XOP_SORT ? "record counts" : "byte counts",
                                 B.xop == XOP_SORT ? "1,64,..." : "8,1024,...");
}

/* bcast, allreduce, scan, sort: --algo, a list of topo, generic, auto,
 * or all (the default), as a mask of rtopo_coll_algo_t bits */
static int parse_calgos(const char *s)
{
    char list[64], *tok, *save = NULL;
    int a, mask = 0;

    snprintf(list, sizeof(list), "%s", s);
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!strcmp(tok, "all"))
            a = -1;
        else if ((a = rtopo__coll_algo_parse(tok)) < 0)
            bench_usage_error("--algo '%s': a list of topo, generic and auto, or all", tok);
        mask |= a < 0 ? 7 : 1 << a;
    }
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

static int make_topo_kind(rtopo_topo_t **t)
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

/* the topology, whose plans keep the whole schedule: the traffic and the
 * model time read from a request's schedule are the job's */
static int make_topo(rtopo_topo_t **t)
{
    int st = make_topo_kind(t);

    if (st == RTOPO_OK)
        rtopo__tool_whole_plans(*t);
    return st;
}

static void add_col(int kind, int persistent, int unreg, const char *name, const char *label)
{
    col_t *c = &B.col[B.ncol++];

    c->kind = kind;
    c->persistent = persistent;
    c->unreg = unreg;
    snprintf(c->name, sizeof(c->name), "%s", name);
    snprintf(c->label, sizeof(c->label), "%s", label);
    c->on = 1;
}

/* bcast, allreduce, scan: the MPI call, its datatype and operator */
static const char *coll_mpi_fn(void)
{
    return bench_coll_entry(B.coll) ? bench_coll_entry(B.coll)->mpi_fn : "MPI_Scan";
}

static const char *coll_mpi_dt(void)
{
    return B.dtype == RTOPO_DOUBLE ? "MPI_DOUBLE" : "MPI_INT64_T";
}

static const char *coll_mpi_op(void)
{
    static const char *const ops[] = { "MPI_SUM", "MPI_PROD", "MPI_MIN", "MPI_MAX" };

    return ops[B.rop - RTOPO_SUM];
}

/* rtopo's algorithms in the order of the tables */
static const int coll_order[3] = { RTOPO_COLL_TOPO, RTOPO_COLL_GENERIC, RTOPO_COLL_AUTO };

static const char *coll_algo_macro(int a)
{
    return a == RTOPO_COLL_TOPO ? "RTOPO_COLL_TOPO" : a == RTOPO_COLL_GENERIC ?
           "RTOPO_COLL_GENERIC" : "RTOPO_COLL_AUTO";
}

/* MPI, raw (bcast), then per variant of --modes and --buffers each
 * algorithm asked for that the topology has */
static void setup_cols_coll(void)
{
    char name[48], label[96];
    int v, a;

    add_col(COL_MPI, 0, 0, "mpi", coll_mpi_fn());
    if (B.raw)
        add_col(COL_RAW, 0, 0, "raw", "raw: the root writes to every rank");
    for (v = 0; v < 4; v++) {
        int pers = v & 1, unreg = v >> 1;

        if (!(B.modes & (1 << pers)) || !(B.buffers & (1 << unreg)))
            continue;
        for (a = 0; a < 3; a++) {
            int algo = coll_order[a];
            if (!(B.calgos & (1 << algo)) || B.nocoll[algo][0])
                continue;
            snprintf(name, sizeof(name), "%s/%s/%s", pers ? "persistent" : "blocking",
                     unreg ? "unregistered" : "registered", rtopo__coll_algo_name(algo));
            snprintf(label, sizeof(label), "%s %s, %s", pers ? "rtopo_start+rtopo_wait" : B.fn,
                     rtopo__coll_algo_name(algo), unreg ? "unregistered" : "registered");
            add_col(COL_RTOPO, pers, unreg, name, label);
            B.col[B.ncol - 1].algo = algo;
            B.col[B.ncol - 1].algo_col = 1;
        }
    }
}

/* sort, bpc: MPI, raw (bpc), then rtopo per variant of --modes and
 * --buffers */
static void setup_cols_xop(void)
{
    char name[48], label[96];
    int v;

    add_col(COL_MPI, 0, 0, "mpi", B.xop == XOP_SORT ? "MPI_Gather + qsort + MPI_Scatter" :
            B.xop == XOP_A2A ? "MPI_Alltoall" : "MPI_Sendrecv with the partner");
    if (B.raw)
        add_col(COL_RAW, 0, 0, "raw", "raw transport write to the partner");
    for (v = 0; v < 4; v++) {
        int pers = v & 1, unreg = v >> 1, a;

        if (!(B.modes & (1 << pers)) || !(B.buffers & (1 << unreg)))
            continue;
        if (B.xop == XOP_BPC || B.xop == XOP_A2A) {
            snprintf(name, sizeof(name), "%s/%s", pers ? "persistent" : "blocking",
                     unreg ? "unregistered" : "registered");
            if (B.xop == XOP_A2A)
                snprintf(label, sizeof(label), "%s, %s", pers ?
                         "p-1 shifts: rtopo_start all, rtopo_wait all" :
                         "p-1 rtopo_shift one after another", unreg ? "unregistered" :
                         "registered");
            else
                snprintf(label, sizeof(label), "%s, %s", pers ? "rtopo_start+rtopo_wait" : B.fn,
                         unreg ? "unregistered" : "registered");
            add_col(COL_RTOPO, pers, unreg, name, label);
            continue;
        }
        /* sort: each algorithm asked for */
        for (a = 0; a < 3; a++) {
            int algo = coll_order[a];

            if (!(B.calgos & (1 << algo)))
                continue;
            snprintf(name, sizeof(name), "%s/%s/%s", pers ? "persistent" : "blocking",
                     unreg ? "unregistered" : "registered", rtopo__coll_algo_name(algo));
            snprintf(label, sizeof(label), "%s %s, %s", pers ? "rtopo_start+rtopo_wait" : B.fn,
                     rtopo__coll_algo_name(algo), unreg ? "unregistered" : "registered");
            add_col(COL_RTOPO, pers, unreg, name, label);
            B.col[B.ncol - 1].algo = algo;
            B.col[B.ncol - 1].algo_col = 1;
        }
    }
}

static void setup_cols(void)
{
    static char lreg[64], lunreg[64];

    if (B.coll) {
        setup_cols_coll();
        return;
    }
    if (B.xop) {
        setup_cols_xop();
        return;
    }
    snprintf(lreg, sizeof(lreg), "%s, registered", B.fn);
    snprintf(lunreg, sizeof(lunreg), "%s, unregistered", B.fn);
    if (!B.dimmode)
        add_col(COL_MPI, 0, 0, "mpi", "MPI_Sendrecv");
    else if (B.inplace)
        add_col(COL_MPI, 0, 0, "mpi", "MPI_Cart_shift + MPI_Sendrecv_replace");
    else
        add_col(COL_MPI, 0, 0, "mpi", "MPI_Cart_shift + MPI_Sendrecv");
    if (B.rows && !B.dimmode)
        add_col(COL_CART, 0, 0, "cart", "MPI_Cart_shift + MPI_Sendrecv (row shift)");
    if (B.raw)
        add_col(COL_RAW, 0, 0, "raw", "raw transport write");
    if (B.fabric)
        add_col(COL_FABRIC, 0, 0, "fabric", B.fab.label);
    if ((B.modes & 1) && (B.buffers & 1))
        add_col(COL_RTOPO, 0, 0, "blocking/registered", lreg);
    if ((B.modes & 2) && (B.buffers & 1))
        add_col(COL_RTOPO, 1, 0, "persistent/registered",
                "rtopo_start+rtopo_wait, registered");
    if ((B.modes & 1) && (B.buffers & 2))
        add_col(COL_RTOPO, 0, 1, "blocking/unregistered", lunreg);
    if ((B.modes & 2) && (B.buffers & 2))
        add_col(COL_RTOPO, 1, 1, "persistent/unregistered",
                "rtopo_start+rtopo_wait, unregistered");
}

static void alloc_bufs(void)
{
    int i, st;

    B.maxb = 0;
    for (i = 0; i < B.nsizes; i++)
        if (size_bytes(B.sizes[i]) > B.maxb)
            B.maxb = size_bytes(B.sizes[i]);
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

/* shift-dim: rtopo's calls with the arguments of the run */
static int dim_call(const uint8_t *s, uint8_t *r, size_t n)
{
    if (B.have_rule)
        return rtopo_shift_dim_rule(B.t, B.dim, s, r, n, (int)B.rule_a, (int)B.rule_b);
    return rtopo_shift_dim(B.t, B.dim, s, r, n, (int)B.q);
}

static int dim_init(const uint8_t *s, uint8_t *r, size_t n, rtopo_req_t **req)
{
    if (B.have_rule)
        return rtopo_shift_dim_rule_init(B.t, B.dim, s, r, n, (int)B.rule_a, (int)B.rule_b,
                                         req);
    return rtopo_shift_dim_init(B.t, B.dim, s, r, n, (int)B.q, req);
}

/* bcast, allreduce, scan: rtopo's call on the column's buffers, blocking
 * (req NULL) or persistent; count = bytes / 8 */
static int coll_call(const col_t *c, size_t n, rtopo_req_t **req)
{
    return bench_coll_call(B.t, B.coll, c->unreg ? B.usb : B.sb, c->unreg ? B.urb : B.rb,
                           n / 8, B.dtype, B.rop, B.root, req);
}

static void coll_op(col_t *c, size_t n, int i)
{
    int st, cnt = (int)(n / 8);

    switch (c->kind) {
    case COL_MPI:
        if (B.coll == RTOPO__COLL_BCAST)
            mpi_check("MPI_Bcast", MPI_Bcast(B.urb, cnt, B.mdt, B.root, MPI_COMM_WORLD));
        else if (B.coll == RTOPO__COLL_ALLREDUCE)
            mpi_check("MPI_Allreduce", MPI_Allreduce(B.usb, B.urb, cnt, B.mdt, B.mop,
                                                     MPI_COMM_WORLD));
        else
            mpi_check("MPI_Scan", MPI_Scan(B.usb, B.urb, cnt, B.mdt, B.mop, MPI_COMM_WORLD));
        break;
    case COL_RAW:
        if ((st = bench_raw_scatter_round(&B.rawt, B.root, B.ranks, B.size, n, 0,
                                          (uint32_t)(i & 0xffff))))
            fail(B.rawt.what, st);
        break;
    default:
        if (c->req) {
            if ((st = rtopo_start(c->req)) || (st = rtopo_wait(c->req)))
                fail("rtopo_start/rtopo_wait", st);
        } else if ((st = coll_call(c, n, NULL))) {
            fail(B.fn, st);
        }
    }
}

/* ---- sort, bpc: data, calls, checks ------------------------------------- */

/* by key, ties by origin: the order rtopo_sort gives (the origin is
 * rank*count + index) */
static int sort_cmp(const void *a, const void *b)
{
    const sort_rec_t *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->origin < y->origin ? -1 : x->origin > y->origin;
}

/* the key of record g of total: pseudo-random, signed, about two records
 * per key value, so that ties occur at every size */
static int64_t sort_key(uint64_t g, uint64_t total)
{
    uint64_t h = (g + 1) * 0x9e3779b97f4a7c15ull, range = total / 2 + 1;

    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return (int64_t)(h % range) - (int64_t)(range / 2);
}

static void sort_fill(sort_rec_t *r, int rank, size_t count)
{
    uint64_t total = (uint64_t)count * (uint64_t)B.size, g;
    size_t i;

    for (i = 0; i < count; i++) {
        g = (uint64_t)rank * count + i;
        r[i].key = sort_key(g, total);
        r[i].origin = (int64_t)g;
    }
}

/* byte k of topology rank r's bpc data */
static inline uint8_t bpc_byte(int r, size_t k)
{
    return (uint8_t)((unsigned)r * 37u + (unsigned)k * 11u + (unsigned)(k >> 8) * 3u + 1u);
}

/* byte k of the block topology rank s sends to topology rank d
 * (alltoall) */
static inline uint8_t a2a_byte(int s, int d, size_t k)
{
    return (uint8_t)((unsigned)s * 53u + (unsigned)d * 29u + (unsigned)k * 7u +
                     (unsigned)(k >> 8) * 5u + 1u);
}

/* sort, bpc, alltoall: every rank's send data for size v (sort: records,
 * bpc: bytes, alltoall: bytes per block), and what this rank must hold
 * afterwards; sort: the whole order, computed here from every rank's
 * records */
static void xop_data(size_t v)
{
    size_t k;
    int r;

    if (B.xop == XOP_A2A) {
        /* block r of the send buffer goes to topology rank r; block r of
         * the result comes from it */
        for (r = 0; r < B.size; r++)
            for (k = 0; k < v; k++) {
                B.sb[(size_t)r * v + k] = B.usb[(size_t)r * v + k] = a2a_byte(B.trank, r, k);
                B.exp[(size_t)r * v + k] = a2a_byte(r, B.trank, k);
            }
        return;
    }
    if (B.xop == XOP_BPC) {
        for (k = 0; k < v; k++) {
            B.sb[k] = B.usb[k] = bpc_byte(B.trank, k);
            B.exp[k] = bpc_byte(B.bsrc, k);
        }
    } else {
        size_t total = v * (size_t)B.size;
        sort_rec_t *everything = malloc(total ? total * SORT_REC : 1);

        if (!everything)
            fail("memory", RTOPO_ERR_NOMEM);
        for (r = 0; r < B.size; r++)
            sort_fill(everything + (size_t)r * v, r, v);
        memcpy(B.sb, everything + (size_t)B.trank * v, v * SORT_REC);
        memcpy(B.usb, B.sb, v * SORT_REC);
        qsort(everything, total, SORT_REC, sort_cmp);
        memcpy(B.exp, everything + (size_t)B.trank * v, v * SORT_REC);
        free(everything);
    }
}

/* rtopo's call on the column's buffers, blocking (req NULL) or the
 * persistent request; v records (sort) or bytes (bpc) */
static int xop_call(const col_t *c, size_t v, rtopo_req_t **req)
{
    const uint8_t *s = c->unreg ? B.usb : B.sb;
    uint8_t *r = c->unreg ? B.urb : B.rb;

    if (B.xop == XOP_SORT)
        return req ? rtopo_sort_init(B.t, s, r, v, SORT_REC, RTOPO_INT64, 0, req) :
               rtopo_sort(B.t, s, r, v, SORT_REC, RTOPO_INT64, 0);
    return req ? rtopo_bpc_init(B.t, B.vector, s, r, v, req) :
           rtopo_bpc(B.t, B.vector, s, r, v);
}

/* alltoall by q-shifts: the shift by q (1 <= q < p) sends block me + q
 * to rank me + q and takes block me - q from rank me - q; on topology
 * ranks, as the shift counts them */
static int a2a_shift(const col_t *c, size_t v, int q, rtopo_req_t **req)
{
    const uint8_t *s = (c->unreg ? B.usb : B.sb) + (size_t)((B.trank + q) % B.size) * v;
    uint8_t *r = (c->unreg ? B.urb : B.rb) + (size_t)((B.trank - q + B.size) % B.size) * v;

    return req ? rtopo_shift_init(B.t, s, r, v, q, req) : rtopo_shift(B.t, s, r, v, q);
}

/* one all-to-all of rtopo's: this rank's own block copied, then the p - 1
 * shifts, one after another (blocking) or all started, then all waited
 * for (the column's persistent requests) */
static void a2a_op(const col_t *c, size_t v)
{
    rtopo_req_t **reqs = B.a2a[c - B.col];
    int q, st;

    memcpy((c->unreg ? B.urb : B.rb) + (size_t)B.trank * v,
           (c->unreg ? B.usb : B.sb) + (size_t)B.trank * v, v);
    if (!reqs) {
        for (q = 1; q < B.size; q++)
            if ((st = a2a_shift(c, v, q, NULL)))
                fail("rtopo_shift", st);
        return;
    }
    for (q = 1; q < B.size; q++)
        if ((st = rtopo_start(reqs[q - 1])))
            fail("rtopo_start", st);
    for (q = 1; q < B.size; q++)
        if ((st = rtopo_wait(reqs[q - 1])))
            fail("rtopo_wait", st);
}

static void a2a_free(int k)
{
    int q;

    if (!B.a2a[k])
        return;
    for (q = 1; q < B.size; q++)
        rtopo_req_free(B.a2a[k][q - 1]);
    free(B.a2a[k]);
    B.a2a[k] = NULL;
}

static void xop_op(col_t *c, size_t v, int i)
{
    int st, len;

    if (B.xop == XOP_A2A) {
        if (c->kind == COL_MPI)
            mpi_check("MPI_Alltoall", MPI_Alltoall(B.usb, (int)v, MPI_BYTE, B.urb, (int)v,
                                                   MPI_BYTE, B.tcomm));
        else
            a2a_op(c, v);
        return;
    }
    switch (c->kind) {
    case COL_MPI:
        if (B.xop == XOP_BPC) {
            mpi_check("MPI_Sendrecv", MPI_Sendrecv(B.usb, (int)v, MPI_BYTE, B.bdst, 10, B.urb,
                                                   (int)v, MPI_BYTE, B.bsrc, 10, B.tcomm,
                                                   MPI_STATUS_IGNORE));
            break;
        }
        /* everything to rank 0, sorted there, dealt back */
        len = (int)(v * SORT_REC);
        mpi_check("MPI_Gather", MPI_Gather(B.usb, len, MPI_BYTE, B.all, len, MPI_BYTE, 0,
                                           B.tcomm));
        if (B.trank == 0)
            qsort(B.all, v * (size_t)B.size, SORT_REC, sort_cmp);
        mpi_check("MPI_Scatter", MPI_Scatter(B.all, len, MPI_BYTE, B.urb, len, MPI_BYTE, 0,
                                             B.tcomm));
        break;
    case COL_RAW:
        if ((st = bench_raw_round(&B.rawt, v, (uint32_t)(i & 0xffff))))
            fail(B.rawt.what, st);
        break;
    default:
        if (c->req) {
            if ((st = rtopo_start(c->req)) || (st = rtopo_wait(c->req)))
                fail("rtopo_start/rtopo_wait", st);
        } else if ((st = xop_call(c, v, NULL))) {
            fail(B.fn, st);
        }
    }
}

/* the receive buffer a column writes into (as col_rbuf) */
static uint8_t *xop_rbuf(const col_t *c)
{
    return c->kind == COL_RAW || (c->kind == COL_RTOPO && !c->unreg) ? B.rb : B.urb;
}

/* before a block: a result no column can leave (sort: keys and origins
 * 0x7f7f..., far outside the data; bpc: every byte the complement of
 * the expected one) */
static void xop_clear(const col_t *c, size_t v)
{
    uint8_t *r = xop_rbuf(c);
    size_t k;

    if (B.xop == XOP_SORT) {
        memset(r, 0x7f, v * SORT_REC);
        return;
    }
    for (k = 0; k < size_bytes((long)v); k++)
        r[k] = (uint8_t)~B.exp[k];
}

/* every record (sort) or byte (bpc) against what this rank must hold */
static void xop_verify(const col_t *c, size_t v, const char *when)
{
    const uint8_t *r = xop_rbuf(c);
    size_t k;

    if (B.xop == XOP_SORT) {
        const sort_rec_t *got = (const sort_rec_t *)(const void *)r,
                         *want = (const sort_rec_t *)(const void *)B.exp;

        for (k = 0; k < v; k++)
            if (got[k].key != want[k].key || got[k].origin != want[k].origin) {
                fprintf(stderr, "rtopo-bench-mpi: rank %d: sort %s, %zu records per rank, "
                        "%s: record %zu (%zu of the whole order) is key %lld origin %lld, "
                        "expected key %lld origin %lld\n", B.rank, c->name, v, when, k,
                        (size_t)B.trank * v + k, (long long)got[k].key,
                        (long long)got[k].origin, (long long)want[k].key,
                        (long long)want[k].origin);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        return;
    }
    for (k = 0; B.xop == XOP_A2A && k < size_bytes((long)v); k++)
        if (r[k] != B.exp[k]) {
            fprintf(stderr, "rtopo-bench-mpi: rank %d (topology rank %d): alltoall %s, %zu "
                    "bytes per block, %s: byte %zu of the block from topology rank %zu is "
                    "%u, expected %u\n", B.rank, B.trank, c->name, v, when, k % v, k / v,
                    r[k], B.exp[k]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    for (k = 0; B.xop == XOP_BPC && k < v; k++)
        if (r[k] != B.exp[k]) {
            fprintf(stderr, "rtopo-bench-mpi: rank %d (topology rank %d): bpc %s %s, %zu "
                    "bytes, %s: byte %zu is %u, expected %u from topology rank %d\n", B.rank,
                    B.trank, B.vector, c->name, v, when, k, r[k], B.exp[k], B.bsrc);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
}

static void op(col_t *c, size_t n, int i)
{
    int st;
    const uint8_t *s = c->unreg ? B.usb : B.sb;
    uint8_t *r = c->unreg ? B.urb : B.rb;

    if (B.coll) {
        coll_op(c, n, i);
        return;
    }
    if (B.xop) {
        xop_op(c, n, i);
        return;
    }
    if (B.inplace)
        s = r;
    switch (c->kind) {
    case COL_MPI:
        if (B.dimmode && B.inplace) {
            mpi_check("MPI_Sendrecv_replace",
                      MPI_Sendrecv_replace(B.urb, (int)n, MPI_BYTE, B.cart_dst, 9, B.cart_src,
                                           9, B.cart, MPI_STATUS_IGNORE));
            break;
        }
        if (B.dimmode) {
            mpi_check("MPI_Sendrecv (cart)",
                      MPI_Sendrecv(B.usb, (int)n, MPI_BYTE, B.cart_dst, 9, B.urb, (int)n,
                                   MPI_BYTE, B.cart_src, 9, B.cart, MPI_STATUS_IGNORE));
            break;
        }
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
    case COL_FABRIC:
        if (bench_fabric_shift(&B.fab, n)) {
            fprintf(stderr, "rtopo-bench-mpi: rank %d: fabric (%s): %s\n", B.rank,
                    B.fab.provider, B.fab.err);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        break;
    default:
        if (c->req) {
            if ((st = rtopo_start(c->req)) || (st = rtopo_wait(c->req)))
                fail("rtopo_start/rtopo_wait", st);
        } else if (B.dimmode) {
            if ((st = dim_call(s, r, n)))
                fail(B.fn, st);
        } else if ((st = rtopo_shift(B.t, s, r, n, (int)B.q))) {
            fail("rtopo_shift", st);
        }
    }
}

/* the raw and fabric columns write from B.sb into B.rb, in place or not */
static int col_direct(const col_t *c)
{
    return c->kind == COL_RAW || c->kind == COL_FABRIC;
}

/* the receive buffer a column writes into, and the rank whose data lands */
static uint8_t *col_rbuf(const col_t *c)
{
    return col_direct(c) || (c->kind == COL_RTOPO && !c->unreg) ? B.rb : B.urb;
}

static int col_src(const col_t *c)
{
    return c->kind == COL_CART || (B.dimmode && c->kind == COL_MPI) ? B.cart_src : B.src;
}

/* bcast, allreduce, scan: before a block the result gets a value no
 * result has (the root's broadcast buffer keeps its data); after it,
 * every element is checked */
static void coll_clear(const col_t *c, size_t n)
{
    if (B.coll != RTOPO__COLL_BCAST || B.rank != B.root)
        memset(col_rbuf(c), 0x7f, n);
}

static void coll_verify(const col_t *c, size_t n)
{
    const uint8_t *r = col_rbuf(c);
    size_t cnt = n / 8, k = bench_coll_diff(B.dtype, r, B.exp, cnt);

    if (k < cnt) {
        fprintf(stderr, "rtopo-bench-mpi: rank %d: %s %s, %zu bytes: element %zu is %.17g, "
                "expected %.17g\n", B.rank, rtopo__coll_name(B.coll), c->name, n, k,
                bench_coll_elem(B.dtype, r, k), bench_coll_elem(B.dtype, B.exp, k));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* `warm` untimed iterations, then cnt timed ones into t[] */
static void run_block(col_t *c, size_t n, double *t, int cnt, int warm)
{
    uint8_t *r = col_rbuf(c);
    uint8_t want = (uint8_t)(col_src(c) + 1);
    double t0;
    int i, st;

    if (B.coll)
        coll_clear(c, n);
    else if (B.xop)
        xop_clear(c, n);
    else if (n && !(B.inplace && !col_direct(c))) {
        r[0] = 0;
        r[n - 1] = 0;
    }
    if (c->kind == COL_RAW) {
        /* no engine traffic may be left for the raw poll to take */
        if ((st = rtopo_barrier(B.ctx)))
            fail("rtopo_barrier", st);
        if (B.coll)
            bench_raw_scatter_begin(&B.rawt, B.root, B.ranks, B.size);
        else
            bench_raw_begin(&B.rawt);
    } else if ((B.coll || B.xop == XOP_SORT) && c->kind == COL_RTOPO && !c->req &&
               (st = rtopo_topo_set_coll_algo(B.t, (rtopo_coll_algo_t)c->algo))) {
        fail("rtopo_topo_set_coll_algo", st);
    }
    if (n && B.inplace && !col_direct(c)) {
        /* in place the data goes on around the line: check one shift of
         * this rank's own data, untimed, before the block */
        memset(r, B.rank + 1, n);
        MPI_Barrier(MPI_COMM_WORLD);
        op(c, n, -1 - warm);
        if (r[0] != want || r[n - 1] != want) {
            fprintf(stderr, "rtopo-bench-mpi: rank %d: %s, %zu bytes in place: received "
                    "%u...%u, expected %u from rank %d\n", B.rank, c->name, n, r[0],
                    r[n - 1], want, col_src(c));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    for (i = -warm; i < cnt; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        op(c, n, i);
        if (i >= 0)
            t[i] = (MPI_Wtime() - t0) * 1e6;
    }
    if (B.coll)
        coll_verify(c, n);
    else if (B.xop)
        xop_verify(c, n, cnt ? "after a block" : "before the timing");
    else if (n && (!B.inplace || col_direct(c)) && (r[0] != want || r[n - 1] != want)) {
        fprintf(stderr, "rtopo-bench-mpi: rank %d: %s, %zu bytes: received %u...%u, "
                "expected %u from rank %d\n", B.rank, c->name, n, r[0], r[n - 1], want,
                col_src(c));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* shift-dim: the traffic of the schedule rtopo runs for n bytes (the
 * plan of a request with these arguments, the one the blocking call
 * caches too), counted by the simulator: link hops over all ranks, and
 * bytes over links per rank and block */
static void sched_traffic(const rtopo_req_t *req, size_t n, unsigned long long *moves,
                          double *blocks)
{
    rtopo__model_t model;
    rtopo__sim_result_t sim;
    const rtopo__sched_t *s = rtopo__tool_req_sched(req);
    uint64_t bytes = 0;
    uint32_t x;
    int c;

    *moves = 0;
    *blocks = 0;
    for (x = 0; x < s->nxfers; x++)
        bytes += rtopo__sched_xlen(s, x) * rtopo__sched_xnhops(s, x);
    rtopo__model_default(&model);
    if (rtopo__sim_run(s, &model, &sim) == 0)
        for (c = 0; c < RTOPO__LINK_COUNT; c++)
            if (c != RTOPO__LINK_LOCAL)
                *moves += sim.moves[c];
    if (n)
        *blocks = (double)bytes / ((double)B.size * (double)n);
}

static void dim_traffic(int i, size_t n)
{
    rtopo_req_t *req;
    int st;

    if ((st = dim_init(B.inplace ? B.rb : B.sb, B.rb, n, &req)))
        fail(B.fn_init, st);
    sched_traffic(req, n, &B.moves[i], &B.blocks[i]);
    rtopo_req_free(req);
}

/* sort, bpc: a request of column k's arguments for v records or bytes,
 * whose plan is the schedule the blocking call runs too (it caches the
 * same): the algorithm that ran, its steps and traffic; sort: the slots
 * per rank, as rtopo_sort(3) gives them (the column sort: a third of
 * its scratch; merge-split: count); a persistent column keeps the
 * request */
static void xop_plan(int i, int k, size_t v)
{
    col_t *c = &B.col[k];
    const rtopo__sched_t *s;
    rtopo_req_t *req;
    unsigned long long Q = ((SORT_REC + 7) & ~(unsigned long long)7) + 8, mv;
    double blk;
    int st, q;

    if (B.xop == XOP_A2A) {
        /* the p - 1 shifts' requests: their steps and traffic added up
         * (blk/rank per block of v bytes); a persistent column keeps them */
        rtopo_req_t **reqs = calloc((size_t)B.size, sizeof(*reqs));

        if (!reqs)
            fail("memory", RTOPO_ERR_NOMEM);
        B.steps[i][k] = 0;
        B.xmoves[i][k] = 0;
        B.xblocks[i][k] = 0;
        for (q = 1; q < B.size; q++) {
            if ((st = a2a_shift(c, v, q, &reqs[q - 1])))
                fail("rtopo_shift_init", st);
            s = rtopo__tool_req_sched(reqs[q - 1]);
            B.steps[i][k] += (int)s->nsteps;
            sched_traffic(reqs[q - 1], v, &mv, &blk);
            B.xmoves[i][k] += mv;
            B.xblocks[i][k] += blk;
        }
        B.a2a[k] = reqs;
        if (!c->persistent)
            a2a_free(k);
        return;
    }

    if (B.xop == XOP_SORT && (st = rtopo_topo_set_coll_algo(B.t, (rtopo_coll_algo_t)c->algo)))
        fail("rtopo_topo_set_coll_algo", st);
    if ((st = xop_call(c, v, &req)))
        fail(B.fn_init, st);
    s = rtopo__tool_req_sched(req);
    B.ran[i][k] = s->algo;
    B.steps[i][k] = (int)s->nsteps;
    sched_traffic(req, size_bytes((long)v), &B.xmoves[i][k], &B.xblocks[i][k]);
    B.slots[i][k] = B.ran[i][k] == RTOPO_COLL_GENERIC ? v : s->tmp_bytes / (3 * Q);
    if (c->persistent)
        c->req = req;
    else
        rtopo_req_free(req);
}

/* bcast, allreduce, scan: a request of column k's arguments for n bytes,
 * whose plan is the schedule the blocking call runs too (it caches the
 * same): what ran and its steps; a persistent column keeps it */
static void coll_plan(int i, int k, size_t n)
{
    col_t *c = &B.col[k];
    const rtopo__sched_t *s;
    rtopo_req_t *req;
    int st;

    if ((st = rtopo_topo_set_coll_algo(B.t, (rtopo_coll_algo_t)c->algo)))
        fail("rtopo_topo_set_coll_algo", st);
    if ((st = coll_call(c, n, &req)))
        fail(B.fn_init, st);
    s = rtopo__tool_req_sched(req);
    B.ran[i][k] = s->algo;
    B.steps[i][k] = (int)s->nsteps;
    if (c->persistent)
        c->req = req;
    else
        rtopo_req_free(req);
}

static void measure(void)
{
    int i, k, st;

    for (i = 0; i < B.nsizes; i++) {
        size_t n = (size_t)B.sizes[i];
        int it = iters_for(size_bytes(B.sizes[i])), b, off, cnt;
        double *t = malloc(sizeof(double) * (size_t)it * (size_t)B.ncol);

        if (!t)
            fail("memory", RTOPO_ERR_NOMEM);
        B.its[i] = it;
        if (B.dimmode)
            dim_traffic(i, n);
        if (B.coll)
            bench_coll_expect(B.coll, B.dtype, B.rop, B.rank, B.size, B.root, B.exp, n / 8);
        if (B.xop)
            xop_data(n);
        for (k = 0; k < B.ncol; k++) {
            col_t *c = &B.col[k];
            uint8_t *rb = c->unreg ? B.urb : B.rb, *sb = c->unreg ? B.usb : B.sb;

            c->req = NULL;
            if (B.coll) {
                if (c->kind == COL_RTOPO)
                    coll_plan(i, k, n);
                continue;
            }
            if (B.xop) {
                if (c->kind == COL_RTOPO)
                    xop_plan(i, k, n);
                continue;
            }
            if (B.inplace)
                sb = rb;
            if (c->kind == COL_RTOPO && c->persistent &&
                (st = B.dimmode ? dim_init(sb, rb, n, &c->req)
                                : rtopo_shift_init(B.t, sb, rb, n, (int)B.q, &c->req)))
                fail(B.fn_init, st);
        }
        /* sort, bpc: every column once, its result checked, before the
         * timing */
        for (k = 0; B.xop && k < B.ncol; k++)
            run_block(&B.col[k], n, t, 0, 1);
        for (b = 0, off = 0; off < it; b++, off += cnt) {
            cnt = it - off < B.block ? it - off : B.block;
            for (k = 0; k < B.ncol; k++) {
                int j = (k + b) % B.ncol;
                run_block(&B.col[j], n, t + (size_t)j * it + off, cnt, b ? 1 : B.warmup);
            }
        }
        for (k = 0; k < B.ncol; k++) {
            if (B.col[k].req) {
                rtopo_req_free(B.col[k].req);
                B.col[k].req = NULL;
            }
            a2a_free(k);
        }
        /* per iteration, the slowest rank */
        mpi_check("MPI_Allreduce", MPI_Allreduce(MPI_IN_PLACE, t, it * B.ncol, MPI_DOUBLE,
                                                 MPI_MAX, MPI_COMM_WORLD));
        for (k = 0; k < B.ncol; k++) {
            double *v = t + (size_t)k * it;
            qsort(v, (size_t)it, sizeof(*v), bench_cmp_double);
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

/* shift-dim: "disp 1" or "rule -1*line + 0" */
static const char *dim_what(void)
{
    static char buf[64];

    if (B.have_rule)
        snprintf(buf, sizeof(buf), "rule %ld*line + %ld", B.rule_a, B.rule_b);
    else
        snprintf(buf, sizeof(buf), "disp %ld", B.q);
    return buf;
}

static void print_header_dim(FILE *f)
{
    fprintf(f, "# rtopo-bench-mpi shift-dim: %d rank%s, topology %s, dimension %d (lines of "
            "%d), %s%s: the rank at x of each line sends its data to x + d(line) mod %d\n",
            B.size, B.size == 1 ? "" : "s", B.topo, B.dim, B.extent, dim_what(),
            B.inplace ? ", in place" : "", B.extent);
    fprintf(f, "# MPI   = MPI_Cart_create (the same shape, periodic, no reordering) once, "
            "MPI_Cart_shift(dimension %d, d of this rank's line) once, then per iteration "
            "%s, plain malloc'd buffers\n", B.mdim, B.inplace ?
            "MPI_Sendrecv_replace of the one buffer" : "MPI_Sendrecv");
    if (!strncmp(B.topo, "hypercube", 9))
        fprintf(f, "# (hypercube: MPI's coordinate %d is bit %d of the MPI rank; rtopo's is bit "
                "%d of the cube node gray(rank): the same exchange across one dimension, "
                "between other pairs of ranks)\n", B.mdim, B.dim, B.dim);
    fprintf(f, "# traffic: MPI sends each block once, one message per rank of a moving line "
            "(straight to the destination); rtopo's moves are the link hops of the schedule "
            "it ran, over all ranks, as rtopo-sim counts them, and blk/rank its bytes over "
            "links / (ranks x bytes)\n");
}

/* bcast, allreduce, scan: what the operation is, and what the columns
 * are beyond those of every table */
static void print_header_coll(FILE *f)
{
    const char *rop = bench_coll_rop_name(B.rop), *dt = bench_coll_dtype_name(B.dtype);

    if (B.coll == RTOPO__COLL_BCAST)
        fprintf(f, "# rtopo-bench-mpi bcast: %d rank%s, topology %s, root %d: every rank gets "
                "the root's count = bytes/8 %s elements\n", B.size, B.size == 1 ? "" : "s",
                B.topo, B.root, dt);
    else
        fprintf(f, "# rtopo-bench-mpi %s: %d rank%s, topology %s, operator %s: rank r gets "
                "the %s, element by element, of the count = bytes/8 %s elements of %s\n",
                rtopo__coll_name(B.coll), B.size, B.size == 1 ? "" : "s", B.topo, rop, rop,
                dt, B.coll == RTOPO__COLL_SCAN ? "ranks 0..r (inclusive prefix)" :
                "every rank");
}

static void print_columns_coll(FILE *f)
{
    int a;

    if (B.coll == RTOPO__COLL_BCAST)
        fprintf(f, "# MPI   = MPI_Bcast(buf, count, %s, %d, MPI_COMM_WORLD), plain malloc'd "
                "buffers\n", coll_mpi_dt(), B.root);
    else
        fprintf(f, "# MPI   = %s(sendbuf, recvbuf, count, %s, %s, MPI_COMM_WORLD), plain "
                "malloc'd buffers\n", coll_mpi_fn(), coll_mpi_dt(), coll_mpi_op());
    if (find_col(COL_RAW) >= 0)
        fprintf(f, "# raw   = the root writes the whole buffer to every other rank itself, one "
                "RDMA write with immediate data each, one after another, straight through "
                "rtopo's transport, registered memory: a flat broadcast with nothing of rtopo "
                "on top (not a floor under a tree)\n");
    else if (B.coll != RTOPO__COLL_BCAST)
        fprintf(f, "# raw   = none: a reduction combines data between its steps, which no raw "
                "write of the same bytes does\n");
    else
        fprintf(f, "# raw   = not measured\n");
    fprintf(f, "# algorithms: topo = RTOPO_COLL_TOPO, the topology's own (OTIS: over "
            "electronic and OTIS links; other topologies: the generic one); generic = "
            "RTOPO_COLL_GENERIC, binomial tree (bcast) or recursive doubling (allreduce, "
            "scan); auto = RTOPO_COLL_AUTO, the topology's cost model picks per size\n");
    fprintf(f, "# ran   = the algorithm of the schedule that ran (auto: its choice), steps = "
            "its steps; every element of every rank's result is checked after each block\n");
    for (a = 0; a < 3; a++)
        if ((B.calgos & (1 << coll_order[a])) && B.nocoll[coll_order[a]][0])
            fprintf(f, "# %s: not measured: %s\n", rtopo__coll_algo_name(coll_order[a]),
                    B.nocoll[coll_order[a]]);
}

/* sort, bpc: what the operation is */
static void print_header_xop(FILE *f)
{
    int r;

    if (B.xop == XOP_SORT) {
        fprintf(f, "# rtopo-bench-mpi sort: %d rank%s, topology %s: every rank passes count "
                "records of %zu bytes (an int64 key, then an int64 payload: the record's "
                "origin, rank*count + index); rank r gets records r*count .. r*count + count "
                "- 1 of the whole set in ascending key order, equal keys by origin\n",
                B.size, B.size == 1 ? "" : "s", B.topo, SORT_REC);
        fprintf(f, "# keys: pseudo-random, signed, p*count/2 + 1 values for the p*count records "
                "(ties at every size)\n");
        return;
    }
    if (B.xop == XOP_A2A) {
        fprintf(f, "# rtopo-bench-mpi alltoall: %d rank%s, topology %s, shift algorithm %s: "
                "topology rank r sends block d of its buffer (bytes = the block's size) to "
                "rank d and gets rank d's block r into its block d\n", B.size,
                B.size == 1 ? "" : "s", B.topo, B.algo);
        return;
    }
    fprintf(f, "# rtopo-bench-mpi bpc: %d rank%s, topology %s, vector %s: the data of "
            "topology rank r goes to rank bpc(r) = rtopo_bpc_dest(\"%s\", r)\n", B.size,
            B.size == 1 ? "" : "s", B.topo, B.vector, B.vector);
    if (B.size <= 64) {
        fprintf(f, "# bpc(r) for r = 0..%d:", B.size - 1);
        for (r = 0; r < B.size; r++)
            fprintf(f, " %d", rtopo_bpc_dest(B.t, B.vector, r));
        fputc('\n', f);
    }
}

static void print_columns_xop(FILE *f)
{
    const char *comm = B.tident ? "MPI_COMM_WORLD (the topology's order already)" :
                       "MPI_COMM_WORLD split in topology order (MPI_Comm_split, key "
                       "rtopo_topo_rank)";

    if (B.xop == XOP_SORT) {
        fprintf(f, "# MPI   = MPI_Gather of every rank's count*%zu bytes to rank 0, qsort "
                "there by key, ties by origin (the payload), MPI_Scatter of count*%zu bytes "
                "back, on %s, plain malloc'd buffers\n", SORT_REC, SORT_REC, comm);
        fprintf(f, "# raw   = none: a sort compares records between its exchanges, which no "
                "raw write of the same bytes does\n");
        fprintf(f, "# ran   = the algorithm of the schedule that ran (auto: its choice), steps = "
                "its steps; slots = the records and pads each rank sorts: topo (Leighton's "
                "column sort) as rtopo_sort(3) says, generic (merge-split) count; a slot "
                "holds a record and an 8-byte sequence number\n");
        fprintf(f, "# moves = the link hops of the schedule's transfers over all ranks, as "
                "rtopo-sim counts them; blk/rank = the bytes they carry over links / (ranks x "
                "count x %zu)\n", SORT_REC);
        fprintf(f, "# check: every rank computes the whole sorted order itself and compares "
                "its count records (key and origin) with each column's result, once before "
                "the timing and after every block\n");
        return;
    }
    if (B.xop == XOP_A2A) {
        fprintf(f, "# MPI   = MPI_Alltoall of bytes MPI_BYTE per block on %s, plain malloc'd "
                "buffers\n", comm);
        fprintf(f, "# rtopo = the own block copied, then rtopo_shift by q = 1 .. p-1 of one "
                "block each (block r+q to rank r+q, into block r-q): blocking, one after "
                "another; persistent, p-1 requests made once per size (rtopo_shift_init), "
                "all started, then all waited for\n");
        fprintf(f, "# raw   = none\n");
        fprintf(f, "# steps = the steps of the p-1 shifts' schedules added up; moves = their "
                "link hops over all ranks, as rtopo-sim counts them; blk/rank = the bytes "
                "they carry over links / (ranks x bytes per block): MPI_Alltoall sends p-1 "
                "blocks per rank, straight to their ranks\n");
        fprintf(f, "# check: every byte of each column's result against its source's data, "
                "once before the timing and after every block\n");
        return;
    }
    fprintf(f, "# MPI   = MPI_Sendrecv to rtopo_bpc_dest(\"%s\", r), from the rank whose "
            "destination is r (both computed once; a rank that keeps its data sends to "
            "itself), on %s, plain malloc'd buffers\n", B.vector, comm);
    if (find_col(COL_RAW) >= 0)
        fprintf(f, "# raw   = one RDMA write with immediate data to the same destination, "
                "straight through rtopo's transport, registered memory, waiting for the write "
                "from the source (a rank that keeps its data copies locally): one direct "
                "write, where rtopo's route may take several hops\n");
    else
        fprintf(f, "# raw   = not measured\n");
    fprintf(f, "# steps = the steps of the schedule that ran; moves = the link hops of its "
            "transfers over all ranks, as rtopo-sim counts them; blk/rank = the bytes they "
            "carry over links / (ranks x bytes)\n");
    fprintf(f, "# check: every byte of each column's result against the source's data, once "
            "before the timing and after every block\n");
}

/* shift, shift-dim: what the fabric column is, or why it is not there */
static void print_fabric(FILE *f)
{
    char inl[64] = "";

    if (find_col(COL_FABRIC) < 0) {
        fprintf(f, "# fabric = not measured: %s\n", B.nofabric);
        return;
    }
    if (B.fab.inject)
        snprintf(inl, sizeof(inl), " (%s up to %zu bytes)", B.fab.verbs ? "IBV_SEND_INLINE" :
                 "fi_inject_writedata", B.fab.inject);
    if (B.fab.verbs)
        fprintf(f, "# fabric = ibv_post_send IBV_WR_RDMA_WRITE_WITH_IMM%s over an RC QP of its "
                "own on %s (%s)", inl, B.fab.provider, B.fabric_why);
    else
        fprintf(f, "# fabric = fi_writedata with remote CQ data%s on an RDM endpoint of its own "
                "of the libfabric %s provider (%s)", inl, B.fab.provider, B.fabric_why);
    fprintf(f, ", registered memory, %s, waiting for its local completion and for the write "
            "from %s, busy-polling its own completion queue%s: the provider's floor, with "
            "nothing of rtopo\n", B.dimmode ? "to the line neighbour x + d" : "to (i+q) mod p",
            B.dimmode ? "x - d" : "(i-q) mod p", B.dimmode ?
            " (a line with d = 0 copies locally)" : "");
}

static void print_header(FILE *f)
{
    const char *tr = getenv("RTOPO_TRANSPORT");

    if (B.coll)
        print_header_coll(f);
    else if (B.xop)
        print_header_xop(f);
    else if (B.dimmode)
        print_header_dim(f);
    else
        fprintf(f, "# rtopo-bench-mpi: %d rank%s, topology %s, algorithm %s, q %ld: rank i "
                "sends its data to rank (i%+ld) mod %d\n", B.size, B.size == 1 ? "" : "s",
                B.topo, B.algo, B.q, B.q, B.size);
    fprintf(f, "# rtopo %s: transport %s, provider %s, eager limit %llu bytes, waits %s%s; "
            "bootstrap over MPI_Allgather\n", rtopo_version(), tr && *tr ? tr : "auto",
            rtopo__tool_provider(B.ctx), (unsigned long long)rtopo__tool_params(B.ctx)->eager_limit,
            bench_state(B.ctx)->poll_only ? "poll (RTOPO_WAIT=poll)" : "poll, then sleep",
            bench_state(B.ctx)->oversub ? ", yielding the processor between polls (more ranks than "
                             "processors)" : "");
    fprintf(f, "# MPI: %s; %s\n", mpi_lib,
            mpi_env[0] ? mpi_env : "no OMPI_MCA_pml/btl/mtl set (Open MPI chooses)");
    fprintf(f, "# timing, every column alike: MPI_Barrier, t0, one operation, t1 (MPI_Wtime) "
            "on each rank; per iteration the slowest rank (MPI_Allreduce MAX); median and "
            "min over the iterations, in microseconds\n");
    fprintf(f, "# blocks of %d iterations, one block per column in turn, the order rotating; "
            "%d warm-up iterations per column before the first block, 1 before the others\n",
            B.block, B.warmup);
    if (B.coll)
        print_columns_coll(f);
    else if (B.xop)
        print_columns_xop(f);
    else if (!B.dimmode)
        fprintf(f, "# MPI   = MPI_Sendrecv to (i+q) mod p from (i-q) mod p, plain malloc'd "
                "buffers, MPI_COMM_WORLD\n");
    if (find_col(COL_CART) >= 0)
        fprintf(f, "# cart  = MPI_Cart_create %dx%d periodic + MPI_Cart_shift(dimension 1, q) "
                "+ MPI_Sendrecv: the row neighbour exchange of a mesh code, not the same "
                "data movement (for reference, not in the ratio)\n", B.rows, B.cols_mesh);
    if (B.coll || B.xop)
        ;   /* said above */
    else if (find_col(COL_RAW) >= 0 && B.dimmode)
        fprintf(f, "# raw   = one RDMA write with immediate data to the line neighbour x + d "
                "straight through rtopo's transport, registered memory, waiting for the write "
                "from x - d (a line with d = 0 copies locally): the floor under rtopo's "
                "engine\n");
    else if (find_col(COL_RAW) >= 0)
        fprintf(f, "# raw   = one RDMA write with immediate data to (i+q) mod p straight "
                "through rtopo's transport, registered memory, waiting for the write from "
                "(i-q) mod p: the floor under rtopo's engine\n");
    else if (!B.raw)
        fprintf(f, "# raw   = not measured\n");
    if (!B.coll && !B.xop)
        print_fabric(f);
    fprintf(f, "# ratio = MPI median / rtopo median: > 1 means rtopo is faster\n");
    if (find_col(COL_FABRIC) >= 0)
        fprintf(f, "# rtopo/fabric = rtopo median / fabric median: the cost of rtopo over the "
                "provider's own write (1 = at the provider's floor)\n");
}

static void print_tables(FILE *f)
{
    int mk = find_col(COL_MPI), ck = find_col(COL_CART), rk = find_col(COL_RAW), k, i;
    int fk = find_col(COL_FABRIC);

    for (k = 0; k < B.ncol; k++) {
        col_t *c = &B.col[k];
        char fn[96], fn_init[96], bdesc[128];
        if (c->kind != COL_RTOPO)
            continue;
        /* bcast, allreduce, scan, sort: "rtopo_bcast with RTOPO_COLL_TOPO" */
        snprintf(fn, sizeof(fn), "%s%s%s", B.fn, c->algo_col ? " with " : "",
                 c->algo_col ? coll_algo_macro(c->algo) : "");
        snprintf(fn_init, sizeof(fn_init), "%s%s%s", B.fn_init, c->algo_col ? " with " : "",
                 c->algo_col ? coll_algo_macro(c->algo) : "");
        if (B.xop == XOP_BPC) {   /* rtopo_bpc("reversal") */
            snprintf(fn, sizeof(fn), "%s(\"%s\")", B.fn, B.vector);
            snprintf(fn_init, sizeof(fn_init), "%s(\"%s\")", B.fn_init, B.vector);
        }
        if (c->unreg)
            bench_buffers_desc(B.ctx, 1, bdesc, sizeof(bdesc));
        else
            snprintf(bdesc, sizeof(bdesc), "buffers registered with rtopo_mem_register");
        if (B.xop == XOP_A2A && c->persistent)
            fprintf(f, "\n# rtopo = persistent: p-1 rtopo_shift_init once per size, then "
                    "rtopo_start of all, rtopo_wait of all; %s\n", bdesc);
        else if (B.xop == XOP_A2A)
            fprintf(f, "\n# rtopo = blocking: p-1 rtopo_shift one after another; %s\n", bdesc);
        else if (c->persistent)
            fprintf(f, "\n# rtopo = persistent: %s once per size, then rtopo_start + "
                    "rtopo_wait; %s\n", fn_init, bdesc);
        else
            fprintf(f, "\n# rtopo = blocking %s; %s\n", fn, bdesc);
        fprintf(f, "# %10s %11s %11s %11s %11s %10s", B.xop == XOP_SORT ? "records" : "bytes",
                "rtopo med", "rtopo min", "MPI med", "MPI min", "MPI/rtopo");
        if (ck >= 0)
            fprintf(f, " %11s %11s", "cart med", "cart min");
        if (rk >= 0)
            fprintf(f, " %11s %11s", "raw med", "raw min");
        if (fk >= 0)
            fprintf(f, " %11s %11s %12s", "fabric med", "fabric min", "rtopo/fabric");
        if (B.dimmode)
            fprintf(f, " %7s %8s", "moves", "blk/rank");
        if (B.coll || B.xop == XOP_SORT)
            fprintf(f, " %7s %5s", "ran", "steps");
        if (B.xop == XOP_BPC || B.xop == XOP_A2A)
            fprintf(f, " %5s", "steps");
        if (B.xop == XOP_SORT)
            fprintf(f, " %7s", "slots");
        if (B.xop)
            fprintf(f, " %7s %8s", "moves", "blk/rank");
        fputc('\n', f);
        for (i = 0; i < B.nsizes; i++) {
            fprintf(f, "  %10ld %11.2f %11.2f %11.2f %11.2f %10.3f", B.sizes[i], B.med[i][k],
                    B.min[i][k], B.med[i][mk], B.min[i][mk],
                    B.med[i][k] > 0 ? B.med[i][mk] / B.med[i][k] : 0.0);
            if (ck >= 0)
                fprintf(f, " %11.2f %11.2f", B.med[i][ck], B.min[i][ck]);
            if (rk >= 0)
                fprintf(f, " %11.2f %11.2f", B.med[i][rk], B.min[i][rk]);
            if (fk >= 0)
                fprintf(f, " %11.2f %11.2f %12.3f", B.med[i][fk], B.min[i][fk],
                        B.med[i][fk] > 0 ? B.med[i][k] / B.med[i][fk] : 0.0);
            if (B.dimmode)
                fprintf(f, " %7llu %8.3f", B.moves[i], B.blocks[i]);
            if (B.coll || B.xop == XOP_SORT)
                fprintf(f, " %7s %5d", rtopo__coll_algo_name(B.ran[i][k]), B.steps[i][k]);
            if (B.xop == XOP_BPC || B.xop == XOP_A2A)
                fprintf(f, " %5d", B.steps[i][k]);
            if (B.xop == XOP_SORT)
                fprintf(f, " %7llu", B.slots[i][k]);
            if (B.xop)
                fprintf(f, " %7llu %8.3f", B.xmoves[i][k], B.xblocks[i][k]);
            fputc('\n', f);
        }
    }
    if (!B.coll && B.xop != XOP_SORT)
        return;
    /* every rtopo column side by side, size by size */
    fprintf(f, "\n# summary: medians in us; MPI/rtopo = MPI median / rtopo median (> 1: rtopo "
            "faster)\n# %10s %-24s %-13s %11s %11s %10s", B.xop ? "records" : "bytes",
            "mode/buffers", "algo", "rtopo med", "MPI med", "MPI/rtopo");
    if (rk >= 0)
        fprintf(f, " %11s", "raw med");
    fputc('\n', f);
    for (i = 0; i < B.nsizes; i++)
        for (k = 0; k < B.ncol; k++) {
            col_t *c = &B.col[k];
            char variant[32], algo[24];
            if (c->kind != COL_RTOPO)
                continue;
            snprintf(variant, sizeof(variant), "%s/%s", c->persistent ? "persistent" :
                     "blocking", c->unreg ? "unregistered" : "registered");
            snprintf(algo, sizeof(algo), "%s%s%s", rtopo__coll_algo_name(c->algo),
                     c->algo != B.ran[i][k] ? "->" : "",
                     c->algo != B.ran[i][k] ? rtopo__coll_algo_name(B.ran[i][k]) : "");
            fprintf(f, "  %10ld %-24s %-13s %11.2f %11.2f %10.3f", B.sizes[i], variant, algo,
                    B.med[i][k], B.med[i][mk], B.med[i][k] > 0 ? B.med[i][mk] / B.med[i][k] :
                    0.0);
            if (rk >= 0)
                fprintf(f, " %11.2f", B.med[i][rk]);
            fputc('\n', f);
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
    int i, k, first, mk = find_col(COL_MPI), fk = find_col(COL_FABRIC);
    const char *tr = getenv("RTOPO_TRANSPORT");
    char **e;

    if (!f) {
        fprintf(stderr, "rtopo-bench-mpi: --json %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "{\"tool\":\"rtopo-bench-mpi\",\"rtopo_version\":");
    json_str(f, rtopo_version());
    if (B.dimmode) {
        fprintf(f, ",\"op\":\"shift-dim\",\"dim\":%d,\"extent\":%d,", B.dim, B.extent);
        if (B.have_rule)
            fprintf(f, "\"rule\":{\"a\":%ld,\"b\":%ld}", B.rule_a, B.rule_b);
        else
            fprintf(f, "\"disp\":%ld", B.q);
        fprintf(f, ",\"inplace\":%s", B.inplace ? "true" : "false");
    }
    if (B.coll) {
        fprintf(f, ",\"op\":\"%s\",\"dtype\":\"%s\",\"mpi_call\":\"%s\"",
                rtopo__coll_name(B.coll), bench_coll_dtype_name(B.dtype), coll_mpi_fn());
        if (B.coll == RTOPO__COLL_BCAST)
            fprintf(f, ",\"root\":%d", B.root);
        else
            fprintf(f, ",\"reduce_op\":\"%s\"", bench_coll_rop_name(B.rop));
    }
    if (B.xop == XOP_SORT)
        fprintf(f, ",\"op\":\"sort\",\"record_bytes\":%zu,\"key\":\"int64\",\"descending\":false,"
                "\"mpi_call\":\"MPI_Gather + qsort + MPI_Scatter\"", SORT_REC);
    if (B.xop == XOP_BPC) {
        fprintf(f, ",\"op\":\"bpc\",\"vector\":");
        json_str(f, B.vector);
        fprintf(f, ",\"mpi_call\":\"MPI_Sendrecv\"");
    }
    if (B.xop == XOP_A2A) {
        fprintf(f, ",\"op\":\"alltoall\",\"mpi_call\":\"MPI_Alltoall\",\"shift_algo\":");
        json_str(f, B.algo);
    }
    if (B.xop)
        fprintf(f, ",\"mpi_comm\":\"%s\"", B.tident ? "MPI_COMM_WORLD" :
                "MPI_COMM_WORLD split in topology order");
    fprintf(f, ",\"ranks\":%d,\"topology\":", B.size);
    json_str(f, B.topo);
    if (!B.coll && !B.xop) {
        fprintf(f, ",\"algo\":");
        json_str(f, B.algo);
        fprintf(f, ",\"q\":%ld", B.q);
    }
    fprintf(f, ",\"rtopo_transport\":");
    json_str(f, tr && *tr ? tr : "auto");
    fprintf(f, ",\"rtopo_provider\":");
    json_str(f, rtopo__tool_provider(B.ctx));
    fprintf(f, ",\"rtopo_wait\":\"%s\",\"rtopo_yields\":%s,\"rtopo_eager_limit\":%llu",
            bench_state(B.ctx)->poll_only ? "poll" : "block",
            bench_state(B.ctx)->oversub ? "true" : "false",
            (unsigned long long)rtopo__tool_params(B.ctx)->eager_limit);
    if (fk >= 0) {
        fprintf(f, ",\"fabric_column\":{\"api\":\"%s\",\"provider\":",
                B.fab.verbs ? "libibverbs" : "libfabric");
        json_str(f, B.fab.provider);
        fprintf(f, ",\"inject_bytes\":%zu,\"label\":", B.fab.inject);
        json_str(f, B.fab.label);
        fputc('}', f);
    } else if (!B.coll && !B.xop) {
        fprintf(f, ",\"fabric_not_measured\":");
        json_str(f, B.nofabric);
    }
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
        if (B.xop == XOP_SORT)
            fprintf(f, "%s\n{\"records\":%ld,\"bytes\":%zu,\"iters\":%d", i ? "," : "",
                    B.sizes[i], size_bytes(B.sizes[i]), B.its[i]);
        else if (B.xop == XOP_A2A)
            fprintf(f, "%s\n{\"bytes\":%ld,\"bytes_per_rank\":%zu,\"iters\":%d", i ? "," : "",
                    B.sizes[i], size_bytes(B.sizes[i]), B.its[i]);
        else
            fprintf(f, "%s\n{\"bytes\":%ld,\"iters\":%d", i ? "," : "", B.sizes[i], B.its[i]);
        if (B.dimmode)
            fprintf(f, ",\"link_moves\":%llu,\"blocks_per_rank\":%.4f", B.moves[i],
                    B.blocks[i]);
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
            fprintf(f, "%s{\"mode\":\"%s\",\"buffers\":\"%s\",", first ? "" : ",",
                    c->persistent ? "persistent" : "blocking",
                    c->unreg ? "unregistered" : "registered");
            if (c->algo_col)
                fprintf(f, "\"algo\":\"%s\",\"ran\":\"%s\",\"steps\":%d,",
                        rtopo__coll_algo_name(c->algo), rtopo__coll_algo_name(B.ran[i][k]),
                        B.steps[i][k]);
            if (B.xop == XOP_BPC || B.xop == XOP_A2A)
                fprintf(f, "\"steps\":%d,", B.steps[i][k]);
            if (B.xop == XOP_SORT)
                fprintf(f, "\"slots\":%llu,", B.slots[i][k]);
            if (B.xop)
                fprintf(f, "\"link_moves\":%llu,\"blocks_per_rank\":%.4f,", B.xmoves[i][k],
                        B.xblocks[i][k]);
            fprintf(f, "\"median_us\":%.3f,\"min_us\":%.3f,\"ratio_mpi_over_rtopo\":%.4f",
                    B.med[i][k], B.min[i][k], B.med[i][k] > 0 ? B.med[i][mk] / B.med[i][k] :
                    0.0);
            if (fk >= 0)
                fprintf(f, ",\"ratio_rtopo_over_fabric\":%.4f", B.med[i][fk] > 0 ?
                        B.med[i][k] / B.med[i][fk] : 0.0);
            fputc('}', f);
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

/* Starts gnuplot on a PNG with the medians as the table $d, a row per
 * size: the size, then med[i * stride + k] for the ncol columns.  NULL,
 * after a message, when gnuplot cannot start.  After MPI_Finalize, since
 * it starts a process. */
static FILE *plot_begin(const char *png, const double *med, int stride, int ncol)
{
    FILE *g = popen("gnuplot", "w");
    int i, k;

    if (!g) {
        fprintf(stderr, "rtopo-bench-mpi: --plot: cannot start gnuplot: %s\n", strerror(errno));
        return NULL;
    }
    fprintf(g, "$d << EOD\n");
    for (i = 0; i < B.nsizes; i++) {
        fprintf(g, "%ld", B.sizes[i] ? B.sizes[i] : 1);
        for (k = 0; k < ncol; k++)
            fprintf(g, " %.4f", med[(size_t)i * (size_t)stride + (size_t)k]);
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
    return g;
}

static int plot_end(FILE *g)
{
    int st = pclose(g);

    if (st != 0) {
        fprintf(stderr, "rtopo-bench-mpi: --plot: gnuplot failed (status %d)\n", st);
        return -1;
    }
    return 0;
}

/* time and bandwidth against size, one line per column */
static int draw_plot(const char *png, const char *title)
{
    FILE *g = plot_begin(png, &B.med[0][0], MAX_COLS, B.ncol);
    int i, k;

    if (!g)
        return -1;
    fprintf(g, "set multiplot layout 1,2 title \"%s\"\n", title);
    fprintf(g, "set logscale x 2\nset xlabel '%s'\nset grid\nset key top left\n"
            "set xtics (", B.xop == XOP_SORT ? "records per rank" : B.xop == XOP_A2A ?
            "bytes per block (p blocks per rank)" : "bytes per rank");
    for (i = 0; i < B.nsizes; i++) {   /* a tic at every size measured */
        long v = B.sizes[i] ? B.sizes[i] : 1;
        const char *unit = B.xop == XOP_SORT ? "" : "B";
        if (v >= (1L << 20) && v % (1L << 20) == 0)
            v >>= 20, unit = B.xop == XOP_SORT ? "Mi" : "MiB";
        else if (v >= 1024 && v % 1024 == 0)
            v >>= 10, unit = B.xop == XOP_SORT ? "Ki" : "KiB";
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
    fprintf(g, "set logscale y\nset ylabel 'median time (us)'\nset title 'time of one %s'\n"
            "plot ", B.coll ? rtopo__coll_name(B.coll) : B.xop == XOP_SORT ? "sort" :
            B.xop == XOP_BPC ? "BPC permutation" : B.xop == XOP_A2A ? "all-to-all" :
            B.dimmode ? "shift along a dimension" :
            "shift");
    for (k = 0; k < B.ncol; k++)
        fprintf(g, "%s$d using 1:%d with linespoints title '%s'", k ? ", " : "", k + 2,
                B.col[k].label);
    fprintf(g, "\nunset logscale y\nset ylabel 'MB/s (10^6 bytes per second)'\n"
            "set title 'bandwidth: bytes per rank / median time'\nplot ");
    for (k = 0; k < B.ncol; k++)
        fprintf(g, "%s$d using 1:($1*%zu/$%d) with linespoints title '%s'", k ? ", " : "",
                size_bytes(1), k + 2, B.col[k].label);
    fprintf(g, "\nunset multiplot\n");
    return plot_end(g);
}

/* ---- scatter: rtopo's strategies against MPI ---------------------------- */

/*
 * rtopo-bench-mpi scatter: the windowed scatter from rank 0 (the host) to
 * 2^d nodes, node i receiving the M elements of E bytes that start at
 * element i*Delta of the host's array (Delta = M - overlap).  With
 * 2^d + 1 ranks the host is outside the cube (node i is rank i + 1), with
 * 2^d ranks it is node 0.  Columns:
 *   - every rtopo strategy asked for (rtopo_scatter on
 *     rtopo_topo_hypercube_host(d, 0));
 *   - scatterv+halo: MPI_Scatterv of the strides (node i gets its Delta
 *     elements, the last node its whole window), then a halo exchange:
 *     for s = 1, 2, ... while a node still lacks elements, MPI_Sendrecv
 *     of the part of node i+s's stride that node i's window covers
 *     (several neighbours when M - Delta > Delta);
 *   - bcast+copy: MPI_Bcast of the whole array, each node copying its
 *     window out;
 *   - raw: the host writing every window with the raw transport
 *     (bench_raw.c).
 * Timing as for the shift.  Before its first timed block every column
 * runs once into a cleared window, which every node checks byte by byte.
 */

enum { SC_RTOPO, SC_SCATTERV, SC_BCAST, SC_RAW };

typedef struct sc_col {
    int kind, algo, x;
    char name[40];
    int chosen_algo, chosen_x;
    rtopo_req_t *req;
} sc_col_t;

static struct {
    int d, nodes, outside, me_node, esize, xall, persistent, unreg, raw;
    const char *overlap, *algo;
    int *node;                   /* job rank of node i */
    rtopo_topo_t *t;
    sc_col_t col[64];
    int ncol;
    size_t M, delta, need;       /* current size, elements */
    uint8_t *sa, *rb;            /* rtopo: registered (also raw) */
    uint8_t *usa, *urb;          /* rtopo unregistered */
    uint8_t *msa, *mwin, *mall;  /* MPI: host array, window, broadcast copy */
    MPI_Datatype elem;
    rtopo_mem_t *smem, *rmem;
    double med[MAX_SIZES][64], min[MAX_SIZES][64];
    long ovl[MAX_SIZES];
    int its[MAX_SIZES];
    char label[MAX_SIZES][64][40];
} S = { .d = -1, .esize = 8, .xall = 0, .raw = 1, .overlap = "max", .algo = "all" };

static inline uint8_t sc_pat(size_t k)
{
    return (uint8_t)((k * 0x9du) ^ (k >> 8) ^ (k >> 16));
}

static void sc_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void sc_usage_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    bench_usage_verror("rtopo-bench-mpi scatter", fmt, ap);
}

static void sc_add(int kind, int algo, int x, const char *name)
{
    sc_col_t *c = &S.col[S.ncol++];

    memset(c, 0, sizeof(*c));
    c->kind = kind;
    c->algo = algo;
    c->x = x;
    if (kind == SC_RTOPO && x >= 0)
        snprintf(c->name, sizeof(c->name), "%s:%d", name, x);
    else
        snprintf(c->name, sizeof(c->name), "%s", name);
}

static void sc_setup_cols(void)
{
    char buf[256], *tok, *save = NULL;
    int a, x, xmax, d = S.d;

    snprintf(buf, sizeof(buf), "%s", strcmp(S.algo, "all") ? S.algo :
             "seq,binomial,seqscatter,decremental,auto");
    for (tok = strtok_r(buf, ",", &save); tok && S.ncol < 56;
         tok = strtok_r(NULL, ",", &save)) {
        a = rtopo__scatter_algo_parse(tok, &x);
        if (a < 0)
            sc_usage_error("--algo: unknown scatter strategy '%s' (seq, binomial, "
                           "seqscatter[:X], decremental[:X], auto, all)", tok);
        xmax = a == RTOPO_SCATTER_SEQSCATTER ? d : a == RTOPO_SCATTER_DECREMENTAL ?
               (d ? d - 1 : 0) : -1;
        if (x > xmax)
            sc_usage_error("--algo %s: x goes from 0 to %d on a %d-cube", tok, xmax, d);
        if (xmax < 0 || a == RTOPO_SCATTER_AUTO || x >= 0)
            sc_add(SC_RTOPO, a, xmax < 0 ? -1 : x, rtopo__scatter_algo_name(a));
        else if (S.xall)
            for (x = 0; x <= xmax; x++)
                sc_add(SC_RTOPO, a, x, rtopo__scatter_algo_name(a));
        else
            sc_add(SC_RTOPO, a, -1, rtopo__scatter_algo_name(a));
    }
    sc_add(SC_SCATTERV, 0, -1, "MPI scatterv+halo");
    sc_add(SC_BCAST, 0, -1, "MPI bcast+copy");
    if (S.raw)
        sc_add(SC_RAW, 0, -1, "raw (host writes all)");
}

/* strategy label with the x the model or auto picked */
static void sc_label(const sc_col_t *c, char *out, size_t n)
{
    int a = c->algo == RTOPO_SCATTER_AUTO ? c->chosen_algo : c->algo;
    int x = c->algo == RTOPO_SCATTER_AUTO || c->x < 0 ? c->chosen_x : c->x;
    int hasx = a == RTOPO_SCATTER_SEQSCATTER || a == RTOPO_SCATTER_DECREMENTAL;

    if (c->kind != SC_RTOPO)
        snprintf(out, n, "%s", c->name);
    else if (c->algo == RTOPO_SCATTER_AUTO && hasx)
        snprintf(out, n, "auto->%s:%d", rtopo__scatter_algo_name(a), x);
    else if (c->algo == RTOPO_SCATTER_AUTO)
        snprintf(out, n, "auto->%s", rtopo__scatter_algo_name(a));
    else if (hasx && c->x < 0)
        snprintf(out, n, "%s(x=%d)", c->name, x);
    else
        snprintf(out, n, "%s", c->name);
}

/* what the model and auto pick for the current size (every rank alike:
 * the topology's model is the same everywhere) */
static void sc_choices(void)
{
    rtopo__tdesc_t td = *rtopo__tool_desc(S.t);
    rtopo__scatter_cand_t cand[RTOPO__SCATTER_NCAND(21)];
    rtopo__sched_t *s = NULL;
    int ncand = 0, ca = 0, cx = 0, k, c2;

    if (!S.outside && rtopo__tdesc_add_host(&td))
        return;
    if (rtopo__sched_scatter_auto_cand(&td, S.M, S.delta, (size_t)S.esize, rtopo__tool_model(S.t),
                                       S.outside ? -1 : 0, RTOPO__SCATTER_AUTO, cand, &ncand,
                                       &ca, &cx, &s))
        return;
    rtopo__sched_free(s);
    for (k = 0; k < S.ncol; k++) {
        sc_col_t *c = &S.col[k];
        int best = -1;
        if (c->kind != SC_RTOPO)
            continue;
        if (c->algo == RTOPO_SCATTER_AUTO) {
            c->chosen_algo = ca;
            c->chosen_x = cx;
            continue;
        }
        for (c2 = 0; c2 < ncand; c2++)
            if (cand[c2].strategy == c->algo &&
                (best < 0 || cand[c2].model_time < cand[best].model_time))
                best = c2;
        c->chosen_x = best >= 0 ? cand[best].x : -1;
    }
}

/* halo of node i: the elements [(i+s)Delta, ...) that node i+s owns and
 * node i's window covers; count in elements (0: none) */
static size_t sc_owned(int j)
{
    return j == S.nodes - 1 ? S.M : S.delta;
}

static size_t sc_halo(int i, int s)
{
    size_t start, end;

    if (i < 0 || i + s >= S.nodes || s <= 0)
        return 0;
    start = (size_t)(i + s) * S.delta;
    end = (size_t)(i + s) * S.delta + sc_owned(i + s);
    if (end > (size_t)i * S.delta + S.M)
        end = (size_t)i * S.delta + S.M;
    return end > start ? end - start : 0;
}

static void sc_mpi_scatterv_halo(void)
{
    static int *counts, *displs;
    int i, s, me = S.me_node;
    size_t es = (size_t)S.esize;

    if (!counts) {
        counts = calloc((size_t)B.size, sizeof(int));
        displs = calloc((size_t)B.size, sizeof(int));
        if (!counts || !displs)
            fail("memory", RTOPO_ERR_NOMEM);
    }
    /* root 0: counts per job rank (0 for the host outside the cube) */
    for (i = 0; i < B.size; i++)
        counts[i] = displs[i] = 0;
    for (i = 0; i < S.nodes; i++) {
        counts[S.node[i]] = (int)sc_owned(i);
        displs[S.node[i]] = (int)((size_t)i * S.delta);
    }
    mpi_check("MPI_Scatterv", MPI_Scatterv(S.msa, counts, displs, S.elem, S.mwin,
                                           me >= 0 ? (int)sc_owned(me) : 0, S.elem, 0,
                                           MPI_COMM_WORLD));
    if (S.delta >= S.M || S.nodes < 2)
        return;
    /* step s: node i receives from node i+s what of its stride i's window
     * needs, and sends node i-s what of its own stride that one needs */
    for (s = 1; s < S.nodes && (size_t)s * S.delta < S.M; s++) {
        size_t rc = me >= 0 ? sc_halo(me, s) : 0, sc = me >= 0 ? sc_halo(me - s, s) : 0;
        int to = sc ? S.node[me - s] : MPI_PROC_NULL, from = rc ? S.node[me + s] : MPI_PROC_NULL;
        if (me < 0)
            continue;
        mpi_check("MPI_Sendrecv (halo)",
                  MPI_Sendrecv(S.mwin, (int)sc, S.elem, to, 30 + s,
                               S.mwin + (size_t)s * S.delta * es, (int)rc, S.elem, from,
                               30 + s, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
}

static void sc_mpi_bcast_copy(void)
{
    size_t es = (size_t)S.esize;

    mpi_check("MPI_Bcast", MPI_Bcast(B.rank == 0 ? S.msa : S.mall, (int)S.need, S.elem, 0,
                                     MPI_COMM_WORLD));
    if (S.me_node >= 0)
        memcpy(S.mwin, (B.rank == 0 ? S.msa : S.mall) + (size_t)S.me_node * S.delta * es,
               S.M * es);
}

static void sc_op(sc_col_t *c, int i)
{
    int st;
    size_t es = (size_t)S.esize;

    switch (c->kind) {
    case SC_SCATTERV:
        sc_mpi_scatterv_halo();
        break;
    case SC_BCAST:
        sc_mpi_bcast_copy();
        break;
    case SC_RAW:
        if ((st = bench_raw_scatter_round(&B.rawt, 0, S.node, S.nodes, S.M * es,
                                          S.delta * es, (uint32_t)(i & 0xffff))))
            fail(B.rawt.what, st);
        break;
    default:
        if (c->req) {
            if ((st = rtopo_start(c->req)) || (st = rtopo_wait(c->req)))
                fail("rtopo_start/rtopo_wait", st);
        } else if ((st = rtopo_scatter(S.t, S.unreg ? S.usa : S.sa, S.need,
                                       S.unreg ? S.urb : S.rb, S.M, S.delta, es))) {
            fail(c->name, st);
        }
    }
}

static uint8_t *sc_window(const sc_col_t *c)
{
    return c->kind == SC_SCATTERV || c->kind == SC_BCAST ? S.mwin :
           c->kind == SC_RAW || !S.unreg ? S.rb : S.urb;
}

static void sc_check(const sc_col_t *c)
{
    const uint8_t *w = sc_window(c);
    size_t es = (size_t)S.esize, off = (size_t)S.me_node * S.delta * es, k;

    if (S.me_node < 0)
        return;
    for (k = 0; k < S.M * es; k++)
        if (w[k] != sc_pat(off + k)) {
            fprintf(stderr, "rtopo-bench-mpi scatter: rank %d (node %d): %s, M %zu, "
                    "overlap %zu: byte %zu of the window is 0x%02x, expected 0x%02x\n",
                    B.rank, S.me_node, c->name, S.M, S.M - S.delta, k, w[k],
                    sc_pat(off + k));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
}

static void sc_block(sc_col_t *c, double *t, int cnt, int warm, int first)
{
    double t0;
    int i, st;

    if (c->kind == SC_RAW) {
        /* no engine traffic may be left for the raw poll to take */
        if ((st = rtopo_barrier(B.ctx)))
            fail("rtopo_barrier", st);
        bench_raw_scatter_begin(&B.rawt, 0, S.node, S.nodes);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (c->kind == SC_RTOPO &&
               (st = rtopo_topo_set_scatter_algo(S.t, (rtopo_scatter_algo_t)c->algo, c->x))) {
        fail("rtopo_topo_set_scatter_algo", st);
    }
    if (first) {
        /* once, into a cleared window, checked byte by byte */
        if (S.me_node >= 0)
            memset(sc_window(c), 0, S.M * (size_t)S.esize);
        MPI_Barrier(MPI_COMM_WORLD);
        sc_op(c, -1 - warm);
        sc_check(c);
    }
    for (i = -warm; i < cnt; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        sc_op(c, i);
        if (i >= 0)
            t[i] = (MPI_Wtime() - t0) * 1e6;
    }
}

static void sc_measure(int si, int iters, int block, int warmup)
{
    size_t bytes = S.need * (size_t)S.esize;
    int it = iters, b, off, cnt, k, st;
    double *t;

    if (bytes && (long)((256ul << 20) / bytes) < it)
        it = (int)((256ul << 20) / bytes);
    if (it < 10)
        it = iters < 10 ? iters : 10;
    S.its[si] = it;
    sc_choices();
    t = malloc(sizeof(double) * (size_t)it * (size_t)S.ncol);
    if (!t)
        fail("memory", RTOPO_ERR_NOMEM);
    for (k = 0; k < S.ncol; k++) {
        sc_col_t *c = &S.col[k];
        c->req = NULL;
        if (c->kind == SC_RTOPO && S.persistent) {
            if ((st = rtopo_topo_set_scatter_algo(S.t, (rtopo_scatter_algo_t)c->algo, c->x)))
                fail("rtopo_topo_set_scatter_algo", st);
            if ((st = rtopo_scatter_init(S.t, S.unreg ? S.usa : S.sa, S.need,
                                         S.unreg ? S.urb : S.rb, S.M, S.delta,
                                         (size_t)S.esize, &c->req)))
                fail("rtopo_scatter_init", st);
        }
    }
    for (b = 0, off = 0; off < it; b++, off += cnt) {
        cnt = it - off < block ? it - off : block;
        for (k = 0; k < S.ncol; k++) {
            int j = (k + b) % S.ncol;
            sc_block(&S.col[j], t + (size_t)j * it + off, cnt, b ? 1 : warmup, b == 0);
        }
    }
    for (k = 0; k < S.ncol; k++)
        if (S.col[k].req) {
            rtopo_req_free(S.col[k].req);
            S.col[k].req = NULL;
        }
    mpi_check("MPI_Allreduce", MPI_Allreduce(MPI_IN_PLACE, t, it * S.ncol, MPI_DOUBLE,
                                             MPI_MAX, MPI_COMM_WORLD));
    for (k = 0; k < S.ncol; k++) {
        double *v = t + (size_t)k * it;
        qsort(v, (size_t)it, sizeof(*v), bench_cmp_double);
        S.med[si][k] = it % 2 ? v[it / 2] : (v[it / 2 - 1] + v[it / 2]) / 2;
        S.min[si][k] = v[0];
        sc_label(&S.col[k], S.label[si][k], sizeof(S.label[si][k]));
    }
    free(t);
}

static void sc_print(FILE *f)
{
    const char *tr = getenv("RTOPO_TRANSPORT");
    int i, k, kv = -1, kb = -1;

    for (k = 0; k < S.ncol; k++) {
        if (S.col[k].kind == SC_SCATTERV)
            kv = k;
        if (S.col[k].kind == SC_BCAST)
            kb = k;
    }
    fprintf(f, "# rtopo-bench-mpi scatter: %d ranks, hypercube of dimension %d, host rank 0 "
            "%s; windows of M elements of %d bytes, node i's starting at element i*Delta\n",
            B.size, S.d, S.outside ? "outside the cube (node i = rank i+1)" :
            "on node 0", S.esize);
    fprintf(f, "# rtopo %s: transport %s, provider %s, %s buffers%s; bootstrap over "
            "MPI_Allgather\n", rtopo_version(), tr && *tr ? tr : "auto",
            rtopo__tool_provider(B.ctx), S.unreg ? "unregistered" : "registered",
            S.persistent ? ", persistent requests" : "");
    fprintf(f, "# MPI: %s; %s\n", mpi_lib,
            mpi_env[0] ? mpi_env : "no OMPI_MCA_pml/btl/mtl set (Open MPI chooses)");
    fprintf(f, "# timing, every column alike: MPI_Barrier, t0, one scatter, t1 (MPI_Wtime); "
            "per iteration the slowest rank; median and min over the iterations, in us; "
            "blocks of %d, the order rotating; every column checked once, byte by byte\n",
            B.block);
    fprintf(f, "# MPI scatterv+halo = MPI_Scatterv of the strides (Delta elements each, the "
            "last node its whole window), then MPI_Sendrecv with the right neighbours at "
            "distance 1, 2, ... for the M - Delta elements that follow\n");
    fprintf(f, "# MPI bcast+copy = MPI_Bcast of the whole array, then a copy of the window\n");
    if (S.raw)
        fprintf(f, "# raw = the host writes every window, one raw RDMA write with immediate "
                "per node (registered memory), straight through rtopo's transport\n");
    fprintf(f, "# MPI/x = best MPI median / this median: > 1 means faster than MPI\n");
    for (i = 0; i < B.nsizes; i++) {
        double best = kv >= 0 && kb >= 0 ? (S.med[i][kv] < S.med[i][kb] ? S.med[i][kv] :
                                            S.med[i][kb]) : 0;
        size_t M = (size_t)B.sizes[i];
        fprintf(f, "\n# M %zu elements (%zu B per window), overlap %ld, Delta %zu, host array "
                "%zu B, %d iterations\n", M, M * (size_t)S.esize, S.ovl[i],
                M - (size_t)S.ovl[i], ((size_t)(S.nodes - 1) * (M - (size_t)S.ovl[i]) + M) *
                (size_t)S.esize, S.its[i]);
        fprintf(f, "# %-24s %11s %11s %8s\n", "method", "median(us)", "min(us)", "MPI/x");
        for (k = 0; k < S.ncol; k++)
            fprintf(f, "  %-24s %11.2f %11.2f %8.3f\n", S.label[i][k], S.med[i][k],
                    S.min[i][k], S.med[i][k] > 0 ? best / S.med[i][k] : 0.0);
    }
}

/* time and bandwidth (the bytes of one window per node over the median)
 * against the window's size, one line per column; after MPI_Finalize */
static int sc_plot(const char *png)
{
    FILE *g = plot_begin(png, &S.med[0][0], (int)(sizeof(S.med[0]) / sizeof(S.med[0][0])),
                         S.ncol);
    int k;

    if (!g)
        return -1;
    fprintf(g, "set multiplot layout 1,2 title \"rtopo-bench-mpi scatter: %d ranks, %d-cube, "
            "host %s, overlap %s, %d-byte elements; %s\"\n", B.size, S.d,
            S.outside ? "outside" : "on node 0", S.overlap, S.esize, mpi_lib);
    fprintf(g, "set logscale x 2\nset xlabel 'M, elements per window'\nset grid\n"
            "set key top left\nset logscale y\nset ylabel 'median time (us)'\n"
            "set title 'time of one scatter'\nplot ");
    for (k = 0; k < S.ncol; k++)
        fprintf(g, "%s$d using 1:%d with linespoints title '%s'", k ? ", " : "", k + 2,
                S.col[k].name);
    fprintf(g, "\nunset logscale y\nset ylabel 'MB/s (10^6 bytes per second)'\n"
            "set title 'window bytes per node / median time'\nplot ");
    for (k = 0; k < S.ncol; k++)
        fprintf(g, "%s$d using 1:($1*%d/$%d) with linespoints title '%s'", k ? ", " : "",
                S.esize, k + 2, S.col[k].name);
    fprintf(g, "\nunset multiplot\n");
    return plot_end(g);
}

static int sc_json(const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    const char *tr = getenv("RTOPO_TRANSPORT");
    int i, k;

    if (!f) {
        fprintf(stderr, "rtopo-bench-mpi: --json %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "{\"tool\":\"rtopo-bench-mpi\",\"op\":\"scatter\",\"ranks\":%d,\"dim\":%d,"
            "\"host\":\"%s\",\"elem_size\":%d,\"rtopo_transport\":", B.size, S.d,
            S.outside ? "outside" : "node 0", S.esize);
    json_str(f, tr && *tr ? tr : "auto");
    fprintf(f, ",\"rtopo_provider\":");
    json_str(f, rtopo__tool_provider(B.ctx));
    fprintf(f, ",\"rtopo_wait\":\"%s\",\"rtopo_yields\":%s,\"rtopo_eager_limit\":%llu",
            bench_state(B.ctx)->poll_only ? "poll" : "block",
            bench_state(B.ctx)->oversub ? "true" : "false",
            (unsigned long long)rtopo__tool_params(B.ctx)->eager_limit);
    fprintf(f, ",\"mpi_library\":");
    json_str(f, mpi_lib);
    fprintf(f, ",\"unit\":\"us\",\"results\":[");
    for (i = 0; i < B.nsizes; i++) {
        fprintf(f, "%s\n{\"count\":%ld,\"overlap\":%ld,\"iters\":%d,\"methods\":[", i ? "," : "",
                B.sizes[i], S.ovl[i], S.its[i]);
        for (k = 0; k < S.ncol; k++) {
            fprintf(f, "%s{\"method\":", k ? "," : "");
            json_str(f, S.label[i][k]);
            fprintf(f, ",\"median_us\":%.3f,\"min_us\":%.3f}", S.med[i][k], S.min[i][k]);
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

static int scatter_main(int argc, char **argv)
{
    static const char *const with_value[] = {
        "--d", "--sizes", "--esize", "--overlap", "--algo", "--x", "--iters", "--block",
        "--warmup", "--buffers", "--json", "--plot"
    };
    rtopo_config_t cfg = RTOPO_CONFIG_INIT;
    MPI_Comm world = MPI_COMM_WORLD;
    const char *o, *json = NULL;
    size_t k, maxs = 0, maxr = 0, j;
    int i, st, rc = 0, p;

    B.iters = 100;
    parse_sizes("1024,16384,262144");
    for (i = 1; i < argc; i++) {
        o = argv[i];
        for (k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
            if (!strcmp(o, with_value[k]) && i + 1 >= argc)
                sc_usage_error("%s needs a value", o);
        if (!strcmp(o, "--d")) S.d = (int)bench_parse_long(o, argv[++i], 0, 20);
        else if (!strcmp(o, "--sizes")) parse_sizes(argv[++i]);
        else if (!strcmp(o, "--esize")) S.esize = (int)bench_parse_long(o, argv[++i], 1, 1 << 20);
        else if (!strcmp(o, "--overlap")) {
            S.overlap = argv[++i];
            if (strcmp(S.overlap, "max") && strcmp(S.overlap, "half"))
                bench_parse_long(o, S.overlap, 0, INT_MAX);
        } else if (!strcmp(o, "--algo")) S.algo = argv[++i];
        else if (!strcmp(o, "--x")) {
            if (strcmp(argv[++i], "all") && strcmp(argv[i], "model"))
                sc_usage_error("--x is all or model (got '%s')", argv[i]);
            S.xall = !strcmp(argv[i], "all");
        }
        else if (!strcmp(o, "--iters")) B.iters = (int)bench_parse_long(o, argv[++i], 1, 1 << 20);
        else if (!strcmp(o, "--block")) B.block = (int)bench_parse_long(o, argv[++i], 1, 1 << 20);
        else if (!strcmp(o, "--warmup")) B.warmup = (int)bench_parse_long(o, argv[++i], 0, 1 << 20);
        else if (!strcmp(o, "--buffers")) {
            int m = bench_parse_pair_opt(o, argv[++i], "registered", "unregistered");
            if (m == 3)
                sc_usage_error("--buffers: one of registered, unregistered for scatter");
            S.unreg = m == 2;
        }
        else if (!strcmp(o, "--unregistered")) S.unreg = 1;
        else if (!strcmp(o, "--persistent")) S.persistent = 1;
        else if (!strcmp(o, "--no-raw")) S.raw = 0;
        else if (!strcmp(o, "--json")) json = argv[++i];
        else if (!strcmp(o, "--plot")) B.plot = argv[++i];
        else sc_usage_error("unknown option '%s'", o);
    }
    for (i = 0; i < B.nsizes; i++) {
        long M = B.sizes[i];
        if (M < 1)
            sc_usage_error("--sizes: windows of at least 1 element (got %ld)", M);
        S.ovl[i] = !strcmp(S.overlap, "max") ? M - 1 : !strcmp(S.overlap, "half") ? M / 2 :
                   bench_parse_long("--overlap", S.overlap, 0, INT_MAX);
        if (S.ovl[i] > M - 1)
            sc_usage_error("--overlap %ld: windows of %ld elements overlap by at most %ld",
                           S.ovl[i], M, M - 1);
    }

    mpi_check("MPI_Init", MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &B.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &B.size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    p = B.size;
    if (S.d < 0) {   /* from the job size: the host outside the cube if it fits */
        for (S.d = 0; S.d < 20 && (1 << S.d) + 1 < p; S.d++)
            ;
        if ((1 << S.d) + 1 != p)
            for (S.d = 0; S.d < 20 && (1 << S.d) < p; S.d++)
                ;
    }
    cfg.rank = B.rank;
    cfg.nranks = B.size;
    cfg.allgather = mpi_allgather;
    cfg.allgather_arg = &world;
    if ((st = rtopo_init(&cfg, &B.ctx)))
        fail("rtopo_init", st);
    if ((st = rtopo_topo_hypercube_host(B.ctx, S.d, 0, &S.t))) {
        if (B.rank == 0)
            fprintf(stderr, "rtopo-bench-mpi scatter: a %d-cube with a host on %d ranks: %s "
                    "(%s)\n", S.d, p, rtopo_strerror(st), rtopo_last_error());
        rtopo_finalize(B.ctx);
        MPI_Finalize();
        return 2;
    }
    S.nodes = 1 << S.d;
    S.outside = p == S.nodes + 1;
    S.me_node = S.outside ? B.rank - 1 : B.rank;    /* the host: -1 outside the cube */
    S.node = malloc(sizeof(int) * (size_t)S.nodes);
    for (i = 0; i < S.nodes; i++)
        S.node[i] = S.outside ? i + 1 : i;
    if (bench_state(B.ctx)->thread_on)
        S.raw = 0;
    sc_setup_cols();
    mpi_check("MPI_Type_contiguous", MPI_Type_contiguous(S.esize, MPI_BYTE, &S.elem));
    mpi_check("MPI_Type_commit", MPI_Type_commit(&S.elem));
    for (i = 0; i < B.nsizes; i++) {
        size_t M = (size_t)B.sizes[i], need = (size_t)(S.nodes - 1) * (M - (size_t)S.ovl[i]) + M;
        if (need * (size_t)S.esize > maxs)
            maxs = need * (size_t)S.esize;
        if (M * (size_t)S.esize > maxr)
            maxr = M * (size_t)S.esize;
        if (need > INT_MAX)
            sc_usage_error("a host array of %zu elements does not fit MPI's int counts", need);
    }
    maxs += 64;
    maxr += 64;
    if (posix_memalign((void **)&S.sa, 4096, maxs) || posix_memalign((void **)&S.rb, 4096, maxr) ||
        posix_memalign((void **)&S.msa, 4096, maxs) ||
        posix_memalign((void **)&S.mwin, 4096, maxr) ||
        posix_memalign((void **)&S.mall, 4096, maxs))
        fail("memory", RTOPO_ERR_NOMEM);
    for (j = 0; j < maxs; j++)
        S.sa[j] = S.msa[j] = sc_pat(j);
    memset(S.rb, 0, maxr);
    memset(S.mwin, 0, maxr);
    memset(S.mall, 0, maxs);
    if (S.unreg) {
        if (!(S.usa = malloc(maxs)) || !(S.urb = malloc(maxr)))
            fail("memory", RTOPO_ERR_NOMEM);
        memcpy(S.usa, S.sa, maxs);
        memset(S.urb, 0, maxr);
    }
    if ((st = rtopo_mem_register(B.ctx, S.sa, maxs, &S.smem)) ||
        (st = rtopo_mem_register(B.ctx, S.rb, maxr, &S.rmem)))
        fail("rtopo_mem_register", st);
    if (S.raw && (st = bench_raw_open(&B.rawt, B.ctx, 0, S.smem, S.rmem)))
        fail(B.rawt.what, st);
    describe_mpi();

    for (i = 0; i < B.nsizes; i++) {
        S.M = (size_t)B.sizes[i];
        S.delta = S.M - (size_t)S.ovl[i];
        S.need = (size_t)(S.nodes - 1) * S.delta + S.M;
        sc_measure(i, B.iters, B.block, B.warmup);
    }
    if (B.rank == 0) {
        sc_print(stdout);
        fflush(stdout);
        if (json && sc_json(json))
            rc = 1;
    }
    if (S.raw)
        bench_raw_close(&B.rawt);
    rtopo_mem_deregister(S.smem);
    rtopo_mem_deregister(S.rmem);
    rtopo_topo_free(S.t);
    if ((st = rtopo_finalize(B.ctx)))
        fail("rtopo_finalize", st);
    MPI_Type_free(&S.elem);
    MPI_Finalize();
    if (B.rank == 0 && B.plot) {
        if (!have_gnuplot())
            fprintf(stderr, "rtopo-bench-mpi: no plot: --plot needs gnuplot (Debian: apt-get "
                    "install gnuplot-nox)\n");
        else if (sc_plot(B.plot))
            rc = 1;
        else
            fprintf(stderr, "rtopo-bench-mpi: plot written to %s\n", B.plot);
    }
    free(S.sa);
    free(S.rb);
    free(S.msa);
    free(S.mwin);
    free(S.mall);
    free(S.usa);
    free(S.urb);
    free(S.node);
    return rc;
}

/* ---- shift-dim set-up --------------------------------------------------- */

/* rtopo's line neighbours of this rank (B.dst, B.src, job ranks), and
 * what an MPI code writes for the same shift: a periodic Cartesian
 * communicator of the topology's shape and MPI_Cart_shift along the
 * matching dimension by this rank's line displacement (B.cart_dst,
 * B.cart_src).  On the hypercube MPI's dimension j is bit D-1-j of its
 * rank, so rtopo's dimension k is MPI's D-1-k.  Returns 0, or 2 after a
 * message for a bad dimension. */
static int dim_setup(void)
{
    const rtopo__tdesc_t *desc = rtopo__tool_desc(B.t);
    int nd = rtopo_topo_ndims(B.t), dims[RTOPO__MAX_DIMS], periods[RTOPO__MAX_DIMS];
    int mc[RTOPO__MAX_DIMS], rc[RTOPO__MAX_DIMS], j, line, pos, d, L, cube;
    rtopo__dimshift_t ds;

    cube = desc->kind == RTOPO__TOPO_HYPERCUBE;
    if (B.dim < 0)
        B.dim = nd - 1;
    if ((B.extent = rtopo_topo_extent(B.t, B.dim)) < 0) {
        if (B.rank == 0)
            fprintf(stderr, "rtopo-bench-mpi shift-dim: --dim %d on %s: %s\n", B.dim, B.topo,
                    rtopo_last_error());
        return 2;
    }
    memset(&ds, 0, sizeof(ds));
    ds.dim = B.dim;
    ds.a = B.have_rule ? B.rule_a : 0;
    ds.b = B.have_rule ? B.rule_b : B.q;
    line = rtopo__cart_line(desc, B.dim, rtopo__tool_me(B.t), &pos);
    d = rtopo__dimshift_disp(desc, &ds, line);
    B.dst = rtopo__tool_job_rank(B.t, rtopo__cart_member(desc, B.dim, line,
                                                         (pos + d) % B.extent));
    B.src = rtopo__tool_job_rank(B.t, rtopo__cart_member(desc, B.dim, line,
                                                         (pos - d + B.extent) % B.extent));
    B.moving = 0;
    for (L = 0; L < rtopo__cart_nlines(desc, B.dim); L++)
        B.moving |= rtopo__dimshift_disp(desc, &ds, L) != 0;
    for (j = 0; j < nd; j++) {
        dims[j] = rtopo_topo_extent(B.t, cube ? nd - 1 - j : j);
        periods[j] = 1;
    }
    B.mdim = cube ? nd - 1 - B.dim : B.dim;
    mpi_check("MPI_Cart_create", MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0,
                                                 &B.cart));
    /* this rank's line as the MPI code sees it: its own coordinates */
    mpi_check("MPI_Cart_coords", MPI_Cart_coords(B.cart, B.rank, nd, mc));
    for (j = 0; j < nd; j++)
        rc[cube ? nd - 1 - j : j] = mc[j];
    if (cube) {
        /* the label whose bits are MPI's coordinates is a cube node */
        int node = 0;

        for (j = 0; j < nd; j++)
            node |= rc[j] << j;
        line = rtopo__cart_line(desc, B.dim, (int)rtopo__gray_inv((uint32_t)node), &pos);
    } else {
        line = rtopo__cart_line(desc, B.dim, rtopo__cart_rank(desc, rc), &pos);
    }
    d = rtopo__dimshift_disp(desc, &ds, line);
    mpi_check("MPI_Cart_shift", MPI_Cart_shift(B.cart, B.mdim, d, &B.cart_src, &B.cart_dst));
    return 0;
}

/* ---- bcast, allreduce, scan set-up ---------------------------------------- */

/* MPI's datatype and operator, the root checked, and the algorithms the
 * topology has (a schedule of each for the smallest size, built as the
 * call builds it); 0, else the exit status after a message */
static int coll_setup(void)
{
    static const MPI_Op mops[] = { MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX };
    rtopo__sched_t *s;
    int a, st, any = 0;

    B.mdt = B.dtype == RTOPO_DOUBLE ? MPI_DOUBLE : MPI_INT64_T;
    B.mop = mops[B.rop - RTOPO_SUM];
    if (B.root >= B.size) {
        if (B.rank == 0)
            fprintf(stderr, "rtopo-bench-mpi: bcast --root %d: the job has %d ranks\n", B.root,
                    B.size);
        return 2;
    }
    for (a = RTOPO_COLL_AUTO; a <= RTOPO_COLL_GENERIC; a++) {
        rtopo__coll_t c = { .op = B.coll, .algo = a, .dtype = B.dtype, .rop = B.rop,
                            .count = B.sizes[0] >= 8 ? (uint64_t)B.sizes[0] / 8 : 1,
                            .esize = 8, .root = B.root };
        if (!(B.calgos & (1 << a)))
            continue;
        if ((st = rtopo__sched_coll(rtopo__tool_desc(B.t), &c, rtopo__tool_model(B.t), &s))) {
            snprintf(B.nocoll[a], sizeof(B.nocoll[a]), "%s (%s)", rtopo_strerror(st),
                     rtopo_last_error());
            continue;
        }
        rtopo__sched_free(s);
        any = 1;
    }
    if (!any) {
        if (B.rank == 0) {
            fprintf(stderr, "rtopo-bench-mpi: %s on %s: no rtopo algorithm to measure:",
                    rtopo__coll_name(B.coll), B.topo);
            for (a = 0; a < 3; a++)
                if (B.calgos & (1 << coll_order[a]))
                    fprintf(stderr, " %s: %s;", rtopo__coll_algo_name(coll_order[a]),
                            B.nocoll[coll_order[a]]);
            fputc('\n', stderr);
        }
        return 1;
    }
    return 0;
}

/* every rank's data (bcast: the root's, in its buffer), results cleared;
 * the job's ranks for the raw broadcast */
static void coll_bufs(void)
{
    size_t cnt = B.maxb / 8;
    int i;

    bench_coll_fill(B.coll, B.dtype, B.rop, B.coll == RTOPO__COLL_BCAST ? B.root : B.rank,
                    B.sb, cnt);
    memcpy(B.usb, B.sb, cnt * 8);
    if (B.coll == RTOPO__COLL_BCAST && B.rank == B.root) {
        memcpy(B.rb, B.sb, cnt * 8);
        memcpy(B.urb, B.sb, cnt * 8);
    }
    B.exp = malloc(B.maxb);
    B.ranks = malloc(sizeof(int) * (size_t)B.size);
    if (!B.exp || !B.ranks)
        fail("memory", RTOPO_ERR_NOMEM);
    for (i = 0; i < B.size; i++)
        B.ranks[i] = i;
}

/* ---- sort, bpc set-up ----------------------------------------------------- */

/* this rank's topology rank, MPI_COMM_WORLD in topology order, bpc's
 * partners; 0, else the exit status after a message */
static int xop_setup(void)
{
    int r, d, same;

    B.trank = rtopo_topo_rank(B.t);
    mpi_check("MPI_Comm_split", MPI_Comm_split(MPI_COMM_WORLD, 0, B.trank, &B.tcomm));
    same = B.trank == B.rank;
    mpi_check("MPI_Allreduce", MPI_Allreduce(&same, &B.tident, 1, MPI_INT, MPI_LAND,
                                             MPI_COMM_WORLD));
    B.moving = 0;
    if (B.xop != XOP_BPC)
        return 0;
    if ((B.bdst = rtopo_bpc_dest(B.t, B.vector, B.trank)) < 0) {
        if (B.rank == 0)
            fprintf(stderr, "rtopo-bench-mpi: bpc --vector %s on %s, %d ranks: %s (%s)\n",
                    B.vector, B.topo, B.size, rtopo_strerror(B.bdst), rtopo_last_error());
        return 2;
    }
    /* the source, as a user finds it: the rank whose destination is this
     * one */
    B.bsrc = -1;
    for (r = 0; r < B.size; r++) {
        d = rtopo_bpc_dest(B.t, B.vector, r);
        if (d == B.trank)
            B.bsrc = r;
        B.moving |= d != r;
    }
    if (B.bsrc < 0) {
        fprintf(stderr, "rtopo-bench-mpi: rank %d: bpc %s: no rank sends to topology rank %d\n",
                B.rank, B.vector, B.trank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return 0;
}

/* what each rank must hold; sort: rank 0's gather buffer */
static void xop_bufs(void)
{
    size_t maxv = 0;
    int i;

    B.exp = malloc(B.maxb);
    if (!B.exp)
        fail("memory", RTOPO_ERR_NOMEM);
    if (B.xop != XOP_SORT || B.trank != 0)
        return;
    for (i = 0; i < B.nsizes; i++)
        maxv = (size_t)B.sizes[i] > maxv ? (size_t)B.sizes[i] : maxv;
    if (!(B.all = malloc(maxv * (size_t)B.size * SORT_REC + 64)))
        fail("memory", RTOPO_ERR_NOMEM);
}

/* ---- the fabric column --------------------------------------------------- */

/* the provider of the fabric column when --fabric does not name one: the
 * one RTOPO_TRANSPORT names, else libfabric's shm on one host, tcp across
 * hosts; B.fabric_why says which rule chose it */
static const char *fabric_default(void)
{
    const char *tr = getenv("RTOPO_TRANSPORT");
    MPI_Comm node;
    int n = 0;

    if (tr && (!strcmp(tr, "ofi") || !strncmp(tr, "ofi:", 4) || !strcmp(tr, "verbs") ||
               !strncmp(tr, "verbs:", 6))) {
        snprintf(B.fabric_why, sizeof(B.fabric_why), "from RTOPO_TRANSPORT=%.60s", tr);
        if (!strcmp(tr, "ofi") || !strcmp(tr, "ofi:tcp"))
            return "tcp";
        if (!strcmp(tr, "ofi:rxm"))
            return "tcp;ofi_rxm";
        return tr[0] == 'o' ? (tr[4] ? tr + 4 : "tcp") : tr;
    }
    mpi_check("MPI_Comm_split_type", MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED,
                                                         0, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
    snprintf(B.fabric_why, sizeof(B.fabric_why), "%s", n == B.size ?
             "every rank on one host" : "ranks on several hosts");
    return n == B.size ? "shm" : "tcp";
}

/* shift, shift-dim: opens the fabric column's provider on B.sb and B.rb
 * (every rank); on failure the column is left out, and B.nofabric says
 * why */
static void fabric_open(void)
{
    char err[sizeof(B.fab.err)];

    if (!B.fabric) {
        snprintf(B.nofabric, sizeof(B.nofabric), "%s", B.fabric_kind ? "--no-fabric or "
                 "--fabric none" : "not asked for");
        return;
    }
    if (B.dimmode ? !B.moving : B.dst == B.rank) {
        snprintf(B.nofabric, sizeof(B.nofabric), "the shift moves no data");
        B.fabric = 0;
        return;
    }
    if (B.fabric_kind)
        snprintf(B.fabric_why, sizeof(B.fabric_why), "--fabric %.60s", B.fabric_kind);
    else
        B.fabric_kind = fabric_default();
    if (bench_fabric_open(&B.fab, B.fabric_kind, MPI_COMM_WORLD, B.sb, B.rb, B.maxb, B.dst,
                          B.src, err, sizeof(err))) {
        snprintf(B.nofabric, sizeof(B.nofabric), "provider '%.40s' (%s) cannot be opened: "
                 "%.200s", B.fabric_kind, B.fabric_why, err);
        B.fabric = 0;
    }
}

/* ---- main --------------------------------------------------------------- */

int main(int argc, char **argv)
{
    static const char *const with_value[] = {
        "--topo", "--algo", "--q", "--sizes", "--iters", "--block", "--warmup", "--modes",
        "--buffers", "--json", "--plot", "--dim", "--disp", "--rule", "--root", "--op",
        "--dtype", "--vector", "--fabric"
    };
    rtopo_config_t cfg = RTOPO_CONFIG_INIT;
    MPI_Comm world = MPI_COMM_WORLD;
    const char *o;
    size_t k;
    int i, st, plot_ok = 0, rc = 0, have_q = 0, have_coll_opt = 0, have_algo = 0;
    int have_vector = 0, have_fabric_opt = 0;
    char title[512], what[96];

    /* only rank 0 prints usage messages */
    bench_cli.prog = "rtopo-bench-mpi";
    bench_cli.usage = usage;
    bench_cli.quiet = env_rank() != 0;
    for (i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            if (env_rank() == 0)
                usage(stdout);
            return 0;
        }
    if (argc > 1 && !strcmp(argv[1], "scatter"))
        return scatter_main(argc - 1, argv + 1);
    if (argc > 1 && (!strcmp(argv[1], "shift") || !strcmp(argv[1], "shift-dim") ||
                     !strcmp(argv[1], "sort") || !strcmp(argv[1], "bpc") ||
                     !strcmp(argv[1], "alltoall") || bench_coll_op_parse(argv[1]) > 0)) {
        /* the default operation, named, the dimension shift, a
         * collective, the sort or a BPC permutation */
        B.dimmode = !strcmp(argv[1], "shift-dim");
        B.coll = bench_coll_op_parse(argv[1]) > 0 ? bench_coll_op_parse(argv[1]) : 0;
        B.xop = !strcmp(argv[1], "sort") ? XOP_SORT : !strcmp(argv[1], "bpc") ? XOP_BPC :
                !strcmp(argv[1], "alltoall") ? XOP_A2A : 0;
        argv[1] = argv[0];
        argc--;
        argv++;
    }
    parse_sizes(B.xop == XOP_SORT ? "1,64,1024,16384" : B.coll || B.xop ? "8,1024,65536,1048576" :
                "8,2048,8192,131072,2097152,16777216");
    for (i = 1; i < argc; i++) {
        o = argv[i];
        for (k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
            if (!strcmp(o, with_value[k]) && i + 1 >= argc)
                bench_usage_error("%s needs a value", o);
        if (!strcmp(o, "--topo")) B.topo = argv[++i];
        else if (!strcmp(o, "--algo")) {
            B.algo = argv[++i];
            have_algo = 1;
        }
        else if (!strcmp(o, "--q")) {
            B.q = bench_parse_long(o, argv[++i], -(1L << 30), 1L << 30);
            have_q = 1;
        }
        else if (!strcmp(o, "--sizes")) parse_sizes(argv[++i]);
        else if (!strcmp(o, "--iters")) B.iters = (int)bench_parse_long(o, argv[++i], 1, 1 << 20);
        else if (!strcmp(o, "--block")) B.block = (int)bench_parse_long(o, argv[++i], 1, 1 << 20);
        else if (!strcmp(o, "--warmup")) B.warmup = (int)bench_parse_long(o, argv[++i], 0, 1 << 20);
        else if (!strcmp(o, "--modes"))
            B.modes = bench_parse_pair_opt(o, argv[++i], "blocking", "persistent");
        else if (!strcmp(o, "--buffers"))
            B.buffers = bench_parse_pair_opt(o, argv[++i], "registered", "unregistered");
        else if (!strcmp(o, "--unregistered")) B.buffers = 2;
        else if (!strcmp(o, "--no-raw")) B.raw = 0;
        else if (!strcmp(o, "--fabric")) {
            B.fabric_kind = argv[++i];
            if (!*B.fabric_kind)
                bench_usage_error("--fabric needs a provider: shm, tcp, tcp;ofi_rxm, verbs[:DEVICE], "
                                  "another libfabric provider, or none");
            B.fabric = strcmp(B.fabric_kind, "none") != 0;
            have_fabric_opt = 1;
        } else if (!strcmp(o, "--no-fabric")) {
            B.fabric = 0;
            B.fabric_kind = "none";
            have_fabric_opt = 1;
        }
        else if (!strcmp(o, "--json")) B.json = argv[++i];
        else if (!strcmp(o, "--plot")) B.plot = argv[++i];
        else if (!strcmp(o, "--dim")) B.dim = (int)bench_parse_long(o, argv[++i], 0, 31);
        else if (!strcmp(o, "--disp")) {
            B.q = bench_parse_long(o, argv[++i], INT_MIN, INT_MAX);
            B.have_disp = 1;
        } else if (!strcmp(o, "--rule")) {
            char *comma = strchr(argv[++i], ',');
            if (!comma)
                bench_usage_error("--rule '%s': expected A,B (line L shifts by A*L + B)", argv[i]);
            *comma = '\0';
            B.rule_a = bench_parse_long("--rule A", argv[i], INT_MIN, INT_MAX);
            B.rule_b = bench_parse_long("--rule B", comma + 1, INT_MIN, INT_MAX);
            B.have_rule = 1;
        }
        else if (!strcmp(o, "--inplace")) B.inplace = 1;
        else if (!strcmp(o, "--vector")) {
            B.vector = argv[++i];
            have_vector = 1;
        }
        else if (!strcmp(o, "--root")) {
            B.root = (int)bench_parse_long(o, argv[++i], 0, INT_MAX);
            have_coll_opt = 1;
        } else if (!strcmp(o, "--op")) {
            if ((B.rop = bench_coll_rop_parse(argv[++i])) < 0)
                bench_usage_error("--op '%s': sum, prod, min or max", argv[i]);
            have_coll_opt = 1;
        } else if (!strcmp(o, "--dtype")) {
            if ((B.dtype = bench_coll_dtype_parse(argv[++i])) < 0)
                bench_usage_error("--dtype '%s': int64 or double", argv[i]);
            have_coll_opt = 1;
        }
        else bench_usage_error("unknown option '%s'", o);
    }
    if (B.coll) {
        if (have_q)
            bench_usage_error("%s takes no --q", rtopo__coll_name(B.coll));
        if (B.coll == RTOPO__COLL_BCAST ? B.rop != RTOPO_SUM : B.root != 0)
            bench_usage_error("%s takes no %s", rtopo__coll_name(B.coll),
                              B.coll == RTOPO__COLL_BCAST ? "--op" : "--root");
        B.calgos = parse_calgos(have_algo ? B.algo : "all");
        for (i = 0; i < B.nsizes; i++)
            if (B.sizes[i] % 8)
                bench_usage_error("%s --sizes: %ld bytes is not a whole number of 8-byte elements",
                                  rtopo__coll_name(B.coll), B.sizes[i]);
        B.fn = bench_coll_entry(B.coll)->fn;
        B.fn_init = bench_coll_entry(B.coll)->fn_init;
    } else if (have_coll_opt) {
        bench_usage_error("--root, --op and --dtype go with bcast, allreduce and scan");
    }
    if (have_vector && B.xop != XOP_BPC)
        bench_usage_error("--vector goes with bpc");
    if (have_fabric_opt && (B.coll || B.xop))
        bench_usage_error("--fabric and --no-fabric go with the shift and shift-dim");
    if (B.coll || B.xop)
        B.fabric = 0;
    if (B.xop) {
        const char *name = B.xop == XOP_SORT ? "sort" : B.xop == XOP_A2A ? "alltoall" : "bpc";

        if (have_q)
            bench_usage_error("%s takes no --q", name);
        if (have_algo && B.xop == XOP_BPC)
            bench_usage_error("bpc takes no --algo (a BPC permutation has one schedule)");
        if (B.xop == XOP_SORT && !(B.calgos = parse_calgos(have_algo ? B.algo : "all")))
            bench_usage_error("sort --algo '%s' names no algorithm", B.algo);
        for (i = 0; i < B.nsizes; i++)
            if (B.xop == XOP_SORT && B.sizes[i] > (long)(INT_MAX / SORT_REC))
                bench_usage_error("sort --sizes: %ld records of %zu bytes exceed MPI's count "
                                  "(%ld records at most)", B.sizes[i], SORT_REC,
                                  (long)(INT_MAX / SORT_REC));
        if (B.xop == XOP_SORT || B.xop == XOP_A2A)
            B.raw = 0;   /* no raw write is a sort; the all-to-all has none */
        B.fn = B.xop == XOP_SORT ? "rtopo_sort" : B.xop == XOP_A2A ? "rtopo_shift" : "rtopo_bpc";
        B.fn_init = B.xop == XOP_SORT ? "rtopo_sort_init" : B.xop == XOP_A2A ?
                    "rtopo_shift_init" : "rtopo_bpc_init";
    }
    if (!B.dimmode && (B.dim >= 0 || B.have_disp || B.have_rule || B.inplace))
        bench_usage_error("--dim, --disp, --rule and --inplace go with shift-dim");
    if (B.have_disp && B.have_rule)
        bench_usage_error("shift-dim: give --disp or --rule, not both");
    if (B.dimmode && (strcmp(B.algo, "auto") || have_q))
        bench_usage_error("shift-dim takes no --algo or --q (its routes follow the lines; the "
                          "displacement is --disp)");
    if (B.dimmode) {
        B.fn = B.have_rule ? "rtopo_shift_dim_rule" : "rtopo_shift_dim";
        B.fn_init = B.have_rule ? "rtopo_shift_dim_rule_init" : "rtopo_shift_dim_init";
    }
    if (sscanf(B.topo, "mesh:%dx%d", &B.rows, &B.cols_mesh) != 2)
        B.rows = B.cols_mesh = 0;
    if (((!B.coll && !B.xop) || B.xop == XOP_A2A) && rtopo__shift_algo_parse(B.algo) < 0)
        bench_usage_error("unknown algorithm '%s'", B.algo);
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
    if (((!B.coll && !B.xop) || B.xop == XOP_A2A) &&
        (st = rtopo_topo_set_shift_algo(B.t, rtopo__shift_algo_parse(B.algo))))
        fail("rtopo_topo_set_shift_algo", st);
    if (B.coll && (st = coll_setup())) {
        rtopo_topo_free(B.t);
        rtopo_finalize(B.ctx);
        MPI_Finalize();
        return st;
    }
    B.dst = (int)(((B.rank + B.q) % B.size + B.size) % B.size);
    B.src = (int)(((B.rank - B.q) % B.size + B.size) % B.size);
    if (B.dimmode && dim_setup()) {
        rtopo_topo_free(B.t);
        rtopo_finalize(B.ctx);
        MPI_Finalize();
        return 2;
    }
    if (B.xop && xop_setup()) {
        rtopo_topo_free(B.t);
        rtopo_finalize(B.ctx);
        MPI_Finalize();
        return 2;
    }
    if (B.rows && !B.dimmode && !B.xop) {
        int dims[2] = { B.rows, B.cols_mesh }, periods[2] = { 1, 1 };
        mpi_check("MPI_Cart_create",
                  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &B.cart));
        mpi_check("MPI_Cart_shift", MPI_Cart_shift(B.cart, 1, (int)B.q, &B.cart_src,
                                                   &B.cart_dst));
    }
    /* the raw write needs a peer, and the completion queue to itself; of
     * the collectives only the broadcast is a data movement it can do */
    if ((B.coll ? B.coll != RTOPO__COLL_BCAST || B.size < 2 : B.xop ? !B.moving :
         B.dimmode ? !B.moving : B.dst == B.rank) || bench_state(B.ctx)->thread_on)
        B.raw = 0;
    alloc_bufs();
    if (!B.coll && !B.xop)
        fabric_open();
    setup_cols();
    if (B.coll)
        coll_bufs();
    if (B.xop)
        xop_bufs();
    if (B.raw && (st = bench_raw_open(&B.rawt, B.ctx, B.q, B.smem, B.rmem)))
        fail(B.rawt.what, st);
    if (B.raw && B.dimmode)
        bench_raw_peers(&B.rawt, B.dst, B.src);
    if (B.raw && B.xop)
        bench_raw_peers(&B.rawt, rtopo__tool_job_rank(B.t, B.bdst),
                        rtopo__tool_job_rank(B.t, B.bsrc));
    describe_mpi();

    measure();

    if (B.rank == 0) {
        print_header(stdout);
        if (bench_state(B.ctx)->thread_on)
            printf("# raw   = not measured with RTOPO_PROGRESS=thread\n");
        print_tables(stdout);
        fflush(stdout);
        if (B.json && write_json(B.json))
            rc = 1;
        /* a long title is cut: fine for a plot */
        if (B.coll == RTOPO__COLL_BCAST)
            snprintf(what, sizeof(what), "bcast, %s, root %d", bench_coll_dtype_name(B.dtype),
                     B.root);
        else if (B.coll)
            snprintf(what, sizeof(what), "%s, %s, %s", rtopo__coll_name(B.coll),
                     bench_coll_dtype_name(B.dtype), bench_coll_rop_name(B.rop));
        else if (B.xop == XOP_SORT)
            snprintf(what, sizeof(what), "sort, %zu-byte records, int64 keys", SORT_REC);
        else if (B.xop == XOP_BPC)
            snprintf(what, sizeof(what), "bpc %s", B.vector);
        else if (B.xop == XOP_A2A)
            snprintf(what, sizeof(what), "alltoall by q-shifts (%s)", B.algo);
        else
            snprintf(what, sizeof(what), "q %ld", B.q);
        if (snprintf(title, sizeof(title), "rtopo-bench-mpi: %d ranks, %s, %s; rtopo %s "
                     "(provider %s); %s%s%s", B.size, B.topo, what,
                     getenv("RTOPO_TRANSPORT") ? getenv("RTOPO_TRANSPORT") : "auto",
                     rtopo__tool_provider(B.ctx), mpi_lib, mpi_env[0] ? ", " : "", mpi_env) < 0)
            title[0] = 0;
        for (k = 0; title[k]; k++)   /* the title goes inside double quotes */
            if (title[k] == '"' || title[k] == '\\')
                title[k] = '\'';
        plot_ok = B.plot && have_gnuplot();
    }
    if (B.raw)
        bench_raw_close(&B.rawt);
    if (B.fabric)
        bench_fabric_close(&B.fab);
    rtopo_mem_deregister(B.smem);
    rtopo_mem_deregister(B.rmem);
    rtopo_topo_free(B.t);
    if ((st = rtopo_finalize(B.ctx)))
        fail("rtopo_finalize", st);
    if (B.cart != MPI_COMM_NULL)
        MPI_Comm_free(&B.cart);
    if (B.tcomm != MPI_COMM_NULL)
        MPI_Comm_free(&B.tcomm);
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
    free(B.exp);
    free(B.ranks);
    free(B.all);
    return rc;
}
