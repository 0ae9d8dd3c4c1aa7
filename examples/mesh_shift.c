/*
 * mesh_shift.c - the shifts of a wraparound mesh of ranks: the whole mesh
 * in rank order, every row or every column at once, a different amount
 * per row, and a row taken as a ring topology of its own.
 *
 * Build against an installed rtopo and run on a square number of ranks:
 *
 *   cc -O2 mesh_shift.c $(pkg-config --cflags --libs rtopo) -o mesh_shift
 *   rtopo-run -n 4 ./mesh_shift             (2 x 2 mesh)
 *   rtopo-run -n 9 ./mesh_shift             (3 x 3 mesh)
 *
 * Rank r sits at row i = r / s, column j = r % s (rtopo_topo_coords(3)).
 * Every rank sends a buffer holding its own (row, col) and checks where
 * what it received came from:
 *
 *   rtopo_shift(mesh, ..., q)            rank r's data reaches rank r + q
 *                                         in row-major order (the whole
 *                                         mesh is one ring of s*s ranks);
 *   rtopo_shift_dim(mesh, 1, ..., 1)     every row rotates one column to
 *                                         the right, (i, j) -> (i, j+1);
 *   rtopo_shift_dim(mesh, 0, ..., -1)    every column rotates one row up;
 *   rtopo_shift_dim_rule(mesh, 1, ..., -1, 0)
 *                                         row i rotates i to the left
 *                                         (line L moves a*L + b);
 *   rtopo_topo_sub(mesh, 1 << 1, &row)   this rank's row as a ring of s
 *                                         ranks: rtopo_shift(row, ..., 1)
 *                                         is the row rotation again.
 *
 * Dimension shifts move data over row (column) links only, each row in
 * the shorter direction, and in place when the two buffers are the same
 * (the last call below).
 */
#include <stdio.h>
#include <stdlib.h>
#include <rtopo.h>

#define CHECK(call)                                                           \
    do {                                                                      \
        int st_ = (call);                                                     \
        if (st_ != RTOPO_OK) {                                                \
            fprintf(stderr, "%s failed: %s (%s)\n", #call,                    \
                    rtopo_strerror(st_), rtopo_last_error());                 \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

#define N 4096   /* ints per message: 16 KiB, above the eager limit */

static int s, row, col, bad;

static void fill(int *buf, int r, int c)
{
    int k;

    for (k = 0; k < N; k++)
        buf[k] = (r * 1000 + c) * N + k;
}

/* did buf come from (r, c), wrapped into the mesh? */
static void expect(const char *what, const int *buf, int r, int c)
{
    int k;

    r = ((r % s) + s) % s;
    c = ((c % s) + s) % s;
    for (k = 0; k < N; k++)
        if (buf[k] != (r * 1000 + c) * N + k) {
            printf("(%d,%d) %s: WRONG, expected the data of (%d,%d)\n", row, col, what, r, c);
            bad = 1;
            return;
        }
}

int main(void)
{
    rtopo_ctx_t *ctx;
    rtopo_topo_t *mesh, *myrow;
    int size, q, coords[2], *send, *recv;

    CHECK(rtopo_init(NULL, &ctx));
    size = rtopo_size(ctx);
    for (s = 1; (s + 1) * (s + 1) <= size; s++)
        ;
    CHECK(rtopo_topo_mesh(ctx, s, s, &mesh));
    CHECK(rtopo_topo_coords(mesh, rtopo_topo_rank(mesh), coords));
    row = coords[0];
    col = coords[1];
    send = malloc(N * sizeof(int));
    recv = malloc(N * sizeof(int));
    if (!send || !recv)
        return 1;
    fill(send, row, col);

    /* the whole mesh, row-major: r - q sent to us */
    q = s + 1;
    CHECK(rtopo_shift(mesh, send, recv, N * sizeof(int), q));
    expect("mesh shift", recv, (row * s + col - q + size) % size / s,
           (row * s + col - q + size) % size % s);

    /* every row one to the right: the left neighbour sent to us */
    CHECK(rtopo_shift_dim(mesh, 1, send, recv, N * sizeof(int), 1));
    expect("row rotation", recv, row, col - 1);

    /* every column one up: the rank below sent to us */
    CHECK(rtopo_shift_dim(mesh, 0, send, recv, N * sizeof(int), -1));
    expect("column rotation", recv, row + 1, col);

    /* row i rotates i to the left (Cannon's skew) */
    CHECK(rtopo_shift_dim_rule(mesh, 1, send, recv, N * sizeof(int), -1, 0));
    expect("skew", recv, row, col + row);

    /* this rank's row as a ring topology: rank j of the ring is column j */
    CHECK(rtopo_topo_sub(mesh, 1u << 1, &myrow));
    CHECK(rtopo_shift(myrow, send, recv, N * sizeof(int), 1));
    expect("shift on the row's own ring", recv, row, col - 1);
    CHECK(rtopo_topo_free(myrow));

    /* in place: the buffer ends up holding the right neighbour's data */
    CHECK(rtopo_shift_dim(mesh, 1, send, send, N * sizeof(int), -1));
    expect("row rotation in place", send, row, col + 1);

    printf("(%d,%d) of a %dx%d mesh: %s\n", row, col, s, s, bad ? "WRONG" : "all shifts ok");
    CHECK(rtopo_topo_free(mesh));
    CHECK(rtopo_finalize(ctx));
    free(send);
    free(recv);
    return bad;
}
