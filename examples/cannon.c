/*
 * cannon.c - Cannon's matrix multiplication on an s x s wraparound mesh
 * of ranks, with rtopo's shifts along one dimension, in place.
 *
 * Build against an installed rtopo and run on a square number of ranks:
 *
 *   cc -O2 cannon.c $(pkg-config --cflags --libs rtopo) -o cannon
 *   rtopo-run -n 4 ./cannon        (2 x 2 mesh)
 *   rtopo-run -n 9 ./cannon        (3 x 3 mesh)
 *
 * C = A * B for n x n matrices, n = s * NB.  Rank (i, j) of the mesh owns
 * the NB x NB blocks A(i,j) and B(i,j) and computes C(i,j):
 *
 *   skew:   row i of A rotates i blocks to the left,
 *           column j of B rotates j blocks up;
 *   s times: C(i,j) += A(i,j) * B(i,j), then every row of A rotates one
 *           block left and every column of B one block up.
 *
 * A row is a line along dimension 1 (the column index varies along it), a
 * column a line along dimension 0.  rtopo_shift_dim(mesh, 1, ..., -1)
 * rotates every row one block left at once; the skew, where row i moves
 * by -i, is one call too: rtopo_shift_dim_rule(mesh, 1, ..., a, b) shifts
 * line L by a*L + b, and the line index of a row is its row number, so
 * a = -1, b = 0.  Passing the same buffer as send and receive buffer
 * shifts in place, like MPI_Sendrecv_replace: rtopo stages the block
 * through a small scratch area piece by piece rather than copying it
 * whole, and with the blocks in registered memory every piece is written
 * by RDMA straight into the neighbour's block.
 *
 * The same communication with MPI (13 statements; rtopo's below: 7):
 *
 *   int dims[2] = { s, s }, periods[2] = { 1, 1 }, c[2], src, dst;
 *   MPI_Comm mesh;
 *   MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &mesh);
 *   MPI_Cart_coords(mesh, rank, 2, c);
 *   MPI_Cart_shift(mesh, 1, -c[0], &src, &dst);
 *   MPI_Sendrecv_replace(A, NB * NB, MPI_DOUBLE, dst, 0, src, 0, mesh, MPI_STATUS_IGNORE);
 *   MPI_Cart_shift(mesh, 0, -c[1], &src, &dst);
 *   MPI_Sendrecv_replace(B, NB * NB, MPI_DOUBLE, dst, 0, src, 0, mesh, MPI_STATUS_IGNORE);
 *   for (k = 0; k < s; k++) {
 *       ... C += A * B ...
 *       MPI_Cart_shift(mesh, 1, -1, &src, &dst);
 *       MPI_Sendrecv_replace(A, NB * NB, MPI_DOUBLE, dst, 0, src, 0, mesh, MPI_STATUS_IGNORE);
 *       MPI_Cart_shift(mesh, 0, -1, &src, &dst);
 *       MPI_Sendrecv_replace(B, NB * NB, MPI_DOUBLE, dst, 0, src, 0, mesh, MPI_STATUS_IGNORE);
 *   }
 *   MPI_Comm_free(&mesh);
 *
 * The result is checked against C computed directly from the formulas
 * that generate A and B (small integers, so every sum is exact).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <rtopo.h>

#define NB 192   /* block edge: NB x NB doubles, 288 KiB per block */

#define CHECK(call)                                                           \
    do {                                                                      \
        int st_ = (call);                                                     \
        if (st_ != RTOPO_OK) {                                                \
            fprintf(stderr, "%s failed: %s (%s)\n", #call,                    \
                    rtopo_strerror(st_), rtopo_last_error());                 \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

static double a_elem(int r, int c) { return (double)((r + 2 * c) % 7 - 3); }
static double b_elem(int r, int c) { return (double)((3 * r + c) % 5 - 2); }

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
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
    int size, s, c[2], i, j, k, bad = 0;
    double *A, *B, *C, t0, t_skew, t_loop;

    CHECK(rtopo_init(NULL, &ctx));
    size = rtopo_size(ctx);
    for (s = 1; (s + 1) * (s + 1) <= size; s++)
        ;
    /* fails with RTOPO_ERR_TOPO, naming the shapes that fit, unless the
     * job has s*s ranks */
    CHECK(rtopo_topo_mesh(ctx, s, s, &mesh));
    CHECK(rtopo_topo_coords(mesh, rtopo_topo_rank(mesh), c));   /* (row, col) */

    A = malloc(3 * bytes);
    if (!A)
        return 1;
    B = A + NB * NB;
    C = B + NB * NB;
    CHECK(rtopo_mem_register(ctx, A, 3 * bytes, &mem));        /* zero copy */
    for (i = 0; i < NB; i++)
        for (j = 0; j < NB; j++) {
            A[i * NB + j] = a_elem(c[0] * NB + i, c[1] * NB + j);
            B[i * NB + j] = b_elem(c[0] * NB + i, c[1] * NB + j);
            C[i * NB + j] = 0.0;
        }

    /* skew: line L moves a*L + b = -L, i.e. row i by -i, column j by -j */
    t0 = seconds();
    CHECK(rtopo_shift_dim_rule(mesh, 1, A, A, bytes, -1, 0));
    CHECK(rtopo_shift_dim_rule(mesh, 0, B, B, bytes, -1, 0));
    t_skew = seconds() - t0;

    t0 = seconds();
    for (k = 0; k < s; k++) {
        gemm_acc(C, A, B);
        if (k == s - 1)
            break;   /* nothing needs to move after the last multiply */
        CHECK(rtopo_shift_dim(mesh, 1, A, A, bytes, -1));   /* rows: one left */
        CHECK(rtopo_shift_dim(mesh, 0, B, B, bytes, -1));   /* columns: one up */
    }
    t_loop = seconds() - t0;

    for (i = 0; i < NB && !bad; i++)
        for (j = 0; j < NB; j++) {
            int gr = c[0] * NB + i, gc = c[1] * NB + j;
            double want = 0.0;

            for (k = 0; k < s * NB; k++)
                want += a_elem(gr, k) * b_elem(k, gc);
            if (C[i * NB + j] != want) {
                fprintf(stderr, "(%d,%d): C[%d][%d] = %g, expected %g\n", c[0], c[1], gr,
                        gc, C[i * NB + j], want);
                bad = 1;
                break;
            }
        }
    printf("(%d,%d): C block %s; skew %.0f us, %d multiply-shift rounds %.0f us\n", c[0],
           c[1], bad ? "WRONG" : "correct", t_skew * 1e6, s, t_loop * 1e6);

    CHECK(rtopo_mem_deregister(mem));
    CHECK(rtopo_topo_free(mesh));
    CHECK(rtopo_finalize(ctx));
    free(A);
    return bad;
}
