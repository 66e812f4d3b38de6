/* SPDX-License-Identifier: BSD-3-Clause */
/* --info: check that a file is a winent-stream .zst (JSON header frame,
 * zstd frames of the announced sizes, seek table) and describe it as one
 * JSON object: the header as written, plus what the seek table says. Only
 * the header, the seek table and the first bytes of each frame are read,
 * so it is quick on a file of any size.
 *
 * --info --check (--test): decompress every frame in file order, so that
 * zstd verifies its content size and checksum, and hold each against its
 * seek table entry; report the first bad frame by index and offset. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "base/json.h"
#include "base/werr.h"
#include "winent.h"
#include "zst_format.h"
#include "zst_layout.h"
#include "kernels/measure.h"

/* The largest zstd frame header (ZSTD_FRAMEHEADERSIZE_MAX, which zstd.h
 * exposes only to static linking). */
#define FRAME_HEADER_MAX 18

/* The header's "base", a word in the file ("e", "2", "10": the file's
 * format keeps it so), as the number it names, for a description whose
 * numbers are all JSON numbers; its unit into `unit` (a header without
 * one is in bits, as the readers take it). 0, or -1 when out of memory. */
static int base_as_number(cJSON *header, const char **unit)
{
    cJSON *b = cJSON_GetObjectItemCaseSensitive(header, "base");
    double v = 2.718281828459045; /* e, to the last digit of a double */
    *unit = "bit";
    if (b == NULL)
        return 0;
    *unit = "nat";
    if (winent_json_is_text(b, "2")) {
        v = 2.0;
        *unit = "bit";
    } else if (winent_json_is_text(b, "10")) {
        v = 10.0;
        *unit = "ban";
    }
    cJSON *n = winent_json_number(v);
    if (n == NULL)
        return -1;
    if (!cJSON_ReplaceItemInObjectCaseSensitive(header, "base", n)) { /* keeps the key */
        cJSON_Delete(n);
        return -1;
    }
    return 0;
}

static winent_status info_run(winent_zst_file *f, FILE *out)
{
    winent_status st;
    winent_zst_layout l = {0};
    cJSON *d = NULL; /* the description */
    char *text = NULL;

    WINENT_TRY_GOTO(st, winent_zst_layout_open(f, &l));
    const uint64_t csum = f->size - l.header_end - l.tsize;
    const uint64_t dsum = (uint64_t)l.h.width * (uint64_t)l.h.height * 4 * (uint64_t)l.h.maps;

    /* The description: the header (its numbers as they read, exactly,
     * and its base as a number), the unit, then the figures of the seek
     * table. */
    char seek[96];
    snprintf(seek, sizeof seek, "zstd seekable format, %u entries (header frame first)",
             l.nentries);
    d = cJSON_CreateObject();
    const char *unit = "nat";
    int e = d == NULL || winent_json_exact_numbers(l.root) != 0;
    e = e || base_as_number(l.root, &unit) != 0;
    e = e || winent_json_put(d, "file", winent_json_text(f->path));
    if (!e) {
        e = winent_json_put(d, "header", l.root);
        l.root = NULL; /* d owns it now (or it is freed) */
    }
    /* The first map's unit: none for a measure that has none (a count, a
     * ratio, a value). */
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(d, "header");
    mt = mt ? cJSON_GetObjectItemCaseSensitive(mt, "measure") : NULL;
    if (cJSON_IsString(mt) && !winent_measure_text_has_unit(mt->valuestring))
        e = e || winent_json_put(d, "unit", cJSON_CreateNull());
    else
        e = e || winent_json_put(d, "unit", cJSON_CreateString(unit));
    e = e || winent_json_put(d, "frames", winent_json_integer(l.nentries - 1));
    e = e || winent_json_put(d, "file_bytes", winent_json_integer((long long)f->size));
    e = e || winent_json_put(d, "compressed_bytes", winent_json_integer((long long)csum));
    e = e || winent_json_put(d, "decompressed_bytes", winent_json_integer((long long)dsum));
    e = e || winent_json_put(d, "ratio",
                             winent_json_fixed(csum ? (double)dsum / (double)csum : 0.0, 3));
    e = e || winent_json_put(d, "checksums", cJSON_CreateTrue());
    e = e || winent_json_put(d, "seek_table", cJSON_CreateString(seek));
    if (e || (text = winent_json_print(d, 1)) == NULL) {
        st = winent_zst_oom(f);
        goto fail;
    }
    if (fprintf(out, "%s\n", text) < 0 || fflush(out) != 0) {
        snprintf(f->msg, f->msg_len, "cannot write the description: %s", strerror(errno));
        st = WINENT_ERR_OUTPUT;
        goto fail;
    }
    st = WINENT_OK;
fail:
    free(text);
    cJSON_Delete(d);
    winent_zst_layout_free(&l);
    return st;
}

/* ---- --check: every frame decompressed ------------------------------ */

/* What --check reads with: one decompression context and small buffers,
 * whatever the frame size (the window of a frame is at most its content,
 * 1 GiB for the largest frame the writer makes). */
typedef struct checker {
    winent_zst_file *f;
    const winent_zst_layout *l;
    ZSTD_DCtx *dctx;   /* owned */
    uint8_t *in, *out; /* owned */
    size_t in_cap, out_cap;
} checker;

/* "PATH: frame I (rows A-B[ of map M]) at byte OFF: WHY", for data frame
 * `i` of the file: I the frame within its map and M the map, counted from
 * 0 as rows are (and as winent_zst_read_frame's caller counts them);
 * WINENT_ERR_INPUT. */
static winent_status frame_bad(const checker *c, uint32_t i, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static winent_status frame_bad(const checker *c, uint32_t i, uint64_t off, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    const long long per_map = c->l->h.frames / c->l->h.maps;
    long long y0 = (long long)i % per_map * c->l->h.rows_per_frame;
    long long y1 = y0 + c->l->h.rows_per_frame;
    char of_map[32] = "";
    if (y1 > c->l->h.height)
        y1 = c->l->h.height;
    if (c->l->h.maps > 1)
        snprintf(of_map, sizeof of_map, " of map %lld", (long long)i / per_map);
    snprintf(c->f->msg, c->f->msg_len, "%s: frame %lld (rows %lld-%lld%s) at byte %llu: %s",
             c->f->path, (long long)i % per_map, y0, y1 - 1, of_map, (unsigned long long)off,
             why);
    return WINENT_ERR_INPUT;
}

/* Decompress data frame `i`, which starts at `off` and must end by `limit`
 * (the seek table, or the end of the file), into nothing: zstd verifies
 * its content size and its XXH64 checksum on the way. Its compressed size
 * and stored checksum go to *csize and *checksum. */
static winent_status check_frame(checker *c, uint32_t i, uint64_t off, uint64_t limit,
                                 uint64_t want, uint64_t *csize, uint32_t *checksum)
{
    winent_zst_file *f = c->f;
    uint8_t fh[FRAME_HEADER_MAX];
    if (off >= limit)
        return frame_bad(c, i, off, "missing: %s",
                         limit == f->size ? "the file ends there" : "the seek table starts there");
    size_t n = limit - off < sizeof fh ? (size_t)(limit - off) : sizeof fh;
    WINENT_TRY(winent_zst_read_at(f, fh, n, off));
    /* The frame header, as every reader holds it (zst_layout.c). */
    const char *why = winent_zst_frame_header_why(fh, n, want);
    if (why != NULL) {
        unsigned long long content = ZSTD_getFrameContentSize(fh, n);
        if (n >= 5 && winent_zst_get32(fh) == WINENT_ZST_FRAME_MAGIC &&
            content < ZSTD_CONTENTSIZE_ERROR && content != want)
            return frame_bad(c, i, off,
                             "holds %llu bytes, but the header's %lld x %lld image needs %llu",
                             content, c->l->h.width, c->l->h.height, (unsigned long long)want);
        return frame_bad(c, i, off, "%s", why);
    }

    ZSTD_DCtx_reset(c->dctx, ZSTD_reset_session_only);
    uint64_t pos = off, produced = 0;
    ZSTD_inBuffer in = {c->in, 0, 0};
    for (;;) {
        ZSTD_outBuffer ob = {c->out, c->out_cap, 0};
        size_t r = ZSTD_decompressStream(c->dctx, &ob, &in);
        if (ZSTD_isError(r))
            return frame_bad(c, i, off, "%s",
                             ZSTD_getErrorCode(r) == ZSTD_error_checksum_wrong
                                 ? "checksum mismatch"
                                 : ZSTD_getErrorName(r));
        produced += ob.pos;
        if (r == 0)
            break; /* the frame is whole, its checksum verified */
        if (ob.pos < ob.size && in.pos == in.size) {
            /* zstd wants more input (a full output buffer only wants a
             * call to flush). */
            if (pos >= limit)
                return frame_bad(c, i, off, "truncated: %s at byte %llu",
                                 limit == f->size ? "the file ends" : "the seek table starts",
                                 (unsigned long long)limit);
            size_t k = limit - pos < c->in_cap ? (size_t)(limit - pos) : c->in_cap;
            WINENT_TRY(winent_zst_read_at(f, c->in, k, pos));
            pos += k;
            in.size = k;
            in.pos = 0;
        }
    }
    if (produced != want)
        return frame_bad(c, i, off, "decompressed to %llu bytes, not %llu",
                         (unsigned long long)produced, (unsigned long long)want);
    /* The frame ends where zstd stopped reading. */
    *csize = pos - (uint64_t)(in.size - in.pos) - off;
    uint8_t b4[4];
    WINENT_TRY(winent_zst_read_at(f, b4, sizeof b4, off + *csize - 4));
    *checksum = winent_zst_get32(b4);
    return WINENT_OK;
}

static winent_status check_run(winent_zst_file *f, FILE *out)
{
    winent_status st;
    winent_zst_layout l = {0};
    checker c = {f, &l, NULL, NULL, NULL, 0, 0};
    char table_msg[WINENT_MSG_LEN] = "";
    const char *table_why = NULL; /* why the seek table is unusable */

    WINENT_TRY_GOTO(st, winent_zst_read_header(f, &l));
    /* A damaged seek table is reported after the frames: a file cut in
     * frame k has lost its table too, and "frame k: truncated" says more. */
    {
        winent_zst_file tf = *f;
        tf.msg = table_msg;
        tf.msg_len = sizeof table_msg;
        st = winent_zst_read_table(&tf, &l);
        if (st == WINENT_ERR_INTERNAL) {
            snprintf(f->msg, f->msg_len, "%s", table_msg);
            goto fail;
        }
        table_why = tf.why ? tf.why : table_msg;
    }
    c.dctx = ZSTD_createDCtx();
    c.in_cap = ZSTD_DStreamInSize();
    c.out_cap = ZSTD_DStreamOutSize();
    c.in = malloc(c.in_cap);
    c.out = malloc(c.out_cap);
    if (c.dctx == NULL || c.in == NULL || c.out == NULL) {
        st = winent_zst_oom(f);
        goto fail;
    }
    /* The writer's largest frame is 1 GiB, held whole as the window. */
    ZSTD_DCtx_setParameter(c.dctx, ZSTD_d_windowLogMax, 30);

    const uint64_t data_end = l.table ? f->size - l.tsize : f->size;
    const uint64_t row_bytes = (uint64_t)l.h.width * (uint64_t)l.h.sample_bytes;
    const uint64_t per_map = (uint64_t)(l.h.frames / l.h.maps);
    uint64_t off = l.header_end;
    for (uint32_t i = 0; i < (uint32_t)l.h.frames; i++) {
        uint64_t y0 = (uint64_t)i % per_map * (uint64_t)l.h.rows_per_frame;
        uint64_t rows = (uint64_t)l.h.height - y0 < (uint64_t)l.h.rows_per_frame
                            ? (uint64_t)l.h.height - y0
                            : (uint64_t)l.h.rows_per_frame;
        uint64_t csize = 0;
        uint32_t sum = 0;
        WINENT_TRY_GOTO(st, check_frame(&c, i, off, data_end, rows * row_bytes, &csize, &sum));
        if (l.table) {
            const uint8_t *e =
                l.table + WINENT_ZST_SKIP_HEADER + (size_t)(i + 1) * WINENT_ZST_ENTRY;
            uint32_t tc = winent_zst_get32(e), td = winent_zst_get32(e + 4),
                     ts = winent_zst_get32(e + 8);
            if (tc != csize || td != rows * row_bytes || ts != sum) {
                st = frame_bad(&c, i, off,
                               "the seek table says %u bytes (%u decompressed, checksum %08x), "
                               "the frame is %llu bytes (%llu, %08x)",
                               tc, td, ts, (unsigned long long)csize,
                               (unsigned long long)(rows * row_bytes), sum);
                goto fail;
            }
        }
        off += csize;
    }
    if (l.table == NULL) {
        /* The last frame, named as frame_bad names one. */
        char last[48];
        if (l.h.maps > 1)
            snprintf(last, sizeof last, "%lld of map %lld", (long long)per_map - 1,
                     (long long)l.h.maps - 1);
        else
            snprintf(last, sizeof last, "%lld", l.h.frames - 1);
        snprintf(f->msg, f->msg_len,
                 "%s: seek table after frame %s (at byte %llu): %s (the %lld frames are whole)",
                 f->path, last, (unsigned long long)off, table_why, l.h.frames);
        st = WINENT_ERR_INPUT;
        goto fail;
    }
    if (off != data_end) {
        snprintf(f->msg, f->msg_len,
                 "%s: %llu bytes after the last frame (byte %llu) and before the seek table",
                 f->path, (unsigned long long)(data_end - off), (unsigned long long)off);
        st = WINENT_ERR_INPUT;
        goto fail;
    }
    {
        const uint8_t *e = l.table + WINENT_ZST_SKIP_HEADER;
        if (winent_zst_get32(e) != l.header_end || winent_zst_get32(e + 4) != 0 ||
            winent_zst_get32(e + 8) != WINENT_ZST_EMPTY_CHECKSUM) {
            snprintf(f->msg, f->msg_len,
                     "%s: the seek table (at byte %llu) does not start with the header frame",
                     f->path, (unsigned long long)data_end);
            st = WINENT_ERR_INPUT;
            goto fail;
        }
    }
    int printed = l.h.maps > 1
                      ? fprintf(out, "OK: %lld frames, %lld maps of %lld x %lld\n", l.h.frames,
                                l.h.maps, l.h.width, l.h.height)
                      : fprintf(out, "OK: %lld frame%s, %lld x %lld\n", l.h.frames,
                                l.h.frames == 1 ? "" : "s", l.h.width, l.h.height);
    if (printed < 0 || fflush(out) != 0) {
        snprintf(f->msg, f->msg_len, "cannot write the result: %s", strerror(errno));
        st = WINENT_ERR_OUTPUT;
        goto fail;
    }
    st = WINENT_OK;
fail:
    free(c.out);
    free(c.in);
    ZSTD_freeDCtx(c.dctx);
    winent_zst_layout_free(&l);
    return st;
}

/* Open `path` as a regular file and run `fn` on it. */
static winent_status with_file(const char *path, const char *what, FILE *out, char *msg,
                               size_t msg_len, winent_status (*fn)(winent_zst_file *, FILE *))
{
    struct stat sb;
    winent_zst_file f = {-1, 0, path, msg, msg_len, NULL, ""};
    if (msg_len > 0)
        msg[0] = '\0';
    /* O_NONBLOCK: the open of a FIFO would wait for a writer. */
    f.fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (f.fd < 0) {
        snprintf(msg, msg_len, "%s: cannot open: %s", path, strerror(errno));
        return WINENT_ERR_INPUT;
    }
    if (fstat(f.fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(msg, msg_len, "%s: %s needs a regular file", path, what);
        close(f.fd);
        return WINENT_ERR_INPUT;
    }
    f.size = (uint64_t)sb.st_size;
    winent_status st = fn(&f, out);
    close(f.fd);
    return st;
}

/* The public form of a result: the message with_file left in `msg`. */
static winent_status export_msg(winent_status st, const char *msg, winent_error *err)
{
    winent_err e;
    winent_err_clear(&e);
    if (st != WINENT_OK)
        WINENT_ERR(&e, st, "%s", msg);
    return winent_err_export(&e, st, err);
}

winent_status winent_info_print(const char *path, FILE *out, winent_error *err)
{
    if (path == NULL || out == NULL)
        return winent_err_null(err, "winent_info_print", path == NULL ? "path" : "out");
    char msg[WINENT_MSG_LEN];
    return export_msg(with_file(path, "--info", out, msg, sizeof msg, info_run), msg, err);
}

winent_status winent_info_check(const char *path, FILE *out, winent_error *err)
{
    if (path == NULL || out == NULL)
        return winent_err_null(err, "winent_info_check", path == NULL ? "path" : "out");
    char msg[WINENT_MSG_LEN];
    return export_msg(with_file(path, "--info --check", out, msg, sizeof msg, check_run), msg,
                      err);
}
