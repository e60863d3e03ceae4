#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: what pvsched costs on KVM's exit path. The Makefile builds
# the pvsched kernel and the unpatched baseline with the same config
# fragments; this packs their initramfs, then ci/bench.py boots each in
# QEMU with -icount (repeatable virtual time) and times minivmm's cpuid and
# io payloads under each driver.
#
# Environment: BENCH_ITERATIONS (exits per run), BENCH_REPS (runs per
# case), BENCH_OUT (JSON results, default build/bench.json).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
cd "$ROOT"

die() { echo "bench: error: $*" >&2; exit 1; }

# make bench builds both kernels, the BPF drivers and minivmm (Makefile).
[ -f "$BUILD/base/bzImage" ] || die "build/base/bzImage missing: run make bench"
ci/mkinitramfs.sh "$BUILD" "$BUILD/initramfs.cpio" >/dev/null ||
	die "initramfs (pvsched kernel)"
ci/mkinitramfs.sh -b "$BUILD/base" "$BUILD/base/initramfs.cpio" >/dev/null ||
	die "initramfs (baseline kernel)"

exec python3 "$ROOT/ci/bench.py" --out "${BENCH_OUT:-$BUILD/bench.json}" \
	${BENCH_ITERATIONS:+--iterations "$BENCH_ITERATIONS"} \
	${BENCH_REPS:+--reps "$BENCH_REPS"}
