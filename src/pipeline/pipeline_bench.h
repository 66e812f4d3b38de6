/*
 * pipeline_bench.h - one stage of a job run alone, with the job's own pool,
 * chunk geometry and threads, for the job harness (`winent-bench job`).
 * Not part of the public API: tools include it from src/.
 */
#ifndef WINENT_PIPELINE_BENCH_H
#define WINENT_PIPELINE_BENCH_H

#include "tiles/source.h"
#include "winent.h"

typedef enum winent_stage {
    WINENT_STAGE_JOB = 0, /* the whole job, as winent_run */
    WINENT_STAGE_DECODE,  /* the source into the pipeline's input buffers:
                             nothing computed, encoded or written */
    WINENT_STAGE_COMPUTE, /* o->memory_in (samples) through the engines of
                             o->device into the pipeline's output buffers:
                             nothing read, encoded or written */
    WINENT_STAGE_ENCODE   /* `map` (o->width x o->height floats) encoded on
                             every worker by the sink of o->output/o->format;
                             the encoded bytes are counted, not written */
} winent_stage;

/* Run `stage` of the job `o` alone. `map` is the float map for
 * WINENT_STAGE_ENCODE (ignored otherwise). Stats as winent_run's: wall_s
 * is the stage's time; bytes_out the encoded bytes for ENCODE. */
winent_status winent_run_stage(const winent_job_opts *o, winent_stage stage, const float *map,
                               winent_job_stats *stats, char *msg, size_t msg_len);

/* The source options of job `o` (its input and raw layout), as the
 * pipeline opens it; threads as o->threads, no stop flag, no pool. */
void winent_job_source_opts(const winent_job_opts *o, winent_source_opts *so);

#endif
