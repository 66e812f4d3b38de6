/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zst_reader.h - a .zst map of winent-stream read back row by row, for
 * --decode: the header's facts (size, the options that made the map,
 * georeferencing, nodata, provenance) and the float rows, frame after
 * frame through one streaming zstd context, in memory bounded by one
 * frame's window (4 MiB by default, 1 GiB at most) and its compressed
 * bytes, read whole up to 64 MiB (the seek table gives their size).
 *
 * Open checks what --info checks (header, seek table, every frame's own
 * header against the table), so a file that is not ours, or cut, fails
 * before any row is delivered. Reading checks what --info --check checks,
 * frame by frame as it goes: zstd's content size and XXH64 checksum, and
 * the seek table's sizes and checksum of each frame.
 */
#ifndef WINENT_ZST_READER_H
#define WINENT_ZST_READER_H

#include <stdint.h>

#include "base/werr.h"
#include "georef.h"
#include "out_sample.h"
#include "winent.h"

/* One map of a file of several (its entry in the header's "maps"). */
typedef struct winent_zst_map_entry {
    int source_band;             /* "band", 0 when null */
    winent_compute_opts compute; /* the file's, with the map's window, range, nodata */
} winent_zst_map_entry;

/* What the header says of the map (of the first, for a file of several). */
typedef struct winent_zst_map {
    int width, height;
    int rows_per_frame, frames;
    winent_compute_opts compute; /* window, base, bins/range, nodata, and the
                                    source's dtype (u8 when the header does
                                    not say: files before source_dtype) */
    int nodata_in_play;          /* "output_nodata": "NaN", or an integer map's code */
    winent_out_sample sample;    /* how the file stores its samples ("dtype", "scale",
                                    "offset", the nodata code); the rows read are
                                    floats whatever it is */
    char *source;                /* owned: "source" ("" when absent) */
    char *command_line;          /* owned: "command_line", NULL when absent */
    int source_band;             /* "source_band", 0 when absent or null */
    winent_georef georef;        /* owned: the "georef" tags (empty when absent) */
    int nmaps;                   /* maps in the file, 1 without a "maps" list; `frames`
                                    then counts one map's */
    winent_zst_map_entry *maps;  /* owned: each map (nmaps of them) */
} winent_zst_map;

typedef struct winent_zst_reader winent_zst_reader;

/* Open `path` (a regular file: the seek table is at its end) and check its
 * layout. Errors: WINENT_ERR_INPUT (missing, not a winent-stream .zst,
 * truncated, a seek table that disagrees), WINENT_ERR_INTERNAL (memory). */
winent_status winent_zst_reader_open(const char *path, winent_zst_reader **out, winent_err *err);

/* The header's facts; valid until the reader is freed. */
const winent_zst_map *winent_zst_reader_map(const winent_zst_reader *r);

/* The next `rows` rows of the (first) map (width floats each, native byte
 * order) into `dst`; integer and float16 samples are converted to floats
 * (code * scale + offset, NaN for the nodata code). A damaged frame is
 * WINENT_ERR_INPUT naming it: "FILE: frame 3 (rows 48-63) at byte 123456:
 * checksum mismatch". One thread at a time. */
winent_status winent_zst_reader_read(winent_zst_reader *r, int rows, float *dst, winent_err *err);

/* The same for map `map` (0 .. nmaps - 1) of a file of several: each map
 * is read front to back on its own (a decompression context each, in
 * memory bounded as above per map), so the maps can be read row band by
 * row band side by side. */
winent_status winent_zst_reader_read_map(winent_zst_reader *r, int map, int rows, float *dst,
                                         winent_err *err);

/* Data frame `frame` (0-based, of the map's) of map `map` whole into `dst`
 * (its rows, width floats each, as the file holds them): checked as
 * winent_zst_reader_read checks it. Needs no cursor: any number of
 * threads may read frames of one reader at once (pread, a context each). */
winent_status winent_zst_reader_read_frame(const winent_zst_reader *r, int map, int64_t frame,
                                           float *dst, winent_err *err);

/* Compressed bytes read so far. */
uint64_t winent_zst_reader_bytes_read(const winent_zst_reader *r);

/* Frees everything; NULL is fine. */
void winent_zst_reader_free(winent_zst_reader *r);

#endif
