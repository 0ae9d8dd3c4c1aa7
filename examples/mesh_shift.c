/*
 * mesh_shift.c - Cannon's matrix multiply on a wraparound mesh of ranks,
 * with its row and column rotations written as rtopo circular shifts.
 *
 * Build against an installed rtopo and run on a square number of ranks:
 *
 *   cc -O2 mesh_shift.c $(pkg-config --cflags --libs rtopo) -o mesh_shift
 *   rtopo-run -n 4 ./mesh_shift             (2 x 2 mesh)
 *   rtopo-run -n 9 ./mesh_shift             (3 x 3 mesh)
 *
 * The job is an s x s mesh (p = s*s ranks, s taken from the job size).
 * Rank r sits at row i = r / s, column j = r % s (row-major, as in
 * rtopo_topo_mesh(3)).  C = A * B for n x n matrices, n = s * NB; rank
 * (i, j) owns the NB x NB blocks A(i,j), B(i,j) and computes C(i,j).
 *
 * Cannon's algorithm:
 *   skew:  row i of A rotates i blocks to the left,
 *          column j of B rotates j blocks up;
 *   then s times: C(i,j) += A(i,j) * B(i,j);
 *                 A rotates one block left along every row,
 *                 B rotates one block up along every column.
 *
 * What rtopo_shift offers, and how the rotations map onto it
 * -----------------------------------------------------------
 * rtopo_shift(mesh, send, recv, bytes, q) is a circular shift of the
 * *whole rank order*: rank r's bytes land on rank (r + q) mod p, for all
 * ranks at once, and every rank passes the same q.  On the mesh, that
 * order is row-major, so:
 *
 *   - A column rotation by k rows is exactly one shift, q = k * s:
 *     (i, j) -> (i + k mod s, j) is r -> r + k*s mod p.  Rotating B up by
 *     one is q = -s.  With the mesh algorithm (RTOPO_SHIFT_ALGO=mesh, or
 *     rtopo_topo_set_shift_algo) the data moves along column links only;
 *     the default, auto, may choose direct connections instead.
 *
 *   - A row rotation is not a shift of the rank order: moving every block
 *     one column left, (i, j) -> (i, j - 1), is r -> r - 1 except in
 *     column 0, whose block must go to column s-1 of the *same* row,
 *     r -> r + (s - 1).  A shift by q = -1 would instead deliver it to the
 *     end of the previous row.  So a row rotation takes two shifts,
 *     q = -1 and q = s - 1, and each rank keeps the one whose source is
 *     in its own row: column s-1 keeps the q = s-1 result, the others the
 *     q = -1 result.  It moves twice the data a true row rotation would;
 *     an API with per-row (sub-communicator) shifts would not.
 *
 *   - The skew rotates each row (column) by a different amount, which no
 *     single shift expresses.  Here it is s-1 rounds of the unit rotation
 *     in which only the rows (columns) that still have to move keep what
 *     arrives; every rank still takes part in every shift, because shifts
 *     are collective.
 *
 * The loop's three shifts use persistent requests (rtopo_shift_init):
 * the schedule, the peers' windows and the memory registration are set
 * up once and reused on every start, as in any iterative code.
 *
 * The result is checked against C computed directly from the formulas
 * that generate A and B (small integers, so every sum is exact).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rtopo.h>

#define NB 48   /* block edge: each block is NB x NB doubles (18 KiB) */

/* every rtopo call returns 0 or a negative RTOPO_ERR_* code */
#define CHECK(call)                                                           \
    do {                                                                      \
        int st_ = (call);                                                     \
        if (st_ != RTOPO_OK) {                                                \
            fprintf(stderr, "%s failed: %s (%s)\n", #call,                    \
                    rtopo_strerror(st_), rtopo_last_error());                 \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

/* the global matrices: small integers, exact in double arithmetic */
static double a_elem(int r, int c) { return (double)((r + 2 * c) % 7 - 3); }
static double b_elem(int r, int c) { return (double)((3 * r + c) % 5 - 2); }

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* blk := block of the right-hand neighbour in the same row (wraparound),
 * from the results of the two shifts q = -1 (in1) and q = s-1 (in2) */
static void keep_row_left(double *blk, const double *in1, const double *in2,
                          int col, int s)
{
    memcpy(blk, col == s - 1 ? in2 : in1, sizeof(double) * NB * NB);
}

/* c += a * b for NB x NB row-major blocks */
static void gemm_acc(double *c, const double *a, const double *b)
{
    int i, j, k;

    for (i = 0; i < NB; i++)
        for (k = 0; k < NB; k++) {
            double aik = a[i * NB + k];
            for (j = 0; j < NB; j++)
                c[i * NB + j] += aik * b[k * NB + j];
        }
}

int main(void)
{
    const size_t bytes = sizeof(double) * NB * NB;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *mesh;
    rtopo_mem_t *mem;
    rtopo_req_t *a1, *a2, *bup;
    int rank, size, s, row, col, i, j, k, t, bad = 0;
    double *arena, *A, *B, *C, *in1, *in2, *inb, t0, t_skew, t_loop;

    CHECK(rtopo_init(NULL, &ctx));
    rank = rtopo_rank(ctx);
    size = rtopo_size(ctx);
    for (s = 1; (s + 1) * (s + 1) <= size; s++)
        ;
    /* a mesh must cover every rank: on a non-square job this fails with
     * RTOPO_ERR_TOPO and a message naming the shapes that would fit */
    CHECK(rtopo_topo_mesh(ctx, s, s, &mesh));
    row = rank / s;
    col = rank % s;

    /* one registered arena for all blocks: every shift below then moves
     * straight from one rank's arena into another's (zero copy) */
    arena = malloc(6 * bytes);
    if (!arena)
        return 1;
    A = arena;
    B = A + NB * NB;
    C = B + NB * NB;
    in1 = C + NB * NB;   /* landing areas of the shifts */
    in2 = in1 + NB * NB;
    inb = in2 + NB * NB;
    CHECK(rtopo_mem_register(ctx, arena, 6 * bytes, &mem));
    for (i = 0; i < NB; i++)
        for (j = 0; j < NB; j++) {
            A[i * NB + j] = a_elem(row * NB + i, col * NB + j);
            B[i * NB + j] = b_elem(row * NB + i, col * NB + j);
            C[i * NB + j] = 0.0;
        }

    /* skew: after round t, rows i >= t of A have rotated t blocks left and
     * columns j >= t of B t blocks up; rows and columns with a smaller
     * index keep their blocks (they have rotated far enough).  The first
     * shifts also connect the peers their schedules need and build their
     * plans, so this time includes that one-off cost. */
    t0 = seconds();
    for (t = 1; t < s; t++) {
        CHECK(rtopo_shift(mesh, A, in1, bytes, -1));        /* r -> r - 1 */
        CHECK(rtopo_shift(mesh, A, in2, bytes, s - 1));     /* r -> r + s-1 */
        if (row >= t)
            keep_row_left(A, in1, in2, col, s);
        CHECK(rtopo_shift(mesh, B, inb, bytes, -s));        /* one row up */
        if (col >= t)
            memcpy(B, inb, bytes);
    }
    t_skew = seconds() - t0;

    /* the main loop: three persistent shifts, made once, started s-1
     * times (after the last multiply nothing needs to move) */
    CHECK(rtopo_shift_init(mesh, A, in1, bytes, -1, &a1));
    CHECK(rtopo_shift_init(mesh, A, in2, bytes, s - 1, &a2));
    CHECK(rtopo_shift_init(mesh, B, inb, bytes, -s, &bup));
    t0 = seconds();
    for (k = 0; k < s; k++) {
        gemm_acc(C, A, B);
        if (k == s - 1)
            break;
        /* rtopo_start returns at once; the three shifts progress together
         * and each rtopo_wait completes one of them.  Send and receive
         * buffers must stay untouched until the wait. */
        CHECK(rtopo_start(a1));
        CHECK(rtopo_start(a2));
        CHECK(rtopo_start(bup));
        CHECK(rtopo_wait(a1));
        CHECK(rtopo_wait(a2));
        CHECK(rtopo_wait(bup));
        keep_row_left(A, in1, in2, col, s);
        memcpy(B, inb, bytes);
    }
    t_loop = seconds() - t0;
    CHECK(rtopo_req_free(a1));
    CHECK(rtopo_req_free(a2));
    CHECK(rtopo_req_free(bup));

    /* check C(i,j) = sum over the full inner dimension, from the formulas */
    for (i = 0; i < NB && !bad; i++)
        for (j = 0; j < NB; j++) {
            int gr = row * NB + i, gc = col * NB + j;
            double want = 0.0;

            for (k = 0; k < s * NB; k++)
                want += a_elem(gr, k) * b_elem(k, gc);
            if (C[i * NB + j] != want) {
                fprintf(stderr, "rank %d: C[%d][%d] = %g, expected %g\n", rank,
                        gr, gc, C[i * NB + j], want);
                bad = 1;
                break;
            }
        }
    printf("rank %d (row %d, col %d): C block %s; skew %.0f us, %d steps %.0f us\n",
           rank, row, col, bad ? "WRONG" : "correct", t_skew * 1e6, s,
           t_loop * 1e6);
    fflush(stdout);
    if (rank == 0)
        printf("Cannon %dx%d on a %dx%d mesh: 3 shifts per step (2 for the row "
               "rotation of A, 1 for the column rotation of B)\n", s * NB,
               s * NB, s, s);

    CHECK(rtopo_mem_deregister(mem));
    CHECK(rtopo_topo_free(mesh));
    CHECK(rtopo_finalize(ctx));
    free(arena);
    return bad;
}
