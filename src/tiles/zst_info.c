/* --info: check that a file is a winent-stream .zst (JSON header frame,
 * zstd frames of the announced sizes, seek table) and describe it as one
 * JSON object: the header as written, plus what the seek table says. Only
 * the header, the seek table and the first bytes of each frame are read,
 * so it is quick on a file of any size. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

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
} info_file;

static winent_status bad(info_file *f, const char *why)
{
    snprintf(f->msg, f->msg_len, "%s: not a winent-stream .zst file: %s", f->path, why);
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

static winent_status info_run(info_file *f, FILE *out)
{
    winent_status st;
    uint8_t b8[WINENT_ZST_SKIP_HEADER], foot[WINENT_ZST_FOOTER];
    char *json = NULL;
    uint8_t *table = NULL;
    winent_bytes o = {0};
    header_facts h;

    /* The header frame. */
    WINENT_TRY_GOTO(st, read_at(f, b8, sizeof b8, 0));
    if (winent_zst_get32(b8) != WINENT_ZST_HEADER_MAGIC) {
        st = bad(f, winent_zst_get32(b8) == WINENT_ZST_FRAME_MAGIC
                        ? "a zstd stream without the winent-stream header"
                        : "no winent-stream header");
        goto fail;
    }
    uint32_t jlen = winent_zst_get32(b8 + 4);
    if (jlen > WINENT_ZST_MAX_HEADER || jlen > f->size - sizeof b8) {
        st = bad(f, "the header frame is truncated");
        goto fail;
    }
    json = malloc(jlen + 1u);
    if (json == NULL) {
        snprintf(f->msg, f->msg_len, "out of memory");
        st = WINENT_ERR_INTERNAL;
        goto fail;
    }
    WINENT_TRY_GOTO(st, read_at(f, json, jlen, sizeof b8));
    json[jlen] = '\0';
    if (check_header_json(json, jlen, &h) != 0 || !h.format_ok) {
        st = bad(f, "the header is not winent-stream JSON");
        goto fail;
    }
    if (h.width < 1 || h.height < 1 || h.rows_per_frame < 1 || h.frames < 0 ||
        h.width > INT32_MAX || h.height > INT32_MAX ||
        h.frames != (h.height + h.rows_per_frame - 1) / h.rows_per_frame) {
        st = bad(f, "the header's sizes do not add up");
        goto fail;
    }

    /* The seek table, from the end. */
    if (f->size < sizeof b8 + jlen + WINENT_ZST_SKIP_HEADER + WINENT_ZST_FOOTER) {
        st = bad(f, "truncated (no seek table)");
        goto fail;
    }
    WINENT_TRY_GOTO(st, read_at(f, foot, sizeof foot, f->size - sizeof foot));
    if (winent_zst_get32(foot + 5) != WINENT_ZST_SEEKABLE_MAGIC) {
        st = bad(f, "truncated (no seek table at the end)");
        goto fail;
    }
    if (foot[4] != WINENT_ZST_CHECKSUM_FLAG) {
        st = bad(f, "unexpected seek table descriptor");
        goto fail;
    }
    uint32_t nentries = winent_zst_get32(foot);
    if ((uint64_t)nentries != (uint64_t)h.frames + 1) {
        st = bad(f, "the seek table does not list the header's frames");
        goto fail;
    }
    uint64_t tsize =
        WINENT_ZST_SKIP_HEADER + (uint64_t)nentries * WINENT_ZST_ENTRY + WINENT_ZST_FOOTER;
    if (tsize > f->size - sizeof b8 - jlen) {
        st = bad(f, "the seek table is truncated");
        goto fail;
    }
    table = malloc((size_t)tsize);
    if (table == NULL) {
        snprintf(f->msg, f->msg_len, "out of memory");
        st = WINENT_ERR_INTERNAL;
        goto fail;
    }
    WINENT_TRY_GOTO(st, read_at(f, table, (size_t)tsize, f->size - tsize));
    if (winent_zst_get32(table) != WINENT_ZST_SEEK_MAGIC ||
        winent_zst_get32(table + 4) != tsize - WINENT_ZST_SKIP_HEADER) {
        st = bad(f, "the seek table frame is damaged");
        goto fail;
    }
    uint64_t csum, dsum;
    WINENT_TRY_GOTO(st, check_frames(f, &h, (uint32_t)(sizeof b8 + jlen),
                                     table + WINENT_ZST_SKIP_HEADER, nentries, &csum, &dsum));
    if (sizeof b8 + jlen + csum + tsize != f->size) {
        st = bad(f, "the frames and the file size disagree");
        goto fail;
    }

    /* The description: the header as written (indented one level), then
     * the figures of the seek table. */
    int e = winent_zst_printf(&o, "{\n  \"file\": ") || winent_zst_json_string(&o, f->path) ||
            winent_zst_printf(&o, ",\n  \"header\": ");
    size_t n = jlen;
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
                               nentries - 1, (unsigned long long)f->size, (unsigned long long)csum,
                               (unsigned long long)dsum, csum ? (double)dsum / (double)csum : 0.0,
                               nentries);
    if (e) {
        snprintf(f->msg, f->msg_len, "out of memory");
        st = WINENT_ERR_INTERNAL;
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
    free(table);
    free(json);
    return st;
}

winent_status winent_info_print(const char *path, FILE *out, char *msg, size_t msg_len)
{
    struct stat sb;
    info_file f = {-1, 0, path, msg, msg_len};
    if (msg_len > 0)
        msg[0] = '\0';
    f.fd = open(path, O_RDONLY);
    if (f.fd < 0) {
        snprintf(msg, msg_len, "%s: cannot open: %s", path, strerror(errno));
        return WINENT_ERR_INPUT;
    }
    if (fstat(f.fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(msg, msg_len, "%s: --info needs a regular file", path);
        close(f.fd);
        return WINENT_ERR_INPUT;
    }
    f.size = (uint64_t)sb.st_size;
    winent_status st = info_run(&f, out);
    close(f.fd);
    return st;
}
