/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU engine's paths at the edges of their code counts, against the
 * reference engine, bit for bit (issue 32): chunks holding exactly 16, 17,
 * 64, 65, 256 and 257 distinct codes (every row holds all of them, so every
 * band does), the few-values path (codes < 16), the column paths of 64 and
 * 256 bins, and the sliding engine; nodata inside and outside the bins,
 * NaN with --bins, i8, windows wider and taller than the image, images
 * wider than a column strip, smooth maps (few bins change per step: the
 * path the engine picks for itself) and noise. Each case runs under every
 * forced path (WINENT_CPU_PATH unset, slide, portable, avx2, avx512, cmp: the
 * compare kernel of small windows, engine_cpu_cmp.c; a path
 * the CPU lacks is lowered to one it has), whole and in bands of 1, 5 and 16
 * rows with their halos, and checks which path the engine took where the
 * forced path fixes it. Under a sanitizer (WINENT_SANITIZE), ten times
 * slower, each case meets half the windows, and each of those half the
 * paths and half the band splits, taking turns, so that every window,
 * path and split still meets every kind of case.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernels/engine_cpu.h"
#include "kernels/engine_cpu_cmp.h"
#include "kernels/engine_reference.h"

typedef enum layout {
    NOISE, /* each row a shuffle of the codes, repeated: every code in every row */
    SMOOTH, /* patches of one code (every code still in every row) */
    CLEAN   /* as NOISE, with no NaN and no nodata pixel at all */
} layout;

typedef struct ccase {
    const char *name;
    winent_dtype dtype;
    int ncodes;    /* distinct values in every row */
    int64_t first; /* values first .. first + ncodes - 1 (integers) */
    uint32_t bins; /* --bins over --range 0:bins (floats, or integers quantized) */
    int has_nodata;
    double nodata; /* put on about 1 pixel in 20 (a NaN too for floats) */
    layout lay;
    const char *path; /* the path of a band where the ISA is forced */
} ccase;

static const ccase cases[] = {
    {"u8 exactly 16 codes", WINENT_U8, 16, 0, 0, 0, 0, NOISE, "few"},
    /* Every one of 256 bins in use and no NaN: no byte is left for the
     * sentinel, so the codes stay 16-bit (they were narrowed, and bin 0
     * read as nodata). */
    {"f32 --bins 256, every bin, no NaN", WINENT_F32, 0, 0, 256, 0, 0, CLEAN, "slide"},
    {"u16 256 codes, nodata 9 on no pixel", WINENT_U16, 256, 1000, 0, 1, 9, CLEAN, "slide"},
    {"u16 256 codes, no nodata", WINENT_U16, 256, 1000, 0, 0, 0, CLEAN, "cols256"},
    {"u8 exactly 17 codes", WINENT_U8, 17, 0, 0, 0, 0, NOISE, "cols64"},
    {"u8 exactly 64 codes", WINENT_U8, 64, 0, 0, 0, 0, NOISE, "cols64"},
    {"u8 exactly 65 codes", WINENT_U8, 65, 0, 0, 0, 0, NOISE, "cols256"},
    {"u8 exactly 256 codes", WINENT_U8, 256, 0, 0, 0, 0, NOISE, "cols256"},
    {"u16 exactly 257 codes", WINENT_U16, 257, 0, 0, 0, 0, NOISE, "slide"},
    {"u16 exactly 256 codes 1000..1255", WINENT_U16, 256, 1000, 0, 0, 0, NOISE, "cols256"},
    {"u16 64 codes 60000.., nodata 65535", WINENT_U16, 64, 60000, 0, 1, 65535, SMOOTH, "cols256"},
    {"i16 40 codes -20..19, nodata -20", WINENT_I16, 40, -20, 0, 1, -20, SMOOTH, "cols64"},
    {"u8 16 codes 100..115", WINENT_U8, 16, 100, 0, 0, 0, NOISE, "cols256"},
    {"u8 64 codes, smooth", WINENT_U8, 64, 0, 0, 0, 0, SMOOTH, "cols64"},
    {"u8 256 codes, smooth", WINENT_U8, 256, 0, 0, 0, 0, SMOOTH, "cols256"},
    {"u8 64 codes, nodata 5", WINENT_U8, 64, 0, 0, 1, 5, NOISE, "cols64"},
    {"u8 63 codes, nodata 63 (the 64th)", WINENT_U8, 63, 0, 0, 1, 63, SMOOTH, "cols64"},
    {"u8 17 codes, nodata 255", WINENT_U8, 17, 0, 0, 1, 255, SMOOTH, "cols256"},
    {"u8 256 codes, nodata 200", WINENT_U8, 256, 0, 0, 1, 200, NOISE, "cols256"},
    {"i8 64 codes -32..31, nodata -1", WINENT_I8, 64, -32, 0, 1, -1, NOISE, "cols256"},
    {"f32 --bins 64, NaN, nodata 0.5", WINENT_F32, 0, 0, 64, 1, 0.5, SMOOTH, "cols256"},
    {"f32 --bins 63, NaN", WINENT_F32, 0, 0, 63, 0, 0, SMOOTH, "cols64"},
    {"f64 --bins 200, NaN", WINENT_F64, 0, 0, 200, 0, 0, NOISE, "cols256"},
    {"u8 --bins 40 over 0:40", WINENT_U8, 40, 0, 40, 0, 0, NOISE, "cols64"},
};

/* Windows wider and taller than the images, and square ones. */
static const int windows[][2] = {{3, 3}, {5, 5},   {9, 3},  {1, 15},
                                 {7, 3}, {31, 31}, {63, 7}, {255, 3}};
/* Widths at least the codes (every row holds them all); one past a strip of
 * 64-bin columns (8192 columns less the halo), four of 256-bin ones. */
static const int sizes[][2] = {{300, 23}, {257, 70}, {8300, 5}, {150, 260}};

static const char *const paths[] = {"", "slide", "portable", "avx2", "avx512", "cmp"};

static unsigned long long seed = 0xc0de5u;

/* A sanitizer's build: the share of the cases run (above); run_case's turn. */
static int quarter;
static unsigned turn_of_case;

/* The rows of a case: every row holds each of the case's codes (values, or
 * bin centres for --bins) at least once. */
static uint8_t *make_input(const ccase *cc, int w, int h)
{
    const size_t ss = winent_dtype_size(cc->dtype);
    const int n = cc->bins ? (int)cc->bins : cc->ncodes;
    uint8_t *buf = malloc((size_t)w * h * ss);
    int *perm = malloc(sizeof *perm * (size_t)n);
    if (buf == NULL || perm == NULL) {
        free(buf);
        free(perm);
        return NULL;
    }
    for (int y = 0; y < h; y++) {
        for (int i = 0; i < n; i++)
            perm[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int k = (int)(harness_rand(&seed) % (unsigned)(i + 1)), t = perm[i];
            perm[i] = perm[k];
            perm[k] = t;
        }
        /* Smooth rows: runs of about 9 pixels, the run's code from the
         * shuffle and shifted slowly down the rows; the row's first n
         * pixels still hold every code. */
        int shift = y / 4;
        for (int x = 0; x < w; x++) {
            int k = x < n               ? perm[x]
                    : cc->lay == SMOOTH ? perm[((x + shift) / 9) % n]
                                        : (int)(harness_rand(&seed) % (unsigned)n);
            const size_t i = (size_t)y * w + x;
            int special = (int)(harness_rand(&seed) % 20) == 0 && x >= n && cc->lay != CLEAN;
            if (winent_dtype_is_float(cc->dtype)) {
                double v = k + 0.5; /* --range 0:bins: bin k */
                if (special)
                    v = cc->has_nodata && (harness_rand(&seed) & 1) ? cc->nodata : NAN;
                harness_put_sample(buf, cc->dtype, i, 0, v);
            } else {
                int64_t v = cc->first + k;
                if (special && cc->has_nodata)
                    v = (int64_t)cc->nodata;
                harness_put_sample(buf, cc->dtype, i, v, 0.0);
            }
        }
    }
    free(perm);
    return buf;
}

/* One image, one window: the reference once, then the engine under every
 * forced path. */
static void run_case(const ccase *cc, int kx, int ky, winent_base base, int w, int h)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.kx = kx;
    o.ky = ky;
    o.base = base;
    o.dtype = cc->dtype;
    if (cc->bins) {
        o.bins = cc->bins;
        o.range_lo = 0;
        o.range_hi = cc->bins;
    }
    o.has_nodata = cc->has_nodata;
    o.nodata = cc->nodata;
    winent_err err;
    winent_err_clear(&err);
    winent_plan *p = NULL;
    winent_cpu_engine *e = NULL;
    const size_t n = (size_t)w * h, row_bytes = (size_t)w * winent_dtype_size(cc->dtype);
    uint8_t *in = make_input(cc, w, h);
    float *ref = malloc(n * sizeof *ref), *got = malloc(n * sizeof *got);
    if (!in || !ref || !got) {
        CHECK(0, "out of memory");
        goto done;
    }
    CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s", err.msg);
    if (p == NULL)
        goto done;
    winent_chunk whole = {in, row_bytes, w, h, 0, h, 0, h};
    CHECK(winent_reference_compute(p, &whole, ref, (size_t)w, &err) == WINENT_OK, "%s", err.msg);
    const unsigned turn = turn_of_case++;
    for (size_t pi = 0; pi < sizeof paths / sizeof paths[0]; pi++) {
        const char *path = paths[pi];
        if (quarter && (pi + turn) % 2)
            continue;
        setenv("WINENT_CPU_PATH", path, 1);
        CHECK(winent_cpu_engine_create(p, w, h, 1, &e, &err) == WINENT_OK, "%s", err.msg);
        if (e == NULL)
            goto done;
        static const int bands[] = {0, 1, 5, 16};
        for (size_t bi = 0; bi < sizeof bands / sizeof bands[0]; bi++) {
            if (quarter && (bi + turn / 2) % 2)
                continue;
            const int bh = bands[bi] ? bands[bi] : h;
            memset(got, 0xA5, n * sizeof *got);
            for (int y0 = 0; y0 < h; y0 += bh) {
                int y1 = y0 + bh < h ? y0 + bh : h, in_y0, in_h;
                winent_chunk_input_rows(y0, y1, p->ry, h, &in_y0, &in_h);
                winent_chunk c = {
                    in + (size_t)in_y0 * row_bytes, row_bytes, w, h, in_y0, in_h, y0, y1};
                CHECK(winent_cpu_engine_compute(e, &c, got + (size_t)y0 * w, (size_t)w, &err) ==
                          WINENT_OK,
                      "%s", err.msg);
            }
            size_t at = 0;
            while (at < n && memcmp(&ref[at], &got[at], sizeof *ref) == 0)
                at++;
            CHECK(at == n,
                  "%s, %dx%d window, base %d, %dx%d image, bands of %d, path '%s' (took %s): pixel "
                  "(%zu, %zu) reference %.9g, cpu %.9g",
                  cc->name, kx, ky, (int)base, w, h, bh, path, winent_cpu_engine_last_path(e),
                  at % (size_t)w, at / (size_t)w, at < n ? ref[at] : 0.0, at < n ? got[at] : 0.0);
        }
        /* A forced ISA fixes the path by the codes alone; "slide" is always
         * the sliding engine; "cmp" takes 3 x 3 and 5 x 5 windows of 8-bit
         * codes without nodata where the CPU has it (else as unset). */
        const char *want = !strcmp(path, "slide") ? "slide" : *path ? cc->path : NULL;
        if (!strcmp(path, "cmp"))
            want = winent_cmp_available(kx, ky) && kx == ky && kx <= 5 &&
                           strcmp(cc->path, "slide") && strcmp(cc->path, "few") &&
                           !cc->has_nodata && !winent_dtype_is_float(cc->dtype)
                       ? "cmp"
                       : NULL;
        if (want)
            CHECK(!strcmp(winent_cpu_engine_last_path(e), want),
                  "%s, %dx%d window, path '%s': took %s, expected %s", cc->name, kx, ky, path,
                  winent_cpu_engine_last_path(e), want);
        winent_cpu_engine_free(e);
        e = NULL;
    }
done:
    winent_cpu_engine_free(e);
    winent_plan_free(p);
    free(in);
    free(ref);
    free(got);
}

/* The CPU's rate as the launch rule sees it (winent_cpu_engine_ns_per_update,
 * per update): the few-values path's on 16 codes, below the sliding
 * engine's on a smooth map at 31 x 31 (a column path pays), the sliding
 * engine's on noise at 5 x 5 and wherever WINENT_CPU_PATH=slide. */
static double rate_of(const ccase *cc, int k, const char *path)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.kx = o.ky = k;
    o.dtype = cc->dtype;
    winent_err err;
    winent_err_clear(&err);
    winent_plan *p = NULL;
    winent_cpu_engine *e = NULL;
    double ns = -1;
    const int w = 300, h = 64;
    uint8_t *in = make_input(cc, w, h);
    o.has_nodata = cc->has_nodata;
    o.nodata = cc->nodata;
    setenv("WINENT_CPU_PATH", path, 1);
    if (in && winent_plan_create(&o, &p, &err) == WINENT_OK &&
        winent_cpu_engine_create(p, w, h, 1, &e, &err) == WINENT_OK)
        ns = winent_cpu_engine_ns_per_update(e, in, (size_t)w * winent_dtype_size(cc->dtype), w, h);
    CHECK(ns > 0, "%s: no engine: %s", cc->name, err.msg);
    winent_cpu_engine_free(e);
    winent_plan_free(p);
    free(in);
    return ns;
}

static const ccase *find_case(const char *name)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (!strcmp(cases[i].name, name))
            return &cases[i];
    return NULL;
}

static void test_rates(void)
{
    const ccase *c16 = find_case("u8 exactly 16 codes"),
                *smooth64 = find_case("u8 64 codes, smooth");
    const ccase *noise256 = find_case("u8 exactly 256 codes"),
                *u16 = find_case("u16 exactly 257 codes");
    const ccase *smooth16 = find_case("u16 64 codes 60000.., nodata 65535");
    const double slide = rate_of(c16, 5, "slide");
    const double none = rate_of(c16, 9, ""); /* 9: every CPU has a few-values path */
    CHECK(none < slide / 2, "16 codes at 9x9: %g ns per update, slide %g", none, slide);
    const double smooth = rate_of(smooth64, 31, "");
    CHECK(smooth < slide, "smooth 64 codes at 31x31: %g ns per update, slide %g", smooth, slide);
    const double smooth_u16 = rate_of(smooth16, 31, "");
    CHECK(smooth_u16 < slide, "smooth u16 64 codes at 31x31: %g ns per update, slide %g",
          smooth_u16, slide);
    CHECK(rate_of(smooth64, 31, "slide") == slide, "forced slide: not the sliding rate");
    const double noise = rate_of(noise256, 9, "");
    CHECK(noise == slide, "noise of 256 codes at 9x9: %g ns per update, slide %g", noise, slide);
    /* 5x5: the compare kernel, where the CPU has it, whatever the codes. */
    const double small = rate_of(noise256, 5, "");
    CHECK(winent_cmp_available(5, 5) ? small < slide : small == slide,
          "noise of 256 codes at 5x5: %g ns per update, slide %g", small, slide);
    const double wide = rate_of(u16, 5, "");
    CHECK(wide == slide, "u16 257 codes: %g ns per update, slide %g", wide, slide);
}

int main(void)
{
    quarter = getenv("WINENT_SANITIZE") != NULL;
    test_rates();
    const int nc = (int)(sizeof cases / sizeof cases[0]);
    int turn = 0;
    for (int c = 0; c < nc; c++)
        for (size_t wi = 0; wi < sizeof windows / sizeof windows[0]; wi++) {
            /* The wide image (two strips) with the windows that matter
             * there; the others with every window. */
            const size_t si = turn++ % 2;
            if (quarter && (c + (int)wi) % 2)
                continue;
            run_case(&cases[c], windows[wi][0], windows[wi][1], (winent_base)(turn % 3),
                     sizes[si][0], sizes[si][1]);
            if (windows[wi][0] == 31 || windows[wi][0] == 3)
                run_case(&cases[c], windows[wi][0], windows[wi][1], (winent_base)(turn % 3),
                         sizes[2][0], sizes[2][1]);
        }
    /* Windows taller than 128 rows: a column's count then changes by more
     * than a byte holds from one column to the next. */
    for (int c = 0; c < nc; c++)
        run_case(&cases[c], 9, 201, (winent_base)(c % 3), sizes[3][0], sizes[3][1]);
    unsetenv("WINENT_CPU_PATH");
    return harness_end();
}
