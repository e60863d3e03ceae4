/* SPDX-License-Identifier: GPL-2.0 */
/*
 * irq: wait for the ticks of the LAPIC timer (lapic-timer.S), as halt does,
 * optionally asking a boosting pvsched driver for a boost to take them.
 * An iteration is a tick. params.flags (MINIVMM_IRQ_*):
 *
 *   MINIVMM_IRQ_SPIN       between ticks, spin with interrupts on ("sti",
 *                          loop until VCPU_TICKS changes, "cli") instead
 *                          of "sti; hlt; cli": the timer interrupt finds
 *                          the vCPU running, or its thread preempted,
 *                          rather than halted
 *   MINIVMM_IRQ_BOOST_IRQ  raise PVSCHED_GUEST_BOOST_IRQ in this vCPU's
 *                          pvsched area at the start, drop it at the end:
 *                          the driver boosts the vCPU thread when an
 *                          interrupt wakes the halted vCPU or finds its
 *                          thread preempted, until its next VM exit
 *
 * At the start it tells the VMM which area it uses (AREA(gpa), 0: none)
 * and fails with FAIL_BAD_AREA if the area's version is not 1; it gives
 * the area to the timer handler (VCPU_ISR_AREA), which counts the ticks
 * that find PVSCHED_HOST_BOOSTED set. Without an area (params.pvsched_area_gpa
 * 0) it runs the same loop without the flag. At the end, with an area,
 * BOOST_SEEN(n): the ticks that saw HOST_BOOSTED; then DUP_IRQS and
 * SHADOW_IRQS as in halt, and DONE(iterations).
 *
 * Registers: %rbx this vCPU's area (0: none), %r8 params.flags, the rest
 * as in payload.h.
 */
#include "payload.h"

	.code64
	.section .text.entry, "ax"
	.globl	_start
_start:
	PAYLOAD_ENTRY
	AREA_SETUP
	mov	PARAM(FLAGS), %r8
	test	%rbx, %rbx
	jz	.Lstart_timer
	test	$MINIVMM_IRQ_BOOST_IRQ, %r8
	jz	.Lstart_timer
	orl	$PVSCHED_GUEST_BOOST_IRQ, AREA_GUEST_FLAGS(%rbx)
.Lstart_timer:
	mov	%rbx, VCPU_ISR_AREA(%r15)
	call	lapic_timer_start
.Lloop:
	CHECK_DONE .Ldone
	test	$MINIVMM_IRQ_SPIN, %r8
	jnz	.Lspin
	sti
	hlt
	cli
	jmp	.Ltick
.Lspin:
	mov	VCPU_TICKS(%r15), %rcx
	sti
.Lspin_wait:
	cmp	%rcx, VCPU_TICKS(%r15)
	je	.Lspin_wait
	cli
.Ltick:
	mov	VCPU_TICKS(%r15), %r12
	MAYBE_PROGRESS
	jmp	.Lloop
.Ldone:
	call	lapic_timer_stop
	test	%rbx, %rbx
	jz	.Lno_area
	test	$MINIVMM_IRQ_BOOST_IRQ, %r8
	jz	.Lseen
	andl	$~PVSCHED_GUEST_BOOST_IRQ, AREA_GUEST_FLAGS(%rbx)
.Lseen:
	mov	VCPU_ISR_BOOSTED(%r15), %rsi
	UCALL	UCALL_BOOST_SEEN, %rsi
.Lno_area:
	SEND_IRQ_QUIRKS
	UCALL	UCALL_DONE, %r12
	HALT_FOREVER
