/*
 * source_internal.h - what each kind of source implements (tiles/ only).
 */
#ifndef WINENT_SOURCE_INTERNAL_H
#define WINENT_SOURCE_INTERNAL_H


#include "source.h"

typedef struct source_ops {
    winent_status (*read)(winent_source *s, int rows, void *dst, winent_err *err);
    void (*free_impl)(void *impl);
    /* Optional (NULL: none recorded): fill *st (cleared by the caller). */
    winent_status (*stats)(winent_source *s, winent_band_stats *st, winent_err *err);
} source_ops;

struct winent_source {
    const source_ops *ops;
    void *impl;               /* owned, freed by ops->free_impl */
    winent_source_info info;  /* filled by the opener */
    int next_row;             /* rows delivered so far */
    uint64_t bytes_read;      /* updated by the implementation */
};

/* Raw source over an open descriptor (0 for standard input); `pushback`
 * holds bytes already taken from it (the sniffed magic), delivered first.
 * Takes ownership of `fd` (standard input is not closed). */
winent_status winent_source_raw_open(const winent_source_opts *o, int fd, const uint8_t *pushback,
                                     size_t npushback, winent_source *s, winent_err *err);

/* read() that retries on EINTR and, when `stop` is given, waits in slices
 * so that a pipe that never delivers cannot hold the job once *stop is
 * set; returns bytes read (short only at end of input), -1 on error (errno),
 * -2 when stopped. */
long winent_source_read_fd(int fd, void *dst, size_t n, const volatile int *stop);

/* TIFF source over the file `o->path` (never standard input). */
winent_status winent_source_tiff_open(const winent_source_opts *o, winent_source *s,
                                      winent_err *err);

#endif
