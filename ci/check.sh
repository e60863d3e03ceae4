#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: host unit tests, then the regression suite inside QEMU on the
# pvsched kernel and on its debug build (KASAN, lockdep), then a short
# make bench run, which boots the unpatched baseline kernel too. Builds
# whatever is missing. Ends with "N passed, M failed".
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
cd "$ROOT" || exit 1

passed=0
failed=0
skipped=0
incomplete=()

die() { echo "check: error: $*" >&2; exit 1; }

# count_tap FILE: add the TAP results in FILE to the totals.
count_tap() {
	local p f s

	p=$(grep -cE '^ok [0-9]+' "$1" | tr -d ' ')
	s=$(grep -cE '^ok [0-9]+.*# SKIP' "$1" | tr -d ' ')
	f=$(grep -cE '^not ok [0-9]+' "$1" | tr -d ' ')
	passed=$((passed + p - s))
	skipped=$((skipped + s))
	failed=$((failed + f))
	echo "  $(basename "$1" .tap): $((p - s)) passed, $f failed, $s skipped"
	grep -E '^not ok [0-9]+' "$1" | sed 's/^/    /'
}

echo "==> [check] building"
make -s kernel || die "kernel build failed"
make -s bpf || die "BPF drivers failed to build"
make -s --no-print-directory -C vmm all || die "minivmm failed to build"
make -s --no-print-directory -C ci/tests OUT="$BUILD/tests" || die "suite failed to build"
cp ci/tests/run-suite.sh ci/tests/minivmm_test.sh "$BUILD/tests/"
kernel/scripts/kbuild.sh build debug || die "debug kernel build failed"

mkdir -p "$BUILD/results"
echo "==> [check] host unit tests (minivmm)"
make -s --no-print-directory -C vmm test > "$BUILD/results/host.tap" 2>&1
count_tap "$BUILD/results/host.tap"

for k in main debug; do
	if [ $k = main ]; then kdir=$BUILD; else kdir=$BUILD/debug; fi
	log=$BUILD/results/vm-$k.log
	echo "==> [check] regression suite in QEMU, $k kernel"
	ci/mkinitramfs.sh "$kdir" "$kdir/initramfs.cpio" >/dev/null || die "initramfs"
	VMRUN_LOG=$log VMRUN_QUIET=1 VMRUN_APPEND=quiet \
		ci/vm-run -k "$kdir" -t 1500 /tests/run-suite.sh
	rc=$?
	grep -E '^(not )?ok [0-9]+' "$log" > "$BUILD/results/vm-$k.tap"
	count_tap "$BUILD/results/vm-$k.tap"
	if [ $rc -eq 124 ]; then
		incomplete+=("$k")
		echo "  $k: INCOMPLETE (kernel panic, timeout or no result): $log"
	elif [ $rc -ne 0 ] && ! grep -qE '^not ok' "$BUILD/results/vm-$k.tap"; then
		failed=$((failed + 1))
		echo "  $k: suite failed with status $rc but reported no failure: $log"
	fi
done

# The unpatched kernel, for real: minivmm refuses it without --no-pvsched
# (status 2), runs on it with --no-pvsched, and make bench's harness works.
echo "==> [check] short make bench run, unpatched baseline and pvsched kernel"
smoke=$BUILD/results/bench-smoke
rm -f "$smoke.json"
if kernel/scripts/kbuild.sh build base > "$smoke.log" 2>&1 &&
   ci/mkinitramfs.sh "$BUILD/base" "$BUILD/base/initramfs.cpio" >/dev/null &&
   python3 ci/bench.py --iterations 2000 --reps 1 --out "$smoke.json" \
	>> "$smoke.log" 2>&1; then
	echo "ok 1 bench: every case ran to completion on both kernels"
else
	echo "not ok 1 bench: short run failed, see $smoke.log"
fi > "$smoke.tap"
if [ -f "$smoke.json" ] && python3 - "$smoke.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["baseline_without_pvsched"]
sys.exit(0 if s["status"] == 2 and "no pvsched" in s["message"] else 1)
PY
then
	echo "ok 2 bench: unpatched kernel, minivmm without --no-pvsched exits 2"
else
	echo "not ok 2 bench: unpatched kernel, minivmm without --no-pvsched exits 2"
fi >> "$smoke.tap"
count_tap "$smoke.tap"

echo
if [ ${#incomplete[@]} -ne 0 ]; then
	echo "incomplete: ${incomplete[*]} (counted as failures)"
	failed=$((failed + ${#incomplete[@]}))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
