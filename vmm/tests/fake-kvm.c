// SPDX-License-Identifier: GPL-2.0
/*
 * A fake /dev/kvm for running minivmm's main loop on the host without KVM.
 *
 * tests/minivmm-fake is minivmm linked with -Wl,--wrap= for open, ioctl,
 * mmap, munmap, close and fopen: opening /dev/kvm returns a /dev/null fd whose
 * ioctls this file answers; the real device is never opened. KVM_RUN plays
 * a guest chosen by $FAKE_KVM_GUEST, following the guest ABI (params
 * block, ucall and work ports) like the real payloads do:
 *
 *   io (default)  one work port write per KVM_RUN, then DONE
 *   cpuid         iterations handled "in the kernel", PROGRESS and DONE
 *   halt          one tick per KVM_RUN, params.timer_count ns long (the
 *                 APIC bus's 1 GHz); needs the irqchip and a count; with
 *                 $FAKE_KVM_DUP_IRQS=N, DUP_IRQS(N) before DONE, with
 *                 $FAKE_KVM_SHADOW_IRQS=N, SHADOW_IRQS(N)
 *   boost         like boost.S: AREA(its area's GPA, 0: none) first, then
 *                 per iteration: set PVSCHED_GUEST_BOOST, a work port write,
 *                 note HOST_BOOSTED, clear the flag, a tick as in halt;
 *                 with an area BOOST_SEEN(n) before DONE. Needs the irqchip,
 *                 a timer count and params.busy_loops
 *   irq           like irq.S: AREA as boost, with it PVSCHED_GUEST_BOOST_IRQ
 *                 raised if params.flags has MINIVMM_IRQ_BOOST_IRQ, then
 *                 one tick per iteration as in halt, halted unless
 *                 params.flags has MINIVMM_IRQ_SPIN; at each tick the
 *                 handler notes HOST_BOOSTED; with an area the flag
 *                 dropped and BOOST_SEEN(n) before DONE. Needs the irqchip
 *                 and a timer count
 *   latency       like latency.S: FAIL_BAD_PARAMS without params.period_tsc,
 *                 samples_gpa and samples_max, FAIL_NO_TSC_DEADLINE unless
 *                 KVM_SET_CPUID2 gave it CPUID.1:ECX bit 24; AREA as irq,
 *                 with it PVSCHED_GUEST_BOOST_IRQ raised for
 *                 MINIVMM_IRQ_BOOST_IRQ and PVSCHED_GUEST_BOOST for
 *                 MINIVMM_LAT_BOOST_HOLD (an exit: the driver sees it). Per
 *                 sample: PVSCHED_GUEST_BOOST raised for
 *                 MINIVMM_LAT_BOOST_WAIT, the WRMSR exit, a tick of
 *                 period_tsc (in ns of the TSC of KVM_GET_TSC_KHZ) as in
 *                 irq, sample i (from 0) (i + 1) * 1000 TSC ticks late,
 *                 stored while there is room, HOST_BOOSTED noted, the flag
 *                 dropped and the next exit. With an area: its flags
 *                 dropped, BOOST_SEEN(n) (an exit), then DONE
 *   hang          KVM_RUN creates the file ./running, sleeps until minivmm kicks it
 *   linux         a Linux guest (--kernel), see fake_linux() below
 *   shutdown      KVM_EXIT_SHUTDOWN
 *   fail          FAIL(exception #GP)
 *
 * Every guest but irq and latency wants params.flags 0, every guest but
 * latency params.period_tsc, samples_gpa and samples_max 0, and fails with
 * FAIL_BAD_PARAMS otherwise: minivmm gives the irq flags to the irq and
 * latency payloads only, the samples to latency only.
 *
 * KVM_GET_TSC_KHZ returns $FAKE_KVM_TSC_KHZ (default 2000000, 2 GHz).
 * $FAKE_KVM_NO_TSC_DEADLINE: KVM_CAP_TSC_DEADLINE_TIMER is 0.
 * $FAKE_KVM_NO_TSC_KHZ: KVM_CAP_GET_TSC_KHZ is 0.
 * sched_setscheduler() is never really called: it fails with errno
 * $FAKE_KVM_FIFO_ERRNO if set, else notes the thread's policy and priority.
 * $FAKE_KVM_WANT_FIFO=N: KVM_RUN on a thread that was not made SCHED_FIFO
 * at N before is a guest FAIL(FAKE_FAIL_NOT_FIFO).
 *
 * $FAKE_KVM_NO_PVSCHED: KVM_CAP_PVSCHED and KVM_CAP_PVSCHED_AREA are 0 and
 * the ioctls give ENOTTY.
 * $FAKE_KVM_ENOTTY: the cap is there but the VM ioctls give ENOTTY.
 * $FAKE_KVM_NO_AREA: KVM_CAP_PVSCHED_AREA is 0, KVM_SET_PVSCHED_AREA gives
 * ENOTTY.
 * $FAKE_KVM_AREA_ERRNO=N: KVM_SET_PVSCHED_AREA fails with errno N (on
 * vCPU $FAKE_KVM_AREA_VCPU only, if set). Otherwise it checks the address
 * as KVM does (flags 0, 64-byte aligned, in guest memory, not another
 * vCPU's: else EINVAL), writes version 1 (or $FAKE_KVM_AREA_VERSION) and
 * zeroes the host fields. Called from another thread than the one that
 * runs the vCPU (once one has), it fails with EDEADLK and a line
 * "fake-kvm: vcpuN: KVM_SET_PVSCHED_AREA from thread T, not the vCPU's
 * own (U)": the real ioctl would wait for the vCPU's mutex for as long as
 * the vCPU is in KVM_RUN. $FAKE_KVM_TRACE_AREA: a line "fake-kvm: vcpuN:
 * KVM_SET_PVSCHED_AREA 0xGPA: ok" (or the errno's name) for each call.
 * $FAKE_KVM_DRIVERS: contents of /proc/sys/kernel/pvsched_available_drivers;
 * REPLACE accepts "" and these names, except those in
 * $FAKE_KVM_EPERM_DRIVERS: EPERM, as for pvsched_boost without
 * CAP_SYS_NICE. When the VM's driver is pvsched_boost, a vCPU with an area
 * plays the driver's side in it: at each exit, a boost (boosts + 1,
 * HOST_BOOSTED) when the guest asks and is not boosted, else an unboost
 * when it no longer asks (unboosts + 1, boosted_ns + 1000). A tick that
 * wakes a halted vCPU is its WAKEUP: a boost if the guest raised
 * PVSCHED_GUEST_BOOST_IRQ, which the handler then sees and the next exit
 * ends (a spinning vCPU is never preempted here, so it gets no WAKEUP).
 * $FAKE_KVM_COUNT_STATS: pvsched_count's debugfs stats file has a line per
 * vCPU thread that ran, "tid=T register=1 unregister=0 vmenter=R
 * vmexit=R halt=H intr_inj=I wakeup=H" (R its KVM_RUNs, H the ticks that
 * woke it from a halt, I all its ticks), without " wakeup=H" if the value
 * is "old" (a kernel before WAKEUP); its reset file takes writes.
 * $FAKE_KVM_FAIL=NAME: the ioctl NAME (one of fake_ioctls[]) fails with
 * errno $FAKE_KVM_FAIL_ERRNO (default EIO), whatever the fd, so that tests
 * see how minivmm reports a failed KVM ioctl.
 * The linux guest: $FAKE_KVM_LINUX_END says how it ends, $FAKE_KVM_EXIT_STATUS
 * with which debug-exit status (see fake_linux()); with $FAKE_KVM_LINUX_PCI
 * its vCPU 0 probes PCI bus 0 as Linux does and prints what it found
 * (see fake_pci_probe()); KVM_SET_TSS_ADDR,
 * KVM_CREATE_PIT2 (after the irqchip) and KVM_IRQ_LINE are answered, the
 * latter with a line "fake-kvm: irq N level L" on stderr if
 * $FAKE_KVM_TRACE_IRQ is set.
 * $FAKE_KVM_LINUX_PVSCHED=msr: KVM_GET_SUPPORTED_CPUID also has leaf
 * 0x40000001 with KVM_FEATURE_PVSCHED, and the vCPUs that get it in their
 * CPUID register their areas with MSR_KVM_PVSCHED instead (see
 * fake_msr_bsp()): each WRMSR exits as KVM_EXIT_X86_WRMSR if minivmm set
 * the filter that sends it there (KVM_CAP_X86_USER_SPACE_MSR and
 * KVM_X86_SET_MSR_FILTER, each checked), else the fake takes it as KVM
 * would; KVM_SET_MSRS of MSR_KVM_PVSCHED checks the value as
 * KVM_SET_PVSCHED_AREA does, and the version (1). Once registered, a
 * vCPU asks PVSCHED_GUEST_BOOST with priority 10 + its index in its area;
 * with $FAKE_KVM_LINUX_PVSCHED=msr-unregister vCPU 0 writes 0 last, which
 * unregisters its area.
 * $FAKE_KVM_LINUX_REBOOTS=K: the linux guest reboots (OUT 0xfe to 0x64) at
 * the end of each of the first K VMs' boots, then ends as
 * $FAKE_KVM_LINUX_END says; with $FAKE_KVM_WANT_FIFO its vCPU 0 exits
 * with status 96 on a thread that is not SCHED_FIFO at that priority.
 * Each KVM_CREATE_VM starts a new VM: the old one's state (irqchip, PIT,
 * TSS, IRQ 4, the driver, back to "", the vCPUs, the MSR filter) is
 * gone, as in KVM; and the old VM must be gone from minivmm too: a
 * KVM_CREATE_VM with another /dev/kvm fd, a VM or vCPU fd still open,
 * the old guest memory still mapped or another thread than the caller
 * (but the console's writer, serial.h, which runs across VMs) fails
 * with EBUSY and a line "fake-kvm: KVM_CREATE_VM: ...".
 * $FAKE_KVM_TRACE_PVSCHED: print "fake-kvm: pvsched access: WHAT" on stderr
 * for each pvsched ioctl (KVM_CHECK_EXTENSION of KVM_CAP_PVSCHED_AREA
 * included) and each open of pvsched_count's debugfs files or of the
 * driver list (the stats file is the first thing the stats reading opens,
 * before any bpf(2) call), so tests can check that there was none.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kvm-abi.h"
#include "layout.h"
#include "pvsched.h"
#include "serial.h"
#include "stats.h"
#include "util.h"

int __real_open(const char *path, int flags, ...);
int __real_ioctl(int fd, unsigned long req, ...);
FILE *__real_fopen(const char *path, const char *mode);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off);
int __real_munmap(void *addr, size_t len);
int __real_close(int fd);
long __real_syscall(long nr, ...);

enum fake_kind { FAKE_NONE, FAKE_SYS, FAKE_VM, FAKE_VCPU };

struct fake_vcpu {
	unsigned int id;
	struct kvm_run *run;
	struct kvm_regs regs;
	unsigned long long n;		/* iterations done */
	unsigned long long next_progress;
	bool done;
	bool dups_sent;			/* halt: DUP_IRQS sent */
	bool shadow_sent;		/* halt: SHADOW_IRQS sent */
	__u64 area_gpa;			/* KVM_SET_PVSCHED_AREA, 0: none */
	__u64 guest_area;		/* boost, irq: the area the guest uses */
	bool area_sent;			/* boost, irq: AREA sent */
	bool in_burst;			/* boost: flag raised, work port written */
	bool seen_sent;			/* boost, irq: BOOST_SEEN sent */
	unsigned long long seen;	/* boost, irq: HOST_BOOSTED seen */
	pid_t tid;			/* of the thread in KVM_RUN */
	unsigned long long runs;	/* KVM_RUN calls */
	unsigned long long ticks;	/* timer interrupts taken */
	unsigned long long halts;	/* of them, woke it from a halt */
	__u32 cpuid_1_ecx;		/* KVM_SET_CPUID2 */
	struct kvm_sregs sregs;		/* KVM_SET_SREGS */
	bool sregs_set;
	__u32 mp_state;			/* KVM_SET_MP_STATE, ~0: none */
	unsigned int step;		/* linux: where it is */
	char text[2048];		/* linux: what it prints, from pos */
	size_t pos;
	unsigned long long echoed;	/* linux echo: bytes sent back */
	/* linux, $FAKE_KVM_LINUX_PVSCHED: the pvsched driver's state */
	unsigned int pv_state;		/* where it is */
	unsigned int pv_pc;		/* where its code resumes */
	__u32 pv_val;			/* the last value read */
	/* linux, $FAKE_KVM_LINUX_PCI: vCPU 0's probe of PCI bus 0 */
	bool pci_done;
	unsigned int pci_i;		/* a loop's index */
	__u32 pci_saved;		/* what it restores */
	bool pv_msr;			/* KVM_FEATURE_PVSCHED in its CPUID */
	__u32 msr_err[5];		/* $FAKE_KVM_LINUX_PVSCHED=msr: #GPs */
	char pv_fail[128];		/* the first check that failed */
	char pv_line[384];		/* the line it prints */
};

#define FAKE_MAX_FDS	1024
#define FAKE_RUN_SIZE	4096
#define MINIVMM_MAX_VCPUS_FAKE	64
#define FAKE_STATS_LINE	256
#define FAKE_TSC_KHZ	2000000
#define FAKE_FAIL_NOT_FIFO	0xf1f0

/* sched_setscheduler() calls: thread, policy, priority. */
static struct {
	pid_t tid;
	int policy;
	int prio;
} fifo[MINIVMM_MAX_VCPUS_FAKE];
static unsigned int nr_fifo;

static struct {
	enum fake_kind kind;
	struct fake_vcpu *vcpu;
} fds[FAKE_MAX_FDS];

static char *guest_mem;
static size_t guest_size;
static unsigned int nr_vms;	/* KVM_CREATE_VM calls that made one */
static bool irqchip;
static bool pit, tss;		/* KVM_CREATE_PIT2, KVM_SET_TSS_ADDR */
static int irq4 = -1;		/* the level of IRQ 4 (KVM_IRQ_LINE), -1: never set */
static char driver[PVSCHED_OPS_NAME_SIZE];
static struct fake_vcpu *vcpus[MINIVMM_MAX_VCPUS_FAKE];
/* KVM_CAP_X86_USER_SPACE_MSR enabled, MSR_KVM_PVSCHED writes filtered */
static bool msr_exits, msr_filtered;
/* linux, $FAKE_KVM_LINUX_PVSCHED: the vCPU whose turn it is to register */
static unsigned int pv_turn;

static void trace(const char *what)
{
	if (getenv("FAKE_KVM_TRACE_PVSCHED"))
		fprintf(stderr, "fake-kvm: pvsched access: %s\n", what);
}

static void trace_path(const char *path)
{
	if (!strncmp(path, PVSCHED_COUNT_DIR, strlen(PVSCHED_COUNT_DIR)) ||
	    !strcmp(path, PVSCHED_AVAILABLE_PATH))
		trace(path);
}

/* pvsched_count's stats, as $FAKE_KVM_COUNT_STATS says. */
static FILE *fake_count_stats(void)
{
	static char buf[MINIVMM_MAX_VCPUS_FAKE * FAKE_STATS_LINE];
	bool old = !strcmp(getenv("FAKE_KVM_COUNT_STATS"), "old");
	struct fake_vcpu *v;
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < MINIVMM_MAX_VCPUS_FAKE; i++) {
		v = vcpus[i];
		if (!v || !v->tid)
			continue;
		len += snprintf(buf + len, sizeof(buf) - len,
				"tid=%d register=1 unregister=0 vmenter=%llu vmexit=%llu halt=%llu intr_inj=%llu",
				(int)v->tid, v->runs, v->runs, v->halts,
				v->ticks);
		if (!old)
			len += snprintf(buf + len, sizeof(buf) - len,
					" wakeup=%llu", v->halts);
		len += snprintf(buf + len, sizeof(buf) - len, "\n");
	}
	if (!len)
		len = snprintf(buf, sizeof(buf), "\n");
	return fmemopen(buf, len, "r");
}

static int fake_fd(enum fake_kind kind)
{
	int fd = __real_open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd >= 0 && fd < FAKE_MAX_FDS)
		fds[fd].kind = kind;
	return fd;
}

int __wrap_open(const char *path, int flags, ...)
{
	const char *drivers = getenv("FAKE_KVM_DRIVERS");
	mode_t mode = 0;
	va_list ap;
	int fd;

	if (!strcmp(path, "/dev/kvm"))
		return fake_fd(FAKE_SYS);
	trace_path(path);
	if (!strcmp(path, PVSCHED_COUNT_RESET) &&
	    getenv("FAKE_KVM_COUNT_STATS"))
		return __real_open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (!strcmp(path, PVSCHED_AVAILABLE_PATH) && drivers) {
		fd = memfd_create("drivers", 0);
		if (write(fd, drivers, strlen(drivers)) < 0 ||
		    lseek(fd, 0, SEEK_SET))
			return -1;
		return fd;
	}
	va_start(ap, flags);
	if (flags & O_CREAT)
		mode = va_arg(ap, mode_t);
	va_end(ap);
	return __real_open(path, flags, mode);
}

FILE *__wrap_fopen(const char *path, const char *mode)
{
	trace_path(path);
	if (!strcmp(path, PVSCHED_COUNT_STATS) &&
	    getenv("FAKE_KVM_COUNT_STATS"))
		return fake_count_stats();
	return __real_fopen(path, mode);
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off)
{
	if (fd >= 0 && fd < FAKE_MAX_FDS && fds[fd].kind == FAKE_VCPU)
		return fds[fd].vcpu->run;
	return __real_mmap(addr, len, prot, flags, fd, off);
}

int __wrap_munmap(void *addr, size_t len)
{
	int fd;

	if (addr && addr == guest_mem) {
		guest_mem = NULL;
		guest_size = 0;
	}
	for (fd = 0; fd < FAKE_MAX_FDS; fd++) {
		if (fds[fd].kind == FAKE_VCPU && fds[fd].vcpu->run == addr)
			return 0;	/* leaked on purpose: tiny, test only */
	}
	return __real_munmap(addr, len);
}

int __wrap_close(int fd)
{
	if (fd >= 0 && fd < FAKE_MAX_FDS)
		fds[fd].kind = FAKE_NONE;
	return __real_close(fd);
}

static int fail(int err)
{
	errno = err;
	return -1;
}

/*
 * Sleep in KVM_RUN until minivmm kicks the vCPU out, then EINTR. Polls
 * kvm_run.immediate_exit, which minivmm sets before it sends the kick
 * signal: pause() would sleep for ever after a signal that came just
 * before it.
 */
static int fake_sleep_in_run(struct fake_vcpu *v)
{
	while (!__atomic_load_n(&v->run->immediate_exit, __ATOMIC_SEQ_CST))
		usleep(1000);
	return fail(EINTR);
}

/* Is @name one of the names in $@var? */
static bool fake_in_list(const char *var, const char *name)
{
	const char *list = getenv(var);
	char buf[512], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", list ? list : "");
	for (tok = strtok_r(buf, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		if (!strcmp(tok, name))
			return true;
	}
	return false;
}

static bool fake_known_driver(const char *name)
{
	return !*name || fake_in_list("FAKE_KVM_DRIVERS", name);
}

static bool fake_has_area_cap(void)
{
	trace("KVM_CHECK_EXTENSION(KVM_CAP_PVSCHED_AREA)");
	return !getenv("FAKE_KVM_NO_PVSCHED") && !getenv("FAKE_KVM_NO_AREA");
}

/* Is thread @tid the console's writer, which runs across VMs? */
static bool fake_console_thread(const char *tid)
{
	char path[320], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%s/comm", tid);
	f = __real_fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, SERIAL_CONSOLE_THREAD);
}

/* The process's threads but the console's writer. */
static unsigned int fake_nr_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.' && !fake_console_thread(e->d_name);
	if (d)
		closedir(d);
	return n;
}

/*
 * A new VM, with nothing of the last one: which minivmm must have
 * destroyed entirely (fds, memory, vCPU threads) before.
 */
static int fake_create_vm(void)
{
	unsigned int i, n[FAKE_VCPU + 1] = { 0 }, threads;
	unsigned int v;

	for (i = 0; i < FAKE_MAX_FDS; i++)
		n[fds[i].kind]++;
	threads = fake_nr_threads();
	if (n[FAKE_SYS] != 1 || n[FAKE_VM] || n[FAKE_VCPU] || guest_mem ||
	    threads != 1) {
		fprintf(stderr,
			"fake-kvm: KVM_CREATE_VM: the old VM is not gone: %u /dev/kvm fds, %u VM fds, %u vCPU fds open, guest memory %s, %u threads\n",
			n[FAKE_SYS], n[FAKE_VM], n[FAKE_VCPU],
			guest_mem ? "mapped" : "unmapped", threads);
		return fail(EBUSY);
	}
	irqchip = pit = tss = false;
	msr_exits = msr_filtered = false;
	irq4 = -1;
	memset(driver, 0, sizeof(driver));
	for (v = 0; v < MINIVMM_MAX_VCPUS_FAKE; v++)
		vcpus[v] = NULL;	/* leaked on purpose, as their runs */
	nr_fifo = 0;
	pv_turn = 0;
	nr_vms++;
	return fake_fd(FAKE_VM);
}

/*
 * $FAKE_KVM_LINUX_PVSCHED=msr (or msr-unregister): the guest registers
 * with MSR_KVM_PVSCHED.
 */
static bool fake_msr_mode(void)
{
	const char *pv = getenv("FAKE_KVM_LINUX_PVSCHED");

	return pv && (!strcmp(pv, "msr") || !strcmp(pv, "msr-unregister"));
}

static int fake_sys_ioctl(unsigned long req, unsigned long arg)
{
	struct kvm_cpuid2 *cpuid = (void *)arg;

	switch (req) {
	case KVM_GET_API_VERSION:
		return 12;
	case KVM_GET_VCPU_MMAP_SIZE:
		return FAKE_RUN_SIZE;
	case KVM_CHECK_EXTENSION:
		if (arg == KVM_CAP_PVSCHED)
			return !getenv("FAKE_KVM_NO_PVSCHED");
		if (arg == KVM_CAP_PVSCHED_AREA)
			return fake_has_area_cap();
		if (arg == KVM_CAP_TSC_DEADLINE_TIMER)
			return !getenv("FAKE_KVM_NO_TSC_DEADLINE");
		if (arg == KVM_CAP_GET_TSC_KHZ)
			return !getenv("FAKE_KVM_NO_TSC_KHZ");
		return arg == KVM_CAP_MAX_VCPUS ? 1024 : 1;
	case KVM_CREATE_VM:
		return fake_create_vm();
	case KVM_GET_SUPPORTED_CPUID:
		if (cpuid->nent < 3)
			return fail(E2BIG);
		cpuid->nent = fake_msr_mode() ? 3 : 2;
		memset(cpuid->entries, 0, 3 * sizeof(cpuid->entries[0]));
		cpuid->entries[1].function = 1;
		cpuid->entries[1].ebx = 0xff000800;
		cpuid->entries[2].function = KVM_CPUID_FEATURES_LEAF;
		cpuid->entries[2].eax = 1U << KVM_FEATURE_PVSCHED;
		return 0;
	}
	return fail(ENOTTY);
}

static int fake_pvsched(unsigned long req, struct kvm_pvsched_ops *ops)
{
	char name[PVSCHED_OPS_NAME_SIZE];

	trace(req == KVM_GET_PVSCHED_OPS ? "KVM_GET_PVSCHED_OPS" :
					   "KVM_REPLACE_PVSCHED_OPS");
	if (getenv("FAKE_KVM_NO_PVSCHED") || getenv("FAKE_KVM_ENOTTY"))
		return fail(ENOTTY);
	if (req == KVM_GET_PVSCHED_OPS) {
		memcpy(ops->ops_name, driver, sizeof(driver));
		return 0;
	}
	if (!memchr(ops->ops_name, 0, sizeof(ops->ops_name)))
		return fail(EINVAL);
	memcpy(name, ops->ops_name, sizeof(name));
	if (!fake_known_driver(name))
		return fail(EINVAL);
	if (fake_in_list("FAKE_KVM_EPERM_DRIVERS", name))
		return fail(EPERM);
	memcpy(ops->ops_name, driver, sizeof(driver));
	memcpy(driver, name, sizeof(driver));
	return 0;
}

/* $FAKE_KVM_TRACE_IRQ: a line per KVM_IRQ_LINE that changes nothing too. */
static int fake_irq_line(const struct kvm_irq_level *l)
{
	if (!irqchip)
		return fail(ENXIO);
	if (getenv("FAKE_KVM_TRACE_IRQ"))
		fprintf(stderr, "fake-kvm: irq %u level %u\n", l->irq, l->level);
	if (l->irq == 4)
		__atomic_store_n(&irq4, l->level, __ATOMIC_SEQ_CST);
	return 0;
}

/* KVM_CAP_X86_USER_SPACE_MSR, for the filter's exits only. */
static int fake_enable_cap(const struct kvm_enable_cap *cap)
{
	if (cap->cap != KVM_CAP_X86_USER_SPACE_MSR || cap->flags ||
	    cap->args[0] != KVM_MSR_EXIT_REASON_FILTER)
		return fail(EINVAL);
	msr_exits = true;
	return 0;
}

/* A filter that sends writes of MSR_KVM_PVSCHED, and nothing else, out. */
static int fake_msr_filter(const struct kvm_msr_filter *f)
{
	const struct kvm_msr_filter_range *r = &f->ranges[0];

	if (f->flags != KVM_MSR_FILTER_DEFAULT_ALLOW ||
	    r->flags != KVM_MSR_FILTER_WRITE || r->base != MSR_KVM_PVSCHED ||
	    r->nmsrs != 1 || !r->bitmap || (r->bitmap[0] & 1) ||
	    f->ranges[1].nmsrs)
		return fail(EINVAL);
	msr_filtered = true;
	return 0;
}

static int fake_vm_ioctl(unsigned long req, unsigned long arg)
{
	struct kvm_userspace_memory_region *r = (void *)arg;
	struct fake_vcpu *v;
	int fd;

	switch (req) {
	case KVM_CHECK_EXTENSION:
		if (arg == KVM_CAP_PVSCHED_AREA)
			return fake_has_area_cap();
		return fake_sys_ioctl(req, arg);
	case KVM_CREATE_IRQCHIP:
		irqchip = true;
		return 0;
	case KVM_SET_USER_MEMORY_REGION:
		guest_mem = (char *)(unsigned long)r->userspace_addr;
		guest_size = r->memory_size;
		return 0;
	case KVM_CREATE_VCPU:
		fd = fake_fd(FAKE_VCPU);
		v = calloc(1, sizeof(*v));
		v->id = arg;
		v->mp_state = ~0U;
		v->run = aligned_alloc(4096, FAKE_RUN_SIZE);
		memset(v->run, 0, FAKE_RUN_SIZE);
		fds[fd].vcpu = v;
		if (arg < MINIVMM_MAX_VCPUS_FAKE)
			vcpus[arg] = v;
		return fd;
	case KVM_GET_PVSCHED_OPS:
	case KVM_REPLACE_PVSCHED_OPS:
		return fake_pvsched(req, (void *)arg);
	case KVM_SET_TSS_ADDR:
		tss = arg == 0xfffbd000UL;
		return tss ? 0 : fail(EINVAL);
	case KVM_CREATE_PIT2:
		if (!irqchip)
			return fail(ENOENT);	/* as KVM: the irqchip first */
		pit = true;
		return 0;
	case KVM_IRQ_LINE:
		return fake_irq_line((void *)arg);
	case KVM_ENABLE_CAP:
		return fake_enable_cap((void *)arg);
	case KVM_X86_SET_MSR_FILTER:
		return fake_msr_filter((void *)arg);
	}
	return fail(ENOTTY);
}

static struct minivmm_params *params(void)
{
	return (void *)(guest_mem + MINIVMM_PARAMS_GPA);
}

/* The area registered for @v (the driver's side), NULL if none. */
static struct pvsched_vcpu_area *area(struct fake_vcpu *v)
{
	return v->area_gpa ? (void *)(guest_mem + v->area_gpa) : NULL;
}

/* The area the boost or irq guest found in the params block, NULL: none. */
static struct pvsched_vcpu_area *guest_area(struct fake_vcpu *v)
{
	return v->guest_area ? (void *)(guest_mem + v->guest_area) : NULL;
}

/* $FAKE_KVM_TRACE_AREA: a line per KVM_SET_PVSCHED_AREA and its result. */
static int fake_area_result(struct fake_vcpu *v,
			    const struct kvm_pvsched_area *a, int err)
{
	if (getenv("FAKE_KVM_TRACE_AREA"))
		fprintf(stderr, "fake-kvm: vcpu%u: KVM_SET_PVSCHED_AREA 0x%llx: %s\n",
			v->id, (unsigned long long)a->gpa,
			err ? errno_name(err) : "ok");
	return err ? fail(err) : 0;
}

/*
 * KVM_SET_PVSCHED_AREA, with KVM's checks. Once a thread has run the
 * vCPU (KVM_RUN), from any other thread it is a line on stderr and
 * EDEADLK: the real ioctl would wait for the vCPU's mutex while the
 * vCPU's thread sits in KVM_RUN.
 */
static int __fake_set_area(struct fake_vcpu *v,
			   const struct kvm_pvsched_area *a)
{
	const char *err = getenv("FAKE_KVM_AREA_ERRNO");
	const char *only = getenv("FAKE_KVM_AREA_VCPU");
	struct pvsched_vcpu_area *p;
	unsigned int i;

	trace("KVM_SET_PVSCHED_AREA");
	if (__atomic_load_n(&v->tid, __ATOMIC_RELAXED) &&
	    __atomic_load_n(&v->tid, __ATOMIC_RELAXED) != gettid()) {
		fprintf(stderr, "fake-kvm: vcpu%u: KVM_SET_PVSCHED_AREA from thread %d, not the vCPU's own (%d)\n",
			v->id, (int)gettid(), (int)v->tid);
		return fail(EDEADLK);
	}
	if (getenv("FAKE_KVM_NO_PVSCHED") || getenv("FAKE_KVM_NO_AREA"))
		return fail(ENOTTY);
	if (err && (!only || strtoul(only, NULL, 10) == v->id))
		return fail(atoi(err));
	/* No sum that can wrap: the guest chooses the GPA (the MSR). */
	if (a->flags || a->gpa % PVSCHED_AREA_SIZE || a->gpa > guest_size ||
	    guest_size - a->gpa < PVSCHED_AREA_SIZE)
		return fail(EINVAL);
	for (i = 0; a->gpa && i < MINIVMM_MAX_VCPUS_FAKE; i++) {
		if (vcpus[i] && vcpus[i] != v && vcpus[i]->area_gpa == a->gpa)
			return fail(EINVAL);
	}
	v->area_gpa = a->gpa;
	p = area(v);
	if (p && getenv("FAKE_KVM_AREA_VERSION")) {
		p->version = atoi(getenv("FAKE_KVM_AREA_VERSION"));
	} else if (p) {
		p->host_flags = 0;
		p->boosted_ns = 0;
		p->boosts = 0;
		p->throttles = 0;
		p->unboosts = 0;
		p->version = PVSCHED_AREA_VERSION;
	}
	return 0;
}

/* KVM_SET_PVSCHED_AREA, traced with $FAKE_KVM_TRACE_AREA. */
static int fake_set_area(struct fake_vcpu *v, const struct kvm_pvsched_area *a)
{
	int ret;

	ret = __fake_set_area(v, a);
	return fake_area_result(v, a, ret < 0 ? errno : 0);
}

/*
 * MSR_KVM_PVSCHED := @val on @v, as KVM does it for the guest and for
 * KVM_SET_MSRS: 0 unregisters, else version 1 and an area that
 * KVM_SET_PVSCHED_AREA would take. 1 if taken, 0 if refused, -1 and
 * errno for an ioctl that fails.
 */
static int fake_set_pvsched_msr(struct fake_vcpu *v, __u64 val)
{
	struct kvm_pvsched_area a = {
		.gpa = val & ~KVM_PVSCHED_VERSION_MASK,
	};

	if (val && ((val & KVM_PVSCHED_VERSION_MASK) != 1 || !a.gpa))
		return 0;
	if (__fake_set_area(v, &a) == 0)
		return 1;
	return errno == EINVAL ? 0 : -1;
}

/* KVM_SET_MSRS: MSR_KVM_PVSCHED only; the count of MSRs taken. */
static int fake_set_msrs(struct fake_vcpu *v, const struct kvm_msrs *m)
{
	if (m->nmsrs != 1 || m->entries[0].index != MSR_KVM_PVSCHED ||
	    !v->pv_msr)
		return fail(EINVAL);
	return fake_set_pvsched_msr(v, m->entries[0].data);
}

/* pvsched_boost's side of an exit, see the top of the file. */
static void fake_boost_event(struct fake_vcpu *v)
{
	struct pvsched_vcpu_area *a = area(v);
	bool want, boosted;

	if (!a || strcmp(driver, "pvsched_boost"))
		return;
	want = a->guest_flags & PVSCHED_GUEST_BOOST;
	boosted = a->host_flags & PVSCHED_HOST_BOOSTED;
	if (want && !boosted) {
		a->boosts++;
		a->host_flags |= PVSCHED_HOST_BOOSTED;
	} else if (!want && boosted) {
		a->unboosts++;
		a->boosted_ns += 1000;
		a->host_flags &= ~PVSCHED_HOST_BOOSTED;
	}
}

/* pvsched_boost's WAKEUP: a boost for a vCPU that raised BOOST_IRQ. */
static void fake_boost_wakeup(struct fake_vcpu *v)
{
	struct pvsched_vcpu_area *a = area(v);

	if (!a || strcmp(driver, "pvsched_boost"))
		return;
	if ((a->guest_flags & PVSCHED_GUEST_BOOST_IRQ) &&
	    !(a->host_flags & PVSCHED_HOST_BOOSTED)) {
		a->boosts++;
		a->host_flags |= PVSCHED_HOST_BOOSTED;
	}
}

/* The guest's OUT: a byte to the work port or a ucall block address. */
static int out(struct fake_vcpu *v, __u16 port, __u8 size, __u32 val)
{
	struct kvm_run *run = v->run;

	run->exit_reason = KVM_EXIT_IO;
	run->io.direction = KVM_EXIT_IO_OUT;
	run->io.port = port;
	run->io.size = size;
	run->io.count = 1;
	run->io.data_offset = 1024;
	memcpy((char *)run + 1024, &val, size);
	return 0;
}

static int ucall(struct fake_vcpu *v, __u64 cmd, __u64 arg)
{
	__u64 gpa = v->regs.rsp - 32;
	struct minivmm_ucall *uc = (void *)(guest_mem + gpa);

	uc->cmd = cmd;
	uc->arg = arg;
	return out(v, MINIVMM_UCALL_PORT, 4, gpa);
}

static bool finished(struct fake_vcpu *v)
{
	struct minivmm_params *p = params();

	if (p->iterations && v->n >= p->iterations)
		return true;
	return __atomic_load_n(&p->stop, __ATOMIC_SEQ_CST);
}

/*
 * DONE; for halt, $FAKE_KVM_DUP_IRQS as DUP_IRQS and $FAKE_KVM_SHADOW_IRQS
 * as SHADOW_IRQS first, like halt.S; for boost and irq with an area,
 * BOOST_SEEN first, irq dropping its flag.
 */
static int fake_done(struct fake_vcpu *v)
{
	const char *guest = getenv("FAKE_KVM_GUEST");
	const char *dups = getenv("FAKE_KVM_DUP_IRQS");
	const char *shadow = getenv("FAKE_KVM_SHADOW_IRQS");
	bool irq = guest && !strcmp(guest, "irq");
	bool lat = guest && !strcmp(guest, "latency");
	__u64 flags = params()->flags;

	if (guest && (irq || lat || !strcmp(guest, "boost")) &&
	    v->guest_area && !v->seen_sent) {
		if ((irq || lat) && (flags & MINIVMM_IRQ_BOOST_IRQ))
			guest_area(v)->guest_flags &= ~PVSCHED_GUEST_BOOST_IRQ;
		if (lat && (flags & (MINIVMM_LAT_BOOST_WAIT |
				     MINIVMM_LAT_BOOST_HOLD)))
			guest_area(v)->guest_flags &= ~PVSCHED_GUEST_BOOST;
		if (lat)
			fake_boost_event(v);
		v->seen_sent = true;
		return ucall(v, UCALL_BOOST_SEEN, v->seen);
	}
	if (guest && !strcmp(guest, "halt") && dups && !v->dups_sent) {
		v->dups_sent = true;
		return ucall(v, UCALL_DUP_IRQS, strtoull(dups, NULL, 10));
	}
	if (guest && !strcmp(guest, "halt") && shadow && !v->shadow_sent) {
		v->shadow_sent = true;
		return ucall(v, UCALL_SHADOW_IRQS, strtoull(shadow, NULL, 10));
	}
	return ucall(v, UCALL_DONE, v->n);
}

static int progress_or(struct fake_vcpu *v, int (*next)(struct fake_vcpu *))
{
	__u64 every = params()->progress_every;

	if (every && v->n >= v->next_progress + every) {
		v->next_progress += every;
		return ucall(v, UCALL_PROGRESS, v->n);
	}
	if (finished(v))
		return fake_done(v);
	return next(v);
}

static int step_io(struct fake_vcpu *v)
{
	return out(v, MINIVMM_WORK_PORT, 1, v->n++ & 0xff);
}

/* CPUIDs exit to KVM only: run up to 1000 of them per KVM_RUN. */
static int step_cpuid(struct fake_vcpu *v)
{
	while (!finished(v)) {
		if (++v->n % 1000 == 0)
			break;
	}
	return progress_or(v, step_cpuid);
}

static int step_halt(struct fake_vcpu *v)
{
	__u64 ns = params()->timer_count;
	struct timespec ts = {
		.tv_sec = ns / 1000000000,
		.tv_nsec = ns % 1000000000,
	};

	if (!irqchip)
		return fail(EINVAL);
	if (!ns)	/* as halt.S does */
		return ucall(v, UCALL_FAIL, FAIL_BAD_PARAMS);
	if (nanosleep(&ts, NULL))
		return fail(EINTR);
	v->ticks++;
	v->halts++;
	v->n++;
	return progress_or(v, step_halt);
}

/*
 * A tick @ns after the last, that wakes the vCPU from a halt if @halted;
 * -1 (errno set) if the guest cannot.
 */
static int tick_ns(struct fake_vcpu *v, bool halted, __u64 ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000,
		.tv_nsec = ns % 1000000000,
	};

	if (!irqchip)
		return fail(EINVAL);
	if (nanosleep(&ts, NULL))
		return fail(EINTR);
	v->ticks++;
	v->halts += halted;
	return 0;
}

/* A tick of params.timer_count ns, the LAPIC timer's period. */
static int tick(struct fake_vcpu *v, bool halted)
{
	return tick_ns(v, halted, params()->timer_count);
}

/* Raise the flag, write the work port: the driver sees the flag. */
static int step_boost(struct fake_vcpu *v)
{
	struct pvsched_vcpu_area *a = guest_area(v);

	if (a)
		a->guest_flags |= PVSCHED_GUEST_BOOST;
	v->in_burst = true;
	fake_boost_event(v);
	return out(v, MINIVMM_WORK_PORT, 1, v->n & 0xff);
}

/*
 * Back from the work port write: note HOST_BOOSTED, drop the flag, halt
 * (the driver unboosts), take the tick; then the next burst.
 */
static int run_boost(struct fake_vcpu *v)
{
	struct minivmm_params *p = params();
	struct pvsched_vcpu_area *a;

	if (!p->timer_count || !p->busy_loops)
		return ucall(v, UCALL_FAIL, FAIL_BAD_PARAMS);
	if (!v->area_sent) {
		v->area_sent = true;
		if (p->pvsched_area_gpa)
			v->guest_area = p->pvsched_area_gpa +
					PVSCHED_AREA_SIZE * v->id;
		a = guest_area(v);
		if (a && a->version != PVSCHED_AREA_VERSION)
			return ucall(v, UCALL_FAIL, FAIL_BAD_AREA);
		return ucall(v, UCALL_AREA, v->guest_area);
	}
	a = guest_area(v);
	if (v->in_burst) {
		if (a && (a->host_flags & PVSCHED_HOST_BOOSTED))
			v->seen++;
		if (a)
			a->guest_flags &= ~PVSCHED_GUEST_BOOST;
		fake_boost_event(v);
		if (tick(v, true))
			return -1;
		v->in_burst = false;
		v->n++;
	}
	return progress_or(v, step_boost);
}

/*
 * A tick as irq.S waits for it: halted, the tick is a WAKEUP; the handler
 * notes HOST_BOOSTED; the next exit (EOI, HLT) ends a boost for BOOST_IRQ.
 */
static int step_irq(struct fake_vcpu *v)
{
	struct pvsched_vcpu_area *a = guest_area(v);
	bool halted = !(params()->flags & MINIVMM_IRQ_SPIN);

	if (tick(v, halted))
		return -1;
	if (halted)
		fake_boost_wakeup(v);
	if (a && (a->host_flags & PVSCHED_HOST_BOOSTED))
		v->seen++;
	fake_boost_event(v);
	v->n++;
	return progress_or(v, step_irq);
}

/* AREA first, the flag raised with it if asked; then the ticks. */
static int run_irq(struct fake_vcpu *v)
{
	struct minivmm_params *p = params();
	struct pvsched_vcpu_area *a;

	if (!p->timer_count)
		return ucall(v, UCALL_FAIL, FAIL_BAD_PARAMS);
	if (v->area_sent)
		return progress_or(v, step_irq);
	v->area_sent = true;
	if (p->pvsched_area_gpa)
		v->guest_area = p->pvsched_area_gpa + PVSCHED_AREA_SIZE * v->id;
	a = guest_area(v);
	if (a && a->version != PVSCHED_AREA_VERSION)
		return ucall(v, UCALL_FAIL, FAIL_BAD_AREA);
	if (a && (p->flags & MINIVMM_IRQ_BOOST_IRQ))
		a->guest_flags |= PVSCHED_GUEST_BOOST_IRQ;
	return ucall(v, UCALL_AREA, v->guest_area);
}

static unsigned long long fake_tsc_khz(void)
{
	const char *khz = getenv("FAKE_KVM_TSC_KHZ");

	return khz ? strtoull(khz, NULL, 10) : FAKE_TSC_KHZ;
}

/* One sample of latency.S, see the top of the file. */
static int step_latency(struct fake_vcpu *v)
{
	struct minivmm_params *p = params();
	struct pvsched_vcpu_area *a = guest_area(v);
	bool halted = !(p->flags & MINIVMM_IRQ_SPIN);
	bool wait = (p->flags & MINIVMM_LAT_BOOST_WAIT) &&
		    !(p->flags & MINIVMM_LAT_BOOST_HOLD);
	__u32 *samples = (void *)(guest_mem + p->samples_gpa +
				  v->id * p->samples_max * sizeof(__u32));

	if (a && wait)
		a->guest_flags |= PVSCHED_GUEST_BOOST;
	fake_boost_event(v);
	if (tick_ns(v, halted, p->period_tsc * 1000000 / fake_tsc_khz()))
		return -1;
	if (halted)
		fake_boost_wakeup(v);
	if (v->n < p->samples_max)
		samples[v->n] = (v->n + 1) * 1000;
	if (a && (a->host_flags & PVSCHED_HOST_BOOSTED))
		v->seen++;
	if (a && wait)
		a->guest_flags &= ~PVSCHED_GUEST_BOOST;
	fake_boost_event(v);
	v->n++;
	return progress_or(v, step_latency);
}

/* The checks, AREA and the flags raised with it first; then samples. */
static int run_latency(struct fake_vcpu *v)
{
	struct minivmm_params *p = params();
	struct pvsched_vcpu_area *a;

	if (v->area_sent)
		return progress_or(v, step_latency);
	if (!p->period_tsc || !p->samples_gpa || !p->samples_max)
		return ucall(v, UCALL_FAIL, FAIL_BAD_PARAMS);
	if (!(v->cpuid_1_ecx & (1U << 24)))
		return ucall(v, UCALL_FAIL, FAIL_NO_TSC_DEADLINE);
	v->area_sent = true;
	if (p->pvsched_area_gpa)
		v->guest_area = p->pvsched_area_gpa + PVSCHED_AREA_SIZE * v->id;
	a = guest_area(v);
	if (a && a->version != PVSCHED_AREA_VERSION)
		return ucall(v, UCALL_FAIL, FAIL_BAD_AREA);
	if (a && (p->flags & MINIVMM_IRQ_BOOST_IRQ))
		a->guest_flags |= PVSCHED_GUEST_BOOST_IRQ;
	if (a && (p->flags & MINIVMM_LAT_BOOST_HOLD))
		a->guest_flags |= PVSCHED_GUEST_BOOST;
	fake_boost_event(v);
	return ucall(v, UCALL_AREA, v->guest_area);
}

/* An IN of @size bytes; they start as 0x5a, to see minivmm fill them. */
static int in_n(struct fake_vcpu *v, __u16 port, __u8 size)
{
	struct kvm_run *run = v->run;

	run->exit_reason = KVM_EXIT_IO;
	run->io.direction = KVM_EXIT_IO_IN;
	run->io.port = port;
	run->io.size = size;
	run->io.count = 1;
	run->io.data_offset = 1024;
	memset((__u8 *)run + 1024, 0x5a, 4);
	return 0;
}

static int in(struct fake_vcpu *v, __u16 port)
{
	return in_n(v, port, 1);
}

/* What the last IN gave. */
static __u8 in_data(struct fake_vcpu *v)
{
	return *((__u8 *)v->run + 1024);
}

static __u32 in_val(struct fake_vcpu *v)
{
	__u32 val = 0;

	memcpy(&val, (__u8 *)v->run + 1024, v->run->io.size);
	return val;
}

/* An MMIO exit; a read's bytes start as 0x5a. */
static int mmio(struct fake_vcpu *v, __u64 gpa, __u32 len, bool write,
		__u64 val)
{
	struct kvm_run *run = v->run;

	run->exit_reason = KVM_EXIT_MMIO;
	run->mmio.phys_addr = gpa;
	run->mmio.len = len;
	run->mmio.is_write = write;
	memset(run->mmio.data, 0x5a, sizeof(run->mmio.data));
	if (write)
		memcpy(run->mmio.data, &val, len);
	return 0;
}

/* What the last MMIO read gave. */
static __u64 mmio_val(struct fake_vcpu *v)
{
	__u64 val = 0;

	memcpy(&val, v->run->mmio.data, v->run->mmio.len);
	return val;
}

static unsigned int fake_nr_vcpus(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < MINIVMM_MAX_VCPUS_FAKE; i++)
		n += vcpus[i] != NULL;
	return n;
}

static __u8 sum(const void *p, size_t len)
{
	const __u8 *b = p;
	__u8 s = 0;

	while (len--)
		s += *b++;
	return s;
}

/*
 * What a kernel would find at boot, checked as it would use it: one line
 * for the console, "fake-linux: ..." with what it found, or "fake-linux:
 * bad boot: WHY" (and then the guest exits with status 99).
 */
static bool fake_linux_boot(struct fake_vcpu *v)
{
	const char *m = guest_mem;
	__u64 bp = v->regs.rsi, pref, rd, rd_size;
	__u32 cmd, mpc, n = 0, e820, i, cpus = 0;
	const char *why = NULL;
	char initrd[9] = "";

	if (bp + 4096 > guest_size || memcmp(m + bp + 0x202, "HdrS", 4)) {
		snprintf(v->text, sizeof(v->text),
			 "fake-linux: bad boot: no zero page at RSI %#llx\n",
			 (unsigned long long)bp);
		return false;
	}
	memcpy(&pref, m + bp + 0x258, 8);
	memcpy(&cmd, m + bp + 0x228, 4);
	memcpy(&rd, m + bp + 0x218, 4);
	rd &= 0xffffffff;
	memcpy(&rd_size, m + bp + 0x21c, 4);
	rd_size &= 0xffffffff;
	e820 = (__u8)m[bp + 0x1e8];
	if (!pit || !tss || !irqchip)
		why = "no PIT, TSS or irqchip";
	else if (v->regs.rip != pref + 0x200)
		why = "RIP is not startup_64";
	else if ((__u8)m[bp + 0x210] != 0xff)
		why = "type_of_loader is not 0xff";
	else if (!v->sregs_set || v->sregs.cs.selector != 0x10 ||
		 v->sregs.ds.selector != 0x18 || v->sregs.ss.selector != 0x18 ||
		 v->sregs.gdt.limit != 31 || (v->regs.rflags & (1 << 9)))
		why = "not __BOOT_CS/__BOOT_DS with interrupts off";
	else if (!(v->cpuid_1_ecx & (1U << 31)))
		why = "no CPUID hypervisor bit";
	else if (e820 != 3 || cmd >= guest_size)
		why = "bad e820 or command line";
	else if (memcmp(m + 0xf0000, "_MP_", 4) || sum(m + 0xf0000, 16))
		why = "no MP floating pointer at 0xf0000";
	if (why) {
		snprintf(v->text, sizeof(v->text),
			 "fake-linux: bad boot: %s\n", why);
		return false;
	}
	memcpy(&mpc, m + 0xf0004, 4);
	memcpy(&n, m + mpc + 34, 2);	/* entry count */
	n &= 0xffff;
	for (i = 0; i < n && m[mpc + 44 + 20 * i] == 0; i++)
		cpus++;
	for (i = 1; i < MINIVMM_MAX_VCPUS_FAKE; i++) {
		if (vcpus[i] && vcpus[i]->mp_state != KVM_MP_STATE_UNINITIALIZED)
			why = "an AP is not KVM_MP_STATE_UNINITIALIZED";
	}
	if (why || cpus != fake_nr_vcpus()) {
		snprintf(v->text, sizeof(v->text),
			 "fake-linux: bad boot: %s (%u MP processors, %u vCPUs)\n",
			 why ? why : "MP table", cpus, fake_nr_vcpus());
		return false;
	}
	if (rd_size)
		snprintf(initrd, sizeof(initrd), "%.8s", m + rd);
	snprintf(v->text, sizeof(v->text),
		 "fake-linux: cmdline='%s' cpus=%u initrd=%llu@%#llx:%s mem=%zu\n",
		 m + cmd, cpus, (unsigned long long)rd_size,
		 (unsigned long long)rd, initrd, guest_size >> 20);
	return true;
}

static int fake_linux_exit(struct fake_vcpu *v, __u8 status)
{
	return out(v, 0x501, 1, status);
}

/* vCPU i's area, in RAM the fake kernel does not use. */
#define FAKE_AREA(i)		(0x300000U + 64 * (i))
#define FAKE_FINISHED		1	/* fake_pci_probe() and the like: done */
#define FAKE_TURN_TIMEOUT_MS	10000

/*
 * The guest code below (the PCI probe, the pvsched guest driver) is
 * straight-line code that makes one exit per KVM_RUN: PT_EXIT() returns
 * from KVM_RUN with the exit set up, and the next KVM_RUN resumes right
 * after it (a switch on v->pv_pc, the way protothreads do it). Locals
 * do not survive an exit: what the code keeps lives in struct fake_vcpu.
 */
#define PT_BEGIN(v)		switch ((v)->pv_pc) { case 0:
#define PT_END(v)		}
#define __PT_EXIT(v, call, n)						\
	do {								\
		(v)->pv_pc = (n);					\
		return (call);						\
	case (n):;							\
	} while (0)
#define PT_EXIT(v, call)	__PT_EXIT(v, call, __COUNTER__ + 1)

/* The first check that failed, for the vCPU's line. */
static void __attribute__((format(printf, 3, 4)))
pv_check(struct fake_vcpu *v, bool good, const char *fmt, ...)
{
	va_list ap;

	if (good || v->pv_fail[0])
		return;
	va_start(ap, fmt);
	vsnprintf(v->pv_fail, sizeof(v->pv_fail), fmt, ap);
	va_end(ap);
}

/* A configuration access through 0xcf8/0xcfc, as pci_conf1_read(). */
#define FAKE_CFG_ADDR(bus, devfn, reg) \
	(0x80000000U | (bus) << 16 | (devfn) << 8 | ((reg) & 0xfc))
#define PT_CFG_RD(v, bus, devfn, reg, size)				\
	do {								\
		PT_EXIT(v, out(v, 0xcf8, 4,				\
			       FAKE_CFG_ADDR(bus, devfn, reg)));	\
		PT_EXIT(v, in_n(v, 0xcfc + ((reg) & 3), size));		\
		(v)->pv_val = in_val(v);				\
	} while (0)
#define PT_CFG_WR(v, bus, devfn, reg, size, val)			\
	do {								\
		PT_EXIT(v, out(v, 0xcf8, 4,				\
			       FAKE_CFG_ADDR(bus, devfn, reg)));	\
		PT_EXIT(v, out(v, 0xcfc + ((reg) & 3), size, val));	\
	} while (0)

/*
 * $FAKE_KVM_LINUX_PCI: vCPU 0, after its boot line, finds PCI bus 0 as
 * Linux does without ACPI or DMI (the steps are in vmm/pci.c's comment):
 * configuration mechanism #1, a host bridge at 00:00.0, the scan of
 * function 0 of each slot and the host bridge's header and BAR0 sizing;
 * then an MMIO read at 0xfebff000, below the IOAPIC, where no device
 * answers. The text to print: what it found, or the first check that
 * failed. FAKE_FINISHED once it is ready.
 */
static int fake_pci_probe(struct fake_vcpu *v)
{
	PT_BEGIN(v);
	/* arch/x86/pci/direct.c: pci_check_type1() */
	PT_EXIT(v, out(v, 0xcfb, 1, 0x01));
	PT_EXIT(v, in_n(v, 0xcf8, 4));
	v->pci_saved = in_val(v);
	PT_EXIT(v, out(v, 0xcf8, 4, 0x80000000));
	PT_EXIT(v, in_n(v, 0xcf8, 4));
	pv_check(v, in_val(v) == 0x80000000, "CONFIG_ADDRESS reads %#x",
		 in_val(v));
	/* pci_sanity_check(): a host bridge at 00:00.0 */
	PT_CFG_RD(v, 0, 0, 0x0a, 2);
	pv_check(v, v->pv_val == 0x0600, "00:00.0 class %#x", v->pv_val);
	PT_EXIT(v, out(v, 0xcf8, 4, v->pci_saved));
	/* pci_scan_slot(): function 0 of each slot of bus 0 */
	for (v->pci_i = 0; v->pci_i < 32; v->pci_i++) {
		PT_CFG_RD(v, 0, v->pci_i << 3, 0x00, 4);
		pv_check(v, v->pv_val == (v->pci_i ? 0xffffffff : 0x50551234),
			 "slot %u: IDs %#x", v->pci_i, v->pv_val);
	}
	PT_CFG_RD(v, 0, 1, 0x00, 4);
	pv_check(v, v->pv_val == 0xffffffff, "00:00.1 %#x", v->pv_val);
	PT_CFG_RD(v, 1, 0, 0x00, 4);
	pv_check(v, v->pv_val == 0xffffffff, "01:00.0 %#x", v->pv_val);
	/* pci_setup_device(), __pci_read_base() for the host bridge */
	PT_CFG_RD(v, 0, 0, 0x0e, 1);
	pv_check(v, v->pv_val == 0, "header type %#x", v->pv_val);
	PT_CFG_RD(v, 0, 0, 0x08, 4);
	pv_check(v, v->pv_val == 0x06000000, "class/revision %#x",
		 v->pv_val);
	PT_CFG_RD(v, 0, 0, 0x3d, 1);
	pv_check(v, v->pv_val == 0, "interrupt pin %#x", v->pv_val);
	PT_CFG_RD(v, 0, 0, 0x04, 2);
	pv_check(v, v->pv_val == 0, "command %#x", v->pv_val);
	PT_CFG_WR(v, 0, 0, 0x10, 4, 0xffffffff);
	PT_CFG_RD(v, 0, 0, 0x10, 4);
	pv_check(v, v->pv_val == 0, "BAR0 size mask %#x", v->pv_val);
	/* nothing decodes there */
	PT_EXIT(v, mmio(v, 0xfebff000, 4, false, 0));
	pv_check(v, mmio_val(v) == 0xffffffff, "MMIO at 0xfebff000: %#llx",
		 (unsigned long long)mmio_val(v));
	PT_END(v);
	v->pv_pc = 0;
	snprintf(v->text, sizeof(v->text),
		 "fake-linux: pci: a host bridge at 00:00.0, nothing else%s%s\n",
		 v->pv_fail[0] ? ", FAILED: " : "", v->pv_fail);
	v->pos = 0;
	v->pv_fail[0] = '\0';
	v->pci_done = true;
	return FAKE_FINISHED;
}

/*
 * Sleep in KVM_RUN until it is vCPU @turn's turn; false (errno EINTR)
 * if minivmm kicks the vCPU first, or after @timeout_ms if not 0.
 */
static bool pv_wait_turn(struct fake_vcpu *v, unsigned int turn,
			 unsigned int timeout_ms)
{
	unsigned int ms = 0;

	while (__atomic_load_n(&pv_turn, __ATOMIC_ACQUIRE) != turn) {
		if (__atomic_load_n(&v->run->immediate_exit,
				    __ATOMIC_SEQ_CST) ||
		    (timeout_ms && ms++ == timeout_ms)) {
			errno = EINTR;
			return false;
		}
		usleep(1000);
	}
	return true;
}

/*
 * $FAKE_KVM_LINUX_PVSCHED=msr: the guest driver's registration through
 * MSR_KVM_PVSCHED. A WRMSR is an exit to minivmm (KVM_EXIT_X86_WRMSR) if
 * minivmm filters the MSR, and the vCPU resumes with the msr.error that
 * minivmm set (0xff if it set none); else KVM takes it, and minivmm never
 * learns of it. v->pv_val: the #GP (1) or not (0).
 */
static int wrmsr_exit(struct fake_vcpu *v, __u64 val)
{
	v->run->exit_reason = KVM_EXIT_X86_WRMSR;
	v->run->msr.index = MSR_KVM_PVSCHED;
	v->run->msr.data = val;
	v->run->msr.reason = KVM_MSR_EXIT_REASON_FILTER;
	v->run->msr.error = 0xff;
	return 0;
}

#define MSR_WR(v, val)							\
	do {								\
		if (msr_exits && msr_filtered) {			\
			PT_EXIT(v, wrmsr_exit(v, val));		\
			(v)->pv_val = (v)->run->msr.error;		\
		} else {						\
			(v)->pv_val = fake_set_pvsched_msr(v, val) != 1; \
		}							\
	} while (0)

static const char *msr_result(__u32 err)
{
	if (err == ~0U)
		return "-";
	if (err > 1)
		return "no msr.error";
	return err ? "#GP" : "ok";
}

/* "fake-linux: vcpuN msr: ..." with what each write gave. */
static void msr_line(struct fake_vcpu *v)
{
	struct pvsched_vcpu_area *a = area(v);
	char unreg[32] = "";

	if (v->msr_err[4] != ~0U)
		snprintf(unreg, sizeof(unreg), ", unregistered %s",
			 msr_result(v->msr_err[4]));
	snprintf(v->pv_line, sizeof(v->pv_line),
		 "fake-linux: vcpu%u msr: bad version %s, unaligned %s, registered %s, another's %s, area version %u%s%s%s\n",
		 v->id, msr_result(v->msr_err[0]), msr_result(v->msr_err[1]),
		 msr_result(v->msr_err[2]), msr_result(v->msr_err[3]),
		 a ? a->version : 0, unreg, v->pv_fail[0] ? ", FAILED: " : "",
		 v->pv_fail);
}

/*
 * Once registered, what the guest driver would ask in its area (BOOST,
 * priority 10 + the vCPU's index): minivmm's report samples it.
 */
static void msr_ask(struct fake_vcpu *v)
{
	struct pvsched_vcpu_area *a = area(v);

	if (!a)
		return;
	a->guest_flags = PVSCHED_GUEST_BOOST;
	a->guest_prio = 10 + v->id;
}

/*
 * An AP: as vCPU 0 has registered, it registers its area with the MSR,
 * then idles (sleeps in KVM_RUN) until minivmm stops it.
 */
static int fake_msr_ap(struct fake_vcpu *v)
{
	if (v->pv_state == 0) {
		if (v->mp_state != KVM_MP_STATE_UNINITIALIZED)
			return fail(EINVAL);
		if (!pv_wait_turn(v, v->id, 0))
			return -1;
		memset(v->msr_err, 0xff, sizeof(v->msr_err));
		v->pv_state = 1;
	}
	if (v->pv_state == 1) {
		pv_check(v, v->pv_msr, "no KVM_FEATURE_PVSCHED");
		if (v->pv_msr) {
			PT_BEGIN(v);
			MSR_WR(v, FAKE_AREA(v->id) | 1);
			v->msr_err[2] = v->pv_val;
			msr_ask(v);
			PT_END(v);
		}
		v->pv_pc = 0;
		msr_line(v);
		v->pv_state = 2;
		__atomic_store_n(&pv_turn, v->id + 1, __ATOMIC_RELEASE);
	}
	return fake_sleep_in_run(v);
}

/*
 * vCPU 0, after its boot line: a version KVM does not know and an
 * unaligned area (#GP both), its own area, the APs' turns, then vCPU 1's
 * area (#GP); with msr-unregister, 0 last, which unregisters its own;
 * every vCPU's line to print. FAKE_FINISHED once the text is ready.
 */
static int fake_msr_bsp(struct fake_vcpu *v)
{
	unsigned int i, n = fake_nr_vcpus();
	size_t len;

	if (!v->pv_msr) {
		snprintf(v->text, sizeof(v->text),
			 "fake-linux: vcpu0 msr: no KVM_FEATURE_PVSCHED\n");
		v->pos = 0;
		v->pv_state = 4;
		return FAKE_FINISHED;
	}
	PT_BEGIN(v);
	memset(v->msr_err, 0xff, sizeof(v->msr_err));
	MSR_WR(v, FAKE_AREA(0) | 2);
	v->msr_err[0] = v->pv_val;
	MSR_WR(v, (FAKE_AREA(0) + 8) | 1);
	v->msr_err[1] = v->pv_val;
	MSR_WR(v, FAKE_AREA(0) | 1);
	v->msr_err[2] = v->pv_val;
	msr_ask(v);
	__atomic_store_n(&pv_turn, 1, __ATOMIC_RELEASE);
	if (!pv_wait_turn(v, n, FAKE_TURN_TIMEOUT_MS))
		pv_check(v, false, "the APs did not finish");
	if (n > 1) {
		MSR_WR(v, FAKE_AREA(1) | 1);
		v->msr_err[3] = v->pv_val;
	}
	if (!strcmp(getenv("FAKE_KVM_LINUX_PVSCHED"), "msr-unregister")) {
		MSR_WR(v, 0);
		v->msr_err[4] = v->pv_val;
	}
	PT_END(v);
	v->pv_pc = 0;
	msr_line(v);
	len = snprintf(v->text, sizeof(v->text), "%s", v->pv_line);
	for (i = 1; i < n && len < sizeof(v->text); i++)
		len += snprintf(v->text + len, sizeof(v->text) - len, "%s",
				vcpus[i]->pv_line);
	v->pos = 0;
	v->pv_state = 4;
	return FAKE_FINISHED;
}

/*
 * The steps of a Linux guest on vCPU 0, one exit per KVM_RUN:
 *   0     check the boot state, set text to the line to print
 *   1     print it: one OUT to THR per run (99 if the boot was bad)
 *   2..5  the THRE interrupt: IER = THRI raises IRQ 4, reading IIR
 *         (0x02) drops it, IER = 0 ("fake-linux: bad THRE" and status 98
 *         if not)
 *   6     the end, as $FAKE_KVM_LINUX_END says: "exit" (default: OUT
 *         $FAKE_KVM_EXIT_STATUS, default 0, to 0x501), "reboot" (OUT 0xfe
 *         to 0x64), "shutdown" (KVM_EXIT_SHUTDOWN), "hang" (sleep until
 *         minivmm kicks it), "echo" (with IER = RDI, poll LSR, read RBR, write
 *         each byte back until a 'q', then exit with the count of bytes
 *         echoed; IRQ 4 must be up whenever data is ready, else 97)
 *         $FAKE_KVM_LINUX_REBOOTS=K: a reboot first, in the first K VMs
 * With $FAKE_KVM_LINUX_PCI, before step 6: the probe of PCI bus 0
 * (fake_pci_probe()), and its line printed.
 * With $FAKE_KVM_LINUX_PVSCHED=msr, before step 6: the registrations
 * through MSR_KVM_PVSCHED (fake_msr_bsp()), and a line per vCPU printed.
 * The APs must be KVM_MP_STATE_UNINITIALIZED: they sleep in KVM_RUN, as
 * if no SIPI ever came; with $FAKE_KVM_LINUX_PVSCHED=msr, until vCPU 0
 * has registered its area (fake_msr_ap()).
 */
static int fake_linux(struct fake_vcpu *v)
{
	const char *end = getenv("FAKE_KVM_LINUX_END");
	const char *status = getenv("FAKE_KVM_EXIT_STATUS");
	const char *reboots = getenv("FAKE_KVM_LINUX_REBOOTS");
	bool msr = fake_msr_mode();
	bool pci = getenv("FAKE_KVM_LINUX_PCI");
	int ret;
	__u8 b;

	if (v->id && msr)
		return fake_msr_ap(v);
	if (v->id) {
		if (v->mp_state != KVM_MP_STATE_UNINITIALIZED)
			return fail(EINVAL);
		return fake_sleep_in_run(v);
	}
	switch (v->step) {
	case 0:
		v->step = fake_linux_boot(v) ? 1 : 100;
		/* fall through */
	case 1:
	case 100:
		if (v->text[v->pos])
			return out(v, 0x3f8, 1, v->text[v->pos++]);
		if (v->step == 100)
			return fake_linux_exit(v, 99);
		v->step = 2;
		return out(v, 0x3f9, 1, 0x02);	/* IER = THRI */
	case 2:
		v->step = 3;
		if (__atomic_load_n(&irq4, __ATOMIC_SEQ_CST) != 1)
			v->step = 101;
		return in(v, 0x3fa);		/* IIR */
	case 3:
		v->step = 4;
		if (in_data(v) != 0x02 ||
		    __atomic_load_n(&irq4, __ATOMIC_SEQ_CST) != 0)
			v->step = 101;
		return out(v, 0x3f9, 1, 0);
	case 101:
		snprintf(v->text, sizeof(v->text), "fake-linux: bad THRE\n");
		v->pos = 0;
		v->step = 102;
		/* fall through */
	case 102:
		if (v->text[v->pos])
			return out(v, 0x3f8, 1, v->text[v->pos++]);
		return fake_linux_exit(v, 98);
	}
	if (pci && !v->pci_done) {
		ret = fake_pci_probe(v);
		if (ret != FAKE_FINISHED)
			return ret;
	}
	if (v->text[v->pos])
		return out(v, 0x3f8, 1, v->text[v->pos++]);
	if (msr && v->pv_state < 4) {
		ret = fake_msr_bsp(v);
		if (ret != FAKE_FINISHED)
			return ret;
	}
	if (v->text[v->pos])
		return out(v, 0x3f8, 1, v->text[v->pos++]);
	if (reboots && nr_vms <= (unsigned int)atoi(reboots))
		return out(v, 0x64, 1, 0xfe);
	if (end && !strcmp(end, "reboot"))
		return out(v, 0x64, 1, 0xfe);
	if (end && !strcmp(end, "shutdown")) {
		v->run->exit_reason = KVM_EXIT_SHUTDOWN;
		return 0;
	}
	if (end && !strcmp(end, "hang")) {
		close(__real_open("running", O_WRONLY | O_CREAT, 0644));
		return fake_sleep_in_run(v);
	}
	if (end && !strcmp(end, "echo")) {
		switch (v->step) {
		case 4:
			v->step = 5;
			return out(v, 0x3f9, 1, 0x01);	/* IER = RDI */
		case 5:
			v->step = 6;
			return in(v, 0x3fd);		/* LSR */
		case 6:
			if (!(in_data(v) & 0x01)) {
				v->step = 6;
				usleep(1000);
				return in(v, 0x3fd);
			}
			if (__atomic_load_n(&irq4, __ATOMIC_SEQ_CST) != 1)
				return fake_linux_exit(v, 97);
			v->step = 7;
			return in(v, 0x3f8);		/* RBR */
		case 7:
			b = in_data(v);
			if (b == 'q')
				return fake_linux_exit(v, v->echoed);
			v->echoed++;
			v->step = 5;
			return out(v, 0x3f8, 1, b);
		}
	}
	return fake_linux_exit(v, status ? atoi(status) : 0);
}

/* $FAKE_KVM_WANT_FIFO: was this thread made SCHED_FIFO at that priority? */
static bool fake_fifo_ok(pid_t tid)
{
	const char *want = getenv("FAKE_KVM_WANT_FIFO");
	unsigned int i;

	if (!want)
		return true;
	for (i = 0; i < nr_fifo; i++) {
		if (fifo[i].tid == tid)
			return fifo[i].policy == SCHED_FIFO &&
			       fifo[i].prio == atoi(want);
	}
	return false;
}

static int fake_run(struct fake_vcpu *v)
{
	const char *guest = getenv("FAKE_KVM_GUEST");

	if (__atomic_load_n(&v->run->immediate_exit, __ATOMIC_SEQ_CST))
		return fail(EINTR);
	if (guest && !strcmp(guest, "linux")) {
		v->tid = gettid();
		v->runs++;
		if (!v->id && !fake_fifo_ok(v->tid))
			return fake_linux_exit(v, 96);
		return fake_linux(v);
	}
	if (v->regs.rip != MINIVMM_LOAD_GPA ||
	    params()->magic != MINIVMM_PARAMS_MAGIC)
		return fail(EFAULT);
	v->tid = gettid();
	v->runs++;
	guest = guest ? guest : "io";
	if (!fake_fifo_ok(v->tid))
		return ucall(v, UCALL_FAIL, FAKE_FAIL_NOT_FIFO);
	if (strcmp(guest, "irq") && strcmp(guest, "latency") &&
	    params()->flags)
		return ucall(v, UCALL_FAIL, FAIL_BAD_PARAMS);
	if (strcmp(guest, "latency") && (params()->period_tsc ||
					 params()->samples_gpa ||
					 params()->samples_max))
		return ucall(v, UCALL_FAIL, FAIL_BAD_PARAMS);
	if (!strcmp(guest, "hang")) {
		close(__real_open("running", O_WRONLY | O_CREAT, 0644));
		return fake_sleep_in_run(v);
	}
	if (!strcmp(guest, "shutdown")) {
		v->run->exit_reason = KVM_EXIT_SHUTDOWN;
		return 0;
	}
	if (!strcmp(guest, "fail"))
		return ucall(v, UCALL_FAIL, FAIL_EXCEPTION + 13);
	if (!strcmp(guest, "halt"))
		return progress_or(v, step_halt);
	if (!strcmp(guest, "cpuid"))
		return progress_or(v, step_cpuid);
	if (!strcmp(guest, "boost"))
		return run_boost(v);
	if (!strcmp(guest, "irq"))
		return run_irq(v);
	if (!strcmp(guest, "latency"))
		return run_latency(v);
	return progress_or(v, step_io);
}

/* Long mode as minivmm sets it up, or EINVAL like a picky KVM. */
static int fake_set_sregs(struct fake_vcpu *v, const struct kvm_sregs *s)
{
	if (!(s->cr0 & (1UL << 31)) || !(s->efer & (1UL << 10)) ||
	    !s->cs.l || s->cr3 != GUEST_PML4_GPA)
		return fail(EINVAL);
	v->sregs = *s;
	v->sregs_set = true;
	return 0;
}

static int fake_set_cpuid(struct fake_vcpu *v, const struct kvm_cpuid2 *c)
{
	if (c->nent != (fake_msr_mode() ? 3U : 2U) ||
	    c->entries[1].ebx >> 24 != v->id)
		return fail(EINVAL);
	v->cpuid_1_ecx = c->entries[1].ecx;
	v->pv_msr = c->nent == 3 &&
		    c->entries[2].function == KVM_CPUID_FEATURES_LEAF &&
		    (c->entries[2].eax & (1U << KVM_FEATURE_PVSCHED));
	return 0;
}

static int fake_vcpu_ioctl(struct fake_vcpu *v, unsigned long req,
			   unsigned long arg)
{
	switch (req) {
	case KVM_SET_CPUID2:
		return fake_set_cpuid(v, (void *)arg);
	case KVM_GET_SREGS:
		memset((void *)arg, 0, sizeof(struct kvm_sregs));
		return 0;
	case KVM_SET_SREGS:
		return fake_set_sregs(v, (void *)arg);
	case KVM_SET_REGS:
		memcpy(&v->regs, (void *)arg, sizeof(v->regs));
		return v->regs.rdi == v->id ? 0 : fail(EINVAL);
	case KVM_GET_REGS:
		memcpy((void *)arg, &v->regs, sizeof(v->regs));
		return 0;
	case KVM_SET_MP_STATE:
		v->mp_state = ((struct kvm_mp_state *)arg)->mp_state;
		return 0;
	case KVM_SET_PVSCHED_AREA:
		return fake_set_area(v, (void *)arg);
	case KVM_SET_MSRS:
		return fake_set_msrs(v, (void *)arg);
	case KVM_GET_TSC_KHZ:
		return fake_tsc_khz();
	case KVM_RUN:
		return fake_run(v);
	}
	return fail(ENOTTY);
}

/*
 * minivmm reads bpf_pvsched_count's maps with syscall(__NR_bpf, ...): keep
 * the tests off the host's bpf(2), as if no BPF driver were loaded.
 */
long __wrap_syscall(long nr, long a1, long a2, long a3, long a4, long a5,
		    long a6)
{
	if (nr == __NR_bpf) {
		errno = ENOENT;
		return -1;
	}
	return __real_syscall(nr, a1, a2, a3, a4, a5, a6);
}

/* --vcpu-fifo: note what minivmm asked for, never make a thread RT. */
int __wrap_sched_setscheduler(pid_t pid, int policy,
			      const struct sched_param *sp)
{
	const char *err = getenv("FAKE_KVM_FIFO_ERRNO");

	if (err)
		return fail(atoi(err));
	if (nr_fifo == MINIVMM_MAX_VCPUS_FAKE)
		return fail(ENOSPC);
	fifo[nr_fifo].tid = pid;
	fifo[nr_fifo].policy = policy;
	fifo[nr_fifo].prio = sp->sched_priority;
	nr_fifo++;
	return 0;
}

/* The ioctls that $FAKE_KVM_FAIL can name. */
static const struct {
	unsigned long req;
	const char *name;
} fake_ioctls[] = {
#define FAKE_IOCTL(cmd)	{ cmd, #cmd }
	FAKE_IOCTL(KVM_CREATE_VM),
	FAKE_IOCTL(KVM_GET_SUPPORTED_CPUID),
	FAKE_IOCTL(KVM_CREATE_IRQCHIP),
	FAKE_IOCTL(KVM_SET_USER_MEMORY_REGION),
	FAKE_IOCTL(KVM_CREATE_VCPU),
	FAKE_IOCTL(KVM_SET_CPUID2),
	FAKE_IOCTL(KVM_GET_SREGS),
	FAKE_IOCTL(KVM_SET_SREGS),
	FAKE_IOCTL(KVM_SET_REGS),
	FAKE_IOCTL(KVM_SET_MP_STATE),
	FAKE_IOCTL(KVM_RUN),
	FAKE_IOCTL(KVM_CREATE_PIT2),
	FAKE_IOCTL(KVM_SET_TSS_ADDR),
	FAKE_IOCTL(KVM_IRQ_LINE),
	FAKE_IOCTL(KVM_ENABLE_CAP),
	FAKE_IOCTL(KVM_X86_SET_MSR_FILTER),
	FAKE_IOCTL(KVM_SET_MSRS),
#undef FAKE_IOCTL
};

/* Does $FAKE_KVM_FAIL name @req? */
static bool fake_forced_failure(unsigned long req)
{
	const char *name = getenv("FAKE_KVM_FAIL");
	size_t i;

	for (i = 0; name && i < ARRAY_SIZE(fake_ioctls); i++) {
		if (fake_ioctls[i].req == req &&
		    !strcmp(fake_ioctls[i].name, name))
			return true;
	}
	return false;
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	const char *err = getenv("FAKE_KVM_FAIL_ERRNO");
	unsigned long arg;
	va_list ap;

	va_start(ap, req);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	if (fd < 0 || fd >= FAKE_MAX_FDS || fds[fd].kind == FAKE_NONE)
		return __real_ioctl(fd, req, arg);
	if (fake_forced_failure(req))
		return fail(err ? atoi(err) : EIO);
	switch (fds[fd].kind) {
	case FAKE_SYS:
		return fake_sys_ioctl(req, arg);
	case FAKE_VM:
		return fake_vm_ioctl(req, arg);
	default:
		return fake_vcpu_ioctl(fds[fd].vcpu, req, arg);
	}
}
