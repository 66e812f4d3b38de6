/*
 * pipeline_internal.h - the job's shared state (pipeline/ only).
 *
 *   reader ──filled_in──► compute workers ──computed──► encoders ──encoded──► writer
 *      ▲                   (CPU: one, OpenMP      (one sink      (the calling thread:
 *      └──── free_in ◄──── inside; GPU: one       encoder each)   reorders by seq,
 *                          per device, slots)                     writes, progress)
 *   free_out ──► compute ... writer ──► free_out
 *
 * Buffers come from two pools sized once from --mem; every queue is bounded
 * by its pool, so memory stays flat whatever the image size.
 */
#ifndef WINENT_PIPELINE_INTERNAL_H
#define WINENT_PIPELINE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "base/bytes.h"
#include "base/werr.h"
#include "kernels/engine_cpu.h"
#include "kernels/engine_cuda.h"
#include "queue.h"
#include "tiles/sink.h"
#include "tiles/source.h"

#define WINENT_MAX_GPUS 64

/* Input rows of one chunk; owned by the pool, passed by pointer. */
typedef struct in_chunk {
    int64_t seq;
    int y0, y1;          /* output rows it serves */
    int in_y0, in_h;     /* rows held */
    uint8_t *rows;       /* owned: (chunk_rows + 2 ry) rows (pinned with GPUs) */
} in_chunk;

/* Output rows of one chunk and their encoded units. */
typedef struct out_chunk {
    int64_t seq;
    int y0, y1;
    float *map;          /* owned: chunk_rows x width floats (pinned with GPUs) */
    winent_bytes *units; /* owned: one per unit of the chunk */
    int nunits;
} out_chunk;

typedef struct stage_clock {
    double busy_s, wait_s;
} stage_clock;

typedef struct pipeline {
    /* Set up before the threads start, read-only afterwards. */
    const winent_job_opts *opts;
    const winent_plan *plan;
    winent_source *source;       /* reader thread only */
    winent_sink *sink;           /* encoders (encode) and writer (write) */
    int width, height;
    size_t sample, row_bytes;
    int chunk_rows, nchunks, unit_rows;
    winent_format format;
    int threads, encoders;
    int ngpus;
    int fell_back;               /* --device auto found no GPU */
    int gpu_ids[WINENT_MAX_GPUS];
    int gpu_slots;
    winent_cpu_engine *cpu;      /* the CPU worker's, when no GPU */

    in_chunk *ins;               /* owned pool */
    int n_in;
    out_chunk *outs;             /* owned pool */
    int n_out;
    int pinned;                  /* pools come from winent_cuda_host_alloc */

    winent_queue free_in, filled_in, free_out, computed, encoded;

    /* Shared, under `lock`. */
    pthread_mutex_t lock;
    winent_err err;              /* the first error */
    int live_compute, live_encode;
    stage_clock read_clock, compute_clock, encode_clock;
    double engines_ready_s;      /* latest time a GPU worker had its engine */

    volatile int stop;           /* raised with the first error or an interrupt */
} pipeline;

/* Record the first error and stop every stage (any thread). */
void winent_pipeline_fail(pipeline *p, const winent_err *e);

/* Stage bodies (pthread start routines). */
void *winent_stage_reader(void *arg);
void *winent_stage_cpu_worker(void *arg);
void *winent_stage_gpu_worker(void *arg); /* arg: gpu_worker_arg */
void *winent_stage_encoder(void *arg);

typedef struct gpu_worker_arg {
    pipeline *p;
    int device;
} gpu_worker_arg;

#endif
