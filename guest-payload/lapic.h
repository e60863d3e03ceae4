/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The xAPIC registers and vectors of the timer payloads (lapic-timer.S,
 * latency.S). The xAPIC is at its reset address, which the VMM's page
 * tables map.
 */
#ifndef LAPIC_H
#define LAPIC_H

#define LAPIC_BASE		0xfee00000
#define APIC_EOI		0x0b0
#define APIC_SVR		0x0f0
#define APIC_LVTT		0x320
#define APIC_TMICT		0x380
#define APIC_TDCR		0x3e0
#define APIC_SVR_ENABLE		(1 << 8)
#define APIC_LVT_MASKED		(1 << 16)
#define APIC_LVT_PERIODIC	(1 << 17)	/* timer mode 01b */
#define APIC_LVT_TSC_DEADLINE	(2 << 17)	/* timer mode 10b */
#define APIC_TDCR_DIV1		0xb

#define MSR_IA32_TSC_DEADLINE	0x6e0
#define CPUID_1_ECX_TSC_DEADLINE_BIT	24

#define TIMER_VECTOR		0x20
#define SPURIOUS_VECTOR		0xff

#ifdef __ASSEMBLER__
/*
 * The end of a timer handler's real tick: count it (VCPU_TICKS), count it
 * in VCPU_ISR_BOOSTED if the handler's pvsched area (VCPU_ISR_AREA, 0:
 * none) has PVSCHED_HOST_BOOSTED set, then EOI. Clobbers %rax.
 */
.macro TICK_EOI
	incq	VCPU_TICKS(%r15)
	mov	VCPU_ISR_AREA(%r15), %rax
	test	%rax, %rax
	jz	.Leoi\@
	testl	$PVSCHED_HOST_BOOSTED, AREA_HOST_FLAGS(%rax)
	jz	.Leoi\@
	incq	VCPU_ISR_BOOSTED(%r15)
.Leoi\@:
	mov	$LAPIC_BASE, %eax
	movl	$0, APIC_EOI(%rax)
.endm
#endif

#endif /* LAPIC_H */
