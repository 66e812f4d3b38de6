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
    gap = 8
    left = Image.fromarray(image).convert("RGB")
    canvas = Image.new("RGB", (w + gap + preview.width, max(h, preview.height)), "white")
    canvas.paste(left, (0, 0))
    canvas.paste(preview, (w + gap, 0))
    canvas = canvas.resize((canvas.width // 2, canvas.height // 2), Image.LANCZOS)
    canvas.quantize(colors=192, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)


if __name__ == "__main__":
    main()
