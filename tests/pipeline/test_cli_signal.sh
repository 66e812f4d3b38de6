#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# SIGINT and SIGTERM mid-run: exit 130, no output, no temporary file, even
# when the input is a pipe that has stopped delivering.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
for sig in INT TERM; do
    for out in o.raw o.zst; do
        rm -f "$T/fifo"
        mkfifo "$T/fifo"
        "$WS" --quiet --device cpu --size 1000x1000 --dtype u8 "$T/fifo" "$T/$out" 2>"$T/err" &
        pid=$!
        exec 3>"$T/fifo"
        # Half of the input, then silence.
        "$PY" -c "import sys; sys.stdout.buffer.write(bytes(range(256)) * 2000)" >&3
        sleep 1
        kill -$sig $pid
        set +e
        wait $pid
        rc=$?
        set -e
        exec 3>&-
        check "SIG$sig exits 130 ($out, got $rc)" test "$rc" -eq 130
        check "SIG$sig message ($out)" grep -q '^winent-stream: interrupted' "$T/err"
        check "SIG$sig leaves no output ($out)" test ! -e "$T/$out"
        check "SIG$sig leaves no temporary ($out)" sh -c "! ls '$T' | grep -q tmp-"
    done
done
finish
