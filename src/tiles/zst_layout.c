/* Reading a winent-stream .zst: a small JSON checker (and the values of
 * the header it checked), the header frame, the seek table, and the
 * frames' own headers held against the table. */
#include "zst_layout.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "base/werr.h"
#include "zst_format.h"

/* The largest zstd frame header (ZSTD_FRAMEHEADERSIZE_MAX, which zstd.h
 * exposes only to static linking). */
#define FRAME_HEADER_MAX 18

/* ---- a small JSON checker ------------------------------------------- */


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
static int parse_container(json_in *j, winent_zst_facts *facts)
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
static int check_header_json(const char *text, size_t n, winent_zst_facts *f)
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


winent_status winent_zst_bad(winent_zst_file *f, const char *why)
{
    snprintf(f->msg, f->msg_len, "%s: not a winent-stream .zst file: %s", f->path, why);
    f->why = why;
    return WINENT_ERR_INPUT;
}

winent_status winent_zst_read_at(winent_zst_file *f, void *buf, size_t n, uint64_t off)
{
    char *p = buf;
    if (off > f->size || n > f->size - off)
        return winent_zst_bad(f, "truncated");
    while (n > 0) {
        ssize_t r = pread(f->fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(f->msg, f->msg_len, "%s: cannot read: %s", f->path, strerror(errno));
            return WINENT_ERR_INPUT;
        }
        if (r == 0)
            return winent_zst_bad(f, "truncated");
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return WINENT_OK;
}

/* Check the seek table against the header and each frame's own header;
 * sums of the data frames go to *csum and *dsum. */
winent_status winent_zst_check_frames(winent_zst_file *f, const winent_zst_facts *h, uint32_t header_frame,
                                  const uint8_t *entries, uint32_t nentries, uint64_t *csum,
                                  uint64_t *dsum)
{
    uint64_t off = 0, row_bytes = (uint64_t)h->width * 4;
    const uint64_t per_map = (uint64_t)(h->frames / h->maps); /* each map's frames */
    *csum = *dsum = 0;
    if (winent_zst_get32(entries) != header_frame || winent_zst_get32(entries + 4) != 0)
        return winent_zst_bad(f, "the seek table does not start with the header frame");
    off = header_frame;
    for (uint32_t i = 1; i < nentries; i++) {
        const uint8_t *e = entries + (size_t)i * WINENT_ZST_ENTRY;
        uint32_t c = winent_zst_get32(e), d = winent_zst_get32(e + 4);
        uint64_t y0 = (uint64_t)(i - 1) % per_map * (uint64_t)h->rows_per_frame;
        uint64_t rows = (uint64_t)h->height - y0 < (uint64_t)h->rows_per_frame
                            ? (uint64_t)h->height - y0
                            : (uint64_t)h->rows_per_frame;
        uint8_t fh[FRAME_HEADER_MAX];
        if (d != rows * row_bytes)
            return winent_zst_bad(f, "a frame of the seek table does not hold its band of rows");
        if (c < 4 || off + c > f->size)
            return winent_zst_bad(f, "the seek table points past the end of the file");
        size_t n = c < sizeof fh ? c : sizeof fh;
        winent_status st = winent_zst_read_at(f, fh, n, off);
        if (st != WINENT_OK)
            return st;
        if (winent_zst_get32(fh) != WINENT_ZST_FRAME_MAGIC || ZSTD_getFrameContentSize(fh, n) != d)
            return winent_zst_bad(f, "the seek table does not match the zstd frames");
        off += c;
        *csum += c;
        *dsum += d;
    }
    if (*dsum != (uint64_t)h->width * (uint64_t)h->height * 4 * (uint64_t)h->maps)
        return winent_zst_bad(f, "the frames do not hold the whole image");
    return WINENT_OK;
}


void winent_zst_layout_free(winent_zst_layout *l)
{
    free(l->table);
    free(l->json);
    memset(l, 0, sizeof *l);
}

winent_status winent_zst_oom(winent_zst_file *f)
{
    snprintf(f->msg, f->msg_len, "out of memory");
    return WINENT_ERR_INTERNAL;
}

/* The header frame: a winent-stream JSON object whose sizes add up. */
winent_status winent_zst_read_header(winent_zst_file *f, winent_zst_layout *l)
{
    uint8_t b8[WINENT_ZST_SKIP_HEADER];
    WINENT_TRY(winent_zst_read_at(f, b8, sizeof b8, 0));
    if (winent_zst_get32(b8) != WINENT_ZST_HEADER_MAGIC)
        return winent_zst_bad(f, winent_zst_get32(b8) == WINENT_ZST_FRAME_MAGIC
                          ? "a zstd stream without the winent-stream header"
                          : "no winent-stream header");
    l->jlen = winent_zst_get32(b8 + 4);
    if (l->jlen > WINENT_ZST_MAX_HEADER || l->jlen > f->size - sizeof b8)
        return winent_zst_bad(f, "the header frame is truncated");
    l->json = malloc(l->jlen + 1u);
    if (l->json == NULL)
        return winent_zst_oom(f);
    WINENT_TRY(winent_zst_read_at(f, l->json, l->jlen, sizeof b8));
    l->json[l->jlen] = '\0';
    l->header_end = sizeof b8 + (uint64_t)l->jlen;
    winent_zst_facts *h = &l->h;
    if (check_header_json(l->json, l->jlen, h) != 0 || !h->format_ok)
        return winent_zst_bad(f, "the header is not winent-stream JSON");
    /* Several maps: their list's length; the frames are theirs together. */
    const char *mv;
    size_t mn;
    int nmaps = 1;
    h->maps = 1;
    if (winent_json_member(l->json, l->jlen, "maps", &mv, &mn)) {
        if (!winent_json_item(mv, mn, -1, NULL, NULL, &nmaps) || nmaps < 1)
            return winent_zst_bad(f, "the header's list of maps is not a list of maps");
        h->maps = nmaps;
    }
    if (h->width < 1 || h->height < 1 || h->rows_per_frame < 1 || h->frames < 0 ||
        h->width > INT32_MAX || h->height > INT32_MAX ||
        h->frames != (h->height + h->rows_per_frame - 1) / h->rows_per_frame * h->maps)
        return winent_zst_bad(f, "the header's sizes do not add up");
    return WINENT_OK;
}

/* The seek table frame at the end of the file: its footer, its size, one
 * entry per frame of the header plus the header frame's own. */
winent_status winent_zst_read_table(winent_zst_file *f, winent_zst_layout *l)
{
    uint8_t foot[WINENT_ZST_FOOTER];
    if (f->size < l->header_end + WINENT_ZST_SKIP_HEADER + WINENT_ZST_FOOTER)
        return winent_zst_bad(f, "truncated (no seek table)");
    WINENT_TRY(winent_zst_read_at(f, foot, sizeof foot, f->size - sizeof foot));
    if (winent_zst_get32(foot + 5) != WINENT_ZST_SEEKABLE_MAGIC)
        return winent_zst_bad(f, "truncated (no seek table at the end)");
    if (foot[4] != WINENT_ZST_CHECKSUM_FLAG)
        return winent_zst_bad(f, "unexpected seek table descriptor");
    uint32_t nentries = winent_zst_get32(foot);
    if ((uint64_t)nentries != (uint64_t)l->h.frames + 1)
        return winent_zst_bad(f, "the seek table does not list the header's frames");
    uint64_t tsize =
        WINENT_ZST_SKIP_HEADER + (uint64_t)nentries * WINENT_ZST_ENTRY + WINENT_ZST_FOOTER;
    if (tsize > f->size - l->header_end)
        return winent_zst_bad(f, "the seek table is truncated");
    uint8_t *table = malloc((size_t)tsize);
    if (table == NULL)
        return winent_zst_oom(f);
    winent_status st = winent_zst_read_at(f, table, (size_t)tsize, f->size - tsize);
    if (st == WINENT_OK && (winent_zst_get32(table) != WINENT_ZST_SEEK_MAGIC ||
                            winent_zst_get32(table + 4) != tsize - WINENT_ZST_SKIP_HEADER))
        st = winent_zst_bad(f, "the seek table frame is damaged");
    if (st != WINENT_OK) {
        free(table);
        return st;
    }
    l->table = table;
    l->tsize = tsize;
    l->nentries = nentries;
    return WINENT_OK;
}
/* ---- values of the header's JSON ---------------------------------------- */

int winent_json_member(const char *obj, size_t n, const char *key, const char **v, size_t *vn)
{
    json_in j = {obj, obj + n, 0};
    size_t want = strlen(key);
    skip_ws(&j);
    if (j.p >= j.end || *j.p != '{')
        return 0;
    j.p++;
    for (;;) {
        const char *k;
        size_t klen;
        long long ignored;
        skip_ws(&j);
        if (j.p >= j.end || *j.p == '}' || parse_string(&j, &k, &klen) != 0)
            return 0;
        skip_ws(&j);
        if (j.p >= j.end || *j.p != ':')
            return 0;
        j.p++;
        skip_ws(&j);
        const char *start = j.p;
        if (parse_value(&j, &ignored) != 0)
            return 0;
        if (klen == want && memcmp(k, key, want) == 0) {
            *v = start;
            *vn = (size_t)(j.p - start);
            return 1;
        }
        skip_ws(&j);
        if (j.p >= j.end || *j.p != ',')
            return 0;
        j.p++;
    }
}

int winent_json_number(const char *v, size_t n, double *out)
{
    char buf[64];
    if (n == 5 && memcmp(v, "\"NaN\"", 5) == 0) {
        *out = NAN;
        return 1;
    }
    if (n == 10 && memcmp(v, "\"Infinity\"", 10) == 0) {
        *out = INFINITY;
        return 1;
    }
    if (n == 11 && memcmp(v, "\"-Infinity\"", 11) == 0) {
        *out = -INFINITY;
        return 1;
    }
    if (n == 0 || n >= sizeof buf || !(*v == '-' || (*v >= '0' && *v <= '9')))
        return 0;
    memcpy(buf, v, n);
    buf[n] = '\0';
    char *end;
    *out = strtod(buf, &end);
    return *end == '\0';
}

int winent_json_doubles(const char *v, size_t n, double *out, int max, int *count)
{
    json_in j = {v, v + n, 0};
    *count = 0;
    if (n == 0 || *v != '[')
        return 0;
    j.p++;
    skip_ws(&j);
    if (j.p < j.end && *j.p == ']')
        return 1;
    for (;;) {
        long long ignored;
        skip_ws(&j);
        const char *start = j.p;
        if (parse_value(&j, &ignored) != 0 || *count >= max ||
            !winent_json_number(start, (size_t)(j.p - start), &out[*count]))
            return 0;
        (*count)++;
        skip_ws(&j);
        if (j.p < j.end && *j.p == ']')
            return 1;
        if (j.p >= j.end || *j.p != ',')
            return 0;
        j.p++;
    }
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v = v * 16 + (c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10);
    }
    return v;
}

/* Append code point cp as UTF-8 at o. */
static char *put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xC0 | cp >> 6);
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xE0 | cp >> 12);
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (char)(0xF0 | cp >> 18);
        *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    }
    return o;
}

char *winent_json_string(const char *v, size_t n)
{
    json_in j = {v, v + n, 0};
    const char *s;
    size_t len;
    if (parse_string(&j, &s, &len) != 0)
        return NULL;
    /* Escapes never grow: \uXXXX (6 bytes) is at most 4 bytes of UTF-8, a
     * surrogate pair (12) at most 4. */
    char *out = malloc(len + 1), *o = out;
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < len;) {
        if (s[i] != '\\') {
            *o++ = s[i++];
            continue;
        }
        char e = s[i + 1];
        i += 2;
        switch (e) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'u': {
            uint32_t cp = (uint32_t)hex4(s + i);
            i += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= len && s[i] == '\\' && s[i + 1] == 'u') {
                uint32_t lo = (uint32_t)hex4(s + i + 2);
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
            }
            if ((cp >= 0xD800 && cp <= 0xDFFF) || cp == 0)
                cp = 0xFFFD; /* a lone surrogate, or a NUL that would cut the string */
            o = put_utf8(o, cp);
            break;
        }
        default: *o++ = e; break; /* \" \\ \/ */
        }
    }
    *o = '\0';
    return out;
}

int winent_json_item(const char *v, size_t n, int i, const char **iv, size_t *in, int *count)
{
    json_in j = {v, v + n, 0};
    int k = 0;
    if (n == 0 || *v != '[')
        return 0;
    j.p++;
    skip_ws(&j);
    if (j.p < j.end && *j.p == ']') {
        if (i < 0)
            *count = 0;
        return i < 0;
    }
    for (;; k++) {
        long long ignored;
        skip_ws(&j);
        const char *start = j.p;
        if (parse_value(&j, &ignored) != 0)
            return 0;
        if (k == i) {
            *iv = start;
            *in = (size_t)(j.p - start);
            return 1;
        }
        skip_ws(&j);
        if (j.p < j.end && *j.p == ']')
            break;
        if (j.p >= j.end || *j.p != ',')
            return 0;
        j.p++;
    }
    if (i < 0)
        *count = k + 1;
    return i < 0;
}
