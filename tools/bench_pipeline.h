/* SPDX-License-Identifier: BSD-3-Clause */
/* The pipeline half of winent-bench: `winent-bench pipeline ...`. */
#ifndef WINENT_BENCH_PIPELINE_H
#define WINENT_BENCH_PIPELINE_H

/* Runs the in-memory pipeline benchmark (argv[0] == "pipeline"); returns the
 * process exit code. */
int bench_pipeline_main(int argc, char **argv);

#endif
