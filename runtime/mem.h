/*
 * mem.h - registered regions (mem.c): the caller's, staging blocks, the
 * registration cache.
 */
#ifndef RTOPO_MEM_H
#define RTOPO_MEM_H

#include "ctx.h"

struct rtopo_mem {
    rtopo_ctx_t *ctx;
    uint8_t *buf;
    size_t len;
    struct rtopo__tl_mr *mr;
    rtopo__rkey_t rkey;
    int internal;          /* staging block owned by the engine (2: the
                              caller's buffer for one operation) */
    int in_use;            /* staging block handed out (2: quarantined) */
    int scratch;           /* staging block lent to a request as its TMP:
                              found by rtopo__mem_find like the user's */
    uint64_t quiet_ns;     /* a failed operation's window: peers' writes may
                              land until then */
    struct rtopo_mem *next;
    /* kept in the registration cache (rcache, mem.c) */
    unsigned access;       /* RTOPO__TL_ACCESS_* it was registered with */
    int refs;              /* operations using it */
    int cached;            /* 1: in the cache; 2: dropped from it (its pages
                              left the process, or an operation on it
                              failed): deregistered once refs reach 0 */
    struct rtopo_mem *cprev, *cnext;
};

/* internal 0: the caller's (a handle), 1: a staging block, 2: the
 * caller's buffer for one operation (not linked: no other finds it);
 * access: RTOPO__TL_ACCESS_* */
int rtopo__mem_new(rtopo_ctx_t *ctx, void *buf, size_t len, int internal,
                   unsigned access, struct rtopo_mem **mem_p);
struct rtopo_mem *rtopo__mem_find(rtopo_ctx_t *ctx, const void *buf, size_t len);
int rtopo__stage_get(rtopo_ctx_t *ctx, size_t len, struct rtopo_mem **mem_p);
void rtopo__stage_put(struct rtopo_mem *mem);
struct rtopo_mem *rtopo__mem_op_get(rtopo_ctx_t *ctx, const void *buf, size_t len,
                                    int remote);
size_t rtopo__mem_reg_probe(rtopo_ctx_t *ctx);
void rtopo__mem_op_put(struct rtopo_mem *mem);
void rtopo__mem_op_close(struct rtopo_mem *mem);
int rtopo__rcache_init(rtopo_ctx_t *ctx);
void rtopo__rcache_fini(rtopo_ctx_t *ctx);
void rtopo__mem_release_all(rtopo_ctx_t *ctx);
void rtopo__mem_free_staging(rtopo_ctx_t *ctx);
#define RTOPO__QUIESCE_NS 200000000ull
void rtopo__mem_quiesce(rtopo_ctx_t *ctx, const void *buf, size_t len);

#endif
