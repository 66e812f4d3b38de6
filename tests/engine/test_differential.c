/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Randomized differential test: whole jobs (winent_run, the CLI's library
 * call) against the reference engine, bit for bit, through the public API
 * only (winent.h), with libzstd and libtiff to read the outputs back.
 *
 * Each case draws an image (1..300 x 1..200, 1-row and 1-column ones
 * included), a window (odd sides 1..31, not square), a dtype (all 8),
 * values (few, many, the whole type; NaN, infinities and huge floats),
 * --bins/--range (float input always), --nodata, --base, the raw layout
 * (bands, interleave, byte order, header bytes, standard input), --threads
 * 1..4, --mem (1M to 1G: small budgets cut the image into many chunks),
 * --frame-rows, --tile, --compress, --level and the output format (raw,
 * .zst, .tif). The float32 map of the job must equal the reference
 * engine's on the same samples, every bit, NaN included.
 *
 *   test_differential [SEED [CASES [FIRST]]]
 *
 * runs cases FIRST .. FIRST + CASES - 1 (default: a fresh seed, 200 cases
 * from 0); each case draws from its own stream, so one reruns alone.
 *
 * The seed is printed first; a failing case prints the seed and the case
 * number, and the equivalent winent-stream command line. WINENT_DIFF_DEVICE
 * picks --device (default cpu: CI has no GPU; "auto" or "gpu" on a GPU
 * machine tests the CUDA engine the same way).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tiffio.h>
#include <zstd.h>

#include "harness.h"
#include "winent.h"

static unsigned long long rng;

static uint64_t below(uint64_t n)
{
    return n ? harness_rand(&rng) % n : 0;
}

static double unit(void)
{
    return (double)(harness_rand(&rng) >> 11) / 9007199254740992.0;
}

static int chance(double p)
{
    return unit() < p;
}

/* Odd, 1..31, small ones more often. */
static int odd_side(void)
{
    return chance(0.5) ? 1 + 2 * (int)below(4) : 1 + 2 * (int)below(16);
}

static const int64_t int_min[] = {0, -128, 0, -32768, 0, INT32_MIN};
static const int64_t int_max[] = {255, 127, 65535, 32767, UINT32_MAX, INT32_MAX};

typedef struct dcase {
    int w, h;
    winent_compute_opts co;
    /* Integer values: vmin .. vmin + nvals - 1; floats: lo .. hi. */
    int64_t vmin;
    uint64_t nvals;
    double flo, fhi;
    double hole_frac; /* share of pixels set to nodata */
    double nan_frac;  /* floats: NaN; and a few infinities or huge values */
    /* Raw layout. */
    int bands, band, interleave, big_endian, use_stdin;
    uint64_t header_bytes;
    /* Job. */
    int threads;
    uint64_t mem;
    int frame_rows, tile, level;
    winent_compress compress;
    int format; /* 0 raw, 1 .zst, 2 .tif */
} dcase;

static const char *const exts[] = {".raw", ".zst", ".tif"};

static void draw_case(dcase *c)
{
    memset(c, 0, sizeof *c);
    /* Sizes: 1-row and 1-column images, small and up to 300 x 200. */
    c->w = chance(0.1) ? 1 : chance(0.4) ? 1 + (int)below(24) : 1 + (int)below(300);
    c->h = chance(0.1) ? 1 : chance(0.4) ? 1 + (int)below(24) : 1 + (int)below(200);
    winent_compute_opts_default(&c->co);
    c->co.kx = odd_side();
    c->co.ky = odd_side();
    /* The reference sorts every window: keep pixels x window area bounded
     * (about 1.5 M) so 200 cases stay well under a minute. */
    while ((int64_t)c->w * c->h * c->co.kx * c->co.ky > 1500000) {
        if (c->h > c->w)
            c->h = (c->h + 1) / 2;
        else
            c->w = (c->w + 1) / 2;
    }
    c->co.base = (winent_base)below(3);
    c->co.dtype = (winent_dtype)below(WINENT_DTYPE_COUNT);
    if (winent_dtype_is_float(c->co.dtype)) {
        c->flo = -1000.0 + 1000.0 * unit();
        c->fhi = c->flo + (chance(0.2) ? 1e-3 : 1.0 + 1000.0 * unit());
        c->nan_frac = chance(0.5) ? 0.1 * unit() : 0.0;
        c->co.bins = chance(0.1) ? 1 + (uint32_t)below(70000) : 1 + (uint32_t)below(300);
        /* The range covers the data, or cuts it (clamped end bins). */
        double span = c->fhi - c->flo;
        c->co.range_lo = c->flo + span * (chance(0.5) ? 0.0 : unit() * 0.4 - 0.2);
        c->co.range_hi = c->fhi - span * (chance(0.5) ? 0.0 : unit() * 0.4 - 0.2);
        if (!(c->co.range_hi > c->co.range_lo))
            c->co.range_hi = c->co.range_lo + 1.0;
    } else {
        int t = (int)c->co.dtype;
        uint64_t span = (uint64_t)(int_max[t] - int_min[t]) + 1;
        switch (below(3)) {
        case 0: c->nvals = 1 + below(16); break; /* the few-values path */
        case 1: c->nvals = 17 + below(300); break;
        default: c->nvals = 1 + below(span); break; /* up to the whole type */
        }
        if (c->nvals > span)
            c->nvals = span;
        c->vmin = int_min[t] + (int64_t)below(span - c->nvals + 1);
        if (chance(0.25)) {
            c->co.bins = chance(0.2) ? 1 + (uint32_t)below(70000) : 1 + (uint32_t)below(300);
            double lo = (double)c->vmin, hi = (double)c->vmin + (double)c->nvals;
            c->co.range_lo = lo + (hi - lo) * (unit() * 0.4 - 0.2);
            c->co.range_hi = hi - (hi - lo) * (unit() * 0.4 - 0.2);
            if (!(c->co.range_hi > c->co.range_lo))
                c->co.range_hi = c->co.range_lo + 1.0;
        }
    }
    if (chance(0.35)) {
        c->co.has_nodata = 1;
        c->hole_frac = chance(0.8) ? 0.2 * unit() : 0.0;
        if (winent_dtype_is_float(c->co.dtype))
            /* A value the samples hold exactly (an f32 one for f32). */
            c->co.nodata = (double)(float)(c->flo + (c->fhi - c->flo) * unit());
        else if (chance(0.8))
            c->co.nodata = (double)(c->vmin + (int64_t)below(c->nvals));
        else if (c->vmin + (int64_t)c->nvals <= int_max[c->co.dtype])
            /* a value the type holds and the samples never do: matches
             * nothing (one outside the type is a usage error, issue 30) */
            c->co.nodata = (double)(c->vmin + (int64_t)c->nvals);
        else if (c->vmin > int_min[c->co.dtype])
            c->co.nodata = (double)(c->vmin - 1);
        else /* the samples span the whole type: one of them */
            c->co.nodata = (double)c->vmin;
    }
    c->bands = chance(0.7) ? 1 : 2 + (int)below(2);
    c->band = 1 + (int)below((uint64_t)c->bands);
    c->interleave = (int)below(3);
    c->big_endian = chance(0.3);
    c->header_bytes = chance(0.7) ? 0 : below(40);
    c->use_stdin = chance(0.1);
    c->threads = 1 + (int)below(4);
    static const uint64_t mems[] = {1u << 20, 4u << 20, 64u << 20, 1u << 30};
    c->mem = mems[below(4)];
    c->frame_rows = chance(0.3) ? 0 : 1 + (int)below(64);
    c->tile = chance(0.3) ? 0 : 16 * (1 + (int)below(4));
    c->compress = (winent_compress)below(4);
    c->level = chance(0.5) ? 0 : 1 + (int)below(5);
    c->format = (int)below(3);
}

static uint8_t *make_band(const dcase *c)
{
    const size_t n = (size_t)c->w * (size_t)c->h, ss = winent_dtype_size(c->co.dtype);
    uint8_t *img = malloc(n * ss);
    if (img == NULL)
        return NULL;
    const int is_float = winent_dtype_is_float(c->co.dtype);
    for (size_t i = 0; i < n; i++) {
        if (c->co.has_nodata && chance(c->hole_frac)) {
            harness_put_sample(img, c->co.dtype, i, is_float ? 0 : (int64_t)c->co.nodata, c->co.nodata);
            continue;
        }
        if (!is_float) {
            harness_put_sample(img, c->co.dtype, i, c->vmin + (int64_t)below(c->nvals), 0.0);
            continue;
        }
        double v = c->flo + (c->fhi - c->flo) * unit();
        if (chance(c->nan_frac)) {
            static const double special[] = {NAN,       NAN,   NAN,    INFINITY,
                                             -INFINITY, 1e300, -1e300, 3e38};
            v = special[below(sizeof special / sizeof special[0])];
        }
        harness_put_sample(img, c->co.dtype, i, 0, v);
    }
    return img;
}

static void swap_bytes(uint8_t *p, size_t size)
{
    for (size_t j = 0; j < size / 2; j++) {
        uint8_t t = p[j];
        p[j] = p[size - 1 - j];
        p[size - 1 - j] = t;
    }
}

/* The raw file: header, then every band in the case's interleave and byte
 * order; the case's band holds `img`, the others random bytes. */
static int write_input(const dcase *c, const uint8_t *img, const char *path)
{
    const size_t W = (size_t)c->w, H = (size_t)c->h, ss = winent_dtype_size(c->co.dtype);
    const size_t B = (size_t)c->bands, total = c->header_bytes + W * H * ss * B;
    uint8_t *f = malloc(total ? total : 1);
    if (f == NULL)
        return -1;
    for (size_t i = 0; i < c->header_bytes; i++)
        f[i] = (uint8_t)below(256);
    uint8_t *d = f + c->header_bytes;
    for (size_t b = 0; b < B; b++)
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++) {
                size_t at; /* sample index in the file */
                if (c->interleave == WINENT_INTERLEAVE_BSQ || B == 1)
                    at = (b * H + y) * W + x;
                else if (c->interleave == WINENT_INTERLEAVE_BIL)
                    at = (y * B + b) * W + x;
                else
                    at = (y * W + x) * B + b;
                uint8_t *s = d + at * ss;
                if ((int)b == c->band - 1) {
                    memcpy(s, img + (y * W + x) * ss, ss);
                    if (c->big_endian)
                        swap_bytes(s, ss);
                } else {
                    for (size_t k = 0; k < ss; k++)
                        s[k] = (uint8_t)below(256);
                }
            }
    FILE *fp = fopen(path, "wb");
    int ok = fp != NULL && fwrite(f, 1, total, fp) == total;
    if (fp != NULL && fclose(fp) != 0)
        ok = 0;
    free(f);
    return ok ? 0 : -1;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return NULL;
    struct stat st;
    uint8_t *b = NULL;
    if (fstat(fileno(fp), &st) == 0 && (b = malloc((size_t)st.st_size + 1)) != NULL &&
        fread(b, 1, (size_t)st.st_size, fp) != (size_t)st.st_size) {
        free(b);
        b = NULL;
    }
    *n = (size_t)st.st_size;
    fclose(fp);
    return b;
}

/* The job's map, as float32 in host order (little-endian hosts only; the
 * byte order of raw and .zst output is little-endian by contract). */
static int read_map(const dcase *c, const char *path, float *map, char *why, size_t why_n)
{
    const size_t n = (size_t)c->w * (size_t)c->h;
    size_t len = 0;
    if (c->format != 2) {
        uint8_t *b = slurp(path, &len);
        int rc = -1;
        if (b == NULL) {
            snprintf(why, why_n, "cannot read %s", path);
        } else if (c->format == 0) {
            if (len != n * 4)
                snprintf(why, why_n, "raw output of %zu bytes, want %zu", len, n * 4);
            else
                memcpy(map, b, n * 4), rc = 0;
        } else {
            size_t got = ZSTD_decompress(map, n * 4, b, len);
            if (ZSTD_isError(got))
                snprintf(why, why_n, "zstd: %s", ZSTD_getErrorName(got));
            else if (got != n * 4)
                snprintf(why, why_n, ".zst decodes to %zu bytes, want %zu", got, n * 4);
            else
                rc = 0;
        }
        free(b);
        return rc;
    }
    TIFF *t = TIFFOpen(path, "r");
    if (t == NULL) {
        snprintf(why, why_n, "libtiff cannot open %s", path);
        return -1;
    }
    uint32_t tw = 0, th = 0;
    uint16_t bps = 0, fmt = 0, spp = 0;
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &tw);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &th);
    TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &fmt);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &spp);
    int rc = -1;
    float *buf = NULL;
    if ((int)tw != c->w || (int)th != c->h || bps != 32 || fmt != SAMPLEFORMAT_IEEEFP || spp != 1) {
        snprintf(why, why_n, "GeoTIFF %ux%u, %u bits, format %u, %u samples", tw, th, bps, fmt,
                 spp);
        goto done;
    }
    if (TIFFIsTiled(t)) {
        uint32_t bw = 0, bh = 0;
        TIFFGetField(t, TIFFTAG_TILEWIDTH, &bw);
        TIFFGetField(t, TIFFTAG_TILELENGTH, &bh);
        buf = malloc(TIFFTileSize(t));
        if (buf == NULL || bw == 0 || bh == 0)
            goto done;
        for (uint32_t y0 = 0; y0 < th; y0 += bh)
            for (uint32_t x0 = 0; x0 < tw; x0 += bw) {
                if (TIFFReadTile(t, buf, x0, y0, 0, 0) < 0) {
                    snprintf(why, why_n, "libtiff cannot read the tile at (%u, %u)", x0, y0);
                    goto done;
                }
                for (uint32_t y = y0; y < y0 + bh && y < th; y++)
                    for (uint32_t x = x0; x < x0 + bw && x < tw; x++)
                        map[(size_t)y * tw + x] = buf[(size_t)(y - y0) * bw + (x - x0)];
            }
    } else {
        for (uint32_t y = 0; y < th; y++)
            if (TIFFReadScanline(t, map + (size_t)y * tw, y, 0) < 0) {
                snprintf(why, why_n, "libtiff cannot read row %u", y);
                goto done;
            }
    }
    rc = 0;
done:
    free(buf);
    TIFFClose(t);
    return rc;
}

/* The case as a winent-stream command line, to reproduce it by hand. */
static void print_command(const dcase *c)
{
    fprintf(stderr, "  winent-stream --device cpu --size %dx%d --dtype %s --window %dx%d --base %s",
            c->w, c->h, winent_dtype_name(c->co.dtype), c->co.kx, c->co.ky,
            c->co.base == WINENT_BASE_2    ? "2"
            : c->co.base == WINENT_BASE_10 ? "10"
                                           : "e");
    if (c->co.bins)
        fprintf(stderr, " --bins %u --range %.17g:%.17g", c->co.bins, c->co.range_lo,
                c->co.range_hi);
    if (c->co.has_nodata)
        fprintf(stderr, " --nodata %.17g", c->co.nodata);
    fprintf(stderr, " --bands %d --band %d --interleave %s --byteorder %s --header-bytes %llu",
            c->bands, c->band,
            c->interleave == 0   ? "bsq"
            : c->interleave == 1 ? "bip"
                                 : "bil",
            c->big_endian ? "big" : "little", (unsigned long long)c->header_bytes);
    fprintf(stderr, " --threads %d --mem %lluM", c->threads, (unsigned long long)(c->mem >> 20));
    if (c->frame_rows)
        fprintf(stderr, " --frame-rows %d", c->frame_rows);
    if (c->tile)
        fprintf(stderr, " --tile %d", c->tile);
    if (c->level)
        fprintf(stderr, " --level %d", c->level);
    static const char *const comp[] = {"zstd", "deflate", "lzw", "none"};
    fprintf(stderr, " --compress %s %sIN.raw OUT%s\n", comp[c->compress],
            c->use_stdin ? "- < " : "", exts[c->format]);
}

/* One case: 0 when the job's map equals the reference's. */
static int run_case(int k, unsigned long long seed, const char *dir, const char *device)
{
    dcase c;
    draw_case(&c);
    const size_t n = (size_t)c.w * (size_t)c.h;
    char in[600], out[600], msg[WINENT_MSG_LEN] = "", why[WINENT_MSG_LEN + 128] = "";
    snprintf(in, sizeof in, "%s/in.raw", dir);
    snprintf(out, sizeof out, "%s/out%s", dir, exts[c.format]);
    uint8_t *img = make_band(&c);
    float *ref = malloc(n * sizeof *ref), *got = malloc(n * sizeof *got);
    winent_engine *e = NULL;
    int ok = 0, saved_stdin = -1;
    if (img == NULL || ref == NULL || got == NULL || write_input(&c, img, in) != 0) {
        snprintf(why, sizeof why, "cannot prepare the input: %s", strerror(errno));
        goto done;
    }
    /* The reference: the whole image as one chunk. */
    winent_error err;
    if (winent_engine_create(&c.co, WINENT_ENGINE_REFERENCE, 0, c.w, c.h, 1, &e, &err) !=
            WINENT_OK ||
        winent_engine_compute(e, img, (size_t)c.w * winent_dtype_size(c.co.dtype), c.w, c.h, 0, c.h,
                              0, c.h, ref, (size_t)c.w) != WINENT_OK) {
        snprintf(why, sizeof why, "reference: %s", e ? winent_engine_error(e)->message : err.message);
        goto done;
    }
    winent_job_opts o;
    winent_job_opts_default(&o);
    o.input = c.use_stdin ? "-" : in;
    o.output = out;
    o.compute = c.co;
    o.nodata_given = c.co.has_nodata;
    o.width = c.w;
    o.height = c.h;
    o.dtype_given = 1;
    o.bands = c.bands;
    o.band = c.band;
    o.interleave = (winent_interleave)c.interleave;
    o.big_endian = c.big_endian;
    o.header_bytes = c.header_bytes;
    o.level = c.level;
    o.frame_rows = c.frame_rows;
    if (c.tile)
        o.tile = c.tile;
    o.compress = c.compress;
    o.device = device;
    o.threads = c.threads;
    o.mem_bytes = c.mem;
    if (c.use_stdin) {
        int fd = open(in, O_RDONLY);
        saved_stdin = dup(STDIN_FILENO);
        if (fd < 0 || saved_stdin < 0 || dup2(fd, STDIN_FILENO) < 0) {
            snprintf(why, sizeof why, "cannot put the input on standard input");
            if (fd >= 0)
                close(fd);
            goto done;
        }
        close(fd);
    }
    winent_status st = winent_run(&o, NULL, &err);
    snprintf(msg, sizeof msg, "%s", err.message);
    /* A budget too small for the units of the output (a whole 512-row tile
     * row, a default .zst frame) is refused before any work, leaving no
     * file: then the next budget up, from the start of the input. */
    while (st == WINENT_ERR_USAGE && strstr(msg, "--mem") && o.mem_bytes < ((uint64_t)1 << 30)) {
        if (access(out, F_OK) == 0) {
            snprintf(why, sizeof why, "a refused --mem left %s behind", out);
            goto done;
        }
        o.mem_bytes *= 4;
        if (c.use_stdin && lseek(STDIN_FILENO, 0, SEEK_SET) != 0) {
            snprintf(why, sizeof why, "cannot rewind standard input");
            goto done;
        }
        st = winent_run(&o, NULL, &err);
        snprintf(msg, sizeof msg, "%s", err.message);
    }
    if (st != WINENT_OK) {
        snprintf(why, sizeof why, "winent_run: %s: %s", winent_status_name(st), msg);
        goto done;
    }
    memset(got, 0xA5, n * sizeof *got);
    if (read_map(&c, out, got, why, sizeof why) != 0)
        goto done;
    ok = 1;
    for (size_t i = 0; i < n && ok; i++)
        if (memcmp(&ref[i], &got[i], sizeof(float)) != 0) {
            uint32_t a, b;
            memcpy(&a, &ref[i], 4);
            memcpy(&b, &got[i], 4);
            snprintf(why, sizeof why,
                     "pixel (%zu, %zu): reference %.9g (0x%08x), job %.9g (0x%08x)",
                     i % (size_t)c.w, i / (size_t)c.w, ref[i], a, got[i], b);
            ok = 0;
        }
done:
    if (saved_stdin >= 0) {
        dup2(saved_stdin, STDIN_FILENO);
        close(saved_stdin);
    }
    CHECK(ok, "case %d (%s output): %s (rerun: test_differential %llu 1 %d)", k, exts[c.format] + 1,
          why, seed, k);
    if (!ok)
        print_command(&c);
    winent_engine_free(e);
    free(img);
    free(ref);
    free(got);
    unlink(out);
    return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    unsigned long long seed;
    int cases = argc > 2 ? atoi(argv[2]) : 200, first = argc > 3 ? atoi(argv[3]) : 0;
    if (argc > 1) {
        seed = strtoull(argv[1], NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (unsigned long long)ts.tv_sec * 1000003ull ^ (unsigned long long)ts.tv_nsec ^
               ((unsigned long long)getpid() << 32);
    }
    const char *device = getenv("WINENT_DIFF_DEVICE");
    if (device == NULL || *device == '\0')
        device = "cpu";
    printf("seed %llu, %d cases, device %s (rerun: test_differential %llu %d)\n", seed, cases,
           device, seed, cases);
    fflush(stdout);
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/winent-diff-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    /* Libtiff would print warnings of its own; the checks say enough. */
    TIFFSetWarningHandler(NULL);
    int failures = 0;
    for (int k = first; k < first + cases; k++) {
        /* Each case from its own stream: case k reproduces alone. */
        rng = seed ^ (0x9E3779B97F4A7C15ull * (unsigned long long)(k + 1));
        if (run_case(k, seed, dir, device) != 0 && ++failures >= 10) {
            fprintf(stderr, "10 failures: stopping\n");
            break;
        }
    }
    char in[600];
    snprintf(in, sizeof in, "%s/in.raw", dir);
    unlink(in);
    rmdir(dir);
    return harness_end();
}
