/*
 * job.h - job-wide control (job.c): connection wire-up along overlay
 * links, the failure bookkeeping (lost peers, ABORT with the arguments
 * that differ, the failed job's hook for the layer above), the barrier,
 * the count of operations started.
 */
#ifndef RTOPO_JOB_H
#define RTOPO_JOB_H

#include "ctx.h"

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
/* the layer above hears of a failed job through fn, and names the
 * arguments of its operations in flight through desc */
void rtopo__on_job_failed(rtopo_ctx_t *ctx, rtopo__job_failed_fn fn, rtopo__op_desc_fn desc);
void rtopo__flush_job(rtopo_ctx_t *ctx, int limit_ms);
/* the name of the call an operation descriptor stands for ("bcast") */
const char *rtopo__desc_call(const rtopo__opdesc_t *d);
int rtopo__desc_diff(const rtopo__opdesc_t *a, const rtopo__opdesc_t *b, char *out,
                     size_t n);
/* A mismatch is found by the rank that receives a foreign message; the
 * ranks' own arguments arrive in the ABORTs that follow within a round
 * trip: a call that fails with a mismatch not yet named waits up to
 * RTOPO__NAMING_MS for them, so the caller learns what differs. */
#define RTOPO__NAMING_MS 300
void rtopo__await_named(rtopo_ctx_t *ctx, int limit_ms);

#endif
