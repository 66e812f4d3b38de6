/* SPDX-License-Identifier: BSD-3-Clause */
#include "werr.h"

#include <stdio.h>
#include <string.h>

void winent_err_clear(winent_err *e)
{
    e->status = WINENT_OK;
    e->msg[0] = '\0';
    e->file = NULL;
    e->line = 0;
}

winent_status winent_err_vset_at(winent_err *e, const char *file, int line, winent_status st,
                                 const char *fmt, va_list ap)
{
    if (e == NULL || e->status != WINENT_OK)
        return st;
    e->status = st;
    e->file = file;
    e->line = line;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    winent_one_line(e->msg);
    return st;
}

void winent_one_line(char *msg)
{
    const unsigned char *r = (const unsigned char *)msg;
    unsigned char *w = (unsigned char *)msg;
    while (*r) {
        /* Every control character (a vertical tab or form feed ends a line
         * too, an escape sequence moves the terminal's cursor), and
         * Unicode's line breaks in UTF-8: NEL (C2 85), LINE and PARAGRAPH
         * SEPARATOR (E2 80 A8/A9); each one space. */
        size_t n = *r < 0x20 || *r == 0x7f                                          ? 1
                   : r[0] == 0xc2 && r[1] == 0x85                                   ? 2
                   : r[0] == 0xe2 && r[1] == 0x80 && (r[2] == 0xa8 || r[2] == 0xa9) ? 3
                                                                                    : 0;
        if (n) {
            *w++ = ' ';
            r += n;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
}

winent_status winent_err_set_at(winent_err *e, const char *file, int line, winent_status st,
                                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    winent_err_vset_at(e, file, line, st, fmt, ap);
    va_end(ap);
    return st;
}

void winent_err_merge(winent_err *dst, const winent_err *src)
{
    if (dst->status == WINENT_OK && src->status != WINENT_OK)
        *dst = *src;
}

void winent_error_clear(winent_error *out)
{
    if (out == NULL)
        return;
    out->status = WINENT_OK;
    out->message[0] = '\0';
}

winent_status winent_err_export(const winent_err *e, winent_status st, winent_error *out)
{
    if (out == NULL)
        return st;
    winent_error_clear(out);
    if (st == WINENT_OK)
        return st;
    out->status = st;
    if (e != NULL && e->status != WINENT_OK && e->msg[0] != '\0')
        snprintf(out->message, sizeof out->message, "%s", e->msg);
    else
        snprintf(out->message, sizeof out->message, "%s", winent_status_name(st));
    return st;
}

winent_status winent_err_null(winent_error *out, const char *func, const char *arg)
{
    winent_err e;
    winent_err_clear(&e);
    return winent_err_export(&e, WINENT_ERR(&e, WINENT_ERR_USAGE, "%s: %s is NULL", func, arg),
                             out);
}

/* The length of the valid UTF-8 character at `r` (1 to 4), or 0. */
static size_t utf8_char(const unsigned char *r)
{
    if (r[0] < 0x80)
        return 1;
    size_t n = r[0] >= 0xc2 && r[0] <= 0xdf ? 2 : r[0] >= 0xe0 && r[0] <= 0xef ? 3
               : r[0] >= 0xf0 && r[0] <= 0xf4                                 ? 4
                                                                              : 0;
    for (size_t i = 1; i < n; i++)
        if ((r[i] & 0xc0) != 0x80)
            return 0;
    /* Overlong forms, surrogates, beyond U+10FFFF. */
    if ((r[0] == 0xe0 && r[1] < 0xa0) || (r[0] == 0xed && r[1] > 0x9f) ||
        (r[0] == 0xf0 && r[1] < 0x90) || (r[0] == 0xf4 && r[1] > 0x8f))
        return 0;
    return n;
}

void winent_quote_text(const char *s, size_t max, char *out, size_t cap)
{
    const unsigned char *r = (const unsigned char *)s;
    size_t used = 0, w = 0;
    if (cap == 0)
        return;
    while (*r) {
        size_t n = utf8_char(r);
        const int escape = n == 0 || *r < 0x20 || *r == 0x7f || (r[0] == 0xc2 && r[1] < 0xa0) ||
                           (r[0] == 0xe2 && r[1] == 0x80 && (r[2] == 0xa8 || r[2] == 0xa9));
        const size_t take = escape && n == 0 ? 1 : n, width = escape ? 4 * take : take;
        if (used + take > max) {
            if (w + 3 < cap)
                memcpy(out + w, "...", 3), w += 3;
            break;
        }
        if (w + width >= cap)
            break;
        for (size_t i = 0; i < take; i++) {
            if (escape)
                w += (size_t)snprintf(out + w, cap - w, "\\x%02X", r[i]);
            else
                out[w++] = (char)r[i];
        }
        used += take;
        r += take;
    }
    out[w] = '\0';
}
