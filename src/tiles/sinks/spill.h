/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spill.h - scratch files beside an output, and copies between files.
 *
 * A spill holds bytes that are produced before the place they must take in
 * the output is known (a COG's full-resolution tiles, which come first but
 * are stored last). It lives in the output's own folder, so that it is on
 * the file system the output goes to (room, and the copy can stay in the
 * kernel), and it has no name from the start where the system allows it
 * (O_TMPFILE), or loses it at once: it is gone with its last descriptor
 * however the job ends, a SIGKILL included, and nothing is left to clean.
 */
#ifndef WINENT_SPILL_H
#define WINENT_SPILL_H

#include <stdint.h>

#include "base/werr.h"

/* A new empty spill, open read-write, in the folder of `beside` (a path:
 * its folder part is used). `what` names the output in messages. Errors:
 * WINENT_ERR_OUTPUT (the folder refuses a new file). */
winent_status winent_spill_open(const char *beside, const char *what, int *fd, winent_err *err);

/* Append all of `buf` to descriptor `fd` at its current offset; `*written`
 * (may be NULL) grows by the bytes written. A failure is WINENT_ERR_OUTPUT
 * naming `what` and the reason (a full disk, ulimit -f). */
winent_status winent_spill_append(int fd, const void *buf, size_t n, const char *what,
                                  uint64_t *written, winent_err *err);

/* Write all of `buf` to `fd` at offset `at` (positional: any thread, the
 * file offset unchanged). Errors: WINENT_ERR_OUTPUT naming `what`. */
winent_status winent_spill_pwrite(int fd, const void *buf, size_t n, uint64_t at, const char *what,
                                  winent_err *err);

/* Copy `len` bytes of `in` from offset `at` to `out` at its current offset
 * (which advances): copy_file_range where the kernel and the file system
 * can, which on a reflink file system shares the blocks; read and write
 * otherwise. Gives up with WINENT_ERR_INTERRUPTED between pieces once
 * `*stop` (may be NULL). Errors: WINENT_ERR_OUTPUT naming `what`. */
winent_status winent_spill_copy(int in, uint64_t at, int out, uint64_t len,
                                const volatile int *stop, const char *what, winent_err *err);

/* 1 when bytes can be inserted at the front of the file `fd` (empty,
 * open for writing) by the file system (fallocate FALLOC_FL_INSERT_RANGE:
 * ext4, XFS), so that what was written first is moved back without a copy;
 * `*block` gets the unit such an insertion needs. Tried on the file: it is
 * empty again afterwards. */
int winent_spill_can_insert(int fd, unsigned *block);

/* Insert `len` (a multiple of the block) zero bytes at the front of `fd`,
 * moving its content back; the file offset is 0 afterwards. A file size
 * limit (RLIMIT_FSIZE) is held to as by a write. Errors: WINENT_ERR_OUTPUT
 * naming `what`. */
winent_status winent_spill_insert_front(int fd, uint64_t len, const char *what, winent_err *err);

#endif
