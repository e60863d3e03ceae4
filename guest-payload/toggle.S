/* SPDX-License-Identifier: GPL-2.0 */
/*
 * toggle: a guest that never stops running and plays with its boost
 * request: the adversary of the host's bounds (ci/tests/adversary.sh). An
 * iteration:
 *
 *   raise PVSCHED_GUEST_BOOST in this vCPU's pvsched area
 *   CPUID: an exit handled in KVM, at which the driver sees the flag
 *   work: params.busy_loops iterations of a busy loop
 *   unless MINIVMM_TOGGLE_HOLD: drop the flag, CPUID, the same work
 *
 * So with a short busy loop the request changes at every exit, and with a
 * long one it is up half of the guest's time, in stretches of that length.
 *
 * params.flags:
 *
 *   MINIVMM_TOGGLE_HOLD   the flag stays up for the whole run: a guest that
 *                         never lets go
 *   MINIVMM_TOGGLE_TOUCH  the work writes a byte to params.busy_loops pages
 *                         (4 KiB) of the memory from params.samples_gpa
 *                         on, params.samples_max * 4 bytes, the next ones
 *                         each time, from the start again at its end: the
 *                         first write to each page faults in the host, so
 *                         the vCPU thread runs long in the host kernel
 *
 * It handles its area as boost.S does (AREA(gpa), FAIL_BAD_AREA); without
 * one it runs the same loop without the flag. With MINIVMM_TOGGLE_TOUCH it
 * fails with FAIL_BAD_PARAMS if the region is empty. At the end the flag
 * is dropped, then DONE(iterations).
 *
 * Registers: %rbx this vCPU's area (0: none), %r8 params.flags, %r9 the
 * next page to touch, %r10 the end of the region, the rest as in
 * payload.h.
 */
#include "payload.h"

	.code64
	.section .text.entry, "ax"
	.globl	_start
_start:
	PAYLOAD_ENTRY
	mov	PARAM(FLAGS), %r8
	test	$MINIVMM_TOGGLE_TOUCH, %r8
	jz	.Lregion_ok
	mov	PARAM(SAMPLES), %r9
	mov	PARAM(SAMPLES_MAX), %r10
	shl	$2, %r10
	add	%r9, %r10
	cmp	%r10, %r9
	jb	.Lregion_ok
	UCALL	UCALL_FAIL, $FAIL_BAD_PARAMS
	HALT_FOREVER
.Lregion_ok:
	AREA_SETUP
	test	%rbx, %rbx
	jz	.Lloop
	test	$MINIVMM_TOGGLE_HOLD, %r8
	jz	.Lloop
	orl	$PVSCHED_GUEST_BOOST, AREA_GUEST_FLAGS(%rbx)
.Lloop:
	CHECK_DONE .Ldone
	test	%rbx, %rbx
	jz	.Lup_exit
	orl	$PVSCHED_GUEST_BOOST, AREA_GUEST_FLAGS(%rbx)
.Lup_exit:
	call	toggle_exit
	call	toggle_work
	test	$MINIVMM_TOGGLE_HOLD, %r8
	jnz	.Lnext
	test	%rbx, %rbx
	jz	.Ldown_exit
	andl	$~PVSCHED_GUEST_BOOST, AREA_GUEST_FLAGS(%rbx)
.Ldown_exit:
	call	toggle_exit
	call	toggle_work
.Lnext:
	inc	%r12
	MAYBE_PROGRESS
	jmp	.Lloop
.Ldone:
	test	%rbx, %rbx
	jz	.Lno_area
	andl	$~PVSCHED_GUEST_BOOST, AREA_GUEST_FLAGS(%rbx)
.Lno_area:
	UCALL	UCALL_DONE, %r12
	HALT_FOREVER

/* CPUID leaf 0: an exit that KVM handles. Clobbers %rax-%rdx but %rbx. */
toggle_exit:
	push	%rbx
	xor	%eax, %eax
	xor	%ecx, %ecx
	cpuid
	pop	%rbx
	ret

/* The work: busy loops, or page touches (MINIVMM_TOGGLE_TOUCH). */
toggle_work:
	mov	PARAM(BUSY_LOOPS), %rcx
	test	%rcx, %rcx
	jz	.Lwork_done
	test	$MINIVMM_TOGGLE_TOUCH, %r8
	jnz	.Ltouch
.Lspin:
	dec	%rcx
	jnz	.Lspin
	ret
.Ltouch:
	movb	$1, (%r9)
	add	$4096, %r9
	cmp	%r10, %r9
	jb	.Ltouched
	mov	PARAM(SAMPLES), %r9
.Ltouched:
	dec	%rcx
	jnz	.Ltouch
.Lwork_done:
	ret
