/*
 * handle.c - the registry of live handles (contexts, topologies, requests,
 * registrations).
 *
 * Entry points look a handle up here before touching it, so a handle the
 * caller freed already (or one rtopo_finalize freed) gives RTOPO_ERR_INVAL
 * instead of a use-after-free.  The lookup never dereferences the pointer.
 * Open addressing over the pointer value; O(1) per call.
 *
 * Every call of the API looks a handle up, so lookups take no lock: adding
 * and removing (under a mutex) bump a sequence number, odd while they
 * write, and a lookup that saw it odd or changed reads again.  A table
 * replaced by a larger one is kept, not freed, since a lookup may still be
 * reading it: the tables only double, so what is kept stays below the
 * size of the live table.
 *
 * A repeated call on one handle skips even that: each thread keeps, per
 * type, the last handle its lookup found and the sequence number then
 * (handle.h).  Every add and remove changes the number, so while it is
 * the same the handle is still there; a removed one, even if its memory
 * is reused for a new handle, is searched for again.
 */
#include "config.h"
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include "rtopo.h"
#include "handle.h"

#define RTOPO__TOMB ((uintptr_t)1)

typedef struct rtopo__hslot {
    uintptr_t key;          /* 0 free, RTOPO__TOMB removed, else the handle */
    uintptr_t type;
} rtopo__hslot_t;

typedef struct rtopo__htab {
    size_t cap;             /* a power of two */
    struct rtopo__htab *old;    /* the table this one replaced */
    rtopo__hslot_t slot[];
} rtopo__htab_t;

static rtopo__htab_t *rtopo__h_tab;     /* read without the lock */
static size_t rtopo__h_used;            /* used slots, tombstones too */
/* odd while a writer writes; even values from 2 up (0 is never one: see
 * rtopo__handle_ok) */
unsigned long rtopo__h_seq = 2;
__thread rtopo__hseen_t rtopo__h_seen[RTOPO__H_NTYPES];
static pthread_mutex_t rtopo__h_lock = PTHREAD_MUTEX_INITIALIZER;

#define RD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WR(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static size_t rtopo__h_hash(uintptr_t p, size_t cap)
{
    uint64_t x = (uint64_t)p;

    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

/* slot of p, or the first free slot for it; cap > used always (a reader
 * racing a writer may see neither, and stops after cap slots) */
static size_t rtopo__h_find(const rtopo__htab_t *h, uintptr_t p, int for_insert)
{
    size_t i = rtopo__h_hash(p, h->cap), tomb = SIZE_MAX, n;
    uintptr_t k;

    for (n = 0; n < h->cap && (k = RD(h->slot[i].key)) != 0; n++) {
        if (k == p)
            return i;
        if (k == RTOPO__TOMB && tomb == SIZE_MAX)
            tomb = i;
        i = (i + 1) & (h->cap - 1);
    }
    return for_insert && tomb != SIZE_MAX ? tomb : i;
}

static void rtopo__h_write_begin(void)
{
    __atomic_store_n(&rtopo__h_seq, rtopo__h_seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

static void rtopo__h_write_end(void)
{
    __atomic_store_n(&rtopo__h_seq, rtopo__h_seq + 1, __ATOMIC_RELEASE);
}

/* a larger table without tombstones, at most half full (lock held) */
static int rtopo__h_grow(void)
{
    rtopo__htab_t *o = rtopo__h_tab, *h;
    size_t i, j, live = 0, cap = 64;

    for (i = 0; o && i < o->cap; i++)
        live += o->slot[i].key > RTOPO__TOMB;
    while (cap < 4 * (live + 1))
        cap *= 2;
    h = calloc(1, sizeof(*h) + cap * sizeof(h->slot[0]));
    if (!h)
        return RTOPO_ERR_NOMEM;
    h->cap = cap;
    h->old = o;
    rtopo__h_used = 0;
    for (i = 0; o && i < o->cap; i++)
        if (o->slot[i].key > RTOPO__TOMB) {
            j = rtopo__h_find(h, o->slot[i].key, 1);
            h->slot[j] = o->slot[i];
            rtopo__h_used++;
        }
    __atomic_store_n(&rtopo__h_tab, h, __ATOMIC_RELEASE);
    return RTOPO_OK;
}

int rtopo__handle_add(const void *p, int type)
{
    rtopo__htab_t *h;
    size_t i;
    int st = RTOPO_OK;

    pthread_mutex_lock(&rtopo__h_lock);
    rtopo__h_write_begin();
    if (!rtopo__h_tab || (rtopo__h_used + 1) * 2 > rtopo__h_tab->cap)
        st = rtopo__h_grow();
    if (st == RTOPO_OK) {
        h = rtopo__h_tab;
        i = rtopo__h_find(h, (uintptr_t)p, 1);
        if (h->slot[i].key != (uintptr_t)p) {
            if (h->slot[i].key == 0)
                rtopo__h_used++;
            WR(h->slot[i].key, (uintptr_t)p);
        }
        WR(h->slot[i].type, (uintptr_t)type);
    }
    rtopo__h_write_end();
    pthread_mutex_unlock(&rtopo__h_lock);
    return st;
}

void rtopo__handle_del(const void *p)
{
    rtopo__htab_t *h;
    size_t i;

    pthread_mutex_lock(&rtopo__h_lock);
    if ((h = rtopo__h_tab)) {
        i = rtopo__h_find(h, (uintptr_t)p, 0);
        if (h->slot[i].key == (uintptr_t)p) {
            rtopo__h_write_begin();
            WR(h->slot[i].key, RTOPO__TOMB);
            WR(h->slot[i].type, 0);
            rtopo__h_write_end();
        }
    }
    pthread_mutex_unlock(&rtopo__h_lock);
}

int rtopo__handle_lookup(const void *p, int type)
{
    const rtopo__htab_t *h;
    unsigned long s;
    size_t i;
    int ok;

    if (!p)
        return 0;
    for (;;) {
        s = __atomic_load_n(&rtopo__h_seq, __ATOMIC_ACQUIRE);
        if (s & 1) {
            sched_yield();      /* a writer is at it, under the lock */
            continue;
        }
        h = __atomic_load_n(&rtopo__h_tab, __ATOMIC_ACQUIRE);
        ok = 0;
        if (h) {
            i = rtopo__h_find(h, (uintptr_t)p, 0);
            ok = RD(h->slot[i].key) == (uintptr_t)p && RD(h->slot[i].type) == (uintptr_t)type;
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&rtopo__h_seq, __ATOMIC_RELAXED) == s) {
            if (ok) {
                rtopo__h_seen[type].p = (uintptr_t)p;
                rtopo__h_seen[type].seq = s;
            }
            return ok;
        }
    }
}
