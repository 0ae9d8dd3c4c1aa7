/*
 * ctx.h - the bottom of runtime/: the context and the topology as state
 * (every layer keeps its part in them), the types of what the engine
 * calls back, handles (handle.c) and the context's lock (ctx.c).
 *
 * Levels of runtime/, bottom up (runtime/README.md): a file calls and
 * includes only its own level and those below.
 *   context (ctx, handle) -> engine (engine), memory (mem) -> job (job)
 *   -> executor (exec) -> requests (req) -> cost model (calib)
 *   -> API (init, mem_api, topo_api, coll, shift, scatter, cart)
 * The engine reports lost peers, and the job its failure, through hooks
 * the layer above registers (rtopo__on_peer_lost, rtopo__on_job_failed).
 */
#ifndef RTOPO_CTX_H
#define RTOPO_CTX_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "rtopo.h"
#include "log.h"
#include "clock.h"
#include "params.h"
#include "boot.h"
#include "tl.h"
#include "rtopo_sched.h"
#include "wire.h"
#include "handle.h"

#define rtopo__container_of(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

typedef struct rtopo__plan rtopo__plan_t;      /* exec.h */
typedef struct rtopo__op rtopo__op_t;          /* exec.h */
typedef struct rtopo__cmsg rtopo__cmsg_t;      /* engine.h */
typedef struct rtopo__peerq rtopo__peerq_t;    /* engine.h */
struct rtopo__probes;                          /* probe.h */

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

typedef void (*rtopo__am_fn)(rtopo_ctx_t *ctx, const rtopo__msg_t *m, size_t len);
/* imm with the key taken out, len the bytes written (0: not told);
 * returns 0 for a write the window never expected (counted as forged) */
typedef int (*rtopo__imm_fn)(void *owner, int idx, uint32_t imm, size_t len);
typedef void (*rtopo__hook_fn)(rtopo_ctx_t *ctx);
/* the engine lost a peer (job.c decides what that means for the job) */
typedef void (*rtopo__peer_lost_fn)(rtopo_ctx_t *ctx, int peer, int status, const char *why);
/* the job failed (exec.c fails the operations in flight) */
typedef void (*rtopo__job_failed_fn)(rtopo_ctx_t *ctx, int status);
/* the arguments of operation seq on topology topo_id if it is in flight
 * (1), or 0 (exec.c answers) */
typedef int (*rtopo__op_desc_fn)(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq,
                                 rtopo__opdesc_t *d);

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

#define RTOPO__PLAN_CACHE 8
/* Flow control (exec.c): a rank sends nothing for an operation that lies
 * RTOPO__FLOW_WINDOW or more past what a peer of it has told it started on
 * that topology, or on a topology RTOPO__FLOW_TOPOS or more past those it
 * told it created; it tells a peer its counts when it posts an operation
 * with it and has not told it for RTOPO__FLOW_ACK_EVERY operations or
 * RTOPO__FLOW_TOPOS_ACK topologies (at most the windows, or a rank held
 * back might wait for good). */
#define RTOPO__FLOW_WINDOW    64u
#define RTOPO__FLOW_ACK_EVERY 16u
#define RTOPO__FLOW_TOPOS     16u
#define RTOPO__FLOW_TOPOS_ACK 4u
/* Bounds on what a peer may send ahead of this rank: a memory guard that
 * flow control keeps a consistent job far below; past them the peer's
 * calls and this rank's differ (MISMATCH). */
#define RTOPO__EARLY_OPS    1024u   /* operations ahead on one topology */
#define RTOPO__EARLY_TOPOS  64u     /* topologies ahead */
#define RTOPO__EARLY_MSGS   65536u  /* hops kept per peer (of operations
                                       not posted here; the fragments of
                                       an eager payload count once):
                                       64 operations of 1024 hops */
#define RTOPO__EAGER_FRAG_MIN 1024u /* smallest eager fragment worth sending */

struct rtopo__calib {         /* measured for one kind of pair */
    int valid;
    double ts, tw;
    double tt;                  /* the receiver's turn (ranks outnumber the
                                   processors of the pair's machine), or 0 */
};

struct rtopo_topo {
    rtopo_ctx_t *ctx;
    uint32_t id;
    rtopo__tdesc_t desc;
    int shift_algo;
    int whole_plans;        /* plans keep the whole schedule (tools), not the
                               rank's share */
    uint32_t next_seq;
    int nreqs;              /* requests on it */
    struct rtopo_req *spare;   /* the last non-persistent request freed,
                                  reused by the next one on its plan */
    rtopo__plan_t *spare_plan;  /* ... its plan (req.c keeps it: a repeated
                                   shift finds it first, exec.c) */
    int nnbr;
    int *nbr;
    struct rtopo__plan *cache[RTOPO__PLAN_CACHE];
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
    uint16_t piece;         /* a piece (rtopo_topo_sub): its keep mask,
                               folded to 15 bits, | 0x8000; 0: not a piece */
    rtopo__model_t model;   /* what its "auto" choices use (calib.c) */
    rtopo__layout_t layout; /* host of each label (model.layout points
                               here), host NULL: all on one host */
    uint32_t *flow;         /* flow control (exec.c), by job rank: [peer]
                               operations the peer started here at least,
                               [size + peer] what this rank told it;
                               NULL until the first operation */
};

/* The job rank of schedule rank r of topology t. */
static inline int rtopo__topo_job_rank(const rtopo_topo_t *t, int r)
{
    return t->rmap ? t->rmap[r] : r;
}

typedef struct rtopo__umsg {      /* control message for an op not started */
    struct rtopo__umsg *next;
    size_t len;
    int counted;                  /* in unexp_count (its operation is not
                                     posted here) */
    int small;                    /* 1: a block of RTOPO__UMSG_SMALL bytes,
                                     0: an early data block (rtopo__eblk_t) */
    rtopo__msg_t msg;             /* followed by the payload */
} rtopo__umsg_t;

/* Early messages whose keeping takes up to this many bytes (a payload
 * of up to about 280 bytes) are kept in blocks of that size, and a few
 * of those are kept for reuse: a blocking call on few ranks finds its
 * peer's message early about every other time, and would pay a malloc
 * and a free for it. */
#define RTOPO__UMSG_SMALL 512
#define RTOPO__UMSG_SPARES 8

/* Larger early data (a message kept as above, or the eager data of a
 * receive whose part has not started) is kept in blocks of its size
 * rounded up (RTOPO__EBLK_ROUND), and up to this many of those are kept
 * for reuse, the first large enough taken: freed, they went back to the
 * heap's top, which glibc hands back to the kernel past 128 KiB, and the
 * next one faulted its pages in again.  Ranks that outnumber the
 * processors run ahead of their peers for several operations at a time
 * (8 ranks on 2 processors, broadcasts of 16 KiB with a 64 KiB eager
 * limit: 10 times the processor time). */
#define RTOPO__EBLK_SPARES 32
#define RTOPO__EBLK_ROUND 4096

typedef struct rtopo__eblk {     /* before the data it holds */
    struct rtopo__eblk *next;
    size_t cap;                  /* bytes after this header */
} rtopo__eblk_t;


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
    int place;                  /* rtopo_place_t of the next topologies */
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
    uint8_t *unreached_by;      /* per peer, 1: it found at start-up that it
                                   cannot reach this rank's address (NULL:
                                   none did) */
    /* job state */
    int failed;                 /* sticky status once the job is broken */
    int failed_rank;
    char failmsg[256];
    int fail_named;             /* failmsg names the argument that differs */
    int abort_sent;             /* this rank broadcast its job-wide ABORT */
    int closing;                /* past the final barrier */
    uint32_t abort_epoch;       /* the most barriers a rank had completed
                                   when it sent an ABORT received here */
    uint32_t fail_topo;         /* the failure's topology (creation: its id, */
    uint32_t fail_seq;          /* and RTOPO__NOSEQ), as the ABORT tells */
    uint32_t creating;          /* 1 + id of the topology being created, or 0 */
    int call_ran;               /* the failing call's operation had run (req.c) */
    struct rtopo__probes *probes;   /* questions about waiting operations */
    uint64_t grace_ns;          /* a lost peer is declared at this time */
    int grace_rank, grace_fire;
    uint64_t next_boot_check_ns;
    uint32_t next_topo_id;
    uint64_t ops_started;       /* collective operations started, all topologies */
    uint64_t plans_built;       /* plans built (rtopo__plan_new), all topologies */
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
    rtopo__umsg_t **unexp_tail; /* the last one's next (append in O(1)) */
    rtopo__umsg_t *umsg_spare;  /* small blocks for reuse (RTOPO__UMSG_SPARES) */
    int numsg_spare;
    rtopo__eblk_t *eblk_spare;  /* large ones (RTOPO__EBLK_SPARES) */
    int neblk_spare;
    /* blocks of early data: handed out, taken from malloc, in use, the
     * most in use at once */
    uint64_t eblk_taken, eblk_alloc;
    unsigned eblk_out, eblk_peak;
    uint32_t *unexp_count;      /* early messages kept, per sender */
    uint32_t unexp_max;         /* the most of them from one sender at once
                                   (for tests) */
    uint32_t *flow_topo;        /* flow control (exec.c), by job rank: [peer]
                                   topologies the peer created at least,
                                   [size + peer] what this rank told it (in
                                   unexp_count's block) */
    int flow_held;              /* operations held back by flow control */
    int flow_recheck;           /* a peer's count grew while some were */
    int nwriting;               /* active operations with writes to push
                                   (op->writes, exec.c) */
    /* wire-up */
    uint8_t *wired;             /* HELLO exchanged with the peer */
    uint8_t *hello_in;          /* HELLO received from the peer */
    uint32_t *hello_topo;       /* ... for that topology id */
    rtopo__opdesc_t *hello_desc;/* ... with that shape */
    /* barrier */
    uint32_t barrier_epoch;
    uint32_t barrier_got[2][RTOPO__BARRIER_ROUNDS];
    uint64_t *barrier_ops;      /* ops started per peer at its last barrier */
    uint32_t *barrier_ntopos;   /* ... and topologies it had created */
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
    rtopo__op_desc_fn op_desc;          /* registered by exec.c */
    rtopo__track_t track;       /* job-level control messages */
    rtopo__peerq_t *pq;
    int *pq_list;
    int npq;
    rtopo__cmsg_t *cmsg_free;
    rtopo__cmsg_t *cmsg_all;    /* every one allocated: queued, free, or with
                                   the transport (freed when it closes) */
    uint8_t *msgbuf;            /* builds untracked messages */
    uint64_t forged;            /* control messages and immediates dropped:
                                   not from the job */
    /* slot table for incoming windows */
    struct { rtopo__imm_fn fn; void *owner; int32_t idx; int32_t peer;
             uint32_t key; } *slots;
    uint32_t *slot_free;
    uint32_t nslot_free;
    uint64_t slot_rng;          /* draws slot indexes and keys */
    rtopo__model_t model;       /* RTOPO_MODEL over the built-in constants */
    int model_measure;          /* RTOPO_MODEL=auto: measure per kind of pair */
    struct rtopo__calib calib[2][2];    /* measured: [node pair, host pair]
                                           [same machine, two machines] */
    struct {                    /* label 0's machine, agreed (calib.c) */
        int valid;
        int oversub;            /* more ranks on it than processors */
        int ncpu;               /* its processors */
        double tq;              /* measured: what a message pays there */
        double tt;              /* measured: the receiver's turn there, the
                                   burst's (0: the pair's, or none) */
        double tk;              /* measured there: a reduction's time per
                                   byte (0: not measured) */
        int copy;               /* copy_ts, copy_tw measured there */
        double copy_ts, copy_tw;    /* a copy inside a rank (LOCAL class) */
    } calib_over;
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

int rtopo__ctx_enter(rtopo_ctx_t *ctx);   /* lock; INVAL for a dead ctx */
/* lock the context of a handle found live (a topology or a request: the
 * context outlives them, so it needs no lookup of its own); inline: a
 * small call pays the test of locking only */
static inline void rtopo__ctx_lock(rtopo_ctx_t *ctx)
{
    if (ctx->locking)
        pthread_mutex_lock(&ctx->lock);
}

static inline void rtopo__ctx_leave(rtopo_ctx_t *ctx)
{
    if (ctx->locking)
        pthread_mutex_unlock(&ctx->lock);
}
/* returns st with the operation's message as this thread's last error */
int rtopo__report(int st, const char *msg);

#endif
