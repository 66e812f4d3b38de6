/* SPDX-License-Identifier: BSD-3-Clause */
/* The public engine's insides (winent.h, "Engines"), shared by engine.c
 * (creation, the CPU and reference kinds, the calls' checks) and
 * engine_stage.c (the GPU kind's blocks in flight through its pinned slots). */
#ifndef WINENT_ENGINE_FACADE_H
#define WINENT_ENGINE_FACADE_H

#include <pthread.h>
#include <stdint.h>

#include "kernels/engine_cpu.h"
#include "kernels/engine_cuda.h"
#include "winent.h"

/* A slot's state: free; its band's input being copied into its staging (by
 * one thread, the lock not held); on the GPU; its output being copied out. */
enum { SLOT_FREE = 0, SLOT_FILL, SLOT_GPU, SLOT_DRAIN };

/* A block submitted and not yet waited for. The chunk, the output and the
 * band size are fixed at submit; the rest changes under the engine's lock. */
typedef struct eng_block {
    uint64_t ticket;
    winent_chunk c;
    float *out;
    size_t out_stride;
    int band;            /* GPU: output rows per band */
    int next;            /* GPU: first output row not yet given to a slot */
    int pending;         /* GPU: bands in slots */
    int claimed;         /* a thread waits for it */
    winent_status st;    /* the first failure */
    winent_err err;
    struct eng_block *later;
} eng_block;

/* One slot's pinned staging (the input rows of its band, packed, and its
 * output rows, packed) and the band it holds. */
typedef struct stage_slot {
    void *in;
    float *out;
    int state;
    eng_block *b;
    int y0, y1;
    uint64_t seq; /* launch order: the oldest band on the GPU drains first */
} stage_slot;

struct winent_engine {
    winent_engine_kind kind;
    winent_plan *plan;           /* owned */
    winent_cpu_engine *cpu;      /* owned, CPU kind */
    winent_gpu_engine *gpu;      /* owned, GPU kind */
    int threads;                 /* GPU kind: threads of each copy to and from the staging */
    int cores;                   /* the machine's */
    int max_width;
    int stage_rows;              /* GPU kind: output rows per band at most */
    double class_limit;          /* winent_class_limit of its float32 rows, or 0 */
    int nslots;
    stage_slot *stage;           /* GPU kind, owned */
    pthread_mutex_t lock;        /* the blocks, the slots, the counters below */
    pthread_cond_t changed;      /* a slot or a block changed state */
    pthread_mutex_t run;         /* one CPU or reference computation, one GPU launch */
    eng_block *first, *last;     /* submitted, not yet waited for, oldest first */
    uint64_t tickets, launches;
    int copying;                 /* threads copying bands now */
    winent_err err;              /* winent_engine_compute's last failure */
    winent_error pub;            /* its public form (winent_engine_error) */
};

/* The GPU kind: start what free slots can take (copies in, launches), the
 * lock held (released while copying). */
void winent_stage_start(winent_engine *e);

/* The GPU kind: work on the engine's bands (any block's) until block `b`
 * is done, the lock held (released while copying or waiting). */
void winent_stage_finish(winent_engine *e, eng_block *b);

/* Output rows for a block's bands: as even as they go, in whole tiles. */
int winent_stage_band(const winent_engine *e, int rows);

/* Every band still on the GPU waited for (their results dropped): before
 * the engine is freed. Lock not held. */
void winent_stage_quiesce(winent_engine *e);

#endif
