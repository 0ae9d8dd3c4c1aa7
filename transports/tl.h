/*
 * tl.h - the transport ops table.
 *
 * Every backend (transports/ofi, transports/verbs) fills one const
 * struct rtopo__tl_ops, listed in transports/tl.c.  The engine
 * sees only this header: no libfabric or verbs type crosses it.
 *
 * Model: reliable, connected-per-edge, one-sided.  A rank opens the
 * transport, publishes an address blob through the bootstrap, and
 * connects to the peers its topology needs (lazily allowed).  Data moves
 * by RDMA write, optionally carrying a 32-bit immediate that raises a
 * TL_EV_IMM completion at the target.  Small control messages use send.
 * All completions, local and remote, come out of poll().
 *
 * Rules every backend keeps:
 *  - the target makes progress only inside poll()/wait(): the engine calls
 *    one of them whenever it waits;
 *  - writes with immediate on one peer connection raise TL_EV_IMM only
 *    after their data is visible in target memory;
 *  - TL_EV_IMM comes only from a completed remote write into a region
 *    registered here for remote write, never from a message that carries
 *    an immediate (or CQ data) of its own; where the backend can tell the
 *    writer, peer names it, and a write from a connection of no rank of
 *    the job raises TL_EV_DROPPED instead;
 *  - a failed connection or completion yields TL_EV_ERROR naming the peer,
 *    with the backend's own status text in `msg`.
 *
 * The struct only grows at the end; `size` tells which slots exist.
 */
#ifndef RTOPO_TL_H
#define RTOPO_TL_H

#include <stddef.h>
#include <stdint.h>

struct rtopo__tl;            /* backend instance, derived by each backend */
struct rtopo__tl_mr;         /* backend memory registration */

#define RTOPO__TL_ADDR_MAX 128
#define RTOPO__TL_ADDR_TEXT 64    /* an address in print (addr_check) */

enum {
    RTOPO__TL_ACCESS_LOCAL = 1,          /* source of writes/sends */
    RTOPO__TL_ACCESS_REMOTE_WRITE = 2,   /* target of peers' writes */
};

/* Remote key: what a peer needs to write into a registered region. */
typedef struct rtopo__rkey {
    uint64_t key;     /* provider key / verbs rkey */
    uint64_t addr;    /* remote address of the region's first byte */
    uint64_t key2;    /* the composite backend (transports/multi): the
                         network backend's key, `key` holding shm's; 0
                         and unread by the other backends */
} rtopo__rkey_t;

typedef struct rtopo__tl_params {
    const char *name;      /* e.g. "ofi:rxm", "ofi:shm", "verbs" */
    int rank;
    int nranks;
    int timeout_ms;
    size_t ctrl_size;      /* largest control message the engine sends */
    int poll_only;         /* waits poll and never sleep (RTOPO_WAIT=poll):
                              only the progress thread calls wait(), so a
                              kernel wait object may be left out */
    const unsigned char *local; /* per rank: 1 when it runs in this rank's
                              network stack (same kernel and network
                              namespace: loopback reaches it); NULL:
                              unknown.  Valid while the transport is open */
    const uint8_t *peer_local; /* per rank, 1: on this rank's host; given
                              to the composite backend by "auto", NULL
                              elsewhere (the other backends ignore it) */
    int poll_no_yield;     /* poll() never gives the processor away, even
                              on a crowded host: the caller (the composite
                              backend, which polls another backend in the
                              same call) leaves that to the engine */
    /* backend settings (RTOPO_SHM_RING_SIZE, RTOPO_VERBS_*), given to
     * every backend, each reads its own; 0: the built-in default */
    size_t shm_ring_size;  /* least bytes of the ring for each peer */
    int verbs_sq_depth;    /* send work requests per connection */
    size_t verbs_inject;   /* writes copied to bounce buffers up to this */
} rtopo__tl_params_t;

typedef struct rtopo__tl_attr {
    size_t max_write;      /* largest single write */
    size_t write_unit;     /* a large write goes faster as writes of this
                              size, posted together; 0: in one piece (up
                              to max_write) */
    size_t inject_max;     /* writes up to this size may use RTOPO__TL_INJECT */
    int blocking_wait;     /* wait() sleeps in the kernel (not a spin) */
    size_t send_nowait_max;/* control messages up to this size, once send()
                              with ctx NULL returned OK, reach the peer
                              without this process calling poll() again
                              (shared memory queues, the NIC); 0: none */
    char provider[64];     /* what actually runs, for logs and rtopo-info */
    int reg_per_op;        /* registering costs about a table update and
                              pins nothing: the engine registers a caller's
                              unregistered buffer for one operation instead
                              of staging its data; 0: registering pins
                              pages, and the engine measures from which
                              size it still beats a copy (RTOPO_REG_PER_OP) */
    int poll_yields;       /* an empty poll() gives the processor away by
                              itself when the host has more ranks than
                              processors; 0: the engine does it */
    int write_src_any;     /* write() reads its source from any memory of
                              the process: lmr may be NULL (nothing to
                              register for local access); 0: the source
                              lies in a region registered here */
} rtopo__tl_attr_t;

/* the size a large write is posted in: write_unit, within max_write */
static inline size_t rtopo__tl_write_unit(const rtopo__tl_attr_t *a)
{
    return a->write_unit && a->write_unit < a->max_write ? a->write_unit : a->max_write;
}

enum rtopo__tl_ev_type {
    RTOPO__TL_EV_WRITE_DONE = 1,   /* local completion of write(ctx) */
    RTOPO__TL_EV_SEND_DONE,        /* local completion of send(ctx) */
    RTOPO__TL_EV_RECV,             /* control message arrived: peer, data, len */
    RTOPO__TL_EV_IMM,              /* a write with immediate landed: peer, imm,
                                      len (0 when the provider does not say) */
    RTOPO__TL_EV_ERROR,            /* peer (or -1), status, ctx (or NULL), msg */
    RTOPO__TL_EV_DROPPED,          /* something that no rank of the job can
                                      have sent arrived and was dropped (an
                                      immediate on a message, a write from
                                      an unknown connection): msg says what */
};

typedef struct rtopo__tl_event {
    int type;
    int peer;           /* -1 when the backend cannot tell (libfabric does
                           not name the writer of TL_EV_IMM reliably); the
                           engine's own headers carry the sender's rank */
    void *ctx;
    uint32_t imm;
    const void *data;   /* TL_EV_RECV: valid until the next poll() */
    size_t len;
    int status;         /* RTOPO_ERR_* for TL_EV_ERROR */
    char msg[96];
} rtopo__tl_event_t;

/* write() flags */
#define RTOPO__TL_IMM     1u   /* carry imm, raise TL_EV_IMM at the target */
#define RTOPO__TL_INJECT  2u   /* buffer reusable on return; no WRITE_DONE */

struct rtopo__tl_ops {
    size_t size;
    const char *name;     /* "ofi", "verbs" */

    /* does this backend accept the transport string (e.g. "ofi:shm")? */
    int (*match)(const char *transport);
    /* is it usable on this machine right now (device present...)? 1/0 */
    int (*available)(const char *transport);

    /* lifecycle */
    int (*open)(const rtopo__tl_params_t *params, struct rtopo__tl **tl_p);
    void (*close)(struct rtopo__tl *tl);
    void (*query)(struct rtopo__tl *tl, rtopo__tl_attr_t *attr);

    /* addressing and connection */
    int (*addr_get)(struct rtopo__tl *tl, void *blob, size_t *len);
    int (*connect)(struct rtopo__tl *tl, int peer, const void *blob, size_t len);

    /* memory */
    int (*mem_reg)(struct rtopo__tl *tl, void *buf, size_t len, unsigned access,
                   struct rtopo__tl_mr **mr_p);
    int (*mem_dereg)(struct rtopo__tl_mr *mr);
    void (*mem_rkey)(struct rtopo__tl_mr *mr, rtopo__rkey_t *rkey);

    /* data movement; ctx comes back in the completion.  RTOPO_ERR_BUSY:
     * resources or the connection are not ready, retry after poll(). */
    int (*write)(struct rtopo__tl *tl, int peer, const void *buf, size_t len,
                 struct rtopo__tl_mr *lmr, const rtopo__rkey_t *rkey,
                 uint64_t roffset, uint32_t imm, unsigned flags, void *ctx);
    /* control message of at most params->ctrl_size bytes.  ctx NULL: the
     * buffer may be reused on return (the backend copies or injects) and
     * no SEND_DONE is raised.  ctx set: the caller keeps the buffer valid
     * until SEND_DONE (or an error) names ctx, so the backend may send it
     * in place.  RTOPO_ERR_BUSY: retry after poll(). */
    int (*send)(struct rtopo__tl *tl, int peer, const void *buf, size_t len,
                void *ctx);

    /* completions: fills up to max events, returns their number or < 0 */
    int (*poll)(struct rtopo__tl *tl, rtopo__tl_event_t *ev, int max);
    /* sleeps until poll() may have work or timeout_ms passes; 0 or < 0 */
    int (*wait)(struct rtopo__tl *tl, int timeout_ms);

    /* prints devices, providers and limits for rtopo-info */
    void (*info)(const char *transport, void (*out)(const char *line, void *arg),
                 void *arg);
    /* methods above are valid for version 0 */

    /* the secret key material of `peer` (its per-job token, as every rank
     * has it from the authenticated bootstrap), given for every rank,
     * this one included, before the first connect(); a backend whose
     * connections are set up outside the engine proves with it that both
     * ends belong to the job before it accepts anything over them.  NULL
     * (or absent, see size) where the engine's own checks are enough. */
    int (*set_auth)(struct rtopo__tl *tl, int peer, const void *key, size_t len);
    /* methods above are valid for version 1 */

    /* the number of ranks of the job, told to every backend (through
     * rtopo__tl_job_size) before the engine calls available() or open();
     * a backend whose library sizes what it sets up at its first use
     * passes it on.  NULL (or absent) where nothing depends on it. */
    void (*job_size)(int nranks);
    /* methods above are valid for version 2 */

    /* the eager limit (RTOPO_EAGER_LIMIT) this backend runs best with
     * for `transport` (a name its match() takes), 0 for the engine's
     * default; the engine's eager messages carry hdr bytes of header
     * before the payload.  Asked before open() when the user set no
     * limit, and the control messages of open()'s params are sized from
     * the answer.  NULL (or absent): the engine's default. */
    size_t (*eager_default)(const char *transport, size_t hdr);
    /* methods above are valid for version 3 */

    /* send() of one control message given in two pieces, hdr (hlen
     * bytes) then payload (plen bytes, 0 for none), with the rules of
     * send(): ctx NULL, both may be reused on return; ctx set, both stay
     * valid until SEND_DONE (or an error) names ctx, and the backend may
     * send them from where they lie, the payload from any memory of the
     * process (no registration).  Spares the engine joining the pieces
     * in a buffer of its own first.  NULL (or absent): the engine joins
     * them and calls send(). */
    int (*sendv)(struct rtopo__tl *tl, int peer, const void *hdr, size_t hlen,
                 const void *payload, size_t plen, void *ctx);
    /* methods above are valid for version 4 */

    /* A file descriptor that turns readable when poll() may have work,
     * for a caller that sleeps on it with epoll, edge triggered, beside
     * other backends' (the composite backend).  Asked right before each
     * such sleep: RTOPO_ERR_BUSY when poll() has work already (do not
     * sleep), another error when there is no such descriptor (sleep in
     * wait() instead).  The next poll() ends the sleep.  NULL (or
     * absent): none. */
    int (*wait_fd)(struct rtopo__tl *tl, int *fd);
    /* methods above are valid for version 5 */

    /* Can this rank reach the addresses that ranks outside its network
     * stack published?  All at once, for i < n: rank peer[i]'s address
     * blob[i] (len[i] bytes, as connect() takes it).  Fills text + i *
     * RTOPO__TL_ADDR_TEXT with the address in print ("" where the backend
     * cannot print it) and bad[i]: 0 when this rank reaches it or the
     * backend cannot tell, 1 when it knows that no connection from here
     * reaches it (no route, no answer within a short bound, a loopback
     * address of another stack); connect() to such a peer then fails at
     * once with the reason, which rtopo_last_error() also gives for the
     * first one.  May take up to a few seconds (the bound), and sends no
     * more than one connection attempt per address, closed at once.
     * Asked by the engine at start-up, before any connect(); with this
     * rank itself as the only peer it prints its own address.  NULL (or
     * absent): no such check. */
    int (*addr_check)(struct rtopo__tl *tl, int n, const int *peer,
                      const void *const *blob, const size_t *len, char *text,
                      uint8_t *bad);
    /* methods above are valid for version 6 */

    /* Closes mr to peers' writes from now on, ahead of mem_dereg(),
     * which still frees it later, on the engine's thread.  A write into
     * the region that the backend takes in after this call lands
     * nowhere and raises no TL_EV_IMM: the owner's memory stays as it
     * is.  Its writer gets an error (TL_EV_ERROR, or write() fails)
     * where its completion waits for the target (shm; not libfabric's
     * socket providers, which complete a write once sent).  Local use
     * of mr as a source may fail from then on too.  Callable from any
     * thread, while other ops run on the engine's (the memory monitor's
     * thread calls it when the pages behind mr leave the process), and
     * more than once; never concurrently with mem_dereg() of the same
     * mr.  It must not unmap memory (memmon.h).  A no-op for a region
     * registered without RTOPO__TL_ACCESS_REMOTE_WRITE.  NULL (or
     * absent): the region takes writes until mem_dereg(). */
    void (*mem_close)(struct rtopo__tl_mr *mr);
    /* methods above are valid for version 7 */
};

/* does this table have slot `op` (tables of an older version end before)? */
#define RTOPO__TL_HAS(ops, op)                                                \
    ((ops)->size >= offsetof(struct rtopo__tl_ops, op) + sizeof((ops)->op) && \
     (ops)->op != NULL)

/* Each backend defines one const table, rtopo__tl_<name>, and
 * transports/tl.c lists the built ones. */
extern const struct rtopo__tl_ops rtopo__tl_ofi;
extern const struct rtopo__tl_ops rtopo__tl_verbs;
extern const struct rtopo__tl_ops rtopo__tl_shm;
extern const struct rtopo__tl_ops rtopo__tl_multi;  /* shm + a network backend */

/* Lookup by transport string; NULL if no backend matches. */
const struct rtopo__tl_ops *rtopo__tl_find(const char *transport);
/* Iterate registered backends (i from 0); NULL past the end. */
const struct rtopo__tl_ops *rtopo__tl_get(int i);
/* Tell every built backend that has job_size the size of the job. */
void rtopo__tl_job_size(int nranks);

#endif
