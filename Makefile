# SPDX-License-Identifier: GPL-2.0
#
# pvsched: paravirtualized scheduling for KVM.
#
#   make demo          build what is missing, boot, show minivmm with drivers
#   make check         host unit tests + regression suite in QEMU
#   make kernel        the patched kernel: build/bzImage, build/vmlinux,
#                      build/modules/pvsched_count.ko
#   make guest         the main kernel with suspend, hibernation and kexec
#                      and the guest driver as a module, as a Linux guest:
#                      build/guest/bzImage, build/guest/initrd.cpio
#   make selftest      the series' KVM selftest, static:
#                      build/tests/kvm_pvsched_test
#   make suite         the in-VM suite: build/tests, the selftest, the
#                      test module for the main and the debug kernel
#   make bench         exit-path cost of pvsched against an unpatched
#                      kernel, in QEMU virtual time (build/bench.json)
#   make latency       guest wake-up latency under host CPU hogs, with and
#                      without the boost, under minivmm and Debian's QEMU
#                      (build/latency.json, .png, build/latency-qemu.json)
#   make series-check  bisectability, config variants, the upstream KVM
#                      selftests on the baseline and pvsched kernels,
#                      checkpatch
#   make series        write kernel/patches from the kernel tree, the cover
#                      letter from kernel/cover-letter.txt and the results
#   make qemu          the QEMU the VMs run: Debian's with ci/qemu/*.patch,
#                      build/qemu-system-x86_64
#   make shell         interactive shell in the booted VM
#   make fuzz          minivmm's libFuzzer targets, FUZZ_SECONDS (180)
#                      each, on the host (vmm/fuzz/, clang)
#
# Every target installs the Debian packages it needs (scripts/deps.sh).
# The targets below are the build graph: the scripts in ci/ build nothing
# themselves; each target names what it needs and every step is
# incremental.

SHELL := /bin/bash
ROOT := $(CURDIR)
BUILD := $(ROOT)/build

# One kernel build at a time: each uses every CPU already.
.NOTPARALLEL:

.PHONY: all deps kernel-tree kernel debug guest base selftest bpf vmm tests \
	test-modules suite initramfs check demo shell bench latency \
	series-check series qemu fuzz clean distclean help

all: kernel

help:
	@sed -n '3,/^# Every target/p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@scripts/deps.sh

kernel-tree: deps
	@kernel/scripts/kbuild.sh tree

# minivmm under hostile input (issue 37): each libFuzzer target of
# vmm/fuzz/ for FUZZ_SECONDS, progress with exec/s and coverage, one line
# per target at the end; host only, no KVM. make check runs a short pass
# (make -C vmm fuzz-check) with the host unit tests.
FUZZ_SECONDS ?= 180
fuzz: deps
	@$(MAKE) -s --no-print-directory -C vmm fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

# The pvsched kernel, its debug build (KASAN, lockdep) and the unpatched
# baseline that make bench compares with.
kernel: kernel-tree
	@kernel/scripts/kbuild.sh build main

debug: kernel-tree
	@kernel/scripts/kbuild.sh build debug

# The main kernel with suspend, hibernation and kexec and the guest
# driver as a module, as the Linux guest of minivmm_linux_test.sh's power
# management and module boots, with its initramfs.
guest: kernel-tree
	@kernel/scripts/kbuild.sh build guest
	@$(MAKE) -s --no-print-directory -C vmm linux-guest
	@ci/guest-initrd.sh $(BUILD)/guest vmm/tests/linux-guest/initrd.cpio \
		$(BUILD)/guest/initrd.cpio

base: kernel-tree
	@kernel/scripts/kbuild.sh build base

# Only the tree and its UAPI headers: not make kernel's full build.
selftest: kernel-tree
	@kernel/scripts/kbuild.sh selftest $(BUILD)/tests/kvm_pvsched_test

bpf: kernel
	@$(MAKE) -s -C kernel/bpf VMLINUX=$(BUILD)/vmlinux OUT=$(BUILD)/bpf

vmm: deps
	@$(MAKE) -s --no-print-directory -C vmm all

# The suite's own programs and scripts (pvsched_*_test, hog, ...); the
# programs use the kernel tree's kselftest_harness.h.
tests: kernel-tree
	@$(MAKE) -s --no-print-directory -C ci/tests OUT=$(BUILD)/tests
	@cp ci/tests/run-suite.sh ci/tests/minivmm_test.sh ci/tests/l2-latency.sh \
		ci/tests/l2-qemu.sh ci/tests/ct-summary.sh \
		ci/tests/minivmm_linux_test.sh ci/tests/adversary.sh \
		ci/tests/boot-rate.sh ci/tests/l2-tail-trace.sh $(BUILD)/tests/
	@$(MAKE) -s --no-print-directory -C vmm linux-guest
	@mkdir -p $(BUILD)/tests/linux
	@cp vmm/tests/linux-guest/initrd.cpio $(BUILD)/tests/linux/

test-modules: kernel debug
	@ci/test-module.sh $(BUILD) $(BUILD)/obj/main
	@ci/test-module.sh $(BUILD)/debug $(BUILD)/obj/debug

suite: tests selftest test-modules

initramfs: kernel bpf vmm
	@ci/mkinitramfs.sh

check: kernel debug guest base bpf vmm suite qemu
	@ci/check.sh

# Its initramfs is its own, with Debian's QEMU (ci/demo.sh).
demo: kernel bpf vmm tests qemu
	@ci/demo.sh

shell: initramfs qemu
	@$(MAKE) -s --no-print-directory -C vmm linux-guest
	@ci/shell.sh

bench: kernel base bpf vmm qemu
	@ci/bench.sh

# The unpatched baseline: the row of Debian's QEMU on a kernel without
# pvsched (ci/latency-qemu.sh).
latency: kernel base bpf vmm tests qemu
	@ci/latency.sh

# The boots of the builds without pvsched need build/tests (with
# pvsched_absent_test), the selftest and minivmm (ci/mkinitramfs.sh), all
# built from the full series before the bisect moves the tree; the
# upstream KVM selftests run on the pvsched kernel (with pvsched-bpf, for
# its initramfs) and on the baseline.
series-check: kernel-tree tests selftest vmm qemu kernel bpf base
	@kernel/scripts/series-check.sh

series: deps
	@kernel/scripts/series.sh write

# The QEMU the VMs run: Debian's, with ci/qemu/*.patch (scripts/qemu.sh).
qemu: deps
	@scripts/qemu.sh

clean:
	rm -rf $(BUILD)/obj $(BUILD)/bpf $(BUILD)/initramfs*

distclean:
	rm -rf $(BUILD)
