/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MINIVMM_KVM_H
#define MINIVMM_KVM_H

#include <stdbool.h>
#include <stddef.h>

#include "ioport.h"
#include "kvm-abi.h"
#include "kvm-ioctl.h"
#include "layout.h"

/*
 * Linux guests: three pages for the TSS that Intel's VMX needs to run
 * real mode (the APs' SIPI trampoline) without unrestricted guest, below
 * the BIOS ROM's 4 GiB alias, where QEMU and kvmtool put it too; VMX
 * without unrestricted guest also backs its EPT identity map page
 * (VMX_EPT_IDENTITY_PAGETABLE_ADDR) below it. Both are KVM's private
 * memory: no BAR may decode there (pci.c).
 */
#define KVM_TSS_GPA		0xfffbd000UL
#define KVM_TSS_PAGES		3
#define KVM_IDENTITY_MAP_GPA	0xfffbc000UL

struct pci_bus;

struct kvm {
	int sys_fd;			/* /dev/kvm */
	int vm_fd;
	int run_size;			/* size of each vCPU's struct kvm_run */
	bool irqchip;			/* in-kernel LAPIC/IOAPIC/PIC */
	bool tsc_deadline;		/* vCPUs get CPUID.1:ECX.TSC_DEADLINE */
	void *mem;			/* guest memory, GPA 0 */
	size_t mem_size;		/* 0 before kvm__create_vm(): GUEST_MEM_SIZE */
	struct kvm_cpuid2 *cpuid;	/* KVM_GET_SUPPORTED_CPUID */

	/*
	 * A Linux guest (--kernel): vCPU 0 enters at linux_entry with RSI =
	 * linux_boot_params, the others wait for INIT/SIPI; port I/O goes to
	 * io_bus, MMIO outside RAM to pci's BARs first, and exit says how the
	 * guest ended the run. NULL io_bus and pci for the payloads.
	 */
	bool linux_guest;
	bool pvsched_msr;		/* its MSR_KVM_PVSCHED writes exit */
	bool refuse_areas;		/* and registrations get #GP */
	__u64 linux_entry;
	__u64 linux_boot_params;
	struct ioport_bus *io_bus;
	struct pci_bus *pci;
	struct guest_exit exit;

	/*
	 * Called before a vCPU prints a message, if set: main.c lets the
	 * console write the guest's output so far (bounded), so that the
	 * message comes after it on a terminal they share.
	 */
	void (*before_msg)(void *opaque);
	void *msg_opaque;
};

void kvm__init(struct kvm *kvm);
int kvm__open(struct kvm *kvm);
int kvm__check_caps(struct kvm *kvm, bool irqchip, bool pvsched,
		    bool tsc_khz, bool linux_guest, unsigned int nr_vcpus);
int kvm__create_vm(struct kvm *kvm, bool irqchip);
int kvm__irq_line(struct kvm *kvm, unsigned int irq, bool level);
bool kvm__has_pvsched_area(struct kvm *kvm);
bool kvm__has_pvsched_msr(struct kvm *kvm);
int kvm__filter_pvsched_msr(struct kvm *kvm);
bool kvm__has_tsc_deadline(struct kvm *kvm);
void *kvm__gpa_to_hva(struct kvm *kvm, unsigned long long gpa, size_t len);
struct minivmm_params *kvm__params(struct kvm *kvm);
void kvm__close(struct kvm *kvm);

#endif /* MINIVMM_KVM_H */
