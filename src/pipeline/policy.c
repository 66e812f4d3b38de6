/* SPDX-License-Identifier: BSD-3-Clause */
/* The job's policy (--device auto): it watches and the machinery moves
 * bytes. It reads the meter's figures and the engines' counts under the
 * lock, decides through decide.c's pure functions, and acts in two ways
 * only: it adds engines (the GPUs, and when more of them pay) and it
 * publishes limits (job_policy: the most CPU bands in flight while the
 * first GPU starts, whether the GPUs have been asked for). The reader, the
 * writer and the pool never call it: they write the meter and wake the
 * state condition, and the policy's thread looks at both. */
#include <stdlib.h>

#include "pipeline_internal.h"

/* --device auto brings the GPUs in only when the CPU alone would need this
 * long (its best case at the start, then its measured rate). Asked for while
 * the CPU works, the GPUs come up 0.4-0.7 s later (the driver's start and a
 * context each, slower beside busy cores than alone), and each costs
 * 0.06-0.1 s at the end (its context's teardown): a job the CPU alone ends
 * within about twice their arrival gains nothing from them and pays that
 * teardown (docs/PERFORMANCE.md, "nvidia-h100-x2": the setup and end
 * columns). */
#define WINENT_GPU_WORTH_S 0.8
/* --device auto brings one GPU in first, and the others only when, at the
 * first one's measured rate, what is left would keep it busy this long: a
 * context more costs about 0.1 s at the start and 0.06-0.1 s at the end,
 * and two H200s each given a few tenths of a second of work made a job
 * slower than one. */
#define WINENT_GPU_MORE_S 0.4
/* --device auto in a process that is the job's alone (the CLI): CUDA is
 * shown every GPU only when the CPU alone would need this long, else the
 * first GPU alone. CUDA's driver starts every GPU it sees at its first
 * call (four H200s 1.05 s, one 0.3 s), so on that host every job of the
 * harness (the CPU alone 0.1-1.7 s) and the 1 Gpixel in-memory job (8 s)
 * ended sooner on one GPU than on four, whole job counted
 * (docs/PERFORMANCE.md). */
#define WINENT_GPU_ALL_S 30.0
/* --device auto, an output the pool encodes (.zst, GeoTIFF): while the
 * first GPU comes up (the driver's start and its context), the CPU
 * computes at most threads / this many bands at once. Beside 16 busy cores
 * that start took 0.25-0.43 s against 0.21-0.25 with the CPU held back;
 * holding it back wholly lost where the CPU's early chunks feed the job's
 * bound, a quarter of the cores kept both. Once the GPU is up the pool
 * encodes faster than the CPU computes, so the CPU's early chunks are
 * worth little there. Not for raw floats (a file, a pipe): there the
 * writer is the bound and the CPU's early chunks feed it (two H100s, 32
 * cores: J5 1.03 s capped against the CPU's 0.82). */
#define WINENT_GPU_START_SHARE 4

/* How long the first CPU band may run before its running time alone
 * counts as a measure of the CPU's rate. */
#define WINENT_BAND_PATIENCE_S 0.05

/* How often the policy looks at the meter when nothing wakes it: the
 * CPU's measured rate changes with every band, and a band's end wakes no
 * one. */
#define POLICY_LOOK_MS 5

/* ---- Adding GPUs --------------------------------------------------------- */

/* Start the driver of GPU `d` (lock held). NULL when it could not. */
static engine *start_gpu(pipeline *p, int d)
{
    if (p->set.nengines >= WINENT_MAX_ENGINES || STOPPED(p))
        return NULL;
    engine *e = winent_engine_add(p, &winent_gpu_engine_ops, d, p->plan.gpu_slots);
    if (pthread_create(&e->thread, NULL, winent_engine_driver, e) != 0) {
        p->set.nengines--; /* never started: not one of the job's engines */
        return NULL;
    }
    e->started = 1;
    return e;
}

/* The first GPU has computed two chunks (or ended): do the others pay?
 * They do when it failed, or when the pixels nobody has claimed would keep
 * it busy for over WINENT_GPU_MORE_S at its rate after its first chunk
 * (which pays for loading the kernels). Lock held. */
static int more_gpus_pay(const job_plan *pl, const engine_set *es, const engine *first)
{
    winent_first_gpu g = {first->failed,
                          first->chunks_done,
                          (double)first->pixels_done,
                          (double)first->first_px,
                          first->busy_s,
                          first->first_busy_s,
                          (double)pl->width * (double)pl->height};
    for (int i = 0; i < es->nengines; i++)
        g.px_left -= (double)es->engines[i].pixels_done + (double)es->engines[i].pixels_inflight;
    return winent_more_gpus_pay(&g, WINENT_GPU_MORE_S);
}

/* Under a --mem given: 1 when a GPU's context (its host_bytes) fits
 * beside the chunks made and the fewest the GPU works with; the CPU then
 * makes no more chunks than leave it that room, so the job's memory stays
 * within --mem once the context comes. Lock held. */
static int gpu_room_locked(job_ring *r, const job_plan *pl)
{
    winent_mem_view m = {pl->mem_auto, pl->chunk_bytes, winent_gpu_engine_ops.host_bytes,
                         r->n_fit,     r->n_made,       r->n_need,
                         pl->gpu_slots};
    return winent_gpu_room(&m, &r->n_limit);
}

/* GPU `d` next, where --mem leaves room for its context; else a notice
 * (lock held). */
static engine *start_gpu_within_mem(pipeline *p, int d)
{
    if (gpu_room_locked(&p->ring, &p->plan))
        return start_gpu(p, d);
    winent_report_notice_locked(&p->report,
                                "--mem %lluM leaves no room beside the chunks for gpu%d's "
                                "context (%llu MiB of host memory): going on without it",
                                (unsigned long long)(p->plan.mem_budget >> 20), d,
                                (unsigned long long)(winent_gpu_engine_ops.host_bytes >> 20));
    return NULL;
}

/* Until the first GPU is up (or gone), the CPU keeps to its share of the
 * threads (WINENT_GPU_START_SHARE); then the limit is lifted. Lock held. */
static void wait_first_up(pipeline *p, const engine *first)
{
    while (first != NULL && !STOPPED(p) && !first->live && !first->failed && !first->finished)
        pthread_cond_wait(&p->state_cv, &p->lock);
    p->policy.max_cpu_bands = 0;
    pthread_cond_broadcast(&p->work_cv); /* held bands may go */
}

/* The GPUs asked for: find them (CUDA's first call in the process, outside
 * the lock) and bring the first one up; the others only when they pay
 * (more_gpus_pay), each where --mem leaves room for it. Until it has
 * decided (`launching`), the GPUs' end waits for it. Lock held. */
static void bring_gpus(pipeline *p)
{
    pthread_mutex_unlock(&p->lock);
    /* Unless the job is long, the driver starts only the first GPU. */
    if (p->plan.release_gpus && !winent_auto_all_gpus(p->policy.cpu_alone_s, WINENT_GPU_ALL_S))
        winent_devices_first_only();
    int count = winent_devices_count();
    pthread_mutex_lock(&p->lock);
    engine *first = count > 0 ? start_gpu_within_mem(p, winent_devices_host_id(0)) : NULL;
    wait_first_up(p, first);
    if (first != NULL && count > 1) {
        while (!STOPPED(p) && !first->finished && first->chunks_done < 2)
            pthread_cond_wait(&p->state_cv, &p->lock);
        if (!STOPPED(p) && more_gpus_pay(&p->plan, &p->set, first))
            for (int d = 1; d < count; d++)
                if (start_gpu_within_mem(p, winent_devices_host_id(d)) == NULL)
                    break;
    }
    p->set.launching = 0;
    if (first != NULL && winent_engines_gpus_finished_locked(&p->set))
        winent_ring_unpin_locked(&p->ring); /* they ended while it decided */
    pthread_cond_broadcast(&p->state_cv);
}

/* ---- When the GPUs come in ------------------------------------------------ */

/* Ask for the GPUs: publish the CPU's limit while the first one starts
 * (an output the pool encodes: there the CPU's early chunks are worth
 * little once the GPU is up) and leave the first GPU's context its room
 * where --mem still can. Lock held. */
static void ask_for_gpus(pipeline *p, double cpu_alone_s)
{
    p->policy.gpu_launch = 1;
    p->policy.cpu_alone_s = cpu_alone_s;
    p->set.launching = 1;
    if (p->plan.encodes) {
        const int share = p->plan.threads / WINENT_GPU_START_SHARE;
        p->policy.max_cpu_bands = share > 0 ? share : 1;
    }
    gpu_room_locked(&p->ring, &p->plan);
}

/* The CPU's best case for the job (winent_cpu_engine_ns_per_update), for
 * its kernel path on chunk c's data (NULL: before any data, the best of
 * its paths): every core at that cost for each pixel that enters or leaves
 * a window as it slides, in every map. 0: not known (a map without a CPU
 * engine). */
static double cpu_best_case_s(const job_plan *pl, const chunk *c)
{
    double updates = 0.0;
    for (int m = 0; m < pl->nmaps; m++) {
        const job_map *jm = &pl->maps[m];
        if (jm->cpu == NULL)
            return 0.0;
        const uint8_t *rows = c ? c->rows + (size_t)jm->band * pl->plane_bytes : NULL;
        double ns = winent_cpu_engine_ns_per_update(jm->cpu, rows, pl->rows_stride, pl->width,
                                                    c ? c->in_h : 0);
        updates += ns * (double)(jm->plan->kx + jm->plan->ky);
    }
    updates *= (double)pl->width * (double)pl->height;
    return updates * 1e-9 / (double)pl->threads;
}

/* Bring the GPUs in now when even the CPU's best case says the CPU alone
 * would need more than WINENT_GPU_WORTH_S. Lock held. */
static void judge_early(pipeline *p, const chunk *c)
{
    if (p->policy.gpu_launch)
        return;
    const double cpu_alone_s = cpu_best_case_s(&p->plan, c);
    if (cpu_alone_s > WINENT_GPU_WORTH_S)
        ask_for_gpus(p, cpu_alone_s);
}

/* The CPU's measured rate so far tells how long it would take alone:
 * bring the GPUs in once that is long enough for them to pay. Before a
 * band has ended, only its running time says anything, and only once it
 * is long beside a band's usual time (a worker may simply not have run
 * yet). Lock held. */
static void judge_measured(pipeline *p)
{
    const job_meter *m = &p->meter;
    if (p->policy.gpu_launch || m->first_band_s <= 0.0)
        return;
    if (m->bands_done < p->plan.threads && winent_now() - m->first_band_s < WINENT_BAND_PATIENCE_S)
        return; /* a band per worker first: the first bands of a job run cold */
    const double rate = winent_sched_cpu_rate(m, p->plan.width, p->plan.threads);
    const double px = (double)p->plan.width * (double)p->plan.height;
    int worth = winent_gpus_worth(rate, px, m->bands_done, p->plan.threads, WINENT_GPU_WORTH_S);
    if (worth < 0)
        p->policy.gpu_launch = -1; /* measured: the CPU alone is quick enough */
    else if (worth > 0)
        ask_for_gpus(p, rate > 0 ? px / rate : 0.0);
}

/* The job's first chunk once read (its rows tell the CPU's path), while
 * its rows are still in place; NULL: not yet. Lock held. */
static const chunk *first_chunk_read(const job_ring *r)
{
    for (int i = 0; i < r->n_max; i++) {
        const chunk *c = &r->chunks[i];
        if (c->state >= CHUNK_READY && c->seq == 0) /* seq is set before READY */
            return c;
    }
    return NULL;
}

/* Nothing is left for an engine to compute: the reader is done and no
 * chunk waits to be read, filled or computed. Lock held. */
static int compute_over(const job_ring *r)
{
    if (!r->reader_done)
        return 0;
    for (int i = 0; i < r->n_max; i++) {
        const chunk_state st = r->chunks[i].state;
        if (st == CHUNK_READING || st == CHUNK_FILLING || st == CHUNK_READY || st == CHUNK_CLAIMED)
            return 0;
    }
    return 1;
}

/* The policy's thread: judge from the first chunk's data, then from the
 * CPU's measured rate, until the GPUs are asked for (then bring them) or
 * the CPU is known to be quick enough, or nothing is left to compute. */
static void *policy_thread(void *arg)
{
    pipeline *p = arg;
    int judged_first = 0;
    pthread_mutex_lock(&p->lock);
    while (!STOPPED(p) && p->policy.gpu_launch == 0 && !compute_over(&p->ring)) {
        const chunk *c = judged_first ? NULL : first_chunk_read(&p->ring);
        if (c != NULL) {
            judged_first = 1;
            judge_early(p, c);
        }
        judge_measured(p);
        if (p->policy.gpu_launch == 0)
            winent_cond_wait_ms(&p->state_cv, &p->lock, POLICY_LOOK_MS);
    }
    if (p->policy.gpu_launch == 1 && !STOPPED(p))
        bring_gpus(p);
    else
        p->set.launching = 0;
    p->policy.max_cpu_bands = 0;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

void winent_policy_start(pipeline *p)
{
    if (!p->plan.auto_device)
        return;
    pthread_mutex_lock(&p->lock);
    judge_early(p, NULL); /* before any data: the best of the CPU's paths */
    if (pthread_create(&p->policy.thread, NULL, policy_thread, p) == 0) {
        p->policy.started = 1;
    } else {
        p->set.launching = 0;
        p->policy.max_cpu_bands = 0;
    }
    pthread_mutex_unlock(&p->lock);
}

void winent_policy_join(pipeline *p)
{
    if (p->policy.started)
        pthread_join(p->policy.thread, NULL);
}
