/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * colormap.h - the preview's sequential colour map, built at run time from
 * a documented construction (no table copied from elsewhere).
 *
 * A path through CIELAB (D65 white), t = i / 255 for entry i:
 *   - lightness rises linearly, L*(t) = 15 + 75 t (dark to light, so the
 *     order of values reads in grey, and under every colour-vision
 *     deficiency, since those keep lightness);
 *   - hue turns from 305 degrees (indigo) through teal and green to 100
 *     degrees (yellow), h(t) = 305 - 205 t: the blue-yellow axis that
 *     protanopes and deuteranopes still see, never red against green;
 *   - chroma follows the parabola through 55 (t = 0), 30 (t = 0.5) and 85
 *     (t = 1), reduced (bisection) where sRGB cannot show it, hue and
 *     lightness kept.
 * Each colour is converted to sRGB (IEC 61966-2-1) and rounded to 8 bits
 * per channel: of the 8 neighbours (each channel rounded down or up), the
 * one whose L* is nearest L*(t), so that the 8-bit entries still have
 * strictly increasing lightness (tests/preview/test_preview.c checks it).
 */
#ifndef WINENT_COLORMAP_H
#define WINENT_COLORMAP_H

#include <stdint.h>

/* Entries of the colour map: index 0 is the scale's low end. */
#define WINENT_COLORMAP_SIZE 256

/* Fill `rgb` with the colour map, 3 bytes (R, G, B) per entry (a few
 * microseconds). Thread-safe. */
void winent_colormap_build(uint8_t rgb[WINENT_COLORMAP_SIZE][3]);

/* CIE L* (0..100) of an 8-bit sRGB colour (D65). Thread-safe. */
double winent_srgb8_lightness(const uint8_t rgb[3]);

#endif
