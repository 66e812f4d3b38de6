#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The README's picture of the measure family, docs/img/glcm.png:
scikit-image's `camera` photograph (8-bit, 512 x 512; CC0, Lav Varshney)
beside the previews winent-stream makes of its 9 x 9 entropy map and of its
9 x 9 GLCM contrast map (32 levels, mean of the four angles at distance 1),
each with its legend, halved, side by side.

    tools/readme-glcm-figure.py BUILD OUT.png    (e.g. build docs/img/glcm.png)

Needs Debian's python3-skimage and python3-pil.
"""
import os
import subprocess
import sys
import tempfile

import skimage.data
from PIL import Image


def preview(build, raw, w, h, tmp, name, options):
    """The preview PNG and its legend of one map of `raw`, as one image."""
    png = os.path.join(tmp, name + ".png")
    subprocess.run([os.path.join(build, "src", "winent-stream"), "--quiet", "--window", "9",
                    "--size", "%dx%d" % (w, h), "--dtype", "u8", *options, "--preview", png,
                    raw, os.path.join(tmp, name + ".zst")], check=True)
    top = Image.open(png).convert("RGB")
    legend = Image.open(os.path.join(tmp, name + ".legend.png")).convert("RGB")
    both = Image.new("RGB", (max(top.width, legend.width), top.height + legend.height), "white")
    both.paste(top, (0, 0))
    both.paste(legend, (0, top.height))
    return both


def main():
    build, out = sys.argv[1], sys.argv[2]
    image = skimage.data.camera()
    h, w = image.shape
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "camera.u8")
        image.tofile(raw)
        panels = [Image.fromarray(image).convert("RGB"),
                  preview(build, raw, w, h, tmp, "entropy", ["--measure", "entropy"]),
                  preview(build, raw, w, h, tmp, "contrast",
                          ["--measure", "glcm-contrast", "--levels", "32"])]
    gap = 8
    canvas = Image.new("RGB", (sum(p.width for p in panels) + gap * (len(panels) - 1),
                               max(p.height for p in panels)), "white")
    x = 0
    for p in panels:
        canvas.paste(p, (x, 0))
        x += p.width + gap
    canvas = canvas.resize((canvas.width // 2, canvas.height // 2), Image.LANCZOS)
    canvas.quantize(colors=192, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)


if __name__ == "__main__":
    main()
