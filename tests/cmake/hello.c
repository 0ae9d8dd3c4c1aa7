/* hello.c - built by CMake against an installed rtopo: one allreduce on
 * a ring, checked, one line printed by rank 0. */
#include <stdio.h>
#include <rtopo.h>

int main(void)
{
    rtopo_ctx_t *ctx;
    rtopo_topo_t *ring;
    int st, rank, size;
    double one = 1.0, sum = 0.0;

    if ((st = rtopo_init(NULL, &ctx)) != RTOPO_OK) {
        fprintf(stderr, "rtopo_init: %s\n", rtopo_strerror(st));
        return 1;
    }
    rank = rtopo_rank(ctx);
    size = rtopo_size(ctx);
    st = rtopo_topo_ring(ctx, &ring);
    if (st == RTOPO_OK)
        st = rtopo_allreduce(ring, &one, &sum, 1, RTOPO_DOUBLE, RTOPO_SUM);
    if (st != RTOPO_OK || sum != (double)size) {
        fprintf(stderr, "hello_c: %s, sum %g of %d ranks\n", rtopo_strerror(st), sum, size);
        return 1;
    }
    if (rank == 0)
        printf("hello_c: OK, %d ranks, rtopo %s\n", size, rtopo_version());
    rtopo_topo_free(ring);
    return rtopo_finalize(ctx) != RTOPO_OK;
}
