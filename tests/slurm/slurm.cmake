# SPDX-License-Identifier: BSD-3-Clause
# docs/SCALING.md's SLURM recipe (examples/slurm/entropy.sbatch) on a
# one-node SLURM started by the test from Debian's slurmctld and slurmd:
# dask scheduler and workers through sbatch and srun, the command's bytes.
# Skips where SLURM cannot run (not root, no packages). Label "slurm".
winent_sh_test(test_slurm test_slurm.sh)
set_property(TEST test_slurm APPEND PROPERTY ENVIRONMENT
  "WINENT_LIBRARY=$<TARGET_FILE:winent>" "WINENT_SAN_FLAGS=${winent_san_flags_for_users}")
set_tests_properties(test_slurm PROPERTIES LABELS slurm TIMEOUT 900)
