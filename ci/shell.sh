#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make shell: an interactive busybox shell in the booted pvsched kernel with
# minivmm, the payloads, pvsched_count.ko and pvsched-bpf at hand, and a
# Linux guest for minivmm: the same bzImage at /linux/bzImage, the test
# initramfs at /linux/initrd.cpio (KVM in the VM gets kvm_amd.vls=0, which
# a nested Linux guest needs under TCG). Leave with "exit" (the VM powers
# off). The VM has two CPUs (VMRUN_SMP=1: one); nested Linux boots hung
# in two-CPU VMs before make qemu's fixes, no longer (docs/testing.md).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# make shell builds the kernel, the BPF drivers, minivmm, the initramfs
# and the guest's initramfs first (Makefile).
for f in build/initramfs.cpio build/bzImage vmm/tests/linux-guest/initrd.cpio; do
	[ -f "$ROOT/$f" ] || { echo "shell: $f missing: run make shell" >&2; exit 1; }
done
echo "==> [shell] try: insmod /lib/modules/pvsched_count.ko; minivmm --help"
echo "==> [shell] a Linux guest (Ctrl-A x leaves it): minivmm --kernel=/linux/bzImage --initrd=/linux/initrd.cpio --append='console=ttyS0 quiet l2shell' --vcpus=2"
ci/vm-run -i /dev/stdin -a "quiet kvm_amd.vls=0" -t 86400 \
	-f build/bzImage:/linux/bzImage \
	-f vmm/tests/linux-guest/initrd.cpio:/linux/initrd.cpio
