// SPDX-License-Identifier: GPL-2.0
/*
 * Command line parsing. No side effects besides messages to @err, so the
 * unit tests can drive it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ioport.h"
#include "linux.h"
#include "options.h"
#include "util.h"

enum {
	OPT_PVSCHED = 0x100,
	OPT_NO_PVSCHED,
	OPT_NO_AREA,
	OPT_VCPUS,
	OPT_PAYLOAD,
	OPT_ITERATIONS,
	OPT_SECONDS,
	OPT_PERIOD_US,
	OPT_BUSY_LOOPS,
	OPT_WAIT,
	OPT_BOOST_IRQ,
	OPT_BOOST,
	OPT_VCPU_FIFO,
	OPT_LATENCY_SAMPLES,
	OPT_TOUCH,
	OPT_SWITCH,
	OPT_LIST_DRIVERS,
	OPT_JSON,
	OPT_KERNEL,
	OPT_INITRD,
	OPT_APPEND,
	OPT_MEM,
	OPT_REBOOTS,
	OPT_REFUSE_AREAS,
};

static const struct option long_options[] = {
	{ "pvsched",	  required_argument, NULL, OPT_PVSCHED },
	{ "no-pvsched",	  no_argument,	     NULL, OPT_NO_PVSCHED },
	{ "no-area",	  no_argument,	     NULL, OPT_NO_AREA },
	{ "vcpus",	  required_argument, NULL, OPT_VCPUS },
	{ "payload",	  required_argument, NULL, OPT_PAYLOAD },
	{ "iterations",	  required_argument, NULL, OPT_ITERATIONS },
	{ "seconds",	  required_argument, NULL, OPT_SECONDS },
	{ "period-us",	  required_argument, NULL, OPT_PERIOD_US },
	{ "busy-loops",	  required_argument, NULL, OPT_BUSY_LOOPS },
	{ "wait",	  required_argument, NULL, OPT_WAIT },
	{ "boost-irq",	  no_argument,	     NULL, OPT_BOOST_IRQ },
	{ "boost",	  required_argument, NULL, OPT_BOOST },
	{ "vcpu-fifo",	  required_argument, NULL, OPT_VCPU_FIFO },
	{ "latency-samples", no_argument,    NULL, OPT_LATENCY_SAMPLES },
	{ "touch",	  required_argument, NULL, OPT_TOUCH },
	{ "switch",	  required_argument, NULL, OPT_SWITCH },
	{ "list-drivers", no_argument,	     NULL, OPT_LIST_DRIVERS },
	{ "json",	  no_argument,	     NULL, OPT_JSON },
	{ "kernel",	  required_argument, NULL, OPT_KERNEL },
	{ "initrd",	  required_argument, NULL, OPT_INITRD },
	{ "append",	  required_argument, NULL, OPT_APPEND },
	{ "mem",	  required_argument, NULL, OPT_MEM },
	{ "reboots",	  required_argument, NULL, OPT_REBOOTS },
	{ "refuse-areas",   no_argument,     NULL, OPT_REFUSE_AREAS },
	{ "help",	  no_argument,	     NULL, 'h' },
	{ "version",	  no_argument,	     NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

void options__usage(FILE *f)
{
	fprintf(f,
"Usage: minivmm [OPTION]...\n"
"       minivmm --kernel=BZIMAGE [--initrd=FILE] [--append=CMDLINE]\n"
"               [--mem=MIB] [--reboots=N] [OPTION]...\n"
"Run a tiny KVM guest, or a Linux guest, on N vCPU threads under a pvsched\n"
"driver and report the exits and driver callbacks of each vCPU thread.\n"
"\n"
"  --kernel=BZIMAGE     boot a Linux bzImage (64-bit boot protocol, 2.12 or\n"
"                       later) instead of a payload: in-kernel irqchip and\n"
"                       PIT, an MP table for the vCPUs, a 16550A UART at\n"
"                       0x3f8, IRQ 4 (the console: stdin and stdout, stderr\n"
"                       with --json; on a terminal, Ctrl-A x quits); the\n"
"                       guest ends the run with an OUT of status S to port\n"
"                       0x%x (minivmm exits with S) or by rebooting (0)\n"
"  --initrd=FILE        Linux: the initial ramdisk\n"
"  --append=CMDLINE     Linux: the kernel command line (default \"%s\")\n"
"  --mem=MIB            Linux: guest RAM in MiB, 1..%llu (default %llu)\n"
"  --reboots=N          Linux: boot the guest again (a new VM, same kernel,\n"
"                       initrd and command line) at each of its first N\n"
"                       reboots, 0..%d (default 0: a reboot ends the run);\n"
"                       the report's vCPU rows are the last boot's; not\n"
"                       with --switch\n"
"  --refuse-areas       Linux: answer each registration of a pvsched area\n"
"                       through MSR_KVM_PVSCHED with #GP, as a VMM whose\n"
"                       MSR filter denies it would (unregistering is\n"
"                       let through): to see what a guest does then;\n"
"                       not with --no-pvsched\n"
"\n"
"  --pvsched=NAME       assign pvsched driver NAME before the vCPUs run\n"
"                       (KVM_REPLACE_PVSCHED_OPS); --pvsched= runs with no\n"
"                       driver; without it the VM keeps its initial driver\n"
"  --no-pvsched         plain KVM, for baseline runs on a kernel without\n"
"                       the pvsched series: KVM_CAP_PVSCHED is not needed,\n"
"                       no pvsched ioctl is made, no callback counts are\n"
"                       read or reset; excludes --pvsched and --switch\n"
"  --no-area            do not register the vCPUs' shared areas: drivers\n"
"                       get none (the cost of one, for make bench)\n"
"  --vcpus=N            number of vCPUs, 1..%d (default 1)\n"
"  --payload=NAME|PATH  guest payload (default io): io, halt, cpuid, boost,\n"
"                       irq, latency or toggle, found as NAME.bin next to the\n"
"                       minivmm binary, then in ../guest-payload/ relative\n"
"                       to it, then in /usr/share/minivmm/; anything with a\n"
"                       '/' is a path\n"
"  --iterations=N       guest iterations per vCPU (default): io port writes\n"
"                       (100000), cpuid CPUIDs (1000000), halt timer ticks\n"
"                       (1000), boost bursts, one per tick (100), irq timer\n"
"                       ticks (1000), latency samples (2000, at most %llu),\n"
"                       toggle rounds (1000)\n"
"  --seconds=S          run S seconds instead (decimals allowed), then ask\n"
"                       the guest to stop; excludes --iterations\n"
"  --period-us=N        halt, boost, irq and latency payloads: timer period\n"
"                       in microseconds, 1..%llu (default %llu, latency\n"
"                       %llu; the LAPIC timer count is N * %llu, the\n"
"                       latency payload's TSC-deadline period N * tsc_khz /\n"
"                       1000); also passed to a payload given by a path of\n"
"                       another name; a usage error with io or cpuid (no\n"
"                       timer)\n"
"  --busy-loops=N       boost payload: iterations of the busy loop it runs\n"
"                       boosted per burst, 1..%llu (default %llu); toggle:\n"
"                       per half round (pages with --touch); also\n"
"                       passed to a payload file of another name; a usage\n"
"                       error with irq, latency, io, halt or cpuid\n"
"  --wait=halt|spin     irq and latency payloads: how the guest waits for\n"
"                       each tick or sample: \"sti; hlt\" (halt, the default)\n"
"                       or a spin with interrupts on (spin); also passed to\n"
"                       a payload file of another name; a usage error with\n"
"                       io, halt, cpuid or boost\n"
"  --boost-irq          irq and latency payloads: the guest raises\n"
"                       PVSCHED_GUEST_BOOST_IRQ in its pvsched area, asking\n"
"                       the driver for a boost to take its interrupts; also\n"
"                       passed to a payload file of another name; a usage\n"
"                       error with io, halt, cpuid or boost, and with\n"
"                       --no-area or --no-pvsched (no area then)\n"
"  --boost=wait|hold    latency payload: the guest raises PVSCHED_GUEST_BOOST\n"
"                       in its pvsched area around each wait for a sample\n"
"                       (wait) or for the whole run (hold, to show the\n"
"                       host's bounds); toggle payload: hold only, the flag\n"
"                       never drops; a usage error with any other\n"
"                       payload, and with --no-area or --no-pvsched\n"
"  --touch=MIB          toggle payload: its work writes to each page of MIB\n"
"                       MiB (1..%llu) of guest memory, faulting it in, the\n"
"                       vCPU thread running in the host kernel; a usage\n"
"                       error with any other payload\n"
"  --vcpu-fifo=PRIO     before the vCPUs run, make each vCPU thread\n"
"                       SCHED_FIFO at PRIO, 1..%d (sched_setscheduler(), as\n"
"                       chrt -f does): the static real-time baseline; needs\n"
"                       CAP_SYS_NICE or RLIMIT_RTPRIO (EPERM: exit status\n"
"                       %d); a vCPU that spins holds its CPU as long as RT\n"
"                       throttling lets it\n"
"  --latency-samples    latency payload: also every sample, in ns, in the\n"
"                       JSON report (\"samples_ns\"), e.g. to pool runs;\n"
"                       a usage error with other named payloads\n"
"  --switch=NAME@S      replace the driver with NAME S seconds after the\n"
"                       vCPUs start (@S alone unassigns); repeatable, up\n"
"                       to %d times\n"
"  --list-drivers       print /proc/sys/kernel/pvsched_available_drivers\n"
"  --json               print the report as JSON on stdout\n"
"  -h, --help           print this help\n"
"  -V, --version        print the version\n"
"\n"
"Driver callback counts come from pvsched_count's debugfs stats (reset at\n"
"start whenever pvsched_count is the initial, --pvsched or a --switch\n"
"driver, so they cover this run only), else from bpf_pvsched_count's pinned\n"
"map (cumulative per thread id since its loader's reset), else \"-\"\n"
"(always \"-\" with --no-pvsched).\n"
"\n"
"When KVM offers KVM_CAP_PVSCHED_AREA (and without --no-pvsched), each vCPU\n"
"gets a pvsched area (KVM_SET_PVSCHED_AREA); the report shows its boost\n"
"counters as the driver left them.\n"
"\n"
"The latency payload measures, per vCPU, how late its TSC-deadline timer\n"
"interrupt arrives (as cyclictest does); the report gives min, mean, p50,\n"
"p99, p99.9, max and a histogram, in ns of the vCPU's TSC\n"
"(KVM_GET_TSC_KHZ).\n"
"\n"
"Exit status: %d ok, %d usage error, %d kernel without pvsched support (a\n"
"run with --no-pvsched never gives it), %d any other failure (KVM, guest,\n"
"unknown driver, KVM_SET_PVSCHED_AREA, EPERM for a driver that changes\n"
"scheduling without CAP_SYS_NICE, --vcpu-fifo refused), 128+N stopped by\n"
"signal N (SIGINT, SIGTERM); a Linux guest's debug-exit status S as is.\n",
		IOPORT_DEBUG_EXIT, LINUX_DEFAULT_CMDLINE,
		LINUX_MAX_MEM_MIB, LINUX_DEFAULT_MEM_MIB, MINIVMM_MAX_REBOOTS,
		MINIVMM_MAX_VCPUS, MINIVMM_LAT_MAX_SAMPLES,
		MINIVMM_MAX_PERIOD_US, MINIVMM_DEFAULT_PERIOD_US,
		MINIVMM_LAT_PERIOD_US, MINIVMM_TIMER_COUNT_PER_US,
		MINIVMM_MAX_BUSY_LOOPS, MINIVMM_DEFAULT_BUSY_LOOPS,
		MINIVMM_MAX_TOUCH_MIB, MINIVMM_MAX_FIFO_PRIO, EXIT_FAILED,
		MINIVMM_MAX_SWITCHES, EXIT_OK, EXIT_USAGE,
		EXIT_NO_PVSCHED, EXIT_FAILED);
}

/* A decimal count in 1..@max. */
int options__parse_count(const char *s, unsigned long long max,
			 unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < 1 || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* --reboots' value: a decimal count in 0..MINIVMM_MAX_REBOOTS. */
int options__parse_reboots(const char *s, unsigned int *out)
{
	unsigned long long v;

	if (!strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	if (options__parse_count(s, MINIVMM_MAX_REBOOTS, &v))
		return -EINVAL;
	*out = v;
	return 0;
}

/* Seconds, in [0, MINIVMM_MAX_SECONDS] or (0, ...] unless @allow_zero. */
static int parse_time(const char *s, bool allow_zero, double *out)
{
	double v;
	char *end;

	if (!*s || s[strspn(s, "0123456789.")])
		return -EINVAL;	/* plain decimals: no sign, exponent or hex */
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0 || (!allow_zero && !v) ||
	    v > MINIVMM_MAX_SECONDS)
		return -EINVAL;
	*out = v;
	return 0;
}

int options__parse_seconds(const char *s, double *out)
{
	return parse_time(s, false, out);
}

/* A driver name: must fit, NUL included, in PVSCHED_OPS_NAME_SIZE bytes. */
int options__parse_name(const char *s, char name[PVSCHED_OPS_NAME_SIZE])
{
	size_t len = strlen(s);

	if (len >= (size_t)PVSCHED_OPS_NAME_SIZE)
		return -ENAMETOOLONG;
	memset(name, 0, PVSCHED_OPS_NAME_SIZE);
	memcpy(name, s, len);
	return 0;
}

/* NAME@SECONDS; SECONDS may be 0 ("as soon as the vCPUs run"). */
int options__parse_switch(const char *s, struct pvsched_switch *sw)
{
	const char *at = strrchr(s, '@');
	char name[PVSCHED_OPS_NAME_SIZE];
	size_t len;

	if (!at)
		return -EINVAL;
	len = at - s;
	if (len >= (size_t)PVSCHED_OPS_NAME_SIZE)
		return -ENAMETOOLONG;
	memset(name, 0, sizeof(name));
	memcpy(name, s, len);
	if (parse_time(at + 1, true, &sw->at))
		return -EINVAL;
	memcpy(sw->name, name, sizeof(name));
	return 0;
}

static const char *const wait_names[] = {
	[IRQ_WAIT_HALT] = "halt",
	[IRQ_WAIT_SPIN] = "spin",
};

/* --wait's value: halt or spin. */
int options__parse_wait(const char *s, enum irq_wait *out)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wait_names); i++) {
		if (wait_names[i] && !strcmp(s, wait_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* "halt" or "spin"; NULL for IRQ_WAIT_UNSET. */
const char *options__wait_name(enum irq_wait wait)
{
	if ((unsigned int)wait >= ARRAY_SIZE(wait_names))
		return NULL;
	return wait_names[wait];
}

static const char *const boost_names[] = {
	[LAT_BOOST_WAIT] = "wait",
	[LAT_BOOST_HOLD] = "hold",
};

/* --boost's value: wait or hold. */
int options__parse_boost(const char *s, enum lat_boost *out)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(boost_names); i++) {
		if (boost_names[i] && !strcmp(s, boost_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* "wait" or "hold"; NULL for LAT_BOOST_NONE. */
const char *options__boost_name(enum lat_boost boost)
{
	if ((unsigned int)boost >= ARRAY_SIZE(boost_names))
		return NULL;
	return boost_names[boost];
}

static void options__defaults(struct options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->nr_vcpus = 1;
	opts->payload = "io";
}

static void options__sort_switches(struct options *opts)
{
	struct pvsched_switch tmp;
	unsigned int i, j;

	/* Insertion sort: stable, so equal times keep command line order. */
	for (i = 1; i < opts->nr_switches; i++) {
		tmp = opts->switches[i];
		for (j = i; j > 0 && opts->switches[j - 1].at > tmp.at; j--)
			opts->switches[j] = opts->switches[j - 1];
		opts->switches[j] = tmp;
	}
}

/*
 * options__add_switch(), options__one(), options__check(): 0, or -EINVAL
 * with the message on @err.
 */
static int options__add_switch(struct options *opts, const char *arg,
			       FILE *err)
{
	if (opts->nr_switches == MINIVMM_MAX_SWITCHES) {
		fprintf(err, "minivmm: at most %d --switch options\n",
			MINIVMM_MAX_SWITCHES);
		return -EINVAL;
	}
	if (options__parse_switch(arg, &opts->switches[opts->nr_switches])) {
		fprintf(err,
			"minivmm: --switch: '%s' is not NAME@SECONDS (NAME below %d characters)\n",
			arg, PVSCHED_OPS_NAME_SIZE);
		return -EINVAL;
	}
	opts->nr_switches++;
	return 0;
}

static int options__one(struct options *opts, int c, const char *arg,
			FILE *err)
{
	unsigned long long n;

	switch (c) {
	case OPT_PVSCHED:
		if (options__parse_name(arg, opts->pvsched)) {
			fprintf(err, "minivmm: --pvsched: name too long: '%s'\n",
				arg);
			return -EINVAL;
		}
		opts->pvsched_set = true;
		return 0;
	case OPT_NO_PVSCHED:
		opts->no_pvsched = true;
		return 0;
	case OPT_NO_AREA:
		opts->no_area = true;
		return 0;
	case OPT_REFUSE_AREAS:
		opts->refuse_areas = true;
		return 0;
	case OPT_VCPUS:
		if (options__parse_count(arg, MINIVMM_MAX_VCPUS, &n)) {
			fprintf(err, "minivmm: --vcpus: '%s' is not in 1..%d\n",
				arg, MINIVMM_MAX_VCPUS);
			return -EINVAL;
		}
		opts->nr_vcpus = n;
		return 0;
	case OPT_PAYLOAD:
		if (!*arg) {
			fprintf(err, "minivmm: --payload: empty name\n");
			return -EINVAL;
		}
		opts->payload = arg;
		opts->payload_set = true;
		return 0;
	case OPT_ITERATIONS:
		if (options__parse_count(arg, ~0ULL, &opts->iterations)) {
			fprintf(err,
				"minivmm: --iterations: '%s' is not a positive integer\n",
				arg);
			return -EINVAL;
		}
		return 0;
	case OPT_SECONDS:
		if (options__parse_seconds(arg, &opts->seconds)) {
			fprintf(err,
				"minivmm: --seconds: '%s' is not a number in (0, %g]\n",
				arg, MINIVMM_MAX_SECONDS);
			return -EINVAL;
		}
		return 0;
	case OPT_PERIOD_US:
		if (options__parse_count(arg, MINIVMM_MAX_PERIOD_US,
					 &opts->period_us)) {
			fprintf(err,
				"minivmm: --period-us: '%s' is not in 1..%llu (microseconds; the timer count, %llu per us, must fit in 32 bits)\n",
				arg, MINIVMM_MAX_PERIOD_US,
				MINIVMM_TIMER_COUNT_PER_US);
			return -EINVAL;
		}
		return 0;
	case OPT_BUSY_LOOPS:
		if (options__parse_count(arg, MINIVMM_MAX_BUSY_LOOPS,
					 &opts->busy_loops)) {
			fprintf(err,
				"minivmm: --busy-loops: '%s' is not in 1..%llu\n",
				arg, MINIVMM_MAX_BUSY_LOOPS);
			return -EINVAL;
		}
		return 0;
	case OPT_WAIT:
		if (options__parse_wait(arg, &opts->wait)) {
			fprintf(err,
				"minivmm: --wait: '%s' is not halt or spin\n",
				arg);
			return -EINVAL;
		}
		return 0;
	case OPT_BOOST_IRQ:
		opts->boost_irq = true;
		return 0;
	case OPT_BOOST:
		if (options__parse_boost(arg, &opts->boost)) {
			fprintf(err,
				"minivmm: --boost: '%s' is not wait or hold\n",
				arg);
			return -EINVAL;
		}
		return 0;
	case OPT_VCPU_FIFO:
		if (options__parse_count(arg, MINIVMM_MAX_FIFO_PRIO, &n)) {
			fprintf(err,
				"minivmm: --vcpu-fifo: '%s' is not in 1..%d (a SCHED_FIFO priority)\n",
				arg, MINIVMM_MAX_FIFO_PRIO);
			return -EINVAL;
		}
		opts->vcpu_fifo = n;
		return 0;
	case OPT_LATENCY_SAMPLES:
		opts->latency_samples = true;
		return 0;
	case OPT_TOUCH:
		if (options__parse_count(arg, MINIVMM_MAX_TOUCH_MIB,
					 &opts->touch_mib)) {
			fprintf(err,
				"minivmm: --touch: '%s' is not in 1..%llu (MiB)\n",
				arg, MINIVMM_MAX_TOUCH_MIB);
			return -EINVAL;
		}
		return 0;
	case OPT_SWITCH:
		return options__add_switch(opts, arg, err);
	case OPT_LIST_DRIVERS:
		opts->list_drivers = true;
		return 0;
	case OPT_JSON:
		opts->json = true;
		return 0;
	case OPT_KERNEL:
	case OPT_INITRD:
		if (!*arg) {
			fprintf(err, "minivmm: --%s: empty path\n",
				c == OPT_KERNEL ? "kernel" : "initrd");
			return -EINVAL;
		}
		if (c == OPT_KERNEL)
			opts->kernel = arg;
		else
			opts->initrd = arg;
		return 0;
	case OPT_APPEND:
		opts->append = arg;
		return 0;
	case OPT_MEM:
		if (options__parse_count(arg, LINUX_MAX_MEM_MIB,
					 &opts->mem_mib)) {
			fprintf(err,
				"minivmm: --mem: '%s' is not in 1..%llu (MiB)\n",
				arg, LINUX_MAX_MEM_MIB);
			return -EINVAL;
		}
		return 0;
	case OPT_REBOOTS:
		if (options__parse_reboots(arg, &opts->reboots)) {
			fprintf(err, "minivmm: --reboots: '%s' is not in 0..%d\n",
				arg, MINIVMM_MAX_REBOOTS);
			return -EINVAL;
		}
		opts->reboots_set = true;
		return 0;
	}
	return -EINVAL;
}

/*
 * The payload options a Linux guest (--kernel) has no use for, and the
 * Linux options a payload has none for: the first one given, or NULL.
 */
static const char *options__payload_only(const struct options *opts)
{
	if (opts->payload_set)
		return "--payload";
	if (opts->iterations)
		return "--iterations";
	if (opts->seconds)
		return "--seconds";
	if (opts->period_us)
		return "--period-us";
	if (opts->busy_loops)
		return "--busy-loops";
	if (opts->wait)
		return "--wait";
	if (opts->boost_irq)
		return "--boost-irq";
	if (opts->boost)
		return "--boost";
	if (opts->latency_samples)
		return "--latency-samples";
	if (opts->touch_mib)
		return "--touch";
	if (opts->no_area)
		return "--no-area";
	return NULL;
}

static const char *options__linux_only(const struct options *opts)
{
	if (opts->initrd)
		return "--initrd";
	if (opts->append)
		return "--append";
	if (opts->mem_mib)
		return "--mem";
	if (opts->reboots_set)
		return "--reboots";
	if (opts->refuse_areas)
		return "--refuse-areas";
	return NULL;
}

static int options__check_linux(const struct options *opts, FILE *err)
{
	const char *name;

	if (!opts->kernel) {
		name = options__linux_only(opts);
		if (name) {
			fprintf(err, "minivmm: %s needs --kernel\n", name);
			return -EINVAL;
		}
		return 0;
	}
	name = options__payload_only(opts);
	if (name) {
		fprintf(err,
			"minivmm: %s is a payload option: not with --kernel\n",
			name);
		return -EINVAL;
	}
	return 0;
}

/* Checks that need the whole command line. */
static int options__check(const struct options *opts, FILE *err)
{
	unsigned int i;

	if (options__check_linux(opts, err))
		return -EINVAL;
	if (opts->iterations && opts->seconds) {
		fprintf(err,
			"minivmm: --iterations and --seconds are mutually exclusive\n");
		return -EINVAL;
	}
	if (opts->no_pvsched && opts->pvsched_set) {
		fprintf(err,
			"minivmm: --no-pvsched and --pvsched are mutually exclusive\n");
		return -EINVAL;
	}
	/* The guest registers through the MSR only if it has the bit. */
	if (opts->refuse_areas && opts->no_pvsched) {
		fprintf(err,
			"minivmm: --refuse-areas: no MSR_KVM_PVSCHED with --no-pvsched\n");
		return -EINVAL;
	}
	if (opts->no_pvsched && opts->nr_switches) {
		fprintf(err,
			"minivmm: --no-pvsched and --switch are mutually exclusive\n");
		return -EINVAL;
	}
	/* --switch times are from the start: of which boot? */
	if (opts->reboots && opts->nr_switches) {
		fprintf(err,
			"minivmm: --reboots=%u and --switch are mutually exclusive\n",
			opts->reboots);
		return -EINVAL;
	}
	/* The flag goes in the vCPU's pvsched area: there is none. */
	if (opts->boost_irq && (opts->no_area || opts->no_pvsched)) {
		fprintf(err,
			"minivmm: --boost-irq: no pvsched area with %s\n",
			opts->no_pvsched ? "--no-pvsched" : "--no-area");
		return -EINVAL;
	}
	if (opts->boost && (opts->no_area || opts->no_pvsched)) {
		fprintf(err, "minivmm: --boost: no pvsched area with %s\n",
			opts->no_pvsched ? "--no-pvsched" : "--no-area");
		return -EINVAL;
	}
	for (i = 0; opts->seconds && i < opts->nr_switches; i++) {
		if (opts->switches[i].at >= opts->seconds) {
			fprintf(err,
				"minivmm: --switch at %gs is not before the end of the run (--seconds=%g)\n",
				opts->switches[i].at, opts->seconds);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * getopt_long() said '?'. optopt is the character of an unknown short
 * option (negative for a byte above 0x7f: glibc's char is signed),
 * which may sit in a cluster ("-xy") whose argument optind does
 * not point past yet: name it alone. Otherwise (0, a long option's
 * value, or -h and -V, which only fail as --help=X and --version=X) it
 * is a long option, and optind is past it.
 */
static void options__unknown(char *argv[], FILE *err)
{
	if (optopt && optopt < OPT_PVSCHED && optopt != 'h' && optopt != 'V')
		fprintf(err, "minivmm: unknown option '-%c'\n", (char)optopt);
	else
		fprintf(err, "minivmm: unknown option '%s'\n",
			argv[optind - 1]);
}

enum options_action options__parse(struct options *opts, int argc,
				   char *argv[], FILE *err)
{
	int c;

	options__defaults(opts);
	optind = 0;	/* full getopt reset, so that tests can parse again */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hV", long_options, NULL)) != -1) {
		switch (c) {
		case 'h':
			return OPTIONS_HELP;
		case 'V':
			return OPTIONS_VERSION;
		case ':':
			fprintf(err, "minivmm: option '%s' needs a value\n",
				argv[optind - 1]);
			return OPTIONS_ERROR;
		case '?':
			options__unknown(argv, err);
			return OPTIONS_ERROR;
		default:
			if (options__one(opts, c, optarg, err))
				return OPTIONS_ERROR;
		}
	}
	if (optind < argc) {
		fprintf(err, "minivmm: unexpected argument '%s'\n",
			argv[optind]);
		return OPTIONS_ERROR;
	}
	if (options__check(opts, err))
		return OPTIONS_ERROR;
	options__sort_switches(opts);
	return OPTIONS_RUN;
}
