#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Nothing lost, wherever the output points (docs/SPEC.md
# "Outputs" and "Errors"): a file appears whole or not at all, through its
# symlinks; devices, FIFOs, pipes and /dev/fd/N are written in place, never
# replaced; the input is never the output; signals and limits leave no
# temporary file. One group of cases per ctest test (tests/cli/cli.cmake):
#     sh test_cli_outputs.sh devices|mknod|streams|same|names|failures|tiff|fsync
. "$WINENT_SRC/tests/lib/cli_lib.sh"
group=${1:?"usage: test_cli_outputs.sh GROUP"}
RUN="--quiet --device cpu"
W=600
H=400
MAP_BYTES=$((W * H * 4))
R="$RUN --size ${W}x$H --dtype u8"
IN="$T/in.raw"
"$MK" --size ${W}x$H --dtype u8 --values 16 --seed 12 "$IN"
# The reference maps, written to regular files.
"$WS" $R "$IN" "$T/ref.raw"
"$WS" $R --frame-rows 16 "$IN" "$T/ref.zst"
check "reference map size" test "$(wc -c <"$T/ref.raw")" -eq $MAP_BYTES
D="$T/d" # each case's own folder
fresh() { rm -rf "$D" && mkdir "$D"; }
# only DIR NAME...: DIR holds exactly these names (so no temporary file).
only() {
    _only_dir=$1
    shift
    _only_want=$(for _n in "$@"; do echo "$_n"; done | sort)
    _only_got=$(ls -A "$_only_dir" | sort)
    [ "$_only_got" = "$_only_want" ] && return 0
    echo "  $_only_dir holds:" $_only_got >&2
    return 1
}
# kind_is NAME KIND: stat's file type of NAME (symlinks not followed).
kind_is() { [ "$(stat -c %F "$1")" = "$2" ]; }
# The machine's own nodes written to here (/dev/null, /dev/stdout) are used
# only where they are what they should be (on a shared machine another
# program, e.g. an older winent-stream run as root, may have replaced one);
# one that a run breaks is put back (as root) and the case fails.
node_ok() {
    case $1 in
    /dev/null) [ "$(stat -c '%F %t,%T' /dev/null)" = "character special file 1,3" ] ;;
    /dev/stdout) [ -L /dev/stdout ] ;;
    esac
}
node_kept() {
    node_ok "$1" && return 0
    echo "  $1 was replaced by the run: put back" >&2
    [ "$(id -u)" -eq 0 ] || return 1
    rm -f "$1"
    case $1 in
    /dev/null) mknod -m 666 /dev/null c 1 3 ;;
    /dev/stdout) ln -s /proc/self/fd/1 /dev/stdout ;;
    esac
    return 1
}
node_note() { echo "note: $1 is not what it should be here (replaced by something): its cases are not run"; }
# rc_of FILE: the exit code a case wrote to FILE ("none" if none).
rc_of() { cat "$1" 2>/dev/null || echo none; }
# reap PID FIFO, after expect_exit: the FIFO's reader, started before the
# job, ends by itself when the job wrote and closed the FIFO; where the job
# failed or replaced the FIFO it would wait for ever: it is killed then.
reap() {
    if [ "$_got" -eq 0 ] && [ -p "$2" ]; then
        wait "$1" || true
    else
        kill "$1" 2>/dev/null || true
        wait "$1" 2>/dev/null || true
    fi
}
# until_temp DIR PID: wait for the temporary file to appear in DIR, i.e.
# for the job PID to be under way (or to have ended: the checks say so).
until_temp() {
    while ! ls -A "$1" | grep -q 'tmp-\|^\.winent-' && kill -0 "$2" 2>/dev/null; do
        sleep 0.1
    done
}
# until_open NAME PID: wait for the job PID to hold NAME open (Linux's
# /proc/PID/fd), or to have ended.
until_open() {
    while ! ls -l "/proc/$2/fd" 2>/dev/null | grep -q -- "-> $1\$" && kill -0 "$2" 2>/dev/null; do
        sleep 0.1
    done
}

case $group in
devices)
    # /dev/null: every byte handed over, the node still the null device.
    if node_ok /dev/null; then
        expect_exit 0 "/dev/null" "$WS" $R --stats "$IN" /dev/null
        check "/dev/null is still a character device 1,3" node_kept /dev/null
        check "/dev/null got $MAP_BYTES bytes" grep -q "\"bytes_out\":$MAP_BYTES," "$T/stderr"
        expect_exit 0 "/dev/null as .zst" "$WS" $R --format zst "$IN" /dev/null
        check "/dev/null is still a character device 1,3 (.zst)" node_kept /dev/null
    else
        node_note /dev/null
    fi
    # A terminal (a pty in raw mode, read by Python): exactly the map bytes.
    cat >"$T/pty.py" <<'EOF'
import os, subprocess, sys, threading, tty
ws, ref, args = sys.argv[1], sys.argv[2], sys.argv[3:]
master, slave = os.openpty()
tty.setraw(slave)  # no output processing: bytes pass unchanged
node = os.ttyname(slave)
want = open(ref, "rb").read()
got = bytearray()
def reader():
    while len(got) < len(want):
        try:
            b = os.read(master, 1 << 16)
        except OSError:
            return
        if not b:
            return
        got.extend(b)
t = threading.Thread(target=reader, daemon=True)
t.start()
rc = subprocess.call([ws] + args + [node])
os.close(slave)  # the last slave closed: the reader drains what came, then EIO
t.join()
ok = rc == 0 and bytes(got) == want and os.path.exists(node)
print("pty %s: rc %d, %d of %d bytes, same %s" % (node, rc, len(got), len(want), bytes(got) == want))
sys.exit(0 if ok else 1)
EOF
    if "$PY" -c 'import os; os.openpty()' 2>/dev/null; then
        check "a terminal gets exactly the map" "$PY" "$T/pty.py" "$WS" "$T/ref.raw" $R "$IN"
    else
        echo "no pseudo-terminal here: the terminal case is not run"
    fi
    ;;

mknod)
    fresh
    if ! mknod "$D/null" c 1 3 2>/dev/null || ! mknod "$D/full" c 1 7 2>/dev/null; then
        echo "mknod is not permitted here (needs root with CAP_MKNOD): skipped"
        exit 77
    fi
    expect_exit 0 "a mknod null node" "$WS" $R --stats "$IN" "$D/null"
    check "the node got $MAP_BYTES bytes" grep -q "\"bytes_out\":$MAP_BYTES," "$T/stderr"
    check "the node is still character device 1,3" \
        test "$(stat -c '%F %t,%T' "$D/null")" = "character special file 1,3"
    expect_exit 0 "a mknod null node as .zst" "$WS" $R --format zst "$IN" "$D/null"
    expect_exit 4 "a mknod full node" "$WS" $R "$IN" "$D/full"
    check "the full node's error" grep -q 'No space left' "$T/stderr"
    check "the full node is still character device 1,7" \
        test "$(stat -c '%F %t,%T' "$D/full")" = "character special file 1,7"
    check "nothing created beside the nodes" only "$D" null full
    ;;

streams)
    # A FIFO with a reader: exactly the bytes of the regular-file output.
    fresh
    mkfifo "$D/fifo"
    cat "$D/fifo" >"$T/got.raw" &
    expect_exit 0 "raw into a FIFO" "$WS" $R "$IN" "$D/fifo"
    reap $! "$D/fifo"
    check "the FIFO reader got the raw map" cmp -s "$T/got.raw" "$T/ref.raw"
    check "the FIFO is still a FIFO" kind_is "$D/fifo" "fifo"
    mkfifo "$D/s.zst"
    cat "$D/s.zst" >"$T/got.zst" &
    expect_exit 0 ".zst into a FIFO" "$WS" $R --frame-rows 16 "$IN" "$D/s.zst"
    reap $! "$D/s.zst"
    check "the FIFO reader got the .zst bytes of a file" same_zst "$T/got.zst" "$T/ref.zst"
    if command -v zstd >/dev/null; then
        zstd -dcq <"$D/s.zst" >"$T/dec.raw" &
        expect_exit 0 ".zst into zstd -dc" "$WS" $R --frame-rows 16 "$IN" "$D/s.zst"
        reap $! "$D/s.zst"
        check "zstd -dc of the stream is the raw map" cmp -s "$T/dec.raw" "$T/ref.raw"
    fi
    check "the .zst FIFO is still a FIFO" kind_is "$D/s.zst" "fifo"
    check "nothing created beside the FIFOs" only "$D" fifo s.zst
    # Process substitution (bash): /dev/fd/63 is a pipe.
    rm -f "$T/got.raw"
    set +e
    env OUTF="$T/got.raw" bash -c '"$@" >(cat >"$OUTF"); rc=$?; wait $!; exit $rc' sh \
        "$WS" $R "$IN" 2>"$T/stderr"
    rc=$?
    set -e
    check "process substitution exits 0 (got $rc: $(cat "$T/stderr"))" test "$rc" -eq 0
    check "process substitution gets the map" cmp -s "$T/got.raw" "$T/ref.raw"
    # Standard output as /proc/self/fd/1, /dev/stdout, a link to it, "-",
    # into a pipe and into a file.
    ln -s /proc/self/fd/1 "$D/to-stdout"
    outs="/proc/self/fd/1 $D/to-stdout -"
    if node_ok /dev/stdout; then outs="$outs /dev/stdout"; else node_note /dev/stdout; fi
    for out in $outs; do
        rm -f "$T/got.raw"
        set +e
        "$WS" $R "$IN" "$out" 2>"$T/stderr" | cat >"$T/got.raw"
        set -e
        check "$out into a pipe" cmp -s "$T/got.raw" "$T/ref.raw"
        set +e
        "$WS" $R "$IN" "$out" 2>"$T/stderr" >"$T/got2.raw"
        set -e
        check "$out into a file" cmp -s "$T/got2.raw" "$T/ref.raw"
        [ "$out" != /dev/stdout ] || check "/dev/stdout is still a link" node_kept /dev/stdout
    done
    check "the link to /proc/self/fd/1 is still a link" kind_is "$D/to-stdout" "symbolic link"
    # /dev/fd/3 opened read-write on a longer file: truncated as `>` would.
    head -c $((MAP_BYTES + 1000)) /dev/zero >"$T/fd3.raw"
    expect_exit 0 "/dev/fd/3" env FD3="$T/fd3.raw" sh -c 'exec "$@" /dev/fd/3 3<>"$FD3"' sh \
        "$WS" $R "$IN"
    check "/dev/fd/3 holds exactly the map" cmp -s "$T/fd3.raw" "$T/ref.raw"
    ;;

same)
    fresh
    cp "$IN" "$D/in.raw"
    ln "$D/in.raw" "$D/hard.raw"
    ln -s in.raw "$D/sym.raw"
    ln -s "$D/in.raw" "$D/in-link.raw"
    expect_exit 2 "output = input by name" "$WS" $R "$D/in.raw" "$D/in.raw"
    check "says it is the input" grep -q "is the input: give another output name" "$T/stderr"
    expect_exit 2 "output = input by hard link" "$WS" $R "$D/in.raw" "$D/hard.raw"
    expect_exit 2 "output = input by symlink" "$WS" $R "$D/in.raw" "$D/sym.raw"
    expect_exit 2 "input is a symlink to the output" "$WS" $R "$D/in-link.raw" "$D/in.raw"
    expect_exit 2 "output = input as .zst" "$WS" $R --format zst "$D/in.raw" "$D/hard.raw"
    expect_exit 2 "output = the file on standard input" env F="$D/in.raw" \
        sh -c 'exec "$0" "$@" - "$F" <"$F"' "$WS" $R
    expect_exit 2 "standard output = input" env F="$D/in.raw" \
        sh -c 'exec "$0" "$@" "$F" - >>"$F"' "$WS" $R
    check "the input is untouched, byte for byte" cmp -s "$D/in.raw" "$IN"
    check "the links are still links" kind_is "$D/sym.raw" "symbolic link"
    check "nothing created" only "$D" in.raw hard.raw sym.raw in-link.raw
    # Extensions: known ones, none (raw), unknown refused unless --format.
    expect_exit 2 "unknown extension" "$WS" $R "$IN" "$D/out.png"
    check "the message says --format" grep -q -- "--format" "$T/stderr"
    expect_exit 2 "unknown extension, .zst inside" "$WS" $R "$IN" "$D/out.zst.part"
    check "nothing made for unknown extensions" only "$D" in.raw hard.raw sym.raw in-link.raw
    expect_exit 0 "--format raw takes any name" "$WS" $R --format raw "$IN" "$D/out.png"
    check "--format raw wrote the raw map" cmp -s "$D/out.png" "$T/ref.raw"
    expect_exit 0 "--format zst takes any name" "$WS" $R --format zst --frame-rows 16 "$IN" \
        "$D/out.part"
    check "--format zst wrote the .zst bytes" same_zst "$D/out.part" "$T/ref.zst"
    for name in o.raw o.f32 o.bin O.RAW noext; do
        expect_exit 0 "raw by name: $name" "$WS" $R "$IN" "$D/$name"
        check "$name is the raw map" cmp -s "$D/$name" "$T/ref.raw"
    done
    expect_exit 0 ".ZST by name" "$WS" $R --frame-rows 16 "$IN" "$D/o.ZST"
    check ".ZST is the .zst map" same_zst "$D/o.ZST" "$T/ref.zst"
    ;;

names)
    # A symlink at the output name is written through: link kept, target
    # replaced, the temporary file beside the target.
    fresh
    mkdir "$D/sub" "$D/other"
    echo old >"$D/sub/t.raw"
    ln -s sub/t.raw "$D/link.raw"
    ln -s ../sub/t2.zst "$D/other/l1.zst" # a chain: link -> link -> file
    ln -s other/l1.zst "$D/chain.zst"
    ln -s sub/new.raw "$D/dangling.raw"
    expect_exit 0 "symlink at the output name" "$WS" $R "$IN" "$D/link.raw"
    check "the link is kept" test "$(readlink "$D/link.raw")" = sub/t.raw
    check "the target is updated" cmp -s "$D/sub/t.raw" "$T/ref.raw"
    expect_exit 0 "a chain of symlinks" "$WS" $R --frame-rows 16 "$IN" "$D/chain.zst"
    check "the chain is kept" test "$(readlink "$D/chain.zst")" = other/l1.zst
    check "the chain's target is the map" same_zst "$D/sub/t2.zst" "$T/ref.zst"
    expect_exit 0 "a dangling symlink" "$WS" $R "$IN" "$D/dangling.raw"
    check "the dangling link's target is made" cmp -s "$D/sub/new.raw" "$T/ref.raw"
    check "the dangling link is kept" kind_is "$D/dangling.raw" "symbolic link"
    check "no temporary left by the links" only "$D/sub" t.raw t2.zst new.raw
    check "nothing beside the links" only "$D" sub other link.raw chain.zst dangling.raw
    # Names of 250 and 255 bytes (NAME_MAX): the temporary name is shorter.
    fresh
    n250=$(printf '%0246d.raw' 0)
    n255=$(printf '%0251d.zst' 0)
    check "names of 250 and 255 bytes" test ${#n250} -eq 250 -a ${#n255} -eq 255
    expect_exit 0 "a 250-byte name" "$WS" $R "$IN" "$D/$n250"
    check "the 250-byte name holds the map" cmp -s "$D/$n250" "$T/ref.raw"
    expect_exit 0 "a 255-byte name" "$WS" $R --frame-rows 16 "$IN" "$D/$n255"
    check "the 255-byte name holds the map" same_zst "$D/$n255" "$T/ref.zst"
    echo precious >"$D/$n250"
    head -c 1000 "$IN" >"$T/short.raw"
    expect_exit 3 "a 250-byte name over a failing job" "$WS" $R "$T/short.raw" "$D/$n250"
    check "the long name is untouched after a failure" grep -q precious "$D/$n250"
    check "no temporary left for long names" only "$D" "$n250" "$n255"
    # A replaced file keeps its mode.
    fresh
    echo old >"$D/m.raw"
    chmod 640 "$D/m.raw"
    expect_exit 0 "over an existing file" "$WS" $R "$IN" "$D/m.raw"
    check "the mode is kept (640)" test "$(stat -c %a "$D/m.raw")" = 640
    check "the file is the map" cmp -s "$D/m.raw" "$T/ref.raw"
    # A folder is no output.
    mkdir "$D/dir.raw"
    expect_exit 4 "a folder as output" "$WS" $R "$IN" "$D/dir.raw"
    check "the folder is kept, empty" only "$D/dir.raw"
    check "no temporary left" only "$D" m.raw dir.raw
    ;;

failures)
    # A file size limit: exit 4, the existing file untouched, no temporary
    # file. SIGXFSZ is not trapped here: winent-stream ignores it itself.
    fresh
    for out in full.raw full.zst full.tif; do
        echo precious >"$D/$out"
        expect_exit 4 "file size limit ($out)" sh -c 'ulimit -f 20; exec "$@"' sh "$WS" $R "$IN" \
            "$D/$out"
        check "the limit is named ($out)" grep -q 'ulimit -f' "$T/stderr"
        check "the existing $out is untouched" grep -q precious "$D/$out"
    done
    check "no temporary left by the limit" only "$D" full.raw full.zst full.tif
    # SIGHUP mid-run, the input a pipe that has stopped delivering (its
    # feeder holds it open after half the input): exit 130, one line, no
    # temporary file, an existing output untouched; a FIFO output stays.
    for out in o.raw o.zst o.tif fifo.raw; do
        fresh
        mkfifo "$T/in.fifo"
        if [ "$out" = fifo.raw ]; then
            mkfifo "$D/$out"
            cat "$D/$out" >"$T/got.raw" &
            reader=$!
        else
            echo precious >"$D/$out"
        fi
        "$WS" $R "$T/in.fifo" "$D/$out" 2>"$T/err" &
        pid=$!
        (head -c $((W * H / 2)) "$IN" && exec sleep 3600) >"$T/in.fifo" &
        feeder=$!
        if [ "$out" = fifo.raw ]; then
            until_open "$D/$out" $pid
        else
            until_temp "$D" $pid
        fi
        kill -HUP $pid 2>/dev/null || true
        set +e
        wait $pid
        rc=$?
        set -e
        kill $feeder 2>/dev/null || true
        wait $feeder 2>/dev/null || true
        rm -f "$T/in.fifo"
        check "SIGHUP exits 130 ($out, got $rc)" test "$rc" -eq 130
        check "SIGHUP: one line, 'interrupted' ($out): $(cat "$T/err")" \
            test "$(grep -c '^winent-stream: interrupted' "$T/err")" -eq 1 -a \
            "$(wc -l <"$T/err")" -eq 1
        check "SIGHUP leaves $out and no temporary" only "$D" "$out"
        if [ "$out" = fifo.raw ]; then
            _got=$rc
            reap $reader "$D/$out"
            check "SIGHUP: the FIFO is still a FIFO" kind_is "$D/$out" fifo
            check "SIGHUP: what the FIFO got is the start of the map" \
                cmp -s "$T/got.raw" "$T/ref.raw" -n "$(wc -c <"$T/got.raw")"
        else
            check "SIGHUP leaves $out untouched" grep -q precious "$D/$out"
        fi
    done
    # A closed output pipe: exit 4 and one line, for raw and .zst.
    for fmt in raw zst; do
        rm -f "$T/rc"
        { "$WS" $R --format $fmt "$IN" - 2>"$T/err" || echo $? >"$T/rc"; } | head -c 10 >/dev/null
        check "closed pipe exits 4 ($fmt, got $(rc_of "$T/rc"))" test "$(rc_of "$T/rc")" = 4
        check "closed pipe: one line ($fmt): $(cat "$T/err")" \
            test "$(grep -c '^winent-stream: .*output pipe closed' "$T/err")" -eq 1 -a \
            "$(wc -l <"$T/err")" -eq 1
    done
    ;;

tiff)
    # A GeoTIFF needs a seekable file of its own: a FIFO (no reader: were
    # it opened, this would wait for ever), standard output, a device or
    # /dev/fd/N is a usage error before any work.
    fresh
    mkfifo "$D/f.tif"
    expect_exit 2 "GeoTIFF into a FIFO" timeout 300 "$WS" $R "$IN" "$D/f.tif"
    check "the FIFO message says seekable" grep -q 'seekable' "$T/stderr"
    check "the FIFO is still a FIFO" kind_is "$D/f.tif" "fifo"
    expect_exit 2 "GeoTIFF to standard output" "$WS" $R --format tif "$IN" -
    check "nothing on standard output" test ! -s "$T/stdout"
    if node_ok /dev/stdout; then
        expect_exit 2 "GeoTIFF to /dev/stdout" "$WS" $R --format tif "$IN" /dev/stdout
        check "/dev/stdout is still a link" node_kept /dev/stdout
        check "nothing on /dev/stdout" test ! -s "$T/stdout"
    else
        node_note /dev/stdout
    fi
    expect_exit 2 "GeoTIFF to /proc/self/fd/1" "$WS" $R --format tif "$IN" /proc/self/fd/1
    check "nothing on /proc/self/fd/1" test ! -s "$T/stdout"
    if node_ok /dev/null; then
        expect_exit 2 "GeoTIFF to /dev/null" "$WS" $R --format tif "$IN" /dev/null
        check "/dev/null is still /dev/null" node_kept /dev/null
    else
        node_note /dev/null
    fi
    check "nothing made beside the FIFO" only "$D" f.tif
    # Through a symlink a GeoTIFF is a file like any other.
    mkdir "$D/sub"
    ln -s sub/t.tif "$D/l.tif"
    expect_exit 0 "GeoTIFF through a symlink" "$WS" $R "$IN" "$D/l.tif"
    check "the target is a TIFF" test "$(head -c 4 "$D/sub/t.tif" | od -An -c | tr -d ' ')" = 'II*\0'
    check "the link is kept" kind_is "$D/l.tif" "symbolic link"
    check "no temporary beside the TIFF" only "$D/sub" t.tif
    ;;

fsync)
    command -v strace >/dev/null || {
        echo "no strace: skipped (tools/setup-debian.sh installs it)"
        exit 77
    }
    strace -f -o /dev/null true 2>/dev/null || {
        echo "strace cannot trace here (ptrace not permitted): skipped"
        exit 77
    }
    cat >"$T/trace.py" <<'EOF'
# trace.py TRACE FINAL: in strace -f output, the temporary file beside FINAL
# is created, fsynced, renamed to FINAL, then FINAL's folder is opened and
# fsynced; or, with FINAL prefixed by "inplace:", FINAL is opened without
# O_CREAT and nothing is renamed.
import os, re, sys
trace, final = sys.argv[1], sys.argv[2]
calls, pending = [], {}
for line in open(trace):
    line = line.rstrip("\n")
    m = re.match(r"^(\d+)\s+<\.\.\. (\w+) resumed>(.*)\)\s+=\s+(-?\d+)", line)
    if m:
        c = pending.pop((m.group(1), m.group(2)), None)
        if c is not None:
            c["args"] += m.group(3)
            c["ret"] = int(m.group(4))
        continue
    m = re.match(r"^(\d+)\s+(\w+)\((.*) <unfinished \.\.\.>$", line)
    if m:
        c = {"name": m.group(2), "args": m.group(3), "ret": None}
        pending[(m.group(1), m.group(2))] = c
        calls.append(c)
        continue
    m = re.match(r"^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)", line)
    if m:
        calls.append({"name": m.group(2), "args": m.group(3), "ret": int(m.group(4))})
def strings(c):
    return re.findall(r'"((?:[^"\\]|\\.)*)"', c["args"])
def fd_arg(c):
    return int(re.match(r"\s*(\d+)", c["args"]).group(1))
def fail(msg):
    print("FAILED:", msg)
    for c in calls:
        print("  ", c)
    sys.exit(1)
renames = [i for i, c in enumerate(calls) if c["name"].startswith("rename")]
if final.startswith("inplace:"):
    final = final[len("inplace:"):]
    opens = [c for c in calls if c["name"] == "openat" and final in strings(c)]
    if not opens or any("O_CREAT" in c["args"] for c in opens):
        fail("%s not opened, or opened with O_CREAT" % final)
    if renames:
        fail("a rename for an in-place output")
    print("in place: opened without O_CREAT, nothing renamed")
    sys.exit(0)
d, base = os.path.dirname(final), os.path.basename(final)
creat = [i for i, c in enumerate(calls) if c["name"] == "openat" and "O_CREAT" in c["args"]
         and any(os.path.dirname(s) == d and s != final for s in strings(c)) and c["ret"] >= 0]
if len(creat) != 1:
    fail("want one temporary file created in %s" % d)
i = creat[0]
temp, fd = [s for s in strings(calls[i]) if os.path.dirname(s) == d][0], calls[i]["ret"]
r = [j for j in renames if j > i and strings(calls[j]) == [temp, final] and calls[j]["ret"] == 0]
if len(r) != 1:
    fail("want one rename %s -> %s" % (temp, final))
r = r[0]
syncs = [j for j in range(i + 1, r) if calls[j]["name"] in ("fsync", "fdatasync")
         and fd_arg(calls[j]) == fd and calls[j]["ret"] == 0]
if not syncs:
    fail("the temporary file (fd %d) is not fsynced before the rename" % fd)
dirs = [j for j in range(r + 1, len(calls)) if calls[j]["name"] == "openat"
        and "O_DIRECTORY" in calls[j]["args"] and strings(calls[j]) == [d]
        and calls[j]["ret"] >= 0]
if not dirs or not any(calls[k]["name"] in ("fsync", "fdatasync") and
                       fd_arg(calls[k]) == calls[dirs[0]]["ret"] and calls[k]["ret"] == 0
                       for k in range(dirs[0] + 1, len(calls))):
    fail("the folder %s is not fsynced after the rename" % d)
print("%s: created, fsynced, renamed to %s, folder fsynced" % (temp, final))
EOF
    ST="strace -f -qq -s 4096 -e trace=fsync,fdatasync,rename,renameat,renameat2,openat"
    # LeakSanitizer cannot run under ptrace: in an ASan build the traced runs
    # go without leak checks (the untraced runs of the suite keep them).
    [ -n "${WINENT_SANITIZE:-}" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    fresh
    mkdir "$D/sub"
    ln -s sub/t.raw "$D/link.raw"
    for out in o.raw o.zst o.tif link.raw; do
        final="$D/$out"
        [ "$out" = link.raw ] && final="$D/sub/t.raw"
        expect_exit 0 "traced run ($out)" $ST -o "$T/trace" "$WS" $R "$IN" "$D/$out"
        check "fsync before the rename, folder after ($out)" "$PY" "$T/trace.py" "$T/trace" "$final"
    done
    check "the traced outputs" only "$D" o.raw o.zst o.tif link.raw sub
    cmp -s "$D/o.raw" "$T/ref.raw" || bad "the traced raw output is not the map"
    # In place: opened, never created, never renamed over.
    if node_ok /dev/null; then
        expect_exit 0 "traced run (/dev/null)" $ST -o "$T/trace" "$WS" $R "$IN" /dev/null
        check "/dev/null is still /dev/null (traced)" node_kept /dev/null
        check "/dev/null written in place" "$PY" "$T/trace.py" "$T/trace" inplace:/dev/null
    else
        node_note /dev/null
    fi
    mkfifo "$D/fifo"
    cat "$D/fifo" >"$T/got.raw" &
    expect_exit 0 "traced run (FIFO)" $ST -o "$T/trace" "$WS" $R "$IN" "$D/fifo"
    reap $! "$D/fifo"
    check "a FIFO written in place" "$PY" "$T/trace.py" "$T/trace" "inplace:$D/fifo"
    check "the traced FIFO got the map" cmp -s "$T/got.raw" "$T/ref.raw"
    # Writeback as the file grows (every 8 MiB), whoever writes it: a map
    # of 36 MiB to raw (winent_outfile_write, as .zst) and to both TIFF
    # layouts (uncompressed, 36 MiB: libtiff's I/O procs; the COG's own
    # records and copies; compressed without a predictor they are 5 to
    # 10 MB, too close to 8 MiB) hands its file to the kernel's writeback
    # before the fsync of commit, which then finds little left.
    cat >"$T/wb.py" <<'EOF'
# wb.py TRACE: some descriptor gets sync_file_range before its first fsync.
import re, sys
seen = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*\d+\s+(sync_file_range|fsync)\((\d+)", line)
    if not m:
        continue
    name, fd = m.group(1), int(m.group(2))
    if name == "sync_file_range":
        seen[fd] = seen.get(fd, 0) + 1
    elif seen.get(fd):
        print("fd %d: %d writeback hand-offs before its fsync" % (fd, seen[fd]))
        sys.exit(0)
sys.exit("no sync_file_range before an fsync of the same descriptor")
EOF
    "$MK" --size 3072x3072 --dtype u8 --values 200 --seed 9 "$T/wb.u8"
    for out in wb.raw wb.tif tiled.tif; do
        x=
        [ "$out" = wb.tif ] && x="--compress none"
        [ "$out" = tiled.tif ] && x="--tif-layout tiled --compress none"
        expect_exit 0 "traced run ($out, 36 MiB map)" strace -f -qq -e trace=sync_file_range,fsync \
            -o "$T/wb" "$WS" $RUN $x --size 3072x3072 --dtype u8 "$T/wb.u8" "$D/$out"
        check "writeback before the fsync ($out)" "$PY" "$T/wb.py" "$T/wb"
    done
    # A raw map's space is reserved up front (its exact size, the file's
    # size kept: it grows as written), for a file only: not for a .zst,
    # whose size is not known, nor in place (standard output).
    for out in res.raw res.zst -; do
        dest=$out
        [ "$out" = - ] || dest="$D/$out"
        expect_exit 0 "traced run ($out)" strace -f -qq -e trace=fallocate -o "$T/fa" \
            "$WS" $RUN --size 3072x3072 --dtype u8 "$T/wb.u8" "$dest"
        if [ "$out" = res.raw ]; then
            check "space reserved ($out)" grep -q 'fallocate([0-9]*, FALLOC_FL_KEEP_SIZE, 0, 37748736)' "$T/fa"
            check "the map's size ($out)" test "$(wc -c <"$D/$out")" -eq 37748736
        else
            check "nothing reserved ($out)" sh -c "! grep -q fallocate '$T/fa'"
        fi
    done
    check "the reserved map is the map" cmp -s "$D/res.raw" "$D/wb.raw"
    ;;

*)
    echo "unknown group '$group'" >&2
    exit 2
    ;;
esac
finish
