#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the test initramfs (build/initramfs.cpio): static busybox from
# Debian, the kernel's modules, the BPF drivers and their loader, minivmm
# and its payloads, the kernel report patterns and the regression suite
# (build/tests, with the kernel tree's ktap_helpers.sh, which its scripts
# source), all static binaries, and Debian's jq (for the JSON checks of
# minivmm_test.sh), which is dynamic: it comes with the shared libraries
# and the dynamic loader that ldd lists, each at its host path. Besides
# root, /etc/passwd has nobody (uid 65534), for the checks that run
# minivmm without privileges (busybox su). A missing file is an error, not
# a smaller initramfs.
#
# Usage: ci/mkinitramfs.sh [-b] [-s] [-q] [KERNEL_OUT_DIR] [OUTPUT]
#   -b  the unpatched baseline kernel: no pvsched_count.ko, no pvsched-bpf
#   -s  the regression suite must be there (build/tests, see ci/check.sh)
#   -q  Debian's QEMU as a VMM in the VM (ci/tests/l2-qemu.sh): the
#       packaged, unmodified /usr/bin/qemu-system-x86_64 (qemu-system-x86)
#       with its libraries, as jq's, and the firmware it loads to boot a
#       -kernel under KVM with -nodefaults: SeaBIOS's bios-256k.bin,
#       linuxboot_dma.bin and kvmvapic.bin (no option ROM of a NIC or a
#       display, no module of /usr/lib/x86_64-linux-gnu/qemu); and
#       util-linux's chrt, which busybox lacks (l2-qemu.sh -f). About
#       48 MB more (QEMU 7.2's 18 MB and its 50 libraries' 32 MB: 32.2
#       to 80.2 MB), which the VM unpacks at every boot
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
BASELINE=
SUITE=
QEMU=
# Debian's QEMU and what -q takes of the firmware it finds in its data
# directories (/usr/bin/../share/qemu, .../seabios).
QEMU_BIN=/usr/bin/qemu-system-x86_64
CHRT=/usr/bin/chrt
QEMU_FIRMWARE="/usr/share/seabios/bios-256k.bin /usr/share/qemu/linuxboot_dma.bin
	/usr/share/qemu/kvmvapic.bin"
# The kernel's KTAP writer, which run-suite.sh and minivmm_test.sh source.
KTAP_HELPERS=$BUILD/linux/tools/testing/selftests/kselftest/ktap_helpers.sh

die() { echo "mkinitramfs: error: $*" >&2; exit 1; }

# need FILE HOW: FILE must exist, HOW says what makes it.
need() {
	[ -e "$1" ] || die "$1 missing ($2)"
}

# libs BIN: the shared libraries and the loader that ldd lists for BIN,
# one a line, each there.
libs() {
	local out
	# The absolute paths in ldd's output: "lib => /path (addr)", "/loader (addr)".
	out=$(ldd "$1") || die "ldd $1 failed"
	if grep -q "not found" <<< "$out"; then
		die "ldd $1: $out"
	fi
	out=$(awk '$2 == "=>" && $3 ~ /^\// { print $3 }
		   $1 ~ /^\// { print $1 }' <<< "$out")
	grep -qx /lib64/ld-linux-x86-64.so.2 <<< "$out" ||
		die "ldd $1 names no /lib64/ld-linux-x86-64.so.2"
	for lib in $out; do
		need "$lib" "ldd $1 names it"
	done
	echo "$out"
}

while getopts "bsq" opt; do
	case $opt in
	b) BASELINE=1 ;;
	s) SUITE=1 ;;
	q) QEMU=1 ;;
	*) echo "usage: $0 [-b] [-s] [-q] [KDIR] [OUTPUT]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
KOUT=${1:-$BUILD}
OUTPUT=${2:-$BUILD/initramfs.cpio}

need /bin/busybox "apt-get install busybox-static"
JQ=/usr/bin/jq
need $JQ "apt-get install jq, or scripts/deps.sh"
JQ_LIBS=$(libs $JQ)
# -q: the libraries of QEMU and chrt, and QEMU's firmware.
QEMU_FILES=
if [ -n "$QEMU" ]; then
	need $QEMU_BIN "apt-get install qemu-system-x86, or scripts/deps.sh"
	need $CHRT "apt-get install util-linux"
	QEMU_FILES=$(libs $QEMU_BIN)
	CHRT_LIBS=$(libs $CHRT)
	for f in $QEMU_FIRMWARE; do
		need "$f" "apt-get install qemu-system-x86 (qemu-system-data, seabios)"
	done
	QEMU_FILES+=" $CHRT_LIBS $QEMU_FIRMWARE"
fi
need "$ROOT/vmm/minivmm" "make vmm"
for p in io halt cpuid boost toggle; do
	need "$ROOT/guest-payload/$p.bin" "make vmm"
done
if [ -z "$BASELINE" ]; then
	need "$KOUT/modules/pvsched_count.ko" "make kernel"
	need "$BUILD/bpf/pvsched-bpf" "make bpf"
fi
if [ -n "$SUITE" ]; then
	for t in kvm_pvsched_test kvm_tsc_test pvsched_registry_test pvsched_counts_test \
		 pvsched_lifetime_test pvsched_race_test pvsched_boost_test \
		 run-suite.sh minivmm_test.sh minivmm_linux_test.sh \
		 adversary.sh victim \
		 linux/initrd.cpio; do
		need "$BUILD/tests/$t" "ci/check.sh builds the suite"
	done
	need "$KOUT/modules/pvsched_test_drv.ko" "ci/check.sh builds ci/modules"
	need "$KOUT/modules/pvsched_boost.ko" "make kernel (minivmm_test.sh)"
fi
if [ -d "$BUILD/tests" ]; then
	need "$KTAP_HELPERS" "make kernel-tree: the suite's scripts source it"
fi

STAGE=$(mktemp -d "$BUILD/initramfs.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
# The archive's "." is the VM's /: mktemp's 0700 would lock nobody out.
chmod 0755 "$STAGE"

echo "==> [initramfs] $OUTPUT"
mkdir -p "$STAGE"/{bin,sbin,etc,proc,sys,dev,tmp,root,lib/modules,usr/share/minivmm}
cp /bin/busybox "$STAGE/bin/busybox"
ln -s busybox "$STAGE/bin/sh"
cp "$ROOT/ci/init.sh" "$STAGE/init"
cp "$ROOT/ci/kernel-report-patterns" "$STAGE/etc/"
if compgen -G "$KOUT/modules/*.ko" >/dev/null; then
	cp "$KOUT"/modules/*.ko "$STAGE/lib/modules/"
fi
if [ -z "$BASELINE" ]; then
	cp "$BUILD/bpf/pvsched-bpf" "$STAGE/bin/"
fi
cp "$ROOT/vmm/minivmm" "$STAGE/bin/"
mkdir -p "$STAGE/usr/bin"
cp $JQ "$STAGE/usr/bin/jq"
if [ -n "$QEMU" ]; then
	cp $QEMU_BIN $CHRT "$STAGE/usr/bin/"
fi
for f in $JQ_LIBS $QEMU_FILES; do
	mkdir -p "$STAGE$(dirname "$f")"
	cp -L "$f" "$STAGE$f"	# the file, not the link to it
done
cp "$ROOT"/guest-payload/*.bin "$STAGE/usr/share/minivmm/"
if [ -d "$BUILD/tests" ]; then
	mkdir -p "$STAGE/tests"
	cp -r "$BUILD/tests/." "$STAGE/tests/"
	cp "$KTAP_HELPERS" "$STAGE/tests/ktap_helpers.sh"
fi
printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' \
	'nobody:x:65534:65534:nobody:/:/bin/sh' > "$STAGE/etc/passwd"
printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' > "$STAGE/etc/group"

# The same inputs give the same archive (times, inode numbers): make
# latency's runs repeat exactly only if what the VM boots does too.
find "$STAGE" -exec touch -h -d @0 {} +
(cd "$STAGE" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --reproducible --quiet) > "$OUTPUT.tmp"
mv "$OUTPUT.tmp" "$OUTPUT"
