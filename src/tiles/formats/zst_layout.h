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
#include "zst_schema.h"

/* An open .zst and where its first problem goes: `msg` (msg_len bytes)
 * gets "PATH: ..." and `why` the reason alone (a literal). */
typedef struct winent_zst_file {
    int fd;
    uint64_t size;
    const char *path;
    char *msg;
    size_t msg_len;
    const char *why; /* the reason winent_zst_bad() gave last, NULL before */
    char why_text[192]; /* a reason made for this file (the header's schema) */
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

/* Whether the first n bytes of a data frame (up to 18: its header) begin
 * a frame the writer makes: zstd's magic, its content size given and equal
 * to `want`, its checksum flag set. NULL when so, else the reason (a
 * literal). Every reader holds every frame to it. */
const char *winent_zst_frame_header_why(const uint8_t *fh, size_t n, uint64_t want);

/* Open the layout as every reader does before any frame is decompressed:
 * the header (its schema), the seek table, every frame's header against
 * the table, and their sizes against the file's. */
winent_status winent_zst_layout_open(winent_zst_file *f, winent_zst_layout *l);

/* Check the seek table against the header and each frame's own header
 * (magic, content size); sums of the data frames go to *csum and *dsum. */
winent_status winent_zst_check_frames(winent_zst_file *f, const winent_zst_facts *h,
                                      uint32_t header_frame, const uint8_t *entries,
                                      uint32_t nentries, uint64_t *csum, uint64_t *dsum);

void winent_zst_layout_free(winent_zst_layout *l);

#endif
