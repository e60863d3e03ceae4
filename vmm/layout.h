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
 *   0x9000  pvsched areas (GUEST_PVSCHED_AREA_GPA): one page of 64-byte
 *           struct pvsched_vcpu_area, vCPU i's at 0x9000 + 64 * i,
 *           registered with KVM_SET_PVSCHED_AREA when KVM offers it
 *   1 MiB   the payload (MINIVMM_LOAD_GPA), up to the lowest stack
 *           one GUEST_STACK_SIZE stack per vCPU below GUEST_STACK_TOP,
 *           vCPU 0 highest
 *   4 MiB   the latency payload's samples (GUEST_SAMPLES_GPA): 16 MiB of
 *           __u32, vCPU i's params.samples_max of them at
 *           GUEST_SAMPLES_GPA + i * samples_max * 4, up to GUEST_MEM_SIZE
 *           (mmap()ed MAP_NORESERVE: only the pages the guest writes cost
 *           host memory)
 */
#ifndef MINIVMM_LAYOUT_H
#define MINIVMM_LAYOUT_H

#include "../guest-payload/minivmm-guest.h"
#include "kvm-abi.h"

#define GUEST_STACK_TOP		(4UL << 20)
#define GUEST_SAMPLES_GPA	GUEST_STACK_TOP
#define GUEST_SAMPLES_BYTES	(16UL << 20)
#define GUEST_MEM_SIZE		(GUEST_SAMPLES_GPA + GUEST_SAMPLES_BYTES)
#define GUEST_GDT_GPA		0x1000UL
#define GUEST_PML4_GPA		0x2000UL
#define GUEST_PDPT_GPA		0x3000UL
#define GUEST_PD_GPA		0x4000UL
#define GUEST_NR_PDS		4	/* 4 x 1 GiB */
#define GUEST_STACK_SIZE	(16UL << 10)
#define GUEST_PVSCHED_AREA_GPA	0x9000UL
#define GUEST_PVSCHED_AREA_BYTES	0x1000UL
#define GUEST_PVSCHED_AREA_SLOTS \
	(GUEST_PVSCHED_AREA_BYTES / PVSCHED_AREA_SIZE)

/* vCPU @i's pvsched area. */
#define GUEST_PVSCHED_AREA(i) \
	(GUEST_PVSCHED_AREA_GPA + (unsigned long)(i) * PVSCHED_AREA_SIZE)

_Static_assert(GUEST_PD_GPA + GUEST_NR_PDS * 0x1000 <= MINIVMM_PARAMS_GPA,
	       "page tables overlap the params block");
_Static_assert(MINIVMM_PARAMS_GPA + sizeof(struct minivmm_params) <=
	       GUEST_PVSCHED_AREA_GPA,
	       "params block overlaps the pvsched areas");
_Static_assert(GUEST_PVSCHED_AREA_GPA + GUEST_PVSCHED_AREA_BYTES <=
	       MINIVMM_LOAD_GPA, "pvsched areas overlap the payload");
_Static_assert(GUEST_PVSCHED_AREA_GPA % PVSCHED_AREA_SIZE == 0,
	       "KVM wants 64-byte aligned pvsched areas");
_Static_assert(MINIVMM_LOAD_GPA < GUEST_STACK_TOP,
	       "no room for the payload below the stacks");
_Static_assert(GUEST_MEM_SIZE <= GUEST_NR_PDS * (1UL << 30),
	       "guest memory beyond the identity map");

/* The struct and the assembly side's offsets agree. */
_Static_assert(sizeof(struct pvsched_vcpu_area) == PVSCHED_AREA_SIZE,
	       "pvsched area size");
#define AREA_FIELD_AT(f, off) \
	_Static_assert(__builtin_offsetof(struct pvsched_vcpu_area, f) == (off), \
		       "pvsched area field " #f)
AREA_FIELD_AT(version, AREA_VERSION);
AREA_FIELD_AT(host_flags, AREA_HOST_FLAGS);
AREA_FIELD_AT(guest_flags, AREA_GUEST_FLAGS);
AREA_FIELD_AT(guest_prio, AREA_GUEST_PRIO);
AREA_FIELD_AT(guest_word, AREA_GUEST_FLAGS);
AREA_FIELD_AT(boosted_ns, AREA_BOOSTED_NS);
AREA_FIELD_AT(boosts, AREA_BOOSTS);
AREA_FIELD_AT(throttles, AREA_THROTTLES);
AREA_FIELD_AT(unboosts, AREA_UNBOOSTS);
AREA_FIELD_AT(wake_req, AREA_WAKE_REQ);
#undef AREA_FIELD_AT

#endif /* MINIVMM_LAYOUT_H */
