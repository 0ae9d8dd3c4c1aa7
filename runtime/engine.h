/*
 * engine.h - progress (engine.c): transport events, control messages
 * tracked until the transport completes them, per-peer queues, window
 * slots, waiting, the progress thread, connection set-up, and the
 * reporting of lost peers to the layer above.
 */
#ifndef RTOPO_ENGINE_H
#define RTOPO_ENGINE_H

#include "ctx.h"

struct rtopo__cmsg {
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
};

struct rtopo__peerq {     /* control messages the tl has not taken */
    rtopo__cmsg_t *head, *tail;
    int queued;                   /* listed in ctx->pq_list */
};

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
/* rtopo__ctrl_sendv's tracked way, for a message of hlen header bytes
 * that did not go out untracked: a copy the transport completes later,
 * or queued behind the peer's earlier ones */
int rtopo__ctrl_post(rtopo_ctx_t *ctx, int peer, const rtopo__msg_t *msg, size_t hlen,
                     const void *payload, size_t plen, rtopo__track_t *track,
                     rtopo__track_t *kept);

/* a message of len bytes may go to the transport untracked: the
 * transport delivers one so small on its own, and nothing queued for peer
 * must go before it */
static inline int rtopo__ctrl_nowait(const rtopo_ctx_t *ctx, int peer, size_t len)
{
    return len <= ctx->tlattr.send_nowait_max && !ctx->pq[peer].head;
}

/* rtopo__ctrl_sendv of an EAGER message whose src and auth already name
 * this rank: a small one goes to the transport as it is, without a copy
 * of its header first; the others take rtopo__ctrl_sendv's way */
static inline int rtopo__ctrl_eager(rtopo_ctx_t *ctx, int peer, const rtopo__msg_t *msg,
                                    const void *payload, size_t plen,
                                    rtopo__track_t *track, rtopo__track_t *kept)
{
    size_t len = RTOPO__MSG_HDR + plen;
    int st;

    if (rtopo__ctrl_nowait(ctx, peer, len) && len <= ctx->ctrl_size &&
        RTOPO__TL_HAS(ctx->tlops, sendv)) {
        st = ctx->tlops->sendv(ctx->tl, peer, msg, RTOPO__MSG_HDR, payload, plen, NULL);
        if (st != RTOPO_ERR_BUSY)
            return st;
        return rtopo__ctrl_post(ctx, peer, msg, RTOPO__MSG_HDR, payload, plen, track, kept);
    }
    return rtopo__ctrl_sendv(ctx, peer, msg, payload, plen, track, kept);
}
int rtopo__connect_peer(rtopo_ctx_t *ctx, int peer);
/* At start-up, after the addresses are exchanged, on every rank alike:
 * which peers found that they cannot reach this rank's address (one
 * allgather of the bootstrap, a second one only when some rank found
 * such an address), so that both ends of such a pair fail at their
 * connection (fills ctx->unreached_by). */
int rtopo__reach_init(rtopo_ctx_t *ctx);
/* Asks the bootstrap whether the launcher reported a dead rank (cheap
 * enough to run every time the engine is about to block); a lost peer is
 * reported to the layer above through rtopo__on_peer_lost. */
int rtopo__check_failures(rtopo_ctx_t *ctx);
void rtopo__on_peer_lost(rtopo_ctx_t *ctx, rtopo__peer_lost_fn fn);
/* opens a window written by `peer`; *id_p: its id (RTOPO__SLOT_INDEX/KEY) */
int rtopo__slot_open(rtopo_ctx_t *ctx, rtopo__imm_fn fn, void *owner, int idx, int peer,
                     uint32_t *id_p);
void rtopo__slot_close(rtopo_ctx_t *ctx, uint32_t slot, int reuse);
int rtopo__thread_start(rtopo_ctx_t *ctx);
void rtopo__thread_stop(rtopo_ctx_t *ctx);
void rtopo__thread_kick(rtopo_ctx_t *ctx);

#endif
