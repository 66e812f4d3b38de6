#include "options.h"

#include <errno.h>
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
        "raw samples with --size and --dtype (a file, or - for standard input), or,\n"
        "in a build with GDAL, any raster GDAL opens: VRT, JPEG2000, NetCDF/HDF\n"
        "(NETCDF:file.nc:var), ENVI, /vsizip/, /vsicurl/, /vsis3/ ...; GDAL's mask\n"
        "(alpha band, per-dataset mask) is nodata. A TIFF or GDAL format on a pipe\n"
        "is first copied to an unnamed temporary file in TMPDIR. OUTPUT by its name:\n"
        "NAME.zst (zstd frames, JSON header, seek table), NAME.tif/.tiff (float32\n"
        "Cloud-Optimized GeoTIFF), NAME.raw/.f32/.bin, a name without extension or\n"
        "- (raw float32, little-endian). A file appears only when complete; a pipe,\n"
        "device or /dev/fd/N is written in place.\n"
        "\n"
        "What is computed:\n"
        "  --window K|WxH      window size, odd sides 1..255 (default 5; 7x3 = 7 wide, 3 high);\n"
        "                      a list (5,9,15) makes a map of each in the same pass\n"
        "  --base e|2|10       base of the logarithm (default e; 2 gives bits, as scikit-image)\n"
        "  --bins N            quantize into N bins over --range (float input: default 256)\n"
        "  --range LO:HI       bin = floor((v - LO) * N / (HI - LO)), clamped to 0..N-1;\n"
        "                      more than 1%% of the samples clamped gives a warning\n"
        "  --range auto        LO:HI from the band's statistics (a .aux.xml beside the file,\n"
        "                      the TIFF's GDAL metadata), else from a first pass over the\n"
        "                      band (files only: a pipe needs --range LO:HI)\n"
        "  --nodata V          pixels equal to V are not counted (default: the file's\n"
        "                      GDAL_NODATA or GDAL nodata value)\n"
        "\n"
        "Raw input:\n"
        "  --size WxH          width and height in pixels\n"
        "  --dtype T           u8, i8, u16, i16, u32, i32, f32 or f64\n"
        "  --bands N           bands in the file (default 1)\n"
        "  --interleave I      bsq, bip or bil (default bsq)\n"
        "  --band B            band to use, 1-based (default 1; TIFF and GDAL inputs too);\n"
        "                      a list (1,3,5) or 'all' reads them in one pass: a map of each\n"
        "                      band at each window, band by band (.tif: a band each; .zst:\n"
        "                      one after another; raw: NAME_b3_w9.raw each)\n"
        "  --byteorder O       little or big (default little)\n"
        "  --header-bytes N    bytes to skip before the samples\n"
        "\n"
        "Output:\n"
        "  --format F          zst, tif or raw (default: from the output name: .zst;\n"
        "                      .tif, .tiff; .raw, .f32, .bin, '-' or no extension raw;\n"
        "                      any other extension needs --format)\n"
        "  --level L           compression level: zstd -7..22 (default 2 for .zst, 3 for\n"
        "                      GeoTIFF and 1 for its overview tiles), deflate 1..9\n"
        "                      (default 6)\n"
        "  --frame-rows N      rows per .zst frame (default: about 4 MiB of floats)\n"
        "  --tile N            GeoTIFF tile side, multiple of 16 (default 512)\n"
        "  --compress C        GeoTIFF compression: zstd, deflate, lzw or none (default zstd)\n"
        "  --preview FILE.png  also write a quicklook of the map while it streams: each pixel\n"
        "                      the mean of the valid map pixels of its block, coloured on\n"
        "                      the scale 0 .. log(min(window pixels, bins)), transparent\n"
        "                      where none is valid, with a legend bar below\n"
        "  --preview-size N    its longest side in pixels (default 1024; never more than\n"
        "                      the map's)\n"
        "  --tif-layout L      cog (default): a Cloud-Optimized GeoTIFF, with overviews (the\n"
        "                      mean of the valid pixels of each 2x2, 4x4, ... block) until one\n"
        "                      tile holds the image; tiled: plain tiled GeoTIFF, no overviews\n"
        "  --bigtiff           write a BigTIFF even when the file would fit a classic TIFF\n"
        "                      (by default only past 4 GiB)\n"
        "  --sidecar           raw output: also write OUTPUT.hdr (ENVI header: size, NaN\n"
        "                      nodata, georeferencing, provenance) so GDAL opens the map\n"
        "  --decode            MAP.zst OUTPUT: write a .zst map as a GeoTIFF or raw (with\n"
        "                      its georeferencing, nodata and provenance), checking every\n"
        "                      frame's checksum\n"
        "\n"
        "Running:\n"
        "  --device D          auto (default: the CPU at once, and every GPU too when the job is\n"
        "                      long enough to gain from them, all taking chunks from one\n"
        "                      queue), cpu, gpu (every GPU), or a list such as 0,2 or cpu,0\n"
        "  --threads N         the one thread budget for decoding, computing and encoding\n"
        "                      (default: all cores)\n"
        "  --mem SIZE          host memory budget for buffers, e.g. 512M, 4G (default 1G;\n"
        "                      a job takes only what its chunks in flight need)\n"
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
        "Exit codes: 0 success, 2 usage, 3 input, 4 output, 5 device, 130 interrupted.\n",
        f);
}

static winent_status usage(char *msg, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, n, fmt, ap);
    va_end(ap);
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
    if (end == s || *end != '\0' || errno == ERANGE)
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
    if (*end != '\0' || v * mult >= 1.8e19)
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

void cli_free(cli_opts *c)
{
    free(c->command_line);
    c->command_line = NULL;
    c->job.command_line = NULL;
    free(c->band_list);
    free(c->window_list);
    c->band_list = c->window_list = NULL;
    c->job.band_list = c->job.window_list = NULL;
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

winent_status cli_parse(int argc, char **argv, cli_opts *c, char *msg, size_t n)
{
    memset(c, 0, sizeof *c);
    winent_job_opts_default(&c->job);
    c->command_line = cli_command_line(argc, argv);
    c->job.command_line = c->command_line;
    c->progress = -1;
    winent_job_opts *j = &c->job;
    const char *pos[2];
    int npos = 0, only_positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_positional || a[0] != '-' || strcmp(a, "-") == 0) {
            if (npos == 2)
                return usage(msg, n, "too many arguments: '%s' (see --help)", a);
            pos[npos++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_positional = 1;
            continue;
        }
        /* --name=value or --name value */
        char name[64];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        if (len >= sizeof name)
            return usage(msg, n, "unknown option '%s' (see --help)", a);
        memcpy(name, a, len);
        name[len] = '\0';
        static const char *const flags[] = {
            "--help",    "-h",        "--version", "--progress", "--no-progress", "--quiet", "-q",
            "--stats",   "--check",   "--bigtiff", "--sidecar",  "--decode"};
        int is_flag = 0;
        for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
            if (strcmp(name, flags[k]) == 0)
                is_flag = 1;
        /* --info and --test name their file with '=' or as the one
         * positional argument: `--info --check FILE` and `--info FILE
         * --check` both work. */
        if (!strcmp(name, "--info") || !strcmp(name, "--test")) {
            c->info = 1;
            c->check |= name[2] == 't';
            if (eq) {
                if (c->info_path || eq[1] == '\0')
                    return usage(msg, n, "%s: give one FILE.zst", name);
                c->info_path = eq + 1;
            }
            continue;
        }
        if (is_flag) {
            if (eq)
                return usage(msg, n, "%s takes no value", name);
        } else if (eq) {
            val = eq + 1;
        } else if (i + 1 < argc) {
            val = argv[++i];
        } else {
            return usage(msg, n, "%s needs a value (see --help)", name);
        }
        long a1, a2;
        static const char *const compute_opts[] = {
            "--window", "--base",  "--bins",  "--range",      "--nodata",       "--size",
            "--dtype",  "--bands", "--band",  "--interleave", "--byteorder", "--header-bytes"};
        for (size_t k = 0; k < sizeof compute_opts / sizeof *compute_opts; k++)
            if (!strcmp(name, compute_opts[k]) && !c->compute_option)
                c->compute_option = compute_opts[k];
        if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
            c->help = 1;
        } else if (!strcmp(name, "--version")) {
            c->version = 1;
        } else if (!strcmp(name, "--progress")) {
            c->progress = 1;
        } else if (!strcmp(name, "--no-progress")) {
            c->progress = 0;
        } else if (!strcmp(name, "--quiet") || !strcmp(name, "-q")) {
            c->quiet = 1;
        } else if (!strcmp(name, "--stats")) {
            c->stats = 1;
        } else if (!strcmp(name, "--check")) {
            c->check = 1;
        } else if (!strcmp(name, "--sidecar")) {
            j->sidecar = 1;
        } else if (!strcmp(name, "--decode")) {
            j->decode = 1;
        } else if (!strcmp(name, "--window")) {
            /* K, WxH, or a list of them: a map of each. */
            int k = list_items(val);
            char item[32];
            free(c->window_list);
            c->window_list = k > 0 ? malloc(sizeof *c->window_list * 2 * (size_t)k) : NULL;
            j->window_list = NULL;
            j->nwindow_list = 0;
            if (k > 0 && c->window_list == NULL)
                return usage(msg, n, "out of memory");
            for (int w = 0; w < k || k < 0; w++) {
                if (k < 0 || list_item(val, w, item, sizeof item) != 0 ||
                    parse_pair(item, 1, 255, 1, &a1, &a2) != 0 || a1 % 2 == 0 || a2 % 2 == 0)
                    return usage(msg, n,
                                 "--window: '%s': give K or WxH, odd sides from 1 to 255, or a "
                                 "list of them (5,9,15)",
                                 val);
                for (int v = 0; v < w; v++)
                    if (c->window_list[2 * v] == a1 && c->window_list[2 * v + 1] == a2)
                        return usage(msg, n,
                                     "--window: '%s': %s given twice: give each window once", val,
                                     item);
                c->window_list[2 * w] = (int)a1;
                c->window_list[2 * w + 1] = (int)a2;
            }
            j->compute.kx = c->window_list[0];
            j->compute.ky = c->window_list[1];
            if (k > 1) {
                j->window_list = c->window_list;
                j->nwindow_list = k;
            }
        } else if (!strcmp(name, "--base")) {
            if (!strcmp(val, "e"))
                j->compute.base = WINENT_BASE_E;
            else if (!strcmp(val, "2"))
                j->compute.base = WINENT_BASE_2;
            else if (!strcmp(val, "10"))
                j->compute.base = WINENT_BASE_10;
            else
                return usage(msg, n, "--base: '%s': use e, 2 or 10", val);
        } else if (!strcmp(name, "--bins")) {
            if (parse_long(val, 1, 1L << 30, &a1) != 0)
                return usage(msg, n, "--bins: '%s': give a whole number from 1 to 1073741824",
                             val);
            j->compute.bins = (uint32_t)a1;
        } else if (!strcmp(name, "--range")) {
            /* From val + 1: LO may start with '-'; an empty value has no
             * val + 1 to read. */
            const char *colon = *val ? strchr(val + 1, ':') : NULL;
            char lo[64];
            double vlo, vhi;
            if (!strcmp(val, "auto")) {
                j->range_auto = 1;
                j->compute.range_lo = j->compute.range_hi = 0.0;
                continue;
            }
            j->range_auto = 0;
            if (colon == NULL || (size_t)(colon - val) >= sizeof lo)
                return usage(msg, n, "--range: '%s': give LO:HI, or auto", val);
            memcpy(lo, val, (size_t)(colon - val));
            lo[colon - val] = '\0';
            if (parse_double(lo, &vlo) || parse_double(colon + 1, &vhi) || !isfinite(vlo) ||
                !isfinite(vhi) || !(vhi > vlo))
                return usage(msg, n,
                             "--range: '%s': give finite numbers LO:HI with LO < HI, or auto", val);
            j->compute.range_lo = vlo;
            j->compute.range_hi = vhi;
        } else if (!strcmp(name, "--nodata")) {
            double v;
            if (parse_double(val, &v) != 0)
                return usage(msg, n, "--nodata: '%s': not a number", val);
            /* NaN is always nodata; --nodata nan only says so. */
            j->compute.has_nodata = !isnan(v);
            j->compute.nodata = v;
            j->nodata_given = 1;
        } else if (!strcmp(name, "--size")) {
            if (parse_pair(val, 1, 2147483647L, 0, &a1, &a2) != 0)
                return usage(msg, n, "--size: '%s': give WxH, e.g. 10240x10240", val);
            j->width = (int)a1;
            j->height = (int)a2;
        } else if (!strcmp(name, "--dtype")) {
            if (parse_dtype(val, &j->compute.dtype) != 0)
                return usage(msg, n, "--dtype: '%s': use u8, i8, u16, i16, u32, i32, f32 or f64",
                             val);
            j->dtype_given = 1;
        } else if (!strcmp(name, "--bands")) {
            if (parse_long(val, 1, 65535, &a1) != 0)
                return usage(msg, n, "--bands: '%s': give a number from 1 to 65535", val);
            j->bands = (int)a1;
        } else if (!strcmp(name, "--band")) {
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
            for (int b = 0; b < k || k < 0; b++) {
                if (k < 0 || list_item(val, b, item, sizeof item) != 0 ||
                    parse_long(item, 1, 65535, &a1) != 0)
                    return usage(msg, n,
                                 "--band: '%s': give a band number from 1, a list of them "
                                 "(1,3,5), or all",
                                 val);
                for (int v = 0; v < b; v++)
                    if (c->band_list[v] == a1)
                        return usage(msg, n, "--band: '%s': band %ld given twice: give each band "
                                             "once",
                                     val, a1);
                c->band_list[b] = (int)a1;
            }
            if (k > 0)
                j->band = c->band_list[0];
            if (k > 1) {
                j->band_list = c->band_list;
                j->nband_list = k;
            }
        } else if (!strcmp(name, "--interleave")) {
            if (!strcmp(val, "bsq"))
                j->interleave = WINENT_INTERLEAVE_BSQ;
            else if (!strcmp(val, "bip"))
                j->interleave = WINENT_INTERLEAVE_BIP;
            else if (!strcmp(val, "bil"))
                j->interleave = WINENT_INTERLEAVE_BIL;
            else
                return usage(msg, n, "--interleave: '%s': use bsq, bip or bil", val);
        } else if (!strcmp(name, "--byteorder")) {
            if (!strcmp(val, "little"))
                j->big_endian = 0;
            else if (!strcmp(val, "big"))
                j->big_endian = 1;
            else
                return usage(msg, n, "--byteorder: '%s': use little or big", val);
        } else if (!strcmp(name, "--header-bytes")) {
            uint64_t v;
            if (strcmp(val, "0") == 0)
                v = 0;
            else if (parse_size(val, &v) != 0)
                return usage(msg, n, "--header-bytes: '%s': give a byte count", val);
            j->header_bytes = v;
        } else if (!strcmp(name, "--format")) {
            if (!strcmp(val, "zst"))
                j->format = WINENT_FORMAT_ZST;
            else if (!strcmp(val, "tif") || !strcmp(val, "tiff"))
                j->format = WINENT_FORMAT_TIF;
            else if (!strcmp(val, "raw"))
                j->format = WINENT_FORMAT_RAW;
            else
                return usage(msg, n, "--format: '%s': use zst, tif or raw", val);
        } else if (!strcmp(name, "--level")) {
            if (parse_long(val, -7, 22, &a1) != 0 || a1 == 0)
                return usage(msg, n, "--level: '%s': give a zstd level from -7 to 22 (not 0)",
                             val);
            j->level = (int)a1;
        } else if (!strcmp(name, "--frame-rows")) {
            if (parse_long(val, 1, 1 << 20, &a1) != 0)
                return usage(msg, n, "--frame-rows: '%s': give a row count from 1", val);
            j->frame_rows = (int)a1;
        } else if (!strcmp(name, "--tile")) {
            if (parse_long(val, 16, 65536, &a1) != 0 || a1 % 16 != 0)
                return usage(msg, n, "--tile: '%s': give a multiple of 16 from 16 to 65536", val);
            j->tile = (int)a1;
        } else if (!strcmp(name, "--compress")) {
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
        } else if (!strcmp(name, "--preview")) {
            if (*val == '\0')
                return usage(msg, n, "--preview: give a FILE.png");
            j->preview = val;
        } else if (!strcmp(name, "--preview-size")) {
            if (parse_long(val, 1, WINENT_PREVIEW_SIZE_MAX, &a1) != 0)
                return usage(msg, n, "--preview-size: '%s': give a side in pixels from 1 to %d",
                             val, WINENT_PREVIEW_SIZE_MAX);
            j->preview_size = (int)a1;
        } else if (!strcmp(name, "--tif-layout")) {
            if (!strcmp(val, "cog"))
                j->tif_layout = WINENT_TIF_COG;
            else if (!strcmp(val, "tiled"))
                j->tif_layout = WINENT_TIF_TILED;
            else
                return usage(msg, n, "--tif-layout: '%s': use cog or tiled", val);
        } else if (!strcmp(name, "--bigtiff")) {
            j->bigtiff = 1;
        } else if (!strcmp(name, "--device")) {
            if (*val == '\0')
                return usage(msg, n, "--device: empty: use auto, cpu, gpu or a list like 0,2");
            j->device = val;
        } else if (!strcmp(name, "--threads")) {
            if (parse_long(val, 1, 4096, &a1) != 0)
                return usage(msg, n, "--threads: '%s': give a number from 1 to 4096", val);
            j->threads = (int)a1;
        } else if (!strcmp(name, "--mem")) {
            uint64_t v;
            if (parse_size(val, &v) != 0 || v < (1u << 20))
                return usage(msg, n, "--mem: '%s': give a size of at least 1M, e.g. 512M or 4G",
                             val);
            j->mem_bytes = v;
        } else {
            return usage(msg, n, "unknown option '%s' (see --help)", name);
        }
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
    if (j->preview_size && !j->preview)
        return usage(msg, n, "--preview-size goes with --preview FILE.png");
    if (j->decode) {
        if (npos != 2)
            return usage(msg, n, "--decode takes a MAP.zst and an OUTPUT (see --help)");
        if (c->compute_option)
            return usage(msg, n,
                         "%s does not go with --decode: the map is computed already (only the "
                         "output and running options apply)",
                         c->compute_option);
        j->input = pos[0];
        j->output = pos[1];
        return WINENT_OK;
    }
    if (npos != 2)
        return usage(msg, n, "give an INPUT and an OUTPUT (see --help)");
    j->input = pos[0];
    j->output = pos[1];
    if (j->compute.bins > 0 && j->compute.range_hi <= j->compute.range_lo && !j->range_auto)
        return usage(msg, n, "--bins: needs --range LO:HI (or --range auto)");
    if ((j->compute.range_hi > j->compute.range_lo || j->range_auto) && j->compute.bins == 0)
        j->compute.bins = 256;
    return WINENT_OK;
}

/* The range figures of one band, as members of the object being printed. */
static void print_counts(FILE *f, const winent_band_counts *c)
{
    fprintf(f, ",\"range\":[%.17g,%.17g],\"range_from\":\"", c->range_lo, c->range_hi);
    for (const char *p = c->range_from; *p; p++) /* a file name: JSON-escaped */
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if ((unsigned char)*p < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*p);
        else
            fputc(*p, f);
    if (c->samples_min == c->samples_min)
        fprintf(f, "\",\"samples\":[%.17g,%.17g]", c->samples_min, c->samples_max);
    else
        fprintf(f, "\",\"samples\":null");
    fprintf(f,
            ",\"clamped\":{\"below\":%llu,\"above\":%llu,\"valid\":%llu,"
            "\"percent\":%.3f}",
            (unsigned long long)c->clamped_below, (unsigned long long)c->clamped_above,
            (unsigned long long)c->valid_samples,
            c->valid_samples ? 100.0 * (double)(c->clamped_below + c->clamped_above) /
                                   (double)c->valid_samples
                             : 0.0);
}

void cli_print_stats(FILE *f, const winent_job_stats *s)
{
    fprintf(f,
            "{\"wall_s\":%.3f,\"setup_s\":%.3f,\"pixels\":%llu,\"mpixel_per_s\":%.1f,\"bytes_in\":%llu,"
            "\"bytes_out\":%llu,\"engine\":\"%s\",\"chunk_rows\":%d,\"chunks\":%d,"
            "\"stages\":{"
            "\"read\":{\"threads\":%d,\"busy_s\":%.3f,\"wait_s\":%.3f},"
            "\"compute\":{\"threads\":%d,\"busy_s\":%.3f,\"wait_s\":%.3f},"
            "\"encode\":{\"threads\":%d,\"busy_s\":%.3f,\"wait_s\":%.3f},"
            "\"write\":{\"threads\":%d,\"busy_s\":%.3f,\"wait_s\":%.3f}}",
            s->wall_s, s->setup_s, (unsigned long long)s->pixels,
            s->wall_s > 0 ? (double)s->pixels / s->wall_s / 1e6 : 0.0,
            (unsigned long long)s->bytes_in, (unsigned long long)s->bytes_out, s->engine,
            s->chunk_rows, s->chunks, s->read.threads, s->read.busy_s, s->read.wait_s,
            s->compute.threads, s->compute.busy_s, s->compute.wait_s, s->encode.threads,
            s->encode.busy_s, s->encode.wait_s, s->write.threads, s->write.busy_s,
            s->write.wait_s);
    if (s->range_counted) {
        winent_band_counts first;
        first.range_lo = s->range_lo;
        first.range_hi = s->range_hi;
        snprintf(first.range_from, sizeof first.range_from, "%s", s->range_from);
        first.clamped_below = s->clamped_below;
        first.clamped_above = s->clamped_above;
        first.valid_samples = s->valid_samples;
        first.samples_min = s->samples_min;
        first.samples_max = s->samples_max;
        print_counts(f, &first);
    } else {
        fprintf(f, ",\"range\":null,\"clamped\":null");
    }
    /* Several bands: the figures above are the first band's; each band's
     * follow (its range and clamped samples differ). */
    if (s->nbands > 1) {
        fprintf(f, ",\"maps\":%d,\"bands\":[", s->maps);
        for (int b = 0; b < s->nbands && b < WINENT_STATS_BANDS; b++) {
            fprintf(f, "%s{\"band\":%d", b ? "," : "", s->band[b].band);
            if (s->range_counted)
                print_counts(f, &s->band[b]);
            else
                fprintf(f, ",\"range\":null,\"clamped\":null");
            fputc('}', f);
        }
        fputc(']', f);
    }
    fprintf(f, "}\n");
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
 * command line, 0 for a word to keep. */
static int run_only_words(int argc, char **argv, int i)
{
    static const char *const flags[] = {"--progress", "--no-progress", "--quiet", "-q", "--stats"};
    static const char *const valued[] = {"--device", "--threads", "--mem"};
    const char *a = argv[i];
    for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
        if (strcmp(a, flags[k]) == 0)
            return 1;
    for (size_t k = 0; k < sizeof valued / sizeof *valued; k++) {
        size_t n = strlen(valued[k]);
        if (strncmp(a, valued[k], n) == 0 && a[n] == '=')
            return 1;
        if (strcmp(a, valued[k]) == 0)
            return i + 1 < argc ? 2 : 1;
    }
    return 0;
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
            if (skip) {
                i += skip - 1;
                continue;
            }
        }
        if (k)
            line[k++] = ' ';
        k += quote_word(argv[i], line + k);
    }
    line[k] = '\0';
    return line;
}
