// SPDX-License-Identifier: GPL-2.0
/*
 * pvsched_util - what the in-VM pvsched test programs share; see
 * pvsched_util.h.
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
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/kvm.h>
#include <linux/types.h>

#include "../../kernel/bpf/pvsched_bpf_count.h"
#include "pvsched_util.h"

/* Messages, errors */

/* A "# " diagnostic line per line of the message, as KTAP has them. */
void diag(const char *fmt, ...)
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
	fflush(stdout);
}

/* "0" or "-EINVAL (Invalid argument)" for a 0/-errno result. */
const char *err_str(int r)
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

/*
 * A failed TEST_ASSERT(): in a harness test, the test fails (its process
 * exits with KSFT_FAIL); before the harness runs, the program does.
 */
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
	exit(1);	/* KSFT_FAIL */
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

const uint8_t guest_code[6] = {
	0xe6, GUEST_IO_PORT,	/* 1: out GUEST_IO_PORT, al */
	0xfe, 0xc0,		/*    inc al */
	0xeb, 0xfa,		/*    jmp 1b */
};

/* Read @path into @buf (NUL-terminated); bytes read or -errno. */
int read_file(const char *path, char *buf, size_t len)
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
/*
 * Capabilities are per thread: the raw capset(2) changes the caller's
 * only, not its process's other threads'. 0 or -errno.
 */
int thread_drop_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	if (syscall(__NR_capget, &hdr, data))
		return -errno;
	data[cap / 32].effective &= ~(1U << (cap % 32));
	data[cap / 32].permitted &= ~(1U << (cap % 32));
	return syscall(__NR_capset, &hdr, data) ? -errno : 0;
}

int write_file(const char *path, const void *buf, size_t len,
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
int write_file_at(const char *path, const void *buf, size_t len,
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

bool path_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* Is @name a word of the sysctl kernel.pvsched_available_drivers? */
bool driver_listed(const char *name)
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

void diag_drivers(void)
{
	char buf[1024];

	if (read_file(SYSCTL_DRIVERS, buf, sizeof(buf)) >= 0)
		diag("pvsched_available_drivers: %s", strtok(buf, "\n") ?: "");
}

struct kvm_vm;

int kvm_fd = -1;

int kvm_run_size;

char kvm_missing[256];	/* why KVM cannot be tested, "" if it can */

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

const char *exit_reason_str(unsigned int reason)
{
	if (reason < ARRAY_SIZE(exit_reason_names) &&
	    exit_reason_names[reason])
		return exit_reason_names[reason];
	return "unknown exit reason";
}

void kvm_init(void)
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
struct kvm_vm *__vm_create(void *mem)
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

struct kvm_vm *vm_create(void)
{
	return __vm_create(mmap(NULL, GUEST_MEM_SIZE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				-1, 0));
}

/*
 * Put @vcpu in real mode at GUEST_CODE_GPA with al = 0 (and bl, the
 * guest's counter of OUTs): its next OUT writes 0.
 */
void vcpu_regs_start(struct kvm_vcpu *vcpu)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	vcpu_ioctl(vcpu, KVM_GET_SREGS, &sregs);
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	vcpu_ioctl(vcpu, KVM_SET_SREGS, &sregs);
	memset(&regs, 0, sizeof(regs));
	regs.rip = GUEST_CODE_GPA;
	regs.rflags = 0x2;
	vcpu_ioctl(vcpu, KVM_SET_REGS, &regs);
	vcpu->next_out = 0;
}

/* A vCPU in real mode at GUEST_CODE_GPA with al = 0. */
struct kvm_vcpu *vcpu_add(struct kvm_vm *vm)
{
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
	vcpu_regs_start(vcpu);

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
void vcpu_kick(struct kvm_vcpu *vcpu, pthread_t thread)
{
	diag("vCPU %d: no exit to userspace for %d s, kicking its thread",
	     vcpu->id, STUCK_SECONDS);
	WRITE_ONCE(vcpu->kicked, true);
	pthread_kill(thread, SIGUSR1);
}

/* KVM_RUN; false if the vCPU was kicked out of it. */
bool vcpu_run(struct kvm_vcpu *vcpu)
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

void vcpu_bad_exit(struct kvm_vcpu *vcpu, const char *what)
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
bool vcpu_run_io(struct kvm_vcpu *vcpu)
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

bool vcpu_run_n(struct kvm_vcpu *vcpu, unsigned long n)
{
	while (n--) {
		if (!vcpu_run_io(vcpu)) {
			diag("%s", vcpu->err);
			return false;
		}
	}
	return true;
}

void vm_close(struct kvm_vm *vm)
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

void vm_debugfs_dir(struct kvm_vm *vm, char *buf, size_t len)
{
	snprintf(buf, len, DEBUGFS_KVM "/%d-%d", vm->creator, vm->fd);
}

void vm_debugfs_file(struct kvm_vm *vm, char *buf, size_t len)
{
	snprintf(buf, len, DEBUGFS_KVM "/%d-%d/pvsched_vcpu_ops", vm->creator,
		 vm->fd);
}

/* Raw KVM_GET_PVSCHED_OPS / KVM_REPLACE_PVSCHED_OPS: 0 or -errno. */
static int pvsched_get(struct kvm_vm *vm, void *arg)
{
	return __vm_ioctl(vm, KVM_GET_PVSCHED_OPS, arg) ? -errno : 0;
}

int pvsched_replace(struct kvm_vm *vm, void *arg)
{
	return __vm_ioctl(vm, KVM_REPLACE_PVSCHED_OPS, arg) ? -errno : 0;
}

/* @name, its NUL, then @junk up to the end of the buffer. */
void ops_fill(struct kvm_pvsched_ops *ops, const char *name, int junk)
{
	memset(ops, junk, sizeof(*ops));
	memcpy(ops->ops_name, name, strlen(name) + 1);
}

/* Is @ops exactly @name, zero-padded to 32 bytes ("" : 32 zero bytes)? */
bool ops_is(const struct kvm_pvsched_ops *ops, const char *name)
{
	struct kvm_pvsched_ops want;

	ops_fill(&want, name, 0);
	return !memcmp(ops, &want, sizeof(want));
}

const char *ops_str(const void *ops)
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

/* Assign @name; the previous name goes to @prev if not NULL. 0/-errno. */
int pvsched_assign(struct kvm_vm *vm, const char *name,
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

/* KVM_SET_PVSCHED_AREA: the vCPU's shared area at @gpa; 0/-errno. */
int area_set(struct kvm_vcpu *vcpu, __u64 gpa, __u64 flags)
{
	struct kvm_pvsched_area a = { .gpa = gpa, .flags = flags };

	return __vcpu_ioctl(vcpu, KVM_SET_PVSCHED_AREA, &a) ? -errno : 0;
}

/* Does KVM_GET_PVSCHED_OPS return exactly @name? */
bool vm_driver_is(struct kvm_vm *vm, const char *name)
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

struct count_driver mod_count = { COUNT_DRV, -1, -1 };

struct count_driver bpf_count = { PVSCHED_BPF_COUNT_NAME, -1, -1 };

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* Raw bpf(2) for the maps other than the counts: an fd or -1 (errno). */
int bpf_obj_get(const char *path)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uintptr_t)path;
	return sys_bpf(BPF_OBJ_GET, &attr);
}

/* 0 or -errno. */
int bpf_map_op(int cmd, int fd, const void *key, void *val)
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

/*
 * The counts of every task, with minivmm's reader (vmm/stats.c,
 * vmm/bpf-map.c): pvsched_count's debugfs file, or bpf_pvsched_count's
 * maps through the fds that @d keeps open.
 */
bool counts_read(const struct count_driver *d, struct counts *c)
{
	struct tid_stats ts[MAX_TASKS];
	const char *what;
	int i, r;

	if (d->map_fd >= 0) {
		r = stats__read_bpf_all(d->slots_fd, d->map_fd, ts, MAX_TASKS);
		what = "the BPF counts maps";
	} else {
		r = stats__read_count_all(COUNT_STATS, ts, MAX_TASKS);
		what = COUNT_STATS;
	}
	c->nr = 0;
	if (r < 0) {
		diag("%s: %s%s", what, err_str(r),
		     r == -E2BIG ? ": more than MAX_TASKS tasks" : "");
		return false;
	}
	for (i = 0; i < r; i++) {
		const struct pvsched_counts *v = &ts[i].counts;

		c->t[i] = (struct task_counts) {
			.tid = ts[i].tid, .reg = v->reg, .unreg = v->unreg,
			.vmenter = v->vmenter, .vmexit = v->vmexit,
			.halt = v->halt, .intr_inj = v->intr_inj,
		};
	}
	c->nr = r;
	return true;
}

bool counts_reset(const struct count_driver *d)
{
	int r;

	if (d->map_fd >= 0)
		r = stats__reset_bpf(d->slots_fd, d->map_fd);
	else
		r = stats__reset_count(COUNT_RESET);
	if (r)
		diag("reset the %s counts: %s", d->name, err_str(r));
	return !r;
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

/*
 * Does @tid have @reg registers, @unreg unregisters, as many VMEXITs as
 * VMENTERs and at least @min_enter VMENTERs? Shows its counts if not.
 */
bool task_is(const struct count_driver *d, pid_t tid, long long reg,
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
struct task_counts task_get(const struct count_driver *d, pid_t tid)
{
	struct task_counts none = { tid, -1, -1, -1, -1, -1, -1 };
	const struct task_counts *t;
	struct counts c;

	if (!counts_read(d, &c))
		return none;
	t = counts_find(&c, tid);
	return t ? *t : none;
}

bool task_same(const struct task_counts *a,
	       const struct task_counts *b)
{
	if (!memcmp(a, b, sizeof(*a)))
		return true;
	diag_task("before", a);
	diag_task("after ", b);
	return false;
}

int counts_nr(const struct count_driver *d)
{
	struct counts c;

	if (!counts_read(d, &c))
		return -1;
	return c.nr;
}

bool count_ko_present;

char bpf_tool[256];	/* path of pvsched-bpf, "" if missing */

int module_unload(void)
{
	return syscall(__NR_delete_module, COUNT_DRV, O_NONBLOCK) ? -errno : 0;
}

int module_load(void)
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

const char *need_count(void)
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
int bpf_tool_run_out(const char *cmd, const char *arg, char *out,
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

int bpf_tool_run(const char *cmd, const char *arg)
{
	char out[4096];

	return bpf_tool_run_out(cmd, arg, out, sizeof(out));
}

const char *need_bpf(void)
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
int test_drv_load(const char *kind, bool keep)
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

const char *need_test_drv(void)
{
	if (need_count())
		return need_count();
	return path_exists(TEST_DRV_KO) ? NULL : TEST_DRV_KO " missing";
}

int test_drv_unload(void)
{
	return syscall(__NR_delete_module, TEST_DRV_MOD, O_NONBLOCK) ? -errno : 0;
}

bool strict_read(struct strict_stats *st)
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
bool strict_clean(bool reg_eq_unreg)
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

const char *need_strict(void)
{
	if (need_test_drv())
		return need_test_drv();
	if (!driver_listed(STRICT_DRV) && test_drv_load("strict", true))
		return "pvsched_test_drv kind=strict does not load";
	return NULL;
}

/*
 * Random choices of the race tests: each test's seed is the run's
 * (PVSCHED_TEST_SEED, else from the clock) mixed with the test's name and
 * printed, so that a failing run's choices can be made again (the timing
 * of the threads, of course, differs).
 */
unsigned int run_seed;

unsigned int test_seed(const char *name)
{
	unsigned int seed = run_seed;
	const char *c;

	for (c = name; *c; c++)
		seed = seed * 31 + (unsigned char)*c;
	diag("%s: random seed %u (PVSCHED_TEST_SEED=%u replays it)",
	     name, seed, run_seed);
	return seed;
}

void count_driver_close(struct count_driver *d)
{
	if (d->map_fd >= 0)
		close(d->map_fd);
	if (d->slots_fd >= 0)
		close(d->slots_fd);
	d->map_fd = -1;
	d->slots_fd = -1;
}

/* Move @from's map fds to @to: @to reads the instance @from had. */
void count_driver_take(struct count_driver *to,
		       struct count_driver *from)
{
	count_driver_close(to);
	to->map_fd = from->map_fd;
	to->slots_fd = from->slots_fd;
	from->map_fd = -1;
	from->slots_fd = -1;
}

/* Load bpf_pvsched_count and open its two count maps into bpf_count. */
bool bpf_count_load(void)
{
	int r;

	if (bpf_tool_run("load", "count"))
		return false;
	count_driver_close(&bpf_count);
	r = stats__bpf_open(PVSCHED_BPF_COUNT_SLOTS_MAP, PVSCHED_BPF_COUNT_MAP,
			    true, &bpf_count.slots_fd, &bpf_count.map_fd);
	if (r)
		diag("%s, %s: %s", PVSCHED_BPF_COUNT_SLOTS_MAP,
		     PVSCHED_BPF_COUNT_MAP, err_str(r));
	return !r;
}

/* Unload bpf_pvsched_count; keeps its map fds unless @close_map. */
bool bpf_count_unload(bool close_map)
{
	if (close_map)
		count_driver_close(&bpf_count);
	return !bpf_tool_run("unload", PVSCHED_BPF_COUNT_NAME);
}

void *worker_fn(void *arg)
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

struct worker *worker_create(void)
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

void worker_start(struct worker *w, enum worker_cmd cmd,
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
bool worker_wait(struct worker *w)
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
bool worker_run(struct worker *w, struct kvm_vcpu *vcpu,
		unsigned long nr)
{
	worker_start(w, WORKER_RUN, vcpu, nr);
	return worker_wait(w);
}

/* Run @vcpu until worker_stop(). */
void worker_loop(struct worker *w, struct kvm_vcpu *vcpu)
{
	worker_start(w, WORKER_LOOP, vcpu, 0);
}

bool worker_stop(struct worker *w)
{
	WRITE_ONCE(w->stop, true);
	return worker_wait(w);
}

void worker_destroy(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->cmd = WORKER_EXIT;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	free(w);
}

/* Wait until @vcpu did @n more KVM_RUNs than @base (a worker loops on it). */
bool vcpu_wait_runs(struct kvm_vcpu *vcpu, unsigned long base,
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

/* "jmp $": a guest that never exits on its own. */
const uint8_t guest_spin[2] = { 0xeb, 0xfe };

bool count_summary(struct count_summary *cs)
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
long long count_stray(void)
{
	struct count_summary cs;

	return count_summary(&cs) ? cs.stray : -1;
}

bool pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return !sched_setaffinity(0, sizeof(set), &set);
}

void unpin(void)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Is @cpu listed in /sys/devices/system/cpu/nohz_full ("1", "1-3,5")? */
bool cpu_is_nohz_full(int cpu)
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

void irq_snap(int cpu, struct irq_snap *s)
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
void irq_diag(int cpu, const struct irq_snap *a,
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

void *spinner_fn(void *arg)
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
bool spinner_start(struct spinner *s, const char *drv)
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
bool spinner_stop(struct spinner *s)
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
bool spinner_quiet(struct spinner *s, int ms)
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

void pvsched_test_init(void)
{
	struct sigaction sa;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* No SA_RESTART: the watchdog's signal interrupts KVM_RUN. */
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = kick_handler;
	sa.sa_flags = 0;
	sigaction(SIGUSR1, &sa, NULL);
	if (getenv("PVSCHED_TEST_SEED"))
		run_seed = strtoul(getenv("PVSCHED_TEST_SEED"), NULL, 0);
	else
		run_seed = time(NULL) ^ getpid();
	diag("random seed %u: PVSCHED_TEST_SEED=%u repeats the races' choices",
	     run_seed, run_seed);
	kvm_init();
	setup_drivers();
	diag_drivers();
}

void pvsched_test_exit(void)
{
	if (bpf_tool[0] && driver_listed(PVSCHED_BPF_COUNT_NAME))
		bpf_tool_run("unload", PVSCHED_BPF_COUNT_NAME);
}
