/* SPDX-License-Identifier: BSD-3-Clause */
/* --range auto: the range of each band read, from what the input records
 * of it (winent_source_stats: GDAL's statistics in a .aux.xml or the
 * TIFF's GDAL metadata), else from a first pass over its pixels. The first
 * pass runs before the job's pipeline exists: a second handle on the
 * input, read front to back in blocks of rows (a TIFF decodes them on its
 * own team of --threads), each block's min/max taken by --threads
 * threads; one pass serves every band without statistics, for files and
 * GDAL's names alike (NETCDF:..., /vsizip/...). A stream can be read once
 * only, so it needs an explicit --range. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernels/range_count.h"
#include "pipeline_internal.h"
#include "../base/opttable.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Rows per block of the first pass: about this many bytes (and at most a
 * quarter of --mem), so that the pass stays within the job's budget. */
#define SCAN_BLOCK_BYTES ((uint64_t)64 << 20)

/* Min/max of rows [y0, y1) of `buf`, rows `stride` bytes apart. */
static void minmax_span(const uint8_t *buf, int y0, int y1, size_t stride, int width, int dtype,
                        const winent_compute_opts *co, winent_minmax *acc)
{
    const size_t packed = winent_dtype_size((winent_dtype)dtype) * (size_t)width;
    if (stride == packed) { /* all at once */
        winent_range_minmax(dtype, buf + stride * (size_t)y0, (size_t)width * (size_t)(y1 - y0),
                            co->has_nodata, co->nodata, acc);
        return;
    }
    for (int y = y0; y < y1; y++) /* a memory job's padded rows */
        winent_range_minmax(dtype, buf + stride * (size_t)y, (size_t)width, co->has_nodata,
                            co->nodata, acc);
}

/* Min/max of `rows` rows, `row_bytes` apart, on `threads` threads. */
static void minmax_rows(const uint8_t *buf, int rows, size_t row_bytes, int width, int dtype,
                        const winent_compute_opts *co, int threads, winent_minmax *acc)
{
    int parts = rows < threads * 4 ? rows : threads * 4;
    winent_minmax *part = parts > 0 ? calloc((size_t)parts, sizeof *part) : NULL;
    if (part == NULL) { /* do it alone */
        minmax_span(buf, 0, rows, row_bytes, width, dtype, co, acc);
        return;
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int k = 0; k < parts; k++) {
        int y0 = (int)((int64_t)rows * k / parts), y1 = (int)((int64_t)rows * (k + 1) / parts);
        winent_minmax_init(&part[k]);
        minmax_span(buf, y0, y1, row_bytes, width, dtype, co, &part[k]);
    }
    for (int k = 0; k < parts; k++)
        winent_minmax_merge(acc, &part[k]);
    free(part);
}

/* The first pass over the file's bands, through a second source: the
 * min/max of band b into acc[b] where need[b]. */
static winent_status scan_file(pipeline *p, const winent_job_opts *o,
                               const winent_compute_opts *cos, const int *need, winent_minmax *acc,
                               winent_err *err)
{
    winent_status st = WINENT_OK;
    winent_source_opts so;
    winent_source *s = NULL;
    uint8_t *buf = NULL;
    void **dst = NULL;
    winent_job_source_opts(o, &so);
    so.on_notice = NULL; /* the job's own source has said what there is to say */
    so.threads = p->plan.threads;
    so.stop = p->stop;
    WINENT_TRY(winent_source_open(&so, &s, err));
    const winent_source_info *info = winent_source_get_info(s);
    const int nb = info->nread;
    const size_t row_bytes = winent_dtype_size(info->dtype) * (size_t)info->width;
    uint64_t budget =
        p->plan.mem_budget / 4 < SCAN_BLOCK_BYTES ? p->plan.mem_budget / 4 : SCAN_BLOCK_BYTES;
    budget /= (uint64_t)nb; /* a block of every band */
    int64_t rows = row_bytes ? (int64_t)(budget / row_bytes) : 1;
    if (rows < 1)
        rows = 1;
    if (rows > info->height)
        rows = info->height;
    buf = malloc(row_bytes * (size_t)rows * (size_t)nb + 1);
    dst = malloc(sizeof *dst * (size_t)nb);
    if (buf == NULL || dst == NULL) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for --range auto's first pass");
        goto fail;
    }
    for (int b = 0; b < nb; b++)
        dst[b] = buf + row_bytes * (size_t)rows * (size_t)b;
    for (int y = 0; y < info->height; y += (int)rows) {
        int k = info->height - y < rows ? info->height - y : (int)rows;
        if (STOPPED(p)) {
            st = WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
            goto fail;
        }
        WINENT_TRY_GOTO(st, winent_source_read_bands(s, k, dst, err));
        for (int b = 0; b < nb; b++)
            if (need[b])
                minmax_rows(dst[b], k, row_bytes, info->width, (int)info->dtype, &cos[b],
                            p->plan.threads, &acc[b]);
    }
fail:
    free(dst);
    free(buf);
    winent_source_free(s);
    return st;
}

/* 1 when the input can be read a second time: a regular file (or a
 * block device); with the GDAL reader also a folder (a Zarr store) and
 * every name GDAL resolves itself (NETCDF:f.nc:v, /vsizip/..., /vsicurl/,
 * inline VRT), which it opens again. Standard input (also as
 * /vsistdin/), pipes, FIFOs and sockets cannot. */
int winent_can_read_twice(const char *path, const winent_source_info *info)
{
    struct stat sb;
    const int gdal = info && info->reader && strcmp(info->reader, "gdal") == 0;
    if (path == NULL || strcmp(path, "-") == 0 || strncmp(path, "/vsistdin", 9) == 0)
        return 0;
    if (stat(path, &sb) != 0)
        return gdal; /* no local file: a name GDAL opened, and opens again */
    return S_ISREG(sb.st_mode) || S_ISBLK(sb.st_mode) || (gdal && S_ISDIR(sb.st_mode));
}

/* The range of `m` into co (bins 256 when 0). */
static void set_range(winent_minmax m, winent_compute_opts *co)
{
    if (m.n == 0) {
        /* No valid sample: every output is NaN whatever the range. */
        m.min = 0.0;
        m.max = 1.0;
    }
    co->range_lo = m.min;
    co->range_hi = m.max;
    if (!(co->range_hi > co->range_lo)) {
        /* One value only: any range above it puts it alone in bin 0. */
        double step = fabs(m.min) * 0x1p-20;
        co->range_hi = m.min + (step > 1.0 ? step : 1.0);
    }
    if (co->bins == 0)
        co->bins = 256;
}

/* 1 when the job's reader needs more than its quarter of --mem. */
static int reader_short(const pipeline *p)
{
    return p->source != NULL && winent_source_get_info(p->source)->mem_short != 0;
}

winent_status winent_range_auto(pipeline *p, const winent_job_opts *o, winent_compute_opts *cos,
                                int nbands, winent_err *err)
{
    winent_status st = WINENT_OK;
    winent_minmax *m = calloc((size_t)nbands, sizeof *m);
    int *need = calloc((size_t)nbands, sizeof *need), scan = 0;
    if (m == NULL || need == NULL) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        goto fail;
    }
    for (int b = 0; b < nbands; b++)
        winent_minmax_init(&m[b]);
    if (p->plan.mem_in) {
        snprintf(p->range_from[0], sizeof p->range_from[0], "a first pass over the band");
        minmax_rows(p->plan.mem_in, o->height, p->plan.rows_stride, o->width, (int)cos[0].dtype,
                    &cos[0], p->plan.threads, &m[0]);
    } else {
        for (int b = 0; b < nbands; b++) {
            winent_band_stats bs;
            WINENT_TRY_GOTO(st, winent_source_stats(p->source, b, &bs, err));
            if (bs.found) {
                /* GDAL writes statistics with 14 significant digits: widen
                 * them by that rounding, so that the extreme samples stay
                 * inside rather than counting as clamped. */
                snprintf(p->range_from[b], sizeof p->range_from[b], "%s", bs.from);
                m[b].n = 1;
                m[b].min = bs.min - fabs(bs.min) * 1e-13;
                m[b].max = bs.max + fabs(bs.max) * 1e-13;
            } else {
                snprintf(p->range_from[b], sizeof p->range_from[b], "a first pass over the band");
                need[b] = scan = 1;
            }
        }
        if (scan && !winent_can_read_twice(o->input, winent_source_get_info(p->source))) {
            st = WINENT_ERR(err, WINENT_ERR_USAGE,
                            "--range auto: %s is read once and records no statistics, so no "
                            "first pass can find its range: give --range LO:HI",
                            strcmp(o->input, "-") == 0 ? "standard input" : o->input);
            goto fail;
        }
        /* A reader short of its quarter of --mem: the job's memory check
         * refuses it before anything is read, naming the --mem that
         * holds the reader and the chunks (pipeline.c); a first pass
         * would read the whole file first, outside that budget. The
         * range stays a placeholder the job never uses. */
        if (scan && !reader_short(p))
            WINENT_TRY_GOTO(st, scan_file(p, o, cos, need, m, err));
    }
    for (int b = 0; b < nbands; b++)
        set_range(m[b], &cos[b]);
fail:
    free(m);
    free(need);
    return st;
}

void winent_range_default_notice(const pipeline *p, const winent_job_opts *o,
                                 const winent_compute_opts *cos, int nbands)
{
    if (o->on_notice == NULL || reader_short(p))
        return; /* the job is refused: no range was taken */
    char line[WINENT_MSG_LEN], lo[32], hi[32];
    const int py = o->words == WINENT_WORDS_PYTHON;
    winent_num_text(cos[0].range_lo, lo, sizeof lo);
    winent_num_text(cos[0].range_hi, hi, sizeof hi);
    snprintf(line, sizeof line,
             py ? "%s input without range=: range='auto' took (%s, %s) from %s%s, in %u bins; "
                  "give range=(lo, hi) to choose"
                : "%s input without --range: --range auto took %s:%s from %s%s, in %u bins; "
                  "give --range LO:HI to choose",
             winent_dtype_word(o->words, cos[0].dtype), lo, hi, p->range_from[0],
             nbands > 1 ? " (each band its own)" : "", cos[0].bins);
    winent_one_line(line);
    o->on_notice(o->user, line);
}

void winent_other_bands_notice(const winent_job_opts *o, int bands, int mask_band,
                               const char *name)
{
    /* A band GDAL applies as the mask (an alpha band) is no data of its own. */
    if (o->on_notice == NULL || bands - (mask_band ? 1 : 0) < 2 || o->band != 1 ||
        o->nband_list > 0 || o->band_all)
        return;
    char line[WINENT_MSG_LEN];
    const int py = o->words == WINENT_WORDS_PYTHON;
    snprintf(line, sizeof line,
             py ? "%s has several bands: the map is of band 1 only; band='all' (or a list such as "
                  "band=[1, 2]) maps the others too"
                : "%s has several bands: the map is of band 1 only; --band all (or a list such as "
                  "--band 1,2) maps the others too",
             name ? name : o->input);
    winent_one_line(line);
    o->on_notice(o->user, line);
}
