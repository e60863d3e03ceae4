// SPDX-License-Identifier: GPL-2.0
/*
 * The pvsched device, see pvsched-dev.h and docs/pvsched-device.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "layout.h"
#include "linux.h"
#include "mptable.h"
#include "pvsched-dev.h"
#include "util.h"

_Static_assert(LINUX_MAX_MEM_MIB << 20 <= PVSCHED_DEV_BAR_GPA,
	       "the pvsched device's BAR overlaps the RAM --mem can give");
_Static_assert(PVSCHED_DEV_BAR_GPA + PVSCHED_DEV_BAR_SIZE <=
	       MPTABLE_IOAPIC_ADDR,
	       "the pvsched device's BAR overlaps the IOAPIC");
_Static_assert(PVSCHED_DEV_REGS_END <= PVSCHED_DEV_BAR_SIZE,
	       "the pvsched device's registers do not fit in its BAR");

/*
 * @areas: KVM offers the pvsched area (KVM_CAP_PVSCHED_AREA) and the run
 * uses pvsched; without, AREA_VERSIONS is 0 and every command gives
 * UNAVAILABLE. @set_area registers an area for a vCPU, see
 * pvsched_dev_set_area_fn.
 */
void pvsched_dev__init(struct pvsched_dev *dev, unsigned int nr_vcpus,
		       __u64 mem_size, bool areas,
		       pvsched_dev_set_area_fn set_area, void *opaque)
{
	memset(dev, 0, sizeof(*dev));
	dev->area_versions = areas ? 1U << PVSCHED_AREA_VERSION : 0;
	dev->mem_size = mem_size;
	dev->nr_vcpus = nr_vcpus < MINIVMM_MAX_VCPUS ? nr_vcpus :
						       MINIVMM_MAX_VCPUS;
	dev->set_area = set_area;
	dev->opaque = opaque;
}

/* 00:01.0, BAR0 where firmware would have put it. */
int pvsched_dev__register(struct pvsched_dev *dev, struct pci_bus *bus)
{
	struct pci_func *f = &dev->pci;

	f->vendor = PVSCHED_DEV_VENDOR_ID;
	f->device = PVSCHED_DEV_DEVICE_ID;
	f->subsys_vendor = PVSCHED_DEV_VENDOR_ID;
	f->subsys_device = PVSCHED_DEV_DEVICE_ID;
	f->class_rev = PVSCHED_DEV_CLASS << 8 | PVSCHED_DEV_ABI_VERSION;
	f->bar_size = PVSCHED_DEV_BAR_SIZE;
	f->mmio = pvsched_dev__mmio;
	f->priv = dev;
	return pci__register(bus, PVSCHED_DEV_SLOT, f, PVSCHED_DEV_BAR_GPA);
}

/*
 * COMMAND: register the latched GPA's area in @version for @vcpu, or
 * unregister for GPA 0; the STATUS it leaves. Without areas KVM is not
 * called; nor for a version the device does not offer, nor for an area
 * that is not all in guest RAM. KVM's EINVAL is the guest's bad address
 * (unaligned, not RAM, another vCPU's area); any other errno is
 * minivmm's or the host's problem: one line, and ERROR. A failure leaves
 * the vCPU's registration as it was, in KVM and in the report.
 */
static __u32 pvsched_dev__command(struct pvsched_dev *dev, unsigned int vcpu,
				  __u32 version)
{
	const struct pvsched_dev_vcpu *v = &dev->vcpu[vcpu];
	__u64 gpa = (__u64)v->gpa_hi << 32 | v->gpa_lo;
	int ret;

	if (!dev->area_versions)
		return PVSCHED_DEV_STATUS_UNAVAILABLE;
	if (gpa && (version >= 32 || !(dev->area_versions & 1U << version)))
		return PVSCHED_DEV_STATUS_BAD_VERSION;
	if (gpa && (gpa >= dev->mem_size ||
		    dev->mem_size - gpa < PVSCHED_AREA_SIZE))
		return PVSCHED_DEV_STATUS_BAD_ADDRESS;
	ret = dev->set_area(dev->opaque, vcpu, gpa);
	if (!ret)
		return PVSCHED_DEV_STATUS_OK;
	if (ret == -EINVAL)
		return PVSCHED_DEV_STATUS_BAD_ADDRESS;
	pr_err("vcpu%u: pvsched device: KVM_SET_PVSCHED_AREA at 0x%llx: %s",
	       vcpu, (unsigned long long)gpa, strerror(-ret));
	return PVSCHED_DEV_STATUS_ERROR;
}

static __u32 pvsched_dev__read(struct pvsched_dev *dev, unsigned int vcpu,
			       __u32 offset)
{
	switch (offset) {
	case PVSCHED_DEV_MAGIC:
		return PVSCHED_DEV_MAGIC_VALUE;
	case PVSCHED_DEV_VERSION:
		return PVSCHED_DEV_ABI_VERSION;
	case PVSCHED_DEV_AREA_VERSIONS:
		return dev->area_versions;
	case PVSCHED_DEV_AREA_SIZE:
		return PVSCHED_AREA_SIZE;
	case PVSCHED_DEV_GPA_LO:
		return dev->vcpu[vcpu].gpa_lo;
	case PVSCHED_DEV_GPA_HI:
		return dev->vcpu[vcpu].gpa_hi;
	case PVSCHED_DEV_STATUS:
		return dev->vcpu[vcpu].status;
	}
	return 0;			/* COMMAND */
}

/* Writes to the read-only registers are ignored. */
static void pvsched_dev__write(struct pvsched_dev *dev, unsigned int vcpu,
			       __u32 offset, __u32 val)
{
	struct pvsched_dev_vcpu *v = &dev->vcpu[vcpu];

	switch (offset) {
	case PVSCHED_DEV_GPA_LO:
		v->gpa_lo = val;
		break;
	case PVSCHED_DEV_GPA_HI:
		v->gpa_hi = val;
		break;
	case PVSCHED_DEV_COMMAND:
		v->status = pvsched_dev__command(dev, vcpu, val);
		break;
	}
}

/*
 * BAR0's MMIO handler (pci_mmio_fn), on the thread of vCPU @vcpu. Only
 * aligned 32-bit accesses to the registers reach them; anything else
 * reads all ones, writes nothing, and is counted.
 */
void pvsched_dev__mmio(void *priv, unsigned int vcpu, __u32 offset,
		       __u8 *data, unsigned int len, bool is_write)
{
	struct pvsched_dev *dev = priv;
	__u32 val;

	if (len != 4 || offset % 4 || offset >= PVSCHED_DEV_REGS_END ||
	    vcpu >= dev->nr_vcpus) {
		__atomic_add_fetch(&dev->bad_accesses, 1, __ATOMIC_RELAXED);
		if (!is_write)
			memset(data, 0xff, len);
		return;
	}
	if (is_write) {
		val = data[0] | data[1] << 8 | data[2] << 16 |
		      (__u32)data[3] << 24;
		pvsched_dev__write(dev, vcpu, offset, val);
		return;
	}
	val = pvsched_dev__read(dev, vcpu, offset);
	data[0] = val;
	data[1] = val >> 8;
	data[2] = val >> 16;
	data[3] = val >> 24;
}
