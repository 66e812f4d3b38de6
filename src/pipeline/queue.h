/*
 * queue.h - a bounded blocking queue of pointers: the joint between two
 * pipeline stages. A full queue blocks its producer; a closed queue wakes
 * everyone: pop returns NULL once it is closed and empty, push fails.
 */
#ifndef WINENT_QUEUE_H
#define WINENT_QUEUE_H

#include <pthread.h>

typedef struct winent_queue {
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full;
    void **items;     /* owned ring of `cap` slots */
    int cap, head, count;
    int closed;
    double wait_s;    /* time callers spent blocked (under lock) */
} winent_queue;

int winent_queue_init(winent_queue *q, int cap);
void winent_queue_destroy(winent_queue *q);

/* Block while full; 0 on success, -1 when the queue is closed. */
int winent_queue_push(winent_queue *q, void *item);

/* Block while empty; NULL when closed and empty. */
void *winent_queue_pop(winent_queue *q);

/* Like pop, but give up after `timeout_ms` (NULL, with *timed_out = 1). */
void *winent_queue_pop_timed(winent_queue *q, int timeout_ms, int *timed_out);

/* Non-blocking pop: NULL when empty. */
void *winent_queue_try_pop(winent_queue *q);

/* Wake every waiter; later pushes fail, pops drain what is left. */
void winent_queue_close(winent_queue *q);

/* Seconds since an arbitrary origin (monotonic clock). */
double winent_now(void);

#endif
