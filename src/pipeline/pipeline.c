/* winent_run: set up the source, the sink, the engines and the pools, start
 * the stage threads, and write the encoded chunks in order from the calling
 * thread. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline_internal.h"
#include "tiles/memory_io.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static volatile sig_atomic_t interrupted;
/* The running job's stop flag, raised from the signal handler too, so that
 * a read waiting on an idle pipe gives up. */
static volatile int *volatile running_stop;

void winent_interrupt(void)
{
    interrupted = 1;
    volatile int *stop = running_stop;
    if (stop)
        *stop = 1;
}

void winent_job_opts_default(winent_job_opts *o)
{
    memset(o, 0, sizeof *o);
    winent_compute_opts_default(&o->compute);
    o->bands = 1;
    o->band = 1;
    o->tile = 512;
    o->compress = WINENT_COMPRESS_ZSTD;
    o->device = "auto";
    o->mem_bytes = (uint64_t)1 << 30;
}

void winent_pipeline_fail(pipeline *p, const winent_err *e)
{
    pthread_mutex_lock(&p->lock);
    winent_err_merge(&p->err, e);
    p->stop = 1;
    pthread_mutex_unlock(&p->lock);
    winent_queue_close(&p->free_in);
    winent_queue_close(&p->filled_in);
    winent_queue_close(&p->free_out);
    winent_queue_close(&p->computed);
    winent_queue_close(&p->encoded);
}

static int all_cores(void)
{
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
#endif
}

/* --device: fills p->ngpus / p->gpu_ids (0 GPUs = CPU). */
static winent_status pick_devices(pipeline *p, const winent_job_opts *o, winent_err *err)
{
    const char *d = o->device ? o->device : "auto";
    p->ngpus = 0;
    if (strcmp(d, "cpu") == 0)
        return WINENT_OK;
    int count = winent_cuda_device_count();
    if (strcmp(d, "auto") == 0 || strcmp(d, "gpu") == 0) {
        if (count == 0) {
            if (strcmp(d, "gpu") == 0)
                return WINENT_ERR(err, WINENT_ERR_DEVICE,
                                  "--device gpu: no usable GPU (no CUDA device or driver%s)",
                                  winent_gpu_count() == 0 ? ", or a build without CUDA" : "");
            p->fell_back = 1;
            return WINENT_OK;
        }
        for (int i = 0; i < count && i < WINENT_MAX_GPUS; i++)
            p->gpu_ids[p->ngpus++] = i;
        return WINENT_OK;
    }
    /* A list such as 0,2. */
    const char *s = d;
    while (*s) {
        char *end;
        long id = strtol(s, &end, 10);
        if (end == s || id < 0 || (*end != ',' && *end != '\0'))
            return WINENT_ERR(err, WINENT_ERR_USAGE,
                              "--device: '%s': use auto, cpu, gpu or a list of GPU numbers like 0,2",
                              d);
        if (id >= count)
            return WINENT_ERR(err, WINENT_ERR_DEVICE, "--device: GPU %ld is not usable (%d found)",
                              id, count);
        for (int i = 0; i < p->ngpus; i++)
            if (p->gpu_ids[i] == id)
                return WINENT_ERR(err, WINENT_ERR_USAGE, "--device: GPU %ld named twice", id);
        if (p->ngpus == WINENT_MAX_GPUS)
            return WINENT_ERR(err, WINENT_ERR_USAGE, "--device: too many GPUs");
        p->gpu_ids[p->ngpus++] = (int)id;
        s = *end == ',' ? end + 1 : end;
    }
    if (p->ngpus == 0)
        return WINENT_ERR(err, WINENT_ERR_USAGE, "--device: empty list");
    return WINENT_OK;
}

/* Default rows per .zst frame: about 4 MiB of floats, a multiple of 16
 * rows; a function of the width alone, so the same for every machine. */
static int default_frame_rows(int width)
{
    int64_t rows = ((int64_t)4 << 20) / (4 * (int64_t)(width > 0 ? width : 1));
    rows -= rows % 16;
    return rows < 16 ? 16 : rows > 4096 ? 4096 : (int)rows;
}

/* Bytes of every buffer in flight, for chunks of `rows` output rows with
 * the pool sizes `n_in`, `n_out`: input rows, float rows, and encoded rows
 * (counted as large as the floats), plus the reader's carry and the CPU
 * engine's code buffer. */
static uint64_t bytes_in_flight(const pipeline *p, uint64_t rows, int n_in, int n_out)
{
    const uint64_t W = (uint64_t)p->width, ss = p->sample, halo = 2 * (uint64_t)p->plan->ry;
    uint64_t b = W * (rows + halo) * ss * (uint64_t)n_in + W * rows * 8 * (uint64_t)n_out +
                 W * halo * ss;
    if (!p->ngpus)
        b += W * (rows + halo) * 4;
    return b;
}

/* Chunk height from the memory budget: a multiple of the sink's unit (or
 * the whole image when it is shorter than one). With units too large for
 * the budget, fewer encoders (fewer output slots) before giving up. */
static winent_status size_chunks(pipeline *p, uint64_t mem, winent_err *err)
{
    const int compute_slots = p->ngpus ? p->ngpus * p->gpu_slots : 1;
    const uint64_t unit = (uint64_t)p->unit_rows, H = (uint64_t)p->height;
    const uint64_t W = (uint64_t)(p->width > 0 ? p->width : 1);
    /* Enough chunks to keep the stages overlapped, big enough to pay. */
    uint64_t cap = ((uint64_t)8 << 20) / W;
    uint64_t smallest = H < unit ? H : unit;
    if (smallest < 1)
        smallest = 1;
    for (int enc = p->encoders; enc >= 1; enc--) {
        int n_in = compute_slots + 2, n_out = compute_slots + enc + 2;
        uint64_t per_row = bytes_in_flight(p, 1, n_in, n_out) - bytes_in_flight(p, 0, n_in, n_out);
        uint64_t fixed = bytes_in_flight(p, 0, n_in, n_out);
        if (mem < fixed + per_row * smallest)
            continue;
        uint64_t rows = (mem - fixed) / per_row;
        if (rows > cap)
            rows = cap;
        if (rows >= H) {
            rows = H;
        } else {
            rows -= rows % unit;
            if (rows < smallest)
                rows = smallest;
        }
        p->encoders = enc;
        p->n_in = n_in;
        p->n_out = n_out;
        p->chunk_rows = (int)(rows > 0 ? rows : 1);
        p->nchunks = H == 0 ? 0 : (int)((H + (uint64_t)p->chunk_rows - 1) / (uint64_t)p->chunk_rows);
        return WINENT_OK;
    }
    uint64_t need = bytes_in_flight(p, smallest, compute_slots + 2, compute_slots + 3);
    return WINENT_ERR(err, WINENT_ERR_USAGE,
                      "--mem: %llu MiB is too small for %llu-row units of a %d pixel wide image: "
                      "give at least --mem %lluM (or fewer --frame-rows / a smaller --tile)",
                      (unsigned long long)(mem >> 20), (unsigned long long)smallest, p->width,
                      (unsigned long long)((need >> 20) + 1));
}

static void *pool_alloc(const pipeline *p, size_t n)
{
    return p->pinned ? winent_cuda_host_alloc(n) : malloc(n ? n : 1);
}

static void pool_free(const pipeline *p, void *ptr)
{
    if (ptr == NULL)
        return;
    if (p->pinned)
        winent_cuda_host_free(ptr);
    else
        free(ptr);
}

static winent_status make_pools(pipeline *p, winent_err *err)
{
    size_t in_bytes = p->row_bytes * (size_t)(p->chunk_rows + 2 * p->plan->ry);
    size_t out_floats = (size_t)p->width * (size_t)p->chunk_rows;
    int units = (p->chunk_rows + p->unit_rows - 1) / p->unit_rows;
    p->ins = calloc((size_t)p->n_in, sizeof *p->ins);
    p->outs = calloc((size_t)p->n_out, sizeof *p->outs);
    if (p->ins == NULL || p->outs == NULL)
        goto nomem;
    if (winent_queue_init(&p->free_in, p->n_in) || winent_queue_init(&p->filled_in, p->n_in) ||
        winent_queue_init(&p->free_out, p->n_out) || winent_queue_init(&p->computed, p->n_out) ||
        winent_queue_init(&p->encoded, p->n_out))
        goto nomem;
    for (int i = 0; i < p->n_in; i++) {
        p->ins[i].rows = pool_alloc(p, in_bytes);
        if (p->ins[i].rows == NULL)
            goto nomem;
        winent_queue_push(&p->free_in, &p->ins[i]);
    }
    for (int i = 0; i < p->n_out; i++) {
        p->outs[i].map = pool_alloc(p, out_floats * sizeof(float));
        p->outs[i].units = calloc((size_t)units, sizeof(winent_bytes));
        if (p->outs[i].map == NULL || p->outs[i].units == NULL)
            goto nomem;
        winent_queue_push(&p->free_out, &p->outs[i]);
    }
    return WINENT_OK;
nomem:
    return WINENT_ERR(err, WINENT_ERR_INTERNAL,
                      "out of memory for the pipeline's buffers (--mem %llu MiB)",
                      (unsigned long long)(p->opts->mem_bytes >> 20));
}

static void free_pools(pipeline *p)
{
    int units = p->unit_rows ? (p->chunk_rows + p->unit_rows - 1) / p->unit_rows : 0;
    if (p->ins)
        for (int i = 0; i < p->n_in; i++)
            pool_free(p, p->ins[i].rows);
    if (p->outs)
        for (int i = 0; i < p->n_out; i++) {
            pool_free(p, p->outs[i].map);
            if (p->outs[i].units)
                for (int u = 0; u < units; u++)
                    winent_bytes_free(&p->outs[i].units[u]);
            free(p->outs[i].units);
        }
    free(p->ins);
    free(p->outs);
    winent_queue_destroy(&p->free_in);
    winent_queue_destroy(&p->filled_in);
    winent_queue_destroy(&p->free_out);
    winent_queue_destroy(&p->computed);
    winent_queue_destroy(&p->encoded);
}

/* The writer: the calling thread puts chunks back in order, writes them,
 * reports progress and watches for an interrupt. */
static void write_in_order(pipeline *p, winent_job_stats *stats, double t_start)
{
    winent_err err;
    winent_err_clear(&err);
    out_chunk **pending = calloc((size_t)p->n_out, sizeof *pending);
    int npending = 0;
    int64_t next = 0;
    double busy = 0.0, last_progress = t_start;
    if (pending == NULL) {
        WINENT_ERR(&err, WINENT_ERR_INTERNAL, "out of memory");
        winent_pipeline_fail(p, &err);
        return;
    }
    while (next < p->nchunks && !p->stop) {
        int timed_out;
        out_chunk *c = winent_queue_pop_timed(&p->encoded, 100, &timed_out);
        if (interrupted) {
            if (c)
                winent_queue_push(&p->free_out, c);
            WINENT_ERR(&err, WINENT_ERR_INTERRUPTED, "interrupted");
            winent_pipeline_fail(p, &err);
            break;
        }
        if (c == NULL && !timed_out)
            break; /* closed: an error upstream */
        if (c != NULL)
            pending[npending++] = c;
        double t0 = winent_now();
        for (int i = 0; i < npending;) {
            if (pending[i]->seq != next) {
                i++;
                continue;
            }
            out_chunk *o = pending[i];
            pending[i] = pending[--npending];
            int first = o->y0 / p->unit_rows;
            for (int u = 0; u < o->nunits && err.status == WINENT_OK; u++)
                winent_sink_write(p->sink, first + u, &o->units[u], &err);
            winent_queue_push(&p->free_out, o);
            if (err.status != WINENT_OK) {
                winent_pipeline_fail(p, &err);
                break;
            }
            next++;
            i = 0;
        }
        double t1 = winent_now();
        busy += t1 - t0;
        if (p->opts->on_progress && (t1 - last_progress >= 0.25 || next == p->nchunks)) {
            winent_progress pr;
            int64_t rows = next * (int64_t)p->chunk_rows;
            pr.rows_done = rows > p->height ? p->height : rows;
            pr.rows_total = p->height;
            pr.width = p->width;
            pr.seconds = t1 - t_start;
            p->opts->on_progress(p->opts->user, &pr);
            last_progress = t1;
        }
    }
    free(pending);
    if (interrupted && err.status == WINENT_OK) {
        WINENT_ERR(&err, WINENT_ERR_INTERRUPTED, "interrupted");
        winent_pipeline_fail(p, &err);
    }
    if (!p->stop && next == p->nchunks) {
        double t0 = winent_now();
        if (winent_sink_finish(p->sink, &err) != WINENT_OK)
            winent_pipeline_fail(p, &err);
        busy += winent_now() - t0;
    }
    if (stats) {
        stats->write.busy_s = busy;
        stats->write.threads = 1;
    }
}

static winent_status open_io(pipeline *p, const winent_job_opts *o, winent_compute_opts *co,
                             winent_err *err)
{
    if (o->memory_in) {
        WINENT_TRY(winent_source_memory_open(o->memory_in, o->width, o->height, co->dtype,
                                             &p->source, err));
        return WINENT_OK;
    }
    winent_source_opts so;
    memset(&so, 0, sizeof so);
    so.path = o->input;
    so.width = o->width;
    so.height = o->height;
    so.has_dtype = o->dtype_given;
    so.dtype = o->compute.dtype;
    so.bands = o->bands;
    so.interleave = o->interleave;
    so.big_endian = o->big_endian;
    so.header_bytes = o->header_bytes;
    so.band = o->band;
    so.threads = p->threads;
    so.stop = &p->stop;
    WINENT_TRY(winent_source_open(&so, &p->source, err));
    const winent_source_info *info = winent_source_get_info(p->source);
    co->dtype = info->dtype;
    if (!o->nodata_given && info->has_nodata) {
        co->has_nodata = 1;
        co->nodata = info->nodata;
    }
    return WINENT_OK;
}

static winent_status open_sink(pipeline *p, const winent_job_opts *o, const winent_compute_opts *co,
                               winent_err *err)
{
    if (o->memory_in) {
        p->format = WINENT_FORMAT_RAW;
        return winent_sink_memory_open(o->memory_out, p->width, p->height, &p->sink, err);
    }
    const winent_source_info *info = winent_source_get_info(p->source);
    winent_sink_opts so;
    memset(&so, 0, sizeof so);
    so.path = o->output;
    so.input_path = o->input;
    so.format = o->format;
    so.width = p->width;
    so.height = p->height;
    so.level = o->level;
    so.frame_rows = o->frame_rows > 0 ? o->frame_rows : default_frame_rows(p->width);
    so.tile = o->tile > 0 ? o->tile : 512;
    so.compress = o->compress;
    so.compute = co;
    so.source_name = strcmp(o->input, "-") == 0 ? "standard input" : o->input;
    so.georef = info->georef;
    so.nodata_in_play = co->has_nodata || winent_dtype_is_float(co->dtype);
    p->format = winent_sink_format_of(&so);
    return winent_sink_open(&so, &p->sink, err);
}

winent_status winent_run(const winent_job_opts *o, winent_job_stats *stats, char *msg,
                         size_t msg_len)
{
    winent_status st = WINENT_OK;
    pipeline *p = calloc(1, sizeof *p);
    winent_plan *plan = NULL;
    winent_err err;
    winent_compute_opts co = o->compute;
    pthread_t reader, *workers = NULL, *encoders = NULL;
    gpu_worker_arg *gargs = NULL;
    int reader_started = 0, nworkers_started = 0, nencoders_started = 0;
    double t_start = winent_now();
    winent_err_clear(&err);
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (p == NULL) {
        st = WINENT_ERR(&err, WINENT_ERR_INTERNAL, "out of memory");
        goto out;
    }
    interrupted = 0;
    running_stop = &p->stop;
    pthread_mutex_init(&p->lock, NULL);
    winent_err_clear(&p->err);
    p->opts = o;
    p->threads = o->threads > 0 ? o->threads : all_cores();
    p->gpu_slots = 3;

    WINENT_TRY_GOTO(st, pick_devices(p, o, &err));
    if (o->dtype_given || o->memory_in) {
        /* Usage errors in the options come before any look at the input. */
        WINENT_TRY_GOTO(st, winent_plan_create(&co, &plan, &err));
        winent_plan_free(plan);
        plan = NULL;
    }
    WINENT_TRY_GOTO(st, open_io(p, o, &co, &err));
    {
        const winent_source_info *info = winent_source_get_info(p->source);
        p->width = info->width;
        p->height = info->height;
    }
    WINENT_TRY_GOTO(st, winent_plan_create(&co, &plan, &err));
    p->plan = plan;
    p->sample = winent_dtype_size(co.dtype);
    p->row_bytes = p->sample * (size_t)p->width;
    WINENT_TRY_GOTO(st, open_sink(p, o, &co, &err));
    p->unit_rows = winent_sink_unit_rows(p->sink);
    /* Raw output to a file only copies: one encoder is plenty. In memory,
     * the copy to the destination is the whole cost of the output stage
     * and runs at GPU rates: every thread. */
    p->encoders = p->format == WINENT_FORMAT_RAW && !o->memory_in ? 1 : p->threads;
    p->pinned = p->ngpus > 0;
    WINENT_TRY_GOTO(st, size_chunks(p, o->mem_bytes, &err));
    WINENT_TRY_GOTO(st, make_pools(p, &err));
    if (p->ngpus == 0)
        WINENT_TRY_GOTO(st, winent_cpu_engine_create(plan, p->width,
                                                     p->chunk_rows + 2 * plan->ry, p->threads,
                                                     &p->cpu, &err));

    if (p->fell_back && o->on_notice)
        o->on_notice(o->user, "no usable GPU: computing on the CPU");

    p->engines_ready_s = winent_now();

    /* Start the stages, downstream first. */
    int nworkers = p->ngpus ? p->ngpus : 1;
    workers = calloc((size_t)nworkers, sizeof *workers);
    gargs = calloc((size_t)nworkers, sizeof *gargs);
    encoders = calloc((size_t)p->encoders, sizeof *encoders);
    if (workers == NULL || gargs == NULL || encoders == NULL) {
        st = WINENT_ERR(&err, WINENT_ERR_INTERNAL, "out of memory");
        goto fail;
    }
    p->live_encode = p->encoders;
    p->live_compute = nworkers;
    for (int i = 0; i < p->encoders; i++) {
        if (pthread_create(&encoders[i], NULL, winent_stage_encoder, p) != 0)
            break;
        nencoders_started++;
    }
    for (int i = 0; i < nworkers; i++) {
        gargs[i].p = p;
        gargs[i].device = p->ngpus ? p->gpu_ids[i] : -1;
        if (pthread_create(&workers[i], NULL,
                           p->ngpus ? winent_stage_gpu_worker : winent_stage_cpu_worker,
                           p->ngpus ? (void *)&gargs[i] : (void *)p) != 0)
            break;
        nworkers_started++;
    }
    if (pthread_create(&reader, NULL, winent_stage_reader, p) == 0)
        reader_started = 1;
    if (!reader_started || nworkers_started < nworkers || nencoders_started < p->encoders) {
        /* Threads that never started never count themselves out. */
        WINENT_ERR(&err, WINENT_ERR_INTERNAL, "cannot start the pipeline's threads");
        winent_pipeline_fail(p, &err);
    } else {
        write_in_order(p, stats, t_start);
    }
    if (reader_started)
        pthread_join(reader, NULL);
    for (int i = 0; i < nworkers_started; i++)
        pthread_join(workers[i], NULL);
    for (int i = 0; i < nencoders_started; i++)
        pthread_join(encoders[i], NULL);
    if (p->err.status != WINENT_OK) {
        winent_err_clear(&err);
        winent_err_merge(&err, &p->err);
        st = err.status;
    } else if (err.status != WINENT_OK) {
        st = err.status;
    }
    if (stats) {
        stats->wall_s = winent_now() - t_start;
        stats->setup_s = p->engines_ready_s > t_start ? p->engines_ready_s - t_start : 0.0;
        stats->pixels = (uint64_t)p->width * (uint64_t)p->height;
        stats->bytes_in = p->source ? winent_source_bytes_read(p->source) : 0;
        stats->bytes_out = p->sink ? winent_sink_bytes_written(p->sink) : 0;
        stats->read.busy_s = p->read_clock.busy_s;
        stats->read.wait_s = p->read_clock.wait_s;
        stats->read.threads = 1;
        stats->compute.busy_s = p->compute_clock.busy_s;
        stats->compute.wait_s = p->compute_clock.wait_s;
        stats->compute.threads = p->ngpus ? p->ngpus : p->threads;
        stats->encode.busy_s = p->encode_clock.busy_s;
        stats->encode.wait_s = p->encode_clock.wait_s;
        stats->encode.threads = p->encoders;
        stats->write.wait_s = p->encoded.wait_s;
        stats->chunk_rows = p->chunk_rows;
        stats->chunks = p->nchunks;
        stats->gpus = p->ngpus;
        if (p->ngpus) {
            int k = snprintf(stats->engine, sizeof stats->engine, "gpu:");
            for (int i = 0; i < p->ngpus && k < (int)sizeof stats->engine - 4; i++)
                k += snprintf(stats->engine + k, sizeof stats->engine - (size_t)k, "%s%d",
                              i ? "," : "", p->gpu_ids[i]);
        } else {
            snprintf(stats->engine, sizeof stats->engine, "cpu");
        }
    }
fail:
    if (st != WINENT_OK && p->sink)
        winent_sink_abort(p->sink);
    free(workers);
    free(gargs);
    free(encoders);
    winent_cpu_engine_free(p->cpu);
    free_pools(p);
    winent_sink_free(p->sink);
    winent_source_free(p->source);
    winent_plan_free(plan);
    pthread_mutex_destroy(&p->lock);
out:
    running_stop = NULL;
    if (interrupted && st != WINENT_OK) {
        st = WINENT_ERR_INTERRUPTED;
        snprintf(err.msg, sizeof err.msg, "interrupted");
        err.status = st;
    }
    if (st != WINENT_OK && err.status == WINENT_OK)
        st = WINENT_ERR_INTERNAL;
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", st == WINENT_OK ? "" : err.msg);
    free(p);
    return st;
}
