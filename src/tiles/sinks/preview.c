/* SPDX-License-Identifier: BSD-3-Clause */
/* The quicklook PNG (preview.h): block means summed as rows come, coloured
 * and written with libpng at the end; its world file and PAM file beside
 * it. */
#include "preview.h"

#include <math.h>
#include <png.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "colormap.h"
#include "base/bytes.h"
#include "base/mem.h"
#include "outfile.h"

/* Values in fixed point, 2^-16: a sum of integers is exact, so the means
 * do not depend on the order rows come in or how they were cut. */
#define FIX_ONE 65536.0f
/* Entropies lie in [0, ln 65025] (11.1, the largest window's): clamped to
 * this, a column's sum of SEGMENT_ROWS values fits an int32. */
#define VALUE_MAX    16.0f
#define SEGMENT_ROWS 1024

/* Where a map's values go before they are put in fixed point: v' = (v -
 * off) * scale, in [0, VALUE_MAX] (off 0 and scale 1 for an entropy:
 * v' = v exactly). */
typedef struct value_map {
    float off, scale;
} value_map;

/* Column sums of a segment of rows (sum_columns_body). */
typedef void (*sum_columns_fn)(const float *rows, size_t stride, int nrows, int W, value_map vm,
                               int32_t *restrict sum, int32_t *restrict cnt);

/* One preview row being summed. */
typedef struct row_acc {
    int py;        /* preview row held, -1: free */
    int rows_in;   /* map rows merged so far */
    int64_t *sum;  /* owned while held: pw sums, fixed point, then the counts */
    uint32_t *cnt; /* pw counts of valid values (in the same buffer) */
} row_acc;

/* How the legend is laid out (make_layout), in its own PNG. */
typedef struct layout {
    int s;              /* pixels per font pixel */
    int cw, ch;         /* the legend's width and height */
    int bar_x0, bar_x1; /* the bar's columns [x0, x1) */
    int bar_y0, text_y0;
    char lo[32], mid[32], hi[48];
    int lo_x, mid_x, hi_x; /* text's left edges; mid_x < 0: not drawn */
} layout;

struct png_sink;

/* A PNG being written (the preview, rows as they complete, or its
 * legend). */
typedef struct winent_png {
    png_structp png; /* owned (with info): libpng's state, NULL before the start */
    png_infop info;
    struct png_sink *ps; /* owned: what libpng's callbacks see */
    uint8_t (*cmap)[3];  /* owned: the colour map */
    uint8_t *row;        /* owned: one row, RGBA */
    char *text;          /* owned: the Description, with the stretch */
    int width, height;
    int started;          /* header written */
    int next;             /* next image row to write */
    winent_status failed; /* a failure: nothing more is written */
} winent_png;

struct winent_preview {
    winent_preview_opts o; /* copy; strings borrowed from the caller */
    int W, H, pw, ph;
    int *xb;              /* owned, pw + 1: first map column of each block */
    float *image;         /* owned, pw x ph means; NaN: no valid value */
    pthread_mutex_t lock; /* guards acc[], rows_done, image rows */
    row_acc *acc;         /* owned, nacc accumulators: preview row py in acc[py % nacc] */
    int nacc;
    /* The accumulators' buffers (pw sums, then pw counts), made as rows
     * open and kept for the next: as many as were ever open at once (a
     * few in practice; nacc at most), so they stay hot. */
    int64_t **spare; /* owned: nspare buffers not in use, room for nacc */
    int nspare;
    int rows_done;              /* preview rows complete */
    sum_columns_fn sum_columns; /* for the widest vectors the CPU has */
    value_map vm;               /* the values' map into fixed point's range */
    uint8_t *row_done;          /* owned, ph flags: the image row is complete */
    winent_png out;             /* the PNG, written by one thread (the writer) */
    winent_outfile file;
    int file_open; /* file holds a descriptor or a temporary file */
    /* The colours' stretch: the caller's, or set by winent_preview_write
     * from the image (stretch_of) before the first row is coloured. */
    double lo, hi;
    int stretched;
    /* The files beside the PNG, through temporary files like it; none
     * for a PNG in place: the legend (SIDE_LEGEND), and a georeferenced
     * map's world file and PAM file (SIDE_PGW, SIDE_AUX). */
    winent_outfile side[3];
    int side_open[3];
};

enum { SIDE_PGW, SIDE_AUX, SIDE_LEGEND, SIDE_COUNT };

/* What each file beside the PNG is, for messages. */
static const char *const SIDE_WHAT[SIDE_COUNT] = {"world file", "PAM file", "legend"};

struct winent_preview_scratch {
    int32_t *col_sum;  /* owned, W: one segment's column sums */
    int32_t *col_cnt;  /* owned, W */
    int64_t *blk_sum;  /* owned, pw */
    uint32_t *blk_cnt; /* owned, pw */
};

/* ---- Column sums ---------------------------------------------------------- */

/* One map value in fixed point, and whether it counts. Written so that
 * the compiler makes vector code of the loops below: the NaN test and the
 * clamp act on the float's bits as integers (for floats >= 0 their order
 * is the values'), with no select: GCC keeps a select beside float
 * arithmetic that may trap (-ftrapping-math) as a branch, and so scalar
 * code. */
__attribute__((always_inline)) static inline int32_t fixed_of(const float *v, value_map vm,
                                                              int32_t top, int32_t *valid)
{
    int32_t b;
    const float m = (*v - vm.off) * vm.scale;
    memcpy(&b, &m, sizeof b);
    *valid = (b & 0x7fffffff) <= 0x7f800000; /* not NaN (nodata) */
    b &= -*valid;                            /* NaN: 0 */
    b = b < 0 ? 0 : b;                       /* below 0 (never): 0 */
    b = b > top ? top : b;                   /* above the clamp */
    float q;
    memcpy(&q, &b, sizeof q);
    return (int32_t)(q * FIX_ONE + 0.5f);
}

/* Column sums of `nrows` rows (1..SEGMENT_ROWS) in fixed point, and the
 * columns' counts of valid values: the first row sets, the others add. */
__attribute__((always_inline)) static inline void sum_columns_body(const float *rows, size_t stride,
                                                                   int nrows, int W, value_map vm,
                                                                   int32_t *restrict sum,
                                                                   int32_t *restrict cnt)
{
    int32_t top;
    const float vmax = VALUE_MAX;
    memcpy(&top, &vmax, sizeof top);
#pragma omp simd
    for (int x = 0; x < W; x++) {
        int32_t valid;
        sum[x] = fixed_of(rows + x, vm, top, &valid);
        cnt[x] = valid;
    }
    for (int r = 1; r < nrows; r++) {
        const float *restrict row = rows + (size_t)r * stride;
#pragma omp simd
        for (int x = 0; x < W; x++) {
            int32_t valid;
            sum[x] += fixed_of(row + x, vm, top, &valid);
            cnt[x] += valid;
        }
    }
}

static void sum_columns_base(const float *rows, size_t stride, int nrows, int W, value_map vm,
                             int32_t *restrict sum, int32_t *restrict cnt)
{
    sum_columns_body(rows, stride, nrows, W, vm, sum, cnt);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same loops for wider vectors, picked at run time (the row sums cost
 * about half of what the u8 5x5 engine itself takes on SSE2). */
__attribute__((target("avx2"))) static void sum_columns_avx2(const float *rows, size_t stride,
                                                             int nrows, int W, value_map vm,
                                                             int32_t *restrict sum,
                                                             int32_t *restrict cnt)
{
    sum_columns_body(rows, stride, nrows, W, vm, sum, cnt);
}

__attribute__((target("avx512f"))) static void sum_columns_avx512(const float *rows, size_t stride,
                                                                  int nrows, int W, value_map vm,
                                                                  int32_t *restrict sum,
                                                                  int32_t *restrict cnt)
{
    sum_columns_body(rows, stride, nrows, W, vm, sum, cnt);
}
#endif

static sum_columns_fn pick_sum_columns(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return sum_columns_avx512;
    if (__builtin_cpu_supports("avx2"))
        return sum_columns_avx2;
#endif
    return sum_columns_base;
}

/* ---- Geometry ------------------------------------------------------------ */

void winent_preview_dims(int map_w, int map_h, int size, int *pw, int *ph)
{
    int64_t W = map_w > 0 ? map_w : 1, H = map_h > 0 ? map_h : 1, S = size > 0 ? size : 1;
    int64_t longest = W >= H ? W : H, shortest = W >= H ? H : W;
    int64_t L = S < longest ? S : longest;
    int64_t s = (2 * shortest * L + longest) / (2 * longest); /* rounded */
    if (s < 1)
        s = 1;
    *pw = (int)(W >= H ? L : s);
    *ph = (int)(W >= H ? s : L);
}

/* First map row of preview row py (py = ph gives H). */
static int first_row(const winent_preview *pv, int py)
{
    return (int)(((int64_t)py * pv->H + pv->ph - 1) / pv->ph);
}

/* Preview rows that `map_rows` consecutive map rows can touch. */
static int64_t rows_touched(int64_t map_rows, int map_h, int ph)
{
    int64_t min_block = map_h / ph; /* every block has this many rows or one more */
    if (min_block < 1)
        min_block = 1;
    int64_t n = (map_rows + min_block - 1) / min_block + 2;
    return n < ph ? n : ph;
}

uint64_t winent_preview_fixed_bytes(const winent_preview_opts *o)
{
    int pw, ph;
    winent_preview_dims(o->map_width, o->map_height, o->size, &pw, &ph);
    /* The float image and its rows' flags, block edges, libpng's and
     * zlib's state (about 256 KiB), and the PNG's row (the legend may
     * widen it: a few hundred pixels at most). */
    uint64_t img = winent_huge_round((size_t)pw * (size_t)ph * 4); /* winent_huge_alloc */
    return img + (uint64_t)pw * (uint64_t)ph + (uint64_t)(pw + 1) * 4 + ((uint64_t)1 << 18) +
           ((uint64_t)pw + 1024) * 4 + WINENT_COLORMAP_SIZE * 3 + sizeof(winent_preview);
}

uint64_t winent_preview_scratch_bytes(const winent_preview_opts *o)
{
    int pw, ph;
    winent_preview_dims(o->map_width, o->map_height, o->size, &pw, &ph);
    return (uint64_t)(o->map_width > 0 ? o->map_width : 1) * 8 + (uint64_t)pw * 12;
}

uint64_t winent_preview_rows_bytes(const winent_preview_opts *o, int64_t map_rows)
{
    int pw, ph;
    winent_preview_dims(o->map_width, o->map_height, o->size, &pw, &ph);
    return (uint64_t)rows_touched(map_rows, o->map_height, ph) * ((uint64_t)pw * 12 + 16);
}

/* ---- Checks before any work ---------------------------------------------- */

static const char *extension_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot + 1 : "";
}

/* The folder of `path` resolved (realpath) + "/" + its last component:
 * how two names that do not exist yet are compared. NULL when the folder
 * cannot be resolved. */
static char *canonical_new_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (dir == NULL)
        return NULL;
    char *real = realpath(dir, NULL);
    free(dir);
    if (real == NULL)
        return NULL;
    const char *base = slash ? slash + 1 : path;
    char *out = malloc(strlen(real) + strlen(base) + 2);
    if (out)
        sprintf(out, "%s/%s", real, base);
    free(real);
    return out;
}

/* 1 when the preview would be written where the output goes. */
static int same_destination(const char *preview, const winent_outfile_probe *pp, const char *output)
{
    winent_outfile_probe op;
    winent_err ignore;
    winent_err_clear(&ignore);
    if (strcmp(preview, "-") == 0 && strcmp(output, "-") == 0)
        return 1;
    if (winent_outfile_probe_path(output, &op, &ignore) != WINENT_OK)
        return 0; /* the output's own check says what is wrong with it */
    if (pp->exists && op.exists)
        /* The same file, disk, pipe or socket; a character device such as
         * /dev/null twice is no harm (a terminal: the user's choice). */
        return pp->st.st_dev == op.st.st_dev && pp->st.st_ino == op.st.st_ino &&
               !S_ISCHR(pp->st.st_mode);
    if (pp->exists || op.exists)
        return 0;
    /* Two new names: the same after resolving their folders. */
    if (strcmp(preview, output) == 0)
        return 1;
    char *a = canonical_new_name(preview), *b = canonical_new_name(output);
    int same = a && b && strcmp(a, b) == 0;
    free(a);
    free(b);
    return same;
}

int winent_preview_sidecar_names(const char *path, char *pgw, char *aux, size_t cap)
{
    const char *ext = extension_of(path);
    size_t stem = *ext ? (size_t)(ext - path) : strlen(path) + 1; /* through the dot */
    char w[4] = "pgw";
    if (*ext) { /* the extension's first and last letters, then 'w', as GDAL looks */
        w[0] = ext[0];
        w[1] = ext[strlen(ext) - 1];
    }
    int a = *ext ? snprintf(pgw, cap, "%.*s%s", (int)stem, path, w)
                 : snprintf(pgw, cap, "%s.%s", path, w);
    int b = snprintf(aux, cap, "%s.aux.xml", path);
    return a < 0 || (size_t)a >= cap || b < 0 || (size_t)b >= cap ? -1 : 0;
}

int winent_preview_legend_name(const char *path, char *legend, size_t cap)
{
    const char *ext = extension_of(path);
    int n = *ext ? snprintf(legend, cap, "%.*slegend.%s", (int)(ext - path), path, ext)
                 : snprintf(legend, cap, "%s.legend.png", path);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* The names of the files beside `path` (SIDE_PGW .. SIDE_LEGEND), or -1
 * when one does not fit. */
static int side_names(const char *path, char side[SIDE_COUNT][4096])
{
    return winent_preview_sidecar_names(path, side[SIDE_PGW], side[SIDE_AUX], sizeof side[0]) ||
                   winent_preview_legend_name(path, side[SIDE_LEGEND], sizeof side[0])
               ? -1
               : 0;
}

/* 1 when `name` is the file `in` (same device and inode; only a file or a
 * disk can be overwritten while it is read). */
static int is_input(const char *name, int in_ok, const struct stat *in)
{
    struct stat st;
    return in_ok && stat(name, &st) == 0 && (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) &&
           in->st_dev == st.st_dev && in->st_ino == st.st_ino;
}

winent_status winent_preview_check(const char *preview, const char *input, const char *output,
                                   winent_err *err)
{
    if (preview == NULL || *preview == '\0')
        return WINENT_ERR(err, WINENT_ERR_USAGE, "--preview: give a FILE.png");
    winent_outfile_probe pp;
    WINENT_TRY(winent_outfile_probe_path(preview, &pp, err));
    if (!pp.in_place && strcasecmp(extension_of(preview), "png") != 0)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "--preview '%s': the preview is a PNG: name it .png", preview);
    /* Only a file or a disk can be overwritten while it is read. */
    struct stat in;
    int in_ok =
        input && (strcmp(input, "-") == 0 ? fstat(STDIN_FILENO, &in) == 0 : stat(input, &in) == 0);
    if (in_ok && pp.exists && (S_ISREG(pp.st.st_mode) || S_ISBLK(pp.st.st_mode)) &&
        in.st_dev == pp.st.st_dev && in.st_ino == pp.st.st_ino)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "--preview '%s' is the input: give another preview name", preview);
    if (output && same_destination(preview, &pp, output))
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "--preview '%s' is the output '%s': give another preview name", preview,
                          output);
    /* The legend, world file and PAM file beside it are outputs too. */
    char side[SIDE_COUNT][4096];
    if (!pp.in_place && side_names(preview, side))
        return WINENT_ERR(err, WINENT_ERR_USAGE, "--preview '%s': the name is too long", preview);
    for (int k = 0; !pp.in_place && k < SIDE_COUNT; k++) {
        if (is_input(side[k], in_ok, &in))
            return WINENT_ERR(err, WINENT_ERR_USAGE,
                              "--preview '%s': its %s '%s' is the input: give another preview "
                              "name",
                              preview, SIDE_WHAT[k], side[k]);
        winent_outfile_probe sp;
        if (output && winent_outfile_probe_path(side[k], &sp, err) == WINENT_OK &&
            same_destination(side[k], &sp, output))
            return WINENT_ERR(err, WINENT_ERR_USAGE,
                              "--preview '%s': its %s '%s' is the output: give another preview "
                              "name",
                              preview, SIDE_WHAT[k], side[k]);
    }
    winent_err_clear(err);
    return WINENT_OK;
}

/* ---- Summing ------------------------------------------------------------- */

/* The values' map into [0, VALUE_MAX] for the range [min(value_lo, 0),
 * vmax] the options allow: the identity for an entropy (so its preview is
 * unchanged), else an offset and a power of two (exact) for a count, a
 * class value or a negative correlation. */
static value_map value_map_of(const winent_preview_opts *o)
{
    value_map vm = {0.0f, 1.0f};
    const double lo = fmin(o->value_lo, 0.0), span = o->vmax - lo;
    vm.off = (float)lo;
    while (span * vm.scale > VALUE_MAX && vm.scale > 0x1p-100f)
        vm.scale *= 0.5f;
    return vm;
}

winent_status winent_preview_open(const winent_preview_opts *o, int64_t map_rows_in_flight,
                                  winent_preview **out, winent_err *err)
{
    winent_status st;
    *out = NULL;
    if (o->map_width < 1 || o->map_height < 1)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "preview of an empty map");
    winent_preview *pv = calloc(1, sizeof *pv);
    if (pv == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    pthread_mutex_init(&pv->lock, NULL);
    pv->o = *o;
    pv->W = o->map_width;
    pv->H = o->map_height;
    pv->file.fd = -1;
    pv->sum_columns = pick_sum_columns();
    pv->vm = value_map_of(o);
    winent_preview_dims(pv->W, pv->H, o->size, &pv->pw, &pv->ph);
    pv->nacc =
        (int)rows_touched(map_rows_in_flight > 0 ? map_rows_in_flight : pv->H, pv->H, pv->ph);
    pv->xb = malloc(sizeof *pv->xb * (size_t)(pv->pw + 1));
    pv->image = winent_huge_alloc(sizeof *pv->image * (size_t)pv->pw * (size_t)pv->ph);
    pv->acc = calloc((size_t)pv->nacc, sizeof *pv->acc);
    pv->spare = calloc((size_t)pv->nacc, sizeof *pv->spare);
    pv->row_done = calloc((size_t)pv->ph, 1);
    if (!pv->xb || !pv->image || !pv->acc || !pv->spare || !pv->row_done) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the preview");
        goto fail;
    }
    /* Block j holds the columns x with floor(x * pw / W) == j. */
    for (int j = 0; j <= pv->pw; j++)
        pv->xb[j] = (int)(((int64_t)j * pv->W + pv->pw - 1) / pv->pw);
    for (int k = 0; k < pv->nacc; k++) {
        pv->acc[k].py = -1;
    }
    for (int k = 0; k < SIDE_COUNT; k++)
        pv->side[k].fd = -1;
    pv->lo = o->range_given ? o->lo : fmin(o->value_lo, 0.0);
    pv->hi = o->range_given ? o->hi : o->vmax;
    pv->stretched = o->range_given;
    WINENT_TRY_GOTO(st, winent_outfile_open(&pv->file, o->path, o->stop, err));
    winent_outfile_track(&pv->file, o->temps);
    pv->file_open = 1;
    if (!pv->file.in_place) {
        /* Their temporary files exist from now on, like the PNG's. */
        char side[SIDE_COUNT][4096];
        if (side_names(o->path, side)) {
            st = WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: the name is too long", o->path);
            goto fail;
        }
        for (int k = 0; k < SIDE_COUNT; k++) {
            if (k != SIDE_LEGEND && !o->has_geotransform)
                continue; /* nowhere to place it: the legend alone */
            if (k == SIDE_AUX && o->epsg <= 0)
                continue; /* no CRS to tell: the world file and the legend */
            WINENT_TRY_GOTO(st, winent_outfile_open(&pv->side[k], side[k], o->stop, err));
            winent_outfile_track(&pv->side[k], o->temps); /* the signal watchdog's to remove */
            pv->side_open[k] = 1;
        }
    }
    *out = pv;
    return WINENT_OK;
fail:
    winent_preview_free(pv);
    return st;
}

void winent_preview_size(const winent_preview *pv, int *pw, int *ph)
{
    *pw = pv->pw;
    *ph = pv->ph;
}

const float *winent_preview_image(const winent_preview *pv)
{
    return pv->image;
}

void winent_preview_stretch(const winent_preview *pv, double *lo, double *hi)
{
    *lo = pv->lo;
    *hi = pv->hi;
}

/* ---- The stretch ----------------------------------------------------------- */

/* A mean's bits as an unsigned key in the order of the values (means are
 * >= 0: their bits are), or 0xFFFFFFFF for NaN (no valid pixel). */
static inline uint32_t order_key(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    if ((b & 0x7fffffffu) > 0x7f800000u)
        return 0xFFFFFFFFu;
    return b & 0x80000000u ? 0 : b; /* -0 (never below 0 otherwise) */
}

/* The k-th smallest (0-based) of the n valid values of img[0 .. count), by
 * radix selection on the top then the low 16 bits of the keys: two passes,
 * exact, memory bounded (`hist`: 65536 counters) whatever the image. */
static float select_rank(const float *img, size_t count, uint64_t k, uint32_t *hist)
{
    uint32_t key = 0;
    for (int pass = 0; pass < 2; pass++) {
        memset(hist, 0, sizeof *hist * 65536);
        for (size_t i = 0; i < count; i++) {
            uint32_t b = order_key(img[i]);
            if (b == 0xFFFFFFFFu || (pass == 1 && (b >> 16) != key >> 16))
                continue;
            hist[pass == 0 ? b >> 16 : b & 0xFFFFu]++;
        }
        uint32_t bin = 0;
        while (k >= hist[bin]) {
            k -= hist[bin];
            bin++;
        }
        key = pass == 0 ? bin << 16 : key | bin;
    }
    float v;
    memcpy(&v, &key, sizeof v);
    return v;
}

/* The p-th percentile (0..100) of the n >= 1 valid values, as numpy's
 * default: linear between the values of ranks floor(h) and floor(h) + 1,
 * h = (n - 1) p / 100. */
static double percentile(const float *img, size_t count, uint64_t n, double p, uint32_t *hist)
{
    double h = (double)(n - 1) * p / 100.0;
    uint64_t k = (uint64_t)h;
    double f = h - (double)k;
    double a = select_rank(img, count, k, hist);
    if (f == 0.0 || k + 1 >= n)
        return a;
    double b = select_rank(img, count, k + 1, hist);
    return a + f * (b - a);
}

/* Percentiles of the stretch when the caller gave none. */
#define STRETCH_LOW_PERCENT  2.0
#define STRETCH_HIGH_PERCENT 98.0

/* The stretch from the complete image: its 2nd and 98th percentiles; the
 * full scale 0 .. vmax when it has no valid pixel or they coincide (a
 * constant map: every pixel then takes the colour of its value on that
 * scale). */
static winent_status stretch_of(winent_preview *pv, winent_err *err)
{
    if (pv->stretched)
        return WINENT_OK;
    const size_t count = (size_t)pv->pw * (size_t)pv->ph;
    uint64_t n = 0;
    for (size_t i = 0; i < count; i++)
        n += order_key(pv->image[i]) != 0xFFFFFFFFu;
    pv->lo = fmin(pv->o.value_lo, 0.0);
    pv->hi = pv->o.vmax;
    if (n > 0) {
        uint32_t *hist = malloc(sizeof *hist * 65536);
        if (hist == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the preview");
        double lo = percentile(pv->image, count, n, STRETCH_LOW_PERCENT, hist);
        double hi = percentile(pv->image, count, n, STRETCH_HIGH_PERCENT, hist);
        free(hist);
        if (hi > lo) {
            pv->lo = lo;
            pv->hi = hi;
        }
    }
    pv->stretched = 1;
    return WINENT_OK;
}

winent_status winent_preview_scratch_create(const winent_preview *pv, winent_preview_scratch **out,
                                            winent_err *err)
{
    winent_preview_scratch *s = calloc(1, sizeof *s);
    *out = NULL;
    if (s == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    s->col_sum = malloc(sizeof *s->col_sum * (size_t)pv->W);
    s->col_cnt = malloc(sizeof *s->col_cnt * (size_t)pv->W);
    s->blk_sum = malloc(sizeof *s->blk_sum * (size_t)pv->pw);
    s->blk_cnt = malloc(sizeof *s->blk_cnt * (size_t)pv->pw);
    if (!s->col_sum || !s->col_cnt || !s->blk_sum || !s->blk_cnt) {
        winent_preview_scratch_free(s);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the preview");
    }
    *out = s;
    return WINENT_OK;
}

void winent_preview_scratch_free(winent_preview_scratch *s)
{
    if (s == NULL)
        return;
    free(s->col_sum);
    free(s->col_cnt);
    free(s->blk_sum);
    free(s->blk_cnt);
    free(s);
}

/* The mean of each block of a complete preview row into the image. */
static void finish_row(winent_preview *pv, const row_acc *a)
{
    float *out = pv->image + (size_t)a->py * (size_t)pv->pw;
    const double off = pv->vm.off, scale = pv->vm.scale;
    for (int j = 0; j < pv->pw; j++)
        out[j] = a->cnt[j] ? (float)((double)a->sum[j] / (double)FIX_ONE / (double)a->cnt[j] /
                                         scale +
                                     off)
                           : NAN;
}

/* Add a segment's block sums (map rows of preview row py) to its
 * accumulator; the row is finished when all its map rows are in. */
static winent_status merge(winent_preview *pv, int py, int nrows, const int64_t *sum,
                           const uint32_t *cnt, winent_err *err)
{
    winent_status st = WINENT_OK;
    pthread_mutex_lock(&pv->lock);
    row_acc *a = &pv->acc[py % pv->nacc];
    if (a->py != py) {
        if (a->py != -1) {
            st = WINENT_ERR(err, WINENT_ERR_INTERNAL,
                            "preview: rows %d and %d in flight at once (room for %d)", a->py, py,
                            pv->nacc);
            goto out;
        }
        a->sum = pv->nspare ? pv->spare[--pv->nspare]
                            : malloc((sizeof *a->sum + sizeof *a->cnt) * (size_t)pv->pw);
        if (a->sum == NULL) {
            st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the preview");
            goto out;
        }
        a->cnt = (uint32_t *)(a->sum + pv->pw);
        a->py = py;
        a->rows_in = 0;
        memset(a->sum, 0, (sizeof *a->sum + sizeof *a->cnt) * (size_t)pv->pw);
    }
    for (int j = 0; j < pv->pw && sum; j++) {
        a->sum[j] += sum[j];
        a->cnt[j] += cnt[j];
    }
    a->rows_in += nrows;
    int need = first_row(pv, py + 1) - first_row(pv, py);
    if (a->rows_in > need) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "preview: a row of block row %d added twice", py);
    } else if (a->rows_in == need) {
        if (!pv->o.categorical) /* a class map's row is in the image already */
            finish_row(pv, a);
        pv->row_done[py] = 1;
        pv->spare[pv->nspare++] = a->sum;
        a->sum = NULL;
        a->cnt = NULL;
        a->py = -1;
        pv->rows_done++;
    }
out:
    pthread_mutex_unlock(&pv->lock);
    return st;
}

/* The segment's column sums into block sums. */
static void block_sums(const winent_preview *pv, winent_preview_scratch *s)
{
    for (int j = 0; j < pv->pw; j++) {
        int64_t bs = 0;
        uint32_t bc = 0;
        for (int x = pv->xb[j]; x < pv->xb[j + 1]; x++) {
            bs += s->col_sum[x];
            bc += (uint32_t)s->col_cnt[x];
        }
        s->blk_sum[j] = bs;
        s->blk_cnt[j] = bc;
    }
}

/* A class map's preview row py: each block's centre pixel (the middle
 * row and column, the upper and left of two), taken from map rows
 * [y, end) at `rows` when they hold the block's middle row. */
static void centre_pixels(winent_preview *pv, const float *rows, size_t stride, int y, int end,
                          int py)
{
    const int a = first_row(pv, py), b = first_row(pv, py + 1), cy = a + (b - a - 1) / 2;
    if (cy < y || cy >= end)
        return;
    const float *row = rows + (size_t)(cy - y) * stride;
    float *out = pv->image + (size_t)py * (size_t)pv->pw;
    for (int j = 0; j < pv->pw; j++)
        out[j] = row[pv->xb[j] + (pv->xb[j + 1] - pv->xb[j] - 1) / 2];
}

winent_status winent_preview_add_rows(winent_preview *pv, winent_preview_scratch *s,
                                      const float *rows, size_t stride, int y0, int y1,
                                      winent_err *err)
{
    int y = y0;
    while (y < y1) {
        int py = (int)((int64_t)y * pv->ph / pv->H);
        int end = first_row(pv, py + 1);
        if (end > y1)
            end = y1;
        if (end - y > SEGMENT_ROWS)
            end = y + SEGMENT_ROWS;
        const float *at = rows + (size_t)(y - y0) * stride;
        if (pv->o.categorical) {
            /* Written before merge takes the lock, which hands the row
             * to the writer once it is complete. */
            centre_pixels(pv, at, stride, y, end, py);
            WINENT_TRY(merge(pv, py, end - y, NULL, NULL, err));
        } else {
            pv->sum_columns(at, stride, end - y, pv->W, pv->vm, s->col_sum, s->col_cnt);
            block_sums(pv, s);
            WINENT_TRY(merge(pv, py, end - y, s->blk_sum, s->blk_cnt, err));
        }
        y = end;
    }
    return WINENT_OK;
}

/* ---- Drawing ------------------------------------------------------------- */

/* A 5 x 7 font of what the labels need, drawn for this: one byte per row,
 * the low 5 bits, bit 4 leftmost. */
typedef struct glyph {
    char c;
    uint8_t rows[7];
} glyph;

static const glyph FONT[] = {
    {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}},
    {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}},
    {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
    {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}},
    {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
    {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}},
    {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}},
    {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
    {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}},
    {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}},
    {'+', {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00}},
    {'a', {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F}},
    {'b', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E}},
    {'d', {0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F}},
    {'e', {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E}},
    {'i', {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E}},
    {'n', {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}},
    {'t', {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06}},
};

#define GLYPH_W       5
#define GLYPH_H       7
#define GLYPH_ADVANCE 6

static const glyph *glyph_of(char c)
{
    for (size_t i = 0; i < sizeof FONT / sizeof *FONT; i++)
        if (FONT[i].c == c)
            return &FONT[i];
    return NULL; /* a space, or nothing to draw */
}

/* Width in pixels of `text` at scale s. */
static int text_width(const char *text, int s)
{
    size_t n = strlen(text);
    return n ? (int)(n * GLYPH_ADVANCE - 1) * s : 0;
}

/* The legend, in units of the scale s: a margin, the bar, a gap, one line
 * of text, a margin. */
#define LEG_MARGIN 2
#define LEG_BAR    8
#define LEG_GAP    2
#define LEG_HEIGHT (LEG_MARGIN + LEG_BAR + LEG_GAP + GLYPH_H + LEG_MARGIN)

static void format_value(char *buf, size_t n, double v)
{
    snprintf(buf, n, "%.3g", v);
}

static void make_layout(const winent_preview *pv, layout *l)
{
    int longest = pv->pw > pv->ph ? pv->pw : pv->ph;
    int s = (longest + 256) / 512;
    l->s = s = s < 1 ? 1 : s > 4 ? 4 : s;
    /* The stretch's ends and middle, in the map's unit. */
    format_value(l->lo, sizeof l->lo, pv->lo);
    char v[32];
    format_value(v, sizeof v, pv->hi);
    snprintf(l->hi, sizeof l->hi, "%s %s", v, pv->o.unit ? pv->o.unit : "");
    format_value(l->mid, sizeof l->mid, (pv->lo + pv->hi) / 2);
    int m = LEG_MARGIN * s;
    int need = 2 * m + text_width(l->lo, s) + text_width(l->hi, s) + 4 * GLYPH_ADVANCE * s;
    l->cw = pv->pw > need ? pv->pw : need; /* the map's width, where the labels fit */
    l->ch = LEG_HEIGHT * s;
    l->bar_x0 = m;
    l->bar_x1 = l->cw - m;
    l->bar_y0 = m;
    l->text_y0 = l->bar_y0 + (LEG_BAR + LEG_GAP) * s;
    l->lo_x = m;
    l->hi_x = l->cw - m - text_width(l->hi, s);
    /* The middle value under the bar's middle, where it fits. */
    int mid_w = text_width(l->mid, s), gap = 2 * GLYPH_ADVANCE * s;
    l->mid_x = (l->bar_x0 + l->bar_x1) / 2 - mid_w / 2;
    if (!(pv->hi > pv->lo) || l->mid_x < l->lo_x + text_width(l->lo, s) + gap ||
        l->mid_x + mid_w + gap > l->hi_x)
        l->mid_x = -1;
}

/* Colour map entry for the value v stretched over [lo, hi]. */
static int entry_of(double v, double lo, double hi)
{
    double t = hi > lo ? (v - lo) / (hi - lo) : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return (int)lrint(t * (WINENT_COLORMAP_SIZE - 1));
}

static void put(uint8_t *px, const uint8_t rgb[3], uint8_t alpha)
{
    px[0] = rgb[0];
    px[1] = rgb[1];
    px[2] = rgb[2];
    px[3] = alpha;
}

/* Pixels of `text` in canvas row y (inside the text line) from x0. */
static void draw_text_row(uint8_t *row, int cw, const char *text, int x0, int y_in_line, int s)
{
    static const uint8_t ink[3] = {32, 32, 32};
    int fy = y_in_line / s;
    for (size_t i = 0; text[i]; i++) {
        const glyph *g = glyph_of(text[i]);
        if (g == NULL)
            continue;
        int gx0 = x0 + (int)i * GLYPH_ADVANCE * s;
        for (int fx = 0; fx < GLYPH_W; fx++) {
            if (!(g->rows[fy] & (0x10 >> fx)))
                continue;
            for (int k = 0; k < s; k++) {
                int x = gx0 + fx * s + k;
                if (x >= 0 && x < cw)
                    put(row + 4 * (size_t)x, ink, 255);
            }
        }
    }
}

/* Row y of the image into `row` (pw x 4 bytes). */
static void render_row(const winent_preview *pv, const uint8_t cmap[WINENT_COLORMAP_SIZE][3], int y,
                       uint8_t *row)
{
    const float *img = pv->image + (size_t)y * (size_t)pv->pw;
    memset(row, 0, 4 * (size_t)pv->pw); /* transparent: no data */
    for (int x = 0; x < pv->pw; x++)
        if (img[x] == img[x])
            put(row + 4 * (size_t)x, cmap[entry_of(img[x], pv->lo, pv->hi)], 255);
}

/* Row y of the legend into `row` (cw x 4 bytes). */
static void render_legend_row(const layout *l, const uint8_t cmap[WINENT_COLORMAP_SIZE][3], int y,
                              uint8_t *row)
{
    static const uint8_t paper[3] = {255, 255, 255};
    for (int x = 0; x < l->cw; x++)
        put(row + 4 * (size_t)x, paper, 255);
    int s = l->s;
    if (y >= l->bar_y0 && y < l->bar_y0 + LEG_BAR * s) {
        int n = l->bar_x1 - l->bar_x0;
        for (int x = l->bar_x0; x < l->bar_x1; x++) {
            /* The bar's ends are the scale's: entry 0 at the left, the last
             * at the right, evenly between. */
            long e =
                n > 1 ? lrint((double)(x - l->bar_x0) * (WINENT_COLORMAP_SIZE - 1) / (n - 1)) : 0;
            put(row + 4 * (size_t)x, cmap[e], 255);
        }
    } else if (y >= l->text_y0 && y < l->text_y0 + GLYPH_H * s) {
        int yy = y - l->text_y0;
        draw_text_row(row, l->cw, l->lo, l->lo_x, yy, s);
        if (l->mid_x >= 0)
            draw_text_row(row, l->cw, l->mid, l->mid_x, yy, s);
        draw_text_row(row, l->cw, l->hi, l->hi_x, yy, s);
    }
}

/* ---- Writing ------------------------------------------------------------- */

typedef struct png_sink {
    winent_outfile *of; /* borrowed: where the bytes go */
    const char *path;   /* borrowed: its name, for messages */
    winent_err *err;
    winent_status st;
} png_sink;

static void png_write_cb(png_structp png, png_bytep data, size_t n)
{
    png_sink *ps = png_get_io_ptr(png);
    if (ps->st == WINENT_OK) {
        ps->st = winent_outfile_write(ps->of, data, n, ps->err);
        if (ps->st != WINENT_OK)
            png_error(png, "write failed");
    }
}

static void png_flush_cb(png_structp png)
{
    (void)png;
}

/* libpng's errors land here: kept for the message, then back to setjmp. */
static void png_error_cb(png_structp png, png_const_charp msg)
{
    png_sink *ps = png_get_error_ptr(png);
    if (ps->st == WINENT_OK)
        ps->st = WINENT_ERR(ps->err, WINENT_ERR_OUTPUT, "%s: libpng: %s", ps->path, msg);
    png_longjmp(png, 1);
}

static void png_warning_cb(png_structp png, png_const_charp msg)
{
    (void)png, (void)msg; /* nothing is printed from the library */
}

/* The Description: `what`, then the stretch the colours span. */
static char *describe(const winent_preview *pv, const char *what)
{
    const char *unit = pv->o.unit ? pv->o.unit : "";
    size_t tn = strlen(what) + 320;
    char *text = malloc(tn);
    if (text)
        snprintf(text, tn,
                 "%s; colours from %.6g %s (the first, and below) to %.6g %s (the last, and "
                 "above): %s",
                 what, pv->lo, unit, pv->hi, unit,
                 pv->o.range_given ? "--preview-range"
                 : pv->hi == pv->o.vmax && pv->lo == 0.0
                     ? "the largest entropy the options allow (no spread to stretch)"
                     : "the 2nd and 98th percentiles of the preview's pixels");
    return text;
}

/* Start a PNG of width x height into `of`: libpng's state, the header and
 * text chunks (Software, and the Description `what` with the stretch). */
static winent_status png_begin(winent_preview *pv, winent_png *w, winent_outfile *of,
                               const char *path, int width, int height, const char *what,
                               winent_err *err)
{
    w->width = width;
    w->height = height;
    w->cmap = malloc(sizeof(uint8_t[WINENT_COLORMAP_SIZE][3]));
    w->row = malloc(4 * (size_t)width);
    /* On the heap: what the callbacks change between setjmp and longjmp
     * must not be a local of a frame. */
    w->ps = calloc(1, sizeof *w->ps);
    w->text = describe(pv, what);
    if (w->cmap == NULL || w->row == NULL || w->ps == NULL || w->text == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the preview");
    w->ps->of = of;
    w->ps->path = path;
    w->ps->err = err;
    w->ps->st = WINENT_OK;
    winent_colormap_build(w->cmap);
    w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w->ps, png_error_cb, png_warning_cb);
    if (w->png)
        w->info = png_create_info_struct(w->png);
    if (w->png == NULL || w->info == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for libpng");
    if (setjmp(png_jmpbuf(w->png)))
        return w->ps->st != WINENT_OK
                   ? w->ps->st
                   : WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: libpng failed", path);
    png_set_write_fn(w->png, w->ps, png_write_cb, png_flush_cb);
    png_set_IHDR(w->png, w->info, (png_uint_32)width, (png_uint_32)height, 8,
                 PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    /* sRGB: the colour map's values are sRGB by construction. */
    png_set_sRGB_gAMA_and_cHRM(w->png, w->info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_text text[2];
    memset(text, 0, sizeof text);
    text[0].compression = PNG_TEXT_COMPRESSION_NONE;
    text[0].key = (char *)"Software";
    text[0].text = (char *)"winent-stream " WINENT_VERSION_STRING;
    text[1].compression = PNG_TEXT_COMPRESSION_NONE;
    text[1].key = (char *)"Description";
    text[1].text = w->text;
    png_set_text(w->png, w->info, text, 2);
    /* A quicklook: deflate's fastest level and no filter. Measured on
     * 1024-pixel previews, 3-8x faster than libpng's defaults (level 6,
     * adaptive filters) and the file smaller too: colour-mapped pixels
     * repeat whole, which filters turn into differences that do not. */
    png_set_compression_level(w->png, 1);
    png_set_filter(w->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    png_write_info(w->png, w->info);
    w->started = 1;
    return WINENT_OK;
}

/* The preview's own PNG started: exactly the image, so that its world
 * file places every pixel. */
static winent_status png_begin_image(winent_preview *pv, winent_err *err)
{
    const char *d = pv->o.description ? pv->o.description : "Local Shannon entropy";
    return png_begin(pv, &pv->out, &pv->file, pv->o.path, pv->pw, pv->ph, d, err);
}

/* Rows [y0, y1) into the PNG w: of the image, or of the legend laid out
 * as `l` (when not NULL). */
static winent_status png_rows(winent_preview *pv, winent_png *w, const layout *l, int y0, int y1,
                              winent_err *err)
{
    w->ps->err = err;
    if (setjmp(png_jmpbuf(w->png)))
        return w->ps->st != WINENT_OK
                   ? w->ps->st
                   : WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: libpng failed", w->ps->path);
    for (int y = y0; y < y1; y++) {
        if (pv->o.stop && __atomic_load_n(pv->o.stop, __ATOMIC_RELAXED))
            return WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
        if (l)
            render_legend_row(l, (const uint8_t(*)[3])w->cmap, y, w->row);
        else
            render_row(pv, (const uint8_t(*)[3])w->cmap, y, w->row);
        png_write_row(w->png, w->row);
    }
    return WINENT_OK;
}

static winent_status png_end(winent_png *w, winent_err *err)
{
    w->ps->err = err;
    if (setjmp(png_jmpbuf(w->png)))
        return w->ps->st != WINENT_OK
                   ? w->ps->st
                   : WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: libpng failed", w->ps->path);
    png_write_end(w->png, w->info);
    return WINENT_OK;
}

static void png_release(winent_png *w)
{
    if (w->png)
        png_destroy_write_struct(&w->png, &w->info);
    free(w->cmap);
    free(w->row);
    free(w->ps);
    free(w->text);
    memset(w, 0, sizeof *w);
}

/* ---- The world file and the PAM file ---------------------------------------- */

/* The preview's geotransform: the map's, its pixels pw / W and ph / H as
 * large (a preview pixel spans W / pw map columns and H / ph rows: its
 * block, to within a map pixel). */
static void preview_geotransform(const winent_preview *pv, double g[6])
{
    const double *m = pv->o.gt;
    const double sx = (double)pv->W / pv->pw, sy = (double)pv->H / pv->ph;
    g[0] = m[0];
    g[1] = m[1] * sx;
    g[2] = m[2] * sy;
    g[3] = m[3];
    g[4] = m[4] * sx;
    g[5] = m[5] * sy;
}

static winent_status write_text(winent_outfile *of, const winent_bytes *b, winent_err *err)
{
    return winent_outfile_write(of, b->data, b->size, err);
}

/* The world file (six lines: x size, the two rotations, y size, and the
 * centre of the top left pixel, as ESRI and GDAL read them) and the PAM
 * file (the CRS as EPSG:N, which GDAL takes as user input and, with no
 * axis mapping given, reads in the traditional GIS order, x then y; the
 * geotransform; the stretch), into their temporary files. */
static winent_status write_sidecars(winent_preview *pv, winent_err *err)
{
    winent_status st = WINENT_OK;
    double g[6];
    if (!pv->side_open[SIDE_PGW])
        return WINENT_OK;
    preview_geotransform(pv, g);
    winent_bytes b = {0};
    int bad = winent_bytes_printf(&b, "%.17g\n%.17g\n%.17g\n%.17g\n%.17g\n%.17g\n", g[1], g[4],
                                  g[2], g[5], g[0] + 0.5 * g[1] + 0.5 * g[2],
                                  g[3] + 0.5 * g[4] + 0.5 * g[5]);
    if (bad) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the preview");
        goto fail;
    }
    WINENT_TRY_GOTO(st, write_text(&pv->side[SIDE_PGW], &b, err));
    if (pv->side_open[SIDE_AUX]) {
        winent_bytes_reset(&b);
        bad = winent_bytes_printf(&b,
                                  "<PAMDataset>\n"
                                  "  <SRS>EPSG:%d</SRS>\n"
                                  "  <GeoTransform> %.17g, %.17g, %.17g, %.17g, %.17g, %.17g"
                                  "</GeoTransform>\n"
                                  "  <Metadata>\n"
                                  "    <MDI key=\"STRETCH_MIN\">%.17g</MDI>\n"
                                  "    <MDI key=\"STRETCH_MAX\">%.17g</MDI>\n"
                                  "    <MDI key=\"UNIT\">%s</MDI>\n"
                                  "  </Metadata>\n"
                                  "</PAMDataset>\n",
                                  pv->o.epsg, g[0], g[1], g[2],
                                  g[3], g[4], g[5], pv->lo, pv->hi,
                                  pv->o.unit ? pv->o.unit : "");
        if (bad) {
            st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the preview");
            goto fail;
        }
        WINENT_TRY_GOTO(st, write_text(&pv->side[SIDE_AUX], &b, err));
    }
fail:
    winent_bytes_free(&b);
    return st;
}

/* The legend in its own PNG (NAME.legend.png): the colour bar with the
 * stretch's ends and middle. Beside the image rather than below it, so
 * that the image is exactly the map's extent. */
static winent_status write_legend(winent_preview *pv, winent_err *err)
{
    if (!pv->side_open[SIDE_LEGEND])
        return WINENT_OK;
    layout l;
    make_layout(pv, &l);
    winent_png w;
    memset(&w, 0, sizeof w);
    winent_status st = png_begin(pv, &w, &pv->side[SIDE_LEGEND], pv->side[SIDE_LEGEND].name, l.cw,
                                 l.ch, "Legend of a local Shannon entropy preview", err);
    if (st == WINENT_OK)
        st = png_rows(pv, &w, &l, 0, l.ch, err);
    if (st == WINENT_OK)
        st = png_end(&w, err);
    png_release(&w);
    return st;
}

winent_status winent_preview_flush(winent_preview *pv, winent_err *err)
{
    winent_png *w = &pv->out;
    if (w->failed != WINENT_OK)
        return WINENT_ERR(err, w->failed, "%s: the preview failed before", pv->o.path);
    if (!pv->stretched)
        return WINENT_OK; /* the colours wait for the percentiles (the last row) */
    pthread_mutex_lock(&pv->lock);
    int n = w->next;
    while (n < pv->ph && pv->row_done[n])
        n++;
    pthread_mutex_unlock(&pv->lock);
    if (n == w->next)
        return WINENT_OK;
    winent_status st = w->started ? WINENT_OK : png_begin_image(pv, err);
    if (st == WINENT_OK)
        st = png_rows(pv, w, NULL, w->next, n, err);
    if (st != WINENT_OK)
        w->failed = st;
    else
        w->next = n;
    return st;
}

winent_status winent_preview_write(winent_preview *pv, winent_err *err)
{
    winent_png *w = &pv->out;
    if (pv->rows_done != pv->ph)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "preview: %d of %d block rows complete",
                          pv->rows_done, pv->ph);
    winent_status st = w->failed != WINENT_OK ? winent_preview_flush(pv, err) : stretch_of(pv, err);
    if (st == WINENT_OK)
        st = winent_preview_flush(pv, err);
    if (st == WINENT_OK)
        st = png_end(w, err);
    png_release(w);
    if (st == WINENT_OK)
        st = write_legend(pv, err);
    if (st == WINENT_OK)
        st = write_sidecars(pv, err);
    if (st != WINENT_OK)
        w->failed = st;
    return st;
}

winent_status winent_preview_commit(winent_preview *pv, winent_err *err)
{
    pv->file_open = 0;
    winent_status st = winent_outfile_commit(&pv->file, err);
    /* The files beside it after the PNG they describe. */
    for (int k = 0; k < SIDE_COUNT; k++) {
        if (!pv->side_open[k])
            continue;
        pv->side_open[k] = 0;
        if (st == WINENT_OK)
            st = winent_outfile_commit(&pv->side[k], err);
        else
            winent_outfile_abort(&pv->side[k]);
    }
    return st;
}

void winent_preview_abort(winent_preview *pv)
{
    if (pv && pv->file_open) {
        winent_outfile_abort(&pv->file);
        pv->file_open = 0;
    }
    for (int k = 0; pv && k < SIDE_COUNT; k++)
        if (pv->side_open[k]) {
            winent_outfile_abort(&pv->side[k]);
            pv->side_open[k] = 0;
        }
}

void winent_preview_free(winent_preview *pv)
{
    if (pv == NULL)
        return;
    winent_preview_abort(pv);
    pthread_mutex_destroy(&pv->lock);
    free(pv->xb);
    free(pv->image);
    for (int k = 0; pv->acc && k < pv->nacc; k++)
        free(pv->acc[k].sum); /* rows left open by a failed job */
    for (int k = 0; k < pv->nspare; k++)
        free(pv->spare[k]);
    free(pv->acc);
    free(pv->spare);
    free(pv->row_done);
    png_release(&pv->out);
    free(pv);
}
