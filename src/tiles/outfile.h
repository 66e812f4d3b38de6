/*
 * outfile.h - an output that appears at its final name only when complete:
 * written to a temporary name beside it, renamed at commit, removed on
 * abort. "-" writes to standard output (nothing to take back).
 */
#ifndef WINENT_OUTFILE_H
#define WINENT_OUTFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/werr.h"

typedef struct winent_outfile {
    char *final_path;   /* owned; NULL for standard output */
    char *temp_path;    /* owned; NULL for standard output */
    int fd;             /* open descriptor (1 for standard output) */
    uint64_t written;   /* bytes written so far */
} winent_outfile;

/* Create the temporary file beside `path` (or take standard output for
 * "-"). Errors: WINENT_ERR_OUTPUT. */
winent_status winent_outfile_open(winent_outfile *of, const char *path, winent_err *err);

/* Write all of `buf`; a short write or failure is WINENT_ERR_OUTPUT with
 * the system's reason (disk full, ...). */
winent_status winent_outfile_write(winent_outfile *of, const void *buf, size_t n, winent_err *err);

/* Flush, close and rename into place. */
winent_status winent_outfile_commit(winent_outfile *of, winent_err *err);

/* Close and remove the temporary file; the final name is left untouched.
 * Safe to call twice and after commit (then it does nothing). */
void winent_outfile_abort(winent_outfile *of);

#endif
