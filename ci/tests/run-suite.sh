#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The regression suite, run inside the VM: loads the drivers, runs every
# TAP program and checks the kernel log for warnings. Status 0 iff all
# passed.
status=0

echo "# suite: $(uname -r), $(nproc) CPUs"
insmod /lib/modules/pvsched_count.ko || status=1

for t in /tests/pvsched_test /tests/minivmm_test.sh; do
	[ -x "$t" ] || continue
	echo "# running $t"
	"$t" || status=1
done

# The kernel log: any warning, bug, KASAN or lockdep report fails.
echo "TAP version 13"
echo "1..1"
if dmesg | grep -E 'WARNING:|BUG:|KASAN:|Oops|possible circular locking|possible recursive locking|suspicious RCU usage|inconsistent lock state|sleeping function called from invalid context|Call Trace' > /tmp/bad; then
	echo "not ok 1 kernel log free of warnings, BUGs, KASAN and lockdep reports"
	sed 's/^/# /' /tmp/bad | head -40
	status=1
else
	echo "ok 1 kernel log free of warnings, BUGs, KASAN and lockdep reports"
fi
echo "# ---- dmesg ----"
dmesg | sed 's/^/# /'
exit $status
