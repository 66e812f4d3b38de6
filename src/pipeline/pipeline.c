/* SPDX-License-Identifier: BSD-3-Clause */
/* winent_run_stage: the whole job (winent_job_run, winent_entropy) or one
 * stage of it alone (the benchmarks), in three steps: setup opens the
 * source and the sink and makes the maps, filling the plan's descriptors
 * (plan_job); the plan (plan.c) decides everything else; the plan is
 * executed (open_job: the input, the output, the taps, the engines, the
 * ring, the worker pool), the threads started and the chunks written in
 * order from the calling thread. Everything of a run lives in its
 * `pipeline`: no process-global state, so runs on different threads do
 * not meet. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "setup.h"
#include "tiles/georef.h"
#include "tiles/outfile.h"

#ifdef _OPENMP
#include <omp.h>
#endif


static int all_cores(void)
{
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
#endif
}

/* --device: auto, cpu, gpu, or a list of "cpu" and GPU numbers; the GPUs
 * named must be there (device errors). */
static winent_status pick_devices(job_host *h, const winent_job_opts *o,
                                  const winent_device_list *parsed, winent_err *err)
{
    winent_device_list l;
    if (parsed)
        l = *parsed;
    else /* a stage alone (the benchmarks): not checked before */
        WINENT_TRY(winent_device_list_parse(o->device, &l, err));
    h->ngpus = 0;
    if (l.automatic) {
        /* The CPU starts at once; GPUs come in later if the job is long
         * enough to gain from them (policy.c). */
        h->auto_device = 1;
        h->want_cpu = 1;
        return WINENT_OK;
    }
    h->want_cpu = l.cpu;
    if (l.cpu && !l.all_gpus && l.ngpus == 0)
        return WINENT_OK;
    return winent_devices_pick(&l, o->release_gpus, h->gpu_ids, &h->ngpus, err);
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

/* A memory job on GPUs named: whether its buffers are the caller's own
 * pinned memory (the plan then stages nothing where their rows are packed:
 * the GPUs copy from and to them directly). Asked of the GPUs' driver only
 * then. */
static int callers_pinned(const pipeline *p, const job_setup *s)
{
    const job_plan *pl = &p->plan;
    const job_host *h = &s->host;
    if (pl->mem_in == NULL || h->ngpus == 0 || h->auto_device || h->want_cpu)
        return 0;
    const size_t hgt = (size_t)s->src.height, w = (size_t)s->src.width;
    const size_t row = winent_dtype_size(s->src.maps[0].co.dtype) * w;
    return winent_devices_pinned(pl->mem_in, row * hgt * (size_t)s->src.nbands) &&
           (pl->mem_out == NULL ||
            winent_devices_pinned(pl->mem_out, w * sizeof(float) * hgt * (size_t)s->src.nmaps));
}

/* The run's locks, its report and the ring's links. */
static void init_state(pipeline *p)
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
    /* The chunks' ring: the plan, the input and output that say what a
     * chunk owns, the lock; the GPUs' pinning, lent to its buffers. */
    p->ring.plan = &p->plan;
    p->ring.in = &p->in;
    p->ring.out = &p->out;
    p->ring.taps = p->taps;
    p->ring.lock = &p->lock;
    p->ring.state_cv = &p->state_cv;
    p->ring.work_cv = &p->work_cv;
    p->ring.stop = p->stop;
    p->ring.pin.pin = winent_gpu_engine_ops.pin;
    p->ring.pin.unpin = winent_gpu_engine_ops.unpin;
    p->par_hook.run = winent_pool_parallel_run;
    p->par_hook.ctx = &p->pool;
}

/* Open what the job reads: a .zst map (--decode), the caller's memory,
 * or the source; the image's size and bands. With --decode, the windows
 * become one 1 x 1 per map of the file. */
static winent_status open_input(pipeline *p, const winent_job_opts *o, job_setup *s,
                                winent_err *err)
{
    job_source_info *src = &s->src;
    src->nbands = 1;
    if (p->plan.decoding) {
        WINENT_TRY(winent_zst_reader_open(o->input, &p->map_in, err));
        const winent_zst_map *map = winent_zst_reader_map(p->map_in);
        src->width = map->width;
        src->height = map->height;
        /* Each map of the file a plane of the chunks (one plan serves). */
        free(s->win);
        s->nwin = map->nmaps;
        if ((s->win = malloc(sizeof *s->win * WINENT_WIN_FIELDS * (size_t)s->nwin)) == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        for (int k = 0; k < s->nwin; k++) { /* 1 x 1, no disk, the job's measure */
            int *e = s->win + WINENT_WIN_FIELDS * k;
            e[0] = e[1] = 1;
            e[2] = 0;
            e[3] = -1;
        }
    } else if (p->plan.mem_in || p->plan.stage == WINENT_STAGE_ENCODE) {
        src->width = o->width;
        src->height = o->height;
    } else {
        WINENT_TRY(open_source(p, o, err));
        const winent_source_info *info = winent_source_get_info(p->source);
        /* --nodata in the type of the band as read (a TIFF's, GDAL's). */
        if (o->nodata_given && o->compute.has_nodata)
            WINENT_TRY(winent_nodata_check(info->dtype, o->compute.nodata, o->words, err));
        src->width = info->width;
        src->height = info->height;
        src->nbands = info->nread;
        src->georef = info->georef;
        src->mem_held = info->mem_held;
        src->mem_short = info->mem_short;
    }
    return WINENT_OK;
}

/* Before anything is read: the output's and the preview's names, the
 * devices, the windows, and the options each window's plan would refuse. */
static winent_status check_job(pipeline *p, const winent_job_opts *o, job_setup *s,
                               const winent_device_list *devices, winent_err *err)
{
    const winent_stage stage = p->plan.stage;
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
    WINENT_TRY(pick_devices(&s->host, o, devices, err));
    const int decoding = p->plan.decoding;
    if (o->sidecar && stage == WINENT_STAGE_JOB && !p->plan.mem_out)
        WINENT_TRY(winent_sidecar_check(o->output ? o->output : "-", o->format, err));
    /* A memory job's measures are maps of its own buffers' planes; bands
     * and windows come from an input. */
    const int listed = o->nband_list > 0 || o->band_all || o->nwindow_list > 0;
    if (listed && (stage != WINENT_STAGE_JOB || p->plan.mem_in || p->plan.mem_out || decoding)) {
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "several bands or windows go with a whole job from an input (not a "
                          "stage alone, memory buffers or --decode)");
    }
    if (o->nmeasure_list > 0 && (stage != WINENT_STAGE_JOB || decoding))
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "several measures go with a whole job (not a stage alone or --decode)");
    WINENT_TRY(winent_setup_windows(o, &s->win, &s->nwin, err));
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
        for (int w = 0; w < s->nwin; w++) {
            winent_plan *plan = NULL;
            winent_job_plan_map_entry(o, s->win + WINENT_WIN_FIELDS * w, &check);
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
    pthread_mutex_unlock(&p->lock);
    if (started_all)
        winent_policy_start(p);
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
    /* The policy adds engines: join it before the engines. */
    winent_policy_join(p);
    for (int i = 0; i < p->set.nengines; i++)
        if (p->set.engines[i].started)
            pthread_join(p->set.engines[i].thread, NULL);
    winent_pool_join(&p->pool);
    p->meter.read_clock.busy_s += p->pool.par_s; /* the reader's decoding, on the pool */
}



/* WINENT_TRACE: its lanes, named. */
static winent_status open_trace(pipeline *p, winent_err *err)
{
    WINENT_TRY(winent_trace_create(p->plan.sw.trace, WINENT_TRACE_LANES(p),
                                   32 * p->ring.nchunks + 256, &p->trace, err));
    winent_trace_name(p->trace, LANE_READER, "reader");
    winent_trace_name(p->trace, LANE_WRITER, "writer");
    for (int w = 0; w < p->plan.threads && p->trace; w++) {
        char name[16];
        snprintf(name, sizeof name, "pool%d", w);
        winent_trace_name(p->trace, LANE_WORKER(w), name);
    }
    return WINENT_OK;
}

/* A run that succeeded: its warnings and notices, then the trace. */
static winent_status after_run(const pipeline *p, const winent_job_opts *o, double t_start,
                               winent_err *err)
{
    for (int b = 0; b < p->plan.nbands; b++)
        winent_job_warn_range(p, b);
    for (int m = 0; p->saturated && m < p->plan.nmaps; m++)
        winent_job_warn_saturated(p, m);
    if (p->source) {
        const winent_source_info *info = winent_source_get_info(p->source);
        winent_other_bands_notice(o, info->bands, info->nodata_is_mask, info->name);
    }
    return winent_trace_finish(p->trace, t_start, err);
}

/* Setup before the plan: what the job runs on, the refusals, the input
 * opened, the maps, the sink opened; then the plan (plan.c), which
 * nothing after it changes. */
static winent_status plan_job(pipeline *p, const winent_job_opts *o, job_setup *s,
                              const winent_device_list *devices, winent_err *err)
{
    job_host *h = &s->host;
    /* Asked only where the pool takes it: asking OpenMP starts its
     * runtime, and LLVM's registers itself in a shared-memory file that a
     * file-size limit (ulimit -f) turns into a SIGBUS. */
    h->cores = o->threads > 0 ? 0 : all_cores();
    {
        long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        h->machine_bytes = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
    }
    winent_switches_read(&h->sw);
    WINENT_TRY(winent_job_plan_start(o, h, &p->plan, err));
    p->par_hook.workers = p->plan.threads + 1; /* the pool and the reader */
    WINENT_TRY(check_job(p, o, s, devices, err));
    WINENT_TRY(open_input(p, o, s, err));
    WINENT_TRY(winent_setup_maps(p, o, s, err));
    s->src.mem_pinned = callers_pinned(p, s);
    WINENT_TRY(winent_setup_output(p, o, s, err));
    WINENT_TRY(winent_job_plan(o, h, &s->src, &s->snk, &p->plan, err));
    if (p->plan.short_rows > 0)
        return winent_setup_too_small(p, o, err);
    /* What the preview lends its files: the job's stop flag and names. */
    p->plan.preview_opts.stop = p->stop;
    p->plan.preview_opts.temps = p->temps;
    return WINENT_OK;
}

/* The plan executed: what the job reads and where its maps go (as the
 * plan counted them), the taps, the trace, the CPU engines, the ring and
 * the worker pool. */
static winent_status open_job(pipeline *p, winent_err *err)
{
    const job_plan *pl = &p->plan;
    p->ring.nchunks = pl->nchunks;
    p->ring.n_max = pl->n_max;
    p->ring.n_fit = pl->n_fit;
    p->ring.n_need = pl->n_need;
    p->ring.n_limit = pl->n_limit;
    /* What the job reads and where the maps go, picked once (input.c,
     * output.c): a chunk owns what the plan counted. */
    WINENT_TRY(winent_input_open(pl, p->source, p->map_in, &p->in, err));
    winent_output_open(pl, p->sink, &p->out);
    if (p->in.own_rows != pl->own_rows || p->out.own_map != pl->own_map ||
        p->out.units != pl->encodes)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL,
                          "internal error: the input or output differs from the plan");
    p->taps[p->ntaps++] = &p->out.tap;
    if (pl->stage == WINENT_STAGE_JOB && pl->mem_out == NULL && p->map_in == NULL &&
        pl->on_notice && winent_job_count_saturation(p) != WINENT_OK)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    WINENT_TRY(open_trace(p, err));
    if (pl->want_preview)
        /* Its file is opened now, as the output's: a folder that cannot
         * take it fails the job before any work. */
        WINENT_TRY(winent_tap_preview_open(pl, (int64_t)pl->n_max * pl->chunk_rows,
                                           &p->taps[p->ntaps++], err));
    WINENT_TRY(winent_setup_cpu_engines(p, err));
    p->ring.ntaps = p->ntaps; /* the taps are open: the queue asks them for pieces */
    p->ring.chunks = calloc((size_t)pl->n_max, sizeof *p->ring.chunks);
    if (p->ring.chunks == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    return winent_pool_init(&p->pool, pl->threads, &p->lock, &p->work_cv, &p->state_cv, p->stop,
                            err);
}

/* Everything the run opened, closed (the sink aborted unless a whole job
 * succeeded). */
static void close_job(pipeline *p, job_setup *s, winent_status st)
{
    winent_trace_free(p->trace);
    if (p->sink && (st != WINENT_OK || p->plan.stage != WINENT_STAGE_JOB))
        winent_sink_abort(p->sink);
    for (int i = 0; i < p->ntaps; i++)
        if (p->taps[i] && p->taps[i]->close)
            p->taps[i]->close(p->taps[i], st != WINENT_OK);
    winent_pool_free(&p->pool);
    if (p->ring.chunks)
        for (int i = 0; i < p->ring.n_max; i++)
            winent_chunk_free(&p->ring, &p->ring.chunks[i]);
    free(p->ring.chunks);
    winent_sink_free(p->sink);
    winent_input_close(&p->in);
    winent_source_free(p->source);
    winent_zst_reader_free(p->map_in);
    winent_setup_free_maps(p, s);
    free(s->win);
    pthread_cond_destroy(&p->work_cv);
    pthread_cond_destroy(&p->state_cv);
    pthread_mutex_destroy(&p->lock);
}

/* The run's outcome: a failure after a cancel is the cancel's doing (a
 * read or a write that gave up, a stage that stopped): the job was
 * interrupted. */
static winent_status run_outcome(winent_status st, volatile int *stop, winent_err *err,
                                 winent_err *err_out)
{
    if (__atomic_load_n(stop, __ATOMIC_RELAXED) == WINENT_STOP_CANCEL && st != WINENT_OK) {
        st = WINENT_ERR_INTERRUPTED;
        winent_err_clear(err);
        WINENT_ERR(err, st, "interrupted");
    }
    if (st != WINENT_OK && err->status == WINENT_OK)
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "internal error: a failure without a message");
    if (err_out) {
        winent_err_clear(err_out);
        winent_err_merge(err_out, err);
    }
    return st;
}

/* The run in `p`: set up and planned, executed, its threads run, all of
 * it closed. A failure is in *err. */
static winent_status run_pipeline(pipeline *p, const winent_job_opts *o, job_setup *s,
                                  const winent_device_list *devices, winent_job_stats *stats,
                                  double t_start, winent_err *err)
{
    if (CANCELLED(p)) /* cancelled before the run: nothing is opened */
        return WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
    init_state(p);
    winent_status st = plan_job(p, o, s, devices, err);
    if (st == WINENT_OK)
        st = open_job(p, err);
    if (st == WINENT_OK) {
        run_threads(p, stats, t_start);
        if (p->report.err.status != WINENT_OK) {
            winent_err_clear(err);
            winent_err_merge(err, &p->report.err);
            st = err->status;
        }
        if (stats)
            winent_job_fill_stats(p, stats, t_start);
        if (st == WINENT_OK)
            st = after_run(p, o, t_start, err);
    }
    close_job(p, s, st);
    return st;
}

static winent_status run_job(const winent_job_opts *o, winent_stage stage,
                             const winent_memory_io *mem, const float *map, volatile int *stop,
                             winent_tempnames *temps, const winent_device_list *devices,
                             winent_job_stats *stats, winent_err *err_out)
{
    winent_status st;
    pipeline *p = calloc(1, sizeof *p);
    volatile int own_stop = 0; /* outlives every thread of the run (all joined) */
    winent_err err;
    job_setup s = {.host = {.stage = stage, .stage_map = map, .mem = mem}};
    const double t_start = winent_now();
    winent_err_clear(&err);
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (stop == NULL)
        stop = &own_stop;
    if (p == NULL) {
        st = WINENT_ERR(&err, WINENT_ERR_INTERNAL, "out of memory");
    } else {
        p->stop = stop;
        p->temps = temps;
        st = run_pipeline(p, o, &s, devices, stats, t_start, &err);
    }
    st = run_outcome(st, stop, &err, err_out);
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
