/* SPDX-License-Identifier: BSD-3-Clause */
/* clock.h - the pipeline's clock (pipeline/ only). */
#ifndef WINENT_CLOCK_H
#define WINENT_CLOCK_H

#include <pthread.h>

/* Seconds on a monotonic clock. */
double winent_now(void);

/* pthread_cond_timedwait for at most `ms` milliseconds, on a condition
 * variable made with CLOCK_MONOTONIC (the pipeline's are). */
void winent_cond_wait_ms(pthread_cond_t *cv, pthread_mutex_t *lock, long ms);

#endif
