/*
 * run_hosts.h - rtopo-run's emulated hosts: each host's ranks in network,
 * UTS and mount namespaces of their own, joined by veth pairs to a bridge
 * inside a network namespace private to the job (rtopo-run's own).
 */
#ifndef RTOPO_RUN_HOSTS_H
#define RTOPO_RUN_HOSTS_H

#include <netinet/in.h>
#include <sys/types.h>

/* the options of the emulation, before rh_setup */
struct rh_opts {
    int hosts;                 /* H of --hosts (0: none) */
    int no_netns;              /* --no-netns: RTOPO_HOST_ID only */
    const char *link_rate;     /* --link-rate RATE: every host's link */
    const char *host_link;     /* --host-link HOST:RATE: one host's link */
    const char *info_file;     /* --hosts-info FILE */
    int quiet;
};

/* the emulated host of rank r of n over h hosts: contiguous blocks, the
 * first n % h hosts hold one more rank (--map-by slot, the default), or
 * round robin, rank r on host r % h (--map-by host) */
int rh_host_of(int n, int h, int r);
/* --map-by: "slot" or "host"; 0, or -1 with a message */
int rh_map_by(const char *how);

/* checks RATE ("100mbit", "1gbit", "12.5mbps"...): 0 or -1 with a message */
int rh_rate_ok(const char *opt, const char *rate);
int rh_host_link_ok(const char *arg, int hosts);

/* Creates the job's namespaces, hosts, links and rate limits.  1: the
 * hosts are namespaces; 0: they are not (a one-line reason was printed,
 * the job falls back to RTOPO_HOST_ID); -1: fatal (message printed). */
int rh_setup(const struct rh_opts *o);

/* the address the bootstrap server listens on: the bridge's once hosts
 * are namespaces, else loopback (network byte order) */
in_addr_t rh_boot_addr(void);

/* in rank r's child, before exec: joins its host's namespaces and sets
 * RTOPO_HOST_ID; 0 or -1 (errno set, message printed) */
int rh_rank_enter(int n, int r);

/* after the ranks started: writes --hosts-info (pids of the switch, the
 * hosts and the ranks) and starts watching the hosts' links */
void rh_started(int n, const pid_t *pids);

/* a netlink socket that reports the hosts' links, or -1 */
int rh_link_fd(void);

/* reads the link events: the host whose link went down, or -1 */
int rh_link_event(void);

/* name of host h ("rtopo-host3") */
const char *rh_host_name(int h);

/* runs ARGV on the head node (the job's namespace) with the hosts up and
 * the launch agent's environment; returns its exit status */
int rh_exec_launcher(char **argv);

/* ends the hosts (their namespaces go with their last process) */
void rh_cleanup(void);

#endif
