/* SPDX-License-Identifier: BSD-3-Clause */
/* decide.h - launch decisions as pure functions of a snapshot of rates
 * (pipeline/ only): no lock, no pipeline, so a test is a table of cases
 * (test_decide). The callers take the snapshot under the pipeline's lock. */
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

#endif
