/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU engine's choice of kernel families (gpu_choose over the table
 * gpu_families, src/kernels/engine_cuda_choose.cu) as a table of cases:
 * plan, WINENT_GPU_KERNEL and the other asks, the device's shared memory
 * -> the path name the engine reports (winent_gpu_engine_path), which
 * names every family chosen and its layout. Needs no GPU: the choice makes
 * no CUDA call (the groups layout is the first that fits here; on a device
 * the engine tunes it to the occupancy). The names are those the engine
 * gave before its families became a table. WINENT_CHOOSE_PRINT=1 prints
 * the names instead of checking them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_cuda_internal.cuh"

extern "C" {
#include "harness.h"
#include "kernels/entropy_plan.h"
}

#define OPTIN_H100 ((size_t)232448 - 1024) /* 227 KB a block, less the margin */
#define OPTIN_SM86 ((size_t)101376 - 1024) /* 99 KB */
#define OPTIN_SM75 ((size_t)65536 - 1024)  /* 64 KB */

typedef struct ccase {
    winent_dtype dtype;
    uint32_t bins; /* over 0:1000; 0: distinct values */
    int has_nodata;
    int kx, ky, disk;
    const char *ask; /* WINENT_GPU_KERNEL, or NULL */
    int cmp16_off, pack16_off;
    size_t optin;
    const char *want;
} ccase;

static const ccase cases[] = {
    /* 8-bit planes: the thread's histogram, a warp past 63x63; the small
     * families for chunks of codes < 16 beside them. */
    {WINENT_U8, 0, 0, 3, 3, 0, NULL, 0, 0, OPTIN_H100,
     "smem-hist/code8/cnt8|pack16x2"},
    {WINENT_U8, 0, 0, 3, 3, 0, NULL, 0, 1, OPTIN_H100,
     "smem-hist/code8/cnt8|smem16"},
    {WINENT_U8, 0, 0, 9, 9, 0, NULL, 0, 0, OPTIN_H100,
     "smem-hist/code8/cnt8|colpack-pairs"},
    {WINENT_U8, 0, 0, 31, 31, 0, NULL, 0, 0, OPTIN_H100,
     "smem-hist/code8/cnt16|colpack-pairs"},
    {WINENT_U8, 0, 0, 127, 127, 0, NULL, 0, 0, OPTIN_H100,
     "warp-direct/code8/codes256|colpack"},
    {WINENT_U8, 0, 0, 255, 255, 0, NULL, 0, 0, OPTIN_H100,
     "warp-direct/code8/codes256|colpack"},
    {WINENT_U8, 0, 0, 31, 31, 0, "few", 0, 0, OPTIN_H100,
     "smem-hist/code8/cnt16|few"},
    {WINENT_U8, 0, 0, 5, 5, 0, "colpack", 0, 0, OPTIN_H100,
     "smem-hist/code8/cnt8|colpack-pairs"},
    {WINENT_U8, 0, 0, 31, 31, 0, "warp", 0, 0, OPTIN_H100,
     "warp-direct/code8/codes256"},
    {WINENT_U8, 0, 0, 5, 5, 0, "pack16", 0, 0, OPTIN_H100,
     "smem-hist/code8/cnt8|pack16x2"},
    {WINENT_I8, 0, 1, 17, 17, 0, NULL, 0, 0, OPTIN_H100,
     "smem-hist/code16/cnt16"},
    /* 16-bit planes: compare, groups, warp, block, dense ranks. */
    {WINENT_F32, 256, 0, 3, 3, 0, NULL, 0, 0, OPTIN_H100,
     "cmp/code16x2/k3"},
    {WINENT_F32, 256, 0, 3, 3, 0, NULL, 1, 0, OPTIN_H100,
     "smem-hist/code16/cnt8"},
    {WINENT_F32, 4096, 0, 5, 5, 0, NULL, 0, 0, OPTIN_H100,
     "cmp/code16x2/k5"},
    {WINENT_F32, 4096, 0, 9, 9, 0, NULL, 0, 0, OPTIN_H100,
     "groups/code16/slots4096x32/tile32x32"},
    {WINENT_F32, 4096, 0, 31, 31, 0, NULL, 0, 0, OPTIN_H100,
     "warp-direct/code16/codes4096"},
    {WINENT_U16, 0, 0, 5, 5, 0, NULL, 0, 0, OPTIN_H100,
     "cmp/code16x2/k5"},
    {WINENT_U16, 0, 0, 13, 13, 0, NULL, 0, 0, OPTIN_H100,
     "groups/code16/slots4096x32/tile32x32"},
    {WINENT_U16, 0, 0, 63, 63, 0, NULL, 0, 0, OPTIN_H100,
     "groups/code16/slots32768x32/tile32x32|dense:colpack,warp-direct/codes1024,4096,8192"},
    {WINENT_U16, 0, 0, 255, 255, 0, NULL, 0, 0, OPTIN_H100,
     "block-direct/code16/codes65536|dense:colpack,warp-direct/codes1024,4096,8192"},
    {WINENT_U16, 0, 0, 255, 255, 0, NULL, 0, 0, OPTIN_SM75,
     "warp-direct/code16/codes65536|dense:colpack,warp-direct/codes1024,4096,8192"},
    {WINENT_U16, 0, 0, 63, 63, 0, NULL, 0, 0, OPTIN_SM86,
     "groups/code16/slots16384x16/tile32x16|dense:colpack,warp-direct/codes1024,4096,8192"},
    {WINENT_U16, 0, 0, 7, 7, 0, "dense", 0, 0, OPTIN_H100,
     "groups/code16/slots4096x32/tile32x32|dense:colpack,warp-direct/codes1024,4096,8192"},
    {WINENT_U16, 0, 0, 15, 15, 0, "thread", 0, 0, OPTIN_H100,
     "hash-smem/code16/slots512/e32"},
    {WINENT_U16, 0, 0, 15, 15, 0, "cmp", 0, 0, OPTIN_H100,
     "hash-smem/code16/slots512/e32"},
    {WINENT_U16, 0, 0, 7, 7, 0, "cmp", 0, 0, OPTIN_H100,
     "cmp/code16x2/k7"},
    {WINENT_U16, 0, 0, 9, 9, 0, "block", 0, 0, OPTIN_H100,
     "block-direct/code16/codes65536"},
    {WINENT_I16, 0, 1, 31, 15, 0, "groups", 0, 0, OPTIN_H100,
     "groups/code16/slots8192x32/tile32x32"},
    {WINENT_U16, 0, 0, 9, 9, 0, "smem16", 0, 0, OPTIN_H100,
     "groups/code16/slots4096x32/tile32x32"},
    {WINENT_U16, 0, 0, 9, 9, 0, "bogus", 0, 0, OPTIN_H100,
     "groups/code16/slots4096x32/tile32x32"},
    /* 32-bit planes: cliques first from 63x63, block on chunk ranks. */
    {WINENT_I32, 1000000, 0, 3, 3, 0, NULL, 0, 0, OPTIN_H100,
     "cmp/code32/k3"},
    {WINENT_I32, 1000000, 0, 31, 31, 0, NULL, 0, 0, OPTIN_H100,
     "groups/code32/slots8192x32/tile32x32"},
    {WINENT_I32, 1000000, 0, 63, 63, 0, NULL, 0, 0, OPTIN_H100,
     "sparse-cliques/code32|groups/code32/slots32768x16/tile32x32"},
    {WINENT_I32, 1000000, 0, 255, 255, 0, NULL, 0, 0, OPTIN_H100,
     "sparse-cliques/code32|rank32/block-direct-global/code32"},
    {WINENT_U32, 0, 1, 31, 31, 0, "sparse", 0, 0, OPTIN_H100,
     "sparse-cliques/code32|groups/code32/slots8192x32/tile32x32"},
    {WINENT_U32, 0, 1, 255, 255, 0, "warp", 0, 0, OPTIN_H100,
     "warp-hash-global/code32/slots131072/e64"},
    {WINENT_F64, 70000, 0, 9, 9, 0, "block", 0, 0, OPTIN_H100,
     "rank32/block-direct-global/code32"},
    /* Disks: the thread family whatever is asked. */
    {WINENT_U8, 0, 0, 21, 21, 1, NULL, 0, 0, OPTIN_H100,
     "disk/smem-hist/code8/cnt16|disk-smem16"},
    {WINENT_U8, 0, 0, 9, 9, 1, "warp", 0, 0, OPTIN_H100,
     "disk/smem-hist/code8/cnt8|disk-smem16"},
    {WINENT_U16, 0, 1, 7, 7, 1, "cmp", 0, 0, OPTIN_H100,
     "disk/hash-smem/code16/slots64/e32"},
    {WINENT_U32, 0, 0, 63, 63, 1, NULL, 0, 0, OPTIN_H100,
     "disk/hash-global/code32/slots8192/e64"},
};

static void run_case(const ccase *c, bool print)
{
    winent_compute_opts o;
    winent_compute_opts_default(&o);
    o.dtype = c->dtype;
    o.kx = c->kx;
    o.ky = c->ky;
    o.disk = c->disk;
    o.bins = c->bins;
    if (c->bins) {
        o.range_lo = 0;
        o.range_hi = 1000;
    }
    o.has_nodata = c->has_nodata;
    o.nodata = 0;
    winent_plan *p = NULL;
    winent_err err;
    winent_err_clear(&err);
    char name[160];
    snprintf(name, sizeof name, "%s bins %u nodata %d %dx%d%s ask %s%s%s optin %zu",
             winent_dtype_name(c->dtype), c->bins, c->has_nodata, c->kx, c->ky,
             c->disk ? " disk" : "", c->ask ? c->ask : "-", c->cmp16_off ? " CMP16=0" : "",
             c->pack16_off ? " PACK16=0" : "", c->optin);
    CHECK(winent_plan_create(&o, &p, &err) == WINENT_OK, "%s: %s", name, err.msg);
    if (p == NULL)
        return;
    if (c->ask)
        setenv("WINENT_GPU_KERNEL", c->ask, 1);
    else
        unsetenv("WINENT_GPU_KERNEL");
    if (c->cmp16_off)
        setenv("WINENT_GPU_CMP16", "0", 1);
    else
        unsetenv("WINENT_GPU_CMP16");
    if (c->pack16_off)
        setenv("WINENT_GPU_PACK16", "0", 1);
    else
        unsetenv("WINENT_GPU_PACK16");
    winent_gpu_engine *e = (winent_gpu_engine *)calloc(1, sizeof *e);
    e->plan = p;
    e->sms = 132;
    e->smem_optin = c->optin;
    e->max_width = 4096;
    e->max_in_rows = 1024;
    const gpu_asks asks = gpu_asks_read();
    gpu_choose(e, &asks);
    gpu_name_path(e);
    if (print)
        printf("    {..., \"%s\"}, /* %s */\n", e->path_name, name);
    else
        CHECK(strcmp(e->path_name, c->want) == 0, "%s: path %s, want %s", name, e->path_name,
              c->want);
    /* One window family, at most one small-code family. */
    int windows = 0, smalls = 0;
    for (int i = 0; i < gpu_nfamilies; i++) {
        const gpu_family *f = &gpu_families[i];
        windows += e->use[f->id] && f->role == ROLE_WINDOW;
        smalls += e->use[f->id] && f->role == ROLE_SMALL;
    }
    CHECK(windows == 1 && smalls <= 1, "%s: %d window families, %d small", name, windows,
          smalls);
    free(e);
    winent_plan_free(p);
}

int main(void)
{
    const char *pr = getenv("WINENT_CHOOSE_PRINT");
    const bool print = pr != NULL && pr[0] == '1';
    /* Every family once in the table, by its id. */
    for (int i = 0; i < gpu_nfamilies; i++)
        CHECK(gpu_families[i].id == (gpu_fam)(i + 1) && gpu_families[i].launch != NULL,
              "family %d (%s): id %d", i, gpu_families[i].name, (int)gpu_families[i].id);
    CHECK(gpu_nfamilies == FAM_COUNT - 1, "%d families, %d ids", gpu_nfamilies, FAM_COUNT - 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], print);
    return harness_end();
}
