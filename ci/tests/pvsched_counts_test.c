// SPDX-License-Identifier: GPL-2.0
/*
 * pvsched_counts_test - the callbacks a driver receives, counted exactly:
 * the registrations and VMENTER/VMEXIT pairs that the module driver
 * pvsched_count and the BPF driver bpf_pvsched_count see for each vCPU
 * task (and bpf_pvsched_count's per-task slots), REPLACE while a vCPU
 * spins in guest mode (nohz_full CPU of the debug kernel), pvsched_count's
 * bound on the tasks it keeps, one INTR_INJ per injected interrupt (a
 * userspace irqchip), and what a driver reads of the vCPU's shared area
 * (pvsched_test_drv kind=strict).
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

FIXTURE(counts) {};
FIXTURE_SETUP(counts) {}
FIXTURE_TEARDOWN(counts) {}

/* Callback counts of a counting driver @d. */
static void counts_scenarios(struct __test_metadata *_metadata,
			const struct count_driver *d)
{
	struct worker *w, *w2, *w3;
	struct task_counts before, after;
	struct kvm_vcpu *vcpu, *v2, *v3;
	struct kvm_pvsched_ops prev;
	struct kvm_vm *vm;

	EXPECT_TRUE(counts_reset(d))
		TH_LOG("reset the counts");

	/* Assigned before the first KVM_RUN. */
	vm = vm_create();
	vcpu = vcpu_add(vm);
	w = worker_create();
	EXPECT_EQ(0, pvsched_assign(vm, d->name, &prev))
		TH_LOG("assign %s before the vCPU ever ran", d->name);
	EXPECT_EQ(0, counts_nr(d))
		TH_LOG("no task registered before the first KVM_RUN");
	EXPECT_TRUE(worker_run(w, vcpu, 200))
		TH_LOG("200 KVM_RUNs, all KVM_EXIT_IO");
	EXPECT_EQ(1, counts_nr(d))
		TH_LOG("exactly one task counted");
	after = task_get(d, w->tid);
	EXPECT_EQ(1, after.reg)
		TH_LOG("the vCPU thread registered once");
	EXPECT_EQ(0, after.unreg)
		TH_LOG("... and did not unregister");
	EXPECT_TRUE(after.vmenter >= 200)
		TH_LOG("vmenter >= 200 (one per KVM_RUN at least): %lld",
		       after.vmenter);
	EXPECT_EQ(after.vmenter, after.vmexit)
		TH_LOG("vmexit == vmenter");
	EXPECT_TRUE(after.halt == 0 && after.intr_inj == 0)
		TH_LOG("no halt, no intr_inj for the I/O loop");

	/* Unassign: one unregister, then nothing. */
	EXPECT_EQ(0, pvsched_assign(vm, "", &prev))
		TH_LOG("unassign");
	EXPECT_TRUE(ops_is(&prev, d->name))
		TH_LOG("unassign hands back %s", d->name);
	before = task_get(d, w->tid);
	EXPECT_TRUE(before.reg == 1 && before.unreg == 1 &&
		    before.vmenter == after.vmenter && before.vmexit == after.vmexit)
		TH_LOG("unassign: unregister 1, nothing else");
	EXPECT_TRUE(worker_run(w, vcpu, 200))
		TH_LOG("200 more KVM_RUNs without a driver");
	after = task_get(d, w->tid);
	EXPECT_TRUE(task_same(&before, &after))
		TH_LOG("no callback after unassign");

	/* Same thread, driver again: registers at assign time. */
	EXPECT_EQ(0, pvsched_assign(vm, d->name, NULL))
		TH_LOG("assign %s again", d->name);
	EXPECT_TRUE(task_is(d, w->tid, 2, 1, before.vmenter))
		TH_LOG("re-assign registers the vCPU task at once (register 2)");
	EXPECT_EQ(0, pvsched_assign(vm, NOP_DRV, &prev))
		TH_LOG("replace %s with %s", d->name, NOP_DRV);
	before = task_get(d, w->tid);
	EXPECT_TRUE(before.reg == 2 && before.unreg == 2)
		TH_LOG("replacing the driver unregisters from the old one");
	EXPECT_TRUE(worker_run(w, vcpu, 50))
		TH_LOG("50 KVM_RUNs with %s", NOP_DRV);
	after = task_get(d, w->tid);
	EXPECT_TRUE(task_same(&before, &after))
		TH_LOG("no callback to the old driver");
	worker_destroy(w);
	vm_close(vm);

	/* Assigned after the vCPU ran. */
	EXPECT_TRUE(counts_reset(d))
		TH_LOG("reset the counts");
	vm = vm_create();
	vcpu = vcpu_add(vm);
	w = worker_create();
	EXPECT_TRUE(worker_run(w, vcpu, 50))
		TH_LOG("50 KVM_RUNs without a driver");
	EXPECT_EQ(0, pvsched_assign(vm, d->name, NULL))
		TH_LOG("assign %s after the vCPU ran", d->name);
	EXPECT_TRUE(task_is(d, w->tid, 1, 0, NO_ENTRIES))
		TH_LOG("registered at assign time: register 1, no events yet");
	EXPECT_TRUE(worker_run(w, vcpu, 50))
		TH_LOG("50 KVM_RUNs");
	EXPECT_TRUE(task_is(d, w->tid, 1, 0, 50))
		TH_LOG("register 1, unregister 0, vmenter == vmexit >= 50");
	worker_destroy(w);
	vm_close(vm);

	/*
	 * Two vCPUs on two threads, created after the driver was assigned,
	 * and a third vCPU that never runs.
	 */
	EXPECT_TRUE(counts_reset(d))
		TH_LOG("reset the counts");
	vm = vm_create();
	EXPECT_EQ(0, pvsched_assign(vm, d->name, NULL))
		TH_LOG("assign %s to a VM without vCPUs", d->name);
	v2 = vcpu_add(vm);
	v3 = vcpu_add(vm);
	vcpu_add(vm);
	w2 = worker_create();
	w3 = worker_create();
	worker_start(w2, WORKER_RUN, v2, 100);
	worker_start(w3, WORKER_RUN, v3, 100);
	EXPECT_TRUE(worker_wait(w2) & worker_wait(w3))
		TH_LOG("2 vCPUs, 100 KVM_RUNs each on their own thread, concurrently");
	EXPECT_EQ(2, counts_nr(d))
		TH_LOG("two tasks counted");
	EXPECT_TRUE(task_is(d, w2->tid, 1, 0, 100) && task_is(d, w3->tid, 1, 0, 100))
		TH_LOG("each thread: register 1, unregister 0, vmenter == vmexit >= 100");
	EXPECT_EQ(0, pvsched_assign(vm, "", NULL))
		TH_LOG("unassign");
	EXPECT_TRUE(task_is(d, w2->tid, 1, 1, 100) && task_is(d, w3->tid, 1, 1, 100))
		TH_LOG("unassign unregisters both threads once");
	EXPECT_EQ(2, counts_nr(d))
		TH_LOG("the vCPU that never ran was never registered");
	worker_destroy(w3);
	worker_destroy(w2);
	vm_close(vm);
}

TEST_F_TIMEOUT(counts, module, TEST_SECONDS)
{
	NEED(need_count);

	counts_scenarios(_metadata, &mod_count);
}

TEST_F_TIMEOUT(counts, bpf, TEST_SECONDS)
{
	NEED(need_bpf);

	ASSERT_TRUE(bpf_count_load())
		TH_LOG("pvsched-bpf load count");
	counts_scenarios(_metadata, &bpf_count);
	EXPECT_TRUE(bpf_count_unload(true))
		TH_LOG("pvsched-bpf unload %s", PVSCHED_BPF_COUNT_NAME);
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
TEST_F_TIMEOUT(counts, bpf_slots, TEST_SECONDS)
{
	struct pvsched_bpf_slot slot, taken = {};
	struct pvsched_bpf_counts v;
	struct kvm_vcpu *va, *vb;
	struct worker *a, *b;
	struct kvm_vm *vm;
	__u32 idx, tid;

	NEED(need_bpf);

	ASSERT_TRUE(bpf_count_load())
		TH_LOG("pvsched-bpf load count");
	EXPECT_TRUE(counts_reset(&bpf_count))
		TH_LOG("reset the BPF counts");
	vm = vm_create();
	va = vcpu_add(vm);
	vb = vcpu_add(vm);
	a = worker_create();
	b = worker_create();

	/* b's slot is owned by another (made-up) thread id. */
	idx = pvsched_bpf_count_slot(b->tid);
	taken.tid = b->tid + PVSCHED_BPF_COUNT_SLOTS;
	EXPECT_EQ(0, bpf_map_op(BPF_MAP_UPDATE_ELEM, bpf_count.slots_fd, &idx,
				&taken))
		TH_LOG("give slot %u to tid %u", idx, taken.tid);

	EXPECT_EQ(0, pvsched_assign(vm, PVSCHED_BPF_COUNT_NAME, NULL))
		TH_LOG("assign %s", PVSCHED_BPF_COUNT_NAME);
	EXPECT_TRUE(worker_run(a, va, 30) && worker_run(b, vb, 40))
		TH_LOG("thread a runs vCPU 0 30 times, thread b vCPU 1 40 times");

	EXPECT_TRUE(bpf_slot_get(pvsched_bpf_count_slot(a->tid), &slot) &&
		    slot.tid == (__u32)a->tid && slot.counts.reg == 1 &&
		    slot.counts.vmenter >= 30 &&
		    slot.counts.vmenter == slot.counts.vmexit)
		TH_LOG("a counts in its own slot: register 1, vmenter == vmexit >= 30");
	tid = a->tid;
	EXPECT_EQ(-ENOENT, bpf_map_op(BPF_MAP_LOOKUP_ELEM, bpf_count.map_fd, &tid, &v))
		TH_LOG("a has no hash map entry");
	EXPECT_TRUE(bpf_slot_get(idx, &slot) && slot.tid == taken.tid &&
		    !slot.counts.reg && !slot.counts.vmenter)
		TH_LOG("b's slot still belongs to tid %u, with no counts",
		       taken.tid);
	tid = b->tid;
	EXPECT_TRUE(!bpf_map_op(BPF_MAP_LOOKUP_ELEM, bpf_count.map_fd, &tid, &v) &&
		    v.reg == 1 && v.vmenter >= 40 && v.vmenter == v.vmexit)
		TH_LOG("b counts in the hash map: register 1, vmenter == vmexit >= 40");
	EXPECT_TRUE(task_is(&bpf_count, a->tid, 1, 0, 30) &&
		    task_is(&bpf_count, b->tid, 1, 0, 40))
		TH_LOG("the readers find both threads");

	EXPECT_EQ(0, pvsched_assign(vm, "", NULL))
		TH_LOG("unassign");
	EXPECT_TRUE(task_is(&bpf_count, a->tid, 1, 1, 30) &&
		    task_is(&bpf_count, b->tid, 1, 1, 40))
		TH_LOG("both got unregister 1 where they count");
	EXPECT_TRUE(counts_reset(&bpf_count) &&
		    bpf_slot_get(idx, &slot) && !slot.tid)
		TH_LOG("reset frees the slots");
	worker_destroy(a);
	worker_destroy(b);
	vm_close(vm);
	EXPECT_TRUE(bpf_count_unload(true))
		TH_LOG("pvsched-bpf unload %s", PVSCHED_BPF_COUNT_NAME);
}

/*
 * A driver change while a vCPU stays in the guest: on a nohz_full CPU
 * guest mode is an extended RCU quiescent state, so synchronize_rcu()
 * does not wait for the vCPU, and the VMEXIT after the change must still
 * not reach the old driver (nor the module, once unloaded).
 */
TEST_F_TIMEOUT(counts, guest_mode_replace, TEST_SECONDS)
{
	struct task_counts t1, t2;
	struct irq_snap ia, ib;
	struct kvm_vm *holder;
	struct spinner s;
	bool nohz = cpu_is_nohz_full(SPIN_CPU);

	NEED(need_count);

	diag("CPU %d is %sa nohz_full CPU", SPIN_CPU, nohz ? "" : "not ");
	TEST_ASSERT(pin_to_cpu(0), "pin the test to CPU 0");
	EXPECT_TRUE(counts_reset(&mod_count))
		TH_LOG("reset the counts");

	/* A: another VM keeps the static key on. */
	holder = vm_create();
	EXPECT_EQ(0, pvsched_assign(holder, NOP_DRV, NULL))
		TH_LOG("another VM holds %s", NOP_DRV);
	EXPECT_TRUE(spinner_start(&s, COUNT_DRV))
		TH_LOG("a vCPU pinned to CPU %d spins in the guest with %s",
		       SPIN_CPU, COUNT_DRV);
	if (nohz) {
		EXPECT_TRUE(spinner_quiet(&s, 300))
			TH_LOG("on nohz_full CPU %d it comes to stay in guest mode, no VM exit for 300 ms",
			       SPIN_CPU);
	}
	irq_snap(SPIN_CPU, &ia);
	EXPECT_EQ(0, pvsched_assign(s.vm, "", NULL))
		TH_LOG("REPLACE \"\" from CPU 0 while the vCPU spins");
	t1 = task_get(&mod_count, s.tid);
	irq_snap(SPIN_CPU, &ib);
	irq_diag(SPIN_CPU, &ia, &ib);
	EXPECT_TRUE(t1.reg == 1 && t1.unreg == 1)
		TH_LOG("REPLACE returned: the task is unregistered once");
	EXPECT_EQ(0, t1.vmenter - t1.vmexit)
		TH_LOG("REPLACE forced the vCPU out of guest mode before the unregister: VMEXIT delivered");
	usleep(100000);
	EXPECT_TRUE(spinner_stop(&s))
		TH_LOG("a signal forces the vCPU out of KVM_RUN (EINTR)");
	t2 = task_get(&mod_count, s.tid);
	EXPECT_TRUE(task_same(&t1, &t2))
		TH_LOG("no callback for the task after its unregister, also at its VM exit");
	vm_close(s.vm);

	/* B: the module is unloaded while the vCPU is still in the guest. */
	EXPECT_TRUE(spinner_start(&s, COUNT_DRV))
		TH_LOG("again, a vCPU spins with %s", COUNT_DRV);
	EXPECT_EQ(0, pvsched_assign(s.vm, "", NULL))
		TH_LOG("REPLACE \"\"");
	EXPECT_EQ(0, module_unload())
		TH_LOG("rmmod %s while the vCPU still spins in the guest",
		       COUNT_DRV);
	usleep(100000);
	EXPECT_TRUE(spinner_stop(&s))
		TH_LOG("the vCPU leaves the guest after the rmmod, without calling into the module");
	vm_close(s.vm);
	EXPECT_EQ(0, module_load())
		TH_LOG("insmod %s again", COUNT_KO);

	/*
	 * C: no other VM has a driver, so unassigning disables the static key
	 * with the vCPU in the guest; a VM that enables it again must not
	 * revive a VMEXIT for the old driver.
	 */
	vm_close(holder);
	EXPECT_TRUE(spinner_start(&s, COUNT_DRV))
		TH_LOG("no other VM with a driver: a vCPU spins with %s",
		       COUNT_DRV);
	EXPECT_EQ(0, pvsched_assign(s.vm, "", NULL))
		TH_LOG("REPLACE \"\": the last driver of any VM goes");
	t1 = task_get(&mod_count, s.tid);
	usleep(1500000);	/* past the deferred static key disable */
	holder = vm_create();
	EXPECT_EQ(0, pvsched_assign(holder, NOP_DRV, NULL))
		TH_LOG("another VM assigns %s: the static key is enabled again",
		       NOP_DRV);
	usleep(100000);
	EXPECT_TRUE(spinner_stop(&s))
		TH_LOG("a signal forces the vCPU out of KVM_RUN");
	t2 = task_get(&mod_count, s.tid);
	EXPECT_TRUE(t1.unreg == 1 && task_same(&t1, &t2))
		TH_LOG("no callback for the task after its unregister across the static key's off and on");
	vm_close(s.vm);
	vm_close(holder);
	EXPECT_EQ(0, count_stray())
		TH_LOG("%s saw no callback for an unregistered task",
		       COUNT_DRV);
	unpin();
	/*
	 * Without nohz_full, the tick makes the vCPU exit: the REPLACEs above
	 * did not meet a vCPU in an extended quiescent state, which is what
	 * this test is about.
	 */
	if (!nohz && _metadata->exit_code != KSFT_FAIL)
		SKIP(return, "CPU %d not nohz_full: the tick makes the vCPU exit; the checks that ran passed",
		     SPIN_CPU);
}

/*
 * pvsched_count's memory is bounded: a vCPU run by ever new threads
 * leaves the registered task and the most recently retired ones.
 */
#define BOUND_THREADS	200

TEST_F_TIMEOUT(counts, bound, TEST_SECONDS)
{
	struct count_summary cs = { -1, -1, -1, -1 };
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct worker *w;
	int i, ok = 0;

	NEED(need_count);

	EXPECT_TRUE(counts_reset(&mod_count))
		TH_LOG("reset the counts");
	vm = vm_create();
	vcpu = vcpu_add(vm);
	EXPECT_EQ(0, pvsched_assign(vm, COUNT_DRV, NULL))
		TH_LOG("assign %s", COUNT_DRV);
	for (i = 0; i < BOUND_THREADS; i++) {
		w = worker_create();
		ok += worker_run(w, vcpu, 1);
		worker_destroy(w);
	}
	EXPECT_EQ(BOUND_THREADS, ok)
		TH_LOG("%d threads ran the vCPU once each, one after the other",
		       BOUND_THREADS);
	EXPECT_TRUE(count_summary(&cs) && cs.registered == 1 &&
		    cs.retired == COUNT_RETIRED_MAX &&
		    cs.retired_max == COUNT_RETIRED_MAX && cs.stray == 0)
		TH_LOG("summary: registered=1 retired=%d retired_max=%d stray=0",
		       COUNT_RETIRED_MAX, COUNT_RETIRED_MAX);
	EXPECT_EQ(COUNT_RETIRED_MAX + 1, counts_nr(&mod_count))
		TH_LOG("stats keep %d tasks, not %d",
		       COUNT_RETIRED_MAX + 1, BOUND_THREADS);
	EXPECT_EQ(0, pvsched_assign(vm, "", NULL))
		TH_LOG("unassign");
	EXPECT_TRUE(count_summary(&cs) && cs.registered == 0 &&
		    cs.retired == COUNT_RETIRED_MAX)
		TH_LOG("after unassign: registered=0 retired=%d",
		       COUNT_RETIRED_MAX);
	EXPECT_TRUE(counts_reset(&mod_count) && counts_nr(&mod_count) == 0 &&
		    count_summary(&cs) && cs.retired == 0)
		TH_LOG("reset drops the retired tasks");
	vm_close(vm);
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

TEST_F_TIMEOUT(counts, intr_exact, TEST_SECONDS)
{
	struct kvm_interrupt irq = { .irq = INTR_VECTOR };
	struct task_counts t0, t1, t2;
	struct kvm_vcpu *vcpu;
	struct kvm_regs regs;
	struct kvm_vm *vm;
	int i, done;

	NEED(need_count);

	EXPECT_TRUE(counts_reset(&mod_count))
		TH_LOG("reset the counts");
	vm = vm_create();
	memcpy((char *)vm->mem + GUEST_CODE_GPA, guest_sti_loop,
	       sizeof(guest_sti_loop));
	ivt_set(vm, INTR_VECTOR, INTR_HANDLER_GPA, INTR_PORT);
	ivt_set(vm, 2, NMI_HANDLER_GPA, NMI_PORT);
	vcpu = vcpu_add(vm);
	vcpu_ioctl(vcpu, KVM_GET_REGS, &regs);
	regs.rsp = INTR_STACK_GPA;
	vcpu_ioctl(vcpu, KVM_SET_REGS, &regs);
	EXPECT_EQ(0, pvsched_assign(vm, COUNT_DRV, NULL))
		TH_LOG("assign %s", COUNT_DRV);
	EXPECT_TRUE(intr_run_to(vcpu, GUEST_IO_PORT) && intr_run_to(vcpu, 0))
		TH_LOG("the guest loops with interrupts enabled");
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
	EXPECT_EQ(INTR_NR, done)
		TH_LOG("%d KVM_INTERRUPTs, each handled once", INTR_NR);
	t1 = task_get(&mod_count, gettid());
	EXPECT_EQ(INTR_NR, t1.intr_inj - t0.intr_inj)
		TH_LOG("INTR_INJ grows by the %d interrupts injected", INTR_NR);

	for (i = 0; i < INTR_NR; i++) {
		if (__vcpu_ioctl(vcpu, KVM_NMI, NULL)) {
			diag("KVM_NMI: %s", strerror(errno));
			break;
		}
		if (!intr_run_to(vcpu, NMI_PORT) || !intr_run_to(vcpu, 0))
			break;
	}
	EXPECT_EQ(INTR_NR, i)
		TH_LOG("%d KVM_NMIs, each handled once", INTR_NR);
	t2 = task_get(&mod_count, gettid());
	EXPECT_EQ(INTR_NR, t2.intr_inj - t1.intr_inj)
		TH_LOG("INTR_INJ grows by the %d NMIs injected", INTR_NR);
	EXPECT_TRUE(t2.halt == t0.halt && t2.vmenter == t2.vmexit &&
		    t2.vmenter > t0.vmenter)
		TH_LOG("no HALT, vmenter == vmexit (%lld/%lld)",
		       t2.vmenter, t2.vmexit);
	EXPECT_EQ(0, pvsched_assign(vm, "", NULL))
		TH_LOG("unassign");
	vm_close(vm);
}

/*
 * The vCPU's shared area (KVM_SET_PVSCHED_AREA): refused addresses, the
 * header KVM writes, the area passed to the driver (the strict driver reads
 * guest_prio from it on every callback) and followed across memslot
 * changes and the page's invalidation.
 */
#define AREA_SLOT_GPA		0x200000UL	/* slot 2, deleted and re-added */

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

TEST_F_TIMEOUT(counts, area, TEST_SECONDS)
{
	void *page1, *page2, *scratch;
	struct kvm_vcpu *v0, *v1;
	long area, noarea;
	struct kvm_vm *vm;
	uint8_t *hdr;

	NEED(need_strict);

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
	EXPECT_EQ(0, pvsched_assign(vm, STRICT_DRV, NULL))
		TH_LOG("assign %s", STRICT_DRV);
	area = strict_get("area");
	noarea = strict_get("noarea");
	EXPECT_TRUE(vcpu_run_n(v0, 10) && strict_get("area") >= area + 20 &&
		    strict_get("noarea") == noarea &&
		    strict_get("guest_prio") == 0x1234)
		TH_LOG("10 runs: every callback has vCPU 0's area still, the driver reads what the guest wrote");
	/* Errors only: the strict driver lacks PVSCHED_OPS_BOOST. */
	EXPECT_TRUE(strict_get("boost_outside") == -EINVAL &&
		    strict_get("boost_noflag") == -EPERM &&
		    strict_get("boost_otherpid") == -EINVAL)
		TH_LOG("pvsched_vcpu_boost(): EINVAL outside a callback and for another task, EPERM without PVSCHED_OPS_BOOST");

	EXPECT_TRUE(area_set(v0, AREA_GPA + AREA_SIZE, 0) == -EINVAL &&
		    vcpu_run_n(v0, 10) && strict_get("noarea") == noarea &&
		    strict_get("guest_prio") == 0x1234)
		TH_LOG("a refused change (vCPU 1's area) leaves vCPU 0 its own");

	area = strict_get("area");
	EXPECT_TRUE(!area_set(v0, 0, 0) && vcpu_run_n(v0, 10) &&
		    strict_get("noarea") >= noarea + 20 && strict_get("area") == area)
		TH_LOG("unregistered with gpa 0: callbacks get NULL");

	page1 = slot_page(vm, 2, AREA_SLOT_GPA, false, page_new(0x5678));
	EXPECT_TRUE(!area_set(v0, AREA_SLOT_GPA, 0) && vcpu_run_n(v0, 5) &&
		    strict_get("guest_prio") == 0x5678)
		TH_LOG("an area in a memslot of its own");
	slot_page(vm, 2, AREA_SLOT_GPA, false, NULL);
	area = strict_get("area");
	noarea = strict_get("noarea");
	EXPECT_TRUE(vcpu_run_n(v0, 10) && strict_get("area") == area &&
		    strict_get("noarea") >= noarea + 20)
		TH_LOG("its memslot deleted: callbacks get NULL, not freed memory");
	page2 = slot_page(vm, 2, AREA_SLOT_GPA, false, page_new(0x9abc));
	EXPECT_TRUE(vcpu_run_n(v0, 10) && strict_get("area") >= area + 20 &&
		    strict_get("guest_prio") == 0x9abc)
		TH_LOG("memory back at that address: the area follows it");
	/*
	 * The page itself goes, unmapped under the memslot and replaced
	 * (KVM reads the area between VM entry and exit through a mapping it
	 * keeps without a lock): the MMU notifier must take that mapping
	 * away before the page is freed, and the next entry maps the page
	 * that replaces it.
	 */
	TEST_ASSERT(pin_to_cpu(0), "pin the test to CPU 0");
	TEST_ASSERT(!munmap(page2, getpagesize()) &&
		    mmap(page2, getpagesize(), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == page2,
		    "a new page at the area's address");
	/*
	 * The freed page is the next this CPU allocates: give it to another
	 * mapping, with other contents, before the area's page is new.
	 */
	scratch = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TEST_ASSERT(scratch != MAP_FAILED, "mmap");
	memset(scratch, 0x11, getpagesize());
	*area_u32(page2, AREA_GUEST_PRIO_OFF) = 0xdef0;
	unpin();
	area = strict_get("area");
	EXPECT_TRUE(vcpu_run_n(v0, 10) && strict_get("area") >= area + 20 &&
		    strict_get("guest_prio") == 0xdef0)
		TH_LOG("its page replaced and written: the driver reads the new page (guest_prio %#lx, want 0xdef0)",
		       strict_get("guest_prio"));

	EXPECT_TRUE(strict_clean(false))
		TH_LOG("%s: no stray or unpaired callback", STRICT_DRV);
	/* Destroy the VM with its areas registered and its driver. */
	vm_close(vm);
	munmap(page1, getpagesize());
	munmap(page2, getpagesize());
	munmap(scratch, getpagesize());
	EXPECT_EQ(0, test_drv_unload())
		TH_LOG("%s unloads", TEST_DRV_MOD);
}

PVSCHED_TEST_HARNESS_MAIN
