/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flat payload image at MINIVMM_LOAD_GPA, entry point first. .bss is folded
 * into .data so that "objcopy -O binary" writes the whole image: the file
 * size is all the guest memory the payload uses (besides its stacks).
 */
#include "minivmm-guest.h"

OUTPUT_FORMAT("elf64-x86-64")
OUTPUT_ARCH(i386:x86-64)
ENTRY(_start)

SECTIONS
{
	. = MINIVMM_LOAD_GPA;
	.text : {
		*(.text.entry)
		*(.text .text.*)
	}
	.rodata : { *(.rodata .rodata.*) }
	.data : {
		*(.data .data.*)
		*(.bss .bss.*)
		*(COMMON)
	}
	/DISCARD/ : { *(.note*) *(.comment) *(.eh_frame*) }
}
