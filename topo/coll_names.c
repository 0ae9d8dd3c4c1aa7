/*
 * coll_names.c - the names of the collectives (rtopo_sched.h,
 * RTOPO__COLL_OPS), at the bottom of the collectives' files: the
 * builders, the families, the reference and the descriptor table above
 * them all name an op in their messages through rtopo__coll_name.
 */
#include "config.h"
#include <string.h>
#include "rtopo_sched.h"

#define RTOPO__COLL_NAME(id, name) [RTOPO__COLL_##id] = name,
static const char *const rtopo__coll_names[RTOPO__COLL_NOPS] = {
    RTOPO__COLL_OPS(RTOPO__COLL_NAME)
};

int rtopo__coll_parse(const char *name)
{
    int op;

    for (op = 1; name && op < RTOPO__COLL_NOPS; op++)
        if (rtopo__coll_names[op] && !strcmp(rtopo__coll_names[op], name))
            return op;
    return -1;
}

const char *rtopo__coll_name(int op)
{
    return op > 0 && op < RTOPO__COLL_NOPS && rtopo__coll_names[op] ?
           rtopo__coll_names[op] : "?";
}
