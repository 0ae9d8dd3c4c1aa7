/*
 * boot.h - bootstrap: how a process learns its rank, the job size and its
 * peers' transport addresses.
 *
 * Methods (runtime/boot/boot_*.c), tried in this order by rtopo__boot_open():
 *   oob    the caller's allgather callback in rtopo_config_t (MPI interop)
 *   env    rtopo-run: RTOPO_RANK/RTOPO_SIZE/RTOPO_BOOT_ADDR/RTOPO_JOB_SECRET;
 *          a TCP rendezvous with the launcher, every connection
 *          authenticated by an HMAC challenge over the per-job secret
 *   pmix   PMIx_Init/Put/Fence/Get when a PMIx server is present (mpirun)
 *   single size 1, no launcher
 * RTOPO_BOOT forces one of them.
 */
#ifndef RTOPO_BOOT_H
#define RTOPO_BOOT_H

#include <stddef.h>
#include <stdlib.h>
#include "rtopo.h"

struct rtopo__boot;

struct rtopo__boot_ops {
    const char *name;
    /* every rank contributes len bytes; out gets size*len bytes by rank */
    int (*allgather)(struct rtopo__boot *b, const void *in, void *out, size_t len);
    int (*barrier)(struct rtopo__boot *b);
    /* non-blocking: returns 1 and sets *rank when the launcher reported a
     * failed rank since the last call, 0 if none, < 0 on error.  Methods
     * without failure notices return 0. */
    int (*poll_failure)(struct rtopo__boot *b, int *rank);
    void (*close)(struct rtopo__boot *b);
};

struct rtopo__boot {
    const struct rtopo__boot_ops *ops;
    int rank;
    int size;
    char host_id[64];   /* identity of the host this rank runs on */
    /* set by rtopo__boot_locate: per rank, 1 when it runs in this rank's
     * network stack (the same running kernel and network namespace, so
     * that loopback reaches it); one_stack: every rank of the job does;
     * same_host: per rank, 1 when it runs on this rank's host (the same
     * host name or RTOPO_HOST_ID, kernel and pid namespace, so that shared
     * memory reaches it); one_host: every rank of the job does;
     * same_kernel: per rank, 1 when it runs under this rank's kernel (the
     * same machine's processors, emulated hosts included) */
    unsigned char *local;
    int one_stack;
    unsigned char *same_host;
    int one_host;
    unsigned char *same_kernel;
};

/* Picks the method (see above); timeout_ms bounds every blocking step. */
int rtopo__boot_open(const rtopo_config_t *cfg, const char *method,
                     int timeout_ms, struct rtopo__boot **boot_p);

static inline int rtopo__boot_allgather(struct rtopo__boot *b, const void *in,
                                        void *out, size_t len)
{
    return b->ops->allgather(b, in, out, len);
}
static inline int rtopo__boot_barrier(struct rtopo__boot *b)
{
    return b->ops->barrier(b);
}
static inline int rtopo__boot_poll_failure(struct rtopo__boot *b, int *rank)
{
    return b->ops->poll_failure(b, rank);
}
static inline void rtopo__boot_close(struct rtopo__boot *b)
{
    free(b->local);
    free(b->same_host);
    free(b->same_kernel);
    b->local = b->same_host = b->same_kernel = NULL;
    b->ops->close(b);
}

/* One allgather, on every rank alike: which ranks share this rank's
 * network stack, which its host and which its kernel (fills local,
 * one_stack, same_host, one_host and same_kernel). */
int rtopo__boot_locate(struct rtopo__boot *b);

#endif
