// SPDX-License-Identifier: GPL-2.0
/*
 * PCI bus 0 through configuration mechanism #1, see pci.h.
 *
 * How a Linux guest (CONFIG_PCI=y, no ACPI tables, no DMI) finds the bus,
 * in Linux 6.12's arch/x86/pci/:
 *
 * - direct.c, pci_direct_probe() -> pci_check_type1(): OUT byte 0x01 to
 *   0xcfb (not CONFIG_ADDRESS here: ignored), saves CONFIG_ADDRESS, writes
 *   0x80000000 and wants it back from a 32-bit IN of 0xcf8 (it is: the
 *   register reads back what was written), then pci_sanity_check():
 *   dmi_get_bios_year() has no DMI table to read (-ENODATA, not >= 2001),
 *   so it reads the 16-bit class of each devfn of bus 0 until one is
 *   PCI_CLASS_BRIDGE_HOST (0x0600) or a VGA controller, or its vendor
 *   Intel or Compaq: our host bridge at 00:00.0 is the first one it
 *   reads. Mechanism #1 is then raw_pci_ops.
 * - legacy.c, pci_subsys_init(): x86_init.pci.init is pci_acpi_init(),
 *   which gives up without ACPI (acpi_noirq, set by disable_acpi() when
 *   no RSDP is found), so pci_legacy_init() scans bus 0
 *   (pcibios_scan_root(0)): slots with vendor 0xffff are empty, function
 *   0 only for a header type without bit 7.
 * - bus_numa.c: no root bus information (amd_bus.c finds no AMD
 *   northbridge functions at 00:18.x), so the root bus gets the default
 *   windows, all of ioport_resource and iomem_resource; i386.c,
 *   pcibios_resource_survey() then claims the BAR0 of a function that has
 *   one where pci__register() put it (memory decode enabled, as firmware
 *   leaves a device it assigned), if it overlaps neither the e820 RAM (at
 *   most 3 GiB) nor the IOAPIC and LAPIC resources. The host bridge, the
 *   only function now, has none.
 * - irq.c: pcibios_irq_init() finds no $PIR table; pcibios_fixup_irqs()
 *   and pirq_enable_irq() skip functions whose interrupt pin is 0, so the
 *   MP table needs no PCI bus entry.
 * - On AMD family 10h and later, amd_bus.c sets PCI_HAS_IO_ECS and
 *   mechanism #1 also serves registers 256-4095 (bits 27:24 of
 *   CONFIG_ADDRESS): they read all ones here, and pci_cfg_space_size_ext()
 *   concludes, for the host bridge, that it has 256 bytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "ioport.h"
#include "kvm.h"
#include "mptable.h"
#include "pci.h"

#define PCI_DWORD_ALL		0xffffffffU

/* Guest physical ranges that KVM handles or backs: no BAR decodes there. */
static const struct {
	__u64 start, size;
} pci_kvm_ranges[] = {
	{ MPTABLE_IOAPIC_ADDR, 0x1000 },	/* KVM takes 0x100 of it */
	{ MPTABLE_LAPIC_ADDR, 0x1000 },
	{ KVM_IDENTITY_MAP_GPA, 0x1000 },
	{ KVM_TSS_GPA, KVM_TSS_PAGES * 0x1000 },
};

void pci__init(struct pci_bus *bus, __u64 mem_size)
{
	memset(bus, 0, sizeof(*bus));
	pthread_mutex_init(&bus->lock, NULL);
	bus->mem_size = mem_size;
}

void pci__destroy(struct pci_bus *bus)
{
	pthread_mutex_destroy(&bus->lock);
}

/*
 * Put @f in @slot of bus 0, its BAR0 (if it has one) at @bar, memory
 * decode on, as firmware leaves a device it assigned. 0, -EINVAL (a bad
 * slot or BAR size), -EBUSY (the slot is taken).
 */
int pci__register(struct pci_bus *bus, unsigned int slot,
		  struct pci_func *f, __u32 bar)
{
	if (slot >= PCI_MAX_SLOTS)
		return -EINVAL;
	if (f->bar_size && (f->bar_size < PCI_BAR_MIN_SIZE ||
			    (f->bar_size & (f->bar_size - 1)) || !f->mmio))
		return -EINVAL;
	if (bus->slot[slot])
		return -EBUSY;
	f->bar = f->bar_size ? bar & ~(f->bar_size - 1) : 0;
	f->command = f->bar_size ? PCI_COMMAND_MEMORY : 0;
	bus->slot[slot] = f;
	return 0;
}

/* 00:00.0: what pci_sanity_check() looks for, nothing more. */
int pci__register_host_bridge(struct pci_bus *bus)
{
	struct pci_func *f = &bus->host_bridge;

	memset(f, 0, sizeof(*f));
	f->vendor = PCI_HOST_BRIDGE_VENDOR;
	f->device = PCI_HOST_BRIDGE_DEVICE;
	f->class_rev = PCI_HOST_BRIDGE_CLASS << 8;
	return pci__register(bus, PCI_HOST_BRIDGE_SLOT, f, 0);
}

/*
 * May a BAR decode [@base, @base + @size)? Not over guest RAM (where
 * KVM never exits: the memslot wins) nor over the pages KVM handles in
 * the kernel or backs itself; nor beyond 4 GiB (a 32-bit BAR).
 */
bool pci__bar_usable(const struct pci_bus *bus, __u64 base, __u64 size)
{
	unsigned int i;

	if (base < bus->mem_size || base + size > 1ULL << 32)
		return false;
	for (i = 0; i < sizeof(pci_kvm_ranges) / sizeof(pci_kvm_ranges[0]);
	     i++) {
		if (base < pci_kvm_ranges[i].start + pci_kvm_ranges[i].size &&
		    pci_kvm_ranges[i].start < base + size)
			return false;
	}
	return true;
}

/* Under the lock: the function CONFIG_ADDRESS selects, NULL if none. */
static struct pci_func *pci__selected(struct pci_bus *bus)
{
	__u32 a = bus->address;

	if (!(a & PCI_CONFIG_ENABLE) || (a & PCI_CONFIG_RESERVED))
		return NULL;
	if ((a >> 16) & 0xff || (a >> 8) & 0x7)	/* bus 0, function 0 */
		return NULL;
	return bus->slot[(a >> 11) & 0x1f];
}

static __u32 pci_func__read(const struct pci_func *f, unsigned int reg)
{
	switch (reg) {
	case PCI_VENDOR_ID:
		return f->vendor | (__u32)f->device << 16;
	case PCI_COMMAND:
		return f->command;		/* status 0 */
	case PCI_CLASS_REVISION:
		return f->class_rev;
	case PCI_CACHE_LINE_SIZE:
		return 0;			/* header type 0, no BIST */
	case PCI_BASE_ADDRESS_0:
		return f->bar;
	case PCI_SUBSYSTEM_VENDOR_ID:
		return f->subsys_vendor | (__u32)f->subsys_device << 16;
	}
	return 0;
}

/* The bytes of the dword at @reg that @mask selects are written. */
static void pci_func__write(struct pci_func *f, unsigned int reg, __u32 val,
			    __u32 mask)
{
	if (!f->bar_size)
		return;
	if (reg == PCI_COMMAND && (mask & PCI_COMMAND_MEMORY))
		f->command = val & PCI_COMMAND_MEMORY;
	if (reg == PCI_BASE_ADDRESS_0)
		f->bar = ((f->bar & ~mask) | (val & mask)) &
			 ~(f->bar_size - 1);
}

/* @size bytes at byte @byte (0..3) of CONFIG_DATA. */
static void pci__data(struct pci_bus *bus, unsigned int byte, __u8 *data,
		      unsigned int size, bool out)
{
	unsigned int i, n = size < 4 - byte ? size : 4 - byte;
	__u32 val = 0, mask = 0;
	struct pci_func *f;

	pthread_mutex_lock(&bus->lock);
	f = pci__selected(bus);
	if (f && out) {
		for (i = 0; i < n; i++) {
			val |= (__u32)data[i] << 8 * (byte + i);
			mask |= 0xffU << 8 * (byte + i);
		}
		pci_func__write(f, bus->address & 0xfc, val, mask);
	} else if (f) {
		val = pci_func__read(f, bus->address & 0xfc);
		for (i = 0; i < n; i++)
			data[i] = val >> 8 * (byte + i);
	}
	pthread_mutex_unlock(&bus->lock);
	if (!out && !f)
		memset(data, 0xff, size);
	else if (!out && n < size)
		memset(data + n, 0xff, size - n);	/* beyond 0xcff */
}

/* The port handler of 0xcf8-0xcff. */
static int pci__io(struct ioport_dev *dev, unsigned int vcpu, __u16 port,
		   __u8 *data, unsigned int size, bool out)
{
	struct pci_bus *bus = dev->priv;

	(void)vcpu;
	if (port >= PCI_CONFIG_DATA) {
		pci__data(bus, port - PCI_CONFIG_DATA, data, size, out);
		return IOPORT_CONTINUE;
	}
	if (port != PCI_CONFIG_ADDRESS || size != 4) {
		if (!out)
			memset(data, 0xff, size);
		return IOPORT_CONTINUE;
	}
	pthread_mutex_lock(&bus->lock);
	if (out)
		memcpy(&bus->address, data, 4);
	else
		memcpy(data, &bus->address, 4);
	pthread_mutex_unlock(&bus->lock);
	return IOPORT_CONTINUE;
}

int pci__register_ports(struct pci_bus *bus, struct ioport_bus *io)
{
	return ioport__register(io, PCI_CONFIG_ADDRESS, PCI_CONFIG_PORTS,
				"pci", pci__io, bus);
}

/*
 * A KVM_EXIT_MMIO at @addr: true if a BAR decodes it, and the function
 * handled it (on this thread, vCPU @vcpu's); false if no device is
 * there. An access that starts in a BAR goes to its function whole,
 * even one that runs past the BAR's end: the function checks.
 */
bool pci__mmio(struct pci_bus *bus, unsigned int vcpu, __u64 addr,
	       __u8 *data, unsigned int len, bool is_write)
{
	struct pci_func *f, *hit = NULL;
	__u32 offset = 0;
	unsigned int i;

	pthread_mutex_lock(&bus->lock);
	for (i = 0; i < PCI_MAX_SLOTS && !hit; i++) {
		f = bus->slot[i];
		if (!f || !f->bar_size || !(f->command & PCI_COMMAND_MEMORY))
			continue;
		if (addr < f->bar || addr - f->bar >= f->bar_size ||
		    !pci__bar_usable(bus, f->bar, f->bar_size))
			continue;
		hit = f;
		offset = addr - f->bar;
	}
	pthread_mutex_unlock(&bus->lock);
	if (!hit)
		return false;
	hit->mmio(hit->priv, vcpu, offset, data, len, is_write);
	return true;
}
