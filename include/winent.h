/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * winent.h - public API of winent-stream: the local Shannon entropy map of
 * rasters too big for memory, computed as a bounded streaming pipeline.
 *
 * The CLI and the tools include only this header.
 *
 * Conventions, for every function here:
 * - Errors: a fallible function returns a winent_status and fills the
 *   caller's winent_error (which may be NULL) with the status and a
 *   one-line message; a job keeps its own (winent_job_error). Nothing is
 *   printed, nothing exits, and there is no process-global state: no error
 *   buffer, no stop flag.
 * - Objects come in create/free pairs; free (and winent_zst_close) accepts
 *   NULL.
 * - NULL pointers: every function checks its pointer arguments before
 *   using them. A NULL where one is needed (said per function: `err`,
 *   `stats`, `device` may be NULL) is WINENT_ERR_USAGE with the message
 *   "FUNC: ARG is NULL" (e.g. "winent_entropy: in is NULL") in the
 *   winent_error, when there is one to fill; functions without one
 *   (winent_job_run, winent_engine_compute on a NULL object,
 *   winent_version_print) return the status alone. Functions that return
 *   a value give a safe one for NULL, said with each: winent_compute_top
 *   0, winent_zst_header "", winent_job_error and winent_engine_error a
 *   cleared error; the _default functions and winent_job_get_stats do
 *   nothing to NULL (get_stats zeroes `stats` for a NULL job).
 * - Thread safety is said per function. Different objects (jobs, engines)
 *   may be used from different threads at once.
 */
#ifndef WINENT_H
#define WINENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WINENT_VERSION_STRING "0.2.0"

/* --preview: the default and the largest longest side, in pixels. */
#define WINENT_PREVIEW_SIZE_DEFAULT 1024
#define WINENT_PREVIEW_SIZE_MAX     16384

/* WINENT_API marks each function of this header: libwinent is compiled with
 * hidden visibility, so these, and nothing else, are what libwinent.so
 * exports (tests/install/test_exports.sh holds the library to this header: a
 * declaration without it fails there). */
#if defined(__GNUC__) && __GNUC__ >= 4
#define WINENT_API __attribute__((visibility("default")))
#else
#define WINENT_API
#endif

/* Room for a one-line message (error or notice). */
#define WINENT_MSG_LEN 512

/* Status codes. The values are pinned: they are also the CLI exit codes
 * (docs/SPEC.md section 6). */
typedef enum winent_status {
    WINENT_OK = 0,
    WINENT_ERR_INTERNAL = 1,    /* out of memory, broken invariant */
    WINENT_ERR_USAGE = 2,       /* bad option or value */
    WINENT_ERR_INPUT = 3,       /* missing, unreadable, truncated, corrupt, unsupported */
    WINENT_ERR_OUTPUT = 4,      /* cannot create, disk full, write failure */
    WINENT_ERR_DEVICE = 5,      /* GPU asked for but unusable, CUDA failure */
    WINENT_ERR_INTERRUPTED = 130 /* cancelled (winent_job_cancel; the CLI: a signal) */
} winent_status;

/* What went wrong: the one error convention of the public API. Functions
 * take a `winent_error *` that may be NULL; on success they leave it
 * cleared (WINENT_OK, ""), on failure they fill it. */
typedef struct winent_error {
    winent_status status;         /* WINENT_OK when there is none */
    char message[WINENT_MSG_LEN]; /* one line, no "winent-stream: " prefix; "" when none.
                                     Usage errors name the CLI option at fault
                                     ("--window: '4': give K or WxH, ...") */
} winent_error;

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

/* The measure of each window's histogram (docs/SPEC.md section 1). Every
 * one is exact on every engine: its running sums are integers. */
typedef enum winent_measure {
    WINENT_MEASURE_ENTROPY = 0, /* Shannon entropy in the base (the default) */
    WINENT_MEASURE_RENYI,       /* Renyi entropy of order renyi_q >= 0 in the base */
    WINENT_MEASURE_SIMPSON,     /* Gini-Simpson index 1 - sum p^2, in [0, 1) */
    WINENT_MEASURE_RICHNESS,    /* distinct values (bins) counted in the window */
    WINENT_MEASURE_EVENNESS,    /* Pielou's J = H / log(richness); 0 at richness 1 */
    WINENT_MEASURE_MAJORITY,    /* the most frequent value, ties to the smallest */
    /* Of the window's co-occurrence matrix (GLCM, docs/SPEC.md "Co-occurrence
     * measures"): pairs at glcm_distance along each of glcm_angles, both ends
     * in the cropped window and neither nodata; symmetric unless
     * glcm_asymmetric; each angle's value averaged. The levels are the bins
     * (8-bit values as they are without bins). */
    WINENT_MEASURE_GLCM_ENTROPY,
    WINENT_MEASURE_GLCM_ASM,
    WINENT_MEASURE_GLCM_ENERGY,
    WINENT_MEASURE_GLCM_CONTRAST,
    WINENT_MEASURE_GLCM_DISSIMILARITY,
    WINENT_MEASURE_GLCM_HOMOGENEITY,
    WINENT_MEASURE_GLCM_CORRELATION,
    WINENT_MEASURE_GLCM_MEAN,
    WINENT_MEASURE_GLCM_VARIANCE,
    WINENT_MEASURE_GLCM_CLUSTER_SHADE,
    WINENT_MEASURE_GLCM_CLUSTER_PROMINENCE,
    WINENT_MEASURE_GLCM_COND_ENTROPY,
    WINENT_MEASURE_GLCM_MUTUAL_INFO,
    WINENT_MEASURE_COUNT
} winent_measure;

/* What is computed for each pixel (SPEC sections 1 and 2). Two runs with
 * equal compute options give bit-identical maps on every engine. */
typedef struct winent_compute_opts {
    int kx, ky;          /* window width and height, 1..255: an even side has one
                            more pixel before the centre (kx / 2) than after */
    winent_base base;
    winent_dtype dtype;  /* sample type the kernel sees (native byte order) */
    uint32_t bins;       /* 0: each distinct integer value is a bin */
    double range_lo;     /* with bins: bin = floor((v - lo) * bins / (hi - lo)) */
    double range_hi;
    int has_nodata;      /* pixels equal to nodata are not counted; NaN never is */
    double nodata;
    int disk;            /* 0: the kx x ky rectangle; 1: the disk of radius R = kx / 2
                            (kx == ky; the CLI's --disk R gives kx = ky = 2R + 1): the
                            pixels with dx^2 + dy^2 <= R^2, scikit-image's disk(R) */
    winent_measure measure; /* default (0) WINENT_MEASURE_ENTROPY */
    double renyi_q;      /* WINENT_MEASURE_RENYI's order Q >= 0 (else unused) */
    int glcm_distance;   /* the GLCM measures' pair distance, 1..127 (0: 1) */
    unsigned glcm_angles;/* their angles: bits 1 (0 deg), 2 (45), 4 (90), 8 (135); 0: all */
    int glcm_asymmetric; /* 1: the matrix as counted, not made symmetric */
    /* Any footprint (scikit-image's footprint= array): NULL for the
     * rectangle or disk above; else ky rows of kx bytes, top row first,
     * a nonzero byte putting that pixel in the window. kx and ky are then
     * 1..255, even or odd: the pixel computed is the footprint's row
     * ky / 2, column kx / 2 (scikit-image's centre), so footprint byte
     * [r * kx + c] is the pixel at (x + c - kx / 2, y + r - ky / 2). At
     * least one byte nonzero; `disk` must be 0. Borrowed: a plan or a job
     * keeps its own copy, so the caller's may go once they are made. */
    const unsigned char *footprint;
} winent_compute_opts;

/* The measure's name as the CLI's --measure takes it ("entropy", "renyi",
 * "simpson", "richness", "evenness", "majority"; "?" if unknown). A static
 * string. Thread-safe. */
WINENT_API const char *winent_measure_name(winent_measure m);

/* Parse one --measure item ("simpson", "renyi:2", "renyi:0.5") into *m and
 * *q (q is 0 but for renyi). Returns WINENT_OK or WINENT_ERR_USAGE with the
 * CLI's message. `err` may be NULL. Thread-safe. */
WINENT_API winent_status winent_measure_parse(const char *text, winent_measure *m, double *q,
                                              winent_error *err);

/* The measure of `o` as text, "entropy", "renyi:2", ... (snprintf's
 * contract: the length it needed). Thread-safe. */
WINENT_API int winent_measure_text(const winent_compute_opts *o, char *buf, size_t size);

/* The largest entropy `o` allows: log, in o's base, of min(window pixels,
 * bins) (distinct values: the window's pixels), reached where every kept
 * pixel of a whole window is in a bin of its own. 0 for a 1 x 1 window.
 * It sets the scale of integer outputs (winent_out_type) and of the
 * preview. 0 for NULL. Thread-safe. */
WINENT_API double winent_compute_top(const winent_compute_opts *o);

/* Fill `o` with the defaults: 5 x 5 window, base 2 (bits, as scikit-image,
 * MATLAB and Earth Engine), u8, distinct values.
 * Thread-safe. */
WINENT_API void winent_compute_opts_default(winent_compute_opts *o);

/* Check what is computed: window sides 1..255, odd or even (a disk: kx ==
 * ky odd, a radius 0..127; a footprint: a pixel set; the co-occurrence
 * measures: odd rectangles), a known dtype and base,
 * bins at most 2^30, and for bins or a float dtype a finite range LO < HI.
 * Returns WINENT_OK, or WINENT_ERR_USAGE with the one-line message the CLI
 * prints for the same values (without its "winent-stream: " prefix), e.g.
 * "--window: '0': give K or WxH, sides from 1 to 255". `err` may be
 * NULL. Thread-safe (it reads `o` only). */
WINENT_API winent_status winent_compute_opts_validate(const winent_compute_opts *o,
                                                      winent_error *err);

/* ---- Options: one table, two doors' words --------------------------- */

/* Whose words a usage message is in: the command line's ("--window: '7x3':
 * give K or WxH, ...") or Python's ("window=(3, 7): give K or (rows, cols),
 * ..."), naming the option and quoting the value as that door takes them.
 * The rule behind a message is the same whatever its words. */
typedef enum winent_words { WINENT_WORDS_CLI = 0, WINENT_WORDS_PYTHON = 1 } winent_words;

/* How a door reads an option's value (winent_option.type). The plain
 * types go straight to their field of winent_job_opts (winent_option.field);
 * WINENT_OPT_OWN values have a grammar of their own (a list, a pair, a
 * range), read by each door's own code. */
typedef enum winent_opt_type {
    WINENT_OPT_OWN = 0, /* its own grammar (--window 5,9, --range LO:HI) */
    WINENT_OPT_FLAG,    /* no value: the int field is set to 1 */
    WINENT_OPT_INT,     /* a whole number in [lo, hi] (both 0: any an int holds) */
    WINENT_OPT_INT_SET, /* the same, 0 refused: the field's 0 means "the default" */
    WINENT_OPT_U32,     /* a whole number in [lo, hi] into a uint32_t field */
    WINENT_OPT_WORD,    /* one of `words`: its index into the enumeration field */
    WINENT_OPT_SIZE,    /* bytes, 512M or 4G (binary units), at least lo (lo 0:
                           "0" too), into a uint64_t field */
    WINENT_OPT_TEXT     /* a string (a path, a device list), kept as given */
} winent_opt_type;

/* One option of winent-stream, as every door knows it: the CLI's long
 * option, the keyword of Python's winent.run / Job / entropy, its --help
 * lines, what a value it refuses is told to give, and how its value is
 * read and where it goes. */
typedef struct winent_option {
    const char *cli;           /* long option without "--" ("frame-rows"); NULL: Python only */
    const char *python;        /* Python keyword ("frame_rows"); NULL: CLI only */
    const char *metavar;       /* its value in --help ("N", "LO:HI"); NULL: a flag */
    const char *group;         /* its --help section ("What is computed") */
    const char *help;          /* its --help text after the name (further lines
                                  indented as printed); NULL: not in --help */
    const char *cli_advice;    /* what a refused value is told: "give a number from 1 to
                                  4096"; NULL: no value to refuse */
    const char *python_advice; /* the same in Python's words */
    const char *words;         /* an enumeration's words in the enumeration's order,
                                  "|" between them ("bsq|bip|bil"), a word's other
                                  spellings after a comma ("tif,tiff"); for another
                                  type, the words it takes beside its grammar
                                  ("auto" of --range, "all" of --band), in the same
                                  form; NULL when none (the shell completion
                                  offers these words) */
    int type;                  /* a winent_opt_type */
    long field;                /* offsetof(winent_job_opts, its field) for the plain
                                  types; -1: none (WINENT_OPT_OWN, a door's own) */
    double lo, hi;             /* the numbers a door reads (WINENT_OPT_INT, _INT_SET,
                                  _U32, _SIZE); the library checks the option's own
                                  range after (winent_job_opts_validate) */
} winent_option;

/* The table of every option, in --help's order; its length in *count (may
 * be NULL). A static table. Thread-safe. */
WINENT_API const winent_option *winent_options(int *count);

/* A usage error for a value of option `name` (CLI word or Python keyword)
 * that the door could not read as one at all ("abc" for a number, a word
 * that is none of the enumeration's): "--NAME: 'VALUE': ADVICE" or
 * "KEYWORD=VALUE: ADVICE" by `words`, `value` quoted as given (Python:
 * its repr). Returns WINENT_ERR_USAGE (WINENT_ERR_INTERNAL for an unknown
 * option); `err` may be NULL. Thread-safe. */
WINENT_API winent_status winent_option_refuse(const char *name, const char *value,
                                              winent_words words, winent_error *err);

/* Two options given together that say the same thing two ways (--window
 * and --disk; Python's window= and footprint=/radius=): the one usage
 * error every door gives for it, naming both in `words`. Thread-safe. */
WINENT_API winent_status winent_option_conflict(const char *name, const char *other,
                                                winent_words words, winent_error *err);

/* winent_compute_opts_validate in the words `words` (Python's: the
 * package calls it before winent_entropy). Thread-safe. */
WINENT_API winent_status winent_compute_opts_check(const winent_compute_opts *o,
                                                   winent_words words, winent_error *err);

/* Size of one sample of `t` in bytes (0 for an unknown type). Thread-safe. */
WINENT_API size_t winent_dtype_size(winent_dtype t);
/* The name of `t` as in the CLI ("u8", "f32", ...; "?" for an unknown
 * type). A static string. Thread-safe. */
WINENT_API const char *winent_dtype_name(winent_dtype t);
/* 1 for f32 and f64, else 0. Thread-safe. */
WINENT_API int winent_dtype_is_float(winent_dtype t);

/* Short name of a status ("input error", ...). A static string. Thread-safe. */
WINENT_API const char *winent_status_name(winent_status s);

/* ---- In memory: one call ------------------------------------------------ */

/* The entropy map of an image in memory: `width` x `height` samples of
 * o->dtype (native byte order) at `in`, rows `in_row_bytes` apart (0:
 * packed, width x sample size; any larger value, any alignment: a row of
 * a bigger image, a padded row); the map into `out`, `height` rows of
 * `width` floats, `out_row_floats` floats apart (0: packed, `width`).
 *
 * `device`: "auto" (NULL: the same), "cpu", "gpu" (every GPU) or a list
 * such as "0" or "0,1" or "cpu,0", as the CLI's --device; `threads`: the
 * CPU threads, 0 for all cores. The image goes through the same pipeline
 * and engines as a file job, in chunks: the CPU reads `in` and writes
 * `out` in place; where GPUs compute, the rows are staged through the
 * job's pinned buffers, unless `in` and `out` are page-locked already
 * (cudaHostAlloc, rows packed, GPUs named), which the GPUs then copy from
 * and to directly. The map has the same bits as every engine gives and as
 * a file job with the same options (docs/SPEC.md section 1).
 *
 * Returns WINENT_OK; WINENT_ERR_USAGE for bad options (the CLI's message,
 * winent_compute_opts_validate), a NULL buffer, a negative size or a row
 * step smaller than a row; WINENT_ERR_DEVICE when a GPU named is not
 * usable; WINENT_ERR_INTERNAL when out of memory. A 0 x H or W x 0 image
 * is WINENT_OK with nothing written. `err` may be NULL.
 *
 * Thread-safe: calls on different output buffers may run at once (each
 * has its own workers); `in` is only read. */
WINENT_API winent_status winent_entropy(const winent_compute_opts *o, const void *in,
                                        size_t in_row_bytes, int width, int height, float *out,
                                        size_t out_row_floats, const char *device, int threads,
                                        winent_error *err);

/* Several measures of an image in memory in one pass: the maps of
 * measures[0 .. nmeasures) (each renyi's order in renyi_q[k]; renyi_q may
 * be NULL where none is renyi), o's other options (window, levels,
 * distance, angles, ...) shared, o->measure unused. As winent_entropy,
 * with `out` holding the maps one after the other: map k's row y at
 * out + (k height + y) row, row = out_row_floats (0: width). Each map has
 * the bits winent_entropy gives for that measure alone, and the CLI's
 * --measure list; the co-occurrence measures share one count of each
 * window's pairs. A measure given twice, or one the window or dtype
 * cannot take, is WINENT_ERR_USAGE with the CLI's --measure message;
 * `measures` NULL or nmeasures < 1 too. Thread-safe as winent_entropy. */
WINENT_API winent_status winent_texture(const winent_compute_opts *o,
                                        const winent_measure *measures, const double *renyi_q,
                                        int nmeasures, const void *in, size_t in_row_bytes,
                                        int width, int height, float *out, size_t out_row_floats,
                                        const char *device, int threads, winent_error *err);

/* ---- Engines: compute one chunk (the kernel contract) ---------------- */

typedef enum winent_engine_kind {
    WINENT_ENGINE_CPU = 0,   /* the OpenMP sliding-histogram engine */
    WINENT_ENGINE_GPU,       /* the CUDA engine on one device */
    WINENT_ENGINE_REFERENCE  /* the slow, obviously correct one (tests) */
} winent_engine_kind;

typedef struct winent_engine winent_engine;

/* Number of usable CUDA devices; 0 without a GPU, a driver, or a CUDA
 * build. Thread-safe. */
WINENT_API int winent_gpu_count(void);

/* An engine for chunks of at most `max_width` x `max_in_rows` input pixels.
 * `device` is the CUDA device for WINENT_ENGINE_GPU; `threads` the OpenMP
 * threads for the CPU engine, and for a GPU engine the threads that copy
 * a chunk's rows to and from its pinned staging (0: all cores). An engine
 * holds everything a chunk needs (the plan; the CPU's scratch; the GPU's
 * device buffers, streams and pinned staging): made once and kept, it
 * computes chunk after chunk with no setup of its own, where
 * winent_entropy sets a whole job up per call. Returns WINENT_OK with the
 * engine in *out, or the status with *out NULL and the reason in `err`
 * (may be NULL): WINENT_ERR_USAGE for bad options (as
 * winent_compute_opts_validate), WINENT_ERR_DEVICE for a GPU not usable.
 * Thread-safe (each call makes its own engine). */
WINENT_API winent_status winent_engine_create(const winent_compute_opts *o, winent_engine_kind kind,
                                              int device, int max_width, int max_in_rows,
                                              int threads, winent_engine **out,
                                              winent_error *err);

/* Compute output rows [y0, y1) of an image `width` x `height` from its input
 * rows [in_y0, in_y0 + in_h) (samples of the options' dtype, native byte
 * order, `row_bytes` apart), which must cover [y0 - ky/2, y1 + ky/2) clipped
 * to the image. Output rows go to `out`, `out_stride` floats apart. Every
 * engine gives the same bits. A GPU engine takes `rows` and `out` in any
 * host memory: it cuts the chunk into bands of about 4M output pixels,
 * each copied by the engine's threads into one of its six pinned slots,
 * to the GPU, computed and copied back, so the copies of one band overlap
 * the kernels of the others. Returns when the rows are in
 * `out`, with the status; the reason of a failure is in
 * winent_engine_error(e), and the engine stays usable. This is
 * winent_engine_submit followed by winent_engine_wait: several threads may
 * call it on one engine at once, and their blocks are pipelined through
 * the engine together (winent_engine_error then holds the last failure of
 * any of them: a thread that needs its own reads it from submit's and
 * wait's `err`). */
WINENT_API winent_status winent_engine_compute(winent_engine *e, const void *rows, size_t row_bytes,
                                               int width, int height, int in_y0, int in_h, int y0,
                                               int y1, float *out, size_t out_stride);

/* Start the block winent_engine_compute would compute with the same
 * arguments (the same bits) and return, its ticket in *ticket (1, 2, ...:
 * never 0); winent_engine_wait completes it. `rows` must stay valid and
 * unchanged and `out` valid and untouched until that wait returns.
 *
 * A GPU engine queues the block's bands behind those of the blocks before
 * it and starts what its free slots take (copying those bands' input into
 * the pinned staging); the rest of the work is done by the threads in
 * winent_engine_wait, whoever's block it is: a block's last bands drain
 * while the next block's first ones compute, and the copies of several
 * threads run side by side (each copy on the engine's `threads`, fewer
 * where the copies at once would put more threads than cores on the
 * machine). A thread with nothing to copy sleeps, never spins. The CPU
 * and reference engines compute the block in this call (one block at a
 * time per engine), and the wait returns its status.
 *
 * Returns WINENT_OK, or the status with *ticket 0 and the reason in `err`
 * (may be NULL): WINENT_ERR_USAGE for a NULL `e` or `ticket` ("FUNC: ARG
 * is NULL") and the arguments winent_engine_compute refuses;
 * WINENT_ERR_INTERNAL when out of memory. A failure of the computation
 * itself (a GPU's) is the wait's. Thread-safe: any threads may submit to
 * and wait on one engine at once (a dask worker's threads sharing its GPU's
 * engine). */
WINENT_API winent_status winent_engine_submit(winent_engine *e, const void *rows, size_t row_bytes,
                                              int width, int height, int in_y0, int in_h, int y0,
                                              int y1, float *out, size_t out_stride,
                                              uint64_t *ticket, winent_error *err);

/* Wait for block `ticket` of winent_engine_submit (0: the oldest block
 * no thread waits for yet) to be in its `out`, working on the engine's
 * bands meanwhile. Returns the block's status, the reason in `err` (may be
 * NULL): WINENT_ERR_DEVICE for a GPU's failure (the block's other bands
 * are stopped or waited for: nothing writes to its `out` after the
 * return; the engine stays usable where the GPU does); WINENT_ERR_USAGE
 * for a NULL `e` and for a ticket not in flight (never given, or waited
 * for already: each ticket is waited for once, by any one thread).
 * Thread-safe as winent_engine_submit. */
WINENT_API winent_status winent_engine_wait(winent_engine *e, uint64_t ticket, winent_error *err);

/* The engine's last winent_engine_compute failure (status WINENT_OK and ""
 * when the last call succeeded, or for NULL). Valid until the next
 * winent_engine_compute on `e`. */
WINENT_API const winent_error *winent_engine_error(const winent_engine *e);

/* Free the engine (NULL is fine). Not while a call on it runs; blocks
 * submitted and not waited for are dropped (their bands on the GPU waited
 * for first, so nothing writes to their `out` after the return). */
WINENT_API void winent_engine_free(winent_engine *e);

/* ---- Job options, progress and figures ---------------------------------- */

typedef enum winent_interleave {
    WINENT_INTERLEAVE_BSQ = 0, /* band after band */
    WINENT_INTERLEAVE_BIP,     /* pixel after pixel, bands inside */
    WINENT_INTERLEAVE_BIL      /* row after row, bands inside each row */
} winent_interleave;

typedef enum winent_format {
    WINENT_FORMAT_AUTO = 0, /* from the output name: .zst; .tif/.tiff; .zarr; .raw/.f32/.bin,
                               "-" or no extension raw; any other is a usage error */
    WINENT_FORMAT_RAW,
    WINENT_FORMAT_ZST,
    WINENT_FORMAT_TIF,
    WINENT_FORMAT_ZARR      /* .zarr: a Zarr v2 store (a folder), xarray's layout */
} winent_format;

typedef enum winent_compress {
    WINENT_COMPRESS_ZSTD = 0,
    WINENT_COMPRESS_DEFLATE,
    WINENT_COMPRESS_LZW,
    WINENT_COMPRESS_NONE
} winent_compress;

/* Sample type of the output map (--ot; docs/SPEC.md, "Output sample
 * types"). The integer types store round(H / scale) with scale = the
 * largest entropy of the job (winent_compute_top) over 65534 or 254, the
 * type's largest code (65535, 255) standing for NaN; the scale (and an
 * offset of 0) is recorded where GDAL reads it (GeoTIFF, the .zst header,
 * the ENVI sidecar). */
typedef enum winent_out_type {
    WINENT_OT_FLOAT32 = 0, /* the default: the engines' bits */
    WINENT_OT_FLOAT16,     /* IEEE half, round to nearest even: relative error <= 2^-11 */
    WINENT_OT_UINT16,      /* error <= scale / 2 = top / 131068 */
    WINENT_OT_UINT8        /* error <= scale / 2 = top / 508 */
} winent_out_type;

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
    int preview_range;          /* 1: the colours span [preview_lo, preview_hi]
                                   (--preview-range LO:HI, finite, LO < HI); 0: the
                                   2nd to 98th percentiles of the preview's pixels */
    double preview_lo, preview_hi;
    winent_tif_layout tif_layout; /* .tif layout (default Cloud-Optimized) */
    int bigtiff;                /* .tif: BigTIFF even when small (else only past 4 GiB) */
    const char *command_line;   /* provenance: the command that made the map (the
                                   CLI's argv shell-quoted where needed, without the
                                   options that only say how the job runs), recorded
                                   in the output's metadata; may be NULL */
    /* Running. */
    const char *device;         /* "auto", "cpu", "gpu" or a list "0,2" */
    int threads;                /* 0: all cores */
    uint64_t mem_bytes;         /* host memory budget for the pipeline's buffers; 0
                                   (the default): 1 GiB, raised where the workers'
                                   own state (encoders, CPU scratch: about 12 MiB a
                                   thread for a COG) leaves too little of it on a
                                   many-core machine */
    /* --range auto: compute.range_lo/hi are taken from the band's recorded
     * statistics (a .aux.xml, the TIFF's GDAL metadata), else from a first
     * pass over the band (a file only: a stream is a usage error). */
    int range_auto;
    /* --sidecar: write an ENVI header (OUTPUT.hdr appended to the name)
     * beside a raw output file, so that GDAL opens the map with its
     * georeferencing. Only with raw output to a file (usage error else). */
    int sidecar;
    /* --decode: `input` is a .zst map of winent-stream; it is written to
     * `output` as the output's format asks (a GeoTIFF, raw), with the
     * header's georeferencing, nodata and provenance. Nothing is computed:
     * a compute or raw-input option away from its default is a usage
     * error (winent_job_opts_validate), as on the command line. */
    int decode;
    /* Callbacks (may be NULL), called from the thread that runs the job
     * (the one in winent_job_run), never two at once. on_progress comes
     * about every 0.25 s and after the last row; it may call
     * winent_job_cancel on its own job (through `user`). */
    void (*on_progress)(void *user, const winent_progress *p);
    void (*on_notice)(void *user, const char *line); /* one line, e.g. a fallback */
    void *user;
    /* Several maps in one pass (docs/SPEC.md, "Several bands and windows
     * in one pass"): the bands band_list[0 .. nband_list) (1-based; `band`
     * then unused), or every band of the input when `band_all`; the
     * windows window_list[0 .. 2 * nwindow_list) as kx, ky pairs
     * (compute.kx, ky then unused), and window_disk[0 .. nwindow_list)
     * (NULL: none) 1 where that window is a disk (compute.disk; its kx ==
     * ky). The maps are band-major: every window of the first band, then
     * of the next. One read of the input feeds them all. Whole jobs from
     * an input only (not memory_in). */
    const int *band_list;
    int nband_list;
    int band_all;
    const int *window_list;
    int nwindow_list;
    const int *window_disk;
    /* The process uses CUDA for nothing but this job (the CLI sets it): as
     * soon as no GPU of the job has more to compute, each one's context is
     * reset (cudaDeviceReset) while the job's last chunks are encoded and
     * written, instead of at the process's exit (0.05-0.1 s a GPU,
     * docs/PERFORMANCE.md). Leave it 0 in a process that runs other CUDA
     * work or several jobs at once: a reset ends every use of the device's
     * primary context in the process. Without it, the job's pinned pages
     * are still released at that moment, and nothing else. With a --device
     * list of GPUs, such a process also starts only those (CUDA_VISIBLE_DEVICES
     * set before its first CUDA call; the GPUs keep the host's numbers in
     * messages and stats): four H200s' start took 1.0 s, one's 0.3 s. */
    int release_gpus;
    /* The output's sample type (--ot; default WINENT_OT_FLOAT32) for every
     * format: raw, .zst, GeoTIFF (overviews too), and --decode's output. */
    winent_out_type out_type;
    /* Whose words the job's usage errors are in (winent_job_opts_validate,
     * winent_job_create, the run's checks): WINENT_WORDS_CLI (the
     * default) or WINENT_WORDS_PYTHON (the Python package sets it). */
    winent_words words;
    /* Several measures in one pass (docs/SPEC.md, "Several bands and
     * windows in one pass"): measure_list[0 .. nmeasure_list), with the
     * order of each renyi in measure_q (NULL: none), compute.measure and
     * renyi_q then unused. Each window's maps are its measures in the
     * order given: band, then window, then measure. */
    const winent_measure *measure_list;
    const double *measure_q;
    int nmeasure_list;
} winent_job_opts;

/* Defaults: 5x5, base 2, auto device, all cores, 1 GiB, zstd level and frame
 * rows chosen by the library (0 = default). Thread-safe. */
WINENT_API void winent_job_opts_default(winent_job_opts *o);

/* Check a job's options before any work, with the checks and one-line
 * messages of the CLI (which calls this after reading its command line):
 * winent_compute_opts_validate's (the dtype-dependent ones only with
 * dtype_given; the range's not with range_auto), --bins without a range,
 * each number in its range (window, bins, --size, --bands, --band, --level,
 * --frame-rows, --tile, --preview-size, --threads, --mem), the enums, the
 * --device list's syntax, --preview-size or --preview-range without
 * --preview, --preview-range's LO < HI (finite), and an input named. A
 * disk (compute.disk) needs kx == ky (its radius kx / 2 from 0 to 127); a
 * footprint (compute.footprint) goes with no window list. What needs the files (an output that is the input, an unknown
 * extension, a GPU that is not there) is checked by the run, also before
 * any work. Returns WINENT_OK or WINENT_ERR_USAGE with the message in `err`
 * (may be NULL). Thread-safe (it reads `o` only). */
WINENT_API winent_status winent_job_opts_validate(const winent_job_opts *o, winent_error *err);

/* ---- Jobs: input file or stream -> entropy map -> output ------------------ */

/* A job: its options, its own stop flag, its error and figures. No state
 * is shared between jobs: several may run at once in one process, each
 * cancelled on its own. */
typedef struct winent_job winent_job;

/* Make a job of the options `o`, validated (winent_job_opts_validate) and
 * copied, strings included: `o` and its strings may be freed once this
 * returns (`user` and the callbacks are kept as given). Returns WINENT_OK
 * with the job in *job, or the status with *job NULL and the reason in
 * `err` (may be NULL). Thread-safe. */
WINENT_API winent_status winent_job_create(const winent_job_opts *o, winent_job **job,
                                           winent_error *err);

/* Run the job once, on the calling thread (it starts and joins its own
 * workers). Returns its status; the message is in winent_job_error(job),
 * the figures in winent_job_get_stats. A file output appears at its name
 * only on success (fsynced, then renamed); a pipe, device or /dev/fd/N
 * output is written in place (docs/SPEC.md, "Outputs"). An output that is
 * the input, an unknown extension without a format, or a GeoTIFF to a
 * stream is WINENT_ERR_USAGE before any work. A job cancelled before or
 * during the run returns WINENT_ERR_INTERRUPTED ("interrupted") and leaves
 * no file output (nor preview, nor sidecar) behind. A second call returns
 * WINENT_ERR_USAGE without running (and says so in the job's error). One
 * call at a time per job; different jobs may run at once on different
 * threads. */
WINENT_API winent_status winent_job_run(winent_job *job);

/* Ask the job to stop. Thread-safe and async-signal-safe: one atomic store
 * into the job. Callable before the run (the run then returns at once),
 * during it (from another thread, a signal handler, or the job's own
 * progress callback) or after it (no effect). The run then returns
 * WINENT_ERR_INTERRUPTED as soon as its stages see the flag (a read waiting
 * on an idle pipe polls it; the writer looks at least every 0.1 s), and a
 * file output is not left behind. Not on a freed job. */
WINENT_API void winent_job_cancel(winent_job *job);

/* Remove the temporary files the job's run has created and not yet renamed
 * into place or removed (its outputs, sidecars, preview, under names such
 * as NAME.tmp-XXXXXX): a last resort for a program that gives up on a run
 * that a cancel cannot end (a thread blocked for good in a network or disk
 * read) and exits without waiting for it. The final names are never
 * touched. Async-signal-safe and lock-free (unlink() only), callable from
 * any thread during the run; the run itself must not go on to use its
 * outputs (exit the process). Not on a freed job. */
WINENT_API void winent_job_discard_temporaries(winent_job *job);

/* The job's error: WINENT_OK and "" before the run and after a success
 * (and for NULL). Valid until winent_job_free; read it when no run is in
 * progress. */
WINENT_API const winent_error *winent_job_error(const winent_job *job);

/* Copy the figures of the job's run into `stats` (all zeros before it,
 * and for a NULL job; nothing for a NULL `stats`). Call it when no run is
 * in progress. */
WINENT_API void winent_job_get_stats(const winent_job *job, winent_job_stats *stats);

/* Free the job (NULL is fine). Not during its run, nor while another
 * thread may still cancel it. */
WINENT_API void winent_job_free(winent_job *job);

/* Convenience: create, run, get_stats, free. Returns the status with the
 * reason in `err` (may be NULL); `stats` (may be NULL) receives the
 * figures. There is no job to cancel: use the job calls for that.
 * Thread-safe as winent_job_run: several may run at once. */
WINENT_API winent_status winent_run(const winent_job_opts *o, winent_job_stats *stats,
                                    winent_error *err);

/* ---- This build --------------------------------------------------------- */

/* Print what this build is to `out` (the CLI's --version): the version;
 * the engines compiled in (cpu, reference, and cuda with the CUDA runtime
 * version and the GPU architectures built); the libraries linked (zstd,
 * libtiff, zlib, libpng, GDAL where built with it: each version asked of
 * the library at run time) and the OpenMP version compiled for. Needs no
 * GPU. WINENT_ERR_OUTPUT when `out` cannot be written, WINENT_ERR_USAGE
 * when it is NULL. */
WINENT_API winent_status winent_version_print(FILE *out);

/* ---- Reading our own outputs ----------------------------------------- */

/* Print the JSON header and the frame count of a .zst output of
 * winent-stream to `out` (the CLI's --info). WINENT_ERR_INPUT when the file
 * is missing or not a winent-stream .zst, with the reason in `err` (may be
 * NULL). Thread-safe: it shares no state. */
WINENT_API winent_status winent_info_print(const char *path, FILE *out, winent_error *err);

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
 * the first problem in `err` (may be NULL), a bad frame named by its index
 * within its map, rows and byte offset, and in a file of several maps by
 * its map, counted from 0 as winent_zst_read_frame's `map` and `frame`
 * are: "FILE: frame 3 (rows 48-63) at byte 123456: checksum mismatch",
 * "FILE: frame 1 (rows 16-31 of map 2) at byte 4096: ...". Thread-safe:
 * it shares no state. */
WINENT_API winent_status winent_info_check(const char *path, FILE *out, winent_error *err);

/* A .zst map of winent-stream opened for reading by frames (what the
 * Python package's read_zst and open_zst read with). One definition of a
 * valid file serves it, --info, --info --check and --decode: a file is
 * refused by all of them or by none (docs/FORMATS.md). */
typedef struct winent_zst winent_zst;

/* Open `path` (a regular file) and check everything but the frames'
 * contents: the header against its schema, the seek table, every frame's
 * header against its entry, the sizes against the file's. WINENT_OK with
 * the map in *out, or WINENT_ERR_INPUT (missing, not a winent-stream .zst,
 * cut, a seek table that disagrees) / WINENT_ERR_INTERNAL (memory) with
 * *out NULL and the reason in `err` (may be NULL), the words of --info.
 * Thread-safe. */
WINENT_API winent_status winent_zst_open(const char *path, winent_zst **out, winent_error *err);

/* The file's JSON header, as it is written (NUL-terminated, valid UTF-8,
 * checked against the schema); "" for NULL. Valid until winent_zst_close. */
WINENT_API const char *winent_zst_header(const winent_zst *z);

/* Decompress data frame `frame` (0-based, among the map's frames: rows
 * frame x rows_per_frame up to the next frame's or the map's end) of map
 * `map` (0-based; 0 for a file of one map) into `dst`, which holds its rows
 * of `width` float32 values, as --info --check checks it: the zstd content
 * size and XXH64 checksum, the seek table's sizes and checksum. Returns
 * WINENT_OK, WINENT_ERR_INPUT naming a bad frame ("FILE: frame 3 (rows
 * 48-63 of map 1) at byte 123456: checksum mismatch", with `frame` and
 * `map` as given) or a file cut since it was opened ("truncated": the file
 * is read with pread, never mapped), WINENT_ERR_USAGE for a frame or map
 * that is not there (named as given). Thread-safe:
 * several threads may read frames of one open map at once. */
WINENT_API winent_status winent_zst_read_frame(const winent_zst *z, int map, int64_t frame,
                                               float *dst, winent_error *err);

/* Close the map (NULL is fine). */
WINENT_API void winent_zst_close(winent_zst *z);

#ifdef __cplusplus
}
#endif
#endif
