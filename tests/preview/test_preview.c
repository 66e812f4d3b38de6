/* SPDX-License-Identifier: BSD-3-Clause */
/* The preview module alone (src/tiles/sinks/preview.h, colormap.h): the colour
 * map's lightness, the image's size, block means that do not depend on
 * how rows are cut or ordered or on the threads adding them, the limits
 * it enforces, and its file (temporary until committed). The whole job
 * with --preview is tests/preview/test_preview.sh. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "tiles/sinks/colormap.h"
#include "tiles/sinks/preview.h"

/* CIE L* of an 8-bit sRGB colour, written again here (not the module's). */
static double lstar(const uint8_t c[3])
{
    double lin[3];
    for (int k = 0; k < 3; k++) {
        double v = c[k] / 255.0;
        lin[k] = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
    }
    double Y = 0.2126729 * lin[0] + 0.7151522 * lin[1] + 0.0721750 * lin[2];
    return Y > 216.0 / 24389.0 ? 116.0 * cbrt(Y) - 16.0 : Y * 24389.0 / 27.0;
}

static void test_colormap(void)
{
    uint8_t cm[WINENT_COLORMAP_SIZE][3];
    winent_colormap_build(cm);
    int increasing = 1;
    for (int i = 1; i < WINENT_COLORMAP_SIZE; i++)
        if (!(lstar(cm[i]) > lstar(cm[i - 1]))) {
            increasing = 0;
            CHECK(0, "L* of entry %d (%.3f) not above entry %d's (%.3f)", i, lstar(cm[i]), i - 1,
                  lstar(cm[i - 1]));
        }
    CHECK(increasing, "lightness strictly increasing");
    CHECK(fabs(lstar(cm[0]) - 15.0) < 0.5 && fabs(lstar(cm[255]) - 90.0) < 0.5,
          "L* from 15 to 90: %.2f, %.2f", lstar(cm[0]), lstar(cm[255]));
    CHECK(fabs(winent_srgb8_lightness(cm[128]) - lstar(cm[128])) < 1e-9, "two L* agree");
    /* Indigo at the bottom, teal in the middle, yellow at the top. */
    CHECK(cm[0][2] > cm[0][0] && cm[0][2] > cm[0][1], "entry 0 is blue-violet");
    CHECK(cm[128][1] > cm[128][0] && cm[128][2] > cm[128][0], "the middle is teal");
    CHECK(cm[255][0] > cm[255][2] && cm[255][1] > cm[255][2], "the top is yellow");
}

static void test_dims(void)
{
    static const int cases[][5] = {
        {8192, 8192, 1024, 1024, 1024},
        {3000, 2000, 1024, 1024, 683},
        {2000, 3000, 1024, 683, 1024},
        {100, 50, 1024, 100, 50},
        {1, 100000, 16, 1, 16},
        {100000, 1, 16, 16, 1},
        {5, 3, 4, 4, 2},
        {7, 7, 1, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int pw, ph;
        winent_preview_dims(cases[i][0], cases[i][1], cases[i][2], &pw, &ph);
        CHECK(pw == cases[i][3] && ph == cases[i][4], "%dx%d at %d: %dx%d, want %dx%d", cases[i][0],
              cases[i][1], cases[i][2], pw, ph, cases[i][3], cases[i][4]);
    }
}

enum { MW = 37, MH = 53 };

/* A map with NaN holes, a block of them too (rows 0-9, columns 0-9). */
static void make_map(float *m)
{
    uint32_t s = 12345;
    for (int i = 0; i < MW * MH; i++) {
        s = s * 1103515245u + 12345u;
        int y = i / MW, x = i % MW;
        m[i] = (float)((s >> 8) % 100000) / 9000.0f;
        if ((y < 10 && x < 10) || (s >> 28) == 3)
            m[i] = NAN;
    }
}

static void opts_for(winent_preview_opts *o, const char *path)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    o->map_width = MW;
    o->map_height = MH;
    o->size = 10;
    o->vmax = log(25.0);
    o->unit = "nat";
}

/* Remove a committed preview and the legend beside it. */
static void unlink_png(const char *path)
{
    char leg[600];
    unlink(path);
    if (winent_preview_legend_name(path, leg, sizeof leg) == 0)
        unlink(leg);
}

/* Add the map's rows in pieces cut by `cuts` (a list of row heights used
 * in turn), in the order given by `order` (piece numbers, NULL: in order). */
static winent_status add_in_pieces(winent_preview *pv, const float *m, const int *cuts, int ncuts,
                                   int reverse, winent_err *err)
{
    int starts[MH + 1], n = 0;
    for (int y = 0, k = 0; y < MH; k++) {
        starts[n++] = y;
        y += cuts[k % ncuts];
        if (y > MH)
            y = MH;
    }
    starts[n] = MH;
    winent_preview_scratch *a = NULL, *b = NULL;
    WINENT_TRY(winent_preview_scratch_create(pv, &a, err));
    winent_status st = winent_preview_scratch_create(pv, &b, err);
    for (int i = 0; i < n && st == WINENT_OK; i++) {
        int k = reverse ? n - 1 - i : i;
        st = winent_preview_add_rows(pv, k % 2 ? a : b, m + (size_t)starts[k] * MW, MW, starts[k],
                                     starts[k + 1], err);
    }
    winent_preview_scratch_free(a);
    winent_preview_scratch_free(b);
    return st;
}

static void test_means(const char *dir)
{
    float m[MW * MH];
    make_map(m);
    char path[512];
    snprintf(path, sizeof path, "%s/means.png", dir);
    winent_preview_opts o;
    opts_for(&o, path);
    static const int cuts_a[] = {1}, cuts_b[] = {7, 3, 11}, cuts_c[] = {MH};
    const int *cuts[] = {cuts_a, cuts_b, cuts_c};
    const int ncuts[] = {1, 3, 1};
    float first[MW * MH];
    int pw = 0, ph = 0;
    for (int run = 0; run < 6; run++) {
        winent_err err;
        winent_err_clear(&err);
        winent_preview *pv = NULL;
        winent_status st = winent_preview_open(&o, MH, &pv, &err);
        CHECK(st == WINENT_OK, "open: %s", err.msg);
        if (st != WINENT_OK)
            return;
        st = add_in_pieces(pv, m, cuts[run % 3], ncuts[run % 3], run >= 3, &err);
        CHECK(st == WINENT_OK, "add, run %d: %s", run, err.msg);
        winent_preview_size(pv, &pw, &ph);
        CHECK(pw == 7 && ph == 10, "size %dx%d", pw, ph);
        const float *img = winent_preview_image(pv);
        if (run == 0) {
            memcpy(first, img, sizeof(float) * (size_t)pw * (size_t)ph);
            /* Each block against its mean computed here, in the module's
             * fixed point (exact) and in plain doubles (within 2^-17). */
            int exact = 1, close = 1, empty = 0;
            for (int py = 0; py < ph; py++)
                for (int px = 0; px < pw; px++) {
                    int64_t s = 0;
                    double d = 0;
                    int n = 0;
                    for (int y = 0; y < MH; y++)
                        for (int x = 0; x < MW; x++) {
                            float v = m[y * MW + x];
                            if ((int64_t)y * ph / MH != py || (int64_t)x * pw / MW != px ||
                                isnan(v))
                                continue;
                            s += (int32_t)(v * 65536.0f + 0.5f);
                            d += v;
                            n++;
                        }
                    float got = img[py * pw + px];
                    if (n == 0) {
                        empty++;
                        exact &= isnan(got);
                        continue;
                    }
                    float want = (float)((double)s / 65536.0 / n);
                    exact &= memcmp(&got, &want, sizeof got) == 0;
                    close &= fabs(got - d / n) < 1e-5;
                }
            CHECK(exact, "block means equal the fixed-point means");
            CHECK(close, "block means within 1e-5 of the float64 means");
            CHECK(empty >= 1, "an all-NaN block (NaN in the image)");
        } else {
            CHECK(memcmp(first, img, sizeof(float) * (size_t)pw * (size_t)ph) == 0,
                  "run %d (other cuts or order) gives the same bits", run);
        }
        winent_preview_free(pv); /* not committed: the file goes */
        CHECK(access(path, F_OK) != 0, "no file without a commit");
    }
}

typedef struct thread_arg {
    winent_preview *pv;
    const float *m;
    int index, nthreads;
    winent_status st;
} thread_arg;

static void *add_rows_thread(void *arg)
{
    thread_arg *t = arg;
    winent_err err;
    winent_err_clear(&err);
    winent_preview_scratch *s = NULL;
    t->st = winent_preview_scratch_create(t->pv, &s, &err);
    /* Rows dealt out one by one: every preview row gets pieces from
     * every thread at once. */
    for (int y = t->index; y < MH && t->st == WINENT_OK; y += t->nthreads)
        t->st = winent_preview_add_rows(t->pv, s, t->m + (size_t)y * MW, MW, y, y + 1, &err);
    winent_preview_scratch_free(s);
    return NULL;
}

static void test_threads_and_file(const char *dir)
{
    float m[MW * MH];
    make_map(m);
    char path[512];
    snprintf(path, sizeof path, "%s/threads.png", dir);
    winent_preview_opts o;
    opts_for(&o, path);
    winent_err err;
    winent_err_clear(&err);
    winent_preview *ref = NULL, *pv = NULL;
    CHECK(winent_preview_open(&o, MH, &ref, &err) == WINENT_OK, "%s", err.msg);
    CHECK(winent_preview_open(&o, MH, &pv, &err) == WINENT_OK, "%s", err.msg);
    if (ref == NULL || pv == NULL)
        goto out;
    static const int one[] = {MH};
    CHECK(add_in_pieces(ref, m, one, 1, 0, &err) == WINENT_OK, "%s", err.msg);
    pthread_t th[4];
    thread_arg ta[4];
    for (int i = 0; i < 4; i++) {
        ta[i] = (thread_arg){pv, m, i, 4, WINENT_OK};
        pthread_create(&th[i], NULL, add_rows_thread, &ta[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(ta[i].st == WINENT_OK, "thread %d", i);
    }
    CHECK(memcmp(winent_preview_image(ref), winent_preview_image(pv), sizeof(float) * 70) == 0,
          "4 threads at once give the same bits");
    /* While open, only a temporary file beside the target. */
    CHECK(access(path, F_OK) != 0, "the name is free until the commit");
    CHECK(winent_preview_write(pv, &err) == WINENT_OK, "write: %s", err.msg);
    CHECK(winent_preview_commit(pv, &err) == WINENT_OK, "commit: %s", err.msg);
    FILE *f = fopen(path, "rb");
    unsigned char sig[8] = {0};
    CHECK(f && fread(sig, 1, 8, f) == 8 && memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0,
          "a PNG at the name after the commit");
    if (f)
        fclose(f);
    unlink_png(path);
out:
    winent_preview_free(ref);
    winent_preview_free(pv);
}

/* The whole file of `path`, malloc'd; *n its size. */
static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    *n = 0;
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size > 0 && (b = malloc((size_t)size)) && fread(b, 1, (size_t)size, f) == (size_t)size)
        *n = (size_t)size;
    fclose(f);
    return b;
}

/* Rows written to the PNG as they complete (flush between adds, as the
 * pipeline's writer does; a fixed stretch, --preview-range, lets them)
 * give the same file as all at the end. */
static void test_flush(const char *dir)
{
    float m[MW * MH];
    make_map(m);
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/flushed.png", dir);
    snprintf(pb, sizeof pb, "%s/at-end.png", dir);
    winent_preview_opts o;
    winent_err err;
    winent_preview *a = NULL, *b = NULL;
    winent_preview_scratch *s = NULL;
    winent_err_clear(&err);
    opts_for(&o, pa);
    o.range_given = 1, o.lo = 1.0, o.hi = 9.5;
    CHECK(winent_preview_open(&o, MH, &a, &err) == WINENT_OK, "%s", err.msg);
    opts_for(&o, pb);
    o.range_given = 1, o.lo = 1.0, o.hi = 9.5;
    CHECK(winent_preview_open(&o, MH, &b, &err) == WINENT_OK, "%s", err.msg);
    if (a == NULL || b == NULL || winent_preview_scratch_create(a, &s, &err) != WINENT_OK)
        goto out;
    for (int y = 0; y < MH; y += 4) {
        int y1 = y + 4 < MH ? y + 4 : MH;
        CHECK(winent_preview_add_rows(a, s, m + (size_t)y * MW, MW, y, y1, &err) == WINENT_OK, "%s",
              err.msg);
        CHECK(winent_preview_flush(a, &err) == WINENT_OK, "flush: %s", err.msg);
    }
    static const int one[] = {MH};
    CHECK(add_in_pieces(b, m, one, 1, 0, &err) == WINENT_OK, "%s", err.msg);
    CHECK(winent_preview_write(a, &err) == WINENT_OK && winent_preview_commit(a, &err) == WINENT_OK,
          "%s", err.msg);
    CHECK(winent_preview_write(b, &err) == WINENT_OK && winent_preview_commit(b, &err) == WINENT_OK,
          "%s", err.msg);
    size_t na, nb;
    unsigned char *da = slurp(pa, &na), *db = slurp(pb, &nb);
    CHECK(da && db && na == nb && na > 100 && memcmp(da, db, na) == 0,
          "flushed as rows come: the same %zu bytes as at the end (%zu)", na, nb);
    free(da);
    free(db);
    unlink_png(pa);
    unlink_png(pb);
out:
    winent_preview_scratch_free(s);
    winent_preview_free(a);
    winent_preview_free(b);
}

/* A stop raised while rows are flushed (a fixed stretch: rows stream):
 * WINENT_ERR_INTERRUPTED, then every later call fails, and no file is
 * left. With the percentiles' stretch, the rows wait for the write, which
 * a stop fails the same way. */
static void test_stop(const char *dir)
{
    float m[MW * MH];
    make_map(m);
    char path[512];
    snprintf(path, sizeof path, "%s/stopped.png", dir);
    volatile int stop = 0;
    winent_preview_opts o;
    opts_for(&o, path);
    o.stop = &stop;
    o.range_given = 1, o.lo = 0.0, o.hi = 5.0;
    winent_err err;
    winent_err_clear(&err);
    winent_preview *pv = NULL;
    static const int one[] = {MH};
    CHECK(winent_preview_open(&o, MH, &pv, &err) == WINENT_OK, "%s", err.msg);
    if (pv == NULL)
        return;
    CHECK(add_in_pieces(pv, m, one, 1, 0, &err) == WINENT_OK, "%s", err.msg);
    stop = 1;
    winent_status st = winent_preview_flush(pv, &err);
    CHECK(st == WINENT_ERR_INTERRUPTED, "flush after a stop: %d", st);
    stop = 0;
    winent_err_clear(&err);
    st = winent_preview_write(pv, &err);
    CHECK(st != WINENT_OK, "write after a failed flush: %d", st);
    winent_preview_free(pv);
    CHECK(access(path, F_OK) != 0, "nothing at the name");

    /* The percentiles' stretch: flush writes nothing, the write stops. */
    opts_for(&o, path);
    o.stop = &stop;
    CHECK(winent_preview_open(&o, MH, &pv, &err) == WINENT_OK, "%s", err.msg);
    if (pv == NULL)
        return;
    CHECK(add_in_pieces(pv, m, one, 1, 0, &err) == WINENT_OK, "%s", err.msg);
    stop = 1;
    CHECK(winent_preview_flush(pv, &err) == WINENT_OK, "flush before the stretch: %s", err.msg);
    st = winent_preview_write(pv, &err);
    CHECK(st == WINENT_ERR_INTERRUPTED, "write after a stop: %d", st);
    winent_preview_free(pv);
    CHECK(access(path, F_OK) != 0, "nothing at the name");
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* numpy's percentile (linear) of the n values v, sorted here. */
static double np_percentile(float *v, size_t n, double p)
{
    qsort(v, n, sizeof *v, cmp_float);
    double h = (double)(n - 1) * p / 100.0;
    size_t k = (size_t)h;
    return k + 1 < n ? v[k] + (h - (double)k) * ((double)v[k + 1] - v[k]) : v[k];
}

/* The stretch: the 2nd and 98th percentiles of the image's valid means,
 * held to a sort of them (numpy's definition) on images of many sizes
 * (ties, one valid pixel, two), every size of preview; a constant map and
 * a map of NaN get 0 .. vmax; a fixed stretch is kept as given. */
static void test_stretch(const char *dir)
{
    static float m[97 * 61];
    static float vals[97 * 61];
    char path[512];
    snprintf(path, sizeof path, "%s/stretch.png", dir);
    static const int sizes[] = {1, 2, 5, 16, 40, 97};
    for (int kind = 0; kind < 5; kind++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            uint32_t r = 99u + (uint32_t)kind;
            for (int i = 0; i < 97 * 61; i++) {
                r = r * 1103515245u + 12345u;
                m[i] = kind == 0   ? (float)((r >> 8) % 1000) / 97.0f          /* spread */
                       : kind == 1 ? (float)((r >> 8) % 4)                     /* ties */
                       : kind == 2 ? 2.5f                                      /* constant */
                       : kind == 3 ? NAN                                       /* no pixel */
                                   : (i == 3000 ? 1.25f : i == 17 ? 7.0f : NAN); /* two */
            }
            winent_preview_opts o;
            opts_for(&o, path);
            o.map_width = 97;
            o.map_height = 61;
            o.size = sizes[si];
            winent_preview *pv = NULL;
            winent_preview_scratch *s = NULL;
            winent_err err;
            winent_err_clear(&err);
            CHECK(winent_preview_open(&o, 61, &pv, &err) == WINENT_OK, "%s", err.msg);
            if (pv == NULL || winent_preview_scratch_create(pv, &s, &err) != WINENT_OK) {
                winent_preview_free(pv);
                continue;
            }
            CHECK(winent_preview_add_rows(pv, s, m, 97, 0, 61, &err) == WINENT_OK, "%s", err.msg);
            CHECK(winent_preview_write(pv, &err) == WINENT_OK, "%s", err.msg);
            int pw, ph;
            winent_preview_size(pv, &pw, &ph);
            const float *img = winent_preview_image(pv);
            size_t n = 0;
            for (int i = 0; i < pw * ph; i++)
                if (img[i] == img[i])
                    vals[n++] = img[i];
            double lo = 0, hi = o.vmax;
            if (n > 0) {
                double a = np_percentile(vals, n, 2.0), b = np_percentile(vals, n, 98.0);
                if (b > a)
                    lo = a, hi = b;
            }
            double glo, ghi;
            winent_preview_stretch(pv, &glo, &ghi);
            CHECK(glo == lo && ghi == hi,
                  "map kind %d at %dx%d: stretch %.9g..%.9g, the percentiles %.9g..%.9g", kind, pw,
                  ph, glo, ghi, lo, hi);
            winent_preview_scratch_free(s);
            winent_preview_free(pv); /* not committed: nothing left */
        }
    winent_preview_opts o;
    opts_for(&o, path);
    o.range_given = 1, o.lo = -1.5, o.hi = 0.25;
    winent_preview *pv = NULL;
    winent_err err;
    winent_err_clear(&err);
    CHECK(winent_preview_open(&o, MH, &pv, &err) == WINENT_OK, "%s", err.msg);
    if (pv) {
        double glo, ghi;
        winent_preview_stretch(pv, &glo, &ghi);
        CHECK(glo == -1.5 && ghi == 0.25, "fixed stretch %g..%g", glo, ghi);
    }
    winent_preview_free(pv);
    CHECK(access(path, F_OK) != 0, "nothing at the name");
}

static char *slurp_text(const char *path)
{
    size_t n;
    unsigned char *b = slurp(path, &n);
    char *t = b ? realloc(b, n + 1) : NULL;
    if (t)
        t[n] = '\0';
    else
        free(b);
    return t;
}

/* A georeferenced map's world file and PAM file, and the legend: their
 * names, their contents (the preview's geotransform: the map's pixels
 * W / pw and H / ph as large), committed after the PNG, and gone with it
 * on an abort; none without a geotransform, no PAM file without an EPSG
 * code. */
static void test_sidecars(const char *dir)
{
    char pgw[600], aux[600], leg[600];
    CHECK(winent_preview_legend_name("a/map.png", leg, sizeof leg) == 0 &&
              !strcmp(leg, "a/map.legend.png"),
          "legend name: %s", leg);
    CHECK(winent_preview_legend_name("a.b/x.PNG", leg, sizeof leg) == 0 &&
              !strcmp(leg, "a.b/x.legend.PNG"),
          "legend name: %s", leg);
    CHECK(winent_preview_legend_name("a/map.png", leg, 10) == -1, "legend name too long");
    CHECK(winent_preview_sidecar_names("a/map.png", pgw, aux, sizeof pgw) == 0 &&
              !strcmp(pgw, "a/map.pgw") && !strcmp(aux, "a/map.png.aux.xml"),
          "names: %s %s", pgw, aux);
    CHECK(winent_preview_sidecar_names("x.PNG", pgw, aux, sizeof pgw) == 0 &&
              !strcmp(pgw, "x.PGw") && !strcmp(aux, "x.PNG.aux.xml"),
          "names: %s %s", pgw, aux);
    CHECK(winent_preview_sidecar_names("a.b/noext", pgw, aux, sizeof pgw) == 0 &&
              !strcmp(pgw, "a.b/noext.pgw"),
          "names: %s", pgw);
    float m[MW * MH];
    make_map(m);
    char path[512];
    snprintf(path, sizeof path, "%s/geo.png", dir);
    winent_preview_sidecar_names(path, pgw, aux, sizeof pgw);
    winent_preview_legend_name(path, leg, sizeof leg);
    static const int one[] = {MH};
    for (int pass = 0; pass < 3; pass++) {
        winent_preview_opts o;
        opts_for(&o, path);
        o.has_geotransform = 1;
        const double gt[6] = {500000.0, 30.0, 0.0, 4600000.0, 0.0, -30.0};
        memcpy(o.gt, gt, sizeof gt);
        o.epsg = pass == 2 ? 0 : 32633;
        winent_preview *pv = NULL;
        winent_err err;
        winent_err_clear(&err);
        CHECK(winent_preview_open(&o, MH, &pv, &err) == WINENT_OK, "%s", err.msg);
        if (pv == NULL)
            continue;
        CHECK(add_in_pieces(pv, m, one, 1, 0, &err) == WINENT_OK, "%s", err.msg);
        CHECK(winent_preview_write(pv, &err) == WINENT_OK, "%s", err.msg);
        CHECK(access(pgw, F_OK) != 0 && access(aux, F_OK) != 0 && access(leg, F_OK) != 0,
              "sidecars before the commit");
        if (pass == 1) { /* a failed job: none of the four */
            winent_preview_free(pv);
            CHECK(access(path, F_OK) != 0 && access(pgw, F_OK) != 0 && access(aux, F_OK) != 0 &&
                      access(leg, F_OK) != 0,
                  "files left after an abort");
            continue;
        }
        CHECK(winent_preview_commit(pv, &err) == WINENT_OK, "%s", err.msg);
        CHECK(access(leg, F_OK) == 0, "no legend beside the PNG");
        int pw, ph;
        winent_preview_size(pv, &pw, &ph);
        winent_preview_free(pv);
        char *w = slurp_text(pgw), *x = slurp_text(aux);
        double v[6] = {0};
        CHECK(w && sscanf(w, "%lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4],
                          &v[5]) == 6,
              "world file: %s", w ? w : "(none)");
        const double sx = 30.0 * MW / pw, sy = -30.0 * MH / ph;
        CHECK(fabs(v[0] - sx) < 1e-9 && v[1] == 0 && v[2] == 0 && fabs(v[3] - sy) < 1e-9 &&
                  fabs(v[4] - (500000.0 + sx / 2)) < 1e-6 &&
                  fabs(v[5] - (4600000.0 + sy / 2)) < 1e-6,
              "world file %g %g %g %g %g %g for a %dx%d preview", v[0], v[1], v[2], v[3], v[4],
              v[5], pw, ph);
        if (pass == 0)
            CHECK(x && strstr(x, "<SRS>EPSG:32633</SRS>") && strstr(x, "<GeoTransform>"),
                  "PAM file: %s", x ? x : "(none)");
        else
            CHECK(x == NULL, "a PAM file without a CRS");
        free(w);
        free(x);
        unlink(path);
        unlink(pgw);
        unlink(aux);
        unlink(leg);
    }
    /* The sidecars are outputs: one that is the input is refused. */
    FILE *f = fopen(pgw, "wb");
    if (f)
        fclose(f);
    winent_err err;
    winent_err_clear(&err);
    CHECK(winent_preview_check(path, pgw, "out.zst", &err) == WINENT_ERR_USAGE &&
              strstr(err.msg, "world file") != NULL,
          "world file that is the input: %s", err.msg);
    unlink(pgw);
    winent_err_clear(&err);
    CHECK(winent_preview_check(path, "in.tif", leg, &err) == WINENT_ERR_USAGE &&
              strstr(err.msg, "legend") != NULL,
          "legend that is the output: %s", err.msg);
}

static void test_limits(const char *dir)
{
    float m[MW * MH];
    make_map(m);
    char path[512];
    snprintf(path, sizeof path, "%s/limits.png", dir);
    winent_preview_opts o;
    opts_for(&o, path);
    winent_err err;
    winent_preview_scratch *s = NULL;

    /* Room for the rows of 5 map rows in flight (3 accumulators): row 35
     * (block row 6, the slot of block row 0, still open) is a broken
     * promise, an internal error. */
    winent_preview *pv = NULL;
    winent_err_clear(&err);
    CHECK(winent_preview_open(&o, 5, &pv, &err) == WINENT_OK, "%s", err.msg);
    if (pv && winent_preview_scratch_create(pv, &s, &err) == WINENT_OK) {
        CHECK(winent_preview_add_rows(pv, s, m, MW, 0, 1, &err) == WINENT_OK, "%s", err.msg);
        winent_status st = winent_preview_add_rows(pv, s, m + 35 * MW, MW, 35, 36, &err);
        CHECK(st == WINENT_ERR_INTERNAL, "too many rows in flight: %d", st);
    }
    winent_preview_scratch_free(s);
    s = NULL;
    winent_preview_free(pv);
    pv = NULL;

    /* A row added twice, and a write before every row is in. */
    winent_err_clear(&err);
    CHECK(winent_preview_open(&o, MH, &pv, &err) == WINENT_OK, "%s", err.msg);
    if (pv && winent_preview_scratch_create(pv, &s, &err) == WINENT_OK) {
        CHECK(winent_preview_add_rows(pv, s, m, MW, 0, 3, &err) == WINENT_OK, "%s", err.msg);
        winent_status st = winent_preview_add_rows(pv, s, m + MW, MW, 1, 6, &err);
        CHECK(st == WINENT_ERR_INTERNAL, "a row twice: %d", st);
        winent_err_clear(&err);
        st = winent_preview_write(pv, &err);
        CHECK(st == WINENT_ERR_INTERNAL && strstr(err.msg, "block rows complete"),
              "write before the last row: %d %s", st, err.msg);
    }
    winent_preview_scratch_free(s);
    winent_preview_free(pv);
    CHECK(access(path, F_OK) != 0, "nothing at the name after failures");

    /* A folder that is not there: an output error at open. */
    char bad[600];
    snprintf(bad, sizeof bad, "%s/no/such/folder/p.png", dir);
    o.path = bad;
    winent_err_clear(&err);
    pv = NULL;
    CHECK(winent_preview_open(&o, MH, &pv, &err) == WINENT_ERR_OUTPUT && pv == NULL,
          "missing folder: %s", err.msg);
}

static void test_check(const char *dir)
{
    char in[512], png[512], other[512];
    snprintf(in, sizeof in, "%s/in.png", dir);
    snprintf(png, sizeof png, "%s/p.png", dir);
    snprintf(other, sizeof other, "%s/./p.png", dir);
    FILE *f = fopen(in, "wb");
    if (f)
        fclose(f);
    winent_err err;
#define EXPECT(want, ...)                                                                          \
    do {                                                                                           \
        winent_err_clear(&err);                                                                    \
        winent_status st_ = winent_preview_check(__VA_ARGS__, &err);                               \
        CHECK(st_ == (want), "winent_preview_check(%s): %d (%s)", #__VA_ARGS__, st_, err.msg);     \
    } while (0)
    EXPECT(WINENT_OK, png, in, "out.zst");
    EXPECT(WINENT_OK, png, NULL, NULL);
    EXPECT(WINENT_ERR_USAGE, in, in, "out.zst");      /* the input */
    EXPECT(WINENT_ERR_USAGE, png, in, png);           /* the output, a new name */
    EXPECT(WINENT_ERR_USAGE, other, in, png);         /* the same new name, spelled otherwise */
    EXPECT(WINENT_ERR_USAGE, in, NULL, in);           /* the output, an existing file */
    EXPECT(WINENT_ERR_USAGE, "-", in, "-");           /* both standard output */
    EXPECT(WINENT_ERR_USAGE, "p.jpg", in, "out.zst"); /* not a PNG's name */
    EXPECT(WINENT_ERR_USAGE, "", in, "out.zst");
    EXPECT(WINENT_OK, "P.PNG", in, "out.zst");
    EXPECT(WINENT_OK, "/dev/null", in, "out.zst"); /* a device, in place */
    EXPECT(WINENT_ERR_OUTPUT, dir, in, "out.zst"); /* a folder */
#undef EXPECT
    unlink(in);
}

int main(void)
{
    char dir[] = "/tmp/winent-preview-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    test_colormap();
    test_dims();
    test_means(dir);
    test_threads_and_file(dir);
    test_flush(dir);
    test_stop(dir);
    test_stretch(dir);
    test_sidecars(dir);
    test_limits(dir);
    test_check(dir);
    CHECK(rmdir(dir) == 0, "no file left in %s", dir);
    return harness_end();
}
