#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: host unit tests, then the regression suite inside QEMU on the
# pvsched kernel and on its debug build (KASAN, lockdep). Builds whatever
# is missing. Ends with "N passed, M failed".
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

echo
if [ ${#incomplete[@]} -ne 0 ]; then
	echo "incomplete: ${incomplete[*]} (counted as failures)"
	failed=$((failed + ${#incomplete[@]}))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
