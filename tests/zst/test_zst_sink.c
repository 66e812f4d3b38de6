/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_zst_sink.c - the .zst sink driven through the sink API, as the
 * pipeline drives it (encoders on units out of order, writes in order),
 * checked by readers that are not ours: the zstd command, Python's json
 * module, a seek-table walk written here from the seekable format's text,
 * and --info (winent_info_print) on good and damaged files.
 */
#include <dirent.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "harness.h"
#include "tiles/sink.h"

#define W       37
#define H       53
#define R       8 /* rows per frame: 7 frames, the last one 5 rows */
#define NFRAMES ((H + R - 1) / R)

static char dir[256];
static float map[W * H];

static void make_map(void)
{
    unsigned long long seed = 42;
    for (int i = 0; i < W * H; i++)
        map[i] = (float)(harness_rand(&seed) % 1000) / 97.0f;
    map[5] = NAN;
    map[W + 3] = -0.0f;
    map[W * H - 1] = INFINITY;
}

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static winent_georef geo;
static uint16_t geokeys[] = {1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, 32633};
static double tiepoints[] = {0, 0, 0, 500000.125, 4600000.1, 0};
static double geodoubles[] = {6378137.0, 298.257223563};
static char geoascii[] = "WGS 84 / UTM \"33N\"|\xc3\xa9\x01|";

static void make_georef(void)
{
    memset(&geo, 0, sizeof geo);
    geo.n_scale = 3;
    geo.scale[0] = 30.5;
    geo.scale[1] = 0.1;
    geo.n_tiepoints = 6;
    geo.tiepoints = tiepoints;
    geo.n_geokeys = 16;
    geo.geokeys = geokeys;
    geo.n_geodoubles = 2;
    geo.geodoubles = geodoubles;
    geo.geoascii = geoascii;
}

static winent_compute_opts compute;

static void sink_opts(winent_sink_opts *o, const char *path, int level)
{
    winent_compute_opts_default(&compute);
    compute.kx = 7;
    compute.ky = 3;
    compute.base = WINENT_BASE_2;
    compute.bins = 16;
    compute.range_lo = 0;
    compute.range_hi = 15.5;
    compute.has_nodata = 1;
    compute.nodata = -9999;
    memset(o, 0, sizeof *o);
    o->path = path;
    o->format = WINENT_FORMAT_AUTO;
    o->width = W;
    o->height = H;
    o->level = level;
    o->frame_rows = R;
    o->compute = &compute;
    o->source_name = "dir/na\"me\\x\n.raw\xff";
    o->georef = &geo;
    o->nodata_in_play = 1;
}

/* Write the map through the sink: units encoded in a scrambled order by
 * `nenc` encoders in turn, written in order. */
static winent_status write_map(const char *path, int nenc, int level)
{
    winent_sink_opts o;
    winent_sink *s = NULL;
    winent_sink_encoder *enc[3] = {NULL, NULL, NULL};
    winent_bytes units[NFRAMES];
    winent_err err;
    winent_status st;
    static const int order[NFRAMES] = {6, 2, 0, 5, 1, 4, 3};
    memset(units, 0, sizeof units);
    winent_err_clear(&err);
    sink_opts(&o, path, level);
    WINENT_TRY_GOTO(st, winent_sink_open(&o, &s, &err));
    CHECK(winent_sink_unit_rows(s) == R, "unit rows %d", winent_sink_unit_rows(s));
    for (int i = 0; i < nenc; i++)
        WINENT_TRY_GOTO(st, winent_sink_encoder_create(s, &enc[i], &err));
    for (int k = 0; k < NFRAMES; k++) {
        int u = order[k], y0 = u * R, rows = y0 + R <= H ? R : H - y0;
        WINENT_TRY_GOTO(st,
                        winent_sink_encode(enc[k % nenc], u, map + y0 * W, rows, &units[u], &err));
    }
    for (int u = 0; u < NFRAMES; u++)
        WINENT_TRY_GOTO(st, winent_sink_write(s, u, &units[u], &err));
    WINENT_TRY_GOTO(st, winent_sink_finish(s, &err));
fail:
    if (st != WINENT_OK) {
        fprintf(stderr, "write_map: %s\n", err.msg);
        winent_sink_abort(s);
    }
    for (int i = 0; i < 3; i++)
        winent_sink_encoder_free(enc[i]);
    for (int u = 0; u < NFRAMES; u++)
        winent_bytes_free(&units[u]);
    winent_sink_free(s);
    return st;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)len + 1);
    if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return buf;
}

static int spit(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    int ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The map as the file must hold it: float32 little-endian. */
static void map_le(uint8_t *out)
{
    for (int i = 0; i < W * H; i++) {
        uint32_t v;
        memcpy(&v, &map[i], 4);
        for (int b = 0; b < 4; b++)
            out[4 * i + b] = (uint8_t)(v >> (8 * b));
    }
}

/* Files in the test directory whose name contains `part`. */
static int count_files(const char *part)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strstr(e->d_name, part))
            n++;
    if (d)
        closedir(d);
    return n;
}

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return system(cmd);
}

static void test_zstd_decodes(const char *path)
{
    char dec[512];
    size_t n = 0;
    static uint8_t want[W * H * 4];
    path_of(dec, sizeof dec, "dec.bin");
    CHECK(run("zstd -dcq '%s' > '%s'", path, dec) == 0, "zstd -dc failed");
    uint8_t *got = slurp(dec, &n);
    map_le(want);
    CHECK(got && n == sizeof want, "zstd -dc gave %zu bytes, want %zu", n, sizeof want);
    CHECK(got && n == sizeof want && memcmp(got, want, n) == 0, "zstd -dc: other bytes");
    free(got);
}

/* The header, read by Python's json module (bare NaN/Infinity refused). */
static void test_header_json(const char *path)
{
    int rc =
        run("/usr/bin/python3 '" WINENT_TEST_SRC
            "/tests/lib/zst_read.py' header '%s' | /usr/bin/python3 -c '"
            "import json, sys\n"
            "h = json.load(sys.stdin, parse_constant=lambda c: sys.exit(\"bare \" + c))\n"
            "g = h[\"georef\"]\n"
            "want = {\"format\": \"winent-stream/1\", \"width\": %d, \"height\": %d,\n"
            "  \"dtype\": \"float32\", \"byteorder\": \"little\", \"window\": [7, 3], \"base\": "
            "\"2\",\n"
            "  \"bins\": 16, \"range\": [0, 15.5], \"nodata\": -9999, \"output_nodata\": \"NaN\",\n"
            "  \"rows_per_frame\": %d, \"frames\": %d,\n"
            "  \"source\": \"dir/na\\\"me\\\\x\\n.raw\\ufffd\", \"version\": \"%s\"}\n"
            "for k, v in want.items():\n"
            "    assert h[k] == v, (k, h[k], v)\n"
            "assert g[\"epsg\"] == 32633 and g[\"crs\"] == \"EPSG:32633\", g\n"
            "assert g[\"geotransform\"] == [500000.125, 30.5, 0, 4600000.1, 0, -0.1], g\n"
            "assert g[\"geokeys\"][-1] == 32633 and len(g[\"geokeys\"]) == 16, g\n"
            "assert g[\"geodoubles\"] == [6378137.0, 298.257223563], g\n"
            "assert g[\"geoascii\"] == \"WGS 84 / UTM \\\"33N\\\"|\\u00e9\\u0001|\", g\n"
            "assert g[\"tiepoints\"] == [0, 0, 0, 500000.125, 4600000.1, 0], g\n"
            "assert g[\"pixel_scale\"] == [30.5, 0.1, 0], g\n"
            "assert \"transform\" not in g, g\n"
            "'",
            path, W, H, R, NFRAMES, WINENT_VERSION_STRING);
    CHECK(rc == 0, "the header is not the JSON expected (rc %d)", rc);
    /* The frames' digests, computed apart from zstd and the C code, need
     * python3's xxhash module: without it this check is skipped, and said. */
    if (run("/usr/bin/python3 -c 'import xxhash' 2>/dev/null") != 0) {
        SKIP_PART("zst_read.py check: python3 has no xxhash module (apt-get install "
                  "python3-xxhash)");
        return;
    }
    CHECK(run("/usr/bin/python3 '" WINENT_TEST_SRC "/tests/lib/zst_read.py' check '%s'", path) == 0,
          "zst_read.py check failed");
}

/* Walk the seek table from the end of the file, as the seekable format
 * describes it, and decode one middle frame alone. */
static void test_seek_walk(const char *path)
{
    size_t n = 0;
    uint8_t *f = slurp(path, &n);
    CHECK(f && n > 100, "cannot read %s", path);
    if (!f)
        return;
    const uint8_t *foot = f + n - 9;
    CHECK(le32(foot + 5) == 0x8F92EAB1u, "seekable magic %08x", le32(foot + 5));
    CHECK(foot[4] == 0x80, "descriptor %02x", foot[4]);
    uint32_t entries = le32(foot);
    CHECK(entries == NFRAMES + 1, "%u entries", entries);
    size_t tsize = 8 + (size_t)entries * 12 + 9;
    const uint8_t *t = f + n - tsize;
    CHECK(le32(t) == 0x184D2A5Eu && le32(t + 4) == tsize - 8, "seek table frame header");
    /* Offsets count from the first byte of the file: entry 0 is the
     * header frame. */
    CHECK(le32(t + 8) == 8 + le32(f + 4) && le32(t + 12) == 0, "entry 0 is not the header frame");
    int mid = 3; /* data frame 3 = entry 4 */
    uint64_t off = 0, doff = 0;
    for (int i = 0; i < 1 + mid; i++) {
        off += le32(t + 8 + 12 * i);
        doff += le32(t + 12 + 12 * i);
    }
    uint32_t c = le32(t + 8 + 12 * (1 + mid)), d = le32(t + 12 + 12 * (1 + mid));
    CHECK(doff == (uint64_t)mid * R * W * 4, "decompressed offset %llu", (unsigned long long)doff);
    CHECK(d == R * W * 4, "frame %d holds %u bytes", mid, d);
    CHECK(off + c <= n - tsize, "frame beyond the table");
    if (off + c <= n - tsize) {
        static float rows[R * W];
        size_t got = ZSTD_decompress(rows, sizeof rows, f + off, c);
        CHECK(!ZSTD_isError(got) && got == d, "frame %d alone: %s", mid,
              ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
        CHECK(memcmp(rows, map + mid * R * W, d) == 0, "frame %d: other rows", mid);
        CHECK(le32(t + 16 + 12 * (1 + mid)) == le32(f + off + c - 4), "checksum entry");
        CHECK(ZSTD_getFrameContentSize(f + off, c) == d, "frame without its content size");
    }
    /* The last frame is short. */
    CHECK(le32(t + 12 + 12 * NFRAMES) == (H - (NFRAMES - 1) * R) * W * 4, "last frame size");
    free(f);
}

static void test_abort(void)
{
    char path[512];
    winent_sink_opts o;
    winent_sink *s = NULL;
    winent_sink_encoder *e = NULL;
    winent_bytes b = {0};
    winent_err err;
    size_t n = 0;
    winent_err_clear(&err);
    path_of(path, sizeof path, "keep.zst");
    CHECK(spit(path, "keep me", 7) == 0, "cannot write %s", path);
    sink_opts(&o, path, 3);
    CHECK(winent_sink_open(&o, &s, &err) == WINENT_OK, "open: %s", err.msg);
    CHECK(count_files("keep.zst.tmp") == 1, "no temporary file while writing");
    CHECK(winent_sink_encoder_create(s, &e, &err) == WINENT_OK, "encoder: %s", err.msg);
    CHECK(winent_sink_encode(e, 0, map, R, &b, &err) == WINENT_OK, "encode: %s", err.msg);
    CHECK(winent_sink_write(s, 0, &b, &err) == WINENT_OK, "write: %s", err.msg);
    /* Out of order and wrong row counts are refused, not written. */
    winent_err e2;
    winent_err_clear(&e2);
    CHECK(winent_sink_write(s, 2, &b, &e2) != WINENT_OK, "frame 2 accepted after frame 0");
    winent_err_clear(&e2);
    CHECK(winent_sink_encode(e, 1, map, R - 1, &b, &e2) != WINENT_OK, "short frame accepted");
    winent_sink_abort(s);
    winent_sink_encoder_free(e);
    winent_sink_free(s);
    winent_bytes_free(&b);
    uint8_t *kept = slurp(path, &n);
    CHECK(kept && n == 7 && memcmp(kept, "keep me", 7) == 0, "abort touched the final name");
    free(kept);
    CHECK(count_files(".tmp") == 0, "abort left a temporary file");

    /* Freed without abort or finish (a failure before the end): no file. */
    path_of(path, sizeof path, "never.zst");
    sink_opts(&o, path, 1);
    s = NULL;
    CHECK(winent_sink_open(&o, &s, &err) == WINENT_OK, "open: %s", err.msg);
    winent_sink_free(s);
    CHECK(access(path, F_OK) != 0, "a freed sink left %s", path);
    CHECK(count_files(".tmp") == 0, "a freed sink left a temporary file");

    /* Bad levels are usage errors; an unopenable path an output error. */
    sink_opts(&o, path, 99);
    winent_err_clear(&err);
    CHECK(winent_sink_open(&o, &s, &err) == WINENT_ERR_USAGE, "level 99: %d", err.status);
    CHECK(s == NULL, "sink left after a failed open");
    path_of(path, sizeof path, "no/such/dir/x.zst");
    sink_opts(&o, path, 1);
    winent_err_clear(&err);
    CHECK(winent_sink_open(&o, &s, &err) == WINENT_ERR_OUTPUT, "bad dir: %d", err.status);
}

static winent_status info_of(const char *path, char *out, size_t outn, char *msg)
{
    FILE *f = tmpfile();
    winent_error err;
    winent_status st = winent_info_print(path, f, &err);
    snprintf(msg, WINENT_MSG_LEN, "%s", err.message);
    rewind(f);
    size_t n = fread(out, 1, outn - 1, f);
    out[n] = '\0';
    fclose(f);
    return st;
}

static void test_info(const char *good)
{
    static char out[65536];
    char msg[WINENT_MSG_LEN], path[512], descr[512];
    size_t n = 0;
    CHECK(info_of(good, out, sizeof out, msg) == WINENT_OK, "--info: %s", msg);
    path_of(descr, sizeof descr, "info.json");
    spit(descr, out, strlen(out));
    CHECK(run("/usr/bin/python3 -c 'import json, os, sys\n"
              "d = json.load(open(sys.argv[1]), parse_constant=lambda c: sys.exit(c))\n"
              "assert d[\"frames\"] == %d and d[\"header\"][\"width\"] == %d, d\n"
              "assert d[\"decompressed_bytes\"] == %d, d\n"
              "assert d[\"file_bytes\"] == os.path.getsize(sys.argv[2]), d\n"
              "assert d[\"header\"][\"georef\"][\"epsg\"] == 32633, d\n"
              "assert abs(d[\"ratio\"] - d[\"decompressed_bytes\"] / d[\"compressed_bytes\"]) < "
              "1e-3\n"
              "' '%s' '%s'",
              NFRAMES, W, W * H * 4, descr, good) == 0,
          "--info output is not the JSON expected: %s", out);

    uint8_t *f = slurp(good, &n);
    if (f == NULL)
        return;
    /* Damaged copies, each refused with an input error and a reason. */
    struct {
        const char *name;
        size_t off; /* byte to flip (SIZE_MAX: none) */
        size_t len; /* bytes kept */
    } cases[] = {
        {"truncated", SIZE_MAX, n - 1},
        {"no_table", SIZE_MAX, n - 200},
        {"header_magic", 0, n},
        {"header_json", 12, n},
        {"footer_count", n - 9, n},
        {"entry_size", n - (8 + (NFRAMES + 1) * 12 + 9) + 8 + 12 * 2, n},
        {"frame_magic", 8 + le32(f + 4), n},
        {"empty", SIZE_MAX, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *g = malloc(n);
        memcpy(g, f, n);
        if (cases[i].off != SIZE_MAX)
            g[cases[i].off] ^= 0x5A;
        path_of(path, sizeof path, cases[i].name);
        spit(path, g, cases[i].len);
        free(g);
        msg[0] = '\0';
        winent_status st = info_of(path, out, sizeof out, msg);
        CHECK(st == WINENT_ERR_INPUT, "%s: status %d", cases[i].name, st);
        CHECK(strstr(msg, path) && strlen(msg) > strlen(path) + 5, "%s: message '%s'",
              cases[i].name, msg);
        CHECK(out[0] == '\0', "%s: printed something: %s", cases[i].name, out);
    }
    free(f);

    /* A plain zstd stream, a missing file, a directory. */
    path_of(path, sizeof path, "plain.zst");
    CHECK(run("printf 'hello' | zstd -q > '%s'", path) == 0, "zstd failed");
    CHECK(info_of(path, out, sizeof out, msg) == WINENT_ERR_INPUT, "plain zstd accepted");
    CHECK(strstr(msg, "not a winent-stream") != NULL, "message '%s'", msg);
    path_of(path, sizeof path, "missing.zst");
    CHECK(info_of(path, out, sizeof out, msg) == WINENT_ERR_INPUT, "missing file accepted");
    CHECK(info_of(dir, out, sizeof out, msg) == WINENT_ERR_INPUT, "directory accepted");
}

int main(void)
{
    char p1[512], p3[512], pl[512];
    snprintf(dir, sizeof dir, "%s/winent-zst-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    make_map();
    make_georef();
    path_of(p1, sizeof p1, "one.zst");
    path_of(p3, sizeof p3, "three.zst");
    path_of(pl, sizeof pl, "level5.zst");

    CHECK(write_map(p3, 3, 3) == WINENT_OK, "writing with 3 encoders failed");
    CHECK(write_map(p1, 1, 3) == WINENT_OK, "writing with 1 encoder failed");
    CHECK(write_map(pl, 2, 0) == WINENT_OK, "writing with the default level failed");
    CHECK(count_files(".tmp") == 0, "temporary files left after finish");

    test_zstd_decodes(p3);
    test_zstd_decodes(pl);
    test_header_json(p3);
    test_seek_walk(p3);

    size_t n1 = 0, n3 = 0;
    uint8_t *b1 = slurp(p1, &n1), *b3 = slurp(p3, &n3);
    CHECK(b1 && b3 && n1 == n3 && memcmp(b1, b3, n1) == 0,
          "1 and 3 encoders gave other bytes (%zu, %zu)", n1, n3);
    free(b1);
    free(b3);

    test_abort();
    test_info(p3);

    run("rm -rf '%s'", dir);
    return harness_end();
}
