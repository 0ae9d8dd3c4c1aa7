/*
 * init.c - rtopo_init and rtopo_finalize: settings, bootstrap, transport,
 * address exchange, then each layer's start (engine, job, executor); at
 * the end, the final barrier and everything torn down in reverse.  The
 * top of runtime/: nothing here is called from inside the library.
 */
#include "config.h"
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include "calib.h"
#include "engine.h"
#include "mem.h"
#include "job.h"
#include "exec.h"
#include "probe.h"
#include "req.h"
#include "topo_api.h"
#include "size.h"
#include "clock.h"
#include "cpus.h"
#include "rtopo_place.h"

/* room for the largest header and an ABORT's reason text */
#define RTOPO__CTRL_HDR (sizeof(rtopo__msg_t) + 128)
/* fields a caller compiled against an older rtopo.h did not have are
 * left at their defaults */
#define RTOPO__CFG_HAS(cfg, field)                                            \
    ((cfg) && (cfg)->size >= offsetof(rtopo_config_t, field) + sizeof((cfg)->field))

const char *rtopo_version(void)
{
    return PACKAGE_VERSION;
}

/* the one live context of this process, if any */
static rtopo_ctx_t *rtopo__live;
static pthread_mutex_t rtopo__live_lock = PTHREAD_MUTEX_INITIALIZER;

int rtopo_rank(const rtopo_ctx_t *ctx)
{
    if (!rtopo__handle_ok(ctx, RTOPO__H_CTX))
        return rtopo__error(RTOPO_ERR_INVAL, "not a live context");
    return ctx->rank;
}

int rtopo_size(const rtopo_ctx_t *ctx)
{
    if (!rtopo__handle_ok(ctx, RTOPO__H_CTX))
        return rtopo__error(RTOPO_ERR_INVAL, "not a live context");
    return ctx->size;
}

/* With more ranks on this machine than processors to run them, the rank
 * a waiting rank waits for may need its processor: every empty poll of a
 * wait then yields (unless the transport's poll yields already).  The
 * machine is the kernel, not the host's name: emulated hosts (network
 * namespaces) share the processors of one. */
static void rtopo__oversub_init(rtopo_ctx_t *ctx)
{
    long ncpu = rtopo__cpus_shared();
    int i, local = 0;

    for (i = 0; i < ctx->size; i++)
        local += ctx->boot->same_kernel[i];
    ctx->oversub = ncpu > 0 && local > ncpu;
    if (ctx->oversub)
        rtopo__info("%d ranks on this machine, %ld processors: waits yield the processor "
                    "between polls", local, ncpu);
}

/* all ranks must agree on the settings that shape the wire protocol */
static int rtopo__check_uniform(rtopo_ctx_t *ctx)
{
    const rtopo__peer_info_t *me = &ctx->peers[ctx->rank];
    int i;

    for (i = 0; i < ctx->size; i++) {
        const rtopo__peer_info_t *p = &ctx->peers[i];
        if (strcmp(p->transport, me->transport))
            return rtopo__error(RTOPO_ERR_MISMATCH, "rank %d opened transport %s, this "
                                "rank (%d) %s: set RTOPO_TRANSPORT alike on every rank", i,
                                p->transport, ctx->rank, me->transport);
        if (p->eager_limit != me->eager_limit || p->chunk_size != me->chunk_size ||
            p->pipeline_depth != me->pipeline_depth)
            return rtopo__error(RTOPO_ERR_MISMATCH,
                                "rank %d runs with RTOPO_EAGER_LIMIT=%llu "
                                "RTOPO_CHUNK_SIZE=%llu RTOPO_PIPELINE_DEPTH=%lld, rank %d "
                                "with %llu/%llu/%lld: set them alike on every rank (an "
                                "unset RTOPO_EAGER_LIMIT takes the transport's default)",
                                i, (unsigned long long)p->eager_limit,
                                (unsigned long long)p->chunk_size,
                                (long long)p->pipeline_depth, ctx->rank,
                                (unsigned long long)me->eager_limit,
                                (unsigned long long)me->chunk_size,
                                (long long)me->pipeline_depth);
        /* in the shared segment's geometry, which shm checks at attach */
        if (p->shm_ring_size != me->shm_ring_size)
            return rtopo__error(RTOPO_ERR_MISMATCH,
                                "rank %d runs with RTOPO_SHM_RING_SIZE=%llu, rank %d with "
                                "%llu: set it alike on every rank", i,
                                (unsigned long long)p->shm_ring_size, ctx->rank,
                                (unsigned long long)me->shm_ring_size);
    }
    return RTOPO_OK;
}

static void rtopo__ctx_free(rtopo_ctx_t *ctx)
{
    rtopo__rcache_fini(ctx);
    if (ctx->tl)
        ctx->tlops->close(ctx->tl);
    rtopo__mem_free_staging(ctx);
    if (ctx->boot)
        rtopo__boot_close(ctx->boot);
    rtopo__early_free(ctx);
    rtopo__engine_fini(ctx);
    rtopo__probe_fini(ctx);
    free(ctx->topos);
    free(ctx->tlast);
    free(ctx->peers);
    free(ctx->connected);
    free(ctx->unreached_by);
    free(ctx->wired);
    free(ctx->hello_in);
    free(ctx->hello_topo);
    free(ctx->hello_desc);
    free(ctx->barrier_ops);
    free(ctx->barrier_ntopos);
    free(ctx->barrier_seen);
    free(ctx->barrier_kind);
    free(ctx->unexp_count);
    free(ctx->slots);
    free(ctx->slot_free);
    pthread_mutex_destroy(&ctx->lock);
    pthread_mutex_destroy(&ctx->rcache.lock);
    pthread_cond_destroy(&ctx->work);
    free(ctx);
}

static void rtopo__eager_pick(rtopo_ctx_t *ctx, const struct rtopo__tl_ops *ops,
                              const char *name, size_t base, rtopo__tl_params_t *tp);

/* RTOPO_TRANSPORT=auto on one machine with more ranks than processors:
 * the eager limit unless the user set one, for jobs of at most this many
 * ranks (each pair's ring is sized from it: 512 KiB a ring at 64 KiB) */
#define RTOPO__OVERSUB_EAGER 65536u
#define RTOPO__OVERSUB_EAGER_RANKS 16

/* RTOPO_TRANSPORT=auto: when every rank runs on one machine, rtopo's
 * shared-memory transport, if it opens on every rank; when the ranks share
 * hosts only in part, the composite backend (transports/multi): shm to the
 * ranks of the same host, the network backend every rank has (verbs, else
 * ofi:tcp) to the others.  Two allgathers, on every rank alike.  1: opened
 * (ctx->tl, ctx->tlops set), 0: not chosen, < 0: the job failed. */
static int rtopo__auto_shm(rtopo_ctx_t *ctx, rtopo__tl_params_t *tp)
{
    struct rtopo__shm_vote {
        uint8_t ok;
        uint8_t nets;      /* bit i: backend i of the list is available */
        uint8_t shares;    /* this rank's host runs another rank too */
        uint8_t oversub;   /* ctx->oversub: its machine runs more ranks than
                              it has processors */
    } me, *all;
    const struct rtopo__tl_ops *shm = rtopo__tl_find("shm"), *ops, *use = shm;
    const uint8_t *local = ctx->boot->same_host;
    char name[48] = "shm";
    int st, r, i, same = ctx->boot->one_host, ok = 1, shared = 0, nets = 0xff, over = 0;

    memset(&me, 0, sizeof(me));
    me.ok = shm && shm->available("shm") != 0;
    me.oversub = (uint8_t)ctx->oversub;
    for (i = 0; i < 8 && (ops = rtopo__tl_get(i)) != NULL; i++)
        if (ops != shm && strcmp(ops->name, "multi") && ops->available(NULL))
            me.nets |= (uint8_t)(1u << i);
    for (r = 0; r < ctx->size; r++)
        me.shares |= r != ctx->rank && local[r];
    if (!(all = calloc((size_t)ctx->size, sizeof(*all)))) {
        st = RTOPO_ERR_NOMEM;
        goto out;
    }
    if ((st = rtopo__boot_allgather(ctx->boot, &me, all, sizeof(me))))
        goto out;
    for (r = 0; r < ctx->size; r++) {
        ok &= all[r].ok;
        nets &= all[r].nets;
        /* some host with two ranks or more: shm has work somewhere */
        shared |= all[r].shares;
        over |= all[r].oversub;
    }
    for (i = 0; !same && i < 8 && (ops = rtopo__tl_get(i)) != NULL; i++)
        if (nets & (1u << i))
            break;
    st = 0;
    if (!ok || (!same && (!shared || !ops)))
        goto out;
    if (!same) {
        snprintf(name, sizeof(name), "multi:%s", strcmp(ops->name, "ofi") ? ops->name
                                                                          : "ofi:tcp");
        if (!(use = rtopo__tl_find(name)))
            goto out;
        tp->peer_local = local;
        rtopo__eager_pick(ctx, use, name, ctx->params.eager_limit, tp);
    } else if (!RTOPO__PARAM_FROM_ENV(&ctx->params, EAGER_LIMIT) &&
               ctx->size <= RTOPO__OVERSUB_EAGER_RANKS && over &&
               ctx->params.eager_limit < RTOPO__OVERSUB_EAGER) {
        /* More ranks than the machine has processors: a window's writer
         * waits for its receiver to run and send the RTR, and a receiver
         * that has not run since the last operation holds back every
         * writer to it (eight ranks on two processors enter a broadcast
         * about 100 us apart), where an eager copy waits for no one.
         * The machine's figure is ctx->oversub (the processors this rank
         * may run on, rtopo__cpus_shared, against the ranks on its
         * kernel), which the waits and the calibration take too; every
         * rank takes the job's (any rank's machine) from the vote, so all
         * agree. */
        ctx->params.eager_limit = RTOPO__OVERSUB_EAGER;
        ctx->ctrl_size = RTOPO__CTRL_HDR + ctx->params.eager_limit;
        tp->ctrl_size = ctx->ctrl_size;
    }
    tp->name = name;
    me.ok = use->open(tp, &ctx->tl) == RTOPO_OK;
    tp->peer_local = NULL;
    if (!me.ok)
        rtopo__info("%s did not open: %s", name, rtopo_last_error());
    if ((st = rtopo__boot_allgather(ctx->boot, &me, all, sizeof(me))))
        goto out;
    for (r = 0; r < ctx->size; r++)
        ok &= all[r].ok;
    if (ok) {
        ctx->tlops = use;
        st = 1;
    } else if (me.ok) {
        use->close(ctx->tl);
    }
    if (!ok)
        ctx->tl = NULL;
out:
    free(all);
    return st;
}

/* The eager limit for a transport about to be opened: RTOPO_EAGER_LIMIT
 * when the user set it, else the backend's own default for `name`, else
 * the table's default (`base`); the control messages the transport is
 * opened for are sized from it. */
static void rtopo__eager_pick(rtopo_ctx_t *ctx, const struct rtopo__tl_ops *ops,
                              const char *name, size_t base, rtopo__tl_params_t *tp)
{
    size_t eager = base;

    if (!RTOPO__PARAM_FROM_ENV(&ctx->params, EAGER_LIMIT) &&
        RTOPO__TL_HAS(ops, eager_default)) {
        size_t d = ops->eager_default(name, RTOPO__MSG_HDR);
        if (d)
            eager = d;
    }
    ctx->params.eager_limit = eager;
    ctx->ctrl_size = RTOPO__CTRL_HDR + eager;
    tp->ctrl_size = ctx->ctrl_size;
}

int rtopo_init(const rtopo_config_t *cfg, rtopo_ctx_t **ctx_p)
{
    rtopo__tl_params_t tp;
    rtopo__peer_info_t me;
    rtopo_ctx_t *ctx;
    const char *transport;
    size_t alen, eager_base;
    char frag[64] = "";
    uint32_t i;
    int st;

    if (ctx_p == NULL)
        return rtopo__error(RTOPO_ERR_INVAL, "ctx pointer is NULL");
    if (cfg && cfg->size < sizeof(size_t))
        return rtopo__error(RTOPO_ERR_INVAL, "cfg->size not set (use RTOPO_CONFIG_INIT)");
    pthread_mutex_lock(&rtopo__live_lock);
    if (rtopo__live) {
        pthread_mutex_unlock(&rtopo__live_lock);
        return rtopo__error(RTOPO_ERR_BUSY, "rtopo is already initialised in this process "
                            "(one context per process: rtopo_finalize it first)");
    }
    ctx = calloc(1, sizeof(*ctx));
    if (!ctx) {
        pthread_mutex_unlock(&rtopo__live_lock);
        return RTOPO_ERR_NOMEM;
    }
    rtopo__live = ctx;
    pthread_mutex_unlock(&rtopo__live_lock);
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_mutex_init(&ctx->rcache.lock, NULL);
    pthread_cond_init(&ctx->work, NULL);
    ctx->failed_rank = -1;
    st = rtopo__params_load(&ctx->params);
    if (st)
        goto err;
    ctx->check_buffers = ctx->params.check_buffers != 0;
    if (strcmp(ctx->params.wait, "block") && strcmp(ctx->params.wait, "poll")) {
        st = rtopo__error(RTOPO_ERR_INVAL, "RTOPO_WAIT=%s is not one of block, poll",
                          ctx->params.wait);
        goto err;
    }
    ctx->poll_only = !strcmp(ctx->params.wait, "poll");
    if (strcmp(ctx->params.reg_per_op, "auto") && strcmp(ctx->params.reg_per_op, "off") &&
        (rtopo__parse_size("RTOPO_REG_PER_OP", ctx->params.reg_per_op, &ctx->reg_op_min) ||
         !ctx->reg_op_min)) {
        st = rtopo__error(RTOPO_ERR_INVAL, "RTOPO_REG_PER_OP=%s is not auto, off or a "
                          "byte count of 1 or more (decimal, optional k, m, g)",
                          ctx->params.reg_per_op);
        goto err;
    }
    if (strcmp(ctx->params.reg_cache, "auto") && strcmp(ctx->params.reg_cache, "off") &&
        (rtopo__parse_size("RTOPO_REG_CACHE", ctx->params.reg_cache,
                           &ctx->rcache.max_bytes) || !ctx->rcache.max_bytes)) {
        st = rtopo__error(RTOPO_ERR_INVAL, "RTOPO_REG_CACHE=%s is not auto, off or a "
                          "byte count of 1 or more (decimal, optional k, m, g)",
                          ctx->params.reg_cache);
        goto err;
    }
    if (strcmp(ctx->params.progress, "off") && strcmp(ctx->params.progress, "thread")) {
        st = rtopo__error(RTOPO_ERR_INVAL, "RTOPO_PROGRESS=%s is not one of off, thread",
                          ctx->params.progress);
        goto err;
    }
    if (rtopo__shift_algo_parse(ctx->params.shift_algo) < 0) {
        st = rtopo__error(RTOPO_ERR_INVAL, "RTOPO_SHIFT_ALGO=%s is not one of auto, "
                          "ring, mesh, hypercube, ecube, direct", ctx->params.shift_algo);
        goto err;
    }
    if (rtopo__scatter_algo_parse(ctx->params.scatter_algo, NULL) < 0) {
        st = rtopo__error(RTOPO_ERR_INVAL, "RTOPO_SCATTER_ALGO=%s is not one of auto, seq, "
                          "binomial, seqscatter[:X], decremental[:X]",
                          ctx->params.scatter_algo);
        goto err;
    }
    if ((ctx->place = rtopo__place_parse(ctx->params.place)) < 0) {
        st = rtopo__error(RTOPO_ERR_INVAL, "RTOPO_PLACE=%s is not one of auto, rank, host",
                          ctx->params.place);
        goto err;
    }
    if (rtopo__coll_algo_parse(ctx->params.coll_algo) < 0) {
        st = rtopo__error(RTOPO_ERR_INVAL, "RTOPO_COLL_ALGO=%s is not one of auto, topo, "
                          "generic", ctx->params.coll_algo);
        goto err;
    }
    rtopo__log_set_level(ctx->params.log_level);
    rtopo__params_warn_unknown();
    ctx->timeout_ms = (int)ctx->params.timeout_ms;
    if (RTOPO__CFG_HAS(cfg, timeout_ms) && cfg->timeout_ms > 0)
        ctx->timeout_ms = cfg->timeout_ms;
    /* ranges are checked where the variables are read (params.c) */
    if ((st = rtopo__model_load(ctx)))
        goto err;

    st = rtopo__boot_open(cfg, ctx->params.boot, ctx->timeout_ms, &ctx->boot);
    if (st)
        goto err;
    ctx->rank = ctx->boot->rank;
    ctx->size = ctx->boot->size;
    rtopo__log_rank = ctx->rank;
    if ((st = rtopo__boot_locate(ctx->boot)))
        goto err;
    /* the one figure of this machine's oversubscription: the eager limit
     * (rtopo__auto_shm), the waits' yields and the calibration take it */
    rtopo__oversub_init(ctx);

    transport = RTOPO__CFG_HAS(cfg, transport) && cfg->transport ? cfg->transport
                                                                 : ctx->params.transport;
    eager_base = ctx->params.eager_limit;
    tp.rank = ctx->rank;
    tp.nranks = ctx->size;
    tp.timeout_ms = ctx->timeout_ms;
    ctx->ctrl_size = RTOPO__CTRL_HDR + eager_base;
    tp.ctrl_size = ctx->ctrl_size;
    tp.poll_only = ctx->poll_only;
    tp.local = ctx->boot->local;
    tp.peer_local = NULL;
    tp.poll_no_yield = 0;
    tp.shm_ring_size = ctx->params.shm_ring_size;
    tp.verbs_sq_depth = (int)ctx->params.verbs_sq_depth;
    tp.verbs_inject = ctx->params.verbs_inject_max;
    rtopo__tl_job_size(ctx->size);
    if (!strcmp(transport, "auto")) {
        /* every rank on one machine: rtopo's shared memory; otherwise the
         * first usable backend that also opens (a device may be active yet
         * unusable, e.g. without an IPv4 address) */
        const struct rtopo__tl_ops *ops;
        st = ctx->size > 1 ? rtopo__auto_shm(ctx, &tp) : 0;
        if (st < 0)
            goto err;
        st = st == 1 ? RTOPO_OK : RTOPO_ERR_TRANSPORT;
        for (i = 0; st && (ops = rtopo__tl_get((int)i)) != NULL; i++) {
            if (!ops->available(NULL))
                continue;
            tp.name = ops->name;
            ctx->tlops = ops;
            rtopo__eager_pick(ctx, ops, ops->name, eager_base, &tp);
            st = ops->open(&tp, &ctx->tl);
            if (st)
                rtopo__info("transport %s is present but did not open: %s", ops->name,
                            rtopo_last_error());
        }
        if (st) {
            rtopo__error(st, "no transport could be opened (rtopo-info lists them)");
            ctx->tl = NULL;
            goto err;
        }
    } else {
        ctx->tlops = rtopo__tl_find(transport);
        if (!ctx->tlops) {
            st = rtopo__error(RTOPO_ERR_TRANSPORT, "no transport matches '%s'; "
                              "rtopo-info lists what is built and usable", transport);
            goto err;
        }
        tp.name = transport;
        rtopo__eager_pick(ctx, ctx->tlops, transport, eager_base, &tp);
        st = ctx->tlops->open(&tp, &ctx->tl);
        if (st)
            goto err;
    }
    ctx->tlops->query(ctx->tl, &ctx->tlattr);
    /* eager payloads too large for what the transport delivers by itself
     * go as fragments that fit (shm's inject, 4 KiB: a larger message
     * there waits for the peer to fetch it and to answer, about twice
     * the time of two injects); below 1 KiB per fragment, one message */
    if (ctx->tlattr.send_nowait_max >= RTOPO__MSG_HDR + RTOPO__EAGER_FRAG_MIN &&
        ctx->tlattr.send_nowait_max < RTOPO__MSG_HDR + ctx->params.eager_limit)
        ctx->eager_frag = ctx->tlattr.send_nowait_max - RTOPO__MSG_HDR;
    if (!strcmp(ctx->params.reg_per_op, "auto"))
        ctx->reg_op_min = ctx->tlattr.reg_per_op ? 1 : rtopo__mem_reg_probe(ctx);
    if ((st = rtopo__rcache_init(ctx)))
        goto err;

    memset(&me, 0, sizeof(me));
    alen = sizeof(me.addr);
    st = ctx->tlops->addr_get(ctx->tl, me.addr, &alen);
    if (st)
        goto err;
    me.addr_len = (uint32_t)alen;
    snprintf(me.host, sizeof(me.host), "%s", ctx->boot->host_id);
    snprintf(me.transport, sizeof(me.transport), "%s", ctx->tlattr.provider);
    me.eager_limit = ctx->params.eager_limit;
    me.chunk_size = ctx->params.chunk_size;
    me.pipeline_depth = ctx->params.pipeline_depth;
    me.shm_ring_size = ctx->params.shm_ring_size;
    if (getrandom(&me.token, sizeof(me.token), 0) != (ssize_t)sizeof(me.token)) {
        st = rtopo__error(RTOPO_ERR_INVAL, "getrandom: %m");
        goto err;
    }

    st = RTOPO_ERR_NOMEM;
    ctx->peers = calloc((size_t)ctx->size, sizeof(*ctx->peers));
    ctx->connected = calloc((size_t)ctx->size, 1);
    ctx->slots = calloc(RTOPO__MAX_SLOTS, sizeof(*ctx->slots));
    ctx->slot_free = malloc(RTOPO__MAX_SLOTS * sizeof(*ctx->slot_free));
    ctx->wired = calloc((size_t)ctx->size, 1);
    ctx->hello_in = calloc((size_t)ctx->size * 2, 1);
    ctx->hello_topo = calloc((size_t)ctx->size * 2, sizeof(*ctx->hello_topo));
    ctx->hello_desc = calloc((size_t)ctx->size * 2, sizeof(*ctx->hello_desc));
    ctx->barrier_ops = calloc((size_t)ctx->size, sizeof(*ctx->barrier_ops));
    ctx->barrier_ntopos = calloc((size_t)ctx->size, sizeof(*ctx->barrier_ntopos));
    ctx->barrier_seen = calloc((size_t)ctx->size, sizeof(*ctx->barrier_seen));
    ctx->barrier_kind = calloc((size_t)ctx->size, 1);
    /* with flow control's counts of topologies after it (ctx->flow_topo) */
    ctx->unexp_count = calloc(3 * (size_t)ctx->size, sizeof(*ctx->unexp_count));
    if (!ctx->peers || !ctx->connected || !ctx->slots || !ctx->slot_free || !ctx->wired ||
        !ctx->hello_in || !ctx->hello_topo || !ctx->hello_desc || !ctx->barrier_ops ||
        !ctx->barrier_seen || !ctx->barrier_kind || !ctx->unexp_count ||
        !ctx->barrier_ntopos ||
        rtopo__engine_init(ctx) || rtopo__probe_init(ctx))
        goto err;
    rtopo__job_init(ctx);
    rtopo__exec_init(ctx);
    for (i = 0; i < RTOPO__MAX_SLOTS; i++)
        ctx->slot_free[i] = RTOPO__MAX_SLOTS - 1 - i;
    ctx->nslot_free = RTOPO__MAX_SLOTS;

    st = rtopo__boot_allgather(ctx->boot, &me, ctx->peers, sizeof(me));
    if (st)
        goto err;
    st = rtopo__check_uniform(ctx);
    if (st)
        goto err;
    if ((st = rtopo__reach_init(ctx)))
        goto err;
    /* every rank's token keys the transport's own connection handshake */
    for (i = 0; RTOPO__TL_HAS(ctx->tlops, set_auth) && i < (uint32_t)ctx->size; i++)
        if ((st = ctx->tlops->set_auth(ctx->tl, (int)i, &ctx->peers[i].token,
                                       sizeof(ctx->peers[i].token))))
            goto err;
    ctx->yield_idle = ctx->oversub && !ctx->tlattr.poll_yields;
    ctx->locking = !strcmp(ctx->params.progress, "thread");
    if (ctx->locking && (st = rtopo__thread_start(ctx)))
        goto err;
    if ((st = rtopo__handle_add(ctx, RTOPO__H_CTX)))
        goto err;
    if (ctx->eager_frag)
        snprintf(frag, sizeof(frag), " (sent as fragments of at most %zu)", ctx->eager_frag);
    rtopo__info("rank %d of %d on %s, transport %s, eager limit %llu bytes%s", ctx->rank,
                ctx->size, me.host, ctx->tlattr.provider,
                (unsigned long long)ctx->params.eager_limit, frag);
    *ctx_p = ctx;
    return RTOPO_OK;
err:
    if (ctx->thread_on) {
        pthread_mutex_lock(&ctx->lock);
        rtopo__thread_stop(ctx);
        pthread_mutex_unlock(&ctx->lock);
    }
    rtopo__ctx_free(ctx);
    pthread_mutex_lock(&rtopo__live_lock);
    rtopo__live = NULL;
    pthread_mutex_unlock(&rtopo__live_lock);
    return st;
}

int rtopo_barrier(rtopo_ctx_t *ctx)
{
    int st;

    if ((st = rtopo__ctx_enter(ctx)))
        return st;
    st = rtopo__barrier(ctx, RTOPO__BARRIER_USER);
    if (st)
        rtopo__flush_job(ctx, 200);
    rtopo__ctx_leave(ctx);
    return st;
}

int rtopo_finalize(rtopo_ctx_t *ctx)
{
    rtopo_req_t *req, *next;
    uint32_t i;
    int st = RTOPO_OK, bst;

    if ((st = rtopo__ctx_enter(ctx)))
        return st;
    if (ctx->active) {
        rtopo__ctx_leave(ctx);
        return rtopo__error(RTOPO_ERR_BUSY, "operations still in flight: wait for "
                            "and free every request first");
    }
    rtopo__thread_stop(ctx);
    rtopo__handle_del(ctx);
    /* Every rank must be done with its collectives (and the barrier finds
     * a rank that skipped one) before anyone closes its connections; the
     * bootstrap's barrier then holds everyone until all are past it. */
    if (!ctx->failed && ctx->size > 1) {
        st = rtopo__barrier(ctx, RTOPO__BARRIER_FINALIZE);
        if (st == RTOPO_OK && (bst = rtopo__boot_barrier(ctx->boot)))
            st = bst;
        /* peers closing their connections now is no failure */
        ctx->closing = st == RTOPO_OK;
    } else if (ctx->failed) {
        st = rtopo__error_quiet(ctx->failed, "%s", ctx->failmsg);
    }
    /* job-level messages still queued (an ABORT) leave only while this
     * rank drives the transport; failed operations' writes complete */
    if (ctx->abort_sent || ctx->track.out)
        rtopo__flush_job(ctx, 200);
    /* A failed operation's writes and messages still out reference its
     * state (and its request, freed by the caller or not) until the
     * transport is closed, which cancels them: nothing to wait for, but
     * that state goes only after the close.  Regions are deregistered
     * before it, the topologies after the requests on them. */
    for (req = ctx->reqs; req; req = next) {
        next = req->next;
        if (!req->op.zombie)
            rtopo__req_destroy(req);
    }
    rtopo__mem_release_all(ctx);
    ctx->tlops->close(ctx->tl);
    ctx->tl = NULL;
    rtopo__op_reap_zombies(ctx);
    while ((req = ctx->reqs))
        rtopo__req_destroy(req);
    for (i = 0; i < ctx->ntopos_alloc; i++)
        if (ctx->topos[i])
            rtopo__topo_destroy(ctx->topos[i]);
    rtopo__ctx_leave(ctx);
    rtopo__ctx_free(ctx);
    pthread_mutex_lock(&rtopo__live_lock);
    rtopo__live = NULL;
    pthread_mutex_unlock(&rtopo__live_lock);
    return st;
}
