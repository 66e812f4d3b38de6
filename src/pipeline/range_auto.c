/* --range auto: the range of the band, from what the input records of it
 * (winent_source_stats: GDAL's statistics in a .aux.xml or the TIFF's
 * GDAL metadata), else from a first pass over its pixels. The first pass
 * runs before the job's pipeline exists: a second handle on the input,
 * read front to back in blocks of rows (a TIFF decodes them on its own
 * team of --threads), each block's min/max taken by --threads threads.
 * A stream can be read once only, so it needs an explicit --range. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernels/range_count.h"
#include "pipeline_internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Rows per block of the first pass: about this many bytes (and at most a
 * quarter of --mem), so that the pass stays within the job's budget. */
#define SCAN_BLOCK_BYTES ((uint64_t)64 << 20)

/* Min/max of `rows` rows of `row_bytes` on `threads` threads. */
static void minmax_rows(const uint8_t *buf, int rows, size_t row_bytes, int width, int dtype,
                        const winent_compute_opts *co, int threads, winent_minmax *acc)
{
    int parts = rows < threads * 4 ? rows : threads * 4;
    winent_minmax *part = calloc((size_t)parts, sizeof *part);
    if (part == NULL) { /* do it alone */
        winent_range_minmax(dtype, buf, (size_t)width * (size_t)rows, co->has_nodata, co->nodata,
                            acc);
        return;
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int k = 0; k < parts; k++) {
        int y0 = (int)((int64_t)rows * k / parts), y1 = (int)((int64_t)rows * (k + 1) / parts);
        winent_minmax_init(&part[k]);
        winent_range_minmax(dtype, buf + row_bytes * (size_t)y0, (size_t)width * (size_t)(y1 - y0),
                            co->has_nodata, co->nodata, &part[k]);
    }
    for (int k = 0; k < parts; k++)
        winent_minmax_merge(acc, &part[k]);
    free(part);
}

/* The first pass over the file's band, through a second source. */
static winent_status scan_file(pipeline *p, const winent_job_opts *o, const winent_compute_opts *co,
                               winent_minmax *acc, winent_err *err)
{
    winent_status st = WINENT_OK;
    winent_source_opts so;
    winent_source *s = NULL;
    uint8_t *buf = NULL;
    winent_job_source_opts(o, &so);
    so.threads = p->threads;
    so.stop = &p->stop;
    WINENT_TRY(winent_source_open(&so, &s, err));
    const winent_source_info *info = winent_source_get_info(s);
    const size_t row_bytes = winent_dtype_size(info->dtype) * (size_t)info->width;
    uint64_t budget = o->mem_bytes / 4 < SCAN_BLOCK_BYTES ? o->mem_bytes / 4 : SCAN_BLOCK_BYTES;
    int64_t rows = row_bytes ? (int64_t)(budget / row_bytes) : 1;
    if (rows < 1)
        rows = 1;
    if (rows > info->height)
        rows = info->height;
    buf = malloc(row_bytes * (size_t)rows + 1);
    if (buf == NULL) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for --range auto's first pass");
        goto fail;
    }
    for (int y = 0; y < info->height; y += (int)rows) {
        int k = info->height - y < rows ? info->height - y : (int)rows;
        if (STOPPED(p)) {
            st = WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
            goto fail;
        }
        WINENT_TRY_GOTO(st, winent_source_read(s, k, buf, err));
        minmax_rows(buf, k, row_bytes, info->width, (int)info->dtype, co, p->threads, acc);
    }
fail:
    free(buf);
    winent_source_free(s);
    return st;
}

/* 1 when the input can be read a second time: a regular file (or a
 * block device). Standard input, pipes, FIFOs and sockets cannot. */
static int can_read_twice(const char *path)
{
    struct stat sb;
    if (path == NULL || strcmp(path, "-") == 0)
        return 0;
    return stat(path, &sb) == 0 && (S_ISREG(sb.st_mode) || S_ISBLK(sb.st_mode));
}

winent_status winent_range_auto(pipeline *p, const winent_job_opts *o, winent_compute_opts *co,
                                winent_err *err)
{
    winent_minmax m;
    winent_minmax_init(&m);
    if (o->memory_in) {
        snprintf(p->range_from, sizeof p->range_from, "a first pass over the band");
        const size_t row_bytes = winent_dtype_size(co->dtype) * (size_t)o->width;
        minmax_rows(o->memory_in, o->height, row_bytes, o->width, (int)co->dtype, co, p->threads,
                    &m);
    } else {
        winent_band_stats bs;
        WINENT_TRY(winent_source_stats(p->source, 0, &bs, err));
        if (bs.found) {
            /* GDAL writes statistics with 14 significant digits: widen
             * them by that rounding, so that the extreme samples stay
             * inside rather than counting as clamped. */
            snprintf(p->range_from, sizeof p->range_from, "%s", bs.from);
            m.n = 1;
            m.min = bs.min - fabs(bs.min) * 1e-13;
            m.max = bs.max + fabs(bs.max) * 1e-13;
        } else if (!can_read_twice(o->input)) {
            return WINENT_ERR(err, WINENT_ERR_USAGE,
                              "--range auto: %s is read once and records no statistics, so no "
                              "first pass can find its range: give --range LO:HI",
                              strcmp(o->input, "-") == 0 ? "standard input" : o->input);
        } else {
            snprintf(p->range_from, sizeof p->range_from, "a first pass over the band");
            WINENT_TRY(scan_file(p, o, co, &m, err));
        }
    }
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
    return WINENT_OK;
}
