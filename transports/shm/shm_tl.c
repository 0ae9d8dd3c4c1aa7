/*
 * shm_tl.c - native shared-memory backend of the transport ops table.
 *
 * For ranks on one Linux host ("shm").  Each process owns one POSIX
 * shared-memory segment, /dev/shm/rtopo-shm-<uid>-<job>-<rank>-<nonce>-<pid>
 * (mode 0600; job: the launcher's pid; nonce: 48 random bits, so that no
 * other user can create the name first; drawn again if the name exists),
 * holding
 *  - a header: identity, the doorbell its owner sleeps on, and the table
 *    of the owner's regions open to remote writes;
 *  - one receive ring per possible sender: receiver-owned, one producer,
 *    one consumer.
 * A sender maps the receiver's header and its own ring there when it
 * connects, and signs in; the receiver finds its senders in its header,
 * so it receives from ranks it never connected to.
 *
 * Rings hold variable-length records, 16-byte aligned, each led by a tag
 * that mixes the record's position with a random key of the ring: the
 * receiver takes a record only when the tag at its position is the one
 * it expects, so bytes of an earlier lap never pass for a record.
 * Control messages are copied in and handed out in place, valid until
 * the next poll, which releases their space.
 *
 * Writes are single copies by cross-memory attach (process_vm_writev)
 * into the target's address space, once the remote key has been checked
 * against the target's region table.  The immediate follows as a ring
 * record, so the target sees it only after the data.  Every call has
 * finished its work on return; local completions are queued and come out
 * of the next poll.
 *
 * Blocking: wait() sleeps on a futex in the owner's header; senders bump
 * and wake it only when the owner said it sleeps.  A caller that sleeps
 * on shm beside another backend (the composite, transports/multi) sleeps
 * in poll(2) on the owner's eventfd instead (wait_fd()): the header says
 * which, and a sender that finds the owner asleep on its eventfd writes
 * to the eventfd, a copy of which it took from the owner by
 * pidfd_getfd(2) (the same permission as cross-memory attach).  Each owner holds an
 * exclusive flock on its segment for its life: a peer whose lock is free
 * has gone, and so has the owner of a stale segment.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include "rtopo.h"
#include "clock.h"
#include "cpus.h"
#include "log.h"
#include "tl.h"

#define SHM_MAGIC       0x31304d5348544f52ull   /* "ROTHSM01" */
#define SHM_VERSION     1
#define SHM_PREFIX      "rtopo-shm-"
#define SHM_NAME_MAX    64
#define SHM_LINE        64
#define SHM_PAGE        4096
#define SHM_RING_MIN    (64 * 1024)     /* RTOPO_SHM_RING_SIZE's default */
#define SHM_NMR         16384           /* regions open to remote writes */
#define SHM_NCOMP       8192            /* local completions queued */
#define SHM_NREFUSED    64              /* refused writes not reported yet */
#define SHM_MAX_WRITE   ((size_t)1 << 30)
#define SHM_INJECT_MAX  65536
#define SHM_INLINE_MAX  8192            /* writes up to this size go in the ring */
#define SHM_REWIND      4096            /* ring offset past which an empty ring
                                           starts its next lap */
#define SHM_REWIND_REC  (SHM_REWIND / 8)  /* ... for records up to this size */
#define SHM_CHECK_NS    (20 * 1000000ull)   /* peer check while polling idle */
#define SHM_WCHECK_NS   (5 * 1000000ull)    /* ... before sleeping */
#define SHM_BUSY_CHECK_NS 1000000ull        /* ... when its ring stays full */

#ifndef PR_SET_PTRACER
#define PR_SET_PTRACER 0x59616d61
#endif
#ifndef PR_SET_PTRACER_ANY
#define PR_SET_PTRACER_ANY ((unsigned long)-1)
#endif

enum { SHM_REC_MSG = 1, SHM_REC_IMM, SHM_REC_PAD, SHM_REC_WRITE, SHM_REC_WRITE_IMM };
enum { SHM_ST_INIT = 0, SHM_ST_READY, SHM_ST_CLOSED };
enum { SHM_SLEEP_FUTEX = 1, SHM_SLEEP_FD = 2 };

/* First page of a segment.  The identity fields are written before the
 * magic and never change; the other lines have one writer pattern each. */
struct shm_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t uid;
    int32_t pid;
    int32_t rank;
    int32_t nranks;
    uint32_t nmr;
    uint64_t ctrl_size;
    uint64_t ring_size;
    uint64_t hdr_size;           /* offset of the first ring */
    uint64_t ctl_off;
    uint64_t mr_off;
    uint64_t self_addr;          /* where the owner maps its segment */
    uint32_t state;
    /* senders bump and wake; the owner says whether it sleeps */
    uint32_t doorbell __attribute__((aligned(SHM_LINE)));
    uint32_t sleeping;           /* 0, SHM_SLEEP_FUTEX or SHM_SLEEP_FD */
    int32_t wake_fd;             /* the owner's eventfd (its number), or -1 */
    /* bumped by each sender that signs in */
    uint32_t conn_gen __attribute__((aligned(SHM_LINE)));
    /* target of the senders' cross-memory attach probe */
    uint64_t probe __attribute__((aligned(SHM_LINE)));
};

/* per sender, in the receiver's segment */
struct shm_ctl {
    uint64_t head __attribute__((aligned(SHM_LINE)));   /* receiver: released */
    uint32_t want __attribute__((aligned(SHM_LINE)));   /* sender: ring was full */
    uint64_t key __attribute__((aligned(SHM_LINE)));    /* owner, at creation */
    int32_t pid;                                        /* sender, at sign-in */
    uint32_t attached;
    char name[SHM_NAME_MAX];
};

struct shm_mr_ent {
    uint64_t key;                /* 0: free; written last */
    uint64_t addr;
    uint64_t len;
    uint64_t rsvd;
};

struct shm_rec {
    uint64_t tag;                /* (position ^ ring key) | type, written last */
    uint32_t len;                /* MSG, WRITE: payload; IMM: bytes written;
                                    PAD: bytes skipped */
    uint32_t imm;
};

/* leads the payload of a WRITE record: where the receiver copies it */
struct shm_wrec {
    uint64_t addr;
    uint64_t key;
};

/* the address blob */
struct shm_addr {
    uint32_t magic;
    uint32_t version;
    int32_t pid;
    int32_t rank;
    uint32_t uid;
    int32_t nranks;
    uint64_t ring_size;
    uint64_t hdr_size;
    uint64_t host;               /* same boot, /dev/shm and pid namespace */
    char name[SHM_NAME_MAX];
};

struct rtopo__tl_mr {
    struct shm_tl *t;
    void *buf;
    size_t len;
    int idx;                     /* region table entry, -1: local only */
    uint64_t key;
};

struct shm_comp {
    int type;                    /* TL_EV_ERROR: an operation to a dead peer */
    int peer;
    void *ctx;
};

/* a write outside the target's open regions, reported as a failed
 * completion (as a NIC reports a remote access error) */
struct shm_refused {
    void *ctx;
    int peer;
    size_t len;
    uint64_t roffset;
    uint64_t key;
};

struct shm_peer {
    int fd;                      /* its segment: header, lock */
    struct shm_hdr *hdr;         /* its header, hdr_size bytes */
    pid_t pid;
    int known;                   /* in t->known */
    int connected;
    int dead;                    /* 1: to report, 2: reported */
    char why[64];
    uint64_t busy_check;
    /* sending: our ring in its segment */
    char *tx_ring;
    struct shm_ctl *tx_ctl;
    uint64_t tx_key;
    uint64_t tx_tail;
    uint64_t tx_head;            /* last head seen */
    /* receiving: its ring in ours */
    char *rx_ring;
    struct shm_ctl *rx_ctl;
    uint64_t rx_key;
    uint64_t rx_pos;             /* next record */
    uint64_t rx_rel;             /* released to the sender */
    int rx_active;
    int wake_fd;                 /* our copy of its eventfd, once taken */
    int wake_st;                 /* 0: not taken yet, 1: taken, -1: refused */
    char name[SHM_NAME_MAX];
};

struct shm_tl {
    int rank;
    int nranks;
    pid_t pid;
    size_t ctrl_size;
    size_t ring_size;
    size_t hdr_size;
    size_t seg_size;
    char name[SHM_NAME_MAX];
    int fd;
    struct shm_hdr *hdr;
    struct shm_ctl *ctl;
    struct shm_mr_ent *mr;
    struct shm_peer *peers;
    int *active;                 /* senders whose ring we read */
    int nactive;
    int rr;
    int *known;                  /* peers whose segment we watch */
    int nknown;
    int ndead;                   /* dead peers not reported yet */
    struct shm_refused refused[SHM_NREFUSED];
    int nrefused;
    uint32_t seen_gen;
    struct shm_comp *comp;
    unsigned comp_head, comp_tail;
    int *mr_free;
    int nmr_free;
    uint32_t mr_gen;
    uint64_t next_check;
    uint64_t host;
    unsigned npoll;
    int yield;                   /* more ranks than cpus: yield when idle */
    int wake_fd;                 /* eventfd of wait_fd() sleeps, or -1 */
    int fd_armed;                /* wait_fd() said we sleep on it */
};

static inline struct shm_tl *shm_tl(struct rtopo__tl *tl)
{
    return (struct shm_tl *)tl;
}

static inline size_t shm_rec_size(size_t len)
{
    return (sizeof(struct shm_rec) + len + 15) & ~(size_t)15;
}

static int shm_match(const char *transport)
{
    return transport && !strcmp(transport, "shm");
}

/* ---- kernel interfaces ------------------------------------------------- */

static void shm_futex_wait(uint32_t *addr, uint32_t val, int timeout_ms)
{
    struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };

    syscall(SYS_futex, addr, FUTEX_WAIT, val, &ts, NULL, 0);
}

static void shm_wake(struct shm_hdr *h)
{
    __atomic_add_fetch(&h->doorbell, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, &h->doorbell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* can a process take a copy of another's descriptor here (pidfd_getfd,
 * Linux 5.6, and no seccomp filter against it)?  Tried on our own: the
 * permission to take a peer's is the one cross-memory attach needs */
static int shm_fd_takeable(int fd)
{
    int pfd = (int)syscall(SYS_pidfd_open, getpid(), 0), got = -1;

    if (pfd >= 0) {
        got = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
        close(pfd);
    }
    if (got < 0)
        return 0;
    close(got);
    return 1;
}

static int shm_peer_alive(struct shm_peer *p);

/* 1 when descriptor fd is an eventfd */
static int shm_is_eventfd(int fd)
{
    char path[64], link[64];
    ssize_t n;

    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    n = readlink(path, link, sizeof(link) - 1);
    if (n < 0)
        return 0;
    link[n] = '\0';
    return !strcmp(link, "anon_inode:[eventfd]");
}

/* wakes peer p's owner, who sleeps (sleeping, read by the caller after a
 * full barrier) on its futex or on its eventfd */
static void shm_wake_peer(struct shm_peer *p, uint32_t sleeping)
{
    uint64_t one = 1;
    int pfd;

    if (sleeping != SHM_SLEEP_FD) {
        shm_wake(p->hdr);
        return;
    }
    if (!p->wake_st) {
        /* The flag may be left over from an owner killed in its sleep,
         * its pid since taken by another process: the pidfd names the
         * owner only if the owner still lives after it was opened (a pid
         * is not reused while its process exists), and what it hands
         * over must be an eventfd. */
        p->wake_st = -1;
        pfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
        if (pfd >= 0 && !shm_peer_alive(p)) {
            close(pfd);
            return;   /* gone: the next look at the peers says so */
        }
        if (pfd >= 0) {
            p->wake_fd = (int)syscall(SYS_pidfd_getfd, pfd, p->hdr->wake_fd, 0);
            if (p->wake_fd >= 0 && shm_is_eventfd(p->wake_fd))
                p->wake_st = 1;
            else if (p->wake_fd >= 0) {
                close(p->wake_fd);
                p->wake_fd = -1;
                errno = EBADF;
            }
            close(pfd);
        }
        if (p->wake_st < 0)
            rtopo__warn("shm: the eventfd of rank %d (pid %d) cannot be taken (%m): it "
                        "wakes from its sleeps only at their end", p->hdr->rank, (int)p->pid);
    }
    if (p->wake_st > 0 && write(p->wake_fd, &one, sizeof(one)) < 0)
        rtopo__debug("shm: eventfd write: %m");
}

/* kernel.yama.ptrace_scope, -1 without Yama */
static int shm_ptrace_scope(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
    int scope = -1;

    if (!f)
        return -1;
    if (fscanf(f, "%d", &scope) != 1)
        scope = -1;
    fclose(f);
    return scope;
}

/* Can this process use cross-memory attach at all?  A seccomp filter
 * fails even a write into ourselves; Yama's scope 2 and 3 forbid every
 * peer.  Returns 0, or 1 with the reason in why. */
static int shm_cma_blocked(char *why, size_t n)
{
    uint64_t src = 1;
    volatile uint64_t dst = 0;
    struct iovec l = { &src, sizeof(src) }, r = { (void *)&dst, sizeof(dst) };
    int scope;

    if (process_vm_writev(getpid(), &l, 1, &r, 1, 0) != (ssize_t)sizeof(src)) {
        snprintf(why, n, "cross-memory attach (process_vm_writev) is not permitted "
                 "here: %s (a seccomp profile?); use ofi:shm", strerror(errno));
        return 1;
    }
    scope = shm_ptrace_scope();
    if (scope >= 2) {
        snprintf(why, n, "kernel.yama.ptrace_scope is %d: cross-memory attach between "
                 "ranks is not permitted; use ofi:shm", scope);
        return 1;
    }
    return 0;
}

/* transport NULL: would "auto" take it here?  Not yet: shm is chosen by
 * name (RTOPO_TRANSPORT=shm). */
static int shm_available(const char *transport)
{
    char why[160];

    if (transport && !shm_match(transport))
        return 0;
    if (!transport)     /* named only: "auto" keeps verbs, then ofi:rxm */
        return 0;
    if (access("/dev/shm", W_OK | X_OK))
        return 0;
    return !shm_cma_blocked(why, sizeof(why));
}

/* What ranks must share to reach each other: the running kernel (its
 * boot id), the /dev/shm mount, the pid namespace (process_vm_writev
 * takes our pids).  A hash of them. */
static uint64_t shm_host_id(void)
{
    uint64_t h = 14695981039346656037ull;
    struct stat st;
    char buf[64];
    size_t i, n = 0;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

    memset(buf, 0, sizeof(buf));
    if (f) {
        n = fread(buf, 1, 36, f);
        fclose(f);
    }
    if (!stat("/dev/shm", &st))
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%llx:%llx",
                              (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
    if (!stat("/proc/self/ns/pid", &st) && n < sizeof(buf))
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, ":%llx",
                              (unsigned long long)st.st_ino);
    for (i = 0; i < n && i < sizeof(buf); i++)
        h = (h ^ (uint8_t)buf[i]) * 1099511628211ull;
    return h;
}

/* ---- segment names and stale segments ----------------------------------- */

/* "rtopo-shm-<uid>-<job>-<rank>[-<nonce>]-<pid>" of uid: returns the pid,
 * or 0 (names without a nonce: segments of earlier releases) */
static pid_t shm_name_pid(const char *name, uid_t uid)
{
    char prefix[32];
    const char *p, *last = NULL;
    size_t n;
    int dashes = 0;

    n = (size_t)snprintf(prefix, sizeof(prefix), SHM_PREFIX "%u-", (unsigned)uid);
    if (strncmp(name, prefix, n) || !name[n])
        return 0;
    for (p = name + n; *p; p++) {
        if (*p == '-') {
            if (p[1] < '0' || p[1] > '9')
                return 0;
            dashes++;
            last = p + 1;
        } else if (*p < '0' || *p > '9') {
            return 0;
        }
    }
    if (dashes < 2 || dashes > 3 || !last)
        return 0;
    return (pid_t)strtol(last, NULL, 10);
}

/* Removes segments of this user whose owner has gone: nobody holds the
 * owner's lock, and the owner is dead or had finished setting up (its
 * lock is taken before the header is written).  Returns how many. */
static int shm_sweep_stale(void)
{
    struct dirent *d;
    struct stat st;
    uint64_t magic;
    DIR *dir = opendir("/dev/shm");
    pid_t pid;
    int fd, removed = 0, stale;

    if (!dir)
        return 0;
    while ((d = readdir(dir))) {
        pid = shm_name_pid(d->d_name, geteuid());
        if (pid <= 0)
            continue;
        fd = openat(dirfd(dir), d->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
            continue;
        if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
            flock(fd, LOCK_EX | LOCK_NB)) {
            close(fd);
            continue;
        }
        stale = pid == getpid() || (kill(pid, 0) && errno == ESRCH) ||
                (pread(fd, &magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
                 magic == SHM_MAGIC);
        if (stale && !unlinkat(dirfd(dir), d->d_name, 0)) {
            rtopo__info("removed /dev/shm/%s, left by a process that has ended",
                        d->d_name);
            removed++;
        }
        close(fd);
    }
    closedir(dir);
    return removed;
}

/* ---- peers --------------------------------------------------------------- */

static void shm_peer_dead(struct shm_tl *t, int peer, const char *why)
{
    struct shm_peer *p = &t->peers[peer];

    if (p->dead)
        return;
    p->dead = 1;
    snprintf(p->why, sizeof(p->why), "%s", why);
    t->ndead++;
}

/* 1 while the owner of the peer's segment lives */
static int shm_peer_alive(struct shm_peer *p)
{
    if (p->fd >= 0) {
        if (flock(p->fd, LOCK_SH | LOCK_NB) == 0) {
            flock(p->fd, LOCK_UN);
            return 0;
        }
        if (errno == EWOULDBLOCK)
            return 1;
    }
    return !(p->pid > 0 && kill(p->pid, 0) && errno == ESRCH);
}

static int shm_check_peer(struct shm_tl *t, int peer)
{
    struct shm_peer *p = &t->peers[peer];

    if (p->dead)
        return 0;
    if (p->hdr && __atomic_load_n(&p->hdr->state, __ATOMIC_ACQUIRE) == SHM_ST_CLOSED) {
        shm_peer_dead(t, peer, "closed its transport");
        return 0;
    }
    if (shm_peer_alive(p))
        return 1;
    shm_peer_dead(t, peer, "exited");
    return 0;
}

static void shm_check_peers(struct shm_tl *t, uint64_t now)
{
    int i;

    t->next_check = now + SHM_CHECK_NS;
    for (i = 0; i < t->nknown; i++)
        shm_check_peer(t, t->known[i]);
}

/* Opens and maps the header of rank peer's segment; pid 0: not known. */
static int shm_peer_map(struct shm_tl *t, int peer, const char *name, pid_t pid)
{
    struct shm_peer *p = &t->peers[peer];
    struct shm_hdr *h;
    struct stat st;
    int fd;

    if (p->hdr)
        return RTOPO_OK;
    fd = shm_open(name, O_RDWR | O_NOFOLLOW, 0);
    if (fd < 0)
        return rtopo__error(errno == ENOENT ? RTOPO_ERR_PEER : RTOPO_ERR_TRANSPORT,
                            "shm_open of rank %d's segment %s: %m%s", peer, name,
                            errno == ENOENT ? " (ended, or on another host?)" : "");
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 077) || (size_t)st.st_size < t->hdr_size) {
        close(fd);
        return rtopo__error(RTOPO_ERR_TRANSPORT, "segment %s of rank %d is not a "
                            "segment of this user's job", name, peer);
    }
    h = mmap(NULL, t->hdr_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (h == MAP_FAILED) {
        close(fd);
        return rtopo__error(RTOPO_ERR_TRANSPORT, "mmap of rank %d's segment: %m", peer);
    }
    if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) == SHM_MAGIC &&
        __atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == SHM_ST_CLOSED) {
        munmap(h, t->hdr_size);
        close(fd);
        return rtopo__error(RTOPO_ERR_PEER, "rank %d has closed its transport", peer);
    }
    if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != SHM_MAGIC ||
        h->version != SHM_VERSION || h->rank != peer || h->nranks != t->nranks ||
        h->ring_size != t->ring_size || h->hdr_size != t->hdr_size ||
        h->ctrl_size != t->ctrl_size || h->nmr != SHM_NMR ||
        (pid > 0 && h->pid != pid)) {
        munmap(h, t->hdr_size);
        close(fd);
        return rtopo__error(RTOPO_ERR_MISMATCH, "segment %s does not belong to rank %d "
                            "of this job, or its geometry differs (RTOPO_EAGER_LIMIT "
                            "and RTOPO_SHM_RING_SIZE alike on every rank?)", name, peer);
    }
    p->fd = fd;
    p->hdr = h;
    p->pid = h->pid;
    snprintf(p->name, sizeof(p->name), "%s", name);
    if (!p->known) {
        p->known = 1;
        t->known[t->nknown++] = peer;
    }
    return RTOPO_OK;
}

/* Maps the page tables of a ring now, at connection, rather than one
 * page fault per page on each side during the ring's first lap (a
 * record of 4 KiB meets a new page every time until the ring has been
 * round once: 128 faults per side for a ring of 512 KiB, each a few
 * microseconds on bare metal and tens under a hypervisor).  Where the
 * kernel lacks MADV_POPULATE_* (before Linux 5.14), a read of each page
 * maps it. */
static void shm_prefault(void *addr, size_t len, int write)
{
    size_t i;

#ifdef MADV_POPULATE_WRITE
    if (!madvise(addr, len, write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ))
        return;
#else
    (void)write;
#endif
    for (i = 0; i < len; i += SHM_PAGE)
        (void)*(volatile const char *)((const char *)addr + i);
}

/* new senders signed in to our segment: read their rings too */
static void shm_scan_senders(struct shm_tl *t)
{
    uint32_t gen = __atomic_load_n(&t->hdr->conn_gen, __ATOMIC_ACQUIRE);
    struct shm_peer *p;
    struct shm_ctl *c;
    char name[SHM_NAME_MAX];
    int i;

    if (gen == t->seen_gen)
        return;
    t->seen_gen = gen;
    for (i = 0; i < t->nranks; i++) {
        p = &t->peers[i];
        c = &t->ctl[i];
        if (p->rx_active || !__atomic_load_n(&c->attached, __ATOMIC_ACQUIRE))
            continue;
        p->rx_active = 1;
        p->rx_ctl = c;
        p->rx_key = c->key;
        p->rx_ring = (char *)t->hdr + t->hdr_size + (size_t)i * t->ring_size;
        p->rx_pos = p->rx_rel = 0;
        shm_prefault(p->rx_ring, t->ring_size, 0);
        t->active[t->nactive++] = i;
        /* watch the sender too; without its segment, by its pid */
        if (!p->hdr) {
            memcpy(name, c->name, sizeof(name));
            name[sizeof(name) - 1] = '\0';
            if (shm_name_pid(name + 1, geteuid()) != c->pid ||
                shm_peer_map(t, i, name, c->pid)) {
                p->pid = c->pid;
                if (!p->known) {
                    p->known = 1;
                    t->known[t->nknown++] = i;
                }
            }
        }
    }
}

/* ---- lifecycle ------------------------------------------------------------ */

static void shm_close(struct rtopo__tl *tl)
{
    struct shm_tl *t = shm_tl(tl);
    struct shm_peer *p;
    int i;

    if (!t)
        return;
    for (i = 0; t->peers && i < t->nranks; i++) {
        p = &t->peers[i];
        if (p->tx_ring)
            munmap(p->tx_ring, t->ring_size);
        if (p->hdr)
            munmap(p->hdr, t->hdr_size);
        if (p->fd >= 0)
            close(p->fd);
        if (p->wake_st > 0)
            close(p->wake_fd);
    }
    if (t->wake_fd >= 0)
        close(t->wake_fd);
    if (t->hdr) {
        /* peers tell a close from a crash by this, then by the lock */
        __atomic_store_n(&t->hdr->state, SHM_ST_CLOSED, __ATOMIC_RELEASE);
        munmap(t->hdr, t->seg_size);
    }
    if (t->fd >= 0) {
        shm_unlink(t->name);
        close(t->fd);
    }
    free(t->peers);
    free(t->active);
    free(t->known);
    free(t->comp);
    free(t->mr_free);
    free(t);
}

static int shm_open_tl(const rtopo__tl_params_t *params, struct rtopo__tl **tl_p)
{
    struct shm_tl *t;
    struct shm_hdr *h;
    size_t rec_max, ring_min, ctl_off, mr_off;
    uint64_t base;
    long ncpu;
    char why[160];
    int i, st, scope;

    if (params->nranks <= 0 || params->rank < 0 || params->rank >= params->nranks ||
        params->ctrl_size == 0 || params->ctrl_size > ((size_t)1 << 30))
        return rtopo__error(RTOPO_ERR_INVAL, "shm: rank %d of %d, control messages of "
                            "%zu bytes", params->rank, params->nranks, params->ctrl_size);
    if (shm_cma_blocked(why, sizeof(why)))
        return rtopo__error(RTOPO_ERR_TRANSPORT, "shm: %s", why);
    /* Yama's scope 1 lets only ancestors attach: let our peers (processes
     * of this user) in, as ptrace_scope 0 would */
    scope = shm_ptrace_scope();
    if (scope == 1 && prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0))
        return rtopo__error(RTOPO_ERR_TRANSPORT, "shm: prctl(PR_SET_PTRACER): %m; "
                            "kernel.yama.ptrace_scope is 1: use ofi:shm");

    t = calloc(1, sizeof(*t));
    if (!t)
        return RTOPO_ERR_NOMEM;
    t->fd = -1;
    t->wake_fd = -1;
    t->rank = params->rank;
    t->nranks = params->nranks;
    t->ctrl_size = params->ctrl_size;
    t->pid = getpid();
    t->host = shm_host_id();
    ncpu = rtopo__cpus_shared();
    t->yield = !params->poll_no_yield && ncpu > 0 && t->nranks > ncpu;
    /* a power of two (offsets are masked) of at least the setting and
     * four of the largest records: a control message, a write in the ring */
    rec_max = shm_rec_size(t->ctrl_size);
    if (rec_max < shm_rec_size(sizeof(struct shm_wrec) + SHM_INLINE_MAX))
        rec_max = shm_rec_size(sizeof(struct shm_wrec) + SHM_INLINE_MAX);
    ring_min = params->shm_ring_size ? params->shm_ring_size : SHM_RING_MIN;
    for (t->ring_size = SHM_PAGE; t->ring_size < ring_min || t->ring_size < 4 * rec_max;
         t->ring_size <<= 1)
        ;
    ctl_off = SHM_PAGE;
    mr_off = ctl_off + (size_t)t->nranks * sizeof(struct shm_ctl);
    t->hdr_size = (mr_off + SHM_NMR * sizeof(struct shm_mr_ent) + SHM_PAGE - 1) &
                  ~(size_t)(SHM_PAGE - 1);
    t->seg_size = t->hdr_size + (size_t)t->nranks * t->ring_size;

    st = RTOPO_ERR_NOMEM;
    t->peers = calloc((size_t)t->nranks, sizeof(*t->peers));
    t->active = calloc((size_t)t->nranks, sizeof(*t->active));
    t->known = calloc((size_t)t->nranks, sizeof(*t->known));
    t->comp = calloc(SHM_NCOMP, sizeof(*t->comp));
    t->mr_free = malloc(SHM_NMR * sizeof(*t->mr_free));
    if (!t->peers || !t->active || !t->known || !t->comp || !t->mr_free)
        goto err;
    for (i = 0; i < t->nranks; i++)
        t->peers[i].fd = -1;
    for (i = 0; i < SHM_NMR; i++)
        t->mr_free[i] = SHM_NMR - 1 - i;
    t->nmr_free = SHM_NMR;

    shm_sweep_stale();
    st = RTOPO_ERR_TRANSPORT;
    /* a name nobody can tell in advance: whoever creates it first (another
     * user may create files in /dev/shm too) would own it */
    for (i = 0; i < 16; i++) {
        if (getrandom(&base, sizeof(base), 0) != (ssize_t)sizeof(base)) {
            rtopo__error(st, "getrandom: %m");
            goto err;
        }
        snprintf(t->name, sizeof(t->name), "/" SHM_PREFIX "%u-%ld-%d-%llu-%ld",
                 (unsigned)geteuid(), (long)getppid(), t->rank,
                 (unsigned long long)(base >> 16), (long)t->pid);
        t->fd = shm_open(t->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
        if (t->fd >= 0 || errno != EEXIST)
            break;
        rtopo__info("shm: %s exists (not ours): another name", t->name);
    }
    if (t->fd < 0) {
        rtopo__error(st, "shm_open(%s): %m", t->name);
        goto err;
    }
    /* the lock says we live: taken before anything else is written.
     * Another process's stale sweep (shm_sweep_stale) may hold it for an
     * instant, between our shm_open and here: wait for that, boundedly. */
    for (i = 0; flock(t->fd, LOCK_EX | LOCK_NB); i++) {
        if ((errno != EWOULDBLOCK && errno != EINTR) || i >= 2000) {
            rtopo__error(st, "flock(%s): %m", t->name);
            goto err_unlink;
        }
        usleep(500);
    }
    if (fchmod(t->fd, 0600) || ftruncate(t->fd, (off_t)t->seg_size)) {
        rtopo__error(st, "sizing %s to %zu bytes: %m", t->name, t->seg_size);
        goto err_unlink;
    }
    /* what is touched at once (the region table fills from its start):
     * reserved now rather than faulted in later on a full /dev/shm */
    if (fallocate(t->fd, 0, 0, (off_t)(mr_off + SHM_PAGE)) && errno != EOPNOTSUPP) {
        rtopo__error(st, "allocating %zu bytes in /dev/shm for %s: %m",
                     mr_off + SHM_PAGE, t->name);
        goto err_unlink;
    }
    h = mmap(NULL, t->seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
    if (h == MAP_FAILED) {
        rtopo__error(st, "mmap of %zu bytes of %s: %m", t->seg_size, t->name);
        goto err_unlink;
    }
    t->hdr = h;
    t->ctl = (struct shm_ctl *)((char *)h + ctl_off);
    t->mr = (struct shm_mr_ent *)((char *)h + mr_off);
    if (getrandom(&base, sizeof(base), 0) != (ssize_t)sizeof(base))
        base = (uint64_t)rtopo__now_ns() * 0x9e3779b97f4a7c15ull ^ (uint64_t)t->pid;
    for (i = 0; i < t->nranks; i++) {
        uint64_t k = base + (uint64_t)i * 0x9e3779b97f4a7c15ull;

        k ^= k >> 31;
        k *= 0xbf58476d1ce4e5b9ull;
        k ^= k >> 29;
        /* never 0: a fresh, zeroed ring must not hold a record */
        t->ctl[i].key = (k & ~(uint64_t)15) | 16;
    }
    h->version = SHM_VERSION;
    h->uid = (uint32_t)geteuid();
    h->pid = (int32_t)t->pid;
    h->rank = t->rank;
    h->nranks = t->nranks;
    h->nmr = SHM_NMR;
    h->ctrl_size = t->ctrl_size;
    h->ring_size = t->ring_size;
    h->hdr_size = t->hdr_size;
    h->ctl_off = ctl_off;
    h->mr_off = mr_off;
    h->self_addr = (uint64_t)(uintptr_t)h;
    /* for a caller that sleeps on shm beside another backend; not with
     * RTOPO_WAIT=poll, where nothing sleeps */
    if (!params->poll_only && (t->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
        rtopo__info("shm: eventfd: %m: waits beside another transport nap instead");
    if (t->wake_fd >= 0 && !shm_fd_takeable(t->wake_fd)) {
        rtopo__info("shm: pidfd_getfd: %m: senders could not wake a sleep on our eventfd; "
                    "waits beside another transport nap instead");
        close(t->wake_fd);
        t->wake_fd = -1;
    }
    h->wake_fd = t->wake_fd;
    h->state = SHM_ST_READY;
    __atomic_store_n(&h->magic, SHM_MAGIC, __ATOMIC_RELEASE);
    rtopo__info("shm: segment %s, %d ring(s) of %zu bytes, control messages up to "
                "%zu bytes%s", t->name, t->nranks, t->ring_size, t->ctrl_size,
                t->yield ? ", more ranks than cpus: yielding when idle" : "");
    *tl_p = (struct rtopo__tl *)t;
    return RTOPO_OK;
err_unlink:
    shm_unlink(t->name);
    close(t->fd);
    t->fd = -1;
err:
    shm_close((struct rtopo__tl *)t);
    return st;
}

static void shm_query(struct rtopo__tl *tl, rtopo__tl_attr_t *attr)
{
    struct shm_tl *t = shm_tl(tl);

    attr->max_write = SHM_MAX_WRITE;
    attr->inject_max = SHM_INJECT_MAX;
    attr->blocking_wait = 1;
    attr->poll_yields = 1;    /* shm_poll yields when t->yield */
    attr->write_src_any = 1;  /* shm_write never looks at lmr */
    /* a message is in the receiver's ring when send() returns */
    attr->send_nowait_max = t->ctrl_size;
    /* a region is an entry in our table (cross-memory attach needs no
     * pinning) */
    attr->reg_per_op = 1;
    snprintf(attr->provider, sizeof(attr->provider), "shm");
}

static int shm_addr_get(struct rtopo__tl *tl, void *blob, size_t *len)
{
    struct shm_tl *t = shm_tl(tl);
    struct shm_addr a;

    if (*len < sizeof(a))
        return rtopo__error(RTOPO_ERR_INVAL, "shm: address buffer of %zu bytes", *len);
    memset(&a, 0, sizeof(a));
    a.magic = (uint32_t)SHM_MAGIC;
    a.version = SHM_VERSION;
    a.pid = (int32_t)t->pid;
    a.rank = t->rank;
    a.uid = (uint32_t)geteuid();
    a.nranks = t->nranks;
    a.ring_size = t->ring_size;
    a.hdr_size = t->hdr_size;
    a.host = t->host;
    snprintf(a.name, sizeof(a.name), "%s", t->name);
    memcpy(blob, &a, sizeof(a));
    *len = sizeof(a);
    return RTOPO_OK;
}

/* One 8-byte write into the peer's header: tells at connect time whether
 * the kernel lets us attach to its memory. */
static int shm_probe(struct shm_tl *t, int peer)
{
    struct shm_peer *p = &t->peers[peer];
    uint64_t v = (uint64_t)t->rank + 1;
    struct iovec l = { &v, sizeof(v) };
    struct iovec r = { (void *)(uintptr_t)(p->hdr->self_addr +
                                           offsetof(struct shm_hdr, probe)), sizeof(v) };

    if (p->pid == t->pid || process_vm_writev(p->pid, &l, 1, &r, 1, 0) == (ssize_t)sizeof(v))
        return RTOPO_OK;
    /* gone, or closing (its segment no longer mapped there) */
    if (errno == ESRCH || errno == EFAULT)
        return rtopo__error(RTOPO_ERR_PEER, "shm: rank %d (pid %d) has ended or closed "
                            "its transport", peer, (int)p->pid);
    return rtopo__error(RTOPO_ERR_TRANSPORT, "shm: process_vm_writev into rank %d "
                        "(pid %d): %m: cross-memory attach between the ranks is not "
                        "permitted (ptrace restrictions: kernel.yama.ptrace_scope, a "
                        "seccomp profile, a non-dumpable process); use ofi:shm", peer,
                        (int)p->pid);
}

static int shm_connect(struct rtopo__tl *tl, int peer, const void *blob, size_t len)
{
    struct shm_tl *t = shm_tl(tl);
    struct shm_peer *p;
    struct shm_addr a;
    struct shm_ctl *c;
    off_t off;
    void *ring;
    int st;

    if (peer < 0 || peer >= t->nranks)
        return rtopo__error(RTOPO_ERR_INVAL, "peer %d out of range", peer);
    p = &t->peers[peer];
    if (p->connected)
        return RTOPO_OK;
    if (len != sizeof(a))
        return rtopo__error(RTOPO_ERR_TRANSPORT, "shm: address of rank %d has %zu "
                            "bytes, not %zu (another transport?)", peer, len, sizeof(a));
    memcpy(&a, blob, sizeof(a));
    a.name[sizeof(a.name) - 1] = '\0';
    if (a.magic == (uint32_t)SHM_MAGIC && a.host != t->host)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "shm: rank %d runs on another host (or "
                            "another container: no shared /dev/shm and pid namespace); "
                            "shm connects the ranks of one host only: use ofi:rxm, "
                            "ofi:tcp or verbs", peer);
    if (a.magic == (uint32_t)SHM_MAGIC && a.version == SHM_VERSION && a.rank == peer &&
        a.nranks == t->nranks && a.ring_size != t->ring_size)
        return rtopo__error(RTOPO_ERR_MISMATCH, "shm: rank %d has rings of %llu bytes, "
                            "this rank (%d) of %zu: set RTOPO_SHM_RING_SIZE and "
                            "RTOPO_EAGER_LIMIT alike on every rank", peer,
                            (unsigned long long)a.ring_size, t->rank, t->ring_size);
    if (a.magic != (uint32_t)SHM_MAGIC || a.version != SHM_VERSION || a.rank != peer ||
        a.nranks != t->nranks || a.uid != (uint32_t)geteuid() ||
        a.ring_size != t->ring_size || a.hdr_size != t->hdr_size ||
        shm_name_pid(a.name + 1, geteuid()) != (pid_t)a.pid || a.name[0] != '/')
        return rtopo__error(RTOPO_ERR_TRANSPORT, "shm: the address of rank %d is not "
                            "one of this user's job with these settings", peer);
    /* a peer that has ended is no connection error: its operations fail
     * with TL_EV_ERROR, as they would had it ended a moment later */
    st = shm_peer_map(t, peer, a.name, (pid_t)a.pid);
    if (st == RTOPO_OK)
        st = shm_probe(t, peer);
    if (st == RTOPO_ERR_PEER || p->dead) {
        p->pid = (pid_t)a.pid;
        shm_peer_dead(t, peer, "has ended or closed its transport");
        p->connected = 1;
        return RTOPO_OK;
    }
    if (st)
        return st;
    c = (struct shm_ctl *)((char *)p->hdr + p->hdr->ctl_off) + t->rank;
    if (__atomic_load_n(&c->attached, __ATOMIC_ACQUIRE))
        return rtopo__error(RTOPO_ERR_TRANSPORT, "shm: the ring for rank %d in rank %d's "
                            "segment is taken already", t->rank, peer);
    off = (off_t)(t->hdr_size + (size_t)t->rank * t->ring_size);
    if (fallocate(p->fd, 0, off, (off_t)t->ring_size) && errno != EOPNOTSUPP)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "shm: allocating a ring of %zu bytes in "
                            "/dev/shm for rank %d: %m", t->ring_size, peer);
    ring = mmap(NULL, t->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, off);
    if (ring == MAP_FAILED)
        return rtopo__error(RTOPO_ERR_TRANSPORT, "shm: mmap of the ring to rank %d: %m",
                            peer);
    shm_prefault(ring, t->ring_size, 1);
    p->tx_ring = ring;
    p->tx_ctl = c;
    p->tx_key = c->key;
    p->tx_tail = p->tx_head = 0;
    c->pid = (int32_t)t->pid;
    memcpy(c->name, t->name, sizeof(c->name));
    __atomic_store_n(&c->attached, 1, __ATOMIC_RELEASE);
    __atomic_add_fetch(&p->hdr->conn_gen, 1, __ATOMIC_SEQ_CST);
    p->connected = 1;
    return RTOPO_OK;
}

/* ---- memory -------------------------------------------------------------- */

static int shm_mem_reg(struct rtopo__tl *tl, void *buf, size_t len, unsigned access,
                       struct rtopo__tl_mr **mr_p)
{
    struct shm_tl *t = shm_tl(tl);
    struct rtopo__tl_mr *mr = calloc(1, sizeof(*mr));
    struct shm_mr_ent *e;
    int idx;

    if (!mr)
        return RTOPO_ERR_NOMEM;
    mr->t = t;
    mr->buf = buf;
    mr->len = len;
    mr->idx = -1;
    if (access & RTOPO__TL_ACCESS_REMOTE_WRITE) {
        if (t->nmr_free == 0) {
            free(mr);
            return rtopo__error(RTOPO_ERR_NOMEM, "shm: more than %d regions open to "
                                "remote writes", SHM_NMR);
        }
        idx = t->mr_free[--t->nmr_free];
        if (++t->mr_gen == 0)
            t->mr_gen = 1;
        e = &t->mr[idx];
        e->addr = (uint64_t)(uintptr_t)buf;
        e->len = len;
        mr->idx = idx;
        mr->key = ((uint64_t)t->mr_gen << 32) | (uint64_t)(idx + 1);
        __atomic_store_n(&e->key, mr->key, __ATOMIC_RELEASE);
    }
    *mr_p = mr;
    return RTOPO_OK;
}

static int shm_mem_dereg(struct rtopo__tl_mr *mr)
{
    struct shm_tl *t;

    if (!mr)
        return RTOPO_OK;
    t = mr->t;
    if (mr->idx >= 0) {
        __atomic_store_n(&t->mr[mr->idx].key, 0, __ATOMIC_RELEASE);
        t->mr_free[t->nmr_free++] = mr->idx;
    }
    free(mr);
    return RTOPO_OK;
}

/* Any thread: the key leaves the table peers check their writes
 * against, so a write checked from now on is refused (an error
 * completion at its writer), and one already in the ring is dropped
 * when it comes to land; the slot is freed by shm_mem_dereg. */
static void shm_mem_close(struct rtopo__tl_mr *mr)
{
    if (mr && mr->idx >= 0)
        __atomic_store_n(&mr->t->mr[mr->idx].key, 0, __ATOMIC_SEQ_CST);
}

static void shm_mem_rkey(struct rtopo__tl_mr *mr, rtopo__rkey_t *rkey)
{
    rkey->key = mr->key;
    rkey->addr = (uint64_t)(uintptr_t)mr->buf;
}

/* Is [rkey->addr + roffset, + len) inside the region the key names in
 * the target's table right now?  The entry is read twice around its
 * fields, so a slot being reused cannot pass. */
static int shm_rkey_ok(struct shm_tl *t, struct shm_peer *p, const rtopo__rkey_t *rkey,
                       uint64_t roffset, size_t len)
{
    const struct shm_mr_ent *tab = (const void *)((char *)p->hdr + p->hdr->mr_off);
    uint64_t idx = (rkey->key & 0xffffffffu) - 1, k, addr, rlen;

    if (rkey->key == 0 || idx >= SHM_NMR ||
        __atomic_load_n(&p->hdr->state, __ATOMIC_ACQUIRE) != SHM_ST_READY)
        return 0;
    k = __atomic_load_n(&tab[idx].key, __ATOMIC_ACQUIRE);
    addr = tab[idx].addr;
    rlen = tab[idx].len;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (k != rkey->key || __atomic_load_n(&tab[idx].key, __ATOMIC_RELAXED) != k)
        return 0;
    return rkey->addr == addr && roffset <= rlen && len <= rlen - roffset;
}

/* ---- data movement ---------------------------------------------------------- */

static inline int shm_comp_full(struct shm_tl *t)
{
    return t->comp_tail - t->comp_head >= SHM_NCOMP;
}

static inline void shm_comp_push(struct shm_tl *t, int type, int peer, void *ctx)
{
    struct shm_comp *c = &t->comp[t->comp_tail++ & (SHM_NCOMP - 1)];

    c->type = type;
    c->peer = peer;
    c->ctx = ctx;
}

/* room for a record of len payload bytes (and the pad before it)? */
static inline int shm_room(struct shm_tl *t, struct shm_peer *p, size_t len)
{
    size_t R = t->ring_size, need = shm_rec_size(len);
    uint64_t off = p->tx_tail & (R - 1);
    uint32_t sl;

    if (off + need > R)
        need += R - off;
    if (p->tx_tail + need - p->tx_head <= R)
        return 1;
    p->tx_head = __atomic_load_n(&p->tx_ctl->head, __ATOMIC_ACQUIRE);
    if (p->tx_tail + need - p->tx_head <= R)
        return 1;
    /* ask the receiver to wake us when it frees space, then look again */
    __atomic_store_n(&p->tx_ctl->want, 1, __ATOMIC_SEQ_CST);
    p->tx_head = __atomic_load_n(&p->tx_ctl->head, __ATOMIC_ACQUIRE);
    if (p->tx_tail + need - p->tx_head <= R)
        return 1;
    /* space comes free only at its next poll: a receiver that went to
     * sleep before it saw want must wake for it */
    if ((sl = __atomic_load_n(&p->hdr->sleeping, __ATOMIC_SEQ_CST)))
        shm_wake_peer(p, sl);
    return 0;
}

/* memcpy of a piece of a small record, without a call: loads and stores of
 * 16, 8, 4 or 1 bytes that overlap in the middle (the two never overlap) */
static inline void shm_copy(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;

    if (n > 64) {
        memcpy(d, s, n);
    } else if (n > 32) {
        memcpy(d, s, 16);
        memcpy(d + 16, s + 16, 16);
        memcpy(d + n - 32, s + n - 32, 16);
        memcpy(d + n - 16, s + n - 16, 16);
    } else if (n >= 16) {
        memcpy(d, s, 16);
        memcpy(d + n - 16, s + n - 16, 16);
    } else if (n >= 8) {
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}

/* Writes a record whose payload is a[alen] then b[blen], with len and
 * imm in its header, and wakes the receiver if it said it sleeps; the
 * caller made sure of the room. */
static inline __attribute__((always_inline))
void shm_push(struct shm_tl *t, struct shm_peer *p, unsigned type, const void *a,
              size_t alen, const void *b, size_t blen, size_t len, uint32_t imm)
{
    size_t R = t->ring_size, need = shm_rec_size(alen + blen);
    uint64_t off = p->tx_tail & (R - 1);
    struct shm_rec *r;
    uint32_t sl;
    /* While the receiver keeps up, small records circle in the ring's
     * first lines instead of walking the whole ring: the first record
     * past each SHM_REWIND bytes that finds the ring empty pads to its
     * end and starts the next lap at offset 0 (lines both sides touched
     * a moment ago, still in their caches).  At most one look at the
     * receiver's head per SHM_REWIND bytes. */
    int rewind = need <= SHM_REWIND_REC && off >= SHM_REWIND &&
                 (off & (SHM_REWIND - 1)) < need &&
                 (p->tx_head = __atomic_load_n(&p->tx_ctl->head, __ATOMIC_ACQUIRE)) ==
                 p->tx_tail;

    if (rewind || off + need > R) {
        r = (struct shm_rec *)(p->tx_ring + off);
        r->len = (uint32_t)(R - off);
        r->imm = 0;
        __atomic_store_n(&r->tag, (p->tx_tail ^ p->tx_key) | SHM_REC_PAD,
                         __ATOMIC_RELEASE);
        p->tx_tail += R - off;
        off = 0;
    }
    r = (struct shm_rec *)(p->tx_ring + off);
    shm_copy(r + 1, a, alen);
    shm_copy((char *)(r + 1) + alen, b, blen);
    r->len = (uint32_t)len;
    r->imm = imm;
    /* an exchange: the full barrier between publishing the record and
     * reading the receiver's sleeping flag (which it sets before looking
     * at the rings one last time) */
    __atomic_exchange_n(&r->tag, (p->tx_tail ^ p->tx_key) | type, __ATOMIC_SEQ_CST);
    p->tx_tail += need;
    if ((sl = __atomic_load_n(&p->hdr->sleeping, __ATOMIC_RELAXED)))
        shm_wake_peer(p, sl);
}

/* the peer's ring stays full: 1 when the peer turns out to be gone */
static int shm_gone(struct shm_tl *t, int peer)
{
    struct shm_peer *p = &t->peers[peer];
    uint64_t now = rtopo__now_ns();

    if (now - p->busy_check < SHM_BUSY_CHECK_NS)
        return 0;
    p->busy_check = now;
    return !shm_check_peer(t, peer);
}

/* An operation to a peer that has gone: dropped, and a tracked one
 * completes with TL_EV_ERROR (the peer's own error comes out too). */
static int shm_to_dead(struct shm_tl *t, int peer, void *ctx)
{
    if (!ctx)
        return RTOPO_OK;
    if (shm_comp_full(t))
        return RTOPO_ERR_BUSY;
    shm_comp_push(t, RTOPO__TL_EV_ERROR, peer, ctx);
    return RTOPO_OK;
}

static __attribute__((noinline)) int shm_unconnected(int peer, const char *what)
{
    return rtopo__error(RTOPO_ERR_INVAL, "%s to unconnected rank %d", what, peer);
}

static inline struct shm_peer *shm_tx_peer(struct shm_tl *t, int peer, const char *what,
                                           int *st)
{
    if (peer < 0 || peer >= t->nranks || !t->peers[peer].connected) {
        *st = shm_unconnected(peer, what);
        return NULL;
    }
    return &t->peers[peer];
}

/* the copy itself: into the peer's address space, or our own */
static int shm_cma(struct shm_tl *t, int peer, const void *buf, size_t len, uint64_t raddr)
{
    struct shm_peer *p = &t->peers[peer];
    struct iovec l, r;
    ssize_t n;

    if (p->pid == t->pid) {
        memcpy((void *)(uintptr_t)raddr, buf, len);
        return RTOPO_OK;
    }
    while (len) {
        l.iov_base = (void *)buf;
        l.iov_len = len;
        r.iov_base = (void *)(uintptr_t)raddr;
        r.iov_len = len;
        n = process_vm_writev(p->pid, &l, 1, &r, 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n < 0 && errno == ESRCH) {
                shm_peer_dead(t, peer, "exited");
                return RTOPO_ERR_PEER;
            }
            /* a target that is closing has unmapped its memory */
            if (n < 0 && errno == EFAULT && !shm_check_peer(t, peer))
                return RTOPO_ERR_PEER;
            if (n < 0 && errno == EPERM)
                return rtopo__error(RTOPO_ERR_TRANSPORT, "shm: process_vm_writev into "
                                    "rank %d: %m: cross-memory attach is not permitted; "
                                    "use ofi:shm", peer);
            return rtopo__error(RTOPO_ERR_TRANSPORT, "shm: write of %zu bytes to rank %d "
                                "at 0x%llx: %s", len, peer, (unsigned long long)raddr,
                                n < 0 ? strerror(errno) : "no progress");
        }
        buf = (const char *)buf + n;
        raddr += (uint64_t)n;
        len -= (size_t)n;
    }
    return RTOPO_OK;
}

static int shm_write(struct rtopo__tl *tl, int peer, const void *buf, size_t len,
                     struct rtopo__tl_mr *lmr, const rtopo__rkey_t *rkey,
                     uint64_t roffset, uint32_t imm, unsigned flags, void *ctx)
{
    struct shm_tl *t = shm_tl(tl);
    struct shm_peer *p;
    int st, small;

    if (!(p = shm_tx_peer(t, peer, "write", &st)))
        return st;
    if (len > SHM_MAX_WRITE)
        return rtopo__error(RTOPO_ERR_INVAL, "write of %zu bytes exceeds shm's %zu", len,
                            SHM_MAX_WRITE);
    if ((flags & RTOPO__TL_INJECT) && len > SHM_INJECT_MAX)
        return rtopo__error(RTOPO_ERR_INVAL, "inject of %zu bytes exceeds %d", len,
                            SHM_INJECT_MAX);
    if (flags & RTOPO__TL_INJECT)
        ctx = NULL;
    else if (shm_comp_full(t))
        return RTOPO_ERR_BUSY;
    if (p->dead)
        return shm_to_dead(t, peer, ctx);
    /* small ones travel in the ring: no system call, the target copies
     * them out when it polls, before the immediate */
    small = len <= SHM_INLINE_MAX;
    if ((small || (flags & RTOPO__TL_IMM)) &&
        !shm_room(t, p, small ? sizeof(struct shm_wrec) + len : 0))
        return shm_gone(t, peer) ? shm_to_dead(t, peer, ctx) : RTOPO_ERR_BUSY;
    if (!shm_rkey_ok(t, p, rkey, roffset, len)) {
        /* nothing is written; a tracked write fails in its completion,
         * after what the target sent before it closed the region */
        if (ctx && t->nrefused < SHM_NREFUSED) {
            struct shm_refused *r = &t->refused[t->nrefused++];

            r->ctx = ctx;
            r->peer = peer;
            r->len = len;
            r->roffset = roffset;
            r->key = rkey->key;
            return RTOPO_OK;
        }
        return rtopo__error(RTOPO_ERR_INVAL, "shm: write of %zu bytes at offset %llu of "
                            "region 0x%llx (key 0x%llx) of rank %d: no such region open "
                            "to writes there, or out of its bounds", len,
                            (unsigned long long)roffset, (unsigned long long)rkey->addr,
                            (unsigned long long)rkey->key, peer);
    }
    if (small) {
        struct shm_wrec w = { rkey->addr + roffset, rkey->key };

        shm_push(t, p, (flags & RTOPO__TL_IMM) ? SHM_REC_WRITE_IMM : SHM_REC_WRITE, &w,
                 sizeof(w), buf, len, len, imm);
    } else {
        if ((st = shm_cma(t, peer, buf, len, rkey->addr + roffset)))
            return st == RTOPO_ERR_PEER ? shm_to_dead(t, peer, ctx) : st;
        if (flags & RTOPO__TL_IMM)
            shm_push(t, p, SHM_REC_IMM, NULL, 0, NULL, 0, len, imm);
    }
    if (!(flags & RTOPO__TL_INJECT))
        shm_comp_push(t, RTOPO__TL_EV_WRITE_DONE, peer, ctx);
    return RTOPO_OK;
}

/* A control message given in two pieces goes into the ring in one record,
 * both copied before the call returns: neither piece is read later, ctx
 * set or not. */
static int shm_sendv(struct rtopo__tl *tl, int peer, const void *hdr, size_t hlen,
                     const void *payload, size_t plen, void *ctx)
{
    struct shm_tl *t = shm_tl(tl);
    struct shm_peer *p;
    int st;

    if (!(p = shm_tx_peer(t, peer, "send", &st)))
        return st;
    if (plen > t->ctrl_size || hlen > t->ctrl_size - plen)
        return rtopo__error(RTOPO_ERR_INVAL, "control message of %zu bytes > %zu",
                            hlen + plen, t->ctrl_size);
    if (ctx && shm_comp_full(t))
        return RTOPO_ERR_BUSY;
    if (p->dead)
        return shm_to_dead(t, peer, ctx);
    if (!shm_room(t, p, hlen + plen))
        return shm_gone(t, peer) ? shm_to_dead(t, peer, ctx) : RTOPO_ERR_BUSY;
    shm_push(t, p, SHM_REC_MSG, hdr, hlen, payload, plen, hlen + plen, 0);
    if (ctx)
        shm_comp_push(t, RTOPO__TL_EV_SEND_DONE, peer, ctx);
    return RTOPO_OK;
}

static int shm_send(struct rtopo__tl *tl, int peer, const void *buf, size_t len, void *ctx)
{
    return shm_sendv(tl, peer, buf, len, NULL, 0, ctx);
}

/* ---- completions ------------------------------------------------------------- */

/* hands back the ring space of the records the last poll delivered */
static void shm_release(struct shm_tl *t, struct shm_peer *p)
{
    /* a full barrier: the sender sets want, then reads head again */
    __atomic_exchange_n(&p->rx_ctl->head, p->rx_pos, __ATOMIC_SEQ_CST);
    p->rx_rel = p->rx_pos;
    if (__atomic_load_n(&p->rx_ctl->want, __ATOMIC_RELAXED) &&
        __atomic_exchange_n(&p->rx_ctl->want, 0, __ATOMIC_RELAXED) && p->hdr) {
        if (__atomic_load_n(&p->hdr->sleeping, __ATOMIC_SEQ_CST) == SHM_SLEEP_FD)
            shm_wake_peer(p, SHM_SLEEP_FD);
        else
            shm_wake(p->hdr);
    }
}

/* a write that came in the ring: into our region, if the key is still
 * open there and the range inside it */
static void shm_land(struct shm_tl *t, int peer, const struct shm_wrec *w, size_t len)
{
    uint64_t idx = (w->key & 0xffffffffu) - 1;
    const struct shm_mr_ent *e = &t->mr[idx < SHM_NMR ? idx : 0];
    /* (shm_mem_close may clear it from another thread) */
    uint64_t key = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);

    if (w->key == 0 || idx >= SHM_NMR || key != w->key || w->addr < e->addr ||
        w->addr - e->addr > e->len || len > e->len - (w->addr - e->addr)) {
        rtopo__debug("shm: dropped a write of %zu bytes from rank %d to 0x%llx: key "
                     "0x%llx is not open to it", len, peer, (unsigned long long)w->addr,
                     (unsigned long long)w->key);
        return;
    }
    memcpy((void *)(uintptr_t)w->addr, w + 1, len);
}

static inline int shm_rx_ready(struct shm_peer *p, size_t R)
{
    const struct shm_rec *r = (const void *)(p->rx_ring + (p->rx_pos & (R - 1)));

    return (__atomic_load_n(&r->tag, __ATOMIC_ACQUIRE) & ~(uint64_t)15) ==
           (p->rx_pos ^ p->rx_key);
}

static const char *shm_rec_name(unsigned type)
{
    switch (type) {
    case SHM_REC_MSG:       return "message";
    case SHM_REC_IMM:       return "immediate";
    case SHM_REC_PAD:       return "pad";
    case SHM_REC_WRITE:     return "write";
    case SHM_REC_WRITE_IMM: return "write with immediate";
    }
    return "no such type";
}

/* Says what a record that cannot be one looked like, for whoever has
 * to find out how it came there: its fields, its raw bytes and the 16
 * after them, and whether they change within a millisecond (the sender
 * still writing there: space not yet released was reused) or not (bytes
 * written there by something else, or a record the sender got wrong). */
static void shm_rx_bad(struct shm_tl *t, int peer, const struct shm_rec *r, uint64_t off,
                       uint64_t tag)
{
    struct shm_peer *p = &t->peers[peer];
    size_t R = t->ring_size, n = off + 32 <= R ? 32 : 16, i;
    unsigned char before[32], after[32];
    char hex[2][72];
    struct timespec ms = { 0, 1000000 };
    int changed;

    memcpy(before, r, n);
    nanosleep(&ms, NULL);
    memcpy(after, (const void *)r, n);
    changed = memcmp(before, after, n) != 0;
    for (i = 0; i < n; i++) {
        snprintf(hex[0] + 2 * i, 3, "%02x", before[i]);
        snprintf(hex[1] + 2 * i, 3, "%02x", after[i]);
    }
    rtopo__warn("shm: malformed record from rank %d at %llu (offset %llu of a ring of %zu "
                "bytes, %llu released): type %u (%s), len %u, imm 0x%x (control messages "
                "up to %zu bytes, writes in the ring up to %d); bytes %s%s%s: its ring is "
                "dropped", peer, (unsigned long long)p->rx_pos, (unsigned long long)off, R,
                (unsigned long long)p->rx_rel, (unsigned)(tag & 15),
                shm_rec_name((unsigned)(tag & 15)), r->len, r->imm, t->ctrl_size,
                SHM_INLINE_MAX, hex[0], changed ? ", a millisecond later " : " (unchanged "
                "a millisecond later)", changed ? hex[1] : "");
}

/* records of one sender's ring into ev[]; returns how many events */
static int shm_rx(struct shm_tl *t, int peer, rtopo__tl_event_t *ev, int max)
{
    struct shm_peer *p = &t->peers[peer];
    size_t R = t->ring_size;
    const struct shm_rec *r;
    uint64_t tag, off;
    int n = 0;

    while (n < max) {
        off = p->rx_pos & (R - 1);
        r = (const void *)(p->rx_ring + off);
        tag = __atomic_load_n(&r->tag, __ATOMIC_ACQUIRE);
        if ((tag & ~(uint64_t)15) != (p->rx_pos ^ p->rx_key))
            break;
        switch (tag & 15) {
        case SHM_REC_MSG:
            if (r->len > t->ctrl_size || off + shm_rec_size(r->len) > R)
                goto bad;
            memset(&ev[n], 0, offsetof(rtopo__tl_event_t, msg) + 1);
            ev[n].type = RTOPO__TL_EV_RECV;
            ev[n].peer = peer;
            ev[n].data = r + 1;
            ev[n].len = r->len;
            n++;
            p->rx_pos += shm_rec_size(r->len);
            break;
        case SHM_REC_IMM:
            memset(&ev[n], 0, offsetof(rtopo__tl_event_t, msg) + 1);
            ev[n].type = RTOPO__TL_EV_IMM;
            ev[n].peer = peer;
            ev[n].imm = r->imm;
            ev[n].len = r->len;
            n++;
            p->rx_pos += shm_rec_size(0);
            break;
        case SHM_REC_WRITE:
        case SHM_REC_WRITE_IMM:
            if (r->len > SHM_INLINE_MAX ||
                off + shm_rec_size(sizeof(struct shm_wrec) + r->len) > R)
                goto bad;
            shm_land(t, peer, (const struct shm_wrec *)(r + 1), r->len);
            p->rx_pos += shm_rec_size(sizeof(struct shm_wrec) + r->len);
            if ((tag & 15) == SHM_REC_WRITE)
                break;
            memset(&ev[n], 0, offsetof(rtopo__tl_event_t, msg) + 1);
            ev[n].type = RTOPO__TL_EV_IMM;
            ev[n].peer = peer;
            ev[n].imm = r->imm;
            ev[n].len = r->len;
            n++;
            break;
        case SHM_REC_PAD:
            if (off + r->len != R)
                goto bad;
            p->rx_pos += r->len;
            break;
        default:
            goto bad;
        }
    }
    return n;
bad:
    shm_rx_bad(t, peer, r, off, tag);
    shm_peer_dead(t, peer, "sent a malformed record");
    p->rx_key = ~(uint64_t)15;   /* no tag matches any more */
    return n;
}

/* a whole poll: what shm_poll does unless it finds nothing (out of line:
 * the pass that finds nothing saves the registers this one needs) */
static __attribute__((noinline)) int shm_poll_all(struct shm_tl *t, rtopo__tl_event_t *ev,
                                                  int max)
{
    struct shm_peer *p;
    struct shm_comp *c;
    uint64_t now;
    int n = 0, i, k;

    if (t->fd_armed) {    /* back from a sleep on the eventfd */
        __atomic_store_n(&t->hdr->sleeping, 0, __ATOMIC_RELAXED);
        t->fd_armed = 0;
    }
    for (i = 0; i < t->nactive; i++) {
        p = &t->peers[t->active[i]];
        if (p->rx_pos != p->rx_rel)
            shm_release(t, p);
    }
    shm_scan_senders(t);
    while (n < max && t->comp_head != t->comp_tail) {
        c = &t->comp[t->comp_head++ & (SHM_NCOMP - 1)];
        memset(&ev[n], 0, offsetof(rtopo__tl_event_t, msg) + 1);
        ev[n].type = c->type;
        ev[n].peer = c->peer;
        ev[n].ctx = c->ctx;
        if (c->type == RTOPO__TL_EV_ERROR) {
            ev[n].status = RTOPO_ERR_PEER;
            snprintf(ev[n].msg, sizeof(ev[n].msg), "shm: rank %d (pid %d) %s", c->peer,
                     (int)t->peers[c->peer].pid, t->peers[c->peer].why);
        }
        n++;
    }
    /* each poll starts with the next sender: none is starved */
    for (k = 0, i = t->rr; k < t->nactive && n < max; k++) {
        /* (an empty ring costs one look at its next tag, not a call) */
        if (shm_rx_ready(&t->peers[t->active[i]], t->ring_size))
            n += shm_rx(t, t->active[i], ev + n, max - n);
        if (++i == t->nactive)
            i = 0;
    }
    if (++t->rr >= t->nactive)
        t->rr = 0;
    /* look at the peers now and then (a clock read every 64 polls) */
    if (!(++t->npoll & 63)) {
        now = rtopo__now_ns();
        if (now >= t->next_check)
            shm_check_peers(t, now);
    }
    /* refused writes, after the messages that came before */
    for (k = 0; k < t->nrefused && n < max; k++) {
        struct shm_refused *r = &t->refused[k];

        memset(&ev[n], 0, sizeof(ev[n]));
        ev[n].type = RTOPO__TL_EV_ERROR;
        ev[n].peer = r->peer;
        ev[n].ctx = r->ctx;
        ev[n].status = RTOPO_ERR_TRANSPORT;
        snprintf(ev[n].msg, sizeof(ev[n].msg), "shm: write of %zu B at %llu under key "
                 "0x%llx: not in a region rank %d opened to writes", r->len,
                 (unsigned long long)r->roffset, (unsigned long long)r->key, r->peer);
        n++;
    }
    if (k) {
        memmove(t->refused, t->refused + k, (size_t)(t->nrefused - k) * sizeof(*t->refused));
        t->nrefused -= k;
    }
    /* with more ranks than cpus, let the one we wait for run */
    if (n == 0 && t->yield)
        sched_yield();
    /* a dead peer's records above still count; then its error */
    for (k = 0; t->ndead && k < t->nranks && n < max; k++) {
        p = &t->peers[k];
        if (p->dead != 1)
            continue;
        p->dead = 2;
        t->ndead--;
        memset(&ev[n], 0, sizeof(ev[n]));
        ev[n].type = RTOPO__TL_EV_ERROR;
        ev[n].peer = k;
        ev[n].status = RTOPO_ERR_PEER;
        snprintf(ev[n].msg, sizeof(ev[n].msg), "shm: rank %d (pid %d) %s", k, (int)p->pid,
                 p->why);
        n++;
    }
    return n;
}

static int shm_poll(struct rtopo__tl *tl, rtopo__tl_event_t *ev, int max)
{
    struct shm_tl *t = shm_tl(tl);
    struct shm_peer *p;
    int i;

    /* The pass of a wait that finds nothing: no record in any ring, none
     * to hand back, no completion, refusal or death to report, no new
     * sender, no look at the peers due.  One look at each ring's next tag
     * and out, with the counters of the full pass kept alike. */
    if (!t->fd_armed && t->comp_head == t->comp_tail && !t->nrefused && !t->ndead &&
        ((t->npoll + 1) & 63) &&
        __atomic_load_n(&t->hdr->conn_gen, __ATOMIC_ACQUIRE) == t->seen_gen) {
        for (i = 0; i < t->nactive; i++) {
            p = &t->peers[t->active[i]];
            if (p->rx_pos != p->rx_rel || shm_rx_ready(p, t->ring_size))
                return shm_poll_all(t, ev, max);
        }
        t->npoll++;
        if (++t->rr >= t->nactive)
            t->rr = 0;
        if (t->yield)
            sched_yield();
        return 0;
    }
    return shm_poll_all(t, ev, max);
}

/* anything for poll()? */
static int shm_ready(struct shm_tl *t)
{
    struct shm_peer *p;
    int i;

    if (t->comp_head != t->comp_tail || t->ndead || t->nrefused ||
        __atomic_load_n(&t->hdr->conn_gen, __ATOMIC_ACQUIRE) != t->seen_gen)
        return 1;
    for (i = 0; i < t->nactive; i++) {
        p = &t->peers[t->active[i]];
        if (shm_rx_ready(p, t->ring_size))
            return 1;
        /* a sender waits for space that only the next poll frees */
        if (p->rx_pos != p->rx_rel && __atomic_load_n(&p->rx_ctl->want, __ATOMIC_RELAXED))
            return 1;
    }
    return 0;
}

static int shm_wait(struct rtopo__tl *tl, int timeout_ms)
{
    struct shm_tl *t = shm_tl(tl);
    uint64_t now;
    uint32_t seq;

    if (timeout_ms <= 0 || shm_ready(t))
        return RTOPO_OK;
    now = rtopo__now_ns();
    if (now + SHM_CHECK_NS - SHM_WCHECK_NS >= t->next_check) {
        shm_check_peers(t, now);
        if (t->ndead)
            return RTOPO_OK;
    }
    seq = __atomic_load_n(&t->hdr->doorbell, __ATOMIC_ACQUIRE);
    __atomic_store_n(&t->hdr->sleeping, 1, __ATOMIC_SEQ_CST);
    /* a wake after this look bumps the doorbell after seq was read */
    if (!shm_ready(t))
        shm_futex_wait(&t->hdr->doorbell, seq, timeout_ms);
    __atomic_store_n(&t->hdr->sleeping, 0, __ATOMIC_RELAXED);
    return RTOPO_OK;
}

/* The eventfd a caller sleeps on beside another backend's descriptor.
 * It is watched edge triggered (every sender's write is an edge), so it
 * is never drained; the next poll() ends the sleep for the senders. */
static int shm_wait_fd(struct rtopo__tl *tl, int *fd)
{
    struct shm_tl *t = shm_tl(tl);
    uint64_t now;

    if (t->wake_fd < 0)
        return RTOPO_ERR_UNSUPPORTED;
    if (shm_ready(t))
        return RTOPO_ERR_BUSY;
    now = rtopo__now_ns();
    if (now + SHM_CHECK_NS - SHM_WCHECK_NS >= t->next_check) {
        shm_check_peers(t, now);
        if (t->ndead)
            return RTOPO_ERR_BUSY;
    }
    t->fd_armed = 1;
    __atomic_store_n(&t->hdr->sleeping, SHM_SLEEP_FD, __ATOMIC_SEQ_CST);
    /* a record published after this look finds the flag set */
    if (shm_ready(t))
        return RTOPO_ERR_BUSY;
    *fd = t->wake_fd;
    return RTOPO_OK;
}

static void shm_info(const char *transport, void (*out)(const char *line, void *arg),
                     void *arg)
{
    char line[384], why[160];
    int scope = shm_ptrace_scope();

    if (transport && !shm_match(transport))
        return;
    if (access("/dev/shm", W_OK | X_OK))
        snprintf(why, sizeof(why), "not usable: /dev/shm: %s", strerror(errno));
    else if (shm_cma_blocked(why, sizeof(why)))
        ;
    else
        snprintf(why, sizeof(why), "usable%s", scope == 1 ?
                 " (ptrace_scope 1: ranks admit their peers with PR_SET_PTRACER)" : "");
    snprintf(line, sizeof(line), "%-8s native shared memory: rings in /dev/shm, "
             "single-copy writes by cross-memory attach, max write %zu, inject %d; %s",
             "shm", SHM_MAX_WRITE, SHM_INJECT_MAX, why);
    out(line, arg);
}

const struct rtopo__tl_ops rtopo__tl_shm = {
    .size = sizeof(struct rtopo__tl_ops),
    .name = "shm",
    .match = shm_match,
    .available = shm_available,
    .open = shm_open_tl,
    .close = shm_close,
    .query = shm_query,
    .addr_get = shm_addr_get,
    .connect = shm_connect,
    .mem_reg = shm_mem_reg,
    .mem_dereg = shm_mem_dereg,
    .mem_rkey = shm_mem_rkey,
    .mem_close = shm_mem_close,
    .write = shm_write,
    .send = shm_send,
    .poll = shm_poll,
    .wait = shm_wait,
    .info = shm_info,
    .sendv = shm_sendv,
    .wait_fd = shm_wait_fd,
};
