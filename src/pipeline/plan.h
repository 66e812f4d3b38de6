/* SPDX-License-Identifier: BSD-3-Clause */
/* plan.h - the job's plan (pipeline/ only): the options resolved once,
 * before any thread starts, by pure functions (plan.c) of the options and
 * of plain descriptors of what setup opened (job_host, job_source_info,
 * job_sink_info): they open nothing and allocate nothing, so a test is a
 * table of cases (test_plan). Setup (pipeline.c, setup_*.c) opens, fills
 * the descriptors, asks the plan and executes it; every room of the
 * pipeline then reads it as `const job_plan *`, without the lock, and no
 * longer the options. */
#ifndef WINENT_PLAN_H
#define WINENT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "devices.h"
#include "kernels/engine_cpu.h"
#include "pipeline_bench.h"
#include "switches.h"
#include "tiles/sink.h"
#include "tiles/georef.h"
#include "tiles/sinks/preview.h"

/* The host memory budget when none is given (mem_bytes 0). */
#define WINENT_MEM_DEFAULT ((uint64_t)1 << 30)
/* Host memory a GPU's context takes, counted against --mem. */
#define WINENT_GPU_HOST_BYTES ((uint64_t)128 << 20)

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

/* The memory plan's terms at one chunk height: what --mem must hold. */
typedef struct job_mem_terms {
    uint64_t held, fixed; /* what the source holds; the threads, preview, writer, GPUs */
    uint64_t per;         /* bytes per chunk */
    int need;             /* chunks needed at least */
    uint64_t preview;     /* the preview's image (at most half the budget), or 0 */
    uint64_t reader;      /* what the reader needs in its quarter (its mem_short), or 0 */
} job_mem_terms;

/* The job's plan: the options resolved once (geometry, maps, devices,
 * memory budget, switches, stage, what the input and output are). Filled
 * by winent_job_plan_start and winent_job_plan (plan.c) before any thread
 * starts and never written after: the rest of the room reads it as
 * `const job_plan *`, without the lock. */
typedef struct job_plan {
    winent_switches sw; /* the debug switches, read once */
    /* The caller's hooks (winent_job_opts'): the writer reports through
     * them; release_gpus: a process that is the job's alone. */
    void (*on_progress)(void *user, const winent_progress *p);
    void (*on_notice)(void *user, const char *line);
    void *user;
    int release_gpus;
    int decoding;                /* a --decode job: the maps of a .zst file */
    winent_stage stage;
    /* A memory job's buffers (winent_memory_io; NULL: from the source, to
     * the sink) and the steps between rows of every chunk's rows and map:
     * the caller's in a memory job, else the packed rows of our buffers. */
    const uint8_t *mem_in;
    float *mem_out;
    size_t mem_in_stride;        /* the caller's steps between rows: bytes */
    size_t mem_out_stride;       /* ... and floats */
    size_t mem_out_plane;        /* floats between the caller's maps (several
                                    measures: height x mem_out_stride) */
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
    job_map *maps;               /* the job's (job_source_info's) */
    const winent_plan **band_plan; /* a plan of each band (for counting) */
    int ry;                      /* the largest window's half height: the chunks' halo */
    size_t plane_bytes;          /* one band's input rows in a chunk */
    size_t map_plane;            /* floats of one map's output rows in a chunk */
    int count_clamps;            /* count the samples clamped into the end bins */
    /* A majority of integer classes in a float output that holds every
     * integer only up to this magnitude (float16 2^11, float32 2^24) where
     * the input's type reaches past it: the counts check every sample
     * against it, and a class past it fails the job (its map would round
     * classes together). 0: no check. */
    double class_limit;
    winent_words words;          /* the options' words, for what the run says */
    int range_auto;              /* ... of a range taken from the data (--range auto) */
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
    winent_preview_opts preview_opts; /* its stop and temps: setup's to lend */
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
    /* What a chunk owns (the input's and the output's picks, input.c and
     * output.c, from the fields above): its input rows, its float rows. */
    int own_rows, own_map;
    /* The ring (ring.c): chunks of the job; buffers at most (auto: with
     * room for GPUs that may come); within --mem; the fewest that work;
     * the most at full speed. */
    int nchunks, n_max, n_fit, n_need, n_limit;
    /* --mem cannot hold the smallest chunks (winent_job_plan said so):
     * their rows and the terms, for setup's advice (the least --mem). */
    int64_t short_rows;
    job_mem_terms short_terms;
    uint64_t machine_bytes;      /* job_host's */
} job_plan;

/* ---- What the plan is made of ------------------------------------------ */

/* Where the job runs and what its caller gave beside the options: read
 * by setup before anything is opened. */
typedef struct job_host {
    winent_stage stage;
    const float *stage_map;      /* WINENT_STAGE_ENCODE's input */
    const winent_memory_io *mem; /* a memory job's buffers; NULL: source to sink */
    int cores;                   /* the machine's: the pool without --threads (0 with them) */
    uint64_t machine_bytes;      /* its memory: without --mem the budget grows
                                    as far as half of it */
    winent_switches sw;
    /* --device as picked by setup (the GPUs named are there) */
    int want_cpu, auto_device, ngpus;
    int gpu_ids[WINENT_MAX_GPUS];
} job_host;

/* What setup found of the input and made of the maps. */
typedef struct job_source_info {
    int width, height;
    int nbands;                  /* bands read (1 without a source) */
    const winent_georef *georef; /* the input's (the preview's world file); NULL: none */
    uint64_t mem_held;           /* what the source holds out of --mem (GDAL's cache) */
    uint64_t mem_short;          /* what its reader lacks in its quarter of --mem */
    /* A memory job on GPUs named: its buffers are the caller's pinned
     * memory (setup asks the GPUs' driver only then). */
    int mem_pinned;
    /* The maps, nbands x windows, band-major: each one's options
     * (winent_job_plan_band, winent_job_plan_map_entry) and its kernels'
     * plan, made by setup; owned by the job, borrowed by the plan. */
    job_map *maps;
    int nmaps;
    const winent_plan **band_plan; /* the plan of each band's first map (the job's) */
    int range_auto;              /* the bands' range is taken from their data */
} job_source_info;

/* What the sink says of itself, opened (or, where none is written, of
 * its options). */
typedef struct job_sink_info {
    int opened;                  /* a sink is written */
    winent_format format;
    int unit_rows;               /* rows of an encoded unit */
    int parts;                   /* pieces of a unit that encode alone */
    int takes_floats;            /* it writes the float rows as they are */
    int writes_at;               /* ... at their offset, from any thread */
    uint64_t encoder_bytes;      /* one encoder's state */
    uint64_t writer_bytes;       /* the writer's side (a COG's overviews) */
    uint64_t unit_extra;         /* bytes it adds to each encoded unit */
} job_sink_info;

/* What reading the input needs of the plan: the stage, the switches, the
 * threads, the budget, the devices, a memory job's steps between rows, and
 * whether chunks copy the caller's rows in and out. Usage errors: a memory
 * job without its input, rows too close together. */
winent_status winent_job_plan_start(const winent_job_opts *o, const job_host *h, job_plan *pl,
                                    winent_err *err);
/* A band's options: the job's, with the source's type and the band's
 * nodata (`band` NULL: the options' alone); a --decode job's: 1 x 1. */
void winent_job_plan_band(const winent_job_opts *o, int decoding, winent_dtype dtype,
                          const winent_source_band *band, winent_compute_opts *co);
/* Map entry `e` of winent_setup_windows (kx, ky, disk, measure) into `co`. */
void winent_job_plan_map_entry(const winent_job_opts *o, const int *e, winent_compute_opts *co);
/* The whole plan, once the input, the maps and the sink are known:
 * winent_job_plan_start's, then the devices, the rows and their steps, the
 * output's pieces, the preview, the counting and the chunks within --mem.
 * Errors: winent_job_plan_start's. --mem (or, without it, the machine)
 * too small for the smallest chunks is not one: short_rows > 0 and
 * short_terms say so, and setup words the advice (it may open the input
 * again to find the least --mem). */
winent_status winent_job_plan(const winent_job_opts *o, const job_host *h,
                              const job_source_info *src, const job_sink_info *snk, job_plan *pl,
                              winent_err *err);

/* tap_preview.c: the preview's open rows in the plan (plan->tap_rows,
 * after plan->preview_opts), which a chunk's count holds. */
void winent_tap_preview_plan(job_plan *pl);

/* Bytes of one band's input rows for chunks of `rows` output rows (a
 * multiple of 64: every plane as aligned as the first), and of one chunk:
 * input rows of every band, float rows of every map, encoded units
 * (counted half as large as the floats, plus what the sink adds to each),
 * what a tap holds for them. */
/* The maps from map m the CPU computes in one pass: the run of maps of
 * m's band whose plans winent_cpu_engine_can_share (1: m alone). */
int winent_plan_group_len(const job_plan *pl, int m);
uint64_t winent_plan_plane_bytes(const job_plan *pl, uint64_t rows);
uint64_t winent_plan_chunk_bytes(const job_plan *pl, uint64_t rows);
/* The room --mem leaves the chunks (less what the source holds, at most a
 * quarter, and the fixed terms), and whether a budget holds the terms. */
uint64_t winent_plan_chunk_room(uint64_t budget, uint64_t held, uint64_t fixed);
int winent_plan_budget_fits(const job_mem_terms *t, uint64_t budget);

/* Whether the pool counts the input's samples (the clamps, or the
 * classes' check). */
static inline int winent_plan_counts(const job_plan *pl)
{
    return pl->count_clamps || pl->class_limit > 0.0;
}

#endif
