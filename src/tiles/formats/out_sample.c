/* SPDX-License-Identifier: BSD-3-Clause */
/* The output's sample types (--ot): conversions from and to the engines'
 * float32, written little-endian whatever the host. */
#include "out_sample.h"

#include <math.h>
#include <string.h>

static const char *const type_names[] = {"float32", "float16", "uint16", "uint8"};

const char *winent_out_type_name(winent_out_type t)
{
    return (unsigned)t <= WINENT_OT_UINT8 ? type_names[t] : "?";
}

int winent_out_type_parse(const char *name, winent_out_type *t)
{
    for (int i = 0; i <= WINENT_OT_UINT8; i++)
        if (strcmp(name, type_names[i]) == 0) {
            *t = (winent_out_type)i;
            return 0;
        }
    return -1;
}

void winent_out_sample_init(winent_out_sample *q, winent_out_type t, double top)
{
    memset(q, 0, sizeof *q);
    q->type = t;
    q->scale = 1.0;
    switch (t) {
    case WINENT_OT_FLOAT16: q->bytes = 2; break;
    case WINENT_OT_UINT16:
    case WINENT_OT_UINT8:
        q->bytes = t == WINENT_OT_UINT16 ? 2 : 1;
        q->is_int = 1;
        q->nodata_code = t == WINENT_OT_UINT16 ? 65535u : 255u;
        q->max_code = q->nodata_code - 1;
        /* The largest entropy of the job is code max_code: the whole range
         * serves the values the job can make. */
        if (top > 0.0 && isfinite(top))
            q->scale = top / (double)q->max_code;
        break;
    default: q->bytes = 4; break;
    }
}

uint16_t winent_half_of(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u); /* NaN */
    if (ax >= 0x47800000u)
        return (uint16_t)(sign | 0x7c00u); /* 65536 and above: infinity */
    if (ax < 0x38800000u) {
        /* Below 2^-14: a subnormal half, in units of 2^-24. */
        uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e;
        if (shift > 24u)
            return (uint16_t)sign;
        uint32_t h = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (h & 1u)))
            h++;
        return (uint16_t)(sign | h);
    }
    /* Normal: rebias the exponent, keep 10 mantissa bits, round the 13
     * dropped to nearest even (a carry may reach infinity, as it should). */
    uint32_t h = (ax >> 13) - ((127u - 15u) << 10), rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

float winent_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0x1f) {
        x = sign | 0x7f800000u | (m << 13);
    } else if (e != 0) {
        x = sign | ((e + 112u) << 23) | (m << 13);
    } else {
        float v = (float)m * 0x1p-24f; /* subnormal or zero: exact */
        return sign ? -v : v;
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* The code of `v`: round(v / scale), within 0 .. max_code; NaN the nodata
 * code. In double, so the rule is the same on every host. */
static uint32_t code_of(const winent_out_sample *q, float v)
{
    if (isnan(v))
        return q->nodata_code;
    double c = floor(((double)v - q->offset) / q->scale + 0.5);
    if (!(c > 0.0))
        return 0;
    return c > (double)q->max_code ? q->max_code : (uint32_t)c;
}

void winent_out_encode(const winent_out_sample *q, const float *src, size_t n, uint8_t *dst)
{
    switch (q->type) {
    case WINENT_OT_FLOAT16:
        for (size_t i = 0; i < n; i++) {
            uint16_t h = winent_half_of(src[i]);
            dst[2 * i] = (uint8_t)h;
            dst[2 * i + 1] = (uint8_t)(h >> 8);
        }
        break;
    case WINENT_OT_UINT16:
        for (size_t i = 0; i < n; i++) {
            uint32_t c = code_of(q, src[i]);
            dst[2 * i] = (uint8_t)c;
            dst[2 * i + 1] = (uint8_t)(c >> 8);
        }
        break;
    case WINENT_OT_UINT8:
        for (size_t i = 0; i < n; i++)
            dst[i] = (uint8_t)code_of(q, src[i]);
        break;
    default:
        for (size_t i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, &src[i], 4);
            dst[4 * i] = (uint8_t)v;
            dst[4 * i + 1] = (uint8_t)(v >> 8);
            dst[4 * i + 2] = (uint8_t)(v >> 16);
            dst[4 * i + 3] = (uint8_t)(v >> 24);
        }
        break;
    }
}

static float value_of(const winent_out_sample *q, uint32_t c)
{
    return c == q->nodata_code ? NAN : (float)((double)c * q->scale + q->offset);
}

void winent_out_decode(const winent_out_sample *q, const uint8_t *src, size_t n, float *dst)
{
    switch (q->type) {
    case WINENT_OT_FLOAT16:
        for (size_t i = 0; i < n; i++)
            dst[i] = winent_half_to_float((uint16_t)(src[2 * i] | src[2 * i + 1] << 8));
        break;
    case WINENT_OT_UINT16:
        for (size_t i = 0; i < n; i++)
            dst[i] = value_of(q, (uint32_t)(src[2 * i] | src[2 * i + 1] << 8));
        break;
    case WINENT_OT_UINT8:
        for (size_t i = 0; i < n; i++)
            dst[i] = value_of(q, src[i]);
        break;
    default:
        for (size_t i = 0; i < n; i++) {
            uint32_t v = (uint32_t)src[4 * i] | (uint32_t)src[4 * i + 1] << 8 |
                         (uint32_t)src[4 * i + 2] << 16 | (uint32_t)src[4 * i + 3] << 24;
            memcpy(&dst[i], &v, 4);
        }
        break;
    }
}
