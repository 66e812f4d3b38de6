/* SPDX-License-Identifier: BSD-3-Clause */
/* The preview's colour map: a lightness-monotonic path through CIELAB
 * (colormap.h says which), converted to 8-bit sRGB. */
#include "colormap.h"

#include <math.h>

#define L_LOW    15.0  /* L* of entry 0 */
#define L_HIGH   90.0  /* L* of the last entry */
#define HUE_LOW  305.0 /* degrees */
#define HUE_HIGH 100.0
#define C_LOW    55.0 /* chroma at t = 0, 0.5, 1 */
#define C_MID    30.0
#define C_HIGH   85.0

/* D65 reference white (CIE 1931 2 degrees). */
#define XN 0.95047
#define YN 1.0
#define ZN 1.08883

static double lab_finv(double t)
{
    const double d = 6.0 / 29.0;
    return t > d ? t * t * t : 3.0 * d * d * (t - 4.0 / 29.0);
}

/* CIELAB to linear sRGB (may fall outside [0, 1]: out of gamut). */
static void lab_to_linear(double L, double a, double b, double rgb[3])
{
    double fy = (L + 16.0) / 116.0, fx = fy + a / 500.0, fz = fy - b / 200.0;
    double X = XN * lab_finv(fx), Y = YN * lab_finv(fy), Z = ZN * lab_finv(fz);
    rgb[0] = 3.2404542 * X - 1.5371385 * Y - 0.4985314 * Z;
    rgb[1] = -0.9692660 * X + 1.8760108 * Y + 0.0415560 * Z;
    rgb[2] = 0.0556434 * X - 0.2040259 * Y + 1.0572252 * Z;
}

static int in_gamut(const double rgb[3])
{
    for (int c = 0; c < 3; c++)
        if (!(rgb[c] >= 0.0 && rgb[c] <= 1.0))
            return 0;
    return 1;
}

/* The sRGB transfer function, linear [0, 1] to encoded [0, 1]. */
static double srgb_encode(double c)
{
    c = c < 0.0 ? 0.0 : c > 1.0 ? 1.0 : c;
    return c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}

static double srgb_decode(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

double winent_srgb8_lightness(const uint8_t rgb[3])
{
    double r = srgb_decode(rgb[0] / 255.0), g = srgb_decode(rgb[1] / 255.0),
           b = srgb_decode(rgb[2] / 255.0);
    /* Y of linear sRGB: the middle row of the sRGB-to-XYZ matrix. */
    double Y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    const double d = 6.0 / 29.0;
    double f = Y > d * d * d ? cbrt(Y) : Y / (3.0 * d * d) + 4.0 / 29.0;
    return 116.0 * f - 16.0;
}

void winent_colormap_build(uint8_t rgb[WINENT_COLORMAP_SIZE][3])
{
    const double pi = 3.14159265358979323846;
    for (int i = 0; i < WINENT_COLORMAP_SIZE; i++) {
        double t = (double)i / (WINENT_COLORMAP_SIZE - 1);
        double L = L_LOW + (L_HIGH - L_LOW) * t;
        double h = (HUE_LOW + (HUE_HIGH - HUE_LOW) * t) * pi / 180.0;
        /* Lagrange's parabola through (0, C_LOW), (0.5, C_MID), (1, C_HIGH). */
        double C = C_LOW * (1.0 - t) * (1.0 - 2.0 * t) + C_MID * 4.0 * t * (1.0 - t) +
                   C_HIGH * t * (2.0 * t - 1.0);
        double lin[3];
        lab_to_linear(L, C * cos(h), C * sin(h), lin);
        if (!in_gamut(lin)) {
            /* The most chroma sRGB shows at this lightness and hue. */
            double lo = 0.0, hi = C;
            for (int k = 0; k < 40; k++) {
                double mid = 0.5 * (lo + hi);
                lab_to_linear(L, mid * cos(h), mid * sin(h), lin);
                if (in_gamut(lin))
                    lo = mid;
                else
                    hi = mid;
            }
            lab_to_linear(L, lo * cos(h), lo * sin(h), lin);
        }
        double enc[3];
        for (int c = 0; c < 3; c++)
            enc[c] = srgb_encode(lin[c]) * 255.0;
        /* Of the 8 roundings (each channel down or up), the one whose L* is
         * nearest the path's: lightness stays strictly increasing. */
        double best = INFINITY;
        for (int k = 0; k < 8; k++) {
            uint8_t cand[3];
            for (int c = 0; c < 3; c++) {
                int v = (int)floor(enc[c]) + ((k >> c) & 1);
                cand[c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
            double d = fabs(winent_srgb8_lightness(cand) - L);
            if (d < best) {
                best = d;
                rgb[i][0] = cand[0];
                rgb[i][1] = cand[1];
                rgb[i][2] = cand[2];
            }
        }
    }
}
