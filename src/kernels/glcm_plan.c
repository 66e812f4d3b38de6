/* SPDX-License-Identifier: BSD-3-Clause */
/* glcm_plan.c - the co-occurrence engine's options, names and tables. */
#include "glcm.h"
#include "glcm_slide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint16_t level_of(const winent_glcm_plan *p, const unsigned char *q);

static const char *const names[WINENT_GLCM_MEASURE_COUNT] = {
    "glcm-entropy",       "glcm-asm",         "glcm-energy",       "glcm-contrast",
    "glcm-dissimilarity", "glcm-homogeneity", "glcm-correlation",  "glcm-mean",
    "glcm-variance",      "glcm-cluster-shade", "glcm-cluster-prominence",
    "glcm-cond-entropy",  "glcm-mutual-info"};

void winent_glcm_opts_default(winent_glcm_opts *o)
{
    memset(o, 0, sizeof *o);
    winent_compute_opts_default(&o->compute);
    o->distance = 1;
    o->angles = WINENT_GLCM_ALL_ANGLES;
    o->symmetric = 1;
    o->nmeasures = 1;
    o->measures[0] = WINENT_GLCM_ENTROPY;
}

const char *winent_glcm_measure_name(winent_glcm_measure m)
{
    return (unsigned)m < WINENT_GLCM_MEASURE_COUNT ? names[m] : NULL;
}

int winent_glcm_measure_parse(const char *name)
{
    for (int m = 0; m < WINENT_GLCM_MEASURE_COUNT; m++)
        if (strcmp(name, names[m]) == 0 || strcmp(name, names[m] + 5) == 0)
            return m;
    return -1;
}

static int is_log_measure(winent_glcm_measure m)
{
    return m == WINENT_GLCM_ENTROPY || m == WINENT_GLCM_COND_ENTROPY ||
           m == WINENT_GLCM_MUTUAL_INFO;
}

void winent_glcm_describe(const winent_glcm_opts *o, int k, char *buf, size_t len)
{
    static const char *const unit[] = {"nats", "bits", "bans"};
    unsigned a = o->angles ? o->angles : WINENT_GLCM_ALL_ANGLES;
    char ang[48] = "";
    int na = 0;
    for (int i = 0; i < 4; i++)
        if (a & (1u << i)) {
            size_t l = strlen(ang);
            snprintf(ang + l, sizeof ang - l, "%s%d", na ? "," : "", 45 * i);
            na++;
        }
    winent_glcm_measure m = o->measures[k];
    char tail[24] = "";
    if (is_log_measure(m) && (unsigned)o->compute.base <= WINENT_BASE_10)
        snprintf(tail, sizeof tail, " (%s)", unit[o->compute.base]);
    snprintf(buf, len, "%s %dx%d d=%d %s%s %s%s", winent_glcm_measure_name(m) ? names[m] : "?",
             o->compute.kx, o->compute.ky, o->distance, na > 1 ? "mean of angles " : "angle ",
             ang, o->symmetric ? "symmetric" : "asymmetric", tail);
}

static winent_status check(const winent_glcm_opts *o, winent_err *err)
{
    if (o->compute.disk || o->compute.footprint != NULL)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s: the co-occurrence measures take rectangular windows only",
                          o->compute.disk ? "--disk" : "--footprint");
    if (o->distance < 1 || o->distance > 127)
        return WINENT_ERR(err, WINENT_ERR_USAGE, "--distance: '%d': give 1 to 127", o->distance);
    if (o->angles > WINENT_GLCM_ALL_ANGLES)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "--angles: give degrees from 0, 45, 90 and 135");
    if (o->nmeasures < 1 || o->nmeasures > WINENT_GLCM_MEASURES_MAX)
        return WINENT_ERR(err, WINENT_ERR_USAGE, "--measure: give 1 to %d co-occurrence measures",
                          WINENT_GLCM_MEASURES_MAX);
    for (int k = 0; k < o->nmeasures; k++)
        if ((unsigned)o->measures[k] >= WINENT_GLCM_MEASURE_COUNT)
            return WINENT_ERR(err, WINENT_ERR_USAGE, "--measure: unknown measure %d",
                              (int)o->measures[k]);
    return WINENT_OK;
}

static void set_needs(winent_glcm_plan *p)
{
    for (int k = 0; k < p->opts.nmeasures; k++) {
        switch (p->opts.measures[k]) {
        case WINENT_GLCM_ENTROPY:
        case WINENT_GLCM_ASM:
        case WINENT_GLCM_ENERGY: p->need_hist = 1; break;
        case WINENT_GLCM_COND_ENTROPY:
        case WINENT_GLCM_MUTUAL_INFO: p->need_hist = p->need_marg = 1; break;
        default: p->need_mom = 1; break;
        }
    }
}

static double log_base(double c, winent_base b)
{
    return b == WINENT_BASE_2 ? log2(c) : b == WINENT_BASE_10 ? log10(c) : log(c);
}

static winent_status make_tables(winent_glcm_plan *p, winent_err *err)
{
    p->tmax = 2 * p->kx * p->ky;
    p->lq = malloc(sizeof(int64_t) * (size_t)(p->tmax + 1));
    p->t = malloc(sizeof(int64_t) * (size_t)(p->tmax + 1));
    p->du = malloc(sizeof(int64_t) * (size_t)(p->tmax + 1));
    p->hw = malloc(sizeof(int64_t) * (size_t)p->levels);
    if (p->lq == NULL || p->t == NULL || p->du == NULL || p->hw == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory building the GLCM tables");
    p->lq[0] = p->t[0] = 0;
    for (int c = 1; c <= p->tmax; c++) {
        p->lq[c] = llround(log_base((double)c, p->opts.compute.base) * WINENT_LQ_SCALE);
        p->t[c] = (int64_t)c * p->lq[c];
    }
    for (int c = 0; c < p->tmax; c++)
        p->du[c] = p->t[c + 1] - p->t[c];
    p->du[p->tmax] = 0;
    for (int d = 0; d < p->levels; d++)
        p->hw[d] = llround(WINENT_LQ_SCALE / (1.0 + (double)d * (double)d));
    return WINENT_OK;
}

winent_status winent_glcm_plan_create(const winent_glcm_opts *o, winent_glcm_plan **out,
                                      winent_err *err)
{
    *out = NULL;
    WINENT_TRY(check(o, err));
    winent_glcm_plan *p = calloc(1, sizeof *p);
    if (p == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory building the GLCM plan");
    p->opts = *o;
    if (p->opts.angles == 0)
        p->opts.angles = WINENT_GLCM_ALL_ANGLES;
    winent_status st = winent_plan_create(&o->compute, &p->codes, err);
    if (st != WINENT_OK) {
        winent_glcm_plan_free(p);
        return st;
    }
    /* Levels are values (u8, i8 + 128) or bins: the entropy's rotation of
     * the codes around a nodata value would reorder them, and contrast and
     * the moments see the order, so the rule here never rotates. */
    p->rule = p->codes->rule;
    p->rule.rotate = 0;
    const uint64_t levels = p->rule.quantize
                                ? (uint64_t)p->rule.bins
                                : (uint64_t)1 << (8 * winent_dtype_size(o->compute.dtype));
    if (levels > WINENT_GLCM_LEVELS_MAX) {
        winent_glcm_plan_free(p);
        if (o->compute.bins > 0)
            return WINENT_ERR(err, WINENT_ERR_USAGE,
                              "--levels: '%u': give at most %u levels (the matrix has "
                              "levels^2 cells)",
                              o->compute.bins, WINENT_GLCM_LEVELS_MAX);
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "--levels: a %s band has %llu values: give --levels N (at most %u) "
                          "and --range LO:HI to quantize it (the matrix has N^2 cells)",
                          winent_dtype_name(o->compute.dtype), (unsigned long long)levels,
                          WINENT_GLCM_LEVELS_MAX);
    }
    p->levels = (int)levels;
    p->kx = o->compute.kx;
    p->ky = o->compute.ky;
    p->rx = p->kx / 2;
    p->ry = p->ky / 2;
    static const int ux[4] = {1, 1, 0, -1}, uy[4] = {0, 1, 1, 1};
    for (int a = 0; a < 4; a++)
        if (p->opts.angles & (1u << a)) {
            p->dx[p->nangles] = ux[a] * o->distance;
            p->dy[p->nangles] = uy[a] * o->distance;
            p->nangles++;
        }
    set_needs(p);
    if (winent_dtype_size(o->compute.dtype) == 1)
        for (unsigned v = 0; v < 256; v++) {
            const unsigned char b[8] = {(unsigned char)v}; /* level_of reads a sample's size */
            p->lut8[v] = level_of(p, b);
        }
    st = make_tables(p, err);
    if (st != WINENT_OK) {
        winent_glcm_plan_free(p);
        return st;
    }
    *out = p;
    return WINENT_OK;
}

void winent_glcm_plan_free(winent_glcm_plan *p)
{
    if (p == NULL)
        return;
    winent_plan_free(p->codes);
    free(p->lq);
    free(p->t);
    free(p->du);
    free(p->hw);
    free(p);
}

void winent_glcm_geom_init(const winent_glcm_plan *p, int W, int H, winent_glcm_geom *g)
{
    memset(g, 0, sizeof *g);
    g->W = W;
    g->H = H;
    g->L = p->levels;
    g->rx = p->rx;
    g->ry = p->ry;
    g->symmetric = p->opts.symmetric;
    g->need_hist = p->need_hist;
    g->need_marg = p->need_marg;
    g->need_mom = p->need_mom;
    g->nangles = p->nangles;
    for (int a = 0; a < 4; a++) {
        g->dx[a] = p->dx[a];
        g->dy[a] = p->dy[a];
    }
    g->nm = p->opts.nmeasures;
    for (int k = 0; k < g->nm; k++)
        g->measures[k] = (int)p->opts.measures[k];
    g->lq = p->lq;
    g->du = p->du;
    g->hw = p->hw;
}

/* The level of one sample (native byte order, any address). */
static uint16_t level_of(const winent_glcm_plan *p, const unsigned char *q)
{
    const winent_code_rule *r = &p->rule;
    uint32_t c;
    switch (p->opts.compute.dtype) {
#define INT_CASE(E, T)                                                                             \
    case E: {                                                                                      \
        T v;                                                                                       \
        memcpy(&v, q, sizeof v);                                                                   \
        c = winent_code_int(r, (int64_t)v);                                                        \
        break;                                                                                     \
    }
        INT_CASE(WINENT_U8, uint8_t)
        INT_CASE(WINENT_I8, int8_t)
        INT_CASE(WINENT_U16, uint16_t)
        INT_CASE(WINENT_I16, int16_t)
        INT_CASE(WINENT_U32, uint32_t)
        INT_CASE(WINENT_I32, int32_t)
#undef INT_CASE
    case WINENT_F32: {
        float v;
        memcpy(&v, q, sizeof v);
        c = winent_code_f32(r, v);
        break;
    }
    default: {
        double v;
        memcpy(&v, q, sizeof v);
        c = winent_code_f64(r, v);
        break;
    }
    }
    return c == WINENT_NODATA_CODE ? (uint16_t)WINENT_GLCM_SENT : (uint16_t)c;
}

void winent_glcm_levels(const winent_glcm_plan *p, const void *samples, size_t count,
                        uint16_t *levels)
{
    const unsigned char *src = samples;
    if (winent_dtype_size(p->opts.compute.dtype) == 1) {
        for (size_t i = 0; i < count; i++)
            levels[i] = p->lut8[src[i]];
        return;
    }
    const size_t sz = winent_dtype_size(p->opts.compute.dtype);
    for (size_t i = 0; i < count; i++)
        levels[i] = level_of(p, src + i * sz);
}
