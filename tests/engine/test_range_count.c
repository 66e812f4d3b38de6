/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of issue 13's small parsers and counters, against plain
 * restatements of their rules:
 * - winent_range_count (clamped samples, valid samples, min/max) and
 *   winent_range_minmax on every dtype, with NaN, infinities, nodata,
 *   values exactly at LO and HI, ranges between two floats, unaligned rows;
 * - the statistics of GDAL's metadata XML and of a .aux.xml;
 * - the ENVI map info of a geotransform as GDAL reads it back.
 * (The .zst header's JSON: tests/zst/test_json.c.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "kernels/range_count.h"
#include "tiles/sources/band_stats.h"
#include "tiles/sinks/envi_header.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t next_rand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The sample i of `buf` (type t) as the kernels see it: valid or not, and
 * its value. */
static int sample_at(const void *buf, winent_dtype t, size_t i, const winent_code_rule *r,
                     double *v)
{
    const uint8_t *p = (const uint8_t *)buf + i * winent_dtype_size(t);
    switch (t) {
#define INT(T)                                                                                     \
    {                                                                                              \
        T x;                                                                                       \
        memcpy(&x, p, sizeof x);                                                                   \
        *v = (double)x;                                                                            \
        return !(r->has_nodata && r->nodata_int_ok && (int64_t)x == r->nodata_int);                \
    }
    case WINENT_U8: INT(uint8_t)
    case WINENT_I8: INT(int8_t)
    case WINENT_U16: INT(uint16_t)
    case WINENT_I16: INT(int16_t)
    case WINENT_U32: INT(uint32_t)
    case WINENT_I32: INT(int32_t)
#undef INT
    case WINENT_F32: {
        float x;
        memcpy(&x, p, sizeof x);
        *v = x;
        return x == x && !(r->has_nodata && x == r->nodata_f32);
    }
    case WINENT_F64: {
        double x;
        memcpy(&x, p, sizeof x);
        *v = x;
        return x == x && !(r->has_nodata && x == r->nodata_f64);
    }
    default: return 0;
    }
}

/* Fill n samples of type t around [lo, hi], with the special values. */
static void fill(void *buf, winent_dtype t, size_t n, double lo, double hi, double nodata)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next_rand();
        double span = hi - lo, d = lo - span + (double)(r % 100000) / 100000.0 * 3.0 * span;
        switch (r >> 60) {
        case 0: d = lo; break;
        case 1: d = hi; break;
        case 2: d = nodata; break;
        case 3: d = winent_dtype_is_float(t) ? NAN : lo; break;
        case 4: d = winent_dtype_is_float(t) ? ((r >> 8) & 1 ? INFINITY : -INFINITY) : hi; break;
        case 5: d = winent_dtype_is_float(t) ? nextafter(lo, -INFINITY) : lo - 1; break;
        case 6: d = winent_dtype_is_float(t) ? nextafter(hi, INFINITY) : hi + 1; break;
        default: break;
        }
        if (!winent_dtype_is_float(t)) {
            static const double tmin[] = {0, -128, 0, -32768, 0, -2147483648.0};
            static const double tmax[] = {255, 127, 65535, 32767, 4294967295.0, 2147483647.0};
            d = floor(d);
            d = d < tmin[t] ? tmin[t] : d > tmax[t] ? tmax[t] : d;
        }
        harness_put_sample(buf, t, i, winent_dtype_is_float(t) ? 0 : (int64_t)d, d);
    }
}

static void test_counts(winent_dtype t, double lo, double hi, int has_nodata, double nodata,
                        size_t offset)
{
    winent_compute_opts o;
    winent_plan *plan = NULL;
    winent_err err;
    winent_err_clear(&err);
    winent_compute_opts_default(&o);
    o.dtype = t;
    o.bins = 64;
    o.range_lo = lo;
    o.range_hi = hi;
    o.has_nodata = has_nodata;
    o.nodata = nodata;
    if (winent_plan_create(&o, &plan, &err) != WINENT_OK) {
        CHECK(0, "plan: %s", err.msg);
        return;
    }
    const size_t n = 10007, sz = winent_dtype_size(t);
    uint8_t *mem = malloc(n * sz + 16);
    void *buf = mem + offset; /* rows may start anywhere */
    fill(buf, t, n, lo, hi, nodata);
    winent_clamp_counts got, want;
    winent_clamp_init(&got);
    winent_clamp_init(&want);
    /* In two calls, as pieces of rows are counted. */
    winent_range_count(plan, buf, n / 3, &got);
    winent_range_count(plan, (uint8_t *)buf + (n / 3) * sz, n - n / 3, &got);
    winent_minmax mm;
    winent_minmax_init(&mm);
    winent_range_minmax((int)t, buf, n, has_nodata, nodata, &mm);
    uint64_t finite = 0;
    for (size_t i = 0; i < n; i++) {
        double v;
        if (!sample_at(buf, t, i, &plan->rule, &v))
            continue;
        want.valid++;
        want.below += v < lo; /* in float64: the SPEC's formula's */
        want.above += v > hi;
        if (isfinite(v)) {
            finite++;
            want.min = v < want.min ? v : want.min;
            want.max = v > want.max ? v : want.max;
        }
    }
    const char *name = winent_dtype_name(t);
    CHECK(got.valid == want.valid, "%s: valid %llu, want %llu", name,
          (unsigned long long)got.valid, (unsigned long long)want.valid);
    CHECK(got.below == want.below, "%s [%.17g, %.17g]: below %llu, want %llu", name, lo, hi,
          (unsigned long long)got.below, (unsigned long long)want.below);
    CHECK(got.above == want.above, "%s [%.17g, %.17g]: above %llu, want %llu", name, lo, hi,
          (unsigned long long)got.above, (unsigned long long)want.above);
    CHECK(got.min == want.min && got.max == want.max, "%s: min/max %g %g, want %g %g", name,
          got.min, got.max, want.min, want.max);
    CHECK(mm.n == finite && (finite == 0 || (mm.min == want.min && mm.max == want.max)),
          "%s: minmax %g %g (%llu), want %g %g (%llu)", name, mm.min, mm.max,
          (unsigned long long)mm.n, want.min, want.max, (unsigned long long)finite);
    free(mem);
    winent_plan_free(plan);
}

static void test_stats_xml(void)
{
    double lo = 0, hi = 0;
    const char *md = "<GDALMetadata>\n"
                     "  <Item name=\"STATISTICS_MAXIMUM\" sample=\"0\">255</Item>\n"
                     "  <Item name=\"STATISTICS_MINIMUM\" sample=\"0\">3.5</Item>\n"
                     "  <Item name=\"OFFSET\" sample=\"0\" role=\"offset\">7</Item>\n"
                     "  <Item name=\"STATISTICS_MINIMUM\" sample=\"1\">-2e3</Item>\n"
                     "  <Item name=\"STATISTICS_MAXIMUM\" sample=\"1\">1e-3</Item>\n"
                     "  <Item name=\"STATISTICS_MINIMUM\" sample=\"2\">1</Item>\n"
                     "  <Item name=\"STATISTICS_MAXIMUM\" sample=\"2\">9</Item>\n"
                     "  <Item name=\"STATISTICS_APPROXIMATE\" sample=\"2\">YES</Item>\n"
                     "  <Item name=\"window\">5x5</Item>\n"
                     "</GDALMetadata>";
    CHECK(winent_stats_from_gdal_metadata(md, 1, &lo, &hi) && lo == 3.5 && hi == 255,
          "band 1: %g %g", lo, hi);
    CHECK(winent_stats_from_gdal_metadata(md, 2, &lo, &hi) && lo == -2000 && hi == 1e-3,
          "band 2: %g %g", lo, hi);
    CHECK(!winent_stats_from_gdal_metadata(md, 3, &lo, &hi), "band 3 is approximate");
    CHECK(!winent_stats_from_gdal_metadata(md, 4, &lo, &hi), "band 4 has none");
    CHECK(!winent_stats_from_gdal_metadata("<GDALMetadata><Item name=\"STATISTICS_MINIMUM\" "
                                           "sample=\"0\">1</Item></GDALMetadata>",
                                           1, &lo, &hi),
          "a minimum alone is no range");
    CHECK(!winent_stats_from_gdal_metadata("<GDALMetadata><Item name=\"STATISTICS_MINIMUM\" "
                                           "sample=\"0\">x</Item><Item name=\"STATISTICS_MAXIMUM\" "
                                           "sample=\"0\">2</Item>",
                                           1, &lo, &hi),
          "not a number");
    CHECK(!winent_stats_from_gdal_metadata(NULL, 1, &lo, &hi), "no metadata");

    char dir[] = "/tmp/winent-stats-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        CHECK(0, "mkdtemp");
        return;
    }
    char path[256], aux[300];
    snprintf(path, sizeof path, "%s/in.raw", dir);
    snprintf(aux, sizeof aux, "%s.aux.xml", path);
    FILE *f = fopen(aux, "w");
    fputs("<PAMDataset>\n"
          "  <PAMRasterBand band=\"1\">\n"
          "    <Metadata domain=\"IMAGE_STRUCTURE\">\n"
          "      <MDI key=\"STATISTICS_MINIMUM\">-99</MDI>\n"
          "    </Metadata>\n"
          "    <Metadata>\n"
          "      <MDI key=\"STATISTICS_MAXIMUM\">0.75</MDI>\n"
          "      <MDI key=\"STATISTICS_MEAN\">0.5</MDI>\n"
          "      <MDI key=\"STATISTICS_MINIMUM\">0.25</MDI>\n"
          "    </Metadata>\n"
          "  </PAMRasterBand>\n"
          "  <PAMRasterBand band=\"2\">\n"
          "    <Metadata><MDI key=\"STATISTICS_MINIMUM\">5</MDI></Metadata>\n"
          "  </PAMRasterBand>\n"
          "</PAMDataset>\n",
          f);
    fclose(f);
    CHECK(winent_stats_from_aux_xml(path, 1, &lo, &hi) && lo == 0.25 && hi == 0.75,
          ".aux.xml band 1: %g %g", lo, hi);
    CHECK(!winent_stats_from_aux_xml(path, 2, &lo, &hi), ".aux.xml band 2: no maximum");
    snprintf(path, sizeof path, "%s/none.raw", dir);
    CHECK(!winent_stats_from_aux_xml(path, 1, &lo, &hi), "no .aux.xml");
    unlink(aux);
    rmdir(dir);
}

/* GDAL's ENVI driver, restated: what a map info gives back. */
static void gdal_mapinfo(double x0, double y0, double xs, double ys, double deg, double gt[6])
{
    double r = -deg * 3.14159265358979323846 / 180.0;
    gt[0] = x0;
    gt[1] = cos(r) * xs;
    gt[2] = -sin(r) * xs;
    gt[3] = y0;
    gt[4] = -sin(r) * ys;
    gt[5] = -cos(r) * ys;
}

static void test_map_info(void)
{
    double x0, y0, xs, ys, deg, back[6];
    const double north_up[6] = {101985, 300.0379266750948, 0, 2826915, 0, -300.041782729805};
    CHECK(winent_envi_map_info(north_up, &x0, &y0, &xs, &ys, &deg) && deg == 0 && xs == north_up[1] &&
              ys == -north_up[5] && x0 == north_up[0] && y0 == north_up[3],
          "north-up");
    const double south_up[6] = {-180, 0.5, 0, -90, 0, 0.5};
    CHECK(winent_envi_map_info(south_up, &x0, &y0, &xs, &ys, &deg) && deg == 0 && ys == -0.5,
          "+y pixel size");
    /* A rotation GDAL itself writes: found again. */
    double turned[6];
    gdal_mapinfo(500, 600, 30, 20, 25, turned);
    int ok = winent_envi_map_info(turned, &x0, &y0, &xs, &ys, &deg);
    gdal_mapinfo(x0, y0, xs, ys, deg, back);
    int close = ok;
    for (int i = 0; i < 6; i++)
        close = close && fabs(back[i] - turned[i]) < 1e-9 * 50;
    CHECK(close, "rotation 25: %g %g %g", xs, ys, deg);
    /* rotated.tif's shear: no map info gives it back. */
    const double shear[6] = {100, 17.320508075688775, 5, 200, 10, -8.660254037844387};
    CHECK(!winent_envi_map_info(shear, &x0, &y0, &xs, &ys, &deg), "shear refused");
}

int main(void)
{
    for (int t = 0; t < WINENT_DTYPE_COUNT; t++)
        for (size_t off = 0; off < 3; off++) {
            test_counts((winent_dtype)t, 10, 20, 0, 0, off);
            test_counts((winent_dtype)t, 10, 20, 1, 15, off);
            test_counts((winent_dtype)t, -3.5, 100.25, 1, -1, off);
        }
    /* A range whose ends lie between two floats, and one beyond float32. */
    test_counts(WINENT_F32, 0.1, 0.30000000000000004, 0, 0, 1);
    test_counts(WINENT_F32, -1e39, 1e39, 1, 0, 0);
    test_counts(WINENT_F64, 0.1, 0.30000000000000004, 1, 0.2, 0);
    test_stats_xml();
    test_map_info();
    return harness_end();
}
