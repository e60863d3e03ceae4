#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: build what is missing, boot the pvsched kernel in QEMU and let
# minivmm run a halting 2-vCPU guest with pvsched_nop, pvsched_count and
# the BPF driver bpf_pvsched_count, showing the callbacks each one counted;
# then what pvsched is for: cyclictest in a Linux guest beside two CPU
# hogs, without a driver and with pvsched_boost (make latency's Linux rows,
# short), and last the boosted case under Debian's packaged QEMU as the
# VMM (ci/tests/l2-qemu.sh), which knows nothing of pvsched. The VM has
# one CPU and virtual time (-icount), as make latency's, and an
# initramfs of its own with that QEMU (ci/mkinitramfs.sh -q, build/demo/).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

# make demo builds the kernel, the BPF drivers, minivmm and the suite's
# scripts first (Makefile).
for f in bzImage tests/l2-latency.sh tests/l2-qemu.sh tests/ct-summary.sh \
	 tests/linux/initrd.cpio; do
	[ -f "$ROOT/build/$f" ] ||
		{ echo "demo: build/$f missing: run make demo" >&2; exit 1; }
done
mkdir -p "$ROOT/build/demo"
ln -sf ../bzImage "$ROOT/build/demo/bzImage"
ci/mkinitramfs.sh -q "$ROOT/build" "$ROOT/build/demo/initramfs.cpio" >/dev/null ||
	{ echo "demo: ci/mkinitramfs.sh -q failed" >&2; exit 1; }

cat > "$ROOT/build/demo.sh" <<'DEMO'
#!/bin/sh
step() { echo; echo "### $*"; }
step "drivers: kernel.pvsched_available_drivers"
cat /proc/sys/kernel/pvsched_available_drivers
step "insmod pvsched_count.ko; pvsched-bpf load count"
insmod /lib/modules/pvsched_count.ko
pvsched-bpf load count
cat /proc/sys/kernel/pvsched_available_drivers
for drv in pvsched_nop pvsched_count bpf_pvsched_count; do
	step "minivmm --pvsched=$drv --vcpus=2 --payload=halt --seconds=2"
	minivmm --pvsched=$drv --vcpus=2 --payload=halt --seconds=2 || exit 1
done
step "minivmm --pvsched=pvsched_count --switch=bpf_pvsched_count@1 --vcpus=2 --payload=halt --seconds=2"
minivmm --pvsched=pvsched_count --switch=bpf_pvsched_count@1 --vcpus=2 \
	--payload=halt --seconds=2 || exit 1
step "minivmm --pvsched=no_such_driver"
minivmm --pvsched=no_such_driver --payload=io
echo "(exit status $?)"
step "cyclictest -m -p 90 -i 500 -l 2000 in a Linux guest (1 vCPU), two CPU hogs beside its vCPU thread"
insmod /lib/modules/pvsched_boost.ko
# Not KVM's notes on the guest's MSRs between the lines.
dmesg -n 1
echo "wake-up latency, us:  min    avg    p50    p99    max"
for drv in "" pvsched_boost; do
	line=$(/tests/l2-latency.sh -s -H 2 -w 1.5 -a ct.loops=2000 -- --pvsched=$drv)
	# shellcheck disable=SC2086 # five numbers, or FAILED and why
	set -- $line
	if [ "$1" = FAILED ]; then
		printf '%-20s %s\n' "${drv:-no driver}" "$line"
	else
		printf '%-20s %5s %6s %6s %6s %6s\n' "${drv:-no driver}" "$@"
	fi
done
# The same guest under Debian's QEMU: the administrator's default driver,
# KVM_FEATURE_PVSCHED passed on by -cpu host,migratable=off.
echo pvsched_boost > /proc/sys/kernel/pvsched_default_driver
line=$(/tests/l2-qemu.sh -s -H 2 -w 1.5 -a ct.loops=2000)
# shellcheck disable=SC2086 # five numbers, or FAILED and why
set -- $line
if [ "$1" = FAILED ]; then
	printf '%-20s %s\n' "pvsched_boost, QEMU" "$line"
else
	printf '%-20s %5s %6s %6s %6s %6s\n' "pvsched_boost, QEMU" "$@"
fi
echo "(the last: Debian's qemu-system-x86_64 -cpu host,migratable=off as the VMM,"
echo " kernel.pvsched_default_driver=pvsched_boost; the others under minivmm)"
echo "(make latency: the whole experiment, beside RFC v1's figures)"
DEMO
chmod +x "$ROOT/build/demo.sh"

echo "==> [demo] booting the pvsched kernel in QEMU (TCG, AMD SVM)"
ci/vm-run -k "$ROOT/build/demo" -s 1 -Q "-icount shift=0,sleep=off -rtc base=2026-01-01T00:00:00,clock=vm" \
	-a "quiet kvm_amd.vls=0" -l "$ROOT/build/demo.log" -t 600 \
	-f "$ROOT/build/bzImage:/tests/linux/bzImage" \
	-f "$ROOT/build/demo.sh:/root/demo.sh" /root/demo.sh |
	sed -n '/^PVSCHED-VM-READY/,/^PVSCHED-EXIT-STATUS/p' |
	grep -v '^PVSCHED-'
