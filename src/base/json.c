/* SPDX-License-Identifier: BSD-3-Clause */
/* JSON through cJSON: exact numbers, valid UTF-8, typed look-ups (json.h). */
#include "json.h"

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

cJSON *winent_json_parse(const char *text, size_t n)
{
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
