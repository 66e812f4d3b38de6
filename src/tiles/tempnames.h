/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tempnames.h - the names of a job's temporary files, for a last resort.
 *
 * A job's outputs are written under temporary names (outfile.h) that its
 * own commit renames or its abort removes. A thread that never returns (a
 * read blocked in GDAL, libtiff or the kernel) keeps the job from reaching
 * either: the program that gives up on it (the CLI's watchdog after a
 * signal, docs/SPEC.md section 6) removes the names recorded here and
 * exits. Fixed storage and atomic flags only, so that removal takes no
 * lock, allocates nothing and is async-signal-safe.
 */
#ifndef WINENT_TEMPNAMES_H
#define WINENT_TEMPNAMES_H

#include <limits.h>

/* A job holds at most this many temporary names at once (an output per
 * map, their sidecars, a preview): more are not recorded (the commit or
 * abort still removes them; only the last resort misses them). */
#define WINENT_TEMPNAMES_MAX 64

typedef struct winent_tempnames {
    /* state[i]: 0 free, 1 being written or cleared by its owner, 2 set
     * (path[i] is a name to remove). Atomic access only; an owner thread
     * claims a slot 0 -> 1, fills it, and publishes it 1 -> 2. */
    int state[WINENT_TEMPNAMES_MAX];
    char path[WINENT_TEMPNAMES_MAX][PATH_MAX];
} winent_tempnames;

/* Record `path` (a temporary file just created); returns its slot, or -1
 * when `t` is NULL, full, or the name too long. Thread-safe. */
int winent_tempnames_add(winent_tempnames *t, const char *path);

/* Forget slot `slot` (its file was renamed into place or removed); -1 and
 * a NULL `t` are ignored. Thread-safe. */
void winent_tempnames_forget(winent_tempnames *t, int slot);

/* unlink() every name recorded: async-signal-safe, lock-free. Names that
 * are already gone are no harm. */
void winent_tempnames_unlink_all(winent_tempnames *t);

#endif
