/* SPDX-License-Identifier: BSD-3-Clause */
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
 * input pixels and `threads` workers (one scratch each). The plan is
 * borrowed. */
winent_status winent_cpu_engine_create(const winent_plan *p, int max_width, int max_in_rows,
                                       int threads, winent_cpu_engine **out, winent_err *err);

/* Compute rows [c->y0, c->y1) into `out` (stride `out_stride` floats).
 * One caller at a time per engine (it owns the scratch); the work inside
 * is spread over the engine's threads. */
winent_status winent_cpu_engine_compute(winent_cpu_engine *e, const winent_chunk *c, float *out,
                                        size_t out_stride, winent_err *err);

/* The tallest band the engine asks for on images `width` wide (a multiple
 * of 4): chunks hold at least this many rows. */
int winent_cpu_band_rows(const winent_plan *p, int width);

/* Output rows per band for the next chunk: about the work of 256 K pixels
 * at 5 x 5 (short bands for large windows), or, while bands take the
 * few-values path, at least two windows high. Any value gives the same
 * bits. Thread-safe. */
int winent_cpu_engine_band_rows(const winent_cpu_engine *e, int width);

/* Scratch one worker holds for bands of images `width` wide (histograms,
 * code rows, few-values columns, remap tables): an upper estimate. */
size_t winent_cpu_scratch_bytes(const winent_plan *p, int width);

/* Scratch one worker holds for co-occurrence maps plans[0 .. n) computed
 * in one pass (winent_cpu_engine_create_shared; n = 1: one map's engine):
 * exactly what its GLCM engine makes, counted once for the n maps. */
size_t winent_cpu_group_scratch_bytes(const winent_plan *const *plans, int n, int width);

/* Compute output rows [ya, yb) of chunk `c` (inside [c->y0, c->y1)) on the
 * calling thread with the scratch of `worker` (0 .. threads - 1); `out` holds
 * row c->y0, rows `out_stride` floats apart. Any number of callers at once,
 * each with its own worker number. The bits do not depend on the bands. */
winent_status winent_cpu_engine_compute_rows(winent_cpu_engine *e, int worker,
                                             const winent_chunk *c, int ya, int yb, float *out,
                                             size_t out_stride, winent_err *err);

/* The engine's best case, in nanoseconds per pixel entering or leaving a
 * window, per core, for data like `nrows` input rows at `rows` (`row_bytes`
 * apart, `width` samples; NULL: no data seen yet, the best case of any):
 * the cost, in the table of paths (engine_cpu_choose.h), of the path a
 * band of such rows would take, as though no pixel were nodata.
 * Measured on the H100 machine's cores (docs/PERFORMANCE.md, issue 10):
 * the few-values path about 0.47 ns, the sliding histogram 2.1-3.3 ns.
 * A floor, for deciding early whether the CPU alone would be slow: it
 * reads a handful of the rows. Thread-safe. */
double winent_cpu_engine_ns_per_update(const winent_cpu_engine *e, const void *rows,
                                       size_t row_bytes, int width, int nrows);

/* The path the engine's last band took, as winent_cpu_paths names it
 * (engine_cpu_choose.h): "slide" (the sliding histogram), "few" (codes <
 * 16), "cols64" or "cols256" (the column paths), "cmp" (the compare kernel
 * of small windows), "remap" (wide codes renumbered per tile); "slide"
 * before any. For reports and tests; with several workers, some band's.
 * Thread-safe. */
const char *winent_cpu_engine_last_path(const winent_cpu_engine *e);

/* 1 when maps of plans `a` and `b` can be computed in one pass of one
 * engine (winent_cpu_engine_create_shared): co-occurrence measures of the
 * same window, levels, nodata, log base and pairs (distance, angles,
 * symmetry). They then share each window's pair counts, one per angle,
 * and every map keeps the bits of its own pass. */
int winent_cpu_engine_can_share(const winent_plan *a, const winent_plan *b);

/* The most maps one shared pass computes (the co-occurrence measures). */
#define WINENT_CPU_SHARED_MAX 13

/* One engine computing the maps of plans[0 .. n) in one pass (n at most
 * WINENT_CPU_SHARED_MAX; each pair of plans can share).
 * The plans are borrowed. */
winent_status winent_cpu_engine_create_shared(const winent_plan *const *plans, int n,
                                              int max_width, int threads,
                                              winent_cpu_engine **out, winent_err *err);

/* winent_cpu_engine_compute_rows into `nplanes` planes: a shared engine's
 * maps (plane k the k-th plan's map, each with row c->y0 at planes[k],
 * rows `out_stride` floats apart), or any engine's one map. */
winent_status winent_cpu_engine_compute_planes(winent_cpu_engine *e, int worker,
                                               const winent_chunk *c, int ya, int yb,
                                               float *const *planes, int nplanes,
                                               size_t out_stride, winent_err *err);

void winent_cpu_engine_free(winent_cpu_engine *e);

#endif
