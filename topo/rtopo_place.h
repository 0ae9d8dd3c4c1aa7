/*
 * rtopo_place.h - placement of a topology's labels on the job's ranks by
 * host (place.c).  Pure: no I/O, alike on every rank.
 */
#ifndef RTOPO_PLACE_H
#define RTOPO_PLACE_H

#include "rtopo_sched.h"

/* The placement modes of RTOPO_PLACE and rtopo_set_place (same values as
 * rtopo_place_t). */
enum rtopo__place_mode {
    RTOPO__PLACE_AUTO = 0,   /* by host where the sizes allow, else by rank */
    RTOPO__PLACE_RANK,       /* label = job rank (or the base map) */
    RTOPO__PLACE_HOST        /* by host; uneven hosts are an error */
};

int rtopo__place_parse(const char *s);   /* < 0 if unknown */
const char *rtopo__place_name(int mode);

/* The job rank of every label of t (map[0..t->p-1]) under `mode`.
 * base[label] is the job rank of each label under rank placement (NULL:
 * the identity; a hypercube with a host outside the cube passes its own,
 * whose last label, the host, keeps its rank); hostof[job rank] any host
 * number, equal for ranks of one host.  Returns 1 when map places the
 * ranks by host (place.c says how per kind), 0 when it is the base map
 * (rank mode, one host, or auto over hosts of uneven sizes), and then a
 * reason in why (if not NULL); RTOPO_ERR_INVAL with a message when mode
 * is host and the sizes do not allow it, RTOPO_ERR_NOMEM. */
int rtopo__place_map(const rtopo__tdesc_t *t, const int *base, const int *hostof, int mode,
                     int *map, char *why, size_t whylen);

/* RTOPO__PLACE_AUTO under a cost model: where rtopo__place_map places by
 * host, the cost of the host map's links against the base map's
 * (rtopo__place_cost), and the base map (returns 0, why says so) where
 * its links cost less; a tie keeps the host map (returns 1).  m NULL:
 * rtopo__place_map's auto. */
int rtopo__place_auto(const rtopo__tdesc_t *t, const int *base, const int *hostof,
                      const rtopo__model_t *m, int *map, char *why, size_t whylen);
/* The links of t (each pair of neighbouring nodes once; a host
 * endpoint's links, alike under every map, left out) on the job ranks of
 * map (map[label]; hostof[job rank] as rtopo__place_map's), each costing
 * one message of m's chunk at the ts and tw of its reach (intra-host
 * when both ends share a host, else inter-host: reach_ts and reach_tw
 * where m sets them, the DIRECT class's otherwise).  A model that sets
 * no reach figure costs a link inside a host 0 and one between hosts 1:
 * the count of links between hosts. */
double rtopo__place_cost(const rtopo__tdesc_t *t, const int *map, const int *hostof,
                         const rtopo__model_t *m);

#endif
