/*
 * wire.h - what travels between ranks: control messages, the immediate
 * of a write, the arguments ranks must agree on, what each rank publishes
 * at start-up.  No functions: every level of runtime/ may include it.
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
#ifndef RTOPO_WIRE_H
#define RTOPO_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include "tl.h"

#define RTOPO__SLOT_BITS   15
#define RTOPO__MAX_SLOTS   (1u << RTOPO__SLOT_BITS)
#define RTOPO__MAX_PIECES  65536u
#define RTOPO__IMM(slot, last, piece) \
    (((uint32_t)(slot) << 17) | ((uint32_t)(last) << 16) | (uint32_t)(piece))
#define RTOPO__IMM_SLOT(imm)  ((imm) >> 17)
#define RTOPO__IMM_LAST(imm)  (((imm) >> 16) & 1u)
#define RTOPO__IMM_PIECE(imm) ((imm) & 0xffffu)
/* A window's id, as RTR tells it to the writer: slot index (15 bits) and
 * a random key (17 bits) drawn when the window opens.  The writer sends
 * RTOPO__IMM_OF(id, ...): the key XORed into the last and piece bits, so
 * an immediate made without the id lands on a random piece, which the
 * receiver refuses (rtopo__slot_open, engine.c). */
#define RTOPO__SLOT_INDEX(id) ((id) & (RTOPO__MAX_SLOTS - 1u))
#define RTOPO__SLOT_KEY(id)   ((uint32_t)(id) >> RTOPO__SLOT_BITS)
#define RTOPO__IMM_OF(id, last, piece) \
    (RTOPO__IMM(RTOPO__SLOT_INDEX(id), last, piece) ^ RTOPO__SLOT_KEY(id))

enum rtopo__msg_type {
    RTOPO__MSG_EAGER = 1,
    RTOPO__MSG_RTR,
    RTOPO__MSG_CREDIT,
    RTOPO__MSG_ABORT,       /* the job is failed: every rank stops */
    RTOPO__MSG_HELLO,       /* connection wire-up at topology creation */
    RTOPO__MSG_BARRIER,
    RTOPO__MSG_PROBE,       /* an operation waits: its arguments (probe.c) */
    RTOPO__MSG_ACK,         /* flow control: operations started (seq) */
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
    uint16_t piece;      /* a piece of rtopo_topo_sub: its keep mask, folded
                            (topo_api.c); 0: a topology of its own */
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
    uint32_t xfer;       /* BARRIER: round; ABORT, PROBE: barriers the
                            sender completed */
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
    int32_t status;      /* ABORT; PROBE: the sender's call failed with it */
    uint64_t unit;       /* RTR staged: bytes per slot; BARRIER: ops started */
    rtopo__rkey_t rkey;  /* RTR */
    uint64_t roff;       /* RTR: offset of the window in rkey's region */
    int32_t culprit;     /* ABORT: rank whose messages disagreed, or -1 */
    uint32_t ntopos;     /* ABORT, BARRIER, HELLO, PROBE: topologies created */
    rtopo__opdesc_t desc;/* ABORT, PROBE: sender's arguments; HELLO: topology */
} rtopo__msg_t;

#define RTOPO__MSG_HDR offsetof(rtopo__msg_t, slot)
#define RTOPO__MSG_LEN(m) ((m)->type == RTOPO__MSG_EAGER ? RTOPO__MSG_HDR : sizeof(rtopo__msg_t))

/* what each rank publishes at start-up */
typedef struct rtopo__peer_info {
    char addr[RTOPO__TL_ADDR_MAX];
    uint32_t addr_len;
    char host[64];
    char transport[64];
    uint64_t eager_limit;
    uint64_t chunk_size;
    int64_t pipeline_depth;
    uint64_t shm_ring_size;  /* RTOPO_SHM_RING_SIZE */
    uint64_t token;      /* random, known only through the bootstrap: every
                            control message carries its sender's token, so
                            a process outside the job cannot forge one */
} rtopo__peer_info_t;

#endif
