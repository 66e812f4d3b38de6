/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_sched.c - the chunk queue's choice between engines (winent_declines,
 * decide.c; sched.c takes the snapshot under the job's lock), as tables of
 * snapshots: no pipeline, no threads, no GPU. A chunk that is READY is
 * always taken by some engine.
 *
 * The case that hung on two H100s (J3, --device auto, 32 cores): the last
 * chunk READY, every engine idle, and each one leaving it to the others
 * (the CPU over its share; each GPU slower than the CPU and the other GPU
 * together). Then random engines, rates and queues: whatever they are, at
 * least one engine takes the chunk. Then auto's room for a GPU's context
 * within --mem (winent_gpu_room).
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pipeline/decide.h"

#define W          16384
#define H          16384
#define CHUNK_ROWS 256
#define MAX_E      5

static winent_engine_view gpu(double rate, double queued_px)
{
    winent_engine_view e = {0, 1, queued_px > 0 ? 1 : 0, rate, queued_px, 0.0, 1.0};
    return e;
}

static winent_engine_view cpu(double rate, double done_px, double queued_px)
{
    winent_engine_view e = {1, 1, queued_px > 0 ? 1 : 0, rate, queued_px, done_px, 1.0};
    return e;
}

/* Engines of the view that would take the chunk of rows [y0, y1). */
static int takers(const winent_claim_view *v, int y0, int y1)
{
    int n = 0;
    for (int i = 0; i < v->nengines; i++)
        n += !winent_declines(v, i, y0, y1);
    return n;
}

static void claims(void)
{
    winent_engine_view ev[MAX_E];
    winent_claim_view v = {ev, 0, W, H, 32, 0.0, 0.0};
    const int last = H - CHUNK_ROWS;

    /* The hang, as the watchdog printed it: the CPU 41 chunks done, far
     * over its share; gpu0 at 1.23 and gpu1 at 1.40 Gpixel/s; the CPU at
     * 0.25, so the CPU and either GPU together outrun the other GPU. */
    ev[0] = cpu(0.25e9, 41.0 * CHUNK_ROWS * W, 0);
    ev[1] = gpu(1.23e9, 0);
    ev[2] = gpu(1.40e9, 0);
    v.nengines = 3;
    CHECK(takers(&v, last, H) >= 1, "the last chunk, three idle engines: %d take it",
          takers(&v, last, H));
    CHECK(!winent_declines(&v, 2, last, H),
          "the engine that ends it first (gpu1, idle, fastest) takes it");
    CHECK(winent_declines(&v, 0, last, H), "the CPU, over its share and slowest, leaves it");

    /* Early in the job the rule still shares: every engine takes a chunk
     * while much is left (the CPU under its share). */
    ev[0] = cpu(0.25e9, 0, 0);
    CHECK(takers(&v, 0, CHUNK_ROWS) == 3, "the first chunk: every idle engine would take it (%d)",
          takers(&v, 0, CHUNK_ROWS));

    /* A table of small cases: engine 0 asks for chunk [y0, y0 + 256). */
    static const struct {
        const char *what;
        int n, y0, want;
        winent_engine_view e[3];
    } table[] = {
        {"alone: takes it", 1, 0, 0, {{1, 1, 0, 1e8, 0, 0, 1}}},
        {"rates not known: takes it", 2, 0, 0, {{0, 1, 0, 0, 0, 0, 1}, {0, 1, 0, 1e9, 0, 0, 1}}},
        {"the other not live: takes it", 2, last, 0,
         {{0, 1, 0, 1e6, 0, 0, 1}, {0, 0, 0, 1e10, 0, 0, 1}}},
        {"a GPU 10x slower, the last chunk, a fast one idle: leaves it", 2, last, 1,
         {{0, 1, 0, 1e9, 0, 0, 1}, {0, 1, 0, 1e10, 0, 0, 1}}},
        {"a GPU 10x slower, the first chunk: takes it (much left)", 2, 0, 0,
         {{0, 1, 0, 1e9, 0, 0, 1}, {0, 1, 0, 1e10, 0, 0, 1}}},
        {"the CPU beside a GPU just up on its first chunk: waits", 2, 0, 1,
         {{1, 1, 0, 1e9, 0, 0, 1}, {0, 1, 1, 0, 4e6, 0, 0.001}}},
        {"... no longer than its own time for the chunk", 2, 0, 0,
         {{1, 1, 0, 1e9, 0, 0, 1}, {0, 1, 1, 0, 4e6, 0, 10.0}}},
        {"the CPU past its share (GPUs outrun it): leaves it", 2, H / 2, 1,
         {{1, 1, 0, 1e8, 0, 1e8, 1}, {0, 1, 1, 2e10, 8e6, 0, 1}}},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        winent_claim_view t = {table[i].e, table[i].n, W, H, 32, 0.0, 0.0};
        int got = winent_declines(&t, 0, table[i].y0, table[i].y0 + CHUNK_ROWS);
        CHECK(got == table[i].want, "%s: declines %d (want %d)", table[i].what, got,
              table[i].want);
    }

    /* Random engines: 1 to 4 of them (the CPU or not), rates over three
     * orders of magnitude, queues of 0 to 3 chunks, the CPU anywhere from
     * none to all of the job done. */
    srand(12345);
    int cases = 0, ok = 0;
    for (int t = 0; t < 20000; t++) {
        int with_cpu = rand() % 2, ngpu = 1 + rand() % 3;
        v.nengines = 0;
        v.enc_px = v.enc_s = 0.0;
        const double px = (double)CHUNK_ROWS * W;
        if (with_cpu) {
            double r = 1e7 * (1 + rand() % 1000);
            double done = (double)(rand() % (H / CHUNK_ROWS)) * CHUNK_ROWS * W;
            ev[v.nengines++] = cpu(r, done, (double)(rand() % 4) * px);
            v.enc_px = rand() % 2 ? 1e8 : 0.0;
            v.enc_s = v.enc_px > 0 ? v.enc_px / (1e7 * (1 + rand() % 1000)) : 0.0;
        }
        for (int g = 0; g < ngpu; g++)
            ev[v.nengines++] = gpu(1e7 * (1 + rand() % 1000), (double)(rand() % 4) * px);
        cases++;
        if (takers(&v, last, H) >= 1)
            ok++;
    }
    CHECK(ok == cases, "%d of %d random sets of engines leave a READY chunk to no one", cases - ok,
          cases);
}

/* Tail: a GPU takes the unstarted bands of a CPU chunk when it ends them
 * first. */
static void tails(void)
{
    CHECK(winent_tail_pays(0.0, 0.0, 1e9, 1e6), "GPU rate unknown: it tries");
    CHECK(winent_tail_pays(1e9, 0.0, 0.0, 1e6), "CPU rate unknown: it tries");
    CHECK(winent_tail_pays(1e10, 0.0, 1e9, 1e6), "an idle fast GPU takes it");
    CHECK(!winent_tail_pays(1e10, 1e8, 1e9, 1e6), "a GPU with a long queue leaves it");
    CHECK(!winent_tail_pays(1e8, 0.0, 1e9, 1e6), "a GPU slower than the CPU leaves it");
}

/* auto within --mem (policy.c, gpu_room_locked): a GPU's context,
 * 128 MiB of host memory, is 8 chunks of 16 MiB. */
static void rooms(void)
{
    winent_mem_view m = {0, (uint64_t)16 << 20, (uint64_t)128 << 20, 0, 0, 4, 3};
    static const struct {
        int mem_auto, n_fit, n_made, n_limit, fits, limit_after;
        const char *what;
    } table[] = {
        {0, 6, 4, 6, 0, 6, "--mem 96M: no room for the context at all"},
        {0, 14, 4, 12, 0, 12, "room for the context but not for the GPU's slots"},
        {0, 20, 13, 16, 0, 16, "the CPU made more chunks than leave the room"},
        {0, 20, 6, 20, 1, 12, "room: the CPU is held to what leaves it"},
        {0, 64, 4, 12, 1, 12, "--mem 1G: room, the CPU's limit already under it"},
        {1, 6, 6, 6, 1, 6, "no --mem given: the default budget grows, nothing held"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        m.mem_auto = table[i].mem_auto;
        m.n_fit = table[i].n_fit;
        m.n_made = table[i].n_made;
        int limit = table[i].n_limit;
        int fits = winent_gpu_room(&m, &limit);
        CHECK(fits == table[i].fits && limit == table[i].limit_after,
              "%s: fits %d (want %d), CPU's chunk limit %d (want %d)", table[i].what, fits,
              table[i].fits, limit, table[i].limit_after);
    }
    /* Whatever the budget: where a context comes, the chunks that may then
     * exist and the context stay within what --mem holds, with room for
     * the GPU's slots; where it does not, nothing changes. */
    m.mem_auto = 0;
    int over = 0;
    for (int t = 0; t < 20000; t++) {
        m.n_fit = rand() % 64;
        m.n_made = rand() % (m.n_fit + 1);
        int limit = m.n_made + rand() % (m.n_fit - m.n_made + 1), before = limit;
        int fits = winent_gpu_room(&m, &limit);
        if (fits ? limit + 8 > m.n_fit || m.n_made > limit || m.n_fit - 8 < m.n_need + m.gpu_slots
                 : limit != before)
            over++;
    }
    CHECK(over == 0, "%d of 20000 random budgets: a context beyond --mem, or a limit changed",
          over);
}

int main(void)
{
    claims();
    tails();
    rooms();
    return harness_end();
}
