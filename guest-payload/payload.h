/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Assembly helpers shared by the payloads.
 *
 * Register conventions, set up by PAYLOAD_ENTRY:
 *   %r15  per-vCPU area on this vCPU's stack (ucall block, tick count,
 *         duplicate interrupt count, the timer handler's pvsched area
 *         and its count of ticks that found the vCPU boosted; latency's
 *         armed deadline and sample array; the count of ticks taken in
 *         the shadow of "sti", see HLT_RESUME)
 *   %r12  iterations done
 *   %r13  iteration target (0: run until the VMM sets params.stop)
 *   %r14  next iteration count at which to send PROGRESS
 *   %rbp  params.progress_every (0: never send PROGRESS)
 * UCALL clobbers %rax and %rdx. Labels inside macros use \@ so that they
 * never capture a numeric label of the code around them.
 */
#ifndef PAYLOAD_H
#define PAYLOAD_H

#include "minivmm-guest.h"

/*
 * Per-vCPU area, at %r15. VCPU_AREA_SIZE is a multiple of 16, so that the
 * stack below it stays 16-byte aligned.
 */
#define VCPU_UCALL		0
#define VCPU_TICKS		UCALL_SIZE
#define VCPU_DUP_IRQS		(UCALL_SIZE + 8)
#define VCPU_ISR_AREA		(UCALL_SIZE + 16)	/* 0: none */
#define VCPU_ISR_BOOSTED	(UCALL_SIZE + 24)
#define VCPU_DEADLINE		(UCALL_SIZE + 32)	/* latency: TSC */
#define VCPU_SAMPLES		(UCALL_SIZE + 40)	/* latency: array */
#define VCPU_SHADOW_IRQS	(UCALL_SIZE + 48)
#define VCPU_AREA_SIZE		80

#define PARAM(field)		(MINIVMM_PARAMS_GPA + PARAMS_##field)

.macro UCALL cmd:req, arg:req
	movq	$\cmd, VCPU_UCALL + UCALL_CMD(%r15)
	movq	\arg, VCPU_UCALL + UCALL_ARG(%r15)
	lea	VCPU_UCALL(%r15), %rax
	mov	$MINIVMM_UCALL_PORT, %dx
	outl	%eax, %dx
.endm

.macro HALT_FOREVER
	cli
.Lhalt\@:
	hlt
	jmp	.Lhalt\@
.endm

/* Set up the registers above; FAIL(FAIL_BAD_PARAMS) on a bad params block. */
.macro PAYLOAD_ENTRY
	sub	$VCPU_AREA_SIZE, %rsp
	mov	%rsp, %r15
	movq	$0, VCPU_TICKS(%r15)
	movq	$0, VCPU_DUP_IRQS(%r15)
	movq	$0, VCPU_ISR_AREA(%r15)
	movq	$0, VCPU_ISR_BOOSTED(%r15)
	movq	$0, VCPU_DEADLINE(%r15)
	movq	$0, VCPU_SAMPLES(%r15)
	movq	$0, VCPU_SHADOW_IRQS(%r15)
	movabs	$MINIVMM_PARAMS_MAGIC, %rax
	cmp	%rax, PARAM(MAGIC)
	je	.Lparams_ok\@
	UCALL	UCALL_FAIL, $FAIL_BAD_PARAMS
	HALT_FOREVER
.Lparams_ok\@:
	xor	%r12d, %r12d
	mov	PARAM(ITERATIONS), %r13
	mov	PARAM(PROGRESS_EVERY), %rbp
	mov	%rbp, %r14
.endm

/*
 * %rbx := this vCPU's pvsched area, params.pvsched_area_gpa +
 * PVSCHED_AREA_SIZE * %rdi (the vCPU index), or 0 without one;
 * FAIL(FAIL_BAD_AREA) if its version is not 1; then AREA(%rbx), which
 * tells the VMM which area the payload uses. Clobbers %rdi.
 */
.macro AREA_SETUP
	mov	PARAM(PVSCHED_AREA), %rbx
	test	%rbx, %rbx
	jz	.Larea_ok\@
	shl	$6, %rdi
	add	%rdi, %rbx
	cmpl	$PVSCHED_AREA_VERSION, AREA_VERSION(%rbx)
	je	.Larea_ok\@
	UCALL	UCALL_FAIL, $FAIL_BAD_AREA
	HALT_FOREVER
.Larea_ok\@:
	UCALL	UCALL_AREA, %rbx
.endm

/* Jump to \done once the target is reached or the VMM asked to stop. */
.macro CHECK_DONE done:req
	test	%r13, %r13
	jz	.Lno_target\@
	cmp	%r13, %r12
	jae	\done
.Lno_target\@:
	cmpl	$0, PARAM(STOP)
	jne	\done
.endm

/* Send PROGRESS(%r12) each time %r12 reaches the next progress mark. */
.macro MAYBE_PROGRESS
	test	%rbp, %rbp
	jz	.Lno_progress\@
	cmp	%r14, %r12
	jb	.Lno_progress\@
	UCALL	UCALL_PROGRESS, %r12
	add	%rbp, %r14
.Lno_progress\@:
.endm

/*
 * DUP_IRQS(n) if the timer payload counted n > 0 duplicate deliveries,
 * SHADOW_IRQS(n) if n > 0 ticks came in the shadow of "sti" (HLT_RESUME).
 */
.macro SEND_IRQ_QUIRKS
	mov	VCPU_DUP_IRQS(%r15), %rsi
	test	%rsi, %rsi
	jz	.Lno_dups\@
	UCALL	UCALL_DUP_IRQS, %rsi
.Lno_dups\@:
	mov	VCPU_SHADOW_IRQS(%r15), %rsi
	test	%rsi, %rsi
	jz	.Lno_shadow\@
	UCALL	UCALL_SHADOW_IRQS, %rsi
.Lno_shadow\@:
.endm

#endif /* PAYLOAD_H */
