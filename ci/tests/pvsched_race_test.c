// SPDX-License-Identifier: GPL-2.0
/*
 * pvsched_race_test - the driver's lifetime under races: REPLACE against
 * KVM_RUN on two threads, vCPUs that hop between threads while the driver
 * changes, rmmod of a module driver and unload of a BPF driver while VMs
 * assign them, and KVM_CREATE_VCPU against REPLACE. Each race runs for a
 * time cap and must reach a minimum overlap; its random choices come from
 * a seed it prints (PVSCHED_TEST_SEED replays them).
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
 * on the debug kernel, but make check runs saw two loads of about 35 s
 * (which left 2 cycles in 60 s) and one of 45 s (4 cycles in the 180 s
 * then allowed, just enough): race-bpf may go on this long to reach its
 * minimum, i.e. with loads of up to 75 s.
 */
#define BPF_RACE_OVERTIME_SECONDS	300
/* A load slower than this fails the race, rather than being waited out. */
#define BPF_LOAD_MAX_SECONDS	60
#define BPF_RACE_MIN_ASSIGNED	4

/* The harness's time limit of a race: its cap, overtime and setup. */
#define RACE_SECONDS		600

FIXTURE(race) {};
FIXTURE_SETUP(race) {}
FIXTURE_TEARDOWN(race) {}

/*
 * REPLACE racing running vCPUs: two vCPU threads loop on KVM_RUN while
 * the main thread cycles pvsched_count -> pvsched_nop -> "".
 */
TEST_F_TIMEOUT(race, run, RACE_SECONDS)
{
	static const char *const seq[] = { COUNT_DRV, STRICT_DRV, NOP_DRV, "" };
	const int nr_seq = ARRAY_SIZE(seq);
	unsigned int seed = test_seed(_metadata->name);
	unsigned long runs0, runs;
	struct kvm_pvsched_ops prev;
	struct strict_stats st;
	struct kvm_vcpu *v[2];
	struct worker *w[2];
	int i, k, cycles, bad_ret = 0, bad_prev = 0;
	struct kvm_vm *vm;
	double t0, end;
	bool ok;

	NEED(need_strict);

	EXPECT_TRUE(counts_reset(&mod_count))
		TH_LOG("reset the counts");
	vm = vm_create();
	for (i = 0; i < 2; i++) {
		v[i] = vcpu_add(vm);
		w[i] = worker_create();
		worker_loop(w[i], v[i]);
	}
	/* Both vCPUs have a task before the first assign. */
	EXPECT_TRUE(vcpu_wait_runs(v[0], 0, 1) && vcpu_wait_runs(v[1], 0, 1))
		TH_LOG("both vCPU threads are running");

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

	EXPECT_TRUE(!bad_ret)
		TH_LOG("all %d REPLACEs succeeded", nr_seq * cycles);
	EXPECT_TRUE(!bad_prev)
		TH_LOG("every REPLACE handed back the previous driver");
	EXPECT_TRUE(cycles >= RACE_MIN_CYCLES && runs >= RACE_MIN_RUNS)
		TH_LOG("overlap: at least %d cycles and %d KVM_RUNs while replacing (%d, %lu)",
		       RACE_MIN_CYCLES, RACE_MIN_RUNS, cycles, runs);

	/* End with pvsched_count assigned while the vCPUs still run. */
	EXPECT_EQ(0, pvsched_assign(vm, COUNT_DRV, NULL))
		TH_LOG("final assign of %s while running", COUNT_DRV);
	ok = vcpu_wait_runs(v[0], v[0]->nr_runs, 10) &&
	     vcpu_wait_runs(v[1], v[1]->nr_runs, 10);
	ok &= worker_stop(w[0]);
	ok &= worker_stop(w[1]);
	EXPECT_TRUE(ok)
		TH_LOG("vCPU threads: every exit KVM_EXIT_IO with the right value (%lu runs)",
		       v[0]->nr_runs + v[1]->nr_runs);
	EXPECT_EQ(2, counts_nr(&mod_count))
		TH_LOG("exactly two tasks counted");
	EXPECT_TRUE(task_is(&mod_count, w[0]->tid, cycles + 1, cycles, 1) &&
		    task_is(&mod_count, w[1]->tid, cycles + 1, cycles, 1))
		TH_LOG("each thread: register == cycles + 1, unregister == cycles, vmenter == vmexit > 0");
	vm_close(vm);
	EXPECT_TRUE(task_is(&mod_count, w[0]->tid, cycles + 1, cycles + 1, 1) &&
		    task_is(&mod_count, w[1]->tid, cycles + 1, cycles + 1, 1))
		TH_LOG("after VM close: register == unregister for each thread");
	EXPECT_TRUE(strict_read(&st) && !st.errors && st.reg == 2 * cycles &&
		    st.unreg == st.reg && st.callbacks > 0)
		TH_LOG("%s: %d registers, as many unregisters, callbacks, no stray or unpaired one",
		       STRICT_DRV, 2 * cycles);
	if (st.errors || st.reg != 2 * cycles || st.unreg != st.reg)
		diag("%s", st.line);
	EXPECT_EQ(0, test_drv_unload())
		TH_LOG("%s unloads", TEST_DRV_MOD);
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

TEST_F_TIMEOUT(race, hop, RACE_SECONDS)
{
	static const char *const seq[] = { COUNT_DRV, STRICT_DRV, NOP_DRV, "" };
	struct hop h = { .lock = PTHREAD_MUTEX_INITIALIZER,
			 .cond = PTHREAD_COND_INITIALIZER };
	struct task_counts t0_counts, t1_counts;
	unsigned int seed = test_seed(_metadata->name);
	unsigned long hops0[2];
	struct hop_arg args[2];

	pthread_t th[2];
	int i, cycles, bad = 0;
	struct kvm_vm *vm;
	double t0, end;

	NEED(need_strict);

	EXPECT_TRUE(counts_reset(&mod_count))
		TH_LOG("reset the counts");
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
	EXPECT_TRUE(h.runs[0] && h.runs[1])
		TH_LOG("the vCPU runs on both threads in turn");

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

	EXPECT_TRUE(!bad)
		TH_LOG("all %d REPLACEs succeeded",
		       (int)ARRAY_SIZE(seq) * cycles);
	EXPECT_TRUE(!h.failed && h.runs[0] > 0 && h.runs[1] > 0)
		TH_LOG("the vCPU ran on both threads, every exit KVM_EXIT_IO");
	EXPECT_TRUE(cycles >= HOP_MIN_CYCLES && hops0[0] >= HOP_MIN_HOPS &&
		    hops0[1] >= HOP_MIN_HOPS)
		TH_LOG("overlap: at least %d cycles and %d runs on each thread while replacing (%d, %lu, %lu)",
		       HOP_MIN_CYCLES, HOP_MIN_HOPS, cycles, hops0[0], hops0[1]);
	EXPECT_TRUE(task_is(&mod_count, h.tid[0], ANY, ANY, 0) &&
		    task_is(&mod_count, h.tid[1], ANY, ANY, 0))
		TH_LOG("vmenter == vmexit for each thread");
	t0_counts = task_get(&mod_count, h.tid[0]);
	t1_counts = task_get(&mod_count, h.tid[1]);
	EXPECT_TRUE(t0_counts.reg > 0 && t1_counts.reg > 0)
		TH_LOG("the registration followed the vCPU to both threads");
	EXPECT_TRUE(t0_counts.reg == t0_counts.unreg &&
		    t1_counts.reg == t1_counts.unreg)
		TH_LOG("ending unassigned: register == unregister for each thread");
	EXPECT_TRUE(strict_clean(true))
		TH_LOG("%s: no stray or unpaired callback, register == unregister",
		       STRICT_DRV);
	vm_close(vm);
	EXPECT_EQ(0, test_drv_unload())
		TH_LOG("%s unloads", TEST_DRV_MOD);
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

	/*
	 * As a VMM, which may not load modules: a REPLACE that misses the
	 * driver fails at once, without the modprobe that root's would run
	 * (MODULE_ALIAS_PVSCHED), which would slow the race past overlap.
	 */
	r = thread_drop_cap(CAP_SYS_MODULE);
	if (r) {
		diag("drop CAP_SYS_MODULE: %s", err_str(r));
		rp->bad++;
	}
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

static void race_start(struct __test_metadata *_metadata,
			struct race *r, const char *name,
		       unsigned int pause_us, unsigned int seed, bool nap)
{
	r->vm = vm_create();
	r->vcpu = vcpu_add(r->vm);
	r->w = worker_create();
	r->w->nap = nap;
	worker_loop(r->w, r->vcpu);
	EXPECT_TRUE(vcpu_wait_runs(r->vcpu, 0, 1))
		TH_LOG("the vCPU thread is running");
	replacer_start(&r->rp, r->vm, name, pause_us, seed, !nap);
}

/* Stop the replacer and the vCPU; check what both saw. */
static void race_stop(struct __test_metadata *_metadata,
			struct race *r)
{
	bool ok;

	replacer_stop(&r->rp);
	ok = worker_stop(r->w);
	EXPECT_TRUE(!r->rp.bad)
		TH_LOG("REPLACE only ever succeeded or failed with EINVAL");
	EXPECT_TRUE(ok)
		TH_LOG("vCPU: every exit KVM_EXIT_IO with the right value (%lu runs)",
		       r->vcpu->nr_runs);
}

static void race_free(struct race *r)
{
	worker_destroy(r->w);
	vm_close(r->vm);
}

/*
 * The pvsched_test_strict lines that each unload of pvsched_test_drv
 * leaves in the kernel log, from @fd (/dev/kmsg, opened at the test's
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
TEST_F_TIMEOUT(race, rmmod, RACE_SECONDS)
{
	int r, cycles, unloads = 0, bad_rmmod = 0, bad_insmod = 0, unbalanced;
	int kfd, lines, dirty = 0;
	struct race race;
	double end, hard_end;
	long callbacks;

	NEED(need_strict);

	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	TEST_ASSERT(kfd >= 0, "open /dev/kmsg");
	lseek(kfd, 0, SEEK_END);
	race_start(_metadata, &race, STRICT_DRV, 2000, test_seed(_metadata->name), false);

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
	race_stop(_metadata, &race);
	diag("%d rmmod attempts, %d unloads", cycles, unloads);

	EXPECT_TRUE(!bad_rmmod)
		TH_LOG("rmmod only ever succeeded or failed with EWOULDBLOCK");
	EXPECT_TRUE(!bad_insmod && driver_listed(STRICT_DRV))
		TH_LOG("insmod after every successful rmmod succeeded");
	EXPECT_TRUE(unloads >= RMMOD_MIN_UNLOADS &&
		    race.rp.assigned >= RMMOD_MIN_ASSIGNED)
		TH_LOG("overlap: at least %d unloads and %d assignments that landed while the vCPU ran (%d, %lu)",
		       RMMOD_MIN_UNLOADS, RMMOD_MIN_ASSIGNED, unloads, race.rp.assigned);
	EXPECT_TRUE(vm_driver_is(race.vm, ""))
		TH_LOG("the VM ends without a driver");
	EXPECT_TRUE(!dirty && strict_clean(true))
		TH_LOG("%s: no stray or unpaired callback, nothing left registered",
		       STRICT_DRV);
	EXPECT_EQ(0, test_drv_unload())
		TH_LOG("no module reference leaked: rmmod succeeds");
	lines = strict_unload_lines(kfd, &callbacks, &unbalanced);
	close(kfd);
	EXPECT_TRUE(lines == unloads + 1 && !unbalanced && callbacks > 0)
		TH_LOG("every unload (%d) had register == unregister, %ld callbacks in all",
		       lines, callbacks);
	race_free(&race);
}

/*
 * pvsched-bpf load/unload racing REPLACE and a running vCPU. Each load is
 * a new instance of bpf_pvsched_count with maps of its own, kept open
 * here: once the race is over, each instance must have seen the vCPU
 * thread's registrations paired with unregistrations and its VMENTERs
 * with VMEXITs, and no callback at all for a thread it never registered
 * (a stray one, after its unregister).
 */
TEST_F_TIMEOUT(race, bpf, RACE_SECONDS)
{
	double end, hard_end, t, t_load, t_unload, max_load = 0, max_unload = 0;
	static struct count_driver inst[BPF_RACE_CYCLES];
	int cycles, bad_load = 0, bad_unload = 0, i, used = 0, bad_pairs = 0;
	struct task_counts tc;
	struct race race;
	pid_t tid;

	NEED(need_bpf);

	race_start(_metadata, &race, PVSCHED_BPF_COUNT_NAME, 500, test_seed(_metadata->name), true);

	end = now() + BPF_RACE_MAX_SECONDS;
	hard_end = now() + BPF_RACE_OVERTIME_SECONDS;
	for (cycles = 0; cycles < BPF_RACE_CYCLES; cycles++) {
		if (now() >= end &&
		    ((cycles >= BPF_RACE_MIN_CYCLES &&
		      READ_ONCE(race.rp.assigned) >= BPF_RACE_MIN_ASSIGNED) ||
		     now() >= hard_end))
			break;
		t = now();
		inst[cycles].name = PVSCHED_BPF_COUNT_NAME;
		inst[cycles].map_fd = inst[cycles].slots_fd = -1;
		if (bpf_count_load())
			count_driver_take(&inst[cycles], &bpf_count);
		else
			bad_load++;
		t_load = now() - t;
		bad_unload += !bpf_count_unload(false);
		t_unload = now() - t - t_load;
		max_load = t_load > max_load ? t_load : max_load;
		max_unload = t_unload > max_unload ? t_unload : max_unload;
	}
	race_stop(_metadata, &race);
	diag("%d load/unload cycles, slowest load %.2f s, slowest unload %.2f s",
	     cycles, max_load, max_unload);

	/* The VM has no driver now: every instance is done with the thread. */
	tid = race.w->tid;
	for (i = 0; i < cycles; i++) {
		if (inst[i].map_fd < 0)
			continue;
		tc = task_get(&inst[i], tid);
		if (tc.reg > 0)
			used++;
		if (tc.reg > 0 ? tc.reg != tc.unreg || tc.vmenter != tc.vmexit :
		    tc.reg == 0 && (tc.unreg || tc.vmenter || tc.vmexit ||
				    tc.halt || tc.intr_inj)) {
			if (!bad_pairs++)
				diag("instance %d: register %lld unregister %lld vmenter %lld vmexit %lld halt %lld intr_inj %lld",
				     i, tc.reg, tc.unreg, tc.vmenter, tc.vmexit,
				     tc.halt, tc.intr_inj);
		}
		count_driver_close(&inst[i]);
	}
	diag("%d of %d instances of %s had the vCPU thread registered",
	     used, cycles, PVSCHED_BPF_COUNT_NAME);
	EXPECT_TRUE(!bad_pairs && used >= 1)
		TH_LOG("each instance of %s: register == unregister, vmenter == vmexit, nothing for a thread it never registered (%d bad; %d of %d instances had the thread)",
		       PVSCHED_BPF_COUNT_NAME, bad_pairs, used, cycles);
	EXPECT_TRUE(max_load <= BPF_LOAD_MAX_SECONDS)
		TH_LOG("no load slower than %d s (%.1f s)", BPF_LOAD_MAX_SECONDS,
		       max_load);

	EXPECT_TRUE(!bad_load)
		TH_LOG("pvsched-bpf load count succeeded every time (%d)",
		       cycles);
	EXPECT_TRUE(!bad_unload)
		TH_LOG("pvsched-bpf unload succeeded every time, assigned or not");
	EXPECT_TRUE(cycles >= BPF_RACE_MIN_CYCLES &&
		    race.rp.assigned >= BPF_RACE_MIN_ASSIGNED)
		TH_LOG("overlap: at least %d load/unload cycles and %d assignments that landed (%d, %lu)",
		       BPF_RACE_MIN_CYCLES, BPF_RACE_MIN_ASSIGNED, cycles, race.rp.assigned);
	EXPECT_TRUE(vm_driver_is(race.vm, "") && !driver_listed(PVSCHED_BPF_COUNT_NAME))
		TH_LOG("the VM ends without a driver, %s unregistered",
		       PVSCHED_BPF_COUNT_NAME);
	race_free(&race);
}

/*
 * vCPUs run by a thread that predicts their fd, before
 * KVM_CREATE_VCPU returns, against a thread that REPLACEs the VM's driver:
 * a vCPU must not run before REPLACE can see it.
 */
#define CREATE_RACE_SECONDS	20
#define CREATE_RACE_PER_VM	64	/* VM teardown costs seconds here */
#define CREATE_RACE_MIN		20	/* vCPUs and REPLACEs to assert */
/*
 * KVM_RUNs of a vCPU that returned before its KVM_CREATE_VCPU did: the
 * overlap the race is about. make check runs saw 27-42 on the main
 * kernel, 8-11 on the debug kernel.
 */
#define CREATE_RACE_MIN_EARLY	3

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

TEST_F_TIMEOUT(race, vcpu_create, RACE_SECONDS)
{
	struct create_race cr = { .target_fd = -1 };
	int vcpu_fds[CREATE_RACE_PER_VM], fd, pred, nr = 0, vms = 0, i;
	unsigned long want, created = 0;

	pthread_t runner, replacer;
	struct counts c;
	long long reg = 0, unreg = 0;
	double end, t, t_create = 0, t_run = 0, t_vm = 0;
	uint8_t *mem;

	NEED(need_count);

	EXPECT_TRUE(counts_reset(&mod_count))
		TH_LOG("reset the counts");
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
	/* Past the time cap, go on until the overlap is there. */
	while (now() < end ||
	       (READ_ONCE(cr.early) < CREATE_RACE_MIN_EARLY &&
		now() < end + RACE_OVERTIME_SECONDS)) {
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

	EXPECT_TRUE(created >= CREATE_RACE_MIN && cr.runs == created)
		TH_LOG("at least %d vCPUs created, each run by the thread that predicted its fd (%lu)",
		       CREATE_RACE_MIN, created);
	EXPECT_TRUE(cr.early >= CREATE_RACE_MIN_EARLY)
		TH_LOG("overlap: at least %d of those runs returned before their KVM_CREATE_VCPU did (%lu)",
		       CREATE_RACE_MIN_EARLY, cr.early);
	EXPECT_TRUE(cr.replaces >= CREATE_RACE_MIN && !cr.bad)
		TH_LOG("at least %d REPLACEs landed meanwhile, none failed (%lu)",
		       CREATE_RACE_MIN, cr.replaces);
	EXPECT_TRUE(counts_read(&mod_count, &c))
		TH_LOG("read the counts");
	for (i = 0; i < c.nr; i++) {
		reg += c.t[i].reg;
		unreg += c.t[i].unreg;
	}
	EXPECT_TRUE(reg > 0 && reg == unreg)
		TH_LOG("every registration was unregistered once all VMs closed (%lld/%lld)",
		       reg, unreg);
	EXPECT_EQ(0, count_stray())
		TH_LOG("%s saw no callback for an unregistered task",
		       COUNT_DRV);
}

PVSCHED_TEST_HARNESS_MAIN
