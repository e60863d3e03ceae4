/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ABI between minivmm and its guest payloads, shared by C and assembly.
 *
 * A payload is a flat binary loaded at MINIVMM_LOAD_GPA and entered in
 * 64-bit long mode with paging on (identity map of the first 4 GiB),
 * interrupts off, RSP at the top of a per-vCPU stack and RDI = RSI = the
 * vCPU index.
 *
 * The VMM fills in struct minivmm_params at MINIVMM_PARAMS_GPA before any
 * vCPU runs. The guest talks back with a "ucall": it stores a struct
 * minivmm_ucall somewhere in guest memory and writes its guest-physical
 * address with a 32-bit OUT to MINIVMM_UCALL_PORT.
 *
 * When KVM offers KVM_CAP_PVSCHED_AREA, the VMM registers one struct
 * pvsched_vcpu_area (<linux/pvsched.h>, 64 bytes) per vCPU with
 * KVM_SET_PVSCHED_AREA: vCPU i's is at params.pvsched_area_gpa +
 * PVSCHED_AREA_SIZE * i. params.pvsched_area_gpa is 0 when there is none.
 *
 * The latency payload stores one __u32 per sample: vCPU i's array of
 * params.samples_max of them is at params.samples_gpa + i *
 * params.samples_max * 4. The toggle payload's vCPUs, with
 * MINIVMM_TOGGLE_TOUCH, write to the pages of those params.samples_max * 4
 * bytes (all of them, every vCPU).
 */
#ifndef MINIVMM_GUEST_H
#define MINIVMM_GUEST_H

#define MINIVMM_LOAD_GPA	0x100000
#define MINIVMM_PARAMS_GPA	0x8000

/* GDT selectors set up by the VMM (the IDT gates of a payload use them). */
#define MINIVMM_CODE_SEL	0x08
#define MINIVMM_DATA_SEL	0x10

/* Port I/O. */
#define MINIVMM_UCALL_PORT	0x0510	/* outl: GPA of a minivmm_ucall */
#define MINIVMM_WORK_PORT	0x0511	/* outb: io payload, count & 0xff */

/* Ucall commands. */
#define UCALL_PROGRESS		1	/* arg: iterations done so far */
#define UCALL_DONE		2	/* arg: iterations done in total */
#define UCALL_FAIL		3	/* arg: one of the FAIL_* codes */
#define UCALL_DUP_IRQS		4	/* arg: duplicate deliveries, see halt.S */
#define UCALL_AREA		5	/* arg: GPA of its area, 0: none */
#define UCALL_BOOST_SEEN	6	/* arg: times the guest saw BOOSTED */
#define UCALL_SHADOW_IRQS	7	/* arg: ticks in the sti shadow, lapic.h */

/* FAIL codes. */
#define FAIL_BAD_PARAMS		0x001	/* params magic mismatch */
#define FAIL_BAD_AREA		0x002	/* area version is not 1 */
#define FAIL_NO_TSC_DEADLINE	0x003	/* no CPUID.1:ECX.TSC_DEADLINE */
#define FAIL_EXCEPTION		0x100	/* + vector: CPU exception */
#define FAIL_UNEXPECTED_IRQ	0x200	/* interrupt on an unused vector */

#define MINIVMM_PARAMS_MAGIC	0x534d56696e694d00	/* "\0MiniVMS" */

/* struct minivmm_params field offsets, for the assembly side. */
#define PARAMS_MAGIC		0
#define PARAMS_ITERATIONS	8	/* 0: run until stop is set */
#define PARAMS_PROGRESS_EVERY	16	/* 0: never send PROGRESS */
#define PARAMS_TIMER_COUNT	24	/* halt: LAPIC timer initial count */
#define PARAMS_NR_VCPUS		32
#define PARAMS_STOP		36	/* the VMM sets it to 1 to stop */
#define PARAMS_PVSCHED_AREA	40	/* vCPU 0's area, 0: none */
#define PARAMS_BUSY_LOOPS	48	/* boost: busy loop length */
#define PARAMS_FLAGS		56	/* irq, latency: MINIVMM_IRQ_* */
#define PARAMS_PERIOD_TSC	64	/* latency: timer period, TSC ticks */
#define PARAMS_SAMPLES		72	/* latency: vCPU 0's sample array */
#define PARAMS_SAMPLES_MAX	80	/* latency: samples per vCPU array */
#define PARAMS_SIZE		88

/* params.flags of the irq and latency payloads. */
#define MINIVMM_IRQ_SPIN	(1 << 0)	/* spin, not hlt, for a tick */
#define MINIVMM_IRQ_BOOST_IRQ	(1 << 1)	/* raise GUEST_BOOST_IRQ */
/* latency only: raise PVSCHED_GUEST_BOOST ... */
#define MINIVMM_LAT_BOOST_WAIT	(1 << 2)	/* ... around each wait */
#define MINIVMM_LAT_BOOST_HOLD	(1 << 3)	/* ... for the whole run */
/* params.flags of the toggle payload. */
#define MINIVMM_TOGGLE_HOLD	(1 << 4)	/* never drop the flag */
#define MINIVMM_TOGGLE_TOUCH	(1 << 5)	/* work: fault pages in */

/*
 * struct pvsched_vcpu_area (<linux/pvsched.h>): field offsets and flags,
 * for the assembly side. vmm/kvm-abi.h has the C struct, vmm/layout.h
 * checks it against these.
 */
#define PVSCHED_AREA_SIZE	64	/* also its alignment */
#define PVSCHED_AREA_VERSION	1
#define AREA_VERSION		0	/* __u32, written by KVM */
#define AREA_HOST_FLAGS		4	/* __u32, PVSCHED_HOST_* */
#define AREA_GUEST_FLAGS	8	/* __u32, PVSCHED_GUEST_* */
#define AREA_GUEST_PRIO		12	/* __u32, 0, or 1..99: RT */
#define AREA_BOOSTED_NS		16	/* __u64, host */
#define AREA_BOOSTS		24	/* __u32, host */
#define AREA_THROTTLES		28	/* __u32, host */
#define AREA_UNBOOSTS		32	/* __u32, host */
#define AREA_WAKE_REQ		36	/* __u32, guest: PVSCHED_WAKE_* */

#define PVSCHED_GUEST_BOOST	(1 << 0)	/* boost me */
#define PVSCHED_GUEST_BOOST_IRQ	(1 << 1)	/* boost me to take irqs */
#define PVSCHED_HOST_BOOSTED	(1 << 0)	/* vCPU thread boosted */
#define PVSCHED_HOST_EXCLUDED	(1 << 1)	/* the host keeps it from boosts */

/* struct minivmm_ucall field offsets. */
#define UCALL_CMD		0
#define UCALL_ARG		8
#define UCALL_SIZE		16

#ifndef __ASSEMBLER__
#include <linux/types.h>

struct minivmm_params {
	__u64 magic;
	__u64 iterations;
	__u64 progress_every;
	__u64 timer_count;
	__u32 nr_vcpus;
	__u32 stop;
	__u64 pvsched_area_gpa;		/* vCPU 0's area, 0: none */
	__u64 busy_loops;		/* boost: busy loop iterations */
	__u64 flags;			/* irq, latency: MINIVMM_IRQ_* */
	__u64 period_tsc;		/* latency: timer period, TSC ticks */
	__u64 samples_gpa;		/* latency: vCPU 0's sample array */
	__u64 samples_max;		/* latency: __u32 samples per vCPU */
};

struct minivmm_ucall {
	__u64 cmd;
	__u64 arg;
};

_Static_assert(__builtin_offsetof(struct minivmm_params, iterations) ==
	       PARAMS_ITERATIONS, "params layout");
_Static_assert(__builtin_offsetof(struct minivmm_params, progress_every) ==
	       PARAMS_PROGRESS_EVERY, "params layout");
_Static_assert(__builtin_offsetof(struct minivmm_params, timer_count) ==
	       PARAMS_TIMER_COUNT, "params layout");
_Static_assert(__builtin_offsetof(struct minivmm_params, nr_vcpus) ==
	       PARAMS_NR_VCPUS, "params layout");
_Static_assert(__builtin_offsetof(struct minivmm_params, stop) ==
	       PARAMS_STOP, "params layout");
_Static_assert(__builtin_offsetof(struct minivmm_params, pvsched_area_gpa) ==
	       PARAMS_PVSCHED_AREA, "params layout");
_Static_assert(__builtin_offsetof(struct minivmm_params, busy_loops) ==
	       PARAMS_BUSY_LOOPS, "params layout");
_Static_assert(__builtin_offsetof(struct minivmm_params, flags) ==
	       PARAMS_FLAGS, "params layout");
_Static_assert(__builtin_offsetof(struct minivmm_params, period_tsc) ==
	       PARAMS_PERIOD_TSC, "params layout");
_Static_assert(__builtin_offsetof(struct minivmm_params, samples_gpa) ==
	       PARAMS_SAMPLES, "params layout");
_Static_assert(__builtin_offsetof(struct minivmm_params, samples_max) ==
	       PARAMS_SAMPLES_MAX, "params layout");
_Static_assert(sizeof(struct minivmm_params) == PARAMS_SIZE, "params layout");
_Static_assert(sizeof(struct minivmm_ucall) == UCALL_SIZE, "ucall layout");
#endif /* !__ASSEMBLER__ */

#endif /* MINIVMM_GUEST_H */
