#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: what pvsched costs on KVM's exit path. Builds the pvsched
# kernel and the unpatched baseline with the same config fragments, then
# ci/bench.py boots each in QEMU with -icount (repeatable virtual time) and
# times minivmm's cpuid and io payloads under each driver.
#
# Environment: BENCH_ITERATIONS (exits per run), BENCH_REPS (runs per
# case), BENCH_OUT (JSON results, default build/bench.json).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
cd "$ROOT"

die() { echo "bench: error: $*" >&2; exit 1; }

echo "==> [bench] building"
make -s kernel || die "kernel build failed"
make -s bpf || die "BPF drivers failed to build"
make -s --no-print-directory -C vmm all || die "minivmm failed to build"
kernel/scripts/kbuild.sh build base || die "baseline kernel build failed"
ci/mkinitramfs.sh "$BUILD" "$BUILD/initramfs.cpio" >/dev/null ||
	die "initramfs (pvsched kernel)"
ci/mkinitramfs.sh -b "$BUILD/base" "$BUILD/base/initramfs.cpio" >/dev/null ||
	die "initramfs (baseline kernel)"

exec python3 "$ROOT/ci/bench.py" --out "${BENCH_OUT:-$BUILD/bench.json}" \
	${BENCH_ITERATIONS:+--iterations "$BENCH_ITERATIONS"} \
	${BENCH_REPS:+--reps "$BENCH_REPS"}
