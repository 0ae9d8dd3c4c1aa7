/*
 * ctx.c - the context's lock: the application's calls and the progress
 * thread take turns through it (rtopo(7), Threads); and the last error a
 * failed operation leaves for the caller's thread.
 */
#include "config.h"
#include <pthread.h>
#include "ctx.h"

int rtopo__ctx_enter(rtopo_ctx_t *ctx)
{
    if (!rtopo__handle_ok(ctx, RTOPO__H_CTX))
        return rtopo__error(RTOPO_ERR_INVAL, "context %p is not live (finalized, or "
                            "never initialised)", (void *)ctx);
    rtopo__ctx_lock(ctx);
    return RTOPO_OK;
}

int rtopo__report(int st, const char *msg)
{
    if (st && msg && msg[0])
        return rtopo__error_quiet(st, "%s", msg);
    return st;
}
