/* SPDX-License-Identifier: BSD-3-Clause */
/* Small facts about the public enums. */
#include "winent.h"

static const struct {
    const char *name;
    size_t size;
    int is_float;
} dtype_facts[WINENT_DTYPE_COUNT] = {
    [WINENT_U8] = {"u8", 1, 0},   [WINENT_I8] = {"i8", 1, 0},   [WINENT_U16] = {"u16", 2, 0},
    [WINENT_I16] = {"i16", 2, 0}, [WINENT_U32] = {"u32", 4, 0}, [WINENT_I32] = {"i32", 4, 0},
    [WINENT_F32] = {"f32", 4, 1}, [WINENT_F64] = {"f64", 8, 1},
};

size_t winent_dtype_size(winent_dtype t)
{
    return (unsigned)t < WINENT_DTYPE_COUNT ? dtype_facts[t].size : 0;
}

const char *winent_dtype_name(winent_dtype t)
{
    return (unsigned)t < WINENT_DTYPE_COUNT ? dtype_facts[t].name : "?";
}

int winent_dtype_is_float(winent_dtype t)
{
    return (unsigned)t < WINENT_DTYPE_COUNT && dtype_facts[t].is_float;
}

const char *winent_status_name(winent_status s)
{
    switch (s) {
    case WINENT_OK: return "success";
    case WINENT_ERR_INTERNAL: return "internal error";
    case WINENT_ERR_USAGE: return "usage error";
    case WINENT_ERR_INPUT: return "input error";
    case WINENT_ERR_OUTPUT: return "output error";
    case WINENT_ERR_DEVICE: return "device error";
    case WINENT_ERR_INTERRUPTED: return "interrupted";
    }
    return "unknown error";
}

void winent_compute_opts_default(winent_compute_opts *o)
{
    if (o == NULL)
        return;
    o->kx = 5;
    o->ky = 5;
    o->base = WINENT_BASE_2;
    o->dtype = WINENT_U8;
    o->bins = 0;
    o->range_lo = 0.0;
    o->range_hi = 0.0;
    o->has_nodata = 0;
    o->nodata = 0.0;
    o->disk = 0;
    o->measure = WINENT_MEASURE_ENTROPY;
    o->renyi_q = 0.0;
    o->glcm_distance = 1;
    o->glcm_angles = 0; /* all four */
    o->glcm_asymmetric = 0;
    o->footprint = NULL;
}
