/* SPDX-License-Identifier: BSD-3-Clause */
/* The advice when --mem (or, without it, the machine) cannot hold the
 * plan's smallest chunks (plan.c): the least --mem that does, found by
 * asking the plan's memory terms under each budget tried, with the input
 * opened again where what its reader holds grows with its quarter. */
#include <stdio.h>
#include <string.h>

#include "setup.h"

/* The terms of the plan's check, and where they are asked again of the
 * job's input under each budget tried (what a reader holds grows with its
 * quarter): the job and its options; NULL, they stay as they are. */
typedef struct mem_terms {
    job_mem_terms t;
    const pipeline *reopen;
    const winent_job_opts *o;
} mem_terms;

/* winent_plan_budget_fits, where t->reopen is set with what the job's
 * reader holds and lacks under a --mem of `budget`: the input opened again
 * with it (quietly), as the job run with that --mem would open it. */
static int fits_at(const mem_terms *t, uint64_t budget)
{
    if (t->reopen == NULL)
        return winent_plan_budget_fits(&t->t, budget);
    const pipeline *p = t->reopen;
    winent_source_opts so;
    winent_source *s = NULL;
    winent_err e;
    winent_job_source_opts(t->o, &so);
    so.on_notice = NULL;
    so.threads = p->plan.threads;
    so.par = &p->par_hook; /* the job's workers: the readers plan by them */
    so.stop = p->stop;
    so.mem_bytes = budget;
    so.mem_auto = 0;
    so.gdal_cache_seen = winent_source_get_info(p->source)->gdal_cache_seen;
    if (winent_source_open(&so, &s, &e) != WINENT_OK)
        return winent_plan_budget_fits(&t->t, budget);
    job_mem_terms at = t->t;
    at.held = winent_source_get_info(s)->mem_held;
    at.reader = winent_source_get_info(s)->mem_short;
    if (at.reader)
        at.held = UINT64_MAX;
    winent_source_free(s);
    return winent_plan_budget_fits(&at, budget);
}

/* The smallest whole number of MiB that holds `t` (found by bisection:
 * X holds it and X - 1 MiB does not): what "give at least --mem XM"
 * names. */
static uint64_t least_mib(const mem_terms *t)
{
    uint64_t lo = 1, hi = 1;
    while (!fits_at(t, hi << 20) && hi < ((uint64_t)1 << 40))
        hi *= 2;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (fits_at(t, mid << 20))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

winent_status winent_setup_too_small(const pipeline *p, const winent_job_opts *o,
                                     winent_err *err)
{
    const job_mem_terms *t = &p->plan.short_terms;
    const int64_t rows = p->plan.short_rows;
    const uint64_t given = p->plan.mem_budget;
    mem_terms exact = {.t = *t, .o = o};
    const winent_source_info *src = p->source ? winent_source_get_info(p->source) : NULL;
    /* A reader other than raw's plans by its quarter of --mem: the
     * advice asks it under each --mem tried, where the input can be
     * opened again (else its quarter counts whole when it is short). */
    if (!p->plan.mem_auto && src != NULL && src->reader != NULL &&
        strcmp(src->reader, "raw") != 0) {
        if (winent_can_read_twice(o->input, src))
            exact.reopen = p;
        else
            exact.t.held = UINT64_MAX; /* the whole quarter: X runs, if not the least */
    }
    const unsigned long long least = (unsigned long long)least_mib(&exact);
    char maps[48] = "";
    if (p->plan.nmaps > 1)
        snprintf(maps, sizeof maps, " (%d maps of %d bands)", p->plan.nmaps, p->plan.nbands);
    if (p->plan.mem_auto)
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "rows of %d pixels%s need at least %llu MiB (%lld-row units and the "
                          "threads' own state), more than this machine's memory allows (%llu MiB)",
                          p->plan.width, maps, least, (long long)rows,
                          (unsigned long long)(p->plan.machine_bytes >> 20));
    if (t->reader > given / 4) {
        const winent_source_info *info = winent_source_get_info(p->source);
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s: reading it takes %llu MiB, more than the quarter of --mem %lluM "
                          "that the reader may hold: give at least --mem %lluM (for the reader "
                          "and the chunks beside it)",
                          info->mem_what, (unsigned long long)((t->reader + (1 << 20) - 1) >> 20),
                          (unsigned long long)(given >> 20), least);
    }
    if (t->preview > given / 2) {
        int pw, ph;
        winent_preview_dims(p->plan.width, p->plan.height, p->plan.preview_opts.size, &pw, &ph);
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "--mem: %llu MiB is too small for a %dx%d preview (%llu MiB): give "
                          "a smaller --preview-size or at least --mem %lluM",
                          (unsigned long long)(given >> 20), pw, ph,
                          (unsigned long long)((t->preview + (1 << 20) - 1) >> 20), least);
    }
    return WINENT_ERR(err, WINENT_ERR_USAGE,
                      "--mem: %llu MiB is too small for %lld-row units of a %d pixel "
                      "wide image%s%s: give at least --mem %lluM (or fewer --frame-rows / "
                      "a smaller --tile%s)",
                      (unsigned long long)(given >> 20), (long long)rows, p->plan.width, maps,
                      p->plan.want_preview ? " and its preview" : "", least,
                      p->plan.want_preview ? " / --preview-size" : "");
}
