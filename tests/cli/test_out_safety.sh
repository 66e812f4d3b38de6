#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Nothing but the outputs is ever written, and one line on failure
# (docs/SPEC.md section 6). One group per ctest test
# (tests/cli/cli.cmake):
#     sh test_out_safety.sh guard|descriptors|oneline
# guard: no output (the map, each map of several, --sidecar's headers,
#   --preview, --decode's output) is a file the job reads (the input, its
#   sidecars, GDAL's file list, a VRT's sources, a zip behind /vsizip/) or
#   another output, by name, symlink, hard link, /proc/self/fd/N or bind
#   mount: exit 2 before anything is created, every file as it was.
# descriptors: -, /dev/fd/N, /dev/stdout, /proc/PID/fd/N and links to them
#   are written only where the descriptor was opened for writing: a
#   read-only one is exit 4 and its file is untouched.
# oneline: --help, --version, --info and --info --check to a full disk, a
#   closed pipe, a closed or read-only descriptor exit 4 with one line; the
#   libraries' diagnostics (HDF5's error stack) are in that line, nowhere
#   else.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
group=${1:?"usage: test_out_safety.sh GROUP"}
W=64
H=48
R="--quiet --device cpu --size ${W}x$H --dtype u8"
D="$T/d"
mkdir "$D"
"$MK" --size ${W}x$H --dtype u8 --values 12 --seed 3 "$D/scene.bil"
"$WS" $R "$D/scene.bil" "$T/ref.raw"
printf 'ENVI\nsamples = %d\nlines = %d\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = 1\ninterleave = bsq\nbyte order = 0\n' \
    $W $H >"$D/scene.hdr"
# keep NAME...: copies to compare with (intact NAME...).
keep() { for _k in "$@"; do cp "$D/$_k" "$T/kept.$_k"; done; }
intact() {
    for _k in "$@"; do
        cmp -s "$D/$_k" "$T/kept.$_k" || { echo "  $_k changed" >&2; return 1; }
    done
}
# only NAME...: $D holds exactly these names (nothing created, no temporary).
only() {
    _only_want=$(for _n in "$@"; do echo "$_n"; done | sort)
    _only_got=$(ls -A "$D" | sort)
    [ "$_only_got" = "$_only_want" ] && return 0
    echo "  $D holds:" $_only_got >&2
    return 1
}
gdal_ok() {
    [ "${WINENT_HAVE_GDAL:-OFF}" = ON ] && command -v gdal_translate >/dev/null 2>&1
}

case $group in
guard)
    keep scene.bil scene.hdr
    # An ENVI scene's header replaced by --sidecar on
    # an output named after the scene (here read as raw samples; the same
    # through GDAL below).
    expect_exit 2 "--sidecar header = the input's ENVI header" \
        "$WS" $R "$D/scene.bil" "$D/scene" --sidecar
    check "says which file of the input" grep -q "scene.hdr' is a file read with the input" "$T/stderr"
    check "the scene is intact" intact scene.bil scene.hdr
    check "nothing created" only scene.bil scene.hdr
    expect_exit 2 "--sidecar header = the header of the file on standard input" env F="$D/scene.bil" \
        sh -c 'exec "$0" "$@" <"$F"' "$WS" $R - "$D/scene" --sidecar
    expect_exit 2 "--sidecar header = the header of the file behind /dev/fd/3" env F="$D/scene.bil" \
        sh -c 'exec "$0" "$@" 3<"$F"' "$WS" $R /dev/fd/3 "$D/scene" --sidecar
    check "the scene is intact" intact scene.bil scene.hdr
    # The input's other sidecars, by name, symlink, hard link, descriptor.
    echo '<PAMDataset/>' >"$D/scene.bil.aux.xml"
    keep scene.bil.aux.xml
    expect_exit 2 "output = the input's .aux.xml" \
        "$WS" $R --format raw "$D/scene.bil" "$D/scene.bil.aux.xml"
    ln -s scene.hdr "$D/link.raw"
    expect_exit 2 "output = a symlink to the input's header" "$WS" $R "$D/scene.bil" "$D/link.raw"
    check "names the file behind the link" grep -q "'$D/link.raw' is '$D/scene.hdr'" "$T/stderr"
    ln "$D/scene.hdr" "$D/hard.png"
    expect_exit 2 "--preview = a hard link to the input's header" \
        "$WS" $R "$D/scene.bil" "$T/o.raw" --preview "$D/hard.png"
    expect_exit 2 "--preview = /proc/self/fd/N on the input's header" env F="$D/scene.hdr" \
        sh -c 'exec "$0" "$@" 3<>"$F"' "$WS" $R "$D/scene.bil" "$T/o.raw" --preview /proc/self/fd/3
    expect_exit 2 "output = /dev/fd/N on the input's header" env F="$D/scene.hdr" \
        sh -c 'exec "$0" "$@" 3<>"$F"' "$WS" $R "$D/scene.bil" /dev/fd/3
    rm "$D/link.raw" "$D/hard.png"
    ln -s scene.hdr "$D/m_b1_w5.raw"
    expect_exit 2 "one map of several is a link to the input's header" \
        "$WS" $R --window 3,5 "$D/scene.bil" "$D/m.raw"
    rm "$D/m_b1_w5.raw"
    check "every file of the input intact" intact scene.bil scene.hdr scene.bil.aux.xml
    check "nothing created by the refusals" only scene.bil scene.hdr scene.bil.aux.xml
    # A TIFF read by libtiff: its world file is the user's too.
    "$MK" --size ${W}x$H --dtype u8 --values 12 --seed 3 --tiff "$D/t.tif"
    printf '10\n0\n0\n-10\n500000\n4000000\n' >"$D/t.tfw"
    keep t.tif t.tfw
    expect_exit 2 "output = a TIFF's world file" \
        "$WS" --quiet --device cpu --format raw "$D/t.tif" "$D/t.tfw"
    check "the TIFF's files intact" intact t.tif t.tfw
    # A sidecar in any case: GDAL finds scene.Hdr or SCENE.PRJ beside
    # scene.bil among the folder's names, whatever their case.
    "$MK" --size ${W}x$H --dtype u8 --values 12 --seed 3 "$D/mixed.bil"
    cp "$D/scene.hdr" "$D/mixed.Hdr"
    echo 'PROJCS["x"]' >"$D/MIXED.PRJ"
    keep mixed.bil mixed.Hdr MIXED.PRJ
    expect_exit 2 "output = the input's header, named mixed.Hdr" \
        "$WS" $R --format raw "$D/mixed.bil" "$D/mixed.Hdr"
    expect_exit 2 "output = the input's MIXED.PRJ" "$WS" $R --format raw "$D/mixed.bil" "$D/MIXED.PRJ"
    # Raw formats' headers: ER Mapper's NAME.ers, a PDS label STEM.lbl.
    echo 'DatasetHeader Begin' >"$D/mixed.bil.ers"
    echo 'PDS_VERSION_ID = PDS3' >"$D/mixed.LBL"
    keep mixed.bil.ers mixed.LBL
    expect_exit 2 "output = the input's ER Mapper header" \
        "$WS" $R --format raw "$D/mixed.bil" "$D/mixed.bil.ers"
    expect_exit 2 "output = the input's PDS label" "$WS" $R --format raw "$D/mixed.bil" "$D/mixed.LBL"
    check "the headers intact" intact mixed.bil.ers mixed.LBL
    rm "$D/mixed.bil.ers" "$D/mixed.LBL"
    check "the mixed-case sidecars intact" intact mixed.bil mixed.Hdr MIXED.PRJ
    rm "$D/mixed.bil" "$D/mixed.Hdr" "$D/MIXED.PRJ"
    # Outputs against each other: two new names that meet through links.
    ln -s o.raw "$D/o.raw.hdr"
    expect_exit 2 "the map and its --sidecar header are one file" \
        "$WS" $R "$D/scene.bil" "$D/o.raw" --sidecar
    check "says they are the same" grep -q "are the same file" "$T/stderr"
    rm "$D/o.raw.hdr"
    ln -s p.png "$D/o.raw.hdr"
    expect_exit 2 "the --sidecar header and --preview are one file" \
        "$WS" $R "$D/scene.bil" "$D/o.raw" --sidecar --preview "$D/p.png"
    rm "$D/o.raw.hdr"
    ln -s m_b1_w5.raw "$D/m_b1_w3.raw.hdr"
    expect_exit 2 "one map's header is another map of the run" \
        "$WS" $R --window 3,5 "$D/scene.bil" "$D/m.raw" --sidecar
    rm "$D/m_b1_w3.raw.hdr"
    check "nothing created" only scene.bil scene.hdr scene.bil.aux.xml t.tif t.tfw
    # --decode: its output's header is not the map read.
    "$WS" $R "$D/scene.bil" "$D/map.zst"
    keep map.zst
    ln -s map.zst "$D/dec.raw.hdr"
    expect_exit 2 "--decode: the --sidecar header is the map read" \
        "$WS" --quiet --decode "$D/map.zst" "$D/dec.raw" --sidecar
    check "the map read is intact" intact map.zst
    rm "$D/dec.raw.hdr"
    expect_exit 0 "--decode with its own header" "$WS" --quiet --decode "$D/map.zst" "$D/dec.raw" --sidecar
    check "the decoded map" cmp -s "$D/dec.raw" "$T/ref.raw"
    # The same file through a bind mount (root, where mounts are allowed).
    mkdir "$T/bind"
    if [ "$(id -u)" -eq 0 ] && mount --bind "$D" "$T/bind" 2>/dev/null; then
        trap 'umount "$T/bind" 2>/dev/null || true; rm -rf "$T"' EXIT INT TERM
        expect_exit 2 "--sidecar header = the input's header through a bind mount" \
            "$WS" $R "$D/scene.bil" "$T/bind/scene" --sidecar
        umount "$T/bind"
    else
        echo "note: no bind mount here: that case is not run"
    fi
    check "the scene is intact after all" intact scene.bil scene.hdr scene.bil.aux.xml
    # Where a file of the input is not touched, the job runs.
    expect_exit 0 "another name beside the scene" "$WS" $R "$D/scene.bil" "$D/other" --sidecar
    check "its map" cmp -s "$D/other" "$T/ref.raw"
    check "its header" test -s "$D/other.hdr"

    if gdal_ok; then
        # Through GDAL (no --size): the ENVI driver's file list.
        expect_exit 2 "GDAL: --sidecar header = the ENVI scene's header" \
            "$WS" --quiet --device cpu "$D/scene.bil" "$D/scene" --sidecar
        check "GDAL: the scene is intact" intact scene.bil scene.hdr
        # A VRT's source; a zip behind /vsizip/; a NetCDF behind NETCDF:.
        gdal_translate -q -of GTiff "$D/scene.bil" "$D/src.tif"
        gdal_translate -q -of VRT "$D/src.tif" "$D/v.vrt"
        keep src.tif
        expect_exit 2 "GDAL: output = a VRT's source" \
            "$WS" --quiet --device cpu "$D/v.vrt" "$D/src.tif"
        check "names the source" grep -q "src.tif' is a file read with the input" "$T/stderr"
        check "the VRT's source is intact" intact src.tif
        sed 's|>src.tif<|>v.vrt<|' "$D/v.vrt" >"$D/outer.vrt"
        expect_exit 2 "GDAL: output = the source of a VRT within a VRT" \
            "$WS" --quiet --device cpu "$D/outer.vrt" "$D/src.tif"
        printf '10\n0\n0\n-10\n500000\n4000000\n' >"$D/src.tfw"
        keep src.tfw
        expect_exit 2 "GDAL: output = the world file of a VRT's source" \
            "$WS" --quiet --device cpu --format raw "$D/v.vrt" "$D/src.tfw"
        check "the VRT's source and its world file are intact" intact src.tif src.tfw
        if gdalinfo --formats | grep -q "^ *Zarr "; then
            gdal_translate -q -of Zarr "$D/src.tif" "$D/z.zarr"
            expect_exit 2 "GDAL: output inside a dataset that is a folder (Zarr)" \
                "$WS" --quiet --device cpu "$D/z.zarr" "$D/z.zarr/map.raw"
            check "nothing created in the Zarr" test ! -e "$D/z.zarr/map.raw"
            # The same folder behind the driver's prefix: GDAL lists no file
            # for ZARR:"z.zarr":/array, and a chunk was replaced by the map.
            chunk=$(find "$D/z.zarr" -type f -name '0*' | head -n 1)
            cp "$chunk" "$T/kept.chunk"
            expect_exit 2 "GDAL: output = a chunk of ZARR:\"z.zarr\":/array" \
                "$WS" --quiet --device cpu --format raw "ZARR:\"$D/z.zarr\":/z" "$chunk"
            check "the chunk is intact" cmp -s "$chunk" "$T/kept.chunk"
            expect_exit 2 "GDAL: output inside ZARR:z.zarr" \
                "$WS" --quiet --device cpu "ZARR:$D/z.zarr" "$D/z.zarr/map.raw"
        fi
        if command -v zip >/dev/null 2>&1; then
            (cd "$D" && zip -q a.zip src.tif)
            keep a.zip
            expect_exit 2 "GDAL: output = the zip behind /vsizip/" \
                "$WS" --quiet --device cpu --format raw "/vsizip/$D/a.zip/src.tif" "$D/a.zip"
            check "the zip is intact" intact a.zip
        fi
        # /vsigzip/: GDAL saves its index as F.gz.properties when the
        # handle closes, replacing a file of that name; it reads one too.
        gzip -c "$D/src.tif" >"$D/g.tif.gz"
        echo "the user's own notes" >"$D/g.tif.gz.properties"
        keep g.tif.gz g.tif.gz.properties
        expect_exit 0 "GDAL: /vsigzip/ reads" "$WS" --quiet --device cpu "/vsigzip/$D/g.tif.gz" "$T/g.zst"
        check "/vsigzip/ wrote no index over the user's file" intact g.tif.gz g.tif.gz.properties
        rm "$D/g.tif.gz.properties"
        expect_exit 0 "GDAL: /vsigzip/ reads, no index beside" "$WS" --quiet --device cpu "/vsigzip/$D/g.tif.gz" "$T/g.zst"
        check "/vsigzip/ created no index" test ! -e "$D/g.tif.gz.properties"
        cp "$T/kept.g.tif.gz.properties" "$D/g.tif.gz.properties"
        expect_exit 2 "GDAL: output = the index /vsigzip/ reads" \
            "$WS" --quiet --device cpu --format raw "/vsigzip/$D/g.tif.gz" "$D/g.tif.gz.properties"
        check "the index is intact" intact g.tif.gz.properties
        # /vsistdin/ reads the file on standard input; /vsisparse/ reads its
        # XML and the files named in it.
        gdal_translate -q -of PNG "$D/src.tif" "$D/in.png"
        keep in.png
        expect_exit 2 "GDAL: output = the file behind /vsistdin/" env F="$D/in.png" \
            sh -c 'exec "$0" "$@" <"$F"' "$WS" --quiet --device cpu --format raw /vsistdin/ "$D/in.png"
        check "says standard input" grep -q "is the file on standard input" "$T/stderr"
        size=$(wc -c <"$D/src.tif")
        printf '<VSISparseFile><Length>%d</Length><SubfileRegion><Filename relative="1">src.tif</Filename><DestinationOffset>0</DestinationOffset><SourceOffset>0</SourceOffset><RegionLength>%d</RegionLength></SubfileRegion></VSISparseFile>\n' \
            "$size" "$size" >"$D/sp.xml"
        keep sp.xml
        expect_exit 2 "GDAL: output = the XML behind /vsisparse/" \
            "$WS" --quiet --device cpu --format raw "/vsisparse/$D/sp.xml" "$D/sp.xml"
        expect_exit 2 "GDAL: output = a file /vsisparse/ takes bytes from" \
            "$WS" --quiet --device cpu --format raw "/vsisparse/$D/sp.xml" "$D/src.tif"
        check "the PNG, the sparse file and its source are intact" intact in.png sp.xml src.tif
        if gdalinfo --formats | grep -q "^ *netCDF "; then
            gdal_translate -q -of netCDF "$D/src.tif" "$D/s.nc"
            keep s.nc
            expect_exit 2 "GDAL: output = the file behind NETCDF:\"f\":var" \
                "$WS" --quiet --device cpu --format raw "NETCDF:\"$D/s.nc\":Band1" "$D/s.nc"
            check "the NetCDF file is intact" intact s.nc
        fi
    else
        echo "note: built without GDAL or no gdal_translate: the GDAL cases are not run"
    fi
    ;;

descriptors)
    cp "$D/scene.bil" "$D/in.raw"
    keep in.raw scene.bil
    # Standard input redirected from a file, the
    # output /dev/fd/0 (as root, the reopen for writing would succeed).
    expect_exit 4 "/dev/fd/0 open for reading" env F="$D/in.raw" \
        sh -c 'exec "$0" "$@" <"$F"' "$WS" $R "$D/scene.bil" /dev/fd/0
    check "says read-only" grep -q "open for reading only" "$T/stderr"
    check "the file on standard input is intact" intact in.raw
    expect_exit 4 "/dev/fd/0 open for reading, the input on it too" env F="$D/in.raw" \
        sh -c 'exec "$0" "$@" <"$F"' "$WS" $R - /dev/fd/0
    check "the input is intact" intact in.raw
    expect_exit 4 "/proc/self/fd/N open for reading" env F="$D/in.raw" \
        sh -c 'exec "$0" "$@" 5<"$F"' "$WS" $R "$D/scene.bil" /proc/self/fd/5
    expect_exit 4 "/dev/stdin, followed as a link" env F="$D/in.raw" \
        sh -c 'exec "$0" "$@" <"$F"' "$WS" $R "$D/scene.bil" /dev/stdin
    ln -s /dev/stdin "$D/to-stdin"
    expect_exit 4 "a link to /dev/stdin" env F="$D/in.raw" \
        sh -c 'exec "$0" "$@" <"$F"' "$WS" $R "$D/scene.bil" "$D/to-stdin"
    expect_exit 4 "- with standard output open for reading" env F="$D/in.raw" \
        sh -c 'exec "$0" "$@" 1<"$F"' "$WS" $R "$D/scene.bil" -
    check "says standard output is read-only" grep -q "standard output is open for reading only" "$T/stderr"
    expect_exit 4 "/dev/stdout open for reading" env F="$D/in.raw" \
        sh -c 'exec "$0" "$@" 1<"$F"' "$WS" $R "$D/scene.bil" /dev/stdout
    expect_exit 4 "- closed" sh -c 'exec "$0" "$@" >&-' "$WS" $R "$D/scene.bil" -
    expect_exit 4 "--preview on a read-only descriptor" env F="$D/in.raw" \
        sh -c 'exec "$0" "$@" 5<"$F"' "$WS" $R "$D/scene.bil" "$T/o.raw" --preview /dev/fd/5
    # The read end of the very pipe being read.
    set +e
    cat "$D/in.raw" | "$WS" $R - /dev/fd/0 2>"$T/stderr" >/dev/null
    rc=$?
    set -e
    check "the pipe read is no output (exit $rc)" test "$rc" -eq 4
    # Another process's read-only descriptor, through its /proc/PID/fd.
    sleep 60 7<"$D/in.raw" &
    pid=$!
    i=0
    while [ ! -e "/proc/$pid/fd/7" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    expect_exit 4 "/proc/PID/fd/N of another process, read-only" \
        "$WS" $R "$D/scene.bil" "/proc/$pid/fd/7"
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    check "every file intact" intact in.raw scene.bil
    # Open for writing: written in place; on the input itself: refused.
    expect_exit 0 "/dev/fd/N open for writing" env F="$T/w.raw" \
        sh -c 'exec "$0" "$@" 5>"$F"' "$WS" $R "$D/scene.bil" /dev/fd/5
    check "the map went there" cmp -s "$T/w.raw" "$T/ref.raw"
    printf 'kept\n' >"$T/log.raw"
    expect_exit 0 "/dev/fd/N open for appending (>>)" env F="$T/log.raw" \
        sh -c 'exec "$0" "$@" 5>>"$F"' "$WS" $R "$D/scene.bil" /dev/fd/5
    check "appended, the file's old bytes kept" sh -c \
        '{ printf "kept\n"; cat "$1"; } | cmp -s - "$0"' "$T/log.raw" "$T/ref.raw"
    expect_exit 0 "- open for reading and writing" env F="$T/rw.raw" \
        sh -c 'exec "$0" "$@" 1<>"$F"' "$WS" $R "$D/scene.bil" -
    check "the map went there too" cmp -s "$T/rw.raw" "$T/ref.raw"
    expect_exit 2 "/dev/fd/N open for writing on the input" env F="$D/in.raw" \
        sh -c 'exec "$0" "$@" 5<>"$F"' "$WS" $R "$D/in.raw" /dev/fd/5
    check "the input is intact" intact in.raw
    # Standard error closed: the output's temporary file would be the
    # next descriptor opened, 2, and the progress line, a notice or an
    # error would be written into the map.
    expect_exit 0 "standard error closed, --progress, a notice" env F="$D/in.raw" \
        sh -c 'exec "$0" "$@" <"$F" 2>&-' "$WS" --device cpu --size ${W}x$H --dtype u8 --progress \
        --bins 4 --range 0:3 - "$T/closed2.raw"
    "$WS" $R --bins 4 --range 0:3 "$D/in.raw" "$T/ref4.raw" 2>/dev/null
    check "nothing but the map in the output" cmp -s "$T/closed2.raw" "$T/ref4.raw"
    set +e
    sh -c 'exec "$0" "$@" 2>&-' "$WS" $R "$D/scene.bil" /dev/stderr
    rc=$?
    set -e
    check "standard error closed: /dev/stderr is still no output (exit $rc)" test "$rc" -eq 4
    ;;

oneline)
    "$WS" $R "$D/scene.bil" "$T/m.zst"
    # to_closed_pipe COMMAND...: run with standard output a pipe whose
    # reader is gone; stderr to $T/stderr, exit code printed.
    to_closed_pipe() {
        "$PY" -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
with open(sys.argv[1], "wb") as err:
    print(subprocess.run(sys.argv[2:], stdout=w, stderr=err).returncode)' "$T/stderr" "$@"
    }
    one_line() { [ "$(wc -l <"$T/stderr")" -eq 1 ] && grep -q "^winent-stream: standard output: write failed: $1" "$T/stderr"; }
    for cmd in "--help" "--version" "--info $T/m.zst" "--info --check $T/m.zst"; do
        expect_exit 4 "$cmd to /dev/full" sh -c 'exec "$0" "$@" >/dev/full' "$WS" $cmd
        check "$cmd to /dev/full: the reason" one_line "No space left on device"
        rc=$(to_closed_pipe "$WS" $cmd)
        check "$cmd to a closed pipe: exit 4 (got $rc)" test "$rc" = 4
        check "$cmd to a closed pipe: the reason" one_line "output pipe closed"
        expect_exit 4 "$cmd to a closed descriptor" sh -c 'exec "$0" "$@" >&-' "$WS" $cmd
        expect_exit 4 "$cmd to a read-only descriptor" env F="$T/m.zst" \
            sh -c 'exec "$0" "$@" 1<"$F"' "$WS" $cmd
    done
    expect_exit 0 "--info --check to a file" "$WS" --info --check "$T/m.zst"
    check "prints OK" grep -q "^OK: " "$T/stdout"
    # A name or a value holding a newline is quoted on the one line: an
    # error of the command line, of the library, and a notice.
    nl=$(printf 'a\nb')
    lines1() { [ "$(wc -l <"$T/stderr")" -eq 1 ]; }
    expect_exit 2 "an unknown option with a newline" "$WS" "--x$nl" "$D/scene.bil" "$T/o.raw"
    check "an unknown option with a newline: one line" lines1
    expect_exit 2 "a value with a newline" "$WS" $R --threads "2$nl" "$D/scene.bil" "$T/o.raw"
    check "a value with a newline: one line" lines1
    expect_exit 3 "a missing input with a newline in its name" "$WS" $R "$D/$nl.raw" "$T/o.raw"
    check "a missing input: one line" lines1
    esc=$(printf 'a\033[2J\013b')
    expect_exit 3 "a missing input with an escape and a vertical tab in its name" \
        "$WS" $R "$D/$esc.raw" "$T/o.raw"
    check "no control character printed" sh -c '! LC_ALL=C grep -q "[[:cntrl:]]" "$0"' "$T/stderr"
    cp "$D/scene.bil" "$D/$nl.raw"
    printf '<PAMDataset><PAMRasterBand band="1"><Metadata><MDI key="STATISTICS_MINIMUM">0</MDI><MDI key="STATISTICS_MAXIMUM">3</MDI></Metadata></PAMRasterBand></PAMDataset>\n' \
        >"$D/$nl.raw.aux.xml"
    expect_exit 0 "--range auto from the .aux.xml of a name with a newline" \
        "$WS" --device cpu --size ${W}x$H --dtype u8 --range auto --bins 4 "$D/$nl.raw" "$T/o.raw"
    check "its warning (the range from that file) is one line" \
        sh -c 'lines=$(wc -l <"$0"); [ "$lines" -eq 1 ] && grep -q "^winent-stream: warning: .*from .*a b.raw.aux.xml" "$0"' "$T/stderr"
    # HDF5's error stack: in the one line, not printed by the library (nor
    # its "infinite loop closing library" at exit).
    if gdal_ok && gdalinfo --formats | grep -q "^ *HDF5 " && gdalinfo --formats | grep -q "^ *netCDF "; then
        gdal_translate -q -of GTiff "$D/scene.bil" "$T/s.tif"
        gdal_translate -q -of netCDF -co FORMAT=NC4 "$T/s.tif" "$T/s4.nc"
        "$PY" -c "
d = bytearray(open('$T/s4.nc', 'rb').read())
for i in range(2000, len(d), 97):
    d[i] ^= 0x55
open('$T/bad.nc', 'wb').write(d)"
        expect_exit 3 "a damaged HDF5 file: one line" "$WS" --quiet "HDF5:$T/bad.nc://Band1" "$T/o.raw"
        check "HDF5's cause is in the line" grep -q "(HDF5: " "$T/stderr"
        check "no HDF5 stack printed" sh -c '! grep -q "HDF5-DIAG\|infinite loop" "$0"' "$T/stderr"
        expect_exit 0 "a sound HDF5 file reads" "$WS" --quiet "HDF5:$T/s4.nc://Band1" "$T/o.raw"
        check "nothing on standard error" test ! -s "$T/stderr"
        # Damaged chunks, met while the workers read pixels.
        "$MK" --size 512x512 --dtype u8 --values 40 --tiff "$T/big.tif"
        gdal_translate -q -of netCDF -co FORMAT=NC4 -co COMPRESS=DEFLATE "$T/big.tif" "$T/big.nc"
        "$PY" -c "
d = bytearray(open('$T/big.nc', 'rb').read())
for i in range(len(d) // 2, len(d) - 200, 50):
    d[i] ^= 0xff
open('$T/bigbad.nc', 'wb').write(d)"
        for name in "NETCDF:$T/bigbad.nc:Band1" "HDF5:$T/bigbad.nc://Band1"; do
            expect_exit 3 "damaged chunks ($name): one line" "$WS" --quiet "$name" "$T/o.raw"
            check "damaged chunks ($name): HDF5's cause in the line" grep -q "(HDF5: " "$T/stderr"
        done
    else
        echo "note: no GDAL with HDF5 and netCDF drivers: the HDF5 cases are not run"
    fi
    ;;
*)
    echo "unknown group $group" >&2
    exit 2
    ;;
esac
finish
