/*
 * sim_hosts.h - rtopo-sim's hosts: which host each rank of a job runs on
 * (--hosts H in blocks or round robin, or --host-map), the placement of
 * the topology's labels on those ranks (--place, the runtime's own map,
 * topo/place.c), the model's layout, and the moves and bytes of a
 * schedule by link class and reach (intra-host, inter-host).
 */
#ifndef RTOPO_SIM_HOSTS_H
#define RTOPO_SIM_HOSTS_H

#include <stdio.h>
#include <stdint.h>
#include "rtopo_sched.h"
#include "sim_opts.h"

typedef struct sim_hosts {
    long hosts;               /* --hosts H, 0: none */
    const char *host_map;     /* --host-map LIST */
    const char *map_by;       /* --map-by slot|host */
    const char *place;        /* --place rank|host|auto */
    int have_hosts;
    /* after sim_hosts_setup */
    int nhosts;               /* hosts holding ranks; 0: no layout */
    int mode;                 /* RTOPO__PLACE_* */
    int placed;               /* 1: by host, 0: by rank */
    int *map;                 /* label -> job rank */
    int *hostof;              /* job rank -> host */
    uint32_t *lhost;          /* label -> host */
    rtopo__layout_t layout;
    char why[256];
} sim_hosts_t;

/* the option table's rows, for a subcommand's options struct T with a
 * sim_hosts_t field f */
#define SIM_HOSTS_OPTS(T, f)                                                              \
    SIM_INT(T, "hosts", f.hosts, SIM_HAVE(T, f.have_hosts), 1, 1L << 24,                  \
            "--hosts '%s': 1 to 2^24 hosts"),                                              \
    SIM_STR(T, "host-map", f.host_map, SIM_NONE),                                          \
    SIM_STR(T, "map-by", f.map_by, SIM_NONE),                                              \
    SIM_STR(T, "place", f.place, SIM_NONE)

/* the usage lines of those options */
extern const char sim_hosts_usage[];

/* Checks the options against topology t (its t->p ranks are the job's;
 * a hypercube with a host: the host endpoint is job rank p-1), places the
 * labels and points m->layout at the labels' hosts.  -1: done (nothing
 * asked, or the layout set); else the exit status after a message. */
int sim_hosts_setup(sim_hosts_t *h, const rtopo__tdesc_t *t, rtopo__model_t *m);

/* With a layout: the hosts, the placement and the moves and bytes of s
 * by link class and reach, counted from the schedule; r (the simulator's
 * own reach counts) must agree.  Text lines, or a JSON member
 * ,"hosts":{...}.  Returns 0, or 1 when the counts disagree. */
int sim_hosts_print(FILE *f, const sim_hosts_t *h, const rtopo__sched_t *s,
                    const rtopo__sim_result_t *r, int json);

void sim_hosts_free(sim_hosts_t *h);

#endif
