#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In-VM: boot minivmm's 2-vCPU Linux guest N times (default 25), each
# with busy loops on both of its vCPUs for 3 s (the initrd's busy2.sh)
# and ending with pvexit=5, and count the boots that hung (minivmm
# stopped by its L2_TIMEOUT) or ended otherwise. The hang rate of nested
# boots in docs/testing.md comes from it; a VM that freezes (no line for
# minutes, vm-run's timeout) is a hang of the whole VM, which the caller
# counts. Exit status 0 iff every boot ended with status 5.
#
# Environment: MINIVMM (minivmm), L2_KERNEL (/tests/linux/bzImage),
# L2_INITRD (/tests/linux/initrd.cpio), L2_TIMEOUT (seconds per boot, 120).
# The console is minivmm's stderr with --json (the report, to /dev/null).

MINIVMM=${MINIVMM:-minivmm}
KERNEL=${L2_KERNEL:-/tests/linux/bzImage}
INITRD=${L2_INITRD:-/tests/linux/initrd.cpio}
TIMEOUT=${L2_TIMEOUT:-120}
CON=/tmp/boot-rate.con
n=${1:-25}

case $n in
''|*[!0-9]*) echo "boot-rate: N must be a number of boots: $n" >&2; exit 1 ;;
esac
NO_PVSCHED=
[ -e /proc/sys/kernel/pvsched_available_drivers ] || NO_PVSCHED=--no-pvsched

now() {
	cut -d' ' -f1 /proc/uptime
}

echo "# boot-rate: $n boots of a 2-vCPU guest, both vCPUs busy, on $(nproc) CPUs, $(uname -r)"
hung=0
other=0
i=0
while [ $i -lt "$n" ]; do
	i=$((i + 1))
	t0=$(now)
	# shellcheck disable=SC2086 # empty or one word
	timeout "$TIMEOUT" "$MINIVMM" --kernel="$KERNEL" --initrd="$INITRD" \
		--append="console=ttyS0 quiet panic=-1 pvexit=5 l2run=busy2" \
		--vcpus=2 --json $NO_PVSCHED < /dev/null > /dev/null 2> "$CON"
	rc=$?
	secs=$(echo "$(now) $t0" | awk '{ printf "%.1f", $1 - $2 }')
	# Status 5 comes from /init after busy2.sh (its last console lines
	# may be lost: the guest's UART still sends them at that exit).
	if [ $rc = 5 ]; then
		what=ok
	elif [ $rc = 143 ]; then
		what=hung
		hung=$((hung + 1))
	else
		what="status $rc"
		other=$((other + 1))
	fi
	echo "# boot $i: $what, ${secs}s"
	if [ "$what" != ok ]; then
		grep '^vcpu[0-9]*: rip\|^L2-' "$CON" | sed 's/^/#   /'
	fi
done
echo "boot-rate: $n boots, $hung hung, $other ended otherwise"
[ $hung = 0 ] && [ $other = 0 ]
