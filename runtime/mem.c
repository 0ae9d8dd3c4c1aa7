/*
 * mem.c - registered regions: the user's (rtopo_mem_register, mem_api.c)
 * and the engine's staging blocks, which are kept registered and reused
 * because registration costs far more than a pipeline chunk.
 */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "memmon.h"
#include "mem.h"

/* internal 0: the caller's (a handle), 1: a staging block, 2: the
 * caller's buffer for one operation (not linked: no other finds it);
 * access: RTOPO__TL_ACCESS_* */
int rtopo__mem_new(rtopo_ctx_t *ctx, void *buf, size_t len, int internal,
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

/*
 * The registration cache.  A registration made for an operation on an
 * unregistered buffer is kept for the next operation that covers the
 * same bytes with the same or less access, as HPC codes reuse buffers
 * from iteration to iteration.  It is dropped as soon as its pages may
 * have changed: the monitor (memmon.h) reports every munmap, mremap,
 * brk shrink and madvise discard of a watched range, and a lookup waits
 * for the reports of events already read.  Without the monitor there is
 * no cache.  A registration open to peers' writes is dropped too when an
 * operation on it fails.  A dropped registration closes to writes at
 * once where the transport can (tl.h mem_close): one no operation uses,
 * as its memory leaves the process; one whose operation failed, as the
 * failure returns.  So nothing written late, or with a key guessed or
 * kept, lands in memory the caller has back, whatever is mapped there
 * by then; the deregistration follows on the engine's thread.  Entries
 * not in use go least recently used first when the limits are reached
 * or a registration fails for want of memory.
 */
#define RTOPO__RCACHE_MAX_COUNT 1024

static void rtopo__rc_unlink(struct rtopo_mem **head, struct rtopo_mem *m)
{
    if (m->cprev)
        m->cprev->cnext = m->cnext;
    else
        *head = m->cnext;
    if (m->cnext)
        m->cnext->cprev = m->cprev;
    m->cprev = m->cnext = NULL;
}

static void rtopo__rc_push(struct rtopo_mem **head, struct rtopo_mem *m)
{
    m->cprev = NULL;
    m->cnext = *head;
    if (*head)
        (*head)->cprev = m;
    *head = m;
}

/* live -> dropped (lock held) */
static void rtopo__rc_drop(rtopo__rcache_t *rc, struct rtopo_mem *m)
{
    rtopo__rc_unlink(&rc->lru, m);
    rc->bytes -= m->len;
    rc->count--;
    m->cached = 2;
    rtopo__rc_push(&rc->dropped, m);
}

/* Closes a dropped entry to peers' writes at once, where the transport
 * can (tl.h mem_close); it is deregistered later, on the engine's thread
 * (rtopo__rc_reap, or its last put).  Any thread. */
static void rtopo__rc_close(struct rtopo_mem *m)
{
    const struct rtopo__tl_ops *ops = m->ctx->tlops;

    if (m->mr && (m->access & RTOPO__TL_ACCESS_REMOTE_WRITE) && RTOPO__TL_HAS(ops, mem_close))
        ops->mem_close(m->mr);
}

/* The monitor's thread: [start, end) left the process.  An entry no
 * operation uses has no legitimate writer, and the addresses may be
 * mapped again before the engine's thread deregisters it: it closes to
 * writes here, so that nothing written with its key lands in the new
 * memory.  One in use stays open for its operation (its buffer must
 * stay mapped until it completes, and only a neighbouring range of the
 * same registration may have left) and is deregistered by its last
 * put. */
static void rtopo__rc_gone(void *arg, uintptr_t start, uintptr_t end)
{
    rtopo__rcache_t *rc = arg;
    struct rtopo_mem *m, *next;

    pthread_mutex_lock(&rc->lock);
    for (m = rc->lru; m; m = next) {
        next = m->cnext;
        if ((uintptr_t)m->buf < end && (uintptr_t)m->buf + m->len > start) {
            rtopo__rc_drop(rc, m);
            if (m->refs == 0)
                rtopo__rc_close(m);
            rc->gone++;
        }
    }
    pthread_mutex_unlock(&rc->lock);
}

/* Deregisters the dropped entries no operation uses.  The transport is
 * called without the lock: a deregistration may free memory, and the
 * monitor's thread must be able to report meanwhile. */
static void rtopo__rc_reap(rtopo_ctx_t *ctx)
{
    rtopo__rcache_t *rc = &ctx->rcache;
    struct rtopo_mem *m, *next, *out = NULL;

    pthread_mutex_lock(&rc->lock);
    for (m = rc->dropped; m; m = next) {
        next = m->cnext;
        if (m->refs == 0) {
            rtopo__rc_unlink(&rc->dropped, m);
            m->cnext = out;
            out = m;
        }
    }
    pthread_mutex_unlock(&rc->lock);
    while ((m = out)) {
        out = m->cnext;
        if (m->mr)
            ctx->tlops->mem_dereg(m->mr);
        free(m);
    }
}

/* Makes room for an entry of `need` bytes: drops live entries not in
 * use, least recently used first, until it fits the limits (all: every
 * live entry not in use), and deregisters them. */
static void rtopo__rc_trim(rtopo_ctx_t *ctx, size_t need, int all)
{
    rtopo__rcache_t *rc = &ctx->rcache;
    struct rtopo_mem *m, *prev;

    pthread_mutex_lock(&rc->lock);
    for (m = rc->lru; m && m->cnext; m = m->cnext)
        ;
    for (; m; m = prev) {
        prev = m->cprev;
        if (!all && rc->bytes + need <= rc->max_bytes && rc->count < rc->max_count)
            break;
        if (m->refs == 0)
            rtopo__rc_drop(rc, m);
    }
    pthread_mutex_unlock(&rc->lock);
    rtopo__rc_reap(ctx);
}

int rtopo__rcache_init(rtopo_ctx_t *ctx)
{
    rtopo__rcache_t *rc = &ctx->rcache;
    const char *why = NULL;
    long pages, pgsize, cpus;
    int err;

    if (!strcmp(ctx->params.reg_cache, "off") || !ctx->reg_op_min)
        return RTOPO_OK;
    if (!strcmp(ctx->params.reg_cache, "auto")) {
        pages = sysconf(_SC_PHYS_PAGES);
        pgsize = sysconf(_SC_PAGESIZE);
        cpus = sysconf(_SC_NPROCESSORS_ONLN);
        rc->max_bytes = pages > 0 && pgsize > 0 ?
                        (size_t)pages * (size_t)pgsize / (size_t)(cpus > 0 ? cpus : 1) / 2 :
                        (size_t)1 << 30;
    }
    rc->max_count = RTOPO__RCACHE_MAX_COUNT;
    err = rtopo__memmon_open(rtopo__rc_gone, rc, &rc->mon, &why);
    if (err) {
        if (!strcmp(ctx->params.reg_cache, "auto"))
            rtopo__info("no registration cache: %s (%s)", why, strerror(-err));
        else
            rtopo__warn("RTOPO_REG_CACHE=%s: no registration cache: %s (%s)",
                        ctx->params.reg_cache, why, strerror(-err));
        return RTOPO_OK;
    }
    rtopo__info("registration cache: up to %zu bytes in %d registrations",
                rc->max_bytes, rc->max_count);
    return RTOPO_OK;
}

void rtopo__rcache_fini(rtopo_ctx_t *ctx)
{
    rtopo__rcache_t *rc = &ctx->rcache;
    struct rtopo_mem *m;

    if (!rc->mon)
        return;
    rtopo__memmon_close(rc->mon);
    rc->mon = NULL;
    pthread_mutex_lock(&rc->lock);
    while (rc->lru)
        rtopo__rc_drop(rc, rc->lru);
    pthread_mutex_unlock(&rc->lock);
    rtopo__rc_reap(ctx);
    /* still in use (a failed operation's, freed after the transport
     * closes): deregistered now, freed by its last put */
    for (m = rc->dropped; m; m = m->cnext)
        if (m->mr) {
            ctx->tlops->mem_dereg(m->mr);
            m->mr = NULL;
        }
    rtopo__info("registration cache: %llu hits, %llu misses, %llu dropped as their "
                "memory was unmapped or discarded", (unsigned long long)rc->hits,
                (unsigned long long)rc->misses, (unsigned long long)rc->gone);
}

/* a live entry covering [buf, buf + len) with at least `access`, taken */
static struct rtopo_mem *rtopo__rc_lookup(rtopo_ctx_t *ctx, const void *buf, size_t len,
                                          unsigned access)
{
    rtopo__rcache_t *rc = &ctx->rcache;
    const uint8_t *b = buf;
    struct rtopo_mem *m;

    rtopo__memmon_sync(rc->mon);
    pthread_mutex_lock(&rc->lock);
    for (m = rc->lru; m; m = m->cnext)
        if (m->buf <= b && b + len <= m->buf + m->len && (m->access & access) == access)
            break;
    if (m) {
        m->refs++;
        rc->hits++;
        rtopo__rc_unlink(&rc->lru, m);
        rtopo__rc_push(&rc->lru, m);
    }
    pthread_mutex_unlock(&rc->lock);
    return m;
}

/* The caller's unregistered buffer, registered for one operation instead
 * of staging its data: zero-copy.  From ctx->reg_op_min bytes up
 * (RTOPO_REG_PER_OP; 0: never).  Peers may write into it only when it is
 * the operation's receive buffer (remote); a send buffer is registered
 * for local access alone.  The registration comes from the cache, or
 * goes into it, where there is one.  NULL when the buffer is smaller, or
 * the registration fails (the operation stages then). */
struct rtopo_mem *rtopo__mem_op_get(rtopo_ctx_t *ctx, const void *buf, size_t len,
                                    int remote)
{
    rtopo__rcache_t *rc = &ctx->rcache;
    unsigned access = RTOPO__TL_ACCESS_LOCAL | (remote ? RTOPO__TL_ACCESS_REMOTE_WRITE : 0);
    struct rtopo_mem *mem;
    int tries;

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
    if (!rc->mon || len > rc->max_bytes) {
        if (rtopo__mem_new(ctx, (void *)buf, len, 2, access, &mem))
            return NULL;
        return mem;
    }
    rtopo__rc_reap(ctx);   /* what left the process lets its pages go */
    if ((mem = rtopo__rc_lookup(ctx, buf, len, access)))
        return mem;
    rc->misses++;
    rtopo__rc_trim(ctx, len, 0);
    /* watched before it is registered: an unmap from then on is heard.
     * Where registering pins pages, only private anonymous memory: a
     * System V segment leaves without a report (shmdt), and pages it
     * kept pinned would then be written.  Elsewhere a registration
     * names addresses, whose new pages it reaches as well. */
    if (rtopo__memmon_watch(rc->mon, buf, len, !ctx->tlattr.reg_per_op)) {
        if (rtopo__mem_new(ctx, (void *)buf, len, 2, access, &mem))
            return NULL;
        return mem;
    }
    for (tries = 0;; tries++) {
        if (!rtopo__mem_new(ctx, (void *)buf, len, 2, access, &mem))
            break;
        if (tries)
            return NULL;
        rtopo__rc_trim(ctx, 0, 1);   /* out of pinnable memory, perhaps */
    }
    mem->access = access;
    mem->refs = 1;
    mem->cached = 1;
    pthread_mutex_lock(&rc->lock);
    rtopo__rc_push(&rc->lru, mem);
    rc->bytes += len;
    rc->count++;
    pthread_mutex_unlock(&rc->lock);
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

/* the operation is done with it */
void rtopo__mem_op_put(struct rtopo_mem *mem)
{
    rtopo__rcache_t *rc;
    int last;

    if (!mem)
        return;
    if (mem->cached) {
        rc = &mem->ctx->rcache;
        pthread_mutex_lock(&rc->lock);
        last = --mem->refs == 0 && mem->cached == 2;
        if (last)
            rtopo__rc_unlink(&rc->dropped, mem);
        pthread_mutex_unlock(&rc->lock);
        if (!last)
            return;
    }
    if (mem->mr)
        mem->ctx->tlops->mem_dereg(mem->mr);
    free(mem);
}

/* ... and failed: the registration closes to peers' writes as it goes,
 * even while another operation still holds it (it is deregistered at
 * the last put): the caller has the buffer back on return */
void rtopo__mem_op_close(struct rtopo_mem *mem)
{
    rtopo__rcache_t *rc;

    if (mem && mem->cached) {
        rc = &mem->ctx->rcache;
        pthread_mutex_lock(&rc->lock);
        if (mem->cached == 1)
            rtopo__rc_drop(rc, mem);
        rtopo__rc_close(mem);
        pthread_mutex_unlock(&rc->lock);
    }
    rtopo__mem_op_put(mem);
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

    rtopo__rcache_fini(ctx);

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
