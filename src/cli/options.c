/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * options.c - the command line, read from the library's table of options
 * (winent_options, src/base/opttable.c): getopt_long's options are the
 * table's CLI words, and each value goes through the reader of its row's
 * type (plain_readers: a flag, a whole number, a word of an enumeration, a
 * size, a text, each into the winent_job_opts field the row names) or,
 * for an option of a grammar of its own (a list of windows, LO:HI), its
 * reader here (own_readers). An option of a plain type is one row of the
 * table; the library checks the values after (winent_job_opts_validate).
 */
#include "options.h"
#include "footprint.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
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
        const size_t len = strcspn(w, "|");
        /* The word, then its other spellings after commas ("tif,tiff"). */
        for (const char *a = w; a < w + len;) {
            const size_t alen = strcspn(a, ",|");
            if (strlen(val) == alen && strncmp(a, val, alen) == 0)
                return k;
            a += alen + (a[alen] == ',');
        }
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

static const char *code_cli(int code);

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
        if (c->typed[k] && (int)strlen(code_cli(k + 256)) == len &&
            strncmp(code_cli(k + 256), msg + 2, (size_t)len) == 0)
            code = k + 256;
    const char *typed = code ? c->typed[code - 256] : NULL;
    if (typed == NULL || (strlen(typed) == (size_t)(close - open - 3) &&
                          strncmp(typed, open + 3, (size_t)(close - open - 3)) == 0))
        return;
    char out[WINENT_MSG_LEN];
    const int disk = !strcmp(code_cli(code), "window") && c->window_by_disk;
    /* The window's range refused: a radius's words, not a window's. */
    const winent_option *disk_row =
        disk && strncmp(close + 3, "give K or WxH", 13) == 0 ? table_row("disk") : NULL;
    const char *advice = disk_row ? disk_row->cli_advice : NULL;
    if (advice != NULL)
        snprintf(out, sizeof out, "--disk: '%s': %s", typed, advice);
    else
        snprintf(out, sizeof out, "--%s: '%s%s", disk ? "disk" : code_cli(code), typed, close);
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
    c->band_list = c->window_list = c->window_disk = NULL;
    c->job.band_list = c->job.window_list = c->job.window_disk = NULL;
    free(c->footprint);
    c->footprint = NULL;
    c->job.compute.footprint = NULL;
    free(c->measure_list);
    free(c->measure_q);
    c->measure_list = NULL;
    c->measure_q = NULL;
    c->job.measure_list = NULL;
    c->job.measure_q = NULL;
    c->job.nmeasure_list = 0;
}

/* ---- The options, from the library's table ---------------------------- */

/* getopt_long's codes: a positional argument (optstring "-"), then one per
 * row of the library's table, 256 + its index (above any character, so
 * that a short option's code is never taken for one). */
#define OPT_POSITIONAL 1
#define OPT_ROW0 256
#define CLI_MAX_OPTS 96

/* The table's CLI options as getopt_long takes them: the first row of each
 * CLI word (a second row of a word, --window's list, is for the messages
 * only). */
typedef struct cli_table {
    struct option opts[CLI_MAX_OPTS + 1];
    const winent_option *rows; /* the library's table */
    int nrows;
} cli_table;

/* An option of the CLI's own: a flag of cli_opts, or a grammar of its own. */
typedef winent_status (*take_fn)(cli_opts *c, const winent_option *r, int code, const char *val,
                                 char *msg, size_t n);
typedef struct own_reader {
    const char *cli;
    take_fn take;      /* NULL: a flag, `value` into the int at `flag` of cli_opts */
    long flag;
    int value;
    int optional;      /* its value only with '=' (--info=FILE) */
} own_reader;

static const own_reader *own_reader_of(const char *cli);

/* The CLI word of option `code`. */
static const char *code_cli(int code)
{
    int count = 0;
    const winent_option *t = winent_options(&count);
    return code >= OPT_ROW0 && code < OPT_ROW0 + count && t[code - OPT_ROW0].cli
               ? t[code - OPT_ROW0].cli
               : "?";
}

static void cli_table_make(cli_table *t)
{
    int k = 0;
    t->rows = winent_options(&t->nrows);
    if (t->nrows > CLI_MAX_OPTS)
        t->nrows = CLI_MAX_OPTS;
    for (int i = 0; i < t->nrows; i++) {
        const winent_option *r = &t->rows[i];
        int dup = 0;
        for (int q = 0; q < k && r->cli; q++)
            dup |= strcmp(t->opts[q].name, r->cli) == 0;
        if (r->cli == NULL || dup)
            continue;
        const own_reader *own = own_reader_of(r->cli);
        t->opts[k].name = r->cli;
        t->opts[k].has_arg = own && own->optional ? optional_argument
                             : r->metavar           ? required_argument
                                                    : no_argument;
        t->opts[k].flag = NULL;
        t->opts[k].val = OPT_ROW0 + i;
        k++;
    }
    memset(&t->opts[k], 0, sizeof t->opts[k]);
}

/* The code of CLI option `cli` (its first row), or 0. */
static int code_of_cli(const char *cli)
{
    int count = 0;
    const winent_option *t = winent_options(&count);
    for (int i = 0; i < count && i < CLI_MAX_OPTS; i++)
        if (t[i].cli != NULL && strcmp(t[i].cli, cli) == 0)
            return OPT_ROW0 + i;
    return 0;
}

/* "-": positional arguments come back in order as OPT_POSITIONAL (no
 * permutation of argv, whatever POSIXLY_CORRECT says); ":": a missing value
 * is ':', and getopt prints nothing (the messages are ours). */
static const char short_opts[] = "-:hq";

/* The option `word` ("--name" or "--name=value") stands for, as
 * getopt_long matches it: the exact name, else the one option it is a
 * prefix of. NULL when none; *ambiguous is then set when several are. */
static const struct option *find_long(const cli_table *t, const char *word, int *ambiguous)
{
    const char *name = word + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const struct option *found = NULL;
    int matches = 0;
    *ambiguous = 0;
    for (const struct option *o = t->opts; o->name; o++) {
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

/* What getopt_long refused: a missing value (':'), an unknown or ambiguous
 * option or a value given to a flag ('?'). `word`: the argument at fault. */
static winent_status refused(const cli_table *t, int code, const char *word, char *msg, size_t n)
{
    if (code == ':')
        return usage(msg, n, "--%s needs a value (see --help)", code_cli(optopt));
    if (optopt >= OPT_ROW0) /* a long flag given a value */
        return usage(msg, n, "--%s takes no value", code_cli(optopt));
    if (optopt != 0)
        return usage(msg, n, "unknown option '-%c' (see --help)", optopt);
    const char *eq = strchr(word, '=');
    int len = eq ? (int)(eq - word) : (int)strlen(word), ambiguous;
    if (len > 64)
        len = 64;
    find_long(t, word, &ambiguous);
    if (!ambiguous)
        return usage(msg, n, "unknown option '%.*s' (see --help)", len, word);
    /* Every option it could be. */
    char list[256] = "";
    size_t k = 0;
    for (const struct option *o = t->opts; o->name && k < sizeof list - 32; o++)
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

/* ---- Readers of the plain types (winent_opt_type) ----------------------- */

static void *job_field(cli_opts *c, const winent_option *r)
{
    return (char *)&c->job + r->field;
}

static winent_status take_flag(cli_opts *c, const winent_option *r, const char *val, char *msg,
                               size_t n)
{
    (void)val, (void)msg, (void)n;
    *(int *)job_field(c, r) = 1;
    return WINENT_OK;
}

/* A whole number in the row's [lo, hi] (0, 0: any an int holds); the
 * library reads 0 as "the default" for WINENT_OPT_INT_SET: here it is a
 * mistake, refused with the words the library uses for the range. */
static winent_status take_int(cli_opts *c, const winent_option *r, const char *val, char *msg,
                              size_t n)
{
    long v;
    const int any = r->lo == 0 && r->hi == 0;
    const long lo = any ? INT_MIN : (long)r->lo, hi = any ? INT_MAX : (long)r->hi;
    if (parse_long(val, lo, hi, &v) != 0 || (r->type == WINENT_OPT_INT_SET && v == 0))
        return refuse(r->cli, val, msg, n);
    if (r->type == WINENT_OPT_U32)
        *(uint32_t *)job_field(c, r) = (uint32_t)v;
    else
        *(int *)job_field(c, r) = (int)v;
    return WINENT_OK;
}

/* The enumerations a word goes to are stored as ints. */
_Static_assert(sizeof(winent_base) == sizeof(int) && sizeof(winent_interleave) == sizeof(int) &&
                   sizeof(winent_format) == sizeof(int) && sizeof(winent_compress) == sizeof(int) &&
                   sizeof(winent_tif_layout) == sizeof(int) &&
                   sizeof(winent_out_type) == sizeof(int),
               "an enumeration of winent_job_opts is not an int");

static winent_status take_word(cli_opts *c, const winent_option *r, const char *val, char *msg,
                               size_t n)
{
    const int k = table_word(r->cli, val);
    if (k < 0)
        return refuse(r->cli, val, msg, n);
    *(int *)job_field(c, r) = k; /* an enumeration: an int's size and values */
    return WINENT_OK;
}

static winent_status take_size(cli_opts *c, const winent_option *r, const char *val, char *msg,
                               size_t n)
{
    uint64_t v;
    if (r->lo == 0 && strcmp(val, "0") == 0)
        v = 0;
    else if (parse_size(val, &v) != 0 || (double)v < r->lo)
        return refuse(r->cli, val, msg, n);
    *(uint64_t *)job_field(c, r) = v;
    return WINENT_OK;
}

static winent_status take_text(cli_opts *c, const winent_option *r, const char *val, char *msg,
                               size_t n)
{
    (void)msg, (void)n;
    *(const char **)job_field(c, r) = val;
    return WINENT_OK;
}

typedef winent_status (*take_plain_fn)(cli_opts *c, const winent_option *r, const char *val,
                                       char *msg, size_t n);

/* The reader of each plain type, by winent_opt_type. */
static const take_plain_fn plain_readers[] = {
    [WINENT_OPT_FLAG] = take_flag, [WINENT_OPT_INT] = take_int,   [WINENT_OPT_INT_SET] = take_int,
    [WINENT_OPT_U32] = take_int,   [WINENT_OPT_WORD] = take_word, [WINENT_OPT_SIZE] = take_size,
    [WINENT_OPT_TEXT] = take_text,
};

/* ---- Readers of the options of a grammar of their own ------------------- */

/* --info and --test take their file with '=' or as the one positional
 * argument (`--info --check FILE` and `--info FILE --check` both work). */
static winent_status take_info(cli_opts *c, const winent_option *r, int code, const char *val,
                               char *msg, size_t n)
{
    (void)code;
    c->info = 1;
    c->check |= strcmp(r->cli, "test") == 0;
    if (val) { /* --info=FILE */
        if (c->info_path || *val == '\0')
            return usage(msg, n, "--%s: give one FILE.zst", r->cli);
        c->info_path = val;
    }
    return WINENT_OK;
}

/* ---- Options that take a list: --window, --disk, --measure, --band, --angles */

/* Item `i` of the list `val`, `item`, into the option's place in `c`;
 * refused with the line of table row `row`, quoting `val`, or the
 * library's line for the item. */
typedef winent_status (*take_item_fn)(cli_opts *c, const char *row, const char *val,
                                      const char *item, int i, char *msg, size_t n);

/* How a list option's items are read and where they go. */
typedef struct list_kind {
    /* Room for `k` items, the previous list freed and the job's list
     * fields cleared (k < 0: only that); -1 when out of memory. */
    int (*make)(cli_opts *c, int k);
    take_item_fn item;
    /* The first item as the job's one value and, with k > 1, the list
     * shown to the library (which checks each item and repeats, as for
     * every caller); NULL when the items went where they belong. */
    void (*expose)(cli_opts *c, int k);
} list_kind;

/* The comma-separated list `val` (no item empty) through `kind`: a value
 * that is no list ("", "5,,9", "3,") gets the line of table row `row`. */
static winent_status take_list(cli_opts *c, const char *row, const char *val,
                               const list_kind *kind, char *msg, size_t n)
{
    const size_t len = strlen(val);
    int k = len && val[0] != ',' && val[len - 1] != ',' && !strstr(val, ",,") ? 1 : -1;
    for (const char *q = val; k > 0 && *q; q++)
        k += *q == ',';
    if (kind->make(c, k) != 0)
        return usage(msg, n, "out of memory");
    if (k < 0)
        return refuse(row, val, msg, n);
    char *items = malloc(len + 1);
    if (items == NULL)
        return usage(msg, n, "out of memory");
    memcpy(items, val, len + 1);
    winent_status st = WINENT_OK;
    char *item = items;
    for (int i = 0; i < k && st == WINENT_OK; i++) {
        char *end = item + strcspn(item, ",");
        *end = '\0';
        st = kind->item(c, row, val, item, i, msg, n);
        item = end + 1;
    }
    free(items);
    if (st == WINENT_OK && kind->expose != NULL)
        kind->expose(c, k);
    return st;
}

/* One item of --window (K, WxH, diskR) or of --disk (R) into its sides;
 * -1 when it is none. Its range is the library's to check. */
static int window_item(const char *item, int disk_opt, long *kx, long *ky, int *disk)
{
    const char *radius = item;
    *disk = disk_opt;
    if (!disk_opt && strncmp(item, "disk", 4) == 0) {
        *disk = 1;
        radius = item + 4;
    }
    if (!*disk)
        return parse_pair(item, INT_MIN, INT_MAX, 1, kx, ky);
    if (parse_long(radius, -(1L << 20), 1L << 20, kx) != 0)
        return -1;
    *kx = *ky = 2 * *kx + 1;
    return 0;
}

static int window_make(cli_opts *c, int k)
{
    free(c->window_list);
    free(c->window_disk);
    c->window_list = k > 0 ? malloc(sizeof *c->window_list * 2 * (size_t)k) : NULL;
    c->window_disk = k > 0 ? malloc(sizeof *c->window_disk * (size_t)k) : NULL;
    c->job.window_list = c->job.window_disk = NULL;
    c->job.nwindow_list = 0;
    return k > 0 && (c->window_list == NULL || c->window_disk == NULL) ? -1 : 0;
}

static winent_status window_take(cli_opts *c, const char *row, const char *val, const char *item,
                                 int i, char *msg, size_t n)
{
    long kx, ky;
    int disk;
    if (window_item(item, c->window_by_disk, &kx, &ky, &disk) != 0)
        return refuse(row, val, msg, n);
    c->window_list[2 * i] = (int)kx;
    c->window_list[2 * i + 1] = (int)ky;
    c->window_disk[i] = disk;
    return WINENT_OK;
}

static void window_expose(cli_opts *c, int k)
{
    c->job.compute.kx = c->window_list[0];
    c->job.compute.ky = c->window_list[1];
    c->job.compute.disk = c->window_disk[0];
    if (k > 1) {
        c->job.window_list = c->window_list;
        c->job.window_disk = c->window_disk;
        c->job.nwindow_list = k;
    }
}

static const list_kind window_kind = {window_make, window_take, window_expose};

/* The window given one way: a second of --window, --disk, --footprint is
 * a conflict (the library's line), not the last one winning. */
static winent_status window_once(cli_opts *c, const winent_option *r, int code, char *msg,
                                 size_t n)
{
    if (c->window_code && c->window_code != code) {
        winent_error err;
        winent_status st = winent_option_conflict(r->cli, code_cli(c->window_code),
                                                  WINENT_WORDS_CLI, &err);
        snprintf(msg, n, "%s", err.message);
        return st;
    }
    c->window_code = code;
    return WINENT_OK;
}

/* K, WxH, diskR, or a list of them: a map of each; --disk R is --window
 * diskR (a list of radii too). Each item's sides, odd or even, and
 * repeats: the library's to check (winent_job_opts_validate), as for every
 * caller. */
static winent_status take_window(cli_opts *c, const winent_option *r, int code, const char *val,
                                 char *msg, size_t n)
{
    c->window_by_disk = strcmp(r->cli, "disk") == 0;
    WINENT_CLI_TRY(window_once(c, r, code, msg, n));
    const char *row = c->window_by_disk ? "disk" : strchr(val, ',') ? "windows" : "window";
    return take_list(c, row, val, &window_kind, msg, n);
}

static int measure_make(cli_opts *c, int k)
{
    free(c->measure_list);
    free(c->measure_q);
    c->measure_list = k > 0 ? malloc(sizeof *c->measure_list * (size_t)k) : NULL;
    c->measure_q = k > 0 ? malloc(sizeof *c->measure_q * (size_t)k) : NULL;
    c->job.measure_list = NULL;
    c->job.measure_q = NULL;
    c->job.nmeasure_list = 0;
    return k > 0 && (c->measure_list == NULL || c->measure_q == NULL) ? -1 : 0;
}

/* A measure's name: the library's reader, and its line for a name it has
 * no measure for. */
static winent_status measure_take(cli_opts *c, const char *row, const char *val,
                                  const char *item, int i, char *msg, size_t n)
{
    (void)row, (void)val;
    winent_error e;
    if (winent_measure_parse(item, &c->measure_list[i], &c->measure_q[i], &e) != WINENT_OK)
        return usage(msg, n, "%s", e.message);
    return WINENT_OK;
}

static void measure_expose(cli_opts *c, int k)
{
    c->job.compute.measure = c->measure_list[0];
    c->job.compute.renyi_q = c->measure_q[0];
    if (k > 1) {
        c->job.measure_list = c->measure_list;
        c->job.measure_q = c->measure_q;
        c->job.nmeasure_list = k;
    }
}

static const list_kind measure_kind = {measure_make, measure_take, measure_expose};

/* NAME or a list of them: a map of each (at each window), in the order
 * given; each name and order the library's to check. */
static winent_status take_measure(cli_opts *c, const winent_option *r, int code, const char *val,
                                  char *msg, size_t n)
{
    (void)code;
    return take_list(c, r->cli, val, &measure_kind, msg, n);
}

static int band_make(cli_opts *c, int k)
{
    free(c->band_list);
    c->band_list = k > 0 ? malloc(sizeof *c->band_list * (size_t)k) : NULL;
    c->job.band_list = NULL;
    c->job.nband_list = 0;
    return k > 0 && c->band_list == NULL ? -1 : 0;
}

/* A band number: its range is the library's to check. */
static winent_status band_take(cli_opts *c, const char *row, const char *val, const char *item,
                               int i, char *msg, size_t n)
{
    long v;
    if (parse_int(item, &v) != 0)
        return refuse(row, val, msg, n);
    c->band_list[i] = (int)v;
    return WINENT_OK;
}

static void band_expose(cli_opts *c, int k)
{
    c->job.band = c->band_list[0];
    if (k > 1) {
        c->job.band_list = c->band_list;
        c->job.nband_list = k;
    }
}

static const list_kind band_kind = {band_make, band_take, band_expose};

/* B, a list of them, or all: a map of each. Each band's range and repeats:
 * the library's to check. */
static winent_status take_band(cli_opts *c, const winent_option *r, int code, const char *val,
                               char *msg, size_t n)
{
    (void)code;
    c->job.band_all = table_word(r->cli, val) == 0; /* all */
    if (c->job.band_all)
        return band_make(c, -1) == 0 ? WINENT_OK : usage(msg, n, "out of memory");
    return take_list(c, r->cli, val, &band_kind, msg, n);
}

/* The co-occurrence pairs' directions: the bits of the angles given. */
static int angles_make(cli_opts *c, int k)
{
    (void)k;
    c->job.compute.glcm_angles = 0;
    return 0;
}

static winent_status angles_take(cli_opts *c, const char *row, const char *val, const char *item,
                                 int i, char *msg, size_t n)
{
    (void)i;
    long deg;
    if (parse_long(item, 0, 135, &deg) != 0 || deg % 45 != 0)
        return refuse(row, val, msg, n);
    c->job.compute.glcm_angles |= 1u << (deg / 45);
    return WINENT_OK;
}

static const list_kind angles_kind = {angles_make, angles_take, NULL};

static winent_status take_angles(cli_opts *c, const winent_option *r, int code, const char *val,
                                 char *msg, size_t n)
{
    (void)code;
    return take_list(c, r->cli, val, &angles_kind, msg, n);
}

/* The co-occurrence measures' levels: bins, by default over --range auto. */
static winent_status take_levels(cli_opts *c, const winent_option *r, int code, const char *val,
                                 char *msg, size_t n)
{
    (void)code;
    long v;
    if (parse_long(val, 1, UINT32_MAX, &v) != 0)
        return refuse(r->cli, val, msg, n);
    c->job.compute.bins = (uint32_t)v;
    c->levels_given = 1;
    return WINENT_OK;
}

/* "LO:HI" as two numbers (LO may start with '-'); -1 when it is none. */
static int parse_lo_hi(const char *val, double *lo, double *hi)
{
    /* From val + 1: LO may start with '-'; an empty value has no val + 1
     * to read. */
    const char *colon = *val ? strchr(val + 1, ':') : NULL;
    if (colon == NULL)
        return -1;
    /* LO as long as it is written (a number in full decimal digits, 1e300
     * written out, is a number as Python and the library take it). */
    char *first = malloc((size_t)(colon - val) + 1);
    if (first == NULL)
        return -1;
    memcpy(first, val, (size_t)(colon - val));
    first[colon - val] = '\0';
    const int bad = parse_double(first, lo) || parse_double(colon + 1, hi);
    free(first);
    return bad ? -1 : 0;
}

static winent_status take_range(cli_opts *c, const winent_option *r, int code, const char *val,
                                char *msg, size_t n)
{
    (void)code;
    winent_job_opts *j = &c->job;
    double vlo, vhi;
    if (table_word(r->cli, val) == 0) { /* auto */
        j->range_auto = 1;
        j->compute.range_lo = j->compute.range_hi = 0.0;
        c->range_given = 0;
        return WINENT_OK;
    }
    j->range_auto = 0;
    /* Finite, LO < HI: the library's check. 0:0 is its "no range", so it
     * is refused here, with the library's words. */
    if (parse_lo_hi(val, &vlo, &vhi) != 0 || (vlo == 0.0 && vhi == 0.0))
        return refuse(r->cli, val, msg, n);
    j->compute.range_lo = vlo;
    j->compute.range_hi = vhi;
    c->range_given = 1;
    return WINENT_OK;
}

/* LO:HI in the map's unit. Finite, LO < HI: the library's check. */
static winent_status take_preview_range(cli_opts *c, const winent_option *r, int code,
                                        const char *val, char *msg, size_t n)
{
    (void)code;
    double vlo, vhi;
    if (parse_lo_hi(val, &vlo, &vhi) != 0)
        return refuse(r->cli, val, msg, n);
    c->job.preview_range = 1;
    c->job.preview_lo = vlo;
    c->job.preview_hi = vhi;
    return WINENT_OK;
}

static winent_status take_nodata(cli_opts *c, const winent_option *r, int code, const char *val,
                                 char *msg, size_t n)
{
    (void)code;
    double v;
    if (parse_double(val, &v) != 0)
        return refuse(r->cli, val, msg, n);
    /* NaN is always nodata; --nodata nan only says so. */
    c->job.compute.has_nodata = !isnan(v);
    c->job.compute.nodata = v;
    c->job.nodata_given = 1;
    return WINENT_OK;
}

static winent_status take_raw_size(cli_opts *c, const winent_option *r, int code,
                                   const char *val, char *msg, size_t n)
{
    (void)code;
    long w, h;
    if (parse_pair(val, 1, INT_MAX, 0, &w, &h) != 0)
        return refuse(r->cli, val, msg, n);
    c->job.width = (int)w;
    c->job.height = (int)h;
    return WINENT_OK;
}

static winent_status take_dtype(cli_opts *c, const winent_option *r, int code, const char *val,
                                char *msg, size_t n)
{
    (void)code;
    const int k = table_word(r->cli, val);
    if (k < 0)
        return refuse(r->cli, val, msg, n);
    c->job.compute.dtype = (winent_dtype)k;
    c->job.dtype_given = 1;
    return WINENT_OK;
}

/* --footprint FILE: the window is the file's mask (compute.footprint,
 * its sides kx, ky). It and --window or --disk say one thing two ways: a
 * conflict, as those two are. */
static winent_status take_footprint(cli_opts *c, const winent_option *r, int code,
                                    const char *val, char *msg, size_t n)
{
    WINENT_CLI_TRY(window_once(c, r, code, msg, n));
    free(c->footprint);
    c->footprint = NULL;
    int kx = 0, ky = 0;
    winent_status st = cli_read_footprint(val, &c->footprint, &kx, &ky, msg, n);
    if (st != WINENT_OK)
        return st;
    /* A rectangle of ones or a disk is that window, as Python's
     * footprint= takes it: the same maps, names and checks. */
    const int shape = cli_footprint_shape(c->footprint, kx, ky);
    c->job.compute.footprint = shape == 2 ? c->footprint : NULL;
    c->job.compute.kx = kx;
    c->job.compute.ky = ky;
    c->job.compute.disk = shape == 1;
    return WINENT_OK;
}

#define CLI_FLAG(name, field, value) {name, NULL, (long)offsetof(cli_opts, field), value, 0}

/* The readers of the CLI's own options, by CLI word (the table's rows of
 * type WINENT_OPT_OWN, and its flags with no field of winent_job_opts). */
static const own_reader own_readers[] = {
    CLI_FLAG("help", help, 1),
    CLI_FLAG("version", version, 1),
    CLI_FLAG("progress", progress, 1),
    CLI_FLAG("no-progress", progress, 0),
    CLI_FLAG("quiet", quiet, 1),
    CLI_FLAG("stats", stats, 1),
    CLI_FLAG("check", check, 1),
    {"info", take_info, 0, 0, 1},
    {"test", take_info, 0, 0, 1},
    {"window", take_window, 0, 0, 0},
    {"disk", take_window, 0, 0, 0},
    {"footprint", take_footprint, 0, 0, 0},
    {"measure", take_measure, 0, 0, 0},
    {"levels", take_levels, 0, 0, 0},
    {"angles", take_angles, 0, 0, 0},
    {"range", take_range, 0, 0, 0},
    {"nodata", take_nodata, 0, 0, 0},
    {"size", take_raw_size, 0, 0, 0},
    {"dtype", take_dtype, 0, 0, 0},
    {"band", take_band, 0, 0, 0},
    {"preview-range", take_preview_range, 0, 0, 0},
};

static const own_reader *own_reader_of(const char *cli)
{
    for (size_t i = 0; i < sizeof own_readers / sizeof own_readers[0]; i++)
        if (strcmp(own_readers[i].cli, cli) == 0)
            return &own_readers[i];
    return NULL;
}

/* Whether option `r` says what is computed or how the raw input reads
 * (--decode refuses them). */
static int computes(const winent_option *r)
{
    return strcmp(r->group, "What is computed") == 0 || strcmp(r->group, "Raw input") == 0;
}

/* One option `code` (a row of the table) with its value `val` (NULL for a
 * flag) into `c`: its type's reader, or its own. */
static winent_status take_option(cli_opts *c, int code, const char *val, char *msg, size_t n)
{
    int count = 0;
    const winent_option *t = winent_options(&count);
    if (code < OPT_ROW0 || code >= OPT_ROW0 + count || code - OPT_ROW0 >= CLI_MAX_OPTS)
        return usage(msg, n, "unknown option (see --help)");
    const winent_option *r = &t[code - OPT_ROW0];
    /* What was typed, for the library's messages to quote (--disk's
     * under --window's, the one window option). */
    const int disk = strcmp(r->cli, "disk") == 0;
    c->typed[(disk ? code_of_cli("window") : code) - OPT_ROW0] = val;
    const own_reader *own = own_reader_of(r->cli);
    winent_status st;
    if (own != NULL && own->take == NULL) {
        *(int *)((char *)c + own->flag) = own->value;
        st = WINENT_OK;
    } else if (own != NULL) {
        st = own->take(c, r, code, val, msg, n);
    } else if (r->type > WINENT_OPT_OWN && r->type <= WINENT_OPT_TEXT && r->field >= 0) {
        st = plain_readers[r->type](c, r, val, msg, n);
    } else {
        return usage(msg, n, "--%s: no reader for its values", r->cli);
    }
    if (st == WINENT_OK && computes(r) && !c->compute_option)
        c->compute_option = r->cli;
    return st;
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
    cli_table t;
    cli_table_make(&t);
    while ((code = getopt_long(argc, argv, short_opts, t.opts, NULL)) != -1) {
        if (code == ':' || code == '?')
            return refused(&t, code, argv[optind - 1 < argc ? optind - 1 : argc - 1], msg, n);
        if (code == 'h' || code == 'q')
            code = code_of_cli(code == 'h' ? "help" : "quiet");
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
    /* --levels N is --bins N (one quantization for every measure): both
     * given, one would be dropped. */
    if (c->levels_given && c->typed[code_of_cli("bins") - OPT_ROW0] != NULL)
        return usage(msg, n,
                     "--levels does not go with --bins: both are the number of bins every "
                     "measure of the job sees: give one");
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
    /* The options that only say how the job runs (cli_command_line). */
    static const char *const run_only[] = {"progress", "no-progress", "quiet", "stats",
                                           "device",   "threads",     "mem"};
    int ambiguous;
    cli_table t;
    cli_table_make(&t);
    const struct option *o = find_long(&t, a, &ambiguous);
    if (o == NULL)
        return 0;
    const int takes_next = o->has_arg == required_argument && strchr(a, '=') == NULL;
    for (size_t k = 0; k < sizeof run_only / sizeof run_only[0]; k++)
        if (strcmp(o->name, run_only[k]) == 0)
            return takes_next && i + 1 < argc ? 2 : 1;
    return takes_next && i + 1 < argc ? -2 : 0;
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
