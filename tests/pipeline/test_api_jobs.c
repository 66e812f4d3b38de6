/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_api_jobs - the job handle of include/winent.h: jobs that run at once
 * in one process, each with its own stop flag (no process globals).
 *
 *   1. Three jobs on three threads at the same time. A (u8 samples from a
 *      FIFO, raw output) and C (u8 from another FIFO) each get half their
 *      input and are then held mid-run (each has written part of its map:
 *      its progress callback said rows_done < rows_total); B (u16 with
 *      nodata, a 7x5 window, from a file to .zst) runs beside them. C is
 *      cancelled from the main thread: it returns WINENT_ERR_INTERRUPTED,
 *      "interrupted", and leaves nothing in its output folder (neither the
 *      map nor its temporary file). Only then does A get the rest of its
 *      input: it finishes, and so does B; their files equal, byte for
 *      byte, the same jobs run alone before, and their maps the reference
 *      engine's.
 *   2. Cancel before the run: the run returns WINENT_ERR_INTERRUPTED at
 *      once, without an output; a second run is WINENT_ERR_USAGE.
 *   3. Cancel from the job's own progress callback (always called after
 *      the last chunk, before the output is committed): interrupted, no
 *      output.
 *   4. The options are copied: the caller's strings freed and overwritten
 *      after winent_job_create change nothing; winent_run and the job's
 *      stats and errors as documented; an invalid option is refused by
 *      create with the validation's message.
 *
 * No timing is asserted: waits are on conditions (a 0.3 s pause of the
 * FIFO's feeder only makes sure the progress callback comes mid-run).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "tiles/formats/zst_reader.h"

static char dir[240];

/* ---- Inputs, reference maps, files -------------------------------------- */

typedef struct image {
    winent_compute_opts co;
    int w, h;
    void *samples; /* packed, native byte order */
    float *ref;    /* the reference engine's map */
    char path[300];
} image;

static int make_image(image *im, const char *name, winent_dtype t, int w, int h, int kx, int ky,
                      unsigned values, unsigned long long seed)
{
    winent_compute_opts_default(&im->co);
    im->co.dtype = t;
    im->co.kx = kx;
    im->co.ky = ky;
    im->w = w;
    im->h = h;
    snprintf(im->path, sizeof im->path, "%s/%s", dir, name);
    size_t n = (size_t)w * (size_t)h, ss = winent_dtype_size(t);
    im->samples = malloc(n * ss);
    im->ref = malloc(n * sizeof(float));
    if (im->samples == NULL || im->ref == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) { /* smooth areas and noise: varied entropies */
        unsigned long long r = harness_rand(&seed);
        int64_t v = (int64_t)((i / (size_t)w / 37 + i % (size_t)w / 53) * 7 + r % 5) % values;
        harness_put_sample(im->samples, t, i, v, (double)v);
    }
    FILE *f = fopen(im->path, "wb");
    if (f == NULL || fwrite(im->samples, ss, n, f) != n || fclose(f) != 0)
        return -1;
    winent_engine *e = NULL;
    winent_error err;
    if (winent_engine_create(&im->co, WINENT_ENGINE_REFERENCE, 0, w, h, 1, &e, &err) != WINENT_OK)
        return -1;
    winent_status st =
        winent_engine_compute(e, im->samples, (size_t)w * ss, w, h, 0, h, 0, h, im->ref, (size_t)w);
    winent_engine_free(e);
    return st == WINENT_OK ? 0 : -1;
}

static void free_image(image *im)
{
    free(im->samples);
    free(im->ref);
}

/* Job options for image `im` (raw input) to `out`. */
static void job_opts(winent_job_opts *o, const image *im, const char *out)
{
    winent_job_opts_default(o);
    o->input = im->path;
    o->output = out;
    o->compute = im->co;
    o->nodata_given = im->co.has_nodata;
    o->width = im->w;
    o->height = im->h;
    o->dtype_given = 1;
    o->device = "cpu";
    o->threads = 2;
}

static unsigned char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    long size;
    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)size + 1)) != NULL && fread(b, 1, (size_t)size, f) == (size_t)size) {
        *n = (size_t)size;
    } else {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

static int same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    unsigned char *x = read_file(a, &na), *y = read_file(b, &nb);
    int same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* A raw float output equals the reference map bit for bit. */
static int raw_is_ref(const char *path, const image *im)
{
    size_t n = 0;
    unsigned char *b = read_file(path, &n);
    int same =
        b && n == (size_t)im->w * (size_t)im->h * sizeof(float) && memcmp(b, im->ref, n) == 0;
    free(b);
    return same;
}

/* A .zst output's map equals the reference map bit for bit. */
static int zst_is_ref(const char *path, const image *im)
{
    winent_zst_reader *r = NULL;
    winent_err err;
    winent_err_clear(&err);
    float *map = malloc((size_t)im->w * (size_t)im->h * sizeof(float));
    int same = map && winent_zst_reader_open(path, &r, &err) == WINENT_OK &&
               winent_zst_reader_map(r)->width == im->w &&
               winent_zst_reader_map(r)->height == im->h &&
               winent_zst_reader_read(r, im->h, map, &err) == WINENT_OK &&
               memcmp(map, im->ref, (size_t)im->w * (size_t)im->h * sizeof(float)) == 0;
    if (err.status != WINENT_OK)
        fprintf(stderr, "%s: %s\n", path, err.msg);
    winent_zst_reader_free(r);
    free(map);
    return same;
}

/* Entries of folder `d` (. and .. aside), or -1. */
static int count_entries(const char *d)
{
    DIR *h = opendir(d);
    int n = 0;
    if (h == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(h)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(h);
    return n;
}

/* ---- A job on a thread of its own --------------------------------------- */

/* ---- C: samples from a FIFO, cancelled mid-run ------------------------- */

typedef struct fifo_job {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    const image *im;
    char fifo[320];
    int rows_first; /* rows the feeder writes before it holds back */
    int fed;        /* the feeder wrote them (all read by the job) */
    int mid_run;    /* the progress callback saw rows_done < rows_total */
    int release;    /* the feeder may write the rest (A), then close */
    int job_done;   /* the job's run returned: the feeder closes (C) */
    int feeder_error;
    int64_t rows_seen;
} fifo_job;

static void fifo_init(fifo_job *f, const image *im, const char *name)
{
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->cv, NULL);
    f->im = im;
    f->rows_first = im->h / 2;
    snprintf(f->fifo, sizeof f->fifo, "%s/%s", dir, name);
}

static void fifo_set(fifo_job *f, int *flag)
{
    pthread_mutex_lock(&f->lock);
    *flag = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->lock);
}

/* Until the job is mid-run with its first rows read (1), or the feeder
 * failed or the job ended (0). */
static int fifo_wait_mid_run(fifo_job *f)
{
    pthread_mutex_lock(&f->lock);
    while (!(f->mid_run && f->fed) && !f->feeder_error && !f->job_done)
        pthread_cond_wait(&f->cv, &f->lock);
    int mid = f->mid_run && f->fed;
    pthread_mutex_unlock(&f->lock);
    return mid;
}

typedef struct runner {
    winent_job *job;
    winent_status st;
    pthread_t thread;
    fifo_job *fifo; /* its input's feeder, told when the run is over (may be NULL) */
} runner;

static void *run_thread(void *arg)
{
    runner *r = arg;
    r->st = winent_job_run(r->job);
    if (r->fifo)
        fifo_set(r->fifo, &r->fifo->job_done);
    return NULL;
}

/* write() all of `n` bytes; 0 when done. */
static int write_all(int fd, const char *b, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, b, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

static void fifo_progress(void *user, const winent_progress *p)
{
    fifo_job *f = user;
    pthread_mutex_lock(&f->lock);
    f->rows_seen = p->rows_done;
    if (p->rows_done > 0 && p->rows_done < p->rows_total)
        f->mid_run = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->lock);
}

static void *feed_thread(void *arg)
{
    fifo_job *f = arg;
    const struct timespec pause = {0, 300 * 1000 * 1000}, retry = {0, 10 * 1000 * 1000};
    int fd = -1;
    /* Open when the job has opened its end (ENXIO before), unless it ended. */
    for (;;) {
        fd = open(f->fifo, O_WRONLY | O_NONBLOCK);
        if (fd >= 0 || errno != ENXIO)
            break;
        pthread_mutex_lock(&f->lock);
        int done = f->job_done;
        pthread_mutex_unlock(&f->lock);
        if (done)
            break;
        nanosleep(&retry, NULL);
    }
    if (fd < 0 || fcntl(fd, F_SETFL, 0) != 0) {
        pthread_mutex_lock(&f->lock);
        f->feeder_error = 1;
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->lock);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    /* So that the first chunk is written at least 0.25 s after the job
     * started: the writer then calls the progress callback for it. */
    nanosleep(&pause, NULL);
    const size_t row = (size_t)f->im->w * winent_dtype_size(f->im->co.dtype);
    const char *b = f->im->samples;
    int bad = write_all(fd, b, row * (size_t)f->rows_first);
    pthread_mutex_lock(&f->lock);
    f->fed = !bad;
    f->feeder_error = bad;
    pthread_cond_broadcast(&f->cv);
    /* The rest is held back: written once released, never if the job
     * ends first. */
    while (!f->release && !f->job_done)
        pthread_cond_wait(&f->cv, &f->lock);
    int rest = f->release && !bad;
    pthread_mutex_unlock(&f->lock);
    if (rest && write_all(fd, b + row * (size_t)f->rows_first,
                          row * (size_t)(f->im->h - f->rows_first)) != 0)
        fifo_set(f, &f->feeder_error);
    close(fd);
    return NULL;
}

/* ---- 1. Three jobs at once ---------------------------------------------- */

static void test_concurrent(void)
{
    image a, b, c;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    int ok = make_image(&a, "a.raw", WINENT_U8, 700, 900, 5, 5, 200, 1) == 0 &&
             make_image(&b, "b.raw", WINENT_U16, 513, 777, 7, 5, 3000, 2) == 0;
    b.co.has_nodata = 1;
    b.co.nodata = 7.0;
    /* The reference again, with the nodata B's jobs use. */
    if (ok) {
        winent_engine *e = NULL;
        ok = winent_engine_create(&b.co, WINENT_ENGINE_REFERENCE, 0, b.w, b.h, 1, &e, NULL) ==
                 WINENT_OK &&
             winent_engine_compute(e, b.samples, (size_t)b.w * 2, b.w, b.h, 0, b.h, 0, b.h, b.ref,
                                   (size_t)b.w) == WINENT_OK;
        winent_engine_free(e);
    }
    ok = ok && make_image(&c, "c.raw", WINENT_U8, 1024, 2048, 3, 3, 256, 3) == 0;
    CHECK(ok, "cannot make the inputs in %s", dir);
    if (!ok)
        goto out;

    /* Alone first. */
    char a1[320], b1[320], a2[320], b2[320], cdir[300], cout[320];
    snprintf(a1, sizeof a1, "%s/a-alone.raw", dir);
    snprintf(b1, sizeof b1, "%s/b-alone.zst", dir);
    snprintf(a2, sizeof a2, "%s/a-together.raw", dir);
    snprintf(b2, sizeof b2, "%s/b-together.zst", dir);
    snprintf(cdir, sizeof cdir, "%s/c-out", dir);
    snprintf(cout, sizeof cout, "%s/c.raw", cdir);
    winent_job_opts oa, ob;
    winent_error err;
    job_opts(&oa, &a, a1);
    job_opts(&ob, &b, b1);
    ob.frame_rows = 64;
    ob.mem_bytes = (uint64_t)8 << 20; /* several chunks */
    oa.mem_bytes = (uint64_t)4 << 20;
    winent_status st = winent_run(&oa, NULL, &err);
    CHECK(st == WINENT_OK, "A alone: %s", err.message);
    st = winent_run(&ob, NULL, &err);
    CHECK(st == WINENT_OK, "B alone: %s", err.message);
    CHECK(raw_is_ref(a1, &a), "A alone differs from the reference engine");
    CHECK(zst_is_ref(b1, &b), "B alone differs from the reference engine");

    /* Together, with C. */
    fifo_job fa, fc;
    fifo_init(&fa, &a, "a.fifo");
    fifo_init(&fc, &c, "c.fifo");
    if (mkfifo(fa.fifo, 0600) != 0 || mkfifo(fc.fifo, 0600) != 0 || mkdir(cdir, 0700) != 0) {
        CHECK(0, "mkfifo %s: %s", fa.fifo, strerror(errno));
        goto out;
    }
    winent_job_opts oc;
    job_opts(&oc, &c, cout);
    oc.input = fc.fifo;
    oc.mem_bytes = (uint64_t)4 << 20; /* 128-row chunks */
    oc.on_progress = fifo_progress;
    oc.user = &fc;
    oa.input = fa.fifo;
    oa.output = a2;
    oa.on_progress = fifo_progress;
    oa.user = &fa;
    ob.output = b2;
    runner ra = {0}, rb = {0}, rc = {0};
    ra.fifo = &fa;
    rc.fifo = &fc;
    CHECK(winent_job_create(&oa, &ra.job, &err) == WINENT_OK, "create A: %s", err.message);
    CHECK(winent_job_create(&ob, &rb.job, &err) == WINENT_OK, "create B: %s", err.message);
    CHECK(winent_job_create(&oc, &rc.job, &err) == WINENT_OK, "create C: %s", err.message);
    if (!ra.job || !rb.job || !rc.job)
        goto out;
    pthread_t feed_a, feed_c;
    if (pthread_create(&feed_a, NULL, feed_thread, &fa) != 0 ||
        pthread_create(&feed_c, NULL, feed_thread, &fc) != 0 ||
        pthread_create(&rc.thread, NULL, run_thread, &rc) != 0 ||
        pthread_create(&ra.thread, NULL, run_thread, &ra) != 0 ||
        pthread_create(&rb.thread, NULL, run_thread, &rb) != 0) {
        CHECK(0, "cannot start the threads");
        exit(harness_end()); /* nothing sane to join */
    }
    /* A and C are mid-run: part of each map written, the rest of each
     * input held back. Cancel C from here (another thread). */
    int a_mid = fifo_wait_mid_run(&fa), c_mid = fifo_wait_mid_run(&fc);
    CHECK(a_mid && c_mid, "no progress mid-run (A %d, C %d; feeder errors %d %d)", a_mid, c_mid,
          fa.feeder_error, fc.feeder_error);
    pthread_mutex_lock(&fc.lock);
    int64_t rows_at_cancel = fc.rows_seen;
    pthread_mutex_unlock(&fc.lock);
    winent_job_cancel(rc.job);
    pthread_join(rc.thread, NULL);
    pthread_join(feed_c, NULL);
    /* A has been running all along: now the rest of its input. */
    pthread_mutex_lock(&fa.lock);
    int a_still = !fa.job_done && fa.rows_seen > 0 && fa.rows_seen < a.h;
    pthread_mutex_unlock(&fa.lock);
    CHECK(a_still, "A was not mid-run when C was cancelled");
    fifo_set(&fa, &fa.release);
    pthread_join(ra.thread, NULL);
    pthread_join(feed_a, NULL);
    pthread_join(rb.thread, NULL);

    CHECK(rc.st == WINENT_ERR_INTERRUPTED, "C: status %d, want interrupted (%s)", rc.st,
          winent_job_error(rc.job)->message);
    CHECK(winent_job_error(rc.job)->status == WINENT_ERR_INTERRUPTED &&
              strcmp(winent_job_error(rc.job)->message, "interrupted") == 0,
          "C's error: %d '%s'", winent_job_error(rc.job)->status,
          winent_job_error(rc.job)->message);
    CHECK(rows_at_cancel > 0 && rows_at_cancel < c.h, "C cancelled at row %lld of %d",
          (long long)rows_at_cancel, c.h);
    CHECK(count_entries(cdir) == 0, "C left %d files in %s (its map or a temporary file)",
          count_entries(cdir), cdir);
    CHECK(ra.st == WINENT_OK, "A beside C: %s", winent_job_error(ra.job)->message);
    CHECK(rb.st == WINENT_OK, "B beside C: %s", winent_job_error(rb.job)->message);
    CHECK(same_file(a1, a2), "A run beside B and C differs from A alone");
    CHECK(same_file(b1, b2), "B run beside A and C differs from B alone");
    CHECK(raw_is_ref(a2, &a), "A beside B and C differs from the reference engine");
    CHECK(zst_is_ref(b2, &b), "B beside A and C differs from the reference engine");
    winent_job_stats s;
    winent_job_get_stats(ra.job, &s);
    CHECK(s.pixels == (uint64_t)a.w * (uint64_t)a.h && s.chunks > 1,
          "A's stats: %llu pixels, %d chunks", (unsigned long long)s.pixels, s.chunks);
    winent_job_free(ra.job);
    winent_job_free(rb.job);
    winent_job_free(rc.job);
out:
    free_image(&a);
    free_image(&b);
    free_image(&c);
}

/* ---- 2, 3, 4. One job --------------------------------------------------- */

static void cancel_in_progress(void *user, const winent_progress *p)
{
    (void)p;
    winent_job_cancel(*(winent_job **)user);
}

static void test_one_job(void)
{
    image im;
    memset(&im, 0, sizeof im);
    if (make_image(&im, "one.raw", WINENT_I16, 300, 200, 3, 5, 900, 4) != 0) {
        CHECK(0, "cannot make the input");
        free_image(&im);
        return;
    }
    char out[320], sub[300];
    snprintf(sub, sizeof sub, "%s/one-out", dir);
    snprintf(out, sizeof out, "%s/one.zst", sub);
    CHECK(mkdir(sub, 0700) == 0, "mkdir %s", sub);
    winent_job_opts o;
    winent_error err;
    job_opts(&o, &im, out);

    /* Cancel before the run. */
    winent_job *job = NULL;
    CHECK(winent_job_create(&o, &job, &err) == WINENT_OK && err.status == WINENT_OK &&
              err.message[0] == '\0',
          "create: %s", err.message);
    winent_job_stats s;
    winent_job_get_stats(job, &s);
    CHECK(s.pixels == 0 && s.wall_s == 0.0 && s.chunks == 0, "stats before the run not zero");
    CHECK(winent_job_error(job)->status == WINENT_OK, "an error before the run");
    winent_job_cancel(job);
    CHECK(winent_job_run(job) == WINENT_ERR_INTERRUPTED, "cancelled before: not interrupted");
    CHECK(strcmp(winent_job_error(job)->message, "interrupted") == 0, "message '%s'",
          winent_job_error(job)->message);
    CHECK(count_entries(sub) == 0, "a job cancelled before its run left a file");
    CHECK(winent_job_run(job) == WINENT_ERR_USAGE &&
              winent_job_error(job)->status == WINENT_ERR_USAGE,
          "a second run: %d", winent_job_error(job)->status);
    winent_job_cancel(job); /* after the run: nothing happens */
    winent_job_free(job);
    winent_job_free(NULL);

    /* Cancel from the job's own progress callback. */
    job = NULL;
    o.on_progress = cancel_in_progress;
    o.user = &job;
    CHECK(winent_job_create(&o, &job, &err) == WINENT_OK, "create: %s", err.message);
    CHECK(winent_job_run(job) == WINENT_ERR_INTERRUPTED, "cancelled in progress: %s",
          winent_job_error(job)->message);
    CHECK(count_entries(sub) == 0, "a job cancelled from its callback left a file");
    winent_job_free(job);

    /* The options are copied: strings freed and overwritten after create. */
    char *in_copy = strdup(im.path), *out_copy = strdup(out), *dev = strdup("cpu");
    o.on_progress = NULL;
    o.input = in_copy;
    o.output = out_copy;
    o.device = dev;
    job = NULL;
    CHECK(winent_job_create(&o, &job, &err) == WINENT_OK, "create: %s", err.message);
    memset(in_copy, 'x', strlen(in_copy));
    memset(out_copy, 'y', strlen(out_copy));
    memset(dev, 'z', strlen(dev));
    free(in_copy);
    free(out_copy);
    free(dev);
    memset(&o, 0xA5, sizeof o);
    CHECK(winent_job_run(job) == WINENT_OK, "run after the caller's options went: %s",
          winent_job_error(job)->message);
    winent_job_get_stats(job, &s);
    CHECK(s.pixels == (uint64_t)im.w * (uint64_t)im.h, "stats: %llu pixels",
          (unsigned long long)s.pixels);
    CHECK(zst_is_ref(out, &im), "the map differs from the reference engine");
    winent_job_free(job);
    unlink(out);

    /* winent_run: the same map; create refuses bad options with the
     * validation's message, and no job. */
    job_opts(&o, &im, out);
    CHECK(winent_run(&o, &s, NULL) == WINENT_OK && s.pixels > 0, "winent_run");
    CHECK(zst_is_ref(out, &im), "winent_run's map differs from the reference engine");
    o.compute.kx = 256;
    job = (winent_job *)&o; /* create must set it to NULL */
    CHECK(winent_job_create(&o, &job, &err) == WINENT_ERR_USAGE && job == NULL,
          "create with a window 256 wide");
    winent_error want;
    winent_job_opts_validate(&o, &want);
    CHECK(err.status == WINENT_ERR_USAGE && strcmp(err.message, want.message) == 0 &&
              strstr(err.message, "--window") != NULL,
          "create's message '%s', validate's '%s'", err.message, want.message);
    CHECK(winent_run(&o, &s, &err) == WINENT_ERR_USAGE && strcmp(err.message, want.message) == 0,
          "winent_run's message '%s'", err.message);
    unlink(out);
    rmdir(sub);
    free_image(&im);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* a FIFO's reader gone is a write error here */
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/winent-api-jobs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        printf("cannot make a temporary folder: skipped\n");
        return 77;
    }
    test_concurrent();
    test_one_job();
    if (harness_failed == 0) { /* keep the files of a failure for a look */
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", dir);
    } else {
        fprintf(stderr, "files kept in %s\n", dir);
    }
    return harness_end();
}
