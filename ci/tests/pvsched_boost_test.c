// SPDX-License-Identifier: GPL-2.0
/*
 * pvsched_boost_test - the boost that the module driver pvsched_boost and
 * the BPF driver bpf_pvsched_boost give a vCPU thread whose guest asks for
 * it through its shared area: a flag on the thread that the scheduler's
 * boost server honours (kernel/sched/fair.c, sched_boost_set()), only
 * while the thread is in KVM_RUN, bounded by the server's bandwidth and
 * the thread's fair share (sysctls kernel.sched_boost_*); what it leaves
 * alone (the thread's policy, nice value, slice, and the administrator's
 * classes and groups: a sched_ext scheduler, idle and RT groups); what an
 * unprivileged VMM can do with it; the CAP_SYS_NICE gate on choosing such
 * a driver, the trace events, the end of a boost on a driver or thread
 * change and VM destruction; and the BPF negative controls: a driver
 * without PVSCHED_OPS_BOOST never boosts, and the verifier refuses
 * programs that read the area without a NULL test or write to it.
 *
 * The scheduler's side is read from /proc/TID/sched (CONFIG_SCHED_DEBUG):
 * boost.on, boost.served_ns (the CPU time the boost server ran the thread
 * for) and boost.nr_cut (its runs the bounds cut short). How much a boost
 * takes from the other tasks of a CPU is the adversary suite's
 * (adversary.sh).
 *
 * A kselftest_harness.h program run inside the test VM by
 * ci/tests/run-suite.sh, as root, with debugfs at /sys/kernel/debug and
 * bpffs at /sys/fs/bpf; what it shares with the other pvsched_*_test
 * programs is in pvsched_util.c. ci/check.sh runs it in a VM on
 * instruction-count time (QEMU's -icount), where a thread's CPU time is
 * what it ran. A test whose prerequisite is missing (no /dev/kvm, no
 * pvsched_count.ko, no pvsched-bpf, ...) is skipped. It loads and unloads
 * drivers and changes sysctls: run it only in the test VM. The ioctls' own
 * semantics are the in-tree KVM selftest's
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

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE		6
#endif
#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK	0x01
#endif

/* sched_setattr(2)'s, <linux/sched/types.h>, which glibc's <sched.h> clashes with. */
struct sched_attr {
	__u32 size;
	__u32 sched_policy;
	__u64 sched_flags;
	__s32 sched_nice;
	__u32 sched_priority;
	__u64 sched_runtime;
	__u64 sched_deadline;
	__u64 sched_period;
	__u32 sched_util_min;
	__u32 sched_util_max;
};

#include "../../kernel/bpf/pvsched_bpf_count.h"
#include "../../kernel/bpf/pvsched_bpf_noflag.h"
#include "kselftest_harness.h"
#include "pvsched_util.h"

FIXTURE(boost) {};
FIXTURE_SETUP(boost) {}
FIXTURE_TEARDOWN(boost) {}

/*
 * The guest is real-mode code that takes its orders from a mailbox at
 * BOOST_MBOX_GPA: each KVM_RUN it writes the mailbox's guest_flags and
 * guest_prio into its own area, then, if the mailbox says so, spins
 * without an exit until one of the given host_flags bits is set, notes the
 * host_flags it saw and writes guest_flags again; then it exits with
 * "out 0x10, al" of the next value of a counter, as the suite's other
 * guest does, so that vcpu_run_io() and the workers run it. SPIN_RELEASE
 * is a host_flags bit that KVM never sets: this program sets it in the
 * area to end a spin (spin_release(), again if KVM's write of host_flags
 * cleared it first), and KVM's next write of host_flags clears it.
 */
#define BOOST_DRV		"pvsched_boost"	/* also the module's name */
#define BOOST_KO		"/lib/modules/pvsched_boost.ko"
#define SYSCTL_RUNTIME		"/proc/sys/kernel/sched_boost_runtime_us"
#define SYSCTL_PERIOD		"/proc/sys/kernel/sched_boost_period_us"
#define SYSCTL_DEFAULT		"/proc/sys/kernel/pvsched_default_driver"
#define RUNTIME_DEF		2000
#define PERIOD_DEF		4000
#define PERIOD_MAX		4000000

/* include/uapi/linux/pvsched.h */
#define PVSCHED_AREA_VERSION	1
#define PVSCHED_GUEST_BOOST	(1U << 0)
#define PVSCHED_GUEST_BOOST_IRQ	(1U << 1)
/* guest_flags bits that pvsched_boost does not know */
#define GUEST_FLAGS_UNKNOWN	(~(PVSCHED_GUEST_BOOST | PVSCHED_GUEST_BOOST_IRQ))
#define PVSCHED_HOST_BOOSTED	(1U << 0)
#define PVSCHED_HOST_EXCLUDED	(1U << 1)
#define PVSCHED_WAKE_PRIO_MASK	0xffU
#define PVSCHED_WAKE_COUNT_SHIFT	8
#define SPIN_RELEASE		(1U << 31)

struct boost_area {
	uint32_t version;
	uint32_t host_flags;
	uint32_t guest_flags;
	uint32_t guest_prio;
	uint64_t boosted_ns;
	uint32_t boosts;
	uint32_t throttles;
	uint32_t unboosts;
	uint32_t wake_req;
	uint8_t reserved[24];
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


#define BOOST_SPIN_MS		300	/* a guest spin the checks sample */
#define BOOST_RELEASE_MS	5000	/* to end a spin, at most */
#define BOOST_IDLE_MS		300	/* the VMM idle, the guest's flag up */
#define BOOST_VMM_SPIN_MS	300	/* a VMM thread spinning after KVM_RUN */
#define BOOST_NICE		5	/* of the vCPU thread, to stay */
#define BOOST_NICE2		7	/* ... the VMM's renice during a boost */
#define BOOST_SLICE_NS		300000	/* a custom slice (sched_attr) */
#define BOOST_NOBODY		65534
#define BOOST_ADMIN_PRIO	10
#define BOOST_WAIT_SECONDS	5	/* for the end after VM destruction */
#define BOOST_HOG_MS		600	/* a hog beside a boosted spin */
#define BOOST_QUOTA_PCT		10	/* cpu.max of the quota check */

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

/*
 * Start a KVM_RUN on @w in which the guest writes @flags and @prio, then
 * spins in guest mode until spin_release().
 */
static void spin_start(struct worker *w, struct kvm_vcpu *vcpu,
		       uint32_t flags, uint32_t prio)
{
	boost_start_wait(w, vcpu, flags, prio, SPIN_RELEASE, flags);
}

/* End the spin of spin_start(); true if the KVM_RUN ended as it should. */
static bool spin_release(struct worker *w, struct kvm_vcpu *vcpu)
{
	struct boost_area *a = boost_area(vcpu->vm);
	int i;

	/*
	 * KVM writes host_flags whole when it updates the area, which can
	 * clear the bit just set: set it again until the guest saw it (its
	 * KVM_RUN returned), for up to BOOST_RELEASE_MS.
	 */
	for (i = 0; i < BOOST_RELEASE_MS / 10; i++) {
		__atomic_fetch_or(&a->host_flags, SPIN_RELEASE,
				  __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&w->busy, __ATOMIC_ACQUIRE))
			break;
		usleep(10 * 1000);
	}
	return worker_wait(w);
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
 * The scheduler's side of thread @tid's boost, from /proc/TID/sched:
 * boost.on, boost.served_ns (ms there, ns here), boost.nr_cut.
 */
struct boost_sched {
	long long on;
	uint64_t served_ns;
	long long nr_cut;
};

static bool boost_sched_get(pid_t tid, struct boost_sched *b)
{
	static char buf[8192];
	long long ms, frac;
	char path[64], *p;
	int r, found = 0;

	snprintf(path, sizeof(path), "/proc/%d/sched", tid);
	r = read_file(path, buf, sizeof(buf) - 1);
	if (r < 0) {
		diag("%s: %s", path, err_str(r));
		return false;
	}
	buf[r] = 0;
	p = strstr(buf, "boost.on ");
	if (p && sscanf(strchr(p, ':') + 1, "%lld", &b->on) == 1)
		found++;
	p = strstr(buf, "boost.served_ns ");
	if (p && sscanf(strchr(p, ':') + 1, "%lld.%lld", &ms, &frac) == 2) {
		b->served_ns = ms * 1000000ULL + frac;
		found++;
	}
	p = strstr(buf, "boost.nr_cut ");
	if (p && sscanf(strchr(p, ':') + 1, "%lld", &b->nr_cut) == 1)
		found++;
	if (found == 3)
		return true;
	diag("%s has no boost.on, boost.served_ns and boost.nr_cut (CONFIG_SCHED_DEBUG, the boost server)",
	     path);
	return false;
}

/* Thread @tid's CPU time, se.sum_exec_runtime of /proc/TID/sched, in ns. */
static uint64_t thread_runtime_ns(pid_t tid)
{
	static char buf[8192];
	long long ms, frac;
	char path[64], *p;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/sched", tid);
	r = read_file(path, buf, sizeof(buf) - 1);
	if (r < 0)
		return 0;
	buf[r] = 0;
	p = strstr(buf, "se.sum_exec_runtime ");
	if (!p || sscanf(strchr(p, ':') + 1, "%lld.%lld", &ms, &frac) != 2)
		return 0;
	return ms * 1000000ULL + frac;
}

/* Is @tid's boost flag @on? */
static bool thread_boost_is(pid_t tid, bool on)
{
	struct boost_sched b;

	if (!boost_sched_get(tid, &b))
		return false;
	if (b.on == on)
		return true;
	diag("thread %d: boost.on %lld, expected %d", tid, b.on, on);
	return false;
}

/*
 * Is @tid exactly SCHED_OTHER (without reset-on-fork) with @nice, and not
 * boosted by the scheduler?
 */
static bool __thread_normal_is(pid_t tid, int nice, bool quiet)
{
	struct sched_state s;
	struct boost_sched b;

	if (!sched_state_get(tid, &s) || !boost_sched_get(tid, &b))
		return false;
	if (s.policy == SCHED_OTHER && s.prio == 0 && s.nice == nice && !b.on)
		return true;
	if (!quiet)
		diag("thread %d is %s prio %d nice %d boost.on %lld, expected SCHED_OTHER nice %d, not boosted",
		     tid, policy_str(s.policy), s.prio, s.nice, b.on, nice);
	return false;
}

static bool thread_normal_is(pid_t tid, int nice)
{
	return __thread_normal_is(tid, nice, false);
}

/*
 * Does @vcpu hold a boost, not in effect while its thread @tid is out of
 * KVM_RUN? The area says BOOSTED, the scheduler has no boost for the
 * thread, and the thread's policy is SCHED_OTHER: a boost changes no
 * policy, and is in effect only while KVM runs the vCPU
 * (boost_test_in_guest() sees it there).
 */
static bool thread_boosted(struct kvm_vcpu *vcpu, pid_t tid)
{
	uint32_t host_flags = boost_area(vcpu->vm)->host_flags;
	struct sched_state s;
	struct boost_sched b;

	if (!sched_state_get(tid, &s) || !boost_sched_get(tid, &b))
		return false;
	if ((host_flags & PVSCHED_HOST_BOOSTED) && !b.on &&
	    (s.policy & ~SCHED_RESET_ON_FORK) != SCHED_FIFO &&
	    (s.policy & ~SCHED_RESET_ON_FORK) != SCHED_RR &&
	    (s.policy & ~SCHED_RESET_ON_FORK) != SCHED_DEADLINE)
		return true;
	diag("area host_flags %#x, thread %d %s prio %d boost.on %lld: expected BOOSTED, no boost out of KVM_RUN, not real-time",
	     host_flags, tid, policy_str(s.policy), s.prio, b.on);
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

/* Set both sysctls; false (and a diag) if one does not take. */
static bool boost_sysctls_set(long runtime, long period)
{
	bool ok = true;
	int r;

	/* Lower the runtime first: it may not exceed the period. */
	if (runtime > sysctl_get(SYSCTL_RUNTIME)) {
		r = sysctl_set(SYSCTL_PERIOD, period);
		ok = !r && !sysctl_set(SYSCTL_RUNTIME, runtime);
	} else {
		r = sysctl_set(SYSCTL_RUNTIME, runtime);
		ok = !r && !sysctl_set(SYSCTL_PERIOD, period);
	}
	if (!ok || sysctl_get(SYSCTL_RUNTIME) != runtime ||
	    sysctl_get(SYSCTL_PERIOD) != period) {
		diag("sched_boost_runtime_us %ld, period %ld: now %ld, %ld",
		     runtime, period, sysctl_get(SYSCTL_RUNTIME),
		     sysctl_get(SYSCTL_PERIOD));
		return false;
	}
	return true;
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

/*
 * 1. The boost server's sysctls: defaults and range; values that no CPU
 * could admit fail with EBUSY; either leaves them as they were.
 */
static void boost_test_sysctls(struct __test_metadata *_metadata)
{
	static const long bad_runtime[] = { 1, 99, PERIOD_DEF + 1 };
	static const long bad_period[] = { 99, PERIOD_MAX + 1, RUNTIME_DEF - 1 };
	long runtime, period;
	int r;

	runtime = sysctl_get(SYSCTL_RUNTIME);
	period = sysctl_get(SYSCTL_PERIOD);
	EXPECT_TRUE(runtime == RUNTIME_DEF && period == PERIOD_DEF)
		TH_LOG("sysctls at their defaults: sched_boost_runtime_us %ld (%d), sched_boost_period_us %ld (%d)",
		       runtime, RUNTIME_DEF, period, PERIOD_DEF);
	EXPECT_TRUE(sysctl_refuses(SYSCTL_RUNTIME, bad_runtime,
				   ARRAY_SIZE(bad_runtime), RUNTIME_DEF))
		TH_LOG("sched_boost_runtime_us 1, 99 and the period plus 1: EINVAL, value unchanged");
	EXPECT_TRUE(sysctl_refuses(SYSCTL_PERIOD, bad_period,
				   ARRAY_SIZE(bad_period), PERIOD_DEF))
		TH_LOG("sched_boost_period_us 99, %d and below the runtime: EINVAL, value unchanged",
		       PERIOD_MAX + 1);
	r = sysctl_set(SYSCTL_RUNTIME, PERIOD_DEF);
	EXPECT_TRUE(r == -EBUSY && sysctl_get(SYSCTL_RUNTIME) == RUNTIME_DEF)
		TH_LOG("sched_boost_runtime_us %d, all of the period, beyond the deadline limit (95%%): EBUSY (%s), value unchanged",
		       PERIOD_DEF, err_str(r));
	EXPECT_TRUE(boost_sysctls_set(100, PERIOD_MAX) &&
		    boost_sysctls_set(0, PERIOD_DEF) &&
		    boost_sysctls_set(RUNTIME_DEF, PERIOD_DEF))
		TH_LOG("the range limits (runtime 100 of %d us, runtime 0) are taken, the defaults back",
		       PERIOD_MAX);
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
		res.sysctl_write[0] = write_file(SYSCTL_RUNTIME, "100\n", 4,
						 -1);
		res.sysctl_write[1] = write_file(SYSCTL_PERIOD, "200\n", 4, -1);
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
 * The paths a child of uid BOOST_NOBODY needs to open /dev/kvm: the
 * directories above it must let it through too (the test initramfs's root
 * directory is 0700) and the device must be 0666 for it.
 */
static const char *const nobody_paths[] = { "/", "/dev", "/dev/kvm" };

/* Open nobody_paths to BOOST_NOBODY; their modes before, in @modes. */
static void nobody_access_grant(mode_t modes[ARRAY_SIZE(nobody_paths)])
{
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nobody_paths); i++) {
		TEST_ASSERT(!stat(nobody_paths[i], &st), "stat %s",
			    nobody_paths[i]);
		modes[i] = st.st_mode & 07777;
		TEST_ASSERT(!chmod(nobody_paths[i], S_ISDIR(st.st_mode) ?
				   modes[i] | 0005 : 0666),
			    "chmod %s", nobody_paths[i]);
	}
}

/* Give nobody_paths back the @modes that nobody_access_grant() saw. */
static void nobody_access_revoke(const mode_t modes[ARRAY_SIZE(nobody_paths)])
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nobody_paths); i++)
		TEST_ASSERT(!chmod(nobody_paths[i], modes[i]),
			    "chmod %s back to %o", nobody_paths[i], modes[i]);
}

/*
 * Run unpriv_child() for @boost and @open_drv: a child without
 * capabilities, on a /dev/kvm it may open. True if it ran to the end, what
 * it saw in @res.
 */
static bool unpriv_run(const char *boost, const char *open_drv,
		       struct unpriv_result *resp)
{
	mode_t modes[ARRAY_SIZE(nobody_paths)];
	struct unpriv_result res;
	int pfd[2], status;
	bool ran;
	ssize_t n;
	pid_t pid;

	memset(&res, 0, sizeof(res));
	nobody_access_grant(modes);
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
	nobody_access_revoke(modes);

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
		    res.sysctl_write[1] == -EACCES &&
		    sysctl_get(SYSCTL_RUNTIME) == RUNTIME_DEF &&
		    sysctl_get(SYSCTL_PERIOD) == PERIOD_DEF)
		TH_LOG("uid 65534 cannot write the sysctls (%s, %s), they keep their values",
		       err_str(res.sysctl_write[0]), err_str(res.sysctl_write[1]));
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
	"pvsched_boost", "pvsched_unboost",
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
	int nb = -1, nu = -1, nd = -1;
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
		TH_LOG("tracefs (%s) has events/pvsched/{%s,%s}",
		       dir ?: "not mounted", boost_events[0], boost_events[1]);
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
	}
	EXPECT_TRUE(ran && nb == 1)
		TH_LOG("one boost with the events enabled: one pvsched_boost event (%d)",
		       nb);
	EXPECT_TRUE(ran && nu == 1 && nd == 1)
		TH_LOG("one unboost: one pvsched_unboost event (%d), reason=driver (%d)",
		       nu, nd);
	if (nb != 1 || nu != 1 || nd != 1)
		diag_trace(dir);
}

/*
 * 3., 4. The flag up, then down: BOOSTED and counted, the thread's policy
 * and nice value as they were, no boost out of KVM_RUN.
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
		TH_LOG("the guest raises BOOST and exits: BOOSTED; when KVM_RUN returns the thread has no boost, and is SCHED_OTHER");
	EXPECT_TRUE(a->host_flags == PVSCHED_HOST_BOOSTED && a->boosts == 1 &&
		    !a->throttles && !a->unboosts)
		TH_LOG("host_flags BOOSTED (%#x), boosts 1 (%u), throttles 0, unboosts 0",
		       a->host_flags, a->boosts);
	EXPECT_TRUE(boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    boost_run(w, vcpu, 0, 0) &&
		    thread_normal_is(w->tid, BOOST_NICE))
		TH_LOG("a KVM_RUN with the boost in effect, then the guest drops BOOST and exits: SCHED_OTHER nice %d, no boost",
		       BOOST_NICE);
	EXPECT_TRUE(!a->host_flags && a->unboosts == 1 && a->boosts == 1)
		TH_LOG("host_flags 0 (%#x), unboosts 1 (%u), boosts 1 (%u)",
		       a->host_flags, a->unboosts, a->boosts);
	if (a->unboosts != 1)
		diag_area(vcpu->vm);
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
 * 23. The pending wake-up request that the guest's other vCPUs write
 * (wake_req): its priority, 1..99, boosts as a real-time task's would, and
 * its end unboosts; a count without a priority, or a priority out of
 * range, boosts nothing.
 */
static void boost_test_wake_req(struct __test_metadata *_metadata,
				struct worker *w, struct kvm_vcpu *vcpu)
{
	struct boost_area *a = boost_area(vcpu->vm);
	uint32_t boosts = a->boosts;
	pid_t tid = w->tid;
	bool ok;

	a->wake_req = 7U << PVSCHED_WAKE_COUNT_SHIFT;
	EXPECT_TRUE(boost_run(w, vcpu, 0, 0) &&
		    thread_normal_is(tid, BOOST_NICE) && a->boosts == boosts)
		TH_LOG("wake_req %#x, a count and no priority: no boost",
		       a->wake_req);
	a->wake_req = 8U << PVSCHED_WAKE_COUNT_SHIFT | 100;
	EXPECT_TRUE(boost_run(w, vcpu, 0, 0) &&
		    thread_normal_is(tid, BOOST_NICE) && a->boosts == boosts)
		TH_LOG("wake_req %#x, priority 100: no boost", a->wake_req);
	a->wake_req = 9U << PVSCHED_WAKE_COUNT_SHIFT | 50;
	ok = boost_run(w, vcpu, 0, 0) && thread_boosted(vcpu, tid);
	a->wake_req = 9U << PVSCHED_WAKE_COUNT_SHIFT;
	EXPECT_TRUE(ok && boost_run(w, vcpu, 0, 0) &&
		    thread_normal_is(tid, BOOST_NICE) &&
		    a->boosts == boosts + 1)
		TH_LOG("wake_req priority 50, guest_flags 0: boosted (%d); the priority cleared: unboosted, boosts %u (%u before)",
		       ok, a->boosts, boosts);
	a->wake_req = 0;
}

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

/* What a sampler thread saw of a vCPU thread while its guest spun. */
struct spin_samples {
	unsigned int on, off;		/* boost.on 1 / 0 */
	unsigned int states;		/* samples of the policy and nice */
	unsigned int rt;		/* ... real-time or deadline */
	unsigned int nice_ok;		/* samples with the nice expected */
	uint64_t served_ns;		/* boost.served_ns, last minus first */
	long long nr_cut;		/* boost.nr_cut, last minus first */
};

/*
 * While @w's guest spins (spin_start()), sample its thread every 2 ms for
 * @ms on this thread, pinned to CPU 0, the vCPU thread on CPU 1; then end
 * the spin. False if the spin did not end as it should.
 */
static bool spin_sample(struct worker *w, struct kvm_vcpu *vcpu, int ms,
			int nice, struct spin_samples *ss)
{
	struct boost_sched b0 = {}, b;
	struct sched_state st;
	bool first = true, ok;
	double t;

	memset(ss, 0, sizeof(*ss));
	if (!thread_pin(w->tid, 1) || !pin_to_cpu(0))
		diag("pinning: %s", strerror(errno));
	/* The worker's KVM_RUN under way, and in the guest. */
	usleep(20 * 1000);
	t = now();
	while (now() - t < ms / 1000.0) {
		if (boost_sched_get(w->tid, &b)) {
			if (first)
				b0 = b;
			first = false;
			if (b.on)
				ss->on++;
			else
				ss->off++;
			ss->served_ns = b.served_ns - b0.served_ns;
			ss->nr_cut = b.nr_cut - b0.nr_cut;
		}
		if (sched_state_get(w->tid, &st)) {
			int p = st.policy & ~SCHED_RESET_ON_FORK;

			ss->states++;
			if (p == SCHED_FIFO || p == SCHED_RR ||
			    p == SCHED_DEADLINE)
				ss->rt++;
			if (st.nice == nice)
				ss->nice_ok++;
		}
		usleep(2000);
	}
	ok = spin_release(w, vcpu);
	thread_pin(w->tid, -1);
	unpin();
	/* "Served nothing" must come from samples, not from none. */
	if (first) {
		diag("no boost state read from /proc/%d/task/%d/sched", w->tid,
		     w->tid);
		ok = false;
	}
	return ok;
}

/*
 * 13. In effect in guest mode, and nothing else of the thread changes: a
 * guest that raises its flag and spins has its thread boosted (boost.on)
 * in every sample, run by the boost server (served_ns grows), its policy
 * SCHED_OTHER and its nice value as they were in every sample; when
 * KVM_RUN returns, no boost.
 */
static void boost_test_in_guest(struct __test_metadata *_metadata,
				struct worker *w, struct kvm_vcpu *vcpu)
{
	struct boost_area *a = boost_area(vcpu->vm);
	struct spin_samples ss;
	uint64_t boosted_ns = a->boosted_ns;
	bool ok;

	ok = boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	spin_start(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	ok = spin_sample(w, vcpu, BOOST_SPIN_MS, BOOST_NICE, &ss) && ok;
	diag("the spin: boost.on in %u of %u samples, served %llu us, cut %lld, nice %d in %u, real-time in %u",
	     ss.on, ss.on + ss.off, (unsigned long long)ss.served_ns / 1000,
	     ss.nr_cut, BOOST_NICE, ss.nice_ok, ss.rt);
	EXPECT_TRUE(ok && ss.on >= 10 && !ss.off && ss.served_ns > 0)
		TH_LOG("the guest spins with its flag up: boost.on in every sample (%u of %u), the boost server ran it (%llu us)",
		       ss.on, ss.on + ss.off,
		       (unsigned long long)ss.served_ns / 1000);
	EXPECT_TRUE(ok && !ss.rt && ss.nice_ok == ss.on + ss.off)
		TH_LOG("... its thread SCHED_OTHER in every sample (real-time in %u), nice %d in %u of %u",
		       ss.rt, BOOST_NICE, ss.nice_ok, ss.on + ss.off);
	EXPECT_TRUE(ok && thread_boosted(vcpu, w->tid) &&
		    a->boosted_ns - boosted_ns >= ss.served_ns / 2)
		TH_LOG("KVM_RUN returned: no boost out of it; the area counts the served time (+%llu us)",
		       (unsigned long long)(a->boosted_ns - boosted_ns) / 1000);
	EXPECT_TRUE(boost_run(w, vcpu, 0, 0) && !a->host_flags)
		TH_LOG("the flag down");
}

/*
 * 9. The administrator's choices and the VMM's own settings stand. A
 * thread made SCHED_FIFO by the administrator while boosted stays so; a
 * SCHED_BATCH or SCHED_IDLE thread is not run by the boost server
 * (EXCLUDED, no served time) while its guest spins with the flag up; a
 * renice and a custom slice made during a boost stay.
 */
static void boost_test_admin(struct __test_metadata *_metadata,
			     struct worker *w, struct kvm_vcpu *vcpu)
{
	static const int policies[] = { SCHED_BATCH, SCHED_IDLE };
	struct boost_area *a = boost_area(vcpu->vm);
	struct sched_attr attr = { .size = sizeof(attr) };
	struct spin_samples ss;
	bool ok;
	size_t i;

	/* A real-time policy set by the administrator during a boost. */
	ok = boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	spin_start(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	usleep(50 * 1000);
	ok = thread_set_policy(w->tid, SCHED_FIFO, BOOST_ADMIN_PRIO) && ok;
	ok = spin_release(w, vcpu) && ok;
	EXPECT_TRUE(ok && thread_policy_is(w->tid, SCHED_FIFO) &&
		    (a->host_flags & PVSCHED_HOST_EXCLUDED) &&
		    thread_boost_is(w->tid, false))
		TH_LOG("made SCHED_FIFO %d by the administrator while boosted: it stays SCHED_FIFO after KVM_RUN, EXCLUDED (host_flags %#x), no boost",
		       BOOST_ADMIN_PRIO, a->host_flags);
	EXPECT_TRUE(thread_set_policy(w->tid, SCHED_OTHER, 0) &&
		    !setpriority(PRIO_PROCESS, w->tid, BOOST_NICE) &&
		    boost_run(w, vcpu, 0, 0) &&
		    thread_normal_is(w->tid, BOOST_NICE))
		TH_LOG("back to SCHED_OTHER nice %d, the flag down", BOOST_NICE);

	/* Batch and idle threads: the server leaves them. */
	for (i = 0; i < ARRAY_SIZE(policies); i++) {
		ok = thread_set_policy(w->tid, policies[i], 0) &&
		     boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0);
		spin_start(w, vcpu, PVSCHED_GUEST_BOOST, 0);
		ok = spin_sample(w, vcpu, BOOST_SPIN_MS / 2, BOOST_NICE, &ss) &&
		     ok;
		EXPECT_TRUE(ok && thread_policy_is(w->tid, policies[i]) &&
			    !ss.served_ns &&
			    (a->host_flags & PVSCHED_HOST_EXCLUDED) &&
			    (a->host_flags & PVSCHED_HOST_BOOSTED))
			TH_LOG("a %s thread whose guest spins with its flag up: the boost is held (host_flags %#x: BOOSTED, EXCLUDED), the server runs it for nothing (%llu ns), the policy stays",
			       policy_str(policies[i]), a->host_flags,
			       (unsigned long long)ss.served_ns);
		EXPECT_TRUE(boost_run(w, vcpu, 0, 0) &&
			    thread_set_policy(w->tid, SCHED_OTHER, 0) &&
			    !setpriority(PRIO_PROCESS, w->tid, BOOST_NICE) &&
			    thread_normal_is(w->tid, BOOST_NICE))
			TH_LOG("the flag down, SCHED_OTHER nice %d again",
			       BOOST_NICE);
	}

	/* The VMM's renice and custom slice during a boost stay. */
	ok = boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	spin_start(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	usleep(50 * 1000);
	ok = !setpriority(PRIO_PROCESS, w->tid, BOOST_NICE2) && ok;
	attr.sched_policy = SCHED_OTHER;
	attr.sched_nice = BOOST_NICE2;
	attr.sched_runtime = BOOST_SLICE_NS;
	ok = !syscall(__NR_sched_setattr, w->tid, &attr, 0) && ok;
	if (!ok)
		diag("setpriority/sched_setattr: %s", strerror(errno));
	ok = spin_release(w, vcpu) && ok;
	memset(&attr, 0, sizeof(attr));
	ok = ok && !syscall(__NR_sched_getattr, w->tid, &attr, sizeof(attr), 0);
	EXPECT_TRUE(ok && attr.sched_policy == SCHED_OTHER &&
		    attr.sched_nice == BOOST_NICE2 &&
		    attr.sched_runtime == BOOST_SLICE_NS &&
		    thread_boosted(vcpu, w->tid))
		TH_LOG("renice %d and a slice of %d ns set during a boost: after KVM_RUN the thread has them (nice %d, slice %llu), still BOOSTED",
		       BOOST_NICE2, BOOST_SLICE_NS, attr.sched_nice,
		       (unsigned long long)attr.sched_runtime);
	attr.sched_policy = SCHED_OTHER;
	attr.sched_nice = BOOST_NICE;
	attr.sched_runtime = 0;
	attr.size = sizeof(attr);
	EXPECT_TRUE(!syscall(__NR_sched_setattr, w->tid, &attr, 0) &&
		    boost_run(w, vcpu, 0, 0) &&
		    thread_normal_is(w->tid, BOOST_NICE))
		TH_LOG("the default slice and nice %d back, the flag down",
		       BOOST_NICE);
}

/*
 * 14. Nothing outside KVM_RUN: the guest's flag up, KVM_RUN returns and
 * the VMM stops calling it. For BOOST_IDLE_MS there is no pvsched event,
 * the thread has no boost, and the boost server runs nothing for it.
 */
static void boost_test_outside_run(struct __test_metadata *_metadata,
				   struct worker *w, struct kvm_vcpu *vcpu)
{
	struct boost_area *a = boost_area(vcpu->vm);
	const char *dir = tracefs_dir();
	struct boost_sched b0, b1;
	int np = -1;
	bool ok;

	ok = dir && boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
	     boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	EXPECT_TRUE(ok && thread_boosted(vcpu, w->tid))
		TH_LOG("the guest raises its flag and exits: BOOSTED, no boost out of KVM_RUN");
	ok = ok && boost_events_enable(dir, true) && trace_clear(dir) &&
	     boost_sched_get(w->tid, &b0);
	usleep(BOOST_IDLE_MS * 1000);
	if (dir)
		boost_events_enable(dir, false);
	ok = ok && boost_sched_get(w->tid, &b1);
	if (ok)
		np = trace_count(dir, ": pvsched_");
	EXPECT_TRUE(ok && np == 0 && !b1.on &&
		    b1.served_ns == b0.served_ns)
		TH_LOG("the flag up, KVM_RUN not called for %d ms: %d pvsched events (0), boost.on %lld, served +%llu ns (0)",
		       BOOST_IDLE_MS, np, b1.on,
		       (unsigned long long)(b1.served_ns - b0.served_ns));
	if (np)
		diag_trace(dir);
	EXPECT_TRUE(thread_normal_is(w->tid, BOOST_NICE) &&
		    (a->host_flags & PVSCHED_HOST_BOOSTED))
		TH_LOG("meanwhile the thread is SCHED_OTHER nice %d, its boost held (host_flags %#x)",
		       BOOST_NICE, a->host_flags);
	EXPECT_TRUE(boost_run(w, vcpu, 0, 0) && !a->host_flags)
		TH_LOG("the flag down: host_flags 0 (%#x)", a->host_flags);
}

/* What a thread of boost_test_vmm_spin() saw. */
struct vmm_spin {
	struct kvm_vcpu *vcpu;
	bool ran;
	bool boosted;
	unsigned int samples, on;
	uint64_t served_ns;
	double spun;
};

static void *vmm_spin_thread(void *arg)
{
	struct vmm_spin *vs = arg;
	struct boost_mbox *mb = boost_mbox(vs->vcpu->vm);
	struct boost_sched b0 = {}, b = {};
	pid_t tid = gettid();
	double t0, t;

	if (!pin_to_cpu(0))
		diag("sched_setaffinity(CPU 0): %s", strerror(errno));
	mb->flags = PVSCHED_GUEST_BOOST;
	mb->prio = 0;
	mb->wait = 0;
	vs->ran = vcpu_run_io(vs->vcpu) && vcpu_run_io(vs->vcpu);
	vs->boosted = boost_area(vs->vcpu->vm)->host_flags &
		      PVSCHED_HOST_BOOSTED;
	boost_sched_get(tid, &b0);
	t0 = now();
	do {
		t = now();
		if (boost_sched_get(tid, &b)) {
			vs->samples++;
			if (b.on)
				vs->on++;
		}
	} while (t - t0 < BOOST_VMM_SPIN_MS / 1000.0);
	vs->served_ns = b.served_ns - b0.served_ns;
	vs->spun = t - t0;
	return NULL;
}

/*
 * 15. A boosted vCPU thread that returns to the VMM and spins there: no
 * boost in any sample, and the boost server runs it for nothing.
 */
static void boost_test_vmm_spin(struct __test_metadata *_metadata,
				struct kvm_vcpu *vcpu)
{
	struct vmm_spin vs = { .vcpu = vcpu };
	pthread_t th;
	bool ok;

	ok = !pthread_create(&th, NULL, vmm_spin_thread, &vs);
	if (ok)
		pthread_join(th, NULL);
	EXPECT_TRUE(ok && vs.ran && vs.boosted && vs.samples > 10 && !vs.on &&
		    !vs.served_ns)
		TH_LOG("a thread boosted by its guest (%s) spins %.0f ms in the VMM: boost.on in %u of %u samples (0), served %llu ns (0)",
		       vs.boosted ? "BOOSTED" : "not BOOSTED", vs.spun * 1000,
		       vs.on, vs.samples, (unsigned long long)vs.served_ns);
	EXPECT_TRUE(vcpu_run_io(vcpu))
		TH_LOG("the vCPU runs again");
	boost_mbox(vcpu->vm)->flags = 0;
	EXPECT_TRUE(vcpu_run_io(vcpu) && !boost_area(vcpu->vm)->host_flags)
		TH_LOG("the flag down");
}

/* A busy loop, pinned to CPU 1: the competitor of a boosted spin. */
struct hog {
	pthread_t thread;
	volatile bool stop;
};

static void *hog_thread(void *arg)
{
	struct hog *h = arg;

	if (!pin_to_cpu(1))
		diag("sched_setaffinity(CPU 1): %s", strerror(errno));
	while (!h->stop)
		;
	return NULL;
}

/*
 * 5. The bounds, as the scheduler enforces them: a guest that spins with
 * its flag up beside a busy loop on its CPU is run by the boost server,
 * which cuts its runs short (its runtime, or the thread's fair share, used
 * up): boost.nr_cut and the area's throttles grow. With
 * sched_boost_runtime_us 0 the server runs nothing: the boost is held,
 * served time stays.
 */
static void boost_test_bounds(struct __test_metadata *_metadata,
			      struct worker *w, struct kvm_vcpu *vcpu)
{
	struct boost_area *a = boost_area(vcpu->vm);
	uint32_t throttles = a->throttles;
	struct hog h = {};
	struct spin_samples ss;
	bool ok;

	ok = !pthread_create(&h.thread, NULL, hog_thread, &h) &&
	     boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	spin_start(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	ok = spin_sample(w, vcpu, BOOST_HOG_MS, BOOST_NICE, &ss) && ok;
	diag("beside a busy loop: served %llu us, %lld runs cut, area throttles +%u",
	     (unsigned long long)ss.served_ns / 1000, ss.nr_cut,
	     a->throttles - throttles);
	EXPECT_TRUE(ok && ss.served_ns > 0 && ss.nr_cut >= 1 &&
		    a->throttles - throttles >= (uint32_t)ss.nr_cut)
		TH_LOG("a boosted spin beside a busy loop on its CPU: the boost server ran it (%llu us) and cut %lld runs short; the area counts them (+%u)",
		       (unsigned long long)ss.served_ns / 1000, ss.nr_cut,
		       a->throttles - throttles);

	ok = boost_sysctls_set(0, PERIOD_DEF);
	spin_start(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	ok = spin_sample(w, vcpu, BOOST_SPIN_MS, BOOST_NICE, &ss) && ok;
	EXPECT_TRUE(ok && !ss.served_ns &&
		    (a->host_flags & PVSCHED_HOST_BOOSTED))
		TH_LOG("sched_boost_runtime_us 0: the boost is held (host_flags %#x), the server runs nothing (%llu ns)",
		       a->host_flags, (unsigned long long)ss.served_ns);
	h.stop = true;
	pthread_join(h.thread, NULL);
	EXPECT_TRUE(boost_sysctls_set(RUNTIME_DEF, PERIOD_DEF) &&
		    boost_run(w, vcpu, 0, 0) && !a->host_flags)
		TH_LOG("the default runtime back, the flag down");
}

/*
 * 16. Another thread runs the vCPU: the first thread's boost ends with
 * it; the second, whose guest keeps its flag up, is boosted in KVM_RUN.
 */
static void boost_test_thread_change(struct __test_metadata *_metadata,
				     struct worker *wa, struct worker *wb,
				     struct kvm_vcpu *vcpu)
{
	struct spin_samples ss;
	bool ok;

	EXPECT_TRUE(boost_run(wa, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_boosted(vcpu, wa->tid) &&
		    boost_run(wb, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_normal_is(wa->tid, BOOST_NICE))
		TH_LOG("A boosted, then thread B runs the vCPU: A SCHED_OTHER nice %d, no boost",
		       BOOST_NICE);
	spin_start(wb, vcpu, PVSCHED_GUEST_BOOST, 0);
	ok = spin_sample(wb, vcpu, BOOST_SPIN_MS / 3, 0, &ss);
	EXPECT_TRUE(ok && ss.on && !ss.off && thread_boosted(vcpu, wb->tid) &&
		    thread_boost_is(wa->tid, false))
		TH_LOG("B, whose guest keeps the flag up, is boosted in KVM_RUN (%u of %u samples), A is not",
		       ss.on, ss.on + ss.off);
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


#define CGROUP_IDLE		CGROUP_ROOT "/pvsched_idle"

/*
 * cgroup v2 at CGROUP_ROOT (mounted if need be) with the cpu controller
 * for its children, and the child cgroup @dir, whose cpu.@file is @val.
 */
static bool cgroup_make(const char *dir, const char *file, const char *val)
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
	snprintf(path, sizeof(path), "%s/cpu.%s", dir, file);
	return file_put(path, val);
}

/* What the child of cgroup_run() saw. */
struct cgroup_result {
	struct boost_area area;		/* its area at the end */
	uint64_t served_ns;		/* boost.served_ns of its vCPU thread */
	unsigned int samples;		/* ... read in the spin */
	unsigned int states;		/* samples of its policy */
	unsigned int rt;		/* ... real-time or deadline */
	double cpu, wall;		/* its CPU time in the spin, and the spin's */
	bool ok;
};

/*
 * The child of cgroup_run(): joins cgroup @dir, runs a VM whose guest
 * raises its flag and exits, then spins for @ms with it up, under
 * pvsched_boost, pinned to CPU 1; writes what it saw to @fd.
 */
static void __noreturn cgroup_child(const char *dir, int ms, int fd)
{
	struct cgroup_result res = {};
	struct spin_samples ss;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct worker *w;
	char path[256];
	uint64_t rt;
	double t;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (file_put(path, "0")) {
		vm = vm_create();
		vcpu = boost_vcpu_add(vm);
		w = worker_create();
		res.ok = !area_set(vcpu, AREA_GPA, 0) &&
			 !pvsched_assign(vm, BOOST_DRV, NULL) &&
			 boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0);
		rt = thread_runtime_ns(w->tid);
		t = now();
		spin_start(w, vcpu, PVSCHED_GUEST_BOOST, 0);
		res.ok = spin_sample(w, vcpu, ms, 0, &ss) && res.ok;
		res.wall = now() - t;
		res.cpu = (thread_runtime_ns(w->tid) - rt) / 1e9;
		res.served_ns = ss.served_ns;
		res.samples = ss.on + ss.off;
		res.states = ss.states;
		res.rt = ss.rt;
		res.area = *boost_area(vm);
	}
	_exit(write(fd, &res, sizeof(res)) == sizeof(res) ? 0 : 1);
}

/* Run cgroup_child() in @dir for @ms; what it saw in @res. */
static bool cgroup_run(const char *dir, int ms, struct cgroup_result *res)
{
	int pfd[2], status;
	bool ok;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return false;
	fflush(stdout);
	pid = fork();
	if (!pid)
		cgroup_child(dir, ms, pfd[1]);
	close(pfd[1]);
	ok = pid > 0 && read(pfd[0], res, sizeof(*res)) == sizeof(*res) &&
	     res->ok;
	close(pfd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return ok;
}

/*
 * 17. The administrator's cgroups stand: a VMM in an idle cgroup
 * (cpu.idle 1) gets the boost held but never served (EXCLUDED); in a
 * cgroup with cpu.max BOOST_QUOTA_PCT% of a CPU, its boosted vCPU thread
 * is served, and its CPU time stays within the quota: the boost's time is
 * charged to it. A cgroup with neither (the control) is served.
 */
static void boost_test_cgroup(struct __test_metadata *_metadata)
{
	struct cgroup_result idle = {}, quota = {}, free = {};
	char max[32];
	bool ok;

	ok = cgroup_make(CGROUP_FREE, "max", "max") &&
	     cgroup_run(CGROUP_FREE, BOOST_SPIN_MS, &free);
	EXPECT_TRUE(ok && free.served_ns > 0 && free.area.boosts == 1 &&
		    !(free.area.host_flags & PVSCHED_HOST_EXCLUDED))
		TH_LOG("a VMM in a cgroup with cpu.max \"max\": its spinning guest's flag is served (%llu us, boosts %u, host_flags %#x)",
		       (unsigned long long)free.served_ns / 1000,
		       free.area.boosts, free.area.host_flags);
	ok = cgroup_make(CGROUP_IDLE, "idle", "1") &&
	     cgroup_run(CGROUP_IDLE, BOOST_SPIN_MS, &idle);
	EXPECT_TRUE(ok && !idle.served_ns && idle.area.boosts == 1 &&
		    (idle.area.host_flags & PVSCHED_HOST_EXCLUDED))
		TH_LOG("a VMM in a cgroup with cpu.idle 1: the boost is held (boosts %u), EXCLUDED (host_flags %#x), never served (%llu ns)",
		       idle.area.boosts, idle.area.host_flags,
		       (unsigned long long)idle.served_ns);
	snprintf(max, sizeof(max), "%d 100000", BOOST_QUOTA_PCT * 1000);
	ok = cgroup_make(CGROUP_LIMITED, "max", max) &&
	     cgroup_run(CGROUP_LIMITED, 2 * BOOST_SPIN_MS, &quota);
	diag("cpu.max \"%s\": the vCPU thread ran %.1f ms of %.1f ms, %llu us served",
	     max, quota.cpu * 1000, quota.wall * 1000,
	     (unsigned long long)quota.served_ns / 1000);
	EXPECT_TRUE(ok && quota.served_ns > 0 &&
		    quota.cpu <= quota.wall * (BOOST_QUOTA_PCT + 5) / 100)
		TH_LOG("a VMM in a cgroup with cpu.max \"%s\": its boosted thread is served (%llu us) and runs %.1f%% of the time, within the quota (%d%% + 5)",
		       max, (unsigned long long)quota.served_ns / 1000,
		       quota.wall ? 100 * quota.cpu / quota.wall : 0,
		       BOOST_QUOTA_PCT);
	if (rmdir(CGROUP_LIMITED) || rmdir(CGROUP_FREE) || rmdir(CGROUP_IDLE))
		diag("rmdir %s, %s, %s: %s", CGROUP_LIMITED, CGROUP_FREE,
		     CGROUP_IDLE, strerror(errno));
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
	     worker_run(w, vcpu, 1) && dirty_log_get(vm) != ~0ULL;
	EXPECT_TRUE(ok)
		TH_LOG("slot 0 with KVM_MEM_LOG_DIRTY_PAGES, the area registered, %s assigned, a run, the log read and cleared",
		       BOOST_DRV);
	if (!ok)
		goto out;

	/*
	 * The boost is counted as KVM_RUN returns, where KVM cannot mark the
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
 * holds only the pattern and the thread has no boost: the host wrote
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
		usleep(50 * 1000);
	}
	for (i = 0; i < RESET_PAGE_SIZE && page[i] == want[i]; i++)
		;
	EXPECT_TRUE(ran == 5 && i == RESET_PAGE_SIZE)
		TH_LOG("reset; the page filled with %#x, which the guest writes as its flags and prio: after %d of 5 runs, %s",
		       RESET_PATTERN, ran, i == RESET_PAGE_SIZE ? "the pattern is whole" :
		       "the host wrote into it");
	if (i < RESET_PAGE_SIZE)
		diag("first byte changed at offset %d: %#x", i, page[i]);
	EXPECT_TRUE(thread_normal_is(w->tid, 0))
		TH_LOG("the boost ended with the reset: the thread is SCHED_OTHER, not boosted");

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

/* What the unprivileged VMM of boost_test_vmm_policies() did and saw. */
struct vmm_policy_result {
	char failed[32];		/* the setup step that failed */
	int err;
	int nr;				/* changes tried */
	int ret[16];			/* each change's result, 0 or -errno */
	int rt_in_run;			/* samples real-time or deadline */
	int rt_after_run, rt_after_close;
	long long boost_after_run, boost_after_close;
	uint32_t host_flags;		/* the area in the spin */
	pid_t vcpu_tid;
};

/* A policy change a VMM may try on its vCPU thread, and its name. */
struct vmm_policy_change {
	const char *what;
	int policy;			/* sched_setattr()'s */
	int flags;
	int prio;
	int nice;
	uint64_t runtime, deadline, period;
	bool setpriority;		/* setpriority(nice) instead */
};

static const struct vmm_policy_change vmm_changes[] = {
	{ "SCHED_FIFO|RESET_ON_FORK 1", SCHED_FIFO,
	  SCHED_FLAG_RESET_ON_FORK, 1 },
	{ "SCHED_FIFO 1", SCHED_FIFO, 0, 1 },
	{ "SCHED_RR 1", SCHED_RR, 0, 1 },
	{ "SCHED_DEADLINE 1/10 ms", SCHED_DEADLINE, 0, 0, 0,
	  1000000, 10000000, 10000000 },
	{ "SCHED_OTHER slice 100 us", SCHED_OTHER, 0, 0, 0, 100000 },
	{ "setpriority(-5)", 0, 0, 0, -5, .setpriority = true },
	{ "setpriority(5)", 0, 0, 0, 5, .setpriority = true },
	{ "SCHED_BATCH", SCHED_BATCH, 0, 0, 5 },
	{ "SCHED_IDLE", SCHED_IDLE, 0, 0, 5 },
	{ "SCHED_OTHER from SCHED_IDLE", SCHED_OTHER, 0, 0, 5 },
	{ "SCHED_FIFO|RESET_ON_FORK 1 again", SCHED_FIFO,
	  SCHED_FLAG_RESET_ON_FORK, 1 },
};

static bool policy_rt(pid_t tid)
{
	int p = sched_getscheduler(tid) & ~SCHED_RESET_ON_FORK;

	return p == SCHED_FIFO || p == SCHED_RR || p == SCHED_DEADLINE;
}

static int vmm_policy_apply(pid_t tid, const struct vmm_policy_change *c)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = c->policy,
		.sched_flags = c->flags,
		.sched_priority = c->prio,
		.sched_nice = c->nice,
		.sched_runtime = c->runtime,
		.sched_deadline = c->deadline,
		.sched_period = c->period,
	};

	if (c->setpriority)
		return setpriority(PRIO_PROCESS, tid, c->nice) ? -errno : 0;
	return syscall(__NR_sched_setattr, tid, &attr, 0) ? -errno : 0;
}

/*
 * The unprivileged VMM: uid 65534, no capabilities, RLIMIT_RTPRIO 0, a VM
 * that gets the administrator's default boosting driver; its guest raises
 * its flag and spins, and this thread tries each of vmm_changes on the
 * vCPU thread, sampling it in between; then KVM_RUN returns and the VM is
 * closed, each followed by a look at the thread. The parent kills it.
 */
static void __noreturn vmm_policy_child(int fd)
{
	struct vmm_policy_result res = { .nr = ARRAY_SIZE(vmm_changes) };
	struct rlimit rl = { 0, 0 };
	struct kvm_vcpu *vcpu;
	struct boost_sched b;
	struct kvm_vm *vm;
	struct worker *w;
	uint64_t caps;
	const char *failed = NULL;
	int i, j;

	_Static_assert(ARRAY_SIZE(vmm_changes) <= ARRAY_SIZE(res.ret),
		       "room for every change");
	if (setrlimit(RLIMIT_RTPRIO, &rl))
		failed = "setrlimit";
	if (!failed)
		failed = unpriv_drop(&caps);
	if (!failed && caps)
		failed = "capabilities left";
	if (failed) {
		res.err = errno;
		snprintf(res.failed, sizeof(res.failed), "%s", failed);
		goto out;
	}
	vm = vm_create();
	vcpu = boost_vcpu_add(vm);
	w = worker_create();
	res.vcpu_tid = w->tid;
	if (area_set(vcpu, AREA_GPA, 0) || !vm_driver_is(vm, BOOST_DRV) ||
	    !boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0)) {
		snprintf(res.failed, sizeof(res.failed), "VM with %s",
			 BOOST_DRV);
		goto out;
	}
	spin_start(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	usleep(50 * 1000);
	res.host_flags = boost_area(vm)->host_flags;
	for (i = 0; i < res.nr; i++) {
		res.ret[i] = vmm_policy_apply(w->tid, &vmm_changes[i]);
		for (j = 0; j < 5; j++) {
			if (policy_rt(w->tid))
				res.rt_in_run++;
			usleep(5000);
		}
	}
	if (!spin_release(w, vcpu)) {
		snprintf(res.failed, sizeof(res.failed), "the spin's end");
		goto out;
	}
	res.rt_after_run = policy_rt(w->tid);
	res.boost_after_run = boost_sched_get(w->tid, &b) ? b.on : -1;
	vm_close(vm);
	res.rt_after_close = policy_rt(w->tid);
	res.boost_after_close = boost_sched_get(w->tid, &b) ? b.on : -1;
out:
	if (write(fd, &res, sizeof(res)) != sizeof(res))
		_exit(1);
	for (;;)
		pause();
}

/*
 * 20. What an unprivileged VMM can do with the boost of the
 * administrator's default driver: none of the changes it may make to its
 * boosted vCPU thread's policy gives the thread a real-time or deadline
 * policy, in KVM_RUN or out of it, after KVM_RUN returns, after the VM is
 * closed, or once the VMM is killed. (Before the boost server, the boost
 * made the thread SCHED_FIFO, and the VMM, allowed to lower its own
 * real-time priority, kept it SCHED_FIFO for good.)
 */
static void boost_test_vmm_policies(struct __test_metadata *_metadata)
{
	mode_t modes[ARRAY_SIZE(nobody_paths)];
	struct vmm_policy_result res = {};
	int pfd[2], status, i, r;
	bool ran, refused = true;
	pid_t pid;

	r = write_file(SYSCTL_DEFAULT, BOOST_DRV "\n", strlen(BOOST_DRV) + 1,
		       -1);
	EXPECT_EQ((int)strlen(BOOST_DRV) + 1, r)
		TH_LOG("kernel.pvsched_default_driver=%s (%s)", BOOST_DRV,
		       err_str(r));
	nobody_access_grant(modes);
	TEST_ASSERT(!pipe2(pfd, O_CLOEXEC), "pipe2");
	fflush(stdout);
	pid = fork();
	TEST_ASSERT(pid >= 0, "fork");
	if (!pid)
		vmm_policy_child(pfd[1]);
	close(pfd[1]);
	ran = read(pfd[0], &res, sizeof(res)) == sizeof(res) && !res.failed[0];
	close(pfd[0]);
	kill(pid, SIGKILL);
	TEST_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid");
	nobody_access_revoke(modes);
	write_file(SYSCTL_DEFAULT, "\n", 1, -1);

	if (!ran)
		diag("the child (uid %d): failed at \"%s\" (%s)", BOOST_NOBODY,
		     res.failed, strerror(res.err));
	EXPECT_TRUE(ran && (res.host_flags & PVSCHED_HOST_BOOSTED))
		TH_LOG("uid %d, no capabilities, RLIMIT_RTPRIO 0: its VM gets %s, its guest spins boosted (host_flags %#x)",
		       BOOST_NOBODY, BOOST_DRV, res.host_flags);
	for (i = 0; ran && i < res.nr; i++) {
		const struct vmm_policy_change *c = &vmm_changes[i];
		bool rt = c->policy == SCHED_FIFO || c->policy == SCHED_RR ||
			  c->policy == SCHED_DEADLINE;

		diag("%s: %s", c->what, err_str(res.ret[i]));
		if (rt && res.ret[i] != -EPERM)
			refused = false;
	}
	EXPECT_TRUE(ran && refused && !res.rt_in_run)
		TH_LOG("every real-time or deadline policy it sets on its boosted vCPU thread fails with EPERM; the thread is never real-time in KVM_RUN (%d samples)",
		       res.rt_in_run);
	EXPECT_TRUE(ran && !res.rt_after_run && !res.boost_after_run &&
		    !res.rt_after_close && !res.boost_after_close)
		TH_LOG("after KVM_RUN returns: real-time %d, boost.on %lld; after the VM is closed: %d, %lld (all 0)",
		       res.rt_after_run, res.boost_after_run,
		       res.rt_after_close, res.boost_after_close);
	EXPECT_TRUE(WIFSIGNALED(status) && res.vcpu_tid &&
		    kill(res.vcpu_tid, 0) == -1 && errno == ESRCH)
		TH_LOG("the VMM killed: its vCPU thread %d is gone with it",
		       res.vcpu_tid);
}

/*
 * The test bodies: boost.module and boost.bpf run the same checks, with
 * pvsched_boost and with bpf_pvsched_boost.
 */
static void boost_suite(struct __test_metadata *_metadata, const char *drv)
{
	struct kvm_vcpu *vcpu;
	struct worker *wa, *wb;
	struct kvm_vm *vm;
	pid_t tid;
	double t;
	int r;

	vm = vm_create();
	vcpu = boost_vcpu_add(vm);
	wa = worker_create();
	wb = worker_create();
	TEST_ASSERT(!setpriority(PRIO_PROCESS, wa->tid, BOOST_NICE),
		    "setpriority(%d, %d)", wa->tid, BOOST_NICE);
	TEST_ASSERT(!setpriority(PRIO_PROCESS, wb->tid, 0),
		    "setpriority(%d, 0)", wb->tid);
	boost_area(vm)->wake_req = 0xdeadbeef;
	EXPECT_EQ(0, area_set(vcpu, AREA_GPA, 0))
		TH_LOG("the vCPU's area registered");
	EXPECT_EQ(0, boost_area(vm)->wake_req)
		TH_LOG("KVM zeroed wake_req (the guest's, 0xdeadbeef before) at registration");
	r = pvsched_assign(vm, drv, NULL);
	EXPECT_TRUE(!r && vm_driver_is(vm, drv))
		TH_LOG("root (CAP_SYS_NICE) assigns %s (%s)", drv, err_str(r));

	boost_test_up_down(_metadata, wa, vcpu);
	boost_test_garbage(_metadata, wa, vcpu);
	boost_test_wake_req(_metadata, wa, vcpu);
	boost_test_in_guest(_metadata, wa, vcpu);
	boost_test_admin(_metadata, wa, vcpu);
	boost_test_bounds(_metadata, wa, vcpu);
	boost_test_outside_run(_metadata, wa, vcpu);
	boost_test_vmm_spin(_metadata, vcpu);

	/* 6. A driver change ends the boost. */
	EXPECT_TRUE(boost_run(wa, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_boosted(vcpu, wa->tid) &&
		    !pvsched_assign(vm, COUNT_DRV, NULL) &&
		    !(boost_area(vm)->host_flags & PVSCHED_HOST_BOOSTED) &&
		    boost_run(wa, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_normal_is(wa->tid, BOOST_NICE))
		TH_LOG("boosted, then REPLACE %s: not BOOSTED, and the flag boosts nothing any more",
		       COUNT_DRV);
	EXPECT_EQ(0, pvsched_assign(vm, drv, NULL))
		TH_LOG("assign %s again", drv);

	boost_test_trace(_metadata, wa, vcpu);
	boost_test_thread_change(_metadata, wa, wb, vcpu);
	boost_test_exit(_metadata, drv);

	/* 8. VM destruction ends the boost. */
	EXPECT_TRUE(boost_run(wb, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_boosted(vcpu, wb->tid))
		TH_LOG("B boosted");
	tid = wb->tid;
	vm_close(vm);
	t = now();
	EXPECT_TRUE(thread_normal_is(tid, 0) &&
		    now() - t < BOOST_WAIT_SECONDS)
		TH_LOG("the VM's fds all closed: B is SCHED_OTHER nice 0, no boost");
	worker_destroy(wa);
	worker_destroy(wb);
}

TEST_F_TIMEOUT(boost, module, TEST_SECONDS)
{
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
	boost_test_cgroup(_metadata);
	boost_test_vmm_policies(_metadata);

	boost_suite(_metadata, BOOST_DRV);

	EXPECT_TRUE(boost_sysctls_set(RUNTIME_DEF, PERIOD_DEF))
		TH_LOG("sysctls at their defaults");
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
	if (!path_exists(SYSCTL_RUNTIME))
		return SYSCTL_RUNTIME " missing (a kernel without the boost server)";
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
	struct unpriv_result res;
	struct kvm_vcpu *vcpu;
	struct boost_area *a;
	struct worker *w;
	struct kvm_vm *vm;
	uint32_t boosts;
	int r, nf_fd;
	bool ok, ran;

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

	boost_suite(_metadata, BPF_BOOST_DRV);

	vm = vm_create();
	vcpu = boost_vcpu_add(vm);
	a = boost_area(vm);
	w = worker_create();
	TEST_ASSERT(!setpriority(PRIO_PROCESS, w->tid, BOOST_NICE),
		    "setpriority(%d, %d)", w->tid, BOOST_NICE);
	EXPECT_TRUE(!area_set(vcpu, AREA_GPA, 0) &&
		    !pvsched_assign(vm, BPF_BOOST_DRV, NULL))
		TH_LOG("a VM with %s", BPF_BOOST_DRV);

	/* Unregistered while assigned: the VM keeps it, and it boosts. */
	r = bpf_tool_run("unload", BPF_BOOST_DRV);
	EXPECT_TRUE(!r && !driver_listed(BPF_BOOST_DRV) &&
		    vm_driver_is(vm, BPF_BOOST_DRV))
		TH_LOG("pvsched-bpf unload %s while assigned: status %d, not listed, the VM keeps it (GET)",
		       BPF_BOOST_DRV, r);
	EXPECT_TRUE(boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_boosted(vcpu, w->tid) && boost_run(w, vcpu, 0, 0) &&
		    thread_normal_is(w->tid, BOOST_NICE) &&
		    boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0) &&
		    thread_boosted(vcpu, w->tid) && a->boosts == 2 &&
		    a->unboosts == 1)
		TH_LOG("... it still boosts and unboosts: flag up, down, up (boosts %u, unboosts %u)",
		       a->boosts, a->unboosts);
	r = pvsched_assign(vm, BPF_NOFLAG_DRV, NULL);
	EXPECT_TRUE(!r && thread_normal_is(w->tid, BOOST_NICE) &&
		    !(a->host_flags & PVSCHED_HOST_BOOSTED))
		TH_LOG("boosted, then REPLACE %s (%s): no boost, not BOOSTED",
		       BPF_NOFLAG_DRV, err_str(r));
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

/*
 * sched_ext: scx_minimal (kernel/bpf/scx_minimal.bpf.c, "pvsched-bpf load
 * scx") is a sched_ext scheduler without SCX_OPS_SWITCH_PARTIAL, which
 * moves every task of the fair policies to the sched_ext class, the vCPU
 * thread with them: SCHED_NORMAL as ever, but no fair task. The boost
 * server runs fair tasks only, and the boost changes no policy.
 */
#define SCX_DIR			"/sys/kernel/sched_ext"
#define SCX_NAME		"scx_minimal"	/* its sched_ext_ops.name */

static const char *need_scx(void)
{
	const char *r = need_boost();

	if (r)
		return r;
	r = need_bpf();
	if (r)
		return r;
	if (!path_exists(SCX_DIR))
		return SCX_DIR " missing (a kernel without CONFIG_SCHED_CLASS_EXT)";
	return NULL;
}

/* The first line of @path, without its newline; false (and a diag) if unread. */
static bool file_line(const char *path, char *buf, size_t len)
{
	int r = read_file(path, buf, len);

	if (r < 0) {
		diag("%s: %s", path, err_str(r));
		return false;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

/*
 * Is sched_ext enabled with scx_minimal, all tasks switched to it (@on),
 * or disabled (!@on)? Its enable_seq, which every enable increments, in
 * @seq.
 */
static bool scx_is(bool on, long *seq)
{
	char state[32], all[16] = "", ops[64] = "", nr[32];
	bool ok;

	if (!file_line(SCX_DIR "/state", state, sizeof(state)) ||
	    !file_line(SCX_DIR "/switch_all", all, sizeof(all)) ||
	    !file_line(SCX_DIR "/enable_seq", nr, sizeof(nr)))
		return false;
	*seq = strtol(nr, NULL, 10);
	if (on)
		ok = !strcmp(state, "enabled") && !strcmp(all, "1") &&
		     file_line(SCX_DIR "/root/ops", ops, sizeof(ops)) &&
		     !strcmp(ops, SCX_NAME);
	else
		ok = !strcmp(state, "disabled");
	if (!ok)
		diag("sched_ext: state %s, switch_all %s, ops \"%s\"; expected %s",
		     state, all, ops,
		     on ? "enabled, 1, \"" SCX_NAME "\"" : "disabled");
	return ok;
}

/* ext.enabled of /proc/TID/sched: does sched_ext run @tid? -1 if unread. */
static int thread_scx(pid_t tid)
{
	static char buf[8192];
	char path[64], *p;
	long long v;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/sched", tid);
	r = read_file(path, buf, sizeof(buf));
	if (r < 0) {
		diag("%s: %s", path, err_str(r));
		return -1;
	}
	p = strstr(buf, "ext.enabled ");
	if (!p || !strchr(p, ':') || sscanf(strchr(p, ':') + 1, "%lld", &v) != 1) {
		diag("%s has no ext.enabled", path);
		return -1;
	}
	return v;
}

/* What a spin of scx_spin() showed. */
struct scx_spin {
	struct spin_samples ss;
	unsigned int samples;	/* of ss: boost.on read */
	uint32_t host_flags;	/* the area's, after the spin */
	int policy;		/* the thread's, after the spin */
	int scx;		/* its ext.enabled, after the spin */
	double secs;		/* the spin, from its start to its end */
	bool ok;		/* the KVM_RUNs ended as they should */
};

/*
 * The guest raises its flag and exits, then spins with it up in a KVM_RUN
 * on @w's thread that spin_sample() samples for BOOST_SPIN_MS and ends.
 */
static void scx_spin(struct worker *w, struct kvm_vcpu *vcpu,
		     struct scx_spin *sp)
{
	double t;

	sp->ok = boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	t = now();
	spin_start(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	sp->ok = spin_sample(w, vcpu, BOOST_SPIN_MS, 0, &sp->ss) && sp->ok;
	sp->secs = now() - t;
	sp->samples = sp->ss.on + sp->ss.off;
	sp->host_flags = boost_area(vcpu->vm)->host_flags;
	sp->policy = sched_getscheduler(w->tid);
	sp->scx = thread_scx(w->tid);
}

#define SCX_PHASE_MS		150	/* each phase of scx_switch_spin() */

/* @tid's boost.served_ns grown over @ms; *@ok false if it was not read. */
static uint64_t served_over(pid_t tid, int ms, bool *ok)
{
	struct boost_sched b0, b1;

	if (!boost_sched_get(tid, &b0)) {
		*ok = false;
		return 0;
	}
	usleep(ms * 1000);
	if (!boost_sched_get(tid, &b1)) {
		*ok = false;
		return 0;
	}
	return b1.served_ns - b0.served_ns;
}

/* What scx_switch_spin() saw: the time served in each phase. */
struct scx_switch {
	uint64_t fair_ns, ext_ns, back_ns;
	int load, unload;	/* pvsched-bpf's statuses */
	int scx;		/* ext.enabled of the thread under sched_ext */
	bool ok;		/* every sample read, the KVM_RUNs ended */
};

/*
 * The guest of @vcpu spins with its flag up on @w's thread, on CPU 1,
 * while scx_minimal is enabled and disabled again, so that the boosted
 * thread goes from the fair class to sched_ext and back in KVM_RUN: the
 * time served in SCX_PHASE_MS before, under sched_ext, and after.
 */
static void scx_switch_spin(struct worker *w, struct kvm_vcpu *vcpu,
			    struct scx_switch *sw)
{
	sw->ok = boost_run(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	if (!thread_pin(w->tid, 1) || !pin_to_cpu(0))
		diag("pinning: %s", strerror(errno));
	spin_start(w, vcpu, PVSCHED_GUEST_BOOST, 0);
	usleep(20 * 1000);
	sw->fair_ns = served_over(w->tid, SCX_PHASE_MS, &sw->ok);
	sw->load = bpf_tool_run("load", "scx");
	sw->scx = thread_scx(w->tid);
	sw->ext_ns = served_over(w->tid, SCX_PHASE_MS, &sw->ok);
	sw->unload = bpf_tool_run("unload", SCX_NAME);
	sw->back_ns = served_over(w->tid, SCX_PHASE_MS, &sw->ok);
	sw->ok = spin_release(w, vcpu) && sw->ok;
	thread_pin(w->tid, -1);
	unpin();
}

/*
 * 21. A sched_ext scheduler that switched all tasks runs the vCPU thread:
 * the guest that spins with its flag up gets its boost held but EXCLUDED,
 * the boost server runs it for nothing, and its thread stays SCHED_NORMAL,
 * never real-time, run by sched_ext to the end of the spin, which ends
 * (the scheduler still enabled: not kicked out by a stall). Before the
 * scheduler is enabled, and after it is disabled again, the same vCPU is
 * served (the controls). Enabled and disabled during a boosted spin, the
 * thread changes class in KVM_RUN: served, then nothing, then served
 * again. (Before the boost server, the boost made the thread SCHED_FIFO,
 * which sched_ext does not run: it was boosted.)
 */
TEST_F_TIMEOUT(boost, scx, TEST_SECONDS)
{
	struct scx_spin fair = {}, ext = {}, back = {};
	long seq0 = -1, seq1 = -1, seq = -1;
	struct scx_switch sw = {};
	struct kvm_vcpu *vcpu;
	struct worker *w;
	struct kvm_vm *vm;
	bool loaded;
	int r;

	NEED(need_scx);

	r = driver_listed(BOOST_DRV) ? 0 : boost_load();
	EXPECT_TRUE(!r && driver_listed(BOOST_DRV))
		TH_LOG("insmod %s: %s, %s listed", BOOST_KO, err_str(r),
		       BOOST_DRV);
	vm = vm_create();
	vcpu = boost_vcpu_add(vm);
	w = worker_create();
	r = pvsched_assign(vm, BOOST_DRV, NULL);
	EXPECT_TRUE(!area_set(vcpu, AREA_GPA, 0) && !r &&
		    vm_driver_is(vm, BOOST_DRV))
		TH_LOG("a VM with %s (%s), the vCPU's area registered",
		       BOOST_DRV, err_str(r));

	/* The control: sched_ext disabled, the thread a fair task. */
	EXPECT_TRUE(scx_is(false, &seq0))
		TH_LOG("sched_ext disabled (enable_seq %ld)", seq0);
	scx_spin(w, vcpu, &fair);
	EXPECT_TRUE(fair.ok && fair.ss.served_ns > 0 &&
		    (fair.host_flags & PVSCHED_HOST_BOOSTED) &&
		    !(fair.host_flags & PVSCHED_HOST_EXCLUDED))
		TH_LOG("without sched_ext, the guest spins with its flag up: the server runs the vCPU thread (%llu us), host_flags %#x (BOOSTED, not EXCLUDED)",
		       (unsigned long long)fair.ss.served_ns / 1000,
		       fair.host_flags);

	r = bpf_tool_run("load", "scx");
	loaded = !r && scx_is(true, &seq1);
	EXPECT_TRUE(loaded && seq1 == seq0 + 1 && thread_scx(w->tid) == 1 &&
		    thread_policy_is(w->tid, SCHED_OTHER))
		TH_LOG("pvsched-bpf load scx (status %d): sched_ext enabled with %s (enable_seq %ld), all tasks switched; the vCPU thread, SCHED_NORMAL, is run by it (ext.enabled)",
		       r, SCX_NAME, seq1);
	scx_spin(w, vcpu, &ext);
	diag("under %s: boost.on in %u of %u samples, served %llu ns, real-time in %u of %u, %s after, ext.enabled %d, the spin %.2f s",
	     SCX_NAME, ext.ss.on, ext.samples,
	     (unsigned long long)ext.ss.served_ns, ext.ss.rt, ext.ss.states,
	     policy_str(ext.policy), ext.scx, ext.secs);
	EXPECT_TRUE(loaded && ext.ok && ext.samples >= 10 &&
		    !ext.ss.served_ns &&
		    (ext.host_flags & PVSCHED_HOST_BOOSTED) &&
		    (ext.host_flags & PVSCHED_HOST_EXCLUDED))
		TH_LOG("under %s, the guest spins with its flag up: the boost is held (host_flags %#x: BOOSTED, EXCLUDED), the server runs it for nothing (%llu ns, %u samples)",
		       SCX_NAME, ext.host_flags,
		       (unsigned long long)ext.ss.served_ns, ext.samples);
	EXPECT_TRUE(loaded && ext.ok && ext.ss.states >= 10 && !ext.ss.rt &&
		    ext.policy == SCHED_OTHER && ext.scx == 1)
		TH_LOG("... its thread is never real-time (in %u of %u samples), SCHED_NORMAL after the spin (%s), run by sched_ext (ext.enabled %d)",
		       ext.ss.rt, ext.ss.states, policy_str(ext.policy), ext.scx);
	EXPECT_TRUE(loaded && ext.ok &&
		    ext.secs < BOOST_SPIN_MS / 1000.0 + BOOST_WAIT_SECONDS &&
		    scx_is(true, &seq) && seq == seq1)
		TH_LOG("nothing hangs: the spin ended after %.2f s (< %.1f), %s enabled all along (enable_seq %ld, %ld)",
		       ext.secs, BOOST_SPIN_MS / 1000.0 + BOOST_WAIT_SECONDS,
		       SCX_NAME, seq1, seq);

	r = bpf_tool_run("unload", SCX_NAME);
	EXPECT_TRUE(!r && scx_is(false, &seq) && thread_scx(w->tid) == 0)
		TH_LOG("pvsched-bpf unload %s (status %d): sched_ext disabled, the vCPU thread a fair task again (ext.enabled 0)",
		       SCX_NAME, r);
	scx_spin(w, vcpu, &back);
	EXPECT_TRUE(back.ok && back.ss.served_ns > 0 && !back.ss.rt &&
		    (back.host_flags & PVSCHED_HOST_BOOSTED) &&
		    !(back.host_flags & PVSCHED_HOST_EXCLUDED))
		TH_LOG("%s disabled, the guest spins with its flag up again: the server runs the same vCPU thread again (%llu us), host_flags %#x (BOOSTED, not EXCLUDED)",
		       SCX_NAME, (unsigned long long)back.ss.served_ns / 1000,
		       back.host_flags);

	/* The same, the scheduler enabled and disabled during the spin. */
	scx_switch_spin(w, vcpu, &sw);
	diag("%s enabled, then disabled during a boosted spin: served %llu, %llu, %llu us",
	     SCX_NAME, (unsigned long long)sw.fair_ns / 1000,
	     (unsigned long long)sw.ext_ns / 1000,
	     (unsigned long long)sw.back_ns / 1000);
	EXPECT_TRUE(sw.ok && sw.fair_ns > 0 && !sw.load && sw.scx == 1 &&
		    !sw.ext_ns)
		TH_LOG("the guest spins with its flag up, served (%llu us); %s enabled meanwhile (status %d): the thread goes to sched_ext in KVM_RUN (ext.enabled %d), served nothing more (%llu ns in %d ms)",
		       (unsigned long long)sw.fair_ns / 1000, SCX_NAME,
		       sw.load, sw.scx, (unsigned long long)sw.ext_ns,
		       SCX_PHASE_MS);
	EXPECT_TRUE(sw.ok && !sw.unload && sw.back_ns > 0 &&
		    scx_is(false, &seq))
		TH_LOG("... %s disabled, still in the spin (status %d): served again (%llu us), and the spin ends",
		       SCX_NAME, sw.unload,
		       (unsigned long long)sw.back_ns / 1000);
	EXPECT_TRUE(boost_run(w, vcpu, 0, 0) && !boost_area(vm)->host_flags)
		TH_LOG("the flag down");

	worker_destroy(w);
	vm_close(vm);
	r = boost_unload();
	EXPECT_TRUE(!r && !driver_listed(BOOST_DRV))
		TH_LOG("rmmod %s: %s, not listed any more", BOOST_DRV,
		       err_str(r));
}

/*
 * CONFIG_RT_GROUP_SCHED: a cgroup that is given no real-time runtime (in
 * 6.12 a new one, whose cpu.rt_runtime_us, cgroup v1's, is 0) gets no
 * precedence over real-time tasks, and none through the boost server.
 */
#define CGROUP_RT		CGROUP_ROOT "/pvsched_rt"

/*
 * Does a task in cgroup @dir become SCHED_FIFO? A child joins it and
 * tries: 0 if it did, else its errno (EPERM: a group that has no
 * real-time runtime), or -1 if it could not join.
 */
static int cgroup_fifo_probe(const char *dir)
{
	struct sched_param sp = { .sched_priority = 1 };
	char path[256];
	int status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		if (!file_put(path, "0"))
			_exit(255);
		_exit(sched_setscheduler(0, SCHED_FIFO, &sp) ? errno : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status) == 255 ? -1 : WEXITSTATUS(status);
}

/*
 * 22. With RT group scheduling, a VMM in a cgroup given no real-time
 * runtime (a new cgroup, where a task may not become SCHED_FIFO: EPERM),
 * whose guest spins with its flag up: the boost is held but EXCLUDED, the
 * server runs its vCPU thread for nothing, the thread is never real-time,
 * and the VM runs to the end of the spin. The same VMM in the root group
 * (the control) is served. Skipped on a kernel without RT group
 * scheduling, where the new cgroup takes a SCHED_FIFO task (make check's
 * kernels); make series-check boots a variant with it and runs this test
 * alone (kernel/scripts/series-check.sh).
 */
TEST_F_TIMEOUT(boost, rt_group, TEST_SECONDS)
{
	struct cgroup_result root = {}, rt = {};
	double limit = BOOST_SPIN_MS / 1000.0 + BOOST_WAIT_SECONDS;
	bool ok, ran;
	int probe, r;

	NEED(need_boost);

	ok = cgroup_make(CGROUP_RT, "max", "max");
	probe = ok ? cgroup_fifo_probe(CGROUP_RT) : -1;
	if (ok && !probe) {
		if (rmdir(CGROUP_RT))
			diag("rmdir %s: %s", CGROUP_RT, strerror(errno));
		SKIP(return, "no RT group scheduling: a task in a new cgroup becomes SCHED_FIFO (CONFIG_RT_GROUP_SCHED=n)");
	}
	EXPECT_TRUE(ok && probe == EPERM)
		TH_LOG("the new cgroup %s has no real-time runtime: a task in it may not become SCHED_FIFO (%s)",
		       CGROUP_RT, probe > 0 ? strerror(probe) : "could not join it");

	r = driver_listed(BOOST_DRV) ? 0 : boost_load();
	EXPECT_TRUE(!r && driver_listed(BOOST_DRV))
		TH_LOG("insmod %s: %s, %s listed", BOOST_KO, err_str(r),
		       BOOST_DRV);

	ran = cgroup_run(CGROUP_ROOT, BOOST_SPIN_MS, &root);
	EXPECT_TRUE(ran && root.served_ns > 0 && root.area.boosts == 1 &&
		    !(root.area.host_flags & PVSCHED_HOST_EXCLUDED))
		TH_LOG("a VMM in the root group, whose guest spins with its flag up: served (%llu us, boosts %u, host_flags %#x)",
		       (unsigned long long)root.served_ns / 1000,
		       root.area.boosts, root.area.host_flags);

	ran = ok && probe == EPERM && cgroup_run(CGROUP_RT, BOOST_SPIN_MS, &rt);
	diag("in %s: served %llu ns, %u samples, real-time in %u of %u, the spin %.2f s",
	     CGROUP_RT, (unsigned long long)rt.served_ns, rt.samples, rt.rt,
	     rt.states, rt.wall);
	EXPECT_TRUE(ran && rt.samples >= 10 && !rt.served_ns &&
		    rt.area.boosts == 1 &&
		    (rt.area.host_flags & PVSCHED_HOST_BOOSTED) &&
		    (rt.area.host_flags & PVSCHED_HOST_EXCLUDED))
		TH_LOG("a VMM in %s, whose guest spins with its flag up: the boost is held (boosts %u), EXCLUDED (host_flags %#x), never served (%llu ns, %u samples)",
		       CGROUP_RT, rt.area.boosts, rt.area.host_flags,
		       (unsigned long long)rt.served_ns, rt.samples);
	EXPECT_TRUE(ran && rt.states >= 10 && !rt.rt && rt.wall < limit)
		TH_LOG("... its vCPU thread never real-time (in %u of %u samples), and nothing hangs: the VM ran its spin to the end (%.2f s, < %.1f)",
		       rt.rt, rt.states, rt.wall, limit);

	if (rmdir(CGROUP_RT))
		diag("rmdir %s: %s", CGROUP_RT, strerror(errno));
	r = boost_unload();
	EXPECT_TRUE(!r && !driver_listed(BOOST_DRV))
		TH_LOG("rmmod %s: %s, not listed any more", BOOST_DRV,
		       err_str(r));
}

PVSCHED_TEST_HARNESS_MAIN
