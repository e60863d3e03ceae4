#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The initramfs of the guest variant's Linux guest (make guest): the one
# vmm/tests/linux-guest/mkinitrd.sh builds, with the variant's guest
# driver module appended as a second newc archive, at
# /lib/modules/pvsched_guest.ko (the kernel unpacks both).
# minivmm_linux_test.sh boots it with build/guest/bzImage (18, 22).
#
# Usage: ci/guest-initrd.sh KOUT INITRD OUTPUT
#   KOUT    the variant's output directory (build/guest): KOUT/modules
#   INITRD  vmm/tests/linux-guest/initrd.cpio
set -eu

KOUT=${1:?usage: $0 KOUT INITRD OUTPUT}
INITRD=${2:?usage: $0 KOUT INITRD OUTPUT}
OUT=${3:?usage: $0 KOUT INITRD OUTPUT}
KO=$KOUT/modules/pvsched_guest.ko

[ -f "$KO" ] || { echo "guest-initrd: $KO missing (CONFIG_PVSCHED_GUEST=m)" >&2; exit 1; }
[ -f "$INITRD" ] || { echo "guest-initrd: $INITRD missing" >&2; exit 1; }
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
chmod 0755 "$STAGE"
mkdir -p "$STAGE/lib/modules"
cp "$KO" "$STAGE/lib/modules/"
find "$STAGE" -exec touch -h -d @0 {} +
{
	cat "$INITRD"
	(cd "$STAGE" && find lib -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --owner=0:0 --reproducible --quiet)
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
