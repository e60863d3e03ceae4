/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pvsched device, ABI version 1 (docs/pvsched-device.md): how a Linux
 * guest finds and registers the pvsched area of each of its vCPUs.
 *
 * PCI 00:01.0 (pci.h), vendor 0x1234, device 0x5056 (provisional IDs,
 * not allocated: QEMU's own "edu" device uses vendor 0x1234 too),
 * subsystem 0x1234/0x5056, revision = the device ABI version, class
 * 0x088000, no interrupt, BAR0 4 KiB of 32-bit memory, pre-assigned at
 * PVSCHED_DEV_BAR_GPA. Its registers, little-endian, 32-bit aligned
 * accesses only (any other size or offset reads all ones, is not written,
 * and is counted in bad_accesses):
 *
 *   0x00  MAGIC          RO  PVSCHED_DEV_MAGIC_VALUE
 *   0x04  VERSION        RO  PVSCHED_DEV_ABI_VERSION
 *   0x08  AREA_VERSIONS  RO  bit N: area version N is supported; 0 when
 *                            KVM has no pvsched area or --no-pvsched
 *   0x0c  AREA_SIZE      RO  64
 *   0x10  GPA_LO         RW  per vCPU
 *   0x14  GPA_HI         RW  per vCPU
 *   0x18  COMMAND        WO  per vCPU, reads 0: register the area at
 *                            GPA_HI:GPA_LO in the version written (GPA
 *                            0: unregister, whatever the version)
 *   0x1c  STATUS         RO  per vCPU: PVSCHED_DEV_STATUS_* of the last
 *                            command, 0 before any
 *
 * "Per vCPU": each vCPU reads and writes its own copy, and a command
 * acts on the vCPU that wrote it. minivmm handles the MMIO exit on that
 * vCPU's thread, which makes the vCPU ioctl KVM_SET_PVSCHED_AREA there
 * (through set_area): never from another thread, where the ioctl would
 * wait for the vCPU's mutex as long as the vCPU sits in KVM_RUN. The
 * per-vCPU registers are only touched by the owning vCPU's thread, and
 * read by others only after the threads are joined: no lock.
 */
#ifndef MINIVMM_PVSCHED_DEV_H
#define MINIVMM_PVSCHED_DEV_H

#include <stdbool.h>
#include <linux/types.h>

#include "options.h"
#include "pci.h"

#define PVSCHED_DEV_SLOT		1
#define PVSCHED_DEV_VENDOR_ID		0x1234	/* provisional */
#define PVSCHED_DEV_DEVICE_ID		0x5056	/* provisional */
/* Base system peripheral, other. */
#define PVSCHED_DEV_CLASS		0x088000
#define PVSCHED_DEV_BAR_GPA		0xfebff000U
#define PVSCHED_DEV_BAR_SIZE		0x1000U

#define PVSCHED_DEV_ABI_VERSION		1	/* the revision ID */
#define PVSCHED_DEV_MAGIC_VALUE		0x50565343

/* Register offsets in BAR0. */
#define PVSCHED_DEV_MAGIC		0x00
#define PVSCHED_DEV_VERSION		0x04
#define PVSCHED_DEV_AREA_VERSIONS	0x08
#define PVSCHED_DEV_AREA_SIZE		0x0c
#define PVSCHED_DEV_GPA_LO		0x10
#define PVSCHED_DEV_GPA_HI		0x14
#define PVSCHED_DEV_COMMAND		0x18
#define PVSCHED_DEV_STATUS		0x1c
#define PVSCHED_DEV_REGS_END		0x20

/*
 * STATUS values: OK (registered, unregistered), BAD_ADDRESS (not RAM,
 * unaligned, another vCPU's), BAD_VERSION (not in AREA_VERSIONS),
 * UNAVAILABLE (no areas on this host or run), ERROR (KVM failed
 * otherwise).
 */
#define PVSCHED_DEV_STATUS_OK		0
#define PVSCHED_DEV_STATUS_BAD_ADDRESS	1
#define PVSCHED_DEV_STATUS_BAD_VERSION	2
#define PVSCHED_DEV_STATUS_UNAVAILABLE	3
#define PVSCHED_DEV_STATUS_ERROR	4

/*
 * KVM_SET_PVSCHED_AREA of vCPU @vcpu at @gpa (0: unregister), called on
 * that vCPU's thread: 0 or -errno, nothing printed.
 */
typedef int (*pvsched_dev_set_area_fn)(void *opaque, unsigned int vcpu,
				       __u64 gpa);

struct pvsched_dev_vcpu {
	__u32 gpa_lo;
	__u32 gpa_hi;
	__u32 status;
};

struct pvsched_dev {
	struct pci_func pci;
	__u32 area_versions;		/* AREA_VERSIONS */
	__u64 mem_size;			/* guest RAM: [0, mem_size) */
	unsigned int nr_vcpus;
	pvsched_dev_set_area_fn set_area;
	void *opaque;
	unsigned long long bad_accesses;	/* atomic */
	struct pvsched_dev_vcpu vcpu[MINIVMM_MAX_VCPUS];
};

void pvsched_dev__init(struct pvsched_dev *dev, unsigned int nr_vcpus,
		       __u64 mem_size, bool areas,
		       pvsched_dev_set_area_fn set_area, void *opaque);
int pvsched_dev__register(struct pvsched_dev *dev, struct pci_bus *bus);
void pvsched_dev__mmio(void *priv, unsigned int vcpu, __u32 offset,
		       __u8 *data, unsigned int len, bool is_write);

#endif /* MINIVMM_PVSCHED_DEV_H */
