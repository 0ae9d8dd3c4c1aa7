/*
 * engine.c - progress: transport events, control messages, waiting.
 *
 * Dispatch: a control message goes to the handler registered for its type
 * (rtopo__am_set), a completion to the callback of the context it was
 * posted with (rtopo__comp_t), a write with immediate to the owner of its
 * window slot (rtopo__slot_open).  The engine knows no collective.
 *
 * Control sends are tracked: each is posted with a completion and counted
 * against its owner until the transport reports it done, so an owner
 * (an operation) completes only once nothing it sent is still inside this
 * process.  A message the transport cannot take yet (a connection still
 * being set up, a full queue) waits in its peer's own queue: one slow peer
 * never holds back traffic to the others.
 *
 * Waiting spins on the completion queue for RTOPO_SPIN_US after the last
 * event, then sleeps in the transport's wait() in slices of at most 20 ms,
 * asking the bootstrap between slices whether a rank died (with
 * RTOPO_WAIT=poll it never sleeps, and asks every 20 ms).  Providers move
 * RMA data only while the target polls, so every wait keeps polling.  With
 * more ranks on the host than processors, an empty poll yields the
 * processor first (the transport's poll may do it: attr.poll_yields).
 * Otherwise the spin polls without yielding for its first
 * RTOPO__WAIT_YIELD_NS only, and yields after each empty poll from then
 * on: the processors may be taken by other work than this job's, and
 * the rank this one waits for may then be the one that wants this
 * processor (on a free processor the yield returns at once).
 */
#include "config.h"
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "engine.h"

#define RTOPO__EV_BATCH 32
#define RTOPO__WAIT_SLICE_MS 20
/* empty polls between two readings of the clock while waiting */
#define RTOPO__WAIT_CLOCK_POLLS 8
/* a wait's spin yields the processor after each empty poll once it has
 * found nothing for this long */
#define RTOPO__WAIT_YIELD_NS 20000ull

/* ---- registration ------------------------------------------------------ */

void rtopo__am_set(rtopo_ctx_t *ctx, int type, rtopo__am_fn fn)
{
    ctx->am[type] = fn;
}

void rtopo__hook_add(rtopo_ctx_t *ctx, rtopo__hook_fn fn)
{
    if (ctx->nhooks < RTOPO__MAX_HOOKS)
        ctx->hooks[ctx->nhooks++] = fn;
}

void rtopo__on_peer_lost(rtopo_ctx_t *ctx, rtopo__peer_lost_fn fn)
{
    ctx->peer_lost = fn;
}

/* splitmix64: slot indexes and keys from a seed of getrandom(), so that
 * nobody outside the process can tell which windows are open or what their
 * writers' immediates look like */
static uint64_t rtopo__slot_rand(rtopo_ctx_t *ctx)
{
    uint64_t z = (ctx->slot_rng += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A window takes a free slot at random and a fresh 17-bit key; its writer
 * gets both in the id (wire.h, RTOPO__IMM_OF). */
int rtopo__slot_open(rtopo_ctx_t *ctx, rtopo__imm_fn fn, void *owner, int idx, int peer,
                     uint32_t *id_p)
{
    uint64_t r;
    uint32_t slot, j;

    if (ctx->nslot_free == 0)
        return rtopo__error(RTOPO_ERR_NOMEM, "more than %u windows open", RTOPO__MAX_SLOTS);
    r = rtopo__slot_rand(ctx);
    j = (uint32_t)(r % ctx->nslot_free);
    slot = ctx->slot_free[j];
    ctx->slot_free[j] = ctx->slot_free[--ctx->nslot_free];
    ctx->slots[slot].fn = fn;
    ctx->slots[slot].owner = owner;
    ctx->slots[slot].idx = idx;
    ctx->slots[slot].peer = peer;
    ctx->slots[slot].key = (uint32_t)(r >> 40) & ((1u << (32 - RTOPO__SLOT_BITS)) - 1u);
    *id_p = slot | (ctx->slots[slot].key << RTOPO__SLOT_BITS);
    return RTOPO_OK;
}

/* After a failure a peer may still write to the old slot: reuse 0 closes
 * it for good rather than handing it to a later operation. */
void rtopo__slot_close(rtopo_ctx_t *ctx, uint32_t id, int reuse)
{
    uint32_t slot = RTOPO__SLOT_INDEX(id);

    ctx->slots[slot].fn = NULL;
    ctx->slots[slot].owner = NULL;
    if (reuse)
        ctx->slot_free[ctx->nslot_free++] = slot;
}

/* A write with immediate landed.  The transport raises TL_EV_IMM only for
 * a remote write into a region registered here (tl.h); its window must be
 * open, written by the rank it was opened to (where the transport names
 * the writer), and the immediate, once its key is taken out, must name a
 * piece the window expects.  Anything else is dropped and counted. */
static void rtopo__on_imm_ev(rtopo_ctx_t *ctx, const rtopo__tl_event_t *ev)
{
    uint32_t slot = RTOPO__IMM_SLOT(ev->imm);
    const char *why = NULL;

    if (!ctx->slots[slot].fn) {
        rtopo__debug("write for closed window slot %u", slot);
        return;
    }
    if (ev->peer >= 0 && ev->peer != ctx->slots[slot].peer)
        why = "from another rank than the window's writer";
    else if (!ctx->slots[slot].fn(ctx->slots[slot].owner, ctx->slots[slot].idx,
                                  ev->imm ^ ctx->slots[slot].key, ev->len))
        why = "for no piece the window expects";
    if (why && !ctx->forged++)
        rtopo__warn("dropping a write with immediate %s (rank %d); further ones "
                    "are dropped silently", why, ev->peer);
}

/* ---- tracked control messages ------------------------------------------ */

static rtopo__cmsg_t *rtopo__cmsg_get(rtopo_ctx_t *ctx)
{
    rtopo__cmsg_t *c = ctx->cmsg_free;

    if (c) {
        ctx->cmsg_free = c->next;
        return c;
    }
    c = malloc(sizeof(*c) + ctx->ctrl_size);
    if (c) {
        c->all = ctx->cmsg_all;
        ctx->cmsg_all = c;
    }
    return c;
}

static void rtopo__cmsg_put(rtopo_ctx_t *ctx, rtopo__cmsg_t *c)
{
    c->next = ctx->cmsg_free;
    ctx->cmsg_free = c;
}

static void rtopo__cmsg_done(rtopo__comp_t *comp, int status, int peer, const char *msg)
{
    rtopo__cmsg_t *c = rtopo__container_of(comp, rtopo__cmsg_t, comp);
    rtopo__track_t *t = c->track, *k = c->kept;

    (void)peer;
    if (status && t && !t->status) {
        t->status = status;
        rtopo__debug("control message to rank %d failed: %s", c->peer, msg ? msg : "");
    }
    rtopo__cmsg_put(c->ctx, c);
    if (k) {
        if (status && !k->status)
            k->status = status;
        k->out--;
        if (k->done)
            k->done(k);
    }
    if (t) {
        t->out--;
        if (t->done)
            t->done(t);
    }
}

static int rtopo__cmsg_post(rtopo_ctx_t *ctx, rtopo__cmsg_t *c)
{
    if (c->payload)
        return ctx->tlops->sendv(ctx->tl, c->peer, c->buf, c->len - c->plen, c->payload,
                                 c->plen, &c->comp);
    return ctx->tlops->send(ctx->tl, c->peer, c->buf, c->len, &c->comp);
}

static void rtopo__pq_push(rtopo_ctx_t *ctx, rtopo__cmsg_t *c)
{
    rtopo__peerq_t *q = &ctx->pq[c->peer];

    c->next = NULL;
    if (q->tail)
        q->tail->next = c;
    else
        q->head = c;
    q->tail = c;
    if (!q->queued) {
        q->queued = 1;
        ctx->pq_list[ctx->npq++] = c->peer;
    }
}

static void rtopo__peer_failed(rtopo_ctx_t *ctx, int peer, int status, const char *why);

/* hands queued messages to the transport, peer by peer, each in order */
static int rtopo__pq_flush(rtopo_ctx_t *ctx)
{
    int i = 0, n = 0, peer, st;
    rtopo__peerq_t *q;
    rtopo__cmsg_t *c;

    while (i < ctx->npq) {
        peer = ctx->pq_list[i];
        q = &ctx->pq[peer];
        while ((c = q->head)) {
            st = rtopo__cmsg_post(ctx, c);
            if (st == RTOPO_ERR_BUSY)
                break;
            q->head = c->next;
            if (!q->head)
                q->tail = NULL;
            n++;
            if (st) {
                rtopo__cmsg_done(&c->comp, st, peer, rtopo_last_error());
                rtopo__peer_failed(ctx, peer, st, "control message failed");
            }
        }
        if (!q->head) {
            q->queued = 0;
            ctx->pq_list[i] = ctx->pq_list[--ctx->npq];
        } else {
            i++;
        }
    }
    return n;
}

/* A dead peer: its queued messages complete with an error, and the layer
 * above (job.c) hears of it. */
static void rtopo__peer_failed(rtopo_ctx_t *ctx, int peer, int status, const char *why)
{
    rtopo__peerq_t *q = &ctx->pq[peer];
    rtopo__cmsg_t *c;

    while ((c = q->head)) {
        q->head = c->next;
        rtopo__cmsg_done(&c->comp, RTOPO_ERR_PEER, peer, "peer failed");
    }
    q->tail = NULL;
    if (ctx->peer_lost)
        ctx->peer_lost(ctx, peer, status, why);
}

int rtopo__check_failures(rtopo_ctx_t *ctx)
{
    int rank = -1, ret;

    ret = rtopo__boot_poll_failure(ctx->boot, &rank);
    if (ret > 0)
        rtopo__peer_failed(ctx, rank, RTOPO_ERR_PEER, "reported by the launcher");
    return ctx->failed;
}

/* Up to this many ranks every rank tells, in a bitmap over the ranks,
 * whose addresses it cannot reach (size/8 bytes from each rank, only in a
 * job where some rank found such an address); in larger jobs only the
 * first one (the other ends of the rest find out as their peer fails). */
#define RTOPO__REACH_BITMAP_MAX 1024

/* this rank's own address in print, "" when the transport cannot tell */
static void rtopo__addr_text(rtopo_ctx_t *ctx, char text[RTOPO__TL_ADDR_TEXT])
{
    const void *blob = ctx->peers[ctx->rank].addr;
    size_t len = ctx->peers[ctx->rank].addr_len;
    uint8_t bad;

    text[0] = '\0';
    if (RTOPO__TL_HAS(ctx->tlops, addr_check))
        ctx->tlops->addr_check(ctx->tl, 1, &ctx->rank, &blob, &len, text, &bad);
}

int rtopo__reach_init(rtopo_ctx_t *ctx)
{
    struct { int32_t count, first; } me = { 0, -1 }, *all = NULL;
    size_t n = (size_t)ctx->size, nb = n <= RTOPO__REACH_BITMAP_MAX ? (n + 7) / 8 : 0;
    uint8_t *bits = NULL, *allbits = NULL, *bad = NULL;
    const void **blob = NULL;
    size_t *len = NULL;
    char *text = NULL;
    int *peer = NULL;
    int r, m = 0, i, st, any = 0;

    /* a job in one network stack reaches every address (the same on
     * every rank: the bootstrap found it out in one allgather) */
    if (ctx->size < 2 || ctx->boot->one_stack)
        return RTOPO_OK;
    st = RTOPO_ERR_NOMEM;
    if (!(all = calloc(n, sizeof(*all))) || !(bits = calloc(nb ? nb : 1, 1)) ||
        !(peer = malloc(n * sizeof(*peer))) || !(blob = malloc(n * sizeof(*blob))) ||
        !(len = malloc(n * sizeof(*len))) || !(bad = calloc(n, 1)) ||
        !(text = malloc(n * RTOPO__TL_ADDR_TEXT)))
        goto out;
    /* the peers outside this network stack, all at once, from the next
     * rank on: where the transport checks one rank of each address,
     * the ranks of a host do not all pick the same one */
    for (i = 1; i < ctx->size; i++)
        if (!ctx->boot->local[r = (ctx->rank + i) % ctx->size]) {
            peer[m] = r;
            blob[m] = ctx->peers[r].addr;
            len[m++] = ctx->peers[r].addr_len;
        }
    if (m && RTOPO__TL_HAS(ctx->tlops, addr_check) &&
        (st = ctx->tlops->addr_check(ctx->tl, m, peer, blob, len, text, bad)))
        goto out;
    for (i = 0; i < m; i++) {
        if (!bad[i])
            continue;
        r = peer[i];
        if (!me.count++) {
            me.first = r;
            rtopo__info("rank %d on %s cannot reach the address %s of rank %d on %s: %s",
                        ctx->rank, ctx->peers[ctx->rank].host,
                        text + (size_t)i * RTOPO__TL_ADDR_TEXT, r, ctx->peers[r].host,
                        rtopo_last_error());
        }
        if (nb)
            bits[r / 8] |= (uint8_t)(1u << (r % 8));
    }
    if ((st = rtopo__boot_allgather(ctx->boot, &me, all, sizeof(me))))
        goto out;
    for (r = 0; r < ctx->size; r++)
        any |= all[r].count > 0;
    if (!any)
        goto out;
    st = RTOPO_ERR_NOMEM;
    if (!(ctx->unreached_by = calloc(n, 1)) || (nb && !(allbits = malloc(n * nb))))
        goto out;
    if (nb && (st = rtopo__boot_allgather(ctx->boot, bits, allbits, nb)))
        goto out;
    st = RTOPO_OK;
    for (r = 0; r < ctx->size; r++)
        if (r != ctx->rank)
            ctx->unreached_by[r] = nb ? (allbits[(size_t)r * nb + (size_t)ctx->rank / 8] >>
                                         (ctx->rank % 8)) & 1
                                      : all[r].first == ctx->rank;
out:
    free(all);
    free(bits);
    free(allbits);
    free(bad);
    free(peer);
    free(blob);
    free(len);
    free(text);
    return st;
}

int rtopo__connect_peer(rtopo_ctx_t *ctx, int peer)
{
    char text[RTOPO__TL_ADDR_TEXT];
    int st;

    if (ctx->connected[peer])
        return RTOPO_OK;
    st = ctx->tlops->connect(ctx->tl, peer, ctx->peers[peer].addr,
                             ctx->peers[peer].addr_len);
    /* the peer cannot reach this rank's address: it fails its end of
     * the connection, and so does this rank, rather than wait for it */
    if (st == RTOPO_OK && ctx->unreached_by && ctx->unreached_by[peer]) {
        rtopo__addr_text(ctx, text);
        return rtopo__error(RTOPO_ERR_TRANSPORT, "rank %d on %s cannot connect to rank %d "
                            "on %s: rank %d found at start-up that it cannot reach the "
                            "address %s that this rank published (its own error says why)",
                            ctx->rank, ctx->peers[ctx->rank].host, peer,
                            ctx->peers[peer].host, peer, text[0] ? text : "(not printable)");
    }
    if (st == RTOPO_OK)
        ctx->connected[peer] = 1;
    else if (st != RTOPO_ERR_BUSY && st != RTOPO_ERR_NOMEM) {
        /* both ends by rank and host: the hosts tell a wrong address */
        char why[200];

        snprintf(why, sizeof(why), "%s", rtopo_last_error());
        st = rtopo__error(st, "rank %d on %s cannot connect to rank %d on %s: %s",
                          ctx->rank, ctx->peers[ctx->rank].host, peer,
                          ctx->peers[peer].host, why);
    }
    return st;
}

/* The message is copied (its payload too, unless kept says it stays
 * valid); the transport completes it later and the owner's track counts
 * it until then (track NULL: nobody waits).  Where the transport takes a
 * message in pieces (sendv), the payload is never joined to the header
 * here: the transport copies both at once, or sends a kept payload from
 * where it lies. */
/* a message's header as it travels: one of two constant sizes, copied
 * without a string move's start-up cost */
static inline void rtopo__msg_copy(rtopo__msg_t *h, const rtopo__msg_t *msg)
{
    if (msg->type == RTOPO__MSG_EAGER)
        memcpy(h, msg, RTOPO__MSG_HDR);
    else
        memcpy(h, msg, sizeof(*h));
}

int rtopo__ctrl_post(rtopo_ctx_t *ctx, int peer, const rtopo__msg_t *msg, size_t hlen,
                     const void *payload, size_t plen, rtopo__track_t *track,
                     rtopo__track_t *kept)
{
    rtopo__msg_t *h;
    rtopo__cmsg_t *c;
    int st;

    c = rtopo__cmsg_get(ctx);
    if (!c)
        return rtopo__error(RTOPO_ERR_NOMEM, "control message to rank %d", peer);
    c->comp.cb = rtopo__cmsg_done;
    c->ctx = ctx;
    c->track = track;
    c->kept = NULL;
    c->payload = NULL;
    c->plen = 0;
    c->peer = peer;
    c->len = hlen + plen;
    h = (rtopo__msg_t *)c->buf;
    rtopo__msg_copy(h, msg);
    h->src = ctx->rank;
    h->auth = ctx->peers[ctx->rank].token;
    if (kept && RTOPO__TL_HAS(ctx->tlops, sendv) && plen) {
        c->kept = kept;
        c->payload = payload;
        c->plen = plen;
        kept->out++;
    } else if (plen) {
        memcpy(c->buf + hlen, payload, plen);
    }
    if (track)
        track->out++;
    if (!ctx->pq[peer].head) {
        st = rtopo__cmsg_post(ctx, c);
        if (st == RTOPO_OK)
            return RTOPO_OK;
        if (st != RTOPO_ERR_BUSY) {
            if (track)
                track->out--;
            if (c->kept)
                kept->out--;
            rtopo__cmsg_put(ctx, c);
            return st;
        }
    }
    rtopo__pq_push(ctx, c);
    return RTOPO_OK;
}

int rtopo__ctrl_sendv(rtopo_ctx_t *ctx, int peer, const rtopo__msg_t *msg,
                      const void *payload, size_t plen, rtopo__track_t *track,
                      rtopo__track_t *kept)
{
    size_t hlen = RTOPO__MSG_LEN(msg);
    rtopo__msg_t *h;
    int st;

    if (hlen + plen > ctx->ctrl_size)
        return rtopo__error(RTOPO_ERR_INVAL, "control message of %zu bytes", hlen + plen);
    /* where the transport delivers small messages on its own, they need
     * no tracking: done once handed over */
    if (rtopo__ctrl_nowait(ctx, peer, hlen + plen)) {
        h = (rtopo__msg_t *)ctx->msgbuf;
        rtopo__msg_copy(h, msg);
        h->src = ctx->rank;
        h->auth = ctx->peers[ctx->rank].token;
        if (RTOPO__TL_HAS(ctx->tlops, sendv)) {
            st = ctx->tlops->sendv(ctx->tl, peer, h, hlen, payload, plen, NULL);
        } else {
            if (plen)
                memcpy(ctx->msgbuf + hlen, payload, plen);
            st = ctx->tlops->send(ctx->tl, peer, h, hlen + plen, NULL);
        }
        if (st != RTOPO_ERR_BUSY)
            return st;
    }
    return rtopo__ctrl_post(ctx, peer, msg, hlen, payload, plen, track, kept);
}

int rtopo__ctrl_send(rtopo_ctx_t *ctx, int peer, const rtopo__msg_t *msg,
                     const void *payload, size_t plen, rtopo__track_t *track)
{
    return rtopo__ctrl_sendv(ctx, peer, msg, payload, plen, track, NULL);
}

/* ---- progress ---------------------------------------------------------- */

static void rtopo__on_ctrl(rtopo_ctx_t *ctx, const void *data, size_t len)
{
    const rtopo__msg_t *m = data;

    if (len < RTOPO__MSG_HDR || len < RTOPO__MSG_LEN(m)) {
        rtopo__warn("dropping a runt control message of %zu bytes", len);
        return;
    }
    /* a message not from a rank of this job never reaches a handler */
    if (m->src < 0 || m->src >= ctx->size || m->auth != ctx->peers[m->src].token) {
        if (!ctx->forged++)
            rtopo__warn("dropping a control message that no rank of this job sent "
                        "(claims rank %d); further ones are dropped silently", m->src);
        return;
    }
    if (m->type >= RTOPO__MSG_COUNT || !ctx->am[m->type]) {
        rtopo__warn("dropping control message type %d from rank %d", m->type, m->src);
        return;
    }
    ctx->am[m->type](ctx, m, len);
}

static void rtopo__on_error(rtopo_ctx_t *ctx, const rtopo__tl_event_t *ev)
{
    if (ev->ctx)
        ((rtopo__comp_t *)ev->ctx)->cb(ev->ctx, ev->status ? ev->status
                                                          : RTOPO_ERR_TRANSPORT,
                                       ev->peer, ev->msg);
    if (ev->peer >= 0 && ev->status == RTOPO_ERR_PEER)
        rtopo__peer_failed(ctx, ev->peer, RTOPO_ERR_PEER, ev->msg);
    else if (!ev->ctx)
        rtopo__warn("transport error (rank %d): %s", ev->peer, ev->msg);
}

int rtopo__progress(rtopo_ctx_t *ctx)
{
    rtopo__tl_event_t ev[RTOPO__EV_BATCH];
    int n, i, total;

    n = ctx->tlops->poll(ctx->tl, ev, RTOPO__EV_BATCH);
    if (n < 0)
        return n;
    for (i = 0; i < n; i++) {
        switch (ev[i].type) {
        case RTOPO__TL_EV_IMM:
            rtopo__on_imm_ev(ctx, &ev[i]);
            break;
        case RTOPO__TL_EV_DROPPED:
            if (!ctx->forged++)
                rtopo__warn("the transport dropped a message that no rank of this job "
                            "sent: %s; further ones are dropped silently", ev[i].msg);
            break;
        case RTOPO__TL_EV_RECV:
            rtopo__on_ctrl(ctx, ev[i].data, ev[i].len);
            break;
        case RTOPO__TL_EV_WRITE_DONE:
        case RTOPO__TL_EV_SEND_DONE:
            if (ev[i].ctx)
                ((rtopo__comp_t *)ev[i].ctx)->cb(ev[i].ctx, RTOPO_OK, ev[i].peer, NULL);
            break;
        case RTOPO__TL_EV_ERROR:
            rtopo__on_error(ctx, &ev[i]);
            break;
        }
    }
    total = n;
    if (ctx->npq)
        total += rtopo__pq_flush(ctx);
    for (i = 0; i < ctx->nhooks; i++)
        ctx->hooks[i](ctx);
    return total;
}

int rtopo__wait(rtopo_ctx_t *ctx, int (*cond)(void *arg), void *arg, uint64_t deadline_ns)
{
    uint64_t spin_ns = (uint64_t)ctx->params.spin_us * 1000, now, last = 0;
    unsigned polls = 0;
    int64_t left_ms;
    int n, yielding = 0;
    /* the spin yields late where no poll yields already, and where the
     * caller did not ask to poll alone (RTOPO_WAIT=poll) */
    const int late = !ctx->yield_idle && !(ctx->oversub && ctx->tlattr.poll_yields) &&
                     !ctx->poll_only;

    /* the condition once per pass, after the pass (and after whatever
     * else may have met it: a check for failures, a sleep) */
    if (cond(arg))
        return RTOPO_OK;
    for (;;) {
        n = rtopo__progress(ctx);
        if (n < 0)
            return n;
        if (cond(arg))
            return RTOPO_OK;
        if (n > 0)
            last = yielding = 0;    /* events: the spin starts again */
        else if (ctx->yield_idle || yielding)
            sched_yield();    /* the rank we wait for may need this processor */
        /* the clock costs as much as an empty poll: read it every few
         * polls, events or not (a stream of messages that never ends the
         * wait still meets the deadline) */
        if (++polls % RTOPO__WAIT_CLOCK_POLLS)
            continue;
        now = rtopo__now_ns();
        if (now >= deadline_ns)
            return RTOPO_ERR_TIMEOUT;
        if (!last) {
            last = now;
            continue;
        }
        if (now >= ctx->next_boot_check_ns) {
            ctx->next_boot_check_ns = now + RTOPO__WAIT_SLICE_MS * 1000000ull;
            rtopo__check_failures(ctx);
            if (cond(arg))
                return RTOPO_OK;
            continue;
        }
        if (late && now - last >= RTOPO__WAIT_YIELD_NS)
            yielding = 1;
        if (ctx->poll_only || now - last < spin_ns)
            continue;
        left_ms = (int64_t)(deadline_ns - now) / 1000000 + 1;
        /* messages still queued for a peer are retried soon, not after a
         * whole slice: the peer's connection may come up any moment (and
         * a lost peer's grace ends soon) */
        if ((ctx->npq || ctx->grace_ns) && left_ms > 1)
            left_ms = 1;
        ctx->tlops->wait(ctx->tl, left_ms < RTOPO__WAIT_SLICE_MS ? (int)left_ms
                                                                 : RTOPO__WAIT_SLICE_MS);
        /* a slice with no event still counts as a sleep: go on blocking */
        last = rtopo__now_ns() - spin_ns;
        ctx->next_boot_check_ns = 0;   /* check right after a sleep */
        if (cond(arg))
            return RTOPO_OK;
    }
}

/* ---- the progress thread ----------------------------------------------- */

/* RTOPO_PROGRESS=thread: while nonblocking operations are in flight and
 * no caller is inside the library, the thread sleeps in the transport's
 * wait() and drives progress; with nothing in flight it sleeps on a
 * condition variable.  Every entry point holds ctx->lock. */
static void *rtopo__thread_main(void *arg)
{
    rtopo_ctx_t *ctx = arg;

    pthread_mutex_lock(&ctx->lock);
    while (!ctx->thread_stop) {
        if (!ctx->active && !ctx->npq && !ctx->track.out && !ctx->zombies) {
            pthread_cond_wait(&ctx->work, &ctx->lock);
            continue;
        }
        if (rtopo__progress(ctx) > 0)
            continue;
        /* sleep briefly in the transport, then let callers in */
        ctx->tlops->wait(ctx->tl, 2);
        pthread_mutex_unlock(&ctx->lock);
        sched_yield();
        pthread_mutex_lock(&ctx->lock);
    }
    pthread_mutex_unlock(&ctx->lock);
    return NULL;
}

int rtopo__thread_start(rtopo_ctx_t *ctx)
{
    int ret;

    ctx->thread_stop = 0;
    ret = pthread_create(&ctx->thread, NULL, rtopo__thread_main, ctx);
    if (ret) {
        errno = ret;
        return rtopo__error(RTOPO_ERR_NOMEM, "progress thread: %m");
    }
    ctx->thread_on = 1;
    return RTOPO_OK;
}

/* called with ctx->lock held */
void rtopo__thread_stop(rtopo_ctx_t *ctx)
{
    if (!ctx->thread_on)
        return;
    ctx->thread_stop = 1;
    pthread_cond_signal(&ctx->work);
    pthread_mutex_unlock(&ctx->lock);
    pthread_join(ctx->thread, NULL);
    pthread_mutex_lock(&ctx->lock);
    ctx->thread_on = 0;
}

void rtopo__thread_kick(rtopo_ctx_t *ctx)
{
    if (ctx->thread_on)
        pthread_cond_signal(&ctx->work);
}

/* ---- set-up ------------------------------------------------------------ */

int rtopo__engine_init(rtopo_ctx_t *ctx)
{
    ctx->pq = calloc((size_t)ctx->size, sizeof(*ctx->pq));
    ctx->pq_list = calloc((size_t)ctx->size, sizeof(*ctx->pq_list));
    ctx->msgbuf = malloc(ctx->ctrl_size);
    if (!ctx->pq || !ctx->pq_list || !ctx->msgbuf)
        return RTOPO_ERR_NOMEM;
    if (getrandom(&ctx->slot_rng, sizeof(ctx->slot_rng), 0) != (ssize_t)sizeof(ctx->slot_rng))
        return rtopo__error(RTOPO_ERR_INVAL, "getrandom: %m");
    return RTOPO_OK;
}

void rtopo__engine_fini(rtopo_ctx_t *ctx)
{
    rtopo__cmsg_t *c;

    /* queued, free, and those a closed transport never completed (a
     * failed job's) */
    while ((c = ctx->cmsg_all)) {
        ctx->cmsg_all = c->all;
        free(c);
    }
    free(ctx->pq);
    free(ctx->pq_list);
    free(ctx->msgbuf);
}
