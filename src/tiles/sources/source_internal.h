/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_internal.h - what each kind of source implements (tiles/ only).
 */
#ifndef WINENT_SOURCE_INTERNAL_H
#define WINENT_SOURCE_INTERNAL_H


#include "source.h"

/* Bytes sniffed from a pipe that holds no raw layout: enough for GDAL to
 * recognise most formats by their header. */
#define WINENT_SNIFF_BYTES 1024

typedef struct source_ops {
    /* The next `rows` rows of every delivered band, band k into dst[k]. */
    winent_status (*read)(winent_source *s, int rows, void *const *dst, winent_err *err);
    void (*free_impl)(void *impl);
    /* Optional (NULL: none recorded): fill *st (cleared by the caller) for
     * delivered band k. */
    winent_status (*stats)(winent_source *s, int k, winent_band_stats *st, winent_err *err);
    /* Optional (NULL: only `read`): decode the next `rows` rows as `read`
     * would, with the same errors, and deliver nothing. */
    winent_status (*skip)(winent_source *s, int rows, winent_err *err);
} source_ops;

struct winent_source {
    const source_ops *ops;
    void *impl;               /* owned, freed by ops->free_impl */
    winent_source_info info;  /* filled by the opener */
    int next_row;             /* rows delivered so far */
    uint64_t bytes_read;      /* updated by the implementation */
    int spool_fd;             /* owned: the unnamed temporary copy of a pipe
                                 (closed after the implementation), or -1 */
    char fd_name[48];         /* /proc/self/fd/N of spool_fd or of a file on
                                 standard input: the readers borrow it */
    winent_source_band *bands;/* owned: the bands delivered (winent_source_select) */
    int nbands_read;
    int bands_nodata;         /* 1: the opener set each band's nodata (GDAL);
                                 0: every band gets info's */
    char **files;             /* owned: the files read (winent_source_files) */
    int nfiles, files_cap;
    winent_source *verify;    /* owned, may be NULL: a TIFF read by GDAL is
                                 decoded by the libtiff source too, row for
                                 row before GDAL's, so that both readers of a
                                 TIFF fail alike (its `skip` op) */
};

/* Record `name` (copied) as a file the source reads: openers add what
 * their library reads besides the input (GDAL's file list); source.c adds
 * the input and its usual sidecars. 0, or -1 out of memory. */
int winent_source_add_file(winent_source *s, const char *name);

/* The bands `o` asks for of an input of `count` bands, into s->bands
 * (1-based, in order): o->band_list, every band (o->band_all) or o->band.
 * A band past the last is WINENT_ERR_USAGE: "--band B: NAME has N bands".
 * Openers call it once they know the band count. */
winent_status winent_source_select(const winent_source_opts *o, int count, const char *name,
                                   winent_source *s, winent_err *err);

/* Raw source over an open descriptor (0 for standard input); `pushback`
 * holds bytes already taken from it (the sniffed magic, at most
 * WINENT_SNIFF_BYTES), delivered first.
 * Takes ownership of `fd` (standard input is not closed). */
winent_status winent_source_raw_open(const winent_source_opts *o, int fd, const uint8_t *pushback,
                                     size_t npushback, winent_source *s, winent_err *err);

/* read() that retries on EINTR and, when `stop` is given, waits in slices
 * so that a pipe that never delivers cannot hold the job once *stop is
 * set; returns bytes read (short only at end of input), -1 on error (errno),
 * -2 when stopped. */
long winent_source_read_fd(int fd, void *dst, size_t n, const volatile int *stop);

/* TIFF source over the file `open_path` (a name libtiff can open: a
 * file, or /proc/self/fd/N for a spooled pipe), named `o->path` in
 * messages. */
winent_status winent_source_tiff_open(const winent_source_opts *o, const char *open_path,
                                      winent_source *s, winent_err *err);

/* 1 when the TIFF at `open_path` may carry a mask that GDAL applies to its
 * bands: an alpha ExtraSample, an internal mask IFD (NewSubfileType bit 2),
 * or, when `path` is a file name, a PATH.msk beside it. A cheap look at the
 * tags and the IFD chain only; GDAL decides (GDALGetMaskFlags). */
int winent_source_tiff_mask_hint(const char *open_path, const char *path);

#ifdef WINENT_HAVE_GDAL
/* A GDAL raster source over `open_path` (a GDAL name: file, /vsi..., a
 * driver prefix such as NETCDF:f.nc:v, or /proc/self/fd/N), named
 * `o->path` in messages. `tiff` is 1 when the input is a TIFF file that
 * libtiff has already checked: its GeoTIFF tags are then copied as they
 * are, not rebuilt from GDAL's geotransform and CRS. source_gdal.c. */
winent_status winent_source_gdal_open(const winent_source_opts *o, const char *open_path, int tiff,
                                      winent_source *s, winent_err *err);

/* The short name of the GDAL raster driver that recognises the file
 * `name`, or, when `name` is NULL, a file that starts with the `n` bytes
 * at `head` (what a pipe holds before it is copied anywhere); NULL when
 * none does. */
const char *winent_source_gdal_identify(const char *name, const uint8_t *head, size_t n);
#endif

#endif
