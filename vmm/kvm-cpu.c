// SPDX-License-Identifier: GPL-2.0
/*
 * vCPUs: one thread each, entered directly in 64-bit mode, with every exit
 * that reaches userspace handled here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kvm-cpu.h"
#include "linux.h"
#include "pci.h"
#include "util.h"
#include "x86.h"

#define vcpu_err(cpu, fmt, ...) do {				\
	kvm_cpu__before_msg(cpu);					\
	pr_err("vcpu%u: " fmt, (cpu)->id, ##__VA_ARGS__);		\
} while (0)

/* A Linux guest's console output so far first, see struct kvm. */
static void kvm_cpu__before_msg(const struct kvm_cpu *cpu)
{
	if (cpu->kvm && cpu->kvm->before_msg)
		cpu->kvm->before_msg(cpu->kvm->msg_opaque);
}

/* See kvm-ioctl.h: one line for a vCPU's failed ioctl, and -errno. */
int kvm_cpu__ioctl_error(const struct kvm_cpu *cpu, const char *name)
{
	int err = errno;

	vcpu_err(cpu, "%s: %s", name, strerror(err));
	errno = err;
	return -err;
}

int kvm_cpu__init(struct kvm_cpu *cpu, struct kvm *kvm, unsigned int id)
{
	int err;

	cpu->kvm = kvm;
	cpu->id = id;
	cpu->run = MAP_FAILED;
	/* A VM ioctl, but the message names the vCPU. */
	cpu->fd = __kvm_vm_ioctl(kvm, KVM_CREATE_VCPU, id);
	if (cpu->fd < 0)
		return kvm_cpu_ioctl_error(cpu, KVM_CREATE_VCPU);
	cpu->run = mmap(NULL, kvm->run_size, PROT_READ | PROT_WRITE,
			MAP_SHARED, cpu->fd, 0);
	if (cpu->run == MAP_FAILED) {
		err = errno;
		vcpu_err(cpu, "mmap kvm_run: %s", strerror(err));
		return -err;
	}
	return 0;
}

/*
 * Register the vCPU's pvsched area at @gpa (KVM_SET_PVSCHED_AREA). KVM
 * writes its version and zeroes its host fields. On failure: one line
 * with the errno, and the negative errno.
 */
int kvm_cpu__set_pvsched_area(struct kvm_cpu *cpu, __u64 gpa)
{
	struct kvm_pvsched_area area = { .gpa = gpa, .flags = 0 };
	int err;

	/* Raw: the message has the GPA and the errno's name. */
	if (__kvm_cpu_ioctl(cpu, KVM_SET_PVSCHED_AREA, &area)) {
		err = errno;
		vcpu_err(cpu, "KVM_SET_PVSCHED_AREA at GPA %#llx: %s (%s)",
			 (unsigned long long)gpa, strerror(err),
			 errno_name(err));
		return -err;
	}
	cpu->area_gpa = gpa;
	return 0;
}

/* KVM took the guest's registration of @gpa (0: none): note it. */
static void kvm_cpu__guest_area_taken(struct kvm_cpu *cpu, __u64 gpa)
{
	/* The main thread samples the area meanwhile. */
	__atomic_store_n(&cpu->area_gpa, gpa, __ATOMIC_RELEASE);
	if (gpa)
		cpu->area_registrations++;
	else
		cpu->area_unregistrations++;
}

/*
 * MSR_KVM_PVSCHED: the guest wrote @val (the area's GPA and version, 0:
 * unregister), which exited to us (kvm__filter_pvsched_msr()); make the
 * write with KVM_SET_MSRS, on the vCPU's own thread: a vCPU ioctl from
 * any other thread would wait for the vCPU's mutex, held for as long as
 * it sits in KVM_RUN. KVM refuses what it would have refused the guest:
 * -EINVAL, nothing printed, the guest gets #GP. A failed ioctl: one line,
 * -errno. A failure keeps what the vCPU had, in KVM and in the report.
 */
int kvm_cpu__set_guest_pvsched_msr(struct kvm_cpu *cpu, __u64 val)
{
	struct {
		__u32 nmsrs;		/* struct kvm_msrs, with one entry */
		__u32 pad;
		struct kvm_msr_entry entry;
	} msrs = {
		.nmsrs = 1,
		.entry = { .index = MSR_KVM_PVSCHED, .data = val },
	};
	int ret;

	/* Raw: the value is the number of MSRs KVM took. */
	ret = __kvm_cpu_ioctl(cpu, KVM_SET_MSRS, &msrs);
	if (ret < 0)
		return kvm_cpu_ioctl_error(cpu, KVM_SET_MSRS);
	if (ret != 1)
		return -EINVAL;
	kvm_cpu__guest_area_taken(cpu, val & ~KVM_PVSCHED_VERSION_MASK);
	return 0;
}

/*
 * The vCPU's TSC frequency (KVM_GET_TSC_KHZ, KVM_CAP_GET_TSC_KHZ). KVM
 * returns it as the ioctl's value; 0 means that it does not know it. On
 * failure: one line, and the negative errno.
 */
int kvm_cpu__get_tsc_khz(struct kvm_cpu *cpu, unsigned long long *khz)
{
	/* Raw: the value is the answer, the message has the errno's name. */
	int ret = __kvm_cpu_ioctl(cpu, KVM_GET_TSC_KHZ, 0);
	int err = errno;

	if (ret < 0) {
		vcpu_err(cpu, "KVM_GET_TSC_KHZ: %s (%s)", strerror(err),
			 errno_name(err));
		return -err;
	}
	if (!ret) {
		vcpu_err(cpu, "KVM_GET_TSC_KHZ: 0, KVM does not know the TSC frequency");
		return -EIO;
	}
	*khz = ret;
	return 0;
}

/*
 * From the main thread, while a Linux guest runs: what the guest asks in
 * the area the vCPU has registered now, if any. Read only, each field
 * once; the guest writes them whenever it likes.
 */
void kvm_cpu__sample_guest_fields(struct kvm_cpu *cpu)
{
	__u64 gpa = __atomic_load_n(&cpu->area_gpa, __ATOMIC_ACQUIRE);
	struct pvsched_vcpu_area *a, g;

	if (!gpa)
		return;
	a = kvm__gpa_to_hva(cpu->kvm, gpa, sizeof(*a));
	if (!a)
		return;
	cpu->guest_seen.samples++;
	/* Flags and priority as the guest wrote them, in one load. */
	g.guest_word = __atomic_load_n(&a->guest_word, __ATOMIC_RELAXED);
	cpu->guest_seen.flags |= g.guest_flags;
	if (g.guest_prio > cpu->guest_seen.prio_max)
		cpu->guest_seen.prio_max = g.guest_prio;
}

/*
 * After the run, with the vCPU thread joined: copy the area as the driver
 * left it. Each field is read once; the driver may still write them (a
 * VM destruction or driver change ends a boost).
 */
void kvm_cpu__read_pvsched_area(struct kvm_cpu *cpu)
{
	struct pvsched_vcpu_area *a, *dst = &cpu->area;

	memset(dst, 0, sizeof(*dst));
	if (!cpu->area_gpa)
		return;
	a = kvm__gpa_to_hva(cpu->kvm, cpu->area_gpa, sizeof(*a));
	if (!a)
		return;
	dst->version = __atomic_load_n(&a->version, __ATOMIC_ACQUIRE);
	dst->host_flags = __atomic_load_n(&a->host_flags, __ATOMIC_RELAXED);
	dst->guest_flags = __atomic_load_n(&a->guest_flags, __ATOMIC_RELAXED);
	dst->guest_prio = __atomic_load_n(&a->guest_prio, __ATOMIC_RELAXED);
	dst->boosted_ns = __atomic_load_n(&a->boosted_ns, __ATOMIC_RELAXED);
	dst->boosts = __atomic_load_n(&a->boosts, __ATOMIC_RELAXED);
	dst->throttles = __atomic_load_n(&a->throttles, __ATOMIC_RELAXED);
	dst->unboosts = __atomic_load_n(&a->unboosts, __ATOMIC_RELAXED);
	dst->wake_req = __atomic_load_n(&a->wake_req, __ATOMIC_RELAXED);
}

/*
 * KVM's supported CPUID, with this vCPU's APIC ID, and the TSC-deadline
 * timer if the VMM wants it (see kvm__has_tsc_deadline()). A Linux guest
 * also learns that it runs on a hypervisor, so that it looks for KVM's
 * leaves (kvmclock, the PV features).
 */
static int kvm_cpu__setup_cpuid(struct kvm_cpu *cpu)
{
	struct kvm_cpuid2 *src = cpu->kvm->cpuid, *cpuid;
	size_t size = sizeof(*src) + src->nent * sizeof(src->entries[0]);
	struct kvm_cpuid_entry2 *e;
	unsigned int i;
	int ret;

	cpuid = malloc(size);
	if (!cpuid)
		return -ENOMEM;
	memcpy(cpuid, src, size);
	for (i = 0; i < cpuid->nent; i++) {
		e = &cpuid->entries[i];
		if (e->function == CPUID_LEAF_FEATURES)
			e->ebx = (e->ebx & 0x00ffffff) |
				 cpu->id << CPUID_APIC_ID_SHIFT;
		if (e->function == CPUID_LEAF_FEATURES &&
		    cpu->kvm->tsc_deadline)
			e->ecx |= CPUID_1_ECX_TSC_DEADLINE;
		if (e->function == CPUID_LEAF_FEATURES &&
		    cpu->kvm->linux_guest)
			e->ecx |= CPUID_1_ECX_HYPERVISOR;
		if (e->function == 0xb || e->function == 0x1f)
			e->edx = cpu->id;	/* x2APIC ID */
		/* The guest registers through KVM only if minivmm sees it. */
		if (e->function == KVM_CPUID_FEATURES_LEAF &&
		    !cpu->kvm->pvsched_msr)
			e->eax &= ~(1U << KVM_FEATURE_PVSCHED);
	}
	ret = kvm_cpu_ioctl(cpu, KVM_SET_CPUID2, cpuid);
	free(cpuid);
	return ret;
}

/*
 * Long mode, paging on, flat segments from our GDT: the payloads' selectors,
 * or __BOOT_CS and __BOOT_DS of the boot protocol's 64-bit entry.
 */
static int kvm_cpu__setup_sregs(struct kvm_cpu *cpu)
{
	bool linux_guest = cpu->kvm->linux_guest;
	struct kvm_segment code = {
		.base = 0, .limit = 0xffffffff,
		.selector = linux_guest ? LINUX_BOOT_CS : MINIVMM_CODE_SEL,
		.type = SEG_TYPE_CODE,
		.present = 1, .dpl = 0, .db = 0, .s = 1, .l = 1, .g = 1,
	};
	struct kvm_segment data = code;
	struct kvm_sregs sregs;
	int ret;

	data.selector = linux_guest ? LINUX_BOOT_DS : MINIVMM_DATA_SEL;
	data.type = SEG_TYPE_DATA;
	data.db = 1;
	data.l = 0;

	ret = kvm_cpu_ioctl(cpu, KVM_GET_SREGS, &sregs);
	if (ret)
		return ret;
	sregs.cs = code;
	sregs.ds = sregs.es = sregs.fs = sregs.gs = sregs.ss = data;
	sregs.gdt.base = GUEST_GDT_GPA;
	sregs.gdt.limit = (linux_guest ? LINUX_GDT_ENTRIES : 3) * 8 - 1;
	sregs.cr0 = X86_CR0_PE | X86_CR0_MP | X86_CR0_ET | X86_CR0_NE |
		    X86_CR0_WP | X86_CR0_PG;
	sregs.cr3 = GUEST_PML4_GPA;
	sregs.cr4 = X86_CR4_PAE;
	sregs.efer = X86_EFER_LME | X86_EFER_LMA;
	return kvm_cpu_ioctl(cpu, KVM_SET_SREGS, &sregs);
}

/*
 * Payloads: entry point, own stack (vCPU 0 at the top), RDI = RSI = vCPU
 * index. Linux: startup_64, RSI = the zero page, a boot stack below it;
 * interrupts off in both.
 */
static int kvm_cpu__setup_regs(struct kvm_cpu *cpu)
{
	struct kvm_regs regs;

	memset(&regs, 0, sizeof(regs));
	if (cpu->kvm->linux_guest) {
		regs.rip = cpu->kvm->linux_entry;
		regs.rsp = LINUX_BOOT_STACK_GPA;
		regs.rsi = cpu->kvm->linux_boot_params;
	} else {
		regs.rip = MINIVMM_LOAD_GPA;
		regs.rsp = GUEST_STACK_TOP - cpu->id * GUEST_STACK_SIZE;
		regs.rdi = cpu->id;
		regs.rsi = cpu->id;
	}
	regs.rflags = X86_RFLAGS_FIXED;
	return kvm_cpu_ioctl(cpu, KVM_SET_REGS, &regs);
}

/*
 * With the in-kernel irqchip only the BSP starts runnable; the others
 * wait for INIT/SIPI. Nobody sends those to a payload: make them all
 * runnable. A Linux guest starts its APs itself (INIT, SIPI to its
 * real-mode trampoline): they stay KVM_MP_STATE_UNINITIALIZED.
 */
static int kvm_cpu__setup_mp_state(struct kvm_cpu *cpu)
{
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };

	if (cpu->kvm->linux_guest && cpu->id)
		mp.mp_state = KVM_MP_STATE_UNINITIALIZED;
	return kvm_cpu_ioctl(cpu, KVM_SET_MP_STATE, &mp);
}

/*
 * Done from the vCPU thread itself, so that only it touches the vCPU. A
 * Linux guest's APs get their CPUID only: INIT and SIPI set the rest.
 */
static int kvm_cpu__setup(struct kvm_cpu *cpu)
{
	bool ap = cpu->kvm->linux_guest && cpu->id;
	int ret;

	ret = kvm_cpu__setup_cpuid(cpu);
	if (!ret && !ap)
		ret = kvm_cpu__setup_sregs(cpu);
	if (!ret && !ap)
		ret = kvm_cpu__setup_regs(cpu);
	if (!ret)
		ret = kvm_cpu__setup_mp_state(cpu);
	return ret;
}

/* The vCPU's registers on stderr, for a guest that went wrong. */
void kvm_cpu__dump(struct kvm_cpu *cpu)
{
	struct kvm_sregs s;
	struct kvm_regs r;

	if (__kvm_cpu_ioctl(cpu, KVM_GET_REGS, &r) ||
	    __kvm_cpu_ioctl(cpu, KVM_GET_SREGS, &s)) {
		vcpu_err(cpu, "cannot read registers: %s", strerror(errno));
		return;
	}
	fprintf(stderr,
		"vcpu%u: rip %016llx rsp %016llx rflags %016llx\n"
		"  rax %016llx rbx %016llx rcx %016llx rdx %016llx\n"
		"  rsi %016llx rdi %016llx rbp %016llx r12 %016llx\n"
		"  r13 %016llx r14 %016llx r15 %016llx\n"
		"  cr0 %016llx cr2 %016llx cr3 %016llx cr4 %016llx\n"
		"  efer %016llx cs %04x ss %04x idt %016llx/%04x\n",
		cpu->id, r.rip, r.rsp, r.rflags, r.rax, r.rbx, r.rcx, r.rdx,
		r.rsi, r.rdi, r.rbp, r.r12, r.r13, r.r14, r.r15,
		s.cr0, s.cr2, s.cr3, s.cr4, s.efer, s.cs.selector,
		s.ss.selector, s.idt.base, s.idt.limit);
}

static const char *const exception_names[] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "09",
	"#TS", "#NP", "#SS", "#GP", "#PF", "15", "#MF", "#AC", "#MC", "#XM",
	"#VE", "#CP",
};

static enum kvm_cpu_state kvm_cpu__guest_fail(struct kvm_cpu *cpu,
					      unsigned long long code)
{
	unsigned long long vec = code - FAIL_EXCEPTION;

	cpu->fail_code = code;
	if (code == FAIL_BAD_PARAMS)
		vcpu_err(cpu, "guest FAIL: bad params block");
	else if (code == FAIL_BAD_AREA)
		vcpu_err(cpu, "guest FAIL: pvsched area at %#llx is not version %d",
			 (unsigned long long)cpu->area_gpa,
			 PVSCHED_AREA_VERSION);
	else if (code == FAIL_NO_TSC_DEADLINE)
		vcpu_err(cpu, "guest FAIL: no TSC-deadline timer (CPUID.1:ECX bit 24)");
	else if (code == FAIL_UNEXPECTED_IRQ)
		vcpu_err(cpu, "guest FAIL: interrupt on an unused vector");
	else if (code >= FAIL_EXCEPTION && vec < ARRAY_SIZE(exception_names))
		vcpu_err(cpu, "guest FAIL: exception %s", exception_names[vec]);
	else
		vcpu_err(cpu, "guest FAIL: code %#llx", code);
	return KVM_CPU_GUEST_FAIL;
}

/* The guest wrote the address of a struct minivmm_ucall to the port. */
static enum kvm_cpu_state kvm_cpu__ucall(struct kvm_cpu *cpu, __u32 gpa)
{
	struct minivmm_ucall uc, *p;

	p = kvm__gpa_to_hva(cpu->kvm, gpa, sizeof(uc));
	if (!p) {
		vcpu_err(cpu, "ucall block at bad GPA %#x", gpa);
		return KVM_CPU_ERROR;
	}
	memcpy(&uc, p, sizeof(uc));
	switch (uc.cmd) {
	case UCALL_PROGRESS:
		if (uc.arg < cpu->progress) {
			vcpu_err(cpu, "PROGRESS went back from %llu to %llu",
				 cpu->progress, (unsigned long long)uc.arg);
			return KVM_CPU_ERROR;
		}
		cpu->progress = uc.arg;
		return KVM_CPU_RUNNING;
	case UCALL_DONE:
		cpu->done = uc.arg;
		return KVM_CPU_DONE;
	case UCALL_DUP_IRQS:
		cpu->dup_irqs += uc.arg;
		return KVM_CPU_RUNNING;
	case UCALL_SHADOW_IRQS:
		cpu->shadow_irqs += uc.arg;
		return KVM_CPU_RUNNING;
	case UCALL_AREA:
		/* The guest found its area where the VMM registered it. */
		if (uc.arg != cpu->area_gpa) {
			vcpu_err(cpu, "guest uses the pvsched area at %#llx, the VMM registered %#llx",
				 (unsigned long long)uc.arg,
				 (unsigned long long)cpu->area_gpa);
			return KVM_CPU_ERROR;
		}
		return KVM_CPU_RUNNING;
	case UCALL_BOOST_SEEN:
		cpu->boost_seen += uc.arg;
		return KVM_CPU_RUNNING;
	case UCALL_FAIL:
		return kvm_cpu__guest_fail(cpu, uc.arg);
	}
	vcpu_err(cpu, "unknown ucall command %llu", (unsigned long long)uc.cmd);
	return KVM_CPU_ERROR;
}

/* The io payload writes the low byte of its iteration count. */
static enum kvm_cpu_state kvm_cpu__work(struct kvm_cpu *cpu, __u8 val)
{
	if (val != (__u8)cpu->work_writes) {
		vcpu_err(cpu, "work port write %#x, expected %#x", val,
			 (__u8)cpu->work_writes);
		return KVM_CPU_ERROR;
	}
	cpu->work_writes++;
	return KVM_CPU_RUNNING;
}

static enum kvm_cpu_state kvm_cpu__handle_io(struct kvm_cpu *cpu)
{
	struct kvm_run *run = cpu->run;
	__u8 *data = (__u8 *)run + run->io.data_offset;
	bool out = run->io.direction == KVM_EXIT_IO_OUT;
	__u32 val;

	/* A Linux guest's devices; the payloads' ports are not there. */
	if (cpu->kvm->io_bus)
		return ioport__emulate(cpu->kvm->io_bus, cpu->id, run->io.port,
				       data, run->io.size, run->io.count,
				       out) == IOPORT_GUEST_EXIT ?
		       KVM_CPU_EXITED : KVM_CPU_RUNNING;
	if (out && run->io.count == 1) {
		if (run->io.port == MINIVMM_UCALL_PORT && run->io.size == 4) {
			memcpy(&val, data, sizeof(val));
			return kvm_cpu__ucall(cpu, val);
		}
		if (run->io.port == MINIVMM_WORK_PORT && run->io.size == 1)
			return kvm_cpu__work(cpu, *data);
	}
	vcpu_err(cpu, "unexpected port I/O: %s port %#x size %u count %u",
		 out ? "out" : "in", run->io.port, run->io.size,
		 run->io.count);
	return KVM_CPU_ERROR;
}

static const char *const internal_suberrors[] = {
	[KVM_INTERNAL_ERROR_EMULATION] = "instruction emulation failed",
	[KVM_INTERNAL_ERROR_SIMUL_EX] = "exception while delivering one",
	[KVM_INTERNAL_ERROR_DELIVERY_EV] = "exit during event delivery",
	[KVM_INTERNAL_ERROR_UNEXPECTED_EXIT_REASON] = "unexpected exit reason",
};

static enum kvm_cpu_state kvm_cpu__internal_error(struct kvm_cpu *cpu)
{
	__u32 sub = cpu->run->internal.suberror;
	__u32 i, n = cpu->run->internal.ndata;
	const char *what = NULL;

	if (sub < ARRAY_SIZE(internal_suberrors))
		what = internal_suberrors[sub];
	vcpu_err(cpu, "KVM_EXIT_INTERNAL_ERROR: suberror %u (%s), %u data",
		 sub, what ? what : "unknown", n);
	for (i = 0; i < n && i < ARRAY_SIZE(cpu->run->internal.data); i++)
		fprintf(stderr, "  data[%u] = %#llx\n", i,
			(unsigned long long)cpu->run->internal.data[i]);
	kvm_cpu__dump(cpu);
	return KVM_CPU_ERROR;
}

/*
 * A Linux guest's MMIO outside RAM and KVM's LAPIC and IOAPIC: a PCI
 * BAR's, handled here on this vCPU's thread (minivmm has no function
 * with a BAR now); else no device there (no HPET without ACPI): reads
 * give all ones, writes are dropped, as on a PC's empty bus.
 */
static enum kvm_cpu_state kvm_cpu__linux_mmio(struct kvm_cpu *cpu)
{
	struct kvm_run *run = cpu->run;
	unsigned int len = run->mmio.len;

	if (len > sizeof(run->mmio.data))
		len = sizeof(run->mmio.data);
	if (cpu->kvm->pci && pci__mmio(cpu->kvm->pci, cpu->id,
				       run->mmio.phys_addr, run->mmio.data,
				       len, run->mmio.is_write))
		return KVM_CPU_RUNNING;
	if (!run->mmio.is_write)
		memset(run->mmio.data, 0xff, sizeof(run->mmio.data));
	return KVM_CPU_RUNNING;
}

/*
 * A Linux guest's WRMSR that exited: MSR_KVM_PVSCHED, the only one the
 * filter sends us (kvm__filter_pvsched_msr()). A refused write is the
 * guest's #GP (msr.error), as KVM would have raised it; with
 * --refuse-areas every registration is, before KVM sees it.
 */
static enum kvm_cpu_state kvm_cpu__linux_wrmsr(struct kvm_cpu *cpu)
{
	struct kvm_run *run = cpu->run;

	if (run->msr.index != MSR_KVM_PVSCHED ||
	    run->msr.reason != KVM_MSR_EXIT_REASON_FILTER) {
		vcpu_err(cpu, "WRMSR %#x exited (reason %u): not one minivmm filters",
			 run->msr.index, run->msr.reason);
		return KVM_CPU_ERROR;
	}
	if (cpu->kvm->refuse_areas && run->msr.data) {
		cpu->area_refusals++;
		run->msr.error = 1;
		return KVM_CPU_RUNNING;
	}
	run->msr.error = kvm_cpu__set_guest_pvsched_msr(cpu, run->msr.data) ?
			 1 : 0;
	return KVM_CPU_RUNNING;
}

/*
 * A Linux guest that resets (triple fault) or asks KVM for a system event
 * ends the run, as a reboot would.
 */
static enum kvm_cpu_state kvm_cpu__linux_end(struct kvm_cpu *cpu,
					     enum guest_exit_reason reason)
{
	if (guest_exit__set(&cpu->kvm->exit, reason, 0, cpu->id) &&
	    reason == GUEST_EXIT_SHUTDOWN) {
		vcpu_err(cpu, "KVM_EXIT_SHUTDOWN (triple fault): the guest reset, the run ends");
		kvm_cpu__dump(cpu);
	}
	return KVM_CPU_EXITED;
}

/*
 * One exit that reached userspace, as KVM left it in cpu->run: the I/O
 * dispatch of a guest's port, MMIO and MSR accesses (also what the fuzz
 * targets of fuzz/ drive directly). The vCPU's state after it.
 */
enum kvm_cpu_state kvm_cpu__handle_exit(struct kvm_cpu *cpu)
{
	struct kvm_run *run = cpu->run;
	bool linux_guest = cpu->kvm->linux_guest;

	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		cpu->exits.io++;
		return kvm_cpu__handle_io(cpu);
	case KVM_EXIT_MMIO:
		cpu->exits.mmio++;
		if (linux_guest)
			return kvm_cpu__linux_mmio(cpu);
		vcpu_err(cpu, "MMIO %s at %#llx: no device there",
			 run->mmio.is_write ? "write" : "read",
			 (unsigned long long)run->mmio.phys_addr);
		return KVM_CPU_ERROR;
	case KVM_EXIT_HLT:
		/* Only without the irqchip: nothing could ever wake it. */
		cpu->exits.hlt++;
		vcpu_err(cpu, "guest halted before DONE, with no irqchip");
		return KVM_CPU_ERROR;
	}

	cpu->exits.other++;
	if (linux_guest && run->exit_reason == KVM_EXIT_X86_WRMSR &&
	    cpu->kvm->pvsched_msr)
		return kvm_cpu__linux_wrmsr(cpu);
	if (linux_guest && run->exit_reason == KVM_EXIT_SHUTDOWN)
		return kvm_cpu__linux_end(cpu, GUEST_EXIT_SHUTDOWN);
	if (linux_guest && run->exit_reason == KVM_EXIT_SYSTEM_EVENT)
		return kvm_cpu__linux_end(cpu, GUEST_EXIT_SYSTEM_EVENT);
	switch (run->exit_reason) {
	case KVM_EXIT_FAIL_ENTRY:
		vcpu_err(cpu, "KVM_EXIT_FAIL_ENTRY: reason %#llx on cpu %u",
			 (unsigned long long)
			 run->fail_entry.hardware_entry_failure_reason,
			 run->fail_entry.cpu);
		kvm_cpu__dump(cpu);
		return KVM_CPU_ERROR;
	case KVM_EXIT_INTERNAL_ERROR:
		return kvm_cpu__internal_error(cpu);
	case KVM_EXIT_SHUTDOWN:
		vcpu_err(cpu, "KVM_EXIT_SHUTDOWN (triple fault)");
		kvm_cpu__dump(cpu);
		return KVM_CPU_ERROR;
	}
	vcpu_err(cpu, "unexpected exit reason %u", run->exit_reason);
	kvm_cpu__dump(cpu);
	return KVM_CPU_ERROR;
}

static enum kvm_cpu_state kvm_cpu__loop(struct kvm_cpu *cpu)
{
	enum kvm_cpu_state state = KVM_CPU_RUNNING;

	while (state == KVM_CPU_RUNNING) {
		if (__atomic_load_n(cpu->stop, __ATOMIC_SEQ_CST))
			return KVM_CPU_STOPPED;
		/* Raw: the hot path, and EINTR is no error. */
		if (__kvm_cpu_ioctl(cpu, KVM_RUN, 0) == 0) {
			state = kvm_cpu__handle_exit(cpu);
			continue;
		}
		if (errno == EINTR || errno == EAGAIN) {
			cpu->exits.other++;	/* KVM_EXIT_INTR: a kick */
			continue;
		}
		kvm_cpu_ioctl_error(cpu, KVM_RUN);
		return KVM_CPU_ERROR;
	}
	return state;
}

static unsigned long long kvm_cpu__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void kvm_cpu__gate_init(struct kvm_cpu_gate *gate)
{
	pthread_mutex_init(&gate->lock, NULL);
	pthread_cond_init(&gate->cond, NULL);
	gate->arrived = 0;
	gate->open = false;
}

/* The main thread: until @n vCPU threads are at the gate. */
void kvm_cpu__gate_wait(struct kvm_cpu_gate *gate, unsigned int n)
{
	pthread_mutex_lock(&gate->lock);
	while (gate->arrived < n)
		pthread_cond_wait(&gate->cond, &gate->lock);
	pthread_mutex_unlock(&gate->lock);
}

void kvm_cpu__gate_open(struct kvm_cpu_gate *gate)
{
	pthread_mutex_lock(&gate->lock);
	gate->open = true;
	pthread_cond_broadcast(&gate->cond);
	pthread_mutex_unlock(&gate->lock);
}

/* Once no thread uses it any more: joined, or never started. */
void kvm_cpu__gate_destroy(struct kvm_cpu_gate *gate)
{
	pthread_cond_destroy(&gate->cond);
	pthread_mutex_destroy(&gate->lock);
}

/* A vCPU thread: arrive, wait for the gate to open. */
static void kvm_cpu__gate_pass(struct kvm_cpu_gate *gate)
{
	pthread_mutex_lock(&gate->lock);
	gate->arrived++;
	pthread_cond_broadcast(&gate->cond);
	while (!gate->open)
		pthread_cond_wait(&gate->cond, &gate->lock);
	pthread_mutex_unlock(&gate->lock);
}

/*
 * --vcpu-fifo: make the vCPU's thread SCHED_FIFO at @prio, as "chrt -f -p
 * PRIO TID" does. On failure: one line with the errno, and the negative
 * errno.
 */
int kvm_cpu__set_fifo(struct kvm_cpu *cpu, unsigned int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int err;

	if (!sched_setscheduler(cpu->tid, SCHED_FIFO, &sp))
		return 0;
	err = errno;
	pr_err("--vcpu-fifo=%u: vcpu%u (tid %d): sched_setscheduler(SCHED_FIFO, %u): %s (%s)%s",
	       prio, cpu->id, (int)cpu->tid, prio, strerror(err),
	       errno_name(err),
	       err == EPERM ? ": a real-time thread needs CAP_SYS_NICE or RLIMIT_RTPRIO" : "");
	return -err;
}

/*
 * The vCPU thread. SIGINT and SIGTERM are blocked (the main thread takes
 * them), KVM_CPU_KICK_SIGNAL is not: it interrupts KVM_RUN. The main thread
 * polls cpu->state, so it is only written once, at the end. The run
 * timestamps bracket the run loop only, not the setup; the main thread
 * reads them after pthread_join(). With a gate (--vcpu-fifo, a Linux
 * guest) it sets the vCPU up, then waits there, whether the setup
 * failed or not (the main thread waits for all); if the VMM wants all
 * vCPUs out when it opens, it stops without running the vCPU.
 */
void *kvm_cpu__thread(void *arg)
{
	struct kvm_cpu *cpu = arg;
	enum kvm_cpu_state state;
	int err;

	cpu->tid = gettid();
	err = kvm_cpu__setup(cpu);
	if (cpu->gate)
		kvm_cpu__gate_pass(cpu->gate);
	if (err) {
		state = KVM_CPU_ERROR;
	} else if (cpu->gate && __atomic_load_n(cpu->stop, __ATOMIC_SEQ_CST)) {
		state = KVM_CPU_STOPPED;
	} else {
		cpu->run_start_ns = kvm_cpu__now_ns();
		state = kvm_cpu__loop(cpu);
		cpu->run_end_ns = kvm_cpu__now_ns();
	}
	__atomic_store_n(&cpu->state, state, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(cpu->nr_running, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Get the thread out of KVM_RUN; it then sees *cpu->stop and returns. */
void kvm_cpu__kick(struct kvm_cpu *cpu)
{
	if (cpu->run == MAP_FAILED || !cpu->started)
		return;
	__atomic_store_n(&cpu->run->immediate_exit, 1, __ATOMIC_SEQ_CST);
	pthread_kill(cpu->thread, KVM_CPU_KICK_SIGNAL);
}

/*
 * After the run: did the guest really do the work? 0 if it did, -EIO if
 * not: a line says why, unless the vCPU never reached DONE (its failure
 * was reported then).
 */
int kvm_cpu__check(const struct kvm_cpu *cpu, unsigned long long iterations,
		   bool work_port)
{
	if (cpu->state != KVM_CPU_DONE)
		return -EIO;
	if (iterations && cpu->done < iterations) {
		vcpu_err(cpu, "DONE after %llu of %llu iterations", cpu->done,
			 iterations);
		return -EIO;
	}
	if (cpu->progress > cpu->done) {
		vcpu_err(cpu, "DONE(%llu) below PROGRESS(%llu)", cpu->done,
			 cpu->progress);
		return -EIO;
	}
	if (work_port && cpu->work_writes != cpu->done) {
		vcpu_err(cpu, "DONE(%llu) but %llu work port writes", cpu->done,
			 cpu->work_writes);
		return -EIO;
	}
	return 0;
}

/* Nanoseconds from the first KVM_RUN to the end of the loop; 0 if none. */
unsigned long long kvm_cpu__run_ns(const struct kvm_cpu *cpu)
{
	if (!cpu->run_start_ns || cpu->run_end_ns < cpu->run_start_ns)
		return 0;
	return cpu->run_end_ns - cpu->run_start_ns;
}

const char *kvm_cpu__state_name(enum kvm_cpu_state state)
{
	switch (state) {
	case KVM_CPU_RUNNING:
		return "running";
	case KVM_CPU_DONE:
		return "done";
	case KVM_CPU_GUEST_FAIL:
		return "guest-fail";
	case KVM_CPU_ERROR:
		return "error";
	case KVM_CPU_STOPPED:
		return "stopped";
	case KVM_CPU_EXITED:
		return "exited";
	}
	return "?";
}

void kvm_cpu__exit(struct kvm_cpu *cpu)
{
	if (cpu->run != MAP_FAILED && cpu->run)
		munmap(cpu->run, cpu->kvm->run_size);
	if (cpu->fd >= 0)
		close(cpu->fd);
	cpu->run = MAP_FAILED;
	cpu->fd = -1;
}
