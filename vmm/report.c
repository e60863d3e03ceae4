// SPDX-License-Identifier: GPL-2.0
/*
 * The end-of-run report: one row per vCPU, as text or as JSON.
 */
#include <string.h>

#include "pvsched.h"
#include "report.h"

static const char *const stats_reset_names[] = {
	[STATS_RESET_NOT_NEEDED] = "not-needed",
	[STATS_RESET_DONE] = "done",
	[STATS_RESET_FAILED] = "failed",
};

static const char *const switch_status_names[] = {
	[SWITCH_PENDING] = "not-reached",
	[SWITCH_DONE] = "done",
	[SWITCH_FAILED] = "failed",
};

static const char *const area_status_names[] = {
	[AREA_NOT_USED] = "not-used",
	[AREA_NOT_OFFERED] = "not-offered",
	[AREA_REGISTERED] = "registered",
	[AREA_BY_GUEST_MSR] = "by-guest-msr",
};

/* "ran 1.234 s: debug-exit, status 3" and the command line. */
static void report__text_linux(FILE *f, const struct report *r)
{
	const struct report_linux *l = r->linux_guest;
	enum guest_exit_reason reason = guest_exit__reason(&l->exit);

	fprintf(f, "kernel %s", l->kernel);
	if (l->initrd)
		fprintf(f, ", initrd %s", l->initrd);
	fprintf(f, ", %u vCPU%s, %llu MiB, ran %.3f s: ", r->nr_cpus,
		r->nr_cpus == 1 ? "" : "s", l->mem_mib, r->elapsed);
	if (r->signal)
		fprintf(f, "stopped by signal %d", r->signal);
	else if (reason != GUEST_EXIT_NONE)
		fprintf(f, "%s on vcpu%d, status %d%s",
			guest_exit__name(reason), l->exit.vcpu, l->exit.status,
			r->ok ? "" : ", FAILED");
	else
		fprintf(f, "FAILED");
	fprintf(f, "\ncmdline: %s\n", l->cmdline);
	if (r->opts->reboots)
		fprintf(f, "reboots: %u of at most %u; what follows is the last boot's\n",
			l->reboots, r->opts->reboots);
}

static void report__text_header(FILE *f, const struct report *r)
{
	const struct options *o = r->opts;
	unsigned int i;

	if (r->linux_guest) {
		report__text_linux(f, r);
		goto driver;
	}
	fprintf(f, "payload %s, %u vCPU%s, ", r->payload, r->nr_cpus,
		r->nr_cpus == 1 ? "" : "s");
	if (r->iterations)
		fprintf(f, "%llu iterations", r->iterations);
	else
		fprintf(f, "%g s", o->seconds);
	if (r->period_us)
		fprintf(f, ", timer period %llu us", r->period_us);
	if (r->busy_loops)
		fprintf(f, ", busy loop %llu", r->busy_loops);
	if (r->wait)
		fprintf(f, ", wait %s", options__wait_name(r->wait));
	if (r->boost_irq)
		fprintf(f, ", boost-irq");
	if (r->boost)
		fprintf(f, ", boost %s", options__boost_name(r->boost));
	if (o->vcpu_fifo)
		fprintf(f, ", vcpu-fifo %u", o->vcpu_fifo);
	if (r->tsc_khz)
		fprintf(f, ", TSC %llu kHz", r->tsc_khz);
	fprintf(f, ", ran %.3f s: ", r->elapsed);
	if (r->signal)
		fprintf(f, "stopped by signal %d\n", r->signal);
	else
		fprintf(f, "%s\n", r->ok ? "ok" : "FAILED");

driver:
	if (o->no_pvsched) {
		fprintf(f, "driver: pvsched not used (--no-pvsched)\n");
		return;	/* no switches, no stats reset */
	}
	fprintf(f, "driver: initial %s", pvsched__display(r->initial));
	if (o->pvsched_set)
		fprintf(f, ", --pvsched %s", pvsched__display(o->pvsched));
	fprintf(f, ", final %s\n",
		r->final_ok ? pvsched__display(r->final) : "(unknown)");
	for (i = 0; i < o->nr_switches; i++) {
		fprintf(f, "switch at %gs to %s: %s",
			o->switches[i].at,
			pvsched__display(o->switches[i].name),
			switch_status_names[r->switches[i].status]);
		if (r->switches[i].status == SWITCH_DONE)
			fprintf(f, " at %.3fs, previous %s",
				r->switches[i].at,
				pvsched__display(r->switches[i].prev));
		fprintf(f, "\n");
	}
	if (r->stats_reset != STATS_RESET_NOT_NEEDED)
		fprintf(f, "pvsched_count stats reset at start: %s\n",
			stats_reset_names[r->stats_reset]);
	if (r->area == AREA_REGISTERED)
		fprintf(f, "pvsched area: registered, vCPU i's at %#lx + %d * i\n",
			GUEST_PVSCHED_AREA_GPA, PVSCHED_AREA_SIZE);
	else if (r->area == AREA_NOT_OFFERED && r->linux_guest)
		fprintf(f, "pvsched area: none, KVM offers no MSR_KVM_PVSCHED that minivmm can filter\n");
	else if (r->area == AREA_NOT_OFFERED)
		fprintf(f, "pvsched area: none, KVM does not offer KVM_CAP_PVSCHED_AREA\n");
	else if (r->area == AREA_BY_GUEST_MSR)
		fprintf(f, "pvsched area: the guest's own, registered through MSR_KVM_PVSCHED\n");
}

/*
 * The area as the driver left it, for a vCPU that has one; for a Linux
 * guest, also what it asked while it ran.
 */
static void report__text_area(FILE *f, const struct kvm_cpu *cpu,
			      bool linux_guest)
{
	const struct pvsched_vcpu_area *a = &cpu->area;

	if (linux_guest)
		fprintf(f, "vcpu%u: the guest asked for flags %#x, priority up to %u (%llu samples)\n",
			cpu->id, cpu->guest_seen.flags,
			cpu->guest_seen.prio_max, cpu->guest_seen.samples);
	if (!cpu->area_gpa)
		return;
	fprintf(f, "vcpu%u: pvsched area %#llx: version %u, boosts %u, unboosts %u, throttles %u, boosted_ns %llu, host_flags %#x, guest saw BOOSTED %llu times, wake_req %#x\n",
		cpu->id, (unsigned long long)cpu->area_gpa, a->version,
		a->boosts, a->unboosts, a->throttles,
		(unsigned long long)a->boosted_ns, a->host_flags,
		cpu->boost_seen, a->wake_req);
}

/* The latency payload's statistics of a vCPU, in us. */
static void report__text_latency(FILE *f, const struct kvm_cpu *cpu,
				 const struct latency_stats *l)
{
	fprintf(f, "vcpu%u: latency %llu samples", cpu->id, l->samples);
	if (l->samples)
		fprintf(f, ": min %.1f, mean %.1f, p50 %.1f, p99 %.1f, p99.9 %.1f, max %.1f us",
			l->min_ns / 1e3, l->mean_ns / 1e3, l->p50_ns / 1e3,
			l->p99_ns / 1e3, l->p999_ns / 1e3, l->max_ns / 1e3);
	fputc('\n', f);
}

static void report__text_counts(FILE *f, const struct tid_stats *s)
{
	const struct pvsched_counts *c = &s->counts;

	if (s->source == STATS_NONE) {
		fprintf(f, "  %-17s %8s %10s %10s %10s %8s %8s", "-", "-",
			"-", "-", "-", "-", "-");
		return;
	}
	fprintf(f, "  %-17s %8llu %10llu %10llu %10llu %8llu %8llu",
		stats__source_name(s->source), c->reg, c->unreg, c->vmenter,
		c->vmexit, c->halt, c->intr_inj);
}

/*
 * Run time in seconds, and per iteration for a vCPU that reported DONE:
 * after the callbacks, so that the earlier columns keep their positions.
 */
static void report__text_run(FILE *f, const struct kvm_cpu *cpu)
{
	unsigned long long ns = kvm_cpu__run_ns(cpu);

	if (!ns) {
		fprintf(f, " %10s %10s", "-", "-");
		return;
	}
	fprintf(f, " %10.6f", ns / 1e9);
	if (cpu->state == KVM_CPU_DONE && cpu->done)
		fprintf(f, " %10.1f", (double)ns / cpu->done);
	else
		fprintf(f, " %10s", "-");
}

/*
 * The WAKEUP count, "-" when unknown (no counts, a kernel without WAKEUP,
 * bpf_pvsched_count): the last column, after the run time, so that the
 * earlier ones keep their positions.
 */
static void report__text_wakeup(FILE *f, const struct tid_stats *s)
{
	if (s->source == STATS_NONE || !s->counts.has_wakeup)
		fprintf(f, " %8s", "-");
	else
		fprintf(f, " %8llu", s->counts.wakeup);
}

void report__text(FILE *f, const struct report *r)
{
	const struct kvm_cpu *cpu;
	unsigned int i;

	report__text_header(f, r);
	fprintf(f, "%4s %7s %-10s %10s %10s %6s %6s %6s",
		"vcpu", "tid", "result", "count", "io", "mmio", "hlt", "other");
	fprintf(f, "  %-17s %8s %10s %10s %10s %8s %8s %10s %10s %8s\n",
		"callbacks", "register", "unregister", "vmenter", "vmexit",
		"halt", "intr_inj", "run_s", "ns/iter", "wakeup");
	for (i = 0; i < r->nr_cpus; i++) {
		cpu = &r->cpus[i];
		fprintf(f, "%4u %7d %-10s %10llu %10llu %6llu %6llu %6llu",
			cpu->id, (int)cpu->tid,
			kvm_cpu__state_name(cpu->state), cpu->done,
			cpu->exits.io, cpu->exits.mmio, cpu->exits.hlt,
			cpu->exits.other);
		report__text_counts(f, &r->stats[i]);
		report__text_run(f, cpu);
		report__text_wakeup(f, &r->stats[i]);
		fputc('\n', f);
	}
	for (i = 0; i < r->nr_cpus; i++) {
		cpu = &r->cpus[i];
		if (cpu->dup_irqs)
			fprintf(f, "vcpu%u: %llu duplicate timer interrupt deliveries, not counted as ticks (DUP_IRQS)\n",
				cpu->id, cpu->dup_irqs);
		if (cpu->shadow_irqs)
			fprintf(f, "vcpu%u: %llu timer interrupts delivered in the shadow of sti, resumed past the hlt (SHADOW_IRQS)\n",
				cpu->id, cpu->shadow_irqs);
	}
	for (i = 0; i < r->nr_cpus; i++)
		report__text_area(f, &r->cpus[i], r->linux_guest);
	for (i = 0; r->latency && i < r->nr_cpus; i++)
		report__text_latency(f, &r->cpus[i], &r->latency[i]);
}

void report__json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void report__json_switches(FILE *f, const struct report *r)
{
	const struct switch_result *s;
	unsigned int i;

	fprintf(f, "\"switches\":[");
	for (i = 0; i < r->opts->nr_switches; i++) {
		s = &r->switches[i];
		fprintf(f, "%s{\"at\":%g,\"name\":", i ? "," : "",
			r->opts->switches[i].at);
		report__json_string(f, r->opts->switches[i].name);
		fprintf(f, ",\"status\":\"%s\"",
			switch_status_names[s->status]);
		if (s->status == SWITCH_DONE) {
			fprintf(f, ",\"issued_at\":%.3f,\"previous\":", s->at);
			report__json_string(f, s->prev);
		}
		if (s->status == SWITCH_FAILED)
			fprintf(f, ",\"errno\":%d", -s->err);
		fprintf(f, "}");
	}
	fprintf(f, "]");
}

/*
 * "linux", a Linux guest's only (a payload's report has no such key):
 * what it booted and how it ended, "exit" and "status" null if it did
 * not end the run; "reboots", the reboots that booted it again
 * (--reboots): all else is the last boot's.
 */
static void report__json_linux(FILE *f, const struct report_linux *l)
{
	enum guest_exit_reason reason;

	if (!l)
		return;
	reason = guest_exit__reason(&l->exit);
	fprintf(f, "\"linux\":{\"kernel\":");
	report__json_string(f, l->kernel);
	fprintf(f, ",\"initrd\":");
	if (l->initrd)
		report__json_string(f, l->initrd);
	else
		fprintf(f, "null");
	fprintf(f, ",\"cmdline\":");
	report__json_string(f, l->cmdline);
	fprintf(f, ",\"mem_mib\":%llu,", l->mem_mib);
	if (reason == GUEST_EXIT_NONE)
		fprintf(f, "\"exit\":null,\"status\":null,\"exit_vcpu\":null,");
	else
		fprintf(f, "\"exit\":\"%s\",\"status\":%d,\"exit_vcpu\":%d,",
			guest_exit__name(reason), l->exit.status, l->exit.vcpu);
	fprintf(f, "\"serial_tx\":%llu,\"serial_rx\":%llu,"
		"\"unhandled_io\":%llu,\"reboots\":%u},",
		l->serial_tx, l->serial_rx, l->unhandled_io, l->reboots);
}

/* "driver":null with --no-pvsched: no pvsched ioctl was made. */
static void report__json_driver(FILE *f, const struct report *r)
{
	if (r->opts->no_pvsched) {
		fprintf(f, "\"driver\":null,");
		return;
	}
	fprintf(f, "\"driver\":{\"initial\":");
	report__json_string(f, r->initial);
	fprintf(f, ",\"requested\":");
	if (r->opts->pvsched_set)
		report__json_string(f, r->opts->pvsched);
	else
		fprintf(f, "null");
	fprintf(f, ",\"final\":");
	if (r->final_ok)
		report__json_string(f, r->final);
	else
		fprintf(f, "null");
	fprintf(f, ",\"stats_reset\":\"%s\"},",
		stats_reset_names[r->stats_reset]);
}

/* "pvsched_area": the area as the driver left it, null without one. */
static void report__json_area(FILE *f, const struct kvm_cpu *cpu)
{
	const struct pvsched_vcpu_area *a = &cpu->area;

	if (!cpu->area_gpa) {
		fprintf(f, ",\"pvsched_area\":null");
		return;
	}
	fprintf(f,
		",\"pvsched_area\":{\"gpa\":%llu,\"version\":%u,"
		"\"host_flags\":%u,\"guest_flags\":%u,\"boosts\":%u,"
		"\"unboosts\":%u,\"throttles\":%u,\"boosted_ns\":%llu,"
		"\"boost_seen\":%llu,\"wake_req\":%u}",
		(unsigned long long)cpu->area_gpa, a->version, a->host_flags,
		a->guest_flags, a->boosts, a->unboosts, a->throttles,
		(unsigned long long)a->boosted_ns, cpu->boost_seen,
		a->wake_req);
}

/*
 * "latency": the latency payload's statistics, null for the others; the
 * ns values null without samples.
 */
static void report__json_latency(FILE *f, const struct kvm_cpu *cpu,
				 const struct latency_stats *l, bool samples)
{
	unsigned int i;

	if (!l) {
		fprintf(f, ",\"latency\":null");
		return;
	}
	fprintf(f, ",\"latency\":{\"samples\":%llu,", l->samples);
	if (l->samples)
		fprintf(f,
			"\"min_ns\":%llu,\"mean_ns\":%llu,\"p50_ns\":%llu,"
			"\"p99_ns\":%llu,\"p999_ns\":%llu,\"max_ns\":%llu,",
			l->min_ns, l->mean_ns, l->p50_ns, l->p99_ns,
			l->p999_ns, l->max_ns);
	else
		fprintf(f,
			"\"min_ns\":null,\"mean_ns\":null,\"p50_ns\":null,"
			"\"p99_ns\":null,\"p999_ns\":null,\"max_ns\":null,");
	fprintf(f, "\"boost_seen\":%llu,\"hist\":[", cpu->boost_seen);
	for (i = 0; i < l->nr_buckets; i++)
		fprintf(f, "%s[%llu,%llu]", i ? "," : "", l->hist[i].le_ns,
			l->hist[i].count);
	fprintf(f, "]");
	/* --latency-samples: each sample in ns, in the order taken. */
	if (samples) {
		fprintf(f, ",\"samples_ns\":[");
		for (i = 0; i < l->samples; i++)
			fprintf(f, "%s%llu", i ? "," : "",
				latency__ns(l->ticks[i], l->tsc_khz));
		fprintf(f, "]");
	}
	fprintf(f, "}");
}

/*
 * "guest_seen": a Linux guest's requests, as sampled while it ran, how
 * often KVM took a registration or an unregistration from it, and how
 * many registrations --refuse-areas refused (no such key for a payload,
 * whose requests the payload itself reports).
 */
static void report__json_guest_seen(FILE *f, const struct kvm_cpu *cpu,
				    bool linux_guest)
{
	if (!linux_guest)
		return;
	fprintf(f, ",\"guest_seen\":{\"samples\":%llu,\"flags\":%u,"
		"\"prio_max\":%u,\"registrations\":%u,"
		"\"unregistrations\":%u,\"refusals\":%u}",
		cpu->guest_seen.samples, cpu->guest_seen.flags,
		cpu->guest_seen.prio_max, cpu->area_registrations,
		cpu->area_unregistrations, cpu->area_refusals);
}

static void report__json_vcpu(FILE *f, const struct kvm_cpu *cpu,
			      const struct tid_stats *s,
			      const struct latency_stats *l, bool samples,
			      bool linux_guest)
{
	const struct pvsched_counts *c = &s->counts;

	fprintf(f,
		"{\"index\":%u,\"tid\":%d,\"result\":\"%s\",\"count\":%llu,"
		"\"progress\":%llu,\"dup_irqs\":%llu,\"shadow_irqs\":%llu,"
		"\"run_ns\":%llu,"
		"\"exits\":{\"io\":%llu,\"mmio\":%llu,\"hlt\":%llu,"
		"\"other\":%llu},\"callbacks\":",
		cpu->id, (int)cpu->tid, kvm_cpu__state_name(cpu->state),
		cpu->done, cpu->progress, cpu->dup_irqs, cpu->shadow_irqs,
		kvm_cpu__run_ns(cpu),
		cpu->exits.io, cpu->exits.mmio, cpu->exits.hlt,
		cpu->exits.other);
	if (s->source == STATS_NONE) {
		fprintf(f, "null");
	} else {
		fprintf(f,
			"{\"source\":\"%s\",\"register\":%llu,"
			"\"unregister\":%llu,\"vmenter\":%llu,"
			"\"vmexit\":%llu,\"halt\":%llu,\"intr_inj\":%llu,"
			"\"wakeup\":",
			stats__source_name(s->source), c->reg, c->unreg,
			c->vmenter, c->vmexit, c->halt, c->intr_inj);
		if (c->has_wakeup)
			fprintf(f, "%llu}", c->wakeup);
		else
			fprintf(f, "null}");
	}
	report__json_area(f, cpu);
	report__json_guest_seen(f, cpu, linux_guest);
	report__json_latency(f, cpu, l, samples);
	fputc('}', f);
}

void report__json(FILE *f, const struct report *r)
{
	unsigned int i;

	fprintf(f, "{\"ok\":%s,\"signal\":%d,\"payload\":",
		r->ok ? "true" : "false", r->signal);
	if (r->payload)
		report__json_string(f, r->payload);
	else
		fprintf(f, "null");
	fprintf(f, ",\"vcpus\":%u,", r->nr_cpus);
	if (r->iterations)
		fprintf(f, "\"iterations\":%llu,\"seconds\":null,",
			r->iterations);
	else if (r->linux_guest)
		fprintf(f, "\"iterations\":null,\"seconds\":null,");
	else
		fprintf(f, "\"iterations\":null,\"seconds\":%g,",
			r->opts->seconds);
	if (r->period_us)
		fprintf(f, "\"period_us\":%llu,", r->period_us);
	else
		fprintf(f, "\"period_us\":null,");
	if (r->busy_loops)
		fprintf(f, "\"busy_loops\":%llu,", r->busy_loops);
	else
		fprintf(f, "\"busy_loops\":null,");
	fprintf(f, "\"elapsed\":%.3f,", r->elapsed);
	if (r->wait)
		fprintf(f, "\"wait\":\"%s\",", options__wait_name(r->wait));
	else
		fprintf(f, "\"wait\":null,");
	fprintf(f, "\"boost_irq\":%s,", r->boost_irq ? "true" : "false");
	if (r->boost)
		fprintf(f, "\"boost\":\"%s\",", options__boost_name(r->boost));
	else
		fprintf(f, "\"boost\":null,");
	if (r->opts->vcpu_fifo)
		fprintf(f, "\"vcpu_fifo\":%u,", r->opts->vcpu_fifo);
	else
		fprintf(f, "\"vcpu_fifo\":null,");
	if (r->tsc_khz)
		fprintf(f, "\"tsc_khz\":%llu,", r->tsc_khz);
	else
		fprintf(f, "\"tsc_khz\":null,");
	report__json_linux(f, r->linux_guest);
	report__json_driver(f, r);
	report__json_switches(f, r);
	fprintf(f, ",\"pvsched_area\":\"%s\",\"vcpu\":[",
		area_status_names[r->area]);
	for (i = 0; i < r->nr_cpus; i++) {
		if (i)
			fputc(',', f);
		report__json_vcpu(f, &r->cpus[i], &r->stats[i],
				  r->latency ? &r->latency[i] : NULL,
				  r->opts->latency_samples, r->linux_guest);
	}
	fprintf(f, "]}\n");
}
