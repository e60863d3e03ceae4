#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make latency's Linux-guest rows under Debian's QEMU: the packaged,
# unmodified qemu-system-x86_64 (the VMM users have) runs make latency's
# Linux guest (build/bzImage with build/tests/linux/initrd.cpio, one
# vCPU) inside the test VM (the outer QEMU stays make qemu's), beside the
# same hogs, with the same cyclictest -m -p 90 -i 500 -l LOOPS
# (ci/tests/l2-qemu.sh). QEMU knows nothing of pvsched: the VM's driver is
# the administrator's default, kernel.pvsched_default_driver. The cases
# take turns for REPS rounds in one VM of the pvsched kernel (one CPU,
# -icount, kvm_amd.vls=0, as make latency); the references (idle, bmig,
# base) run in the first round only, which keeps make latency within its
# 15 minutes:
#
#   idle    no hogs, no driver
#   hog     the hogs, no driver
#   boost   the hogs, the default driver pvsched_boost, the guest half on
#           (-cpu host,migratable=off passes KVM_FEATURE_PVSCHED on)
#   static  the hogs, no driver, the vCPU thread SCHED_FIFO 1 (chrt)
#   bmig    the hogs, pvsched_boost, plain -cpu host: QEMU drops the
#           bit, the guest registers nothing (why migratable=off)
#
# then in one VM of the unpatched kernel (build/base)
#
#   base    the hogs, -cpu host,migratable=off: the guest boots and runs,
#           nothing registered
#
# Each VM has its own initramfs with Debian's QEMU (ci/mkinitramfs.sh -q,
# in build/latency-qemu/, which the other targets' initramfs does not
# become); ci/latency_qemu.py reads their consoles
# (build/latency-qemu/{main,base}.log) and prints the table, and writes
# build/latency-qemu.json. About 3.5 minutes with the defaults.
# ci/latency.sh runs this after the minivmm rows unless LATENCY_QEMU=0.
#
# Environment, as for ci/latency.sh (ci/latency.py's defaults):
# LATENCY_REPS (rounds, 3), LATENCY_HOGS (busy loops, 2), LATENCY_L2_LOOPS
# (cyclictest loops per run, 5000); LATENCY_QEMU_OUT (the JSON).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
OUT=$BUILD/latency-qemu
cd "$ROOT"

REPS=${LATENCY_REPS:-3}
HOGS=${LATENCY_HOGS:-2}
LOOPS=${LATENCY_L2_LOOPS:-5000}
PERIOD=500
JSON=${LATENCY_QEMU_OUT:-$BUILD/latency-qemu.json}
# make latency's: virtual time, the RTC on that clock from a fixed date.
QEMU_ARGS="-icount shift=0,sleep=off -rtc base=2026-01-01T00:00:00,clock=vm"
# cyclictest's length, about, after its start: the end is looked for
# only after it (l2-qemu.sh -w); how long the hogs run alone.
WAIT=$(awk -v l="$LOOPS" -v p="$PERIOD" 'BEGIN { print 0.5 + l * p / 1e6 }')

die() { echo "latency-qemu: error: $*" >&2; exit 1; }

# make latency builds both kernels, minivmm, the suite's hog and
# l2-qemu.sh, and the Linux guest's initramfs first (Makefile).
for f in bzImage modules/pvsched_boost.ko base/bzImage tests/hog \
	 tests/l2-qemu.sh tests/linux/initrd.cpio; do
	[ -e "$BUILD/$f" ] || die "build/$f missing: run make latency"
done
if [ "$REPS" -lt 1 ] || [ "$HOGS" -lt 1 ] || [ "$LOOPS" -lt 100 ]; then
	die "need LATENCY_REPS >= 1, LATENCY_HOGS >= 1, LATENCY_L2_LOOPS >= 100"
fi
mkdir -p "$OUT/main" "$OUT/base"
ln -sf ../../bzImage "$OUT/main/bzImage"
ln -sf ../../base/bzImage "$OUT/base/bzImage"
ci/mkinitramfs.sh -q "$BUILD" "$OUT/main/initramfs.cpio" >/dev/null ||
	die "initramfs (pvsched kernel)"
ci/mkinitramfs.sh -b -q "$BUILD/base" "$OUT/base/initramfs.cpio" >/dev/null ||
	die "initramfs (baseline kernel)"

# The VM's script: its config and the hogs' rate alone, then one line
# "q CASE ROUND HOGS DRIVER L2-QEMU-OPTION..." per run: DRIVER is the
# default driver to set ("-": none; "": the kernel has no pvsched), the
# run's lines go out as "LQ-L2 CASE ROUND LINE", "LQ-DONE CASE ROUND rc"
# after them.
vm_script() {
	cat <<-EOF
	#!/bin/sh
	if [ -e /proc/sys/kernel/pvsched_default_driver ]; then
		insmod /lib/modules/pvsched_boost.ko || exit 1
		for s in runtime_us period_us; do
			echo "LQ-CONFIG sched_boost_\$s \$(cat /proc/sys/kernel/sched_boost_\$s)"
		done
	fi
	echo "LQ-CONFIG release \$(uname -r)"
	echo "LQ-CONFIG cpus \$(nproc)"
	echo "LQ-CONFIG l1_qemu \$(/usr/bin/qemu-system-x86_64 --version | head -n 1)"
	# The hogs alone, for their full rate, as long as cyclictest runs.
	i=0 pids=
	while [ \$i -lt $HOGS ]; do
		/tests/hog > /tmp/alone.\$i &
		pids="\$pids \$!"
		i=\$((i + 1))
	done
	sleep $WAIT
	kill \$pids
	wait \$pids
	sed 's/^/LQ-ALONE /' /tmp/alone.*
	q() {
		case=\$1 rnd=\$2 hogs=\$3 drv=\$4
		shift 4
		if [ "\$drv" = - ]; then
			echo > /proc/sys/kernel/pvsched_default_driver || exit 1
		elif [ -n "\$drv" ]; then
			echo "\$drv" > /proc/sys/kernel/pvsched_default_driver || exit 1
		fi
		/tests/l2-qemu.sh -H \$hogs -w $WAIT -t 300 \\
			-a "ct.interval=$PERIOD ct.loops=$LOOPS" "\$@" > /tmp/l2 2>&1
		rc=\$?
		sed "s/^/LQ-L2 \$case \$rnd /" /tmp/l2
		echo "LQ-DONE \$case \$rnd \$rc"
	}
	EOF
}

# run_vm NAME KDIR RUN...: one VM, its console in $OUT/NAME.log.
run_vm() {
	local name=$1 kdir=$2 script=$OUT/$1-vm.sh rc
	shift 2
	{ vm_script; printf '%s\n' "$@"; } > "$script"
	chmod +x "$script"
	echo "==> [latency-qemu] $name kernel: $# runs (log $OUT/$name.log)"
	set +e
	ci/vm-run -k "$kdir" -s 1 -t 3600 -d -Q "$QEMU_ARGS" \
		-a "quiet kvm_amd.vls=0" -l "$OUT/$name.log" \
		-f "$BUILD/bzImage:/tests/linux/bzImage" \
		-f "$script:/root/latency-qemu.sh" /root/latency-qemu.sh |
		awk '/^LQ-DONE / { printf "    %s round %s: exit %s\n", $2, $3, $4
				   fflush() }'
	rc=${PIPESTATUS[0]}
	set -e
	[ "$rc" = 0 ] || die "$name kernel: the VM's status $rc, see $OUT/$name.log"
}

main=()
base=()
for ((r = 0; r < REPS; r++)); do
	[ $r -gt 0 ] || main+=("q idle $r 0 -")
	main+=("q hog $r $HOGS -"
	       "q boost $r $HOGS pvsched_boost"
	       "q static $r $HOGS - -f 1")
	[ $r -gt 0 ] || main+=("q bmig $r $HOGS pvsched_boost -c host")
done
base+=("q base 0 $HOGS ''")
t0=$SECONDS
run_vm main "$OUT/main" "${main[@]}"
run_vm base "$OUT/base" "${base[@]}"
scan=0
ci/scan-console.sh "$OUT/main.log" "$OUT/base.log" || scan=$?
python3 "$ROOT/ci/latency_qemu.py" --reps "$REPS" --hogs "$HOGS" \
	--loops "$LOOPS" --period-us "$PERIOD" --qemu-args "$QEMU_ARGS" \
	--seconds $((SECONDS - t0)) --out "$JSON" "$OUT/main.log" "$OUT/base.log"
[ "$scan" = 0 ] || die "kernel reports in the consoles (above)"
