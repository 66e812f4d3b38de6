/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source.h - a raster source: one band, or several bands read in one pass,
 * of a TIFF, raw or (built with GDAL) any GDAL raster, delivered as rows
 * of native-endian samples, top to bottom, each row read once (raw
 * standard input is read strictly front to back; a TIFF or GDAL format on
 * a pipe is first copied to an unnamed temporary file). Several bands come
 * out of one decode of each block: a row of all of them per call.
 */
#ifndef WINENT_SOURCE_H
#define WINENT_SOURCE_H

#include <stdint.h>

#include "band_stats.h"
#include "base/werr.h"
#include "georef.h"
#include "winent.h"

/* A parallel loop the caller lends to a source for its decoding: run()
 * calls fn(arg, i, worker) for every i in [0, n), on up to `workers`
 * threads at once (worker < workers tells them apart), and returns 0, or
 * -1 when the job stopped before every item ran. */
typedef struct winent_parallel {
    int (*run)(void *ctx, long n, void (*fn)(void *arg, long i, int worker), void *arg);
    void *ctx;
    int workers;
} winent_parallel;

typedef struct winent_source_opts {
    const char *path;          /* file name, GDAL name (/vsizip/..., NETCDF:f.nc:v),
                                  or "-" for standard input */
    /* Raw layout (ignored for TIFF, which describes itself). */
    int width, height;         /* --size; 0 when not given */
    int has_dtype;
    winent_dtype dtype;        /* --dtype */
    int bands;                 /* --bands, default 1 */
    winent_interleave interleave;
    int big_endian;            /* --byteorder big */
    uint64_t header_bytes;     /* --header-bytes */
    /* Both. */
    int band;                  /* --band, 1-based, default 1 */
    /* Several bands in one pass (--band all, --band 1,3,5): `band_list`
     * holds `nband_list` 1-based bands, in the order they are delivered
     * (0: just `band`); `band_all`: every band of the input, in order. */
    const int *band_list;
    int nband_list;
    int band_all;
    /* --nodata as the user gave it: it beats the file's own nodata value;
     * a GDAL source also writes masked pixels as this value. */
    int nodata_given, has_nodata;
    double nodata;
    uint64_t mem_bytes;        /* --mem: caps GDAL's block cache (0: 1 GiB); a
                                  reader holds at most a quarter of it */
    int mem_auto;              /* no --mem was given: a reader may take more than
                                  the quarter of mem_bytes where a block needs it,
                                  up to half the machine's memory */
    /* GDAL's block cache size (bytes) as it was before any source of the
     * job lowered it (0: GDAL's current one): a second source opened to
     * plan by another --mem (the job's advice) plans as a run would. */
    uint64_t gdal_cache_seen;
    int threads;               /* decoding threads (without `par`) */
    const winent_parallel *par;/* may be NULL: decode on the source's own threads */
    const volatile int *stop;  /* may be NULL: a blocking read of a pipe gives
                                  up with WINENT_ERR_INTERRUPTED once *stop */
    /* May be NULL: one line for the user (a pipe being copied to a
     * temporary file), called from the thread that opens the source. */
    void (*on_notice)(void *user, const char *line);
    void *user;
} winent_source_opts;

/* One band the source delivers. */
typedef struct winent_source_band {
    int band;                  /* 1-based band of the input */
    int has_nodata;            /* its nodata, as `has_nodata`, `nodata` and */
    double nodata;             /* `nodata_is_mask` of winent_source_info say */
    int nodata_is_mask;        /* for the first band (a GDAL band's own) */
} winent_source_band;

typedef struct winent_source_info {
    int width, height;
    winent_dtype dtype;        /* of the band's samples as delivered */
    int bands;
    int has_nodata;            /* GDAL_NODATA of a TIFF, GDAL's nodata value */
    double nodata;
    /* 1: GDAL's mask (alpha band, per-dataset mask) is delivered as
     * `nodata` (or NaN when has_nodata is 0): the job must use this nodata
     * whatever --nodata says (the source already took --nodata in). The
     * dtype may then be wider than the band's (u8 -> u16 with 256 for
     * masked pixels, see source_gdal.c); the distinct values and bins, so
     * the map, stay those of the band. */
    int nodata_is_mask;
    uint64_t mem_held;         /* bytes the source may hold beyond its rows
                                  (GDAL's block cache), out of --mem */
    /* --mem given and a quarter of it too small for the reader (one
     * block row, one strip row, one block GDAL holds whole): the bytes
     * it needs in that quarter, and why ("NAME: one row of ... decodes to
     * N bytes"). The reader is open, planned as if its quarter were
     * mem_short; the job refuses before reading, naming the --mem that
     * holds both this and its chunks (pipeline.c). 0 and "": it fits. */
    uint64_t mem_short;
    uint64_t gdal_cache_seen; /* GDAL's cache size this source found (its
                                 opts' gdal_cache_seen, else GDAL's); 0
                                 for readers without GDAL */
    char mem_what[320];
    int is_tiff;
    const char *reader;        /* "raw", "libtiff" or "gdal" (and the GDAL
                                  driver's short name in `driver`) */
    const char *driver;
    const winent_georef *georef; /* borrowed from the source; NULL when none */
    const char *name;          /* borrowed: the path as given */
    /* The bands delivered, in order (one unless several were asked for);
     * has_nodata, nodata and nodata_is_mask above are the first one's.
     * All have the type `dtype`. Borrowed from the source. */
    int nread;
    const winent_source_band *read;
} winent_source_info;

typedef struct winent_source winent_source;

/* Open `o->path` (docs/SPEC.md, "Inputs"): a TIFF is recognised by its
 * first bytes and read with libtiff (with GDAL, when built with it, if the
 * band has a mask or alpha band, or WINENT_TIFF_READER=gdal); anything
 * else is raw when --size and --dtype are both given, else (built with
 * GDAL) whatever GDAL opens. A TIFF or GDAL format on a pipe is copied to
 * an unnamed file in TMPDIR first (a notice says so).
 * Errors: WINENT_ERR_USAGE (raw without --size/--dtype, bad band),
 * WINENT_ERR_INPUT (missing, unreadable, unsupported, or a file that cannot
 * hold what it declares: a raw file shorter than the options say, a TIFF
 * whose block index lost entries or points past the end of the file, a
 * GDAL read that fails), WINENT_ERR_INTERRUPTED (*o->stop while a pipe is
 * being copied). */
winent_status winent_source_open(const winent_source_opts *o, winent_source **out, winent_err *err);

const winent_source_info *winent_source_get_info(const winent_source *s);

/* Read the next `rows` rows of the band into `dst` (row stride
 * width * sample size): a source of one band only (info->nread == 1).
 * Input that ends early is WINENT_ERR_INPUT. One thread at a time. */
winent_status winent_source_read(winent_source *s, int rows, void *dst, winent_err *err);

/* Read the next `rows` rows of every band delivered: band k's rows into
 * dst[k] (k < info->nread, row stride width * sample size), each block of
 * the input decoded once for all of them. Errors and threads as
 * winent_source_read. */
winent_status winent_source_read_bands(winent_source *s, int rows, void *const *dst,
                                       winent_err *err);

/* The statistics of delivered band `k` (0 .. info->nread - 1) as the
 * input records them, without reading its pixels (--range auto): the TIFF
 * source looks in NAME.aux.xml, then in the GDAL_METADATA tag; the raw
 * source in NAME.aux.xml (files only); a source kind without any leaves
 * st->found 0. WINENT_OK unless something failed that the caller must
 * hear of. Call it before the first read, from the thread that reads. */
winent_status winent_source_stats(winent_source *s, int k, winent_band_stats *st, winent_err *err);

/* The files the source reads, as names to stat (*n of them, borrowed
 * from the source): the input (a descriptor's /proc/self/fd/N for
 * standard input or a pipe's temporary copy), what its reader reads
 * besides (GDAL's file list of the dataset: its sidecars, a VRT's
 * sources and theirs), and the usual sidecars that exist beside each of
 * these files whether or not the reader looks at them (NAME.aux.xml,
 * NAME.msk, NAME.ovr, ENVI's NAME.hdr and STEM.hdr, STEM.prj, world
 * files...): a file of the input's dataset is never an output. A name may
 * be GDAL's (/vsizip/...) or a folder (a Zarr, an ESRI grid). */
const char *const *winent_source_files(const winent_source *s, int *n);

/* Bytes taken from the input so far (file or stream). */
uint64_t winent_source_bytes_read(const winent_source *s);

void winent_source_free(winent_source *s);

#endif
