/*
 * call_forms.h - the three call forms of an operation from one definition.
 *
 *   RTOPO__CALL_FORMS(name, impl, (params), (args))
 *
 * defines the public functions
 *
 *   int rtopo_<name>(params)                           blocking
 *   int rtopo_i<name>(params, rtopo_req_t **req)       nonblocking
 *   int rtopo_<name>_init(params, rtopo_req_t **req)   persistent
 *
 * each returning impl(args, how, req) with how RTOPO__CALL_BLOCK (and req
 * NULL), RTOPO__CALL_START or RTOPO__CALL_INIT.  args may hold constants
 * besides the parameters (the op of an impl shared by several
 * operations).  The prototypes are in rtopo.h.  The first parameter is
 * the topology, named t: a call that fails before its operation starts
 * tells the other ranks (rtopo__call_result, req.h).
 */
#ifndef RTOPO_CALL_FORMS_H
#define RTOPO_CALL_FORMS_H

#define RTOPO__UNPAREN(...) __VA_ARGS__

#define RTOPO__CALL_FORMS(name, impl, params, args)                           \
    int rtopo_##name(RTOPO__UNPAREN params)                                   \
    {                                                                         \
        return rtopo__call_result(t, RTOPO__CALL_BLOCK, impl(RTOPO__UNPAREN args, \
                                          RTOPO__CALL_BLOCK, NULL));          \
    }                                                                         \
    int rtopo_i##name(RTOPO__UNPAREN params, rtopo_req_t **req)               \
    {                                                                         \
        return rtopo__call_result(t, RTOPO__CALL_START, impl(RTOPO__UNPAREN args, \
                                          RTOPO__CALL_START, req));           \
    }                                                                         \
    int rtopo_##name##_init(RTOPO__UNPAREN params, rtopo_req_t **req)         \
    {                                                                         \
        return rtopo__call_result(t, RTOPO__CALL_INIT, impl(RTOPO__UNPAREN args, \
                                          RTOPO__CALL_INIT, req));            \
    }

#endif
