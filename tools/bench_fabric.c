/*
 * bench_fabric.c - the provider baseline of rtopo-bench-mpi
 * (bench_fabric.h): the shift's write with immediate data, made on
 * libfabric or libibverbs directly.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <mpi.h>
#ifdef HAVE_OFI
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#endif
#ifdef HAVE_VERBS
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#endif
#include "bench_fabric.h"

#define FAB_MAX_PIECES 64       /* writes per round at most (a size above the largest
                                 * single write goes in pieces) */
#define FAB_SPINS 256           /* empty polls in a row before each further one yields */
#define FAB_SPINS_OVER 16       /* ... when the host has more ranks than cores */
#define FAB_NAME_MAX 256        /* a libfabric endpoint address */
#define FAB_QDEPTH 128          /* verbs: send and receive queue depth per QP */
#define FAB_INLINE 256          /* verbs: inline data asked for */
#define FAB_WR_WRITE UINT64_MAX /* verbs: wr_id of a write (a receive's is its QP) */

/* what one rank tells every other at set-up */
typedef struct fab_rec {
    uint64_t key, addr;         /* the destination buffer's key and remote address */
    uint64_t maxmsg;            /* the largest single write */
    uint32_t namelen;           /* libfabric: the endpoint's address */
    uint32_t qpn[2];            /* verbs: this rank's QPs, and the rank each goes to */
    int32_t qpeer[2];
    uint32_t psn;
    uint16_t lid;
    uint8_t mtu, pad;
    uint8_t gid[16];
    uint8_t name[FAB_NAME_MAX];
} fab_rec_t;

struct bench_fabric_impl {
    uint8_t *sbuf, *rbuf;
    size_t maxbytes, piece;     /* piece: the largest single write of every rank */
    int me;
    long posted, txdone;        /* writes that complete locally: posted, completed */
    long rxexp, rxgot;          /* incoming writes: expected, landed */
    uint32_t tag;
    unsigned empty, spins;      /* empty polls in a row; how many before yielding */
#ifdef HAVE_OFI
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fid_mr *smr, *rmr;
    void *sdesc;
    fi_addr_t peer;
    uint64_t rkey, raddr;
    size_t inject;
    int mr_virt;
    struct fi_context2 ctx[FAB_MAX_PIECES];
#endif
#ifdef HAVE_VERBS
    struct ibv_device **devs;
    struct ibv_context *vctx;
    struct ibv_pd *pd;
    struct ibv_cq *vcq;
    struct ibv_qp *qp[2];       /* one per peer rank: dst, and src when it is another */
    int qpeer[2], nqp, dqp;     /* ... the ranks, how many, which QP goes to dst */
    struct ibv_mr *vsmr, *vrmr;
    uint8_t port, mtu;
    int roce, gid_idx;
    uint16_t lid;
    union ibv_gid gid;
    uint32_t psn, max_inline, vrkey;
    uint64_t vraddr, maxmsg;
#endif
};

static int fab_err(bench_fabric_t *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fab_err(bench_fabric_t *f, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(f->err, sizeof(f->err), fmt, ap);
    va_end(ap);
    return -1;
}

/* the writes of one round of `bytes` */
static size_t fab_pieces(const struct bench_fabric_impl *im, size_t bytes)
{
    return bytes ? (bytes - 1) / im->piece + 1 : 1;
}

/* after a step every rank took: 0 when all succeeded, else -1 on every
 * rank with f->err that of the lowest rank that failed */
static int fab_agree(bench_fabric_t *f, MPI_Comm comm, int failed)
{
    char msg[sizeof(f->err)];
    int me, who, first;

    MPI_Comm_rank(comm, &me);
    who = failed ? me : INT_MAX;
    if (MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
        fab_err(f, "MPI_Allreduce failed");
        return -1;
    }
    if (first == INT_MAX)
        return 0;
    snprintf(msg, sizeof(msg), "rank %d: %.200s", me, f->err);
    MPI_Bcast(msg, (int)sizeof(msg), MPI_CHAR, first, comm);
    snprintf(f->err, sizeof(f->err), "%s", msg);
    return -1;
}

/* provider, label and inject of the lowest rank that writes (a rank
 * whose line does not move opens nothing), on every rank */
static void fab_describe(bench_fabric_t *f, MPI_Comm comm, int local)
{
    struct {
        char provider[sizeof(f->provider)], label[sizeof(f->label)];
        uint64_t inject;
    } d;
    int me, who, first;

    MPI_Comm_rank(comm, &me);
    who = local ? INT_MAX : me;
    if (MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS ||
        first == INT_MAX)
        return;
    memcpy(d.provider, f->provider, sizeof(d.provider));
    memcpy(d.label, f->label, sizeof(d.label));
    d.inject = f->inject;
    MPI_Bcast(&d, (int)sizeof(d), MPI_BYTE, first, comm);
    memcpy(f->provider, d.provider, sizeof(f->provider));
    memcpy(f->label, d.label, sizeof(f->label));
    f->inject = (size_t)d.inject;
}

/* empty polls before yielding: fewer when this host has more ranks of
 * comm than cores, since a rank that spins then keeps the one it waits
 * for from running */
static unsigned fab_spins(MPI_Comm comm)
{
    MPI_Comm node;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int n = 0;

    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) !=
        MPI_SUCCESS)
        return FAB_SPINS;
    MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
    return cpus > 0 && n > cpus ? FAB_SPINS_OVER : FAB_SPINS;
}

#if defined(HAVE_OFI) || defined(HAVE_VERBS)
static int fab_random(void *buf, size_t len)
{
    return getrandom(buf, len, 0) == (ssize_t)len ? 0 : -1;
}
#endif

/* ---- libfabric ---------------------------------------------------------- */

#ifdef HAVE_OFI
/* fi_getinfo for provider prov with RDM endpoints and RMA writes; native:
 * refuse a layered provider ("tcp;ofi_rxm" answering "tcp") */
static int ofi_getinfo(const char *prov, int native, struct fi_info **info)
{
    struct fi_info *hints = fi_allocinfo();
    int ret;

    if (!hints)
        return -FI_ENOMEM;
    hints->caps = FI_RMA | FI_WRITE | FI_REMOTE_WRITE;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
                                  FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->fabric_attr->prov_name = strdup(prov);
    ret = fi_getinfo(FI_VERSION(1, 12), NULL, NULL, 0, hints, info);
    fi_freeinfo(hints);
    if (ret == 0 && native && strchr((*info)->fabric_attr->prov_name, ';')) {
        fi_freeinfo(*info);
        *info = NULL;
        ret = -FI_ENODATA;
    }
    return ret;
}

static int ofi_reg(bench_fabric_t *f, void *buf, size_t len, uint64_t access,
                   struct fid_mr **mr)
{
    struct bench_fabric_impl *im = f->impl;
    size_t ksize = im->info->domain_attr->mr_key_size;
    int prov_key = (im->info->domain_attr->mr_mode & FI_MR_PROV_KEY) != 0, tries = 0, ret;
    uint64_t key = 0;

    do {
        /* a key of our own: random, so that two regions do not collide */
        if (!prov_key && fab_random(&key, sizeof(key)))
            return fab_err(f, "getrandom: %s", strerror(errno));
        if (!prov_key && ksize > 0 && ksize < sizeof(key))
            key &= ((uint64_t)1 << (8 * ksize)) - 1;
        ret = fi_mr_reg(im->domain, buf, len, access, 0, key, 0, mr, NULL);
    } while (ret == -FI_ENOKEY && !prov_key && ++tries < 16);
    if (ret)
        return fab_err(f, "fi_mr_reg of %zu bytes: %s", len, fi_strerror(-ret));
    if (im->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        if ((ret = fi_mr_bind(*mr, &im->ep->fid, 0)) || (ret = fi_mr_enable(*mr)))
            return fab_err(f, "fi_mr_bind/fi_mr_enable: %s", fi_strerror(-ret));
    }
    return 0;
}

/* this rank's endpoint, completion queue and registrations; its record */
static int ofi_setup(bench_fabric_t *f, const char *kind, fab_rec_t *rec)
{
    struct bench_fabric_impl *im = f->impl;
    struct fi_cq_attr cqa;
    struct fi_av_attr ava;
    size_t len = sizeof(rec->name);
    const char *prov;
    int ret, mr_mode;

    /* "tcp": the native provider with RDM endpoints ("net" before
     * libfabric 1.18), else tcp under rxm */
    if (!strcmp(kind, "tcp")) {
        if ((ret = ofi_getinfo("tcp", 1, &im->info)) && (ret = ofi_getinfo("net", 1, &im->info)))
            ret = ofi_getinfo("tcp;ofi_rxm", 0, &im->info);
    } else {
        ret = ofi_getinfo(kind, 0, &im->info);
    }
    if (ret)
        return fab_err(f, "libfabric provider '%s' with RDM endpoints and RMA writes not "
                       "found: %s (fi_info -l lists the providers)", kind, fi_strerror(-ret));
    prov = im->info->fabric_attr->prov_name;
    snprintf(f->provider, sizeof(f->provider), "%s", prov);
    snprintf(f->label, sizeof(f->label), "fabric: fi_writedata, libfabric %s provider%s, "
             "no rtopo", prov, !strcmp(prov, "net") ? " (native tcp)" : "");
    if (im->info->domain_attr->cq_data_size < 4)
        return fab_err(f, "libfabric provider '%s' carries %zu bytes of remote CQ data, not 4",
                       prov, im->info->domain_attr->cq_data_size);
    mr_mode = im->info->domain_attr->mr_mode;
    im->mr_virt = (mr_mode & FI_MR_VIRT_ADDR) != 0;
    im->inject = f->inject = im->info->tx_attr->inject_size;
    rec->maxmsg = im->info->ep_attr->max_msg_size;
    if ((ret = fi_fabric(im->info->fabric_attr, &im->fabric, NULL)))
        return fab_err(f, "fi_fabric (%s): %s", prov, fi_strerror(-ret));
    if ((ret = fi_domain(im->fabric, im->info, &im->domain, NULL)))
        return fab_err(f, "fi_domain (%s): %s", prov, fi_strerror(-ret));
    memset(&cqa, 0, sizeof(cqa));
    cqa.format = FI_CQ_FORMAT_DATA;
    cqa.wait_obj = FI_WAIT_NONE;
    cqa.size = 1024;
    if ((ret = fi_cq_open(im->domain, &cqa, &im->cq, NULL)))
        return fab_err(f, "fi_cq_open (%s): %s", prov, fi_strerror(-ret));
    memset(&ava, 0, sizeof(ava));
    ava.type = im->info->domain_attr->av_type != FI_AV_UNSPEC ?
               im->info->domain_attr->av_type : FI_AV_TABLE;
    if ((ret = fi_av_open(im->domain, &ava, &im->av, NULL)))
        return fab_err(f, "fi_av_open (%s): %s", prov, fi_strerror(-ret));
    if ((ret = fi_endpoint(im->domain, im->info, &im->ep, NULL)))
        return fab_err(f, "fi_endpoint (%s): %s", prov, fi_strerror(-ret));
    /* the remote CQ data of incoming writes arrives on the receive side */
    if ((ret = fi_ep_bind(im->ep, &im->av->fid, 0)) ||
        (ret = fi_ep_bind(im->ep, &im->cq->fid, FI_TRANSMIT | FI_RECV)))
        return fab_err(f, "fi_ep_bind (%s): %s", prov, fi_strerror(-ret));
    if ((ret = fi_enable(im->ep)))
        return fab_err(f, "fi_enable (%s): %s", prov, fi_strerror(-ret));
    if (ofi_reg(f, im->rbuf, im->maxbytes, FI_REMOTE_WRITE, &im->rmr))
        return -1;
    if ((mr_mode & FI_MR_LOCAL) && ofi_reg(f, im->sbuf, im->maxbytes, FI_WRITE, &im->smr))
        return -1;
    im->sdesc = im->smr ? fi_mr_desc(im->smr) : NULL;
    if ((ret = fi_getname(&im->ep->fid, rec->name, &len)))
        return fab_err(f, "fi_getname (%s): %s", prov, fi_strerror(-ret));
    rec->namelen = (uint32_t)len;
    rec->key = fi_mr_key(im->rmr);
    rec->addr = im->mr_virt ? (uint64_t)(uintptr_t)im->rbuf : 0;
    return 0;
}

/* the destination's address into the address vector */
static int ofi_connect(bench_fabric_t *f, const fab_rec_t *all)
{
    struct bench_fabric_impl *im = f->impl;
    const fab_rec_t *d = &all[f->dst];
    int ret;

    if ((ret = fi_av_insert(im->av, d->name, 1, &im->peer, 0, NULL)) != 1)
        return fab_err(f, "fi_av_insert of rank %d's address: %s", f->dst,
                       fi_strerror(ret < 0 ? -ret : FI_EINVAL));
    im->rkey = d->key;
    im->raddr = d->addr;
    return 0;
}

static int ofi_poll(bench_fabric_t *f)
{
    struct bench_fabric_impl *im = f->impl;
    struct fi_cq_data_entry e[16];
    struct fi_cq_err_entry ce;
    char buf[128];
    ssize_t n, i;

    n = fi_cq_read(im->cq, e, 16);
    if (n > 0) {
        im->empty = 0;
        for (i = 0; i < n; i++)
            if (e[i].flags & (FI_REMOTE_CQ_DATA | FI_REMOTE_WRITE))
                im->rxgot++;
            else
                im->txdone++;
        return 0;
    }
    if (n == -FI_EAGAIN) {
        if (++im->empty > im->spins)
            sched_yield();
        return 0;
    }
    if (n == -FI_EAVAIL) {
        memset(&ce, 0, sizeof(ce));
        if (fi_cq_readerr(im->cq, &ce, 0) < 0)
            return fab_err(f, "fi_cq_readerr failed");
        return fab_err(f, "%s completion: %s (%s)", ce.flags & FI_REMOTE_WRITE ? "incoming" :
                       "write", fi_strerror(ce.err),
                       fi_cq_strerror(im->cq, ce.prov_errno, ce.err_data, buf, sizeof(buf)));
    }
    return fab_err(f, "fi_cq_read: %s", fi_strerror((int)-n));
}

/* one write of a round: inject when it fits (no local completion then) */
static int ofi_write(bench_fabric_t *f, size_t off, size_t len, size_t k)
{
    struct bench_fabric_impl *im = f->impl;
    ssize_t ret;
    int inject = len <= im->inject;

    for (;;) {
        if (inject)
            ret = fi_inject_writedata(im->ep, im->sbuf + off, len, im->tag, im->peer,
                                      im->raddr + off, im->rkey);
        else
            ret = fi_writedata(im->ep, im->sbuf + off, len, im->sdesc, im->tag, im->peer,
                               im->raddr + off, im->rkey, &im->ctx[k % FAB_MAX_PIECES]);
        if (ret != -FI_EAGAIN)
            break;
        if (ofi_poll(f))   /* queue full, or a connection being set up */
            return -1;
    }
    if (ret)
        return fab_err(f, "%s of %zu bytes to rank %d: %s", inject ? "fi_inject_writedata" :
                       "fi_writedata", len, f->dst, fi_strerror((int)-ret));
    if (!inject)
        im->posted++;
    return 0;
}

static void ofi_close(struct bench_fabric_impl *im)
{
    if (im->ep)
        fi_close(&im->ep->fid);
    if (im->smr)
        fi_close(&im->smr->fid);
    if (im->rmr)
        fi_close(&im->rmr->fid);
    if (im->av)
        fi_close(&im->av->fid);
    if (im->cq)
        fi_close(&im->cq->fid);
    if (im->domain)
        fi_close(&im->domain->fid);
    if (im->fabric)
        fi_close(&im->fabric->fid);
    if (im->info)
        fi_freeinfo(im->info);
}
#endif /* HAVE_OFI */

/* ---- libibverbs --------------------------------------------------------- */

#ifdef HAVE_VERBS
static int vrb_is_ipv4_gid(const union ibv_gid *gid)
{
    static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

    return !memcmp(gid->raw, prefix, sizeof(prefix));
}

/* RoCE: RXE_GID_IDX when set, else the first RoCE v2 GID of an IPv4
 * address (without the GID table interface: the first IPv4-mapped GID) */
static int vrb_gid_index(bench_fabric_t *f)
{
    struct bench_fabric_impl *im = f->impl;
    struct ibv_gid_entry ent[256];
    union ibv_gid gid;
    const char *v = getenv("RXE_GID_IDX");
    ssize_t n, k;

    if (v && *v)
        return atoi(v);
    n = ibv_query_gid_table(im->vctx, ent, 256, 0);
    for (k = 0; k < n; k++)
        if (ent[k].port_num == im->port && ent[k].gid_type == IBV_GID_TYPE_ROCE_V2 &&
            vrb_is_ipv4_gid(&ent[k].gid))
            return (int)ent[k].gid_index;
    if (n < 0)
        for (k = 0; k < 256 && !ibv_query_gid(im->vctx, im->port, (int)k, &gid); k++)
            if (vrb_is_ipv4_gid(&gid))
                return (int)k;
    return fab_err(f, "%s port %u: no RoCE v2 GID of an IPv4 address (set RXE_GID_IDX)",
                   ibv_get_device_name(im->vctx->device), im->port);
}

/* the device (the one named, else the first with an active port) and its
 * first active port */
static int vrb_open_device(bench_fabric_t *f, const char *name)
{
    struct bench_fabric_impl *im = f->impl;
    struct ibv_device_attr da;
    struct ibv_port_attr pa;
    int n = 0, i, p;

    if (!(im->devs = ibv_get_device_list(&n)) || n == 0)
        return fab_err(f, "no RDMA device (ibv_get_device_list: %s)",
                       im->devs ? "empty list" : strerror(errno));
    for (i = 0; i < n; i++) {
        if (name && strcmp(name, ibv_get_device_name(im->devs[i])))
            continue;
        if (!(im->vctx = ibv_open_device(im->devs[i]))) {
            if (name)
                return fab_err(f, "ibv_open_device %s: %s", name, strerror(errno));
            continue;
        }
        if (ibv_query_device(im->vctx, &da) == 0)
            for (p = 1; p <= da.phys_port_cnt; p++)
                if (ibv_query_port(im->vctx, (uint8_t)p, &pa) == 0 &&
                    pa.state == IBV_PORT_ACTIVE) {
                    im->port = (uint8_t)p;
                    im->lid = pa.lid;
                    im->mtu = (uint8_t)pa.active_mtu;
                    im->maxmsg = pa.max_msg_sz;
                    im->roce = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
                    return 0;
                }
        ibv_close_device(im->vctx);
        im->vctx = NULL;
        if (name)
            return fab_err(f, "RDMA device %s has no active port", name);
    }
    return fab_err(f, name ? "no RDMA device named %s (ibv_devices lists them)" :
                   "no RDMA device with an active port%s", name ? name : "");
}

/* an RC QP to rank peer, in INIT, its receives posted */
static int vrb_qp(bench_fabric_t *f, int peer)
{
    struct bench_fabric_impl *im = f->impl;
    struct ibv_qp_init_attr qia;
    struct ibv_qp_attr qa;
    struct ibv_recv_wr wr, *bad;
    int k = im->nqp, i, ret;

    memset(&qia, 0, sizeof(qia));
    qia.send_cq = qia.recv_cq = im->vcq;
    qia.qp_type = IBV_QPT_RC;
    qia.cap.max_send_wr = qia.cap.max_recv_wr = FAB_QDEPTH;
    qia.cap.max_send_sge = qia.cap.max_recv_sge = 1;
    qia.cap.max_inline_data = FAB_INLINE;
    if (!(im->qp[k] = ibv_create_qp(im->pd, &qia))) {
        qia.cap.max_inline_data = 0;   /* the device may not take that much */
        if (!(im->qp[k] = ibv_create_qp(im->pd, &qia)))
            return fab_err(f, "ibv_create_qp (RC, %d work requests): %s", FAB_QDEPTH,
                           strerror(errno));
    }
    im->qpeer[k] = peer;
    im->nqp++;
    if (k == 0 || qia.cap.max_inline_data < im->max_inline)
        im->max_inline = qia.cap.max_inline_data;
    f->inject = im->max_inline;
    memset(&qa, 0, sizeof(qa));
    qa.qp_state = IBV_QPS_INIT;
    qa.pkey_index = 0;
    qa.port_num = im->port;
    qa.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
    if ((ret = ibv_modify_qp(im->qp[k], &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                             IBV_QP_ACCESS_FLAGS)))
        return fab_err(f, "ibv_modify_qp to INIT: %s", strerror(ret));
    /* each write with immediate data takes a receive: zero-length ones */
    for (i = 0; i < FAB_QDEPTH; i++) {
        memset(&wr, 0, sizeof(wr));
        wr.wr_id = (uint64_t)k;
        if ((ret = ibv_post_recv(im->qp[k], &wr, &bad)))
            return fab_err(f, "ibv_post_recv: %s", strerror(ret));
    }
    return 0;
}

static int vrb_setup(bench_fabric_t *f, const char *device, fab_rec_t *rec)
{
    struct bench_fabric_impl *im = f->impl;
    const char *dev;
    int k;

    if (vrb_open_device(f, device))
        return -1;
    dev = ibv_get_device_name(im->vctx->device);
    if (im->roce) {
        if ((im->gid_idx = vrb_gid_index(f)) < 0)
            return -1;
        if (ibv_query_gid(im->vctx, im->port, im->gid_idx, &im->gid))
            return fab_err(f, "ibv_query_gid %s port %u index %d: %s", dev, im->port,
                           im->gid_idx, strerror(errno));
        snprintf(f->provider, sizeof(f->provider), "%s port %u, GID index %d", dev, im->port,
                 im->gid_idx);
    } else {
        snprintf(f->provider, sizeof(f->provider), "%s port %u, LID %u", dev, im->port,
                 im->lid);
    }
    snprintf(f->label, sizeof(f->label), "fabric: ibv_post_send RDMA_WRITE_WITH_IMM, %s, "
             "no rtopo", dev);
    if (!(im->pd = ibv_alloc_pd(im->vctx)))
        return fab_err(f, "ibv_alloc_pd on %s: %s", dev, strerror(errno));
    if (!(im->vcq = ibv_create_cq(im->vctx, 4 * FAB_QDEPTH, NULL, NULL, 0)))
        return fab_err(f, "ibv_create_cq on %s: %s", dev, strerror(errno));
    if (!(im->vsmr = ibv_reg_mr(im->pd, im->sbuf, im->maxbytes, IBV_ACCESS_LOCAL_WRITE)) ||
        !(im->vrmr = ibv_reg_mr(im->pd, im->rbuf, im->maxbytes,
                                IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)))
        return fab_err(f, "ibv_reg_mr of %zu bytes on %s: %s (memlock limit: ulimit -l)",
                       im->maxbytes, dev, strerror(errno));
    /* one QP per peer rank: dst, and src when it is another rank */
    if (f->dst != im->me && vrb_qp(f, f->dst))
        return -1;
    if (f->src != im->me && f->src != f->dst && vrb_qp(f, f->src))
        return -1;
    if (fab_random(&im->psn, sizeof(im->psn)))
        return fab_err(f, "getrandom: %s", strerror(errno));
    im->psn &= 0xffffff;
    for (k = 0; k < 2; k++) {
        rec->qpn[k] = k < im->nqp ? im->qp[k]->qp_num : 0;
        rec->qpeer[k] = k < im->nqp ? im->qpeer[k] : -1;
    }
    rec->psn = im->psn;
    rec->lid = im->lid;
    rec->mtu = im->mtu;
    memcpy(rec->gid, im->gid.raw, sizeof(rec->gid));
    rec->key = im->vrmr->rkey;
    rec->addr = (uint64_t)(uintptr_t)im->rbuf;
    rec->maxmsg = im->maxmsg;
    return 0;
}

/* every QP of this rank to RTR then RTS, against the peer's QP for us */
static int vrb_connect(bench_fabric_t *f, const fab_rec_t *all)
{
    struct bench_fabric_impl *im = f->impl;
    struct ibv_qp_attr qa;
    const fab_rec_t *r;
    int k, m, ret;

    for (k = 0; k < im->nqp; k++) {
        r = &all[im->qpeer[k]];
        for (m = 0; m < 2 && r->qpeer[m] != im->me; m++)
            ;
        if (m == 2)
            return fab_err(f, "rank %d has no QP for rank %d (a shift whose partners do not "
                           "pair up)", im->qpeer[k], im->me);
        memset(&qa, 0, sizeof(qa));
        qa.qp_state = IBV_QPS_RTR;
        qa.path_mtu = (enum ibv_mtu)(r->mtu < im->mtu ? r->mtu : im->mtu);
        qa.dest_qp_num = r->qpn[m];
        qa.rq_psn = r->psn;
        qa.max_dest_rd_atomic = 1;
        qa.min_rnr_timer = 12;
        qa.ah_attr.dlid = r->lid;
        qa.ah_attr.port_num = im->port;
        if (im->roce) {
            qa.ah_attr.is_global = 1;
            memcpy(qa.ah_attr.grh.dgid.raw, r->gid, sizeof(r->gid));
            qa.ah_attr.grh.sgid_index = (uint8_t)im->gid_idx;
            qa.ah_attr.grh.hop_limit = 64;
        }
        if ((ret = ibv_modify_qp(im->qp[k], &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                                 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)))
            return fab_err(f, "ibv_modify_qp to RTR (to rank %d): %s", im->qpeer[k],
                           strerror(ret));
        memset(&qa, 0, sizeof(qa));
        qa.qp_state = IBV_QPS_RTS;
        qa.timeout = 14;
        qa.retry_cnt = 7;
        qa.rnr_retry = 7;   /* infinite */
        qa.sq_psn = im->psn;
        qa.max_rd_atomic = 1;
        if ((ret = ibv_modify_qp(im->qp[k], &qa, IBV_QP_STATE | IBV_QP_TIMEOUT |
                                 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                                 IBV_QP_MAX_QP_RD_ATOMIC)))
            return fab_err(f, "ibv_modify_qp to RTS (to rank %d): %s", im->qpeer[k],
                           strerror(ret));
        if (im->qpeer[k] == f->dst)
            im->dqp = k;
    }
    im->vrkey = all[f->dst].key;
    im->vraddr = all[f->dst].addr;
    return 0;
}

static int vrb_poll(bench_fabric_t *f)
{
    struct bench_fabric_impl *im = f->impl;
    struct ibv_wc wc[16];
    struct ibv_recv_wr wr, *bad;
    int n, i, ret;

    n = ibv_poll_cq(im->vcq, 16, wc);
    if (n < 0)
        return fab_err(f, "ibv_poll_cq failed");
    if (n == 0) {
        if (++im->empty > im->spins)
            sched_yield();
        return 0;
    }
    im->empty = 0;
    for (i = 0; i < n; i++) {
        if (wc[i].status != IBV_WC_SUCCESS)
            return fab_err(f, "%s completion: %s (vendor error 0x%x)",
                           wc[i].wr_id == FAB_WR_WRITE ? "write" : "receive",
                           ibv_wc_status_str(wc[i].status), wc[i].vendor_err);
        if (wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
            im->rxgot++;
            memset(&wr, 0, sizeof(wr));
            wr.wr_id = wc[i].wr_id;
            if ((ret = ibv_post_recv(im->qp[wc[i].wr_id], &wr, &bad)))
                return fab_err(f, "ibv_post_recv: %s", strerror(ret));
        } else if (wc[i].opcode == IBV_WC_RDMA_WRITE) {
            im->txdone++;
        }
    }
    return 0;
}

static int vrb_write(bench_fabric_t *f, size_t off, size_t len)
{
    struct bench_fabric_impl *im = f->impl;
    struct ibv_send_wr wr, *bad;
    struct ibv_sge sge;
    int ret;

    sge.addr = (uint64_t)(uintptr_t)(im->sbuf + off);
    sge.length = (uint32_t)len;
    sge.lkey = im->vsmr->lkey;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = FAB_WR_WRITE;
    wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
    wr.imm_data = htonl(im->tag);
    wr.send_flags = IBV_SEND_SIGNALED | (len <= im->max_inline ? IBV_SEND_INLINE : 0);
    wr.sg_list = len ? &sge : NULL;
    wr.num_sge = len ? 1 : 0;
    wr.wr.rdma.remote_addr = im->vraddr + off;
    wr.wr.rdma.rkey = im->vrkey;
    while ((ret = ibv_post_send(im->qp[im->dqp], &wr, &bad)) == ENOMEM)
        if (vrb_poll(f))   /* send queue full */
            return -1;
    if (ret)
        return fab_err(f, "ibv_post_send of %zu bytes to rank %d: %s", len, f->dst,
                       strerror(ret));
    im->posted++;
    return 0;
}

static void vrb_close(struct bench_fabric_impl *im)
{
    int k;

    for (k = 0; k < 2; k++)
        if (im->qp[k])
            ibv_destroy_qp(im->qp[k]);
    if (im->vsmr)
        ibv_dereg_mr(im->vsmr);
    if (im->vrmr)
        ibv_dereg_mr(im->vrmr);
    if (im->vcq)
        ibv_destroy_cq(im->vcq);
    if (im->pd)
        ibv_dealloc_pd(im->pd);
    if (im->vctx)
        ibv_close_device(im->vctx);
    if (im->devs)
        ibv_free_device_list(im->devs);
}
#endif /* HAVE_VERBS */

/* ---- the rounds --------------------------------------------------------- */

static int fab_poll(bench_fabric_t *f)
{
#ifdef HAVE_VERBS
    if (f->verbs)
        return vrb_poll(f);
#endif
#ifdef HAVE_OFI
    if (!f->verbs)
        return ofi_poll(f);
#endif
    return fab_err(f, "no provider");
}

int bench_fabric_shift(bench_fabric_t *f, size_t bytes)
{
    struct bench_fabric_impl *im = f->impl;
    size_t n = fab_pieces(im, bytes), k, off, len;
    int st = -1;

    if (f->dst == im->me) {   /* a line that does not move */
        memcpy(im->rbuf, im->sbuf, bytes);
        return 0;
    }
    im->tag++;
    im->empty = 0;
    im->rxexp += (long)n;
    for (k = 0, off = 0; k < n; k++, off += len) {
        len = bytes - off < im->piece ? bytes - off : im->piece;
#ifdef HAVE_VERBS
        if (f->verbs)
            st = vrb_write(f, off, len);
#endif
#ifdef HAVE_OFI
        if (!f->verbs)
            st = ofi_write(f, off, len, k);
#endif
        if (st)
            return -1;
    }
    /* an incoming write of the next round may land before this round's
     * own write completes: the counters run over the rounds */
    while (im->txdone < im->posted || im->rxgot < im->rxexp)
        if (fab_poll(f))
            return -1;
    return 0;
}

static void fab_free(bench_fabric_t *f)
{
    if (!f->impl)
        return;
#ifdef HAVE_VERBS
    if (f->verbs)
        vrb_close(f->impl);
#endif
#ifdef HAVE_OFI
    if (!f->verbs)
        ofi_close(f->impl);
#endif
    free(f->impl);
    f->impl = NULL;
}

void bench_fabric_close(bench_fabric_t *f)
{
    fab_free(f);
}

int bench_fabric_open(bench_fabric_t *f, const char *kind, MPI_Comm comm, void *sbuf,
                      void *rbuf, size_t maxbytes, int dst, int src, char *err, size_t errlen)
{
    struct bench_fabric_impl *im;
    fab_rec_t rec, *all = NULL;
    uint64_t piece, minpiece;
    unsigned spins = fab_spins(comm);
    int p, st = 0, local;

    memset(f, 0, sizeof(*f));
    f->dst = dst;
    f->src = src;
    f->verbs = !strcmp(kind, "verbs") || !strncmp(kind, "verbs:", 6);
    MPI_Comm_size(comm, &p);
    if (!(im = f->impl = calloc(1, sizeof(*im))))
        st = fab_err(f, "out of memory");
    else {
        MPI_Comm_rank(comm, &im->me);
        im->sbuf = sbuf;
        im->rbuf = rbuf;
        im->maxbytes = maxbytes;
        im->spins = spins;
    }
    local = st == 0 && dst == im->me && src == im->me;
    memset(&rec, 0, sizeof(rec));
    rec.maxmsg = UINT64_MAX;
    /* this rank's part: nothing to set up for a line that does not move */
    if (st == 0 && (dst < 0 || dst >= p || src < 0 || src >= p || (dst == im->me) != local))
        st = fab_err(f, "partners %d and %d of rank %d: not a shift", dst, src, im->me);
    else if (st == 0 && f->verbs) {
#ifdef HAVE_VERBS
        st = local ? 0 : vrb_setup(f, kind[5] == ':' ? kind + 6 : NULL, &rec);
#else
        st = fab_err(f, "this rtopo-bench-mpi was built without libibverbs");
#endif
    } else if (st == 0) {
#ifdef HAVE_OFI
        st = local ? 0 : ofi_setup(f, kind, &rec);
#else
        st = fab_err(f, "this rtopo-bench-mpi was built without libfabric");
#endif
    }
    if (fab_agree(f, comm, st != 0))
        goto fail;
    /* every rank's record; the largest single write of them all */
    if (!(all = malloc(sizeof(*all) * (size_t)p)))
        st = fab_err(f, "out of memory");
    else if (MPI_Allgather(&rec, (int)sizeof(rec), MPI_BYTE, all, (int)sizeof(rec), MPI_BYTE,
                           comm) != MPI_SUCCESS)
        st = fab_err(f, "MPI_Allgather of the addresses failed");
    if (fab_agree(f, comm, st != 0))
        goto fail;
    piece = rec.maxmsg;
    if (MPI_Allreduce(&piece, &minpiece, 1, MPI_UINT64_T, MPI_MIN, comm) != MPI_SUCCESS)
        st = fab_err(f, "MPI_Allreduce failed");
    else if (minpiece == 0)
        st = fab_err(f, "the provider writes nothing in one go (largest message 0)");
    else {
        im->piece = minpiece > SIZE_MAX ? SIZE_MAX : (size_t)minpiece;
        if (fab_pieces(im, maxbytes) > FAB_MAX_PIECES)
            st = fab_err(f, "%zu bytes take more than %d writes of at most %zu", maxbytes,
                         FAB_MAX_PIECES, im->piece);
    }
    if (st == 0 && !local) {
#ifdef HAVE_VERBS
        if (f->verbs)
            st = vrb_connect(f, all);
#endif
#ifdef HAVE_OFI
        if (!f->verbs)
            st = ofi_connect(f, all);
#endif
    }
    /* also a barrier: every QP is ready before any rank writes */
    if (fab_agree(f, comm, st != 0))
        goto fail;
    free(all);
    fab_describe(f, comm, local);
    return 0;
fail:
    snprintf(err, errlen, "%s", f->err);
    free(all);
    fab_free(f);
    return -1;
}
