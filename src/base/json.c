/* SPDX-License-Identifier: BSD-3-Clause */
/* JSON through cJSON: exact numbers, valid UTF-8, typed look-ups (json.h). */
#include "json.h"

#include <ctype.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- UTF-8 ------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid.
 * Overlong forms, surrogates and code points past U+10FFFF are invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    uint32_t cp, min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

static int utf8_valid(const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t k = utf8_len((const unsigned char *)s + i, n - i);
        if (k == 0)
            return 0;
        i += k;
    }
    return 1;
}

/* ---- making trees ------------------------------------------------------ */

/* printf's decimal point is the locale's (LC_NUMERIC); JSON's is '.'. */
static void dot_decimal_point(char *buf)
{
    const char *dp = localeconv()->decimal_point;
    if (dp == NULL || dp[0] == '.' || dp[0] == '\0' || dp[1] != '\0')
        return; /* '.', or a multi-byte point no locale of ours has */
    for (char *p = buf; *p; p++)
        if (*p == dp[0])
            *p = '.';
}

cJSON *winent_json_number(double v)
{
    char buf[40];
    if (isnan(v))
        return cJSON_CreateString("NaN");
    if (isinf(v))
        return cJSON_CreateString(v > 0 ? "Infinity" : "-Infinity");
    /* %g drops trailing zeros, so the first precision that reads back is
     * the shortest text; 17 significant digits always do (IEEE 754). */
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (prec == 17 || strtod(buf, NULL) == v)
            break;
    }
    dot_decimal_point(buf);
    return cJSON_CreateRaw(buf);
}

cJSON *winent_json_fixed(double v, int decimals)
{
    char buf[64];
    if (!isfinite(v) || fabs(v) > 1e30)
        return cJSON_CreateNull();
    snprintf(buf, sizeof buf, "%.*f", decimals, v);
    dot_decimal_point(buf);
    return cJSON_CreateRaw(buf);
}

cJSON *winent_json_integer(long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    return cJSON_CreateRaw(buf);
}

cJSON *winent_json_text(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    if (utf8_valid(s))
        return cJSON_CreateString(s);
    /* Each bad byte (1 byte) becomes U+FFFD (3 bytes). */
    char *clean = malloc(3 * n + 1), *o = clean;
    if (clean == NULL)
        return NULL;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_len(p + i, n - i);
        if (k == 0) {
            memcpy(o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        } else {
            memcpy(o, p + i, k);
            o += k;
            i += k;
        }
    }
    *o = '\0';
    cJSON *item = cJSON_CreateString(clean);
    free(clean);
    return item;
}

cJSON *winent_json_numbers(const double *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    int bad = a == NULL;
    for (int i = 0; i < n && !bad; i++)
        bad = winent_json_put(a, NULL, winent_json_number(v[i]));
    if (bad) {
        cJSON_Delete(a);
        return NULL;
    }
    return a;
}

int winent_json_put(cJSON *obj, const char *key, cJSON *item)
{
    if (item == NULL || obj == NULL) {
        cJSON_Delete(item);
        return -1;
    }
    cJSON_bool ok =
        key ? cJSON_AddItemToObject(obj, key, item) : cJSON_AddItemToArray(obj, item);
    if (!ok) {
        cJSON_Delete(item);
        return -1;
    }
    return 0;
}

char *winent_json_print(const cJSON *tree, int formatted)
{
    return formatted ? cJSON_Print(tree) : cJSON_PrintUnformatted(tree);
}

int winent_json_exact_numbers(cJSON *tree)
{
    for (cJSON *c = tree ? tree->child : NULL, *next; c; c = next) {
        next = c->next;
        if (cJSON_IsArray(c) || cJSON_IsObject(c)) {
            if (winent_json_exact_numbers(c) != 0)
                return -1;
            continue;
        }
        if (!cJSON_IsNumber(c))
            continue;
        cJSON *exact = winent_json_number(c->valuedouble);
        if (exact == NULL)
            return -1;
        /* The member's key moves to its replacement (both allocated by
         * cJSON's hooks, which are never changed). */
        exact->string = c->string;
        c->string = NULL;
        cJSON_ReplaceItemViaPointer(tree, c, exact);
    }
    return 0;
}

/* ---- reading ---------------------------------------------------------- */

static int strings_valid(const cJSON *tree)
{
    for (const cJSON *c = tree; c; c = c->next) {
        if (c->string && !utf8_valid(c->string))
            return 0;
        if (cJSON_IsString(c) && !utf8_valid(c->valuestring))
            return 0;
        if (c->child && !strings_valid(c->child))
            return 0;
    }
    return 1;
}

/* RFC 8259's grammar, which cJSON reads more loosely (it takes 037, 1.,
 * control characters inside strings): a reader held to the standard (as
 * Python's json is) must see the same text as valid or not. Also refused:
 * a "\u0000" escape (cJSON would end the string there, another reader
 * would not) and nesting deeper than JSON_DEPTH_MAX. `p` moves past the
 * value; 0 when it is not one. */
#define JSON_DEPTH_MAX 64

typedef struct strict_text {
    const char *p, *end;
} strict_text;

static void strict_ws(strict_text *t)
{
    while (t->p < t->end && (*t->p == ' ' || *t->p == '\t' || *t->p == '\n' || *t->p == '\r'))
        t->p++;
}

static int strict_digits(strict_text *t)
{
    const char *start = t->p;
    while (t->p < t->end && *t->p >= '0' && *t->p <= '9')
        t->p++;
    return t->p > start;
}

static int strict_number(strict_text *t)
{
    if (t->p < t->end && *t->p == '-')
        t->p++;
    if (t->p < t->end && *t->p == '0')
        t->p++;
    else if (!(t->p < t->end && *t->p >= '1' && *t->p <= '9') || !strict_digits(t))
        return 0;
    if (t->p < t->end && *t->p == '.') {
        t->p++;
        if (!strict_digits(t))
            return 0;
    }
    if (t->p < t->end && (*t->p == 'e' || *t->p == 'E')) {
        t->p++;
        if (t->p < t->end && (*t->p == '+' || *t->p == '-'))
            t->p++;
        if (!strict_digits(t))
            return 0;
    }
    return 1;
}

static int strict_string(strict_text *t)
{
    t->p++; /* the opening quote */
    while (t->p < t->end) {
        unsigned char c = (unsigned char)*t->p++;
        if (c == '"')
            return 1;
        if (c < 0x20)
            return 0;
        if (c != '\\')
            continue;
        if (t->p >= t->end)
            return 0;
        c = (unsigned char)*t->p++;
        if (c == 'u') {
            if (t->end - t->p < 4 || strncmp(t->p, "0000", 4) == 0)
                return 0;
            for (int i = 0; i < 4; i++, t->p++)
                if (!isxdigit((unsigned char)*t->p))
                    return 0;
        } else if (!strchr("\"\\/bfnrt", c) || c == '\0') {
            return 0;
        }
    }
    return 0;
}

static int strict_word(strict_text *t, const char *w)
{
    size_t k = strlen(w);
    if ((size_t)(t->end - t->p) < k || strncmp(t->p, w, k) != 0)
        return 0;
    t->p += k;
    return 1;
}

static int strict_value(strict_text *t, int depth)
{
    strict_ws(t);
    if (t->p >= t->end || depth >= JSON_DEPTH_MAX)
        return 0;
    const char open = *t->p;
    if (open == '"')
        return strict_string(t);
    if (open == 't')
        return strict_word(t, "true");
    if (open == 'f')
        return strict_word(t, "false");
    if (open == 'n')
        return strict_word(t, "null");
    if (open != '{' && open != '[')
        return strict_number(t);
    const char close = open == '{' ? '}' : ']';
    t->p++;
    strict_ws(t);
    if (t->p < t->end && *t->p == close) {
        t->p++;
        return 1;
    }
    for (;;) {
        if (open == '{') {
            strict_ws(t);
            if (t->p >= t->end || *t->p != '"' || !strict_string(t))
                return 0;
            strict_ws(t);
            if (t->p >= t->end || *t->p++ != ':')
                return 0;
        }
        if (!strict_value(t, depth + 1))
            return 0;
        strict_ws(t);
        if (t->p >= t->end)
            return 0;
        const char c = *t->p++;
        if (c == close)
            return 1;
        if (c != ',')
            return 0;
    }
}

static int strict_json(const char *text, size_t n)
{
    strict_text t = {text, text + n};
    if (!strict_value(&t, 0))
        return 0;
    strict_ws(&t);
    return t.p == t.end;
}

cJSON *winent_json_parse(const char *text, size_t n)
{
    if (!strict_json(text, n))
        return NULL;
    const char *end = NULL;
    cJSON *tree = cJSON_ParseWithLengthOpts(text, n, &end, 0);
    if (tree == NULL)
        return NULL;
    while (end < text + n && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
        end++;
    if (end != text + n || !strings_valid(tree)) {
        cJSON_Delete(tree);
        return NULL;
    }
    return tree;
}

const cJSON *winent_json_get(const cJSON *obj, const char *key)
{
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

int winent_json_get_double(const cJSON *item, double *out)
{
    if (cJSON_IsNumber(item)) {
        *out = item->valuedouble;
        return 1;
    }
    if (winent_json_is_text(item, "NaN"))
        *out = NAN;
    else if (winent_json_is_text(item, "Infinity"))
        *out = INFINITY;
    else if (winent_json_is_text(item, "-Infinity"))
        *out = -INFINITY;
    else
        return 0;
    return 1;
}

int winent_json_get_integer(const cJSON *item, long long lo, long long hi, long long *out)
{
    if (!cJSON_IsNumber(item))
        return 0;
    double d = item->valuedouble;
    if (!(d >= (double)lo && d <= (double)hi) || d != floor(d))
        return 0;
    *out = (long long)d;
    return 1;
}

int winent_json_get_doubles(const cJSON *item, double *out, int max, int *count)
{
    *count = 0;
    if (!cJSON_IsArray(item))
        return 0;
    for (const cJSON *c = item->child; c; c = c->next) {
        if (*count >= max || !winent_json_get_double(c, &out[*count]))
            return 0;
        (*count)++;
    }
    return 1;
}

int winent_json_is_text(const cJSON *item, const char *s)
{
    return cJSON_IsString(item) && strcmp(item->valuestring, s) == 0;
}
