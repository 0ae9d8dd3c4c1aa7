/*
 * topo_api.h - topologies (topo_api.c).
 */
#ifndef RTOPO_TOPO_API_H
#define RTOPO_TOPO_API_H

#include "ctx.h"

void rtopo__topo_destroy(rtopo_topo_t *t);

#endif
