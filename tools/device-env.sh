# SPDX-License-Identifier: BSD-3-Clause
# device-env.sh - sourced by the device scripts (device-check.sh,
# gpu-faults.sh), from the repository root: libtiff and friends from the
# Debian packages carried in .devdebs (../shared/DEVICE.md), unpacked aside
# in /tmp/deb (never into /), and the build pointed at them.
P=/tmp/deb
if [ -d .devdebs ]; then
    mkdir -p $P
    for f in .devdebs/*.deb; do dpkg -x "$f" $P; done
    # The .pc files say prefix=/usr (libcjson's: libdir and includedir
    # without a prefix); point them at the unpacked tree.
    for pc in $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc; do
        sed -i "s|^prefix=/usr\$|prefix=$P/usr|; s|^libdir=/usr/|libdir=$P/usr/|; s|^includedir=/usr/|includedir=$P/usr/|" "$pc"
    done
    export CMAKE_PREFIX_PATH=$P/usr
    export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig
    export LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export PATH=$P/usr/bin:$PATH
fi
