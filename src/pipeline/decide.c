/* SPDX-License-Identifier: BSD-3-Clause */
#include "decide.h"

int winent_more_gpus_pay(const winent_first_gpu *g, double more_s)
{
    if (g->failed)
        return 1;
    if (g->chunks_done < 2 || g->busy_s <= g->first_busy_s)
        return 0; /* it ended with the job: nothing is left */
    double rate = (g->px_done - g->first_px) / (g->busy_s - g->first_busy_s);
    return g->px_left / rate > more_s; /* rate 0: infinite, unless nothing is left */
}

int winent_auto_all_gpus(double cpu_alone_s, double all_s)
{
    return cpu_alone_s > all_s;
}

int winent_gpus_worth(double cpu_px_s, double total_px, int bands_done, int workers, double worth_s)
{
    double total = cpu_px_s > 0.0 ? total_px / cpu_px_s : 0.0;
    if (total > worth_s)
        return 1;
    return bands_done >= workers ? -1 : 0;
}

/* The CPU's fair share of the job's compute when the GPUs run beside it.
 * The pool's cores also encode every chunk, whoever computes it: a pixel the
 * CPU computes costs 1/C of the pool's time (C: its compute rate), a pixel
 * encoded 1/A (A: the pool's encoding rate, all cores). With the GPUs at G
 * together, the job ends soonest when the CPU computes the fraction
 * f = (1/G - 1/A) / (1/G + 1/C) of the pixels: none at all when the GPUs
 * compute faster than the pool can encode (then every band the CPU computes
 * delays the encoding the job waits for). 1 while the CPU is under its
 * share with `px` more. */
static int cpu_share_left(const winent_claim_view *v, const winent_engine_view *cpu, double gpus,
                          double px)
{
    double inv_a = 0.0; /* no encoding seen yet: as if free */
    if (v->enc_px > 0.0 && v->enc_s > 0.0)
        inv_a = v->enc_s / v->enc_px / (double)v->threads;
    double f = (1.0 / gpus - inv_a) / (1.0 / gpus + 1.0 / cpu->rate);
    if (f <= 0.0)
        return 0;
    double total = v->width * v->height;
    double mine = cpu->pixels_done + cpu->pixels_inflight;
    return mine + px <= f * total + px * 0.5;
}

/* An engine leaves a chunk to the others when it would finish it later
 * than they finish everything that is left, itself excluded: so the slowest
 * engine never holds back the end of the job. Before its rates are known
 * every engine takes what comes. The engine that would end the chunk first,
 * its own queue counted, never leaves it: else every engine could leave the
 * last chunk to the others together, which no one of them takes (three
 * engines, each slower than the other two together, waited forever). */
int winent_declines(const winent_claim_view *v, int ei, int y0, int y1)
{
    const winent_engine_view *e = &v->engines[ei];
    double mine = e->rate, others = 0.0, others_inflight = 0.0;
    int other_live = 0;
    const double px = (double)(y1 - y0) * v->width;
    double t_first_other = -1.0; /* the soonest another engine would end the chunk */
    for (int i = 0; i < v->nengines; i++) {
        const winent_engine_view *o = &v->engines[i];
        if (i == ei || !o->live)
            continue;
        other_live = 1;
        double r = o->rate;
        /* A GPU just up, on its first chunk: the CPU waits for its rate
         * rather than hold a chunk it would take over anyway, but no longer
         * than the CPU itself would take for the chunk (a GPU that slow is
         * no faster). */
        if (e->cpu && r <= 0.0 && o->inflight > 0 && mine > 0.0 && o->busy_for < px / mine)
            return 1;
        others += r;
        others_inflight += o->pixels_inflight;
        if (r > 0.0) {
            double t = (o->pixels_inflight + px) / r;
            if (t_first_other < 0.0 || t < t_first_other)
                t_first_other = t;
        }
    }
    if (!other_live || mine <= 0.0 || others <= 0.0)
        return 0;
    if ((e->pixels_inflight + px) / mine <= t_first_other)
        return 0;
    if (e->cpu && !cpu_share_left(v, e, others, px))
        return 1;
    double left = (v->height - (double)y0) * v->width; /* unclaimed rows from y0 on */
    double t_mine = (e->pixels_inflight + (double)(y1 - y0) * v->width) / mine;
    double t_others = (others_inflight + left) / others;
    return t_mine > t_others;
}

int winent_tail_pays(double gpu_rate, double gpu_queued_px, double cpu_rate, double tail_px)
{
    if (gpu_rate <= 0.0 || cpu_rate <= 0.0)
        return 1; /* not measured yet: a GPU with nothing to do tries */
    return (gpu_queued_px + tail_px) / gpu_rate < tail_px / cpu_rate;
}

int winent_gpu_room(const winent_mem_view *m, int *n_limit)
{
    if (m->mem_auto || m->chunk_bytes == 0)
        return 1;
    /* Chunks' worth of --mem the context takes, rounded up. */
    const int64_t ctx = (int64_t)((m->context_bytes + m->chunk_bytes - 1) / m->chunk_bytes);
    const int64_t room = (int64_t)m->n_fit - ctx;
    if (room < m->n_made || room < m->n_need + m->gpu_slots)
        return 0;
    if (*n_limit > room)
        *n_limit = (int)room;
    return 1;
}
