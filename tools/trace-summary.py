#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarise a job's timeline (WINENT_TRACE=PATH, src/pipeline/trace.h).

    trace-summary.py TRACE.csv [...]

One line per lane (the reader, the writer, each engine's driver): when it
came up, its chunks, and where its time went, in milliseconds from the
job's start: `claim` waiting for a chunk to claim, `submit` in the
engine's submit (pinning and enqueueing), `sync` waiting for the device,
`pin` pinning memory; for the reader `take` waiting for a free chunk; for
the writer `idle` waiting for the next chunk in order. Standard library
only (runs on the device machines as they come)."""
import csv
import sys
from collections import defaultdict

PAIRS = {  # start event -> (end event, column)
    "claim": ("claimed", "claim"),
    "claimed": ("submitted", "submit"),
    "wait": ("done", "sync"),
    "pin": ("pinned", "pin"),
    "pin-user": ("pinned-user", "pin"),
    "take": ("read", "take"),
    "read": ("ready", "read"),
    "write": ("written", "write"),
    "fill": ("filled", "fill"),
    "store": ("stored", "store"),
    "encode": ("encoded", "encode"),
    "band": ("banded", "band"),
    "count": ("counted", "count"),
    "decode": ("decoded", "decode"),
}
COLS = ["claim", "submit", "sync", "pin", "take", "read", "write", "idle", "fill", "store",
        "encode", "band", "count", "decode"]


def summarise(path):
    lanes = defaultdict(list)
    names = {}
    workers = set()
    for row in csv.DictReader(open(path)):
        lane = int(row["lane"])
        if row["name"].startswith("pool"):
            workers.add(lane)
            lane = -1  # the pool's workers: one row
        names[lane] = row["name"]
        if row["event"] == "lost":
            continue
        lanes[lane].append((float(row["t_ms"]), row["event"], int(row["seq"]), int(row["lane"])))
    if workers:
        names[-1] = f"pool ({len(workers)} workers)"
    print(f"## {path}")
    print("| lane | first ms | live ms | last ms | chunks | " + " | ".join(COLS) + " |")
    print("|---" * (5 + len(COLS)) + "|")
    for lane in sorted(lanes, key=lambda k: (k < 0, k)):
        ev = sorted(lanes[lane], key=lambda x: x[0])  # stable: a lane's own order kept
        tot = defaultdict(float)
        open_ = {}
        chunks = 0
        live = ""
        last_written = None
        for t, e, seq, src in ev:
            if e == "live":
                live = f"{t:.1f}"
            if e in ("done", "written"):
                chunks += 1
            if e == "write" and last_written is not None:
                tot["idle"] += t - last_written
            if e == "written":
                last_written = t
            for start, (end, col) in PAIRS.items():
                if e == start:
                    open_[(src, end)] = t
                elif e == end and (src, end) in open_:
                    tot[col] += t - open_.pop((src, end))
        print(f"| {names[lane]} | {ev[0][0]:.1f} | {live} | {ev[-1][0]:.1f} | {chunks} | "
              + " | ".join(f"{tot[c]:.1f}" if tot[c] else "" for c in COLS) + " |")


for p in sys.argv[1:]:
    summarise(p)
