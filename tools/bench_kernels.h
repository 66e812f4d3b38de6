/* SPDX-License-Identifier: BSD-3-Clause */
/* Kernel tables of winent-bench: `winent-bench kernels ...` lands here. */
#ifndef WINENT_BENCH_KERNELS_H
#define WINENT_BENCH_KERNELS_H

/* Runs the kernel benchmark named by argv (argv[0] == "kernels"); returns
 * the process exit code: 0; 1 when a GPU output differs from the CPU
 * engine's or a measurement failed; 2 usage; 5 --device not visible. */
int bench_kernels_main(int argc, char **argv);

#endif
