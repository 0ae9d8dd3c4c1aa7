/*
 * test_unit.h - the CUnit unit test binary: one suite per component.
 */
#ifndef RTOPO_TEST_UNIT_H
#define RTOPO_TEST_UNIT_H

#include <stdio.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include "rtopo_sched.h"

/* each test_<component>.c registers its suite(s); CUE_SUCCESS or error */
int tu_suite_topo(void);
int tu_suite_shift_sched(void);
int tu_suite_sim(void);
int tu_suite_formulas(void);
int tu_suite_runtime(void);
int tu_suite_kernel(void);
int tu_suite_cart(void);
int tu_suite_coll(void);
int tu_suite_memmon(void);
int tu_suite_place(void);
int tu_suite_share(void);

/* record a failure with details on stderr (CUnit messages cannot be
 * formatted); evaluates to cond */
#define TU_CHECK(cond, ...)                                                   \
    ((cond) ? 1 : (fprintf(stderr, "\n  %s:%d: ", __FILE__, __LINE__),       \
                   fprintf(stderr, __VA_ARGS__), fputc('\n', stderr),        \
                   CU_assertImplementation(CU_FALSE, __LINE__, #cond,        \
                                           __FILE__, "", CU_FALSE), 0))

/* per-rank SEND/RECV/TMP buffers for sim_exec checks */
typedef struct tu_bufs {
    int p;
    uint64_t len, tmp;
    uint8_t *mem;
    uint8_t **ptr;
    uint8_t ***bufs;
} tu_bufs_t;

int tu_bufs_init(tu_bufs_t *b, int p, uint64_t len, uint64_t tmp);
void tu_bufs_fill(tu_bufs_t *b);
void tu_bufs_free(tu_bufs_t *b);
uint8_t tu_pattern(int rank, uint64_t k);
/* every residue 0..p-1, then -1, -p, -p-3, p, 2p+1, LONG_MAX, LONG_MIN;
 * returns the count (p + 7) */
int tu_q_values(int p, long *v);

/* build a shift schedule, validate it, simulate it, execute it and check
 * the data placement; fills *r (r->correct set).  Returns 0 when every
 * check passed (failures are recorded through TU_CHECK). */
int tu_shift_check(const rtopo__tdesc_t *t, int algo, long q, tu_bufs_t *b,
                   rtopo__sim_result_t *r, rtopo__sched_t **s_p);

/* transfer i of s set to x, or the test stops */
static inline void tu_xput(rtopo__sched_t *s, uint32_t i, rtopo__xfer_t x)
{
    CU_ASSERT_FATAL(rtopo__sched_xset(s, i, &x) == RTOPO_OK);
}
/* one field of transfer i of s set to v */
#define TU_XFIELD(s, i, f, v)                                   \
    do {                                                        \
        rtopo__xfer_t tu_x_ = rtopo__sched_xfer((s), (i));      \
        tu_x_.f = (v);                                          \
        tu_xput((s), (i), tu_x_);                               \
    } while (0)

/* a and b (as many kernels) hold the same kernels, written out whole */
static inline int tu_kerns_alike(const rtopo__sched_t *a, const rtopo__sched_t *b)
{
    uint32_t i;

    for (i = 0; i < a->nkerns; i++) {
        rtopo__kern_t x = rtopo__sched_kern(a, i), y = rtopo__sched_kern(b, i);

        if (memcmp(&x, &y, sizeof(x)))
            return 0;
    }
    return 1;
}

#endif
