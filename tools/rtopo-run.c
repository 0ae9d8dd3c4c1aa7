/*
 * rtopo-run - start N ranks on this machine, wire their environment,
 * run the bootstrap rendezvous (runtime/boot/boot_wire.h), forward their
 * output prefixed by rank, and end the job when a rank fails.
 *
 * One poll() loop over: a signalfd (SIGCHLD and the signals forwarded
 * to the ranks), the listening socket, every rank's stdout and stderr
 * pipes, and the rendezvous connections.  Sockets are non-blocking with
 * per-connection output queues, so one slow rank never stalls the
 * others; an allgather result is built once and shared by every queue.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include "rtopo.h"
#include "boot_wire.h"
#include "run_hosts.h"

#define RR_MAX_RANKS     4096
/* A connection that is not a rank of the job costs a socket and a slot
 * among the unauthenticated ones: it must send HELLO within
 * RR_HANDSHAKE_MS of being accepted and AUTH within RR_HANDSHAKE_MS of
 * the CHALLENGE, which a rank does at once.  Data that arrived in time
 * counts even when rtopo-run itself was slow to read it. */
#define RR_HANDSHAKE_MS  2000
#define RR_REFUSE_MS     1000    /* time to deliver a REFUSE before closing */
#define RR_KILL_MS       1000    /* SIGTERM -> SIGKILL */
#define RR_DRAIN_MS      500     /* output of leftover children after the last rank */
#define RR_LINE_MAX      65536   /* longer lines are split */
#define RR_READ_CHUNK    65536
/* unauthenticated connections beyond N; when they are all taken, a new
 * connection closes the oldest one, so that idle intruders cannot keep
 * the ranks out */
#define RR_MAX_STRANGERS 64

/* a frame queued on one or more connections */
struct rr_shared {
    int refs;
    size_t len;
    unsigned char data[];
};

struct rr_out {
    struct rr_shared *s;
    size_t off;
    struct rr_out *next;
};

enum { RR_C_HELLO, RR_C_AUTH, RR_C_READY, RR_C_CLOSING };

struct rr_conn {
    int fd;
    int state;
    int rank;                  /* claimed in HELLO; the rank's once READY */
    int size;
    int dead;                  /* to be dropped at the end of the iteration */
    int shut;                  /* refused: our side is closed for writing */
    int evicted;               /* closed to make room (rr_evict_stranger) */
    int64_t deadline;          /* of the handshake or the refusal */
    unsigned char nonce_c[RTOPO__WIRE_NONCE];
    unsigned char nonce_s[RTOPO__WIRE_NONCE];
    unsigned char *in;
    size_t in_len;
    size_t in_cap;
    struct rr_out *out;
    struct rr_out **out_tail;
    struct rr_conn *next;
};

struct rr_stream {
    int fd;                    /* read end of the rank's stdout or stderr */
    char *buf;                 /* partial line */
    size_t len;
};

struct rr_rank {
    pid_t pid;
    int running;
    int gone;                  /* exited or left: cannot join a round */
    int arrived;               /* in the current round */
    int joined;                /* authenticated once */
    int bye;                   /* said goodbye (rtopo_finalize) */
    int failed;
    int signalled;             /* rtopo-run sent it a signal */
    struct rr_conn *conn;
    struct rr_stream st[2];
};

struct rr_job {
    int n;
    int hosts;
    struct rh_opts ho;         /* emulated hosts (run_hosts.h) */
    int exec_launcher;         /* --exec-launcher: run argv on the head node */
    const char *map_by;        /* --map-by, or NULL */
    const char *transport;
    int64_t timeout_ms;
    int64_t grace_ms;
    int quiet;
    char **argv;
    char *path;
    pid_t launcher;

    struct rr_rank *ranks;
    int listen_fd;
    int sig_fd;
    sigset_t oldmask;
    char secret[2 * 32 + 1];
    char addr[64];
    struct rr_conn *conns;
    int nstrangers;            /* connections not authenticated yet */
    int nexpired, nevicted;    /* closed strangers not reported yet */

    /* the current round of the rendezvous */
    uint32_t seq;
    size_t blob;               /* bytes per rank of this round */
    int narrived;
    struct rr_shared *result;
    uint32_t broken;           /* ABORT reason once rounds cannot complete */
    int broken_rank;

    int nrunning;
    int exit_code;
    int first_failed;
    int interrupts;
    int64_t t_timeout, t_grace, t_kill, t_drain;
};

static void rr_msg(struct rr_job *j, int note, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* note: suppressed by --quiet; otherwise a line the user must see */
static void rr_msg(struct rr_job *j, int note, const char *fmt, ...)
{
    va_list ap;

    if (note && j->quiet)
        return;
    fflush(stdout);
    fputs("rtopo-run: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

static void rr_set_exit(struct rr_job *j, int code)
{
    if (!j->exit_code)
        j->exit_code = code;
}

/* "0-3,5,7-9" of the ranks still running, shortened when very long */
static void rr_running_list(struct rr_job *j, char *buf, size_t cap)
{
    size_t used = 0;
    int r, s;

    buf[0] = '\0';
    for (r = 0; r < j->n; r++) {
        if (!j->ranks[r].running)
            continue;
        for (s = r; r + 1 < j->n && j->ranks[r + 1].running; r++)
            ;
        if (used + 32 >= cap) {
            snprintf(buf + used, cap - used, "%s...", used ? "," : "");
            return;
        }
        used += (size_t)snprintf(buf + used, cap - used,
                                 s == r ? "%s%d" : "%s%d-%d",
                                 used ? "," : "", s, r);
    }
}

/* "rank" for a list of one rank, else "ranks" */
static const char *rr_ranks_word(const char *list)
{
    return strpbrk(list, ",-.") ? "ranks" : "rank";
}

/* ---- output of the ranks ------------------------------------------- */

static void rr_emit(int rank, int which, const char *line, size_t len)
{
    FILE *f = which ? stderr : stdout;

    fprintf(f, "[%d] ", rank);
    fwrite(line, 1, len, f);
    fputc('\n', f);
}

static void rr_stream_read(struct rr_job *j, int rank, int which)
{
    struct rr_stream *s = &j->ranks[rank].st[which];
    char *nl, *p;
    ssize_t n;
    size_t start;

    if (!s->buf && !(s->buf = malloc(RR_LINE_MAX + RR_READ_CHUNK))) {
        perror("rtopo-run: malloc");
        exit(1);
    }
    n = read(s->fd, s->buf + s->len, RR_READ_CHUNK);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        /* end of the stream: a last line without newline still counts */
        if (s->len)
            rr_emit(rank, which, s->buf, s->len);
        close(s->fd);
        s->fd = -1;
        free(s->buf);
        s->buf = NULL;
        s->len = 0;
        return;
    }
    s->len += (size_t)n;
    start = 0;
    p = s->buf;
    while ((nl = memchr(p + start, '\n', s->len - start))) {
        rr_emit(rank, which, p + start, (size_t)(nl - (p + start)));
        start = (size_t)(nl - p) + 1;
    }
    if (s->len - start >= RR_LINE_MAX) {
        rr_emit(rank, which, p + start, s->len - start);
        start = s->len;
    }
    memmove(p, p + start, s->len - start);
    s->len -= start;
}

/* ---- rendezvous connections ---------------------------------------- */

static struct rr_shared *rr_frame(uint32_t type, const void *a, size_t alen,
                                  size_t extra)
{
    struct rr_shared *s = malloc(sizeof(*s) + RTOPO__WIRE_HDR + alen + extra);

    if (!s) {
        perror("rtopo-run: malloc");
        exit(1);
    }
    s->refs = 1;
    s->len = RTOPO__WIRE_HDR + alen + extra;
    rtopo__wire_hdr(s->data, type, (uint32_t)(alen + extra));
    if (alen)
        memcpy(s->data + RTOPO__WIRE_HDR, a, alen);
    return s;
}

static void rr_unref(struct rr_shared *s)
{
    if (s && --s->refs == 0)
        free(s);
}

static void rr_conn_flush(struct rr_conn *c)
{
    struct iovec iov[16];
    struct rr_out *o;
    ssize_t n;
    int k;

    while (c->out && !c->dead) {
        for (k = 0, o = c->out; o && k < 16; o = o->next, k++) {
            iov[k].iov_base = o->s->data + o->off;
            iov[k].iov_len = o->s->len - o->off;
        }
        n = sendmsg(c->fd, &(struct msghdr){ .msg_iov = iov,
                                             .msg_iovlen = (size_t)k },
                    MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                c->dead = 1;   /* the peer went away; EOF handling follows */
            return;
        }
        while ((o = c->out) && (size_t)n >= o->s->len - o->off) {
            n -= (ssize_t)(o->s->len - o->off);
            c->out = o->next;
            rr_unref(o->s);
            free(o);
        }
        if (!c->out)
            c->out_tail = &c->out;
        else
            c->out->off += (size_t)n;
    }
}

static void rr_conn_queue(struct rr_conn *c, struct rr_shared *s)
{
    struct rr_out *o;

    if (c->dead)
        return;
    o = malloc(sizeof(*o));
    if (!o) {
        perror("rtopo-run: malloc");
        exit(1);
    }
    o->s = s;
    o->off = 0;
    o->next = NULL;
    s->refs++;
    *c->out_tail = o;
    c->out_tail = &o->next;
    rr_conn_flush(c);
}

static void rr_send_u32s(struct rr_conn *c, uint32_t type, int n,
                         uint32_t a, uint32_t b, uint32_t d)
{
    unsigned char p[12];
    struct rr_shared *s;

    rtopo__wire_put32(p, a);
    rtopo__wire_put32(p + 4, b);
    rtopo__wire_put32(p + 8, d);
    s = rr_frame(type, p, (size_t)n * 4, 0);
    rr_conn_queue(c, s);
    rr_unref(s);
}

static void rr_refuse(struct rr_job *j, struct rr_conn *c, uint32_t reason,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* answer REFUSE, then close once it is delivered (or after RR_REFUSE_MS) */
static void rr_refuse(struct rr_job *j, struct rr_conn *c, uint32_t reason,
                      const char *fmt, ...)
{
    unsigned char p[4 + 200];
    struct rr_shared *s;
    va_list ap;
    int len;

    va_start(ap, fmt);
    len = vsnprintf((char *)p + 4, sizeof(p) - 4, fmt, ap);
    va_end(ap);
    if (len < 0)
        len = 0;
    if ((size_t)len >= sizeof(p) - 4)
        len = sizeof(p) - 5;
    rr_msg(j, 0, "refused a bootstrap connection: %s", (char *)p + 4);
    rtopo__wire_put32(p, reason);
    s = rr_frame(RTOPO__WIRE_REFUSE, p, 4 + (size_t)len, 0);
    rr_conn_queue(c, s);
    rr_unref(s);
    c->state = RR_C_CLOSING;
    c->deadline = rtopo__wire_now_ms() + RR_REFUSE_MS;
}

static void rr_round_reset(struct rr_job *j)
{
    int r;

    for (r = 0; r < j->n; r++)
        j->ranks[r].arrived = 0;
    j->narrived = 0;
    rr_unref(j->result);
    j->result = NULL;
    j->seq++;
}

/*
 * From now on every round fails: a rank that died or left, ranks that
 * disagree on the size, or a client out of step leave the rendezvous with
 * no way to complete a collective that includes everybody.
 */
static void rr_round_break(struct rr_job *j, uint32_t reason, int rank)
{
    int r;

    if (!j->broken) {
        j->broken = reason;
        j->broken_rank = rank;
    }
    for (r = 0; r < j->n; r++)
        if (j->ranks[r].arrived && j->ranks[r].conn)
            rr_send_u32s(j->ranks[r].conn, RTOPO__WIRE_ABORT, 3, j->seq,
                         j->broken, (uint32_t)j->broken_rank);
    rr_round_reset(j);
}

static void rr_round_check(struct rr_job *j)
{
    int r;

    if (!j->narrived)
        return;
    if (j->narrived == j->n) {
        for (r = 0; r < j->n; r++)
            if (j->ranks[r].conn)
                rr_conn_queue(j->ranks[r].conn, j->result);
        rr_round_reset(j);
        return;
    }
    for (r = 0; r < j->n; r++)
        if (!j->ranks[r].arrived && j->ranks[r].gone) {
            rr_round_break(j, RTOPO__WIRE_R_PEER, r);
            return;
        }
}

static void rr_gather(struct rr_job *j, struct rr_conn *c,
                      const unsigned char *p, uint32_t len)
{
    struct rr_rank *rk = &j->ranks[c->rank];
    uint32_t seq = rtopo__wire_get32(p);
    size_t blob = len - 4;

    if (j->broken) {
        rr_send_u32s(c, RTOPO__WIRE_ABORT, 3, seq, j->broken,
                     (uint32_t)j->broken_rank);
        return;
    }
    /* (rr_conn_read bounds blob so that the result fits in a frame) */
    if (seq != j->seq || rk->arrived) {
        rr_msg(j, 0, "rank %d is out of step in bootstrap round %u (sent "
               "round %u); failing the rendezvous", c->rank, j->seq, seq);
        rr_round_break(j, RTOPO__WIRE_R_PROTO, c->rank);
        rr_send_u32s(c, RTOPO__WIRE_ABORT, 3, seq, j->broken,
                     (uint32_t)j->broken_rank);
        return;
    }
    if (j->narrived && blob != j->blob) {
        rr_msg(j, 0, "rank %d gave %zu bytes to bootstrap round %u, others "
               "%zu; failing the rendezvous", c->rank, blob, seq, j->blob);
        rr_round_break(j, RTOPO__WIRE_R_MISMATCH, c->rank);
        rr_send_u32s(c, RTOPO__WIRE_ABORT, 3, seq, j->broken,
                     (uint32_t)j->broken_rank);
        return;
    }
    if (!j->narrived) {
        j->blob = blob;
        j->result = rr_frame(RTOPO__WIRE_RESULT, p, 4, blob * (size_t)j->n);
    }
    memcpy(j->result->data + RTOPO__WIRE_HDR + 4 + (size_t)c->rank * blob,
           p + 4, blob);
    rk->arrived = 1;
    j->narrived++;
    rr_round_check(j);
}

static void rr_hello(struct rr_job *j, struct rr_conn *c,
                     const unsigned char *p, uint32_t len)
{
    unsigned char ch[RTOPO__WIRE_CHALLENGE_LEN];
    struct rr_shared *s;

    if (len != RTOPO__WIRE_HELLO_LEN ||
        rtopo__wire_get32(p) != RTOPO__WIRE_MAGIC ||
        rtopo__wire_get32(p + 4) != RTOPO__WIRE_VERSION) {
        rr_refuse(j, c, RTOPO__WIRE_R_PROTO, "protocol mismatch");
        return;
    }
    c->rank = (int32_t)rtopo__wire_get32(p + 8);
    c->size = (int32_t)rtopo__wire_get32(p + 12);
    memcpy(c->nonce_c, p + 16, RTOPO__WIRE_NONCE);
    if (rtopo__wire_random(c->nonce_s, RTOPO__WIRE_NONCE)) {
        rr_msg(j, 0, "getrandom: %m");
        c->dead = 1;
        return;
    }
    memcpy(ch, c->nonce_s, RTOPO__WIRE_NONCE);
    rtopo__wire_mac(j->secret, RTOPO__WIRE_ROLE_SERVER, c->rank, c->nonce_c,
                    c->nonce_s, ch + RTOPO__WIRE_NONCE);
    s = rr_frame(RTOPO__WIRE_CHALLENGE, ch, sizeof(ch), 0);
    rr_conn_queue(c, s);
    rr_unref(s);
    c->state = RR_C_AUTH;
    c->deadline = rtopo__wire_now_ms() + RR_HANDSHAKE_MS;
}

static void rr_auth(struct rr_job *j, struct rr_conn *c,
                    const unsigned char *p, uint32_t len)
{
    unsigned char mac[RTOPO__WIRE_MAC];
    struct rr_rank *rk;
    int r;

    rtopo__wire_mac(j->secret, RTOPO__WIRE_ROLE_CLIENT, c->rank, c->nonce_c,
                    c->nonce_s, mac);
    if (len != RTOPO__WIRE_MAC || !rtopo__wire_mac_equal(mac, p)) {
        rr_refuse(j, c, RTOPO__WIRE_R_AUTH, "authentication failed");
        return;
    }
    if (c->size != j->n) {
        rr_refuse(j, c, RTOPO__WIRE_R_RANK, "rank %d claims a job of %d "
                  "ranks, this job has %d", c->rank, c->size, j->n);
        return;
    }
    if (c->rank < 0 || c->rank >= j->n) {
        rr_refuse(j, c, RTOPO__WIRE_R_RANK, "rank %d out of range [0, %d)",
                  c->rank, j->n);
        return;
    }
    rk = &j->ranks[c->rank];
    /* rounds are numbered from the job's start: a rank cannot rejoin */
    if (rk->joined) {
        rr_refuse(j, c, RTOPO__WIRE_R_DUPLICATE, rk->conn ?
                  "rank %d already connected" :
                  "rank %d already joined and left this job", c->rank);
        return;
    }
    rk->joined = 1;
    rk->conn = c;
    c->state = RR_C_READY;
    j->nstrangers--;
    rr_send_u32s(c, RTOPO__WIRE_WELCOME, 1, (uint32_t)j->n, 0, 0);
    /* a rank that joins late still hears of the failures before it */
    for (r = 0; r < j->n; r++)
        if (j->ranks[r].failed)
            rr_send_u32s(c, RTOPO__WIRE_FAILED, 1, (uint32_t)r, 0, 0);
}

static void rr_conn_frame(struct rr_job *j, struct rr_conn *c, uint32_t type,
                          const unsigned char *p, uint32_t len)
{
    switch (c->state) {
    case RR_C_HELLO:
        if (type == RTOPO__WIRE_HELLO)
            rr_hello(j, c, p, len);
        else
            rr_refuse(j, c, RTOPO__WIRE_R_PROTO, "protocol mismatch");
        break;
    case RR_C_AUTH:
        if (type == RTOPO__WIRE_AUTH)
            rr_auth(j, c, p, len);
        else
            rr_refuse(j, c, RTOPO__WIRE_R_PROTO, "protocol mismatch");
        break;
    case RR_C_READY:
        if (type == RTOPO__WIRE_GATHER && len >= 4) {
            rr_gather(j, c, p, len);
        } else if (type == RTOPO__WIRE_BYE) {
            j->ranks[c->rank].bye = 1;
            c->dead = 1;
        } else {
            rr_msg(j, 0, "malformed frame (type %u) from rank %d; closing "
                   "its bootstrap connection", type, c->rank);
            c->dead = 1;
        }
        break;
    default:
        break;   /* refused: whatever else it says does not matter */
    }
}

static void rr_conn_read(struct rr_job *j, struct rr_conn *c)
{
    size_t need, cap, limit, off;
    uint32_t type, len;
    unsigned char *p;
    ssize_t n;

    /* a frame's size is checked on its header, before any buffer is sized
     * for it: see boot_wire.h */
    limit = c->state == RR_C_READY ? RTOPO__WIRE_MAX_GATHER : RTOPO__WIRE_MAX_PREAUTH;
    need = RTOPO__WIRE_HDR + (c->in_len >= RTOPO__WIRE_HDR ?
                              rtopo__wire_get32(c->in + 4) : 0);
    if (need - RTOPO__WIRE_HDR > limit)
        need = RTOPO__WIRE_HDR;
    if (c->in_cap - c->in_len < RR_READ_CHUNK || c->in_cap < need) {
        cap = c->in_cap ? c->in_cap : RR_READ_CHUNK;
        while (cap - c->in_len < RR_READ_CHUNK || cap < need)
            cap *= 2;
        if (!(p = realloc(c->in, cap))) {
            perror("rtopo-run: realloc");
            exit(1);
        }
        c->in = p;
        c->in_cap = cap;
    }
    n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (n <= 0) {
        if (c->state == RR_C_HELLO || c->state == RR_C_AUTH)
            rr_msg(j, 0, "refused a bootstrap connection: closed during the "
                   "handshake");
        c->dead = 1;
        return;
    }
    c->in_len += (size_t)n;

    off = 0;
    while (!c->dead && c->state != RR_C_CLOSING &&
           c->in_len - off >= RTOPO__WIRE_HDR) {
        type = rtopo__wire_get32(c->in + off);
        len = rtopo__wire_get32(c->in + off + 4);
        if (len > limit) {
            if (c->state == RR_C_READY) {
                rr_msg(j, 0, "frame of %u bytes from rank %d (at most %zu "
                       "expected); closing its bootstrap connection", len,
                       c->rank, limit);
                c->dead = 1;
            } else {
                rr_refuse(j, c, RTOPO__WIRE_R_PROTO, "protocol mismatch");
            }
            break;
        }
        if (c->in_len - off < RTOPO__WIRE_HDR + (size_t)len)
            break;
        rr_conn_frame(j, c, type, c->in + off + RTOPO__WIRE_HDR, len);
        off += RTOPO__WIRE_HDR + (size_t)len;
        /* the state may have changed the limit (HELLO -> READY) */
        limit = c->state == RR_C_READY ? RTOPO__WIRE_MAX_GATHER :
                RTOPO__WIRE_MAX_PREAUTH;
    }
    if (c->state == RR_C_CLOSING)
        off = c->in_len;
    memmove(c->in, c->in + off, c->in_len - off);
    c->in_len -= off;
}

/*
 * Room for one more unauthenticated connection: close the oldest one (a
 * refused connection waiting to deliver its REFUSE first).  The list is
 * newest first.  The socket is closed at once (the fd limit counts it)
 * and the slot freed; the sweep frees the rest.
 */
static void rr_evict_stranger(struct rr_job *j)
{
    struct rr_conn *c, *victim = NULL;

    for (c = j->conns; c; c = c->next) {
        if (c->state == RR_C_READY || c->dead)
            continue;
        victim = c;
        if (c->state == RR_C_CLOSING)
            break;
    }
    if (!victim)
        return;
    if (victim->state != RR_C_CLOSING)
        j->nevicted++;
    close(victim->fd);
    victim->fd = -1;
    victim->dead = 1;
    victim->evicted = 1;
    j->nstrangers--;
}

static void rr_accept(struct rr_job *j)
{
    struct rr_conn *c;
    int fd, one = 1;

    for (;;) {
        fd = accept4(j->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK &&
                errno != ECONNABORTED)
                rr_msg(j, 0, "accept: %m");
            return;
        }
        if (j->nstrangers >= j->n + RR_MAX_STRANGERS)
            rr_evict_stranger(j);
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        c = calloc(1, sizeof(*c));
        if (!c) {
            perror("rtopo-run: calloc");
            exit(1);
        }
        c->fd = fd;
        c->state = RR_C_HELLO;
        c->rank = -1;
        c->deadline = rtopo__wire_now_ms() + RR_HANDSHAKE_MS;
        c->out_tail = &c->out;
        c->next = j->conns;
        j->conns = c;
        j->nstrangers++;
    }
}

static void rr_conn_free(struct rr_job *j, struct rr_conn *c)
{
    struct rr_out *o;

    if (c->state == RR_C_READY) {
        j->ranks[c->rank].conn = NULL;
        j->ranks[c->rank].gone = 1;
    } else if (!c->evicted) {
        j->nstrangers--;
    }
    while ((o = c->out)) {
        c->out = o->next;
        rr_unref(o->s);
        free(o);
    }
    if (c->fd >= 0)
        close(c->fd);
    free(c->in);
    free(c);
}

/* dropping a rank's connection may fail a round, which may find other
 * connections dead: repeat until none is left */
static void rr_conn_sweep(struct rr_job *j)
{
    struct rr_conn **pp, *c;
    int again = 1, was_ready;

    while (again) {
        again = 0;
        for (pp = &j->conns; (c = *pp);) {
            if (!c->dead) {
                pp = &c->next;
                continue;
            }
            *pp = c->next;
            was_ready = c->state == RR_C_READY;
            rr_conn_free(j, c);
            if (was_ready) {
                rr_round_check(j);
                again = 1;
            }
        }
    }
}

/* ---- the ranks ----------------------------------------------------- */

static void rr_signal_ranks(struct rr_job *j, int sig)
{
    int r;

    for (r = 0; r < j->n; r++)
        if (j->ranks[r].running) {
            j->ranks[r].signalled = 1;
            kill(-j->ranks[r].pid, sig);   /* its process group */
        }
}

static const char *rr_signame(int sig)
{
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 32)
    static char buf[32];
    const char *abbrev = sigabbrev_np(sig);

    if (abbrev) {
        snprintf(buf, sizeof(buf), "SIG%s", abbrev);
        return buf;
    }
#endif
    return strsignal(sig);
}

/* reads what the connection holds now (a goodbye may be waiting) */
static void rr_conn_drain(struct rr_job *j, struct rr_conn *c)
{
    struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

    while (!c->dead && poll(&pfd, 1, 0) > 0)
        rr_conn_read(j, c);
}

/*
 * A rank that joined the rendezvous and exits with status 0 without
 * having said goodbye (rtopo_finalize closes the bootstrap connection with
 * BYE) left in the middle of the job: the others would wait for it until
 * their timeout.  Unless rtopo-run itself signalled it, that is a failure.
 */
static int rr_left_early(struct rr_job *j, int r)
{
    struct rr_rank *rk = &j->ranks[r];

    if (!rk->joined || rk->signalled || j->interrupts)
        return 0;
    if (!rk->bye && rk->conn)
        rr_conn_drain(j, rk->conn);
    return !rk->bye;
}

static void rr_rank_exited(struct rr_job *j, int r, int status)
{
    struct rr_rank *rk = &j->ranks[r];
    char what[96];
    int code, first, c;

    rk->running = 0;
    rk->gone = 1;
    j->nrunning--;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !rr_left_early(j, r)) {
        rr_round_check(j);
        return;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        snprintf(what, sizeof(what), "exited with status 0 without calling "
                 "rtopo_finalize");
        code = 1;
    } else if (WIFSIGNALED(status)) {
        snprintf(what, sizeof(what), "killed by signal %d (%s)%s",
                 WTERMSIG(status), rr_signame(WTERMSIG(status)),
                 WCOREDUMP(status) ? ", core dumped" : "");
        code = 128 + WTERMSIG(status);
    } else {
        snprintf(what, sizeof(what), "exited with status %d",
                 WEXITSTATUS(status));
        code = 1;
    }
    /* ranks that rtopo-run signalled were announced when it did */
    first = j->first_failed < 0 && !rk->signalled;
    if (!rk->signalled)
        rr_msg(j, !first, "rank %d (pid %d) %s", r, (int)rk->pid, what);
    rk->failed = 1;
    if (first) {
        j->first_failed = r;
        rr_set_exit(j, code);
        if (j->nrunning > 0 && !j->t_kill)
            j->t_grace = rtopo__wire_now_ms() + j->grace_ms;
    }
    /* the survivors' runtimes fail what they wait for with RTOPO_ERR_PEER */
    for (c = 0; c < j->n; c++)
        if (j->ranks[c].conn)
            rr_send_u32s(j->ranks[c].conn, RTOPO__WIRE_FAILED, 1,
                         (uint32_t)r, 0, 0);
    rr_round_check(j);
}

/* Is name the native shm transport's segment of a rank with this pid:
 * rtopo-shm-<uid>-<job>-<rank>-<nonce>-<pid> (or, from earlier releases,
 * without the nonce), uid ours? */
static int rr_shm_native(const char *name, pid_t pid)
{
    char prefix[32], suffix[24];
    size_t n = strlen(name), np, ns;
    const char *p;
    int dashes = 0;

    np = (size_t)snprintf(prefix, sizeof(prefix), "rtopo-shm-%u-", (unsigned)geteuid());
    ns = (size_t)snprintf(suffix, sizeof(suffix), "-%d", (int)pid);
    if (n <= np + ns || strncmp(name, prefix, np) || strcmp(name + n - ns, suffix))
        return 0;
    for (p = name + np; p < name + n - ns; p++) {
        if (*p == '-')
            dashes++;
        else if (*p < '0' || *p > '9')
            return 0;
    }
    return dashes == 1 || dashes == 2;
}

/*
 * libfabric's shm provider (ofi:shm) keeps the queues of an endpoint in
 * /dev/shm/<pid>:<uid>:<n> (16 MiB; n counts the endpoints of the
 * process) and removes the file only when the endpoint closes.  A rank
 * that never closed its endpoint (killed by a signal, terminated by
 * rtopo-run, ended without rtopo_finalize) leaves its files behind, and a
 * later process that gets the same pid then fails to create its own
 * (EBUSY).  The native shm transport's segment,
 * /dev/shm/rtopo-shm-<uid>-<job>-<rank>-<nonce>-<pid>, stays behind the same way
 * (the transport's next open sweeps it too, but only on this host and
 * only for its user).  Called while the rank is a zombie, not reaped
 * yet: its pid belongs to no other process, so every file named after it
 * is the rank's.  Only regular files of this user, named
 * <pid>:digits[:digits] or as above.  Returns how many it removed, and
 * their names in names[cap].
 */
static int rr_shm_sweep(pid_t pid, char *names, size_t cap)
{
    char prefix[32];
    size_t n, used = 0;
    struct dirent *d;
    struct stat st;
    const char *p;
    DIR *dir = opendir("/dev/shm");
    int removed = 0;

    names[0] = '\0';
    if (!dir)
        return 0;
    n = (size_t)snprintf(prefix, sizeof(prefix), "%d:", (int)pid);
    while ((d = readdir(dir))) {
        if (rr_shm_native(d->d_name, pid)) {
            p = "";
        } else {
            if (strncmp(d->d_name, prefix, n) || !d->d_name[n])
                continue;
            for (p = d->d_name + n; *p && ((*p >= '0' && *p <= '9') || *p == ':'); p++)
                ;
        }
        if (*p || fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
            !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
            unlinkat(dirfd(dir), d->d_name, 0))
            continue;
        if (used + strlen(d->d_name) + 16 < cap)
            used += (size_t)snprintf(names + used, cap - used, "%s/dev/shm/%s",
                                     removed ? ", " : "", d->d_name);
        else if (used + 6 < cap && !strstr(names, "..."))
            used += (size_t)snprintf(names + used, cap - used, ", ...");
        removed++;
    }
    closedir(dir);
    return removed;
}

static void rr_reap(struct rr_job *j)
{
    char names[256];
    siginfo_t si;
    pid_t pid;
    int status, r, removed;

    for (;;) {
        /* look before reaping: the pid stays the child's until waitpid */
        memset(&si, 0, sizeof(si));
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) || !si.si_pid)
            break;
        pid = si.si_pid;
        for (r = 0; r < j->n; r++)
            if (j->ranks[r].pid == pid && j->ranks[r].running)
                break;
        removed = 0;
        if (r < j->n) {
            struct rr_rank *rk = &j->ranks[r];

            if (si.si_code == CLD_EXITED && si.si_status == 0 && rk->joined &&
                !rk->bye && rk->conn)
                rr_conn_drain(j, rk->conn);   /* its goodbye may be waiting */
            /* a rank that exits 0 after rtopo_finalize has closed its
             * endpoint; one that never joined has not opened any */
            if (!(si.si_code == CLD_EXITED && si.si_status == 0 &&
                  (rk->bye || !rk->joined)))
                removed = rr_shm_sweep(pid, names, sizeof(names));
        }
        /* what waitpid would say, should it fail */
        status = si.si_code == CLD_EXITED ? (si.si_status & 0xff) << 8 :
                 (si.si_status & 0x7f) | (si.si_code == CLD_DUMPED ? 0x80 : 0);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (r < j->n)
            rr_rank_exited(j, r, status);
        if (removed)
            rr_msg(j, 1, "removed %d shared-memory region%s left by rank %d "
                   "(pid %d): %s", removed, removed == 1 ? "" : "s", r, (int)pid,
                   names);
    }
    if (j->nrunning == 0 && !j->t_drain)
        j->t_drain = rtopo__wire_now_ms() + RR_DRAIN_MS;
}

static void rr_signals(struct rr_job *j)
{
    struct signalfd_siginfo si;
    char list[256];

    while (read(j->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGCHLD) {
            rr_reap(j);
            continue;
        }
        if (j->nrunning == 0)
            continue;
        rr_running_list(j, list, sizeof(list));
        if (j->interrupts++ == 0) {
            rr_msg(j, 1, "%s: forwarding it to %s %s",
                   rr_signame((int)si.ssi_signo), rr_ranks_word(list), list);
            rr_set_exit(j, 128 + (int)si.ssi_signo);
            rr_signal_ranks(j, (int)si.ssi_signo);
            j->t_kill = rtopo__wire_now_ms() + j->grace_ms;
        } else {
            rr_msg(j, 1, "%s again: killing %s %s",
                   rr_signame((int)si.ssi_signo), rr_ranks_word(list), list);
            rr_signal_ranks(j, SIGKILL);
        }
    }
}

static void rr_timers(struct rr_job *j, int64_t now)
{
    struct rr_conn *c;
    char list[256];

    if (!j->nrunning)
        j->t_timeout = 0;
    if (j->t_timeout && now >= j->t_timeout) {
        j->t_timeout = 0;
        rr_running_list(j, list, sizeof(list));
        rr_msg(j, 0, "timeout after %g s: terminating ranks still "
               "running: %s", j->timeout_ms / 1000.0, list);
        rr_set_exit(j, 124);
        rr_signal_ranks(j, SIGTERM);
        j->t_grace = 0;
        j->t_kill = now + RR_KILL_MS;
    }
    if (j->t_grace && now >= j->t_grace) {
        j->t_grace = 0;
        if (j->nrunning > 0) {
            rr_running_list(j, list, sizeof(list));
            rr_msg(j, 1, "%s %s still running %g s after rank %d "
                   "failed: terminating %s", rr_ranks_word(list), list,
                   j->grace_ms / 1000.0, j->first_failed,
                   strpbrk(list, ",-.") ? "them" : "it");
            rr_signal_ranks(j, SIGTERM);
            j->t_kill = now + RR_KILL_MS;
        }
    }
    if (j->t_kill && now >= j->t_kill) {
        j->t_kill = 0;
        if (j->nrunning > 0) {
            rr_running_list(j, list, sizeof(list));
            rr_msg(j, 1, "killing %s %s", rr_ranks_word(list), list);
            rr_signal_ranks(j, SIGKILL);
        }
    }
    for (c = j->conns; c; c = c->next) {
        if (c->state == RR_C_READY || c->dead || now < c->deadline)
            continue;
        /* what the peer sent in time but rtopo-run has not read yet */
        if (c->state != RR_C_CLOSING) {
            rr_conn_drain(j, c);
            if (c->state == RR_C_READY || c->dead ||
                (c->state != RR_C_CLOSING && rtopo__wire_now_ms() < c->deadline))
                continue;
        }
        if (c->state != RR_C_CLOSING)
            j->nexpired++;
        c->dead = 1;
    }
    /* one line for many: a crowd of idle connections is one event */
    if (j->nexpired)
        rr_msg(j, 0, "closed %d bootstrap connection%s that did not "
               "authenticate within %g s", j->nexpired,
               j->nexpired == 1 ? "" : "s", RR_HANDSHAKE_MS / 1000.0);
    if (j->nevicted)
        rr_msg(j, 0, "closed the oldest %d of the connections waiting to "
               "authenticate to make room for new ones", j->nevicted);
    j->nexpired = j->nevicted = 0;
}

static int64_t rr_next_deadline(struct rr_job *j)
{
    int64_t t = 0;
    struct rr_conn *c;

#define RR_MIN(x) if ((x) && (!t || (x) < t)) t = (x)
    RR_MIN(j->t_timeout);
    RR_MIN(j->t_grace);
    RR_MIN(j->t_kill);
    RR_MIN(j->t_drain);
    for (c = j->conns; c; c = c->next)
        if (c->state != RR_C_READY)
            RR_MIN(c->deadline);
#undef RR_MIN
    return t;
}

static void rr_child(struct rr_job *j, int r, int out_w, int err_w)
{
    char num[32];
    int null_fd;

    sigprocmask(SIG_SETMASK, &j->oldmask, NULL);
    signal(SIGPIPE, SIG_DFL);
    setpgid(0, 0);
    /* a rank must not outlive a launcher that was killed outright: nobody
     * would reap it, forward its output or end its job */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != j->launcher)
        _exit(127);
    /* ranks run in their own process groups, away from the terminal:
     * stdin is not forwarded */
    null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0 && null_fd != 0) {
        dup2(null_fd, 0);
        close(null_fd);
    }
    dup2(out_w, 1);
    dup2(err_w, 2);

    snprintf(num, sizeof(num), "%d", r);
    setenv("RTOPO_RANK", num, 1);
    snprintf(num, sizeof(num), "%d", j->n);
    setenv("RTOPO_SIZE", num, 1);
    setenv("RTOPO_BOOT_ADDR", j->addr, 1);
    setenv("RTOPO_JOB_SECRET", j->secret, 1);
    if (j->transport)
        setenv("RTOPO_TRANSPORT", j->transport, 1);
    /* libfabric may load libpsm_infinipath / libpsm2, whose SIGSEGV, SIGBUS
     * and SIGABRT handlers print a backtrace, write a .btr file into the
     * working directory and exit(1): a crashing rank would then look like
     * a rank that exited with status 1.  Without the handlers it dies of
     * the signal (and dumps core where RLIMIT_CORE allows).  A value the
     * user set is kept. */
    setenv("IPATH_NO_BACKTRACE", "1", 0);
    setenv("HFI_NO_BACKTRACE", "1", 0);
    /* joins the rank's emulated host (RTOPO_HOST_ID at least) */
    if (rh_rank_enter(j->n, r))
        _exit(127);
    execv(j->path, j->argv);
    dprintf(2, "rtopo-run: cannot execute %s: %m\n", j->path);
    _exit(127);
}

static int rr_start(struct rr_job *j)
{
    int out[2], err[2], r;
    pid_t pid;

    for (r = 0; r < j->n; r++) {
        if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
            rr_msg(j, 0, "pipe: %m");
            return -1;
        }
        pid = fork();
        if (pid < 0) {
            rr_msg(j, 0, "fork of rank %d: %m", r);
            close(out[0]); close(out[1]); close(err[0]); close(err[1]);
            return -1;
        }
        if (pid == 0)
            rr_child(j, r, out[1], err[1]);
        /* also here: a signal must find the group even before the child
         * has run */
        setpgid(pid, pid);
        close(out[1]);
        close(err[1]);
        fcntl(out[0], F_SETFL, O_NONBLOCK);
        fcntl(err[0], F_SETFL, O_NONBLOCK);
        j->ranks[r].pid = pid;
        j->ranks[r].running = 1;
        j->ranks[r].st[0].fd = out[0];
        j->ranks[r].st[1].fd = err[0];
        j->nrunning++;
    }
    return 0;
}

/*
 * An emulated host whose link went down is lost to the job, as a node
 * that stops answering is to a resource manager: its ranks are killed,
 * and the others hear of each as of any rank that failed.
 */
static void rr_links(struct rr_job *j)
{
    char list[256];
    int h, r, first, last, count;
    size_t off;

    while ((h = rh_link_event()) >= 0) {
        first = last = -1;
        count = 0;
        for (r = 0; r < j->n; r++)
            if (rh_host_of(j->n, j->hosts, r) == h) {
                if (first < 0)
                    first = r;
                last = r;
                count++;
            }
        snprintf(list, sizeof(list), first == last ? "rank %d" : "ranks %d-%d",
                 first, last);
        if (count != last - first + 1) {   /* --map-by host: not one block */
            off = (size_t)snprintf(list, sizeof(list), "ranks");
            for (r = 0; r < j->n && off < sizeof(list); r++)
                if (rh_host_of(j->n, j->hosts, r) == h)
                    off += (size_t)snprintf(list + off, sizeof(list) - off, "%s %d",
                                            r == first ? "" : ",", r);
        }
        rr_msg(j, 0, "the link of host %s went down: killing its %s",
               rh_host_name(h), list);
        for (r = first; r >= 0 && r <= last; r++)
            if (j->ranks[r].running && rh_host_of(j->n, j->hosts, r) == h)
                kill(-j->ranks[r].pid, SIGKILL);
    }
}

static int rr_loop(struct rr_job *j)
{
    enum { RR_P_SIG, RR_P_LISTEN, RR_P_STREAM, RR_P_CONN, RR_P_LINKS };
    struct rr_pref { int kind; int rank; int which; struct rr_conn *c; };
    struct pollfd *pfd = NULL;
    struct rr_pref *ref = NULL;
    size_t cap = 0, k, need;
    struct rr_conn *c;
    int64_t now, t;
    int r, w, n, open_streams;

    for (;;) {
        now = rtopo__wire_now_ms();
        rr_timers(j, now);
        rr_conn_sweep(j);
        open_streams = 0;
        for (r = 0; r < j->n; r++)
            open_streams += (j->ranks[r].st[0].fd >= 0) +
                            (j->ranks[r].st[1].fd >= 0);
        /* the last rank is gone: its output (and that of any child it
         * left behind, for a short while) is all that remains */
        if (j->nrunning == 0 && (!open_streams || now >= j->t_drain))
            break;

        need = 3 + (size_t)open_streams;
        for (c = j->conns; c; c = c->next)
            need++;
        if (need > cap) {
            cap = need * 2;
            pfd = realloc(pfd, cap * sizeof(*pfd));
            ref = realloc(ref, cap * sizeof(*ref));
            if (!pfd || !ref) {
                perror("rtopo-run: realloc");
                exit(1);
            }
        }
        k = 0;
        pfd[k] = (struct pollfd){ .fd = j->sig_fd, .events = POLLIN };
        ref[k++] = (struct rr_pref){ .kind = RR_P_SIG };
        if (j->nrunning > 0) {
            pfd[k] = (struct pollfd){ .fd = j->listen_fd, .events = POLLIN };
            ref[k++] = (struct rr_pref){ .kind = RR_P_LISTEN };
            if (rh_link_fd() >= 0) {
                pfd[k] = (struct pollfd){ .fd = rh_link_fd(), .events = POLLIN };
                ref[k++] = (struct rr_pref){ .kind = RR_P_LINKS };
            }
        }
        for (r = 0; r < j->n; r++)
            for (w = 0; w < 2; w++)
                if (j->ranks[r].st[w].fd >= 0) {
                    pfd[k] = (struct pollfd){ .fd = j->ranks[r].st[w].fd,
                                              .events = POLLIN };
                    ref[k++] = (struct rr_pref){ .kind = RR_P_STREAM,
                                                 .rank = r, .which = w };
                }
        for (c = j->conns; c; c = c->next) {
            pfd[k] = (struct pollfd){ .fd = c->fd, .events = POLLIN |
                                      (c->out ? POLLOUT : 0) };
            ref[k++] = (struct rr_pref){ .kind = RR_P_CONN, .c = c };
        }

        t = rr_next_deadline(j);
        n = poll(pfd, k, t ? (int)(t > now ? t - now : 0) : -1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rr_msg(j, 0, "poll: %m");
            return -1;
        }
        for (size_t i = 0; i < k && n > 0; i++) {
            if (!pfd[i].revents)
                continue;
            n--;
            switch (ref[i].kind) {
            case RR_P_SIG:
                rr_signals(j);
                break;
            case RR_P_LISTEN:
                rr_accept(j);
                break;
            case RR_P_LINKS:
                rr_links(j);
                break;
            case RR_P_STREAM:
                rr_stream_read(j, ref[i].rank, ref[i].which);
                break;
            case RR_P_CONN:
                c = ref[i].c;
                if (c->dead)   /* evicted or failed earlier in this pass */
                    break;
                if (pfd[i].revents & POLLOUT)
                    rr_conn_flush(c);
                if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
                    rr_conn_read(j, c);
                /* refused and told so: wait for the peer to close, so that
                 * the REFUSE is not lost to a reset */
                if (c->state == RR_C_CLOSING && !c->out && !c->shut) {
                    shutdown(c->fd, SHUT_WR);
                    c->shut = 1;
                }
                break;
            }
        }
        fflush(stdout);
        fflush(stderr);
    }
    free(pfd);
    free(ref);
    return 0;
}

/* ---- setup --------------------------------------------------------- */

static int rr_listen(struct rr_job *j)
{
    /* loopback, or the bridge of the emulated hosts (run_hosts.c) */
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_addr.s_addr = rh_boot_addr() };
    socklen_t len = sizeof(sa);
    char ip[INET_ADDRSTRLEN];

    j->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC |
                          SOCK_NONBLOCK, 0);
    if (j->listen_fd < 0) {
        rr_msg(j, 0, "socket: %m");
        return -1;
    }
    if (bind(j->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
        listen(j->listen_fd, SOMAXCONN) ||
        getsockname(j->listen_fd, (struct sockaddr *)&sa, &len)) {
        rr_msg(j, 0, "listening on %s: %m",
               inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip)));
        return -1;
    }
    snprintf(j->addr, sizeof(j->addr), "%s:%u",
             inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip)),
             (unsigned)ntohs(sa.sin_port));
    return 0;
}

static int rr_signals_setup(struct rr_job *j)
{
    sigset_t mask;

    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &mask, &j->oldmask)) {
        rr_msg(j, 0, "sigprocmask: %m");
        return -1;
    }
    j->sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (j->sig_fd < 0) {
        rr_msg(j, 0, "signalfd: %m");
        return -1;
    }
    /* a reader of our output that goes away must not kill the job */
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

/* each rank needs two pipes and a socket */
static int rr_fd_limit(struct rr_job *j)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)j->n * 3 + RR_MAX_STRANGERS + 32;

    if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
        rr_msg(j, 0, "%d rank%s need%s %lu open files, the limit is %lu",
               j->n, j->n == 1 ? "" : "s", j->n == 1 ? "s" : "", (unsigned long)need, (unsigned long)rl.rlim_max);
        return -1;
    }
    rl.rlim_cur = need;
    if (setrlimit(RLIMIT_NOFILE, &rl)) {
        rr_msg(j, 0, "raising the open file limit to %lu: %m",
               (unsigned long)need);
        return -1;
    }
    return 0;
}

/* PROG as execvp would find it, resolved once rather than in every rank */
static char *rr_find_program(const char *prog)
{
    const char *path = getenv("PATH"), *p, *end;
    char *full;
    size_t len;

    if (strchr(prog, '/'))
        return access(prog, X_OK) ? NULL : strdup(prog);
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (p = path; ; p = end + 1) {
        end = strchr(p, ':');
        len = end ? (size_t)(end - p) : strlen(p);
        full = malloc(len + strlen(prog) + 2);
        if (!full)
            return NULL;
        snprintf(full, len + strlen(prog) + 2, "%.*s%s%s", (int)len, p,
                 len ? "/" : "", prog);
        if (!access(full, X_OK))
            return full;
        free(full);
        if (!end)
            return NULL;
    }
}

static void rr_cleanup(struct rr_job *j)
{
    struct rr_conn *c;
    int r, w;

    while ((c = j->conns)) {
        j->conns = c->next;
        rr_conn_free(j, c);
    }
    for (r = 0; r < j->n; r++)
        for (w = 0; w < 2; w++) {
            if (j->ranks[r].st[w].fd >= 0)
                close(j->ranks[r].st[w].fd);
            free(j->ranks[r].st[w].buf);
        }
    rr_unref(j->result);
    free(j->ranks);
    free(j->path);
    close(j->listen_fd);
    close(j->sig_fd);
}

static void rr_usage(FILE *f)
{
    fputs("usage: rtopo-run -n N [--transport T] [--hosts H [HOST OPTIONS]]\n"
          "                 [--timeout SEC] [--grace SEC] [--quiet] PROG [ARGS...]\n"
          "       rtopo-run --hosts H [HOST OPTIONS] --exec-launcher LAUNCHER [ARGS...]\n"
          "  -n, --np N         start N ranks\n"
          "      --transport T  export RTOPO_TRANSPORT=T (ofi:rxm, ofi:tcp, "
          "ofi:shm, verbs, ...)\n"
          "      --hosts H      spread the ranks over H emulated hosts (each in\n"
          "                     namespaces of its own where permitted)\n"
          "      --link-rate RATE   limit each host's link (tc tbf; 100mbit, 1gbit)\n"
          "      --host-link H:RATE limit the link of host H to RATE\n"
          "      --map-by slot|host ranks to hosts in blocks (slot, the default)\n"
          "                     or round robin (host)\n"
          "      --hosts-info FILE  write the pids of the job's namespaces and ranks\n"
          "      --no-netns     emulate the hosts by RTOPO_HOST_ID only\n"
          "      --exec-launcher    with --hosts: run PROG (another launcher, such as\n"
          "                     mpirun) on the hosts' head node instead of ranks\n"
          "      --timeout SEC  end the job after SEC seconds (exit 124)\n"
          "      --grace SEC    after a rank fails, wait SEC seconds for the "
          "others (5)\n"
          "  -q, --quiet        only the ranks' output and fatal messages\n"
          "  -h, --help         this text\n"
          "  -V, --version      print the version\n", f);
}

/* SEC: decimal digits with an optional fraction ("2", "0.5", "10."), at
 * most 10^7 s; nan, inf, signs, exponents and hexadecimal are refused.
 * min_ms: the least value allowed, in milliseconds after rounding. */
static int rr_seconds(const char *opt, const char *s, int64_t min_ms, int64_t *ms)
{
    const char *t;
    int digits = 0, dots = 0;
    char *end;
    double v;

    for (t = s; *t; t++) {
        if (*t >= '0' && *t <= '9')
            digits++;
        else if (*t == '.' && !dots)
            dots++;
        else
            break;
    }
    if (*t || !digits) {
        fprintf(stderr, "rtopo-run: %s '%s' is not a number of seconds (decimal, "
                "for instance 30 or 0.5)\n", opt, s);
        return -1;
    }
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end || !(v >= 0 && v <= 1e7) ||
        (int64_t)(v * 1000 + 0.5) < min_ms) {
        fprintf(stderr, "rtopo-run: %s '%s' is out of range (%g to 10000000 seconds)\n",
                opt, s, min_ms / 1000.0);
        return -1;
    }
    *ms = (int64_t)(v * 1000 + 0.5);
    return 0;
}

static int rr_int(const char *opt, const char *s, int lo, int hi, int *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "rtopo-run: %s '%s' is not an integer in [%d, %d]\n",
                opt, s, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* getopt_long returned '?': arg is the argument it last consumed, optopt
 * the option character (0 for an unknown long option) */
static void rr_bad_option(const struct option *opts, const char *arg, int optopt)
{
    const char *eq = strchr(arg, '=');
    int i;

    if (!strncmp(arg, "--", 2) && eq && optopt)
        for (i = 0; opts[i].name; i++)
            if (opts[i].val == optopt && strlen(opts[i].name) == (size_t)(eq - arg - 2) &&
                !strncmp(opts[i].name, arg + 2, (size_t)(eq - arg - 2))) {
                fprintf(stderr, "rtopo-run: --%s takes no value\n", opts[i].name);
                return;
            }
    if (optopt)
        fprintf(stderr, "rtopo-run: unknown option '-%c'\n", optopt);
    else
        fprintf(stderr, "rtopo-run: unknown option '%s'\n", arg);
}

static int rr_transport_ok(const char *t)
{
    return !strcmp(t, "auto") || !strcmp(t, "verbs") || !strcmp(t, "ofi") ||
           !strcmp(t, "shm") || (!strncmp(t, "ofi:", 4) && t[4]);
}

/* the options of the emulated hosts, once all are known; nargs: the
 * words after the options */
static int rr_hosts_args(struct rr_job *j, int nargs)
{
    const char *need = NULL;

    if (!j->hosts || j->ho.no_netns)
        need = j->ho.link_rate ? "--link-rate" : j->ho.host_link ? "--host-link" :
               j->exec_launcher ? "--exec-launcher" : NULL;
    if (need) {
        fprintf(stderr, "rtopo-run: %s needs --hosts H%s\n", need,
                j->hosts ? " in namespaces, not --no-netns" : "");
        return -1;
    }
    if (!j->hosts && j->map_by) {
        fprintf(stderr, "rtopo-run: --map-by needs --hosts H\n");
        return -1;
    }
    if (!j->hosts && j->ho.no_netns) {
        fprintf(stderr, "rtopo-run: --no-netns needs --hosts H\n");
        return -1;
    }
    if (j->ho.host_link && rh_host_link_ok(j->ho.host_link, j->hosts))
        return -1;
    if (j->exec_launcher && (j->n || !nargs)) {
        fprintf(stderr, "rtopo-run: %s\n", j->n ? "--exec-launcher starts no "
                "ranks itself: -n N belongs to the launcher's command" :
                "--exec-launcher: no launcher command");
        return -1;
    }
    return 0;
}

/* tells run_hosts.c the ranks' pids (for --hosts-info) */
static void rr_hosts_started(struct rr_job *j)
{
    pid_t *pids = calloc((size_t)j->n, sizeof(*pids));
    int r;

    for (r = 0; pids && r < j->n; r++)
        pids[r] = j->ranks[r].pid;
    rh_started(j->n, pids);
    free(pids);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "np",        required_argument, NULL, 'n' },
        { "transport", required_argument, NULL, 't' },
        { "hosts",     required_argument, NULL, 'H' },
        { "link-rate", required_argument, NULL, 'L' },
        { "host-link", required_argument, NULL, 'K' },
        { "hosts-info", required_argument, NULL, 'I' },
        { "map-by",    required_argument, NULL, 'M' },
        { "no-netns",  no_argument,       NULL, 'N' },
        { "exec-launcher", no_argument,   NULL, 'X' },
        { "timeout",   required_argument, NULL, 'T' },
        { "grace",     required_argument, NULL, 'g' },
        { "quiet",     no_argument,       NULL, 'q' },
        { "help",      no_argument,       NULL, 'h' },
        { "version",   no_argument,       NULL, 'V' },
        { NULL, 0, NULL, 0 }
    };
    struct rr_job job = { .grace_ms = 5000, .first_failed = -1,
                          .listen_fd = -1, .sig_fd = -1 };
    struct rr_job *j = &job;
    unsigned char key[32];
    unsigned char seen[128] = { 0 };
    int opt, r;

    opterr = 0;   /* the messages below name the program as rtopo-run */
    while ((opt = getopt_long(argc, argv, "+:n:qhV", opts, NULL)) != -1) {
        /* an option given twice is a mistake, not "the last one wins" */
        if (opt > 0 && opt < 128 && strchr("ntHTgqM", opt) && seen[opt]++) {
            for (r = 0; opts[r].val != opt; r++)
                ;
            fprintf(stderr, "rtopo-run: --%s%s given more than once\n", opts[r].name,
                    opt == 'n' ? " (-n)" : opt == 'q' ? " (-q)" : "");
            rr_usage(stderr);
            return 2;
        }
        switch (opt) {
        case 'n':
            if (rr_int("-n", optarg, 1, RR_MAX_RANKS, &j->n))
                return 2;
            break;
        case 't':
            if (!rr_transport_ok(optarg)) {
                fprintf(stderr, "rtopo-run: unknown transport '%s' (ofi:rxm, "
                        "ofi:tcp, ofi:shm, ofi:<provider>, verbs, shm, auto)\n",
                        optarg);
                return 2;
            }
            j->transport = optarg;
            break;
        case 'H':
            if (rr_int("--hosts", optarg, 1, RR_MAX_RANKS, &j->hosts))
                return 2;
            break;
        case 'L':
            if (rh_rate_ok("--link-rate", optarg))
                return 2;
            j->ho.link_rate = optarg;
            break;
        case 'K':
            j->ho.host_link = optarg;   /* checked once --hosts is known */
            break;
        case 'I':
            j->ho.info_file = optarg;
            break;
        case 'M':
            if (rh_map_by(optarg))
                return 2;
            j->map_by = optarg;
            break;
        case 'N':
            j->ho.no_netns = 1;
            break;
        case 'X':
            j->exec_launcher = 1;
            break;
        case 'T':
            /* at least 1 ms: a timeout that rounds to 0 would be none */
            if (rr_seconds("--timeout", optarg, 1, &j->timeout_ms))
                return 2;
            break;
        case 'g':
            if (rr_seconds("--grace", optarg, 0, &j->grace_ms))
                return 2;
            break;
        case 'q':
            j->quiet = 1;
            break;
        case 'h':
            rr_usage(stdout);
            return 0;
        case 'V':
            printf("rtopo-run (rtopo) %s\n", PACKAGE_VERSION);
            return 0;
        case ':':
            fprintf(stderr, "rtopo-run: %s needs a value\n", argv[optind - 1]);
            rr_usage(stderr);
            return 2;
        default:
            rr_bad_option(opts, argv[optind - 1], optopt);
            rr_usage(stderr);
            return 2;
        }
    }
    if (rr_hosts_args(j, argc - optind))
        return 2;
    if (j->exec_launcher) {
        j->ho.hosts = j->hosts;
        j->ho.quiet = j->quiet;
        if (rh_setup(&j->ho) != 1) {
            fprintf(stderr, "rtopo-run: --exec-launcher needs the hosts in "
                    "namespaces\n");
            return 1;
        }
        rh_started(0, NULL);
        r = rh_exec_launcher(argv + optind);
        rh_cleanup();
        return r;
    }
    if (!j->n || optind >= argc) {
        fprintf(stderr, "rtopo-run: %s\n", !j->n ? "-n N is required" :
                "no program to run");
        rr_usage(stderr);
        return 2;
    }
    if (j->hosts > j->n) {
        fprintf(stderr, "rtopo-run: --hosts %d is more than the %d rank%s\n",
                j->hosts, j->n, j->n == 1 ? "" : "s");
        rr_usage(stderr);
        return 2;
    }
    j->argv = argv + optind;
    j->path = rr_find_program(j->argv[0]);
    if (!j->path) {
        fprintf(stderr, "rtopo-run: %s: command not found or not "
                "executable\n", j->argv[0]);
        return 127;
    }
    j->ranks = calloc((size_t)j->n, sizeof(*j->ranks));
    if (!j->ranks) {
        perror("rtopo-run: calloc");
        return 1;
    }
    for (r = 0; r < j->n; r++)
        j->ranks[r].st[0].fd = j->ranks[r].st[1].fd = -1;
    if (rtopo__wire_random(key, sizeof(key))) {
        rr_msg(j, 0, "getrandom: %m");
        return 1;
    }
    rtopo__wire_hex(key, sizeof(key), j->secret);
    memset(key, 0, sizeof(key));
    j->seq = 1;
    j->launcher = getpid();

    j->ho.hosts = j->hosts;
    j->ho.quiet = j->quiet;
    if (rh_setup(&j->ho) < 0)
        return 1;
    if (rr_fd_limit(j) || rr_listen(j) || rr_signals_setup(j))
        return 1;
    if (j->timeout_ms)
        j->t_timeout = rtopo__wire_now_ms() + j->timeout_ms;
    if (rr_start(j)) {
        /* the ranks already started cannot make up a job */
        rr_set_exit(j, 1);
        rr_signal_ranks(j, SIGKILL);
    }
    rr_hosts_started(j);
    if (rr_loop(j))
        rr_set_exit(j, 1);
    rr_cleanup(j);
    rh_cleanup();
    return j->exit_code;
}
