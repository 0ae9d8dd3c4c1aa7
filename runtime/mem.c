/*
 * mem.c - registered regions: the user's (rtopo_mem_register) and the
 * engine's staging blocks, which are kept registered and reused because
 * registration costs far more than a pipeline chunk.
 */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo_int.h"

/* internal 0: the caller's (a handle), 1: a staging block, 2: the
 * caller's buffer for one operation (not linked: no other finds it);
 * access: RTOPO__TL_ACCESS_* */
static int rtopo__mem_new(rtopo_ctx_t *ctx, void *buf, size_t len, int internal,
                          unsigned access, struct rtopo_mem **mem_p)
{
    struct rtopo_mem *mem = calloc(1, sizeof(*mem));
    int st;

    if (!mem)
        return RTOPO_ERR_NOMEM;
    st = ctx->tlops->mem_reg(ctx->tl, buf, len, access, &mem->mr);
    if (st) {
        free(mem);
        return st;
    }
    ctx->tlops->mem_rkey(mem->mr, &mem->rkey);
    if (!internal && rtopo__handle_add(mem, RTOPO__H_MEM)) {
        ctx->tlops->mem_dereg(mem->mr);
        free(mem);
        return RTOPO_ERR_NOMEM;
    }
    mem->ctx = ctx;
    mem->buf = buf;
    mem->len = len;
    mem->internal = internal;
    if (internal != 2) {
        mem->next = ctx->mems;
        ctx->mems = mem;
    }
    *mem_p = mem;
    return RTOPO_OK;
}

/* The caller's unregistered buffer, registered for one operation instead
 * of staging its data: zero-copy.  From ctx->reg_op_min bytes up
 * (RTOPO_REG_PER_OP; 0: never).  Peers may write into it only when it is
 * the operation's receive buffer (remote); a send buffer is registered
 * for local access alone.  NULL when it is smaller, or the registration
 * fails (the operation stages then). */
struct rtopo_mem *rtopo__mem_op_get(rtopo_ctx_t *ctx, const void *buf, size_t len,
                                    int remote)
{
    struct rtopo_mem *mem;

    if (!ctx->reg_op_min || len < ctx->reg_op_min || !buf)
        return NULL;
    /* a source the transport reads without registration: nothing to do
     * but to hold the range (mr NULL; writes then pass lmr NULL) */
    if (!remote && ctx->tlattr.write_src_any) {
        if (!(mem = calloc(1, sizeof(*mem))))
            return NULL;
        mem->ctx = ctx;
        mem->buf = (void *)buf;
        mem->len = len;
        mem->internal = 2;
        return mem;
    }
    if (rtopo__mem_new(ctx, (void *)buf, len, 2,
                       RTOPO__TL_ACCESS_LOCAL | (remote ? RTOPO__TL_ACCESS_REMOTE_WRITE : 0),
                       &mem))
        return NULL;
    return mem;
}

/* Where registering pins pages (verbs), registering a buffer for one
 * operation and deregistering it after costs a system call and a page
 * table walk per page; staging costs a copy of the data.  Both grow with
 * the size, at rates that depend on the machine and the device, so they
 * are timed here, through the transport, on buffers of RTOPO__REG_PROBE
 * sizes (best of RTOPO__REG_PROBE_REPS each).  Returns the smallest size
 * at which registering took less time than the copy, 0 when it did at
 * none of them. */
#define RTOPO__REG_PROBE_MIN ((size_t)64 * 1024)
#define RTOPO__REG_PROBE_MAX ((size_t)1024 * 1024)
#define RTOPO__REG_PROBE_REPS 3

size_t rtopo__mem_reg_probe(rtopo_ctx_t *ctx)
{
    struct rtopo__tl_mr *mr;
    size_t s, found = 0;
    uint64_t t0, t1, t2, reg, copy;
    char *a = NULL, *b = NULL;
    int i;

    if (posix_memalign((void **)&a, 4096, RTOPO__REG_PROBE_MAX) ||
        posix_memalign((void **)&b, 4096, RTOPO__REG_PROBE_MAX)) {
        free(a);
        return 0;
    }
    memset(a, 1, RTOPO__REG_PROBE_MAX);
    memset(b, 2, RTOPO__REG_PROBE_MAX);
    for (s = RTOPO__REG_PROBE_MIN; s <= RTOPO__REG_PROBE_MAX && !found; s *= 4) {
        reg = copy = UINT64_MAX;
        for (i = 0; i < RTOPO__REG_PROBE_REPS; i++) {
            t0 = rtopo__now_ns();
            if (ctx->tlops->mem_reg(ctx->tl, a, s, RTOPO__TL_ACCESS_LOCAL |
                                    RTOPO__TL_ACCESS_REMOTE_WRITE, &mr)) {
                rtopo__info("unregistered buffers are staged: registering %zu bytes "
                            "failed (%s)", s, rtopo_last_error());
                goto out;
            }
            ctx->tlops->mem_dereg(mr);
            t1 = rtopo__now_ns();
            memcpy(b, a, s);
            __asm__ __volatile__("" : : "r"(b) : "memory");
            t2 = rtopo__now_ns();
            reg = t1 - t0 < reg ? t1 - t0 : reg;
            copy = t2 - t1 < copy ? t2 - t1 : copy;
        }
        rtopo__info("registering %zu bytes for one operation took %.1f us, copying them "
                    "%.1f us", s, reg / 1e3, copy / 1e3);
        if (reg < copy)
            found = s;
    }
    if (found)
        rtopo__info("unregistered buffers of %zu bytes and more are registered for each "
                    "operation, smaller ones are staged (RTOPO_REG_PER_OP)", found);
    else
        rtopo__info("unregistered buffers are staged: registering them cost more than "
                    "copying them up to %zu bytes (RTOPO_REG_PER_OP)",
                    (size_t)RTOPO__REG_PROBE_MAX);
out:
    free(a);
    free(b);
    return found;
}

void rtopo__mem_op_put(struct rtopo_mem *mem)
{
    if (mem) {
        if (mem->mr)
            mem->ctx->tlops->mem_dereg(mem->mr);
        free(mem);
    }
}

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

struct rtopo_mem *rtopo__mem_find(rtopo_ctx_t *ctx, const void *buf, size_t len)
{
    const uint8_t *b = buf;
    struct rtopo_mem *m;

    for (m = ctx->mems; m; m = m->next)
        if ((!m->internal || m->scratch) && b >= m->buf && len <= m->len && b - m->buf <= (ptrdiff_t)(m->len - len))
            return m;
    return NULL;
}

/* smallest free staging block of at least len bytes, else a new one */
int rtopo__stage_get(rtopo_ctx_t *ctx, size_t len, struct rtopo_mem **mem_p)
{
    struct rtopo_mem *m, *best = NULL;
    void *buf;
    int st;

    for (m = ctx->mems; m; m = m->next)
        if (m->internal && !m->in_use && m->len >= len && (!best || m->len < best->len))
            best = m;
    if (!best) {
        if (posix_memalign(&buf, 4096, len ? len : 1))
            return rtopo__error(RTOPO_ERR_NOMEM, "staging block of %zu bytes", len);
        st = rtopo__mem_new(ctx, buf, len ? len : 1, 1,
                            RTOPO__TL_ACCESS_LOCAL | RTOPO__TL_ACCESS_REMOTE_WRITE, &best);
        if (st) {
            free(buf);
            return st;
        }
    }
    best->in_use = 1;
    *mem_p = best;
    return RTOPO_OK;
}

void rtopo__stage_put(struct rtopo_mem *mem)
{
    if (mem)
        mem->in_use = 0;
}

/* Deregisters everything.  Staging memory a peer may still be writing
 * into (a failed job) is freed only after the transport is closed: see
 * rtopo__mem_free_staging. */
void rtopo__mem_release_all(rtopo_ctx_t *ctx)
{
    struct rtopo_mem *m;

    while ((m = ctx->mems)) {
        ctx->mems = m->next;
        rtopo__handle_del(m);
        ctx->tlops->mem_dereg(m->mr);
        m->mr = NULL;
        if (m->internal) {
            m->next = ctx->staging_dead;
            ctx->staging_dead = m;
        } else {
            free(m);
        }
    }
}

void rtopo__mem_free_staging(rtopo_ctx_t *ctx)
{
    struct rtopo_mem *m;

    while ((m = ctx->staging_dead)) {
        ctx->staging_dead = m->next;
        free(m->buf);
        free(m);
    }
}

/* A failed operation's peers may still be writing into the receive
 * windows it exposed (they stop starting writes once they hear of the
 * failure, but one already under way lands).  Deregistering such a
 * region first lets the transport take in-flight data for a while. */
void rtopo__mem_quiesce(rtopo_ctx_t *ctx, const void *buf, size_t len)
{
    struct rtopo_mem *m = rtopo__mem_find(ctx, buf, len);

    if (m)
        m->quiet_ns = rtopo__now_ns() + RTOPO__QUIESCE_NS;
}
