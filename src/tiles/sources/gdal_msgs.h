/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gdal_msgs.h - GDAL's messages about the calls one thread makes, caught by
 * a handler pushed on that thread's own stack (never printed), and the
 * thread-local settings every call into GDAL is made under (source_gdal.c).
 */
#ifndef WINENT_GDAL_MSGS_H
#define WINENT_GDAL_MSGS_H

#include "base/werr.h"

/* GDAL's messages about one handle's calls. Written by GDAL's error
 * handler on the thread that made the call (the handler is pushed on that
 * thread's own stack), so by one thread. */
typedef struct winent_gdal_msgs {
    unsigned magic;             /* the handler's user data is ours */
    char first[WINENT_MSG_MAX]; /* the first failure, else the first warning */
    int failures, warnings;
    char below[160];            /* what HDF5 said under GDAL's next message, if any */
    int http_limits; /* begin set the HTTP time limits on this thread */
} winent_gdal_msgs;

/* Calls into GDAL on this thread report to `m` from here to the matching
 * winent_gdal_msgs_end, and run under the job's settings: decoding on
 * this thread alone (GDAL_NUM_THREADS), no file written beside the input
 * (/vsigzip/'s index), and, unless the user set GDAL's own, time limits
 * on HTTP reads. All thread-local: other users of GDAL are unaffected.
 * GDAL must be loaded (winent_gdal_api_get). Each begin has its end on
 * the same thread. */
void winent_gdal_msgs_begin(winent_gdal_msgs *m);
void winent_gdal_msgs_end(void);

#endif
