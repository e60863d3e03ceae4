#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make shell: an interactive busybox shell in the booted pvsched kernel with
# minivmm, the payloads, pvsched_count.ko and pvsched-bpf at hand.
# Leave with "exit" (the VM powers off).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
make -s kernel bpf
make -s --no-print-directory -C vmm all
ci/mkinitramfs.sh >/dev/null
echo "==> [shell] try: insmod /lib/modules/pvsched_count.ko; minivmm --help"
VMRUN_STDIN=/dev/stdin VMRUN_APPEND=quiet ci/vm-run -t 86400
