/*
 * test_runtime.c - the runtime's parts that need no peer: status codes,
 * the RTOPO_* table, argument checking of the public API, and a job of
 * one rank (every shift is a local copy there).
 */
#include "config.h"
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <CUnit/CUnit.h>
#include "rtopo.h"
#include "rtopo_int.h"
#include "params.h"
#include "tl.h"
#include "calib.h"
#include "test_unit.h"

static void test_status_codes(void)
{
    int i, j;

    CU_ASSERT_STRING_EQUAL(rtopo_err_name(RTOPO_OK), "RTOPO_OK");
    CU_ASSERT_STRING_EQUAL(rtopo_strerror(RTOPO_OK), "success");
    for (i = -1; i > RTOPO_ERR_LAST; i--) {
        TU_CHECK(strncmp(rtopo_err_name(i), "RTOPO_ERR_", 10) == 0 &&
                 strcmp(rtopo_err_name(i), "RTOPO_ERR_UNKNOWN") != 0,
                 "code %d has no name", i);
        TU_CHECK(strcmp(rtopo_strerror(i), "unknown error") != 0, "code %d has no text", i);
        for (j = i - 1; j > RTOPO_ERR_LAST; j--)
            TU_CHECK(strcmp(rtopo_err_name(i), rtopo_err_name(j)) != 0,
                     "codes %d and %d share a name", i, j);
    }
    CU_ASSERT_STRING_EQUAL(rtopo_strerror(RTOPO_ERR_LAST), "unknown error");
    CU_ASSERT_STRING_EQUAL(rtopo_strerror(1), "unknown error");
    CU_ASSERT_STRING_EQUAL(rtopo_err_name(RTOPO_ERR_PEER), "RTOPO_ERR_PEER");
}

static void test_params(void)
{
    rtopo__params_t p;
    const char *name, *type, *def, *help;
    int i;

    unsetenv("RTOPO_EAGER_LIMIT");
    unsetenv("RTOPO_TIMEOUT_MS");
    CU_ASSERT_EQUAL(rtopo__params_load(&p), RTOPO_OK);
    CU_ASSERT_EQUAL(p.eager_limit, 8192);
    CU_ASSERT_EQUAL(p.timeout_ms, 60000);
    CU_ASSERT_STRING_EQUAL(p.shift_algo, "auto");
    CU_ASSERT_FALSE(RTOPO__PARAM_FROM_ENV(&p, EAGER_LIMIT));
    /* set but empty: the default, as if unset */
    setenv("RTOPO_EAGER_LIMIT", "", 1);
    CU_ASSERT_EQUAL(rtopo__params_load(&p), RTOPO_OK);
    CU_ASSERT_FALSE(RTOPO__PARAM_FROM_ENV(&p, EAGER_LIMIT));
    /* the default's value given explicitly is still the user's choice */
    setenv("RTOPO_EAGER_LIMIT", "8192", 1);
    CU_ASSERT_EQUAL(rtopo__params_load(&p), RTOPO_OK);
    CU_ASSERT_EQUAL(p.eager_limit, 8192);
    CU_ASSERT_TRUE(RTOPO__PARAM_FROM_ENV(&p, EAGER_LIMIT));
    CU_ASSERT_FALSE(RTOPO__PARAM_FROM_ENV(&p, TIMEOUT_MS));

    setenv("RTOPO_EAGER_LIMIT", "64k", 1);
    setenv("RTOPO_CHUNK_SIZE", "1MiB", 1);
    setenv("RTOPO_TIMEOUT_MS", "16", 1);
    CU_ASSERT_EQUAL(rtopo__params_load(&p), RTOPO_OK);
    CU_ASSERT_EQUAL(p.eager_limit, 65536);
    CU_ASSERT_EQUAL(p.chunk_size, 1 << 20);
    CU_ASSERT_EQUAL(p.timeout_ms, 16);
    CU_ASSERT_TRUE(RTOPO__PARAM_FROM_ENV(&p, EAGER_LIMIT));
    CU_ASSERT_TRUE(RTOPO__PARAM_FROM_ENV(&p, CHUNK_SIZE));
    CU_ASSERT_TRUE(RTOPO__PARAM_FROM_ENV(&p, TIMEOUT_MS));
    CU_ASSERT_FALSE(RTOPO__PARAM_FROM_ENV(&p, PIPELINE_DEPTH));
    setenv("RTOPO_CHUNK_SIZE", "1g", 1);
    CU_ASSERT_EQUAL(rtopo__params_load(&p), RTOPO_OK);
    CU_ASSERT_EQUAL(p.chunk_size, (size_t)1 << 30);

    setenv("RTOPO_EAGER_LIMIT", "12x", 1);
    CU_ASSERT_EQUAL(rtopo__params_load(&p), RTOPO_ERR_INVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(rtopo_last_error(), "RTOPO_EAGER_LIMIT"));
    setenv("RTOPO_EAGER_LIMIT", "-5", 1);
    CU_ASSERT_EQUAL(rtopo__params_load(&p), RTOPO_ERR_INVAL);
    unsetenv("RTOPO_EAGER_LIMIT");
    setenv("RTOPO_TIMEOUT_MS", "soon", 1);
    CU_ASSERT_EQUAL(rtopo__params_load(&p), RTOPO_ERR_INVAL);
    unsetenv("RTOPO_TIMEOUT_MS");
    unsetenv("RTOPO_CHUNK_SIZE");

    for (i = 0; rtopo__params_row(i, &name, &type, &def, &help); i++) {
        TU_CHECK(!strncmp(name, "RTOPO_", 6), "row %d: %s", i, name);
        TU_CHECK(!strcmp(type, "STR") || !strcmp(type, "INT") || !strcmp(type, "SIZE"),
                 "%s: type %s", name, type);
        TU_CHECK(strlen(help) > 10, "%s has no help", name);
    }
    CU_ASSERT(i >= 10);
    CU_ASSERT_EQUAL(rtopo__params_row(i, &name, &type, &def, &help), 0);
}

static void params_refused(const char *name, const char *value);
static void params_accepted(const char *name, const char *value);

/* the backends' settings: their defaults are the values the backends had
 * built in (shm_tl.c SHM_RING_MIN, verbs_tl.c RVB_SQ_DEPTH and
 * RVB_INJECT_MAX), their ranges are checked like the others' */
static void test_params_backend(void)
{
    rtopo__params_t p;

    unsetenv("RTOPO_SHM_RING_SIZE");
    unsetenv("RTOPO_VERBS_SQ_DEPTH");
    unsetenv("RTOPO_VERBS_INJECT_MAX");
    CU_ASSERT_EQUAL(rtopo__params_load(&p), RTOPO_OK);
    CU_ASSERT_EQUAL(p.shm_ring_size, 65536);
    CU_ASSERT_EQUAL(p.verbs_sq_depth, 256);
    CU_ASSERT_EQUAL(p.verbs_inject_max, 4096);
    CU_ASSERT_FALSE(RTOPO__PARAM_FROM_ENV(&p, SHM_RING_SIZE));
    setenv("RTOPO_SHM_RING_SIZE", "128k", 1);
    setenv("RTOPO_VERBS_SQ_DEPTH", "64", 1);
    setenv("RTOPO_VERBS_INJECT_MAX", "16k", 1);
    CU_ASSERT_EQUAL(rtopo__params_load(&p), RTOPO_OK);
    CU_ASSERT_EQUAL(p.shm_ring_size, 131072);
    CU_ASSERT_EQUAL(p.verbs_sq_depth, 64);
    CU_ASSERT_EQUAL(p.verbs_inject_max, 16384);
    CU_ASSERT_TRUE(RTOPO__PARAM_FROM_ENV(&p, SHM_RING_SIZE));
    CU_ASSERT_TRUE(RTOPO__PARAM_FROM_ENV(&p, VERBS_SQ_DEPTH));
    CU_ASSERT_TRUE(RTOPO__PARAM_FROM_ENV(&p, VERBS_INJECT_MAX));
    unsetenv("RTOPO_SHM_RING_SIZE");
    unsetenv("RTOPO_VERBS_SQ_DEPTH");
    unsetenv("RTOPO_VERBS_INJECT_MAX");
    params_refused("RTOPO_SHM_RING_SIZE", "65535");
    params_refused("RTOPO_SHM_RING_SIZE", "4k");
    params_refused("RTOPO_SHM_RING_SIZE", "0");
    params_refused("RTOPO_SHM_RING_SIZE", "2g");
    params_refused("RTOPO_SHM_RING_SIZE", "64x");
    params_accepted("RTOPO_SHM_RING_SIZE", "64k");
    params_accepted("RTOPO_SHM_RING_SIZE", "1g");
    params_accepted("RTOPO_SHM_RING_SIZE", "100000");  /* rounded up by shm */
    params_refused("RTOPO_VERBS_SQ_DEPTH", "0");
    params_refused("RTOPO_VERBS_SQ_DEPTH", "15");
    params_refused("RTOPO_VERBS_SQ_DEPTH", "2049");
    params_refused("RTOPO_VERBS_SQ_DEPTH", "256k");
    params_accepted("RTOPO_VERBS_SQ_DEPTH", "16");
    params_accepted("RTOPO_VERBS_SQ_DEPTH", "2048");
    params_refused("RTOPO_VERBS_INJECT_MAX", "0");
    params_refused("RTOPO_VERBS_INJECT_MAX", "1023");
    params_refused("RTOPO_VERBS_INJECT_MAX", "65537");
    params_accepted("RTOPO_VERBS_INJECT_MAX", "1k");
    params_accepted("RTOPO_VERBS_INJECT_MAX", "64k");
}

/* value of variable `name` set to `value` must be refused, naming both */
static void params_refused(const char *name, const char *value)
{
    rtopo__params_t p;
    int st;

    setenv(name, value, 1);
    st = rtopo__params_load(&p);
    TU_CHECK(st == RTOPO_ERR_INVAL, "%s=%s: %s, expected RTOPO_ERR_INVAL", name, value,
             rtopo_err_name(st));
    TU_CHECK(strstr(rtopo_last_error(), name) && strstr(rtopo_last_error(), value),
             "%s=%s: the error '%s' does not name variable and value", name, value,
             rtopo_last_error());
    unsetenv(name);
}

static void params_accepted(const char *name, const char *value)
{
    rtopo__params_t p;
    int st;

    setenv(name, value, 1);
    st = rtopo__params_load(&p);
    TU_CHECK(st == RTOPO_OK, "%s=%s: %s (%s)", name, value, rtopo_err_name(st),
             rtopo_last_error());
    unsetenv(name);
}

/* numbers that wrap, overflow their field, or would be read in another
 * base are refused (issue 10) */
static void test_params_bounds(void)
{
    static const char *const ints[] = { "RTOPO_TIMEOUT_MS", "RTOPO_PIPELINE_DEPTH",
                                        "RTOPO_SPIN_US", "RTOPO_CHECK_BUFFERS",
                                        "RTOPO_RANK", "RTOPO_SIZE",
                                        "RTOPO_VERBS_SQ_DEPTH" };
    static const char *const sizes[] = { "RTOPO_EAGER_LIMIT", "RTOPO_CHUNK_SIZE",
                                         "RTOPO_SHM_RING_SIZE", "RTOPO_VERBS_INJECT_MAX" };
    const char *name, *type, *def, *help;
    long long min = 0, max = 0;
    char buf[64];
    rtopo__params_t p;
    size_t k;
    int i;

    /* the cases of the audit */
    params_refused("RTOPO_TIMEOUT_MS", "4294967297");
    params_refused("RTOPO_TIMEOUT_MS", "2147483648");
    params_refused("RTOPO_TIMEOUT_MS", "9223372036854775808");
    params_refused("RTOPO_TIMEOUT_MS", "99999999999999999999999");
    params_refused("RTOPO_TIMEOUT_MS", "0x10");
    params_refused("RTOPO_TIMEOUT_MS", "010");
    params_refused("RTOPO_TIMEOUT_MS", "0");
    params_refused("RTOPO_TIMEOUT_MS", "-5");
    params_refused("RTOPO_TIMEOUT_MS", "+5");
    params_refused("RTOPO_TIMEOUT_MS", " 5");
    params_refused("RTOPO_TIMEOUT_MS", "5 ");
    params_refused("RTOPO_TIMEOUT_MS", "5.0");
    params_accepted("RTOPO_TIMEOUT_MS", "2147483647");
    setenv("RTOPO_TIMEOUT_MS", "2147483647", 1);
    CU_ASSERT_EQUAL(rtopo__params_load(&p), RTOPO_OK);
    CU_ASSERT_EQUAL(p.timeout_ms, 2147483647L);
    unsetenv("RTOPO_TIMEOUT_MS");
    params_refused("RTOPO_CHUNK_SIZE", "18446744073709551615");
    params_refused("RTOPO_CHUNK_SIZE", "18446744073709551616");
    params_refused("RTOPO_CHUNK_SIZE", "1073741825");
    params_refused("RTOPO_CHUNK_SIZE", "2g");
    params_refused("RTOPO_CHUNK_SIZE", "16777216g");
    params_refused("RTOPO_CHUNK_SIZE", "0x10000");
    params_refused("RTOPO_CHUNK_SIZE", "010000");
    params_refused("RTOPO_CHUNK_SIZE", "4095");
    params_refused("RTOPO_CHUNK_SIZE", "1.5m");
    params_accepted("RTOPO_CHUNK_SIZE", "1g");
    params_accepted("RTOPO_CHUNK_SIZE", "1GiB");
    params_accepted("RTOPO_CHUNK_SIZE", "1073741824");
    params_accepted("RTOPO_CHUNK_SIZE", "4k");
    params_refused("RTOPO_EAGER_LIMIT", "1025k");
    params_accepted("RTOPO_EAGER_LIMIT", "1m");
    params_accepted("RTOPO_EAGER_LIMIT", "0");
    params_refused("RTOPO_PIPELINE_DEPTH", "65");
    params_refused("RTOPO_PIPELINE_DEPTH", "4294967297");
    params_refused("RTOPO_SPIN_US", "-1");
    params_refused("RTOPO_CHECK_BUFFERS", "2");
    params_refused("RTOPO_RANK", "4294967296");
    params_refused("RTOPO_RANK", "-2");
    params_refused("RTOPO_RANK", "-0");
    params_accepted("RTOPO_RANK", "-1");
    params_accepted("RTOPO_RANK", "0");
    params_refused("RTOPO_SIZE", "4294967297");

    /* every INT variable has a range within an int, every bound is
     * enforced at both ends, and the help text names it */
    for (k = 0; k < sizeof(ints) / sizeof(ints[0]); k++) {
        TU_CHECK(rtopo__params_bounds(ints[k], &min, &max), "%s has no bounds", ints[k]);
        TU_CHECK(min >= INT_MIN && max <= INT_MAX, "%s: bounds beyond an int", ints[k]);
        snprintf(buf, sizeof(buf), "%lld", min);
        params_accepted(ints[k], buf);
        snprintf(buf, sizeof(buf), "%lld", max);
        params_accepted(ints[k], buf);
        snprintf(buf, sizeof(buf), "%lld", min - 1);
        params_refused(ints[k], buf);
        snprintf(buf, sizeof(buf), "%lld", max + 1);
        params_refused(ints[k], buf);
    }
    for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        TU_CHECK(rtopo__params_bounds(sizes[k], &min, &max), "%s has no bounds", sizes[k]);
        snprintf(buf, sizeof(buf), "%lld", max);
        params_accepted(sizes[k], buf);
        snprintf(buf, sizeof(buf), "%lld", max + 1);
        params_refused(sizes[k], buf);
        if (min > 0) {
            snprintf(buf, sizeof(buf), "%lld", min - 1);
            params_refused(sizes[k], buf);
        }
    }
    for (i = 0; rtopo__params_row(i, &name, &type, &def, &help); i++) {
        if (!strcmp(type, "STR"))
            continue;
        TU_CHECK(rtopo__params_bounds(name, &min, &max), "%s has no bounds", name);
        TU_CHECK(strstr(help, "decimal") || strstr(help, "0 or 1"),
                 "%s: help does not say decimal", name);
    }
}

static void test_api_arguments(void)
{
    rtopo_config_t cfg = RTOPO_CONFIG_INIT;
    rtopo_req_t *req = NULL;
    rtopo_topo_t *t = NULL;
    rtopo_mem_t *m = NULL;
    int done;
    char b[8];

    CU_ASSERT_EQUAL(rtopo_init(NULL, NULL), RTOPO_ERR_INVAL);
    cfg.size = 0;
    CU_ASSERT_EQUAL(rtopo_init(&cfg, (rtopo_ctx_t **)&t), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_finalize(NULL), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_rank(NULL), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_size(NULL), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_topo_ring(NULL, &t), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_topo_free(NULL), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_mem_register(NULL, b, sizeof(b), &m), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_mem_deregister(NULL), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_shift(NULL, b, b, 1, 1), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_ishift(NULL, b, b, 1, 1, &req), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_start(NULL), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_wait(NULL), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_test(NULL, &done), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_req_free(NULL), RTOPO_OK);
    CU_ASSERT_EQUAL(rtopo_topo_set_shift_algo(NULL, RTOPO_SHIFT_RING), RTOPO_ERR_INVAL);
}

/* what rtopo-info --check TRANSPORT says */
static int transport_usable(const char *tr)
{
    const struct rtopo__tl_ops *ops = rtopo__tl_find(tr);

    return ops && ops->available(tr);
}

/* the transport of the job of one rank: RTOPO_TRANSPORT when it is set
 * (and not auto), else ofi:tcp (tcp over loopback is there wherever
 * libfabric is), else the first built backend that is usable; NULL when
 * none is usable, and then the test is made inactive (skipped) */
static const char *single_rank_transport(void)
{
    static char buf[256];
    const char *env = getenv("RTOPO_TRANSPORT");
    const struct rtopo__tl_ops *ops;
    int i;

    if (env && *env && strcmp(env, "auto")) {
        snprintf(buf, sizeof(buf), "%s", env);
        return transport_usable(buf) ? buf : NULL;
    }
    if (transport_usable("ofi:tcp"))
        return "ofi:tcp";
    for (i = 0; (ops = rtopo__tl_get(i)) != NULL; i++)
        if (transport_usable(ops->name))
            return ops->name;
    return NULL;
}

static const char *single_tr;   /* chosen when the suite is registered */

/* a job of one rank, bootstrapped without a launcher */
/* The registry's lookups take no lock: while one thread adds and removes
 * thousands of handles (the table grows and fills with tombstones), a
 * lookup must still find a handle that stays live, with its type, and
 * never find one that was never added or has the wrong type. */
struct hreg_arg {
    char *items;
    int n, rounds;
    int started;            /* set (atomically) when the reader runs */
    long lookups;           /* the reader's count so far (atomic) */
    int stop;               /* set (atomically) when the writer is done */
};

/* lookups the reader makes while the writer works, at least: on a loaded
 * machine the writer's rounds can end before the reader is scheduled */
#define HREG_MIN_LOOKUPS 20000

static void *hreg_writer(void *argp)
{
    struct hreg_arg *a = argp;
    int r, i, st = 0;

    while (!__atomic_load_n(&a->started, __ATOMIC_ACQUIRE))
        sched_yield();
    for (r = 0; r < a->rounds ||
                __atomic_load_n(&a->lookups, __ATOMIC_RELAXED) < HREG_MIN_LOOKUPS; r++) {
        for (i = 0; i < a->n; i++)
            st |= rtopo__handle_add(a->items + i, RTOPO__H_REQ);
        for (i = 0; i < a->n; i++)
            rtopo__handle_del(a->items + i);
        if (r >= a->rounds)
            sched_yield();
    }
    __atomic_store_n(&a->stop, 1, __ATOMIC_RELEASE);
    return (void *)(intptr_t)st;
}

static void test_handle_registry(void)
{
    static char live[4], never[1];
    struct hreg_arg a = { .n = 3000, .rounds = 60 };
    pthread_t th;
    long lookups = 0, bad = 0;
    void *ret;

    a.items = malloc((size_t)a.n);
    CU_ASSERT_FATAL(a.items != NULL);
    CU_ASSERT_EQUAL(rtopo__handle_add(&live[0], RTOPO__H_TOPO), RTOPO_OK);
    CU_ASSERT_EQUAL(rtopo__handle_add(&live[1], RTOPO__H_MEM), RTOPO_OK);
    CU_ASSERT_EQUAL(pthread_create(&th, NULL, hreg_writer, &a), 0);
    __atomic_store_n(&a.started, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&a.stop, __ATOMIC_ACQUIRE)) {
        bad += !rtopo__handle_ok(&live[0], RTOPO__H_TOPO);
        bad += !rtopo__handle_ok(&live[1], RTOPO__H_MEM);
        bad += rtopo__handle_ok(&live[0], RTOPO__H_REQ);
        bad += rtopo__handle_ok(&never[0], RTOPO__H_REQ);
        bad += rtopo__handle_ok(&live[2], RTOPO__H_TOPO);
        lookups += 5;
        __atomic_store_n(&a.lookups, lookups, __ATOMIC_RELAXED);
    }
    CU_ASSERT_EQUAL(pthread_join(th, &ret), 0);
    CU_ASSERT_EQUAL((intptr_t)ret, RTOPO_OK);
    TU_CHECK(bad == 0, "%ld of %ld lookups wrong while the registry changed", bad, lookups);
    TU_CHECK(lookups >= HREG_MIN_LOOKUPS, "%ld lookups ran while the registry changed", lookups);
    CU_ASSERT_TRUE(rtopo__handle_ok(a.items + 7, RTOPO__H_REQ) == 0);
    rtopo__handle_del(&live[0]);
    rtopo__handle_del(&live[1]);
    CU_ASSERT_FALSE(rtopo__handle_ok(&live[0], RTOPO__H_TOPO));
    free(a.items);
}

/* Each thread remembers the last handle of each type it found live
 * (handle.h): it must still refuse that handle once it is removed, by
 * any thread, also when the same address comes back as a handle of
 * another type, and a NULL handle of a type never looked up. */
struct hseen_arg {
    const void *p;
    int phase;              /* 1: look up, 2: removed, look up again */
    int got[2];
};

static void *hseen_thread(void *argp)
{
    struct hseen_arg *a = argp;

    a->got[0] = rtopo__handle_ok(a->p, RTOPO__H_TOPO) + rtopo__handle_ok(a->p, RTOPO__H_TOPO);
    __atomic_store_n(&a->phase, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&a->phase, __ATOMIC_ACQUIRE) != 2)
        sched_yield();
    a->got[1] = rtopo__handle_ok(a->p, RTOPO__H_TOPO);
    return NULL;
}

static void test_handle_seen(void)
{
    static char h[3];
    struct hseen_arg a = { .p = &h[2] };
    pthread_t th;

    CU_ASSERT_FALSE(rtopo__handle_ok(NULL, RTOPO__H_CTX));
    CU_ASSERT_FALSE(rtopo__handle_ok(NULL, RTOPO__H_MEM));
    CU_ASSERT_EQUAL(rtopo__handle_add(&h[0], RTOPO__H_TOPO), RTOPO_OK);
    CU_ASSERT_TRUE(rtopo__handle_ok(&h[0], RTOPO__H_TOPO));
    CU_ASSERT_TRUE(rtopo__handle_ok(&h[0], RTOPO__H_TOPO));
    CU_ASSERT_FALSE(rtopo__handle_ok(&h[0], RTOPO__H_REQ));
    CU_ASSERT_FALSE(rtopo__handle_ok(NULL, RTOPO__H_TOPO));
    /* other handles come and go: still live */
    CU_ASSERT_EQUAL(rtopo__handle_add(&h[1], RTOPO__H_TOPO), RTOPO_OK);
    CU_ASSERT_TRUE(rtopo__handle_ok(&h[1], RTOPO__H_TOPO));
    rtopo__handle_del(&h[1]);
    CU_ASSERT_TRUE(rtopo__handle_ok(&h[0], RTOPO__H_TOPO));
    CU_ASSERT_TRUE(rtopo__handle_ok(&h[0], RTOPO__H_TOPO));
    CU_ASSERT_FALSE(rtopo__handle_ok(&h[1], RTOPO__H_TOPO));
    /* removed: refused, also where its address comes back as a request */
    rtopo__handle_del(&h[0]);
    CU_ASSERT_FALSE(rtopo__handle_ok(&h[0], RTOPO__H_TOPO));
    CU_ASSERT_EQUAL(rtopo__handle_add(&h[0], RTOPO__H_REQ), RTOPO_OK);
    CU_ASSERT_FALSE(rtopo__handle_ok(&h[0], RTOPO__H_TOPO));
    CU_ASSERT_TRUE(rtopo__handle_ok(&h[0], RTOPO__H_REQ));
    rtopo__handle_del(&h[0]);
    CU_ASSERT_FALSE(rtopo__handle_ok(&h[0], RTOPO__H_REQ));
    /* removed by one thread, while another remembers it */
    CU_ASSERT_EQUAL(rtopo__handle_add(&h[2], RTOPO__H_TOPO), RTOPO_OK);
    CU_ASSERT_FATAL(pthread_create(&th, NULL, hseen_thread, &a) == 0);
    while (__atomic_load_n(&a.phase, __ATOMIC_ACQUIRE) != 1)
        sched_yield();
    rtopo__handle_del(&h[2]);
    __atomic_store_n(&a.phase, 2, __ATOMIC_RELEASE);
    CU_ASSERT_EQUAL(pthread_join(th, NULL), 0);
    CU_ASSERT_EQUAL(a.got[0], 2);
    CU_ASSERT_EQUAL(a.got[1], 0);
}

static void test_single_rank(void)
{
    rtopo_ctx_t *ctx;
    rtopo_topo_t *ring, *t;
    rtopo_req_t *req;
    rtopo_mem_t *mem;
    char src[4096], dst[4096];
    const char *env = getenv("RTOPO_TRANSPORT");
    char *saved = env ? strdup(env) : NULL;
    int st, q, done, i;

    /* registered inactive when no transport is usable: never run then */
    CU_ASSERT_PTR_NOT_NULL_FATAL(single_tr);
    setenv("RTOPO_BOOT", "single", 1);
    setenv("RTOPO_TRANSPORT", single_tr, 1);
    st = rtopo_init(NULL, &ctx);
    unsetenv("RTOPO_BOOT");
    if (saved)
        setenv("RTOPO_TRANSPORT", saved, 1);
    else
        unsetenv("RTOPO_TRANSPORT");
    free(saved);
    /* rtopo-info --check says this transport is usable: it must open */
    if (!TU_CHECK(st == RTOPO_OK, "rtopo_init (RTOPO_BOOT=single, RTOPO_TRANSPORT=%s) -> %s: "
                  "%s (rtopo-info --check %s says it is usable)", single_tr,
                  rtopo_err_name(st), rtopo_last_error(), single_tr))
        return;
    CU_ASSERT_EQUAL(rtopo_rank(ctx), 0);
    CU_ASSERT_EQUAL(rtopo_size(ctx), 1);
    CU_ASSERT_EQUAL_FATAL(rtopo_topo_ring(ctx, &ring), RTOPO_OK);

    /* sizes that do not fit: the message names what would */
    CU_ASSERT_EQUAL(rtopo_topo_hypercube(ctx, 1, &t), RTOPO_ERR_TOPO);
    CU_ASSERT(strlen(rtopo_last_error()) > 0);
    CU_ASSERT_EQUAL(rtopo_topo_mesh(ctx, 2, 1, &t), RTOPO_ERR_TOPO);
    CU_ASSERT_EQUAL(rtopo_topo_mesh(ctx, 0, 1, &t), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_topo_otis_mesh(ctx, 2, &t), RTOPO_ERR_TOPO);
    CU_ASSERT_EQUAL(rtopo_topo_set_shift_algo(ring, RTOPO_SHIFT_MESH), RTOPO_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(rtopo_topo_set_shift_algo(ring, (rtopo_shift_algo_t)42), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_topo_set_shift_algo(ring, RTOPO_SHIFT_DIRECT), RTOPO_OK);
    CU_ASSERT_EQUAL(rtopo_topo_mesh(ctx, 1, 1, &t), RTOPO_OK);
    CU_ASSERT_EQUAL(rtopo_topo_free(t), RTOPO_OK);

    CU_ASSERT_EQUAL(rtopo_shift(ring, NULL, dst, 8, 1), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_shift(ring, NULL, NULL, 0, 1), RTOPO_OK);
    for (q = -3; q <= 3; q++) {
        for (i = 0; i < (int)sizeof(src); i++)
            src[i] = (char)(i * 7 + q);
        memset(dst, 0, sizeof(dst));
        CU_ASSERT_EQUAL(rtopo_shift(ring, src, dst, sizeof(src), q), RTOPO_OK);
        CU_ASSERT_EQUAL(memcmp(src, dst, sizeof(src)), 0);
    }

    /* persistent request: restarts, test, and the rules around them */
    CU_ASSERT_EQUAL_FATAL(rtopo_shift_init(ring, src, dst, 100, 5, &req), RTOPO_OK);
    CU_ASSERT_EQUAL(rtopo_wait(req), RTOPO_ERR_INVAL);   /* never started */
    for (i = 0; i < 3; i++) {
        src[0] = (char)i;
        CU_ASSERT_EQUAL(rtopo_start(req), RTOPO_OK);
        CU_ASSERT_EQUAL(rtopo_test(req, &done), RTOPO_OK);
        CU_ASSERT_EQUAL(done, 1);
        CU_ASSERT_EQUAL(rtopo_wait(req), RTOPO_OK);
        CU_ASSERT_EQUAL(dst[0], (char)i);
    }
    CU_ASSERT_EQUAL(rtopo_req_free(req), RTOPO_OK);

    /* a nonblocking request cannot be restarted */
    CU_ASSERT_EQUAL_FATAL(rtopo_ishift(ring, src, dst, 10, 1, &req), RTOPO_OK);
    CU_ASSERT_EQUAL(rtopo_wait(req), RTOPO_OK);
    CU_ASSERT_EQUAL(rtopo_start(req), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_req_free(req), RTOPO_OK);

    /* in place */
    memcpy(dst, "abcdef", 6);
    CU_ASSERT_EQUAL(rtopo_shift(ring, dst, dst, 6, 1), RTOPO_OK);
    CU_ASSERT_EQUAL(memcmp(dst, "abcdef", 6), 0);

    CU_ASSERT_EQUAL(rtopo_mem_register(ctx, src, 0, &mem), RTOPO_ERR_INVAL);
    /* lengths that wrap the address space (issue 10) */
    CU_ASSERT_EQUAL(rtopo_mem_register(ctx, src, SIZE_MAX, &mem), RTOPO_ERR_INVAL);
    CU_ASSERT_EQUAL(rtopo_mem_register(ctx, src, (size_t)(UINTPTR_MAX - (uintptr_t)src) + 1,
                                       &mem), RTOPO_ERR_INVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(rtopo_last_error(), "address space"));
    CU_ASSERT_EQUAL_FATAL(rtopo_mem_register(ctx, src, sizeof(src), &mem), RTOPO_OK);
    CU_ASSERT_EQUAL(rtopo_shift(ring, src, dst, sizeof(src), 1), RTOPO_OK);
    CU_ASSERT_EQUAL(rtopo_mem_deregister(mem), RTOPO_OK);

    /* topologies still alive are freed by finalize */
    CU_ASSERT_EQUAL(rtopo_finalize(ctx), RTOPO_OK);
}

/* The model a machine with more ranks than processors calibrates, and the
 * scatter's choice under it: a 3-cube and its host on 3 emulated hosts of
 * 3 ranks, 8-byte windows.  Waking a receiver costs a turn (the burst
 * measured 4 ms: 4 rounds, each waiting about 1 ms); an eager sender
 * does not wait for it, a node that forwards does, so sending each
 * window from the host (seq) beats every tree, as measured there (seq
 * 0.23 ms, every other strategy 3.1-3.4 ms).  The turn must go to tt
 * even when the pairs' round trips left none (label a's sends slowed
 * past half the median round trip): fitted as tq, it holds every
 * sender's port, and seqscatter or decremental wins. */
static void test_calib_turn(void)
{
    uint32_t host[9] = { 0, 0, 0, 1, 1, 1, 2, 2, 2 };
    rtopo__layout_t lay = { 9, host };
    rtopo__scatter_cand_t cand[RTOPO__SCATTER_NCAND(3)];
    rtopo__tdesc_t t;
    rtopo__model_t m, w;
    rtopo__sched_t *s;
    double ts, tt, tq, t0, slope;
    int nc, strat, x;

    /* a quiet pair: its sends cost what they cost, the rest is the turn */
    rtopo__cal_split(106e-6, 100e-6, 1.8e-6, &ts, &tt);
    CU_ASSERT_DOUBLE_EQUAL(ts, 1.8e-6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tt, 51.2e-6, 1e-12);
    /* label a's sends slowed past half the median round trip: ts at most
     * half the shortest, tt the rest of half the median */
    rtopo__cal_split(106e-6, 40e-6, 60e-6, &ts, &tt);
    CU_ASSERT_DOUBLE_EQUAL(ts, 20e-6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tt, 33e-6, 1e-12);
    /* every round trip as slow: no turn left in the pair */
    rtopo__cal_split(106e-6, 106e-6, 60e-6, &ts, &tt);
    CU_ASSERT_DOUBLE_EQUAL(ts, 53e-6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tt, 0.0, 1e-12);

    CU_ASSERT_FATAL(rtopo__tdesc_init(&t, RTOPO__TOPO_HYPERCUBE, 8, 3, 0) == 0);
    CU_ASSERT_FATAL(rtopo__tdesc_add_host(&t) == 0);
    rtopo__model_default(&m);
    CU_ASSERT_FATAL(rtopo__model_parse("ts=53us,tw=0.1ns,lanes=2,eager=65536,intra.ts=53us,"
                                       "intra.tw=0.1ns,inter.ts=53us,inter.tw=0.3ns",
                                       &m) == RTOPO_OK);
    m.layout = &lay;
    /* the pairs measured with their turn: the burst fits tt */
    CU_ASSERT_FATAL(rtopo__cal_fit(&t, 8, &m, 1, 4e-3, &tq, &tt, &t0, &slope) == RTOPO_OK);
    CU_ASSERT_EQUAL(tq, 0.0);
    TU_CHECK(tt > 500e-6 && slope > 0 && t0 < 4e-3, "tt %g s, slope %g, t0 %g s", tt, slope,
             t0);
    w = m;
    w.tt = tt;
    CU_ASSERT_FATAL(rtopo__sched_scatter_auto_cand(&t, 1, 1, 8, &w, -1, RTOPO__SCATTER_AUTO,
                                                   cand, &nc, &strat, &x, &s) == RTOPO_OK);
    rtopo__sched_free(s);
    TU_CHECK(strat == RTOPO__SCATTER_SEQ, "with tt %g us the model chose strategy %d x %d",
             tt * 1e6, strat, x);
    /* the wait fitted as tq (a list that sets tt=0) holds every sender's
     * port: the host's 8 sends look slower than the trees */
    CU_ASSERT_FATAL(rtopo__cal_fit(&t, 8, &m, 0, 4e-3, &tq, &tt, &t0, &slope) == RTOPO_OK);
    CU_ASSERT_EQUAL(tt, 0.0);
    TU_CHECK(tq > 100e-6, "tq %g s", tq);
    w = m;
    w.tq = tq;
    CU_ASSERT_FATAL(rtopo__sched_scatter_auto_cand(&t, 1, 1, 8, &w, -1, RTOPO__SCATTER_AUTO,
                                                   cand, &nc, &strat, &x, &s) == RTOPO_OK);
    rtopo__sched_free(s);
    CU_ASSERT_NOT_EQUAL(strat, RTOPO__SCATTER_SEQ);
}

int tu_suite_runtime(void)
{
    CU_pSuite s = CU_add_suite("runtime", NULL, NULL);
    CU_pTest single = NULL;

    if (!s ||
        !CU_add_test(s, "status codes: names and texts", test_status_codes) ||
        !CU_add_test(s, "RTOPO_* table: defaults, sizes, bad values", test_params) ||
        !CU_add_test(s, "RTOPO_* numbers: decimal, within their bounds", test_params_bounds) ||
        !CU_add_test(s, "RTOPO_* backend settings: defaults, bounds", test_params_backend) ||
        !CU_add_test(s, "public API rejects bad arguments", test_api_arguments) ||
        !CU_add_test(s, "handle registry: lookups while handles come and go",
                     test_handle_registry) ||
        !CU_add_test(s, "handle registry: a handle found before is refused once removed",
                     test_handle_seen) ||
        !CU_add_test(s, "calibration: a machine's turn is tt; the scatter's choice under it",
                     test_calib_turn) ||
        !(single = CU_add_test(s, "a job of one rank", test_single_rank)))
        return CU_get_error();
    single_tr = single_rank_transport();
    if (!single_tr) {
        /* CUnit has no per-test skip: an inactive test is counted as such
         * in the run summary, and test_main.c does not count it as failed */
        const char *env = getenv("RTOPO_TRANSPORT");
        int named = env && *env && strcmp(env, "auto");

        printf("runtime: \"a job of one rank\" SKIPPED (inactive): %s%s is not usable here "
               "(rtopo-info --transports)\n", named ? "RTOPO_TRANSPORT=" : "no transport",
               named ? env : "");
        if (CU_set_test_active(single, CU_FALSE) != CUE_SUCCESS)
            return CU_get_error();
    } else {
        printf("runtime: \"a job of one rank\" runs on %s\n", single_tr);
    }
    return CUE_SUCCESS;
}
