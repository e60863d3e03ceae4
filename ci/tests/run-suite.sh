#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The regression suite, run inside the VM (busybox sh): loads
# pvsched_count, runs each test program and checks the kernel log for the
# reports listed in /etc/kernel-report-patterns (ci/kernel-report-patterns).
#
# It prints one KTAP stream, with the kernel's own helpers
# (tools/testing/selftests/kselftest/ktap_helpers.sh, which
# ci/mkinitramfs.sh copies to /tests): the plan is one test per program
# and one for the kernel log. A program's whole output, stdout and
# stderr, is a nested subtest indented by 4 spaces, printed line by line
# as it comes; its result line follows, from its exit status: 0 ok, 4
# (KSFT_SKIP) skipped, else not ok. A program missing from /tests is a
# failed result without a nested block; the kernel log check comes last,
# the lines it found as "# " diagnostics. Status 0 iff every result passed
# or skipped (ktap_finished); without pvsched_count it bails out. ci/check.sh
# boots it with vm-run -d: the whole kernel log follows on the console.
#
#   TAP version 13
#   # suite: 6.12.118+, 2 CPUs
#   1..9
#       Random seed: 0x6b8b4567
#       TAP version 13
#       1..15
#       ...
#       ok 15 pvsched_count.replace_concurrently
#       # PASSED: 15 / 15 tests passed.
#       # Totals: pass:15 fail:0 xfail:0 xpass:0 skip:0 error:0
#   ok 1 kvm_pvsched_test
#       TAP version 13
#       ...
#   not ok 2 pvsched_registry_test: exit status 1
#   ...
#   ok 9 kernel-log: kernel log free of warnings, BUGs, KASAN, lockdep and RCU reports
#   # Totals: pass:3 fail:1 xfail:0 xpass:0 skip:0 error:0
#
# The tests: kvm_pvsched_test, the series' KVM selftest
# (tools/testing/selftests/kvm/x86_64/pvsched_test); kvm_tsc_test, a KVM
# fix of the series that the test VMs need (ci/tests/kvm_tsc_test.c); the
# pvsched_{registry,counts,lifetime,race,boost,default}_test programs, what that
# test cannot check (ci/tests/pvsched_*_test.c, on kselftest_harness.h);
# minivmm_test.sh, the VMM on the real kernel.
#
# Usage: run-suite.sh [TEST]...	(default: all of TESTS)
#
# pvsched_boost_test is not in TESTS: it measures the boost's bounds in
# CPU time, which only a VM on instruction-count time (QEMU's -icount)
# gives exactly; ci/check.sh runs it in such a VM of its own, as
# "run-suite.sh pvsched_boost_test".
TESTS="kvm_pvsched_test kvm_tsc_test pvsched_registry_test
       pvsched_counts_test pvsched_lifetime_test pvsched_race_test
       pvsched_default_test minivmm_test.sh"

# shellcheck source=/dev/null # the kernel tree's, copied by ci/mkinitramfs.sh
. /tests/ktap_helpers.sh

RC=/tmp/run-suite.rc		# the exit status of the program that ran last

# shellcheck disable=SC2086 # one word per test
[ $# -gt 0 ] || set -- $TESTS

ktap_print_header
ktap_print_msg "suite: $(uname -r), $(nproc) CPUs"
# Already loaded: run-suite.sh ran before in this VM (make shell).
if ! grep -qs '^pvsched_count ' /proc/modules &&
   ! insmod /lib/modules/pvsched_count.ko; then
	ktap_exit_fail_msg "cannot load /lib/modules/pvsched_count.ko"
fi
ktap_set_plan $(($# + 1))

for t in "$@"; do
	if [ ! -x "/tests/$t" ]; then
		ktap_test_fail "$t: /tests/$t is missing"
		continue
	fi
	# The subshell's status is the reader's: the program's goes to $RC.
	# read, not sed: no block buffering between it and the console.
	rm -f "$RC"
	{ "/tests/$t" 2>&1; echo $? > "$RC"; } |
		while IFS= read -r line || [ -n "$line" ]; do
			printf '    %s\n' "$line"
		done
	rc=$(cat "$RC" 2> /dev/null)
	case $rc in
	0)		ktap_test_pass "$t" ;;
	"$KSFT_SKIP")	ktap_test_skip "$t" ;;
	*)		ktap_test_fail "$t: exit status ${rc:-unknown}" ;;
	esac
done

# The kernel log, from each line's timestamp on.
what="kernel-log: kernel log free of warnings, BUGs, KASAN, lockdep and RCU reports"
if ! grep -vE '^(#|$)' /etc/kernel-report-patterns > /tmp/patterns; then
	ktap_test_fail "$what: no /etc/kernel-report-patterns"
elif ! dmesg | grep -qE '^\[ *0\.0+\] Linux version '; then
	ktap_test_fail "$what: dmesg does not reach back to the boot banner (the log buffer wrapped)"
elif dmesg | sed -n 's/^.*\[ *[0-9]*\.[0-9]*\] //p' |
     grep -E -f /tmp/patterns > /tmp/bad; then
	sed 's/^/# /' /tmp/bad | head -40
	ktap_test_fail "$what"
else
	ktap_test_pass "$what"
fi
ktap_finished
