/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest physical memory layout. All of it is one memslot at GPA 0.
 *
 *   0x1000  GDT: null, 64-bit code (MINIVMM_CODE_SEL), data (MINIVMM_DATA_SEL)
 *   0x2000  PML4
 *   0x3000  PDPT
 *   0x4000  4 page directories: 2 MiB pages identity-mapping 0-4 GiB, so the
 *           xAPIC at 0xfee00000 is reachable (KVM emulates it: no memslot)
 *   0x8000  struct minivmm_params (MINIVMM_PARAMS_GPA)
 *   1 MiB   the payload (MINIVMM_LOAD_GPA), up to the lowest stack
 *   top     one GUEST_STACK_SIZE stack per vCPU, vCPU 0 highest
 */
#ifndef MINIVMM_LAYOUT_H
#define MINIVMM_LAYOUT_H

#include "../guest-payload/minivmm-guest.h"

#define GUEST_MEM_SIZE		(4UL << 20)
#define GUEST_GDT_GPA		0x1000UL
#define GUEST_PML4_GPA		0x2000UL
#define GUEST_PDPT_GPA		0x3000UL
#define GUEST_PD_GPA		0x4000UL
#define GUEST_NR_PDS		4	/* 4 x 1 GiB */
#define GUEST_STACK_SIZE	(16UL << 10)

_Static_assert(GUEST_PD_GPA + GUEST_NR_PDS * 0x1000 <= MINIVMM_PARAMS_GPA,
	       "page tables overlap the params block");

#endif /* MINIVMM_LAYOUT_H */
