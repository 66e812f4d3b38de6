/* Placeholder until the GPU benchmark lands. */
#include <stdio.h>

#include "bench_gpu.h"

int bench_gpu_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "winent-bench: GPU benchmark not built yet\n");
    return 77;
}
