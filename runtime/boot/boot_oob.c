/*
 * boot_oob.c - the oob bootstrap method: the caller's allgather callback
 * (rtopo_config_t.allgather), typically over an MPI communicator.
 *
 * The callback may block as long as it likes: timeout_ms cannot bound
 * it.  There are no failure notices; a failed peer shows up in the
 * transport instead.
 */
#include "config.h"
#include <stdlib.h>
#include "rtopo.h"
#include "log.h"
#include "boot.h"
#include "boot_wire.h"

struct rtopo__boot_oob {
    struct rtopo__boot base;
    rtopo_allgather_func_t fn;
    void *arg;
    unsigned char *scratch;    /* size bytes for the barrier */
};

static int rtopo__oob_allgather(struct rtopo__boot *b, const void *in,
                                void *out, size_t len)
{
    struct rtopo__boot_oob *o = (struct rtopo__boot_oob *)b;
    int rc;

    rc = o->fn(in, out, len, o->arg);
    if (rc != 0)
        return rtopo__error(RTOPO_ERR_BOOTSTRAP,
                            "the allgather callback returned %d", rc);
    return RTOPO_OK;
}

/* one byte rather than none: some callbacks (MPI_Allgather with a zero
 * count) would not synchronise on an empty message */
static int rtopo__oob_barrier(struct rtopo__boot *b)
{
    struct rtopo__boot_oob *o = (struct rtopo__boot_oob *)b;
    unsigned char one = 1;

    return rtopo__oob_allgather(b, &one, o->scratch, 1);
}

static int rtopo__oob_poll_failure(struct rtopo__boot *b, int *rank)
{
    return 0;
}

static void rtopo__oob_close(struct rtopo__boot *b)
{
    struct rtopo__boot_oob *o = (struct rtopo__boot_oob *)b;

    free(o->scratch);
    free(o);
}

static const struct rtopo__boot_ops rtopo__boot_oob_ops = {
    .name = "oob",
    .allgather = rtopo__oob_allgather,
    .barrier = rtopo__oob_barrier,
    .poll_failure = rtopo__oob_poll_failure,
    .close = rtopo__oob_close,
};

int rtopo__boot_oob_open(int rank, int size, rtopo_allgather_func_t fn,
                         void *arg, struct rtopo__boot **boot_p)
{
    struct rtopo__boot_oob *o;

    if (size < 1)
        return rtopo__error(RTOPO_ERR_INVAL, "nranks must be at least 1 (got "
                            "%d) with an allgather callback", size);
    if (rank < 0 || rank >= size)
        return rtopo__error(RTOPO_ERR_INVAL,
                            "rank %d outside [0, %d) with an allgather "
                            "callback", rank, size);
    o = calloc(1, sizeof(*o));
    if (!o)
        goto err;
    o->scratch = malloc((size_t)size);
    if (!o->scratch)
        goto err_free;
    o->base.ops = &rtopo__boot_oob_ops;
    o->base.rank = rank;
    o->base.size = size;
    o->fn = fn;
    o->arg = arg;
    *boot_p = &o->base;
    return RTOPO_OK;

err_free:
    free(o);
err:
    return rtopo__error(RTOPO_ERR_NOMEM, "oob bootstrap");
}
