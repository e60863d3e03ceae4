// SPDX-License-Identifier: GPL-2.0
/*
 * pvsched_test - regression suite of the pvsched KVM ABI, run inside the
 * test VM (ci/vm-run /tests/pvsched_test), in the style of the KVM
 * selftests.
 *
 * The ioctls' own semantics (KVM_CAP_PVSCHED, KVM_GET_PVSCHED_OPS,
 * KVM_REPLACE_PVSCHED_OPS and KVM_SET_PVSCHED_AREA: names, errnos, bad
 * pointers, KVM_RUN from other threads, REPLACE in guest mode and from
 * two threads at once, VM destruction, a driver that refuses a task, and
 * the registrations and VMENTER/VMEXIT pairs that pvsched_count sees, also
 * for KVM_RUN calls that end before the guest is entered) are the in-tree
 * KVM selftest's,
 * tools/testing/selftests/kvm/x86_64/pvsched_test.c, which the suite runs
 * first. This program checks what that test cannot: the per-VM debugfs
 * file pvsched_vcpu_ops, the sysctl kernel.pvsched_available_drivers, the
 * callbacks that the module driver pvsched_count and the BPF driver
 * bpf_pvsched_count receive under races, module unload and BPF map
 * deletion (drivers kept alive while a VM uses them), what a driver reads
 * of the shared area (pvsched_test_drv), and the bounded boost that the
 * module driver pvsched_boost and the BPF driver bpf_pvsched_boost ask for
 * through the vCPU's shared area (sysctls kernel.pvsched_boost_*), with
 * BPF negative controls: a driver without PVSCHED_OPS_BOOST never boosts,
 * and the verifier refuses programs that read the area without a NULL test
 * or write to it.
 *
 * The guest is six bytes of real-mode code, "1: out 0x10, al; inc al;
 * jmp 1b", so every KVM_RUN returns with KVM_EXIT_IO and the value written
 * tells whether the guest ran each iteration exactly once.
 *
 * Output is kselftest TAP, one line per check; a check whose prerequisite
 * is missing (no /dev/kvm, no pvsched_count.ko, no pvsched_boost.ko, no
 * pvsched-bpf) is reported as SKIP. The exit status is 0 iff no check
 * failed.
 *
 * Usage: pvsched_test [GROUP]...   (no GROUP: all of them; the others
 * are reported as SKIP so that the plan stays the same). Groups:
 * debugfs, sysctl, counts-module, counts-bpf, bpf-slots, vm-close,
 * module-pin, bpf-unload, race, race-hop, race-rmmod, race-bpf, many-vms,
 * guest-mode-replace, vcpu-create-race, count-bound, key-churn,
 * bpf-sleepable, driver-validation, intr-exact, static-key, area, boost,
 * boost-bpf, kernel-log.
 *
 * Needs root, debugfs at /sys/kernel/debug and bpffs at /sys/fs/bpf. It
 * loads and unloads pvsched_count, pvsched_boost and the BPF drivers, and
 * changes /dev/kvm's mode for a moment: run it only in the test VM. It
 * leaves pvsched_count loaded, pvsched_boost and the BPF drivers unloaded.
 *
 * A vCPU that does not come back from KVM_RUN for STUCK_SECONDS is kicked
 * out with a signal and reported as a failure, with its RIP: nested SVM
 * under multi-threaded QEMU TCG has been seen to corrupt the guest state
 * (L2 RIP = the L1 instruction after VMRUN) and livelock it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sched.h>
#include <regex.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/kvm.h>
#include <linux/types.h>

#include "../../kernel/bpf/pvsched_bpf_count.h"
#include "../../kernel/bpf/pvsched_bpf_noflag.h"

#include "pvsched_abi.h"

/* include/uapi/linux/pvsched.h: what the tests read and write of it. */
#define AREA_SIZE		64
#define AREA_VERSION_OFF	0
#define AREA_HOST_FLAGS_OFF	4
#define AREA_GUEST_PRIO_OFF	12

#define NAME_MAX_LEN		32	/* sizeof(ops_name), with the NUL */

#define NOP_DRV			"pvsched_nop"
#define COUNT_DRV		"pvsched_count"	/* also the module's name */
#define COUNT_KO		"/lib/modules/pvsched_count.ko"
#define SAMPLE_DRV		"bpf_pvsched_ops"
#define SLEEP_DRV		"bpf_pvsched_sleep"
#define UNKNOWN_DRV		"no_such_pvsched_driver"

#define SYSCTL_DRIVERS		"/proc/sys/kernel/pvsched_available_drivers"
#define DEBUGFS_KVM		"/sys/kernel/debug/kvm"
#define COUNT_STATS		"/sys/kernel/debug/pvsched/pvsched_count/stats"
#define COUNT_RESET		"/sys/kernel/debug/pvsched/pvsched_count/reset"
#define COUNT_SUMMARY		"/sys/kernel/debug/pvsched/pvsched_count/summary"
#define COUNT_RETIRED_MAX	128	/* pvsched_count's bound on retired tasks */
#define STRICT_DRV		"pvsched_test_strict"	/* pvsched_test_drv kind=strict */
#define STRICT_STATS		"/sys/kernel/debug/pvsched_test_strict"
#define TEST_DRV_KO		"/lib/modules/pvsched_test_drv.ko"
#define TEST_DRV_MOD		"pvsched_test_drv"

/* Guest: one memslot at GPA 0, real-mode code at GUEST_CODE_GPA. */
#define GUEST_MEM_SIZE		0x10000UL
#define GUEST_CODE_GPA		0x1000UL
#define GUEST_IO_PORT		0x10
#define GUEST_TSS_GPA		0xfffbd000UL	/* VMX real mode only */

static const uint8_t guest_code[] = {
	0xe6, GUEST_IO_PORT,	/* 1: out GUEST_IO_PORT, al */
	0xfe, 0xc0,		/*    inc al */
	0xeb, 0xfa,		/*    jmp 1b */
};

/* Race tests: cycles to aim for, and the wall-clock cap on each. */
#define RACE_CYCLES		3000
#define RACE_MAX_SECONDS	45
#define HOP_CYCLES		300
#define HOP_MAX_SECONDS	10
#define RMMOD_CYCLES		2000
#define RMMOD_MAX_SECONDS	12
#define BPF_RACE_CYCLES		40
#define BPF_RACE_MAX_SECONDS	8
/*
 * The least overlap that makes a race run count, about a third of what the
 * debug kernel (KASAN, lockdep, nohz_full) reaches under TCG in the time
 * caps above; the main kernel does 5 to 10 times more.
 */
#define RACE_MIN_CYCLES		12
/* Past its time cap, a race goes on this long at most to reach them. */
#define RACE_OVERTIME_SECONDS	60
#define RACE_MIN_RUNS		1000	/* KVM_RUNs while REPLACEs went on */
#define HOP_MIN_CYCLES		50
#define HOP_MIN_HOPS		20	/* runs on each thread while replacing */
#define RMMOD_MIN_UNLOADS	5
#define RMMOD_MIN_ASSIGNED	5	/* assigns that landed between unloads */
#define BPF_RACE_MIN_CYCLES	4
/*
 * A BPF load (libbpf, the verifier, struct_ops registration) takes 1-7 s
 * on the debug kernel, but one make check run saw two loads of about 35 s
 * each, which left 2 cycles in the 60 s above: race-bpf may go on this
 * long to reach its minimum.
 */
#define BPF_RACE_OVERTIME_SECONDS	180
#define BPF_RACE_MIN_ASSIGNED	4
#define NR_MANY_VMS		16

/* A vCPU without an exit to userspace for this long is kicked out. */
#define STUCK_SECONDS		15

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define __noreturn		__attribute__((noreturn))
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, val)	__atomic_store_n(&(x), (val), __ATOMIC_RELAXED)

/* ------------------------------------------------------------------ */
/* TAP output                                                         */
/* ------------------------------------------------------------------ */

static int tap_nr;		/* number of the last result printed */
static int tap_fails, tap_skips;
static bool tap_plan_broken;
static const char *group_name = "setup";
static int group_last;		/* last number the current group may use */

static __printf(1, 2) void diag(const char *fmt, ...)
{
	char buf[2048], *line, *save;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	flockfile(stdout);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		printf("# %s\n", line);
	funlockfile(stdout);
}

static void tap_result(bool pass, const char *skip_reason, const char *fmt,
		       va_list ap)
{
	char desc[512];

	vsnprintf(desc, sizeof(desc), fmt, ap);
	if (++tap_nr > group_last) {
		diag("BUG: group %s prints more results than it planned",
		     group_name);
		tap_plan_broken = true;
	}
	if (!pass)
		tap_fails++;
	if (skip_reason)
		tap_skips++;
	printf("%s %d %s: %s%s%s\n", pass ? "ok" : "not ok", tap_nr,
	       group_name, desc, skip_reason ? " # SKIP " : "",
	       skip_reason ? skip_reason : "");
	fflush(stdout);
}

/* Report one check; returns @pass. */
static __printf(2, 3) bool check(bool pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_result(pass, NULL, fmt, ap);
	va_end(ap);
	return pass;
}

static __printf(2, 3) void skip(const char *reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_result(true, reason, fmt, ap);
	va_end(ap);
}

/* Mark the rest of the current group skipped, or failed. */
static void group_skip_rest(const char *reason)
{
	int total = group_last - tap_nr;

	while (tap_nr < group_last)
		skip(reason, "check %d of %d not run", total - (group_last - tap_nr) + 1,
		     total);
}

static void group_fail_rest(const char *why)
{
	while (tap_nr < group_last)
		check(false, "not reached: %s", why);
}

/* "0" or "-EINVAL (Invalid argument)" for a 0/-errno result. */
static const char *err_str(int r)
{
	static __thread char bufs[4][64];
	static __thread int next;
	char *buf = bufs[next++ % 4];
	const char *name;

	if (r >= 0) {
		snprintf(buf, sizeof(bufs[0]), "%d", r);
		return buf;
	}
	name = strerrorname_np(-r);
	snprintf(buf, sizeof(bufs[0]), "-%s (%s)", name ? name : "?",
		 strerror(-r));
	return buf;
}

#define CHECK(cond, ...) ({						\
	bool __pass = (cond);						\
	if (!__pass)							\
		diag("%s:%d: false: %s", __FILE__, __LINE__, #cond);	\
	check(__pass, __VA_ARGS__);					\
})

#define CHECK_EQ(got, want, ...) ({					\
	long long __got = (got), __want = (want);			\
	bool __pass = __got == __want;					\
	if (!__pass)							\
		diag("%s:%d: %s is %lld, expected %lld",		\
		     __FILE__, __LINE__, #got, __got, __want);		\
	check(__pass, __VA_ARGS__);					\
})

/* @ret and @want are 0 or -errno. */
#define CHECK_RET(ret, want, ...) ({					\
	int __ret = (ret), __want = (want);				\
	bool __pass = __ret == __want;					\
	if (!__pass)							\
		diag("%s:%d: %s returned %s, expected %s", __FILE__,	\
		     __LINE__, #ret, err_str(__ret), err_str(__want));	\
	check(__pass, __VA_ARGS__);					\
})

/* Fatal errors of the test itself (setup, not the ABI under test). */
#define TEST_ASSERT(cond, fmt, ...) do {				\
	if (!(cond))							\
		test_assert_fail(__FILE__, __LINE__, #cond, errno,	\
				 fmt, ##__VA_ARGS__);			\
} while (0)

static __printf(5, 6) __noreturn
void test_assert_fail(const char *file, int line, const char *expr, int err,
		      const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag("==== Test Assertion Failure ====");
	diag("  %s:%d: %s", file, line, expr);
	diag("  pid=%d tid=%d errno=%d - %s", getpid(), gettid(), err,
	     strerror(err));
	diag("  %s", msg);
	printf("Bail out! %s: %s\n", group_name, msg);
	fflush(stdout);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------ */
/* Files                                                              */
/* ------------------------------------------------------------------ */

/* Read @path into @buf (NUL-terminated); bytes read or -errno. */
static int read_file(const char *path, char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (off < len - 1) {
		n = read(fd, buf + off, len - 1 - off);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		off += n;
	}
	buf[off] = '\0';
	close(fd);
	return off;
}

/* One write(2) of @len bytes at @off (-1: plain write); bytes or -errno. */
static int write_file(const char *path, const void *buf, size_t len,
		      off_t off)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (off < 0)
		n = write(fd, buf, len);
	else
		n = pwrite(fd, buf, len, off);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

/* lseek(@off) then write(2): bytes written or -errno. */
static int write_file_at(const char *path, const void *buf, size_t len,
			 off_t off)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (lseek(fd, off, SEEK_SET) != off) {
		n = -errno;
		diag("lseek(%s, %lld): %s", path, (long long)off, err_str(n));
		close(fd);
		return n;
	}
	n = write(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

static bool path_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* Is @name a word of the sysctl kernel.pvsched_available_drivers? */
static bool driver_listed(const char *name)
{
	char buf[1024], *tok, *save;

	if (read_file(SYSCTL_DRIVERS, buf, sizeof(buf)) < 0)
		return false;
	for (tok = strtok_r(buf, "\n ", &save); tok;
	     tok = strtok_r(NULL, "\n ", &save)) {
		if (!strcmp(tok, name))
			return true;
	}
	return false;
}

static void diag_drivers(void)
{
	char buf[1024];

	if (read_file(SYSCTL_DRIVERS, buf, sizeof(buf)) >= 0)
		diag("pvsched_available_drivers: %s", strtok(buf, "\n") ?: "");
}

/* ------------------------------------------------------------------ */
/* KVM: VMs and vCPUs (kvm_util style)                                */
/* ------------------------------------------------------------------ */

#define MAX_VCPUS	4

struct kvm_vm;

struct kvm_vcpu {
	struct kvm_vm *vm;
	int id;
	int fd;
	struct kvm_run *run;
	uint8_t next_out;	/* value the guest writes next */
	unsigned long nr_runs;	/* KVM_RUNs that returned the expected exit */
	bool kicked;		/* stuck in KVM_RUN, signalled out of it */
	bool failed;
	char err[256];		/* the first unexpected exit */
};

struct kvm_vm {
	int fd;
	pid_t creator;		/* thread that created it: its debugfs dir */
	void *mem;
	int nr_vcpus;
	struct kvm_vcpu *vcpus[MAX_VCPUS];
};

static int kvm_fd = -1;
static int kvm_run_size;
static char kvm_missing[256];	/* why KVM cannot be tested, "" if it can */

#define __KVM_IOCTL_ERROR(name, ret) \
	"%s failed, rc: %i errno: %i (%s)", name, ret, errno, strerror(errno)

#define __kvm_ioctl(fd, cmd, arg)	ioctl(fd, cmd, arg)
#define kvm_ioctl(fd, cmd, arg) ({					\
	int __r = __kvm_ioctl(fd, cmd, arg);				\
	TEST_ASSERT(__r >= 0, __KVM_IOCTL_ERROR(#cmd, __r));		\
	__r;								\
})

#define __vm_ioctl(vm, cmd, arg)	ioctl((vm)->fd, cmd, arg)
#define vm_ioctl(vm, cmd, arg) ({					\
	int __r = __vm_ioctl(vm, cmd, arg);				\
	TEST_ASSERT(__r >= 0, __KVM_IOCTL_ERROR(#cmd, __r));		\
	__r;								\
})

#define __vcpu_ioctl(vcpu, cmd, arg)	ioctl((vcpu)->fd, cmd, arg)
#define vcpu_ioctl(vcpu, cmd, arg) ({					\
	int __r = __vcpu_ioctl(vcpu, cmd, arg);				\
	TEST_ASSERT(__r >= 0, __KVM_IOCTL_ERROR(#cmd, __r));		\
	__r;								\
})

static const char *const exit_reason_names[] = {
	[KVM_EXIT_UNKNOWN]		= "KVM_EXIT_UNKNOWN",
	[KVM_EXIT_EXCEPTION]		= "KVM_EXIT_EXCEPTION",
	[KVM_EXIT_IO]			= "KVM_EXIT_IO",
	[KVM_EXIT_HYPERCALL]		= "KVM_EXIT_HYPERCALL",
	[KVM_EXIT_DEBUG]		= "KVM_EXIT_DEBUG",
	[KVM_EXIT_HLT]			= "KVM_EXIT_HLT",
	[KVM_EXIT_MMIO]			= "KVM_EXIT_MMIO",
	[KVM_EXIT_IRQ_WINDOW_OPEN]	= "KVM_EXIT_IRQ_WINDOW_OPEN",
	[KVM_EXIT_SHUTDOWN]		= "KVM_EXIT_SHUTDOWN",
	[KVM_EXIT_FAIL_ENTRY]		= "KVM_EXIT_FAIL_ENTRY",
	[KVM_EXIT_INTR]			= "KVM_EXIT_INTR",
	[KVM_EXIT_SET_TPR]		= "KVM_EXIT_SET_TPR",
	[KVM_EXIT_TPR_ACCESS]		= "KVM_EXIT_TPR_ACCESS",
	[KVM_EXIT_NMI]			= "KVM_EXIT_NMI",
	[KVM_EXIT_INTERNAL_ERROR]	= "KVM_EXIT_INTERNAL_ERROR",
	[KVM_EXIT_SYSTEM_EVENT]		= "KVM_EXIT_SYSTEM_EVENT",
	[KVM_EXIT_X86_RDMSR]		= "KVM_EXIT_X86_RDMSR",
	[KVM_EXIT_X86_WRMSR]		= "KVM_EXIT_X86_WRMSR",
	[KVM_EXIT_X86_BUS_LOCK]		= "KVM_EXIT_X86_BUS_LOCK",
#ifdef KVM_EXIT_NOTIFY
	[KVM_EXIT_NOTIFY]		= "KVM_EXIT_NOTIFY",
#endif
#ifdef KVM_EXIT_MEMORY_FAULT
	[KVM_EXIT_MEMORY_FAULT]		= "KVM_EXIT_MEMORY_FAULT",
#endif
};

static const char *exit_reason_str(unsigned int reason)
{
	if (reason < ARRAY_SIZE(exit_reason_names) &&
	    exit_reason_names[reason])
		return exit_reason_names[reason];
	return "unknown exit reason";
}

static void kvm_init(void)
{
	int r;

	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0) {
		snprintf(kvm_missing, sizeof(kvm_missing), "/dev/kvm: %s",
			 strerror(errno));
		return;
	}
	r = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	TEST_ASSERT(r > 0, __KVM_IOCTL_ERROR("KVM_GET_VCPU_MMAP_SIZE", r));
	kvm_run_size = r;
}

/* A VM whose memory is GUEST_MEM_SIZE bytes at @mem, with guest_code. */
static struct kvm_vm *__vm_create(void *mem)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.guest_phys_addr = 0,
		.memory_size = GUEST_MEM_SIZE,
	};
	struct kvm_vm *vm;

	TEST_ASSERT(mem != MAP_FAILED, "mmap guest memory");
	vm = calloc(1, sizeof(*vm));
	TEST_ASSERT(vm, "calloc");
	vm->fd = kvm_ioctl(kvm_fd, KVM_CREATE_VM, 0);
	vm->creator = gettid();
	vm->mem = mem;
	memcpy((char *)vm->mem + GUEST_CODE_GPA, guest_code,
	       sizeof(guest_code));
	region.userspace_addr = (uintptr_t)vm->mem;
	vm_ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region);
	vm_ioctl(vm, KVM_SET_TSS_ADDR, GUEST_TSS_GPA);
	return vm;
}

static struct kvm_vm *vm_create(void)
{
	return __vm_create(mmap(NULL, GUEST_MEM_SIZE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				-1, 0));
}

/* A vCPU in real mode at GUEST_CODE_GPA with al = 0. */
static struct kvm_vcpu *vcpu_add(struct kvm_vm *vm)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_vcpu *vcpu;

	TEST_ASSERT(vm->nr_vcpus < MAX_VCPUS, "too many vCPUs");
	vcpu = calloc(1, sizeof(*vcpu));
	TEST_ASSERT(vcpu, "calloc");
	vcpu->vm = vm;
	vcpu->id = vm->nr_vcpus;
	vcpu->fd = vm_ioctl(vm, KVM_CREATE_VCPU, vcpu->id);
	vcpu->run = mmap(NULL, kvm_run_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, vcpu->fd, 0);
	TEST_ASSERT(vcpu->run != MAP_FAILED, "mmap struct kvm_run");

	vcpu_ioctl(vcpu, KVM_GET_SREGS, &sregs);
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	vcpu_ioctl(vcpu, KVM_SET_SREGS, &sregs);
	memset(&regs, 0, sizeof(regs));
	regs.rip = GUEST_CODE_GPA;
	regs.rflags = 0x2;
	vcpu_ioctl(vcpu, KVM_SET_REGS, &regs);

	vm->vcpus[vm->nr_vcpus++] = vcpu;
	return vcpu;
}

static void kick_handler(int sig)
{
	(void)sig;
}

/*
 * Kick a vCPU that does not come back from KVM_RUN: the signal makes
 * KVM_RUN fail with EINTR, and the vCPU is then reported as failed.
 */
static void vcpu_kick(struct kvm_vcpu *vcpu, pthread_t thread)
{
	diag("vCPU %d: no exit to userspace for %d s, kicking its thread",
	     vcpu->id, STUCK_SECONDS);
	WRITE_ONCE(vcpu->kicked, true);
	pthread_kill(thread, SIGUSR1);
}

/* KVM_RUN; false if the vCPU was kicked out of it. */
static bool vcpu_run(struct kvm_vcpu *vcpu)
{
	int r;

	for (;;) {
		if (READ_ONCE(vcpu->kicked))
			return false;
		r = __vcpu_ioctl(vcpu, KVM_RUN, NULL);
		if (!r)
			return true;
		TEST_ASSERT(errno == EINTR, __KVM_IOCTL_ERROR("KVM_RUN", r));
	}
}

static void vcpu_bad_exit(struct kvm_vcpu *vcpu, const char *what)
{
	struct kvm_run *run = vcpu->run;
	struct kvm_regs regs;
	char extra[96] = "";

	if (run->exit_reason == KVM_EXIT_FAIL_ENTRY)
		snprintf(extra, sizeof(extra), ", hardware reason 0x%llx",
			 (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
	else if (run->exit_reason == KVM_EXIT_INTERNAL_ERROR)
		snprintf(extra, sizeof(extra), ", suberror %u",
			 run->internal.suberror);
	else if (run->exit_reason == KVM_EXIT_IO)
		snprintf(extra, sizeof(extra), ", %s port 0x%x size %u count %u",
			 run->io.direction == KVM_EXIT_IO_OUT ? "out" : "in",
			 run->io.port, run->io.size, run->io.count);
	if (__vcpu_ioctl(vcpu, KVM_GET_REGS, &regs))
		memset(&regs, 0, sizeof(regs));
	snprintf(vcpu->err, sizeof(vcpu->err),
		 "vCPU %d, KVM_RUN #%lu: %s: exit reason %u (%s)%s, rip 0x%llx%s",
		 vcpu->id, vcpu->nr_runs + 1, what, run->exit_reason,
		 exit_reason_str(run->exit_reason), extra,
		 (unsigned long long)regs.rip,
		 /* The guest is real-mode code below 64 KiB. */
		 regs.rip >= GUEST_MEM_SIZE ?
		 " (outside the guest's code: guest state corrupted by the host, e.g. nested SVM under QEMU TCG)" : "");
	WRITE_ONCE(vcpu->failed, true);
}

/*
 * One KVM_RUN that must end with the guest's next OUT to GUEST_IO_PORT.
 * After an unexpected exit the vCPU is not run again.
 */
static bool vcpu_run_io(struct kvm_vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	uint8_t val;

	if (vcpu->failed)
		return false;
	if (!vcpu_run(vcpu)) {
		vcpu_bad_exit(vcpu, "stuck in KVM_RUN, kicked out by the watchdog");
		return false;
	}
	if (run->exit_reason != KVM_EXIT_IO) {
		vcpu_bad_exit(vcpu, "expected KVM_EXIT_IO");
		return false;
	}
	if (run->io.direction != KVM_EXIT_IO_OUT ||
	    run->io.port != GUEST_IO_PORT || run->io.size != 1 ||
	    run->io.count != 1) {
		vcpu_bad_exit(vcpu, "unexpected I/O");
		return false;
	}
	val = *((uint8_t *)run + run->io.data_offset);
	if (val != vcpu->next_out) {
		char what[64];

		snprintf(what, sizeof(what), "guest wrote %u, expected %u",
			 val, vcpu->next_out);
		vcpu_bad_exit(vcpu, what);
		return false;
	}
	vcpu->next_out++;
	WRITE_ONCE(vcpu->nr_runs, vcpu->nr_runs + 1);
	return true;
}

static bool vcpu_run_n(struct kvm_vcpu *vcpu, unsigned long n)
{
	while (n--) {
		if (!vcpu_run_io(vcpu)) {
			diag("%s", vcpu->err);
			return false;
		}
	}
	return true;
}

static void vm_close(struct kvm_vm *vm)
{
	int i;

	for (i = 0; i < vm->nr_vcpus; i++) {
		munmap(vm->vcpus[i]->run, kvm_run_size);
		close(vm->vcpus[i]->fd);
		free(vm->vcpus[i]);
	}
	close(vm->fd);
	munmap(vm->mem, GUEST_MEM_SIZE);
	free(vm);
}

static void vm_debugfs_dir(struct kvm_vm *vm, char *buf, size_t len)
{
	snprintf(buf, len, DEBUGFS_KVM "/%d-%d", vm->creator, vm->fd);
}

static void vm_debugfs_file(struct kvm_vm *vm, char *buf, size_t len)
{
	snprintf(buf, len, DEBUGFS_KVM "/%d-%d/pvsched_vcpu_ops", vm->creator,
		 vm->fd);
}

/* ------------------------------------------------------------------ */
/* pvsched ioctls                                                     */
/* ------------------------------------------------------------------ */

/* Raw KVM_GET_PVSCHED_OPS / KVM_REPLACE_PVSCHED_OPS: 0 or -errno. */
static int pvsched_get(struct kvm_vm *vm, void *arg)
{
	return __vm_ioctl(vm, KVM_GET_PVSCHED_OPS, arg) ? -errno : 0;
}

static int pvsched_replace(struct kvm_vm *vm, void *arg)
{
	return __vm_ioctl(vm, KVM_REPLACE_PVSCHED_OPS, arg) ? -errno : 0;
}

/* @name, its NUL, then @junk up to the end of the buffer. */
static void ops_fill(struct kvm_pvsched_ops *ops, const char *name, int junk)
{
	memset(ops, junk, sizeof(*ops));
	memcpy(ops->ops_name, name, strlen(name) + 1);
}

/* Is @ops exactly @name, zero-padded to 32 bytes ("" : 32 zero bytes)? */
static bool ops_is(const struct kvm_pvsched_ops *ops, const char *name)
{
	struct kvm_pvsched_ops want;

	ops_fill(&want, name, 0);
	return !memcmp(ops, &want, sizeof(want));
}

static const char *ops_str(const void *ops)
{
	static __thread char buf[4 * NAME_MAX_LEN + 3];
	const unsigned char *p = ops;
	char *o = buf;
	int i;

	*o++ = '"';
	for (i = 0; i < NAME_MAX_LEN; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
			*o++ = p[i];
		else
			o += sprintf(o, "\\x%02x", p[i]);
	}
	*o++ = '"';
	*o = '\0';
	return buf;
}

#define CHECK_OPS(ops, name, ...) ({					\
	bool __pass = ops_is(ops, name);				\
	if (!__pass)							\
		diag("%s:%d: %s is %s, expected \"%s\" zero-padded",	\
		     __FILE__, __LINE__, #ops, ops_str(ops), name);	\
	check(__pass, __VA_ARGS__);					\
})

/* Assign @name; the previous name goes to @prev if not NULL. 0/-errno. */
static int pvsched_assign(struct kvm_vm *vm, const char *name,
			  struct kvm_pvsched_ops *prev)
{
	struct kvm_pvsched_ops ops;
	int r;

	ops_fill(&ops, name, 0);
	r = pvsched_replace(vm, &ops);
	if (!r && prev)
		*prev = ops;
	return r;
}

/* Does KVM_GET_PVSCHED_OPS return exactly @name? */
static bool vm_driver_is(struct kvm_vm *vm, const char *name)
{
	struct kvm_pvsched_ops ops;
	int r;

	memset(&ops, 0xa5, sizeof(ops));
	r = pvsched_get(vm, &ops);
	if (r) {
		diag("KVM_GET_PVSCHED_OPS: %s", err_str(r));
		return false;
	}
	if (!ops_is(&ops, name)) {
		diag("VM driver is %s, expected \"%s\"", ops_str(&ops), name);
		return false;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Callback counts: pvsched_count's debugfs, bpf_pvsched_count's map   */
/* ------------------------------------------------------------------ */

struct task_counts {
	long long tid, reg, unreg, vmenter, vmexit, halt, intr_inj;
};

#define MAX_TASKS	256

struct counts {
	int nr;
	struct task_counts t[MAX_TASKS];
};

struct count_driver {
	const char *name;
	int map_fd;		/* BPF counts (hash) map, -1 for the module */
	int slots_fd;		/* BPF slots map, -1 for the module */
};

static struct count_driver mod_count = { COUNT_DRV, -1, -1 };
static struct count_driver bpf_count = { PVSCHED_BPF_COUNT_NAME, -1, -1 };

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int bpf_obj_get(const char *path)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uintptr_t)path;
	return sys_bpf(BPF_OBJ_GET, &attr);
}

static int bpf_map_op(int cmd, int fd, const void *key, void *val)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (uintptr_t)key;
	if (cmd == BPF_MAP_GET_NEXT_KEY)
		attr.next_key = (uintptr_t)val;
	else
		attr.value = (uintptr_t)val;
	return sys_bpf(cmd, &attr) ? -errno : 0;
}

static bool counts_add(struct counts *c, __u32 tid,
		       const struct pvsched_bpf_counts *v)
{
	if (c->nr == MAX_TASKS) {
		diag("more than %d tasks in the BPF counts maps", MAX_TASKS);
		return false;
	}
	c->t[c->nr++] = (struct task_counts) {
		.tid = tid, .reg = v->reg, .unreg = v->unreg,
		.vmenter = v->vmenter, .vmexit = v->vmexit,
		.halt = v->halt, .intr_inj = v->intr_inj,
	};
	return true;
}

/* The owned slots, then the hash map (see pvsched_bpf_count.h). */
static bool bpf_counts_read(int slots_fd, int fd, struct counts *c)
{
	struct pvsched_bpf_counts v;
	struct pvsched_bpf_slot slot;
	__u32 key, next;
	bool first = true;
	int r;

	c->nr = 0;
	for (key = 0; key < PVSCHED_BPF_COUNT_SLOTS; key++) {
		r = bpf_map_op(BPF_MAP_LOOKUP_ELEM, slots_fd, &key, &slot);
		if (r) {
			diag("BPF_MAP_LOOKUP_ELEM(slot %u): %s", key,
			     err_str(r));
			return false;
		}
		if (slot.tid && !counts_add(c, slot.tid, &slot.counts))
			return false;
	}
	for (;;) {
		r = bpf_map_op(BPF_MAP_GET_NEXT_KEY, fd, first ? NULL : &key,
			       &next);
		if (r == -ENOENT)
			return true;
		if (r) {
			diag("BPF_MAP_GET_NEXT_KEY: %s", err_str(r));
			return false;
		}
		first = false;
		key = next;
		r = bpf_map_op(BPF_MAP_LOOKUP_ELEM, fd, &key, &v);
		if (r) {
			diag("BPF_MAP_LOOKUP_ELEM(%u): %s", key, err_str(r));
			return false;
		}
		if (!counts_add(c, key, &v))
			return false;
	}
}

static bool bpf_counts_reset(int slots_fd, int fd)
{
	struct pvsched_bpf_slot zero = {};
	__u32 key;
	int r;

	for (key = 0; key < PVSCHED_BPF_COUNT_SLOTS; key++) {
		r = bpf_map_op(BPF_MAP_UPDATE_ELEM, slots_fd, &key, &zero);
		if (r) {
			diag("BPF_MAP_UPDATE_ELEM(slot %u): %s", key,
			     err_str(r));
			return false;
		}
	}

	while (!(r = bpf_map_op(BPF_MAP_GET_NEXT_KEY, fd, NULL, &key))) {
		r = bpf_map_op(BPF_MAP_DELETE_ELEM, fd, &key, NULL);
		if (r) {
			diag("BPF_MAP_DELETE_ELEM: %s", err_str(r));
			return false;
		}
	}
	return r == -ENOENT;
}

static bool mod_counts_read(struct counts *c)
{
	static char buf[65536];
	char *line, *save;
	int r;

	c->nr = 0;
	r = read_file(COUNT_STATS, buf, sizeof(buf));
	if (r < 0) {
		diag("%s: %s", COUNT_STATS, err_str(r));
		return false;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct task_counts *t = &c->t[c->nr];

		if (c->nr == MAX_TASKS) {
			diag("more than %d lines in %s", MAX_TASKS,
			     COUNT_STATS);
			return false;
		}
		if (sscanf(line, "tid=%lld register=%lld unregister=%lld vmenter=%lld vmexit=%lld halt=%lld intr_inj=%lld",
			   &t->tid, &t->reg, &t->unreg, &t->vmenter,
			   &t->vmexit, &t->halt, &t->intr_inj) != 7) {
			diag("%s: malformed line \"%s\"", COUNT_STATS, line);
			return false;
		}
		c->nr++;
	}
	return true;
}

static bool counts_read(const struct count_driver *d, struct counts *c)
{
	if (d->map_fd >= 0)
		return bpf_counts_read(d->slots_fd, d->map_fd, c);
	return mod_counts_read(c);
}

static bool counts_reset(const struct count_driver *d)
{
	int r;

	if (d->map_fd >= 0)
		return bpf_counts_reset(d->slots_fd, d->map_fd);
	r = write_file(COUNT_RESET, "1\n", 2, -1);
	if (r < 0)
		diag("%s: %s", COUNT_RESET, err_str(r));
	return r == 2;
}

static const struct task_counts *counts_find(const struct counts *c,
					     pid_t tid)
{
	int i;

	for (i = 0; i < c->nr; i++) {
		if (c->t[i].tid == tid)
			return &c->t[i];
	}
	return NULL;
}

static void diag_task(const char *what, const struct task_counts *t)
{
	diag("%s: tid=%lld register=%lld unregister=%lld vmenter=%lld vmexit=%lld halt=%lld intr_inj=%lld",
	     what, t->tid, t->reg, t->unreg, t->vmenter, t->vmexit, t->halt,
	     t->intr_inj);
}

static void diag_counts(const struct count_driver *d, const struct counts *c)
{
	int i;

	diag("%s counts, %d task(s):", d->name, c->nr);
	for (i = 0; i < c->nr; i++)
		diag_task("  ", &c->t[i]);
}

#define ANY		-1LL	/* @reg, @unreg: any number */
#define NO_ENTRIES	-2LL	/* @min_enter: no VMENTER at all */

/*
 * Does @tid have @reg registers, @unreg unregisters, as many VMEXITs as
 * VMENTERs and at least @min_enter VMENTERs? Shows its counts if not.
 */
static bool task_is(const struct count_driver *d, pid_t tid, long long reg,
		    long long unreg, long long min_enter)
{
	const struct task_counts *t;
	struct counts c;
	bool ok;

	if (!counts_read(d, &c))
		return false;
	t = counts_find(&c, tid);
	if (!t) {
		diag("%s: no counts for tid %d", d->name, tid);
		diag_counts(d, &c);
		return false;
	}
	ok = (reg == ANY || t->reg == reg) &&
	     (unreg == ANY || t->unreg == unreg) &&
	     t->vmenter == t->vmexit &&
	     (min_enter == NO_ENTRIES ? t->vmenter == 0 :
	      t->vmenter >= min_enter);
	if (!ok) {
		diag("%s: expected tid=%d register=%lld unregister=%lld vmenter=vmexit%s%lld",
		     d->name, tid, reg, unreg,
		     min_enter == NO_ENTRIES ? "=" : ">=",
		     min_enter == NO_ENTRIES ? 0 : min_enter);
		diag_task("  got", t);
	}
	return ok;
}

/* Counts of @tid, or all -1 if it has none. */
static struct task_counts task_get(const struct count_driver *d, pid_t tid)
{
	struct task_counts none = { tid, -1, -1, -1, -1, -1, -1 };
	const struct task_counts *t;
	struct counts c;

	if (!counts_read(d, &c))
		return none;
	t = counts_find(&c, tid);
	return t ? *t : none;
}

static bool task_same(const struct task_counts *a,
		      const struct task_counts *b)
{
	if (!memcmp(a, b, sizeof(*a)))
		return true;
	diag_task("before", a);
	diag_task("after ", b);
	return false;
}

static int counts_nr(const struct count_driver *d)
{
	struct counts c;

	if (!counts_read(d, &c))
		return -1;
	return c.nr;
}

/* ------------------------------------------------------------------ */
/* Drivers: the pvsched_count module and pvsched-bpf                  */
/* ------------------------------------------------------------------ */

static bool count_ko_present;
static char bpf_tool[256];	/* path of pvsched-bpf, "" if missing */

static int module_unload(void)
{
	return syscall(__NR_delete_module, COUNT_DRV, O_NONBLOCK) ? -errno : 0;
}

static int module_load(void)
{
	int fd, r;

	fd = open(COUNT_KO, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = syscall(__NR_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return r;
}

/* pvsched_count loaded and its stats readable. */
static bool count_ready(void)
{
	return driver_listed(COUNT_DRV) && path_exists(COUNT_STATS);
}

static const char *need_count(void)
{
	if (kvm_missing[0])
		return kvm_missing;
	if (!count_ready())
		return "pvsched_count not loaded (" COUNT_KO " missing?)";
	return NULL;
}

/* Find pvsched-bpf: next to us in /bin, or on $PATH. */
static void bpf_tool_find(void)
{
	char *path = getenv("PATH"), *dir, *save, *copy;
	char buf[256];

	if (!access("/bin/pvsched-bpf", X_OK)) {
		snprintf(bpf_tool, sizeof(bpf_tool), "/bin/pvsched-bpf");
		return;
	}
	if (!path)
		return;
	copy = strdup(path);
	for (dir = strtok_r(copy, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/pvsched-bpf", dir);
		if (!access(buf, X_OK)) {
			snprintf(bpf_tool, sizeof(bpf_tool), "%s", buf);
			break;
		}
	}
	free(copy);
}

/*
 * Run "pvsched-bpf @cmd [@arg]"; its exit status, output shown if != 0.
 * Its stdout and stderr go to @out (@size bytes, NUL-terminated), the rest
 * is read and dropped.
 */
static int bpf_tool_run_out(const char *cmd, const char *arg, char *out,
			    size_t size)
{
	char drop[4096];
	size_t len = 0;
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	TEST_ASSERT(!pipe2(pfd, O_CLOEXEC), "pipe2");
	fflush(stdout);
	pid = fork();
	TEST_ASSERT(pid >= 0, "fork");
	if (!pid) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execl(bpf_tool, "pvsched-bpf", cmd, arg, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		if (len < size - 1)
			n = read(pfd[0], out + len, size - 1 - len);
		else
			n = read(pfd[0], drop, sizeof(drop));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len < size - 1)
			len += n;
	}
	out[len] = '\0';
	close(pfd[0]);
	TEST_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid");
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	if (status)
		diag("pvsched-bpf %s %s: status %d: %s", cmd, arg ? arg : "",
		     status, out);
	return status;
}

static int bpf_tool_run(const char *cmd, const char *arg)
{
	char out[4096];

	return bpf_tool_run_out(cmd, arg, out, sizeof(out));
}

static const char *need_bpf(void)
{
	const char *r = need_count();

	if (r)
		return r;
	if (!bpf_tool[0])
		return "pvsched-bpf not found";
	if (!path_exists("/sys/fs/bpf"))
		return "no bpffs at /sys/fs/bpf";
	return NULL;
}

/* insmod pvsched_test_drv.ko kind=@kind; rmmod it again if it loaded. */
static int test_drv_load(const char *kind, bool keep)
{
	char params[64];
	int fd, r;

	snprintf(params, sizeof(params), "kind=%s", kind);
	fd = open(TEST_DRV_KO, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = syscall(__NR_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	if (!r && !keep)
		syscall(__NR_delete_module, "pvsched_test_drv", O_NONBLOCK);
	return r;
}

static const char *need_test_drv(void)
{
	if (need_count())
		return need_count();
	return path_exists(TEST_DRV_KO) ? NULL : TEST_DRV_KO " missing";
}

static int test_drv_unload(void)
{
	return syscall(__NR_delete_module, TEST_DRV_MOD, O_NONBLOCK) ? -errno : 0;
}

/*
 * pvsched_test_drv kind=strict: register/unregister/callback counts and
 * the sum of its error counts (see the module).
 */
struct strict_stats {
	long reg, unreg, callbacks, errors;
	char line[512];
};

static bool strict_read(struct strict_stats *st)
{
	static const char *const errors[] = {
		"stray", "unpaired", "double_register", "unknown_unregister",
		"unregister_in_guest", "pid_changed",
	};
	char buf[512], *w, *save, *eq;
	int found = 0;
	size_t i;

	memset(st, 0, sizeof(*st));
	if (read_file(STRICT_STATS, buf, sizeof(buf)) < 0) {
		diag("%s: %s", STRICT_STATS, strerror(errno));
		return false;
	}
	snprintf(st->line, sizeof(st->line), "%s", buf);
	for (w = strtok_r(buf, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		eq = strchr(w, '=');
		if (!eq)
			continue;
		*eq++ = '\0';
		if (!strcmp(w, "register"))
			st->reg = atol(eq), found++;
		else if (!strcmp(w, "unregister"))
			st->unreg = atol(eq), found++;
		else if (!strcmp(w, "callbacks"))
			st->callbacks = atol(eq), found++;
		for (i = 0; i < ARRAY_SIZE(errors); i++) {
			if (!strcmp(w, errors[i]))
				st->errors += atol(eq), found++;
		}
	}
	if (found != 3 + (int)ARRAY_SIZE(errors)) {
		diag("%s: unexpected format: %s", STRICT_STATS, st->line);
		return false;
	}
	return true;
}

/* No error so far, and (if @reg_eq_unreg) no task left registered. */
static bool strict_clean(bool reg_eq_unreg)
{
	struct strict_stats st;

	if (!strict_read(&st))
		return false;
	if (st.errors || (reg_eq_unreg && st.reg != st.unreg)) {
		diag("%s: %s", STRICT_DRV, st.line);
		return false;
	}
	return true;
}

static const char *need_strict(void)
{
	if (need_test_drv())
		return need_test_drv();
	if (!driver_listed(STRICT_DRV) && test_drv_load("strict", true))
		return "pvsched_test_drv kind=strict does not load";
	return NULL;
}

/*
 * Random choices of the race groups: each group's seed is the run's
 * (PVSCHED_TEST_SEED, else from the clock) mixed with the group's name and
 * printed, so that a failing run's choices can be made again (the timing
 * of the threads, of course, differs).
 */
static unsigned int run_seed;

static unsigned int group_seed(void)
{
	unsigned int seed = run_seed;
	const char *c;

	for (c = group_name; *c; c++)
		seed = seed * 31 + (unsigned char)*c;
	diag("%s: random seed %u (PVSCHED_TEST_SEED=%u replays it)",
	     group_name, seed, run_seed);
	return seed;
}

static void count_driver_close(struct count_driver *d)
{
	if (d->map_fd >= 0)
		close(d->map_fd);
	if (d->slots_fd >= 0)
		close(d->slots_fd);
	d->map_fd = -1;
	d->slots_fd = -1;
}

/* Move @from's map fds to @to: @to reads the instance @from had. */
static void count_driver_take(struct count_driver *to,
			      struct count_driver *from)
{
	count_driver_close(to);
	to->map_fd = from->map_fd;
	to->slots_fd = from->slots_fd;
	from->map_fd = -1;
	from->slots_fd = -1;
}

/* Load bpf_pvsched_count and open its two count maps into bpf_count. */
static bool bpf_count_load(void)
{
	if (bpf_tool_run("load", "count"))
		return false;
	count_driver_close(&bpf_count);
	bpf_count.map_fd = bpf_obj_get(PVSCHED_BPF_COUNT_MAP);
	if (bpf_count.map_fd < 0) {
		diag("%s: %s", PVSCHED_BPF_COUNT_MAP, strerror(errno));
		return false;
	}
	bpf_count.slots_fd = bpf_obj_get(PVSCHED_BPF_COUNT_SLOTS_MAP);
	if (bpf_count.slots_fd < 0) {
		diag("%s: %s", PVSCHED_BPF_COUNT_SLOTS_MAP, strerror(errno));
		count_driver_close(&bpf_count);
		return false;
	}
	return true;
}

/* Unload bpf_pvsched_count; keeps its map fds unless @close_map. */
static bool bpf_count_unload(bool close_map)
{
	if (close_map)
		count_driver_close(&bpf_count);
	return !bpf_tool_run("unload", PVSCHED_BPF_COUNT_NAME);
}

/* ------------------------------------------------------------------ */
/* vCPU worker threads                                                */
/* ------------------------------------------------------------------ */

enum worker_cmd { WORKER_IDLE, WORKER_RUN, WORKER_LOOP, WORKER_EXIT };

/*
 * A thread that runs vCPUs on request, so that a test knows which thread
 * (tid) is the vCPU task that the driver sees.
 */
struct worker {
	pthread_t thread;
	pid_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	enum worker_cmd cmd;
	bool busy;
	struct kvm_vcpu *vcpu;
	unsigned long nr;	/* WORKER_RUN: KVM_RUNs to do */
	bool stop;		/* WORKER_LOOP: stop request */
	bool nap;		/* WORKER_LOOP: sleep a little now and then */
	bool ok;		/* result of the last command */
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	enum worker_cmd cmd;
	unsigned long i;
	bool ok;

	pthread_mutex_lock(&w->lock);
	w->tid = gettid();
	pthread_cond_broadcast(&w->cond);
	for (;;) {
		while (w->cmd == WORKER_IDLE)
			pthread_cond_wait(&w->cond, &w->lock);
		cmd = w->cmd;
		pthread_mutex_unlock(&w->lock);
		if (cmd == WORKER_EXIT)
			return NULL;

		ok = true;
		if (cmd == WORKER_RUN) {
			for (i = 0; ok && i < w->nr; i++)
				ok = vcpu_run_io(w->vcpu);
		} else {
			/*
			 * A thread that never sleeps holds up RCU-tasks grace
			 * periods (BPF trampolines and struct_ops wait for
			 * them) for as long as it stays off nohz_full CPUs:
			 * with @nap, sleep briefly every 256 runs, as a vCPU
			 * whose guest halts now and then would.
			 */
			for (i = 1; ok && !READ_ONCE(w->stop); i++) {
				ok = vcpu_run_io(w->vcpu);
				if (w->nap && !(i % 256))
					usleep(50);
			}
		}

		pthread_mutex_lock(&w->lock);
		w->ok = ok;
		w->cmd = WORKER_IDLE;
		w->busy = false;
		pthread_cond_broadcast(&w->cond);
	}
}

static struct worker *worker_create(void)
{
	struct worker *w = calloc(1, sizeof(*w));

	TEST_ASSERT(w, "calloc");
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	TEST_ASSERT(!pthread_create(&w->thread, NULL, worker_fn, w),
		    "pthread_create");
	pthread_mutex_lock(&w->lock);
	while (!w->tid)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
	return w;
}

static void worker_start(struct worker *w, enum worker_cmd cmd,
			 struct kvm_vcpu *vcpu, unsigned long nr)
{
	pthread_mutex_lock(&w->lock);
	TEST_ASSERT(!w->busy, "worker %d busy", w->tid);
	w->vcpu = vcpu;
	w->nr = nr;
	w->stop = false;
	w->busy = true;
	w->cmd = cmd;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/*
 * Wait for the worker's command; false (and the exit shown) if it failed.
 * Kicks the vCPU if it stops making progress.
 */
static bool worker_wait(struct worker *w)
{
	unsigned long runs, last = ~0UL;
	double since = now();
	struct timespec ts;
	bool ok;

	pthread_mutex_lock(&w->lock);
	while (w->busy) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&w->cond, &w->lock, &ts);
		if (!w->busy)
			break;
		runs = READ_ONCE(w->vcpu->nr_runs);
		if (runs != last) {
			last = runs;
			since = now();
		} else if (now() - since > STUCK_SECONDS) {
			vcpu_kick(w->vcpu, w->thread);
			since = now();
		}
	}
	ok = w->ok;
	pthread_mutex_unlock(&w->lock);
	if (!ok)
		diag("thread %d: %s", w->tid, w->vcpu->err);
	return ok;
}

/* Run @vcpu @nr times on the worker's thread. */
static bool worker_run(struct worker *w, struct kvm_vcpu *vcpu,
		       unsigned long nr)
{
	worker_start(w, WORKER_RUN, vcpu, nr);
	return worker_wait(w);
}

/* Run @vcpu until worker_stop(). */
static void worker_loop(struct worker *w, struct kvm_vcpu *vcpu)
{
	worker_start(w, WORKER_LOOP, vcpu, 0);
}

static bool worker_stop(struct worker *w)
{
	WRITE_ONCE(w->stop, true);
	return worker_wait(w);
}

static void worker_destroy(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->cmd = WORKER_EXIT;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	free(w);
}

/* Wait until @vcpu did @n more KVM_RUNs than @base (a worker loops on it). */
static bool vcpu_wait_runs(struct kvm_vcpu *vcpu, unsigned long base,
			   unsigned long n)
{
	double end = now() + 10;

	while (READ_ONCE(vcpu->nr_runs) < base + n) {
		if (READ_ONCE(vcpu->failed) || now() > end)
			return false;
		usleep(1000);
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Tests                                                              */
/* ------------------------------------------------------------------ */

/* A page mapped PROT_READ that holds a struct kvm_pvsched_ops. */
static void *page_ro(const char *name)
{
	void *p = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	TEST_ASSERT(p != MAP_FAILED, "mmap");
	ops_fill(p, name, 0);
	TEST_ASSERT(!mprotect(p, getpagesize(), PROT_READ), "mprotect");
	return p;
}

/* 3. The per-VM debugfs file pvsched_vcpu_ops. */
static void test_debugfs(void)
{
	char path[256], buf[128], big[64];
	struct kvm_vcpu *vcpu;
	struct worker *w;
	struct kvm_vm *vm;
	int fd, r;

	vm = vm_create();
	vcpu = vcpu_add(vm);
	w = worker_create();
	vm_debugfs_file(vm, path, sizeof(path));
	CHECK(counts_reset(&mod_count), "reset pvsched_count's counts");

	r = read_file(path, buf, sizeof(buf));
	CHECK(r == 1 && !strcmp(buf, "\n"),
	      "read on a VM without a driver gives \"\\n\"");

	CHECK_EQ(write_file(path, NOP_DRV "\n", strlen(NOP_DRV) + 1, -1),
		 strlen(NOP_DRV) + 1, "write \"%s\\n\" returns its length",
		 NOP_DRV);
	r = read_file(path, buf, sizeof(buf));
	CHECK(r > 0 && !strcmp(buf, NOP_DRV "\n"),
	      "read gives \"%s\\n\" after the write", NOP_DRV);
	CHECK(vm_driver_is(vm, NOP_DRV), "GET agrees with the debugfs write");

	CHECK_EQ(write_file(path, COUNT_DRV, strlen(COUNT_DRV), -1),
		 strlen(COUNT_DRV),
		 "write \"%s\" without a newline returns its length",
		 COUNT_DRV);
	r = read_file(path, buf, sizeof(buf));
	CHECK(r > 0 && !strcmp(buf, COUNT_DRV "\n"),
	      "read gives \"%s\\n\"", COUNT_DRV);

	CHECK_EQ(write_file(path, UNKNOWN_DRV "\n", strlen(UNKNOWN_DRV) + 1,
			    -1),
		 -EINVAL, "write of an unknown name fails with EINVAL");

	/* 33 bytes: a valid name padded with blanks is still too long. */
	memset(big, ' ', sizeof(big));
	memcpy(big, NOP_DRV, strlen(NOP_DRV));
	big[32] = '\n';
	CHECK_EQ(write_file(path, big, 33, -1), -EINVAL,
		 "write of 33 bytes (\"%s\", blanks, newline) fails with EINVAL",
		 NOP_DRV);
	memset(big, 'a', sizeof(big));
	CHECK_EQ(write_file(path, big, 64, -1), -EINVAL,
		 "write of 64 bytes fails with EINVAL");
	CHECK_EQ(write_file(path, big, 32, -1), -EINVAL,
		 "write of exactly 32 bytes without newline or NUL fails with EINVAL");

	CHECK_EQ(write_file(path, NOP_DRV "\0x\n", strlen(NOP_DRV) + 3, -1),
		 -EINVAL, "write with an embedded NUL (\"%s\\0x\\n\") fails with EINVAL",
		 NOP_DRV);
	CHECK_EQ(write_file(path, "\0" NOP_DRV, strlen(NOP_DRV) + 1, -1),
		 -EINVAL, "write starting with a NUL fails with EINVAL");
	CHECK_RET(write_file(path, NOP_DRV "\n", strlen(NOP_DRV) + 1, 1),
		  -EINVAL, "pwrite at offset 1 fails with EINVAL");
	CHECK_RET(write_file_at(path, NOP_DRV "\n", strlen(NOP_DRV) + 1, 1),
		  -EINVAL, "write after lseek to offset 1 fails with EINVAL");
	CHECK_RET(write_file_at(path, "-\n", 2, 5), -EINVAL,
		  "unassign (\"-\\n\") after lseek to offset 5 fails with EINVAL");
	r = read_file(path, buf, sizeof(buf));
	CHECK(r > 0 && !strcmp(buf, COUNT_DRV "\n") &&
	      vm_driver_is(vm, COUNT_DRV),
	      "failed writes leave the driver \"%s\"", COUNT_DRV);

	/* A second write() on the same fd is at offset > 0. */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	TEST_ASSERT(fd >= 0, "open %s", path);
	r = write(fd, NOP_DRV "\n", strlen(NOP_DRV) + 1);
	CHECK_EQ(r, strlen(NOP_DRV) + 1, "first write on an fd succeeds");
	r = write(fd, COUNT_DRV "\n", strlen(COUNT_DRV) + 1);
	CHECK_EQ(r < 0 ? -errno : r, -EINVAL,
		 "second write on the same fd (offset %zu) fails with EINVAL",
		 strlen(NOP_DRV) + 1);
	close(fd);
	CHECK(vm_driver_is(vm, NOP_DRV),
	      "the driver is the one of the first write");

	/* Registration through debugfs, like the ioctl. */
	CHECK(worker_run(w, vcpu, 10), "vCPU runs 10 times with %s", NOP_DRV);
	CHECK_EQ(write_file(path, COUNT_DRV "\n", strlen(COUNT_DRV) + 1, -1),
		 strlen(COUNT_DRV) + 1, "write \"%s\\n\" after the vCPU ran",
		 COUNT_DRV);
	CHECK(task_is(&mod_count, w->tid, 1, 0, NO_ENTRIES),
	      "debugfs assign registers the vCPU task");

	/* Nothing but "-" unassigns: an empty write is a mistake. */
	CHECK_EQ(write_file(path, "\n", 1, -1), -EINVAL,
		 "write \"\\n\" (an empty line) fails with EINVAL");
	CHECK_EQ(write_file(path, " \t\n", 3, -1), -EINVAL,
		 "write of blanks only fails with EINVAL");
	CHECK_EQ(write_file(path, "", 0, -1), -EINVAL,
		 "zero-length write fails with EINVAL");
	CHECK(vm_driver_is(vm, COUNT_DRV) &&
	      task_is(&mod_count, w->tid, 1, 0, NO_ENTRIES),
	      "empty writes leave %s assigned and the task registered",
	      COUNT_DRV);
	CHECK_EQ(write_file(path, "-\n", 2, -1), 2,
		 "write \"-\\n\" (unassign) returns 2");
	r = read_file(path, buf, sizeof(buf));
	CHECK(r == 1 && !strcmp(buf, "\n"), "read after unassign gives \"\\n\"");
	CHECK(vm_driver_is(vm, ""), "GET after debugfs unassign returns \"\"");
	CHECK(task_is(&mod_count, w->tid, 1, 1, NO_ENTRIES),
	      "debugfs unassign unregisters the vCPU task");

	CHECK_RET(pvsched_assign(vm, COUNT_DRV, NULL), 0,
		  "REPLACE \"%s\" by ioctl", COUNT_DRV);
	r = read_file(path, buf, sizeof(buf));
	CHECK(r > 0 && !strcmp(buf, COUNT_DRV "\n"),
	      "debugfs read shows the driver assigned by ioctl");
	CHECK_RET(pvsched_assign(vm, "", NULL), 0, "REPLACE \"\" by ioctl");

	worker_destroy(w);
	vm_close(vm);
}

/* 4. The sysctl kernel.pvsched_available_drivers. */
static void test_sysctl(void)
{
	char buf[1024];
	int r;

	r = read_file(SYSCTL_DRIVERS, buf, sizeof(buf));
	CHECK(r > 0, "%s is readable", SYSCTL_DRIVERS);
	diag_drivers();
	CHECK(driver_listed(NOP_DRV), "%s is listed", NOP_DRV);
	r = open(SYSCTL_DRIVERS, O_WRONLY | O_CLOEXEC);
	CHECK(r < 0, "the sysctl is read-only (open O_WRONLY fails)");
	if (r >= 0)
		close(r);

	if (!count_ko_present) {
		skip(COUNT_KO " missing", "rmmod %s", COUNT_DRV);
		skip(COUNT_KO " missing", "%s gone after rmmod", COUNT_DRV);
		skip(COUNT_KO " missing", "insmod %s", COUNT_DRV);
		skip(COUNT_KO " missing", "%s listed after insmod", COUNT_DRV);
	} else {
		CHECK_RET(module_unload(), 0, "rmmod %s (no VM uses it)",
			  COUNT_DRV);
		CHECK(!driver_listed(COUNT_DRV), "%s gone after rmmod",
		      COUNT_DRV);
		CHECK_RET(module_load(), 0, "insmod %s", COUNT_KO);
		CHECK(driver_listed(COUNT_DRV), "%s listed after insmod",
		      COUNT_DRV);
	}

	if (need_bpf()) {
		group_skip_rest(need_bpf());
		return;
	}
	CHECK(bpf_count_load(), "pvsched-bpf load count");
	CHECK(driver_listed(PVSCHED_BPF_COUNT_NAME),
	      "%s listed after load", PVSCHED_BPF_COUNT_NAME);
	CHECK(!bpf_tool_run("load", "sample"), "pvsched-bpf load sample");
	CHECK(driver_listed(SAMPLE_DRV), "%s listed after load", SAMPLE_DRV);
	diag_drivers();
	CHECK(!bpf_tool_run("unload", SAMPLE_DRV), "pvsched-bpf unload %s",
	      SAMPLE_DRV);
	CHECK(!driver_listed(SAMPLE_DRV) &&
	      driver_listed(PVSCHED_BPF_COUNT_NAME),
	      "%s gone after unload, %s still listed", SAMPLE_DRV,
	      PVSCHED_BPF_COUNT_NAME);
	CHECK(bpf_count_unload(true), "pvsched-bpf unload %s",
	      PVSCHED_BPF_COUNT_NAME);
	CHECK(!driver_listed(PVSCHED_BPF_COUNT_NAME), "%s gone after unload",
	      PVSCHED_BPF_COUNT_NAME);
	CHECK(driver_listed(NOP_DRV) && driver_listed(COUNT_DRV),
	      "%s and %s still listed", NOP_DRV, COUNT_DRV);
}

/* 5./6. Callback counts of a counting driver @d. */
static void counts_scenarios(const struct count_driver *d)
{
	struct worker *w, *w2, *w3;
	struct task_counts before, after;
	struct kvm_vcpu *vcpu, *v2, *v3;
	struct kvm_pvsched_ops prev;
	struct kvm_vm *vm;

	CHECK(counts_reset(d), "reset the counts");

	/* Assigned before the first KVM_RUN. */
	vm = vm_create();
	vcpu = vcpu_add(vm);
	w = worker_create();
	CHECK_RET(pvsched_assign(vm, d->name, &prev), 0,
		  "assign %s before the vCPU ever ran", d->name);
	CHECK_EQ(counts_nr(d), 0, "no task registered before the first KVM_RUN");
	CHECK(worker_run(w, vcpu, 200), "200 KVM_RUNs, all KVM_EXIT_IO");
	CHECK_EQ(counts_nr(d), 1, "exactly one task counted");
	after = task_get(d, w->tid);
	CHECK_EQ(after.reg, 1, "the vCPU thread registered once");
	CHECK_EQ(after.unreg, 0, "... and did not unregister");
	CHECK(after.vmenter >= 200,
	      "vmenter >= 200 (one per KVM_RUN at least): %lld", after.vmenter);
	CHECK_EQ(after.vmexit, after.vmenter, "vmexit == vmenter");
	CHECK(after.halt == 0 && after.intr_inj == 0,
	      "no halt, no intr_inj for the I/O loop");

	/* Unassign: one unregister, then nothing. */
	CHECK_RET(pvsched_assign(vm, "", &prev), 0, "unassign");
	CHECK(ops_is(&prev, d->name), "unassign hands back %s", d->name);
	before = task_get(d, w->tid);
	CHECK(before.reg == 1 && before.unreg == 1 &&
	      before.vmenter == after.vmenter && before.vmexit == after.vmexit,
	      "unassign: unregister 1, nothing else");
	CHECK(worker_run(w, vcpu, 200), "200 more KVM_RUNs without a driver");
	after = task_get(d, w->tid);
	CHECK(task_same(&before, &after), "no callback after unassign");

	/* Same thread, driver again: registers at assign time. */
	CHECK_RET(pvsched_assign(vm, d->name, NULL), 0, "assign %s again",
		  d->name);
	CHECK(task_is(d, w->tid, 2, 1, before.vmenter),
	      "re-assign registers the vCPU task at once (register 2)");
	CHECK_RET(pvsched_assign(vm, NOP_DRV, &prev), 0,
		  "replace %s with %s", d->name, NOP_DRV);
	before = task_get(d, w->tid);
	CHECK(before.reg == 2 && before.unreg == 2,
	      "replacing the driver unregisters from the old one");
	CHECK(worker_run(w, vcpu, 50), "50 KVM_RUNs with %s", NOP_DRV);
	after = task_get(d, w->tid);
	CHECK(task_same(&before, &after), "no callback to the old driver");
	worker_destroy(w);
	vm_close(vm);

	/* Assigned after the vCPU ran. */
	CHECK(counts_reset(d), "reset the counts");
	vm = vm_create();
	vcpu = vcpu_add(vm);
	w = worker_create();
	CHECK(worker_run(w, vcpu, 50), "50 KVM_RUNs without a driver");
	CHECK_RET(pvsched_assign(vm, d->name, NULL), 0,
		  "assign %s after the vCPU ran", d->name);
	CHECK(task_is(d, w->tid, 1, 0, NO_ENTRIES),
	      "registered at assign time: register 1, no events yet");
	CHECK(worker_run(w, vcpu, 50), "50 KVM_RUNs");
	CHECK(task_is(d, w->tid, 1, 0, 50),
	      "register 1, unregister 0, vmenter == vmexit >= 50");
	worker_destroy(w);
	vm_close(vm);

	/*
	 * Two vCPUs on two threads, created after the driver was assigned,
	 * and a third vCPU that never runs.
	 */
	CHECK(counts_reset(d), "reset the counts");
	vm = vm_create();
	CHECK_RET(pvsched_assign(vm, d->name, NULL), 0,
		  "assign %s to a VM without vCPUs", d->name);
	v2 = vcpu_add(vm);
	v3 = vcpu_add(vm);
	vcpu_add(vm);
	w2 = worker_create();
	w3 = worker_create();
	worker_start(w2, WORKER_RUN, v2, 100);
	worker_start(w3, WORKER_RUN, v3, 100);
	CHECK(worker_wait(w2) & worker_wait(w3),
	      "2 vCPUs, 100 KVM_RUNs each on their own thread, concurrently");
	CHECK_EQ(counts_nr(d), 2, "two tasks counted");
	CHECK(task_is(d, w2->tid, 1, 0, 100) && task_is(d, w3->tid, 1, 0, 100),
	      "each thread: register 1, unregister 0, vmenter == vmexit >= 100");
	CHECK_RET(pvsched_assign(vm, "", NULL), 0, "unassign");
	CHECK(task_is(d, w2->tid, 1, 1, 100) && task_is(d, w3->tid, 1, 1, 100),
	      "unassign unregisters both threads once");
	CHECK_EQ(counts_nr(d), 2, "the vCPU that never ran was never registered");
	worker_destroy(w3);
	worker_destroy(w2);
	vm_close(vm);
}

static void test_counts_module(void)
{
	counts_scenarios(&mod_count);
}

static void test_counts_bpf(void)
{
	if (!check(bpf_count_load(), "pvsched-bpf load count")) {
		group_fail_rest("bpf_pvsched_count does not load");
		return;
	}
	counts_scenarios(&bpf_count);
	CHECK(bpf_count_unload(true), "pvsched-bpf unload %s",
	      PVSCHED_BPF_COUNT_NAME);
}

/* Read slot @idx of bpf_pvsched_count's slots map. */
static bool bpf_slot_get(__u32 idx, struct pvsched_bpf_slot *slot)
{
	int r = bpf_map_op(BPF_MAP_LOOKUP_ELEM, bpf_count.slots_fd, &idx,
			   slot);

	if (r)
		diag("BPF_MAP_LOOKUP_ELEM(slot %u): %s", idx, err_str(r));
	return !r;
}

/*
 * 6b. bpf_pvsched_count's two homes for counts: a thread counts in its own
 * slot, and in the hash map when another thread owns that slot.
 */
static void test_bpf_slots(void)
{
	struct pvsched_bpf_slot slot, taken = {};
	struct pvsched_bpf_counts v;
	struct kvm_vcpu *va, *vb;
	struct worker *a, *b;
	struct kvm_vm *vm;
	__u32 idx, tid;

	if (!check(bpf_count_load(), "pvsched-bpf load count")) {
		group_fail_rest("bpf_pvsched_count does not load");
		return;
	}
	CHECK(counts_reset(&bpf_count), "reset the BPF counts");
	vm = vm_create();
	va = vcpu_add(vm);
	vb = vcpu_add(vm);
	a = worker_create();
	b = worker_create();

	/* b's slot is owned by another (made-up) thread id. */
	idx = pvsched_bpf_count_slot(b->tid);
	taken.tid = b->tid + PVSCHED_BPF_COUNT_SLOTS;
	CHECK_RET(bpf_map_op(BPF_MAP_UPDATE_ELEM, bpf_count.slots_fd, &idx,
			     &taken), 0,
		  "give slot %u to tid %u", idx, taken.tid);

	CHECK_RET(pvsched_assign(vm, PVSCHED_BPF_COUNT_NAME, NULL), 0,
		  "assign %s", PVSCHED_BPF_COUNT_NAME);
	CHECK(worker_run(a, va, 30) && worker_run(b, vb, 40),
	      "thread a runs vCPU 0 30 times, thread b vCPU 1 40 times");

	CHECK(bpf_slot_get(pvsched_bpf_count_slot(a->tid), &slot) &&
	      slot.tid == (__u32)a->tid && slot.counts.reg == 1 &&
	      slot.counts.vmenter >= 30 &&
	      slot.counts.vmenter == slot.counts.vmexit,
	      "a counts in its own slot: register 1, vmenter == vmexit >= 30");
	tid = a->tid;
	CHECK_RET(bpf_map_op(BPF_MAP_LOOKUP_ELEM, bpf_count.map_fd, &tid, &v),
		  -ENOENT, "a has no hash map entry");
	CHECK(bpf_slot_get(idx, &slot) && slot.tid == taken.tid &&
	      !slot.counts.reg && !slot.counts.vmenter,
	      "b's slot still belongs to tid %u, with no counts", taken.tid);
	tid = b->tid;
	CHECK(!bpf_map_op(BPF_MAP_LOOKUP_ELEM, bpf_count.map_fd, &tid, &v) &&
	      v.reg == 1 && v.vmenter >= 40 && v.vmenter == v.vmexit,
	      "b counts in the hash map: register 1, vmenter == vmexit >= 40");
	CHECK(task_is(&bpf_count, a->tid, 1, 0, 30) &&
	      task_is(&bpf_count, b->tid, 1, 0, 40),
	      "the readers find both threads");

	CHECK_RET(pvsched_assign(vm, "", NULL), 0, "unassign");
	CHECK(task_is(&bpf_count, a->tid, 1, 1, 30) &&
	      task_is(&bpf_count, b->tid, 1, 1, 40),
	      "both got unregister 1 where they count");
	CHECK(counts_reset(&bpf_count) &&
	      bpf_slot_get(idx, &slot) && !slot.tid,
	      "reset frees the slots");
	worker_destroy(a);
	worker_destroy(b);
	vm_close(vm);
	CHECK(bpf_count_unload(true), "pvsched-bpf unload %s",
	      PVSCHED_BPF_COUNT_NAME);
}

/* 8. A VM destroyed with a driver assigned. */
static void test_vm_close(void)
{
	char dir[256], path[256], buf[64];
	struct kvm_vcpu *v0, *v1;
	struct worker *a, *b;
	struct kvm_vm *vm;
	int fd, r;

	CHECK(counts_reset(&mod_count), "reset the counts");
	vm = vm_create();
	v0 = vcpu_add(vm);
	v1 = vcpu_add(vm);
	a = worker_create();
	b = worker_create();
	CHECK_RET(pvsched_assign(vm, COUNT_DRV, NULL), 0, "assign %s",
		  COUNT_DRV);
	CHECK(worker_run(a, v0, 30) & worker_run(b, v1, 30),
	      "2 vCPUs run 30 times each on threads A and B");
	CHECK_RET(module_unload(), -EAGAIN,
		  "rmmod %s refused (EWOULDBLOCK) while the VM uses it",
		  COUNT_DRV);
	vm_debugfs_dir(vm, dir, sizeof(dir));
	vm_close(vm);
	CHECK(task_is(&mod_count, a->tid, 1, 1, 30) &&
	      task_is(&mod_count, b->tid, 1, 1, 30),
	      "closing the VM unregisters both vCPU threads once");
	CHECK(!path_exists(dir), "the VM's debugfs directory is gone");
	CHECK_RET(module_unload(), 0, "rmmod %s after the VM closed",
		  COUNT_DRV);
	CHECK_RET(module_load(), 0, "insmod %s again", COUNT_KO);

	/* An open debugfs file keeps the VM, and its driver, alive. */
	vm = vm_create();
	v0 = vcpu_add(vm);
	CHECK_RET(pvsched_assign(vm, COUNT_DRV, NULL), 0, "assign %s",
		  COUNT_DRV);
	CHECK(worker_run(a, v0, 30), "vCPU runs 30 times on thread A");
	vm_debugfs_file(vm, path, sizeof(path));
	vm_debugfs_dir(vm, dir, sizeof(dir));
	fd = open(path, O_RDWR | O_CLOEXEC);
	TEST_ASSERT(fd >= 0, "open %s", path);
	vm_close(vm);
	CHECK(task_is(&mod_count, a->tid, 1, 0, 30),
	      "VM fds closed, debugfs file open: the vCPU is still registered");
	CHECK_RET(module_unload(), -EAGAIN,
		  "rmmod refused while the debugfs file holds the VM");
	r = pread(fd, buf, sizeof(buf) - 1, 0);
	CHECK(r > 0 && !strncmp(buf, COUNT_DRV "\n", r),
	      "the held VM's debugfs file still reads \"%s\\n\"", COUNT_DRV);
	close(fd);
	CHECK(task_is(&mod_count, a->tid, 1, 1, 30),
	      "closing the debugfs file destroys the VM: unregister 1");
	CHECK(!path_exists(dir), "the VM's debugfs directory is gone");
	CHECK_RET(module_unload(), 0, "rmmod %s", COUNT_DRV);
	CHECK_RET(module_load(), 0, "insmod %s again", COUNT_KO);
	worker_destroy(a);
	worker_destroy(b);
}

/* 9. The module is pinned while a VM has it assigned. */
static void test_module_pin(void)
{
	struct kvm_vcpu *vcpu;
	struct worker *w;
	struct kvm_vm *vm;
	char path[256];

	vm = vm_create();
	vcpu = vcpu_add(vm);
	w = worker_create();
	CHECK_RET(pvsched_assign(vm, COUNT_DRV, NULL), 0, "assign %s",
		  COUNT_DRV);
	CHECK_RET(module_unload(), -EAGAIN,
		  "rmmod refused (EWOULDBLOCK) while assigned, vCPU never ran");
	CHECK(driver_listed(COUNT_DRV) && vm_driver_is(vm, COUNT_DRV),
	      "%s still listed and assigned after the refused rmmod",
	      COUNT_DRV);
	CHECK(worker_run(w, vcpu, 20), "the vCPU runs 20 times");
	CHECK_RET(module_unload(), -EAGAIN,
		  "rmmod refused while a registered vCPU uses it");
	CHECK_RET(pvsched_assign(vm, NOP_DRV, NULL), 0, "replace with %s",
		  NOP_DRV);
	CHECK_RET(module_unload(), 0, "rmmod %s after the VM replaced it",
		  COUNT_DRV);
	CHECK(!driver_listed(COUNT_DRV), "%s no longer listed", COUNT_DRV);
	CHECK_RET(pvsched_assign(vm, COUNT_DRV, NULL), -EINVAL,
		  "assigning the unloaded %s fails with EINVAL", COUNT_DRV);
	CHECK(vm_driver_is(vm, NOP_DRV), "the VM keeps %s", NOP_DRV);
	CHECK_RET(module_load(), 0, "insmod %s again", COUNT_KO);
	CHECK(driver_listed(COUNT_DRV), "%s listed again", COUNT_DRV);

	/* Assigned through debugfs: same pinning. */
	vm_debugfs_file(vm, path, sizeof(path));
	CHECK_EQ(write_file(path, COUNT_DRV "\n", strlen(COUNT_DRV) + 1, -1),
		 strlen(COUNT_DRV) + 1, "assign the reloaded %s via debugfs",
		 COUNT_DRV);
	CHECK_RET(module_unload(), -EAGAIN,
		  "rmmod refused while assigned through debugfs");
	CHECK(worker_run(w, vcpu, 20) &&
	      task_is(&mod_count, w->tid, 1, 0, 20),
	      "the reloaded module counts the vCPU: register 1, vmenter >= 20");
	CHECK_EQ(write_file(path, "-\n", 2, -1), 2, "unassign via debugfs (\"-\")");
	CHECK_RET(module_unload(), 0, "rmmod after the debugfs unassign");
	CHECK_RET(module_load(), 0, "insmod %s again", COUNT_KO);
	worker_destroy(w);
	vm_close(vm);
}

/* 10. A BPF driver unregistered while a VM uses it. */
static void test_bpf_unload(void)
{
	struct count_driver old = { PVSCHED_BPF_COUNT_NAME, -1, -1 };
	struct kvm_pvsched_ops prev;
	struct task_counts t, t2;
	struct kvm_vcpu *vcpu;
	struct worker *w;
	struct kvm_vm *vm;

	if (!check(bpf_count_load(), "pvsched-bpf load count")) {
		group_fail_rest("bpf_pvsched_count does not load");
		return;
	}
	CHECK(counts_reset(&bpf_count), "reset the BPF counts");
	vm = vm_create();
	vcpu = vcpu_add(vm);
	w = worker_create();
	CHECK_RET(pvsched_assign(vm, PVSCHED_BPF_COUNT_NAME, NULL), 0,
		  "assign %s", PVSCHED_BPF_COUNT_NAME);
	CHECK(worker_run(w, vcpu, 100) &&
	      task_is(&bpf_count, w->tid, 1, 0, 100),
	      "100 KVM_RUNs: register 1, vmenter == vmexit >= 100");

	/* Unload: the VM keeps the driver and its map keeps counting. */
	CHECK(bpf_count_unload(false), "pvsched-bpf unload %s while assigned",
	      PVSCHED_BPF_COUNT_NAME);
	CHECK(!driver_listed(PVSCHED_BPF_COUNT_NAME),
	      "%s gone from the sysctl", PVSCHED_BPF_COUNT_NAME);
	CHECK(!path_exists(PVSCHED_BPF_COUNT_MAP) &&
	      !path_exists(PVSCHED_BPF_COUNT_SLOTS_MAP),
	      "its maps are unpinned");
	CHECK(vm_driver_is(vm, PVSCHED_BPF_COUNT_NAME),
	      "GET still returns %s", PVSCHED_BPF_COUNT_NAME);
	t = task_get(&bpf_count, w->tid);
	CHECK(worker_run(w, vcpu, 100), "100 more KVM_RUNs after the unload");
	CHECK(task_is(&bpf_count, w->tid, 1, 0, t.vmenter + 100),
	      "the unloaded driver still counts: vmenter == vmexit, +100");
	CHECK_RET(pvsched_assign(vm, PVSCHED_BPF_COUNT_NAME, NULL), -EINVAL,
		  "assigning the unregistered name fails with EINVAL");
	CHECK(vm_driver_is(vm, PVSCHED_BPF_COUNT_NAME),
	      "... and the VM keeps its driver");
	CHECK_RET(pvsched_assign(vm, "", &prev), 0, "unassign");
	CHECK(ops_is(&prev, PVSCHED_BPF_COUNT_NAME),
	      "unassign hands back %s", PVSCHED_BPF_COUNT_NAME);
	t = task_get(&bpf_count, w->tid);
	CHECK(t.reg == 1 && t.unreg == 1, "the old driver got unregister 1");
	CHECK(worker_run(w, vcpu, 50), "50 KVM_RUNs without a driver");
	t2 = task_get(&bpf_count, w->tid);
	CHECK(task_same(&t, &t2), "no callback after unassign");

	/* Load again and use the new instance. */
	count_driver_take(&old, &bpf_count);
	CHECK(bpf_count_load(), "pvsched-bpf load count again");
	CHECK(driver_listed(PVSCHED_BPF_COUNT_NAME), "%s listed again",
	      PVSCHED_BPF_COUNT_NAME);
	CHECK_RET(pvsched_assign(vm, PVSCHED_BPF_COUNT_NAME, NULL), 0,
		  "assign the new %s", PVSCHED_BPF_COUNT_NAME);
	CHECK(worker_run(w, vcpu, 50) &&
	      task_is(&bpf_count, w->tid, 1, 0, 50),
	      "the new instance counts in its own map: register 1, vmenter >= 50");
	t2 = task_get(&old, w->tid);
	CHECK(task_same(&t, &t2), "the old instance got no callback");
	count_driver_close(&old);

	/* Unload while assigned, load again: a new driver of the same name. */
	CHECK(bpf_count_unload(false), "unload while assigned, again");
	count_driver_take(&old, &bpf_count);
	CHECK(bpf_count_load(),
	      "load count while a VM holds the old %s: registers anew",
	      PVSCHED_BPF_COUNT_NAME);
	CHECK_RET(pvsched_assign(vm, PVSCHED_BPF_COUNT_NAME, &prev), 0,
		  "REPLACE the old %s with the new one of the same name",
		  PVSCHED_BPF_COUNT_NAME);
	CHECK(ops_is(&prev, PVSCHED_BPF_COUNT_NAME),
	      "... hands back %s", PVSCHED_BPF_COUNT_NAME);
	CHECK(task_is(&old, w->tid, 1, 1, 50),
	      "the old instance got unregister 1");
	count_driver_close(&old);
	CHECK(task_is(&bpf_count, w->tid, 1, 0, NO_ENTRIES),
	      "the new instance got register 1");
	vm_close(vm);
	CHECK(task_is(&bpf_count, w->tid, 1, 1, NO_ENTRIES),
	      "closing the VM unregisters from the new instance");
	CHECK(bpf_count_unload(true), "pvsched-bpf unload %s",
	      PVSCHED_BPF_COUNT_NAME);

	/* The sample driver: assign, run, unload while assigned, unassign. */
	vm = vm_create();
	vcpu = vcpu_add(vm);
	CHECK(!bpf_tool_run("load", "sample"), "pvsched-bpf load sample");
	CHECK_RET(pvsched_assign(vm, SAMPLE_DRV, NULL), 0, "assign %s",
		  SAMPLE_DRV);
	CHECK(worker_run(w, vcpu, 50), "50 KVM_RUNs with %s", SAMPLE_DRV);
	CHECK(!bpf_tool_run("unload", SAMPLE_DRV),
	      "pvsched-bpf unload %s while assigned", SAMPLE_DRV);
	CHECK(worker_run(w, vcpu, 50) && vm_driver_is(vm, SAMPLE_DRV),
	      "50 more KVM_RUNs, the VM keeps %s", SAMPLE_DRV);
	CHECK_RET(pvsched_assign(vm, "", NULL), 0, "unassign %s", SAMPLE_DRV);
	worker_destroy(w);
	vm_close(vm);
}

/*
 * 11. REPLACE racing running vCPUs: two vCPU threads loop on KVM_RUN while
 * the main thread cycles pvsched_count -> pvsched_nop -> "".
 */
static void test_race(void)
{
	static const char *const seq[] = { COUNT_DRV, STRICT_DRV, NOP_DRV, "" };
	const int nr_seq = ARRAY_SIZE(seq);
	unsigned int seed = group_seed();
	unsigned long runs0, runs;
	struct kvm_pvsched_ops prev;
	struct strict_stats st;
	struct kvm_vcpu *v[2];
	struct worker *w[2];
	int i, k, cycles, bad_ret = 0, bad_prev = 0;
	struct kvm_vm *vm;
	double t0, end;
	bool ok;

	CHECK(counts_reset(&mod_count), "reset the counts");
	vm = vm_create();
	for (i = 0; i < 2; i++) {
		v[i] = vcpu_add(vm);
		w[i] = worker_create();
		worker_loop(w[i], v[i]);
	}
	/* Both vCPUs have a task before the first assign. */
	CHECK(vcpu_wait_runs(v[0], 0, 1) && vcpu_wait_runs(v[1], 0, 1),
	      "both vCPU threads are running");

	t0 = now();
	end = t0 + RACE_MAX_SECONDS;
	runs0 = READ_ONCE(v[0]->nr_runs) + READ_ONCE(v[1]->nr_runs);
	for (cycles = 0; cycles < RACE_CYCLES && now() < end; cycles++) {
		for (k = 0; k < nr_seq; k++) {
			int r = pvsched_assign(vm, seq[k], &prev);

			if (r) {
				if (!bad_ret++)
					diag("cycle %d: REPLACE \"%s\": %s",
					     cycles, seq[k], err_str(r));
			} else if (!ops_is(&prev, seq[(k + nr_seq - 1) % nr_seq])) {
				if (!bad_prev++)
					diag("cycle %d: REPLACE \"%s\" handed back %s",
					     cycles, seq[k], ops_str(&prev));
			}
			/* Vary where in the vCPUs' loop each REPLACE lands. */
			if (rand_r(&seed) % 4 == 0)
				usleep(rand_r(&seed) % 200);
		}
	}
	runs = READ_ONCE(v[0]->nr_runs) + READ_ONCE(v[1]->nr_runs) - runs0;
	diag("%d cycles (%d REPLACEs) in %.1f s, %lu KVM_RUNs meanwhile",
	     cycles, nr_seq * cycles, now() - t0, runs);
	if (cycles < RACE_CYCLES)
		diag("stopped after %d s before %d cycles", RACE_MAX_SECONDS,
		     RACE_CYCLES);

	CHECK(!bad_ret, "all %d REPLACEs succeeded", nr_seq * cycles);
	CHECK(!bad_prev, "every REPLACE handed back the previous driver");
	CHECK(cycles >= RACE_MIN_CYCLES && runs >= RACE_MIN_RUNS,
	      "overlap: at least %d cycles and %d KVM_RUNs while replacing (%d, %lu)",
	      RACE_MIN_CYCLES, RACE_MIN_RUNS, cycles, runs);

	/* End with pvsched_count assigned while the vCPUs still run. */
	CHECK_RET(pvsched_assign(vm, COUNT_DRV, NULL), 0,
		  "final assign of %s while running", COUNT_DRV);
	ok = vcpu_wait_runs(v[0], v[0]->nr_runs, 10) &&
	     vcpu_wait_runs(v[1], v[1]->nr_runs, 10);
	ok &= worker_stop(w[0]);
	ok &= worker_stop(w[1]);
	CHECK(ok, "vCPU threads: every exit KVM_EXIT_IO with the right value (%lu runs)",
	      v[0]->nr_runs + v[1]->nr_runs);
	CHECK_EQ(counts_nr(&mod_count), 2, "exactly two tasks counted");
	CHECK(task_is(&mod_count, w[0]->tid, cycles + 1, cycles, 1) &&
	      task_is(&mod_count, w[1]->tid, cycles + 1, cycles, 1),
	      "each thread: register == cycles + 1, unregister == cycles, vmenter == vmexit > 0");
	vm_close(vm);
	CHECK(task_is(&mod_count, w[0]->tid, cycles + 1, cycles + 1, 1) &&
	      task_is(&mod_count, w[1]->tid, cycles + 1, cycles + 1, 1),
	      "after VM close: register == unregister for each thread");
	CHECK(strict_read(&st) && !st.errors && st.reg == 2 * cycles &&
	      st.unreg == st.reg && st.callbacks > 0,
	      "%s: %d registers, as many unregisters, callbacks, no stray or unpaired one",
	      STRICT_DRV, 2 * cycles);
	if (st.errors || st.reg != 2 * cycles || st.unreg != st.reg)
		diag("%s", st.line);
	CHECK_RET(test_drv_unload(), 0, "%s unloads", TEST_DRV_MOD);
	worker_destroy(w[0]);
	worker_destroy(w[1]);
}

/*
 * 11b. REPLACE racing a vCPU that hops between two threads on every
 * KVM_RUN (each run moves the registration).
 */
struct hop {
	struct kvm_vcpu *vcpu;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int turn;
	bool stop;		/* all under @lock, */
	bool failed;		/* but read by the main thread without */
	pid_t tid[2];
	unsigned long runs[2];
};

struct hop_arg {
	struct hop *h;
	int me;
};

static void *hop_fn(void *arg)
{
	struct hop_arg *a = arg;
	struct hop *h = a->h;

	h->tid[a->me] = gettid();
	pthread_mutex_lock(&h->lock);
	for (;;) {
		while (h->turn != a->me && !h->stop)
			pthread_cond_wait(&h->cond, &h->lock);
		if (h->stop)
			break;
		pthread_mutex_unlock(&h->lock);
		if (!vcpu_run_io(h->vcpu))
			WRITE_ONCE(h->failed, true);
		else
			WRITE_ONCE(h->runs[a->me], h->runs[a->me] + 1);
		pthread_mutex_lock(&h->lock);
		if (h->failed)
			h->stop = true;
		h->turn = !a->me;
		pthread_cond_broadcast(&h->cond);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* Join a thread that runs @vcpu, kicking the vCPU if it is stuck. */
static void join_or_kick(pthread_t thread, struct kvm_vcpu *vcpu)
{
	struct timespec ts;

	for (;;) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += STUCK_SECONDS;
		if (!pthread_timedjoin_np(thread, NULL, &ts))
			return;
		vcpu_kick(vcpu, thread);
	}
}

static void test_race_hop(void)
{
	static const char *const seq[] = { COUNT_DRV, STRICT_DRV, NOP_DRV, "" };
	struct hop h = { .lock = PTHREAD_MUTEX_INITIALIZER,
			 .cond = PTHREAD_COND_INITIALIZER };
	struct task_counts t0_counts, t1_counts;
	unsigned int seed = group_seed();
	unsigned long hops0[2];
	struct hop_arg args[2];
	pthread_t th[2];
	int i, cycles, bad = 0;
	struct kvm_vm *vm;
	double t0, end;

	CHECK(counts_reset(&mod_count), "reset the counts");
	vm = vm_create();
	h.vcpu = vcpu_add(vm);
	for (i = 0; i < 2; i++) {
		args[i] = (struct hop_arg){ &h, i };
		TEST_ASSERT(!pthread_create(&th[i], NULL, hop_fn, &args[i]),
			    "pthread_create");
	}

	/* Start replacing once the vCPU has run on both threads. */
	end = now() + 10;
	while ((!READ_ONCE(h.runs[0]) || !READ_ONCE(h.runs[1])) &&
	       !READ_ONCE(h.failed) && now() < end)
		usleep(1000);
	CHECK(h.runs[0] && h.runs[1], "the vCPU runs on both threads in turn");

	t0 = now();
	end = t0 + HOP_MAX_SECONDS;
	hops0[0] = READ_ONCE(h.runs[0]);
	hops0[1] = READ_ONCE(h.runs[1]);
	for (cycles = 0; cycles < HOP_CYCLES && now() < end &&
	     !READ_ONCE(h.failed); cycles++) {
		for (i = 0; i < (int)ARRAY_SIZE(seq); i++) {
			bad += !!pvsched_assign(vm, seq[i], NULL);
			if (rand_r(&seed) % 4 == 0)
				usleep(rand_r(&seed) % 500);
		}
	}
	hops0[0] = READ_ONCE(h.runs[0]) - hops0[0];
	hops0[1] = READ_ONCE(h.runs[1]) - hops0[1];
	pthread_mutex_lock(&h.lock);
	h.stop = true;
	pthread_cond_broadcast(&h.cond);
	pthread_mutex_unlock(&h.lock);
	join_or_kick(th[0], h.vcpu);
	join_or_kick(th[1], h.vcpu);
	diag("%d cycles in %.1f s while the vCPU hopped %lu + %lu times",
	     cycles, now() - t0, h.runs[0], h.runs[1]);
	if (h.failed)
		diag("%s", h.vcpu->err);

	CHECK(!bad, "all %d REPLACEs succeeded", (int)ARRAY_SIZE(seq) * cycles);
	CHECK(!h.failed && h.runs[0] > 0 && h.runs[1] > 0,
	      "the vCPU ran on both threads, every exit KVM_EXIT_IO");
	CHECK(cycles >= HOP_MIN_CYCLES && hops0[0] >= HOP_MIN_HOPS &&
	      hops0[1] >= HOP_MIN_HOPS,
	      "overlap: at least %d cycles and %d runs on each thread while replacing (%d, %lu, %lu)",
	      HOP_MIN_CYCLES, HOP_MIN_HOPS, cycles, hops0[0], hops0[1]);
	CHECK(task_is(&mod_count, h.tid[0], ANY, ANY, 0) &&
	      task_is(&mod_count, h.tid[1], ANY, ANY, 0),
	      "vmenter == vmexit for each thread");
	t0_counts = task_get(&mod_count, h.tid[0]);
	t1_counts = task_get(&mod_count, h.tid[1]);
	CHECK(t0_counts.reg > 0 && t1_counts.reg > 0,
	      "the registration followed the vCPU to both threads");
	CHECK(t0_counts.reg == t0_counts.unreg &&
	      t1_counts.reg == t1_counts.unreg,
	      "ending unassigned: register == unregister for each thread");
	CHECK(strict_clean(true), "%s: no stray or unpaired callback, register == unregister",
	      STRICT_DRV);
	vm_close(vm);
	CHECK_RET(test_drv_unload(), 0, "%s unloads", TEST_DRV_MOD);
}

/*
 * A thread that assigns @name and unassigns, again and again, while the
 * driver goes away and comes back under it.
 */
struct replacer {
	pthread_t thread;
	struct kvm_vm *vm;
	const char *name;
	unsigned int pause_us;	/* up to this long unassigned, each time */
	unsigned int seed;
	bool hold;		/* keep the driver assigned a while, too */
	bool stop;
	unsigned long assigned, einval, bad;
};

static void *replacer_fn(void *arg)
{
	struct replacer *rp = arg;
	unsigned int seed = rp->seed;
	int r;

	while (!READ_ONCE(rp->stop)) {
		r = pvsched_assign(rp->vm, rp->name, NULL);
		if (!r) {
			rp->assigned++;
			/* Let the vCPU call the driver for a while. */
			if (rp->hold)
				usleep(rand_r(&seed) % rp->pause_us);
		} else if (r == -EINVAL)
			rp->einval++;
		else if (!rp->bad++)
			diag("REPLACE \"%s\": %s", rp->name, err_str(r));
		r = pvsched_assign(rp->vm, "", NULL);
		if (r && !rp->bad++)
			diag("REPLACE \"\": %s", err_str(r));
		/* Give the other side a chance to find the driver unused. */
		usleep(rand_r(&seed) % rp->pause_us);
	}
	return NULL;
}

static void replacer_start(struct replacer *rp, struct kvm_vm *vm,
			   const char *name, unsigned int pause_us,
			   unsigned int seed, bool hold)
{
	memset(rp, 0, sizeof(*rp));
	rp->seed = seed;
	rp->hold = hold;
	rp->vm = vm;
	rp->name = name;
	rp->pause_us = pause_us;
	TEST_ASSERT(!pthread_create(&rp->thread, NULL, replacer_fn, rp),
		    "pthread_create");
}

static void replacer_stop(struct replacer *rp)
{
	WRITE_ONCE(rp->stop, true);
	pthread_join(rp->thread, NULL);
	diag("REPLACE \"%s\": %lu assigned, %lu EINVAL (not registered)",
	     rp->name, rp->assigned, rp->einval);
}

/*
 * A VM whose vCPU loops on a worker thread while a replacer assigns and
 * unassigns @name: the setting of the module and BPF unload races.
 */
struct race {
	struct kvm_vm *vm;
	struct kvm_vcpu *vcpu;
	struct worker *w;
	struct replacer rp;
};

static void race_start(struct race *r, const char *name,
		       unsigned int pause_us, unsigned int seed, bool nap)
{
	r->vm = vm_create();
	r->vcpu = vcpu_add(r->vm);
	r->w = worker_create();
	r->w->nap = nap;
	worker_loop(r->w, r->vcpu);
	CHECK(vcpu_wait_runs(r->vcpu, 0, 1), "the vCPU thread is running");
	replacer_start(&r->rp, r->vm, name, pause_us, seed, !nap);
}

/* Stop the replacer and the vCPU; check what both saw. */
static void race_stop(struct race *r)
{
	bool ok;

	replacer_stop(&r->rp);
	ok = worker_stop(r->w);
	CHECK(!r->rp.bad, "REPLACE only ever succeeded or failed with EINVAL");
	CHECK(ok, "vCPU: every exit KVM_EXIT_IO with the right value (%lu runs)",
	      r->vcpu->nr_runs);
}

static void race_free(struct race *r)
{
	worker_destroy(r->w);
	vm_close(r->vm);
}

/*
 * The pvsched_test_strict lines that each unload of pvsched_test_drv
 * leaves in the kernel log, from @fd (/dev/kmsg, opened at the group's
 * start): how many unloads, and whether each had register == unregister.
 */
static int strict_unload_lines(int fd, long *callbacks, int *unbalanced)
{
	char rec[1024], *msg;
	long reg, unreg, cb;
	int n = 0;
	ssize_t r;

	*callbacks = 0;
	*unbalanced = 0;
	for (;;) {
		r = read(fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (r <= 0)
			break;
		rec[r] = '\0';
		msg = strchr(rec, ';');
		if (!msg || sscanf(msg + 1, "pvsched_test_strict: unloaded after %ld registers, %ld unregisters, %ld callbacks",
				   &reg, &unreg, &cb) != 3)
			continue;
		n++;
		*callbacks += cb;
		if (reg != unreg) {
			if (!(*unbalanced)++)
				diag("%s", msg + 1);
		}
	}
	return n;
}

/*
 * 11c. rmmod/insmod of pvsched_test_drv's strict driver racing REPLACE and
 * a running vCPU: its unregister frees the task's state at once and
 * sleeps, and it records any callback the framework makes for a task it
 * does not know.
 */
static void test_race_rmmod(void)
{
	int r, cycles, unloads = 0, bad_rmmod = 0, bad_insmod = 0, unbalanced;
	int kfd, lines, dirty = 0;
	struct race race;
	double end, hard_end;
	long callbacks;

	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	TEST_ASSERT(kfd >= 0, "open /dev/kmsg");
	lseek(kfd, 0, SEEK_END);
	race_start(&race, STRICT_DRV, 2000, group_seed(), false);

	end = now() + RMMOD_MAX_SECONDS;
	hard_end = now() + RACE_OVERTIME_SECONDS;
	for (cycles = 0; cycles < RMMOD_CYCLES; cycles++) {
		/* Past the time cap, go on until the overlap is there. */
		if (now() >= end &&
		    ((unloads >= RMMOD_MIN_UNLOADS &&
		      READ_ONCE(race.rp.assigned) >= RMMOD_MIN_ASSIGNED) ||
		     now() >= hard_end))
			break;
		/* Errors of this instance so far (the log has the rest). */
		if (!strict_clean(false))
			dirty++;
		r = test_drv_unload();
		if (r == -EAGAIN) {
			usleep(1000);
			continue;
		}
		if (r) {
			if (!bad_rmmod++)
				diag("rmmod: %s", err_str(r));
			continue;
		}
		unloads++;
		r = test_drv_load("strict", true);
		if (r && !bad_insmod++)
			diag("insmod: %s", err_str(r));
	}
	race_stop(&race);
	diag("%d rmmod attempts, %d unloads", cycles, unloads);

	CHECK(!bad_rmmod, "rmmod only ever succeeded or failed with EWOULDBLOCK");
	CHECK(!bad_insmod && driver_listed(STRICT_DRV),
	      "insmod after every successful rmmod succeeded");
	CHECK(unloads >= RMMOD_MIN_UNLOADS &&
	      race.rp.assigned >= RMMOD_MIN_ASSIGNED,
	      "overlap: at least %d unloads and %d assignments that landed while the vCPU ran (%d, %lu)",
	      RMMOD_MIN_UNLOADS, RMMOD_MIN_ASSIGNED, unloads,
	      race.rp.assigned);
	CHECK(vm_driver_is(race.vm, ""), "the VM ends without a driver");
	CHECK(!dirty && strict_clean(true),
	      "%s: no stray or unpaired callback, nothing left registered",
	      STRICT_DRV);
	CHECK_RET(test_drv_unload(), 0, "no module reference leaked: rmmod succeeds");
	lines = strict_unload_lines(kfd, &callbacks, &unbalanced);
	close(kfd);
	CHECK(lines == unloads + 1 && !unbalanced && callbacks > 0,
	      "every unload (%d) had register == unregister, %ld callbacks in all",
	      lines, callbacks);
	race_free(&race);
}

/* 11d. pvsched-bpf load/unload racing REPLACE and a running vCPU. */
static void test_race_bpf(void)
{
	double end, hard_end, t, t_load, t_unload, max_load = 0, max_unload = 0;
	int cycles, bad_load = 0, bad_unload = 0;
	struct race race;

	race_start(&race, PVSCHED_BPF_COUNT_NAME, 500, group_seed(), true);

	end = now() + BPF_RACE_MAX_SECONDS;
	hard_end = now() + BPF_RACE_OVERTIME_SECONDS;
	for (cycles = 0; cycles < BPF_RACE_CYCLES; cycles++) {
		if (now() >= end &&
		    ((cycles >= BPF_RACE_MIN_CYCLES &&
		      READ_ONCE(race.rp.assigned) >= BPF_RACE_MIN_ASSIGNED) ||
		     now() >= hard_end))
			break;
		t = now();
		bad_load += !!bpf_tool_run("load", "count");
		t_load = now() - t;
		bad_unload += !!bpf_tool_run("unload", PVSCHED_BPF_COUNT_NAME);
		t_unload = now() - t - t_load;
		max_load = t_load > max_load ? t_load : max_load;
		max_unload = t_unload > max_unload ? t_unload : max_unload;
	}
	race_stop(&race);
	diag("%d load/unload cycles, slowest load %.2f s, slowest unload %.2f s",
	     cycles, max_load, max_unload);

	CHECK(!bad_load, "pvsched-bpf load count succeeded every time (%d)",
	      cycles);
	CHECK(!bad_unload, "pvsched-bpf unload succeeded every time, assigned or not");
	CHECK(cycles >= BPF_RACE_MIN_CYCLES &&
	      race.rp.assigned >= BPF_RACE_MIN_ASSIGNED,
	      "overlap: at least %d load/unload cycles and %d assignments that landed (%d, %lu)",
	      BPF_RACE_MIN_CYCLES, BPF_RACE_MIN_ASSIGNED, cycles,
	      race.rp.assigned);
	CHECK(vm_driver_is(race.vm, "") && !driver_listed(PVSCHED_BPF_COUNT_NAME),
	      "the VM ends without a driver, %s unregistered",
	      PVSCHED_BPF_COUNT_NAME);
	race_free(&race);
}

/* 12. Many VMs at once. */
static void test_many_vms(void)
{
	struct kvm_vm *vm[NR_MANY_VMS];
	struct worker *w[NR_MANY_VMS];
	char dir[NR_MANY_VMS][256];
	int i, assigned = 0, dirs = 0, good = 0;
	bool ok = true;

	CHECK(counts_reset(&mod_count), "reset the counts");
	for (i = 0; i < NR_MANY_VMS; i++) {
		vm[i] = vm_create();
		vcpu_add(vm[i]);
		w[i] = worker_create();
		vm_debugfs_dir(vm[i], dir[i], sizeof(dir[i]));
		assigned += !pvsched_assign(vm[i], COUNT_DRV, NULL);
		dirs += path_exists(dir[i]);
	}
	CHECK_EQ(assigned, NR_MANY_VMS, "%d VMs created and assigned %s",
		 NR_MANY_VMS, COUNT_DRV);
	CHECK_EQ(dirs, NR_MANY_VMS, "%d VM debugfs directories", NR_MANY_VMS);
	for (i = 0; i < NR_MANY_VMS; i++)
		worker_start(w[i], WORKER_RUN, vm[i]->vcpus[0], 20);
	for (i = 0; i < NR_MANY_VMS; i++)
		ok &= worker_wait(w[i]);
	CHECK(ok, "%d vCPUs ran 20 times each, concurrently", NR_MANY_VMS);
	CHECK_EQ(counts_nr(&mod_count), NR_MANY_VMS, "%d tasks counted",
		 NR_MANY_VMS);
	for (i = 0; i < NR_MANY_VMS; i++)
		good += task_is(&mod_count, w[i]->tid, 1, 0, 20);
	CHECK_EQ(good, NR_MANY_VMS,
		 "each: register 1, unregister 0, vmenter == vmexit >= 20");
	CHECK_RET(module_unload(), -EAGAIN, "rmmod refused while VMs use it");
	for (i = 0; i < NR_MANY_VMS; i++)
		vm_close(vm[i]);
	for (i = good = dirs = 0; i < NR_MANY_VMS; i++) {
		good += task_is(&mod_count, w[i]->tid, 1, 1, 20);
		dirs += path_exists(dir[i]);
		worker_destroy(w[i]);
	}
	CHECK_EQ(good, NR_MANY_VMS, "after closing all VMs each unregistered once");
	CHECK_EQ(dirs, 0, "all VM debugfs directories gone");
	CHECK_RET(module_unload(), 0, "rmmod %s: no reference left", COUNT_DRV);
	CHECK_RET(module_load(), 0, "insmod %s again", COUNT_KO);
}

/* ------------------------------------------------------------------ */
/* Driver lifetime: guest mode is an RCU quiescent state              */
/* ------------------------------------------------------------------ */

/* "jmp $": a guest that never exits on its own. */
static const uint8_t guest_spin[] = { 0xeb, 0xfe };

#define SPIN_CPU	1	/* nohz_full CPU of the debug kernel's boot */

/* pvsched_count's summary line; false if it cannot be read. */
struct count_summary {
	long long registered, retired, retired_max, stray;
};

static bool count_summary(struct count_summary *cs)
{
	char buf[256];
	int r;

	r = read_file(COUNT_SUMMARY, buf, sizeof(buf));
	if (r < 0) {
		diag("%s: %s", COUNT_SUMMARY, err_str(r));
		return false;
	}
	if (sscanf(buf, "registered=%lld retired=%lld retired_max=%lld stray=%lld",
		   &cs->registered, &cs->retired, &cs->retired_max,
		   &cs->stray) != 4) {
		diag("%s: malformed \"%s\"", COUNT_SUMMARY, buf);
		return false;
	}
	return true;
}

/* Callbacks for tasks that were not registered, as pvsched_count saw them. */
static long long count_stray(void)
{
	struct count_summary cs;

	return count_summary(&cs) ? cs.stray : -1;
}

static bool pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return !sched_setaffinity(0, sizeof(set), &set);
}

static void unpin(void)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Is @cpu listed in /sys/devices/system/cpu/nohz_full ("1", "1-3,5")? */
static bool cpu_is_nohz_full(int cpu)
{
	char buf[256], *p = buf, *end;
	long lo, hi;

	if (read_file("/sys/devices/system/cpu/nohz_full", buf, sizeof(buf)) <= 0)
		return false;
	while (*p >= '0' && *p <= '9') {
		lo = hi = strtol(p, &end, 10);
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (cpu >= lo && cpu <= hi)
			return true;
		p = *end == ',' ? end + 1 : end;
	}
	return false;
}

/* Per-row interrupt counts of @cpu in /proc/interrupts, for diagnostics. */
#define IRQ_ROWS	64

struct irq_snap {
	int nr;
	char name[IRQ_ROWS][16];
	long long count[IRQ_ROWS];
};

static void irq_snap(int cpu, struct irq_snap *s)
{
	static char buf[65536];
	char *line, *save, *p, *end;
	long long v;
	int i;

	s->nr = 0;
	if (read_file("/proc/interrupts", buf, sizeof(buf)) <= 0)
		return;
	line = strtok_r(buf, "\n", &save);	/* the CPU header */
	for (line = strtok_r(NULL, "\n", &save); line && s->nr < IRQ_ROWS;
	     line = strtok_r(NULL, "\n", &save)) {
		p = line + strspn(line, " ");
		end = strchr(p, ':');
		if (!end)
			continue;
		snprintf(s->name[s->nr], sizeof(s->name[0]), "%.*s",
			 (int)(end - p), p);
		p = end + 1;
		for (i = 0, v = -1; i <= cpu; i++) {
			v = strtoll(p, &end, 10);
			if (end == p)
				break;
			p = end;
		}
		s->count[s->nr++] = v;
	}
}

/* Show the interrupts @cpu took between @a and @b. */
static void irq_diag(int cpu, const struct irq_snap *a,
		     const struct irq_snap *b)
{
	char out[512] = "";
	size_t len = 0;
	int i;

	for (i = 0; i < a->nr && i < b->nr; i++) {
		if (b->count[i] != a->count[i] && len < sizeof(out) - 40)
			len += snprintf(out + len, sizeof(out) - len, " %s:%lld",
					a->name[i], b->count[i] - a->count[i]);
	}
	diag("CPU %d interrupts meanwhile:%s", cpu, len ? out : " none");
}

/* A vCPU that spins in the guest on SPIN_CPU, in one KVM_RUN. */
struct spinner {
	struct kvm_vm *vm;
	struct kvm_vcpu *vcpu;
	pthread_t thread;
	pid_t tid;
	bool pinned;
	int ret, err;		/* KVM_RUN's result and errno */
};

static void *spinner_fn(void *arg)
{
	struct spinner *s = arg;

	s->pinned = pin_to_cpu(SPIN_CPU);
	WRITE_ONCE(s->tid, gettid());
	s->ret = __vcpu_ioctl(s->vcpu, KVM_RUN, NULL);
	s->err = errno;
	return NULL;
}

/*
 * Start a VM with @drv whose vCPU spins in the guest; true once the
 * driver saw it enter the guest.
 */
static bool spinner_start(struct spinner *s, const char *drv)
{
	struct task_counts t;
	double end;

	memset(s, 0, sizeof(*s));
	s->vm = vm_create();
	memcpy((char *)s->vm->mem + GUEST_CODE_GPA, guest_spin,
	       sizeof(guest_spin));
	s->vcpu = vcpu_add(s->vm);
	TEST_ASSERT(!pvsched_assign(s->vm, drv, NULL), "assign %s", drv);
	TEST_ASSERT(!pthread_create(&s->thread, NULL, spinner_fn, s),
		    "pthread_create");
	for (end = now() + 10; now() < end; usleep(10000)) {
		if (!READ_ONCE(s->tid))
			continue;
		t = task_get(&mod_count, s->tid);
		if (t.vmenter > 0)
			return s->pinned;
	}
	diag("the spinning vCPU did not enter the guest within 10 s");
	return false;
}

/* Signal the spinner out of KVM_RUN; true if KVM_RUN failed with EINTR. */
static bool spinner_stop(struct spinner *s)
{
	pthread_kill(s->thread, SIGUSR1);
	pthread_join(s->thread, NULL);
	if (s->ret != -1 || s->err != EINTR)
		diag("KVM_RUN of the spinning vCPU returned %d, errno %d (%s), exit reason %u",
		     s->ret, s->err, strerror(s->err), s->vcpu->run->exit_reason);
	return s->ret == -1 && s->err == EINTR;
}

/*
 * Does the spinner come to stay in guest mode, i.e. its task sees no
 * VMENTER, for @ms, within ten tries? On a nohz_full CPU nothing
 * interrupts it once the tick has stopped, which can take a moment.
 */
static bool spinner_quiet(struct spinner *s, int ms)
{
	struct task_counts a, b;
	int i;

	for (i = 0; i < 10; i++) {
		a = task_get(&mod_count, s->tid);
		usleep(ms * 1000);
		b = task_get(&mod_count, s->tid);
		if (a.vmenter == b.vmenter && a.vmenter > 0)
			return true;
		diag("vCPU exited %lld times in %d ms", b.vmenter - a.vmenter,
		     ms);
	}
	return false;
}

/*
 * 13. A driver change while a vCPU stays in the guest: on a nohz_full CPU
 * guest mode is an extended RCU quiescent state, so synchronize_rcu()
 * does not wait for the vCPU, and the VMEXIT after the change must still
 * not reach the old driver (nor the module, once unloaded).
 */
static void test_guest_mode_replace(void)
{
	struct task_counts t1, t2;
	struct irq_snap ia, ib;
	struct kvm_vm *holder;
	struct spinner s;
	bool nohz = cpu_is_nohz_full(SPIN_CPU);

	diag("CPU %d is %sa nohz_full CPU", SPIN_CPU, nohz ? "" : "not ");
	TEST_ASSERT(pin_to_cpu(0), "pin the test to CPU 0");
	CHECK(counts_reset(&mod_count), "reset the counts");

	/* A: another VM keeps the static key on. */
	holder = vm_create();
	CHECK_RET(pvsched_assign(holder, NOP_DRV, NULL), 0,
		  "another VM holds %s", NOP_DRV);
	CHECK(spinner_start(&s, COUNT_DRV),
	      "a vCPU pinned to CPU %d spins in the guest with %s",
	      SPIN_CPU, COUNT_DRV);
	if (nohz)
		CHECK(spinner_quiet(&s, 300),
		      "on nohz_full CPU %d it comes to stay in guest mode, no VM exit for 300 ms",
		      SPIN_CPU);
	else
		skip("CPU 1 not nohz_full: the tick makes the vCPU exit",
		     "on nohz_full CPU %d it stays in guest mode", SPIN_CPU);
	irq_snap(SPIN_CPU, &ia);
	CHECK_RET(pvsched_assign(s.vm, "", NULL), 0,
		  "REPLACE \"\" from CPU 0 while the vCPU spins");
	t1 = task_get(&mod_count, s.tid);
	irq_snap(SPIN_CPU, &ib);
	irq_diag(SPIN_CPU, &ia, &ib);
	CHECK(t1.reg == 1 && t1.unreg == 1,
	      "REPLACE returned: the task is unregistered once");
	CHECK_EQ(t1.vmenter - t1.vmexit, 0,
		 "REPLACE forced the vCPU out of guest mode before the unregister: VMEXIT delivered");
	usleep(100000);
	CHECK(spinner_stop(&s), "a signal forces the vCPU out of KVM_RUN (EINTR)");
	t2 = task_get(&mod_count, s.tid);
	CHECK(task_same(&t1, &t2),
	      "no callback for the task after its unregister, also at its VM exit");
	vm_close(s.vm);

	/* B: the module is unloaded while the vCPU is still in the guest. */
	CHECK(spinner_start(&s, COUNT_DRV), "again, a vCPU spins with %s",
	      COUNT_DRV);
	CHECK_RET(pvsched_assign(s.vm, "", NULL), 0, "REPLACE \"\"");
	CHECK_RET(module_unload(), 0,
		  "rmmod %s while the vCPU still spins in the guest", COUNT_DRV);
	usleep(100000);
	CHECK(spinner_stop(&s),
	      "the vCPU leaves the guest after the rmmod, without calling into the module");
	vm_close(s.vm);
	CHECK_RET(module_load(), 0, "insmod %s again", COUNT_KO);

	/*
	 * C: no other VM has a driver, so unassigning disables the static key
	 * with the vCPU in the guest; a VM that enables it again must not
	 * revive a VMEXIT for the old driver.
	 */
	vm_close(holder);
	CHECK(spinner_start(&s, COUNT_DRV),
	      "no other VM with a driver: a vCPU spins with %s", COUNT_DRV);
	CHECK_RET(pvsched_assign(s.vm, "", NULL), 0,
		  "REPLACE \"\": the last driver of any VM goes");
	t1 = task_get(&mod_count, s.tid);
	usleep(1500000);	/* past the deferred static key disable */
	holder = vm_create();
	CHECK_RET(pvsched_assign(holder, NOP_DRV, NULL), 0,
		  "another VM assigns %s: the static key is enabled again",
		  NOP_DRV);
	usleep(100000);
	CHECK(spinner_stop(&s), "a signal forces the vCPU out of KVM_RUN");
	t2 = task_get(&mod_count, s.tid);
	CHECK(t1.unreg == 1 && task_same(&t1, &t2),
	      "no callback for the task after its unregister across the static key's off and on");
	vm_close(s.vm);
	vm_close(holder);
	CHECK_EQ(count_stray(), 0, "%s saw no callback for an unregistered task",
		 COUNT_DRV);
	unpin();
}

/*
 * 14. vCPUs run by a thread that predicts their fd, before
 * KVM_CREATE_VCPU returns, against a thread that REPLACEs the VM's driver:
 * a vCPU must not run before REPLACE can see it.
 */
#define CREATE_RACE_SECONDS	20
#define CREATE_RACE_PER_VM	64	/* VM teardown costs seconds here */
#define CREATE_RACE_MIN		20	/* vCPUs and REPLACEs to assert */

struct create_race {
	int target_fd;		/* fd the runner tries, -1 for none */
	bool stop;
	unsigned long runs;	/* KVM_RUNs that returned */
	unsigned long early;	/* of those, before KVM_CREATE_VCPU returned */
	bool created;		/* KVM_CREATE_VCPU returned for target_fd */
	int vm_fd;
	unsigned long replaces, bad;
};

static void *create_race_runner(void *arg)
{
	struct create_race *cr = arg;
	int fd, r;

	pin_to_cpu(1);
	while (!READ_ONCE(cr->stop)) {
		fd = READ_ONCE(cr->target_fd);
		if (fd < 0)
			continue;
		r = ioctl(fd, KVM_RUN, NULL);
		if (r < 0 && (errno == EBADF || errno == ENOTTY))
			continue;	/* not (yet) a vCPU fd */
		if (!READ_ONCE(cr->created))
			cr->early++;
		WRITE_ONCE(cr->runs, cr->runs + 1);
		WRITE_ONCE(cr->target_fd, -1);
	}
	return NULL;
}

static void *create_race_replacer(void *arg)
{
	static const char *const names[] = { COUNT_DRV, NOP_DRV, "" };
	struct create_race *cr = arg;
	struct kvm_pvsched_ops ops;
	unsigned long i;
	int fd, r;

	for (i = 0; !READ_ONCE(cr->stop); i++) {
		fd = READ_ONCE(cr->vm_fd);
		ops_fill(&ops, names[i % 3], 0);
		r = ioctl(fd, KVM_REPLACE_PVSCHED_OPS, &ops) ? -errno : 0;
		if (!r)
			cr->replaces++;
		else if (r != -EBADF)	/* the VM was just closed */
			cr->bad++;
		/* Each REPLACE waits for a grace period: let KVM_RUN in. */
		usleep(1000);
	}
	return NULL;
}

/*
 * A VM for vCPUs that run from their reset state: memory at the reset
 * vector (0xfffffff0) holds "out 0x10, al", so that KVM_RUN returns at
 * once with KVM_EXIT_IO.
 */
static int vm_create_reset_vector(void *page)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.guest_phys_addr = 0xffff0000UL,
		.memory_size = 0x10000,
		.userspace_addr = (uintptr_t)page,
	};
	int fd = kvm_ioctl(kvm_fd, KVM_CREATE_VM, 0);

	TEST_ASSERT(!ioctl(fd, KVM_SET_USER_MEMORY_REGION, &region),
		    "KVM_SET_USER_MEMORY_REGION");
	TEST_ASSERT(!ioctl(fd, KVM_SET_TSS_ADDR, GUEST_TSS_GPA),
		    "KVM_SET_TSS_ADDR");
	return fd;
}

static void test_vcpu_create_race(void)
{
	struct create_race cr = { .target_fd = -1 };
	int vcpu_fds[CREATE_RACE_PER_VM], fd, pred, nr = 0, vms = 0, i;
	unsigned long want, created = 0;
	pthread_t runner, replacer;
	struct counts c;
	long long reg = 0, unreg = 0;
	double end, t, t_create = 0, t_run = 0, t_vm = 0;

	uint8_t *mem;

	CHECK(counts_reset(&mod_count), "reset the counts");
	TEST_ASSERT(pin_to_cpu(0), "pin the test to CPU 0");
	mem = mmap(NULL, 0x10000, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TEST_ASSERT(mem != MAP_FAILED, "mmap");
	mem[0xfff0] = 0xe6;	/* out 0x10, al */
	mem[0xfff1] = GUEST_IO_PORT;
	cr.vm_fd = vm_create_reset_vector(mem);
	TEST_ASSERT(!pthread_create(&runner, NULL, create_race_runner, &cr),
		    "pthread_create");
	TEST_ASSERT(!pthread_create(&replacer, NULL, create_race_replacer, &cr),
		    "pthread_create");

	end = now() + CREATE_RACE_SECONDS;
	while (now() < end) {
		if (nr == CREATE_RACE_PER_VM) {
			int old = cr.vm_fd;

			t = now();
			WRITE_ONCE(cr.vm_fd, vm_create_reset_vector(mem));
			for (i = 0; i < nr; i++)
				close(vcpu_fds[i]);
			close(old);
			nr = 0;
			vms++;
			t_vm += now() - t;
		}
		/* The lowest free fd is the one KVM_CREATE_VCPU installs. */
		pred = dup(0);
		TEST_ASSERT(pred >= 0, "dup");
		close(pred);
		want = cr.runs + 1;
		WRITE_ONCE(cr.created, false);
		WRITE_ONCE(cr.target_fd, pred);
		t = now();
		fd = ioctl(cr.vm_fd, KVM_CREATE_VCPU, nr);
		t_create += now() - t;
		WRITE_ONCE(cr.created, true);
		TEST_ASSERT(fd == pred, "KVM_CREATE_VCPU returned fd %d, predicted %d",
			    fd, pred);
		vcpu_fds[nr++] = fd;
		created++;
		/*
		 * Sleep, not spin: CPU 0 also runs RCU's grace periods. The
		 * wait has a deadline of its own: replacing a VM can take
		 * longer than the whole time budget on the debug kernel.
		 */
		t = now();
		while (READ_ONCE(cr.runs) < want && now() < t + STUCK_SECONDS)
			usleep(200);
		t_run += now() - t;
	}
	WRITE_ONCE(cr.stop, true);
	pthread_join(runner, NULL);
	pthread_join(replacer, NULL);
	for (i = 0; i < nr; i++)
		close(vcpu_fds[i]);
	close(cr.vm_fd);
	munmap(mem, 0x10000);
	unpin();
	diag("%lu vCPUs created in %d VMs, %lu run by the predicting thread (%lu before KVM_CREATE_VCPU returned), %lu REPLACEs",
	     created, vms + 1, cr.runs, cr.early, cr.replaces);
	diag("time in KVM_CREATE_VCPU %.1f s, waiting for KVM_RUN %.1f s, replacing VMs %.1f s",
	     t_create, t_run, t_vm);

	CHECK(created >= CREATE_RACE_MIN && cr.runs == created,
	      "at least %d vCPUs created, each run by the thread that predicted its fd (%lu)",
	      CREATE_RACE_MIN, created);
	CHECK(cr.replaces >= CREATE_RACE_MIN && !cr.bad,
	      "at least %d REPLACEs landed meanwhile, none failed (%lu)",
	      CREATE_RACE_MIN, cr.replaces);
	CHECK(counts_read(&mod_count, &c), "read the counts");
	for (i = 0; i < c.nr; i++) {
		reg += c.t[i].reg;
		unreg += c.t[i].unreg;
	}
	CHECK(reg > 0 && reg == unreg,
	      "every registration was unregistered once all VMs closed (%lld/%lld)",
	      reg, unreg);
	CHECK_EQ(count_stray(), 0,
		 "%s saw no callback for an unregistered task", COUNT_DRV);
}

/*
 * 15. pvsched_count's memory is bounded: a vCPU run by ever new threads
 * leaves the registered task and the most recently retired ones.
 */
#define BOUND_THREADS	200

static void test_count_bound(void)
{
	struct count_summary cs = { -1, -1, -1, -1 };
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct worker *w;
	int i, ok = 0;

	CHECK(counts_reset(&mod_count), "reset the counts");
	vm = vm_create();
	vcpu = vcpu_add(vm);
	CHECK_RET(pvsched_assign(vm, COUNT_DRV, NULL), 0, "assign %s",
		  COUNT_DRV);
	for (i = 0; i < BOUND_THREADS; i++) {
		w = worker_create();
		ok += worker_run(w, vcpu, 1);
		worker_destroy(w);
	}
	CHECK_EQ(ok, BOUND_THREADS, "%d threads ran the vCPU once each, one after the other",
		 BOUND_THREADS);
	CHECK(count_summary(&cs) && cs.registered == 1 &&
	      cs.retired == COUNT_RETIRED_MAX &&
	      cs.retired_max == COUNT_RETIRED_MAX && cs.stray == 0,
	      "summary: registered=1 retired=%d retired_max=%d stray=0",
	      COUNT_RETIRED_MAX, COUNT_RETIRED_MAX);
	CHECK_EQ(counts_nr(&mod_count), COUNT_RETIRED_MAX + 1,
		 "stats keep %d tasks, not %d", COUNT_RETIRED_MAX + 1,
		 BOUND_THREADS);
	CHECK_RET(pvsched_assign(vm, "", NULL), 0, "unassign");
	CHECK(count_summary(&cs) && cs.registered == 0 &&
	      cs.retired == COUNT_RETIRED_MAX,
	      "after unassign: registered=0 retired=%d", COUNT_RETIRED_MAX);
	CHECK(counts_reset(&mod_count) && counts_nr(&mod_count) == 0 &&
	      count_summary(&cs) && cs.retired == 0,
	      "reset drops the retired tasks");
	vm_close(vm);
}

/*
 * 16. A VMM that flips its VM's driver in a loop does not patch kernel
 * text on every flip: the static key's disable is deferred.
 */
#define CHURN_FLIPS	200

/* Function call IPIs ("CAL" in /proc/interrupts) received by @cpu. */
static long long cal_ipis(int cpu)
{
	static char buf[65536];
	char *line, *save, *p, *end;
	long long v = -1;
	int i;

	if (read_file("/proc/interrupts", buf, sizeof(buf)) <= 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "CAL:", 4))
			continue;
		p += 4;
		for (i = 0; i <= cpu; i++) {
			v = strtoll(p, &end, 10);
			if (end == p)
				return -1;
			p = end;
		}
		return v;
	}
	return -1;
}

static void test_key_churn(void)
{
	long long before, after;
	struct kvm_vm *vm;
	int i, bad = 0;

	TEST_ASSERT(pin_to_cpu(0), "pin the test to CPU 0");
	vm = vm_create();
	usleep(1500000);	/* a pending deferred disable runs */
	before = cal_ipis(1);
	for (i = 0; i < CHURN_FLIPS; i++) {
		bad += !!pvsched_assign(vm, NOP_DRV, NULL);
		bad += !!pvsched_assign(vm, "", NULL);
	}
	after = cal_ipis(1);
	unpin();
	CHECK(before >= 0 && after >= 0, "read CPU 1's function call IPIs");
	CHECK_EQ(bad, 0, "%d flips between %s and no driver succeed",
		 CHURN_FLIPS, NOP_DRV);
	diag("CPU 1 received %lld function call IPIs during %d flips",
	     after - before, CHURN_FLIPS);
	CHECK(after - before <= 30,
	      "the flips sent CPU 1 at most 30 function call IPIs (text patching), not one per flip (%lld)",
	      after - before);
	vm_close(vm);
}

/*
 * 18. Which BPF callbacks may sleep: register and unregister run in process
 * context and may; notify_event runs in atomic context and may not.
 */
static void test_bpf_sleepable(void)
{
	struct kvm_vcpu *vcpu;
	struct worker *w;
	struct kvm_vm *vm;

	CHECK_EQ(bpf_tool_run("load", "sleep"), 0,
		 "pvsched-bpf load sleep: sleepable register and unregister are accepted");
	CHECK(driver_listed(SLEEP_DRV), "%s is listed", SLEEP_DRV);
	vm = vm_create();
	vcpu = vcpu_add(vm);
	w = worker_create();
	CHECK(worker_run(w, vcpu, 5), "a vCPU runs: its task is known");
	CHECK_RET(pvsched_assign(vm, SLEEP_DRV, NULL), 0,
		  "assign %s: its sleepable register program runs", SLEEP_DRV);
	CHECK(worker_run(w, vcpu, 20), "the vCPU runs 20 times with it");
	CHECK_RET(pvsched_assign(vm, "", NULL), 0,
		  "unassign: its sleepable unregister program runs");
	worker_destroy(w);
	vm_close(vm);
	CHECK_EQ(bpf_tool_run("unload", SLEEP_DRV), 0, "unload %s", SLEEP_DRV);
	CHECK(bpf_tool_run("load", "sleep-notify") != 0 &&
	      !driver_listed(SLEEP_DRV),
	      "pvsched-bpf load sleep-notify: a sleepable notify_event is refused");
}

/* 19. Driver registration refuses bad names and a module without owner. */

/* Words in kernel.pvsched_available_drivers. */
static int drivers_nr(void)
{
	char buf[512], *w, *save;
	int n = 0;

	if (read_file(SYSCTL_DRIVERS, buf, sizeof(buf)) < 0)
		return -1;
	for (w = strtok_r(buf, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
		n++;
	return n;
}

/* The registry holds PVSCHED_MAX (8) drivers; the ninth gets ENOSPC. */
static void test_driver_limit(void)
{
	char buf[32];
	int before = drivers_nr(), r;

	CHECK_RET(test_drv_load("many", true), 0,
		  "registering drivers until the registry is full ends with ENOSPC");
	r = read_file("/sys/module/pvsched_test_drv/parameters/registered",
		      buf, sizeof(buf));
	CHECK(before > 0 && r > 0 && atoi(buf) == 8 - before &&
	      drivers_nr() == 8,
	      "%d drivers were registered, %d more fit, then the ninth was refused",
	      before, r > 0 ? atoi(buf) : -1);
	CHECK_RET(syscall(__NR_delete_module, "pvsched_test_drv", O_NONBLOCK) ?
		  -errno : 0, 0, "unloading unregisters them");
	CHECK_EQ(drivers_nr(), before, "the list is back to %d drivers", before);
}

static void test_driver_validation(void)
{
	CHECK_RET(test_drv_load("ok", true), 0,
		  "a well-formed module driver registers");
	CHECK(driver_listed("pvsched_test_ok"), "... and is listed");
	CHECK_RET(syscall(__NR_delete_module, "pvsched_test_drv", O_NONBLOCK) ?
		  -errno : 0, 0, "... and unloads");
	CHECK_RET(test_drv_load("space", false), -EINVAL,
		  "a name with a space is refused with EINVAL");
	CHECK_RET(test_drv_load("newline", false), -EINVAL,
		  "a name with a newline is refused with EINVAL");
	CHECK_RET(test_drv_load("no_owner", false), -EINVAL,
		  "a module driver with a NULL owner is refused with EINVAL");
	CHECK_RET(test_drv_load("duplicate", false), -EEXIST,
		  "a second driver named %s is refused with EEXIST", NOP_DRV);
	CHECK(!driver_listed("pvsched") && !driver_listed("test") &&
	      !driver_listed("pvsched_test_noowner") &&
	      !driver_listed("pvsched_test_ok"),
	      "none of them is listed");
	test_driver_limit();
}

/*
 * Exact INTR_INJ accounting, with a userspace irqchip (no
 * KVM_CREATE_IRQCHIP): the real-mode guest enables interrupts and loops on
 * "out 0x10, al"; its handler for INTR_VECTOR writes to port 0x11 and its
 * NMI handler to port 0x12, so the test sees each delivery.
 */
#define INTR_VECTOR		0x20
#define INTR_PORT		0x11
#define NMI_PORT		0x12
#define INTR_NR			20
#define INTR_MAX_RUNS		10	/* KVM_RUNs until the handler's OUT */
#define INTR_HANDLER_GPA	0x1200UL
#define NMI_HANDLER_GPA		0x1100UL
#define INTR_STACK_GPA		0x9000UL

static const uint8_t guest_sti_loop[] = {
	0xfb,			/*    sti */
	0xe6, GUEST_IO_PORT,	/* 1: out GUEST_IO_PORT, al */
	0xfe, 0xc0,		/*    inc al */
	0xeb, 0xfa,		/*    jmp 1b */
};

static void ivt_set(struct kvm_vm *vm, int vector, uint16_t handler,
		    uint8_t port)
{
	uint16_t *ivt = vm->mem;
	uint8_t *code = (uint8_t *)vm->mem + handler;

	ivt[vector * 2] = handler;	/* offset */
	ivt[vector * 2 + 1] = 0;	/* segment */
	code[0] = 0xe6;			/* out port, al */
	code[1] = port;
	code[2] = 0xcf;			/* iret */
}

/*
 * KVM_RUN until the guest writes to @port; the loop's own OUTs in between
 * are fine. With @port 0, run once and require the loop's OUT with
 * interrupts open. False (and a diag) on anything else.
 */
static bool intr_run_to(struct kvm_vcpu *vcpu, uint8_t port)
{
	struct kvm_run *run = vcpu->run;
	int i;

	for (i = 0; i < INTR_MAX_RUNS; i++) {
		if (!vcpu_run(vcpu)) {
			vcpu_bad_exit(vcpu, "stuck in KVM_RUN");
			break;
		}
		if (run->exit_reason != KVM_EXIT_IO ||
		    run->io.direction != KVM_EXIT_IO_OUT) {
			vcpu_bad_exit(vcpu, "expected an OUT");
			break;
		}
		if (!port)
			return run->io.port == GUEST_IO_PORT &&
			       run->ready_for_interrupt_injection && run->if_flag;
		if (run->io.port == port)
			return true;
		if (run->io.port != GUEST_IO_PORT) {
			vcpu_bad_exit(vcpu, "OUT to an unexpected port");
			break;
		}
	}
	if (i == INTR_MAX_RUNS)
		diag("vCPU %d: no OUT to port 0x%x in %d runs", vcpu->id,
		     port, INTR_MAX_RUNS);
	else
		diag("%s", vcpu->err);
	return false;
}

static void test_intr_exact(void)
{
	struct kvm_interrupt irq = { .irq = INTR_VECTOR };
	struct task_counts t0, t1, t2;
	struct kvm_vcpu *vcpu;
	struct kvm_regs regs;
	struct kvm_vm *vm;
	int i, done;

	CHECK(counts_reset(&mod_count), "reset the counts");
	vm = vm_create();
	memcpy((char *)vm->mem + GUEST_CODE_GPA, guest_sti_loop,
	       sizeof(guest_sti_loop));
	ivt_set(vm, INTR_VECTOR, INTR_HANDLER_GPA, INTR_PORT);
	ivt_set(vm, 2, NMI_HANDLER_GPA, NMI_PORT);
	vcpu = vcpu_add(vm);
	vcpu_ioctl(vcpu, KVM_GET_REGS, &regs);
	regs.rsp = INTR_STACK_GPA;
	vcpu_ioctl(vcpu, KVM_SET_REGS, &regs);
	CHECK_RET(pvsched_assign(vm, COUNT_DRV, NULL), 0, "assign %s",
		  COUNT_DRV);
	CHECK(intr_run_to(vcpu, GUEST_IO_PORT) && intr_run_to(vcpu, 0),
	      "the guest loops with interrupts enabled");
	t0 = task_get(&mod_count, gettid());

	for (done = 0; done < INTR_NR; done++) {
		if (__vcpu_ioctl(vcpu, KVM_INTERRUPT, &irq)) {
			diag("KVM_INTERRUPT: %s", strerror(errno));
			break;
		}
		/* The handler runs, irets, and the loop goes on. */
		if (!intr_run_to(vcpu, INTR_PORT) || !intr_run_to(vcpu, 0))
			break;
	}
	CHECK_EQ(done, INTR_NR, "%d KVM_INTERRUPTs, each handled once",
		 INTR_NR);
	t1 = task_get(&mod_count, gettid());
	CHECK_EQ(t1.intr_inj - t0.intr_inj, INTR_NR,
		 "INTR_INJ grows by the %d interrupts injected", INTR_NR);

	for (i = 0; i < INTR_NR; i++) {
		if (__vcpu_ioctl(vcpu, KVM_NMI, NULL)) {
			diag("KVM_NMI: %s", strerror(errno));
			break;
		}
		if (!intr_run_to(vcpu, NMI_PORT) || !intr_run_to(vcpu, 0))
			break;
	}
	CHECK_EQ(i, INTR_NR, "%d KVM_NMIs, each handled once", INTR_NR);
	t2 = task_get(&mod_count, gettid());
	CHECK_EQ(t2.intr_inj - t1.intr_inj, INTR_NR,
		 "INTR_INJ grows by the %d NMIs injected", INTR_NR);
	CHECK(t2.halt == t0.halt && t2.vmenter == t2.vmexit &&
	      t2.vmenter > t0.vmenter,
	      "no HALT, vmenter == vmexit (%lld/%lld)", t2.vmenter,
	      t2.vmexit);
	CHECK_RET(pvsched_assign(vm, "", NULL), 0, "unassign");
	vm_close(vm);
}

/*
 * The static key that patches the hooks in: kvm_pvsched_enabled, a
 * struct static_key_false_deferred whose first member is the key's
 * atomic_t count. Read through /proc/kcore at the address /proc/kallsyms
 * gives (the test kernels have CONFIG_PROC_KCORE and CONFIG_KALLSYMS_ALL).
 * The count is the number of VMs with a driver, dropped a second (HZ)
 * after the last unassign.
 */
#define KEY_SYM			"kvm_pvsched_enabled"
#define KEY_OFF_SECONDS		5	/* the deferral is 1 s */

static unsigned long key_addr;
static off_t key_off = -1;	/* its offset in /proc/kcore */
static int kcore_fd = -1;
static char key_missing[128];

static unsigned long kallsyms_find(const char *sym)
{
	char line[256], name[128], type;
	unsigned long addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %127s", &addr, &type, name) == 3 &&
		    !strcmp(name, sym)) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}

/* The file offset of kernel address @addr in /proc/kcore, or -1. */
static off_t kcore_offset(int fd, unsigned long addr)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int i;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph),
			  eh.e_phoff + (off_t)i * eh.e_phentsize) != sizeof(ph))
			return -1;
		if (ph.p_type == PT_LOAD && addr >= ph.p_vaddr &&
		    addr + sizeof(int) <= ph.p_vaddr + ph.p_memsz)
			return ph.p_offset + (addr - ph.p_vaddr);
	}
	return -1;
}

static void key_find(void)
{
	key_addr = kallsyms_find(KEY_SYM);
	if (!key_addr) {
		snprintf(key_missing, sizeof(key_missing),
			 "%s not in /proc/kallsyms (CONFIG_KALLSYMS_ALL?)",
			 KEY_SYM);
		return;
	}
	kcore_fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (kcore_fd < 0) {
		snprintf(key_missing, sizeof(key_missing),
			 "/proc/kcore: %s (CONFIG_PROC_KCORE?)",
			 strerror(errno));
		return;
	}
	key_off = kcore_offset(kcore_fd, key_addr);
	if (key_off < 0)
		snprintf(key_missing, sizeof(key_missing),
			 "%s at %#lx is in no /proc/kcore segment", KEY_SYM,
			 key_addr);
}

static const char *need_key(void)
{
	if (need_count())
		return need_count();
	if (!key_addr && !key_missing[0])
		key_find();
	return key_missing[0] ? key_missing : NULL;
}

/* The key's count, or -1 if it cannot be read. */
static int key_count(void)
{
	int val;

	if (pread(kcore_fd, &val, sizeof(val), key_off) != sizeof(val))
		return -1;
	return val;
}

/* Wait up to @seconds for the count to be @want; the count seen last. */
static int key_wait(int want, double seconds)
{
	double end = now() + seconds;
	int val;

	while ((val = key_count()) != want && now() < end)
		usleep(20000);
	return val;
}

static void test_static_key(void)
{
	char path[256];
	struct kvm_vm *vm1, *vm2;
	void *ro;
	int r;

	CHECK_EQ(key_wait(0, KEY_OFF_SECONDS), 0,
		 "no VM has a driver: the key is off");
	vm1 = vm_create();
	vm2 = vm_create();
	CHECK_RET(pvsched_assign(vm1, COUNT_DRV, NULL), 0, "assign VM 1");
	CHECK_EQ(key_count(), 1, "the key is on at once, count 1");
	CHECK(!pvsched_assign(vm2, NOP_DRV, NULL) &&
	      !pvsched_assign(vm1, COUNT_DRV, NULL) && key_count() == 2,
	      "a second VM counts, the same driver again does not (count %d)",
	      key_count());

	CHECK(!pvsched_assign(vm1, "", NULL) && key_wait(1, KEY_OFF_SECONDS) == 1,
	      "VM 1 unassigns by ioctl: count 1 (%d)", key_count());

	ro = page_ro("");
	r = pvsched_replace(vm2, ro);
	usleep(1500 * 1000);	/* past the deferral */
	CHECK(r == -EFAULT && key_count() == 1 && vm_driver_is(vm2, NOP_DRV),
	      "VM 2's unassign into a read-only buffer: EFAULT, driver and key stay (%d)",
	      key_count());
	munmap(ro, getpagesize());

	vm_debugfs_file(vm2, path, sizeof(path));
	CHECK(write_file(path, "-", 1, -1) == 1 &&
	      key_wait(0, KEY_OFF_SECONDS) == 0,
	      "VM 2 unassigns through debugfs: the last one, the key goes off (%d)",
	      key_count());

	CHECK(!pvsched_assign(vm2, COUNT_DRV, NULL) && key_count() == 1,
	      "VM 2 assigns again: count 1");
	vm_close(vm2);
	CHECK_EQ(key_wait(0, KEY_OFF_SECONDS + 10), 0,
		 "VM 2 destroyed with its driver: the key goes off");
	vm_close(vm1);
}

/*
 * The vCPU's shared area (KVM_SET_PVSCHED_AREA): refused addresses, the
 * header KVM writes, the area passed to the driver (the strict driver reads
 * guest_prio from it on every callback) and followed across memslot
 * changes.
 */
#define AREA_GPA		0x3000UL	/* in slot 0 */
#define AREA_SLOT_GPA		0x200000UL	/* slot 2, deleted and re-added */

static int area_set(struct kvm_vcpu *vcpu, __u64 gpa, __u64 flags)
{
	struct kvm_pvsched_area a = { .gpa = gpa, .flags = flags };

	return __vcpu_ioctl(vcpu, KVM_SET_PVSCHED_AREA, &a) ? -errno : 0;
}

static uint32_t *area_u32(void *page, size_t off)
{
	return (uint32_t *)((char *)page + off);
}

/* A strict driver stat by name, -1 if unreadable. */
static long strict_get(const char *key)
{
	char buf[512], *p;
	size_t n = strlen(key);

	if (read_file(STRICT_STATS, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; (p = strstr(p, key)); p += n) {
		if ((p == buf || p[-1] == ' ') && p[n] == '=')
			return atol(p + n + 1);
	}
	return -1;
}

static void *slot_page(struct kvm_vm *vm, int slot, __u64 gpa, bool ro,
		       void *page)
{
	struct kvm_userspace_memory_region region = {
		.slot = slot,
		.flags = ro ? KVM_MEM_READONLY : 0,
		.guest_phys_addr = gpa,
		.memory_size = page ? getpagesize() : 0,
		.userspace_addr = (uintptr_t)page,
	};

	vm_ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region);
	return page;
}

static void *page_new(uint32_t guest_prio)
{
	void *p = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	TEST_ASSERT(p != MAP_FAILED, "mmap");
	*area_u32(p, AREA_GUEST_PRIO_OFF) = guest_prio;
	return p;
}

static void test_area(void)
{
	void *page1, *page2;
	struct kvm_vcpu *v0, *v1;
	long area, noarea;
	struct kvm_vm *vm;
	uint8_t *hdr;

	vm = vm_create();
	v0 = vcpu_add(vm);
	v1 = vcpu_add(vm);
	hdr = (uint8_t *)vm->mem + AREA_GPA;
	memset(hdr, 0xff, 2 * AREA_SIZE);

	/*
	 * The ioctl's own checks (the header it writes, the errors) are
	 * tools/testing/selftests/kvm/x86_64/pvsched_test's; here, what a
	 * driver gets.
	 */
	TEST_ASSERT(!area_set(v0, AREA_GPA, 0), "register vCPU 0's area");
	TEST_ASSERT(!area_set(v1, AREA_GPA + AREA_SIZE, 0),
		    "register vCPU 1's area");

	*area_u32(hdr, AREA_GUEST_PRIO_OFF) = 0x1234;
	CHECK_RET(pvsched_assign(vm, STRICT_DRV, NULL), 0, "assign %s",
		  STRICT_DRV);
	area = strict_get("area");
	noarea = strict_get("noarea");
	CHECK(vcpu_run_n(v0, 10) && strict_get("area") >= area + 20 &&
	      strict_get("noarea") == noarea &&
	      strict_get("guest_prio") == 0x1234,
	      "10 runs: every callback has vCPU 0's area still, the driver reads what the guest wrote");
	/* Errors only: the strict driver lacks PVSCHED_OPS_BOOST. */
	CHECK(strict_get("boost_outside") == -EINVAL &&
	      strict_get("boost_noflag") == -EPERM &&
	      strict_get("boost_otherpid") == -EINVAL,
	      "pvsched_vcpu_boost(): EINVAL outside a callback and for another task, EPERM without PVSCHED_OPS_BOOST");

	CHECK(area_set(v0, AREA_GPA + AREA_SIZE, 0) == -EINVAL &&
	      vcpu_run_n(v0, 10) && strict_get("noarea") == noarea &&
	      strict_get("guest_prio") == 0x1234,
	      "a refused change (vCPU 1's area) leaves vCPU 0 its own");

	area = strict_get("area");
	CHECK(!area_set(v0, 0, 0) && vcpu_run_n(v0, 10) &&
	      strict_get("noarea") >= noarea + 20 && strict_get("area") == area,
	      "unregistered with gpa 0: callbacks get NULL");

	page1 = slot_page(vm, 2, AREA_SLOT_GPA, false, page_new(0x5678));
	CHECK(!area_set(v0, AREA_SLOT_GPA, 0) && vcpu_run_n(v0, 5) &&
	      strict_get("guest_prio") == 0x5678,
	      "an area in a memslot of its own");
	slot_page(vm, 2, AREA_SLOT_GPA, false, NULL);
	area = strict_get("area");
	noarea = strict_get("noarea");
	CHECK(vcpu_run_n(v0, 10) && strict_get("area") == area &&
	      strict_get("noarea") >= noarea + 20,
	      "its memslot deleted: callbacks get NULL, not freed memory");
	page2 = slot_page(vm, 2, AREA_SLOT_GPA, false, page_new(0x9abc));
	CHECK(vcpu_run_n(v0, 10) && strict_get("area") >= area + 20 &&
	      strict_get("guest_prio") == 0x9abc,
	      "memory back at that address: the area follows it");

	CHECK(strict_clean(false), "%s: no stray or unpaired callback", STRICT_DRV);
	/* Destroy the VM with its areas registered and its driver. */
	vm_close(vm);
	munmap(page1, getpagesize());
	munmap(page2, getpagesize());
	CHECK_RET(test_drv_unload(), 0, "%s unloads", TEST_DRV_MOD);
}

/*
 * The bounded boost (pvsched_boost and the mechanism behind it): a vCPU
 * thread whose guest raises PVSCHED_GUEST_BOOST in its area, or runs a
 * real-time task (guest_prio 1..99), becomes SCHED_FIFO at
 * kernel.pvsched_boost_prio until the guest drops it, the bounds
 * (kernel.pvsched_boost_max_us, kernel.pvsched_boost_share_pct) throttle
 * it, or the thread leaves the driver; then its policy and nice come back.
 *
 * The guest is real-mode code that takes its orders from a mailbox at
 * BOOST_MBOX_GPA: each KVM_RUN it writes the mailbox's guest_flags and
 * guest_prio into its own area, then, if the mailbox says so, spins
 * without an exit until the host sets one of the given host_flags bits,
 * notes the host_flags it saw and writes guest_flags again; then it exits
 * with "out 0x10, al" of the next value of a counter, as the suite's
 * other guest does, so that vcpu_run_io() and the workers run it.
 */
#define BOOST_DRV		"pvsched_boost"	/* also the module's name */
#define BOOST_KO		"/lib/modules/pvsched_boost.ko"
#define SYSCTL_BOOST_PRIO	"/proc/sys/kernel/pvsched_boost_prio"
#define SYSCTL_BOOST_MAX_US	"/proc/sys/kernel/pvsched_boost_max_us"
#define SYSCTL_BOOST_SHARE	"/proc/sys/kernel/pvsched_boost_share_pct"
#define BOOST_PRIO_DEF		1
#define BOOST_MAX_US_DEF	2000
#define BOOST_SHARE_DEF		50
#define BOOST_MAX_US_MAX	1000000

/* include/uapi/linux/pvsched.h */
#define PVSCHED_AREA_VERSION	1
#define PVSCHED_GUEST_BOOST	(1U << 0)
#define PVSCHED_HOST_BOOSTED	(1U << 0)
#define PVSCHED_HOST_THROTTLED	(1U << 1)

struct boost_area {
	uint32_t version;
	uint32_t host_flags;
	uint32_t guest_flags;
	uint32_t guest_prio;
	uint64_t boosted_ns;
	uint32_t boosts;
	uint32_t throttles;
	uint32_t unboosts;
	uint8_t reserved[28];
};

_Static_assert(sizeof(struct boost_area) == AREA_SIZE,
	       "struct pvsched_vcpu_area is 64 bytes");

#define BOOST_MBOX_GPA		0x2000UL

/* The guest's orders, at BOOST_MBOX_GPA. */
struct boost_mbox {
	uint32_t flags;		/* guest_flags to write */
	uint32_t prio;		/* guest_prio to write */
	uint32_t wait;		/* host_flags bits to spin for, 0: none */
	uint32_t seen;		/* written by the guest: host_flags then */
	uint32_t after;		/* guest_flags to write after the wait */
};

static const uint8_t guest_boost[] = {
	0x66, 0xa1, 0x00, 0x20,		/* 1: mov eax, [MBOX + 0] (flags) */
	0x66, 0xa3, 0x08, 0x30,		/*    mov [AREA + 8], eax */
	0x66, 0xa1, 0x04, 0x20,		/*    mov eax, [MBOX + 4] (prio) */
	0x66, 0xa3, 0x0c, 0x30,		/*    mov [AREA + 12], eax */
	0x66, 0x8b, 0x0e, 0x08, 0x20,	/*    mov ecx, [MBOX + 8] (wait) */
	0x66, 0x85, 0xc9,		/*    test ecx, ecx */
	0x74, 0x15,			/*    jz 3f */
	0x66, 0xa1, 0x04, 0x30,		/* 2: mov eax, [AREA + 4] (host_flags) */
	0x66, 0x85, 0xc8,		/*    test eax, ecx */
	0x74, 0xf7,			/*    jz 2b */
	0x66, 0xa3, 0x0c, 0x20,		/*    mov [MBOX + 12], eax (seen) */
	0x66, 0xa1, 0x10, 0x20,		/*    mov eax, [MBOX + 16] (after) */
	0x66, 0xa3, 0x08, 0x30,		/*    mov [AREA + 8], eax */
	0x88, 0xd8,			/* 3: mov al, bl */
	0xe6, GUEST_IO_PORT,		/*    out GUEST_IO_PORT, al */
	0xfe, 0xc3,			/*    inc bl */
	0xeb, 0xc9,			/*    jmp 1b */
};

_Static_assert(AREA_GPA == 0x3000UL && BOOST_MBOX_GPA == 0x2000UL,
	       "guest_boost has the area and the mailbox at these addresses");

/* Bounds for the checks that are not about them (see test_boost()). */
#define BOOST_PRIO		3
#define BOOST_SHARE_WIDE	99
#define BOOST_NICE		5	/* of the vCPU thread, to be restored */
#define BOOST_THROTTLE_US	200
#define BOOST_NOBODY		65534
#define BOOST_ADMIN_PRIO	10
#define BOOST_WAIT_SECONDS	5	/* for a restore after VM destruction */
#define BOOST_PAYBACK_SECONDS	10	/* for the boost after a throttle */

/*
 * The area and the mailbox in guest memory. The host reads them while the
 * vCPU's worker waits: worker_wait()'s mutex orders its KVM_RUN before.
 */
static struct boost_area *boost_area(struct kvm_vm *vm)
{
	return (struct boost_area *)((char *)vm->mem + AREA_GPA);
}

static struct boost_mbox *boost_mbox(struct kvm_vm *vm)
{
	return (struct boost_mbox *)((char *)vm->mem + BOOST_MBOX_GPA);
}

/*
 * One KVM_RUN on @w's thread: the guest writes @flags and @prio to its
 * area, and, if @wait, spins until host_flags has one of the @wait bits,
 * then writes @after to guest_flags; then it exits with its OUT.
 */
static bool boost_run_wait(struct worker *w, struct kvm_vcpu *vcpu,
			   uint32_t flags, uint32_t prio, uint32_t wait,
			   uint32_t after)
{
	struct boost_mbox *mb = boost_mbox(vcpu->vm);

	mb->flags = flags;
	mb->prio = prio;
	mb->wait = wait;
	mb->seen = 0;
	mb->after = after;
	return worker_run(w, vcpu, 1);
}

static bool boost_run(struct worker *w, struct kvm_vcpu *vcpu,
		      uint32_t flags, uint32_t prio)
{
	return boost_run_wait(w, vcpu, flags, prio, 0, 0);
}

static void diag_area_at(const struct boost_area *a)
{
	diag("area: version %#x host_flags %#x guest_flags %#x guest_prio %u boosted_ns %llu boosts %u throttles %u unboosts %u",
	     a->version, a->host_flags, a->guest_flags, a->guest_prio,
	     (unsigned long long)a->boosted_ns, a->boosts, a->throttles,
	     a->unboosts);
}

static void diag_area(struct kvm_vm *vm)
{
	diag_area_at(boost_area(vm));
}

/* Scheduling state of thread @tid, as another thread sees it. */
struct sched_state {
	int policy;		/* sched_getscheduler(), with RESET_ON_FORK */
	int prio;		/* sched_getparam()'s sched_priority */
	int nice;
};

static bool sched_state_get(pid_t tid, struct sched_state *s)
{
	struct sched_param sp;

	s->policy = sched_getscheduler(tid);
	if (s->policy < 0 || sched_getparam(tid, &sp)) {
		diag("thread %d: sched_getscheduler/sched_getparam: %s", tid,
		     strerror(errno));
		return false;
	}
	s->prio = sp.sched_priority;
	errno = 0;
	s->nice = getpriority(PRIO_PROCESS, tid);
	if (errno) {
		diag("thread %d: getpriority: %s", tid, strerror(errno));
		return false;
	}
	return true;
}

static const char *policy_str(int policy)
{
	static const char *const names[] = {
		[SCHED_OTHER]	= "SCHED_OTHER",
		[SCHED_FIFO]	= "SCHED_FIFO",
		[SCHED_RR]	= "SCHED_RR",
		[SCHED_BATCH]	= "SCHED_BATCH",
		[SCHED_IDLE]	= "SCHED_IDLE",
	};
	static __thread char bufs[2][48];
	static __thread int next;
	char *buf = bufs[next++ % 2];
	int p = policy & ~SCHED_RESET_ON_FORK;

	snprintf(buf, sizeof(bufs[0]), "%s(%d)%s",
		 p >= 0 && p < (int)ARRAY_SIZE(names) && names[p] ? names[p] : "?",
		 p, policy & SCHED_RESET_ON_FORK ? "|SCHED_RESET_ON_FORK" : "");
	return buf;
}

/*
 * Is @tid real-time with @policy and @prio? A boost may set
 * reset-on-fork, so that the thread's children start unboosted: that flag
 * is not compared.
 */
static bool __thread_rt_is(pid_t tid, int policy, int prio, bool quiet)
{
	struct sched_state s;

	if (!sched_state_get(tid, &s))
		return false;
	if ((s.policy & ~SCHED_RESET_ON_FORK) == policy && s.prio == prio)
		return true;
	if (!quiet)
		diag("thread %d is %s prio %d nice %d, expected %s prio %d",
		     tid, policy_str(s.policy), s.prio, s.nice,
		     policy_str(policy), prio);
	return false;
}

static bool thread_rt_is(pid_t tid, int policy, int prio)
{
	return __thread_rt_is(tid, policy, prio, false);
}

/* Is @tid exactly SCHED_OTHER (without reset-on-fork) with @nice? */
static bool __thread_normal_is(pid_t tid, int nice, bool quiet)
{
	struct sched_state s;

	if (!sched_state_get(tid, &s))
		return false;
	if (s.policy == SCHED_OTHER && s.prio == 0 && s.nice == nice)
		return true;
	if (!quiet)
		diag("thread %d is %s prio %d nice %d, expected SCHED_OTHER nice %d",
		     tid, policy_str(s.policy), s.prio, s.nice, nice);
	return false;
}

static bool thread_normal_is(pid_t tid, int nice)
{
	return __thread_normal_is(tid, nice, false);
}

static bool thread_boosted(pid_t tid)
{
	return thread_rt_is(tid, SCHED_FIFO, BOOST_PRIO);
}

/* Set @tid's policy the way an administrator would (chrt -p). */
static bool thread_set_policy(pid_t tid, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (!sched_setscheduler(tid, policy, &sp))
		return true;
	diag("sched_setscheduler(%d, %s, %d): %s", tid, policy_str(policy),
	     prio, strerror(errno));
	return false;
}

/* A sysctl's value, -1 (and a diag) if it cannot be read. */
static long sysctl_get(const char *path)
{
	char buf[64];
	int r;

	r = read_file(path, buf, sizeof(buf));
	if (r <= 0) {
		diag("%s: %s", path, err_str(r < 0 ? r : -ENODATA));
		return -1;
	}
	return strtol(buf, NULL, 10);
}

/* Write "@val\n" to a sysctl: 0 or -errno. */
static int sysctl_set(const char *path, long val)
{
	char buf[32];
	int len, r;

	len = snprintf(buf, sizeof(buf), "%ld\n", val);
	r = write_file(path, buf, len, -1);
	if (r < 0)
		return r;
	return r == len ? 0 : -EIO;
}

/* Does writing each of @bad to @path fail with EINVAL, leaving @want? */
static bool sysctl_refuses(const char *path, const long *bad, int nr,
			   long want)
{
	bool ok = true;
	long val;
	int i, r;

	for (i = 0; i < nr; i++) {
		r = sysctl_set(path, bad[i]);
		val = sysctl_get(path);
		if (r != -EINVAL || val != want) {
			diag("%s: writing %ld returned %s, value now %ld; expected %s, %ld",
			     path, bad[i], err_str(r), val, err_str(-EINVAL),
			     want);
			ok = false;
		}
	}
	return ok;
}

/* Set the three sysctls; false (and a diag) if one does not take. */
static bool boost_sysctls_set(long prio, long max_us, long share)
{
	static const char *const paths[] = {
		SYSCTL_BOOST_PRIO, SYSCTL_BOOST_MAX_US, SYSCTL_BOOST_SHARE,
	};
	long vals[] = { prio, max_us, share };
	bool ok = true;
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		r = sysctl_set(paths[i], vals[i]);
		if (r || sysctl_get(paths[i]) != vals[i]) {
			diag("%s: writing %ld: %s, value now %ld", paths[i],
			     vals[i], err_str(r), sysctl_get(paths[i]));
			ok = false;
		}
	}
	return ok;
}

static int boost_load(void)
{
	int fd, r;

	fd = open(BOOST_KO, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = syscall(__NR_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return r;
}

static int boost_unload(void)
{
	return syscall(__NR_delete_module, BOOST_DRV, O_NONBLOCK) ? -errno : 0;
}

static const char *need_boost(void)
{
	if (need_count())
		return need_count();
	if (!driver_listed(BOOST_DRV) && !path_exists(BOOST_KO))
		return BOOST_KO " missing";
	return NULL;
}

/* 1. The sysctls: defaults and range (root only: see the next). */
static void boost_test_sysctls(void)
{
	static const long bad_prio[] = { 0, 100 };
	static const long bad_share[] = { 0, 100 };
	static const long bad_max_us[] = { 0, 49, BOOST_MAX_US_MAX + 1 };
	long prio, max_us, share;

	prio = sysctl_get(SYSCTL_BOOST_PRIO);
	max_us = sysctl_get(SYSCTL_BOOST_MAX_US);
	share = sysctl_get(SYSCTL_BOOST_SHARE);
	CHECK(prio == BOOST_PRIO_DEF && max_us == BOOST_MAX_US_DEF &&
	      share == BOOST_SHARE_DEF,
	      "sysctls at their defaults: pvsched_boost_prio %ld (%d), pvsched_boost_max_us %ld (%d), pvsched_boost_share_pct %ld (%d)",
	      prio, BOOST_PRIO_DEF, max_us, BOOST_MAX_US_DEF, share,
	      BOOST_SHARE_DEF);
	CHECK(sysctl_refuses(SYSCTL_BOOST_PRIO, bad_prio,
			     ARRAY_SIZE(bad_prio), BOOST_PRIO_DEF),
	      "pvsched_boost_prio 0 and 100: EINVAL, value unchanged");
	CHECK(sysctl_refuses(SYSCTL_BOOST_SHARE, bad_share,
			     ARRAY_SIZE(bad_share), BOOST_SHARE_DEF),
	      "pvsched_boost_share_pct 0 and 100: EINVAL, value unchanged");
	CHECK(sysctl_refuses(SYSCTL_BOOST_MAX_US, bad_max_us,
			     ARRAY_SIZE(bad_max_us), BOOST_MAX_US_DEF),
	      "pvsched_boost_max_us 0, 49 and %d: EINVAL, value unchanged",
	      BOOST_MAX_US_MAX + 1);
	CHECK(boost_sysctls_set(99, 50, 1) &&
	      boost_sysctls_set(1, BOOST_MAX_US_MAX, 99) &&
	      boost_sysctls_set(BOOST_PRIO_DEF, BOOST_MAX_US_DEF,
				BOOST_SHARE_DEF),
	      "the range limits (prio 1 and 99, max_us 50 and %d, share 1 and 99) are taken, the defaults back",
	      BOOST_MAX_US_MAX);
}

/* What the unprivileged child of unpriv_run() saw. */
struct unpriv_result {
	char failed[32];	/* the setup step that failed, "" if none */
	int err;		/* its errno */
	uint64_t caps;		/* effective capabilities after the drop */
	int sysctl_write[3];	/* writes to the three sysctls */
	int replace_boost, replace_open, replace_boost2;
	int get, get2;
	struct kvm_pvsched_ops after_boost, after_boost2;
};

/* Become uid/gid BOOST_NOBODY, without capabilities; the failed step. */
static const char *unpriv_drop(uint64_t *caps)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	if (setgroups(0, NULL))
		return "setgroups";
	if (setresgid(BOOST_NOBODY, BOOST_NOBODY, BOOST_NOBODY))
		return "setresgid";
	if (setresuid(BOOST_NOBODY, BOOST_NOBODY, BOOST_NOBODY))
		return "setresuid";
	if (syscall(__NR_capget, &hdr, data))
		return "capget";
	*caps = data[0].effective | (uint64_t)data[1].effective << 32;
	return NULL;
}

/* REPLACE @name on @vm: 0 or -errno. */
static int unpriv_replace(int vm, const char *name)
{
	struct kvm_pvsched_ops ops;

	ops_fill(&ops, name, 0);
	return ioctl(vm, KVM_REPLACE_PVSCHED_OPS, &ops) ? -errno : 0;
}

/*
 * The child: the sysctl writes, then on a new VM REPLACE @boost (a driver
 * with PVSCHED_OPS_BOOST), GET, REPLACE @open_drv (one without),
 * REPLACE @boost again, GET; what it saw goes to the pipe @fd.
 */
static void __noreturn unpriv_child(int fd, const char *boost,
				    const char *open_drv)
{
	struct unpriv_result res = { .caps = ~0ULL };
	const char *failed;
	int kvm, vm;

	failed = unpriv_drop(&res.caps);
	if (!failed) {
		res.sysctl_write[0] = write_file(SYSCTL_BOOST_PRIO, "2\n", 2, -1);
		res.sysctl_write[1] = write_file(SYSCTL_BOOST_MAX_US, "100\n",
						 4, -1);
		res.sysctl_write[2] = write_file(SYSCTL_BOOST_SHARE, "2\n", 2,
						 -1);
		kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
		if (kvm < 0)
			failed = "open /dev/kvm";
	}
	if (!failed) {
		vm = ioctl(kvm, KVM_CREATE_VM, 0);
		if (vm < 0)
			failed = "KVM_CREATE_VM";
	}
	if (failed) {
		res.err = errno;
		snprintf(res.failed, sizeof(res.failed), "%s", failed);
	} else {
		res.replace_boost = unpriv_replace(vm, boost);
		res.get = ioctl(vm, KVM_GET_PVSCHED_OPS, &res.after_boost) ?
			  -errno : 0;
		res.replace_open = unpriv_replace(vm, open_drv);
		res.replace_boost2 = unpriv_replace(vm, boost);
		res.get2 = ioctl(vm, KVM_GET_PVSCHED_OPS, &res.after_boost2) ?
			   -errno : 0;
	}
	_exit(write(fd, &res, sizeof(res)) == sizeof(res) ? 0 : 1);
}

/*
 * Run unpriv_child() for @boost and @open_drv: a child without
 * capabilities, on a /dev/kvm it may open. The directories above /dev/kvm
 * must let it through too: the test initramfs's root directory is 0700.
 * True if it ran to the end, what it saw in @res.
 */
static bool unpriv_run(const char *boost, const char *open_drv,
		       struct unpriv_result *resp)
{
	static const char *const paths[] = { "/", "/dev", "/dev/kvm" };
	mode_t modes[ARRAY_SIZE(paths)];
	struct unpriv_result res;
	struct stat st;
	int pfd[2], status;
	size_t i;
	bool ran;
	ssize_t n;
	pid_t pid;

	memset(&res, 0, sizeof(res));
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		TEST_ASSERT(!stat(paths[i], &st), "stat %s", paths[i]);
		modes[i] = st.st_mode & 07777;
		TEST_ASSERT(!chmod(paths[i], S_ISDIR(st.st_mode) ?
				   modes[i] | 0005 : 0666),
			    "chmod %s", paths[i]);
	}
	TEST_ASSERT(!pipe2(pfd, O_CLOEXEC), "pipe2");
	fflush(stdout);
	pid = fork();
	TEST_ASSERT(pid >= 0, "fork");
	if (!pid)
		unpriv_child(pfd[1], boost, open_drv);
	close(pfd[1]);
	n = read(pfd[0], &res, sizeof(res));
	close(pfd[0]);
	TEST_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid");
	for (i = 0; i < ARRAY_SIZE(paths); i++)
		TEST_ASSERT(!chmod(paths[i], modes[i]), "chmod %s back to %o",
			    paths[i], modes[i]);

	ran = n == sizeof(res) && WIFEXITED(status) && !WEXITSTATUS(status) &&
	      !res.failed[0] && !res.caps;
	if (!ran)
		diag("child (uid/gid %d): read %zd of %zu bytes, status %#x, failed step \"%s\" (%s), effective capabilities %#llx",
		     BOOST_NOBODY, n, sizeof(res), status, res.failed,
		     strerror(res.err), (unsigned long long)res.caps);
	*resp = res;
	return ran;
}

/*
 * The unprivileged child's REPLACEs: EPERM for @boost, the VM keeping no
 * driver, then @open_drv taken, @boost EPERM again, the VM keeping
 * @open_drv. Three checks.
 */
static void unpriv_check_replace(bool ran, const struct unpriv_result *res,
				 const char *boost, const char *open_drv)
{
	CHECK(ran && res->replace_boost == -EPERM,
	      "uid 65534 without capabilities: REPLACE %s fails with EPERM (%s)",
	      boost, err_str(res->replace_boost));
	CHECK(ran && !res->get && ops_is(&res->after_boost, ""),
	      "... and the VM keeps no driver (GET: %s)", err_str(res->get));
	if (ran && !ops_is(&res->after_boost, ""))
		diag("GET after the EPERM: %s", ops_str(&res->after_boost));
	CHECK(ran && !res->replace_open && res->replace_boost2 == -EPERM &&
	      !res->get2 && ops_is(&res->after_boost2, open_drv),
	      "... REPLACE %s works (%s), then %s again fails with EPERM (%s) and the VM keeps %s",
	      open_drv, err_str(res->replace_open), boost,
	      err_str(res->replace_boost2), open_drv);
	if (ran && !ops_is(&res->after_boost2, open_drv))
		diag("GET after the second EPERM: %s",
		     ops_str(&res->after_boost2));
}

/*
 * 2. Selecting pvsched_boost needs CAP_SYS_NICE: the unprivileged child
 * gets EPERM for it and not for pvsched_count, and may not write the
 * sysctls.
 */
static void boost_test_unprivileged(void)
{
	struct unpriv_result res;
	bool ran;

	ran = unpriv_run(BOOST_DRV, COUNT_DRV, &res);
	CHECK(ran && res.sysctl_write[0] == -EACCES &&
	      res.sysctl_write[1] == -EACCES && res.sysctl_write[2] == -EACCES &&
	      sysctl_get(SYSCTL_BOOST_PRIO) == BOOST_PRIO_DEF &&
	      sysctl_get(SYSCTL_BOOST_MAX_US) == BOOST_MAX_US_DEF &&
	      sysctl_get(SYSCTL_BOOST_SHARE) == BOOST_SHARE_DEF,
	      "uid 65534 cannot write the sysctls (%s, %s, %s), they keep their values",
	      err_str(res.sysctl_write[0]), err_str(res.sysctl_write[1]),
	      err_str(res.sysctl_write[2]));
	unpriv_check_replace(ran, &res, BOOST_DRV, COUNT_DRV);
}

/* The tracefs directory, NULL if there is none. */
static const char *tracefs_dir(void)
{
	if (path_exists("/sys/kernel/tracing/events"))
		return "/sys/kernel/tracing";
	if (path_exists("/sys/kernel/debug/tracing/events"))
		return "/sys/kernel/debug/tracing";
	return NULL;
}

static const char *const boost_events[] = {
	"pvsched_boost", "pvsched_unboost", "pvsched_throttle",
};

/* Enable or disable the boost events; false if one cannot be. */
static bool boost_events_enable(const char *dir, bool on)
{
	char path[256];
	bool ok = true;
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(boost_events); i++) {
		snprintf(path, sizeof(path), "%s/events/pvsched/%s/enable",
			 dir, boost_events[i]);
		r = write_file(path, on ? "1\n" : "0\n", 2, -1);
		if (r != 2) {
			diag("%s: %s", path, err_str(r));
			ok = false;
		}
	}
	return ok;
}

/* Empty the trace buffer, as "> trace" does. */
static bool trace_clear(const char *dir)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/trace", dir);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		diag("%s: %s", path, strerror(errno));
		return false;
	}
	close(fd);
	return true;
}

/* Occurrences of @needle in the trace buffer, -1 if it cannot be read. */
static int trace_count(const char *dir, const char *needle)
{
	static char buf[262144];
	char path[256], *p;
	int r, n = 0;

	snprintf(path, sizeof(path), "%s/trace", dir);
	r = read_file(path, buf, sizeof(buf));
	if (r < 0) {
		diag("%s: %s", path, err_str(r));
		return -1;
	}
	for (p = buf; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void diag_trace(const char *dir)
{
	static char buf[8192];
	char path[256];

	snprintf(path, sizeof(path), "%s/trace", dir);
	if (read_file(path, buf, sizeof(buf)) >= 0)
		diag("%s:\n%s", path, buf);
}

/*
 * 11. The tracepoints: one boost and one unboost at the guest's request
 * make one pvsched_boost and one pvsched_unboost (reason=driver) event.
 */
static void boost_test_trace(struct worker *w, struct kvm_vcpu *vcpu)
{
	const char *dir = tracefs_dir();
	int nb = -1, nu = -1, nd = -1, nt = -1;
	bool there = dir, ran;
	char path[256];
	size_t i;

	for (i = 0; dir && i < ARRAY_SIZE(boost_events); i++) {
		snprintf(path, sizeof(path), "%s/events/pvsched/%s", dir,
			 boost_events[i]);
		if (!path_exists(path)) {
			diag("%s missing", path);
			there = false;
		}
	}
	CHECK(there, "tracefs (%s) has events/pvsched/{%s,%s,%s}",
	      dir ?: "not mounted", boost_events[0], boost_events[1],
	      boost_events[2]);
	if (!there) {
		skip("no pvsched events in tracefs", "one pvsched_boost event");
		skip("no pvsched events in tracefs", "one pvsched_unboost event");
		return;
	}

	ran = boost_events_enable(dir, true) && trace_clear(dir) &&
	      boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	      thread_boosted(w->tid) && boost_run(w, vcpu, 0, 0) &&
	      thread_normal_is(w->tid, BOOST_NICE);
	boost_events_enable(dir, false);
	if (ran) {
		nb = trace_count(dir, " pvsched_boost: ");
		nu = trace_count(dir, " pvsched_unboost: ");
		nd = trace_count(dir, "reason=driver");
		nt = trace_count(dir, " pvsched_throttle: ");
	}
	CHECK(ran && nb == 1,
	      "one boost with the events enabled: one pvsched_boost event (%d)",
	      nb);
	CHECK(ran && nu == 1 && nd == 1 && !nt,
	      "one unboost: one pvsched_unboost event (%d), reason=driver (%d); no pvsched_throttle (%d)",
	      nu, nd, nt);
	if (nb != 1 || nu != 1 || nd != 1 || nt)
		diag_trace(dir);
}

/*
 * max_us: a guest that spins boosted is throttled, whatever it asks, and
 * gets its policy back. Two checks; leaves max_us at BOOST_THROTTLE_US.
 */
static bool boost_check_max_us(struct worker *w, struct kvm_vcpu *vcpu)
{
	struct boost_area *a = boost_area(vcpu->vm);
	struct boost_mbox *mb = boost_mbox(vcpu->vm);
	uint32_t boosts, throttles, unboosts, seen;
	uint64_t boosted_ns;
	bool ok;

	boosts = a->boosts;
	throttles = a->throttles;
	unboosts = a->unboosts;
	boosted_ns = a->boosted_ns;
	ok = boost_sysctls_set(BOOST_PRIO, BOOST_THROTTLE_US, BOOST_SHARE_DEF) &&
	     boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	     boost_run_wait(w, vcpu, PVSCHED_GUEST_BOOST, 0,
			    PVSCHED_HOST_THROTTLED, 0);
	seen = mb->seen;
	CHECK(ok && (seen & PVSCHED_HOST_THROTTLED) &&
	      a->throttles - throttles >= 1,
	      "max_us %d: a boosted guest that spins is throttled, it sees THROTTLED (host_flags %#x, throttles +%u)",
	      BOOST_THROTTLE_US, seen, a->throttles - throttles);
	CHECK(ok && thread_normal_is(w->tid, BOOST_NICE) &&
	      !(a->host_flags & PVSCHED_HOST_BOOSTED) &&
	      a->boosts - boosts == a->throttles - throttles +
				    (a->unboosts - unboosts) &&
	      a->boosted_ns - boosted_ns >=
	      (uint64_t)(a->throttles - throttles) * BOOST_THROTTLE_US * 1000,
	      "the throttle restored SCHED_OTHER nice %d; not BOOSTED; each boost ended; boosted_ns +%llu >= %u x %d us",
	      BOOST_NICE, (unsigned long long)(a->boosted_ns - boosted_ns),
	      a->throttles - throttles, BOOST_THROTTLE_US);
	if (!ok)
		diag_area(vcpu->vm);
	return ok;
}

/* 5. The bounds: max_us, then share_pct and its payback. */
static void boost_test_throttle(struct worker *w, struct kvm_vcpu *vcpu)
{
	struct boost_area *a = boost_area(vcpu->vm);
	struct boost_mbox *mb = boost_mbox(vcpu->vm);
	uint32_t boosts, throttles, seen;
	double t, waited;
	bool ok, again;

	/* max_us: a guest that spins boosted is throttled, whatever it asks. */
	ok = boost_check_max_us(w, vcpu);

	/*
	 * share_pct 1: a budget of 1 ms of boost per 100 ms window, then a
	 * payback of 99 times what the boost ran; max_us out of the way.
	 * The guest keeps its flag up: it is boosted again once paid back.
	 */
	usleep(300 * 1000);	/* a new window, nothing left to pay back */
	boosts = a->boosts;
	throttles = a->throttles;
	ok = boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX, 1) &&
	     boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	     boost_run_wait(w, vcpu, PVSCHED_GUEST_BOOST, 0,
			    PVSCHED_HOST_THROTTLED, PVSCHED_GUEST_BOOST);
	t = now();
	seen = mb->seen;
	CHECK(ok && (seen & PVSCHED_HOST_THROTTLED) &&
	      thread_normal_is(w->tid, BOOST_NICE) &&
	      a->host_flags == PVSCHED_HOST_THROTTLED &&
	      a->boosts - boosts == 1 && a->throttles - throttles == 1,
	      "share_pct 1: throttled after its budget, the guest sees THROTTLED (%#x); at its next exit, flag still up, it is not boosted: SCHED_OTHER nice %d, host_flags %#x (THROTTLED)",
	      seen, BOOST_NICE, a->host_flags);
	if (!ok || a->host_flags != PVSCHED_HOST_THROTTLED)
		diag_area(vcpu->vm);

	/*
	 * The payback was set at the throttle; a wide share now keeps the
	 * next boost from being throttled again before it is seen.
	 */
	ok = boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX, BOOST_SHARE_WIDE);
	again = false;
	do {
		usleep(20 * 1000);
		if (!boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0))
			break;
		again = __thread_rt_is(w->tid, SCHED_FIFO, BOOST_PRIO, true) ||
			!__thread_normal_is(w->tid, BOOST_NICE, true);
	} while (!again && now() - t < BOOST_PAYBACK_SECONDS);
	waited = now() - t;
	CHECK(ok && again && thread_boosted(w->tid) &&
	      a->host_flags == PVSCHED_HOST_BOOSTED &&
	      a->boosts - boosts == 2 && a->throttles - throttles == 1,
	      "paid back: boosted again after %.0f ms, host_flags %#x (BOOSTED only)",
	      waited * 1000, a->host_flags);
	if (!again)
		diag_area(vcpu->vm);
	CHECK(boost_run(w, vcpu, 0, 0) &&
	      thread_normal_is(w->tid, BOOST_NICE),
	      "the guest drops its flag: SCHED_OTHER nice %d", BOOST_NICE);
}

/* 9. A thread an administrator made real-time is not the boost's. */
static void boost_test_admin(struct worker *w, struct kvm_vcpu *vcpu)
{
	struct boost_area *a = boost_area(vcpu->vm);
	uint32_t boosts = a->boosts;

	CHECK(thread_set_policy(w->tid, SCHED_FIFO, BOOST_ADMIN_PRIO) &&
	      boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	      thread_rt_is(w->tid, SCHED_FIFO, BOOST_ADMIN_PRIO) &&
	      a->boosts == boosts && !(a->host_flags & PVSCHED_HOST_BOOSTED),
	      "a thread set SCHED_FIFO %d by the admin: the guest's flag leaves it alone, boosts stays %u (%u)",
	      BOOST_ADMIN_PRIO, boosts, a->boosts);
	CHECK(boost_run(w, vcpu, 0, 0) &&
	      thread_set_policy(w->tid, SCHED_OTHER, 0) &&
	      boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	      thread_boosted(w->tid) &&
	      thread_set_policy(w->tid, SCHED_RR, BOOST_ADMIN_PRIO) &&
	      boost_run(w, vcpu, 0, 0) &&
	      thread_rt_is(w->tid, SCHED_RR, BOOST_ADMIN_PRIO) &&
	      thread_set_policy(w->tid, SCHED_OTHER, 0) &&
	      thread_normal_is(w->tid, BOOST_NICE),
	      "boosted, then made SCHED_RR %d by the admin: the unboost leaves it SCHED_RR",
	      BOOST_ADMIN_PRIO);
}

/* 10. What the guest writes is a hint: garbage boosts nothing. */
static void boost_test_garbage(struct worker *w, struct kvm_vcpu *vcpu)
{
	struct boost_area *a = boost_area(vcpu->vm);
	uint32_t boosts = a->boosts;
	pid_t tid = w->tid;
	bool ok;

	a->version = 0xdeadbeef;
	CHECK(boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	      thread_normal_is(tid, BOOST_NICE) && a->boosts == boosts,
	      "area version 0xdeadbeef: the guest's flag boosts nothing");
	a->version = PVSCHED_AREA_VERSION;
	ok = boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) && thread_boosted(tid);
	a->version = 0xdeadbeef;
	CHECK(ok && boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	      thread_normal_is(tid, BOOST_NICE),
	      "version 1: boosted; the version overwritten, flag still up: unboosted");
	a->version = PVSCHED_AREA_VERSION;
	boosts = a->boosts;
	CHECK(boost_run(w, vcpu, ~PVSCHED_GUEST_BOOST, 0) &&
	      thread_normal_is(tid, BOOST_NICE) && a->boosts == boosts,
	      "guest_flags %#x (unknown bits only): no boost",
	      ~PVSCHED_GUEST_BOOST);
	CHECK(boost_run(w, vcpu, ~0U, 0) && thread_boosted(tid) &&
	      boost_run(w, vcpu, 0, 0) && thread_normal_is(tid, BOOST_NICE),
	      "guest_flags %#x: BOOST counts, the unknown bits are ignored",
	      ~0U);
	boosts = a->boosts;
	CHECK(boost_run(w, vcpu, 0, 100) &&
	      thread_normal_is(tid, BOOST_NICE) &&
	      boost_run(w, vcpu, 0, ~0U) &&
	      thread_normal_is(tid, BOOST_NICE) && a->boosts == boosts,
	      "guest_prio 100 or %#x without the flag: no boost", ~0U);
	CHECK(boost_run(w, vcpu, 0, 50) && thread_boosted(tid) &&
	      boost_run(w, vcpu, 0, 99) && thread_boosted(tid) &&
	      boost_run(w, vcpu, 0, 0) && thread_normal_is(tid, BOOST_NICE) &&
	      a->boosts == boosts + 1,
	      "guest_prio 50 without the flag (an RT task in the guest): boosted; 99: still; 0: unboosted");
}

/*
 * 3.-11. The boost of one vCPU, run by worker threads; the main thread
 * looks at their scheduling state while they wait between KVM_RUNs.
 *
 * Under QEMU TCG the CPU time of a thread counts the other emulated CPU's
 * turns and the host's own preemptions too: with the default bounds a
 * boost may be throttled between two KVM_RUNs of a check that is not
 * about the bounds. So, but for the throttle checks, max_us is at its
 * maximum and share_pct at 99; pvsched_boost_prio is BOOST_PRIO, not the
 * default, so that the boost's priority is seen to be the sysctl's.
 */
/*
 * The child of boost_test_exit(): a VMM whose vCPU thread (its only thread)
 * is boosted by its guest, with the area mapped, which then waits to be
 * killed with the VM open. Its guest memory is @memfd, shared.
 */
static void __noreturn boost_exit_child(int memfd, int fd)
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct boost_mbox *mb;
	char ok;

	vm = __vm_create(mmap(NULL, GUEST_MEM_SIZE, PROT_READ | PROT_WRITE,
			      MAP_SHARED, memfd, 0));
	memcpy((char *)vm->mem + GUEST_CODE_GPA, guest_boost,
	       sizeof(guest_boost));
	vcpu = vcpu_add(vm);
	mb = boost_mbox(vm);
	mb->flags = PVSCHED_GUEST_BOOST;
	ok = !area_set(vcpu, AREA_GPA, 0) &&
	     !pvsched_assign(vm, BOOST_DRV, NULL) && vcpu_run_io(vcpu) &&
	     thread_boosted(gettid());
	if (write(fd, &ok, 1) != 1 || !ok)
		_exit(1);
	for (;;)
		pause();
}

/*
 * 12. A VMM killed with its VM open, boosted, its area mapped: the process
 * loses its memory (exit_mm()) before its files, whose release destroys
 * the VM and ends the boost. KVM must not write the area then: with
 * anonymous guest memory that is a write to freed pages. The child's guest
 * memory is a memfd that this process maps too, so that such a write is
 * seen here, on any kernel, as a change of the area after the kill.
 */
static void boost_test_exit(void)
{
	struct boost_area before, *a;
	int memfd, pfd[2], status;
	char ok = 0;
	void *mem;
	pid_t pid;

	memfd = memfd_create("pvsched_test_guest", MFD_CLOEXEC);
	TEST_ASSERT(memfd >= 0 && !ftruncate(memfd, GUEST_MEM_SIZE),
		    "memfd for guest memory");
	mem = mmap(NULL, GUEST_MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		   memfd, 0);
	TEST_ASSERT(mem != MAP_FAILED, "mmap memfd");
	a = (struct boost_area *)((char *)mem + AREA_GPA);
	TEST_ASSERT(!pipe2(pfd, O_CLOEXEC), "pipe2");
	fflush(stdout);
	pid = fork();
	TEST_ASSERT(pid >= 0, "fork");
	if (!pid)
		boost_exit_child(memfd, pfd[1]);
	close(pfd[1]);
	if (read(pfd[0], &ok, 1) != 1)
		ok = 0;
	close(pfd[0]);
	before = *a;
	kill(pid, SIGKILL);
	TEST_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid");
	CHECK(ok && before.host_flags == PVSCHED_HOST_BOOSTED &&
	      before.boosts == 1 && !before.unboosts,
	      "a child VMM boosted by its guest (area host_flags %#x, boosts %u, unboosts %u) is killed with its VM open",
	      before.host_flags, before.boosts, before.unboosts);
	CHECK(WIFSIGNALED(status) && !memcmp(a, &before, sizeof(before)),
	      "its memory gone before its VM: KVM wrote nothing to the area when it ended the boost (host_flags %#x, unboosts %u)",
	      a->host_flags, a->unboosts);
	if (memcmp(a, &before, sizeof(before)))
		diag_area_at(a);
	munmap(mem, GUEST_MEM_SIZE);
	close(memfd);
}

static void test_boost(void)
{
	struct boost_area *a;
	struct kvm_vcpu *vcpu;
	struct worker *wa, *wb;
	struct kvm_vm *vm;
	char path[256];
	pid_t tid;
	double t;
	int r;

	r = driver_listed(BOOST_DRV) ? 0 : boost_load();
	CHECK(!r && driver_listed(BOOST_DRV), "insmod %s: %s, %s listed",
	      BOOST_KO, err_str(r), BOOST_DRV);
	boost_test_sysctls();
	boost_test_unprivileged();

	vm = vm_create();
	memcpy((char *)vm->mem + GUEST_CODE_GPA, guest_boost,
	       sizeof(guest_boost));
	vcpu = vcpu_add(vm);
	a = boost_area(vm);
	wa = worker_create();
	wb = worker_create();
	TEST_ASSERT(!setpriority(PRIO_PROCESS, wa->tid, BOOST_NICE),
		    "setpriority(%d, %d)", wa->tid, BOOST_NICE);
	CHECK(boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX,
				BOOST_SHARE_WIDE) &&
	      !area_set(vcpu, AREA_GPA, 0),
	      "pvsched_boost_prio %d, max_us %d, share_pct %d; the vCPU's area registered",
	      BOOST_PRIO, BOOST_MAX_US_MAX, BOOST_SHARE_WIDE);
	vm_debugfs_file(vm, path, sizeof(path));
	r = write_file(path, BOOST_DRV "\n", strlen(BOOST_DRV) + 1, -1);
	CHECK(r == (int)strlen(BOOST_DRV) + 1 && vm_driver_is(vm, BOOST_DRV),
	      "root (CAP_SYS_NICE) assigns %s through the VM's debugfs file (%s)",
	      BOOST_DRV, err_str(r));

	/* 3. The flag up, an OUT: boosted before KVM_RUN returns. */
	CHECK(boost_run(wa, vcpu, 0, 0) &&
	      thread_normal_is(wa->tid, BOOST_NICE) && !a->boosts &&
	      !a->host_flags,
	      "thread A (nice %d) runs the vCPU, flag down: not boosted, boosts 0, host_flags 0",
	      BOOST_NICE);
	CHECK(boost_run(wa, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	      thread_boosted(wa->tid),
	      "the guest raises BOOST and exits: when KVM_RUN returns, A is SCHED_FIFO prio %d (pvsched_boost_prio)",
	      BOOST_PRIO);
	diag("boosted A: sched_getscheduler() is %s",
	     policy_str(sched_getscheduler(wa->tid)));
	CHECK(a->host_flags == PVSCHED_HOST_BOOSTED && a->boosts == 1 &&
	      !a->throttles && !a->unboosts,
	      "host_flags BOOSTED (%#x), boosts 1 (%u), throttles 0, unboosts 0",
	      a->host_flags, a->boosts);

	/* 4. The flag down: the policy and nice from before the boost. */
	CHECK(boost_run(wa, vcpu, 0, 0) && thread_normal_is(wa->tid, BOOST_NICE),
	      "the guest drops BOOST and exits: A is SCHED_OTHER nice %d again",
	      BOOST_NICE);
	CHECK(!a->host_flags && a->unboosts == 1 && a->boosts == 1 &&
	      !a->throttles && a->boosted_ns > 0,
	      "host_flags 0 (%#x), unboosts 1 (%u), boosted_ns %llu > 0",
	      a->host_flags, a->unboosts, (unsigned long long)a->boosted_ns);
	if (a->unboosts != 1)
		diag_area(vm);

	boost_test_admin(wa, vcpu);
	boost_test_garbage(wa, vcpu);
	boost_test_throttle(wa, vcpu);

	/* 6. A driver change restores the thread. */
	CHECK(boost_run(wa, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	      thread_boosted(wa->tid) && !pvsched_assign(vm, COUNT_DRV, NULL) &&
	      thread_normal_is(wa->tid, BOOST_NICE),
	      "boosted, then REPLACE %s: A is SCHED_OTHER nice %d when it returns",
	      COUNT_DRV, BOOST_NICE);
	CHECK(!pvsched_assign(vm, BOOST_DRV, NULL) &&
	      boost_run(wa, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	      thread_boosted(wa->tid) && !pvsched_assign(vm, "", NULL) &&
	      thread_normal_is(wa->tid, BOOST_NICE),
	      "%s again, boosted, then REPLACE \"\": SCHED_OTHER nice %d",
	      BOOST_DRV, BOOST_NICE);
	CHECK_RET(pvsched_assign(vm, BOOST_DRV, NULL), 0, "assign %s again",
		  BOOST_DRV);

	/* 11. */
	boost_test_trace(wa, vcpu);

	/* 7. Another thread runs the vCPU: the old one is restored. */
	CHECK(boost_run(wa, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	      thread_boosted(wa->tid) &&
	      boost_run(wb, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	      thread_normal_is(wa->tid, BOOST_NICE),
	      "A boosted, then thread B runs the vCPU: A is SCHED_OTHER nice %d again",
	      BOOST_NICE);
	CHECK(thread_boosted(wb->tid),
	      "B, whose guest still has the flag up, is boosted itself");

	boost_test_exit();

	/* 8. VM destruction restores the thread. */
	CHECK_RET(boost_unload(), -EAGAIN,
		  "rmmod %s refused (EWOULDBLOCK) while a VM uses it",
		  BOOST_DRV);
	tid = wb->tid;
	vm_close(vm);
	t = now();
	while (!__thread_normal_is(tid, 0, true) &&
	       now() - t < BOOST_WAIT_SECONDS)
		usleep(10000);
	CHECK(thread_normal_is(tid, 0),
	      "boosted B, the VM's fds all closed: B is SCHED_OTHER nice 0 again (after %.0f ms)",
	      (now() - t) * 1000);
	worker_destroy(wa);
	worker_destroy(wb);

	CHECK(boost_sysctls_set(BOOST_PRIO_DEF, BOOST_MAX_US_DEF,
				BOOST_SHARE_DEF),
	      "sysctls back to their defaults");
	r = boost_unload();
	CHECK(!r && !driver_listed(BOOST_DRV),
	      "rmmod %s once no VM uses it: %s, not listed any more",
	      BOOST_DRV, err_str(r));
}

/*
 * The BPF boost driver bpf_pvsched_boost ("pvsched-bpf load boost"): the
 * policy of pvsched_boost in a struct_ops program that reads the typed,
 * nullable, read-only area and asks with the kfuncs
 * bpf_pvsched_vcpu_boost() and bpf_pvsched_vcpu_unboost(); PVSCHED_OPS_BOOST
 * in its map makes assigning it a privilege. The negative controls around
 * it: bpf_pvsched_noflag, the same program without PVSCHED_OPS_BOOST, whose
 * kfunc calls the core refuses with EPERM (it counts their results in a
 * pinned map, pvsched_bpf_noflag.h), so that it never boosts and is open to
 * anyone; and two variants the verifier must refuse, "boost-unchecked"
 * (the area read without a NULL test) and "boost-write" (its host_flags
 * written), with the verifier's reason in the loader's output.
 */
#define BPF_BOOST_DRV		"bpf_pvsched_boost"
#define BPF_NOFLAG_DRV		PVSCHED_BPF_NOFLAG_NAME
#define BPF_UNCHECKED_DRV	"bpf_pvsched_unchecked"
#define BPF_BADWRITE_DRV	"bpf_pvsched_badwrite"
#define BPF_NOFLAG_RUNS		20

static const char *need_bpf_boost(void)
{
	const char *r = need_bpf();

	if (r)
		return r;
	if (!path_exists(SYSCTL_BOOST_PRIO))
		return SYSCTL_BOOST_PRIO " missing (a kernel without the boost)";
	return NULL;
}

/* bpf_pvsched_noflag's results, from its pinned map @fd; false if unread. */
static bool noflag_results(int fd, struct pvsched_bpf_noflag_results *r)
{
	__u32 zero = 0;
	int err;

	memset(r, 0, sizeof(*r));
	if (fd < 0)
		return false;
	err = bpf_map_op(BPF_MAP_LOOKUP_ELEM, fd, &zero, r);
	if (err)
		diag("%s: BPF_MAP_LOOKUP_ELEM: %s", PVSCHED_BPF_NOFLAG_MAP,
		     err_str(err));
	return !err;
}

/*
 * "pvsched-bpf load @which" must fail, registering nothing (@name), and
 * its output (libbpf's copy of the verifier's log) must name program
 * @prog and contain @why and, unless NULL, @why2. Two checks.
 */
static void bpf_load_refused(const char *which, const char *name,
			     const char *prog, const char *why,
			     const char *why2)
{
	static char out[32768];
	char prog_str[96];
	bool listed;
	int st;

	st = bpf_tool_run_out("load", which, out, sizeof(out));
	listed = driver_listed(name);
	CHECK(st != 0 && !listed,
	      "pvsched-bpf load %s fails (status %d), %s is not registered",
	      which, st, name);
	if (listed)
		bpf_tool_run("unload", name);
	snprintf(prog_str, sizeof(prog_str), "prog '%s'", prog);
	CHECK(st != 0 && strstr(out, prog_str) && strstr(out, why) &&
	      (!why2 || strstr(out, why2)),
	      "... the verifier refused %s: \"%s\"%s%s%s", prog, why,
	      why2 ? ", \"" : "", why2 ?: "", why2 ? "\"" : "");
}

/*
 * The guest's flag up for @nr exits under bpf_pvsched_noflag: never
 * boosted, the thread SCHED_OTHER with nice @nice after each.
 */
static bool noflag_runs(struct worker *w, struct kvm_vcpu *vcpu, int nr,
			int nice)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (!boost_run(w, vcpu, PVSCHED_GUEST_BOOST, i % 2 ? 50 : 0) ||
		    !thread_normal_is(w->tid, nice)) {
			diag("exit %d of %d", i + 1, nr);
			return false;
		}
	}
	return true;
}

static void test_boost_bpf(void)
{
	struct pvsched_bpf_noflag_results r0, r1;
	struct unpriv_result res;
	struct boost_area *a;
	struct kvm_vcpu *vcpu;
	uint32_t boosts, unboosts;
	struct worker *w;
	struct kvm_vm *vm;
	bool ok, again, ran;
	int r, nf_fd;
	double t;

	r = bpf_tool_run("load", "boost");
	CHECK(!r && driver_listed(BPF_BOOST_DRV),
	      "pvsched-bpf load boost: status %d, %s listed", r,
	      BPF_BOOST_DRV);
	r = bpf_tool_run("load", "noflag");
	nf_fd = bpf_obj_get(PVSCHED_BPF_NOFLAG_MAP);
	if (nf_fd < 0)
		diag("%s: %s", PVSCHED_BPF_NOFLAG_MAP, strerror(errno));
	CHECK(!r && driver_listed(BPF_NOFLAG_DRV) && nf_fd >= 0,
	      "pvsched-bpf load noflag: status %d, %s listed, its results map pinned",
	      r, BPF_NOFLAG_DRV);

	/* PVSCHED_OPS_BOOST, and only it, makes assigning a privilege. */
	ran = unpriv_run(BPF_BOOST_DRV, BPF_NOFLAG_DRV, &res);
	unpriv_check_replace(ran, &res, BPF_BOOST_DRV, BPF_NOFLAG_DRV);

	vm = vm_create();
	memcpy((char *)vm->mem + GUEST_CODE_GPA, guest_boost,
	       sizeof(guest_boost));
	vcpu = vcpu_add(vm);
	a = boost_area(vm);
	w = worker_create();
	TEST_ASSERT(!setpriority(PRIO_PROCESS, w->tid, BOOST_NICE),
		    "setpriority(%d, %d)", w->tid, BOOST_NICE);
	CHECK(boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX,
				BOOST_SHARE_WIDE) &&
	      !area_set(vcpu, AREA_GPA, 0),
	      "pvsched_boost_prio %d, max_us %d, share_pct %d; the vCPU's area registered",
	      BOOST_PRIO, BOOST_MAX_US_MAX, BOOST_SHARE_WIDE);
	r = pvsched_assign(vm, BPF_BOOST_DRV, NULL);
	CHECK(!r && vm_driver_is(vm, BPF_BOOST_DRV),
	      "root (CAP_SYS_NICE) assigns %s with KVM_REPLACE_PVSCHED_OPS (%s)",
	      BPF_BOOST_DRV, err_str(r));

	/* The flag up, an OUT: boosted before KVM_RUN returns; then down. */
	CHECK(boost_run(w, vcpu, 0, 0) &&
	      thread_normal_is(w->tid, BOOST_NICE) && !a->boosts &&
	      !a->host_flags,
	      "the vCPU thread (nice %d) runs, flag down: not boosted, boosts 0, host_flags 0",
	      BOOST_NICE);
	CHECK(boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	      thread_boosted(w->tid),
	      "the guest raises BOOST and exits: when KVM_RUN returns, the thread is SCHED_FIFO prio %d (pvsched_boost_prio)",
	      BOOST_PRIO);
	CHECK(a->host_flags == PVSCHED_HOST_BOOSTED && a->boosts == 1 &&
	      !a->throttles && !a->unboosts,
	      "host_flags BOOSTED (%#x), boosts 1 (%u), throttles 0, unboosts 0",
	      a->host_flags, a->boosts);
	CHECK(boost_run(w, vcpu, 0, 0) && thread_normal_is(w->tid, BOOST_NICE),
	      "the guest drops BOOST and exits: SCHED_OTHER nice %d again",
	      BOOST_NICE);
	CHECK(!a->host_flags && a->unboosts == 1 && a->boosts == 1 &&
	      !a->throttles && a->boosted_ns > 0,
	      "host_flags 0 (%#x), unboosts 1 (%u), boosted_ns %llu > 0",
	      a->host_flags, a->unboosts, (unsigned long long)a->boosted_ns);
	if (a->unboosts != 1)
		diag_area(vm);

	/* The rest of pvsched_boost's policy: guest_prio, the version. */
	boosts = a->boosts;
	CHECK(boost_run(w, vcpu, 0, 50) && thread_boosted(w->tid) &&
	      boost_run(w, vcpu, 0, 100) &&
	      thread_normal_is(w->tid, BOOST_NICE) &&
	      a->boosts == boosts + 1,
	      "guest_prio 50 without the flag: boosted; guest_prio 100: unboosted (boosts +%u)",
	      a->boosts - boosts);
	a->version = 0xdeadbeef;
	ok = boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	     thread_normal_is(w->tid, BOOST_NICE);
	a->version = PVSCHED_AREA_VERSION;
	CHECK(ok && a->boosts == boosts + 1 && boost_run(w, vcpu, 0, 0),
	      "area version 0xdeadbeef: the guest's flag boosts nothing");

	/* A throttle at a small max_us, then the sysctls back. */
	ok = boost_check_max_us(w, vcpu);
	ok = boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX, BOOST_SHARE_WIDE);
	t = now();
	again = false;
	do {
		usleep(20 * 1000);
		if (!boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0))
			break;
		again = !__thread_normal_is(w->tid, BOOST_NICE, true);
	} while (!again && now() - t < BOOST_PAYBACK_SECONDS);
	CHECK(ok && again && thread_boosted(w->tid) &&
	      a->host_flags == PVSCHED_HOST_BOOSTED,
	      "max_us %d again: once paid back, the flag boosts again (after %.0f ms)",
	      BOOST_MAX_US_MAX, (now() - t) * 1000);
	if (!again)
		diag_area(vm);
	CHECK(boost_run(w, vcpu, 0, 0) && thread_normal_is(w->tid, BOOST_NICE),
	      "the guest drops its flag: SCHED_OTHER nice %d", BOOST_NICE);

	/* Unregistered while assigned: the VM keeps it, and it boosts. */
	r = bpf_tool_run("unload", BPF_BOOST_DRV);
	CHECK(!r && !driver_listed(BPF_BOOST_DRV) &&
	      vm_driver_is(vm, BPF_BOOST_DRV),
	      "pvsched-bpf unload %s while assigned: status %d, not listed, the VM keeps it (GET)",
	      BPF_BOOST_DRV, r);
	boosts = a->boosts;
	unboosts = a->unboosts;
	CHECK(boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	      thread_boosted(w->tid) && boost_run(w, vcpu, 0, 0) &&
	      thread_normal_is(w->tid, BOOST_NICE) &&
	      boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	      thread_boosted(w->tid) && a->boosts == boosts + 2 &&
	      a->unboosts == unboosts + 1,
	      "... it still boosts and unboosts: flag up, down, up (boosts +%u, unboosts +%u)",
	      a->boosts - boosts, a->unboosts - unboosts);
	r = pvsched_assign(vm, BPF_NOFLAG_DRV, NULL);
	CHECK(!r && thread_normal_is(w->tid, BOOST_NICE) &&
	      !(a->host_flags & PVSCHED_HOST_BOOSTED),
	      "boosted, then REPLACE %s (%s): SCHED_OTHER nice %d when it returns, not BOOSTED",
	      BPF_NOFLAG_DRV, err_str(r), BOOST_NICE);
	CHECK_RET(pvsched_assign(vm, BPF_BOOST_DRV, NULL), -EINVAL,
		  "the unloaded %s cannot be assigned again: EINVAL",
		  BPF_BOOST_DRV);

	/* bpf_pvsched_noflag: its requests fail with EPERM, no boost. */
	boosts = a->boosts;
	ok = noflag_results(nf_fd, &r0) && vm_driver_is(vm, BPF_NOFLAG_DRV);
	CHECK(ok && noflag_runs(w, vcpu, BPF_NOFLAG_RUNS, BOOST_NICE) &&
	      a->boosts == boosts && !a->host_flags,
	      "%s: the guest asks for a boost at %d exits (flag up, guest_prio 50 at every other): never boosted, boosts stays %u (%u), host_flags 0 (%#x)",
	      BPF_NOFLAG_DRV, BPF_NOFLAG_RUNS, boosts, a->boosts,
	      a->host_flags);
	ok = ok && noflag_results(nf_fd, &r1);
	CHECK(ok && r1.calls - r0.calls >= BPF_NOFLAG_RUNS &&
	      r1.eperm - r0.eperm == r1.calls - r0.calls &&
	      r1.other == r0.other,
	      "... all its %llu kfunc calls (>= %d) returned -EPERM (%llu), none anything else (%llu, last %lld)",
	      (unsigned long long)(r1.calls - r0.calls), BPF_NOFLAG_RUNS,
	      (unsigned long long)(r1.eperm - r0.eperm),
	      (unsigned long long)(r1.other - r0.other),
	      (long long)r1.last_other);

	worker_destroy(w);
	vm_close(vm);
	if (nf_fd >= 0)
		close(nf_fd);
	CHECK(boost_sysctls_set(BOOST_PRIO_DEF, BOOST_MAX_US_DEF,
				BOOST_SHARE_DEF),
	      "sysctls back to their defaults");
	r = bpf_tool_run("unload", BPF_NOFLAG_DRV);
	CHECK(!r && !driver_listed(BPF_NOFLAG_DRV) &&
	      !path_exists(PVSCHED_BPF_NOFLAG_MAP),
	      "pvsched-bpf unload %s: status %d, not listed, its map unpinned",
	      BPF_NOFLAG_DRV, r);

	/* The verifier's side: the area may be NULL, and is read-only. */
	bpf_load_refused("boost-unchecked", BPF_UNCHECKED_DRV,
			 "pvsched_unchecked_notify_event", "invalid mem access",
			 "or_null");
	bpf_load_refused("boost-write", BPF_BADWRITE_DRV,
			 "pvsched_badwrite_notify_event",
			 "pvsched: no write access to kernel objects", NULL);
}

/* The kernel log since the start of the test. */
static int kmsg_fd = -1;

static void kmsg_open(void)
{
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

static const char *need_kmsg(void)
{
	return kmsg_fd < 0 ? "/dev/kmsg not readable" : NULL;
}

/* ci/kernel-report-patterns, the one list of kernel reports that fail. */
#define REPORT_PATTERNS	"/etc/kernel-report-patterns"
#define MAX_PATTERNS	64

static int report_patterns(regex_t *re)
{
	char line[512];
	int n = 0;
	FILE *f;

	f = fopen(REPORT_PATTERNS, "re");
	if (!f)
		return -errno;
	while (n < MAX_PATTERNS && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		if (regcomp(&re[n], line, REG_EXTENDED | REG_NOSUB)) {
			diag("%s: bad pattern \"%s\"", REPORT_PATTERNS, line);
			continue;
		}
		n++;
	}
	fclose(f);
	return n;
}

static void test_kernel_log(void)
{
	regex_t re[MAX_PATTERNS];
	char rec[8192], *msg, *nl;
	int n, i, nr_re, found = 0;
	ssize_t r;

	nr_re = report_patterns(re);
	if (nr_re <= 0) {
		check(false, "read the kernel report patterns: %s",
		      err_str(nr_re ? nr_re : -ENODATA));
		return;
	}
	for (n = 0;; n++) {
		r = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)	/* overwritten records */
			continue;
		if (r <= 0)
			break;
		rec[r] = '\0';
		/* "prio,seq,time,flags;message\n": the message's first line. */
		msg = strchr(rec, ';') ? strchr(rec, ';') + 1 : rec;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		for (i = 0; i < nr_re; i++) {
			if (!regexec(&re[i], msg, 0, NULL, 0)) {
				if (found++ < 40)
					diag("%s", msg);
				break;
			}
		}
	}
	for (i = 0; i < nr_re; i++)
		regfree(&re[i]);
	CHECK(!found,
	      "kernel log free of the reports in %s (%d records read)",
	      REPORT_PATTERNS, n);
}

struct test_group {
	const char *name;
	int nr_checks;
	void (*run)(void);
	const char *(*needs)(void);
};

static const struct test_group groups[] = {
	{ "debugfs",		34,	test_debugfs,		need_count },
	{ "sysctl",		16,	test_sysctl,		NULL },
	{ "counts-module",	35,	test_counts_module,	need_count },
	{ "counts-bpf",		37,	test_counts_bpf,	need_bpf },
	{ "bpf-slots",		14,	test_bpf_slots,		need_bpf },
	{ "vm-close",		17,	test_vm_close,		need_count },
	{ "module-pin",		18,	test_module_pin,	need_count },
	{ "bpf-unload",		36,	test_bpf_unload,	need_bpf },
	{ "race",		12,	test_race,		need_strict },
	{ "race-hop",		10,	test_race_hop,		need_strict },
	{ "race-rmmod",		10,	test_race_rmmod,	need_strict },
	{ "race-bpf",		7,	test_race_bpf,		need_bpf },
	{ "many-vms",		11,	test_many_vms,		need_count },
	{ "guest-mode-replace",	20,	test_guest_mode_replace, need_count },
	{ "vcpu-create-race",	6,	test_vcpu_create_race,	need_count },
	{ "count-bound",	8,	test_count_bound,	need_count },
	{ "key-churn",		3,	test_key_churn,		need_count },
	{ "bpf-sleepable",	8,	test_bpf_sleepable,	need_bpf },
	{ "driver-validation",	12,	test_driver_validation,	need_test_drv },
	{ "intr-exact",		9,	test_intr_exact,	need_count },
	{ "static-key",		9,	test_static_key,	need_key },
	{ "area",		10,	test_area,		need_strict },
	{ "boost",		44,	test_boost,		need_boost },
	{ "boost-bpf",		30,	test_boost_bpf,		need_bpf_boost },
	{ "kernel-log",		1,	test_kernel_log,	need_kmsg },
};

/* Bring the drivers to the state the tests start from. */
static void setup_drivers(void)
{
	int r;

	count_ko_present = path_exists(COUNT_KO);
	if (!driver_listed(COUNT_DRV) && count_ko_present) {
		r = module_load();
		if (r)
			diag("insmod %s: %s", COUNT_KO, err_str(r));
	}
	bpf_tool_find();
	if (!bpf_tool[0])
		return;
	/* Leftovers of an earlier run. */
	if (driver_listed(PVSCHED_BPF_COUNT_NAME))
		bpf_tool_run("unload", PVSCHED_BPF_COUNT_NAME);
	if (driver_listed(SAMPLE_DRV))
		bpf_tool_run("unload", SAMPLE_DRV);
	if (driver_listed(SLEEP_DRV))
		bpf_tool_run("unload", SLEEP_DRV);
	if (driver_listed(BPF_BOOST_DRV))
		bpf_tool_run("unload", BPF_BOOST_DRV);
	if (driver_listed(BPF_NOFLAG_DRV))
		bpf_tool_run("unload", BPF_NOFLAG_DRV);
}

/* Is group @name selected by the command line (none: all are)? */
static bool selected(int argc, char **argv, const char *name)
{
	int i;

	if (argc < 2)
		return true;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], name))
			return true;
	}
	return false;
}

static void print_usage(void)
{
	size_t i;

	fprintf(stderr, "usage: pvsched_test [GROUP]...\ngroups:");
	for (i = 0; i < ARRAY_SIZE(groups); i++)
		fprintf(stderr, " %s", groups[i].name);
	fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
	const struct test_group *g;
	double t0 = now(), t;
	struct sigaction sa;
	const char *reason;
	size_t i;
	int plan = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* No SA_RESTART: the watchdog's signal interrupts KVM_RUN. */
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = kick_handler;
	sa.sa_flags = 0;
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < ARRAY_SIZE(groups); i++)
		plan += groups[i].nr_checks;
	for (i = 1; i < (size_t)argc; i++) {
		size_t j;

		for (j = 0; j < ARRAY_SIZE(groups); j++) {
			if (!strcmp(argv[i], groups[j].name))
				break;
		}
		if (j == ARRAY_SIZE(groups)) {
			print_usage();
			return 2;
		}
	}

	printf("TAP version 13\n");
	printf("1..%d\n", plan);
	if (getenv("PVSCHED_TEST_SEED"))
		run_seed = strtoul(getenv("PVSCHED_TEST_SEED"), NULL, 0);
	else
		run_seed = time(NULL) ^ getpid();
	diag("random seed %u: PVSCHED_TEST_SEED=%u repeats the races' choices",
	     run_seed, run_seed);
	kmsg_open();
	kvm_init();
	setup_drivers();
	diag("kernel pvsched ABI suite, pid %d", getpid());
	diag_drivers();

	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		g = &groups[i];
		group_name = g->name;
		group_last = tap_nr + g->nr_checks;
		t = now();
		if (!selected(argc, argv, g->name))
			reason = "not selected on the command line";
		else
			reason = g->needs ? g->needs() : NULL;
		if (reason)
			group_skip_rest(reason);
		else
			g->run();
		if (tap_nr < group_last) {
			diag("BUG: group %s printed %d of its %d results",
			     g->name, g->nr_checks - (group_last - tap_nr),
			     g->nr_checks);
			group_fail_rest("group ended early");
		}
		diag("%s: %.1f s", g->name, now() - t);
	}
	group_name = "end";

	if (bpf_tool[0] && driver_listed(PVSCHED_BPF_COUNT_NAME))
		bpf_tool_run("unload", PVSCHED_BPF_COUNT_NAME);
	if (tap_plan_broken)
		tap_fails++;
	diag("Totals: pass:%d fail:%d skip:%d, %.1f s", tap_nr - tap_fails -
	     tap_skips, tap_fails, tap_skips, now() - t0);
	return tap_fails ? 1 : 0;
}
