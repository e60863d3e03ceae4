#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make latency's Linux guest under a VMM that knows nothing of pvsched, in
# the VM: Debian's packaged, unmodified QEMU (/usr/bin/qemu-system-x86_64, in
# the initramfs of ci/mkinitramfs.sh -q) boots the Linux guest of
# /tests/linux under KVM (one vCPU) with l2run=cyclictest, and HOGS busy
# loops (/tests/hog) run beside its vCPU thread from the guest's
# "CT-START" to its "CT-STATUS", as ci/tests/l2-latency.sh does under
# minivmm. The VM's pvsched driver is the administrator's default
# (kernel.pvsched_default_driver, set before this runs); the guest
# registers its area itself, with MSR_KVM_PVSCHED, if CPUID 0x40000001
# has KVM_FEATURE_PVSCHED: QEMU 7.2 passes that bit on only with
# -cpu host,migratable=off (or max,migratable=off), as it keeps of KVM's
# bits only those it has names for in a migratable CPU.
#
#   l2-qemu.sh [-H HOGS] [-w SECS] [-a APPEND] [-t SECS] [-c CPU] [-f PRIO] [-s]
#
# -H HOGS   busy loops, nice 0 (0)
# -w SECS   how long cyclictest runs, about: the end is looked for only
#           after that (0), so that looking does not load the CPU before
# -a APPEND more guest kernel command line (e.g. "ct.loops=4000"; l2run,
#           ct.delay=0.5 by default)
# -t SECS   the run's limit (600): QEMU is stopped after it
# -c CPU    QEMU's -cpu (host,migratable=off; "host" drops the bit)
# -f PRIO   make the vCPU thread SCHED_FIFO PRIO (util-linux chrt) as
#           soon as it exists, before the guest measures: minivmm's
#           --vcpu-fifo (QEMU's other threads stay as they are); QEMU
#           names it "CPU 0/KVM" with -name debug-threads=on, as libvirt
#           runs it, which -f adds
# -s        a summary line only (make demo), as l2-latency.sh -s: "min avg
#           p50 p99 max" in us of the histogram (ct-summary.sh, beside
#           this), or "FAILED ..."
#
# QEMU's command line is the smallest that runs the guest: KVM, the CPU,
# the kernel, its initrd and command line, no default devices but the
# serial port on stdout, and -no-reboot: the guest ends with a reboot
# (pvexit=reboot), and so does one that panics (panic=-1). Not through
# isa-debug-exit at the port of the guest's pvexit (0x501): with QEMU's
# default TPR-patching option ROM (kvmvapic.bin), its OUT from user space
# took a #GP despite ioperm(), on the pvsched kernel and on the unpatched
# one alike (with -global kvm-apic.vapic=off it did not). Its firmware:
# SeaBIOS (bios-256k.bin), linuxboot_dma.bin, kvmvapic.bin. The guest
# boots quiet: its kernel log comes after cyclictest, from a script added
# to its initrd (/scripts/qemu-ct.sh, l2run=qemu-ct).
#
# Prints, after the run, with -f "L2-VCPU tid policy", "L2-DRIVER name"
# (the VM's pvsched driver, from debugfs, where the kernel has pvsched),
# QEMU's own messages as "L2-QEMU ...", the guest's console: its CT-/HB-
# lines as they are, its kernel log as "L2-DMESG ...", the rest as
# "L2-CON ..."; each hog's "hog: ... rate=R" line, "L2-QEMU-EXIT qemu's
# status" and last "L2-STATUS rc": the guest script's exit status, or 1
# if QEMU ended otherwise or the guest did not finish it. Exit status: rc.
KERNEL=${L2_KERNEL:-/tests/linux/bzImage}
INITRD=${L2_INITRD:-/tests/linux/initrd.cpio}
QEMU=/usr/bin/qemu-system-x86_64
HOGS=0
WAIT=0
APPEND=
TIMEOUT=600
CPU=host,migratable=off
FIFO=
NAME=
SUMMARY=
while getopts H:w:a:t:c:f:s opt; do
	case $opt in
	H) HOGS=$OPTARG ;;
	w) WAIT=$OPTARG ;;
	a) APPEND=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	c) CPU=$OPTARG ;;
	f) FIFO=$OPTARG NAME=debug-threads=on ;;
	s) SUMMARY=1 ;;
	*) echo "usage: $0 [-H HOGS] [-w SECS] [-a APPEND] [-t SECS] [-c CPU] [-f PRIO] [-s]" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
CON=/tmp/l2-qemu.con
ERR=/tmp/l2-qemu.err
# What this script saw during the run (L2-VCPU, L2-DRIVER), for the end.
INFO=/tmp/l2-qemu.info
: > "$INFO"
OVERLAY=/tmp/l2-qemu.overlay

# The guest's initrd and a script of ours: its kernel log after
# cyclictest (a second archive in the initrd, which the kernel unpacks
# over the first).
rm -rf "$OVERLAY" && mkdir -p "$OVERLAY/scripts" || exit 1
cat > "$OVERLAY/scripts/qemu-ct.sh" <<'EOF'
sh /scripts/cyclictest.sh
rc=$?
dmesg | sed 's/^/L2-DMESG /'
exit $rc
EOF
(cd "$OVERLAY" && find . | cpio -o -H newc 2> /dev/null) > "$OVERLAY.cpio" &&
	cat "$INITRD" "$OVERLAY.cpio" > "$OVERLAY.initrd" || exit 1

timeout "$TIMEOUT" "$QEMU" -enable-kvm -cpu "$CPU" ${NAME:+-name "$NAME"} \
	-nodefaults -display none -serial stdio -no-reboot \
	-kernel "$KERNEL" -initrd "$OVERLAY.initrd" \
	-append "console=ttyS0 quiet panic=-1 pvexit=reboot l2run=qemu-ct ct.delay=0.5 $APPEND" \
	< /dev/null > "$CON" 2> "$ERR" &
vmm=$!

# The vCPU thread, once QEMU has made it: "tid" or nothing.
vcpu_thread() {
	for comm in /proc/[0-9]*/task/[0-9]*/comm; do
		read -r name 2> /dev/null < "$comm" || continue
		if [ "$name" = "CPU 0/KVM" ]; then
			tid=${comm%/comm}
			echo "${tid##*/}"
			return
		fi
	done
}

if [ -n "$FIFO" ]; then
	tid=
	while kill -0 "$vmm" 2> /dev/null && [ -z "$tid" ]; do
		tid=$(vcpu_thread)
		[ -n "$tid" ] || sleep 0.05
	done
	if [ -n "$tid" ] && chrt -f -p "$FIFO" "$tid"; then
		echo "L2-VCPU $tid $(chrt -p "$tid" | tr '\n' ' ')" >> "$INFO"
	else
		echo "L2-VCPU none: no vCPU thread made SCHED_FIFO $FIFO" >> "$INFO"
	fi
fi

hogpids=
# The hogs start when the guest is about to measure: its boot runs alone,
# so that the hogs' rate is that of the measurement.
while kill -0 "$vmm" 2> /dev/null && ! grep -q '^CT-START' "$CON"; do
	sleep 0.05
done
for ops in /sys/kernel/debug/kvm/*/pvsched_vcpu_ops; do
	[ -e "$ops" ] && echo "L2-DRIVER $(cat "$ops")" >> "$INFO"
done
if [ "$HOGS" -gt 0 ]; then
	i=0
	while [ "$i" -lt "$HOGS" ]; do
		/tests/hog > "/tmp/l2-hog.$i" &
		hogpids="$hogpids $!"
		i=$((i + 1))
	done
	sleep "$WAIT"
	while kill -0 "$vmm" 2> /dev/null && ! grep -q '^CT-STATUS' "$CON"; do
		sleep 0.01
	done
	# shellcheck disable=SC2086 # a list of pids
	kill $hogpids
	# shellcheck disable=SC2086
	wait $hogpids
fi
wait "$vmm"
qrc=$?

# The script's status as the guest's init prints it ("L2-RUN-DONE: NAME
# N"), if QEMU ended with the guest's reboot (0).
status=$(tr -d '\r' < "$CON" | sed -n 's/^L2-RUN-DONE: qemu-ct \([0-9][0-9]*\)$/\1/p')
rc=1
if [ "$qrc" = 0 ] && [ -n "$status" ]; then
	rc=$status
fi
if [ -n "$SUMMARY" ]; then
	rm -f /tmp/l2-hog.*
	if [ "$rc" != 0 ] || ! grep -q '^CT-STATUS 0' "$CON"; then
		echo "FAILED (QEMU $qrc, guest script ${status:-none}; see $CON)"
		[ "$rc" != 0 ] || rc=1
		exit "$rc"
	fi
	"$(dirname "$0")/ct-summary.sh" < "$CON"
	exit
fi
cat "$INFO"
sed 's/^/L2-QEMU /' "$ERR"
tr -d '\r' < "$CON" | sed -E '/^(CT|HB)-|^L2-DMESG /!s/^/L2-CON /'
cat /tmp/l2-hog.* 2> /dev/null
rm -f /tmp/l2-hog.*
echo "L2-QEMU-EXIT $qrc"
echo "L2-STATUS $rc"
exit "$rc"
