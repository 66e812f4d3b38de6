/* Placeholder until the CUDA engine lands. */
#include "engine_cuda_none.c"
