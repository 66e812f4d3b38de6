/* SPDX-License-Identifier: BSD-3-Clause */
/* The job's maps: its windows (and measures), each band's options (its
 * nodata, its range: --range auto looks at the data), a plan per set of
 * options shared by equal ones, and the CPU engine of each plan. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "setup.h"

/* 1 when maps of options `a` and `b` compute alike (one plan, one CPU
 * engine serves both). */
static int same_compute(const winent_compute_opts *a, const winent_compute_opts *b)
{
    return a->kx == b->kx && a->ky == b->ky && a->disk == b->disk &&
           a->footprint == b->footprint && a->base == b->base &&
           a->measure == b->measure && memcmp(&a->renyi_q, &b->renyi_q, sizeof a->renyi_q) == 0 &&
           a->dtype == b->dtype && a->bins == b->bins &&
           memcmp(&a->range_lo, &b->range_lo, sizeof a->range_lo) == 0 &&
           memcmp(&a->range_hi, &b->range_hi, sizeof a->range_hi) == 0 &&
           a->has_nodata == b->has_nodata &&
           (!a->has_nodata || memcmp(&a->nodata, &b->nodata, sizeof a->nodata) == 0);
}

/* The maps of one band of job `o`, as WINENT_WIN_FIELDS ints each into `win`:
 * kx, ky, disk, and the index of the measure in o->measure_list (-1:
 * compute.measure): its windows (its list, else compute.kx/ky/disk), each
 * with every measure in the order given. Returns how many; usage errors
 * for a window given twice. */
winent_status winent_setup_windows(const winent_job_opts *o, int **win, int *n, winent_err *err)
{
    int k = o->nwindow_list > 0 ? o->nwindow_list : 1;
    const int nm = o->nmeasure_list > 0 ? o->nmeasure_list : 1;
    *win = malloc(sizeof **win * WINENT_WIN_FIELDS * (size_t)k * (size_t)nm);
    if (*win == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    for (int i = 0; i < k; i++) {
        int wi[3];
        wi[0] = o->nwindow_list > 0 ? o->window_list[2 * i] : o->compute.kx;
        wi[1] = o->nwindow_list > 0 ? o->window_list[2 * i + 1] : o->compute.ky;
        wi[2] = o->nwindow_list > 0 ? (o->window_disk && o->window_disk[i] ? 1 : 0)
                                    : (o->compute.disk ? 1 : 0);
        for (int j = 0; j < i; j++) {
            const int *wj = *win + WINENT_WIN_FIELDS * nm * j;
            if (wj[0] == wi[0] && wj[1] == wi[1] && wj[2] == wi[2]) {
                if (wi[2])
                    return WINENT_ERR(err, WINENT_ERR_USAGE,
                                      "--window: disk%d given twice: give each window once",
                                      wi[0] / 2);
                return WINENT_ERR(err, WINENT_ERR_USAGE,
                                  "--window: %dx%d given twice: give each window once", wi[0],
                                  wi[1]);
            }
        }
        for (int m = 0; m < nm; m++) {
            int *e = *win + WINENT_WIN_FIELDS * (nm * i + m);
            e[0] = wi[0];
            e[1] = wi[1];
            e[2] = wi[2];
            e[3] = o->nmeasure_list > 0 ? m : -1;
        }
    }
    *n = k * nm;
    return WINENT_OK;
}

/* The maps of the job: for each band read (its options in cos[b]), each
 * window; a kernels' plan (and, with the CPU engine, a CPU engine once the
 * chunks are planned) for each set of options, shared by equal ones. */
static winent_status make_maps(const winent_job_opts *o, const winent_compute_opts *cos,
                               job_setup *s, int decoding, winent_err *err)
{
    job_source_info *src = &s->src;
    const int nwin = s->nwin;
    src->nmaps = src->nbands * nwin;
    src->maps = calloc((size_t)src->nmaps, sizeof *src->maps);
    src->band_plan = calloc((size_t)src->nbands, sizeof *src->band_plan);
    if (src->maps == NULL || src->band_plan == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    for (int m = 0; m < src->nmaps; m++) {
        job_map *jm = &src->maps[m];
        jm->band = m / nwin;
        jm->co = cos[jm->band];
        winent_job_plan_map_entry(o, s->win + WINENT_WIN_FIELDS * (m % nwin), &jm->co);
        /* --ot against the map's values, now that the input's type and
         * range are known (a decode computes nothing). */
        if (!decoding)
            WINENT_TRY(winent_job_check_map_type(
                o->out_type, &jm->co, 1, jm->co.range_lo != 0.0 || jm->co.range_hi != 0.0,
                o->words == WINENT_WORDS_PYTHON ? WINENT_WORDS_PYTHON : WINENT_WORDS_CLI, err));
        for (int k = 0; k < m && jm->plan == NULL; k++)
            if (src->maps[k].owner && same_compute(&src->maps[k].co, &jm->co))
                jm->plan = src->maps[k].plan;
        if (jm->plan == NULL) {
            WINENT_TRY(winent_plan_create(&jm->co, &jm->plan, err));
            jm->owner = 1;
        }
        if (m % nwin == 0)
            src->band_plan[jm->band] = jm->plan;
    }
    /* The output's codes have one scale, its maps' largest top: a
     * majority's classes must keep a code each under it. */
    double top = 0.0;
    for (int m = 0; m < src->nmaps; m++)
        top = fmax(top, winent_compute_top(&src->maps[m].co));
    for (int m = 0; m < src->nmaps && !decoding; m++)
        WINENT_TRY(winent_job_check_class_codes(
            o->out_type, &src->maps[m].co, top,
            o->words == WINENT_WORDS_PYTHON ? WINENT_WORDS_PYTHON : WINENT_WORDS_CLI, err));
    return WINENT_OK;
}

void winent_setup_free_maps(pipeline *p, job_setup *s)
{
    job_source_info *src = &s->src;
    for (int m = 0; src->maps && m < src->nmaps; m++)
        winent_cpu_engine_free(src->maps[m].shared);
    for (int m = 0; src->maps && m < src->nmaps; m++)
        if (src->maps[m].owner) {
            winent_cpu_engine_free(src->maps[m].cpu);
            winent_plan_free(src->maps[m].plan);
        }
    free(src->maps);
    free((void *)src->band_plan);
    free(s->sink_maps);
    free(p->clamps);
    free(p->range_from);
    free(p->saturated);
}

/* Each band's options (its nodata, its range: --range auto looks at the
 * data now), then the maps: bands x windows, plans shared where equal. */
winent_status winent_setup_maps(pipeline *p, const winent_job_opts *o, job_setup *s,
                                winent_err *err)
{
    winent_status st = WINENT_OK;
    const int nbands = s->src.nbands;
    const winent_source_info *info = p->source ? winent_source_get_info(p->source) : NULL;
    winent_compute_opts *cos = NULL; /* each band's */
    cos = calloc((size_t)nbands, sizeof *cos);
    p->clamps = calloc((size_t)nbands, sizeof *p->clamps);
    p->range_from = calloc((size_t)nbands, sizeof *p->range_from);
    if (cos == NULL || p->clamps == NULL || p->range_from == NULL) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        goto fail;
    }
    for (int b = 0; b < nbands; b++) {
        winent_job_plan_band(o, p->plan.decoding, info ? info->dtype : o->compute.dtype,
                             info ? &info->read[b] : NULL, &cos[b]);
        winent_clamp_init(&p->clamps[b]);
        snprintf(p->range_from[b], sizeof p->range_from[b], "--range");
    }
    s->src.range_auto = winent_job_range_auto(o, cos[0].dtype);
    if (s->src.range_auto && !p->plan.decoding && p->plan.stage != WINENT_STAGE_ENCODE) {
        WINENT_TRY_GOTO(st, winent_range_auto(p, o, cos, nbands, err));
        if (!o->range_auto)
            winent_range_default_notice(p, o, cos, nbands);
    }
    WINENT_TRY_GOTO(st, make_maps(o, cos, s, p->plan.decoding, err));
fail:
    free(cos);
    return st;
}

/* The maps the CPU computes in one pass: each run of maps of one band
 * whose plans winent_cpu_engine_can_share (the co-occurrence measures of
 * one window, which then count each window's pairs once for all of them),
 * with a shared engine for each run of more than one. */
static winent_status map_groups(pipeline *p, winent_err *err)
{
    const winent_plan *plans[WINENT_CPU_SHARED_MAX];
    for (int m = 0; m < p->plan.nmaps;) {
        job_map *jm = &p->plan.maps[m];
        const int n = winent_plan_group_len(&p->plan, m);
        jm->group = n;
        if (n > 1) {
            for (int k = 0; k < n; k++)
                plans[k] = p->plan.maps[m + k].plan;
            WINENT_TRY(winent_cpu_engine_create_shared(plans, n, p->plan.width, p->plan.threads,
                                                       &jm->shared, err));
        }
        m += n;
    }
    return WINENT_OK;
}

/* The CPU engine of each plan (a map of the same plan shares it). */
winent_status winent_setup_cpu_engines(pipeline *p, winent_err *err)
{
    for (int m = 0; m < p->plan.nmaps && p->plan.want_cpu; m++) {
        job_map *jm = &p->plan.maps[m];
        if (jm->owner)
            WINENT_TRY(winent_cpu_engine_create(jm->plan, p->plan.width,
                                                p->plan.chunk_rows + 2 * p->plan.ry,
                                                p->plan.threads, &jm->cpu, err));
        else
            for (int k = 0; k < m; k++)
                if (p->plan.maps[k].plan == jm->plan)
                    jm->cpu = p->plan.maps[k].cpu;
    }
    return p->plan.want_cpu ? map_groups(p, err) : WINENT_OK;
}
