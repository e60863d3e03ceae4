// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end runs of tests/minivmm-fake: minivmm's real main loop, threads,
 * signals, pvsched calls and report, against tests/fake-kvm.c.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tap.h"

#define DRIVERS		"FAKE_KVM_DRIVERS='pvsched_count bpf_pvsched_count noop'"
#define IO		"--payload=../guest-payload/io.bin"
#define HALT		"--payload=../guest-payload/halt.bin"
#define CPUID		"--payload=../guest-payload/cpuid.bin"

/* For FAKE_KVM_GUEST=hang: wait (up to 20 s) until a vCPU is in KVM_RUN. */
#define WAIT_RUNNING \
	"rm -f running; i=0; while [ ! -e running ] && [ $i -lt 400 ]; " \
	"do sleep 0.05; i=$((i + 1)); done; "

static int status;
static char out[65536], err[65536];

static void slurp(const char *name, char *buf, size_t len)
{
	char path[4200];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tap_tmpdir, name);
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

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
	slurp("out", out, sizeof(out));
	slurp("err", err, sizeof(err));
	return status;
}

static int count(const char *haystack, const char *needle)
{
	int n = 0;

	while ((haystack = strstr(haystack, needle))) {
		haystack++;
		n++;
	}
	return n;
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
	      count(out, " done  ") == 2 && strstr(out, "final pvsched_count") &&
	      strstr(out, "pvsched_count stats reset at start: failed"),
	      "io, 2 vCPUs, --pvsched: ok, both DONE");
	run("", "--vcpus=3 --iterations=2500 --json " CPUID, NULL);
	check(status == 0 && count(out, "\"result\":\"done\",\"count\":2500,"
				   "\"progress\":0,") == 3 &&
	      strstr(out, "\"requested\":null") &&
	      strstr(out, "\"callbacks\":null"),
	      "cpuid --json: 3 rows, no callbacks source");
	run("FAKE_KVM_GUEST=halt", "--vcpus=2 --iterations=20 --json " HALT,
	    NULL);
	check(status == 0 && count(out, "\"count\":20,") == 2,
	      "halt: 20 ticks on 2 vCPUs, with the irqchip");
	run("", "--seconds=0.3 --switch=noop@0.1 --switch=@0.2 " IO, NULL);
	check(status == 0 && strstr(out, "pvsched (none) -> noop") &&
	      strstr(out, "pvsched noop -> (none)") &&
	      strstr(out, "final (none)") && count(out, " done  ") == 1,
	      "--seconds with two --switch: previous names printed");
	run("", "--iterations=10 --switch=noop@60 " IO, NULL);
	check(status == 0 && strstr(out, "switch at 60s to noop: not-reached"),
	      "switch after the end: not reached");
}

static void test_errors(void)
{
	run("FAKE_KVM_NO_PVSCHED=1", IO, NULL);
	check(status == 2 && count(err, "\n") == 1 &&
	      strstr(err, "no pvsched support") && !*out,
	      "no KVM_CAP_PVSCHED: exit 2, one line");
	run("FAKE_KVM_ENOTTY=1", "--pvsched=noop " IO, NULL);
	check(status == 2 && count(err, "\n") == 1 &&
	      strstr(err, "no pvsched support"), "ENOTTY: exit 2, one line");
	run("", "--pvsched=bogus " IO, NULL);
	check(status == 3 && strstr(err, "unknown pvsched driver 'bogus'") &&
	      strstr(err, "available: pvsched_count bpf_pvsched_count noop"),
	      "unknown --pvsched: exit 3, lists the drivers");
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
	      count(out, " stopped  ") == 2,
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

void test_fake(void)
{
	diag("fake KVM runs");
	test_runs();
	test_errors();
}
