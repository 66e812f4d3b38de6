#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# No new output takes a name GDAL looks up beside a file the job reads
# (docs/SPEC.md section 4, "Where the bytes go"; src/tiles/sidecar_names.h):
# GDAL matches a sidecar's name in any letter case, so a new E.HDR beside
# e.bil and e.hdr would be the scene's header from then on. For every
# spelling (the header, PAM, overviews, mask, .prj, world files derived
# from the extension, HFA's .aux, statistics, colour tables), in upper,
# lower and mixed case, beside an ENVI scene, a TIFF, the sources of a VRT
# and through a symbolic link: exit 2, one line naming the output and the
# file whose sidecar it would be, nothing created, and GDAL still opens the
# scene as before. The outputs' own sidecars (--sidecar's header,
# --preview's world and PAM files) are held to it as well. Names that are
# no sidecar still work.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
W=64
H=48
R="--quiet --device cpu --threads 1 --size ${W}x$H --dtype u8"
D="$T/d"
mkdir "$D"
"$MK" --size ${W}x$H --dtype u8 --values 12 --seed 3 "$D/e.bil"
printf 'ENVI\nsamples = %d\nlines = %d\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = 1\ninterleave = bsq\nbyte order = 0\n' \
    $W $H >"$D/e.hdr"
gdal_ok() {
    [ "${WINENT_HAVE_GDAL:-OFF}" = ON ] && command -v gdalinfo >/dev/null 2>&1
}
# listing: the folder's names, to hold against after the refusals.
listing() { ls -A "$D" | sort; }
before=$(listing)
# refused OUTPUT SIDECAR [ARGS...]: exit 2 before anything is written, the
# one line naming the output and the sidecar it would be (and the scene).
refused() {
    _out=$1 _side=$2
    shift 2
    expect_exit 2 "output '$_out' (GDAL's '$_side')" "$WS" $R "$@" "$D/e.bil" "$D/$_out"
    check "names '$_out' and '$_side' of e.bil" grep -q \
        "'$D/$_out' would be GDAL's '$_side', a sidecar of the input '$D/e.bil'" "$T/stderr"
}
# The header's name in every case.
for out in E.HDR E.hdr e.HDR e.Hdr; do
    refused "$out" "e.hdr" --format raw
done
# PAM, overviews, mask, HFA's .aux, a world file, .prj and the rest, by
# the whole name or by the stem, in any case; none of them exists yet.
for pair in e.bil.aux.xml:e.bil.aux.xml E.BIL.AUX.XML:e.bil.aux.xml e.bil.ovr:e.bil.ovr \
    E.BIL.OVR:e.bil.ovr e.bil.msk:e.bil.msk E.bil.MSK:e.bil.msk e.aux:e.aux e.bil.aux:e.bil.aux \
    e.prj:e.prj E.PRJ:e.prj e.wld:e.wld E.WLD:e.wld e.blw:e.blw E.BLW:e.blw e.bilw:e.bilw \
    e.stx:e.stx e.clr:e.clr e.rrd:e.rrd e.aux.xml:e.aux.xml e.bil.hdr:e.bil.hdr \
    E.BIL.HDR:e.bil.hdr e.bil.ovr.aux.xml:e.bil.ovr.aux.xml e.tab:e.tab e.rpb:e.rpb \
    e_rpc.txt:e_rpc.txt e.imd:e.imd e.lbl:e.lbl e.ers:e.ers; do
    refused "${pair%%:*}" "${pair#*:}" --format raw
done
# The outputs' own sidecars: --sidecar's header E.hdr of the map E.
expect_exit 2 "--sidecar header E.hdr of the map E" "$WS" $R "$D/e.bil" "$D/E" --sidecar
check "names the --sidecar header and e.hdr" grep -q \
    "sidecar header '$D/E.hdr' would be GDAL's 'e.hdr', a sidecar of the input '$D/e.bil'" \
    "$T/stderr"
# A name reached through a link: the sidecars beside the link's target.
mkdir "$T/l"
ln -s "$D/e.bil" "$T/l/scene.bil"
expect_exit 2 "beside the target of the input's link" \
    "$WS" $R --format raw "$T/l/scene.bil" "$D/E.HDR"
check "names the target's sidecar" grep -q "would be GDAL's 'e.hdr', a sidecar of '$(realpath "$D")/e.bil', read with the input '$T/l/scene.bil'" \
    "$T/stderr"
expect_exit 2 "beside the input's link itself" "$WS" $R --format raw "$T/l/scene.bil" "$T/l/SCENE.HDR"
rm -r "$T/l"
check "nothing created by the refusals" test "$(listing)" = "$before"
# Names that are no sidecar of e.bil are outputs like any other.
expect_exit 0 "a name that is no sidecar: e2.raw" "$WS" $R "$D/e.bil" "$D/e2.raw"
expect_exit 0 "nor e.bil.raw" "$WS" $R --format raw "$D/e.bil" "$D/e.bil.raw"
expect_exit 0 "nor E.HDR in another folder" "$WS" $R --format raw "$D/e.bil" "$T/E.HDR"
check "the map" cmp -s "$D/e2.raw" "$T/E.HDR"
rm "$D/e2.raw" "$D/e.bil.raw" "$T/E.HDR"

# A TIFF's world files as GDAL derives them (.tfw, .tifw, .wld), its PAM,
# overviews and mask, in any case; libtiff reads it here.
"$MK" --size ${W}x$H --dtype u8 --values 12 --seed 3 --tiff "$D/t.tif"
for pair in T.TFW:t.tfw t.TIFW:t.tifw t.Wld:t.wld T.TIF.AUX.XML:t.tif.aux.xml t.tif.OVR:t.tif.ovr \
    t.tif.msk:t.tif.msk; do
    expect_exit 2 "output '${pair%%:*}' beside t.tif" \
        "$WS" --quiet --device cpu --format raw "$D/t.tif" "$D/${pair%%:*}"
    check "names '${pair#*:}' of t.tif" grep -q \
        "'$D/${pair%%:*}' would be GDAL's '${pair#*:}', a sidecar of the input '$D/t.tif'" \
        "$T/stderr"
done
before=$(listing)

if gdal_ok; then
    # GDAL reads the scene by its header: still so after the refusals.
    check "gdalinfo opens e.bil" sh -c "gdalinfo '$D/e.bil' >/dev/null 2>&1"
    expect_exit 2 "through GDAL: E.HDR beside e.bil" "$WS" --quiet --device cpu --format raw \
        "$D/e.bil" "$D/E.HDR"
    check "gdalinfo still opens e.bil" sh -c "gdalinfo '$D/e.bil' >/dev/null 2>&1"
    # The sources of a VRT: their sidecars are GDAL's look-ups too.
    gdal_translate -q -of VRT "$D/t.tif" "$D/m.vrt"
    for out in T.TFW t.tif.aux.xml T.TIF.OVR; do
        expect_exit 2 "output $out beside the VRT's source" "$WS" --quiet --device cpu \
            --format raw "$D/m.vrt" "$D/$out"
        check "names the source t.tif and the VRT" grep -q \
            "a sidecar of '$D/t.tif', read with the input '$D/m.vrt'" "$T/stderr"
    done
    # --preview's world file and PAM file beside a PNG input's own.
    gdal_translate -q -of PNG "$D/t.tif" "$D/q.png"
    before=$(listing)
    expect_exit 2 "--preview Q.PNG: its world file Q.PGw is q.png's" "$WS" --quiet --device cpu \
        "$D/q.png" "$T/o.raw" --preview "$D/Q.PNG"
    check "names the preview's world file and q.png" grep -q \
        "preview world file '$D/Q.PGw' would be GDAL's 'q.pgw', a sidecar of the input '$D/q.png'" \
        "$T/stderr"
    check "nothing created" test "$(listing)" = "$before"
    check "no output" test ! -e "$T/o.raw"
else
    skip_part "no GDAL (or no gdalinfo): the GDAL inputs, the VRT's sources, --preview beside a PNG"
fi
check "nothing created" test "$(listing)" = "$before"
finish
