/*
 * cpus.h - how many processors the ranks of this host share.
 */
#ifndef RTOPO_CPUS_H
#define RTOPO_CPUS_H

/* The processors this process may run on (its CPU affinity), or every
 * online processor when the launcher bound it to a single one (it binds
 * each rank to its own then); 0 when neither can be read. */
long rtopo__cpus_shared(void);

#endif
