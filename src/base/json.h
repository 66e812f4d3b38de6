/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * json.h - JSON through cJSON (Debian libcjson-dev), with what cJSON
 * leaves to its caller: numbers that read back exactly, text that is
 * always valid UTF-8, and typed look-ups for readers.
 *
 * Why not cJSON's own numbers: cJSON_CreateNumber prints with "%1.15g"
 * and keeps that text when it reads back within DBL_EPSILON of the value,
 * so 0.1 + 0.2 is written "0.3" (another double), and NaN or an infinity
 * become null. A map's range, nodata value and geotransform must read
 * back bit for bit, so numbers go in as cJSON "raw" items holding the
 * shortest text that strtod turns back into the same double. Everything
 * else (structure, keys, string escapes, parsing) is cJSON's.
 *
 * All functions are thread-safe on distinct trees (cJSON's allocation
 * hooks are never changed).
 */
#ifndef WINENT_JSON_H
#define WINENT_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- making trees ------------------------------------------------------ */

/* A number that reads back as exactly `v`: the shortest of "%.15g",
 * "%.16g", "%.17g" that does, with '.' as the decimal point whatever the
 * locale. JSON has no NaN or infinity: those become the strings "NaN",
 * "Infinity" and "-Infinity" (the spelling of Python's json module), which
 * winent_json_get_double reads back. NULL when out of memory. */
cJSON *winent_json_number(double v);

/* A measured figure with `decimals` digits after the point ("%.3f"), for
 * times and rates whose last digits are noise. NaN or infinity: null. */
cJSON *winent_json_fixed(double v, int decimals);

/* An integer, written in full (cJSON's own would turn 2^53 + 1 into a
 * double, and 1e15 into "1e+15"). */
cJSON *winent_json_integer(long long v);

/* A string. File names and command lines are bytes, not text: a byte that
 * is not part of valid UTF-8 becomes U+FFFD, so the document stays valid
 * UTF-8 whatever the name (cJSON copies bytes >= 0x80 as they are). */
cJSON *winent_json_text(const char *s);

/* An array of n numbers (winent_json_number each). */
cJSON *winent_json_numbers(const double *v, int n);

/* Add `item` to object `obj` under `key` (copied), or append it to array
 * `obj` when key is NULL. `item` is owned by `obj` from then on, or freed
 * when it cannot be added; a NULL item (a failed create) is a failure.
 * Returns 0, or -1 out of memory: callers OR the results together and
 * check once. */
int winent_json_put(cJSON *obj, const char *key, cJSON *item);

/* The tree as text (malloc'd, NUL-terminated; free() it): indented with
 * tabs, one member a line, when `formatted`, else on one line. NULL out
 * of memory. */
char *winent_json_print(const cJSON *tree, int formatted);

/* Every number of a parsed tree turned into a winent_json_number, so that
 * printing it again writes values that read back exactly. -1 out of
 * memory (the tree is then partly converted, still valid). */
int winent_json_exact_numbers(cJSON *tree);

/* ---- reading ---------------------------------------------------------- */

/* Parse [text, text + n) as exactly one JSON value by RFC 8259's grammar
 * (white space around it allowed, nothing else; not cJSON's looser reading
 * of numbers and strings), whose strings and keys are all valid UTF-8 and
 * hold no "\u0000" escape (cJSON's strings are C strings: no writer of
 * ours makes one), nested at most 64 deep. NULL when it is not (or out of
 * memory). Free with cJSON_Delete. */
cJSON *winent_json_parse(const char *text, size_t n);

/* Member `key` of object `obj` (case-sensitive, the first of duplicates);
 * NULL when absent or when obj is not an object. */
const cJSON *winent_json_get(const cJSON *obj, const char *key);

/* A number, or one of the strings "NaN", "Infinity", "-Infinity": 1 and
 * *out; 0 for anything else (null included). */
int winent_json_get_double(const cJSON *item, double *out);

/* A number that is an integer in [lo, hi]: 1 and *out, else 0. */
int winent_json_get_integer(const cJSON *item, long long lo, long long hi, long long *out);

/* An array of numbers (winent_json_get_double each): 1 with up to `max`
 * of them in out and their count in *count; 0 when it is not such an array
 * or holds more than max. */
int winent_json_get_doubles(const cJSON *item, double *out, int max, int *count);

/* 1 when `item` is the string `s`. */
int winent_json_is_text(const cJSON *item, const char *s);

#ifdef __cplusplus
}
#endif

#endif
