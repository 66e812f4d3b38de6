/* SPDX-License-Identifier: BSD-3-Clause */
/* The public entries that run the pipeline: the job handle (create, run,
 * cancel, error, stats, free), winent_run, and winent_entropy (a memory
 * job). Each job owns its options (strings copied), its stop flag, its
 * error and its figures: nothing is shared between jobs, so several run at
 * once in one process and each is cancelled on its own. */
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

struct winent_job {
    winent_job_opts opts;   /* the caller's, with the strings below */
    char *strings[5];       /* owned copies: input, output, preview, device,
                               command_line (NULL where not given) */
    int *lists[3];          /* owned copies: band_list, window_list, window_disk */
    unsigned char *footprint; /* owned copy of compute.footprint, or NULL */
    winent_measure *measures; /* owned copies: measure_list, measure_q */
    double *measure_q;
    winent_run_ctl ctl;     /* stop: WINENT_STOP_* (pipeline_bench.h), written by
                               winent_job_cancel (any thread, a signal handler)
                               and the run's threads; temps: the run's
                               temporary names (winent_job_discard_temporaries);
                               atomic access only */
    int ran;                /* winent_job_run was called (atomic exchange) */
    winent_error error;     /* of the last winent_job_run */
    winent_job_stats stats; /* of the run */
    winent_device_list devices; /* --device, parsed by the check at create */
};

/* A copy of `s` into the job's strings (NULL stays NULL). 0, or -1 when
 * out of memory. */
static int keep_string(winent_job *j, int k, const char **s)
{
    if (*s == NULL)
        return 0;
    size_t n = strlen(*s) + 1;
    if ((j->strings[k] = malloc(n)) == NULL)
        return -1;
    memcpy(j->strings[k], *s, n);
    *s = j->strings[k];
    return 0;
}

/* A copy of the `n` ints at `*v` into the job's lists (NULL or n <= 0
 * stays as it is). 0, or -1 when out of memory. */
static int keep_list(winent_job *j, int k, const int **v, int n)
{
    if (*v == NULL || n <= 0)
        return 0;
    if ((j->lists[k] = malloc(sizeof **v * (size_t)n)) == NULL)
        return -1;
    memcpy(j->lists[k], *v, sizeof **v * (size_t)n);
    *v = j->lists[k];
    return 0;
}

/* A copy of the footprint (kx * ky bytes). 0, or -1 when out of memory. */
static int keep_footprint(winent_job *j)
{
    winent_compute_opts *c = &j->opts.compute;
    if (c->footprint == NULL)
        return 0;
    const size_t n = (size_t)c->kx * (size_t)c->ky;
    if ((j->footprint = malloc(n ? n : 1)) == NULL)
        return -1;
    memcpy(j->footprint, c->footprint, n);
    c->footprint = j->footprint;
    return 0;
}

/* Copies of the measure list and its orders. 0, or -1 when out of memory. */
static int keep_measures(winent_job *j)
{
    const int n = j->opts.nmeasure_list;
    if (j->opts.measure_list == NULL || n <= 0)
        return 0;
    j->measures = malloc(sizeof *j->measures * (size_t)n);
    j->measure_q = malloc(sizeof *j->measure_q * (size_t)n);
    if (j->measures == NULL || j->measure_q == NULL)
        return -1;
    for (int i = 0; i < n; i++) {
        j->measures[i] = j->opts.measure_list[i];
        j->measure_q[i] = j->opts.measure_q ? j->opts.measure_q[i] : 0.0;
    }
    j->opts.measure_list = j->measures;
    j->opts.measure_q = j->measure_q;
    return 0;
}

winent_status winent_job_create(const winent_job_opts *o, winent_job **job, winent_error *err)
{
    if (job == NULL)
        return winent_err_null(err, "winent_job_create", "job");
    *job = NULL;
    if (o == NULL)
        return winent_err_null(err, "winent_job_create", "o");
    winent_err e;
    winent_err_clear(&e);
    winent_device_list devices;
    winent_status st = winent_job_check(o, &devices, &e);
    if (st != WINENT_OK)
        return winent_err_export(&e, st, err);
    winent_job *j = calloc(1, sizeof *j);
    if (j == NULL)
        return winent_err_export(&e, WINENT_ERR(&e, WINENT_ERR_INTERNAL, "out of memory"), err);
    j->opts = *o;
    j->devices = devices;
    if (keep_string(j, 0, &j->opts.input) || keep_string(j, 1, &j->opts.output) ||
        keep_string(j, 2, &j->opts.preview) || keep_string(j, 3, &j->opts.device) ||
        keep_string(j, 4, &j->opts.command_line) ||
        keep_list(j, 0, &j->opts.band_list, j->opts.nband_list) ||
        keep_list(j, 1, &j->opts.window_list, 2 * j->opts.nwindow_list) ||
        keep_list(j, 2, &j->opts.window_disk, j->opts.nwindow_list) || keep_measures(j) ||
        keep_footprint(j)) {
        winent_job_free(j);
        return winent_err_export(&e, WINENT_ERR(&e, WINENT_ERR_INTERNAL, "out of memory"), err);
    }
    winent_error_clear(&j->error);
    *job = j;
    return winent_err_export(&e, WINENT_OK, err);
}

winent_status winent_job_run(winent_job *job)
{
    if (job == NULL)
        return WINENT_ERR_USAGE; /* no job to hold the message */
    winent_err e;
    winent_err_clear(&e);
    if (__atomic_exchange_n(&job->ran, 1, __ATOMIC_ACQ_REL))
        return winent_err_export(
            &e,
            WINENT_ERR(&e, WINENT_ERR_USAGE,
                       "this job has run already: a job runs once (create another)"),
            &job->error);
    winent_status st =
        winent_run_job(&job->opts, WINENT_STAGE_JOB, NULL, NULL, &job->ctl, &job->devices,
                       &job->stats, &e);
    return winent_err_export(&e, st, &job->error);
}

void winent_job_cancel(winent_job *job)
{
    /* One store, async-signal-safe; whatever was there (a failure's flag
     * too) becomes a cancel. The run's stages poll the flag. */
    if (job)
        __atomic_store_n(&job->ctl.stop, WINENT_STOP_CANCEL, __ATOMIC_RELAXED);
}

void winent_job_discard_temporaries(winent_job *job)
{
    /* unlink() of fixed names behind atomic flags: async-signal-safe. */
    if (job)
        winent_tempnames_unlink_all(&job->ctl.temps);
}

const winent_error *winent_job_error(const winent_job *job)
{
    static const winent_error none = {WINENT_OK, ""}; /* constant: no shared state */
    return job ? &job->error : &none;
}

void winent_job_get_stats(const winent_job *job, winent_job_stats *stats)
{
    if (stats == NULL)
        return;
    if (job == NULL)
        memset(stats, 0, sizeof *stats);
    else
        *stats = job->stats;
}

void winent_job_free(winent_job *job)
{
    if (job == NULL)
        return;
    for (size_t k = 0; k < sizeof job->strings / sizeof *job->strings; k++)
        free(job->strings[k]);
    free(job->lists[0]);
    free(job->lists[1]);
    free(job->lists[2]);
    free(job->footprint);
    free(job->measures);
    free(job->measure_q);
    free(job);
}

winent_status winent_run(const winent_job_opts *o, winent_job_stats *stats, winent_error *err)
{
    winent_job *job = NULL;
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (o == NULL)
        return winent_err_null(err, "winent_run", "o");
    winent_status st = winent_job_create(o, &job, err);
    if (st != WINENT_OK)
        return st;
    st = winent_job_run(job);
    if (stats)
        winent_job_get_stats(job, stats);
    if (err)
        *err = *winent_job_error(job);
    winent_job_free(job);
    return st;
}

/* ---- In memory ------------------------------------------------------------ */

/* winent_entropy's and winent_texture's job: `fn` names the call in its
 * messages; `measures` (nmeasures of them, renyi's orders in renyi_q) or
 * NULL for o's measure alone. */
static winent_status memory_job(const char *fn, const winent_compute_opts *o,
                                const winent_measure *measures, const double *renyi_q,
                                int nmeasures, const void *in, size_t in_row_bytes, int width,
                                int height, float *out, size_t out_row_floats, const char *device,
                                int threads, winent_error *err)
{
    if (o == NULL)
        return winent_err_null(err, fn, "o");
    winent_err e;
    winent_err_clear(&e);
    /* A float image given no range takes it from its samples, as a job's
     * float band does (--range auto, 256 bins unless told). */
    winent_compute_opts co = *o;
    const int range_auto = winent_dtype_is_float(co.dtype) && co.range_lo == 0.0 &&
                           co.range_hi == 0.0;
    if (range_auto && co.bins == 0)
        co.bins = 256;
    winent_status st = winent_compute_check(
        &co, WINENT_CHECK_DTYPE | WINENT_CHECK_NODATA | (range_auto ? WINENT_CHECK_RANGE_AUTO : 0),
        WINENT_WORDS_CLI, &e);
    if (st != WINENT_OK)
        return winent_err_export(&e, st, err);
    const size_t row = winent_dtype_size(o->dtype) * (size_t)(width > 0 ? width : 0);
    if (measures != NULL && nmeasures < 1)
        st = WINENT_ERR(&e, WINENT_ERR_USAGE, "%s: %d measures: give at least one", fn,
                        nmeasures);
    else if (width < 0 || height < 0)
        st = WINENT_ERR(&e, WINENT_ERR_USAGE, "an image of %d x %d pixels: give sizes from 0",
                        width, height);
    else if (width == 0 || height == 0)
        return winent_err_export(&e, WINENT_OK, err); /* nothing to compute */
    else if (in == NULL || out == NULL)
        st = WINENT_ERR(&e, WINENT_ERR_USAGE, "%s: %s is NULL", fn, in == NULL ? "in" : "out");
    else if (in_row_bytes != 0 && in_row_bytes < row)
        st = WINENT_ERR(&e, WINENT_ERR_USAGE,
                        "input rows %zu bytes apart cannot hold a row of %d %s samples (%zu "
                        "bytes)",
                        in_row_bytes, width, winent_dtype_name(o->dtype), row);
    else if (out_row_floats != 0 && out_row_floats < (size_t)width)
        st = WINENT_ERR(&e, WINENT_ERR_USAGE,
                        "output rows %zu floats apart cannot hold a row of %d floats",
                        out_row_floats, width);
    if (st != WINENT_OK)
        return winent_err_export(&e, st, err);

    winent_job_opts jo;
    winent_job_opts_default(&jo);
    jo.compute = co;
    jo.range_auto = range_auto;
    jo.nodata_given = co.has_nodata;
    jo.dtype_given = 1;
    jo.width = width;
    jo.height = height;
    jo.device = device ? device : "auto";
    jo.threads = threads;
    jo.input = "memory";
    jo.measure_list = measures;
    jo.measure_q = renyi_q;
    jo.nmeasure_list = measures != NULL ? nmeasures : 0;
    /* The same checks of --device, --threads and the measures as a job's. */
    winent_device_list devices;
    st = winent_job_check(&jo, &devices, &e);
    if (st != WINENT_OK)
        return winent_err_export(&e, st, err);
    const winent_memory_io mem = {in, in_row_bytes, out, out_row_floats};
    st = winent_run_job(&jo, WINENT_STAGE_JOB, &mem, NULL, NULL, &devices, NULL, &e);
    return winent_err_export(&e, st, err);
}

winent_status winent_entropy(const winent_compute_opts *o, const void *in, size_t in_row_bytes,
                             int width, int height, float *out, size_t out_row_floats,
                             const char *device, int threads, winent_error *err)
{
    return memory_job("winent_entropy", o, NULL, NULL, 0, in, in_row_bytes, width, height, out,
                      out_row_floats, device, threads, err);
}

winent_status winent_texture(const winent_compute_opts *o, const winent_measure *measures,
                             const double *renyi_q, int nmeasures, const void *in,
                             size_t in_row_bytes, int width, int height, float *out,
                             size_t out_row_floats, const char *device, int threads,
                             winent_error *err)
{
    if (measures == NULL)
        return winent_err_null(err, "winent_texture", "measures");
    return memory_job("winent_texture", o, measures, renyi_q, nmeasures, in, in_row_bytes, width,
                      height, out, out_row_floats, device, threads, err);
}
