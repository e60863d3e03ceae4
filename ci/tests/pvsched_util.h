/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvsched_util - what the in-VM pvsched test programs (pvsched_*_test.c)
 * share: a small KVM layer with a real-mode guest, the pvsched ioctls, the
 * drivers they load (the pvsched_count and pvsched_test_drv modules, the
 * BPF drivers through pvsched-bpf), the counts those drivers keep (read
 * with minivmm's own reader, vmm/stats.c and vmm/bpf-map.c), worker
 * threads that run vCPUs, and a vCPU that spins in guest mode.
 *
 * The tests themselves are kselftest_harness.h tests: a helper that checks
 * something takes the harness's struct __test_metadata *_metadata first.
 * The functions here report failures as "# " diagnostics and a false or
 * -errno result; TEST_ASSERT() ends the test (or the program, before the
 * harness runs) on a failure of the test itself, not of the ABI under test.
 *
 * The guest is six bytes of real-mode code, "1: out 0x10, al; inc al;
 * jmp 1b", so every KVM_RUN returns with KVM_EXIT_IO and the value written
 * tells whether the guest ran each iteration exactly once. The x86 KVM
 * selftests' VMs (kvm_util) always create the in-kernel irqchip and enter
 * long mode, which the exact VMENTER/VMEXIT and interrupt accounting here
 * cannot have.
 *
 * A vCPU that does not come back from KVM_RUN for STUCK_SECONDS is kicked
 * out with a signal and reported as a failure, with its RIP: nested SVM
 * under multi-threaded QEMU TCG has been seen to corrupt the guest state
 * (L2 RIP = the L1 instruction after VMRUN) and livelock it.
 */
#ifndef PVSCHED_UTIL_H
#define PVSCHED_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <linux/kvm.h>
#include <linux/types.h>

#include "../../vmm/stats.h"
#include "pvsched_abi.h"

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
#define BPF_BOOST_DRV		"bpf_pvsched_boost"
#define BPF_NOFLAG_DRV		"bpf_pvsched_noflag"

#define SYSCTL_DRIVERS		"/proc/sys/kernel/pvsched_available_drivers"
#define DEBUGFS_KVM		"/sys/kernel/debug/kvm"
#define COUNT_STATS		PVSCHED_COUNT_STATS
#define COUNT_RESET		PVSCHED_COUNT_RESET
#define COUNT_SUMMARY		PVSCHED_COUNT_DIR "/summary"
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

/* A vCPU without an exit to userspace for this long is kicked out. */
#define STUCK_SECONDS		15

/* The harness's time limit of a test that is not a race (the longest: 10 s). */
#define TEST_SECONDS		300

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef __printf
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#endif
#ifndef __noreturn
#define __noreturn		__attribute__((noreturn))
#endif
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, val)	__atomic_store_n(&(x), (val), __ATOMIC_RELAXED)

/* Messages, errors */

__printf(1, 2) void diag(const char *fmt, ...);
const char *err_str(int r);
double now(void);

/* Fatal errors of the test itself (setup, not the ABI under test). */
#define TEST_ASSERT(cond, fmt, ...) do {				\
	if (!(cond))							\
		test_assert_fail(__FILE__, __LINE__, #cond, errno,	\
				 fmt, ##__VA_ARGS__);			\
} while (0)

__printf(5, 6) __noreturn
void test_assert_fail(const char *file, int line, const char *expr, int err,
		      const char *fmt, ...);

/* Skip the test, from a harness test, if @need() says what is missing. */
#define NEED(need) do {							\
	const char *__why = need();					\
	if (__why)							\
		SKIP(return, "%s", __why);				\
} while (0)

/* Drop @cap from the calling thread's effective and permitted sets. */
int thread_drop_cap(int cap);
/* Files */

int read_file(const char *path, char *buf, size_t len);
int write_file(const char *path, const void *buf, size_t len, off_t off);
int write_file_at(const char *path, const void *buf, size_t len, off_t off);
bool path_exists(const char *path);
bool driver_listed(const char *name);
void diag_drivers(void);

/* KVM: a VM with one memslot and the real-mode guest, up to 4 vCPUs */

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

extern int kvm_fd;
extern int kvm_run_size;
extern char kvm_missing[256];	/* why KVM cannot be tested, "" if it can */
extern const uint8_t guest_code[6];

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

const char *exit_reason_str(unsigned int reason);
void kvm_init(void);
struct kvm_vm *__vm_create(void *mem);
struct kvm_vm *vm_create(void);
struct kvm_vcpu *vcpu_add(struct kvm_vm *vm);
void vcpu_regs_start(struct kvm_vcpu *vcpu);
void vcpu_kick(struct kvm_vcpu *vcpu, pthread_t thread);
bool vcpu_run(struct kvm_vcpu *vcpu);
void vcpu_bad_exit(struct kvm_vcpu *vcpu, const char *what);
bool vcpu_run_io(struct kvm_vcpu *vcpu);
bool vcpu_run_n(struct kvm_vcpu *vcpu, unsigned long n);
void vm_close(struct kvm_vm *vm);
void vm_debugfs_dir(struct kvm_vm *vm, char *buf, size_t len);
void vm_debugfs_file(struct kvm_vm *vm, char *buf, size_t len);

/* The pvsched ioctls */

#define AREA_GPA		0x3000UL	/* vCPU 0's shared area, in slot 0 */

int area_set(struct kvm_vcpu *vcpu, __u64 gpa, __u64 flags);

int pvsched_replace(struct kvm_vm *vm, void *arg);
void ops_fill(struct kvm_pvsched_ops *ops, const char *name, int junk);
bool ops_is(const struct kvm_pvsched_ops *ops, const char *name);
const char *ops_str(const void *ops);
int pvsched_assign(struct kvm_vm *vm, const char *name,
		   struct kvm_pvsched_ops *prev);
bool vm_driver_is(struct kvm_vm *vm, const char *name);

/* Callback counts: pvsched_count's debugfs, bpf_pvsched_count's map */

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

extern struct count_driver mod_count;
extern struct count_driver bpf_count;

int bpf_obj_get(const char *path);
int bpf_map_op(int cmd, int fd, const void *key, void *val);
bool counts_read(const struct count_driver *d, struct counts *c);
bool counts_reset(const struct count_driver *d);

#define ANY		-1LL	/* @reg, @unreg: any number */
#define NO_ENTRIES	-2LL	/* @min_enter: no VMENTER at all */

bool task_is(const struct count_driver *d, pid_t tid, long long reg,
	     long long unreg, long long min_enter);
struct task_counts task_get(const struct count_driver *d, pid_t tid);
bool task_same(const struct task_counts *a, const struct task_counts *b);
int counts_nr(const struct count_driver *d);

/* Drivers: the pvsched_count and pvsched_test_drv modules, pvsched-bpf */

extern bool count_ko_present;
extern char bpf_tool[256];	/* path of pvsched-bpf, "" if missing */

int module_unload(void);
int module_load(void);
const char *need_count(void);
int bpf_tool_run_out(const char *cmd, const char *arg, char *out,
		     size_t size);
int bpf_tool_run(const char *cmd, const char *arg);
const char *need_bpf(void);
int test_drv_load(const char *kind, bool keep);
const char *need_test_drv(void);
int test_drv_unload(void);

/*
 * pvsched_test_drv kind=strict: register/unregister/callback counts and
 * the sum of its error counts (see the module).
 */
struct strict_stats {
	long reg, unreg, callbacks, errors;
	char line[512];
};

bool strict_read(struct strict_stats *st);
bool strict_clean(bool reg_eq_unreg);
const char *need_strict(void);

extern unsigned int run_seed;
unsigned int test_seed(const char *name);

void count_driver_close(struct count_driver *d);
void count_driver_take(struct count_driver *to, struct count_driver *from);
bool bpf_count_load(void);
bool bpf_count_unload(bool close_map);

/* Workers: threads that run vCPUs on request */

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

struct worker *worker_create(void);
void worker_start(struct worker *w, enum worker_cmd cmd,
		  struct kvm_vcpu *vcpu, unsigned long nr);
bool worker_wait(struct worker *w);
bool worker_run(struct worker *w, struct kvm_vcpu *vcpu, unsigned long nr);
void worker_loop(struct worker *w, struct kvm_vcpu *vcpu);
bool worker_stop(struct worker *w);
void worker_destroy(struct worker *w);
bool vcpu_wait_runs(struct kvm_vcpu *vcpu, unsigned long base,
		    unsigned long n);

/* A vCPU in guest mode: pinned spinners, pvsched_count's summary, IRQs */

#define SPIN_CPU	1	/* nohz_full CPU of the debug kernel's boot */

extern const uint8_t guest_spin[2];

/* pvsched_count's summary line; false if it cannot be read. */
struct count_summary {
	long long registered, retired, retired_max, stray;
};

bool count_summary(struct count_summary *cs);
long long count_stray(void);
bool pin_to_cpu(int cpu);
void unpin(void);
bool cpu_is_nohz_full(int cpu);

/* Per-row interrupt counts of @cpu in /proc/interrupts, for diagnostics. */
#define IRQ_ROWS	64

struct irq_snap {
	int nr;
	char name[IRQ_ROWS][16];
	long long count[IRQ_ROWS];
};

void irq_snap(int cpu, struct irq_snap *s);
void irq_diag(int cpu, const struct irq_snap *a, const struct irq_snap *b);

/* A vCPU that spins in the guest on SPIN_CPU, in one KVM_RUN. */
struct spinner {
	struct kvm_vm *vm;
	struct kvm_vcpu *vcpu;
	pthread_t thread;
	pid_t tid;
	bool pinned;
	int ret, err;		/* KVM_RUN's result and errno */
};

bool spinner_start(struct spinner *s, const char *drv);
bool spinner_stop(struct spinner *s);
bool spinner_quiet(struct spinner *s, int ms);

/* Set up the program: KVM, the drivers, the signal that kicks vCPUs. */
void pvsched_test_init(void);
/* Leave the drivers as the suite expects them: BPF count unloaded. */
void pvsched_test_exit(void);

/* The main() of a pvsched_*_test program, after its last test. */
#define PVSCHED_TEST_HARNESS_MAIN					\
int main(int argc, char **argv)						\
{									\
	int ret;							\
									\
	pvsched_test_init();						\
	ret = test_harness_run(argc, argv);				\
	pvsched_test_exit();						\
	return ret;							\
}

#endif /* PVSCHED_UTIL_H */
