/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LAPIC timer and the IDT of the timer payloads (halt, boost, irq;
 * latency uses the IDT only, with its own handler and TSC-deadline timer):
 *
 *   lapic_timer_start  FAIL(FAIL_BAD_PARAMS) if params.timer_count is 0;
 *                      else lapic_idt_init with timer_isr and start this
 *                      vCPU's LAPIC timer: periodic, divide by 1, initial
 *                      count params.timer_count. Clobbers %rax, %rcx,
 *                      %rdx, %rsi and %rdi.
 *   lapic_timer_stop   mask the timer and zero its count. Clobbers %rax.
 *   lapic_idt_init     fill and load the IDT, with the handler at %rdi on
 *                      TIMER_VECTOR, and software-enable this vCPU's LAPIC
 *                      (SVR). Clobbers %rax, %rcx, %rdx, %rsi and %rdi.
 *
 * Each timer interrupt adds one to VCPU_TICKS(%r15), each duplicate
 * delivery (see timer_isr) one to VCPU_DUP_IRQS(%r15), each tick in the
 * shadow of "sti" one to VCPU_SHADOW_IRQS(%r15) (HLT_RESUME). When
 * VCPU_ISR_AREA(%r15) holds a pvsched area (0: none, as PAYLOAD_ENTRY
 * leaves it), each timer interrupt that finds PVSCHED_HOST_BOOSTED set
 * there, before its EOI, adds one to VCPU_ISR_BOOSTED(%r15). The payload
 * runs with interrupts off except in its "sti; hlt" (or, irq with
 * MINIVMM_IRQ_SPIN, its spin between "sti" and "cli").
 *
 * Needs KVM_CREATE_IRQCHIP. The xAPIC is at its reset address, which the
 * VMM's page tables map.
 */
#include "payload.h"
#include "lapic.h"

#define IDT_ENTRIES		256
#define GATE_INTR		0x8e	/* present, DPL 0, interrupt gate */

	.code64
	.text
	.globl	lapic_timer_start
lapic_timer_start:
	cmpq	$0, PARAM(TIMER_COUNT)
	jne	.Ltimer_ok
	UCALL	UCALL_FAIL, $FAIL_BAD_PARAMS
	HALT_FOREVER
.Ltimer_ok:
	lea	timer_isr, %rdi
	call	lapic_idt_init
	mov	$LAPIC_BASE, %eax
	movl	$APIC_TDCR_DIV1, APIC_TDCR(%rax)
	movl	$(APIC_LVT_PERIODIC | TIMER_VECTOR), APIC_LVTT(%rax)
	mov	PARAM(TIMER_COUNT), %ecx
	mov	%ecx, APIC_TMICT(%rax)
	ret

	.globl	lapic_timer_stop
lapic_timer_stop:
	mov	$LAPIC_BASE, %eax
	movl	$APIC_LVT_MASKED, APIC_LVTT(%rax)
	movl	$0, APIC_TMICT(%rax)
	ret

	.globl	lapic_idt_init
lapic_idt_init:
	call	fill_idt
	lidt	idt_desc
	mov	$LAPIC_BASE, %eax
	movl	$(APIC_SVR_ENABLE | SPURIOUS_VECTOR), APIC_SVR(%rax)
	ret

/*
 * Fill the IDT: exception stubs for 0-31, the handler at %rdi on the timer
 * vector, spurious_isr on the spurious one, unexpected_irq for everything
 * else. Every vCPU of a payload writes the same values. Keeps %rbx.
 */
fill_idt:
	push	%rbx
	mov	%rdi, %rbx
	xor	%ecx, %ecx
.Lnext_gate:
	lea	unexpected_irq, %rax
	cmp	$32, %ecx
	jae	.Lnot_exc
	mov	%ecx, %eax
	shl	$4, %eax
	add	$exc_stubs, %rax
.Lnot_exc:
	cmp	$TIMER_VECTOR, %ecx
	jne	.Lnot_timer
	mov	%rbx, %rax
.Lnot_timer:
	cmp	$SPURIOUS_VECTOR, %ecx
	jne	.Lset
	lea	spurious_isr, %rax
.Lset:
	call	set_gate
	inc	%ecx
	cmp	$IDT_ENTRIES, %ecx
	jb	.Lnext_gate
	pop	%rbx
	ret

/* IDT entry %rcx := interrupt gate to %rax (below 4 GiB). */
set_gate:
	movzwl	%ax, %edx
	or	$(MINIVMM_CODE_SEL << 16), %edx
	mov	%rax, %rsi
	shr	$16, %rsi
	shl	$48, %rsi
	or	%rsi, %rdx
	movabs	$(GATE_INTR << 40), %rsi
	or	%rsi, %rdx
	mov	%rcx, %rdi
	shl	$4, %rdi
	mov	%rdx, idt(%rdi)
	movq	$0, idt + 8(%rdi)
	ret

/*
 * A tick, unless the interrupted code is this handler itself: an interrupt
 * gate clears IF, so a CPU never delivers the timer vector there, but
 * QEMU's TCG does when it emulates SVM for a nested KVM. Its VMRUN
 * delivers the interrupt that KVM injected (EVENTINJ) and leaves the
 * vector in its pending-exception slot; a kick of the vCPU before anything
 * overwrites the slot delivers it once more, at the first instruction of
 * the handler. That copy is no interrupt KVM injected: count it apart (no
 * tick, no VCPU_ISR_BOOSTED), and do not EOI, the original does.
 */
timer_isr:
	push	%rax
	mov	8(%rsp), %rax			/* the interrupted RIP */
	sub	$timer_isr, %rax
	cmp	$(timer_isr_end - timer_isr), %rax
	jb	.Lduplicate
	HLT_RESUME 8
	TICK_EOI
	pop	%rax
	iretq
.Lduplicate:
	incq	VCPU_DUP_IRQS(%r15)
	pop	%rax
	iretq
timer_isr_end:

spurious_isr:
	iretq

unexpected_irq:
	UCALL	UCALL_FAIL, $FAIL_UNEXPECTED_IRQ
	HALT_FOREVER

/* One 16-byte stub per exception vector: FAIL(FAIL_EXCEPTION + vector). */
	.balign	16
exc_stubs:
	vector = 0
	.rept	32
	.balign	16
	pushq	$vector
	jmp	exc_common
	vector = vector + 1
	.endr

exc_common:
	pop	%rsi
	add	$FAIL_EXCEPTION, %rsi
	UCALL	UCALL_FAIL, %rsi
	HALT_FOREVER

	.data
	.balign	16
idt_desc:
	.word	IDT_ENTRIES * 16 - 1
	.quad	idt

	.bss
	.balign	16
idt:
	.skip	IDT_ENTRIES * 16
