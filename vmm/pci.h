/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PCI bus 0 of a Linux guest, through configuration mechanism #1 (PCI
 * Local Bus Specification 3.0, 3.2.2.3.2), as a PC chipset has it:
 *
 *   0xcf8  CONFIG_ADDRESS: a 32-bit port only; reads back what was
 *          written. Bit 31 enables, bits 23:16 bus, 15:11 device,
 *          10:8 function, 7:2 register. Any other access to 0xcf8-0xcfb
 *          is not this register: reads all ones, writes are ignored
 *          (Linux's pci_check_type1() writes a byte to 0xcfb first).
 *   0xcfc  CONFIG_DATA: 8, 16 and 32-bit accesses at 0xcfc-0xcff, each
 *          to the bytes of the addressed dword at its offset in the
 *          port range; bytes beyond 0xcff are not this port's.
 *
 * One CONFIG_ADDRESS for the whole VM, under the bus's lock, as on a PC
 * where 0xcf8 is global: Linux takes pci_config_lock around the pair of
 * accesses. Anything absent reads all ones and drops writes: the enable
 * bit clear, bits 30:24 set (AMD's extended register number, bits 27:24:
 * these functions are conventional PCI, 256 bytes of configuration
 * space), a bus other than 0, a function other than 0, an empty slot.
 *
 * The functions (struct pci_func) have header type 0, single function:
 * read-only IDs, class and revision; a command register whose memory
 * space enable bit alone is writable (when the function has a BAR),
 * other bits 0; status 0; at most one BAR, BAR0, 32-bit memory,
 * non-prefetchable, of bar_size bytes; the other BARs, the expansion ROM
 * BAR, the capabilities pointer, interrupt line and pin and the rest of
 * the 256 bytes read 0 and ignore writes. No interrupt, no I/O BAR.
 *
 * BAR0 reads back what was written, its low bits (size - 1) clear: the
 * usual sizing (write all ones, read back the size mask) works. The
 * function decodes memory at the BAR only while its memory space enable
 * bit is set and the BAR lies outside guest RAM and the pages KVM itself
 * backs (its IOAPIC and LAPIC pages, the TSS and EPT identity map pages
 * of a Linux guest, see kvm.h): a guest may move the BAR anywhere else.
 * Accesses there reach the function's mmio callback on the thread of
 * the vCPU that made them; outside, they are no device's (the caller
 * answers them with all ones).
 *
 * minivmm's only function is the host bridge at 00:00.0, which Linux
 * wants to find (pci.c); pci__register() is where a device would go.
 */
#ifndef MINIVMM_PCI_H
#define MINIVMM_PCI_H

#include <pthread.h>
#include <stdbool.h>
#include <linux/pci_regs.h>
#include <linux/types.h>

#define PCI_CONFIG_ADDRESS	0xcf8
#define PCI_CONFIG_DATA		0xcfc
#define PCI_CONFIG_PORTS	8		/* 0xcf8-0xcff */
#define PCI_CONFIG_ENABLE	0x80000000U
#define PCI_CONFIG_RESERVED	0x7f000000U	/* bits 30:24 */
#define PCI_MAX_SLOTS		32
#define PCI_BAR_MIN_SIZE	0x1000U

/*
 * 00:00.0, the host bridge: provisional IDs (vendor 0x1234 is QEMU's by
 * convention, not allocated to us); Linux only looks at its class.
 */
#define PCI_HOST_BRIDGE_SLOT	0
#define PCI_HOST_BRIDGE_VENDOR	0x1234
#define PCI_HOST_BRIDGE_DEVICE	0x5055
#define PCI_HOST_BRIDGE_CLASS	0x060000	/* bridge, host bridge */

/* CONFIG_ADDRESS of bus @bus, device @slot, function @fn, register @reg. */
#define PCI_CONFIG_ADDR(bus, slot, fn, reg)				\
	(PCI_CONFIG_ENABLE | (bus) << 16 | (slot) << 11 | (fn) << 8 |	\
	 ((reg) & 0xfc))

/*
 * A BAR access: @len bytes at @offset from the BAR's base, on the thread
 * of vCPU @vcpu; fill @data for a read.
 */
typedef void (*pci_mmio_fn)(void *priv, unsigned int vcpu, __u32 offset,
			    __u8 *data, unsigned int len, bool is_write);

struct pci_func {
	__u16 vendor, device;
	__u16 subsys_vendor, subsys_device;
	__u32 class_rev;		/* class code << 8 | revision ID */
	__u32 bar_size;			/* BAR0: a power of 2, 0: none */
	pci_mmio_fn mmio;
	void *priv;

	/* Under the bus's lock. */
	__u16 command;			/* 0 or PCI_COMMAND_MEMORY */
	__u32 bar;			/* BAR0 as the guest reads it */
};

struct pci_bus {
	pthread_mutex_t lock;
	__u32 address;			/* CONFIG_ADDRESS as written */
	__u64 mem_size;			/* guest RAM: [0, mem_size) */
	struct pci_func *slot[PCI_MAX_SLOTS];
	struct pci_func host_bridge;
};

struct ioport_bus;

void pci__init(struct pci_bus *bus, __u64 mem_size);
void pci__destroy(struct pci_bus *bus);
int pci__register(struct pci_bus *bus, unsigned int slot,
		  struct pci_func *f, __u32 bar);
int pci__register_host_bridge(struct pci_bus *bus);
int pci__register_ports(struct pci_bus *bus, struct ioport_bus *io);
bool pci__bar_usable(const struct pci_bus *bus, __u64 base, __u64 size);
bool pci__mmio(struct pci_bus *bus, unsigned int vcpu, __u64 addr,
	       __u8 *data, unsigned int len, bool is_write);

#endif /* MINIVMM_PCI_H */
