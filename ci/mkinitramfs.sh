#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the test initramfs (build/initramfs.cpio): static busybox from
# Debian, the kernel's modules, the BPF drivers and their loader, minivmm
# and its payloads, and the regression suite, all static binaries.
# Usage: ci/mkinitramfs.sh [KERNEL_OUT_DIR] [OUTPUT]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
KOUT=${1:-$BUILD}
OUTPUT=${2:-$BUILD/initramfs.cpio}
STAGE=$(mktemp -d "$BUILD/initramfs.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

echo "==> [initramfs] $OUTPUT"
mkdir -p "$STAGE"/{bin,sbin,etc,proc,sys,dev,tmp,root,lib/modules,usr/share/minivmm}
cp /bin/busybox "$STAGE/bin/busybox"
ln -s busybox "$STAGE/bin/sh"
cp "$ROOT/ci/init.sh" "$STAGE/init"
cp "$KOUT"/modules/*.ko "$STAGE/lib/modules/" 2>/dev/null || true
[ -x "$BUILD/bpf/pvsched-bpf" ] && cp "$BUILD/bpf/pvsched-bpf" "$STAGE/bin/"
[ -x "$ROOT/vmm/minivmm" ] && cp "$ROOT/vmm/minivmm" "$STAGE/bin/"
for p in "$ROOT"/guest-payload/*.bin; do
	[ -f "$p" ] && cp "$p" "$STAGE/usr/share/minivmm/"
done
if [ -d "$BUILD/tests" ]; then
	mkdir -p "$STAGE/tests"
	cp -r "$BUILD/tests/." "$STAGE/tests/"
fi
echo 'root:x:0:0:root:/root:/bin/sh' > "$STAGE/etc/passwd"

(cd "$STAGE" && find . -print0 | sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) > "$OUTPUT.tmp"
mv "$OUTPUT.tmp" "$OUTPUT"
