/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sink.h - where the entropy map goes: raw float32, .zst, or GeoTIFF.
 * Several maps of one pass (bands and windows) go to one output: the
 * bands of one GeoTIFF, consecutive maps of one .zst, one raw file each.
 *
 * The output is cut into units of rows fixed by the options (a zstd frame,
 * a TIFF tile row), never by the thread or device count. Units are encoded
 * by any number of encoder threads, each with its own encoder, possibly out
 * of order; one writer thread then hands them to winent_sink_write strictly
 * in order. So the bytes of the output never depend on the machine.
 */
#ifndef WINENT_SINK_H
#define WINENT_SINK_H

#include <stdint.h>

#include "base/bytes.h"
#include "base/werr.h"
#include "file_guard.h"
#include "georef.h"
#include "kernels/measure.h"
#include "out_sample.h"
#include "tempnames.h"
#include "source.h"
#include "winent.h"

/* One map of an output that holds several (--band and --window lists). */
typedef struct winent_sink_map {
    int source_band;                    /* 1-based band of the source; 0: unknown */
    const winent_compute_opts *compute; /* its window, range and nodata (borrowed) */
} winent_sink_map;

typedef struct winent_sink_opts {
    const char *path;        /* file name, or "-" for standard output */
    const char *input_path;  /* the job's input ("-": standard input; NULL:
                                none to compare): an output that is the
                                input is refused */
    winent_format format;    /* WINENT_FORMAT_AUTO: from the name */
    int width, height;
    int level;               /* zstd level (zst, and TIFF with zstd/deflate) */
    int frame_rows;          /* zst: rows per frame */
    int tile;                /* TIFF: tile side */
    winent_compress compress;/* TIFF */
    winent_tif_layout tif_layout; /* TIFF: Cloud-Optimized (default) or plain tiled */
    int bigtiff;             /* TIFF: 1 = BigTIFF even when small (else past 4 GiB) */
    winent_out_type out_type; /* the samples written (--ot); the scale of the
                                 integer types: winent_sink_out_sample */
    /* Facts for headers and metadata (borrowed). */
    const winent_compute_opts *compute;
    const char *source_name;
    int source_band;         /* 1-based band of the source the map is of; 0: unknown */
    const char *command_line;/* the command that made the map, shell-quoted; may be NULL */
    const winent_georef *georef; /* NULL when none */
    int nodata_in_play;      /* some output can be NaN: say so (GDAL_NODATA) */
    int sidecar;             /* raw output: also write the ENVI header PATH.hdr
                                (winent_sidecar_check refuses it elsewhere) */
    const volatile int *stop;/* may be NULL: the job's stop flag; a write
                                blocked on a pipe that a signal interrupts
                                then gives up (WINENT_ERR_INTERRUPTED) */
    winent_tempnames *temps; /* may be NULL: the job's temporary names, where
                                every output file records its own (tempnames.h) */
    const winent_parallel *par; /* may be NULL: the job's worker pool, lent to
                                   winent_sink_finish (a COG compresses its last
                                   overview tiles on it) */
    int writers;             /* threads that may write a raw map's rows at
                                once (winent_sink_write_floats_at); 0: one */
    /* Several maps in one output (docs/SPEC.md, "Several bands and
     * windows"): `maps` (borrowed) holds `nmaps` of them, in the output's
     * order, band-major; `compute` and `source_band` above describe the
     * first. 0 or 1: the one map that `compute` and `source_band` describe,
     * written as ever. */
    int nmaps;
    const winent_sink_map *maps;
    /* One map's options cut from a several-map output (winent_sink_map_opts):
     * the largest value of the whole output, whose scale the map's integer
     * codes share; 0: from the maps themselves. */
    double scale_top;
} winent_sink_opts;

typedef struct winent_sink winent_sink;
typedef struct winent_sink_encoder winent_sink_encoder;

/* How the output `o` stores its samples: its out_type, with the scale of
 * an integer type from the largest entropy any of its maps can hold (one
 * scale for every map of the output). Pure. */
void winent_sink_out_sample(const winent_sink_opts *o, winent_out_sample *q);

/* Maps in the output `o` describes: nmaps, at least 1. */
int winent_sink_nmaps(const winent_sink_opts *o);

/* How reduced-resolution views of map `m` of `o` are made (a COG's
 * overviews): its measure's rule (winent_measure_overview_rule), the mean
 * when the map's measure is unknown. Pure. */
winent_overview_rule winent_sink_overview_rule(const winent_sink_opts *o, int m);

/* Pixels of the smallest window of the output's maps (a disk's own
 * count): the GeoTIFF sinks' predictor depends on it. Pure. */
int winent_sink_window_pixels(const winent_sink_opts *o);

/* `o` narrowed to its map `m` alone (nmaps 0, compute and source_band
 * those of the map), into `one`; the path and every borrowed pointer stay
 * as they are. Pure. */
void winent_sink_map_opts(const winent_sink_opts *o, int m, winent_sink_opts *one);

/* The window of `c` as the outputs name it, into `buf` (cap bytes): "KxK"
 * (width first) for a rectangle, "diskR" for a disk of radius R (the
 * CLI's --window item). Pure. */
void winent_sink_window_name(const winent_compute_opts *c, char *buf, size_t cap);

/* The map of `c` as the outputs describe it: its measure and window,
 * "entropy 5x5", "simpson disk3", "renyi:2 15x15". Pure. */
void winent_sink_map_name(const winent_compute_opts *c, char *buf, size_t cap);

/* The file of map (band, window of `c`) of a raw output named `path`
 * with several maps: NAME_bB_wK.EXT for NAME.EXT (a square window),
 * NAME_bB_wKXxKY.EXT, or NAME_bB_diskR.EXT for a disk, the extension that
 * of the last path component (none: NAME_bB_wK); a measure other than the
 * entropy is added, NAME_bB_wK_simpson.EXT (renyi:Q as renyiQ). malloc'ed
 * (the caller frees it); NULL when out of memory. */
char *winent_sink_map_path(const char *path, int band, const winent_compute_opts *c);

/* The format `o` resolves to: o->format unless AUTO, else from the name's
 * extension: .zst; .tif or .tiff; .raw, .f32, .bin, "-" or no extension at
 * all (/dev/null, /dev/fd/63, "out") raw. WINENT_FORMAT_AUTO when the
 * extension is unknown: winent_output_check refuses it. */
winent_format winent_sink_format_of(const winent_sink_opts *o);

/* The checks due before anything is read or written, all usage errors
 * (WINENT_ERR_USAGE) with a one-line message saying what to do (the
 * sidecar's with winent_sidecar_check):
 * - the output is the input (the same device and inode after symlinks:
 *   by name, hard link or symlink; input "-" is standard input, output "-"
 *   standard output). `input_path` may be NULL: nothing to compare;
 * - the output name's extension is unknown and `format` is AUTO;
 * - a GeoTIFF to an output written in place (standard output, a pipe, a
 *   device, /dev/fd/N): it needs a seekable file.
 * A name that cannot be an output at all (a folder, a link loop) is
 * WINENT_ERR_OUTPUT. Reads metadata only (stat); opens nothing. The job
 * calls it first; winent_sink_open calls it too. Thread-safe. */
winent_status winent_output_check(const char *input_path, const char *output_path,
                                  winent_format format, winent_err *err);

/* --sidecar goes with raw output to a file: with a .zst or a GeoTIFF (which
 * describe themselves), or with raw output written in place (standard
 * output, a pipe, a device: no file to put a header beside), it is
 * WINENT_ERR_USAGE with a message saying why. Reads metadata only. */
winent_status winent_sidecar_check(const char *output_path, winent_format format, winent_err *err);

/* Every file the sink for `o` will write, added to `g` as written
 * (file_guard.h), which refuses one that the job reads or that another
 * output takes: the map, or each map of several as raw files
 * (winent_sink_map_path), and with --sidecar the ENVI header beside each.
 * The temporary files need no check: each is created new (O_EXCL) beside
 * its target, and the COG's scratch files have no name. Opens nothing. */
winent_status winent_sink_guard_files(const winent_sink_opts *o, winent_file_guard *g,
                                      winent_err *err);

/* Check (winent_output_check with o->input_path), then open the output: a
 * temporary file beside a file's final target, or the stream in place
 * (outfile.h). Errors: WINENT_ERR_USAGE, WINENT_ERR_OUTPUT,
 * WINENT_ERR_INTERRUPTED (a FIFO's open waiting for its reader). */
winent_status winent_sink_open(const winent_sink_opts *o, winent_sink **out, winent_err *err);

/* Memory one encoder holds (compression state, scratch), an upper
 * estimate: the pipeline counts it against --mem for each worker. */
size_t winent_sink_encoder_bytes_for(const winent_sink_opts *o);

/* Memory the writer side of a sink holds whatever the thread count (a
 * COG's overview rows, tile jobs and tile index; libtiff's tile index), an
 * upper estimate: the pipeline counts it against --mem once. */
size_t winent_sink_writer_bytes_for(const winent_sink_opts *o);

/* Bytes each encoded unit holds beyond its compressed data (a COG's
 * partials, winent_sink_encode_part), for the pipeline's count of the
 * units in flight. */
size_t winent_sink_unit_extra_bytes_for(const winent_sink_opts *o);

/* The unit rows a sink opened with `o` would have, without opening it. */
int winent_sink_unit_rows_for(const winent_sink_opts *o);

/* Rows per unit: unit i holds rows [i * unit_rows, min(height, (i+1) * unit_rows)). */
int winent_sink_unit_rows(const winent_sink *s);

/* One encoder per encoder thread; it is used by one thread at a time. */
winent_status winent_sink_encoder_create(winent_sink *s, winent_sink_encoder **out,
                                         winent_err *err);
void winent_sink_encoder_free(winent_sink_encoder *e);

/* Encode unit `index` of the (first) map from its rows (`nrows` rows of
 * width floats, contiguous) into `out` (reset first). Thread-safe across
 * encoders. */
winent_status winent_sink_encode(winent_sink_encoder *e, int64_t index, const float *rows,
                                 int nrows, winent_bytes *out, winent_err *err);

/* Parts of a unit that encode independently of each other: the tiles of a
 * GeoTIFF tile row; 1 for the other formats. */
int winent_sink_unit_parts(const winent_sink *s);

/* Encode part `part` (< winent_sink_unit_parts) of unit `index` of map
 * `map` (< winent_sink_nmaps) from the unit's rows into `out` (reset
 * first). Thread-safe across encoders. */
winent_status winent_sink_encode_part(winent_sink_encoder *e, int map, int64_t index, int part,
                                      const float *rows, int nrows, winent_bytes *out,
                                      winent_err *err);

/* Writer thread only: append part `part` of unit `index` of map `map`,
 * encoded by winent_sink_encode_part. Each map's parts and units come in
 * order; several maps come unit by unit (every map's unit i, map after
 * map, before any unit i + 1), so the bytes do not depend on how the job
 * cut its chunks. */
winent_status winent_sink_write_part(winent_sink *s, int map, int64_t index, int part,
                                     const winent_bytes *encoded, winent_err *err);

/* Writer thread only: append the encoded unit `index` of the (first)
 * map; units come in order. */
winent_status winent_sink_write(winent_sink *s, int64_t index, const winent_bytes *encoded,
                                winent_err *err);

/* 1 when the sink writes the float rows as they are (raw output on a
 * little-endian machine): the writer then hands it the computed rows with
 * winent_sink_write_floats, and nothing is encoded. */
int winent_sink_takes_floats(const winent_sink *s);

/* Writer thread only: append `n` floats of map `map`, in order. */
winent_status winent_sink_write_floats(winent_sink *s, int map, const float *rows, size_t n,
                                       winent_err *err);

/* 1 when the sink takes floats at their place, from several threads
 * (winent_sink_write_floats_at): a raw map to files, not to a stream. */
int winent_sink_writes_at(const winent_sink *s);

/* Any thread, on disjoint ranges, instead of winent_sink_write_floats:
 * `n` floats of map `map` at float `at` of it (row y's first at y *
 * width). The bytes are those write_floats gives in order. */
winent_status winent_sink_write_floats_at(winent_sink *s, int map, uint64_t at, const float *rows,
                                          size_t n, winent_err *err);

/* Writer thread only, after the last unit: trailers, close, rename. A COG
 * lays its file out here and compresses its last overview tiles with the
 * encoders' state, idle by then, on o->par: free the encoders only after
 * finish has returned. */
winent_status winent_sink_finish(winent_sink *s, winent_err *err);

/* Remove the temporary output (after a failure or interruption). */
void winent_sink_abort(winent_sink *s);

/* Bytes written to the output so far. */
uint64_t winent_sink_bytes_written(const winent_sink *s);

void winent_sink_free(winent_sink *s);

#endif
