#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the suite's test-only module (ci/modules/pvsched_test_drv) against
# the kernel build OBJ, into KDIR/modules, where ci/mkinitramfs.sh takes
# the kernel's modules from. make test-modules runs it for the main and
# the debug kernel.
#
# Usage: ci/test-module.sh KDIR OBJ
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KDIR=${1:?usage: $0 KDIR OBJ}
OBJ=${2:?usage: $0 KDIR OBJ}
DIR=$ROOT/build/test-modules/${OBJ##*/}

die() { echo "test-module: error: $*" >&2; exit 1; }

[ -f "$OBJ/Module.symvers" ] || die "$OBJ is not a built kernel (make kernel)"
rm -rf "$DIR"
mkdir -p "$DIR" "$KDIR/modules"
cp -r "$ROOT/ci/modules/pvsched_test_drv/." "$DIR/"
make -s -C "$OBJ" M="$DIR" modules > "$DIR/build.log" 2>&1 ||
	die "pvsched_test_drv.ko failed to build against $OBJ, see $DIR/build.log"
cp "$DIR/pvsched_test_drv.ko" "$KDIR/modules/"
