/* SPDX-License-Identifier: BSD-3-Clause */
/* TIFF input: one band, or several, of a tiled or striped (Big)TIFF,
 * decoded a row of blocks at a time by several threads, each with its own
 * libtiff handle.
 *
 * Memory stays O(width x block height): only the blocks (tiles or strips)
 * that cover the rows being delivered are decoded, into one "batch" of
 * band samples per band delivered that read() copies from. Several bands
 * of a contiguous (pixel-interleaved) file come out of one decode of each
 * block; of a separate-planes file, each band's own blocks are items of
 * the same batch. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <omp.h>

#include "batch_load.h"
#include "block_check.h"
#include "source_internal.h"
#include "tiff_common.h"

/* Target of decoded bytes per batch when blocks are small (strips of a few
 * rows): enough blocks for every thread, little memory. */
#define BATCH_TARGET_BYTES (16u << 20)
/* A single tile bigger than this is refused rather than allocated. */
#define BLOCK_MAX_BYTES ((uint64_t)1 << 30)
/* Raw bytes of a huge strip are checked (block_check.h) in reads of this. */
#define CHECK_CHUNK_BYTES ((size_t)1 << 20)
/* Blocks bigger than this are checked streaming (a 256 KiB window) rather
 * than decoded whole once more. */
#define CHECK_WHOLE_MAX ((size_t)4 << 20)
#define CHECK_WINDOW    ((size_t)256 << 10)

typedef struct tiff_handle {
    TIFF *tif;             /* owned; used by one thread at a time */
    winent_tiff_msgs msgs; /* libtiff's messages about tif */
    uint8_t *scratch;      /* owned: one decoded block */
    uint8_t *raw;          /* owned: one block as stored (checked compressions) */
    size_t raw_cap;
    winent_block_checker *checker; /* owned: checks those blocks' streams */
    uint64_t bytes;        /* compressed bytes read through this handle */
    int64_t checked_strip; /* sliced: the strip whose stream was checked last, or -1 */
} tiff_handle;

typedef struct tiff_impl {
    const char *path;           /* borrowed: the name in messages */
    const char *open_path;      /* borrowed: what libtiff opens (path, or a spooled copy) */
    winent_tiff_io io;          /* owned ctx: where handles come from instead (io.open) */
    const volatile int *stop;   /* borrowed, may be NULL: the job's stop flag */
    winent_batch_loader loader; /* owned: decodes a batch on par (batch_load.h) */
    int nhandles;
    tiff_handle *h; /* owned: h[0] is opened first and holds the tags */
    int tiled, separate;
    int spp;            /* samples per pixel in a block (1 for separate planes) */
    int bits, sformat;  /* as stored */
    int comp;           /* compression */
    int checked;        /* its blocks are checked to the end of their stream */
    int bit_reversed;   /* FillOrder 2: raw bytes hold their bits LSB first */
    const winent_source_band *sel; /* borrowed: the bands delivered */
    int nsel;
    winent_dtype dtype; /* as delivered */
    size_t out_sample;
    int width, height;
    uint32_t bw, bh; /* block width and height (strips: width, rows per strip) */
    uint32_t blocks_across, blocks_down, blocks_per_plane;
    size_t block_bytes;     /* decoded size of a full block */
    size_t block_row_bytes; /* decoded bytes of one row of a block */
    uint32_t group;         /* block rows per batch */
    uint8_t *batch;         /* owned: band samples of rows [batch_y0, batch_y0 + batch_h),
                               delivered band k at batch + k * plane_bytes */
    size_t plane_bytes;
    int batch_y0, batch_h;
    uint8_t fill[8];      /* value of a sparse (absent) block's samples */
    uint64_t max_count;   /* the largest block as stored (bytes) */
    /* How blocks are read within what --mem leaves the reader (plan_memory):
     * in parallel (a handle per worker), one at a time by the reading
     * thread (`sequential`), or, for strips too big to hold decoded, in
     * slices of rows with TIFFReadScanline (`sliced`: a handle per plane
     * read, rows only forward). */
    int sequential, sliced;
    int slice_rows;       /* sliced: rows per batch */
    size_t scanline_bytes;/* sliced: one decoded row of a strip (every sample) */
    int hcap;             /* handles allocated in h */
    int slice_next;       /* sliced: the next row to decode */
    winent_georef georef; /* owned */
} tiff_impl;

static void free_impl(void *p)
{
    tiff_impl *t = p;
    if (t == NULL)
        return;
    for (int i = 0; i < t->nhandles; i++) {
        if (t->h[i].tif)
            TIFFClose(t->h[i].tif);
        free(t->h[i].scratch);
        free(t->h[i].raw);
        winent_block_checker_free(t->h[i].checker);
    }
    free(t->h);
    free(t->batch);
    winent_batch_loader_free(&t->loader);
    if (t->io.free_ctx != NULL)
        t->io.free_ctx(t->io.ctx);
    winent_georef_clear(&t->georef);
    free(t);
}

/* IEEE half to single precision (exact: every half is a float). */
static float half_to_float(uint16_t h)
{
    int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    float v;
    if (e == 0)
        v = ldexpf((float)m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexpf((float)(m | 1024), e - 25);
    return sign ? -v : v;
}

/* Copy the samples of band `band` (0-based; 0 for a separate plane) of
 * block row `r` (columns [0, ncols)) into `dst`. */
static void extract_row(const tiff_impl *t, int band, const uint8_t *row, int ncols, uint8_t *dst)
{
    int spp = t->spp, sb = t->separate ? 0 : band;
    if (t->bits == 8 || t->bits == 32 || t->bits == 64 ||
        (t->bits == 16 && t->sformat != SAMPLEFORMAT_IEEEFP)) {
        size_t b = (size_t)t->bits / 8;
        if (spp == 1) {
            memcpy(dst, row, (size_t)ncols * b);
            return;
        }
        const uint8_t *src = row + (size_t)sb * b;
        for (int x = 0; x < ncols; x++)
            memcpy(dst + (size_t)x * b, src + (size_t)x * spp * b, b);
        return;
    }
    if (t->bits == 16) { /* half float, delivered as float */
        float *d = (float *)dst;
        for (int x = 0; x < ncols; x++) {
            uint16_t h;
            memcpy(&h, row + ((size_t)x * spp + sb) * 2, 2);
            d[x] = half_to_float(h);
        }
        return;
    }
    /* Packed samples of 1..15 bits, most significant bit first. */
    for (int x = 0; x < ncols; x++) {
        uint64_t bit = ((uint64_t)x * spp + sb) * (uint64_t)t->bits;
        uint32_t v = 0;
        for (int k = 0; k < t->bits; k++, bit++)
            v = (v << 1) | ((row[bit >> 3] >> (7 - (bit & 7))) & 1u);
        if (t->out_sample == 1)
            dst[x] = (uint8_t)v;
        else {
            uint16_t v16 = (uint16_t)v;
            memcpy(dst + (size_t)x * 2, &v16, 2);
        }
    }
}

/* A block of a checked compression: its raw bytes are read, its stream
 * checked to the end, checksum included (block_check.h), and libtiff
 * decodes the same bytes (predictor, byte order and all) into h->scratch.
 * Returns the bytes decoded (`want`), or -1 with the reason in *why. */
static tmsize_t read_checked(const tiff_impl *t, tiff_handle *h, uint32_t strile, uint64_t nbytes,
                             tmsize_t want, const char **why)
{
    if (nbytes > h->raw_cap) {
        free(h->raw);
        h->raw_cap = 0;
        if ((h->raw = malloc((size_t)nbytes)) == NULL) {
            *why = "out of memory for its compressed bytes";
            return -1;
        }
        h->raw_cap = (size_t)nbytes;
    }
    tmsize_t r = t->tiled ? TIFFReadRawTile(h->tif, strile, h->raw, (tmsize_t)nbytes)
                          : TIFFReadRawStrip(h->tif, strile, h->raw, (tmsize_t)nbytes);
    if (r != (tmsize_t)nbytes) {
        *why = "read failed (truncated or corrupt file)";
        return -1;
    }
    if (t->bit_reversed)
        TIFFReverseBits(h->raw, (tmsize_t)nbytes);
    if (t->block_bytes > CHECK_WHOLE_MAX) {
        winent_block_check_begin(h->checker);
        winent_block_check_feed(h->checker, h->raw, (size_t)nbytes);
        *why = winent_block_check_end(h->checker, (uint64_t)want);
    } else {
        *why = winent_block_check(h->checker, h->raw, (size_t)nbytes, (size_t)want);
    }
    if (t->bit_reversed)
        TIFFReverseBits(h->raw, (tmsize_t)nbytes); /* libtiff reverses them itself */
    if (*why != NULL)
        return -1;
    if (!TIFFReadFromUserBuffer(h->tif, strile, h->raw, (tmsize_t)nbytes, h->scratch, want)) {
        *why = NULL; /* libtiff's own message */
        return -1;
    }
    return want;
}

/* Decode work item `item` of the batch starting at block row `br0` with
 * handle `h`, into the batch buffer: a block of every band (contiguous),
 * or of one delivered band (separate planes: items of band k follow those
 * of band k - 1). */
static winent_status decode_item(tiff_impl *t, tiff_handle *h, uint32_t br0, long items_per_band,
                                 long item, winent_err *err)
{
    int k0 = 0, k1 = t->nsel;
    if (t->separate) {
        k0 = (int)(item / items_per_band);
        k1 = k0 + 1;
        item %= items_per_band;
    }
    uint32_t by = br0 + (uint32_t)(item / (long)t->blocks_across);
    uint32_t bx = (uint32_t)(item % (long)t->blocks_across);
    uint32_t plane = t->separate ? (uint32_t)(t->sel[k0].band - 1) : 0;
    uint32_t strile = plane * t->blocks_per_plane + by * t->blocks_across + bx;
    int y0 = (int)(by * t->bh), x0 = (int)(bx * t->bw);
    int rows = (int)t->bh, cols = (int)t->bw;
    if (y0 + rows > t->height)
        rows = t->height - y0;
    if (x0 + cols > t->width)
        cols = t->width - x0;
    size_t row_out = (size_t)t->width * t->out_sample;
    size_t at = (size_t)(y0 - t->batch_y0) * row_out + (size_t)x0 * t->out_sample;

    int err_flag = 0;
    uint64_t nbytes = TIFFGetStrileByteCountWithErr(h->tif, strile, &err_flag);
    if (err_flag)
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: cannot read the size of %s %u: %s",
                          t->path, t->tiled ? "tile" : "strip", strile,
                          h->msgs.first_error[0] ? h->msgs.first_error : "corrupt index");
    if (nbytes == 0) {
        /* A sparse block (GDAL's SPARSE_OK): absent from the file, read as
         * the fill value like GDAL. The opener checked every other block
         * against the file's size. */
        for (int k = k0; k < k1; k++)
            for (int r = 0; r < rows; r++) {
                uint8_t *d = t->batch + (size_t)k * t->plane_bytes + at + (size_t)r * row_out;
                for (int x = 0; x < cols; x++)
                    memcpy(d + (size_t)x * t->out_sample, t->fill, t->out_sample);
            }
        return WINENT_OK;
    }
    winent_tiff_msgs_clear(&h->msgs);
    tmsize_t want, got;
    const char *stream_why = NULL;
    want = t->tiled ? (tmsize_t)t->block_bytes : TIFFVStripSize(h->tif, (uint32_t)rows);
    if (t->checked)
        got = read_checked(t, h, strile, nbytes, want, &stream_why);
    else if (t->tiled)
        got = TIFFReadEncodedTile(h->tif, strile, h->scratch, want);
    else
        got = TIFFReadEncodedStrip(h->tif, strile, h->scratch, want);
    h->bytes += nbytes;
    if (got != want || h->msgs.errors > 0 || h->msgs.codec_warnings > 0) {
        const char *why = stream_why                ? stream_why
                          : h->msgs.first_error[0] ? h->msgs.first_error
                          : got < 0                ? "read failed (truncated or corrupt file)"
                                                   : "short block (truncated or corrupt file)";
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: cannot decode %s %u (rows %d-%d): %s",
                          t->path, t->tiled ? "tile" : "strip", strile, y0, y0 + rows - 1, why);
    }
    for (int k = k0; k < k1; k++)
        for (int r = 0; r < rows; r++)
            extract_row(t, t->sel[k].band - 1, h->scratch + (size_t)r * t->block_row_bytes, cols,
                        t->batch + (size_t)k * t->plane_bytes + at + (size_t)r * row_out);
    return WINENT_OK;
}

static winent_status open_handle(tiff_impl *t, tiff_handle *h, winent_err *err);

typedef struct batch_ctx {
    tiff_impl *t;
    uint32_t br0;
    long items_per_band; /* blocks of one band in the batch */
} batch_ctx;

/* One work item of a batch on worker `worker`'s handle, opened on its first
 * item (a worker that never decodes opens nothing). */
static winent_status decode_one(void *arg, long item, int worker, winent_err *err)
{
    batch_ctx *b = arg;
    tiff_impl *t = b->t;
    tiff_handle *h = &t->h[worker];
    if (h->tif == NULL)
        WINENT_TRY(open_handle(t, h, err));
    if ((h->scratch == NULL && (h->scratch = malloc(t->block_bytes)) == NULL) ||
        (t->checked && h->checker == NULL &&
         (h->checker = winent_block_checker_create(t->comp, t->block_bytes,
                                                   t->block_bytes > CHECK_WHOLE_MAX)) == NULL))
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    return decode_item(t, h, b->br0, b->items_per_band, item, err);
}

/* Decode the batch of block rows that holds image row `y`: on the job's
 * workers when it lends them (o->par), else on an OpenMP team
 * (batch_load.h). */
static winent_status load_batch(winent_source *s, tiff_impl *t, int y, winent_err *err)
{
    uint32_t br0 = (uint32_t)y / t->bh;
    br0 -= br0 % t->group;
    uint32_t br1 = br0 + t->group;
    if (br1 > t->blocks_down)
        br1 = t->blocks_down;
    t->batch_y0 = (int)(br0 * t->bh);
    int y1 = (int)(br1 * t->bh) > t->height ? t->height : (int)(br1 * t->bh);
    t->batch_h = y1 - t->batch_y0;
    long per_band = (long)(br1 - br0) * (long)t->blocks_across;
    long items = t->separate ? per_band * t->nsel : per_band;
    batch_ctx b = {t, br0, per_band};
    winent_status st =
        winent_batch_run(&t->loader, items, t->sequential, t->nhandles, decode_one, &b, err);
    for (int i = 0; i < t->nhandles; i++) {
        s->bytes_read += t->h[i].bytes;
        t->h[i].bytes = 0;
    }
    if (st != WINENT_OK)
        t->batch_h = 0;
    return st;
}

/* `n` bytes at byte `off` of the file under `tif`: pread on a file libtiff
 * opened by name (the descriptor's offset is left alone); through the
 * handle's own procedures for one opened by t->io (libtiff seeks before
 * each read of its own, so moving the position here is harmless). */
static long read_at(const tiff_impl *t, TIFF *tif, void *buf, size_t n, uint64_t off)
{
    if (t->io.open == NULL)
        return (long)pread(TIFFFileno(tif), buf, n, (off_t)off);
    thandle_t fh = TIFFClientdata(tif);
    if (TIFFGetSeekProc(tif)(fh, (toff_t)off, SEEK_SET) != (toff_t)off)
        return -1;
    return (long)TIFFGetReadProc(tif)(fh, buf, (tmsize_t)n);
}

/* The size of the file under `tif`, or -1. */
static int64_t file_bytes(const tiff_impl *t, TIFF *tif)
{
    if (t->io.open == NULL) {
        struct stat sb;
        return fstat(TIFFFileno(tif), &sb) == 0 ? (int64_t)sb.st_size : -1;
    }
    return (int64_t)TIFFGetSizeProc(tif)(TIFFClientdata(tif));
}

/* Sliced strips: check the stream of strip `strip` (rows `rows`) to its
 * end, its raw bytes read a piece at a time (block_check.h). */
static winent_status check_strip_stream(tiff_impl *t, tiff_handle *h, uint32_t strip, int rows,
                                        winent_err *err)
{
    const uint64_t off = TIFFGetStrileOffset(h->tif, strip);
    const uint64_t count = TIFFGetStrileByteCount(h->tif, strip);
    const char *why = NULL;
    winent_block_check_begin(h->checker);
    for (uint64_t done = 0; done < count && why == NULL;) {
        size_t k = count - done < CHECK_CHUNK_BYTES ? (size_t)(count - done) : CHECK_CHUNK_BYTES;
        errno = EIO;
        long r = read_at(t, h->tif, h->raw, k, off + done);
        if (r <= 0) {
            why = r < 0 ? strerror(errno) : "read failed (truncated file)";
            break;
        }
        if (t->bit_reversed)
            TIFFReverseBits(h->raw, (tmsize_t)r);
        why = winent_block_check_feed(h->checker, h->raw, (size_t)r);
        done += (uint64_t)r;
    }
    if (why == NULL)
        why = winent_block_check_end(h->checker,
                                     (uint64_t)TIFFVStripSize64(h->tif, (uint32_t)rows));
    if (why == NULL)
        return WINENT_OK;
    const int y0 = (int)((strip % t->blocks_per_plane) * t->bh);
    return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: cannot decode strip %u (rows %d-%d): %s",
                      t->path, strip, y0, y0 + rows - 1, why);
}

/* Sliced strips: rows [y, y + slice_rows) decoded with TIFFReadScanline,
 * in order, by handle k for delivered band k of separate planes (each
 * reads its own plane front to back), else by handle 0. */
static winent_status load_slice(winent_source *s, tiff_impl *t, int y, winent_err *err)
{
    if (y != t->slice_next)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL,
                          "%s: rows asked out of order (%d after %d) of strips read in slices",
                          t->path, y, t->slice_next);
    const int n = t->slice_rows < t->height - y ? t->slice_rows : t->height - y;
    const size_t row_out = (size_t)t->width * t->out_sample;
    const int nh = t->separate ? t->nsel : 1;
    t->batch_y0 = y;
    t->batch_h = 0;
    for (int r = 0; r < n; r++) {
        const int row = y + r;
        if (t->stop != NULL && __atomic_load_n(t->stop, __ATOMIC_RELAXED))
            return WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
        for (int k = 0; k < nh; k++) {
            tiff_handle *h = &t->h[k];
            if (h->tif == NULL)
                WINENT_TRY(open_handle(t, h, err));
            if ((h->scratch == NULL && (h->scratch = malloc(t->scanline_bytes)) == NULL) ||
                (t->checked && h->raw == NULL && (h->raw = malloc(CHECK_CHUNK_BYTES)) == NULL) ||
                (t->checked && h->checker == NULL &&
                 (h->checker = winent_block_checker_create(t->comp, t->block_bytes, 1)) == NULL))
                return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
            const uint16_t plane = t->separate ? (uint16_t)(t->sel[k].band - 1) : 0;
            const uint32_t sy = (uint32_t)row / t->bh;
            const uint32_t strip = plane * t->blocks_per_plane + sy;
            const int s0 = (int)(sy * t->bh);
            const int srows = s0 + (int)t->bh > t->height ? t->height - s0 : (int)t->bh;
            const int k0 = t->separate ? k : 0, k1 = t->separate ? k + 1 : t->nsel;
            if (TIFFGetStrileByteCount(h->tif, strip) == 0) { /* sparse: the fill value */
                for (int b = k0; b < k1; b++) {
                    uint8_t *d = t->batch + (size_t)b * t->plane_bytes + (size_t)r * row_out;
                    for (int x = 0; x < t->width; x++)
                        memcpy(d + (size_t)x * t->out_sample, t->fill, t->out_sample);
                }
                continue;
            }
            if (h->checked_strip != (int64_t)strip) {
                h->checked_strip = strip;
                s->bytes_read += TIFFGetStrileByteCount(h->tif, strip);
                if (t->checked)
                    WINENT_TRY(check_strip_stream(t, h, strip, srows, err));
            }
            winent_tiff_msgs_clear(&h->msgs);
            if (TIFFReadScanline(h->tif, h->scratch, (uint32_t)row, plane) < 0 ||
                h->msgs.errors > 0 || h->msgs.codec_warnings > 0)
                return WINENT_ERR(err, WINENT_ERR_INPUT,
                                  "%s: cannot decode strip %u (rows %d-%d) at row %d: %s", t->path,
                                  strip, s0, s0 + srows - 1, row,
                                  h->msgs.first_error[0] ? h->msgs.first_error
                                                         : "read failed (truncated or corrupt file)");
            for (int b = k0; b < k1; b++)
                extract_row(t, t->sel[b].band - 1, h->scratch, t->width,
                            t->batch + (size_t)b * t->plane_bytes + (size_t)r * row_out);
        }
    }
    t->batch_h = n;
    t->slice_next = y + n;
    return WINENT_OK;
}

static winent_status tiff_read(winent_source *s, int rows, void *const *dst, winent_err *err)
{
    tiff_impl *t = s->impl;
    size_t row_out = (size_t)t->width * t->out_sample;
    size_t done = 0;
    int y = s->next_row;
    while (rows > 0) {
        if (y < t->batch_y0 || y >= t->batch_y0 + t->batch_h)
            WINENT_TRY(t->sliced ? load_slice(s, t, y, err) : load_batch(s, t, y, err));
        int k = t->batch_y0 + t->batch_h - y;
        if (k > rows)
            k = rows;
        for (int b = 0; b < t->nsel; b++)
            memcpy((uint8_t *)dst[b] + done,
                   t->batch + (size_t)b * t->plane_bytes + (size_t)(y - t->batch_y0) * row_out,
                   (size_t)k * row_out);
        done += (size_t)k * row_out;
        y += k;
        rows -= k;
    }
    return WINENT_OK;
}

/* As tiff_read, delivering nothing: the blocks are decoded and checked. */
static winent_status tiff_skip(winent_source *s, int rows, winent_err *err)
{
    tiff_impl *t = s->impl;
    int y = s->next_row;
    while (rows > 0) {
        if (y < t->batch_y0 || y >= t->batch_y0 + t->batch_h)
            WINENT_TRY(t->sliced ? load_slice(s, t, y, err) : load_batch(s, t, y, err));
        int k = t->batch_y0 + t->batch_h - y;
        if (k > rows)
            k = rows;
        y += k;
        rows -= k;
    }
    return WINENT_OK;
}

static const char *get_ascii(TIFF *tif, uint32_t tag);

/* --range auto: GDAL's statistics of the band, from a .aux.xml beside the
 * file first (GDAL writes one when it computes statistics of a file it
 * does not rewrite, so it is the fresher), then from the GDAL_METADATA tag.
 * Uses the first handle, before any read. */
static winent_status tiff_stats(winent_source *s, int k, winent_band_stats *st, winent_err *err)
{
    const tiff_impl *t = s->impl;
    const int band = t->sel[k].band;
    (void)err;
    if (winent_stats_from_aux_xml(t->path, band, &st->min, &st->max)) {
        st->found = 1;
        snprintf(st->from, sizeof st->from, "%s.aux.xml", t->path);
    } else if (t->h[0].tif &&
               winent_stats_from_gdal_metadata(get_ascii(t->h[0].tif, WINENT_TAG_GDAL_METADATA),
                                               band, &st->min, &st->max)) {
        st->found = 1;
        snprintf(st->from, sizeof st->from, "the TIFF's GDAL metadata");
    }
    return WINENT_OK;
}

static const source_ops tiff_ops = {tiff_read, free_impl, tiff_stats, tiff_skip};

/* Pick the delivered type of `bits`-bit samples of SampleFormat `sf`. */
static winent_status pick_dtype(tiff_impl *t, const char *path, winent_err *err)
{
    int b = t->bits, sf = t->sformat;
    if (sf == SAMPLEFORMAT_COMPLEXINT || sf == SAMPLEFORMAT_COMPLEXIEEEFP)
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: complex samples are not supported: convert a real band first "
                          "(e.g. gdal_translate)",
                          path);
    if (sf == SAMPLEFORMAT_IEEEFP) {
        if (b == 16 || b == 32)
            t->dtype = WINENT_F32;
        else if (b == 64)
            t->dtype = WINENT_F64;
        else
            return WINENT_ERR(err, WINENT_ERR_INPUT,
                              "%s: %d-bit floating-point samples are not supported", path, b);
        return WINENT_OK;
    }
    if (sf != SAMPLEFORMAT_UINT && sf != SAMPLEFORMAT_INT && sf != SAMPLEFORMAT_VOID)
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: unknown SampleFormat %d", path, sf);
    int is_signed = sf == SAMPLEFORMAT_INT;
    if (b == 64)
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: 64-bit integer samples are not supported: convert to 32-bit or "
                          "float first",
                          path);
    if (b == 8 || b == 16 || b == 32) {
        static const winent_dtype u[] = {WINENT_U8, WINENT_U16, 0, WINENT_U32};
        static const winent_dtype s[] = {WINENT_I8, WINENT_I16, 0, WINENT_I32};
        t->dtype = is_signed ? s[b / 8 - 1] : u[b / 8 - 1];
        return WINENT_OK;
    }
    if (b >= 1 && b < 16 && !is_signed) {
        /* Packed samples are widened: 1..7 bits to u8, 9..15 bits to u16. */
        t->dtype = b < 8 ? WINENT_U8 : WINENT_U16;
        return WINENT_OK;
    }
    return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: %d-bit %s samples are not supported", path, b,
                      is_signed ? "signed" : "unsigned");
}

/* Per-handle settings that libtiff keeps per handle. */
static void setup_handle(TIFF *tif)
{
    uint16_t comp = COMPRESSION_NONE, photo = PHOTOMETRIC_MINISBLACK;
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &comp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PHOTOMETRIC, &photo);
    /* JPEG YCbCr: let libjpeg convert to RGB, so blocks hold whole pixels. */
    if (comp == COMPRESSION_JPEG && photo == PHOTOMETRIC_YCBCR)
        TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
}

static winent_status open_handle(tiff_impl *t, tiff_handle *h, winent_err *err)
{
    /* "m": no memory mapping, which would hide read errors of truncated files. */
    h->tif = t->io.open != NULL ? t->io.open(t->io.ctx, &h->msgs)
                                : winent_tiff_open(t->open_path, "rm", &h->msgs);
    if (h->tif == NULL)
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: not a readable TIFF: %s", t->path,
                          h->msgs.first_error);
    if (h->msgs.index_warnings > 0)
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: damaged block index, blocks would be missing: %s", t->path,
                          h->msgs.first_error);
    setup_handle(h->tif);
    return WINENT_OK;
}

/* The GDAL_NODATA tag, as libtiff declares it (with or without a count). */
static const char *get_ascii(TIFF *tif, uint32_t tag)
{
    const TIFFField *f = TIFFFieldWithTag(tif, tag);
    char *v = NULL;
    if (f == NULL)
        return NULL;
    if (TIFFFieldPassCount(f)) {
        uint32_t n32 = 0;
        uint16_t n16 = 0;
        int ok = TIFFFieldSetGetCountSize(f) == 2 ? TIFFGetField(tif, tag, &n16, &v)
                                                  : TIFFGetField(tif, tag, &n32, &v);
        return ok ? v : NULL;
    }
    return TIFFGetField(tif, tag, &v) ? v : NULL;
}

/* The GDAL_NODATA tag. One rule for both readers of a TIFF (GDAL would
 * read "abc" as 0 and "5x" as 5, libtiff's strtod nothing and 5): the tag
 * must be one number (spaces around it allowed, "nan" and "inf" too), else
 * the file is an input error unless --nodata says what nodata is. */
static winent_status read_nodata(const winent_source_opts *o, winent_source *s, tiff_impl *t,
                                 TIFF *tif, winent_err *err)
{
    const char *v = get_ascii(tif, WINENT_TAG_GDAL_NODATA);
    if (v == NULL)
        return WINENT_OK;
    char *end;
    double d = strtod(v, &end);
    while (end != v && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
        end++;
    if (end == v || *end != '\0') {
        if (o->nodata_given)
            return WINENT_OK; /* --nodata beats the tag */
        char shown[200];
        winent_quote_text(v, 40, shown, sizeof shown);
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: its GDAL_NODATA tag '%s' is not a number: give --nodata V (or "
                          "--nodata nan for none) to say which value is nodata",
                          t->path, shown);
    }
    /* GDAL compares float32 pixels with the nodata value cast to float32
     * (e.g. -3.40282265508890445e+38 written for -FLT_MAX). */
    if (t->dtype == WINENT_F32 && isfinite(d) && fabs(d) <= 3.4028234663852886e38)
        d = (double)(float)d;
    s->info.has_nodata = 1;
    s->info.nodata = d;
    return WINENT_OK;
}

/* The fill of sparse blocks: nodata when the type holds it exactly, else 0. */
static void set_fill(tiff_impl *t, const winent_source_info *info)
{
    memset(t->fill, 0, sizeof t->fill);
    if (!info->has_nodata)
        return;
    double v = info->nodata;
    switch (t->dtype) {
#define FILL(T, lo, hi)                                                                            \
    if (v >= (lo) && v <= (hi) && v == (double)(T)v) {                                             \
        T x = (T)v;                                                                                \
        memcpy(t->fill, &x, sizeof x);                                                             \
    }                                                                                              \
    break;
    case WINENT_U8: FILL(uint8_t, 0, 255)
    case WINENT_I8: FILL(int8_t, -128, 127)
    case WINENT_U16: FILL(uint16_t, 0, 65535)
    case WINENT_I16: FILL(int16_t, -32768, 32767)
    case WINENT_U32: FILL(uint32_t, 0, 4294967295.0)
    case WINENT_I32: FILL(int32_t, -2147483648.0, 2147483647.0)
#undef FILL
    case WINENT_F32: {
        float x = (float)v;
        memcpy(t->fill, &x, sizeof x);
        break;
    }
    case WINENT_F64: memcpy(t->fill, &v, sizeof v); break;
    default: break;
    }
}

/* ---- Memory ------------------------------------------------------------ */

/* The machine's memory, to tell a --mem that would help from one that
 * cannot be had. */
static uint64_t machine_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}

/* A layout the reader cannot read within what it may hold (`what` says
 * why, `need` is the least it takes). Without --mem, or past the
 * machine's memory, an input error with the amount. With --mem, the need
 * is recorded in info (mem_short, mem_what) and the reader goes on,
 * planned within `need`: the job's memory check (pipeline.c) refuses
 * with the --mem that holds both the reader and the chunks, a figure
 * only the job can work out. */
static winent_status short_of(const tiff_impl *t, const winent_source_opts *o, const char *what,
                              uint64_t need, winent_source_info *info, winent_err *err)
{
    const uint64_t mib = (uint64_t)1 << 20;
    const uint64_t machine = machine_bytes();
    const uint64_t mem_need = need > UINT64_MAX / 4 ? UINT64_MAX : 4 * need;
    if (o->mem_auto || mem_need / 2 > machine)
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: %s: reading it takes %llu MiB at least, more than this machine's "
                          "memory allows (%llu MiB)",
                          t->path, what, (unsigned long long)((need + mib - 1) / mib),
                          (unsigned long long)(machine / mib));
    if (need > info->mem_short) {
        info->mem_short = need;
        snprintf(info->mem_what, sizeof info->mem_what, "%s: %s", t->path, what);
    }
    return WINENT_OK;
}

/* How the blocks are read (see tiff_impl: parallel, sequential or sliced),
 * so that the batch and the handles' buffers stay within what --mem leaves
 * the reader (a quarter; without --mem, more where one block needs it, up
 * to half the machine). Sets the handles, the batch's block rows (or
 * slice rows) and info->mem_held. */
static winent_status plan_memory(tiff_impl *t, const winent_source_opts *o, TIFF *tif, int want,
                                 winent_source_info *info, winent_err *err)
{
    uint64_t budget = (o->mem_bytes ? o->mem_bytes : (uint64_t)1 << 30) / 4;
    const uint64_t row_bytes = (uint64_t)t->width * t->out_sample * (uint64_t)t->nsel;
    const uint64_t rows_one = t->bh < (uint32_t)t->height ? t->bh : (uint64_t)t->height;
    const uint64_t batch_one = row_bytes * rows_one;
    const uint64_t per_thread =
        t->block_bytes +
        (t->checked ? (t->block_bytes > CHECK_WHOLE_MAX ? CHECK_WINDOW : t->block_bytes) +
                          t->max_count
                    : 0);
    char what[160];
    if (o->mem_auto && batch_one + (uint64_t)want * per_thread > budget &&
        !(!t->tiled && batch_one > budget)) {
        /* No --mem: one block row, read by every worker (else by one), is
         * always allowed, as far as half the machine's memory. */
        const uint64_t half = machine_bytes() / 2;
        if (batch_one + (uint64_t)want * per_thread <= half)
            budget = batch_one + (uint64_t)want * per_thread;
        else if (batch_one + per_thread <= half && batch_one + per_thread > budget)
            budget = batch_one + per_thread;
    }
    if (t->tiled && batch_one + per_thread > budget) {
        snprintf(what, sizeof what,
                 "a row of its %u x %u tiles decodes to %llu bytes (one tile %llu bytes)", t->bw,
                 t->bh, (unsigned long long)batch_one, (unsigned long long)t->block_bytes);
        WINENT_TRY(short_of(t, o, what, batch_one + per_thread, info, err));
        budget = batch_one + per_thread; /* read one block row at a time */
    }
    uint64_t room;
    if (batch_one + (uint64_t)want * per_thread <= budget) {
        t->nhandles = want;
        room = budget - (uint64_t)want * per_thread;
    } else if (batch_one + per_thread <= budget) {
        t->sequential = 1;
        t->nhandles = 1;
        room = budget - per_thread;
    } else {
        /* Strips too big to hold decoded: slices of rows. */
        const int nh = t->separate ? t->nsel : 1;
        const uint64_t per_handle = (uint64_t)TIFFScanlineSize64(tif) + t->max_count +
                                    (t->checked ? CHECK_CHUNK_BYTES + CHECK_WINDOW : 0);
        const uint64_t least = (uint64_t)nh * per_handle + row_bytes;
        if (least > budget && o->mem_auto && least <= machine_bytes() / 2)
            budget = least;
        if (least > budget) {
            snprintf(what, sizeof what, "one row of %d pixels%s decodes to %llu bytes",
                     t->width, t->nsel > 1 ? " of each band" : "",
                     (unsigned long long)(row_bytes / (uint64_t)t->nsel));
            WINENT_TRY(short_of(t, o, what, least, info, err));
            budget = least;
        }
        uint64_t rows = (budget - (uint64_t)nh * per_handle) / row_bytes;
        if (rows > BATCH_TARGET_BYTES / row_bytes)
            rows = BATCH_TARGET_BYTES / row_bytes;
        if (rows < 1)
            rows = 1;
        if (rows > (uint64_t)t->height)
            rows = (uint64_t)t->height;
        if (nh > t->hcap) {
            tiff_handle *more = realloc(t->h, sizeof *t->h * (size_t)nh);
            if (more == NULL)
                return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
            memset(more + t->hcap, 0, sizeof *more * (size_t)(nh - t->hcap));
            for (int i = t->hcap; i < nh; i++)
                more[i].checked_strip = -1;
            t->h = more;
            t->hcap = nh;
        }
        t->sliced = 1;
        t->nhandles = nh;
        t->scanline_bytes = (size_t)TIFFScanlineSize64(tif);
        t->slice_rows = (int)rows;
        t->plane_bytes = (size_t)((uint64_t)t->width * t->out_sample * rows);
        info->mem_held = (uint64_t)nh * per_handle + row_bytes * rows;
        return WINENT_OK;
    }
    /* Block rows per batch: enough for every thread when strips are thin,
     * within the room left. */
    const uint64_t per_group = row_bytes * t->bh;
    uint64_t g = per_group >= BATCH_TARGET_BYTES ? 1 : BATCH_TARGET_BYTES / per_group;
    uint64_t g_threads = ((uint64_t)2 * (uint64_t)want + t->blocks_across - 1) / t->blocks_across;
    if (g > g_threads)
        g = g_threads;
    if (g > room / per_group)
        g = room / per_group;
    if (g < 1)
        g = 1;
    if (g > t->blocks_down)
        g = t->blocks_down;
    t->group = (uint32_t)g;
    /* A batch never holds more rows than the image (tiles may be far
     * taller than a short image). */
    uint64_t batch_rows = (uint64_t)t->bh * g;
    if (batch_rows > (uint64_t)t->height)
        batch_rows = (uint64_t)t->height;
    t->plane_bytes = (size_t)((uint64_t)t->width * t->out_sample * batch_rows);
    info->mem_held = (uint64_t)t->nhandles * per_thread + row_bytes * batch_rows;
    return WINENT_OK;
}

/* Every block the file declares must lie inside it: one past the end means
 * a truncated file, which libtiff would read as a short block or, for an
 * uncompressed strip, read as far as it needs and say nothing. A block of
 * 0 bytes is sparse (GDAL's SPARSE_OK) and reads as the fill value, as in
 * GDAL, unless it starts past the end; one of some bytes at offset 0 is
 * missing. All blocks of the image
 * are checked, not only the band's: the file is whole or it is not. */
static winent_status check_blocks(tiff_impl *t, tiff_handle *h, winent_err *err)
{
    const char *kind = t->tiled ? "tile" : "strip";
    const int64_t bytes = file_bytes(t, h->tif);
    if (bytes < 0)
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: cannot stat: %s", t->path, strerror(errno));
    const uint64_t size = (uint64_t)bytes;
    const uint32_t n = t->tiled ? TIFFNumberOfTiles(h->tif) : TIFFNumberOfStrips(h->tif);
    for (uint32_t i = 0; i < n; i++) {
        int bad_count = 0, bad_offset = 0;
        uint64_t count = TIFFGetStrileByteCountWithErr(h->tif, i, &bad_count);
        uint64_t off = TIFFGetStrileOffsetWithErr(h->tif, i, &bad_offset);
        if (bad_count || bad_offset)
            return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: cannot read the place of %s %u: %s",
                              t->path, kind, i,
                              h->msgs.first_error[0] ? h->msgs.first_error : "corrupt block index");
        if (count == 0 && off > size)
            /* Not sparse: libtiff guessed a count (no StripByteCounts) for
             * a block that starts past the end of the file. */
            return WINENT_ERR(err, WINENT_ERR_INPUT,
                              "%s: %s %u starts at byte %llu, past the end of the file (%llu "
                              "bytes): the file is truncated or its block index is corrupt",
                              t->path, kind, i, (unsigned long long)off,
                              (unsigned long long)size);
        if (count == 0)
            continue;
        if (count > t->max_count)
            t->max_count = count;
        if (off == 0)
            return WINENT_ERR(err, WINENT_ERR_INPUT,
                              "%s: %s %u has %llu bytes but no offset: it is missing from the "
                              "file",
                              t->path, kind, i, (unsigned long long)count);
        if (off > size || count > size - off)
            return WINENT_ERR(err, WINENT_ERR_INPUT,
                              "%s: %s %u (%llu bytes at byte %llu) goes past the end of the file "
                              "(%llu bytes): the file is truncated or its block index is corrupt",
                              t->path, kind, i, (unsigned long long)count, (unsigned long long)off,
                              (unsigned long long)size);
    }
    return WINENT_OK;
}

static winent_status tiff_open(const winent_source_opts *o, const char *open_path,
                               const winent_tiff_io *io, winent_source *s, winent_err *err);

winent_status winent_source_tiff_open(const winent_source_opts *o, const char *open_path,
                                      winent_source *s, winent_err *err)
{
    return tiff_open(o, open_path, NULL, s, err);
}

winent_status winent_source_tiff_open_io(const winent_source_opts *o, const winent_tiff_io *io,
                                         winent_source *s, winent_err *err)
{
    return tiff_open(o, NULL, io, s, err);
}

/* The image's tags: its size, samples, type and compression, the bands
 * read (--band) and their type; what this reader cannot decode refused. */
static winent_status tiff_read_tags(tiff_impl *t, const winent_source_opts *o, TIFF *tif,
                                    winent_source *s, uint16_t *spp_out, winent_err *err)
{
    uint32_t w = 0, hgt = 0;
    uint16_t spp = 1, bits = 1, sf = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG;
    uint16_t comp = COMPRESSION_NONE, photo = PHOTOMETRIC_MINISBLACK, fill = FILLORDER_MSB2LSB;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &hgt);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &sf);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &comp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PHOTOMETRIC, &photo);
    if (w == 0 || hgt == 0)
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: the image is empty (%ux%u)", o->path, w,
                          hgt);
    if (w > INT_MAX || hgt > INT_MAX || spp == 0)
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: implausible size %ux%u with %u samples",
                          o->path, w, hgt, spp);
    t->width = (int)w;
    t->height = (int)hgt;
    t->bits = bits;
    t->sformat = sf;
    t->comp = comp;
    t->checked = winent_block_check_applies(comp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_FILLORDER, &fill);
    t->bit_reversed = fill == FILLORDER_LSB2MSB;
    t->separate = planar == PLANARCONFIG_SEPARATE && spp > 1;
    t->spp = t->separate ? 1 : spp;
    *spp_out = spp;
    WINENT_TRY(winent_source_select(o, spp, o->path, s, err));
    t->sel = s->bands;
    t->nsel = s->nbands_read;
    WINENT_TRY(pick_dtype(t, o->path, err));
    t->out_sample = winent_dtype_size(t->dtype);
    if (photo == PHOTOMETRIC_YCBCR && comp != COMPRESSION_JPEG && !t->separate) {
        uint16_t sh = 1, sv = 1;
        TIFFGetFieldDefaulted(tif, TIFFTAG_YCBCRSUBSAMPLING, &sh, &sv);
        if (sh != 1 || sv != 1)
            return WINENT_ERR(err, WINENT_ERR_INPUT,
                              "%s: subsampled YCbCr without JPEG compression is not supported",
                              o->path);
    }
    if (!TIFFIsCODECConfigured(comp))
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: compression %u is not supported by this build of libtiff",
                          o->path, comp);
    return WINENT_OK;
}

/* The blocks (tiles or strips): their size, count and bytes, checked
 * against what the image needs (`spp` samples a pixel). */
static winent_status tiff_block_layout(tiff_impl *t, const winent_source_opts *o, TIFF *tif,
                                       uint16_t spp, winent_err *err)
{
    const uint32_t w = (uint32_t)t->width, hgt = (uint32_t)t->height;
    tmsize_t bsize;
    t->tiled = TIFFIsTiled(tif);
    if (t->tiled) {
        uint32_t tw = 0, th = 0;
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
        if (tw == 0 || th == 0)
            return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: bad tile size %ux%u", o->path, tw, th);
        t->bw = tw;
        t->bh = th;
        bsize = TIFFTileSize(tif);
        t->block_row_bytes = (size_t)TIFFTileRowSize(tif);
    } else {
        uint32_t rps = hgt;
        /* libtiff's value, after its chopping of big uncompressed strips. */
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rps);
        if (rps == 0 || rps > hgt)
            rps = hgt;
        t->bw = w;
        t->bh = rps;
        bsize = TIFFVStripSize(tif, rps);
        t->block_row_bytes = (size_t)TIFFScanlineSize(tif);
    }
    t->blocks_across = (w + t->bw - 1) / t->bw;
    t->blocks_down = (hgt + t->bh - 1) / t->bh;
    t->blocks_per_plane = t->blocks_across * t->blocks_down;
    const uint64_t need_row = ((uint64_t)t->bw * (uint64_t)t->spp * t->bits + 7) / 8;
    const uint64_t planes = t->separate ? spp : 1;
    const uint32_t nstriles = TIFFIsTiled(tif) ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif);
    if (t->tiled && (uint64_t)bsize > BLOCK_MAX_BYTES)
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: one %ux%u tile decodes to %lld bytes, more than a tile may hold "
                          "here (%llu MiB)",
                          o->path, t->bw, t->bh, (long long)bsize,
                          (unsigned long long)(BLOCK_MAX_BYTES >> 20));
    if (bsize <= 0 || t->block_row_bytes < need_row ||
        (uint64_t)t->block_row_bytes * t->bh > (uint64_t)bsize ||
        (uint64_t)nstriles < t->blocks_per_plane * planes)
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: unsupported or inconsistent block layout (%s %ux%u, %lld bytes)",
                          o->path, t->tiled ? "tiles" : "strips", t->bw, t->bh, (long long)bsize);
    t->block_bytes = (size_t)bsize;
    return WINENT_OK;
}

static winent_status tiff_open(const winent_source_opts *o, const char *open_path,
                               const winent_tiff_io *io, winent_source *s, winent_err *err)
{
    tiff_impl *t = calloc(1, sizeof *t);
    if (t == NULL) {
        if (io != NULL && io->free_ctx != NULL)
            io->free_ctx(io->ctx);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    t->path = o->path;
    t->open_path = open_path;
    if (io != NULL)
        t->io = *io;
    /* From here the caller frees s, and with it the implementation. */
    s->ops = &tiff_ops;
    s->impl = t;
    int want = o->par         ? o->par->workers
               : o->threads > 0 ? o->threads
                                : omp_get_num_procs();
    t->stop = o->stop;
    t->h = calloc((size_t)want, sizeof *t->h);
    if (t->h == NULL || winent_batch_loader_init(&t->loader, o->par, o->stop, want) != 0)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    t->hcap = want;
    for (int i = 0; i < want; i++)
        t->h[i].checked_strip = -1;
    t->nhandles = 1;
    WINENT_TRY(open_handle(t, &t->h[0], err));
    TIFF *tif = t->h[0].tif;
    uint16_t spp = 1;
    WINENT_TRY(tiff_read_tags(t, o, tif, s, &spp, err));
    WINENT_TRY(tiff_block_layout(t, o, tif, spp, err));
    WINENT_TRY(check_blocks(t, &t->h[0], err));
    WINENT_TRY(plan_memory(t, o, tif, want, &s->info, err));
    t->batch = malloc(t->plane_bytes * (size_t)t->nsel + 1);
    if (t->batch == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for %llu bytes of rows",
                          (unsigned long long)(t->plane_bytes * (size_t)t->nsel));
    s->info.width = t->width;
    s->info.height = t->height;
    s->info.dtype = t->dtype;
    s->info.bands = spp;
    s->info.is_tiff = 1;
    s->info.reader = "libtiff";
    snprintf(s->what, sizeof s->what, "a TIFF");
    s->info.name = o->path;
    WINENT_TRY(read_nodata(o, s, t, tif, err));
    set_fill(t, &s->info);
    WINENT_TRY(winent_tiff_georef_read(tif, &t->georef, err));
    s->info.georef = winent_georef_present(&t->georef) ? &t->georef : NULL;
    /* Handles as plan_memory chose (one per decoding thread, opened on its
     * first block; one per plane read in slices). */
    return WINENT_OK;
}

int winent_source_tiff_mask_hint(const char *open_path, const char *path)
{
    winent_tiff_msgs m;
    TIFF *tif = winent_tiff_open(open_path, "rm", &m);
    if (tif == NULL)
        return 0;
    int hint = 0;
    uint16_t n = 0, *kinds = NULL;
    if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &n, &kinds) && kinds != NULL)
        for (uint16_t i = 0; i < n; i++)
            if (kinds[i] == EXTRASAMPLE_ASSOCALPHA || kinds[i] == EXTRASAMPLE_UNASSALPHA)
                hint = 1;
    /* GDAL's internal masks are IFDs of their own (after the image, or
     * after each overview in a COG): a few dozen at most are looked at. */
    for (int d = 0; !hint && d < 64 && TIFFReadDirectory(tif); d++) {
        uint32_t sub = 0;
        if (TIFFGetField(tif, TIFFTAG_SUBFILETYPE, &sub) && (sub & FILETYPE_MASK))
            hint = 1;
    }
    TIFFClose(tif);
    if (!hint && path != NULL) {
        size_t len = strlen(path);
        char *msk = malloc(len + 5);
        if (msk != NULL) {
            memcpy(msk, path, len);
            memcpy(msk + len, ".msk", 5);
            hint = access(msk, F_OK) == 0;
            free(msk);
        }
    }
    return hint;
}

/* ---- The TIFF format, read by libtiff ---------------------------------- */

static size_t tiff_sniff_bytes(const winent_source_probe *p)
{
    (void)p;
    return 4;
}

/* Classic TIFF or BigTIFF, either byte order. */
static int tiff_identify(const winent_source_probe *p, char *what, size_t cap)
{
    const uint8_t *b = p->head;
    if (p->nhead < 4)
        return 0;
    if (!((b[0] == 'I' && b[1] == 'I' && (b[2] == 42 || b[2] == 43) && b[3] == 0) ||
          (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && (b[3] == 42 || b[3] == 43))))
        return 0;
    snprintf(what, cap, "a TIFF");
    return 1;
}

static winent_status tiff_open_input(const winent_source_opts *o, const winent_source_input *in,
                                     winent_source *s, winent_err *err)
{
    return winent_source_tiff_open(o, in->open_path, s, err);
}

const winent_source_format winent_source_format_tiff = {
    .name = "tiff",
    .sniff_bytes = tiff_sniff_bytes,
    .identify = tiff_identify,
    .needs_file = 1,
    .open = tiff_open_input,
};
