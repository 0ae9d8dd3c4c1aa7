/*
 * calib.h - the cost model a topology's "auto" choices use (calib.c).
 */
#ifndef RTOPO_CALIB_H
#define RTOPO_CALIB_H

#include "ctx.h"

/* the cost model (RTOPO_MODEL, or measured per kind of pair) */
int rtopo__model_load(rtopo_ctx_t *ctx);          /* at init */
int rtopo__topo_model(rtopo_topo_t *t);           /* collective, at creation */

#endif
