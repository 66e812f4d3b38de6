#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tools/perf-chart.py: it runs on Debian's python3 alone, writes an SVG an
# XML parser reads (one bar per measured value), and the chart and the
# table committed for the README are what the script makes of
# docs/PERFORMANCE.md today (so a new measurement there shows up as a
# failure here until the chart and the README's table are made again:
#   tools/perf-chart.py docs/PERFORMANCE.md docs/perf-jobs.svg
#   tools/perf-chart.py --table docs/PERFORMANCE.md  -> README "Performance").
. "$WINENT_SRC/tests/lib/cli_lib.sh"
CHART="$WINENT_SRC/tools/perf-chart.py"

check "the script runs" "$PY" "$CHART" "$WINENT_SRC/docs/PERFORMANCE.md" "$T/chart.svg"
check "the SVG is XML with a bar per value and the jobs named" "$PY" -c "
import re, sys, xml.etree.ElementTree as ET
root = ET.parse('$T/chart.svg').getroot()
ns = '{http://www.w3.org/2000/svg}'
if root.tag != ns + 'svg':
    sys.exit('root %s' % root.tag)
texts = [t.text or '' for t in root.iter(ns + 'text')]
bars = [r for r in root.iter(ns + 'rect') if r.get('x') == '190' and float(r.get('height')) < 14]
if not any(t.startswith('J1 ') for t in texts) or len(bars) < 6:
    sys.exit('texts %r, %d bars' % (texts[:8], len(bars)))"
check "the committed chart is the script's output" cmp -s "$T/chart.svg" "$WINENT_SRC/docs/perf-jobs.svg"
"$PY" "$CHART" --table "$WINENT_SRC/docs/PERFORMANCE.md" >"$T/table.md"
sed -n '/<!-- perf-table: begin -->/,/<!-- perf-table: end -->/p' "$WINENT_SRC/README.md" |
    sed '1d;$d' >"$T/readme-table.md"
check "the README's performance table is the script's" cmp -s "$T/table.md" "$T/readme-table.md"
check "a heading that is not there is an error" sh -c \
    "! '$PY' '$CHART' --heading 'no such heading' '$WINENT_SRC/docs/PERFORMANCE.md' '$T/x.svg' 2>/dev/null"
finish
