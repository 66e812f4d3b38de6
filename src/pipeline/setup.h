/* SPDX-License-Identifier: BSD-3-Clause */
/* setup.h - a job's setup before its threads start (pipeline/ only):
 * pipeline.c calls these, each file one part of the plan:
 *   setup_maps.c    the windows, each band's options, the maps and their
 *                   plans and CPU engines;
 *   setup_output.c  the sink's options, the guard of files, the output
 *                   and the preview (the taps), the job's size in memory;
 *   setup_memory.c  the chunks' height and count within --mem, and the
 *                   advice when it is too small;
 *   job_figures.c   what the run measured: --stats, the range and
 *                   saturation notices. */
#ifndef WINENT_SETUP_H
#define WINENT_SETUP_H

#include "pipeline_internal.h"

/* Ints of one map entry of winent_setup_windows: kx, ky, disk, measure. */
#define WINENT_WIN_FIELDS 4

/* setup_maps.c */
/* The maps of one band of job `o`: WINENT_WIN_FIELDS ints each into *win
 * (malloc), *n of them; usage errors for a window given twice. */
winent_status winent_setup_windows(const winent_job_opts *o, int **win, int *n, winent_err *err);
/* Map entry `e` of winent_setup_windows into the options `co`. */
void winent_setup_map_entry(const winent_job_opts *o, const int *e, winent_compute_opts *co);
/* Each band's options (--range auto looks at the data now), then the
 * maps: bands x windows, plans shared where equal (p->plan.maps). */
winent_status winent_setup_maps(pipeline *p, const winent_job_opts *o, winent_stage stage,
                                int decoding, const winent_compute_opts *co, const int *win,
                                int nwin, winent_err *err);
/* The CPU engine of each plan (a map of the same plan shares it). */
winent_status winent_setup_cpu_engines(pipeline *p, winent_err *err);
/* The maps, their plans and CPU engines, and the per-band figures. */
void winent_setup_free_maps(pipeline *p);

/* setup_output.c */
/* The sink (guarding every file first), the output (taps[0]) and the
 * copies' piece sizes. */
winent_status winent_setup_output(pipeline *p, const winent_job_opts *o, winent_stage stage,
                                  int decoding, const winent_compute_opts *co, winent_err *err);
/* --preview in a whole job: its options and its rows' memory in the plan. */
winent_status winent_setup_preview(pipeline *p, const winent_job_opts *o,
                                   const winent_compute_opts *co, winent_err *err);
/* The chunks' height and count within --mem, once every thread's own
 * state and what the source and the sink hold are counted. */
winent_status winent_setup_size(pipeline *p, const winent_job_opts *o,
                                const winent_compute_opts *co, winent_err *err);

/* setup_memory.c */
/* Chunk height and the ring's sizes within the budget (`held`: what the
 * source holds; per worker and writer bytes); the advice when too small. */
winent_status winent_setup_chunks(pipeline *p, uint64_t held, uint64_t per_worker, uint64_t writer,
                                  winent_err *err);

/* job_figures.c */
/* After the threads: --stats' figures. */
void winent_job_fill_stats(const pipeline *p, winent_job_stats *stats, double t_start);
/* Band k's range against its data: one warning line, if any. */
void winent_job_warn_range(const pipeline *p, const winent_job_opts *o, int k);
/* The saturation counts of each map (the writer adds to them). */
winent_status winent_job_count_saturation(pipeline *p);
/* Map m's notice when over a quarter of it is at the top. */
void winent_job_warn_saturated(const pipeline *p, const winent_job_opts *o, int m);

#endif
