/*
 * intruder - a process OUTSIDE a job that sends it forged engine control
 * messages over libfabric (run by intruder.sh).
 *
 *   intruder [--seconds S] [--wait-ms MS] [--first-seq N] [--kinds LIST] [FILE]
 *   (FILE: $INTRUDER_ADDRS; LIST: some of eager,rtr,abort,flood,odd,write,
 *   senddata,immkey; all by default)
 *
 * It does not know the job secret, is not started by rtopo-run and links
 * only libfabric: from rtopo it takes nothing but the message layout
 * (rtopo__msg_t in runtime/rtopo_int.h, types only, so the forgeries
 * follow the engine's format as it changes).  What it aims at comes from
 * FILE, written by intruder_rank's rank 0: the provider, the ranks'
 * libfabric addresses (what an attacker finds with `ss -ltnp`), the ring's
 * topology id and, per message size, the operation's signature and
 * transfer index (computable from the source).  It cannot know the ranks'
 * per-job tokens: `auth` is 0 or random.
 *
 * Once FILE is there it opens an RDM endpoint of the same provider with
 * the hints the ranks use, inserts the ranks' addresses, creates
 * FILE.ready, and for S seconds (default 3) sends, round after round, to
 * every rank v (p ranks, pred/succ its ring neighbours):
 *  - EAGER claiming src = pred(v) for seq N..N+2000 of the ring (N = 0
 *    unless --first-seq; the sizes
 *    the job runs: 8 B and 4 KiB), right signature, transfer and length,
 *    payload bytes 0xEE: what the real predecessor sends, but forged;
 *  - RTR claiming src = succ(v) for the 64 KiB operations: a DIRECT
 *    window with a guessed key;
 *  - ABORT with status 0 (RTOPO_OK) and with RTOPO_ERR_PEER;
 *  - a flood of 4 KiB EAGER for far-future seqs (2001..4000 and random);
 *  - a few with src = v itself and src out of range;
 *  - in the second half of the attack (a provider may drop the connection
 *    of a write under a bad key, which would weaken the rest): RDMA writes
 *    of 4 KiB of 0xEE straight into the rank's memory, at offset 0 (or
 *    address 0 where addresses are virtual) of keys 0..63, with and
 *    without immediate data: no engine message at all, only keys guessed
 *    as small integers;
 *  - window immediates (the 32-bit immediate of the engine's windows:
 *    slot 0..63, last piece, piece 0 - what the engine's first windows
 *    took before slots were drawn at random - and random ones) carried as
 *    remote CQ data by 0-byte messages (fi_senddata), throughout;
 *  - the same immediates on 0-byte writes (fi_writedata) under keys
 *    guessed as small integers and at random, in the second half.
 * Sends that the provider cannot take yet (-FI_EAGAIN) are retried while
 * the CQ is driven, for at most 50 ms each (a rank that does not poll then
 * costs nothing more); then it waits for its sends to complete, creates
 * FILE.done and prints
 *   INTRUDER sent=N eager=N rtr=N abort=N flood=N odd=N write=N senddata=N
 *            immkey=N skipped=N completed=N cq_errors=N secs=S
 * Exit 0 when it could run the attack (whatever the ranks did), 1 when it
 * could not set up (no file, no provider, no endpoint).
 */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include "rtopo_int.h"     /* rtopo__msg_t and the message types only */

#define MAXR    64
#define NSIZES  3
#define NBUF    256        /* registered send buffers (fi_send) */
#define SEQS    2001       /* seq 0..2000 */
#define FLOOD_PAYLOAD 4096

struct target {
    char prov[64];
    int p;
    uint32_t topo;
    size_t ctrl_size;
    uint64_t eager_limit;
    uint8_t addr[MAXR][RTOPO__TL_ADDR_MAX];
    size_t addr_len[MAXR];
    size_t size[NSIZES];
    uint32_t sig[NSIZES];
    int xfer[NSIZES][MAXR], hop[NSIZES][MAXR];   /* by receiving rank */
};

struct sendctx {
    struct fi_context2 fctx;   /* first: FI_CONTEXT2 space */
    int index;
};

static struct {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fid_mr *mr;
    uint8_t *bufs;
    size_t bufsize;
    struct sendctx ctx[NBUF];
    int freelist[NBUF];
    int nfree;
    fi_addr_t peer[MAXR];
    size_t inject;
    /* counts */
    unsigned long sent, eager, rtr, abort_, flood, odd, write, skipped, completed, cq_errors;
    unsigned long senddata, immkey;
    uint64_t imm;          /* CQ data of POST_SENDDATA and POST_WRITEIMM */
} I;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nap_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static uint64_t rnd64(void)
{
    uint64_t x = 0;
    if (getrandom(&x, sizeof(x), 0) != (ssize_t)sizeof(x))
        x = (uint64_t)rand() << 32 ^ (uint64_t)rand();
    return x;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
           c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* FILE as intruder_rank writes it; 0 when complete ("end" line seen) */
static int parse(const char *path, struct target *t)
{
    char line[4096], word[32];
    FILE *f = fopen(path, "r");
    int complete = 0, naddr = 0, nsize = 0;

    if (!f)
        return -1;
    memset(t, 0, sizeof(*t));
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "%31s", word) != 1)
            continue;
        if (!strcmp(word, "provider")) {
            sscanf(line, "provider %63s", t->prov);
        } else if (!strcmp(word, "ranks")) {
            t->p = atoi(line + 6);
        } else if (!strcmp(word, "topo")) {
            t->topo = (uint32_t)strtoul(line + 5, NULL, 10);
        } else if (!strcmp(word, "ctrl_size")) {
            t->ctrl_size = strtoul(line + 10, NULL, 10);
        } else if (!strcmp(word, "eager_limit")) {
            t->eager_limit = strtoull(line + 12, NULL, 10);
        } else if (!strcmp(word, "addr")) {
            int r, off = 0;
            unsigned len, k;
            const char *h;

            if (sscanf(line, "addr %d %u %n", &r, &len, &off) < 2 || r < 0 || r >= MAXR ||
                len > RTOPO__TL_ADDR_MAX)
                break;
            h = line + off;
            for (k = 0; k < len; k++) {
                int a = hexval(h[2 * k]), b = a < 0 ? -1 : hexval(h[2 * k + 1]);
                if (a < 0 || b < 0)
                    break;
                t->addr[r][k] = (uint8_t)(a << 4 | b);
            }
            if (k != len)
                break;
            t->addr_len[r] = len;
            naddr++;
        } else if (!strcmp(word, "size")) {
            int i, off = 0, r;
            size_t sz;
            unsigned sig;
            const char *s;

            if (sscanf(line, "size %d %zu sig %u%n", &i, &sz, &sig, &off) < 3 || i < 0 ||
                i >= NSIZES)
                break;
            t->size[i] = sz;
            t->sig[i] = sig;
            s = line + off;
            for (r = 0; r < t->p && r < MAXR; r++) {
                int n = 0;
                if (sscanf(s, " %d:%d%n", &t->xfer[i][r], &t->hop[i][r], &n) < 2)
                    break;
                s += n;
            }
            nsize++;
        } else if (!strcmp(word, "end")) {
            complete = 1;
        }
    }
    fclose(f);
    if (!complete || !t->prov[0] || t->p < 2 || t->p > MAXR || naddr != t->p ||
        nsize != NSIZES || t->ctrl_size < sizeof(rtopo__msg_t) + FLOOD_PAYLOAD)
        return -1;
    return 0;
}

static int setup(const struct target *t, int want_rma)
{
    struct fi_info *hints;
    struct fi_cq_attr cq_attr = { 0 };
    struct fi_av_attr av_attr = { 0 };
    int ret, i, pass;

    /* the rank's hints (ofi_hints in transports/ofi/ofi_tl.c); first with
     * messages only, then with the ranks' full capabilities */
    for (pass = 0; pass < 2; pass++) {
        hints = fi_allocinfo();
        if (!hints)
            return -1;
        hints->caps = FI_MSG | FI_SEND | FI_RECV;
        /* the immediate attacks need writes: full capabilities first */
        if (pass != want_rma)
            hints->caps |= FI_RMA | FI_WRITE | FI_REMOTE_WRITE;
        hints->mode = FI_CONTEXT | FI_CONTEXT2 | FI_RX_CQ_DATA;
        hints->ep_attr->type = FI_EP_RDM;
        hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
                                      FI_MR_PROV_KEY | FI_MR_ENDPOINT;
        hints->domain_attr->threading = FI_THREAD_DOMAIN;
        hints->tx_attr->msg_order = FI_ORDER_SAS;
        hints->fabric_attr->prov_name = strdup(t->prov);
        ret = fi_getinfo(FI_VERSION(1, 12), NULL, NULL, 0, hints, &I.info);
        fi_freeinfo(hints);
        /* the exact provider: "tcp" must not give "tcp;ofi_rxm" */
        if (ret == 0 && strcmp(I.info->fabric_attr->prov_name, t->prov)) {
            fi_freeinfo(I.info);
            I.info = NULL;
            ret = -FI_ENODATA;
        }
        if (ret == 0)
            break;
    }
    if (ret) {
        fprintf(stderr, "intruder: fi_getinfo(%s): %s\n", t->prov, fi_strerror(-ret));
        return -1;
    }
    I.inject = I.info->tx_attr->inject_size;
    if ((ret = fi_fabric(I.info->fabric_attr, &I.fabric, NULL)) ||
        (ret = fi_domain(I.fabric, I.info, &I.domain, NULL))) {
        fprintf(stderr, "intruder: fabric/domain: %s\n", fi_strerror(-ret));
        return -1;
    }
    cq_attr.format = FI_CQ_FORMAT_CONTEXT;
    cq_attr.size = 4096;
    cq_attr.wait_obj = FI_WAIT_NONE;
    av_attr.type = FI_AV_TABLE;
    av_attr.count = (size_t)t->p;
    if ((ret = fi_cq_open(I.domain, &cq_attr, &I.cq, NULL)) ||
        (ret = fi_av_open(I.domain, &av_attr, &I.av, NULL)) ||
        (ret = fi_endpoint(I.domain, I.info, &I.ep, NULL)) ||
        (ret = fi_ep_bind(I.ep, &I.av->fid, 0)) ||
        (ret = fi_ep_bind(I.ep, &I.cq->fid, FI_TRANSMIT | FI_RECV)) ||
        (ret = fi_enable(I.ep))) {
        fprintf(stderr, "intruder: endpoint on %s: %s\n", t->prov, fi_strerror(-ret));
        return -1;
    }
    I.bufsize = t->ctrl_size;
    I.bufs = calloc(NBUF, I.bufsize);
    if (!I.bufs)
        return -1;
    ret = fi_mr_reg(I.domain, I.bufs, NBUF * I.bufsize, FI_SEND | FI_WRITE, 0,
                    (I.info->domain_attr->mr_mode & FI_MR_PROV_KEY) ? 0 : 1, 0, &I.mr, NULL);
    if (!ret && (I.info->domain_attr->mr_mode & FI_MR_ENDPOINT)) {
        ret = fi_mr_bind(I.mr, &I.ep->fid, 0);
        if (!ret)
            ret = fi_mr_enable(I.mr);
    }
    if (ret) {
        fprintf(stderr, "intruder: fi_mr_reg: %s\n", fi_strerror(-ret));
        return -1;
    }
    for (i = 0; i < NBUF; i++) {
        I.ctx[i].index = i;
        I.freelist[i] = NBUF - 1 - i;
    }
    I.nfree = NBUF;
    for (i = 0; i < t->p; i++) {
        ret = fi_av_insert(I.av, t->addr[i], 1, &I.peer[i], 0, NULL);
        if (ret != 1) {
            fprintf(stderr, "intruder: fi_av_insert of rank %d failed (%d)\n", i, ret);
            return -1;
        }
    }
    return 0;
}

static void drive_cq(void)
{
    struct fi_cq_entry ent[64];
    struct fi_cq_err_entry err;
    ssize_t n, i;

    for (;;) {
        n = fi_cq_read(I.cq, ent, 64);
        if (n > 0) {
            for (i = 0; i < n; i++) {
                struct sendctx *c = ent[i].op_context;
                if (c) {
                    I.freelist[I.nfree++] = c->index;
                    I.completed++;
                }
            }
            continue;
        }
        if (n == -FI_EAVAIL) {
            memset(&err, 0, sizeof(err));
            if (fi_cq_readerr(I.cq, &err, 0) == 1) {
                struct sendctx *c = err.op_context;
                if (c)
                    I.freelist[I.nfree++] = c->index;
                if (!I.cq_errors++)
                    fprintf(stderr, "intruder: a send failed: %s\n", fi_strerror(err.err));
                continue;
            }
        }
        return;
    }
}

enum { POST_SEND, POST_WRITE, POST_WRITEDATA, POST_SENDDATA, POST_WRITEIMM };

/* one forged message (POST_SEND: msg, len bytes) or RDMA write of len
 * bytes of 0xEE under key `key` at offset or address 0 (POST_WRITE, and
 * POST_WRITEDATA with random immediate data) to rank r; 1 handed to the
 * provider, 0 not taken in time */
static int post_msg(int r, int kind, const void *msg, size_t len, uint64_t key,
                    double deadline)
{
    double give_up = now_s() + 0.05;
    const char *what = kind == POST_SEND ? "send" : "write";
    ssize_t ret;
    uint8_t *buf;
    int b;

    if (give_up > deadline)
        give_up = deadline;
    for (;;) {
        if (kind == POST_SEND && len <= I.inject) {
            ret = fi_inject(I.ep, msg, len, I.peer[r]);
        } else {
            while (I.nfree == 0) {
                drive_cq();
                if (I.nfree == 0 && now_s() > give_up) {
                    I.skipped++;
                    return 0;
                }
            }
            b = I.freelist[--I.nfree];
            buf = I.bufs + (size_t)b * I.bufsize;
            if (kind == POST_SEND) {
                memcpy(buf, msg, len);
                ret = fi_send(I.ep, buf, len, fi_mr_desc(I.mr), I.peer[r], &I.ctx[b].fctx);
            } else if (kind == POST_SENDDATA) {
                ret = fi_senddata(I.ep, buf, 0, fi_mr_desc(I.mr), I.imm, I.peer[r],
                                  &I.ctx[b].fctx);
            } else if (kind == POST_WRITEIMM) {
                ret = fi_writedata(I.ep, buf, 0, fi_mr_desc(I.mr), I.imm, I.peer[r], 0,
                                   key, &I.ctx[b].fctx);
            } else {
                memset(buf, 0xEE, len);
                if (kind == POST_WRITEDATA)
                    ret = fi_writedata(I.ep, buf, len, fi_mr_desc(I.mr),
                                       (uint64_t)(uint32_t)rnd64(), I.peer[r], 0, key,
                                       &I.ctx[b].fctx);
                else
                    ret = fi_write(I.ep, buf, len, fi_mr_desc(I.mr), I.peer[r], 0, key,
                                   &I.ctx[b].fctx);
            }
            if (ret)
                I.freelist[I.nfree++] = b;
        }
        if (ret == 0) {
            I.sent++;
            return 1;
        }
        if (ret != -FI_EAGAIN) {
            if (!I.cq_errors++)
                fprintf(stderr, "intruder: %s to rank %d: %s\n", what, r,
                        fi_strerror((int)-ret));
            return 0;
        }
        drive_cq();
        if (now_s() > give_up) {
            I.skipped++;
            return 0;
        }
    }
}

static int send_msg(int r, const void *msg, size_t len, double deadline)
{
    return post_msg(r, POST_SEND, msg, len, 0, deadline);
}

static uint64_t forged_auth(void)
{
    return (rnd64() & 1) ? rnd64() : 0;
}

int main(int argc, char **argv)
{
    const char *path = getenv("INTRUDER_ADDRS");
    double seconds = 3.0, start, deadline, end;
    int wait_ms = 20000, i, r, p;
    unsigned long round = 0, flood_seq = 0, first = 0;
    const char *kinds = "eager,rtr,abort,flood,odd,write,senddata,immkey";
    int k_eager, k_rtr, k_abort, k_flood, k_odd, k_write, k_senddata, k_immkey;
    unsigned long nwrite = 0, nimm = 0;
    char aux[4200];
    struct target T;
    union {
        rtopo__msg_t m;
        uint8_t raw[sizeof(rtopo__msg_t) + FLOOD_PAYLOAD + 64];
    } u;
    FILE *f;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--wait-ms") && i + 1 < argc)
            wait_ms = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--first-seq") && i + 1 < argc)
            first = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--kinds") && i + 1 < argc)
            kinds = argv[++i];
        else if (argv[i][0] != '-')
            path = argv[i];
        else {
            fprintf(stderr, "usage: %s [--seconds S] [--wait-ms MS] [--first-seq N] "
                    "[--kinds eager,rtr,abort,flood,odd,write,senddata,immkey] [FILE]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!path || !*path || !(seconds > 0 && seconds < 600)) {
        fprintf(stderr, "intruder: no address file (INTRUDER_ADDRS or argument) or bad "
                "--seconds\n");
        return 2;
    }
    k_eager = strstr(kinds, "eager") != NULL;
    k_rtr = strstr(kinds, "rtr") != NULL;
    k_abort = strstr(kinds, "abort") != NULL;
    k_flood = strstr(kinds, "flood") != NULL;
    k_odd = strstr(kinds, "odd") != NULL;
    k_write = strstr(kinds, "write") != NULL;
    k_senddata = strstr(kinds, "senddata") != NULL;
    k_immkey = strstr(kinds, "immkey") != NULL;
    /* the file appears whole (written to .tmp, then renamed) */
    end = now_s() + wait_ms / 1000.0;
    while (access(path, F_OK) != 0 || parse(path, &T) != 0) {
        if (now_s() > end) {
            fprintf(stderr, "intruder: no complete %s after %d ms\n", path, wait_ms);
            return 1;
        }
        nap_ms(5);
    }
    p = T.p;
    if (setup(&T, k_write || k_immkey))
        return 1;
    printf("intruder: provider %s (inject %zu), %d ranks, topology %u, attacking for "
           "%.1f s\n", I.info->fabric_attr->prov_name, I.inject, p, T.topo, seconds);
    fflush(stdout);
    snprintf(aux, sizeof(aux), "%s.ready", path);
    if (!(f = fopen(aux, "w")) || fclose(f)) {
        fprintf(stderr, "intruder: cannot create %s\n", aux);
        return 1;
    }

    start = now_s();
    deadline = start + seconds;
    memset(u.raw + RTOPO__MSG_HDR, 0xEE, sizeof(u.raw) - RTOPO__MSG_HDR);
    while (now_s() < deadline) {
        uint32_t seq;

        for (seq = (uint32_t)first; seq < first + SEQS && now_s() < deadline; seq++) {
            int si = (int)(seq % NSIZES);
            size_t sz = T.size[si];

            for (r = 0; r < p; r++) {
                int pred = (r + p - 1) % p, succ = (r + 1) % p;

                memset(&u.m, 0, sizeof(u.m));
                u.m.topo_id = T.topo;
                u.m.seq = seq;
                u.m.sig = T.sig[si];
                u.m.auth = forged_auth();
                if (sz <= T.eager_limit && sz <= FLOOD_PAYLOAD) {
                    /* the data the predecessor sends, forged */
                    u.m.type = RTOPO__MSG_EAGER;
                    u.m.src = pred;
                    u.m.xfer = (uint32_t)T.xfer[si][r];
                    u.m.hop = (uint32_t)T.hop[si][r];
                    u.m.len = sz;
                    memset(u.raw + RTOPO__MSG_HDR, 0xEE, sz);
                    if (k_eager)
                        I.eager += send_msg(r, u.raw, RTOPO__MSG_HDR + sz, deadline);
                } else {
                    /* a receive window from the successor, forged */
                    u.m.type = RTOPO__MSG_RTR;
                    u.m.mode = RTOPO__WIN_DIRECT;
                    u.m.src = succ;
                    u.m.xfer = (uint32_t)T.xfer[si][succ];
                    u.m.hop = (uint32_t)T.hop[si][succ];
                    u.m.len = sz;
                    u.m.slot = seq % 64;
                    u.m.rkey.key = seq % 16;       /* keys are small integers */
                    u.m.rkey.addr = 0;
                    u.m.roff = 0;
                    if (k_rtr)
                        I.rtr += send_msg(r, &u.m, sizeof(u.m), deadline);
                }
                if (k_abort && seq % 16 == 0) {
                    /* the job is over: with status 0, then with a peer error */
                    memset(&u.m, 0, sizeof(u.m));
                    u.m.type = RTOPO__MSG_ABORT;
                    u.m.src = (seq / 16) % 2 ? succ : pred;
                    u.m.auth = forged_auth();
                    u.m.topo_id = T.topo;
                    u.m.seq = seq;
                    u.m.status = (seq / 16) % 2 ? RTOPO_ERR_PEER : RTOPO_OK;
                    u.m.culprit = -1;
                    u.m.ntopos = T.topo + 1;
                    I.abort_ += send_msg(r, &u.m, sizeof(u.m), deadline);
                }
                if (k_odd && seq % 64 == 7) {
                    /* odd senders: the victim itself, out of range */
                    memset(&u.m, 0, sizeof(u.m));
                    u.m.type = RTOPO__MSG_EAGER;
                    u.m.src = (seq / 64) % 2 ? r : p + 3;
                    u.m.auth = forged_auth();
                    u.m.topo_id = T.topo;
                    u.m.seq = seq;
                    u.m.sig = T.sig[0];
                    u.m.len = 8;
                    memset(u.raw + RTOPO__MSG_HDR, 0xEE, 8);
                    I.odd += send_msg(r, u.raw, RTOPO__MSG_HDR + 8, deadline);
                }
                if (k_write && seq % 4 == 1 && now_s() > start + seconds / 2) {
                    /* into the rank's memory, under a guessed key */
                    I.write += post_msg(r, (nwrite / 64) % 2 ? POST_WRITEDATA : POST_WRITE,
                                        NULL, FLOOD_PAYLOAD < I.bufsize ? FLOOD_PAYLOAD :
                                        I.bufsize, nwrite % 64, deadline);
                    nwrite++;
                }
                /* window immediates: slot 0..63, last piece 0, and random */
                if (k_senddata || (k_immkey && now_s() > start + seconds / 2)) {
                    I.imm = nimm % 4 == 3 ? (uint32_t)rnd64()
                                          : ((uint32_t)(nimm / 4 % 64) << 17) | (1u << 16);
                    if (k_senddata)
                        I.senddata += post_msg(r, POST_SENDDATA, NULL, 0, 0, deadline);
                    if (k_immkey && now_s() > start + seconds / 2)
                        I.immkey += post_msg(r, POST_WRITEIMM, NULL, 0,
                                             nimm % 2 ? rnd64() : nimm / 2 % 64, deadline);
                    nimm++;
                }
                /* the flood: 4 KiB for operations far ahead, kept if accepted */
                if (!k_flood)
                    continue;
                memset(&u.m, 0, sizeof(u.m));
                u.m.type = RTOPO__MSG_EAGER;
                u.m.src = pred;
                u.m.auth = forged_auth();
                u.m.topo_id = (flood_seq % 8 == 7) ? (uint32_t)rnd64() % 64 : T.topo;
                u.m.seq = (flood_seq % 4 == 3) ? (uint32_t)rnd64()
                                               : (uint32_t)(first + SEQS + flood_seq % 2000);
                u.m.sig = T.sig[1];
                u.m.xfer = (uint32_t)T.xfer[1][r];
                u.m.hop = (uint32_t)T.hop[1][r];
                u.m.len = FLOOD_PAYLOAD;
                memset(u.raw + RTOPO__MSG_HDR, 0xEE, FLOOD_PAYLOAD);
                flood_seq++;
                I.flood += send_msg(r, u.raw, RTOPO__MSG_HDR + FLOOD_PAYLOAD, deadline);
            }
        }
        round++;
    }
    /* what was handed over reaches the ranks before FILE.done */
    end = now_s() + 2.0;
    while (I.nfree < NBUF && now_s() < end) {
        drive_cq();
        if (I.nfree < NBUF)
            nap_ms(1);
    }
    /* a last look, so that injected messages leave this process */
    for (i = 0; i < 200; i++) {
        drive_cq();
        nap_ms(1);
    }
    printf("INTRUDER sent=%lu eager=%lu rtr=%lu abort=%lu flood=%lu odd=%lu write=%lu "
           "senddata=%lu immkey=%lu skipped=%lu completed=%lu cq_errors=%lu rounds=%lu "
           "secs=%.2f\n", I.sent, I.eager, I.rtr, I.abort_, I.flood, I.odd, I.write,
           I.senddata, I.immkey, I.skipped, I.completed, I.cq_errors, round, now_s() - start);
    fflush(stdout);
    snprintf(aux, sizeof(aux), "%s.done", path);
    if ((f = fopen(aux, "w")))
        fclose(f);

    fi_close(&I.ep->fid);
    fi_close(&I.mr->fid);
    fi_close(&I.av->fid);
    fi_close(&I.cq->fid);
    fi_close(&I.domain->fid);
    fi_close(&I.fabric->fid);
    fi_freeinfo(I.info);
    free(I.bufs);
    return 0;
}
