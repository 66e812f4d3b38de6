/* SPDX-License-Identifier: BSD-3-Clause */
/* The reader (one thread: chunks taken in order, their input read through
 * the job's input, input.c) and the writer (the calling thread: chunks
 * back in order, into the job's output, output.c). */
#include "pipeline_internal.h"

/* ---- reader -------------------------------------------------------- */

/* A chunk to fill (winent_ring_take_locked), else wait for the writer to
 * free one. Lock held. */
static chunk *take_free(pipeline *p, int *fresh, double *wait)
{
    for (;;) {
        if (STOPPED(p))
            return NULL;
        chunk *c = winent_ring_take_locked(&p->ring, fresh);
        if (c != NULL)
            return c;
        double t0 = winent_now();
        pthread_cond_wait(&p->state_cv, &p->lock);
        *wait += winent_now() - t0;
    }
}

/* Chunk i's buffers, made (and pinned) ahead by a pool worker. */
static void make_ahead(void *arg, long i, int worker)
{
    pipeline *p = arg;
    winent_err err;
    (void)worker;
    winent_err_clear(&err);
    if (!STOPPED(p) && winent_chunk_buffers(&p->ring, &p->ring.chunks[i], &err) != WINENT_OK)
        winent_report_fail(&p->report, &err);
}

/* GPUs named: every chunk the job will use is made and pinned now, on the
 * pool's threads at once, while the GPUs' contexts come up: made lazily,
 * each chunk was pinned by the first GPU to take it, one registration
 * after the other in the driver (47-66 ms a GPU of a 0.19 s job on four
 * H200s; docs/PERFORMANCE.md). Lock not held. */
static void make_chunks_ahead(pipeline *p)
{
    pthread_mutex_lock(&p->lock);
    int n = winent_ring_ahead_locked(&p->ring);
    pthread_mutex_unlock(&p->lock);
    winent_trace_mark(p->trace, LANE_READER, "ahead", n);
    winent_pool_parallel_run(&p->pool, n, make_ahead, p);
    pthread_mutex_lock(&p->lock);
    winent_ring_made_ahead_locked(&p->ring, n);
    pthread_mutex_unlock(&p->lock);
    winent_trace_mark(p->trace, LANE_READER, "made", n);
}

void *winent_stage_reader(void *arg)
{
    pipeline *p = arg;
    winent_job_input *in = &p->in;
    winent_err err;
    winent_err_clear(&err);
    double busy = 0.0, wait = 0.0;
    if (p->plan.ngpus > 0 && p->plan.stage == WINENT_STAGE_JOB)
        make_chunks_ahead(p);
    for (int64_t seq = 0; seq < p->ring.nchunks; seq++) {
        int fresh;
        winent_trace_mark(p->trace, LANE_READER, "take", seq);
        pthread_mutex_lock(&p->lock);
        chunk *c = take_free(p, &fresh, &wait);
        const int launched = p->policy.gpu_launch == 1;
        pthread_mutex_unlock(&p->lock);
        if (c == NULL)
            break;
        winent_trace_mark(p->trace, LANE_READER, "read", seq);
        double t1 = winent_now();
        if (fresh && winent_chunk_buffers(&p->ring, c, &err) != WINENT_OK) {
            pthread_mutex_lock(&p->lock);
            winent_ring_unmake_locked(&p->ring, c);
            pthread_mutex_unlock(&p->lock);
            break;
        }
        c->seq = seq;
        c->y0 = (int)(seq * p->plan.chunk_rows);
        c->y1 = c->y0 + p->plan.chunk_rows > p->plan.height ? p->plan.height
                                                            : c->y0 + p->plan.chunk_rows;
        c->out.nunits = (c->y1 - c->y0 + p->plan.unit_rows - 1) / p->plan.unit_rows;
        c->out.npieces = c->out.nunits * p->plan.parts;
        c->claim.engine = NULL;
        c->out.tapped_to = c->y0;
        winent_chunk_input_rows(c->y0, c->y1, p->plan.ry, p->plan.height, &c->in_y0, &c->in_h);
        c->staged = in->stages(in, launched);
        p->out.place(&p->out, c);
        chunk_state next = CHUNK_READY;
        if (in->read(in, c, &next, &err) != WINENT_OK) {
            pthread_mutex_lock(&p->lock);
            c->state = CHUNK_FREE;
            pthread_mutex_unlock(&p->lock);
            break;
        }
        busy += winent_now() - t1;
        winent_trace_mark(p->trace, LANE_READER, "ready", seq);
        pthread_mutex_lock(&p->lock);
        c->state = next;
        if (next == CHUNK_FILLING)
            pthread_cond_broadcast(&p->work_cv);
        if (next == CHUNK_ENCODING) { /* nothing computed: the units to encode */
            c->out.taps_y0 = c->y1;
            winent_chunk_pieces_locked(&p->ring, c);
            pthread_cond_broadcast(&p->work_cv);
        }
        pthread_cond_broadcast(&p->state_cv);
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_lock(&p->lock);
    p->ring.reader_done = 1;
    p->meter.read_clock.busy_s += busy;
    p->meter.read_clock.wait_s += wait;
    pthread_cond_broadcast(&p->state_cv);
    pthread_mutex_unlock(&p->lock);
    if (err.status != WINENT_OK)
        winent_report_fail(&p->report, &err);
    return NULL;
}

/* ---- writer -------------------------------------------------------- */

/* Add the chunk's maps to the saturation counts (writer thread). Branch
 * free, so it vectorizes: NaN is neither valid nor at the top. */
static void count_saturated(const job_plan *pl, saturation *saturated, const chunk *c)
{
    const size_t n = (size_t)(c->y1 - c->y0) * (size_t)pl->width;
    for (int m = 0; m < pl->nmaps; m++) {
        saturation *s = &saturated[m];
        const float *v = c->map + (size_t)m * pl->map_plane, at = s->at_top;
        uint64_t valid = 0, top = 0;
        for (size_t i = 0; i < n; i++) {
            valid += v[i] == v[i];
            top += v[i] >= at;
        }
        s->valid += valid;
        s->top_count += top;
    }
}

void winent_stage_write_in_order(pipeline *p, winent_job_stats *stats, double t_start)
{
    winent_err err;
    winent_err_clear(&err);
    int64_t next = 0;
    double busy = 0.0, last_progress = t_start;
    pthread_mutex_lock(&p->lock);
    while (next < p->ring.nchunks && !STOPPED(p)) {
        winent_report_flush_locked(&p->report, p->plan.on_notice, p->plan.user);
        chunk *c = winent_ring_done_locked(&p->ring, next);
        if (c == NULL) {
            /* Timed: a cancel (a store into the job's flag, from a signal
             * handler too) wakes nobody; the loop's test sees it. */
            winent_cond_wait_ms(&p->state_cv, &p->lock, 100);
            continue;
        }
        pthread_mutex_unlock(&p->lock);
        double t0 = winent_now();
        if (p->saturated)
            count_saturated(&p->plan, p->saturated, c);
        winent_trace_mark(p->trace, LANE_WRITER, "write", c->seq);
        winent_status st = WINENT_OK;
        for (int i = 0; i < p->ntaps && st == WINENT_OK; i++)
            if (p->taps[i]->write)
                st = p->taps[i]->write(p->taps[i], c, &err);
        double t1 = winent_now();
        busy += t1 - t0;
        if (st != WINENT_OK) {
            winent_report_fail(&p->report, &err);
            pthread_mutex_lock(&p->lock);
            break;
        }
        next++;
        winent_trace_mark(p->trace, LANE_WRITER, "written", c->seq);
        if (p->plan.on_progress && (t1 - last_progress >= 0.25 || next == p->ring.nchunks)) {
            winent_progress pr;
            pr.rows_done = c->y1;
            pr.rows_total = p->plan.height;
            pr.width = p->plan.width;
            pr.seconds = t1 - t_start;
            p->plan.on_progress(p->plan.user, &pr);
            last_progress = t1;
        }
        pthread_mutex_lock(&p->lock);
        winent_ring_release_locked(&p->ring, c);
    }
    winent_report_flush_locked(&p->report, p->plan.on_notice, p->plan.user);
    pthread_mutex_unlock(&p->lock);
    if (CANCELLED(p) && err.status == WINENT_OK) {
        /* Records why, and wakes every stage still waiting. */
        WINENT_ERR(&err, WINENT_ERR_INTERRUPTED, "interrupted");
        winent_report_fail(&p->report, &err);
    }
    if (!STOPPED(p) && next == p->ring.nchunks && p->plan.stage == WINENT_STAGE_JOB) {
        /* Every tap finishes (the preview writes its PNG), then every tap
         * commits in order (the output is put in place, then the preview
         * renamed): each appears only when the job succeeds (only a failed
         * rename of a later tap's file can come after the output is at
         * its name). */
        double t0 = winent_now();
        winent_status st = WINENT_OK;
        for (int i = 0; i < p->ntaps && st == WINENT_OK; i++)
            if (p->taps[i]->finish)
                st = p->taps[i]->finish(p->taps[i], &err);
        for (int i = 0; i < p->ntaps && st == WINENT_OK; i++)
            if (p->taps[i]->commit)
                st = p->taps[i]->commit(p->taps[i], &err);
        if (st != WINENT_OK)
            winent_report_fail(&p->report, &err);
        busy += winent_now() - t0;
    }
    if (stats) {
        stats->write.busy_s = busy;
        stats->write.threads = 1;
    }
}
