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
 *
 * A Linux guest (--kernel) instead of a payload: read the bzImage and the
 * initrd and place them (linux.c) before KVM -> the VM with the PIT, the
 * kernel, its zero page and the MP table, the UART and the port devices,
 * PCI bus 0 with its host bridge, the filter of MSR_KVM_PVSCHED (with
 * which the guest registers its own pvsched areas) -> vCPU 0 at
 * startup_64, the others waiting for INIT/SIPI -> the main loop also
 * feeds the console's input to the UART -> the guest ends the run (debug
 * exit, reboot) -> report; the exit status is the guest's. With
 * --reboots=N, at each of its first N reboots the VM is destroyed and
 * created again, as at start (a fresh boot, the driver assigned again),
 * the console kept; the report is the last boot's.
 *
 * The exit statuses (options.h, --help, README.md) are decided here and
 * nowhere else: the other files give 0 or -errno and print what went
 * wrong; each step below turns its own failures into EXIT_USAGE,
 * EXIT_NO_PVSCHED or EXIT_FAILED, since an errno means different things
 * at different steps (ENOTTY from the cap check or a pvsched VM ioctl is
 * a kernel without pvsched, from any other ioctl a failure). The run
 * keeps the first (run__fail()).
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
#include "ioport.h"
#include "kvm-cpu.h"
#include "kvm.h"
#include "latency.h"
#include "linux.h"
#include "mptable.h"
#include "options.h"
#include "payload.h"
#include "pci.h"
#include "pvsched.h"
#include "report.h"
#include "serial.h"
#include "stats.h"
#include "util.h"
#include "x86.h"

#define MAIN_LOOP_NS		5000000		/* 5 ms */
#define STOP_GRACE_SECONDS	5.0		/* DONE due after params.stop */

_Static_assert(MINIVMM_MAX_VCPUS <= GUEST_PVSCHED_AREA_SLOTS,
	       "one pvsched area per vCPU does not fit in the areas' page");
_Static_assert(MINIVMM_MAX_VCPUS * MINIVMM_LAT_MAX_SAMPLES * sizeof(__u32) <=
	       GUEST_SAMPLES_BYTES,
	       "the latency samples of all vCPUs do not fit in guest memory");

/*
 * One run of minivmm: its options and payload, the VM (kvm) and its vCPUs,
 * and what they leave for the report. "vm" here is only ever KVM's VM.
 */
struct run {
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

	/* A Linux guest (--kernel): all of it, read before KVM. */
	bool linux_guest;
	void *kernel;			/* the bzImage file */
	size_t kernel_size;
	struct linux_image bzimage;	/* its setup header, into kernel */
	void *initrd;
	size_t initrd_size;
	const char *cmdline;
	struct linux_plan plan;		/* where things go in guest memory */
	struct serial serial;		/* COM1 */
	struct serial_console console;	/* its host side */
	struct ioport_bus io_bus;
	struct pci_bus pci;
	struct report_linux linux_report;
	unsigned int nr_reboots;	/* guest reboots that booted it again */
};

static struct run run;
static FILE *info;			/* stdout, or stderr with --json */
static volatile sig_atomic_t stop_signal;

#define pr_info(fmt, ...)	fprintf(info, fmt "\n", ##__VA_ARGS__)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void run__fail(struct run *run, int status)
{
	if (!run->status)
		run->status = status;
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
static int run__load_payload(struct run *run)
{
	size_t max = payload__max_size(run->opts.nr_vcpus);
	struct payload_dirs dirs;
	char exe[PATH_MAX], err[PATH_MAX + 128];
	const struct payload_info *pi = payload__info(run->opts.payload);
	ssize_t n;
	int ret, i;

	/* A usage error, before any file is looked for. */
	if (run->opts.period_us && pi && !pi->timer) {
		pr_err("--period-us: payload %s has no timer (only halt, or a payload file of another name)",
		       pi->name);
		return EXIT_USAGE;
	}
	if (run->opts.busy_loops && pi && !pi->busy) {
		pr_err("--busy-loops: payload %s has no busy loop (only boost, or a payload file of another name)",
		       pi->name);
		return EXIT_USAGE;
	}
	if (run->opts.wait && pi && !pi->irq_flags) {
		pr_err("--wait: payload %s has no choice of wait (only irq, latency, or a payload file of another name)",
		       pi->name);
		return EXIT_USAGE;
	}
	if (run->opts.boost_irq && pi && !pi->irq_flags) {
		pr_err("--boost-irq: payload %s raises no PVSCHED_GUEST_BOOST_IRQ (only irq, latency, or a payload file of another name)",
		       pi->name);
		return EXIT_USAGE;
	}
	if (run->opts.boost && pi && !pi->latency && !pi->toggle) {
		pr_err("--boost: payload %s raises no PVSCHED_GUEST_BOOST around its waits (only latency, and toggle with hold)",
		       pi->name);
		return EXIT_USAGE;
	}
	if (run->opts.boost == LAT_BOOST_WAIT && pi && pi->toggle) {
		pr_err("--boost=wait: payload %s raises and drops PVSCHED_GUEST_BOOST itself (only --boost=hold)",
		       pi->name);
		return EXIT_USAGE;
	}
	if (run->opts.touch_mib && pi && !pi->toggle) {
		pr_err("--touch: payload %s touches no memory (only toggle)",
		       pi->name);
		return EXIT_USAGE;
	}
	if (run->opts.latency_samples && pi && !pi->latency) {
		pr_err("--latency-samples: payload %s takes no latency samples (only latency)",
		       pi->name);
		return EXIT_USAGE;
	}
	if (run->opts.iterations > MINIVMM_LAT_MAX_SAMPLES && pi &&
	    pi->latency) {
		pr_err("--iterations: payload %s keeps at most %llu samples per vCPU",
		       pi->name, MINIVMM_LAT_MAX_SAMPLES);
		return EXIT_USAGE;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	payload__dirs(exe, &dirs);
	ret = payload__resolve(run->opts.payload, &dirs, run->payload_path,
			       sizeof(run->payload_path));
	if (ret == -EINVAL) {
		pr_err("unknown payload '%s' (known: %s; or give a path)",
		       run->opts.payload, payload__names());
		return EXIT_USAGE;
	}
	if (ret) {
		pr_err("payload '%s' not found; looked in:", run->opts.payload);
		for (i = 0; i < PAYLOAD_NR_DIRS; i++)
			fprintf(stderr, "  %s/\n", dirs.dir[i]);
		return EXIT_FAILED;
	}
	run->info = payload__info(run->payload_path);
	run->image = malloc(max);
	if (!run->image) {
		pr_err("payload buffer: %s", strerror(errno));
		return EXIT_FAILED;
	}
	if (payload__load(run->payload_path, run->image, max, &run->image_size,
			  err, sizeof(err))) {
		pr_err("payload %s", err);
		return EXIT_FAILED;
	}
	return EXIT_OK;
}

/*
 * Read the bzImage and the initrd, check them and place them in guest
 * memory of --mem MiB: all before KVM is touched. Each error is one line,
 * and exit status 3, as for a payload file.
 */
static int run__load_kernel(struct run *run)
{
	const struct options *o = &run->opts;
	__u64 mem = (o->mem_mib ?: LINUX_DEFAULT_MEM_MIB) << 20;
	char err[PATH_MAX + 256];

	run->linux_guest = true;
	run->cmdline = o->append ? o->append : LINUX_DEFAULT_CMDLINE;
	if (linux__read_file(o->kernel, &run->kernel, &run->kernel_size, err,
			     sizeof(err))) {
		pr_err("--kernel: %s", err);
		return EXIT_FAILED;
	}
	if (linux__parse(run->kernel, run->kernel_size, &run->bzimage, err,
			 sizeof(err))) {
		pr_err("--kernel: %s: %s", o->kernel, err);
		return EXIT_FAILED;
	}
	if (o->initrd && linux__read_file(o->initrd, &run->initrd,
					  &run->initrd_size, err,
					  sizeof(err))) {
		pr_err("--initrd: %s", err);
		return EXIT_FAILED;
	}
	if (linux__plan(&run->bzimage, mem, run->initrd_size,
			strlen(run->cmdline), &run->plan, err, sizeof(err))) {
		pr_err("%s", err);
		return EXIT_FAILED;
	}
	return EXIT_OK;
}

static __u64 run__flags(const struct run *run)
{
	const struct report *r = &run->report;

	return (r->wait == IRQ_WAIT_SPIN ? MINIVMM_IRQ_SPIN : 0) |
	       (r->boost_irq ? MINIVMM_IRQ_BOOST_IRQ : 0) |
	       (r->boost == LAT_BOOST_WAIT ? MINIVMM_LAT_BOOST_WAIT : 0) |
	       (r->boost == LAT_BOOST_HOLD ? MINIVMM_LAT_BOOST_HOLD : 0);
}

/* The toggle payload's params.flags. */
static __u64 run__toggle_flags(const struct run *run)
{
	return (run->opts.boost == LAT_BOOST_HOLD ? MINIVMM_TOGGLE_HOLD : 0) |
	       (run->opts.touch_mib ? MINIVMM_TOGGLE_TOUCH : 0);
}

/* params.period_tsc comes later, from the first vCPU's TSC frequency. */
static void run__fill_params(struct run *run)
{
	struct minivmm_params *p = kvm__params(&run->kvm);

	p->magic = MINIVMM_PARAMS_MAGIC;
	p->iterations = run->report.iterations;
	p->progress_every = run->info->progress_every;
	p->timer_count = run->report.period_us * MINIVMM_TIMER_COUNT_PER_US;
	p->nr_vcpus = run->opts.nr_vcpus;
	p->stop = 0;
	p->pvsched_area_gpa = 0;	/* run__pvsched_areas() sets it */
	p->busy_loops = run->report.busy_loops;
	p->flags = run__flags(run);
	p->period_tsc = 0;
	p->samples_gpa = run->samples_max ? GUEST_SAMPLES_GPA : 0;
	p->samples_max = run->samples_max;
	if (run->info->toggle) {
		p->flags = run__toggle_flags(run);
		/* The pages to touch, all vCPUs' (minivmm-guest.h). */
		p->samples_gpa = run->opts.touch_mib ? GUEST_SAMPLES_GPA : 0;
		p->samples_max = (run->opts.touch_mib << 20) / 4;
	}
}

/*
 * The latency payload's TSC-deadline period: --period-us in ticks of the
 * vCPUs' TSC, whose frequency KVM gives per vCPU (all the same here: the
 * VM's default); the report converts the samples back with it.
 */
static int run__latency_params(struct run *run)
{
	unsigned long long khz;

	if (kvm_cpu__get_tsc_khz(&run->cpus[0], &khz))
		return EXIT_FAILED;
	run->report.tsc_khz = khz;
	kvm__params(&run->kvm)->period_tsc = run->report.period_us * khz / 1000;
	return EXIT_OK;
}

/*
 * One pvsched area per vCPU, vCPU i's at GUEST_PVSCHED_AREA(i), when KVM
 * offers them; then the guest learns where they are from the params
 * block. Without KVM_CAP_PVSCHED_AREA the VM runs without (the report
 * says so); a failed KVM_SET_PVSCHED_AREA fails the run. --no-pvsched
 * and --no-area do not even ask.
 */
static int run__pvsched_areas(struct run *run)
{
	unsigned int i;

	run->report.area = AREA_NOT_USED;
	if (run->opts.no_pvsched || run->opts.no_area)
		return EXIT_OK;
	run->report.area = AREA_NOT_OFFERED;
	if (!kvm__has_pvsched_area(&run->kvm))
		return EXIT_OK;
	for (i = 0; i < run->nr_cpus; i++) {
		if (kvm_cpu__set_pvsched_area(&run->cpus[i],
					      GUEST_PVSCHED_AREA(i)))
			return EXIT_FAILED;
	}
	kvm__params(&run->kvm)->pvsched_area_gpa = GUEST_PVSCHED_AREA_GPA;
	run->report.area = AREA_REGISTERED;
	return EXIT_OK;
}

/* The UART's callbacks: a byte for the console, its IRQ line. */
static void run__serial_tx(void *opaque, __u8 byte)
{
	struct run *run = opaque;

	serial__console_tx(&run->console, byte);
}

/* Before a vCPU's message: the guest's output so far, see struct kvm. */
static void run__console_sync(void *opaque)
{
	struct run *run = opaque;

	serial__console_sync(&run->console, SERIAL_OUT_SYNC_MS);
}

static void run__serial_irq(void *opaque, bool level)
{
	struct run *run = opaque;

	kvm__irq_line(&run->kvm, SERIAL_COM1_IRQ, level);
}

/*
 * PCI bus 0, ports 0xcf8-0xcff: the host bridge at 00:00.0 and nothing
 * else, where a device of a Linux guest would go.
 */
static int run__pci(struct run *run)
{
	int ret;

	pci__init(&run->pci, run->kvm.mem_size);
	run->kvm.pci = &run->pci;
	ret = pci__register_host_bridge(&run->pci);
	if (!ret)
		ret = pci__register_ports(&run->pci, &run->io_bus);
	if (ret)
		pr_err("PCI devices: %s", strerror(-ret));
	return ret;
}

/* The MP table, with CPUID.1 of the vCPUs in its processor entries. */
static int run__mptable(struct run *run)
{
	struct kvm_cpuid2 *c = run->kvm.cpuid;
	struct mptable_cpuid id = { 0, 0 };
	unsigned int i;
	int ret;

	for (i = 0; i < c->nent; i++) {
		if (c->entries[i].function == CPUID_LEAF_FEATURES) {
			id.signature = c->entries[i].eax;
			id.features = c->entries[i].edx;
		}
	}
	ret = mptable__write(kvm__gpa_to_hva(&run->kvm, MPTABLE_GPA,
					     MPTABLE_ROOM),
			     MPTABLE_ROOM, MPTABLE_GPA, run->opts.nr_vcpus, &id);
	if (ret)
		pr_err("MP table for %u vCPUs: %s", run->opts.nr_vcpus,
		       strerror(-ret));
	return ret;
}

/*
 * A Linux guest's VM: irqchip, PIT, --mem of RAM with the kernel, initrd,
 * zero page and MP table, the UART and the port devices, PCI with its
 * host bridge, the vCPUs. The guest registers its own pvsched areas,
 * through KVM's MSR_KVM_PVSCHED, whose writes minivmm filters.
 */
static int run__create_linux_vm(struct run *run)
{
	struct kvm *kvm = &run->kvm;
	unsigned int i;
	int ret;

	kvm->linux_guest = true;
	kvm->mem_size = run->plan.mem_size;
	if (kvm__open(kvm))
		return EXIT_FAILED;
	ret = kvm__check_caps(kvm, true, !run->opts.no_pvsched, false, true,
			      run->opts.nr_vcpus);
	if (ret == -ENOTTY)
		return EXIT_NO_PVSCHED;
	if (!ret)
		ret = kvm__create_vm(kvm, true);
	if (ret)
		return EXIT_FAILED;
	/* As QEMU does: KVM emulates it, its CPUID does not say so. */
	kvm->tsc_deadline = kvm__has_tsc_deadline(kvm);
	/*
	 * The guest registers its areas itself, with MSR_KVM_PVSCHED, where
	 * KVM offers it and minivmm can filter it; else it gets none.
	 */
	run->report.area = AREA_NOT_USED;
	if (!run->opts.no_pvsched)
		run->report.area = AREA_NOT_OFFERED;
	if (!run->opts.no_pvsched && kvm__has_pvsched_area(kvm) &&
	    kvm__has_pvsched_msr(kvm)) {
		if (kvm__filter_pvsched_msr(kvm))
			return EXIT_FAILED;
		kvm->pvsched_msr = true;
		kvm->refuse_areas = run->opts.refuse_areas;
		run->report.area = AREA_BY_GUEST_MSR;
	}
	if (linux__load(kvm->mem, &run->bzimage, &run->plan, run->initrd,
			run->cmdline) || run__mptable(run))
		return EXIT_FAILED;
	kvm->linux_entry = run->plan.entry;
	kvm->linux_boot_params = LINUX_BOOT_PARAMS_GPA;

	serial__init(&run->serial, run__serial_tx, run__serial_irq, run);
	ioport__init(&run->io_bus, &kvm->exit);
	ret = ioport__register_legacy(&run->io_bus, &run->serial);
	if (ret) {
		pr_err("port devices: %s", strerror(-ret));
		return EXIT_FAILED;
	}
	kvm->io_bus = &run->io_bus;
	if (run__pci(run))
		return EXIT_FAILED;

	for (i = 0; i < run->opts.nr_vcpus; i++) {
		run->nr_cpus++;
		if (kvm_cpu__init(&run->cpus[i], kvm, i))
			return EXIT_FAILED;
	}
	return EXIT_OK;
}

/* KVM, caps, VM, payload, params, the vCPU fds and their pvsched areas. */
static int run__create_vm(struct run *run)
{
	unsigned int i;
	int ret;

	if (run->linux_guest)
		return run__create_linux_vm(run);

	/* The toggle payload's pages to touch, past the samples' room. */
	if (run->opts.touch_mib &&
	    GUEST_SAMPLES_GPA + (run->opts.touch_mib << 20) > GUEST_MEM_SIZE)
		run->kvm.mem_size = GUEST_SAMPLES_GPA +
				    (run->opts.touch_mib << 20);
	if (kvm__open(&run->kvm))
		return EXIT_FAILED;
	ret = kvm__check_caps(&run->kvm, run->info->irqchip,
			      !run->opts.no_pvsched, run->info->latency,
			      false, run->opts.nr_vcpus);
	if (ret == -ENOTTY)
		return EXIT_NO_PVSCHED;
	if (!ret)
		ret = kvm__create_vm(&run->kvm, run->info->irqchip);
	if (ret)
		return EXIT_FAILED;
	/* Without it the guest fails with FAIL_NO_TSC_DEADLINE. */
	if (run->info->latency)
		run->kvm.tsc_deadline = kvm__has_tsc_deadline(&run->kvm);

	memcpy(kvm__gpa_to_hva(&run->kvm, MINIVMM_LOAD_GPA, run->image_size),
	       run->image, run->image_size);
	run__fill_params(run);

	for (i = 0; i < run->opts.nr_vcpus; i++) {
		run->nr_cpus++;
		if (kvm_cpu__init(&run->cpus[i], &run->kvm, i))
			return EXIT_FAILED;
	}
	if (run->info->latency && run__latency_params(run))
		return EXIT_FAILED;
	return run__pvsched_areas(run);
}

static bool run__uses_pvsched_count(const struct run *run)
{
	const struct options *o = &run->opts;
	unsigned int i;

	if (!strcmp(run->report.initial, PVSCHED_COUNT_NAME))
		return true;
	if (o->pvsched_set && !strcmp(o->pvsched, PVSCHED_COUNT_NAME))
		return true;
	for (i = 0; i < o->nr_switches; i++) {
		if (!strcmp(o->switches[i].name, PVSCHED_COUNT_NAME))
			return true;
	}
	return false;
}

static void run__reset_stats(struct run *run)
{
	int ret;

	if (!run__uses_pvsched_count(run))
		return;
	ret = stats__reset_count(PVSCHED_COUNT_RESET);
	run->report.stats_reset = ret ? STATS_RESET_FAILED : STATS_RESET_DONE;
	/* Reset again at each reboot (--reboots): said once. */
	if (ret && !run->nr_reboots)
		pr_err("warning: cannot reset %s: %s; counts may include earlier runs",
		       PVSCHED_COUNT_RESET, strerror(-ret));
}

/*
 * A pvsched ioctl failed with @err: say so (@op, @name: see
 * pvsched__error()), and give the exit status. ENOTTY is a kernel
 * without pvsched.
 */
static int run__pvsched_err(const char *op, const char *name, int err)
{
	pvsched__error(op, name, err);
	return err == -ENOTTY ? EXIT_NO_PVSCHED : EXIT_FAILED;
}

/* Before the vCPUs run: note the initial driver, assign --pvsched. */
static int run__pvsched_init(struct run *run)
{
	const char *want = run->opts.pvsched;
	char prev[PVSCHED_OPS_NAME_SIZE], cur[PVSCHED_OPS_NAME_SIZE];
	int ret;

	if (run->opts.no_pvsched)
		return EXIT_OK;
	ret = pvsched__get(&run->kvm, run->report.initial);
	if (ret)
		return run__pvsched_err(kvm_ioctl_name(KVM_GET_PVSCHED_OPS),
					NULL, ret);
	run__reset_stats(run);
	if (!run->opts.pvsched_set)
		return EXIT_OK;

	ret = pvsched__replace(&run->kvm, want, prev);
	if (ret)
		return run__pvsched_err(kvm_ioctl_name(KVM_REPLACE_PVSCHED_OPS),
					want, ret);
	ret = pvsched__get(&run->kvm, cur);
	if (ret)
		return run__pvsched_err(kvm_ioctl_name(KVM_GET_PVSCHED_OPS),
					NULL, ret);
	if (strcmp(cur, want)) {
		pr_err("asked for driver %s, KVM_GET_PVSCHED_OPS says %s",
		       pvsched__display(want), pvsched__display(cur));
		return EXIT_FAILED;
	}
	pr_info("pvsched: %s -> %s", pvsched__display(prev),
		pvsched__display(cur));
	return EXIT_OK;
}

static void run__stop_vcpus(struct run *run)
{
	unsigned int i;

	__atomic_store_n(&run->stop, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < run->nr_started; i++)
		kvm_cpu__kick(&run->cpus[i]);
}

static void run__join(struct run *run)
{
	unsigned int i;

	for (i = 0; i < run->nr_started; i++)
		pthread_join(run->cpus[i].thread, NULL);
}

/*
 * --vcpu-fifo: the started threads wait at the gate, their thread ids
 * known; make each SCHED_FIFO, then open the gate. If one cannot be (or a
 * thread could not be created, @err), none runs the guest: they leave at
 * the gate, are joined, and there is no report.
 */
static int run__vcpu_fifo(struct run *run, int err)
{
	unsigned int i;

	kvm_cpu__gate_wait(&run->gate, run->nr_started);
	for (i = 0; i < run->nr_started && !err; i++)
		err = kvm_cpu__set_fifo(&run->cpus[i], run->opts.vcpu_fifo);
	if (err)
		__atomic_store_n(&run->stop, 1, __ATOMIC_SEQ_CST);
	kvm_cpu__gate_open(&run->gate);
	if (err) {
		run__join(run);
		run->nr_started = 0;
	}
	return err;
}

/*
 * vCPU threads inherit a mask blocking SIGINT/SIGTERM: we handle those.
 * The threads of a Linux guest wait at the gate until all are set up:
 * vCPU 0 must not send an AP its SIPI before the AP's own setup.
 */
static int run__start_vcpus(struct run *run)
{
	bool gate = run->opts.vcpu_fifo || run->linux_guest;
	sigset_t block, old;
	struct kvm_cpu *cpu;
	unsigned int i;
	int err = 0;

	if (gate)
		kvm_cpu__gate_init(&run->gate);

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	/* --reboots: the run's time, from the first boot on. */
	if (!run->nr_reboots)
		run->t_start = now();
	for (i = 0; i < run->nr_cpus && !err; i++) {
		cpu = &run->cpus[i];
		cpu->stop = &run->stop;
		cpu->nr_running = &run->nr_running;
		cpu->gate = gate ? &run->gate : NULL;
		__atomic_add_fetch(&run->nr_running, 1, __ATOMIC_SEQ_CST);
		err = pthread_create(&cpu->thread, NULL, kvm_cpu__thread, cpu);
		if (err) {
			__atomic_sub_fetch(&run->nr_running, 1,
					   __ATOMIC_SEQ_CST);
			pr_err("vcpu%u: pthread_create: %s", i, strerror(err));
			break;
		}
		cpu->started = true;
		run->nr_started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (run->opts.vcpu_fifo) {
		err = run__vcpu_fifo(run, err);
	} else if (gate) {
		/* A failure to start one: the others stop at the gate. */
		kvm_cpu__gate_wait(&run->gate, run->nr_started);
		if (err)
			__atomic_store_n(&run->stop, 1, __ATOMIC_SEQ_CST);
		kvm_cpu__gate_open(&run->gate);
	}
	return err ? EXIT_FAILED : EXIT_OK;
}

static int run__switch(struct run *run, unsigned int i, double t)
{
	const struct pvsched_switch *sw = &run->opts.switches[i];
	struct switch_result *res = &run->report.switches[i];
	int ret;

	res->at = t;
	ret = pvsched__replace(&run->kvm, sw->name, res->prev);
	if (ret) {
		res->status = SWITCH_FAILED;
		res->err = ret;
		return run__pvsched_err("--switch", sw->name, ret);
	}
	res->status = SWITCH_DONE;
	pr_info("%.3fs: pvsched %s -> %s", t, pvsched__display(res->prev),
		pvsched__display(sw->name));
	return EXIT_OK;
}

static bool run__vcpu_failed(struct run *run)
{
	enum kvm_cpu_state s;
	unsigned int i;

	for (i = 0; i < run->nr_started; i++) {
		s = __atomic_load_n(&run->cpus[i].state, __ATOMIC_SEQ_CST);
		if (s == KVM_CPU_ERROR || s == KVM_CPU_GUEST_FAIL)
			return true;
	}
	return false;
}

/* One pass of the main loop; false when the vCPUs must be stopped. */
static bool run__tick(struct run *run, unsigned int *next_switch,
		      double *stop_sent)
{
	const struct options *o = &run->opts;
	struct minivmm_params *p = kvm__params(&run->kvm);
	double t = now() - run->t_start;
	int ret;

	if (stop_signal || run__vcpu_failed(run))
		return false;
	if (run->linux_guest &&
	    guest_exit__reason(&run->kvm.exit) != GUEST_EXIT_NONE)
		return false;
	while (*next_switch < o->nr_switches &&
	       t >= o->switches[*next_switch].at) {
		ret = run__switch(run, (*next_switch)++, t);
		if (ret) {
			run__fail(run, ret);
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
		run__fail(run, EXIT_FAILED);
		return false;
	}
	return true;
}

/* A Linux guest's requests in its areas, every main-loop tick. */
static void run__sample_guest_fields(struct run *run)
{
	unsigned int i;

	for (i = 0; i < run->nr_started; i++)
		kvm_cpu__sample_guest_fields(&run->cpus[i]);
}

static void run__main_loop(struct run *run)
{
	struct timespec ts = { .tv_nsec = MAIN_LOOP_NS };
	unsigned int next_switch = 0;
	double stop_sent = 0;

	while (__atomic_load_n(&run->nr_running, __ATOMIC_SEQ_CST) > 0) {
		if (!run__tick(run, &next_switch, &stop_sent)) {
			run__stop_vcpus(run);
			break;
		}
		if (run->linux_guest)
			run__sample_guest_fields(run);
		if (!run->linux_guest)
			nanosleep(&ts, NULL);
		else if (serial__console_poll(&run->console, &run->serial,
					      MAIN_LOOP_NS) ==
			 SERIAL_CONSOLE_QUIT)
			stop_signal = SIGINT;	/* Ctrl-A x: as Ctrl-C */
	}
}

/*
 * pvsched_count's debugfs first, then the BPF map; "-" for the rest, and
 * for all with --no-pvsched.
 */
static void run__read_stats(struct run *run)
{
	unsigned int i, n = run->nr_started;
	int ret;

	for (i = 0; i < n; i++) {
		run->stats[i].tid = run->cpus[i].tid;
		run->stats[i].source = STATS_NONE;
	}
	if (run->opts.no_pvsched)
		return;
	ret = stats__read_count_file(PVSCHED_COUNT_STATS, run->stats, n);
	if (ret < 0 && ret != -ENOENT)
		pr_err("warning: %s: %s", PVSCHED_COUNT_STATS, strerror(-ret));
	if (ret == (int)n)
		return;
	ret = stats__read_bpf_map(PVSCHED_BPF_COUNT_SLOTS_MAP,
				  PVSCHED_BPF_COUNT_MAP, run->stats, n);
	if (ret < 0 && ret != -ENOENT)
		pr_err("warning: %s: %s", PVSCHED_BPF_COUNT_NAME " maps",
		       strerror(-ret));
}

/*
 * The latency samples a vCPU stored: as many as it reported DONE (its last
 * PROGRESS if it did not finish), up to the room it had.
 */
static void run__read_latency(struct run *run)
{
	const struct kvm_cpu *cpu;
	unsigned long long n;
	unsigned int i;
	__u32 *ticks;

	for (i = 0; i < run->nr_started; i++) {
		cpu = &run->cpus[i];
		n = cpu->state == KVM_CPU_DONE ? cpu->done : cpu->progress;
		if (n > run->samples_max)
			n = run->samples_max;
		ticks = kvm__gpa_to_hva(&run->kvm, GUEST_SAMPLES_GPA +
					i * run->samples_max * sizeof(*ticks),
					n * sizeof(*ticks));
		if (!ticks || latency__stats(ticks, n, run->report.tsc_khz,
					     &run->latency[i]))
			pr_err("warning: vcpu%u: cannot compute the latency statistics",
			       i);
	}
	run->report.latency = run->latency;
}

/*
 * A Linux guest's run is ok when the guest ended it (debug exit, reboot)
 * and no vCPU failed; the exit status is then the guest's.
 */
static bool run__linux_report(struct run *run)
{
	struct report_linux *l = &run->linux_report;
	bool ok = !run->status && !stop_signal;
	unsigned int i;

	for (i = 0; i < run->nr_started; i++) {
		if (run->cpus[i].state == KVM_CPU_ERROR ||
		    run->cpus[i].state == KVM_CPU_GUEST_FAIL)
			ok = false;
		kvm_cpu__read_pvsched_area(&run->cpus[i]);
		/* A guest stopped from outside (a timeout): where was it? */
		if (stop_signal)
			kvm_cpu__dump(&run->cpus[i]);
	}
	l->kernel = run->opts.kernel;
	l->initrd = run->opts.initrd;
	l->cmdline = run->cmdline;
	l->mem_mib = run->plan.mem_size >> 20;
	l->exit = run->kvm.exit;
	l->exit.reason = guest_exit__reason(&run->kvm.exit);
	l->unhandled_io = run->io_bus.unhandled;
	l->serial_tx = run->serial.tx_bytes;
	l->serial_rx = run->serial.rx_bytes;
	l->reboots = run->nr_reboots;
	if (l->exit.reason == GUEST_EXIT_NONE) {
		if (ok)
			pr_err("the guest did not end the run");
		ok = false;
	}
	run->report.linux_guest = l;
	return ok;
}

static void run__report(struct run *run)
{
	struct report *r = &run->report;
	unsigned int i;
	bool ok = !run->status && !stop_signal;

	if (run->linux_guest)
		ok = run__linux_report(run);
	for (i = 0; i < run->nr_started && !run->linux_guest; i++) {
		if (kvm_cpu__check(&run->cpus[i], r->iterations,
				   run->info->work_port))
			ok = false;
		kvm_cpu__read_pvsched_area(&run->cpus[i]);
	}
	if (!run->opts.no_pvsched)
		r->final_ok = !pvsched__get(&run->kvm, r->final);
	run__read_stats(run);
	if (!run->linux_guest && run->info->latency)
		run__read_latency(run);
	r->opts = &run->opts;
	r->payload = run->linux_guest ? NULL : run->payload_path;
	r->cpus = run->cpus;
	r->stats = run->stats;
	r->nr_cpus = run->nr_started;
	r->ok = ok;
	r->signal = stop_signal;
	if (run->opts.json)
		report__json(stdout, r);
	else
		report__text(stdout, r);
	if (!ok && !stop_signal)
		run__fail(run, EXIT_FAILED);
	else if (ok && run->linux_guest)
		run->status = run->linux_report.exit.status;
}

static void run__destroy_vm(struct run *run)
{
	unsigned int i;

	for (i = 0; i < run->nr_cpus; i++)
		kvm_cpu__exit(&run->cpus[i]);
	if (run->kvm.io_bus)
		serial__destroy(&run->serial);
	if (run->kvm.pci)
		pci__destroy(&run->pci);
	kvm__close(&run->kvm);
}

/* What the payload gets, from its defaults and the options. */
static void run__payload_settings(struct run *run)
{
	const struct options *o = &run->opts;

	run->report.iterations = o->seconds ? 0 :
				 o->iterations ?: run->info->iterations;
	if (run->info->timer)
		run->report.period_us = o->period_us ?: run->info->period_us;
	if (run->info->busy)
		run->report.busy_loops = o->busy_loops ?:
					 MINIVMM_DEFAULT_BUSY_LOOPS;
	if (run->info->irq_flags) {
		run->report.wait = o->wait ?: IRQ_WAIT_HALT;
		run->report.boost_irq = o->boost_irq;
	}
	if (run->info->toggle)
		run->report.boost = o->boost;
	if (run->info->latency) {
		run->report.boost = o->boost;
		run->samples_max = run->report.iterations ?:
				   MINIVMM_LAT_MAX_SAMPLES;
	}
}

/*
 * One boot: the VM, the driver, the vCPUs, the main loop; the vCPU
 * threads are joined when it returns. The console (its host side) is
 * started at the first boot and runs across reboots.
 */
static void run__boot(struct run *run)
{
	const struct options *o = &run->opts;

	kvm__init(&run->kvm);
	if (run->linux_guest) {
		run->kvm.before_msg = run__console_sync;
		run->kvm.msg_opaque = run;
	}
	run__fail(run, run__create_vm(run));
	if (!run->status)
		run__fail(run, run__pvsched_init(run));
	/* The guest's console: stdout, or stderr with --json. */
	if (!run->status && !stop_signal && run->linux_guest &&
	    !run->nr_reboots)
		serial__console_start(&run->console, STDIN_FILENO,
				      o->json ? STDERR_FILENO : STDOUT_FILENO);
	if (!run->status && !stop_signal)
		run__fail(run, run__start_vcpus(run));
	if (!run->nr_started)
		return;
	if (!run->status)
		run__main_loop(run);
	run__stop_vcpus(run);
	run__join(run);
	/* Up to the last vCPU thread's end, which its run_ns counts to. */
	run->report.elapsed = now() - run->t_start;
	/* Once more: what a guest asked last, if it still has its area. */
	if (run->linux_guest)
		run__sample_guest_fields(run);
}

/*
 * --reboots: did the guest reboot (its keyboard controller reset, not a
 * triple fault) with reboots left, and nothing else end the run?
 */
static bool run__reboot_due(struct run *run)
{
	return run->linux_guest && run->nr_started && !run->status &&
	       !stop_signal && run->nr_reboots < run->opts.reboots &&
	       guest_exit__reason(&run->kvm.exit) == GUEST_EXIT_RESET &&
	       !run__vcpu_failed(run);
}

/*
 * After a boot whose threads are joined: nothing of its VM is left (fds,
 * memory, devices, the UART's guest side), nor of its vCPUs, whose rows
 * start again from 0.
 */
static void run__forget_boot(struct run *run)
{
	run__destroy_vm(run);
	kvm_cpu__gate_destroy(&run->gate);
	memset(run->cpus, 0, sizeof(run->cpus));
	run->nr_cpus = 0;
	run->nr_started = 0;
	run->stop = 0;
	run->nr_running = 0;
}

static int run__vm(struct run *run)
{
	if (!run->linux_guest)
		run__payload_settings(run);
	run__boot(run);
	while (run__reboot_due(run)) {
		run__forget_boot(run);
		if (stop_signal)
			break;
		run->nr_reboots++;
		serial__console_sync(&run->console, SERIAL_OUT_SYNC_MS);
		pr_info("minivmm: the guest rebooted: boot %u of at most %u",
			run->nr_reboots + 1, run->opts.reboots + 1);
		run__boot(run);
	}
	if (run->nr_started) {
		serial__console_stop(&run->console);
		run__report(run);
	}
	serial__console_stop(&run->console);
	run__destroy_vm(run);
	if (stop_signal)
		run__fail(run, EXIT_SIGNAL_BASE + stop_signal);
	return run->status;
}

int main(int argc, char *argv[])
{
	int ret;

	switch (options__parse(&run.opts, argc, argv, stderr)) {
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
	info = run.opts.json ? stderr : stdout;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (run.opts.list_drivers)
		return list_drivers(run.opts.json);

	signals__init();
	ret = run.opts.kernel ? run__load_kernel(&run) :
				run__load_payload(&run);
	if (!ret)
		ret = run__vm(&run);
	free(run.image);
	free(run.kernel);
	free(run.initrd);
	return ret;
}
