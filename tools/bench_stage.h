/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_stage.h - `winent-bench stage`: one stage of a job alone. */
#ifndef WINENT_BENCH_STAGE_H
#define WINENT_BENCH_STAGE_H

/* argv[0] is "stage"; returns the exit code. */
int bench_stage_main(int argc, char **argv);

#endif
