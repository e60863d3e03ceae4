#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the upstream KVM selftests (tools/testing/selftests/kvm of the patched
# tree, build/linux) on the unpatched baseline kernel (build/base) and on the
# pvsched kernel (build), the latter with kernel.pvsched_default_driver set
# to pvsched_count, so that every VM the selftests create gets that driver
# although they never heard of pvsched. The series must not change what
# KVM does for such a VMM: each test must end the same on both kernels.
#
# The x86_64 programs of TEST_GEN_PROGS (the Makefile's
# TEST_GEN_PROGS_x86_64) are built statically, as kbuild.sh's selftest,
# into build/obj/selftests/kvm, incrementally; those that
# ci/kvm-selftests.exclude names are not run, those that
# ci/kvm-selftests.args names get these arguments. Stripped, in a
# compressed archive appended to an initramfs of ci/mkinitramfs.sh of
# their own (build/kvm-selftests/KERNEL/initramfs.cpio while the VM runs,
# not build/initramfs.cpio), they run in a QEMU VM per kernel (ci/vm-run)
# with a time limit each (kernel/scripts/kvm-selftests-vm.sh). Exit
# status 0 is a pass, 4 (KSFT_SKIP) a skip, anything else, a timeout too,
# a failure.
#
# On the pvsched kernel pvsched_count.ko is loaded before the sysctl is
# written (the run fails at once, "kernel.pvsched_default_driver
# missing", on a kernel without it); the driver's counts are reset before
# each test and read after it, and the driver must have seen vCPUs
# (registrations or events) of some test, and no stray callback.
#
# Writes build/kvm-selftests/{base,main}.results ("TEST RESULT STATUS
# SECONDS" a line; STATUS is the exit status or "timeout"), the driver's
# counts per test to main.driver, each test's output to KERNEL/logs/, the
# consoles to KERNEL/console.log; prints a table of both kernels' results
# and their counts.
#
# Usage: kernel/scripts/kvm-selftests.sh [all | build | run base|main | compare]
#   all       build, run on both kernels, compare (default)
#   build     build the selftests only
#   run K     run on kernel K only (base or main), write its results
#   compare   compare the results of the last runs
#
# Environment:
#   KVM_SELFTESTS_LIMIT=SECS  time limit of each test (10 times the
#       selftests' settings file's: 1200)
#   KVM_SELFTESTS_NO_DEFAULT=1  development aid: leave
#       kernel.pvsched_default_driver alone on the pvsched kernel (and do
#       not check that the driver saw a VM); the run is then no check of
#       the default driver
#   KVM_SELFTESTS_ONLY="T..."  development aid: run only these tests
#   JOBS                        parallel compiler jobs (nproc)
#
# Exit status: 0 if both VMs ran every test, each test ended the same on
# both kernels, the driver checks passed and no console shows a kernel
# report; 1 otherwise; 2 on a usage error.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$ROOT/build
SRC=$BUILD/linux
KVM=$SRC/tools/testing/selftests/kvm
OBJ=$BUILD/obj/selftests/kvm
OUT=$BUILD/kvm-selftests
EXCLUDE=$ROOT/ci/kvm-selftests.exclude
ARGS=$ROOT/ci/kvm-selftests.args
RUNNER=$ROOT/kernel/scripts/kvm-selftests-vm.sh
# The selftests' own time limit (kselftest's settings file) is for real
# hardware: ten times that under TCG. hardware_disable_test, the slowest
# by far, took 210 to 360 s, as the host's load varied; the others 10 s
# at most.
LIMIT=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' "$KVM/settings" 2>/dev/null || true)
LIMIT=${KVM_SELFTESTS_LIMIT:-$((${LIMIT:-120} * 10))}
JOBS=${JOBS:-$(nproc)}

stage() { echo "==> [kvm-selftests] $*"; }
die() { echo "kvm-selftests: error: $*" >&2; exit 1; }
fail() { echo "kvm-selftests: FAIL: $*" >&2; failed=1; }

failed=0

# The make arguments of the build, as kbuild.sh's cmd_selftest: the UAPI
# headers of the main build; TARGET_ARCH, last on the compiler's command
# line, undoes the selftests' -march=x86-64-v2, as the VM's qemu64 CPU
# lacks SSE4.2 and POPCNT.
kvm_make() {
	make -C "$KVM" --no-print-directory OUTPUT="$OBJ" \
		KHDR_INCLUDES="-isystem $BUILD/obj/main/usr/include" \
		LDFLAGS="-static -pthread -no-pie" TARGET_ARCH=-march=x86-64 "$@"
}

# The x86_64 test programs, as the Makefile names them (x86_64/cpuid_test,
# dirty_log_test, ...), one a line.
all_tests() {
	# TEST_GEN_PROGS is $(OUTPUT)/NAME after lib.mk.
	# shellcheck disable=SC2016 # make's variables
	kvm_make -s -f Makefile \
		-f <(printf '%s\n' 'kvm-selftests-list:' \
			'	@echo $(TEST_GEN_PROGS)') kvm-selftests-list |
		tr ' ' '\n' | sed -n "s|^$OBJ/||p"
}

# The excluded tests' names.
excluded() {
	sed -e 's/#.*//' "$EXCLUDE" | awk 'NF { print $1 }'
}

# "TEST ARGS..." of the tests that get arguments.
test_args() {
	sed -e 's/#.*//' "$ARGS" | awk 'NF > 1'
}

# The tests to run, one a line.
run_list() {
	if [ -n "${KVM_SELFTESTS_ONLY:-}" ]; then
		tr ' ' '\n' <<< "$KVM_SELFTESTS_ONLY" | grep -v '^$'
	else
		all_tests | grep -vxF -f <(excluded)
	fi
}

cmd_build() {
	local log=$OUT/build.log t0=$SECONDS t progs targets=()

	[ -d "$KVM" ] || die "$KVM missing: make kernel-tree"
	mkdir -p "$OBJ" "$OUT"
	stage "building the x86_64 KVM selftests ($JOBS jobs, log $log)"
	progs=$(all_tests 2> "$log") || true
	[ -n "$progs" ] ||
		{ cat "$log" >&2; die "cannot list the tests of $KVM/Makefile"; }
	for t in $progs; do
		targets+=("$OBJ/$t")
	done
	if ! { make -C "$SRC" O="$BUILD/obj/main" ARCH=x86_64 -s headers &&
	       kvm_make -j"$JOBS" "${targets[@]}"; } > "$log" 2>&1; then
		tail -20 "$log" >&2
		die "build failed, full log: $log"
	fi
	for t in $(excluded) $(test_args | awk '{ print $1 }'); do
		grep -qxF "$t" <<< "$progs" ||
			die "ci/kvm-selftests.{exclude,args} name $t, which the Makefile does not build"
	done
	stage "built ${#targets[@]} programs in $((SECONDS - t0))s"
}

# The archive of the programs to run and the runner, stripped and
# compressed: the initramfs stays in the VM's 1 GiB of RAM.
pack() {
	local stage_dir=$OUT/stage t list

	list=$(run_list)
	[ -n "$list" ] || die "no test to run"
	rm -rf "$stage_dir"
	mkdir -p "$stage_dir/kvm-selftests/bin"
	for t in $list; do
		[ -x "$OBJ/$t" ] || die "$OBJ/$t missing: $0 build"
		mkdir -p "$stage_dir/kvm-selftests/bin/$(dirname "$t")"
		strip -o "$stage_dir/kvm-selftests/bin/$t" "$OBJ/$t"
	done
	echo "$list" > "$OUT/list"
	# Each test with its arguments.
	awk 'NR == FNR { a[$1] = $0; next } { print ($1 in a) ? a[$1] : $1 }' \
		<(test_args) "$OUT/list" > "$stage_dir/kvm-selftests/list"
	cp "$RUNNER" "$stage_dir/kvm-selftests/run.sh"
	chmod 0755 "$stage_dir" "$stage_dir/kvm-selftests/run.sh"
	find "$stage_dir" -exec touch -h -d @0 {} +
	(cd "$stage_dir" && find . ! -name . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --owner=0:0 --reproducible --quiet) |
		gzip -n > "$OUT/tests.cpio.gz"
	rm -rf "$stage_dir"
	echo "  $(wc -l <<< "$list") programs, $(du -h "$OUT/tests.cpio.gz" | cut -f1) compressed"
}

# run_kernel base|main: boot the kernel with the tests, parse its console.
cmd_run() {
	local k=$1 kdir dir mode rc t0 n limit_vm mkflags=()

	case $k in
	base)	kdir=$BUILD/base; mode=base; mkflags=(-b) ;;
	main)	kdir=$BUILD; mode=main
		[ -z "${KVM_SELFTESTS_NO_DEFAULT:-}" ] || mode=main-nodefault ;;
	*)	echo "usage: $0 run base|main" >&2; exit 2 ;;
	esac
	[ -f "$kdir/bzImage" ] || die "$kdir/bzImage missing (make ${k/main/kernel})"
	dir=$OUT/$k
	rm -rf "$dir"
	mkdir -p "$dir/logs"
	# A copy of the kernel as it is now, for the modules that go with it.
	cp "$kdir/bzImage" "$dir/bzImage"
	"$ROOT/ci/mkinitramfs.sh" "${mkflags[@]}" "$kdir" "$dir/suite.cpio" \
		> "$dir/mkinitramfs.log" 2>&1 ||
		{ cat "$dir/mkinitramfs.log" >&2; die "ci/mkinitramfs.sh failed"; }
	cat "$dir/suite.cpio" "$OUT/tests.cpio.gz" > "$dir/initramfs.cpio"
	# The kernel reads an uncompressed archive (vm-run's, next) only at
	# an offset that is a multiple of 4; zeros between archives it skips.
	truncate -s %512 "$dir/initramfs.cpio"
	rm -f "$dir/suite.cpio"

	n=$(wc -l < "$OUT/list")
	# Each test within its limit and 10 s for its kill, plus the boot.
	limit_vm=$((n * (LIMIT + 15) + 300))
	stage "$k: $n tests, ${LIMIT}s each (mode $mode, console $dir/console.log)"
	[ "$mode" != main-nodefault ] ||
		echo "  KVM_SELFTESTS_NO_DEFAULT: kernel.pvsched_default_driver not set" >&2
	t0=$SECONDS
	set +e
	"$ROOT/ci/vm-run" -q -d -s 2 -k "$dir" -t "$limit_vm" -l "$dir/console.log" \
		/kvm-selftests/run.sh "$mode" "$LIMIT" > "$dir/vm-run.log" 2>&1
	rc=$?
	set -e
	stage "$k: VM ran $((SECONDS - t0))s, status $rc"
	rm -f "$dir/initramfs.cpio" "$dir/bzImage"
	if ! "$ROOT/ci/scan-console.sh" "$dir/console.log" > "$dir/scan.log" 2>&1; then
		cat "$dir/scan.log" >&2
		fail "$k: kernel report in the console ($dir/console.log)"
	fi
	# The runner's setup failed: no test ran.
	if grep -q 'KVM-SELFTESTS-ERROR ' "$dir/console.log"; then
		fail "$k: $(sed -n 's/^.*KVM-SELFTESTS-ERROR //p' "$dir/console.log" | head -1)"
		return
	fi
	[ "$rc" -eq 0 ] ||
		fail "$k: the VM did not complete: $(tail -1 "$dir/vm-run.log")"
	results "$k" "$dir" "$n"
	[ "$mode" != main ] || driver_check "$dir"
}

# results K DIR N: K.results from the console's result lines, and each
# test's output in DIR/logs.
results() {
	local k=$1 dir=$2 n=$3 res=$OUT/$1.results t rc secs r got

	: > "$res"
	while read -r t rc secs; do
		case $rc in
		0)	r=pass ;;
		4)	r=skip ;;
		*)	r=fail
			# busybox timeout's TERM, or the KILL after it
			if { [ "$rc" = 143 ] || [ "$rc" = 137 ]; } &&
			   [ "$secs" -ge "$LIMIT" ]; then
				rc=timeout
			fi ;;
		esac
		echo "$t $r $rc $secs" >> "$res"
	done < <(sed -n 's/^.*KVM-SELFTEST-RESULT \([^ ]*\) \([0-9]*\) \([0-9]*\)$/\1 \2 \3/p' \
		"$dir/console.log")
	# The output between a test's begin and result lines.
	awk -v d="$dir/logs" '
		/KVM-SELFTEST-BEGIN / { f = $NF; gsub("/", "_", f); f = d "/" f ".log"; next }
		/KVM-SELFTEST-RESULT / { if (f) close(f); f = ""; next }
		f { print > f }' "$dir/console.log"
	got=$(wc -l < "$res")
	[ "$got" -eq "$n" ] || fail "$k: $got of $n tests reported a result"
	echo "  $k: $(counts "$res")"
}

counts() {
	awk '{ n[$2]++ } END { printf "%d pass, %d skip, %d fail", n["pass"], n["skip"], n["fail"] }' "$1"
}

# The counts of pvsched_count after each test, from the runner's lines
# "KVM-SELFTEST-DRIVER TEST REGISTRATIONS EVENTS STRAY".
driver_check() {
	local dir=$1 drv=$OUT/main.driver seen

	sed -n 's/^.*KVM-SELFTEST-DRIVER \([^ ]* [0-9]* [0-9]* [0-9]*\)$/\1/p' \
		"$dir/console.log" > "$drv"
	seen=$(awk '$2 > 0 || $3 > 0' "$drv" | wc -l)
	echo "  pvsched_count saw the vCPUs of $seen of $(wc -l < "$drv") tests: $(awk '
		{ r += $2; e += $3; s += $4 }
		END { printf "%d registrations, %d events, %d stray", r, e, s }' "$drv")"
	[ "$seen" -gt 0 ] || fail "main: default driver saw no VM"
	if awk '$4 > 0 { exit 1 }' "$drv"; then
		:
	else
		fail "main: pvsched_count counted stray callbacks: $(awk '$4 > 0 { printf "%s ", $1 }' "$drv")"
	fi
}

cmd_compare() {
	local b=$OUT/base.results m=$OUT/main.results

	if [ ! -f "$b" ] || [ ! -f "$m" ]; then
		die "no results: $0 run base, $0 run main"
	fi
	echo
	echo "upstream KVM selftests: base vs. pvsched (default driver pvsched_count)"
	printf '%-46s %-8s %-8s\n' test base pvsched
	printf '%-46s %-8s %-8s\n' ---- ---- -------
	# Every test of either file; "-" where one has no result.
	join -a1 -a2 -e - -o 0,1.2,2.2 <(sort -k1,1 "$b") <(sort -k1,1 "$m") |
		awk '{ printf "%-46s %-8s %-8s%s\n", $1, $2, $3, $2 != $3 ? "  <- differs" : "" }'
	echo "base:    $(counts "$b")"
	echo "pvsched: $(counts "$m")"
	if ! cmp -s <(sort -k1,1 "$b" | cut -d' ' -f1,2) \
		    <(sort -k1,1 "$m" | cut -d' ' -f1,2); then
		fail "the results differ between the kernels"
	fi
}

case "${1:-all}" in
build)	cmd_build ;;
run)	[ $# -eq 2 ] || { echo "usage: $0 run base|main" >&2; exit 2; }
	pack
	cmd_run "$2" ;;
compare) cmd_compare ;;
all)	cmd_build
	pack
	cmd_run base
	cmd_run main
	cmd_compare ;;
*)	echo "usage: $0 [all | build | run base|main | compare]" >&2; exit 2 ;;
esac
exit $failed
