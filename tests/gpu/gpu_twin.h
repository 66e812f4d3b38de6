/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu_twin.h - what the host twins of the CUDA kernels share
 * (tests/gpu/test_gpu_*_twin.cu): the CPU engine's map that every twin is held
 * to, the code plane the engine's codes pass makes, and the plane width
 * the engine picks. C++; include after harness.h, kernels/engine_cpu.h
 * and kernels/entropy_plan.h (inside their extern "C").
 */
#ifndef WINENT_TEST_GPU_TWIN_H
#define WINENT_TEST_GPU_TWIN_H

#include <stdint.h>

#include <vector>

/* The CPU engine's map of the whole w x h image `in` (samples of
 * `dtype`); `name` says which case in a failure. */
static inline std::vector<float> twin_cpu_map(const winent_plan *p, const void *in,
                                              winent_dtype dtype, int w, int h, const char *name)
{
    std::vector<float> ref((size_t)w * h);
    winent_err err;
    winent_err_clear(&err);
    winent_cpu_engine *cpu = NULL;
    CHECK(winent_cpu_engine_create(p, w, h, 2, &cpu, &err) == WINENT_OK, "%s: %s", name, err.msg);
    if (cpu != NULL) {
        winent_chunk whole = {in, (size_t)w * winent_dtype_size(dtype), w, h, 0, h, 0, h};
        CHECK(winent_cpu_engine_compute(cpu, &whole, ref.data(), (size_t)w, &err) == WINENT_OK,
              "%s: %s", name, err.msg);
    }
    winent_cpu_engine_free(cpu);
    return ref;
}

/* The code plane the engine's codes pass makes: NODATA -> all ones. */
template <typename C>
static std::vector<C> twin_plane_of(const winent_plan *p, const void *in, size_t n)
{
    std::vector<uint32_t> codes(n);
    winent_plan_codes(p, in, n, codes.data());
    std::vector<C> out(n);
    for (size_t i = 0; i < n; i++)
        out[i] = codes[i] == WINENT_NODATA_CODE ? (C) ~(C)0 : (C)codes[i];
    return out;
}

/* The engine's plane is 32-bit where a 16-bit one cannot hold every code
 * and, when pixels can be "not counted", the sentinel (engine_cuda.cu,
 * choose_layout). */
static inline bool twin_wide_plane(const winent_plan *p)
{
    const int nd = p->can_skip;
    return !((!nd && p->ncodes <= 65536) || (nd && p->ncodes <= 65535));
}

/* The engine's tables for the plan's measure (engine_cuda.cu,
 * upload_tables): T' and du for the kernels, the measure's finish reading
 * the plan's own T. */
struct twin_tables {
    std::vector<long long> t, du;
    win_measure m;
};

static inline void twin_tables_of(const winent_plan *p, twin_tables *tt)
{
    tt->t.assign((size_t)p->nmax + 1, 0);
    tt->du.assign((size_t)p->nmax + 1, 0);
    tt->m.kind = p->measure.kind;
    tt->m.renyi_den = p->measure.renyi_den;
    tt->m.t1 = win_shifted_tables(p->t, p->nmax, tt->t.data(), tt->du.data());
    tt->m.t0 = (const long long *)p->t;
}

#endif
