#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""perf-chart.py - a bar chart (SVG) of one table of docs/PERFORMANCE.md.

    tools/perf-chart.py [--heading TEXT] [--series A,B,C] [--unit s]
                        [--title TEXT] PERFORMANCE.md OUT.svg
    tools/perf-chart.py --table [--heading TEXT] [--series A,B,C] PERFORMANCE.md

Takes the first Markdown table after the heading whose text starts with
TEXT, one group of bars per row (its first cell names it), one bar per
series column (the column headers, as written, before any parenthesis), and
writes a plain SVG 1.1 file: no matplotlib, only Debian's python3. A cell's
value is the first number in it ("**0.61** (cpu:150)" is 0.61); an empty
cell is drawn as "not run". The same table gives the same bytes, so the
committed chart can be checked against the table (tests/docs/test_perf_chart.sh).

--table prints instead the rows and series columns as a Markdown table,
the one the README shows beside the chart (the test compares the two).

Defaults: the whole-job table of the last H100 run in docs/PERFORMANCE.md,
as the README shows it.
"""
import argparse
import re
import sys
from xml.sax.saxutils import escape

DEFAULT_HEADING = "The six jobs"
DEFAULT_SERIES = "cpu,GPU 0,auto"
# Okabe and Ito's colour-blind-safe palette: blue, orange, bluish green, ...
COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00"]


def table_after(text, heading):
    """Rows (lists of cells) of the first table after the heading."""
    lines = text.splitlines()
    start = None
    for i, line in enumerate(lines):
        if line.startswith("#") and line.lstrip("#").strip().startswith(heading):
            start = i + 1
            break
    if start is None:
        sys.exit("perf-chart.py: no heading starting with %r" % heading)
    rows = []
    for line in lines[start:]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                rows.append(cells)
        elif rows:
            break
    if len(rows) < 2:
        sys.exit("perf-chart.py: no table after the heading %r" % heading)
    return rows


def first_number(cell):
    m = re.search(r"\d+(?:\.\d+)?", cell.replace("*", ""))
    return float(m.group(0)) if m else None


def nice_step(top):
    """A tick step of 1, 2 or 5 times a power of ten, about 5 ticks."""
    raw = top / 5
    p = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 0.1
    while p > raw:
        p /= 10
    for m in (1, 2, 5, 10):
        if m * p >= raw:
            return m * p
    return 10 * p


def fmt(v):
    return ("%.2f" % v).rstrip("0").rstrip(".")


def series_values(rows, series):
    """[(row name, [value or None per series])] of the table."""
    header = [re.sub(r"\s*\(.*", "", h) for h in rows[0]]
    cols = []
    for s in series:
        if s not in header:
            sys.exit("perf-chart.py: no column %r in %r" % (s, header))
        cols.append(header.index(s))
    return [(r[0], [first_number(r[c]) if c < len(r) else None for c in cols])
            for r in rows[1:]]


def markdown(rows, series, unit):
    groups = series_values(rows, series)
    out = ["| %s | %s |" % (rows[0][0], " | ".join("%s (%s)" % (s, unit) for s in series)),
           "|---|" + "---|" * len(series)]
    for name, vals in groups:
        best = min((v for v in vals if v is not None), default=None)
        cells = ["not run" if v is None else ("**%.2f**" % v if v == best else "%.2f" % v)
                 for v in vals]
        out.append("| %s | %s |" % (name, " | ".join(cells)))
    return "\n".join(out) + "\n"


def chart(rows, series, unit, title):
    groups = series_values(rows, series)
    top = max(v for _, vals in groups for v in vals if v is not None)
    step = nice_step(top)
    axis_max = step * int(top / step + 1)

    bar_h, gap, label_w, plot_w = 14, 12, 190, 440
    top_y = 58
    group_h = len(series) * bar_h + gap
    height = top_y + len(groups) * group_h + 40
    width = label_w + plot_w + 70
    x_of = lambda v: label_w + v / axis_max * plot_w  # noqa: E731

    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="DejaVu Sans, Verdana, sans-serif" font-size="12">'
           % (width, height, width, height),
           '<rect width="100%" height="100%" fill="#ffffff"/>',
           '<text x="%d" y="20" font-size="14" font-weight="bold">%s</text>' % (8, escape(title))]
    # Legend.
    lx = label_w
    for i, s in enumerate(series):
        out.append('<rect x="%d" y="30" width="12" height="12" fill="%s"/>'
                   % (lx, COLOURS[i % len(COLOURS)]))
        out.append('<text x="%d" y="40">%s</text>' % (lx + 16, escape(s)))
        lx += 28 + 8 * len(s)
    # Grid and axis.
    y_end = top_y + len(groups) * group_h - gap + 4
    t = 0.0
    while t <= axis_max + 1e-9:
        x = x_of(t)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#dddddd"/>'
                   % (x, top_y - 4, x, y_end))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (x, y_end + 14, fmt(t)))
        t += step
    out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
               % (label_w + plot_w / 2, y_end + 30, escape(unit)))
    # Bars.
    for g, (name, vals) in enumerate(groups):
        y0 = top_y + g * group_h
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                   % (label_w - 8, y0 + len(series) * bar_h / 2 + 4, escape(name)))
        best = min((v for v in vals if v is not None), default=None)
        for i, v in enumerate(vals):
            y = y0 + i * bar_h
            if v is None:
                out.append('<text x="%d" y="%d" fill="#777777" font-size="10">%s: not run</text>'
                           % (label_w + 4, y + 11, escape(series[i])))
                continue
            out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>'
                       % (label_w, y + 1, x_of(v) - label_w, bar_h - 2,
                          COLOURS[i % len(COLOURS)]))
            weight = ' font-weight="bold"' if v == best else ""
            out.append('<text x="%.1f" y="%d" font-size="10"%s>%s</text>'
                       % (x_of(v) + 4, y + 11, weight, fmt(v)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--heading", default=DEFAULT_HEADING)
    ap.add_argument("--series", default=DEFAULT_SERIES)
    ap.add_argument("--unit", default="job wall time, seconds (shorter is better; bold: fastest)")
    ap.add_argument("--title", default="winent-stream whole jobs on one H100 and 16 cores")
    ap.add_argument("--table", action="store_true", help="print the Markdown table instead")
    ap.add_argument("performance_md")
    ap.add_argument("out_svg", nargs="?")
    a = ap.parse_args()
    rows = table_after(open(a.performance_md, encoding="utf-8").read(), a.heading)
    series = [s.strip() for s in a.series.split(",")]
    if a.table:
        sys.stdout.write(markdown(rows, series, "s"))
        return
    if a.out_svg is None:
        ap.error("give OUT.svg (or --table)")
    svg = chart(rows, series, a.unit, a.title)
    with open(a.out_svg, "w", encoding="utf-8") as f:
        f.write(svg)


if __name__ == "__main__":
    main()
