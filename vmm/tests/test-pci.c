// SPDX-License-Identifier: GPL-2.0
/*
 * PCI bus 0 through configuration mechanism #1, driven through the port
 * I/O bus as a guest's IN and OUT reach it: CONFIG_ADDRESS, the host
 * bridge, absent functions, sub-dword accesses, and a BAR's sizing,
 * moving and decoding.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "ioport.h"
#include "kvm.h"
#include "pci.h"
#include "tap.h"

#define MIB		(1ULL << 20)
#define TEST_BAR	0xfe000000U

static struct ioport_bus io;
static struct pci_bus pci;
static struct guest_exit gexit;

/* An IN of @size bytes; the bytes start as 0x5a, to see them filled. */
static __u32 in_port(__u16 port, unsigned int size)
{
	return tap_in_port(&io, port, size);
}

static void out_port(__u16 port, unsigned int size, __u32 v)
{
	tap_out_port(&io, port, size, v);
}

/* As Linux's pci_conf1_read(): the address, then the data port. */
static __u32 cfg_rd(unsigned int bus, unsigned int slot, unsigned int fn,
		    unsigned int reg, unsigned int size)
{
	out_port(PCI_CONFIG_ADDRESS, 4, PCI_CONFIG_ADDR(bus, slot, fn, reg));
	return in_port(PCI_CONFIG_DATA + (reg & 3), size);
}

static void cfg_wr(unsigned int slot, unsigned int reg, unsigned int size,
		   __u32 v)
{
	out_port(PCI_CONFIG_ADDRESS, 4, PCI_CONFIG_ADDR(0, slot, 0, reg));
	out_port(PCI_CONFIG_DATA + (reg & 3), size, v);
}

/* A function with a 4 KiB BAR whose accesses are noted. */
static struct {
	unsigned int calls, vcpu, len;
	__u32 offset;
	bool is_write;
} seen;

static void test_mmio(void *priv, unsigned int vcpu, __u32 offset,
		      __u8 *data, unsigned int len, bool is_write)
{
	(void)priv;
	seen.calls++;
	seen.vcpu = vcpu;
	seen.offset = offset;
	seen.len = len;
	seen.is_write = is_write;
	if (!is_write)
		memset(data, 0x42, len);
}

static struct pci_func func = {
	.vendor = 0x1af4, .device = 0x1110, .subsys_vendor = 0x1af4,
	.subsys_device = 0x0001, .class_rev = 0x05000002,
	.bar_size = 0x1000, .mmio = test_mmio,
};

static void setup(__u64 mem_size)
{
	ioport__init(&io, &gexit);
	pci__init(&pci, mem_size);
}

static void test_address(void)
{
	setup(256 * MIB);
	ok(!pci__register_ports(&pci, &io) && !pci__register_host_bridge(&pci),
	   "ports 0xcf8-0xcff and the host bridge registered");
	ok(in_port(0xcf8, 4) == 0, "CONFIG_ADDRESS is 0 at reset");
	/* pci_check_type1() */
	out_port(0xcfb, 1, 0x01);
	ok(in_port(0xcf8, 4) == 0 && io.unhandled == 0,
	   "a byte to 0xcfb is not CONFIG_ADDRESS: ignored");
	out_port(0xcf8, 4, 0x80000000);
	ok(in_port(0xcf8, 4) == 0x80000000,
	   "CONFIG_ADDRESS reads back 0x80000000 (pci_check_type1)");
	out_port(0xcf8, 4, 0x7fffffff);
	ok(in_port(0xcf8, 4) == 0x7fffffff,
	   "CONFIG_ADDRESS reads back any value, reserved bits too");
	ok(in_port(0xcf8, 2) == 0xffff && in_port(0xcf9, 1) == 0xff &&
	   in_port(0xcfa, 2) == 0xffff,
	   "8 and 16-bit reads of 0xcf8-0xcfb: all ones");
	out_port(0xcf8, 2, 0x1234);
	out_port(0xcf9, 1, 0x06);
	ok(in_port(0xcf8, 4) == 0x7fffffff,
	   "8 and 16-bit writes there leave CONFIG_ADDRESS alone");
}

static void test_host_bridge(void)
{
	ok(cfg_rd(0, 0, 0, PCI_CLASS_DEVICE, 2) == 0x0600,
	   "00:00.0: 16-bit class 0x0600, what pci_sanity_check() wants");
	ok(cfg_rd(0, 0, 0, PCI_VENDOR_ID, 4) == 0x50551234 &&
	   cfg_rd(0, 0, 0, PCI_VENDOR_ID, 2) == 0x1234 &&
	   cfg_rd(0, 0, 0, PCI_DEVICE_ID, 2) == 0x5055,
	   "00:00.0: vendor 0x1234, device 0x5055");
	ok(cfg_rd(0, 0, 0, PCI_CLASS_REVISION, 4) == 0x06000000 &&
	   cfg_rd(0, 0, 0, PCI_HEADER_TYPE, 1) == 0 &&
	   cfg_rd(0, 0, 0, PCI_COMMAND, 4) == 0,
	   "00:00.0: class 0x060000, header type 0, command and status 0");
	cfg_wr(0, PCI_COMMAND, 2, 0xffff);
	cfg_wr(0, PCI_BASE_ADDRESS_0, 4, 0xffffffff);
	ok(cfg_rd(0, 0, 0, PCI_COMMAND, 2) == 0 &&
	   cfg_rd(0, 0, 0, PCI_BASE_ADDRESS_0, 4) == 0 &&
	   cfg_rd(0, 0, 0, PCI_INTERRUPT_PIN, 1) == 0,
	   "00:00.0: no BAR, writes to command and BAR0 ignored, no pin");
}

static void test_absent(void)
{
	unsigned int slot, empty = 0;

	for (slot = 1; slot < PCI_MAX_SLOTS; slot++)
		empty += cfg_rd(0, slot, 0, PCI_VENDOR_ID, 4) == 0xffffffff;
	ok(empty == PCI_MAX_SLOTS - 1,
	   "the host bridge alone: slots 1-31 empty, 00:01.0 too (%u)",
	   empty);
	ok(cfg_rd(0, 2, 0, PCI_VENDOR_ID, 4) == 0xffffffff &&
	   cfg_rd(0, 31, 0, PCI_VENDOR_ID, 2) == 0xffff &&
	   cfg_rd(0, 7, 0, PCI_CLASS_REVISION, 1) == 0xff,
	   "empty slots read all ones, at any size");
	ok(cfg_rd(0, 0, 1, PCI_VENDOR_ID, 4) == 0xffffffff &&
	   cfg_rd(0, 0, 7, PCI_VENDOR_ID, 4) == 0xffffffff,
	   "function 1 and 7 of the host bridge's slot: absent");
	ok(cfg_rd(1, 0, 0, PCI_VENDOR_ID, 4) == 0xffffffff &&
	   cfg_rd(255, 0, 0, PCI_VENDOR_ID, 4) == 0xffffffff,
	   "bus 1 and bus 255: absent");
	out_port(0xcf8, 4, 0x00000000);
	ok(in_port(0xcfc, 4) == 0xffffffff,
	   "enable bit clear: 00:00.0 reads all ones");
	out_port(0xcf8, 4, 0x81000000);
	ok(in_port(0xcfc, 4) == 0xffffffff,
	   "bits 27:24 set (AMD's extended register 0x100): all ones");
	out_port(0xcf8, 4, 0x80000040);
	ok(in_port(0xcfc, 4) == 0 && in_port(0xcfe, 2) == 0,
	   "00:00.0 beyond the header (0x40): 0");
	out_port(0xcf8, 4, 0x80000000);
	ok(in_port(0xcfd, 1) == 0x12 && in_port(0xcfe, 2) == 0x5055 &&
	   in_port(0xcfd, 2) == 0x5512,
	   "sub-dword reads at their byte offsets, unaligned 16-bit too");
	ok(in_port(0xcfe, 4) == 0xffff5055,
	   "a 32-bit read at 0xcfe: the bytes past 0xcff are no one's");
	ok(io.unhandled == 0, "no port access of these was unhandled");
}

static void test_bar(void)
{
	__u8 d[8];

	ok(pci__register(&pci, 3, &func, TEST_BAR) == 0 &&
	   pci__register(&pci, 3, &func, TEST_BAR) == -EBUSY &&
	   pci__register(&pci, 32, &func, TEST_BAR) == -EINVAL,
	   "a function in slot 3; a taken slot, slot 32 refused");
	ok(cfg_rd(0, 3, 0, PCI_VENDOR_ID, 4) == 0x11101af4 &&
	   cfg_rd(0, 3, 0, PCI_SUBSYSTEM_VENDOR_ID, 4) == 0x00011af4 &&
	   cfg_rd(0, 3, 0, PCI_REVISION_ID, 1) == 2,
	   "its IDs, subsystem IDs, revision");
	ok(cfg_rd(0, 3, 0, PCI_COMMAND, 2) == PCI_COMMAND_MEMORY &&
	   cfg_rd(0, 3, 0, PCI_BASE_ADDRESS_0, 4) == TEST_BAR,
	   "pre-assigned: BAR0 at its base, memory decode on");
	cfg_wr(3, PCI_COMMAND, 2, 0xffff);
	ok(cfg_rd(0, 3, 0, PCI_COMMAND, 4) == PCI_COMMAND_MEMORY,
	   "command: only the memory space bit sticks, status stays 0");
	cfg_wr(3, PCI_COMMAND, 1, 0);
	ok(cfg_rd(0, 3, 0, PCI_COMMAND, 2) == 0,
	   "command: memory space off by a byte write");
	cfg_wr(3, PCI_STATUS, 2, 0xffff);
	ok(cfg_rd(0, 3, 0, PCI_COMMAND, 4) == 0,
	   "a write to status (byte 2-3 only) leaves command alone");

	/* __pci_read_base() */
	cfg_wr(3, PCI_BASE_ADDRESS_0, 4, 0xffffffff);
	ok(cfg_rd(0, 3, 0, PCI_BASE_ADDRESS_0, 4) == 0xfffff000,
	   "BAR0 sizing: all ones reads back 0xfffff000 (4 KiB, 32-bit "
	   "memory, non-prefetchable)");
	cfg_wr(3, PCI_BASE_ADDRESS_0, 4, TEST_BAR);
	ok(cfg_rd(0, 3, 0, PCI_BASE_ADDRESS_0, 4) == TEST_BAR,
	   "BAR0 restored");
	cfg_wr(3, PCI_BASE_ADDRESS_1, 4, 0xffffffff);
	cfg_wr(3, PCI_ROM_ADDRESS, 4, 0xfffff800);
	ok(cfg_rd(0, 3, 0, PCI_BASE_ADDRESS_1, 4) == 0 &&
	   cfg_rd(0, 3, 0, PCI_BASE_ADDRESS_5, 4) == 0 &&
	   cfg_rd(0, 3, 0, PCI_ROM_ADDRESS, 4) == 0,
	   "BAR1-5 and the ROM BAR: 0 after sizing, not implemented");

	seen.calls = 0;
	ok(!pci__mmio(&pci, 1, TEST_BAR, d, 4, false) && !seen.calls,
	   "memory decode off: no device at the BAR");
	cfg_wr(3, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	ok(pci__mmio(&pci, 1, TEST_BAR + 0x18, d, 4, false) &&
	   seen.calls == 1 && seen.vcpu == 1 && seen.offset == 0x18 &&
	   seen.len == 4 && !seen.is_write && d[0] == 0x42,
	   "decode on: a read at BAR + 0x18 reaches the function, with "
	   "the vCPU, offset and length");
	ok(pci__mmio(&pci, 0, TEST_BAR + 0xffc, d, 8, true) &&
	   seen.offset == 0xffc && seen.len == 8 && seen.is_write,
	   "an access that starts in the BAR goes to the function whole");
	ok(!pci__mmio(&pci, 0, TEST_BAR + 0x1000, d, 4, false) &&
	   !pci__mmio(&pci, 0, TEST_BAR - 4, d, 8, false) && seen.calls == 2,
	   "past the end, or starting below the BAR: no device");

	cfg_wr(3, PCI_BASE_ADDRESS_0, 2, 0x1234);
	ok(cfg_rd(0, 3, 0, PCI_BASE_ADDRESS_0, 4) == TEST_BAR + 0x1000,
	   "a 16-bit write to BAR0's low half: the base's low bits drop");
	cfg_wr(3, PCI_BASE_ADDRESS_0 + 3, 1, 0xd0);
	ok(cfg_rd(0, 3, 0, PCI_BASE_ADDRESS_0, 4) == 0xd0001000 &&
	   pci__mmio(&pci, 0, 0xd0001004, d, 4, false) &&
	   seen.offset == 4 &&
	   !pci__mmio(&pci, 0, TEST_BAR, d, 4, false),
	   "the BAR moved by a byte write to its top byte: it decodes "
	   "there, no more at the old base");
}

/* The places a guest may not put a BAR; what it reads back anyway. */
static void test_bar_overlaps(void)
{
	static const struct {
		__u32 base;
		const char *what;
	} bad[] = {
		{ 0x00000000, "0 (RAM)" },
		{ 256 * MIB - 0x1000, "the last page of RAM" },
		{ 0xfec00000, "the IOAPIC's page" },
		{ 0xfee00000, "the LAPIC's page" },
		{ 0xfffbc000, "KVM's EPT identity map page" },
		{ 0xfffbd000, "KVM's TSS" },
		{ 0xfffbf000, "the TSS's third page" },
	};
	unsigned int i;
	__u8 d[4];

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cfg_wr(3, PCI_BASE_ADDRESS_0, 4, bad[i].base);
		seen.calls = 0;
		ok(cfg_rd(0, 3, 0, PCI_BASE_ADDRESS_0, 4) == bad[i].base &&
		   !pci__mmio(&pci, 0, bad[i].base + 0x100, d, 4, false) &&
		   !seen.calls,
		   "BAR0 at %#x, %s: reads back, decodes nothing", bad[i].base,
		   bad[i].what);
	}
	cfg_wr(3, PCI_BASE_ADDRESS_0, 4, 256 * MIB);
	seen.calls = 0;
	ok(pci__mmio(&pci, 0, 256 * MIB, d, 4, false) && seen.calls == 1,
	   "BAR0 right after RAM decodes");
	cfg_wr(3, PCI_BASE_ADDRESS_0, 4, 0xfffff000);
	ok(pci__mmio(&pci, 0, 0xfffff000, d, 4, false) && seen.calls == 2,
	   "BAR0 at 0xfffff000 (left there by sizing) decodes");
	ok(pci__bar_usable(&pci, 0xfebff000, 0x1000) &&
	   !pci__bar_usable(&pci, 0xfebff000, 0x2000) &&
	   !pci__bar_usable(&pci, 0xfffff000, 0x2000),
	   "a BAR that runs into the IOAPIC or past 4 GiB is not usable");
	pci__destroy(&pci);
}

void test_pci(void)
{
	test_address();
	test_host_bridge();
	test_absent();
	test_bar();
	test_bar_overlaps();
}
