/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bytes.h - a growable byte buffer that remembers the sizes of its parts
 * (an encoded unit of output: one zstd frame, or the compressed tiles of
 * one TIFF tile row). Owned by whoever created it; reused, never shrunk.
 */
#ifndef WINENT_BYTES_H
#define WINENT_BYTES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct winent_bytes {
    uint8_t *data;
    size_t size, cap;
    size_t *parts;  /* sizes of the consecutive parts of data, if used */
    int nparts, parts_cap;
} winent_bytes;

/* Make room for `extra` more bytes; returns 0 on success, -1 out of memory. */
int winent_bytes_reserve(winent_bytes *b, size_t extra);
/* Append bytes; -1 when out of memory. */
int winent_bytes_append(winent_bytes *b, const void *src, size_t n);
/* Append printf-style text (no NUL kept); -1 when out of memory. */
int winent_bytes_printf(winent_bytes *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Record that the last `n` bytes form one part; -1 when out of memory. */
int winent_bytes_add_part(winent_bytes *b, size_t n);
/* Forget the content, keep the memory. */
void winent_bytes_reset(winent_bytes *b);
void winent_bytes_free(winent_bytes *b);

/* Copy `n` rows of `row_bytes` from `src` (rows `src_step` bytes apart) to
 * `dst` (rows `dst_step` apart): one memcpy where both are packed. */
void winent_copy_rows(void *dst, size_t dst_step, const void *src, size_t src_step,
                      size_t row_bytes, size_t n);

#ifdef __cplusplus
}
#endif

#endif
