#!/bin/sh
# Builds the original server (Asterisk) for the side-by-side benchmarks (bench/asterisk.mjs), from source trees
# already on disk: nothing here downloads. Debian 12 has no asterisk package, and Asterisk's own build would
# fetch pjproject; instead its "out of tree" pjproject mode builds the tree given here.
#   ASTERISK_SRC   an unpacked Asterisk 22.10.1 source tree
#   PJPROJECT_SRC  an unpacked pjproject 2.17 tree (the version Asterisk's third-party/versions.mak names)
#   PREFIX         where to install (default /opt/asterisk, where bench/asterisk.mjs looks)
# About 8 minutes on two cores.
set -eu
: "${ASTERISK_SRC:?an unpacked Asterisk source tree}"
: "${PJPROJECT_SRC:?an unpacked pjproject source tree}"
PREFIX=${PREFIX:-/opt/asterisk}

apt-get install -y --no-install-recommends build-essential pkg-config libedit-dev libjansson-dev libxml2-dev \
  libsqlite3-dev uuid-dev libssl-dev libsrtp2-dev libcurl4-openssl-dev libxslt1-dev bzip2 patch python3

cd "$ASTERISK_SRC"
# Out-of-tree mode (a symlink named source) skips the patch step of the tarball mode: apply them here, once.
if [ ! -e third-party/pjproject/source ]; then
  third-party/apply_patches "$PWD/third-party/pjproject/patches" "$PJPROJECT_SRC"
  ln -s "$PJPROJECT_SRC" third-party/pjproject/source
fi
./configure --prefix="$PREFIX" --with-pjproject-bundled --with-jansson-bundled=no --with-libjwt-bundled=no
make menuselect.makeopts
# Sound packages are downloads; BUILD_NATIVE would tie the binary to this CPU. Debian 12's libjwt is older
# than STIR/SHAKEN needs, so those two modules stay out.
for option in CORE-SOUNDS-EN-GSM MOH-OPSOUND-WAV BUILD_NATIVE res_stir_shaken res_pjsip_stir_shaken; do
  menuselect/menuselect --disable "$option" menuselect.makeopts
done
menuselect/menuselect --disable-category MENUSELECT_EXTRA_SOUNDS menuselect.makeopts
menuselect/menuselect --check-deps menuselect.makeopts
make -j"$(nproc)"
make install
"$PREFIX/sbin/asterisk" -V
