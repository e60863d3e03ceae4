#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the QEMU that every VM of the project runs (ci/vm-run): Debian
# bookworm's qemu source with ci/qemu/*.patch applied, only
# qemu-system-x86_64 and only what a TCG VM with a serial console needs,
# into build/qemu-system-x86_64. Its firmware comes from the packaged
# QEMU (qemu-system-data, seabios).
#
# Why: QEMU's TCG delivers an interrupt that an L1 hypervisor injects
# into its guest a second time, whatever the guest's RFLAGS.IF, which
# deadlocks nested Linux guests (ci/qemu/0001-*.patch,
# docs/benchmarks.md). Debian's QEMU 7.2 and 10.0 both have it. And 7.2's
# VMRUN can drop the L1's timer interrupt, freezing the whole VM
# (0002-*.patch, a data race on interrupt_request).
#
# Incremental: nothing is done when the binary was built from the same
# source package and patches. About 3 minutes on 2 CPUs otherwise.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
OUT=$BUILD/qemu
BIN=$BUILD/qemu-system-x86_64

die() { echo "qemu: error: $*" >&2; exit 1; }

mkdir -p "$OUT/apt/lists/partial"
cat > "$OUT/apt/sources.list" <<'EOF'
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian bookworm-updates main
deb-src http://deb.debian.org/debian-security bookworm-security main
EOF
APT=(-o Dir::Etc::SourceList="$OUT/apt/sources.list"
     -o Dir::Etc::SourceParts=/dev/null
     -o Dir::State::Lists="$OUT/apt/lists")

# The source package apt would fetch now, and the patches: the stamp.
dsc=$(ls "$OUT"/src/qemu_*.dsc 2>/dev/null | tail -1 || true)
if [ -z "$dsc" ]; then
	echo "==> [qemu] fetching Debian's qemu source"
	apt-get "${APT[@]}" -qq update ||
		die "apt-get update of the deb-src lists failed"
	mkdir -p "$OUT/src"
	(cd "$OUT/src" && apt-get "${APT[@]}" -qq source --download-only qemu \
		> /dev/null 2>&1) || die "apt-get source qemu failed"
	dsc=$(ls "$OUT"/src/qemu_*.dsc | tail -1)
fi
stamp="$(basename "$dsc") $(cat "$ROOT"/ci/qemu/*.patch | sha256sum | cut -d' ' -f1)"
if [ -x "$BIN" ] && [ "$(cat "$OUT/stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

echo "==> [qemu] $(basename "$dsc" .dsc) with ci/qemu/*.patch"
rm -rf "$OUT/tree" "$BIN" "$OUT/stamp"
dpkg-source -x "$dsc" "$OUT/tree" > "$OUT/extract.log" 2>&1 ||
	die "dpkg-source -x $dsc failed (see $OUT/extract.log)"
for p in "$ROOT"/ci/qemu/*.patch; do
	patch -d "$OUT/tree" -p1 -s --no-backup-if-mismatch < "$p" ||
		die "$(basename "$p") does not apply to $(basename "$dsc" .dsc)"
done

mkdir -p "$OUT/tree/b"
(cd "$OUT/tree/b" &&
 ../configure --target-list=x86_64-softmmu --without-default-features \
	--disable-docs --disable-tools --disable-werror \
	--cc="ccache gcc" --cxx="ccache g++" > "$OUT/configure.log" 2>&1) ||
	die "configure failed (see $OUT/configure.log)"
echo "==> [qemu] building (log $OUT/build.log)"
ninja -C "$OUT/tree/b" -j"$(nproc)" qemu-system-x86_64 \
	> "$OUT/build.log" 2>&1 || die "build failed (see $OUT/build.log)"
cp "$OUT/tree/b/qemu-system-x86_64" "$BIN"
echo "$stamp" > "$OUT/stamp"
echo "==> [qemu] $BIN"
