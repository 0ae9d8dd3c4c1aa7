/*
 * rtopo_tool.h - what the tools (rtopo-bench, rtopo-bench-mpi) may see of
 * the engine: the context's rank, size and settings, the bootstrap's
 * barrier and allgather, a topology's schedule description, a request
 * running a hand-made schedule, and raw access to the context's transport
 * for the baseline.  The tools are compiled with the include paths of the
 * layers below the engine and this folder, not runtime/ (Makefile.am):
 * struct rtopo_ctx and the other engine internals stay out of their reach.
 */
#ifndef RTOPO_TOOL_H
#define RTOPO_TOOL_H

#include <stddef.h>
#include <stdint.h>
#include "rtopo.h"
#include "params.h"
#include "rtopo_sched.h"
#include "tl.h"

/* ---- the context ---------------------------------------------------------- */

int rtopo__tool_rank(const rtopo_ctx_t *ctx);
int rtopo__tool_size(const rtopo_ctx_t *ctx);
/* the RTOPO_* settings the context runs with */
const rtopo__params_t *rtopo__tool_params(const rtopo_ctx_t *ctx);
/* the transport's provider, as rtopo-info names it */
const char *rtopo__tool_provider(const rtopo_ctx_t *ctx);

typedef struct rtopo__tool_state {
    int thread_on;      /* RTOPO_PROGRESS=thread: a progress thread runs */
    int poll_only;      /* RTOPO_WAIT=poll: waits never sleep */
    int oversub;        /* more ranks on this host than processors */
    int yield_idle;     /* an empty poll of a wait gives the processor away */
    size_t reg_op_min;  /* RTOPO_REG_PER_OP: from this size up; 0: never */
    int rcache_on;      /* registrations of unregistered buffers are cached */
} rtopo__tool_state_t;
void rtopo__tool_state(const rtopo_ctx_t *ctx, rtopo__tool_state_t *st);

/* The bootstrap's barrier and allgather (len bytes from every rank, in
 * rank order): outside the engine, for use between operations. */
int rtopo__tool_barrier(rtopo_ctx_t *ctx);
int rtopo__tool_allgather(rtopo_ctx_t *ctx, const void *mine, void *all, size_t len);

/* ---- topologies and schedules --------------------------------------------- */

/* the description its schedules are built from, the cost model its "auto"
 * choices use, this rank's label in it, and the job rank of label r */
const rtopo__tdesc_t *rtopo__tool_desc(const rtopo_topo_t *t);
const rtopo__model_t *rtopo__tool_model(const rtopo_topo_t *t);
int rtopo__tool_me(const rtopo_topo_t *t);
int rtopo__tool_job_rank(const rtopo_topo_t *t, int r);

/* A persistent request running schedule s (taken, freed with the
 * request) on topology t; tag and bytes name it in mismatch checks. */
int rtopo__tool_sched_req(rtopo_topo_t *t, rtopo__sched_t *s, long tag, const void *sendbuf,
                          size_t sbytes, void *recvbuf, size_t rbytes, rtopo_req_t **req_p);

/* the schedule a request runs (its plan's), NULL when it has none: the
 * rank's share of it (rtopo__sched_own), or the whole graph on a topology
 * set so below */
const rtopo__sched_t *rtopo__tool_req_sched(const rtopo_req_t *req);
/* Plans built on t from now on keep the whole schedule, not the rank's
 * share (tools that simulate the schedule a request runs). */
void rtopo__tool_whole_plans(rtopo_topo_t *t);

/* ---- the raw transport (the baseline) ------------------------------------- */

typedef struct rtopo__tool_raw {
    const struct rtopo__tl_ops *ops;
    struct rtopo__tl *tl;
    const rtopo__tl_attr_t *attr;
    uint64_t spin_ns;   /* RTOPO_SPIN_US: how long a wait polls before blocking */
    int poll_only, yield_idle;
    int rank, size;
} rtopo__tool_raw_t;
/* the context's transport; its events come from the engine's completion
 * queue, so use it only while no operation is in flight */
void rtopo__tool_raw(rtopo_ctx_t *ctx, rtopo__tool_raw_t *raw);
/* makes the transport know peer's address (as the engine does on first use) */
int rtopo__tool_connect(rtopo_ctx_t *ctx, int peer);
/* a registered region: its address, the transport's registration and
 * the key a peer writes into it with */
uint8_t *rtopo__tool_mem_buf(const rtopo_mem_t *m);
struct rtopo__tl_mr *rtopo__tool_mem_mr(const rtopo_mem_t *m);
rtopo__rkey_t rtopo__tool_mem_rkey(const rtopo_mem_t *m);

#endif
