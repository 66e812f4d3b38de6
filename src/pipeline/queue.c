#include "queue.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

double winent_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int winent_queue_init(winent_queue *q, int cap)
{
    q->items = calloc((size_t)(cap > 0 ? cap : 1), sizeof *q->items);
    if (q->items == NULL)
        return -1;
    q->cap = cap > 0 ? cap : 1;
    q->head = q->count = q->closed = 0;
    q->wait_s = 0.0;
    pthread_mutex_init(&q->lock, NULL);
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&q->not_empty, &a);
    pthread_cond_init(&q->not_full, &a);
    pthread_condattr_destroy(&a);
    return 0;
}

void winent_queue_destroy(winent_queue *q)
{
    if (q->items == NULL)
        return;
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->not_empty);
    pthread_cond_destroy(&q->not_full);
    free(q->items);
    q->items = NULL;
}

int winent_queue_push(winent_queue *q, void *item)
{
    pthread_mutex_lock(&q->lock);
    if (q->count == q->cap && !q->closed) {
        double t0 = winent_now();
        while (q->count == q->cap && !q->closed)
            pthread_cond_wait(&q->not_full, &q->lock);
        q->wait_s += winent_now() - t0;
    }
    if (q->closed) {
        pthread_mutex_unlock(&q->lock);
        return -1;
    }
    q->items[(q->head + q->count) % q->cap] = item;
    q->count++;
    pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->lock);
    return 0;
}

static void *take(winent_queue *q)
{
    void *item = q->items[q->head];
    q->head = (q->head + 1) % q->cap;
    q->count--;
    pthread_cond_signal(&q->not_full);
    return item;
}

void *winent_queue_pop_timed(winent_queue *q, int timeout_ms, int *timed_out)
{
    void *item = NULL;
    if (timed_out)
        *timed_out = 0;
    pthread_mutex_lock(&q->lock);
    if (q->count == 0 && !q->closed) {
        double t0 = winent_now();
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        if (timeout_ms >= 0) {
            until.tv_sec += timeout_ms / 1000;
            until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
        }
        while (q->count == 0 && !q->closed) {
            if (timeout_ms < 0) {
                pthread_cond_wait(&q->not_empty, &q->lock);
            } else if (pthread_cond_timedwait(&q->not_empty, &q->lock, &until) == ETIMEDOUT) {
                if (timed_out)
                    *timed_out = q->count == 0;
                break;
            }
        }
        q->wait_s += winent_now() - t0;
    }
    if (q->count > 0)
        item = take(q);
    pthread_mutex_unlock(&q->lock);
    return item;
}

void *winent_queue_pop(winent_queue *q)
{
    return winent_queue_pop_timed(q, -1, NULL);
}

void *winent_queue_try_pop(winent_queue *q)
{
    void *item = NULL;
    pthread_mutex_lock(&q->lock);
    if (q->count > 0)
        item = take(q);
    pthread_mutex_unlock(&q->lock);
    return item;
}

void winent_queue_close(winent_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->closed = 1;
    pthread_cond_broadcast(&q->not_empty);
    pthread_cond_broadcast(&q->not_full);
    pthread_mutex_unlock(&q->lock);
}
