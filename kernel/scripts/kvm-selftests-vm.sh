#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In the VM of kernel/scripts/kvm-selftests.sh (busybox sh): run each KVM
# selftest that /kvm-selftests/list names ("TEST [ARGS...]" a line), from
# /kvm-selftests/bin, with a time limit, and print for each, on the
# console:
#
#   KVM-SELFTEST-BEGIN TEST
#   (its output)
#   KVM-SELFTEST-DRIVER TEST REGISTRATIONS EVENTS STRAY	(not on base)
#   KVM-SELFTEST-RESULT TEST STATUS SECONDS
#
# STATUS is the program's exit status (busybox timeout's 143 or 137 when
# the limit killed it). On the pvsched kernel pvsched_count.ko is loaded
# and, in mode main, made kernel.pvsched_default_driver; its counts
# (samples/pvsched/pvsched_count.c) are reset before each test and summed
# after it.
#
# Usage: /kvm-selftests/run.sh base|main|main-nodefault LIMIT
# Exit status: 0 when every test ran, 3 after a line
# "KVM-SELFTESTS-ERROR WHY" if the VM could not be set up.

DIR=/kvm-selftests
COUNT=/sys/kernel/debug/pvsched/pvsched_count
SYSCTL=/proc/sys/kernel/pvsched_default_driver
mode=${1:?usage: run.sh base|main|main-nodefault LIMIT}
limit=${2:?usage: run.sh base|main|main-nodefault LIMIT}

die() {
	echo "KVM-SELFTESTS-ERROR $*"
	exit 3
}

echo "# kvm-selftests: $(uname -r), $(nproc) CPUs, mode $mode, ${limit}s a test"
# sem_open() of hardware_disable_test needs a tmpfs there.
mkdir -p /dev/shm
grep -qs ' /dev/shm ' /proc/mounts || mount -t tmpfs tmpfs /dev/shm ||
	die "cannot mount /dev/shm"
# The kernel switches to the TSC clocksource a second or two after the
# boot, once it has calibrated the TSC; x86_64/hyperv_clock skips until
# then: wait for it, so that each kernel runs the tests in the same state.
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
i=0
while [ "$(cat "$cs")" != tsc ] && [ $i -lt 30 ]; do
	sleep 1
	i=$((i + 1))
done
echo "# clocksource $(cat "$cs") after ${i}s"
if [ "$mode" != base ]; then
	grep -qs '^pvsched_count ' /proc/modules ||
		insmod /lib/modules/pvsched_count.ko ||
		die "cannot load /lib/modules/pvsched_count.ko"
fi
if [ "$mode" = main ]; then
	[ -e "$SYSCTL" ] || die "kernel.pvsched_default_driver missing"
	sysctl -w kernel.pvsched_default_driver=pvsched_count ||
		die "sysctl -w kernel.pvsched_default_driver=pvsched_count failed"
	drv=$(cat "$SYSCTL")
	[ "$drv" = pvsched_count ] ||
		die "kernel.pvsched_default_driver reads \"$drv\", not pvsched_count"
fi

while read -r t args; do
	[ "$mode" = base ] || echo 1 > "$COUNT/reset"
	echo "KVM-SELFTEST-BEGIN $t"
	start=$(date +%s)
	# shellcheck disable=SC2086 # one word per argument
	timeout -k 10 "$limit" "$DIR/bin/$t" $args < /dev/null 2>&1
	rc=$?
	end=$(date +%s)
	if [ "$mode" != base ]; then
		awk '{
			for (i = 2; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] == "register")
					r += kv[2]
				else if (kv[1] != "unregister")
					e += kv[2]
			}
		} END { printf "%d %d", r, e }' "$COUNT/stats" > /tmp/counts
		stray=$(sed -n 's/.*stray=\([0-9]*\).*/\1/p' "$COUNT/summary")
		echo "KVM-SELFTEST-DRIVER $t $(cat /tmp/counts) ${stray:-0}"
	fi
	echo "KVM-SELFTEST-RESULT $t $rc $((end - start))"
done < "$DIR/list"
exit 0
