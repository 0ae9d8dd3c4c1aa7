/*
 * fuzz_tl.h - what the control-message harnesses put in place of the
 * transports and of the clock (fuzz_tl.c), and what they share around
 * them: the job's settings, the context, messages read from the input.
 *
 * The harnesses link the library's sources without transports/tl.c and
 * base/clock.c:
 *  - the transport list holds one in-memory transport.  It delivers what
 *    the harness queues (control messages, write immediates, errors) at
 *    the next poll, hands each received message over in a buffer of
 *    exactly its length (reading past it is caught by the sanitizer),
 *    completes every send and write, and answers what a rank needs
 *    answered to go on: a HELLO comes back from the neighbour it went to,
 *    a BARRIER from the rank the dissemination barrier expects it from.
 *    It checks what the engine hands it: peers in range, control messages
 *    within the control size, writes inside their registration;
 *  - the clock is virtual: every reading advances it by FZ_TICK_NS, so
 *    that waits and timeouts cost no real time and runs are deterministic.
 */
#ifndef RTOPO_FUZZ_TL_H
#define RTOPO_FUZZ_TL_H

#include <stddef.h>
#include <stdint.h>
#include "rtopo_int.h"
#include "fuzz_common.h"

#define FZ_TICK_NS 1000000ull
/* where the virtual clock starts each input */
#define FZ_EPOCH_NS 1000000000000ull

/* the virtual clock rtopo__now_ns() reads (and advances) */
extern uint64_t fz_now;

/* the context whose peers' tokens answers carry (NULL: no answers) */
void fz_tl_set_ctx(rtopo_ctx_t *ctx);
/* send_nowait_max the transport reports at its next open */
void fz_tl_set_nowait(size_t n);
/* 1 while a transport is open */
int fz_tl_is_open(void);
/* the open transport's control message size */
size_t fz_tl_ctrl_size(void);
/* events not polled yet */
int fz_tl_pending(void);

/* queues a received control message of len bytes; takes msg (malloc'd) */
void fz_tl_recv(void *msg, size_t len);
/* queues any other event (an immediate, an error) */
void fz_tl_event(const rtopo__tl_event_t *ev);
/* queues the error a transport reports for a lost connection to peer */
void fz_tl_peer_lost(int peer);

/* every rank publishes what this one does; the tokens are the harness's,
 * FZ_TOKEN(rank), this rank's included (arg: the job size, an int *) */
#define FZ_TOKEN(r) (0x5eed000000000000ull | (uint64_t)(r) * 0x10001ull)
int fz_allgather(const void *in, void *out, size_t len, void *arg);

/* the RTOPO_* settings the harnesses run with (and none from outside);
 * level (FUZZ_LOG_LEVEL, from fz_init: info, debug) sets the library's
 * log level, NULL errors only */
void fz_setenv(const char *level);

/* rank of a job of *nranks ranks (*nranks must stay valid while the
 * context lives: the allgather reads it), its transport the in-memory
 * one: rtopo_init must succeed, and answers carry its peers' tokens */
rtopo_ctx_t *fz_tl_ctx_new(int rank, int *nranks);

/* ---- control messages from the input ------------------------------------ */

/* Reads len bytes of the input into a buffer large enough for any field
 * (at least 64 KiB, zeros past what the input holds), to be patched with
 * FZ_SET (fields beyond len are never patched), then handed over with
 * fz_tl_recv_copy. */
rtopo__msg_t *fz_tl_msg_read(fz_in_t *in, size_t len);
/* queues a received message of exactly len bytes, copied: the engine
 * reading past them is caught */
void fz_tl_recv_copy(const void *msg, size_t len);
/* makes the sender a rank of the job (src mod nranks) with its token, so
 * that the message gets past authentication */
void fz_tl_msg_sender(rtopo__msg_t *m, size_t len, const rtopo_ctx_t *ctx);

/* sets field f of the message to v when the message is long enough */
#define FZ_SET(m, len, f, v)                                                  \
    do {                                                                      \
        if (offsetof(rtopo__msg_t, f) + sizeof((m)->f) <= (len))              \
            (m)->f = (v);                                                     \
    } while (0)
#define FZ_GET(m, len, f)                                                     \
    (offsetof(rtopo__msg_t, f) + sizeof((m)->f) <= (len) ? (m)->f : 0)

#endif
