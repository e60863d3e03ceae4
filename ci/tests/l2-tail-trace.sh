#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A late wake-up of make latency's Linux guest, traced on the host (the
# test VM): l2-latency.sh's guest runs cyclictest with ct.break=US, HOGS
# busy loops beside its vCPU thread and the given minivmm options, while
# the host traces its scheduler, pvsched and KVM events. cyclictest stops
# at the first wake-up later than US; tracing stops as soon as the guest
# says so, and the trace's last LINES lines are printed, the late wake-up
# among them.
#
#   l2-tail-trace.sh [-b US] [-l LOOPS] [-H HOGS] [-n LINES] -- MINIVMM_OPTION...
#   l2-tail-trace.sh -q [-b US] [-l LOOPS] [-H HOGS] [-n LINES] [-- L2_QEMU_OPTION...]
#
# -b US     cyclictest's break threshold (1000)
# -l LOOPS  cyclictest's loops at most (30000)
# -H HOGS   busy loops, nice 0 (2)
# -n LINES  how much of the trace to print (6000)
# -q        the guest under Debian's QEMU (l2-qemu.sh, in an initramfs of
#           ci/mkinitramfs.sh -q, such as make latency's in
#           build/latency-qemu/main), not minivmm; the VM's driver is
#           kernel.pvsched_default_driver, set before this runs
#
# Prints "TT-STATUS rc" (l2-latency.sh's), the guest's CT- lines, then the
# trace between "TT-TRACE-BEGIN" and "TT-TRACE-END". For the hunt of
# docs/benchmarks.md's tail; make check does not run it.
BREAK=1000
LOOPS=30000
HOGS=2
LINES=6000
QEMU=
while getopts b:l:H:n:q opt; do
	case $opt in
	b) BREAK=$OPTARG ;;
	l) LOOPS=$OPTARG ;;
	H) HOGS=$OPTARG ;;
	n) LINES=$OPTARG ;;
	q) QEMU=1 ;;
	*) echo "usage: $0 [-q] [-b US] [-l LOOPS] [-H HOGS] [-n LINES] -- OPTION..." >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
T=/sys/kernel/tracing
CON=/tmp/l2-latency.con
[ -z "$QEMU" ] || CON=/tmp/l2-qemu.con

die() { echo "l2-tail-trace: $*" >&2; exit 1; }

[ -d "$T/events" ] || mount -t tracefs nodev "$T" 2> /dev/null ||
	die "no tracefs"
echo 0 > "$T/tracing_on"
echo 16384 > "$T/buffer_size_kb" || die "buffer_size_kb"
echo > "$T/trace"
for e in sched/sched_switch sched/sched_waking sched/sched_wakeup \
	 pvsched/pvsched_boost pvsched/pvsched_unboost \
	 kvm/kvm_exit kvm/kvm_entry kvm/kvm_userspace_exit \
	 kvm/kvm_inj_virq kvm/kvm_vcpu_wakeup timer/hrtimer_expire_entry; do
	echo 1 > "$T/events/$e/enable" || die "no event $e"
done
rm -f "$CON"
echo 1 > "$T/tracing_on"
if [ -n "$QEMU" ]; then
	"$(dirname "$0")/l2-qemu.sh" -H "$HOGS" -t 1500 \
		-a "ct.interval=500 ct.loops=$LOOPS ct.break=$BREAK" "$@" \
		> /tmp/l2-tail.out &
else
	"$(dirname "$0")/l2-latency.sh" -H "$HOGS" -t 1500 \
		-a "ct.loops=$LOOPS ct.break=$BREAK" -- "$@" > /tmp/l2-tail.out &
fi
run=$!
while kill -0 "$run" 2> /dev/null && ! grep -q '^CT-STATUS' "$CON" 2> /dev/null; do
	sleep 0.01
done
echo 0 > "$T/tracing_on"
wait "$run"
echo "TT-STATUS $?"
grep '^CT-' /tmp/l2-tail.out
echo "TT-TRACE-BEGIN"
tail -n "$LINES" "$T/trace"
echo "TT-TRACE-END"
