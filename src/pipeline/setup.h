/* SPDX-License-Identifier: BSD-3-Clause */
/* setup.h - a job's setup before its threads start (pipeline/ only):
 * setup opens what the job reads and writes, fills the plan's descriptors
 * (plan.h), asks the plan (plan.c) and executes it. pipeline.c calls these,
 * each file one part:
 *   setup_maps.c    the windows, each band's options (--range auto looks
 *                   at the data), the maps and their kernels' plans, and
 *                   the CPU engines once the chunks' height is planned;
 *   setup_output.c  the sink's options, the guard of files, the sink;
 *   setup_memory.c  the advice when --mem cannot hold the plan's smallest
 *                   chunks (the least --mem, asking the input again);
 *   job_figures.c   what the run measured: --stats, the range and
 *                   saturation notices. */
#ifndef WINENT_SETUP_H
#define WINENT_SETUP_H

#include "pipeline_internal.h"

/* Ints of one map entry of winent_setup_windows: kx, ky, disk, measure. */
#define WINENT_WIN_FIELDS 4

/* What setup opens and learns for the plan, and the tables the plan and
 * the sink borrow: it lives as long as the run. */
typedef struct job_setup {
    job_host host;
    job_source_info src;
    job_sink_info snk;
    int *win, nwin;              /* one band's maps (winent_setup_windows) */
    winent_sink_map *sink_maps;  /* the maps as the sink sees them (several) */
} job_setup;

/* setup_maps.c */
/* The maps of one band of job `o`: WINENT_WIN_FIELDS ints each into *win
 * (malloc), *n of them; usage errors for a window given twice. */
winent_status winent_setup_windows(const winent_job_opts *o, int **win, int *n, winent_err *err);
/* Each band's options (--range auto looks at the data now), then the
 * maps: bands x windows, kernels' plans shared where equal (s->src). */
winent_status winent_setup_maps(pipeline *p, const winent_job_opts *o, job_setup *s,
                                winent_err *err);
/* The CPU engine of each plan (a map of the same plan shares it), for
 * the plan's chunks. */
winent_status winent_setup_cpu_engines(pipeline *p, winent_err *err);
/* The maps, their plans and CPU engines, and the per-band figures. */
void winent_setup_free_maps(pipeline *p, job_setup *s);

/* setup_output.c */
/* The sink's options, every file guarded, the sink opened where one is
 * written, and what it says of itself (s->snk). */
winent_status winent_setup_output(pipeline *p, const winent_job_opts *o, job_setup *s,
                                  winent_err *err);

/* setup_memory.c */
/* The plan's chunks do not fit (p->plan.short_rows): the message, naming
 * the least --mem that holds them. */
winent_status winent_setup_too_small(const pipeline *p, const winent_job_opts *o,
                                     winent_err *err);

/* job_figures.c */
/* After the threads: --stats' figures. */
void winent_job_fill_stats(const pipeline *p, winent_job_stats *stats, double t_start);
/* Band k's range against its data: one warning line, if any. */
void winent_job_warn_range(const pipeline *p, int k);
/* The saturation counts of each map (the writer adds to them). */
winent_status winent_job_count_saturation(pipeline *p);
/* Map m's notice when over a quarter of it is at the top. */
void winent_job_warn_saturated(const pipeline *p, int m);

#endif
