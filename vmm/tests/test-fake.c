// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end runs of tests/minivmm-fake: minivmm's real main loop, threads,
 * signals, pvsched calls and report, against tests/fake-kvm.c.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tap.h"
#include "util.h"

#define DRIVERS \
	"FAKE_KVM_DRIVERS='pvsched_count bpf_pvsched_count noop pvsched_boost'"
#define IO		"--payload=../guest-payload/io.bin"
#define HALT		"--payload=../guest-payload/halt.bin"
#define CPUID		"--payload=../guest-payload/cpuid.bin"
#define BOOST		"--payload=../guest-payload/boost.bin"
#define IRQ		"--payload=../guest-payload/irq.bin"
#define LATENCY		"--payload=../guest-payload/latency.bin"
#define NO_AREA		"FAKE_KVM_NO_AREA=1"
#define G_BOOST		"FAKE_KVM_GUEST=boost"
#define G_IRQ		"FAKE_KVM_GUEST=irq"
#define G_LAT		"FAKE_KVM_GUEST=latency"
#define COUNT		"FAKE_KVM_COUNT_STATS=1"
#define COUNT_OLD	"FAKE_KVM_COUNT_STATS=old"
#define EPERM_BOOST	"FAKE_KVM_EPERM_DRIVERS=pvsched_boost"
#define TRACE		"FAKE_KVM_TRACE_PVSCHED=1"
#define NO_CAP		"FAKE_KVM_NO_PVSCHED=1"
#define ACCESS		"fake-kvm: pvsched access: "

/* For FAKE_KVM_GUEST=hang: wait (up to 20 s) until a vCPU is in KVM_RUN. */
#define WAIT_RUNNING \
	"rm -f running; i=0; while [ ! -e running ] && [ $i -lt 400 ]; " \
	"do sleep 0.05; i=$((i + 1)); done; "

static int status;
static char out[65536], err[65536];

/*
 * Run "ENV minivmm-fake ARGS", or a whole @shell line in tap_tmpdir with
 * $VMM the binary and $P the payload directory.
 */
static int run(const char *env, const char *args, const char *shell)
{
	char cmd[2048];
	int st;

	if (shell)
		snprintf(cmd, sizeof(cmd),
			 "export %s %s; VMM=$PWD/tests/minivmm-fake; P=$PWD/../guest-payload; cd %s && (%s) >out 2>err",
			 DRIVERS, env, tap_tmpdir, shell);
	else
		snprintf(cmd, sizeof(cmd),
			 "env %s %s ./tests/minivmm-fake %s >%s/out 2>%s/err",
			 DRIVERS, env, args, tap_tmpdir, tap_tmpdir);
	st = system(cmd);
	status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	tap_slurp("out", out, sizeof(out));
	tap_slurp("err", err, sizeof(err));
	return status;
}

/*
 * The "run_ns" values of a JSON report: how many there are (up to @max in
 * @ns), -1 if one is not a plain integer.
 */
static int run_ns(const char *json, unsigned long long *ns, int max)
{
	const char *key = "\"run_ns\":";
	char *end;
	int n = 0;

	while ((json = strstr(json, key))) {
		json += strlen(key);
		if (*json < '0' || *json > '9')
			return -1;
		if (n < max)
			ns[n] = strtoull(json, &end, 10);
		if (n < max && *end != ',')
			return -1;
		n++;
	}
	return n;
}

/* All @n run_ns present, each in (@min, elapsed], elapsed from the JSON. */
static bool run_ns_ok(int n, unsigned long long min)
{
	const char *e = strstr(out, "\"elapsed\":");
	unsigned long long ns[64];
	double elapsed;
	int i;

	if (!e || run_ns(out, ns, 64) != n)
		return false;
	elapsed = strtod(e + strlen("\"elapsed\":"), NULL);
	for (i = 0; i < n; i++) {
		/* elapsed is printed in ms: allow for its rounding. */
		if (ns[i] <= min || ns[i] > elapsed * 1e9 + 1e6)
			return false;
	}
	return true;
}

static void show_on_failure(int passed)
{
	if (!passed)
		diag("status %d\n# stdout: %s\n# stderr: %s", status, out, err);
}

#define check(cond, ...) do {			\
	int __c = !!(cond);			\
	ok(__c, __VA_ARGS__);			\
	show_on_failure(__c);			\
} while (0)

static void test_runs(void)
{
	run("", "--vcpus=2 --iterations=1000 --pvsched=pvsched_count " IO,
	    NULL);
	check(status == 0 && strstr(out, "pvsched: (none) -> pvsched_count") &&
	      tap_count(out, " done  ") == 2 && strstr(out, "final pvsched_count") &&
	      strstr(out, "pvsched_count stats reset at start: failed"),
	      "io, 2 vCPUs, --pvsched: ok, both DONE");
	run("", "--vcpus=3 --iterations=2500 --json " CPUID, NULL);
	check(status == 0 && tap_count(out, "\"result\":\"done\",\"count\":2500,"
				   "\"progress\":0,") == 3 &&
	      strstr(out, "\"requested\":null") &&
	      strstr(out, "\"callbacks\":null"),
	      "cpuid --json: 3 rows, no callbacks source");
	run("FAKE_KVM_GUEST=halt", "--vcpus=2 --iterations=20 --json " HALT,
	    NULL);
	check(status == 0 && tap_count(out, "\"count\":20,") == 2,
	      "halt: 20 ticks on 2 vCPUs, with the irqchip");
	run("", "--seconds=0.3 --switch=noop@0.1 --switch=@0.2 " IO, NULL);
	check(status == 0 && strstr(out, "pvsched (none) -> noop") &&
	      strstr(out, "pvsched noop -> (none)") &&
	      strstr(out, "final (none)") && tap_count(out, " done  ") == 1,
	      "--seconds with two --switch: previous names printed");
	run("", "--iterations=10 --switch=noop@60 " IO, NULL);
	check(status == 0 && strstr(out, "switch at 60s to noop: not-reached"),
	      "switch after the end: not reached");
}

static void test_run_ns(void)
{
	unsigned int vcpu, tid, ns_per_iter;
	double run_s;
	char *row;

	run("", "--vcpus=3 --iterations=2500 --json " CPUID, NULL);
	check(status == 0 && run_ns_ok(3, 0),
	      "cpuid --json: run_ns > 0 and within elapsed on all 3 vCPUs");
	run("FAKE_KVM_GUEST=halt", "--vcpus=2 --iterations=20 --json " HALT,
	    NULL);
	check(status == 0 && run_ns_ok(2, 20000000),
	      "halt --json: run_ns covers the 20 ticks of 1 ms");
	run("", "--seconds=0.2 --json " IO, NULL);
	check(status == 0 && run_ns_ok(1, 150000000),
	      "--seconds=0.2 --json: run_ns about 0.2 s");
	run("", "--vcpus=2 --iterations=1000 " IO, NULL);
	row = strstr(out, "\n   1 ");
	check(status == 0 && strstr(out, " run_s    ns/iter   wakeup\n") &&
	      row &&
	      sscanf(row, " %u %u done 1000 1001 0 0 0 %*s %*s %*s %*s %*s %*s %*s %lf %u.",
		     &vcpu, &tid, &run_s, &ns_per_iter) == 4 && vcpu == 1 &&
	      run_s > 0 &&
	      ns_per_iter > 0, "text: run_s and ns/iter per vCPU");
}

/* The payloads' counts of QEMU's interrupt delivery quirks (halt.S). */
struct irq_quirk {
	const char *env;	/* for the fake KVM's halt guest */
	const char *json;	/* in each vCPU row */
	const char *text;	/* a line of the text report */
};

static const struct irq_quirk quirks[] = {
	{ "FAKE_KVM_DUP_IRQS=3", "\"count\":5,\"progress\":0,\"dup_irqs\":3,",
	  "\nvcpu0: 3 duplicate timer interrupt deliveries, not counted as ticks (DUP_IRQS)\n" },
	{ "FAKE_KVM_SHADOW_IRQS=4", "\"dup_irqs\":0,\"shadow_irqs\":4,",
	  "\nvcpu0: 4 timer interrupts delivered in the shadow of sti, resumed past the hlt (SHADOW_IRQS)\n" },
};

/*
 * --period-us: the fake halt guest sleeps params.timer_count ns per tick,
 * so run_ns shows the count minivmm passed.
 */
static void test_period_us(void)
{
	size_t i;

	run("FAKE_KVM_GUEST=halt", "--vcpus=2 --iterations=10 --period-us=5000 "
	    "--json " HALT, NULL);
	check(status == 0 && strstr(out, ",\"period_us\":5000,") &&
	      tap_count(out, "\"result\":\"done\",\"count\":10,") == 2 &&
	      run_ns_ok(2, 50000000),
	      "halt --period-us=5000: 10 ticks take 50 ms, JSON period_us");
	run("FAKE_KVM_GUEST=halt", "--iterations=5 --json " HALT, NULL);
	check(status == 0 && strstr(out, ",\"period_us\":1000,"),
	      "halt: period_us 1000 by default");
	run("FAKE_KVM_GUEST=halt", "--iterations=5 --period-us=2000 " HALT,
	    NULL);
	check(status == 0 && strstr(out, ", timer period 2000 us, ran "),
	      "halt text report: timer period");
	run("", "--iterations=10 --json " IO, NULL);
	check(status == 0 && strstr(out, ",\"period_us\":null,"),
	      "io: period_us null");
	run("FAKE_KVM_GUEST=halt", NULL,
	    "cp $P/halt.bin tick.bin && $VMM --iterations=5 --period-us=3000 --json --payload=./tick.bin");
	check(status == 0 && strstr(out, ",\"period_us\":3000,") &&
	      run_ns_ok(1, 15000000),
	      "--period-us with a payload file of another name");
	for (i = 0; i < ARRAY_SIZE(quirks); i++) {
		const struct irq_quirk *q = &quirks[i];
		char env[64];

		snprintf(env, sizeof(env), "FAKE_KVM_GUEST=halt %s", q->env);
		run(env, "--vcpus=2 --iterations=5 --json " HALT, NULL);
		check(status == 0 && tap_count(out, q->json) == 2,
		      "halt: %s before DONE shows in both vCPU rows", q->env);
		run(env, "--iterations=5 " HALT, NULL);
		check(status == 0 && strstr(out, q->text),
		      "halt text report with %s: its line", q->env);
	}
	run("", "--period-us=1000 " IO, NULL);
	check(status == 1 && !*out &&
	      !strcmp(err, "minivmm: --period-us: payload io has no timer (only halt, or a payload file of another name)\n"),
	      "--period-us with io: usage error, exit 1, one line");
	run("", "--period-us=1000 --payload=cpuid", NULL);
	check(status == 1 && !*out && tap_count(err, "\n") == 1 &&
	      strstr(err, "payload cpuid has no timer"),
	      "--period-us with cpuid: usage error, exit 1");
	run("", "--period-us=0 " HALT, NULL);
	check(status == 1 && !*out &&
	      !strncmp(err, "minivmm: --period-us: '0' is not in 1..4294967 ",
		       47) && tap_count(err, "\n") == 2 &&
	      strstr(err, "\nTry 'minivmm --help'.\n"),
	      "--period-us=0: usage error, exit 1");
	run("", "--period-us=4294968 " HALT, NULL);
	check(status == 1 && !*out && strstr(err, "must fit in 32 bits"),
	      "--period-us=4294968: the count would overflow, exit 1");
}

static void test_no_pvsched(void)
{
	run(NO_CAP " " TRACE, "--no-pvsched --vcpus=2 --iterations=1000 " IO,
	    NULL);
	check(status == 0 && !*err && tap_count(out, " done  ") == 2 &&
	      strstr(out, "\ndriver: pvsched not used (--no-pvsched)\n") &&
	      tap_count(out, "        -        -        -   ") == 2,
	      "--no-pvsched without KVM_CAP_PVSCHED: ok, no pvsched access");
	run(NO_CAP " " TRACE, "--no-pvsched --vcpus=2 --iterations=1000 "
	    "--json " IO, NULL);
	check(status == 0 && !*err && strstr(out, "{\"ok\":true,") &&
	      strstr(out, ",\"driver\":null,\"switches\":[],"
		     "\"pvsched_area\":\"not-used\",") &&
	      tap_count(out, "\"callbacks\":null,\"pvsched_area\":null,\"latency\":null}") == 2 &&
	      run_ns_ok(2, 0),
	      "--no-pvsched --json: \"driver\":null, no areas, run_ns > 0");
	run(TRACE, "--no-pvsched --iterations=1000 " IO, NULL);
	check(status == 0 && !*err && strstr(out, "pvsched not used"),
	      "--no-pvsched with KVM_CAP_PVSCHED: no pvsched access either");
	run(TRACE, "--iterations=10 " IO, NULL);
	check(status == 0 && strstr(err, ACCESS "KVM_GET_PVSCHED_OPS\n") &&
	      strstr(err, ACCESS "/sys/kernel/debug/pvsched/pvsched_count/stats\n"),
	      "without --no-pvsched the trace shows the pvsched accesses");
	run(NO_CAP " " TRACE, "--json " IO, NULL);
	check(status == 2 && tap_count(err, "\n") == 1 &&
	      strstr(err, "KVM_CAP_PVSCHED is 0") && !*out,
	      "no KVM_CAP_PVSCHED, no --no-pvsched: still exit 2");
	run("", "--no-pvsched --pvsched=noop " IO, NULL);
	check(status == 1 && !*out &&
	      !strncmp(err, "minivmm: --no-pvsched and --pvsched are mutually "
		       "exclusive\nTry 'minivmm --help'.\n", 200),
	      "--no-pvsched --pvsched: usage error, exit 1");
	run("", "--no-pvsched --switch=noop@0.1 " IO, NULL);
	check(status == 1 && !*out &&
	      strstr(err, "--no-pvsched and --switch are mutually exclusive"),
	      "--no-pvsched --switch: usage error, exit 1");
	run("FAKE_KVM_GUEST=hang " NO_CAP " " TRACE, NULL,
	    "$VMM --no-pvsched --json --vcpus=2 --payload=$P/io.bin & p=$!; "
	    WAIT_RUNNING "kill -TERM $p; wait $p");
	check(status == 143 && !*err && strstr(out, "\"driver\":null") &&
	      tap_count(out, "\"result\":\"stopped\"") == 2 && run_ns_ok(2, 0),
	      "--no-pvsched, SIGTERM: stopped vCPUs have run_ns too");
}

static void test_errors(void)
{
	run("FAKE_KVM_NO_PVSCHED=1", IO, NULL);
	check(status == 2 && tap_count(err, "\n") == 1 &&
	      strstr(err, "no pvsched support") && !*out,
	      "no KVM_CAP_PVSCHED: exit 2, one line");
	run("FAKE_KVM_ENOTTY=1", "--pvsched=noop " IO, NULL);
	check(status == 2 && tap_count(err, "\n") == 1 &&
	      strstr(err, "no pvsched support"), "ENOTTY: exit 2, one line");
	run("", "--pvsched=bogus " IO, NULL);
	check(status == 3 && strstr(err, "unknown pvsched driver 'bogus'") &&
	      strstr(err, "available: pvsched_count bpf_pvsched_count noop") &&
	      strstr(err, "CAP_SYS_MODULE") && tap_count(err, "\n") == 1,
	      "unknown --pvsched: exit 3, one line: the drivers, autoloading");
	run("", "--seconds=1 --switch=bogus@0.1 " IO, NULL);
	check(status == 3 && strstr(err, "unknown pvsched driver 'bogus'") &&
	      strstr(out, "stopped") && strstr(out, "to bogus: failed"),
	      "unknown --switch driver: vCPUs stopped, exit 3");
	run("FAKE_KVM_GUEST=shutdown", "--vcpus=2 " IO, NULL);
	check(status == 3 && strstr(err, "KVM_EXIT_SHUTDOWN") &&
	      strstr(err, "rip 0000000000100000") && strstr(out, "error"),
	      "shutdown: register dump, exit 3");
	run("FAKE_KVM_GUEST=fail", IO, NULL);
	check(status == 3 && strstr(err, "guest FAIL: exception #GP") &&
	      strstr(out, "guest-fail"), "guest FAIL: exit 3");
	run("FAKE_KVM_GUEST=hang", NULL,
	    "$VMM --vcpus=2 --payload=$P/io.bin & p=$!; " WAIT_RUNNING
	    "kill -INT $p; wait $p");
	check(status == 130 && strstr(out, "stopped by signal 2") &&
	      tap_count(out, " stopped  ") == 2,
	      "SIGINT: both vCPUs stopped, report, exit 130");
	run("FAKE_KVM_GUEST=hang", NULL,
	    "$VMM --json --payload=$P/io.bin & p=$!; " WAIT_RUNNING
	    "kill -TERM $p; wait $p");
	check(status == 143 && strstr(out, "\"signal\":15"),
	      "SIGTERM: exit 143");
	run("", NULL, "truncate -s 4M big.bin && $VMM --payload=./big.bin");
	check(status == 3 && strstr(err, "too big: 4194304 bytes") && !*out,
	      "payload too big: exit 3 before any VM exists");
	run("", "--payload=halt --vcpus=65", NULL);
	check(status == 1 && strstr(err, "--vcpus"), "usage error: exit 1");
}

/*
 * A KVM ioctl that fails ($FAKE_KVM_FAIL): one line on stderr that names
 * it as its macro does and gives its errno, exit 3. Before the vCPU
 * threads start that is all; a vCPU's setup or KVM_RUN ends its thread
 * with "error" in the report (--no-pvsched: nothing else on stderr).
 */
static const struct ioctl_failure {
	const char *env;
	const char *args;
	const char *err;	/* all of stderr */
	bool report;		/* a vCPU thread ran: a report */
} ioctl_failures[] = {
	{ "FAKE_KVM_FAIL=KVM_CREATE_VM FAKE_KVM_FAIL_ERRNO=12", "--json " IO,
	  "minivmm: KVM_CREATE_VM: Cannot allocate memory\n", false },
	{ "FAKE_KVM_FAIL=KVM_GET_SUPPORTED_CPUID FAKE_KVM_FAIL_ERRNO=7",
	  "--json " IO,
	  "minivmm: KVM_GET_SUPPORTED_CPUID: Argument list too long\n",
	  false },
	{ "FAKE_KVM_FAIL=KVM_CREATE_IRQCHIP FAKE_KVM_FAIL_ERRNO=17",
	  "--json " HALT, "minivmm: KVM_CREATE_IRQCHIP: File exists\n",
	  false },
	{ "FAKE_KVM_FAIL=KVM_SET_USER_MEMORY_REGION FAKE_KVM_FAIL_ERRNO=22",
	  "--json " IO,
	  "minivmm: KVM_SET_USER_MEMORY_REGION: Invalid argument\n", false },
	{ "FAKE_KVM_FAIL=KVM_CREATE_VCPU FAKE_KVM_FAIL_ERRNO=16",
	  "--vcpus=2 --json " IO,
	  "minivmm: vcpu0: KVM_CREATE_VCPU: Device or resource busy\n",
	  false },
	{ "FAKE_KVM_FAIL=KVM_SET_CPUID2 FAKE_KVM_FAIL_ERRNO=7",
	  "--no-pvsched --json " IO,
	  "minivmm: vcpu0: KVM_SET_CPUID2: Argument list too long\n", true },
	{ "FAKE_KVM_FAIL=KVM_GET_SREGS FAKE_KVM_FAIL_ERRNO=14",
	  "--no-pvsched --json " IO,
	  "minivmm: vcpu0: KVM_GET_SREGS: Bad address\n", true },
	{ "FAKE_KVM_FAIL=KVM_SET_SREGS FAKE_KVM_FAIL_ERRNO=22",
	  "--no-pvsched --json " IO,
	  "minivmm: vcpu0: KVM_SET_SREGS: Invalid argument\n", true },
	{ "FAKE_KVM_FAIL=KVM_SET_REGS FAKE_KVM_FAIL_ERRNO=1",
	  "--no-pvsched --json " IO,
	  "minivmm: vcpu0: KVM_SET_REGS: Operation not permitted\n", true },
	{ "FAKE_KVM_FAIL=KVM_SET_MP_STATE", "--no-pvsched --json " IO,
	  "minivmm: vcpu0: KVM_SET_MP_STATE: Input/output error\n", true },
	{ "FAKE_KVM_FAIL=KVM_RUN FAKE_KVM_FAIL_ERRNO=14",
	  "--no-pvsched --json " IO,
	  "minivmm: vcpu0: KVM_RUN: Bad address\n", true },
};

static void test_ioctl_failures(void)
{
	const struct ioctl_failure *f;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ioctl_failures); i++) {
		f = &ioctl_failures[i];
		run(f->env, f->args, NULL);
		check(status == 3 && !strcmp(err, f->err) &&
		      (f->report ? strstr(out, "{\"ok\":false,") &&
				   strstr(out, "\"result\":\"error\"") :
				   !*out),
		      "%s: one line naming the ioctl, its errno, exit 3%s",
		      f->env, f->report ? ", the vCPU's result error" :
					  ", no report");
	}
}

/* The area of vCPU @i after @n boosted iterations under pvsched_boost. */
static bool boosted_area(int i, int n)
{
	char want[512];

	snprintf(want, sizeof(want),
		 "\"pvsched_area\":{\"gpa\":%d,\"version\":1,"
		 "\"host_flags\":0,\"guest_flags\":0,\"boosts\":%d,"
		 "\"unboosts\":%d,\"throttles\":0,\"boosted_ns\":%d,"
		 "\"boost_seen\":%d,\"wake_req\":0},\"latency\":null}",
		 0x9000 + 64 * i, n,
		 n, 1000 * n, n);
	return tap_count(out, want) == 1;
}

/* KVM_CAP_PVSCHED_AREA offered, and the boost payload. */
static void test_area_offered(void)
{
	/* Exits per vCPU: AREA, 5 work port writes, BOOST_SEEN, DONE. */
	run(G_BOOST " " TRACE, "--vcpus=2 --iterations=5 "
	    "--pvsched=pvsched_boost --json " BOOST, NULL);
	check(status == 0 && strstr(out, "{\"ok\":true,") &&
	      strstr(out, "\"period_us\":1000,\"busy_loops\":10000,") &&
	      strstr(out, ",\"pvsched_area\":\"registered\",\"vcpu\":[") &&
	      tap_count(out, "\"result\":\"done\",\"count\":5,") == 2 &&
	      tap_count(out, "\"exits\":{\"io\":8,") == 2 &&
	      boosted_area(0, 5) && boosted_area(1, 5) &&
	      tap_count(err, ACCESS "KVM_SET_PVSCHED_AREA\n") == 2 &&
	      strstr(err, ACCESS "KVM_CHECK_EXTENSION(KVM_CAP_PVSCHED_AREA)\n"),
	      "boost, pvsched_boost: an area per vCPU, 5 boosts and unboosts each");
	run(G_BOOST, "--vcpus=2 --iterations=3 --pvsched=pvsched_boost " BOOST,
	    NULL);
	check(status == 0 &&
	      strstr(out, "\npvsched area: registered, vCPU i's at 0x9000 + 64 * i\n") &&
	      strstr(out, "\nvcpu0: pvsched area 0x9000: version 1, boosts 3, "
		     "unboosts 3, throttles 0, boosted_ns 3000, host_flags 0, "
		     "guest saw BOOSTED 3 times, wake_req 0\n") &&
	      strstr(out, "\nvcpu1: pvsched area 0x9040: version 1, boosts 3, "),
	      "boost text report: the area line and one line per vCPU");
	run(G_BOOST, "--iterations=4 --busy-loops=77 --period-us=2000 --json "
	    BOOST, NULL);
	check(status == 0 &&
	      strstr(out, "\"period_us\":2000,\"busy_loops\":77,") &&
	      strstr(out, "\"boosts\":0,\"unboosts\":0,\"throttles\":0,"
		     "\"boosted_ns\":0,\"boost_seen\":0,\"wake_req\":0},"
		     "\"latency\":null}]}") &&
	      run_ns_ok(1, 8000000),
	      "boost without pvsched_boost: area, no boosts; --busy-loops");
	run("", "--iterations=10 --pvsched=pvsched_count --json " IO, NULL);
	check(status == 0 && strstr(out, "\"pvsched_area\":\"registered\"") &&
	      strstr(out, "\"pvsched_area\":{\"gpa\":36864,\"version\":1,"),
	      "io: the vCPU gets its area too");
	run(G_BOOST " FAKE_KVM_AREA_VERSION=2", "--iterations=3 " BOOST, NULL);
	check(status == 3 &&
	      strstr(err, "minivmm: vcpu0: guest FAIL: pvsched area at 0x9000 "
		     "is not version 1\n") && strstr(out, "guest-fail"),
	      "boost: an area of another version is a guest FAIL, exit 3");
	run("", "--busy-loops=5 " IO, NULL);
	check(status == 1 && !*out &&
	      !strcmp(err, "minivmm: --busy-loops: payload io has no busy loop (only boost, or a payload file of another name)\n"),
	      "--busy-loops with io: usage error, exit 1");
	run("", "--busy-loops=5 --payload=halt", NULL);
	check(status == 1 && strstr(err, "payload halt has no busy loop"),
	      "--busy-loops with halt: usage error, exit 1");
}

/* KVM_CAP_PVSCHED_AREA missing, KVM_SET_PVSCHED_AREA failing. */
static void test_area_missing_or_failing(void)
{
	run(G_BOOST " " NO_AREA " " TRACE, "--vcpus=2 --iterations=5 "
	    "--pvsched=pvsched_boost --json " BOOST, NULL);
	check(status == 0 && strstr(out, "{\"ok\":true,") &&
	      strstr(out, ",\"pvsched_area\":\"not-offered\",") &&
	      tap_count(out, "\"result\":\"done\",\"count\":5,") == 2 &&
	      tap_count(out, "\"callbacks\":null,\"pvsched_area\":null,\"latency\":null}") == 2 &&
	      strstr(err, ACCESS "KVM_CHECK_EXTENSION(KVM_CAP_PVSCHED_AREA)\n") &&
	      !strstr(err, "KVM_SET_PVSCHED_AREA"),
	      "no KVM_CAP_PVSCHED_AREA: boost runs without areas, exit 0");
	run(G_BOOST " " NO_AREA, "--iterations=2 " BOOST, NULL);
	check(status == 0 &&
	      strstr(out, "\npvsched area: none, KVM does not offer "
		     "KVM_CAP_PVSCHED_AREA\n") && !strstr(out, "vcpu0: pvsched"),
	      "no KVM_CAP_PVSCHED_AREA: the text report says so");
	run(G_BOOST " FAKE_KVM_AREA_ERRNO=22", "--vcpus=2 --json " BOOST, NULL);
	check(status == 3 && !*out &&
	      !strcmp(err, "minivmm: vcpu0: KVM_SET_PVSCHED_AREA at GPA 0x9000: "
		      "Invalid argument (EINVAL)\n"),
	      "KVM_SET_PVSCHED_AREA fails: one line with the errno, exit 3");
	run("FAKE_KVM_AREA_ERRNO=14 FAKE_KVM_AREA_VCPU=1", "--vcpus=2 " IO,
	    NULL);
	check(status == 3 && !*out &&
	      !strcmp(err, "minivmm: vcpu1: KVM_SET_PVSCHED_AREA at GPA 0x9040: "
		      "Bad address (EFAULT)\n"),
	      "KVM_SET_PVSCHED_AREA fails on vCPU 1: its GPA, exit 3");
	run(G_BOOST " " TRACE, "--no-pvsched --iterations=3 --json " BOOST,
	    NULL);
	check(status == 0 && !*err &&
	      strstr(out, ",\"pvsched_area\":\"not-used\",") &&
	      strstr(out, "\"result\":\"done\",\"count\":3,") &&
	      strstr(out, "\"pvsched_area\":null,\"latency\":null}]}"),
	      "--no-pvsched: boost runs, KVM not asked for an area");
}

/* pvsched_boost without CAP_SYS_NICE: EPERM. */
static void test_eperm(void)
{
	run(G_BOOST " " EPERM_BOOST, "--pvsched=pvsched_boost --vcpus=2 " BOOST,
	    NULL);
	check(status == 3 && !*out &&
	      !strcmp(err, "minivmm: KVM_REPLACE_PVSCHED_OPS: pvsched driver "
		      "'pvsched_boost': Operation not permitted (EPERM): "
		      "selecting a driver that changes scheduling needs "
		      "CAP_SYS_NICE\n"),
	      "--pvsched=pvsched_boost, EPERM: one line naming the driver, exit 3");
	run(G_BOOST " " EPERM_BOOST,
	    "--pvsched=pvsched_count --iterations=3 --json " BOOST, NULL);
	check(status == 0 && strstr(out, "\"final\":\"pvsched_count\""),
	      "EPERM for pvsched_boost only: pvsched_count still runs");
	run(EPERM_BOOST, "--seconds=1 --switch=pvsched_boost@0.1 " IO, NULL);
	check(status == 3 &&
	      strstr(err, "minivmm: --switch: pvsched driver 'pvsched_boost': "
		     "Operation not permitted (EPERM): selecting a driver that "
		     "changes scheduling needs CAP_SYS_NICE\n") &&
	      strstr(out, "to pvsched_boost: failed"),
	      "--switch=pvsched_boost, EPERM: same message, exit 3");
}

/* The area of vCPU @i under irq, after @boosted boosted ticks. */
static bool irq_area(int i, int boosted)
{
	char want[512];

	snprintf(want, sizeof(want),
		 "\"pvsched_area\":{\"gpa\":%d,\"version\":1,"
		 "\"host_flags\":0,\"guest_flags\":0,\"boosts\":%d,"
		 "\"unboosts\":%d,\"throttles\":0,\"boosted_ns\":%d,"
		 "\"boost_seen\":%d,\"wake_req\":0},\"latency\":null}",
		 0x9000 + 64 * i, boosted, boosted, 1000 * boosted, boosted);
	return tap_count(out, want) == 1;
}

/*
 * The irq payload: --wait and --boost-irq reach the guest as params.flags
 * (the fake guest halts or spins, raises PVSCHED_GUEST_BOOST_IRQ or not,
 * and the fake pvsched_boost boosts it at each WAKEUP when it does).
 */
static void test_irq(void)
{
	/* Exits per vCPU: AREA, BOOST_SEEN, DONE. */
	run(G_IRQ, "--vcpus=2 --iterations=5 --json " IRQ, NULL);
	check(status == 0 && strstr(out, "{\"ok\":true,") &&
	      strstr(out, ",\"period_us\":1000,\"busy_loops\":null,") &&
	      strstr(out, ",\"wait\":\"halt\",\"boost_irq\":false,") &&
	      tap_count(out, "\"result\":\"done\",\"count\":5,") == 2 &&
	      tap_count(out, "\"exits\":{\"io\":3,") == 2 &&
	      irq_area(0, 0) && irq_area(1, 0),
	      "irq: 5 ticks on 2 vCPUs, wait halt, no boost-irq by default");
	run(G_IRQ, "--vcpus=2 --iterations=5 --boost-irq "
	    "--pvsched=pvsched_boost --json " IRQ, NULL);
	check(status == 0 &&
	      strstr(out, ",\"wait\":\"halt\",\"boost_irq\":true,") &&
	      irq_area(0, 5) && irq_area(1, 5),
	      "irq --boost-irq, pvsched_boost: each tick boosted at its WAKEUP, "
	      "seen by the handler, flag dropped at the end");
	run(G_IRQ, "--iterations=5 --pvsched=pvsched_boost --json " IRQ, NULL);
	check(status == 0 && strstr(out, "\"boost_irq\":false,") &&
	      irq_area(0, 0),
	      "irq without --boost-irq under pvsched_boost: no boost");
	run(G_IRQ, "--iterations=5 --wait=spin --boost-irq "
	    "--pvsched=pvsched_boost --json " IRQ, NULL);
	check(status == 0 &&
	      strstr(out, ",\"wait\":\"spin\",\"boost_irq\":true,") &&
	      irq_area(0, 0),
	      "irq --wait=spin --boost-irq: no halt, so no WAKEUP, no boost");
	run(G_IRQ " " COUNT, "--iterations=6 --wait=halt "
	    "--pvsched=pvsched_count --json " IRQ, NULL);
	check(status == 0 && strstr(out, "\"stats_reset\":\"done\"") &&
	      strstr(out, "\"halt\":6,\"intr_inj\":6,\"wakeup\":6}"),
	      "irq --wait=halt: 6 halts, each woken by its tick (WAKEUP)");
	run(G_IRQ " " COUNT, "--iterations=6 --wait=spin "
	    "--pvsched=pvsched_count --json " IRQ, NULL);
	check(status == 0 &&
	      strstr(out, "\"halt\":0,\"intr_inj\":6,\"wakeup\":0}"),
	      "irq --wait=spin: 6 ticks, no halt, no WAKEUP");
	run(G_IRQ " " COUNT, NULL,
	    "cp $P/irq.bin tick.bin && $VMM --iterations=4 --wait=spin "
	    "--boost-irq --json --payload=./tick.bin");
	check(status == 0 &&
	      strstr(out, ",\"wait\":\"spin\",\"boost_irq\":true,") &&
	      strstr(out, "\"halt\":0,\"intr_inj\":4,\"wakeup\":0}") &&
	      strstr(out, "\"guest_flags\":0,"),
	      "--wait and --boost-irq with a payload file of another name");
	run(G_IRQ, "--iterations=3 --wait=spin --boost-irq " IRQ, NULL);
	check(status == 0 &&
	      strstr(out, ", timer period 1000 us, wait spin, boost-irq, ran "),
	      "irq text report: wait and boost-irq in the header");
	run(G_IRQ " " NO_AREA, "--iterations=3 --boost-irq --json " IRQ, NULL);
	check(status == 0 && strstr(out, "\"boost_irq\":true,") &&
	      strstr(out, ",\"pvsched_area\":\"not-offered\",") &&
	      strstr(out, "\"exits\":{\"io\":2,"),
	      "irq --boost-irq without KVM_CAP_PVSCHED_AREA: AREA(0), no "
	      "BOOST_SEEN, exit 0");
	run(G_IRQ, "--no-pvsched --iterations=3 --wait=spin --json " IRQ, NULL);
	check(status == 0 && strstr(out, ",\"wait\":\"spin\",") &&
	      strstr(out, "\"pvsched_area\":\"not-used\""),
	      "irq --no-pvsched --wait=spin: runs without an area");
	run(G_IRQ " FAKE_KVM_AREA_VERSION=2", "--iterations=3 " IRQ, NULL);
	check(status == 3 &&
	      strstr(err, "minivmm: vcpu0: guest FAIL: pvsched area at 0x9000 "
		     "is not version 1\n"),
	      "irq: an area of another version is a guest FAIL, exit 3");
	run(G_IRQ, "--iterations=3 --json " HALT, NULL);
	check(status == 0 && strstr(out, "\"wait\":null,\"boost_irq\":false,"),
	      "halt: wait null, boost_irq false, params.flags 0");
	run(G_BOOST, "--iterations=3 --json " BOOST, NULL);
	check(status == 0 && strstr(out, "\"wait\":null,\"boost_irq\":false,"),
	      "boost: wait null, boost_irq false, params.flags 0 (the fake "
	      "guest checks it)");
}

/* --wait and --boost-irq: usage errors. */
static void test_irq_usage(void)
{
	static const char *const named[] = { "io", "halt", "cpuid", "boost" };
	char args[128], want[256];
	unsigned int i;
	bool wait_ok = true, boost_ok = true;

	for (i = 0; i < ARRAY_SIZE(named); i++) {
		snprintf(args, sizeof(args), "--wait=spin --payload=%s",
			 named[i]);
		run("", args, NULL);
		snprintf(want, sizeof(want),
			 "minivmm: --wait: payload %s has no choice of wait (only irq, latency, or a payload file of another name)\n",
			 named[i]);
		wait_ok = wait_ok && status == 1 && !*out && !strcmp(err, want);
		snprintf(args, sizeof(args), "--boost-irq --payload=%s",
			 named[i]);
		run("", args, NULL);
		snprintf(want, sizeof(want),
			 "minivmm: --boost-irq: payload %s raises no PVSCHED_GUEST_BOOST_IRQ (only irq, latency, or a payload file of another name)\n",
			 named[i]);
		boost_ok = boost_ok && status == 1 && !*out &&
			   !strcmp(err, want);
	}
	check(wait_ok, "--wait with io, halt, cpuid, boost: usage error, "
	      "exit 1, one line");
	check(boost_ok, "--boost-irq with io, halt, cpuid, boost: usage "
	      "error, exit 1, one line");
	run("", "--wait=halt " HALT, NULL);
	check(status == 1 && strstr(err, "payload halt has no choice of wait"),
	      "--wait=halt with a path to halt.bin: usage error too");
	run("", "--wait=nap " IRQ, NULL);
	check(status == 1 && !*out &&
	      !strcmp(err, "minivmm: --wait: 'nap' is not halt or spin\n"
		      "Try 'minivmm --help'.\n"),
	      "--wait=nap: usage error, exit 1");
	run("", "--boost-irq --no-area " IRQ, NULL);
	check(status == 1 && !*out &&
	      !strcmp(err, "minivmm: --boost-irq: no pvsched area with "
		      "--no-area\nTry 'minivmm --help'.\n"),
	      "--boost-irq --no-area: usage error, exit 1");
	run("", "--no-pvsched --boost-irq " IRQ, NULL);
	check(status == 1 && !*out &&
	      strstr(err, "minivmm: --boost-irq: no pvsched area with "
		     "--no-pvsched\n"),
	      "--no-pvsched --boost-irq: usage error, exit 1");
}

/*
 * The fake latency guest's 100 samples: sample i is (i + 1) * 1000 ticks
 * late, (i + 1) * 500 ns of the default 2 GHz TSC.
 */
#define LAT100 \
	"\"latency\":{\"samples\":100,\"min_ns\":500,\"mean_ns\":25250," \
	"\"p50_ns\":25000,\"p99_ns\":49500,\"p999_ns\":50000," \
	"\"max_ns\":50000,\"boost_seen\":"
#define LAT100_HIST \
	"\"hist\":[[1000,2],[1122,0],[1259,0],[1413,0],[1585,1],[1778,0],"
#define LAT100_HIST_END	",[39810,9],[44670,10],[50120,11]]}}"

/* The number after the first @key in out, or -1. */
static long long json_number(const char *key)
{
	const char *p = strstr(out, key);

	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/* The latency payload: samples, stats, TSC frequency, --boost. */
static void test_latency_runs(void)
{
	long long n;

	/* Exits per vCPU: AREA, BOOST_SEEN, DONE; none per sample. */
	run(G_LAT, "--vcpus=2 --iterations=100 --period-us=100 --json "
	    LATENCY, NULL);
	check(status == 0 && strstr(out, "{\"ok\":true,") &&
	      strstr(out, "\"iterations\":100,\"seconds\":null,"
		     "\"period_us\":100,\"busy_loops\":null,") &&
	      strstr(out, "\"wait\":\"halt\",\"boost_irq\":false,"
		     "\"boost\":null,\"vcpu_fifo\":null,"
		     "\"tsc_khz\":2000000,\"driver\":{") &&
	      tap_count(out, "\"count\":100,") == 2 &&
	      tap_count(out, "\"exits\":{\"io\":3,") == 2 &&
	      tap_count(out, "\"boost_seen\":0,\"wake_req\":0},"
		    LAT100 "0,"
		    LAT100_HIST) == 2 &&
	      tap_count(out, LAT100_HIST_END) == 2 && run_ns_ok(2, 10000000),
	      "latency: 100 samples per vCPU read back from guest memory, "
	      "stats in ns of the 2 GHz TSC, 100 us periods");
	run(G_LAT, "--iterations=100 --period-us=100 " LATENCY, NULL);
	check(status == 0 &&
	      strstr(out, ", timer period 100 us, wait halt, "
		     "TSC 2000000 kHz, ran ") &&
	      strstr(out, "\nvcpu0: latency 100 samples: min 0.5, mean 25.2, "
		     "p50 25.0, p99 49.5, p99.9 50.0, max 50.0 us\n"),
	      "latency text report: TSC in the header, a latency line");
	run(G_LAT " FAKE_KVM_TSC_KHZ=3000000",
	    "--iterations=10 --period-us=1000 --json " LATENCY, NULL);
	check(status == 0 && strstr(out, "\"tsc_khz\":3000000,") &&
	      strstr(out, "\"latency\":{\"samples\":10,\"min_ns\":333,"
		     "\"mean_ns\":1833,\"p50_ns\":1666,\"p99_ns\":3333,") &&
	      run_ns_ok(1, 10000000),
	      "latency at 3 GHz: period_tsc and the samples converted with "
	      "KVM_GET_TSC_KHZ");
	run(G_LAT, "--seconds=0.2 --json " LATENCY, NULL);
	n = json_number("\"count\":");
	check(status == 0 && strstr(out, "\"period_us\":500,") &&
	      strstr(out, "\"iterations\":null,\"seconds\":0.2,") &&
	      n > 0 && n <= 400 && json_number("\"samples\":") == n,
	      "latency --seconds=0.2: period 500 us by default, as many "
	      "samples as DONE counted (%lld)", n);
	run(G_LAT, "--iterations=100 --period-us=100 --boost=wait "
	    "--pvsched=pvsched_boost --json " LATENCY, NULL);
	check(status == 0 && strstr(out, "\"boost\":\"wait\",") &&
	      strstr(out, "\"guest_flags\":0,\"boosts\":100,"
		     "\"unboosts\":100,\"throttles\":0,"
		     "\"boosted_ns\":100000,\"boost_seen\":100,\"wake_req\":0},"
		     LAT100 "100,"),
	      "latency --boost=wait, pvsched_boost: a boost around each wait, "
	      "each sample saw it");
	run(G_LAT, "--iterations=100 --period-us=100 --boost=hold "
	    "--pvsched=pvsched_boost --json " LATENCY, NULL);
	check(status == 0 && strstr(out, "\"boost\":\"hold\",") &&
	      strstr(out, "\"guest_flags\":0,\"boosts\":1,"
		     "\"unboosts\":1,\"throttles\":0,"
		     "\"boosted_ns\":1000,\"boost_seen\":100,\"wake_req\":0},"
		     LAT100 "100,"),
	      "latency --boost=hold: one boost for the whole run, dropped at "
	      "the end");
	run(G_LAT, "--iterations=100 --period-us=100 --boost-irq "
	    "--pvsched=pvsched_boost --json " LATENCY, NULL);
	check(status == 0 && strstr(out, "\"boost_irq\":true,\"boost\":null,") &&
	      strstr(out, "\"guest_flags\":0,\"boosts\":100,"
		     "\"unboosts\":100,") && strstr(out, LAT100 "100,"),
	      "latency --boost-irq: a boost at each WAKEUP");
	run(G_LAT, "--iterations=100 --period-us=100 --boost-irq --wait=spin "
	    "--pvsched=pvsched_boost --json " LATENCY, NULL);
	check(status == 0 && strstr(out, "\"wait\":\"spin\",") &&
	      strstr(out, "\"boosts\":0,") && strstr(out, LAT100 "0,"),
	      "latency --boost-irq --wait=spin: no halt, no WAKEUP, no boost");
	run(G_LAT, "--iterations=5 --boost=wait --wait=spin " LATENCY, NULL);
	check(status == 0 && strstr(out, ", wait spin, boost wait, TSC "),
	      "latency text header: wait spin, boost wait");
	run(G_LAT " " TRACE, "--no-pvsched --iterations=10 --json " LATENCY,
	    NULL);
	check(status == 0 && !*err &&
	      strstr(out, "\"pvsched_area\":\"not-used\",") &&
	      strstr(out, "\"pvsched_area\":null,\"latency\":{\"samples\":10,"),
	      "latency --no-pvsched: no area, samples still");
}

static void test_latency_errors(void)
{
	static const char *const named[] = {
		"io", "halt", "cpuid", "boost", "irq",
	};
	char args[128], want[256];
	unsigned int i;
	bool boost_ok = true;

	run(G_LAT " FAKE_KVM_NO_TSC_DEADLINE=1", "--iterations=5 " LATENCY,
	    NULL);
	check(status == 3 &&
	      strstr(err, "minivmm: vcpu0: guest FAIL: no TSC-deadline timer "
		     "(CPUID.1:ECX bit 24)\n") && strstr(out, "guest-fail"),
	      "no KVM_CAP_TSC_DEADLINE_TIMER: CPUID.1:ECX bit 24 not set, the "
	      "guest FAILs, exit 3");
	run(G_LAT " FAKE_KVM_NO_TSC_KHZ=1", "--iterations=5 " LATENCY, NULL);
	check(status == 3 && !*out &&
	      !strcmp(err, "minivmm: KVM lacks KVM_CAP_GET_TSC_KHZ\n"),
	      "no KVM_CAP_GET_TSC_KHZ: one line, exit 3");
	run("FAKE_KVM_NO_TSC_KHZ=1", "--iterations=5 " IO, NULL);
	check(status == 0, "KVM_CAP_GET_TSC_KHZ is not needed for io");
	run(G_LAT " FAKE_KVM_TSC_KHZ=0", "--iterations=5 " LATENCY, NULL);
	check(status == 3 && !*out &&
	      !strcmp(err, "minivmm: vcpu0: KVM_GET_TSC_KHZ: 0, KVM does not "
		      "know the TSC frequency\n"),
	      "KVM_GET_TSC_KHZ gives 0: one line, exit 3, before any vCPU runs");
	run(G_LAT " FAKE_KVM_AREA_VERSION=2", "--iterations=3 " LATENCY, NULL);
	check(status == 3 &&
	      strstr(err, "minivmm: vcpu0: guest FAIL: pvsched area at 0x9000 "
		     "is not version 1\n"),
	      "latency: an area of another version is a guest FAIL, exit 3");
	run(G_LAT, NULL, "cp $P/latency.bin lat.bin && "
	    "$VMM --iterations=3 --payload=./lat.bin");
	check(status == 3 && strstr(err, "guest FAIL: bad params block"),
	      "a copy of latency.bin of another name gets no samples: "
	      "FAIL(FAIL_BAD_PARAMS)");

	for (i = 0; i < ARRAY_SIZE(named); i++) {
		snprintf(args, sizeof(args), "--boost=wait --payload=%s",
			 named[i]);
		run("", args, NULL);
		snprintf(want, sizeof(want),
			 "minivmm: --boost: payload %s raises no PVSCHED_GUEST_BOOST around its waits (only latency, and toggle with hold)\n",
			 named[i]);
		boost_ok = boost_ok && status == 1 && !*out &&
			   !strcmp(err, want);
	}
	check(boost_ok, "--boost with io, halt, cpuid, boost, irq: usage "
	      "error, exit 1, one line");
	run(G_LAT, NULL, "cp $P/latency.bin lat.bin && "
	    "$VMM --boost=hold --payload=./lat.bin");
	check(status == 1 && !*out &&
	      !strcmp(err, "minivmm: --boost: payload other raises no "
		      "PVSCHED_GUEST_BOOST around its waits (only latency, "
		      "and toggle with hold)\n"),
	      "--boost with a payload file of another name: usage error");
	run("", "--boost=wait --payload=toggle", NULL);
	check(status == 1 && !*out &&
	      !strcmp(err, "minivmm: --boost=wait: payload toggle raises and "
		      "drops PVSCHED_GUEST_BOOST itself (only --boost=hold)\n"),
	      "--boost=wait with toggle: usage error, exit 1, one line");
	run("", "--touch=8 --payload=cpuid", NULL);
	check(status == 1 && !*out &&
	      !strcmp(err, "minivmm: --touch: payload cpuid touches no memory "
		      "(only toggle)\n"),
	      "--touch with cpuid: usage error, exit 1, one line");
	run("", "--touch=0 --payload=toggle", NULL);
	check(status == 1 && !*out &&
	      !strcmp(err, "minivmm: --touch: '0' is not in 1..1024 (MiB)\n"
		      "Try 'minivmm --help'.\n"),
	      "--touch=0: usage error, exit 1, one line");
	run("", "--latency-samples --payload=irq", NULL);
	check(status == 1 && !*out &&
	      !strcmp(err, "minivmm: --latency-samples: payload irq takes no "
		      "latency samples (only latency)\n"),
	      "--latency-samples with irq: usage error, exit 1, one line");
	run(G_LAT, "--latency-samples --iterations=3 --json " LATENCY, NULL);
	check(status == 0 && strstr(out, ",\"samples_ns\":[") &&
	      !strstr(strstr(out, "samples_ns") + 1, "samples_ns"),
	      "latency --latency-samples: samples_ns in the report, once");
	run("", "--boost=wait --no-area " LATENCY, NULL);
	check(status == 1 && !*out &&
	      !strcmp(err, "minivmm: --boost: no pvsched area with --no-area\n"
		      "Try 'minivmm --help'.\n"),
	      "--boost --no-area: usage error, exit 1");
	run("", "--iterations=65537 " LATENCY, NULL);
	check(status == 1 && !*out &&
	      !strcmp(err, "minivmm: --iterations: payload latency keeps at "
		      "most 65536 samples per vCPU\n"),
	      "latency --iterations=65537: usage error, exit 1, one line");
	run("", "--iterations=65537 --payload=latency", NULL);
	check(status == 1 && strstr(err, "keeps at most 65536 samples"),
	      "latency by name --iterations=65537: usage error too");
}

/*
 * --vcpu-fifo: the fake notes sched_setscheduler() (never really made)
 * and, with FAKE_KVM_WANT_FIFO, fails a KVM_RUN on a thread that was not
 * made SCHED_FIFO at that priority first.
 */
static void test_vcpu_fifo(void)
{
	const char *want = "minivmm: --vcpu-fifo=50: vcpu0 (tid ";

	run("FAKE_KVM_WANT_FIFO=50", "--vcpus=3 --iterations=100 --vcpu-fifo=50 "
	    "--json " IO, NULL);
	check(status == 0 && strstr(out, "\"boost\":null,\"vcpu_fifo\":50,"
				     "\"tsc_khz\":null,") &&
	      tap_count(out, "\"result\":\"done\"") == 3,
	      "--vcpu-fifo=50: each vCPU thread SCHED_FIFO 50 before its "
	      "first KVM_RUN");
	run("FAKE_KVM_WANT_FIFO=50", "--iterations=100 " IO, NULL);
	check(status == 3 && strstr(err, "guest FAIL: code 0xf1f0"),
	      "negative control: without --vcpu-fifo the fake sees no "
	      "SCHED_FIFO");
	run("FAKE_KVM_WANT_FIFO=50", "--iterations=100 --vcpu-fifo=49 " IO,
	    NULL);
	check(status == 3 && strstr(err, "guest FAIL: code 0xf1f0"),
	      "negative control: another priority");
	run(G_LAT " FAKE_KVM_WANT_FIFO=7", "--iterations=5 --vcpu-fifo=7 "
	    LATENCY, NULL);
	check(status == 0 && strstr(out, ", vcpu-fifo 7, TSC 2000000 kHz, ran "),
	      "--vcpu-fifo with latency; text header");
	run("FAKE_KVM_GUEST=hang FAKE_KVM_FIFO_ERRNO=1", NULL,
	    "rm -f running; timeout 10 $VMM --vcpus=2 --vcpu-fifo=50 "
	    "--payload=$P/io.bin; s=$?; [ -e running ] && s=99; exit $s");
	check(status == 3 && !*out && tap_count(err, "\n") == 1 &&
	      !strncmp(err, want, strlen(want)) &&
	      strstr(err, "): sched_setscheduler(SCHED_FIFO, 50): Operation "
		     "not permitted (EPERM): a real-time thread needs "
		     "CAP_SYS_NICE or RLIMIT_RTPRIO\n"),
	      "--vcpu-fifo, EPERM: one line with the errno, exit 3, no vCPU "
	      "ran, no report");
	run("FAKE_KVM_FIFO_ERRNO=22", "--vcpu-fifo=50 --json " IO, NULL);
	check(status == 3 && !*out && tap_count(err, "\n") == 1 &&
	      strstr(err, "sched_setscheduler(SCHED_FIFO, 50): Invalid "
		     "argument (EINVAL)\n"),
	      "--vcpu-fifo, EINVAL: no CAP_SYS_NICE hint");
}

/* pvsched_count's wakeup key, and a kernel without it. */
static void test_wakeup_stats(void)
{
	run("FAKE_KVM_GUEST=halt " COUNT, "--vcpus=2 --iterations=5 "
	    "--pvsched=pvsched_count --json " HALT, NULL);
	check(status == 0 &&
	      tap_count(out, "\"callbacks\":{\"source\":\"pvsched_count\","
		    "\"register\":1,\"unregister\":0,") == 2 &&
	      tap_count(out, "\"halt\":5,\"intr_inj\":5,\"wakeup\":5}") == 2,
	      "pvsched_count with wakeup: JSON wakeup per vCPU");
	run("FAKE_KVM_GUEST=halt " COUNT_OLD, "--vcpus=2 --iterations=5 "
	    "--pvsched=pvsched_count --json " HALT, NULL);
	check(status == 0 &&
	      tap_count(out, "\"halt\":5,\"intr_inj\":5,\"wakeup\":null}") == 2,
	      "pvsched_count of an older kernel: counts, wakeup null");
	run("FAKE_KVM_GUEST=halt " COUNT, "--iterations=5 "
	    "--pvsched=pvsched_count " HALT, NULL);
	check(status == 0 && strstr(out, "ns/iter   wakeup\n") &&
	      strstr(out, "  pvsched_count ") &&
	      strstr(out, "        5        5 ") && strstr(out, "        5\n"),
	      "text: the wakeup count in the last column");
	run("FAKE_KVM_GUEST=halt " COUNT_OLD, "--iterations=5 "
	    "--pvsched=pvsched_count " HALT, NULL);
	check(status == 0 && strstr(out, "  pvsched_count ") &&
	      strstr(out, "        -\n"),
	      "text: '-' for the wakeup count of an older kernel");
}

void test_fake(void)
{
	diag("fake KVM runs");
	test_runs();
	test_run_ns();
	test_period_us();
	test_no_pvsched();
	test_errors();
	test_ioctl_failures();
	test_area_offered();
	test_area_missing_or_failing();
	test_eperm();
	test_irq();
	test_irq_usage();
	test_wakeup_stats();
	test_latency_runs();
	test_latency_errors();
	test_vcpu_fifo();
}
