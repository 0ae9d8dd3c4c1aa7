/*
 * fuzz_boot_wire.c - libFuzzer harness for the bootstrap wire format
 * (runtime/boot/boot_wire.h), on both ends of the rendezvous:
 *
 *  - the rank's end (runtime/boot/boot_env.c): what the bootstrap address
 *    answers, before authentication (CHALLENGE, WELCOME, REFUSE: the
 *    frame header, the pre-authentication size limit, the server's MAC)
 *    and after it (RESULT, ABORT, FAILED of the allgather rounds and of
 *    the failure notices polled between them);
 *  - rtopo-run's end (tools/rtopo-run.c): what anyone who connects to the
 *    rendezvous port sends (HELLO, AUTH, GATHER, BYE) on up to four
 *    connections at once, rounds completed or broken, ranks exiting.
 *
 * Both files are compiled into this one, so that their static functions
 * (the frame reader, the handshake, the per-connection reader) are called
 * as the bootstrap and the launcher call them, on one end of a socket
 * pair whose other end the harness writes the input into and drains.
 * The rank's end runs with a timeout of 0: a frame that is not complete
 * yet is a timeout, not a wait.  Nonces are not random here (every byte
 * 0x4e), so that a run is deterministic and the harness can put a valid
 * MAC into the frames that carry one when the input asks for it: the
 * fuzzer gets past authentication without guessing HMAC-SHA256.
 *
 * Input: the first byte picks the end and the job: bit 7 rtopo-run's end,
 * else the rank's; bits 0-2 the job size - 1; bits 3-5 the rank (mod
 * size).  Then records until the input ends (at most 64), op = a byte:
 *   rank's end, (op & 7) % 5:  0 bytes from the launcher (u16 length, bytes;
 *     op & 8: the MAC of a CHALLENGE frame starting the bytes made valid);
 *     1 the handshake; 2 an allgather round of (next byte % 65) bytes per
 *     rank; 3 poll for failure notices; 4 the launcher closes its end.
 *     Bit 6 of the first byte: start authenticated (no handshake).
 *   rtopo-run's end, op % 4, connection (op >> 4) % 4:  0 bytes from that
 *     client (u16 length, bytes; op & 8: the MAC of an AUTH frame starting
 *     the bytes made valid); 1 the client closes; 2 a rank exits (next
 *     byte: rank, then status: 0 exit 0, 1-127 exit code, else a signal);
 *     3 every connection read and flushed.
 * Run with FUZZ_SEEDS_DIR=DIR to write the seed inputs into DIR, with
 * FUZZ_LOG_LEVEL=debug to see what an input does.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "fuzz_common.h"

#define FZ_SECRET      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define FZ_MAX_RECORDS 64
#define FZ_MAX_CHUNK   4096
#define FZ_NCONNS      4

/* nonces of both ends (instead of getrandom) */
int fz_wire_random(void *buf, size_t n);

int fz_wire_random(void *buf, size_t n)
{
    memset(buf, 0x4e, n);
    return 0;
}

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#define rtopo__wire_random fz_wire_random
#include "boot_env.c"

/* rtopo-run's messages go to a null stream; its main is not ours */
static FILE *fz_null;
#undef stderr
#define stderr fz_null
#define main rtopo_run_main
#include "rtopo-run.c"
#undef main
#undef stderr
#define stderr stderr
#undef rtopo__wire_random
#pragma clang diagnostic pop

/* ---- common --------------------------------------------------------------- */

static void fz_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void fz_pair(int sv[2])
{
    FZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0,
             "socketpair: %s", strerror(errno));
    fz_nonblock(sv[0]);
    fz_nonblock(sv[1]);
}

/* reads and drops whatever the other end sent */
static void fz_drain_fd(int fd)
{
    static uint8_t sink[65536];

    while (fd >= 0 && recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
        ;
}

/* writes what fits; a full socket drops the rest of the chunk */
static void fz_send_fd(int fd, const uint8_t *p, size_t n)
{
    ssize_t k;

    while (n > 0) {
        k = send(fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (k <= 0)
            return;
        p += k;
        n -= (size_t)k;
    }
}

static int fz_readable(int fd)
{
    int n = 0;

    return fd >= 0 && ioctl(fd, FIONREAD, &n) == 0 && n > 0;
}

/* ---- the rank's end -------------------------------------------------------- */

static void fz_rank_end(fz_in_t *in, uint32_t setup)
{
    unsigned char nonce_c[RTOPO__WIRE_NONCE], chunk[FZ_MAX_CHUNK];
    struct rtopo__boot_env *e;
    unsigned char *blob, *out;
    int sv[2], st, handshaken, dead = 0, records = 0, rank, k;
    size_t len, blen;
    uint32_t op;

    e = calloc(1, sizeof(*e));
    FZ_CHECK(e, "out of memory");
    fz_pair(sv);
    e->base.ops = &rtopo__boot_env_ops;
    e->base.size = 1 + (int)(setup & 7);
    e->base.rank = (int)((setup >> 3) & 7) % e->base.size;
    e->fd = sv[0];
    e->timeout_ms = 0;
    e->authed = handshaken = (setup & 0x40) != 0;
    fz_wire_random(nonce_c, sizeof(nonce_c));   /* what the handshake sends */

    while (fz_left(in) && records++ < FZ_MAX_RECORDS && !dead) {
        op = fz_u8(in);
        switch ((op & 7) % 5) {
        case 0:
            len = fz_u16(in) % (FZ_MAX_CHUNK + 1);
            fz_bytes(in, chunk, len);
            if ((op & 8) && len >= RTOPO__WIRE_HDR + RTOPO__WIRE_CHALLENGE_LEN)
                rtopo__wire_mac(FZ_SECRET, RTOPO__WIRE_ROLE_SERVER, e->base.rank, nonce_c,
                                chunk + RTOPO__WIRE_HDR,
                                chunk + RTOPO__WIRE_HDR + RTOPO__WIRE_NONCE);
            fz_send_fd(sv[1], chunk, len);
            break;
        case 1:
            if (handshaken)
                break;
            handshaken = 1;
            st = rtopo__env_handshake(e, FZ_SECRET, rtopo__wire_now_ms());
            FZ_DEBUG("handshake: %s\n", rtopo_err_name(st));
            if (st != RTOPO_OK)
                dead = 1;       /* rtopo__boot_env_open gives up */
            else
                FZ_CHECK(e->authed, "handshake passed, not authenticated");
            break;
        case 2:
            if (!handshaken)
                break;
            blen = fz_u8(in) % 65;
            blob = malloc(blen ? blen : 1);
            out = malloc(blen * (size_t)e->base.size + 1);
            FZ_CHECK(blob && out, "out of memory");
            memset(blob, 0x62, blen);
            st = rtopo__env_allgather(&e->base, blob, out, blen);
            FZ_DEBUG("allgather of %zu bytes: %s\n", blen, rtopo_err_name(st));
            free(blob);
            free(out);
            break;
        case 3:
            if (!handshaken)
                break;
            for (k = 0; k < 16 && rtopo__env_poll_failure(&e->base, &rank) == 1; k++)
                ;
            break;
        default:
            shutdown(sv[1], SHUT_WR);
            break;
        }
        fz_drain_fd(sv[1]);
    }
    if (dead || !handshaken) {
        /* what rtopo__boot_env_open does with a handshake that failed */
        close(e->fd);
        free(e->in);
        free(e->failed);
        free(e);
    } else {
        rtopo__env_close(&e->base);
    }
    close(sv[1]);
}

/* ---- rtopo-run's end ------------------------------------------------------- */

struct fz_client {
    struct rr_conn *c;          /* NULL: not connected (yet, or any more) */
    int fd;                     /* the client's end */
};

static struct rr_conn *fz_accept(struct rr_job *j, struct fz_client *cl)
{
    struct rr_conn *c;
    int sv[2];

    /* as rr_accept */
    fz_pair(sv);
    if (j->nstrangers >= j->n + RR_MAX_STRANGERS)
        rr_evict_stranger(j);
    c = calloc(1, sizeof(*c));
    FZ_CHECK(c, "out of memory");
    c->fd = sv[0];
    c->state = RR_C_HELLO;
    c->rank = -1;
    c->deadline = rtopo__wire_now_ms() + RR_HANDSHAKE_MS;
    c->out_tail = &c->out;
    c->next = j->conns;
    j->conns = c;
    j->nstrangers++;
    cl->c = c;
    cl->fd = sv[1];
    return c;
}

/* reads what each connection holds, sends what is queued, drops the dead
 * ones as rr_loop does */
static void fz_pump(struct rr_job *j, struct fz_client *cl)
{
    struct rr_conn *c;
    int i, again = 1, rounds = 0;

    while (again && rounds++ < 64) {
        again = 0;
        for (c = j->conns; c; c = c->next) {
            if (!c->dead && c->fd >= 0 && fz_readable(c->fd)) {
                rr_conn_read(j, c);
                again = 1;
            }
            if (!c->dead)
                rr_conn_flush(c);
        }
        for (i = 0; i < FZ_NCONNS; i++)
            fz_drain_fd(cl[i].fd);
    }
    for (i = 0; i < FZ_NCONNS; i++)
        if (cl[i].c)
            FZ_DEBUG("connection %d: state %d rank %d%s; round %u, %d arrived%s\n", i,
                     cl[i].c->state, cl[i].c->rank, cl[i].c->dead ? ", dead" : "", j->seq,
                     j->narrived, j->broken ? ", broken" : "");
    for (i = 0; i < FZ_NCONNS; i++)
        if (cl[i].c && cl[i].c->dead) {
            cl[i].c = NULL;     /* freed by the sweep below */
            close(cl[i].fd);
            cl[i].fd = -1;
        }
    rr_conn_sweep(j);
}

static void fz_launcher_end(fz_in_t *in, uint32_t setup)
{
    struct fz_client cl[FZ_NCONNS];
    struct rr_job job, *j = &job;
    unsigned char chunk[FZ_MAX_CHUNK];
    unsigned char mac[RTOPO__WIRE_MAC];
    struct rr_conn *c;
    int i, r, records = 0, status;
    size_t len;
    uint32_t op, x;

    memset(&job, 0, sizeof(job));
    memset(cl, 0, sizeof(cl));
    for (i = 0; i < FZ_NCONNS; i++)
        cl[i].fd = -1;
    j->n = 1 + (int)(setup & 7);
    j->grace_ms = 5000;
    j->first_failed = -1;
    j->listen_fd = j->sig_fd = -1;
    j->quiet = 1;
    j->seq = 1;
    j->ranks = calloc((size_t)j->n, sizeof(*j->ranks));
    FZ_CHECK(j->ranks, "out of memory");
    for (r = 0; r < j->n; r++) {
        j->ranks[r].st[0].fd = j->ranks[r].st[1].fd = -1;
        j->ranks[r].running = 1;
        j->ranks[r].pid = 1000 + r;
    }
    j->nrunning = j->n;
    snprintf(j->secret, sizeof(j->secret), "%s", FZ_SECRET);

    while (fz_left(in) && records++ < FZ_MAX_RECORDS) {
        op = fz_u8(in);
        i = (int)((op >> 4) % FZ_NCONNS);
        switch (op % 4) {
        case 0:
            len = fz_u16(in) % (FZ_MAX_CHUNK + 1);
            fz_bytes(in, chunk, len);
            if (!cl[i].c) {
                if (cl[i].fd >= 0)
                    break;
                fz_accept(j, &cl[i]);
            }
            c = cl[i].c;
            if ((op & 8) && c->state == RR_C_AUTH &&
                len >= RTOPO__WIRE_HDR + RTOPO__WIRE_MAC) {
                rtopo__wire_mac(j->secret, RTOPO__WIRE_ROLE_CLIENT, c->rank, c->nonce_c,
                                c->nonce_s, mac);
                memcpy(chunk + RTOPO__WIRE_HDR, mac, sizeof(mac));
            }
            fz_send_fd(cl[i].fd, chunk, len);
            fz_pump(j, cl);
            break;
        case 1:
            if (cl[i].fd >= 0)
                shutdown(cl[i].fd, SHUT_WR);
            fz_pump(j, cl);
            break;
        case 2:
            r = (int)(fz_u8(in) % (uint32_t)j->n);
            x = fz_u8(in);
            status = x == 0 ? 0 : x < 128 ? (int)(x << 8) : (int)(x & 31);
            if (j->ranks[r].running)
                rr_rank_exited(j, r, status);
            fz_pump(j, cl);
            break;
        default:
            fz_pump(j, cl);
            break;
        }
    }
    while ((c = j->conns)) {
        j->conns = c->next;
        rr_conn_free(j, c);
    }
    for (i = 0; i < FZ_NCONNS; i++)
        if (cl[i].fd >= 0)
            close(cl[i].fd);
    rr_unref(j->result);
    free(j->ranks);
}

static void fz_write_seeds(const char *dir);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *level = fz_init(fz_write_seeds);

    /* FUZZ_LOG_LEVEL=info (or debug): the library's log and rtopo-run's
     * messages on stderr, to see what an input does */
    if (level) {
        rtopo__log_set_level(level);
        fz_null = fdopen(dup(2), "w");
    } else {
        fz_null = fopen("/dev/null", "w");
    }
    FZ_CHECK(fz_null, "/dev/null: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = { data, size };
    uint32_t setup;

    if (size < 1)
        return 0;
    setup = fz_u8(&in);
    if (setup & 0x80)
        fz_launcher_end(&in, setup);
    else
        fz_rank_end(&in, setup);
    return 0;
}

/* ---- seed inputs --------------------------------------------------------- */

/* a record of bytes holding one frame: type, payload */
static void fz_put_frame(fz_seed_t *s, uint32_t op, uint32_t type,
                         const void *payload, size_t plen)
{
    unsigned char hdr[RTOPO__WIRE_HDR];

    fz_put8(s, op);
    rtopo__wire_hdr(hdr, type, (uint32_t)plen);
    fz_put_len_bytes(s, hdr, sizeof(hdr), payload, plen);
}

static void fz_write_seeds(const char *dir)
{
    unsigned char p[512];
    fz_seed_t s;
    int i;

    /* the rank's end, rank 1 of 3: CHALLENGE (MAC made valid), WELCOME,
     * the handshake; a failure notice, an allgather of 8 bytes answered,
     * one aborted, failure notices polled */
    memset(&s, 0, sizeof(s));
    fz_put8(&s, 2 | 1 << 3);
    memset(p, 0x53, RTOPO__WIRE_CHALLENGE_LEN);
    fz_put_frame(&s, 0 | 8, RTOPO__WIRE_CHALLENGE, p, RTOPO__WIRE_CHALLENGE_LEN);
    rtopo__wire_put32(p, 3);
    fz_put_frame(&s, 0, RTOPO__WIRE_WELCOME, p, 4);
    fz_put8(&s, 1);
    rtopo__wire_put32(p, 2);
    fz_put_frame(&s, 0, RTOPO__WIRE_FAILED, p, 4);
    rtopo__wire_put32(p, 1);
    memset(p + 4, 0x77, 24);
    fz_put_frame(&s, 0, RTOPO__WIRE_RESULT, p, 4 + 24);
    fz_put8(&s, 2);
    fz_put8(&s, 8);
    rtopo__wire_put32(p, 2);
    rtopo__wire_put32(p + 4, RTOPO__WIRE_R_PEER);
    rtopo__wire_put32(p + 8, 2);
    fz_put_frame(&s, 0, RTOPO__WIRE_ABORT, p, 12);
    fz_put8(&s, 2);
    fz_put8(&s, 8);
    fz_put8(&s, 3);
    fz_put8(&s, 4);
    fz_put8(&s, 3);
    fz_seed_write(dir, "rank_join", &s);

    /* the rank's end refused: REFUSE with a text, then one too large */
    memset(&s, 0, sizeof(s));
    fz_put8(&s, 0);
    rtopo__wire_put32(p, RTOPO__WIRE_R_RANK);
    memcpy(p + 4, "rank 0 out of range", 19);
    fz_put_frame(&s, 0, RTOPO__WIRE_REFUSE, p, 4 + 19);
    fz_put8(&s, 1);
    fz_seed_write(dir, "rank_refused", &s);

    /* the rank's end, authenticated: a RESULT from another round, a
     * RESULT of a wrong size */
    memset(&s, 0, sizeof(s));
    fz_put8(&s, 0x40 | 1);
    rtopo__wire_put32(p, 7);
    fz_put_frame(&s, 0, RTOPO__WIRE_RESULT, p, 4);
    rtopo__wire_put32(p, 1);
    fz_put_frame(&s, 0, RTOPO__WIRE_RESULT, p, 4 + 3);
    fz_put8(&s, 2);
    fz_put8(&s, 4);
    fz_seed_write(dir, "rank_rounds", &s);

    /* rtopo-run's end, 2 ranks: both join (AUTH made valid), gather a
     * round, one says goodbye; a stranger sends garbage */
    memset(&s, 0, sizeof(s));
    fz_put8(&s, 0x80 | 1);
    for (i = 0; i < 2; i++) {
        rtopo__wire_put32(p, RTOPO__WIRE_MAGIC);
        rtopo__wire_put32(p + 4, RTOPO__WIRE_VERSION);
        rtopo__wire_put32(p + 8, (uint32_t)i);
        rtopo__wire_put32(p + 12, 2);
        memset(p + 16, 0x4e, RTOPO__WIRE_NONCE);
        fz_put_frame(&s, (uint32_t)(i << 4), RTOPO__WIRE_HELLO, p, RTOPO__WIRE_HELLO_LEN);
        memset(p, 0, RTOPO__WIRE_MAC);
        fz_put_frame(&s, (uint32_t)(i << 4) | 8, RTOPO__WIRE_AUTH, p, RTOPO__WIRE_MAC);
    }
    for (i = 0; i < 2; i++) {
        rtopo__wire_put32(p, 1);
        memset(p + 4, 0x30 + i, 16);
        fz_put_frame(&s, (uint32_t)(i << 4), RTOPO__WIRE_GATHER, p, 4 + 16);
    }
    fz_put_frame(&s, 1 << 4, RTOPO__WIRE_BYE, NULL, 0);
    fz_put_frame(&s, 2 << 4, 99, "garbage", 7);
    fz_put8(&s, 3);
    fz_seed_write(dir, "launcher_round", &s);

    /* rtopo-run's end, 3 ranks: one joins and gathers, another exits
     * with an error, a client out of step, a bad MAC */
    memset(&s, 0, sizeof(s));
    fz_put8(&s, 0x80 | 2);
    rtopo__wire_put32(p, RTOPO__WIRE_MAGIC);
    rtopo__wire_put32(p + 4, RTOPO__WIRE_VERSION);
    rtopo__wire_put32(p + 8, 0);
    rtopo__wire_put32(p + 12, 3);
    memset(p + 16, 0x11, RTOPO__WIRE_NONCE);
    fz_put_frame(&s, 0, RTOPO__WIRE_HELLO, p, RTOPO__WIRE_HELLO_LEN);
    memset(p, 0, RTOPO__WIRE_MAC);
    fz_put_frame(&s, 8, RTOPO__WIRE_AUTH, p, RTOPO__WIRE_MAC);
    rtopo__wire_put32(p, 1);
    fz_put_frame(&s, 0, RTOPO__WIRE_GATHER, p, 4 + 8);
    fz_put8(&s, 2);
    fz_put8(&s, 1);
    fz_put8(&s, 3);
    rtopo__wire_put32(p, 5);
    fz_put_frame(&s, 0, RTOPO__WIRE_GATHER, p, 4);
    rtopo__wire_put32(p, RTOPO__WIRE_MAGIC);
    rtopo__wire_put32(p + 4, RTOPO__WIRE_VERSION);
    rtopo__wire_put32(p + 8, 2);
    rtopo__wire_put32(p + 12, 3);
    fz_put_frame(&s, 1 << 4, RTOPO__WIRE_HELLO, p, RTOPO__WIRE_HELLO_LEN);
    fz_put_frame(&s, 1 << 4, RTOPO__WIRE_AUTH, p, RTOPO__WIRE_MAC);
    fz_put8(&s, 1);
    fz_seed_write(dir, "launcher_broken", &s);
}
