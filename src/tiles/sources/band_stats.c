/* SPDX-License-Identifier: BSD-3-Clause */
/* A band's recorded statistics, from GDAL's metadata XML or a .aux.xml.
 * Both are small documents GDAL writes itself, so a tolerant scanner for
 * elements and their quoted attributes is enough: anything it does not
 * understand is "not found", and the caller then reads the pixels. */
#include "band_stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define AUX_MAX_BYTES ((long)16 << 20)

/* The value of attribute `name` inside the start tag [tag, end): copied
 * into out (cap bytes); 0 when absent. */
static int attribute(const char *tag, const char *end, const char *name, char *out, size_t cap)
{
    size_t n = strlen(name);
    for (const char *p = tag; p + n + 2 < end; p++) {
        if (memcmp(p, name, n) != 0 || (p > tag && p[-1] != ' ' && p[-1] != '\t' &&
                                        p[-1] != '\n' && p[-1] != '\r'))
            continue;
        const char *q = p + n;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        if (q >= end || *q != '=')
            continue;
        q++;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        if (q >= end || (*q != '"' && *q != '\''))
            continue;
        char quote = *q++;
        const char *v = q;
        while (q < end && *q != quote)
            q++;
        if (q >= end)
            return 0;
        size_t len = (size_t)(q - v);
        if (len >= cap)
            len = cap - 1;
        memcpy(out, v, len);
        out[len] = '\0';
        return 1;
    }
    return 0;
}

/* The next element <elem ...>content</elem> from *pos within [.., end):
 * its start tag in [*tag, *tag_end) and its content in [*body, *body_end).
 * 0 when there is none. */
static int next_element(const char **pos, const char *end, const char *elem, const char **tag,
                        const char **tag_end, const char **body, const char **body_end)
{
    size_t n = strlen(elem);
    char close[64];
    snprintf(close, sizeof close, "</%s>", elem);
    const char *p = *pos;
    for (;;) {
        p = memchr(p, '<', (size_t)(end - p));
        if (p == NULL || end - p < (long)n + 2)
            return 0;
        char after = p[1 + n];
        if (memcmp(p + 1, elem, n) == 0 && (after == ' ' || after == '>' || after == '\t' ||
                                            after == '\n' || after == '\r' || after == '/'))
            break;
        p++;
    }
    const char *gt = memchr(p, '>', (size_t)(end - p));
    if (gt == NULL)
        return 0;
    *tag = p + 1 + n;
    *tag_end = gt;
    if (gt[-1] == '/') { /* <elem/>: empty */
        *body = *body_end = gt + 1;
        *pos = gt + 1;
        return 1;
    }
    *body = gt + 1;
    const char *c = *body;
    size_t cn = strlen(close);
    for (;; c++) {
        c = memchr(c, '<', (size_t)(end - c));
        if (c == NULL || (size_t)(end - c) < cn)
            return 0;
        if (memcmp(c, close, cn) == 0)
            break;
    }
    *body_end = c;
    *pos = c + cn;
    return 1;
}

/* A number filling [s, e) but for white space; 0 when it is not one. */
static int number(const char *s, const char *e, double *v)
{
    char buf[64];
    while (s < e && (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t'))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\r' || e[-1] == '\t'))
        e--;
    if (e <= s || (size_t)(e - s) >= sizeof buf)
        return 0;
    memcpy(buf, s, (size_t)(e - s));
    buf[e - s] = '\0';
    char *end;
    errno = 0;
    *v = strtod(buf, &end);
    return *end == '\0' && errno != ERANGE && isfinite(*v);
}

static int is_yes(const char *s, const char *e)
{
    while (s < e && *s == ' ')
        s++;
    return e - s >= 3 && (s[0] == 'Y' || s[0] == 'y') && (s[1] == 'E' || s[1] == 'e') &&
           (s[2] == 'S' || s[2] == 's');
}

/* What both formats hold: one key's value at a time. */
typedef struct stats_found {
    int has_min, has_max, approximate;
    double min, max;
} stats_found;

static void take(stats_found *f, const char *key, const char *body, const char *body_end)
{
    if (strcmp(key, "STATISTICS_MINIMUM") == 0)
        f->has_min = number(body, body_end, &f->min);
    else if (strcmp(key, "STATISTICS_MAXIMUM") == 0)
        f->has_max = number(body, body_end, &f->max);
    else if (strcmp(key, "STATISTICS_APPROXIMATE") == 0)
        f->approximate = is_yes(body, body_end);
}

static int result(const stats_found *f, double *min, double *max)
{
    if (!f->has_min || !f->has_max || f->approximate || f->max < f->min)
        return 0;
    *min = f->min;
    *max = f->max;
    return 1;
}

int winent_stats_from_gdal_metadata(const char *xml, int band, double *min, double *max)
{
    if (xml == NULL || band < 1)
        return 0;
    const char *pos = xml, *end = xml + strlen(xml);
    const char *tag, *tag_end, *body, *body_end;
    stats_found f = {0};
    char want[16];
    snprintf(want, sizeof want, "%d", band - 1);
    while (next_element(&pos, end, "Item", &tag, &tag_end, &body, &body_end)) {
        char name[64], sample[16], role[64];
        if (!attribute(tag, tag_end, "name", name, sizeof name) ||
            !attribute(tag, tag_end, "sample", sample, sizeof sample) ||
            strcmp(sample, want) != 0)
            continue;
        /* Items with a role are band properties (offset, scale, ...). */
        if (attribute(tag, tag_end, "role", role, sizeof role) && role[0] != '\0')
            continue;
        take(&f, name, body, body_end);
    }
    return result(&f, min, max);
}

int winent_stats_from_aux_xml(const char *path, int band, double *min, double *max)
{
    if (path == NULL || band < 1)
        return 0;
    size_t n = strlen(path);
    char *name = malloc(n + sizeof ".aux.xml");
    if (name == NULL)
        return 0;
    memcpy(name, path, n);
    memcpy(name + n, ".aux.xml", sizeof ".aux.xml");
    FILE *fp = fopen(name, "rb");
    free(name);
    if (fp == NULL)
        return 0;
    char *text = NULL;
    int found = 0;
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        st.st_size > AUX_MAX_BYTES)
        goto out;
    text = malloc((size_t)st.st_size + 1);
    if (text == NULL || fread(text, 1, (size_t)st.st_size, fp) != (size_t)st.st_size)
        goto out;
    text[st.st_size] = '\0';
    {
        const char *pos = text, *end = text + st.st_size;
        const char *tag, *tag_end, *body, *body_end;
        char want[16];
        snprintf(want, sizeof want, "%d", band);
        while (next_element(&pos, end, "PAMRasterBand", &tag, &tag_end, &body, &body_end)) {
            char b[16];
            if (!attribute(tag, tag_end, "band", b, sizeof b) || strcmp(b, want) != 0)
                continue;
            stats_found f = {0};
            const char *mpos = body, *mend = body_end;
            const char *mtag, *mtag_end, *mbody, *mbody_end;
            while (next_element(&mpos, mend, "Metadata", &mtag, &mtag_end, &mbody, &mbody_end)) {
                char domain[64];
                /* The default domain only (others hold IMAGE_STRUCTURE, RPC, ...). */
                if (attribute(mtag, mtag_end, "domain", domain, sizeof domain) && domain[0])
                    continue;
                const char *ipos = mbody;
                const char *itag, *itag_end, *ibody, *ibody_end;
                while (next_element(&ipos, mbody_end, "MDI", &itag, &itag_end, &ibody,
                                    &ibody_end)) {
                    char key[64];
                    if (attribute(itag, itag_end, "key", key, sizeof key))
                        take(&f, key, ibody, ibody_end);
                }
            }
            found = result(&f, min, max);
            break;
        }
    }
out:
    free(text);
    fclose(fp);
    return found;
}
