/* SPDX-License-Identifier: BSD-3-Clause */
/* plan.h - the job's plan (pipeline/ only): the options resolved once by
 * setup (pipeline.c and setup_*.c) before any thread starts, then read by
 * every room of the pipeline as `const job_plan *`, without the lock. */
#ifndef WINENT_PLAN_H
#define WINENT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "devices.h"
#include "kernels/engine_cpu.h"
#include "pipeline_bench.h"
#include "switches.h"
#include "tiles/sink.h"
#include "tiles/sinks/preview.h"

/* One map of the job: a band read, at one window. */
typedef struct job_map {
    int band;                /* index of its band among those read (its plane) */
    winent_compute_opts co;  /* its options: the band's nodata and range, the window */
    winent_plan *plan;       /* shared by maps of equal options; owned where `owner` */
    winent_cpu_engine *cpu;  /* the same (NULL without the CPU engine) */
    int owner;
    /* Maps [m, m + group) computed in one pass by `shared` (group > 1,
     * owned), this map's own engine (1), or by an earlier map's pass (0):
     * see map_groups (setup_maps.c). */
    int group;
    winent_cpu_engine *shared;
} job_map;

/* The job's plan: the options resolved once (geometry, maps, devices,
 * memory budget, switches, stage, what the input and output are). Filled
 * by setup (pipeline.c) before any thread starts and never written after:
 * the rest of the room reads it as `const job_plan *`, without the lock. */
typedef struct job_plan {
    const winent_job_opts *opts;
    winent_switches sw; /* the debug switches, read once */
    winent_stage stage;
    /* A memory job's buffers (winent_memory_io; NULL: from the source, to
     * the sink) and the steps between rows of every chunk's rows and map:
     * the caller's in a memory job, else the packed rows of our buffers. */
    const uint8_t *mem_in;
    float *mem_out;
    size_t mem_in_stride;        /* the caller's steps between rows: bytes */
    size_t mem_out_stride;       /* ... and floats */
    /* Where GPUs may compute, a memory job is staged: its chunks own their
     * buffers (pinned for the GPUs once, reused), the pool copies the
     * caller's input rows in (fill_in, FILLING) and the output rows out
     * (store_mem); the caller's buffers are never pinned (pinning 6 GB
     * took 0.3-0.6 s, more than computing it; docs/PERFORMANCE.md). */
    int fill_in, store_mem;
    /* Every chunk staged: GPUs named, or the caller's rows not packed.
     * Else (auto) only the chunks read once the GPUs are launched: the CPU
     * computes the others in place, as --device cpu does (staging cost a
     * CPU-only auto job 35-45 % on the 2-core machine). */
    int stage_all;
    /* Computed rows are stored at their place by the pool, several pieces
     * at once: store_mem, or a raw map to files (pwrite by offset). */
    int store_out;
    int fill_rows, store_rows;   /* rows per piece of those copies */
    uint64_t mem_budget;         /* --mem, or WINENT_MEM_DEFAULT (raised, when
                                    automatic, to what the threads need) */
    int mem_auto;                /* no --mem given: the budget may grow */
    size_t rows_stride;          /* bytes */
    size_t map_stride;           /* floats */
    const float *stage_map;      /* WINENT_STAGE_ENCODE's input */
    const winent_plan *first_plan; /* the first map's */
    int nbands;                  /* input bands read: planes of a chunk's rows */
    int nmaps;                   /* maps: nbands x windows, band-major */
    job_map *maps;               /* owned */
    const winent_plan **band_plan; /* owned array: a plan of each band (for counting) */
    winent_sink_map *sink_maps;  /* owned: the maps as the sink sees them */
    int ry;                      /* the largest window's half height: the chunks' halo */
    size_t plane_bytes;          /* one band's input rows in a chunk */
    size_t map_plane;            /* floats of one map's output rows in a chunk */
    int count_clamps;            /* count the samples clamped into the end bins */
    int count_rows;              /* rows per counting piece */
    int want_preview;            /* --preview in a whole job */
    int taps_after;              /* WINENT_PREVIEW_AFTER=1 (tests): CPU chunks
                                    too go to the taps after compute, not by band */
    /* What a tap holds for `rows` map rows in flight (--mem's count of a
     * chunk; NULL: nothing): the preview's open rows. */
    struct {
        uint64_t (*bytes)(const void *ctx, uint64_t rows);
        const void *ctx;
    } tap_rows;
    winent_preview_opts preview_opts;
    char preview_text[WINENT_MSG_LEN]; /* its PNG's Description */
    int width, height;
    size_t sample, row_bytes;
    int chunk_rows, unit_rows, band_rows;
    int parts;                   /* pieces of a unit that encode alone (GeoTIFF tiles) */
    uint64_t unit_extra;         /* bytes the sink adds to each encoded unit */
    winent_format format;
    int raw_floats;              /* the sink writes the float rows as they are */
    int encodes;                 /* computed chunks have units to encode */
    int threads;                 /* the worker pool */
    int auto_device;             /* --device auto */
    int want_cpu;                /* the CPU engine computes */
    int ngpus;                   /* GPUs named (list or gpu); auto: found later */
    int gpu_ids[WINENT_MAX_GPUS];
    int gpu_slots, cpu_slots;
    uint64_t chunk_bytes; /* one chunk's buffers */
} job_plan;

#endif
