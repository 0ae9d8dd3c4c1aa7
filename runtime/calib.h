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

/* a pair's ts and tt on a machine with more ranks than processors, from
 * its median and shortest round trips and one eager send's cost */
void rtopo__cal_split(double rt, double rt_min, double send, double *ts_p, double *tt_p);
/* label 0's fit of the burst of labels 0..pn-1 measured at tm seconds:
 * the wait of model m, as tt (m has one, or turn) or tq (calib.c) */
int rtopo__cal_fit(const rtopo__tdesc_t *desc, int pn, const rtopo__model_t *m, int turn,
                   double tm, double *tq_p, double *tt_p, double *t0_p, double *slope_p);

#endif
