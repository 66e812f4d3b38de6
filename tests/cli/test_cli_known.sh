#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The course's 5 x 5 known answer through the command line, and the options
# that must not change it.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
need_python numpy
S="$WINENT_SRC/samples"
"$WS" --quiet --base e --size 5x5 --dtype u8 "$S/course-5x5-u8.raw" "$T/out.raw"
check "5x5 course answer (base e)" "$PY" - "$T/out.raw" "$S/course-5x5-expected.txt" <<'PY'
import sys, numpy as np
got = np.fromfile(sys.argv[1], '<f4')
want = np.loadtxt(sys.argv[2]).ravel()
sys.exit(0 if got.size == 25 and np.all(np.abs(got - want) < 5.1e-6) else 1)
PY
# Same bits whatever the threads, the memory budget, or stdin/stdout.
"$WS" --quiet --base e --threads 1 --size 5x5 --dtype u8 "$S/course-5x5-u8.raw" "$T/t1.raw"
check "threads 1 = threads 2" cmp -s "$T/out.raw" "$T/t1.raw"
"$WS" --quiet --base e --size 5x5 --dtype u8 - - <"$S/course-5x5-u8.raw" >"$T/pipe.raw"
check "stdin/stdout = files" cmp -s "$T/out.raw" "$T/pipe.raw"
# --base 2 is --base e divided by ln 2 (to float32 rounding).
"$WS" --quiet --base 2 --size 5x5 --dtype u8 "$S/course-5x5-u8.raw" "$T/b2.raw"
check "base 2" "$PY" -c "
import sys, numpy as np
e = np.fromfile('$T/out.raw', '<f4').astype(float); b = np.fromfile('$T/b2.raw', '<f4')
sys.exit(0 if np.all(np.abs(e / np.log(2) - b) < 1e-5) else 1)"
# The default base is 2 (bits, as scikit-image, MATLAB and Earth Engine).
"$WS" --quiet --size 5x5 --dtype u8 "$S/course-5x5-u8.raw" "$T/default.raw"
check "the default base is 2" cmp -s "$T/b2.raw" "$T/default.raw"
# Byte order and headers: the same samples as u16 big-endian after 7 bytes.
"$PY" -c "
import numpy as np
v = np.fromfile('$S/course-5x5-u8.raw', 'u1').astype('>u2')
open('$T/be.raw', 'wb').write(b'HEADER!' + v.tobytes())"
"$WS" --quiet --size 5x5 --dtype u16 --byteorder big --header-bytes 7 "$T/be.raw" "$T/be.f32"
check "u16 big-endian with a header" cmp -s "$T/default.raw" "$T/be.f32"
# Bands: the sample as band 2 of 3, in each interleave.
"$PY" -c "
import numpy as np
v = np.fromfile('$S/course-5x5-u8.raw', 'u1').reshape(5, 5)
b = np.stack([(v * 7 + 3) % 16, v, (v * 5) % 16])          # (band, y, x)
open('$T/bsq.raw', 'wb').write(b.tobytes())
open('$T/bip.raw', 'wb').write(b.transpose(1, 2, 0).tobytes())
open('$T/bil.raw', 'wb').write(b.transpose(1, 0, 2).tobytes())"
for il in bsq bip bil; do
    "$WS" --quiet --size 5x5 --dtype u8 --bands 3 --band 2 --interleave $il "$T/$il.raw" "$T/$il.f32"
    check "band 2 of 3, $il" cmp -s "$T/default.raw" "$T/$il.f32"
    "$WS" --quiet --size 5x5 --dtype u8 --bands 3 --band 2 --interleave $il - - <"$T/$il.raw" >"$T/$il.pipe"
    check "band 2 of 3, $il, stdin" cmp -s "$T/default.raw" "$T/$il.pipe"
done
finish
