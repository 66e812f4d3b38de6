/*
 * winent.h - public API of winent-stream: the local Shannon entropy map of
 * rasters too big for memory, computed as a bounded streaming pipeline.
 *
 * The CLI and the tools include only this header.
 */
#ifndef WINENT_H
#define WINENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WINENT_VERSION_STRING "0.1.0"

/* --preview: the default and the largest longest side, in pixels. */
#define WINENT_PREVIEW_SIZE_DEFAULT 1024
#define WINENT_PREVIEW_SIZE_MAX     16384

/* WINENT_API marks each function of this header: libwinent is compiled with
 * hidden visibility, so these, and nothing else, are what libwinent.so
 * exports (tests/test_exports.sh holds the library to this header: a
 * declaration without it fails there). */
#if defined(__GNUC__) && __GNUC__ >= 4
#define WINENT_API __attribute__((visibility("default")))
#else
#define WINENT_API
#endif

/* Room for a one-line message (error or notice). */
#define WINENT_MSG_LEN 512

/* Status codes. The values are pinned: they are also the CLI exit codes
 * (SPEC section 6). */
typedef enum winent_status {
    WINENT_OK = 0,
    WINENT_ERR_INTERNAL = 1,    /* out of memory, broken invariant */
    WINENT_ERR_USAGE = 2,       /* bad option or value */
    WINENT_ERR_INPUT = 3,       /* missing, unreadable, truncated, corrupt, unsupported */
    WINENT_ERR_OUTPUT = 4,      /* cannot create, disk full, write failure */
    WINENT_ERR_DEVICE = 5,      /* GPU asked for but unusable, CUDA failure */
    WINENT_ERR_INTERRUPTED = 130
} winent_status;

/* Sample types of the input band. */
typedef enum winent_dtype {
    WINENT_U8 = 0,
    WINENT_I8,
    WINENT_U16,
    WINENT_I16,
    WINENT_U32,
    WINENT_I32,
    WINENT_F32,
    WINENT_F64,
    WINENT_DTYPE_COUNT
} winent_dtype;

/* Base of the logarithm. */
typedef enum winent_base { WINENT_BASE_E = 0, WINENT_BASE_2, WINENT_BASE_10 } winent_base;

/* What is computed for each pixel (SPEC sections 1 and 2). Two runs with
 * equal compute options give bit-identical maps on every engine. */
typedef struct winent_compute_opts {
    int kx, ky;          /* window width and height, odd, 1..255 */
    winent_base base;
    winent_dtype dtype;  /* sample type the kernel sees (native byte order) */
    uint32_t bins;       /* 0: each distinct integer value is a bin */
    double range_lo;     /* with bins: bin = floor((v - lo) * bins / (hi - lo)) */
    double range_hi;
    int has_nodata;      /* pixels equal to nodata are not counted; NaN never is */
    double nodata;
} winent_compute_opts;

/* Fill `o` with the defaults: 5 x 5 window, base e, u8, distinct values. */
WINENT_API void winent_compute_opts_default(winent_compute_opts *o);

/* Size of one sample of `t` in bytes; name as in the CLI ("u8", "f32", ...). */
WINENT_API size_t winent_dtype_size(winent_dtype t);
WINENT_API const char *winent_dtype_name(winent_dtype t);
WINENT_API int winent_dtype_is_float(winent_dtype t);

/* Short name of a status ("input error", ...). */
WINENT_API const char *winent_status_name(winent_status s);


/* ---- Engines: compute one chunk (the kernel contract) ---------------- */

typedef enum winent_engine_kind {
    WINENT_ENGINE_CPU = 0,   /* the OpenMP sliding-histogram engine */
    WINENT_ENGINE_GPU,       /* the CUDA engine on one device */
    WINENT_ENGINE_REFERENCE  /* the slow, obviously correct one (tests) */
} winent_engine_kind;

typedef struct winent_engine winent_engine;

/* Number of usable CUDA devices; 0 without a GPU, a driver, or a CUDA build. */
WINENT_API int winent_gpu_count(void);

/* An engine for chunks of at most `max_width` x `max_in_rows` input pixels.
 * `device` is the CUDA device for WINENT_ENGINE_GPU; `threads` the OpenMP
 * threads for the CPU engine (0: all cores). On failure *out is NULL and
 * `msg` (if not NULL) holds the reason. */
WINENT_API winent_status winent_engine_create(const winent_compute_opts *o, winent_engine_kind kind,
                                              int device, int max_width, int max_in_rows,
                                              int threads, winent_engine **out, char *msg,
                                              size_t msg_len);

/* Compute output rows [y0, y1) of an image `width` x `height` from its input
 * rows [in_y0, in_y0 + in_h) (samples of the options' dtype, native byte
 * order, `row_bytes` apart), which must cover [y0 - ky/2, y1 + ky/2) clipped
 * to the image. Output rows go to `out`, `out_stride` floats apart. Every
 * engine gives the same bits. One caller at a time per engine. */
WINENT_API winent_status winent_engine_compute(winent_engine *e, const void *rows, size_t row_bytes,
                                               int width, int height, int in_y0, int in_h, int y0,
                                               int y1, float *out, size_t out_stride);

/* The message of the engine's last failure ("" when none). */
WINENT_API const char *winent_engine_message(const winent_engine *e);

WINENT_API void winent_engine_free(winent_engine *e);

/* ---- Running a job: input -> entropy map -> output -------------------- */

typedef enum winent_interleave {
    WINENT_INTERLEAVE_BSQ = 0, /* band after band */
    WINENT_INTERLEAVE_BIP,     /* pixel after pixel, bands inside */
    WINENT_INTERLEAVE_BIL      /* row after row, bands inside each row */
} winent_interleave;

typedef enum winent_format {
    WINENT_FORMAT_AUTO = 0, /* from the output name: .zst; .tif/.tiff; .raw/.f32/.bin,
                               "-" or no extension raw; any other is a usage error */
    WINENT_FORMAT_RAW,
    WINENT_FORMAT_ZST,
    WINENT_FORMAT_TIF
} winent_format;

typedef enum winent_compress {
    WINENT_COMPRESS_ZSTD = 0,
    WINENT_COMPRESS_DEFLATE,
    WINENT_COMPRESS_LZW,
    WINENT_COMPRESS_NONE
} winent_compress;

/* How a GeoTIFF output is laid out. */
typedef enum winent_tif_layout {
    WINENT_TIF_COG = 0, /* Cloud-Optimized: directories first, overviews (mean of valid
                           pixels), data smallest overview first (docs/SPEC.md, section 4) */
    WINENT_TIF_TILED    /* plain tiled: libtiff's layout, no overviews */
} winent_tif_layout;

/* What the progress callback sees. */
typedef struct winent_progress {
    int64_t rows_done, rows_total;
    int64_t width;
    double seconds;         /* since the start */
} winent_progress;

/* Busy and waiting time of one stage, summed over its threads. */
typedef struct winent_stage_stats {
    double busy_s, wait_s;
    int threads;
} winent_stage_stats;

/* The --bins/--range figures of one band of a job (winent_job_stats.band). */
typedef struct winent_band_counts {
    int band;               /* 1-based band of the input */
    double range_lo, range_hi;
    char range_from[160];
    uint64_t clamped_below, clamped_above, valid_samples;
    double samples_min, samples_max; /* of the valid finite samples (NaN: none) */
} winent_band_counts;

/* Bands whose figures winent_job_stats lists one by one. */
#define WINENT_STATS_BANDS 64

typedef struct winent_job_stats {
    double wall_s;
    double setup_s;         /* opening, pools, engines (GPU contexts): before
                               the first chunk can flow */
    uint64_t pixels;
    uint64_t bytes_in, bytes_out;
    winent_stage_stats read, compute, encode, write;
    int chunk_rows, chunks, gpus;
    char engine[64];        /* "cpu" or "gpu:0,1" */
    /* --bins/--range (quantized jobs only; range_counted 0 otherwise): the
     * range used, where it came from, and the valid samples that lay
     * outside it, put in the first (below) or last (above) bin. */
    int range_counted;
    double range_lo, range_hi;
    char range_from[160];   /* "--range", "the TIFF's GDAL metadata",
                               "NAME.aux.xml", "a first pass over the band" */
    uint64_t clamped_below, clamped_above, valid_samples;
    double samples_min, samples_max; /* of the valid finite samples (NaN: none) */
    /* Several bands read (--band lists): the figures above are the first
     * band's; `band` holds each band's, the first WINENT_STATS_BANDS of
     * the `nbands`. `maps`: the maps computed (bands x windows). */
    int nbands, maps;
    winent_band_counts band[WINENT_STATS_BANDS];
} winent_job_stats;

typedef struct winent_job_opts {
    const char *input;          /* path, a GDAL name (/vsizip/..., NETCDF:f.nc:v;
                                   in a build with GDAL), or "-" for standard input */
    const char *output;         /* path, or "-" for standard output */
    winent_compute_opts compute;/* dtype is taken from the input */
    int nodata_given;           /* compute.nodata came from --nodata (beats GDAL_NODATA) */
    /* Raw input layout. */
    int width, height;          /* --size */
    int dtype_given;            /* compute.dtype came from --dtype */
    int bands, band;            /* --bands (default 1), --band (1-based, default 1) */
    winent_interleave interleave;
    int big_endian;             /* --byteorder big */
    uint64_t header_bytes;
    /* Output. */
    winent_format format;
    int level;                  /* zstd level */
    int frame_rows;             /* .zst rows per frame */
    int tile;                   /* .tif tile side */
    winent_compress compress;   /* .tif compression */
    /* Quicklook (--preview): a colour-mapped PNG of the map, made while it
     * streams (docs/SPEC.md, "Preview"); NULL for none. */
    const char *preview;
    int preview_size;           /* its longest side in pixels, 1..WINENT_PREVIEW_SIZE_MAX
                                   (0: WINENT_PREVIEW_SIZE_DEFAULT) */
    winent_tif_layout tif_layout; /* .tif layout (default Cloud-Optimized) */
    int bigtiff;                /* .tif: BigTIFF even when small (else only past 4 GiB) */
    const char *command_line;   /* provenance: the command that made the map (the
                                   CLI's argv shell-quoted where needed, without the
                                   options that only say how the job runs), recorded
                                   in the output's metadata; may be NULL */
    /* Running. */
    const char *device;         /* "auto", "cpu", "gpu" or a list "0,2" */
    int threads;                /* 0: all cores */
    uint64_t mem_bytes;         /* host memory budget for the pipeline's buffers */
    /* In-memory job (benchmarks): when `memory_in` is set, input and output
     * are these buffers (width x height samples of compute.dtype in, floats
     * out) and input/output paths are ignored. */
    const void *memory_in;
    float *memory_out;
    /* --range auto: compute.range_lo/hi are taken from the band's recorded
     * statistics (winent_source_stats), else from a first pass over the
     * band (a file or memory input only: a stream is a usage error). */
    int range_auto;
    /* --sidecar: write an ENVI header (OUTPUT.hdr appended to the name)
     * beside a raw output file, so that GDAL opens the map with its
     * georeferencing. Only with raw output to a file (usage error else). */
    int sidecar;
    /* --decode: `input` is a .zst map of winent-stream; it is written to
     * `output` as the output's format asks (a GeoTIFF, raw), with the
     * header's georeferencing, nodata and provenance. Nothing is computed:
     * the compute and raw-input options are ignored. */
    int decode;
    /* Callbacks (may be NULL), called from the thread that runs the job. */
    void (*on_progress)(void *user, const winent_progress *p);
    void (*on_notice)(void *user, const char *line); /* one line, e.g. a fallback */
    void *user;
    /* Several maps in one pass (docs/SPEC.md, "Several bands and windows
     * in one pass"): the bands band_list[0 .. nband_list) (1-based; `band`
     * then unused), or every band of the input when `band_all`; the
     * windows window_list[0 .. 2 * nwindow_list) as kx, ky pairs
     * (compute.kx, ky then unused). The maps are band-major: every window
     * of the first band, then of the next. One read of the input feeds
     * them all. Whole jobs from an input only (not memory_in). */
    const int *band_list;
    int nband_list;
    int band_all;
    const int *window_list;
    int nwindow_list;
} winent_job_opts;

/* Defaults: 5x5, base e, auto device, all cores, 1 GiB, zstd level and frame
 * rows chosen by the library (0 = default). */
WINENT_API void winent_job_opts_default(winent_job_opts *o);

/* Run a job. Returns its status; `msg` (msg_len bytes) receives the one-line
 * reason of a failure; `stats` (may be NULL) receives the figures. A file
 * output appears at its name only on success (fsynced, then renamed); a
 * pipe, device or /dev/fd/N output is written in place (docs/SPEC.md,
 * "Outputs"). An output that is the input, an unknown extension without
 * --format, or a GeoTIFF to a stream is WINENT_ERR_USAGE before any work.
 * winent_interrupt() stops a running job with WINENT_ERR_INTERRUPTED. One
 * job at a time per process. */
WINENT_API winent_status winent_run(const winent_job_opts *o, winent_job_stats *stats, char *msg,
                                    size_t msg_len);

/* Ask the running job to stop (async-signal-safe: call it from SIGINT). */
WINENT_API void winent_interrupt(void);

/* ---- This build --------------------------------------------------------- */

/* Print what this build is to `out` (the CLI's --version): the version;
 * the engines compiled in (cpu, reference, and cuda with the CUDA runtime
 * version and the GPU architectures built); the libraries linked (zstd,
 * libtiff, zlib, libpng, GDAL where built with it: each version asked of
 * the library at run time) and the OpenMP version compiled for. Needs no
 * GPU. WINENT_ERR_OUTPUT when `out` cannot be written. */
WINENT_API winent_status winent_version_print(FILE *out);

/* ---- Reading our own outputs ----------------------------------------- */

/* Print the JSON header and the frame count of a .zst output of
 * winent-stream to `out` (the CLI's --info). WINENT_ERR_INPUT when the file
 * is missing or not a winent-stream .zst; `msg` holds the reason. */
WINENT_API winent_status winent_info_print(const char *path, FILE *out, char *msg, size_t msg_len);

/* Verify a .zst output of winent-stream whole (the CLI's --info --check,
 * or --test, like zstd -t): the JSON header; every zstd frame decompressed,
 * with its content size (the header's width x 4 bytes times its rows: the
 * frames add up to width x height x 4 bytes) and its XXH64 checksum; every
 * entry of the seek table against the frame actually found (compressed
 * size, decompressed size, checksum), and the table's own frame, footer
 * and magic. Memory stays small whatever the file size (one frame's
 * window, 1 GiB at most).
 *
 * On success prints one line, "OK: N frames, W x H", to `out` and returns
 * WINENT_OK. Otherwise returns WINENT_ERR_INPUT (WINENT_ERR_OUTPUT when
 * `out` cannot be written, WINENT_ERR_INTERNAL when out of memory) with
 * the first problem in `msg`, a bad frame named by its index (0-based,
 * data frames only), rows and byte offset: "FILE: frame 3 (rows 48-63) at
 * byte 123456: checksum mismatch". Thread-safe: it shares no state. */
WINENT_API winent_status winent_info_check(const char *path, FILE *out, char *msg, size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif
