/*
 * engine_cpu.h - the fast CPU engine: a serpentine sliding histogram per
 * block of the chunk (cost per pixel 2 * Ky updates plus one division),
 * blocks spread over an OpenMP team. Codes below 65536 index the histogram
 * directly; wider codes (32-bit integers, many bins) are first renumbered
 * densely per block through a hash table.
 */
#ifndef WINENT_ENGINE_CPU_H
#define WINENT_ENGINE_CPU_H

#include "chunk.h"
#include "entropy_plan.h"

typedef struct winent_cpu_engine winent_cpu_engine;

/* Scratch sized once for chunks of at most `max_width` x `max_in_rows`
 * input pixels and `threads` threads. The plan is borrowed. */
winent_status winent_cpu_engine_create(const winent_plan *p, int max_width, int max_in_rows,
                                       int threads, winent_cpu_engine **out, winent_err *err);

/* Compute rows [c->y0, c->y1) into `out` (stride `out_stride` floats).
 * One caller at a time per engine (it owns the scratch); the work inside
 * is spread over the engine's threads. */
winent_status winent_cpu_engine_compute(winent_cpu_engine *e, const winent_chunk *c, float *out,
                                        size_t out_stride, winent_err *err);

void winent_cpu_engine_free(winent_cpu_engine *e);

#endif
