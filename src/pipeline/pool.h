/* SPDX-License-Identifier: BSD-3-Clause */
/* pool.h - the job's one worker pool (pipeline/ only): --threads threads
 * that run whatever work the caller hands them, and a parallel loop
 * (winent_parallel's run: a source's decoding) that goes before that
 * work. It knows no chunk and no engine: the work is a table of callbacks
 * (zstd's POOL_*, libvips' vips_threadpool_run start/allocate/work).
 *
 * Locking: the pool has no lock of its own. It borrows the job's one lock
 * (`lock`, ring's: the work picks its tasks from the chunks' states under
 * it), waits on `work_cv` for a task and broadcasts `state_cv` when the
 * parallel loop is done; a failure (report.c) broadcasts both. */
#ifndef WINENT_POOL_H
#define WINENT_POOL_H

#include <pthread.h>

#include "base/werr.h"
#include "trace.h"

/* What the workers run. Each worker holds a state of the work's own
 * (start); a worker's task lives in it between next, run and done. */
typedef struct winent_pool_work {
    void *ctx;
    /* Lock not held: worker `w`'s state; NULL: it cannot work (start has
     * recorded why) and leaves. */
    void *(*start)(void *ctx, int w);
    /* Lock held: pick the next task into `ws`: 1 picked; 0 none, and
     * *retry_ms > 0 to look again that soon without a signal. */
    int (*next)(void *ctx, void *ws, int *retry_ms);
    /* Lock not held: run it; nonzero: this worker stops after `done`. */
    int (*run)(void *ctx, void *ws);
    /* Lock held: account for the task run. */
    void (*done)(void *ctx, void *ws);
    /* Lock not held: the worker leaves; its state goes. */
    void (*end)(void *ctx, void *ws);
} winent_pool_work;

typedef struct winent_pool {
    /* Set up before the threads, read-only afterwards. */
    pthread_mutex_t *lock;     /* borrowed: the job's one lock */
    pthread_cond_t *work_cv;   /* borrowed: a task may be there */
    pthread_cond_t *state_cv;  /* borrowed: the parallel loop's end is broadcast on it */
    volatile int *stop;        /* borrowed: the job's stop flag; atomic access */
    winent_trace *trace;       /* borrowed, may be NULL */
    int lane0;                 /* worker w's trace lane: lane0 + w */
    int threads;
    winent_pool_work work;
    pthread_t *tids;           /* owned */
    int started;
    /* Under *lock. */
    int quit;                  /* the workers leave */
    struct {                   /* the parallel loop: at most one at a time */
        void (*fn)(void *arg, long i, int worker);
        void *arg;
        long n, next, done;
        int active;
    } par;
    double par_s;              /* the workers' time in the loop's items */
} winent_pool;

/* The pool's fields (no thread yet; `work` set later, before start). */
winent_status winent_pool_init(winent_pool *pool, int threads, pthread_mutex_t *lock,
                               pthread_cond_t *work_cv, pthread_cond_t *state_cv,
                               volatile int *stop, winent_err *err);
/* Start the threads: 1 when all of them started. */
int winent_pool_start(winent_pool *pool);
/* Make the workers leave and join them (lock not held). */
void winent_pool_join(winent_pool *pool);
void winent_pool_free(winent_pool *pool);

/* The parallel loop (winent_parallel.run, ctx: the pool): post items
 * 0..n-1 before any work, take items too (as worker number `threads`),
 * return when every item is done; -1 when the job stopped first (items
 * not started never run). */
int winent_pool_parallel_run(void *ctx, long n, void (*fn)(void *arg, long i, int worker),
                             void *arg);

#endif
