#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-job.sh - the job harness: for each job and each engine,
# in one run on one machine, the whole CLI job beside each of its stages
# alone on the same data and threads, the write alone, startup, and the
# external tool a user would time alone; then efficiency = slowest stage
# alone / job wall, the stage that bounds the job, peak RSS, and whether
# every engine wrote the same bytes.
#
#   tools/bench-job.sh [options]
#
#   --build DIR        build folder with src/winent-stream and tools/ (default build)
#   --jobs J1,J3       jobs to run (default J1,J2,J3,J4,J5,J6)
#   --engines LIST     engines, comma-separated (default cpu,0,gpu,auto); a device
#                      list inside one engine joins with +: cpu+0, 0+1
#   --scale F          each image side times F (default 1: the sizes below)
#   --repeat R         runs of each timing (default 3)
#   --pick best|median which of the R runs counts (default best)
#   --threads N        --threads of every run, zstd -T (default: all cores)
#   --mem SIZE         --mem of every run (default: winent-stream's, 1G)
#   --out DIR          results: bench-job.md (the table), bench-job.csv, bench-job.json
#                      (every run), log.txt (default $OUT, else
#                      ${TMPDIR:-/tmp}/bench-job-results)
#   --work DIR         inputs (kept and reused) and outputs (default: a temporary
#                      folder under ${TMPDIR:-/tmp}, removed at the end)
#   --shm DIR          memory-backed folder for J6 (default: the first tmpfs of
#                      /dev/shm, $TMPDIR, /tmp, /run/user/UID with room for 3 maps)
#   --stages auto|yes|no  run `winent-bench stage decode|compute|encode`
#                      (auto: where `winent-bench stage --help` works)
#   --keep             keep the outputs of the runs in the work folder
#   --deadline S       start nothing new after S seconds (what is left is listed
#                      as skipped), so that a run under a time limit still
#                      ends with its table
#
# The jobs (full size; --scale multiplies each side, rounded to 16, >= 64):
#   J1 24000x24000 u8 landscape, 12 classes, tiled (256) deflate TIFF -> .zst
#   J2 24000x24000 u8 uniform 16 values, raw -> .zst
#   J3 16384x16384 u16 uniform 65536 values, raw, window 31 -> .zst
#   J4 16384x16384 u8 landscape 64 classes, raw, window 63 -> .tif
#   J5 20480x20480 f32 landscape in [0, 256) with 5 % NaN holes, raw, 256 bins
#      (--range 0:256), window 9 -> standard output, a pipe (| cat > /dev/null)
#   J6 10240x10240 u8 uniform 16 values, raw, 5x5 -> raw file in memory (--shm)
#
# What is timed, per job and engine (wall clock around each command; the
# R runs picked by --pick):
#   job      winent-stream --stats --quiet --device E --threads N OPTS IN OUT
#   decode, compute, encode
#            winent-bench stage decode|compute|encode with the same options:
#            its JSON wall_s (the stage alone; compute on engine E, decode and
#            encode once per job, on --device cpu: they use no engine)
#   write    the job's output bytes written alone to the same kind of
#            destination: cat OUT > FILE; sync FILE (winent-stream fsyncs its
#            files), or cat OUT | cat > /dev/null for the pipe
#   startup  the same job on a 64x64 image of the same kind: wall time; and
#            the job's own setup_s (--stats)
#   end      the job's wall time past its own clock (--stats wall_s): the
#            process's exit, where a GPU's contexts and pinned pages end
#   alone    the external tool on the map: zstd -T<N> -<level> MAP -o FILE;
#            sync FILE (.zst jobs), gdal_translate to the same tiled ZSTD
#            GeoTIFF (J4, where GDAL is installed), cat MAP | cat > /dev/null
#            (J5), cp MAP SHM/FILE (J6)
# Bytes: the first engine's output is the reference; every other engine's
# output is compared with cmp (for .zst also the decoded maps when the files
# differ; for .tif the pixels through GDAL, where installed). The pipe job is
# run once more per engine, untimed, into a file for that comparison.
# Peak RSS: GNU time -f %M of the job runs (else Python's getrusage around
# them), against --mem + 64 MiB.
#
# The Markdown table goes to standard output (progress to standard error);
# the files under --out keep every run. Inputs are made with
# winent-mksample and read from the page cache.
set -u

B=build
JOBS=J1,J2,J3,J4,J5,J6
ENGINES=cpu,0,gpu,auto
SCALE=1
REPEAT=3
PICK=best
THREADS=
MEM=
RESULTS=${OUT:-}
WORK=
SHM=
STAGES=auto
KEEP=0
DEADLINE=
CMDLINE="tools/bench-job.sh $*"

die() { echo "bench-job: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --build) B=${2:?}; shift ;;
    --jobs) JOBS=${2:?}; shift ;;
    --engines) ENGINES=${2:?}; shift ;;
    --scale) SCALE=${2:?}; shift ;;
    --repeat) REPEAT=${2:?}; shift ;;
    --pick) PICK=${2:?}; shift ;;
    --threads) THREADS=${2:?}; shift ;;
    --mem) MEM=${2:?}; shift ;;
    --out) RESULTS=${2:?}; shift ;;
    --work) WORK=${2:?}; shift ;;
    --shm) SHM=${2:?}; shift ;;
    --stages) STAGES=${2:?}; shift ;;
    --keep) KEEP=1 ;;
    --deadline) DEADLINE=${2:?}; shift ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done
case $PICK in best | median) ;; *) die "--pick: best or median" ;; esac
case $STAGES in auto | yes | no) ;; *) die "--stages: auto, yes or no" ;; esac
case $REPEAT in '' | *[!0-9]* | 0) die "--repeat: a positive integer" ;; esac
case $DEADLINE in *[!0-9]*) die "--deadline: whole seconds" ;; esac
START=$(date +%s)
out_of_time() { [ -n "$DEADLINE" ] && [ $(($(date +%s) - START)) -ge "$DEADLINE" ]; }
awk "BEGIN { exit !($SCALE > 0) }" 2>/dev/null || die "--scale: a positive number"

WS=$B/src/winent-stream
MK=$B/tools/winent-mksample
SRC=$(cd "$(dirname "$0")/.." && pwd) # the tree: tests/lib/zst_read.py
BENCH=$B/tools/winent-bench
PY=${PYTHON:-python3}
command -v "$PY" >/dev/null 2>&1 || PY=/usr/bin/python3
[ -x "$WS" ] && [ -x "$MK" ] || die "no $WS or $MK: build first (cmake --build $B)"
[ -n "$THREADS" ] || THREADS=$(nproc 2>/dev/null || echo 1)
MEMOPT=
[ -n "$MEM" ] && MEMOPT="--mem $MEM"
# GNU time for the peak RSS: /usr/bin/time, else one on PATH (a carried
# Debian package); else a small Python wrapper (getrusage of the child,
# which also times the child, its own start left out).
TIME=
for _t in /usr/bin/time $(echo "$PATH" | tr : ' ' | sed 's|\([^ ]*\)|\1/time|g'); do
    if [ -x "$_t" ] && "$_t" -f %M -o /dev/null true 2>/dev/null; then TIME=$_t; break; fi
done
PYWRAP='import os, resource, sys, time
t0 = time.monotonic()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, st = os.waitpid(pid, 0)
t1 = time.monotonic()
with open(sys.argv[1], "w") as f:
    f.write("%d %.4f\n" % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, t1 - t0))
code = os.waitstatus_to_exitcode(st)
sys.exit(code if code >= 0 else 128 - code)'

[ -n "$RESULTS" ] || RESULTS=${TMPDIR:-/tmp}/bench-job-results
mkdir -p "$RESULTS" || die "cannot create $RESULTS"
if [ -n "$WORK" ]; then
    mkdir -p "$WORK" || die "cannot create $WORK"
    OWN_WORK=0
else
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-job.XXXXXX") || die "no temporary folder"
    OWN_WORK=1
fi
SHMD=
RUN=$WORK/run
mkdir -p "$WORK/in" "$RUN"
cleanup() {
    [ -z "$SHMD" ] || rm -rf "$SHMD"
    if [ "$OWN_WORK" = 1 ] && [ "$KEEP" = 0 ]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

REC=$WORK/records.tsv
LOG=$RESULTS/log.txt
: >"$REC"
: >"$LOG"
say() { echo "bench-job: $*" >&2; echo "$*" >>"$LOG"; }
. "$(dirname "$0")/bench-lib.sh"
# record JOB ENGINE KIND REP RC WALL RSS_KB JSON
record() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$REC"; }
# last_json FILE: the last line of FILE that looks like a JSON object, or null.
last_json() {
    _j=$(grep '^{' "$1" 2>/dev/null | tail -n 1)
    if [ -n "$_j" ]; then printf '%s\n' "$_j"; else echo null; fi
}
# rss_of FILE: the peak RSS (KiB) that timecmd wrote (GNU time may write a
# line about the exit status first).
rss_of() { [ -s "$1" ] && awk 'END { print $1 }' "$1"; }
# timecmd COMMAND...: run it; its peak RSS (KiB), and with the Python
# wrapper its own wall time, into $RUN/rss.
timecmd() {
    if [ -n "$TIME" ]; then "$TIME" -f %M -o "$RUN/rss" "$@"
    else "$PY" -c "$PYWRAP" "$RUN/rss" "$@"; fi
}
side() { awk "BEGIN { s = int($1 * $SCALE / 16 + 0.5) * 16; print (s < 64 ? 64 : s) }"; }

# --- GPUs and the stage subcommand ---------------------------------------
NG=0
if command -v nvidia-smi >/dev/null 2>&1; then
    NG=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
fi
HAVE_STAGES=0
if [ "$STAGES" != no ] && [ -x "$BENCH" ] &&
    "$BENCH" stage --help >"$RUN/stage-help" 2>&1 && grep -q stage "$RUN/stage-help"; then
    HAVE_STAGES=1
fi
[ "$STAGES" = yes ] && [ $HAVE_STAGES = 0 ] && die "--stages yes: '$BENCH stage --help' does not work"
[ $HAVE_STAGES = 1 ] || say "no 'winent-bench stage' in $BENCH: decode, compute and encode alone are n/a"
HAVE_GDAL=0
command -v gdal_translate >/dev/null 2>&1 && HAVE_GDAL=1

say "machine: $(machine), $NG GPU(s)"
say "command: $CMDLINE"
say "threads $THREADS, repeat $REPEAT ($PICK), scale $SCALE, work $WORK, results $RESULTS"

# pick_shm BYTES: SHMD, a fresh folder in memory (tmpfs) with room for BYTES;
# else in the work folder, with a warning.
pick_shm() {
    [ -z "$SHMD" ] || return 0
    if [ -n "$SHM" ]; then
        SHMD=$(mktemp -d "$SHM/bench-job.XXXXXX") || die "cannot write in $SHM"
        return 0
    fi
    for _d in /dev/shm "${TMPDIR:-}" /tmp "/run/user/$(id -u)"; do
        [ -n "$_d" ] && [ -d "$_d" ] && [ -w "$_d" ] || continue
        [ "$(stat -f -c %T "$_d" 2>/dev/null)" = tmpfs ] || continue
        _kb=$(df -Pk "$_d" | awk 'NR == 2 { print $4 }')
        [ "$_kb" -gt $(($1 / 1024)) ] || continue
        SHMD=$(mktemp -d "$_d/bench-job.XXXXXX") && return 0
    done
    say "warning: no tmpfs with room for $(($1 / 1048576)) MiB: the in-memory job writes to $WORK"
    SHMD=$(mktemp -d "$WORK/shm.XXXXXX")
}

# --- The jobs ------------------------------------------------------------
# job_def J: sets FW FH (full size), DT, MKOPT (winent-mksample), INFMT
# (raw|tif), OPTS (winent-stream, beside --size/--dtype for raw), OUTK
# (zst|tif|pipe|shm), LEVEL (zstd level of the .zst jobs), DESC.
job_def() {
    LEVEL=
    case $1 in
    J1) FW=24000 FH=24000 DT=u8 INFMT=tif OUTK=zst LEVEL=2
        MKOPT="--kind landscape --values 12 --seed 1 --tiff --tile 256 --compress deflate"
        OPTS="--level 2" DESC="u8 landscape (12 classes), tiled deflate TIFF -> .zst" ;;
    J2) FW=24000 FH=24000 DT=u8 INFMT=raw OUTK=zst LEVEL=2
        MKOPT="--kind uniform --values 16 --seed 2"
        OPTS="--level 2" DESC="u8 16 values, raw -> .zst" ;;
    J3) FW=16384 FH=16384 DT=u16 INFMT=raw OUTK=zst LEVEL=2
        MKOPT="--kind uniform --values 65536 --seed 3"
        OPTS="--window 31 --level 2" DESC="u16 65536 values, 31x31, raw -> .zst" ;;
    J4) FW=16384 FH=16384 DT=u8 INFMT=raw OUTK=tif
        MKOPT="--kind landscape --values 64 --seed 4"
        OPTS="--window 63" DESC="u8 landscape (64 classes), 63x63, raw -> .tif" ;;
    J5) FW=20480 FH=20480 DT=f32 INFMT=raw OUTK=pipe
        MKOPT="--kind landscape --values 256 --holes 0.05 --seed 5"
        OPTS="--bins 256 --range 0:256 --window 9"
        DESC="f32 landscape, 5 % NaN, 256 bins, 9x9, raw -> stdout pipe" ;;
    J6) FW=10240 FH=10240 DT=u8 INFMT=raw OUTK=shm
        MKOPT="--kind uniform --values 16 --seed 6"
        OPTS="" DESC="u8 16 values, 5x5, raw -> raw file in memory" ;;
    *) return 1 ;;
    esac
}

# make_input W H FILE: the job's input at W x H (kept: reused when present).
make_input() {
    [ -s "$3" ] && return 0
    "$MK" --size "$1x$2" --dtype "$DT" $MKOPT "$3.part" >>"$LOG" 2>&1 &&
        mv "$3.part" "$3"
}

# in_opts W H: the options that describe the input (raw needs size and type).
in_opts() { [ "$INFMT" = raw ] && echo "--size $1x$2 --dtype $DT"; }

# dest_for NAME: where the job's output goes (a file path, or - for the pipe).
dest_for() {
    case $OUTK in
    zst) echo "$RUN/$1.zst" ;;
    tif) echo "$RUN/$1.tif" ;;
    shm) echo "$SHMD/$1.raw" ;;
    pipe) echo - ;;
    esac
}

# ws_run ENGINE IN OUT EXTRA: one winent-stream job, timed; sets WALL RC RSS
# and leaves its stderr in $RUN/err. A pipe job's output goes to PIPE_TO.
PIPE_TO=/dev/null
ws_run() {
    _dev=$(echo "$1" | tr + ,)
    rm -f "$RUN/rss" "$RUN/rc"
    [ "$3" = - ] || rm -f "$3"
    sync
    _t0=$(now)
    if [ "$3" = - ]; then
        { timecmd "$WS" --stats --quiet --device "$_dev" \
            --threads "$THREADS" $MEMOPT $4 $OPTS "$2" - 2>"$RUN/err"
          echo $? >"$RUN/rc"; } | cat >"$PIPE_TO"
    else
        timecmd "$WS" --stats --quiet --device "$_dev" \
            --threads "$THREADS" $MEMOPT $4 $OPTS "$2" "$3" 2>"$RUN/err"
        echo $? >"$RUN/rc"
    fi
    _t1=$(now)
    WALL=$(secs "$_t0" "$_t1")
    # The Python wrapper's start is no part of the job: its own clock.
    [ -n "$TIME" ] || WALL=$(awk -v w="$WALL" 'END { print (NF > 1 ? $2 : w) }' "$RUN/rss" 2>/dev/null)
    RC=$(cat "$RUN/rc")
    RSS=$(rss_of "$RUN/rss")
    [ "$RC" = 0 ] || sed "s/^/  [rc $RC] /" "$RUN/err" >>"$LOG"
}

# stage_run STAGE ENGINE IN OUT EXTRA: winent-bench stage, its JSON kept.
stage_run() {
    _dev=$(echo "$2" | tr + ,)
    sync
    _t0=$(now)
    "$BENCH" stage "$1" --quiet --device "$_dev" --threads "$THREADS" $MEMOPT $5 $OPTS \
        "$3" "$4" >"$RUN/stage-out" 2>"$RUN/err"
    RC=$?
    _t1=$(now)
    WALL=$(secs "$_t0" "$_t1")
    [ "$RC" = 0 ] || sed "s/^/  [stage $1 rc $RC] /" "$RUN/err" >>"$LOG"
}

# timed KIND JOB ENGINE COMMAND...: R runs of a shell command, recorded.
timed() {
    _k=$1 _j=$2 _e=$3; shift 3
    _r=1
    while [ $_r -le "$REPEAT" ]; do
        sync
        _t0=$(now)
        sh -c "$*" >>"$LOG" 2>&1
        _rc=$?
        _t1=$(now)
        record "$_j" "$_e" "$_k" $_r $_rc "$(secs "$_t0" "$_t1")" "" null
        _r=$((_r + 1))
    done
}

# same_output REF FILE: yes if identical bytes (a .zst: but for the
# header's command line, which records --device); for .zst "map" when only
# the decoded maps agree; for .tif "pixels" when GDAL sees the same pixels.
same_output() {
    if cmp -s "$1" "$2"; then echo yes; return; fi
    case $1 in
    *.zst)
        if "$PY" "$SRC/tests/lib/zst_read.py" same "$1" "$2" >/dev/null 2>&1; then
            echo yes
        elif zstd -q -dc "$1" >"$RUN/cmp-map" 2>/dev/null &&
            zstd -q -dc "$2" 2>/dev/null | cmp -s - "$RUN/cmp-map"; then
            echo "map only"; else echo NO; fi
        rm -f "$RUN/cmp-map" ;;
    *.tif)
        if [ $HAVE_GDAL = 1 ] && "$PY" -c "
import sys, numpy as np
from osgeo import gdal
a, b = gdal.Open(sys.argv[1]), gdal.Open(sys.argv[2])
ba, bb = a.GetRasterBand(1), b.GetRasterBand(1)
ok = True
for y in range(0, a.RasterYSize, 1024):
    n = min(1024, a.RasterYSize - y)
    ok = ok and np.array_equal(ba.ReadAsArray(0, y, a.RasterXSize, n).view('u4'),
                               bb.ReadAsArray(0, y, a.RasterXSize, n).view('u4'))
sys.exit(0 if ok else 1)" "$1" "$2" 2>/dev/null; then
            echo "pixels only"
        elif [ $HAVE_GDAL = 1 ]; then echo NO
        else echo "NO (files differ; pixels not compared: no GDAL)"; fi ;;
    *) echo NO ;;
    esac
}

# --- Run ---------------------------------------------------------------------
for J in $(echo "$JOBS" | tr , ' '); do
    job_def "$J" || die "unknown job $J (J1..J6)"
    W=$(side $FW) H=$(side $FH)
    ext=raw
    [ $INFMT = tif ] && ext=tif
    # Inputs are reused by name: the name holds the size and the recipe.
    key=$(printf '%s %s' "$DT" "$MKOPT" | cksum | cut -d' ' -f1)
    IN=$WORK/in/$J-${W}x$H-$key.$ext
    SMALL=$WORK/in/$J-64x64-$key.$ext
    if out_of_time; then
        say "$J: skipped, past --deadline $DEADLINE s"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$J" - meta 0 0 0 "" \
            "{\"width\":$W,\"height\":$H,\"desc\":\"$DESC\",\"input_bytes\":0,\"out\":\"$OUTK\",\"dest\":\"\"}" >>"$REC"
        for E in $(echo "$ENGINES" | tr , ' '); do
            record "$J" "$E" skip 0 0 0 "" '{"why":"out of time (--deadline)"}'
        done
        continue
    fi
    say "$J: $W x $H $DESC; making the inputs"
    make_input "$W" "$H" "$IN" && make_input 64 64 "$SMALL" || { say "$J: winent-mksample failed"; continue; }
    [ $OUTK != shm ] || pick_shm $((W * H * 4 * 3 + 67108864))
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$J" - meta 0 0 0 "" \
        "{\"width\":$W,\"height\":$H,\"desc\":\"$DESC\",\"input_bytes\":$(wc -c <"$IN"),\"out\":\"$OUTK\",\"dest\":\"$(dest_for out)\"}" >>"$REC"
    IO=$(in_opts "$W" "$H")
    SIO=$(in_opts 64 64)
    REF=
    REF_ENGINE=
    for E in $(echo "$ENGINES" | tr , ' '); do
        case $E in
        cpu | auto) ;;
        *)
            if [ "$NG" -eq 0 ]; then
                record "$J" "$E" skip 0 0 0 "" '{"why":"no GPU"}'
                say "$J $E: skipped, no GPU"
                continue
            fi
            if [ "$E" = gpu ] && [ "$NG" -eq 1 ] && echo ",$ENGINES," | grep -q ',0,'; then
                record "$J" "$E" skip 0 0 0 "" '{"why":"= 0 (one GPU)"}'
                continue
            fi ;;
        esac
        if out_of_time; then
            record "$J" "$E" skip 0 0 0 "" '{"why":"out of time (--deadline)"}'
            say "$J $E: skipped, past --deadline $DEADLINE s"
            continue
        fi
        # Startup: the job on a 64x64 image; also tells a usable GPU.
        SD=$(dest_for "small-$E")
        PIPE_TO=/dev/null
        r=1
        while [ $r -le "$REPEAT" ]; do
            ws_run "$E" "$SMALL" "$SD" "$SIO"
            record "$J" "$E" startup $r "$RC" "$WALL" "$RSS" "$(last_json "$RUN/err")"
            [ "$RC" = 0 ] || break
            r=$((r + 1))
        done
        [ "$SD" = - ] || rm -f "$SD"
        if [ "$RC" = 5 ]; then
            record "$J" "$E" skip 0 0 0 "" '{"why":"no usable GPU"}'
            say "$J $E: skipped, winent-stream says no usable GPU"
            continue
        fi
        # The whole job. Every engine writes to the same name: the outputs
        # record their command line (less --device, --threads, --mem), so
        # the bytes are comparable only for the same words.
        D=$(dest_for "$J-out")
        r=1
        while [ $r -le "$REPEAT" ]; do
            ws_run "$E" "$IN" "$D" "$IO"
            record "$J" "$E" job $r "$RC" "$WALL" "$RSS" "$(last_json "$RUN/err")"
            say "$J $E: job run $r: $WALL s, rc $RC, peak RSS ${RSS:-?} KiB"
            r=$((r + 1))
        done
        # The pipe job once more, untimed, into a file for the comparison.
        if [ "$D" = - ]; then
            PIPE_TO=$RUN/$J-$E.raw
            ws_run "$E" "$IN" - "$IO"
            PIPE_TO=/dev/null
            D=$RUN/$J-$E.raw
        fi
        if [ "$RC" = 0 ] && [ -e "$D" ]; then
            if [ -z "$REF" ]; then
                REF=$RUN/$J-ref.${D##*.}
                [ $OUTK = shm ] && REF=$SHMD/$J-ref.raw
                mv "$D" "$REF"
                REF_ENGINE=$E
                record "$J" "$E" same 0 0 0 "" '{"same":"ref"}'
            else
                s=$(same_output "$REF" "$D")
                record "$J" "$E" same 0 0 0 "" "{\"same\":\"$s\",\"ref\":\"$REF_ENGINE\"}"
                say "$J $E: same output as $REF_ENGINE: $s"
                [ "$KEEP" = 1 ] || rm -f "$D"
            fi
        fi
        # Compute alone on this engine.
        if [ $HAVE_STAGES = 1 ]; then
            SO=$(dest_for "stage-$E")
            r=1
            while [ $r -le "$REPEAT" ]; do
                stage_run compute "$E" "$IN" "$SO" "$IO"
                record "$J" "$E" compute $r "$RC" "$WALL" "" "$(last_json "$RUN/stage-out")"
                r=$((r + 1))
            done
        fi
    done
    # Decode and encode alone: no engine in them; once per job.
    if [ $HAVE_STAGES = 1 ] && ! out_of_time; then
        SO=$(dest_for stage)
        for st in decode encode; do
            r=1
            while [ $r -le "$REPEAT" ]; do
                stage_run $st cpu "$IN" "$SO" "$IO"
                record "$J" - $st $r "$RC" "$WALL" "" "$(last_json "$RUN/stage-out")"
                r=$((r + 1))
            done
        done
    fi
    if [ -z "$REF" ]; then
        say "$J: no engine produced an output; no write or external timing"
        continue
    fi
    # Write alone, and the external tool alone, on the reference output.
    case $OUTK in
    zst | tif)
        timed write "$J" - "rm -f '$RUN/w.$OUTK'; cat '$REF' > '$RUN/w.$OUTK' && sync '$RUN/w.$OUTK'"
        rm -f "$RUN/w.$OUTK" ;;
    shm)
        timed write "$J" - "rm -f '$SHMD/w.raw'; cat '$REF' > '$SHMD/w.raw' && sync '$SHMD/w.raw'"
        rm -f "$SHMD/w.raw" ;;
    pipe)
        timed write "$J" - "cat '$REF' | cat > /dev/null" ;;
    esac
    case $OUTK in
    zst)
        zstd -q -f -dc "$REF" >"$RUN/map.raw" 2>>"$LOG"
        timed "ext:zstd -T$THREADS -$LEVEL" "$J" - \
            "rm -f '$RUN/x.zst'; zstd -q -f -T$THREADS -$LEVEL '$RUN/map.raw' -o '$RUN/x.zst' && sync '$RUN/x.zst'"
        rm -f "$RUN/map.raw" "$RUN/x.zst" ;;
    tif)
        if [ $HAVE_GDAL = 1 ]; then
            "$WS" --quiet --device cpu --threads "$THREADS" $IO $OPTS "$IN" "$RUN/map.raw" 2>>"$LOG"
            printf 'ENVI\nsamples = %s\nlines = %s\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = 4\ninterleave = bsq\nbyte order = 0\n' \
                "$W" "$H" >"$RUN/map.hdr"
            timed "ext:gdal_translate ZSTD 3, predictor 3, tiles 512" "$J" - \
                "rm -f '$RUN/x.tif'; gdal_translate -q -of GTiff -co TILED=YES -co BLOCKXSIZE=512 -co BLOCKYSIZE=512 -co COMPRESS=ZSTD -co ZSTD_LEVEL=3 -co PREDICTOR=3 -co NUM_THREADS=$THREADS -co BIGTIFF=IF_SAFER '$RUN/map.raw' '$RUN/x.tif' && sync '$RUN/x.tif'"
            rm -f "$RUN/map.raw" "$RUN/map.hdr" "$RUN/x.tif"
        fi ;;
    pipe)
        timed "ext:cat map | cat" "$J" - "cat '$REF' | cat > /dev/null" ;;
    shm)
        timed "ext:cp map (memory)" "$J" - "rm -f '$SHMD/x.raw'; cp '$REF' '$SHMD/x.raw'"
        rm -f "$SHMD/x.raw" ;;
    esac
    [ "$KEEP" = 1 ] || rm -f "$REF"
done

# --- Report --------------------------------------------------------------
"$PY" - "$REC" "$RESULTS" "$PICK" "$THREADS" "${MEM:-1G}" "$HAVE_STAGES" "$CMDLINE" \
    "$(machine), $NG GPU(s)" <<'PY'
import csv, json, statistics, sys
rec, outdir, pick, threads, mem, have_stages, cmdline, machine = sys.argv[1:9]

def mib(s):
    s = s.strip().upper().rstrip('B').rstrip('I')
    mult = {'K': 1 / 1024, 'M': 1, 'G': 1024, 'T': 1024 * 1024}
    return float(s[:-1]) * mult[s[-1]] if s[-1] in mult else float(s) / 2**20

rows = []
with open(rec) as f:
    for line in f:
        p = line.rstrip('\n').split('\t', 7)
        if len(p) < 8:
            continue
        try:
            js = json.loads(p[7])
        except ValueError:
            js = None
        rows.append(dict(job=p[0], engine=p[1], kind=p[2], rep=int(p[3]), rc=int(p[4] or 0),
                         wall=float(p[5] or 0), rss=int(p[6]) if p[6] else None, json=js))

def sel(job, engine, kind):
    return [r for r in rows if r['job'] == job and r['engine'] == engine and r['kind'] == kind]

def value(r):
    # Stages alone: their own clock (wall_s, loading untimed); else wall.
    if r['kind'] in ('decode', 'compute', 'encode'):
        j = r['json']
        return j.get('wall_s') if isinstance(j, dict) else None
    return r['wall']

def chosen(rs):
    """The picked run of rs (successful ones), or None."""
    ok = [r for r in rs if r['rc'] == 0 and value(r) is not None]
    if not ok:
        return None
    ok.sort(key=value)
    return ok[0] if pick == 'best' else ok[(len(ok) - 1) // 2]

def fmt(v, d=2):
    return 'n/a' if v is None else ('%.*f' % (d, v))

jobs = []
for r in rows:
    if r['kind'] == 'meta':
        jobs.append((r['job'], r['json']))
table, summary = [], []
memmib = mib(mem)
for job, meta in jobs:
    engines = []
    for r in rows:
        if r['job'] == job and r['engine'] != '-' and r['kind'] in ('job', 'skip') \
                and r['engine'] not in engines:
            engines.append(r['engine'])
    dec = chosen(sel(job, '-', 'decode'))
    enc = chosen(sel(job, '-', 'encode'))
    wr = chosen(sel(job, '-', 'write'))
    ext_rows = [r for r in rows if r['job'] == job and r['kind'].startswith('ext:')]
    ext = chosen(ext_rows)
    ext_name = ext_rows[0]['kind'][4:] if ext_rows else None
    same_all = []
    for e in engines:
        skip = sel(job, e, 'skip')
        if skip:
            table.append(dict(job=job, engine=e.replace('+', ','), note='skipped: ' + skip[0]['json']['why']))
            continue
        jr = chosen(sel(job, e, 'job'))
        st = chosen(sel(job, e, 'startup'))
        cp = chosen(sel(job, e, 'compute'))
        jobs_all = sel(job, e, 'job')
        rss = max([r['rss'] for r in jobs_all if r['rss'] is not None], default=None)
        same = sel(job, e, 'same')
        same = same[0]['json'].get('same') if same and same[0]['json'] else None
        if same is not None and same != 'ref':
            same_all.append(same)
        d = dict(job=job, engine=e.replace('+', ','))
        if jr is None:
            rcs = sorted({r['rc'] for r in jobs_all})
            d['note'] = 'failed (exit %s)' % ','.join(map(str, rcs))
            table.append(d)
            continue
        js = jr['json'] if isinstance(jr['json'], dict) else {}
        d['ran_on'] = js.get('engine')
        d['wall'] = jr['wall']
        d['stats_wall'] = js.get('wall_s')
        d['setup'] = js.get('setup_s')
        # Past the job's own clock: the process's end (a GPU's contexts and
        # pinned pages are torn down there, where the job leaves them).
        d['end'] = jr['wall'] - d['stats_wall'] if d['stats_wall'] is not None else None
        d['startup'] = st['wall'] if st else None
        d['decode'] = value(dec) if dec else None
        d['compute'] = value(cp) if cp else None
        d['encode'] = value(enc) if enc else None
        d['write'] = wr['wall'] if wr else None
        stages = {k: d[k] for k in ('decode', 'compute', 'encode', 'write') if d[k] is not None}
        if stages:
            b = max(stages, key=stages.get)
            d['bound'] = b
            d['slowest'] = stages[b]
            d['efficiency'] = stages[b] / jr['wall']
            d['partial'] = len(stages) < 4
        if len(stages) == 4:
            # decode and encode run on the CPU's cores, and so does compute
            # where no GPU ran it: those stages share the cores, and their
            # sum, not the largest, is what the job cannot beat on them.
            ran = d['ran_on'] or ''
            cpu_sum = d['decode'] + d['encode']
            parts = 'decode+encode'
            if 'gpu' not in ran:
                cpu_sum += d['compute']
                parts = 'decode+compute+encode'
            cands = {parts: cpu_sum, 'write': d['write']}
            if 'gpu' in ran:
                cands['compute'] = d['compute']
            sb = max(cands, key=cands.get)
            d['shared_bound'] = cands[sb]
            d['shared_by'] = sb
            d['shared_efficiency'] = cands[sb] / jr['wall']
        d['alone_tool'] = ext_name
        d['alone'] = ext['wall'] if ext else None
        d['job_over_alone'] = jr['wall'] / ext['wall'] if ext else None
        d['rss_mib'] = rss / 1024 if rss is not None else None
        d['rss_ok'] = None if rss is None else rss / 1024 <= memmib + 64
        d['same'] = same
        d['pixels'] = js.get('pixels')
        table.append(d)
    verdict = 'only one engine ran' if not same_all else \
        ('yes' if all(s == 'yes' for s in same_all) else
         'no (' + ', '.join(sorted(set(same_all))) + ')')
    summary.append((job, meta, verdict, ext_name))

hdr = ['job', 'engine', 'job wall s', 'decode s', 'compute s', 'encode s', 'write s',
       'setup s', 'end s', 'startup 64² s', 'efficiency', 'bound by', 'shared bound s',
       'shared bound by', 'eff. vs shared', 'alone s', 'job / alone', 'peak RSS MiB',
       'same bytes']
out = []
out.append('Machine: %s. Threads %s, --mem %s, %s of the runs. `%s`' % (machine, threads, mem, pick, cmdline))
out.append('')
out.append('| ' + ' | '.join(hdr) + ' |')
out.append('|' + '---|' * len(hdr))
partial = False
for d in table:
    if 'note' in d:
        out.append('| %s | %s | %s |%s' % (d['job'], d['engine'], d['note'], ' |' * (len(hdr) - 3)))
        continue
    eng = d['engine'] if not d.get('ran_on') or d['ran_on'] == d['engine'] else \
        '%s (%s)' % (d['engine'], d['ran_on'])
    eff = fmt(d.get('efficiency'))
    if d.get('partial'):
        eff += '*'
        partial = True
    rss = 'n/a' if d['rss_mib'] is None else '%.0f%s' % (d['rss_mib'], '' if d['rss_ok'] else ' (over)')
    out.append('| ' + ' | '.join([
        d['job'], eng, fmt(d['wall']), fmt(d['decode']), fmt(d['compute']), fmt(d['encode']),
        fmt(d['write']), fmt(d['setup']), fmt(d.get('end')), fmt(d['startup']), eff, d.get('bound', 'n/a'),
        fmt(d.get('shared_bound')), d.get('shared_by', 'n/a'), fmt(d.get('shared_efficiency')),
        fmt(d['alone']), fmt(d['job_over_alone']), rss,
        d['same'] or 'n/a']) + ' |')
out.append('')
for job, meta, verdict, ext_name in summary:
    if not meta['dest']:
        out.append('- %s: %dx%d %s: not run (past --deadline)' % (
            job, meta['width'], meta['height'], meta['desc']))
        continue
    where = ' (%s)' % meta['dest'].rsplit('/', 1)[0] if meta['out'] == 'shm' else ''
    out.append('- %s: %dx%d %s%s (input %.1f MB); alone: %s; same bytes on every engine: %s' % (
        job, meta['width'], meta['height'], meta['desc'], where, meta['input_bytes'] / 1e6,
        ext_name or 'no external tool', verdict))
out.append('')
out.append('Times in seconds, wall clock around each command; stages alone from `winent-bench '
           'stage` (their own clock, loading untimed; decode and encode once per job, on the CPU); '
           'write = the output bytes written alone to the same kind of destination (files '
           'fsynced, as winent-stream does); setup = from the start to the first chunk sent '
           'to an engine, end = the process past the job\'s own clock (its exit), both '
           'within the job wall; efficiency = slowest stage alone / job wall; '
           'shared bound = the largest of: the stages that share the CPU cores added up '
           '(decode + encode, + compute where no GPU computed), the GPU compute alone, the '
           'write alone; eff. vs shared = shared bound / job wall; '
           'peak RSS of the job runs, "(over)" past --mem + 64 MiB; same bytes: against the '
           'first engine (ref).')
if have_stages != '1' or partial:
    out.append('* decode, compute or encode alone not measured (no `winent-bench stage`): '
               'efficiency from the stages that were.')
text = '\n'.join(out)
print(text)
with open(outdir + '/bench-job.md', 'w') as f:
    f.write(text + '\n')
keys = ['job', 'engine', 'ran_on', 'wall', 'stats_wall', 'decode', 'compute', 'encode', 'write',
        'setup', 'end', 'startup', 'slowest', 'bound', 'efficiency', 'shared_bound', 'shared_by',
        'shared_efficiency', 'alone_tool', 'alone',
        'job_over_alone', 'rss_mib', 'rss_ok', 'same', 'pixels', 'note']
with open(outdir + '/bench-job.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=keys, extrasaction='ignore')
    w.writeheader()
    for d in table:
        w.writerow(d)
with open(outdir + '/bench-job.json', 'w') as f:
    json.dump(dict(machine=machine, command=cmdline, threads=threads, mem=mem, pick=pick,
                   jobs=[dict(job=j, **m, same_bytes=v, alone_tool=t) for j, m, v, t in summary],
                   table=table, runs=rows), f, indent=1)
PY
