/*
 * tl_rcache_close.c - no write lands through a registration the cache
 * dropped (runtime/mem.c), through the ops table and the cache itself.
 *
 * usage: tl_rcache_close TRANSPORT        (shm, ofi:tcp, multi:ofi:tcp...)
 *
 * For each case a fresh pair of processes: rank 0, the target, holds the
 * transport and the registration cache (mem.c, with its memory monitor)
 * in a context of its own; rank 1 writes into it with the keys it is
 * given over a socketpair.  The target registers a buffer through the
 * cache for an operation, hands the key to the writer, which writes
 * into it once (the data must land), then
 *   unmap   the operation ends, the buffer is unmapped and new memory
 *           is mapped at the same addresses (MAP_FIXED_NOREPLACE), as
 *           a program that frees and allocates again would;
 *   failed  a second operation holds the same registration, and the
 *           first one fails (rtopo__mem_op_close): the caller has the
 *           buffer back;
 * and the writer writes again with the old key, with an immediate.  The
 * target's memory must keep the bytes it put there, no immediate may
 * reach it, and the write must fail at the writer with an error
 * completion (or call); libfabric's socket providers complete a write
 * once sent, before the target refused it, so there the write must only
 * end (no hang).  Each case at 4 KiB (shm: through the ring) and
 * 1 MiB (shm: cross-memory attach).  One line per check, then
 * "N passed, N failed".  Every wait is bounded (TMO_MS) and sleeps in
 * the transport's wait() or poll(2) between looks.
 * Exit: 0 all passed, 1 a check failed, 77 transport not usable here or
 * no memory monitor (userfaultfd refused): no cache to test.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "rtopo.h"
#include "log.h"
#include "tl.h"
#include "ctx.h"
#include "mem.h"
#include "memmon.h"
#include "tl_out.h"
#include "tl_oob.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define TMO_MS     10000
#define CTRL_SIZE  256
#define NEV        64
#define OLD_BYTE   0x11      /* the first, legitimate write */
#define NEW_BYTE   0x33      /* the owner's bytes afterwards */
#define LATE_BYTE  0x5a      /* the late write */
#define COOKIE1    ((void *)(uintptr_t)0x1001)
#define COOKIE2    ((void *)(uintptr_t)0x1002)

enum { CASE_UNMAP, CASE_FAILED };

struct counters {
    int pass, fail, skip;
};

static struct counters *cnt;
static const struct rtopo__tl_ops *ops;
static struct rtopo__tl *tl;
static const char *transport;
static int rank, fd = -1;
static rtopo__tl_event_t evq[NEV];
static int nev, nimm;

static int check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int check(int ok, const char *fmt, ...)
{
    char msg[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    __atomic_add_fetch(ok ? &cnt->pass : &cnt->fail, 1, __ATOMIC_SEQ_CST);
    out("%s [r%d] %s", ok ? "PASS" : "FAIL", rank, msg);
    return ok;
}

/* one poll (after a wait of wait_ms when nothing was ready); completions
 * and immediates are kept, messages counted out */
static void pump(int wait_ms)
{
    rtopo__tl_event_t ev[16];
    int n, i;

    n = ops->poll(tl, ev, 16);
    if (n == 0 && wait_ms > 0) {
        ops->wait(tl, wait_ms);
        n = ops->poll(tl, ev, 16);
    }
    for (i = 0; i < n; i++) {
        if (ev[i].type == RTOPO__TL_EV_IMM)
            nimm++;
        if (ev[i].type == RTOPO__TL_EV_ERROR)
            out("info [r%d] TL_EV_ERROR peer %d ctx %p status %s: %s", rank, ev[i].peer,
                ev[i].ctx, rtopo_err_name(ev[i].status), ev[i].msg);
        if (nev < NEV && ev[i].type != RTOPO__TL_EV_RECV)
            evq[nev++] = ev[i];
    }
}

/* the completion of the write with ctx c: 1 found (in *ev), 0 timed out */
static int take(void *c, int tmo_ms, rtopo__tl_event_t *ev)
{
    double end = now_ms() + tmo_ms;
    int i;

    for (;;) {
        for (i = 0; i < nev; i++)
            if (evq[i].ctx == c && (evq[i].type == RTOPO__TL_EV_WRITE_DONE ||
                                    evq[i].type == RTOPO__TL_EV_ERROR)) {
                *ev = evq[i];
                memmove(&evq[i], &evq[i + 1], (size_t)(nev - i - 1) * sizeof(*evq));
                nev--;
                return 1;
            }
        if (now_ms() > end)
            return 0;
        pump(5);
    }
}

static void pump1(void)
{
    pump(1);
}

static void pump0(void)
{
    pump(0);
}

static int oob_send(const void *buf, size_t len)
{
    return tl_oob_send(fd, buf, len);
}

/* reads len bytes from the peer, the transport progressing meanwhile
 * (targets move data only inside poll/wait); 0, -1 closed, -2 timeout */
static int oob_recv(void *buf, size_t len)
{
    int rc = tl_oob_recv(fd, buf, len, TMO_MS, tl ? pump0 : NULL);

    if (rc == -2)
        out("FAIL [r%d] out-of-band: timeout", rank);
    return rc;
}

static int oob_sync(uint32_t tag)
{
    uint32_t got = 0;

    return oob_send(&tag, sizeof(tag)) || oob_recv(&got, sizeof(got)) || got != tag ? -1 : 0;
}

static int setup(void)
{
    rtopo__tl_params_t params = { transport, rank, 2, TMO_MS, CTRL_SIZE };
    unsigned char blob[RTOPO__TL_ADDR_MAX];
    size_t len = sizeof(blob);
    uint64_t token = 0x746f6b656e00ull + (uint64_t)rank;
    int rc, fds[2] = { fd, fd };

    if ((rc = ops->open(&params, &tl))) {
        out("FAIL [r%d] open %s: %s", rank, transport, rtopo_last_error());
        tl = NULL;
        return -1;
    }
    if (ops->addr_get(tl, blob, &len))
        return -1;
    if (RTOPO__TL_HAS(ops, set_auth) && ops->set_auth(tl, rank, &token, 8))
        return -1;
    if ((rc = tl_oob_connect(ops, tl, rank, 2, fds, TMO_MS, blob, len, token, NULL, NULL,
                             0))) {
        out("FAIL [r%d] %s", rank, rc < 0 ? "address exchange" : "connect");
        return -1;
    }
    return oob_sync(1);
}

/* the first byte of b[0, len) that is not v, or -1 */
static long differs(const unsigned char *b, size_t len, unsigned char v)
{
    size_t i;

    for (i = 0; i < len; i++)
        if (b[i] != v)
            return (long)i;
    return -1;
}

/* ---- the target ------------------------------------------------------------ */

static void target(int what, size_t size)
{
    const char *name = what == CASE_UNMAP ? "unmap" : "failed";
    rtopo_ctx_t *ctx = calloc(1, sizeof(*ctx));
    struct rtopo_mem *mem, *mem2 = NULL;
    unsigned char *buf, *p;
    int32_t verdict;
    long bad;
    double end;
    int imm0;

    ctx->tlops = ops;
    ctx->tl = tl;
    ops->query(tl, &ctx->tlattr);
    ctx->params.reg_cache = "auto";
    ctx->reg_op_min = 1;
    pthread_mutex_init(&ctx->rcache.lock, NULL);
    rtopo__rcache_init(ctx);
    if (!ctx->rcache.mon) {
        out("SKIP [r0] no memory monitor here (userfaultfd refused): no cache");
        cnt->skip++;
        oob_send("S", 1);
        return;
    }
    oob_send("G", 1);
    buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        _exit(2);
    memset(buf, 0, size);
    mem = rtopo__mem_op_get(ctx, buf, size, 1);
    if (!check(mem && mem->cached == 1, "%s, %zu B: the buffer is registered through the "
               "cache", name, size))
        _exit(1);
    if (what == CASE_FAILED) {
        mem2 = rtopo__mem_op_get(ctx, buf, size, 1);
        if (!check(mem2 == mem && mem->refs == 2, "%s, %zu B: a second operation holds "
                   "the same registration", name, size))
            _exit(1);
    }
    oob_send(&mem->rkey, sizeof(mem->rkey));
    /* the legitimate write, with its immediate */
    end = now_ms() + TMO_MS;
    while (nimm == 0 && now_ms() < end)
        pump(5);
    check(nimm == 1 && differs(buf, size, OLD_BYTE) < 0, "%s, %zu B: the operation's "
          "write landed", name, size);
    if (what == CASE_UNMAP) {
        rtopo__mem_op_put(mem);
        munmap(buf, size);
        p = mmap(buf, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (!check(p == buf, "%s, %zu B: new memory mapped at the same address %p (%p)",
                   name, size, (void *)buf, (void *)p))
            _exit(1);
    } else {
        rtopo__mem_op_close(mem);   /* the first operation failed */
        p = buf;
    }
    memset(p, NEW_BYTE, size);
    /* what the engine does before it looks a registration up */
    rtopo__memmon_sync(ctx->rcache.mon);
    imm0 = nimm;
    oob_sync(2);
    /* the writer's verdict, then a while for anything still under way */
    if (oob_recv(&verdict, sizeof(verdict)))
        _exit(1);
    end = now_ms() + 300;
    while (now_ms() < end)
        pump(10);
    bad = differs(p, size, NEW_BYTE);
    check(bad < 0, "%s, %zu B: the late write left the owner's memory untouched%s", name,
          size, bad < 0 ? "" : " (it was written)");
    check(nimm == imm0, "%s, %zu B: no immediate of the late write reached the target",
          name, size);
    if (mem2)
        rtopo__mem_op_put(mem2);
    if (what == CASE_UNMAP)
        munmap(p, size);
    else
        munmap(buf, size);
    oob_sync(3);
    rtopo__rcache_fini(ctx);
    pthread_mutex_destroy(&ctx->rcache.lock);
    free(ctx);
}

/* ---- the writer ------------------------------------------------------------ */

/* libfabric's socket providers (tcp, under rxm too) complete a write when
 * its data has left: a write the target refuses (it drops the connection
 * it came on, and the provider opens a new one) has completed already.
 * (The composite backend, "shm+ofi:net", reaches the other rank of the
 * pair through its network backend.) */
static int sent_only(const rtopo__tl_attr_t *a)
{
    return strstr(a->provider, "ofi:tcp") || strstr(a->provider, "ofi:net");
}

static void writer(int what, size_t size)
{
    const char *name = what == CASE_UNMAP ? "unmap" : "failed";
    unsigned char *src = aligned_alloc(4096, size);
    rtopo__tl_event_t ev;
    rtopo__tl_attr_t attr;
    rtopo__rkey_t rk;
    struct rtopo__tl_mr *smr = NULL;
    int32_t verdict;
    char go;
    int rc;

    if (oob_recv(&go, 1))
        _exit(1);
    if (go == 'S')
        return;
    ops->query(tl, &attr);
    if (!src || oob_recv(&rk, sizeof(rk)))
        _exit(1);
    if (ops->mem_reg(tl, src, size, RTOPO__TL_ACCESS_LOCAL, &smr))
        _exit(1);
    memset(src, OLD_BYTE, size);
    rc = tl_write_busy(ops, tl, 0, src, size, smr, &rk, 0, 1, RTOPO__TL_IMM, COOKIE1, TMO_MS,
                       pump1);
    check(rc == 0 && take(COOKIE1, TMO_MS, &ev) && ev.type == RTOPO__TL_EV_WRITE_DONE,
          "%s, %zu B: the operation's write completed", name, size);
    if (oob_sync(2))
        _exit(1);
    memset(src, LATE_BYTE, size);
    rc = tl_write_busy(ops, tl, 0, src, size, smr, &rk, 0, 2, RTOPO__TL_IMM, COOKIE2, TMO_MS,
                       pump1);
    if (rc == 0) {
        if (!take(COOKIE2, TMO_MS, &ev))
            rc = RTOPO_ERR_TIMEOUT;
        else if (ev.type == RTOPO__TL_EV_ERROR)
            rc = ev.status ? ev.status : RTOPO_ERR_TRANSPORT;
    }
    if (sent_only(&attr))
        /* the target refuses it all the same (checked there), but the
         * writer's completion came when the data left */
        check(rc != RTOPO_ERR_TIMEOUT, "%s, %zu B: the late write ended at its writer "
              "(%s; %s completes a write once sent: the refusal at the target is not "
              "reported back)", name, size, rc ? rtopo_err_name(rc) : "completed",
              attr.provider);
    else
        check(rc < 0 && rc != RTOPO_ERR_TIMEOUT, "%s, %zu B: the late write failed at "
              "its writer: %s", name, size, rc == RTOPO_ERR_TIMEOUT ? "no completion" :
              rc ? rtopo_err_name(rc) : "completed, it was taken in");
    verdict = rc;
    oob_send(&verdict, sizeof(verdict));
    oob_sync(3);
    ops->mem_dereg(smr);
    free(src);
}

static int run(int what, size_t size)
{
    int sp[2], st = 0, i, bad = 0;
    pid_t pid[2];

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp)) {
        perror("socketpair");
        return 1;
    }
    for (i = 0; i < 2; i++) {
        pid[i] = fork();
        if (pid[i] < 0) {
            perror("fork");
            return 1;
        }
        if (pid[i] == 0) {
            rank = i;
            rtopo__log_rank = i;
            fd = sp[i];
            close(sp[1 - i]);
            alarm(60);
            if (setup())
                _exit(1);
            if (i == 0)
                target(what, size);
            else
                writer(what, size);
            ops->close(tl);
            _exit(0);
        }
    }
    close(sp[0]);
    close(sp[1]);
    for (i = 0; i < 2; i++) {
        if (waitpid(pid[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
            out("FAIL rank %d %s", i, WIFSIGNALED(st) ? "killed by a signal" : "failed");
            cnt->fail++;
            bad = 1;
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = { 4096, (size_t)1 << 20 };
    int what;
    unsigned s;

    if (argc != 2) {
        fprintf(stderr, "usage: %s TRANSPORT (shm, ofi:tcp, multi:ofi:tcp...)\n", argv[0]);
        return 99;
    }
    transport = argv[1];
    rtopo__log_set_level(getenv("RTOPO_LOG_LEVEL"));
    ops = rtopo__tl_find(transport);
    if (!ops || !ops->available || !ops->available(transport)) {
        out("SKIP %s: %s", transport, ops ? "not available here" : "not built");
        return 77;
    }
    cnt = mmap(NULL, sizeof(*cnt), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (cnt == MAP_FAILED)
        return 99;
    signal(SIGPIPE, SIG_IGN);
    for (what = CASE_UNMAP; what <= CASE_FAILED; what++)
        for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            out("== %s: %s, %zu bytes", transport, what == CASE_UNMAP ? "unmap" : "failed",
                sizes[s]);
            run(what, sizes[s]);
        }
    out("%d passed, %d failed", cnt->pass, cnt->fail);
    if (cnt->skip && !cnt->fail)
        return 77;
    return cnt->fail || cnt->pass == 0 ? 1 : 0;
}
