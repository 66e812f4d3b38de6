/* SPDX-License-Identifier: BSD-3-Clause */
/* The job's worker pool (pool.h): threads that take the parallel loop's
 * items first, then the work's tasks, under the job's lock. */
#include <stdlib.h>

#include "clock.h"
#include "pipeline_bench.h"
#include "pool.h"

#define POOL_STOPPED(pool) (__atomic_load_n((pool)->stop, __ATOMIC_RELAXED) != 0)

typedef struct pool_arg {
    winent_pool *pool;
    int index;
} pool_arg;

winent_status winent_pool_init(winent_pool *pool, int threads, pthread_mutex_t *lock,
                               pthread_cond_t *work_cv, pthread_cond_t *state_cv,
                               volatile int *stop, winent_err *err)
{
    pool->lock = lock;
    pool->work_cv = work_cv;
    pool->state_cv = state_cv;
    pool->stop = stop;
    pool->threads = threads;
    pool->tids = calloc((size_t)threads, sizeof *pool->tids);
    if (pool->tids == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    return WINENT_OK;
}

void winent_pool_free(winent_pool *pool)
{
    free(pool->tids);
    pool->tids = NULL;
}

/* Item i of the parallel loop, by worker w (lock not held). */
static double run_item(winent_pool *pool, long i, int w)
{
    double t0 = winent_now();
    winent_trace_mark(pool->trace, pool->lane0 + w, "decode", -1);
    pool->par.fn(pool->par.arg, i, w);
    winent_trace_mark(pool->trace, pool->lane0 + w, "decoded", -1);
    return winent_now() - t0;
}

static void *worker(void *arg)
{
    pool_arg *a = arg;
    winent_pool *pool = a->pool;
    const winent_pool_work *wk = &pool->work;
    const int w = a->index;
    double par_s = 0.0;
    free(a);
    void *ws = wk->start(wk->ctx, w);
    if (ws == NULL)
        return NULL;
    pthread_mutex_lock(pool->lock);
    while (!pool->quit && !POOL_STOPPED(pool)) {
        if (pool->par.active && pool->par.next < pool->par.n) {
            long i = pool->par.next++;
            pthread_mutex_unlock(pool->lock);
            par_s += run_item(pool, i, w);
            pthread_mutex_lock(pool->lock);
            if (++pool->par.done >= pool->par.n)
                pthread_cond_broadcast(pool->state_cv);
            continue;
        }
        int retry_ms = 0;
        if (!wk->next(wk->ctx, ws, &retry_ms)) {
            if (retry_ms > 0)
                winent_cond_wait_ms(pool->work_cv, pool->lock, retry_ms);
            else
                pthread_cond_wait(pool->work_cv, pool->lock);
            continue;
        }
        pthread_mutex_unlock(pool->lock);
        int leave = wk->run(wk->ctx, ws);
        pthread_mutex_lock(pool->lock);
        wk->done(wk->ctx, ws);
        if (leave)
            break;
    }
    pool->par_s += par_s;
    pthread_mutex_unlock(pool->lock);
    wk->end(wk->ctx, ws);
    return NULL;
}

int winent_pool_start(winent_pool *pool)
{
    for (; pool->started < pool->threads; pool->started++) {
        pool_arg *a = malloc(sizeof *a);
        if (a == NULL)
            break;
        a->pool = pool;
        a->index = pool->started;
        if (pthread_create(&pool->tids[pool->started], NULL, worker, a) != 0) {
            free(a);
            break;
        }
    }
    return pool->started == pool->threads;
}

void winent_pool_join(winent_pool *pool)
{
    pthread_mutex_lock(pool->lock);
    pool->quit = 1;
    pthread_cond_broadcast(pool->work_cv);
    pthread_mutex_unlock(pool->lock);
    for (int i = 0; i < pool->started; i++)
        pthread_join(pool->tids[i], NULL);
    pool->started = 0;
}

int winent_pool_parallel_run(void *ctx, long n, void (*fn)(void *arg, long i, int worker),
                             void *arg)
{
    winent_pool *pool = ctx;
    int stopped = 0;
    if (n <= 0)
        return 0;
    pthread_mutex_lock(pool->lock);
    pool->par.fn = fn;
    pool->par.arg = arg;
    pool->par.n = n;
    pool->par.next = 0;
    pool->par.done = 0;
    pool->par.active = 1;
    pthread_cond_broadcast(pool->work_cv);
    while (pool->par.done < pool->par.n) {
        if (POOL_STOPPED(pool)) {
            /* Items not started will never run: count them out, then wait
             * only for those running (they use the caller's buffers). */
            stopped = 1;
            pool->par.done += pool->par.n - pool->par.next;
            pool->par.next = pool->par.n;
            if (pool->par.done >= pool->par.n)
                break;
            pthread_cond_wait(pool->state_cv, pool->lock);
            continue;
        }
        if (pool->par.next < pool->par.n) {
            long i = pool->par.next++;
            pthread_mutex_unlock(pool->lock);
            fn(arg, i, pool->threads);
            pthread_mutex_lock(pool->lock);
            pool->par.done++;
            continue;
        }
        pthread_cond_wait(pool->state_cv, pool->lock);
    }
    pool->par.active = 0;
    pthread_mutex_unlock(pool->lock);
    return stopped ? -1 : 0;
}
