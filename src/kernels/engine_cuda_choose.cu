/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda_choose.cu - the GPU kernel families as one table
 * (gpu_families: what each fits, when it wins, what it needs, its launch)
 * and the choice among them for a plan (gpu_choose), with the layout of
 * the families chosen and the engine's path name. Host code only, no CUDA
 * call: the choice is a function of the plan, the device's shared memory
 * and the asks, and tests/gpu/test_gpu_choose.cu runs it without a GPU.
 */
#include <algorithm>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_cuda_internal.cuh"

/* Global hash tables get at most this much per slot; the grid shrinks to
 * fit (a grid-stride loop covers the rest). */
#define HASH_GLOBAL_BYTES ((size_t)512 << 20)

/* ---- Layouts ---------------------------------------------------------------- */

/* The thread-per-window layout: a direct shared histogram per thread for
 * codes < 256, else a hash table per thread in shared or global memory. */
static void thread_layout(winent_gpu_engine *e)
{
    const winent_plan *p = e->plan;
    if (p->ncodes <= 256) {
        e->path = PATH_SMEM;
        /* The most a counter holds: the window's pixels (a disk's area,
         * below its square's kx * ky). */
        e->cnt_bytes = p->area <= 255 ? 1 : 2;
        e->threads = 128;
        e->smem = (size_t)256 * (size_t)e->cnt_bytes * (size_t)e->threads;
        return;
    }
    int bits = 4;
    while ((1 << bits) < 2 * p->area)
        bits++;
    e->hash_bits = bits;
    /* 16-bit planes pack (count, key) into 32 bits, wider ones into 64. */
    e->entry_bytes = e->plane_bytes == 2 ? 4 : 8;
    size_t entry_bytes = (size_t)e->entry_bytes << bits;
    /* Shared tables when a block of at least 32 threads fits in 64 KB. */
    if (entry_bytes * 32 <= ((size_t)64 << 10)) {
        e->path = PATH_HASH_SHARED;
        e->threads = (int)std::min<size_t>(128, ((size_t)64 << 10) / entry_bytes);
        e->smem = entry_bytes * (size_t)e->threads;
    } else {
        e->path = PATH_HASH_GLOBAL;
        e->threads = 64;
        e->smem = 0;
        size_t want = (size_t)e->max_width + 63;
        want *= 64; /* generous: a few row segments per column */
        size_t fit = HASH_GLOBAL_BYTES / entry_bytes;
        size_t th = std::min(want, fit);
        th = std::max<size_t>(64, th / 64 * 64);
        e->ws_threads = (int)th;
    }
}

static size_t warp_block_layout(const winent_gpu_engine *e, warp_geom *g);

/* Shared memory one block may take (H100: 227 KB); larger warp tables go
 * to global memory. */
#define WARP_SMEM_MAX ((size_t)200 << 10)

/* The warp-per-window layout: a direct histogram of 16-bit counters when
 * the codes are few (or when it is no larger than the hash table), else a
 * hash table sized for every key a segment of warp_th rows can meet. */
static void warp_layout(winent_gpu_engine *e)
{
    const winent_plan *p = e->plan;
    uint64_t n = p->ncodes;
    size_t direct_words = (size_t)((n + 1) / 2);
    e->warp_th = std::max(32, WARP_SEG_MULT * p->ky);
    e->wg.bits = 0;
    e->wg.words = (int)direct_words;
    e->path = PATH_WARP_DIRECT;
    if (n > WARP_DIRECT_CODES) {
        /* Hash: the largest segment in {64, 32, 16} rows whose table stays
         * within 16 KB at load 1/2 (more warps per SM: these kernels wait
         * on shared memory), else 16 rows at load up to 3/4. */
        size_t eb = e->plane_bytes == 2 ? 4 : 8;
        int th = 64, bits = 4;
        for (;;) {
            uint64_t keys = std::min<uint64_t>(n, (uint64_t)p->nmax + (uint64_t)(th - 1) * p->kx);
            bits = 4;
            while (((uint64_t)1 << bits) < 2 * keys)
                bits++;
            if ((eb << bits) <= ((size_t)16 << 10) || th == 16) {
                if ((eb << bits) > ((size_t)16 << 10) && ((uint64_t)3 << (bits - 2)) > keys + 1)
                    bits--; /* (3/4) * 2^bits: at least one slot stays empty */
                break;
            }
            th /= 2;
        }
        size_t hash_words = (eb << bits) / 4;
        if (e->plane_bytes == 4 || hash_words < direct_words) {
            e->path = PATH_WARP_HASH;
            e->warp_th = th;
            e->wg.bits = bits;
            e->wg.words = (int)hash_words;
        }
    }
    e->smem = warp_block_layout(e, &e->wg);
    if (e->wg.global) {
        size_t fit = HASH_GLOBAL_BYTES / (((size_t)e->wg.words + 2) * 4);
        e->ws_warps = (int)std::max<size_t>(1, std::min<size_t>(fit, (size_t)e->sms * 16));
    }
    e->threads = 32 * e->wg.per_block;
}

/* A block of warps with tables of g->words words each: warps a block, where
 * the tables and du go; returns the block's shared memory. */
static size_t warp_block_layout(const winent_gpu_engine *e, warp_geom *g)
{
    size_t smem;
    /* Two more words per warp: the hash's special counter, 8-byte alignment. */
    size_t per_warp = ((size_t)g->words + 2) * 4;
    /* du in shared memory (after the tables) when it is small beside the
     * block's tables: a copy per block of one or two warps would cost more
     * warps per SM than its loads save. */
    size_t du_bytes = (size_t)(e->plan->nmax + 1) * 8;
    /* A warp's table goes to global memory past WARP_SMEM_MAX or past what
     * the device lets a block ask for (99 KB on compute capability 8.6 and
     * 8.9, 64 KB on 7.5). */
    g->global = per_warp > std::min(WARP_SMEM_MAX, e->smem_optin);
    if (g->global) {
        g->per_block = 1;
        smem = 0;
    } else {
        g->per_block = (int)std::max<size_t>(1, std::min<size_t>(8, ((size_t)48 << 10) / per_warp));
        smem = per_warp * (size_t)g->per_block;
    }
    g->du_shared = du_bytes <= ((size_t)16 << 10) && 4 * du_bytes <= smem;
    g->du_off = (int)((smem / 4 + 1) & ~(size_t)1);
    if (g->du_shared)
        smem = (size_t)g->du_off * 4 + du_bytes;
    return smem;
}

/* ---- Fits and wins ---------------------------------------------------------- */

/* Ranks dense within a chunk pay for themselves where a direct warp table
 * of a few thousand codes beats the plan's kernel by far, from the kernel
 * benchmark on the H100 (docs/GPU-NOTES.md): 16-bit planes of more codes
 * than a direct table holds, from 31 x 31, where the plan took the groups
 * kernel or a 65536-code table (u16 of 4096 values: 0.61 Gpixel/s at 63 x
 * 63, 0.11 at 127 x 127; a 4096-code table on f32 of 4096 bins: 2.9, 1.6).
 * Below, the groups and compare kernels are as fast as any direct table.
 * WINENT_GPU_KERNEL=dense asks for them at any window (tests). */
static bool dense_fits(const winent_gpu_engine *e)
{
    const winent_plan *p = e->plan;
    if (e->plane_bytes != 2 || p->ncodes <= WARP_DIRECT_CODES)
        return false;
    return e->path == PATH_GROUPS || e->path == PATH_BLOCK || warp_path(e->path);
}

static bool dense_wins(const winent_gpu_engine *e)
{
    return e->plan->nmax >= 31 * 31;
}

/* A block per window shares one direct table of 65536 16-bit counters (128
 * KB of shared memory a block) among BLOCK_THREADS threads: for 16-bit
 * planes where a warp would own that table alone, from the kernel
 * benchmark on the H100 (docs/GPU-NOTES.md): windows past what the groups
 * kernel fits (255 x 255). 32-bit planes there get ranks of the chunk's
 * codes first (rank32) and a table of one counter a rank in global memory
 * per block, in place of warp hash tables in global memory.
 * WINENT_GPU_KERNEL=block asks for it for any 16- or 32-bit plane (tests). */
static bool block_fits(const winent_gpu_engine *e)
{
    return e->plane_bytes == 4 || e->smem_optin >= (size_t)BLOCK_WORDS * 4;
}

/* Judged against the window family chosen before it (e->path). */
static bool block_wins(const winent_gpu_engine *e)
{
    if (e->plane_bytes == 4)
        return e->path != PATH_GROUPS && e->path != PATH_CMP && e->plan->nmax > 127 * 127;
    return e->path == PATH_WARP_DIRECT && e->plan->ncodes > WARP_DIRECT_CODES;
}

/* The dense ranks' direct tables, one layout per tier. */
static void dense_layout(winent_gpu_engine *e)
{
    for (int t = 0; t < DENSE_TIERS; t++) {
        warp_geom *g = &e->dense_wg[t];
        memset(g, 0, sizeof *g);
        g->words = (int)((dense_tier_codes[t] + 1) / 2);
        e->dense_smem[t] = warp_block_layout(e, g);
    }
    e->dense_small = 1;
}

/* When a warp per window beats a thread per window, from the kernel
 * benchmark on the H100 (winent-bench kernels, docs/GPU-NOTES.md): a
 * thread's histogram of codes < 256 holds out up to 63 x 63 (8-bit planes)
 * or 31 x 31 (16-bit ones); from 9 x 9 a warp's direct histogram of up to
 * 8192 codes wins, from 15 x 15 a warp's hash table; and a thread's table
 * that only fits in global memory always loses. */
static bool warp_wins(const winent_gpu_engine *e)
{
    const winent_plan *p = e->plan;
    if (e->path == PATH_HASH_GLOBAL)
        return true;
    if (p->ncodes <= 256)
        return p->nmax > (e->plane_bytes == 1 ? 63 * 63 : 31 * 31);
    if (p->ncodes <= WARP_DIRECT_CODES)
        return p->nmax > 7 * 7;
    return p->nmax > 11 * 11;
}

/* The compare kernel serves square windows of side 3 to 9 (its window in
 * registers) of planes wider than 8 bits (8-bit codes have their direct
 * histograms). */
static bool cmp_fits(const winent_gpu_engine *e)
{
    const winent_plan *p = e->plan;
    return e->plane_bytes >= 2 && p->kx == p->ky && p->kx >= 3 && p->kx <= 9 && (p->kx & 1);
}

/* When the compare kernel beats both the thread's hash table and a warp
 * per window, from the kernel benchmark on the H100 (docs/GPU-NOTES.md):
 * over 256 codes at 3x3 to 7x7 (twice the hash table's rate, more for
 * 32-bit codes), and at 9x9 unless the codes are few enough for a warp's
 * direct histogram (4096 bins: 4.3 against 3.6 Gpixel/s); 16-bit codes
 * two to a word also at 3x3 of at most 256 codes (f32 of 256 bins: 69.8
 * against the thread's histogram's 48.4; at 5x5 31.5 against 37.2). The groups
 * kernel, where it fits, takes every window past 5x5 first, and 5x5 of
 * 32-bit codes (groups_wins). */
static bool cmp_wins(const winent_gpu_engine *e)
{
    const winent_plan *p = e->plan;
    if (p->ncodes <= 256)
        return e->cmp_packed && p->nmax <= 3 * 3;
    return p->nmax <= 7 * 7 || p->ncodes > WARP_DIRECT_CODES;
}

/* The groups kernel serves planes wider than 8 bits when a block's region
 * (32 + 2 rx) x (th + 2 ry), for tiles of th = 32, 16 or 8 rows, and its
 * tables fit in the device's shared memory (on an H100 windows up to 127 x
 * 127; 255 x 255 needs more than 16-bit indices). */
static bool groups_fits(const winent_gpu_engine *e)
{
    const winent_plan *p = e->plan;
    if (e->plane_bytes < 2)
        return false;
    return groups_geom_for(p->rx, p->ry, e->plane_bytes, e->smem_optin).th > 0;
}

/* When the groups kernel beats the others, from the kernel benchmark on
 * the H100 (docs/GPU-NOTES.md), over 256 codes:
 *   - 3x3: never (the compare kernel: 68 against 32 Gpixel/s);
 *   - up to 5x5: over 8192 codes, but not the square windows of 16-bit
 *     planes, where the compare kernel takes codes two to a word
 *     (33.2-33.5 Gpixel/s at 5x5 whatever the codes, against the
 *     groups kernel's 23.5-23.8 for u16 of 4096 values, whose codes
 *     repeat, and 38.3-38.8 for 65536 values; 31.1-31.3 against 19.1-19.2
 *     for f32 of 4096 bins);
 *   - from 31x31 with at most 8192 codes, a warp's direct histogram wins
 *     (codes repeat often within a region: f32 of 4096 bins, 3.9 against
 *     2.7);
 *   - past 63x63 too (u16 of 65536 values at 127x127: 0.51 against 0.11
 *     for a warp's direct table of 65536 codes): the chunks whose codes
 *     repeat a lot (u16 of 4096 values: groups 0.06) have at most 8192
 *     codes, and take the dense ranks' tables instead (dense_wins).
 */
static bool groups_wins(const winent_gpu_engine *e)
{
    const winent_plan *p = e->plan;
    if (p->ncodes <= 256 || p->nmax <= 3 * 3)
        return false;
    if (p->nmax <= 5 * 5)
        return p->ncodes > WARP_DIRECT_CODES && !(e->cmp_packed && cmp_fits(e));
    if (p->ncodes <= WARP_DIRECT_CODES)
        return p->nmax < 31 * 31;
    return true;
}

/* The column-pack kernel (by column pairs 55-56 Gpixel/s from 7 x 7 to 13
 * x 13, 50.9 at 31 x 31; 9.05 at 255 x 255) beats the 16-code smem one (2
 * kx updates a pixel: 54 at 7 x 7, 45 at 9 x 9, 38 at 11 x 11) from kx = 7
 * on, the 2-D packs (120 at 5 x 5: colpack 56) where they fit, and the few
 * kernel (2.1 at 255 x 255) everywhere: the few kernel runs only when
 * asked for (H100, docs/GPU-NOTES.md). Column packs need ky <= 255 and rx
 * <= 127, which every window the plan allows has. */
static bool pack16_geometry(const winent_plan *p)
{
    return p->nmax <= 31 && p->ky <= 15 && p->kx <= 15;
}

static bool colpack_wins(const winent_gpu_engine *e)
{
    const winent_plan *p = e->plan;
    return p->kx > 11 || (p->kx > 5 && !pack16_geometry(p));
}

/* Its last step is the entropy's alone (pack16_finish): the other
 * measures of the histogram take the 16-code or column-pack kernel. */
static bool pack16_fits(const winent_gpu_engine *e)
{
    return pack16_geometry(e->plan) && !e->asks.pack16_off &&
           e->plan->measure.kind == WINENT_MEASURE_ENTROPY;
}

/* Equal-code cliques before the path's kernel, for 32-bit planes from
 * 63x63 (the kernel benchmark, i32 of 10^6 values: 11.0 against the
 * groups kernel's 4.3 Gpixel/s at 63x63, 10.1 against 0.65 at 127x127,
 * 7.7 against the block kernel's 0.026 at 255x255; at 31x31 11.4
 * against 10.5, too close to pay for a sort wasted where codes repeat). */
static bool sparse_wins(const winent_gpu_engine *e)
{
    return e->plan->nmax >= SPARSE_FROM_PIXELS;
}

/* ---- Layouts of the families chosen ------------------------------------------ */

static void cmp_layout(winent_gpu_engine *e)
{
    e->path = PATH_CMP;
    e->threads = 128;
    e->smem = 0;
}

/* The first groups layout that fits (the tallest tile); the engine tunes
 * it to the device (engine_cuda_launch.cu, gpu_groups_layout). */
static void groups_first_layout(winent_gpu_engine *e)
{
    e->path = PATH_GROUPS;
    e->gg = groups_geom_for(e->plan->rx, e->plan->ry, e->plane_bytes, e->smem_optin);
    e->threads = e->gg.threads;
    e->smem = (size_t)e->gg.bytes;
}

static void block_layout(winent_gpu_engine *e)
{
    e->path = PATH_BLOCK;
    e->threads = BLOCK_THREADS;
    e->rank32 = e->plane_bytes == 4;
    e->smem = e->rank32 ? 0 : (size_t)BLOCK_WORDS * 4;
}

/* ---- The table -------------------------------------------------------------- */

#define ALL_PLANES (PLANES_8 | PLANES_16 | PLANES_32)
#define WIDE_PLANES (PLANES_16 | PLANES_32)
#define BOTH_SHAPES (SHAPE_SQUARE | SHAPE_DISK)

/* In the order of the launches: the small-code kernel (8-bit planes), the
 * prepasses, the window kernel; within a role, the first that fits and is
 * asked for or wins is taken (ROLE_PREPASS: each one that is). */
const gpu_family gpu_families[] = {
    /* id, name, role, askable, planes, shapes, fits,
       asked_by, wins_when, wins, replaces, leaves_choice, prep, layout, launch */

    /* 8-bit planes, chunks of codes < 16: a warp per window of register
     * counts (engine_cuda_warp.cuh), only when asked for. */
    {FAM_FEW, "few", ROLE_SMALL, true, PLANES_8, SHAPE_SQUARE, NULL,
     ASK(FAM_FEW), 0, NULL, false, false, PREP_MAXCODE, NULL, gpu_launch_few},
    /* Column packs, a warp per 32-column strip (engine_cuda_colpack.cuh). */
    {FAM_COLPACK, "colpack", ROLE_SMALL, true, PLANES_8, SHAPE_SQUARE, NULL,
     ASK(FAM_COLPACK), ASK(FAM_AUTO), colpack_wins, false, false, PREP_MAXCODE, NULL,
     gpu_launch_colpack},
    /* 2-D register packs, windows of at most 31 pixels
     * (engine_cuda_kernels.cuh, pack16x2_kernel). */
    {FAM_PACK16, "pack16", ROLE_SMALL, false, PLANES_8, SHAPE_SQUARE, pack16_fits,
     0, ASK_ANY & ~ASK(FAM_WARP), NULL, false, false, PREP_MAXCODE, NULL, gpu_launch_pack16},
    /* A 16-code histogram per thread (smem_kernel), squares and disks. */
    {FAM_SMEM16, "smem16", ROLE_SMALL, false, PLANES_8, BOTH_SHAPES, NULL,
     0, ASK_ANY & ~ASK(FAM_WARP), NULL, false, false, PREP_MAXCODE, NULL, gpu_launch_smem16},

    /* 16-bit planes: ranks dense within the chunk, then a direct warp table
     * per tier (engine_cuda_dense.cuh); chunks of more codes go on. */
    {FAM_DENSE, "dense", ROLE_PREPASS, true, PLANES_16, SHAPE_SQUARE, dense_fits,
     ASK(FAM_DENSE), ASK(FAM_AUTO), dense_wins, false, false, PREP_RANKS16, dense_layout,
     gpu_launch_dense},
    /* 32-bit planes: equal-code cliques (engine_cuda_sparse.cuh); a chunk
     * whose codes repeat too much goes on. */
    {FAM_SPARSE, "sparse", ROLE_PREPASS, true, PLANES_32, SHAPE_SQUARE, NULL,
     ASK(FAM_SPARSE), ASK(FAM_AUTO), sparse_wins, false, true, PREP_SORT, NULL,
     gpu_launch_sparse},

    /* A block per 32 x th tile: groups of equal codes (engine_cuda_groups.cuh). */
    {FAM_GROUPS, "groups", ROLE_WINDOW, true, WIDE_PLANES, SHAPE_SQUARE, groups_fits,
     ASK(FAM_GROUPS) | ASK(FAM_DENSE), ASK(FAM_AUTO), groups_wins, false, false, 0,
     groups_first_layout, gpu_launch_groups},
    /* A thread per window, codes compared in registers (engine_cuda_cmp.cuh). */
    {FAM_CMP, "cmp", ROLE_WINDOW, true, WIDE_PLANES, SHAPE_SQUARE, cmp_fits,
     ASK(FAM_CMP), ASK(FAM_AUTO), cmp_wins, false, false, 0, cmp_layout, gpu_launch_cmp},
    /* A warp per window, direct or hash tables (engine_cuda_warp.cuh). */
    {FAM_WARP, "warp", ROLE_WINDOW, true, ALL_PLANES, SHAPE_SQUARE, NULL,
     ASK(FAM_WARP) | ASK(FAM_DENSE), ASK_ANY & ~(ASK(FAM_THREAD) | ASK(FAM_CMP)), warp_wins,
     false, false, 0, warp_layout, gpu_launch_warp},
    /* A thread per window, smem histogram or hash table, squares and disks
     * (engine_cuda_kernels.cuh, engine_cuda_disk.cuh): what is left. Its
     * layout is every plan's base (thread_layout, in gpu_choose). */
    {FAM_THREAD, "thread", ROLE_WINDOW, true, ALL_PLANES, BOTH_SHAPES, NULL,
     ASK(FAM_THREAD), ASK_ANY, NULL, false, false, 0, NULL, gpu_launch_thread},
    /* A block per window, one shared table (engine_cuda_block.cuh): over
     * the warp's largest direct tables, and on 32-bit planes chunk ranks
     * first (PREP_RANKS32). */
    {FAM_BLOCK, "block", ROLE_WINDOW, true, WIDE_PLANES, SHAPE_SQUARE, block_fits,
     ASK(FAM_BLOCK), ASK(FAM_AUTO), block_wins, true, false, PREP_RANKS32, block_layout,
     gpu_launch_block},
};

const int gpu_nfamilies = (int)(sizeof gpu_families / sizeof gpu_families[0]);

/* ---- The choice ------------------------------------------------------------- */

gpu_asks gpu_asks_read(void)
{
    gpu_asks a = {FAM_AUTO, false, false};
    const char *v = getenv("WINENT_GPU_KERNEL");
    for (int i = 0; v != NULL && i < gpu_nfamilies; i++)
        if (gpu_families[i].askable && strcmp(v, gpu_families[i].name) == 0)
            a.kernel = gpu_families[i].id;
    const char *c16 = getenv("WINENT_GPU_CMP16");
    a.cmp16_off = c16 && c16[0] == '0';
    const char *p16 = getenv("WINENT_GPU_PACK16");
    a.pack16_off = p16 && p16[0] == '0';
    return a;
}

static bool family_fits(const winent_gpu_engine *e, const gpu_family *f)
{
    const unsigned shape = e->plan->shaped ? SHAPE_DISK : SHAPE_SQUARE;
    return (f->planes & (unsigned)e->plane_bytes) && (f->shapes & shape) &&
           (f->fits == NULL || f->fits(e));
}

/* Asked for (`ask`), or winning where the engine chooses (`ask_auto`). */
static bool family_takes(const winent_gpu_engine *e, const gpu_family *f, gpu_fam ask,
                         gpu_fam ask_auto)
{
    if (!family_fits(e, f))
        return false;
    if (f->asked_by & ASK(ask))
        return true;
    return (f->wins_when & ASK(ask_auto)) && (f->wins == NULL || f->wins(e));
}

static void choose_role(winent_gpu_engine *e, gpu_role role, gpu_fam ask, gpu_fam ask_auto)
{
    const gpu_family *got = NULL;
    for (int i = 0; i < gpu_nfamilies; i++) {
        const gpu_family *f = &gpu_families[i];
        if (f->role != role || (got != NULL && role != ROLE_PREPASS && !f->replaces))
            continue;
        if (!family_takes(e, f, ask, ask_auto))
            continue;
        if (got != NULL && role != ROLE_PREPASS)
            e->use[got->id] = false;
        got = f;
        e->use[f->id] = true;
        if (role == ROLE_SMALL)
            e->small = f->id;
        if (f->layout != NULL)
            f->layout(e);
    }
}

void gpu_choose(winent_gpu_engine *e, const gpu_asks *asks)
{
    const winent_plan *p = e->plan;
    const winent_code_rule *r = &p->rule;
    winent_dtype t = p->opts.dtype;
    e->asks = *asks;
    /* Can a pixel be "not counted"? Floats (NaN) and a nodata value the
     * dtype can hold (the plan's can_skip). Without one, every 32-bit code
     * is a value, the all-ones one too. */
    int nd_possible = p->can_skip;
    uint64_t n = p->ncodes;
    if (!nd_possible && n <= 256)
        e->plane_bytes = 1;
    else if ((!nd_possible && n <= 65536) || (nd_possible && n <= 65535))
        e->plane_bytes = 2;
    else
        e->plane_bytes = 4;
    e->nd = nd_possible;
    /* Samples that already are their codes cross PCIe and stay as they are. */
    e->zero_copy = !r->quantize && !(r->has_nodata && r->nodata_int_ok) &&
                   ((t == WINENT_U8 && e->plane_bytes == 1) ||
                    (t == WINENT_U16 && e->plane_bytes == 2) || (t == WINENT_U32));
    /* The compare kernel takes 16-bit codes two to a word (cmp16_slide). */
    e->cmp_packed = e->plane_bytes == 2 && !asks->cmp16_off;
    /* The thread family's layout is every plan's base: the window
     * families' wins read it (a table only global memory holds), and the
     * 16-code smem kernel takes its counters. */
    thread_layout(e);
    /* A disk or footprint has the thread family (and, on 8-bit planes,
     * its 16-code kernel): WINENT_GPU_KERNEL does not apply. */
    gpu_fam ask = p->shaped ? FAM_AUTO : asks->kernel;
    gpu_fam ask_auto = ask;
    for (int i = 0; i < gpu_nfamilies; i++)
        if (gpu_families[i].id == ask && gpu_families[i].leaves_choice)
            ask_auto = FAM_AUTO;
    memset(e->use, 0, sizeof e->use);
    e->small = FAM_AUTO;
    /* The window family first: the prepasses fit some of them only. */
    choose_role(e, ROLE_WINDOW, ask, ask_auto);
    choose_role(e, ROLE_SMALL, ask, ask_auto);
    choose_role(e, ROLE_PREPASS, ask, ask_auto);
}

/* ---- The path's name ---------------------------------------------------------- */

/* The small-code kernel's part of the name. */
static const char *small_suffix(const winent_gpu_engine *e)
{
    switch (e->small) {
    case FAM_SMEM16: return "|smem16";
    case FAM_PACK16: return "|pack16x2";
    case FAM_FEW: return "|few";
    case FAM_COLPACK: return colpack_pairs(e->plan) ? "|colpack-pairs" : "|colpack";
    default: return "";
    }
}

void gpu_name_path(winent_gpu_engine *e)
{
    const winent_plan *p = e->plan;
    const uint64_t n = p->ncodes;
    const char *small = small_suffix(e);
    if (p->shaped) { /* a disk, a footprint or an even-sided box: the same kernels */
        const char *shape = p->disk ? "disk" : p->opts.footprint ? "footprint" : "box";
        if (e->path == PATH_SMEM)
            snprintf(e->path_name, sizeof e->path_name, "%s/smem-hist/code%d/cnt%d%s", shape,
                     8 * e->plane_bytes, 8 * e->cnt_bytes,
                     e->small == FAM_SMEM16 ? "|disk-smem16" : "");
        else
            snprintf(e->path_name, sizeof e->path_name, "%s/hash-%s/code%d/slots%d/e%d", shape,
                     e->path == PATH_HASH_SHARED ? "smem" : "global", 8 * e->plane_bytes,
                     1 << e->hash_bits, 8 * e->entry_bytes);
        return;
    }
    if (warp_path(e->path))
        snprintf(e->path_name, sizeof e->path_name, "warp-%s/code%d/%s%d%s%s",
                 e->path == PATH_WARP_DIRECT ? "direct" : e->wg.global ? "hash-global" : "hash",
                 8 * e->plane_bytes, e->path == PATH_WARP_DIRECT ? "codes" : "slots",
                 e->path == PATH_WARP_DIRECT ? (int)n : 1 << e->wg.bits,
                 e->path == PATH_WARP_HASH ? (e->plane_bytes == 4 ? "/e64" : "/e32") : "",
                 small);
    else if (e->path == PATH_CMP)
        snprintf(e->path_name, sizeof e->path_name, "cmp/code%d%s/k%d", 8 * e->plane_bytes,
                 e->cmp_packed ? "x2" : "", p->kx);
    else if (e->path == PATH_BLOCK && e->rank32)
        snprintf(e->path_name, sizeof e->path_name, "rank32/block-direct-global/code32");
    else if (e->path == PATH_BLOCK)
        snprintf(e->path_name, sizeof e->path_name, "block-direct/code16/codes65536");
    else if (e->path == PATH_GROUPS)
        snprintf(e->path_name, sizeof e->path_name, "groups/code%d/slots%dx%d/tile32x%d",
                 8 * e->plane_bytes, 1 << e->gg.bits, 8 * e->gg.slot_bytes, e->gg.th);
    else if (e->path == PATH_SMEM)
        snprintf(e->path_name, sizeof e->path_name, "smem-hist/code%d/cnt%d%s",
                 8 * e->plane_bytes, 8 * e->cnt_bytes, small);
    else
        snprintf(e->path_name, sizeof e->path_name, "hash-%s/code%d/slots%d/e%d",
                 e->path == PATH_HASH_SHARED ? "smem" : "global", 8 * e->plane_bytes,
                 1 << e->hash_bits, 8 * e->entry_bytes);
    if (e->use[FAM_DENSE]) {
        size_t len = strlen(e->path_name);
        snprintf(e->path_name + len, sizeof e->path_name - len, "|dense:%swarp-direct/codes%u",
                 e->dense_small ? "colpack," : "", dense_tier_codes[0]);
        for (int t = 1; t < DENSE_TIERS; t++) {
            len = strlen(e->path_name);
            snprintf(e->path_name + len, sizeof e->path_name - len, ",%u", dense_tier_codes[t]);
        }
    }
    if (e->use[FAM_SPARSE]) {
        /* The cliques come first, before the plan's kernel. */
        static const char head[] = "sparse-cliques/code32|";
        const size_t len = strlen(e->path_name), room = sizeof e->path_name - sizeof head;
        memmove(e->path_name + sizeof head - 1, e->path_name, std::min(len, room) + 1);
        memcpy(e->path_name, head, sizeof head - 1);
        e->path_name[sizeof e->path_name - 1] = '\0';
    }
}
