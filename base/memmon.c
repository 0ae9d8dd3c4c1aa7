/*
 * memmon.c - hearing of memory that leaves the process (memmon.h).
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include "memmon.h"

#if defined(__linux__) && defined(SYS_userfaultfd)
#include <linux/userfaultfd.h>
#define RTOPO__HAVE_UFFD 1
#endif

struct rtopo__memmon {
    int fd;                 /* the userfaultfd */
    int stop[2];            /* a byte here ends the thread */
    pthread_t thread;
    atomic_int busy;        /* events read and not yet all reported */
    rtopo__memmon_fn fn;
    void *arg;
};

#ifdef RTOPO__HAVE_UFFD

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

static void *rtopo__memmon_main(void *p)
{
    rtopo__memmon_t *mm = p;
    struct pollfd pf[2] = { { mm->fd, POLLIN, 0 }, { mm->stop[0], POLLIN, 0 } };
    struct uffd_msg msg[16];
    ssize_t n, i;

    for (;;) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (pf[1].revents)
            break;
        if (!(pf[0].revents & POLLIN)) {
            if (pf[0].revents & (POLLERR | POLLHUP | POLLNVAL))
                break;
            continue;
        }
        /* busy before the read: the thread held in munmap goes on once
         * its event is read, and a lookup after that must wait for the
         * report (rtopo__memmon_sync) */
        atomic_store(&mm->busy, 1);
        n = read(mm->fd, msg, sizeof(msg));
        for (i = 0; n > 0 && i < n / (ssize_t)sizeof(msg[0]); i++) {
            switch (msg[i].event) {
            case UFFD_EVENT_UNMAP:
            case UFFD_EVENT_REMOVE:
                mm->fn(mm->arg, (uintptr_t)msg[i].arg.remove.start,
                       (uintptr_t)msg[i].arg.remove.end);
                break;
            case UFFD_EVENT_REMAP:
                mm->fn(mm->arg, (uintptr_t)msg[i].arg.remap.from,
                       (uintptr_t)(msg[i].arg.remap.from + msg[i].arg.remap.len));
                break;
            default:
                /* nothing is write-protected, so no fault comes; were
                 * one to, the range could no longer be trusted */
                if (msg[i].event == UFFD_EVENT_PAGEFAULT) {
                    uintptr_t a = (uintptr_t)msg[i].arg.pagefault.address;
                    long pg = sysconf(_SC_PAGESIZE);
                    struct uffdio_range r;

                    a &= ~(uintptr_t)(pg - 1);
                    mm->fn(mm->arg, a, a + (uintptr_t)pg);
                    r.start = a;
                    r.len = (unsigned long long)pg;
                    ioctl(mm->fd, UFFDIO_UNREGISTER, &r);   /* wakes the fault */
                }
                break;
            }
        }
        atomic_store(&mm->busy, 0);
    }
    return NULL;
}

static int rtopo__uffd_new(uint64_t features)
{
    struct uffdio_api api;
    int fd, err;

    fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
    if (fd < 0 && errno == EINVAL)   /* kernels before 5.11 */
        fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    memset(&api, 0, sizeof(api));
    api.api = UFFD_API;
    api.features = features;
    if (ioctl(fd, UFFDIO_API, &api) < 0) {
        err = errno;
        close(fd);
        return -err;
    }
    return fd;
}

int rtopo__memmon_open(rtopo__memmon_fn fn, void *arg, rtopo__memmon_t **mm_p,
                       const char **why)
{
    const uint64_t need = UFFD_FEATURE_EVENT_UNMAP | UFFD_FEATURE_EVENT_REMOVE |
                          UFFD_FEATURE_EVENT_REMAP;
    rtopo__memmon_t *mm;
    int err;

    *mm_p = NULL;
    mm = calloc(1, sizeof(*mm));
    if (!mm) {
        *why = "out of memory";
        return -ENOMEM;
    }
    mm->fn = fn;
    mm->arg = arg;
    mm->stop[0] = mm->stop[1] = -1;
    mm->fd = rtopo__uffd_new(need);
    if (mm->fd < 0) {
        err = mm->fd;
        *why = err == -EPERM || err == -EACCES ? "userfaultfd not permitted" :
               err == -ENOSYS ? "no userfaultfd in this kernel" :
               err == -EINVAL ? "userfaultfd without unmap events" : "userfaultfd failed";
        free(mm);
        return err;
    }
    if (pipe2(mm->stop, O_CLOEXEC)) {
        err = -errno;
        *why = "pipe failed";
        goto fail;
    }
    err = -pthread_create(&mm->thread, NULL, rtopo__memmon_main, mm);
    if (err) {
        *why = "thread creation failed";
        goto fail;
    }
    *mm_p = mm;
    return 0;
fail:
    if (mm->stop[0] >= 0) {
        close(mm->stop[0]);
        close(mm->stop[1]);
    }
    close(mm->fd);
    free(mm);
    return err;
}

/* Is all of [a, b) private anonymous memory (malloc's heap, anonymous
 * mmap, the stack)?  From /proc/self/maps, whose lines come in address
 * order: "start-end perms offset dev inode [path]"; such a mapping has
 * inode 0, a 'p' in perms, and no path or a bracketed one. */
static int rtopo__private_anon(uintptr_t a, uintptr_t b)
{
    char line[512], *path;
    unsigned long s, e, ino;
    char perms[8];
    uintptr_t covered = a;
    FILE *f = fopen("/proc/self/maps", "re");
    int ok, n;

    if (!f)
        return 0;
    while (covered < b && fgets(line, sizeof(line), f)) {
        if (!strchr(line, '\n')) {   /* a long path: skip the rest */
            int c;

            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
        }
        n = 0;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %lu %n", &s, &e, perms, &ino, &n) < 4 || !n)
            break;
        if (e <= covered)
            continue;
        if (s > covered)
            break;   /* a hole */
        path = line + n;
        if (ino != 0 || perms[3] != 'p' || (*path != '\n' && *path != '\0' && *path != '['))
            break;
        covered = e;
    }
    ok = covered >= b;
    fclose(f);
    return ok;
}

int rtopo__memmon_watch(rtopo__memmon_t *mm, const void *buf, size_t len, int anon_only)
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a, b;
    struct uffdio_register reg;

    if (!mm || len == 0)
        return -EINVAL;
    a = (uintptr_t)buf & ~(pg - 1);
    b = ((uintptr_t)buf + len + pg - 1) & ~(pg - 1);
    if (anon_only && !rtopo__private_anon(a, b))
        return -EINVAL;
    memset(&reg, 0, sizeof(reg));
    reg.range.start = a;
    reg.range.len = b - a;
    reg.mode = UFFDIO_REGISTER_MODE_WP;
    if (ioctl(mm->fd, UFFDIO_REGISTER, &reg) < 0)
        return -errno;
    return 0;
}

void rtopo__memmon_sync(rtopo__memmon_t *mm)
{
    while (mm && atomic_load(&mm->busy))
        sched_yield();
}

void rtopo__memmon_close(rtopo__memmon_t *mm)
{
    char c = 0;

    if (!mm)
        return;
    while (write(mm->stop[1], &c, 1) < 0 && errno == EINTR)
        ;
    pthread_join(mm->thread, NULL);
    close(mm->stop[0]);
    close(mm->stop[1]);
    close(mm->fd);   /* drops every watch */
    free(mm);
}

#else /* no userfaultfd */

int rtopo__memmon_open(rtopo__memmon_fn fn, void *arg, rtopo__memmon_t **mm_p,
                       const char **why)
{
    (void)fn;
    (void)arg;
    *mm_p = NULL;
    *why = "no userfaultfd on this system";
    return -ENOSYS;
}

int rtopo__memmon_watch(rtopo__memmon_t *mm, const void *buf, size_t len, int anon_only)
{
    (void)anon_only;
    (void)mm;
    (void)buf;
    (void)len;
    return -ENOSYS;
}

void rtopo__memmon_sync(rtopo__memmon_t *mm)
{
    (void)mm;
}

void rtopo__memmon_close(rtopo__memmon_t *mm)
{
    (void)mm;
}

#endif
