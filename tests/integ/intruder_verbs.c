/*
 * intruder_verbs - a process OUTSIDE a job that asks its ranks for rdma_cm
 * connections (run by intruder_verbs.sh).
 *
 *   intruder_verbs [--seconds S] [--wait-ms MS] [FILE]      (FILE: $INTRUDER_ADDRS)
 *
 * It does not know the job secret nor the ranks' per-job tokens, is not
 * started by rtopo-run and links only librdmacm, libibverbs and nettle.
 * FILE is what intruder_rank's rank 0 publishes: every rank's verbs
 * address blob (IPv4 and port of its rdma_cm listener: what `rdma res show
 * cm_id` shows anyone on the host).  The layouts of that blob and of the
 * connection private data are copied from transports/verbs/verbs_tl.c, as
 * an attacker would read them in the source.
 *
 * Once FILE is there it creates FILE.ready and, for S seconds (default 3),
 * sends every rank, round after round, RC connection requests of these
 * kinds, each from a fresh rdma_cm id and QP:
 *   none    no private data;
 *   old     the format rtopo accepted before requests were authenticated:
 *           magic "rvb1" and a lower rank;
 *   badmac  the current format, a lower rank, a random nonce and MAC;
 *   nokey   a lower rank with the MAC computed as the transport does, but
 *           with empty key material (what a rank that was never given the
 *           tokens would accept);
 *   reflect the responder's accept format (rank, MAC) sent as a request;
 *   rank    a correctly shaped request claiming the target's own rank, a
 *           higher one or one out of range.
 * A request to rank 0 cannot name a lower rank: there the rank-claiming
 * kinds claim rank 0.  Every request must end in RDMA_CM_EVENT_REJECTED;
 * one that gets ESTABLISHED is counted as accepted (and disconnected).
 * The reject says why (struct rvb_rej): a request whose reason is not the
 * one expected for its kind and target (format for none and old, a rank
 * that does not connect to the target for rank and for claims on rank 0,
 * authentication otherwise) counts as wrong_reason, so a refusal for a
 * lesser reason cannot hide a missing MAC check.
 * Then it creates FILE.done and prints
 *   INTRUDER_VERBS attempts=N rejected=N accepted=N other=N wrong_reason=N
 *                  <kind>=N... secs=S
 * Exit 0 when it could run (whatever the ranks did), 1 when it could not
 * set up (no file, no verbs address, no device).
 */
#include "config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <nettle/hmac.h>

#define MAXR        64
#define ADDR_MAGIC  0x72766231u    /* "rvb1" */
#define CM_MAGIC    0x72766232u    /* "rvb2" */
#define EV_WAIT_MS  5000

enum { REJ_FORMAT = 1, REJ_RANK, REJ_AUTH };   /* RVB_REJ_* */

struct vaddr {          /* the verbs address blob */
    uint32_t magic, rank, ip;
    uint16_t port, pad;
};

struct vreq {           /* the connection request's private data */
    uint32_t magic, rank;
    uint8_t nonce[16];
    uint8_t mac[32];
};

struct vrep {           /* the accept's private data */
    uint32_t magic, rank;
    uint8_t mac[32];
};

struct vrej {           /* the reject's private data */
    uint32_t magic, reason;
};

enum { K_NONE, K_OLD, K_BADMAC, K_NOKEY, K_REFLECT, K_RANK, K_COUNT };
static const char *const kind_name[K_COUNT] = { "none", "old", "badmac", "nokey", "reflect",
                                                "rank" };

static struct {
    int p;
    struct sockaddr_in addr[MAXR];
    struct rdma_event_channel *ech;
    unsigned long attempts, rejected, accepted, other, wrong_reason, kinds[K_COUNT];
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

static void rnd(void *buf, size_t n)
{
    if (getrandom(buf, n, 0) != (ssize_t)n)
        memset(buf, 0x5a, n);
}

static int touch(const char *path, const char *suffix)
{
    char name[4096];
    FILE *f;

    snprintf(name, sizeof(name), "%s%s", path, suffix);
    f = fopen(name, "w");
    if (!f)
        return -1;
    return fclose(f);
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* the ranks' listening addresses from FILE; 0 when all were found */
static int load(const char *path)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    int found = 0;

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        unsigned r, len, k;
        int off = 0, hi, lo;
        uint8_t blob[128];
        struct vaddr a;

        if (sscanf(line, "ranks %d", &I.p) == 1)
            continue;
        if (sscanf(line, "addr %u %u %n", &r, &len, &off) != 2 || off == 0)
            continue;
        if (r >= MAXR || len != sizeof(a))
            return -1;
        for (k = 0; k < len; k++) {
            hi = hexval(line[off + 2 * k]);
            lo = hi < 0 ? -1 : hexval(line[off + 2 * k + 1]);
            if (lo < 0)
                return -1;
            blob[k] = (uint8_t)(hi << 4 | lo);
        }
        memcpy(&a, blob, sizeof(a));
        if (ntohl(a.magic) != ADDR_MAGIC || ntohl(a.rank) != r)
            return -1;
        memset(&I.addr[r], 0, sizeof(I.addr[r]));
        I.addr[r].sin_family = AF_INET;
        I.addr[r].sin_addr.s_addr = a.ip;
        I.addr[r].sin_port = a.port;
        found++;
    }
    fclose(f);
    return I.p > 0 && I.p <= MAXR && found == I.p ? 0 : -1;
}

/* the next event of `id` within EV_WAIT_MS; -1 when none.  *reason: the
 * reason a reject gives, 0 when none */
static int next_event(struct rdma_cm_id *id, enum rdma_cm_event_type *type, uint32_t *reason)
{
    struct rdma_cm_event *e;
    struct pollfd pfd = { I.ech->fd, POLLIN, 0 };

    for (;;) {
        if (poll(&pfd, 1, EV_WAIT_MS) <= 0)
            return -1;
        if (rdma_get_cm_event(I.ech, &e))
            return -1;
        if (e->id != id) {          /* a late event of an earlier attempt */
            rdma_ack_cm_event(e);
            continue;
        }
        *type = e->event;
        if (reason) {
            const struct vrej *rj = e->param.conn.private_data;

            *reason = 0;
            if (e->event == RDMA_CM_EVENT_REJECTED && rj &&
                e->param.conn.private_data_len >= sizeof(*rj) &&
                ntohl(rj->magic) == CM_MAGIC)
                *reason = ntohl(rj->reason);
        }
        rdma_ack_cm_event(e);
        return 0;
    }
}

/* HMAC-SHA256 over the request as the transport computes it, keyed with
 * empty key material: all an outsider can do without the tokens */
static void mac_nokey(uint32_t init, uint32_t resp, const uint8_t nonce[16], uint32_t qpn,
                      uint8_t mac[32])
{
    static const char label[] = "rtopo verbs request";
    const uint8_t key[2] = { 0, 0 };
    struct hmac_sha256_ctx h;
    uint32_t v[4] = { htonl(init), htonl(resp), htonl(qpn), 0 };

    hmac_sha256_set_key(&h, sizeof(key), key);
    hmac_sha256_update(&h, sizeof(label), (const uint8_t *)label);
    hmac_sha256_update(&h, 8, (const uint8_t *)v);
    hmac_sha256_update(&h, 16, nonce);
    hmac_sha256_update(&h, 8, (const uint8_t *)(v + 2));
    hmac_sha256_digest(&h, 32, mac);
}

/* one connection request of `kind` to rank `v`; its outcome is counted */
static void attempt(int v, int kind, unsigned round)
{
    struct rdma_cm_id *id = NULL;
    struct rdma_conn_param cp;
    struct ibv_qp_init_attr qa;
    struct sockaddr_in src = I.addr[v];
    enum rdma_cm_event_type ev;
    uint8_t priv[56];
    uint32_t claim = v > 0 ? (uint32_t)(round % (unsigned)v) : 0;
    struct vreq rq;
    struct vrep rp;
    uint32_t reason, want;

    I.attempts++;
    I.kinds[kind]++;
    if (rdma_create_id(I.ech, &id, NULL, RDMA_PS_TCP)) {
        I.other++;
        return;
    }
    src.sin_port = 0;
    if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&I.addr[v], 2000) ||
        next_event(id, &ev, NULL) || ev != RDMA_CM_EVENT_ADDR_RESOLVED ||
        rdma_resolve_route(id, 2000) || next_event(id, &ev, NULL) ||
        ev != RDMA_CM_EVENT_ROUTE_RESOLVED)
        goto other;
    memset(&qa, 0, sizeof(qa));
    qa.qp_type = IBV_QPT_RC;
    qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
    qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
    if (rdma_create_qp(id, NULL, &qa))
        goto other;

    memset(&cp, 0, sizeof(cp));
    memset(priv, 0, sizeof(priv));
    memset(&rq, 0, sizeof(rq));
    rq.magic = htonl(CM_MAGIC);
    rq.rank = htonl(claim);
    rnd(rq.nonce, sizeof(rq.nonce));
    switch (kind) {
    case K_NONE:
        break;
    case K_OLD: {
        uint32_t old[2] = { htonl(ADDR_MAGIC), htonl(claim) };

        memcpy(priv, old, sizeof(old));
        cp.private_data_len = sizeof(old);
        break;
    }
    case K_BADMAC:
        rnd(rq.mac, sizeof(rq.mac));
        break;
    case K_NOKEY:
        mac_nokey(claim, (uint32_t)v, rq.nonce, id->qp->qp_num, rq.mac);
        break;
    case K_REFLECT:
        rp.magic = htonl(CM_MAGIC);
        rp.rank = htonl(claim);
        rnd(rp.mac, sizeof(rp.mac));
        memcpy(priv, &rp, sizeof(rp));
        cp.private_data_len = sizeof(rp);
        break;
    case K_RANK: {
        static const uint32_t extra[] = { 0, 1, 1000, 0xffffffffu };
        uint32_t c = round % 4 == 3 ? extra[3] : (uint32_t)v + extra[round % 3];

        rq.rank = htonl(c);
        mac_nokey(c, (uint32_t)v, rq.nonce, id->qp->qp_num, rq.mac);
        break;
    }
    }
    if (kind == K_BADMAC || kind == K_NOKEY || kind == K_RANK) {
        memcpy(priv, &rq, sizeof(rq));
        cp.private_data_len = sizeof(rq);
    }
    if (cp.private_data_len)
        cp.private_data = priv;
    cp.retry_count = 1;
    cp.rnr_retry_count = 1;
    if (rdma_connect(id, &cp) || next_event(id, &ev, &reason))
        goto other;
    if (ev == RDMA_CM_EVENT_REJECTED) {
        I.rejected++;
        want = kind == K_NONE || kind == K_OLD ? REJ_FORMAT :
               kind == K_RANK || v == 0 ? REJ_RANK : REJ_AUTH;
        if (reason != want) {
            I.wrong_reason++;
            fprintf(stderr, "intruder_verbs: rank %d rejected a %s request with reason %u, "
                    "expected %u\n", v, kind_name[kind], reason, want);
        }
    } else if (ev == RDMA_CM_EVENT_ESTABLISHED) {
        I.accepted++;
        fprintf(stderr, "intruder_verbs: rank %d ACCEPTED a %s request\n", v,
                kind_name[kind]);
        rdma_disconnect(id);
    } else {
        fprintf(stderr, "intruder_verbs: rank %d, %s request: %s\n", v, kind_name[kind],
                rdma_event_str(ev));
        I.other++;
    }
    goto out;
other:
    I.other++;
out:
    if (id->qp)
        rdma_destroy_qp(id);
    rdma_destroy_id(id);
}

int main(int argc, char **argv)
{
    const char *path = getenv("INTRUDER_ADDRS");
    double secs = 3, wait_ms = 30000, t0, end;
    unsigned round;
    int i, v, k;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            secs = atof(argv[++i]);
        else if (!strcmp(argv[i], "--wait-ms") && i + 1 < argc)
            wait_ms = atof(argv[++i]);
        else if (argv[i][0] != '-')
            path = argv[i];
        else {
            fprintf(stderr, "usage: %s [--seconds S] [--wait-ms MS] [FILE]\n", argv[0]);
            return 1;
        }
    }
    if (!path || !*path) {
        fprintf(stderr, "intruder_verbs: no address file\n");
        return 1;
    }
    end = now_s() + wait_ms / 1000;
    while (access(path, F_OK) != 0) {
        if (now_s() > end) {
            fprintf(stderr, "intruder_verbs: %s did not appear\n", path);
            return 1;
        }
        nap_ms(5);
    }
    if (load(path)) {
        fprintf(stderr, "intruder_verbs: %s holds no verbs addresses\n", path);
        return 1;
    }
    I.ech = rdma_create_event_channel();
    if (!I.ech) {
        fprintf(stderr, "intruder_verbs: rdma_create_event_channel: %s\n", strerror(errno));
        return 1;
    }
    if (touch(path, ".ready")) {
        fprintf(stderr, "intruder_verbs: cannot create %s.ready\n", path);
        return 1;
    }
    t0 = now_s();
    for (round = 0; now_s() - t0 < secs; round++)
        for (v = 0; v < I.p; v++)
            for (k = 0; k < K_COUNT; k++)
                attempt(v, k, round);
    touch(path, ".done");
    printf("INTRUDER_VERBS attempts=%lu rejected=%lu accepted=%lu other=%lu wrong_reason=%lu",
           I.attempts, I.rejected, I.accepted, I.other, I.wrong_reason);
    for (k = 0; k < K_COUNT; k++)
        printf(" %s=%lu", kind_name[k], I.kinds[k]);
    printf(" secs=%.2f\n", now_s() - t0);
    rdma_destroy_event_channel(I.ech);
    return 0;
}
