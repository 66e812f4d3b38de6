/* SPDX-License-Identifier: BSD-3-Clause */
/* Cloud-Optimized GeoTIFF output: the layout GDAL's COG driver writes
 * (docs/SPEC.md, section 4), streamed.
 *
 *   header | ghost (GDAL structural metadata) | IFD main | IFD ovr 1 | ...
 *   | IFD ovr L | tiles of ovr L | ... | tiles of ovr 1 | tiles of main
 *
 * Each tile is stored as [size, 4 bytes][data][its last 4 bytes again]
 * (BLOCK_LEADER / BLOCK_TRAILER in the ghost), row-major in its level.
 *
 * The full-resolution tiles come first and are stored last, and a level's
 * tiles are known only when the rows below them have streamed past, so the
 * tiles go to two spills beside the output (spill.h: nameless, gone with
 * the job whatever ends it) as they are made, and finish lays the file out:
 * header and directories, then the spilled records copied in their final
 * order (copy_file_range: in the kernel, no pass through user space).
 *
 * Threads. Encoder threads compress the full-resolution tiles, each with
 * its own codec, and reduce each tile to its means at the overview levels
 * whose blocks it holds whole (cog_pyramid.h), straight into the
 * pyramid's rows (kept two rows of tiles per level) when the rows it
 * writes are free: the level's tile row two before emitted and its jobs
 * done (rows_free_locked; an encoder runs such a row's waiting jobs
 * itself, but never waits). Else, when it runs that far ahead of the
 * writer, the means ride before the tile in the encoded part (its
 * partial) and the writer copies them into place. The writer thread
 * appends the records in order and hands each tile to the pyramid. Every
 * completed row of overview tiles becomes jobs that point into the
 * pyramid's rows; the encoder threads take one before each tile of their
 * own, cut it out, compress it and write it to the overview spill at a
 * place they reserve (pwrite: no copy through the writer). Before the
 * pyramid overwrites a row of tiles, the writer waits for its jobs, doing
 * the waiting ones itself. The last rows of tiles of every level complete
 * with the image's last row: finish compresses them on the pool
 * (winent_sink_opts.par) with the encoders' codecs, idle by then.
 *
 * Several maps are the bands of the file, in separate planes: a pyramid
 * each, tile arrays band after band. The full-resolution records are
 * stored as they come, a row of tiles of every band in turn (each band's
 * still in row-major order, as BLOCK_ORDER says), the overview records
 * band after band within each level. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cog_pyramid.h"
#include "sink_internal.h"
#include "spill.h"
#include "tiff_common.h"
#include "tiff_dir.h"
#include "tiff_meta.h"
#include "tile_codec.h"

/* Bytes around each tile's data: its size before, its last 4 bytes after. */
#define LEADER  4
#define TRAILER 4
/* Before each encoded full-resolution tile when there are overviews: 1
 * (native uint32) when its means are in the pyramid's rows already and its
 * sums follow, 0 when its partial follows. */
#define HEAD 4

/* GDAL's structural metadata ("ghost" area) between the header and the
 * first directory: what a reader may rely on. */
static const char ghost_body[] = "LAYOUT=IFDS_BEFORE_DATA\n"
                                 "BLOCK_ORDER=ROW_MAJOR\n"
                                 "BLOCK_LEADER=SIZE_AS_UINT4\n"
                                 "BLOCK_TRAILER=LAST_4_BYTES_REPEATED\n"
                                 "KNOWN_INCOMPATIBLE_EDITION=NO\n";
#define GHOST_HEAD     "GDAL_STRUCTURAL_METADATA_SIZE=%06u bytes\n"
#define GHOST_HEAD_LEN 43

enum { SPILL_MAIN = 0, SPILL_OVR = 1 };

typedef enum job_state { JOB_FREE = 0, JOB_PENDING, JOB_RUNNING } job_state;

/* An overview tile to compress: tile `tx` of a row of tiles the pyramid
 * emitted, read where the pyramid keeps it. Under the sink's lock. */
typedef struct ovr_job {
    job_state state;
    uint64_t seq; /* PENDING jobs are taken oldest first */
    int map;
    int level;
    uint32_t tile_row, tx;
    const float *rows; /* borrowed from the pyramid, until reuse */
    size_t stride;
    int nrows, ncols;
} ovr_job;

/* What compresses tiles: an encoder thread's state, borrowed by finish
 * while its thread is idle, or one of the writer's own. */
typedef struct cog_state {
    winent_tile_codec *codec;    /* owned: full-resolution tiles */
    winent_tile_codec *ovr;      /* owned: overview tiles, when at another level (else NULL) */
    float *tile;                 /* owned: side x side */
    void *scratch;               /* owned (encoders' states): winent_cog_partial's */
    winent_bytes rec;            /* owned: an overview tile's record */
    int sink_owned;              /* made by the sink (writer, finish), freed with it */
    struct cog_sink *owner;      /* borrowed: the sink it is registered with */
    struct cog_state *reg_next;  /* the list of all states (under lock) */
    struct cog_state *idle_next; /* finish's stack of states to borrow (under lock) */
} cog_state;

/* A tile's record in a spill. */
typedef struct tile_rec {
    uint64_t at, size; /* size counts the leader and trailer */
} tile_rec;

/* What a map's pyramid calls back with. */
typedef struct pyr_user {
    winent_sink *s;
    int map;
} pyr_user;

/* Jobs not done, per level and tile-row parity, of one map. */
typedef int open_count[WINENT_COG_MAX_LEVELS + 1][2];

typedef struct cog_sink {
    winent_outfile of; /* owned: the output, through its temporary name */
    int of_open;
    int spill[2];         /* owned: SPILL_MAIN, SPILL_OVR; -1 when closed or unused */
    unsigned insert;      /* the full-resolution records go straight to the output,
                             whose front (directories, overviews) is inserted at
                             the end in multiples of this block; 0: to SPILL_MAIN,
                             copied after the front */
    uint64_t spilled[2];  /* [SPILL_MAIN] writer only; [SPILL_OVR] under lock */
    uint64_t final_bytes; /* the output's size once laid out */
    winent_cog_geom g;
    winent_out_sample q;                       /* the samples written (--ot), every level */
    int nmaps;                                 /* bands of the file */
    size_t partial_bytes;                      /* winent_cog_partial_bytes; 0 without overviews */
    size_t sums_bytes;                         /* winent_cog_sums_bytes */
    tile_rec *recs[WINENT_COG_MAX_LEVELS + 1]; /* owned, per level: the writer's (level 0),
                                                  each job's runner's (overviews); map m's
                                                  tiles from m * (tiles of the level) */
    winent_cog_pyramid **pyr;                  /* owned (writer), one per map */
    winent_cog_rule *rules;                    /* owned, per map: how its levels are made
                                                  (its measure's rule) */
    pyr_user *users;                           /* owned: the pyramids' callback arguments */
    cog_state *writer;                         /* owned, made on first need (writer) */

    pthread_mutex_t lock; /* guards what is marked "under lock" */
    pthread_cond_t cv;    /* a job is done */
    int sync_ready;
    ovr_job *jobs; /* owned: enough for two rows of tiles of every level */
    int njobs;
    uint64_t next_seq;                              /* under lock */
    open_count *open_jobs;                          /* owned, per map (under lock) */
    uint32_t (*emitted)[WINENT_COG_MAX_LEVELS + 1]; /* owned, per map and level: tile
                                                     rows emitted (under lock) */
    cog_state *states;                              /* every live state (under lock) */
    cog_state *idle;                                /* finish only (under lock) */
    winent_err job_err;                             /* finish's first failure (under lock) */
} cog_sink;

/* ---- Compressing tiles ------------------------------------------------- */

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Compress `tile` (side x side floats) and append it to `out` as a record
 * [size][data][last 4 bytes], one part of the record's size. */
static winent_status encode_record(winent_tile_codec *codec, const float *tile, winent_bytes *out,
                                   winent_err *err)
{
    size_t start = out->size;
    static const uint8_t zero[LEADER];
    if (winent_bytes_append(out, zero, LEADER) != 0)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    WINENT_TRY(winent_tile_codec_encode(codec, tile, out, err));
    size_t n = out->size - start - LEADER;
    if (n > UINT32_MAX)
        return WINENT_ERR(err, WINENT_ERR_OUTPUT,
                          "a compressed tile of %zu bytes is too large for a COG block leader: "
                          "give a smaller --tile",
                          n);
    put_le32(out->data + start, (uint32_t)n);
    uint8_t trailer[TRAILER] = {0};
    memcpy(trailer + (n < TRAILER ? TRAILER - n : 0),
           out->data + out->size - (n < TRAILER ? n : TRAILER), n < TRAILER ? n : TRAILER);
    if (winent_bytes_append(out, trailer, TRAILER) != 0)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    out->parts[out->nparts - 1] = out->size - start;
    return WINENT_OK;
}

/* Cut tile `tx` (side x side) out of `nrows` rows of `ncols` floats,
 * `stride` apart, into `dst`, padded with zeros (TIFF stores whole tiles;
 * zeros keep the bytes a function of the image alone). */
static void cut_tile(const float *rows, size_t stride, int nrows, int ncols, uint32_t tx, int side,
                     float *dst)
{
    size_t s = (size_t)side, x0 = (size_t)tx * s;
    size_t cols = (size_t)ncols - x0 < s ? (size_t)ncols - x0 : s;
    for (size_t r = 0; r < s; r++) {
        float *d = dst + r * s;
        if ((int)r < nrows) {
            memcpy(d, rows + r * stride + x0, cols * sizeof(float));
            memset(d + cols, 0, (s - cols) * sizeof(float));
        } else {
            memset(d, 0, s * sizeof(float));
        }
    }
}

static void state_free(cog_state *e)
{
    if (e == NULL)
        return;
    winent_tile_codec_free(e->codec);
    winent_tile_codec_free(e->ovr);
    free(e->tile);
    free(e->scratch);
    winent_bytes_free(&e->rec);
    free(e);
}

/* A state: an encoder's (`sink_owned` 0: both codecs) or the writer's
 * (only the overview codec). */
static winent_status state_create(winent_sink *s, int sink_owned, cog_state **out, winent_err *err)
{
    cog_sink *t = s->impl;
    const winent_sink_opts *o = &s->opts;
    cog_state *e = calloc(1, sizeof *e);
    *out = NULL;
    if (e == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    e->sink_owned = sink_owned;
    e->owner = s->impl;
    size_t side = (size_t)t->g.side;
    e->tile = malloc(side * side * sizeof(float));
    int own_ovr = o->compress == WINENT_COMPRESS_ZSTD && o->level == 0;
    if (!sink_owned && t->partial_bytes)
        e->scratch = malloc(winent_cog_partial_scratch_bytes(&t->g));
    winent_status st = e->tile && (sink_owned || !t->partial_bytes || e->scratch)
                           ? WINENT_OK
                           : WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    if (st == WINENT_OK && (!sink_owned || !own_ovr))
        st = winent_tile_codec_create(o->compress, o->level, t->g.side, &t->q,
                                      winent_sink_window_pixels(o), &e->codec, err);
    if (st == WINENT_OK && own_ovr)
        st = winent_tile_codec_create(WINENT_COMPRESS_ZSTD, WINENT_COG_OVR_ZSTD_LEVEL, t->g.side,
                                      &t->q, winent_sink_window_pixels(o), &e->ovr, err);
    if (st != WINENT_OK) {
        state_free(e);
        return st;
    }
    *out = e;
    return WINENT_OK;
}

/* The codec for overview tiles. */
static winent_tile_codec *ovr_codec(const cog_state *e)
{
    return e->ovr ? e->ovr : e->codec;
}

/* Register `e` in the list of live states (lock not held). */
static void state_register(cog_sink *t, cog_state *e)
{
    pthread_mutex_lock(&t->lock);
    e->reg_next = t->states;
    t->states = e;
    pthread_mutex_unlock(&t->lock);
}

static void state_unregister(cog_sink *t, cog_state *e)
{
    pthread_mutex_lock(&t->lock);
    for (cog_state **p = &t->states; *p; p = &(*p)->reg_next)
        if (*p == e) {
            *p = e->reg_next;
            break;
        }
    pthread_mutex_unlock(&t->lock);
}

/* ---- Encoder side ------------------------------------------------------ */

static winent_status cog_encoder_create(winent_sink *s, void **enc, winent_err *err)
{
    cog_state *e;
    WINENT_TRY(state_create(s, 0, &e, err));
    state_register(s->impl, e);
    *enc = e;
    return WINENT_OK;
}

static void cog_encoder_free(void *p)
{
    cog_state *e = p;
    if (e == NULL)
        return;
    state_unregister(e->owner, e);
    state_free(e);
}

/* The oldest PENDING job of map `map` and `level` (any map and level
 * when level < 0) and tile-row parity `parity` (any when < 0), now
 * RUNNING; NULL when none. Lock held. */
static ovr_job *take_pending_locked(cog_sink *t, int map, int level, int parity)
{
    ovr_job *best = NULL;
    for (int i = 0; i < t->njobs; i++) {
        ovr_job *j = &t->jobs[i];
        if (j->state != JOB_PENDING || (level >= 0 && (j->level != level || j->map != map)) ||
            (parity >= 0 && (int)(j->tile_row & 1) != parity))
            continue;
        if (best == NULL || j->seq < best->seq)
            best = j;
    }
    if (best)
        best->state = JOB_RUNNING;
    return best;
}

/* Write a record to the overview spill at a place reserved for it (any
 * thread: positional writes). */
static winent_status put_ovr_record(winent_sink *s, int level, uint32_t tile,
                                    const winent_bytes *rec, winent_err *err)
{
    cog_sink *t = s->impl;
    pthread_mutex_lock(&t->lock);
    uint64_t at = t->spilled[SPILL_OVR];
    t->spilled[SPILL_OVR] += rec->size;
    pthread_mutex_unlock(&t->lock);
    t->recs[level][tile] = (tile_rec){at, rec->size};
    return winent_spill_pwrite(t->spill[SPILL_OVR], rec->data, rec->size, at, s->opts.path, err);
}

/* Compress job `j` (RUNNING) with state `e` and write it out; the job's
 * slot is free again afterwards, even on a failure (the job is stopping
 * then, and no one waits for a slot forever). */
static winent_status run_job(winent_sink *s, cog_state *e, ovr_job *j, winent_err *err)
{
    cog_sink *t = s->impl;
    const uint32_t tile = (uint32_t)j->map * t->g.across[j->level] * t->g.down[j->level] +
                          j->tile_row * t->g.across[j->level] + j->tx;
    cut_tile(j->rows, j->stride, j->nrows, j->ncols, j->tx, t->g.side, e->tile);
    winent_bytes_reset(&e->rec);
    winent_status st = encode_record(ovr_codec(e), e->tile, &e->rec, err);
    if (st == WINENT_OK)
        st = put_ovr_record(s, j->level, tile, &e->rec, err);
    pthread_mutex_lock(&t->lock);
    t->open_jobs[j->map][j->level][j->tile_row & 1]--;
    j->state = JOB_FREE;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->lock);
    return st;
}

/* 1 when the rows that tile row `ty` of map `map` writes in every inner
 * level are free: the level's tile row two before it (the same buffer)
 * emitted and its jobs done; else 0, the first level that is not in
 * `*level`. Lock held. */
static int rows_free_locked(const cog_sink *t, int map, uint32_t ty, int *level)
{
    for (int k = 1; k <= t->g.inner; k++) {
        uint32_t R = ty >> k;
        if (R >= 2 && (t->emitted[map][k] < R - 1 || t->open_jobs[map][k][R & 1] > 0)) {
            *level = k;
            return 0;
        }
    }
    return 1;
}

/* Whether tile row `ty` of map `map` may put its means in place
 * (`*in_place`): the jobs that hold its rows, when they wait, are run here
 * with `e`; when they run elsewhere, or the rows are not emitted yet, the
 * answer is no (an encoder never waits: the writer may wait for it). */
static winent_status claim_rows(winent_sink *s, cog_state *e, int map, uint32_t ty, int *in_place,
                                winent_err *err)
{
    cog_sink *t = s->impl;
    int k = 0;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        if (rows_free_locked(t, map, ty, &k)) {
            *in_place = 1;
            break;
        }
        uint32_t R = ty >> k;
        ovr_job *j =
            t->emitted[map][k] >= R - 1 ? take_pending_locked(t, map, k, (int)(R & 1)) : NULL;
        if (j == NULL) {
            *in_place = 0;
            break;
        }
        pthread_mutex_unlock(&t->lock);
        WINENT_TRY(run_job(s, e, j, err));
        pthread_mutex_lock(&t->lock);
    }
    pthread_mutex_unlock(&t->lock);
    return WINENT_OK;
}

/* Tile `tx` of tile row `index` of map `map`, appended to `out` as one
 * part: when there are overviews, a HEAD and its sums (its means put in
 * place) or its partial, then its record. Before it, one waiting overview
 * tile, if any: the overviews share the encoder threads. */
static winent_status encode_main_tile(winent_sink *s, cog_state *e, int map, int64_t index,
                                      uint32_t tx, const float *rows, int nrows, winent_bytes *out,
                                      winent_err *err)
{
    cog_sink *t = s->impl;
    const uint32_t ty = (uint32_t)index;
    ovr_job *j = NULL;
    uint32_t in_place = 0;
    size_t pre = 0;
    if (t->partial_bytes) {
        pthread_mutex_lock(&t->lock);
        j = take_pending_locked(t, 0, -1, -1);
        pthread_mutex_unlock(&t->lock);
        if (j)
            WINENT_TRY(run_job(s, e, j, err));
        int free_rows;
        WINENT_TRY(claim_rows(s, e, map, ty, &free_rows, err));
        in_place = (uint32_t)free_rows;
        pre = HEAD + (in_place ? t->sums_bytes : t->partial_bytes);
    }
    const int side = t->g.side, width = s->opts.width;
    cut_tile(rows, (size_t)width, nrows, width, tx, side, e->tile);
    if (t->partial_bytes) {
        /* From the tile just cut, while it is in cache, straight into the
         * pyramid's rows or the part; the zero padding is outside the image
         * (the given rows and columns only). */
        size_t x0 = (size_t)tx * (size_t)side;
        int cols = width - (int)x0 < side ? width - (int)x0 : side;
        if (winent_bytes_reserve(out, pre) != 0)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        uint8_t *at = out->data + out->size;
        memcpy(at, &in_place, HEAD);
        if (in_place)
            winent_cog_pyramid_put(t->pyr[map], ty, tx, e->tile, (size_t)side, nrows, cols,
                                   e->scratch, at + HEAD);
        else
            winent_cog_partial(&t->g, &t->rules[map], e->tile, (size_t)side, nrows, cols,
                               e->scratch, at + HEAD);
        out->size += pre;
    }
    WINENT_TRY(encode_record(e->codec, e->tile, out, err));
    out->parts[out->nparts - 1] += pre;
    return WINENT_OK;
}

static winent_status cog_encode_part(winent_sink *s, void *enc, int map, int64_t index, int part,
                                     const float *rows, int nrows, winent_bytes *out,
                                     winent_err *err)
{
    return encode_main_tile(s, enc, map, index, (uint32_t)part, rows, nrows, out, err);
}

static winent_status cog_encode(winent_sink *s, void *enc, int map, int64_t index,
                                const float *rows, int nrows, winent_bytes *out, winent_err *err)
{
    cog_sink *t = s->impl;
    for (uint32_t tx = 0; tx < t->g.across[0]; tx++)
        WINENT_TRY(encode_main_tile(s, enc, map, index, tx, rows, nrows, out, err));
    return WINENT_OK;
}

/* ---- Writer side ------------------------------------------------------- */

/* Append a full-resolution record (writer). */
static winent_status main_record(winent_sink *s, uint32_t tile, const uint8_t *rec, size_t n,
                                 winent_err *err)
{
    cog_sink *t = s->impl;
    t->recs[0][tile] = (tile_rec){t->spilled[SPILL_MAIN], n};
    if (!t->insert)
        return winent_spill_append(t->spill[SPILL_MAIN], rec, n, s->opts.path,
                                   &t->spilled[SPILL_MAIN], err);
    /* Straight into the output: its writeback as it grows, so that the
     * range inserted at the end (which writes the file back and waits)
     * and the fsync of commit find little left. */
    WINENT_TRY(winent_spill_append(t->of.fd, rec, n, s->opts.path, &t->spilled[SPILL_MAIN], err));
    winent_outfile_wrote(&t->of, n);
    return WINENT_OK;
}

static winent_status writer_state(winent_sink *s, winent_err *err)
{
    cog_sink *t = s->impl;
    if (t->writer)
        return WINENT_OK;
    WINENT_TRY(state_create(s, 1, &t->writer, err));
    state_register(t, t->writer);
    return WINENT_OK;
}

/* The pyramid's callback: a row of tiles of `level` is complete. Each of
 * its tiles becomes a job for the encoder threads, pointing into the
 * pyramid's rows. */
static winent_status emit_tile_row(void *user, int level, uint32_t tile_row, const float *rows,
                                   size_t stride, int nrows, int ncols, winent_err *err)
{
    const pyr_user *u = user;
    winent_sink *s = u->s;
    cog_sink *t = s->impl;
    const uint32_t across = t->g.across[level];
    int i = 0;
    pthread_mutex_lock(&t->lock);
    for (uint32_t tx = 0; tx < across; tx++) {
        /* There is room: two rows of tiles per level, and reuse empties the
         * older one before its rows are overwritten. */
        while (i < t->njobs && t->jobs[i].state != JOB_FREE)
            i++;
        if (i == t->njobs) {
            pthread_mutex_unlock(&t->lock);
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "no room for overview tile %u of level %d",
                              tile_row * across + tx, level);
        }
        t->jobs[i] = (ovr_job){JOB_PENDING, t->next_seq++, u->map, level, tile_row, tx,
                               rows,        stride,          nrows,  ncols};
        t->open_jobs[u->map][level][tile_row & 1]++;
    }
    t->emitted[u->map][level] = tile_row + 1;
    pthread_mutex_unlock(&t->lock);
    return WINENT_OK;
}

/* The pyramid's callback: the rows of `tile_row` of `level` are about to be
 * overwritten. Its jobs still waiting are done here, those running waited
 * for. */
static winent_status reuse_tile_row(void *user, int level, uint32_t tile_row, winent_err *err)
{
    const pyr_user *u = user;
    winent_sink *s = u->s;
    cog_sink *t = s->impl;
    const int parity = (int)(tile_row & 1);
    winent_status st = WINENT_OK;
    pthread_mutex_lock(&t->lock);
    while (t->open_jobs[u->map][level][parity] > 0 && st == WINENT_OK) {
        ovr_job *j = take_pending_locked(t, u->map, level, parity);
        if (j == NULL) {
            pthread_cond_wait(&t->cv, &t->lock);
            continue;
        }
        pthread_mutex_unlock(&t->lock);
        st = writer_state(s, err);
        if (st == WINENT_OK)
            st = run_job(s, t->writer, j, err);
        pthread_mutex_lock(&t->lock);
    }
    pthread_mutex_unlock(&t->lock);
    return st;
}

static winent_status write_piece(winent_sink *s, int map, int64_t index, uint32_t tx,
                                 const uint8_t *data, size_t n, winent_err *err)
{
    cog_sink *t = s->impl;
    uint32_t in_place = 0;
    size_t pre = 0;
    if (t->pyr && n >= HEAD) {
        memcpy(&in_place, data, HEAD);
        pre = HEAD + (in_place ? t->sums_bytes : t->partial_bytes);
    }
    if (n < pre + LEADER + TRAILER || (t->pyr && pre == 0))
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "tile (%u, %lld) is %zu bytes", tx,
                          (long long)index, n);
    uint32_t tile = (uint32_t)map * t->g.across[0] * t->g.down[0] +
                    (uint32_t)index * t->g.across[0] + tx;
    WINENT_TRY(main_record(s, tile, data + pre, n - pre, err));
    if (t->pyr)
        WINENT_TRY(winent_cog_pyramid_add(t->pyr[map], (uint32_t)index, tx,
                                          pre > HEAD ? data + HEAD : NULL, (int)in_place, err));
    return WINENT_OK;
}

static winent_status cog_write_part(winent_sink *s, int map, int64_t index, int part,
                                    const winent_bytes *encoded, winent_err *err)
{
    return write_piece(s, map, index, (uint32_t)part, encoded->data, encoded->size, err);
}

static winent_status cog_write(winent_sink *s, int map, int64_t index,
                               const winent_bytes *encoded, winent_err *err)
{
    cog_sink *t = s->impl;
    if (encoded->nparts != (int)t->g.across[0])
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "tile row %lld has %d tiles, want %u",
                          (long long)index, encoded->nparts, t->g.across[0]);
    const uint8_t *p = encoded->data;
    for (uint32_t i = 0; i < t->g.across[0]; i++) {
        WINENT_TRY(write_piece(s, map, index, i, p, encoded->parts[i], err));
        p += encoded->parts[i];
    }
    return WINENT_OK;
}

/* ---- Finish: the last overview tiles, then the layout ------------------ */

/* 1 when no job is open. Lock held. */
static int all_done_locked(const cog_sink *t)
{
    for (int i = 0; i < t->njobs; i++)
        if (t->jobs[i].state != JOB_FREE)
            return 0;
    return 1;
}

typedef struct tail {
    winent_sink *s;
    ovr_job **jobs; /* borrowed */
} tail;

/* One of the last overview jobs, on a pool thread (or the writer), with
 * a borrowed idle state: when more threads run than there are states, a
 * thread waits for one, so finish takes no memory of its own. */
static void tail_item(void *arg, long i, int worker)
{
    tail *a = arg;
    winent_sink *s = a->s;
    cog_sink *t = s->impl;
    winent_err err;
    winent_err_clear(&err);
    (void)worker;
    pthread_mutex_lock(&t->lock);
    while (t->idle == NULL)
        pthread_cond_wait(&t->cv, &t->lock);
    cog_state *e = t->idle;
    t->idle = e->idle_next;
    pthread_mutex_unlock(&t->lock);
    winent_status st = run_job(s, e, a->jobs[i], &err);
    pthread_mutex_lock(&t->lock);
    e->idle_next = t->idle;
    t->idle = e;
    pthread_cond_broadcast(&t->cv);
    if (st != WINENT_OK)
        winent_err_merge(&t->job_err, &err);
    pthread_mutex_unlock(&t->lock);
}

/* Compress every job still waiting, on the pool when there is one. */
static winent_status run_tail(winent_sink *s, winent_err *err)
{
    cog_sink *t = s->impl;
    if (t->njobs == 0)
        return WINENT_OK;
    ovr_job **list = malloc((size_t)t->njobs * sizeof *list);
    if (list == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    long n = 0;
    /* At least one state to borrow (every tile had an encoder, but a sink
     * driven otherwise may have none). */
    pthread_mutex_lock(&t->lock);
    int no_state = t->states == NULL;
    pthread_mutex_unlock(&t->lock);
    winent_status st = no_state ? writer_state(s, err) : WINENT_OK;
    if (st != WINENT_OK) {
        free(list);
        return st;
    }
    pthread_mutex_lock(&t->lock);
    ovr_job *j;
    while ((j = take_pending_locked(t, 0, -1, -1)) != NULL)
        list[n++] = j;
    /* The encoders are idle (every encode task is over): their states may
     * be borrowed. */
    t->idle = NULL;
    for (cog_state *e = t->states; e; e = e->reg_next) {
        e->idle_next = t->idle;
        t->idle = e;
    }
    winent_err_clear(&t->job_err);
    pthread_mutex_unlock(&t->lock);
    tail a = {s, list};
    const winent_parallel *par = s->opts.par;
    int stopped = 0;
    if (n > 1 && par && par->run && par->workers > 1) {
        stopped = par->run(par->ctx, n, tail_item, &a) != 0;
    } else {
        for (long i = 0; i < n; i++)
            tail_item(&a, i, 0);
    }
    free(list);
    pthread_mutex_lock(&t->lock);
    t->idle = NULL;
    /* A job an encoder took before its last tile is done by now; wait all
     * the same, the records must be in place before the layout. */
    while (!stopped && t->job_err.status == WINENT_OK && !all_done_locked(t))
        pthread_cond_wait(&t->cv, &t->lock);
    winent_err job_err = t->job_err;
    pthread_mutex_unlock(&t->lock);
    if (job_err.status != WINENT_OK) {
        winent_err_merge(err, &job_err);
        return job_err.status;
    }
    if (stopped)
        return WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
    return WINENT_OK;
}

/* Structural tags of one level's directory of `nmaps` bands, its tile
 * arrays zero. */
static int add_structure(winent_tiff_dir *d, const winent_sink_opts *o, const winent_cog_geom *g,
                         int nmaps, int level, const uint64_t *zeros, const uint64_t *counts)
{
    uint64_t ntiles = (uint64_t)g->across[level] * g->down[level] * (uint64_t)nmaps;
    int bad = 0;
    if (level > 0)
        bad |= winent_tiff_dir_add_long(d, 254, 1); /* NewSubfileType: reduced resolution */
    bad |= winent_tiff_dir_add_long(d, 256, (uint32_t)g->w[level]);
    bad |= winent_tiff_dir_add_long(d, 257, (uint32_t)g->h[level]);
    const uint16_t bits = (uint16_t)winent_tile_codec_tiff_bits(o->out_type);
    const uint16_t format = (uint16_t)winent_tile_codec_tiff_sample_format(o->out_type);
    if (nmaps == 1) {
        bad |= winent_tiff_dir_add_short(d, 258, bits);
    } else {
        /* A value per band: BitsPerSample, SampleFormat; ExtraSamples says
         * the bands past the first are of no particular meaning (as GDAL
         * writes a multi-band grey image). */
        uint16_t *v = malloc((size_t)nmaps * sizeof *v);
        if (v == NULL)
            return 1;
        for (int m = 0; m < nmaps; m++)
            v[m] = bits;
        bad |= winent_tiff_dir_add(d, 258, WINENT_TIFF_SHORT, (uint64_t)nmaps, v);
        for (int m = 0; m < nmaps; m++)
            v[m] = format;
        bad |= winent_tiff_dir_add(d, 339, WINENT_TIFF_SHORT, (uint64_t)nmaps, v);
        memset(v, 0, (size_t)nmaps * sizeof *v);
        bad |= winent_tiff_dir_add(d, 338, WINENT_TIFF_SHORT, (uint64_t)nmaps - 1, v);
        free(v);
    }
    bad |= winent_tiff_dir_add_short(d, 259,
                                     (uint16_t)winent_tile_codec_tiff_compression(o->compress));
    bad |= winent_tiff_dir_add_short(d, 262, 1); /* MinIsBlack */
    bad |= winent_tiff_dir_add_short(d, 277, (uint16_t)nmaps);
    bad |= winent_tiff_dir_add_short(d, 284, nmaps == 1 ? 1 : 2); /* contiguous, or separate */
    if (o->compress != WINENT_COMPRESS_NONE)
        bad |=
            winent_tiff_dir_add_short(d, 317,
                                      (uint16_t)winent_tile_codec_tiff_predictor(
                                          o->compress, o->out_type, winent_sink_window_pixels(o)));
    bad |= winent_tiff_dir_add_long(d, 322, (uint32_t)g->side);
    bad |= winent_tiff_dir_add_long(d, 323, (uint32_t)g->side);
    bad |= winent_tiff_dir_add(d, 324, WINENT_TIFF_OFFSETS, ntiles, zeros);
    bad |= winent_tiff_dir_add(d, 325, WINENT_TIFF_OFFSETS, ntiles, counts);
    if (nmaps == 1)
        bad |= winent_tiff_dir_add_short(d, 339, format);
    if (o->nodata_in_play) {
        winent_out_sample q;
        char nodata[32];
        winent_sink_out_sample(o, &q);
        winent_tiff_nodata_text(&q, nodata, sizeof nodata);
        bad |= winent_tiff_dir_add(d, WINENT_TAG_GDAL_NODATA, WINENT_TIFF_ASCII, 0, nodata);
    }
    return bad;
}

static int add_georef(winent_tiff_dir *d, const winent_georef *g)
{
    int bad = 0;
    if (g == NULL)
        return 0;
    if (g->n_scale > 0)
        bad |= winent_tiff_dir_add(d, WINENT_TAG_MODELPIXELSCALE, WINENT_TIFF_DOUBLE,
                                   (uint64_t)g->n_scale, g->scale);
    if (g->n_tiepoints > 0)
        bad |= winent_tiff_dir_add(d, WINENT_TAG_MODELTIEPOINT, WINENT_TIFF_DOUBLE,
                                   (uint64_t)g->n_tiepoints, g->tiepoints);
    if (g->n_transform > 0)
        bad |= winent_tiff_dir_add(d, WINENT_TAG_MODELTRANSFORMATION, WINENT_TIFF_DOUBLE, 16,
                                   g->transform);
    if (g->n_geokeys > 0)
        bad |= winent_tiff_dir_add(d, WINENT_TAG_GEOKEYDIRECTORY, WINENT_TIFF_SHORT,
                                   (uint64_t)g->n_geokeys, g->geokeys);
    if (g->n_geodoubles > 0)
        bad |= winent_tiff_dir_add(d, WINENT_TAG_GEODOUBLEPARAMS, WINENT_TIFF_DOUBLE,
                                   (uint64_t)g->n_geodoubles, g->geodoubles);
    if (g->geoascii)
        bad |= winent_tiff_dir_add(d, WINENT_TAG_GEOASCIIPARAMS, WINENT_TIFF_ASCII, 0, g->geoascii);
    return bad;
}

/* The directories of every level (index = level), their tile arrays still
 * zero. */
static winent_status make_dirs(const winent_sink *s, winent_tiff_dir **dirs, winent_err *err)
{
    const cog_sink *t = s->impl;
    const winent_sink_opts *o = &s->opts;
    const winent_cog_geom *g = &t->g;
    uint64_t most = (uint64_t)g->across[0] * g->down[0] * (uint64_t)t->nmaps;
    uint64_t *zeros = calloc(most, sizeof *zeros), *counts = malloc(most * sizeof *counts);
    char *xml = winent_tiff_meta_main(o, &t->q);
    char *ovr_xml = g->levels > 0 ? winent_tiff_meta_overview(o) : NULL;
    int bad = zeros == NULL || counts == NULL || xml == NULL || (g->levels > 0 && ovr_xml == NULL);
    for (int k = 0; k <= g->levels && !bad; k++) {
        if (winent_tiff_dir_create(&dirs[k], err) != WINENT_OK) {
            bad = 1;
            break;
        }
        uint64_t ntiles = (uint64_t)g->across[k] * g->down[k] * (uint64_t)t->nmaps;
        for (uint64_t i = 0; i < ntiles && !bad; i++) {
            /* Every tile has its record by now; one missing is a bug, not
             * a zero-byte tile. */
            if (t->recs[k][i].size < LEADER + TRAILER) {
                free(zeros);
                free(counts);
                free(xml);
                free(ovr_xml);
                return WINENT_ERR(err, WINENT_ERR_INTERNAL,
                                  "tile %llu of level %d was never written", (unsigned long long)i,
                                  k);
            }
            counts[i] = t->recs[k][i].size - LEADER - TRAILER;
        }
        bad |= add_structure(dirs[k], o, g, t->nmaps, k, zeros, counts);
        if (k == 0) {
            char software[64];
            snprintf(software, sizeof software, "winent-stream %s", WINENT_VERSION_STRING);
            bad |= winent_tiff_dir_add(dirs[k], 305, WINENT_TIFF_ASCII, 0, software);
            bad |= add_georef(dirs[k], o->georef);
            bad |=
                winent_tiff_dir_add(dirs[k], WINENT_TAG_GDAL_METADATA, WINENT_TIFF_ASCII, 0, xml);
        } else {
            bad |= winent_tiff_dir_add(dirs[k], WINENT_TAG_GDAL_METADATA, WINENT_TIFF_ASCII, 0,
                                       ovr_xml);
        }
    }
    free(zeros);
    free(counts);
    free(xml);
    free(ovr_xml);
    return bad ? WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory") : WINENT_OK;
}

/* Append `len` bytes of scratch file `fd` from `at` to the output, handing
 * them to writeback as they come (winent_outfile_wrote), a piece at a
 * time, so that the fsync of commit waits for little more than the last. */
static winent_status copy_out(winent_sink *s, int fd, uint64_t at, uint64_t len, winent_err *err)
{
    cog_sink *t = s->impl;
    const uint64_t piece = (uint64_t)32 << 20;
    while (len > 0) {
        uint64_t n = len < piece ? len : piece;
        WINENT_TRY(winent_spill_copy(fd, at, t->of.fd, n, s->opts.stop, s->opts.path, err));
        winent_outfile_wrote(&t->of, n);
        at += n;
        len -= n;
    }
    return WINENT_OK;
}

/* Lay the file out (BigTIFF or not), write the header, the ghost and the
 * directories, then copy the records in their final order. */
static winent_status assemble(winent_sink *s, winent_err *err)
{
    cog_sink *t = s->impl;
    const winent_cog_geom *g = &t->g;
    const int L = g->levels;
    winent_tiff_dir *dirs[WINENT_COG_MAX_LEVELS + 1] = {0};
    uint64_t dir_at[WINENT_COG_MAX_LEVELS + 2];
    uint8_t *head = NULL;
    uint64_t *offs = NULL;
    winent_status st = WINENT_OK;
    WINENT_TRY_GOTO(st, make_dirs(s, dirs, err));

    char ghost[GHOST_HEAD_LEN + sizeof ghost_body + 2];
    unsigned body = (unsigned)strlen(ghost_body);
    int big = s->opts.bigtiff;
    uint64_t data_at = 0, main_at = 0, total = 0;
    for (;;) {
        /* The first directory on an even offset right after the ghost: the
         * ghost's size counts a padding blank when needed. */
        uint64_t hdr = big ? 16 : 8;
        unsigned pad = (unsigned)((hdr + GHOST_HEAD_LEN + body) & 1);
        snprintf(ghost, sizeof ghost, GHOST_HEAD "%s%s", body + pad, ghost_body, pad ? " " : "");
        uint64_t at = hdr + strlen(ghost);
        for (int k = 0; k <= L; k++) {
            dir_at[k] = at;
            at += (winent_tiff_dir_size(dirs[k], big) + 1) & ~(uint64_t)1;
        }
        data_at = at;
        main_at = data_at + t->spilled[SPILL_OVR];
        if (t->insert) /* the inserted front is whole blocks: zeros fill its end */
            main_at = (main_at + t->insert - 1) / t->insert * t->insert;
        total = main_at + t->spilled[SPILL_MAIN];
        if (big || total <= UINT32_MAX)
            break;
        big = 1; /* past 4 GiB: BigTIFF, laid out again */
    }
    /* The tile offsets: ovr L first, ..., ovr 1, then the full resolution. */
    uint64_t most = (uint64_t)g->across[0] * g->down[0] * (uint64_t)t->nmaps;
    offs = malloc(most * sizeof *offs);
    if (offs == NULL) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        goto fail;
    }
    uint64_t pos = data_at;
    for (int k = L; k >= 0; k--) {
        uint64_t ntiles = (uint64_t)g->across[k] * g->down[k] * (uint64_t)t->nmaps;
        for (uint64_t i = 0; i < ntiles; i++) {
            /* Overviews are copied in the arrays' order; the full
             * resolution stays where it was written (several maps: a row
             * of tiles of each in turn). */
            offs[i] = (k == 0 ? main_at + t->recs[k][i].at : pos) + LEADER;
            pos += t->recs[k][i].size;
        }
        if (winent_tiff_dir_add(dirs[k], 324, WINENT_TIFF_OFFSETS, ntiles, offs) != 0) {
            st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
            goto fail;
        }
    }
    head = calloc(1, data_at);
    if (head == NULL) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        goto fail;
    }
    size_t hn = winent_tiff_header(big, dir_at[0], head);
    memcpy(head + hn, ghost, strlen(ghost));
    for (int k = 0; k <= L; k++)
        if (winent_tiff_dir_write(dirs[k], big, dir_at[k], k < L ? dir_at[k + 1] : 0,
                                  head + dir_at[k]) != 0) {
            st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "a tile offset does not fit the TIFF");
            goto fail;
        }
    if (t->insert)
        WINENT_TRY_GOTO(st, winent_spill_insert_front(t->of.fd, main_at, s->opts.path, err));
    WINENT_TRY_GOTO(st, winent_outfile_write(&t->of, head, data_at, err));
    /* The overview records, level by level, runs of neighbours in one copy. */
    for (int k = L; k >= 1; k--) {
        uint64_t ntiles = (uint64_t)g->across[k] * g->down[k] * (uint64_t)t->nmaps;
        uint64_t run_at = 0, run_len = 0;
        for (uint64_t i = 0; i <= ntiles; i++) {
            if (i < ntiles && run_len && t->recs[k][i].at == run_at + run_len) {
                run_len += t->recs[k][i].size;
                continue;
            }
            if (run_len)
                WINENT_TRY_GOTO(st, copy_out(s, t->spill[SPILL_OVR], run_at, run_len, err));
            if (i < ntiles) {
                run_at = t->recs[k][i].at;
                run_len = t->recs[k][i].size;
            }
        }
    }
    /* The full resolution: in place already, or the spill as it is. */
    if (!t->insert)
        WINENT_TRY_GOTO(st, copy_out(s, t->spill[SPILL_MAIN], 0, t->spilled[SPILL_MAIN], err));
    t->final_bytes = total;
fail:
    for (int k = 0; k <= L; k++)
        winent_tiff_dir_free(dirs[k]);
    free(head);
    free(offs);
    return st;
}

static void close_spills(cog_sink *t)
{
    for (int i = 0; i < 2; i++)
        if (t->spill[i] >= 0) {
            close(t->spill[i]);
            t->spill[i] = -1;
        }
}

static void cog_abort(winent_sink *s)
{
    cog_sink *t = s->impl;
    if (t == NULL)
        return;
    close_spills(t);
    if (t->of_open) {
        winent_outfile_abort(&t->of);
        t->of_open = 0;
    }
}

static winent_status cog_finish(winent_sink *s, winent_err *err)
{
    cog_sink *t = s->impl;
    winent_status st;
    WINENT_TRY_GOTO(st, run_tail(s, err));
    WINENT_TRY_GOTO(st, assemble(s, err));
    close_spills(t);
    t->of_open = 0;
    return winent_outfile_commit(&t->of, err);
fail:
    cog_abort(s);
    return st;
}

static uint64_t cog_bytes_written(const winent_sink *s)
{
    const cog_sink *t = s->impl;
    return t->final_bytes ? t->final_bytes : t->spilled[SPILL_MAIN] + t->spilled[SPILL_OVR];
}

static void cog_free_impl(void *p)
{
    cog_sink *t = p;
    if (t == NULL)
        return;
    close_spills(t);
    if (t->of_open)
        winent_outfile_abort(&t->of);
    for (int m = 0; t->pyr && m < t->nmaps; m++)
        winent_cog_pyramid_free(t->pyr[m]);
    free(t->pyr);
    free(t->rules);
    free(t->users);
    free(t->open_jobs);
    free(t->emitted);
    for (int k = 0; k <= WINENT_COG_MAX_LEVELS; k++)
        free(t->recs[k]);
    free(t->jobs);
    /* The states the sink made (the encoders' are freed by their threads,
     * which are gone by now). */
    for (cog_state *e = t->states, *next; e; e = next) {
        next = e->reg_next;
        if (e->sink_owned)
            state_free(e);
    }
    if (t->sync_ready) {
        pthread_cond_destroy(&t->cv);
        pthread_mutex_destroy(&t->lock);
    }
    free(t);
}

static const sink_ops cog_sink_ops = {
    .encoder_create = cog_encoder_create,
    .encoder_free = cog_encoder_free,
    .encode = cog_encode,
    .write = cog_write,
    .encode_part = cog_encode_part,
    .write_part = cog_write_part,
    .finish = cog_finish,
    .abort = cog_abort,
    .free_impl = cog_free_impl,
    .bytes_written = cog_bytes_written,
};

/* Job slots for two rows of tiles of every overview level. */
static int job_count(const winent_cog_geom *g)
{
    size_t n = 0;
    for (int k = 1; k <= g->levels; k++)
        n += 2 * (size_t)g->across[k];
    return (int)n;
}

size_t winent_sink_cog_writer_bytes(const winent_sink_opts *o, size_t encoder_bytes)
{
    winent_cog_geom g;
    int side = o->tile > 0 ? o->tile : 512;
    const size_t nmaps = (size_t)winent_sink_nmaps(o);
    winent_cog_geometry(o->width, o->height, side, &g);
    size_t tiles = 0;
    for (int k = 0; k <= g.levels; k++)
        tiles += (size_t)g.across[k] * g.down[k];
    /* Tile records, and the directories built at the end (offsets and
     * counts of every tile, 8 bytes each at most, plus their copies), of
     * every map. */
    size_t b = (tiles * (sizeof(tile_rec) + 16) + ((size_t)g.across[0] * g.down[0]) * 24) * nmaps;
    if (g.levels == 0)
        return b;
    b += (winent_cog_pyramid_bytes(&g) + (size_t)job_count(&g) * sizeof(ovr_job)) * nmaps;
    /* The writer's own state, for the overview tiles it compresses itself. */
    b += encoder_bytes;
    return b;
}

size_t winent_sink_cog_encoder_extra(const winent_sink_opts *o)
{
    winent_cog_geom g;
    winent_cog_geometry(o->width, o->height, o->tile > 0 ? o->tile : 512, &g);
    size_t tile = (size_t)g.side * (size_t)g.side * sizeof(float);
    /* The partial's scratch, and an overview tile's record. */
    return g.levels ? winent_cog_partial_scratch_bytes(&g) +
                          (size_t)winent_tile_codec_bound(o->compress, tile) + LEADER + TRAILER
                    : 0;
}

size_t winent_sink_cog_unit_extra(const winent_sink_opts *o)
{
    winent_cog_geom g;
    int side = o->tile > 0 ? o->tile : 512;
    winent_cog_geometry(o->width, o->height, side, &g);
    /* The most a tile carries: its partial, when its means could not be
     * put in place. */
    size_t per_tile = LEADER + TRAILER + (g.levels ? HEAD + winent_cog_partial_bytes(&g) : 0);
    return (size_t)g.across[0] * per_tile;
}

winent_status winent_sink_cog_open(winent_sink *s, winent_err *err)
{
    const winent_sink_opts *o = &s->opts;
    winent_status st = WINENT_OK;
    int side = o->tile > 0 ? o->tile : 512;
    if (side % 16 != 0 || side > 65536)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "--tile %d: a GeoTIFF tile side must be a multiple of 16", side);
    if (o->width <= 0 || o->height <= 0)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "empty output %dx%d", o->width, o->height);
    cog_sink *t = calloc(1, sizeof *t);
    if (t == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    s->ops = &cog_sink_ops;
    s->impl = t;
    t->spill[0] = t->spill[1] = -1;
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->cv, NULL);
    t->sync_ready = 1;
    winent_cog_geometry(o->width, o->height, side, &t->g);
    winent_sink_out_sample(o, &t->q);
    s->unit_rows = side;
    s->parts = (int)t->g.across[0];
    t->nmaps = s->nmaps;
    if ((uint64_t)t->g.across[0] * t->g.down[0] * (uint64_t)t->nmaps > UINT32_MAX ||
        t->nmaps > 65535)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s: %d maps of %u tiles are too many for one GeoTIFF: give a larger "
                          "--tile, fewer maps, or a .zst",
                          o->path, t->nmaps, t->g.across[0] * t->g.down[0]);
    for (int k = 0; k <= t->g.levels; k++) {
        size_t n = (size_t)t->g.across[k] * t->g.down[k] * (size_t)t->nmaps;
        if ((t->recs[k] = calloc(n, sizeof(tile_rec))) == NULL)
            goto oom;
    }
    if (t->g.levels > 0) {
        t->partial_bytes = winent_cog_partial_bytes(&t->g);
        t->sums_bytes = winent_cog_sums_bytes(&t->g);
        t->pyr = calloc((size_t)t->nmaps, sizeof *t->pyr);
        t->rules = calloc((size_t)t->nmaps, sizeof *t->rules);
        t->users = calloc((size_t)t->nmaps, sizeof *t->users);
        t->open_jobs = calloc((size_t)t->nmaps, sizeof *t->open_jobs);
        t->emitted = calloc((size_t)t->nmaps, sizeof *t->emitted);
        if (t->pyr == NULL || t->rules == NULL || t->users == NULL || t->open_jobs == NULL ||
            t->emitted == NULL)
            goto oom;
        for (int m = 0; m < t->nmaps; m++) {
            t->users[m] = (pyr_user){s, m};
            t->rules[m] = (winent_cog_rule){winent_sink_overview_rule(o, m), &t->q};
            WINENT_TRY_GOTO(st,
                            winent_cog_pyramid_create(&t->g, &t->rules[m], emit_tile_row,
                                                      reuse_tile_row, &t->users[m], &t->pyr[m],
                                                      err));
        }
        t->njobs = job_count(&t->g) * t->nmaps;
        if ((t->jobs = calloc((size_t)t->njobs, sizeof *t->jobs)) == NULL)
            goto oom;
    }
    WINENT_TRY_GOTO(st, winent_outfile_open(&t->of, o->path, o->stop, err));
    winent_outfile_track(&t->of, o->temps);
    t->of_open = 1;
    const char *beside = t->of.temp_path ? t->of.temp_path : o->path;
    /* Where the file system can insert a range, the full-resolution tiles
     * go to the output itself: no copy of them, no second copy on disk. */
    if (!winent_spill_can_insert(t->of.fd, &t->insert))
        WINENT_TRY_GOTO(st, winent_spill_open(beside, o->path, &t->spill[SPILL_MAIN], err));
    if (t->g.levels > 0)
        WINENT_TRY_GOTO(st, winent_spill_open(beside, o->path, &t->spill[SPILL_OVR], err));
    return WINENT_OK;
oom:
    st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
fail:
    /* s->impl is freed by the caller (winent_sink_free), removing the file. */
    return st;
}
