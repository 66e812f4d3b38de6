#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The README's picture, docs/img/texture.png: scikit-image's `camera`
image (8-bit, 512 x 512) beside the preview winent-stream makes of its
9 x 9 entropy map, both halved, side by side.

    tools/readme-figure.py BUILD OUT.png     (e.g. build docs/img/texture.png)

Needs Debian's python3-skimage and python3-pil.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import skimage.data
from PIL import Image


def main():
    build, out = sys.argv[1], sys.argv[2]
    image = skimage.data.camera()
    h, w = image.shape
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "camera.u8")
        image.tofile(raw)
        png = os.path.join(tmp, "map.png")
        subprocess.run([os.path.join(build, "src", "winent-stream"), "--quiet", "--window", "9",
                        "--base", "2", "--size", "%dx%d" % (w, h), "--dtype", "u8",
                        "--preview", png, raw, os.path.join(tmp, "map.zst")], check=True)
        preview = Image.open(png).convert("RGB")
        # The legend, a PNG of its own beside the preview, under it here.
        legend = Image.open(os.path.join(tmp, "map.legend.png")).convert("RGB")
    gap = 8
    left = Image.fromarray(image).convert("RGB")
    right_h = preview.height + legend.height
    canvas = Image.new("RGB", (w + gap + max(preview.width, legend.width), max(h, right_h)),
                       "white")
    canvas.paste(left, (0, 0))
    canvas.paste(preview, (w + gap, 0))
    canvas.paste(legend, (w + gap, preview.height))
    canvas = canvas.resize((canvas.width // 2, canvas.height // 2), Image.LANCZOS)
    canvas.quantize(colors=192, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)


if __name__ == "__main__":
    main()
