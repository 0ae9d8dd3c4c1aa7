/*
 * verbs_tl.c - RDMA transport over librdmacm + libibverbs, one RC QP per peer.
 *
 * Resources per instance: one PD, one CQ with a completion channel (so
 * wait() sleeps in the kernel), one SRQ of control receive buffers shared
 * by all QPs, a registered bounce pool for control sends and inject
 * writes, and an rdma_cm event channel with a listening id bound to the
 * device's IPv4 address on an ephemeral port.
 *
 * Connection: the lower rank of an edge resolves and connects; the higher
 * rank accepts.  connect() returns at once; the handshake advances inside
 * poll()/wait().  Until the QP is established, write() and send() to that
 * peer return RTOPO_ERR_BUSY (nothing is queued; the engine polls and
 * retries).
 *
 * Authentication: rdma_cm lets anyone who can reach the listening address
 * ask for a QP, so both ends prove they hold the job's key material (the
 * two ranks' per-job tokens, given by set_auth()) before the QP carries
 * anything.  The request carries the initiator's rank, a fresh nonce and
 * an HMAC-SHA256 over both ranks, the nonce and the initiator's QP number;
 * the acceptor checks it before it creates a QP, and accepts each lower
 * rank once.  The accept carries the responder's HMAC over the same
 * nonce and both QP numbers, checked by the initiator when the connection
 * is established (the reply's private data arrives with that event),
 * before it lets anything out.  A REQ holds 56 bytes of private data after
 * rdma_cm's own header on IB and RoCE, a REP 196: struct rvb_req fills
 * the REQ exactly.
 *
 * Receives: writes with immediate also consume an SRQ receive; the SRQ is
 * refilled as buffers come back, and QPs use infinite RNR retry, so a
 * burst larger than the SRQ stalls instead of failing.
 */
#include "config.h"
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>
#include <sys/random.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include "rtopo.h"
#include "log.h"
#include "tl.h"

#define RVB_MAGIC        0x72766231u   /* "rvb1": address blob */
#define RVB_CM_MAGIC     0x72766232u   /* "rvb2": connection private data */
#define RVB_NONCE        16
#define RVB_MAC          SHA256_DIGEST_SIZE
#define RVB_KEY_MAX      32            /* key material per rank (a token: 8) */
#define RVB_REQ_PRIV_MAX 56            /* IB/RoCE REQ: 92 bytes - rdma_cm's 36 */
#define RVB_REP_PRIV_MAX 196           /* IB/RoCE REP */
#define RVB_NREJ_LOG     16            /* rejected sources logged by name */
#define RVB_SQ_DEPTH     256           /* send WRs per QP (RTOPO_VERBS_SQ_DEPTH) */
#define RVB_NOPS         2048          /* send WRs in flight, all QPs */
#define RVB_NRECV        512           /* SRQ receive buffers */
#define RVB_NBOUNCE      256           /* bounce slots (pinned: 1 MiB) */
#define RVB_INJECT_MAX   4096          /* inject writes copied up to this size
                                          (RTOPO_VERBS_INJECT_MAX) */
#define RVB_INLINE_REQ   256           /* max_inline_data asked of each QP */
#define RVB_CM_TIMEOUT   2000          /* address/route resolution, ms */
#define RVB_NSTASH       32
#define RVB_RECV_BIT     (1ull << 63)  /* wr_id of a receive */

enum rvb_state {
    RVB_IDLE = 0,       /* connect() not called, no request seen */
    RVB_WAIT,           /* higher rank: waiting for the peer's request */
    RVB_RESOLVING,      /* lower rank: address/route resolution */
    RVB_CONNECTING,     /* QP created, rdma_connect/accept sent */
    RVB_CONNECTED,
    RVB_FAILED,
};

enum rvb_op_kind { RVB_OP_WRITE = 1, RVB_OP_SEND, RVB_OP_SILENT };

struct rvb_addr {           /* the address blob */
    uint32_t magic;
    uint32_t rank;
    uint32_t ip;            /* network order */
    uint16_t port;          /* network order */
    uint16_t pad;
};

struct rvb_req {            /* rdma_connect private data */
    uint32_t magic;         /* RVB_CM_MAGIC, network order */
    uint32_t rank;          /* the initiator, network order */
    uint8_t nonce[RVB_NONCE];
    uint8_t mac[RVB_MAC];   /* rvb_mac(RVB_REQ, ..., responder qpn 0) */
};

struct rvb_rep {            /* rdma_accept private data */
    uint32_t magic;
    uint32_t rank;          /* the responder */
    uint8_t mac[RVB_MAC];   /* rvb_mac(RVB_REP, ...) over the request's nonce */
};

struct rvb_rej {            /* rdma_reject private data: why, for the initiator */
    uint32_t magic;
    uint32_t reason;        /* RVB_REJ_* */
};

enum { RVB_REJ_FORMAT = 1, RVB_REJ_RANK, RVB_REJ_AUTH, RVB_REJ_DUPLICATE, RVB_REJ_QP };

_Static_assert(sizeof(struct rvb_req) <= RVB_REQ_PRIV_MAX, "REQ private data too large");
_Static_assert(sizeof(struct rvb_rep) <= RVB_REP_PRIV_MAX, "REP private data too large");

struct rvb_key {
    uint8_t len;
    uint8_t b[RVB_KEY_MAX];
};

struct rvb_peer {
    int state;
    int reported;           /* a TL_EV_ERROR went out for this peer */
    int status;             /* why it failed (RVB_FAILED) */
    uint8_t nonce[RVB_NONCE];   /* of our request (we are the lower rank) */
    struct rdma_cm_id *id;
    struct ibv_qp *qp;
    int sq_used;
    struct sockaddr_in addr;
};

struct rvb_op {
    void *ctx;
    int kind;
    int peer;
    int bounce;             /* slot, or -1 */
    int next;               /* free list */
};

struct rvb_mr {
    struct ibv_mr *mr;
};

struct rvb_tl {
    int rank;
    int nranks;
    size_t ctrl_size;
    struct ibv_context **cm_devs;   /* rdma_get_devices(): contexts rdma_cm uses */
    struct ibv_context *ctx;
    char devname[64];
    uint8_t port;
    struct ibv_port_attr port_attr;
    struct ibv_device_attr dev_attr;
    int gid_idx;                    /* RoCE v2 IPv4 GID, -1 on IB */
    struct sockaddr_in sin;         /* listening address */

    struct ibv_pd *pd;
    struct ibv_comp_channel *cch;
    struct ibv_cq *cq;
    unsigned cq_unacked;
    struct ibv_srq *srq;
    struct rdma_event_channel *ech;
    struct rdma_cm_id *listen_id;
    int wait_ep;                    /* epoll over cch and ech (wait_fd), -2:
                                       not made yet, -1: none */

    char *rbuf;                     /* receive slots */
    struct ibv_mr *rmr;
    size_t rslot;
    int nrecv;
    int *repost;                    /* slots handed out by the last poll() */
    int nrepost;

    char *bbuf;                     /* bounce slots */
    struct ibv_mr *bmr;
    size_t bslot;
    int *bfree;
    int nbfree;

    struct rvb_op *ops;
    int op_free;

    struct rvb_peer *peers;
    uint32_t *qpn_key;              /* open addressing: qp_num -> rank */
    uint64_t dropped;               /* completions refused: not from the job */
    int *qpn_val;
    unsigned qpn_mask;

    rtopo__tl_event_t *pend;        /* events raised outside the CQ */
    int npend, pend_cap;
    struct ibv_wc stash[RVB_NSTASH];  /* CQ entries read by wait() */
    int nstash;

    uint32_t max_inline;
    int inline_known;
    size_t inject_max;
    int sq_depth;

    struct rvb_key *keys;           /* per rank, from set_auth() */
    uint32_t rej_src[RVB_NREJ_LOG]; /* sources whose rejection was logged */
    int nrej_src;
    unsigned long nrejected;
};

static inline struct rvb_tl *rvb_tl(struct rtopo__tl *tl)
{
    return (struct rvb_tl *)tl;
}

/* ---- helpers -------------------------------------------------------------- */

static int rvb_match(const char *transport)
{
    return transport != NULL &&
           (!strcmp(transport, "verbs") || !strncmp(transport, "verbs:", 6));
}

/* device named in "verbs:<device>", or NULL */
static const char *rvb_devname(const char *transport)
{
    if (transport && !strncmp(transport, "verbs:", 6) && transport[6])
        return transport + 6;
    return NULL;
}

static void rvb_memlock_str(char *buf, size_t len)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_MEMLOCK, &rl))
        snprintf(buf, len, "unknown");
    else if (rl.rlim_cur == RLIM_INFINITY)
        snprintf(buf, len, "unlimited");
    else
        snprintf(buf, len, "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
}

/* errno of a failed allocation of pinned memory, with the memlock limit */
static int rvb_pin_error(const char *what, size_t len)
{
    char lim[32];
    int err = errno;

    rvb_memlock_str(lim, sizeof(lim));
    errno = err;
    if (err == ENOMEM || err == EPERM || err == EAGAIN)
        return rtopo__error(RTOPO_ERR_NOMEM, "%s (%zu bytes): %m; memlock limit "
                            "(ulimit -l) is %s", what, len, lim);
    return rtopo__error(RTOPO_ERR_TRANSPORT, "%s (%zu bytes): %m", what, len);
}

static int rvb_is_ipv4_gid(const union ibv_gid *gid)
{
    static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

    return !memcmp(gid->raw, prefix, sizeof(prefix));
}

static const char *rvb_gid_type_str(unsigned type)
{
    switch (type) {
    case IBV_GID_TYPE_IB:      return "IB";
    case IBV_GID_TYPE_ROCE_V1: return "RoCE v1";
    case IBV_GID_TYPE_ROCE_V2: return "RoCE v2";
    }
    return "?";
}

/* GID type as the kernel lists it in sysfs ("IB/RoCE v1", "RoCE v2") */
static int rvb_sysfs_gid_type(const char *dev, int port, int idx, char *buf, size_t len)
{
    char path[256];
    FILE *f;
    int ok;

    snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gid_attrs/types/%d",
             dev, port, idx);
    f = fopen(path, "r");
    if (f == NULL)
        return -1;
    ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* IPv4 of the port: the RoCE v2 GID holding an IPv4-mapped address; on
 * InfiniBand, the first IPv4 address of the device's (IPoIB) net devices. */
static int rvb_port_ipv4(struct ibv_context *ctx, uint8_t port, int link_layer,
                         struct in_addr *ip, int *gid_idx)
{
    struct ibv_gid_entry ent[256];
    char path[256];
    struct ifaddrs *ifa, *i;
    struct dirent *de;
    DIR *d;
    ssize_t n, k;
    int found = 0;

    *gid_idx = -1;
    if (link_layer == IBV_LINK_LAYER_ETHERNET) {
        n = ibv_query_gid_table(ctx, ent, 256, 0);
        for (k = 0; k < n; k++) {
            if (ent[k].port_num != port || ent[k].gid_type != IBV_GID_TYPE_ROCE_V2 ||
                !rvb_is_ipv4_gid(&ent[k].gid))
                continue;
            memcpy(&ip->s_addr, ent[k].gid.raw + 12, 4);
            *gid_idx = ent[k].gid_index;
            return 0;
        }
        if (n >= 0)
            return -1;
        /* no ioctl interface: walk the table through sysfs */
        for (k = 0; k < 256; k++) {
            union ibv_gid gid;
            char type[32];

            if (ibv_query_gid(ctx, port, k, &gid))
                break;
            if (rvb_is_ipv4_gid(&gid) &&
                !rvb_sysfs_gid_type(ibv_get_device_name(ctx->device), port, k, type,
                                    sizeof(type)) && !strcmp(type, "RoCE v2")) {
                memcpy(&ip->s_addr, gid.raw + 12, 4);
                *gid_idx = k;
                return 0;
            }
        }
        return -1;
    }

    snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/net",
             ibv_get_device_name(ctx->device));
    d = opendir(path);
    if (d == NULL)
        return -1;
    if (getifaddrs(&ifa)) {
        closedir(d);
        return -1;
    }
    while (!found && (de = readdir(d)) != NULL) {
        for (i = ifa; i; i = i->ifa_next) {
            if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
                !strcmp(i->ifa_name, de->d_name)) {
                *ip = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
                found = 1;
                break;
            }
        }
    }
    freeifaddrs(ifa);
    closedir(d);
    return found ? 0 : -1;
}

/* ---- availability ------------------------------------------------------------ */

static int rvb_available(const char *transport)
{
    const char *want = rvb_devname(transport);
    struct ibv_device **list;
    int n, i, ok = 0;

    list = ibv_get_device_list(&n);
    if (list == NULL)
        return 0;
    for (i = 0; i < n && !ok; i++) {
        struct ibv_device_attr da;
        struct ibv_context *ctx;
        uint8_t p;

        if (want && strcmp(want, ibv_get_device_name(list[i])))
            continue;
        ctx = ibv_open_device(list[i]);
        if (ctx == NULL)
            continue;
        if (!ibv_query_device(ctx, &da)) {
            for (p = 1; p <= da.phys_port_cnt && !ok; p++) {
                struct ibv_port_attr pa;

                if (!ibv_query_port(ctx, p, &pa) && pa.state == IBV_PORT_ACTIVE)
                    ok = 1;
            }
        }
        ibv_close_device(ctx);
    }
    ibv_free_device_list(list);
    return ok;
}

/* ---- small tables --------------------------------------------------------------- */

static void rvb_qpn_add(struct rvb_tl *t, uint32_t qpn, int rank)
{
    unsigned h = (qpn * 2654435761u) & t->qpn_mask;

    while (t->qpn_val[h] >= 0 && t->qpn_key[h] != qpn)
        h = (h + 1) & t->qpn_mask;
    t->qpn_key[h] = qpn;
    t->qpn_val[h] = rank;
}

static int rvb_qpn_find(struct rvb_tl *t, uint32_t qpn)
{
    unsigned h = (qpn * 2654435761u) & t->qpn_mask;

    while (t->qpn_val[h] >= 0) {
        if (t->qpn_key[h] == qpn)
            return t->qpn_val[h];
        h = (h + 1) & t->qpn_mask;
    }
    return -1;
}

/* An event for the next poll(), for what does not come out of the CQ. */
static void rvb_raise(struct rvb_tl *t, int peer, int status, void *ctx, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void rvb_raise(struct rvb_tl *t, int peer, int status, void *ctx, const char *fmt, ...)
{
    rtopo__tl_event_t *ev;
    va_list ap;

    if (t->npend == t->pend_cap) {
        int cap = t->pend_cap ? 2 * t->pend_cap : 16;
        rtopo__tl_event_t *p = realloc(t->pend, cap * sizeof(*p));

        if (p == NULL)
            return;    /* the peer is marked failed anyway */
        t->pend = p;
        t->pend_cap = cap;
    }
    ev = &t->pend[t->npend++];
    memset(ev, 0, sizeof(*ev));
    ev->type = RTOPO__TL_EV_ERROR;
    ev->peer = peer;
    ev->status = status;
    ev->ctx = ctx;
    va_start(ap, fmt);
    vsnprintf(ev->msg, sizeof(ev->msg), fmt, ap);
    va_end(ap);
}

/* The connection to `peer` is gone: one TL_EV_ERROR, later ops get PEER. */
static void rvb_peer_fail(struct rvb_tl *t, int peer, int status, const char *why)
{
    struct rvb_peer *p = &t->peers[peer];

    if (p->state != RVB_FAILED) {
        rtopo__debug("rank %d: %s", peer, why);
        p->status = status;
    }
    p->state = RVB_FAILED;
    if (!p->reported) {
        p->reported = 1;
        rvb_raise(t, peer, status, NULL, "rank %d: %s", peer, why);
    }
}

static struct rvb_op *rvb_op_get(struct rvb_tl *t)
{
    struct rvb_op *op;

    if (t->op_free < 0)
        return NULL;
    op = &t->ops[t->op_free];
    t->op_free = op->next;
    op->bounce = -1;
    return op;
}

static void rvb_op_put(struct rvb_tl *t, struct rvb_op *op)
{
    if (op->bounce >= 0)
        t->bfree[t->nbfree++] = op->bounce;
    op->kind = 0;
    op->next = t->op_free;
    t->op_free = (int)(op - t->ops);
}

static int rvb_post_recv(struct rvb_tl *t, const int *slots, int n)
{
    struct ibv_recv_wr wr[32], *bad;
    struct ibv_sge sge[32];
    int i, k, ret;

    for (i = 0; i < n; i += 32) {
        int m = n - i < 32 ? n - i : 32;

        for (k = 0; k < m; k++) {
            sge[k].addr = (uintptr_t)(t->rbuf + (size_t)slots[i + k] * t->rslot);
            sge[k].length = (uint32_t)t->rslot;
            sge[k].lkey = t->rmr->lkey;
            wr[k].wr_id = RVB_RECV_BIT | (uint64_t)slots[i + k];
            wr[k].sg_list = &sge[k];
            wr[k].num_sge = 1;
            wr[k].next = k + 1 < m ? &wr[k + 1] : NULL;
        }
        ret = ibv_post_srq_recv(t->srq, wr, &bad);
        if (ret) {
            errno = ret;
            return rtopo__error(RTOPO_ERR_TRANSPORT, "ibv_post_srq_recv: %m");
        }
    }
    return RTOPO_OK;
}

/* ---- lifecycle ----------------------------------------------------------------- */

static void rvb_close(struct rtopo__tl *tl)
{
    struct rvb_tl *t = rvb_tl(tl);
    int i;

    if (t == NULL)
        return;
    for (i = 0; t->peers && i < t->nranks; i++) {
        struct rvb_peer *p = &t->peers[i];

        if (p->id == NULL)
            continue;
        /* the peer may be dead: disconnect does not wait for it */
        if (p->state == RVB_CONNECTED)
            rdma_disconnect(p->id);
        if (p->id->qp)
            rdma_destroy_qp(p->id);
        rdma_destroy_id(p->id);
    }
    if (t->listen_id)
        rdma_destroy_id(t->listen_id);
    if (t->srq && ibv_destroy_srq(t->srq))
        rtopo__warn("ibv_destroy_srq: %m");
    if (t->rmr)
        ibv_dereg_mr(t->rmr);
    if (t->bmr)
        ibv_dereg_mr(t->bmr);
    if (t->cq) {
        if (t->cq_unacked)
            ibv_ack_cq_events(t->cq, t->cq_unacked);
        if (ibv_destroy_cq(t->cq))
            rtopo__warn("ibv_destroy_cq: %m");
    }
    if (t->wait_ep >= 0)
        close(t->wait_ep);
    if (t->cch)
        ibv_destroy_comp_channel(t->cch);
    if (t->pd && ibv_dealloc_pd(t->pd))
        rtopo__warn("ibv_dealloc_pd: %m (memory still registered?)");
    if (t->ech)
        rdma_destroy_event_channel(t->ech);
    if (t->cm_devs)
        rdma_free_devices(t->cm_devs);
    if (t->nrejected)
        rtopo__info("rejected %lu connection request(s) that did not authenticate",
                    t->nrejected);
    if (t->keys)
        memset(t->keys, 0, (size_t)t->nranks * sizeof(*t->keys));
    free(t->keys);
    free(t->rbuf);
    free(t->bbuf);
    free(t->repost);
    free(t->bfree);
    free(t->ops);
    free(t->peers);
    free(t->qpn_key);
    free(t->qpn_val);
    free(t->pend);
    free(t);
}

/* Choose the device (named, or the first with an active port and an
 * IPv4 address) among rdma_cm's contexts, so the PD and CQ live on the
 * same context as the QPs rdma_cm creates. */
static int rvb_pick_device(struct rvb_tl *t, const char *want)
{
    int n = 0, i;
    uint8_t p;

    t->cm_devs = rdma_get_devices(&n);
    if (t->cm_devs == NULL || n == 0)
        return rtopo__error(RTOPO_ERR_UNSUPPORTED, "no rdma device%s",
                            t->cm_devs ? "" : " (rdma_get_devices failed)");
    for (i = 0; i < n; i++) {
        struct ibv_context *ctx = t->cm_devs[i];
        const char *name = ibv_get_device_name(ctx->device);

        if (want && strcmp(want, name))
            continue;
        if (ibv_query_device(ctx, &t->dev_attr))
            continue;
        for (p = 1; p <= t->dev_attr.phys_port_cnt; p++) {
            struct in_addr ip;

            if (ibv_query_port(ctx, p, &t->port_attr) ||
                t->port_attr.state != IBV_PORT_ACTIVE)
                continue;
            if (rvb_port_ipv4(ctx, p, t->port_attr.link_layer, &ip, &t->gid_idx)) {
                rtopo__debug("device %s port %u: no IPv4 address", name, p);
                continue;
            }
            t->ctx = ctx;
            t->port = p;
            snprintf(t->devname, sizeof(t->devname), "%s", name);
            memset(&t->sin, 0, sizeof(t->sin));
            t->sin.sin_family = AF_INET;
            t->sin.sin_addr = ip;
            return RTOPO_OK;
        }
    }
    return rtopo__error(RTOPO_ERR_UNSUPPORTED, "no active rdma port with an IPv4 address%s%s",
                        want ? " on device " : "", want ? want : "");
}

static int rvb_open(const rtopo__tl_params_t *params, struct rtopo__tl **tl_p)
{
    struct ibv_srq_init_attr srq_attr;
    struct rvb_tl *t;
    char ipstr[INET_ADDRSTRLEN];
    int status, i, cqe, flags;
    unsigned size;
    size_t inject;

    if (params == NULL || tl_p == NULL || params->nranks <= 0 || params->rank < 0 ||
        params->rank >= params->nranks)
        return rtopo__error(RTOPO_ERR_INVAL, "bad transport parameters");
    t = calloc(1, sizeof(*t));
    if (t == NULL)
        return rtopo__error(RTOPO_ERR_NOMEM, "verbs instance");
    t->rank = params->rank;
    t->nranks = params->nranks;
    t->ctrl_size = params->ctrl_size ? params->ctrl_size : 256;
    t->op_free = -1;
    t->wait_ep = -2;

    status = rvb_pick_device(t, rvb_devname(params->name));
    if (status)
        goto err;

    t->sq_depth = params->verbs_sq_depth > 0 ? params->verbs_sq_depth : RVB_SQ_DEPTH;
    if (t->sq_depth > t->dev_attr.max_qp_wr)
        t->sq_depth = t->dev_attr.max_qp_wr;
    t->nrecv = RVB_NRECV < t->dev_attr.max_srq_wr ? RVB_NRECV : t->dev_attr.max_srq_wr;
    if (t->dev_attr.max_srq == 0 || t->nrecv <= 0) {
        status = rtopo__error(RTOPO_ERR_UNSUPPORTED, "device %s has no shared receive "
                              "queues", t->devname);
        goto err;
    }
    cqe = RVB_NOPS + t->nrecv + 16;
    if (cqe > t->dev_attr.max_cqe) {
        status = rtopo__error(RTOPO_ERR_UNSUPPORTED, "device %s: cq of %d entries "
                              "above its limit %d", t->devname, cqe, t->dev_attr.max_cqe);
        goto err;
    }

    t->pd = ibv_alloc_pd(t->ctx);
    if (t->pd == NULL) {
        status = rvb_pin_error("ibv_alloc_pd", 0);
        goto err;
    }
    t->cch = ibv_create_comp_channel(t->ctx);
    if (t->cch == NULL) {
        status = rtopo__error(RTOPO_ERR_TRANSPORT, "ibv_create_comp_channel: %m");
        goto err;
    }
    flags = fcntl(t->cch->fd, F_GETFL);
    fcntl(t->cch->fd, F_SETFL, flags | O_NONBLOCK);
    t->cq = ibv_create_cq(t->ctx, cqe, NULL, t->cch, 0);
    if (t->cq == NULL) {
        status = rvb_pin_error("ibv_create_cq", (size_t)cqe * sizeof(struct ibv_wc));
        goto err;
    }
    memset(&srq_attr, 0, sizeof(srq_attr));
    srq_attr.attr.max_wr = t->nrecv;
    srq_attr.attr.max_sge = 1;
    t->srq = ibv_create_srq(t->pd, &srq_attr);
    if (t->srq == NULL) {
        status = rvb_pin_error("ibv_create_srq", 0);
        goto err;
    }

    /* receive slots: one control message each, 64-byte aligned */
    t->rslot = (t->ctrl_size + 63) & ~(size_t)63;
    t->rbuf = aligned_alloc(4096, ((size_t)t->nrecv * t->rslot + 4095) & ~(size_t)4095);
    inject = params->verbs_inject ? params->verbs_inject : RVB_INJECT_MAX;
    t->bslot = t->rslot > inject ? t->rslot : inject;
    t->bbuf = aligned_alloc(4096, (size_t)RVB_NBOUNCE * t->bslot);
    t->repost = malloc(t->nrecv * sizeof(*t->repost));
    t->bfree = malloc(RVB_NBOUNCE * sizeof(*t->bfree));
    t->ops = calloc(RVB_NOPS, sizeof(*t->ops));
    t->peers = calloc(t->nranks, sizeof(*t->peers));
    t->keys = calloc(t->nranks, sizeof(*t->keys));
    for (size = 16; size < 2u * (unsigned)t->nranks; size *= 2)
        ;
    t->qpn_mask = size - 1;
    t->qpn_key = calloc(size, sizeof(*t->qpn_key));
    t->qpn_val = malloc(size * sizeof(*t->qpn_val));
    if (!t->rbuf || !t->bbuf || !t->repost || !t->bfree || !t->ops || !t->peers ||
        !t->keys || !t->qpn_key || !t->qpn_val) {
        status = rtopo__error(RTOPO_ERR_NOMEM, "verbs buffers");
        goto err;
    }
    for (i = 0; i < (int)size; i++)
        t->qpn_val[i] = -1;
    for (i = RVB_NOPS - 1; i >= 0; i--) {
        t->ops[i].next = t->op_free;
        t->op_free = i;
    }
    for (i = 0; i < RVB_NBOUNCE; i++)
        t->bfree[i] = RVB_NBOUNCE - 1 - i;
    t->nbfree = RVB_NBOUNCE;
    t->rmr = ibv_reg_mr(t->pd, t->rbuf, (size_t)t->nrecv * t->rslot, IBV_ACCESS_LOCAL_WRITE);
    if (t->rmr == NULL) {
        status = rvb_pin_error("ibv_reg_mr of receive buffers", (size_t)t->nrecv * t->rslot);
        goto err;
    }
    t->bmr = ibv_reg_mr(t->pd, t->bbuf, (size_t)RVB_NBOUNCE * t->bslot, IBV_ACCESS_LOCAL_WRITE);
    if (t->bmr == NULL) {
        status = rvb_pin_error("ibv_reg_mr of bounce buffers", (size_t)RVB_NBOUNCE * t->bslot);
        goto err;
    }
    for (i = 0; i < t->nrecv; i++)
        t->repost[i] = i;
    status = rvb_post_recv(t, t->repost, t->nrecv);
    if (status)
        goto err;

    t->ech = rdma_create_event_channel();
    if (t->ech == NULL) {
        status = rtopo__error(RTOPO_ERR_TRANSPORT, "rdma_create_event_channel: %m");
        goto err;
    }
    flags = fcntl(t->ech->fd, F_GETFL);
    fcntl(t->ech->fd, F_SETFL, flags | O_NONBLOCK);
    if (rdma_create_id(t->ech, &t->listen_id, NULL, RDMA_PS_TCP)) {
        status = rtopo__error(RTOPO_ERR_TRANSPORT, "rdma_create_id: %m");
        goto err;
    }
    inet_ntop(AF_INET, &t->sin.sin_addr, ipstr, sizeof(ipstr));
    if (rdma_bind_addr(t->listen_id, (struct sockaddr *)&t->sin)) {
        status = rtopo__error(RTOPO_ERR_TRANSPORT, "rdma_bind_addr %s: %m", ipstr);
        goto err;
    }
    if (t->listen_id->verbs != t->ctx) {
        status = rtopo__error(RTOPO_ERR_TRANSPORT, "address %s belongs to device %s, "
                              "not %s", ipstr, t->listen_id->verbs ?
                              ibv_get_device_name(t->listen_id->verbs->device) : "none",
                              t->devname);
        goto err;
    }
    if (rdma_listen(t->listen_id, 128)) {
        status = rtopo__error(RTOPO_ERR_TRANSPORT, "rdma_listen %s: %m", ipstr);
        goto err;
    }
    t->sin.sin_port = rdma_get_src_port(t->listen_id);
    t->inject_max = t->bslot;
    t->max_inline = 0;   /* known once a QP exists */
    rtopo__info("device %s port %u %s:%u gid %d mtu %d max_msg %u", t->devname, t->port,
                ipstr, ntohs(t->sin.sin_port), t->gid_idx,
                128 << t->port_attr.active_mtu, t->port_attr.max_msg_sz);
    *tl_p = (struct rtopo__tl *)t;
    return RTOPO_OK;

err:
    rvb_close((struct rtopo__tl *)t);
    return status;
}

static void rvb_query(struct rtopo__tl *tl, rtopo__tl_attr_t *attr)
{
    struct rvb_tl *t = rvb_tl(tl);

    memset(attr, 0, sizeof(*attr));
    attr->max_write = t->port_attr.max_msg_sz;
    attr->inject_max = t->inject_max;
    attr->blocking_wait = 1;
    attr->send_nowait_max = t->ctrl_size;   /* posted work requests need no CPU */
    snprintf(attr->provider, sizeof(attr->provider), "verbs:%.40s port %u (%s)", t->devname,
             t->port, t->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "IB");
}

/* ---- connection ------------------------------------------------------------- */

static int rvb_addr_get(struct rtopo__tl *tl, void *blob, size_t *len)
{
    struct rvb_tl *t = rvb_tl(tl);
    struct rvb_addr a;

    if (*len < sizeof(a))
        return rtopo__error(RTOPO_ERR_INVAL, "address buffer of %zu bytes, need %zu",
                            *len, sizeof(a));
    memset(&a, 0, sizeof(a));
    a.magic = htonl(RVB_MAGIC);
    a.rank = htonl(t->rank);
    a.ip = t->sin.sin_addr.s_addr;
    a.port = t->sin.sin_port;
    memcpy(blob, &a, sizeof(a));
    *len = sizeof(a);
    return RTOPO_OK;
}

static int rvb_create_qp(struct rvb_tl *t, struct rdma_cm_id *id, int peer)
{
    struct ibv_qp_init_attr qa;
    int inl;

    /* the largest inline size the device takes, from RVB_INLINE_REQ down */
    for (inl = RVB_INLINE_REQ;; inl /= 2) {
        memset(&qa, 0, sizeof(qa));
        qa.send_cq = t->cq;
        qa.recv_cq = t->cq;
        qa.srq = t->srq;
        qa.qp_type = IBV_QPT_RC;
        qa.cap.max_send_wr = t->sq_depth;
        qa.cap.max_send_sge = 1;
        qa.cap.max_inline_data = inl;
        if (!rdma_create_qp(id, t->pd, &qa))
            break;
        if (errno == ENOMEM)
            return rvb_pin_error("rdma_create_qp", 0);
        if (inl == 0)
            return rtopo__error(RTOPO_ERR_TRANSPORT, "rdma_create_qp for rank %d: %m",
                                peer);
    }
    t->peers[peer].qp = id->qp;
    t->peers[peer].sq_used = 0;
    /* every QP asks the same, so they all get the same */
    if (!t->inline_known || qa.cap.max_inline_data < t->max_inline)
        t->max_inline = qa.cap.max_inline_data;
    t->inline_known = 1;
    rvb_qpn_add(t, id->qp->qp_num, peer);
    return RTOPO_OK;
}

static int rvb_set_auth(struct rtopo__tl *tl, int peer, const void *key, size_t len)
{
    struct rvb_tl *t = rvb_tl(tl);

    if (peer < 0 || peer >= t->nranks || (len && key == NULL) || len > RVB_KEY_MAX)
        return rtopo__error(RTOPO_ERR_INVAL, "key of %zu bytes for rank %d (limit %d, "
                            "%d ranks)", len, peer, RVB_KEY_MAX, t->nranks);
    if (len)
        memcpy(t->keys[peer].b, key, len);
    t->keys[peer].len = (uint8_t)len;
    return RTOPO_OK;
}

enum { RVB_REQ = 0, RVB_REP = 1 };

/* HMAC-SHA256 keyed with the initiator's then the responder's key
 * material (each led by its length), over a label naming the message,
 * both ranks, the initiator's nonce and the QP numbers that the CM
 * messages carry (the responder's is 0 in the request: it has none yet).
 * Without set_auth() the keys are empty: the handshake still runs but
 * proves nothing, which only tests that drive the table directly do. */
static void rvb_mac(const struct rvb_tl *t, int kind, int init, int resp,
                    const uint8_t nonce[RVB_NONCE], uint32_t init_qpn, uint32_t resp_qpn,
                    uint8_t mac[RVB_MAC])
{
    static const char *const labels[] = { "rtopo verbs request", "rtopo verbs accept" };
    const struct rvb_key *ki = &t->keys[init], *kr = &t->keys[resp];
    uint8_t key[2 * (RVB_KEY_MAX + 1)], w[16];
    struct hmac_sha256_ctx h;
    size_t kl = 0;
    uint32_t v[4];

    key[kl++] = ki->len;
    memcpy(key + kl, ki->b, ki->len);
    kl += ki->len;
    key[kl++] = kr->len;
    memcpy(key + kl, kr->b, kr->len);
    kl += kr->len;
    v[0] = htonl((uint32_t)init);
    v[1] = htonl((uint32_t)resp);
    v[2] = htonl(init_qpn);
    v[3] = htonl(resp_qpn);
    memcpy(w, v, sizeof(w));
    hmac_sha256_set_key(&h, kl, key);
    /* the label's NUL ends it */
    hmac_sha256_update(&h, strlen(labels[kind]) + 1, (const uint8_t *)labels[kind]);
    hmac_sha256_update(&h, 8, w);
    hmac_sha256_update(&h, RVB_NONCE, nonce);
    hmac_sha256_update(&h, 8, w + 8);
    hmac_sha256_digest(&h, RVB_MAC, mac);
    memset(&h, 0, sizeof(h));
    memset(key, 0, sizeof(key));
}

static void rvb_conn_param(struct rdma_conn_param *cp, const void *priv, size_t len)
{
    memset(cp, 0, sizeof(*cp));
    cp->private_data = priv;
    cp->private_data_len = (uint8_t)len;
    cp->responder_resources = 0;      /* writes only, no reads or atomics */
    cp->initiator_depth = 0;
    cp->retry_count = 7;
    cp->rnr_retry_count = 7;          /* infinite: a full SRQ stalls, not fails */
}

static int rvb_connect(struct rtopo__tl *tl, int peer, const void *blob, size_t len)
{
    struct rvb_tl *t = rvb_tl(tl);
    struct rvb_peer *p;
    struct rvb_addr a;
    char ipstr[INET_ADDRSTRLEN];

    if (peer < 0 || peer >= t->nranks || peer == t->rank)
        return rtopo__error(RTOPO_ERR_INVAL, "connect to rank %d (self %d, %d ranks)",
                            peer, t->rank, t->nranks);
    if (blob == NULL || len != sizeof(a))
        return rtopo__error(RTOPO_ERR_INVAL, "address of rank %d: %zu bytes, expected %zu",
                            peer, len, sizeof(a));
    memcpy(&a, blob, sizeof(a));
    if (ntohl(a.magic) != RVB_MAGIC || (int)ntohl(a.rank) != peer)
        return rtopo__error(RTOPO_ERR_INVAL, "address of rank %d is not a verbs address "
                            "of that rank", peer);
    p = &t->peers[peer];
    memset(&p->addr, 0, sizeof(p->addr));
    p->addr.sin_family = AF_INET;
    p->addr.sin_addr.s_addr = a.ip;
    p->addr.sin_port = a.port;
    if (p->state != RVB_IDLE)
        return RTOPO_OK;              /* already requested by the peer, or connected */
    if (peer < t->rank) {
        p->state = RVB_WAIT;          /* the peer connects to us */
        return RTOPO_OK;
    }

    /* we are the lower rank: resolve, then connect from ROUTE_RESOLVED */
    if (rdma_create_id(t->ech, &p->id, p, RDMA_PS_TCP))
        return rtopo__error(RTOPO_ERR_TRANSPORT, "rdma_create_id: %m");
    inet_ntop(AF_INET, &a.ip, ipstr, sizeof(ipstr));
    {
        struct sockaddr_in src = t->sin;

        src.sin_port = 0;
        if (rdma_resolve_addr(p->id, (struct sockaddr *)&src, (struct sockaddr *)&p->addr,
                              RVB_CM_TIMEOUT)) {
            rdma_destroy_id(p->id);
            p->id = NULL;
            return rtopo__error(RTOPO_ERR_TRANSPORT, "rdma_resolve_addr %s for rank %d: %m",
                                ipstr, peer);
        }
    }
    p->state = RVB_RESOLVING;
    rtopo__debug("rank %d: resolving %s:%u", peer, ipstr, ntohs(a.port));
    return RTOPO_OK;
}

/* Check what rdma_cm chose: path MTU against the port, the source GID. */
static void rvb_log_path(struct rvb_tl *t, int peer, struct ibv_qp *qp)
{
    struct ibv_qp_attr qa;
    struct ibv_qp_init_attr qia;

    if (ibv_query_qp(qp, &qa, IBV_QP_PATH_MTU | IBV_QP_AV, &qia))
        return;
    if (qa.path_mtu > t->port_attr.active_mtu)
        rtopo__warn("rank %d: qp 0x%x path mtu %d above the port's active mtu %d", peer,
                    qp->qp_num, 128 << qa.path_mtu, 128 << t->port_attr.active_mtu);
    if (t->gid_idx >= 0 && qa.ah_attr.is_global && qa.ah_attr.grh.sgid_index != t->gid_idx)
        rtopo__warn("rank %d: qp 0x%x uses gid %d, not the RoCE v2 IPv4 gid %d", peer,
                    qp->qp_num, qa.ah_attr.grh.sgid_index, t->gid_idx);
    rtopo__debug("rank %d: qp 0x%x established, path mtu %d, gid %d", peer, qp->qp_num,
                 128 << qa.path_mtu, qa.ah_attr.is_global ? qa.ah_attr.grh.sgid_index : -1);
}

/* Refuses a connection request, saying why in the reject's private data
 * (for a genuine rank that got it wrong), and logs it once per source
 * address: a flood from one source costs one line. */
static void rvb_reject(struct rvb_tl *t, struct rdma_cm_id *id, long claimed, uint32_t reason,
                       const char *why)
{
    struct rvb_rej rej;
    struct sockaddr *sa = rdma_get_peer_addr(id);
    uint32_t ip = 0;
    char src[INET_ADDRSTRLEN + 8] = "an unknown address", who[40] = "";
    int i, n = t->nrej_src < RVB_NREJ_LOG ? t->nrej_src : RVB_NREJ_LOG;

    if (sa && sa->sa_family == AF_INET) {
        ip = ((struct sockaddr_in *)sa)->sin_addr.s_addr;
        inet_ntop(AF_INET, &ip, src, sizeof(src));
    }
    t->nrejected++;
    for (i = 0; i < n && t->rej_src[i] != ip; i++)
        ;
    if (claimed >= 0)
        snprintf(who, sizeof(who), " (claims rank %ld)", claimed);
    if (i < n) {
        rtopo__debug("connection request from %s%s rejected: %s", src, who, why);
    } else if (t->nrej_src < RVB_NREJ_LOG) {
        t->rej_src[t->nrej_src++] = ip;
        rtopo__warn("connection request from %s%s rejected: %s; further rejected "
                    "requests from %s are not logged", src, who, why, src);
    } else if (t->nrej_src++ == RVB_NREJ_LOG) {
        rtopo__warn("connection request from %s%s rejected: %s; rejected requests from "
                    "%d sources so far, no further ones are logged", src, who, why,
                    RVB_NREJ_LOG + 1);
    }
    rej.magic = htonl(RVB_CM_MAGIC);
    rej.reason = htonl(reason);
    if (rdma_reject(id, &rej, sizeof(rej)))
        rtopo__debug("rdma_reject: %m");
}

/* Returns an id to destroy once the event is acked (a rejected request):
 * rdma_destroy_id() waits for the acks of its events.  Nothing about the
 * claimed rank changes before the request has authenticated. */
static struct rdma_cm_id *rvb_on_request(struct rvb_tl *t, struct rdma_cm_event *e)
{
    struct rdma_cm_id *id = e->id;
    const struct rdma_conn_param *in = &e->param.conn;
    struct rdma_conn_param cp;
    struct rvb_req req;
    struct rvb_rep rep;
    uint8_t mac[RVB_MAC];
    struct rvb_peer *p;
    uint32_t claimed;
    int peer;

    if (in->private_data == NULL || in->private_data_len < sizeof(req)) {
        rvb_reject(t, id, -1, RVB_REJ_FORMAT, "no rtopo authenticator");
        return id;
    }
    memcpy(&req, in->private_data, sizeof(req));
    if (ntohl(req.magic) != RVB_CM_MAGIC) {
        rvb_reject(t, id, -1, RVB_REJ_FORMAT, ntohl(req.magic) == RVB_MAGIC ?
                   "request of an older rtopo without an authenticator" :
                   "not an rtopo connection request");
        return id;
    }
    claimed = ntohl(req.rank);
    if (claimed >= (uint32_t)t->rank) {
        rvb_reject(t, id, (long)claimed, RVB_REJ_RANK, claimed < (uint32_t)t->nranks ?
                   "not a lower rank" : "no such rank");
        return id;
    }
    peer = (int)claimed;
    rvb_mac(t, RVB_REQ, peer, t->rank, req.nonce, in->qp_num, 0, mac);
    if (!memeql_sec(mac, req.mac, RVB_MAC)) {
        rvb_reject(t, id, peer, RVB_REJ_AUTH, "authentication failed (not from a rank of "
                   "this job)");
        return id;
    }
    p = &t->peers[peer];
    if (p->id || (p->state != RVB_IDLE && p->state != RVB_WAIT)) {
        /* one connection per pair and job: a second request, even an
         * authentic one (replayed), is refused */
        rvb_reject(t, id, peer, RVB_REJ_DUPLICATE, "that rank has connected already");
        return id;
    }
    if (rvb_create_qp(t, id, peer)) {
        rvb_reject(t, id, peer, RVB_REJ_QP, "cannot create a qp");
        rvb_peer_fail(t, peer, RTOPO_ERR_TRANSPORT, "cannot create a qp");
        return id;
    }
    id->context = p;
    p->id = id;
    memset(&rep, 0, sizeof(rep));
    rep.magic = htonl(RVB_CM_MAGIC);
    rep.rank = htonl((uint32_t)t->rank);
    rvb_mac(t, RVB_REP, peer, t->rank, req.nonce, in->qp_num, id->qp->qp_num, rep.mac);
    rvb_conn_param(&cp, &rep, sizeof(rep));
    if (rdma_accept(id, &cp)) {
        rtopo__warn("rdma_accept for rank %d: %m", peer);
        rvb_peer_fail(t, peer, RTOPO_ERR_TRANSPORT, "rdma_accept failed");
        return NULL;
    }
    p->state = RVB_CONNECTING;
    rtopo__debug("rank %d: request authenticated and accepted, qp 0x%x", peer, id->qp->qp_num);
    return NULL;
}

/* The initiator's check of the accept: 0 when the responder proved it. */
static int rvb_check_rep(struct rvb_tl *t, int peer, const struct rdma_cm_event *e)
{
    const struct rdma_conn_param *in = &e->param.conn;
    uint8_t mac[RVB_MAC];
    struct rvb_rep rep;

    if (in->private_data == NULL || in->private_data_len < sizeof(rep))
        return -1;
    memcpy(&rep, in->private_data, sizeof(rep));
    if (ntohl(rep.magic) != RVB_CM_MAGIC || ntohl(rep.rank) != (uint32_t)peer)
        return -1;
    rvb_mac(t, RVB_REP, t->rank, peer, t->peers[peer].nonce, e->id->qp->qp_num,
            in->qp_num, mac);
    return memeql_sec(mac, rep.mac, RVB_MAC) ? 0 : -1;
}

/* The lower rank's request, once its QP exists. */
static int rvb_send_request(struct rvb_tl *t, int peer, struct rdma_cm_id *id)
{
    struct rvb_peer *p = &t->peers[peer];
    struct rdma_conn_param cp;
    struct rvb_req req;

    if (getrandom(p->nonce, RVB_NONCE, 0) != RVB_NONCE)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "getrandom: %m");
    memset(&req, 0, sizeof(req));
    req.magic = htonl(RVB_CM_MAGIC);
    req.rank = htonl((uint32_t)t->rank);
    memcpy(req.nonce, p->nonce, RVB_NONCE);
    rvb_mac(t, RVB_REQ, t->rank, peer, p->nonce, id->qp->qp_num, 0, req.mac);
    rvb_conn_param(&cp, &req, sizeof(req));
    if (rdma_connect(id, &cp))
        return rtopo__error(RTOPO_ERR_TRANSPORT, "rdma_connect to rank %d: %m", peer);
    return RTOPO_OK;
}

static struct rdma_cm_id *rvb_cm_event(struct rvb_tl *t, struct rdma_cm_event *e)
{
    struct rvb_peer *p = e->id->context;
    int peer = p ? (int)(p - t->peers) : -1;

    if (e->event == RDMA_CM_EVENT_CONNECT_REQUEST)
        return rvb_on_request(t, e);
    if (peer < 0)
        return NULL;    /* listening id: device removal and such show on the QPs */
    switch (e->event) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
        if (rdma_resolve_route(e->id, RVB_CM_TIMEOUT))
            rvb_peer_fail(t, peer, RTOPO_ERR_TRANSPORT, "rdma_resolve_route failed");
        break;
    case RDMA_CM_EVENT_ROUTE_RESOLVED:
        if (rvb_create_qp(t, e->id, peer)) {
            rvb_peer_fail(t, peer, RTOPO_ERR_TRANSPORT, "cannot create a qp");
            break;
        }
        if (rvb_send_request(t, peer, e->id)) {
            rvb_peer_fail(t, peer, RTOPO_ERR_TRANSPORT, "rdma_connect failed");
            break;
        }
        p->state = RVB_CONNECTING;
        break;
    case RDMA_CM_EVENT_ESTABLISHED:
        if (p->state != RVB_CONNECTING)
            break;
        /* the active side: the QP is ready to send, but nothing goes out
         * before the responder has proved it belongs to the job */
        if (peer > t->rank && rvb_check_rep(t, peer, e)) {
            char ipstr[INET_ADDRSTRLEN];

            inet_ntop(AF_INET, &p->addr.sin_addr, ipstr, sizeof(ipstr));
            rtopo__warn("rank %d: the accept of our connection did not authenticate "
                        "(%s:%u is not that rank of this job): disconnected", peer, ipstr,
                        ntohs(p->addr.sin_port));
            rdma_disconnect(e->id);
            rvb_peer_fail(t, peer, RTOPO_ERR_AUTH, "the accept of our connection request "
                          "failed authentication");
            break;
        }
        p->state = RVB_CONNECTED;
        rvb_log_path(t, peer, e->id->qp);
        break;
    case RDMA_CM_EVENT_ADDR_ERROR:
    case RDMA_CM_EVENT_ROUTE_ERROR:
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_CONNECT_ERROR:
    case RDMA_CM_EVENT_REJECTED:
    case RDMA_CM_EVENT_DISCONNECTED:
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
    case RDMA_CM_EVENT_ADDR_CHANGE: {
        char why[64];

        const struct rvb_rej *rej = e->param.conn.private_data;
        int status = RTOPO_ERR_PEER;

        /* our half too: the QP goes to error and its sends flush */
        if (e->event == RDMA_CM_EVENT_DISCONNECTED && p->state == RVB_CONNECTED)
            rdma_disconnect(e->id);
        snprintf(why, sizeof(why), "%s (status %d)", rdma_event_str(e->event), e->status);
        if (e->event == RDMA_CM_EVENT_REJECTED && rej &&
            e->param.conn.private_data_len >= sizeof(*rej) &&
            ntohl(rej->magic) == RVB_CM_MAGIC) {
            uint32_t r = ntohl(rej->reason);

            status = r == RVB_REJ_AUTH ? RTOPO_ERR_AUTH : RTOPO_ERR_PEER;
            snprintf(why, sizeof(why), "the rank refused our connection: %s",
                     r == RVB_REJ_AUTH ? "authentication failed" :
                     r == RVB_REJ_DUPLICATE ? "connected already" :
                     r == RVB_REJ_RANK ? "wrong rank" :
                     r == RVB_REJ_QP ? "it cannot create a qp" : "bad request");
        }
        rvb_peer_fail(t, peer, status, why);
        break;
    }
    default:
        break;  /* TIMEWAIT_EXIT, CONNECT_RESPONSE (not used with a QP) */
    }
    return NULL;
}

static void rvb_cm_progress(struct rvb_tl *t)
{
    struct rdma_cm_event *e;

    /* the channel is non-blocking: EAGAIN ends the loop */
    while (rdma_get_cm_event(t->ech, &e) == 0) {
        struct rdma_cm_id *gone = rvb_cm_event(t, e);

        rdma_ack_cm_event(e);
        if (gone)
            rdma_destroy_id(gone);
    }
}

/* ---- memory ---------------------------------------------------------------- */

static int rvb_mem_reg(struct rtopo__tl *tl, void *buf, size_t len, unsigned access,
                       struct rtopo__tl_mr **mr_p)
{
    struct rvb_tl *t = rvb_tl(tl);
    struct rvb_mr *m;
    int acc = IBV_ACCESS_LOCAL_WRITE;

    if (buf == NULL || len == 0 || mr_p == NULL)
        return rtopo__error(RTOPO_ERR_INVAL, "mem_reg of %zu bytes at %p", len, buf);
    if (access & RTOPO__TL_ACCESS_REMOTE_WRITE)
        acc |= IBV_ACCESS_REMOTE_WRITE;
    m = malloc(sizeof(*m));
    if (m == NULL)
        return rtopo__error(RTOPO_ERR_NOMEM, "mem_reg");
    m->mr = ibv_reg_mr(t->pd, buf, len, acc);
    if (m->mr == NULL) {
        int status = rvb_pin_error("ibv_reg_mr", len);

        free(m);
        return status;
    }
    *mr_p = (struct rtopo__tl_mr *)m;
    return RTOPO_OK;
}

static int rvb_mem_dereg(struct rtopo__tl_mr *mr)
{
    struct rvb_mr *m = (struct rvb_mr *)mr;
    int ret;

    if (m == NULL)
        return RTOPO_OK;
    ret = ibv_dereg_mr(m->mr);
    free(m);
    if (ret) {
        errno = ret;
        return rtopo__error(RTOPO_ERR_TRANSPORT, "ibv_dereg_mr: %m");
    }
    return RTOPO_OK;
}

static void rvb_mem_rkey(struct rtopo__tl_mr *mr, rtopo__rkey_t *rkey)
{
    struct rvb_mr *m = (struct rvb_mr *)mr;

    rkey->key = m->mr->rkey;
    rkey->addr = (uint64_t)(uintptr_t)m->mr->addr;
}

/* ---- data movement ------------------------------------------------------------ */

/* A peer able to take one more send WR, or the status to return. */
static int rvb_ready(struct rvb_tl *t, int peer, struct rvb_peer **p_p)
{
    struct rvb_peer *p;

    if (peer < 0 || peer >= t->nranks || peer == t->rank)
        return rtopo__error(RTOPO_ERR_INVAL, "rank %d out of range", peer);
    p = &t->peers[peer];
    switch (p->state) {
    case RVB_CONNECTED:
        break;
    case RVB_FAILED:
        if (p->status == RTOPO_ERR_AUTH)
            return rtopo__error(RTOPO_ERR_AUTH, "connection to rank %d failed "
                                "authentication", peer);
        return rtopo__error_quiet(RTOPO_ERR_PEER, "connection to rank %d failed", peer);
    case RVB_IDLE:
        /* a lower rank's request may still come; our own needs connect() */
        if (peer > t->rank)
            return rtopo__error(RTOPO_ERR_INVAL, "rank %d: connect() not called", peer);
        return RTOPO_ERR_BUSY;
    default:
        return RTOPO_ERR_BUSY;
    }
    if (p->sq_used >= t->sq_depth || t->op_free < 0)
        return RTOPO_ERR_BUSY;
    *p_p = p;
    return RTOPO_OK;
}

static int rvb_post(struct rvb_tl *t, struct rvb_peer *p, int peer, struct ibv_send_wr *wr,
                    struct rvb_op *op)
{
    struct ibv_send_wr *bad;
    int ret;

    wr->wr_id = (uint64_t)(op - t->ops);
    wr->send_flags |= IBV_SEND_SIGNALED;
    ret = ibv_post_send(p->qp, wr, &bad);
    if (ret) {
        rvb_op_put(t, op);
        if (ret == ENOMEM)
            return RTOPO_ERR_BUSY;
        errno = ret;
        return rtopo__error(RTOPO_ERR_TRANSPORT, "ibv_post_send to rank %d: %m", peer);
    }
    p->sq_used++;
    return RTOPO_OK;
}

static int rvb_write(struct rtopo__tl *tl, int peer, const void *buf, size_t len,
                     struct rtopo__tl_mr *lmr, const rtopo__rkey_t *rkey, uint64_t roffset,
                     uint32_t imm, unsigned flags, void *ctx)
{
    struct rvb_tl *t = rvb_tl(tl);
    struct rvb_mr *m = (struct rvb_mr *)lmr;
    struct ibv_send_wr wr;
    struct ibv_sge sge;
    struct rvb_peer *p;
    struct rvb_op *op;
    int status;

    if (len > t->port_attr.max_msg_sz)
        return rtopo__error(RTOPO_ERR_INVAL, "write of %zu bytes above max_write %u", len,
                            t->port_attr.max_msg_sz);
    if (rkey == NULL || (len && buf == NULL))
        return rtopo__error(RTOPO_ERR_INVAL, "write without buffer or remote key");
    if ((flags & RTOPO__TL_INJECT) && len > t->inject_max)
        return rtopo__error(RTOPO_ERR_INVAL, "inject write of %zu bytes above inject_max "
                            "%zu", len, t->inject_max);
    if (!(flags & RTOPO__TL_INJECT) && len > t->max_inline && m == NULL)
        return rtopo__error(RTOPO_ERR_INVAL, "write of %zu bytes without a registration",
                            len);
    status = rvb_ready(t, peer, &p);
    if (status)
        return status;

    memset(&wr, 0, sizeof(wr));
    sge.addr = (uintptr_t)buf;
    sge.length = (uint32_t)len;
    sge.lkey = m ? m->mr->lkey : 0;
    if (len <= t->max_inline) {
        wr.send_flags = IBV_SEND_INLINE;     /* copied at post: buffer free on return */
    } else if (flags & RTOPO__TL_INJECT) {
        if (t->nbfree == 0)
            return RTOPO_ERR_BUSY;
    }
    op = rvb_op_get(t);
    op->ctx = ctx;
    op->peer = peer;
    op->kind = (flags & RTOPO__TL_INJECT) ? RVB_OP_SILENT : RVB_OP_WRITE;
    if ((flags & RTOPO__TL_INJECT) && !(wr.send_flags & IBV_SEND_INLINE)) {
        op->bounce = t->bfree[--t->nbfree];
        sge.addr = (uintptr_t)(t->bbuf + (size_t)op->bounce * t->bslot);
        sge.lkey = t->bmr->lkey;
        memcpy((void *)(uintptr_t)sge.addr, buf, len);
    }
    wr.sg_list = &sge;
    wr.num_sge = len ? 1 : 0;
    wr.wr.rdma.remote_addr = rkey->addr + roffset;
    wr.wr.rdma.rkey = (uint32_t)rkey->key;
    if (flags & RTOPO__TL_IMM) {
        wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
        wr.imm_data = htonl(imm);
    } else {
        wr.opcode = IBV_WR_RDMA_WRITE;
    }
    return rvb_post(t, p, peer, &wr, op);
}

/* inline up to max_inline (the pieces joined on the stack: QPs take one
 * gather entry), else both copied into one bounce slot */
static int rvb_sendv(struct rtopo__tl *tl, int peer, const void *hdr, size_t hlen,
                     const void *payload, size_t plen, void *ctx)
{
    struct rvb_tl *t = rvb_tl(tl);
    size_t len = hlen + plen;
    char inl[RVB_INLINE_REQ];
    struct ibv_send_wr wr;
    struct ibv_sge sge;
    struct rvb_peer *p;
    struct rvb_op *op;
    char *b;
    int status;

    if (len > t->ctrl_size || (hlen && hdr == NULL) || (plen && payload == NULL))
        return rtopo__error(RTOPO_ERR_INVAL, "control message of %zu bytes (limit %zu)",
                            len, t->ctrl_size);
    status = rvb_ready(t, peer, &p);
    if (status)
        return status;
    memset(&wr, 0, sizeof(wr));
    if (len <= t->max_inline && len <= sizeof(inl)) {
        b = inl;
        sge.lkey = 0;
        wr.send_flags = IBV_SEND_INLINE;
        op = rvb_op_get(t);
    } else {
        if (t->nbfree == 0)
            return RTOPO_ERR_BUSY;
        op = rvb_op_get(t);
        op->bounce = t->bfree[--t->nbfree];
        b = t->bbuf + (size_t)op->bounce * t->bslot;
        sge.lkey = t->bmr->lkey;
    }
    if (hlen)
        memcpy(b, hdr, hlen);
    if (plen)
        memcpy(b + hlen, payload, plen);
    sge.addr = (uintptr_t)b;
    sge.length = (uint32_t)len;
    op->ctx = ctx;
    op->peer = peer;
    op->kind = RVB_OP_SEND;
    wr.opcode = IBV_WR_SEND;
    wr.sg_list = &sge;
    wr.num_sge = len ? 1 : 0;
    return rvb_post(t, p, peer, &wr, op);
}

static int rvb_send(struct rtopo__tl *tl, int peer, const void *buf, size_t len, void *ctx)
{
    return rvb_sendv(tl, peer, buf, len, NULL, 0, ctx);
}

/* ---- completions ---------------------------------------------------------------- */

static int rvb_wc_remote(enum ibv_wc_status s)
{
    return s == IBV_WC_RETRY_EXC_ERR || s == IBV_WC_RNR_RETRY_EXC_ERR ||
           s == IBV_WC_WR_FLUSH_ERR || s == IBV_WC_REM_ABORT_ERR;
}

/* One work completion to at most one event; returns 1 if ev was filled. */
static int rvb_wc(struct rvb_tl *t, const struct ibv_wc *wc, rtopo__tl_event_t *ev)
{
    memset(ev, 0, sizeof(*ev));
    if (wc->wr_id & RVB_RECV_BIT) {
        int slot = (int)(wc->wr_id & ~RVB_RECV_BIT);
        int peer = rvb_qpn_find(t, wc->qp_num);

        /* handed back at the next poll(): RECV data stays valid until then */
        t->repost[t->nrepost++] = slot;
        if (wc->status != IBV_WC_SUCCESS) {
            if (wc->status == IBV_WC_WR_FLUSH_ERR || peer < 0)
                return 0;
            rvb_peer_fail(t, peer, RTOPO_ERR_TRANSPORT, ibv_wc_status_str(wc->status));
            return 0;
        }
        ev->peer = peer;
        ev->len = wc->byte_len;
        /* only a write with immediate over the queue pair of a rank of
         * the job is a window's immediate (the engine checks the rank);
         * an immediate on a send, or anything over a queue pair of no
         * rank, is dropped */
        if (peer < 0 || (wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM &&
                         (wc->wc_flags & IBV_WC_WITH_IMM))) {
            t->dropped++;
            ev->type = RTOPO__TL_EV_DROPPED;
            ev->peer = -1;
            snprintf(ev->msg, sizeof(ev->msg), "verbs: %s over qp 0x%x",
                     peer < 0 ? "a message or write" : "an immediate on a send",
                     wc->qp_num);
            return 1;
        }
        if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
            ev->type = RTOPO__TL_EV_IMM;
            ev->imm = ntohl(wc->imm_data);
        } else {
            ev->type = RTOPO__TL_EV_RECV;
            ev->data = t->rbuf + (size_t)slot * t->rslot;
        }
        return 1;
    } else {
        struct rvb_op *op = &t->ops[wc->wr_id];
        struct rvb_peer *p = &t->peers[op->peer];
        int kind = op->kind, peer = op->peer;
        void *ctx = op->ctx;

        p->sq_used--;
        rvb_op_put(t, op);
        if (wc->status == IBV_WC_SUCCESS) {
            /* a send nobody tracks completes without an event (tl.h) */
            if (kind == RVB_OP_SILENT || (kind == RVB_OP_SEND && ctx == NULL))
                return 0;
            ev->type = kind == RVB_OP_SEND ? RTOPO__TL_EV_SEND_DONE : RTOPO__TL_EV_WRITE_DONE;
            ev->peer = peer;
            ev->ctx = ctx;
            return 1;
        }
        /* the QP is in error now: everything after it flushes */
        if (p->state != RVB_FAILED)
            rtopo__debug("rank %d: completion %s (vendor 0x%x)", peer,
                         ibv_wc_status_str(wc->status), wc->vendor_err);
        rvb_peer_fail(t, peer, rvb_wc_remote(wc->status) ? RTOPO_ERR_PEER :
                      RTOPO_ERR_TRANSPORT, ibv_wc_status_str(wc->status));
        if (kind == RVB_OP_SILENT)
            return 0;
        ev->type = RTOPO__TL_EV_ERROR;
        ev->peer = peer;
        ev->ctx = ctx;
        ev->status = rvb_wc_remote(wc->status) ? RTOPO_ERR_PEER : RTOPO_ERR_TRANSPORT;
        snprintf(ev->msg, sizeof(ev->msg), "%s", ibv_wc_status_str(wc->status));
        return 1;
    }
}

static int rvb_poll(struct rtopo__tl *tl, rtopo__tl_event_t *ev, int max)
{
    struct rvb_tl *t = rvb_tl(tl);
    struct ibv_wc wc[32];
    int n = 0, status, i, k, got;

    if (max <= 0)
        return 0;
    if (t->nrepost) {
        status = rvb_post_recv(t, t->repost, t->nrepost);
        t->nrepost = 0;
        if (status)
            return status;
    }
    rvb_cm_progress(t);

    while (n < max && t->npend) {
        ev[n++] = t->pend[0];
        memmove(t->pend, t->pend + 1, --t->npend * sizeof(*t->pend));
    }
    for (k = 0; n < max && k < t->nstash; k++)
        n += rvb_wc(t, &t->stash[k], &ev[n]);
    memmove(t->stash, t->stash + k, (t->nstash - k) * sizeof(*t->stash));
    t->nstash -= k;

    while (n < max) {
        int want = max - n < 32 ? max - n : 32;

        got = ibv_poll_cq(t->cq, want, wc);
        if (got < 0)
            return rtopo__error(RTOPO_ERR_TRANSPORT, "ibv_poll_cq failed");
        for (i = 0; i < got; i++)
            n += rvb_wc(t, &wc[i], &ev[n]);
        if (got < want)
            break;
    }
    /* errors raised while reading the CQ (receive failures) */
    while (n < max && t->npend) {
        ev[n++] = t->pend[0];
        memmove(t->pend, t->pend + 1, --t->npend * sizeof(*t->pend));
    }
    return n;
}

/* Reads the completion channel's events (they are acknowledged in
 * batches: acking takes a lock). */
static void rvb_cq_events(struct rvb_tl *t)
{
    struct ibv_cq *cq;
    void *cq_ctx;

    while (ibv_get_cq_event(t->cch, &cq, &cq_ctx) == 0)
        t->cq_unacked++;
    if (t->cq_unacked >= 64) {
        ibv_ack_cq_events(t->cq, t->cq_unacked);
        t->cq_unacked = 0;
    }
}

/* Arms the completion queue and looks once more (completions that came
 * before the arm raise no notification): 1 when there is work now. */
static int rvb_arm(struct rvb_tl *t)
{
    int ret;

    if (ibv_req_notify_cq(t->cq, 0))
        return rtopo__error(RTOPO_ERR_TRANSPORT, "ibv_req_notify_cq failed");
    ret = ibv_poll_cq(t->cq, RVB_NSTASH, t->stash);
    if (ret < 0)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "ibv_poll_cq failed");
    t->nstash = ret;
    return ret > 0;
}

/* One descriptor for a caller that sleeps beside other backends: an
 * epoll set (level triggered) of the completion channel and the
 * connection manager's channel, readable when either is. */
static int rvb_wait_fd(struct rtopo__tl *tl, int *fd)
{
    struct rvb_tl *t = rvb_tl(tl);
    struct pollfd pfd;
    int st;

    if (t->wait_ep == -1)
        return RTOPO_ERR_UNSUPPORTED;
    if (t->wait_ep == -2) {
        struct epoll_event ev;
        int ep = epoll_create1(EPOLL_CLOEXEC), i, fds[2] = { t->cch->fd, t->ech->fd };

        for (i = 0; ep >= 0 && i < 2; i++) {
            memset(&ev, 0, sizeof(ev));
            ev.events = EPOLLIN;
            ev.data.u32 = (uint32_t)i;
            if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev)) {
                close(ep);
                ep = -1;
            }
        }
        if (ep < 0) {
            rtopo__info("verbs: no epoll set of its channels (%m): waits alternate");
            t->wait_ep = -1;
            return RTOPO_ERR_UNSUPPORTED;
        }
        t->wait_ep = ep;
    }
    if (t->npend || t->nstash)
        return RTOPO_ERR_BUSY;
    rvb_cq_events(t);
    if ((st = rvb_arm(t)) != 0)
        return st > 0 ? RTOPO_ERR_BUSY : st;
    /* a connection event poll() has not taken yet */
    pfd.fd = t->ech->fd;
    pfd.events = POLLIN;
    if (poll(&pfd, 1, 0) > 0)
        return RTOPO_ERR_BUSY;
    *fd = t->wait_ep;
    return RTOPO_OK;
}

static int rvb_wait(struct rtopo__tl *tl, int timeout_ms)
{
    struct rvb_tl *t = rvb_tl(tl);
    struct pollfd pfd[2];
    int ret;

    if (t->npend || t->nstash)
        return RTOPO_OK;
    if ((ret = rvb_arm(t)) < 0)
        return ret;
    if (ret > 0 || timeout_ms == 0)
        return RTOPO_OK;

    pfd[0].fd = t->cch->fd;
    pfd[0].events = POLLIN;
    pfd[1].fd = t->ech->fd;
    pfd[1].events = POLLIN;
    ret = poll(pfd, 2, timeout_ms < 0 ? -1 : timeout_ms);
    if (ret < 0 && errno != EINTR)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "poll: %m");
    if (ret > 0 && (pfd[0].revents & POLLIN))
        rvb_cq_events(t);
    return RTOPO_OK;
}

/* ---- info ---------------------------------------------------------------------- */

static void rvb_info(const char *transport, void (*out)(const char *line, void *arg),
                     void *arg)
{
    const char *want = rvb_devname(transport);
    struct ibv_device **list;
    char line[256], lim[32];
    int n = 0, i;

    rvb_memlock_str(lim, sizeof(lim));
    list = ibv_get_device_list(&n);
    snprintf(line, sizeof(line), "verbs: %d rdma device(s), memlock limit %s", list ? n : 0,
             lim);
    out(line, arg);
    for (i = 0; list && i < n; i++) {
        const char *name = ibv_get_device_name(list[i]);
        struct ibv_device_attr da;
        struct ibv_context *ctx;
        uint8_t p;

        if (want && strcmp(want, name))
            continue;
        ctx = ibv_open_device(list[i]);
        if (ctx == NULL || ibv_query_device(ctx, &da)) {
            snprintf(line, sizeof(line), "verbs: %s: cannot open: %m", name);
            out(line, arg);
            if (ctx)
                ibv_close_device(ctx);
            continue;
        }
        snprintf(line, sizeof(line), "verbs: %s: %d port(s), max_qp %d, max_cqe %d, "
                 "max_mr_size %llu, max_qp_wr %d, max_srq %d, max_srq_wr %d", name,
                 da.phys_port_cnt, da.max_qp, da.max_cqe, (unsigned long long)da.max_mr_size,
                 da.max_qp_wr, da.max_srq, da.max_srq_wr);
        out(line, arg);
        for (p = 1; p <= da.phys_port_cnt; p++) {
            struct ibv_port_attr pa;
            struct in_addr ip;
            int gidx, k;
            char ipstr[INET_ADDRSTRLEN] = "none";

            if (ibv_query_port(ctx, p, &pa))
                continue;
            if (!rvb_port_ipv4(ctx, p, pa.link_layer, &ip, &gidx))
                inet_ntop(AF_INET, &ip, ipstr, sizeof(ipstr));
            snprintf(line, sizeof(line), "verbs: %s port %u: %s, active_mtu %d, max_mtu %d, "
                     "link layer %s, max_msg_sz %u, ipv4 %s", name, p,
                     ibv_port_state_str(pa.state), 128 << pa.active_mtu, 128 << pa.max_mtu,
                     pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" :
                     pa.link_layer == IBV_LINK_LAYER_INFINIBAND ? "InfiniBand" : "?",
                     pa.max_msg_sz, ipstr);
            out(line, arg);
            for (k = 0; k < pa.gid_tbl_len && k < 256; k++) {
                union ibv_gid gid;
                char gs[INET6_ADDRSTRLEN], type[32];
                static const union ibv_gid zero;

                if (ibv_query_gid(ctx, p, k, &gid))
                    break;
                if (!memcmp(&gid, &zero, sizeof(gid)))
                    continue;
                if (rvb_sysfs_gid_type(name, p, k, type, sizeof(type))) {
                    struct ibv_gid_entry e;

                    snprintf(type, sizeof(type), "%s", ibv_query_gid_ex(ctx, p, k, &e, 0) ?
                             "?" : rvb_gid_type_str(e.gid_type));
                }
                inet_ntop(AF_INET6, gid.raw, gs, sizeof(gs));
                snprintf(line, sizeof(line), "verbs: %s port %u gid[%d] %s %s%s", name, p, k,
                         gs, type, k == gidx ? " (used)" : "");
                out(line, arg);
            }
        }
        ibv_close_device(ctx);
    }
    if (list)
        ibv_free_device_list(list);
}

const struct rtopo__tl_ops rtopo__tl_verbs = {
    .size = sizeof(struct rtopo__tl_ops),
    .name = "verbs",
    .match = rvb_match,
    .available = rvb_available,
    .open = rvb_open,
    .close = rvb_close,
    .query = rvb_query,
    .addr_get = rvb_addr_get,
    .connect = rvb_connect,
    .mem_reg = rvb_mem_reg,
    .mem_dereg = rvb_mem_dereg,
    .mem_rkey = rvb_mem_rkey,
    .write = rvb_write,
    .send = rvb_send,
    .poll = rvb_poll,
    .wait = rvb_wait,
    .info = rvb_info,
    .set_auth = rvb_set_auth,
    .sendv = rvb_sendv,
    .wait_fd = rvb_wait_fd,
};
