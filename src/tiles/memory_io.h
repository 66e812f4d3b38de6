/*
 * memory_io.h - a source and a sink over buffers in host memory, for jobs
 * that measure the pipeline without files (winent-bench).
 */
#ifndef WINENT_MEMORY_IO_H
#define WINENT_MEMORY_IO_H

#include "sink.h"
#include "source.h"

/* A source over `width` x `height` samples of `dtype` (borrowed). */
winent_status winent_source_memory_open(const void *data, int width, int height,
                                        winent_dtype dtype, winent_source **out, winent_err *err);

/* A sink that stores the map into `dst` (width x height floats, borrowed);
 * encoders copy their rows straight into place. */
winent_status winent_sink_memory_open(float *dst, int width, int height, winent_sink **out,
                                      winent_err *err);

#endif
