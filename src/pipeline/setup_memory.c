/* SPDX-License-Identifier: BSD-3-Clause */
/* The chunks' height and count within the host memory budget (--mem):
 * about CHUNK_PIXELS of output a chunk, as many as the engines and the
 * encoders want, smaller chunks where the budget is tight, and, where it
 * cannot hold the smallest, the least --mem that does. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "setup.h"

/* Output pixels per chunk (of all its maps together): enough work to pay
 * for a chunk's hand-offs and a GPU's launches, small enough that a few
 * chunks per engine stay in flight in little memory. A function of nothing
 * the machine has. */
#define CHUNK_PIXELS ((int64_t)4 << 20)

/* Chunks in flight that keep every engine and the encoders busy: each
 * engine's slots, the chunks whose units are being encoded, one being read
 * and one being written. */
static int chunks_wanted(const pipeline *p, int bands_per_chunk, int units_per_chunk)
{
    int n = 2;
    if (p->plan.stage == WINENT_STAGE_JOB || p->plan.stage == WINENT_STAGE_COMPUTE) {
        n += p->plan.want_cpu ? p->plan.cpu_slots : 0;
        n += p->plan.ngpus * p->plan.gpu_slots;
    }
    if (p->out.units) {
        int pieces = units_per_chunk * p->plan.parts * p->plan.nmaps;
        n += (p->plan.threads + pieces - 1) / pieces + 1;
    }
    n += p->plan.fill_in ? 2 : 0;   /* being copied in */
    n += p->plan.store_out ? 2 : 0; /* being stored */
    (void)bands_per_chunk;
    return n;
}

/* The machine's memory: without --mem the budget grows as far as half of
 * it, and a job that needs more is told so with the amount (never a bare
 * "out of memory" later). */
static uint64_t machine_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}

/* What the chunks may take of a budget of `budget` bytes: the budget less
 * what the source holds (at most a quarter of it) and less `fixed` (what
 * the workers, the preview's image, the sink's writer and GPUs' contexts
 * hold), but never below a quarter of what the source left. The check and
 * the advice of winent_setup_chunks both ask this function. */
static uint64_t chunk_room(uint64_t budget, uint64_t held, uint64_t fixed)
{
    const uint64_t mem = budget - (held < budget / 4 ? held : budget / 4);
    return mem > fixed + mem / 4 ? mem - fixed : mem / 4;
}

/* The memory plan's terms at one chunk height, for chunk_room. */
typedef struct mem_terms {
    uint64_t held, fixed; /* chunk_room's */
    uint64_t per;         /* bytes per chunk */
    int need;             /* chunks needed at least */
    uint64_t preview;     /* the preview's image (at most half the budget), or 0 */
    uint64_t reader;      /* what the reader needs in its quarter (its mem_short), or 0 */
    /* Set: `held` and `reader` are asked of the job's input opened again
     * under each budget tried (what a reader holds grows with its
     * quarter); NULL: they stay as they are. */
    const pipeline *reopen;
} mem_terms;

/* 1 when a budget of `budget` bytes holds the terms `t`. */
static int budget_fits(const mem_terms *t, uint64_t budget)
{
    if (t->preview > budget / 2 || t->reader > budget / 4)
        return 0;
    const uint64_t room = chunk_room(budget, t->held, t->fixed);
    return t->per == 0 || room / t->per >= (uint64_t)t->need;
}

/* budget_fits, where t->reopen is set with what the job's reader holds
 * and lacks under a --mem of `budget`: the input opened again with it
 * (quietly), as the job run with that --mem would open it. */
static int fits_at(const mem_terms *t, uint64_t budget)
{
    if (t->reopen == NULL)
        return budget_fits(t, budget);
    const pipeline *p = t->reopen;
    winent_source_opts so;
    winent_source *s = NULL;
    winent_err e;
    winent_job_source_opts(p->plan.opts, &so);
    so.on_notice = NULL;
    so.threads = p->plan.threads;
    so.par = &p->par_hook; /* the job's workers: the readers plan by them */
    so.stop = p->stop;
    so.mem_bytes = budget;
    so.mem_auto = 0;
    so.gdal_cache_seen = winent_source_get_info(p->source)->gdal_cache_seen;
    if (winent_source_open(&so, &s, &e) != WINENT_OK)
        return budget_fits(t, budget);
    mem_terms at = *t;
    at.held = winent_source_get_info(s)->mem_held;
    at.reader = winent_source_get_info(s)->mem_short;
    if (at.reader)
        at.held = UINT64_MAX;
    winent_source_free(s);
    return budget_fits(&at, budget);
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

/* A budget that cannot hold the smallest chunks (`t`, `rows` high): the
 * message, naming the smallest --mem that does. */
static winent_status too_small(const pipeline *p, const mem_terms *t, int64_t rows, uint64_t given,
                               winent_err *err)
{
    mem_terms exact = *t;
    const winent_source_info *src = p->source ? winent_source_get_info(p->source) : NULL;
    /* A reader other than raw's plans by its quarter of --mem: the
     * advice asks it under each --mem tried, where the input can be
     * opened again (else its quarter counts whole when it is short). */
    if (!p->plan.mem_auto && src != NULL && src->reader != NULL &&
        strcmp(src->reader, "raw") != 0) {
        if (winent_can_read_twice(p->plan.opts->input, src))
            exact.reopen = p;
        else
            exact.held = UINT64_MAX; /* the whole quarter: X runs, if not the least */
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
                          (unsigned long long)(machine_bytes() >> 20));
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

/* What the workers (encoder state, CPU scratch beyond a fixed allowance:
 * with many threads it is no longer small beside the budget), the
 * preview's image, the sink's writer side (a COG's overview rows, once)
 * and the GPUs named (a GPU's context holds host memory of its own, about
 * 100 MiB seen on H100s; auto's are counted when they come) hold. */
static uint64_t fixed_bytes(const pipeline *p, uint64_t per_worker, uint64_t writer)
{
    const uint64_t allowance = (uint64_t)32 << 20;
    uint64_t fixed = per_worker * (uint64_t)p->plan.threads;
    fixed = fixed > allowance ? fixed - allowance : 0;
    if (p->plan.want_preview)
        fixed += winent_preview_fixed_bytes(&p->plan.preview_opts);
    return fixed + writer + WINENT_GPU_HOST_BYTES * (uint64_t)p->plan.ngpus;
}

/* The first chunk height to try: about CHUNK_PIXELS of all maps, whole
 * units, at least one CPU band, at most the image. */
static int64_t first_rows(const pipeline *p)
{
    const int64_t H = p->plan.height, U = p->plan.unit_rows,
                  W = p->plan.width > 0 ? p->plan.width : 1;
    /* Several maps: the same work per chunk (a chunk's pixels are
     * computed once per map), and memory in proportion. */
    int64_t rows = CHUNK_PIXELS / W / p->plan.nmaps;
    if (rows < p->plan.band_rows)
        rows = p->plan.band_rows;
    rows -= rows % U;
    if (rows < U)
        rows = U;
    if (rows > H)
        rows = H > 0 ? H : 1;
    return rows;
}

/* The ring's sizes once chunks of `rows` rows (`per` bytes each) fit
 * `fit` at once, `need` at least, `want` for full speed. */
static void set_ring(pipeline *p, int64_t rows, uint64_t per, uint64_t fit, int need, int want)
{
    const int64_t H = p->plan.height;
    p->plan.chunk_rows = (int)rows;
    p->ring.n_limit = fit < (uint64_t)want ? (int)fit : want;
    p->ring.n_fit = (int)(fit < (uint64_t)INT32_MAX ? fit : INT32_MAX);
    p->ring.n_need = need;
    p->plan.chunk_bytes = per;
    /* auto: room for the GPUs' slots, used only if they come up. */
    int extra = p->plan.auto_device ? 4 * p->plan.gpu_slots : 0;
    p->ring.n_max = fit < (uint64_t)(want + extra) ? (int)fit : want + extra;
    p->ring.nchunks = H == 0 ? 0 : (int)((H + rows - 1) / rows);
}

/* Chunk height: about CHUNK_PIXELS, whole units and at least one CPU band;
 * then as many chunks as the engines and encoders want, within the budget
 * (--mem, less what the source holds: `held`), smaller chunks (never below
 * one unit) where the budget is tight. */
winent_status winent_setup_chunks(pipeline *p, uint64_t held, uint64_t per_worker, uint64_t writer,
                                  winent_err *err)
{
    const uint64_t given = p->plan.mem_budget;
    const uint64_t reader = p->source ? winent_source_get_info(p->source)->mem_short : 0;
    /* A reader short of its quarter takes all of it at the budget that
     * holds it (the advice must hold whatever it then plans). */
    mem_terms t = {.held = reader ? UINT64_MAX : held,
                   .fixed = fixed_bytes(p, per_worker, writer),
                   .preview = p->plan.want_preview && !p->plan.mem_auto
                                  ? winent_preview_fixed_bytes(&p->plan.preview_opts)
                                  : 0,
                   .reader = reader};
    uint64_t mem = chunk_room(given, held, t.fixed);
    const int64_t U = p->plan.unit_rows;
    int64_t rows = first_rows(p);
    for (;;) {
        int bands = (int)((rows + p->plan.band_rows - 1) / p->plan.band_rows);
        int units = (int)((rows + U - 1) / U);
        /* Enough CPU chunks in flight for two bands per worker. */
        p->plan.cpu_slots = (2 * p->plan.threads + bands - 1) / bands;
        if (p->plan.cpu_slots < 2)
            p->plan.cpu_slots = 2;
        if (p->plan.cpu_slots > 16)
            p->plan.cpu_slots = 16;
        int want = chunks_wanted(p, bands, units);
        t.need = 2 + (p->plan.want_cpu ? 2 : 0) + (p->plan.ngpus ? p->plan.gpu_slots : 0);
        t.per = winent_ring_chunk_bytes(&p->ring, (uint64_t)rows);
        uint64_t fit = t.per ? mem / t.per : (uint64_t)want;
        if (fit < (uint64_t)t.need && rows <= U && p->plan.mem_auto) {
            /* No --mem given: the default grows by what the smallest
             * chunks still lack (the threads' own state took the rest). */
            p->plan.mem_budget += t.per * (uint64_t)t.need - mem;
            mem = t.per * (uint64_t)t.need;
            fit = (uint64_t)t.need;
        }
        const int fits = fit >= (uint64_t)t.need && (p->plan.mem_auto || budget_fits(&t, given));
        if (fits || rows <= U) {
            if (p->plan.mem_auto && (least_mib(&t) << 20) > machine_bytes() / 2)
                return too_small(p, &t, rows, given, err);
            if (!p->plan.mem_auto && !budget_fits(&t, given))
                return too_small(p, &t, rows, given, err);
            set_ring(p, rows, t.per, fit, t.need, want);
            return WINENT_OK;
        }
        int64_t half = rows / 2;
        half -= half % U;
        rows = half < U ? U : half;
    }
}
