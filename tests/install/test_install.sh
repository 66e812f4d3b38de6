# SPDX-License-Identifier: BSD-3-Clause
# What a user installs, used as a user would: `cmake --install` into a
# temporary prefix; examples/entropy_of_file.c built against that tree
# with pkg-config (shared, and --static) and with CMake find_package(winent)
# (winent::winent, winent::winent_static), each run on a raw input and its
# map compared with the installed CLI's (cmp); the man page rendered; the
# bash completion asked for `winent-stream --dev<TAB>` and values; then
# `cpack -G DEB`, its packages unpacked into a temporary root (dpkg-deb -x,
# nothing installed on the system), their Depends and file lists checked,
# and the example built with pkg-config against that root as well. The
# Python package: imported from the install (and from the unpacked
# python3-winent .deb) with nothing saying where the library is, its maps
# compared with the CLI's, and its folder on Debian's sys.path for the
# configured prefix.
#
# Set by tests/install/install.cmake: WINENT_BUILD, CMAKE, CPACK, CMAKE_GENERATOR,
# CC, WINENT_C_COMPILER_ID, WINENT_SAN_FLAGS (the sanitizer build's -fsanitize=, for the example
# programs too), WINENT_LIBDIR, WINENT_INCLUDEDIR, WINENT_VERSION, WINENT_MAN
# (ON where help2man made the man page), WINENT_PREFIX (the configured
# prefix), WINENT_PYTHON_DIR (the Python package's folder, "" when not
# installed), PYTHON.
#
# A part whose tool is missing (pkg-config, groff or man, dpkg-deb and
# dpkg-shlibdeps) is skipped with the reason; the test then exits 77.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
have() { command -v "$1" >/dev/null 2>&1; }
# run LOG COMMAND...: quiet, the log's tail shown when it fails
run() {
    _log=$1
    shift
    if "$@" >"$_log" 2>&1; then return 0; fi
    tail -n 30 "$_log" >&2
    return 1
}

P="$T/prefix"
case $WINENT_LIBDIR in
/*) LIB="$WINENT_LIBDIR" ;;
*) LIB="$P/$WINENT_LIBDIR" ;;
esac
case $WINENT_INCLUDEDIR in
/*) INC="$WINENT_INCLUDEDIR" ;;
*) INC="$P/$WINENT_INCLUDEDIR" ;;
esac
EX="$WINENT_SRC/examples/entropy_of_file.c"
# Flags for the example programs ($CC $cc_flags, split on purpose: lists).
cc_flags="-std=c11 -Wall -Wextra -Werror $WINENT_SAN_FLAGS"

# ---- cmake --install -----------------------------------------------------
if ! run "$T/install.log" "$CMAKE" --install "$WINENT_BUILD" --prefix "$P"; then
    bad "cmake --install failed"
    finish
fi
for f in "$P/bin/winent-stream" "$LIB/libwinent.so.$WINENT_VERSION" "$LIB/libwinent.so.0" \
    "$LIB/libwinent.so" "$LIB/libwinent.a" "$INC/winent.h" "$LIB/pkgconfig/winent.pc" \
    "$LIB/cmake/winent/winentConfig.cmake" "$LIB/cmake/winent/winentConfigVersion.cmake" \
    "$P/share/bash-completion/completions/winent-stream"; do
    check "installed: ${f#"$P/"}" test -e "$f"
done
check "libwinent.so.0 is a link to libwinent.so.$WINENT_VERSION" \
    test "$(readlink "$LIB/libwinent.so.0")" = "libwinent.so.$WINENT_VERSION"
WS="$P/bin/winent-stream"
check "the installed CLI says its version" sh -c "'$WS' --version | grep -qx 'winent-stream $WINENT_VERSION'"

# The input, and the installed CLI's map: the answer every build must give.
"$MK" --size 203x77 --dtype u8 --kind landscape --values 12 "$T/in.raw"
"$WS" --quiet --size 203x77 --dtype u8 "$T/in.raw" "$T/cli.raw"
check "the CLI wrote the map" test "$(wc -c <"$T/cli.raw")" -eq $((203 * 77 * 4))

# needed BINARY: its NEEDED libraries, one a line
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p'; }
# same_map NAME PROGRAM: PROGRAM's map of the input equals the CLI's
same_map() {
    if "$2" "$T/in.raw" "$T/$1.raw" 203x77 2>"$T/$1.err"; then
        check "$1: its map equals the CLI's" cmp "$T/cli.raw" "$T/$1.raw"
    else
        bad "$1 failed: $(cat "$T/$1.err")"
    fi
}

# ---- pkg-config --------------------------------------------------------------
if have pkg-config; then
    export PKG_CONFIG_PATH="$LIB/pkgconfig"
    check "pkg-config knows winent $WINENT_VERSION" \
        test "$(pkg-config --modversion winent)" = "$WINENT_VERSION"
    # shellcheck disable=SC2046,SC2086 # flag lists, split on purpose
    if $CC $cc_flags -o "$T/ex_pc" "$EX" $(pkg-config --cflags --libs winent) \
        -Wl,-rpath,"$LIB" 2>"$T/cc.err"; then
        check "pkg-config build links libwinent.so.0" sh -c "readelf -d '$T/ex_pc' | grep -q 'NEEDED.*libwinent.so.0'"
        same_map ex_pc "$T/ex_pc"
    else
        bad "cc with pkg-config --cflags --libs winent: $(head -c 600 "$T/cc.err")"
    fi
    # Static: --static adds Libs.private; the archive is named, since -lwinent
    # would take the shared library where both are.
    libs=$(pkg-config --static --libs winent | awk '{ for (i = 1; i <= NF; i++) if ($i == "-lwinent") $i = "-l:libwinent.a"; print }')
    # shellcheck disable=SC2046,SC2086 # flag lists, split on purpose
    if $CC $cc_flags -o "$T/ex_pc_static" "$EX" $(pkg-config --cflags winent) $libs \
        2>"$T/cc.err"; then
        check "pkg-config --static build does not need libwinent.so" \
            sh -c "! readelf -d '$T/ex_pc_static' | grep -q 'NEEDED.*libwinent'"
        same_map ex_pc_static "$T/ex_pc_static"
    else
        bad "cc with pkg-config --static --libs winent ($libs): $(head -c 600 "$T/cc.err")"
    fi
    unset PKG_CONFIG_PATH
else
    skip_part "no pkg-config (apt-get install pkg-config): the pkg-config builds"
fi

# ---- CMake find_package(winent) ------------------------------------------
if run "$T/ex_cmake.log" "$CMAKE" -S "$WINENT_SRC/examples" -B "$T/ex_cmake" \
    -G "$CMAKE_GENERATOR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$P" \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="$cc_flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$WINENT_SAN_FLAGS" &&
    run "$T/ex_cmake_build.log" "$CMAKE" --build "$T/ex_cmake"; then
    ok
    check "find_package: winent::winent links libwinent.so.0" \
        sh -c "readelf -d '$T/ex_cmake/entropy_of_file' | grep -q 'NEEDED.*libwinent.so.0'"
    same_map cmake_shared "$T/ex_cmake/entropy_of_file"
    if [ -x "$T/ex_cmake/entropy_of_file_static" ]; then
        check "find_package: winent::winent_static needs no libwinent.so" \
            sh -c "! readelf -d '$T/ex_cmake/entropy_of_file_static' | grep -q 'NEEDED.*libwinent'"
        same_map cmake_static "$T/ex_cmake/entropy_of_file_static"
    else
        bad "find_package: no winent::winent_static ($(grep 'winent:' "$T/ex_cmake.log"))"
    fi
else
    bad "the examples did not configure or build with find_package(winent)"
fi

# ---- The Python package ---------------------------------------------------
# py ROOT_PYDIR ARGS...: Debian's Python with only the installed package on
# its path and no hint where the library is (the sanitizer build's runtime
# preloaded by tests/lib/py_test.sh).
py() {
    _pp=$1
    shift
    env -u WINENT_LIBRARY -u LD_LIBRARY_PATH PYTHONPATH="$_pp" PYTHONDONTWRITEBYTECODE=1 \
        sh "$WINENT_SRC/tests/lib/py_test.sh" "$@"
}
# py_maps NAME PYDIR LIBDIR: the package under PYDIR finds libwinent.so.0 in
# LIBDIR; entropy() and run() give the CLI's map of the input.
py_maps() {
    if py "$2" -c '
import sys, numpy, winent
print(winent.library_path())
a = numpy.fromfile(sys.argv[1], numpy.uint8).reshape(77, 203)
winent.entropy(a).astype("<f4").tofile(sys.argv[2])
winent.run(sys.argv[1], sys.argv[3], size=(203, 77), dtype="u8")' \
        "$T/in.raw" "$T/$1-mem.raw" "$T/$1-run.raw" >"$T/$1.out" 2>"$T/$1.err"; then
        check "$1: the package loads $3/libwinent.so.0 ($(head -n 1 "$T/$1.out"))" \
            test "$(head -n 1 "$T/$1.out")" -ef "$3/libwinent.so.0"
        check "$1: winent.entropy() gives the CLI's map" cmp "$T/cli.raw" "$T/$1-mem.raw"
        check "$1: winent.run() gives the CLI's map" cmp "$T/cli.raw" "$T/$1-run.raw"
    else
        bad "$1: the installed Python package failed: $(tail -n 5 "$T/$1.err")"
    fi
}
if [ -z "$WINENT_PYTHON_DIR" ]; then
    skip_part "built with WINENT_PYTHON_INSTALL=OFF: no Python package"
elif ! "$PY" -c 'import numpy' 2>/dev/null; then
    skip_part "no numpy for $PY (apt-get install python3-numpy): the Python package"
else
    case $WINENT_PYTHON_DIR in
    /*) PYD="$WINENT_PYTHON_DIR" ;;
    *) PYD="$P/$WINENT_PYTHON_DIR" ;;
    esac
    for f in __init__.py _lib.py zst.py _install.py; do
        check "installed: ${PYD#"$P/"}/winent/$f" test -f "$PYD/winent/$f"
    done
    py_maps python "$PYD" "$LIB"
    # Where Debian's python3 looks (site.getsitepackages()): the package's
    # folder under the configured prefix, /usr/local or /usr, is there.
    case $WINENT_PREFIX in
    /usr/local | /usr)
        case $WINENT_PYTHON_DIR in
        /*) want="$WINENT_PYTHON_DIR" ;;
        *) want="$WINENT_PREFIX/$WINENT_PYTHON_DIR" ;;
        esac
        check "$want is on $PY's sys.path (site.getsitepackages())" "$PY" -c \
            'import site, sys; sys.exit(sys.argv[1] not in site.getsitepackages())' "$want"
        ;;
    esac
fi

# ---- The man page ------------------------------------------------------------
man1="$P/share/man/man1/winent-stream.1.gz"
if [ "$WINENT_MAN" != ON ]; then
    check "no man page installed without help2man" test ! -e "$man1"
    skip_part "the build found no help2man (apt-get install help2man): no man page"
elif [ ! -f "$man1" ]; then
    bad "no man page installed: $man1"
else
    rendered=""
    if have groff; then
        # -ww: every warning; a page help2man made right has none
        gzip -dc "$man1" | groff -man -Tascii -P-cbou -ww >"$T/man.txt" 2>"$T/man.err" &&
            rendered=groff
        check "groff renders the man page without warnings ($(head -c 300 "$T/man.err"))" \
            test ! -s "$T/man.err"
    elif have man; then
        if MANPAGER=cat MANWIDTH=80 man -l "$man1" 2>"$T/man.err" |
            sed 's/.\x08//g' >"$T/man.txt"; then
            rendered="man -l"
        fi
    fi
    if [ -n "$rendered" ]; then
        for w in NAME SYNOPSIS DESCRIPTION "winent-stream \[options\] INPUT OUTPUT" \
            "winent-stream --info" -- --device --window --format --compress --dtype --base \
            "winent-stream $WINENT_VERSION"; do
            [ "$w" = -- ] && continue
            check "the man page ($rendered) shows '$w'" grep -q -- "$w" "$T/man.txt"
        done
    else
        for w in device window format; do
            check "the man page names --$w" sh -c "gzip -dc '$man1' | grep -q -- '-$w'"
        done
        skip_part "no groff or man to render the man page (apt-get install groff-base)"
    fi
    # `man winent-stream` by name, as after the quick start's install under
    # /usr/local: man-db finds PREFIX/share/man from PREFIX/bin on PATH.
    # (A minimized system's `man` is a stub that answers nothing.)
    if have man && man --version >/dev/null 2>&1; then
        found=$(env -u MANPATH PATH="$P/bin:$PATH" man -w winent-stream 2>/dev/null || true)
        check "man -w winent-stream finds the installed page from PATH ($found)" \
            test "$found" = "$man1"
    else
        skip_part "no working man command (apt-get install man-db): man winent-stream by name"
    fi
fi

# ---- The bash completion ---------------------------------------------------
comp="$P/share/bash-completion/completions/winent-stream"
if have bash; then
    mkdir -p "$T/cwd/sub"
    : >"$T/cwd/a.zst"
    : >"$T/cwd/b.raw"
    # complete WORD...: what the completion offers for the last word, one a line
    complete_words() {
        (cd "$T/cwd" && bash -c '
            . "$1"; shift
            COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
            COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
            f=$(complete -p winent-stream | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
            "$f" winent-stream "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
            printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$comp" "$@")
    }
    expect_words() { # expect_words "WANTED WORDS" WORD...
        _want=$1
        shift
        _got=$(complete_words "$@" | tr '\n' ' ' | sed 's/ $//')
        check "completion of '$*': '$_got', want '$_want'" test "$_got" = "$_want"
    }
    expect_words "--device" winent-stream --dev
    expect_words "auto cpu gpu" winent-stream --device ""
    expect_words "f32 f64" winent-stream --dtype f
    expect_words "deflate" winent-stream --compress d
    expect_words "10 2 e" winent-stream --base = ""
    expect_words "raw" winent-stream --format=r
    expect_words "" winent-stream --window ""
    expect_words "a.zst sub" winent-stream --info ""
    expect_words "a.zst b.raw sub" winent-stream --quiet ""
else
    skip_part "no bash: the completion"
fi

# ---- The .deb (cpack), unpacked into a temporary root ------------------------
if have dpkg-deb && have dpkg-shlibdeps; then
    if run "$T/cpack.log" sh -c "cd '$T' && '$CPACK' --config '$WINENT_BUILD/CPackConfig.cmake' -G DEB -B '$T/pkg'"; then
        arch=$(dpkg --print-architecture)
        deb="$T/pkg/winent-stream_${WINENT_VERSION}_$arch.deb"
        dev="$T/pkg/libwinent-dev_${WINENT_VERSION}_$arch.deb"
        check "cpack made winent-stream_${WINENT_VERSION}_$arch.deb (made: $(cd "$T/pkg" && echo *.deb))" test -f "$deb"
        check "cpack made libwinent-dev_${WINENT_VERSION}_$arch.deb" test -f "$dev"
        pydeb="$T/pkg/python3-winent_${WINENT_VERSION}_$arch.deb"
        if [ -n "$WINENT_PYTHON_DIR" ]; then
            check "cpack made python3-winent_${WINENT_VERSION}_$arch.deb" test -f "$pydeb"
        fi
    else
        bad "cpack -G DEB failed"
        deb=/nonexistent
    fi
    if [ -f "$deb" ]; then
        depends=$(dpkg-deb -f "$deb" Depends)
        echo "winent-stream Depends: $depends"
        # OpenMP's runtime is the compiler's: GCC's libgomp, clang's libomp.
        omp=libgomp1
        [ "$WINENT_C_COMPILER_ID" = GNU ] || omp=libomp
        for p in libzstd1 libtiff6 $omp libc6; do
            check "the .deb depends on $p" sh -c "echo '$depends' | tr ',' '\n' | grep -q '^ *$p'"
        done
        if [ "${WINENT_HAVE_GDAL:-OFF}" = ON ]; then
            # GDAL is opened at first use (src/tiles/dynlib.h), not linked.
            check "the .deb recommends libgdal" sh -c "dpkg-deb -f '$deb' Recommends | grep -q 'libgdal[0-9]'"
            check "the .deb does not depend on libgdal" sh -c "! echo '$depends' | grep -q libgdal"
        fi
        check "the .deb names a maintainer" test -n "$(dpkg-deb -f "$deb" Maintainer)"
        # The licence: each package holds the Debian copyright file, and no
        # field names a placeholder address.
        for p in "$deb" "$dev" "$pydeb"; do
            [ -f "$p" ] || continue
            n=$(dpkg-deb -f "$p" Package)
            check "$n .deb holds /usr/share/doc/$n/copyright" \
                sh -c "dpkg-deb -c '$p' | awk '{ print \$6 }' | grep -qx './usr/share/doc/$n/copyright'"
            check "$n .deb's fields name no placeholder" \
                sh -c "! dpkg-deb -f '$p' | grep -Eqi 'example|invalid|placeholder'"
        done
        check "libwinent-dev depends on winent-stream (= $WINENT_VERSION)" \
            sh -c "dpkg-deb -f '$dev' Depends | grep -qF 'winent-stream (= $WINENT_VERSION)'"
        R="$T/root"
        dpkg-deb -x "$deb" "$R"
        check "the copyright file states BSD-3-Clause" \
            grep -q '^License: BSD-3-Clause' "$R/usr/share/doc/winent-stream/copyright"
        dpkg-deb -x "$dev" "$R"
        [ -f "$pydeb" ] && dpkg-deb -x "$pydeb" "$R"
        case $WINENT_LIBDIR in
        /*) RLIB="$R$WINENT_LIBDIR" ;;
        *) RLIB="$R/usr/$WINENT_LIBDIR" ;;
        esac
        dpkg-deb -c "$deb" | awk '{ print $6 }' >"$T/deb.files"
        dpkg-deb -c "$dev" | awk '{ print $6 }' >"$T/dev.files"
        for f in usr/bin/winent-stream "${RLIB#"$R/"}/libwinent.so.0" \
            "${RLIB#"$R/"}/libwinent.so.$WINENT_VERSION" \
            usr/share/bash-completion/completions/winent-stream; do
            check "winent-stream .deb holds /$f" grep -qx "\./$f" "$T/deb.files"
        done
        if [ "$WINENT_MAN" = ON ]; then
            check "winent-stream .deb holds the man page" \
                grep -qx './usr/share/man/man1/winent-stream.1.*' "$T/deb.files"
        fi
        for f in usr/include/winent.h "${RLIB#"$R/"}/libwinent.so" "${RLIB#"$R/"}/libwinent.a" \
            "${RLIB#"$R/"}/pkgconfig/winent.pc" "${RLIB#"$R/"}/cmake/winent/winentConfig.cmake"; do
            check "libwinent-dev .deb holds /$f" grep -qx "\./$f" "$T/dev.files"
        done
        if [ -f "$pydeb" ]; then
            case $WINENT_PYTHON_DIR in
            /*) RPYD="$R$WINENT_PYTHON_DIR" ;;
            *) RPYD="$R/usr/$WINENT_PYTHON_DIR" ;;
            esac
            check "python3-winent .deb holds /${RPYD#"$R/"}/winent/__init__.py" \
                sh -c "dpkg-deb -c '$pydeb' | awk '{ print \$6 }' | grep -qx './${RPYD#"$R/"}/winent/__init__.py'"
            pydepends=$(dpkg-deb -f "$pydeb" Depends)
            for p in "winent-stream (= $WINENT_VERSION)" python3-numpy; do
                check "python3-winent depends on $p ($pydepends)" \
                    sh -c "echo '$pydepends' | grep -qF '$p'"
            done
            if "$PY" -c 'import numpy' 2>/dev/null; then
                py_maps python-deb "$RPYD" "$RLIB"
            fi
        fi
        check "the unpacked CLI runs" sh -c "'$R/usr/bin/winent-stream' --version | grep -qx 'winent-stream $WINENT_VERSION'"
        check "the .deb's winent.pc has prefix /usr" grep -qx 'prefix=/usr' "$RLIB/pkgconfig/winent.pc"
        # The example against the unpacked packages: pkg-config's sysroot
        # puts the root in front of the pc file's /usr paths.
        if have pkg-config; then
            # shellcheck disable=SC2046
            if PKG_CONFIG_SYSROOT_DIR="$R" PKG_CONFIG_LIBDIR="$RLIB/pkgconfig" \
                sh -c "$CC $cc_flags -o '$T/ex_deb' '$EX' \$(pkg-config --cflags --libs winent) -Wl,-rpath,'$RLIB'" \
                2>"$T/cc.err"; then
                same_map ex_deb "$T/ex_deb"
            else
                bad "cc against the unpacked .deb: $(head -c 600 "$T/cc.err")"
            fi
        fi
    fi
else
    skip_part "no dpkg-deb or dpkg-shlibdeps (apt-get install dpkg-dev): the .deb"
fi

finish
