// SPDX-License-Identifier: GPL-2.0
/*
 * The MP table (Intel MultiProcessor Specification 1.4), see mptable.h.
 */
#include <errno.h>
#include <string.h>

#include "mptable.h"

_Static_assert(sizeof(struct mpf_intel) == 16, "MP floating pointer");
_Static_assert(sizeof(struct mpc_table) == 44, "MP table header");
_Static_assert(sizeof(struct mpc_cpu) == 20, "MP processor entry");
_Static_assert(sizeof(struct mpc_bus) == 8, "MP bus entry");
_Static_assert(sizeof(struct mpc_ioapic) == 8, "MP IOAPIC entry");
_Static_assert(sizeof(struct mpc_intsrc) == 8, "MP interrupt entry");

/* The byte that makes @len bytes at @p sum to 0 (mod 256). */
__u8 mptable__checksum(const void *p, size_t len)
{
	const __u8 *b = p;
	__u8 sum = 0;

	while (len--)
		sum += *b++;
	return -sum;
}

static unsigned int mptable__nr_intsrc(void)
{
	return MPTABLE_ISA_IRQS - 1;	/* not the cascade */
}

/* Floating pointer, header and all entries. */
size_t mptable__size(unsigned int nr_cpus)
{
	return sizeof(struct mpf_intel) + sizeof(struct mpc_table) +
	       nr_cpus * sizeof(struct mpc_cpu) + sizeof(struct mpc_bus) +
	       sizeof(struct mpc_ioapic) +
	       (mptable__nr_intsrc() + 2) * sizeof(struct mpc_intsrc);
}

static void *mptable__intsrc(void *p, __u8 type, __u8 irqtype, __u8 busirq,
			     __u8 dstapic, __u8 dstirq)
{
	struct mpc_intsrc *e = p;

	memset(e, 0, sizeof(*e));
	e->type = type;
	e->irqtype = irqtype;
	e->srcbus = 0;
	e->srcbusirq = busirq;
	e->dstapic = dstapic;
	e->dstirq = dstirq;
	return e + 1;
}

/*
 * Write the floating pointer and the table to @dst, which the guest sees
 * at @gpa, with @room bytes. 0, or -ENOSPC (-EINVAL for more vCPUs than
 * 8-bit LAPIC IDs allow: the IOAPIC takes the next ID).
 */
int mptable__write(void *dst, size_t room, __u32 gpa, unsigned int nr_cpus,
		   const struct mptable_cpuid *cpuid)
{
	struct mpf_intel *mpf = dst;
	struct mpc_table *mpc = (struct mpc_table *)(mpf + 1);
	size_t size = mptable__size(nr_cpus);
	struct mpc_ioapic *ioapic;
	struct mpc_bus *bus;
	struct mpc_cpu *cpu;
	__u8 ioapic_id = nr_cpus;
	unsigned int i;
	void *p;

	if (!nr_cpus || nr_cpus >= MP_ALL_LAPICS)
		return -EINVAL;
	if (size > room)
		return -ENOSPC;
	memset(dst, 0, size);

	cpu = (struct mpc_cpu *)(mpc + 1);
	for (i = 0; i < nr_cpus; i++, cpu++) {
		cpu->type = MP_PROCESSOR;
		cpu->apicid = i;
		cpu->apicver = MPTABLE_LAPIC_VERSION;
		cpu->cpuflag = MP_CPU_ENABLED | (i ? 0 : MP_CPU_BSP);
		cpu->cpufeature = cpuid->signature;
		cpu->featureflag = cpuid->features;
	}
	bus = (struct mpc_bus *)cpu;
	bus->type = MP_BUS;
	bus->busid = 0;
	memcpy(bus->bustype, "ISA   ", sizeof(bus->bustype));
	ioapic = (struct mpc_ioapic *)(bus + 1);
	ioapic->type = MP_IOAPIC;
	ioapic->apicid = ioapic_id;
	ioapic->apicver = MPTABLE_IOAPIC_VERSION;
	ioapic->flags = MP_IOAPIC_ENABLED;
	ioapic->apicaddr = MPTABLE_IOAPIC_ADDR;
	p = ioapic + 1;
	for (i = 0; i < MPTABLE_ISA_IRQS; i++) {
		if (i != MPTABLE_ISA_CASCADE)
			p = mptable__intsrc(p, MP_INTSRC, MP_INT, i,
					    ioapic_id, i);
	}
	p = mptable__intsrc(p, MP_LINTSRC, MP_EXTINT, 0, MP_ALL_LAPICS, 0);
	p = mptable__intsrc(p, MP_LINTSRC, MP_NMI, 0, MP_ALL_LAPICS, 1);

	memcpy(mpc->signature, "PCMP", 4);
	mpc->length = (char *)p - (char *)mpc;
	mpc->spec = MPTABLE_SPEC_REV;
	memcpy(mpc->oem, "MINIVMM ", sizeof(mpc->oem));
	memcpy(mpc->productid, "PVSCHED     ", sizeof(mpc->productid));
	mpc->oemcount = nr_cpus + 2 + mptable__nr_intsrc() + 2;
	mpc->lapic = MPTABLE_LAPIC_ADDR;
	mpc->checksum = mptable__checksum(mpc, mpc->length);

	memcpy(mpf->signature, "_MP_", 4);
	mpf->physptr = gpa + sizeof(*mpf);
	mpf->length = 1;
	mpf->specification = MPTABLE_SPEC_REV;
	mpf->checksum = mptable__checksum(mpf, sizeof(*mpf));
	return 0;
}
