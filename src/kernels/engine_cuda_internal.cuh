/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_internal.cuh - what the CUDA engine's files share (C++; not
 * included outside src/kernels, nor by the kernels' headers): the engine
 * and its slots, and the table of kernel families (gpu_families) that
 * engine_cuda_choose.cu chooses from and engine_cuda.cu launches through
 * engine_cuda_launch.cu. The files call one way: engine_cuda.cu (the
 * engine) -> engine_cuda_choose.cu (the table, the choice) ->
 * engine_cuda_launch.cu (the launches, the kernels), and engine_cuda.cu
 * -> engine_cuda_launch.cu.
 *
 * A family is a window kernel, or a kernel queued beside it for some
 * chunks, with what it needs:
 *   - role: ROLE_WINDOW, the kernel that computes every chunk nothing
 *     before it took (one is always chosen); ROLE_SMALL, 8-bit planes'
 *     kernel for the chunks whose codes are all below 16; ROLE_PREPASS, a
 *     kernel that runs first and takes the chunks it can (dense ranks,
 *     equal-code cliques), gating the window kernel for the rest;
 *   - fits: the planes (8, 16, 32-bit codes) and shapes (square, disk) it
 *     computes, and a predicate for the rest (window size, shared memory);
 *   - wins: when the engine takes it unasked, from the kernel benchmark on
 *     the H100 (docs/GPU-NOTES.md), and which WINENT_GPU_KERNEL asks let
 *     the engine consult it;
 *   - prep: what the chunk needs before its launch (the largest code, the
 *     chunk's ranks, a sort);
 *   - layout: the sizes it sets on the engine once; launch: one chunk.
 * The table's order is the order of the launches, and within a role the
 * order of preference.
 */
#ifndef WINENT_ENGINE_CUDA_INTERNAL_CUH
#define WINENT_ENGINE_CUDA_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "engine_cuda_geom.cuh"
#include "engine_cuda_params.cuh"

extern "C" {
#include "engine_cuda.h"
}

/* Record the failing call and CUDA's words for it, then leave through the
 * function's fail: label with `st` set (never exit). */
#define CUDA_TRY(dev, call)                                                                    \
    do {                                                                                       \
        cudaError_t ce_ = (call);                                                              \
        if (ce_ != cudaSuccess) {                                                              \
            st = WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: %s: %s", (dev), #call,           \
                            cudaGetErrorString(ce_));                                          \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)

/* Window kernel paths: a thread per window (engine_cuda_kernels.cuh, and
 * the compare kernel of engine_cuda_cmp.cuh), a warp per window
 * (engine_cuda_warp.cuh), a block per 32 x th tile (engine_cuda_groups.cuh)
 * or a block per window (engine_cuda_block.cuh). */
enum win_path { PATH_SMEM, PATH_HASH_SHARED, PATH_HASH_GLOBAL, PATH_WARP_DIRECT, PATH_WARP_HASH,
                PATH_CMP, PATH_GROUPS, PATH_BLOCK };

static inline bool warp_path(win_path p)
{
    return p == PATH_WARP_DIRECT || p == PATH_WARP_HASH;
}

/* The kernel families (gpu_families). FAM_AUTO is no family: the engine's
 * own choice when asked for, none where a role has no family. */
enum gpu_fam { FAM_AUTO, FAM_FEW, FAM_COLPACK, FAM_PACK16, FAM_SMEM16, FAM_DENSE, FAM_SPARSE,
               FAM_GROUPS, FAM_CMP, FAM_WARP, FAM_THREAD, FAM_BLOCK, FAM_COUNT };

/* What the environment asks of the choice, read once per engine
 * (gpu_asks_read): WINENT_GPU_KERNEL names a family (tests, the kernel
 * benchmark; one that does not apply to the plan leaves the choice to the
 * engine); WINENT_GPU_CMP16=0 keeps the compare kernel's scalar codes,
 * WINENT_GPU_PACK16=0 leaves out the pack16 kernel (measuring). */
struct gpu_asks {
    gpu_fam kernel;
    bool cmp16_off;
    bool pack16_off;
};

/* Rows of a warp segment (direct tables and the few kernel) per window
 * row: each segment first builds its window (ky rows), so longer segments
 * waste less; 16 against 4 on the H100: u8 16 values 255x255 1.94 -> 2.11
 * Gpixel/s, 256 values 127x127 1.82 -> 1.94, 255x255 0.81 -> 0.94. */
#define WARP_SEG_MULT 16

/* Ranks dense within a chunk (engine_cuda_dense.cuh): the direct warp
 * tables a 16-bit plane's chunk may take, smallest first; a chunk of more
 * codes than the last keeps the plan's kernel. */
#define DENSE_TIERS 3
static const unsigned dense_tier_codes[DENSE_TIERS] = {1024, 4096, WARP_DIRECT_CODES};

typedef struct gpu_slot {
    cudaStream_t stream;
    cudaEvent_t done;         /* owned: recorded after the output's copy; a
                               * blocking-sync event, so that a thread can
                               * sleep on it (winent_gpu_engine_wait_sleep) */
    void *d_in;               /* owned: input samples, W * ssize apart */
    void *d_codes;            /* owned: code plane (NULL when d_in is the plane) */
    float *d_out;             /* owned: output rows, W apart */
    unsigned long long *d_ws; /* owned: hash-global tables */
    unsigned *d_max;          /* owned: largest code of the chunk (8-bit planes) */
    uint32_t *d_bits;         /* owned: dense ranks: the codes present in the chunk */
    unsigned *d_nrank;        /* owned: dense ranks: how many */
    unsigned *d_small;        /* owned: dense ranks: 0 when at most 16, else 16 */
    uint8_t *d_rank8;         /* owned: dense ranks as bytes, chunks of <= 16 codes */
    uint32_t *d_keys;         /* owned: rank32: the chunk's codes, hashed */
    uint32_t *d_ranks;        /* owned: rank32: each slot's rank */
    unsigned *d_kinfo;        /* owned: rank32: ranks given, the all-ones code seen */
    uint32_t *d_skeys;        /* owned: sparse: the chunk's codes, sorted */
    uint32_t *d_spos;         /* owned: sparse: their pixel indices */
    void *d_sort;             /* owned: sparse: the sort's scratch, sort_bytes */
    size_t sort_bytes;
    unsigned long long *d_diff; /* owned: sparse: the output rows' a_k corners */
    int *d_ndiff;             /* owned: sparse: the output rows' nodata corners */
    unsigned long long *d_seg; /* owned: sparse: column segments' sums */
    int *d_nseg;              /* owned: sparse: and their nodata counts */
    unsigned *d_sovf;         /* owned: sparse: the chunk's overflow flag */
    int busy;                 /* a chunk was submitted and not yet waited for */
} gpu_slot;

struct winent_gpu_engine {
    const winent_plan *plan; /* borrowed */
    int device;              /* the host's number (messages) */
    int ordinal;             /* CUDA's (winent_cuda_limit_devices) */
    int sms;
    size_t smem_optin; /* shared memory a block may ask for */
    bool cmp_packed;   /* the compare kernel takes 16-bit codes two a word */
    int max_width, max_in_rows;
    int nslots;
    gpu_slot *slot; /* owned: nslots */
    long long *d_t, *d_du; /* owned: the kernels' tables T' and du on the device */
    long long *d_t0;       /* owned: the measure's own table T (win_measure.t0) */
    long long *h_t;        /* owned: T' on the host (the cliques' coefficients) */
    win_measure m;         /* the measure the kernels finish */
    /* A co-occurrence measure: the GLCM engine (glcm_cuda.cu) computes the
     * chunks, synchronously on submit, and none of the above is made. */
    struct winent_glcm_plan *glcm_plan; /* owned, or NULL */
    struct winent_glcm_cuda *glcm;      /* owned, or NULL */
    /* The majority (engine_cuda_majority.cuh): its own kernel, a warp per
     * pixel, on the slots' 32-bit code planes; no family is chosen. */
    bool majority;
    int *d_off;            /* owned: the window's pixels as offsets, maj_noff */
    int maj_noff;
    bool maj_direct;       /* keys below maj_nkeys index the table */
    int maj_bits;          /* else: log2 of the hash table's slots */
    unsigned maj_words;    /* 32-bit words of one warp's table */
    int maj_wpb;           /* warps a block */
    size_t smem_sm;        /* shared memory of an SM (the majority's layout) */
    int maj_warps;         /* > 0: the tables in global memory, each slot's
                              d_ws, this many warps; 0: shared memory */
    int *d_cf;             /* owned: a shaped window's column runs (the plan's */
    short *d_cr;           /* col_first, col_run), or NULL */
    /* Layout, chosen once from the plan (choose_layout). */
    int plane_bytes;  /* 1, 2 or 4 */
    int nd;           /* the plane has a nodata sentinel */
    int zero_copy;    /* the samples are the codes: no codes pass */
    win_path path;    /* the window family's kernel, and the thread or warp
                         kernel's table */
    int cnt_bytes;    /* smem: 1 or 2 */
    int hash_bits;    /* hash: log2 table size */
    int entry_bytes;  /* hash: bytes of one entry */
    int threads;      /* block size of the window kernel */
    size_t smem;      /* dynamic shared memory of the window kernel */
    int ws_threads;   /* hash-global: threads that have a table */
    gpu_asks asks;    /* what the environment asked for (gpu_asks_read) */
    bool use[FAM_COUNT]; /* the families chosen (gpu_choose), one window
                            family and at most one of each other role */
    gpu_fam small;    /* 8-bit planes: the family for chunks of codes < 16
                         (ROLE_SMALL), or FAM_AUTO for none */
    warp_geom wg;     /* warp paths: one warp's table and warps per block */
    int warp_th;      /* warp paths: most rows per segment (warp-hash tables
                         are sized for it) */
    int ws_warps;     /* warp-hash in global memory: warps that have a table */
    groups_geom gg;   /* groups: the block's shared-memory layout */
    /* FAM_DENSE (16-bit planes): ranks dense within each chunk, and a
       direct warp table per tier beside the plan's kernel */
    warp_geom dense_wg[DENSE_TIERS];
    size_t dense_smem[DENSE_TIERS];
    int dense_small;  /* and chunks whose ranks fit codes < 16 (15 with the
                         sentinel as code 15) as bytes for the column-pack kernel */
    int rank32;         /* 32-bit planes: chunk ranks, then the block kernel with
                           tables in global memory (d_ws) */
    int rank32_bits;    /* log2 slots of the hash of the chunk's codes */
    size_t rank32_ws;   /* bytes of d_ws: the blocks' tables */
    /* FAM_SPARSE (32-bit planes): equal-code cliques first
       (engine_cuda_sparse.cuh); a chunk they overflow takes the path's kernel */
    int sparse_skip;    /* sparse: chunks to leave to the path's kernel */
    uint32_t *d_iota;   /* owned: sparse: 0, 1, 2, ... (the sort's values) */
    long long *d_a;     /* owned: sparse: a_k, k <= SPARSE_MAX_PARTNERS + 1 */
    char path_name[96];
};

/* Whether the column-pack kernel takes the window by column pairs. */
static inline bool colpack_pairs(const winent_plan *p)
{
    return p->rx <= COLPAIR_RX_MAX && p->ky <= COLPAIR_KY_MAX;
}

/* ---- The families ----------------------------------------------------------- */

enum gpu_role { ROLE_SMALL, ROLE_PREPASS, ROLE_WINDOW };

/* fits: the code planes (their bytes as bits) and the window's shapes. */
#define PLANES_8 1u
#define PLANES_16 2u
#define PLANES_32 4u
#define SHAPE_SQUARE 1u
#define SHAPE_DISK 2u

/* prep: what a chunk needs before the family's kernel. */
#define PREP_MAXCODE 1u /* the chunk's largest code on the device (d_max),
                           run by the launch loop before the family */
#define PREP_RANKS16 2u /* the plane's codes replaced by ranks dense in the
                           chunk (d_bits, d_nrank; d_rank8), by its launch */
#define PREP_RANKS32 4u /* 32-bit planes: ranks of the chunk's codes through a
                           hash (d_keys, d_ranks, d_kinfo), by its launch */
#define PREP_SORT 8u    /* the codes sorted with their pixels (d_skeys,
                           d_spos), by its launch */

/* asks (asked_by, wins_when): bits of gpu_fam values, FAM_AUTO for no ask. */
#define ASK(f) (1u << (f))
#define ASK_ANY (~0u)

/* One chunk's launches: the window parameters every family starts from
 * (a prepass may gate them), the largest code when PREP_MAXCODE ran, and
 * whether a family already wrote the chunk's output. */
struct gpu_run {
    win_params wp;          /* the chunk's window parameters (a prepass may gate them) */
    const unsigned *d_max;  /* PREP_MAXCODE: the chunk's largest code; else NULL */
    bool done;              /* a family wrote the chunk's output */
};

typedef winent_status (*gpu_launch_fn)(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                       gpu_run *r, winent_err *err);

struct gpu_family {
    gpu_fam id;
    const char *name;  /* as WINENT_GPU_KERNEL names it (when askable) */
    gpu_role role;
    bool askable;      /* WINENT_GPU_KERNEL can name it */
    unsigned planes;   /* PLANES_*: the code planes it computes */
    unsigned shapes;   /* SHAPE_*: the windows it computes */
    bool (*fits)(const winent_gpu_engine *e); /* the rest; NULL: every plan */
    unsigned asked_by; /* asks that take it wherever it fits */
    unsigned wins_when; /* asks under which the engine takes it where it
                           fits and wins */
    bool (*wins)(const winent_gpu_engine *e); /* NULL: always */
    bool replaces;     /* ROLE_WINDOW: judged after the others, replacing the
                          family chosen (wins sees it in e->path) */
    bool leaves_choice; /* asking for it leaves the other roles to the
                           engine's choice, as no ask would */
    unsigned prep;     /* PREP_* */
    void (*layout)(winent_gpu_engine *e); /* its sizes, once; NULL: none */
    gpu_launch_fn launch;
};

extern const gpu_family gpu_families[];
extern const int gpu_nfamilies;

/* WINENT_GPU_KERNEL, WINENT_GPU_CMP16 and WINENT_GPU_PACK16, read now. */
gpu_asks gpu_asks_read(void);

/* Choose the code plane, the families and their layouts from the plan
 * alone (e->plan, e->smem_optin, e->sms, e->max_width), so every chunk of
 * a job runs the same code: no CUDA call. The groups family's layout is
 * the first that fits; engine_cuda.cu tunes it to the device's occupancy
 * (gpu_groups_layout) before naming the path. */
void gpu_choose(winent_gpu_engine *e, const gpu_asks *asks);

/* The engine's path name (winent_gpu_engine_path) from its choice. */
void gpu_name_path(winent_gpu_engine *e);

/* ---- The launches (engine_cuda_launch.cu) ------------------------------------ */

/* Before the families, on the slot's stream: the codes pass (the samples
 * in d_in to the code plane d_codes, unless they are the codes; *plane
 * gets the plane the families read), and PREP_MAXCODE (the chunk's
 * largest code into d_max, r->d_max set). */
winent_status gpu_launch_codes(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                               const void **plane, winent_err *err);
winent_status gpu_launch_maxcode(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                 gpu_run *r, winent_err *err);

/* The groups family's layout tuned to the device: of the candidates with
 * the tallest tile that fits, the one that keeps the most threads on an SM. */
groups_geom gpu_groups_layout(const winent_gpu_engine *e);

/* The dynamic shared memory the chosen window (or warp) kernel and the
 * dense ranks' warp kernel need, set on the kernels (CUDA's words on
 * failure). */
winent_status gpu_kernels_smem(winent_gpu_engine *e, winent_err *err);

/* The equal-code cliques' buffers for chunks of up to npix pixels: false
 * when the device cannot give them (the engine then goes without the
 * cliques); freeing is safe on a partial allocation and twice. */
bool gpu_sparse_alloc(winent_gpu_engine *e, size_t npix);
void gpu_sparse_free(winent_gpu_engine *e);

/* The majority's kernel: its shared memory set on it (a warp's table
 * times maj_wpb, unless its tables are global), and its launch over one
 * chunk after the codes pass. */
winent_status gpu_majority_smem(winent_gpu_engine *e, winent_err *err);
winent_status gpu_launch_majority(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                  const void *plane, winent_err *err);

/* The families' launches, one chunk each (gpu_family.launch). */
winent_status gpu_launch_few(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c, gpu_run *r,
                             winent_err *err);
winent_status gpu_launch_colpack(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                 gpu_run *r, winent_err *err);
winent_status gpu_launch_pack16(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                gpu_run *r, winent_err *err);
winent_status gpu_launch_smem16(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                gpu_run *r, winent_err *err);
winent_status gpu_launch_dense(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                               gpu_run *r, winent_err *err);
winent_status gpu_launch_sparse(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                gpu_run *r, winent_err *err);
winent_status gpu_launch_groups(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                gpu_run *r, winent_err *err);
winent_status gpu_launch_cmp(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c, gpu_run *r,
                             winent_err *err);
winent_status gpu_launch_warp(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                              gpu_run *r, winent_err *err);
winent_status gpu_launch_thread(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                gpu_run *r, winent_err *err);
winent_status gpu_launch_block(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                               gpu_run *r, winent_err *err);

#endif
