/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * glcm_cuda.cu - the co-occurrence measures on one GPU.
 *
 * The chunk's input rows go over as samples and a kernel turns them into
 * 16-bit levels (the rule of the CPU's winent_glcm_levels). Where a block
 * of them fits in shared memory, a warp per segment of an output row
 * shares one histogram (glcm_cuda_warp.cuh); else one thread per
 * segment of SEG columns of an output row runs winent_glcm_segment
 * (glcm_slide.h, the CPU engine's slide, compiled here as device code)
 * with its own pair histogram and marginals, in shared memory where a
 * block of them fits (L up to about 58 levels), else in a global workspace
 * of `slots` slots (a grid-stride loop hands the segments out), and
 * writes its floats. Every sum is an exact integer and every division the
 * rule's, so the map has the CPU's bits.
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "glcm_cuda.h"
}
#include "glcm_slide.h"
#include "glcm_cuda_warp.cuh"
#include "cuda_smem.cuh"

/* Columns per thread: long enough that building the matrix (a window's
 * area) costs little beside the slide (2 ky per column). */
#define SEG 64
/* The workspace's most bytes. */
#define WS_BYTES ((size_t)1 << 30)

struct winent_glcm_cuda {
    const winent_glcm_plan *plan;
    int device, max_width, max_in_rows;
    int slots;
    int warp_need;      /* > 0: the warp kernel (glcm_cuda_warp.cuh), its NEED */
    int warp_per_block; /* ... its warps a block */
    bool warp_wide;     /* ... with 32-bit counts (WINENT_GLCM_COUNTS=16: 16-bit) */
    unsigned warp_words; /* ... and one warp's words of shared memory */
    int warps;          /* ... and its grid's warps */
    int smem_threads;   /* > 0: histograms in shared memory, blocks of this many */
    size_t smem_bytes;  /* ... and one thread's bytes of them */
    int64_t *d_tabs;    /* lq, du, hw */
    void *d_in;         /* [max_width * max_in_rows] samples */
    uint16_t *d_codes;  /* [max_width * max_in_rows] levels */
    uint16_t *d_hist;   /* [slots * L * L], zero between segments (global mode) */
    uint32_t *d_marg;   /* [slots * 2 L], zero between segments (global mode) */
    double *d_sum;      /* [slots * nm * SEG] */
    int *d_cnt;         /* [slots * SEG] */
    float *d_out;       /* [nm * max_in_rows * max_width] */
};

/* Samples -> levels (winent_glcm_levels' rule), WINENT_GLCM_SENT where not
 * counted. */
template <typename S> __device__ __forceinline__ uint32_t level_of(const winent_code_rule *r, S v)
{
    return winent_code_int(r, (int64_t)v);
}
template <> __device__ __forceinline__ uint32_t level_of<float>(const winent_code_rule *r, float v)
{
    return winent_code_f32(r, v);
}
template <> __device__ __forceinline__ uint32_t level_of<double>(const winent_code_rule *r,
                                                                  double v)
{
    return winent_code_f64(r, v);
}

template <typename S>
__global__ void glcm_levels_kernel(const S *in, uint16_t *out, size_t count, winent_code_rule r)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const uint32_t c = level_of<S>(&r, in[i]);
        out[i] = c == WINENT_NODATA_CODE ? (uint16_t)WINENT_GLCM_SENT : (uint16_t)c;
    }
}

/* SMEM: each thread's histogram and marginals in the block's shared
 * memory (`bytes` a thread; zeroed once: a segment leaves them zero). */
template <bool SMEM>
__global__ void glcm_kernel(winent_glcm_geom g, const uint16_t *codes, int code_y0, int ya,
                            int yb, uint16_t *hist, uint32_t *marg, double *sum, int *cnt,
                            float *out, unsigned bytes)
{
    extern __shared__ uint32_t glcm_smem[];
    const int nseg = (g.W + SEG - 1) / SEG;
    const long long ntasks = (long long)(yb - ya) * nseg;
    const long long slot = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const size_t L = (size_t)g.L;
    winent_glcm_state st;
    if (SMEM) {
        uint32_t *mine = glcm_smem + (size_t)threadIdx.x * (bytes / 4);
        for (unsigned k = 0; k < bytes / 4; k++)
            mine[k] = 0;
        st.mi = mine;
        st.mj = mine + L;
        st.hist = (uint16_t *)(mine + (g.need_marg ? 2 * L : 0));
    } else {
        st.hist = hist + (size_t)slot * L * L;
        st.mi = marg + (size_t)slot * 2 * L;
        st.mj = st.mi + L;
    }
    double *s = sum + (size_t)slot * g.nm * SEG;
    int *c = cnt + (size_t)slot * SEG;
    const size_t plane = (size_t)(yb - ya) * (size_t)g.W;
    for (long long t = slot; t < ntasks; t += stride) {
        const int y = ya + (int)(t / nseg), xa = (int)(t % nseg) * SEG;
        const int xb = xa + SEG < g.W ? xa + SEG : g.W;
        winent_glcm_segment(&g, &st, codes, code_y0, y, xa, xb, s, c, SEG,
                            out + (size_t)(y - ya) * g.W + xa, plane);
    }
}

static winent_status cuda_fail(cudaError_t e, const char *what, winent_err *err)
{
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "CUDA: %s: %s", what, cudaGetErrorString(e));
}

#define CU(call, what)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            return cuda_fail(e_, what, err);                                                       \
    } while (0)

/* Shared-memory histograms where a block of at least 32 threads' fits
 * (WINENT_GLCM_HIST=global asks for the global workspace: tests, the
 * benchmark). */
static void smem_layout(winent_glcm_cuda *e)
{
    const winent_glcm_plan *p = e->plan;
    const size_t L = (size_t)p->levels;
    const char *ask = getenv("WINENT_GLCM_HIST");
    int optin = 0;
    e->smem_threads = 0;
    if ((ask != NULL && strcmp(ask, "global") == 0) ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, e->device) !=
            cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    e->smem_bytes = ((p->need_marg ? 2 * L * 4 : 0) + L * L * 2 + 3) / 4 * 4;
    const size_t fit = ((size_t)optin - 1024) / e->smem_bytes / 32 * 32;
    if (fit < 32)
        return;
    e->smem_threads = (int)(fit < 128 ? fit : 128);
    if (winent_cuda_allow_smem((const void *)glcm_kernel<true>,
                               e->smem_bytes * (size_t)e->smem_threads) != cudaSuccess) {
        (void)cudaGetLastError();
        e->smem_threads = 0;
    }
}

/* The warp kernel's instance for the plan's sums (a superset where the
 * set has no instance of its own), with WIDE counts or 16-bit ones. */
template <bool WIDE> static const void *warp_kernel_w(int need)
{
    const int H = GLCM_NEED_HIST, M = GLCM_NEED_MARG, O = GLCM_NEED_MOM, Q = GLCM_NEED_Q;
    switch (need) {
    case H: return (const void *)glcm_warp_kernel<H, WIDE>;
    case H | Q: return (const void *)glcm_warp_kernel<H | Q, WIDE>;
    case H | M: return (const void *)glcm_warp_kernel<H | M, WIDE>;
    case O: return (const void *)glcm_warp_kernel<O, WIDE>;
    case H | O: return (const void *)glcm_warp_kernel<H | O, WIDE>;
    case H | Q | O: return (const void *)glcm_warp_kernel<H | Q | O, WIDE>;
    default: return (const void *)glcm_warp_kernel<H | M | Q | O, WIDE>;
    }
}

static const void *warp_kernel_of(int need, bool wide)
{
    return wide ? warp_kernel_w<true>(need) : warp_kernel_w<false>(need);
}

/* Whether the plan's measures need the sums of squared counts. */
static int need_q(const winent_glcm_plan *p)
{
    for (int k = 0; k < p->opts.nmeasures; k++)
        if (p->opts.measures[k] == WINENT_GLCM_ASM || p->opts.measures[k] == WINENT_GLCM_ENERGY)
            return 1;
    return 0;
}

/* 32-bit counts (one pass a step) up to this many cells: 8 KB a warp. */
#define GLCM_WIDE_CELLS 2048u

/* A warp per segment where a block of warps' histograms fits in shared
 * memory (WINENT_GLCM_KERNEL=thread asks for a thread per segment: tests,
 * the benchmark). Its grid: up to 64 warps an SM, and no more than the
 * scratch of `slots` threads holds (4 threads' SEG columns a warp's
 * GLCM_WSEG). */
static void warp_layout(winent_glcm_cuda *e)
{
    const winent_glcm_plan *p = e->plan;
    const unsigned L = (unsigned)p->levels;
    const char *ask = getenv("WINENT_GLCM_KERNEL");
    int optin = 0, sms = 0;
    e->warp_need = 0;
    if ((ask != NULL && strcmp(ask, "thread") == 0) ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, e->device) !=
            cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, e->device) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    const int need = (p->need_hist ? GLCM_NEED_HIST : 0) | (p->need_marg ? GLCM_NEED_MARG : 0) |
                     (p->need_mom ? GLCM_NEED_MOM : 0) | (need_q(p) ? GLCM_NEED_Q : 0);
    const char *wide_ask = getenv("WINENT_GLCM_COUNTS");
    e->warp_wide = L * L <= GLCM_WIDE_CELLS && !(wide_ask != NULL && strcmp(wide_ask, "16") == 0);
    e->warp_words = (p->need_marg ? 2 * L : 0) +
                    (p->need_hist ? (e->warp_wide ? L * L : (L * L + 1) / 2) : 0);
    const size_t per = (size_t)(e->warp_words > 0 ? e->warp_words : 1) * 4;
    const size_t fit = ((size_t)optin - 1024) / per;
    if (fit < 1)
        return;
    e->warp_per_block = (int)(fit < 4 ? fit : 4);
    const void *k = warp_kernel_of(need, e->warp_wide);
    if (winent_cuda_allow_smem(k, per * (size_t)e->warp_per_block) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    e->warps = sms * 64;
    e->warp_need = need;
}

static winent_status alloc_all(winent_glcm_cuda *e, winent_err *err)
{
    const winent_glcm_plan *p = e->plan;
    const size_t L = (size_t)p->levels, nm = (size_t)p->opts.nmeasures;
    warp_layout(e);
    smem_layout(e);
    const int global_hist = e->smem_threads == 0 && e->warp_need == 0;
    const size_t hist_bytes = global_hist ? L * L * 2 + 2 * L * 4 : 0;
    const size_t slot_bytes = hist_bytes + nm * SEG * 8 + SEG * 4;
    size_t slots = WS_BYTES / slot_bytes;
    const size_t tasks = (size_t)e->max_in_rows * (size_t)((e->max_width + SEG - 1) / SEG);
    if (slots > tasks)
        slots = tasks;
    if (slots > 65536)
        slots = 65536;
    slots = slots / 128 * 128; /* whole blocks of 128 threads */
    if (slots < 128)
        slots = 128;
    e->slots = (int)slots;
    if (e->warps > e->slots / 4)
        e->warps = e->slots / 4;
    if (e->warp_need > 0) /* whole blocks */
        e->warps = e->warps / e->warp_per_block * e->warp_per_block;
    const size_t tmax = (size_t)p->tmax + 1, pix = (size_t)e->max_width * e->max_in_rows;
    const size_t ss = winent_dtype_size(p->opts.compute.dtype);
    CU(cudaMalloc(&e->d_tabs, (2 * tmax + L) * sizeof(int64_t)), "tables");
    CU(cudaMemcpy(e->d_tabs, p->lq, tmax * sizeof(int64_t), cudaMemcpyHostToDevice), "tables");
    CU(cudaMemcpy(e->d_tabs + tmax, p->du, tmax * sizeof(int64_t), cudaMemcpyHostToDevice),
       "tables");
    CU(cudaMemcpy(e->d_tabs + 2 * tmax, p->hw, L * sizeof(int64_t), cudaMemcpyHostToDevice),
       "tables");
    CU(cudaMalloc(&e->d_in, pix * ss), "samples");
    CU(cudaMalloc(&e->d_codes, pix * sizeof(uint16_t)), "levels");
    if (global_hist) {
        CU(cudaMalloc(&e->d_hist, slots * L * L * sizeof(uint16_t)), "histograms");
        CU(cudaMemset(e->d_hist, 0, slots * L * L * sizeof(uint16_t)), "histograms");
        CU(cudaMalloc(&e->d_marg, slots * 2 * L * sizeof(uint32_t)), "marginals");
        CU(cudaMemset(e->d_marg, 0, slots * 2 * L * sizeof(uint32_t)), "marginals");
    }
    CU(cudaMalloc(&e->d_sum, slots * nm * SEG * sizeof(double)), "sums");
    CU(cudaMalloc(&e->d_cnt, slots * SEG * sizeof(int)), "counts");
    CU(cudaMalloc(&e->d_out, nm * pix * sizeof(float)), "output");
    return WINENT_OK;
}

extern "C" winent_status winent_glcm_cuda_create(const winent_glcm_plan *p, int device,
                                                 int max_width, int max_in_rows,
                                                 winent_glcm_cuda **out, winent_err *err)
{
    *out = NULL;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || device < 0 || device >= n)
        return WINENT_ERR(err, WINENT_ERR_DEVICE, "no CUDA device %d for the GLCM measures",
                          device);
    CU(cudaSetDevice(device), "set device");
    winent_glcm_cuda *e = (winent_glcm_cuda *)calloc(1, sizeof *e);
    if (e == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory for the GLCM GPU engine");
    e->plan = p;
    e->device = device;
    e->max_width = max_width > 0 ? max_width : 1;
    e->max_in_rows = max_in_rows > 0 ? max_in_rows : 1;
    winent_status st = alloc_all(e, err);
    if (st != WINENT_OK) {
        winent_glcm_cuda_free(e);
        return st;
    }
    *out = e;
    return WINENT_OK;
}

/* The chunk's samples of the input rows its output rows need to the GPU,
 * and their levels (*in0: the first of those rows). */
static winent_status upload_levels(winent_glcm_cuda *e, const winent_chunk *c, int *in0,
                                   winent_err *err)
{
    const winent_glcm_plan *p = e->plan;
    const int W = c->width;
    const winent_dtype t = p->opts.compute.dtype;
    const size_t ss = winent_dtype_size(t);
    int nin;
    winent_chunk_input_rows(c->y0, c->y1, p->ry, c->height, in0, &nin);
    if (W > e->max_width || nin > e->max_in_rows || *in0 < c->in_y0 ||
        *in0 + nin > c->in_y0 + c->in_h)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "GLCM GPU engine: a chunk it cannot hold");
    CU(cudaSetDevice(e->device), "set device");
    CU(cudaMemcpy2D(e->d_in, (size_t)W * ss,
                    (const char *)c->rows + (size_t)(*in0 - c->in_y0) * c->row_bytes, c->row_bytes,
                    (size_t)W * ss, (size_t)nin, cudaMemcpyHostToDevice),
       "samples to the GPU");
    const size_t n = (size_t)W * (size_t)nin;
    const unsigned grid = (unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096);
    const winent_code_rule r = p->rule;
    uint16_t *o = e->d_codes;
    switch (t) {
    case WINENT_U8: glcm_levels_kernel<<<grid, 256>>>((const uint8_t *)e->d_in, o, n, r); break;
    case WINENT_I8: glcm_levels_kernel<<<grid, 256>>>((const int8_t *)e->d_in, o, n, r); break;
    case WINENT_U16: glcm_levels_kernel<<<grid, 256>>>((const uint16_t *)e->d_in, o, n, r); break;
    case WINENT_I16: glcm_levels_kernel<<<grid, 256>>>((const int16_t *)e->d_in, o, n, r); break;
    case WINENT_U32: glcm_levels_kernel<<<grid, 256>>>((const uint32_t *)e->d_in, o, n, r); break;
    case WINENT_I32: glcm_levels_kernel<<<grid, 256>>>((const int32_t *)e->d_in, o, n, r); break;
    case WINENT_F32: glcm_levels_kernel<<<grid, 256>>>((const float *)e->d_in, o, n, r); break;
    default: glcm_levels_kernel<<<grid, 256>>>((const double *)e->d_in, o, n, r); break;
    }
    CU(cudaGetLastError(), "levels kernel launch");
    return WINENT_OK;
}

/* The kernel over the chunk's output rows, into d_out (plane k of rows
 * (y1 - y0) x W at k (y1 - y0) W). */
static winent_status launch(winent_glcm_cuda *e, const winent_chunk *c, int in0, winent_err *err)
{
    const winent_glcm_plan *p = e->plan;
    const int W = c->width, rows = c->y1 - c->y0;
    winent_glcm_geom g;
    winent_glcm_geom_init(p, W, c->height, &g);
    const size_t tmax = (size_t)p->tmax + 1;
    g.lq = e->d_tabs;
    g.du = e->d_tabs + tmax;
    g.hw = e->d_tabs + 2 * tmax;
    if (e->warp_need > 0) {
        const long long wtasks = (long long)rows * ((W + GLCM_WSEG - 1) / GLCM_WSEG);
        const int wpb = e->warp_per_block;
        long long warps = wtasks < e->warps ? wtasks : e->warps;
        const unsigned blocks = (unsigned)((warps + wpb - 1) / wpb);
        const uint16_t *codes = e->d_codes;
        int ya = c->y0, yb = c->y1;
        double *sum = e->d_sum;
        int *cnt = e->d_cnt;
        float *out = e->d_out;
        unsigned words = e->warp_words;
        void *args[] = {&g, &codes, &in0, &ya, &yb, &sum, &cnt, &out, &words};
        CU(cudaLaunchKernel(warp_kernel_of(e->warp_need, e->warp_wide), dim3(blocks),
                            dim3(32 * wpb), args,
                            (size_t)words * 4 * (size_t)wpb, 0),
           "GLCM warp kernel launch");
        return WINENT_OK;
    }
    const long long tasks = (long long)rows * ((W + SEG - 1) / SEG);
    const int threads = e->smem_threads > 0 ? e->smem_threads : 128;
    long long blocks = (tasks + threads - 1) / threads;
    if (blocks > e->slots / threads)
        blocks = e->slots / threads;
    if (e->smem_threads > 0)
        glcm_kernel<true><<<(unsigned)blocks, threads, e->smem_bytes * (size_t)threads>>>(
            g, e->d_codes, in0, c->y0, c->y1, NULL, NULL, e->d_sum, e->d_cnt, e->d_out,
            (unsigned)e->smem_bytes);
    else
        glcm_kernel<false><<<(unsigned)blocks, threads>>>(g, e->d_codes, in0, c->y0, c->y1,
                                                          e->d_hist, e->d_marg, e->d_sum,
                                                          e->d_cnt, e->d_out, 0u);
    CU(cudaGetLastError(), "GLCM kernel launch");
    return WINENT_OK;
}

extern "C" winent_status winent_glcm_cuda_compute(winent_glcm_cuda *e, const winent_chunk *c,
                                                  float *const *out, size_t out_stride,
                                                  winent_err *err)
{
    const winent_glcm_plan *p = e->plan;
    const int W = c->width, nm = p->opts.nmeasures, rows = c->y1 - c->y0;
    if (rows <= 0)
        return WINENT_OK;
    int in0;
    WINENT_TRY(upload_levels(e, c, &in0, err));
    WINENT_TRY(launch(e, c, in0, err));
    const size_t plane = (size_t)rows * W;
    for (int k = 0; k < nm; k++)
        CU(cudaMemcpy2D(out[k], out_stride * sizeof(float), e->d_out + (size_t)k * plane,
                        (size_t)W * sizeof(float), (size_t)W * sizeof(float), (size_t)rows,
                        cudaMemcpyDeviceToHost),
           "GLCM kernel");
    return WINENT_OK;
}

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

extern "C" winent_status winent_glcm_cuda_time_kernel(winent_glcm_cuda *e, const winent_chunk *c,
                                                      int warmup, int reps, double *median_ms,
                                                      winent_err *err)
{
    winent_status st = WINENT_OK;
    cudaEvent_t a = NULL, b = NULL;
    float ms[64];
    int n = 0, in0;
    *median_ms = 0.0;
    if (reps > 64)
        reps = 64;
    WINENT_TRY(upload_levels(e, c, &in0, err));
    CU(cudaEventCreate(&a), "events");
    if (cudaEventCreate(&b) != cudaSuccess) {
        cudaEventDestroy(a);
        return WINENT_ERR(err, WINENT_ERR_DEVICE, "CUDA: events");
    }
    for (int i = 0; i < warmup + reps && st == WINENT_OK; i++) {
        float t = 0.0f;
        cudaEventRecord(a, 0);
        st = launch(e, c, in0, err);
        cudaEventRecord(b, 0);
        const cudaError_t ce = cudaEventSynchronize(b);
        if (st == WINENT_OK && (ce != cudaSuccess || cudaEventElapsedTime(&t, a, b) != cudaSuccess))
            st = cuda_fail(ce != cudaSuccess ? ce : cudaGetLastError(), "GLCM kernel", err);
        if (st == WINENT_OK && i >= warmup)
            ms[n++] = t;
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    if (st == WINENT_OK && n > 0) {
        qsort(ms, (size_t)n, sizeof ms[0], cmp_float);
        *median_ms = ms[n / 2];
    }
    return st;
}

extern "C" winent_status winent_glcm_cuda_fetch(winent_glcm_cuda *e, int width, int rows,
                                                float *out, winent_err *err)
{
    CU(cudaSetDevice(e->device), "set device");
    CU(cudaMemcpy(out, e->d_out, (size_t)width * (size_t)rows * sizeof(float),
                  cudaMemcpyDeviceToHost),
       "GLCM output");
    return WINENT_OK;
}

extern "C" void winent_glcm_cuda_free(winent_glcm_cuda *e)
{
    if (e == NULL)
        return;
    cudaFree(e->d_tabs);
    cudaFree(e->d_codes);
    cudaFree(e->d_hist);
    cudaFree(e->d_marg);
    cudaFree(e->d_sum);
    cudaFree(e->d_cnt);
    cudaFree(e->d_out);
    cudaFree(e->d_in);
    free(e);
}
