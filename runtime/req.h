/*
 * req.h - requests (req.c): one collective call's plan and buffers,
 * started, waited for, tested and freed, whatever the collective.
 */
#ifndef RTOPO_REQ_H
#define RTOPO_REQ_H

#include "exec.h"

struct rtopo_req {
    rtopo__op_t op;
    uint8_t *tmp;           /* TMP scratch of the schedule, kept across starts */
    struct rtopo_mem *tmp_mem;  /* ... a registered staging block */
    int persistent;
    int started;
    int user_active;        /* started, completion not yet seen by the caller */
    int orphan;             /* freed by the caller while writes were out */
    int listed;             /* registered as a handle (handed to the caller) */
    uint64_t send_sum;      /* RTOPO_CHECK_BUFFERS */
    const void *sendbuf;
    void *recvbuf;
    size_t sbytes;          /* what the schedule may read of sendbuf */
    size_t rbytes;          /* ... and write of recvbuf */
    const void *aux_in;     /* staged into TMP[0, aux_in_len) at each start */
    size_t aux_in_len;
    void *aux_out;          /* filled from TMP[8, 8 + aux_out_len) when the
                               operation completes */
    size_t aux_out_len;
    int bad;                /* an argument only this rank could check is
                               wrong: starting fails the job with it */
    char badmsg[200];
    struct rtopo_req *next, *prev;   /* ctx request list */
};

/* Requests of any collective.  A call is blocking, nonblocking or
 * persistent (its "how"); a blocking call's request never leaves the
 * library, so it is not registered as a handle. */
enum { RTOPO__CALL_BLOCK = 0, RTOPO__CALL_START = 1, RTOPO__CALL_INIT = 2 };
/* rtopo__req_new takes the caller's reference to plan (released on
 * failure too) */
int rtopo__req_new(rtopo_topo_t *t, rtopo__plan_t *plan, const void *sendbuf,
                   size_t sbytes, void *recvbuf, size_t rbytes, int how,
                   rtopo_req_t **req_p);
/* a request just made, run as its call asks (context entered): a blocking
 * call's is started, waited for and freed, and its status returned; a
 * nonblocking call's is started and goes to *req_p (freed and NULL there
 * if it cannot start); a persistent call's goes to *req_p as it is */
int rtopo__req_call(rtopo_req_t *req, int how, rtopo_req_t **req_p);
/* A blocking call on the plan of the topology's spare request (context
 * entered, t->spare set): as rtopo__req_new and rtopo__req_call would run
 * it, on the spare and its plan reference, without taking the plan
 * again; the spare is the spare again after a call that went well. */
int rtopo__req_spare_block(rtopo_topo_t *t, const void *sendbuf, size_t sbytes,
                           void *recvbuf, size_t rbytes);
void rtopo__req_destroy(rtopo_req_t *req);
/* frees a request that is on no list (a topology's spare) */
void rtopo__req_release(rtopo_req_t *req);
/* starts a request and waits for it, as rtopo_start and rtopo_wait do
 * (context entered): the runtime's own requests (calib.c) */
int rtopo__req_run(rtopo_req_t *req);
/* A collective call that failed here before its operation started (an
 * argument error; RTOPO_ERR_BUSY aside: the request's operation goes on)
 * keeps its place on the topology and the other ranks hear of it
 * (rtopo__probe_call_failed): where they failed alike every rank goes on,
 * where they made the call the job fails with this status.  Persistent
 * requests do so at rtopo_start, not at their creation. */
int rtopo__call_failed(rtopo_topo_t *t, int st);
static inline int rtopo__call_result(rtopo_topo_t *t, int how, int st)
{
    return st && st != RTOPO_ERR_BUSY && how != RTOPO__CALL_INIT ? rtopo__call_failed(t, st)
                                                                 : st;
}
/* what rtopo_req_free does, context entered, the request not in flight */
void rtopo__req_free(rtopo_req_t *req);
/* a persistent request running any schedule (tools, tests); takes s */
int rtopo__req_sched(rtopo_topo_t *t, rtopo__sched_t *s, const rtopo__opdesc_t *d,
                     const void *sendbuf, size_t sbytes, void *recvbuf, size_t rbytes,
                     rtopo_req_t **req_p);

#endif
