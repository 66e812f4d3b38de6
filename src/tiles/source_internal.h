/*
 * source_internal.h - what each kind of source implements (tiles/ only).
 */
#ifndef WINENT_SOURCE_INTERNAL_H
#define WINENT_SOURCE_INTERNAL_H

#include <stdio.h>

#include "source.h"

typedef struct source_ops {
    winent_status (*read)(winent_source *s, int rows, void *dst, winent_err *err);
    void (*free_impl)(void *impl);
} source_ops;

struct winent_source {
    const source_ops *ops;
    void *impl;               /* owned, freed by ops->free_impl */
    winent_source_info info;  /* filled by the opener */
    int next_row;             /* rows delivered so far */
    uint64_t bytes_read;      /* updated by the implementation */
};

/* Raw source over an open stream; `pushback` holds bytes already taken
 * from it (the sniffed magic), delivered first. Takes ownership of `f`. */
winent_status winent_source_raw_open(const winent_source_opts *o, FILE *f, const uint8_t *pushback,
                                     size_t npushback, winent_source *s, winent_err *err);

/* TIFF source over the file `o->path` (never standard input). */
winent_status winent_source_tiff_open(const winent_source_opts *o, winent_source *s,
                                      winent_err *err);

#endif
