/*
 * tl.c - the list of built transports, in order of preference for "auto".
 */
#include "config.h"
#include <string.h>
#include "tl.h"

static const struct rtopo__tl_ops *const rtopo__tl_list[] = {
    &rtopo__tl_shm,     /* by name only: "auto" passes it by */
#ifdef HAVE_VERBS
    &rtopo__tl_verbs,
#endif
#ifdef HAVE_OFI
    &rtopo__tl_ofi,
#endif
    &rtopo__tl_multi,   /* by "auto" with a host map, or "multi:<net>" */
    NULL
};

const struct rtopo__tl_ops *rtopo__tl_get(int i)
{
    if (i < 0 || i >= (int)(sizeof(rtopo__tl_list) / sizeof(rtopo__tl_list[0])))
        return NULL;
    return rtopo__tl_list[i];
}

const struct rtopo__tl_ops *rtopo__tl_find(const char *transport)
{
    const struct rtopo__tl_ops *ops;
    int i;

    if (transport == NULL || !strcmp(transport, "auto")) {
        /* first backend usable on this machine */
        for (i = 0; (ops = rtopo__tl_get(i)) != NULL; i++)
            if (ops->available(NULL))
                return ops;
        return NULL;
    }
    for (i = 0; (ops = rtopo__tl_get(i)) != NULL; i++)
        if (ops->match(transport))
            return ops;
    return NULL;
}

void rtopo__tl_job_size(int nranks)
{
    const struct rtopo__tl_ops *ops;
    int i;

    for (i = 0; (ops = rtopo__tl_get(i)) != NULL; i++)
        if (RTOPO__TL_HAS(ops, job_size))
            ops->job_size(nranks);
}
