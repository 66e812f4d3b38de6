/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The public engine's asynchronous pair (winent_engine_submit/wait) on the
 * CPU, reference and (where one is usable) GPU engines: blocks of an image
 * submitted together and waited for in another order, by ticket and as
 * the oldest; blocks given with only their own halo rows; four threads
 * sharing one engine, submitting and waiting at once, one of them through
 * winent_engine_compute. Every map is the reference engine's map of the
 * whole image (computed on its own engine, synchronously), bit for bit.
 * The GPU's bands are made small (WINENT_STAGE_PIXELS) so that each block
 * is several bands and several blocks share the slots. The calls' errors:
 * unknown and twice-waited tickets, NULL arguments, rows that do not cover
 * the windows.
 *
 * With the argument "fault" (run with WINENT_FAULT_INJECT=submit:3), a GPU
 * engine whose third band fails to start: that block's wait says why
 * (WINENT_ERR_DEVICE, "injected"), the next block is still right, and the
 * engine computes on. Without a usable GPU that part exits 77.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { W = 301, H = 700, WIN = 9, R = WIN / 2, STRIPS = 7 };

static uint16_t img[W * H];
static float want[W * H];

static void strip_rows(int s, int *y0, int *y1)
{
    *y0 = s * H / STRIPS;
    *y1 = (s + 1) * H / STRIPS;
}

static void options(winent_compute_opts *o)
{
    winent_compute_opts_default(o);
    o->dtype = WINENT_U16;
    o->kx = o->ky = WIN;
}

/* Submit strip `s` into `out` (rows of the whole image), its input either
 * the whole image or only the rows its windows reach. */
static winent_status submit_strip(winent_engine *e, int s, int halo_only, float *out,
                                  uint64_t *ticket, winent_error *err)
{
    int y0, y1;
    strip_rows(s, &y0, &y1);
    int in0 = 0, in1 = H;
    if (halo_only) {
        in0 = y0 - R > 0 ? y0 - R : 0;
        in1 = y1 + R < H ? y1 + R : H;
    }
    return winent_engine_submit(e, img + (size_t)in0 * W, W * sizeof(uint16_t), W, H, in0,
                                in1 - in0, y0, y1, out + (size_t)y0 * W, W, ticket, err);
}

static int same(const float *got)
{
    return memcmp(got, want, sizeof want) == 0;
}

/* Every strip submitted, then waited for last first (by ticket). */
static void reverse_waits(winent_engine *e, const char *name, int halo_only)
{
    static float got[W * H];
    memset(got, 0xff, sizeof got);
    uint64_t t[STRIPS];
    winent_error err;
    int ok = 1;
    for (int s = 0; s < STRIPS; s++)
        ok &= submit_strip(e, s, halo_only, got, &t[s], &err) == WINENT_OK && t[s] != 0;
    CHECK(ok, "%s: every strip submitted: %s", name, err.message);
    for (int s = 0; s < STRIPS; s++)
        CHECK(t[s] != t[(s + 1) % STRIPS], "%s: tickets distinct", name);
    for (int s = STRIPS - 1; s >= 0; s--)
        CHECK(winent_engine_wait(e, t[s], &err) == WINENT_OK, "%s: wait %d: %s", name, s,
              err.message);
    CHECK(same(got), "%s: strips waited last first (%s input): the reference's bits", name,
          halo_only ? "halo-only" : "whole");
}

/* Every strip submitted, then waited for as the oldest (ticket 0). */
static void oldest_waits(winent_engine *e, const char *name)
{
    static float got[W * H];
    memset(got, 0xff, sizeof got);
    uint64_t t;
    winent_error err;
    for (int s = 0; s < STRIPS; s++)
        CHECK(submit_strip(e, s, 1, got, &t, &err) == WINENT_OK, "%s: %s", name, err.message);
    for (int s = 0; s < STRIPS; s++)
        CHECK(winent_engine_wait(e, 0, &err) == WINENT_OK, "%s: oldest %d: %s", name, s,
              err.message);
    CHECK(same(got), "%s: strips waited oldest first: the reference's bits", name);
    CHECK(winent_engine_wait(e, 0, &err) == WINENT_ERR_USAGE &&
              strcmp(err.message, "winent_engine_wait: no block in flight") == 0,
          "%s: the oldest of none: %s", name, err.message);
}

typedef struct sharer {
    winent_engine *e;
    int t;
    float *out;
    int fails;
} sharer;

/* Thread t's strips (t, t + 4, ...), three rounds; thread 3 through
 * winent_engine_compute, the others submitting two at once. */
static void *share(void *arg)
{
    sharer *sh = arg;
    for (int round = 0; round < 3; round++) {
        uint64_t t[STRIPS];
        int n = 0;
        for (int s = sh->t; s < STRIPS; s += 4) {
            winent_error err;
            int y0, y1;
            strip_rows(s, &y0, &y1);
            if (sh->t == 3) {
                sh->fails += winent_engine_compute(sh->e, img, W * sizeof(uint16_t), W, H, 0, H,
                                                   y0, y1, sh->out + (size_t)y0 * W,
                                                   W) != WINENT_OK;
                continue;
            }
            sh->fails += submit_strip(sh->e, s, round & 1, sh->out, &t[n++], &err) != WINENT_OK;
        }
        for (int i = 0; i < n; i++) {
            winent_error err;
            sh->fails += winent_engine_wait(sh->e, t[i], &err) != WINENT_OK;
        }
    }
    return NULL;
}

static void shared_by_threads(winent_engine *e, const char *name)
{
    static float got[W * H];
    memset(got, 0xff, sizeof got);
    pthread_t th[4];
    sharer sh[4];
    for (int t = 0; t < 4; t++) {
        sh[t] = (sharer){e, t, got, 0};
        pthread_create(&th[t], NULL, share, &sh[t]);
    }
    int fails = 0;
    for (int t = 0; t < 4; t++) {
        pthread_join(th[t], NULL);
        fails += sh[t].fails;
    }
    CHECK(fails == 0, "%s: four threads on one engine: %d calls failed", name, fails);
    CHECK(same(got), "%s: four threads on one engine: the reference's bits", name);
}

static void errors(winent_engine *e, const char *name)
{
    static float got[W * H];
    winent_error err;
    uint64_t t = 7;
    CHECK(winent_engine_submit(e, img, W * 2, W, H, 40, 20, 40, 60, got, W, &t, &err) ==
                  WINENT_ERR_USAGE &&
              t == 0 && strcmp(err.message, "rows [40, 60) need input rows [36, 64), got [40, 60)") == 0,
          "%s: rows not covering the windows: %s", name, err.message);
    CHECK(winent_engine_submit(e, NULL, W * 2, W, H, 0, H, 0, 10, got, W, &t, &err) ==
                  WINENT_ERR_USAGE &&
              strcmp(err.message, "winent_engine_submit: rows is NULL") == 0,
          "%s: rows NULL: %s", name, err.message);
    CHECK(winent_engine_submit(e, img, W * 2, W, H, 0, H, 0, 10, got, W, NULL, &err) ==
                  WINENT_ERR_USAGE &&
              strcmp(err.message, "winent_engine_submit: ticket is NULL") == 0,
          "%s: ticket NULL: %s", name, err.message);
    CHECK(winent_engine_wait(e, 12345, &err) == WINENT_ERR_USAGE &&
              strstr(err.message, "no block 12345 in flight") != NULL,
          "%s: a ticket never given: %s", name, err.message);
    CHECK(winent_engine_submit(e, img, W * 2, W, H, 0, H, 0, 10, got, W, &t, &err) == WINENT_OK,
          "%s: %s", name, err.message);
    CHECK(winent_engine_wait(e, t, NULL) == WINENT_OK, "%s: wait, err NULL", name);
    CHECK(winent_engine_wait(e, t, &err) == WINENT_ERR_USAGE, "%s: a ticket waited twice", name);
    CHECK(winent_engine_wait(NULL, 1, &err) == WINENT_ERR_USAGE &&
              strcmp(err.message, "winent_engine_wait: e is NULL") == 0,
          "%s: wait NULL: %s", name, err.message);
    CHECK(winent_engine_submit(NULL, img, W * 2, W, H, 0, H, 0, 10, got, W, &t, &err) ==
              WINENT_ERR_USAGE,
          "%s: submit NULL", name);
    uint64_t empty;
    CHECK(winent_engine_submit(e, NULL, 0, W, H, 0, H, 5, 5, NULL, W, &empty, &err) == WINENT_OK &&
              winent_engine_wait(e, empty, &err) == WINENT_OK,
          "%s: an empty block: %s", name, err.message);
}

static void kind(winent_engine_kind k, const char *name)
{
    winent_compute_opts o;
    options(&o);
    winent_engine *e = NULL;
    winent_error err;
    if (winent_engine_create(&o, k, 0, W, H, 2, &e, &err) != WINENT_OK) {
        CHECK(k == WINENT_ENGINE_GPU && winent_gpu_count() == 0, "%s: %s", name, err.message);
        printf("%s: no usable GPU here (%s): its part not run\n", name, err.message);
        return;
    }
    static float sync[W * H];
    CHECK(winent_engine_compute(e, img, W * 2, W, H, 0, H, 0, H, sync, W) == WINENT_OK &&
              memcmp(sync, want, sizeof sync) == 0,
          "%s: winent_engine_compute, the reference's bits", name);
    reverse_waits(e, name, 0);
    reverse_waits(e, name, 1);
    oldest_waits(e, name);
    shared_by_threads(e, name);
    errors(e, name);
    /* Freed with a block in flight, never waited for (sanitizers, valgrind). */
    uint64_t t;
    static float late[W * H];
    CHECK(submit_strip(e, 2, 0, late, &t, &err) == WINENT_OK, "%s: %s", name, err.message);
    winent_engine_free(e);
}

/* The third band fails to start (WINENT_FAULT_INJECT=submit:3). */
static int fault(void)
{
    winent_compute_opts o;
    options(&o);
    winent_engine *e = NULL;
    winent_error err;
    if (winent_gpu_count() == 0 ||
        winent_engine_create(&o, WINENT_ENGINE_GPU, 0, W, H, 2, &e, &err) != WINENT_OK) {
        SKIP_PART("no usable GPU");
        return harness_end();
    }
    static float got[W * H];
    uint64_t a, b;
    CHECK(winent_engine_submit(e, img, W * 2, W, H, 0, H, 0, H / 2, got, W, &a, &err) == WINENT_OK,
          "%s", err.message);
    CHECK(winent_engine_submit(e, img, W * 2, W, H, 0, H, H / 2, H, got + (size_t)(H / 2) * W, W,
                               &b, &err) == WINENT_OK,
          "%s", err.message);
    CHECK(winent_engine_wait(e, a, &err) == WINENT_ERR_DEVICE && strstr(err.message, "injected"),
          "the failed band's block: %s", err.message);
    CHECK(winent_engine_wait(e, b, &err) == WINENT_OK &&
              memcmp(got + (size_t)(H / 2) * W, want + (size_t)(H / 2) * W,
                     sizeof(float) * (size_t)(H - H / 2) * W) == 0,
          "the next block right: %s", err.message);
    CHECK(winent_engine_compute(e, img, W * 2, W, H, 0, H, 0, H, got, W) == WINENT_OK && same(got),
          "the engine computes on: %s", winent_engine_error(e)->message);
    winent_engine_free(e);
    return harness_end();
}

int main(int argc, char **argv)
{
    /* Bands of 64 rows: blocks of 100 rows are two bands, several blocks
     * share the six slots. */
    setenv("WINENT_STAGE_PIXELS", "19264", 1);
    unsigned long long seed = 40;
    for (int i = 0; i < W * H; i++)
        img[i] = (uint16_t)(harness_rand(&seed) % 60 + (i % W) / 50);
    winent_compute_opts o;
    options(&o);
    winent_engine *ref = NULL;
    winent_error err;
    if (winent_engine_create(&o, WINENT_ENGINE_REFERENCE, 0, W, H, 1, &ref, &err) != WINENT_OK ||
        winent_engine_compute(ref, img, W * 2, W, H, 0, H, 0, H, want, W) != WINENT_OK) {
        fprintf(stderr, "the reference: %s\n", err.message);
        return 1;
    }
    winent_engine_free(ref);
    if (argc > 1 && strcmp(argv[1], "fault") == 0)
        return fault();
    kind(WINENT_ENGINE_REFERENCE, "reference");
    kind(WINENT_ENGINE_CPU, "cpu");
    kind(WINENT_ENGINE_GPU, "gpu");
    return harness_end();
}
