/*
 * rtopo_int.h - every internal header of runtime/ at once, for the tools
 * and tests that reach inside the library.  The files of runtime/ include
 * only the headers of the modules they use (ctx.h lists the levels).
 */
#ifndef RTOPO_INT_H
#define RTOPO_INT_H

#include "ctx.h"
#include "engine.h"
#include "mem.h"
#include "job.h"
#include "exec.h"
#include "probe.h"
#include "req.h"
#include "calib.h"
#include "topo_api.h"

#endif
