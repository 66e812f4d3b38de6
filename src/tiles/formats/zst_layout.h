/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zst_layout.h - reading a winent-stream .zst (layout in zst_format.h):
 * its header frame, its seek table, the frames' own headers held against
 * the table, and the header's JSON parsed (cJSON). Shared by --info and
 * --info --check (zst_info.c) and --decode's reader (zst_reader.c), so
 * that all of them accept and refuse the same files.
 */
#ifndef WINENT_ZST_LAYOUT_H
#define WINENT_ZST_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "base/json.h"
#include "winent.h"

/* What every reader needs from the header's top-level object; -1 when absent.
 * A file of several maps lists them ("maps"): `frames` counts every map's,
 * `maps` times the frames of one (1 without the list). */
typedef struct winent_zst_facts {
    int format_ok;
    long long width, height, rows_per_frame, frames;
    long long maps;
    int sample_bytes; /* of "dtype" (--ot): 4 float32 (also when absent), 2
                         float16 and uint16, 1 uint8 */
} winent_zst_facts;

/* An open .zst and where its first problem goes: `msg` (msg_len bytes)
 * gets "PATH: ..." and `why` the reason alone (a literal). */
typedef struct winent_zst_file {
    int fd;
    uint64_t size;
    const char *path;
    char *msg;
    size_t msg_len;
    const char *why; /* the reason winent_zst_bad() gave last, NULL before */
} winent_zst_file;

/* What the readers load: the header frame and the seek table frame. */
typedef struct winent_zst_layout {
    char *json; /* owned: the header's text, NUL-terminated */
    uint32_t jlen;
    cJSON *root; /* owned: the header parsed (an object); NULL until read */
    winent_zst_facts h;
    uint64_t header_end; /* bytes of the header frame: where frame 0 starts */
    uint8_t *table;      /* owned: the seek table frame; NULL until read */
    uint64_t tsize;      /* its size, footer included */
    uint32_t nentries;   /* its entries, the header frame's first */
} winent_zst_layout;

/* "PATH: not a winent-stream .zst file: WHY" into f->msg; WINENT_ERR_INPUT. */
winent_status winent_zst_bad(winent_zst_file *f, const char *why);

/* "out of memory" into f->msg; WINENT_ERR_INTERNAL. */
winent_status winent_zst_oom(winent_zst_file *f);

/* Read exactly n bytes at off (pread); past the end is "truncated". */
winent_status winent_zst_read_at(winent_zst_file *f, void *buf, size_t n, uint64_t off);

/* The header frame: a winent-stream JSON object whose sizes add up. */
winent_status winent_zst_read_header(winent_zst_file *f, winent_zst_layout *l);

/* The seek table frame at the end of the file: its footer, its size, one
 * entry per frame of the header plus the header frame's own. */
winent_status winent_zst_read_table(winent_zst_file *f, winent_zst_layout *l);

/* Check the seek table against the header and each frame's own header
 * (magic, content size); sums of the data frames go to *csum and *dsum. */
winent_status winent_zst_check_frames(winent_zst_file *f, const winent_zst_facts *h,
                                      uint32_t header_frame, const uint8_t *entries,
                                      uint32_t nentries, uint64_t *csum, uint64_t *dsum);

void winent_zst_layout_free(winent_zst_layout *l);

#endif
