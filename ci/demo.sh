#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: build what is missing, boot the pvsched kernel in QEMU and let
# minivmm run a halting 2-vCPU guest with pvsched_nop, pvsched_count and
# the BPF driver bpf_pvsched_count, showing the callbacks each one counted.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

# make demo builds the kernel, the BPF drivers, minivmm and the initramfs
# first (Makefile).
[ -f "$ROOT/build/initramfs.cpio" ] ||
	{ echo "demo: build/initramfs.cpio missing: run make demo" >&2; exit 1; }

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
DEMO
chmod +x "$ROOT/build/demo.sh"

echo "==> [demo] booting the pvsched kernel in QEMU (TCG, AMD SVM)"
ci/vm-run -a quiet -l "$ROOT/build/demo.log" -t 300 \
	-f "$ROOT/build/demo.sh:/root/demo.sh" /root/demo.sh |
	sed -n '/^PVSCHED-VM-READY/,/^PVSCHED-EXIT-STATUS/p' |
	grep -v '^PVSCHED-'
