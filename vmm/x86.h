/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The x86 architectural bits minivmm needs to enter long mode directly.
 */
#ifndef MINIVMM_X86_H
#define MINIVMM_X86_H

#define X86_CR0_PE		(1UL << 0)	/* protected mode */
#define X86_CR0_MP		(1UL << 1)	/* monitor coprocessor */
#define X86_CR0_ET		(1UL << 4)	/* extension type (always 1) */
#define X86_CR0_NE		(1UL << 5)	/* native FPU error reporting */
#define X86_CR0_WP		(1UL << 16)	/* write protect in ring 0 */
#define X86_CR0_PG		(1UL << 31)	/* paging */

#define X86_CR4_PAE		(1UL << 5)	/* physical address extension */

#define X86_EFER_LME		(1UL << 8)	/* long mode enable */
#define X86_EFER_LMA		(1UL << 10)	/* long mode active */

#define X86_RFLAGS_FIXED	(1UL << 1)	/* reserved, always 1 */

/* Page table entry bits. */
#define PTE_PRESENT		(1ULL << 0)
#define PTE_RW			(1ULL << 1)
#define PTE_PS			(1ULL << 7)	/* large page in a PDE */

#define PAGE_SIZE_4K		0x1000ULL
#define PAGE_SIZE_2M		0x200000ULL
#define PT_ENTRIES		512

/* GDT descriptors: flat 4 GiB, DPL 0, accessed. */
#define GDT_ENTRY_CODE64	0x00af9b000000ffffULL	/* L=1, exec/read */
#define GDT_ENTRY_DATA		0x00cf93000000ffffULL	/* D=1, read/write */
#define SEG_TYPE_CODE		11	/* execute/read, accessed */
#define SEG_TYPE_DATA		3	/* read/write, accessed */

#define CPUID_LEAF_FEATURES	1
#define CPUID_APIC_ID_SHIFT	24	/* in CPUID.1:EBX */
#define CPUID_1_ECX_TSC_DEADLINE	(1U << 24)	/* TSC-deadline timer */
#define CPUID_1_ECX_HYPERVISOR	(1U << 31)	/* running on a hypervisor */

#endif /* MINIVMM_X86_H */
