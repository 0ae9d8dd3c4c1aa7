/*
 * exec.h - the schedule executor (exec.c): plans (one rank's share of a
 * schedule, cached per topology) and operations (one run of a plan), the
 * protocol of one hop (wire.h).
 */
#ifndef RTOPO_EXEC_H
#define RTOPO_EXEC_H

#include "ctx.h"

/* ring of K slots released in piece order (see protocol above) */
typedef struct rtopo__ring {
    uint32_t k;
    uint32_t head;       /* next piece to acquire */
    uint32_t tail;       /* first piece not yet released */
    uint8_t *released;   /* per slot */
} rtopo__ring_t;

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

/* an EAGER message's header as a send of the plan builds it, but for seq
 * (and off, src and auth, which the sending sets) */
typedef struct rtopo__ehdr {
    uint64_t w[RTOPO__MSG_HDR / 8];
} rtopo__ehdr_t;

struct rtopo__plan {
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
    /* every hop of this rank's share goes eager (no window, no write):
     * its operations take the eager way (rtopo__eager_run) */
    int eager;
    uint64_t eager_runs;    /* operations run that way or the shortest
                               (plan->fast; tests read it) */
    rtopo__ehdr_t *shdr;    /* per send entry, its EAGER header */
    uint32_t *rxid;         /* per receive entry, its transfer as its
                               messages name it */
    /* one eager send and one eager receive, nothing else on this rank (a
     * small shift): its operations take the shortest way (rtopo__fast_run) */
    int fast;
};

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

struct rtopo__op {
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
    int held;               /* posted, held back by flow control: it has
                               sent nothing, its messages wait in unexp */
    int internal;           /* the runtime's own (calib.c): every rank runs it
                               alike, the barrier's call counts leave it out */
    uint64_t deadline_ns;
    uint64_t probe_ns;      /* when it asks its peers next (probe.c) */
    /* a window of this run waits for a write that lasts longer than a
     * wait's spin under the topology's model: its wait polls, yielding,
     * without sleeping until then (rtopo__op_wait), or 0 */
    uint64_t spin_ns;
    const uint8_t *bufs[RTOPO__BUF_COUNT];
    uint8_t *inplace_copy;  /* send data copied when it overlaps recv */
    rtopo__sstate_t *ss;
    rtopo__rstate_t *rs;
    /* per receive entry, its window's slot kept open from the last run
     * for the next start: RTOPO__KEPT | id, or 0 (exec.c) */
    uint64_t *kept;
    uint32_t *pcnt;         /* per part: edges not yet released */
    uint8_t *pstate;        /* per part: 0 waiting, 1 started, 2 done */
    uint32_t *ready;        /* parts released, in order; [rhead, nready) not
                               yet started; [lhead, ltail) local parts put
                               off behind them (rtopo__parts_run) */
    uint32_t rhead, nready, lhead, ltail;
    int allocated;          /* ss, rs, pcnt, pstate, ready and kept are */
    int running;            /* rtopo__parts_run is on the stack */
    int writes;             /* some send has its window (have_rtr): the
                               progress passes advance its writes */
    char errmsg[256];       /* why it failed, for the caller's thread */
    struct rtopo__op *next, *prev;   /* ctx active list */
    const struct rtopo__op_owner *owner;
};

/* What the owner of an operation (a request, req.c) does when the
 * operation completes, and when a failed one's last write or message
 * completes (its state is freed then). */
struct rtopo__op_owner {
    void (*finished)(rtopo__op_t *op);
    void (*reaped)(rtopo__op_t *op);
};

void rtopo__exec_init(rtopo_ctx_t *ctx);
/* frees every early message kept and the spare blocks of early data */
void rtopo__early_free(rtopo_ctx_t *ctx);
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
/* whether plan is the one rtopo__plan_get gives for a shift by q of
 * bytes with algo (the key the call's arguments make) */
static inline int rtopo__plan_is_shift(const rtopo__plan_t *plan, long q, size_t bytes,
                                       int algo)
{
    return plan->key.kind == RTOPO__OP_SHIFT && plan->key.q == q &&
           plan->key.bytes == bytes && plan->key.algo == (uint8_t)algo;
}
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

#endif
