/* SPDX-License-Identifier: BSD-3-Clause */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cli_print_help(FILE *f)
{
    fputs(
        "Usage: winent-stream [options] INPUT OUTPUT\n"
        "  or:  winent-stream --info [--check] FILE.zst\n"
        "  or:  winent-stream --decode [output options] MAP.zst OUTPUT\n"
        "\n"
        "The local Shannon entropy of every pixel: the entropy of the values in the\n"
        "window centred on it (border windows cropped, nodata not counted), streamed\n"
        "in bounded memory. INPUT is a TIFF/BigTIFF (recognised by its first bytes),\n"
        "raw samples with --size and --dtype (a file, or - for standard input), or\n"
        "any raster GDAL opens: VRT, JPEG2000, NetCDF/HDF (NETCDF:file.nc:var),\n"
        "ENVI, /vsizip/, /vsicurl/, /vsis3/ ... (--version lists the libraries);\n"
        "GDAL's mask (alpha band, per-dataset mask) is nodata. A TIFF or GDAL format\n"
        "on a pipe is first copied to an unnamed temporary file in TMPDIR. OUTPUT by\n"
        "its name:\n"
        "NAME.zst (zstd frames, JSON header, seek table), NAME.tif/.tiff\n"
        "(Cloud-Optimized GeoTIFF), NAME.raw/.f32/.bin, a name without extension or\n"
        "- (raw, little-endian); float32 samples unless --ot. A file appears only when\n"
        "complete; a pipe, device or /dev/fd/N is written in place.\n"
        "\n"
        "Options take their value as --name VALUE or --name=VALUE, and may be shortened\n"
        "to any unambiguous prefix (--win 7); -- ends the options (-- -x names a file).\n"
        "\n"
        "What is computed:\n"
        "  --window K|WxH      window size, odd sides 1..255 (default 5; 7x3 = 7 wide, 3 high);\n"
        "                      a list (5,9,15) makes a map of each in the same pass; an item\n"
        "                      diskR is a circular window (5,9,disk3)\n"
        "  --disk R            circular window: the pixels within distance R of the centre\n"
        "                      (dx^2 + dy^2 <= R^2, scikit-image's disk(R)), R 0..127;\n"
        "                      cropped at the borders like the square ones\n"
        "  --measure M         what each window gives (default entropy): entropy, renyi:Q\n"
        "                      (Renyi entropy of order Q >= 0), simpson (1 - sum p^2),\n"
        "                      richness (distinct values), evenness (Pielou: H / log\n"
        "                      richness), majority (the most frequent value, ties to the\n"
        "                      smallest; a bin's centre with --bins); a list\n"
        "                      (entropy,simpson) makes a map of each at each window\n"
        "  --base 2|e|10       base of the logarithm (default 2: bits, as scikit-image; e: nats)\n"
        "  --bins N            quantize into N bins over --range (float input: default 256)\n"
        "  --range LO:HI       bin = floor((v - LO) * N / (HI - LO)), clamped to 0..N-1;\n"
        "                      more than 1 % of the samples clamped gives a warning\n"
        "  --range auto        LO:HI from the band's statistics (a .aux.xml beside the file,\n"
        "                      the TIFF's GDAL metadata), else from a first pass over the\n"
        "                      band (files and GDAL names: a pipe needs --range LO:HI)\n"
        "  --nodata V          pixels equal to V are not counted (default: the file's\n"
        "                      GDAL_NODATA or GDAL nodata value)\n"
        "\n"
        "Raw input:\n"
        "  --size WxH          width and height in pixels\n"
        "  --dtype T           u8, i8, u16, i16, u32, i32, f32 or f64\n"
        "  --bands N           bands in the file (default 1)\n"
        "  --interleave I      bsq, bip or bil (default bsq)\n"
        "  --band B            band to use, 1-based (default 1; TIFF and GDAL inputs too);\n"
        "                      a list (1,3,5) or 'all' (alpha bands left out) reads them in\n"
        "                      one pass: a map of each band at each window, band by band\n"
        "                      (.tif: a band each; .zst: one after another; raw:\n"
        "                      NAME_b3_w9.raw each)\n"
        "  --byteorder O       little or big (default little)\n"
        "  --header-bytes N    bytes to skip before the samples\n"
        "\n"
        "Output:\n"
        "  --format F          zst, tif or raw (default: from the output name: .zst;\n"
        "                      .tif, .tiff; .raw, .f32, .bin, '-' or no extension raw;\n"
        "                      any other extension needs --format)\n"
        "  --level L           compression level: zstd -7..22 (default 2 for .zst, 3 for\n"
        "                      GeoTIFF and -3 for its overview tiles), deflate 1..9\n"
        "                      (default 6)\n"
        "  --frame-rows N      rows per .zst frame (default: about 4 MiB of floats)\n"
        "  --tile N            GeoTIFF tile side, multiple of 16 (default 512)\n"
        "  --compress C        GeoTIFF compression: zstd, deflate, lzw or none (default zstd)\n"
        "  --preview FILE.png  also write a quicklook of the map while it streams: each pixel\n"
        "                      the mean of the valid map pixels of its block, the colours\n"
        "                      stretched over the 2nd to 98th percentiles of those means,\n"
        "                      transparent where none is valid, a legend bar below with the\n"
        "                      values and the unit; a georeferenced map also gets\n"
        "                      FILE.pgw (world file) and FILE.png.aux.xml (CRS) beside it\n"
        "  --preview-range LO:HI  the colours' stretch instead, in the map's unit (2:6)\n"
        "  --preview-size N    its longest side in pixels (default 1024; never more than\n"
        "                      the map's)\n"
        "  --tif-layout cog|tiled\n"
        "                      cog (default): a Cloud-Optimized GeoTIFF, with overviews (the\n"
        "                      mean of the valid pixels of each 2x2, 4x4, ... block) until one\n"
        "                      tile holds the image; tiled: plain tiled GeoTIFF, no overviews\n"
        "  --ot T              sample type of the map, every format: float32 (default),\n"
        "                      float16 (relative error at most 2^-11; not with --sidecar),\n"
        "                      uint16 or uint8: round(H / scale), scale = the job's largest\n"
        "                      entropy / 65534 or / 254 (error at most scale / 2), recorded\n"
        "                      as GDAL's scale and offset; 65535 or 255 is nodata (NaN)\n"
        "  --bigtiff           write a BigTIFF even when the file would fit a classic TIFF\n"
        "                      (by default only past 4 GiB)\n"
        "  --sidecar           raw output: also write OUTPUT.hdr (ENVI header: size, NaN\n"
        "                      nodata, georeferencing, provenance) so GDAL opens the map\n"
        "  --decode            MAP.zst OUTPUT: write a .zst map as a GeoTIFF or raw (with\n"
        "                      its georeferencing, nodata and provenance), checking every\n"
        "                      frame's checksum\n"
        "\n"
        "Running:\n"
        "  --device D          auto (default: the CPU at once, and the GPUs too when the job is\n"
        "                      long enough to gain from them, one first and the others if\n"
        "                      what is left pays for them, all taking chunks from one\n"
        "                      queue), cpu, gpu (every GPU), or a list such as 0,2 or cpu,0\n"
        "  --threads N         the one thread budget for decoding, computing and encoding\n"
        "                      (default: all cores)\n"
        "  --mem SIZE          host memory budget for buffers, e.g. 512M, 4G (default 1G,\n"
        "                      more where many threads' encoders leave too little of it;\n"
        "                      a job takes only what its chunks in flight need; a GPU's\n"
        "                      context counts 128M: auto leaves a GPU out where it won't fit)\n"
        "  --progress          progress line on stderr (default when stderr is a terminal)\n"
        "  --no-progress       no progress line\n"
        "  --quiet             no progress line and no notices\n"
        "  --stats             one JSON line of figures on stderr at the end\n"
        "  --info FILE.zst     print the header and frame count of a .zst output\n"
        "  --check             with --info: decompress every frame, verify its size and\n"
        "                      checksum and the seek table; print OK, or the first bad\n"
        "                      frame (exit 3)\n"
        "  --test FILE.zst     the same as --info --check (like zstd -t)\n"
        "  --help\n"
        "  --version           the version, the engines built in and the libraries' versions\n"
        "\n"
        "GDAL's network reads time out (30 s to connect, 60 s under 1 byte/s) unless\n"
        "one of GDAL_HTTP_CONNECTTIMEOUT, GDAL_HTTP_TIMEOUT, GDAL_HTTP_LOW_SPEED_TIME,\n"
        "GDAL_HTTP_LOW_SPEED_LIMIT, GDAL_HTTP_MAX_RETRY is set (then GDAL's own apply).\n"
        "\n"
        "Exit codes: 0 success, 2 usage, 3 input, 4 output, 5 device, 130 interrupted.\n",
        f);
}

static winent_status usage(char *msg, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Return-if-error inside the parser. */
#define WINENT_CLI_TRY(expr)               \
    do {                                   \
        winent_status cli_st_ = (expr);    \
        if (cli_st_ != WINENT_OK)          \
            return cli_st_;                \
    } while (0)

/* One line, as the library makes its messages (winent_one_line, which
 * the command line cannot reach): a value quoted may hold a newline or
 * another control character, or one of Unicode's line breaks in UTF-8
 * (NEL, U+2028, U+2029); each becomes one space. */
static void one_line(char *msg)
{
    const unsigned char *r = (const unsigned char *)msg;
    unsigned char *w = (unsigned char *)msg;
    while (*r) {
        size_t k = *r < 0x20 || *r == 0x7f                                          ? 1
                   : r[0] == 0xc2 && r[1] == 0x85                                   ? 2
                   : r[0] == 0xe2 && r[1] == 0x80 && (r[2] == 0xa8 || r[2] == 0xa9) ? 3
                                                                                    : 0;
        if (k) {
            *w++ = ' ';
            r += k;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
}

static winent_status usage(char *msg, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, n, fmt, ap);
    va_end(ap);
    one_line(msg);
    return WINENT_ERR_USAGE;
}

/* Whole-string integer in [lo, hi]. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    /* ERANGE on underflow too: a subnormal (1e-310) or a number that
     * rounds to 0 is a number, as the library and Python take it; only an
     * overflow (1e400) is none. */
    if (end == s || *end != '\0' || (errno == ERANGE && !(fabs(v) <= 1.0)))
        return -1;
    *out = v;
    return 0;
}

/* "AxB" with both parts in [lo, hi]; a lone "A" gives A x A when `square`. */
static int parse_pair(const char *s, long lo, long hi, int square, long *a, long *b)
{
    const char *x = strpbrk(s, "xX");
    if (x == NULL) {
        if (!square || parse_long(s, lo, hi, a) != 0)
            return -1;
        *b = *a;
        return 0;
    }
    char first[32];
    size_t n = (size_t)(x - s);
    if (n == 0 || n >= sizeof first)
        return -1;
    memcpy(first, s, n);
    first[n] = '\0';
    return parse_long(first, lo, hi, a) == 0 && parse_long(x + 1, lo, hi, b) == 0 ? 0 : -1;
}

/* 512M, 4G, 1.5G, 1048576: binary units. */
static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !(v > 0))
        return -1;
    double mult = 1;
    switch (*end) {
    case 'k': case 'K': mult = 1024.0; end++; break;
    case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (strcasecmp(end, "iB") == 0 || strcasecmp(end, "B") == 0)
        end += strlen(end);
    /* Less than a byte (0.5, 1e-9K) is no size: it would be 0, the
     * library's "automatic". */
    if (*end != '\0' || v * mult >= 1.8e19 || v * mult < 1.0)
        return -1;
    *out = (uint64_t)(v * mult);
    return 0;
}

static int parse_dtype(const char *s, winent_dtype *t)
{
    for (int i = 0; i < WINENT_DTYPE_COUNT; i++)
        if (strcmp(s, winent_dtype_name((winent_dtype)i)) == 0) {
            *t = (winent_dtype)i;
            return 0;
        }
    return -1;
}

/* The library's checks of the values (winent_job_opts_validate): the
 * same message from the CLI, the library and Python. */
static winent_status validate(const winent_job_opts *j, char *msg, size_t n)
{
    winent_error err;
    winent_status st = winent_job_opts_validate(j, &err);
    if (st != WINENT_OK)
        snprintf(msg, n, "%s", err.message);
    return st;
}

void cli_free(cli_opts *c)
{
    free(c->command_line);
    c->command_line = NULL;
    c->job.command_line = NULL;
    free(c->band_list);
    free(c->window_list);
    free(c->window_disk);
    c->band_list = c->window_list = c->window_disk = NULL;
    c->job.band_list = c->job.window_list = c->job.window_disk = NULL;
    free(c->measure_list);
    free(c->measure_q);
    c->measure_list = NULL;
    c->measure_q = NULL;
    c->job.measure_list = NULL;
    c->job.measure_q = NULL;
    c->job.nmeasure_list = 0;
}

/* The items of a comma-separated list `val` (none empty), or -1. */
static int list_items(const char *val)
{
    int n = 1;
    if (*val == '\0' || *val == ',' || val[strlen(val) - 1] == ',' || strstr(val, ",,"))
        return -1;
    for (const char *q = val; *q; q++)
        n += *q == ',';
    return n;
}

/* Item `i` of the list `val` into `buf` (cap bytes); -1 when too long. */
static int list_item(const char *val, int i, char *buf, size_t cap)
{
    for (; i > 0; i--)
        val = strchr(val, ',') + 1;
    size_t n = strcspn(val, ",");
    if (n >= cap)
        return -1;
    memcpy(buf, val, n);
    buf[n] = '\0';
    return 0;
}

/* ---- The options, for getopt_long ------------------------------------- */

/* getopt_long's codes: a positional argument (optstring "-"), then one per
 * long option (above any character, so that a short option's code is never
 * taken for one). */
enum {
    OPT_POSITIONAL = 1,
    OPT_HELP = 256,
    OPT_VERSION,
    OPT_PROGRESS,
    OPT_NO_PROGRESS,
    OPT_QUIET,
    OPT_STATS,
    OPT_INFO,
    OPT_TEST,
    OPT_CHECK,
    OPT_WINDOW,
    OPT_DISK,
    OPT_MEASURE,
    OPT_BASE,
    OPT_BINS,
    OPT_RANGE,
    OPT_NODATA,
    OPT_SIZE,
    OPT_DTYPE,
    OPT_BANDS,
    OPT_BAND,
    OPT_INTERLEAVE,
    OPT_BYTEORDER,
    OPT_HEADER_BYTES,
    OPT_FORMAT,
    OPT_LEVEL,
    OPT_FRAME_ROWS,
    OPT_TILE,
    OPT_COMPRESS,
    OPT_PREVIEW,
    OPT_PREVIEW_SIZE,
    OPT_PREVIEW_RANGE,
    OPT_TIF_LAYOUT,
    OPT_BIGTIFF,
    OPT_OT,
    OPT_SIDECAR,
    OPT_DECODE,
    OPT_DEVICE,
    OPT_THREADS,
    OPT_MEM
};

/* --info and --test take their file with '=' or as the one positional
 * argument (`--info --check FILE` and `--info FILE --check` both work),
 * hence optional_argument. */
static const struct option long_opts[] = {
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"stats", no_argument, NULL, OPT_STATS},
    {"info", optional_argument, NULL, OPT_INFO},
    {"test", optional_argument, NULL, OPT_TEST},
    {"check", no_argument, NULL, OPT_CHECK},
    {"window", required_argument, NULL, OPT_WINDOW},
    {"disk", required_argument, NULL, OPT_DISK},
    {"measure", required_argument, NULL, OPT_MEASURE},
    {"base", required_argument, NULL, OPT_BASE},
    {"bins", required_argument, NULL, OPT_BINS},
    {"range", required_argument, NULL, OPT_RANGE},
    {"nodata", required_argument, NULL, OPT_NODATA},
    {"size", required_argument, NULL, OPT_SIZE},
    {"dtype", required_argument, NULL, OPT_DTYPE},
    {"bands", required_argument, NULL, OPT_BANDS},
    {"band", required_argument, NULL, OPT_BAND},
    {"interleave", required_argument, NULL, OPT_INTERLEAVE},
    {"byteorder", required_argument, NULL, OPT_BYTEORDER},
    {"header-bytes", required_argument, NULL, OPT_HEADER_BYTES},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"level", required_argument, NULL, OPT_LEVEL},
    {"frame-rows", required_argument, NULL, OPT_FRAME_ROWS},
    {"tile", required_argument, NULL, OPT_TILE},
    {"compress", required_argument, NULL, OPT_COMPRESS},
    {"preview", required_argument, NULL, OPT_PREVIEW},
    {"preview-size", required_argument, NULL, OPT_PREVIEW_SIZE},
    {"preview-range", required_argument, NULL, OPT_PREVIEW_RANGE},
    {"tif-layout", required_argument, NULL, OPT_TIF_LAYOUT},
    {"bigtiff", no_argument, NULL, OPT_BIGTIFF},
    {"ot", required_argument, NULL, OPT_OT},
    {"sidecar", no_argument, NULL, OPT_SIDECAR},
    {"decode", no_argument, NULL, OPT_DECODE},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"mem", required_argument, NULL, OPT_MEM},
    {NULL, 0, NULL, 0}};

/* "-": positional arguments come back in order as OPT_POSITIONAL (no
 * permutation of argv, whatever POSIXLY_CORRECT says); ":": a missing value
 * is ':', and getopt prints nothing (the messages are ours). */
static const char short_opts[] = "-:hq";

/* The option `word` ("--name" or "--name=value") stands for, as
 * getopt_long matches it: the exact name, else the one option it is a
 * prefix of. NULL when none; *ambiguous is then set when several are. */
static const struct option *find_long(const char *word, int *ambiguous)
{
    const char *name = word + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const struct option *found = NULL;
    int matches = 0;
    *ambiguous = 0;
    for (const struct option *o = long_opts; o->name; o++) {
        if (strncmp(o->name, name, len) != 0)
            continue;
        if (o->name[len] == '\0')
            return o; /* exact */
        found = o;
        matches++;
    }
    *ambiguous = matches > 1;
    return matches == 1 ? found : NULL;
}

static const char *long_name(int code)
{
    for (const struct option *o = long_opts; o->name; o++)
        if (o->val == code)
            return o->name;
    return "?";
}

/* What getopt_long refused: a missing value (':'), an unknown or ambiguous
 * option or a value given to a flag ('?'). `word`: the argument at fault. */
static winent_status refused(int code, const char *word, char *msg, size_t n)
{
    if (code == ':')
        return usage(msg, n, "--%s needs a value (see --help)", long_name(optopt));
    if (optopt >= OPT_HELP) /* a long flag given a value */
        return usage(msg, n, "--%s takes no value", long_name(optopt));
    if (optopt != 0)
        return usage(msg, n, "unknown option '-%c' (see --help)", optopt);
    const char *eq = strchr(word, '=');
    int len = eq ? (int)(eq - word) : (int)strlen(word), ambiguous;
    if (len > 64)
        len = 64;
    find_long(word, &ambiguous);
    if (!ambiguous)
        return usage(msg, n, "unknown option '%.*s' (see --help)", len, word);
    /* Every option it could be. */
    char list[256] = "";
    size_t k = 0;
    for (const struct option *o = long_opts; o->name && k < sizeof list - 32; o++)
        if (strncmp(o->name, word + 2, (size_t)len - 2) == 0)
            k += (size_t)snprintf(list + k, sizeof list - k, "%s--%s", k ? ", " : "", o->name);
    return usage(msg, n, "option '%.*s' is ambiguous: %s (see --help)", len, word, list);
}

/* Whole-string integer of an int option: its own range is the library's
 * to check (winent_job_opts_validate), with the message every caller gets. */
static int parse_int(const char *s, long *out)
{
    return parse_long(s, INT_MIN, INT_MAX, out);
}

/* One option `code` with its value `val` (NULL for a flag) into `c`. */
static winent_status take_option(cli_opts *c, int code, const char *val, char *msg, size_t n)
{
    winent_job_opts *j = &c->job;
    long a1, a2;
    switch (code) {
    case 'h':
    case OPT_HELP: c->help = 1; break;
    case OPT_VERSION: c->version = 1; break;
    case OPT_PROGRESS: c->progress = 1; break;
    case OPT_NO_PROGRESS: c->progress = 0; break;
    case 'q':
    case OPT_QUIET: c->quiet = 1; break;
    case OPT_STATS: c->stats = 1; break;
    case OPT_CHECK: c->check = 1; break;
    case OPT_SIDECAR: j->sidecar = 1; break;
    case OPT_DECODE: j->decode = 1; break;
    case OPT_BIGTIFF: j->bigtiff = 1; break;
    case OPT_INFO:
    case OPT_TEST:
        c->info = 1;
        c->check |= code == OPT_TEST;
        if (val) { /* --info=FILE */
            if (c->info_path || *val == '\0')
                return usage(msg, n, "--%s: give one FILE.zst", long_name(code));
            c->info_path = val;
        }
        break;
    case OPT_WINDOW:
    case OPT_DISK: {
        /* K, WxH, diskR, or a list of them: a map of each; --disk R is
         * --window diskR (a list of radii too). One window's sides are the
         * library's to check (winent_job_opts_validate). */
        const int disk_opt = code == OPT_DISK;
        int k = list_items(val);
        char item[32];
        free(c->window_list);
        free(c->window_disk);
        c->window_list = k > 0 ? malloc(sizeof *c->window_list * 2 * (size_t)k) : NULL;
        c->window_disk = k > 0 ? malloc(sizeof *c->window_disk * (size_t)k) : NULL;
        j->window_list = NULL;
        j->window_disk = NULL;
        j->nwindow_list = 0;
        if (k > 0 && (c->window_list == NULL || c->window_disk == NULL))
            return usage(msg, n, "out of memory");
        /* Each item's sides, odd or even, and repeats: the library's to
         * check (winent_job_opts_validate), as for every caller. */
        for (int w = 0; w < k || k < 0; w++) {
            int disk = disk_opt, bad = k < 0 || list_item(val, w, item, sizeof item) != 0;
            const char *radius = item;
            if (!bad && !disk_opt && strncmp(item, "disk", 4) == 0) {
                disk = 1;
                radius = item + 4;
            }
            if (!bad && disk) {
                bad = parse_long(radius, 0, 127, &a1) != 0;
                a1 = a2 = 2 * a1 + 1;
            } else if (!bad) {
                bad = parse_pair(item, INT_MIN, INT_MAX, 1, &a1, &a2) != 0;
            }
            if (bad && disk_opt)
                return usage(msg, n,
                             "--disk: '%s': give a radius R from 0 to 127 (the pixels within "
                             "distance R), or a list of them (3,5)",
                             val);
            if (bad)
                return usage(msg, n,
                             k > 1 ? "--window: '%s': give K or WxH, odd sides from 1 to 255, "
                                     "diskR (R from 0 to 127), or a list of them (5,9,disk3)"
                                   : "--window: '%s': give K or WxH, odd sides from 1 to 255, "
                                     "or diskR with R from 0 to 127",
                             val);
            c->window_list[2 * w] = (int)a1;
            c->window_list[2 * w + 1] = (int)a2;
            c->window_disk[w] = disk;
        }
        j->compute.kx = c->window_list[0];
        j->compute.ky = c->window_list[1];
        j->compute.disk = c->window_disk[0];
        if (k > 1) {
            j->window_list = c->window_list;
            j->window_disk = c->window_disk;
            j->nwindow_list = k;
        }
        break;
    }
    case OPT_MEASURE: {
        /* NAME or a list of them: a map of each (at each window), in the
         * order given; each name and order the library's to check. */
        const int k = list_items(val);
        char item[64];
        free(c->measure_list);
        free(c->measure_q);
        c->measure_list = k > 0 ? malloc(sizeof *c->measure_list * (size_t)k) : NULL;
        c->measure_q = k > 0 ? malloc(sizeof *c->measure_q * (size_t)k) : NULL;
        j->measure_list = NULL;
        j->measure_q = NULL;
        j->nmeasure_list = 0;
        if (k < 0)
            return usage(msg, n,
                         "--measure: '%s': give a measure (entropy, renyi:Q, simpson, richness, "
                         "evenness, majority) or a list of them (entropy,simpson)",
                         val);
        if (c->measure_list == NULL || c->measure_q == NULL)
            return usage(msg, n, "out of memory");
        for (int i = 0; i < k; i++) {
            winent_error e;
            if (list_item(val, i, item, sizeof item) != 0 ||
                winent_measure_parse(item, &c->measure_list[i], &c->measure_q[i], &e) !=
                    WINENT_OK)
                return usage(msg, n, "%s",
                             list_item(val, i, item, sizeof item) != 0
                                 ? "--measure: an item too long"
                                 : e.message);
        }
        j->compute.measure = c->measure_list[0];
        j->compute.renyi_q = c->measure_q[0];
        if (k > 1) {
            j->measure_list = c->measure_list;
            j->measure_q = c->measure_q;
            j->nmeasure_list = k;
        }
        break;
    }
    case OPT_BASE:
        if (!strcmp(val, "e"))
            j->compute.base = WINENT_BASE_E;
        else if (!strcmp(val, "2"))
            j->compute.base = WINENT_BASE_2;
        else if (!strcmp(val, "10"))
            j->compute.base = WINENT_BASE_10;
        else
            return usage(msg, n, "--base: '%s': use e, 2 or 10", val);
        break;
    case OPT_BINS: /* 0 would be the library's "distinct values" */
        if (parse_long(val, 1, UINT32_MAX, &a1) != 0)
            return usage(msg, n, "--bins: '%s': give a whole number from 1 to 1073741824", val);
        j->compute.bins = (uint32_t)a1;
        break;
    case OPT_RANGE: {
        /* From val + 1: LO may start with '-'; an empty value has no
         * val + 1 to read. */
        const char *colon = *val ? strchr(val + 1, ':') : NULL;
        char lo[64];
        double vlo, vhi;
        if (!strcmp(val, "auto")) {
            j->range_auto = 1;
            j->compute.range_lo = j->compute.range_hi = 0.0;
            c->range_given = 0;
            break;
        }
        j->range_auto = 0;
        if (colon == NULL || (size_t)(colon - val) >= sizeof lo)
            return usage(msg, n, "--range: '%s': give LO:HI, or auto", val);
        memcpy(lo, val, (size_t)(colon - val));
        lo[colon - val] = '\0';
        /* Finite, LO < HI: the library's check. 0:0 is its "no range", so
         * it is refused here, with the library's words. */
        if (parse_double(lo, &vlo) || parse_double(colon + 1, &vhi) || (vlo == 0.0 && vhi == 0.0))
            return usage(msg, n, "--range: '%s': give finite numbers LO:HI with LO < HI, or auto",
                         val);
        j->compute.range_lo = vlo;
        j->compute.range_hi = vhi;
        c->range_given = 1;
        break;
    }
    case OPT_NODATA: {
        double v;
        if (parse_double(val, &v) != 0)
            return usage(msg, n, "--nodata: '%s': not a number", val);
        /* NaN is always nodata; --nodata nan only says so. */
        j->compute.has_nodata = !isnan(v);
        j->compute.nodata = v;
        j->nodata_given = 1;
        break;
    }
    case OPT_SIZE:
        if (parse_pair(val, 1, INT_MAX, 0, &a1, &a2) != 0)
            return usage(msg, n, "--size: '%s': give WxH, e.g. 10240x10240", val);
        j->width = (int)a1;
        j->height = (int)a2;
        break;
    case OPT_DTYPE:
        if (parse_dtype(val, &j->compute.dtype) != 0)
            return usage(msg, n, "--dtype: '%s': use u8, i8, u16, i16, u32, i32, f32 or f64", val);
        j->dtype_given = 1;
        break;
    case OPT_BANDS:
        if (parse_int(val, &a1) != 0)
            return usage(msg, n, "--bands: '%s': give a number from 1 to 65535", val);
        j->bands = (int)a1;
        break;
    case OPT_BAND: {
        /* B, a list of them, or all: a map of each. */
        int k = !strcmp(val, "all") ? 0 : list_items(val);
        char item[32];
        free(c->band_list);
        c->band_list = k > 0 ? malloc(sizeof *c->band_list * (size_t)k) : NULL;
        j->band_list = NULL;
        j->nband_list = 0;
        j->band_all = k == 0;
        if (k > 0 && c->band_list == NULL)
            return usage(msg, n, "out of memory");
        if (k == 1) { /* one band: its range is the library's to check */
            if (parse_int(val, &a1) != 0)
                return usage(msg, n, "--band: '%s': give a band number from 1", val);
            c->band_list[0] = (int)a1;
        }
        /* Each band's range and repeats: the library's to check. */
        for (int b = 0; k > 1 ? b < k : k < 0; b++) {
            if (k < 0 || list_item(val, b, item, sizeof item) != 0 || parse_int(item, &a1) != 0)
                return usage(msg, n,
                             "--band: '%s': give a band number from 1, a list of them (1,3,5), "
                             "or all",
                             val);
            c->band_list[b] = (int)a1;
        }
        if (k > 0)
            j->band = c->band_list[0];
        if (k > 1) {
            j->band_list = c->band_list;
            j->nband_list = k;
        }
        break;
    }
    case OPT_INTERLEAVE:
        if (!strcmp(val, "bsq"))
            j->interleave = WINENT_INTERLEAVE_BSQ;
        else if (!strcmp(val, "bip"))
            j->interleave = WINENT_INTERLEAVE_BIP;
        else if (!strcmp(val, "bil"))
            j->interleave = WINENT_INTERLEAVE_BIL;
        else
            return usage(msg, n, "--interleave: '%s': use bsq, bip or bil", val);
        break;
    case OPT_BYTEORDER:
        if (!strcmp(val, "little"))
            j->big_endian = 0;
        else if (!strcmp(val, "big"))
            j->big_endian = 1;
        else
            return usage(msg, n, "--byteorder: '%s': use little or big", val);
        break;
    case OPT_HEADER_BYTES: {
        uint64_t v;
        if (strcmp(val, "0") == 0)
            v = 0;
        else if (parse_size(val, &v) != 0)
            return usage(msg, n, "--header-bytes: '%s': give a byte count", val);
        j->header_bytes = v;
        break;
    }
    case OPT_FORMAT:
        if (!strcmp(val, "zst"))
            j->format = WINENT_FORMAT_ZST;
        else if (!strcmp(val, "tif") || !strcmp(val, "tiff"))
            j->format = WINENT_FORMAT_TIF;
        else if (!strcmp(val, "raw"))
            j->format = WINENT_FORMAT_RAW;
        else
            return usage(msg, n, "--format: '%s': use zst, tif or raw", val);
        break;
    /* The library reads 0 as "the default" for the next four: here it is
     * a mistake, refused with the words the library uses for the range. */
    case OPT_LEVEL:
        if (parse_int(val, &a1) != 0 || a1 == 0)
            return usage(msg, n,
                         "--level: '%s': give a compression level: zstd -7 to 22 (not 0), "
                         "deflate 1 to 9",
                         val);
        j->level = (int)a1;
        break;
    case OPT_FRAME_ROWS:
        if (parse_int(val, &a1) != 0 || a1 == 0)
            return usage(msg, n, "--frame-rows: '%s': give a row count from 1", val);
        j->frame_rows = (int)a1;
        break;
    case OPT_TILE:
        if (parse_int(val, &a1) != 0 || a1 == 0)
            return usage(msg, n, "--tile: '%s': give a multiple of 16 from 16 to 65536", val);
        j->tile = (int)a1;
        break;
    case OPT_PREVIEW_SIZE:
        if (parse_int(val, &a1) != 0 || a1 == 0)
            return usage(msg, n, "--preview-size: '%s': give a side in pixels from 1 to %d", val,
                         WINENT_PREVIEW_SIZE_MAX);
        j->preview_size = (int)a1;
        break;
    case OPT_COMPRESS:
        if (!strcmp(val, "zstd"))
            j->compress = WINENT_COMPRESS_ZSTD;
        else if (!strcmp(val, "deflate"))
            j->compress = WINENT_COMPRESS_DEFLATE;
        else if (!strcmp(val, "lzw"))
            j->compress = WINENT_COMPRESS_LZW;
        else if (!strcmp(val, "none"))
            j->compress = WINENT_COMPRESS_NONE;
        else
            return usage(msg, n, "--compress: '%s': use zstd, deflate, lzw or none", val);
        break;
    case OPT_PREVIEW: j->preview = val; break;
    case OPT_PREVIEW_RANGE: {
        /* LO:HI in the map's unit; LO may start with '-'. Finite, LO < HI:
         * the library's check. */
        const char *colon = *val ? strchr(val + 1, ':') : NULL;
        char lo[64];
        double vlo, vhi;
        if (colon == NULL || (size_t)(colon - val) >= sizeof lo)
            return usage(msg, n, "--preview-range: '%s': give LO:HI, e.g. 2:6", val);
        memcpy(lo, val, (size_t)(colon - val));
        lo[colon - val] = '\0';
        if (parse_double(lo, &vlo) || parse_double(colon + 1, &vhi))
            return usage(msg, n, "--preview-range: '%s': give finite numbers LO:HI with LO < HI",
                         val);
        j->preview_range = 1;
        j->preview_lo = vlo;
        j->preview_hi = vhi;
        break;
    }
    case OPT_TIF_LAYOUT:
        if (!strcmp(val, "cog"))
            j->tif_layout = WINENT_TIF_COG;
        else if (!strcmp(val, "tiled"))
            j->tif_layout = WINENT_TIF_TILED;
        else
            return usage(msg, n, "--tif-layout: '%s': use cog or tiled", val);
        break;
    case OPT_OT:
        if (!strcmp(val, "float32"))
            j->out_type = WINENT_OT_FLOAT32;
        else if (!strcmp(val, "float16"))
            j->out_type = WINENT_OT_FLOAT16;
        else if (!strcmp(val, "uint16"))
            j->out_type = WINENT_OT_UINT16;
        else if (!strcmp(val, "uint8"))
            j->out_type = WINENT_OT_UINT8;
        else
            return usage(msg, n, "--ot: '%s': use float32, float16, uint16 or uint8", val);
        break;
    case OPT_DEVICE: j->device = val; break;
    case OPT_THREADS: /* 0 would be the library's "all cores" */
        if (parse_int(val, &a1) != 0 || a1 == 0)
            return usage(msg, n, "--threads: '%s': give a number from 1 to 4096", val);
        j->threads = (int)a1;
        break;
    case OPT_MEM: {
        uint64_t v;
        if (parse_size(val, &v) != 0)
            return usage(msg, n, "--mem: '%s': give a size of at least 1M, e.g. 512M or 4G", val);
        j->mem_bytes = v;
        break;
    }
    default: return usage(msg, n, "unknown option (see --help)");
    }
    /* The first option of what is computed or of the raw input: --decode
     * refuses them. */
    if (code >= OPT_WINDOW && code <= OPT_HEADER_BYTES && !c->compute_option)
        c->compute_option = long_name(code);
    return WINENT_OK;
}

winent_status cli_parse(int argc, char **argv, cli_opts *c, char *msg, size_t n)
{
    memset(c, 0, sizeof *c);
    winent_job_opts_default(&c->job);
    c->command_line = cli_command_line(argc, argv);
    c->job.command_line = c->command_line;
    c->progress = -1;
    winent_job_opts *j = &c->job;
    const char *pos[2];
    int npos = 0, code;
    /* getopt_long's state is global: 0 starts it afresh (glibc), for a
     * second parse in one process (the fuzzer, winent-bench). */
    optind = 0;
    opterr = 0;
    while ((code = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
        if (code == ':' || code == '?')
            return refused(code, argv[optind - 1 < argc ? optind - 1 : argc - 1], msg, n);
        if (code == OPT_POSITIONAL) {
            if (npos == 2)
                return usage(msg, n, "too many arguments: '%s' (see --help)", optarg);
            pos[npos++] = optarg;
            continue;
        }
        WINENT_CLI_TRY(take_option(c, code, optarg, msg, n));
    }
    for (; optind < argc; optind++) { /* after "--": positional, whatever they look like */
        if (npos == 2)
            return usage(msg, n, "too many arguments: '%s' (see --help)", argv[optind]);
        pos[npos++] = argv[optind];
    }
    if (c->help || c->version)
        return WINENT_OK;
    if (c->info) {
        if (npos + (c->info_path != NULL) != 1)
            return usage(msg, n, "--info%s takes one FILE.zst and no other arguments",
                         c->check ? " --check" : "");
        if (npos == 1)
            c->info_path = pos[0];
        return WINENT_OK;
    }
    if (c->check)
        return usage(msg, n, "--check goes with --info FILE.zst (or use --test FILE.zst)");
    if (j->decode) {
        if (npos != 2)
            return usage(msg, n, "--decode takes a MAP.zst and an OUTPUT (see --help)");
        if (c->compute_option)
            return usage(msg, n,
                         "--%s does not go with --decode: the map is computed already (only the "
                         "output and running options apply)",
                         c->compute_option);
        j->input = pos[0];
        j->output = pos[1];
        return validate(j, msg, n);
    }
    if (npos != 2)
        return usage(msg, n, "give an INPUT and an OUTPUT (see --help)");
    j->input = pos[0];
    j->output = pos[1];
    /* --range alone quantizes into 256 bins (the library would take a
     * range without bins as unused for integer samples). */
    if ((c->range_given || j->range_auto) && j->compute.bins == 0)
        j->compute.bins = 256;
    return validate(j, msg, n);
}

/* `w` quoted for a POSIX shell where needed ('it'\''s', '' for an empty
 * word) into `dst` (NULL: only measure); returns its length. */
static size_t quote_word(const char *w, char *dst)
{
    size_t n = 0;
    int plain = *w != '\0';
    for (const char *c = w; *c && plain; c++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                       "_-+=/.,:@%",
                       *c) != NULL;
    if (plain) {
        size_t k = strlen(w);
        if (dst)
            memcpy(dst, w, k);
        return k;
    }
    if (dst)
        dst[n] = '\'';
    n++;
    for (const char *c = w; *c; c++) {
        if (*c == '\'') {
            if (dst)
                memcpy(dst + n, "'\\''", 4);
            n += 4;
        } else {
            if (dst)
                dst[n] = *c;
            n++;
        }
    }
    if (dst)
        dst[n] = '\'';
    return n + 1;
}

/* Words of argv[i...] that only say how the job runs (the map's bytes
 * are the same whatever they are): how many to leave out of the recorded
 * command line. Else 0 for a word to keep, or -2 for an option to keep
 * with the value that follows it (that value is no option, whatever it
 * looks like). Options are found as getopt_long finds them, abbreviated
 * ones too. */
static int run_only_words(int argc, char **argv, int i)
{
    const char *a = argv[i];
    if (strcmp(a, "-q") == 0)
        return 1;
    if (strncmp(a, "--", 2) != 0 || a[2] == '\0')
        return 0;
    int ambiguous;
    const struct option *o = find_long(a, &ambiguous);
    if (o == NULL)
        return 0;
    const int takes_next = o->has_arg == required_argument && strchr(a, '=') == NULL;
    switch (o->val) {
    case OPT_PROGRESS:
    case OPT_NO_PROGRESS:
    case OPT_QUIET:
    case OPT_STATS: return 1;
    case OPT_DEVICE:
    case OPT_THREADS:
    case OPT_MEM: return takes_next && i + 1 < argc ? 2 : 1;
    default: return takes_next && i + 1 < argc ? -2 : 0;
    }
}

char *cli_command_line(int argc, char **argv)
{
    size_t n = 1;
    for (int i = 0; i < argc; i++)
        n += quote_word(argv[i], NULL) + 1;
    char *line = malloc(n);
    if (line == NULL)
        return NULL;
    size_t k = 0;
    int options = 1;
    for (int i = 0; i < argc; i++) {
        if (options && i > 0) {
            if (strcmp(argv[i], "--") == 0)
                options = 0;
            int skip = run_only_words(argc, argv, i);
            if (skip > 0) {
                i += skip - 1;
                continue;
            }
            if (skip == -2) { /* an option kept with its value */
                line[k++] = ' ';
                k += quote_word(argv[i++], line + k);
            }
        }
        if (k)
            line[k++] = ' ';
        k += quote_word(argv[i], line + k);
    }
    line[k] = '\0';
    return line;
}
