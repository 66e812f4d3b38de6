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

#include "base/werr.h"
#include "winent.h"
#include "zst_format.h"

/* The largest zstd frame header (ZSTD_FRAMEHEADERSIZE_MAX, which zstd.h
 * exposes only to static linking). */
#define FRAME_HEADER_MAX 18

/* ---- a small JSON checker ------------------------------------------- */

/* What --info needs from the header's top-level object; -1 when absent. */
typedef struct header_facts {
    int format_ok;
    long long width, height, rows_per_frame, frames;
} header_facts;

typedef struct json_in {
    const char *p, *end;
    int depth;
} json_in;

#define JSON_MAX_DEPTH 64

static void skip_ws(json_in *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string; [*s, *s + *n) is its raw content between the quotes. */
static int parse_string(json_in *j, const char **s, size_t *n)
{
    if (j->p >= j->end || *j->p != '"')
        return -1;
    const char *start = ++j->p;
    while (j->p < j->end && *j->p != '"') {
        unsigned char c = (unsigned char)*j->p;
        if (c < 0x20)
            return -1;
        if (c == '\\') {
            if (++j->p >= j->end)
                return -1;
            if (*j->p == 'u') {
                if (j->end - j->p < 5 || !is_hex(j->p[1]) || !is_hex(j->p[2]) || !is_hex(j->p[3]) ||
                    !is_hex(j->p[4]))
                    return -1;
                j->p += 5;
            } else if (strchr("\"\\/bfnrt", *j->p) && *j->p) {
                j->p++;
            } else {
                return -1;
            }
            continue;
        }
        size_t k = winent_zst_utf8_len((const unsigned char *)j->p, (size_t)(j->end - j->p));
        if (k == 0)
            return -1;
        j->p += k;
    }
    if (j->p >= j->end)
        return -1;
    if (s) {
        *s = start;
        *n = (size_t)(j->p - start);
    }
    j->p++;
    return 0;
}

static int is_digit(const json_in *j)
{
    return j->p < j->end && *j->p >= '0' && *j->p <= '9';
}

/* A number; *integer gets its value when it is a plain integer, else -1. */
static int parse_number(json_in *j, long long *integer)
{
    const char *start = j->p;
    int plain = 1;
    if (j->p < j->end && *j->p == '-')
        j->p++, plain = 0;
    if (!is_digit(j))
        return -1;
    if (*j->p == '0')
        j->p++;
    else
        while (is_digit(j))
            j->p++;
    if (j->p < j->end && *j->p == '.') {
        j->p++, plain = 0;
        if (!is_digit(j))
            return -1;
        while (is_digit(j))
            j->p++;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++, plain = 0;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
            j->p++;
        if (!is_digit(j))
            return -1;
        while (is_digit(j))
            j->p++;
    }
    *integer = -1;
    if (plain && j->p - start <= 18) {
        long long v = 0;
        for (const char *q = start; q < j->p; q++)
            v = v * 10 + (*q - '0');
        *integer = v;
    }
    return 0;
}

static int parse_value(json_in *j, long long *integer);

static int parse_literal(json_in *j, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
        return -1;
    j->p += n;
    return 0;
}

/* An object or array (the opening byte at j->p). At the top level the
 * facts of interest are picked up on the way. */
static int parse_container(json_in *j, header_facts *facts)
{
    char close = *j->p == '{' ? '}' : ']';
    if (++j->depth > JSON_MAX_DEPTH)
        return -1;
    j->p++;
    skip_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        j->depth--;
        return 0;
    }
    for (;;) {
        const char *key = NULL;
        size_t klen = 0;
        long long v;
        skip_ws(j);
        if (close == '}') {
            if (parse_string(j, &key, &klen) != 0)
                return -1;
            skip_ws(j);
            if (j->p >= j->end || *j->p != ':')
                return -1;
            j->p++;
            skip_ws(j);
        }
        const char *vstart = j->p;
        if (parse_value(j, &v) != 0)
            return -1;
        if (facts && key) {
#define KEY(name) (klen == sizeof name - 1 && memcmp(key, name, klen) == 0)
            if (KEY("format"))
                facts->format_ok = (size_t)(j->p - vstart) == strlen(WINENT_ZST_FORMAT_NAME) + 2 &&
                                   memcmp(vstart + 1, WINENT_ZST_FORMAT_NAME,
                                          strlen(WINENT_ZST_FORMAT_NAME)) == 0 &&
                                   *vstart == '"';
            else if (KEY("width"))
                facts->width = v;
            else if (KEY("height"))
                facts->height = v;
            else if (KEY("rows_per_frame"))
                facts->rows_per_frame = v;
            else if (KEY("frames"))
                facts->frames = v;
#undef KEY
        }
        skip_ws(j);
        if (j->p >= j->end)
            return -1;
        if (*j->p == ',') {
            j->p++;
            continue;
        }
        if (*j->p != close)
            return -1;
        j->p++;
        j->depth--;
        return 0;
    }
}

static int parse_value(json_in *j, long long *integer)
{
    *integer = -1;
    if (j->p >= j->end)
        return -1;
    switch (*j->p) {
    case '{':
    case '[': return parse_container(j, NULL);
    case '"': return parse_string(j, NULL, NULL);
    case 't': return parse_literal(j, "true");
    case 'f': return parse_literal(j, "false");
    case 'n': return parse_literal(j, "null");
    default: return parse_number(j, integer);
    }
}

/* 0 when `text` is one JSON object; its facts go to `f`. */
static int check_header_json(const char *text, size_t n, header_facts *f)
{
    json_in j = {text, text + n, 0};
    f->format_ok = 0;
    f->width = f->height = f->rows_per_frame = f->frames = -1;
    skip_ws(&j);
    if (j.p >= j.end || *j.p != '{' || parse_container(&j, f) != 0)
        return -1;
    skip_ws(&j);
    return j.p == j.end ? 0 : -1;
}

/* ---- the file ------------------------------------------------------- */

typedef struct info_file {
    int fd;
    uint64_t size;
    const char *path;
    char *msg;
    size_t msg_len;
    const char *why; /* the reason bad() gave last (a literal), NULL before */
} info_file;

static winent_status bad(info_file *f, const char *why)
{
    snprintf(f->msg, f->msg_len, "%s: not a winent-stream .zst file: %s", f->path, why);
    f->why = why;
    return WINENT_ERR_INPUT;
}

static winent_status read_at(info_file *f, void *buf, size_t n, uint64_t off)
{
    char *p = buf;
    if (off > f->size || n > f->size - off)
        return bad(f, "truncated");
    while (n > 0) {
        ssize_t r = pread(f->fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(f->msg, f->msg_len, "%s: cannot read: %s", f->path, strerror(errno));
            return WINENT_ERR_INPUT;
        }
        if (r == 0)
            return bad(f, "truncated");
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return WINENT_OK;
}

/* Check the seek table against the header and each frame's own header;
 * sums of the data frames go to *csum and *dsum. */
static winent_status check_frames(info_file *f, const header_facts *h, uint32_t header_frame,
                                  const uint8_t *entries, uint32_t nentries, uint64_t *csum,
                                  uint64_t *dsum)
{
    uint64_t off = 0, row_bytes = (uint64_t)h->width * 4;
    *csum = *dsum = 0;
    if (winent_zst_get32(entries) != header_frame || winent_zst_get32(entries + 4) != 0)
        return bad(f, "the seek table does not start with the header frame");
    off = header_frame;
    for (uint32_t i = 1; i < nentries; i++) {
        const uint8_t *e = entries + (size_t)i * WINENT_ZST_ENTRY;
        uint32_t c = winent_zst_get32(e), d = winent_zst_get32(e + 4);
        uint64_t y0 = (uint64_t)(i - 1) * (uint64_t)h->rows_per_frame;
        uint64_t rows = (uint64_t)h->height - y0 < (uint64_t)h->rows_per_frame
                            ? (uint64_t)h->height - y0
                            : (uint64_t)h->rows_per_frame;
        uint8_t fh[FRAME_HEADER_MAX];
        if (d != rows * row_bytes)
            return bad(f, "a frame of the seek table does not hold its band of rows");
        if (c < 4 || off + c > f->size)
            return bad(f, "the seek table points past the end of the file");
        size_t n = c < sizeof fh ? c : sizeof fh;
        winent_status st = read_at(f, fh, n, off);
        if (st != WINENT_OK)
            return st;
        if (winent_zst_get32(fh) != WINENT_ZST_FRAME_MAGIC || ZSTD_getFrameContentSize(fh, n) != d)
            return bad(f, "the seek table does not match the zstd frames");
        off += c;
        *csum += c;
        *dsum += d;
    }
    if (*dsum != (uint64_t)h->width * (uint64_t)h->height * 4)
        return bad(f, "the frames do not hold the whole image");
    return WINENT_OK;
}

/* What both readers load: the header frame and the seek table frame. */
typedef struct zst_layout {
    char *json; /* owned: the header's text, NUL-terminated */
    uint32_t jlen;
    header_facts h;
    uint64_t header_end; /* bytes of the header frame: where frame 0 starts */
    uint8_t *table;      /* owned: the seek table frame; NULL until read */
    uint64_t tsize;      /* its size, footer included */
    uint32_t nentries;   /* its entries, the header frame's first */
} zst_layout;

static void layout_free(zst_layout *l)
{
    free(l->table);
    free(l->json);
    memset(l, 0, sizeof *l);
}

static winent_status oom(info_file *f)
{
    snprintf(f->msg, f->msg_len, "out of memory");
    return WINENT_ERR_INTERNAL;
}

/* The header frame: a winent-stream JSON object whose sizes add up. */
static winent_status read_header(info_file *f, zst_layout *l)
{
    uint8_t b8[WINENT_ZST_SKIP_HEADER];
    WINENT_TRY(read_at(f, b8, sizeof b8, 0));
    if (winent_zst_get32(b8) != WINENT_ZST_HEADER_MAGIC)
        return bad(f, winent_zst_get32(b8) == WINENT_ZST_FRAME_MAGIC
                          ? "a zstd stream without the winent-stream header"
                          : "no winent-stream header");
    l->jlen = winent_zst_get32(b8 + 4);
    if (l->jlen > WINENT_ZST_MAX_HEADER || l->jlen > f->size - sizeof b8)
        return bad(f, "the header frame is truncated");
    l->json = malloc(l->jlen + 1u);
    if (l->json == NULL)
        return oom(f);
    WINENT_TRY(read_at(f, l->json, l->jlen, sizeof b8));
    l->json[l->jlen] = '\0';
    l->header_end = sizeof b8 + (uint64_t)l->jlen;
    header_facts *h = &l->h;
    if (check_header_json(l->json, l->jlen, h) != 0 || !h->format_ok)
        return bad(f, "the header is not winent-stream JSON");
    if (h->width < 1 || h->height < 1 || h->rows_per_frame < 1 || h->frames < 0 ||
        h->width > INT32_MAX || h->height > INT32_MAX ||
        h->frames != (h->height + h->rows_per_frame - 1) / h->rows_per_frame)
        return bad(f, "the header's sizes do not add up");
    return WINENT_OK;
}

/* The seek table frame at the end of the file: its footer, its size, one
 * entry per frame of the header plus the header frame's own. */
static winent_status read_table(info_file *f, zst_layout *l)
{
    uint8_t foot[WINENT_ZST_FOOTER];
    if (f->size < l->header_end + WINENT_ZST_SKIP_HEADER + WINENT_ZST_FOOTER)
        return bad(f, "truncated (no seek table)");
    WINENT_TRY(read_at(f, foot, sizeof foot, f->size - sizeof foot));
    if (winent_zst_get32(foot + 5) != WINENT_ZST_SEEKABLE_MAGIC)
        return bad(f, "truncated (no seek table at the end)");
    if (foot[4] != WINENT_ZST_CHECKSUM_FLAG)
        return bad(f, "unexpected seek table descriptor");
    uint32_t nentries = winent_zst_get32(foot);
    if ((uint64_t)nentries != (uint64_t)l->h.frames + 1)
        return bad(f, "the seek table does not list the header's frames");
    uint64_t tsize =
        WINENT_ZST_SKIP_HEADER + (uint64_t)nentries * WINENT_ZST_ENTRY + WINENT_ZST_FOOTER;
    if (tsize > f->size - l->header_end)
        return bad(f, "the seek table is truncated");
    uint8_t *table = malloc((size_t)tsize);
    if (table == NULL)
        return oom(f);
    winent_status st = read_at(f, table, (size_t)tsize, f->size - tsize);
    if (st == WINENT_OK && (winent_zst_get32(table) != WINENT_ZST_SEEK_MAGIC ||
                            winent_zst_get32(table + 4) != tsize - WINENT_ZST_SKIP_HEADER))
        st = bad(f, "the seek table frame is damaged");
    if (st != WINENT_OK) {
        free(table);
        return st;
    }
    l->table = table;
    l->tsize = tsize;
    l->nentries = nentries;
    return WINENT_OK;
}

static winent_status info_run(info_file *f, FILE *out)
{
    winent_status st;
    zst_layout l = {0};
    winent_bytes o = {0};

    WINENT_TRY_GOTO(st, read_header(f, &l));
    WINENT_TRY_GOTO(st, read_table(f, &l));
    uint64_t csum, dsum;
    WINENT_TRY_GOTO(st, check_frames(f, &l.h, (uint32_t)l.header_end,
                                     l.table + WINENT_ZST_SKIP_HEADER, l.nentries, &csum, &dsum));
    if (l.header_end + csum + l.tsize != f->size) {
        st = bad(f, "the frames and the file size disagree");
        goto fail;
    }

    /* The description: the header as written (indented one level), then
     * the figures of the seek table. */
    int e = winent_zst_printf(&o, "{\n  \"file\": ") || winent_zst_json_string(&o, f->path) ||
            winent_zst_printf(&o, ",\n  \"header\": ");
    size_t n = l.jlen;
    const char *json = l.json;
    while (n > 0 && (json[n - 1] == '\n' || json[n - 1] == ' ' || json[n - 1] == '\r' ||
                     json[n - 1] == '\t'))
        n--;
    for (size_t i = 0; i < n && !e; i++)
        e = json[i] == '\n' ? winent_bytes_append(&o, "\n  ", 3)
                            : winent_bytes_append(&o, json + i, 1);
    e = e || winent_zst_printf(&o,
                               ",\n  \"frames\": %u,\n  \"file_bytes\": %llu,\n"
                               "  \"compressed_bytes\": %llu,\n  \"decompressed_bytes\": %llu,\n"
                               "  \"ratio\": %.3f,\n  \"checksums\": true,\n"
                               "  \"seek_table\": \"zstd seekable format, %u entries "
                               "(header frame first)\"\n}\n",
                               l.nentries - 1, (unsigned long long)f->size,
                               (unsigned long long)csum, (unsigned long long)dsum,
                               csum ? (double)dsum / (double)csum : 0.0, l.nentries);
    if (e) {
        st = oom(f);
        goto fail;
    }
    if (fwrite(o.data, 1, o.size, out) != o.size || fflush(out) != 0) {
        snprintf(f->msg, f->msg_len, "cannot write the description: %s", strerror(errno));
        st = WINENT_ERR_OUTPUT;
        goto fail;
    }
    st = WINENT_OK;
fail:
    winent_bytes_free(&o);
    layout_free(&l);
    return st;
}

/* ---- --check: every frame decompressed ------------------------------ */

/* What --check reads with: one decompression context and small buffers,
 * whatever the frame size (the window of a frame is at most its content,
 * 1 GiB for the largest frame the writer makes). */
typedef struct checker {
    info_file *f;
    const zst_layout *l;
    ZSTD_DCtx *dctx;   /* owned */
    uint8_t *in, *out; /* owned */
    size_t in_cap, out_cap;
} checker;

/* "PATH: frame I (rows A-B) at byte OFF: WHY"; WINENT_ERR_INPUT. */
static winent_status frame_bad(const checker *c, uint32_t i, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static winent_status frame_bad(const checker *c, uint32_t i, uint64_t off, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    long long y0 = (long long)i * c->l->h.rows_per_frame;
    long long y1 = y0 + c->l->h.rows_per_frame;
    if (y1 > c->l->h.height)
        y1 = c->l->h.height;
    snprintf(c->f->msg, c->f->msg_len, "%s: frame %u (rows %lld-%lld) at byte %llu: %s", c->f->path,
             i, y0, y1 - 1, (unsigned long long)off, why);
    return WINENT_ERR_INPUT;
}

/* Decompress data frame `i`, which starts at `off` and must end by `limit`
 * (the seek table, or the end of the file), into nothing: zstd verifies
 * its content size and its XXH64 checksum on the way. Its compressed size
 * and stored checksum go to *csize and *checksum. */
static winent_status check_frame(checker *c, uint32_t i, uint64_t off, uint64_t limit,
                                 uint64_t want, uint64_t *csize, uint32_t *checksum)
{
    info_file *f = c->f;
    uint8_t fh[FRAME_HEADER_MAX];
    if (off >= limit)
        return frame_bad(c, i, off, "missing: %s",
                         limit == f->size ? "the file ends there" : "the seek table starts there");
    size_t n = limit - off < sizeof fh ? (size_t)(limit - off) : sizeof fh;
    WINENT_TRY(read_at(f, fh, n, off));
    if (n < 5 || winent_zst_get32(fh) != WINENT_ZST_FRAME_MAGIC)
        return frame_bad(c, i, off, "not a zstd frame");
    unsigned long long content = ZSTD_getFrameContentSize(fh, n);
    if (content == ZSTD_CONTENTSIZE_ERROR)
        return frame_bad(c, i, off, "damaged frame header");
    if (content == ZSTD_CONTENTSIZE_UNKNOWN)
        return frame_bad(c, i, off, "the frame does not give its content size");
    if (content != want)
        return frame_bad(c, i, off,
                         "holds %llu bytes, but the header's %lld x %lld image needs %llu", content,
                         c->l->h.width, c->l->h.height, (unsigned long long)want);
    /* Frame_Header_Descriptor, bit 2: Content_Checksum_flag. */
    if (!(fh[4] & 0x04))
        return frame_bad(c, i, off, "the frame has no checksum");

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
            WINENT_TRY(read_at(f, c->in, k, pos));
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
    WINENT_TRY(read_at(f, b4, sizeof b4, off + *csize - 4));
    *checksum = winent_zst_get32(b4);
    return WINENT_OK;
}

static winent_status check_run(info_file *f, FILE *out)
{
    winent_status st;
    zst_layout l = {0};
    checker c = {f, &l, NULL, NULL, NULL, 0, 0};
    char table_msg[WINENT_MSG_LEN] = "";
    const char *table_why = NULL; /* why the seek table is unusable */

    WINENT_TRY_GOTO(st, read_header(f, &l));
    /* A damaged seek table is reported after the frames: a file cut in
     * frame k has lost its table too, and "frame k: truncated" says more. */
    {
        info_file tf = *f;
        tf.msg = table_msg;
        tf.msg_len = sizeof table_msg;
        st = read_table(&tf, &l);
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
        st = oom(f);
        goto fail;
    }
    /* The writer's largest frame is 1 GiB, held whole as the window. */
    ZSTD_DCtx_setParameter(c.dctx, ZSTD_d_windowLogMax, 30);

    const uint64_t data_end = l.table ? f->size - l.tsize : f->size;
    const uint64_t row_bytes = (uint64_t)l.h.width * 4;
    uint64_t off = l.header_end;
    for (uint32_t i = 0; i < (uint32_t)l.h.frames; i++) {
        uint64_t y0 = (uint64_t)i * (uint64_t)l.h.rows_per_frame;
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
        snprintf(f->msg, f->msg_len,
                 "%s: seek table after frame %lld (at byte %llu): %s (the %lld frames are "
                 "whole)",
                 f->path, l.h.frames - 1, (unsigned long long)off, table_why, l.h.frames);
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
    if (fprintf(out, "OK: %lld frame%s, %lld x %lld\n", l.h.frames, l.h.frames == 1 ? "" : "s",
                l.h.width, l.h.height) < 0 ||
        fflush(out) != 0) {
        snprintf(f->msg, f->msg_len, "cannot write the result: %s", strerror(errno));
        st = WINENT_ERR_OUTPUT;
        goto fail;
    }
    st = WINENT_OK;
fail:
    free(c.out);
    free(c.in);
    ZSTD_freeDCtx(c.dctx);
    layout_free(&l);
    return st;
}

/* Open `path` as a regular file and run `fn` on it. */
static winent_status with_file(const char *path, const char *what, FILE *out, char *msg,
                               size_t msg_len, winent_status (*fn)(info_file *, FILE *))
{
    struct stat sb;
    info_file f = {-1, 0, path, msg, msg_len, NULL};
    if (msg_len > 0)
        msg[0] = '\0';
    f.fd = open(path, O_RDONLY);
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

winent_status winent_info_print(const char *path, FILE *out, char *msg, size_t msg_len)
{
    return with_file(path, "--info", out, msg, msg_len, info_run);
}

winent_status winent_info_check(const char *path, FILE *out, char *msg, size_t msg_len)
{
    return with_file(path, "--info --check", out, msg, msg_len, check_run);
}
