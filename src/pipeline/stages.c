/* The pipeline's stage threads: reader, compute workers, encoders. Each
 * loops on its input queue until it is closed or the job stops; the first
 * error goes to winent_pipeline_fail, which stops everyone. */
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

static void add_clock(pipeline *p, stage_clock *c, double busy, double wait)
{
    pthread_mutex_lock(&p->lock);
    c->busy_s += busy;
    c->wait_s += wait;
    pthread_mutex_unlock(&p->lock);
}

/* ---- reader -------------------------------------------------------- */

void *winent_stage_reader(void *arg)
{
    pipeline *p = arg;
    winent_err err;
    winent_err_clear(&err);
    const int ry = p->plan->ry;
    const size_t rb = p->row_bytes;
    /* The last 2 ry rows read: the next chunk's upper halo. */
    uint8_t *carry = malloc(rb * (size_t)(2 * ry) + 1);
    int carry_y0 = 0, carry_n = 0, next_read = 0;
    double busy = 0.0, wait = 0.0;
    if (carry == NULL) {
        WINENT_ERR(&err, WINENT_ERR_INTERNAL, "out of memory");
        goto done;
    }
    for (int64_t seq = 0; seq < p->nchunks && !p->stop; seq++) {
        double t0 = winent_now();
        in_chunk *c = winent_queue_pop(&p->free_in);
        double t1 = winent_now();
        wait += t1 - t0;
        if (c == NULL)
            break;
        c->seq = seq;
        c->y0 = (int)(seq * p->chunk_rows);
        c->y1 = c->y0 + p->chunk_rows > p->height ? p->height : c->y0 + p->chunk_rows;
        winent_chunk_input_rows(c->y0, c->y1, ry, p->height, &c->in_y0, &c->in_h);
        /* Rows before next_read come from the carry, the rest from the source. */
        int from_carry = next_read - c->in_y0;
        if (from_carry > 0)
            memcpy(c->rows, carry + rb * (size_t)(c->in_y0 - carry_y0), rb * (size_t)from_carry);
        else
            from_carry = 0;
        int fresh = c->in_h - from_carry;
        if (winent_source_read(p->source, fresh, c->rows + rb * (size_t)from_carry, &err) !=
            WINENT_OK) {
            winent_queue_push(&p->free_in, c);
            break;
        }
        next_read = c->in_y0 + c->in_h;
        carry_n = c->in_h < 2 * ry ? c->in_h : 2 * ry;
        carry_y0 = next_read - carry_n;
        memcpy(carry, c->rows + rb * (size_t)(carry_y0 - c->in_y0), rb * (size_t)carry_n);
        double t2 = winent_now();
        busy += t2 - t1;
        if (winent_queue_push(&p->filled_in, c) != 0)
            break;
        wait += winent_now() - t2;
    }
done:
    free(carry);
    add_clock(p, &p->read_clock, busy, wait);
    if (err.status != WINENT_OK)
        winent_pipeline_fail(p, &err);
    winent_queue_close(&p->filled_in);
    return NULL;
}

/* ---- compute ------------------------------------------------------- */

static void compute_done(pipeline *p)
{
    pthread_mutex_lock(&p->lock);
    int last = --p->live_compute == 0;
    pthread_mutex_unlock(&p->lock);
    if (last)
        winent_queue_close(&p->computed);
}

static void chunk_of(const pipeline *p, const in_chunk *in, winent_chunk *c)
{
    c->rows = in->rows;
    c->row_bytes = p->row_bytes;
    c->width = p->width;
    c->height = p->height;
    c->in_y0 = in->in_y0;
    c->in_h = in->in_h;
    c->y0 = in->y0;
    c->y1 = in->y1;
}

static void label_out(out_chunk *out, const in_chunk *in)
{
    out->seq = in->seq;
    out->y0 = in->y0;
    out->y1 = in->y1;
}

void *winent_stage_cpu_worker(void *arg)
{
    pipeline *p = arg;
    winent_err err;
    winent_err_clear(&err);
    double busy = 0.0, wait = 0.0;
    for (;;) {
        double t0 = winent_now();
        /* The output slot first: a chunk taken is a chunk that can finish. */
        out_chunk *out = winent_queue_pop(&p->free_out);
        if (out == NULL)
            break;
        in_chunk *in = winent_queue_pop(&p->filled_in);
        if (in == NULL) {
            winent_queue_push(&p->free_out, out);
            break;
        }
        double t1 = winent_now();
        wait += t1 - t0;
        winent_chunk c;
        chunk_of(p, in, &c);
        label_out(out, in);
        winent_status st = winent_cpu_engine_compute(p->cpu, &c, out->map, (size_t)p->width, &err);
        busy += winent_now() - t1;
        winent_queue_push(&p->free_in, in);
        if (st != WINENT_OK) {
            winent_queue_push(&p->free_out, out);
            break;
        }
        if (winent_queue_push(&p->computed, out) != 0)
            break;
    }
    add_clock(p, &p->compute_clock, busy, wait);
    if (err.status != WINENT_OK)
        winent_pipeline_fail(p, &err);
    compute_done(p);
    return NULL;
}

/* One worker per GPU keeps up to `slots` chunks in flight, each on its own
 * stream. It never blocks on a pool while it holds chunks in flight (the
 * writer may be waiting for one of them): it retires the oldest instead. */
void *winent_stage_gpu_worker(void *arg)
{
    gpu_worker_arg *a = arg;
    pipeline *p = a->p;
    winent_err err;
    winent_err_clear(&err);
    winent_gpu_engine *g = NULL;
    in_chunk *fin[16];
    out_chunk *fout[16];
    int head = 0, n = 0, slots = p->gpu_slots > 16 ? 16 : p->gpu_slots;
    double busy = 0.0, t_start = winent_now();
    int input_done = 0;

    if (winent_gpu_engine_create(p->plan, a->device, p->width, p->chunk_rows + 2 * p->plan->ry,
                                 slots, &g, &err) != WINENT_OK)
        goto done;
    pthread_mutex_lock(&p->lock);
    if (winent_now() > p->engines_ready_s)
        p->engines_ready_s = winent_now();
    pthread_mutex_unlock(&p->lock);
    while (!p->stop) {
        if (!input_done && n < slots) {
            out_chunk *out = n == 0 ? winent_queue_pop(&p->free_out)
                                    : winent_queue_try_pop(&p->free_out);
            in_chunk *in = NULL;
            if (out != NULL) {
                in = n == 0 ? winent_queue_pop(&p->filled_in) : winent_queue_try_pop(&p->filled_in);
                if (in == NULL) {
                    winent_queue_push(&p->free_out, out);
                    if (n == 0) /* blocking pop gave NULL: input is over */
                        input_done = 1;
                }
            } else if (n == 0) {
                break; /* closed */
            }
            if (in != NULL) {
                int slot = (head + n) % slots;
                winent_chunk c;
                chunk_of(p, in, &c);
                label_out(out, in);
                fin[slot] = in;
                fout[slot] = out;
                n++;
                if (winent_gpu_engine_submit(g, slot, &c, out->map, (size_t)p->width, &err) !=
                    WINENT_OK)
                    break;
                continue;
            }
        }
        if (n == 0) {
            if (input_done)
                break;
            continue;
        }
        /* Retire the oldest chunk in flight. */
        if (winent_gpu_engine_wait(g, head, &err) != WINENT_OK)
            break;
        winent_queue_push(&p->free_in, fin[head]);
        if (winent_queue_push(&p->computed, fout[head]) != 0)
            break;
        head = (head + 1) % slots;
        n--;
    }
    /* After an error or a stop, return what is still held. */
    for (; n > 0; n--, head = (head + 1) % slots) {
        winent_err ignore;
        winent_err_clear(&ignore);
        winent_gpu_engine_wait(g, head, &ignore);
        winent_queue_push(&p->free_in, fin[head]);
        winent_queue_push(&p->free_out, fout[head]);
    }
    busy = winent_now() - t_start;
done:
    winent_gpu_engine_free(g);
    /* The device works asynchronously: the worker's wall time is its busy
     * time, and its waits on the pools are not split out. */
    add_clock(p, &p->compute_clock, busy, 0.0);
    if (err.status != WINENT_OK)
        winent_pipeline_fail(p, &err);
    compute_done(p);
    return NULL;
}

/* ---- encode -------------------------------------------------------- */

void *winent_stage_encoder(void *arg)
{
    pipeline *p = arg;
    winent_err err;
    winent_err_clear(&err);
    winent_sink_encoder *enc = NULL;
    double busy = 0.0, wait = 0.0;
    if (winent_sink_encoder_create(p->sink, &enc, &err) != WINENT_OK)
        goto done;
    for (;;) {
        double t0 = winent_now();
        out_chunk *out = winent_queue_pop(&p->computed);
        double t1 = winent_now();
        wait += t1 - t0;
        if (out == NULL)
            break;
        int first_unit = out->y0 / p->unit_rows;
        out->nunits = (out->y1 - out->y0 + p->unit_rows - 1) / p->unit_rows;
        winent_status st = WINENT_OK;
        for (int u = 0; u < out->nunits && st == WINENT_OK && !p->stop; u++) {
            int r0 = u * p->unit_rows;
            int nr = out->y1 - out->y0 - r0 < p->unit_rows ? out->y1 - out->y0 - r0 : p->unit_rows;
            st = winent_sink_encode(enc, first_unit + u, out->map + (size_t)r0 * (size_t)p->width,
                                    nr, &out->units[u], &err);
        }
        busy += winent_now() - t1;
        if (st != WINENT_OK || winent_queue_push(&p->encoded, out) != 0) {
            winent_queue_push(&p->free_out, out);
            break;
        }
    }
done:
    winent_sink_encoder_free(enc);
    add_clock(p, &p->encode_clock, busy, wait);
    if (err.status != WINENT_OK)
        winent_pipeline_fail(p, &err);
    pthread_mutex_lock(&p->lock);
    int last = --p->live_encode == 0;
    pthread_mutex_unlock(&p->lock);
    if (last)
        winent_queue_close(&p->encoded);
    return NULL;
}
