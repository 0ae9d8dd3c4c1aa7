/*
 * intruder_verbs_tl - the verbs transport's connection authentication,
 * through the ops table, in one process (run by intruder_verbs_tl.sh).
 *
 *   intruder_verbs_tl          exit 0 pass, 1 fail, 77 no usable verbs device
 *
 * Instances of the transport play ranks 0 and 1 of a 2-rank job, keyed
 * with set_auth() by random 8-byte tokens t0, t1 (what rtopo_init gives
 * them); a fake rank 1 ("F", plain rdma_cm) plays a process outside the job:
 *  1. fake responder: A (rank 0, keys t0 t1) connects to F's address as
 *     if it were rank 1's; F keeps A's request (private data and QP
 *     number) and accepts with a forged MAC.  A must disconnect and report
 *     TL_EV_ERROR RTOPO_ERR_AUTH for rank 1, and send() to rank 1 must give
 *     RTOPO_ERR_AUTH;
 *  2. replay: A's captured request, authentic but made for A's QP, is
 *     sent to B (the real rank 1, keys t0 t1) from another QP: B must
 *     reject it, giving authentication as the reason;
 *  3. wrong token: C (rank 0, keys t0' t1) connects to B: B must reject
 *     it and C report RTOPO_ERR_AUTH;
 *  4. the genuine rank: D (rank 0, keys t0 t1) connects to B and B
 *     receives D's control message from rank 0: the refusals before left
 *     nothing behind for rank 0.
 * One line per check, then "N passed, N failed".
 */
#include "config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "rtopo.h"
#include "tl.h"

#define TMO_S      15.0
#define CTRL_SIZE  256
#define CM_MAGIC   0x72766232u    /* "rvb2", transports/verbs/verbs_tl.c */
#define REJ_AUTH   3              /* RVB_REJ_AUTH */

struct vaddr {                    /* the verbs address blob */
    uint32_t magic, rank, ip;
    uint16_t port, pad;
};

struct vrep {                     /* the accept's private data */
    uint32_t magic, rank;
    uint8_t mac[32];
};

struct vrej {
    uint32_t magic, reason;
};

struct inst {
    const char *name;
    struct rtopo__tl *tl;
    int rank;
    int err_status;               /* first TL_EV_ERROR's status, 0 if none */
    int recv_from;                /* peer of the first TL_EV_RECV, -1 if none */
    char recv[64];
};

static const struct rtopo__tl_ops *ops;
static int npass, nfail;

static struct {                   /* the fake rank 1 */
    struct rdma_event_channel *ech;
    struct rdma_cm_id *listen;
    struct sockaddr_in addr;
    uint8_t req[56];              /* the request it received */
    uint32_t req_qpn;
    int got_req;
    struct rdma_cm_id *conn;
} F;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int check(int ok, const char *fmt, ...)
{
    va_list ap;

    printf("%s ", ok ? "PASS" : "FAIL");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    if (ok)
        npass++;
    else
        nfail++;
    return ok;
}

static void rnd(void *buf, size_t n)
{
    if (getrandom(buf, n, 0) != (ssize_t)n)
        memset(buf, 0x3c, n);
}

static int inst_open(struct inst *in, const char *name, int rank, const uint8_t *k0,
                     const uint8_t *k1)
{
    rtopo__tl_params_t params = { "verbs", rank, 2, 10000, CTRL_SIZE };

    memset(in, 0, sizeof(*in));
    in->name = name;
    in->rank = rank;
    in->recv_from = -1;
    if (ops->open(&params, &in->tl)) {
        printf("open %s: %s\n", name, rtopo_last_error());
        return -1;
    }
    if (ops->set_auth(in->tl, 0, k0, 8) || ops->set_auth(in->tl, 1, k1, 8)) {
        printf("set_auth %s: %s\n", name, rtopo_last_error());
        return -1;
    }
    return 0;
}

static void inst_poll(struct inst *in)
{
    rtopo__tl_event_t ev[8];
    int n, i;

    if (!in->tl)
        return;
    n = ops->poll(in->tl, ev, 8);
    for (i = 0; i < n; i++) {
        if (ev[i].type == RTOPO__TL_EV_ERROR && !in->err_status) {
            in->err_status = ev[i].status;
            printf("info %s: error event for rank %d: %s (%s)\n", in->name, ev[i].peer,
                   rtopo_err_name(ev[i].status), ev[i].msg);
        } else if (ev[i].type == RTOPO__TL_EV_RECV && in->recv_from < 0) {
            in->recv_from = ev[i].peer;
            snprintf(in->recv, sizeof(in->recv), "%.*s", (int)ev[i].len,
                     (const char *)ev[i].data);
        }
    }
}

/* F's events: keeps the request, accepts it with a forged MAC */
static void fake_poll(void)
{
    struct rdma_cm_event *e;

    while (rdma_get_cm_event(F.ech, &e) == 0) {
        if (e->event == RDMA_CM_EVENT_CONNECT_REQUEST && !F.got_req) {
            struct ibv_qp_init_attr qa;
            struct rdma_conn_param cp;
            struct vrep rp;

            F.got_req = 1;
            F.conn = e->id;
            if (e->param.conn.private_data && e->param.conn.private_data_len >= sizeof(F.req))
                memcpy(F.req, e->param.conn.private_data, sizeof(F.req));
            F.req_qpn = e->param.conn.qp_num;
            memset(&qa, 0, sizeof(qa));
            qa.qp_type = IBV_QPT_RC;
            qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
            qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
            memset(&cp, 0, sizeof(cp));
            rp.magic = htonl(CM_MAGIC);
            rp.rank = htonl(1);
            rnd(rp.mac, sizeof(rp.mac));
            cp.private_data = &rp;
            cp.private_data_len = sizeof(rp);
            cp.retry_count = 7;
            cp.rnr_retry_count = 7;
            if (rdma_create_qp(e->id, NULL, &qa) || rdma_accept(e->id, &cp))
                printf("info F: cannot accept: %s\n", strerror(errno));
        } else if (e->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
            rdma_reject(e->id, NULL, 0);
        }
        rdma_ack_cm_event(e);
    }
}

static int fake_open(const struct sockaddr_in *ip)
{
    F.ech = rdma_create_event_channel();
    if (!F.ech || fcntl(F.ech->fd, F_SETFL, fcntl(F.ech->fd, F_GETFL) | O_NONBLOCK) ||
        rdma_create_id(F.ech, &F.listen, NULL, RDMA_PS_TCP))
        return -1;
    F.addr = *ip;
    F.addr.sin_port = 0;
    if (rdma_bind_addr(F.listen, (struct sockaddr *)&F.addr) || rdma_listen(F.listen, 8))
        return -1;
    F.addr.sin_port = rdma_get_src_port(F.listen);
    return 0;
}

static void blob_of(const struct inst *in, struct vaddr *a)
{
    size_t len = sizeof(*a);

    ops->addr_get(in->tl, a, &len);
}

/* polls everything until done() or TMO_S; 1 when done */
static int run_until(struct inst **all, int n, int (*done)(void *), void *arg)
{
    double end = now_s() + TMO_S;
    int i;

    while (now_s() < end) {
        for (i = 0; i < n; i++)
            inst_poll(all[i]);
        if (F.ech)
            fake_poll();
        if (done(arg))
            return 1;
        usleep(1000);
    }
    return 0;
}

static int has_error(void *arg)
{
    return ((struct inst *)arg)->err_status != 0;
}

static int has_recv(void *arg)
{
    return ((struct inst *)arg)->recv_from >= 0;
}

static int sends(void *arg)
{
    struct inst *in = arg;
    static const char msg[] = "hello from rank 0";

    /* BUSY until the connection is up */
    return ops->send(in->tl, 1, msg, sizeof(msg), NULL) == RTOPO_OK;
}

/* an rdma_cm request of ours to `to` with private data `priv`, polling
 * `drive` (the target) meanwhile: the reason of its reject, 0 when not
 * rejected with one, < 0 on failure */
static int replay(const struct sockaddr_in *to, const void *priv, size_t len,
                  struct inst *drive)
{
    struct rdma_event_channel *ch = rdma_create_event_channel();
    struct rdma_cm_id *id = NULL;
    struct rdma_cm_event *e;
    struct ibv_qp_init_attr qa;
    struct rdma_conn_param cp;
    struct sockaddr_in src = *to;
    struct pollfd pfd;
    int result = -1;
    double end = now_s() + TMO_S;

    if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
        return -1;
    src.sin_port = 0;
    if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)to, 2000))
        goto out;
    pfd.fd = ch->fd;
    pfd.events = POLLIN;
    while (result < 0 && now_s() < end) {
        inst_poll(drive);
        if (poll(&pfd, 1, 1) <= 0 || rdma_get_cm_event(ch, &e))
            continue;
        switch (e->event) {
        case RDMA_CM_EVENT_ADDR_RESOLVED:
            if (rdma_resolve_route(id, 2000))
                result = -2;
            break;
        case RDMA_CM_EVENT_ROUTE_RESOLVED:
            memset(&qa, 0, sizeof(qa));
            qa.qp_type = IBV_QPT_RC;
            qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
            qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
            memset(&cp, 0, sizeof(cp));
            cp.private_data = priv;
            cp.private_data_len = (uint8_t)len;
            cp.retry_count = 1;
            if (rdma_create_qp(id, NULL, &qa) || rdma_connect(id, &cp))
                result = -2;
            else
                printf("info replay from qp 0x%x (the request was made for qp 0x%x)\n",
                       id->qp->qp_num, F.req_qpn);
            break;
        case RDMA_CM_EVENT_REJECTED: {
            const struct vrej *rj = e->param.conn.private_data;

            result = rj && e->param.conn.private_data_len >= sizeof(*rj) &&
                     ntohl(rj->magic) == CM_MAGIC ? (int)ntohl(rj->reason) : 0;
            break;
        }
        case RDMA_CM_EVENT_ESTABLISHED:
            printf("info the replayed request was ACCEPTED\n");
            rdma_disconnect(id);
            result = 0;
            break;
        default:
            printf("info replay: %s\n", rdma_event_str(e->event));
            result = -2;
            break;
        }
        rdma_ack_cm_event(e);
    }
out:
    if (id->qp)
        rdma_destroy_qp(id);
    rdma_destroy_id(id);
    rdma_destroy_event_channel(ch);
    return result;
}

int main(void)
{
    struct inst A, B, C, D, *all[4];
    uint8_t t0[8], t1[8], t0x[8];
    struct vaddr ab, bb, fb;
    struct sockaddr_in bsin;
    static const char msg[] = "x";
    int st;

    setvbuf(stdout, NULL, _IOLBF, 0);
    ops = rtopo__tl_find("verbs");
    if (!ops || !RTOPO__TL_HAS(ops, set_auth)) {
        printf("the verbs transport is not built: skipped\n");
        return 77;
    }
    if (!ops->available("verbs")) {
        printf("no usable verbs device: skipped\n");
        return 77;
    }
    rnd(t0, 8);
    rnd(t1, 8);
    memcpy(t0x, t0, 8);
    t0x[0] ^= 1;
    if (inst_open(&A, "A", 0, t0, t1) || inst_open(&B, "B", 1, t0, t1))
        return 1;
    blob_of(&A, &ab);
    blob_of(&B, &bb);
    memset(&bsin, 0, sizeof(bsin));
    bsin.sin_family = AF_INET;
    bsin.sin_addr.s_addr = bb.ip;
    bsin.sin_port = bb.port;
    if (fake_open(&bsin)) {
        printf("cannot open the fake rank: %s\n", strerror(errno));
        return 1;
    }

    /* 1. A connects to F as if F were rank 1 */
    fb = bb;
    fb.port = F.addr.sin_port;
    all[0] = &A;
    st = ops->connect(A.tl, 1, &fb, sizeof(fb));
    check(st == RTOPO_OK, "A: connect to the fake rank 1 (%s)", rtopo_err_name(st));
    run_until(all, 1, has_error, &A);
    check(F.got_req, "F received A's request (qp 0x%x)", F.req_qpn);
    check(A.err_status == RTOPO_ERR_AUTH, "A: the forged accept is reported as %s "
          "(want AUTH)", A.err_status ? rtopo_err_name(A.err_status) : "nothing");
    st = ops->send(A.tl, 1, msg, sizeof(msg), NULL);
    check(st == RTOPO_ERR_AUTH, "A: send to rank 1 afterwards gives %s (want AUTH)",
          rtopo_err_name(st));

    /* 2. A's authentic request, replayed to B from another QP */
    if (F.got_req) {
        int reason = replay(&bsin, F.req, sizeof(F.req), &B);

        check(reason == REJ_AUTH, "B: the replayed request is rejected for authentication "
              "(reason %d, want %d)", reason, REJ_AUTH);
    }

    /* 3. C: rank 0 with a wrong token for itself */
    if (inst_open(&C, "C", 0, t0x, t1))
        return 1;
    all[0] = &B;
    all[1] = &C;
    st = ops->connect(C.tl, 1, &bb, sizeof(bb));
    check(st == RTOPO_OK, "C: connect to B (%s)", rtopo_err_name(st));
    run_until(all, 2, has_error, &C);
    check(C.err_status == RTOPO_ERR_AUTH, "C (wrong token): refused, reported as %s "
          "(want AUTH)", C.err_status ? rtopo_err_name(C.err_status) : "nothing");

    /* 4. D: the genuine rank 0 */
    if (inst_open(&D, "D", 0, t0, t1))
        return 1;
    blob_of(&D, &ab);
    all[1] = &D;
    st = ops->connect(B.tl, 0, &ab, sizeof(ab));
    check(st == RTOPO_OK, "B: connect to D (%s)", rtopo_err_name(st));
    st = ops->connect(D.tl, 1, &bb, sizeof(bb));
    check(st == RTOPO_OK, "D: connect to B (%s)", rtopo_err_name(st));
    check(run_until(all, 2, sends, &D), "D: a control message to B leaves (connection "
          "authenticated both ways)");
    run_until(all, 2, has_recv, &B);
    check(B.recv_from == 0 && !strcmp(B.recv, "hello from rank 0"), "B: received "
          "\"%s\" from rank %d", B.recv, B.recv_from);
    check(!B.err_status && !D.err_status, "no errors on B or D (%s, %s)",
          rtopo_err_name(B.err_status), rtopo_err_name(D.err_status));

    ops->close(A.tl);
    ops->close(C.tl);
    ops->close(D.tl);
    ops->close(B.tl);
    if (F.conn) {
        if (F.conn->qp)
            rdma_destroy_qp(F.conn);
        rdma_destroy_id(F.conn);
    }
    rdma_destroy_id(F.listen);
    rdma_destroy_event_channel(F.ech);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
}
