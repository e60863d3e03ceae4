// SPDX-License-Identifier: GPL-2.0
/*
 * pvsched_lifetime_test - drivers stay alive while a VM uses them: VM
 * destruction unregisters every vCPU task, a module driver in use cannot
 * be unloaded, a BPF driver whose struct_ops map is deleted goes on
 * serving the VMs that have it, and many VMs at once.
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

#define NR_MANY_VMS		16

FIXTURE(lifetime) {};
FIXTURE_SETUP(lifetime) {}
FIXTURE_TEARDOWN(lifetime) {}

/* A VM destroyed with a driver assigned. */
TEST_F_TIMEOUT(lifetime, vm_close, TEST_SECONDS)
{
	char dir[256], path[256], buf[64];
	struct kvm_vcpu *v0, *v1;
	struct worker *a, *b;
	struct kvm_vm *vm;
	int fd, r;

	NEED(need_count);

	EXPECT_TRUE(counts_reset(&mod_count))
		TH_LOG("reset the counts");
	vm = vm_create();
	v0 = vcpu_add(vm);
	v1 = vcpu_add(vm);
	a = worker_create();
	b = worker_create();
	EXPECT_EQ(0, pvsched_assign(vm, COUNT_DRV, NULL))
		TH_LOG("assign %s", COUNT_DRV);
	EXPECT_TRUE(worker_run(a, v0, 30) & worker_run(b, v1, 30))
		TH_LOG("2 vCPUs run 30 times each on threads A and B");
	EXPECT_EQ(-EAGAIN, module_unload())
		TH_LOG("rmmod %s refused (EWOULDBLOCK) while the VM uses it",
		       COUNT_DRV);
	vm_debugfs_dir(vm, dir, sizeof(dir));
	vm_close(vm);
	EXPECT_TRUE(task_is(&mod_count, a->tid, 1, 1, 30) &&
		    task_is(&mod_count, b->tid, 1, 1, 30))
		TH_LOG("closing the VM unregisters both vCPU threads once");
	EXPECT_TRUE(!path_exists(dir))
		TH_LOG("the VM's debugfs directory is gone");
	EXPECT_EQ(0, module_unload())
		TH_LOG("rmmod %s after the VM closed", COUNT_DRV);
	EXPECT_EQ(0, module_load())
		TH_LOG("insmod %s again", COUNT_KO);

	/* An open debugfs file keeps the VM, and its driver, alive. */
	vm = vm_create();
	v0 = vcpu_add(vm);
	EXPECT_EQ(0, pvsched_assign(vm, COUNT_DRV, NULL))
		TH_LOG("assign %s", COUNT_DRV);
	EXPECT_TRUE(worker_run(a, v0, 30))
		TH_LOG("vCPU runs 30 times on thread A");
	vm_debugfs_file(vm, path, sizeof(path));
	vm_debugfs_dir(vm, dir, sizeof(dir));
	fd = open(path, O_RDWR | O_CLOEXEC);
	TEST_ASSERT(fd >= 0, "open %s", path);
	vm_close(vm);
	EXPECT_TRUE(task_is(&mod_count, a->tid, 1, 0, 30))
		TH_LOG("VM fds closed, debugfs file open: the vCPU is still registered");
	EXPECT_EQ(-EAGAIN, module_unload())
		TH_LOG("rmmod refused while the debugfs file holds the VM");
	r = pread(fd, buf, sizeof(buf) - 1, 0);
	EXPECT_TRUE(r > 0 && !strncmp(buf, COUNT_DRV "\n", r))
		TH_LOG("the held VM's debugfs file still reads \"%s\\n\"",
		       COUNT_DRV);
	close(fd);
	EXPECT_TRUE(task_is(&mod_count, a->tid, 1, 1, 30))
		TH_LOG("closing the debugfs file destroys the VM: unregister 1");
	EXPECT_TRUE(!path_exists(dir))
		TH_LOG("the VM's debugfs directory is gone");
	EXPECT_EQ(0, module_unload())
		TH_LOG("rmmod %s", COUNT_DRV);
	EXPECT_EQ(0, module_load())
		TH_LOG("insmod %s again", COUNT_KO);
	worker_destroy(a);
	worker_destroy(b);
}

/* The module is pinned while a VM has it assigned. */
TEST_F_TIMEOUT(lifetime, module_pin, TEST_SECONDS)
{
	struct kvm_vcpu *vcpu;
	struct worker *w;
	struct kvm_vm *vm;
	char path[256];

	NEED(need_count);

	vm = vm_create();
	vcpu = vcpu_add(vm);
	w = worker_create();
	EXPECT_EQ(0, pvsched_assign(vm, COUNT_DRV, NULL))
		TH_LOG("assign %s", COUNT_DRV);
	EXPECT_EQ(-EAGAIN, module_unload())
		TH_LOG("rmmod refused (EWOULDBLOCK) while assigned, vCPU never ran");
	EXPECT_TRUE(driver_listed(COUNT_DRV) && vm_driver_is(vm, COUNT_DRV))
		TH_LOG("%s still listed and assigned after the refused rmmod",
		       COUNT_DRV);
	EXPECT_TRUE(worker_run(w, vcpu, 20))
		TH_LOG("the vCPU runs 20 times");
	EXPECT_EQ(-EAGAIN, module_unload())
		TH_LOG("rmmod refused while a registered vCPU uses it");
	EXPECT_EQ(0, pvsched_assign(vm, NOP_DRV, NULL))
		TH_LOG("replace with %s", NOP_DRV);
	EXPECT_EQ(0, module_unload())
		TH_LOG("rmmod %s after the VM replaced it", COUNT_DRV);
	EXPECT_TRUE(!driver_listed(COUNT_DRV))
		TH_LOG("%s no longer listed", COUNT_DRV);
	/* Without CAP_SYS_MODULE: EINVAL (pvsched_default_test.autoload). */
	EXPECT_EQ(0, pvsched_assign(vm, COUNT_DRV, NULL))
		TH_LOG("assigning the unloaded %s loads its module (root)",
		       COUNT_DRV);
	EXPECT_TRUE(driver_listed(COUNT_DRV) && vm_driver_is(vm, COUNT_DRV))
		TH_LOG("%s listed again, and the VM has it", COUNT_DRV);
	EXPECT_EQ(-EAGAIN, module_unload())
		TH_LOG("rmmod refused: the loaded module is pinned as well");
	EXPECT_EQ(0, pvsched_assign(vm, NOP_DRV, NULL))
		TH_LOG("replace with %s again", NOP_DRV);
	EXPECT_EQ(0, module_unload())
		TH_LOG("rmmod %s after the VM replaced it again", COUNT_DRV);
	EXPECT_EQ(0, module_load())
		TH_LOG("insmod %s again", COUNT_KO);
	EXPECT_TRUE(driver_listed(COUNT_DRV))
		TH_LOG("%s listed again", COUNT_DRV);

	/* Assigned through debugfs: same pinning. */
	vm_debugfs_file(vm, path, sizeof(path));
	EXPECT_EQ(strlen(COUNT_DRV) + 1, write_file(path, COUNT_DRV "\n", strlen(COUNT_DRV) + 1, -1))
		TH_LOG("assign the reloaded %s via debugfs", COUNT_DRV);
	EXPECT_EQ(-EAGAIN, module_unload())
		TH_LOG("rmmod refused while assigned through debugfs");
	EXPECT_TRUE(worker_run(w, vcpu, 20) &&
		    task_is(&mod_count, w->tid, 1, 0, 20))
		TH_LOG("the reloaded module counts the vCPU: register 1, vmenter >= 20");
	EXPECT_EQ(2, write_file(path, "-\n", 2, -1))
		TH_LOG("unassign via debugfs (\"-\")");
	EXPECT_EQ(0, module_unload())
		TH_LOG("rmmod after the debugfs unassign");
	EXPECT_EQ(0, module_load())
		TH_LOG("insmod %s again", COUNT_KO);
	worker_destroy(w);
	vm_close(vm);
}

/* A BPF driver unregistered while a VM uses it. */
TEST_F_TIMEOUT(lifetime, bpf_unload, TEST_SECONDS)
{
	struct count_driver old = { PVSCHED_BPF_COUNT_NAME, -1, -1 };
	struct kvm_pvsched_ops prev;
	struct task_counts t, t2;
	struct kvm_vcpu *vcpu;
	struct worker *w;
	struct kvm_vm *vm;

	NEED(need_bpf);

	ASSERT_TRUE(bpf_count_load())
		TH_LOG("pvsched-bpf load count");
	EXPECT_TRUE(counts_reset(&bpf_count))
		TH_LOG("reset the BPF counts");
	vm = vm_create();
	vcpu = vcpu_add(vm);
	w = worker_create();
	EXPECT_EQ(0, pvsched_assign(vm, PVSCHED_BPF_COUNT_NAME, NULL))
		TH_LOG("assign %s", PVSCHED_BPF_COUNT_NAME);
	EXPECT_TRUE(worker_run(w, vcpu, 100) &&
		    task_is(&bpf_count, w->tid, 1, 0, 100))
		TH_LOG("100 KVM_RUNs: register 1, vmenter == vmexit >= 100");

	/* Unload: the VM keeps the driver and its map keeps counting. */
	EXPECT_TRUE(bpf_count_unload(false))
		TH_LOG("pvsched-bpf unload %s while assigned",
		       PVSCHED_BPF_COUNT_NAME);
	EXPECT_TRUE(!driver_listed(PVSCHED_BPF_COUNT_NAME))
		TH_LOG("%s gone from the sysctl", PVSCHED_BPF_COUNT_NAME);
	EXPECT_TRUE(!path_exists(PVSCHED_BPF_COUNT_MAP) &&
		    !path_exists(PVSCHED_BPF_COUNT_SLOTS_MAP))
		TH_LOG("its maps are unpinned");
	EXPECT_TRUE(vm_driver_is(vm, PVSCHED_BPF_COUNT_NAME))
		TH_LOG("GET still returns %s", PVSCHED_BPF_COUNT_NAME);
	t = task_get(&bpf_count, w->tid);
	EXPECT_TRUE(worker_run(w, vcpu, 100))
		TH_LOG("100 more KVM_RUNs after the unload");
	EXPECT_TRUE(task_is(&bpf_count, w->tid, 1, 0, t.vmenter + 100))
		TH_LOG("the unloaded driver still counts: vmenter == vmexit, +100");
	EXPECT_EQ(-EINVAL, pvsched_assign(vm, PVSCHED_BPF_COUNT_NAME, NULL))
		TH_LOG("assigning the unregistered name fails with EINVAL");
	EXPECT_TRUE(vm_driver_is(vm, PVSCHED_BPF_COUNT_NAME))
		TH_LOG("... and the VM keeps its driver");
	EXPECT_EQ(0, pvsched_assign(vm, "", &prev))
		TH_LOG("unassign");
	EXPECT_TRUE(ops_is(&prev, PVSCHED_BPF_COUNT_NAME))
		TH_LOG("unassign hands back %s", PVSCHED_BPF_COUNT_NAME);
	t = task_get(&bpf_count, w->tid);
	EXPECT_TRUE(t.reg == 1 && t.unreg == 1)
		TH_LOG("the old driver got unregister 1");
	EXPECT_TRUE(worker_run(w, vcpu, 50))
		TH_LOG("50 KVM_RUNs without a driver");
	t2 = task_get(&bpf_count, w->tid);
	EXPECT_TRUE(task_same(&t, &t2))
		TH_LOG("no callback after unassign");

	/* Load again and use the new instance. */
	count_driver_take(&old, &bpf_count);
	EXPECT_TRUE(bpf_count_load())
		TH_LOG("pvsched-bpf load count again");
	EXPECT_TRUE(driver_listed(PVSCHED_BPF_COUNT_NAME))
		TH_LOG("%s listed again", PVSCHED_BPF_COUNT_NAME);
	EXPECT_EQ(0, pvsched_assign(vm, PVSCHED_BPF_COUNT_NAME, NULL))
		TH_LOG("assign the new %s", PVSCHED_BPF_COUNT_NAME);
	EXPECT_TRUE(worker_run(w, vcpu, 50) &&
		    task_is(&bpf_count, w->tid, 1, 0, 50))
		TH_LOG("the new instance counts in its own map: register 1, vmenter >= 50");
	t2 = task_get(&old, w->tid);
	EXPECT_TRUE(task_same(&t, &t2))
		TH_LOG("the old instance got no callback");
	count_driver_close(&old);

	/* Unload while assigned, load again: a new driver of the same name. */
	EXPECT_TRUE(bpf_count_unload(false))
		TH_LOG("unload while assigned, again");
	count_driver_take(&old, &bpf_count);
	EXPECT_TRUE(bpf_count_load())
		TH_LOG("load count while a VM holds the old %s: registers anew",
		       PVSCHED_BPF_COUNT_NAME);
	EXPECT_EQ(0, pvsched_assign(vm, PVSCHED_BPF_COUNT_NAME, &prev))
		TH_LOG("REPLACE the old %s with the new one of the same name",
		       PVSCHED_BPF_COUNT_NAME);
	EXPECT_TRUE(ops_is(&prev, PVSCHED_BPF_COUNT_NAME))
		TH_LOG("... hands back %s", PVSCHED_BPF_COUNT_NAME);
	EXPECT_TRUE(task_is(&old, w->tid, 1, 1, 50))
		TH_LOG("the old instance got unregister 1");
	count_driver_close(&old);
	EXPECT_TRUE(task_is(&bpf_count, w->tid, 1, 0, NO_ENTRIES))
		TH_LOG("the new instance got register 1");
	vm_close(vm);
	EXPECT_TRUE(task_is(&bpf_count, w->tid, 1, 1, NO_ENTRIES))
		TH_LOG("closing the VM unregisters from the new instance");
	EXPECT_TRUE(bpf_count_unload(true))
		TH_LOG("pvsched-bpf unload %s", PVSCHED_BPF_COUNT_NAME);

	/* The sample driver: assign, run, unload while assigned, unassign. */
	vm = vm_create();
	vcpu = vcpu_add(vm);
	EXPECT_TRUE(!bpf_tool_run("load", "sample"))
		TH_LOG("pvsched-bpf load sample");
	EXPECT_EQ(0, pvsched_assign(vm, SAMPLE_DRV, NULL))
		TH_LOG("assign %s", SAMPLE_DRV);
	EXPECT_TRUE(worker_run(w, vcpu, 50))
		TH_LOG("50 KVM_RUNs with %s", SAMPLE_DRV);
	EXPECT_TRUE(!bpf_tool_run("unload", SAMPLE_DRV))
		TH_LOG("pvsched-bpf unload %s while assigned", SAMPLE_DRV);
	EXPECT_TRUE(worker_run(w, vcpu, 50) && vm_driver_is(vm, SAMPLE_DRV))
		TH_LOG("50 more KVM_RUNs, the VM keeps %s", SAMPLE_DRV);
	EXPECT_EQ(0, pvsched_assign(vm, "", NULL))
		TH_LOG("unassign %s", SAMPLE_DRV);
	worker_destroy(w);
	vm_close(vm);
}

/* Many VMs at once. */
TEST_F_TIMEOUT(lifetime, many_vms, TEST_SECONDS)
{
	struct kvm_vm *vm[NR_MANY_VMS];
	struct worker *w[NR_MANY_VMS];
	char dir[NR_MANY_VMS][256];
	int i, assigned = 0, dirs = 0, good = 0;
	bool ok = true;

	NEED(need_count);

	EXPECT_TRUE(counts_reset(&mod_count))
		TH_LOG("reset the counts");
	for (i = 0; i < NR_MANY_VMS; i++) {
		vm[i] = vm_create();
		vcpu_add(vm[i]);
		w[i] = worker_create();
		vm_debugfs_dir(vm[i], dir[i], sizeof(dir[i]));
		assigned += !pvsched_assign(vm[i], COUNT_DRV, NULL);
		dirs += path_exists(dir[i]);
	}
	EXPECT_EQ(NR_MANY_VMS, assigned)
		TH_LOG("%d VMs created and assigned %s",
		       NR_MANY_VMS, COUNT_DRV);
	EXPECT_EQ(NR_MANY_VMS, dirs)
		TH_LOG("%d VM debugfs directories", NR_MANY_VMS);
	for (i = 0; i < NR_MANY_VMS; i++)
		worker_start(w[i], WORKER_RUN, vm[i]->vcpus[0], 20);
	for (i = 0; i < NR_MANY_VMS; i++)
		ok &= worker_wait(w[i]);
	EXPECT_TRUE(ok)
		TH_LOG("%d vCPUs ran 20 times each, concurrently", NR_MANY_VMS);
	EXPECT_EQ(NR_MANY_VMS, counts_nr(&mod_count))
		TH_LOG("%d tasks counted", NR_MANY_VMS);
	for (i = 0; i < NR_MANY_VMS; i++)
		good += task_is(&mod_count, w[i]->tid, 1, 0, 20);
	EXPECT_EQ(NR_MANY_VMS, good)
		TH_LOG("each: register 1, unregister 0, vmenter == vmexit >= 20");
	EXPECT_EQ(-EAGAIN, module_unload())
		TH_LOG("rmmod refused while VMs use it");
	for (i = 0; i < NR_MANY_VMS; i++)
		vm_close(vm[i]);
	for (i = good = dirs = 0; i < NR_MANY_VMS; i++) {
		good += task_is(&mod_count, w[i]->tid, 1, 1, 20);
		dirs += path_exists(dir[i]);
		worker_destroy(w[i]);
	}
	EXPECT_EQ(NR_MANY_VMS, good)
		TH_LOG("after closing all VMs each unregistered once");
	EXPECT_EQ(0, dirs)
		TH_LOG("all VM debugfs directories gone");
	EXPECT_EQ(0, module_unload())
		TH_LOG("rmmod %s: no reference left", COUNT_DRV);
	EXPECT_EQ(0, module_load())
		TH_LOG("insmod %s again", COUNT_KO);
}

PVSCHED_TEST_HARNESS_MAIN
