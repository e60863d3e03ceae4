/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An Intel MultiProcessor Specification 1.4 table, so that a Linux guest
 * (CONFIG_X86_MPPARSE) finds its vCPUs, the ISA bus and the IOAPIC without
 * ACPI: the floating pointer at MPTABLE_GPA, the configuration table
 * right after it, in the e820-reserved BIOS area where the kernel scans
 * for "_MP_".
 *
 * Entries: one processor per vCPU (LAPIC ID = vCPU index, vCPU 0 the
 * BSP), bus 0 "ISA", the IOAPIC (ID = number of vCPUs, at 0xfec00000),
 * an I/O interrupt per ISA IRQ but 2 (the PICs' cascade), IRQ n on IOAPIC
 * pin n as KVM's default routing has it, and LINT0 ExtINT, LINT1 NMI on
 * every LAPIC.
 */
#ifndef MINIVMM_MPTABLE_H
#define MINIVMM_MPTABLE_H

#include <stddef.h>
#include <linux/types.h>

#define MPTABLE_GPA		0xf0000UL
#define MPTABLE_ROOM		0x10000UL	/* up to 1 MiB */
#define MPTABLE_LAPIC_ADDR	0xfee00000U
#define MPTABLE_IOAPIC_ADDR	0xfec00000U
#define MPTABLE_LAPIC_VERSION	0x14	/* KVM's LAPIC */
#define MPTABLE_IOAPIC_VERSION	0x11	/* KVM's IOAPIC */
#define MPTABLE_SPEC_REV	4	/* 1.4 */
#define MPTABLE_ISA_IRQS	16
#define MPTABLE_ISA_CASCADE	2

/* Entry types. */
#define MP_PROCESSOR		0
#define MP_BUS			1
#define MP_IOAPIC		2
#define MP_INTSRC		3
#define MP_LINTSRC		4

/* Interrupt types of MP_INTSRC and MP_LINTSRC. */
#define MP_INT			0
#define MP_NMI			1
#define MP_EXTINT		3

#define MP_CPU_ENABLED		0x01
#define MP_CPU_BSP		0x02
#define MP_IOAPIC_ENABLED	0x01
#define MP_ALL_LAPICS		0xff

struct mpf_intel {			/* the floating pointer */
	char signature[4];		/* "_MP_" */
	__u32 physptr;			/* the configuration table */
	__u8 length;			/* in 16-byte units: 1 */
	__u8 specification;		/* MPTABLE_SPEC_REV */
	__u8 checksum;			/* of the 16 bytes: 0 */
	__u8 feature1;			/* 0: a configuration table follows */
	__u8 feature2;			/* bit 7: IMCR present; 0: virtual wire */
	__u8 feature3, feature4, feature5;
} __attribute__((packed));

struct mpc_table {			/* the configuration table header */
	char signature[4];		/* "PCMP" */
	__u16 length;			/* header and entries */
	__u8 spec;
	__u8 checksum;
	char oem[8];
	char productid[12];
	__u32 oemptr;
	__u16 oemsize;
	__u16 oemcount;			/* entries */
	__u32 lapic;			/* LAPIC address */
	__u16 ext_length;
	__u8 ext_checksum;
	__u8 reserved;
} __attribute__((packed));

struct mpc_cpu {
	__u8 type;			/* MP_PROCESSOR */
	__u8 apicid;
	__u8 apicver;
	__u8 cpuflag;			/* MP_CPU_* */
	__u32 cpufeature;		/* CPUID.1:EAX */
	__u32 featureflag;		/* CPUID.1:EDX */
	__u32 reserved[2];
} __attribute__((packed));

struct mpc_bus {
	__u8 type;			/* MP_BUS */
	__u8 busid;
	char bustype[6];
} __attribute__((packed));

struct mpc_ioapic {
	__u8 type;			/* MP_IOAPIC */
	__u8 apicid;
	__u8 apicver;
	__u8 flags;
	__u32 apicaddr;
} __attribute__((packed));

struct mpc_intsrc {
	__u8 type;			/* MP_INTSRC or MP_LINTSRC */
	__u8 irqtype;
	__u16 irqflag;			/* 0: polarity and trigger of the bus */
	__u8 srcbus;
	__u8 srcbusirq;
	__u8 dstapic;			/* IOAPIC ID, or LAPIC ID (0xff: all) */
	__u8 dstirq;			/* IOAPIC pin, or LINT0/1 */
} __attribute__((packed));

/* CPUID.1 of the vCPUs, for the processor entries. */
struct mptable_cpuid {
	__u32 signature;		/* EAX */
	__u32 features;			/* EDX */
};

size_t mptable__size(unsigned int nr_cpus);
int mptable__write(void *dst, size_t room, __u32 gpa, unsigned int nr_cpus,
		   const struct mptable_cpuid *cpuid);
__u8 mptable__checksum(const void *p, size_t len);

#endif /* MINIVMM_MPTABLE_H */
