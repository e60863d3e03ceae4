/* SPDX-License-Identifier: GPL-2.0 */
/*
 * boost: a latency-critical burst per timer tick, under a boosting pvsched
 * driver. Each iteration:
 *
 *   raise PVSCHED_GUEST_BOOST in this vCPU's pvsched area
 *   OUT the low byte of the iteration count to MINIVMM_WORK_PORT: an exit,
 *       on which the driver sees the flag: KVM counts the boost before
 *       KVM_RUN returns to the VMM, and applies it when the VMM runs the
 *       vCPU again
 *   read PVSCHED_HOST_BOOSTED from the area: counted when set
 *   busy loop of params.busy_loops iterations: the work, boosted
 *   drop the flag
 *   "sti; hlt" until the next tick of the LAPIC timer (lapic-timer.S): the
 *       HLT exit lets the driver end the boost before the vCPU sleeps
 *
 * At the start it tells the VMM which area it uses (AREA(gpa), 0: none)
 * and fails with FAIL_BAD_AREA if the area's version is not 1. Without an
 * area (params.pvsched_area_gpa 0: KVM does not offer one, or
 * --no-pvsched) it runs the same loop without the flag. At the end, with
 * an area, BOOST_SEEN(n): the iterations that saw HOST_BOOSTED; then
 * DUP_IRQS and SHADOW_IRQS as in halt, and DONE(iterations).
 *
 * Registers: %rbx this vCPU's area (0: none), %r8 BOOST_SEEN count, the
 * rest as in payload.h.
 */
#include "payload.h"

	.code64
	.section .text.entry, "ax"
	.globl	_start
_start:
	PAYLOAD_ENTRY
	AREA_SETUP
	call	lapic_timer_start
	xor	%r8d, %r8d
.Lloop:
	CHECK_DONE .Ldone
	test	%rbx, %rbx
	jz	.Lwork_exit
	orl	$PVSCHED_GUEST_BOOST, AREA_GUEST_FLAGS(%rbx)
.Lwork_exit:
	mov	%r12d, %eax
	mov	$MINIVMM_WORK_PORT, %dx
	outb	%al, %dx
	test	%rbx, %rbx
	jz	.Lbusy
	testl	$PVSCHED_HOST_BOOSTED, AREA_HOST_FLAGS(%rbx)
	jz	.Lbusy
	inc	%r8
.Lbusy:
	mov	PARAM(BUSY_LOOPS), %rcx
	test	%rcx, %rcx
	jz	.Lunboost
.Lspin:
	dec	%rcx
	jnz	.Lspin
.Lunboost:
	test	%rbx, %rbx
	jz	.Lhalt
	andl	$~PVSCHED_GUEST_BOOST, AREA_GUEST_FLAGS(%rbx)
.Lhalt:
	sti
	hlt
	cli
	inc	%r12
	MAYBE_PROGRESS
	jmp	.Lloop
.Ldone:
	call	lapic_timer_stop
	test	%rbx, %rbx
	jz	.Lno_area
	UCALL	UCALL_BOOST_SEEN, %r8
.Lno_area:
	SEND_IRQ_QUIRKS
	UCALL	UCALL_DONE, %r12
	HALT_FOREVER
