/* SPDX-License-Identifier: BSD-3-Clause */
/* The --stats line (cli_print_stats, options.h): one JSON object built
 * with cJSON. Numbers are written by us as cJSON "raw" items: measured
 * times with 3 decimals (their last digits are noise), the range and the
 * samples' extremes with 17 significant digits, which read back exactly
 * (cJSON's own "%1.15g" need not: see src/base/json.h, which the command
 * cannot reach, being on libwinent's public API alone). */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "options.h"

/* A number printed with `fmt` (one double), '.' as the decimal point. */
static cJSON *number(const char *fmt, double v)
{
    char buf[64];
    if (!isfinite(v))
        return cJSON_CreateNull();
    snprintf(buf, sizeof buf, fmt, v);
    const char *dp = localeconv()->decimal_point;
    if (dp && dp[0] && dp[0] != '.' && !dp[1])
        for (char *p = buf; *p; p++)
            if (*p == dp[0])
                *p = '.';
    return cJSON_CreateRaw(buf);
}

static cJSON *count(long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    return cJSON_CreateRaw(buf);
}

/* Add `item` under `key` (NULL: append to an array); 0, or 1 when out of
 * memory (the item freed). */
static int put(cJSON *obj, const char *key, cJSON *item)
{
    if (item != NULL && obj != NULL &&
        (key ? cJSON_AddItemToObject(obj, key, item) : cJSON_AddItemToArray(obj, item)))
        return 0;
    cJSON_Delete(item);
    return 1;
}

static cJSON *pair(double a, double b)
{
    cJSON *arr = cJSON_CreateArray();
    if (put(arr, NULL, number("%.17g", a)) | put(arr, NULL, number("%.17g", b))) {
        cJSON_Delete(arr);
        return NULL;
    }
    return arr;
}

static cJSON *stage(const winent_stage_stats *s)
{
    cJSON *o = cJSON_CreateObject();
    if (put(o, "threads", count((long long)s->threads)) |
        put(o, "busy_s", number("%.3f", s->busy_s)) | put(o, "wait_s", number("%.3f", s->wait_s))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The range figures of one band, as members of `o`: range, range_from,
 * samples, clamped. Returns 0, or 1 out of memory. */
static int put_counts(cJSON *o, const winent_band_counts *c)
{
    unsigned long long clamped = c->clamped_below + c->clamped_above;
    cJSON *cl = cJSON_CreateObject();
    int bad = put(o, "range", pair(c->range_lo, c->range_hi));
    /* A file name: cJSON escapes it (bytes >= 0x80 copied as they are). */
    bad |= put(o, "range_from", cJSON_CreateString(c->range_from));
    bad |= put(o, "samples", c->samples_min == c->samples_min ? pair(c->samples_min, c->samples_max)
                                                             : cJSON_CreateNull());
    bad |= put(cl, "below", count((long long)c->clamped_below));
    bad |= put(cl, "above", count((long long)c->clamped_above));
    bad |= put(cl, "valid", count((long long)c->valid_samples));
    bad |= put(cl, "percent",
               number("%.3f", c->valid_samples
                                  ? 100.0 * (double)clamped / (double)c->valid_samples
                                  : 0.0));
    return bad | put(o, "clamped", cl);
}

void cli_print_stats(FILE *f, const winent_job_stats *s)
{
    cJSON *o = cJSON_CreateObject(), *stages = cJSON_CreateObject();
    int bad = 0;
    bad |= put(o, "wall_s", number("%.3f", s->wall_s));
    bad |= put(o, "setup_s", number("%.3f", s->setup_s));
    bad |= put(o, "pixels", count((long long)s->pixels));
    bad |= put(o, "mpixel_per_s",
               number("%.1f", s->wall_s > 0 ? (double)s->pixels / s->wall_s / 1e6 : 0.0));
    bad |= put(o, "bytes_in", count((long long)s->bytes_in));
    bad |= put(o, "bytes_out", count((long long)s->bytes_out));
    bad |= put(o, "engine", cJSON_CreateString(s->engine));
    bad |= put(o, "chunk_rows", count((long long)s->chunk_rows));
    bad |= put(o, "chunks", count((long long)s->chunks));
    bad |= put(stages, "read", stage(&s->read));
    bad |= put(stages, "compute", stage(&s->compute));
    bad |= put(stages, "encode", stage(&s->encode));
    bad |= put(stages, "write", stage(&s->write));
    bad |= put(o, "stages", stages);
    if (s->range_counted) {
        winent_band_counts first;
        first.range_lo = s->range_lo;
        first.range_hi = s->range_hi;
        snprintf(first.range_from, sizeof first.range_from, "%s", s->range_from);
        first.clamped_below = s->clamped_below;
        first.clamped_above = s->clamped_above;
        first.valid_samples = s->valid_samples;
        first.samples_min = s->samples_min;
        first.samples_max = s->samples_max;
        bad |= put_counts(o, &first);
    } else {
        bad |= put(o, "range", cJSON_CreateNull());
        bad |= put(o, "clamped", cJSON_CreateNull());
    }
    /* Several bands: the figures above are the first band's; each band's
     * follow (its range and clamped samples differ). */
    if (s->nbands > 1) {
        cJSON *bands = cJSON_CreateArray();
        bad |= put(o, "maps", count(s->maps));
        for (int b = 0; b < s->nbands && b < WINENT_STATS_BANDS && bands; b++) {
            cJSON *e = cJSON_CreateObject();
            int ebad = put(e, "band", count(s->band[b].band));
            if (s->range_counted) {
                ebad |= put_counts(e, &s->band[b]);
            } else {
                ebad |= put(e, "range", cJSON_CreateNull());
                ebad |= put(e, "clamped", cJSON_CreateNull());
            }
            if (ebad) {
                cJSON_Delete(e);
                bad = 1;
            } else {
                bad |= put(bands, NULL, e);
            }
        }
        bad |= put(o, "bands", bands);
    }
    char *text = bad ? NULL : cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    /* Statistics are a courtesy: out of memory at the very end, say so in
     * the line's place rather than fail a job whose output is complete. */
    fprintf(f, "%s\n", text ? text : "{\"error\":\"out of memory\"}");
    free(text);
}
