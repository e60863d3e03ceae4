#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check the series the way a maintainer would: build the tree after each
# patch (bisectability), build the full series with the pvsched options
# switched off one by one and with KVM as modules, boot the builds without
# pvsched in QEMU to see that KVM offers none of it (the capabilities 0,
# the ioctls ENOTTY: ci/tests/pvsched_absent_test) and that the series' KVM
# selftest skips every test there, boot the KVM=m build to load kvm-amd.ko
# twice with kvm.ko loaded, a VM with a driver each time, build the full
# series with RT_GROUP_SCHED=y and boot it to see a boost into a cgroup
# given no real-time runtime refused and nothing hang (pvsched_boost_test's
# boost.rt_group, which make check's kernels skip), run the
# upstream KVM selftests on the unpatched baseline kernel and on the
# pvsched kernel with kernel.pvsched_default_driver=pvsched_count, where
# each must end as on the baseline (kernel/scripts/kvm-selftests.sh), and
# run checkpatch.pl --strict on every patch. Prints a table; exits
# non-zero if any step failed. make series-check builds what the boots
# need first (the Makefile): the suite's programs in build/tests, the
# selftest build/tests/kvm_pvsched_test, minivmm, the pvsched kernel with
# pvsched-bpf (for its initramfs) and the baseline kernel build/base; this
# checks they are there.
#
# SERIES_CHECK_SKIP_BISECT=1 skips the build after each patch,
# SERIES_CHECK_SKIP_KVM_SELFTESTS=1 the upstream KVM selftests (12-16
# minutes: two VMs of 5 to 8 minutes each).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$ROOT/build
KB=$ROOT/kernel/scripts/kbuild.sh
LOGDIR=$BUILD/series-check

die() { echo "series-check: error: $*" >&2; exit 1; }

for f in tests/pvsched_absent_test tests/kvm_pvsched_test \
	 tests/pvsched_boost_test bzImage bpf/pvsched-bpf base/bzImage; do
	[ -e "$BUILD/$f" ] || die "build/$f missing: run make series-check, which builds it"
done
[ -x "$ROOT/vmm/minivmm" ] ||
	die "vmm/minivmm missing: run make series-check, which builds it"
mkdir -p "$LOGDIR"

declare -a NAMES RESULTS
fails=0

record() {
	NAMES+=("$1")
	RESULTS+=("$2")
	[ "${2%% *}" = OK ] || fails=$((fails + 1))
	printf '  %-66s %s\n' "$1" "$2"
}

"$KB" tree || exit 1
if [ -n "${SERIES_CHECK_SKIP_BISECT:-}" ]; then
	echo "==> [series-check] bisect skipped (SERIES_CHECK_SKIP_BISECT)"
else
echo "==> [series-check] bisect: build after each patch"
SRC=$BUILD/linux
head=$(git -C "$SRC" rev-parse HEAD)
# Restore the full series however this script ends.
trap 'git -C "$SRC" checkout -q "$head"' EXIT
i=0
for c in $(git -C "$SRC" rev-list --reverse pristine..HEAD); do
	i=$((i + 1))
	name="$(printf '%04d' $i) $(git -C "$SRC" log -1 --format=%s "$c" | cut -c1-45)"
	git -C "$SRC" checkout -q --detach "$c"
	if "$KB" build bisect > "$LOGDIR/bisect-$i.log" 2>&1; then
		if grep -q "compiler warnings" "$LOGDIR/bisect-$i.log"; then
			record "$name" "FAIL (warnings, see $LOGDIR/bisect-$i.log)"
		else
			record "$name" "OK"
		fi
	else
		record "$name" "FAIL (see $LOGDIR/bisect-$i.log)"
	fi
done
git -C "$SRC" checkout -q "$head"
fi

# boot_check VARIANT NAME SCRIPT [VM-RUN OPTION]...: boot build/VARIANT
# (its modules, the suite's binaries, minivmm; no pvsched_count or
# pvsched-bpf), with the options to ci/vm-run, run SCRIPT with sh -c in it,
# scan its console; record NAME.
boot_check() {
	local v=$1 name=$2 script=$3

	shift 3
	if "$ROOT/ci/mkinitramfs.sh" -b "$BUILD/$v" "$BUILD/$v/initramfs.cpio" \
		> "$LOGDIR/$v-boot.log" 2>&1 &&
	   "$ROOT/ci/vm-run" -q -l "$LOGDIR/$v-boot.console" "$@" \
		-k "$BUILD/$v" -t 300 sh -c "$script" \
		>> "$LOGDIR/$v-boot.log" 2>&1 &&
	   "$ROOT/ci/scan-console.sh" "$LOGDIR/$v-boot.console" \
		>> "$LOGDIR/$v-boot.log" 2>&1; then
		record "$name" "OK"
	else
		record "$name" "FAIL (see $LOGDIR/$v-boot.log)"
	fi
}

echo "==> [series-check] config variants of the full series"
for v in nohost nokvm kvmm rtgroup; do
	case $v in
	nohost)	desc="PARAVIRT_SCHED_HOST=n" ;;
	nokvm)	desc="PARAVIRT_SCHED_HOST=y PARAVIRT_SCHED_KVM=n" ;;
	kvmm)	desc="KVM=m (kvm.ko, kvm-amd.ko, kvm-intel.ko)" ;;
	rtgroup) desc="RT_GROUP_SCHED=y" ;;
	esac
	if "$KB" build "$v" > "$LOGDIR/$v.log" 2>&1; then
		if grep -q "compiler warnings" "$LOGDIR/$v.log"; then
			record "series, $desc" "FAIL (warnings, see $LOGDIR/$v.log)"
		else
			record "series, $desc" "OK"
		fi
	else
		record "series, $desc" "FAIL (see $LOGDIR/$v.log)"
		continue
	fi
	if [ "$v" = kvmm ]; then
		# KVM as modules: kvm.ko registers pvsched's kfuncs once, at
		# its own load, so that a vendor module loads again while
		# kvm.ko stays. A VM with a driver runs after each load.
		# shellcheck disable=SC2016
		boot_check "$v" "boot, $desc: load, reload kvm-amd.ko, a VM each time" '
			vm() {
				minivmm --pvsched=pvsched_nop --payload=halt \
					--seconds=1 --json > /tmp/vm.json &&
				grep -q "\"final\":\"pvsched_nop\"" /tmp/vm.json
			}
			set -x
			insmod /lib/modules/irqbypass.ko &&
			insmod /lib/modules/kvm.ko &&
			insmod /lib/modules/kvm-amd.ko && vm &&
			rmmod kvm_amd && insmod /lib/modules/kvm-amd.ko && vm &&
			rmmod kvm_amd && rmmod kvm'
		continue
	fi
	if [ "$v" = rtgroup ]; then
		# RT group scheduling: a new cgroup has no real-time runtime,
		# and a boost into it is refused (EXCLUDED, nothing served),
		# the VM runs on, the root group is served. boost.rt_group
		# skips on a kernel without RT group scheduling (make
		# check's): here it must pass, not skip. On instruction-count
		# time, as make check runs the boost tests.
		# shellcheck disable=SC2016
		boot_check "$v" "boot, $desc: boost into a group without RT runtime refused" '
			insmod /lib/modules/pvsched_count.ko || exit 1
			/tests/pvsched_boost_test -t rt_group > /tmp/rt.tap; rc=$?
			cat /tmp/rt.tap
			echo "# pvsched_boost_test -t rt_group: status $rc"
			[ "$rc" = 0 ] && grep -qx "ok 1 boost.rt_group" /tmp/rt.tap' \
			-Q "-icount shift=0,sleep=off"
		continue
	fi
	# The suite's binaries (build/tests, checked above) include
	# pvsched_absent_test and the series' KVM selftest, built from the
	# full series, which must skip every test there.
	# shellcheck disable=SC2016
	boot_check "$v" "boot, $desc: no KVM_CAP_PVSCHED*, ioctls unknown, selftest skips" '
		/tests/pvsched_absent_test || exit 1
		/tests/kvm_pvsched_test > /tmp/st.tap; rc=$?
		cat /tmp/st.tap
		plan=$(sed -n "s/^1\.\.\([0-9]*\)$/\1/p" /tmp/st.tap)
		skips=$(grep -c "^ok [0-9]* .* # SKIP" /tmp/st.tap)
		echo "# kvm_pvsched_test: status $rc, $skips of ${plan:-?} skipped"
		[ "$rc" = 0 ] && [ -n "$plan" ] && [ "$skips" = "$plan" ]'
done

# The upstream KVM selftests of the patched tree, each with the same
# result on the baseline and on the pvsched kernel, where every VM gets
# the default driver pvsched_count, as under a VMM that never heard of
# pvsched.
if [ -n "${SERIES_CHECK_SKIP_KVM_SELFTESTS:-}" ]; then
	echo "==> [series-check] KVM selftests skipped (SERIES_CHECK_SKIP_KVM_SELFTESTS)"
else
	echo "==> [series-check] upstream KVM selftests, base and pvsched (log $LOGDIR/kvm-selftests.log)"
	name="upstream KVM selftests: base == pvsched (default pvsched_count)"
	if "$ROOT/kernel/scripts/kvm-selftests.sh" > "$LOGDIR/kvm-selftests.log" 2>&1; then
		if [ -n "${KVM_SELFTESTS_NO_DEFAULT:-}" ]; then
			record "$name" "OK (but no default driver: KVM_SELFTESTS_NO_DEFAULT)"
		else
			record "$name" "OK"
		fi
	else
		record "$name" "FAIL (see $LOGDIR/kvm-selftests.log)"
	fi
fi

echo "==> [series-check] checkpatch.pl --strict"
errors=0
warnings=0
checks=0
# build/linux is the source package's tree in a fresh git repository,
# without upstream history: checkpatch cannot look up the commits that
# Fixes: tags and backports name, and would warn about each.
for p in $("$KB" series); do
	out=$("$BUILD/linux/scripts/checkpatch.pl" --strict \
		--ignore UNKNOWN_COMMIT_ID "$p" 2>&1)
	tot=$(echo "$out" | sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p')
	read -r e w c <<< "${tot:-1 0 0}"
	errors=$((errors + e))
	warnings=$((warnings + w))
	checks=$((checks + c))
	if [ "$e$w$c" = 000 ]; then
		record "checkpatch: $(basename "$p" .patch)" "OK"
	else
		echo "$out" > "$LOGDIR/checkpatch-$(basename "$p" .patch).log"
		record "checkpatch: $(basename "$p" .patch)" \
			"FAIL ($e errors, $w warnings, $c checks)"
	fi
done

echo
echo "series-check summary"
printf '%-68s %s\n' "step" "result"
printf '%-68s %s\n' "----" "------"
for i in "${!NAMES[@]}"; do
	printf '%-68s %s\n' "${NAMES[$i]}" "${RESULTS[$i]}"
done
echo "checkpatch total: $errors errors, $warnings warnings, $checks checks"
echo "$(( ${#NAMES[@]} - fails )) passed, $fails failed"
[ "$fails" -eq 0 ]
