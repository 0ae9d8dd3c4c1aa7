/*
 * handle.h - the registry of live handles (handle.c), at the bottom of
 * runtime/ with the context.
 */
#ifndef RTOPO_HANDLE_H
#define RTOPO_HANDLE_H

#include <stdint.h>

/* every live object is registered (stale ones are refused) */
enum { RTOPO__H_CTX = 1, RTOPO__H_TOPO, RTOPO__H_REQ, RTOPO__H_MEM, RTOPO__H_NTYPES };
int rtopo__handle_add(const void *p, int type);
void rtopo__handle_del(const void *p);

/* Per thread and type, the last handle a lookup found live, and the
 * registry's sequence number it found it at (handle.c).  Initial-exec:
 * one load from the thread pointer instead of a call per lookup; the
 * few bytes come from the static TLS that a loader keeps for libraries
 * opened later. */
typedef struct rtopo__hseen {
    uintptr_t p;
    unsigned long seq;
} rtopo__hseen_t;
extern __thread rtopo__hseen_t rtopo__h_seen[RTOPO__H_NTYPES]
    __attribute__((tls_model("initial-exec"), visibility("hidden")));
extern unsigned long rtopo__h_seq __attribute__((visibility("hidden")));
int rtopo__handle_lookup(const void *p, int type);

/* Is p a live handle of this type?  Never dereferences p.  The same
 * handle as this thread's last lookup of the type, with no handle added
 * or removed since (the sequence number unchanged, and even), is live
 * still: one load and two compares.  Otherwise the registry is searched. */
static inline int rtopo__handle_ok(const void *p, int type)
{
    const rtopo__hseen_t *s = &rtopo__h_seen[type];

    /* (s->seq is 0 until set, and the sequence number never is: a NULL p
     * or a type never looked up takes the search, which refuses NULL) */
    if ((uintptr_t)p == s->p && __atomic_load_n(&rtopo__h_seq, __ATOMIC_ACQUIRE) == s->seq)
        return 1;
    return rtopo__handle_lookup(p, type);
}

#endif
