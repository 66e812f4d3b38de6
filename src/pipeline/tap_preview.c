/* SPDX-License-Identifier: BSD-3-Clause */
/* The preview as one of the job's taps (winent_job_tap): a CPU band adds
 * its rows while they are in cache, a chunk computed elsewhere (a GPU's)
 * gets slices of band_rows rows on the pool; the writer writes the image
 * rows complete so far after each chunk, then the PNG (finish) and puts
 * it in place after the output (commit). It declares its own files to the
 * job's guard, as each sink does. Sums are exact integers, so the PNG does
 * not depend on the order rows arrive in (tiles/sinks/preview.c). */
#include <stdlib.h>

#include "pipeline_internal.h"
#include "tiles/outfile.h"

typedef struct preview_tap {
    winent_job_tap tap; /* first: the tap is the object */
    const job_plan *plan;
    winent_preview *pv; /* owned */
} preview_tap;

/* Rows [ya, yb) of chunk c into the preview with the worker's scratch,
 * made on first use. */
static winent_status add_rows(const preview_tap *t, void **scratch, const chunk *c, int ya, int yb,
                              winent_err *err)
{
    if (*scratch == NULL) {
        winent_preview_scratch *s = NULL;
        WINENT_TRY(winent_preview_scratch_create(t->pv, &s, err));
        *scratch = s;
    }
    return winent_preview_add_rows(t->pv, *scratch,
                                   c->map + (size_t)(ya - c->y0) * t->plan->map_stride,
                                   t->plan->map_stride, ya, yb, err);
}

/* Slices of band_rows rows of the rows no band has added (from taps_y0). */
static int preview_pieces(const winent_job_tap *tap, const chunk *c)
{
    const job_plan *pl = ((const preview_tap *)tap)->plan;
    const int from = c->out.taps_y0;
    return from < c->y1 ? (c->y1 - from + pl->band_rows - 1) / pl->band_rows : 0;
}

static winent_status preview_piece(const winent_job_tap *tap, void **scratch, chunk *c, long k,
                                   winent_err *err)
{
    const preview_tap *t = (const preview_tap *)tap;
    const int br = t->plan->band_rows;
    const int ya = c->out.taps_y0 + (int)k * br;
    const int yb = ya + br < c->y1 ? ya + br : c->y1;
    return add_rows(t, scratch, c, ya, yb, err);
}

static winent_status preview_band(const winent_job_tap *tap, void **scratch, const chunk *c,
                                  int ya, int yb, winent_err *err)
{
    return add_rows((const preview_tap *)tap, scratch, c, ya, yb, err);
}

static void preview_scratch_free(const winent_job_tap *tap, void *scratch)
{
    (void)tap;
    winent_preview_scratch_free(scratch);
}

/* The image rows complete so far, while the engines work: little of the
 * PNG is left for the end. */
static winent_status preview_write(winent_job_tap *tap, const chunk *c, winent_err *err)
{
    (void)c;
    return winent_preview_flush(((preview_tap *)tap)->pv, err);
}

static winent_status preview_finish(winent_job_tap *tap, winent_err *err)
{
    return winent_preview_write(((preview_tap *)tap)->pv, err);
}

static winent_status preview_commit(winent_job_tap *tap, winent_err *err)
{
    return winent_preview_commit(((preview_tap *)tap)->pv, err);
}

static void preview_close(winent_job_tap *tap, int failed)
{
    preview_tap *t = (preview_tap *)tap;
    if (failed)
        winent_preview_abort(t->pv);
    winent_preview_free(t->pv);
    free(t);
}

static uint64_t preview_rows_bytes(const void *opts, uint64_t rows)
{
    return winent_preview_rows_bytes(opts, (int64_t)rows);
}

void winent_tap_preview_plan(job_plan *pl)
{
    pl->tap_rows.bytes = preview_rows_bytes;
    pl->tap_rows.ctx = &pl->preview_opts;
}

winent_status winent_tap_preview_guard(const char *path, winent_file_guard *g, winent_err *err)
{
    WINENT_TRY(winent_file_guard_write(g, path, "--preview", err));
    /* Its legend, world file and PAM file, written beside it (preview.h),
     * are outputs as well. */
    char side[3][4096];
    winent_outfile_probe pp;
    if (winent_outfile_probe_path(path, &pp, err) == WINENT_OK && !pp.in_place &&
        winent_preview_sidecar_names(path, side[0], side[1], sizeof side[0]) == 0 &&
        winent_preview_legend_name(path, side[2], sizeof side[2]) == 0) {
        WINENT_TRY(winent_file_guard_write(g, side[0], "--preview world file", err));
        WINENT_TRY(winent_file_guard_write(g, side[1], "--preview PAM file", err));
        WINENT_TRY(winent_file_guard_write(g, side[2], "--preview legend", err));
    }
    return WINENT_OK;
}

winent_status winent_tap_preview_open(const job_plan *pl, int64_t rows_in_flight,
                                      winent_job_tap **out, winent_err *err)
{
    preview_tap *t = calloc(1, sizeof *t);
    if (t == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    t->plan = pl;
    winent_status st = winent_preview_open(&pl->preview_opts, rows_in_flight, &t->pv, err);
    if (st != WINENT_OK) {
        free(t);
        return st;
    }
    t->tap.kind = "preview";
    t->tap.pieces = preview_pieces;
    t->tap.piece = preview_piece;
    t->tap.band = preview_band;
    t->tap.scratch_free = preview_scratch_free;
    t->tap.write = preview_write;
    t->tap.finish = preview_finish;
    t->tap.commit = preview_commit;
    t->tap.close = preview_close;
    *out = &t->tap;
    return WINENT_OK;
}
