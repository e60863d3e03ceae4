// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "tap.h"

#define LINE "tid=1234 register=1 unregister=2 vmenter=300 vmexit=299 " \
	     "halt=7 intr_inj=8"

static bool counts_are(const struct pvsched_counts *c, unsigned long long r,
		       unsigned long long u, unsigned long long en,
		       unsigned long long ex, unsigned long long h,
		       unsigned long long i)
{
	return c->reg == r && c->unreg == u && c->vmenter == en &&
	       c->vmexit == ex && c->halt == h && c->intr_inj == i;
}

static void test_parse_line(void)
{
	struct pvsched_counts c;
	pid_t tid = 0;

	ok(!stats__parse_line(LINE, &tid, &c) && tid == 1234 &&
	   counts_are(&c, 1, 2, 300, 299, 7, 8), "a stats line");
	ok(!stats__parse_line(LINE "\n", &tid, &c), "with its newline");
	ok(!stats__parse_line("  intr_inj=8 halt=7\tvmexit=299 vmenter=300 "
			      "unregister=2 register=1 tid=99\n", &tid, &c) &&
	   tid == 99 && counts_are(&c, 1, 2, 300, 299, 7, 8),
	   "any key order and spacing");
	ok(!stats__parse_line(LINE " future=5", &tid, &c),
	   "unknown keys are ignored");
	ok(!stats__parse_line("tid=1 register=18446744073709551615 "
			      "unregister=0 vmenter=0 vmexit=0 halt=0 "
			      "intr_inj=0", &tid, &c) && c.reg == ~0ULL,
	   "2^64-1");
	ok(stats__parse_line("\n", &tid, &c) == -ENODATA, "blank line");
	ok(stats__parse_line("", &tid, &c) == -ENODATA, "empty line");
	ok(stats__parse_line("tid=1 register=1 unregister=2 vmenter=3 "
			     "vmexit=4 halt=5", &tid, &c) == -EINVAL,
	   "missing intr_inj");
	ok(stats__parse_line("register=1 unregister=2 vmenter=3 vmexit=4 "
			     "halt=5 intr_inj=6", &tid, &c) == -EINVAL,
	   "missing tid");
	ok(stats__parse_line(LINE " halt=9", &tid, &c) == -EINVAL,
	   "duplicate key");
	ok(stats__parse_line("tid=1 register=1 unregister=2 vmenter=3x "
			     "vmexit=4 halt=5 intr_inj=6", &tid, &c) ==
	   -EINVAL, "trailing garbage in a number");
	ok(stats__parse_line("tid=1 register=-1 unregister=2 vmenter=3 "
			     "vmexit=4 halt=5 intr_inj=6", &tid, &c) ==
	   -EINVAL, "negative count");
	ok(stats__parse_line("tid=1 register=18446744073709551616 "
			     "unregister=2 vmenter=3 vmexit=4 halt=5 "
			     "intr_inj=6", &tid, &c) == -EINVAL, "overflow");
	ok(stats__parse_line("tid=0 register=1 unregister=2 vmenter=3 "
			     "vmexit=4 halt=5 intr_inj=6", &tid, &c) ==
	   -EINVAL, "tid 0");
	ok(stats__parse_line("tid=1 register= unregister=2 vmenter=3 "
			     "vmexit=4 halt=5 intr_inj=6", &tid, &c) ==
	   -EINVAL, "empty value");
	ok(stats__parse_line(LINE " =5", &tid, &c) == -EINVAL, "empty key");
	ok(stats__parse_line(LINE " junk", &tid, &c) == -EINVAL,
	   "token without '='");
}

/* The optional wakeup key: kernels before the WAKEUP event have none. */
static void test_parse_wakeup(void)
{
	struct pvsched_counts c;
	pid_t tid = 0;

	ok(!stats__parse_line(LINE " wakeup=3\n", &tid, &c) && tid == 1234 &&
	   counts_are(&c, 1, 2, 300, 299, 7, 8) && c.has_wakeup &&
	   c.wakeup == 3, "a stats line with wakeup");
	ok(!stats__parse_line(LINE, &tid, &c) && !c.has_wakeup && !c.wakeup,
	   "without wakeup (an older kernel): still parsed, wakeup unknown");
	ok(!stats__parse_line("wakeup=0 intr_inj=8 halt=7 vmexit=299 "
			      "vmenter=300 unregister=2 register=1 tid=99",
			      &tid, &c) && tid == 99 && c.has_wakeup &&
	   !c.wakeup && counts_are(&c, 1, 2, 300, 299, 7, 8),
	   "wakeup=0 first, any key order: known, 0");
	ok(!stats__parse_line(LINE " wakeup=18446744073709551615", &tid, &c) &&
	   c.has_wakeup && c.wakeup == ~0ULL, "wakeup 2^64-1");
	ok(!stats__parse_line(LINE " wakeup=4 future=5", &tid, &c) &&
	   c.has_wakeup && c.wakeup == 4, "wakeup, then an unknown key");
	ok(stats__parse_line(LINE " wakeup=3 wakeup=3", &tid, &c) == -EINVAL,
	   "duplicate wakeup");
	ok(stats__parse_line("wakeup=1 " LINE " wakeup=2", &tid, &c) == -EINVAL,
	   "duplicate wakeup, apart");
	ok(stats__parse_line(LINE " wakeup=", &tid, &c) == -EINVAL,
	   "wakeup without a value");
	ok(stats__parse_line(LINE " wakeup=-1", &tid, &c) == -EINVAL,
	   "negative wakeup");
	ok(stats__parse_line(LINE " wakeup=3x", &tid, &c) == -EINVAL,
	   "trailing garbage in wakeup");
	ok(stats__parse_line("tid=1 register=1 unregister=2 vmenter=3 "
			     "vmexit=4 halt=5 wakeup=6", &tid, &c) == -EINVAL,
	   "wakeup does not make up for a missing intr_inj");
	ok(stats__parse_line("wakeup=6", &tid, &c) == -EINVAL,
	   "wakeup alone");
}

static void test_read_file(void)
{
	struct tid_stats ts[3] = {
		{ .tid = 1234 }, { .tid = 55 }, { .tid = 77 },
	};
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/stats", tap_tmpdir);
	f = fopen(path, "w");
	fprintf(f, "tid=999 register=1 unregister=1 vmenter=1 vmexit=1 "
		"halt=1 intr_inj=1\n"
		"tid=55 broken\n"
		LINE "\n"
		"tid=55 register=1 unregister=0 vmenter=10 vmexit=10 "
		"halt=0 intr_inj=0\n");
	fclose(f);

	ts[2].source = STATS_BPF;
	ok(stats__read_count_file(path, ts, 3) == 2, "two vCPU tids found");
	ok(ts[0].source == STATS_PVSCHED_COUNT &&
	   counts_are(&ts[0].counts, 1, 2, 300, 299, 7, 8),
	   "counts of tid 1234");
	ok(ts[1].source == STATS_PVSCHED_COUNT && ts[1].counts.vmenter == 10,
	   "a malformed line is skipped, the good one used");
	ok(ts[2].source == STATS_BPF, "an entry with a source is kept");

	snprintf(path, sizeof(path), "%s/no-such-file", tap_tmpdir);
	ok(stats__read_count_file(path, ts, 3) == -ENOENT, "missing file");
}

/* A file with and without wakeup: each line says for its own thread. */
static void test_read_file_wakeup(void)
{
	struct tid_stats ts[3] = {
		{ .tid = 10 }, { .tid = 11 }, { .tid = 12 },
	};
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/stats-wakeup", tap_tmpdir);
	f = fopen(path, "w");
	fprintf(f, "tid=10 register=1 unregister=0 vmenter=9 vmexit=9 "
		"halt=3 intr_inj=4 wakeup=3\n"
		"tid=11 register=1 unregister=0 vmenter=9 vmexit=9 "
		"halt=3 intr_inj=4\n"
		"tid=12 register=1 unregister=0 vmenter=9 vmexit=9 "
		"halt=3 intr_inj=4 wakeup=1 wakeup=2\n");
	fclose(f);

	ok(stats__read_count_file(path, ts, 3) == 2,
	   "lines with and without wakeup read, the duplicate one skipped");
	ok(ts[0].source == STATS_PVSCHED_COUNT && ts[0].counts.has_wakeup &&
	   ts[0].counts.wakeup == 3 && ts[0].counts.intr_inj == 4,
	   "tid 10: wakeup 3");
	ok(ts[1].source == STATS_PVSCHED_COUNT && !ts[1].counts.has_wakeup &&
	   ts[1].counts.halt == 3, "tid 11: no wakeup key, wakeup unknown");
	ok(ts[2].source == STATS_NONE, "tid 12: duplicate wakeup, no counts");
}

static void test_reset(void)
{
	char path[4096], buf[16] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/reset", tap_tmpdir);
	f = fopen(path, "w");
	fclose(f);
	ok(!stats__reset_count(path), "reset writes");
	f = fopen(path, "r");
	ok(f && fgets(buf, sizeof(buf), f) && !strcmp(buf, "1\n"),
	   "reset wrote \"1\\n\"");
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s/no-dir/reset", tap_tmpdir);
	ok(stats__reset_count(path) == -ENOENT, "no reset file");
	ok(!strcmp(stats__source_name(STATS_NONE), "-") &&
	   !strcmp(stats__source_name(STATS_PVSCHED_COUNT), "pvsched_count") &&
	   !strcmp(stats__source_name(STATS_BPF), "bpf_pvsched_count"),
	   "source names");
}

void test_stats(void)
{
	diag("stats");
	test_parse_line();
	test_parse_wakeup();
	test_read_file();
	test_read_file_wakeup();
	test_reset();
}
