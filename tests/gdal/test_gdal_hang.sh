#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every read of the network ends, and every signal is heard
# (docs/SPEC.md section 6). A loopback server (127.0.0.1 only,
# tests/gdal/hang_server.py) serves the first bytes of a COG through /vsicurl/
# and then accepts and never answers:
# - with GDAL's own time limit set short (GDAL_HTTP_TIMEOUT), the job ends
#   by it: exit 3, one line naming the input and the rows;
# - without it, SIGINT, SIGTERM and SIGHUP end the job blocked in GDAL's
#   read within 1 s: exit 130, "winent-stream: interrupted", no temporary
#   file left, the existing output untouched.
# And a server that never answers at all (GDAL blocked while it opens the
# input, before any output exists) is ended by SIGINT in time too.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
[ "${WINENT_HAVE_GDAL:-OFF}" = ON ] || { echo "built without GDAL (WINENT_GDAL=OFF or no libgdal-dev): skipped"; exit 77; }
need_python numpy osgeo.gdal
"$PY" -c "from osgeo import gdal; import sys; sys.exit(gdal.GetDriverByName('COG') is None)" ||
    { echo "GDAL has no COG driver: skipped"; exit 77; }
R="--quiet --device cpu --threads 2"
# Fewer probes of sidecar files, as a user reading a COG would set.
export GDAL_DISABLE_READDIR_ON_OPEN=EMPTY_DIR

# A 1024 x 1024 COG, tiles of 256, the header in the first 16 KiB.
"$PY" -c "
import numpy as np
from osgeo import gdal
a = (np.arange(1024 * 1024).reshape(1024, 1024) * 7 % 251).astype('u1')
ds = gdal.GetDriverByName('MEM').Create('', 1024, 1024, 1, gdal.GDT_Byte)
ds.GetRasterBand(1).WriteArray(a)
gdal.GetDriverByName('COG').CreateCopy('$T/cog.tif', ds,
    options=['BLOCKSIZE=256', 'OVERVIEWS=NONE', 'COMPRESS=NONE'])"

# start_server SERVE_BYTES: a server for 40 s at most; $PORT, $SRV.
start_server() {
    rm -f "$T/port"
    "$PY" "$WINENT_SRC/tests/gdal/hang_server.py" "$T/cog.tif" 40 "$T/port" "$1" &
    SRV=$!
    for _i in $(seq 1 100); do
        [ -s "$T/port" ] && break
        sleep 0.1
    done
    PORT=$(cat "$T/port")
}
stop_server() {
    kill "$SRV" 2>/dev/null || true
    wait "$SRV" 2>/dev/null || true
}
no_temporary() { ! ls -A "$T/out" | grep -q .; }

# 1. GDAL's own time limit ends the read: an input error.
start_server 16384
mkdir -p "$T/out"
set +e
GDAL_HTTP_TIMEOUT=2 "$WS" $R "/vsicurl/http://127.0.0.1:$PORT/cog.tif" "$T/out/o.raw" 2>"$T/err"
rc=$?
set -e
check "a read past GDAL_HTTP_TIMEOUT is exit 3 (got $rc: $(cat "$T/err"))" test "$rc" -eq 3
check "one line naming the input and its rows" sh -c \
    "[ \$(wc -l <'$T/err') -eq 1 ] && grep -qE '^winent-stream: /vsicurl/http://127.0.0.1:$PORT/cog.tif: cannot (read band 1, rows |decode tile [0-9]+ \(rows )' '$T/err'"
check "nothing written" no_temporary

# 2. A signal ends the job blocked in GDAL's read within 1 s (an existing
# output stays as it was). Under a sanitizer every step of the process runs
# several times slower (its start, the watchdog, the exit): 5 s there; the
# normal build holds the 1 s.
limit_ms=1000
[ -n "${WINENT_SANITIZE:-}" ] && limit_ms=5000
limit_s=$((limit_ms / 1000))
for sig in INT TERM HUP; do
    echo "the old map" >"$T/out/o.zst"
    "$WS" $R "/vsicurl/http://127.0.0.1:$PORT/cog.tif" "$T/out/o.zst" 2>"$T/err" &
    pid=$!
    # Until its temporary output exists (the read has begun), 10 s at most.
    for _i in $(seq 1 100); do
        ls "$T/out" | grep -q tmp- && break
        sleep 0.1
    done
    sleep 0.5
    check "SIG$sig: the job was blocked with its temporary output" sh -c "ls '$T/out' | grep -q tmp-"
    t0=$(date +%s%N)
    kill -$sig $pid
    set +e
    wait $pid
    rc=$?
    set -e
    ms=$((($(date +%s%N) - t0) / 1000000))
    check "SIG$sig exits 130 (got $rc)" test "$rc" -eq 130
    check "SIG$sig ends it within $limit_s s (took $ms ms)" test "$ms" -lt "$limit_ms"
    check "SIG$sig: one line 'interrupted'" sh -c \
        "[ \$(wc -l <'$T/err') -eq 1 ] && grep -qx 'winent-stream: interrupted' '$T/err'"
    check "SIG$sig: the temporary output is gone" sh -c "! ls '$T/out' | grep -q tmp-"
    check "SIG$sig: the old output is untouched" grep -qx "the old map" "$T/out/o.zst"
done
# 2b. Every temporary file of the job goes: the map's, its --sidecar
# header's and the --preview PNG's.
rm -rf "$T/out"
mkdir -p "$T/out"
"$WS" $R --sidecar --preview "$T/out/p.png" "/vsicurl/http://127.0.0.1:$PORT/cog.tif" \
    "$T/out/o.raw" 2>"$T/err" &
pid=$!
for _i in $(seq 1 100); do
    [ "$(ls "$T/out" | grep -c tmp-)" -ge 3 ] && break
    sleep 0.1
done
sleep 0.5
check "three temporary files while blocked ($(ls "$T/out" | tr '\n' ' '))" test "$(ls "$T/out" | grep -c tmp-)" -ge 3
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
check "map, sidecar and preview: exit 130 (got $rc)" test "$rc" -eq 130
check "map, sidecar and preview: nothing left ($(ls "$T/out" | tr '\n' ' '))" no_temporary
stop_server

# 3. A server that never answers: blocked while GDAL opens the input.
start_server 0
rm -rf "$T/out"
mkdir -p "$T/out"
"$WS" $R "/vsicurl/http://127.0.0.1:$PORT/cog.tif" "$T/out/o.tif" 2>"$T/err" &
pid=$!
sleep 1.5
t0=$(date +%s%N)
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
ms=$((($(date +%s%N) - t0) / 1000000))
check "blocked in open: SIGINT exits 130 (got $rc)" test "$rc" -eq 130
check "blocked in open: within $limit_s s (took $ms ms)" test "$ms" -lt "$limit_ms"
check "blocked in open: nothing left" no_temporary
stop_server
finish
