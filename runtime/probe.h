/*
 * probe.h - the check of a waiting operation's arguments against its
 * peers' (probe.c): an operation that has waited RTOPO__PROBE_FIRST_MS
 * without completing tells its peers which call it is in (topology,
 * operation, arguments); a peer compares that with its own call at the
 * same place, now or when it gets there, and fails the job with
 * RTOPO_ERR_MISMATCH when they differ.  Nothing travels while operations
 * complete in time.
 */
#ifndef RTOPO_PROBE_H
#define RTOPO_PROBE_H

#include "ctx.h"

#define RTOPO__PROBE_FIRST_MS 250   /* an operation waits this long before it asks */
#define RTOPO__PROBE_EVERY_MS 400   /* then asks again this often */
#define RTOPO__PROBE_HISTORY  64    /* operations ended here, remembered */
#define RTOPO__PROBE_PENDING  128   /* peers' questions about operations not started */
#define RTOPO__PROBE_FAILED   1u    /* msg flags: the sender's call failed locally */

struct rtopo__probe_ent {
    int32_t src;                /* pending: the rank that asked */
    uint32_t topo_id, seq;
    uint32_t epoch;             /* pending: the asker's barriers completed */
    uint32_t ntopos;            /* pending: the asker's topologies created */
    int used;
    int status;                 /* 0: the call ran; else it failed locally */
    rtopo__opdesc_t desc;
    char msg[160];              /* status: why */
};

struct rtopo__probes {
    unsigned polls;             /* progress passes: the clock is read every few */
    int npending;
    uint32_t hist_next;
    struct rtopo__probe_ent hist[RTOPO__PROBE_HISTORY];
    struct rtopo__probe_ent pending[RTOPO__PROBE_PENDING];
};

int rtopo__probe_init(rtopo_ctx_t *ctx);
void rtopo__probe_fini(rtopo_ctx_t *ctx);
/* asks the peers about operation seq of topology topo_id, whose
 * arguments here are d */
void rtopo__probe_send(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq,
                       const rtopo__opdesc_t *d, const int *peers, int npeers);
/* A collective call failed here before its operation started (an
 * argument error): the call keeps its place on topology t (its seq), and
 * every rank of t hears of it.  Ranks whose call failed alike go on; a
 * rank that made the call (it waits in it, or gets there) fails the job
 * with this status, promptly. */
void rtopo__probe_call_failed(rtopo_ctx_t *ctx, rtopo_topo_t *t, int status,
                              const char *msg);
/* a peer sent a message for operation seq of topology topo_id, which
 * this rank has passed: if its call failed here before it started, the
 * job fails with that failure (1) */
int rtopo__probe_failed_call(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq);
/* an operation ended here (completed or failed): remembered for a while */
void rtopo__probe_ended(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq,
                        const rtopo__opdesc_t *d);
void rtopo__probe_start_check(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq,
                              const rtopo__opdesc_t *d);
/* an operation starts here: questions that came before it are answered */
static inline void rtopo__probe_started(rtopo_ctx_t *ctx, uint32_t topo_id, uint32_t seq,
                                        const rtopo__opdesc_t *d)
{
    if (ctx->probes->npending)
        rtopo__probe_start_check(ctx, topo_id, seq, d);
}

#endif
