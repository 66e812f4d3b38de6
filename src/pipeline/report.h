/* SPDX-License-Identifier: BSD-3-Clause */
/* report.h - the one place a running job's first error and its notices
 * are recorded (pipeline/ only). It knows no chunk and no engine: the
 * files above hand it the job's lock, the conditions to wake on a failure
 * and the stop flag when the job is set up. */
#ifndef WINENT_REPORT_H
#define WINENT_REPORT_H

#include <pthread.h>

#include "base/werr.h"

#define WINENT_MAX_NOTICES 8

typedef struct winent_report {
    pthread_mutex_t *lock;     /* borrowed: the job's one lock (ring.h) */
    pthread_cond_t *wake[2];   /* borrowed: broadcast when the job fails */
    volatile int *stop;        /* borrowed: the job's stop flag (WINENT_STOP_*) */
    /* Under *lock. */
    winent_err err;            /* the first error */
    char notices[WINENT_MAX_NOTICES][WINENT_MSG_LEN];
    int nnotices;
} winent_report;

/* Record the first error and raise the stop flag (from 0 only: a cancel
 * stays), waking every waiter (any thread, lock not held). */
void winent_report_fail(winent_report *r, const winent_err *e);

/* Queue a notice for the writer to pass on (lock held). */
void winent_report_notice_locked(winent_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Pass the queued notices to `on_notice` (may be NULL: dropped), in
 * order; the lock is held and dropped around each call. */
void winent_report_flush_locked(winent_report *r, void (*on_notice)(void *user, const char *line),
                                void *user);

#endif
