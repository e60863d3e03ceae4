#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make shell: an interactive busybox shell in the booted pvsched kernel with
# minivmm, the payloads, pvsched_count.ko and pvsched-bpf at hand.
# Leave with "exit" (the VM powers off).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# make shell builds the kernel, the BPF drivers, minivmm and the initramfs
# first (Makefile).
[ -f "$ROOT/build/initramfs.cpio" ] ||
	{ echo "shell: build/initramfs.cpio missing: run make shell" >&2; exit 1; }
echo "==> [shell] try: insmod /lib/modules/pvsched_count.ko; minivmm --help"
ci/vm-run -i /dev/stdin -a quiet -t 86400
