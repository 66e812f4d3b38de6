/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * footprint.h - --footprint FILE: a window of any shape read from a small
 * file, as the library's winent_compute_opts.footprint takes it.
 */
#ifndef WINENT_CLI_FOOTPRINT_H
#define WINENT_CLI_FOOTPRINT_H

#include <stddef.h>

#include "winent.h"

/* The mask in `path` into *mask (malloc'ed, *ky rows of *kx bytes, 1 in
 * the window), whatever the file: a PBM (P1 text or P4 binary: 1, black,
 * is in the window), a NumPy .npy of a 2-D array (bool or any integer or
 * float type: nonzero is in), or text rows of 0 and 1 (blanks and commas
 * between them allowed, '#' starting a comment). The kind is found from
 * the first bytes, not the name. Sides up to 255. Returns WINENT_OK, or
 * WINENT_ERR_USAGE with "--footprint: 'PATH': why" in msg. */
winent_status cli_read_footprint(const char *path, unsigned char **mask, int *kx, int *ky,
                                 char *msg, size_t n);

/* What a footprint of kx x ky is, as Python's footprint= sees it (so that
 * both doors take and name the same window): 0 a rectangle of ones with
 * odd sides, 1 a disk of radius kx / 2 (a square whose pixels are those of
 * dx^2 + dy^2 <= R^2, scikit-image's morphology.disk), 2 any other. */
int cli_footprint_shape(const unsigned char *mask, int kx, int ky);

#endif
