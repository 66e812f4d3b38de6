/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * footprint.c - reading --footprint FILE (footprint.h). The files are
 * small (255 x 255 at most), so the whole file is read at once; each
 * format's parser then fills the mask or says what is wrong, naming the
 * file.
 */
#include "footprint.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIDE_MAX 255
/* The largest file read: a .npy of 255 x 255 float64 and its header. */
#define FILE_MAX (SIDE_MAX * SIDE_MAX * 8 + 65536)

typedef struct fp_in {
    const char *path;
    const unsigned char *b;
    size_t len, pos;
    char *msg;
    size_t n;
} fp_in;

static winent_status bad(const fp_in *f, const char *fmt, ...)
{
    char why[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(f->msg, f->n, "--footprint: '%s': %s", f->path, why);
    return WINENT_ERR_USAGE;
}

static winent_status sides_ok(const fp_in *f, long w, long h)
{
    if (w < 1 || h < 1 || w > SIDE_MAX || h > SIDE_MAX)
        return bad(f, "a %ldx%ld footprint: give 1 to %d pixels a side", w, h, SIDE_MAX);
    return WINENT_OK;
}

/* ---- PBM (netpbm's P1 and P4) ----------------------------------------- */

/* Skip blanks and '#' comments. */
static void pbm_skip(fp_in *f)
{
    while (f->pos < f->len) {
        if (f->b[f->pos] == '#')
            while (f->pos < f->len && f->b[f->pos] != '\n')
                f->pos++;
        else if (isspace(f->b[f->pos]))
            f->pos++;
        else
            break;
    }
}

static int pbm_number(fp_in *f, long *v)
{
    pbm_skip(f);
    if (f->pos >= f->len || !isdigit(f->b[f->pos]))
        return -1;
    *v = 0;
    while (f->pos < f->len && isdigit(f->b[f->pos]) && *v < 100000)
        *v = *v * 10 + (f->b[f->pos++] - '0');
    return 0;
}

static winent_status read_pbm(fp_in *f, unsigned char **m, int *kx, int *ky)
{
    const int raw = f->b[1] == '4';
    long w, h;
    f->pos = 2;
    if (pbm_number(f, &w) || pbm_number(f, &h))
        return bad(f, "a PBM without its width and height");
    if (sides_ok(f, w, h) != WINENT_OK)
        return WINENT_ERR_USAGE;
    if ((*m = malloc((size_t)(w * h))) == NULL)
        return bad(f, "out of memory");
    if (raw) {
        f->pos++; /* the one blank after the height */
        const size_t row = (size_t)(w + 7) / 8;
        if (f->len < f->pos + row * (size_t)h)
            return bad(f, "a P4 PBM of %ldx%ld cut short", w, h);
        for (long r = 0; r < h; r++)
            for (long c = 0; c < w; c++)
                (*m)[r * w + c] = (f->b[f->pos + (size_t)r * row + (size_t)c / 8] >> (7 - c % 8)) & 1;
    } else {
        for (long i = 0; i < w * h; i++) {
            pbm_skip(f);
            if (f->pos >= f->len || (f->b[f->pos] != '0' && f->b[f->pos] != '1'))
                return bad(f, "a P1 PBM of %ldx%ld with %ld pixels of 0 or 1", w, h, i);
            (*m)[i] = f->b[f->pos++] == '1';
        }
    }
    *kx = (int)w;
    *ky = (int)h;
    return WINENT_OK;
}

/* ---- NumPy .npy ---------------------------------------------------------- */

/* The value of key `key` in the header's dict, e.g. 'descr': '|b1'. */
static const char *npy_value(const char *hdr, const char *key)
{
    const char *k = strstr(hdr, key);
    if (k == NULL)
        return NULL;
    k = strchr(k + strlen(key), ':');
    if (k == NULL)
        return NULL;
    for (k++; *k == ' '; k++)
        ;
    return k;
}

/* 1 when element `i` (of `size` bytes, kind 'b', 'u', 'i' or 'f') is nonzero. */
static int npy_nonzero(const unsigned char *p, char kind, int size)
{
    if (kind == 'f' && size == 4) {
        float v;
        memcpy(&v, p, 4);
        return v != 0.0f;
    }
    if (kind == 'f' && size == 8) {
        double v;
        memcpy(&v, p, 8);
        return v != 0.0;
    }
    for (int k = 0; k < size; k++)
        if (p[k])
            return 1;
    return 0;
}

static winent_status read_npy(fp_in *f, unsigned char **m, int *kx, int *ky)
{
    if (f->len < 10)
        return bad(f, "a .npy cut short");
    const int major = f->b[6];
    const size_t hl = major == 1 ? (size_t)f->b[8] | (size_t)f->b[9] << 8
                                 : (size_t)f->b[8] | (size_t)f->b[9] << 8 |
                                       (size_t)f->b[10] << 16 | (size_t)f->b[11] << 24;
    const size_t start = major == 1 ? 10 : 12;
    if (hl > 65536 || f->len < start + hl)
        return bad(f, "a .npy with a header cut short");
    char hdr[65537];
    memcpy(hdr, f->b + start, hl);
    hdr[hl] = '\0';
    const char *d = npy_value(hdr, "'descr'"), *fo = npy_value(hdr, "'fortran_order'");
    const char *sh = npy_value(hdr, "'shape'");
    char order = 0, kind = 0;
    int size = 0;
    long h = 0, w = 0;
    if (d == NULL || sh == NULL || sscanf(d, "'%c%c%d'", &order, &kind, &size) != 3 ||
        sscanf(sh, "(%ld, %ld)", &h, &w) != 2)
        return bad(f, "give a .npy of a 2-D array (shape (rows, cols))");
    if (strchr("bui", kind) == NULL && !(kind == 'f' && (size == 4 || size == 8)))
        return bad(f, "a .npy of '%c%d': give bool, an integer or a float array", kind, size);
    if ((order == '>' && size > 1) || (size != 1 && size != 2 && size != 4 && size != 8))
        return bad(f, "a big-endian or odd-sized .npy: save it as bool or uint8");
    if (sides_ok(f, w, h) != WINENT_OK)
        return WINENT_ERR_USAGE;
    const int fortran = fo != NULL && strncmp(fo, "True", 4) == 0;
    const size_t data = start + hl, cnt = (size_t)(w * h);
    if (f->len < data + cnt * (size_t)size)
        return bad(f, "a .npy of %ldx%ld cut short", w, h);
    if ((*m = malloc(cnt)) == NULL)
        return bad(f, "out of memory");
    for (long r = 0; r < h; r++)
        for (long c = 0; c < w; c++) {
            const size_t i = fortran ? (size_t)(c * h + r) : (size_t)(r * w + c);
            (*m)[r * w + c] = (unsigned char)npy_nonzero(f->b + data + i * (size_t)size, kind, size);
        }
    *kx = (int)w;
    *ky = (int)h;
    return WINENT_OK;
}

/* ---- Text: rows of 0 and 1 ----------------------------------------------- */

static winent_status read_text(fp_in *f, unsigned char **m, int *kx, int *ky)
{
    if ((*m = malloc(SIDE_MAX * SIDE_MAX)) == NULL)
        return bad(f, "out of memory");
    int w = 0, h = 0, line = 1;
    while (f->pos < f->len) {
        int c = 0;
        for (; f->pos < f->len && f->b[f->pos] != '\n'; f->pos++) {
            const unsigned char ch = f->b[f->pos];
            if (ch == '#') { /* a comment to the end of the line */
                while (f->pos + 1 < f->len && f->b[f->pos + 1] != '\n')
                    f->pos++;
            } else if (ch == '0' || ch == '1') {
                if (c >= SIDE_MAX || h >= SIDE_MAX)
                    return bad(f, "more than %d pixels a side", SIDE_MAX);
                (*m)[h * SIDE_MAX + c++] = ch == '1';
            } else if (!isspace(ch) && ch != ',') {
                return bad(f, "line %d: '%c': give rows of 0 and 1 (a PBM, a .npy or text)",
                           line, ch);
            }
        }
        f->pos++;
        line++;
        if (c == 0)
            continue; /* a blank or comment line */
        if (h > 0 && c != w)
            return bad(f, "line %d: %d pixels where the rows above have %d", line - 1, c, w);
        w = c;
        h++;
    }
    if (h == 0)
        return bad(f, "no rows of 0 and 1 in it");
    for (int r = 0; r < h; r++) /* pack the rows, SIDE_MAX apart, to w apart */
        memmove(*m + (size_t)r * (size_t)w, *m + (size_t)r * SIDE_MAX, (size_t)w);
    *kx = w;
    *ky = h;
    return WINENT_OK;
}

winent_status cli_read_footprint(const char *path, unsigned char **mask, int *kx, int *ky,
                                 char *msg, size_t n)
{
    fp_in f = {path, NULL, 0, 0, msg, n};
    *mask = NULL;
    FILE *fh = fopen(path, "rb");
    if (fh == NULL)
        return bad(&f, "%s", strerror(errno));
    unsigned char *buf = malloc(FILE_MAX + 1);
    size_t len = buf ? fread(buf, 1, FILE_MAX + 1, fh) : 0;
    const int err = buf == NULL || ferror(fh);
    fclose(fh);
    winent_status st;
    if (err)
        st = bad(&f, "cannot read it");
    else if (len > FILE_MAX)
        st = bad(&f, "larger than a 255x255 footprint can be");
    else {
        f.b = buf;
        f.len = len;
        if (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0)
            st = read_npy(&f, mask, kx, ky);
        else if (len >= 2 && buf[0] == 'P' && (buf[1] == '1' || buf[1] == '4'))
            st = read_pbm(&f, mask, kx, ky);
        else
            st = read_text(&f, mask, kx, ky);
    }
    free(buf);
    if (st != WINENT_OK) {
        free(*mask);
        *mask = NULL;
    }
    return st;
}

int cli_footprint_shape(const unsigned char *mask, int kx, int ky)
{
    if (kx % 2 == 0 || ky % 2 == 0)
        return 2;
    int ones = 1, disk = kx == ky;
    const int r = kx / 2;
    for (int y = 0; y < ky; y++)
        for (int x = 0; x < kx; x++) {
            const int on = mask[(size_t)y * (size_t)kx + (size_t)x] != 0;
            const int dx = x - r, dy = y - r;
            ones &= on;
            disk &= on == (dx * dx + dy * dy <= r * r);
        }
    return ones ? 0 : disk ? 1 : 2;
}
