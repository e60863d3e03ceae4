// SPDX-License-Identifier: GPL-2.0
/*
 * pvsched_boost_test - the bounded boost that the module driver
 * pvsched_boost and the BPF driver bpf_pvsched_boost give a vCPU thread
 * that asks for it through its shared area: the policy and its bounds
 * (sysctls kernel.pvsched_boost_*), the CAP_SYS_NICE gate on choosing such
 * a driver, the trace events, the restore on VM exit and destruction, and
 * the BPF negative controls: a driver without PVSCHED_OPS_BOOST never
 * boosts, and the verifier refuses programs that read the area without a
 * NULL test or write to it.
 *
 * A kselftest_harness.h program run inside the test VM by
 * ci/tests/run-suite.sh, as root, with debugfs at /sys/kernel/debug and
 * bpffs at /sys/fs/bpf; what it shares with the other pvsched_*_test
 * programs is in pvsched_util.c. A test whose prerequisite is missing (no
 * /dev/kvm, no pvsched_count.ko, no pvsched-bpf, ...) is skipped. It loads
 * and unloads drivers and changes their sysctls: run it only in the test
 * VM. The ioctls' own semantics are the in-tree KVM selftest's
 * (tools/testing/selftests/kvm/x86_64/pvsched_test.c).
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
#include <sched.h>
#include <regex.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/kvm.h>
#include <linux/types.h>

#include "../../kernel/bpf/pvsched_bpf_count.h"
#include "../../kernel/bpf/pvsched_bpf_noflag.h"
#include "kselftest_harness.h"
#include "pvsched_util.h"

FIXTURE(boost) {};
FIXTURE_SETUP(boost) {}
FIXTURE_TEARDOWN(boost) {}

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
#define SYSCTL_BOOST_VM		"/proc/sys/kernel/pvsched_boost_vm_pct"
#define BOOST_PRIO_DEF		1
#define BOOST_MAX_US_DEF	2000
#define BOOST_SHARE_DEF		50
#define BOOST_MAX_US_MAX	1000000
#define BOOST_VM_DEF		100
#define BOOST_VM_MAX		10000

/* include/uapi/linux/pvsched.h */
#define PVSCHED_AREA_VERSION	1
#define PVSCHED_GUEST_BOOST	(1U << 0)
#define PVSCHED_GUEST_BOOST_IRQ	(1U << 1)
/* guest_flags bits that pvsched_boost does not know */
#define GUEST_FLAGS_UNKNOWN	(~(PVSCHED_GUEST_BOOST | PVSCHED_GUEST_BOOST_IRQ))
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
#define BOOST_WINDOW_MS		100	/* the share's window */
#define BOOST_IDLE_MS		300	/* the VMM idle, the guest's flag up */
#define BOOST_SPIN_US		300000	/* max_us of a long boosted spin */
#define BOOST_OWE_US		700	/* max_us of a throttle that owes */
#define BOOST_VMM_SPIN_MS	300	/* a VMM thread spinning after KVM_RUN */
#define BOOST_TICK_US		4000	/* CONFIG_HZ=250 */
#define BOOST_TIMER_FN		"function=kvm_vcpu_pvsched_boost_timer"
#define TIMER_EVENT		"timer/hrtimer_expire_entry"
#define BOOST_PRIO		3
#define BOOST_SHARE_WIDE	99
#define BOOST_NICE		5	/* of the vCPU thread, to be restored */
#define BOOST_THROTTLE_US	200
#define BOOST_BUDGET_US		1000	/* share_pct 1 of a 100 ms window */
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
static void boost_start_wait(struct worker *w, struct kvm_vcpu *vcpu,
			     uint32_t flags, uint32_t prio, uint32_t wait,
			     uint32_t after)
{
	struct boost_mbox *mb = boost_mbox(vcpu->vm);

	mb->flags = flags;
	mb->prio = prio;
	mb->wait = wait;
	mb->seen = 0;
	mb->after = after;
	worker_start(w, WORKER_RUN, vcpu, 1);
}

static bool boost_run_wait(struct worker *w, struct kvm_vcpu *vcpu,
			   uint32_t flags, uint32_t prio, uint32_t wait,
			   uint32_t after)
{
	boost_start_wait(w, vcpu, flags, prio, wait, after);
	return worker_wait(w);
}

static bool boost_run(struct worker *w, struct kvm_vcpu *vcpu,
		      uint32_t flags, uint32_t prio)
{
	return boost_run_wait(w, vcpu, flags, prio, 0, 0);
}

/* @vm's vCPU, running guest_boost. */
static struct kvm_vcpu *boost_vcpu_add(struct kvm_vm *vm)
{
	memcpy((char *)vm->mem + GUEST_CODE_GPA, guest_boost,
	       sizeof(guest_boost));
	return vcpu_add(vm);
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

/*
 * Does @vcpu hold a boost, paused while its thread @tid is out of KVM_RUN?
 * The area says BOOSTED, and the thread has its own policy, SCHED_OTHER:
 * KVM applies a boost only while it runs the vCPU (boost_test_in_guest()
 * sees it applied there), so that the VMM never runs boosted, where
 * nothing would hold the bounds.
 */
static bool thread_boosted(struct kvm_vcpu *vcpu, pid_t tid)
{
	uint32_t host_flags = boost_area(vcpu->vm)->host_flags;
	struct sched_state s;

	if (!sched_state_get(tid, &s))
		return false;
	if ((host_flags & PVSCHED_HOST_BOOSTED) && s.policy == SCHED_OTHER &&
	    s.prio == 0)
		return true;
	diag("area host_flags %#x, thread %d %s prio %d: expected BOOSTED, paused (SCHED_OTHER) out of KVM_RUN",
	     host_flags, tid, policy_str(s.policy), s.prio);
	return false;
}

/* Is @tid's policy @policy (reset-on-fork not compared)? */
static bool thread_policy_is(pid_t tid, int policy)
{
	int p = sched_getscheduler(tid);

	if (p >= 0 && (p & ~SCHED_RESET_ON_FORK) == policy)
		return true;
	diag("thread %d is %s, expected %s", tid, policy_str(p),
	     policy_str(policy));
	return false;
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
static void boost_test_sysctls(struct __test_metadata *_metadata)
{
	static const long bad_prio[] = { 0, 100 };
	static const long bad_share[] = { 0, 100 };
	static const long bad_max_us[] = { 0, 49, BOOST_MAX_US_MAX + 1 };
	static const long bad_vm[] = { 0, BOOST_VM_MAX + 1 };
	long prio, max_us, share;

	prio = sysctl_get(SYSCTL_BOOST_PRIO);
	max_us = sysctl_get(SYSCTL_BOOST_MAX_US);
	share = sysctl_get(SYSCTL_BOOST_SHARE);
	EXPECT_TRUE(prio == BOOST_PRIO_DEF && max_us == BOOST_MAX_US_DEF &&
		    share == BOOST_SHARE_DEF)
		TH_LOG("sysctls at their defaults: pvsched_boost_prio %ld (%d), pvsched_boost_max_us %ld (%d), pvsched_boost_share_pct %ld (%d)",
		       prio, BOOST_PRIO_DEF, max_us, BOOST_MAX_US_DEF, share, BOOST_SHARE_DEF);
	EXPECT_TRUE(sysctl_refuses(SYSCTL_BOOST_PRIO, bad_prio,
				   ARRAY_SIZE(bad_prio), BOOST_PRIO_DEF))
		TH_LOG("pvsched_boost_prio 0 and 100: EINVAL, value unchanged");
	EXPECT_TRUE(sysctl_refuses(SYSCTL_BOOST_SHARE, bad_share,
				   ARRAY_SIZE(bad_share), BOOST_SHARE_DEF))
		TH_LOG("pvsched_boost_share_pct 0 and 100: EINVAL, value unchanged");
	EXPECT_TRUE(sysctl_refuses(SYSCTL_BOOST_MAX_US, bad_max_us,
				   ARRAY_SIZE(bad_max_us), BOOST_MAX_US_DEF))
		TH_LOG("pvsched_boost_max_us 0, 49 and %d: EINVAL, value unchanged",
		       BOOST_MAX_US_MAX + 1);
	EXPECT_TRUE(sysctl_get(SYSCTL_BOOST_VM) == BOOST_VM_DEF &&
		    sysctl_refuses(SYSCTL_BOOST_VM, bad_vm, ARRAY_SIZE(bad_vm),
				   BOOST_VM_DEF))
		TH_LOG("pvsched_boost_vm_pct %ld (%d); 0 and %d: EINVAL, value unchanged",
		       sysctl_get(SYSCTL_BOOST_VM), BOOST_VM_DEF, BOOST_VM_MAX + 1);
	EXPECT_TRUE(!sysctl_set(SYSCTL_BOOST_VM, 1) &&
		    sysctl_get(SYSCTL_BOOST_VM) == 1 &&
		    !sysctl_set(SYSCTL_BOOST_VM, BOOST_VM_MAX) &&
		    sysctl_get(SYSCTL_BOOST_VM) == BOOST_VM_MAX &&
		    !sysctl_set(SYSCTL_BOOST_VM, BOOST_VM_DEF))
		TH_LOG("pvsched_boost_vm_pct 1 and %d are taken, the default back",
		       BOOST_VM_MAX);
	EXPECT_TRUE(boost_sysctls_set(99, 50, 1) &&
		    boost_sysctls_set(1, BOOST_MAX_US_MAX, 99) &&
		    boost_sysctls_set(BOOST_PRIO_DEF, BOOST_MAX_US_DEF,
				      BOOST_SHARE_DEF))
		TH_LOG("the range limits (prio 1 and 99, max_us 50 and %d, share 1 and 99) are taken, the defaults back",
		       BOOST_MAX_US_MAX);
}

/* What the unprivileged child of unpriv_run() saw. */
struct unpriv_result {
	char failed[32];	/* the setup step that failed, "" if none */
	int err;		/* its errno */
	uint64_t caps;		/* effective capabilities after the drop */
	int sysctl_write[4];	/* writes to the four sysctls */
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
		res.sysctl_write[3] = write_file(SYSCTL_BOOST_VM, "2\n", 2, -1);
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
static void unpriv_check_replace(struct __test_metadata *_metadata,
			bool ran, const struct unpriv_result *res,
				 const char *boost, const char *open_drv)
{
	EXPECT_TRUE(ran && res->replace_boost == -EPERM)
		TH_LOG("uid 65534 without capabilities: REPLACE %s fails with EPERM (%s)",
		       boost, err_str(res->replace_boost));
	EXPECT_TRUE(ran && !res->get && ops_is(&res->after_boost, ""))
		TH_LOG("... and the VM keeps no driver (GET: %s)",
		       err_str(res->get));
	if (ran && !ops_is(&res->after_boost, ""))
		diag("GET after the EPERM: %s", ops_str(&res->after_boost));
	EXPECT_TRUE(ran && !res->replace_open && res->replace_boost2 == -EPERM &&
		    !res->get2 && ops_is(&res->after_boost2, open_drv))
		TH_LOG("... REPLACE %s works (%s), then %s again fails with EPERM (%s) and the VM keeps %s",
		       open_drv, err_str(res->replace_open), boost, err_str(res->replace_boost2), open_drv);
	if (ran && !ops_is(&res->after_boost2, open_drv))
		diag("GET after the second EPERM: %s",
		     ops_str(&res->after_boost2));
}

/*
 * 2. Selecting pvsched_boost needs CAP_SYS_NICE: the unprivileged child
 * gets EPERM for it and not for pvsched_count, and may not write the
 * sysctls.
 */
static void boost_test_unprivileged(struct __test_metadata *_metadata)
{
	struct unpriv_result res;
	bool ran;

	ran = unpriv_run(BOOST_DRV, COUNT_DRV, &res);
	EXPECT_TRUE(ran && res.sysctl_write[0] == -EACCES &&
		    res.sysctl_write[1] == -EACCES && res.sysctl_write[2] == -EACCES &&
		    res.sysctl_write[3] == -EACCES &&
		    sysctl_get(SYSCTL_BOOST_PRIO) == BOOST_PRIO_DEF &&
		    sysctl_get(SYSCTL_BOOST_MAX_US) == BOOST_MAX_US_DEF &&
		    sysctl_get(SYSCTL_BOOST_SHARE) == BOOST_SHARE_DEF &&
		    sysctl_get(SYSCTL_BOOST_VM) == BOOST_VM_DEF)
		TH_LOG("uid 65534 cannot write the sysctls (%s, %s, %s, %s), they keep their values",
		       err_str(res.sysctl_write[0]), err_str(res.sysctl_write[1]), err_str(res.sysctl_write[2]),
		       err_str(res.sysctl_write[3]));
	unpriv_check_replace(_metadata, ran, &res, BOOST_DRV, COUNT_DRV);
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
static void boost_test_trace(struct __test_metadata *_metadata,
			struct worker *w, struct kvm_vcpu *vcpu)
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
	EXPECT_TRUE(there)
		TH_LOG("tracefs (%s) has events/pvsched/{%s,%s,%s}",
		       dir ?: "not mounted", boost_events[0], boost_events[1], boost_events[2]);
	if (!there)
		return;

	ran = boost_events_enable(dir, true) && trace_clear(dir) &&
	      boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	      thread_boosted(vcpu, w->tid) && boost_run(w, vcpu, 0, 0) &&
	      thread_normal_is(w->tid, BOOST_NICE);
	boost_events_enable(dir, false);
	if (ran) {
		nb = trace_count(dir, " pvsched_boost: ");
		nu = trace_count(dir, " pvsched_unboost: ");
		nd = trace_count(dir, "reason=driver");
		nt = trace_count(dir, " pvsched_throttle: ");
	}
	EXPECT_TRUE(ran && nb == 1)
		TH_LOG("one boost with the events enabled: one pvsched_boost event (%d)",
		       nb);
	EXPECT_TRUE(ran && nu == 1 && nd == 1 && !nt)
		TH_LOG("one unboost: one pvsched_unboost event (%d), reason=driver (%d); no pvsched_throttle (%d)",
		       nu, nd, nt);
	if (nb != 1 || nu != 1 || nd != 1 || nt)
		diag_trace(dir);
}

/*
 * Under max_us @max_us and share_pct @share, the guest raises its flag and
 * exits, then spins boosted until it is throttled and writes @after to
 * guest_flags before it exits.
 */
static bool boost_until_throttled(struct worker *w, struct kvm_vcpu *vcpu,
				  long max_us, long share, uint32_t after)
{
	return boost_sysctls_set(BOOST_PRIO, max_us, share) &&
	       boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	       boost_run_wait(w, vcpu, PVSCHED_GUEST_BOOST, 0,
			      PVSCHED_HOST_THROTTLED, after);
}

/*
 * max_us: a guest that spins boosted is throttled, whatever it asks, and
 * gets its policy back. Two checks; leaves max_us at BOOST_THROTTLE_US.
 */
static bool boost_check_max_us(struct __test_metadata *_metadata,
			struct worker *w, struct kvm_vcpu *vcpu)
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
	ok = boost_until_throttled(w, vcpu, BOOST_THROTTLE_US, BOOST_SHARE_DEF,
				   0);
	seen = mb->seen;
	EXPECT_TRUE(ok && (seen & PVSCHED_HOST_THROTTLED) &&
		    a->throttles - throttles >= 1)
		TH_LOG("max_us %d: a boosted guest that spins is throttled, it sees THROTTLED (host_flags %#x, throttles +%u)",
		       BOOST_THROTTLE_US, seen, a->throttles - throttles);
	EXPECT_TRUE(ok && thread_normal_is(w->tid, BOOST_NICE) &&
		    !(a->host_flags & PVSCHED_HOST_BOOSTED) &&
		    a->boosts - boosts == a->throttles - throttles +
		    (a->unboosts - unboosts) &&
		    a->boosted_ns - boosted_ns >=
		    (uint64_t)(a->throttles - throttles) * BOOST_THROTTLE_US * 1000)
		TH_LOG("the throttle restored SCHED_OTHER nice %d; not BOOSTED; each boost ended; boosted_ns +%llu >= %u x %d us",
		       BOOST_NICE, (unsigned long long)(a->boosted_ns - boosted_ns), a->throttles - throttles, BOOST_THROTTLE_US);
	if (!ok)
		diag_area(vcpu->vm);
	return ok;
}

/*
 * Run @vcpu on @w with the flag up, every 20 ms, until it is boosted (a
 * throttle paid back), for up to BOOST_PAYBACK_SECONDS.
 */
static bool boost_until_boosted(struct worker *w, struct kvm_vcpu *vcpu)
{
	double t = now();

	do {
		if (!boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0))
			return false;
		if (boost_area(vcpu->vm)->host_flags & PVSCHED_HOST_BOOSTED)
			return true;
		usleep(20 * 1000);
	} while (now() - t < BOOST_PAYBACK_SECONDS);
	diag_area(vcpu->vm);
	return false;
}

/*
 * The events that tell where a boost's time went, for a measurement over
 * its bound: the boost and its end, the bound's timer, what ran on the
 * CPUs and the vCPU's exits.
 */
static const char *const bound_events[] = {
	"pvsched/pvsched_boost", "pvsched/pvsched_unboost",
	"pvsched/pvsched_throttle", "timer/hrtimer_start",
	"timer/hrtimer_expire_entry", "timer/hrtimer_cancel",
	"sched/sched_switch", "sched/sched_wakeup", "kvm/kvm_exit",
	"kvm/kvm_entry", "irq_vectors/local_timer_entry",
	"irq_vectors/reschedule_entry",
};

static void bound_events_enable(const char *dir, bool on)
{
	char path[256];
	size_t i;

	for (i = 0; dir && i < ARRAY_SIZE(bound_events); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/enable", dir,
			 bound_events[i]);
		if (path_exists(path))
			write_file(path, on ? "1\n" : "0\n", 2, -1);
	}
}

/* The trace buffer, line by line, as diagnostics: its first 400 lines. */
static void diag_trace_lines(const char *dir)
{
	static char buf[4 << 20];
	char path[256], *line, *save;
	int r, n = 0;

	snprintf(path, sizeof(path), "%s/trace", dir);
	r = read_file(path, buf, sizeof(buf) - 1);
	if (r < 0)
		return;
	buf[r] = 0;
	for (line = strtok_r(buf, "\n", &save); line && n < 400;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		diag("trace: %s", line);
		n++;
	}
}

/*
 * How long a boost ran before its throttle, measured: under max_us @max_us
 * and share_pct @share, from a new window with nothing to pay back, the
 * guest spins boosted until it is throttled, then drops its flag. The CPU
 * time it ran boosted, in us, in @run_us; false if it was not throttled
 * once. @limit_us: over it, the trace of the run is shown.
 */
static bool boost_measure(struct worker *w, struct kvm_vcpu *vcpu,
			  long max_us, long share, uint64_t limit_us,
			  uint64_t *run_us)
{
	struct boost_area *a = boost_area(vcpu->vm);
	const char *dir = tracefs_dir();
	uint64_t boosted_ns;
	uint32_t boosts;
	double t;
	bool ok;

	if (dir) {
		bound_events_enable(dir, true);
		trace_clear(dir);
	}
	boosts = a->boosts;
	boosted_ns = a->boosted_ns;
	t = now();
	ok = boost_until_throttled(w, vcpu, max_us, share, 0) &&
	     a->boosts - boosts == 1;
	t = now() - t;
	*run_us = (a->boosted_ns - boosted_ns) / 1000;
	if (dir)
		bound_events_enable(dir, false);
	diag("max_us %ld, share_pct %ld: throttled after %llu us boosted (boosts +%u) in %.1f ms",
	     max_us, share, (unsigned long long)*run_us, a->boosts - boosts,
	     t * 1000);
	if (dir && *run_us > limit_us)
		diag_trace_lines(dir);
	ok = boost_run(w, vcpu, 0, 0) && ok;
	/* Pay back the run, and start a new window, before the next. */
	usleep(*run_us * (100 - share) / share + 200 * 1000);
	return ok;
}

/*
 * 5b. The bounds' sizes: a throttle at max_us comes after max_us and no
 * later than max_us plus one tick (CONFIG_HZ 250) of boosted CPU time
 * (boosted_ns counts all of it, ran_ns what the payback left), and one at share_pct
 * 1 after its budget, 1 ms of a 100 ms window, not 10 times that, nor
 * less than 90% of it. Measured once each: ci/check.sh runs this program
 * in a VM whose clocks count QEMU's instructions (-icount), where a
 * thread's CPU time is what it ran. In a VM on the host's real time, time
 * in which QEMU did not run the vCPU's CPU (the host loaded) is charged
 * to the thread that was current: such a VM saw 13.5 ms "boosted" under
 * max_us 200 us, with no event in the guest for the 9 ms before the
 * bound's timer expired, and 89 ms under a 1 ms budget.
 */
static void boost_test_bound_sizes(struct __test_metadata *_metadata,
				   struct worker *w, struct kvm_vcpu *vcpu)
{
	uint64_t run_us = 0, limit;
	bool ok;

	limit = BOOST_THROTTLE_US + BOOST_TICK_US;
	ok = boost_measure(w, vcpu, BOOST_THROTTLE_US, BOOST_SHARE_DEF, limit,
			   &run_us);
	EXPECT_TRUE(ok && run_us >= BOOST_THROTTLE_US && run_us <= limit)
		TH_LOG("max_us %d: a boost throttled after max_us, at most 1 tick more (%llu us): %llu us",
		       BOOST_THROTTLE_US, (unsigned long long)limit,
		       (unsigned long long)run_us);
	limit = BOOST_BUDGET_US + BOOST_TICK_US;
	ok = boost_measure(w, vcpu, BOOST_MAX_US_MAX, 1, limit, &run_us);
	EXPECT_TRUE(ok && run_us >= BOOST_BUDGET_US * 9 / 10 && run_us <= limit)
		TH_LOG("share_pct 1: a boost throttled after its budget of %d us, at least 90%% of it, up to 1 tick more: %llu us",
		       BOOST_BUDGET_US, (unsigned long long)run_us);
	EXPECT_TRUE(boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX,
				      BOOST_SHARE_WIDE) &&
		    boost_until_boosted(w, vcpu) && boost_run(w, vcpu, 0, 0) &&
		    thread_normal_is(w->tid, BOOST_NICE))
		TH_LOG("the widest bounds; paid back, boosted, then unboosted: SCHED_OTHER nice %d",
		       BOOST_NICE);
}

/* 5. The bounds: max_us, then share_pct and its payback. */
static void boost_test_throttle(struct __test_metadata *_metadata,
			struct worker *w, struct kvm_vcpu *vcpu)
{
	struct boost_area *a = boost_area(vcpu->vm);
	struct boost_mbox *mb = boost_mbox(vcpu->vm);
	uint32_t boosts, throttles, seen;
	uint64_t boosted_ns, run_us;
	double t, waited;
	bool ok, again;

	/* max_us: a guest that spins boosted is throttled, whatever it asks. */
	ok = boost_check_max_us(_metadata, w, vcpu);

	/*
	 * share_pct 1: a budget of 1 ms of boost per 100 ms window, then a
	 * payback of 99 times what the boost ran; max_us out of the way.
	 * The guest keeps its flag up: it is boosted again once paid back.
	 */
	usleep(300 * 1000);	/* a new window, nothing left to pay back */
	boosts = a->boosts;
	throttles = a->throttles;
	boosted_ns = a->boosted_ns;
	ok = boost_until_throttled(w, vcpu, BOOST_MAX_US_MAX, 1,
				   PVSCHED_GUEST_BOOST);
	t = now();
	seen = mb->seen;
	EXPECT_TRUE(ok && (seen & PVSCHED_HOST_THROTTLED) &&
		    thread_normal_is(w->tid, BOOST_NICE) &&
		    a->host_flags == PVSCHED_HOST_THROTTLED &&
		    a->boosts - boosts == 1 && a->throttles - throttles == 1)
		TH_LOG("share_pct 1: throttled after its budget, the guest sees THROTTLED (%#x); at its next exit, flag still up, it is not boosted: SCHED_OTHER nice %d, host_flags %#x (THROTTLED)",
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
		again = a->host_flags & PVSCHED_HOST_BOOSTED;
	} while (!again && now() - t < BOOST_PAYBACK_SECONDS);
	waited = now() - t;
	EXPECT_TRUE(ok && again && thread_boosted(vcpu, w->tid) &&
		    a->host_flags == PVSCHED_HOST_BOOSTED &&
		    a->boosts - boosts == 2 && a->throttles - throttles == 1)
		TH_LOG("paid back: boosted again after %.0f ms, host_flags %#x (BOOSTED only)",
		       waited * 1000, a->host_flags);
	if (!again)
		diag_area(vcpu->vm);
	EXPECT_TRUE(boost_run(w, vcpu, 0, 0) &&
		    thread_normal_is(w->tid, BOOST_NICE))
		TH_LOG("the guest drops its flag: SCHED_OTHER nice %d",
		       BOOST_NICE);

	/*
	 * The payback, measured: share_pct 1, a throttle at max_us (far
	 * from the window's budget), then the flag up every millisecond.
	 * The next boost may come (100 - 1) / 1 = 99 times the throttled
	 * run after the throttle, not before (a payback of 1x would).
	 */
	usleep(300 * 1000);
	boosted_ns = a->boosted_ns;
	ok = boost_until_throttled(w, vcpu, BOOST_THROTTLE_US, 1,
				   PVSCHED_GUEST_BOOST);
	t = now();
	run_us = (a->boosted_ns - boosted_ns) / 1000;
	boosts = a->boosts;
	throttles = a->throttles;
	again = false;
	/*
	 * A new boost, not BOOSTED at KVM_RUN's return: on the debug kernel
	 * the exit itself can outrun max_us and throttle it again.
	 */
	while (ok && !again && now() - t < BOOST_PAYBACK_SECONDS) {
		usleep(1000);
		if (!boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0))
			break;
		again = a->boosts != boosts;
	}
	waited = now() - t;
	diag("share_pct 1, max_us %d: throttled after %llu us boosted, boosted again after %.1f ms (payback %.1f ms; meanwhile boosts +%u, throttles +%u)",
	     BOOST_THROTTLE_US, (unsigned long long)run_us, waited * 1000,
	     run_us * 99 / 1000.0, a->boosts - boosts,
	     a->throttles - throttles);
	EXPECT_TRUE(ok && again && waited * 1e6 >= run_us * 99 * 0.9 &&
		    waited < 1.0 + run_us * 99 / 1e6)
		TH_LOG("the payback: boosted again after 99 times the throttled run (10%% to spare), within a second more: %.1f ms for %llu us",
		       waited * 1000, (unsigned long long)run_us);
	EXPECT_TRUE(boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX,
				      BOOST_SHARE_WIDE) &&
		    boost_run(w, vcpu, 0, 0) &&
		    thread_normal_is(w->tid, BOOST_NICE))
		TH_LOG("the widest bounds, the flag down: SCHED_OTHER nice %d",
		       BOOST_NICE);
}

/*
 * The flag up, an OUT: @w's thread is boosted before KVM_RUN returns; the
 * flag down: back to the policy and nice from before the boost. The area
 * counts one boost and one unboost.
 */
static void boost_test_up_down(struct __test_metadata *_metadata,
			       struct worker *w, struct kvm_vcpu *vcpu)
{
	struct boost_area *a = boost_area(vcpu->vm);

	EXPECT_TRUE(boost_run(w, vcpu, 0, 0) &&
		    thread_normal_is(w->tid, BOOST_NICE) && !a->boosts &&
		    !a->host_flags)
		TH_LOG("the vCPU thread (nice %d) runs, flag down: not boosted, boosts 0, host_flags 0",
		       BOOST_NICE);
	EXPECT_TRUE(boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_boosted(vcpu, w->tid))
		TH_LOG("the guest raises BOOST and exits: when KVM_RUN returns, the thread is SCHED_FIFO prio %d (pvsched_boost_prio)",
		       BOOST_PRIO);
	diag("boosted, paused out of KVM_RUN: sched_getscheduler() is %s",
	     policy_str(sched_getscheduler(w->tid)));
	EXPECT_TRUE(a->host_flags == PVSCHED_HOST_BOOSTED && a->boosts == 1 &&
		    !a->throttles && !a->unboosts)
		TH_LOG("host_flags BOOSTED (%#x), boosts 1 (%u), throttles 0, unboosts 0",
		       a->host_flags, a->boosts);

	EXPECT_TRUE(boost_run(w, vcpu, 0, 0) &&
		    thread_normal_is(w->tid, BOOST_NICE))
		TH_LOG("the guest drops BOOST and exits: SCHED_OTHER nice %d again",
		       BOOST_NICE);
	EXPECT_TRUE(!a->host_flags && a->unboosts == 1 && a->boosts == 1 &&
		    !a->throttles && a->boosted_ns > 0)
		TH_LOG("host_flags 0 (%#x), unboosts 1 (%u), boosted_ns %llu > 0",
		       a->host_flags, a->unboosts,
		       (unsigned long long)a->boosted_ns);
	if (a->unboosts != 1)
		diag_area(vcpu->vm);
}

/*
 * 9. A thread an administrator made real-time, batch or idle is not the
 * boost's.
 */
static void boost_test_admin(struct __test_metadata *_metadata,
			struct worker *w, struct kvm_vcpu *vcpu)
{
	static const int policies[] = { SCHED_BATCH, SCHED_IDLE };
	struct boost_area *a = boost_area(vcpu->vm);
	uint32_t boosts = a->boosts;
	size_t i;

	EXPECT_TRUE(thread_set_policy(w->tid, SCHED_FIFO, BOOST_ADMIN_PRIO) &&
		    boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_rt_is(w->tid, SCHED_FIFO, BOOST_ADMIN_PRIO) &&
		    a->boosts == boosts && !(a->host_flags & PVSCHED_HOST_BOOSTED))
		TH_LOG("a thread set SCHED_FIFO %d by the admin: the guest's flag leaves it alone, boosts stays %u (%u)",
		       BOOST_ADMIN_PRIO, boosts, a->boosts);
	EXPECT_TRUE(boost_run(w, vcpu, 0, 0) &&
		    thread_set_policy(w->tid, SCHED_OTHER, 0) &&
		    boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_boosted(vcpu, w->tid) &&
		    thread_set_policy(w->tid, SCHED_RR, BOOST_ADMIN_PRIO) &&
		    boost_run(w, vcpu, 0, 0) &&
		    thread_rt_is(w->tid, SCHED_RR, BOOST_ADMIN_PRIO) &&
		    thread_set_policy(w->tid, SCHED_OTHER, 0) &&
		    thread_normal_is(w->tid, BOOST_NICE))
		TH_LOG("boosted, then made SCHED_RR %d by the admin: the unboost leaves it SCHED_RR",
		       BOOST_ADMIN_PRIO);

	/* What the administrator made batch or idle work stays so. */
	boosts = a->boosts;
	for (i = 0; i < ARRAY_SIZE(policies); i++)
		EXPECT_TRUE(thread_set_policy(w->tid, policies[i], 0) &&
			    boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
			    thread_policy_is(w->tid, policies[i]) &&
			    a->boosts == boosts &&
			    !(a->host_flags & PVSCHED_HOST_BOOSTED))
			TH_LOG("a %s thread: the guest's flag leaves it so, boosts stays %u (%u), host_flags %#x",
			       policy_str(policies[i]), boosts, a->boosts,
			       a->host_flags);
	EXPECT_TRUE(boost_run(w, vcpu, 0, 0) &&
		    thread_set_policy(w->tid, SCHED_OTHER, 0) &&
		    thread_normal_is(w->tid, BOOST_NICE))
		TH_LOG("the flag down, SCHED_OTHER nice %d again", BOOST_NICE);
}

/* 10. What the guest writes is a hint: garbage boosts nothing. */
static void boost_test_garbage(struct __test_metadata *_metadata,
			struct worker *w, struct kvm_vcpu *vcpu)
{
	struct boost_area *a = boost_area(vcpu->vm);
	uint32_t boosts = a->boosts;
	pid_t tid = w->tid;
	bool ok;

	a->version = 0xdeadbeef;
	EXPECT_TRUE(boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_normal_is(tid, BOOST_NICE) && a->boosts == boosts)
		TH_LOG("area version 0xdeadbeef: the guest's flag boosts nothing");
	a->version = PVSCHED_AREA_VERSION;
	ok = boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) && thread_boosted(vcpu, tid);
	a->version = 0xdeadbeef;
	EXPECT_TRUE(ok && boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_normal_is(tid, BOOST_NICE))
		TH_LOG("version 1: boosted; the version overwritten, flag still up: unboosted");
	a->version = PVSCHED_AREA_VERSION;
	boosts = a->boosts;
	EXPECT_TRUE(boost_run(w, vcpu, GUEST_FLAGS_UNKNOWN, 0) &&
		    thread_normal_is(tid, BOOST_NICE) && a->boosts == boosts)
		TH_LOG("guest_flags %#x (unknown bits only): no boost",
		       GUEST_FLAGS_UNKNOWN);
	EXPECT_TRUE(boost_run(w, vcpu, ~0U, 0) && thread_boosted(vcpu, tid) &&
		    boost_run(w, vcpu, 0, 0) && thread_normal_is(tid, BOOST_NICE))
		TH_LOG("guest_flags %#x: BOOST counts, the unknown bits are ignored",
		       ~0U);
	boosts = a->boosts;
	EXPECT_TRUE(boost_run(w, vcpu, 0, 100) &&
		    thread_normal_is(tid, BOOST_NICE) &&
		    boost_run(w, vcpu, 0, ~0U) &&
		    thread_normal_is(tid, BOOST_NICE) && a->boosts == boosts)
		TH_LOG("guest_prio 100 or %#x without the flag: no boost", ~0U);
	EXPECT_TRUE(boost_run(w, vcpu, 0, 50) && thread_boosted(vcpu, tid) &&
		    boost_run(w, vcpu, 0, 99) && thread_boosted(vcpu, tid) &&
		    boost_run(w, vcpu, 0, 0) && thread_normal_is(tid, BOOST_NICE) &&
		    a->boosts == boosts + 1)
		TH_LOG("guest_prio 50 without the flag (an RT task in the guest): boosted; 99: still; 0: unboosted");
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
/* Pin thread @tid to @cpu, or let it run anywhere if @cpu < 0. */
static bool thread_pin(pid_t tid, int cpu)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	if (cpu >= 0)
		CPU_SET(cpu, &set);
	else
		for (i = 0; i < CPU_SETSIZE; i++)
			CPU_SET(i, &set);
	return !sched_setaffinity(tid, sizeof(set), &set);
}

/* Enable or disable hrtimer_expire_entry; false if it cannot be. */
static bool timer_event_enable(const char *dir, bool on)
{
	char path[256];
	int r;

	snprintf(path, sizeof(path), "%s/events/" TIMER_EVENT "/enable", dir);
	r = write_file(path, on ? "1\n" : "0\n", 2, -1);
	if (r == 2)
		return true;
	diag("%s: %s", path, err_str(r));
	return false;
}

/*
 * 13. Applied in guest mode, paused outside: a guest that spins boosted
 * until it is throttled, at max_us BOOST_SPIN_US, runs SCHED_FIFO at
 * pvsched_boost_prio meanwhile, as this thread sees it; the throttle comes
 * from the vCPU's boost timer (the trace's hrtimer_expire_entry, the
 * positive control of boost_test_outside_run()); when KVM_RUN returns,
 * the thread has its own policy.
 */
static void boost_test_in_guest(struct __test_metadata *_metadata,
				struct worker *w, struct kvm_vcpu *vcpu)
{
	struct boost_mbox *mb = boost_mbox(vcpu->vm);
	unsigned int fifo = 0, other = 0;
	const char *dir = tracefs_dir();
	struct sched_state st;
	int nt = -1;
	bool ok, ran;
	double t;

	/*
	 * A new window: on the debug kernel the boosts of the checks before
	 * can have used up most of this one, and the spin would be
	 * throttled before it is seen.
	 */
	usleep(3 * BOOST_WINDOW_MS * 1000);
	ok = dir && boost_sysctls_set(BOOST_PRIO, BOOST_SPIN_US,
				      BOOST_SHARE_WIDE) &&
	     boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	     thread_boosted(vcpu, w->tid) && timer_event_enable(dir, true) &&
	     trace_clear(dir);
	EXPECT_TRUE(ok)
		TH_LOG("max_us %d, the flag up, an OUT: BOOSTED, paused out of KVM_RUN; tracefs (%s) has " TIMER_EVENT,
		       BOOST_SPIN_US, dir ?: "not mounted");
	if (!ok)
		return;

	/*
	 * The sampler and the vCPU thread on different CPUs: a thread
	 * boosted on this one would starve the sampling until its throttle.
	 */
	ok = thread_pin(w->tid, 1) && pin_to_cpu(0);
	EXPECT_TRUE(ok)
		TH_LOG("the vCPU thread pinned to CPU 1, the sampler to CPU 0: %s",
		       strerror(errno));
	if (!ok)
		return;
	boost_start_wait(w, vcpu, PVSCHED_GUEST_BOOST, 0,
			 PVSCHED_HOST_THROTTLED, 0);
	t = now();
	while (READ_ONCE(w->busy) && now() - t < STUCK_SECONDS) {
		if (sched_state_get(w->tid, &st) &&
		    (st.policy & ~SCHED_RESET_ON_FORK) == SCHED_FIFO &&
		    st.prio == BOOST_PRIO)
			fifo++;
		else
			other++;
		usleep(2000);
	}
	ran = worker_wait(w);
	t = now() - t;
	timer_event_enable(dir, false);
	thread_pin(w->tid, -1);
	unpin();
	if (ran)
		nt = trace_count(dir, BOOST_TIMER_FN);
	diag("the spin: %.1f ms, boosted %llu us in all, %u boosts, %u throttles",
	     t * 1000, (unsigned long long)boost_area(vcpu->vm)->boosted_ns / 1000,
	     boost_area(vcpu->vm)->boosts, boost_area(vcpu->vm)->throttles);
	if (ran && fifo < 1)
		diag_trace(dir);
	EXPECT_TRUE(ran && (mb->seen & PVSCHED_HOST_THROTTLED) && fifo >= 1 &&
		    nt >= 1)
		TH_LOG("the guest spins boosted until THROTTLED (seen %#x): its thread was SCHED_FIFO %d in %u of %u samples; the boost timer expired %d times (>= 1)",
		       mb->seen, BOOST_PRIO, fifo, fifo + other, nt);
	EXPECT_TRUE(ran && thread_normal_is(w->tid, BOOST_NICE))
		TH_LOG("KVM_RUN returned: SCHED_OTHER nice %d", BOOST_NICE);
	EXPECT_TRUE(boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX,
				      BOOST_SHARE_WIDE) &&
		    boost_until_boosted(w, vcpu) && boost_run(w, vcpu, 0, 0) &&
		    !boost_area(vcpu->vm)->host_flags)
		TH_LOG("max_us %d again; paid back, boosted again; the flag down",
		       BOOST_MAX_US_MAX);
}

/*
 * 14. Nothing outside KVM_RUN: the guest's flag up, KVM_RUN returns and
 * the VMM stops calling it, under the default bounds. After one window,
 * for BOOST_IDLE_MS, the vCPU's boost timer does not expire and there is
 * no pvsched event: no hrtimer and no work item per idle vCPU; the thread
 * has its own policy. (Before, a boost outlived KVM_RUN, and its timer
 * ran at 500 Hz to check bounds that it could not use up.)
 */
static void boost_test_outside_run(struct __test_metadata *_metadata,
				   struct worker *w, struct kvm_vcpu *vcpu)
{
	struct boost_area *a = boost_area(vcpu->vm);
	const char *dir = tracefs_dir();
	int nt = -1, np = -1;
	bool ok;

	ok = dir && boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_DEF,
				      BOOST_SHARE_DEF) &&
	     boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	EXPECT_TRUE(ok && thread_boosted(vcpu, w->tid))
		TH_LOG("the guest raises its flag and exits: BOOSTED, paused");
	usleep(BOOST_WINDOW_MS * 1000);
	ok = ok && timer_event_enable(dir, true) &&
	     boost_events_enable(dir, true) && trace_clear(dir);
	usleep(BOOST_IDLE_MS * 1000);
	if (dir) {
		boost_events_enable(dir, false);
		timer_event_enable(dir, false);
	}
	if (ok) {
		nt = trace_count(dir, BOOST_TIMER_FN);
		np = trace_count(dir, ": pvsched_");
	}
	EXPECT_TRUE(ok && nt == 0 && np == 0)
		TH_LOG("the flag up, KVM_RUN not called for %d ms: after the first %d, the boost timer expired %d times, %d pvsched events (0, 0)",
		       BOOST_WINDOW_MS + BOOST_IDLE_MS, BOOST_WINDOW_MS, nt, np);
	if (nt || np)
		diag_trace(dir);
	EXPECT_TRUE(thread_normal_is(w->tid, BOOST_NICE) &&
		    (a->host_flags & PVSCHED_HOST_BOOSTED))
		TH_LOG("meanwhile the thread is SCHED_OTHER nice %d, its boost paused (host_flags %#x)",
		       BOOST_NICE, a->host_flags);
	EXPECT_TRUE(boost_run(w, vcpu, 0, 0) && !a->host_flags &&
		    boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX,
				      BOOST_SHARE_WIDE))
		TH_LOG("the flag down: host_flags 0 (%#x); max_us %d, share_pct %d again",
		       a->host_flags, BOOST_MAX_US_MAX, BOOST_SHARE_WIDE);
}

/* What a thread of boost_test_vmm_spin() saw. */
struct vmm_spin {
	struct kvm_vcpu *vcpu;
	bool ran;
	bool boosted;
	double fifo_max;	/* longest SCHED_FIFO stretch, in seconds */
	double spun;
};

static void *vmm_spin_thread(void *arg)
{
	struct vmm_spin *vs = arg;
	struct boost_mbox *mb = boost_mbox(vs->vcpu->vm);
	double t0, t, fifo_since = -1;

	if (!pin_to_cpu(0))
		diag("sched_setaffinity(CPU 0): %s", strerror(errno));
	mb->flags = PVSCHED_GUEST_BOOST;
	mb->prio = 0;
	mb->wait = 0;
	vs->ran = vcpu_run_io(vs->vcpu);
	vs->boosted = boost_area(vs->vcpu->vm)->host_flags &
		      PVSCHED_HOST_BOOSTED;
	t0 = now();
	do {
		t = now();
		if ((sched_getscheduler(0) & ~SCHED_RESET_ON_FORK) == SCHED_FIFO) {
			if (fifo_since < 0)
				fifo_since = t;
			if (t - fifo_since > vs->fifo_max)
				vs->fifo_max = t - fifo_since;
		} else {
			fifo_since = -1;
		}
	} while (t - t0 < BOOST_VMM_SPIN_MS / 1000.0);
	vs->spun = t - t0;
	return NULL;
}

/*
 * 15. A boosted vCPU thread that returns to the VMM and spins there,
 * pinned, under the default bounds: it runs SCHED_FIFO for no more than
 * max_us plus a tick in one go. (Before, the boost went on in the VMM, and
 * the work item that was to throttle it was starved by it.)
 */
static void boost_test_vmm_spin(struct __test_metadata *_metadata,
				struct kvm_vcpu *vcpu)
{
	struct vmm_spin vs = { .vcpu = vcpu };
	pthread_t th;
	bool ok;

	ok = boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_DEF, BOOST_SHARE_DEF) &&
	     !pthread_create(&th, NULL, vmm_spin_thread, &vs);
	if (ok)
		pthread_join(th, NULL);
	EXPECT_TRUE(ok && vs.ran && vs.boosted &&
		    vs.fifo_max * 1e6 <= BOOST_MAX_US_DEF + BOOST_TICK_US)
		TH_LOG("a thread boosted by its guest (%s) spins %.0f ms in the VMM, pinned: longest SCHED_FIFO stretch %.0f us (<= max_us %d + a tick %d)",
		       vs.boosted ? "BOOSTED" : "not BOOSTED", vs.spun * 1000,
		       vs.fifo_max * 1e6, BOOST_MAX_US_DEF, BOOST_TICK_US);
	EXPECT_TRUE(boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX,
				      BOOST_SHARE_WIDE))
		TH_LOG("max_us %d, share_pct %d again", BOOST_MAX_US_MAX,
		       BOOST_SHARE_WIDE);
}

/*
 * 16. A throttle is the vCPU's: thread A is throttled at max_us
 * BOOST_OWE_US under share_pct 1, which leaves it a payback of 99 times
 * that boost, with budget left in the window; thread B runs the vCPU at
 * once, the flag up: not boosted, still THROTTLED. (Before, the thread
 * change ended the throttle: alternating threads escaped the payback.)
 */
static void boost_test_throttle_thread(struct __test_metadata *_metadata,
				       struct worker *wa, struct worker *wb,
				       struct kvm_vcpu *vcpu)
{
	struct boost_area *a = boost_area(vcpu->vm);
	uint32_t boosts, throttles;
	bool ok, again = false;
	uint64_t boosted_ns;
	double t;

	usleep(3 * BOOST_WINDOW_MS * 1000);	/* a new window */
	throttles = a->throttles;
	boosted_ns = a->boosted_ns;
	ok = boost_until_throttled(wa, vcpu, BOOST_OWE_US, 1,
				   PVSCHED_GUEST_BOOST);
	boosts = a->boosts;
	t = now();
	ok = ok && a->throttles == throttles + 1 &&
	     boost_run(wb, vcpu, PVSCHED_GUEST_BOOST, 0);
	diag("A's boost ran %llu ns before its throttle; B ran %.0f ms after it",
	     (unsigned long long)(a->boosted_ns - boosted_ns),
	     (now() - t) * 1000);
	EXPECT_TRUE(ok && a->host_flags == PVSCHED_HOST_THROTTLED &&
		    a->boosts == boosts && thread_normal_is(wb->tid, 0))
		TH_LOG("A throttled at max_us %d, share_pct 1; B runs the vCPU %.0f ms later, the flag up: host_flags %#x (THROTTLED), boosts stays %u (%u), B SCHED_OTHER",
		       BOOST_OWE_US, (now() - t) * 1000, a->host_flags, boosts,
		       a->boosts);
	if (a->host_flags != PVSCHED_HOST_THROTTLED)
		diag_area(vcpu->vm);

	ok = boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX, BOOST_SHARE_WIDE);
	t = now();
	while (ok && !again && now() - t < BOOST_PAYBACK_SECONDS) {
		usleep(20 * 1000);
		if (!boost_run(wb, vcpu, PVSCHED_GUEST_BOOST, 0))
			break;
		again = a->host_flags & PVSCHED_HOST_BOOSTED;
	}
	EXPECT_TRUE(again && boost_run(wb, vcpu, 0, 0) && !a->host_flags)
		TH_LOG("paid back, B is boosted (after %.0f ms), then the flag down",
		       (now() - t) * 1000);
}

#define CGROUP_ROOT		"/sys/fs/cgroup"
#define CGROUP_LIMITED		CGROUP_ROOT "/pvsched_limited"
#define CGROUP_FREE		CGROUP_ROOT "/pvsched_free"
#define CGROUP_QUOTA		"50000 100000"	/* cpu.max: half a CPU */

/* Write the string @val to @path; false (and a diag) if it does not take. */
static bool file_put(const char *path, const char *val)
{
	int r = write_file(path, val, strlen(val), -1);

	if (r == (int)strlen(val))
		return true;
	diag("%s: writing \"%s\": %s", path, val, err_str(r < 0 ? r : -EIO));
	return false;
}

/*
 * cgroup v2 at CGROUP_ROOT (mounted if need be) with the cpu controller
 * for its children, and the child cgroup @dir with cpu.max @max.
 */
static bool cgroup_make(const char *dir, const char *max)
{
	char path[256];

	if (!path_exists(CGROUP_ROOT "/cgroup.controllers") &&
	    mount("cgroup2", CGROUP_ROOT, "cgroup2", 0, NULL)) {
		diag("mount cgroup2 on %s: %s", CGROUP_ROOT, strerror(errno));
		return false;
	}
	if (!file_put(CGROUP_ROOT "/cgroup.subtree_control", "+cpu"))
		return false;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		diag("mkdir %s: %s", dir, strerror(errno));
		return false;
	}
	snprintf(path, sizeof(path), "%s/cpu.max", dir);
	return file_put(path, max);
}

/*
 * The child of cgroup_run(): joins cgroup @dir, runs a VM whose guest
 * raises its flag and exits, twice, under pvsched_boost, and writes its
 * area to @fd (all 0xff if a step failed).
 */
static void __noreturn cgroup_child(const char *dir, int fd)
{
	struct boost_area out;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	char path[256];
	bool ok;

	memset(&out, 0xff, sizeof(out));
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (file_put(path, "0")) {
		vm = vm_create();
		vcpu = boost_vcpu_add(vm);
		boost_mbox(vm)->flags = PVSCHED_GUEST_BOOST;
		ok = !area_set(vcpu, AREA_GPA, 0) &&
		     !pvsched_assign(vm, BOOST_DRV, NULL) &&
		     vcpu_run_io(vcpu) && vcpu_run_io(vcpu);
		if (ok)
			out = *boost_area(vm);
	}
	_exit(write(fd, &out, sizeof(out)) == sizeof(out) ? 0 : 1);
}

/* Run cgroup_child() in @dir; its area in @a. */
static bool cgroup_run(const char *dir, struct boost_area *a)
{
	int pfd[2], status;
	bool ok;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return false;
	fflush(stdout);
	pid = fork();
	if (!pid)
		cgroup_child(dir, pfd[1]);
	close(pfd[1]);
	ok = pid > 0 && read(pfd[0], a, sizeof(*a)) == sizeof(*a) &&
	     a->version == PVSCHED_AREA_VERSION;
	close(pfd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return ok;
}

/*
 * 17. A thread whose cgroup caps its CPU time (cpu.max CGROUP_QUOTA) is
 * not boosted: SCHED_FIFO would escape the quota. A child VMM in such a
 * cgroup runs its guest, which raises its flag and exits, twice: no boost.
 * The same in a cgroup with cpu.max "max" (the control): boosted.
 */
static void boost_test_cgroup(struct __test_metadata *_metadata)
{
	struct boost_area lim = {}, free = {};
	bool ok_lim, ok_free;

	ok_free = cgroup_make(CGROUP_FREE, "max") &&
		  cgroup_run(CGROUP_FREE, &free);
	ok_lim = cgroup_make(CGROUP_LIMITED, CGROUP_QUOTA) &&
		 cgroup_run(CGROUP_LIMITED, &lim);
	EXPECT_TRUE(ok_free && free.boosts == 1 &&
		    (free.host_flags & PVSCHED_HOST_BOOSTED))
		TH_LOG("a VMM in a cgroup with cpu.max \"max\": its guest's flag boosts (boosts %u, host_flags %#x)",
		       free.boosts, free.host_flags);
	EXPECT_TRUE(ok_lim && lim.boosts == 0 && !lim.host_flags)
		TH_LOG("a VMM in a cgroup with cpu.max \"%s\": its guest's flag boosts nothing (boosts %u, host_flags %#x)",
		       CGROUP_QUOTA, lim.boosts, lim.host_flags);
	if (rmdir(CGROUP_LIMITED) || rmdir(CGROUP_FREE))
		diag("rmdir %s, %s: %s", CGROUP_LIMITED, CGROUP_FREE,
		     strerror(errno));
}

/*
 * 18. A boosting driver assigned during a KVM_RUN that began while no VM
 * had a driver (pvsched's static key off, its disable deferred by a
 * second): the guest raised its flag and spins until it sees BOOSTED;
 * the driver, assigned meanwhile, boosts it at its next exit (the host's
 * tick: the worker runs on CPU 0, whose tick the debug kernel keeps).
 */
static void boost_test_assign_in_run(struct __test_metadata *_metadata)
{
	struct kvm_vcpu *vcpu;
	struct boost_mbox *mb;
	struct kvm_vm *vm;
	struct worker *w;
	bool ran;
	int r;

	vm = vm_create();
	vcpu = boost_vcpu_add(vm);
	mb = boost_mbox(vm);
	w = worker_create();
	TEST_ASSERT(thread_pin(w->tid, 0), "sched_setaffinity(%d, CPU 0)",
		    w->tid);
	TEST_ASSERT(!area_set(vcpu, AREA_GPA, 0), "KVM_SET_PVSCHED_AREA");
	sleep(2);	/* no VM has a driver: the static key goes off */
	boost_start_wait(w, vcpu, PVSCHED_GUEST_BOOST, 0,
			 PVSCHED_HOST_BOOSTED, 0);
	usleep(100 * 1000);
	r = pvsched_assign(vm, BOOST_DRV, NULL);
	ran = worker_wait(w);
	EXPECT_TRUE(!r && ran && (mb->seen & PVSCHED_HOST_BOOSTED))
		TH_LOG("%s assigned (%s) while the guest spins in a KVM_RUN begun without a driver on the host: it sees BOOSTED (host_flags %#x)",
		       BOOST_DRV, err_str(r), mb->seen);
	worker_destroy(w);
	vm_close(vm);
}

/* KVM_GET_DIRTY_LOG of slot 0 (GUEST_MEM_SIZE: 16 pages), or ~0 on error. */
static uint64_t dirty_log_get(struct kvm_vm *vm)
{
	uint64_t bitmap = 0;
	struct kvm_dirty_log log = { .slot = 0, .dirty_bitmap = &bitmap };

	_Static_assert(GUEST_MEM_SIZE / 4096 <= 64, "one word of bitmap");
	if (__vm_ioctl(vm, KVM_GET_DIRTY_LOG, &log))
		return ~0ULL;
	return bitmap;
}

/*
 * 19. KVM's writes to the area are in the dirty log: slot 0 logged, the
 * guest's flag raised by the VMM (the guest's code writes no memory), the
 * log read once to clear it; after the KVM_RUN that boosts the vCPU and
 * the next, the area's page is dirty and no other page is. (Before, KVM
 * wrote the host fields without marking the page: a migrating VMM missed
 * them.)
 */
static void boost_test_dirty_log(struct __test_metadata *_metadata)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.flags = KVM_MEM_LOG_DIRTY_PAGES,
		.guest_phys_addr = 0,
		.memory_size = GUEST_MEM_SIZE,
	};
	uint64_t want = 1ULL << (AREA_GPA / 4096), log;
	struct boost_area *a;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct worker *w;
	bool ok;

	vm = vm_create();
	region.userspace_addr = (uintptr_t)vm->mem;
	vcpu = vcpu_add(vm);
	w = worker_create();
	a = boost_area(vm);
	ok = !__vm_ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) &&
	     !area_set(vcpu, AREA_GPA, 0) &&
	     !pvsched_assign(vm, BOOST_DRV, NULL) &&
	     boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX, BOOST_SHARE_WIDE) &&
	     worker_run(w, vcpu, 1) && dirty_log_get(vm) != ~0ULL;
	EXPECT_TRUE(ok)
		TH_LOG("slot 0 with KVM_MEM_LOG_DIRTY_PAGES, the area registered, %s assigned, a run, the log read and cleared",
		       BOOST_DRV);
	if (!ok)
		goto out;

	/*
	 * The boost starts as KVM_RUN returns, where KVM cannot mark the
	 * page: the vCPU does when it next enters the guest.
	 */
	a->guest_flags = PVSCHED_GUEST_BOOST;
	ok = worker_run(w, vcpu, 2) && (a->host_flags & PVSCHED_HOST_BOOSTED);
	log = dirty_log_get(vm);
	EXPECT_TRUE(ok && log == want)
		TH_LOG("the flag up, two runs: BOOSTED (host_flags %#x); dirty pages %#llx, want only the area's, %#llx",
		       a->host_flags, (unsigned long long)log,
		       (unsigned long long)want);
	a->guest_flags = 0;
	EXPECT_TRUE(worker_run(w, vcpu, 2) && !a->host_flags &&
		    (dirty_log_get(vm) & want))
		TH_LOG("the flag down, two runs: not boosted, the area's page dirty again");
out:
	worker_destroy(w);
	vm_close(vm);
}

#define RESET_PATTERN	0xa5a5a5a5U
#define RESET_PAGE_SIZE	4096

/*
 * Latch an INIT for @vcpu, as another vCPU's INIT IPI would (the in-kernel
 * local APIC), and have KVM take it at once: KVM_GET_MP_STATE accepts the
 * APIC's pending events, which resets the vCPU.
 */
static bool vcpu_init_signal(struct kvm_vcpu *vcpu)
{
	struct kvm_vcpu_events ev;
	struct kvm_mp_state mp;

	if (__vcpu_ioctl(vcpu, KVM_GET_VCPU_EVENTS, &ev))
		return false;
	ev.flags |= KVM_VCPUEVENT_VALID_SMM;
	ev.smi.latched_init = 1;
	return !__vcpu_ioctl(vcpu, KVM_SET_VCPU_EVENTS, &ev) &&
	       !__vcpu_ioctl(vcpu, KVM_GET_MP_STATE, &mp) &&
	       !__vcpu_ioctl(vcpu, KVM_GET_VCPU_EVENTS, &ev) &&
	       !ev.smi.latched_init;
}

/*
 * 18. A reset forgets the area: a vCPU of a VM with an in-kernel APIC,
 * boosted, gets an INIT; the VMM puts it at its code again and fills the
 * area's page with a pattern, which the guest writes into guest_flags and
 * guest_prio itself; after runs over more than a window, the page still
 * holds only the pattern and the thread has its own policy: the host wrote
 * nothing, and the boost ended. Registered again, the area works.
 * (Before, the area stayed registered across the reset, and the host
 * wrote its flags and counters into a page the guest's next kernel owns.)
 */
static void boost_test_reset(struct __test_metadata *_metadata)
{
	uint8_t *page, want[RESET_PAGE_SIZE];
	struct boost_area *a;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct worker *w;
	int i, r, ran = 0;
	bool ok;

	vm = vm_create();
	r = __vm_ioctl(vm, KVM_CREATE_IRQCHIP, 0);
	vcpu = boost_vcpu_add(vm);
	w = worker_create();
	a = boost_area(vm);
	page = (uint8_t *)a;
	ok = !r && !area_set(vcpu, AREA_GPA, 0) &&
	     !pvsched_assign(vm, BOOST_DRV, NULL) &&
	     boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX, BOOST_SHARE_WIDE) &&
	     boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	     thread_boosted(vcpu, w->tid);
	EXPECT_TRUE(ok)
		TH_LOG("a VM with an in-kernel APIC (%s), the area registered, %s assigned: the guest's flag up, BOOSTED",
		       err_str(r), BOOST_DRV);
	if (!ok)
		goto out;

	ok = vcpu_init_signal(vcpu);
	EXPECT_TRUE(ok)
		TH_LOG("an INIT latched with KVM_SET_VCPU_EVENTS, taken by KVM_GET_MP_STATE: %s",
		       strerror(errno));
	if (!ok)
		goto out;
	vcpu_regs_start(vcpu);
	memset(want, RESET_PATTERN & 0xff, sizeof(want));
	memcpy(page, want, sizeof(want));
	for (i = 0; i < 5; i++) {
		if (!boost_run(w, vcpu, RESET_PATTERN, RESET_PATTERN))
			break;
		ran++;
		usleep(BOOST_WINDOW_MS * 1000 / 2);
	}
	for (i = 0; i < RESET_PAGE_SIZE && page[i] == want[i]; i++)
		;
	EXPECT_TRUE(ran == 5 && i == RESET_PAGE_SIZE)
		TH_LOG("reset; the page filled with %#x, which the guest writes as its flags and prio: after %d of 5 runs, %s",
		       RESET_PATTERN, ran, i == RESET_PAGE_SIZE ? "the pattern is whole" :
		       "the host wrote into it");
	if (i < RESET_PAGE_SIZE)
		diag("first byte changed at offset %d: %#x", i, page[i]);
	EXPECT_TRUE(thread_policy_is(w->tid, SCHED_OTHER))
		TH_LOG("the boost ended with the reset: the thread is SCHED_OTHER");

	EXPECT_TRUE(!area_set(vcpu, AREA_GPA, 0) &&
		    a->version == PVSCHED_AREA_VERSION &&
		    boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_boosted(vcpu, w->tid))
		TH_LOG("the area registered again: version %#x, the flag up, BOOSTED",
		       a->version);
out:
	worker_destroy(w);
	vm_close(vm);
}

/*
 * The child of boost_test_exit(_metadata): a VMM whose vCPU thread (its only thread)
 * is boosted by its guest, with the area mapped, which then waits to be
 * killed with the VM open. Its guest memory is @memfd, shared.
 */
static void __noreturn boost_exit_child(int memfd, int fd, const char *drv)
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct boost_mbox *mb;
	char ok;

	vm = __vm_create(mmap(NULL, GUEST_MEM_SIZE, PROT_READ | PROT_WRITE,
			      MAP_SHARED, memfd, 0));
	vcpu = boost_vcpu_add(vm);
	mb = boost_mbox(vm);
	mb->flags = PVSCHED_GUEST_BOOST;
	ok = !area_set(vcpu, AREA_GPA, 0) &&
	     !pvsched_assign(vm, drv, NULL) && vcpu_run_io(vcpu) &&
	     thread_boosted(vcpu, gettid());
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
static void boost_test_exit(struct __test_metadata *_metadata,
			    const char *drv)
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
		boost_exit_child(memfd, pfd[1], drv);
	close(pfd[1]);
	if (read(pfd[0], &ok, 1) != 1)
		ok = 0;
	close(pfd[0]);
	before = *a;
	kill(pid, SIGKILL);
	TEST_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid");
	EXPECT_TRUE(ok && before.host_flags == PVSCHED_HOST_BOOSTED &&
		    before.boosts == 1 && !before.unboosts)
		TH_LOG("a child VMM boosted by its guest through %s (area host_flags %#x, boosts %u, unboosts %u) is killed with its VM open",
		       drv, before.host_flags, before.boosts, before.unboosts);
	EXPECT_TRUE(WIFSIGNALED(status) && !memcmp(a, &before, sizeof(before)))
		TH_LOG("its memory gone before its VM: KVM wrote nothing to the area when it ended the boost (host_flags %#x, unboosts %u)",
		       a->host_flags, a->unboosts);
	if (memcmp(a, &before, sizeof(before)))
		diag_area_at(a);
	munmap(mem, GUEST_MEM_SIZE);
	close(memfd);
}

TEST_F_TIMEOUT(boost, module, TEST_SECONDS)
{
	struct kvm_vcpu *vcpu;
	struct worker *wa, *wb;
	struct kvm_vm *vm;
	char path[256];
	pid_t tid;
	double t;
	int r;

	NEED(need_boost);

	r = driver_listed(BOOST_DRV) ? 0 : boost_load();
	EXPECT_TRUE(!r && driver_listed(BOOST_DRV))
		TH_LOG("insmod %s: %s, %s listed",
		       BOOST_KO, err_str(r), BOOST_DRV);
	boost_test_sysctls(_metadata);
	boost_test_unprivileged(_metadata);
	boost_test_assign_in_run(_metadata);
	boost_test_reset(_metadata);
	boost_test_dirty_log(_metadata);

	vm = vm_create();
	vcpu = boost_vcpu_add(vm);
	wa = worker_create();
	wb = worker_create();
	TEST_ASSERT(!setpriority(PRIO_PROCESS, wa->tid, BOOST_NICE),
		    "setpriority(%d, %d)", wa->tid, BOOST_NICE);
	EXPECT_TRUE(boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX,
				      BOOST_SHARE_WIDE) &&
		    !area_set(vcpu, AREA_GPA, 0))
		TH_LOG("pvsched_boost_prio %d, max_us %d, share_pct %d; the vCPU's area registered",
		       BOOST_PRIO, BOOST_MAX_US_MAX, BOOST_SHARE_WIDE);
	vm_debugfs_file(vm, path, sizeof(path));
	r = write_file(path, BOOST_DRV "\n", strlen(BOOST_DRV) + 1, -1);
	EXPECT_TRUE(r == (int)strlen(BOOST_DRV) + 1 && vm_driver_is(vm, BOOST_DRV))
		TH_LOG("root (CAP_SYS_NICE) assigns %s through the VM's debugfs file (%s)",
		       BOOST_DRV, err_str(r));

	/* 3., 4. The flag up, then down. */
	boost_test_up_down(_metadata, wa, vcpu);

	boost_test_admin(_metadata, wa, vcpu);
	boost_test_garbage(_metadata, wa, vcpu);
	boost_test_throttle(_metadata, wa, vcpu);
	boost_test_bound_sizes(_metadata, wa, vcpu);
	boost_test_in_guest(_metadata, wa, vcpu);
	boost_test_outside_run(_metadata, wa, vcpu);
	boost_test_throttle_thread(_metadata, wa, wb, vcpu);
	boost_test_vmm_spin(_metadata, vcpu);
	boost_test_cgroup(_metadata);

	/* 6. A driver change restores the thread. */
	EXPECT_TRUE(boost_run(wa, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_boosted(vcpu, wa->tid) && !pvsched_assign(vm, COUNT_DRV, NULL) &&
		    thread_normal_is(wa->tid, BOOST_NICE))
		TH_LOG("boosted, then REPLACE %s: A is SCHED_OTHER nice %d when it returns",
		       COUNT_DRV, BOOST_NICE);
	EXPECT_TRUE(!pvsched_assign(vm, BOOST_DRV, NULL) &&
		    boost_run(wa, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_boosted(vcpu, wa->tid) && !pvsched_assign(vm, "", NULL) &&
		    thread_normal_is(wa->tid, BOOST_NICE))
		TH_LOG("%s again, boosted, then REPLACE \"\": SCHED_OTHER nice %d",
		       BOOST_DRV, BOOST_NICE);
	EXPECT_EQ(0, pvsched_assign(vm, BOOST_DRV, NULL))
		TH_LOG("assign %s again", BOOST_DRV);

	/* 11. */
	boost_test_trace(_metadata, wa, vcpu);

	/* 7. Another thread runs the vCPU: the old one is restored. */
	EXPECT_TRUE(boost_run(wa, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_boosted(vcpu, wa->tid) &&
		    boost_run(wb, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_normal_is(wa->tid, BOOST_NICE))
		TH_LOG("A boosted, then thread B runs the vCPU: A is SCHED_OTHER nice %d again",
		       BOOST_NICE);
	EXPECT_TRUE(thread_boosted(vcpu, wb->tid))
		TH_LOG("B, whose guest still has the flag up, is boosted itself");

	boost_test_exit(_metadata, BOOST_DRV);

	/* 8. VM destruction restores the thread. */
	EXPECT_EQ(-EAGAIN, boost_unload())
		TH_LOG("rmmod %s refused (EWOULDBLOCK) while a VM uses it",
		       BOOST_DRV);
	tid = wb->tid;
	vm_close(vm);
	t = now();
	while (!__thread_normal_is(tid, 0, true) &&
	       now() - t < BOOST_WAIT_SECONDS)
		usleep(10000);
	EXPECT_TRUE(thread_normal_is(tid, 0))
		TH_LOG("boosted B, the VM's fds all closed: B is SCHED_OTHER nice 0 again (after %.0f ms)",
		       (now() - t) * 1000);
	worker_destroy(wa);
	worker_destroy(wb);

	EXPECT_TRUE(boost_sysctls_set(BOOST_PRIO_DEF, BOOST_MAX_US_DEF,
				      BOOST_SHARE_DEF))
		TH_LOG("sysctls back to their defaults");
	r = boost_unload();
	EXPECT_TRUE(!r && !driver_listed(BOOST_DRV))
		TH_LOG("rmmod %s once no VM uses it: %s, not listed any more",
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
static void bpf_load_refused(struct __test_metadata *_metadata,
			const char *which, const char *name,
			     const char *prog, const char *why,
			     const char *why2)
{
	static char out[32768];
	char prog_str[96];
	bool listed;
	int st;

	st = bpf_tool_run_out("load", which, out, sizeof(out));
	listed = driver_listed(name);
	EXPECT_TRUE(st != 0 && !listed)
		TH_LOG("pvsched-bpf load %s fails (status %d), %s is not registered",
		       which, st, name);
	if (listed)
		bpf_tool_run("unload", name);
	snprintf(prog_str, sizeof(prog_str), "prog '%s'", prog);
	EXPECT_TRUE(st != 0 && strstr(out, prog_str) && strstr(out, why) &&
		    (!why2 || strstr(out, why2)))
		TH_LOG("... the verifier refused %s: \"%s\"%s%s%s",
		       prog, why, why2 ? ", \"" : "", why2 ?: "", why2 ? "\"" : "");
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

TEST_F_TIMEOUT(boost, bpf, TEST_SECONDS)
{
	struct pvsched_bpf_noflag_results r0, r1;
	struct kvm_vcpu *vcpu, *vcpu2;
	struct unpriv_result res;
	struct kvm_vm *vm, *vm2;
	uint32_t boosts, unboosts;
	struct worker *w, *wb;
	struct boost_area *a;
	pid_t tid;
	bool ok, again, ran;
	int r, nf_fd;
	double t;

	NEED(need_bpf_boost);

	r = bpf_tool_run("load", "boost");
	EXPECT_TRUE(!r && driver_listed(BPF_BOOST_DRV))
		TH_LOG("pvsched-bpf load boost: status %d, %s listed",
		       r, BPF_BOOST_DRV);
	r = bpf_tool_run("load", "noflag");
	nf_fd = bpf_obj_get(PVSCHED_BPF_NOFLAG_MAP);
	if (nf_fd < 0)
		diag("%s: %s", PVSCHED_BPF_NOFLAG_MAP, strerror(errno));
	EXPECT_TRUE(!r && driver_listed(BPF_NOFLAG_DRV) && nf_fd >= 0)
		TH_LOG("pvsched-bpf load noflag: status %d, %s listed, its results map pinned",
		       r, BPF_NOFLAG_DRV);

	/* PVSCHED_OPS_BOOST, and only it, makes assigning a privilege. */
	ran = unpriv_run(BPF_BOOST_DRV, BPF_NOFLAG_DRV, &res);
	unpriv_check_replace(_metadata, ran, &res, BPF_BOOST_DRV, BPF_NOFLAG_DRV);

	vm = vm_create();
	vcpu = boost_vcpu_add(vm);
	a = boost_area(vm);
	w = worker_create();
	TEST_ASSERT(!setpriority(PRIO_PROCESS, w->tid, BOOST_NICE),
		    "setpriority(%d, %d)", w->tid, BOOST_NICE);
	EXPECT_TRUE(boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX,
				      BOOST_SHARE_WIDE) &&
		    !area_set(vcpu, AREA_GPA, 0))
		TH_LOG("pvsched_boost_prio %d, max_us %d, share_pct %d; the vCPU's area registered",
		       BOOST_PRIO, BOOST_MAX_US_MAX, BOOST_SHARE_WIDE);
	r = pvsched_assign(vm, BPF_BOOST_DRV, NULL);
	EXPECT_TRUE(!r && vm_driver_is(vm, BPF_BOOST_DRV))
		TH_LOG("root (CAP_SYS_NICE) assigns %s with KVM_REPLACE_PVSCHED_OPS (%s)",
		       BPF_BOOST_DRV, err_str(r));

	/* The flag up, then down. */
	boost_test_up_down(_metadata, w, vcpu);

	/* The rest of pvsched_boost's policy: guest_prio, the version. */
	boosts = a->boosts;
	EXPECT_TRUE(boost_run(w, vcpu, 0, 50) && thread_boosted(vcpu, w->tid) &&
		    boost_run(w, vcpu, 0, 100) &&
		    thread_normal_is(w->tid, BOOST_NICE) &&
		    a->boosts == boosts + 1)
		TH_LOG("guest_prio 50 without the flag: boosted; guest_prio 100: unboosted (boosts +%u)",
		       a->boosts - boosts);
	a->version = 0xdeadbeef;
	ok = boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	     thread_normal_is(w->tid, BOOST_NICE);
	a->version = PVSCHED_AREA_VERSION;
	EXPECT_TRUE(ok && a->boosts == boosts + 1 && boost_run(w, vcpu, 0, 0))
		TH_LOG("area version 0xdeadbeef: the guest's flag boosts nothing");

	/* A throttle at a small max_us, then the sysctls back. */
	ok = boost_check_max_us(_metadata, w, vcpu);
	ok = boost_sysctls_set(BOOST_PRIO, BOOST_MAX_US_MAX, BOOST_SHARE_WIDE);
	t = now();
	again = false;
	do {
		usleep(20 * 1000);
		if (!boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0))
			break;
		again = a->host_flags & PVSCHED_HOST_BOOSTED;
	} while (!again && now() - t < BOOST_PAYBACK_SECONDS);
	EXPECT_TRUE(ok && again && thread_boosted(vcpu, w->tid) &&
		    a->host_flags == PVSCHED_HOST_BOOSTED)
		TH_LOG("max_us %d again: once paid back, the flag boosts again (after %.0f ms)",
		       BOOST_MAX_US_MAX, (now() - t) * 1000);
	if (!again)
		diag_area(vm);
	EXPECT_TRUE(boost_run(w, vcpu, 0, 0) && thread_normal_is(w->tid, BOOST_NICE))
		TH_LOG("the guest drops its flag: SCHED_OTHER nice %d",
		       BOOST_NICE);
	boost_test_in_guest(_metadata, w, vcpu);
	boost_test_outside_run(_metadata, w, vcpu);
	/* What boost.module checks of the bounds and the restores, too. */
	boost_test_admin(_metadata, w, vcpu);
	boost_test_throttle(_metadata, w, vcpu);
	boost_test_bound_sizes(_metadata, w, vcpu);

	/* Another thread runs the vCPU: the old one is restored. */
	wb = worker_create();
	TEST_ASSERT(!setpriority(PRIO_PROCESS, wb->tid, BOOST_NICE),
		    "setpriority(%d, %d)", wb->tid, BOOST_NICE);
	/* boost_test_throttle() may have left a throttle to pay back. */
	EXPECT_TRUE(boost_until_boosted(w, vcpu) &&
		    thread_boosted(vcpu, w->tid) &&
		    boost_run(wb, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_normal_is(w->tid, BOOST_NICE))
		TH_LOG("A boosted, then thread B runs the vCPU: A is SCHED_OTHER nice %d again",
		       BOOST_NICE);
	EXPECT_TRUE(thread_boosted(vcpu, wb->tid) && boost_run(wb, vcpu, 0, 0) &&
		    thread_normal_is(wb->tid, BOOST_NICE))
		TH_LOG("B, whose guest still has the flag up, is boosted itself, until it drops it");
	worker_destroy(wb);

	boost_test_exit(_metadata, BPF_BOOST_DRV);

	/* VM destruction restores the thread. */
	vm2 = vm_create();
	vcpu2 = boost_vcpu_add(vm2);
	wb = worker_create();
	EXPECT_TRUE(!area_set(vcpu2, AREA_GPA, 0) &&
		    !pvsched_assign(vm2, BPF_BOOST_DRV, NULL) &&
		    boost_run(wb, vcpu2, PVSCHED_GUEST_BOOST, 0) &&
		    thread_boosted(vcpu2, wb->tid))
		TH_LOG("a second VM, its vCPU thread boosted by %s", BPF_BOOST_DRV);
	tid = wb->tid;
	vm_close(vm2);
	t = now();
	while (!__thread_normal_is(tid, 0, true) &&
	       now() - t < BOOST_WAIT_SECONDS)
		usleep(10000);
	EXPECT_TRUE(thread_normal_is(tid, 0))
		TH_LOG("its VM's fds all closed: the thread is SCHED_OTHER nice 0 again (after %.0f ms)",
		       (now() - t) * 1000);
	worker_destroy(wb);

	/* Unregistered while assigned: the VM keeps it, and it boosts. */
	r = bpf_tool_run("unload", BPF_BOOST_DRV);
	EXPECT_TRUE(!r && !driver_listed(BPF_BOOST_DRV) &&
		    vm_driver_is(vm, BPF_BOOST_DRV))
		TH_LOG("pvsched-bpf unload %s while assigned: status %d, not listed, the VM keeps it (GET)",
		       BPF_BOOST_DRV, r);
	boosts = a->boosts;
	unboosts = a->unboosts;
	EXPECT_TRUE(boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_boosted(vcpu, w->tid) && boost_run(w, vcpu, 0, 0) &&
		    thread_normal_is(w->tid, BOOST_NICE) &&
		    boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_boosted(vcpu, w->tid) && a->boosts == boosts + 2 &&
		    a->unboosts == unboosts + 1)
		TH_LOG("... it still boosts and unboosts: flag up, down, up (boosts +%u, unboosts +%u)",
		       a->boosts - boosts, a->unboosts - unboosts);
	r = pvsched_assign(vm, BPF_NOFLAG_DRV, NULL);
	EXPECT_TRUE(!r && thread_normal_is(w->tid, BOOST_NICE) &&
		    !(a->host_flags & PVSCHED_HOST_BOOSTED))
		TH_LOG("boosted, then REPLACE %s (%s): SCHED_OTHER nice %d when it returns, not BOOSTED",
		       BPF_NOFLAG_DRV, err_str(r), BOOST_NICE);
	EXPECT_EQ(-EINVAL, pvsched_assign(vm, BPF_BOOST_DRV, NULL))
		TH_LOG("the unloaded %s cannot be assigned again: EINVAL",
		       BPF_BOOST_DRV);

	/* bpf_pvsched_noflag: its requests fail with EPERM, no boost. */
	boosts = a->boosts;
	ok = noflag_results(nf_fd, &r0) && vm_driver_is(vm, BPF_NOFLAG_DRV);
	EXPECT_TRUE(ok && noflag_runs(w, vcpu, BPF_NOFLAG_RUNS, BOOST_NICE) &&
		    a->boosts == boosts && !a->host_flags)
		TH_LOG("%s: the guest asks for a boost at %d exits (flag up, guest_prio 50 at every other): never boosted, boosts stays %u (%u), host_flags 0 (%#x)",
		       BPF_NOFLAG_DRV, BPF_NOFLAG_RUNS, boosts, a->boosts, a->host_flags);
	ok = ok && noflag_results(nf_fd, &r1);
	EXPECT_TRUE(ok && r1.calls - r0.calls >= BPF_NOFLAG_RUNS &&
		    r1.eperm - r0.eperm == r1.calls - r0.calls &&
		    r1.other == r0.other)
		TH_LOG("... all its %llu kfunc calls (>= %d) returned -EPERM (%llu), none anything else (%llu, last %lld)",
		       (unsigned long long)(r1.calls - r0.calls), BPF_NOFLAG_RUNS, (unsigned long long)(r1.eperm - r0.eperm), (unsigned long long)(r1.other - r0.other), (long long)r1.last_other);

	worker_destroy(w);
	vm_close(vm);
	if (nf_fd >= 0)
		close(nf_fd);
	EXPECT_TRUE(boost_sysctls_set(BOOST_PRIO_DEF, BOOST_MAX_US_DEF,
				      BOOST_SHARE_DEF))
		TH_LOG("sysctls back to their defaults");
	r = bpf_tool_run("unload", BPF_NOFLAG_DRV);
	EXPECT_TRUE(!r && !driver_listed(BPF_NOFLAG_DRV) &&
		    !path_exists(PVSCHED_BPF_NOFLAG_MAP))
		TH_LOG("pvsched-bpf unload %s: status %d, not listed, its map unpinned",
		       BPF_NOFLAG_DRV, r);

	/* The verifier's side: the area may be NULL, and is read-only. */
	bpf_load_refused(_metadata, "boost-unchecked", BPF_UNCHECKED_DRV,
			 "pvsched_unchecked_notify_event", "invalid mem access",
			 "or_null");
	bpf_load_refused(_metadata, "boost-write", BPF_BADWRITE_DRV,
			 "pvsched_badwrite_notify_event",
			 "pvsched: no write access to kernel objects", NULL);
}

PVSCHED_TEST_HARNESS_MAIN
