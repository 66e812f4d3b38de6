/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * winent-mksample: test rasters of any size, written as a stream (one row at
 * a time, memory O(width)), the same bytes for the same options and seed on
 * every machine.
 *
 *   winent-mksample --size WxH --dtype T [--kind uniform|landscape] [--values N]
 *                   [--seed S] [--holes FRACTION] [--nodata V]
 *                   [--byteorder little|big]
 *                   [--tiff [--tile N] [--compress deflate|none]
 *                    [--georef EPSG,X,Y,PIXEL]] OUTPUT|-
 *
 * Every pixel is a pure function of (seed, x, y): a row never depends on the
 * rows before it, which is what lets the tool stream 20000 x 20000 images
 * and lets tests regenerate any row alone.
 *
 * With --tiff the same samples go into a tiled TIFF (BigTIFF when the
 * samples pass 2 GiB), written one row of tiles at a time, its tiles
 * deflated on every core: memory is O(width x tile), whatever the height.
 * The samples are the raw output's; the compressed bytes are zlib's, so
 * they may change with the zlib version. --georef makes it a GeoTIFF: a
 * north-up grid of square pixels in an EPSG coordinate system (the quick
 * start's demo input, and tests that need georeferenced input).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tiffio.h>
#include <zlib.h>

#include "winent.h"

#define PROG "winent-mksample"

/* Landscape octaves: lattice cell sizes in pixels, coarse to fine. Fixed in
 * pixels (not relative to the image) so a crop of a big sample looks like a
 * small sample with the same seed. */
#define OCTAVES 5
static const int octave_cell[OCTAVES] = {384, 160, 64, 24, 9};
static const double octave_amp[OCTAVES] = {1.0, 0.55, 0.3, 0.16, 0.08};

/* Holes: blobs of a coarser two-octave field, below a threshold. */
#define HOLE_OCTAVES 2
static const int hole_cell[HOLE_OCTAVES] = {96, 31};
static const double hole_amp[HOLE_OCTAVES] = {1.0, 0.35};

/* Points sampled to calibrate the stretch and the hole threshold, over a
 * fixed square (the fields are stationary): the calibration, hence every
 * pixel, does not depend on the image size. */
#define CALIB_POINTS 65536
#define CALIB_SIDE 4096u

typedef enum kind { KIND_UNIFORM, KIND_LANDSCAPE } kind;

typedef struct options {
    int width, height;
    winent_dtype dtype;
    kind kind;
    uint64_t values;
    uint64_t seed;
    double holes;
    int has_nodata;
    double nodata;
    int big_endian;
    int tiff;     /* write a tiled TIFF instead of raw samples */
    int tile;     /* TIFF tile side, a multiple of 16 */
    int compress; /* TIFF compression: COMPRESSION_ADOBE_DEFLATE or _NONE */
    int epsg;     /* --georef: the CRS's EPSG code, 0 for none */
    double origin_x, origin_y, pixel; /* upper left corner, pixel side */
    const char *output;
} options;

/* One field of value noise: its lattice, and the per-row scratch that holds
 * the vertical interpolation at every lattice column of the current row. */
typedef struct noise_field {
    int octaves;
    const int *cell;
    const double *amp;
    uint64_t salt;
    double *col[OCTAVES]; /* owned: width / cell + 2 values per octave */
    double *wx[OCTAVES];  /* owned: smooth(k / cell) for k in 0..cell-1 */
} noise_field;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " --size WxH --dtype u8|i8|u16|i16|u32|i32|f32|f64 [options] OUTPUT\n"
            "Writes a raw raster (row-major, no header) to OUTPUT, or to standard output\n"
            "for '-', one row at a time: any size, memory proportional to the width.\n"
            "\n"
            "  --kind uniform|landscape  uniform: independent values in 0..N-1 (default);\n"
            "                            landscape: a smooth random field in N classes\n"
            "  --values N                number of values or classes (default 16); float\n"
            "                            types get real values in [0, N) instead\n"
            "  --seed S                  the same seed gives the same bytes (default 1)\n"
            "  --holes FRACTION          set blobs covering about FRACTION of the image\n"
            "                            (0..1) to the nodata value\n"
            "  --nodata V                value of the holes (default NaN for f32/f64;\n"
            "                            integer types need it with --holes)\n"
            "  --byteorder little|big    byte order of the samples (default little)\n"
            "  --tiff                    write a tiled TIFF (one band, the same samples;\n"
            "                            BigTIFF past 2 GiB) instead of raw samples, one\n"
            "                            row of tiles at a time; OUTPUT must be a file\n"
            "  --tile N                  TIFF tile side, a multiple of 16 (default 256)\n"
            "  --compress deflate|none   TIFF compression (default deflate)\n"
            "  --georef EPSG,X,Y,PIXEL   make the TIFF a GeoTIFF: CRS EPSG:EPSG (codes\n"
            "                            4000-4999 taken as geographic, others as\n"
            "                            projected), upper left corner at (X, Y),\n"
            "                            square pixels of side PIXEL, north up; e.g.\n"
            "                            32633,500000,4600000,30 (UTM 33N, 30 m)\n"
            "  --help                    this text\n"
            "\n"
            "With --tiff and --nodata the value is written as the GDAL_NODATA tag.\n"
            "Exit codes: 0 success, 2 usage error, 4 write error.\n");
}

static int fail_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, PROG ": ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see --help)\n");
    return 2;
}

/* splitmix64's finaliser: a good 64-bit mix of a 64-bit key. */
static inline uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Lattice value in [0, 1) at integer point (ix, iy) of one octave. */
static inline double lattice(uint64_t salt, int octave, int64_t ix, int64_t iy)
{
    uint64_t h = mix64(salt ^ mix64(((uint64_t)octave << 58) ^ ((uint64_t)ix << 29) ^
                                    (uint64_t)iy));
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

static inline double smooth(double f)
{
    return f * f * (3.0 - 2.0 * f);
}

/* The field at one point, for calibration. Same arithmetic as field_row.
 * Not normalised: only its quantiles matter. */
static double field_at(const noise_field *nf, int x, int y)
{
    double sum = 0.0;
    for (int o = 0; o < nf->octaves; o++) {
        int s = nf->cell[o];
        int64_t ix = x / s, iy = y / s;
        double sx = smooth((double)(x % s) / s), sy = smooth((double)(y % s) / s);
        double a = lattice(nf->salt, o, ix, iy), b = lattice(nf->salt, o, ix, iy + 1);
        double c = lattice(nf->salt, o, ix + 1, iy), d = lattice(nf->salt, o, ix + 1, iy + 1);
        double left = a + (b - a) * sy, right = c + (d - c) * sy;
        sum += nf->amp[o] * (left + (right - left) * sx);
    }
    return sum;
}

/* The field along row y into out[0..width). Per octave, interpolate
 * vertically once per lattice column, then horizontally per pixel. */
static void field_row(const noise_field *nf, int width, int y, double *out)
{
    for (int x = 0; x < width; x++)
        out[x] = 0.0;
    for (int o = 0; o < nf->octaves; o++) {
        int s = nf->cell[o];
        int64_t iy = y / s;
        double sy = smooth((double)(y % s) / s);
        double *col = nf->col[o];
        int ncols = width / s + 2;
        for (int i = 0; i < ncols; i++) {
            double a = lattice(nf->salt, o, i, iy), b = lattice(nf->salt, o, i, iy + 1);
            col[i] = a + (b - a) * sy;
        }
        const double amp = nf->amp[o], *wx = nf->wx[o];
        for (int x0 = 0; x0 < width; x0 += s) {
            int i = x0 / s, n = width - x0 < s ? width - x0 : s;
            double left = col[i], diff = col[i + 1] - col[i];
            double *dst = out + x0;
            for (int k = 0; k < n; k++)
                dst[k] += amp * (left + diff * wx[k]);
        }
    }
}

static int field_init(noise_field *nf, int octaves, const int *cell, const double *amp,
                      uint64_t salt, int width)
{
    memset(nf, 0, sizeof *nf);
    nf->octaves = octaves;
    nf->cell = cell;
    nf->amp = amp;
    nf->salt = salt;
    for (int o = 0; o < octaves; o++) {
        nf->col[o] = malloc(sizeof(double) * (size_t)(width / cell[o] + 2));
        nf->wx[o] = malloc(sizeof(double) * (size_t)cell[o]);
        if (nf->col[o] == NULL || nf->wx[o] == NULL)
            return -1;
        for (int k = 0; k < cell[o]; k++)
            nf->wx[o][k] = smooth((double)k / cell[o]);
    }
    return 0;
}

static void field_free(noise_field *nf)
{
    for (int o = 0; o < OCTAVES; o++) {
        free(nf->col[o]);
        free(nf->wx[o]);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantiles `q` of the field, from a fixed set of points. */
static int field_quantiles(const noise_field *nf, uint64_t salt, const double *q,
                           int nq, double *res)
{
    double *v = malloc(sizeof *v * CALIB_POINTS);
    if (v == NULL)
        return -1;
    for (int i = 0; i < CALIB_POINTS; i++) {
        uint64_t h = mix64(salt ^ (uint64_t)i);
        int x = (int)((h & 0xFFFFFFFFu) * CALIB_SIDE >> 32);
        int y = (int)((h >> 32) * CALIB_SIDE >> 32);
        v[i] = field_at(nf, x, y);
    }
    qsort(v, CALIB_POINTS, sizeof *v, cmp_double);
    for (int k = 0; k < nq; k++) {
        int i = (int)(q[k] * (CALIB_POINTS - 1));
        res[k] = v[i < 0 ? 0 : i >= CALIB_POINTS ? CALIB_POINTS - 1 : i];
    }
    free(v);
    return 0;
}

/* Store sample i of the row: integer types take `iv`, floats `dv`. */
static inline void put_sample(void *row, winent_dtype t, size_t i, int64_t iv, double dv)
{
    switch (t) {
    case WINENT_U8: ((uint8_t *)row)[i] = (uint8_t)iv; break;
    case WINENT_I8: ((int8_t *)row)[i] = (int8_t)iv; break;
    case WINENT_U16: ((uint16_t *)row)[i] = (uint16_t)iv; break;
    case WINENT_I16: ((int16_t *)row)[i] = (int16_t)iv; break;
    case WINENT_U32: ((uint32_t *)row)[i] = (uint32_t)iv; break;
    case WINENT_I32: ((int32_t *)row)[i] = (int32_t)iv; break;
    case WINENT_F32: ((float *)row)[i] = (float)dv; break;
    case WINENT_F64: ((double *)row)[i] = dv; break;
    default: break;
    }
}

static int host_is_big_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 0;
}

static void swap_row(uint8_t *row, size_t count, size_t size)
{
    for (size_t i = 0; i < count; i++, row += size)
        for (size_t a = 0, b = size - 1; a < b; a++, b--) {
            uint8_t t = row[a];
            row[a] = row[b];
            row[b] = t;
        }
}

static int parse_dtype(const char *s, winent_dtype *t)
{
    for (int i = 0; i < WINENT_DTYPE_COUNT; i++)
        if (!strcmp(s, winent_dtype_name((winent_dtype)i))) {
            *t = (winent_dtype)i;
            return 0;
        }
    return -1;
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '\0')
        return -1;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *v = x;
    return 0;
}

static int parse_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    if (*s == '\0')
        return -1;
    *v = strtod(s, &end);
    return errno || *end ? -1 : 0;
}

static int parse_size(const char *s, int *w, int *h)
{
    char *end;
    errno = 0;
    long a = strtol(s, &end, 10);
    if (errno || end == s || (*end != 'x' && *end != 'X'))
        return -1;
    const char *t = end + 1;
    long b = strtol(t, &end, 10);
    if (errno || end == t || *end || a < 1 || b < 1 || a > 0x7FFFFFFF || b > 0x7FFFFFFF)
        return -1;
    *w = (int)a;
    *h = (int)b;
    return 0;
}

/* Parse argv into `o`; returns 0, 1 after --help, or an exit code (2). */
static int parse_args(int argc, char **argv, options *o)
{
    static const double int_lo[] = {0, -128, 0, -32768, 0, -2147483648.0};
    static const double int_hi[] = {255, 127, 65535, 32767, 4294967295.0, 2147483647.0};
    int have_size = 0, have_dtype = 0, have_tiff_opt = 0;
    memset(o, 0, sizeof *o);
    o->kind = KIND_UNIFORM;
    o->values = 16;
    o->seed = 1;
    o->big_endian = 0;
    o->tile = 256;
    o->compress = COMPRESSION_ADOBE_DEFLATE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(a, "--tiff")) {
            o->tiff = 1;
            continue;
        }
        if (a[0] == '-' && a[1] == '-') {
            const char *v = i + 1 < argc ? argv[i + 1] : NULL;
            if (v == NULL)
                return fail_usage("%s needs a value", a);
            i++;
            if (!strcmp(a, "--size")) {
                if (parse_size(v, &o->width, &o->height))
                    return fail_usage("--size: '%s' is not WxH with positive W and H", v);
                have_size = 1;
            } else if (!strcmp(a, "--dtype")) {
                if (parse_dtype(v, &o->dtype))
                    return fail_usage("--dtype: '%s' is not u8|i8|u16|i16|u32|i32|f32|f64", v);
                have_dtype = 1;
            } else if (!strcmp(a, "--kind")) {
                if (!strcmp(v, "uniform"))
                    o->kind = KIND_UNIFORM;
                else if (!strcmp(v, "landscape"))
                    o->kind = KIND_LANDSCAPE;
                else
                    return fail_usage("--kind: '%s' is not uniform or landscape", v);
            } else if (!strcmp(a, "--values")) {
                if (parse_u64(v, &o->values) || o->values < 1)
                    return fail_usage("--values: '%s' is not a positive integer", v);
            } else if (!strcmp(a, "--seed")) {
                if (parse_u64(v, &o->seed))
                    return fail_usage("--seed: '%s' is not a non-negative integer", v);
            } else if (!strcmp(a, "--holes")) {
                if (parse_double(v, &o->holes) || !(o->holes >= 0.0 && o->holes <= 1.0))
                    return fail_usage("--holes: '%s' is not a fraction from 0 to 1", v);
            } else if (!strcmp(a, "--nodata")) {
                if (!strcmp(v, "nan") || !strcmp(v, "NaN"))
                    o->nodata = NAN;
                else if (parse_double(v, &o->nodata))
                    return fail_usage("--nodata: '%s' is not a number", v);
                o->has_nodata = 1;
            } else if (!strcmp(a, "--byteorder")) {
                if (!strcmp(v, "little"))
                    o->big_endian = 0;
                else if (!strcmp(v, "big"))
                    o->big_endian = 1;
                else
                    return fail_usage("--byteorder: '%s' is not little or big", v);
            } else if (!strcmp(a, "--tile")) {
                uint64_t t;
                if (parse_u64(v, &t) || t < 16 || t > 65536 || t % 16)
                    return fail_usage("--tile: '%s' is not a multiple of 16 from 16 to 65536", v);
                o->tile = (int)t;
                have_tiff_opt = 1;
            } else if (!strcmp(a, "--compress")) {
                if (!strcmp(v, "deflate"))
                    o->compress = COMPRESSION_ADOBE_DEFLATE;
                else if (!strcmp(v, "none"))
                    o->compress = COMPRESSION_NONE;
                else
                    return fail_usage("--compress: '%s' is not deflate or none", v);
                have_tiff_opt = 1;
            } else if (!strcmp(a, "--georef")) {
                char tail;
                if (sscanf(v, "%d,%lf,%lf,%lf%c", &o->epsg, &o->origin_x, &o->origin_y, &o->pixel,
                           &tail) != 4 ||
                    o->epsg < 1024 || o->epsg > 32767 || !isfinite(o->origin_x) ||
                    !isfinite(o->origin_y) || !(o->pixel > 0 && isfinite(o->pixel)))
                    return fail_usage("--georef: '%s' is not EPSG,X,Y,PIXEL (an EPSG code "
                                      "1024..32767, a corner, a positive pixel side)",
                                      v);
                have_tiff_opt = 1;
            } else {
                i--;
                return fail_usage("unknown option %s", a);
            }
        } else if (o->output == NULL) {
            o->output = a;
        } else {
            return fail_usage("one output only: unexpected '%s'", a);
        }
    }
    if (!have_size)
        return fail_usage("%s", "--size WxH is required");
    if (!have_dtype)
        return fail_usage("%s", "--dtype is required");
    if (o->output == NULL)
        return fail_usage("%s", "no OUTPUT given (a file name, or - for standard output)");
    if (have_tiff_opt && !o->tiff)
        return fail_usage("%s", "--tile, --compress and --georef are for --tiff output");
    if (o->tiff && !strcmp(o->output, "-"))
        return fail_usage("%s", "--tiff: a TIFF needs a file name, not standard output");
    if (!winent_dtype_is_float(o->dtype)) {
        if ((double)(o->values - 1) > int_hi[o->dtype])
            return fail_usage("--values: more than %s can hold", winent_dtype_name(o->dtype));
        if (o->has_nodata && (o->nodata != floor(o->nodata) || o->nodata < int_lo[o->dtype] ||
                              o->nodata > int_hi[o->dtype]))
            return fail_usage("--nodata: not a value of %s", winent_dtype_name(o->dtype));
        if (o->holes > 0 && !o->has_nodata)
            return fail_usage("--holes: %s samples need --nodata V for the holes",
                              winent_dtype_name(o->dtype));
    } else if (!o->has_nodata) {
        o->nodata = NAN;
    }
    return 0;
}

/* Uniform values of row y: a generator seeded by (seed, y) alone. */
static void uniform_row(const options *o, int y, void *row)
{
    uint64_t st = mix64(o->seed ^ mix64(0x756E69666F726Dull + (uint64_t)y));
    const uint64_t n = o->values;
    if (o->dtype == WINENT_U8) { /* the common case, kept tight */
        uint8_t *r = row;
        for (int x = 0; x < o->width; x++) {
            uint64_t h = mix64(st += 0x9E3779B97F4A7C15ull);
            r[x] = (uint8_t)(((h >> 32) * n) >> 32);
        }
        return;
    }
    for (int x = 0; x < o->width; x++) {
        uint64_t h = mix64(st += 0x9E3779B97F4A7C15ull);
        if (winent_dtype_is_float(o->dtype))
            put_sample(row, o->dtype, (size_t)x, 0,
                       (double)(h >> 11) * (1.0 / 9007199254740992.0) * (double)n);
        else
            put_sample(row, o->dtype, (size_t)x, (int64_t)(((h >> 32) * n) >> 32), 0.0);
    }
}

/* ---- Tiled TIFF output ------------------------------------------------------ */

#define TAG_GDAL_NODATA 42113

/* The first libtiff error, for our own one-line message (libtiff's default
 * handler would print its own lines). */
static char tiff_error[256];

static void on_tiff_error(const char *module, const char *fmt, va_list ap)
{
    (void)module;
    if (tiff_error[0] == '\0')
        vsnprintf(tiff_error, sizeof tiff_error, fmt, ap);
}

/* A tiled TIFF written one row of tiles at a time: rows gather in `band`
 * (tile rows at full, tile-padded width); a full band is cut into tiles,
 * which are compressed in parallel (zlib, as libtiff's deflate codec writes
 * them) and written in order with TIFFWriteRawTile. */
typedef struct tiff_out {
    TIFF *tif;          /* owned */
    int width, height, tile, across, compress;
    size_t ss;          /* bytes per sample */
    size_t band_stride; /* bytes per row of band */
    size_t tile_bytes;  /* bytes of one uncompressed tile */
    size_t zcap;        /* room for one compressed tile */
    uint8_t *band;      /* owned: tile rows x band_stride, zeroed padding */
    uint8_t *tiles;     /* owned: across tiles, uncompressed */
    uint8_t *ztiles;    /* owned: across x zcap, compressed (deflate only) */
    size_t *zlen;       /* owned: compressed size of each */
    int rows;           /* rows held in band */
    int y0;             /* image row of band's first row */
} tiff_out;

static int tiff_sample_format(winent_dtype t)
{
    if (winent_dtype_is_float(t))
        return SAMPLEFORMAT_IEEEFP;
    return t == WINENT_I8 || t == WINENT_I16 || t == WINENT_I32 ? SAMPLEFORMAT_INT
                                                                 : SAMPLEFORMAT_UINT;
}

/* The GeoTIFF tags of --georef: the corner pixel tied to (X, Y), the pixel
 * side, and three GeoKeys (model type, PixelIsArea, the EPSG code). libtiff
 * does not know these tags: they are declared first. Returns 1 on success. */
static int set_georef(TIFF *tif, const options *o)
{
    static const TIFFFieldInfo fields[] = {
        {33550, TIFF_VARIABLE2, TIFF_VARIABLE2, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1,
         "ModelPixelScaleTag"},
        {33922, TIFF_VARIABLE2, TIFF_VARIABLE2, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1,
         "ModelTiepointTag"},
        {34735, TIFF_VARIABLE2, TIFF_VARIABLE2, TIFF_SHORT, FIELD_CUSTOM, 1, 1,
         "GeoKeyDirectoryTag"},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (TIFFFindField(tif, fields[i].field_tag, TIFF_ANY) == NULL)
            TIFFMergeFieldInfo(tif, &fields[i], 1);
    const int geographic = o->epsg >= 4000 && o->epsg <= 4999;
    const double scale[3] = {o->pixel, o->pixel, 0};
    const double tie[6] = {0, 0, 0, o->origin_x, o->origin_y, 0};
    const uint16_t keys[16] = {1, 1, 0, 3, /* version 1.1.0, three keys */
                               1024, 0, 1, (uint16_t)(geographic ? 2 : 1), /* GTModelType */
                               1025, 0, 1, 1, /* GTRasterType: PixelIsArea */
                               (uint16_t)(geographic ? 2048 : 3072), 0, 1, (uint16_t)o->epsg};
    return TIFFSetField(tif, 33550, (uint32_t)3, scale) &&
           TIFFSetField(tif, 33922, (uint32_t)6, tie) &&
           TIFFSetField(tif, 34735, (uint32_t)16, keys);
}

/* Open o->output and set its tags; returns 0, or -1 with tiff_error set. */
static int tiff_open(const options *o, tiff_out *t)
{
    static const TIFFFieldInfo nodata_field = {TAG_GDAL_NODATA, TIFF_VARIABLE, TIFF_VARIABLE,
                                               TIFF_ASCII, FIELD_CUSTOM, 1, 0,
                                               "GDALNoDataValue"};
    const size_t ss = winent_dtype_size(o->dtype);
    const int across = (o->width + o->tile - 1) / o->tile;
    const double bytes = (double)o->width * (double)o->height * (double)ss;
    /* BigTIFF once the samples alone pass 2 GiB: deflate may not shrink
     * them, and a classic TIFF's offsets stop at 4 GiB. */
    char mode[4] = "w";
    size_t m = 1;
    if (bytes > 2147483648.0)
        mode[m++] = '8';
    mode[m++] = o->big_endian ? 'b' : 'l';
    mode[m] = '\0';

    memset(t, 0, sizeof *t);
    t->width = o->width;
    t->height = o->height;
    t->tile = o->tile;
    t->across = across;
    t->compress = o->compress;
    t->ss = ss;
    t->band_stride = (size_t)across * (size_t)o->tile * ss;
    t->tile_bytes = (size_t)o->tile * (size_t)o->tile * ss;
    t->zcap = compressBound((uLong)t->tile_bytes);
    t->band = calloc((size_t)o->tile, t->band_stride);
    t->tiles = malloc((size_t)across * t->tile_bytes);
    t->zlen = calloc((size_t)across, sizeof *t->zlen);
    if (o->compress != COMPRESSION_NONE)
        t->ztiles = malloc((size_t)across * t->zcap);
    if (t->band == NULL || t->tiles == NULL || t->zlen == NULL ||
        (o->compress != COMPRESSION_NONE && t->ztiles == NULL)) {
        snprintf(tiff_error, sizeof tiff_error, "out of memory for a row of %dx%d tiles",
                 o->tile, o->tile);
        return -1;
    }
    TIFFSetErrorHandler(on_tiff_error);
    TIFFSetWarningHandler(NULL);
    t->tif = TIFFOpen(o->output, mode);
    if (t->tif == NULL)
        return -1;
    TIFF *tif = t->tif;
    int ok = 1;
    ok &= TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)o->width);
    ok &= TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)o->height);
    ok &= TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)(8 * ss));
    ok &= TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)1);
    ok &= TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, (uint16_t)tiff_sample_format(o->dtype));
    ok &= TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, (uint16_t)PHOTOMETRIC_MINISBLACK);
    ok &= TIFFSetField(tif, TIFFTAG_PLANARCONFIG, (uint16_t)PLANARCONFIG_CONTIG);
    ok &= TIFFSetField(tif, TIFFTAG_TILEWIDTH, (uint32_t)o->tile);
    ok &= TIFFSetField(tif, TIFFTAG_TILELENGTH, (uint32_t)o->tile);
    ok &= TIFFSetField(tif, TIFFTAG_COMPRESSION, (uint16_t)o->compress);
    ok &= TIFFSetField(tif, TIFFTAG_SOFTWARE, PROG);
    if (o->has_nodata) {
        char v[64];
        if (isnan(o->nodata))
            snprintf(v, sizeof v, "nan");
        else
            snprintf(v, sizeof v, "%.17g", o->nodata);
        if (TIFFFindField(tif, TAG_GDAL_NODATA, TIFF_ANY) == NULL)
            TIFFMergeFieldInfo(tif, &nodata_field, 1);
        const TIFFField *fld = TIFFFieldWithTag(tif, TAG_GDAL_NODATA);
        if (fld != NULL && TIFFFieldPassCount(fld))
            ok &= TIFFSetField(tif, TAG_GDAL_NODATA, (uint32_t)(strlen(v) + 1), v);
        else
            ok &= TIFFSetField(tif, TAG_GDAL_NODATA, v);
    }
    if (o->epsg > 0)
        ok &= set_georef(tif, o);
    if (!ok) {
        if (tiff_error[0] == '\0')
            snprintf(tiff_error, sizeof tiff_error, "cannot set the TIFF tags");
        return -1;
    }
    return 0;
}

/* Cut the band into tiles, compress them on every core, write them in
 * order. The samples are already in the file's byte order. */
static int tiff_flush_band(tiff_out *t)
{
    const size_t tile_row = (size_t)t->tile * t->ss;
    int failed = 0;
#pragma omp parallel for schedule(dynamic) reduction(| : failed)
    for (int i = 0; i < t->across; i++) {
        uint8_t *tb = t->tiles + (size_t)i * t->tile_bytes;
        for (int r = 0; r < t->tile; r++)
            memcpy(tb + (size_t)r * tile_row,
                   t->band + (size_t)r * t->band_stride + (size_t)i * tile_row, tile_row);
        if (t->compress == COMPRESSION_NONE) {
            t->zlen[i] = t->tile_bytes;
            continue;
        }
        uLongf n = (uLongf)t->zcap;
        if (compress2(t->ztiles + (size_t)i * t->zcap, &n, tb, (uLong)t->tile_bytes,
                      Z_DEFAULT_COMPRESSION) != Z_OK)
            failed |= 1;
        t->zlen[i] = (size_t)n;
    }
    if (failed) {
        snprintf(tiff_error, sizeof tiff_error, "deflate failed");
        return -1;
    }
    for (int i = 0; i < t->across; i++) {
        const uint8_t *p = t->compress == COMPRESSION_NONE ? t->tiles + (size_t)i * t->tile_bytes
                                                          : t->ztiles + (size_t)i * t->zcap;
        uint32_t tileno = TIFFComputeTile(t->tif, (uint32_t)(i * t->tile), (uint32_t)t->y0, 0, 0);
        if (TIFFWriteRawTile(t->tif, tileno, (void *)p, (tmsize_t)t->zlen[i]) < 0)
            return -1;
    }
    t->y0 += t->rows;
    t->rows = 0;
    return 0;
}

/* Append one row of host-order samples; a full band (or the last row) is
 * written out. The last band's rows below the image stay zero. */
static int tiff_put_row(tiff_out *t, const uint8_t *row)
{
    memcpy(t->band + (size_t)t->rows * t->band_stride, row, (size_t)t->width * t->ss);
    t->rows++;
    if (t->rows == t->tile || t->y0 + t->rows == t->height) {
        if (t->rows < t->tile)
            memset(t->band + (size_t)t->rows * t->band_stride, 0,
                   (size_t)(t->tile - t->rows) * t->band_stride);
        return tiff_flush_band(t);
    }
    return 0;
}

/* Close: the directory is written here. Returns 0 or -1. */
static int tiff_close(tiff_out *t, int write_ok)
{
    int rc = 0;
    if (t->tif != NULL) {
        if (write_ok && !TIFFWriteDirectory(t->tif))
            rc = -1;
        if (write_ok && rc == 0 && !TIFFFlush(t->tif))
            rc = -1;
        TIFFClose(t->tif);
        t->tif = NULL;
    }
    free(t->band);
    free(t->tiles);
    free(t->ztiles);
    free(t->zlen);
    t->band = t->tiles = t->ztiles = NULL;
    t->zlen = NULL;
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc == 1 ? 0 : rc;

    const size_t ss = winent_dtype_size(o.dtype);
    const size_t row_bytes = ss * (size_t)o.width;
    int is_stdout = !strcmp(o.output, "-");
    FILE *f = NULL;
    uint8_t *row = malloc(row_bytes);
    double *field = NULL, *holes = NULL;
    noise_field land = {0}, hole = {0};
    int have_land = 0, have_hole = 0;
    double lo = 0.0, hi = 1.0, hole_thr = -1.0;
    tiff_out tout = {0};
    int have_tiff = 0;
    rc = 0;

    if (row == NULL)
        goto nomem;
    if (o.kind == KIND_LANDSCAPE) {
        have_land = 1;
        field = malloc(sizeof *field * (size_t)o.width);
        if (field == NULL ||
            field_init(&land, OCTAVES, octave_cell, octave_amp, mix64(o.seed ^ 0x6C616E64ull),
                       o.width))
            goto nomem;
        /* Stretch the middle of the field's distribution over [0, 1) so every
         * class shows up, not only the middle ones. */
        const double q[2] = {0.01, 0.99};
        double r[2];
        if (field_quantiles(&land, mix64(o.seed ^ 0x63616C31ull), q, 2, r))
            goto nomem;
        lo = r[0];
        hi = r[1] > r[0] ? r[1] : r[0] + 1e-9;
    }
    if (o.holes > 0.0) {
        have_hole = 1;
        holes = malloc(sizeof *holes * (size_t)o.width);
        if (holes == NULL || field_init(&hole, HOLE_OCTAVES, hole_cell, hole_amp,
                                        mix64(o.seed ^ 0x686F6C65ull), o.width))
            goto nomem;
        /* Threshold at the FRACTION quantile: about that share is below. */
        if (o.holes >= 1.0)
            hole_thr = 2.0;
        else if (field_quantiles(&hole, mix64(o.seed ^ 0x63616C32ull), &o.holes, 1,
                                 &hole_thr))
            goto nomem;
    }

    if (o.tiff) {
        if (tiff_open(&o, &tout)) {
            /* libtiff's open errors start with the name: say it once. */
            size_t n = strlen(o.output);
            const char *why = tiff_error;
            if (!strncmp(why, o.output, n) && !strncmp(why + n, ": ", 2))
                why += n + 2;
            fprintf(stderr, PROG ": cannot create %s: %s\n", o.output, why);
            rc = 4;
            goto done;
        }
        have_tiff = 1;
    } else if (is_stdout) {
        f = stdout;
    } else {
        f = fopen(o.output, "wb");
        if (f == NULL) {
            fprintf(stderr, PROG ": cannot create %s: %s\n", o.output, strerror(errno));
            rc = 4;
            goto done;
        }
    }
    if (f != NULL)
        setvbuf(f, NULL, _IOFBF, 1 << 20);

    /* Big-endian samples for a raw file, or for a big-endian TIFF (whose
     * header says so; raw tiles are written as they are). */
    const int swap = o.big_endian != host_is_big_endian() && ss > 1;
    const int is_float = winent_dtype_is_float(o.dtype);
    const double nclass = (double)o.values, inv_span = 1.0 / (hi - lo);
    for (int y = 0; y < o.height; y++) {
        if (have_land) {
            field_row(&land, o.width, y, field);
            if (o.dtype == WINENT_U8) { /* the common case, kept tight */
                const int64_t top = (int64_t)o.values - 1;
                for (int x = 0; x < o.width; x++) {
                    double t = (field[x] - lo) * inv_span;
                    int64_t c = (int64_t)((t < 0.0 ? 0.0 : t) * nclass);
                    row[x] = (uint8_t)(c > top ? top : c);
                }
            } else
            for (int x = 0; x < o.width; x++) {
                double t = (field[x] - lo) * inv_span;
                t = t < 0.0 ? 0.0 : t >= 1.0 ? 0.9999999999 : t;
                if (is_float) {
                    put_sample(row, o.dtype, (size_t)x, 0, t * nclass);
                } else {
                    /* t * nclass < 2^32: the signed conversion is exact. */
                    int64_t c = (int64_t)(t * nclass);
                    put_sample(row, o.dtype, (size_t)x,
                               c >= (int64_t)o.values ? (int64_t)o.values - 1 : c, 0.0);
                }
            }
        } else {
            uniform_row(&o, y, row);
        }
        if (have_hole) {
            /* Float nodata may be NaN: converting it to an integer is
             * undefined, so only integer types take the integer value. */
            const int64_t nodata_int = is_float ? 0 : (int64_t)o.nodata;
            field_row(&hole, o.width, y, holes);
            for (int x = 0; x < o.width; x++)
                if (holes[x] < hole_thr)
                    put_sample(row, o.dtype, (size_t)x, nodata_int, o.nodata);
        }
        if (swap)
            swap_row(row, (size_t)o.width, ss);
        if (o.tiff) {
            if (tiff_put_row(&tout, row)) {
                fprintf(stderr, PROG ": write to %s failed: %s\n", o.output, tiff_error);
                rc = 4;
                goto done;
            }
            continue;
        }
        if (fwrite(row, 1, row_bytes, f) != row_bytes) {
            fprintf(stderr, PROG ": write to %s failed: %s\n", is_stdout ? "standard output" : o.output,
                    strerror(errno));
            rc = 4;
            goto done;
        }
    }
    if (f != NULL && fflush(f) != 0) {
        fprintf(stderr, PROG ": write to %s failed: %s\n", is_stdout ? "standard output" : o.output,
                strerror(errno));
        rc = 4;
    }
    goto done;

nomem:
    fprintf(stderr, PROG ": out of memory for a row of %d samples\n", o.width);
    rc = 1;
done:
    if (f != NULL && !is_stdout && fclose(f) != 0 && rc == 0) {
        fprintf(stderr, PROG ": write to %s failed: %s\n", o.output, strerror(errno));
        rc = 4;
    }
    if (o.tiff) {
        if (tiff_close(&tout, have_tiff && rc == 0) && rc == 0) {
            fprintf(stderr, PROG ": write to %s failed: %s\n", o.output,
                    tiff_error[0] ? tiff_error : "cannot write the TIFF directory");
            rc = 4;
        }
        if (have_tiff && rc != 0)
            unlink(o.output); /* no half-written TIFF left behind */
    }
    if (have_land)
        field_free(&land);
    if (have_hole)
        field_free(&hole);
    free(field);
    free(holes);
    free(row);
    return rc;
}
