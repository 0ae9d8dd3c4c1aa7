/*
 * boot_pmix.c - the pmix bootstrap method, for jobs started by a PMIx
 * launcher (mpirun, prterun, srun --mpi=pmix).
 *
 * Each allgather publishes the blob under a key of its own round
 * ("rtopo.boot.<seq>"), so that rounds never read each other's data,
 * then fences with data collection and reads every rank's key.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>
#include "rtopo.h"
#include "log.h"
#include "boot.h"
#include "boot_wire.h"

struct rtopo__boot_pmix {
    struct rtopo__boot base;
    pmix_proc_t self;
    pmix_proc_t all;           /* every rank of our namespace */
    int timeout_s;
    unsigned seq;
};

static int rtopo__pmix_status(pmix_status_t rc)
{
    return rc == PMIX_ERR_TIMEOUT ? RTOPO_ERR_TIMEOUT : RTOPO_ERR_BOOTSTRAP;
}

static int rtopo__pmix_fence(struct rtopo__boot_pmix *x, int collect)
{
    pmix_info_t info[2];
    bool flag = true;
    int timeout = x->timeout_s;
    size_t ninfo = 0;
    pmix_status_t rc;

    PMIX_INFO_CONSTRUCT(&info[0]);
    PMIX_INFO_CONSTRUCT(&info[1]);
    PMIX_INFO_LOAD(&info[ninfo], PMIX_TIMEOUT, &timeout, PMIX_INT);
    ninfo++;
    if (collect) {
        PMIX_INFO_LOAD(&info[ninfo], PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
        ninfo++;
    }
    rc = PMIx_Fence(&x->all, 1, info, ninfo);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS)
        return rtopo__error(rtopo__pmix_status(rc), "PMIx_Fence: %s",
                            PMIx_Error_string(rc));
    return RTOPO_OK;
}

static int rtopo__pmix_allgather(struct rtopo__boot *b, const void *in,
                                 void *out, size_t len)
{
    struct rtopo__boot_pmix *x = (struct rtopo__boot_pmix *)b;
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_value_t val, *got;
    pmix_proc_t peer;
    pmix_status_t rc;
    int r, st;

    if (len == 0)
        return rtopo__pmix_fence(x, 0);
    snprintf(key, sizeof(key), "rtopo.boot.%u", ++x->seq);
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)in;
    val.data.bo.size = len;
    rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc != PMIX_SUCCESS)
        return rtopo__error(RTOPO_ERR_BOOTSTRAP, "PMIx_Put %s: %s", key,
                            PMIx_Error_string(rc));
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return rtopo__error(RTOPO_ERR_BOOTSTRAP, "PMIx_Commit: %s",
                            PMIx_Error_string(rc));
    st = rtopo__pmix_fence(x, 1);
    if (st != RTOPO_OK)
        return st;

    for (r = 0; r < b->size; r++) {
        if (r == b->rank) {
            memcpy((char *)out + (size_t)r * len, in, len);
            continue;
        }
        PMIX_LOAD_PROCID(&peer, x->self.nspace, (pmix_rank_t)r);
        got = NULL;
        rc = PMIx_Get(&peer, key, NULL, 0, &got);
        if (rc != PMIX_SUCCESS)
            return rtopo__error(rtopo__pmix_status(rc),
                                "PMIx_Get %s of rank %d: %s", key, r,
                                PMIx_Error_string(rc));
        if (got->type != PMIX_BYTE_OBJECT || got->data.bo.size != len) {
            st = rtopo__error(RTOPO_ERR_MISMATCH,
                              "bootstrap round %u: rank %d gave %zu bytes, "
                              "this rank %zu", x->seq, r,
                              got->type == PMIX_BYTE_OBJECT ?
                              got->data.bo.size : (size_t)0, len);
            PMIX_VALUE_RELEASE(got);
            return st;
        }
        memcpy((char *)out + (size_t)r * len, got->data.bo.bytes, len);
        PMIX_VALUE_RELEASE(got);
    }
    return RTOPO_OK;
}

static int rtopo__pmix_barrier(struct rtopo__boot *b)
{
    return rtopo__pmix_fence((struct rtopo__boot_pmix *)b, 0);
}

static int rtopo__pmix_poll_failure(struct rtopo__boot *b, int *rank)
{
    return 0;
}

static void rtopo__pmix_close(struct rtopo__boot *b)
{
    pmix_status_t rc = PMIx_Finalize(NULL, 0);

    if (rc != PMIX_SUCCESS)
        rtopo__warn("PMIx_Finalize: %s", PMIx_Error_string(rc));
    free(b);
}

static const struct rtopo__boot_ops rtopo__boot_pmix_ops = {
    .name = "pmix",
    .allgather = rtopo__pmix_allgather,
    .barrier = rtopo__pmix_barrier,
    .poll_failure = rtopo__pmix_poll_failure,
    .close = rtopo__pmix_close,
};

int rtopo__boot_pmix_open(int timeout_ms, struct rtopo__boot **boot_p)
{
    struct rtopo__boot_pmix *x;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    int st;

    x = calloc(1, sizeof(*x));
    if (!x)
        return rtopo__error(RTOPO_ERR_NOMEM, "pmix bootstrap");
    rc = PMIx_Init(&x->self, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        st = rtopo__error(RTOPO_ERR_BOOTSTRAP, "PMIx_Init: %s",
                          PMIx_Error_string(rc));
        goto err_free;
    }
    PMIX_LOAD_PROCID(&x->all, x->self.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&x->all, PMIX_JOB_SIZE, NULL, 0, &val);
    if (rc != PMIX_SUCCESS) {
        st = rtopo__error(RTOPO_ERR_BOOTSTRAP, "PMIx_Get %s: %s",
                          PMIX_JOB_SIZE, PMIx_Error_string(rc));
        goto err_fini;
    }
    if (val->type != PMIX_UINT32 || val->data.uint32 < 1 ||
        x->self.rank >= val->data.uint32) {
        st = rtopo__error(RTOPO_ERR_BOOTSTRAP,
                          "PMIx job size (type %d) does not hold rank %u",
                          (int)val->type, x->self.rank);
        goto err_value;
    }
    x->base.ops = &rtopo__boot_pmix_ops;
    x->base.rank = (int)x->self.rank;
    x->base.size = (int)val->data.uint32;
    /* PMIx timeouts are whole seconds */
    x->timeout_s = timeout_ms > 0 ? timeout_ms / 1000 + (timeout_ms % 1000 != 0) : 0;
    PMIX_VALUE_RELEASE(val);
    *boot_p = &x->base;
    return RTOPO_OK;

err_value:
    PMIX_VALUE_RELEASE(val);
err_fini:
    PMIx_Finalize(NULL, 0);
err_free:
    free(x);
    return st;
}
