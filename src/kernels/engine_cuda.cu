/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda.cu - the CUDA engine (engine_cuda.h): per device, `slots`
 * streams with device buffers sized once; each chunk goes H2D -> codes ->
 * the families' kernels -> D2H on its slot's stream. The families, their
 * choice and layouts are in engine_cuda_choose.cu (the table
 * gpu_families); their launches (gpu_launch_*), the kernels' template
 * instances and what the kernels need from the device are in
 * engine_cuda_launch.cu, the kernels in engine_cuda_*.cuh. This file
 * calls both and neither calls it.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

/* The engine's internals first, as C++; the C headers after them, with C
 * linkage. */
#include "engine_cuda_internal.cuh"

extern "C" {
#include "cuda_visible.h"
#include "glcm.h"
#include "glcm_cuda.h"
#include "measure.h"
}

/* ---- Fault injection (tests) ---------------------------------------------
 *
 * WINENT_FAULT_INJECT makes the engine fail the way a CUDA error does, so
 * the error paths above it can be tested on a working GPU
 * (tools/gpu-faults.sh):
 *
 *   create     every winent_gpu_engine_create fails (as a cudaMalloc would)
 *   submit:N   the Nth winent_gpu_engine_submit with work in this process,
 *              counted over every device from 1, fails (as a launch would)
 *
 * Both return WINENT_ERR_DEVICE with CUDA's words and "(injected: ...)".
 * Read once per process; any other value injects nothing. */
enum fault_kind { FAULT_NONE, FAULT_CREATE, FAULT_SUBMIT };

struct fault_plan {
    fault_kind kind;
    long long nth; /* FAULT_SUBMIT: which submit fails */
};

static fault_plan read_fault_plan(void)
{
    fault_plan f = {FAULT_NONE, 0};
    const char *v = getenv("WINENT_FAULT_INJECT");
    char *end = NULL;
    if (v == NULL)
        return f;
    if (strcmp(v, "create") == 0) {
        f.kind = FAULT_CREATE;
    } else if (strncmp(v, "submit:", 7) == 0) {
        long long n = strtoll(v + 7, &end, 10);
        if (end != v + 7 && *end == '\0' && n >= 1)
            f.kind = FAULT_SUBMIT, f.nth = n;
    }
    return f;
}

/* True when this call of `kind` is the one to fail. */
static bool fault_now(fault_kind kind)
{
    static const fault_plan plan = read_fault_plan(); /* thread-safe init */
    static std::atomic<long long> submits(0);
    if (plan.kind != kind)
        return false;
    return kind != FAULT_SUBMIT || submits.fetch_add(1) + 1 == plan.nth;
}

/* Codes pass, then the families chosen in the table's order, for the
 * chunk whose samples are in the slot's d_in (packed, W * ssize apart). */
static winent_status launch_chunk(winent_gpu_engine *e, gpu_slot *s, const winent_chunk *c,
                                  winent_err *err)
{
    const winent_plan *p = e->plan;
    const int W = c->width;
    const void *plane = NULL;
    WINENT_TRY(gpu_launch_codes(e, s, c, &plane, err));
    gpu_run r;
    memset(&r, 0, sizeof r);
    win_params &wp = r.wp;
    wp.plane = plane;
    wp.out = s->d_out;
    wp.du = e->d_du;
    wp.t = e->d_t;
    wp.W = W;
    wp.H = c->height;
    wp.in_y0 = c->in_y0;
    wp.y0 = c->y0;
    wp.y1 = c->y1;
    wp.rx = p->rx;
    wp.ry = p->ry;
    wp.ws = s->d_ws;
    wp.bits = e->hash_bits;
    wp.cf = e->d_cf;
    wp.cr = e->d_cr;
    wp.kx = p->kx;
    wp.m = e->m;
    if (e->majority)
        return gpu_launch_majority(e, s, c, plane, err);
    for (int i = 0; i < gpu_nfamilies && !r.done; i++) {
        const gpu_family *f = &gpu_families[i];
        if (!e->use[f->id])
            continue;
        if (f->prep & PREP_MAXCODE)
            WINENT_TRY(gpu_launch_maxcode(e, s, c, &r, err));
        WINENT_TRY(f->launch(e, s, c, &r, err));
    }
    return WINENT_OK;
}

/* ---- Public functions ----------------------------------------------------- */

/* nvcc (11.5 on) lists the architectures of the build in
 * __CUDA_ARCH_LIST__, host pass included: "700,800,900". */
#define BUILD_STR_(...) #__VA_ARGS__
#define BUILD_STR(...) BUILD_STR_(__VA_ARGS__)

extern "C" int winent_cuda_build_info(int *runtime, const char **archs)
{
    int v = 0;
    if (cudaRuntimeGetVersion(&v) != cudaSuccess)
        v = 0;
    *runtime = v;
#ifdef __CUDA_ARCH_LIST__
    *archs = BUILD_STR(__CUDA_ARCH_LIST__);
#else
    *archs = "";
#endif
    return 1;
}

/* ---- The GPUs this process starts (winent_cuda_limit_devices) ---------- */

/* Process-wide, as CUDA's own device list is: set once by the program
 * before its first CUDA call (the CLI, from its one thread), read after.
 * limit_n 0: CUDA sees the host's GPUs, numbered as the host numbers them. */
static int limit_n = 0;
static int limit_host[WINENT_CUDA_MAX_LIMIT]; /* CUDA's ordinal k is host GPU limit_host[k] */
static int limit_checked = 0;

extern "C" int winent_cuda_limit_devices(const int *gpus, int n)
{
    int host[WINENT_CUDA_MAX_LIMIT];
    char list[WINENT_CUDA_MAX_LIMIT * 64];
    if (limit_n > 0)
        return 0;
    int k = winent_cuda_visible_list(getenv("CUDA_VISIBLE_DEVICES"), gpus, n, host, list,
                                     sizeof list);
    if (k == 0 || setenv("CUDA_VISIBLE_DEVICES", list, 1) != 0)
        return 0;
    memcpy(limit_host, host, sizeof *host * (size_t)k);
    limit_n = k;
    return 1;
}

/* CUDA's ordinal of host GPU `device`; -1 when this process does not see it. */
static int ordinal_of(int device)
{
    if (limit_n == 0)
        return device;
    for (int k = 0; k < limit_n; k++)
        if (limit_host[k] == device)
            return k;
    return -1;
}

extern "C" int winent_cuda_host_device(int ordinal)
{
    return limit_n == 0 || ordinal < 0 || ordinal >= limit_n ? ordinal : limit_host[ordinal];
}

extern "C" int winent_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        /* No driver gives cudaErrorInsufficientDriver, no device
         * cudaErrorNoDevice: either way there is no GPU to use. */
        (void)cudaGetLastError();
        n = 0;
    }
    if (limit_n > 0 && !limit_checked) {
        /* CUDA had started before the limit was set (another library of
         * the process): it sees every GPU, numbered as the host does. */
        limit_checked = 1;
        if (n != limit_n)
            limit_n = 0;
    }
    return n;
}

extern "C" int winent_cuda_device_usable(int device)
{
    int n = winent_cuda_device_count(), k = ordinal_of(device);
    return device >= 0 && k >= 0 && k < n;
}

extern "C" winent_status winent_cuda_device_name(int device, char *buf, size_t n, winent_err *err)
{
    winent_status st = WINENT_OK;
    cudaDeviceProp prop;
    if (n)
        buf[0] = '\0';
    if (!winent_cuda_device_usable(device))
        return WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: no such CUDA device (%d visible)",
                          device, winent_cuda_device_count());
    CUDA_TRY(device, cudaGetDeviceProperties(&prop, ordinal_of(device)));
    if (n)
        snprintf(buf, n, "%s", prop.name);
    return WINENT_OK;
fail:
    return st;
}

/* Without the cliques after all: their buffers freed, the error cleared. */
static void sparse_off(winent_gpu_engine *e)
{
    gpu_sparse_free(e);
    (void)cudaGetLastError();
    e->use[FAM_SPARSE] = false;
}

/* The plan and sizes the engine can take: a device error for a GPU that
 * is not there, or an injected failure. */
static winent_status check_create(const winent_plan *p, int device, int max_width,
                                  int max_in_rows, int slots, winent_err *err)
{
    (void)p;
    if (!winent_cuda_device_usable(device))
        return WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: no such CUDA device (%d visible)",
                          device, winent_cuda_device_count());
    if (max_width < 1 || max_in_rows < 1 || slots < 1)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "GPU engine: bad sizes %dx%d, %d slots",
                          max_width, max_in_rows, slots);
    if (fault_now(FAULT_CREATE))
        return WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: %s (injected: WINENT_FAULT_INJECT=%s)",
                          device, cudaGetErrorString(cudaErrorMemoryAllocation),
                          getenv("WINENT_FAULT_INJECT"));
    return WINENT_OK;
}

/* Co-occurrence measures: the GLCM engine of the plans' options with their
 * measures (one plane each, in order), their distance, angles and symmetry
 * (as the CPU engine's glcm_create), on this engine's device. */
static winent_status glcm_engine_create(winent_gpu_engine *e, const winent_plan *const *plans,
                                        int n, winent_err *err)
{
    const winent_compute_opts *c = &e->plan->opts;
    winent_glcm_opts g;
    winent_glcm_opts_default(&g);
    g.compute = *c;
    g.compute.measure = WINENT_MEASURE_ENTROPY;
    g.distance = c->glcm_distance > 0 ? c->glcm_distance : 1;
    g.angles = c->glcm_angles;
    g.symmetric = !c->glcm_asymmetric;
    g.nmeasures = n;
    for (int k = 0; k < n; k++)
        g.measures[k] = (winent_glcm_measure)(plans[k]->opts.measure - WINENT_MEASURE_GLCM_ENTROPY);
    WINENT_TRY(winent_glcm_plan_create(&g, &e->glcm_plan, err));
    WINENT_TRY(winent_glcm_cuda_create(e->glcm_plan, e->ordinal, e->max_width, e->max_in_rows,
                                       &e->glcm, err));
    snprintf(e->path_name, sizeof e->path_name, "glcm/levels%d/angles%d", e->glcm_plan->levels,
             e->glcm_plan->nangles);
    return WINENT_OK;
}

/* The device's sizes, then the kernel families for the plan. */
static winent_status choose_kernels(winent_gpu_engine *e, winent_err *err)
{
    winent_status st = WINENT_OK;
    const int device = e->device;
    int optin = 0;
    CUDA_TRY(device, cudaSetDevice(e->ordinal));
    CUDA_TRY(device, cudaDeviceGetAttribute(&e->sms, cudaDevAttrMultiProcessorCount, e->ordinal));
    CUDA_TRY(device,
             cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, e->ordinal));
    /* Less a margin for the kernels' static shared memory. */
    e->smem_optin = optin > 1024 ? (size_t)optin - 1024 : 0;
    {
        const gpu_asks asks = gpu_asks_read();
        gpu_choose(e, &asks);
    }
    if (e->path == PATH_GROUPS) {
        e->gg = gpu_groups_layout(e);
        e->threads = e->gg.threads;
        e->smem = (size_t)e->gg.bytes;
    }
fail:
    return st;
}

/* The kernels' tables on the device: T'[c] = T[c] - c T[1] and its
 * differences (win_measure: T' = T for the entropy), the measure's own T,
 * a disk's or footprint's column runs. */
static winent_status upload_tables(winent_gpu_engine *e, winent_err *err)
{
    winent_status st = WINENT_OK;
    const winent_plan *p = e->plan;
    const int device = e->device, nmax = p->nmax;
    const size_t tab = sizeof(long long) * (size_t)(nmax + 1);
    std::vector<long long> du((size_t)nmax + 1, 0);
    e->h_t = (long long *)malloc(tab);
    if (e->h_t == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the GPU engine");
    const long long t1 = win_shifted_tables(p->t, nmax, e->h_t, du.data());
    CUDA_TRY(device, cudaMalloc((void **)&e->d_t, tab));
    CUDA_TRY(device, cudaMalloc((void **)&e->d_du, tab));
    CUDA_TRY(device, cudaMalloc((void **)&e->d_t0, tab));
    CUDA_TRY(device, cudaMemcpy(e->d_t, e->h_t, tab, cudaMemcpyHostToDevice));
    CUDA_TRY(device, cudaMemcpy(e->d_du, du.data(), tab, cudaMemcpyHostToDevice));
    CUDA_TRY(device, cudaMemcpy(e->d_t0, p->t, tab, cudaMemcpyHostToDevice));
    e->m.kind = p->measure.kind;
    e->m.renyi_den = p->measure.renyi_den;
    e->m.t1 = t1;
    e->m.t0 = e->d_t0;
    if (p->shaped) {
        static_assert(sizeof(short) == sizeof p->col_run[0], "the plan's runs are shorts");
        const size_t fb = sizeof(int) * (size_t)(p->kx + 1);
        const size_t rb = sizeof(short) * 2 * (size_t)(p->ncol_runs > 0 ? p->ncol_runs : 1);
        CUDA_TRY(device, cudaMalloc((void **)&e->d_cf, fb));
        CUDA_TRY(device, cudaMalloc((void **)&e->d_cr, rb));
        CUDA_TRY(device, cudaMemcpy(e->d_cf, p->col_first, fb, cudaMemcpyHostToDevice));
        CUDA_TRY(device, cudaMemcpy(e->d_cr, p->col_run, rb, cudaMemcpyHostToDevice));
    }
fail:
    return st;
}

/* The hash of the chunk's codes and the blocks' tables of rank32: the
 * hash at least twice the chunk's pixels; the tables room for one table
 * of as many ranks as pixels at least, up to 1 GB a slot or an eighth of
 * the free memory over the slots. */
static void rank32_sizes(winent_gpu_engine *e, size_t npix)
{
    e->rank32_bits = 8;
    while (((size_t)1 << e->rank32_bits) < 2 * npix)
        e->rank32_bits++;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        free_b = 0;
    }
    size_t least = (npix / 2 + 1) * 4 * 4;
    e->rank32_ws =
        std::max(least, std::min((size_t)1 << 30, free_b / (8 * (size_t)e->nslots)));
}

/* One slot's stream and buffers for chunks of npix pixels. */
static winent_status slot_alloc(winent_gpu_engine *e, gpu_slot *s, size_t npix, winent_err *err)
{
    winent_status st = WINENT_OK;
    const int device = e->device;
    CUDA_TRY(device, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    CUDA_TRY(device,
             cudaEventCreateWithFlags(&s->done, cudaEventBlockingSync | cudaEventDisableTiming));
    CUDA_TRY(device, cudaMalloc(&s->d_in, npix * winent_dtype_size(e->plan->opts.dtype)));
    if (!e->zero_copy)
        CUDA_TRY(device, cudaMalloc(&s->d_codes, npix * (size_t)e->plane_bytes));
    CUDA_TRY(device, cudaMalloc((void **)&s->d_out, npix * sizeof(float)));
    if (e->path == PATH_HASH_GLOBAL)
        CUDA_TRY(device, cudaMalloc((void **)&s->d_ws, ((size_t)e->entry_bytes << e->hash_bits) *
                                                           (size_t)e->ws_threads));
    if (e->path == PATH_WARP_HASH && e->wg.global)
        CUDA_TRY(device, cudaMalloc((void **)&s->d_ws,
                                    ((size_t)e->wg.words + 2) * 4 * (size_t)e->ws_warps));
    if (e->small != FAM_AUTO)
        CUDA_TRY(device, cudaMalloc((void **)&s->d_max, sizeof(unsigned)));
    if (e->use[FAM_DENSE]) {
        CUDA_TRY(device, cudaMalloc((void **)&s->d_bits, DENSE_WORDS * sizeof(uint32_t)));
        CUDA_TRY(device, cudaMalloc((void **)&s->d_nrank, sizeof(unsigned)));
        CUDA_TRY(device, cudaMalloc((void **)&s->d_small, sizeof(unsigned)));
    }
    if (e->dense_small)
        CUDA_TRY(device, cudaMalloc((void **)&s->d_rank8, npix));
    if (e->rank32) {
        size_t slots_ = (size_t)1 << e->rank32_bits;
        CUDA_TRY(device, cudaMalloc((void **)&s->d_keys, slots_ * sizeof(uint32_t)));
        CUDA_TRY(device, cudaMalloc((void **)&s->d_ranks, slots_ * sizeof(uint32_t)));
        CUDA_TRY(device, cudaMalloc((void **)&s->d_kinfo, 2 * sizeof(unsigned)));
        CUDA_TRY(device, cudaMalloc((void **)&s->d_ws, e->rank32_ws));
    }
fail:
    return st;
}

/* Keys (winent_code_order) that index the majority's table directly: up
 * to 16 KB a warp. */
#define MAJ_DIRECT_KEYS 4096u
/* The majority's tables in global memory (windows whose hash table passes
 * a block's shared memory): at most this many bytes a slot. */
#define MAJ_WS_BYTES ((size_t)1 << 28)

/* The window's pixels as the majority kernel's offsets, row by row:
 * (dy << 16) | (dx & 0xFFFF). */
static std::vector<int> majority_offsets(const winent_plan *p)
{
    std::vector<int> off;
    for (int r = 0; r < p->ky; r++) {
        const int dy = r - p->ry;
        const int q0 = p->shaped ? p->row_first[r] : 0, q1 = p->shaped ? p->row_first[r + 1] : 1;
        for (int q = q0; q < q1; q++) {
            const int a = p->shaped ? p->row_run[2 * q] : -p->rx;
            const int b = p->shaped ? p->row_run[2 * q + 1] : p->kx - 1 - p->rx;
            for (int dx = a; dx <= b; dx++)
                off.push_back((int)(((unsigned)dy << 16) | ((unsigned)dx & 0xFFFFu)));
        }
    }
    return off;
}

/* The majority's table: direct where the keys are few (the dtype's
 * patterns where a nodata rotates the codes, else the codes), else hashed
 * at twice the window's pixels; in shared memory where a warp's fits (up
 * to 8 warps a block), else in global memory for a fixed grid of warps. */
static void majority_layout(winent_gpu_engine *e)
{
    const winent_plan *p = e->plan;
    const uint64_t keys = p->rule.rotate ? (uint64_t)p->rule.rotate_mask + 1 : p->ncodes;
    e->maj_direct = p->direct && keys <= MAJ_DIRECT_KEYS;
    if (e->maj_direct) {
        e->maj_words = (unsigned)(keys > 0 ? keys : 1);
    } else {
        e->maj_bits = 5;
        while ((1 << e->maj_bits) < 2 * e->maj_noff)
            e->maj_bits++;
        e->maj_words = 2u << e->maj_bits;
    }
    const size_t bytes = (size_t)e->maj_words * 4;
    const size_t fit = bytes <= e->smem_optin ? e->smem_optin / bytes : 0;
    e->maj_warps = 0;
    if (fit >= 1) {
        /* The block size (up to 8 warps) that keeps the most warps on an
         * SM, its blocks' shared memory counted with CUDA's 1 KB each. */
        int best = 0;
        for (int w = (int)std::min<size_t>(fit, 8); w >= 1; w--) {
            const size_t blocks = e->smem_sm / (bytes * (size_t)w + 1024);
            const int warps = (int)std::min<size_t>(blocks * (size_t)w, 64);
            if (warps > best) {
                best = warps;
                e->maj_wpb = w;
            }
        }
        if (best == 0)
            e->maj_wpb = 1;
        return;
    }
    e->maj_wpb = 4;
    const size_t most = std::max<size_t>(4, MAJ_WS_BYTES / bytes);
    e->maj_warps = (int)std::min<size_t>((size_t)e->sms * 16, most) / 4 * 4;
}

/* The majority's engine (engine_cuda_majority.cuh): 32-bit code planes,
 * the window's offsets and the tables on the device, slots. */
static winent_status majority_engine_create(winent_gpu_engine *e, winent_err *err)
{
    winent_status st = WINENT_OK;
    const winent_plan *p = e->plan;
    const int device = e->device;
    int optin = 0;
    const std::vector<int> off = majority_offsets(p);
    CUDA_TRY(device, cudaSetDevice(e->ordinal));
    CUDA_TRY(device, cudaDeviceGetAttribute(&e->sms, cudaDevAttrMultiProcessorCount, e->ordinal));
    CUDA_TRY(device,
             cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, e->ordinal));
    e->smem_optin = optin > 1024 ? (size_t)optin - 1024 : 0;
    {
        int per_sm = 0;
        CUDA_TRY(device, cudaDeviceGetAttribute(
                             &per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, e->ordinal));
        e->smem_sm = (size_t)per_sm;
    }
    e->majority = true;
    e->plane_bytes = 4;
    e->nd = p->can_skip;
    e->zero_copy = 0;
    e->maj_noff = (int)off.size();
    majority_layout(e);
    CUDA_TRY(device, cudaMalloc((void **)&e->d_off, sizeof(int) * std::max<size_t>(off.size(), 1)));
    if (!off.empty())
        CUDA_TRY(device, cudaMemcpy(e->d_off, off.data(), sizeof(int) * off.size(),
                                    cudaMemcpyHostToDevice));
    WINENT_TRY(gpu_majority_smem(e, err));
    {
        const size_t npix = (size_t)e->max_width * (size_t)e->max_in_rows;
        for (int i = 0; i < e->nslots; i++) {
            WINENT_TRY(slot_alloc(e, &e->slot[i], npix, err));
            /* Global tables a slot: the slots' chunks run at once. */
            if (e->maj_warps > 0)
                CUDA_TRY(device, cudaMalloc((void **)&e->slot[i].d_ws,
                                            (size_t)e->maj_warps * e->maj_words * 4));
        }
    }
    snprintf(e->path_name, sizeof e->path_name, "majority/warp-%s/%s%u%s",
             e->maj_direct ? "direct" : "hash", e->maj_direct ? "keys" : "slots",
             e->maj_direct ? e->maj_words : e->maj_words / 2, e->maj_warps > 0 ? "/global" : "");
fail:
    return st;
}

/* The histogram measures' engine: kernels, tables, slots. */
static winent_status window_engine_create(winent_gpu_engine *e, winent_err *err)
{
    WINENT_TRY(choose_kernels(e, err));
    WINENT_TRY(upload_tables(e, err));
    WINENT_TRY(gpu_kernels_smem(e, err));
    const size_t npix = (size_t)e->max_width * (size_t)e->max_in_rows;
    if (e->use[FAM_SPARSE] && npix > (size_t)INT32_MAX)
        sparse_off(e); /* the sort counts items in an int */
    if (e->rank32)
        rank32_sizes(e, npix);
    for (int i = 0; i < e->nslots; i++)
        WINENT_TRY(slot_alloc(e, &e->slot[i], npix, err));
    if (e->use[FAM_SPARSE] && !gpu_sparse_alloc(e, npix))
        sparse_off(e);
    gpu_name_path(e);
    return WINENT_OK;
}

/* winent_gpu_engine_create, and _create_shared for n > 1 plans. */
static winent_status engine_create(const winent_plan *const *plans, int n, int device,
                                   int max_width, int max_in_rows, int slots,
                                   winent_gpu_engine **out, winent_err *err)
{
    const winent_plan *p = plans[0];
    *out = NULL;
    WINENT_TRY(check_create(p, device, max_width, max_in_rows, slots, err));
    winent_gpu_engine *e = (winent_gpu_engine *)calloc(1, sizeof *e);
    if (e != NULL && (e->slot = (gpu_slot *)calloc((size_t)slots, sizeof *e->slot)) == NULL) {
        free(e);
        e = NULL;
    }
    if (e == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the GPU engine");
    e->plan = p;
    e->device = device;
    e->ordinal = ordinal_of(device);
    e->max_width = max_width;
    e->max_in_rows = max_in_rows;
    e->nslots = slots;
    const winent_status st = winent_measure_is_glcm(p->opts.measure)
                                 ? glcm_engine_create(e, plans, n, err)
                             : p->opts.measure == WINENT_MEASURE_MAJORITY
                                 ? majority_engine_create(e, err)
                                 : window_engine_create(e, err);
    if (st != WINENT_OK) {
        winent_gpu_engine_free(e);
        return st;
    }
    *out = e;
    return WINENT_OK;
}

extern "C" winent_status winent_gpu_engine_create(const winent_plan *p, int device, int max_width,
                                                  int max_in_rows, int slots,
                                                  winent_gpu_engine **out, winent_err *err)
{
    return engine_create(&p, 1, device, max_width, max_in_rows, slots, out, err);
}

extern "C" winent_status winent_gpu_engine_create_shared(const winent_plan *const *plans, int n,
                                                         int device, int max_width,
                                                         int max_in_rows, int slots,
                                                         winent_gpu_engine **out, winent_err *err)
{
    *out = NULL;
    if (n < 1 || n > WINENT_GLCM_MEASURES_MAX ||
        (n > 1 && !winent_measure_is_glcm(plans[0]->opts.measure)))
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "a shared pass of %d maps", n);
    return engine_create(plans, n, device, max_width, max_in_rows, slots, out, err);
}

extern "C" int winent_gpu_engine_planes(const winent_gpu_engine *e)
{
    return e && e->glcm_plan ? e->glcm_plan->opts.nmeasures : 1;
}

extern "C" int winent_gpu_engine_slots(const winent_gpu_engine *e)
{
    return e ? e->nslots : 0;
}

extern "C" const char *winent_gpu_engine_path(const winent_gpu_engine *e)
{
    return e ? e->path_name : "";
}

static winent_status check_chunk(const winent_gpu_engine *e, int slot, const winent_chunk *c,
                                 winent_err *err)
{
    if (slot < 0 || slot >= e->nslots)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "GPU %d: no slot %d", e->device, slot);
    if (c->width > e->max_width || c->in_h > e->max_in_rows)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL,
                          "GPU %d: chunk %dx%d larger than the engine's %dx%d", e->device,
                          c->width, c->in_h, e->max_width, e->max_in_rows);
    int need_y0, need_h;
    winent_chunk_input_rows(c->y0, c->y1, e->plan->ry, c->height, &need_y0, &need_h);
    if (c->y0 < 0 || c->y1 > c->height || c->y0 > c->y1 || need_y0 < c->in_y0 ||
        need_y0 + need_h > c->in_y0 + c->in_h)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL,
                          "GPU %d: rows [%d, %d) need input rows [%d, %d), got [%d, %d)",
                          e->device, c->y0, c->y1, need_y0, need_y0 + need_h, c->in_y0,
                          c->in_y0 + c->in_h);
    return WINENT_OK;
}

extern "C" winent_status winent_gpu_engine_submit_planes(winent_gpu_engine *e, int slot,
                                                         const winent_chunk *c,
                                                         float *const *planes, int nplanes,
                                                         size_t out_stride, winent_err *err)
{
    winent_status st = WINENT_OK;
    if (nplanes != winent_gpu_engine_planes(e))
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "%d planes for a GPU engine of %d", nplanes,
                          winent_gpu_engine_planes(e));
    WINENT_TRY(check_chunk(e, slot, c, err));
    gpu_slot *s = &e->slot[slot];
    const int W = c->width, rows = c->y1 - c->y0;
    const size_t ss = winent_dtype_size(e->plan->opts.dtype);
    if (rows == 0 || W == 0)
        return WINENT_OK;
    if (fault_now(FAULT_SUBMIT))
        return WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: %s (injected: WINENT_FAULT_INJECT=%s)",
                          e->device, cudaGetErrorString(cudaErrorLaunchFailure),
                          getenv("WINENT_FAULT_INJECT"));
    if (e->glcm != NULL) /* the GLCM engine: done when it returns */
        return winent_glcm_cuda_compute(e->glcm, c, planes, out_stride, err);
    CUDA_TRY(e->device, cudaSetDevice(e->ordinal));
    CUDA_TRY(e->device, cudaMemcpy2DAsync(s->d_in, (size_t)W * ss, c->rows, c->row_bytes,
                                          (size_t)W * ss, (size_t)c->in_h,
                                          cudaMemcpyHostToDevice, s->stream));
    WINENT_TRY_GOTO(st, launch_chunk(e, s, c, err));
    CUDA_TRY(e->device, cudaMemcpy2DAsync(planes[0], out_stride * sizeof(float), s->d_out,
                                          (size_t)W * sizeof(float), (size_t)W * sizeof(float),
                                          (size_t)rows, cudaMemcpyDeviceToHost, s->stream));
    CUDA_TRY(e->device, cudaEventRecord(s->done, s->stream));
    s->busy = 1;
    return WINENT_OK;
fail:
    return st;
}

extern "C" winent_status winent_gpu_engine_submit(winent_gpu_engine *e, int slot,
                                                  const winent_chunk *c, float *out,
                                                  size_t out_stride, winent_err *err)
{
    return winent_gpu_engine_submit_planes(e, slot, c, &out, 1, out_stride, err);
}

extern "C" winent_status winent_gpu_engine_wait(winent_gpu_engine *e, int slot, winent_err *err)
{
    winent_status st = WINENT_OK;
    if (slot < 0 || slot >= e->nslots)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "GPU %d: no slot %d", e->device, slot);
    gpu_slot *s = &e->slot[slot];
    s->busy = 0;
    if (e->glcm != NULL)
        return WINENT_OK; /* its submit waited */
    CUDA_TRY(e->device, cudaSetDevice(e->ordinal));
    CUDA_TRY(e->device, cudaStreamSynchronize(s->stream));
    CUDA_TRY(e->device, cudaGetLastError());
    return WINENT_OK;
fail:
    return st;
}

extern "C" winent_status winent_gpu_engine_wait_sleep(winent_gpu_engine *e, int slot,
                                                      winent_err *err)
{
    winent_status st = WINENT_OK;
    if (slot < 0 || slot >= e->nslots)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "GPU %d: no slot %d", e->device, slot);
    gpu_slot *s = &e->slot[slot];
    s->busy = 0;
    if (e->glcm != NULL || s->done == NULL)
        return e->glcm != NULL ? WINENT_OK : winent_gpu_engine_wait(e, slot, err);
    CUDA_TRY(e->device, cudaSetDevice(e->ordinal));
    CUDA_TRY(e->device, cudaEventSynchronize(s->done));
    CUDA_TRY(e->device, cudaGetLastError());
    return WINENT_OK;
fail:
    return st;
}

extern "C" winent_status winent_gpu_engine_compute(winent_gpu_engine *e, const winent_chunk *c,
                                                   float *out, size_t out_stride, winent_err *err)
{
    WINENT_TRY(winent_gpu_engine_submit(e, 0, c, out, out_stride, err));
    return winent_gpu_engine_wait(e, 0, err);
}

extern "C" void winent_gpu_engine_free(winent_gpu_engine *e)
{
    if (e == NULL)
        return;
    /* Freeing is best effort: a device that already failed must not stop
     * the host from releasing the rest. */
    if (cudaSetDevice(e->ordinal) == cudaSuccess) {
        for (int i = 0; i < e->nslots; i++) {
            gpu_slot *s = &e->slot[i];
            if (s->stream)
                cudaStreamSynchronize(s->stream);
            cudaFree(s->d_in);
            cudaFree(s->d_codes);
            cudaFree(s->d_out);
            cudaFree(s->d_ws);
            cudaFree(s->d_max);
            cudaFree(s->d_bits);
            cudaFree(s->d_nrank);
            cudaFree(s->d_small);
            cudaFree(s->d_rank8);
            cudaFree(s->d_keys);
            cudaFree(s->d_ranks);
            cudaFree(s->d_kinfo);
            if (s->done)
                cudaEventDestroy(s->done);
            if (s->stream)
                cudaStreamDestroy(s->stream);
        }
        cudaFree(e->d_t);
        cudaFree(e->d_du);
        cudaFree(e->d_t0);
        cudaFree(e->d_cf);
        cudaFree(e->d_cr);
        cudaFree(e->d_off);
        gpu_sparse_free(e);
        (void)cudaGetLastError();
    }
    winent_glcm_cuda_free(e->glcm);
    winent_glcm_plan_free(e->glcm_plan);
    free(e->h_t);
    free(e->slot);
    free(e);
}

/* ---- Pinned host memory ---------------------------------------------------- */

/* A header in front of each block says how it was allocated, so the free
 * matches; 64 bytes keep the caller's pointer 64-byte aligned. */
#define HOST_HDR 64
#define HOST_PINNED 0x50494e4eu /* "PINN" */
#define HOST_PLAIN 0x504c4149u  /* "PLAI" */

extern "C" void *winent_cuda_host_alloc(size_t bytes)
{
    void *base = NULL;
    uint32_t tag = HOST_PINNED;
    if (winent_cuda_device_count() == 0 ||
        cudaHostAlloc(&base, bytes + HOST_HDR, cudaHostAllocPortable) != cudaSuccess) {
        (void)cudaGetLastError();
        base = NULL;
        tag = HOST_PLAIN;
        if (posix_memalign(&base, HOST_HDR, bytes + HOST_HDR) != 0)
            return NULL;
    }
    memcpy(base, &tag, sizeof tag);
    return (char *)base + HOST_HDR;
}

extern "C" void winent_cuda_host_free(void *p)
{
    if (p == NULL)
        return;
    void *base = (char *)p - HOST_HDR;
    uint32_t tag;
    memcpy(&tag, base, sizeof tag);
    if (tag == HOST_PINNED)
        cudaFreeHost(base);
    else
        free(base);
}

extern "C" int winent_cuda_host_register(void *p, size_t bytes)
{
    if (p == NULL || bytes == 0)
        return 0;
    if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return 0;
}

extern "C" void winent_cuda_host_unregister(void *p)
{
    if (p != NULL && cudaHostUnregister(p) != cudaSuccess)
        (void)cudaGetLastError();
}

extern "C" void winent_cuda_device_release(int device)
{
    if (cudaSetDevice(ordinal_of(device)) != cudaSuccess || cudaDeviceReset() != cudaSuccess)
        (void)cudaGetLastError();
}

extern "C" winent_status winent_cuda_context_init(int device, winent_err *err)
{
    winent_status st = WINENT_OK;
    CUDA_TRY(device, cudaSetDevice(ordinal_of(device)));
    CUDA_TRY(device, cudaFree(0));
    return WINENT_OK;
fail:
    return st;
}

/* ---- Measurements for the benchmark ------------------------------------------ */

extern "C" winent_status winent_gpu_engine_time_kernel(winent_gpu_engine *e,
                                                       const winent_chunk *c, int warmup,
                                                       int reps, double *median_ms,
                                                       winent_err *err)
{
    winent_status st = WINENT_OK;
    cudaEvent_t a = NULL, b = NULL;
    std::vector<float> ms;
    gpu_slot *s = &e->slot[0];
    const size_t ss = winent_dtype_size(e->plan->opts.dtype);
    *median_ms = 0;
    WINENT_TRY(check_chunk(e, 0, c, err));
    if (e->glcm != NULL)
        return winent_glcm_cuda_time_kernel(e->glcm, c, warmup, reps, median_ms, err);
    CUDA_TRY(e->device, cudaSetDevice(e->ordinal));
    CUDA_TRY(e->device, cudaEventCreate(&a));
    CUDA_TRY(e->device, cudaEventCreate(&b));
    CUDA_TRY(e->device, cudaMemcpy2DAsync(s->d_in, (size_t)c->width * ss, c->rows, c->row_bytes,
                                          (size_t)c->width * ss, (size_t)c->in_h,
                                          cudaMemcpyHostToDevice, s->stream));
    for (int i = 0; i < warmup + reps; i++) {
        CUDA_TRY(e->device, cudaEventRecord(a, s->stream));
        WINENT_TRY_GOTO(st, launch_chunk(e, s, c, err));
        CUDA_TRY(e->device, cudaEventRecord(b, s->stream));
        CUDA_TRY(e->device, cudaEventSynchronize(b));
        float t = 0;
        CUDA_TRY(e->device, cudaEventElapsedTime(&t, a, b));
        if (i >= warmup)
            ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    if (!ms.empty())
        *median_ms = ms[ms.size() / 2];
fail:
    if (a)
        cudaEventDestroy(a);
    if (b)
        cudaEventDestroy(b);
    return st;
}

extern "C" winent_status winent_gpu_engine_fetch_output(winent_gpu_engine *e, int width, int rows,
                                                        float *out, winent_err *err)
{
    winent_status st = WINENT_OK;
    if (e->glcm != NULL)
        return winent_glcm_cuda_fetch(e->glcm, width, rows, out, err);
    CUDA_TRY(e->device, cudaSetDevice(e->ordinal));
    CUDA_TRY(e->device, cudaMemcpy(out, e->slot[0].d_out,
                                   (size_t)width * (size_t)rows * sizeof(float),
                                   cudaMemcpyDeviceToHost));
    return WINENT_OK;
fail:
    return st;
}

/* Median GB/s (1e9 bytes) of `reps` copies of `bytes` timed with events. */
static winent_status time_copies(int device, int kind, void *h_a, void *h_b, void *d_a, void *d_b,
                                 size_t bytes, int reps, cudaStream_t s1, cudaStream_t s2,
                                 double *gbs, winent_err *err)
{
    winent_status st = WINENT_OK;
    cudaEvent_t a = NULL, b = NULL, j = NULL;
    std::vector<float> ms;
    CUDA_TRY(device, cudaEventCreate(&a));
    CUDA_TRY(device, cudaEventCreate(&b));
    CUDA_TRY(device, cudaEventCreateWithFlags(&j, cudaEventDisableTiming));
    for (int i = 0; i < reps + 1; i++) {
        CUDA_TRY(device, cudaEventRecord(a, s1));
        if (kind == 3) /* both directions at once: fork s2 off s1, join back */
            CUDA_TRY(device, cudaStreamWaitEvent(s2, a, 0));
        switch (kind) {
        case 0:
            CUDA_TRY(device, cudaMemcpyAsync(d_a, h_a, bytes, cudaMemcpyHostToDevice, s1));
            break;
        case 1:
            CUDA_TRY(device, cudaMemcpyAsync(h_a, d_a, bytes, cudaMemcpyDeviceToHost, s1));
            break;
        case 2:
            CUDA_TRY(device, cudaMemcpyAsync(d_b, d_a, bytes, cudaMemcpyDeviceToDevice, s1));
            break;
        default:
            CUDA_TRY(device, cudaMemcpyAsync(d_a, h_a, bytes, cudaMemcpyHostToDevice, s1));
            CUDA_TRY(device, cudaMemcpyAsync(h_b, d_b, bytes, cudaMemcpyDeviceToHost, s2));
            CUDA_TRY(device, cudaEventRecord(j, s2));
            CUDA_TRY(device, cudaStreamWaitEvent(s1, j, 0));
            break;
        }
        CUDA_TRY(device, cudaEventRecord(b, s1));
        CUDA_TRY(device, cudaEventSynchronize(b));
        float t = 0;
        CUDA_TRY(device, cudaEventElapsedTime(&t, a, b));
        if (i > 0) /* the first is the warm-up */
            ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    {
        /* Device-to-device counts bytes read plus bytes written; both
         * directions counts the bytes of the two copies. */
        double moved = (double)bytes * (kind >= 2 ? 2.0 : 1.0);
        *gbs = ms.empty() ? 0 : moved / (ms[ms.size() / 2] * 1e-3) / 1e9;
    }
fail:
    if (a)
        cudaEventDestroy(a);
    if (b)
        cudaEventDestroy(b);
    if (j)
        cudaEventDestroy(j);
    return st;
}

extern "C" winent_status winent_cuda_measure_bandwidth(int device, size_t bytes, int reps,
                                                       winent_cuda_bandwidth *bw, winent_err *err)
{
    winent_status st = WINENT_OK;
    void *h_a = NULL, *h_b = NULL, *d_a = NULL, *d_b = NULL;
    cudaStream_t s1 = NULL, s2 = NULL;
    memset(bw, 0, sizeof *bw);
    if (!winent_cuda_device_usable(device))
        return WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: no such CUDA device", device);
    CUDA_TRY(device, cudaSetDevice(ordinal_of(device)));
    CUDA_TRY(device, cudaHostAlloc(&h_a, bytes, cudaHostAllocPortable));
    CUDA_TRY(device, cudaHostAlloc(&h_b, bytes, cudaHostAllocPortable));
    CUDA_TRY(device, cudaMalloc(&d_a, bytes));
    CUDA_TRY(device, cudaMalloc(&d_b, bytes));
    /* Not zeros: a copy engine never sees the values, but the habit keeps
     * any later check honest. */
    memset(h_a, 0x5A, bytes);
    memset(h_b, 0xA5, bytes);
    CUDA_TRY(device, cudaMemset(d_a, 0x3C, bytes));
    CUDA_TRY(device, cudaMemset(d_b, 0xC3, bytes));
    CUDA_TRY(device, cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CUDA_TRY(device, cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    WINENT_TRY_GOTO(st, time_copies(device, 0, h_a, h_b, d_a, d_b, bytes, reps, s1, s2,
                                    &bw->h2d, err));
    WINENT_TRY_GOTO(st, time_copies(device, 1, h_a, h_b, d_a, d_b, bytes, reps, s1, s2,
                                    &bw->d2h, err));
    WINENT_TRY_GOTO(st, time_copies(device, 3, h_a, h_b, d_a, d_b, bytes, reps, s1, s2,
                                    &bw->both, err));
    WINENT_TRY_GOTO(st, time_copies(device, 2, h_a, h_b, d_a, d_b, bytes, reps, s1, s2,
                                    &bw->d2d, err));
fail:
    if (s1)
        cudaStreamDestroy(s1);
    if (s2)
        cudaStreamDestroy(s2);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFreeHost(h_a);
    cudaFreeHost(h_b);
    return st;
}
