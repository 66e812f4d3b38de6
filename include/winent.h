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
void winent_compute_opts_default(winent_compute_opts *o);

/* Size of one sample of `t` in bytes; name as in the CLI ("u8", "f32", ...). */
size_t winent_dtype_size(winent_dtype t);
const char *winent_dtype_name(winent_dtype t);
int winent_dtype_is_float(winent_dtype t);

/* Short name of a status ("input error", ...). */
const char *winent_status_name(winent_status s);


/* ---- Engines: compute one chunk (the kernel contract) ---------------- */

typedef enum winent_engine_kind {
    WINENT_ENGINE_CPU = 0,   /* the OpenMP sliding-histogram engine */
    WINENT_ENGINE_GPU,       /* the CUDA engine on one device */
    WINENT_ENGINE_REFERENCE  /* the slow, obviously correct one (tests) */
} winent_engine_kind;

typedef struct winent_engine winent_engine;

/* Number of usable CUDA devices; 0 without a GPU, a driver, or a CUDA build. */
int winent_gpu_count(void);

/* An engine for chunks of at most `max_width` x `max_in_rows` input pixels.
 * `device` is the CUDA device for WINENT_ENGINE_GPU; `threads` the OpenMP
 * threads for the CPU engine (0: all cores). On failure *out is NULL and
 * `msg` (if not NULL) holds the reason. */
winent_status winent_engine_create(const winent_compute_opts *o, winent_engine_kind kind,
                                   int device, int max_width, int max_in_rows, int threads,
                                   winent_engine **out, char *msg, size_t msg_len);

/* Compute output rows [y0, y1) of an image `width` x `height` from its input
 * rows [in_y0, in_y0 + in_h) (samples of the options' dtype, native byte
 * order, `row_bytes` apart), which must cover [y0 - ky/2, y1 + ky/2) clipped
 * to the image. Output rows go to `out`, `out_stride` floats apart. Every
 * engine gives the same bits. One caller at a time per engine. */
winent_status winent_engine_compute(winent_engine *e, const void *rows, size_t row_bytes, int width,
                                    int height, int in_y0, int in_h, int y0, int y1, float *out,
                                    size_t out_stride);

/* The message of the engine's last failure ("" when none). */
const char *winent_engine_message(const winent_engine *e);

void winent_engine_free(winent_engine *e);

/* ---- Reading our own outputs ----------------------------------------- */

/* Print the JSON header and the frame count of a .zst output of
 * winent-stream to `out` (the CLI's --info). WINENT_ERR_INPUT when the file
 * is missing or not a winent-stream .zst; `msg` holds the reason. */
winent_status winent_info_print(const char *path, FILE *out, char *msg, size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif
