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
winent_status winent_setup_windows(const winent_job_opts *o, int **win, int *n, winent_err *err);
void winent_setup_map_entry(const winent_job_opts *o, const int *e, winent_compute_opts *co);
winent_status winent_setup_maps(pipeline *p, const winent_job_opts *o, winent_stage stage,
                                int decoding, const winent_compute_opts *co, const int *win,
                                int nwin, winent_err *err);
winent_status winent_setup_cpu_engines(pipeline *p, winent_err *err);
void winent_setup_free_maps(pipeline *p);

/* setup_output.c */
winent_status winent_setup_output(pipeline *p, const winent_job_opts *o, winent_stage stage,
                                  int decoding, const winent_compute_opts *co, winent_err *err);
winent_status winent_setup_preview(pipeline *p, const winent_job_opts *o,
                                   const winent_compute_opts *co, winent_err *err);
winent_status winent_setup_size(pipeline *p, const winent_job_opts *o,
                                const winent_compute_opts *co, winent_err *err);

/* setup_memory.c */
winent_status winent_setup_chunks(pipeline *p, uint64_t held, uint64_t per_worker, uint64_t writer,
                                  winent_err *err);

/* job_figures.c */
void winent_job_fill_stats(const pipeline *p, winent_job_stats *stats, double t_start);
void winent_job_warn_range(const pipeline *p, const winent_job_opts *o, int k);
winent_status winent_job_count_saturation(pipeline *p);
void winent_job_warn_saturated(const pipeline *p, const winent_job_opts *o, int m);

#endif
