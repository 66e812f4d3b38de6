/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pipeline_bench.h - the pipeline's internal entry: a job run whole or one
 * stage alone, from files or from memory buffers. winent_job_run and
 * winent_entropy (job.c) run on it; so do the benchmarks (`winent-bench
 * pipeline`, `winent-bench stage` for the job harness), which include it
 * from src/. Not part of the public API.
 */
#ifndef WINENT_PIPELINE_BENCH_H
#define WINENT_PIPELINE_BENCH_H

#include "base/werr.h"
#include "tiles/source.h"
#include "tiles/tempnames.h"
#include "winent.h"

typedef enum winent_stage {
    WINENT_STAGE_JOB = 0, /* the whole job, as winent_job_run */
    WINENT_STAGE_DECODE,  /* the source into the pipeline's input buffers:
                             nothing computed, encoded or written */
    WINENT_STAGE_COMPUTE, /* mem->in (samples) through the engines of
                             o->device into the pipeline's output buffers:
                             nothing read, encoded or written */
    WINENT_STAGE_ENCODE   /* `map` (o->width x o->height floats) encoded on
                             every worker by the sink of o->output/o->format;
                             the encoded bytes are counted, not written */
} winent_stage;

/* A job in memory: instead of the input file, `in` (o->height rows of
 * o->width samples of o->compute.dtype, `in_row_bytes` apart); instead of
 * the output, `out` (rows of o->width floats, `out_row_floats` apart). The
 * engines read and write the caller's buffers, with no copy. */
typedef struct winent_memory_io {
    const void *in;
    size_t in_row_bytes;   /* 0: packed (o->width samples) */
    float *out;            /* NULL: the map goes to the output (or, for
                              WINENT_STAGE_COMPUTE, the pipeline's buffers) */
    size_t out_row_floats; /* 0: packed (o->width floats) */
} winent_memory_io;

/* Values of a stop flag (`stop` below; the job's own in winent_job). 0:
 * running. A failure raises WINENT_STOP_ERROR (only from 0); a cancel
 * stores WINENT_STOP_CANCEL whatever was there, so the job ends
 * WINENT_ERR_INTERRUPTED. Atomic access only. */
#define WINENT_STOP_ERROR  1
#define WINENT_STOP_CANCEL 2

/* What a job shares with whoever may stop it: its stop flag, and the
 * temporary names of its outputs for a program that gives up on a run
 * blocked for good (winent_job_discard_temporaries). */
typedef struct winent_run_ctl {
    volatile int stop;        /* WINENT_STOP_*; atomic access only */
    winent_tempnames temps;   /* written by the outputs' files, read by anyone */
} winent_run_ctl;

/* Run `stage` of the job `o` (WINENT_STAGE_JOB: the whole job). `mem` (may
 * be NULL) makes it a memory job; `map` is the float map for
 * WINENT_STAGE_ENCODE (ignored otherwise). `ctl` holds the job's stop flag
 * and temporary names (NULL: a stop flag of the run's own, nothing can
 * cancel it, no names recorded); a run that finds WINENT_STOP_CANCEL there
 * returns WINENT_ERR_INTERRUPTED at once. Stats
 * (may be NULL) as winent_job_get_stats's: wall_s is the stage's time;
 * bytes_out the encoded bytes for ENCODE. `o` is not validated here (the
 * callers do: winent_job_create, winent_entropy). Thread-safe: runs share
 * no state. */
winent_status winent_run_stage(const winent_job_opts *o, winent_stage stage,
                               const winent_memory_io *mem, const float *map, winent_run_ctl *ctl,
                               winent_job_stats *stats, winent_err *err);

/* The source options of job `o` (its input and raw layout), as the
 * pipeline opens it; threads as o->threads, no stop flag, no pool. */
void winent_job_source_opts(const winent_job_opts *o, winent_source_opts *so);

#endif
