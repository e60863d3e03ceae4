// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "tap.h"

static char out[8192];

static int count_str(const char *haystack, const char *needle)
{
	int n = 0;

	while ((haystack = strstr(haystack, needle))) {
		haystack++;
		n++;
	}
	return n;
}

static FILE *open_out(void)
{
	memset(out, 0, sizeof(out));
	return fmemopen(out, sizeof(out), "w");
}

static void test_json_string(void)
{
	FILE *f = open_out();

	report__json_string(f, "a\"b\\c\n\x01");
	fclose(f);
	ok(!strcmp(out, "\"a\\\"b\\\\c\\u000a\\u0001\""), "JSON escaping: %s",
	   out);
}

/* Render @r into out[] as JSON, or as the text report. */
static void render_json(struct report *r)
{
	FILE *f = open_out();

	report__json(f, r);
	fclose(f);
}

static void render_text(struct report *r)
{
	FILE *f = open_out();

	report__text(f, r);
	fclose(f);
}

static void fake_report(struct report *r, struct options *o,
			struct kvm_cpu *cpus, struct tid_stats *ts)
{
	memset(r, 0, sizeof(*r));
	memset(o, 0, sizeof(*o));
	memset(cpus, 0, 2 * sizeof(*cpus));
	memset(ts, 0, 2 * sizeof(*ts));
	o->pvsched_set = true;
	strcpy(o->pvsched, "pvsched_count");
	o->nr_switches = 2;
	strcpy(o->switches[0].name, "");
	o->switches[0].at = 0.5;
	strcpy(o->switches[1].name, "x");
	o->switches[1].at = 9;
	r->switches[0].status = SWITCH_DONE;
	r->switches[0].at = 0.505;
	strcpy(r->switches[0].prev, "pvsched_count");
	r->opts = o;
	r->payload = "/p/io.bin";
	r->iterations = 100;
	strcpy(r->final, "pvsched_count");
	r->final_ok = true;
	r->stats_reset = STATS_RESET_DONE;
	cpus[0].id = 0;
	cpus[0].tid = 4321;
	cpus[0].state = KVM_CPU_DONE;
	cpus[0].done = 100;
	cpus[0].exits.io = 111;
	cpus[0].run_start_ns = 5000000000ULL;
	cpus[0].run_end_ns = 5002500000ULL;	/* 2.5 ms, 25000 ns/iter */
	cpus[1].id = 1;
	cpus[1].tid = 4322;
	cpus[1].state = KVM_CPU_DONE;
	cpus[1].done = 100;
	cpus[1].dup_irqs = 2;
	cpus[1].shadow_irqs = 1;
	ts[0].source = STATS_PVSCHED_COUNT;
	ts[0].counts.vmenter = 42;
	r->cpus = cpus;
	r->stats = ts;
	r->nr_cpus = 2;
	r->ok = true;
}

static void test_outputs(void)
{
	struct kvm_cpu cpus[2];
	struct tid_stats ts[2];
	struct options o;
	struct report r;

	fake_report(&r, &o, cpus, ts);
	render_json(&r);
	ok(strstr(out, "{\"ok\":true,\"signal\":0,\"payload\":"
		  "\"/p/io.bin\",\"vcpus\":2,\"iterations\":100,"
		  "\"seconds\":null,\"period_us\":null,\"busy_loops\":null,"
		  "\"elapsed\":") != NULL,
	   "JSON header, period_us and busy_loops null for io");
	ok(strstr(out, "\"driver\":{\"initial\":\"\",\"requested\":"
		  "\"pvsched_count\",\"final\":\"pvsched_count\","
		  "\"stats_reset\":\"done\"}") != NULL, "JSON driver");
	ok(strstr(out, "{\"at\":0.5,\"name\":\"\",\"status\":\"done\","
		  "\"issued_at\":0.505,\"previous\":\"pvsched_count\"}") &&
	   strstr(out, "{\"at\":9,\"name\":\"x\",\"status\":\"not-reached\"}"),
	   "JSON switches");
	ok(strstr(out, "{\"index\":0,\"tid\":4321,\"result\":\"done\","
		  "\"count\":100,\"progress\":0,\"dup_irqs\":0,"
		  "\"shadow_irqs\":0,\"run_ns\":2500000,"
		  "\"exits\":{\"io\":111,"
		  "\"mmio\":0,\"hlt\":0,\"other\":0},\"callbacks\":{\"source\":"
		  "\"pvsched_count\",\"register\":0,\"unregister\":0,"
		  "\"vmenter\":42,") != NULL, "JSON vCPU row with counts");
	ok(strstr(out, "\"tid\":4322,") &&
	   strstr(out, "\"callbacks\":null,\"pvsched_area\":null,\"latency\":null}]}"),
	   "JSON vCPU row without counts nor area");
	ok(strstr(out, "\"index\":1,\"tid\":4322,\"result\":\"done\","
		  "\"count\":100,\"progress\":0,\"dup_irqs\":2,"
		  "\"shadow_irqs\":1,\"run_ns\":0,") != NULL,
	   "JSON run_ns 0 for a vCPU with no run timestamps");

	render_text(&r);
	ok(strstr(out, "driver: initial (none), --pvsched pvsched_count, "
		  "final pvsched_count\n") != NULL, "text driver line");
	ok(strstr(out, "switch at 0.5s to (none): done at 0.505s, previous "
		  "pvsched_count\n") &&
	   strstr(out, "switch at 9s to x: not-reached\n"), "text switches");
	ok(strstr(out, "   0    4321 done") && strstr(out, "   1    4322 done"),
	   "text rows");
	ok(strstr(out, "payload /p/io.bin, 2 vCPUs, 100 iterations, ran ") != NULL,
	   "text header without a timer period");
	ok(strstr(out, "\nvcpu1: 2 duplicate timer interrupt deliveries, not "
		  "counted as ticks (DUP_IRQS)\n") &&
	   strstr(out, "\nvcpu1: 1 timer interrupts delivered in the shadow "
		  "of sti, resumed past the hlt (SHADOW_IRQS)\n") &&
	   !strstr(out, "vcpu0:"),
	   "text: duplicate and sti-shadow lines for the vCPU with them only");

	r.payload = "/p/halt.bin";
	r.period_us = 20000;
	render_json(&r);
	ok(strstr(out, "\"iterations\":100,\"seconds\":null,"
		  "\"period_us\":20000,\"busy_loops\":null,\"elapsed\":") != NULL,
	   "JSON period_us of a timer payload");
	render_text(&r);
	ok(strstr(out, "payload /p/halt.bin, 2 vCPUs, 100 iterations, "
		  "timer period 20000 us, ran ") != NULL,
	   "text header with the timer period");
	ok(strstr(out, " intr_inj      run_s    ns/iter   wakeup\n") &&
	   strstr(out, "   0.002500    25000.0        -\n") &&
	   strstr(out, "        -          -          -        -\n"),
	   "text run time and ns per iteration, '-' without timestamps");
}

static void test_no_pvsched(void)
{
	struct kvm_cpu cpus[2];
	struct tid_stats ts[2];
	struct options o;
	struct report r;

	fake_report(&r, &o, cpus, ts);
	o.no_pvsched = true;
	o.pvsched_set = false;
	o.nr_switches = 0;
	r.final_ok = false;
	r.stats_reset = STATS_RESET_NOT_NEEDED;
	ts[0].source = STATS_NONE;
	render_json(&r);
	ok(strstr(out, ",\"driver\":null,\"switches\":[],"
		  "\"pvsched_area\":\"not-used\",\"vcpu\":[") &&
	   !strstr(out, "initial") && strstr(out, "\"run_ns\":2500000,"),
	   "--no-pvsched JSON: \"driver\":null");
	render_text(&r);
	ok(strstr(out, "\ndriver: pvsched not used (--no-pvsched)\nvcpu ") &&
	   !strstr(out, "initial") && !strstr(out, "switch") &&
	   !strstr(out, "area"),
	   "--no-pvsched text: driver line says pvsched was not used");
}

/* The pvsched areas: registered, not offered; busy_loops. */
static void test_area(void)
{
	struct kvm_cpu cpus[2];
	struct tid_stats ts[2];
	struct options o;
	struct report r;

	fake_report(&r, &o, cpus, ts);
	r.payload = "/p/boost.bin";
	r.period_us = 1000;
	r.busy_loops = 5000;
	r.area = AREA_REGISTERED;
	cpus[0].area_gpa = GUEST_PVSCHED_AREA(0);
	cpus[0].area.version = 1;
	cpus[0].area.boosts = 7;
	cpus[0].area.unboosts = 6;
	cpus[0].area.throttles = 1;
	cpus[0].area.boosted_ns = 123456789012ULL;
	cpus[0].boost_seen = 5;
	cpus[1].area_gpa = GUEST_PVSCHED_AREA(1);
	cpus[1].area.version = 1;
	cpus[1].area.host_flags = 3;
	cpus[1].area.guest_flags = 1;
	cpus[1].area.wake_req = 3 << 8 | 2;
	render_json(&r);
	ok(strstr(out, "\"period_us\":1000,\"busy_loops\":5000,\"elapsed\":") &&
	   strstr(out, "],\"pvsched_area\":\"registered\",\"vcpu\":[{"),
	   "JSON busy_loops, pvsched_area registered");
	ok(strstr(out, "\"vmenter\":42,\"vmexit\":0,\"halt\":0,"
		  "\"intr_inj\":0,\"wakeup\":null},"
		  "\"pvsched_area\":{\"gpa\":36864,"
		  "\"version\":1,\"host_flags\":0,\"guest_flags\":0,"
		  "\"boosts\":7,\"unboosts\":6,\"throttles\":1,"
		  "\"boosted_ns\":123456789012,\"boost_seen\":5,"
		  "\"wake_req\":0},\"latency\":null},") &&
	   strstr(out, "\"callbacks\":null,\"pvsched_area\":{\"gpa\":36928,"
		  "\"version\":1,\"host_flags\":3,\"guest_flags\":1,"
		  "\"boosts\":0,\"unboosts\":0,\"throttles\":0,"
		  "\"boosted_ns\":0,\"boost_seen\":0,\"wake_req\":770},"
		  "\"latency\":null}]}"),
	   "JSON per-vCPU pvsched_area objects");
	render_text(&r);
	ok(strstr(out, "timer period 1000 us, busy loop 5000, ran ") &&
	   strstr(out, "\npvsched area: registered, vCPU i's at 0x9000 + 64 * i\n") &&
	   strstr(out, "\nvcpu0: pvsched area 0x9000: version 1, boosts 7, "
		  "unboosts 6, throttles 1, boosted_ns 123456789012, "
		  "host_flags 0, guest saw BOOSTED 5 times, wake_req 0\n") &&
	   strstr(out, "\nvcpu1: pvsched area 0x9040: version 1, boosts 0, "
		  "unboosts 0, throttles 0, boosted_ns 0, host_flags 0x3, "
		  "guest saw BOOSTED 0 times, wake_req 0x302\n"),
	   "text: area line in the header, one line per vCPU area");

	cpus[0].area_gpa = 0;
	cpus[1].area_gpa = 0;
	r.area = AREA_NOT_OFFERED;
	render_json(&r);
	ok(strstr(out, "\"pvsched_area\":\"not-offered\",\"vcpu\":[") &&
	   count_str(out, "\"pvsched_area\":null") == 2,
	   "JSON: not-offered, a null area per vCPU");
	render_text(&r);
	ok(strstr(out, "\npvsched area: none, KVM does not offer "
		  "KVM_CAP_PVSCHED_AREA\n") && !strstr(out, "vcpu0: pvsched"),
	   "text: no area offered, no per-vCPU area lines");
}

/* The irq payload's --wait and --boost-irq; the WAKEUP count. */
static void test_irq_wakeup(void)
{
	struct kvm_cpu cpus[2];
	struct tid_stats ts[2];
	struct options o;
	struct report r;

	fake_report(&r, &o, cpus, ts);
	render_json(&r);
	ok(strstr(out, "\"busy_loops\":null,\"elapsed\":0.000,\"wait\":null,"
		  "\"boost_irq\":false,\"boost\":null,\"vcpu_fifo\":null,"
		  "\"tsc_khz\":null,\"driver\":{") != NULL,
	   "JSON wait null, boost_irq false for io");
	ok(strstr(out, "\"halt\":0,\"intr_inj\":0,\"wakeup\":null},"
		  "\"pvsched_area\":null,\"latency\":null},") != NULL,
	   "JSON wakeup null without the key");
	render_text(&r);
	ok(strstr(out, " 100 iterations, ran ") && !strstr(out, "wait ") &&
	   !strstr(out, "boost-irq"),
	   "text header: no wait, no boost-irq for io");

	r.payload = "/p/irq.bin";
	r.period_us = 1000;
	r.wait = IRQ_WAIT_SPIN;
	r.boost_irq = true;
	ts[0].counts.halt = 3;
	ts[0].counts.intr_inj = 4;
	ts[0].counts.wakeup = 3;
	ts[0].counts.has_wakeup = true;
	render_json(&r);
	ok(strstr(out, "\"period_us\":1000,\"busy_loops\":null,"
		  "\"elapsed\":0.000,\"wait\":\"spin\",\"boost_irq\":true,"
		  "\"boost\":null,\"vcpu_fifo\":null,\"tsc_khz\":null,"
		  "\"driver\":{") != NULL,
	   "JSON wait spin, boost_irq true");
	ok(strstr(out, "\"vmenter\":42,\"vmexit\":0,\"halt\":3,"
		  "\"intr_inj\":4,\"wakeup\":3},\"pvsched_area\":null,\"latency\":null},") &&
	   strstr(out, "\"callbacks\":null,\"pvsched_area\":null,\"latency\":null}]}"),
	   "JSON wakeup count; no counts still null");
	render_text(&r);
	ok(strstr(out, "payload /p/irq.bin, 2 vCPUs, 100 iterations, "
		  "timer period 1000 us, wait spin, boost-irq, ran ") != NULL,
	   "text header: wait and boost-irq");
	ok(strstr(out, "        3        4   0.002500    25000.0        3\n") &&
	   strstr(out, "        -          -          -        -\n"),
	   "text: the wakeup column, '-' without counts");

	r.wait = IRQ_WAIT_HALT;
	r.boost_irq = false;
	ts[0].source = STATS_BPF;
	ts[0].counts.has_wakeup = false;
	render_json(&r);
	ok(strstr(out, "\"wait\":\"halt\",\"boost_irq\":false,") &&
	   strstr(out, "{\"source\":\"bpf_pvsched_count\",") &&
	   strstr(out, "\"intr_inj\":4,\"wakeup\":null}"),
	   "JSON wait halt; bpf_pvsched_count: wakeup null");
	render_text(&r);
	ok(strstr(out, "timer period 1000 us, wait halt, ran ") &&
	   strstr(out, "        3        4   0.002500    25000.0        -\n"),
	   "text: wait halt; '-' for a wakeup the counts lack");
}

/* The latency payload: --boost, --vcpu-fifo, tsc_khz, per-vCPU stats. */
static void test_latency_report(void)
{
	static struct latency_stats lat[2];
	__u32 ticks[] = { 2000, 4000, 3000, 100000 };
	struct kvm_cpu cpus[2];
	struct tid_stats ts[2];
	struct options o;
	struct report r;

	fake_report(&r, &o, cpus, ts);
	o.vcpu_fifo = 50;
	render_json(&r);
	ok(strstr(out, "\"boost_irq\":false,\"boost\":null,\"vcpu_fifo\":50,"
		  "\"tsc_khz\":null,\"driver\":{") &&
	   count_str(out, "\"latency\":null}") == 2,
	   "JSON: vcpu_fifo for any payload; boost, tsc_khz and each "
	   "latency null for io");
	render_text(&r);
	ok(strstr(out, " 100 iterations, vcpu-fifo 50, ran ") &&
	   !strstr(out, "latency"), "text: vcpu-fifo in the header");

	r.payload = "/p/latency.bin";
	r.period_us = 500;
	r.wait = IRQ_WAIT_HALT;
	r.boost = LAT_BOOST_HOLD;
	r.tsc_khz = 2000000;
	o.vcpu_fifo = 0;
	latency__stats(ticks, 4, r.tsc_khz, &lat[0]);
	latency__stats(NULL, 0, r.tsc_khz, &lat[1]);
	r.latency = lat;
	cpus[0].boost_seen = 3;
	render_json(&r);
	ok(strstr(out, "\"period_us\":500,\"busy_loops\":null,") &&
	   strstr(out, "\"wait\":\"halt\",\"boost_irq\":false,"
		  "\"boost\":\"hold\",\"vcpu_fifo\":null,"
		  "\"tsc_khz\":2000000,\"driver\":{"),
	   "JSON: boost hold, tsc_khz");
	ok(strstr(out, "\"pvsched_area\":null,\"latency\":{\"samples\":4,"
		  "\"min_ns\":1000,\"mean_ns\":13625,\"p50_ns\":1500,"
		  "\"p99_ns\":50000,\"p999_ns\":50000,\"max_ns\":50000,"
		  "\"boost_seen\":3,\"hist\":[[1000,1],[1122,0],[1259,0],"
		  "[1413,0],[1585,1],[1778,0],[1995,0],[2239,1],") &&
	   strstr(out, ",[44670,0],[50120,1]]}},{\"index\":1,"),
	   "JSON: vCPU 0's latency, ns of a 2 GHz TSC, histogram up to "
	   "max's bucket");
	ok(strstr(out, "\"latency\":{\"samples\":0,\"min_ns\":null,"
		  "\"mean_ns\":null,\"p50_ns\":null,\"p99_ns\":null,"
		  "\"p999_ns\":null,\"max_ns\":null,\"boost_seen\":0,"
		  "\"hist\":[]}}]}\n"),
	   "JSON: no samples, null values and an empty histogram");
	ok(!strstr(out, "samples_ns"), "JSON: no samples_ns by default");
	o.latency_samples = true;
	render_json(&r);
	ok(strstr(out, ",[44670,0],[50120,1]],\"samples_ns\":[1000,2000,"
		  "1500,50000]}},{\"index\":1,") &&
	   strstr(out, "\"hist\":[],\"samples_ns\":[]}}]}\n"),
	   "JSON: --latency-samples, each sample in ns, in the order taken");
	o.latency_samples = false;
	render_text(&r);
	ok(strstr(out, "timer period 500 us, wait halt, boost hold, "
		  "TSC 2000000 kHz, ran ") &&
	   strstr(out, "\nvcpu0: latency 4 samples: min 1.0, mean 13.6, "
		  "p50 1.5, p99 50.0, p99.9 50.0, max 50.0 us\n"
		  "vcpu1: latency 0 samples\n"),
	   "text: boost, TSC in the header, a latency line per vCPU");
}

static void test_run_ns(void)
{
	struct kvm_cpu cpu;

	memset(&cpu, 0, sizeof(cpu));
	ok(kvm_cpu__run_ns(&cpu) == 0, "run_ns 0 when the loop never ran");
	cpu.run_start_ns = 10;
	cpu.run_end_ns = 1000000010;
	ok(kvm_cpu__run_ns(&cpu) == 1000000000, "run_ns = end - start");
	cpu.run_end_ns = 5;
	ok(kvm_cpu__run_ns(&cpu) == 0, "run_ns 0 if end is before start");
}

static void test_check(void)
{
	struct kvm_cpu cpu;

	memset(&cpu, 0, sizeof(cpu));
	cpu.state = KVM_CPU_DONE;
	cpu.done = 100;
	cpu.work_writes = 100;
	cpu.progress = 90;
	ok(!kvm_cpu__check(&cpu, 100, true), "DONE(100) after 100 writes");
	ok(!kvm_cpu__check(&cpu, 0, false), "--seconds: any count");
	ok(kvm_cpu__check(&cpu, 101, false) == -EIO, "DONE short of the target");
	cpu.work_writes = 99;
	ok(kvm_cpu__check(&cpu, 100, true) == -EIO,
	   "a work port write missing");
	ok(!kvm_cpu__check(&cpu, 100, false), "work writes only for io");
	cpu.progress = 101;
	ok(kvm_cpu__check(&cpu, 100, false) == -EIO, "PROGRESS beyond DONE");
	cpu.progress = 0;
	cpu.state = KVM_CPU_STOPPED;
	ok(kvm_cpu__check(&cpu, 0, false) == -EIO, "not DONE");
}

void test_report(void)
{
	diag("report");
	test_json_string();
	test_outputs();
	test_no_pvsched();
	test_area();
	test_irq_wakeup();
	test_latency_report();
	test_run_ns();
	test_check();
}
