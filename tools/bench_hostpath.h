/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef WINENT_BENCH_HOSTPATH_H
#define WINENT_BENCH_HOSTPATH_H
int bench_hostpath_main(int argc, char **argv);
#endif
