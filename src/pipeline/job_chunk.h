/* SPDX-License-Identifier: BSD-3-Clause */
/* job_chunk.h - the pipeline's unit of work (pipeline/ only): a chunk of
 * output rows, its state and buffers (the ring's, ring.c), and a part for
 * each owner: its claim (sched.c), its CPU bands (engines_cpu.c and the
 * pool), its clamp counting, its staged fill, its output pieces (the
 * taps'). */
#ifndef WINENT_JOB_CHUNK_H
#define WINENT_JOB_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"

struct engine;

/* The job's taps at most: the output, the preview. */
#define WINENT_MAX_TAPS 4

typedef enum chunk_state {
    CHUNK_UNUSED = 0, /* no buffers yet */
    CHUNK_FREE,       /* buffers, no content */
    CHUNK_READING,    /* the reader fills it */
    CHUNK_FILLING,    /* a staged memory job: the pool copies its input rows in */
    CHUNK_READY,      /* input rows in place, waiting for an engine */
    CHUNK_CLAIMED,    /* an engine computes it */
    CHUNK_ENCODING,   /* units handed to the workers */
    CHUNK_DONE        /* for the writer */
} chunk_state;


/* How much of one map is at its window's largest entropy (every pixel of
 * a whole window in a bin of its own): the "saturated" notice. */
typedef struct saturation {
    float at_top; /* a value at least this is at the top (just
                     below it: the engines' rounding) */
    double top;   /* winent_compute_top of the map's options */
    uint64_t valid, top_count;
} saturation;

/* A chunk's parts, each written by one owner (under p->lock). */

/* Its claim (sched.c): the engine that claimed it and, when a GPU took
 * over the bands the CPU had not started (the chunk's tail), that GPU: it
 * computes output rows [tail_y0, y1), the CPU the bands it had started.
 * `computing` counts the engines not done with their part (1, or 2 while
 * a tail is out); `head_done`: the CPU's part is. */
typedef struct chunk_claim {
    struct engine *engine;
    struct engine *tail;
    int tail_y0;
    int computing, head_done;
} chunk_claim;

/* Its CPU bands (engines_cpu.c posts them, the pool takes them, a GPU
 * that takes the tail shortens them): `n` bands of `rows` rows, the next
 * to hand out, those not done. */
typedef struct chunk_bands {
    int rows, n, next, left;
} chunk_bands;

/* Clamp counting (--bins/--range) of a chunk a GPU computes (sched.c
 * posts it, the pool counts): `n` pieces of its output rows from `y0`
 * whose input rows the workers count, once each, while the GPU works; the
 * writer takes the chunk only when none is `left`. 0 while the CPU's
 * bands count their own rows; a GPU that takes a tail posts only the
 * tail's rows (the CPU's bands counted theirs). */
typedef struct chunk_counts {
    int n, next, left, y0;
} chunk_counts;

/* A staged memory job (FILLING; input.c posts it, the pool copies): `n`
 * pieces of fill_rows input rows from the caller's buffer. */
typedef struct chunk_fill {
    int n, next, left;
} chunk_fill;

/* Its output pieces (the taps'; after compute, ENCODING): `ntasks` for
 * the pool, tap by tap, tap_pieces[i] of tap i (winent_chunk_pieces_locked
 * builds them, winent_chunk_piece_tap reads them); the taps get the rows
 * from `taps_y0` on as pieces (those no CPU band gave them: a GPU's).
 * Rows [y0, tapped_to) went to the taps already: a chunk whose CPU part
 * was given them, handed back whole by a GPU that failed on its tail, is
 * computed again without giving those rows twice. `units`: the encoded
 * units, one per piece (map m, unit u, part k at (m * nunits + u) * parts
 * + k); nunits, npieces of one map. */
typedef struct chunk_out {
    winent_bytes *units; /* owned */
    int nunits, npieces;
    int tap_pieces[WINENT_MAX_TAPS];
    int ntasks, taps_y0, tapped_to;
    int next_piece, pieces_left;
} chunk_out;

/* One chunk: output rows [y0, y1) and the input rows their windows need
 * (the largest window's), its state and buffers (the ring's), then a part
 * for each owner. Fields change under p->lock, except the buffers'
 * contents, which belong to the stage that holds the chunk's state. */
typedef struct chunk {
    chunk_state state;
    int64_t seq;
    int y0, y1;            /* output rows */
    int in_y0, in_h;       /* input rows held */
    uint8_t *rows;         /* input rows: rows_own, or borrowed (memory job); band b's
                              plane at rows + b * p->plane_bytes */
    float *map;            /* output rows: map_own, or borrowed; map m's plane at
                              map + m * p->map_plane */
    uint8_t *rows_own;     /* owned */
    float *map_own;        /* owned */
    size_t rows_bytes, map_bytes;
    int registered;        /* rows_own / map_own are pinned for the GPUs */
    int staged;            /* its rows and map are its own buffers, copied in and out */
    chunk_claim claim;
    chunk_bands bands;
    chunk_counts counts;
    chunk_fill fill;
    chunk_out out;
} chunk;

#endif
