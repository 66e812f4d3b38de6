/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_internal.h - what each kind of source implements (tiles/ only):
 * its operations (source_ops), its descriptor (winent_source_format, listed
 * by source_registry.c), and the helpers below every format (source_base.c).
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
    char what[96];            /* set by the opener of a format that describes
                                 itself: the input as messages name it ("a
                                 TIFF", "a GDAL raster (ENVI)") */
};

/* ---- One input format ------------------------------------------------- */

/* What the dispatch (source.c) knows of the input when it asks a format
 * whether the input is its own. */
typedef struct winent_source_probe {
    const char *path;     /* the name as given ("-": standard input) */
    int is_stdin;
    int not_local;        /* no local file of that name opens: a name only a
                             library may resolve (/vsizip/..., NETCDF:f.nc:v) */
    int is_dir;           /* a folder */
    int seekable;         /* a regular file or a block device; else a stream */
    int raw_layout;       /* --size and --dtype are both given */
    const char *fd_name;  /* a seekable standard input: the name it opens
                             again by (/proc/self/fd/0); else "" */
    const uint8_t *head;  /* the input's first bytes (nhead of them; none yet
                             for a folder or a name that is no local file) */
    size_t nhead;
} winent_source_probe;

/* The input as the dispatch hands it to the format that took it. */
typedef struct winent_source_input {
    const char *open_path; /* what the format's library opens: the name, or
                              /proc/self/fd/N of standard input or of a
                              pipe's unnamed copy (s->fd_name) */
    const char *file;      /* the name when open_path is a file of that name
                              (so a PATH.msk beside it counts); else NULL */
    int fd;                /* formats that read a descriptor (no
                              `needs_file`): the input's, owned by the opener
                              from the call on (0, standard input, is never
                              closed); else -1 */
    const uint8_t *head;   /* bytes already taken from fd: delivered first */
    size_t nhead;
} winent_source_input;

/* One input format: everything the dispatch needs to know of it, so that
 * nothing outside the format's own file asks which format it is. Each
 * format file defines one; source_registry.c lists them in the order they
 * are asked (the first that identifies the input takes it). Adding a
 * format is one descriptor and one line of the registry. */
typedef struct winent_source_format {
    const char *name;              /* "tiff", "gdal", "raw" */
    const char *const *extensions; /* NULL: known by its content, whatever
                                      the name (every format today) */
    /* Bytes of the input's head that `identify` looks at (NULL: none). */
    size_t (*sniff_bytes)(const winent_source_probe *p);
    /* 1 when the input is this format's; `what` (cap bytes) then names it
     * for the notice of a pipe's copy ("a TIFF"), when it needs one. */
    int (*identify)(const winent_source_probe *p, char *what, size_t cap);
    int needs_file;                /* read by name: a stream is copied to an
                                      unnamed file first (a notice says so) */
    int takes_raw_layout;          /* --size, --dtype, ... describe its input;
                                      else they are refused (it describes itself) */
    /* Fill s->ops, s->impl, s->info and s->bands (winent_source_select)
     * from `in`; on failure the caller frees s, and the implementation. */
    winent_status (*open)(const winent_source_opts *o, const winent_source_input *in,
                          winent_source *s, winent_err *err);
} winent_source_format;

extern const winent_source_format winent_source_format_tiff;
extern const winent_source_format winent_source_format_raw;
#ifdef WINENT_HAVE_GDAL
extern const winent_source_format winent_source_format_gdal;
/* A TIFF read by libtiff, or by GDAL (with libtiff's check beside it)
 * where the file may carry a mask: source_tiff_gdal.c. */
extern const winent_source_format winent_source_format_tiff_gdal;
#endif

/* Every input format, in the order they are asked; NULL-ended
 * (source_registry.c, above the formats). */
extern const winent_source_format *const winent_source_formats[];

/* ---- Shared helpers (source_base.c), below the formats ---------------- */

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

/* read() that retries on EINTR and, when `stop` is given, waits in slices
 * so that a pipe that never delivers cannot hold the job once *stop is
 * set; returns bytes read (short only at end of input), -1 on error (errno),
 * -2 when stopped. */
long winent_source_read_fd(int fd, void *dst, size_t n, const volatile int *stop);

/* ---- Between the TIFF and GDAL readers (source_tiff_gdal.c) ----------- */

/* TIFF source over the file `open_path` (a name libtiff can open: a
 * file, or /proc/self/fd/N for a spooled pipe), named `o->path` in
 * messages. */
winent_status winent_source_tiff_open(const winent_source_opts *o, const char *open_path,
                                      winent_source *s, winent_err *err);

/* Where a TIFF source's libtiff handles come from when libtiff cannot open
 * the file by name: a TIFF that GDAL reaches through its own names
 * (/vsizip/..., GTIFF_DIR:2:f.tif, a VRT's source), read through GDAL's
 * VSI layer (gdal_tiff.c). `open` gives a handle at the image's directory,
 * its messages into `m` (NULL with m->first_error on failure); it is
 * called once per decoding thread, from that thread. The source owns `ctx`
 * once opened (free_ctx, may be NULL, frees it). */
struct tiff;
struct winent_tiff_msgs;
typedef struct winent_tiff_io {
    struct tiff *(*open)(void *ctx, struct winent_tiff_msgs *m);
    void (*free_ctx)(void *ctx);
    void *ctx;
} winent_tiff_io;

/* winent_source_tiff_open over handles that `io` opens (`io->ctx` is the
 * source's from the call on, freed with it even on failure). */
winent_status winent_source_tiff_open_io(const winent_source_opts *o, const winent_tiff_io *io,
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

#endif

#endif
