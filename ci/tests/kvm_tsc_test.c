// SPDX-License-Identifier: GPL-2.0
/*
 * kvm_tsc_test - a new vCPU's TSC runs at the rate KVM_GET_TSC_KHZ says.
 *
 * Not pvsched's: a KVM bug that the test VMs meet. Built-in KVM samples
 * the host's tsc_khz when it initializes; on a host without a constant
 * TSC (the test VMs' qemu64 CPU) that is before the kernel refines its
 * TSC calibration. When the refined rate then differs by more than KVM's
 * tolerance (250 ppm), setting a new vCPU's rate fails without TSC
 * scaling (nested SVM has none), and before the series' fix the vCPU was
 * left with a TSC multiplier of 0: its TSC stood still, and a guest's
 * TSC-deadline timer never fired. make check boots the main kernel once
 * with tsc_early_khz= 0.5% below the rate it refines, which makes that
 * happen on every boot; this test fails there without the fix.
 *
 * The guest is real-mode code, "1: rdtsc; out 0x10, al; jmp 1b": each
 * KVM_RUN returns the TSC the guest read in EDX:EAX, which the hardware
 * (here, L0 QEMU) gives it; KVM's own view of that TSC, which its timers
 * go by, is IA32_TSC read with KVM_GET_MSRS. Both must advance at the
 * rate KVM_GET_TSC_KHZ reports: with the bug, only the first did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/kvm.h>

#include "kselftest_harness.h"
#include "pvsched_util.h"

#define SLEEP_MS	100
#define MSR_IA32_TSC	0x10
#define CLOCKSOURCES	"/sys/devices/system/clocksource/clocksource0/available_clocksource"
#define REFINE_SECONDS	10

/*
 * The kernel registers the "tsc" clocksource after it refined its TSC
 * calibration (or decided not to), about a second into the boot: the
 * rate KVM compares a new vCPU's with is final from then on.
 */
static bool tsc_refined(void)
{
	char buf[256], *tok, *save;
	double end = now() + REFINE_SECONDS;

	do {
		if (read_file(CLOCKSOURCES, buf, sizeof(buf)) > 0) {
			for (tok = strtok_r(buf, " \n", &save); tok;
			     tok = strtok_r(NULL, " \n", &save)) {
				if (!strcmp(tok, "tsc"))
					return true;
			}
		}
		usleep(100000);
	} while (now() < end);
	return false;
}

static const uint8_t guest_rdtsc[] = {
	0x0f, 0x31,		/* 1: rdtsc */
	0xe6, GUEST_IO_PORT,	/*    out GUEST_IO_PORT, al */
	0xeb, 0xfa,		/*    jmp 1b */
};

/* Run @vcpu to its next OUT; the TSC the guest read just before it. */
static uint64_t guest_rdtsc_at_out(struct __test_metadata *_metadata,
				   struct kvm_vcpu *vcpu)
{
	struct kvm_regs regs;

	ASSERT_TRUE(vcpu_run(vcpu));
	ASSERT_EQ(KVM_EXIT_IO, vcpu->run->exit_reason)
		TH_LOG("exit reason %s",
		       exit_reason_str(vcpu->run->exit_reason));
	vcpu_ioctl(vcpu, KVM_GET_REGS, &regs);
	return (regs.rdx & 0xffffffffULL) << 32 | (regs.rax & 0xffffffffULL);
}

/*
 * The guest's TSC as KVM computes it (KVM_GET_MSRS of IA32_TSC: the
 * host's TSC through the vCPU's multiplier and offset), which is what its
 * TSC-deadline timer and kvmclock go by.
 */
static uint64_t kvm_guest_tsc(struct kvm_vcpu *vcpu)
{
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry entry;
	} msrs = { .hdr.nmsrs = 1, .entry.index = MSR_IA32_TSC };

	TEST_ASSERT(__vcpu_ioctl(vcpu, KVM_GET_MSRS, &msrs) == 1,
		    "KVM_GET_MSRS(IA32_TSC)");
	return msrs.entry.data;
}

static double elapsed_ns(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e9 + (b->tv_nsec - a->tv_nsec);
}

TEST(guest_tsc_rate)
{
	uint64_t g0, g1, k0, k1;
	struct kvm_vcpu *vcpu;
	struct timespec a, b;
	double ns, gkhz, kkhz;
	struct kvm_vm *vm;
	int tsc_khz;

	if (kvm_missing[0])
		SKIP(return, "%s", kvm_missing);
	ASSERT_TRUE(tsc_refined())
		TH_LOG("no \"tsc\" clocksource after %d s (%s)",
		       REFINE_SECONDS, CLOCKSOURCES);
	vm = vm_create();
	memcpy((char *)vm->mem + GUEST_CODE_GPA, guest_rdtsc,
	       sizeof(guest_rdtsc));
	vcpu = vcpu_add(vm);
	tsc_khz = __vcpu_ioctl(vcpu, KVM_GET_TSC_KHZ, NULL);
	ASSERT_LT(0, tsc_khz)
		TH_LOG("KVM_GET_TSC_KHZ: %s", strerror(errno));

	g0 = guest_rdtsc_at_out(_metadata, vcpu);
	k0 = kvm_guest_tsc(vcpu);
	clock_gettime(CLOCK_MONOTONIC, &a);
	usleep(SLEEP_MS * 1000);
	g1 = guest_rdtsc_at_out(_metadata, vcpu);
	k1 = kvm_guest_tsc(vcpu);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = elapsed_ns(&a, &b);
	gkhz = (double)(g1 - g0) / ns * 1e6;
	kkhz = (double)(k1 - k0) / ns * 1e6;
	diag("over %.1f ms: RDTSC in the guest %.0f kHz, KVM's IA32_TSC %.0f kHz (%llu -> %llu), KVM_GET_TSC_KHZ %d",
	     ns / 1e6, gkhz, kkhz, (unsigned long long)k0,
	     (unsigned long long)k1, tsc_khz);
	/* Loose: the KVM_RUN's own time under TCG counts in @ns too. */
	EXPECT_TRUE(gkhz > tsc_khz * 0.5 && gkhz < tsc_khz * 1.5)
		TH_LOG("RDTSC in the guest runs at %d kHz within 50%%", tsc_khz);
	EXPECT_TRUE(kkhz > tsc_khz * 0.5 && kkhz < tsc_khz * 1.5)
		TH_LOG("KVM's view of the guest's TSC runs at %d kHz within 50%%",
		       tsc_khz);
	vm_close(vm);
}

int main(int argc, char **argv)
{
	kvm_init();
	return test_harness_run(argc, argv);
}
