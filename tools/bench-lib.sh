# SPDX-License-Identifier: BSD-3-Clause
# Timing helpers shared by the tools/bench-*.sh scripts. Sourced, not run:
#   . "$(dirname "$0")/bench-lib.sh"
# POSIX sh and awk only; every helper prints its answer on standard output.

# now: the wall clock in seconds, to the nanosecond (date +%s.%N).
now() { date +%s.%N; }

# now_ms: the wall clock in whole milliseconds.
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# secs T0 T1 [FORMAT]: seconds from T0 to T1 (printf FORMAT, default %.4f).
secs() { awk -v a="$1" -v b="$2" -v f="${3:-%.4f}" 'BEGIN { printf f, b - a }'; }

# calc EXPR: an awk expression's value ("calc '3 / 4'").
calc() { awk "BEGIN { print $1 }"; }

# lowest: the numerically smallest line of standard input (the best time,
# with the rest of its line).
lowest() { sort -n | head -n 1; }

# median: the median of the numbers on standard input, one a line (the
# lower middle one of an even count).
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# stats_num NAME [FILE]: the number NAME of a --stats JSON line ("wall_s",
# "setup_s"), from FILE or standard input; the first one found.
stats_num() { sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p" ${2:+"$2"} | head -n 1; }

# time_into FILE COMMAND...: run COMMAND under GNU time and append
# "wall user sys peak_rss_kib" to FILE; its exit status is COMMAND's.
time_into() {
    _ti_f=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$_ti_f.t" "$@"
    _ti_rc=$?
    tail -n 1 "$_ti_f.t" >>"$_ti_f" # GNU time may first say the exit status
    rm -f "$_ti_f.t"
    return $_ti_rc
}

# machine: "N cores, CPU MODEL" of this host.
machine() { echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"; }

# envi_hdr FILE.hdr W H GDAL_ENVI_TYPE: an ENVI header for a raw one-band
# file, so that gdal_translate reads it (type 1: u8, 4: f32).
envi_hdr() {
    printf 'ENVI\nsamples = %s\nlines = %s\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = %s\ninterleave = bsq\nbyte order = 0\n' "$2" "$3" "$4" >"$1"
}

# landscape_raw FILE W H [PYTHON]: a raw u8 landscape of 12 values (smooth
# fields plus noise), written in bands of rows (numpy).
landscape_raw() {
    "${4:-${PYTHON:-/usr/bin/python3}}" - "$1" "$2" "$3" <<'PY'
import sys, numpy as np
path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(1)
x = np.arange(w)
with open(path, 'wb') as f:
    for y0 in range(0, h, 1024):
        y = np.arange(y0, min(h, y0 + 1024))[:, None]
        v = (np.sin(x / 97.0) + np.cos(y / 53.0) + np.sin((x + y) / 31.0)) * 2 + 6
        v = v + rng.integers(0, 2, v.shape)
        f.write(np.clip(v, 0, 11).astype('u1').tobytes())
PY
}
