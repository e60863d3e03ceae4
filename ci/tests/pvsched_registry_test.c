// SPDX-License-Identifier: GPL-2.0
/*
 * pvsched_registry_test - the driver registry and what it shows: the
 * per-VM debugfs file pvsched_vcpu_ops, the sysctl
 * kernel.pvsched_available_drivers, the registry's validation of a
 * driver and its limit (pvsched_test_drv), sleepable BPF callbacks, and
 * the static key that keeps the callbacks off the VM entry path while no
 * VM has a driver (kvm_pvsched_enabled, read in /proc/kcore) and its
 * churn.
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

FIXTURE(registry) {};
FIXTURE_SETUP(registry) {}
FIXTURE_TEARDOWN(registry) {}

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

/* The per-VM debugfs file pvsched_vcpu_ops. */
TEST_F_TIMEOUT(registry, debugfs, TEST_SECONDS)
{
	char path[256], buf[128], big[64];
	struct kvm_vcpu *vcpu;
	struct worker *w;
	struct kvm_vm *vm;
	int fd, r;

	NEED(need_count);

	vm = vm_create();
	vcpu = vcpu_add(vm);
	w = worker_create();
	vm_debugfs_file(vm, path, sizeof(path));
	EXPECT_TRUE(counts_reset(&mod_count))
		TH_LOG("reset pvsched_count's counts");

	r = read_file(path, buf, sizeof(buf));
	EXPECT_TRUE(r == 1 && !strcmp(buf, "\n"))
		TH_LOG("read on a VM without a driver gives \"\\n\"");

	EXPECT_EQ(strlen(NOP_DRV) + 1, write_file(path, NOP_DRV "\n", strlen(NOP_DRV) + 1, -1))
		TH_LOG("write \"%s\\n\" returns its length", NOP_DRV);
	r = read_file(path, buf, sizeof(buf));
	EXPECT_TRUE(r > 0 && !strcmp(buf, NOP_DRV "\n"))
		TH_LOG("read gives \"%s\\n\" after the write", NOP_DRV);
	EXPECT_TRUE(vm_driver_is(vm, NOP_DRV))
		TH_LOG("GET agrees with the debugfs write");

	EXPECT_EQ(strlen(COUNT_DRV), write_file(path, COUNT_DRV, strlen(COUNT_DRV), -1))
		TH_LOG("write \"%s\" without a newline returns its length",
		       COUNT_DRV);
	r = read_file(path, buf, sizeof(buf));
	EXPECT_TRUE(r > 0 && !strcmp(buf, COUNT_DRV "\n"))
		TH_LOG("read gives \"%s\\n\"", COUNT_DRV);

	EXPECT_EQ(-EINVAL, write_file(path, UNKNOWN_DRV "\n", strlen(UNKNOWN_DRV) + 1,
				      -1))
		TH_LOG("write of an unknown name fails with EINVAL");

	/* 33 bytes: a valid name padded with blanks is still too long. */
	memset(big, ' ', sizeof(big));
	memcpy(big, NOP_DRV, strlen(NOP_DRV));
	big[32] = '\n';
	EXPECT_EQ(-EINVAL, write_file(path, big, 33, -1))
		TH_LOG("write of 33 bytes (\"%s\", blanks, newline) fails with EINVAL",
		       NOP_DRV);
	memset(big, 'a', sizeof(big));
	EXPECT_EQ(-EINVAL, write_file(path, big, 64, -1))
		TH_LOG("write of 64 bytes fails with EINVAL");
	EXPECT_EQ(-EINVAL, write_file(path, big, 32, -1))
		TH_LOG("write of exactly 32 bytes without newline or NUL fails with EINVAL");

	EXPECT_EQ(-EINVAL, write_file(path, NOP_DRV "\0x\n", strlen(NOP_DRV) + 3, -1))
		TH_LOG("write with an embedded NUL (\"%s\\0x\\n\") fails with EINVAL",
		       NOP_DRV);
	EXPECT_EQ(-EINVAL, write_file(path, "\0" NOP_DRV, strlen(NOP_DRV) + 1, -1))
		TH_LOG("write starting with a NUL fails with EINVAL");
	EXPECT_EQ(-EINVAL, write_file(path, NOP_DRV "\n", strlen(NOP_DRV) + 1, 1))
		TH_LOG("pwrite at offset 1 fails with EINVAL");
	EXPECT_EQ(-EINVAL, write_file_at(path, NOP_DRV "\n", strlen(NOP_DRV) + 1, 1))
		TH_LOG("write after lseek to offset 1 fails with EINVAL");
	EXPECT_EQ(-EINVAL, write_file_at(path, "-\n", 2, 5))
		TH_LOG("unassign (\"-\\n\") after lseek to offset 5 fails with EINVAL");
	r = read_file(path, buf, sizeof(buf));
	EXPECT_TRUE(r > 0 && !strcmp(buf, COUNT_DRV "\n") &&
		    vm_driver_is(vm, COUNT_DRV))
		TH_LOG("failed writes leave the driver \"%s\"", COUNT_DRV);

	/* A second write() on the same fd is at offset > 0. */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	TEST_ASSERT(fd >= 0, "open %s", path);
	r = write(fd, NOP_DRV "\n", strlen(NOP_DRV) + 1);
	EXPECT_EQ(strlen(NOP_DRV) + 1, r)
		TH_LOG("first write on an fd succeeds");
	r = write(fd, COUNT_DRV "\n", strlen(COUNT_DRV) + 1);
	EXPECT_EQ(-EINVAL, r < 0 ? -errno : r)
		TH_LOG("second write on the same fd (offset %zu) fails with EINVAL",
		       strlen(NOP_DRV) + 1);
	close(fd);
	EXPECT_TRUE(vm_driver_is(vm, NOP_DRV))
		TH_LOG("the driver is the one of the first write");

	/* Registration through debugfs, like the ioctl. */
	EXPECT_TRUE(worker_run(w, vcpu, 10))
		TH_LOG("vCPU runs 10 times with %s", NOP_DRV);
	EXPECT_EQ(strlen(COUNT_DRV) + 1, write_file(path, COUNT_DRV "\n", strlen(COUNT_DRV) + 1, -1))
		TH_LOG("write \"%s\\n\" after the vCPU ran", COUNT_DRV);
	EXPECT_TRUE(task_is(&mod_count, w->tid, 1, 0, NO_ENTRIES))
		TH_LOG("debugfs assign registers the vCPU task");

	/* Nothing but "-" unassigns: an empty write is a mistake. */
	EXPECT_EQ(-EINVAL, write_file(path, "\n", 1, -1))
		TH_LOG("write \"\\n\" (an empty line) fails with EINVAL");
	EXPECT_EQ(-EINVAL, write_file(path, " \t\n", 3, -1))
		TH_LOG("write of blanks only fails with EINVAL");
	EXPECT_EQ(-EINVAL, write_file(path, "", 0, -1))
		TH_LOG("zero-length write fails with EINVAL");
	EXPECT_TRUE(vm_driver_is(vm, COUNT_DRV) &&
		    task_is(&mod_count, w->tid, 1, 0, NO_ENTRIES))
		TH_LOG("empty writes leave %s assigned and the task registered",
		       COUNT_DRV);
	EXPECT_EQ(2, write_file(path, "-\n", 2, -1))
		TH_LOG("write \"-\\n\" (unassign) returns 2");
	r = read_file(path, buf, sizeof(buf));
	EXPECT_TRUE(r == 1 && !strcmp(buf, "\n"))
		TH_LOG("read after unassign gives \"\\n\"");
	EXPECT_TRUE(vm_driver_is(vm, ""))
		TH_LOG("GET after debugfs unassign returns \"\"");
	EXPECT_TRUE(task_is(&mod_count, w->tid, 1, 1, NO_ENTRIES))
		TH_LOG("debugfs unassign unregisters the vCPU task");

	EXPECT_EQ(0, pvsched_assign(vm, COUNT_DRV, NULL))
		TH_LOG("REPLACE \"%s\" by ioctl", COUNT_DRV);
	r = read_file(path, buf, sizeof(buf));
	EXPECT_TRUE(r > 0 && !strcmp(buf, COUNT_DRV "\n"))
		TH_LOG("debugfs read shows the driver assigned by ioctl");
	EXPECT_EQ(0, pvsched_assign(vm, "", NULL))
		TH_LOG("REPLACE \"\" by ioctl");

	worker_destroy(w);
	vm_close(vm);
}

/* The sysctl kernel.pvsched_available_drivers. */
TEST_F_TIMEOUT(registry, sysctl, TEST_SECONDS)
{
	char buf[1024];
	int r;

	r = read_file(SYSCTL_DRIVERS, buf, sizeof(buf));
	EXPECT_TRUE(r > 0)
		TH_LOG("%s is readable", SYSCTL_DRIVERS);
	diag_drivers();
	EXPECT_TRUE(driver_listed(NOP_DRV))
		TH_LOG("%s is listed", NOP_DRV);
	r = open(SYSCTL_DRIVERS, O_WRONLY | O_CLOEXEC);
	EXPECT_TRUE(r < 0)
		TH_LOG("the sysctl is read-only (open O_WRONLY fails)");
	if (r >= 0)
		close(r);
}

/* A module driver comes and goes from the sysctl with its module. */
TEST_F_TIMEOUT(registry, sysctl_module, TEST_SECONDS)
{
	NEED(need_count);
	if (!count_ko_present)
		SKIP(return, COUNT_KO " missing");

	EXPECT_EQ(0, module_unload())
		TH_LOG("rmmod %s (no VM uses it)", COUNT_DRV);
	EXPECT_TRUE(!driver_listed(COUNT_DRV))
		TH_LOG("%s gone after rmmod", COUNT_DRV);
	EXPECT_EQ(0, module_load())
		TH_LOG("insmod %s", COUNT_KO);
	EXPECT_TRUE(driver_listed(COUNT_DRV))
		TH_LOG("%s listed after insmod", COUNT_DRV);
}

/* So does a BPF driver with its struct_ops map. */
TEST_F_TIMEOUT(registry, sysctl_bpf, TEST_SECONDS)
{
	NEED(need_bpf);

	EXPECT_TRUE(bpf_count_load())
		TH_LOG("pvsched-bpf load count");
	EXPECT_TRUE(driver_listed(PVSCHED_BPF_COUNT_NAME))
		TH_LOG("%s listed after load", PVSCHED_BPF_COUNT_NAME);
	EXPECT_TRUE(!bpf_tool_run("load", "sample"))
		TH_LOG("pvsched-bpf load sample");
	EXPECT_TRUE(driver_listed(SAMPLE_DRV))
		TH_LOG("%s listed after load", SAMPLE_DRV);
	diag_drivers();
	EXPECT_TRUE(!bpf_tool_run("unload", SAMPLE_DRV))
		TH_LOG("pvsched-bpf unload %s", SAMPLE_DRV);
	EXPECT_TRUE(!driver_listed(SAMPLE_DRV) &&
		    driver_listed(PVSCHED_BPF_COUNT_NAME))
		TH_LOG("%s gone after unload, %s still listed",
		       SAMPLE_DRV, PVSCHED_BPF_COUNT_NAME);
	EXPECT_TRUE(bpf_count_unload(true))
		TH_LOG("pvsched-bpf unload %s", PVSCHED_BPF_COUNT_NAME);
	EXPECT_TRUE(!driver_listed(PVSCHED_BPF_COUNT_NAME))
		TH_LOG("%s gone after unload", PVSCHED_BPF_COUNT_NAME);
	EXPECT_TRUE(driver_listed(NOP_DRV) && driver_listed(COUNT_DRV))
		TH_LOG("%s and %s still listed", NOP_DRV, COUNT_DRV);
}

/*
 * A VMM that flips its VM's driver in a loop does not patch kernel
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

TEST_F_TIMEOUT(registry, key_churn, TEST_SECONDS)
{
	long long before, after;
	struct kvm_vm *vm;
	int i, bad = 0;

	NEED(need_count);

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
	EXPECT_TRUE(before >= 0 && after >= 0)
		TH_LOG("read CPU 1's function call IPIs");
	EXPECT_EQ(0, bad)
		TH_LOG("%d flips between %s and no driver succeed",
		       CHURN_FLIPS, NOP_DRV);
	diag("CPU 1 received %lld function call IPIs during %d flips",
	     after - before, CHURN_FLIPS);
	EXPECT_TRUE(after - before <= 30)
		TH_LOG("the flips sent CPU 1 at most 30 function call IPIs (text patching), not one per flip (%lld)",
		       after - before);
	vm_close(vm);
}

/*
 * Which BPF callbacks may sleep: register and unregister run in process
 * context and may; notify_event runs in atomic context and may not.
 */
TEST_F_TIMEOUT(registry, bpf_sleepable, TEST_SECONDS)
{
	struct kvm_vcpu *vcpu;
	struct worker *w;
	struct kvm_vm *vm;

	NEED(need_bpf);

	EXPECT_EQ(0, bpf_tool_run("load", "sleep"))
		TH_LOG("pvsched-bpf load sleep: sleepable register and unregister are accepted");
	EXPECT_TRUE(driver_listed(SLEEP_DRV))
		TH_LOG("%s is listed", SLEEP_DRV);
	vm = vm_create();
	vcpu = vcpu_add(vm);
	w = worker_create();
	EXPECT_TRUE(worker_run(w, vcpu, 5))
		TH_LOG("a vCPU runs: its task is known");
	EXPECT_EQ(0, pvsched_assign(vm, SLEEP_DRV, NULL))
		TH_LOG("assign %s: its sleepable register program runs",
		       SLEEP_DRV);
	EXPECT_TRUE(worker_run(w, vcpu, 20))
		TH_LOG("the vCPU runs 20 times with it");
	EXPECT_EQ(0, pvsched_assign(vm, "", NULL))
		TH_LOG("unassign: its sleepable unregister program runs");
	worker_destroy(w);
	vm_close(vm);
	EXPECT_EQ(0, bpf_tool_run("unload", SLEEP_DRV))
		TH_LOG("unload %s", SLEEP_DRV);
	EXPECT_TRUE(bpf_tool_run("load", "sleep-notify") != 0 &&
		    !driver_listed(SLEEP_DRV))
		TH_LOG("pvsched-bpf load sleep-notify: a sleepable notify_event is refused");
}

/* Driver registration refuses bad names and a module without owner. */

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
static void test_driver_limit(struct __test_metadata *_metadata)
{
	char buf[32];
	int before = drivers_nr(), r;

	EXPECT_EQ(0, test_drv_load("many", true))
		TH_LOG("registering drivers until the registry is full ends with ENOSPC");
	r = read_file("/sys/module/pvsched_test_drv/parameters/registered",
		      buf, sizeof(buf));
	EXPECT_TRUE(before > 0 && r > 0 && atoi(buf) == 8 - before &&
		    drivers_nr() == 8)
		TH_LOG("%d drivers were registered, %d more fit, then the ninth was refused",
		       before, r > 0 ? atoi(buf) : -1);
	EXPECT_EQ(0, syscall(__NR_delete_module, "pvsched_test_drv", O_NONBLOCK) ?
		  -errno : 0)
		TH_LOG("unloading unregisters them");
	EXPECT_EQ(before, drivers_nr())
		TH_LOG("the list is back to %d drivers", before);
}

TEST_F_TIMEOUT(registry, driver_validation, TEST_SECONDS)
{
	NEED(need_test_drv);

	EXPECT_EQ(0, test_drv_load("ok", true))
		TH_LOG("a well-formed module driver registers");
	EXPECT_TRUE(driver_listed("pvsched_test_ok"))
		TH_LOG("... and is listed");
	EXPECT_EQ(0, syscall(__NR_delete_module, "pvsched_test_drv", O_NONBLOCK) ?
		  -errno : 0)
		TH_LOG("... and unloads");
	EXPECT_EQ(-EINVAL, test_drv_load("space", false))
		TH_LOG("a name with a space is refused with EINVAL");
	EXPECT_EQ(-EINVAL, test_drv_load("newline", false))
		TH_LOG("a name with a newline is refused with EINVAL");
	EXPECT_EQ(-EINVAL, test_drv_load("no_owner", false))
		TH_LOG("a module driver with a NULL owner is refused with EINVAL");
	EXPECT_EQ(-EEXIST, test_drv_load("duplicate", false))
		TH_LOG("a second driver named %s is refused with EEXIST",
		       NOP_DRV);
	EXPECT_TRUE(!driver_listed("pvsched") && !driver_listed("test") &&
		    !driver_listed("pvsched_test_noowner") &&
		    !driver_listed("pvsched_test_ok"))
		TH_LOG("none of them is listed");
	test_driver_limit(_metadata);
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

TEST_F_TIMEOUT(registry, static_key, TEST_SECONDS)
{
	char path[256];
	struct kvm_vm *vm1, *vm2;
	void *ro;
	int r;

	NEED(need_key);

	EXPECT_EQ(0, key_wait(0, KEY_OFF_SECONDS))
		TH_LOG("no VM has a driver: the key is off");
	vm1 = vm_create();
	vm2 = vm_create();
	EXPECT_EQ(0, pvsched_assign(vm1, COUNT_DRV, NULL))
		TH_LOG("assign VM 1");
	EXPECT_EQ(1, key_count())
		TH_LOG("the key is on at once, count 1");
	EXPECT_TRUE(!pvsched_assign(vm2, NOP_DRV, NULL) &&
		    !pvsched_assign(vm1, COUNT_DRV, NULL) && key_count() == 2)
		TH_LOG("a second VM counts, the same driver again does not (count %d)",
		       key_count());

	EXPECT_TRUE(!pvsched_assign(vm1, "", NULL) && key_wait(1, KEY_OFF_SECONDS) == 1)
		TH_LOG("VM 1 unassigns by ioctl: count 1 (%d)", key_count());

	ro = page_ro("");
	r = pvsched_replace(vm2, ro);
	usleep(1500 * 1000);	/* past the deferral */
	EXPECT_TRUE(r == -EFAULT && key_count() == 1 && vm_driver_is(vm2, NOP_DRV))
		TH_LOG("VM 2's unassign into a read-only buffer: EFAULT, driver and key stay (%d)",
		       key_count());
	munmap(ro, getpagesize());

	vm_debugfs_file(vm2, path, sizeof(path));
	EXPECT_TRUE(write_file(path, "-", 1, -1) == 1 &&
		    key_wait(0, KEY_OFF_SECONDS) == 0)
		TH_LOG("VM 2 unassigns through debugfs: the last one, the key goes off (%d)",
		       key_count());

	EXPECT_TRUE(!pvsched_assign(vm2, COUNT_DRV, NULL) && key_count() == 1)
		TH_LOG("VM 2 assigns again: count 1");
	EXPECT_TRUE(!pvsched_assign(vm2, "", NULL) &&
		    key_wait(0, KEY_OFF_SECONDS) == 0)
		TH_LOG("VM 2 unassigns by ioctl: the last one, the key goes off (%d)",
		       key_count());

	EXPECT_TRUE(!pvsched_assign(vm2, COUNT_DRV, NULL) && key_count() == 1)
		TH_LOG("VM 2 assigns once more: count 1");
	vm_close(vm2);
	EXPECT_EQ(0, key_wait(0, KEY_OFF_SECONDS + 10))
		TH_LOG("VM 2 destroyed with its driver: the key goes off");
	vm_close(vm1);
}

PVSCHED_TEST_HARNESS_MAIN
