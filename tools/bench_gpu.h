/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU half of winent-bench: `winent-bench gpu ...` lands here. */
#ifndef WINENT_BENCH_GPU_H
#define WINENT_BENCH_GPU_H

/* Runs the GPU benchmarks named by argv (argv[0] == "gpu"); returns the
 * process exit code (77 when no GPU is usable). */
int bench_gpu_main(int argc, char **argv);

/* winent-bench gpu-init */
int bench_gpu_init_main(void);

#endif
