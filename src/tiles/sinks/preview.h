/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * preview.h - the quicklook PNG of an entropy map (--preview FILE.png),
 * made from the map's rows as they are computed: no second pass over the
 * map, no reading of the output.
 *
 * The map (W x H) is cut into blocks, one per preview pixel (pw x ph, the
 * longest side `size`, never more than the map's): map column x belongs
 * to preview column floor(x * pw / W), map row y to preview row
 * floor(y * ph / H). A preview pixel is the mean of the block's valid
 * (non-NaN) values (a class map's: the value of the block's centre pixel,
 * below), coloured with the colour map (colormap.h) stretched
 * over [lo, hi]: entry round((mean - lo) / (hi - lo) * 255), clamped;
 * transparent (alpha 0) where the block holds no valid value. [lo, hi] is
 * the caller's (--preview-range), else the 2nd and 98th percentiles of the
 * image's valid means (numpy's default, linear interpolation between
 * ranks), found once every row is in: the image is a reduced-resolution
 * overview of the map, gathered in the same pass. The PNG is exactly the
 * image (pw x ph), so that a world file places every pixel of it on the
 * map. Written as 8-bit RGBA with libpng. Beside a PNG written to a file:
 * its legend, NAME.legend.png for NAME.png (the colour map as a bar, the
 * stretch's ends and middle labelled in the map's unit: "lo", "mid",
 * "hi unit"); and, for a georeferenced map, a world file (NAME.pgw) and a
 * GDAL PAM file (NAME.png.aux.xml: the CRS and the geotransform), so that
 * GIS tools place the image.
 *
 * Rows arrive in any order, from any thread, in pieces of any height:
 * each piece is summed by its thread into a scratch of its own (values in
 * fixed point, 2^-16, exact integer sums: the result does not depend on
 * the order or on how rows were cut into pieces), then merged under the
 * preview's lock into the accumulator of its preview row; a preview row
 * whose map rows are all in becomes its means in the float image, and the
 * complete rows go to the PNG in order as the job goes when the stretch is
 * fixed (else at the end, once the percentiles are known). Memory:
 * the float image (pw x ph floats), the accumulators of the preview rows in
 * flight, and one scratch per thread (W x 8 bytes + pw x 12 bytes).
 *
 * The files go through outfiles (outfile.h): temporary files beside the
 * targets from winent_preview_open on, renamed only by
 * winent_preview_commit (the PNG first, then the world file, the PAM
 * file and the legend); winent_preview_abort removes them.
 */
#ifndef WINENT_PREVIEW_H
#define WINENT_PREVIEW_H

#include <stdint.h>

#include "base/werr.h"
#include "tempnames.h"

typedef struct winent_preview_opts {
    const char *path; /* the PNG: a file name, or a stream written in place */
    int map_width, map_height;
    int size;                 /* longest side of the image, >= 1 (capped at the map's) */
    double vmax;              /* the largest value the options allow (>= 0): the
                                 stretch of a preview with no valid pixel or of a
                                 constant one */
    double value_lo;          /* the smallest value they allow (0 for an entropy;
                                 below 0 for a correlation): values are summed
                                 in fixed point over [min(value_lo, 0), vmax] */
    int categorical;          /* 1: a class map (the majority), whose mean would be
                                 a class that exists nowhere: each preview pixel is
                                 the map's value at its block's centre (row
                                 first + (rows - 1) / 2, column likewise), as
                                 GDAL's NEAREST; NaN there: transparent */
    int range_given;          /* 1: the stretch is [lo, hi] (lo < hi); 0: the
                                 2nd-98th percentiles of the image */
    double lo, hi;
    const char *unit;         /* "nat", "bit", "ban": printed after the values */
    int has_geotransform;     /* the map's GDAL geotransform is gt: a world file */
    double gt[6];
    int epsg;                 /* the map's CRS as an EPSG code (0: none known): the
                                 PAM file's SRS */
    const char *description;  /* PNG tEXt "Description" (may be NULL); borrowed */
    const volatile int *stop; /* may be NULL: the job's stop flag (outfile.h) */
    winent_tempnames *temps;  /* may be NULL: the job's temporary names (tempnames.h) */
} winent_preview_opts;

typedef struct winent_preview winent_preview;
typedef struct winent_preview_scratch winent_preview_scratch;

/* The image's size for a map of map_w x map_h and a longest side `size`:
 * the longest side min(size, the map's), the other in proportion, rounded,
 * at least 1. */
void winent_preview_dims(int map_w, int map_h, int size, int *pw, int *ph);

/* Memory the preview holds, upper estimates, for the pipeline's --mem
 * budget: fixed (the float image, the PNG's rows, the colour map), per
 * thread that adds rows (its scratch), and for `map_rows` map rows in
 * flight (the accumulators of the preview rows they touch). */
uint64_t winent_preview_fixed_bytes(const winent_preview_opts *o);
uint64_t winent_preview_scratch_bytes(const winent_preview_opts *o);
uint64_t winent_preview_rows_bytes(const winent_preview_opts *o, int64_t map_rows);

/* The names of the files beside a preview `path` written through a
 * temporary file (a georeferenced map's): the world file NAME.pgw for
 * NAME.png (GDAL's first choice: the extension's first and last letters
 * and 'w') into `pgw`, the PAM file NAME.png.aux.xml into `aux`. Returns
 * 0, or -1 when a name does not fit its `cap` bytes. Pure. */
int winent_preview_sidecar_names(const char *path, char *pgw, char *aux, size_t cap);

/* The name of the legend beside a preview `path` written through a
 * temporary file: NAME.legend.png for NAME.png (the extension kept as
 * given). Returns 0, or -1 when it does not fit `cap` bytes. Pure. */
int winent_preview_legend_name(const char *path, char *legend, size_t cap);

/* The checks due before any work, usage errors (WINENT_ERR_USAGE) with a
 * one-line message: the name must end in .png (any case) unless it is
 * written in place (a device, a pipe, /dev/fd/N, "-"); it must not be the
 * input (as winent_output_check decides for the output) nor the job's
 * output (the same file, device or pipe, or the same new name), and
 * neither may its legend, world file or PAM file
 * (winent_preview_legend_name, winent_preview_sidecar_names).
 * `input` and `output` may be NULL (none to compare). A name that cannot be
 * an output at all is WINENT_ERR_OUTPUT. Reads metadata only.
 * Thread-safe. */
winent_status winent_preview_check(const char *preview, const char *input, const char *output,
                                   winent_err *err);

/* Make the preview and open its file (the temporary file beside the
 * target, or the stream). `map_rows_in_flight`: at most this many map rows
 * are ever between the first row not yet added and the last row added
 * (the pipeline's chunks in flight); it sizes the accumulators.
 * Errors: WINENT_ERR_OUTPUT, WINENT_ERR_INTERRUPTED, WINENT_ERR_INTERNAL. */
winent_status winent_preview_open(const winent_preview_opts *o, int64_t map_rows_in_flight,
                                  winent_preview **out, winent_err *err);

/* A thread's scratch for winent_preview_add_rows (one owner thread). */
winent_status winent_preview_scratch_create(const winent_preview *pv, winent_preview_scratch **out,
                                            winent_err *err);
void winent_preview_scratch_free(winent_preview_scratch *s);

/* Add map rows [y0, y1) (each map_width floats, `stride` floats apart),
 * each row once over the whole job. Thread-safe across scratches.
 * WINENT_ERR_INTERNAL if more rows are in flight than the open said. */
winent_status winent_preview_add_rows(winent_preview *pv, winent_preview_scratch *s,
                                      const float *rows, size_t stride, int y0, int y1,
                                      winent_err *err);

/* Write the image rows complete so far, in order, to the PNG (its
 * temporary file, or the stream): the first call writes the header. Called
 * as the job goes (the pipeline's writer, between chunks), so that little
 * is left for the end. One thread: the one that calls
 * winent_preview_write. Errors: WINENT_ERR_OUTPUT, WINENT_ERR_INTERRUPTED,
 * WINENT_ERR_INTERNAL; after one, every later call fails. */
winent_status winent_preview_flush(winent_preview *pv, winent_err *err);

/* Every row added: the rows not yet written, the PNG's end, the legend.
 * The thread of winent_preview_flush, after the last add. Errors:
 * WINENT_ERR_OUTPUT, WINENT_ERR_INTERRUPTED, WINENT_ERR_INTERNAL (rows
 * missing). */
winent_status winent_preview_write(winent_preview *pv, winent_err *err);

/* After winent_preview_write: fsync, rename into place (outfile.h): the
 * PNG, then its world file, PAM file and legend. */
winent_status winent_preview_commit(winent_preview *pv, winent_err *err);

/* Remove the temporary file (a failed job). Safe after commit or twice. */
void winent_preview_abort(winent_preview *pv);

/* Free (removing the temporary file if not committed). NULL is fine. */
void winent_preview_free(winent_preview *pv);

/* The image's size once open (tests, messages). */
void winent_preview_size(const winent_preview *pv, int *pw, int *ph);

/* The float image, pw x ph block means (NaN: no valid value), complete
 * once every row is added (tests). */
const float *winent_preview_image(const winent_preview *pv);

/* The colours' stretch [*lo, *hi], known after winent_preview_write
 * (tests, messages). */
void winent_preview_stretch(const winent_preview *pv, double *lo, double *hi);

#endif
