/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * footprints.h - footprints for the tests of shaped windows, made from
 * their definitions here (not from the library's plan): scikit-image's
 * diamond, a ring with a hole (its centre out), a rectangle of ones of
 * any parity (even sides: scikit-image's centre), a comb of several runs
 * per row and per column, and a seeded random mask. C and C++ (the CUDA
 * twins include it).
 */
#ifndef WINENT_TEST_FOOTPRINTS_H
#define WINENT_TEST_FOOTPRINTS_H

#include <stdlib.h>

enum { FP_DIAMOND, FP_RING, FP_ONES, FP_COMB, FP_RANDOM, FP_COUNT };

static const char *const fp_names[FP_COUNT] = {"diamond", "ring", "ones", "comb", "random"};

/* Footprint `shape` of size parameter `a` (and `b`) into m (ky rows of kx
 * bytes, at least 255 * 255); its sides into *kx, *ky. diamond(a): |dx| +
 * |dy| <= a; ring(a, b): b^2 < dx^2 + dy^2 <= a^2; ones(a, b): a columns,
 * b rows; comb(a, b): a x b, the pixels with (dx + dy) % 3 != 1 or on the
 * first row; random(a, b): a x b, about half set, seeded by a * 256 + b. */
static void fp_make(int shape, int a, int b, int *kx, int *ky, unsigned char *m)
{
    unsigned long long s = (unsigned long long)a * 256u + (unsigned)b + 1u;
    int w = a, h = b;
    if (shape == FP_DIAMOND || shape == FP_RING)
        w = h = 2 * a + 1;
    for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++) {
            const int dx = c - w / 2, dy = r - h / 2;
            int on = 1;
            switch (shape) {
            case FP_DIAMOND: on = abs(dx) + abs(dy) <= a; break;
            case FP_RING: on = dx * dx + dy * dy <= a * a && dx * dx + dy * dy > b * b; break;
            case FP_COMB: on = r == 0 || (r + c) % 3 != 1; break;
            case FP_RANDOM:
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                on = (s >> 33) % 2u == 0u;
                break;
            default: break;
            }
            m[r * w + c] = (unsigned char)on;
        }
    *kx = w;
    *ky = h;
}

#endif
