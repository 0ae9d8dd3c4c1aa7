/*
 * mem_api.c - rtopo_mem_register and rtopo_mem_deregister: a region is
 * refused while an operation in flight, or the late writes of a failed
 * one, use it; mem.c keeps the regions.
 */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include "mem.h"
#include "engine.h"
#include "exec.h"

int rtopo_mem_register(rtopo_ctx_t *ctx, void *buf, size_t len, rtopo_mem_t **mem_p)
{
    int st;

    if (!buf || !mem_p || len == 0)
        return rtopo__error(RTOPO_ERR_INVAL, "rtopo_mem_register needs a context, "
                            "a buffer, a length > 0 and a result pointer");
    /* the region's end must be an address: [buf, buf + len) is compared
     * against buffers later, and a transport would register garbage */
    if (len > UINTPTR_MAX - (uintptr_t)buf)
        return rtopo__error(RTOPO_ERR_INVAL, "rtopo_mem_register: %zu bytes from %p "
                            "run past the end of the address space", len, buf);
    if ((st = rtopo__ctx_enter(ctx)))
        return st;
    st = rtopo__mem_new(ctx, buf, len, 0,
                        RTOPO__TL_ACCESS_LOCAL | RTOPO__TL_ACCESS_REMOTE_WRITE, mem_p);
    rtopo__ctx_leave(ctx);
    return st;
}

static int rtopo__op_uses(const rtopo__op_t *op, const struct rtopo_mem *mem)
{
    int i;

    for (i = 0; i < RTOPO__BUF_COUNT; i++)
        if (op->bufs[i] && op->bufs[i] >= mem->buf && op->bufs[i] < mem->buf + mem->len)
            return 1;
    return 0;
}

static void rtopo__mem_unlink(rtopo_ctx_t *ctx, struct rtopo_mem *mem)
{
    struct rtopo_mem **pp;

    for (pp = &ctx->mems; *pp; pp = &(*pp)->next)
        if (*pp == mem) {
            *pp = mem->next;
            return;
        }
}

static int rtopo__never(void *arg)
{
    (void)arg;
    return 0;
}

/* (a drained operation may be freed meanwhile: scan, never hold it) */
static int rtopo__no_zombie_uses(void *arg)
{
    struct rtopo_mem *mem = arg;
    rtopo__op_t *op;

    for (op = mem->ctx->zombies; op; op = op->next)
        if (rtopo__op_uses(op, mem))
            return 0;
    return 1;
}

int rtopo_mem_deregister(rtopo_mem_t *mem)
{
    rtopo_ctx_t *ctx;
    rtopo__op_t *op;
    int st;

    if (!rtopo__handle_ok(mem, RTOPO__H_MEM))
        return rtopo__error(RTOPO_ERR_INVAL, "%p is not a live region from "
                            "rtopo_mem_register (deregistered already?)", (void *)mem);
    ctx = mem->ctx;
    if ((st = rtopo__ctx_enter(ctx)))
        return st;
    /* refuse while an operation in flight, or the writes of a failed one,
     * read or write the region (the latter drain within a second) */
    rtopo__wait(ctx, rtopo__no_zombie_uses, mem, rtopo__now_ns() + 100000000ull);
    if (mem->quiet_ns > rtopo__now_ns())
        rtopo__wait(ctx, rtopo__never, NULL, mem->quiet_ns);
    for (op = ctx->active; op; op = op->next)
        if (rtopo__op_uses(op, mem))
            break;
    if (!op)
        for (op = ctx->zombies; op; op = op->next)
            if (rtopo__op_uses(op, mem))
                break;
    if (op) {
        rtopo__ctx_leave(ctx);
        return rtopo__error(RTOPO_ERR_BUSY, "region is in use by an operation in flight");
    }
    rtopo__mem_unlink(ctx, mem);
    rtopo__handle_del(mem);
    st = ctx->tlops->mem_dereg(mem->mr);
    free(mem);
    rtopo__ctx_leave(ctx);
    return st;
}
