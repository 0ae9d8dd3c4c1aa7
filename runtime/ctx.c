/*
 * ctx.c - the context's lock: the application's calls and the progress
 * thread take turns through it (rtopo(7), Threads); and the last error a
 * failed operation leaves for the caller's thread.
 */
#include "config.h"
#include <pthread.h>
#include "rtopo_int.h"

int rtopo__ctx_enter(rtopo_ctx_t *ctx)
{
    if (!rtopo__handle_ok(ctx, RTOPO__H_CTX))
        return rtopo__error(RTOPO_ERR_INVAL, "context %p is not live (finalized, or "
                            "never initialised)", (void *)ctx);
    rtopo__ctx_lock(ctx);
    return RTOPO_OK;
}

void rtopo__ctx_lock(rtopo_ctx_t *ctx)
{
    if (ctx->locking)
        pthread_mutex_lock(&ctx->lock);
}

void rtopo__ctx_leave(rtopo_ctx_t *ctx)
{
    if (ctx->locking)
        pthread_mutex_unlock(&ctx->lock);
}

int rtopo__report(int st, const char *msg)
{
    if (st && msg && msg[0])
        return rtopo__error_quiet(st, "%s", msg);
    return st;
}

int rtopo__connect_peer(rtopo_ctx_t *ctx, int peer)
{
    int st;

    if (ctx->connected[peer])
        return RTOPO_OK;
    st = ctx->tlops->connect(ctx->tl, peer, ctx->peers[peer].addr,
                             ctx->peers[peer].addr_len);
    if (st == RTOPO_OK)
        ctx->connected[peer] = 1;
    return st;
}

/* A dead rank dooms every operation in flight and every later one: the
 * collectives involve all ranks of the job. */
void rtopo__peer_failed(rtopo_ctx_t *ctx, int peer, int status, const char *why)
{
    rtopo__peer_drop(ctx, peer);
    if (ctx->closing)
        return;
    if (!ctx->failed || ctx->failed_rank != peer)
        rtopo__job_abort(ctx, status, peer, NULL, 0, RTOPO__NOSEQ, "rank %d failed (%s)",
                         peer, why);
}

/* Asks the bootstrap whether the launcher reported a dead rank; cheap
 * enough to run every time the engine is about to block. */
int rtopo__check_failures(rtopo_ctx_t *ctx)
{
    int rank = -1, ret;

    ret = rtopo__boot_poll_failure(ctx->boot, &rank);
    if (ret > 0)
        rtopo__peer_failed(ctx, rank, RTOPO_ERR_PEER, "reported by the launcher");
    return ctx->failed;
}
