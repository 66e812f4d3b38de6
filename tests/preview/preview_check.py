#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks of a winent-stream --preview PNG, written apart from the C code:
the PNG is decoded with Pillow (Debian python3-pil, not libpng), the
colour map is built again from its documented construction (docs/SPEC.md,
"Preview"), and the block means come from numpy over the raw map of the
same job.

    preview_check.py colormap                  the construction's lightness is
                                               strictly increasing (8-bit)
    preview_check.py image PNG MAP.raw W H SIZE STRETCH UNIT
                                               size (exactly the image's),
                                               every pixel's colour or
                                               transparency, the legend
                                               beside it (NAME.legend.png);
                                               STRETCH is LO:HI
                                               (--preview-range), or auto:
                                               the 2nd and 98th percentiles
                                               of the block means (numpy's
                                               linear), or full:VMAX (0 to
                                               VMAX: a map with no spread)
    preview_check.py classes PNG MAP.raw W H SIZE
                                               a class map's (the majority's):
                                               each pixel the colour of the
                                               map's value at its block's
                                               centre, stretched over the 2nd
                                               and 98th percentiles of those,
                                               so no colour of a class the
                                               map does not hold
    preview_check.py size PNG W H SIZE         only the image's size
Exit 0 when every check holds, else 1 with the failures on stderr.
"""
import math
import sys

import numpy as np
from PIL import Image

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


# ---- PNG, decoded by Pillow (Debian python3-pil) ------------------------------

def read_png(path):
    """(width, height, rgba uint8 array H x W x 4, text chunks dict). Pillow
    checks each chunk's CRC and undoes every row filter."""
    try:
        im = Image.open(path)
        im.load()
    except (OSError, SyntaxError) as e:
        sys.exit("%s: not a valid PNG: %s" % (path, e))
    if im.format != "PNG" or im.mode != "RGBA" or im.info.get("interlace"):
        sys.exit("%s: not 8-bit RGBA, non-interlaced: %s %s %r" % (path, im.format, im.mode,
                                                                im.info))
    text = {k: v for k, v in im.text.items()}
    return im.width, im.height, np.asarray(im, dtype=np.uint8), text


# ---- The colour map, from its construction ----------------------------------

def lab_to_linear(L, a, b):
    d = 6 / 29

    def finv(t):
        return t ** 3 if t > d else 3 * d * d * (t - 4 / 29)
    fy = (L + 16) / 116
    X, Y, Z = 0.95047 * finv(fy + a / 500), finv(fy), 1.08883 * finv(fy - b / 200)
    return (3.2404542 * X - 1.5371385 * Y - 0.4985314 * Z,
            -0.9692660 * X + 1.8760108 * Y + 0.0415560 * Z,
            0.0556434 * X - 0.2040259 * Y + 1.0572252 * Z)


def lightness(rgb):
    def dec(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (dec(float(v)) for v in rgb)
    Y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    d = 6 / 29
    f = Y ** (1 / 3) if Y > d ** 3 else Y / (3 * d * d) + 4 / 29
    return 116 * f - 16


def colormap():
    """L* 15 -> 90 linear, hue 305 -> 100 degrees, chroma the parabola
    through 55, 30, 85, reduced into sRGB; each entry the 8-bit rounding
    (of 8) whose L* is nearest the path's."""
    table = []
    for i in range(256):
        t = i / 255
        L = 15 + 75 * t
        h = math.radians(305 - 205 * t)
        C = 55 * (1 - t) * (1 - 2 * t) + 30 * 4 * t * (1 - t) + 85 * t * (2 * t - 1)

        def ok(c):
            return all(0 <= v <= 1 for v in lab_to_linear(L, c * math.cos(h), c * math.sin(h)))
        if not ok(C):
            lo, hi = 0.0, C
            for _ in range(40):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if ok(mid) else (lo, mid)
            C = lo
        lin = lab_to_linear(L, C * math.cos(h), C * math.sin(h))

        def enc(c):
            c = min(max(c, 0.0), 1.0)
            return 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055
        e = [enc(c) * 255 for c in lin]
        best = None
        for k in range(8):
            cand = tuple(min(255, int(math.floor(e[c])) + ((k >> c) & 1)) for c in range(3))
            dist = abs(lightness(cand) - L)
            if best is None or dist < best[0]:
                best = (dist, cand)
        table.append(best[1])
    return np.array(table, dtype=np.int32)


# ---- The checks ---------------------------------------------------------------

def dims(W, H, size):
    longest, shortest = max(W, H), min(W, H)
    L = min(size, longest)
    s = max(1, (2 * shortest * L + longest) // (2 * longest))
    return (L, s) if W >= H else (s, L)


def check_size(png, W, H, size):
    w, h, rgba, text = read_png(png)
    pw, ph = dims(W, H, size)
    check(max(pw, ph) == min(size, max(W, H)), "longest side %d, want %d" %
          (max(pw, ph), min(size, max(W, H))))
    check(pw <= W and ph <= H, "larger than the map: %dx%d for %dx%d" % (pw, ph, W, H))
    # The short side in proportion, rounded (at least 1 pixel).
    short_exact = H * pw / W if W >= H else W * ph / H
    short = ph if W >= H else pw
    check(abs(short - short_exact) <= 0.5 or (short == 1 and short_exact < 1),
          "aspect: %dx%d for a %dx%d map" % (pw, ph, W, H))
    # Exactly the image: a world file then places every pixel on the map.
    check(w == pw and h == ph, "PNG %dx%d, want exactly the %dx%d image" % (w, h, pw, ph))
    desc = text.get("Description", "")
    check(("at %dx%d" % (pw, ph)) in desc, "Description names the size %dx%d: %r" %
          (pw, ph, desc))
    return w, h, rgba, pw, ph


def check_image(png, raw, W, H, size, stretch, unit):
    w, h, rgba, pw, ph = check_size(png, W, H, size)
    if failures:
        return
    cmap = colormap()
    m = np.fromfile(raw, dtype="<f4")
    check(m.size == W * H, "map size")
    m = m.reshape(H, W).astype(np.float64)
    valid = ~np.isnan(m)
    jx = (np.arange(W) * pw) // W
    jy = (np.arange(H) * ph) // H
    idx = (jy[:, None] * pw + jx[None, :]).ravel()
    sums = np.bincount(idx, weights=np.where(valid, m, 0).ravel(), minlength=pw * ph)
    cnts = np.bincount(idx, weights=valid.ravel().astype(np.float64), minlength=pw * ph)
    sums, cnts = sums.reshape(ph, pw), cnts.reshape(ph, pw)
    img = rgba[:ph, :pw].astype(np.int32)
    empty = cnts == 0
    check(empty.any(), "the test map has no block without a valid pixel")
    check((img[empty][:, 3] == 0).all(), "%d all-nodata blocks not transparent" %
          int((img[empty][:, 3] != 0).sum()))
    full = ~empty
    check((img[full][:, 3] == 255).all(), "%d blocks with data not opaque" %
          int((img[full][:, 3] != 255).sum()))
    mean = np.where(full, sums / np.where(full, cnts, 1), 0)
    # The stretch: the ends of the colour map are the 2nd and 98th
    # percentiles of the shown means (or the range given, or 0..VMAX).
    if stretch == "auto":
        lo, hi = (float(v) for v in np.percentile(mean[full], [2, 98]))
    elif stretch.startswith("full:"):
        lo, hi = 0.0, float(stretch[5:])
    else:
        lo, hi = (float(v) for v in stretch.split(":"))
    want = np.rint(np.clip((mean - lo) / (hi - lo), 0, 1) * 255).astype(np.int64) if hi > lo \
        else np.zeros_like(mean, dtype=np.int64)
    if stretch == "auto":
        # The stretch fills the ramp: at least 1 % of the shown pixels take
        # each end's colour (2 % lie at or beyond each percentile).
        n = int(full.sum())
        for end in (0, 255):
            k = int((want[full] == end).sum())
            check(k >= 0.01 * n, "%d of %d pixels at colour entry %d: the stretch does not "
                  "reach the ramp's end" % (k, n, end))
    # One colour step of tolerance: the entry, or a neighbour (means at
    # an entry's edge may round the other way); each channel within 1
    # (the construction's float arithmetic against C's).
    got = img[..., :3]
    ok = np.zeros((ph, pw), dtype=bool)
    for d in (-1, 0, 1):
        e = np.clip(want + d, 0, 255)
        ok |= (np.abs(got - cmap[e]) <= 1).all(axis=2)
    bad = full & ~ok
    check(not bad.any(), "%d of %d pixels not the colour of their block's mean (first at %s)" %
          (int(bad.sum()), int(full.sum()), tuple(np.argwhere(bad)[0]) if bad.any() else ""))
    if not stretch.startswith("full:"):
        check(len(np.unique(want[full])) > 20, "the test map uses too few colours")
    # The legend, in its own PNG beside the image: opaque; a bar from
    # entry 0 to the last; text in dark ink below it, at both ends.
    legend = png[:-len(".png")] + ".legend" + png[-len(".png"):]
    w, lh, leg, ltext = read_png(legend)
    leg = leg.astype(np.int32)
    check(w >= pw, "legend %d wide, narrower than the image (%d)" % (w, pw))
    check((leg[..., 3] == 255).all(), "legend not opaque")
    row_is_bar = [((np.abs(r[:, :3] - cmap[0]) <= 1).all(axis=1).any() and
                   (np.abs(r[:, :3] - cmap[255]) <= 1).all(axis=1).any()) for r in leg]
    check(any(row_is_bar), "no legend bar (entry 0 and the last in one row)")
    if any(row_is_bar):
        bar = leg[row_is_bar.index(True)]
        xs = [x for x in range(w) if tuple(bar[x, :3]) != (255, 255, 255)]
        x0, x1 = xs[0], xs[-1]
        check(x1 - x0 + 1 >= min(pw, 64), "legend bar only %d pixels wide" % (x1 - x0 + 1))
        Ls = [lightness(bar[x, :3]) for x in range(x0, x1 + 1)]
        check(all(b >= a for a, b in zip(Ls, Ls[1:])),
              "legend bar lightness not increasing left to right")
        n = x1 - x0 + 1
        for x in range(x0, x1 + 1):
            e = int(np.rint((x - x0) * 255 / (n - 1))) if n > 1 else 0
            if not check((np.abs(bar[x, :3] - cmap[e]) <= 1).all(),
                         "legend bar at %d: %r, the colour map's entry %d is %r" %
                         (x, tuple(bar[x, :3]), e, tuple(cmap[e]))):
                break
        ink = (leg[..., :3] == 32).all(axis=2)
        below = ink[row_is_bar.index(True):]
        check(below[:, :w // 4].any() and below[:, 3 * w // 4:].any(),
              "legend labels missing at the ends of the bar")
    # The stretch as the Descriptions state it (6 digits; the C side's
    # means are float32, numpy's float64: the last digit may differ).
    import re
    for what, desc in (("PNG", read_png(png)[3].get("Description", "")),
                       ("legend", ltext.get("Description", ""))):
        m = re.search(r"colours from (\S+) %s .* to (\S+) %s " % (unit, unit), desc)
        check(m is not None, "%s: Description does not give the stretch in %s: %r" %
              (what, unit, desc))
        if m:
            dlo, dhi = float(m.group(1)), float(m.group(2))
            tol = 1e-5 * max(1.0, abs(hi))
            check(abs(dlo - lo) <= tol and abs(dhi - hi) <= tol,
                  "%s: Description's stretch %g..%g, want %.6g..%.6g: %r" %
                  (what, dlo, dhi, lo, hi, desc))


def check_classes(png, raw, W, H, size):
    w, h, rgba, pw, ph = check_size(png, W, H, size)
    if failures:
        return
    cmap = colormap()
    m = np.fromfile(raw, dtype="<f4").reshape(H, W).astype(np.float64)
    # Block edges (first row or column of each block, ceil(j n / p)) and
    # the centre of each: the upper or left of two middles.
    ey = -(-np.arange(ph + 1) * H // ph)
    ex = -(-np.arange(pw + 1) * W // pw)
    cy = ey[:-1] + (ey[1:] - ey[:-1] - 1) // 2
    cx = ex[:-1] + (ex[1:] - ex[:-1] - 1) // 2
    sample = m[np.ix_(cy, cx)]
    img = rgba[:ph, :pw].astype(np.int32)
    full = ~np.isnan(sample)
    check((img[~full][:, 3] == 0).all(), "nodata centres not transparent")
    check((img[full][:, 3] == 255).all(), "centres with a class not opaque")
    lo, hi = (float(v) for v in np.percentile(sample[full], [2, 98]))
    check(hi > lo, "the test map's preview shows one class")
    entry = lambda v: np.rint(np.clip((v - lo) / (hi - lo), 0, 1) * 255).astype(np.int64)
    want = entry(np.where(full, sample, lo))
    got = img[..., :3]
    bad = full & ~(np.abs(got - cmap[want]) <= 1).all(axis=2)
    check(not bad.any(), "%d of %d pixels not the colour of their block's centre class" %
          (int(bad.sum()), int(full.sum())))
    # No colour of a class the map does not hold (a mean of two).
    classes = np.unique(m[~np.isnan(m)])
    allowed = cmap[np.unique(entry(classes))]
    shown = got[full]
    near = (np.abs(shown[:, None, :] - allowed[None, :, :]) <= 1).all(axis=2).any(axis=1)
    check(near.all(), "%d pixels coloured as no class of the map" % int((~near).sum()))


def main():
    mode = sys.argv[1]
    if mode == "colormap":
        cmap = colormap()
        Ls = [lightness(c) for c in cmap]
        check(all(b > a for a, b in zip(Ls, Ls[1:])), "lightness not strictly increasing")
        check(Ls[0] < 20 and Ls[-1] > 85, "lightness range %.1f..%.1f" % (Ls[0], Ls[-1]))
    elif mode == "image":
        png, raw, W, H, size, stretch, unit = sys.argv[2:9]
        check_image(png, raw, int(W), int(H), int(size), stretch, unit)
    elif mode == "classes":
        png, raw, W, H, size = sys.argv[2:7]
        check_classes(png, raw, int(W), int(H), int(size))
    elif mode == "size":
        png, W, H, size = sys.argv[2:6]
        check_size(png, int(W), int(H), int(size))
    else:
        sys.exit("unknown mode %s" % mode)
    for f in failures:
        sys.stderr.write("preview_check.py: %s\n" % f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
