/*
 * run_hosts.c - emulated hosts of rtopo-run (see run_hosts.h).
 *
 * rtopo-run itself moves into new network, mount and UTS namespaces: the
 * job's "switch" and head node.  There a bridge, rtbr0, holds 10.77.0.1/16.
 * Each host is a small holder process (forked here, sleeping until the
 * job ends) with network, UTS and mount namespaces of its own: loopback,
 * eth0 (the far end of a veth pair whose near end, rth<h>, is a port of
 * the bridge) with 10.77.x.y/16, the hostname rtopo-host<h> and a tmpfs of
 * its own on /dev/shm.  A rank joins its host's namespaces with setns()
 * before it executes the program.  Nothing is added to the machine's
 * network stack; every namespace ends with its last process, and every
 * process here dies with rtopo-run (PR_SET_PDEATHSIG), also on SIGKILL.
 * The commands are iproute2's ip and tc, run with fork and exec.
 */
#define _GNU_SOURCE
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "run_hosts.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000    /* linux/if.h: the driver signals carrier */
#endif

#define RH_BRIDGE "rtbr0"
#define RH_NET    "10.77"        /* 10.77.0.0/16, inside the job's namespace */

static struct {
    int on;
    int hosts;
    int quiet;
    pid_t *holder;             /* per host */
    int *ifindex;              /* of rth<h> in the job's namespace */
    unsigned char *down;       /* reported down */
    unsigned char *pending;    /* down, not returned by rh_link_event yet */
    int nl_fd;
    const char *info_file;
    char cwd[PATH_MAX];
    pid_t launcher;            /* --exec-launcher's command */
} rh = { .nl_fd = -1 };

static void rh_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void rh_msg(const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    fputs("rtopo-run: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

static int rh_round_robin;   /* --map-by host */

int rh_map_by(const char *how)
{
    if (strcmp(how, "slot") && strcmp(how, "host")) {
        rh_msg("--map-by '%s' is not slot (blocks of ranks) or host (round robin)", how);
        return -1;
    }
    rh_round_robin = !strcmp(how, "host");
    return 0;
}

int rh_host_of(int n, int h, int r)
{
    int base = n / h, extra = n % h;

    if (rh_round_robin)
        return r % h;

    return r < extra * (base + 1) ? r / (base + 1) :
           extra + (r - extra * (base + 1)) / base;
}

const char *rh_host_name(int h)
{
    static char buf[32];

    snprintf(buf, sizeof(buf), "rtopo-host%d", h);
    return buf;
}

/* the address of host h (-1: the bridge) in 10.77.0.0/16 */
static void rh_host_addr(int h, char *buf, size_t cap)
{
    int a = h + 2;

    if (h < 0)
        snprintf(buf, cap, RH_NET ".0.1");
    else
        snprintf(buf, cap, RH_NET ".%d.%d", a / 256, a % 256);
}

/* ---- rates ---------------------------------------------------------- */

/* RATE in bytes per second: digits[.digits] and a unit of tc's (bit,
 * kbit, mbit, gbit, tbit: bits; bps, kbps, mbps, gbps: bytes), 0 if bad */
static double rh_rate_bytes(const char *s)
{
    static const struct { const char *u; double f; } units[] = {
        { "bit", 1 / 8.0 }, { "kbit", 1e3 / 8 }, { "mbit", 1e6 / 8 },
        { "gbit", 1e9 / 8 }, { "tbit", 1e12 / 8 }, { "bps", 1 },
        { "kbps", 1e3 }, { "mbps", 1e6 }, { "gbps", 1e9 },
    };
    const char *t;
    char *end;
    double v;
    size_t i;

    for (t = s; (*t >= '0' && *t <= '9') || *t == '.'; t++)
        ;
    if (t == s)
        return 0;
    v = strtod(s, &end);
    if (end != t || !(v > 0))
        return 0;
    for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (!strcasecmp(t, units[i].u)) {
            v *= units[i].f;
            /* tc keeps rates in 64 bits of bytes per second; below 1 kB/s
             * the token bucket makes no sense */
            return v >= 1000 && v <= 1e12 ? v : 0;
        }
    return 0;
}

int rh_rate_ok(const char *opt, const char *rate)
{
    if (rh_rate_bytes(rate) > 0)
        return 0;
    fprintf(stderr, "rtopo-run: %s '%s' is not a rate from 8kbit to 8tbit "
            "(a number and one of bit, kbit, mbit, gbit, tbit, bps, kbps, mbps, "
            "gbps; for instance 100mbit)\n", opt, rate);
    return -1;
}

/* HOST:RATE, HOST a host number or rtopo-host<h>: the host, or -1 */
static int rh_host_link_host(const char *arg, int hosts, const char **rate)
{
    const char *colon = strrchr(arg, ':'), *p = arg;
    char *end;
    long h;

    if (!colon)
        return -1;
    if (!strncmp(p, "rtopo-host", 10))
        p += 10;
    if (p == colon || *p < '0' || *p > '9')
        return -1;
    h = strtol(p, &end, 10);
    if (end != colon || h < 0 || h >= hosts)
        return -1;
    *rate = colon + 1;
    return (int)h;
}

int rh_host_link_ok(const char *arg, int hosts)
{
    const char *rate;

    if (rh_host_link_host(arg, hosts, &rate) < 0) {
        fprintf(stderr, "rtopo-run: --host-link '%s' is not HOST:RATE with "
                "HOST a host from 0 to %d (or rtopo-host0 ...)\n", arg, hosts - 1);
        return -1;
    }
    return rh_rate_ok("--host-link", rate);
}

/* ---- commands ------------------------------------------------------- */

/* runs the command line CMD (words separated by spaces) in the network
 * namespace of process ns (0: ours); 0 when it exited with status 0 */
static int rh_cmd(pid_t ns, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int rh_cmd(pid_t ns, const char *fmt, ...)
{
    char line[512], *argv[32], *save = NULL, *w, path[64];
    va_list ap;
    int argc = 0, status, fd;
    pid_t pid;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    for (w = strtok_r(line, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
        argv[argc++] = w;
    argv[argc] = NULL;
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (ns) {
            snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)ns);
            fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0 || setns(fd, CLONE_NEWNET)) {
                dprintf(2, "rtopo-run: entering the network namespace of "
                        "host process %d: %m\n", (int)ns);
                _exit(126);
            }
        }
        fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 1);
        execvp(argv[0], argv);
        if (errno != ENOENT)
            dprintf(2, "rtopo-run: cannot execute %s: %m\n", argv[0]);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* ---- hosts ---------------------------------------------------------- */

/* the holder of a host: new namespaces, then sleep until killed */
static void rh_holder(int h, pid_t parent, int wfd)
{
    const char *name = rh_host_name(h);
    int err = 0;

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    /* away from the terminal's signals: the job ends it */
    setpgid(0, 0);
    if (unshare(CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWNS) ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
        mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") ||
        sethostname(name, strlen(name)))
        err = errno ? errno : EINVAL;
    if (write(wfd, &err, sizeof(err)) != (ssize_t)sizeof(err) || err)
        _exit(1);
    close(wfd);
    for (;;)
        pause();
}

static int rh_tbf(pid_t ns, const char *dev, double bytes)
{
    /* a burst of 10 ms at the rate, at least 64 KiB (a GSO segment and
     * the timer's resolution) */
    double burst = bytes / 100 < 65536 ? 65536 : bytes / 100;

    return rh_cmd(ns, "tc qdisc replace dev %s root tbf rate %.0fbit burst %.0f "
                  "latency 100ms", dev, bytes * 8, burst);
}

static int rh_host_up(int h, const char *rate)
{
    char addr[32], dev[IFNAMSIZ];
    int fds[2], err = -1;
    pid_t pid, parent = getpid();

    if (pipe2(fds, O_CLOEXEC))
        return -1;
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        rh_holder(h, parent, fds[1]);
    }
    close(fds[1]);
    rh.holder[h] = pid;
    if (read(fds[0], &err, sizeof(err)) != (ssize_t)sizeof(err))
        err = EIO;
    close(fds[0]);
    if (err) {
        rh_msg("--hosts: namespaces of host %s: %s", rh_host_name(h), strerror(err));
        return -1;
    }
    snprintf(dev, sizeof(dev), "rth%d", h);
    rh_host_addr(h, addr, sizeof(addr));
    if (rh_cmd(0, "ip link add %s type veth peer name eth0 netns %d", dev, (int)pid) ||
        rh_cmd(0, "ip link set %s master " RH_BRIDGE " up", dev) ||
        rh_cmd(pid, "ip link set lo up") ||
        rh_cmd(pid, "ip addr add %s/16 dev eth0", addr) ||
        rh_cmd(pid, "ip link set eth0 up"))
        return -1;
    /* both directions of the host's link */
    if (rate && (rh_tbf(0, dev, rh_rate_bytes(rate)) ||
                 rh_tbf(pid, "eth0", rh_rate_bytes(rate))))
        return -1;
    rh.ifindex[h] = (int)if_nametoindex(dev);
    return 0;
}

/* /etc/hosts of the job: the machine's, and the head and the hosts.  The
 * head node has a /dev/shm of its own too; the file is made there, bound
 * onto /etc/hosts and unlinked (the mount keeps it). */
static int rh_etc_hosts(void)
{
    static const char tmp[] = "/dev/shm/.rtopo-etc-hosts";
    char addr[32], buf[4096];
    FILE *in, *out;
    size_t n;
    int h, st = -1;

    if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") ||
        !(out = fopen(tmp, "we")))
        return -1;
    if ((in = fopen("/etc/hosts", "re"))) {
        while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
            fwrite(buf, 1, n, out);
        fclose(in);
    }
    fputs("\n# hosts of this rtopo-run job\n" RH_NET ".0.1\trtopo-head\n", out);
    for (h = 0; h < rh.hosts; h++) {
        rh_host_addr(h, addr, sizeof(addr));
        fprintf(out, "%s\t%s\n", addr, rh_host_name(h));
    }
    if (fclose(out) == 0 && !mount(tmp, "/etc/hosts", NULL, MS_BIND, NULL)) {
        st = 0;
        mount(NULL, "/etc/hosts", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
    }
    unlink(tmp);
    return st;
}

static void rh_kill_holders(void)
{
    int h;

    for (h = 0; h < rh.hosts; h++)
        if (rh.holder && rh.holder[h] > 0) {
            kill(rh.holder[h], SIGKILL);
            while (waitpid(rh.holder[h], NULL, 0) < 0 && errno == EINTR)
                ;
            rh.holder[h] = 0;
        }
}

int rh_setup(const struct rh_opts *o)
{
    const char *why = NULL, *one_rate = NULL;
    int orig[3] = { -1, -1, -1 }, h, one = -1, i, err;
    static const int types[3] = { CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWUTS };
    static const char *const files[3] = { "net", "mnt", "uts" };
    char path[32];

    rh.quiet = o->quiet;
    rh.info_file = o->info_file;
    rh.hosts = o->hosts;
    if (!o->hosts || o->no_netns)
        return 0;
    if (o->host_link)
        one = rh_host_link_host(o->host_link, o->hosts, &one_rate);
    if (!getcwd(rh.cwd, sizeof(rh.cwd))) {
        rh_msg("getcwd: %m");
        return -1;
    }
    rh.holder = calloc((size_t)rh.hosts, sizeof(*rh.holder));
    rh.ifindex = calloc((size_t)rh.hosts, sizeof(*rh.ifindex));
    rh.down = calloc((size_t)rh.hosts, 1);
    rh.pending = calloc((size_t)rh.hosts, 1);
    if (!rh.holder || !rh.ifindex || !rh.down || !rh.pending) {
        rh_msg("calloc: %m");
        return -1;
    }
    if (rh_cmd(0, "ip -V") || rh_cmd(0, "tc -V")) {
        why = "ip and tc (iproute2) are not installed";
        goto fallback;
    }
    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "/proc/self/ns/%s", files[i]);
        if ((orig[i] = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
            why = "/proc/self/ns cannot be read";
            goto fallback;
        }
    }
    if (unshare(CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWUTS)) {
        err = errno;
        why = err == EPERM ? "creating namespaces needs root (CAP_SYS_ADMIN and "
                             "CAP_NET_ADMIN)" : strerror(err);
        goto fallback;
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
        sethostname("rtopo-head", 10)) {
        why = "the job's mount or UTS namespace refused changes";
        goto revert;
    }
    if (rh_etc_hosts()) {
        why = "/etc/hosts cannot be replaced inside the job";
        goto revert;
    }
    if (rh_cmd(0, "ip link set lo up") ||
        rh_cmd(0, "ip link add " RH_BRIDGE " type bridge") ||
        rh_cmd(0, "ip addr add " RH_NET ".0.1/16 dev " RH_BRIDGE) ||
        rh_cmd(0, "ip link set " RH_BRIDGE " up")) {
        why = "the job's bridge cannot be created";
        goto revert;
    }
    for (h = 0; h < rh.hosts; h++)
        if (rh_host_up(h, h == one ? one_rate : o->link_rate)) {
            why = "a host's namespaces or link cannot be set up";
            goto revert;
        }
    for (i = 0; i < 3; i++)
        close(orig[i]);
    rh.on = 1;
    return 1;

revert:
    rh_kill_holders();
    for (i = 0; i < 3; i++)
        if (setns(orig[i], types[i])) {
            rh_msg("--hosts: returning to the machine's namespaces: %m");
            return -1;
        }
    if (chdir(rh.cwd))
        rh_msg("chdir %s: %m", rh.cwd);
fallback:
    for (i = 0; i < 3; i++)
        if (orig[i] >= 0)
            close(orig[i]);
    rh_msg("--hosts: %s; emulating the hosts by RTOPO_HOST_ID only%s", why,
           o->link_rate || o->host_link ? " (no link rates)" : "");
    return 0;
}

in_addr_t rh_boot_addr(void)
{
    return htonl(rh.on ? (10u << 24 | 77u << 16 | 1u) : INADDR_LOOPBACK);
}

int rh_rank_enter(int n, int r)
{
    static const int types[3] = { CLONE_NEWNET, CLONE_NEWUTS, CLONE_NEWNS };
    static const char *const files[3] = { "net", "uts", "mnt" };
    char path[64];
    int h, i, fd;

    if (!rh.hosts)
        return 0;
    h = rh_host_of(n, rh.hosts, r);
    if (!rh.on) {
        snprintf(path, sizeof(path), "host%d", h);
        setenv("RTOPO_HOST_ID", path, 1);
        return 0;
    }
    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)rh.holder[h], files[i]);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || setns(fd, types[i])) {
            dprintf(2, "rtopo-run: rank %d cannot join host %s (%s): %m\n", r,
                    rh_host_name(h), path);
            return -1;
        }
        close(fd);
    }
    /* joining a mount namespace moved us to its root */
    if (chdir(rh.cwd))
        dprintf(2, "rtopo-run: rank %d: chdir %s: %m\n", r, rh.cwd);
    /* the host's name is the rank's identity, whatever the user's
     * environment says: ranks of different hosts cannot share memory */
    setenv("RTOPO_HOST_ID", rh_host_name(h), 1);
    return 0;
}

/* ---- after the start ------------------------------------------------ */

static void rh_write_info(int n, const pid_t *pids)
{
    char tmp[PATH_MAX], addr[32];
    FILE *f;
    int h, r;

    if (snprintf(tmp, sizeof(tmp), "%s.tmp%d", rh.info_file, (int)getpid()) >=
        (int)sizeof(tmp) || !(f = fopen(tmp, "we"))) {
        rh_msg("--hosts-info %s: %m", rh.info_file);
        return;
    }
    fprintf(f, "switch %d %s " RH_BRIDGE "\n", (int)getpid(), rh.on ? "netns" : "none");
    for (h = 0; h < rh.hosts; h++) {
        rh_host_addr(h, addr, sizeof(addr));
        fprintf(f, "host %d %s %d %s rth%d\n", h, rh_host_name(h),
                rh.on ? (int)rh.holder[h] : 0, rh.on ? addr : "-", h);
    }
    for (r = 0; r < n && pids; r++)
        fprintf(f, "rank %d %d %d\n", r, rh.hosts ? rh_host_of(n, rh.hosts, r) : 0,
                (int)pids[r]);
    if (fclose(f) || rename(tmp, rh.info_file)) {
        rh_msg("--hosts-info %s: %m", rh.info_file);
        unlink(tmp);
    }
}

void rh_started(int n, const pid_t *pids)
{
    struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };

    if (rh.info_file)
        rh_write_info(n, pids);
    if (!rh.on)
        return;
    rh.nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
                      NETLINK_ROUTE);
    if (rh.nl_fd >= 0 && bind(rh.nl_fd, (struct sockaddr *)&sa, sizeof(sa))) {
        close(rh.nl_fd);
        rh.nl_fd = -1;
    }
    if (rh.nl_fd < 0)
        rh_msg("--hosts: cannot watch the hosts' links (netlink: %m): a link "
               "that goes down is noticed by the ranks' timeouts only");
}

int rh_link_fd(void)
{
    return rh.nl_fd;
}

/* A link is down when its port on the bridge is administratively down,
 * or has lost its carrier (the host's end went down), or is gone. */
int rh_link_event(void)
{
    char buf[16384];
    struct nlmsghdr *nh;
    struct ifinfomsg *ifi;
    ssize_t len;
    int h, down;

    while (rh.nl_fd >= 0 && (len = recv(rh.nl_fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
        for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)len);
             nh = NLMSG_NEXT(nh, len)) {
            if (nh->nlmsg_type != RTM_NEWLINK && nh->nlmsg_type != RTM_DELLINK)
                continue;
            ifi = NLMSG_DATA(nh);
            down = nh->nlmsg_type == RTM_DELLINK ||
                   !(ifi->ifi_flags & IFF_UP) || !(ifi->ifi_flags & IFF_LOWER_UP);
            for (h = 0; h < rh.hosts; h++)
                if (rh.ifindex[h] == ifi->ifi_index && down && !rh.down[h])
                    rh.down[h] = rh.pending[h] = 1;
        }
    }
    for (h = 0; h < rh.hosts; h++)
        if (rh.pending[h]) {
            rh.pending[h] = 0;
            return h;
        }
    return -1;
}

/* ---- another launcher ----------------------------------------------- */

static void rh_forward(int sig)
{
    if (rh.launcher > 0)
        kill(rh.launcher, sig);
}

/* the launch agent next to this rtopo-run, else by name on PATH */
static void rh_agent_env(void)
{
    char exe[PATH_MAX], *slash;
    ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 32);

    if (k > 0) {
        exe[k] = '\0';
        if ((slash = strrchr(exe, '/'))) {
            strcpy(slash + 1, "rtopo-host-exec");
            if (!access(exe, X_OK)) {
                setenv("RTOPORUN_HOST_EXEC", exe, 0);
                return;
            }
        }
    }
    setenv("RTOPORUN_HOST_EXEC", "rtopo-host-exec", 0);
}

int rh_exec_launcher(char **argv)
{
    char *map, *p;
    size_t cap = (size_t)rh.hosts * 48 + 1;
    struct sigaction sa = { .sa_handler = rh_forward };
    int h, status;
    pid_t parent = getpid();

    map = malloc(cap);
    if (!map) {
        rh_msg("malloc: %m");
        return 1;
    }
    p = map;
    *p = '\0';
    for (h = 0; h < rh.hosts; h++)
        p += snprintf(p, cap - (size_t)(p - map), "%s%s=%d", h ? "," : "",
                      rh_host_name(h), (int)rh.holder[h]);
    setenv("RTOPORUN_HOSTS", map, 1);
    free(map);
    rh_agent_env();
    /* Open MPI (PRRTE) starts its daemons on the hosts with this agent */
    setenv("PRTE_MCA_plm_ssh_agent", getenv("RTOPORUN_HOST_EXEC"), 0);
    setenv("OMPI_MCA_plm_rsh_agent", getenv("RTOPORUN_HOST_EXEC"), 0);
    rh.launcher = fork();
    if (rh.launcher < 0) {
        rh_msg("fork: %m");
        return 1;
    }
    if (rh.launcher == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        execvp(argv[0], argv);
        dprintf(2, "rtopo-run: cannot execute %s: %m\n", argv[0]);
        _exit(127);
    }
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    while (waitpid(rh.launcher, &status, 0) < 0)
        if (errno != EINTR) {
            rh_msg("waitpid: %m");
            return 1;
        }
    rh.launcher = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void rh_cleanup(void)
{
    rh_kill_holders();
    if (rh.nl_fd >= 0)
        close(rh.nl_fd);
    rh.nl_fd = -1;
    free(rh.holder);
    free(rh.ifindex);
    free(rh.down);
    free(rh.pending);
    rh.holder = NULL;
}
