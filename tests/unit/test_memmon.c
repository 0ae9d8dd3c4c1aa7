/*
 * test_memmon.c - the memory monitor (base/memmon.h): every way memory
 * leaves a watched range is reported, and reported before a lookup that
 * follows the unmapping call (rtopo__memmon_sync); nothing else is.
 */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "memmon.h"
#include "test_unit.h"

#define TM_MAX 4096

static struct {
    pthread_mutex_t lock;
    int n;
    uintptr_t start[TM_MAX], end[TM_MAX];
} seen = { PTHREAD_MUTEX_INITIALIZER, 0, { 0 }, { 0 } };

static void tm_gone(void *arg, uintptr_t start, uintptr_t end)
{
    (void)arg;
    pthread_mutex_lock(&seen.lock);
    if (seen.n < TM_MAX) {
        seen.start[seen.n] = start;
        seen.end[seen.n] = end;
    }
    seen.n++;
    pthread_mutex_unlock(&seen.lock);
}

static rtopo__memmon_t *mon;

/* forgets the reports so far, after taking in those of every unmapping
 * call made before (they may reach the monitor's thread late) */
static void tm_reset(void)
{
    if (mon)
        rtopo__memmon_sync(mon);
    pthread_mutex_lock(&seen.lock);
    seen.n = 0;
    pthread_mutex_unlock(&seen.lock);
}

static int tm_count(void)
{
    int n;

    pthread_mutex_lock(&seen.lock);
    n = seen.n;
    pthread_mutex_unlock(&seen.lock);
    return n;
}

/* was some part of [a, a + len) reported, in report `from` or later? */
static int tm_reported_since(int from, uintptr_t s, size_t len)
{
    uintptr_t e = s + len;
    int i, hit = 0;

    pthread_mutex_lock(&seen.lock);
    for (i = from; i < seen.n && i < TM_MAX; i++)
        if (seen.start[i] < e && seen.end[i] > s)
            hit = 1;
    pthread_mutex_unlock(&seen.lock);
    return hit;
}

static int tm_reported(const void *a, size_t len)
{
    return tm_reported_since(0, (uintptr_t)a, len);
}

static const char *mon_why;
static int mon_err;

static void *tm_map(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED)
        return NULL;
    memset(p, 7, len);
    return p;
}

static void test_memmon_events(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    size_t len = 16 * (size_t)pg;
    char *a, *b, *c;
    uintptr_t ra;
    void *r;

    /* munmap of a watched range, reported before sync returns */
    a = tm_map(len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(rtopo__memmon_watch(mon, a + 100, 5000, 1), 0);
    tm_reset();
    CU_ASSERT_EQUAL(munmap(a, len), 0);
    rtopo__memmon_sync(mon);
    TU_CHECK(tm_reported(a + 100, 5000), "munmap not reported");

    /* madvise(MADV_DONTNEED) discards the pages: reported */
    a = tm_map(len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(rtopo__memmon_watch(mon, a, len, 1), 0);
    tm_reset();
    CU_ASSERT_EQUAL(madvise(a + pg, (size_t)pg, MADV_DONTNEED), 0);
    rtopo__memmon_sync(mon);
    TU_CHECK(tm_reported(a + pg, (size_t)pg), "MADV_DONTNEED not reported");
    /* the watch takes no page faults: the discarded page reads as zero */
    TU_CHECK(a[pg] == 0 && a[0] == 7, "pages changed: %d %d", a[pg], a[0]);

    /* mremap moves it away: the old range is reported */
    tm_reset();
    r = mremap(a, len, 2 * len, MREMAP_MAYMOVE);
    CU_ASSERT_NOT_EQUAL_FATAL(r, MAP_FAILED);
    rtopo__memmon_sync(mon);
    if (r != a)
        TU_CHECK(tm_reported(a, len), "mremap away not reported");
    b = r;
    CU_ASSERT_EQUAL(munmap(b, 2 * len), 0);

    /* mmap(MAP_FIXED) over a watched range replaces its pages: reported */
    a = tm_map(len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(rtopo__memmon_watch(mon, a, len, 1), 0);
    tm_reset();
    c = mmap(a, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    CU_ASSERT_EQUAL_FATAL((void *)c, (void *)a);
    rtopo__memmon_sync(mon);
    TU_CHECK(tm_reported(a, len), "mmap(MAP_FIXED) over the range not reported");
    CU_ASSERT_EQUAL(munmap(a, len), 0);

    /* a malloc'd block above glibc's largest mmap threshold (32 MiB),
     * freed: glibc unmaps it */
    a = malloc(64 << 20);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    memset(a, 1, 2 << 20);
    CU_ASSERT_EQUAL(rtopo__memmon_watch(mon, a + 4096, 1 << 20, 1), 0);
    tm_reset();
    ra = (uintptr_t)a + 4096;   /* an address only, never used after the free */
    free(a);
    rtopo__memmon_sync(mon);
    TU_CHECK(tm_reported_since(0, ra, 1 << 20), "free() of a 64 MiB block not reported");

    /* private anonymous memory only, when asked: not shared memory
     * (shmdt leaves without an event), nor a range with a hole */
    a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CU_ASSERT_NOT_EQUAL_FATAL((void *)a, MAP_FAILED);
    TU_CHECK(rtopo__memmon_watch(mon, a, len, 1) != 0, "a MAP_SHARED range was watched");
    CU_ASSERT_EQUAL(munmap(a, len), 0);
    a = tm_map(len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(munmap(a + 4 * pg, (size_t)pg), 0);
    TU_CHECK(rtopo__memmon_watch(mon, a, len, 1) != 0, "a range with a hole was watched");
    TU_CHECK(rtopo__memmon_watch(mon, a + 5 * pg, 2 * (size_t)pg, 1) == 0,
             "the private anonymous part after the hole was not watched");
    CU_ASSERT_EQUAL(munmap(a, len), 0);

    /* nothing reported for memory not watched, or for what keeps its
     * pages (writes, mprotect) */
    a = tm_map(len);
    b = tm_map(len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(rtopo__memmon_watch(mon, a, len, 1), 0);
    tm_reset();
    memset(a, 3, len);
    CU_ASSERT_EQUAL(mprotect(a, len, PROT_READ), 0);
    CU_ASSERT_EQUAL(mprotect(a, len, PROT_READ | PROT_WRITE), 0);
    CU_ASSERT_EQUAL(munmap(b, len), 0);
    rtopo__memmon_sync(mon);
    TU_CHECK(seen.n == 0, "%d reports for nothing that left a watched range", seen.n);
    CU_ASSERT_EQUAL(munmap(a, len), 0);
}

/* an unmap on one thread while another looks up: once munmap returned
 * and sync did, the report is there (the cache's guarantee) */
static void *tm_unmapper(void *arg)
{
    int i, from;

    (void)arg;
    for (i = 0; i < 200; i++) {
        size_t len = 8192;
        char *a = tm_map(len);

        if (!a || rtopo__memmon_watch(mon, a, len, 1))
            return (void *)1;
        from = tm_count();
        if (munmap(a, len))
            return (void *)1;
        rtopo__memmon_sync(mon);
        if (!tm_reported_since(from, (uintptr_t)a, len))
            return (void *)2;
    }
    return NULL;
}

static void test_memmon_threads(void)
{
    pthread_t t[2];
    void *ret;
    int i;

    tm_reset();
    for (i = 0; i < 2; i++)
        CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, tm_unmapper, NULL), 0);
    for (i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(pthread_join(t[i], &ret), 0);
        TU_CHECK(ret == NULL, "thread %d: %s", i,
                 ret == (void *)2 ? "an unmap was not reported by sync" : "setup failed");
    }
}

static int tm_cleanup(void)
{
    rtopo__memmon_close(mon);
    mon = NULL;
    return 0;
}

int tu_suite_memmon(void)
{
    CU_pSuite s = CU_add_suite("memmon", NULL, tm_cleanup);
    CU_pTest t1, t2;

    if (!s ||
        !(t1 = CU_add_test(s, "unmaps, discards, remaps and frees are reported", test_memmon_events)) ||
        !(t2 = CU_add_test(s, "reported before a lookup that follows, across threads",
                           test_memmon_threads)))
        return CU_get_error();
    mon_err = rtopo__memmon_open(tm_gone, NULL, &mon, &mon_why);
    if (mon_err) {
        printf("memmon: SKIPPED (inactive): %s (%s); rtopo keeps no registration cache "
               "here\n", mon_why, strerror(-mon_err));
        CU_set_test_active(t1, CU_FALSE);
        CU_set_test_active(t2, CU_FALSE);
    }
    return CUE_SUCCESS;
}
