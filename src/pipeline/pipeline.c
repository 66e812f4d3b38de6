/* SPDX-License-Identifier: BSD-3-Clause */
/* winent_run_stage: set up the source, the sink, the engines and the worker
 * pool, start the threads, and write the chunks in order from the calling
 * thread; the whole job (winent_job_run, winent_entropy) or one stage of it
 * alone (the benchmarks). Everything of a run lives in its `pipeline`: no
 * process-global state, so runs on different threads do not meet. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "pipeline_internal.h"
#include "tiles/georef.h"
#include "tiles/outfile.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Output pixels per chunk (of all its maps together): enough work to pay
 * for a chunk's hand-offs and a GPU's launches, small enough that a few
 * chunks per engine stay in flight in little memory. A function of nothing
 * the machine has. */
#define CHUNK_PIXELS ((int64_t)4 << 20)

static int all_cores(void)
{
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
#endif
}

/* Ints of one map entry of job_windows. */
#define WIN_FIELDS 4

/* The name of a measure of the job's that only the CPU computes (the
 * majority, which keeps no running sum for the GPU kernels to finish), or
 * NULL when the GPUs compute every map. */
static const char *winent_job_cpu_measure(const winent_job_opts *o)
{
    for (int i = 0; i < (o->nmeasure_list > 0 ? o->nmeasure_list : 1); i++) {
        const winent_measure m = o->nmeasure_list > 0 ? o->measure_list[i] : o->compute.measure;
        if (m == WINENT_MEASURE_MAJORITY)
            return winent_measure_name(m);
    }
    return NULL;
}

/* --device: auto, cpu, gpu, or a list of "cpu" and GPU numbers; the GPUs
 * named must be there (device errors). */
static winent_status pick_devices(pipeline *p, const winent_job_opts *o,
                                  const winent_device_list *parsed, winent_err *err)
{
    winent_device_list l;
    if (parsed)
        l = *parsed;
    else /* a stage alone (the benchmarks): not checked before */
        WINENT_TRY(winent_device_list_parse(o->device, &l, err));
    p->plan.ngpus = 0;
    /* The majority is the CPU's alone: a job with it stays there. */
    const char *cpu_only = winent_job_cpu_measure(o);
    if (cpu_only != NULL && !l.automatic && (l.all_gpus || l.ngpus > 0))
        return WINENT_ERR(err, WINENT_ERR_DEVICE,
                          "--device: the GPUs do not compute --measure %s: it runs on the CPU "
                          "(--device cpu or auto)",
                          cpu_only);
    if (l.automatic && cpu_only != NULL) {
        p->plan.want_cpu = 1;
        return WINENT_OK;
    }
    if (l.automatic) {
        /* The CPU starts at once; GPUs come in later if the job is long
         * enough to gain from them (winent_gpu_launcher). */
        p->plan.auto_device = 1;
        p->plan.want_cpu = 1;
        return WINENT_OK;
    }
    p->plan.want_cpu = l.cpu;
    if (l.cpu && !l.all_gpus && l.ngpus == 0)
        return WINENT_OK;
    return winent_devices_pick(&l, o->release_gpus, p->plan.gpu_ids, &p->plan.ngpus, err);
}

/* Default rows per .zst frame: about 4 MiB of floats, a multiple of 16
 * rows; a function of the width alone, so the same for every machine. */
static int default_frame_rows(int width)
{
    int64_t rows = ((int64_t)4 << 20) / (4 * (int64_t)(width > 0 ? width : 1));
    rows -= rows % 16;
    return rows < 16 ? 16 : rows > 4096 ? 4096 : (int)rows;
}

/* ---- Chunk geometry -------------------------------------------------- */

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
 * the advice of size_chunks both ask this function. */
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
static winent_status too_small(const pipeline *p, const mem_terms *t, int64_t rows,
                               uint64_t given, winent_err *err)
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
static winent_status size_chunks(pipeline *p, uint64_t held, uint64_t per_worker, uint64_t writer,
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

/* ---- Opening the job --------------------------------------------------- */

static winent_status open_source(pipeline *p, const winent_job_opts *o, winent_err *err)
{
    winent_source_opts so;
    winent_job_source_opts(o, &so);
    so.threads = p->plan.threads;
    so.par = &p->par_hook;
    so.stop = p->stop;
    return winent_source_open(&so, &p->source, err);
}

/* Every file the job will write (the sink's, the preview) against every
 * file it reads (the source's list: the input, its sidecars, GDAL's file
 * list; a --decode map) and against each other, once the input is open
 * and before anything is created (file_guard.h). */
static winent_status guard_files(const pipeline *p, const winent_job_opts *o,
                                 const winent_sink_opts *so, int sink, winent_err *err)
{
    winent_file_guard *g = NULL;
    winent_status st;
    WINENT_TRY(winent_file_guard_create(o->input, &g, err));
    if (p->source) {
        int n;
        const char *const *files = winent_source_files(p->source, &n);
        for (int i = 0; i < n; i++)
            WINENT_TRY_GOTO(st, winent_file_guard_read(g, files[i], err));
    } else if (p->map_in && o->input) {
        WINENT_TRY_GOTO(st, winent_file_guard_read(g, o->input, err));
    }
    if (sink)
        WINENT_TRY_GOTO(st, winent_sink_guard_files(so, g, err));
    if (o->preview && p->plan.stage == WINENT_STAGE_JOB) {
        WINENT_TRY_GOTO(st, winent_file_guard_write(g, o->preview, "--preview", err));
        /* Its legend, world file and PAM file, written beside it
         * (preview.h), are outputs as well. */
        char side[3][4096];
        winent_outfile_probe pp;
        if (winent_outfile_probe_path(o->preview, &pp, err) == WINENT_OK && !pp.in_place &&
            winent_preview_sidecar_names(o->preview, side[0], side[1], sizeof side[0]) == 0 &&
            winent_preview_legend_name(o->preview, side[2], sizeof side[2]) == 0) {
            WINENT_TRY_GOTO(st, winent_file_guard_write(g, side[0], "--preview world file", err));
            WINENT_TRY_GOTO(st, winent_file_guard_write(g, side[1], "--preview PAM file", err));
            WINENT_TRY_GOTO(st, winent_file_guard_write(g, side[2], "--preview legend", err));
        }
    }
    st = WINENT_OK;
fail:
    winent_file_guard_free(g);
    return st;
}

/* The options of band `b` read: the job's, with the source's type and the
 * band's nodata. */
static void band_opts(const pipeline *p, const winent_job_opts *o, int b, winent_compute_opts *co)
{
    const winent_source_info *info = winent_source_get_info(p->source);
    const winent_source_band *r = &info->read[b];
    co->dtype = info->dtype;
    /* --nodata beats the file's, unless the source marks its mask with
     * the nodata it delivers (it took --nodata in already). */
    if (r->nodata_is_mask || (!o->nodata_given && r->has_nodata)) {
        co->has_nodata = r->has_nodata;
        co->nodata = r->nodata;
    }
}

/* 1 when maps of options `a` and `b` compute alike (one plan, one CPU
 * engine serves both). */
static int same_compute(const winent_compute_opts *a, const winent_compute_opts *b)
{
    return a->kx == b->kx && a->ky == b->ky && a->disk == b->disk &&
           a->footprint == b->footprint && a->base == b->base &&
           a->measure == b->measure &&
           memcmp(&a->renyi_q, &b->renyi_q, sizeof a->renyi_q) == 0 &&
           a->dtype == b->dtype &&
           a->bins == b->bins && memcmp(&a->range_lo, &b->range_lo, sizeof a->range_lo) == 0 &&
           memcmp(&a->range_hi, &b->range_hi, sizeof a->range_hi) == 0 &&
           a->has_nodata == b->has_nodata &&
           (!a->has_nodata || memcmp(&a->nodata, &b->nodata, sizeof a->nodata) == 0);
}

/* The maps of one band of job `o`, as WIN_FIELDS ints each into `win`:
 * kx, ky, disk, and the index of the measure in o->measure_list (-1:
 * compute.measure): its windows (its list, else compute.kx/ky/disk), each
 * with every measure in the order given. Returns how many; usage errors
 * for a window given twice. */
static winent_status job_windows(const winent_job_opts *o, int **win, int *n, winent_err *err)
{
    int k = o->nwindow_list > 0 ? o->nwindow_list : 1;
    const int nm = o->nmeasure_list > 0 ? o->nmeasure_list : 1;
    *win = malloc(sizeof **win * WIN_FIELDS * (size_t)k * (size_t)nm);
    if (*win == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    for (int i = 0; i < k; i++) {
        int wi[3];
        wi[0] = o->nwindow_list > 0 ? o->window_list[2 * i] : o->compute.kx;
        wi[1] = o->nwindow_list > 0 ? o->window_list[2 * i + 1] : o->compute.ky;
        wi[2] = o->nwindow_list > 0 ? (o->window_disk && o->window_disk[i] ? 1 : 0)
                                    : (o->compute.disk ? 1 : 0);
        for (int j = 0; j < i; j++) {
            const int *wj = *win + WIN_FIELDS * nm * j;
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
            int *e = *win + WIN_FIELDS * (nm * i + m);
            e[0] = wi[0];
            e[1] = wi[1];
            e[2] = wi[2];
            e[3] = o->nmeasure_list > 0 ? m : -1;
        }
    }
    *n = k * nm;
    return WINENT_OK;
}

/* Map entry `e` of job_windows into the options `co`. */
static void map_entry_opts(const winent_job_opts *o, const int *e, winent_compute_opts *co)
{
    co->kx = e[0];
    co->ky = e[1];
    co->disk = e[2];
    if (e[3] >= 0) {
        co->measure = o->measure_list[e[3]];
        co->renyi_q = o->measure_q ? o->measure_q[e[3]] : 0.0;
    }
}

/* The maps of the job: for each band read (its options in cos[b]), each
 * window; a plan (and, with the CPU engine, a CPU engine later) for each
 * set of options, shared by equal ones. Sets p->plan.nmaps, p->plan.maps, p->plan.ry,
 * p->plan.band_plan, p->plan.first_plan. */
static winent_status make_maps(pipeline *p, const winent_job_opts *o,
                               const winent_compute_opts *cos, const int *win, int nwin,
                               winent_err *err)
{
    p->plan.nmaps = p->plan.nbands * nwin;
    p->plan.maps = calloc((size_t)p->plan.nmaps, sizeof *p->plan.maps);
    p->plan.band_plan = calloc((size_t)p->plan.nbands, sizeof *p->plan.band_plan);
    if (p->plan.maps == NULL || p->plan.band_plan == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    for (int m = 0; m < p->plan.nmaps; m++) {
        job_map *jm = &p->plan.maps[m];
        jm->band = m / nwin;
        jm->co = cos[jm->band];
        map_entry_opts(o, win + WIN_FIELDS * (m % nwin), &jm->co);
        for (int k = 0; k < m && jm->plan == NULL; k++)
            if (p->plan.maps[k].owner && same_compute(&p->plan.maps[k].co, &jm->co))
                jm->plan = p->plan.maps[k].plan;
        if (jm->plan == NULL) {
            WINENT_TRY(winent_plan_create(&jm->co, &jm->plan, err));
            jm->owner = 1;
        }
        if (jm->plan->ry > p->plan.ry)
            p->plan.ry = jm->plan->ry;
        if (m % nwin == 0)
            p->plan.band_plan[jm->band] = jm->plan;
    }
    p->plan.first_plan = p->plan.maps[0].plan;
    return WINENT_OK;
}

static void free_maps(pipeline *p)
{
    for (int m = 0; p->plan.maps && m < p->plan.nmaps; m++)
        if (p->plan.maps[m].owner) {
            winent_cpu_engine_free(p->plan.maps[m].cpu);
            winent_plan_free(p->plan.maps[m].plan);
        }
    free(p->plan.maps);
    free(p->plan.band_plan);
    free(p->plan.sink_maps);
    free(p->clamps);
    free(p->range_from);
    free(p->saturated);
}

static void sink_opts(const pipeline *p, const winent_job_opts *o, const winent_compute_opts *co,
                      winent_sink_opts *so)
{
    const winent_source_info *info = p->source ? winent_source_get_info(p->source) : NULL;
    const winent_zst_map *map = p->map_in ? winent_zst_reader_map(p->map_in) : NULL;
    memset(so, 0, sizeof *so);
    so->path = o->output ? o->output : "-";
    so->input_path = p->plan.mem_in ? NULL : o->input;
    so->format = o->format;
    so->width = p->plan.width;
    so->height = p->plan.height;
    so->level = o->level;
    so->frame_rows = o->frame_rows > 0 ? o->frame_rows : default_frame_rows(p->plan.width);
    so->tile = o->tile > 0 ? o->tile : 512;
    so->compress = o->compress;
    so->tif_layout = o->tif_layout;
    so->bigtiff = o->bigtiff;
    so->out_type = o->out_type;
    so->compute = co;
    so->par = &p->par_hook;
    so->source_name = o->input == NULL || p->plan.mem_in ? "memory"
                      : strcmp(o->input, "-") == 0       ? "standard input"
                                                         : o->input;
    so->georef = info ? info->georef : NULL;
    so->nodata_in_play = co->has_nodata || winent_dtype_is_float(co->dtype);
    so->command_line = o->command_line;
    so->source_band = p->plan.mem_in || info == NULL ? 0 : info->read[0].band;
    so->sidecar = o->sidecar;
    so->stop = p->stop;
    so->temps = p->temps;
    so->nmaps = p->plan.nmaps;
    so->maps = p->plan.sink_maps;
    if (map) {
        /* --decode: the map's own facts, as its header recorded them. */
        so->compute = &map->compute;
        so->source_name = map->source;
        so->georef = winent_georef_present(&map->georef) ? &map->georef : NULL;
        so->nodata_in_play = map->nodata_in_play;
        so->command_line = map->command_line;
        so->source_band = map->source_band;
    }
}

static void fill_stats(const pipeline *p, winent_job_stats *stats, double t_start)
{
    stats->wall_s = winent_now() - t_start;
    stats->setup_s = p->meter.first_submit_s > t_start ? p->meter.first_submit_s - t_start : 0.0;
    stats->pixels = (uint64_t)p->plan.width * (uint64_t)p->plan.height;
    stats->bytes_in = p->source ? winent_source_bytes_read(p->source)
                      : p->map_in ? winent_zst_reader_bytes_read(p->map_in)
                                  : 0;
    stats->bytes_out = p->plan.stage == WINENT_STAGE_ENCODE ? p->out.bytes
                       : p->sink                            ? winent_sink_bytes_written(p->sink)
                                                            : 0;
    stats->read.busy_s = p->meter.read_clock.busy_s;
    stats->read.wait_s = p->meter.read_clock.wait_s;
    stats->read.threads = 1;
    stats->compute.busy_s = p->meter.compute_clock.busy_s;
    stats->compute.threads = p->plan.threads;
    stats->encode.busy_s = p->meter.encode_clock.busy_s;
    stats->encode.threads = p->plan.threads;
    if (p->plan.store_out) { /* the pool's threads stored the rows */
        stats->write.busy_s += p->meter.store_s;
        stats->write.threads += p->plan.threads;
    }
    stats->chunk_rows = p->plan.chunk_rows;
    stats->chunks = p->ring.nchunks;
    int k = 0, gpus = 0;
    stats->engine[0] = '\0';
    for (int i = 0; i < p->set.nengines; i++) {
        const engine *e = &p->set.engines[i];
        if (e->device >= 0) {
            gpus++;
            stats->compute.busy_s += e->busy_s;
        }
        if (e->chunks_done == 0 || k >= (int)sizeof stats->engine - 24)
            continue;
        k += snprintf(stats->engine + k, sizeof stats->engine - (size_t)k, "%s%s:%lld",
                      k ? "+" : "", e->name, (long long)e->chunks_done);
    }
    stats->gpus = gpus;
    stats->compute.threads += gpus;
    stats->maps = p->plan.nmaps;
    stats->nbands = p->plan.nbands;
    const winent_source_info *info = p->source ? winent_source_get_info(p->source) : NULL;
    for (int b = 0; b < p->plan.nbands && b < WINENT_STATS_BANDS; b++) {
        winent_band_counts *bc = &stats->band[b];
        const winent_clamp_counts *c = &p->clamps[b];
        bc->band = info ? info->read[b].band : 0;
        if (!p->plan.count_clamps)
            continue;
        bc->range_lo = p->plan.band_plan[b]->opts.range_lo;
        bc->range_hi = p->plan.band_plan[b]->opts.range_hi;
        snprintf(bc->range_from, sizeof bc->range_from, "%s", p->range_from[b]);
        bc->clamped_below = c->below;
        bc->clamped_above = c->above;
        bc->valid_samples = c->valid;
        bc->samples_min = c->min <= c->max ? c->min : NAN;
        bc->samples_max = c->min <= c->max ? c->max : NAN;
    }
    if (p->plan.count_clamps) {
        const winent_band_counts *bc = &stats->band[0];
        stats->range_counted = 1;
        stats->range_lo = bc->range_lo;
        stats->range_hi = bc->range_hi;
        snprintf(stats->range_from, sizeof stats->range_from, "%s", bc->range_from);
        stats->clamped_below = bc->clamped_below;
        stats->clamped_above = bc->clamped_above;
        stats->valid_samples = bc->valid_samples;
        stats->samples_min = bc->samples_min;
        stats->samples_max = bc->samples_max;
    }
}

/* A range that does not fit the data, one warning line through on_notice
 * (the library never prints):
 * - more than 1 % of the valid samples lie outside it and were clamped into
 *   the end bins (too narrow, or shifted: a map of zeros where they pile);
 * - the valid samples span less than 5 % of it, so they fall in a few bins
 *   (far too wide: --range 0:100 on data in 0..1 leaves a map of few
 *   levels, or of zeros with fewer bins), though none is clamped. */
static void warn_range(const pipeline *p, const winent_job_opts *o, int k)
{
    const winent_clamp_counts *c = &p->clamps[k];
    const winent_plan *plan = p->plan.band_plan[k];
    const double lo = plan->opts.range_lo, hi = plan->opts.range_hi;
    const uint32_t bins = plan->rule.bins;
    uint64_t out = c->below + c->above;
    if (!p->plan.count_clamps || o->on_notice == NULL || c->valid == 0)
        return;
    char line[WINENT_MSG_LEN], range[256], band[32] = "";
    /* Several bands: each one's warning says which. */
    if (p->plan.nbands > 1)
        snprintf(band, sizeof band, "band %d: ",
                 winent_source_get_info(p->source)->read[k].band);
    if (winent_job_range_auto(o, plan->opts.dtype))
        snprintf(range, sizeof range, "--range auto (%.9g:%.9g from %s)", lo, hi,
                 p->range_from[k]);
    else
        snprintf(range, sizeof range, "--range %.9g:%.9g", lo, hi);
    if (out * 100 > c->valid) {
        snprintf(line, sizeof line,
                 "%swarning: %.1f %% of the samples (%llu of %llu) lie outside %s and were put in "
                 "the end bins (%llu below, %llu above): check the range, or use --range auto",
                 band, 100.0 * (double)out / (double)c->valid, (unsigned long long)out,
                 (unsigned long long)c->valid, range, (unsigned long long)c->below,
                 (unsigned long long)c->above);
        winent_one_line(line);
        o->on_notice(o->user, line);
        return;
    }
    /* Constant data fill one bin whatever the range: nothing to say. */
    if (!(c->max > c->min) || (c->max - c->min) >= 0.05 * (hi - lo))
        return;
    double a = floor((c->min - lo) * bins / (hi - lo)), b = floor((c->max - lo) * bins / (hi - lo));
    a = a < 0 ? 0 : a > bins - 1 ? bins - 1 : a;
    b = b < 0 ? 0 : b > bins - 1 ? bins - 1 : b;
    snprintf(line, sizeof line,
             "%swarning: the samples (%.6g to %.6g) span only %.2f %% of %s and fall in %.0f of "
             "its %u bins: check the range, or use --range auto",
             band, c->min, c->max, 100.0 * (c->max - c->min) / (hi - lo), range, b - a + 1, bins);
    winent_one_line(line);
    o->on_notice(o->user, line);
}

/* Count, as the writer retires chunks, the pixels at the top of each
 * map's scale (every pixel of their window in a bin of its own): more than
 * a quarter of them is a saturated map (a u16 DEM's distinct values), said
 * in one notice after the run (warn_saturated). */
static winent_status count_saturation(pipeline *p)
{
    p->saturated = calloc((size_t)p->plan.nmaps, sizeof *p->saturated);
    if (p->saturated == NULL)
        return WINENT_ERR_INTERNAL;
    for (int m = 0; m < p->plan.nmaps; m++) {
        saturation *s = &p->saturated[m];
        s->top = winent_compute_top(&p->plan.maps[m].co);
        /* Below the top by less than the step to the next entropy a window
         * can have (2 log 2 / n, relative 2e-6 for 255 x 255) and more
         * than the engines' rounding; a 1 x 1 window (top 0) never is. */
        s->at_top = s->top > 0.0 ? (float)(s->top * (1.0 - 5e-7)) : INFINITY;
        /* The notice speaks of the entropy: other measures are not counted
         * (the majority's top is a value, evenness 1 is any even window). */
        if (p->plan.maps[m].plan->measure.kind != WINENT_MEASURE_ENTROPY)
            s->at_top = INFINITY;
    }
    return WINENT_OK;
}

static void warn_saturated(const pipeline *p, const winent_job_opts *o, int m)
{
    static const char *const logs[] = {"ln", "log2", "log10"};
    static const char *const units[] = {"nats", "bits", "bans"};
    const saturation *s = &p->saturated[m];
    const winent_compute_opts *co = &p->plan.maps[m].co;
    if (o->on_notice == NULL || s->valid == 0 || s->top_count * 4 <= s->valid)
        return;
    char line[WINENT_MSG_LEN], which[64] = "", fix[96];
    const double n = (double)p->plan.maps[m].plan->area; /* a disk's: fewer than kx * ky */
    const uint32_t bins = p->plan.maps[m].plan->rule.quantize ? p->plan.maps[m].plan->rule.bins : 0;
    const int band = winent_source_get_info(p->source)->read[p->plan.maps[m].band].band;
    if (p->plan.nmaps > 1 && co->disk)
        snprintf(which, sizeof which, "band %d, window disk%d: ", band, co->kx / 2);
    else if (p->plan.nmaps > 1)
        snprintf(which, sizeof which, "band %d, window %dx%d: ", band, co->kx, co->ky);
    if (bins > 0)
        snprintf(fix, sizeof fix, "give fewer bins, e.g. --bins %u", bins > 64 ? 16 : bins / 4 + 1);
    else
        snprintf(fix, sizeof fix, "quantize the values, e.g. --bins 16 --range auto");
    snprintf(line, sizeof line,
             "%sthe map is saturated: %.1f %% of its valid pixels (%llu of %llu) are at the "
             "largest entropy, %s(%.0f) = %.4g %s, each pixel of their window in a bin of its "
             "own, so it shows where values differ, not how much; %s",
             which, 100.0 * (double)s->top_count / (double)s->valid,
             (unsigned long long)s->top_count, (unsigned long long)s->valid,
             logs[(unsigned)co->base <= WINENT_BASE_10 ? co->base : 0],
             bins > 0 && bins < n ? (double)bins : n, s->top,
             units[(unsigned)co->base <= WINENT_BASE_10 ? co->base : 0], fix);
    o->on_notice(o->user, line);
}

/* The preview's options (--preview in a whole job): the image's size; the
 * colours' stretch, --preview-range or else the image's own 2nd-98th
 * percentiles (found by the preview at the end), beside the largest
 * entropy the options allow, log of min(window pixels, bins); the map's
 * geotransform and EPSG code, for the world file and PAM file. */
static void preview_opts(pipeline *p, const winent_job_opts *o, const winent_compute_opts *co)
{
    winent_preview_opts *v = &p->plan.preview_opts;
    static const char *const units[] = {"nat", "bit", "ban"};
    static const char *const bases[] = {"e", "2", "10"};
    /* The window's pixels (a disk's: fewer), or the codes the data can
     * take, whichever is fewer: --bins, or 256 distinct values of 8-bit
     * samples (a u8 31x31 map holds at most 8 bits, not log2(961)). */
    double n = (double)p->plan.first_plan->area;
    if ((double)p->plan.first_plan->ncodes < n)
        n = (double)p->plan.first_plan->ncodes;
    memset(v, 0, sizeof *v);
    v->path = o->preview;
    v->map_width = p->plan.width;
    v->map_height = p->plan.height;
    v->size = o->preview_size > 0 ? o->preview_size : WINENT_PREVIEW_SIZE_DEFAULT;
    v->vmax = co->base == WINENT_BASE_2 ? log2(n) : co->base == WINENT_BASE_10 ? log10(n) : log(n);
    v->unit = units[co->base];
    if (co->measure != WINENT_MEASURE_ENTROPY && co->measure != WINENT_MEASURE_RENYI) {
        v->vmax = winent_compute_top(co); /* simpson, evenness: 0..1; richness: a count */
        v->unit = "";
    }
    v->stop = p->stop;
    v->range_given = o->preview_range;
    v->lo = o->preview_lo;
    v->hi = o->preview_hi;
    const winent_source_info *info = p->source ? winent_source_get_info(p->source) : NULL;
    if (info && info->georef) {
        v->has_geotransform = winent_georef_geotransform(info->georef, v->gt);
        v->epsg = winent_georef_epsg(info->georef);
    }
    v->temps = p->temps;
    int pw, ph;
    char win[32];
    winent_preview_dims(p->plan.width, p->plan.height, v->size, &pw, &ph);
    char what[64];
    winent_sink_window_name(co, win, sizeof win);
    if (co->measure == WINENT_MEASURE_ENTROPY)
        snprintf(what, sizeof what, "Local Shannon entropy");
    else
        winent_measure_text(co, what, sizeof what);
    snprintf(p->plan.preview_text, sizeof p->plan.preview_text,
             "%s (base %s), %s window, of %s: the %dx%d map at %dx%d, each "
             "pixel the mean of the valid map pixels of its block (at most %.6g %s), "
             "transparent where no pixel is valid",
             what, bases[co->base], win,
             o->input == NULL || p->plan.mem_in ? "memory"
             : strcmp(o->input, "-") == 0       ? "standard input"
                                                : o->input,
             p->plan.width, p->plan.height, pw, ph, v->vmax, v->unit);
    v->description = p->plan.preview_text;
}

/* A memory job's buffers into the pipeline: the rows' steps and extents. */
static winent_status set_memory(pipeline *p, const winent_job_opts *o, const winent_memory_io *mem,
                                winent_err *err)
{
    const size_t sample = winent_dtype_size(o->compute.dtype);
    const size_t w = o->width > 0 ? (size_t)o->width : 0, h = o->height > 0 ? (size_t)o->height : 0;
    if (mem->in == NULL)
        return WINENT_ERR(err, WINENT_ERR_USAGE, "a memory job needs its input buffer");
    p->plan.mem_in = mem->in;
    p->plan.mem_out = mem->out;
    p->plan.rows_stride = mem->in_row_bytes ? mem->in_row_bytes : w * sample;
    p->plan.map_stride = mem->out_row_floats ? mem->out_row_floats : w;
    if (p->plan.rows_stride < w * sample || p->plan.map_stride < w)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "rows %zu bytes apart cannot hold %zu samples of %zu bytes, or rows "
                          "%zu floats apart %zu floats",
                          p->plan.rows_stride, w, sample, p->plan.map_stride, w);
    p->plan.mem_in_stride = p->plan.rows_stride;
    p->plan.mem_out_stride = p->plan.map_stride;
    (void)h;
    return WINENT_OK;
}

/* A memory job on GPUs named whose buffers are the caller's own pinned
 * memory, rows packed: nothing is staged, the GPUs copy from and to them
 * directly (staging is then only the host's memory traffic twice over:
 * four H200s moved 8.75 Gpixel/s staged, 26 from pinned buffers;
 * docs/PERFORMANCE.md). */
static int callers_pinned(const pipeline *p)
{
    const size_t h = (size_t)p->plan.height, out = (size_t)p->plan.width * sizeof(float);
    if (p->plan.ngpus == 0 || p->plan.auto_device || p->plan.want_cpu || p->plan.sw.stage_memory ||
        p->plan.mem_in_stride != p->plan.row_bytes ||
        (p->plan.mem_out && p->plan.mem_out_stride != (size_t)p->plan.width))
        return 0;
    return winent_devices_pinned(p->plan.mem_in, p->plan.row_bytes * h * (size_t)p->plan.nbands) &&
           (p->plan.mem_out == NULL ||
            winent_devices_pinned(p->plan.mem_out, out * h * (size_t)p->plan.nmaps));
}

/* The run's locks and the fields every later step reads. */
static void init_state(pipeline *p, const winent_job_opts *o, winent_stage stage, const float *map)
{
    pthread_mutex_init(&p->lock, NULL);
    {
        pthread_condattr_t a;
        pthread_condattr_init(&a);
        pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
        pthread_cond_init(&p->work_cv, &a);
        pthread_cond_init(&p->state_cv, &a);
        pthread_condattr_destroy(&a);
    }
    winent_err_clear(&p->report.err);
    p->report.lock = &p->lock;
    p->report.wake[0] = &p->work_cv;
    p->report.wake[1] = &p->state_cv;
    p->report.stop = p->stop;
    p->plan.opts = o;
    winent_switches_read(&p->plan.sw);
    p->plan.mem_auto = o->mem_bytes == 0;
    p->plan.mem_budget = p->plan.mem_auto ? WINENT_MEM_DEFAULT : o->mem_bytes;
    p->plan.stage = stage;
    p->plan.stage_map = map;
    p->plan.threads = o->threads > 0 ? o->threads : all_cores();
    p->plan.gpu_slots = 3;
    p->plan.parts = 1;
    /* The chunks' ring: the plan, the input and output that say what a
     * chunk owns, the lock; the GPUs' pinning, lent to its buffers. */
    p->ring.plan = &p->plan;
    p->ring.in = &p->in;
    p->ring.out = &p->out;
    p->ring.lock = &p->lock;
    p->ring.state_cv = &p->state_cv;
    p->ring.work_cv = &p->work_cv;
    p->ring.stop = p->stop;
    p->ring.pin.pin = winent_gpu_engine_ops.pin;
    p->ring.pin.unpin = winent_gpu_engine_ops.unpin;
    p->par_hook.run = winent_pool_parallel_run;
    p->par_hook.ctx = &p->pool;
    p->par_hook.workers = p->plan.threads + 1; /* the pool and the reader */
}

/* Open what the job reads: a .zst map (--decode), the caller's memory,
 * or the source; the image's size and bands. With --decode, the windows
 * become one 1 x 1 per map of the file. */
static winent_status open_input(pipeline *p, const winent_job_opts *o, winent_stage stage,
                                int decoding, winent_compute_opts *co, int **win, int *nwin,
                                winent_err *err)
{
    p->plan.nbands = 1;
    if (decoding) {
        /* Nothing is computed: the plan only sizes the chunks (no halo). */
        WINENT_TRY(winent_zst_reader_open(o->input, &p->map_in, err));
        const winent_zst_map *map = winent_zst_reader_map(p->map_in);
        p->plan.width = map->width;
        p->plan.height = map->height;
        winent_compute_opts_default(co);
        co->kx = co->ky = 1;
        /* Each map of the file a plane of the chunks (one plan serves). */
        free(*win);
        *nwin = map->nmaps;
        if ((*win = malloc(sizeof **win * WIN_FIELDS * (size_t)*nwin)) == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        for (int k = 0; k < *nwin; k++) { /* 1 x 1, no disk, the job's measure */
            int *e = *win + WIN_FIELDS * k;
            e[0] = e[1] = 1;
            e[2] = 0;
            e[3] = -1;
        }
    } else if (p->plan.mem_in || stage == WINENT_STAGE_ENCODE) {
        p->plan.width = o->width;
        p->plan.height = o->height;
    } else {
        WINENT_TRY(open_source(p, o, err));
        const winent_source_info *info = winent_source_get_info(p->source);
        /* --nodata in the type of the band as read (a TIFF's, GDAL's). */
        if (o->nodata_given && o->compute.has_nodata)
            WINENT_TRY(winent_nodata_check(info->dtype, o->compute.nodata, o->words, err));
        p->plan.width = info->width;
        p->plan.height = info->height;
        p->plan.nbands = info->nread;
    }
    return WINENT_OK;
}

/* The maps as the sink sees them, and the sink: its units, and whether the
 * pool stores the rows at their place (raw floats to files, a staged
 * memory job). */
static winent_status open_output(pipeline *p, const winent_job_opts *o, winent_stage stage,
                                 int decoding, const winent_compute_opts *co, winent_err *err)
{
    if (p->plan.nmaps > 1) {
        p->plan.sink_maps = calloc((size_t)p->plan.nmaps, sizeof *p->plan.sink_maps);
        if (p->plan.sink_maps == NULL) {
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        }
        for (int m = 0; m < p->plan.nmaps; m++) {
            if (p->map_in) { /* --decode: the file's own maps */
                const winent_zst_map_entry *e = &winent_zst_reader_map(p->map_in)->maps[m];
                p->plan.sink_maps[m].source_band = e->source_band;
                p->plan.sink_maps[m].compute = &e->compute;
            } else {
                const winent_source_info *info = winent_source_get_info(p->source);
                p->plan.sink_maps[m].source_band = info->read[p->plan.maps[m].band].band;
                p->plan.sink_maps[m].compute = &p->plan.maps[m].co;
            }
        }
    }
    {
        winent_sink_opts so;
        sink_opts(p, o, co, &so);
        p->plan.format = winent_sink_format_of(&so);
        const int sink =
            (stage == WINENT_STAGE_JOB && p->plan.mem_out == NULL) || stage == WINENT_STAGE_ENCODE;
        if (sink || (o->preview && stage == WINENT_STAGE_JOB))
            WINENT_TRY(guard_files(p, o, &so, sink, err));
        if (sink) {
            WINENT_TRY(winent_sink_open(&so, &p->sink, err));
            p->plan.unit_rows = winent_sink_unit_rows(p->sink);
            p->plan.parts = winent_sink_unit_parts(p->sink);
            p->plan.raw_floats = stage == WINENT_STAGE_JOB && winent_sink_takes_floats(p->sink);
            /* Raw floats to files: the pool's threads write them by
             * offset (one writer thread tops out near 2-3 GB/s). */
            p->plan.store_out = p->plan.raw_floats && !decoding && winent_sink_writes_at(p->sink);
        } else {
            p->plan.unit_rows = winent_sink_unit_rows_for(&so);
        }
    }
    if (stage == WINENT_STAGE_JOB && p->plan.mem_out == NULL && p->map_in == NULL && o->on_notice &&
        count_saturation(p) != WINENT_OK)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    p->plan.store_out |= p->plan.store_mem;
    /* Where the maps go, picked once (output.c). */
    winent_output_open(&p->plan, p->sink, &p->out);
    p->plan.encodes = p->out.units;
    /* Copies in pieces of about 2 MiB (input rows) and 4 MiB (floats). */
    p->plan.fill_rows = (int)(((size_t)2 << 20) / (p->plan.row_bytes ? p->plan.row_bytes : 1));
    p->plan.fill_rows = p->plan.fill_rows < 1 ? 1 : p->plan.fill_rows;
    p->plan.store_rows = (int)(((size_t)1 << 20) / (p->plan.width > 0 ? (size_t)p->plan.width : 1));
    p->plan.store_rows = p->plan.store_rows < 1 ? 1 : p->plan.store_rows;
    return WINENT_OK;
}

/* --preview in a whole job: its options, and room for its image. */
static winent_status plan_preview(pipeline *p, const winent_job_opts *o,
                                  const winent_compute_opts *co, winent_err *err)
{
    p->plan.want_preview = 1;
    preview_opts(p, o, co);
    /* Tests: every chunk to the preview after compute, as a GPU's
     * are, so that path runs on machines without one. */
    p->plan.preview_after = p->plan.sw.preview_after;
    /* The image is held whole: at most half the budget, the rest is
     * the pipeline's (a --mem given too small is told by size_chunks,
     * with the least budget that holds the image and the chunks). */
    uint64_t img = winent_preview_fixed_bytes(&p->plan.preview_opts);
    if (img > p->plan.mem_budget / 2 && p->plan.mem_auto)
        p->plan.mem_budget = 2 * img; /* no --mem given: room for it */
    (void)err;
    return WINENT_OK;
}

/* The chunks' height and how many, within --mem, once every thread's own
 * state and what the source and the sink hold are counted. */
static winent_status size_job(pipeline *p, const winent_job_opts *o, const winent_compute_opts *co,
                              winent_err *err)
{
    winent_sink_opts so;
    sink_opts(p, o, co, &so);
    /* Every CPU engine has a scratch per worker. */
    uint64_t scratch = 0;
    for (int m = 0; m < p->plan.nmaps && p->plan.want_cpu; m++)
        if (p->plan.maps[m].owner)
            scratch += winent_cpu_scratch_bytes(p->plan.maps[m].plan, p->plan.width);
    uint64_t per_worker =
        (p->plan.encodes ? winent_sink_encoder_bytes_for(&so) : 0) + scratch +
        (p->plan.want_preview ? winent_preview_scratch_bytes(&p->plan.preview_opts) : 0);
    /* What the source holds (GDAL's block cache) comes out of --mem. */
    const uint64_t held = p->source ? winent_source_get_info(p->source)->mem_held : 0;
    uint64_t writer = p->sink ? winent_sink_writer_bytes_for(&so) : 0;
    if (p->plan.encodes)
        p->plan.unit_extra = winent_sink_unit_extra_bytes_for(&so);
    WINENT_TRY(size_chunks(p, held, per_worker, writer, err));
    p->plan.plane_bytes = (size_t)winent_ring_plane_bytes(&p->plan, (uint64_t)p->plan.chunk_rows);
    p->plan.map_plane = (size_t)p->plan.width * (size_t)p->plan.chunk_rows;
    return WINENT_OK;
}

/* Before anything is read: the output's and the preview's names, the
 * devices, the windows, and the options each window's plan would refuse.
 * *decoding_out: a --decode job. */
static winent_status check_job(pipeline *p, const winent_job_opts *o, winent_stage stage,
                               const winent_device_list *devices, int *decoding_out, int **win,
                               int *nwin, winent_err *err)
{
    if ((stage == WINENT_STAGE_JOB && !p->plan.mem_out) || stage == WINENT_STAGE_ENCODE)
        /* Before anything is opened: an output that is the input, an
         * unknown extension, a GeoTIFF to a stream. */
        WINENT_TRY(winent_output_check(p->plan.mem_in ? NULL : o->input,
                                       o->output ? o->output : "-", o->format, err));
    if (o->preview && stage == WINENT_STAGE_JOB)
        WINENT_TRY(winent_preview_check(o->preview, p->plan.mem_in ? NULL : o->input,
                                        p->plan.mem_out ? NULL
                                        : o->output     ? o->output
                                                        : "-",
                                        err));
    WINENT_TRY(pick_devices(p, o, devices, err));
    const int decoding = *decoding_out = o->decode && stage == WINENT_STAGE_JOB && !p->plan.mem_in;
    if (o->sidecar && stage == WINENT_STAGE_JOB && !p->plan.mem_out)
        WINENT_TRY(winent_sidecar_check(o->output ? o->output : "-", o->format, err));
    if (stage == WINENT_STAGE_DECODE || stage == WINENT_STAGE_ENCODE || decoding) {
        p->plan.want_cpu = 0;
        p->plan.ngpus = 0;
        p->plan.auto_device = 0;
    }
    if (p->plan.mem_in && (p->plan.ngpus > 0 || p->plan.auto_device) &&
        (stage == WINENT_STAGE_JOB || stage == WINENT_STAGE_COMPUTE)) {
        p->plan.fill_in = 1;
        p->plan.store_mem = p->plan.mem_out != NULL;
    }
    const int listed =
        o->nband_list > 0 || o->band_all || o->nwindow_list > 0 || o->nmeasure_list > 0;
    if (listed && (stage != WINENT_STAGE_JOB || p->plan.mem_in || p->plan.mem_out || decoding)) {
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "several bands or windows go with a whole job from an input (not a "
                          "stage alone, memory buffers or --decode)");
    }
    WINENT_TRY(job_windows(o, win, nwin, err));
    if ((o->dtype_given || p->plan.mem_in || stage == WINENT_STAGE_ENCODE) && !decoding) {
        /* Usage errors in the options come before any look at the input
         * (with --range auto, any range will do for the check). */
        winent_compute_opts check = o->compute;
        if (winent_job_range_auto(o, o->compute.dtype)) {
            check.range_lo = 0.0;
            check.range_hi = 1.0;
            if (check.bins == 0)
                check.bins = 256;
        }
        for (int w = 0; w < *nwin; w++) {
            winent_plan *plan = NULL;
            map_entry_opts(o, *win + WIN_FIELDS * w, &check);
            WINENT_TRY(winent_plan_create(&check, &plan, err));
            winent_plan_free(plan);
        }
    }
    return WINENT_OK;
}

/* The engines, then the threads: the pool, the engines' drivers, the
 * reader; the calling thread writes in order; then every thread joined.
 * A failure is in p->report. */
static void run_threads(pipeline *p, winent_job_stats *stats, double t_start)
{
    pthread_t reader;
    int reader_started = 0;
    if (p->plan.want_cpu)
        (void)winent_engine_add(p, &winent_cpu_engine_ops, -1, p->plan.cpu_slots);
    for (int i = 0; i < p->plan.ngpus; i++)
        (void)winent_engine_add(p, &winent_gpu_engine_ops, p->plan.gpu_ids[i], p->plan.gpu_slots);

    /* Start the threads: the pool, the engines' drivers, the reader. */
    p->pool.work = winent_tasks_work(p);
    p->pool.trace = p->trace;
    p->pool.lane0 = LANE_WORKER(0);
    int started_all = winent_pool_start(&p->pool);
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->set.nengines && started_all; i++) {
        engine *e = &p->set.engines[i];
        if (pthread_create(&e->thread, NULL, winent_engine_driver, e) != 0)
            started_all = 0;
        else
            e->started = 1;
    }
    if (started_all)
        winent_gpus_launch_early_locked(p, NULL);
    pthread_mutex_unlock(&p->lock);
    if (started_all && pthread_create(&reader, NULL, winent_stage_reader, p) == 0)
        reader_started = 1;
    if (!reader_started) {
        winent_err e;
        winent_err_clear(&e);
        WINENT_ERR(&e, WINENT_ERR_INTERNAL, "cannot start the pipeline's threads");
        winent_report_fail(&p->report, &e);
    } else {
        winent_stage_write_in_order(p, stats, t_start);
    }
    if (reader_started)
        pthread_join(reader, NULL);
    /* The launcher adds engines: join it before the engines. */
    pthread_mutex_lock(&p->lock);
    int launcher = p->set.launcher_started;
    pthread_mutex_unlock(&p->lock);
    if (launcher)
        pthread_join(p->set.launcher, NULL);
    for (int i = 0; i < p->set.nengines; i++)
        if (p->set.engines[i].started)
            pthread_join(p->set.engines[i].thread, NULL);
    winent_pool_join(&p->pool);
    p->meter.read_clock.busy_s += p->pool.par_s; /* the reader's decoding, on the pool */
}

/* Each band's options (its nodata, its range: --range auto looks at the
 * data now), then the maps: bands x windows, plans shared where equal. */
static winent_status make_job_maps(pipeline *p, const winent_job_opts *o, winent_stage stage,
                                   int decoding, const winent_compute_opts *co, const int *win,
                                   int nwin, winent_err *err)
{
    winent_status st = WINENT_OK;
    winent_compute_opts *cos = NULL; /* each band's */
    cos = calloc((size_t)p->plan.nbands, sizeof *cos);
    p->clamps = calloc((size_t)p->plan.nbands, sizeof *p->clamps);
    p->range_from = calloc((size_t)p->plan.nbands, sizeof *p->range_from);
    if (cos == NULL || p->clamps == NULL || p->range_from == NULL) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        goto fail;
    }
    for (int b = 0; b < p->plan.nbands; b++) {
        cos[b] = *co;
        if (p->source)
            band_opts(p, o, b, &cos[b]);
        winent_clamp_init(&p->clamps[b]);
        snprintf(p->range_from[b], sizeof p->range_from[b], "--range");
    }
    if (winent_job_range_auto(o, cos[0].dtype) && !decoding && stage != WINENT_STAGE_ENCODE) {
        WINENT_TRY_GOTO(st, winent_range_auto(p, o, cos, p->plan.nbands, err));
        if (!o->range_auto)
            winent_range_default_notice(p, o, cos);
    }
    WINENT_TRY_GOTO(st, make_maps(p, o, cos, win, nwin, err));
fail:
    free(cos);
    return st;
}

/* The CPU engine of each plan (a map of the same plan shares it). */
static winent_status make_cpu_engines(pipeline *p, winent_err *err)
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
    return WINENT_OK;
}

static winent_status run_job(const winent_job_opts *o, winent_stage stage,
                             const winent_memory_io *mem, const float *map, volatile int *stop,
                             winent_tempnames *temps, const winent_device_list *devices,
                             winent_job_stats *stats, winent_err *err_out)
{
    winent_status st = WINENT_OK;
    pipeline *p = calloc(1, sizeof *p);
    winent_plan *plan = NULL;
    volatile int own_stop = 0; /* outlives every thread of the run (all joined) */
    winent_err err;
    winent_compute_opts co = o->compute;
    int *win = NULL, nwin = 0;
    int sync_ready = 0;
    double t_start = winent_now();
    winent_err_clear(&err);
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (stop == NULL)
        stop = &own_stop;
    if (p == NULL) {
        st = WINENT_ERR(&err, WINENT_ERR_INTERNAL, "out of memory");
        goto out;
    }
    p->stop = stop;
    p->temps = temps;
    if (CANCELLED(p)) { /* cancelled before the run: nothing is opened */
        st = WINENT_ERR(&err, WINENT_ERR_INTERRUPTED, "interrupted");
        goto out;
    }
    init_state(p, o, stage, map);
    sync_ready = 1;
    if (stage == WINENT_STAGE_ENCODE && map == NULL) {
        st = WINENT_ERR(&err, WINENT_ERR_USAGE, "the encode stage needs a map");
        goto fail;
    }
    if (mem && stage != WINENT_STAGE_ENCODE)
        WINENT_TRY_GOTO(st, set_memory(p, o, mem, &err));

    int decoding = 0;
    WINENT_TRY_GOTO(st, check_job(p, o, stage, devices, &decoding, &win, &nwin, &err));
    WINENT_TRY_GOTO(st, open_input(p, o, stage, decoding, &co, &win, &nwin, &err));
    WINENT_TRY_GOTO(st, make_job_maps(p, o, stage, decoding, &co, win, nwin, &err));
    co = p->plan.maps[0].co;
    plan = p->plan.maps[0].plan;
    p->plan.sample = winent_dtype_size(co.dtype);
    p->plan.row_bytes = p->plan.sample * (size_t)p->plan.width;
    if (p->plan.fill_in && callers_pinned(p))
        p->plan.fill_in = p->plan.store_mem =
            0; /* the GPUs copy from and to the caller's buffers */
    if (p->plan.mem_in == NULL || p->plan.fill_in)
        p->plan.rows_stride = p->plan.row_bytes;
    if (p->plan.mem_out == NULL || p->plan.store_mem)
        p->plan.map_stride = (size_t)p->plan.width;
    if (p->plan.fill_in) /* a chunk in place has the caller's steps: they must be these */
        p->plan.stage_all = p->plan.ngpus > 0 || p->plan.sw.stage_memory ||
                            p->plan.mem_in_stride != p->plan.row_bytes ||
                            (p->plan.mem_out && p->plan.mem_out_stride != (size_t)p->plan.width);
    WINENT_TRY_GOTO(st, open_output(p, o, stage, decoding, &co, &err));
    /* What the job reads, picked once (input.c). */
    WINENT_TRY_GOTO(st, winent_input_open(&p->plan, p->source, p->map_in, &p->in, &err));
    for (int m = 0; m < p->plan.nmaps; m++) {
        int rows = winent_cpu_band_rows(p->plan.maps[m].plan, p->plan.width);
        p->plan.band_rows = rows > p->plan.band_rows ? rows : p->plan.band_rows;
    }
    if (o->preview && stage == WINENT_STAGE_JOB)
        WINENT_TRY_GOTO(st, plan_preview(p, o, &co, &err));
    /* Clamp counting: every quantized job that computes. The CPU's bands
     * count their own rows; the pool counts a GPU's chunks in pieces of
     * about 1 Mpixel of rows. */
    p->plan.count_clamps = plan->rule.quantize && !decoding &&
                           (stage == WINENT_STAGE_JOB || stage == WINENT_STAGE_COMPUTE);
    p->plan.count_rows = (int)((1 << 20) / (p->plan.width > 0 ? p->plan.width : 1));
    if (p->plan.count_rows < 1)
        p->plan.count_rows = 1;
    WINENT_TRY_GOTO(st, size_job(p, o, &co, &err));
    WINENT_TRY_GOTO(st, winent_trace_create(p->plan.sw.trace, WINENT_TRACE_LANES(p),
                                            32 * p->ring.nchunks + 256, &p->trace, &err));
    winent_trace_name(p->trace, LANE_READER, "reader");
    winent_trace_name(p->trace, LANE_WRITER, "writer");
    for (int w = 0; w < p->plan.threads && p->trace; w++) {
        char name[16];
        snprintf(name, sizeof name, "pool%d", w);
        winent_trace_name(p->trace, LANE_WORKER(w), name);
    }
    if (p->plan.want_preview)
        /* Its file is opened now, as the output's: a folder that cannot
         * take it fails the job before any work. */
        WINENT_TRY_GOTO(st, winent_preview_open(&p->plan.preview_opts,
                                                (int64_t)p->ring.n_max * p->plan.chunk_rows,
                                                &p->preview, &err));
    WINENT_TRY_GOTO(st, make_cpu_engines(p, &err));
    p->ring.chunks = calloc((size_t)p->ring.n_max, sizeof *p->ring.chunks);
    if (p->ring.chunks == NULL) {
        st = WINENT_ERR(&err, WINENT_ERR_INTERNAL, "out of memory");
        goto fail;
    }
    WINENT_TRY_GOTO(st, winent_pool_init(&p->pool, p->plan.threads, &p->lock, &p->work_cv,
                                         &p->state_cv, p->stop, &err));
    run_threads(p, stats, t_start);
    if (p->report.err.status != WINENT_OK) {
        winent_err_clear(&err);
        winent_err_merge(&err, &p->report.err);
        st = err.status;
    } else if (err.status != WINENT_OK) {
        st = err.status;
    }
    if (stats)
        fill_stats(p, stats, t_start);
    for (int b = 0; b < p->plan.nbands && st == WINENT_OK; b++)
        warn_range(p, o, b);
    for (int m = 0; p->saturated && m < p->plan.nmaps && st == WINENT_OK; m++)
        warn_saturated(p, o, m);
    if (st == WINENT_OK && p->source) {
        const winent_source_info *info = winent_source_get_info(p->source);
        winent_other_bands_notice(o, info->bands, info->nodata_is_mask, info->name);
    }
    if (st == WINENT_OK)
        st = winent_trace_finish(p->trace, t_start, &err);
fail:
    winent_trace_free(p->trace);
    if (p->sink && (st != WINENT_OK || stage != WINENT_STAGE_JOB))
        winent_sink_abort(p->sink);
    if (st != WINENT_OK)
        winent_preview_abort(p->preview);
    winent_preview_free(p->preview);
    winent_pool_free(&p->pool);
    if (p->ring.chunks)
        for (int i = 0; i < p->ring.n_max; i++)
            winent_chunk_free(&p->ring, &p->ring.chunks[i]);
    free(p->ring.chunks);
    winent_sink_free(p->sink);
    winent_input_close(&p->in);
    winent_source_free(p->source);
    winent_zst_reader_free(p->map_in);
    free_maps(p);
    free(win);
    if (sync_ready) {
        pthread_cond_destroy(&p->work_cv);
        pthread_cond_destroy(&p->state_cv);
        pthread_mutex_destroy(&p->lock);
    }
out:
    /* A failure after a cancel is the cancel's doing (a read or a write
     * that gave up, a stage that stopped): the job was interrupted. */
    if (__atomic_load_n(stop, __ATOMIC_RELAXED) == WINENT_STOP_CANCEL && st != WINENT_OK) {
        st = WINENT_ERR_INTERRUPTED;
        winent_err_clear(&err);
        WINENT_ERR(&err, st, "interrupted");
    }
    if (st != WINENT_OK && err.status == WINENT_OK)
        st = WINENT_ERR(&err, WINENT_ERR_INTERNAL, "internal error: a failure without a message");
    if (err_out) {
        winent_err_clear(err_out);
        winent_err_merge(err_out, &err);
    }
    free(p);
    return st;
}

winent_status winent_run_stage(const winent_job_opts *o, winent_stage stage,
                               const winent_memory_io *mem, const float *map, winent_run_ctl *ctl,
                               winent_job_stats *stats, winent_err *err)
{
    return winent_run_job(o, stage, mem, map, ctl, NULL, stats, err);
}

winent_status winent_run_job(const winent_job_opts *o, winent_stage stage,
                             const winent_memory_io *mem, const float *map, winent_run_ctl *ctl,
                             const winent_device_list *devices, winent_job_stats *stats,
                             winent_err *err)
{
    return run_job(o, stage, mem, map, ctl ? &ctl->stop : NULL, ctl ? &ctl->temps : NULL, devices,
                   stats, err);
}
