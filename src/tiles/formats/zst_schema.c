/* SPDX-License-Identifier: BSD-3-Clause */
/* The schema of a .zst header (zst_schema.h): one table of members, read
 * by one walker. The writer (sink_zst.c) makes exactly these members; a
 * reader takes them in any order, with any white space, and ignores those
 * it does not know. docs/FORMATS.md says the same for users: keep the two
 * in step. */
#include "zst_schema.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "out_sample.h"
#include "zst_format.h"

typedef enum member_kind {
    K_INT,     /* a whole number in [lo, hi] */
    K_WORD,    /* one of the texts `words` */
    K_TEXT,    /* any text */
    K_NUMBER,  /* a number, or "NaN", "Infinity", "-Infinity" */
    K_WINDOW,  /* [KX, KY]: whole numbers from 1 to 255 (a disk's odd: 2R+1) */
    K_RANGE,   /* [LO, HI]: finite numbers, LO < HI */
    K_NUMBERS, /* an array of numbers (as K_NUMBER): `hi` of them, any count for 0 */
    K_INTS,    /* an array of whole numbers in [lo, hi] */
    K_OBJECT,  /* an object of the members `sub` */
    K_MAPS,    /* an array of one or more objects of the members `sub` */
    K_CODE,    /* one of the texts `words`, or a whole number in [lo, hi] */
    K_FINITE,  /* a finite number */
} member_kind;

#define REQUIRED 1 /* the member must be there */
#define NULLABLE 2 /* null is allowed (and means "none") */

typedef struct member {
    const char *key;
    member_kind kind;
    int flags;
    long long lo, hi;
    const char *const *words; /* K_WORD: NULL-terminated */
    const struct member *sub; /* K_OBJECT, K_MAPS: {NULL}-terminated */
    const char *what;         /* what it must be, for the message */
} member;

static const char *const format_words[] = {WINENT_ZST_FORMAT_NAME, NULL};
static const char *const sample_words[] = {"float32", "float16", "uint16", "uint8", NULL};
static const char *const little_words[] = {"little", NULL};
static const char *const base_words[] = {"e", "2", "10", NULL};
static const char *const nan_words[] = {"NaN", NULL};
static const char *const dtype_words[] = {"u8",  "i8",  "u16", "i16", "u32",
                                          "i32", "f32", "f64", NULL};

#define INT32_TOP 2147483647LL

/* "georef": the GeoTIFF tags the input had, and GDAL's geotransform. */
static const member georef_members[] = {
    {"geotransform", K_NUMBERS, 0, 0, 6, NULL, NULL, "an array of 6 numbers"},
    {"epsg", K_INT, 0, 1, INT32_TOP, NULL, NULL, "a whole number from 1 to 2147483647"},
    {"crs", K_TEXT, 0, 0, 0, NULL, NULL, "a text"},
    {"geokeys", K_INTS, 0, 0, 65535, NULL, NULL, "an array of whole numbers from 0 to 65535"},
    {"geodoubles", K_NUMBERS, 0, 0, 0, NULL, NULL, "an array of numbers"},
    {"geoascii", K_TEXT, 0, 0, 0, NULL, NULL, "a text"},
    {"tiepoints", K_NUMBERS, 0, 0, 0, NULL, NULL, "an array of numbers"},
    {"pixel_scale", K_NUMBERS, 0, 0, 0, NULL, NULL, "an array of numbers"},
    {"transform", K_NUMBERS, 0, 0, 0, NULL, NULL, "an array of numbers"},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL},
};

/* One entry of "maps" (a file of several maps). */
static const member map_members[] = {
    {"band", K_INT, NULLABLE, 1, 65535, NULL, NULL, "a band number from 1 to 65535"},
    {"window", K_WINDOW, REQUIRED, 0, 0, NULL, NULL, "[KX, KY] of sides from 1 to 255"},
    {"disk", K_INT, NULLABLE, 0, 127, NULL, NULL, "a radius from 0 to 127"},
    {"footprint", K_TEXT, NULLABLE, 0, 0, NULL, NULL, "rows of 0 and 1 joined by '/'"},
    {"range", K_RANGE, NULLABLE, 0, 0, NULL, NULL, "[LO, HI] of finite numbers with LO < HI"},
    {"nodata", K_NUMBER, NULLABLE, 0, 0, NULL, NULL, "a number"},
    {"first_frame", K_INT, REQUIRED, 0, WINENT_ZST_MAX_FRAMES, NULL, NULL, "the map's first frame"},
    {"frames", K_INT, REQUIRED, 0, WINENT_ZST_MAX_FRAMES, NULL, NULL, "the map's frame count"},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL},
};

/* The header: docs/SPEC.md section 4 "The .zst file", docs/FORMATS.md. */
static const member header_members[] = {
    {"format", K_WORD, REQUIRED, 0, 0, format_words, NULL, "\"" WINENT_ZST_FORMAT_NAME "\""},
    {"width", K_INT, REQUIRED, 1, INT32_TOP, NULL, NULL, "a whole number from 1 to 2147483647"},
    {"height", K_INT, REQUIRED, 1, INT32_TOP, NULL, NULL, "a whole number from 1 to 2147483647"},
    {"dtype", K_WORD, 0, 0, 0, sample_words, NULL,
     "\"float32\", \"float16\", \"uint16\" or \"uint8\""},
    {"byteorder", K_WORD, 0, 0, 0, little_words, NULL, "\"little\""},
    {"window", K_WINDOW, 0, 0, 0, NULL, NULL, "[KX, KY] of sides from 1 to 255"},
    {"disk", K_INT, NULLABLE, 0, 127, NULL, NULL, "a radius from 0 to 127"},
    {"footprint", K_TEXT, NULLABLE, 0, 0, NULL, NULL, "rows of 0 and 1 joined by '/'"},
    {"base", K_WORD, 0, 0, 0, base_words, NULL, "\"e\", \"2\" or \"10\""},
    {"bins", K_INT, NULLABLE, 1, 1LL << 30, NULL, NULL, "a whole number from 1 to 1073741824"},
    {"range", K_RANGE, NULLABLE, 0, 0, NULL, NULL, "[LO, HI] of finite numbers with LO < HI"},
    {"nodata", K_NUMBER, NULLABLE, 0, 0, NULL, NULL, "a number"},
    {"output_nodata", K_CODE, NULLABLE, 0, 65535, nan_words, NULL,
     "\"NaN\" or a code from 0 to 65535"},
    {"scale", K_FINITE, 0, 0, 0, NULL, NULL, "a finite number"},
    {"offset", K_FINITE, 0, 0, 0, NULL, NULL, "a finite number"},
    {"rows_per_frame", K_INT, REQUIRED, 1, INT32_TOP, NULL, NULL,
     "a whole number from 1 to 2147483647"},
    {"frames", K_INT, REQUIRED, 0, WINENT_ZST_MAX_FRAMES, NULL, NULL,
     "a whole number from 0 to 134217728"},
    {"source", K_TEXT, 0, 0, 0, NULL, NULL, "a text"},
    {"source_band", K_INT, NULLABLE, 1, 65535, NULL, NULL, "a band number from 1 to 65535"},
    {"source_dtype", K_WORD, NULLABLE, 0, 0, dtype_words, NULL,
     "one of u8, i8, u16, i16, u32, i32, f32, f64"},
    {"command_line", K_TEXT, NULLABLE, 0, 0, NULL, NULL, "a text"},
    {"version", K_TEXT, 0, 0, 0, NULL, NULL, "a text"},
    {"georef", K_OBJECT, 0, 0, 0, NULL, georef_members, "an object"},
    {"maps", K_MAPS, 0, 0, 0, NULL, map_members, "a list of one or more objects"},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL},
};

/* ---- the walker ------------------------------------------------------- */

static int is_word(const cJSON *v, const char *const *words)
{
    for (; *words; words++)
        if (winent_json_is_text(v, *words))
            return 1;
    return 0;
}

static int is_number(const cJSON *v)
{
    double d;
    return winent_json_get_double(v, &d);
}

/* An array of numbers of `count` items (0: any), each passing `ok`. */
static int is_array_of(const cJSON *v, int count, int (*ok)(const cJSON *, long long, long long),
                       long long lo, long long hi)
{
    if (!cJSON_IsArray(v))
        return 0;
    int n = 0;
    for (const cJSON *c = v->child; c; c = c->next, n++)
        if (!ok(c, lo, hi))
            return 0;
    return count == 0 || n == count;
}

static int any_number(const cJSON *v, long long lo, long long hi)
{
    (void)lo;
    (void)hi;
    return is_number(v);
}

static int int_in(const cJSON *v, long long lo, long long hi)
{
    long long k;
    return winent_json_get_integer(v, lo, hi, &k);
}

/* A window's sides are any from 1 to 255 (the schema's); a footprint
 * given is their rows of 0 and 1, joined by '/', with a 1 in it. 0, or -1
 * with why. */
static int window_check(const cJSON *o, const char *whose, char *why, size_t n)
{
    double w[2];
    int count;
    if (o == NULL || !winent_json_get_doubles(winent_json_get(o, "window"), w, 2, &count) ||
        count != 2)
        return 0; /* no window: nothing to check (its absence is the schema's) */
    const cJSON *fp = winent_json_get(o, "footprint");
    if (fp == NULL || cJSON_IsNull(fp))
        return 0;
    const char *t = cJSON_GetStringValue(fp);
    int rows = 0, col = 0, ones = 0, bad = t == NULL;
    for (const char *c = t; !bad; c++) {
        if (*c == '/' || *c == '\0') {
            bad = col != (int)w[0];
            rows++;
            col = 0;
            if (*c == '\0')
                break;
        } else {
            bad = *c != '0' && *c != '1';
            ones += *c == '1';
            col++;
        }
    }
    if (bad || rows != (int)w[1] || ones == 0) {
        snprintf(why, n, "the header's %s\"footprint\" is not %g rows of %g 0s and 1s", whose,
                 w[1], w[0]);
        return -1;
    }
    return 0;
}

static int is_range(const cJSON *v)
{
    double d[2];
    int count;
    return winent_json_get_doubles(v, d, 2, &count) && count == 2 && isfinite(d[0]) &&
           isfinite(d[1]) && d[0] < d[1];
}

static int object_check(const cJSON *obj, const member *members, const char *where, char *why,
                        size_t n);

/* Whether `v` is what `m` says (null already handled). */
static int value_check(const cJSON *v, const member *m, char *why, size_t n)
{
    switch (m->kind) {
    case K_WORD: return is_word(v, m->words);
    case K_CODE: return is_word(v, m->words) || int_in(v, m->lo, m->hi);
    case K_FINITE: {
        double d;
        return cJSON_IsNumber(v) && winent_json_get_double(v, &d) && isfinite(d);
    }
    case K_INT: return int_in(v, m->lo, m->hi);
    case K_TEXT: return cJSON_IsString(v);
    case K_NUMBER: return is_number(v);
    case K_WINDOW: return is_array_of(v, 2, int_in, 1, 255);
    case K_RANGE: return is_range(v);
    case K_NUMBERS: return is_array_of(v, (int)m->hi, any_number, 0, 0);
    case K_INTS: return is_array_of(v, 0, int_in, m->lo, m->hi);
    case K_OBJECT:
        if (!cJSON_IsObject(v))
            return 0;
        return object_check(v, m->sub, m->key, why, n) == 0 ? 1 : -1;
    case K_MAPS: {
        if (!cJSON_IsArray(v) || v->child == NULL)
            return 0;
        int i = 0;
        char at[48];
        for (const cJSON *c = v->child; c; c = c->next, i++) {
            snprintf(at, sizeof at, "%s[%d]", m->key, i);
            if (!cJSON_IsObject(c)) {
                snprintf(why, n, "the header's %s is not an object", at);
                return -1;
            }
            if (object_check(c, m->sub, at, why, n) != 0)
                return -1;
        }
        return 1;
    }
    }
    return 0;
}

/* Every member of `obj` the table knows, as the table says; none twice.
 * `where` names the object in messages ("" for the header itself). */
static int object_check(const cJSON *obj, const member *members, const char *where, char *why,
                        size_t n)
{
    char in[64] = "";
    if (where[0] != '\0')
        snprintf(in, sizeof in, "%s.", where);
    for (const cJSON *c = obj->child; c; c = c->next)
        for (const cJSON *d = c->next; d; d = d->next)
            if (c->string && d->string && strcmp(c->string, d->string) == 0) {
                snprintf(why, n, "the header gives %s\"%s\" twice", in, c->string);
                return -1;
            }
    for (const member *m = members; m->key; m++) {
        const cJSON *v = winent_json_get(obj, m->key);
        if (v == NULL) {
            if (m->flags & REQUIRED) {
                snprintf(why, n, "the header has no %s\"%s\"", in, m->key);
                return -1;
            }
            continue;
        }
        if (cJSON_IsNull(v) && (m->flags & NULLABLE))
            continue;
        int ok = value_check(v, m, why, n);
        if (ok < 0)
            return -1;
        if (!ok) {
            snprintf(why, n, "the header's %s\"%s\" is not %s%s", in, m->key, m->what,
                     m->flags & NULLABLE ? ", or null" : "");
            return -1;
        }
    }
    return 0;
}

/* ---- the facts that tie members together ------------------------------ */

static long long integer_of(const cJSON *obj, const char *key)
{
    long long k;
    return winent_json_get_integer(winent_json_get(obj, key), 0, INT64_MAX / 2, &k) ? k : -1;
}

int winent_zst_header_check(const cJSON *root, winent_zst_facts *f, char *why, size_t n)
{
    memset(f, 0, sizeof *f);
    if (!cJSON_IsObject(root) ||
        !winent_json_is_text(winent_json_get(root, "format"), WINENT_ZST_FORMAT_NAME)) {
        snprintf(why, n, "the header is not winent-stream JSON");
        return -1;
    }
    if (object_check(root, header_members, "", why, n) != 0)
        return -1;
    f->width = integer_of(root, "width");
    f->height = integer_of(root, "height");
    f->rows_per_frame = integer_of(root, "rows_per_frame");
    f->frames = integer_of(root, "frames");
    const cJSON *maps = winent_json_get(root, "maps");
    f->maps = maps ? cJSON_GetArraySize(maps) : 1;

    /* The samples (--ot): float32 unless "dtype" names another type; integer
     * codes need their positive scale. */
    const cJSON *dtype = winent_json_get(root, "dtype");
    winent_out_type ot = WINENT_OT_FLOAT32;
    if (dtype != NULL)
        winent_out_type_parse(dtype->valuestring, &ot);
    winent_out_sample q;
    winent_out_sample_init(&q, ot, 0.0);
    f->sample_bytes = q.bytes;
    double scale;
    if (q.is_int &&
        !(winent_json_get_double(winent_json_get(root, "scale"), &scale) && scale > 0.0)) {
        snprintf(why, n, "the header's \"scale\" of a %s map is not a positive number",
                 winent_out_type_name(ot));
        return -1;
    }
    /* A map's "no value" code: NaN in floats, the type's nodata code in
     * integers. */
    const cJSON *outnd = winent_json_get(root, "output_nodata");
    if (outnd != NULL && cJSON_IsNumber(outnd) &&
        (!q.is_int || integer_of(root, "output_nodata") != (long long)q.nodata_code)) {
        snprintf(why, n, "the header's \"output_nodata\" is not the nodata code of %s samples",
                 winent_out_type_name(ot));
        return -1;
    }
    if (outnd != NULL && cJSON_IsString(outnd) && q.is_int) {
        snprintf(why, n, "the header's \"output_nodata\" of %s samples is not their code",
                 winent_out_type_name(ot));
        return -1;
    }
    for (int k = -1; k < (int)f->maps; k++)
        if (window_check(k < 0 ? root : cJSON_GetArrayItem(winent_json_get(root, "maps"), k),
                         k < 0 ? "" : "map's ", why, n) != 0)
            return -1;
    /* A disk's window is its diameter, 2R + 1, square. */
    for (int k = -1; k < (int)f->maps; k++) {
        const cJSON *o = k < 0 ? root : cJSON_GetArrayItem(winent_json_get(root, "maps"), k);
        const cJSON *disk = o ? winent_json_get(o, "disk") : NULL;
        double w[2];
        int count;
        if (disk == NULL || cJSON_IsNull(disk))
            continue;
        if (!winent_json_get_doubles(winent_json_get(o, "window"), w, 2, &count) || count != 2 ||
            w[0] != w[1] || w[0] != 2.0 * (double)integer_of(o, "disk") + 1.0) {
            snprintf(why, n, "the header's %s\"disk\" is not half its window", k < 0 ? "" : "map's ");
            return -1;
        }
    }

    /* The frames cut every map alike, each at most the largest frame the
     * writer makes (the seek table holds its size in 32 bits). */
    const long long per_map = (f->height + f->rows_per_frame - 1) / f->rows_per_frame;
    const long long frame_rows = f->rows_per_frame < f->height ? f->rows_per_frame : f->height;
    if (f->frames != per_map * f->maps) {
        snprintf(why, n,
                 "the header's sizes do not add up (%lld frames of %lld rows for %lld "
                 "map%s of %lld rows)",
                 f->frames, f->rows_per_frame, f->maps, f->maps == 1 ? "" : "s", f->height);
        return -1;
    }
    if ((unsigned long long)frame_rows * (unsigned long long)f->width *
            (unsigned long long)f->sample_bytes >
        WINENT_ZST_MAX_FRAME_BYTES) {
        snprintf(why, n, "the header's frames of %lld rows of %lld pixels exceed 1 GiB", frame_rows,
                 f->width);
        return -1;
    }
    /* A range goes with bins; no bins (null or absent), no range. */
    const cJSON *bins = winent_json_get(root, "bins"), *range = winent_json_get(root, "range");
    const int bins_given = bins != NULL && !cJSON_IsNull(bins);
    if (bins_given != (range != NULL && !cJSON_IsNull(range))) {
        snprintf(why, n, "the header's \"bins\" and \"range\" are not both given or both null");
        return -1;
    }
    int i = 0;
    for (const cJSON *e = maps ? maps->child : NULL; e; e = e->next, i++) {
        const cJSON *r = winent_json_get(e, "range");
        const int range_given = r != NULL && !cJSON_IsNull(r);
        if (integer_of(e, "first_frame") != per_map * i || integer_of(e, "frames") != per_map) {
            snprintf(why, n, "the header's maps[%d] does not hold frames %lld to %lld", i,
                     per_map * i, per_map * (i + 1) - 1);
            return -1;
        }
        if (range_given != bins_given) {
            snprintf(why, n,
                     "the header's maps[%d].\"range\" and \"bins\" are not both given or "
                     "both null",
                     i);
            return -1;
        }
    }
    return 0;
}
