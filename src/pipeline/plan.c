/* SPDX-License-Identifier: BSD-3-Clause */
/* The job's plan as pure functions of the options and of plain
 * descriptors (plan.h): the threads, the budget, the devices, the rows and
 * their steps, whether chunks are staged, the output's pieces, the
 * preview's options, the clamp counting, and the chunks' height and count
 * within --mem. Nothing here opens, allocates or reads the clock, so
 * test_plan checks it as tables. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "kernels/range_count.h"
#include "plan.h"
#include "tiles/georef.h"

/* Output pixels per chunk (of all its maps together): enough work to pay
 * for a chunk's hand-offs and a GPU's launches, small enough that a few
 * chunks per engine stay in flight in little memory. A function of nothing
 * the machine has. */
#define CHUNK_PIXELS ((int64_t)4 << 20)

/* ---- Before the input is opened ---------------------------------------- */

/* A memory job's buffers: the rows' steps (the caller's, else packed). */
static winent_status plan_memory(const winent_job_opts *o, const winent_memory_io *mem,
                                 job_plan *pl, winent_err *err)
{
    const size_t sample = winent_dtype_size(o->compute.dtype);
    const size_t w = o->width > 0 ? (size_t)o->width : 0;
    if (mem->in == NULL)
        return WINENT_ERR(err, WINENT_ERR_USAGE, "a memory job needs its input buffer");
    pl->mem_in = mem->in;
    pl->mem_out = mem->out;
    pl->rows_stride = mem->in_row_bytes ? mem->in_row_bytes : w * sample;
    pl->map_stride = mem->out_row_floats ? mem->out_row_floats : w;
    if (pl->rows_stride < w * sample || pl->map_stride < w)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "rows %zu bytes apart cannot hold %zu samples of %zu bytes, or rows "
                          "%zu floats apart %zu floats",
                          pl->rows_stride, w, sample, pl->map_stride, w);
    pl->mem_in_stride = pl->rows_stride;
    pl->mem_out_stride = pl->map_stride;
    return WINENT_OK;
}

winent_status winent_job_plan_start(const winent_job_opts *o, const job_host *h, job_plan *pl,
                                    winent_err *err)
{
    memset(pl, 0, sizeof *pl);
    pl->sw = h->sw;
    pl->on_progress = o->on_progress;
    pl->on_notice = o->on_notice;
    pl->user = o->user;
    pl->release_gpus = o->release_gpus;
    pl->mem_auto = o->mem_bytes == 0;
    pl->mem_budget = pl->mem_auto ? WINENT_MEM_DEFAULT : o->mem_bytes;
    pl->machine_bytes = h->machine_bytes;
    pl->stage = h->stage;
    pl->stage_map = h->stage_map;
    pl->threads = o->threads > 0 ? o->threads : h->cores;
    pl->gpu_slots = 3;
    pl->parts = 1;
    if (h->stage == WINENT_STAGE_ENCODE && h->stage_map == NULL)
        return WINENT_ERR(err, WINENT_ERR_USAGE, "the encode stage needs a map");
    if (h->mem && h->stage != WINENT_STAGE_ENCODE)
        WINENT_TRY(plan_memory(o, h->mem, pl, err));
    pl->decoding = o->decode && h->stage == WINENT_STAGE_JOB && !pl->mem_in;
    return WINENT_OK;
}

/* ---- The maps' options -------------------------------------------------- */

void winent_job_plan_band(const winent_job_opts *o, int decoding, winent_dtype dtype,
                          const winent_source_band *band, winent_compute_opts *co)
{
    if (decoding) { /* nothing is computed: 1 x 1, to size the chunks (no halo) */
        winent_compute_opts_default(co);
        co->kx = co->ky = 1;
        return;
    }
    *co = o->compute;
    if (band == NULL)
        return;
    co->dtype = dtype;
    /* --nodata beats the file's, unless the source marks its mask with
     * the nodata it delivers (it took --nodata in already). */
    if (band->nodata_is_mask || (!o->nodata_given && band->has_nodata)) {
        co->has_nodata = band->has_nodata;
        co->nodata = band->nodata;
    }
}

void winent_job_plan_map_entry(const winent_job_opts *o, const int *e, winent_compute_opts *co)
{
    co->kx = e[0];
    co->ky = e[1];
    co->disk = e[2];
    if (e[3] >= 0) {
        co->measure = o->measure_list[e[3]];
        co->renyi_q = o->measure_q ? o->measure_q[e[3]] : 0.0;
    }
}

/* ---- Devices, rows, output ---------------------------------------------- */

/* The engines picked (none for a stage that computes nothing), and whether
 * a memory job's chunks copy the caller's rows in and out. */
static void plan_devices(const job_host *h, job_plan *pl)
{
    pl->want_cpu = h->want_cpu;
    pl->auto_device = h->auto_device;
    pl->ngpus = h->ngpus;
    memcpy(pl->gpu_ids, h->gpu_ids, sizeof pl->gpu_ids);
    if (pl->stage == WINENT_STAGE_DECODE || pl->stage == WINENT_STAGE_ENCODE || pl->decoding) {
        pl->want_cpu = 0;
        pl->ngpus = 0;
        pl->auto_device = 0;
    }
    if (pl->mem_in && (pl->ngpus > 0 || pl->auto_device) &&
        (pl->stage == WINENT_STAGE_JOB || pl->stage == WINENT_STAGE_COMPUTE)) {
        pl->fill_in = 1;
        pl->store_mem = pl->mem_out != NULL;
    }
}

/* A memory job on GPUs named whose buffers are the caller's own pinned
 * memory, rows packed: nothing is staged, the GPUs copy from and to them
 * directly (staging is then only the host's memory traffic twice over:
 * four H200s moved 8.75 Gpixel/s staged, 26 from pinned buffers;
 * docs/PERFORMANCE.md). */
static int callers_pinned(const job_plan *pl, const job_source_info *src)
{
    if (pl->ngpus == 0 || pl->auto_device || pl->want_cpu || pl->sw.stage_memory ||
        src->nmaps > 1 ||
        pl->mem_in_stride != pl->row_bytes ||
        (pl->mem_out && pl->mem_out_stride != (size_t)pl->width))
        return 0;
    return src->mem_pinned;
}

/* The rows' sizes and steps once the maps are known: the caller's where
 * a memory job computes in place, else the packed rows of our buffers. */
static void plan_rows(job_plan *pl, const job_source_info *src, const winent_compute_opts *co)
{
    pl->sample = winent_dtype_size(co->dtype);
    pl->row_bytes = pl->sample * (size_t)pl->width;
    if (pl->fill_in && callers_pinned(pl, src))
        pl->fill_in = pl->store_mem = 0; /* the GPUs copy from and to the caller's buffers */
    if (pl->mem_in == NULL || pl->fill_in)
        pl->rows_stride = pl->row_bytes;
    if (pl->mem_out == NULL || pl->store_mem)
        pl->map_stride = (size_t)pl->width;
    if (pl->fill_in) /* a chunk in place has the caller's steps: they must be these */
        pl->stage_all = pl->ngpus > 0 || pl->sw.stage_memory ||
                        pl->mem_in_stride != pl->row_bytes ||
                        (pl->mem_out && pl->mem_out_stride != (size_t)pl->width);
}

/* What the sink (or the memory job's buffers) takes: units to encode,
 * float rows in order, or rows stored at their place by the pool (raw
 * floats to files: one writer thread tops out near 2-3 GB/s); what a
 * chunk owns; the copies' pieces. As input.c and output.c pick. */
static void plan_output(const job_sink_info *snk, job_plan *pl)
{
    pl->format = snk->format;
    pl->unit_rows = snk->unit_rows;
    if (snk->opened) {
        pl->parts = snk->parts;
        pl->raw_floats = pl->stage == WINENT_STAGE_JOB && snk->takes_floats;
        pl->store_out = pl->raw_floats && !pl->decoding && snk->writes_at;
    }
    pl->store_out |= pl->store_mem;
    pl->encodes = pl->stage == WINENT_STAGE_ENCODE ||
                  (pl->stage == WINENT_STAGE_JOB && !pl->mem_out && !pl->store_out &&
                   !pl->raw_floats);
    pl->own_rows = pl->stage == WINENT_STAGE_ENCODE || pl->decoding ? 0
                   : pl->mem_in                                    ? pl->fill_in
                                                                   : 1;
    pl->own_map = pl->stage == WINENT_STAGE_ENCODE || pl->stage == WINENT_STAGE_DECODE ? 0
                  : pl->mem_out                                                     ? pl->store_mem
                                                                                    : 1;
    /* Copies in pieces of about 2 MiB (input rows) and 4 MiB (floats). */
    pl->fill_rows = (int)(((size_t)2 << 20) / (pl->row_bytes ? pl->row_bytes : 1));
    pl->fill_rows = pl->fill_rows < 1 ? 1 : pl->fill_rows;
    pl->store_rows = (int)(((size_t)1 << 20) / (pl->width > 0 ? (size_t)pl->width : 1));
    pl->store_rows = pl->store_rows < 1 ? 1 : pl->store_rows;
}

/* ---- The preview ---------------------------------------------------------- */

/* The input as the preview's description names it. */
static const char *input_name(const winent_job_opts *o, const job_plan *pl)
{
    return o->input == NULL || pl->mem_in    ? "memory"
           : strcmp(o->input, "-") == 0      ? "standard input"
                                             : o->input;
}

/* The preview's options (--preview in a whole job): the image's size; the
 * colours' stretch, --preview-range or else the image's own 2nd-98th
 * percentiles (found by the preview at the end), beside the largest
 * entropy the options allow, log of min(window pixels, bins); the map's
 * geotransform and EPSG code, for the world file and PAM file. The stop
 * flag and the temporary names are setup's to lend. */
static void plan_preview(const winent_job_opts *o, const job_source_info *src,
                         const winent_compute_opts *co, job_plan *pl)
{
    winent_preview_opts *v = &pl->preview_opts;
    static const char *const units[] = {"nat", "bit", "ban"};
    static const char *const bases[] = {"e", "2", "10"};
    /* The window's pixels (a disk's: fewer), or the codes the data can
     * take, whichever is fewer: --bins, or 256 distinct values of 8-bit
     * samples (a u8 31x31 map holds at most 8 bits, not log2(961)). */
    double n = (double)pl->first_plan->area;
    if ((double)pl->first_plan->ncodes < n)
        n = (double)pl->first_plan->ncodes;
    pl->want_preview = 1;
    memset(v, 0, sizeof *v);
    v->path = o->preview;
    v->map_width = pl->width;
    v->map_height = pl->height;
    v->size = o->preview_size > 0 ? o->preview_size : WINENT_PREVIEW_SIZE_DEFAULT;
    v->vmax = co->base == WINENT_BASE_2 ? log2(n) : co->base == WINENT_BASE_10 ? log10(n) : log(n);
    v->unit = units[co->base];
    if (co->measure != WINENT_MEASURE_ENTROPY && co->measure != WINENT_MEASURE_RENYI) {
        v->vmax = winent_compute_top(co); /* simpson, evenness: 0..1; richness: a count */
        v->value_lo = winent_measure_bottom(co); /* a correlation's -1, signed classes */
        v->unit = "";
    }
    /* A class map's preview samples its classes (preview.h): the rule of
     * its overviews, the mode, needs a block's whole histogram, which a
     * streamed preview of any block size has no bounded room for. */
    v->categorical = winent_measure_overview_rule(co->measure) == WINENT_OVERVIEW_MODE;
    v->range_given = o->preview_range;
    v->lo = o->preview_lo;
    v->hi = o->preview_hi;
    if (src->georef) {
        v->has_geotransform = winent_georef_geotransform(src->georef, v->gt);
        v->epsg = winent_georef_epsg(src->georef);
    }
    int pw, ph;
    char win[32], what[64];
    winent_preview_dims(pl->width, pl->height, v->size, &pw, &ph);
    winent_sink_window_name(co, win, sizeof win);
    if (co->measure == WINENT_MEASURE_ENTROPY)
        snprintf(what, sizeof what, "Local Shannon entropy");
    else
        winent_measure_text(co, what, sizeof what);
    snprintf(pl->preview_text, sizeof pl->preview_text,
             v->categorical
                 ? "%s (base %s), %s window, of %s: the %dx%d map at %dx%d, each "
                   "pixel the class of its block's centre pixel (classes: a mean of two is "
                   "none; at most %.6g %s), transparent where that pixel has none"
                 : "%s (base %s), %s window, of %s: the %dx%d map at %dx%d, each "
                   "pixel the mean of the valid map pixels of its block (at most %.6g %s), "
                   "transparent where no pixel is valid",
             what, bases[co->base], win, input_name(o, pl), pl->width, pl->height, pw, ph, v->vmax,
             v->unit);
    v->description = pl->preview_text;
    /* Tests: every chunk to the preview after compute, as a GPU's
     * are, so that path runs on machines without one. */
    pl->taps_after = pl->sw.preview_after;
    winent_tap_preview_plan(pl); /* its open rows, which a chunk's count holds */
    /* The image is held whole: at most half the budget, the rest is
     * the pipeline's (a --mem given too small is told with the least
     * budget that holds the image and the chunks). */
    const uint64_t img = winent_preview_fixed_bytes(v);
    if (img > pl->mem_budget / 2 && pl->mem_auto)
        pl->mem_budget = 2 * img; /* no --mem given: room for it */
}

/* ---- The chunks within --mem -------------------------------------------- */

uint64_t winent_plan_plane_bytes(const job_plan *pl, uint64_t rows)
{
    return ((uint64_t)pl->row_bytes * (rows + 2 * (uint64_t)pl->ry) + 63) / 64 * 64;
}

uint64_t winent_plan_chunk_bytes(const job_plan *pl, uint64_t rows)
{
    const uint64_t W = (uint64_t)pl->width, maps = (uint64_t)pl->nmaps;
    uint64_t b = 0;
    if (pl->tap_rows.bytes) /* what a tap holds for them (the preview's open rows) */
        b += pl->tap_rows.bytes(pl->tap_rows.ctx, rows);
    if (pl->own_rows)
        b += winent_huge_round(winent_plan_plane_bytes(pl, rows) * (uint64_t)pl->nbands);
    if (pl->own_map)
        b += winent_huge_round(W * rows * 4 * maps);
    if (pl->encodes)
        b += (W * rows * 2 + (rows + pl->unit_rows - 1) / pl->unit_rows * pl->unit_extra) * maps;
    return b;
}

uint64_t winent_plan_chunk_room(uint64_t budget, uint64_t held, uint64_t fixed)
{
    const uint64_t mem = budget - (held < budget / 4 ? held : budget / 4);
    return mem > fixed + mem / 4 ? mem - fixed : mem / 4;
}

int winent_plan_budget_fits(const job_mem_terms *t, uint64_t budget)
{
    if (t->preview > budget / 2 || t->reader > budget / 4)
        return 0;
    const uint64_t room = winent_plan_chunk_room(budget, t->held, t->fixed);
    return t->per == 0 || room / t->per >= (uint64_t)t->need;
}

/* The smallest whole number of MiB that holds `t` (bisection). */
static uint64_t least_mib(const job_mem_terms *t)
{
    uint64_t lo = 1, hi = 1;
    while (!winent_plan_budget_fits(t, hi << 20) && hi < ((uint64_t)1 << 40))
        hi *= 2;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (winent_plan_budget_fits(t, mid << 20))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Chunks in flight that keep every engine and the encoders busy: each
 * engine's slots, the chunks whose units are being encoded, one being read
 * and one being written. */
static int chunks_wanted(const job_plan *pl, int units_per_chunk)
{
    int n = 2;
    if (pl->stage == WINENT_STAGE_JOB || pl->stage == WINENT_STAGE_COMPUTE) {
        n += pl->want_cpu ? pl->cpu_slots : 0;
        n += pl->ngpus * pl->gpu_slots;
    }
    if (pl->encodes) {
        int pieces = units_per_chunk * pl->parts * pl->nmaps;
        n += (pl->threads + pieces - 1) / pieces + 1;
    }
    n += pl->fill_in ? 2 : 0;   /* being copied in */
    n += pl->store_out ? 2 : 0; /* being stored */
    return n;
}

int winent_plan_group_len(const job_plan *pl, int m)
{
    const job_map *jm = &pl->maps[m];
    int n = 1;
    while (m + n < pl->nmaps && n < WINENT_CPU_SHARED_MAX && pl->maps[m + n].band == jm->band &&
           winent_cpu_engine_can_share(jm->plan, pl->maps[m + n].plan))
        n++;
    return n;
}

/* What each CPU worker makes: a scratch for each pass of several maps
 * (winent_plan_group_len), and for each plan's own engine where a map
 * computes alone with it (an engine that never computes makes none). */
static uint64_t cpu_scratch(const job_plan *pl)
{
    const winent_plan *plans[WINENT_CPU_SHARED_MAX];
    uint64_t b = 0;
    for (int m = 0; m < pl->nmaps;) {
        const int n = winent_plan_group_len(pl, m);
        for (int k = 0; k < n; k++)
            plans[k] = pl->maps[m + k].plan;
        if (n > 1)
            b += winent_cpu_group_scratch_bytes(plans, n, pl->width);
        m += n;
    }
    for (int m = 0; m < pl->nmaps; m++) {
        int alone = 0;
        for (int k = 0; k < pl->nmaps && pl->maps[m].owner && !alone;) {
            const int n = winent_plan_group_len(pl, k);
            alone = n == 1 && pl->maps[k].plan == pl->maps[m].plan;
            k += n;
        }
        if (alone)
            b += winent_cpu_scratch_bytes(pl->maps[m].plan, pl->width);
    }
    return b;
}

/* What the workers (encoder state, CPU scratch beyond a fixed allowance:
 * with many threads it is no longer small beside the budget), the
 * preview's image, the sink's writer side (a COG's overview rows, once)
 * and the GPUs named (a GPU's context holds host memory of its own, about
 * 100 MiB seen on H100s; auto's are counted when they come) hold. */
static uint64_t fixed_bytes(const job_plan *pl, const job_sink_info *snk)
{
    const uint64_t allowance = (uint64_t)32 << 20;
    const uint64_t scratch = pl->want_cpu ? cpu_scratch(pl) : 0;
    const uint64_t per_worker = (pl->encodes ? snk->encoder_bytes : 0) + scratch +
                                (pl->want_preview ? winent_preview_scratch_bytes(&pl->preview_opts)
                                                  : 0);
    uint64_t fixed = per_worker * (uint64_t)pl->threads;
    fixed = fixed > allowance ? fixed - allowance : 0;
    if (pl->want_preview)
        fixed += winent_preview_fixed_bytes(&pl->preview_opts);
    const uint64_t writer = snk->opened ? snk->writer_bytes : 0;
    return fixed + writer + WINENT_GPU_HOST_BYTES * (uint64_t)pl->ngpus;
}

/* The first chunk height to try: about CHUNK_PIXELS of all maps, whole
 * units, at least one CPU band, at most the image. */
static int64_t first_rows(const job_plan *pl)
{
    const int64_t H = pl->height, U = pl->unit_rows, W = pl->width > 0 ? pl->width : 1;
    /* Several maps: the same work per chunk (a chunk's pixels are
     * computed once per map), and memory in proportion. */
    int64_t rows = CHUNK_PIXELS / W / pl->nmaps;
    if (rows < pl->band_rows)
        rows = pl->band_rows;
    rows -= rows % U;
    if (rows < U)
        rows = U;
    if (rows > H)
        rows = H > 0 ? H : 1;
    return rows;
}

/* The ring's sizes once chunks of `rows` rows (`per` bytes each) fit
 * `fit` at once, `need` at least, `want` for full speed. */
static void set_ring(job_plan *pl, int64_t rows, uint64_t per, uint64_t fit, int need, int want)
{
    const int64_t H = pl->height;
    pl->chunk_rows = (int)rows;
    pl->n_limit = fit < (uint64_t)want ? (int)fit : want;
    pl->n_fit = (int)(fit < (uint64_t)INT32_MAX ? fit : INT32_MAX);
    pl->n_need = need;
    pl->chunk_bytes = per;
    /* auto: room for the GPUs' slots, used only if they come up. */
    int extra = pl->auto_device ? 4 * pl->gpu_slots : 0;
    pl->n_max = fit < (uint64_t)(want + extra) ? (int)fit : want + extra;
    pl->nchunks = H == 0 ? 0 : (int)((H + rows - 1) / rows);
    pl->plane_bytes = (size_t)winent_plan_plane_bytes(pl, (uint64_t)pl->chunk_rows);
    pl->map_plane = (size_t)pl->width * (size_t)pl->chunk_rows;
}

/* Chunk height: about CHUNK_PIXELS, whole units and at least one CPU band;
 * then as many chunks as the engines and encoders want, within the budget
 * (--mem, less what the source holds), smaller chunks (never below one
 * unit) where the budget is tight. Too small: short_rows and short_terms. */
static void plan_chunks(const job_source_info *src, const job_sink_info *snk, job_plan *pl)
{
    const uint64_t given = pl->mem_budget, held = src->mem_held, reader = src->mem_short;
    /* A reader short of its quarter takes all of it at the budget that
     * holds it (the advice must hold whatever it then plans). */
    job_mem_terms t = {.held = reader ? UINT64_MAX : held,
                       .fixed = fixed_bytes(pl, snk),
                       .preview = pl->want_preview && !pl->mem_auto
                                      ? winent_preview_fixed_bytes(&pl->preview_opts)
                                      : 0,
                       .reader = reader};
    uint64_t mem = winent_plan_chunk_room(given, held, t.fixed);
    const int64_t U = pl->unit_rows;
    int64_t rows = first_rows(pl);
    for (;;) {
        int bands = (int)((rows + pl->band_rows - 1) / pl->band_rows);
        int units = (int)((rows + U - 1) / U);
        /* Enough CPU chunks in flight for two bands per worker. */
        pl->cpu_slots = (2 * pl->threads + bands - 1) / bands;
        if (pl->cpu_slots < 2)
            pl->cpu_slots = 2;
        if (pl->cpu_slots > 16)
            pl->cpu_slots = 16;
        int want = chunks_wanted(pl, units);
        t.need = 2 + (pl->want_cpu ? 2 : 0) + (pl->ngpus ? pl->gpu_slots : 0);
        t.per = winent_plan_chunk_bytes(pl, (uint64_t)rows);
        uint64_t fit = t.per ? mem / t.per : (uint64_t)want;
        if (fit < (uint64_t)t.need && rows <= U && pl->mem_auto) {
            /* No --mem given: the default grows by what the smallest
             * chunks still lack (the threads' own state took the rest). */
            pl->mem_budget += t.per * (uint64_t)t.need - mem;
            mem = t.per * (uint64_t)t.need;
            fit = (uint64_t)t.need;
        }
        const int fits =
            fit >= (uint64_t)t.need && (pl->mem_auto || winent_plan_budget_fits(&t, given));
        if (fits || rows <= U) {
            if ((pl->mem_auto && (least_mib(&t) << 20) > pl->machine_bytes / 2) ||
                (!pl->mem_auto && !winent_plan_budget_fits(&t, given))) {
                pl->short_rows = rows;
                pl->short_terms = t;
                return;
            }
            set_ring(pl, rows, t.per, fit, t.need, want);
            return;
        }
        int64_t half = rows / 2;
        half -= half % U;
        rows = half < U ? U : half;
    }
}

/* ---- The whole plan -------------------------------------------------------- */

/* job_plan.class_limit: the largest of the maps' (winent_class_limit),
 * where the job computes. */
static double class_limit(winent_out_type t, const job_plan *pl)
{
    double lim = 0.0;
    if (pl->decoding || !(pl->stage == WINENT_STAGE_JOB || pl->stage == WINENT_STAGE_COMPUTE))
        return 0.0;
    for (int m = 0; m < pl->nmaps; m++) {
        const double l = winent_class_limit(&pl->maps[m].co, t);
        lim = l > lim ? l : lim;
    }
    return lim;
}

winent_status winent_job_plan(const winent_job_opts *o, const job_host *h,
                              const job_source_info *src, const job_sink_info *snk, job_plan *pl,
                              winent_err *err)
{
    WINENT_TRY(winent_job_plan_start(o, h, pl, err));
    plan_devices(h, pl);
    pl->width = src->width;
    pl->height = src->height;
    pl->nbands = src->nbands;
    pl->nmaps = src->nmaps;
    pl->maps = src->maps;
    pl->band_plan = src->band_plan;
    /* A memory job of several maps: the caller's maps lie whole planes
     * apart, a chunk's map_plane apart, so every chunk computes into its
     * own maps and the pool stores each map's rows into its plane. */
    if (pl->mem_out && pl->nmaps > 1)
        pl->store_mem = 1;
    pl->mem_out_plane = (size_t)pl->height * pl->mem_out_stride;
    pl->first_plan = pl->maps[0].plan;
    for (int m = 0; m < pl->nmaps; m++)
        if (pl->maps[m].plan->ry > pl->ry)
            pl->ry = pl->maps[m].plan->ry;
    const winent_compute_opts *co = &pl->maps[0].co;
    plan_rows(pl, src, co);
    plan_output(snk, pl);
    for (int m = 0; m < pl->nmaps; m++) {
        int rows = winent_cpu_band_rows(pl->maps[m].plan, pl->width);
        pl->band_rows = rows > pl->band_rows ? rows : pl->band_rows;
    }
    if (o->preview && pl->stage == WINENT_STAGE_JOB)
        plan_preview(o, src, co, pl);
    /* Clamp counting: every quantized job that computes. The CPU's bands
     * count their own rows; the pool counts a GPU's chunks in pieces of
     * about 1 Mpixel of rows. */
    pl->count_clamps = pl->first_plan->rule.quantize && !pl->decoding &&
                       (pl->stage == WINENT_STAGE_JOB || pl->stage == WINENT_STAGE_COMPUTE);
    pl->class_limit = class_limit(o->out_type, pl);
    pl->words = o->words == WINENT_WORDS_PYTHON ? WINENT_WORDS_PYTHON : WINENT_WORDS_CLI;
    pl->range_auto = src->range_auto;
    pl->count_rows = (int)((1 << 20) / (pl->width > 0 ? pl->width : 1));
    if (pl->count_rows < 1)
        pl->count_rows = 1;
    if (pl->encodes)
        pl->unit_extra = snk->unit_extra;
    plan_chunks(src, snk, pl);
    return WINENT_OK;
}
