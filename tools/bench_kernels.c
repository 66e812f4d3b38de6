/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_kernels.c - `winent-bench kernels`: the GPU window kernels and the
 * CPU engine over a grid of cells, value set x window:
 * windows K or WxH of any sides (odd or even, as the library takes them),
 * and disks diskR.
 *
 * In each cell:
 *   - every GPU kernel variant asked for (WINENT_GPU_KERNEL, which the
 *     engine reads when it is created; a variant that does not apply falls
 *     back to the engine's own choice, so one whose path was already
 *     measured in the cell is not measured again), kernel alone, device
 *     memory to device memory (winent_gpu_engine_time_kernel), its output
 *     checked bit for bit against the CPU engine on the first, middle and
 *     last rows;
 *   - the CPU engine in memory on --threads threads.
 * Times are bounded on a shared machine: each engine computes output rows
 * [0, rows) of the image (rows 0 in, so the top border is covered), rows
 * calibrated so that one run takes about --budget seconds (never more than
 * the image), then a warm-up and the median of 3.
 *
 * Output: a `cell ...` line per measurement as it is made (and a CSV row
 * with --csv), then Markdown tables: GPU Gpixel/s (best variant), the
 * winning variants, CPU Gpixel/s, GPU / CPU, and per value set the bytes
 * per pixel the GPU kernel moves at least and the HBM bound they give at
 * the measured device-to-device bandwidth.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"
#include "bench_kernels.h"
#include "kernels/engine_cpu.h"
#include "kernels/engine_cuda.h"
#include "tiles/source.h"

#define PROG        "winent-bench kernels"
#define MAX_WINDOWS 32
#define CALIB_ROWS  16  /* the first calibration band */
#define REPS        3   /* timed runs, the median is kept */
#define PATH_LEN    128 /* room for any of the engine's path names */

typedef enum set_kind {
    SET_UNIFORM,   /* independent values */
    SET_LANDSCAPE, /* a smooth random field in `values` classes (a land-cover map) */
    SET_FILE       /* --input's samples */
} set_kind;

typedef struct value_set {
    const char *name;
    winent_dtype dtype; /* SET_FILE: the file's */
    uint32_t values;    /* integers: uniform in 0..values-1, or classes */
    uint32_t bins;      /* floats: uniform in [0, 1), --bins bins --range 0:1 */
    set_kind kind;
} value_set;

static const value_set all_sets[] = {
    {"16", WINENT_U8, 16, 0, SET_UNIFORM},          {"64", WINENT_U8, 64, 0, SET_LANDSCAPE},
    {"256", WINENT_U8, 256, 0, SET_UNIFORM},        {"4096", WINENT_U16, 4096, 0, SET_UNIFORM},
    {"65536", WINENT_U16, 65536, 0, SET_UNIFORM},   {"1e6", WINENT_I32, 1000000, 0, SET_UNIFORM},
    {"f32-256", WINENT_F32, 0, 256, SET_UNIFORM},   {"f32-4096", WINENT_F32, 0, 4096, SET_UNIFORM},
    {"real", WINENT_U8, 0, 0, SET_FILE},
};
#define NSETS (int)(sizeof all_sets / sizeof all_sets[0])

static const char *const all_variants[] = {"auto", "thread", "warp",    "few",
                                           "cmp",  "groups", "colpack", "dense", "block",
                                           "sparse"};
#define NVARIANTS (int)(sizeof all_variants / sizeof all_variants[0])

/* A window of the grid: kx wide, ky high, or a disk of side kx = ky. */
typedef struct bench_win {
    int kx, ky, disk;
} bench_win;

static const bench_win default_windows[] = {{3, 3, 0},     {5, 5, 0},   {9, 9, 0},
                                            {15, 15, 0},   {31, 31, 0}, {63, 63, 0},
                                            {127, 127, 0}, {255, 255, 0}};

typedef struct kernels_opts {
    int device, width, height, threads, cpu_only;
    winent_measure measure; /* --measure */
    int levels;             /* --levels N: the values quantized into N bins (0: none) */
    unsigned angles;        /* --angles: the co-occurrence pairs' directions (0: all four) */
    double renyi_q;
    int cpu_time;    /* --cpu-time */
    double budget;   /* seconds one timed run should take */
    const char *csv; /* borrowed from argv; NULL: none */
    const char *input; /* --input: the `real` set's file; NULL: none */
    int input_w, input_h, input_has_dtype; /* --input-size, --input-dtype (raw files) */
    winent_dtype input_dtype;
    bench_win windows[MAX_WINDOWS];
    int nwindows;
    int sets[NSETS], nsets;             /* indices into all_sets */
    int variants[NVARIANTS], nvariants; /* indices into all_variants */
} kernels_opts;

/* What the tables need of one cell. */
typedef struct cell_result {
    double gpu_gpix;         /* best variant giving the CPU's bits; 0: none */
    int gpu_variant;         /* its index into all_variants */
    char gpu_path[PATH_LEN]; /* its kernel path */
    double cpu_gpix;         /* 0: not measured */
    int failed;              /* a measurement failed */
    int differs;             /* a variant's output is not the CPU engine's */
} cell_result;

static uint64_t rng_state;
static inline uint64_t rng(void)
{
    return xorshift64(&rng_state);
}


/* The `real` set: --input's first band, how to count its samples. */
typedef struct file_set {
    void *samples; /* owned: fw x fh samples of `dtype` */
    int fw, fh;
    winent_dtype dtype;
    int has_nodata;
    double nodata;
    double lo, hi; /* floats: the finite samples' range (--bins 256 over it) */
} file_set;

/* Landscape octaves: lattice cell sizes in pixels and amplitudes, coarse
 * to fine (patches of a few to a few hundred pixels, as in land cover). */
#define LAND_OCTAVES 4
static const int land_cell[LAND_OCTAVES] = {256, 96, 32, 11};
static const double land_amp[LAND_OCTAVES] = {1.0, 0.5, 0.3, 0.15};

/* The lattice value of octave `o` at (ix, iy), in [0, 1). */
static double lattice(uint64_t seed, int o, int64_t ix, int64_t iy)
{
    uint64_t z = seed ^ ((uint64_t)o << 56) ^ ((uint64_t)ix * 0x9E3779B97F4A7C15ull) ^
                 ((uint64_t)iy * 0xC2B2AE3D27D4EB4Full);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static double land_field(uint64_t seed, int x, int y)
{
    double v = 0;
    for (int o = 0; o < LAND_OCTAVES; o++) {
        const int c = land_cell[o];
        const int64_t ix = x / c, iy = y / c;
        const double fx = (double)(x % c) / c, fy = (double)(y % c) / c;
        const double sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy);
        const double a = lattice(seed, o, ix, iy), b = lattice(seed, o, ix + 1, iy);
        const double d = lattice(seed, o, ix, iy + 1), e = lattice(seed, o, ix + 1, iy + 1);
        v += land_amp[o] * ((a + (b - a) * sx) + ((d + (e - d) * sx) - (a + (b - a) * sx)) * sy);
    }
    return v;
}

/* A land-cover-like map: the smooth field cut at its own quantiles into
 * `classes` classes of about equal area, the class labels shuffled (a
 * window sees a handful of classes, neighbours share most). */
static int make_landscape(uint8_t *img, int w, int h, uint32_t classes, uint64_t seed)
{
    const size_t n = (size_t)w * (size_t)h, step = n / 65536 + 1;
    double *field = malloc(n * sizeof *field), *sample = malloc((n / step + 1) * sizeof *sample);
    if (field == NULL || sample == NULL) {
        free(field);
        free(sample);
        return -1;
    }
    size_t ns = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            field[(size_t)y * w + x] = land_field(seed, x, y);
    for (size_t i = 0; i < n; i += step)
        sample[ns++] = field[i];
    qsort(sample, ns, sizeof *sample, cmp_double);
    double cut[256];
    uint8_t label[256];
    for (uint32_t c = 0; c < classes; c++) {
        cut[c] = sample[(ns - 1) * (c + 1) / classes];
        label[c] = (uint8_t)c;
    }
    rng_state = seed | 1;
    for (uint32_t c = classes - 1; c > 0; c--) {
        uint32_t k = (uint32_t)(rng() % (c + 1));
        uint8_t t = label[c];
        label[c] = label[k];
        label[k] = t;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t lo = 0, hi = classes - 1; /* the first cut >= the value */
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (cut[mid] >= field[i])
                hi = mid;
            else
                lo = mid + 1;
        }
        img[i] = label[lo];
    }
    free(field);
    free(sample);
    return 0;
}

/* The file's samples mirrored to fill w x h (a small file still gives a
 * full-size image whose windows see the file's own neighbourhoods). */
static void fill_from_file(const file_set *f, void *img, int w, int h)
{
    const size_t ss = winent_dtype_size(f->dtype);
    for (int y = 0; y < h; y++) {
        int fy = y % (2 * f->fh);
        fy = fy < f->fh ? fy : 2 * f->fh - 1 - fy;
        for (int x = 0; x < w; x++) {
            int fx = x % (2 * f->fw);
            fx = fx < f->fw ? fx : 2 * f->fw - 1 - fx;
            memcpy((char *)img + ((size_t)y * w + x) * ss,
                   (const char *)f->samples + ((size_t)fy * f->fw + fx) * ss, ss);
        }
    }
}

/* The set's image, the same whatever else is measured (seed per set). */
static void *make_image(const value_set *vs, const file_set *f, int seed_index, int w, int h)
{
    size_t n = (size_t)w * (size_t)h;
    const winent_dtype dtype = vs->kind == SET_FILE ? f->dtype : vs->dtype;
    void *buf = winent_cuda_host_alloc(n * winent_dtype_size(dtype));
    if (buf == NULL)
        return NULL;
    rng_state = 0x243F6A8885A308D3ull + 0x9E3779B97F4A7C15ull * (uint64_t)seed_index;
    if (vs->kind == SET_FILE) {
        fill_from_file(f, buf, w, h);
        return buf;
    }
    if (vs->kind == SET_LANDSCAPE) {
        if (make_landscape(buf, w, h, vs->values, rng_state) != 0) {
            winent_cuda_host_free(buf);
            return NULL;
        }
        return buf;
    }
    for (size_t i = 0; i < n; i++) {
        switch (vs->dtype) {
        case WINENT_U8: ((uint8_t *)buf)[i] = (uint8_t)(rng() % vs->values); break;
        case WINENT_U16: ((uint16_t *)buf)[i] = (uint16_t)(rng() % vs->values); break;
        case WINENT_I32: ((int32_t *)buf)[i] = (int32_t)(rng() % vs->values); break;
        default: /* f32: 24 random bits, exact in [0, 1) */
            ((float *)buf)[i] = (float)(rng() >> 40) * (1.0f / 16777216.0f);
            break;
        }
    }
    return buf;
}

/* A window's name in the tables: "5x5", "4x6" (width x height), "disk3". */
static const char *win_name(bench_win w, char *buf, size_t n)
{
    if (w.disk)
        snprintf(buf, n, "disk%d", w.kx / 2);
    else
        snprintf(buf, n, "%dx%d", w.kx, w.ky);
    return buf;
}

/* Its key in the `cell` lines and the CSV: K for a square (a disk's side,
 * shape=disk beside it; the CSV's -K), WxH for any other rectangle. */
static const char *win_key(bench_win w, int csv, char *buf, size_t n)
{
    if (w.kx != w.ky)
        snprintf(buf, n, "%dx%d", w.kx, w.ky);
    else
        snprintf(buf, n, "%d", csv && w.disk ? -w.kx : w.kx);
    return buf;
}

static void set_compute_opts(const value_set *vs, const file_set *f, bench_win k,
                             winent_compute_opts *o)
{
    winent_compute_opts_default(o);
    o->kx = k.kx;
    o->ky = k.ky;
    o->disk = k.disk;
    o->dtype = vs->dtype;
    if (vs->bins) {
        o->bins = vs->bins;
        o->range_lo = 0.0;
        o->range_hi = 1.0;
    }
    if (vs->kind == SET_FILE) {
        o->dtype = f->dtype;
        o->has_nodata = f->has_nodata;
        o->nodata = f->nodata;
        if (winent_dtype_is_float(f->dtype)) {
            o->bins = 256;
            o->range_lo = f->lo;
            o->range_hi = f->hi;
        }
    }
}

/* --input's first band into `f` (floats: their finite range as well);
 * 0, or -1 after a message. */
static int load_file_set(const kernels_opts *o, file_set *f)
{
    winent_source_opts so;
    winent_source *s = NULL;
    winent_err err;
    winent_err_clear(&err);
    memset(&so, 0, sizeof so);
    memset(f, 0, sizeof *f);
    so.path = o->input;
    so.width = o->input_w;
    so.height = o->input_h;
    so.has_dtype = o->input_has_dtype;
    so.dtype = o->input_dtype;
    so.bands = 1;
    so.band = 1;
    so.threads = 1;
    if (winent_source_open(&so, &s, &err) != WINENT_OK) {
        fprintf(stderr, PROG ": --input %s: %s\n", o->input, err.msg);
        return -1;
    }
    const winent_source_info *info = winent_source_get_info(s);
    f->fw = info->width;
    f->fh = info->height;
    f->dtype = info->dtype;
    f->has_nodata = info->has_nodata;
    f->nodata = info->nodata;
    const size_t n = (size_t)f->fw * (size_t)f->fh;
    f->samples = malloc(n * winent_dtype_size(f->dtype) + 1);
    if (f->samples == NULL || winent_source_read(s, f->fh, f->samples, &err) != WINENT_OK) {
        fprintf(stderr, PROG ": --input %s: %s\n", o->input, f->samples ? err.msg : "out of memory");
        winent_source_free(s);
        free(f->samples);
        f->samples = NULL;
        return -1;
    }
    winent_source_free(s);
    if (winent_dtype_is_float(f->dtype)) {
        f->lo = INFINITY;
        f->hi = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            double v = f->dtype == WINENT_F32 ? (double)((const float *)f->samples)[i]
                                              : ((const double *)f->samples)[i];
            if (isfinite(v) && !(f->has_nodata && v == f->nodata)) {
                f->lo = v < f->lo ? v : f->lo;
                f->hi = v > f->hi ? v : f->hi;
            }
        }
        if (!(f->hi > f->lo)) { /* constant or empty: any valid range */
            f->lo = isfinite(f->lo) ? f->lo : 0.0;
            f->hi = f->lo + 1.0;
        }
    }
    printf("# real: %s, %dx%d %s%s, mirrored to fill the image\n", o->input, f->fw, f->fh,
           winent_dtype_name(f->dtype), winent_dtype_is_float(f->dtype) ? ", --bins 256 over its range" : "");
    return 0;
}

/* Bytes per pixel of the GPU engine's code plane, 0 when the samples are
 * the plane (no codes pass), by the rules of docs/GPU-NOTES.md ("Code plane
 * chosen once from the plan"). engine_cuda.h does not tell which plane an
 * engine uses, so this follows the documented rule, not the engine. */
static int code_plane_bytes(const winent_plan *p)
{
    const winent_code_rule *r = &p->rule;
    const winent_dtype t = p->opts.dtype;
    int b = 4;
    if (!p->can_skip && p->ncodes <= 256)
        b = 1;
    else if ((!p->can_skip && p->ncodes <= 65536) || (p->can_skip && p->ncodes <= 65535))
        b = 2;
    int samples_are_codes =
        !r->quantize && !(r->has_nodata && r->nodata_int_ok) &&
        ((t == WINENT_U8 && b == 1) || (t == WINENT_U16 && b == 2) || t == WINENT_U32);
    return samples_are_codes ? 0 : b;
}

/* ---- Calibration ------------------------------------------------------------ */

/* One run computing output rows [0, rows) of the image: its seconds. */
typedef winent_status (*run_rows_fn)(void *ctx, int rows, double *seconds, winent_err *err);

/* Rows for one run of about `budget` seconds, at most `height`: a run of
 * CALIB_ROWS rows, then runs of as many rows as the last run's rate fills
 * the budget with, until a run after the first (which pays first-use costs:
 * lazy kernel loading, scratch) takes a quarter of the budget, or the whole
 * image. The time per row only falls as the band grows (fixed costs shared,
 * more threads or blocks busy), so no run goes much past the budget. */
static winent_status calibrate_rows(run_rows_fn run, void *ctx, int height, double budget,
                                    int *rows_out, winent_err *err)
{
    int rows = height < CALIB_ROWS ? height : CALIB_ROWS;
    for (int i = 0; i < 4; i++) {
        double t;
        WINENT_TRY(run(ctx, rows, &t, err));
        double want = t > 0 ? rows * budget / t : (double)height;
        int next = want >= height ? height : want < 1 ? 1 : (int)want;
        if ((i > 0 && t >= budget / 4) || rows == height || i == 3) {
            *rows_out = next;
            return WINENT_OK;
        }
        rows = next;
    }
    return WINENT_OK; /* not reached */
}

/* A chunk of output rows [0, rows) of the whole image held at `img`. */
static winent_chunk top_chunk(const void *img, winent_dtype t, int w, int h, int ry, int rows)
{
    int a, n;
    winent_chunk_input_rows(0, rows, ry, h, &a, &n);
    winent_chunk c = {img, (size_t)w * winent_dtype_size(t), w, h, a, n, 0, rows};
    return c;
}

typedef struct cpu_ctx {
    winent_cpu_engine *e;
    int cpu_clock; /* --cpu-time: the process's CPU time, not the wall clock */
    const winent_plan *p;
    const void *img;
    int w, h;
    float *out; /* borrowed; w x h floats */
} cpu_ctx;

/* Seconds of CPU time this process has used (all its threads). */
static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static winent_status cpu_run(void *ctx, int rows, double *seconds, winent_err *err)
{
    cpu_ctx *x = ctx;
    winent_chunk c = top_chunk(x->img, x->p->opts.dtype, x->w, x->h, x->p->ry, rows);
    double t0 = x->cpu_clock ? cpu_s() : now_s();
    WINENT_TRY(winent_cpu_engine_compute(x->e, &c, x->out, (size_t)x->w, err));
    *seconds = (x->cpu_clock ? cpu_s() : now_s()) - t0;
    return WINENT_OK;
}

typedef struct gpu_ctx {
    winent_gpu_engine *g;
    const winent_plan *p;
    const void *img;
    int w, h;
} gpu_ctx;

static winent_status gpu_run(void *ctx, int rows, double *seconds, winent_err *err)
{
    gpu_ctx *x = ctx;
    winent_chunk c = top_chunk(x->img, x->p->opts.dtype, x->w, x->h, x->p->ry, rows);
    double ms;
    WINENT_TRY(winent_gpu_engine_time_kernel(x->g, &c, 0, 1, &ms, err));
    *seconds = ms * 1e-3;
    return WINENT_OK;
}

/* ---- Measurements ----------------------------------------------------------- */

/* One measurement: a `cell` line on stdout, a CSV row. */
static void report(FILE *csv, const char *set, bench_win k, const char *variant,
                   const char *path, double gpix, double ms, int rows, int width, const char *check)
{
    char key[32];
    printf("cell set=%s k=%s variant=%s path=%s gpix=%.3f ms=%.3f rows=%d check=%s%s\n", set,
           win_key(k, 0, key, sizeof key), variant, path, gpix, ms, rows, check,
           k.disk ? " shape=disk" : "");
    fflush(stdout);
    if (csv)
        fprintf(csv, "%s,%s,%s,%s,%.4f,%.4f,%d,%d,%s\n", set, win_key(k, 1, key, sizeof key),
                variant, path, gpix, ms, rows, width, check);
}

/* The CPU engine on all its threads: calibrated rows, but at least one of
 * the job's bands per thread (fewer rows would leave cores idle and
 * understate the CPU), median of REPS (one run when a run takes over 1 s). */
static winent_status time_cpu(cpu_ctx *x, int threads, double budget, int *rows, double *ms,
                              winent_err *err)
{
    double t[REPS];
    int n = REPS;
    WINENT_TRY(calibrate_rows(cpu_run, x, x->h, budget, rows, err));
    long least = (long)threads * winent_cpu_engine_band_rows(x->e, x->w);
    if (*rows < least)
        *rows = least < x->h ? (int)least : x->h;
    for (int i = 0; i < n; i++) {
        WINENT_TRY(cpu_run(x, *rows, &t[i], err));
        if (i == 0 && t[0] > 1.0)
            n = 1;
    }
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    *ms = t[n / 2] * 1e3;
    return WINENT_OK;
}

/* What one cell's GPU variants share. */
typedef struct cell_ctx {
    const kernels_opts *o;
    const winent_plan *p;
    const void *img;        /* borrowed: the set's image */
    winent_cpu_engine *cpu; /* borrowed: the reference of the checks */
    float *got, *ref;       /* borrowed: width x height floats each */
} cell_ctx;

/* One GPU variant's measurement. */
typedef struct variant_result {
    char path[PATH_LEN]; /* the engine's kernel path */
    int measured;        /* 0: the path of a variant measured before in the cell */
    int rows;            /* output rows [0, rows) timed and checked */
    double ms;           /* median kernel time */
    int same;            /* the checked rows are the CPU engine's bits */
    char where[160];     /* when not: the first difference */
} variant_result;

/* The GPU's output rows [0, rows) (in x->got) against the CPU engine's on
 * the first, middle and last rows, computed on one thread into x->ref. */
static winent_status check_rows(const cell_ctx *x, const winent_chunk *c, variant_result *v,
                                winent_err *err)
{
    const int w = c->width, rows = c->y1 - c->y0;
    const int ys[3] = {0, rows / 2, rows - 1};
    v->same = 1;
    for (int i = 0; i < 3; i++) {
        const size_t at = (size_t)ys[i] * (size_t)w;
        WINENT_TRY(
            winent_cpu_engine_compute_rows(x->cpu, 0, c, ys[i], ys[i] + 1, x->ref, (size_t)w, err));
        if (memcmp(x->got + at, x->ref + at, (size_t)w * sizeof *x->ref) != 0) {
            int col = 0;
            while (memcmp(&x->got[at + col], &x->ref[at + col], sizeof *x->ref) == 0)
                col++;
            snprintf(v->where, sizeof v->where, "row %d column %d: GPU %.9g, CPU %.9g", ys[i], col,
                     (double)x->got[at + col], (double)x->ref[at + col]);
            v->same = 0;
            return WINENT_OK;
        }
    }
    return WINENT_OK;
}

/* One GPU variant of a cell, on an engine made with WINENT_GPU_KERNEL set
 * to it; not measured when its path is one of the `nseen` in `seen`. */
static winent_status time_gpu_variant(const cell_ctx *x, const char *variant,
                                      char (*seen)[PATH_LEN], int nseen, variant_result *v,
                                      winent_err *err)
{
    winent_status st = WINENT_OK;
    const kernels_opts *o = x->o;
    gpu_ctx g = {NULL, x->p, x->img, o->width, o->height};
    memset(v, 0, sizeof *v);
    if (setenv("WINENT_GPU_KERNEL", variant, 1) != 0)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "setenv WINENT_GPU_KERNEL failed");
    WINENT_TRY_GOTO(st,
                    winent_gpu_engine_create(x->p, o->device, o->width, o->height, 1, &g.g, err));
    snprintf(v->path, sizeof v->path, "%s", winent_gpu_engine_path(g.g));
    for (int i = 0; i < nseen; i++)
        if (strcmp(seen[i], v->path) == 0)
            goto fail; /* the kernel of a variant measured before */
    WINENT_TRY_GOTO(st, calibrate_rows(gpu_run, &g, o->height, o->budget, &v->rows, err));
    winent_chunk c = top_chunk(x->img, x->p->opts.dtype, o->width, o->height, x->p->ry, v->rows);
    WINENT_TRY_GOTO(st, winent_gpu_engine_time_kernel(g.g, &c, 1, REPS, &v->ms, err));
    WINENT_TRY_GOTO(st, winent_gpu_engine_fetch_output(g.g, o->width, v->rows, x->got, err));
    WINENT_TRY_GOTO(st, check_rows(x, &c, v, err));
    v->measured = 1;
fail:
    winent_gpu_engine_free(g.g);
    unsetenv("WINENT_GPU_KERNEL");
    return st;
}

/* Every measurement of one cell into `r`; failures are printed and marked
 * in r->failed, differences counted in *differs. */
static void run_cell(const kernels_opts *o, const value_set *vs, const file_set *f, bench_win k,
                     const void *img, int use_gpu, float *got, float *ref, FILE *csv,
                     cell_result *r, int *differs)
{
    winent_compute_opts co;
    winent_err err;
    winent_plan *p = NULL;
    winent_cpu_engine *cpu = NULL;
    char cpu_path[32], kn[32];
    win_name(k, kn, sizeof kn);
    memset(r, 0, sizeof *r);
    r->gpu_variant = -1;
    winent_err_clear(&err);
    set_compute_opts(vs, f, k, &co);
    co.measure = o->measure;
    co.renyi_q = o->renyi_q;
    co.glcm_angles = o->angles;
    if (o->levels > 0) { /* N bins over the set's values (the co-occurrence measures' levels) */
        co.bins = (uint32_t)o->levels;
        co.range_lo = 0.0;
        co.range_hi = vs->bins ? 1.0 : vs->values ? (double)vs->values : 256.0;
    }
    snprintf(cpu_path, sizeof cpu_path, "cpu/t%d", o->threads);
    if (winent_plan_create(&co, &p, &err) != WINENT_OK ||
        winent_cpu_engine_create(p, o->width, o->height, o->threads, &cpu, &err) != WINENT_OK) {
        fprintf(stderr, PROG ": set=%s k=%s: %s\n", vs->name, kn, err.msg);
        r->failed = 1;
        goto done;
    }

    cpu_ctx cx = {cpu, o->cpu_time, p, img, o->width, o->height, ref};
    int rows;
    double ms;
    if (time_cpu(&cx, o->threads, o->budget, &rows, &ms, &err) != WINENT_OK) {
        fprintf(stderr, PROG ": set=%s k=%s variant=cpu: %s\n", vs->name, kn, err.msg);
        r->failed = 1;
    } else {
        r->cpu_gpix = (double)o->width * rows / (ms * 1e-3) / 1e9;
        /* The path the engine's bands took (the last band's). */
        snprintf(cpu_path, sizeof cpu_path, "cpu/t%d/%s", o->threads,
                 winent_cpu_engine_last_path(cpu));
        report(csv, vs->name, k, "cpu", cpu_path, r->cpu_gpix, ms, rows, o->width, "skipped");
    }

    const cell_ctx x = {o, p, img, cpu, got, ref};
    char seen[NVARIANTS][PATH_LEN];
    int nseen = 0;
    for (int vi = 0; use_gpu && vi < o->nvariants; vi++) {
        const char *variant = all_variants[o->variants[vi]];
        variant_result v;
        winent_err_clear(&err);
        if (time_gpu_variant(&x, variant, seen, nseen, &v, &err) != WINENT_OK) {
            fprintf(stderr, PROG ": set=%s k=%s variant=%s: %s\n", vs->name, kn, variant, err.msg);
            r->failed = 1;
            continue;
        }
        if (!v.measured) {
            printf("# set=%s k=%s variant=%s: path %s already measured\n", vs->name, kn, variant,
                   v.path);
            continue;
        }
        snprintf(seen[nseen++], PATH_LEN, "%s", v.path);
        double gpix = (double)o->width * v.rows / (v.ms * 1e-3) / 1e9;
        report(csv, vs->name, k, variant, v.path, gpix, v.ms, v.rows, o->width,
               v.same ? "ok" : "DIFFERS");
        if (!v.same) {
            fprintf(stderr,
                    PROG ": DIFFERS: set=%s k=%s variant=%s path=%s: GPU output is not the "
                         "CPU engine's at %s\n",
                    vs->name, kn, variant, v.path, v.where);
            (*differs)++;
            r->differs = 1;
        } else if (gpix > r->gpu_gpix) {
            r->gpu_gpix = gpix;
            r->gpu_variant = o->variants[vi];
            snprintf(r->gpu_path, sizeof r->gpu_path, "%s", v.path);
        }
    }
done:
    winent_cpu_engine_free(cpu);
    winent_plan_free(p);
}

/* ---- Tables ----------------------------------------------------------------- */

static void table_head(const kernels_opts *o, const char *title)
{
    printf("\n## %s\n\n| set |", title);
    char wn[32];
    for (int j = 0; j < o->nwindows; j++)
        printf(" %s |", win_name(o->windows[j], wn, sizeof wn));
    printf("\n|---|");
    for (int j = 0; j < o->nwindows; j++)
        printf("---|");
    printf("\n");
}

/* A Markdown cell: '|' escaped (kernel paths hold some). */
static void print_escaped(const char *s)
{
    for (; *s; s++)
        printf(*s == '|' ? "\\|" : "%c", *s);
}

/* which: 0 GPU Gpixel/s, 1 winning variant, 2 CPU Gpixel/s, 3 GPU / CPU. */
static void print_table(const kernels_opts *o, cell_result (*res)[MAX_WINDOWS], int which,
                        const char *title)
{
    table_head(o, title);
    for (int i = 0; i < o->nsets; i++) {
        printf("| %s |", all_sets[o->sets[i]].name);
        for (int j = 0; j < o->nwindows; j++) {
            const cell_result *r = &res[i][j];
            if (which == 2) {
                if (r->cpu_gpix > 0)
                    printf(" %.3f |", r->cpu_gpix);
                else
                    printf(" %s |", r->failed ? "error" : "-");
                continue;
            }
            /* A GPU cell says when a variant differed or failed. */
            const char *note = r->differs ? "DIFFERS" : r->failed ? "error" : NULL;
            if (r->gpu_gpix <= 0 || (which == 3 && r->cpu_gpix <= 0)) {
                printf(" %s |", note ? note : "-");
                continue;
            }
            if (which == 0) {
                printf(" %.2f", r->gpu_gpix);
            } else if (which == 1) {
                printf(" %s: ", all_variants[r->gpu_variant]);
                print_escaped(r->gpu_path);
            } else {
                printf(" %.1fx", r->gpu_gpix / r->cpu_gpix);
            }
            if (note)
                printf(" (%s)", note);
            printf(" |");
        }
        printf("\n");
    }
}

static void print_roofline(const kernels_opts *o, const file_set *f,
                           cell_result (*res)[MAX_WINDOWS], double d2d)
{
    printf("\n## Roofline of the GPU kernel (HBM: device-to-device copy %.0f GB/s, read + "
           "write)\n\n",
           d2d);
    printf("| set | dtype | samples read B/px | code plane B/px | output B/px | total B/px | "
           "HBM bound Gpixel/s | best cell (share of the bound) |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < o->nsets; i++) {
        const value_set *vs = &all_sets[o->sets[i]];
        winent_compute_opts co;
        winent_plan *p = NULL;
        winent_err err;
        winent_err_clear(&err);
        set_compute_opts(vs, f, (bench_win){3, 3, 0}, &co); /* the plane: any window */
        if (winent_plan_create(&co, &p, &err) != WINENT_OK) {
            fprintf(stderr, PROG ": set=%s: %s\n", vs->name, err.msg);
            continue;
        }
        const int in = (int)winent_dtype_size(co.dtype), plane = code_plane_bytes(p);
        const int total = in + 2 * plane + 4;
        const double bound = d2d / total;
        int best = -1;
        for (int j = 0; j < o->nwindows; j++)
            if (res[i][j].gpu_gpix > 0 && (best < 0 || res[i][j].gpu_gpix > res[i][best].gpu_gpix))
                best = j;
        printf("| %s | %s | %d | ", vs->name, winent_dtype_name(co.dtype), in);
        if (plane)
            printf("%d + %d (%d-bit codes written, read) |", plane, plane, 8 * plane);
        else
            printf("0 (the samples are the codes) |");
        printf(" 4 | %d | %.1f |", total, bound);
        char wn[32];
        if (best >= 0)
            printf(" %.2f at %s (%.0f %%) |\n", res[i][best].gpu_gpix,
                   win_name(o->windows[best], wn, sizeof wn), 100.0 * res[i][best].gpu_gpix / bound);
        else
            printf(" - |\n");
        winent_plan_free(p);
    }
    printf("\nBytes per pixel at least: input samples read once, the code plane written "
           "and read once when the samples are not already the codes (its width by the "
           "rules of docs/GPU-NOTES.md, not read from the engine), 4 bytes of float output "
           "written; halo rows and re-reads through the caches not counted. Bound = D2D "
           "bandwidth / bytes per pixel.\n");
}

/* ---- Options ---------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: winent-bench kernels [--device N] [--size WxH] [--threads N]\n"
            "           [--windows 3,4x6,disk3,...] [--sets 16,256,...] [--variants auto,thread,warp,few,cmp,groups,colpack,dense,block,sparse]\n"
            "           [--quick] [--cpu-only] [--measure M] [--levels N] [--angles A,...] [--cpu-time] [--csv FILE] [--budget S]\n"
            "           [--input FILE [--input-size WxH --input-dtype T]]\n"
            "  The GPU window kernels alone (device memory to device memory, each variant\n"
            "  forced through WINENT_GPU_KERNEL, checked bit for bit against the CPU engine\n"
            "  on the first, middle and last rows) and the CPU engine in memory, for every\n"
            "  value set x square window: a `cell ...` line per measurement, then Markdown\n"
            "  tables of Gpixel/s (GPU, winning variant, CPU, GPU/CPU) and the HBM roofline.\n"
            "  --device N       GPU to use (default 0)\n"
            "  --size WxH       image (default 4096x4096)\n"
            "  --threads N      CPU engine threads (default: the online CPUs)\n"
            "  --windows LIST   windows as winent-stream's --window takes them: K or WxH,\n"
            "                   sides 1..255, odd or even (default 3,5,9,15,31,63,127,255),\n"
            "                   or diskR for a circular window of radius R (--disk R):\n"
            "                   7,disk3 times a disk beside the square of its diameter\n"
            "  --sets LIST      value sets (default all; real with --input): 16, 256\n"
            "                   (u8 uniform 0..15, 0..255), 64 (u8 landscape of 64 classes,\n"
            "                   like a land-cover map), 4096, 65536 (u16 0..4095, 0..65535),\n"
            "                   1e6 (i32 0..999999), f32-256, f32-4096 (f32 in [0,1), --bins\n"
            "                   256|4096 --range 0:1), real (--input's samples)\n"
            "  --variants LIST  GPU kernel variants (default auto,thread,warp,few,cmp,groups,colpack,\n"
            "                   dense,block,sparse)\n"
            "  --quick          1024x1024, windows 3,15,63, sets 16,65536,f32-4096\n"
            "                   (--size, --windows, --sets given as well win)\n"
            "  --cpu-only       the CPU table alone\n"
            "  --measure M      the measure (winent-stream's --measure; default entropy)\n"
            "  --levels N       the set's values quantized into N bins (the co-occurrence\n"
            "                   measures' levels: --levels 32 --sets 256 is 32 levels)\n"
            "  --angles LIST    the co-occurrence measures' directions (default 0,45,90,135)\n"
            "  --cpu-time       time the CPU engine by the process's CPU time, not the wall\n"
            "                   clock (Gpixel/s per core busy): on a machine shared with\n"
            "                   other work, with --threads 1, the time our core really ran\n"
            "  --csv FILE       the measurements as CSV as well\n"
            "  --input FILE     the `real` set: the file's first band (any input winent-stream\n"
            "                   reads), mirrored to fill --size; its nodata counts as nodata;\n"
            "                   integers by distinct value, floats --bins 256 over their range\n"
            "  --input-size WxH, --input-dtype T  the layout of a raw --input\n"
            "  --budget S       seconds one timed run should take (default 0.25): each\n"
            "                   engine times output rows [0, R) of the image, R calibrated\n"
            "                   to the budget (at most the image), median of 3\n"
            "  Exit 0; 1 when a GPU output DIFFERS from the CPU engine's or a measurement\n"
            "  failed; 2 usage; 5 --device not visible. No CUDA device: CPU table only.\n");
}

/* Splits comma list `s` into `buf` (a copy): at most `max` tokens, -1 when
 * there are more, one is empty or it does not fit. */
static int split_list(const char *s, char *buf, size_t buf_len, char **tok, int max)
{
    if (strlen(s) >= buf_len)
        return -1;
    strcpy(buf, s);
    int n = 0;
    for (char *p = buf;; p++) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (*p == '\0' || n == max)
            return -1;
        tok[n++] = p;
        if (comma == NULL)
            return n;
        p = comma;
    }
}

static int set_index(const char *name)
{
    for (int i = 0; i < NSETS; i++)
        if (!strcmp(name, all_sets[i].name))
            return i;
    return -1;
}

static int variant_index(const char *name)
{
    for (int i = 0; i < NVARIANTS; i++)
        if (!strcmp(name, all_variants[i]))
            return i;
    return -1;
}

/* List option `a` with value `v` into `out`: 0, or -1 after a message. */
static int parse_list(const char *a, const char *v, int *out, int max, int *n)
{
    char buf[512], *tok[MAX_WINDOWS];
    int cnt = split_list(v, buf, sizeof buf, tok, max);
    if (cnt < 0) {
        fprintf(stderr, PROG ": %s %s: a comma list of at most %d items, none empty\n", a, v, max);
        return -1;
    }
    for (int i = 0; i < cnt; i++) {
        int x = -1;
        char end;
        if (!strcmp(a, "--sets")) {
            x = set_index(tok[i]);
        } else if (!strcmp(a, "--angles")) {
            if (sscanf(tok[i], "%d%c", &x, &end) != 1 || x < 0 || x > 135 || x % 45 != 0)
                x = -1;
        } else {
            x = variant_index(tok[i]);
        }
        if (x < 0) {
            fprintf(stderr, PROG ": %s: bad item '%s' (see --help)\n", a, tok[i]);
            return -1;
        }
        out[i] = x;
    }
    *n = cnt;
    return 0;
}

/* One item of --windows: K, WxH (sides 1..255, either parity) or diskR
 * (R 0..127); 0, or -1 when it is none. */
static int parse_window(const char *t, bench_win *w)
{
    int a, b;
    char end;
    w->disk = strncmp(t, "disk", 4) == 0;
    if (w->disk) {
        if (sscanf(t + 4, "%d%c", &a, &end) != 1 || a < 0 || a > 127)
            return -1;
        w->kx = w->ky = 2 * a + 1;
        return 0;
    }
    if (sscanf(t, "%d%c", &a, &end) == 1)
        b = a;
    else if (sscanf(t, "%d%*[xX]%d%c", &a, &b, &end) != 2)
        return -1;
    if (a < 1 || a > 255 || b < 1 || b > 255)
        return -1;
    w->kx = a;
    w->ky = b;
    return 0;
}

/* --windows LIST into o->windows: 0, or -1 after a message. */
static int parse_windows(const char *a, const char *v, kernels_opts *o)
{
    char buf[512], *tok[MAX_WINDOWS];
    int cnt = split_list(v, buf, sizeof buf, tok, MAX_WINDOWS);
    if (cnt < 0) {
        fprintf(stderr, PROG ": %s %s: a comma list of at most %d items, none empty\n", a, v,
                MAX_WINDOWS);
        return -1;
    }
    for (int i = 0; i < cnt; i++)
        if (parse_window(tok[i], &o->windows[i]) != 0) {
            fprintf(stderr, PROG ": %s: bad item '%s' (see --help)\n", a, tok[i]);
            return -1;
        }
    o->nwindows = cnt;
    return 0;
}

/* 0 to go on, else *code is the exit code (--help: 0). */
static int parse_opts(int argc, char **argv, kernels_opts *o, int *code)
{
    int quick = 0, have_size = 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    memset(o, 0, sizeof *o);
    o->width = o->height = 4096;
    o->threads = cpus > 0 ? (int)cpus : 1;
    o->budget = 0.25;
    o->nvariants = NVARIANTS;
    for (int i = 0; i < NVARIANTS; i++)
        o->variants[i] = i;
    *code = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char end;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            *code = 0;
            return -1;
        } else if (!strcmp(a, "--quick")) {
            quick = 1;
        } else if (!strcmp(a, "--cpu-only")) {
            o->cpu_only = 1;
        } else if (!strcmp(a, "--cpu-time")) {
            o->cpu_time = 1;
        } else if (v == NULL) {
            fprintf(stderr, PROG ": bad option or missing value: %s (see --help)\n", a);
            return -1;
        } else if (!strcmp(a, "--device") && sscanf(v, "%d%c", &o->device, &end) == 1 &&
                   o->device >= 0) {
            i++;
        } else if (!strcmp(a, "--size") && sscanf(v, "%dx%d%c", &o->width, &o->height, &end) == 2 &&
                   o->width > 0 && o->height > 0) {
            have_size = 1, i++;
        } else if (!strcmp(a, "--threads") && sscanf(v, "%d%c", &o->threads, &end) == 1 &&
                   o->threads > 0) {
            i++;
        } else if (!strcmp(a, "--budget") && sscanf(v, "%lf%c", &o->budget, &end) == 1 &&
                   o->budget > 0 && o->budget <= 60) {
            i++;
        } else if (!strcmp(a, "--csv")) {
            o->csv = v, i++;
        } else if (!strcmp(a, "--input")) {
            o->input = v, i++;
        } else if (!strcmp(a, "--input-size") &&
                   sscanf(v, "%dx%d%c", &o->input_w, &o->input_h, &end) == 2 && o->input_w > 0 &&
                   o->input_h > 0) {
            i++;
        } else if (!strcmp(a, "--input-dtype")) {
            int t = 0;
            while (t < WINENT_DTYPE_COUNT && strcmp(v, winent_dtype_name((winent_dtype)t)))
                t++;
            if (t == WINENT_DTYPE_COUNT) {
                fprintf(stderr, PROG ": --input-dtype %s: use u8, i8, u16, i16, u32, i32, f32 or "
                                     "f64\n", v);
                return -1;
            }
            o->input_dtype = (winent_dtype)t, o->input_has_dtype = 1, i++;
        } else if (!strcmp(a, "--measure")) {
            winent_error e;
            if (winent_measure_parse(v, &o->measure, &o->renyi_q, &e) != WINENT_OK) {
                fprintf(stderr, PROG ": %s\n", e.message);
                return -1;
            }
            i++;
        } else if (!strcmp(a, "--levels") && sscanf(v, "%d%c", &o->levels, &end) == 1 &&
                   o->levels >= 1) {
            i++;
        } else if (!strcmp(a, "--angles")) {
            int deg[4], n = 0;
            if (parse_list(a, v, deg, 4, &n))
                return -1;
            for (int k = 0; k < n; k++)
                o->angles |= 1u << (deg[k] / 45);
            i++;
        } else if (!strcmp(a, "--windows")) {
            if (parse_windows(a, v, o))
                return -1;
            i++;
        } else if (!strcmp(a, "--sets")) {
            if (parse_list(a, v, o->sets, NSETS, &o->nsets))
                return -1;
            i++;
        } else if (!strcmp(a, "--variants")) {
            if (parse_list(a, v, o->variants, NVARIANTS, &o->nvariants))
                return -1;
            i++;
        } else {
            fprintf(stderr, PROG ": bad option or value: %s %s (see --help)\n", a, v);
            return -1;
        }
    }
    /* Defaults of what was not given; --quick's where it was. */
    if (quick && !have_size)
        o->width = o->height = 1024;
    if (o->nwindows == 0 && quick) {
        static const bench_win qw[] = {{3, 3, 0}, {15, 15, 0}, {63, 63, 0}};
        memcpy(o->windows, qw, sizeof qw);
        o->nwindows = 3;
    } else if (o->nwindows == 0) {
        memcpy(o->windows, default_windows, sizeof default_windows);
        o->nwindows = (int)(sizeof default_windows / sizeof default_windows[0]);
    }
    if (o->nsets == 0 && quick) {
        o->sets[0] = set_index("16");
        o->sets[1] = set_index("65536");
        o->sets[2] = set_index("f32-4096");
        o->nsets = 3;
    } else if (o->nsets == 0) {
        for (int i = 0; i < NSETS; i++)
            if (all_sets[i].kind != SET_FILE || o->input)
                o->sets[o->nsets++] = i;
    }
    for (int i = 0; i < o->nsets; i++)
        if (all_sets[o->sets[i]].kind == SET_FILE && o->input == NULL) {
            fprintf(stderr, PROG ": --sets real: needs --input FILE\n");
            return -1;
        }
    return 0;
}

/* ---- Main ------------------------------------------------------------------- */

int bench_kernels_main(int argc, char **argv)
{
    kernels_opts o;
    int code;
    if (parse_opts(argc, argv, &o, &code))
        return code;

    winent_err err;
    winent_err_clear(&err);
    const int gpus = o.cpu_only ? 0 : winent_cuda_device_count();
    if (gpus > 0 && o.device >= gpus) {
        fprintf(stderr, PROG ": --device %d: only %d GPU(s) visible\n", o.device, gpus);
        return 5;
    }
    const int use_gpu = gpus > 0;
    char name[128] = "";
    winent_cuda_bandwidth bw = {0, 0, 0, 0};
    if (use_gpu &&
        (winent_cuda_device_name(o.device, name, sizeof name, &err) != WINENT_OK ||
         winent_cuda_measure_bandwidth(o.device, (size_t)256 << 20, 5, &bw, &err) != WINENT_OK)) {
        fprintf(stderr, PROG ": GPU %d: %s\n", o.device, err.msg);
        return 5;
    }

    const size_t npix = (size_t)o.width * (size_t)o.height;
    float *got = malloc(npix * sizeof *got), *ref = malloc(npix * sizeof *ref);
    cell_result(*res)[MAX_WINDOWS] = calloc((size_t)o.nsets, sizeof *res);
    FILE *csv = NULL;
    file_set fs;
    memset(&fs, 0, sizeof fs);
    int rc = 0, differs = 0, failed = 0;
    if (got == NULL || ref == NULL || res == NULL) {
        fprintf(stderr, PROG ": out of memory for a %dx%d image\n", o.width, o.height);
        rc = 1;
        goto done;
    }
    memset(got, 0, npix * sizeof *got); /* fault the pages in before timing */
    memset(ref, 0, npix * sizeof *ref);
    if (o.csv && (csv = fopen(o.csv, "w")) == NULL) {
        fprintf(stderr, PROG ": %s: cannot be written\n", o.csv);
        rc = 1;
        goto done;
    }
    if (csv)
        fprintf(csv, "set,k,variant,path,gpix,ms,rows,width,check\n");
    if (o.input && load_file_set(&o, &fs) != 0) {
        rc = 1;
        goto done;
    }

    printf("# " PROG ": image %dx%d, CPU engine on %d threads, budget %.3g s per run, "
           "median of %d%s\n",
           o.width, o.height, o.threads, o.budget, REPS,
           o.cpu_time ? ", CPU timed by the process's CPU time" : "");
    if (use_gpu)
        printf("# GPU %d %s: D2D %.0f GB/s\n", o.device, name, bw.d2d);
    fflush(stdout);

    for (int i = 0; i < o.nsets; i++) {
        const value_set *vs = &all_sets[o.sets[i]];
        void *img = make_image(vs, &fs, o.sets[i], o.width, o.height);
        if (img == NULL) {
            fprintf(stderr, PROG ": out of memory for a %dx%d image\n", o.width, o.height);
            rc = 1;
            goto done;
        }
        for (int j = 0; j < o.nwindows; j++) {
            run_cell(&o, vs, &fs, o.windows[j], img, use_gpu, got, ref, csv, &res[i][j], &differs);
            failed |= res[i][j].failed;
        }
        winent_cuda_host_free(img);
    }

    if (use_gpu) {
        print_table(&o, res, 0,
                    "GPU kernel alone, device memory to device memory (Gpixel/s, best variant)");
        print_table(&o, res, 1, "Winning GPU variant: kernel path");
    }
    print_table(&o, res, 2, "CPU engine in memory (Gpixel/s)");
    if (use_gpu) {
        print_table(&o, res, 3, "GPU / CPU");
        print_roofline(&o, &fs, res, bw.d2d);
    } else {
        printf("\nGPU tables skipped: %s.\n",
               o.cpu_only ? "--cpu-only" : "no CUDA device is visible");
    }
    if (differs) {
        fprintf(stderr, PROG ": %d GPU measurement(s) DIFFER from the CPU engine\n", differs);
        printf("\n**%d GPU measurement(s) DIFFER from the CPU engine** (lines check=DIFFERS)\n",
               differs);
    }
    rc = differs || failed ? 1 : 0;
done:
    if (csv && fclose(csv) != 0) {
        fprintf(stderr, PROG ": %s: write failed\n", o.csv);
        rc = 1;
    }
    free(fs.samples);
    free(res);
    free(ref);
    free(got);
    return rc;
}
