// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: minivmm's command line into options__parse(). The
 * input is argv[1..], its arguments separated by NUL bytes (argv[0] is
 * "minivmm"), at most FUZZ_MAX_ARGS of them.
 *
 * Invariants, besides no crash and no sanitizer report:
 * - OPTIONS_ERROR comes with exactly one line on the error stream,
 *   "minivmm: ..." (more only if an argument it quotes has newlines);
 *   HELP, VERSION and RUN with nothing there; "unknown option 'S'"
 *   names an S that is an unknown option on its own;
 * - OPTIONS_RUN has every value in its documented range (--vcpus 1..64,
 *   --mem 0 or 1..3072, --reboots 0..1000, --period-us, --busy-loops,
 *   --vcpu-fifo, --touch, --seconds), NUL-terminated driver names, at
 *   most MINIVMM_MAX_SWITCHES switches sorted by time, and none of the
 *   combinations the usage forbids (README.md, "Exit status").
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "linux.h"
#include "options.h"

#define FUZZ_MAX_ARGS	64

static void check_run(const struct options *o)
{
	unsigned int i;

	FUZZ_CHECK(o->nr_vcpus >= 1 && o->nr_vcpus <= MINIVMM_MAX_VCPUS,
		   "--vcpus %u", o->nr_vcpus);
	FUZZ_CHECK(o->mem_mib <= LINUX_MAX_MEM_MIB, "--mem %llu", o->mem_mib);
	FUZZ_CHECK(o->reboots <= MINIVMM_MAX_REBOOTS, "--reboots %u",
		   o->reboots);
	FUZZ_CHECK(o->period_us <= MINIVMM_MAX_PERIOD_US, "--period-us %llu",
		   o->period_us);
	FUZZ_CHECK(o->busy_loops <= MINIVMM_MAX_BUSY_LOOPS,
		   "--busy-loops %llu", o->busy_loops);
	FUZZ_CHECK(o->vcpu_fifo <= MINIVMM_MAX_FIFO_PRIO, "--vcpu-fifo %u",
		   o->vcpu_fifo);
	FUZZ_CHECK(o->touch_mib <= MINIVMM_MAX_TOUCH_MIB, "--touch %llu",
		   o->touch_mib);
	FUZZ_CHECK(o->seconds >= 0 && o->seconds <= MINIVMM_MAX_SECONDS,
		   "--seconds %g", o->seconds);
	FUZZ_CHECK(!(o->iterations && o->seconds),
		   "--iterations with --seconds");
	FUZZ_CHECK(memchr(o->pvsched, 0, sizeof(o->pvsched)),
		   "--pvsched name not terminated");
	FUZZ_CHECK(o->payload && *o->payload, "empty payload");
	FUZZ_CHECK(o->nr_switches <= MINIVMM_MAX_SWITCHES, "%u switches",
		   o->nr_switches);
	for (i = 0; i < o->nr_switches; i++) {
		FUZZ_CHECK(memchr(o->switches[i].name, 0,
				  sizeof(o->switches[i].name)),
			   "--switch name not terminated");
		FUZZ_CHECK(o->switches[i].at >= 0 &&
			   o->switches[i].at <= MINIVMM_MAX_SECONDS &&
			   (!o->seconds || o->switches[i].at < o->seconds),
			   "--switch at %g", o->switches[i].at);
		FUZZ_CHECK(!i || o->switches[i - 1].at <= o->switches[i].at,
			   "--switch times not sorted");
	}
	FUZZ_CHECK(!(o->no_pvsched && (o->pvsched_set || o->nr_switches ||
				       o->refuse_areas || o->boost_irq ||
				       o->boost)),
		   "--no-pvsched with an option that needs pvsched");
	FUZZ_CHECK(!(o->no_area && (o->boost_irq || o->boost)),
		   "--no-area with an option that needs the area");
	FUZZ_CHECK(!(o->reboots && o->nr_switches), "--reboots with --switch");
	if (o->kernel)
		FUZZ_CHECK(!o->payload_set && !o->iterations && !o->seconds &&
			   !o->period_us && !o->busy_loops && !o->wait &&
			   !o->boost_irq && !o->boost &&
			   !o->latency_samples && !o->touch_mib &&
			   !o->no_area,
			   "a payload option with --kernel");
	else
		FUZZ_CHECK(!o->initrd && !o->append && !o->mem_mib &&
			   !o->reboots_set && !o->refuse_areas,
			   "a Linux option without --kernel");
}

/*
 * "unknown option 'S'" must name an option that is unknown on its own:
 * S alone on a command line is an unknown option too.
 */
static void check_unknown(const char *msg)
{
	static const char pfx[] = "minivmm: unknown option '";
	char *s, *argv[3] = { "minivmm", NULL, NULL };
	struct options o;
	char *m = NULL;
	size_t m_len = 0;
	FILE *f;

	if (strncmp(msg, pfx, sizeof(pfx) - 1))
		return;
	s = strdup(msg + sizeof(pfx) - 1);
	s[strlen(s) - 2] = '\0';		/* "'\n" */
	argv[1] = s;
	f = open_memstream(&m, &m_len);
	FUZZ_CHECK(f, "open_memstream");
	FUZZ_CHECK(options__parse(&o, 2, argv, f) == OPTIONS_ERROR &&
		   !fflush(f) && !strcmp(m, msg),
		   "'%.*s' names '%s', which alone gives '%.*s'",
		   (int)strlen(msg) - 1, msg, s, (int)m_len, m ? m : "");
	fclose(f);
	free(m);
	free(s);
}

static size_t newlines(const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		n += s[i] == '\n';
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[FUZZ_MAX_ARGS + 2];
	enum options_action action;
	struct options opts;
	char *buf, *p, *msg = NULL;
	size_t msg_len = 0;
	int argc = 1;
	FILE *err;

	buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = "minivmm";
	for (p = buf; p < buf + size && argc <= FUZZ_MAX_ARGS;
	     p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;

	err = open_memstream(&msg, &msg_len);
	FUZZ_CHECK(err, "open_memstream");
	action = options__parse(&opts, argc, argv, err);
	fclose(err);

	if (action == OPTIONS_ERROR) {
		/* One line, but an argument it quotes may have newlines. */
		FUZZ_CHECK(msg_len > 9 && !strncmp(msg, "minivmm: ", 9) &&
			   msg[msg_len - 1] == '\n' &&
			   newlines(msg, msg_len) <= 1 + newlines(buf, size),
			   "not one line for a usage error: '%s'", msg);
	} else {
		FUZZ_CHECK(!msg_len, "a message without an error: '%s'", msg);
	}
	if (action == OPTIONS_ERROR)
		check_unknown(msg);
	if (action == OPTIONS_RUN)
		check_run(&opts);
	free(msg);
	free(buf);
	return 0;
}
