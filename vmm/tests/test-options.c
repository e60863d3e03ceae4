// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "tap.h"

#define MAX_ARGS	40

static struct options opts;
static char errbuf[4096];

/* Parse a NULL-terminated list of arguments; messages go to errbuf. */
static enum options_action parse_v(const char *const *args)
{
	char *argv[MAX_ARGS + 2] = { "minivmm" };
	enum options_action a;
	FILE *err;
	int argc = 1;

	while (*args && argc <= MAX_ARGS)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	err = fmemopen(errbuf, sizeof(errbuf), "w");
	a = options__parse(&opts, argc, argv, err);
	fclose(err);
	return a;
}

#define parse(...)	parse_v((const char *const[]){ __VA_ARGS__, NULL })
#define accepts(...)	(parse(__VA_ARGS__) == OPTIONS_RUN)
#define rejects(...)	(parse(__VA_ARGS__) == OPTIONS_ERROR)

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_defaults_and_flags(void)
{
	ok(parse_v((const char *const[]){ NULL }) == OPTIONS_RUN,
	   "no options: run");
	ok(opts.nr_vcpus == 1 && !strcmp(opts.payload, "io") &&
	   !opts.iterations && !opts.seconds && !opts.pvsched_set &&
	   !opts.nr_switches && !opts.json && !opts.list_drivers &&
	   !opts.no_pvsched && !opts.period_us,
	   "defaults: 1 vCPU, io, no driver change, pvsched used, no period");
	ok(parse("--help") == OPTIONS_HELP, "--help");
	ok(parse("-h") == OPTIONS_HELP, "-h");
	ok(parse("--version") == OPTIONS_VERSION, "--version");
	ok(accepts("--json", "--list-drivers") && opts.json &&
	   opts.list_drivers, "--json --list-drivers");
	ok(rejects("--bogus") && strstr(errbuf, "--bogus"),
	   "unknown option named in the message");
	ok(rejects("-xy") &&
	   !strcmp(errbuf, "minivmm: unknown option '-x'\n"),
	   "an unknown short option in a cluster is named: '%s'", errbuf);
	ok(rejects("--json", "-qz") &&
	   !strcmp(errbuf, "minivmm: unknown option '-q'\n"),
	   "the same after another option: '%s'", errbuf);
	ok(rejects("--json", "stray", "-\xff" "a") &&
	   !strcmp(errbuf, "minivmm: unknown option '-\xff'\n"),
	   "a byte above 0x7f in a cluster after a non-option: named");
	ok(rejects("-Vx") == false && parse("-hx") == OPTIONS_HELP,
	   "-h and -V first in a cluster still win");
	ok(rejects("--help=1") &&
	   !strcmp(errbuf, "minivmm: unknown option '--help=1'\n"),
	   "--help with a value: named whole: '%s'", errbuf);
	ok(rejects("stray"), "positional argument");
	ok(rejects("--vcpus"), "--vcpus without a value");
	ok(rejects("--json=1"), "--json takes no value");
}

static void test_vcpus(void)
{
	ok(accepts("--vcpus=4") && opts.nr_vcpus == 4, "--vcpus=4");
	ok(accepts("--vcpus", "2") && opts.nr_vcpus == 2, "--vcpus 2");
	ok(accepts("--vcpus=64") && opts.nr_vcpus == 64, "--vcpus=64 (max)");
	ok(rejects("--vcpus=65"), "--vcpus=65");
	ok(rejects("--vcpus=0"), "--vcpus=0");
	ok(rejects("--vcpus=-1"), "--vcpus=-1");
	ok(rejects("--vcpus=2x"), "--vcpus=2x");
	ok(rejects("--vcpus="), "--vcpus= (empty)");
	ok(rejects("--vcpus= 2"), "--vcpus=' 2'");
}

static void test_iterations_seconds(void)
{
	ok(accepts("--iterations=1000") && opts.iterations == 1000,
	   "--iterations=1000");
	ok(accepts("--iterations=18446744073709551615") &&
	   opts.iterations == ~0ULL, "--iterations=2^64-1");
	ok(rejects("--iterations=18446744073709551616"),
	   "--iterations overflow");
	ok(rejects("--iterations=0"), "--iterations=0");
	ok(rejects("--iterations=-5"), "--iterations=-5");
	ok(rejects("--iterations=1e3"), "--iterations=1e3");
	ok(rejects("--iterations=+5"), "--iterations=+5");

	ok(accepts("--seconds=2.5") && opts.seconds == 2.5, "--seconds=2.5");
	ok(accepts("--seconds=.5") && opts.seconds == 0.5, "--seconds=.5");
	ok(accepts("--seconds=86400"), "--seconds=86400 (max)");
	ok(rejects("--seconds=86400.5"), "--seconds above max");
	ok(rejects("--seconds=0"), "--seconds=0");
	ok(rejects("--seconds=-1"), "--seconds=-1");
	ok(rejects("--seconds=abc"), "--seconds=abc");
	ok(rejects("--seconds=1e2"), "--seconds=1e2");
	ok(rejects("--seconds=0x10"), "--seconds=0x10");
	ok(rejects("--seconds=inf"), "--seconds=inf");
	ok(rejects("--seconds=nan"), "--seconds=nan");
	ok(rejects("--seconds=."), "--seconds=.");
	ok(rejects("--seconds=1.2.3"), "--seconds=1.2.3");

	ok(rejects("--iterations=10", "--seconds=1") &&
	   strstr(errbuf, "mutually exclusive"),
	   "--iterations with --seconds");
	ok(rejects("--seconds=1", "--iterations=10"),
	   "--seconds with --iterations");
}

static void test_period_us(void)
{
	ok(accepts("--period-us=20000") && opts.period_us == 20000,
	   "--period-us=20000");
	ok(accepts("--period-us", "1") && opts.period_us == 1,
	   "--period-us 1 (min)");
	ok(accepts("--period-us=4294967") && opts.period_us == 4294967 &&
	   opts.period_us * MINIVMM_TIMER_COUNT_PER_US <= 0xffffffffULL,
	   "--period-us=4294967 (max): count 4294967000 fits in 32 bits");
	ok(rejects("--period-us=4294968") &&
	   !strcmp(errbuf,
		   "minivmm: --period-us: '4294968' is not in 1..4294967 (microseconds; the timer count, 1000 per us, must fit in 32 bits)\n"),
	   "--period-us=4294968: count overflows 32 bits, one line");
	ok(rejects("--period-us=0") && strstr(errbuf, "'0' is not in 1..") &&
	   lines(errbuf) == 1, "--period-us=0: one line");
	ok(rejects("--period-us=18446744073709551616"),
	   "--period-us beyond 64 bits");
	ok(rejects("--period-us=-1"), "--period-us=-1");
	ok(rejects("--period-us=1e3"), "--period-us=1e3");
	ok(rejects("--period-us=20ms"), "--period-us=20ms");
	ok(rejects("--period-us=+5"), "--period-us=+5");
	ok(rejects("--period-us="), "--period-us= (empty)");
	ok(rejects("--period-us"), "--period-us without a value");
	ok(accepts("--payload=io", "--period-us=50"),
	   "--period-us with io parses (the payload check comes later)");
}

static void test_busy_loops(void)
{
	ok(accepts("--payload=boost") && opts.busy_loops == 0,
	   "--busy-loops not given: 0 (the payload's default applies)");
	ok(accepts("--busy-loops=1") && opts.busy_loops == 1,
	   "--busy-loops=1 (min)");
	ok(accepts("--busy-loops", "1000000000") &&
	   opts.busy_loops == MINIVMM_MAX_BUSY_LOOPS,
	   "--busy-loops 1000000000 (max)");
	ok(rejects("--busy-loops=1000000001") &&
	   !strcmp(errbuf,
		   "minivmm: --busy-loops: '1000000001' is not in 1..1000000000\n"),
	   "--busy-loops beyond the max: one line");
	ok(rejects("--busy-loops=0") && lines(errbuf) == 1, "--busy-loops=0");
	ok(rejects("--busy-loops=-5"), "--busy-loops=-5");
	ok(rejects("--busy-loops=1k"), "--busy-loops=1k");
	ok(rejects("--busy-loops"), "--busy-loops without a value");
}

static void test_wait_boost_irq(void)
{
	enum irq_wait w = IRQ_WAIT_UNSET;

	ok(accepts("--payload=irq") && opts.wait == IRQ_WAIT_UNSET &&
	   !opts.boost_irq,
	   "--wait, --boost-irq not given: unset (the payload's default)");
	ok(accepts("--wait=halt") && opts.wait == IRQ_WAIT_HALT, "--wait=halt");
	ok(accepts("--wait", "spin") && opts.wait == IRQ_WAIT_SPIN,
	   "--wait spin");
	ok(accepts("--wait=spin", "--wait=halt") && opts.wait == IRQ_WAIT_HALT,
	   "the last --wait wins");
	ok(rejects("--wait=poll") &&
	   !strcmp(errbuf, "minivmm: --wait: 'poll' is not halt or spin\n"),
	   "--wait=poll: one line");
	ok(rejects("--wait=") && lines(errbuf) == 1 &&
	   strstr(errbuf, "minivmm: --wait: '' is not"), "--wait= (empty)");
	ok(rejects("--wait=HALT"), "--wait=HALT: lower case only");
	ok(rejects("--wait=halt2"), "--wait=halt2");
	ok(rejects("--wait"), "--wait without a value");
	ok(accepts("--payload=io", "--wait=spin"),
	   "--wait with io parses (the payload check comes later)");
	ok(!options__parse_wait("spin", &w) && w == IRQ_WAIT_SPIN &&
	   options__parse_wait("Spin", &w) == -EINVAL && w == IRQ_WAIT_SPIN,
	   "options__parse_wait: a bad value leaves the output alone");
	ok(!options__wait_name(IRQ_WAIT_UNSET) &&
	   !strcmp(options__wait_name(IRQ_WAIT_HALT), "halt") &&
	   !strcmp(options__wait_name(IRQ_WAIT_SPIN), "spin"),
	   "wait names: halt, spin, none when unset");

	ok(accepts("--boost-irq") && opts.boost_irq && !opts.wait,
	   "--boost-irq");
	ok(accepts("--payload=irq", "--boost-irq", "--wait=spin",
		   "--pvsched=pvsched_boost") &&
	   opts.boost_irq && opts.wait == IRQ_WAIT_SPIN,
	   "--boost-irq with --wait=spin and a driver");
	ok(accepts("--payload=io", "--boost-irq"),
	   "--boost-irq with io parses (the payload check comes later)");
	ok(rejects("--boost-irq=1"), "--boost-irq takes no value");
	ok(rejects("--boost-irq", "--no-area") &&
	   !strcmp(errbuf,
		   "minivmm: --boost-irq: no pvsched area with --no-area\n"),
	   "--boost-irq with --no-area: one line");
	ok(rejects("--no-pvsched", "--boost-irq") &&
	   !strcmp(errbuf,
		   "minivmm: --boost-irq: no pvsched area with --no-pvsched\n"),
	   "--no-pvsched with --boost-irq: one line");
	ok(rejects("--no-area", "--no-pvsched", "--boost-irq") &&
	   lines(errbuf) == 1 && strstr(errbuf, "--boost-irq: no pvsched area"),
	   "--boost-irq with --no-area and --no-pvsched: one line");
	ok(accepts("--no-area", "--wait=spin") && accepts("--no-pvsched",
							  "--wait=spin"),
	   "--wait needs no area");
}

static void test_boost_fifo(void)
{
	enum lat_boost b = LAT_BOOST_NONE;

	ok(accepts("--payload=latency") && opts.boost == LAT_BOOST_NONE &&
	   !opts.vcpu_fifo, "--boost, --vcpu-fifo not given: none");
	ok(accepts("--boost=wait") && opts.boost == LAT_BOOST_WAIT,
	   "--boost=wait");
	ok(accepts("--boost", "hold") && opts.boost == LAT_BOOST_HOLD,
	   "--boost hold");
	ok(accepts("--boost=hold", "--boost=wait") &&
	   opts.boost == LAT_BOOST_WAIT, "the last --boost wins");
	ok(rejects("--boost=always") &&
	   !strcmp(errbuf, "minivmm: --boost: 'always' is not wait or hold\n"),
	   "--boost=always: one line");
	ok(rejects("--boost=") && lines(errbuf) == 1, "--boost= (empty)");
	ok(rejects("--boost=WAIT"), "--boost=WAIT: lower case only");
	ok(rejects("--boost"), "--boost without a value");
	ok(accepts("--payload=io", "--boost=wait"),
	   "--boost with io parses (the payload check comes later)");
	ok(rejects("--boost=hold", "--no-area") &&
	   !strcmp(errbuf, "minivmm: --boost: no pvsched area with --no-area\n"),
	   "--boost with --no-area: one line");
	ok(rejects("--no-pvsched", "--boost=wait") &&
	   !strcmp(errbuf,
		   "minivmm: --boost: no pvsched area with --no-pvsched\n"),
	   "--boost with --no-pvsched: one line");
	ok(accepts("--payload=latency", "--boost=wait", "--boost-irq",
		   "--wait=spin") && opts.boost == LAT_BOOST_WAIT &&
	   opts.boost_irq && opts.wait == IRQ_WAIT_SPIN,
	   "--boost with --boost-irq and --wait");
	ok(!options__parse_boost("hold", &b) && b == LAT_BOOST_HOLD &&
	   options__parse_boost("none", &b) == -EINVAL && b == LAT_BOOST_HOLD,
	   "options__parse_boost: a bad value leaves the output alone");
	ok(!options__boost_name(LAT_BOOST_NONE) &&
	   !strcmp(options__boost_name(LAT_BOOST_WAIT), "wait") &&
	   !strcmp(options__boost_name(LAT_BOOST_HOLD), "hold"),
	   "boost names: wait, hold, none when not given");

	ok(accepts("--latency-samples") && opts.latency_samples,
	   "--latency-samples");
	ok(accepts("--vcpu-fifo=1") && opts.vcpu_fifo == 1 &&
	   !opts.latency_samples, "--vcpu-fifo=1 (min)");
	ok(accepts("--vcpu-fifo", "99") && opts.vcpu_fifo == 99,
	   "--vcpu-fifo 99 (max)");
	ok(accepts("--vcpu-fifo=50", "--no-pvsched", "--payload=io") &&
	   opts.vcpu_fifo == 50, "--vcpu-fifo with any payload, --no-pvsched");
	ok(rejects("--vcpu-fifo=100") &&
	   !strcmp(errbuf,
		   "minivmm: --vcpu-fifo: '100' is not in 1..99 (a SCHED_FIFO priority)\n"),
	   "--vcpu-fifo=100: one line");
	ok(rejects("--vcpu-fifo=0") && lines(errbuf) == 1, "--vcpu-fifo=0");
	ok(rejects("--vcpu-fifo=-1"), "--vcpu-fifo=-1");
	ok(rejects("--vcpu-fifo=f"), "--vcpu-fifo=f");
	ok(rejects("--vcpu-fifo"), "--vcpu-fifo without a value");
	ok(accepts("--iterations=65537", "--payload=latency"),
	   "--iterations above the latency cap parses (the payload check "
	   "comes later)");
}

static void test_pvsched_payload(void)
{
	ok(accepts("--pvsched=pvsched_count") && opts.pvsched_set &&
	   !strcmp(opts.pvsched, "pvsched_count"), "--pvsched=NAME");
	ok(accepts("--pvsched=") && opts.pvsched_set && !opts.pvsched[0],
	   "--pvsched= means no driver, explicitly");
	ok(accepts("--pvsched=0123456789012345678901234567890") &&
	   strlen(opts.pvsched) == 31, "31-character driver name");
	ok(rejects("--pvsched=01234567890123456789012345678901"),
	   "32-character driver name");
	ok(accepts("--payload=halt") && !strcmp(opts.payload, "halt"),
	   "--payload=halt");
	ok(accepts("--payload=./x.bin") && !strcmp(opts.payload, "./x.bin"),
	   "--payload=PATH");
	ok(rejects("--payload="), "--payload= (empty)");
}

static void test_no_area(void)
{
	ok(parse_v((const char *const[]){ NULL }) == OPTIONS_RUN &&
	   !opts.no_area, "areas by default");
	ok(accepts("--no-area") && opts.no_area && !opts.no_pvsched,
	   "--no-area");
	ok(accepts("--no-area", "--pvsched=pvsched_count") && opts.no_area &&
	   opts.pvsched_set, "--no-area with a driver");
	ok(rejects("--no-area=1"), "--no-area takes no value");
}

static void test_no_pvsched(void)
{
	ok(accepts("--no-pvsched") && opts.no_pvsched && !opts.pvsched_set &&
	   !opts.nr_switches, "--no-pvsched");
	ok(accepts("--no-pvsched", "--vcpus=2", "--seconds=1", "--json") &&
	   opts.no_pvsched && opts.nr_vcpus == 2 && opts.json,
	   "--no-pvsched with the run options");
	ok(rejects("--no-pvsched=1"), "--no-pvsched takes no value");
	ok(rejects("--no-pvsched", "--pvsched=noop") &&
	   !strcmp(errbuf,
		   "minivmm: --no-pvsched and --pvsched are mutually exclusive\n"),
	   "--no-pvsched with --pvsched: one line");
	ok(rejects("--pvsched=", "--no-pvsched") &&
	   strstr(errbuf, "--no-pvsched and --pvsched") && lines(errbuf) == 1,
	   "--pvsched= (no driver) then --no-pvsched");
	ok(rejects("--no-pvsched", "--switch=noop@1") &&
	   !strcmp(errbuf,
		   "minivmm: --no-pvsched and --switch are mutually exclusive\n"),
	   "--no-pvsched with --switch: one line");
	ok(rejects("--switch=@0", "--seconds=1", "--no-pvsched") &&
	   strstr(errbuf, "--no-pvsched and --switch") && lines(errbuf) == 1,
	   "--switch then --no-pvsched");
}

static void test_switch(void)
{
	struct pvsched_switch sw;
	char many[MINIVMM_MAX_SWITCHES + 1][16];
	const char *args[MINIVMM_MAX_SWITCHES + 2];
	int i;

	ok(!options__parse_switch("a@1", &sw) && !strcmp(sw.name, "a") &&
	   sw.at == 1, "a@1");
	ok(!options__parse_switch("@2", &sw) && !sw.name[0] && sw.at == 2,
	   "@2 unassigns");
	ok(!options__parse_switch("a@0", &sw) && sw.at == 0, "a@0");
	ok(!options__parse_switch("a@b@1.5", &sw) && !strcmp(sw.name, "a@b") &&
	   sw.at == 1.5, "the last '@' splits");
	ok(options__parse_switch("noat", &sw), "no '@'");
	ok(options__parse_switch("a@", &sw), "no time");
	ok(options__parse_switch("a@-1", &sw), "negative time");
	ok(options__parse_switch("a@x", &sw), "bad time");
	ok(options__parse_switch("01234567890123456789012345678901@1", &sw),
	   "name too long");

	ok(accepts("--switch=b@2", "--switch=a@0.5", "--switch=c@2",
		   "--switch=@1") && opts.nr_switches == 4 &&
	   !strcmp(opts.switches[0].name, "a") && !opts.switches[1].name[0] &&
	   !strcmp(opts.switches[2].name, "b") &&
	   !strcmp(opts.switches[3].name, "c"),
	   "switches sorted by time, ties in command line order");
	ok(rejects("--switch=x"), "--switch=x");
	ok(accepts("--seconds=5", "--switch=a@4.9"), "switch before the end");
	ok(rejects("--seconds=5", "--switch=a@5"), "switch at the end");

	for (i = 0; i <= MINIVMM_MAX_SWITCHES; i++) {
		snprintf(many[i], sizeof(many[i]), "--switch=d@%d", i);
		args[i] = many[i];
	}
	args[MINIVMM_MAX_SWITCHES] = NULL;
	ok(parse_v(args) == OPTIONS_RUN &&
	   opts.nr_switches == MINIVMM_MAX_SWITCHES, "%d switches",
	   MINIVMM_MAX_SWITCHES);
	args[MINIVMM_MAX_SWITCHES] = many[MINIVMM_MAX_SWITCHES];
	args[MINIVMM_MAX_SWITCHES + 1] = NULL;
	ok(parse_v(args) == OPTIONS_ERROR, "%d switches",
	   MINIVMM_MAX_SWITCHES + 1);
}

static void test_usage(void)
{
	char buf[8192];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	options__usage(f);
	fclose(f);
	ok(strstr(buf, "/usr/share/minivmm") && strstr(buf, "Exit status") &&
	   strstr(buf, "reset at"), "--help documents payload dirs, exit "
	   "statuses and the stats reset");
	ok(strstr(buf, "  --no-pvsched  ") && strstr(buf, "KVM_CAP_PVSCHED") &&
	   strstr(buf, "excludes --pvsched and --switch"),
	   "--help documents --no-pvsched");
	ok(strstr(buf, "  --period-us=N  ") && strstr(buf, "1..4294967") &&
	   strstr(buf, "default 1000") && strstr(buf, "io or cpuid"),
	   "--help documents --period-us");
	ok(strstr(buf, "  --busy-loops=N  ") &&
	   strstr(buf, "1..1000000000 (default 10000)") &&
	   strstr(buf, "io, halt or cpuid") && strstr(buf, "boost"),
	   "--help documents --busy-loops and the boost payload");
	ok(strstr(buf, "  --wait=halt|spin  ") &&
	   strstr(buf, "(halt, the default)") && strstr(buf, "(spin)") &&
	   strstr(buf, "  --boost-irq  ") &&
	   strstr(buf, "PVSCHED_GUEST_BOOST_IRQ") &&
	   strstr(buf, "--no-area or --no-pvsched") &&
	   strstr(buf, "cpuid, boost,\n                       irq, latency or toggle,") &&
	   strstr(buf, "irq timer\n                       ticks (1000)") &&
	   strstr(buf, "halt, boost, irq and latency payloads"),
	   "--help documents --wait, --boost-irq and the irq payload");
	ok(strstr(buf, "  --touch=MIB  ") && strstr(buf, "1..1024") &&
	   strstr(buf, "toggle payload: hold only") &&
	   strstr(buf, "toggle rounds (1000)"),
	   "--help documents the toggle payload and --touch");
	ok(strstr(buf, "  --boost=wait|hold  ") &&
	   strstr(buf, "PVSCHED_GUEST_BOOST\n") &&
	   strstr(buf, "latency samples (2000, at most 65536)") &&
	   strstr(buf, "(default 1000, latency\n                       500;") &&
	   strstr(buf, "  --vcpu-fifo=PRIO  ") && strstr(buf, "1..99") &&
	   strstr(buf, "sched_setscheduler()") &&
	   strstr(buf, "KVM_GET_TSC_KHZ") &&
	   strstr(buf, "--vcpu-fifo refused"),
	   "--help documents --boost, --vcpu-fifo and the latency payload");
	ok(strstr(buf, "KVM_CAP_PVSCHED_AREA") &&
	   strstr(buf, "EPERM") && strstr(buf, "CAP_SYS_NICE"),
	   "--help documents the areas and the EPERM exit status");
}

static void test_linux_options(void)
{
	char buf[16384];
	FILE *f;

	ok(accepts("--kernel=/b/bzImage", "--initrd=/b/i.cpio",
		   "--append=console=ttyS0 quiet", "--mem=512", "--vcpus=2",
		   "--pvsched=pvsched_count", "--json") &&
	   !strcmp(opts.kernel, "/b/bzImage") &&
	   !strcmp(opts.initrd, "/b/i.cpio") &&
	   !strcmp(opts.append, "console=ttyS0 quiet") &&
	   opts.mem_mib == 512 && opts.nr_vcpus == 2 && opts.json,
	   "--kernel, --initrd, --append, --mem with --vcpus, --pvsched");
	ok(accepts("--kernel=bz") && !opts.initrd && !opts.append &&
	   !opts.mem_mib, "--kernel alone: no initrd, default append, mem");
	ok(accepts("--kernel=bz", "--append=") && opts.append &&
	   !*opts.append, "--append= : an empty command line");
	ok(accepts("--kernel=bz", "--mem=3072") && opts.mem_mib == 3072,
	   "--mem=3072 (max)");
	ok(rejects("--kernel=bz", "--mem=3073") &&
	   !strcmp(errbuf, "minivmm: --mem: '3073' is not in 1..3072 (MiB)\n"),
	   "--mem=3073: '%s'", errbuf);
	ok(rejects("--kernel=bz", "--mem=0") && rejects("--kernel=bz", "--mem=1G"),
	   "--mem=0, --mem=1G");
	ok(rejects("--kernel=") &&
	   !strcmp(errbuf, "minivmm: --kernel: empty path\n"), "--kernel=");
	ok(rejects("--kernel=bz", "--initrd=") &&
	   !strcmp(errbuf, "minivmm: --initrd: empty path\n"), "--initrd=");
	ok(rejects("--initrd=i") &&
	   !strcmp(errbuf, "minivmm: --initrd needs --kernel\n"),
	   "--initrd without --kernel");
	ok(rejects("--append=x") && strstr(errbuf, "--append needs --kernel") &&
	   rejects("--mem=64") && strstr(errbuf, "--mem needs --kernel"),
	   "--append, --mem without --kernel");
	ok(rejects("--kernel=bz", "--pvsched-device") &&
	   !strcmp(errbuf, "minivmm: unknown option '--pvsched-device'\n") &&
	   rejects("--pvsched-device") &&
	   !strcmp(errbuf, "minivmm: unknown option '--pvsched-device'\n"),
	   "--pvsched-device (the pvsched device is gone): an unknown "
	   "option, one line");
	ok(rejects("--refuse-areas") &&
	   !strcmp(errbuf, "minivmm: --refuse-areas needs --kernel\n") &&
	   rejects("--kernel=bz", "--refuse-areas", "--no-pvsched") &&
	   !strcmp(errbuf, "minivmm: --refuse-areas: no MSR_KVM_PVSCHED with --no-pvsched\n"),
	   "--refuse-areas: needs --kernel, not with --no-pvsched");
	ok(accepts("--kernel=bz", "--refuse-areas") && opts.refuse_areas &&
	   accepts("--kernel=bz") && !opts.refuse_areas,
	   "--refuse-areas with --kernel; off by default");
	ok(rejects("--kernel=bz", "--payload=io") &&
	   !strcmp(errbuf, "minivmm: --payload is a payload option: not with --kernel\n") &&
	   lines(errbuf) == 1, "--kernel with --payload: one line");
	ok(rejects("--kernel=bz", "--iterations=5") &&
	   strstr(errbuf, "--iterations is a payload option") &&
	   rejects("--kernel=bz", "--seconds=5") &&
	   strstr(errbuf, "--seconds is a payload option") &&
	   rejects("--kernel=bz", "--period-us=5") &&
	   rejects("--kernel=bz", "--busy-loops=5") &&
	   rejects("--kernel=bz", "--wait=spin") &&
	   rejects("--kernel=bz", "--boost-irq") &&
	   rejects("--kernel=bz", "--boost=hold") &&
	   rejects("--kernel=bz", "--latency-samples") &&
	   rejects("--kernel=bz", "--no-area") &&
	   strstr(errbuf, "--no-area is a payload option"),
	   "every payload option is refused with --kernel");
	ok(accepts("--kernel=bz", "--no-pvsched", "--vcpu-fifo=10") &&
	   accepts("--kernel=bz", "--switch=pvsched_count@1"),
	   "--no-pvsched, --vcpu-fifo and --switch go with --kernel");
	ok(accepts("--kernel=bz") && !opts.reboots && !opts.reboots_set &&
	   accepts("--kernel=bz", "--reboots=0") && !opts.reboots &&
	   opts.reboots_set &&
	   accepts("--kernel=bz", "--reboots=1000") && opts.reboots == 1000,
	   "--reboots: default 0, 0 and 1000 accepted");
	ok(rejects("--kernel=bz", "--reboots=1001") &&
	   !strcmp(errbuf, "minivmm: --reboots: '1001' is not in 0..1000\n") &&
	   rejects("--kernel=bz", "--reboots=-1") &&
	   !strcmp(errbuf, "minivmm: --reboots: '-1' is not in 0..1000\n") &&
	   rejects("--kernel=bz", "--reboots=") && lines(errbuf) == 1 &&
	   rejects("--kernel=bz", "--reboots=00x") &&
	   rejects("--kernel=bz", "--reboots=1.5") &&
	   rejects("--kernel=bz", "--reboots=99999999999999999999"),
	   "--reboots: bad values, one line: '%s'", errbuf);
	ok(rejects("--reboots=1") &&
	   !strcmp(errbuf, "minivmm: --reboots needs --kernel\n") &&
	   rejects("--reboots=0", "--payload=io") &&
	   !strcmp(errbuf, "minivmm: --reboots needs --kernel\n"),
	   "--reboots with a payload: a usage error, even =0");
	ok(rejects("--kernel=bz", "--reboots=2", "--switch=x@1") &&
	   !strcmp(errbuf, "minivmm: --reboots=2 and --switch are mutually exclusive\n") &&
	   accepts("--kernel=bz", "--reboots=0", "--switch=x@1") &&
	   accepts("--kernel=bz", "--reboots=2", "--vcpu-fifo=10"),
	   "--reboots=N with --switch: a usage error; not =0; --vcpu-fifo goes");
	f = fmemopen(buf, sizeof(buf), "w");
	options__usage(f);
	fclose(f);
	ok(strstr(buf, "--kernel=BZIMAGE") && strstr(buf, "--initrd=FILE") &&
	   strstr(buf, "--append=CMDLINE") && strstr(buf, "--mem=MIB") &&
	   strstr(buf, "port\n                       0x501") &&
	   strstr(buf, "(default \"console=ttyS0\")") &&
	   strstr(buf, "1..3072 (default 256)") &&
	   strstr(buf, "[--reboots=N]") && strstr(buf, "0..1000 (default 0"),
	   "--help documents the Linux options and the debug-exit port");
}

void test_options(void)
{
	diag("options");
	test_defaults_and_flags();
	test_vcpus();
	test_iterations_seconds();
	test_period_us();
	test_busy_loops();
	test_wait_boost_irq();
	test_boost_fifo();
	test_pvsched_payload();
	test_no_pvsched();
	test_no_area();
	test_switch();
	test_usage();
	test_linux_options();
}
