/* SPDX-License-Identifier: BSD-3-Clause */
#include "options.h"
#include "footprint.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One option's --help lines, from the library's table: "  --name META",
 * its text from column 23 (or after two spaces when the name is longer). */
static void print_option(FILE *f, const winent_option *r)
{
    char head[64];
    int len = snprintf(head, sizeof head, "  --%s%s%s", r->cli, r->metavar ? " " : "",
                       r->metavar ? r->metavar : "");
    if (r->help[0] == '\0' || r->help[0] == '\n')
        fprintf(f, "%s%s\n", head, r->help);
    else
        fprintf(f, "%s%*s%s\n", head, len < 22 ? 22 - len : 2, "", r->help);
}

void cli_print_help(FILE *f)
{
    int count;
    const winent_option *t = winent_options(&count);
    static const char *const groups[] = {"What is computed", "Raw input", "Output", "Running"};
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
        "to any unambiguous prefix (--win 7); -- ends the options (-- -x names a file).\n",
        f);
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        fprintf(f, "\n%s:\n", groups[g]);
        for (int i = 0; i < count; i++)
            if (t[i].cli && t[i].help && strcmp(t[i].group, groups[g]) == 0)
                print_option(f, &t[i]);
    }
    fputs("\n"
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

/* A value the command line cannot read as one: the library's line for
 * option `name` (winent_option_refuse), the value quoted as typed. */
static winent_status refuse(const char *name, const char *val, char *msg, size_t n)
{
    winent_error err;
    winent_status st = winent_option_refuse(name, val, WINENT_WORDS_CLI, &err);
    snprintf(msg, n, "%s", err.message);
    return st;
}

/* The row of the CLI's option `name` in the library's table, or NULL. */
static const winent_option *table_row(const char *name)
{
    int count = 0;
    const winent_option *t = winent_options(&count);
    for (int i = 0; t != NULL && i < count; i++)
        if (t[i].cli != NULL && strcmp(t[i].cli, name) == 0)
            return &t[i];
    return NULL;
}

/* The index of `val` among the '|'-separated words of option `name` in
 * the library's table (their order is the enumeration's), or -1. */
static int table_word(const char *name, const char *val)
{
    const winent_option *row = table_row(name);
    if (row == NULL || row->words == NULL)
        return -1;
    const char *w = row->words;
    for (int k = 0; *w; k++) {
        size_t len = strcspn(w, "|");
        if (strlen(val) == len && strncmp(w, val, len) == 0)
            return k;
        w += len + (w[len] == '|');
    }
    return -1;
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

static const char *long_name(int code);

/* The library quotes a value as it holds it ("--window: '5,5': ...", the
 * numbers parsed); the CLI quotes what the user typed ('5,5x5', '3x04', or
 * --disk's '2,2'), the rest of the line the library's. */
static void quote_typed(const cli_opts *c, char *msg, size_t n)
{
    if (strncmp(msg, "--", 2) != 0)
        return;
    const int len = (int)strcspn(msg + 2, ":");
    const char *open = msg + 2 + len, *close = strstr(open, "': ");
    if (strncmp(open, ": '", 3) != 0 || close == NULL)
        return;
    int code = 0;
    for (int k = 0; k < 96 && code == 0; k++)
        if (c->typed[k] && (int)strlen(long_name(k + 256)) == len &&
            strncmp(long_name(k + 256), msg + 2, (size_t)len) == 0)
            code = k + 256;
    const char *typed = code ? c->typed[code - 256] : NULL;
    if (typed == NULL || (strlen(typed) == (size_t)(close - open - 3) &&
                          strncmp(typed, open + 3, (size_t)(close - open - 3)) == 0))
        return;
    char out[WINENT_MSG_LEN];
    const int disk = !strcmp(long_name(code), "window") && c->window_by_disk;
    /* The window's range refused: a radius's words, not a window's. */
    const winent_option *disk_row =
        disk && strncmp(close + 3, "give K or WxH", 13) == 0 ? table_row("disk") : NULL;
    const char *advice = disk_row ? disk_row->cli_advice : NULL;
    if (advice != NULL)
        snprintf(out, sizeof out, "--disk: '%s': %s", typed, advice);
    else
        snprintf(out, sizeof out, "--%s: '%s%s", disk ? "disk" : long_name(code), typed, close);
    snprintf(msg, n, "%s", out);
}

/* The library's checks of the values (winent_job_opts_validate): the
 * same message from the CLI, the library and Python, quoting what was
 * typed. */
static winent_status validate(const cli_opts *c, char *msg, size_t n)
{
    winent_error err;
    winent_status st = winent_job_opts_validate(&c->job, &err);
    if (st != WINENT_OK) {
        snprintf(msg, n, "%s", err.message);
        quote_typed(c, msg, n);
    }
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
    free(c->footprint);
    c->footprint = NULL;
    c->job.compute.footprint = NULL;
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
    OPT_FOOTPRINT,
    OPT_MEASURE,
    OPT_LEVELS,
    OPT_DISTANCE,
    OPT_ANGLES,
    OPT_ASYMMETRIC,
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
    {"footprint", required_argument, NULL, OPT_FOOTPRINT},
    {"measure", required_argument, NULL, OPT_MEASURE},
    {"levels", required_argument, NULL, OPT_LEVELS},
    {"distance", required_argument, NULL, OPT_DISTANCE},
    {"angles", required_argument, NULL, OPT_ANGLES},
    {"asymmetric", no_argument, NULL, OPT_ASYMMETRIC},
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

/* --footprint FILE: the window is the file's mask (compute.footprint,
 * its sides kx, ky). It and --window or --disk say one thing two ways: a
 * conflict, as those two are. */
static winent_status take_footprint(cli_opts *c, const char *val, char *msg, size_t n)
{
    if (c->window_code && c->window_code != OPT_FOOTPRINT) {
        winent_error err;
        winent_status st = winent_option_conflict("footprint", long_name(c->window_code),
                                                  WINENT_WORDS_CLI, &err);
        snprintf(msg, n, "%s", err.message);
        return st;
    }
    c->window_code = OPT_FOOTPRINT;
    free(c->footprint);
    c->footprint = NULL;
    int kx = 0, ky = 0;
    winent_status st = cli_read_footprint(val, &c->footprint, &kx, &ky, msg, n);
    if (st != WINENT_OK)
        return st;
    c->job.compute.footprint = c->footprint;
    c->job.compute.kx = kx;
    c->job.compute.ky = ky;
    c->job.compute.disk = 0;
    return WINENT_OK;
}

/* One option `code` with its value `val` (NULL for a flag) into `c`. */
static winent_status take_option(cli_opts *c, int code, const char *val, char *msg, size_t n)
{
    winent_job_opts *j = &c->job;
    long a1, a2;
    if (code == OPT_WINDOW || code == OPT_DISK) {
        c->window_by_disk = code == OPT_DISK;
        c->typed[OPT_WINDOW - 256] = val;
    } else if (code >= 256 && code < 256 + 96) {
        c->typed[code - 256] = val;
    }
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
        /* --window diskR and --disk R say one thing two ways: both given
         * is a conflict (the library's line), not the last one winning. */
        if (c->window_code && c->window_code != code) {
            winent_error err;
            winent_status st = winent_option_conflict(long_name(code), long_name(c->window_code),
                                                      WINENT_WORDS_CLI, &err);
            snprintf(msg, n, "%s", err.message);
            return st;
        }
        c->window_code = code;
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
                /* Its range is the library's to check, as a window's. */
                bad = parse_long(radius, -(1L << 20), 1L << 20, &a1) != 0;
                a1 = a2 = 2 * a1 + 1;
            } else if (!bad) {
                bad = parse_pair(item, INT_MIN, INT_MAX, 1, &a1, &a2) != 0;
            }
            if (bad)
                return refuse(disk_opt ? "disk" : k > 1 ? "windows" : "window", val, msg, n);
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
    case OPT_FOOTPRINT: /* any shape, from a file (footprint.c) */
        return take_footprint(c, val, msg, n);
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
        if ((a1 = table_word("base", val)) < 0)
            return refuse("base", val, msg, n);
        j->compute.base = (winent_base)a1;
        break;
    case OPT_LEVELS: /* the co-occurrence measures' levels: bins, by default over --range auto */
        if (parse_long(val, 1, UINT32_MAX, &a1) != 0)
            return refuse("levels", val, msg, n);
        j->compute.bins = (uint32_t)a1;
        c->levels_given = 1;
        break;
    case OPT_DISTANCE:
        if (parse_long(val, 1, 127, &a1) != 0)
            return refuse("distance", val, msg, n);
        j->compute.glcm_distance = (int)a1;
        break;
    case OPT_ANGLES: {
        unsigned bits = 0;
        const char *s = val;
        while (*s) {
            char *end = NULL;
            long deg = strtol(s, &end, 10);
            if (end == s || (*end != ',' && *end != '\0') || deg < 0 || deg > 135 || deg % 45)
                return refuse("angles", val, msg, n);
            bits |= 1u << (deg / 45);
            s = *end ? end + 1 : end;
        }
        if (bits == 0)
            return refuse("angles", val, msg, n);
        j->compute.glcm_angles = bits;
        break;
    }
    case OPT_ASYMMETRIC:
        j->compute.glcm_asymmetric = 1;
        break;
    case OPT_BINS: /* 0 would be the library's "distinct values" */
        if (parse_long(val, 1, UINT32_MAX, &a1) != 0)
            return refuse("bins", val, msg, n);
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
            return refuse("range", val, msg, n);
        memcpy(lo, val, (size_t)(colon - val));
        lo[colon - val] = '\0';
        /* Finite, LO < HI: the library's check. 0:0 is its "no range", so
         * it is refused here, with the library's words. */
        if (parse_double(lo, &vlo) || parse_double(colon + 1, &vhi) || (vlo == 0.0 && vhi == 0.0))
            return refuse("range", val, msg, n);
        j->compute.range_lo = vlo;
        j->compute.range_hi = vhi;
        c->range_given = 1;
        break;
    }
    case OPT_NODATA: {
        double v;
        if (parse_double(val, &v) != 0)
            return refuse("nodata", val, msg, n);
        /* NaN is always nodata; --nodata nan only says so. */
        j->compute.has_nodata = !isnan(v);
        j->compute.nodata = v;
        j->nodata_given = 1;
        break;
    }
    case OPT_SIZE:
        if (parse_pair(val, 1, INT_MAX, 0, &a1, &a2) != 0)
            return refuse("size", val, msg, n);
        j->width = (int)a1;
        j->height = (int)a2;
        break;
    case OPT_DTYPE:
        if ((a1 = table_word("dtype", val)) < 0)
            return refuse("dtype", val, msg, n);
        j->compute.dtype = (winent_dtype)a1;
        j->dtype_given = 1;
        break;
    case OPT_BANDS:
        if (parse_int(val, &a1) != 0)
            return refuse("bands", val, msg, n);
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
                return refuse("band", val, msg, n);
            c->band_list[0] = (int)a1;
        }
        /* Each band's range and repeats: the library's to check. */
        for (int b = 0; k > 1 ? b < k : k < 0; b++) {
            if (k < 0 || list_item(val, b, item, sizeof item) != 0 || parse_int(item, &a1) != 0)
                return refuse("band", val, msg, n);
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
        if ((a1 = table_word("interleave", val)) < 0)
            return refuse("interleave", val, msg, n);
        j->interleave = (winent_interleave)a1;
        break;
    case OPT_BYTEORDER:
        if ((a1 = table_word("byteorder", val)) < 0)
            return refuse("byteorder", val, msg, n);
        j->big_endian = (int)a1;
        break;
    case OPT_HEADER_BYTES: {
        uint64_t v;
        if (strcmp(val, "0") == 0)
            v = 0;
        else if (parse_size(val, &v) != 0)
            return refuse("header-bytes", val, msg, n);
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
        else if (!strcmp(val, "zarr"))
            j->format = WINENT_FORMAT_ZARR;
        else
            return refuse("format", val, msg, n);
        break;
    /* The library reads 0 as "the default" for the next four: here it is
     * a mistake, refused with the words the library uses for the range. */
    case OPT_LEVEL:
        if (parse_int(val, &a1) != 0 || a1 == 0)
            return refuse("level", val, msg, n);
        j->level = (int)a1;
        break;
    case OPT_FRAME_ROWS:
        if (parse_int(val, &a1) != 0 || a1 == 0)
            return refuse("frame-rows", val, msg, n);
        j->frame_rows = (int)a1;
        break;
    case OPT_TILE:
        if (parse_int(val, &a1) != 0 || a1 == 0)
            return refuse("tile", val, msg, n);
        j->tile = (int)a1;
        break;
    case OPT_PREVIEW_SIZE:
        if (parse_int(val, &a1) != 0 || a1 == 0)
            return refuse("preview-size", val, msg, n);
        j->preview_size = (int)a1;
        break;
    case OPT_COMPRESS:
        if ((a1 = table_word("compress", val)) < 0)
            return refuse("compress", val, msg, n);
        j->compress = (winent_compress)a1;
        break;
    case OPT_PREVIEW: j->preview = val; break;
    case OPT_PREVIEW_RANGE: {
        /* LO:HI in the map's unit; LO may start with '-'. Finite, LO < HI:
         * the library's check. */
        const char *colon = *val ? strchr(val + 1, ':') : NULL;
        char lo[64];
        double vlo, vhi;
        if (colon == NULL || (size_t)(colon - val) >= sizeof lo)
            return refuse("preview-range", val, msg, n);
        memcpy(lo, val, (size_t)(colon - val));
        lo[colon - val] = '\0';
        if (parse_double(lo, &vlo) || parse_double(colon + 1, &vhi))
            return refuse("preview-range", val, msg, n);
        j->preview_range = 1;
        j->preview_lo = vlo;
        j->preview_hi = vhi;
        break;
    }
    case OPT_TIF_LAYOUT:
        if ((a1 = table_word("tif-layout", val)) < 0)
            return refuse("tif-layout", val, msg, n);
        j->tif_layout = (winent_tif_layout)a1;
        break;
    case OPT_OT:
        if ((a1 = table_word("ot", val)) < 0)
            return refuse("ot", val, msg, n);
        j->out_type = (winent_out_type)a1;
        break;
    case OPT_DEVICE: j->device = val; break;
    case OPT_THREADS: /* 0 would be the library's "all cores" */
        if (parse_int(val, &a1) != 0 || a1 == 0)
            return refuse("threads", val, msg, n);
        j->threads = (int)a1;
        break;
    case OPT_MEM: {
        uint64_t v;
        if (parse_size(val, &v) != 0)
            return refuse("mem", val, msg, n);
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
        return validate(c, msg, n);
    }
    if (npos != 2)
        return usage(msg, n, "give an INPUT and an OUTPUT (see --help)");
    j->input = pos[0];
    j->output = pos[1];
    /* --range alone quantizes into 256 bins (the library would take a
     * range without bins as unused for integer samples). */
    if ((c->range_given || j->range_auto) && j->compute.bins == 0)
        j->compute.bins = 256;
    /* --levels N without --range: N levels over the band's own range. */
    if (c->levels_given && !c->range_given)
        j->range_auto = 1;
    return validate(c, msg, n);
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
