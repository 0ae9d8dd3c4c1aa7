/*
 * bench_fabric.h - the provider baseline of rtopo-bench-mpi: the shift's
 * data movement made directly on libfabric or on libibverbs, with no part
 * of rtopo in its path (a fabric, domain and endpoint, or a protection
 * domain and QPs, of its own, with its own completion queue and memory
 * registrations).
 *
 * One round: this rank writes `bytes` from its source buffer into the
 * destination buffer of rank dst, with 4 bytes of immediate data
 * (libfabric: fi_writedata or fi_inject_writedata with remote CQ data;
 * verbs: IBV_WR_RDMA_WRITE_WITH_IMM on an RC QP), and waits until its own
 * write has completed locally and the write from rank src has landed (its
 * remote completion).  Completions are taken by busy-polling the
 * completion queue; after 256 empty polls in a row (16 when the host has
 * more ranks than cores) each further poll calls sched_yield(), so that
 * more ranks than cores still make progress.
 *
 * Addresses, keys, QP numbers and GIDs are exchanged with MPI_Allgather
 * over the communicator given to bench_fabric_open, at set-up only.  This
 * file uses no part of rtopo.
 */
#ifndef RTOPO_BENCH_FABRIC_H
#define RTOPO_BENCH_FABRIC_H

#include <stddef.h>
#include <mpi.h>

struct bench_fabric_impl;

typedef struct bench_fabric {
    int verbs;                  /* 0: libfabric, 1: libibverbs */
    int dst, src;               /* the rank written to, the rank written from */
    char provider[64];          /* as opened: "shm", "net", "rxe0 port 1" */
    char label[96];             /* what the column is, for the tables and the plot */
    size_t inject;              /* writes up to this many bytes go inline
                                 * (fi_inject_writedata, IBV_SEND_INLINE) */
    char err[256];              /* on failure: what failed */
    struct bench_fabric_impl *impl;
} bench_fabric_t;

/*
 * Collective over comm.  kind names the provider: a libfabric provider
 * ("shm", "tcp;ofi_rxm", ...; "tcp" is the native tcp provider with RDM
 * endpoints, named "net" before libfabric 1.18, else tcp;ofi_rxm), or
 * "verbs" / "verbs:DEVICE" (libibverbs; without a device the first with
 * an active port; on RoCE the GID of RXE_GID_IDX when set, else the first
 * RoCE v2 GID of an IPv4 address).  sbuf and rbuf (maxbytes each) are
 * registered for the rounds; dst == src == this rank makes a round a local
 * copy.  Returns 0, or -1 on every rank, with err saying which rank failed
 * and how, when any rank fails (nothing is left open then).  provider,
 * label and inject are those of the lowest rank that writes, on every rank.
 */
int bench_fabric_open(bench_fabric_t *f, const char *kind, MPI_Comm comm, void *sbuf,
                      void *rbuf, size_t maxbytes, int dst, int src, char *err, size_t errlen);
/* one round of `bytes` (at most maxbytes); 0, or -1 with f->err set */
int bench_fabric_shift(bench_fabric_t *f, size_t bytes);
void bench_fabric_close(bench_fabric_t *f);

#endif
