/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dynlib.h - a shared library opened at first use (dlopen) instead of
 * linked: GDAL and PROJ, which a job needs only for some inputs and
 * outputs, and which, linked, cost every start of the command and of the
 * library their whole load (GDAL maps about a hundred libraries: 0.09 s on
 * the 2-core VM; docs/PERFORMANCE.md).
 */
#ifndef WINENT_DYNLIB_H
#define WINENT_DYNLIB_H

#include <stddef.h>

/* Open the library the build was linked against: `path` (its full path
 * and soname, where the build found it), else its file name alone (the
 * loader's search path: a library moved since the build, an install with
 * the library elsewhere). NULL on failure, with dlerror()'s reason in
 * `why` (`len` bytes). The handle is never closed. */
void *winent_dynlib_open(const char *path, char *why, size_t len);

/* The address of `name` in `lib`, or NULL with the reason in `why`. */
void *winent_dynlib_sym(void *lib, const char *name, char *why, size_t len);

#endif
