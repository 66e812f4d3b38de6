#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A TIFF or another GDAL format on a pipe is copied to an unnamed temporary
# file in TMPDIR (one notice line) and read from there: the map equals the
# file's. The copy never has a name: TMPDIR stays empty during the run,
# after it, after SIGINT and SIGKILL mid-copy. A file on standard input
# (seekable) is read in place, with no copy and no notice.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
[ "${WINENT_HAVE_GDAL:-OFF}" = ON ] || { echo "built without GDAL (WINENT_GDAL=OFF or no libgdal-dev): skipped"; exit 77; }
command -v gdal_translate >/dev/null 2>&1 || { echo "no gdal_translate: skipped"; exit 77; }
need_python numpy
R="--device cpu --no-progress"
mkdir "$T/tmp"
export TMPDIR="$T/tmp"
tmp_empty() { [ -z "$(ls -A "$T/tmp")" ]; }

"$PY" -c "
import numpy as np
rng = np.random.default_rng(9)
a = rng.integers(0, 20, (1500, 1999)).astype('u1')
a.tofile('$T/in.raw')"
printf 'ENVI\nsamples = 1999\nlines = 1500\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = 1\ninterleave = bsq\nbyte order = 0\n' >"$T/in.hdr"
gdal_translate -q -of GTiff -a_srs EPSG:32618 -a_ullr 0 1500 1999 0 -co TILED=YES \
    -co COMPRESS=DEFLATE "$T/in.raw" "$T/in.tif"
"$WS" $R --quiet "$T/in.tif" "$T/file.raw"
"$WS" $R --quiet "$T/in.tif" "$T/file.zst"

# gdal_translate ... /vsistdout/ | winent-stream - OUT: the file's map.
gdal_translate -q -of GTiff "$T/in.tif" /vsistdout/ 2>/dev/null | "$WS" $R - "$T/pipe.raw" 2>"$T/err"
check "TIFF on a pipe: the file's map" cmp -s "$T/file.raw" "$T/pipe.raw"
check "one notice line" test "$(wc -l <"$T/err")" -eq 1
check "the notice names TMPDIR's folder" grep -q "^winent-stream: standard input is a TIFF on a pipe: .*$T/tmp" "$T/err"
check "nothing left in TMPDIR" tmp_empty
if command -v zstd >/dev/null; then
    gdal_translate -q -of GTiff "$T/in.tif" /vsistdout/ 2>/dev/null | "$WS" $R --quiet - "$T/pipe.zst"
    zstd -qdc "$T/file.zst" >"$T/a.f32"
    zstd -qdc "$T/pipe.zst" >"$T/b.f32"
    check "TIFF on a pipe to .zst: the file's map" cmp -s "$T/a.f32" "$T/b.f32"
fi
# --quiet: no notice.
cat "$T/in.tif" | "$WS" $R --quiet - "$T/pipe.raw" 2>"$T/err"
check "--quiet: no notice" test ! -s "$T/err"
# A file on standard input is read in place: no copy, no notice.
"$WS" $R - "$T/redirect.raw" <"$T/in.tif" 2>"$T/err"
check "TIFF file on standard input: the file's map" cmp -s "$T/file.raw" "$T/redirect.raw"
check "TIFF file on standard input: no notice" test ! -s "$T/err"
# A GDAL format on a pipe (JPEG2000), and a TIFF with an alpha band (read
# by GDAL from the copy).
if gdalinfo --formats | grep -q "JP2OpenJPEG"; then
    gdal_translate -q -of JP2OpenJPEG -co REVERSIBLE=YES -co QUALITY=100 "$T/in.tif" "$T/in.jp2"
    cat "$T/in.jp2" | "$WS" $R - "$T/jp2.raw" 2>"$T/err"
    check "JPEG2000 on a pipe: the file's map" cmp -s "$T/file.raw" "$T/jp2.raw"
    check "JPEG2000 on a pipe: notice" grep -q "JP2OpenJPEG" "$T/err"
fi
A="${WINENT_SHARED:-}/data/tiff/alpha.tif"
if [ -f "$A" ]; then
    "$WS" $R --quiet "$A" "$T/alpha_file.raw"
    cat "$A" | "$WS" $R --quiet - "$T/alpha_pipe.raw"
    check "alpha.tif on a pipe: the file's map (mask applied)" cmp -s "$T/alpha_file.raw" "$T/alpha_pipe.raw"
fi
check "nothing left in TMPDIR" tmp_empty

# Raw samples on a pipe without --size: a usage error, and nothing copied.
expect_exit 2 "raw on a pipe without --size" sh -c "cat '$T/in.raw' | '$WS' $R - '$T/o.raw'"
# A TMPDIR that cannot take the copy: an input error naming it.
expect_exit 3 "TMPDIR missing" sh -c "cat '$T/in.tif' | TMPDIR='$T/none' '$WS' $R --quiet - '$T/o.raw'"
check "the message names TMPDIR" grep -q "TMPDIR" "$T/stderr"
check "no output after errors" test ! -e "$T/o.raw"

# Mid-copy: half the TIFF into a FIFO, then silence. While the job waits
# the copy is open in TMPDIR but has no name there; SIGINT ends it (130),
# SIGKILL too, and TMPDIR is left empty.
head -c 600000 "$T/in.tif" >"$T/half.tif"
for sig in INT KILL; do
    rm -f "$T/fifo"
    mkfifo "$T/fifo"
    "$WS" $R --quiet "$T/fifo" "$T/sig.raw" 2>"$T/err" &
    pid=$!
    exec 3>"$T/fifo"
    cat "$T/half.tif" >&3
    # Wait (at most 20 s) until the copy is open: a descriptor into TMPDIR.
    n=0
    while [ $n -lt 200 ] && ! ls -l "/proc/$pid/fd" 2>/dev/null | grep -q "$T/tmp/"; do
        sleep 0.1
        n=$((n + 1))
    done
    check "SIG$sig: the copy is open in TMPDIR" sh -c "ls -l /proc/$pid/fd | grep -q '$T/tmp/.*(deleted)'"
    check "SIG$sig: TMPDIR shows no name while it runs" tmp_empty
    kill -$sig $pid
    set +e
    wait $pid
    rc=$?
    set -e
    exec 3>&-
    if [ $sig = INT ]; then
        check "SIGINT mid-copy exits 130 (got $rc)" test "$rc" -eq 130
        check "SIGINT message" grep -q '^winent-stream: interrupted' "$T/err"
    fi
    check "SIG$sig mid-copy: nothing left in TMPDIR" tmp_empty
    check "SIG$sig mid-copy: no output" test ! -e "$T/sig.raw"
done
finish
