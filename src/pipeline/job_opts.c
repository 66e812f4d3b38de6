/* SPDX-License-Identifier: BSD-3-Clause */
/* A job's options: the defaults, and the one validation that the CLI, the
 * library and the Python binding share (winent_job_opts_validate), so that
 * a bad value gets the same one-line message whichever way it came in. The
 * CLI turns its words into numbers and leaves the numbers' checks to this
 * file; what needs the files is checked by the run (pipeline.c). */
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"
#include "../base/opttable.h"
#include "kernels/measure.h"
#include "tiles/formats/out_sample.h"

/* The CLI's limits, the library's too. */
#define BANDS_MAX      65535
#define LEVEL_MIN      -7
#define LEVEL_MAX      22
#define DEFLATE_LEVEL_MIN 1
#define DEFLATE_LEVEL_MAX 9
#define FRAME_ROWS_MAX (1 << 20)
#define TILE_MIN       16
#define TILE_MAX       65536
#define THREADS_MAX    4096
#define MEM_MIN        ((uint64_t)1 << 20)

void winent_job_opts_default(winent_job_opts *o)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof *o);
    winent_compute_opts_default(&o->compute);
    o->bands = 1;
    o->band = 1;
    o->tile = 512;
    o->compress = WINENT_COMPRESS_ZSTD;
    o->device = "auto";
    o->mem_bytes = 0; /* automatic: WINENT_MEM_DEFAULT, or more for many threads */
}

/* --device's value `d` into `l`, refusals in door `w`'s words. */
static winent_status device_list_parse(const char *d, winent_words w, winent_device_list *l,
                                       winent_err *err)
{
    const int py = w == WINENT_WORDS_PYTHON;
    memset(l, 0, sizeof *l);
    if (d == NULL || strcmp(d, "auto") == 0) {
        l->automatic = 1;
        return WINENT_OK;
    }
    if (strcmp(d, "cpu") == 0) {
        l->cpu = 1;
        return WINENT_OK;
    }
    if (strcmp(d, "gpu") == 0) {
        l->all_gpus = 1;
        return WINENT_OK;
    }
    /* A list such as 0,2 or cpu,0. */
    const char *s = d;
    while (*s) {
        char *end;
        if (strncmp(s, "cpu", 3) == 0 && (s[3] == ',' || s[3] == '\0')) {
            if (l->cpu)
                return winent_opt_say(err, w, "--device: '%s': cpu named twice",
                                      "device='%s': cpu named twice", d);
            l->cpu = 1;
            s += s[3] == ',' ? 4 : 3;
            continue;
        }
        long id = *s >= '0' && *s <= '9' ? strtol(s, &end, 10) : -1;
        if (id < 0 || id > 1000000 || (*end != ',' && *end != '\0'))
            break;
        for (int i = 0; i < l->ngpus; i++)
            if (l->gpus[i] == id)
                return winent_opt_say(err, w, "--device: '%s': GPU %ld named twice",
                                      "device='%s': GPU %ld named twice", d, id);
        if (l->ngpus == WINENT_MAX_GPUS)
            return winent_opt_say(err, w, "--device: '%s': more than %d GPUs",
                                  "device='%s': more than %d GPUs", d, WINENT_MAX_GPUS);
        l->gpus[l->ngpus++] = (int)id;
        s = *end == ',' ? end + 1 : end;
    }
    if (*s != '\0' || (l->ngpus == 0 && !l->cpu)) {
        char q[WINENT_MSG_LEN / 2];
        snprintf(q, sizeof q, py ? "'%s'" : "%s", d);
        return winent_opt_refuse(err, w, "device", q);
    }
    return WINENT_OK;
}

winent_status winent_device_list_parse(const char *d, winent_device_list *l, winent_err *err)
{
    return device_list_parse(d, WINENT_WORDS_CLI, l, err);
}

/* A list as door `w` takes it, cut with "..." to fit `n` bytes: what the
 * messages quote. CLI: "1,3,5", "5,7x3,disk3"; Python: "[1, 3, 5]",
 * "[5, (3, 7), ('disk', 3)]". `disk` (or NULL): which window items are
 * disks; `pairs`: windows (kx, ky pairs) rather than bands. */
static void list_text(const int *v, const int *disk, int count, int pairs, winent_words w,
                      char *buf, size_t n)
{
    const int py = w == WINENT_WORDS_PYTHON;
    size_t len = (size_t)snprintf(buf, n, "%s", py ? "[" : "");
    for (int i = 0; i < count; i++) {
        char item[48];
        const char *sep = i ? (py ? ", " : ",") : "";
        const int a = v[pairs ? 2 * i : i], b = pairs ? v[2 * i + 1] : a;
        if (disk != NULL && disk[i])
            snprintf(item, sizeof item, py ? "%s('disk', %d)" : "%sdisk%d", sep, (a - 1) / 2);
        else if (a == b)
            snprintf(item, sizeof item, "%s%d", sep, a);
        else if (py)
            snprintf(item, sizeof item, "%s(%d, %d)", sep, b, a);
        else
            snprintf(item, sizeof item, "%s%dx%d", sep, a, b);
        if (len + strlen(item) + 6 >= n) {
            snprintf(buf + len, n - len, "%s", py ? ", ...]" : ",...");
            return;
        }
        len += (size_t)snprintf(buf + len, n - len, "%s", item);
    }
    if (py)
        snprintf(buf + len, n - len, "]");
}

static winent_status check_band_list(const winent_job_opts *o, winent_words w, winent_err *err)
{
    char text[192];
    if (o->nband_list < 0 || (o->nband_list > 0 && o->band_list == NULL))
        return winent_opt_say(err, w, "--band: a list of %d bands at %p",
                              "band: a list of %d bands at %p", o->nband_list,
                              (const void *)o->band_list);
    for (int i = 0; i < o->nband_list; i++) {
        const int b = o->band_list[i];
        list_text(o->band_list, NULL, o->nband_list, 0, w, text, sizeof text);
        if (b < 1 || b > BANDS_MAX)
            return winent_opt_refuse(err, w, "band", text);
        for (int j = 0; j < i; j++)
            if (o->band_list[j] == b)
                return winent_opt_say(err, w,
                                      "--band: '%s': band %d given twice: give each band once",
                                      "band=%s: band %d given twice: give each band once", text,
                                      b);
    }
    return WINENT_OK;
}

/* --ot against each measure's values (what the options say of them; the
 * run checks again once the input's type and range are known): after
 * every check of what is computed, which a door without --ot (Python's
 * texture()) makes in the same order. */
static winent_status check_map_types(const winent_job_opts *o, winent_words w, winent_err *err)
{
    const int range_known = !winent_job_range_auto(o, o->compute.dtype);
    if (o->nmeasure_list <= 0)
        return winent_job_check_map_type(o->out_type, &o->compute, o->dtype_given, range_known,
                                         w, err);
    for (int i = 0; i < o->nmeasure_list; i++) {
        winent_compute_opts c = o->compute;
        c.measure = o->measure_list[i];
        c.renyi_q = o->measure_q ? o->measure_q[i] : 0.0;
        WINENT_TRY(winent_job_check_map_type(o->out_type, &c, o->dtype_given, range_known, w,
                                             err));
    }
    return WINENT_OK;
}

/* --measure M1,M2,...: each a measure the library computes, none twice. */
static winent_status check_measure_list(const winent_job_opts *o, winent_words w, winent_err *err)
{
    if (o->nmeasure_list < 0 || (o->nmeasure_list > 0 && o->measure_list == NULL))
        return WINENT_ERR(err, WINENT_ERR_USAGE, "--measure: a list of %d measures at %p",
                          o->nmeasure_list, (const void *)o->measure_list);
    for (int i = 0; i < o->nmeasure_list; i++) {
        winent_compute_opts c = o->compute;
        c.measure = o->measure_list[i];
        c.renyi_q = o->measure_q ? o->measure_q[i] : 0.0;
        WINENT_TRY(winent_measure_check(&c, o->dtype_given, w, err));
        for (int j = 0; j < i; j++)
            if (o->measure_list[j] == c.measure &&
                (c.measure != WINENT_MEASURE_RENYI || o->measure_q[j] == c.renyi_q)) {
                char item[64];
                winent_measure_text(&c, item, sizeof item);
                return winent_opt_say(err, w, "--measure: %s given twice: give each measure once",
                                      "measures: %s given twice: give each measure once", item);
            }
    }
    return WINENT_OK;
}

/* Each measure at the window kx x ky (a disk or not): the co-occurrence
 * measures take odd rectangles only, renyi's order depends on the area. */
static winent_status check_window_measures(const winent_job_opts *o, int kx, int ky, int disk,
                                           winent_words w, winent_err *err)
{
    const int n = o->nmeasure_list > 0 && o->measure_list != NULL ? o->nmeasure_list : 1;
    for (int i = 0; i < n; i++) {
        winent_compute_opts c = o->compute;
        c.kx = kx;
        c.ky = ky;
        c.disk = disk;
        if (o->nmeasure_list > 0 && o->measure_list != NULL) {
            c.measure = o->measure_list[i];
            c.renyi_q = o->measure_q ? o->measure_q[i] : 0.0;
        }
        WINENT_TRY(winent_measure_check(&c, o->dtype_given, w, err));
    }
    return WINENT_OK;
}

static winent_status check_window_list(const winent_job_opts *o, winent_words w, winent_err *err)
{
    char text[192];
    if (o->compute.footprint != NULL && o->nwindow_list > 0) /* one map's window */
        return winent_opt_say(err, w, "--footprint: give it alone, not with a list of windows",
                              "footprint: give it alone, not with windows=");
    if (o->nwindow_list < 0 || (o->nwindow_list > 0 && o->window_list == NULL))
        return winent_opt_say(err, w, "--window: a list of %d windows at %p",
                              "windows: a list of %d windows at %p", o->nwindow_list,
                              (const void *)o->window_list);
    for (int i = 0; i < o->nwindow_list; i++) {
        const int kx = o->window_list[2 * i], ky = o->window_list[2 * i + 1];
        const int disk = o->window_disk != NULL && o->window_disk[i];
        list_text(o->window_list, o->window_disk, o->nwindow_list, 1, w, text, sizeof text);
        /* Rectangles of either parity; a disk is 2R+1 square. */
        if (kx < 1 || kx > 255 || ky < 1 || ky > 255 || (disk && (kx != ky || kx % 2 == 0)))
            return winent_opt_refuse(err, w, "windows", text);
        for (int j = 0; j < i; j++)
            if (o->window_list[2 * j] == kx && o->window_list[2 * j + 1] == ky &&
                (o->window_disk != NULL && o->window_disk[j]) == disk) {
                char item[48];
                list_text(o->window_list + 2 * i, disk ? o->window_disk + i : NULL, 1, 1, w, item,
                          sizeof item);
                if (w == WINENT_WORDS_PYTHON) { /* the item, not a list of one */
                    memmove(item, item + 1, strlen(item));
                    item[strlen(item) - 1] = '\0';
                }
                return winent_opt_say(err, w,
                                      "--window: '%s': %s given twice: give each window once",
                                      "windows=%s: %s given twice: give each window once", text,
                                      item);
            }
    }
    return WINENT_OK;
}

/* Each window of the list with each measure, once the options of neither
 * alone are refused: a list's refusals come in the order a call per
 * window (Python's texture() of one window) gives them. */
static winent_status check_window_list_measures(const winent_job_opts *o, winent_words w,
                                                winent_err *err)
{
    for (int i = 0; i < o->nwindow_list; i++)
        WINENT_TRY(check_window_measures(o, o->window_list[2 * i], o->window_list[2 * i + 1],
                                         o->window_disk != NULL && o->window_disk[i], w, err));
    return WINENT_OK;
}

/* The first compute or raw-input option set away from its default, by its
 * name in the table (the CLI's order), or NULL: --decode computes nothing,
 * and a value given for it would be silently dropped. */
static const char *decode_misfit(const winent_job_opts *o)
{
    winent_compute_opts d;
    winent_compute_opts_default(&d);
    const winent_compute_opts *c = &o->compute;
    if (c->disk)
        return "disk"; /* its kx, ky are the disk's */
    if (c->footprint != NULL)
        return "footprint";
    if (c->kx != d.kx || c->ky != d.ky || o->nwindow_list > 0)
        return "window";
    if (c->measure != d.measure || o->nmeasure_list > 0)
        return "measure";
    if (c->base != d.base)
        return "base";
    if (c->bins != 0)
        return "bins";
    if (c->range_lo != 0.0 || c->range_hi != 0.0 || o->range_auto)
        return "range";
    if (o->nodata_given || c->has_nodata)
        return "nodata";
    if (o->width != 0 || o->height != 0)
        return "size";
    if (o->dtype_given)
        return "dtype";
    if (o->bands != 1)
        return "bands";
    if (o->band != 1 || o->nband_list > 0 || o->band_all)
        return "band";
    if (o->interleave != WINENT_INTERLEAVE_BSQ)
        return "interleave";
    if (o->big_endian)
        return "byteorder";
    if (o->header_bytes != 0)
        return "header-bytes";
    return NULL;
}

/* --level in the range of the codec it goes to, named: zstd (a .zst, a
 * GeoTIFF with --compress zstd) or deflate. Where nothing takes a level
 * (raw, LZW, no compression) it goes unused, as --compress does for a
 * .zst; an output name whose format is unknown is the run's to refuse. */
static winent_status check_level(const winent_job_opts *o, winent_words w, winent_err *err)
{
    if (o->level == 0)
        return WINENT_OK;
    winent_sink_opts so;
    memset(&so, 0, sizeof so);
    so.path = o->output ? o->output : "-";
    so.format = o->format;
    const winent_format f = winent_sink_format_of(&so);
    if (f == WINENT_FORMAT_TIF && o->compress == WINENT_COMPRESS_DEFLATE &&
        (o->level < DEFLATE_LEVEL_MIN || o->level > DEFLATE_LEVEL_MAX))
        return winent_opt_say(err, w, "--level: '%d': give a deflate level from %d to %d",
                              "level=%d: give a deflate level from %d to %d", o->level,
                              DEFLATE_LEVEL_MIN, DEFLATE_LEVEL_MAX);
    const int zstd =
        f == WINENT_FORMAT_ZST || f == WINENT_FORMAT_ZARR ||
        (f == WINENT_FORMAT_TIF && o->compress == WINENT_COMPRESS_ZSTD);
    if (zstd && (o->level < LEVEL_MIN || o->level > LEVEL_MAX))
        return winent_opt_say(err, w, "--level: '%d': give a zstd level from %d to %d (not 0)",
                              "level=%d: give a zstd level from %d to %d (not 0)", o->level,
                              LEVEL_MIN, LEVEL_MAX);
    /* No codec known yet (an unknown extension, raw): the widest range. */
    if ((f == WINENT_FORMAT_AUTO || f == WINENT_FORMAT_RAW) &&
        (o->level < LEVEL_MIN || o->level > LEVEL_MAX)) {
        char t[16];
        snprintf(t, sizeof t, "%d", o->level);
        return winent_opt_refuse(err, w, "level", t);
    }
    return WINENT_OK;
}

/* An int option's value refused with the table's advice. */
static winent_status refuse_int(winent_err *err, winent_words w, const char *name, long long v)
{
    char t[32];
    snprintf(t, sizeof t, "%lld", v);
    return winent_opt_refuse(err, w, name, t);
}

/* A word option whose C value is none of its words (a caller's bad cast). */
static winent_status refuse_enum(winent_err *err, winent_words w, const char *name, int v)
{
    return refuse_int(err, w, name, v);
}

/* What is computed and the raw input's layout (not with --decode). */
static winent_status check_compute_and_layout(const winent_job_opts *o, winent_words w,
                                              winent_err *err)
{
    /* The lists first: their first items are also compute.kx/ky and band.
     * The window before the measures (compute_check's order, which
     * winent_entropy and the engine keep): a co-occurrence measure's line
     * about odd sides would be wrong advice for a side past 255. */
    WINENT_TRY(check_band_list(o, w, err));
    WINENT_TRY(check_window_list(o, w, err));
    winent_compute_opts c = o->compute;
    unsigned flags = 0;
    if (o->dtype_given)
        flags |= WINENT_CHECK_DTYPE;
    /* --nodata in the type --dtype names (a file's type: the run). */
    if (o->nodata_given)
        flags |= WINENT_CHECK_NODATA;
    if (winent_job_range_auto(o, o->compute.dtype)) {
        flags |= WINENT_CHECK_RANGE_AUTO;
        if (!o->range_auto && c.bins == 0)
            c.bins = 256; /* a float band's default: --range auto, 256 bins */
    }
    WINENT_TRY(winent_compute_check(&c, flags, w, err));
    WINENT_TRY(check_measure_list(o, w, err));
    WINENT_TRY(check_window_list_measures(o, w, err));
    WINENT_TRY(check_map_types(o, w, err));
    if (o->width < 0 || o->height < 0) {
        char t[48];
        snprintf(t, sizeof t, w == WINENT_WORDS_PYTHON ? "(%d, %d)" : "%dx%d", o->width,
                 o->height);
        return winent_opt_refuse(err, w, "size", t);
    }
    if (o->bands < 1 || o->bands > BANDS_MAX)
        return refuse_int(err, w, "bands", o->bands);
    if (o->band < 1 || o->band > BANDS_MAX)
        return refuse_int(err, w, "band", o->band);
    if ((unsigned)o->interleave > WINENT_INTERLEAVE_BIL)
        return refuse_enum(err, w, "interleave", (int)o->interleave);
    /* Offsets are off_t: a layout past 2^63 bytes names no file, and
     * its byte count would wrap where it is added up. */
    if (o->header_bytes > (uint64_t)INT64_MAX) {
        char t[32];
        snprintf(t, sizeof t, "%llu", (unsigned long long)o->header_bytes);
        return winent_opt_refuse(err, w, "header-bytes", t);
    }
    uint64_t bytes;
    if (o->dtype_given && o->width > 0 && o->height > 0 &&
        (__builtin_mul_overflow((uint64_t)o->width, (uint64_t)o->height, &bytes) ||
         __builtin_mul_overflow(bytes, (uint64_t)o->bands, &bytes) ||
         __builtin_mul_overflow(bytes, (uint64_t)winent_dtype_size(o->compute.dtype), &bytes) ||
         __builtin_add_overflow(bytes, o->header_bytes, &bytes) || bytes > (uint64_t)INT64_MAX))
        return winent_opt_say(err, w,
                              "--size: '%dx%d': %d band%s of %s (and --header-bytes %llu) pass "
                              "2^63 bytes, the largest file",
                              "size=(%d, %d): %d band%s of %s (and header_bytes=%llu) pass 2^63 "
                              "bytes, the largest file",
                              o->width, o->height, o->bands, o->bands == 1 ? "" : "s",
                              winent_dtype_word(w, o->compute.dtype),
                              (unsigned long long)o->header_bytes);
    return WINENT_OK;
}

static winent_status check_decode(const winent_job_opts *o, winent_words w, winent_err *err)
{
    const char *given = decode_misfit(o);
    if (given)
        return winent_opt_say(err, w,
                              "--%s does not go with --decode: the map is computed already (only "
                              "the output and running options apply)",
                              "%s does not go with decode=True: the map is computed already "
                              "(only the output and running options apply)",
                              winent_opt_name(w, given));
    /* The preview is drawn from the map's rows as they are computed;
     * a decode computes none. */
    if (o->preview)
        return winent_opt_say(err, w,
                              "--preview does not go with --decode: the preview is drawn while "
                              "the map is computed: give --preview to the run that makes the "
                              ".zst",
                              "preview does not go with decode=True: the preview is drawn while "
                              "the map is computed: give preview= to the run that makes the "
                              ".zst");
    return WINENT_OK;
}

static winent_status check_output(const winent_job_opts *o, winent_words w, winent_err *err)
{
    if ((unsigned)o->format > WINENT_FORMAT_ZARR)
        return refuse_enum(err, w, "format", (int)o->format);
    /* 0 is the default of each of these. */
    WINENT_TRY(check_level(o, w, err));
    if (o->frame_rows < 0 || o->frame_rows > FRAME_ROWS_MAX)
        return refuse_int(err, w, "frame-rows", o->frame_rows);
    if (o->tile != 0 && (o->tile < TILE_MIN || o->tile > TILE_MAX || o->tile % 16 != 0))
        return refuse_int(err, w, "tile", o->tile);
    if ((unsigned)o->compress > WINENT_COMPRESS_NONE)
        return refuse_enum(err, w, "compress", (int)o->compress);
    if ((unsigned)o->out_type > WINENT_OT_UINT8)
        return refuse_enum(err, w, "ot", (int)o->out_type);
    if (o->sidecar && o->out_type == WINENT_OT_FLOAT16)
        return winent_opt_say(err, w,
                              "--sidecar: ENVI has no float16 type: give --ot float32, uint16 or "
                              "uint8, or write a .tif",
                              "sidecar: ENVI has no float16 type: give ot='float32', 'uint16' or "
                              "'uint8', or write a .tif");
    if ((unsigned)o->tif_layout > WINENT_TIF_TILED)
        return refuse_enum(err, w, "tif-layout", (int)o->tif_layout);
    if (o->preview && o->preview[0] == '\0')
        return winent_opt_refuse(err, w, "preview", w == WINENT_WORDS_PYTHON ? "''" : "");
    if (o->preview_size < 0 || o->preview_size > WINENT_PREVIEW_SIZE_MAX)
        return refuse_int(err, w, "preview-size", o->preview_size);
    if (o->preview_size && !o->preview)
        return winent_opt_say(err, w, "--preview-size goes with --preview FILE.png",
                              "preview_size goes with preview='FILE.png'");
    if (o->preview_range &&
        (!isfinite(o->preview_lo) || !isfinite(o->preview_hi) || !(o->preview_lo < o->preview_hi))) {
        char a[32], b[32], t[80];
        winent_num_text(o->preview_lo, a, sizeof a);
        winent_num_text(o->preview_hi, b, sizeof b);
        snprintf(t, sizeof t, w == WINENT_WORDS_PYTHON ? "(%s, %s)" : "%s:%s", a, b);
        return winent_opt_refuse(err, w, "preview-range", t);
    }
    if (o->preview_range && !o->preview)
        return winent_opt_say(err, w, "--preview-range goes with --preview FILE.png",
                              "preview_range goes with preview='FILE.png'");
    return WINENT_OK;
}

int winent_job_range_auto(const winent_job_opts *o, winent_dtype t)
{
    return o->range_auto || (winent_dtype_is_float(t) && o->compute.range_lo == 0.0 &&
                             o->compute.range_hi == 0.0);
}

winent_status winent_job_check(const winent_job_opts *o, winent_device_list *parsed,
                               winent_err *err)
{
    const winent_words w = o->words == WINENT_WORDS_PYTHON ? WINENT_WORDS_PYTHON : WINENT_WORDS_CLI;
    if (o->input == NULL)
        return winent_opt_say(err, w, "no INPUT: give a file, a GDAL name or - for standard input",
                              "no input: give a file, a GDAL name or '-' for standard input");
    /* --decode computes nothing: the compute and raw-input options are
     * refused where set (decode_misfit), as the CLI refuses them. */
    WINENT_TRY(o->decode ? check_decode(o, w, err) : check_compute_and_layout(o, w, err));
    WINENT_TRY(check_output(o, w, err));
    winent_device_list devices;
    WINENT_TRY(device_list_parse(o->device, w, &devices, err));
    if (parsed)
        *parsed = devices;
    if (o->threads < 0 || o->threads > THREADS_MAX)
        return refuse_int(err, w, "threads", o->threads);
    if (o->mem_bytes != 0 && o->mem_bytes < MEM_MIN)
        return winent_opt_say(err, w,
                              "--mem: %llu bytes: give a size of at least 1M, e.g. 512M or 4G",
                              "mem=%llu: give a size of at least 1M: a byte count, or '512M', "
                              "'4G'",
                              (unsigned long long)o->mem_bytes);
    return WINENT_OK;
}

winent_status winent_job_opts_validate(const winent_job_opts *o, winent_error *err)
{
    if (o == NULL)
        return winent_err_null(err, "winent_job_opts_validate", "o");
    winent_err e;
    winent_err_clear(&e);
    return winent_err_export(&e, winent_job_check(o, NULL, &e), err);
}

/* The source's options of job `o` (pipeline_bench.h): the run's setup
 * and --range auto's first pass open the input with them. */
void winent_job_source_opts(const winent_job_opts *o, winent_source_opts *so)
{
    memset(so, 0, sizeof *so);
    so->path = o->input;
    so->width = o->width;
    so->height = o->height;
    so->has_dtype = o->dtype_given;
    so->dtype = o->compute.dtype;
    so->bands = o->bands;
    so->interleave = o->interleave;
    so->big_endian = o->big_endian;
    so->header_bytes = o->header_bytes;
    so->band = o->band;
    so->band_list = o->band_list;
    so->nband_list = o->nband_list;
    so->band_all = o->band_all;
    so->nodata_given = o->nodata_given;
    so->has_nodata = o->compute.has_nodata;
    so->nodata = o->compute.nodata;
    so->mem_bytes = o->mem_bytes ? o->mem_bytes : WINENT_MEM_DEFAULT;
    so->mem_auto = o->mem_bytes == 0;
    so->threads = o->threads;
    so->on_notice = o->on_notice;
    so->user = o->user;
}
