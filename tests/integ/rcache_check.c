/*
 * rcache_check.c - unregistered buffers whose memory changes between
 * operations, as a program does when it frees and allocates again.
 *
 * Each rank shifts a buffer of --size bytes to its right neighbour on a
 * ring, over and over, with fresh data every time, and between
 * operations it does one of these to its send and receive buffers:
 *   keep     nothing (the registration may be reused)
 *   remap    munmap both, then mmap them again at the same addresses
 *   discard  madvise(MADV_DONTNEED) on both (their pages are dropped)
 *   realloc  free both (malloc'd) and malloc again (same addresses, often)
 *   move     mremap both to new addresses
 * Buffers are mmap'd (private or MAP_SHARED) or malloc'd, in turn.
 * The data received must be right every time: a registration kept for
 * memory that was replaced would move the old pages' bytes.  Blocking
 * and nonblocking (rtopo_ishift, rtopo_wait) alternate.  Exit 0 when
 * every check passed.
 *
 * usage: rcache_check [--size N] [--rounds R]
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "rtopo.h"
#include "integ_util.h"

enum { KEEP, REMAP, DISCARD, REALLOC, MOVE, NCHANGE };
static const char *change_name[NCHANGE] = { "keep", "remap", "discard", "realloc", "move" };

/* the kinds of buffers: private mmap, malloc, shared mmap (not cached
 * where registering pins memory) */
enum { PRIV, MALLOC, SHARED, NKIND };
static const char *kind_name[NKIND] = { "mmap'd", "malloc'd", "MAP_SHARED" };

struct buf {
    char *p;
    size_t len;
    int malloced, shared;
};

static void *map_at(void *hint, size_t len, int shared)
{
    void *p = mmap(hint, len, PROT_READ | PROT_WRITE,
                   (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    return p;
}

static void buf_new(struct buf *b, size_t len, int kind)
{
    b->len = len;
    b->malloced = kind == MALLOC;
    b->shared = kind == SHARED;
    b->p = b->malloced ? malloc(len) : map_at(NULL, len, b->shared);
    if (!b->p) {
        perror("malloc");
        exit(2);
    }
    memset(b->p, 0, len);
}

static void buf_free(struct buf *b)
{
    if (b->malloced)
        free(b->p);
    else
        munmap(b->p, b->len);
}

/* the change; returns 1 when the addresses stayed the same */
static int buf_change(struct buf *b, int what)
{
    char *old = b->p, *q;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), span = (b->len + pg - 1) & ~(pg - 1);

    switch (what) {
    case REMAP:
        if (b->malloced)
            return 1;
        munmap(b->p, b->len);
        b->p = map_at(old, b->len, b->shared);   /* the hint is free again: taken */
        break;
    case DISCARD: {
        /* the whole pages inside the buffer (a malloc'd one is not aligned) */
        uintptr_t a = ((uintptr_t)b->p + pg - 1) & ~(uintptr_t)(pg - 1);
        uintptr_t e = ((uintptr_t)b->p + b->len) & ~(uintptr_t)(pg - 1);

        if (e > a && madvise((void *)a, e - a, MADV_DONTNEED)) {
            perror("madvise");
            exit(2);
        }
        break;
    }
    case REALLOC:
        if (!b->malloced)
            return 1;
        free(b->p);
        b->p = malloc(b->len);
        if (!b->p) {
            perror("malloc");
            exit(2);
        }
        break;
    case MOVE:
        if (b->malloced)
            return 1;
        /* grow in place is impossible if something follows; force a move */
        q = mremap(b->p, span, span, MREMAP_MAYMOVE | MREMAP_FIXED,
                   map_at(NULL, span, b->shared));
        if (q == MAP_FAILED) {
            perror("mremap");
            exit(2);
        }
        b->p = q;
        break;
    }
    return b->p == old;
}

int main(int argc, char **argv)
{
    size_t size = 70000;
    int rounds = 60, r, i, rank, p, bad = 0, same = 0, st;
    rtopo_ctx_t *ctx;
    rtopo_topo_t *ring;
    rtopo_req_t *req;
    struct buf sb[NKIND], rb[NKIND];

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc)
            size = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: rcache_check [--size N] [--rounds R]\n");
            return 2;
        }
    }
    if ((st = rtopo_init(NULL, &ctx))) {
        fprintf(stderr, "%s: rtopo_init: %s\n", iu_env_label(), rtopo_last_error());
        return 1;
    }
    rank = rtopo_rank(ctx);
    p = rtopo_size(ctx);
    if ((st = rtopo_topo_ring(ctx, &ring))) {
        fprintf(stderr, "rank %d: rtopo_topo_ring: %s\n", rank, rtopo_last_error());
        return 1;
    }
    for (i = 0; i < NKIND; i++) {
        buf_new(&sb[i], size, i);
        buf_new(&rb[i], size, i);
    }
    for (r = 0; r < rounds; r++) {
        int what = r % NCHANGE, m = (r / NCHANGE) % NKIND;
        unsigned tag = (unsigned)r;

        if (r >= NCHANGE) {   /* every change, after every other */
            same += buf_change(&sb[m], what);
            same += buf_change(&rb[m], what);
        }
        iu_fill(sb[m].p, size, rank, tag);
        memset(rb[m].p, 0xee, size);
        if (r % 2) {
            st = rtopo_ishift(ring, sb[m].p, rb[m].p, size, 1, &req);
            if (!st) {
                st = rtopo_wait(req);
                rtopo_req_free(req);
            }
        } else {
            st = rtopo_shift(ring, sb[m].p, rb[m].p, size, 1);
        }
        if (st) {
            fprintf(stderr, "rank %d round %d (%s, %s): %s\n", rank, r, change_name[what],
                    kind_name[m], rtopo_last_error());
            return 1;
        }
        long off = iu_first_bad(rb[m].p, size, iu_mod(rank - 1, p), tag);
        if (off >= 0) {
            fprintf(stderr, "rank %d round %d (after %s, %s buffers): byte %ld of %zu is "
                    "0x%02x, not 0x%02x\n", rank, r, change_name[what],
                    kind_name[m], off, size, (uint8_t)rb[m].p[off],
                    iu_pattern(iu_mod(rank - 1, p), (size_t)off, tag));
            bad++;
        }
    }
    for (i = 0; i < NKIND; i++) {
        buf_free(&sb[i]);
        buf_free(&rb[i]);
    }
    if ((st = rtopo_finalize(ctx))) {
        fprintf(stderr, "rank %d: rtopo_finalize: %s\n", rank, rtopo_last_error());
        return 1;
    }
    printf("rank %d: %d rounds of %zu bytes, %d bad; %d changes kept the address\n",
           rank, rounds, size, bad, same);
    return bad ? 1 : 0;
}
