#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make latency: how much sooner a latency-critical guest runs on a busy
# host with pvsched's boost, in QEMU virtual time. The Makefile builds
# the pvsched kernel, the BPF drivers, minivmm with its payloads and the
# suite's hog; this packs the initramfs, then ci/latency.py boots the
# kernel on one CPU with -icount and measures the latency payload's timer
# wake-ups in each case, and with --linux cyclictest's in a Linux guest of
# minivmm (build/latency.json, build/latency.png, the tables on the
# terminal); then ci/latency-qemu.sh, the same Linux guest under Debian's
# QEMU as the VMM in the VM (build/latency-qemu.json, its table).
#
# Environment: LATENCY_SAMPLES (wake-ups per run), LATENCY_REPS (rounds),
# LATENCY_HOGS (busy loops), LATENCY_L2_LOOPS (cyclictest's loops in the
# Linux guest), LATENCY_OUT (JSON), LATENCY_ARGS (more ci/latency.py
# options: --no-linux without the Linux guest's rows, --hb-loops, ...),
# LATENCY_QEMU=0 (not the rows under Debian's QEMU), LATENCY_QEMU_OUT
# (their JSON).
# Compare two result files:
#   python3 ci/latency.py --compare build/latency.json other.json
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
cd "$ROOT"

die() { echo "latency: error: $*" >&2; exit 1; }

scripts/deps.sh gnuplot-nox || die "cannot install gnuplot-nox"
# make latency builds the kernel, the BPF drivers, minivmm, the suite's
# hog, l2-latency.sh and the Linux guest's initramfs first (Makefile).
for f in tests/hog tests/l2-latency.sh tests/linux/initrd.cpio bzImage; do
	[ -e "$BUILD/$f" ] || die "build/$f missing: run make latency"
done
ci/mkinitramfs.sh "$BUILD" "$BUILD/initramfs.cpio" >/dev/null ||
	die "initramfs"

rc=0
# shellcheck disable=SC2086 # LATENCY_ARGS is a list of options
python3 "$ROOT/ci/latency.py" --out "${LATENCY_OUT:-$BUILD/latency.json}" \
	${LATENCY_SAMPLES:+--samples "$LATENCY_SAMPLES"} \
	${LATENCY_REPS:+--reps "$LATENCY_REPS"} \
	${LATENCY_HOGS:+--hogs "$LATENCY_HOGS"} \
	${LATENCY_L2_LOOPS:+--l2-loops "$LATENCY_L2_LOOPS"} ${LATENCY_ARGS:-} ||
	rc=$?
# The same Linux guest, hogs, loops and rounds under Debian's QEMU (it
# reads LATENCY_REPS, LATENCY_HOGS and LATENCY_L2_LOOPS), even if the
# rows above failed.
if [ "${LATENCY_QEMU:-1}" != 0 ]; then
	echo
	ci/latency-qemu.sh || rc=$?
fi
exit "$rc"
