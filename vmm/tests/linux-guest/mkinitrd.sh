#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the initramfs of the Linux guest that minivmm boots in the tests
# (ci/tests/minivmm_linux_test.sh): static busybox, this directory's init,
# pvexit, rtspin, pispin, rtwait and rtwake (built here, static),
# cyclictest and hackbench of Debian's rt-tests with the shared libraries
# they load (make latency's guest), the test scripts of scripts/ (init's l2run=NAME), as a newc cpio,
# reproducibly.
#
# Usage: vmm/tests/linux-guest/mkinitrd.sh OUTPUT
set -eu

DIR=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: $0 OUTPUT}
BUSYBOX=${BUSYBOX:-/bin/busybox}
CC=${CC:-gcc}

[ -x "$BUSYBOX" ] || { echo "mkinitrd: $BUSYBOX missing (busybox-static)" >&2; exit 1; }
file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' ||
	{ echo "mkinitrd: $BUSYBOX is not static" >&2; exit 1; }

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
chmod 0755 "$STAGE"
mkdir -p "$STAGE/bin" "$STAGE/proc" "$STAGE/sys" "$STAGE/dev" "$STAGE/tmp"
cp "$BUSYBOX" "$STAGE/bin/busybox"
ln -s busybox "$STAGE/bin/sh"
cp "$DIR/init" "$STAGE/init"
mkdir -p "$STAGE/scripts"
cp "$DIR"/scripts/*.sh "$STAGE/scripts/"
chmod 0755 "$STAGE/init"
$CC -static -O2 -Wall -Wextra -o "$STAGE/bin/pvexit" "$DIR/pvexit.c"
$CC -static -O2 -Wall -Wextra -o "$STAGE/bin/rtspin" "$DIR/rtspin.c"
$CC -static -O2 -Wall -Wextra -pthread -o "$STAGE/bin/pispin" "$DIR/pispin.c"
$CC -static -O2 -Wall -Wextra -o "$STAGE/bin/rtwait" "$DIR/rtwait.c"
$CC -static -O2 -Wall -Wextra -o "$STAGE/bin/rtwake" "$DIR/rtwake.c"
# rt-tests' binaries are dynamic: carry them with the loader and the
# libraries ldd names, at the same paths.
for tool in cyclictest hackbench; do
	bin=$(command -v "$tool") ||
		{ echo "mkinitrd: $tool missing (rt-tests)" >&2; exit 1; }
	cp "$bin" "$STAGE/bin/$tool"
	for lib in $(ldd "$bin" | awk '/=> \// { print $3 } /^\t\// { print $1 }'); do
		mkdir -p "$STAGE$(dirname "$lib")"
		cp -L "$lib" "$STAGE$lib"
	done
done
find "$STAGE" -exec touch -h -d @0 {} +
(cd "$STAGE" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --reproducible --quiet) > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
