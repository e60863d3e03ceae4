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
/*
 * In a timer handler's real tick, with the interrupted RIP at \rip(%rsp):
 * if it is a "hlt", the tick came in the shadow of the "sti" before it,
 * which a CPU never allows, but QEMU's TCG does when it emulates SVM for
 * a nested KVM: KVM's traces show an exit for a host interrupt at the
 * "hlt", then an interrupt window exit there and the tick injected, the
 * shadow lost in between. Returning there would execute the "hlt" after
 * its wake-up: a payload whose one-shot timer is spent (latency) would
 * halt for ever.
 * Resume past the "hlt", as a CPU whose "hlt" the tick woke does, and
 * count it in VCPU_SHADOW_IRQS. The payloads halt only with "sti; hlt"
 * or with interrupts off. Clobbers %rax.
 */
.macro HLT_RESUME rip:req
	mov	\rip(%rsp), %rax
	cmpb	$0xf4, (%rax)			/* hlt */
	jne	.Lnot_hlt\@
	incq	\rip(%rsp)
	incq	VCPU_SHADOW_IRQS(%r15)
.Lnot_hlt\@:
.endm

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
