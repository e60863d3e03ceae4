/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latency: the wake-up latency of a guest timer, the way cyclictest
 * measures it. An iteration is a sample. Per sample:
 *
 *   deadline = RDTSC + params.period_tsc, kept in VCPU_DEADLINE
 *   WRMSR IA32_TSC_DEADLINE := deadline (the LAPIC timer in TSC-deadline
 *       mode: the WRMSR and the EOI are handled in KVM, no exit reaches
 *       the VMM)
 *   wait until the handler has taken the sample: "sti; hlt; cli" in a
 *       loop, or with MINIVMM_IRQ_SPIN a spin with interrupts on
 *
 * The handler (latency_isr) reads the TSC first thing. The latency is
 * that TSC minus the deadline, in TSC ticks (0 if negative), saturated to
 * 32 bits; it goes into this vCPU's sample array (params.samples_gpa +
 * index * params.samples_max * 4) while the array has room. Each sample
 * adds one to VCPU_TICKS, and to VCPU_ISR_BOOSTED when this vCPU's
 * pvsched area has PVSCHED_HOST_BOOSTED set, before the EOI. Duplicate
 * deliveries count apart, as in lapic-timer.S's timer_isr.
 *
 * params.flags:
 *
 *   MINIVMM_IRQ_SPIN        spin, not hlt, as in irq.S
 *   MINIVMM_IRQ_BOOST_IRQ   PVSCHED_GUEST_BOOST_IRQ up for the whole run,
 *                           as in irq.S
 *   MINIVMM_LAT_BOOST_WAIT  PVSCHED_GUEST_BOOST up from after each WRMSR
 *                           (whose exit ends the last sample's boost) until
 *                           the sample is taken: "boost me around my
 *                           waits"; the driver sees it at the HLT (or a
 *                           tick's exit, spinning)
 *   MINIVMM_LAT_BOOST_HOLD  PVSCHED_GUEST_BOOST up for the whole run: a
 *                           guest that never lets go, for the host's
 *                           throttle (wins over MINIVMM_LAT_BOOST_WAIT)
 *
 * At the start it fails with FAIL_BAD_PARAMS if params.period_tsc,
 * params.samples_gpa or params.samples_max is 0, with FAIL_NO_TSC_DEADLINE
 * without CPUID.1:ECX.TSC_DEADLINE; then it handles its area as irq.S
 * does (AREA(gpa), FAIL_BAD_AREA, flags raised only with an area). At the
 * end: timer off, its flags dropped, with an area BOOST_SEEN(n), DUP_IRQS
 * and SHADOW_IRQS as in halt, DONE(samples).
 *
 * Registers: %rbx this vCPU's area (0: none), %r8 params.flags, %rsi
 * samples taken before the current one, the rest as in payload.h.
 */
#include "payload.h"
#include "lapic.h"

	.code64
	.section .text.entry, "ax"
	.globl	_start
_start:
	PAYLOAD_ENTRY
	cmpq	$0, PARAM(PERIOD_TSC)
	je	.Lbad_params
	cmpq	$0, PARAM(SAMPLES)
	je	.Lbad_params
	mov	PARAM(SAMPLES_MAX), %rax
	test	%rax, %rax
	jnz	.Lparams_ok
.Lbad_params:
	UCALL	UCALL_FAIL, $FAIL_BAD_PARAMS
	HALT_FOREVER
.Lparams_ok:
	imul	%rdi, %rax			/* samples_max * index */
	shl	$2, %rax
	add	PARAM(SAMPLES), %rax
	mov	%rax, VCPU_SAMPLES(%r15)
	mov	$1, %eax
	xor	%ecx, %ecx
	cpuid					/* keeps %rdi */
	bt	$CPUID_1_ECX_TSC_DEADLINE_BIT, %ecx
	jc	.Ltsc_deadline_ok
	UCALL	UCALL_FAIL, $FAIL_NO_TSC_DEADLINE
	HALT_FOREVER
.Ltsc_deadline_ok:
	AREA_SETUP
	mov	PARAM(FLAGS), %r8
	test	$MINIVMM_LAT_BOOST_HOLD, %r8
	jz	.Lflags_ok
	and	$~MINIVMM_LAT_BOOST_WAIT, %r8
.Lflags_ok:
	test	%rbx, %rbx
	jz	.Lstart_timer
	test	$MINIVMM_IRQ_BOOST_IRQ, %r8
	jz	.Lno_boost_irq
	orl	$PVSCHED_GUEST_BOOST_IRQ, AREA_GUEST_FLAGS(%rbx)
.Lno_boost_irq:
	test	$MINIVMM_LAT_BOOST_HOLD, %r8
	jz	.Lstart_timer
	orl	$PVSCHED_GUEST_BOOST, AREA_GUEST_FLAGS(%rbx)
.Lstart_timer:
	mov	%rbx, VCPU_ISR_AREA(%r15)
	lea	latency_isr, %rdi
	call	lapic_idt_init
	mov	$LAPIC_BASE, %eax
	movl	$(APIC_LVT_TSC_DEADLINE | TIMER_VECTOR), APIC_LVTT(%rax)
	mfence		/* the LVTT write before any WRMSR of the deadline */
.Lloop:
	CHECK_DONE .Ldone
	mov	VCPU_TICKS(%r15), %rsi
	rdtsc
	shl	$32, %rdx
	or	%rax, %rdx
	add	PARAM(PERIOD_TSC), %rdx
	mov	%rdx, VCPU_DEADLINE(%r15)
	mov	%edx, %eax
	shr	$32, %rdx
	mov	$MSR_IA32_TSC_DEADLINE, %ecx
	wrmsr
	/*
	 * BOOST_WAIT: raise the request after the WRMSR, whose exit shows
	 * the driver the request of the last sample dropped: each boost then
	 * covers one wait and its wake-up, not the whole run (which the
	 * host's bounds would throttle).
	 */
	test	%rbx, %rbx
	jz	.Lwait
	test	$MINIVMM_LAT_BOOST_WAIT, %r8
	jz	.Lwait
	orl	$PVSCHED_GUEST_BOOST, AREA_GUEST_FLAGS(%rbx)
.Lwait:
	test	$MINIVMM_IRQ_SPIN, %r8
	jnz	.Lspin
.Lhalt:
	sti
	hlt
	cli
	cmp	%rsi, VCPU_TICKS(%r15)
	je	.Lhalt
	jmp	.Ltaken
.Lspin:
	sti
.Lspin_wait:
	cmp	%rsi, VCPU_TICKS(%r15)
	je	.Lspin_wait
	cli
.Ltaken:
	test	%rbx, %rbx
	jz	.Lprogress
	test	$MINIVMM_LAT_BOOST_WAIT, %r8
	jz	.Lprogress
	andl	$~PVSCHED_GUEST_BOOST, AREA_GUEST_FLAGS(%rbx)
.Lprogress:
	mov	VCPU_TICKS(%r15), %r12
	MAYBE_PROGRESS
	jmp	.Lloop
.Ldone:
	xor	%eax, %eax
	xor	%edx, %edx
	mov	$MSR_IA32_TSC_DEADLINE, %ecx
	wrmsr					/* disarm */
	call	lapic_timer_stop
	test	%rbx, %rbx
	jz	.Lno_area
	test	$MINIVMM_IRQ_BOOST_IRQ, %r8
	jz	.Lno_boost_irq_end
	andl	$~PVSCHED_GUEST_BOOST_IRQ, AREA_GUEST_FLAGS(%rbx)
.Lno_boost_irq_end:
	test	$(MINIVMM_LAT_BOOST_WAIT | MINIVMM_LAT_BOOST_HOLD), %r8
	jz	.Lseen
	andl	$~PVSCHED_GUEST_BOOST, AREA_GUEST_FLAGS(%rbx)
.Lseen:
	mov	VCPU_ISR_BOOSTED(%r15), %rsi
	UCALL	UCALL_BOOST_SEEN, %rsi
.Lno_area:
	SEND_IRQ_QUIRKS
	UCALL	UCALL_DONE, %r12
	HALT_FOREVER

/*
 * A sample: the TSC first, then the duplicate check of lapic-timer.S's
 * timer_isr (QEMU's TCG delivering the vector again at the handler's
 * first instruction: counted apart, no sample, no EOI).
 */
latency_isr:
	push	%rdx
	push	%rax
	rdtsc
	shl	$32, %rdx
	or	%rax, %rdx			/* %rdx: now */
	mov	16(%rsp), %rax			/* the interrupted RIP */
	sub	$latency_isr, %rax
	cmp	$(latency_isr_end - latency_isr), %rax
	jb	.Lduplicate
	push	%rcx
	HLT_RESUME 24
	sub	VCPU_DEADLINE(%r15), %rdx
	jae	.Llate
	xor	%edx, %edx			/* before the deadline: 0 */
.Llate:
	mov	$0xffffffff, %eax
	cmp	%rax, %rdx
	cmova	%rax, %rdx			/* saturate to 32 bits */
	mov	VCPU_TICKS(%r15), %rax
	cmp	PARAM(SAMPLES_MAX), %rax
	jae	.Lcount				/* no room: counted only */
	mov	VCPU_SAMPLES(%r15), %rcx
	mov	%edx, (%rcx,%rax,4)
.Lcount:
	TICK_EOI
	pop	%rcx
	pop	%rax
	pop	%rdx
	iretq
.Lduplicate:
	incq	VCPU_DUP_IRQS(%r15)
	pop	%rax
	pop	%rdx
	iretq
latency_isr_end:
