/*
 * handle.c - the registry of live handles (contexts, topologies, requests,
 * registrations).
 *
 * Entry points look a handle up here before touching it, so a handle the
 * caller freed already (or one rtopo_finalize freed) gives RTOPO_ERR_INVAL
 * instead of a use-after-free.  The lookup never dereferences the pointer.
 * Open addressing over the pointer value; O(1) per call.
 */
#include "config.h"
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "rtopo_int.h"

#define RTOPO__TOMB ((uintptr_t)1)

static struct {
    uintptr_t *key;
    uint8_t *type;
    size_t cap, used;       /* used counts tombstones too */
} rtopo__h;
static pthread_mutex_t rtopo__h_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t rtopo__h_hash(uintptr_t p, size_t cap)
{
    uint64_t x = (uint64_t)p;

    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

/* slot of p, or the first free slot for it; cap > used always */
static size_t rtopo__h_find(uintptr_t p, int for_insert)
{
    size_t i = rtopo__h_hash(p, rtopo__h.cap), tomb = SIZE_MAX;

    while (rtopo__h.key[i]) {
        if (rtopo__h.key[i] == p)
            return i;
        if (rtopo__h.key[i] == RTOPO__TOMB && tomb == SIZE_MAX)
            tomb = i;
        i = (i + 1) & (rtopo__h.cap - 1);
    }
    return for_insert && tomb != SIZE_MAX ? tomb : i;
}

static int rtopo__h_grow(void)
{
    uintptr_t *okey = rtopo__h.key;
    uint8_t *otype = rtopo__h.type;
    size_t ocap = rtopo__h.cap, i, j, live = 0, cap = 64;

    /* rehash without tombstones, at most half full */
    for (i = 0; i < ocap; i++)
        live += okey[i] > RTOPO__TOMB;
    while (cap < 4 * (live + 1))
        cap *= 2;

    rtopo__h.key = calloc(cap, sizeof(*rtopo__h.key));
    rtopo__h.type = calloc(cap, 1);
    if (!rtopo__h.key || !rtopo__h.type) {
        free(rtopo__h.key);
        free(rtopo__h.type);
        rtopo__h.key = okey;
        rtopo__h.type = otype;
        return RTOPO_ERR_NOMEM;
    }
    rtopo__h.cap = cap;
    rtopo__h.used = 0;
    for (i = 0; i < ocap; i++)
        if (okey[i] > RTOPO__TOMB) {
            j = rtopo__h_find(okey[i], 1);
            rtopo__h.key[j] = okey[i];
            rtopo__h.type[j] = otype[i];
            rtopo__h.used++;
        }
    free(okey);
    free(otype);
    return RTOPO_OK;
}

int rtopo__handle_add(const void *p, int type)
{
    size_t i;
    int st = RTOPO_OK;

    pthread_mutex_lock(&rtopo__h_lock);
    if ((rtopo__h.used + 1) * 2 > rtopo__h.cap)
        st = rtopo__h_grow();
    if (st == RTOPO_OK) {
        i = rtopo__h_find((uintptr_t)p, 1);
        if (rtopo__h.key[i] != (uintptr_t)p) {
            if (rtopo__h.key[i] == 0)
                rtopo__h.used++;
            rtopo__h.key[i] = (uintptr_t)p;
        }
        rtopo__h.type[i] = (uint8_t)type;
    }
    pthread_mutex_unlock(&rtopo__h_lock);
    return st;
}

void rtopo__handle_del(const void *p)
{
    size_t i;

    pthread_mutex_lock(&rtopo__h_lock);
    if (rtopo__h.cap) {
        i = rtopo__h_find((uintptr_t)p, 0);
        if (rtopo__h.key[i] == (uintptr_t)p) {
            rtopo__h.key[i] = RTOPO__TOMB;
            rtopo__h.type[i] = 0;
        }
    }
    pthread_mutex_unlock(&rtopo__h_lock);
}

int rtopo__handle_ok(const void *p, int type)
{
    size_t i;
    int ok = 0;

    if (!p)
        return 0;
    pthread_mutex_lock(&rtopo__h_lock);
    if (rtopo__h.cap) {
        i = rtopo__h_find((uintptr_t)p, 0);
        ok = rtopo__h.key[i] == (uintptr_t)p && rtopo__h.type[i] == type;
    }
    pthread_mutex_unlock(&rtopo__h_lock);
    return ok;
}
