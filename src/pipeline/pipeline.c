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
static winent_status pick_devices(pipeline *p, const winent_job_opts *o,
                                  const winent_device_list *parsed, winent_err *err)
{
    winent_device_list l;
    if (parsed)
        l = *parsed;
    else /* a stage alone (the benchmarks): not checked before */
        WINENT_TRY(winent_device_list_parse(o->device, &l, err));
    p->plan.ngpus = 0;
    if (l.automatic) {
        /* The CPU starts at once; GPUs come in later if the job is long
         * enough to gain from them (policy.c). */
        p->plan.auto_device = 1;
        p->plan.want_cpu = 1;
        return WINENT_OK;
    }
    p->plan.want_cpu = l.cpu;
    if (l.cpu && !l.all_gpus && l.ngpus == 0)
        return WINENT_OK;
    return winent_devices_pick(&l, o->release_gpus, p->plan.gpu_ids, &p->plan.ngpus, err);
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
    p->ring.taps = p->taps;
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
        if ((*win = malloc(sizeof **win * WINENT_WIN_FIELDS * (size_t)*nwin)) == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        for (int k = 0; k < *nwin; k++) { /* 1 x 1, no disk, the job's measure */
            int *e = *win + WINENT_WIN_FIELDS * k;
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
    WINENT_TRY(winent_setup_windows(o, win, nwin, err));
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
            winent_setup_map_entry(o, *win + WINENT_WIN_FIELDS * w, &check);
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



/* The rows' sizes and steps once the maps are known: the caller's where
 * a memory job computes in place, else the packed rows of our buffers. */
static void plan_rows(pipeline *p, const winent_compute_opts *co)
{
    p->plan.sample = winent_dtype_size(co->dtype);
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
}

/* Clamp counting: every quantized job that computes. The CPU's bands
 * count their own rows; the pool counts a GPU's chunks in pieces of about
 * 1 Mpixel of rows. */
static void plan_counting(pipeline *p, const winent_plan *plan, int decoding, winent_stage stage)
{
    p->plan.count_clamps = plan->rule.quantize && !decoding &&
                           (stage == WINENT_STAGE_JOB || stage == WINENT_STAGE_COMPUTE);
    p->plan.count_rows = (int)((1 << 20) / (p->plan.width > 0 ? p->plan.width : 1));
    if (p->plan.count_rows < 1)
        p->plan.count_rows = 1;
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
        winent_job_warn_range(p, o, b);
    for (int m = 0; p->saturated && m < p->plan.nmaps; m++)
        winent_job_warn_saturated(p, o, m);
    if (p->source) {
        const winent_source_info *info = winent_source_get_info(p->source);
        winent_other_bands_notice(o, info->bands, info->nodata_is_mask, info->name);
    }
    return winent_trace_finish(p->trace, t_start, err);
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
    WINENT_TRY_GOTO(st, winent_setup_maps(p, o, stage, decoding, &co, win, nwin, &err));
    co = p->plan.maps[0].co;
    plan = p->plan.maps[0].plan;
    plan_rows(p, &co);
    WINENT_TRY_GOTO(st, winent_setup_output(p, o, stage, decoding, &co, &err));
    /* What the job reads, picked once (input.c). */
    WINENT_TRY_GOTO(st, winent_input_open(&p->plan, p->source, p->map_in, &p->in, &err));
    for (int m = 0; m < p->plan.nmaps; m++) {
        int rows = winent_cpu_band_rows(p->plan.maps[m].plan, p->plan.width);
        p->plan.band_rows = rows > p->plan.band_rows ? rows : p->plan.band_rows;
    }
    if (o->preview && stage == WINENT_STAGE_JOB)
        WINENT_TRY_GOTO(st, winent_setup_preview(p, o, &co, &err));
    plan_counting(p, plan, decoding, stage);
    WINENT_TRY_GOTO(st, winent_setup_size(p, o, &co, &err));
    WINENT_TRY_GOTO(st, open_trace(p, &err));
    if (p->plan.want_preview)
        /* Its file is opened now, as the output's: a folder that cannot
         * take it fails the job before any work. */
        WINENT_TRY_GOTO(st, winent_tap_preview_open(&p->plan,
                                                    (int64_t)p->ring.n_max * p->plan.chunk_rows,
                                                    &p->taps[p->ntaps++], &err));
    WINENT_TRY_GOTO(st, winent_setup_cpu_engines(p, &err));
    p->ring.ntaps = p->ntaps; /* the taps are open: the queue asks them for pieces */
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
        winent_job_fill_stats(p, stats, t_start);
    if (st == WINENT_OK)
        st = after_run(p, o, t_start, &err);
fail:
    winent_trace_free(p->trace);
    if (p->sink && (st != WINENT_OK || stage != WINENT_STAGE_JOB))
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
    winent_setup_free_maps(p);
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
