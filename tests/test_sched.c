/*
 * test_sched.c - the chunk queue's choice between engines (sched.c), on
 * engines made up here, no threads and no GPU: a chunk that is READY is
 * always taken by some engine.
 *
 * The case that hung on two H100s (J3, --device auto, 32 cores): the last
 * chunk READY, every engine idle, and each one leaving it to the others
 * (the CPU over its share; each GPU slower than the CPU and the other GPU
 * together). Then random engines, rates and queues: whatever they are, at
 * least one engine takes the chunk.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pipeline/pipeline_internal.h"

#define W          16384
#define H          16384
#define CHUNK_ROWS 256

static void set_gpu(engine *e, int device, double rate, int64_t queued_px)
{
    e->device = device;
    e->live = 1;
    snprintf(e->name, sizeof e->name, "gpu%d", device);
    e->chunks_done = 10;
    e->busy_s = 0.05;
    e->pixels_done = (uint64_t)(rate * e->busy_s);
    e->pixels_inflight = queued_px;
    e->inflight = queued_px > 0 ? 1 : 0;
}

/* The CPU: its rate comes from the bands it has done (sched.c cpu_rate). */
static void set_cpu(pipeline *p, engine *e, double rate, uint64_t done_px, int64_t queued_px)
{
    e->device = -1;
    e->live = 1;
    snprintf(e->name, sizeof e->name, "cpu");
    e->pixels_done = done_px;
    e->pixels_inflight = queued_px;
    e->inflight = queued_px > 0 ? 1 : 0;
    p->band_s = 0.1;
    p->band_px = rate * p->band_s / (double)p->threads;
    p->first_band_s = 1.0;
    p->bands_done = 1000;
}

static int takers(pipeline *p)
{
    int n = 0;
    for (int i = 0; i < p->nengines; i++)
        n += winent_sched_can_claim_locked(p, &p->engines[i]);
    return n;
}

int main(void)
{
    pipeline *p = calloc(1, sizeof *p);
    chunk *c = calloc(1, sizeof *c);
    if (p == NULL || c == NULL)
        return 1;
    p->width = W;
    p->height = H;
    p->threads = 32;
    p->chunks = c;
    p->n_max = 1;
    c->state = CHUNK_READY;
    c->seq = H / CHUNK_ROWS - 1;
    c->y0 = H - CHUNK_ROWS;
    c->y1 = H;

    /* The hang, as the watchdog printed it: the CPU 41 chunks done, far
     * over its share; gpu0 at 1.23 and gpu1 at 1.40 Gpixel/s; the CPU at
     * 0.25, so the CPU and either GPU together outrun the other GPU. */
    p->nengines = 3;
    set_cpu(p, &p->engines[0], 0.25e9, 41ull * CHUNK_ROWS * W, 0);
    set_gpu(&p->engines[1], 0, 1.23e9, 0);
    set_gpu(&p->engines[2], 1, 1.40e9, 0);
    CHECK(takers(p) >= 1, "the last chunk, three idle engines: %d take it", takers(p));
    CHECK(winent_sched_can_claim_locked(p, &p->engines[2]),
          "the engine that ends it first (gpu1, idle, fastest) takes it");
    CHECK(!winent_sched_can_claim_locked(p, &p->engines[0]),
          "the CPU, over its share and slowest, leaves it");

    /* Early in the job the rule still shares: every engine takes a chunk
     * while much is left (the CPU under its share). */
    c->y0 = 0;
    c->y1 = CHUNK_ROWS;
    c->seq = 0;
    set_cpu(p, &p->engines[0], 0.25e9, 0, 0);
    CHECK(takers(p) == 3, "the first chunk: every idle engine would take it (%d)", takers(p));
    c->y0 = H - CHUNK_ROWS;
    c->y1 = H;
    c->seq = H / CHUNK_ROWS - 1;

    /* Random engines: 1 to 4 of them (the CPU or not), rates over three
     * orders of magnitude, queues of 0 to 3 chunks, the CPU anywhere from
     * none to all of the job done. */
    srand(12345);
    int cases = 0, ok = 0;
    for (int t = 0; t < 20000; t++) {
        memset(p->engines, 0, sizeof p->engines);
        int with_cpu = rand() % 2, ngpu = 1 + rand() % 3;
        p->nengines = 0;
        p->band_s = p->band_px = 0.0;
        const double px = (double)CHUNK_ROWS * W;
        if (with_cpu) {
            double r = 1e7 * (1 + rand() % 1000);
            uint64_t done = (uint64_t)(rand() % (H / CHUNK_ROWS)) * CHUNK_ROWS * W;
            set_cpu(p, &p->engines[p->nengines++], r, done, (int64_t)(rand() % 4) * (int64_t)px);
            p->enc_px = rand() % 2 ? 1e8 : 0.0;
            p->enc_s = p->enc_px > 0 ? p->enc_px / (1e7 * (1 + rand() % 1000)) : 0.0;
        }
        for (int g = 0; g < ngpu; g++)
            set_gpu(&p->engines[p->nengines++], g, 1e7 * (1 + rand() % 1000),
                    (int64_t)(rand() % 4) * (int64_t)px);
        cases++;
        if (takers(p) >= 1)
            ok++;
    }
    CHECK(ok == cases, "%d of %d random sets of engines leave a READY chunk to no one", cases - ok,
          cases);
    free(c);
    free(p);
    return harness_end();
}
