/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpuid: a loop of CPUID (leaves 0 and 1 in turn). CPUID always exits to
 * KVM, which handles it in the kernel: only PROGRESS and DONE reach the VMM.
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
	and	$1, %eax
	xor	%ecx, %ecx
	cpuid
	inc	%r12
	MAYBE_PROGRESS
	jmp	.Lloop
.Ldone:
	UCALL	UCALL_DONE, %r12
	HALT_FOREVER
