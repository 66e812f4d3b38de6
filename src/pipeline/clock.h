/* clock.h - the pipeline's clock (pipeline/ only). */
#ifndef WINENT_CLOCK_H
#define WINENT_CLOCK_H

/* Seconds on a monotonic clock. */
double winent_now(void);

#endif
