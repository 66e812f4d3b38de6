/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_json: src/base/json.c, the JSON of the .zst header and --info over
 * cJSON. Numbers must read back bit for bit (cJSON's own printing does
 * not: 0.1 + 0.2 becomes "0.3"), NaN and infinities as the strings the
 * readers know, text always valid UTF-8, and the reader must refuse what
 * is not one JSON value of valid UTF-8.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "harness.h"

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* `v` written in an object by winent_json_number, printed, parsed, read
 * back: the same bits. */
static int round_trip(double v, char *text_out, size_t cap)
{
    cJSON *o = cJSON_CreateObject();
    int ok = winent_json_put(o, "v", winent_json_number(v)) == 0;
    char *text = ok ? winent_json_print(o, 0) : NULL;
    cJSON_Delete(o);
    if (text == NULL)
        return 0;
    if (text_out)
        snprintf(text_out, cap, "%s", text);
    cJSON *back = winent_json_parse(text, strlen(text));
    double d = 0;
    ok = back && winent_json_get_double(winent_json_get(back, "v"), &d) &&
         (same_bits(d, v) || (isnan(d) && isnan(v)));
    cJSON_Delete(back);
    free(text);
    return ok;
}

static void test_numbers(void)
{
    char text[128];
    const double tricky[] = {0.1 + 0.2, 4600000.1, 1.0 / 3, 0.1, 15.5, -9999, 5e-324, 2.2250738585072014e-308,
                             DBL_MAX, -DBL_MAX, 1e22, 9007199254740993.0, 123456789012345678.0, -0.0,
                             0.0, 1e-7, 3.4028234663852886e38, (double)(float)0.1, -273.15};
    for (size_t i = 0; i < sizeof tricky / sizeof tricky[0]; i++)
        CHECK(round_trip(tricky[i], text, sizeof text), "%.17g does not read back (%s)", tricky[i],
              text);
    /* Shortest text where fewer digits read back: what a person reads. */
    round_trip(0.1, text, sizeof text);
    CHECK(strcmp(text, "{\"v\":0.1}") == 0, "0.1 as %s", text);
    round_trip(0.1 + 0.2, text, sizeof text);
    CHECK(strcmp(text, "{\"v\":0.30000000000000004}") == 0, "0.1 + 0.2 as %s", text);
    round_trip(-0.0, text, sizeof text);
    CHECK(strcmp(text, "{\"v\":-0}") == 0, "-0 as %s", text);
    /* A million doubles of every exponent, from their bits. */
    uint64_t x = 0x9E3779B97F4A7C15u;
    int bad = 0;
    for (int i = 0; i < 1000000 && bad < 5; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v;
        memcpy(&v, &x, sizeof v);
        if (!isfinite(v))
            continue;
        if (!round_trip(v, text, sizeof text)) {
            bad++;
            CHECK(0, "%.17g does not read back (%s)", v, text);
        }
    }
    CHECK(bad == 0, "random doubles");
    /* No NaN or infinity in JSON: strings, read back. */
    CHECK(round_trip(NAN, text, sizeof text) && strcmp(text, "{\"v\":\"NaN\"}") == 0, "NaN: %s",
          text);
    CHECK(round_trip(INFINITY, text, sizeof text) && strcmp(text, "{\"v\":\"Infinity\"}") == 0,
          "inf: %s", text);
    CHECK(round_trip(-INFINITY, text, sizeof text) && strcmp(text, "{\"v\":\"-Infinity\"}") == 0,
          "-inf: %s", text);
    /* Integers in full, figures with fixed decimals. */
    cJSON *o = cJSON_CreateObject();
    int e = winent_json_put(o, "big", winent_json_integer(9007199254740993LL));
    e |= winent_json_put(o, "t", winent_json_fixed(1.23456, 3));
    e |= winent_json_put(o, "nan", winent_json_fixed(NAN, 3));
    char *s = e ? NULL : winent_json_print(o, 0);
    CHECK(s && strcmp(s, "{\"big\":9007199254740993,\"t\":1.235,\"nan\":null}") == 0, "%s",
          s ? s : "(null)");
    free(s);
    cJSON_Delete(o);
}

static void test_text(void)
{
    cJSON *o = cJSON_CreateObject();
    int e = winent_json_put(o, "s", winent_json_text("dir/na\"me\\x\n.raw\xff\xc3\xa9\x01"));
    char *s = e ? NULL : winent_json_print(o, 0);
    CHECK(s && strcmp(s, "{\"s\":\"dir/na\\\"me\\\\x\\n.raw\xef\xbf\xbd\xc3\xa9\\u0001\"}") == 0,
          "escaped, bad byte as U+FFFD: %s", s ? s : "(null)");
    cJSON *back = s ? winent_json_parse(s, strlen(s)) : NULL;
    CHECK(back && winent_json_is_text(winent_json_get(back, "s"),
                                      "dir/na\"me\\x\n.raw\xef\xbf\xbd\xc3\xa9\x01"),
          "read back");
    cJSON_Delete(back);
    free(s);
    cJSON_Delete(o);
}

static void test_reading(void)
{
    const char *h = "{\n  \"a\": [1, 2.5, -3e2],\n  \"s\": \"x\\\"y\\\\z\\n\\u00e9\\ud83d\\ude00\",\n"
                    "  \"n\": \"NaN\", \"i\": \"-Infinity\", \"z\": null, \"w\": 300, \"f\": 2.5,\n"
                    "  \"o\": {\"a\": 7, \"deep\": {\"a\": 8}}, \"w\": 1\n}\n";
    cJSON *t = winent_json_parse(h, strlen(h));
    double d[4];
    int count;
    long long k;
    CHECK(t != NULL, "parsed");
    CHECK(winent_json_get_doubles(winent_json_get(t, "a"), d, 4, &count) && count == 3 &&
              d[0] == 1 && d[1] == 2.5 && d[2] == -300,
          "array");
    CHECK(!winent_json_get_doubles(winent_json_get(t, "a"), d, 2, &count),
          "array longer than the room");
    CHECK(winent_json_is_text(winent_json_get(t, "s"), "x\"y\\z\n\xc3\xa9\xf0\x9f\x98\x80"),
          "string with escapes and a surrogate pair");
    CHECK(winent_json_get_double(winent_json_get(t, "n"), d) && isnan(d[0]), "NaN");
    CHECK(winent_json_get_double(winent_json_get(t, "i"), d) && d[0] == -INFINITY, "-Infinity");
    CHECK(!winent_json_get_double(winent_json_get(t, "z"), d), "null is no number");
    CHECK(winent_json_get_integer(winent_json_get(t, "w"), 1, 1000, &k) && k == 300,
          "the first of duplicate keys");
    CHECK(!winent_json_get_integer(winent_json_get(t, "f"), 0, 1000, &k), "2.5 is no integer");
    CHECK(!winent_json_get_integer(winent_json_get(t, "w"), 1, 299, &k), "out of range");
    CHECK(winent_json_get(t, "deep") == NULL, "members of members are not members");
    CHECK(winent_json_get_double(winent_json_get(winent_json_get(t, "o"), "a"), d) && d[0] == 7,
          "nested object");
    CHECK(winent_json_get(t, "W") == NULL, "keys are case-sensitive");
    cJSON_Delete(t);

    /* Not one JSON value of valid UTF-8: refused. */
    const char *bad[] = {"",
                         "{",
                         "{\"a\": 1} x",
                         "{\"a\": 1}{}",
                         "{\"a\": \"\xff\"}",
                         "{\"\xc0\xaf\": 1}",
                         "{\"a\": \"\xed\xa0\x80\"}",
                         "{\"a\": \"\\ud800\"}",
                         "{\"a\": NaN}",
                         "{\"a\": 'x'}",
                         /* cJSON's looser reading, refused as RFC 8259 does
                          * (and Python's json) */
                         "{\"a\": 037}",
                         "{\"a\": 1.}",
                         "{\"a\": +1}",
                         "{\"a\": .5}",
                         "{\"a\": -}",
                         "{\"a\": 1e}",
                         "{\"a\": \"tab\there\"}",
                         "{\"a\": \"\\x\"}",
                         "{\"a\": 1,}",
                         "[1 2]",
                         "{\"a\" 1}",
                         "{\"a\": \"\\u0000\"}",
                         "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                         "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *b = winent_json_parse(bad[i], strlen(bad[i]));
        CHECK(b == NULL, "accepted: %s", bad[i]);
        cJSON_Delete(b);
    }
    /* Strict, not narrow: every form of RFC 8259 is read. */
    const char *good = "{\"a\": -0.5e+3, \"b\": [0, 1E2, -0, 10.25E-1, \"\\u00e9\\n\\/\"], "
                       "\"c\": {}, \"d\": [], \"e\": true, \"f\": null}";
    t = winent_json_parse(good, strlen(good));
    CHECK(cJSON_IsObject(t), "refused: %s", good);
    cJSON_Delete(t);
    /* Length-bounded: what follows the given bytes is not read. */
    const char *cut = "{\"a\": 1}garbage";
    t = winent_json_parse(cut, 8);
    CHECK(t != NULL, "a value followed by other bytes, given its length");
    cJSON_Delete(t);
    CHECK(cJSON_IsArray(t = winent_json_parse(" [1] \n", 6)), "white space around");
    cJSON_Delete(t);
}

/* --info prints a parsed header again: its numbers must come out exact. */
static void test_exact_numbers(void)
{
    const char *h = "{\"r\": [0.30000000000000004, 4600000.1], \"o\": {\"x\": 1e-300, \"y\": [[5e-324]]},"
                    " \"s\": \"t\", \"n\": 7}";
    cJSON *t = winent_json_parse(h, strlen(h));
    CHECK(t && winent_json_exact_numbers(t) == 0, "converted");
    char *s = t ? winent_json_print(t, 0) : NULL;
    CHECK(s && strcmp(s, "{\"r\":[0.30000000000000004,4600000.1],\"o\":{\"x\":1e-300,"
                         "\"y\":[[4.94065645841247e-324]]},\"s\":\"t\",\"n\":7}") == 0,
          "%s", s ? s : "(null)");
    free(s);
    cJSON_Delete(t);
}

int main(void)
{
    test_numbers();
    test_text();
    test_reading();
    test_exact_numbers();
    return harness_end();
}
