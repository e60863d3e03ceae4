// SPDX-License-Identifier: GPL-2.0
/*
 * The pvsched device: its configuration space through ports 0xcf8/0xcfc,
 * its registers through the MMIO path a KVM_EXIT_MMIO takes (pci__mmio()),
 * with a stand-in for KVM_SET_PVSCHED_AREA that notes its calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ioport.h"
#include "pci.h"
#include "pvsched-dev.h"
#include "tap.h"

#define MIB		(1ULL << 20)
#define MEM		(256 * MIB)
#define BAR		0xfebff000U
#define SLOT		1

static struct ioport_bus io;
static struct pci_bus pci;
static struct pvsched_dev dev;
static struct guest_exit gexit;

/* KVM_SET_PVSCHED_AREA, as the device calls it. */
static struct {
	unsigned int calls;
	unsigned int vcpu;
	__u64 gpa;
	int ret;		/* what it gives: 0 or -errno */
} kvm;

static int set_area(void *opaque, unsigned int vcpu, __u64 gpa)
{
	(void)opaque;
	kvm.calls++;
	kvm.vcpu = vcpu;
	kvm.gpa = gpa;
	return kvm.ret;
}

static void setup(bool areas)
{
	static bool done;

	if (done)
		pci__destroy(&pci);
	done = true;
	ioport__init(&io, &gexit);
	pci__init(&pci, MEM);
	pvsched_dev__init(&dev, 3, MEM, areas, set_area, NULL);
	memset(&kvm, 0, sizeof(kvm));
	pci__register_ports(&pci, &io);
	pci__register_host_bridge(&pci);
	pvsched_dev__register(&dev, &pci);
}

static __u32 in_port(__u16 port, unsigned int size)
{
	return tap_in_port(&io, port, size);
}

static void out_port(__u16 port, unsigned int size, __u32 v)
{
	tap_out_port(&io, port, size, v);
}

static __u32 cfg_rd(unsigned int reg, unsigned int size)
{
	out_port(0xcf8, 4, 0x80000000 | SLOT << 11 | (reg & 0xfc));
	return in_port(0xcfc + (reg & 3), size);
}

static void cfg_wr(unsigned int reg, unsigned int size, __u32 v)
{
	out_port(0xcf8, 4, 0x80000000 | SLOT << 11 | (reg & 0xfc));
	out_port(0xcfc + (reg & 3), size, v);
}

/* A guest's MMIO read of @len bytes at @gpa on @vcpu; ~0 if no device. */
static __u64 mmio_rd(unsigned int vcpu, __u64 gpa, unsigned int len)
{
	__u8 d[8];
	__u64 v = 0;
	unsigned int i;

	memset(d, 0x5a, sizeof(d));
	if (!pci__mmio(&pci, vcpu, gpa, d, len, false))
		return ~0ULL;
	for (i = 0; i < len; i++)
		v |= (__u64)d[i] << 8 * i;
	return v;
}

static void mmio_wr(unsigned int vcpu, __u64 gpa, unsigned int len, __u64 v)
{
	__u8 d[8];
	unsigned int i;

	for (i = 0; i < 8; i++)
		d[i] = v >> 8 * i;
	pci__mmio(&pci, vcpu, gpa, d, len, true);
}

static __u32 reg(unsigned int vcpu, unsigned int off)
{
	return mmio_rd(vcpu, BAR + off, 4);
}

static void set(unsigned int vcpu, unsigned int off, __u32 v)
{
	mmio_wr(vcpu, BAR + off, 4, v);
}

/* Latch @gpa on @vcpu, write COMMAND @version, give the STATUS. */
static __u32 command(unsigned int vcpu, __u64 gpa, __u32 version)
{
	set(vcpu, PVSCHED_DEV_GPA_LO, gpa);
	set(vcpu, PVSCHED_DEV_GPA_HI, gpa >> 32);
	set(vcpu, PVSCHED_DEV_COMMAND, version);
	return reg(vcpu, PVSCHED_DEV_STATUS);
}

static void test_config(void)
{
	setup(true);
	ok(cfg_rd(PCI_VENDOR_ID, 4) == 0x50561234 &&
	   cfg_rd(PCI_VENDOR_ID, 2) == 0x1234 &&
	   cfg_rd(PCI_DEVICE_ID, 2) == 0x5056,
	   "00:01.0: vendor 0x1234, device 0x5056");
	ok(cfg_rd(PCI_SUBSYSTEM_VENDOR_ID, 2) == 0x1234 &&
	   cfg_rd(PCI_SUBSYSTEM_ID, 2) == 0x5056,
	   "subsystem vendor 0x1234, subsystem 0x5056");
	ok(cfg_rd(PCI_CLASS_REVISION, 4) == 0x08800001 &&
	   cfg_rd(PCI_REVISION_ID, 1) == 1 &&
	   cfg_rd(PCI_CLASS_PROG, 1) == 0 &&
	   cfg_rd(PCI_CLASS_DEVICE, 2) == 0x0880,
	   "revision 1 (the ABI version), class 0x088000");
	ok(cfg_rd(PCI_HEADER_TYPE, 1) == 0 &&
	   cfg_rd(PCI_INTERRUPT_PIN, 1) == 0 &&
	   cfg_rd(PCI_INTERRUPT_LINE, 1) == 0 &&
	   cfg_rd(PCI_CAPABILITY_LIST, 1) == 0 && cfg_rd(PCI_STATUS, 2) == 0,
	   "header type 0, no interrupt pin, no capabilities, status 0");
	ok(cfg_rd(PCI_COMMAND, 2) == PCI_COMMAND_MEMORY &&
	   cfg_rd(PCI_BASE_ADDRESS_0, 4) == 0xfebff000,
	   "pre-assigned: BAR0 at 0xfebff000, memory decode on");
	ok(cfg_rd(0x40, 4) == 0 && cfg_rd(0xfc, 4) == 0 &&
	   cfg_rd(0x80, 1) == 0, "beyond the header: 0");
	cfg_wr(PCI_BASE_ADDRESS_0, 4, 0xffffffff);
	ok(cfg_rd(PCI_BASE_ADDRESS_0, 4) == 0xfffff000,
	   "BAR0 sizing: 4 KiB of 32-bit non-prefetchable memory");
	cfg_wr(PCI_BASE_ADDRESS_0, 4, BAR);
	cfg_wr(PCI_BASE_ADDRESS_2, 4, 0xffffffff);
	ok(cfg_rd(PCI_BASE_ADDRESS_1, 4) == 0 &&
	   cfg_rd(PCI_BASE_ADDRESS_2, 4) == 0 &&
	   cfg_rd(PCI_BASE_ADDRESS_5, 4) == 0 &&
	   cfg_rd(PCI_ROM_ADDRESS, 4) == 0,
	   "the other BARs and the ROM BAR read 0");
	cfg_wr(PCI_INTERRUPT_LINE, 1, 11);
	cfg_wr(PCI_COMMAND, 2, 0x0547);
	ok(cfg_rd(PCI_INTERRUPT_LINE, 1) == 0 &&
	   cfg_rd(PCI_COMMAND, 2) == PCI_COMMAND_MEMORY,
	   "writes: interrupt line ignored, command keeps memory space only");
	ok(reg(0, PVSCHED_DEV_MAGIC) == 0x50565343,
	   "MMIO at 0xfebff000: the magic");
	cfg_wr(PCI_COMMAND, 2, 0);
	ok(mmio_rd(0, BAR, 4) == ~0ULL,
	   "memory decode off: no device at the BAR (all ones)");
	set(0, PVSCHED_DEV_GPA_LO, 0x9000);
	cfg_wr(PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	ok(reg(0, PVSCHED_DEV_GPA_LO) == 0,
	   "a write while memory decode was off was dropped");
	cfg_wr(PCI_BASE_ADDRESS_0, 4, 0xe0000000);
	ok(reg(0, PVSCHED_DEV_MAGIC) != 0x50565343 &&
	   mmio_rd(0, 0xe0000000, 4) == 0x50565343,
	   "BAR0 moved to 0xe0000000: the registers are there");
	cfg_wr(PCI_BASE_ADDRESS_0, 4, 0xfec00000);
	ok(mmio_rd(0, 0xfec00100, 4) == ~0ULL,
	   "BAR0 over the IOAPIC's page: not decoded (KVM exits above "
	   "0xfec00100)");
	cfg_wr(PCI_BASE_ADDRESS_0, 4, 0x08000000);
	ok(cfg_rd(PCI_BASE_ADDRESS_0, 4) == 0x08000000 &&
	   mmio_rd(0, 0x08000000, 4) == ~0ULL,
	   "BAR0 over RAM: reads back, not decoded");
	cfg_wr(PCI_BASE_ADDRESS_0, 4, BAR);
	ok(reg(0, PVSCHED_DEV_MAGIC) == 0x50565343, "BAR0 back at 0xfebff000");
}

static void test_registers(void)
{
	setup(true);
	ok(reg(0, PVSCHED_DEV_MAGIC) == 0x50565343 &&
	   reg(0, PVSCHED_DEV_VERSION) == 1 &&
	   reg(0, PVSCHED_DEV_AREA_VERSIONS) == 0x2 &&
	   reg(0, PVSCHED_DEV_AREA_SIZE) == 64,
	   "MAGIC 0x50565343, VERSION 1, AREA_VERSIONS 0x2, AREA_SIZE 64");
	ok(reg(2, PVSCHED_DEV_MAGIC) == 0x50565343 &&
	   reg(2, PVSCHED_DEV_AREA_VERSIONS) == 0x2,
	   "the same on another vCPU");
	ok(reg(0, PVSCHED_DEV_STATUS) == 0 && reg(0, PVSCHED_DEV_GPA_LO) == 0 &&
	   reg(0, PVSCHED_DEV_GPA_HI) == 0 && reg(0, PVSCHED_DEV_COMMAND) == 0,
	   "before any command: STATUS 0, GPA 0, COMMAND reads 0");
	set(0, PVSCHED_DEV_MAGIC, 1);
	set(0, PVSCHED_DEV_VERSION, 2);
	set(0, PVSCHED_DEV_AREA_VERSIONS, 0xff);
	set(0, PVSCHED_DEV_AREA_SIZE, 128);
	set(0, PVSCHED_DEV_STATUS, 4);
	ok(reg(0, PVSCHED_DEV_MAGIC) == 0x50565343 &&
	   reg(0, PVSCHED_DEV_VERSION) == 1 &&
	   reg(0, PVSCHED_DEV_AREA_VERSIONS) == 0x2 &&
	   reg(0, PVSCHED_DEV_AREA_SIZE) == 64 &&
	   reg(0, PVSCHED_DEV_STATUS) == 0 && !dev.bad_accesses && !kvm.calls,
	   "writes to the read-only registers: ignored, not counted");

	set(0, PVSCHED_DEV_GPA_LO, 0x9000);
	set(0, PVSCHED_DEV_GPA_HI, 0);
	set(1, PVSCHED_DEV_GPA_LO, 0x9040);
	set(1, PVSCHED_DEV_GPA_HI, 0x12);
	ok(reg(0, PVSCHED_DEV_GPA_LO) == 0x9000 &&
	   reg(0, PVSCHED_DEV_GPA_HI) == 0 &&
	   reg(1, PVSCHED_DEV_GPA_LO) == 0x9040 &&
	   reg(1, PVSCHED_DEV_GPA_HI) == 0x12 &&
	   reg(2, PVSCHED_DEV_GPA_LO) == 0,
	   "GPA_LO/GPA_HI are banked: each vCPU reads its own");
	set(1, PVSCHED_DEV_GPA_HI, 0);
	set(1, PVSCHED_DEV_COMMAND, 1);
	ok(kvm.calls == 1 && kvm.vcpu == 1 && kvm.gpa == 0x9040 &&
	   reg(1, PVSCHED_DEV_STATUS) == PVSCHED_DEV_STATUS_OK &&
	   reg(0, PVSCHED_DEV_STATUS) == 0 && reg(2, PVSCHED_DEV_STATUS) == 0,
	   "COMMAND 1 on vCPU 1: KVM asked for vCPU 1 at its GPA, STATUS "
	   "OK; the others' STATUS untouched");
	set(0, PVSCHED_DEV_COMMAND, 1);
	ok(kvm.calls == 2 && kvm.vcpu == 0 && kvm.gpa == 0x9000 &&
	   reg(0, PVSCHED_DEV_STATUS) == 0,
	   "COMMAND 1 on vCPU 0: its own GPA");
	ok(reg(0, PVSCHED_DEV_COMMAND) == 0, "COMMAND reads 0 after a write");
}

static void test_statuses(void)
{
	char path[4200], line[512] = "";
	int fd, saved;
	bool good;
	ssize_t n;

	setup(true);
	ok(command(2, 0x9080, 2) == PVSCHED_DEV_STATUS_BAD_VERSION &&
	   command(2, 0x9080, 0) == PVSCHED_DEV_STATUS_BAD_VERSION &&
	   command(2, 0x9080, 33) == PVSCHED_DEV_STATUS_BAD_VERSION &&
	   command(2, 0x9080, 0xffffffff) == PVSCHED_DEV_STATUS_BAD_VERSION &&
	   !kvm.calls, "versions 2, 0, 33, ~0: BAD_VERSION, KVM not called");
	ok(reg(2, PVSCHED_DEV_COMMAND) == 0 &&
	   reg(2, PVSCHED_DEV_GPA_LO) == 0x9080,
	   "COMMAND reads 0, not the status; GPA_LO keeps the latched GPA");
	ok(command(2, MEM, 1) == PVSCHED_DEV_STATUS_BAD_ADDRESS &&
	   command(2, MEM - 32, 1) == PVSCHED_DEV_STATUS_BAD_ADDRESS &&
	   command(2, 1ULL << 32 | 0x9000, 1) ==
	   PVSCHED_DEV_STATUS_BAD_ADDRESS &&
	   command(2, ~0ULL - 63, 1) == PVSCHED_DEV_STATUS_BAD_ADDRESS &&
	   !kvm.calls,
	   "an area not all in RAM (at the end, across it, above 4 GiB, at "
	   "the top of the address space): BAD_ADDRESS, KVM not called");
	ok(command(2, MEM - 64, 1) == PVSCHED_DEV_STATUS_OK &&
	   kvm.calls == 1 && kvm.gpa == MEM - 64,
	   "the last 64 bytes of RAM: KVM asked");
	kvm.ret = -EINVAL;
	ok(command(2, 0x9004, 1) == PVSCHED_DEV_STATUS_BAD_ADDRESS &&
	   kvm.calls == 2 && kvm.gpa == 0x9004,
	   "KVM's EINVAL (unaligned, another vCPU's): BAD_ADDRESS");
	kvm.ret = 0;
	ok(command(2, 0, 0xdead) == PVSCHED_DEV_STATUS_OK && kvm.calls == 3 &&
	   kvm.vcpu == 2 && kvm.gpa == 0,
	   "GPA 0: unregister, whatever the version");

	/* ERROR: one line on stderr. */
	snprintf(path, sizeof(path), "%s/pvsched-dev.err", tap_tmpdir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	saved = dup(2);
	dup2(fd, 2);
	kvm.ret = -EIO;
	ok(command(1, 0x9040, 1) == PVSCHED_DEV_STATUS_ERROR &&
	   kvm.calls == 4, "KVM's EIO: ERROR");
	kvm.ret = -ENOMEM;
	ok(command(1, 0, 1) == PVSCHED_DEV_STATUS_ERROR,
	   "an unregistration KVM fails: ERROR too");
	dup2(saved, 2);
	close(saved);
	n = pread(fd, line, sizeof(line) - 1, 0);
	line[n > 0 ? n : 0] = '\0';
	close(fd);
	good = !strcmp(line, "minivmm: vcpu1: pvsched device: KVM_SET_PVSCHED_AREA at 0x9040: Input/output error\n"
		       "minivmm: vcpu1: pvsched device: KVM_SET_PVSCHED_AREA at 0x0: Cannot allocate memory\n");
	ok(good, "ERROR: one line each on stderr, with the vCPU, the GPA "
	   "and the errno");
	if (!good)
		diag("stderr: %s", line);
	ok(reg(1, PVSCHED_DEV_STATUS) == PVSCHED_DEV_STATUS_ERROR &&
	   reg(2, PVSCHED_DEV_STATUS) == PVSCHED_DEV_STATUS_OK,
	   "STATUS is per vCPU");

	setup(false);
	ok(reg(0, PVSCHED_DEV_AREA_VERSIONS) == 0 &&
	   reg(0, PVSCHED_DEV_MAGIC) == 0x50565343,
	   "no areas (no KVM_CAP_PVSCHED_AREA, --no-pvsched): the device is "
	   "there, AREA_VERSIONS 0");
	ok(command(0, 0x9000, 1) == PVSCHED_DEV_STATUS_UNAVAILABLE &&
	   command(0, 0, 1) == PVSCHED_DEV_STATUS_UNAVAILABLE &&
	   command(0, MEM, 7) == PVSCHED_DEV_STATUS_UNAVAILABLE && !kvm.calls,
	   "no areas: every command UNAVAILABLE, KVM never called");
}

/* Sizes and offsets other than 32-bit aligned registers. */
static void test_bad_accesses(void)
{
	setup(true);
	set(0, PVSCHED_DEV_GPA_LO, 0x9000);
	ok(mmio_rd(0, BAR, 1) == 0xff && mmio_rd(0, BAR + 0x1c, 2) == 0xffff &&
	   mmio_rd(0, BAR + 0x10, 8) == ~0ULL &&
	   mmio_rd(0, BAR + 0x2, 4) == 0xffffffff,
	   "8, 16, 64-bit and unaligned 32-bit reads: all ones");
	ok(mmio_rd(0, BAR + 0x20, 4) == 0xffffffff &&
	   mmio_rd(0, BAR + 0xffc, 4) == 0xffffffff,
	   "offsets 0x20 and 0xffc: all ones");
	ok(dev.bad_accesses == 6, "6 bad accesses counted: %llu",
	   dev.bad_accesses);
	mmio_wr(0, BAR + 0x10, 2, 0xbeef);
	mmio_wr(0, BAR + 0x10, 8, 0x1234567800000040ULL);
	mmio_wr(0, BAR + 0x11, 4, 0x40);
	mmio_wr(0, BAR + 0x18, 1, 1);
	mmio_wr(0, BAR + 0x20, 4, 1);
	ok(reg(0, PVSCHED_DEV_GPA_LO) == 0x9000 &&
	   reg(0, PVSCHED_DEV_GPA_HI) == 0 && !kvm.calls &&
	   reg(0, PVSCHED_DEV_STATUS) == 0 && dev.bad_accesses == 11,
	   "bad writes: GPA_LO/HI unchanged, no command, 5 more counted");
	ok(mmio_rd(3, BAR, 4) == 0xffffffff && dev.bad_accesses == 12,
	   "a vCPU the device does not know: all ones, counted");
	ok(mmio_rd(0, BAR + 0x1000, 4) == ~0ULL && dev.bad_accesses == 12,
	   "past the BAR: no device, not the device's count");
}

void test_pvsched_dev(void)
{
	test_config();
	test_registers();
	test_statuses();
	test_bad_accesses();
}
