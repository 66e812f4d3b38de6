/* SPDX-License-Identifier: BSD-3-Clause */
/* trace.h - a timeline of the job's stages for measuring (pipeline/ only).
 *
 * With the debug switch WINENT_TRACE=PATH (switches.h) every stage marks
 * what it does on a lane of its own (the reader, the writer, each engine's
 * driver): claims, submits, waits, pinning, an engine's start. At the end of
 * the job the marks are written to PATH as CSV (lane,name,event,seq,t_ms;
 * t from the job's start), for tools/trace-summary.py. Without the switch
 * the trace is NULL and every mark costs one test. */
#ifndef WINENT_TRACE_H
#define WINENT_TRACE_H

#include <stdint.h>

#include "base/werr.h"

typedef struct winent_trace winent_trace;

/* A trace of `lanes` lanes of at most `per_lane` marks each (marks beyond
 * are counted, not kept). NULL `path`: *out = NULL, nothing is traced. */
winent_status winent_trace_create(const char *path, int lanes, int per_lane, winent_trace **out,
                                  winent_err *err);

/* Name lane `lane` ("reader", "gpu1"); before its first mark. */
void winent_trace_name(winent_trace *t, int lane, const char *name);

/* A mark on `lane` now: `event` a static string, `seq` a chunk (or -1).
 * Each lane is marked by one thread at a time: no lock. NULL t: nothing. */
void winent_trace_mark(winent_trace *t, int lane, const char *event, int64_t seq);

/* Write the marks, times from `t0` (winent_now()); then free. NULL: nothing. */
winent_status winent_trace_finish(winent_trace *t, double t0, winent_err *err);
void winent_trace_free(winent_trace *t);

#endif
