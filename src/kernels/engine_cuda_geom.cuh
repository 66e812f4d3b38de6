/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_geom.cuh - the sizes and layouts of the GPU kernel families
 * that the engine works out on the host before any launch: plain structs,
 * constants and arithmetic, no kernels, so both the kernels' headers and
 * the choice of a family (engine_cuda_choose.cu) include it.
 */
#ifndef WINENT_ENGINE_CUDA_GEOM_CUH
#define WINENT_ENGINE_CUDA_GEOM_CUH

#include <stddef.h>
#include <stdint.h>

/* ---- Warp per window (engine_cuda_warp.cuh) ------------------------------ */

/* Direct warp histograms for codes below this (16 KB of counters). */
#define WARP_DIRECT_CODES 8192u

/* Per-warp table geometry, by value. */
struct warp_geom {
    int words;     /* 32-bit words of one warp's histogram; its region holds
                      two more (the hash's special counter, alignment) */
    int bits;      /* hash: log2 slots */
    int per_block; /* warps per block */
    int global;    /* the tables are in the global workspace p.ws, one per
                      warp of the grid, not in shared memory */
    int du_shared; /* the block copies du (nmax + 1 entries) into shared
                      memory, at word du_off (even: 8-byte aligned) */
    int du_off;
};

/* ---- Dense ranks (engine_cuda_dense.cuh) ---------------------------------- */

/* The presence bitmap: 65536 codes, one bit each. */
#define DENSE_WORDS 2048

/* ---- Block per window (engine_cuda_block.cuh) ----------------------------- */

#define BLOCK_THREADS 512
#define BLOCK_WARPS (BLOCK_THREADS / 32)
/* The table: 65536 16-bit counters two to a word. */
#define BLOCK_WORDS 32768

/* ---- Equal-code cliques (engine_cuda_sparse.cuh) -------------------------- */

/* The engine tries them on 32-bit planes whose windows count this many
 * pixels (63 x 63) or more, and after a chunk they could not take leaves
 * the next SPARSE_SKIP_AFTER_MISS to the path's kernel. */
#define SPARSE_FROM_PIXELS     (63 * 63)
#define SPARSE_SKIP_AFTER_MISS 4

/* ---- Column packs (engine_cuda_colpack.cuh) ------------------------------- */

/* The column-pack kernel takes the window by column pairs up to these
 * (colpair_kernel; the reasons are beside it). */
#define COLPAIR_RX_MAX 15
#define COLPAIR_KY_MAX 127

/* ---- Block per tile: groups (engine_cuda_groups.cuh) ----------------------- */

#define GROUPS_TW 32                 /* tile width: output columns */
#define GROUPS_TH_MAX 32             /* tile height: 32, else 16 or 8 rows */
#define GROUPS_DW (GROUPS_TW + 1)    /* difference arrays: (th + 1) rows of DW */
#define GROUPS_GMOB 6                /* groups up to this size: by subsets */
#define GROUPS_THREADS_MAX 512
#define GROUPS_EMPTY 0xFFFFu         /* no pixel (indices are 16-bit) */
#define GROUPS_REGION_MAX 65535      /* region pixels: indices below GROUPS_EMPTY */

typedef uint16_t groups_idx;

/* Shared-memory layout of a block, from the region's size (host side:
 * groups_geom_for). Offsets in bytes from the start of dynamic shared
 * memory; 8-byte pieces first. */
struct groups_geom {
    int th;             /* tile height (output rows) */
    int dcells;         /* cells of a difference array: GROUPS_DW * (th + 1) */
    int rw, rh, region; /* the region: rw x rh input pixels */
    int bits;           /* log2 of the hash table's slots */
    int slot_bytes;     /* 4: 32-bit slots (native atomics), or 2 (less memory) */
    int off_s, off_a, off_v, off_fields, off_link, off_slots, off_codes, off_big;
    int big_cap;        /* room in the list of large groups */
    int threads;        /* threads of a block */
    int fields;         /* warps that count the larger groups */
    int bytes;          /* dynamic shared memory of a block */
};

static inline size_t groups_align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* The layout of tiles `th` rows high, for windows of radii rx, ry over
 * codes of `code_bytes`, with hash slots of `slot_bytes` filled at most
 * half (`half`) or three quarters. */
static inline groups_geom groups_geom_th(int rx, int ry, int code_bytes, int th, int slot_bytes,
                                         bool half)
{
    groups_geom g;
    g.th = th;
    g.slot_bytes = slot_bytes;
    g.dcells = GROUPS_DW * (th + 1);
    g.rw = GROUPS_TW + 2 * rx;
    g.rh = th + 2 * ry;
    g.region = g.rw * g.rh;
    g.bits = 4;
    /* Load at most 1/2 or 3/4 (probes get long past that), and always
     * empty slots. */
    while ((size_t)(half ? 1 : 3) << g.bits < (size_t)(half ? 2 : 4) * (size_t)g.region)
        g.bits++;
    g.big_cap = g.region / (GROUPS_GMOB + 1) + 1;
    /* Regions past 64 x 64 leave room for one block an SM: give it more
     * warps to hide the latency of its shared-memory steps. */
    g.threads = g.region > 4096 ? 512 : 256;
    g.fields = g.region > 4096 ? 8 : 4;
    size_t o = 0;
    g.off_s = (int)o;
    o += (size_t)g.dcells * 8;
    g.off_a = (int)o;
    o += (size_t)(GROUPS_GMOB + 1) * 8;
    g.off_v = (int)o;
    o += (size_t)g.dcells * 4;
    g.off_fields = (int)o;
    o += (size_t)g.fields * (size_t)g.dcells * 4;
    g.off_codes = (int)o;
    o += groups_align8((size_t)g.region * (size_t)code_bytes);
    g.off_link = (int)o;
    o += (size_t)g.region * sizeof(groups_idx);
    g.off_slots = (int)o;
    o += (size_t)slot_bytes << g.bits;
    g.off_big = (int)o;
    o += (size_t)g.big_cap * sizeof(groups_idx);
    g.bytes = (int)groups_align8(o);
    return g;
}

/* Candidate layouts, best first where memory allows: 32-bit slots at load
 * 1/2, 16-bit slots at 1/2, then at 3/4; tiles of 32 rows, else 16 or 8.
 * Candidate k (0, 1, ...) for windows of radii rx, ry; th = 0 past the
 * last one or where the block does not fit in `max_bytes`. */
#define GROUPS_CANDIDATES 9
static inline groups_geom groups_geom_candidate(int rx, int ry, int code_bytes, size_t max_bytes,
                                                int k)
{
    static const int slot_bytes[3] = {4, 2, 2};
    static const bool half[3] = {true, true, false};
    groups_geom g = groups_geom_th(rx, ry, code_bytes, GROUPS_TH_MAX >> (k / 3),
                                   slot_bytes[k % 3], half[k % 3]);
    if (k >= GROUPS_CANDIDATES || g.region > GROUPS_REGION_MAX || (size_t)g.bytes > max_bytes)
        g.th = 0;
    return g;
}

/* The first candidate that fits (th = 0 when none does). */
static inline groups_geom groups_geom_for(int rx, int ry, int code_bytes, size_t max_bytes)
{
    groups_geom g;
    for (int k = 0; k < GROUPS_CANDIDATES; k++) {
        g = groups_geom_candidate(rx, ry, code_bytes, max_bytes, k);
        if (g.th > 0)
            return g;
    }
    return g;
}

#endif
