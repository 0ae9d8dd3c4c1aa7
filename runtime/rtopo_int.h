/*
 * rtopo_int.h - engine internals shared by runtime (all .c files there).
 *
 * Layers inside runtime/, bottom up:
 *  - engine.c: drives the transport.  Incoming control messages go to the
 *    handler registered for their type, completions to the callback of
 *    the context they were posted with, writes with immediate to the owner
 *    of their window slot.  Control sends are tracked until the transport
 *    completes them; each peer has its own queue for messages the
 *    transport cannot take yet.  Waiting spins, then blocks.
 *  - job.c: job-wide control: connection wire-up along overlay links,
 *    job-wide abort with the arguments that differ, the barrier.
 *  - exec.c: the schedule executor (plans, operations, the protocol of
 *    one hop); shift.c and later collectives build schedules for it.
 *
 * Objects: the context (bootstrap + one transport), registered memory
 * regions, topologies, plans (one rank's share of a schedule, cached) and
 * operations (one execution of a plan).  The engine never sees libfabric
 * or verbs types: only transports/tl.h.
 *
 * Protocol of one hop (sender S -> receiver R) of a transfer of L bytes:
 *  - L <= RTOPO_EAGER_LIMIT: S sends one EAGER control message holding the
 *    payload; R copies it out (or forwards it) when its operation runs.
 *    Where the transport delivers messages of up to some size by itself
 *    (attr.send_nowait_max: shm's inject) and L does not fit, S sends the
 *    payload as fragments of about equal size that do, each with its
 *    offset: R copies (or forwards) each as it comes, the hop is done when
 *    all L bytes have come.
 *  - otherwise R exposes a window and tells S with RTR: either the final
 *    receive buffer itself (DIRECT, when it lies in a registered region:
 *    zero copy) or K registered staging slots of U bytes (STAGED, for
 *    unregistered buffers and for forwarding ranks).  S writes pieces with
 *    a 32-bit immediate: slot(15) | last(1) | piece(16).  For STAGED
 *    windows piece n goes to slot n % K and S may run at most K pieces
 *    ahead of the prefix R has released (CREDIT messages carry it).
 *  - a forwarding rank sends piece n on as soon as it has landed
 *    (cut-through) and releases the slot when that write completes.
 * An operation completes on a rank when everything it receives has
 * landed and every write and control message it sent has completed at
 * the transport: nothing it owes a peer is left inside this process.
 */
#ifndef RTOPO_INT_H
#define RTOPO_INT_H

#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include "rtopo.h"
#include "log.h"
#include "clock.h"
#include "params.h"
#include "boot.h"
#include "tl.h"
#include "rtopo_sched.h"

#define RTOPO__SLOT_BITS   15
#define RTOPO__MAX_SLOTS   (1u << RTOPO__SLOT_BITS)
#define RTOPO__MAX_PIECES  65536u
#define RTOPO__IMM(slot, last, piece) \
    (((uint32_t)(slot) << 17) | ((uint32_t)(last) << 16) | (uint32_t)(piece))
#define RTOPO__IMM_SLOT(imm)  ((imm) >> 17)
#define RTOPO__IMM_LAST(imm)  (((imm) >> 16) & 1u)
#define RTOPO__IMM_PIECE(imm) ((imm) & 0xffffu)

#define rtopo__container_of(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

enum rtopo__msg_type {
    RTOPO__MSG_EAGER = 1,
    RTOPO__MSG_RTR,
    RTOPO__MSG_CREDIT,
    RTOPO__MSG_ABORT,       /* the job is failed: every rank stops */
    RTOPO__MSG_HELLO,       /* connection wire-up at topology creation */
    RTOPO__MSG_BARRIER,
    RTOPO__MSG_COUNT
};


enum { RTOPO__WIN_DIRECT = 1, RTOPO__WIN_STAGED = 2 };

/* What ranks must agree on for one collective call: the plan cache key,
 * the signature every message carries, and what an ABORT names when they
 * do not. */
enum { RTOPO__OP_SHIFT = 1, RTOPO__OP_SCHED = 2, RTOPO__OP_SCATTER = 3,
       RTOPO__OP_SHIFT_DIM = 4, RTOPO__OP_COLL = 5 };
/* RTOPO__OP_COLL (coll.c): q = the collective (enum rtopo__coll_op),
 * bytes = count * element size, root, dtype, op as called, param[0] =
 * dim | w << 8 | mm << 32, param[1] = disp */
/* RTOPO__OP_SHIFT_DIM (cart.c): q = b, param[0] = a (both mod the
 * extent), param[1] = dim | RTOPO__SHIFT_DIM_INPLACE */
#define RTOPO__SHIFT_DIM_INPLACE 0x100

typedef struct rtopo__opdesc {
    uint8_t kind;        /* RTOPO__OP_* */
    uint8_t algo;        /* algorithm (cache key: as asked; plans and
                            messages: as used) */
    uint8_t topo_kind;
    uint8_t host;        /* 1: a host outside the cube, 2: a host on a
                            node (root: the host's job rank) */
    int32_t p;
    int32_t topo_a, topo_b;   /* rows/cols, dimension, n */
    int32_t root;        /* root rank, or 0 */
    uint8_t dtype;       /* rtopo_datatype_t, or 0 */
    uint8_t op;          /* rtopo_op_t, or 0 */
    uint16_t pad;
    int64_t q;           /* shift distance mod p; user tag for SCHED */
    uint64_t bytes;
    int64_t param[2];    /* strategy parameters of the collective */
} rtopo__opdesc_t;

/* A control message.  EAGER messages carry only the first
 * RTOPO__MSG_HDR bytes, then the payload, so that small ones fit the
 * providers' inject size; the others carry the whole struct. */
typedef struct rtopo__msg {
    uint8_t type;
    uint8_t mode;        /* RTR: window kind */
    uint16_t flags;
    int32_t src;         /* sending rank */
    uint64_t auth;       /* the sender's token (see rtopo__peer_info_t) */
    uint32_t topo_id;
    uint32_t seq;        /* operation; BARRIER: epoch */
    uint32_t xfer;       /* BARRIER: round */
    uint32_t hop;        /* 1-based hop index within the transfer */
    uint32_t sig;        /* signature of the operation's arguments */
    union {
        uint32_t nslots; /* RTR staged: K; CREDIT: released prefix */
        uint32_t off;    /* EAGER: offset of the payload within the hop */
    };
    uint64_t len;        /* hop length (EAGER too; its payload may be a
                            fragment: the message's length tells) */
    /* all but EAGER */
    uint32_t slot;       /* RTR: receiver's slot id */
    int32_t status;      /* ABORT */
    uint64_t unit;       /* RTR staged: bytes per slot; BARRIER: ops started */
    rtopo__rkey_t rkey;  /* RTR */
    uint64_t roff;       /* RTR: offset of the window in rkey's region */
    int32_t culprit;     /* ABORT: rank whose messages disagreed, or -1 */
    uint32_t ntopos;     /* ABORT, BARRIER, HELLO: topologies created */
    rtopo__opdesc_t desc;/* ABORT: sender's arguments; HELLO: topology */
} rtopo__msg_t;

#define RTOPO__MSG_HDR offsetof(rtopo__msg_t, slot)
#define RTOPO__MSG_LEN(m) ((m)->type == RTOPO__MSG_EAGER ? RTOPO__MSG_HDR : sizeof(rtopo__msg_t))

/* ---- engine: completions, handlers, tracked control sends ------------- */

typedef struct rtopo__comp {     /* context of anything posted to the tl */
    void (*cb)(struct rtopo__comp *c, int status, int peer, const char *msg);
} rtopo__comp_t;

/* Counts the control messages an owner (an operation, or the context for
 * job-level ones) has handed over and the transport has not completed. */
typedef struct rtopo__track {
    int out;
    int status;          /* first failure among them */
    void (*done)(struct rtopo__track *t);   /* after each completion, or NULL */
} rtopo__track_t;

typedef struct rtopo__cmsg {
    rtopo__comp_t comp;
    struct rtopo__cmsg *next;
    struct rtopo__cmsg *all;    /* ctx->cmsg_all */
    rtopo_ctx_t *ctx;
    rtopo__track_t *track;
    rtopo__track_t *kept;       /* counts it too while payload is in use */
    const void *payload;        /* sent from there (kept), or NULL: in buf */
    size_t plen;
    int peer;
    size_t len;          /* header and payload */
    uint8_t buf[];       /* ctx->ctrl_size */
} rtopo__cmsg_t;

typedef void (*rtopo__am_fn)(rtopo_ctx_t *ctx, const rtopo__msg_t *m, size_t len);
typedef void (*rtopo__imm_fn)(void *owner, int idx, uint32_t imm);
typedef void (*rtopo__hook_fn)(rtopo_ctx_t *ctx);
/* the engine lost a peer (job.c decides what that means for the job) */
typedef void (*rtopo__peer_lost_fn)(rtopo_ctx_t *ctx, int peer, int status, const char *why);
/* the job failed (exec.c fails the operations in flight) */
typedef void (*rtopo__job_failed_fn)(rtopo_ctx_t *ctx, int status);

/* ring of K slots released in piece order (see protocol above) */
typedef struct rtopo__ring {
    uint32_t k;
    uint32_t head;       /* next piece to acquire */
    uint32_t tail;       /* first piece not yet released */
    uint8_t *released;   /* per slot */
} rtopo__ring_t;

struct rtopo_mem {
    rtopo_ctx_t *ctx;
    uint8_t *buf;
    size_t len;
    struct rtopo__tl_mr *mr;
    rtopo__rkey_t rkey;
    int internal;          /* staging block owned by the engine (2: the
                              caller's buffer for one operation) */
    int in_use;            /* staging block handed out (2: quarantined) */
    int scratch;           /* staging block lent to a request as its TMP:
                              found by rtopo__mem_find like the user's */
    uint64_t quiet_ns;     /* a failed operation's window: peers' writes may
                              land until then */
    struct rtopo_mem *next;
    /* kept in the registration cache (rcache, mem.c) */
    unsigned access;       /* RTOPO__TL_ACCESS_* it was registered with */
    int refs;              /* operations using it */
    int cached;            /* 1: in the cache; 2: dropped from it (its pages
                              left the process, or an operation on it
                              failed): deregistered once refs reach 0 */
    struct rtopo_mem *cprev, *cnext;
};

/* Registrations of the caller's unregistered buffers kept after their
 * operation, for the next one on the same buffer (mem.c).  Entries whose
 * pages leave the process are dropped, as the memory monitor reports. */
typedef struct rtopo__rcache {
    struct rtopo__memmon *mon;  /* NULL: no cache */
    pthread_mutex_t lock;       /* the lists, against the monitor's thread */
    struct rtopo_mem *lru;      /* live entries, most recently used first */
    struct rtopo_mem *dropped;  /* dropped, still in use or not yet deregistered */
    size_t bytes, max_bytes;    /* registered by live entries, limit */
    int count, max_count;
    uint64_t hits, misses, gone;  /* gone: dropped as the monitor reported */
} rtopo__rcache_t;

/* one rank's share of a schedule */
typedef struct rtopo__send_ent {
    uint32_t xfer, hop;     /* hop index 1..nhops */
    int32_t peer;           /* receiver of the hop */
    int32_t upstream;       /* index in recv[] feeding it, or -1 (origin) */
    int32_t part;           /* origin: its SEND part; forwarding: -1 */
} rtopo__send_ent_t;

typedef struct rtopo__recv_ent {
    uint32_t xfer, hop;
    int32_t peer;           /* sender of the hop */
    int32_t fwd;            /* index in send[] it feeds, or -1 (final) */
    int32_t part;           /* final: its RECV part; forwarding: -1 */
} rtopo__recv_ent_t;

/* A node's part on this rank (rtopo_sched.h): it starts when the edges
 * into it are released, and releases the edges out of it when done. */
typedef struct rtopo__part {
    uint8_t type;           /* RTOPO__PART_* */
    uint32_t idx;           /* SEND: send[] index, RECV: recv[], LOCAL: node */
    uint32_t npred;
    uint32_t succ0, nsucc;  /* in plan->succ */
} rtopo__part_t;

typedef struct rtopo__plan {
    rtopo__sched_t *sched;
    int refs;               /* topology cache + requests using it */
    rtopo__opdesc_t key;    /* cache key: the call's arguments */
    rtopo__opdesc_t desc;   /* ... with the algorithm used (signature) */
    uint32_t sig;
    int staged_noted;       /* the staging fallback was logged */
    int nsend, nrecv, nlocal;
    rtopo__send_ent_t *send;    /* sorted by (xfer, hop) */
    rtopo__recv_ent_t *recv;    /* sorted by (xfer, hop) */
    int nparts;
    rtopo__part_t *parts;
    uint32_t *succ;             /* part indices */
    uint64_t tmp;               /* TMP bytes this rank needs */
    int npeers;
    int *peers;
} rtopo__plan_t;

#define RTOPO__PLAN_CACHE 8
/* bounds on what a peer may send ahead of this rank */
#define RTOPO__EARLY_OPS    1024u   /* operations ahead on one topology */
#define RTOPO__EARLY_TOPOS  64u     /* topologies ahead */
#define RTOPO__EARLY_MSGS   4096u   /* messages kept per peer */
#define RTOPO__EAGER_FRAG_MIN 1024u /* smallest eager fragment worth sending */

struct rtopo__calib {         /* measured for one kind of pair */
    int valid;
    double ts, tw;
};

struct rtopo_topo {
    rtopo_ctx_t *ctx;
    uint32_t id;
    rtopo__tdesc_t desc;
    int shift_algo;
    uint32_t next_seq;
    int nreqs;              /* requests on it */
    struct rtopo_req *spare;   /* the last non-persistent request freed,
                                  reused by the next one on its plan */
    int nnbr;
    int *nbr;
    rtopo__plan_t *cache[RTOPO__PLAN_CACHE];
    int cache_next;
    rtopo__shift_memo_t memo;     /* AUTO's shift choices */
    int me;                 /* this rank's label in desc (schedule ranks) */
    int *rmap;              /* desc label -> job rank; NULL: the same */
    int host;               /* job rank of the host (scatter), -1: none */
    int host_node;          /* the cube node that is the host, -1: the
                               host is outside the cube (or none) */
    int scatter_algo;       /* rtopo_scatter_algo_t */
    int scatter_x;          /* block dimension, -1: the model's best */
    int coll_algo;          /* rtopo_coll_algo_t */
    rtopo__model_t model;   /* what its "auto" choices use (calib.c) */
};

/* The job rank of schedule rank r of topology t. */
static inline int rtopo__topo_job_rank(const rtopo_topo_t *t, int r)
{
    return t->rmap ? t->rmap[r] : r;
}

struct rtopo__op;

typedef struct rtopo__wctx {    /* context of one outstanding write */
    rtopo__comp_t comp;
    struct rtopo__op *op;
    int32_t send_idx;
    uint32_t piece;
} rtopo__wctx_t;

typedef struct rtopo__sstate {
    int done;
    int blocked;            /* origin whose SEND part has not started */
    int have_rtr;
    int mode;
    uint32_t rslot;
    rtopo__rkey_t rkey;
    uint64_t roff;
    uint64_t len;
    uint64_t unit;          /* piece size */
    uint32_t npieces;
    uint32_t rk;            /* remote slots (STAGED) */
    uint32_t rtail;         /* remote released prefix (CREDIT) */
    uint32_t next;          /* next piece to write */
    uint32_t completed;     /* local write completions */
    const uint8_t *src;     /* origin data (NULL when forwarding) */
    struct rtopo_mem *src_mem;  /* registered region holding src, or NULL */
    struct rtopo_mem *stage;    /* origin staging for unregistered src */
    struct rtopo_mem *opmem;    /* src registered for this operation */
    rtopo__ring_t ring;         /* origin staging slots */
    rtopo__wctx_t *wctx;        /* one per piece in flight */
    uint32_t nwctx;
    /* eager messages sent from src itself, still in the transport: the
     * data leaves src when the last one completes */
    rtopo__track_t sent;
    struct rtopo__op *op;
} rtopo__sstate_t;

typedef struct rtopo__rstate {
    int done;
    int heard;              /* any message of this hop came in */
    int mode;               /* 0 eager, DIRECT or STAGED */
    uint32_t slot;
    uint64_t len;
    uint64_t unit;
    uint32_t npieces;       /* STAGED: known; DIRECT: from the last flag */
    uint32_t arrived;
    int last_seen;
    uint8_t *dst;           /* final destination, NULL when forwarding */
    struct rtopo_mem *stage;
    struct rtopo_mem *opmem;/* dst registered for this operation */
    rtopo__ring_t ring;     /* staging slots: released prefix */
    uint32_t *slot_piece;   /* piece held by each staging slot, or ~0 */
    uint32_t next_fwd;      /* next piece to forward or copy out */
    uint32_t credited;      /* last prefix sent upstream */
    uint8_t *early;         /* eager data that came before its part started */
    uint64_t eager_got;     /* eager payload bytes received (fragments) */
} rtopo__rstate_t;

typedef struct rtopo__op {
    rtopo_ctx_t *ctx;
    rtopo_topo_t *topo;
    rtopo__plan_t *plan;
    uint32_t seq;
    int status;
    int active;             /* linked in ctx->active */
    int remaining;          /* unfinished entries */
    int inflight;           /* writes and control messages not completed */
    rtopo__track_t track;   /* its control messages */
    int zombie;             /* failed, state kept for completions still due */
    int internal;           /* the runtime's own (calib.c): every rank runs it
                               alike, the barrier's call counts leave it out */
    uint64_t deadline_ns;
    const uint8_t *bufs[RTOPO__BUF_COUNT];
    uint8_t *inplace_copy;  /* send data copied when it overlaps recv */
    rtopo__sstate_t *ss;
    rtopo__rstate_t *rs;
    uint32_t *pcnt;         /* per part: edges not yet released */
    uint8_t *pstate;        /* per part: 0 waiting, 1 started, 2 done */
    uint32_t *ready;        /* parts released, in order; [rhead, nready) not
                               yet started */
    uint32_t rhead, nready;
    int running;            /* rtopo__parts_run is on the stack */
    char errmsg[256];       /* why it failed, for the caller's thread */
    struct rtopo__op *next, *prev;   /* ctx active list */
    const struct rtopo__op_owner *owner;
} rtopo__op_t;

/* What the owner of an operation (a request, req.c) does when the
 * operation completes, and when a failed one's last write or message
 * completes (its state is freed then). */
struct rtopo__op_owner {
    void (*finished)(rtopo__op_t *op);
    void (*reaped)(rtopo__op_t *op);
};

struct rtopo_req {
    rtopo__op_t op;
    uint8_t *tmp;           /* TMP scratch of the schedule, kept across starts */
    struct rtopo_mem *tmp_mem;  /* ... a registered staging block */
    int persistent;
    int started;
    int user_active;        /* started, completion not yet seen by the caller */
    int orphan;             /* freed by the caller while writes were out */
    int listed;             /* registered as a handle (handed to the caller) */
    uint64_t send_sum;      /* RTOPO_CHECK_BUFFERS */
    const void *sendbuf;
    void *recvbuf;
    size_t sbytes;          /* what the schedule may read of sendbuf */
    size_t rbytes;          /* ... and write of recvbuf */
    const void *aux_in;     /* staged into TMP[0, aux_in_len) at each start */
    size_t aux_in_len;
    void *aux_out;          /* filled from TMP[8, 8 + aux_out_len) when the
                               operation completes */
    size_t aux_out_len;
    int bad;                /* an argument only this rank could check is
                               wrong: starting fails the job with it */
    char badmsg[200];
    struct rtopo_req *next, *prev;   /* ctx request list */
};

typedef struct rtopo__umsg {      /* control message for an op not started */
    struct rtopo__umsg *next;
    size_t len;
    rtopo__msg_t msg;             /* followed by the payload */
} rtopo__umsg_t;

/* what each rank publishes at start-up */
typedef struct rtopo__peer_info {
    char addr[RTOPO__TL_ADDR_MAX];
    uint32_t addr_len;
    char host[64];
    char transport[64];
    uint64_t eager_limit;
    uint64_t chunk_size;
    int64_t pipeline_depth;
    uint64_t token;      /* random, known only through the bootstrap: every
                            control message carries its sender's token, so
                            a process outside the job cannot forge one */
} rtopo__peer_info_t;

typedef struct rtopo__peerq {     /* control messages the tl has not taken */
    rtopo__cmsg_t *head, *tail;
    int queued;                   /* listed in ctx->pq_list */
} rtopo__peerq_t;

#define RTOPO__MAX_HOOKS 4
#define RTOPO__BARRIER_ROUNDS 32

struct rtopo_ctx {
    rtopo__params_t params;
    struct rtopo__boot *boot;
    const struct rtopo__tl_ops *tlops;
    struct rtopo__tl *tl;
    rtopo__tl_attr_t tlattr;
    int rank;
    int size;
    int timeout_ms;
    int check_buffers;
    int poll_only;              /* RTOPO_WAIT=poll: waits never sleep */
    int oversub;                /* more ranks on this host than processors */
    int yield_idle;             /* oversub, and a transport that does not
                                   yield in its own poll: an empty poll of a
                                   wait gives the processor away */
    size_t reg_op_min;          /* RTOPO_REG_PER_OP: unregistered buffers from this
                                   size up are registered for each operation,
                                   not staged; 0: none */
    size_t ctrl_size;
    size_t eager_frag;          /* largest eager fragment; 0: one message */
    rtopo__peer_info_t *peers;
    uint8_t *connected;         /* address known to the transport */
    /* job state */
    int failed;                 /* sticky status once the job is broken */
    int failed_rank;
    char failmsg[256];
    int fail_named;             /* failmsg names the argument that differs */
    int abort_sent;             /* this rank broadcast its job-wide ABORT */
    int closing;                /* past the final barrier */
    uint64_t grace_ns;          /* a lost peer is declared at this time */
    int grace_rank, grace_fire;
    uint64_t next_boot_check_ns;
    uint32_t next_topo_id;
    uint64_t ops_started;       /* collective operations started, all topologies */
    rtopo_topo_t **topos;       /* by id; NULL once freed */
    struct rtopo__tlast {       /* by id, kept after the topology is freed: */
        uint32_t seq;           /* the last operation that ended on it */
        uint32_t seq0;          /* the first of the caller's operations (those
                                   before are the runtime's own, calib.c) */
        int valid;              /* (completed or failed) and its arguments, */
        rtopo__opdesc_t desc;   /* named when a late peer's differ */
    } *tlast;
    uint32_t ntopos_alloc;
    struct rtopo_mem *mems;     /* user regions and staging blocks */
    struct rtopo_mem *staging_dead;  /* freed after the transport closes */
    rtopo__rcache_t rcache;
    rtopo__op_t *active;
    rtopo__op_t *zombies;       /* failed ops whose writes are still out */
    struct rtopo_req *reqs;     /* every request not freed */
    int nuser_active;           /* ... of them started and not yet seen
                                   complete by the caller (user_active) */
    rtopo__umsg_t *unexp;
    uint32_t *unexp_count;      /* early messages kept, per sender */
    /* wire-up */
    uint8_t *wired;             /* HELLO exchanged with the peer */
    uint8_t *hello_in;          /* HELLO received from the peer */
    uint32_t *hello_topo;       /* ... for that topology id */
    rtopo__opdesc_t *hello_desc;/* ... with that shape */
    /* barrier */
    uint32_t barrier_epoch;
    uint32_t barrier_got[2][RTOPO__BARRIER_ROUNDS];
    uint64_t *barrier_ops;      /* ops started per peer at its last barrier */
    uint32_t *barrier_seen;     /* epoch + 1 of that announcement, 0: none */
    uint8_t *barrier_kind;      /* ... made from rtopo_barrier or rtopo_finalize */
    int barrier_in;             /* 1 + kind of the barrier this rank is in, or 0 */
    uint32_t ann_epoch;         /* the smallest announcement for epoch+1 */
    uint64_t ann_min_ops;
    int ann_min_rank;
    /* engine */
    rtopo__am_fn am[RTOPO__MSG_COUNT];
    rtopo__hook_fn hooks[RTOPO__MAX_HOOKS];
    int nhooks;
    rtopo__peer_lost_fn peer_lost;      /* registered by job.c */
    rtopo__job_failed_fn job_failed;    /* registered by exec.c */
    rtopo__track_t track;       /* job-level control messages */
    rtopo__peerq_t *pq;
    int *pq_list;
    int npq;
    rtopo__cmsg_t *cmsg_free;
    rtopo__cmsg_t *cmsg_all;    /* every one allocated: queued, free, or with
                                   the transport (freed when it closes) */
    uint8_t *msgbuf;            /* builds untracked messages */
    uint64_t forged;            /* control messages dropped: not from the job */
    /* slot table for incoming windows */
    struct { rtopo__imm_fn fn; void *owner; int32_t idx; } *slots;
    uint32_t *slot_free;
    uint32_t nslot_free;
    rtopo__model_t model;       /* RTOPO_MODEL over the built-in constants */
    int model_measure;          /* RTOPO_MODEL=auto: measure per kind of pair */
    struct rtopo__calib calib[2][2];    /* measured: [node pair, host pair]
                                           [same machine, two machines] */
    /* progress thread (RTOPO_PROGRESS=thread).  lock serialises the
     * application's calls with that thread; without the thread only one
     * application thread is ever inside (rtopo(7), Threads), and the
     * calls do not take it (locking 0, fixed at rtopo_init). */
    int locking;
    pthread_mutex_t lock;
    pthread_cond_t work;
    pthread_t thread;
    int thread_on, thread_stop;
};

/* ---- handles: every live object is registered (stale ones are refused) */
enum { RTOPO__H_CTX = 1, RTOPO__H_TOPO, RTOPO__H_REQ, RTOPO__H_MEM };
int rtopo__handle_add(const void *p, int type);
void rtopo__handle_del(const void *p);
int rtopo__handle_ok(const void *p, int type);

/* ctx.c */
int rtopo__ctx_enter(rtopo_ctx_t *ctx);   /* lock; INVAL for a dead ctx */
/* lock the context of a handle found live (a topology or a request: the
 * context outlives them, so it needs no lookup of its own) */
void rtopo__ctx_lock(rtopo_ctx_t *ctx);
void rtopo__ctx_leave(rtopo_ctx_t *ctx);
/* returns st with the operation's message as this thread's last error */
int rtopo__report(int st, const char *msg);

/* calib.c: the cost model (RTOPO_MODEL, or measured per kind of pair) */
int rtopo__model_load(rtopo_ctx_t *ctx);          /* at init */
int rtopo__topo_model(rtopo_topo_t *t);           /* collective, at creation */

/* topo_api.c */
void rtopo__topo_destroy(rtopo_topo_t *t);

/* mem.c */
/* internal 0: the caller's (a handle), 1: a staging block, 2: the
 * caller's buffer for one operation (not linked: no other finds it);
 * access: RTOPO__TL_ACCESS_* */
int rtopo__mem_new(rtopo_ctx_t *ctx, void *buf, size_t len, int internal,
                   unsigned access, struct rtopo_mem **mem_p);
struct rtopo_mem *rtopo__mem_find(rtopo_ctx_t *ctx, const void *buf, size_t len);
int rtopo__stage_get(rtopo_ctx_t *ctx, size_t len, struct rtopo_mem **mem_p);
void rtopo__stage_put(struct rtopo_mem *mem);
struct rtopo_mem *rtopo__mem_op_get(rtopo_ctx_t *ctx, const void *buf, size_t len,
                                    int remote);
size_t rtopo__mem_reg_probe(rtopo_ctx_t *ctx);
void rtopo__mem_op_put(struct rtopo_mem *mem);
void rtopo__mem_op_close(struct rtopo_mem *mem);
int rtopo__rcache_init(rtopo_ctx_t *ctx);
void rtopo__rcache_fini(rtopo_ctx_t *ctx);
void rtopo__mem_release_all(rtopo_ctx_t *ctx);
void rtopo__mem_free_staging(rtopo_ctx_t *ctx);
#define RTOPO__QUIESCE_NS 200000000ull
void rtopo__mem_quiesce(rtopo_ctx_t *ctx, const void *buf, size_t len);

/* engine.c */
int rtopo__engine_init(rtopo_ctx_t *ctx);
void rtopo__engine_fini(rtopo_ctx_t *ctx);
void rtopo__am_set(rtopo_ctx_t *ctx, int type, rtopo__am_fn fn);
void rtopo__hook_add(rtopo_ctx_t *ctx, rtopo__hook_fn fn);
int rtopo__progress(rtopo_ctx_t *ctx);
/* Drives progress until cond(arg) holds (0), the deadline passes
 * (RTOPO_ERR_TIMEOUT) or the transport fails. */
int rtopo__wait(rtopo_ctx_t *ctx, int (*cond)(void *arg), void *arg, uint64_t deadline_ns);
int rtopo__ctrl_send(rtopo_ctx_t *ctx, int peer, const rtopo__msg_t *msg,
                     const void *payload, size_t plen, rtopo__track_t *track);
/* rtopo__ctrl_send whose payload stays valid until kept->out drops back
 * to where it was: the transport may send it from there, and kept counts
 * the message until then (kept NULL: as rtopo__ctrl_send) */
int rtopo__ctrl_sendv(rtopo_ctx_t *ctx, int peer, const rtopo__msg_t *msg,
                      const void *payload, size_t plen, rtopo__track_t *track,
                      rtopo__track_t *kept);
int rtopo__connect_peer(rtopo_ctx_t *ctx, int peer);
/* Asks the bootstrap whether the launcher reported a dead rank (cheap
 * enough to run every time the engine is about to block); a lost peer is
 * reported to the layer above through rtopo__on_peer_lost. */
int rtopo__check_failures(rtopo_ctx_t *ctx);
void rtopo__on_peer_lost(rtopo_ctx_t *ctx, rtopo__peer_lost_fn fn);
int rtopo__slot_open(rtopo_ctx_t *ctx, rtopo__imm_fn fn, void *owner, int idx,
                     uint32_t *slot_p);
void rtopo__slot_close(rtopo_ctx_t *ctx, uint32_t slot, int reuse);
int rtopo__thread_start(rtopo_ctx_t *ctx);
void rtopo__thread_stop(rtopo_ctx_t *ctx);
void rtopo__thread_kick(rtopo_ctx_t *ctx);

/* job.c */
void rtopo__job_init(rtopo_ctx_t *ctx);
int rtopo__wireup(rtopo_topo_t *t);
/* The topology's part of an operation descriptor (kind 0, no arguments). */
void rtopo__topo_opdesc(const rtopo_topo_t *t, rtopo__opdesc_t *d);
#define RTOPO__NOSEQ UINT32_MAX
void rtopo__job_abort(rtopo_ctx_t *ctx, int status, int culprit, const rtopo__opdesc_t *d,
                      uint32_t topo_id, uint32_t seq, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
enum { RTOPO__BARRIER_USER = 0, RTOPO__BARRIER_FINALIZE = 1 };
int rtopo__barrier(rtopo_ctx_t *ctx, int kind);
void rtopo__job_op_started(rtopo_ctx_t *ctx);
/* the layer above hears of a failed job through fn */
void rtopo__on_job_failed(rtopo_ctx_t *ctx, rtopo__job_failed_fn fn);
void rtopo__flush_job(rtopo_ctx_t *ctx, int limit_ms);
int rtopo__desc_diff(const rtopo__opdesc_t *a, const rtopo__opdesc_t *b, char *out,
                     size_t n);
/* A mismatch is found by the rank that receives a foreign message; the
 * ranks' own arguments arrive in the ABORTs that follow within a round
 * trip: a call that fails with a mismatch not yet named waits up to
 * RTOPO__NAMING_MS for them, so the caller learns what differs. */
#define RTOPO__NAMING_MS 300
void rtopo__await_named(rtopo_ctx_t *ctx, int limit_ms);

/* exec.c */
void rtopo__exec_init(rtopo_ctx_t *ctx);
/* operation `seq` of topology `topo_id` as the caller counts them (its
 * first is 0), for messages */
uint32_t rtopo__user_seq(const rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq);
uint32_t rtopo__sig(const rtopo__opdesc_t *d);
void rtopo__opdesc_shift(rtopo__opdesc_t *d, const rtopo_topo_t *t, long q, size_t bytes,
                         int algo);
/* a schedule built by a tool or test: tag tells schedules apart */
void rtopo__opdesc_sched(rtopo__opdesc_t *d, const rtopo_topo_t *t, long tag, size_t bytes);
int rtopo__plan_get(rtopo_topo_t *t, long q, size_t bytes, int algo,
                    rtopo__plan_t **plan_p);
int rtopo__plan_new(rtopo_topo_t *t, rtopo__sched_t *s, const rtopo__opdesc_t *d,
                    rtopo__plan_t **plan_p);
/* The cached plan for the arguments `key` (a new reference), or NULL. */
rtopo__plan_t *rtopo__plan_lookup(rtopo_topo_t *t, const rtopo__opdesc_t *key);
/* Keeps plan in the topology's cache under key (the cache takes a
 * reference of its own). */
void rtopo__plan_cache(rtopo_topo_t *t, const rtopo__opdesc_t *key, rtopo__plan_t *plan);
void rtopo__plan_put(rtopo__plan_t *plan);
int rtopo__op_start(rtopo__op_t *op);
int rtopo__op_wait(rtopo__op_t *op);
int rtopo__op_test(rtopo__op_t *op);
void rtopo__op_fail(rtopo__op_t *op, int status);
int rtopo__op_drain(rtopo__op_t *op, int limit_ms);
/* frees the failed operations still waiting for completions (and their
 * freed requests): only once the transport is closed */
void rtopo__op_reap_zombies(rtopo_ctx_t *ctx);
/* frees the per-run state an operation keeps between starts (it is
 * neither active nor a zombie) */
void rtopo__op_release(rtopo__op_t *op);

/* req.c: requests of any collective.  A call is blocking, nonblocking or
 * persistent (its "how"); a blocking call's request never leaves the
 * library, so it is not registered as a handle. */
enum { RTOPO__CALL_BLOCK = 0, RTOPO__CALL_START = 1, RTOPO__CALL_INIT = 2 };
/* rtopo__req_new takes the caller's reference to plan (released on
 * failure too) */
int rtopo__req_new(rtopo_topo_t *t, rtopo__plan_t *plan, const void *sendbuf,
                   size_t sbytes, void *recvbuf, size_t rbytes, int how,
                   rtopo_req_t **req_p);
/* a request just made, run as its call asks (context entered): a blocking
 * call's is started, waited for and freed, and its status returned; a
 * nonblocking call's is started and goes to *req_p (freed and NULL there
 * if it cannot start); a persistent call's goes to *req_p as it is */
int rtopo__req_call(rtopo_req_t *req, int how, rtopo_req_t **req_p);
void rtopo__req_destroy(rtopo_req_t *req);
/* frees a request that is on no list (a topology's spare) */
void rtopo__req_release(rtopo_req_t *req);
/* starts a request and waits for it, as rtopo_start and rtopo_wait do
 * (context entered): the runtime's own requests (calib.c) */
int rtopo__req_run(rtopo_req_t *req);
/* what rtopo_req_free does, context entered, the request not in flight */
void rtopo__req_free(rtopo_req_t *req);
/* a persistent request running any schedule (tools, tests); takes s */
int rtopo__req_sched(rtopo_topo_t *t, rtopo__sched_t *s, const rtopo__opdesc_t *d,
                     const void *sendbuf, size_t sbytes, void *recvbuf, size_t rbytes,
                     rtopo_req_t **req_p);

#endif
