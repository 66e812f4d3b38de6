/* SPDX-License-Identifier: BSD-3-Clause */
/* decide.h - the engines' claims and auto's launch decisions as pure
 * functions of a snapshot of rates (pipeline/ only): no lock, no
 * pipeline, so a test is a table of cases (test_sched, test_decide). The
 * callers take the snapshot under the pipeline's lock. */
#ifndef WINENT_DECIDE_H
#define WINENT_DECIDE_H

#include <stdint.h>

/* The first GPU of an auto job, once it has computed two chunks or ended. */
typedef struct winent_first_gpu {
    int failed; /* it failed: the others are the job's GPUs now */
    int64_t chunks_done;
    double px_done;      /* pixels it computed */
    double first_px;     /* ... by the end of its first chunk */
    double busy_s;       /* its time with a chunk in flight */
    double first_busy_s; /* ... by the end of its first chunk */
    double px_left;      /* pixels no engine has claimed or computed */
} winent_first_gpu;

/* 1 when the other GPUs pay: the first failed, or what is left would keep
 * it busy for over `more_s` at its rate after its first chunk (which paid
 * for loading the kernels). 0 when it ended with the job. */
int winent_more_gpus_pay(const winent_first_gpu *g, double more_s);

/* auto, from the CPU's measured rate (pixels a second, all workers; 0:
 * none yet): 1 bring the GPUs in (the CPU alone would need over worth_s
 * for `total_px`), 0 not now, -1 never (`bands_done` reached a band per
 * worker: the CPU alone is measured quick enough). */
int winent_gpus_worth(double cpu_px_s, double total_px, int bands_done, int workers,
                      double worth_s);

/* auto, in a process that is the job's alone: 1 when CUDA is to be shown
 * every GPU (the CPU alone would need over `all_s`, so GPUs beyond the
 * first may pay for the driver starting each), 0 the first GPU alone. */
int winent_auto_all_gpus(double cpu_alone_s, double all_s);

/* One engine as the queue's claims see it (sched.c takes it under the
 * lock). */
typedef struct winent_engine_view {
    int cpu;                /* the CPU engine (else a GPU) */
    int live;               /* created and taking chunks */
    int inflight;           /* chunks it holds */
    double rate;            /* pixels a second measured; 0: not yet known */
    double pixels_inflight; /* pixels it holds, not computed yet */
    double pixels_done;
    double busy_for;        /* seconds since it last went from idle to busy */
} winent_engine_view;

/* The engines and the job as the claims see them. */
typedef struct winent_claim_view {
    const winent_engine_view *engines;
    int nengines;
    double width, height; /* the image */
    int threads;          /* the worker pool */
    double enc_px, enc_s; /* the pool's encoding so far: pixels, seconds */
} winent_claim_view;

/* 1 when engine `e` of the view leaves the chunk of output rows [y0, y1)
 * to the others: it would finish it later than they finish everything
 * left (the CPU also: past its share of the job, or a GPU just up on its
 * first chunk). Never the engine that would end it first, its own queue
 * counted (sched.c's comment has the story). */
int winent_declines(const winent_claim_view *v, int e, int y0, int y1);

/* 1 when a GPU at `gpu_rate` with `gpu_queued_px` pixels in flight ends a
 * CPU chunk's tail of `tail_px` pixels before the CPU at `cpu_rate` would;
 * 1 too while either rate is unknown (0). */
int winent_tail_pays(double gpu_rate, double gpu_queued_px, double cpu_rate, double tail_px);

/* --mem as auto's GPU launch sees it (policy.c, under the lock). */
typedef struct winent_mem_view {
    int mem_auto;             /* no --mem given: the budget grows */
    uint64_t chunk_bytes;     /* one chunk's buffers (0: not sized) */
    uint64_t context_bytes;   /* host memory a GPU's context takes */
    int n_fit, n_made, n_need; /* chunks --mem holds, made, the fewest that work */
    int gpu_slots;            /* a GPU's chunks in flight */
} winent_mem_view;

/* 1 when a GPU's context fits beside the chunks made and the fewest the
 * GPU works with; then *n_limit (the chunks that may exist) is lowered to
 * leave it that room. 0: no room, *n_limit unchanged. */
int winent_gpu_room(const winent_mem_view *m, int *n_limit);

#endif
