/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pipeline_internal.h - the job's shared state (pipeline/ only).
 *
 *   reader ──► READY ──► engines (one driver body each, behind engine_ops:
 *   (1 thread)  chunks    the CPU engine posts bands to the worker pool,
 *                         each GPU runs its chunks on streams)
 *                 ──► ENCODING (units, on the worker pool) ──► DONE ──► writer
 *                                                                  (calling thread:
 *                                                                   in order, then FREE)
 *
 * One worker pool of --threads threads runs every piece of CPU work: decode
 * items the reader posts (TIFF blocks), bands of chunks the CPU engine
 * computes, units to encode. Several maps (input bands x windows) ride in
 * one chunk: its input rows hold a plane per band read, its output rows a
 * plane per map, and computing a chunk (or a band of its rows, or a GPU's
 * tail of them) computes every map of those rows. Chunks are the unit of
 * sharing between engines:
 * the CPU and every GPU claim READY chunks from the same queue, each at its
 * own pace. All scheduling state lives under one lock (`lock`); buffers are
 * allocated when first needed, up to the ring's `n_max` chunks (job_ring,
 * ring.c), and reused hot.
 */
#ifndef WINENT_PIPELINE_INTERNAL_H
#define WINENT_PIPELINE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "base/bytes.h"
#include "base/werr.h"
#include "kernels/engine_cpu.h"
#include "kernels/engine_cuda.h"
#include "kernels/range_count.h"
#include "pipeline_bench.h"
#include "clock.h"
#include "decide.h"
#include "pool.h"
#include "devices.h"
#include "report.h"
#include "switches.h"
#include "trace.h"
#include "plan.h"
#include "job_chunk.h"
#include "tiles/sinks/preview.h"
#include "tiles/sink.h"
#include "tiles/source.h"
#include "tiles/formats/zst_reader.h"

#define WINENT_MAX_ENGINES (WINENT_MAX_GPUS + 1)


typedef struct stage_clock {
    double busy_s, wait_s;
} stage_clock;

/* What the job measures as it runs: its stages' times, the CPU's and the
 * pool's rates (the claims' and the launches' snapshots read them). Under
 * the job's lock: the pool's workers add theirs as tasks end, the reader
 * its times, the engines' drivers the first submit. */
typedef struct job_meter {
    stage_clock read_clock, compute_clock, encode_clock;
    double first_submit_s;  /* when the first chunk went to an engine */
    double first_band_s;    /* when the first CPU band started */
    int first_band_rows;    /* its height */
    double band_px, band_s; /* CPU bands done: pixels, seconds (summed) */
    int bands_done;
    double enc_px, enc_s;   /* pieces encoded: pixels, seconds (summed) */
    double store_s;         /* the pool's time storing */
} job_meter;

typedef struct pipeline pipeline;

/* Pinning host buffers for the GPUs' copies: the GPU engine's hooks
 * (devices.c), lent to the chunks' buffers (ring.c). */
typedef struct winent_host_pin {
    int (*pin)(void *ptr, size_t bytes); /* 0: pinned */
    void (*unpin)(void *ptr);            /* accepts NULL */
} winent_host_pin;

/* What an engine is: the claims, the pool's tasks, the launch policy and
 * the job's figures read these, never the device number. */
typedef enum engine_kind {
    ENGINE_CPU, /* the host's cores: computes on the worker pool */
    ENGINE_GPU  /* a device: its own context, copies to and from the host */
} engine_kind;

/* What every engine implements: the pipeline's one driver body calls them.
 * create runs on the engine's driver thread; submit starts a chunk on a
 * slot and returns; wait returns when that slot's chunk is computed (*done
 * = 1), or, when `may_claim` and the engine would take another chunk that
 * is there to take, earlier with *done = 0 (the CPU: before its workers run
 * out of bands). */
typedef struct engine_ops {
    const char *name; /* its engines' names: this, and the device number */
    engine_kind kind;
    /* It computes a chunk as bands on the worker pool: each band counts
     * its input rows' clamped samples and adds its rows to the preview
     * while its rows are in cache. */
    int bands;
    /* Another engine may take over the bands of its chunks that no worker
     * has started (the chunk's tail), or a chunk it claimed and has not
     * started at all. */
    int gives_tails;
    /* It takes over such tails and unstarted chunks. */
    int takes_tails;
    /* Its claims' declines may change with time alone: a blocking claim
     * looks again this often (0: when a chunk changes state). */
    int recheck_ms;
    /* Host memory its context takes, counted against --mem (0: none). */
    uint64_t host_bytes;
    /* Lock held: its rate in pixels a second, measured (0: not known yet). */
    double (*rate)(const struct engine *e, const struct job_plan *pl, const job_meter *m);
    winent_status (*create)(struct engine *e, winent_err *err);
    winent_status (*submit)(struct engine *e, int slot, chunk *c, winent_err *err);
    winent_status (*wait)(struct engine *e, int slot, chunk *c, int may_claim, int *done,
                          winent_err *err);
    void (*destroy)(struct engine *e);
    /* Lock held: 1 when another chunk in flight would keep it busier (the
     * CPU: fewer bands waiting than workers); slots bound it anyway. */
    int (*wants_more)(const struct engine *e);
    /* On its driver thread after destroy (lock not held; NULL: nothing):
     * a GPU's end (unpinning the buffers, releasing its device). */
    void (*end)(struct engine *e);
    /* Host buffers this engine copies from and into: pinned for it (0:
     * pinned) and unpinned (NULL accepted). NULL where it needs none (the
     * CPU). */
    int (*pin)(void *ptr, size_t bytes);
    void (*unpin)(void *ptr);
} engine_ops;

typedef struct engine {
    const engine_ops *ops;
    pipeline *p;           /* borrowed */
    int device;            /* its device's number (-1: none); engines_*.c alone read it */
    int slots;             /* chunks in flight */
    void *state;           /* owned by ops: the GPU engine; NULL for the CPU */
    char name[16];         /* "cpu", "gpu0" */
    /* Under p->lock. */
    int live;              /* created and taking chunks */
    int inflight;
    int64_t pixels_inflight;
    uint64_t pixels_done;
    int64_t chunks_done;
    double busy_s;         /* time with at least one chunk in flight */
    double busy_since;
    pthread_t thread;      /* its driver */
    int started;           /* the driver thread runs (join it) */
    int finished;          /* a GPU: its driver has freed its state */
    int failed;            /* ... after a failure */
    uint64_t first_px;     /* pixels_done and busy_s at its first chunk's end */
    double first_busy_s;
} engine;

/* A tap: one output of the job's maps, the sink's (output.c) or the
 * preview (tap_preview.c), behind one interface; the job holds them as a
 * list (taps[0] the output). The queue asks each for its pieces of a
 * computed chunk, the pool runs them, the writer hands each tap every
 * chunk in order, then finishes every tap and commits every tap, in the
 * list's order (a file appears only once every tap has finished). */
typedef struct winent_job_tap winent_job_tap;
struct winent_job_tap {
    const char *kind;
    int stores; /* its pieces store rows (the meter counts them apart from encoding) */
    /* Lock held, chunk c computed: how many pieces of it the pool runs. */
    int (*pieces)(const winent_job_tap *t, const chunk *c);
    /* A pool worker: piece k of chunk c; *scratch the worker's own for
     * this tap (NULL at first; freed by scratch_free at the worker's end). */
    winent_status (*piece)(const winent_job_tap *t, void **scratch, chunk *c, long k,
                           winent_err *err);
    /* A pool worker: a CPU band's rows [ya, yb) of c, just computed and in
     * cache (NULL: the tap takes pieces only). */
    winent_status (*band)(const winent_job_tap *t, void **scratch, const chunk *c, int ya, int yb,
                          winent_err *err);
    void (*scratch_free)(const winent_job_tap *t, void *scratch); /* NULL: none */
    /* The writer thread: chunk c, in order; then, after the last, finish
     * and commit (NULL: nothing to do). */
    winent_status (*write)(winent_job_tap *t, const chunk *c, winent_err *err);
    winent_status (*finish)(winent_job_tap *t, winent_err *err);
    winent_status (*commit)(winent_job_tap *t, winent_err *err);
    /* After the threads: frees what it owns (`failed`: removes its
     * temporary files first); NULL where the job owns it. */
    void (*close)(winent_job_tap *t, int failed);
};

/* What the job reads, behind one interface (input.c), chosen once at
 * setup (winent_input_open): the source, the caller's memory (in place or
 * staged), a .zst map (--decode), or the map the encode stage is given.
 * The reader (stages.c) and the pool (tasks.c) only call it. */
typedef struct winent_job_input winent_job_input;
struct winent_job_input {
    const char *kind;
    int own_rows; /* the chunks own buffers of input rows (ring.c) */
    /* Reader thread, before the output places the chunk's map: 1 when
     * chunk c is staged (its rows and map its own buffers, copied in and
     * out by the pool). `launched`: the GPUs have been asked for. */
    int (*stages)(const winent_job_input *in, int launched);
    /* Reader thread: chunk c's input (its rows, or the rows of its maps),
     * its geometry and map set; *next: its state once read (READY,
     * FILLING, ENCODING or DONE). On failure *next is left alone. */
    winent_status (*read)(winent_job_input *in, chunk *c, chunk_state *next, winent_err *err);
    /* A pool worker: piece k of a FILLING chunk's input rows. */
    void (*fill)(const winent_job_input *in, chunk *c, long k);
    const struct job_plan *plan; /* borrowed: the plan (read-only) */
    winent_source *source;       /* borrowed: the source (reader thread only) */
    winent_zst_reader *map_in;   /* borrowed: --decode's map (reader thread only) */
    void *state;                 /* owned by its kind (input.c) */
};

/* Where the maps go, behind one interface (output.c), chosen once at
 * setup (winent_output_open): a sink (units encoded by the pool, raw
 * floats from the writer, or raw floats the pool stores by offset), the
 * caller's memory, the encode stage's count of bytes, or nowhere (a stage
 * alone). The reader, the queue (sched.c), the pool and the writer only
 * call it. */
typedef struct winent_job_output winent_job_output;
struct winent_job_output {
    winent_job_tap tap; /* first: the output is the job's first tap (its
                           pieces encode units or store rows) */
    int own_map; /* the chunks own buffers of output rows (ring.c) */
    int units;   /* the chunks' maps are encoded into units by the pool */
    /* Reader thread: where chunk c's maps are computed (c->map). */
    void (*place)(const winent_job_output *out, chunk *c);
    const struct job_plan *plan; /* borrowed: the plan (read-only) */
    winent_sink *sink;           /* borrowed: encoders (pool) and writer */
    uint64_t bytes;              /* the encode stage: bytes encoded (writer thread) */
};

/* The engine set (engines.c): the engines and their drivers. Under the
 * job's lock once the threads run: setup and the policy (policy.c) add
 * engines (winent_engine_add), the drivers and the claims (sched.c) change
 * each engine's counts. */
typedef struct engine_set {
    engine engines[WINENT_MAX_ENGINES];
    int nengines;
    int launching; /* auto: the policy may still add GPUs */
} engine_set;

/* What the policy (policy.c, --device auto) decides and publishes. Under
 * the job's lock; written by policy.c alone, read by the rest. */
typedef struct job_policy {
    int gpu_launch;     /* the GPUs have been asked for (1), the CPU alone
                           is quick enough (-1), not yet decided (0) */
    int max_cpu_bands;  /* CPU bands in flight at most (0: no limit): a
                           share of the threads while the first GPU starts */
    double cpu_alone_s; /* the CPU alone's time for the job, as the policy
                           saw it (its best case, or measured) */
    pthread_t thread;   /* its thread (auto only) */
    int started;
} job_policy;

/* The chunks' ring (ring.c): their descriptors (states, claims, each
 * chunk's fields), how many have buffers and may have, and the pinning of
 * those buffers for the GPUs. Its lock is the job's one lock (`lock`,
 * borrowed, as the report and the pool hold it): every field below
 * "Under *lock" and every chunk's state and claim change under it. The
 * reader makes and fills chunks, the engines' drivers claim them
 * (sched.c), the pool encodes them, the writer frees them. */
typedef struct job_ring {
    /* Set up before the threads start, read-only afterwards. */
    chunk *chunks; /* owned: n_max descriptors */
    int n_max;
    int nchunks;                  /* chunks of the job */
    int n_need;                   /* the fewest chunks that can work */
    winent_host_pin pin;          /* the GPU engine's hooks */
    const struct job_plan *plan;  /* borrowed */
    const winent_job_input *in;   /* borrowed: what a chunk owns (own_rows) */
    const winent_job_output *out; /* borrowed: ... (own_map, units) */
    winent_job_tap *const *taps;  /* borrowed: the job's taps (set before the threads) */
    int ntaps;
    pthread_mutex_t *lock;        /* borrowed: the job's one lock */
    pthread_cond_t *state_cv;     /* borrowed: a chunk changed state */
    pthread_cond_t *work_cv;      /* borrowed: a task for the pool */
    volatile int *stop;           /* borrowed: the job's stop flag (STOPPED) */
    /* Under *lock. */
    int n_fit;           /* chunks --mem holds (less the GPUs' contexts) */
    int n_made;          /* chunks with buffers */
    int n_limit;         /* at most this many (grows as auto GPUs come up) */
    int reader_done;     /* no chunk will be read any more */
    int gpus_registered; /* new buffers must be pinned as they are made */
    int gpus_finished;   /* no GPU computes any more: nothing is pinned
                            again, pinned pages are being released */
    int gpus_unpinned;   /* ... and they are */
    int pinning;         /* the reader is pinning a new chunk's buffers */
} job_ring;

/* The job: its objects side by side, each with its owner (docs/
 * ARCHITECTURE.md, "The pipeline room"). The thread entry points (reader,
 * writer, the pool's callbacks, the drivers) are handed it; the claims
 * (sched.c), the input, the output and the ring only the objects they use. */
struct pipeline {
    job_plan plan;               /* setup's; read-only once the threads start */
    job_ring ring;               /* the chunks (ring.c; under `lock`) */
    engine_set set;              /* the engines (engines.c; under `lock`) */
    job_policy policy;           /* auto's decisions and limits (policy.c; under `lock`) */
    /* Opened by setup; the pointers read-only once the threads start. */
    winent_trace *trace;         /* owned; NULL without WINENT_TRACE */
    winent_source *source;       /* reader thread only */
    winent_zst_reader *map_in;   /* --decode: the .zst map read (reader thread only) */
    winent_sink *sink;           /* encoders (encode) and writer (write) */
    winent_job_input in;         /* what the job reads (input.c; set up once) */
    winent_job_output out;       /* where its maps go (output.c; set up once) */
    winent_job_tap *taps[WINENT_MAX_TAPS]; /* the output's (taps[0], once
                                    open), then the preview's (owned) */
    int ntaps;
    saturation *saturated;       /* owned, one per map; NULL: not counted (no
                                    notice callback, --decode, memory jobs).
                                    The writer thread adds each chunk as it
                                    retires; run_job reads it after the join */
    winent_parallel par_hook;    /* the source's decoding runs on the pool */

    /* Shared, under `lock`. */
    pthread_mutex_t lock;
    pthread_cond_t work_cv;      /* pool workers: a task may be there */
    pthread_cond_t state_cv;     /* reader, drivers, writer: a chunk changed state */
    winent_report report;        /* the first error, the notices (report.h; under `lock`) */
    winent_pool pool;            /* the worker pool (pool.h), borrowing `lock` */
    job_meter meter;             /* rates and times measured (under `lock`) */
    int bands_running;           /* CPU bands handed to the pool, not yet done */
    winent_clamp_counts *clamps; /* owned, per band: samples clamped so far (the
                                    workers add theirs) */
    char (*range_from)[160];     /* owned, per band: where its range came from (set
                                    before the threads) */

    winent_tempnames *temps;     /* borrowed, may be NULL: the job's temporary names */
    volatile int *stop;          /* borrowed: the job's stop flag (pipeline_bench.h:
                                    WINENT_STOP_*), raised with the first error
                                    or by winent_job_cancel; atomic access only
                                    (STOPPED, CANCELLED): a signal handler,
                                    other threads and the sources read and
                                    write it without the lock */
};

/* Trace lanes: the reader, the writer, engine i's driver, then pool
 * worker w's. */
#define LANE_READER 0
#define LANE_WRITER 1
#define LANE_ENGINE(p, e)     (2 + (int)((e) - (p)->set.engines))
#define LANE_WORKER(w) (2 + WINENT_MAX_ENGINES + (w))
#define WINENT_TRACE_LANES(p) (2 + WINENT_MAX_ENGINES + (p)->plan.threads)

#define STOPPED(p)   (__atomic_load_n((p)->stop, __ATOMIC_RELAXED) != 0)
#define CANCELLED(p) (__atomic_load_n((p)->stop, __ATOMIC_RELAXED) == WINENT_STOP_CANCEL)

/* sched.c: the chunk queue: claims and the chunks' compute states, each
 * call handed the ring, the plan and, for the claims, the meter and the
 * engine set (`e` one of es's engines). */
/* Claim the next READY chunk for `e` (lock held). `block`: wait for one.
 * A GPU with nothing READY takes over a chunk the CPU has claimed but not
 * started. NULL: none now (not blocking), or none will come. */
chunk *winent_sched_claim_locked(job_ring *r, const job_plan *pl, const job_meter *m,
                                 const engine_set *es, engine *e, int block);
/* The CPU's rate on `threads` workers, pixels a second, from the meter's
 * bands (0: not known yet; lock held): from the bands done, else, while
 * the first bands run, an upper bound from how long they have run. */
double winent_sched_cpu_rate(const job_meter *m, int width, int threads);
/* 1 when `e` would get a chunk from a claim now (lock held). */
int winent_sched_can_claim_locked(job_ring *r, const job_plan *pl, const job_meter *m,
                                  const engine_set *es, const engine *e);
/* Engine `e` has computed its part of chunk `c`: the whole chunk, or the
 * CPU's bands and a GPU's tail of a chunk shared that way (lock held). */
void winent_sched_computed_locked(job_ring *r, const job_plan *pl, chunk *c, engine *e);
/* A GPU gives back the tail of chunk `c` it took from the CPU (it failed
 * before computing it; lock held): the CPU's bands cover it again, or, when
 * the CPU is done with its own part, the whole chunk goes back to the queue. */
void winent_sched_return_tail_locked(job_ring *r, const job_plan *pl, chunk *c, engine *e);
/* Clamp counting: have the pool's workers count chunk c's rows from
 * `from` on (a GPU computes them), unless they are posted already (lock
 * held). */
void winent_sched_post_counts_locked(job_ring *r, const job_plan *pl, chunk *c, int from);

/* engines_cpu.c, engines_gpu.c: the engines' tables. */
extern const engine_ops winent_cpu_engine_ops;
extern const engine_ops winent_gpu_engine_ops;
/* Every GPU's driver started has ended and no other can come (lock held). */
int winent_engines_gpus_finished_locked(const engine_set *es);
/* engines.c: the engine set and the one driver body. */
/* The next of p->set's engines (nengines grows by one) for `device` (-1: the
 * CPU), cleared and named "cpu" or "gpuN"; the caller starts its driver.
 * NULL when the table is full. Under the lock once threads run. */
engine *winent_engine_add(pipeline *p, const engine_ops *ops, int device, int slots);
void *winent_engine_driver(void *arg); /* arg: engine */

/* policy.c: --device auto's policy, on a thread of its own: it judges from
 * the CPU engine's best case (at once, then on the first chunk's data) and
 * from the meter's measured rate whether the GPUs pay, brings them in, and
 * publishes p->policy. Nothing without auto. Lock not held. */
void winent_policy_start(pipeline *p);
void winent_policy_join(pipeline *p);

/* input.c: the job's input picked from the plan (the caller's memory, a
 * .zst map, the encode stage's map, else the source); after the
 * geometry. winent_input_close frees what it holds (accepts a zeroed
 * one). */
winent_status winent_input_open(const job_plan *plan, winent_source *source,
                                winent_zst_reader *map_in, winent_job_input *in, winent_err *err);
void winent_input_close(winent_job_input *in);

/* output.c: the job's output picked from the plan (the sink's kind, the
 * caller's memory, the stage); after the sink is open. */
void winent_output_open(const job_plan *plan, winent_sink *sink, winent_job_output *out);

/* tasks.c: the job's work on the pool (its callbacks, ctx p). */
winent_pool_work winent_tasks_work(pipeline *p);

/* stages.c: reader and writer. */
void *winent_stage_reader(void *arg);
void winent_stage_write_in_order(pipeline *p, winent_job_stats *stats, double t_start);

/* range_auto.c: --range auto, before the plans are made: cos[b].range_lo/hi
 * (and bins, 256 when 0) of each of the `nbands` bands read, from the
 * source's recorded statistics, else from one first pass over the bands
 * without (p->source and p->threads set; a memory job's buffer is
 * scanned). p->range_from[b] says which. A stream without statistics is
 * WINENT_ERR_USAGE. */
winent_status winent_range_auto(pipeline *p, const winent_job_opts *o, winent_compute_opts *cos,
                                int nbands, winent_err *err);
/* 1 when the input `path` (read by the source of `info`) can be opened a
 * second time: a regular file, never a pipe or standard input. */
int winent_can_read_twice(const char *path, const winent_source_info *info);
/* The notice of a float band that took --range auto by default: the range
 * found and where from (the output's metadata records it too), of each of
 * `nbands` bands. */
void winent_range_default_notice(const pipeline *p, const winent_job_opts *o,
                                 const winent_compute_opts *cos, int nbands);

/* The notice of an input of several bands read for band 1 alone (no
 * --band given; `mask_band`: one of them is GDAL's mask, not data): what
 * maps the others is said, never are they dropped silently. */
void winent_other_bands_notice(const winent_job_opts *o, int bands, int mask_band,
                               const char *name);

/* job_opts.c: --device ("auto", NULL too; "cpu"; "gpu"; a list of "cpu"
 * and GPU numbers) as `l` (devices.h); usage errors for its syntax only
 * (whether the GPUs are there is the run's to find out). */
winent_status winent_device_list_parse(const char *d, winent_device_list *l, winent_err *err);

/* 1 when job `o` takes a band of type `t`'s range from the data: --range
 * auto, or a float band given no range (float input's default, with 256
 * bins unless --bins says). */
int winent_job_range_auto(const winent_job_opts *o, winent_dtype t);

/* The refusal of a majority whose input holds `value`, a class past the
 * float output's exact integers (winent_class_limit): its map would round
 * classes together. Every door says it in its words. */
winent_status winent_job_refuse_classes(double value, double limit, winent_words w,
                                       winent_err *err);

/* --decode --ot: each map of a .zst (its header's measure and source type)
 * against output type `t`, as a job checks its maps. */
struct winent_zst_map;
winent_status winent_job_check_decode_types(const struct winent_zst_map *z, winent_out_type t,
                                           winent_words w, winent_err *err);

/* The refusal of a float16 output for a majority whose classes, of
 * `source` samples, can pass float16's exact integers, where the samples
 * are not read (a decode). */
winent_status winent_job_refuse_class_type(winent_dtype source, winent_words w,
                                          winent_err *err);

/* A majority of integer values in integer samples (--ot uint8/uint16):
 * refused where the output's top (`output_top`: the largest value of any
 * of its maps, which sets the codes' one scale) passes the type's largest
 * code, since classes would then share codes. */
winent_status winent_job_check_class_codes(winent_out_type t, const winent_compute_opts *c,
                                          double output_top, winent_words w, winent_err *err);
/* Usage error where --ot `t` cannot hold map `c`'s values (negative ones
 * in unsigned codes, past 65504 in float16, classes sharing codes): job_opts.c. */
winent_status winent_job_check_map_type(winent_out_type t, const winent_compute_opts *c,
                                        int dtype_known, int range_known, winent_words w,
                                        winent_err *err);

/* job_opts.c: winent_job_opts_validate with an internal error; `devices`
 * (may be NULL): --device as parsed, for the run (parsed once). */
winent_status winent_job_check(const winent_job_opts *o, winent_device_list *devices,
                               winent_err *err);

/* pipeline.c: winent_run_stage with --device parsed already (`devices`,
 * from winent_job_check; NULL: the run parses it). */
winent_status winent_run_job(const winent_job_opts *o, winent_stage stage,
                             const winent_memory_io *mem, const float *map, winent_run_ctl *ctl,
                             const winent_device_list *devices, winent_job_stats *stats,
                             winent_err *err);

/* ring.c: chunk c's pieces for the pool, asked of each of r's taps, the
 * count of each and their sum (ntasks), none handed out yet (lock held). */
void winent_chunk_pieces_locked(const job_ring *r, chunk *c);
/* The tap of chunk c's piece k, and its number among that tap's pieces. */
int winent_chunk_piece_tap(const chunk *c, long k, long *local);

/* tap_preview.c: the preview as a tap (its rows' memory in the plan:
 * winent_tap_preview_plan, plan.h). Its files into the job's guard (its
 * legend, world and PAM files too); the tap, open. */
winent_status winent_tap_preview_guard(const char *path, winent_file_guard *g, winent_err *err);
winent_status winent_tap_preview_open(const job_plan *pl, int64_t rows_in_flight,
                                      winent_job_tap **out, winent_err *err);

/* ring.c: the chunks' ring (job_ring) and their buffers: what a chunk
 * owns is the input's and the output's to say (own_rows, own_map, units),
 * as the plan counted it (winent_plan_chunk_bytes, plan.h). */
/* Pin chunk `c`'s own buffers (rows, map) through `h`: 1 when both are
 * pinned, 0 when they could not be (none is left pinned; unpinned memory
 * still works, with slower copies). Lock not held. */
int winent_chunk_pin(const winent_host_pin *h, const chunk *c);

/* Buffers of chunk `c`, made on first use and pinned when the GPUs
 * compute (r->pin; lock not held). */
winent_status winent_chunk_buffers(job_ring *r, chunk *c, winent_err *err);
/* Its buffers freed (unpinned where pinned); after the threads. */
void winent_chunk_free(const job_ring *r, chunk *c);
/* Lock held from here on. The first chunk in state `st`; the oldest (by
 * seq). NULL: none. */
chunk *winent_ring_find_locked(job_ring *r, chunk_state st);
chunk *winent_ring_oldest_locked(job_ring *r, chunk_state st);
/* The writer: chunk `seq` once computed, encoded and its rows counted
 * (NULL: not yet); then, written, FREE again for the reader. */
chunk *winent_ring_done_locked(job_ring *r, int64_t seq);
void winent_ring_release_locked(job_ring *r, chunk *c);
/* The reader: a FREE chunk, else a new one (UNUSED: *fresh = 1, its
 * buffers still to make) while the counts allow, now READING; NULL: wait
 * for the writer to free one. */
chunk *winent_ring_take_locked(job_ring *r, int *fresh);
/* A new chunk whose buffers could not be made: UNUSED again, uncounted. */
void winent_ring_unmake_locked(job_ring *r, chunk *c);
/* GPUs named: how many chunks to make ahead (new ones pinned from now
 * on); then, once made, those chunks FREE and counted. */
int winent_ring_ahead_locked(job_ring *r);
void winent_ring_made_ahead_locked(job_ring *r, int n);
/* No GPU computes any more: every pinned buffer unpinned (the lock
 * dropped around each), then gpus_unpinned raised and the drivers
 * waiting for it woken. Once only. */
void winent_ring_unpin_locked(job_ring *r);
/* auto: a GPU came up, its context taking `ctx` chunks' worth of --mem:
 * room for its `slots` within what --mem allows. */
void winent_ring_gpu_context_locked(job_ring *r, int64_t ctx, int slots);

#endif
