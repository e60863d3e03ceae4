/* SPDX-License-Identifier: GPL-2.0 */
/*
 * halt: program this vCPU's local APIC timer in periodic mode and sit in a
 * "sti; hlt" loop. Every timer interrupt is a tick; an iteration is a tick.
 * With KVM's in-kernel irqchip the HLTs and the interrupt injections are
 * handled in the kernel: only PROGRESS and DONE reach the VMM (and
 * DUP_IRQS and SHADOW_IRQS, see timer_isr in lapic-timer.S).
 *
 * Needs KVM_CREATE_IRQCHIP and params.timer_count (lapic-timer.S).
 */
#include "payload.h"

	.code64
	.section .text.entry, "ax"
	.globl	_start
_start:
	PAYLOAD_ENTRY
	call	lapic_timer_start
.Lloop:
	CHECK_DONE .Ldone
	sti
	hlt
	cli
	mov	VCPU_TICKS(%r15), %r12
	MAYBE_PROGRESS
	jmp	.Lloop
.Ldone:
	call	lapic_timer_stop
	SEND_IRQ_QUIRKS
	UCALL	UCALL_DONE, %r12
	HALT_FOREVER
