// SPDX-License-Identifier: GPL-2.0
/*
 * minivmm: run a tiny guest on N vCPU threads under a pvsched driver.
 *
 *   parse options -> find and read the payload -> open KVM, check caps ->
 *   create the VM, copy the payload in -> create vCPUs (latency: read the
 *   TSC frequency) -> register their pvsched areas if KVM offers them ->
 *   read, reset, replace the pvsched driver -> start the vCPU threads
 *   (--vcpu-fifo: make them SCHED_FIFO before they run) -> main loop
 *   (switches, --seconds deadline, signals, failures) -> join -> read the
 *   callback counts, the areas and the latency samples -> report
 *
 * With --no-pvsched every pvsched step (caps, ioctls, areas, stats) is
 * skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/types.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../kernel/bpf/pvsched_bpf_count.h"
#include "kvm-cpu.h"
#include "kvm.h"
#include "latency.h"
#include "options.h"
#include "payload.h"
#include "pvsched.h"
#include "report.h"
#include "stats.h"
#include "util.h"

#define MAIN_LOOP_NS		5000000		/* 5 ms */
#define STOP_GRACE_SECONDS	5.0		/* DONE due after params.stop */

_Static_assert(MINIVMM_MAX_VCPUS <= GUEST_PVSCHED_AREA_SLOTS,
	       "one pvsched area per vCPU does not fit in the areas' page");
_Static_assert(MINIVMM_MAX_VCPUS * MINIVMM_LAT_MAX_SAMPLES * sizeof(__u32) <=
	       GUEST_SAMPLES_BYTES,
	       "the latency samples of all vCPUs do not fit in guest memory");

struct vm {
	struct options opts;
	const struct payload_info *info;
	char payload_path[PATH_MAX];
	void *image;			/* the payload file, read before KVM */
	size_t image_size;
	struct kvm kvm;
	struct kvm_cpu cpus[MINIVMM_MAX_VCPUS];
	struct tid_stats stats[MINIVMM_MAX_VCPUS];
	struct latency_stats latency[MINIVMM_MAX_VCPUS];
	unsigned long long samples_max;	/* latency: per vCPU */
	struct kvm_cpu_gate gate;	/* --vcpu-fifo */
	unsigned int nr_cpus;		/* created with KVM_CREATE_VCPU */
	unsigned int nr_started;	/* threads running or to join */
	int stop;			/* kick: all vCPU threads get out */
	int nr_running;
	double t_start;
	struct report report;
	int status;			/* exit status, first failure wins */
};

static struct vm vm;
static FILE *info;			/* stdout, or stderr with --json */
static volatile sig_atomic_t stop_signal;

#define pr_info(fmt, ...)	fprintf(info, fmt "\n", ##__VA_ARGS__)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void vm__fail(struct vm *vm, int status)
{
	if (!vm->status)
		vm->status = status;
}

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static void on_kick(int sig)
{
	(void)sig;	/* only there to make KVM_RUN return EINTR */
}

/* No SA_RESTART: blocking calls return EINTR. */
static void signals__init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_kick;
	sigaction(KVM_CPU_KICK_SIGNAL, &sa, NULL);
}

static int list_drivers(bool json)
{
	char buf[4096], *tok, *save;
	bool first = true;
	int ret;

	ret = pvsched__available(buf, sizeof(buf));
	if (ret) {
		pr_err("this kernel has no pvsched support (%s: %s)",
		       PVSCHED_AVAILABLE_PATH, strerror(-ret));
		return ret == -ENOENT ? EXIT_NO_PVSCHED : EXIT_FAILED;
	}
	if (!json) {
		printf("%s\n", buf);
		return EXIT_OK;
	}
	printf("{\"drivers\":[");
	for (tok = strtok_r(buf, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		printf("%s", first ? "" : ",");
		report__json_string(stdout, tok);
		first = false;
	}
	printf("]}\n");
	return EXIT_OK;
}

/* Find and read the payload first: a bad one fails before KVM is touched. */
static int vm__load_payload(struct vm *vm)
{
	size_t max = payload__max_size(vm->opts.nr_vcpus);
	struct payload_dirs dirs;
	char exe[PATH_MAX], err[PATH_MAX + 128];
	const struct payload_info *pi = payload__info(vm->opts.payload);
	ssize_t n;
	int ret, i;

	/* A usage error, before any file is looked for. */
	if (vm->opts.period_us && pi && !pi->timer) {
		pr_err("--period-us: payload %s has no timer (only halt, or a payload file of another name)",
		       pi->name);
		return EXIT_USAGE;
	}
	if (vm->opts.busy_loops && pi && !pi->busy) {
		pr_err("--busy-loops: payload %s has no busy loop (only boost, or a payload file of another name)",
		       pi->name);
		return EXIT_USAGE;
	}
	if (vm->opts.wait && pi && !pi->irq_flags) {
		pr_err("--wait: payload %s has no choice of wait (only irq, latency, or a payload file of another name)",
		       pi->name);
		return EXIT_USAGE;
	}
	if (vm->opts.boost_irq && pi && !pi->irq_flags) {
		pr_err("--boost-irq: payload %s raises no PVSCHED_GUEST_BOOST_IRQ (only irq, latency, or a payload file of another name)",
		       pi->name);
		return EXIT_USAGE;
	}
	if (vm->opts.boost && pi && !pi->latency) {
		pr_err("--boost: payload %s raises no PVSCHED_GUEST_BOOST around its waits (only latency)",
		       pi->name);
		return EXIT_USAGE;
	}
	if (vm->opts.latency_samples && pi && !pi->latency) {
		pr_err("--latency-samples: payload %s takes no latency samples (only latency)",
		       pi->name);
		return EXIT_USAGE;
	}
	if (vm->opts.iterations > MINIVMM_LAT_MAX_SAMPLES && pi &&
	    pi->latency) {
		pr_err("--iterations: payload %s keeps at most %llu samples per vCPU",
		       pi->name, MINIVMM_LAT_MAX_SAMPLES);
		return EXIT_USAGE;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	payload__dirs(exe, &dirs);
	ret = payload__resolve(vm->opts.payload, &dirs, vm->payload_path,
			       sizeof(vm->payload_path));
	if (ret == -EINVAL) {
		pr_err("unknown payload '%s' (known: %s; or give a path)",
		       vm->opts.payload, payload__names());
		return EXIT_USAGE;
	}
	if (ret) {
		pr_err("payload '%s' not found; looked in:", vm->opts.payload);
		for (i = 0; i < PAYLOAD_NR_DIRS; i++)
			fprintf(stderr, "  %s/\n", dirs.dir[i]);
		return EXIT_FAILED;
	}
	vm->info = payload__info(vm->payload_path);
	vm->image = malloc(max);
	if (!vm->image) {
		pr_err("payload buffer: %s", strerror(errno));
		return EXIT_FAILED;
	}
	if (payload__load(vm->payload_path, vm->image, max, &vm->image_size,
			  err, sizeof(err))) {
		pr_err("payload %s", err);
		return EXIT_FAILED;
	}
	return EXIT_OK;
}

static __u64 vm__flags(const struct vm *vm)
{
	const struct report *r = &vm->report;

	return (r->wait == IRQ_WAIT_SPIN ? MINIVMM_IRQ_SPIN : 0) |
	       (r->boost_irq ? MINIVMM_IRQ_BOOST_IRQ : 0) |
	       (r->boost == LAT_BOOST_WAIT ? MINIVMM_LAT_BOOST_WAIT : 0) |
	       (r->boost == LAT_BOOST_HOLD ? MINIVMM_LAT_BOOST_HOLD : 0);
}

/* params.period_tsc comes later, from the first vCPU's TSC frequency. */
static void vm__fill_params(struct vm *vm)
{
	struct minivmm_params *p = kvm__params(&vm->kvm);

	p->magic = MINIVMM_PARAMS_MAGIC;
	p->iterations = vm->report.iterations;
	p->progress_every = vm->info->progress_every;
	p->timer_count = vm->report.period_us * MINIVMM_TIMER_COUNT_PER_US;
	p->nr_vcpus = vm->opts.nr_vcpus;
	p->stop = 0;
	p->pvsched_area_gpa = 0;	/* vm__pvsched_areas() sets it */
	p->busy_loops = vm->report.busy_loops;
	p->flags = vm__flags(vm);
	p->period_tsc = 0;
	p->samples_gpa = vm->samples_max ? GUEST_SAMPLES_GPA : 0;
	p->samples_max = vm->samples_max;
}

/*
 * The latency payload's TSC-deadline period: --period-us in ticks of the
 * vCPUs' TSC, whose frequency KVM gives per vCPU (all the same here: the
 * VM's default); the report converts the samples back with it.
 */
static int vm__latency_params(struct vm *vm)
{
	unsigned long long khz;

	if (kvm_cpu__get_tsc_khz(&vm->cpus[0], &khz))
		return EXIT_FAILED;
	vm->report.tsc_khz = khz;
	kvm__params(&vm->kvm)->period_tsc = vm->report.period_us * khz / 1000;
	return EXIT_OK;
}

/*
 * One pvsched area per vCPU, vCPU i's at GUEST_PVSCHED_AREA(i), when KVM
 * offers them; then the guest learns where they are from the params
 * block. Without KVM_CAP_PVSCHED_AREA the VM runs without (the report
 * says so); a failed KVM_SET_PVSCHED_AREA fails the run. --no-pvsched
 * and --no-area do not even ask.
 */
static int vm__pvsched_areas(struct vm *vm)
{
	unsigned int i;

	vm->report.area = AREA_NOT_USED;
	if (vm->opts.no_pvsched || vm->opts.no_area)
		return EXIT_OK;
	vm->report.area = AREA_NOT_OFFERED;
	if (!kvm__has_pvsched_area(&vm->kvm))
		return EXIT_OK;
	for (i = 0; i < vm->nr_cpus; i++) {
		if (kvm_cpu__set_pvsched_area(&vm->cpus[i],
					      GUEST_PVSCHED_AREA(i)))
			return EXIT_FAILED;
	}
	kvm__params(&vm->kvm)->pvsched_area_gpa = GUEST_PVSCHED_AREA_GPA;
	vm->report.area = AREA_REGISTERED;
	return EXIT_OK;
}

/* KVM, caps, VM, payload, params, the vCPU fds and their pvsched areas. */
static int vm__create(struct vm *vm)
{
	unsigned int i;
	int ret;

	ret = kvm__open(&vm->kvm);
	if (!ret)
		ret = kvm__check_caps(&vm->kvm, vm->info->irqchip,
				      !vm->opts.no_pvsched, vm->info->latency,
				      vm->opts.nr_vcpus);
	if (ret == -ENOTTY)
		return EXIT_NO_PVSCHED;
	if (!ret)
		ret = kvm__create_vm(&vm->kvm, vm->info->irqchip);
	if (ret)
		return EXIT_FAILED;
	/* Without it the guest fails with FAIL_NO_TSC_DEADLINE. */
	if (vm->info->latency)
		vm->kvm.tsc_deadline = kvm__has_tsc_deadline(&vm->kvm);

	memcpy(kvm__gpa_to_hva(&vm->kvm, MINIVMM_LOAD_GPA, vm->image_size),
	       vm->image, vm->image_size);
	vm__fill_params(vm);

	for (i = 0; i < vm->opts.nr_vcpus; i++) {
		vm->nr_cpus++;
		if (kvm_cpu__init(&vm->cpus[i], &vm->kvm, i))
			return EXIT_FAILED;
	}
	if (vm->info->latency && vm__latency_params(vm))
		return EXIT_FAILED;
	return vm__pvsched_areas(vm);
}

static bool vm__uses_pvsched_count(const struct vm *vm)
{
	const struct options *o = &vm->opts;
	unsigned int i;

	if (!strcmp(vm->report.initial, PVSCHED_COUNT_NAME))
		return true;
	if (o->pvsched_set && !strcmp(o->pvsched, PVSCHED_COUNT_NAME))
		return true;
	for (i = 0; i < o->nr_switches; i++) {
		if (!strcmp(o->switches[i].name, PVSCHED_COUNT_NAME))
			return true;
	}
	return false;
}

static void vm__reset_stats(struct vm *vm)
{
	int ret;

	if (!vm__uses_pvsched_count(vm))
		return;
	ret = stats__reset_count(PVSCHED_COUNT_RESET);
	vm->report.stats_reset = ret ? STATS_RESET_FAILED : STATS_RESET_DONE;
	if (ret)
		pr_err("warning: cannot reset %s: %s; counts may include earlier runs",
		       PVSCHED_COUNT_RESET, strerror(-ret));
}

/* Before the vCPUs run: note the initial driver, assign --pvsched. */
static int vm__pvsched_init(struct vm *vm)
{
	const char *want = vm->opts.pvsched;
	char prev[PVSCHED_OPS_NAME_SIZE], cur[PVSCHED_OPS_NAME_SIZE];
	int fd = vm->kvm.vm_fd, ret;

	if (vm->opts.no_pvsched)
		return EXIT_OK;
	ret = pvsched__get(fd, vm->report.initial);
	if (ret)
		return pvsched__error("KVM_GET_PVSCHED_OPS", NULL, ret);
	vm__reset_stats(vm);
	if (!vm->opts.pvsched_set)
		return EXIT_OK;

	ret = pvsched__replace(fd, want, prev);
	if (ret)
		return pvsched__error("KVM_REPLACE_PVSCHED_OPS", want, ret);
	ret = pvsched__get(fd, cur);
	if (ret)
		return pvsched__error("KVM_GET_PVSCHED_OPS", NULL, ret);
	if (strcmp(cur, want)) {
		pr_err("asked for driver %s, KVM_GET_PVSCHED_OPS says %s",
		       pvsched__display(want), pvsched__display(cur));
		return EXIT_FAILED;
	}
	pr_info("pvsched: %s -> %s", pvsched__display(prev),
		pvsched__display(cur));
	return EXIT_OK;
}

static void vm__stop_vcpus(struct vm *vm)
{
	unsigned int i;

	__atomic_store_n(&vm->stop, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < vm->nr_started; i++)
		kvm_cpu__kick(&vm->cpus[i]);
}

static void vm__join(struct vm *vm)
{
	unsigned int i;

	for (i = 0; i < vm->nr_started; i++)
		pthread_join(vm->cpus[i].thread, NULL);
}

/*
 * --vcpu-fifo: the started threads wait at the gate, their thread ids
 * known; make each SCHED_FIFO, then open the gate. If one cannot be (or a
 * thread could not be created, @err), none runs the guest: they leave at
 * the gate, are joined, and there is no report.
 */
static int vm__vcpu_fifo(struct vm *vm, int err)
{
	unsigned int i;

	kvm_cpu__gate_wait(&vm->gate, vm->nr_started);
	for (i = 0; i < vm->nr_started && !err; i++)
		err = kvm_cpu__set_fifo(&vm->cpus[i], vm->opts.vcpu_fifo);
	if (err)
		__atomic_store_n(&vm->stop, 1, __ATOMIC_SEQ_CST);
	kvm_cpu__gate_open(&vm->gate);
	if (err) {
		vm__join(vm);
		vm->nr_started = 0;
	}
	return err;
}

/* vCPU threads inherit a mask blocking SIGINT/SIGTERM: we handle those. */
static int vm__start_vcpus(struct vm *vm)
{
	sigset_t block, old;
	struct kvm_cpu *cpu;
	unsigned int i;
	int err = 0;

	if (vm->opts.vcpu_fifo)
		kvm_cpu__gate_init(&vm->gate);

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	vm->t_start = now();
	for (i = 0; i < vm->nr_cpus && !err; i++) {
		cpu = &vm->cpus[i];
		cpu->stop = &vm->stop;
		cpu->nr_running = &vm->nr_running;
		cpu->gate = vm->opts.vcpu_fifo ? &vm->gate : NULL;
		__atomic_add_fetch(&vm->nr_running, 1, __ATOMIC_SEQ_CST);
		err = pthread_create(&cpu->thread, NULL, kvm_cpu__thread, cpu);
		if (err) {
			__atomic_sub_fetch(&vm->nr_running, 1,
					   __ATOMIC_SEQ_CST);
			pr_err("vcpu%u: pthread_create: %s", i, strerror(err));
			break;
		}
		cpu->started = true;
		vm->nr_started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (vm->opts.vcpu_fifo)
		err = vm__vcpu_fifo(vm, err);
	return err ? EXIT_FAILED : EXIT_OK;
}

static int vm__switch(struct vm *vm, unsigned int i, double t)
{
	const struct pvsched_switch *sw = &vm->opts.switches[i];
	struct switch_result *res = &vm->report.switches[i];
	int ret;

	res->at = t;
	ret = pvsched__replace(vm->kvm.vm_fd, sw->name, res->prev);
	if (ret) {
		res->status = SWITCH_FAILED;
		res->err = ret;
		return pvsched__error("--switch", sw->name, ret);
	}
	res->status = SWITCH_DONE;
	pr_info("%.3fs: pvsched %s -> %s", t, pvsched__display(res->prev),
		pvsched__display(sw->name));
	return EXIT_OK;
}

static bool vm__vcpu_failed(struct vm *vm)
{
	enum kvm_cpu_state s;
	unsigned int i;

	for (i = 0; i < vm->nr_started; i++) {
		s = __atomic_load_n(&vm->cpus[i].state, __ATOMIC_SEQ_CST);
		if (s == KVM_CPU_ERROR || s == KVM_CPU_GUEST_FAIL)
			return true;
	}
	return false;
}

/* One pass of the main loop; false when the vCPUs must be stopped. */
static bool vm__tick(struct vm *vm, unsigned int *next_switch,
		     double *stop_sent)
{
	const struct options *o = &vm->opts;
	struct minivmm_params *p = kvm__params(&vm->kvm);
	double t = now() - vm->t_start;
	int ret;

	if (stop_signal || vm__vcpu_failed(vm))
		return false;
	while (*next_switch < o->nr_switches &&
	       t >= o->switches[*next_switch].at) {
		ret = vm__switch(vm, (*next_switch)++, t);
		if (ret) {
			vm__fail(vm, ret);
			return false;
		}
	}
	if (o->seconds && !*stop_sent && t >= o->seconds) {
		__atomic_store_n(&p->stop, 1, __ATOMIC_SEQ_CST);
		*stop_sent = t;
	}
	if (*stop_sent && t - *stop_sent > STOP_GRACE_SECONDS) {
		pr_err("the guest did not report DONE %gs after being told to stop",
		       STOP_GRACE_SECONDS);
		vm__fail(vm, EXIT_FAILED);
		return false;
	}
	return true;
}

static void vm__main_loop(struct vm *vm)
{
	struct timespec ts = { .tv_nsec = MAIN_LOOP_NS };
	unsigned int next_switch = 0;
	double stop_sent = 0;

	while (__atomic_load_n(&vm->nr_running, __ATOMIC_SEQ_CST) > 0) {
		if (!vm__tick(vm, &next_switch, &stop_sent)) {
			vm__stop_vcpus(vm);
			break;
		}
		nanosleep(&ts, NULL);
	}
	vm->report.elapsed = now() - vm->t_start;
}

/*
 * pvsched_count's debugfs first, then the BPF map; "-" for the rest, and
 * for all with --no-pvsched.
 */
static void vm__read_stats(struct vm *vm)
{
	unsigned int i, n = vm->nr_started;
	int ret;

	for (i = 0; i < n; i++) {
		vm->stats[i].tid = vm->cpus[i].tid;
		vm->stats[i].source = STATS_NONE;
	}
	if (vm->opts.no_pvsched)
		return;
	ret = stats__read_count_file(PVSCHED_COUNT_STATS, vm->stats, n);
	if (ret < 0 && ret != -ENOENT)
		pr_err("warning: %s: %s", PVSCHED_COUNT_STATS, strerror(-ret));
	if (ret == (int)n)
		return;
	ret = stats__read_bpf_map(PVSCHED_BPF_COUNT_SLOTS_MAP,
				  PVSCHED_BPF_COUNT_MAP, vm->stats, n);
	if (ret < 0 && ret != -ENOENT)
		pr_err("warning: %s: %s", PVSCHED_BPF_COUNT_NAME " maps",
		       strerror(-ret));
}

/*
 * The latency samples a vCPU stored: as many as it reported DONE (its last
 * PROGRESS if it did not finish), up to the room it had.
 */
static void vm__read_latency(struct vm *vm)
{
	const struct kvm_cpu *cpu;
	unsigned long long n;
	unsigned int i;
	__u32 *ticks;

	for (i = 0; i < vm->nr_started; i++) {
		cpu = &vm->cpus[i];
		n = cpu->state == KVM_CPU_DONE ? cpu->done : cpu->progress;
		if (n > vm->samples_max)
			n = vm->samples_max;
		ticks = kvm__gpa_to_hva(&vm->kvm, GUEST_SAMPLES_GPA +
					i * vm->samples_max * sizeof(*ticks),
					n * sizeof(*ticks));
		if (!ticks || latency__stats(ticks, n, vm->report.tsc_khz,
					     &vm->latency[i]))
			pr_err("warning: vcpu%u: cannot compute the latency statistics",
			       i);
	}
	vm->report.latency = vm->latency;
}

static void vm__report(struct vm *vm)
{
	struct report *r = &vm->report;
	unsigned int i;
	bool ok = !vm->status && !stop_signal;

	for (i = 0; i < vm->nr_started; i++) {
		if (kvm_cpu__check(&vm->cpus[i], r->iterations,
				   vm->info->work_port))
			ok = false;
		kvm_cpu__read_pvsched_area(&vm->cpus[i]);
	}
	if (!vm->opts.no_pvsched)
		r->final_ok = !pvsched__get(vm->kvm.vm_fd, r->final);
	vm__read_stats(vm);
	if (vm->info->latency)
		vm__read_latency(vm);
	r->opts = &vm->opts;
	r->payload = vm->payload_path;
	r->cpus = vm->cpus;
	r->stats = vm->stats;
	r->nr_cpus = vm->nr_started;
	r->ok = ok;
	r->signal = stop_signal;
	if (vm->opts.json)
		report__json(stdout, r);
	else
		report__text(stdout, r);
	if (!ok && !stop_signal)
		vm__fail(vm, EXIT_FAILED);
}

static void vm__destroy(struct vm *vm)
{
	unsigned int i;

	for (i = 0; i < vm->nr_cpus; i++)
		kvm_cpu__exit(&vm->cpus[i]);
	kvm__close(&vm->kvm);
}

static int vm__run(struct vm *vm)
{
	const struct options *o = &vm->opts;

	vm->report.iterations = o->seconds ? 0 :
				o->iterations ?: vm->info->iterations;
	if (vm->info->timer)
		vm->report.period_us = o->period_us ?: vm->info->period_us;
	if (vm->info->busy)
		vm->report.busy_loops = o->busy_loops ?:
					MINIVMM_DEFAULT_BUSY_LOOPS;
	if (vm->info->irq_flags) {
		vm->report.wait = o->wait ?: IRQ_WAIT_HALT;
		vm->report.boost_irq = o->boost_irq;
	}
	if (vm->info->latency) {
		vm->report.boost = o->boost;
		vm->samples_max = vm->report.iterations ?:
				  MINIVMM_LAT_MAX_SAMPLES;
	}
	kvm__init(&vm->kvm);
	vm__fail(vm, vm__create(vm));
	if (!vm->status)
		vm__fail(vm, vm__pvsched_init(vm));
	if (!vm->status && !stop_signal)
		vm__fail(vm, vm__start_vcpus(vm));
	if (vm->nr_started) {
		if (!vm->status)
			vm__main_loop(vm);
		vm__stop_vcpus(vm);
		vm__join(vm);
		vm__report(vm);
	}
	vm__destroy(vm);
	if (stop_signal)
		vm__fail(vm, EXIT_SIGNAL_BASE + stop_signal);
	return vm->status;
}

int main(int argc, char *argv[])
{
	int ret;

	switch (options__parse(&vm.opts, argc, argv, stderr)) {
	case OPTIONS_HELP:
		options__usage(stdout);
		return EXIT_OK;
	case OPTIONS_VERSION:
		printf("minivmm %s\n", MINIVMM_VERSION);
		return EXIT_OK;
	case OPTIONS_ERROR:
		fprintf(stderr, "Try 'minivmm --help'.\n");
		return EXIT_USAGE;
	case OPTIONS_RUN:
		break;
	}
	info = vm.opts.json ? stderr : stdout;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (vm.opts.list_drivers)
		return list_drivers(vm.opts.json);

	signals__init();
	ret = vm__load_payload(&vm);
	if (!ret)
		ret = vm__run(&vm);
	free(vm.image);
	return ret;
}
