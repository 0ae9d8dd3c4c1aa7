/*
 * calib.h - the cost model a topology's "auto" choices use (calib.c).
 */
#ifndef RTOPO_CALIB_H
#define RTOPO_CALIB_H

#include "ctx.h"

/* the cost model (RTOPO_MODEL, or measured per kind of pair) */
int rtopo__model_load(rtopo_ctx_t *ctx);          /* at init */
int rtopo__topo_model(rtopo_topo_t *t);           /* collective, at creation */
/* The model a new topology's automatic placement weighs its links by
 * (rtopo__place_auto), before the topology measures its own: RTOPO_MODEL
 * over the constants, with the intra- and inter-host figures the job
 * measured so far (its earlier topologies; the same on every rank) where
 * RTOPO_MODEL is auto and its list does not set them. */
void rtopo__model_place(const rtopo_ctx_t *ctx, rtopo__model_t *m);

#endif
