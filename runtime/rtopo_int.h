/*
 * rtopo_int.h - engine internals shared by runtime (all .c files there).
 *
 * Objects: the context (bootstrap + one transport), registered memory
 * regions, topologies, plans (one rank's share of a schedule, cached) and
 * operations (one execution of a plan).  The engine never sees libfabric
 * or verbs types: only transports/tl.h.
 *
 * Protocol of one hop (sender S -> receiver R) of a transfer of L bytes:
 *  - L <= RTOPO_EAGER_LIMIT: S sends one EAGER control message holding the
 *    payload; R copies it out (or forwards it) when its operation runs.
 *  - otherwise R exposes a window and tells S with RTR: either the final
 *    receive buffer itself (DIRECT, when it lies in a registered region:
 *    zero copy) or K registered staging slots of U bytes (STAGED, for
 *    unregistered buffers and for forwarding ranks).  S writes pieces with
 *    a 32-bit immediate: slot(15) | last(1) | piece(16).  For STAGED
 *    windows piece n goes to slot n % K and S may run at most K pieces
 *    ahead of the prefix R has released (CREDIT messages carry it).
 *  - a forwarding rank sends piece n on as soon as it has landed
 *    (cut-through) and releases the slot when that write completes.
 */
#ifndef RTOPO_INT_H
#define RTOPO_INT_H

#include <stdint.h>
#include <stddef.h>
#include "rtopo.h"
#include "log.h"
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

enum rtopo__msg_type {
    RTOPO__MSG_EAGER = 1,
    RTOPO__MSG_RTR,
    RTOPO__MSG_CREDIT,
    RTOPO__MSG_ABORT,
};

enum { RTOPO__WIN_DIRECT = 1, RTOPO__WIN_STAGED = 2 };

/* A control message.  EAGER messages carry only the first
 * RTOPO__MSG_HDR bytes, then the payload, so that small ones fit the
 * providers' inject size; the others carry the whole struct. */
typedef struct rtopo__msg {
    uint8_t type;
    uint8_t mode;        /* RTR: window kind */
    uint16_t pad;
    int32_t src;         /* sending rank */
    uint32_t topo_id;
    uint32_t seq;
    uint32_t xfer;
    uint32_t hop;        /* 1-based hop index within the transfer */
    uint32_t sig;        /* signature of the operation's arguments */
    uint32_t nslots;     /* RTR staged: K; CREDIT: released prefix */
    uint64_t len;        /* hop length (EAGER: payload bytes) */
    /* RTR and ABORT only */
    uint32_t slot;       /* RTR: receiver's slot id */
    int32_t status;      /* ABORT */
    uint64_t unit;       /* RTR staged: bytes per slot */
    rtopo__rkey_t rkey;  /* RTR */
    uint64_t roff;       /* RTR: offset of the window in rkey's region */
} rtopo__msg_t;

#define RTOPO__MSG_HDR offsetof(rtopo__msg_t, slot)
#define RTOPO__MSG_LEN(m) ((m)->type == RTOPO__MSG_EAGER ? RTOPO__MSG_HDR : sizeof(rtopo__msg_t))

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
    int internal;          /* staging block owned by the engine */
    int in_use;            /* staging block handed out */
    struct rtopo_mem *next;
};

/* one rank's share of a schedule */
typedef struct rtopo__send_ent {
    uint32_t xfer, hop;     /* hop index 1..nhops */
    int32_t peer;           /* receiver of the hop */
    int32_t upstream;       /* index in recv[] feeding it, or -1 (origin) */
} rtopo__send_ent_t;

typedef struct rtopo__recv_ent {
    uint32_t xfer, hop;
    int32_t peer;           /* sender of the hop */
    int32_t fwd;            /* index in send[] it feeds, or -1 (final) */
} rtopo__recv_ent_t;

typedef struct rtopo__plan {
    rtopo__sched_t *sched;
    int refs;               /* topology cache + requests using it */
    long key_q;             /* cache key */
    size_t key_bytes;
    int key_algo;
    uint32_t sig;
    int nsend, nrecv, nlocal;
    rtopo__send_ent_t *send;    /* sorted by (xfer, hop) */
    rtopo__recv_ent_t *recv;    /* sorted by (xfer, hop) */
    uint32_t *local;            /* xfers copied within this rank */
    int npeers;
    int *peers;
} rtopo__plan_t;

#define RTOPO__PLAN_CACHE 8

struct rtopo_topo {
    rtopo_ctx_t *ctx;
    uint32_t id;
    rtopo__tdesc_t desc;
    int shift_algo;
    uint32_t next_seq;
    int nnbr;
    int *nbr;
    rtopo__plan_t *cache[RTOPO__PLAN_CACHE];
    int cache_next;
};

struct rtopo__op;

typedef struct rtopo__wctx {    /* context of one outstanding write */
    struct rtopo__op *op;
    int32_t send_idx;
    uint32_t piece;
} rtopo__wctx_t;

typedef struct rtopo__sstate {
    int done;
    int blocked;            /* reads RECV/TMP that earlier steps still fill */
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
    rtopo__ring_t ring;         /* origin staging slots */
    rtopo__wctx_t *wctx;        /* one per piece in flight */
    uint32_t nwctx;
} rtopo__sstate_t;

typedef struct rtopo__rstate {
    int done;
    int mode;               /* 0 eager, DIRECT or STAGED */
    uint32_t slot;
    uint64_t len;
    uint64_t unit;
    uint32_t npieces;       /* STAGED: known; DIRECT: from the last flag */
    uint32_t arrived;
    int last_seen;
    uint8_t *dst;           /* final destination, NULL when forwarding */
    struct rtopo_mem *stage;
    rtopo__ring_t ring;     /* staging slots: released prefix */
    uint32_t *slot_piece;   /* piece held by each staging slot, or ~0 */
    uint32_t next_fwd;      /* next piece to forward or copy out */
    uint32_t credited;      /* last prefix sent upstream */
    uint8_t *eager_copy;    /* eager payload waiting to be forwarded */
} rtopo__rstate_t;

typedef struct rtopo__op {
    rtopo_ctx_t *ctx;
    rtopo_topo_t *topo;
    rtopo__plan_t *plan;
    uint32_t seq;
    int status;
    int active;
    int remaining;          /* unfinished entries */
    int inflight;           /* local writes not yet completed */
    int zombie;
    uint64_t deadline_ns;
    const uint8_t *bufs[RTOPO__BUF_COUNT];
    uint8_t *inplace_copy;  /* send data copied when it overlaps recv */
    rtopo__sstate_t *ss;
    rtopo__rstate_t *rs;
    struct rtopo__op *next, *prev;   /* ctx active list */
} rtopo__op_t;

struct rtopo_req {
    rtopo__op_t op;
    uint8_t *tmp;           /* TMP scratch of the schedule, kept across starts */
    int persistent;
    int started;
    const void *sendbuf;
    void *recvbuf;
    size_t bytes;
};

typedef struct rtopo__umsg {      /* control message for an op not started */
    struct rtopo__umsg *next;
    size_t len;
    rtopo__msg_t msg;             /* followed by the payload */
} rtopo__umsg_t;

typedef struct rtopo__pend {      /* control message waiting for resources */
    struct rtopo__pend *next;
    int peer;
    size_t len;
    rtopo__msg_t msg;
} rtopo__pend_t;

/* what each rank publishes at start-up */
typedef struct rtopo__peer_info {
    char addr[RTOPO__TL_ADDR_MAX];
    uint32_t addr_len;
    char host[64];
    char transport[16];
    uint64_t eager_limit;
    uint64_t chunk_size;
    int64_t pipeline_depth;
} rtopo__peer_info_t;

struct rtopo_ctx {
    rtopo__params_t params;
    struct rtopo__boot *boot;
    const struct rtopo__tl_ops *tlops;
    struct rtopo__tl *tl;
    rtopo__tl_attr_t tlattr;
    int rank;
    int size;
    int timeout_ms;
    size_t ctrl_size;
    rtopo__peer_info_t *peers;
    uint8_t *connected;
    int failed;                 /* sticky status once a peer died */
    int failed_rank;
    uint64_t next_boot_check_ns;
    uint32_t next_topo_id;
    rtopo_topo_t **topos;       /* by id; NULL once freed */
    uint32_t ntopos_alloc;
    rtopo__op_t *zombies;       /* failed ops whose writes are still out */
    struct rtopo_mem *mems;     /* user regions and staging blocks */
    rtopo__op_t *active;
    rtopo__umsg_t *unexp;
    rtopo__pend_t *pend, *pend_tail;
    /* slot table for incoming windows */
    struct { rtopo__op_t *op; int32_t ridx; } *slots;
    uint32_t *slot_free;
    uint32_t nslot_free;
    uint8_t *msgbuf;            /* ctrl_size scratch for building messages */
    rtopo__model_t model;
};

/* shift.c: a persistent request running any schedule (tools, tests) */
int rtopo__req_sched(rtopo_topo_t *t, rtopo__sched_t *s, uint32_t sig,
                     const void *sendbuf, void *recvbuf, size_t bytes,
                     rtopo_req_t **req_p);

/* ctx.c */
uint64_t rtopo__now_ns(void);
int rtopo__connect_peer(rtopo_ctx_t *ctx, int peer);
void rtopo__peer_failed(rtopo_ctx_t *ctx, int peer, int status, const char *why);
int rtopo__check_failures(rtopo_ctx_t *ctx);

/* mem.c */
struct rtopo_mem *rtopo__mem_find(rtopo_ctx_t *ctx, const void *buf, size_t len);
int rtopo__stage_get(rtopo_ctx_t *ctx, size_t len, struct rtopo_mem **mem_p);
void rtopo__stage_put(struct rtopo_mem *mem);
void rtopo__mem_release_all(rtopo_ctx_t *ctx);

/* engine.c */
int rtopo__progress(rtopo_ctx_t *ctx);
int rtopo__op_wait(rtopo__op_t *op);
void rtopo__flush(rtopo_ctx_t *ctx, int limit_ms);
int rtopo__ctrl_send(rtopo_ctx_t *ctx, int peer, const rtopo__msg_t *msg,
                     const void *payload, size_t plen);

/* exec.c */
int rtopo__plan_get(rtopo_topo_t *t, long q, size_t bytes, int algo,
                    rtopo__plan_t **plan_p);
int rtopo__plan_new(rtopo_topo_t *t, rtopo__sched_t *s, uint32_t sig,
                    rtopo__plan_t **plan_p);
void rtopo__plan_put(rtopo__plan_t *plan);
int rtopo__op_start(rtopo__op_t *op);
void rtopo__op_fail(rtopo__op_t *op, int status);
void rtopo__op_finish(rtopo__op_t *op);
void rtopo__op_advance(rtopo__op_t *op);
void rtopo__op_handle_msg(rtopo__op_t *op, const rtopo__msg_t *m, size_t len);
void rtopo__op_handle_imm(rtopo__op_t *op, int ridx, uint32_t imm);
void rtopo__op_handle_write_done(rtopo__wctx_t *w);
void rtopo__op_write_failed(rtopo__wctx_t *w, int status, int peer, const char *msg);
void rtopo__op_take_early(rtopo__op_t *op);
int rtopo__op_drain(rtopo__op_t *op);
uint32_t rtopo__sig(int kind, long q, size_t bytes, int algo, int p);

#endif
