/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io: a loop of port-I/O exits to userspace. Each iteration writes the low
 * byte of the iteration count to MINIVMM_WORK_PORT, so the VMM can check
 * that it saw every one of them, in order.
 */
#include "payload.h"

	.code64
	.section .text.entry, "ax"
	.globl	_start
_start:
	PAYLOAD_ENTRY
.Lloop:
	CHECK_DONE .Ldone
	mov	%r12d, %eax
	mov	$MINIVMM_WORK_PORT, %dx
	outb	%al, %dx
	inc	%r12
	MAYBE_PROGRESS
	jmp	.Lloop
.Ldone:
	UCALL	UCALL_DONE, %r12
	HALT_FOREVER
