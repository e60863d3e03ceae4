#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The regression suite, run inside the VM: loads the drivers, runs each
# TAP program and checks the kernel log for the reports listed in
# /etc/kernel-report-patterns (ci/kernel-report-patterns). Each TAP
# stream follows a "# stream: NAME" line, for ci/check.sh; a program
# missing from /tests is a failed stream of its own. Status 0 iff all
# passed. ci/check.sh boots it with vm-run -d: the whole kernel log
# follows on the console.
#
# The tests: kvm_pvsched_test, the series' KVM selftest
# (tools/testing/selftests/kvm/x86_64/pvsched_test); pvsched_test, what
# that test cannot check (ci/tests/pvsched_test.c); minivmm_test.sh, the
# VMM on the real kernel.
#
# Usage: run-suite.sh [TEST]...	(default: all three)
status=0
[ $# -gt 0 ] || set -- kvm_pvsched_test pvsched_test minivmm_test.sh

echo "# suite: $(uname -r), $(nproc) CPUs"
insmod /lib/modules/pvsched_count.ko || status=1

for t in "$@"; do
	echo "# stream: $t"
	if [ -x "/tests/$t" ]; then
		"/tests/$t" || status=1
	else
		echo "1..1"
		echo "not ok 1 $t: /tests/$t is missing"
		status=1
	fi
done

# The kernel log, from each line's timestamp on.
echo "# stream: kernel-log"
echo "TAP version 13"
echo "1..1"
what="kernel log free of warnings, BUGs, KASAN, lockdep and RCU reports"
if ! grep -vE '^(#|$)' /etc/kernel-report-patterns > /tmp/patterns; then
	echo "not ok 1 $what: no /etc/kernel-report-patterns"
	status=1
elif dmesg | sed -n 's/^.*\[ *[0-9]*\.[0-9]*\] //p' |
     grep -E -f /tmp/patterns > /tmp/bad; then
	echo "not ok 1 $what"
	sed 's/^/# /' /tmp/bad | head -40
	status=1
else
	echo "ok 1 $what"
fi
exit $status
