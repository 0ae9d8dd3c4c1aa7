/*
 * ofi_tl.c - libfabric backend of the transport ops table.
 *
 * One RDM endpoint per process: tcp;ofi_rxm by default ("ofi", "ofi:rxm"),
 * the native tcp RDM provider ("ofi:tcp": "tcp" on libfabric >= 1.18,
 * "net" before), shared memory ("ofi:shm"), or any provider string
 * ("ofi:verbs;ofi_rxm").  Peers are address-vector entries; rxm and tcp
 * open a connection on first use, so only overlay edges get one.
 *
 * Control messages use send/recv over a ring of pre-posted receive
 * buffers; data uses fi_writedata whose 8-byte CQ data carries the 32-bit
 * immediate.  Providers move RMA data only while the target calls into
 * libfabric, which the engine does whenever it waits.
 *
 * Blocking: tcp and rxm CQs have an fd wait object (fi_cq_sread sleeps
 * in the kernel); shm has none, so wait() sleeps in short naps between
 * polls instead of spinning.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include "rtopo.h"
#include "clock.h"
#include "log.h"
#include "tl.h"

#define ROFI_NRECV      64     /* pre-posted control receive buffers */
#define ROFI_NBOUNCE    256    /* control send bounce buffers */
#define ROFI_NOPS       8192   /* in-flight operation contexts */
#define ROFI_POLL_BATCH 32
#define ROFI_SOCK_WRITE ((size_t)256 * 1024)   /* write size on the socket providers */
#define ROFI_PROBE_MS   5000   /* bound of the probe of addresses (rofi_addr_check) */

enum rofi_op_kind { ROFI_OP_FREE = 0, ROFI_OP_WRITE, ROFI_OP_SEND, ROFI_OP_RECV };

/* provider-owned context (FI_CONTEXT2 space) plus our bookkeeping */
struct rofi_op {
    struct fi_context2 fctx;
    int kind;
    int peer;
    int index;            /* recv buffer / bounce buffer index */
    void *ctx;            /* engine context */
    struct rofi_op *next_free;
};

struct rtopo__tl_mr {
    struct fid_mr *mr;    /* NULL once closed (rofi_mem_close) */
    void *buf;
    size_t len;
    int remote;
    struct rofi_tl *t;
    int closing;          /* rofi_mem_close was called (atomic) */
    struct rtopo__tl_mr *close_next;
};

struct rofi_tl {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    int rank;
    int nranks;
    fi_addr_t *peer_addr;
    int source;           /* FI_SOURCE: completions carry the sender */
    int imm_source;       /* ... of remote writes too (not rxm) */
    char (*blob)[RTOPO__TL_ADDR_MAX];   /* peers' addresses, to name senders */
    size_t *blob_len;
    int *src_rank;        /* source fi_addr -> rank (-2: not looked up yet) */
    size_t nsrc;
    int cq_fd_wait;       /* the CQ has an fd wait object */
    int wait_fd;          /* its descriptor, once asked for (else -1) */
    int mr_virt;          /* remote addresses are virtual (FI_MR_VIRT_ADDR) */
    int mr_prov_key;
    int mr_endpoint;
    int mr_local;         /* FI_MR_LOCAL: sends need registered buffers */
    size_t ctrl_size;
    char *recv_bufs;
    struct fid_mr *recv_mr;
    struct rofi_op *recv_ops[ROFI_NRECV];
    int repost[ROFI_NRECV];
    int nrepost;
    char *bounce_bufs;
    char *inject_buf;     /* the pieces of an injected message, joined */
    struct fid_mr *bounce_mr;
    int bounce_free[ROFI_NBOUNCE];
    int nbounce_free;
    struct rofi_op *ops;
    struct rofi_op *free_ops;
    /* one completion taken out by fi_cq_sread, delivered by the next poll */
    struct fi_cq_data_entry stash;
    fi_addr_t stash_from;
    int have_stash;
    uint64_t dropped;     /* completions refused: not from the job */
    uint64_t idle_since;  /* no-fd waits: when the CQ was last found empty
                             after an event (0: an event since) */
    char prov_name[48];
    const unsigned char *local;   /* params->local */
    /* per rank, why its address cannot be reached from here: 0 (it can,
     * or unknown), ROFI_REACH_LOOP, or an errno (ENETUNREACH or
     * EHOSTUNREACH: no route; ETIMEDOUT: no answer to the probe) */
    int *reach_err;
    int probe_ms;         /* the probe's bound (rofi_addr_check) */
    /* per rank, 1 once the connection to it has carried traffic (a
     * transfer to it completed, or a message from it came in): a transfer
     * the provider then cancels was cut off with the connection */
    unsigned char *peer_up;
    /* regions to close to writes (rofi_mem_close), pushed by any thread,
     * closed by the engine's before it next calls into libfabric */
    struct rtopo__tl_mr *closing;
};

static inline struct rofi_tl *rofi_tl(struct rtopo__tl *tl)
{
    return (struct rofi_tl *)tl;
}

static void rofi_close_mrs(struct rofi_tl *t);

/* Before every call into libfabric that may take in a peer's write: the
 * regions closed since are closed in the provider first (one load when
 * there are none). */
static inline void rofi_closed(struct rofi_tl *t)
{
    if (__atomic_load_n(&t->closing, __ATOMIC_RELAXED))
        rofi_close_mrs(t);
}

/* The providers a transport string names, in order of preference:
 * "ofi:tcp" the native tcp RDM provider ("tcp" from libfabric 1.18, "net"
 * before); "ofi:rxm" tcp under rxm; "ofi" (and "auto") the native one
 * where libfabric has it, else rxm: it is faster for messages up to tens
 * of KiB, and an outsider's flood cannot make rxm's receive pool grow by
 * 16 MiB steps; "ofi:X" provider X.  native[i]: candidate i must be
 * the native tcp provider, not tcp under rxm.  Returns the count, 0 for a
 * string that is not ours. */
#define ROFI_MAX_CAND 3

static int rofi_candidates(const char *transport, const char *prov[ROFI_MAX_CAND],
                           int native[ROFI_MAX_CAND])
{
    int n = 0, tcp = 0, rxm = 0;

    if (transport == NULL || !strcmp(transport, "ofi") || !strcmp(transport, "auto"))
        tcp = rxm = 1;
    else if (strncmp(transport, "ofi:", 4))
        return 0;
    else if (!strcmp(transport + 4, "rxm"))
        rxm = 1;
    else if (!strcmp(transport + 4, "tcp"))
        tcp = 1;
    else {
        prov[0] = transport + 4;
        native[0] = 0;
        return 1;
    }
    if (tcp) {
        prov[n] = "tcp";
        native[n++] = 1;
        prov[n] = "net";
        native[n++] = 1;
    }
    if (rxm) {
        prov[n] = "tcp;ofi_rxm";
        native[n++] = 0;
    }
    return n;
}

static int rofi_match(const char *transport)
{
    return transport && (!strcmp(transport, "ofi") || !strncmp(transport, "ofi:", 4));
}

static struct fi_info *rofi_hints(const char *prov, int source)
{
    struct fi_info *hints = fi_allocinfo();

    if (!hints)
        return NULL;
    hints->caps = FI_MSG | FI_RMA | FI_WRITE | FI_REMOTE_WRITE | FI_SEND | FI_RECV;
    if (source)
        hints->caps |= FI_SOURCE;
    hints->mode = FI_CONTEXT | FI_CONTEXT2 | FI_RX_CQ_DATA;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
                                  FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->fabric_attr->prov_name = strdup(prov);
    return hints;
}

/* fi_getinfo for the transport: its candidate providers in turn, each
 * first with FI_SOURCE so that events name their peer */
static int rofi_getinfo(const char *transport, struct fi_info **info_p, int quiet)
{
    const char *prov[ROFI_MAX_CAND];
    struct fi_info *hints, *info = NULL;
    int native[ROFI_MAX_CAND], n, c, source, ret = -FI_ENODATA;

    n = rofi_candidates(transport, prov, native);
    if (n == 0)
        return RTOPO_ERR_INVAL;
    for (c = 0; c < n && ret; c++) {
        for (source = 1; source >= 0; source--) {
            hints = rofi_hints(prov[c], source);
            if (!hints)
                return RTOPO_ERR_NOMEM;
            ret = fi_getinfo(FI_VERSION(1, 12), NULL, NULL, 0, hints, &info);
            fi_freeinfo(hints);
            /* the native provider, not tcp under rxm (libfabric < 1.18
             * answers "tcp" with it) */
            if (ret == 0 && native[c] && strchr(info->fabric_attr->prov_name, ';')) {
                fi_freeinfo(info);
                info = NULL;
                ret = -FI_ENODATA;
            }
            if (ret == 0)
                break;
        }
    }
    if (ret) {
        if (quiet)
            return RTOPO_ERR_TRANSPORT;
        return rtopo__error(RTOPO_ERR_TRANSPORT,
                            "libfabric provider '%s' with RDM endpoints, RMA write "
                            "and remote CQ data not found: %s (fi_info -l lists providers)",
                            n > 1 && native[n - 1] == 0 ? "tcp or tcp;ofi_rxm" : prov[0],
                            fi_strerror(-ret));
    }
    if (info->domain_attr->cq_data_size < 4) {
        ret = quiet ? RTOPO_ERR_TRANSPORT :
            rtopo__error(RTOPO_ERR_TRANSPORT, "provider '%s' carries no 4-byte "
                         "remote CQ data", info->fabric_attr->prov_name);
        fi_freeinfo(info);
        return ret;
    }
    *info_p = info;
    return RTOPO_OK;
}

static int rofi_available(const char *transport)
{
    struct fi_info *info;

    if (rofi_getinfo(transport, &info, 1) != RTOPO_OK)
        return 0;
    fi_freeinfo(info);
    return 1;
}

/* Is the socket address a loopback one (127.0.0.0/8, ::1, or an IPv4
 * loopback address mapped into IPv6)?  0 for anything else, other
 * address formats included. */
static int rofi_loopback(const void *addr, size_t len)
{
    const struct sockaddr *sa = addr;
    const struct sockaddr_in6 *s6 = addr;

    if (!addr || len < sizeof(sa->sa_family))
        return 0;
    if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in))
        return (ntohl(((const struct sockaddr_in *)addr)->sin_addr.s_addr) >> 24) == 127;
    if (sa->sa_family == AF_INET6 && len >= sizeof(*s6))
        return IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) ||
               (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) && s6->sin6_addr.s6_addr[12] == 127);
    return 0;
}

static int rofi_inet(const struct fi_info *i)
{
    const struct sockaddr *sa = i->src_addr;

    return sa && i->src_addrlen >= sizeof(sa->sa_family) &&
           (sa->sa_family == AF_INET || sa->sa_family == AF_INET6);
}

/* the interface the user named for the provider: libfabric's own
 * FI_<PROVIDER>_IFACE (FI_TCP_IFACE, FI_SOCKETS_IFACE...); FI_TCP_IFACE
 * also for "net", the tcp provider's name before libfabric 1.18 */
static const char *rofi_iface_env(const char *prov, char *var, size_t n)
{
    const char *v;
    size_t i, k = strcspn(prov, ";");

    i = (size_t)snprintf(var, n, "FI_");
    for (; k-- && i + 7 < n; prov++)
        var[i++] = (char)toupper((unsigned char)*prov);
    snprintf(var + i, n - i, "_IFACE");
    if ((v = getenv(var)) && *v)
        return v;
    if (!strcmp(var, "FI_NET_IFACE") && (v = getenv("FI_TCP_IFACE")) && *v) {
        snprintf(var, n, "FI_TCP_IFACE");
        return v;
    }
    return NULL;
}

/* The address a rank publishes.  libfabric's socket providers list one
 * entry per interface address and bind the endpoint to the entry's
 * source address; the first is not loopback.  Unless the user named the
 * interface (rofi_iface_env), a job whose ranks all run in this network
 * stack takes loopback, which needs no network and reaches them all, and
 * any other job the first interface that is not loopback, as libfabric
 * orders them.  A named interface takes its first entry (libfabric <
 * 1.18 appends loopback even to a filtered list).  *info_p becomes that
 * entry alone. */
static int rofi_pick_addr(struct fi_info **info_p, const rtopo__tl_params_t *params)
{
    struct fi_info *list = *info_p, *i, *pick = NULL;
    const char *want, *why;
    char var[40], host[INET6_ADDRSTRLEN] = "";
    int one = params->local != NULL, r;

    if (!rofi_inet(list))
        return RTOPO_OK;
    for (r = 0; one && r < params->nranks; r++)
        one = params->local[r];
    want = rofi_iface_env(list->fabric_attr->prov_name, var, sizeof(var));
    for (i = list; i && !pick; i = i->next) {
        if (!rofi_inet(i))
            continue;
        if (want)
            pick = i->domain_attr->name && !strcmp(i->domain_attr->name, want) ? i : NULL;
        else if (params->local)
            pick = rofi_loopback(i->src_addr, i->src_addrlen) == one ? i : NULL;
    }
    if (want)
        why = var;
    else if (!params->local)
        why = "libfabric's first";
    else
        why = one ? "every rank in this network stack" : "ranks in other network stacks";
    if (!pick) {
        pick = list;
        if (want || params->local)
            why = "libfabric's first: no other";
    }
    if (pick != list) {
        if (!(*info_p = fi_dupinfo(pick))) {
            *info_p = list;
            return rtopo__error(RTOPO_ERR_NOMEM, "fi_dupinfo");
        }
        fi_freeinfo(list);
    }
    pick = *info_p;
    if (pick->src_addr && ((struct sockaddr *)pick->src_addr)->sa_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)pick->src_addr)->sin_addr, host,
                  sizeof(host));
    else if (pick->src_addr)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)pick->src_addr)->sin6_addr, host,
                  sizeof(host));
    rtopo__info("address %s on %s (%s)", host,
                pick->domain_attr->name ? pick->domain_attr->name : "?", why);
    return RTOPO_OK;
}

/* libfabric sizes some of what a provider sets up by FI_UNIVERSE_SIZE,
 * read once, at the library's first call: rxm's connection completion
 * queue has room for the receive and send queues of every possible peer,
 * 1024 peers unless told.  That queue is allocated in full and its pages are touched as the
 * queue turns, so a flood from outside the job (or just a long run) makes
 * about 12 MiB of it resident.  Tell libfabric the job's size instead,
 * unless the user did; only ever less than libfabric's default, and in
 * vain when something in the process has called libfabric before. */
#define ROFI_UNIVERSE_MIN 16
#define ROFI_UNIVERSE_DEFAULT 1024

static void rofi_job_size(int nranks)
{
    char v[16];
    int u = nranks < ROFI_UNIVERSE_MIN ? ROFI_UNIVERSE_MIN : nranks;

    if (nranks <= 0 || u >= ROFI_UNIVERSE_DEFAULT || getenv("FI_UNIVERSE_SIZE"))
        return;
    snprintf(v, sizeof(v), "%d", u);
    if (setenv("FI_UNIVERSE_SIZE", v, 0) == 0)
        rtopo__debug("FI_UNIVERSE_SIZE=%s (the job's size)", v);
}

/* libfabric's tcp provider moves up to 64 KiB faster as one eager
 * message, copied on both ends, than as a ready-to-receive round trip
 * and a write: each message costs a trip through both kernels, and the
 * copies are cheap next to it (rtopo-bench-mpi, 2 ranks: 16 KiB and
 * 32 KiB shifts took 1.25-1.65x the time of Open MPI's tcp BTL with an
 * 8 KiB limit, 1.1-1.2x with 64 KiB).  rxm sends a message of up to its
 * own eager limit (FI_OFI_RXM_EAGER_LIMIT, within FI_OFI_RXM_BUFFER_SIZE:
 * 16 KiB) at once and larger ones through a rendezvous of its own: the
 * engine's messages stay within it, header included (12-16 KiB shifts
 * took 2.2x Open MPI's time as rendezvous, 1.4x eager; 16 KiB and more
 * inside rxm's rendezvous, 3.4x).  shm and the others keep the engine's
 * default. */
#define ROFI_SOCK_EAGER (64 * 1024)
#define ROFI_RXM_EAGER_DEFAULT 16384

static size_t rofi_env_size(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    char *end;
    unsigned long long x;

    if (!v || !*v)
        return dflt;
    errno = 0;
    x = strtoull(v, &end, 10);
    return errno || *end || x == 0 ? dflt : (size_t)x;
}

static size_t rofi_eager_default(const char *transport, size_t hdr)
{
    struct fi_info *info;
    const char *prov;
    size_t eager = 0, rxm, buf;

    if (rofi_getinfo(transport, &info, 1) != RTOPO_OK)
        return 0;
    prov = info->fabric_attr->prov_name;
    if (!strcmp(prov, "tcp") || !strcmp(prov, "net")) {
        eager = ROFI_SOCK_EAGER;
    } else if (!strcmp(prov, "tcp;ofi_rxm") || !strcmp(prov, "net;ofi_rxm")) {
        rxm = rofi_env_size("FI_OFI_RXM_EAGER_LIMIT", ROFI_RXM_EAGER_DEFAULT);
        buf = rofi_env_size("FI_OFI_RXM_BUFFER_SIZE", ROFI_RXM_EAGER_DEFAULT);
        rxm = rxm < buf ? rxm : buf;
        if (rxm > hdr)
            eager = rxm - hdr;
    }
    fi_freeinfo(info);
    return eager;
}

static struct rofi_op *rofi_op_get(struct rofi_tl *t, int kind, int peer, void *ctx)
{
    struct rofi_op *op = t->free_ops;

    if (!op)
        return NULL;
    t->free_ops = op->next_free;
    op->kind = kind;
    op->peer = peer;
    op->ctx = ctx;
    op->index = -1;
    return op;
}

static void rofi_op_put(struct rofi_tl *t, struct rofi_op *op)
{
    op->kind = ROFI_OP_FREE;
    op->next_free = t->free_ops;
    t->free_ops = op;
}

static int rofi_post_recv(struct rofi_tl *t, int i)
{
    struct rofi_op *op = t->recv_ops[i];
    ssize_t ret;

    do {
        ret = fi_recv(t->ep, t->recv_bufs + (size_t)i * t->ctrl_size, t->ctrl_size,
                      fi_mr_desc(t->recv_mr), FI_ADDR_UNSPEC, &op->fctx);
        if (ret == -FI_EAGAIN)
            fi_cq_read(t->cq, NULL, 0);   /* drive progress */
    } while (ret == -FI_EAGAIN);
    if (ret)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "fi_recv: %s", fi_strerror((int)-ret));
    return RTOPO_OK;
}

/* Where the provider takes the key it is asked for (no FI_MR_PROV_KEY:
 * tcp, rxm, shm), a key is all it checks before it lets a write from any
 * connection into the region, a connection from outside the job included.
 * Keys are therefore drawn at random over the provider's key size (8 bytes
 * on those), not counted up from 1, so they cannot be guessed; a key
 * already in use is drawn again. */
static int rofi_reg(struct rofi_tl *t, void *buf, size_t len, uint64_t access,
                    struct fid_mr **mr_p)
{
    size_t ksize = t->info->domain_attr->mr_key_size;
    uint64_t key = 0;
    int ret, tries = 0;

    do {
        if (!t->mr_prov_key) {
            if (getrandom(&key, sizeof(key), 0) != (ssize_t)sizeof(key))
                return rtopo__error(RTOPO_ERR_TRANSPORT, "getrandom: %m");
            if (ksize > 0 && ksize < sizeof(key))
                key &= ((uint64_t)1 << (8 * ksize)) - 1;
        }
        ret = fi_mr_reg(t->domain, buf, len, access, 0, key, 0, mr_p, NULL);
    } while (ret == -FI_ENOKEY && !t->mr_prov_key && ++tries < 16);
    if (ret)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "fi_mr_reg of %zu bytes: %s",
                            len, fi_strerror(-ret));
    if (t->mr_endpoint) {
        ret = fi_mr_bind(*mr_p, &t->ep->fid, 0);
        if (!ret)
            ret = fi_mr_enable(*mr_p);
        if (ret) {
            fi_close(&(*mr_p)->fid);
            return rtopo__error(RTOPO_ERR_TRANSPORT, "fi_mr_bind: %s", fi_strerror(-ret));
        }
    }
    return RTOPO_OK;
}

static void rofi_close(struct rtopo__tl *tl)
{
    struct rofi_tl *t = rofi_tl(tl);

    if (!t)
        return;
    if (t->domain)
        rofi_closed(t);
    if (t->ep)
        fi_close(&t->ep->fid);
    if (t->recv_mr)
        fi_close(&t->recv_mr->fid);
    if (t->bounce_mr)
        fi_close(&t->bounce_mr->fid);
    if (t->av)
        fi_close(&t->av->fid);
    if (t->cq)
        fi_close(&t->cq->fid);
    if (t->domain)
        fi_close(&t->domain->fid);
    if (t->fabric)
        fi_close(&t->fabric->fid);
    if (t->info)
        fi_freeinfo(t->info);
    free(t->recv_bufs);
    free(t->bounce_bufs);
    free(t->inject_buf);
    free(t->ops);
    free(t->peer_addr);
    free(t->reach_err);
    free(t->peer_up);
    free(t->blob);
    free(t->blob_len);
    free(t->src_rank);
    free(t);
}

/*
 * libfabric's shm provider names the region of an endpoint
 * /dev/shm/<pid>:<uid>:<n> (n counts the endpoints of the process; older
 * releases put other numbers after the pid) and removes it when the
 * endpoint closes.  A process that ended without closing its endpoint
 * (killed, or _exit) leaves its region behind, 16 MiB; a later process
 * that gets the same pid then finds a region under its own name that
 * names a live owner (itself): libfabric removes that file and fails
 * the endpoint with EBUSY.
 *
 * A region named after our pid that this process does not map is not
 * one of its own live endpoints' (the provider maps its region for the
 * endpoint's whole life, and no other live process has our pid): it is
 * a dead process's.  Those of our user are removed; a file we cannot
 * tell about (no /proc/self/maps) is kept.
 */
static int rofi_shm_name_ours(const char *name, const char *prefix, size_t n)
{
    const char *p;

    if (strncmp(name, prefix, n) || !name[n])
        return 0;
    for (p = name + n; *p; p++)
        if ((*p < '0' || *p > '9') && *p != ':')
            return 0;
    return 1;
}

/* is /dev/shm/<name> mapped by this process?  1 when unsure */
static int rofi_shm_mapped(const char *name)
{
    char line[4352], path[300];
    size_t plen, len;
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "re");

    if (!f)
        return 1;
    plen = (size_t)snprintf(path, sizeof(path), "/dev/shm/%s", name);
    while (!found && fgets(line, sizeof(line), f)) {
        len = strlen(line);
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        /* the path is the last field, after the inode's padding */
        found = len >= plen && !strcmp(line + len - plen, path) &&
                len > plen && line[len - plen - 1] == ' ';
    }
    fclose(f);
    return found;
}

/* removes the stale regions of our pid; returns how many */
static int rofi_shm_unlink_stale(void)
{
    char prefix[32];
    struct dirent *d;
    struct stat st;
    DIR *dir = opendir("/dev/shm");
    size_t n;
    int removed = 0;

    if (!dir)
        return 0;
    n = (size_t)snprintf(prefix, sizeof(prefix), "%ld:", (long)getpid());
    while ((d = readdir(dir))) {
        if (!rofi_shm_name_ours(d->d_name, prefix, n) ||
            fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
            !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
            rofi_shm_mapped(d->d_name))
            continue;
        if (!unlinkat(dirfd(dir), d->d_name, 0)) {
            rtopo__info("removed /dev/shm/%s, left by an earlier process with "
                        "this pid", d->d_name);
            removed++;
        }
    }
    closedir(dir);
    return removed;
}

static int rofi_ep_setup(struct rofi_tl *t)
{
    int ret;

    if ((ret = fi_endpoint(t->domain, t->info, &t->ep, NULL)))
        t->ep = NULL;
    else if (!(ret = fi_ep_bind(t->ep, &t->av->fid, 0)) &&
             !(ret = fi_ep_bind(t->ep, &t->cq->fid, FI_TRANSMIT | FI_RECV)))
        ret = fi_enable(t->ep);
    return ret;
}

/* writes one byte of every page (a memset after malloc may become a
 * calloc, which leaves fresh pages untouched) */
static void rofi_touch(void *buf, size_t len)
{
    volatile char *p = buf;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), i;

    for (i = 0; i < len; i += pg)
        p[i] = 0;
}

static int rofi_open(const rtopo__tl_params_t *params, struct rtopo__tl **tl_p)
{
    struct fi_cq_attr cq_attr = { 0 };
    struct fi_av_attr av_attr = { 0 };
    struct rofi_tl *t;
    int ret, st, i;

    t = calloc(1, sizeof(*t));
    if (!t)
        return RTOPO_ERR_NOMEM;
    t->wait_fd = -1;
    t->rank = params->rank;
    t->nranks = params->nranks;
    t->ctrl_size = params->ctrl_size;
    t->local = params->local;
    /* the probe of an address waits a quarter of the timeout at most */
    t->probe_ms = params->timeout_ms > 0 && params->timeout_ms / 4 < ROFI_PROBE_MS
                      ? params->timeout_ms / 4 : ROFI_PROBE_MS;

    st = rofi_getinfo(params->name, &t->info, 0);
    if (!st)
        st = rofi_pick_addr(&t->info, params);
    if (st)
        goto err;
    snprintf(t->prov_name, sizeof(t->prov_name), "%s", t->info->fabric_attr->prov_name);
    if (!strcmp(t->prov_name, "shm"))
        rofi_shm_unlink_stale();
    t->source = !!(t->info->caps & FI_SOURCE);
    t->imm_source = strstr(t->prov_name, "ofi_rxm") == NULL;
    t->mr_virt = !!(t->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR);
    t->mr_prov_key = !!(t->info->domain_attr->mr_mode & FI_MR_PROV_KEY);
    t->mr_endpoint = !!(t->info->domain_attr->mr_mode & FI_MR_ENDPOINT);
    t->mr_local = !!(t->info->domain_attr->mr_mode & FI_MR_LOCAL);
    rtopo__info("provider %s, source %d, mr_mode 0x%x, mode 0x%llx, max_msg %zu, inject %zu",
                t->prov_name, t->source, t->info->domain_attr->mr_mode,
                (unsigned long long)t->info->mode, t->info->ep_attr->max_msg_size,
                t->info->tx_attr->inject_size);

    st = RTOPO_ERR_TRANSPORT;
    if ((ret = fi_fabric(t->info->fabric_attr, &t->fabric, NULL))) {
        rtopo__error(st, "fi_fabric: %s", fi_strerror(-ret));
        goto err;
    }
    if ((ret = fi_domain(t->fabric, t->info, &t->domain, NULL))) {
        rtopo__error(st, "fi_domain: %s", fi_strerror(-ret));
        goto err;
    }
    cq_attr.format = FI_CQ_FORMAT_DATA;
    cq_attr.size = 4096;
    cq_attr.wait_obj = FI_WAIT_FD;
    t->cq_fd_wait = 1;
    if (!strcmp(t->prov_name, "shm") || params->poll_only ||
        fi_cq_open(t->domain, &cq_attr, &t->cq, NULL)) {
        /* no kernel wait object: wait() naps between polls.  When waits
         * never sleep, none is needed, and tcp and rxm keep it up on every
         * read (0.3 us on an 8-byte write over tcp, 1 us over rxm) */
        cq_attr.wait_obj = FI_WAIT_NONE;
        t->cq_fd_wait = 0;
        rtopo__info("completion queue without a wait object%s",
                    params->poll_only ? " (RTOPO_WAIT=poll)" : "");
        if ((ret = fi_cq_open(t->domain, &cq_attr, &t->cq, NULL))) {
            rtopo__error(st, "fi_cq_open: %s", fi_strerror(-ret));
            goto err;
        }
    }
    av_attr.type = FI_AV_TABLE;
    av_attr.count = (size_t)t->nranks;
    if ((ret = fi_av_open(t->domain, &av_attr, &t->av, NULL))) {
        rtopo__error(st, "fi_av_open: %s", fi_strerror(-ret));
        goto err;
    }
    ret = rofi_ep_setup(t);
    if (ret == -FI_EBUSY && !strcmp(t->prov_name, "shm")) {
        /* a region under our name that the sweep above kept (or that
         * appeared since): libfabric has removed it; once more, with a
         * new endpoint (and a new name) */
        rtopo__info("endpoint set-up on shm: %s: retrying once",
                    fi_strerror(-ret));
        if (t->ep)
            fi_close(&t->ep->fid);
        t->ep = NULL;
        rofi_shm_unlink_stale();
        ret = rofi_ep_setup(t);
    }
    if (ret) {
        rtopo__error(st, "endpoint set-up on %s: %s", t->prov_name, fi_strerror(-ret));
        goto err;
    }

    st = RTOPO_ERR_NOMEM;
    t->peer_addr = malloc(sizeof(*t->peer_addr) * (size_t)t->nranks);
    t->reach_err = calloc((size_t)t->nranks, sizeof(*t->reach_err));
    t->peer_up = calloc((size_t)t->nranks, 1);
    t->blob = calloc((size_t)t->nranks, sizeof(*t->blob));
    t->blob_len = calloc((size_t)t->nranks, sizeof(*t->blob_len));
    t->ops = calloc(ROFI_NOPS, sizeof(*t->ops));
    t->recv_bufs = malloc(ROFI_NRECV * t->ctrl_size);
    t->bounce_bufs = malloc(ROFI_NBOUNCE * t->ctrl_size);
    t->inject_buf = malloc(t->info->tx_attr->inject_size + 1);
    if (!t->peer_addr || !t->reach_err || !t->peer_up || !t->blob || !t->blob_len ||
        !t->ops || !t->recv_bufs || !t->bounce_bufs || !t->inject_buf)
        goto err;
    for (i = 0; i < t->nranks; i++)
        t->peer_addr[i] = FI_ADDR_NOTAVAIL;
    for (i = ROFI_NOPS - 1; i >= 0; i--)
        rofi_op_put(t, &t->ops[i]);
    for (i = 0; i < ROFI_NBOUNCE; i++)
        t->bounce_free[i] = ROFI_NBOUNCE - 1 - i;
    t->nbounce_free = ROFI_NBOUNCE;
    /* every posted receive buffer is resident from the start: what
     * arrives (a flood from outside the job included) fills pages the
     * process already has, and the memory a rank uses does not creep up
     * as the buffers turn */
    rofi_touch(t->recv_bufs, ROFI_NRECV * t->ctrl_size);

    if ((st = rofi_reg(t, t->recv_bufs, ROFI_NRECV * t->ctrl_size, FI_RECV, &t->recv_mr)) ||
        (st = rofi_reg(t, t->bounce_bufs, ROFI_NBOUNCE * t->ctrl_size, FI_SEND, &t->bounce_mr)))
        goto err;
    for (i = 0; i < ROFI_NRECV; i++) {
        t->recv_ops[i] = rofi_op_get(t, ROFI_OP_RECV, -1, NULL);
        t->recv_ops[i]->index = i;
        if ((st = rofi_post_recv(t, i)))
            goto err;
    }
    *tl_p = (struct rtopo__tl *)t;
    return RTOPO_OK;
err:
    rofi_close((struct rtopo__tl *)t);
    return st;
}

static void rofi_query(struct rtopo__tl *tl, rtopo__tl_attr_t *attr)
{
    struct rofi_tl *t = rofi_tl(tl);

    int sock = !strcmp(t->prov_name, "tcp") || !strcmp(t->prov_name, "net") ||
               !strcmp(t->prov_name, "tcp;ofi_rxm") || !strcmp(t->prov_name, "net;ofi_rxm");

    attr->max_write = t->info->ep_attr->max_msg_size;
    /* The socket providers carry a write as one message, which the
     * peer's poll takes only as a whole, while its own writes wait: two
     * ranks writing 1-2 MiB to each other took up to twice as long as
     * with Open MPI's tcp BTL.  Posted as 256 KiB writes, all at once,
     * both directions move in turn (rtopo-bench-mpi: 2 MiB shifts in
     * half the time; 64 KiB pieces are slower, 8 MiB is unchanged). */
    attr->write_unit = sock ? ROFI_SOCK_WRITE : 0;
    attr->inject_max = t->info->tx_attr->inject_size;
    attr->blocking_wait = t->cq_fd_wait;
    /* shm's inject writes into the peer's queue itself; tcp and rxm may
     * keep an injected message in their own queue until the next poll */
    attr->send_nowait_max = !strcmp(t->prov_name, "shm") ? t->info->tx_attr->inject_size : 0;
    /* the software providers register without pinning: a map entry */
    attr->reg_per_op = sock || !strcmp(t->prov_name, "shm");
    attr->write_src_any = !t->mr_local;
    snprintf(attr->provider, sizeof(attr->provider), "ofi:%s", t->prov_name);
}

static int rofi_addr_get(struct rtopo__tl *tl, void *blob, size_t *len)
{
    struct rofi_tl *t = rofi_tl(tl);
    int ret = fi_getname(&t->ep->fid, blob, len);

    if (ret)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "fi_getname: %s", fi_strerror(-ret));
    return RTOPO_OK;
}

/* the blob as an IPv4 or IPv6 socket address of this provider's format,
 * or NULL */
static const struct sockaddr *rofi_sockaddr(const struct rofi_tl *t, const void *blob,
                                            size_t len)
{
    const struct sockaddr *sa = blob;

    if (t->info->addr_format != FI_SOCKADDR && t->info->addr_format != FI_SOCKADDR_IN &&
        t->info->addr_format != FI_SOCKADDR_IN6)
        return NULL;
    if (!blob || len < sizeof(sa->sa_family))
        return NULL;
    if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in))
        return sa;
    if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6))
        return sa;
    return NULL;
}

/* "10.0.0.1:4242", "[fe80::1]:4242" */
static void rofi_sockaddr_text(const struct sockaddr *sa, char *text, size_t n)
{
    char host[INET6_ADDRSTRLEN] = "?";

    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

        inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
        snprintf(text, n, "%s:%u", host, (unsigned)ntohs(s4->sin_port));
    } else {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

        inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
        snprintf(text, n, "[%s]:%u", host, (unsigned)ntohs(s6->sin6_port));
    }
}

/* the IP addresses of two socket addresses (ports aside) are the same */
static int rofi_same_ip(const struct sockaddr *a, const struct sockaddr *b)
{
    if (a->sa_family != b->sa_family)
        return 0;
    if (a->sa_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                   &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
}

static socklen_t rofi_sockaddr_len(const struct sockaddr *sa)
{
    return sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
}

/* The kernel's route lookup towards the socket address, with no traffic:
 * connect() of a UDP socket only picks the route, and fails at once with
 * ENETUNREACH (or EHOSTUNREACH, a route that rejects) when there is
 * none.  Returns that errno, 0 when a route exists or when the lookup
 * cannot tell. */
static int rofi_route(const struct sockaddr *sa)
{
    int fd = socket(sa->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

    if (fd < 0)
        return 0;
    if (connect(fd, sa, rofi_sockaddr_len(sa)) && (errno == ENETUNREACH ||
                                                   errno == EHOSTUNREACH))
        err = errno;
    close(fd);
    return err;
}

#define ROFI_REACH_LOOP (-1)

/* the failure of a connection to a peer whose address cannot be reached */
static int rofi_reach_error(struct rofi_tl *t, int peer, const char *at)
{
    int e = t->reach_err[peer];

    /* a loopback address reaches only the ranks of its own network
     * stack: from elsewhere a connection would go to this stack's own
     * loopback, to nobody or to the wrong process */
    if (e == ROFI_REACH_LOOP)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "rank %d published a loopback address, "
                            "which ranks in other network stacks cannot reach (an "
                            "interface variable, FI_TCP_IFACE or the like, names "
                            "loopback?)", peer);
    if (e == ETIMEDOUT)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "rank %d's address %s does not answer "
                            "here within %d ms (FI_TCP_IFACE or the like names an "
                            "interface other hosts cannot reach?)", peer, at, t->probe_ms);
    return rtopo__error(RTOPO_ERR_TRANSPORT, "rank %d's address %s has no route from here "
                        "(%s: FI_TCP_IFACE or the like names an interface of another "
                        "network?)", peer, at, strerror(e));
}

/* The probe of an address: connect() of a TCP socket to the address a
 * rank published, which is the provider's listening socket.  An answer,
 * accepted or refused, proves the way there; no route, or none within
 * the bound, proves the contrary, where the provider would try again and
 * again until the operation's timeout.  One probe for each IP address,
 * all at once; at most ROFI_PROBE_MAX addresses (the others get the
 * route lookup only). */
#define ROFI_PROBE_MAX 256

struct rofi_probe {
    const struct sockaddr *sa;
    int fd;               /* -1: done */
    int err;              /* 0: reached or unknown, else why not */
};

static int rofi_sock_err(int fd)
{
    int e = 0;
    socklen_t l = sizeof(e);

    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l))
        return 0;
    return e == ENETUNREACH || e == EHOSTUNREACH || e == ETIMEDOUT ? e : 0;
}

static void rofi_probe_run(struct rofi_probe *pr, int np, int ms)
{
    struct pollfd *pf = calloc((size_t)np ? (size_t)np : 1, sizeof(*pf));
    uint64_t end = rtopo__now_ns() + (uint64_t)ms * 1000000ull, now;
    int i, m, left;

    if (!pf) {
        for (i = 0; i < np; i++)
            if (pr[i].fd >= 0) {
                close(pr[i].fd);
                pr[i].fd = -1;
            }
        return;
    }
    for (;;) {
        for (i = m = 0; i < np; i++)
            if (pr[i].fd >= 0) {
                pf[m].fd = pr[i].fd;
                pf[m].events = POLLOUT;
                pf[m++].revents = 0;
            }
        now = rtopo__now_ns();
        if (m == 0 || now >= end)
            break;
        left = (int)((end - now + 999999) / 1000000);
        if (poll(pf, (nfds_t)m, left) < 0 && errno != EINTR)
            break;
        for (i = m = 0; i < np; i++) {
            if (pr[i].fd < 0)
                continue;
            if (pf[m++].revents) {
                pr[i].err = rofi_sock_err(pr[i].fd);
                close(pr[i].fd);
                pr[i].fd = -1;
            }
        }
    }
    /* no answer within the bound */
    for (i = 0; i < np; i++)
        if (pr[i].fd >= 0) {
            pr[i].err = m > 0 && now >= end ? ETIMEDOUT : 0;
            close(pr[i].fd);
            pr[i].fd = -1;
        }
    free(pf);
}

/* tl.h: can this rank reach the addresses that other ranks published? */
static int rofi_addr_check(struct rtopo__tl *tl, int n, const int *peer,
                           const void *const *blob, const size_t *len, char *text,
                           uint8_t *bad)
{
    struct rofi_tl *t = rofi_tl(tl);
    struct rofi_probe *pr = calloc((size_t)n ? (size_t)n : 1, sizeof(*pr));
    int *of = calloc((size_t)n ? (size_t)n : 1, sizeof(*of));
    const struct sockaddr *sa;
    char *at;
    int i, k, c, np = 0, p, first = -1;

    if (!pr || !of) {
        free(pr);
        free(of);
        return rtopo__error(RTOPO_ERR_NOMEM, "address check of %d ranks", n);
    }
    for (i = 0; i < n; i++) {
        at = text + (size_t)i * RTOPO__TL_ADDR_TEXT;
        *at = '\0';
        bad[i] = 0;
        of[i] = -1;
        p = peer[i];
        if (!(sa = rofi_sockaddr(t, blob[i], len[i])))
            continue;
        rofi_sockaddr_text(sa, at, RTOPO__TL_ADDR_TEXT);
        /* the ranks of this network stack reach whatever it has */
        if (p < 0 || p >= t->nranks || p == t->rank || !t->local || t->local[p])
            continue;
        if (rofi_loopback(blob[i], len[i])) {
            t->reach_err[p] = ROFI_REACH_LOOP;
            continue;
        }
        for (k = 0; k < np && !rofi_same_ip(pr[k].sa, sa); k++)
            ;
        if (k == np) {
            if (np == ROFI_PROBE_MAX) {
                t->reach_err[p] = rofi_route(sa);
                continue;
            }
            pr[np].sa = sa;
            pr[np].fd = -1;
            /* no route: known at once */
            if (!(pr[np].err = rofi_route(sa))) {
                pr[np].fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                                   0);
                if (pr[np].fd >= 0) {
                    c = connect(pr[np].fd, sa, rofi_sockaddr_len(sa)) ? errno : 0;
                    if (c == EINPROGRESS) {
                        of[i] = np++;
                        continue;
                    }
                    /* answered at once, or cannot tell */
                    if (c == ENETUNREACH || c == EHOSTUNREACH)
                        pr[np].err = c;
                    close(pr[np].fd);
                    pr[np].fd = -1;
                }
            }
            np++;
        }
        of[i] = k;
    }
    rofi_probe_run(pr, np, t->probe_ms);
    for (i = 0; i < n; i++) {
        p = peer[i];
        if (of[i] >= 0)
            t->reach_err[p] = pr[of[i]].err;
        if (p >= 0 && p < t->nranks && p != t->rank && t->local && !t->local[p] &&
            t->reach_err[p]) {
            bad[i] = 1;
            if (first < 0)
                first = i;
        }
    }
    if (first >= 0)
        rofi_reach_error(t, peer[first], text + (size_t)first * RTOPO__TL_ADDR_TEXT);
    free(pr);
    free(of);
    return RTOPO_OK;
}

static int rofi_connect(struct rtopo__tl *tl, int peer, const void *blob, size_t len)
{
    struct rofi_tl *t = rofi_tl(tl);
    const struct sockaddr *sa = rofi_sockaddr(t, blob, len);
    char at[RTOPO__TL_ADDR_TEXT] = "";
    size_t i;
    int ret;

    if (peer < 0 || peer >= t->nranks)
        return rtopo__error(RTOPO_ERR_INVAL, "peer %d out of range", peer);
    if (t->peer_addr[peer] != FI_ADDR_NOTAVAIL)
        return RTOPO_OK;
    /* an address known not to be reachable (rofi_addr_check); the quick
     * checks where it was not asked */
    if (sa && peer != t->rank && t->local && !t->local[peer]) {
        if (!t->reach_err[peer])
            t->reach_err[peer] = rofi_loopback(blob, len) ? ROFI_REACH_LOOP : rofi_route(sa);
        if (t->reach_err[peer]) {
            rofi_sockaddr_text(sa, at, sizeof(at));
            return rofi_reach_error(t, peer, at);
        }
    }
    ret = fi_av_insert(t->av, blob, 1, &t->peer_addr[peer], 0, NULL);
    if (ret != 1) {
        t->peer_addr[peer] = FI_ADDR_NOTAVAIL;
        return rtopo__error(RTOPO_ERR_TRANSPORT, "fi_av_insert for rank %d failed", peer);
    }
    if (len <= RTOPO__TL_ADDR_MAX) {
        memcpy(t->blob[peer], blob, len);
        t->blob_len[peer] = len;
    }
    /* indices may have been named before this insert (rxm adds peers that
     * connect first on its own): look them up again */
    for (i = 0; i < t->nsrc; i++)
        t->src_rank[i] = -2;
    return RTOPO_OK;
}

static int rofi_mem_reg(struct rtopo__tl *tl, void *buf, size_t len, unsigned access,
                        struct rtopo__tl_mr **mr_p)
{
    struct rofi_tl *t = rofi_tl(tl);
    struct rtopo__tl_mr *mr = calloc(1, sizeof(*mr));
    uint64_t acc = FI_WRITE | FI_SEND | FI_RECV;
    int st;

    if (!mr)
        return RTOPO_ERR_NOMEM;
    if (access & RTOPO__TL_ACCESS_REMOTE_WRITE)
        acc |= FI_REMOTE_WRITE;
    st = rofi_reg(t, buf, len, acc, &mr->mr);
    if (st) {
        free(mr);
        return st;
    }
    mr->buf = buf;
    mr->len = len;
    mr->remote = !!(access & RTOPO__TL_ACCESS_REMOTE_WRITE);
    mr->t = t;
    *mr_p = mr;
    return RTOPO_OK;
}

/* The socket providers (tcp, rxm over tcp) check a write's key in the
 * target's domain, and copy its data to the virtual address the key
 * names, only while the target calls into libfabric: a registration left
 * open moves a write into whatever memory is mapped there by then (a NIC
 * under verbs;ofi_rxm writes the pages the registration pinned instead).
 * The domain is single-threaded (FI_THREAD_DOMAIN), so a region closed
 * from another thread is queued here and closed by the engine's thread
 * before it next calls into libfabric (rofi_closed); a write the provider
 * takes in later finds no key and fails at its writer.  Any thread. */
static void rofi_mem_close(struct rtopo__tl_mr *mr)
{
    struct rofi_tl *t;
    struct rtopo__tl_mr *head;

    if (!mr || !mr->remote || __atomic_exchange_n(&mr->closing, 1, __ATOMIC_ACQ_REL))
        return;
    t = mr->t;
    head = __atomic_load_n(&t->closing, __ATOMIC_RELAXED);
    do
        mr->close_next = head;
    while (!__atomic_compare_exchange_n(&t->closing, &head, mr, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED));
}

/* the engine's thread: closes the queued regions in the provider */
static void rofi_close_mrs(struct rofi_tl *t)
{
    struct rtopo__tl_mr *m = __atomic_exchange_n(&t->closing, NULL, __ATOMIC_ACQUIRE);
    int ret;

    for (; m; m = m->close_next)
        if (m->mr) {
            if ((ret = fi_close(&m->mr->fid)))
                rtopo__warn("fi_close(mr) of %zu bytes at %p: %s", m->len, m->buf,
                            fi_strerror(-ret));
            m->mr = NULL;
        }
}

static int rofi_mem_dereg(struct rtopo__tl_mr *mr)
{
    int ret = 0;

    if (!mr)
        return RTOPO_OK;
    rofi_closed(mr->t);    /* mr may be queued */
    if (mr->mr)
        ret = fi_close(&mr->mr->fid);
    free(mr);
    if (ret)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "fi_close(mr): %s", fi_strerror(-ret));
    return RTOPO_OK;
}

/* the address is always the virtual one; writers on providers without
 * FI_MR_VIRT_ADDR use only the offset (see rofi_write) */
static void rofi_mem_rkey(struct rtopo__tl_mr *mr, rtopo__rkey_t *rkey)
{
    rkey->key = fi_mr_key(mr->mr);
    rkey->addr = (uint64_t)(uintptr_t)mr->buf;
}

/* An error that says the connection to the peer, or the peer itself, is
 * gone is the peer's failure (libfabric's codes are the system's errno
 * values; it has no name for EPIPE, a send on a connection that the peer
 * has closed). */
static int rofi_status_of(int err)
{
    switch (err) {
    case FI_ECONNREFUSED:
    case FI_ECONNRESET:
    case FI_ECONNABORTED:
    case FI_ENOTCONN:
    case FI_EHOSTUNREACH:
    case FI_ENETUNREACH:
    case FI_ENETDOWN:
    case FI_ESHUTDOWN:
    case FI_ETIMEDOUT:
    case FI_EIO:
    case EPIPE:
        return RTOPO_ERR_PEER;
    default:
        return RTOPO_ERR_TRANSPORT;
    }
}

/* When a connection breaks (its peer died: the socket is reset or closed
 * under a transfer), the provider ends what was queued on it with an
 * error whose code tells little: the socket's own for the transfer that
 * met it, FI_ECANCELED or even FI_EAGAIN for the rest, depending on which
 * side of the socket saw the end first.  Every code but those that blame
 * the transfer itself (its arguments, its key, its size, local memory)
 * says the connection is gone. */
static int rofi_cut(int err)
{
    switch (err) {
    case FI_EINVAL:
    case FI_EMSGSIZE:
    case FI_ETRUNC:
    case FI_EACCES:
    case FI_EPERM:
    case FI_EFAULT:
    case FI_ENOKEY:
    case FI_EREMOTEIO:
    case FI_EOPNOTSUPP:
    case FI_ENOSYS:
    case FI_ENOMEM:
    case FI_EOVERFLOW:
    case FI_EBADFLAGS:
        return 0;
    default:
        return 1;
    }
}

/* the verdict on a transfer to peer that failed with err, at once or in
 * its completion */
static int rofi_status(struct rofi_tl *t, int peer, int err)
{
    if (peer >= 0 && t->peer_up[peer] && rofi_cut(err))
        return RTOPO_ERR_PEER;
    return rofi_status_of(err);
}

static int rofi_write(struct rtopo__tl *tl, int peer, const void *buf, size_t len,
                      struct rtopo__tl_mr *lmr, const rtopo__rkey_t *rkey,
                      uint64_t roffset, uint32_t imm, unsigned flags, void *ctx)
{
    struct rofi_tl *t = rofi_tl(tl);
    uint64_t raddr = (t->mr_virt ? rkey->addr : 0) + roffset;
    struct rofi_op *op;
    ssize_t ret;
    void *desc;

    rofi_closed(t);
    desc = lmr && lmr->mr ? fi_mr_desc(lmr->mr) : NULL;   /* NULL: closed */
    if (peer < 0 || peer >= t->nranks || t->peer_addr[peer] == FI_ADDR_NOTAVAIL)
        return rtopo__error(RTOPO_ERR_INVAL, "write to unconnected rank %d", peer);
    if (len > t->info->ep_attr->max_msg_size)
        return rtopo__error(RTOPO_ERR_INVAL, "write of %zu bytes exceeds the "
                            "provider's %zu", len, t->info->ep_attr->max_msg_size);
    if (flags & RTOPO__TL_INJECT) {
        if (len > t->info->tx_attr->inject_size)
            return rtopo__error(RTOPO_ERR_INVAL, "inject of %zu bytes exceeds %zu",
                                len, t->info->tx_attr->inject_size);
        if (flags & RTOPO__TL_IMM)
            ret = fi_inject_writedata(t->ep, buf, len, imm, t->peer_addr[peer],
                                      raddr, rkey->key);
        else
            ret = fi_inject_write(t->ep, buf, len, t->peer_addr[peer], raddr, rkey->key);
        if (ret == -FI_EAGAIN)
            return RTOPO_ERR_BUSY;
        if (ret)
            return rtopo__error(rofi_status(t, peer, (int)-ret), "fi_inject_write to "
                                "rank %d: %s", peer, fi_strerror((int)-ret));
        return RTOPO_OK;
    }
    op = rofi_op_get(t, ROFI_OP_WRITE, peer, ctx);
    if (!op)
        return RTOPO_ERR_BUSY;
    if (flags & RTOPO__TL_IMM)
        ret = fi_writedata(t->ep, buf, len, desc, imm, t->peer_addr[peer], raddr,
                           rkey->key, &op->fctx);
    else
        ret = fi_write(t->ep, buf, len, desc, t->peer_addr[peer], raddr, rkey->key,
                       &op->fctx);
    if (ret) {
        rofi_op_put(t, op);
        if (ret == -FI_EAGAIN)
            return RTOPO_ERR_BUSY;
        return rtopo__error(rofi_status(t, peer, (int)-ret), "fi_write to rank %d: %s",
                            peer, fi_strerror((int)-ret));
    }
    return RTOPO_OK;
}

/* Up to the inject size and with nobody waiting for the completion, the
 * pieces are joined and injected; a tracked message goes from where its
 * pieces lie where the provider needs no local registration (its buffers
 * stay valid until the completion, tl.h); else they are joined in a
 * registered bounce buffer. */
static int rofi_sendv(struct rtopo__tl *tl, int peer, const void *hdr, size_t hlen,
                      const void *payload, size_t plen, void *ctx)
{
    struct rofi_tl *t = rofi_tl(tl);
    size_t len = hlen + plen;
    struct rofi_op *op;
    struct iovec iov[2];
    char *bb;
    ssize_t ret;

    rofi_closed(t);
    if (peer < 0 || peer >= t->nranks || t->peer_addr[peer] == FI_ADDR_NOTAVAIL)
        return rtopo__error(RTOPO_ERR_INVAL, "send to unconnected rank %d", peer);
    if (len > t->ctrl_size)
        return rtopo__error(RTOPO_ERR_INVAL, "control message of %zu bytes > %zu",
                            len, t->ctrl_size);
    if (len <= t->info->tx_attr->inject_size && ctx == NULL) {
        if (plen == 0) {
            bb = (char *)hdr;
        } else {
            bb = t->inject_buf;
            memcpy(bb, hdr, hlen);
            memcpy(bb + hlen, payload, plen);
        }
        ret = fi_inject(t->ep, bb, len, t->peer_addr[peer]);
        if (ret == -FI_EAGAIN)
            return RTOPO_ERR_BUSY;
        if (ret)
            return rtopo__error(rofi_status(t, peer, (int)-ret), "fi_inject to rank %d: %s",
                                peer, fi_strerror((int)-ret));
        return RTOPO_OK;
    }
    if (ctx && !t->mr_local && (plen == 0 || t->info->tx_attr->iov_limit >= 2)) {
        op = rofi_op_get(t, ROFI_OP_SEND, peer, ctx);
        if (!op)
            return RTOPO_ERR_BUSY;
        iov[0].iov_base = (void *)hdr;
        iov[0].iov_len = hlen;
        iov[1].iov_base = (void *)payload;
        iov[1].iov_len = plen;
        ret = fi_sendv(t->ep, iov, NULL, plen ? 2 : 1, t->peer_addr[peer], &op->fctx);
        if (ret) {
            rofi_op_put(t, op);
            if (ret == -FI_EAGAIN)
                return RTOPO_ERR_BUSY;
            return rtopo__error(rofi_status(t, peer, (int)-ret), "fi_sendv to rank %d: %s",
                                peer, fi_strerror((int)-ret));
        }
        return RTOPO_OK;
    }
    if (t->nbounce_free == 0)
        return RTOPO_ERR_BUSY;
    op = rofi_op_get(t, ROFI_OP_SEND, peer, ctx);
    if (!op)
        return RTOPO_ERR_BUSY;
    op->index = t->bounce_free[--t->nbounce_free];
    bb = t->bounce_bufs + (size_t)op->index * t->ctrl_size;
    memcpy(bb, hdr, hlen);
    if (plen)
        memcpy(bb + hlen, payload, plen);
    ret = fi_send(t->ep, bb, len, fi_mr_desc(t->bounce_mr), t->peer_addr[peer], &op->fctx);
    if (ret) {
        t->bounce_free[t->nbounce_free++] = op->index;
        rofi_op_put(t, op);
        if (ret == -FI_EAGAIN)
            return RTOPO_ERR_BUSY;
        return rtopo__error(rofi_status(t, peer, (int)-ret), "fi_send to rank %d: %s",
                            peer, fi_strerror((int)-ret));
    }
    return RTOPO_OK;
}

static int rofi_send(struct rtopo__tl *tl, int peer, const void *buf, size_t len, void *ctx)
{
    return rofi_sendv(tl, peer, buf, len, NULL, 0, ctx);
}

/* Names the sender of a completion by the address behind its source
 * fi_addr rather than by insertion order, which rxm does not keep for
 * peers that connected before they were inserted. */
static int rofi_src_rank(struct rofi_tl *t, fi_addr_t from)
{
    char addr[RTOPO__TL_ADDR_MAX];
    size_t len = sizeof(addr), n;
    int r;

    if (from == FI_ADDR_NOTAVAIL || from >= 65536)
        return -1;
    if (from >= t->nsrc) {
        n = (size_t)from + 16;
        int *m = realloc(t->src_rank, n * sizeof(*m));
        if (!m)
            return -1;
        while (t->nsrc < n)
            m[t->nsrc++] = -2;
        t->src_rank = m;
    }
    if (t->src_rank[from] != -2)
        return t->src_rank[from];
    t->src_rank[from] = -1;
    if (fi_av_lookup(t->av, from, addr, &len) == 0)
        for (r = 0; r < t->nranks; r++)
            if (t->blob_len[r] == len && !memcmp(t->blob[r], addr, len)) {
                t->src_rank[from] = r;
                break;
            }
    return t->src_rank[from];
}

/* an event for something dropped: not from a rank of the job */
static int rofi_dropped(struct rofi_tl *t, rtopo__tl_event_t *ev, const char *what)
{
    t->dropped++;
    ev->type = RTOPO__TL_EV_DROPPED;
    ev->peer = -1;
    snprintf(ev->msg, sizeof(ev->msg), "%s: %s", t->prov_name, what);
    return 1;
}

/* translate one completion; returns 1 if it produced an event */
static int rofi_complete(struct rofi_tl *t, const struct fi_cq_data_entry *e,
                         fi_addr_t from, rtopo__tl_event_t *ev)
{
    struct rofi_op *op = e->op_context;

    memset(ev, 0, sizeof(*ev));
    /* rxm fills the source of remote CQ data unreliably (index 0 for
     * every writer, libfabric 1.17): name senders of control messages, and
     * writers where the provider names them right (imm_source) */
    ev->peer = -1;
    if (t->source && (e->flags & FI_RECV) && !(e->flags & FI_REMOTE_CQ_DATA)) {
        ev->peer = rofi_src_rank(t, from);
        if (ev->peer >= 0)
            t->peer_up[ev->peer] = 1;
    }
    if (e->flags & FI_REMOTE_CQ_DATA) {
        /* a message (fi_senddata, fi_injectdata) that carries CQ data took
         * a posted receive, and so does a write on providers with
         * FI_RX_CQ_DATA (elsewhere op_context means nothing here) */
        if (((e->flags & FI_RECV) || (t->info->mode & FI_RX_CQ_DATA)) && op &&
            op->kind == ROFI_OP_RECV)
            t->repost[t->nrepost++] = op->index;
        /* The engine's windows are written, never sent to: only a remote
         * write, which the provider let into a region registered here
         * under its key, is a window's immediate.  Data on a message is
         * nobody's in the job. */
        if (!(e->flags & FI_REMOTE_WRITE) || (e->flags & (FI_RECV | FI_MSG)))
            return rofi_dropped(t, ev, "remote CQ data on a message, not a write");
        ev->type = RTOPO__TL_EV_IMM;
        /* the native tcp and shm providers name the writer; the engine
         * then takes the immediate only from the window's own writer */
        if (t->source && t->imm_source)
            ev->peer = rofi_src_rank(t, from);
        ev->imm = (uint32_t)e->data;
        ev->len = e->len;
        return 1;
    }
    if (!op)
        return 0;
    switch (op->kind) {
    case ROFI_OP_RECV:
        ev->type = RTOPO__TL_EV_RECV;
        ev->data = t->recv_bufs + (size_t)op->index * t->ctrl_size;
        ev->len = e->len;
        t->repost[t->nrepost++] = op->index;
        return 1;
    case ROFI_OP_WRITE:
        ev->type = RTOPO__TL_EV_WRITE_DONE;
        ev->peer = op->peer;
        t->peer_up[op->peer] = 1;
        ev->ctx = op->ctx;
        rofi_op_put(t, op);
        return 1;
    case ROFI_OP_SEND:
        ev->type = RTOPO__TL_EV_SEND_DONE;
        ev->peer = op->peer;
        t->peer_up[op->peer] = 1;
        ev->ctx = op->ctx;
        if (op->index >= 0)
            t->bounce_free[t->nbounce_free++] = op->index;
        rofi_op_put(t, op);
        return ev->ctx != NULL;
    }
    return 0;
}

static ssize_t rofi_cq_read(struct rofi_tl *t, struct fi_cq_data_entry *ent,
                            fi_addr_t *from, size_t n)
{
    size_t i;
    ssize_t ret;

    if (t->source)
        return fi_cq_readfrom(t->cq, ent, n, from);
    ret = fi_cq_read(t->cq, ent, n);
    for (i = 0; ret > 0 && i < (size_t)ret; i++)
        from[i] = FI_ADDR_NOTAVAIL;
    return ret;
}

static int rofi_poll(struct rtopo__tl *tl, rtopo__tl_event_t *ev, int max)
{
    struct rofi_tl *t = rofi_tl(tl);
    struct fi_cq_data_entry ent[ROFI_POLL_BATCH];
    fi_addr_t from[ROFI_POLL_BATCH];
    struct fi_cq_err_entry err;
    struct rofi_op *op;
    ssize_t ret;
    int n = 0, i, st;

    rofi_closed(t);
    /* receive buffers handed out by the previous poll are free again */
    while (t->nrepost > 0)
        if ((st = rofi_post_recv(t, t->repost[--t->nrepost])))
            return st;
    if (t->have_stash && max > 0) {
        t->have_stash = 0;
        n += rofi_complete(t, &t->stash, t->stash_from, &ev[n]);
    }
    if (max - n > ROFI_POLL_BATCH)
        max = n + ROFI_POLL_BATCH;
    if (max - n <= 0)
        return n;
    ret = rofi_cq_read(t, ent, from, (size_t)(max - n));
    if (ret > 0) {
        t->idle_since = 0;
        for (i = 0; i < ret; i++)
            n += rofi_complete(t, &ent[i], from[i], &ev[n]);
        return n;
    }
    if (ret == -FI_EAGAIN)
        return n;
    if (ret != -FI_EAVAIL)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "fi_cq_read: %s", fi_strerror((int)-ret));
    memset(&err, 0, sizeof(err));
    if (fi_cq_readerr(t->cq, &err, 0) != 1)
        return n;
    op = err.op_context;
    memset(&ev[n], 0, sizeof(ev[n]));
    ev[n].type = RTOPO__TL_EV_ERROR;
    ev[n].peer = op ? op->peer : -1;
    ev[n].ctx = op ? op->ctx : NULL;
    ev[n].status = rofi_status_of(err.err);
    snprintf(ev[n].msg, sizeof(ev[n].msg), "%s: %s", t->prov_name,
             fi_cq_strerror(t->cq, err.prov_errno, err.err_data, NULL, 0));
    /* a transfer cut off with its connection: the peer's failure */
    if (op && op->kind != ROFI_OP_RECV && ev[n].status != RTOPO_ERR_PEER &&
        rofi_status(t, op->peer, err.err) == RTOPO_ERR_PEER) {
        ev[n].status = RTOPO_ERR_PEER;
        snprintf(ev[n].msg, sizeof(ev[n].msg), "%.32s: connection to rank %d cut (%.32s)",
                 t->prov_name, op->peer, fi_strerror(err.err));
    }
    if (op) {
        if (op->kind == ROFI_OP_RECV) {
            if (err.err != FI_ECANCELED)
                t->repost[t->nrepost++] = op->index;
        } else {
            if (op->kind == ROFI_OP_SEND)
                if (op->index >= 0)
            t->bounce_free[t->nbounce_free++] = op->index;
            rofi_op_put(t, op);
        }
    }
    return n + 1;
}

/* Without a wait object (the shm provider) a wait naps between reads of
 * the CQ, a tenth of the time waited so far without an event, at least
 * 0.2 ms and at most 20 ms: a message is noticed within 10 % of the wait
 * it ends (0.2 ms for one that comes soon), and a rank left waiting long
 * (for a peer that computes) wakes rarely.  Each read wakes the
 * provider's progress, some 30-50 us of CPU on a busy machine: naps of
 * 2 ms took 1.5 % of a core a rank. */
#define ROFI_NAP_MIN_NS 200000ull
#define ROFI_NAP_MAX_NS 20000000ull

static int rofi_wait(struct rtopo__tl *tl, int timeout_ms)
{
    struct rofi_tl *t = rofi_tl(tl);
    uint64_t t0, now, nap, end;
    struct timespec ts;
    ssize_t ret;

    if (t->have_stash)
        return RTOPO_OK;
    rofi_closed(t);
    if (t->cq_fd_wait) {
        t->stash_from = FI_ADDR_NOTAVAIL;
        if (t->source)
            ret = fi_cq_sreadfrom(t->cq, &t->stash, 1, &t->stash_from, NULL, timeout_ms);
        else
            ret = fi_cq_sread(t->cq, &t->stash, 1, NULL, timeout_ms);
        if (ret == 1)
            t->have_stash = 1;
        /* -FI_EAVAIL: an error entry waits for the next poll */
        return RTOPO_OK;
    }
    t0 = rtopo__now_ns();
    end = t0 + (uint64_t)timeout_ms * 1000000ull;
    if (!t->idle_since)
        t->idle_since = t0;
    for (now = t0;;) {
        ret = rofi_cq_read(t, &t->stash, &t->stash_from, 1);
        if (ret == 1) {
            t->have_stash = 1;
            t->idle_since = 0;
            return RTOPO_OK;
        }
        if (ret != -FI_EAGAIN || now >= end)
            return RTOPO_OK;
        nap = (now - t->idle_since) / 10;
        if (nap < ROFI_NAP_MIN_NS)
            nap = ROFI_NAP_MIN_NS;
        else if (nap > ROFI_NAP_MAX_NS)
            nap = ROFI_NAP_MAX_NS;
        if (nap > end - now)
            nap = end - now;
        ts.tv_sec = 0;
        ts.tv_nsec = (long)nap;
        nanosleep(&ts, NULL);
        now = rtopo__now_ns();
    }
}

/* the CQ's wait object, for a caller that sleeps on it beside others */
static int rofi_wait_fd(struct rtopo__tl *tl, int *fd)
{
    struct rofi_tl *t = rofi_tl(tl);
    struct fid *fids[1];
    int ret;

    if (!t->cq_fd_wait)
        return RTOPO_ERR_UNSUPPORTED;
    if (t->have_stash)
        return RTOPO_ERR_BUSY;
    if (t->wait_fd < 0 && (ret = fi_control(&t->cq->fid, FI_GETWAIT, &t->wait_fd))) {
        t->wait_fd = -1;
        t->cq_fd_wait = 0;    /* asked once: wait() naps from now on */
        rtopo__info("fi_control(FI_GETWAIT): %s: waits nap between polls",
                    fi_strerror(-ret));
        return RTOPO_ERR_UNSUPPORTED;
    }
    /* the provider's rule before a sleep on the descriptor */
    rofi_closed(t);
    fids[0] = &t->cq->fid;
    if (fi_trywait(t->fabric, fids, 1))
        return RTOPO_ERR_BUSY;
    *fd = t->wait_fd;
    return RTOPO_OK;
}

static void rofi_info(const char *transport, void (*out)(const char *line, void *arg),
                      void *arg)
{
    static const char *const names[] = { "ofi:rxm", "ofi:tcp", "ofi:shm" };
    struct fi_info *info;
    char line[256];
    size_t i;

    snprintf(line, sizeof(line), "libfabric %u.%u (built against %u.%u)",
             FI_MAJOR(fi_version()), FI_MINOR(fi_version()), FI_MAJOR_VERSION,
             FI_MINOR_VERSION);
    out(line, arg);
    if (transport == NULL) {
        /* libfabric's own settings this backend reads, for the listing;
         * rtopo(7) describes them */
        snprintf(line, sizeof(line), "reads libfabric's FI_UNIVERSE_SIZE (unset: rtopo "
                 "sets the job's size), FI_OFI_RXM_EAGER_LIMIT and FI_OFI_RXM_BUFFER_SIZE "
                 "(unset RTOPO_EAGER_LIMIT over ofi:rxm: the smaller, less the header)");
        out(line, arg);
        snprintf(line, sizeof(line), "reads libfabric's FI_TCP_IFACE (also for net), "
                 "FI_<PROVIDER>_IFACE: the interface whose address ranks publish (unset: "
                 "loopback when every rank shares a network stack, else the first other)");
        out(line, arg);
    }
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (transport && strcmp(transport, names[i]))
            continue;
        if (rofi_getinfo(names[i], &info, 1) == RTOPO_OK) {
            /* providers without a limit report SIZE_MAX (UINT64_MAX where
             * size_t is 64 bits; a 32-bit size_t cannot hold UINT64_MAX) */
            char maxw[24] = "unlimited";

            if (info->ep_attr->max_msg_size != SIZE_MAX)
                snprintf(maxw, sizeof(maxw), "%zu", info->ep_attr->max_msg_size);
            snprintf(line, sizeof(line),
                     "%-8s provider %s, domain %s, max write %s, inject %zu, "
                     "mr_mode 0x%x, progress %s",
                     names[i], info->fabric_attr->prov_name, info->domain_attr->name,
                     maxw, info->tx_attr->inject_size,
                     info->domain_attr->mr_mode,
                     info->domain_attr->data_progress == FI_PROGRESS_AUTO ? "auto" : "manual");
            fi_freeinfo(info);
        } else {
            snprintf(line, sizeof(line), "%-8s not available", names[i]);
        }
        out(line, arg);
    }
}

const struct rtopo__tl_ops rtopo__tl_ofi = {
    .size = sizeof(struct rtopo__tl_ops),
    .name = "ofi",
    .match = rofi_match,
    .available = rofi_available,
    .open = rofi_open,
    .close = rofi_close,
    .query = rofi_query,
    .addr_get = rofi_addr_get,
    .connect = rofi_connect,
    .mem_reg = rofi_mem_reg,
    .mem_dereg = rofi_mem_dereg,
    .mem_rkey = rofi_mem_rkey,
    .mem_close = rofi_mem_close,
    .write = rofi_write,
    .send = rofi_send,
    .poll = rofi_poll,
    .wait = rofi_wait,
    .info = rofi_info,
    .job_size = rofi_job_size,
    .eager_default = rofi_eager_default,
    .sendv = rofi_sendv,
    .wait_fd = rofi_wait_fd,
    .addr_check = rofi_addr_check,
};
