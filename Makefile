# SPDX-License-Identifier: GPL-2.0
#
# pvsched: paravirtualized scheduling for KVM.
#
#   make demo          build what is missing, boot, show minivmm with drivers
#   make check         host unit tests + regression suite in QEMU
#   make kernel        the patched kernel: build/bzImage, build/vmlinux,
#                      build/modules/pvsched_count.ko
#   make bench         exit-path cost of pvsched against an unpatched
#                      kernel, in QEMU virtual time (build/bench.json)
#   make latency       guest wake-up latency under host CPU hogs, with and
#                      without the boost (build/latency.json, .png)
#   make series-check  bisectability, config variants and checkpatch
#   make series        write kernel/patches from the kernel tree, the cover
#                      letter from kernel/cover-letter.txt and the results
#   make shell         interactive shell in the booted VM
#
# Every target installs the Debian packages it needs (scripts/deps.sh).

SHELL := /bin/bash
ROOT := $(CURDIR)
BUILD := $(ROOT)/build

.PHONY: all deps kernel kernel-tree bpf vmm initramfs check demo shell \
	bench latency series-check series clean distclean help

all: kernel

help:
	@sed -n '3,19p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@scripts/deps.sh

kernel-tree: deps
	@kernel/scripts/kbuild.sh tree

kernel: kernel-tree
	@kernel/scripts/kbuild.sh build main

bpf: kernel
	@$(MAKE) -s -C kernel/bpf VMLINUX=$(BUILD)/vmlinux OUT=$(BUILD)/bpf

initramfs: kernel bpf vmm
	@ci/mkinitramfs.sh

vmm: deps
	@$(MAKE) -s --no-print-directory -C vmm all

check: deps
	@ci/check.sh

demo: deps
	@ci/demo.sh

shell: deps
	@ci/shell.sh

bench: deps
	@ci/bench.sh

latency: deps
	@ci/latency.sh

series-check: kernel-tree
	@kernel/scripts/series-check.sh

series: deps
	@kernel/scripts/series.sh write

clean:
	rm -rf $(BUILD)/obj $(BUILD)/bpf $(BUILD)/initramfs*

distclean:
	rm -rf $(BUILD)
