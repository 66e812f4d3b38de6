/* SPDX-License-Identifier: BSD-3-Clause */
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

    /* auto within --mem (engines.c, winent_gpu_room_locked): a GPU's
     * context, 128 MiB of host memory, is 8 chunks of 16 MiB. */
    p->chunk_bytes = (uint64_t)16 << 20;
    p->gpu_slots = 3;
    p->n_need = 4;
    struct {
        int mem_auto, n_fit, n_made, n_limit, fits, limit_after;
        const char *what;
    } rooms[] = {
        {0, 6, 4, 6, 0, 6, "--mem 96M: no room for the context at all"},
        {0, 14, 4, 12, 0, 12, "room for the context but not for the GPU's slots"},
        {0, 20, 13, 16, 0, 16, "the CPU made more chunks than leave the room"},
        {0, 20, 6, 20, 1, 12, "room: the CPU is held to what leaves it"},
        {0, 64, 4, 12, 1, 12, "--mem 1G: room, the CPU's limit already under it"},
        {1, 6, 6, 6, 1, 6, "no --mem given: the default budget grows, nothing held"},
    };
    for (size_t i = 0; i < sizeof rooms / sizeof rooms[0]; i++) {
        p->mem_auto = rooms[i].mem_auto;
        p->n_fit = rooms[i].n_fit;
        p->n_made = rooms[i].n_made;
        p->n_limit = rooms[i].n_limit;
        int fits = winent_gpu_room_locked(p);
        CHECK(fits == rooms[i].fits && p->n_limit == rooms[i].limit_after,
              "%s: fits %d (want %d), CPU's chunk limit %d (want %d)", rooms[i].what, fits,
              rooms[i].fits, p->n_limit, rooms[i].limit_after);
    }
    /* Whatever the budget: where a context comes, the chunks that may then
     * exist and the context stay within what --mem holds, with room for
     * the GPU's slots; where it does not, nothing changes. */
    p->mem_auto = 0;
    int over = 0;
    for (int t = 0; t < 20000; t++) {
        p->n_fit = rand() % 64;
        p->n_made = rand() % (p->n_fit + 1);
        p->n_limit = p->n_made + rand() % (p->n_fit - p->n_made + 1);
        int before = p->n_limit;
        int fits = winent_gpu_room_locked(p);
        if (fits ? p->n_limit + 8 > p->n_fit || p->n_made > p->n_limit ||
                       p->n_fit - 8 < p->n_need + p->gpu_slots
                 : p->n_limit != before)
            over++;
    }
    CHECK(over == 0, "%d of 20000 random budgets: a context beyond --mem, or a limit changed",
          over);
    free(c);
    free(p);
    return harness_end();
}
