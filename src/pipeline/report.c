/* SPDX-License-Identifier: BSD-3-Clause */
/* The running job's first error and its notices (report.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pipeline_bench.h"
#include "report.h"

void winent_report_fail(winent_report *r, const winent_err *e)
{
    pthread_mutex_lock(r->lock);
    winent_err_merge(&r->err, e);
    /* Only from 0: a cancel already there stays (the job then ends
     * interrupted, as the cancel asked). */
    int running = 0;
    __atomic_compare_exchange_n(r->stop, &running, WINENT_STOP_ERROR, 0, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
    pthread_cond_broadcast(r->wake[0]);
    pthread_cond_broadcast(r->wake[1]);
    pthread_mutex_unlock(r->lock);
}

void winent_report_notice_locked(winent_report *r, const char *fmt, ...)
{
    if (r->nnotices == WINENT_MAX_NOTICES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notices[r->nnotices], WINENT_MSG_LEN, fmt, ap);
    va_end(ap);
    winent_one_line(r->notices[r->nnotices++]);
}

void winent_report_flush_locked(winent_report *r, void (*on_notice)(void *user, const char *line),
                                void *user)
{
    while (r->nnotices > 0) {
        char line[WINENT_MSG_LEN];
        memcpy(line, r->notices[0], sizeof line);
        memmove(r->notices[0], r->notices[1], sizeof r->notices[0] * (size_t)(r->nnotices - 1));
        r->nnotices--;
        if (on_notice) {
            pthread_mutex_unlock(r->lock);
            on_notice(user, line);
            pthread_mutex_lock(r->lock);
        }
    }
}
