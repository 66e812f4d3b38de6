/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * batch_load.h - the loop that decodes a batch of work items (a TIFF's
 * blocks, a GDAL dataset's windows) for the TIFF and GDAL sources: on the
 * job's workers when it lends them (winent_parallel), else on an OpenMP
 * team, or one item after the other on worker 0 (a source that must read
 * in order). Each worker keeps its first failure; the batch reports the
 * failure of the first item in file order, whatever thread met it, so the
 * message does not depend on scheduling (tiles/sources only).
 */
#ifndef WINENT_BATCH_LOAD_H
#define WINENT_BATCH_LOAD_H

#include "source.h"

/* One work item on worker `worker` (< the loader's workers): WINENT_OK, or
 * the failure, recorded in `err` (the worker's own). */
typedef winent_status (*winent_batch_item_fn)(void *arg, long item, int worker, winent_err *err);

/* A worker's first failure in the current batch. */
typedef struct winent_batch_slot {
    winent_err err;
    long fail_item; /* its item, -1 when none */
} winent_batch_slot;

typedef struct winent_batch_loader {
    const winent_parallel *par; /* borrowed, may be NULL: an OpenMP team */
    const volatile int *stop;   /* borrowed, may be NULL: checked between
                                   the items of a sequential batch */
    winent_batch_slot *slot;    /* owned: one per worker */
    int workers;                /* slots allocated: par->workers, or the
                                   source's own thread count */
} winent_batch_loader;

/* Set up `b` for up to `workers` workers (the source's handles). 0, or -1
 * out of memory (b is then cleared and safe to free). */
int winent_batch_loader_init(winent_batch_loader *b, const winent_parallel *par,
                             const volatile int *stop, int workers);

void winent_batch_loader_free(winent_batch_loader *b);

/* Run fn(arg, item, worker, err) for every item in [0, n): one after the
 * other on worker 0 when `sequential` (stopping at its first failure, or
 * when *stop is set: WINENT_ERR_INTERRUPTED), else on b->par (a job that
 * stops: WINENT_ERR_INTERRUPTED), else on an OpenMP team of at most
 * `team` threads. A worker skips its items after its first failure. The
 * batch's failure is that of its lowest failed item, merged into `err`.
 * One batch at a time (the source's reading thread). */
winent_status winent_batch_run(winent_batch_loader *b, long n, int sequential, int team,
                               winent_batch_item_fn fn, void *arg, winent_err *err);

#endif
