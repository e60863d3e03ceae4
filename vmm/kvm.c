// SPDX-License-Identifier: GPL-2.0
/*
 * The VM: /dev/kvm, capabilities, guest memory, page tables and GDT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kvm.h"
#include "util.h"
#include "x86.h"

#define KVM_DEV			"/dev/kvm"
#define KVM_API_VERSION_WANTED	12
#define KVM_CPUID_MAX_ENTRIES	256

static const struct kvm_cap_req {
	int cap;
	const char *name;
	bool irqchip_only;		/* needed only with the irqchip */
	bool tsc_khz_only;		/* needed only for the TSC frequency */
	bool linux_only;		/* needed only for a Linux guest */
} kvm_caps[] = {
#define KVM_CAP(cap, irqchip_only, tsc_khz_only, linux_only) \
	{ cap, #cap, irqchip_only, tsc_khz_only, linux_only }
	KVM_CAP(KVM_CAP_USER_MEMORY, false, false, false),
	/* KVM_GET_SUPPORTED_CPUID */
	KVM_CAP(KVM_CAP_EXT_CPUID, false, false, false),
	KVM_CAP(KVM_CAP_MP_STATE, false, false, false),
	KVM_CAP(KVM_CAP_IMMEDIATE_EXIT, false, false, false),
	KVM_CAP(KVM_CAP_IRQCHIP, true, false, false),
	KVM_CAP(KVM_CAP_GET_TSC_KHZ, false, true, false),  /* KVM_GET_TSC_KHZ */
	KVM_CAP(KVM_CAP_PIT2, false, false, true),	/* KVM_CREATE_PIT2 */
	KVM_CAP(KVM_CAP_SET_TSS_ADDR, false, false, true),
	KVM_CAP(KVM_CAP_PVSCHED, false, false, false),
#undef KVM_CAP
};

/* See kvm-ioctl.h: one line for a failed ioctl, and -errno. */
int kvm__ioctl_error(const char *name)
{
	int err = errno;

	pr_err("%s: %s", name, strerror(err));
	errno = err;
	return -err;
}

void kvm__init(struct kvm *kvm)
{
	memset(kvm, 0, sizeof(*kvm));
	kvm->sys_fd = -1;
	kvm->vm_fd = -1;
	kvm->mem = MAP_FAILED;
}

int kvm__open(struct kvm *kvm)
{
	int ver, err;

	kvm->sys_fd = open(KVM_DEV, O_RDWR | O_CLOEXEC);
	if (kvm->sys_fd < 0) {
		err = errno;
		pr_err("%s: %s", KVM_DEV, strerror(err));
		return -err;
	}
	/* Raw: a failure is reported as the version -1. */
	ver = __kvm_sys_ioctl(kvm, KVM_GET_API_VERSION, 0);
	if (ver != KVM_API_VERSION_WANTED) {
		pr_err("KVM API version %d, want %d", ver,
		       KVM_API_VERSION_WANTED);
		return -EPROTO;
	}
	kvm->run_size = __kvm_sys_ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (kvm->run_size < (int)sizeof(struct kvm_run)) {
		pr_err("KVM_GET_VCPU_MMAP_SIZE: %d", kvm->run_size);
		return -EPROTO;
	}
	return 0;
}

/*
 * Check kvm_caps[]. A missing KVM_CAP_PVSCHED alone gives -ENOTTY, like the
 * pvsched ioctls on such a kernel; any other missing cap -EOPNOTSUPP.
 * Without @pvsched (--no-pvsched) KVM_CAP_PVSCHED is not even asked for;
 * KVM_CAP_GET_TSC_KHZ only with @tsc_khz (the latency payload), the PIT
 * and the TSS only for a Linux guest.
 */
int kvm__check_caps(struct kvm *kvm, bool irqchip, bool pvsched,
		    bool tsc_khz, bool linux_guest, unsigned int nr_vcpus)
{
	bool no_pvsched = false, missing = false;
	unsigned int i;
	int max;

	for (i = 0; i < ARRAY_SIZE(kvm_caps); i++) {
		if (kvm_caps[i].irqchip_only && !irqchip)
			continue;
		if (kvm_caps[i].tsc_khz_only && !tsc_khz)
			continue;
		if (kvm_caps[i].linux_only && !linux_guest)
			continue;
		if (kvm_caps[i].cap == KVM_CAP_PVSCHED && !pvsched)
			continue;
		if (__kvm_sys_ioctl(kvm, KVM_CHECK_EXTENSION,
				    kvm_caps[i].cap) > 0)
			continue;
		if (kvm_caps[i].cap == KVM_CAP_PVSCHED) {
			no_pvsched = true;
			continue;
		}
		pr_err("KVM lacks %s", kvm_caps[i].name);
		missing = true;
	}
	if (missing)
		return -EOPNOTSUPP;
	if (no_pvsched) {
		pr_err("this kernel has no pvsched support (%s is 0)",
		       "KVM_CAP_PVSCHED");
		return -ENOTTY;
	}
	max = __kvm_sys_ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_MAX_VCPUS);
	if (max > 0 && nr_vcpus > (unsigned int)max) {
		pr_err("KVM allows at most %d vCPUs per VM", max);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int kvm__get_supported_cpuid(struct kvm *kvm)
{
	size_t size = sizeof(*kvm->cpuid) +
		      KVM_CPUID_MAX_ENTRIES * sizeof(kvm->cpuid->entries[0]);

	kvm->cpuid = calloc(1, size);
	if (!kvm->cpuid)
		return -ENOMEM;
	kvm->cpuid->nent = KVM_CPUID_MAX_ENTRIES;
	return kvm_sys_ioctl(kvm, KVM_GET_SUPPORTED_CPUID, kvm->cpuid);
}

/* Identity-map 0-4 GiB with 2 MiB pages: PML4[0] -> PDPT[0..3] -> PDs. */
static void kvm__setup_page_tables(struct kvm *kvm)
{
	uint64_t *pml4 = kvm__gpa_to_hva(kvm, GUEST_PML4_GPA, 4096);
	uint64_t *pdpt = kvm__gpa_to_hva(kvm, GUEST_PDPT_GPA, 4096);
	uint64_t *pd = kvm__gpa_to_hva(kvm, GUEST_PD_GPA,
				       GUEST_NR_PDS * 4096);
	unsigned int i;

	pml4[0] = GUEST_PDPT_GPA | PTE_PRESENT | PTE_RW;
	for (i = 0; i < GUEST_NR_PDS; i++)
		pdpt[i] = (GUEST_PD_GPA + i * PAGE_SIZE_4K) |
			  PTE_PRESENT | PTE_RW;
	for (i = 0; i < GUEST_NR_PDS * PT_ENTRIES; i++)
		pd[i] = (uint64_t)i * PAGE_SIZE_2M |
			PTE_PRESENT | PTE_RW | PTE_PS;
}

/* The GDT backs the selectors that interrupt delivery and IRETQ reload. */
static void kvm__setup_gdt(struct kvm *kvm)
{
	uint64_t *gdt = kvm__gpa_to_hva(kvm, GUEST_GDT_GPA, 3 * 8);

	gdt[0] = 0;
	gdt[MINIVMM_CODE_SEL / 8] = GDT_ENTRY_CODE64;
	gdt[MINIVMM_DATA_SEL / 8] = GDT_ENTRY_DATA;
}

static int kvm__setup_memory(struct kvm *kvm)
{
	struct kvm_userspace_memory_region region;
	int ret;

	if (!kvm->mem_size)
		kvm->mem_size = GUEST_MEM_SIZE;
	kvm->mem = mmap(NULL, kvm->mem_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (kvm->mem == MAP_FAILED) {
		ret = -errno;
		pr_err("guest memory: %s", strerror(-ret));
		return ret;
	}
	memset(&region, 0, sizeof(region));
	region.slot = 0;
	region.guest_phys_addr = 0;
	region.memory_size = kvm->mem_size;
	region.userspace_addr = (unsigned long)kvm->mem;
	ret = kvm_vm_ioctl(kvm, KVM_SET_USER_MEMORY_REGION, &region);
	if (ret)
		return ret;
	kvm__setup_page_tables(kvm);
	kvm__setup_gdt(kvm);
	return 0;
}

/*
 * Create the VM, with kvm->mem_size bytes of memory (GUEST_MEM_SIZE if
 * 0). The irqchip must exist before the vCPUs, which then get an
 * in-kernel LAPIC each. The payloads never leave long mode: no
 * KVM_SET_TSS_ADDR, which only matters for Intel real mode. A Linux guest
 * (kvm->linux_guest) starts its APs in real mode, and gets the TSS, and
 * the in-kernel PIT (after the irqchip, which it raises IRQ 0 on).
 */
int kvm__create_vm(struct kvm *kvm, bool irqchip)
{
	struct kvm_pit_config pit = { .flags = 0 };
	int ret;

	ret = kvm_sys_ioctl(kvm, KVM_CREATE_VM, 0);
	if (ret < 0)
		return ret;
	kvm->vm_fd = ret;
	if (kvm->linux_guest) {
		ret = kvm_vm_ioctl(kvm, KVM_SET_TSS_ADDR, KVM_TSS_GPA);
		if (ret)
			return ret;
	}
	if (irqchip) {
		ret = kvm_vm_ioctl(kvm, KVM_CREATE_IRQCHIP, 0);
		if (ret)
			return ret;
		kvm->irqchip = true;
	}
	if (kvm->linux_guest) {
		ret = kvm_vm_ioctl(kvm, KVM_CREATE_PIT2, &pit);
		if (ret)
			return ret;
	}
	ret = kvm__get_supported_cpuid(kvm);
	if (ret)
		return ret;
	return kvm__setup_memory(kvm);
}

/*
 * Set the level of ISA IRQ @irq (KVM_IRQ_LINE: the PICs and the IOAPIC pin
 * of the same number, KVM's default routing). 0 or -errno, with one line.
 */
int kvm__irq_line(struct kvm *kvm, unsigned int irq, bool level)
{
	struct kvm_irq_level l = { .irq = irq, .level = level };

	return kvm_vm_ioctl(kvm, KVM_IRQ_LINE, &l);
}

/*
 * Does KVM offer the per-vCPU pvsched area (KVM_SET_PVSCHED_AREA)? Asked
 * on the VM, which answers for this VM; a kernel without the series says 0.
 */
bool kvm__has_pvsched_area(struct kvm *kvm)
{
	return __kvm_vm_ioctl(kvm, KVM_CHECK_EXTENSION,
			      KVM_CAP_PVSCHED_AREA) > 0;
}

/*
 * Can a guest register its pvsched areas itself, through KVM: does the
 * supported CPUID have KVM_FEATURE_PVSCHED, and can minivmm see each
 * registration (KVM_CAP_X86_USER_SPACE_MSR with an MSR filter)?
 */
bool kvm__has_pvsched_msr(struct kvm *kvm)
{
	const struct kvm_cpuid_entry2 *e;
	unsigned int i;

	if (__kvm_vm_ioctl(kvm, KVM_CHECK_EXTENSION,
			   KVM_CAP_X86_USER_SPACE_MSR) <= 0 ||
	    __kvm_vm_ioctl(kvm, KVM_CHECK_EXTENSION,
			   KVM_CAP_X86_MSR_FILTER) <= 0)
		return false;
	for (i = 0; kvm->cpuid && i < kvm->cpuid->nent; i++) {
		e = &kvm->cpuid->entries[i];
		if (e->function == KVM_CPUID_FEATURES_LEAF)
			return e->eax & (1U << KVM_FEATURE_PVSCHED);
	}
	return false;
}

/*
 * Have the guest's writes of MSR_KVM_PVSCHED exit to minivmm
 * (KVM_EXIT_X86_WRMSR), which makes them with KVM_SET_MSRS: KVM checks and
 * registers the area as it would have for the guest, and minivmm knows
 * each vCPU's area, for its report.
 * Reads, and every other MSR, stay KVM's. 0 or -errno, with one line.
 */
int kvm__filter_pvsched_msr(struct kvm *kvm)
{
	static __u8 deny;	/* bit 0 clear: the write exits */
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_X86_USER_SPACE_MSR,
		.args[0] = KVM_MSR_EXIT_REASON_FILTER,
	};
	struct kvm_msr_filter filter = {
		.flags = KVM_MSR_FILTER_DEFAULT_ALLOW,
		.ranges[0] = {
			.flags = KVM_MSR_FILTER_WRITE,
			.nmsrs = 1,
			.base = MSR_KVM_PVSCHED,
			.bitmap = &deny,
		},
	};
	int ret;

	ret = kvm_vm_ioctl(kvm, KVM_ENABLE_CAP, &cap);
	if (ret < 0)
		return ret;
	ret = kvm_vm_ioctl(kvm, KVM_X86_SET_MSR_FILTER, &filter);
	return ret < 0 ? ret : 0;
}

/*
 * Can the vCPUs' LAPIC timers run in TSC-deadline mode? KVM emulates it
 * with the in-kernel irqchip, but KVM_GET_SUPPORTED_CPUID does not say so
 * (CPUID.1:ECX bit 24 is 0 there): a VMM that wants it sets the bit
 * itself, as QEMU does, when KVM_CAP_TSC_DEADLINE_TIMER says KVM has it.
 */
bool kvm__has_tsc_deadline(struct kvm *kvm)
{
	return __kvm_sys_ioctl(kvm, KVM_CHECK_EXTENSION,
			       KVM_CAP_TSC_DEADLINE_TIMER) > 0;
}

/* A host pointer for [gpa, gpa + len), or NULL if not all guest RAM. */
void *kvm__gpa_to_hva(struct kvm *kvm, unsigned long long gpa, size_t len)
{
	if (gpa > kvm->mem_size || len > kvm->mem_size - gpa)
		return NULL;
	return (char *)kvm->mem + gpa;
}

struct minivmm_params *kvm__params(struct kvm *kvm)
{
	return kvm__gpa_to_hva(kvm, MINIVMM_PARAMS_GPA,
			       sizeof(struct minivmm_params));
}

void kvm__close(struct kvm *kvm)
{
	if (kvm->mem != MAP_FAILED)
		munmap(kvm->mem, kvm->mem_size);
	if (kvm->vm_fd >= 0)
		close(kvm->vm_fd);
	if (kvm->sys_fd >= 0)
		close(kvm->sys_fd);
	free(kvm->cpuid);
	kvm__init(kvm);
}
