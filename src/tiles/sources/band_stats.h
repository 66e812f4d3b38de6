/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * band_stats.h - the statistics of a band that a file records beside its
 * pixels, in the two places GDAL writes them: the GDAL_METADATA TIFF tag
 * (<Item name="STATISTICS_MINIMUM" sample="0">) and a PAM sidecar
 * NAME.aux.xml (<PAMRasterBand band="1"><Metadata><MDI
 * key="STATISTICS_MINIMUM">). --range auto uses them instead of a first
 * pass over the pixels. Statistics GDAL marks approximate
 * (STATISTICS_APPROXIMATE=YES: computed from overviews or a sample) are
 * not used: they may be narrower than the data.
 */
#ifndef WINENT_BAND_STATS_H
#define WINENT_BAND_STATS_H

/* What a source knows of its band's range without reading its pixels. */
typedef struct winent_band_stats {
    int found;      /* 1: min and max hold the recorded statistics */
    double min, max;
    char from[128]; /* where they came from, for messages ("TIFF metadata", "x.aux.xml") */
} winent_band_stats;

/* Look in GDAL's metadata XML (the GDAL_METADATA tag's text) for the exact
 * STATISTICS_MINIMUM and STATISTICS_MAXIMUM of band `band` (1-based).
 * Returns 1 and sets *min, *max when both are there, finite and ordered.
 * Pure function of its arguments; thread-safe. */
int winent_stats_from_gdal_metadata(const char *xml, int band, double *min, double *max);

/* The same from the PAM sidecar `path`.aux.xml, when there is one (a file
 * of at most 16 MiB). Returns 1 when found. Thread-safe. */
int winent_stats_from_aux_xml(const char *path, int band, double *min, double *max);

#endif
